#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# NFS over RDMA on orca0, server and client in this guest: nfsd exports
# a tmpfs (NFSv4 root, fsid=0) and listens for RPC-over-RDMA on port
# 20049 (/proc/fs/nfsd/portlist); the client mounts it with
# "-o rdma,port=20049".  svcrdma and xprtrdma are kernel consumers of
# orca0: rdma_cm connects them, the client registers its buffers with
# fast registration, the server moves the data with RDMA READ and WRITE.
# Files are written, the client's page cache is dropped, and they are
# read back and compared on both sides.  After umount and nfsd's stop
# nothing of orca0 is left.
#
# The guest's root is an overlay on 9p, which nfsd cannot export; the
# export is its own tmpfs.  NFSv4 only, with 10 s grace and lease times so
# that the first open does not wait out the default 90 s grace period.
# The client asks for version 4 and takes the highest minor version both
# kernels have (4.2 on Debian's, 4.0 on the small debug kernel).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

EXPORT=/tmp/e2e-nfs-export
MNT=/tmp/e2e-nfs-mnt

before=$(res_summary)
log0=$(($(dmesg_lines) + 1))
ip=$(ip -4 -o addr show dev "$ORCA_NETDEV" | awk '{ print $4 }' | cut -d/ -f1 | head -n1)

modprobe nfsd && modprobe rpcrdma
ok $? "nfsd and rpcrdma are loaded"

{
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	mkdir -p "$EXPORT" "$MNT" /run/rpc_pipefs &&
		mount -t tmpfs -o size=128m e2e-nfs "$EXPORT" &&
		{ mountpoint -q /run/rpc_pipefs || mount -t rpc_pipefs rpc_pipefs /run/rpc_pipefs; } &&
		echo "$EXPORT *(rw,fsid=0,no_root_squash,insecure,no_subtree_check)" >/tmp/e2e-exports &&
		mount --bind /tmp/e2e-exports /etc/exports &&
		rpcbind -w && exportfs -ra && rpc.mountd -N 2 -N 3 &&
		rpc.nfsd -N 3 -V 4 -G 10 -L 10 4 &&
		echo "rdma 20049" >/proc/fs/nfsd/portlist
} >/tmp/e2e-nfsd.out 2>&1
ok $? "nfsd serves $EXPORT over NFSv4 with an RDMA listener on port 20049"
sed 's/^/# /' /tmp/e2e-nfsd.out

rdma resource show cm_id 2>/dev/null | grep -qE "^link $ORCA_DEV/[0-9-]+ .*state LISTEN .*comm \[rpcrdma\] .*:20049 "
ok $? "svcrdma listens on $ORCA_DEV, port 20049"

timeout 180 mount -t nfs4 -o rdma,port=20049,vers=4 "$ip:/" "$MNT" >/tmp/e2e-mount.out 2>&1 &&
	grep -E " $MNT nfs4 " /proc/mounts | grep -q 'proto=rdma'
mnt=$?
ok $mnt "mount -t nfs4 -o rdma,port=20049 $ip:/ : mounted with proto=rdma"
sed 's/^/# /' /tmp/e2e-mount.out
[ "$mnt" -eq 0 ] || stall_report "$log0"
grep -E " $MNT " /proc/mounts | sed 's/^/# /'

if mountpoint -q "$MNT"; then
	tx0=$(orca_stat tx_bytes)
	dd if=/dev/urandom of=/tmp/e2e-nfs-big bs=1M count=24 status=none
	dd if=/dev/urandom of=/tmp/e2e-nfs-odd bs=4099 count=3 status=none
	cp /tmp/e2e-nfs-big /tmp/e2e-nfs-odd "$MNT/" && sync
	ok $? "a 24 MiB and a 12297-byte file written through the mount"
	echo 3 >/proc/sys/vm/drop_caches
	cmp /tmp/e2e-nfs-big "$MNT/e2e-nfs-big" && cmp /tmp/e2e-nfs-odd "$MNT/e2e-nfs-odd"
	ok $? "read back through the mount (page cache dropped): identical"
	cmp /tmp/e2e-nfs-big "$EXPORT/e2e-nfs-big" && cmp /tmp/e2e-nfs-odd "$EXPORT/e2e-nfs-odd"
	ok $? "the server's copies are identical"
	tx1=$(orca_stat tx_bytes)
	[ -n "$tx0" ] && [ -n "$tx1" ] && [ $((tx1 - tx0)) -ge $((48 << 20)) ]
	ok $? "the data crossed $ORCA_DEV (tx_bytes grew $((${tx1:-0} - ${tx0:-0})), >= 48 MiB)"
	umount "$MNT"
	ok $? "umount"
else
	for what in write "read back" "server copy" "traffic on $ORCA_DEV" umount; do
		ok 1 "$what: not mounted"
	done
fi

{
	rpc.nfsd 0 && exportfs -ua && pkill -x rpc.mountd && pkill -x rpcbind
	umount /etc/exports
	umount "$EXPORT"
	modprobe -r rpcrdma
} >/tmp/e2e-nfsstop.out 2>&1
ok $? "nfsd stopped, rpcrdma unloaded"
sed 's/^/# /' /tmp/e2e-nfsstop.out

leak_check "$before"
plan "$_tap_n"
done_testing
