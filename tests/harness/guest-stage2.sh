#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Stage 2 of the Orca guest, PID 1 after switch_root into the overlay of
# the host root.  Sets up the system, brings up the network, runs the
# caller's command (/orca-results/cmd.sh) as root with cwd = ORCA_CWD,
# records its stdout and exit status in the results share, checks that the
# requested modules unload, and powers off.
#
# Files written to the results share (/orca-results):
#   stdout stderr status    the command's output and exit status
#   unload.log              "ok <mod>" / "FAIL <mod>: <reason>" lines
#   kmemleak                kmemleak report, if the kernel has kmemleak
#   dmesg                   the kernel log at the end
#   stage2.log              this script's own messages

set -o pipefail

R=/orca-results
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
# shellcheck disable=SC1091
. "$R/guest.conf"

log() {
	local up
	up=$(cut -d' ' -f1 /proc/uptime)
	echo "orca-guest: [$up] $*" >>"$R/stage2.log"
	echo "orca-guest: [$up] $*" >/dev/console
}
log "stage 2 started"

finish() {
	dmesg >"$R/dmesg" 2>&1
	sync
	umount "$R" 2>/dev/null
	sync
	busybox poweroff -f 2>/dev/null
	echo o >/proc/sysrq-trigger
	sleep 100
}

# All kernel messages go to the console from now on.
echo 8 >/proc/sys/kernel/printk
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /dev/pts /dev/shm /dev/mqueue
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t configfs configfs /sys/kernel/config 2>/dev/null
ln -sf /proc/self/fd /dev/fd 2>/dev/null
hostname "${ORCA_HOSTNAME:-orca-guest}"
ulimit -l unlimited
ulimit -n 65536 2>/dev/null

# Network: eth0 on QEMU user networking (no DHCP wait: slirp addresses are
# fixed), and on a pair run eth1 on the guests' private segment.
[ -e /sys/class/net/eth0 ] || modprobe -q virtio_net 2>/dev/null
ip link set lo up
for _ in $(seq 50); do
	[ -e /sys/class/net/eth0 ] && break
	sleep 0.1
done
if [ -e /sys/class/net/eth0 ]; then
	ip link set eth0 up
	ip addr add 10.0.2.15/24 dev eth0
	ip route add default via 10.0.2.2 dev eth0
else
	log "no eth0"
fi
if [ -n "${ORCA_ETH1_ADDR:-}" ]; then
	for _ in $(seq 50); do
		[ -e /sys/class/net/eth1 ] && break
		sleep 0.1
	done
	if ! ip link set eth1 up || ! ip addr add "$ORCA_ETH1_ADDR" dev eth1; then
		log "cannot configure eth1"
	fi
fi

cut -d' ' -f1 /proc/uptime >"$R/started"
log "running command (cwd $ORCA_CWD)"
status=0
cd "$ORCA_CWD" || status=126
if [ "$status" -eq 0 ]; then
	# stdout to the share only; stderr to the share and the console.
	{ bash "$R/cmd.sh" </dev/null 2>&1 1>&3 3>&- |
		tee "$R/stderr" >/dev/console; } 3>"$R/stdout"
	status=${PIPESTATUS[0]}
fi
cd /
echo "$status" >"$R/status"
sync
log "command exited with status $status"

# Modules that must unload cleanly.  The command may already have removed
# them; whatever is still loaded is removed here, in the given order.
: >"$R/unload.log"
for m in ${ORCA_UNLOAD:-}; do
	m=${m//-/_}
	if [ ! -e "/sys/module/$m/initstate" ]; then
		echo "ok $m (not loaded)" >>"$R/unload.log"
		continue
	fi
	if err=$(timeout 60 rmmod "$m" 2>&1); then
		echo "ok $m" >>"$R/unload.log"
	else
		refs=$(cat "/sys/module/$m/refcnt" 2>/dev/null)
		echo "FAIL $m: ${err:-rmmod failed} (refcnt ${refs:-?})" >>"$R/unload.log"
	fi
done

if [ -e /sys/kernel/debug/kmemleak ]; then
	log "kmemleak scan"
	echo scan >/sys/kernel/debug/kmemleak
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >"$R/kmemleak"
fi

log "done"
finish
