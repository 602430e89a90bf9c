#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0-only
#
# Stage 1 of the Orca guest: /init of the busybox initramfs built by
# mkinitramfs.sh.  Loads the virtio/9p/overlay modules that are not built
# into the kernel, mounts the results share (read-write) and the host root
# (read-only, 9p) under a tmpfs overlay, makes the kernel's own module tree
# visible at /lib/modules/<release>, and switch_root's into it to run
# stage 2 (guest-stage2.sh) with bash from the host.
#
# Host -> guest configuration arrives in /results/guest.conf (written by
# run-guest.sh into the read-write share).

/bin/busybox --install -s /bin
export PATH=/bin

fatal() {
	echo "orca-guest: FATAL: $*"
	echo "orca-guest: stage1 failed: $*" >/results/stage1-error 2>/dev/null
	poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 100
}

mkdir -p /proc /sys /dev /results /lower /ovl /newroot
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

# Modules in load order (mkinitramfs.sh); those built in are not there.
touch /modules/order
while read -r m; do
	insmod "/modules/$m.ko" 2>/insmod.err ||
		if [ ! -d "/sys/module/$m" ]; then
			cat /insmod.err
			fatal "insmod $m failed"
		fi
done </modules/order

mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results /results ||
	fatal "cannot mount results share"
[ -f /results/guest.conf ] || fatal "no guest.conf in results share"
# shellcheck disable=SC1091
. /results/guest.conf

mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro,cache=loose \
	hostroot /lower || fatal "cannot mount host root"
mount -t tmpfs -o mode=0755 tmpfs /ovl || fatal "tmpfs"
mkdir -p /ovl/upper /ovl/work
mount -t overlay overlay \
	-o lowerdir=/lower,upperdir=/ovl/upper,workdir=/ovl/work /newroot ||
	fatal "cannot mount overlay"

# The kernel's own module tree at /lib/modules/<release>.
if [ -n "${ORCA_MODDIR:-}" ]; then
	[ -d "/newroot$ORCA_MODDIR" ] ||
		fatal "module tree $ORCA_MODDIR not visible in guest"
	mkdir -p "/newroot/lib/modules/$ORCA_RELEASE"
	mount --bind "/newroot$ORCA_MODDIR" "/newroot/lib/modules/$ORCA_RELEASE" ||
		fatal "cannot bind module tree"
fi

mkdir -p /newroot/orca-results
mount --move /results /newroot/orca-results || fatal "cannot move results"
cp /stage2.sh /newroot/.orca-stage2.sh
for d in proc sys dev; do
	mount --move "/$d" "/newroot/$d" || fatal "cannot move /$d"
done

# The rest of the system mounts, and the network, are set up here with
# busybox: much cheaper under emulation than the host's dynamic binaries.
N=/newroot
mount -t debugfs debugfs $N/sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs $N/sys/kernel/tracing 2>/dev/null
mount -t configfs configfs $N/sys/kernel/config 2>/dev/null
mkdir -p $N/dev/pts $N/dev/shm $N/dev/mqueue
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts $N/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $N/dev/shm
# /tmp stays the overlay's (tmpfs upper): a repository or --out under the
# host's /tmp must stay visible.  /run starts empty unless it holds ORCA_CWD.
case "$ORCA_CWD/" in
/run/*) ;;
*) mount -t tmpfs -o mode=0755 tmpfs $N/run ;;
esac
[ -e $N/dev/fd ] || ln -s /proc/self/fd $N/dev/fd

# eth0: QEMU user networking, fixed slirp addresses (no DHCP wait); eth1
# on a pair run: the guests' private segment.
ip link set lo up
wait_netdev() {
	i=0
	while [ ! -e "$N/sys/class/net/$1" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "$N/sys/class/net/$1" ]
}
if wait_netdev eth0; then
	ip link set eth0 up
	ip addr add 10.0.2.15/24 dev eth0
	ip route add default via 10.0.2.2 dev eth0
else
	echo "orca-guest: no eth0"
fi
if [ -n "${ORCA_ETH1_ADDR:-}" ]; then
	if wait_netdev eth1; then
		ip link set eth1 up
		ip addr add "$ORCA_ETH1_ADDR" dev eth1
	else
		echo "orca-guest: no eth1"
	fi
fi

# shellcheck disable=SC2093 # exec fails only if switch_root cannot run
exec switch_root /newroot /bin/bash /.orca-stage2.sh
fatal "switch_root failed"
