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
	read -r up _ </proc/uptime
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

# All kernel messages go to the console from now on.  Stage 1 did the
# mounts and the network.
echo 8 >/proc/sys/kernel/printk
echo "${ORCA_HOSTNAME:-orca-guest}" >/proc/sys/kernel/hostname
ulimit -l unlimited
ulimit -n 65536 2>/dev/null
[ -e /sys/class/net/eth0 ] || log "no eth0"
if [ -n "${ORCA_ETH1_ADDR:-}" ] && [ ! -e /sys/class/net/eth1 ]; then
	log "no eth1"
fi

read -r up _ </proc/uptime
echo "$up" >"$R/started"
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
	cat /sys/kernel/debug/kmemleak >"$R/kmemleak"
fi

log "done"
finish
