#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# NFS over RDMA across the wire: the server guest runs nfsd, exporting a
# tmpfs (NFSv4 root, fsid=0) with an RPC-over-RDMA listener on port
# 20049; the client guest mounts it with "-o rdma,port=20049" (see
# pair_storage_server() for which is which).  svcrdma and xprtrdma are
# kernel consumers of their devices: rdma_cm connects them, the client
# registers its buffers with fast registration, the server moves the
# data with RDMA READ and WRITE.
#
# Both directions are checked by SHA-256 sent through the mailbox: the
# client writes a 24 MiB and a 12297-byte file, drops its page cache and
# reads them back; the server finds the same bytes in its export, then
# writes an 8 MiB file into it, which the client reads through the
# mount.  After umount and nfsd's stop nothing is left on either
# device.
#
# The guest's root is an overlay on 9p, which nfsd cannot export, hence
# the tmpfs.  NFSv4 only, with 10 s grace and lease times so that the
# first open does not wait out the default 90 s grace period.

# pair-timeout: 900

. "$(dirname "$0")/lib-pair.sh"

EXPORT=/tmp/pair-nfs-export
MNT=/tmp/pair-nfs-mnt

before=$(res_summary)
sha() { sha256sum <"$1" | cut -d' ' -f1; }

if is_storage_server; then
	modprobe nfsd && modprobe rpcrdma
	ok $? "nfsd and rpcrdma are loaded"
	{
		mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
		mkdir -p "$EXPORT" /run/rpc_pipefs &&
			mount -t tmpfs -o size=128m pair-nfs "$EXPORT" &&
			{ mountpoint -q /run/rpc_pipefs || mount -t rpc_pipefs rpc_pipefs /run/rpc_pipefs; } &&
			echo "$EXPORT *(rw,fsid=0,no_root_squash,insecure,no_subtree_check)" >/tmp/pair-exports &&
			mount --bind /tmp/pair-exports /etc/exports &&
			rpcbind -w && exportfs -ra && rpc.mountd -N 2 -N 3 &&
			rpc.nfsd -N 3 -V 4 -G 10 -L 10 4 &&
			echo "rdma 20049" >/proc/fs/nfsd/portlist
	} >/tmp/pair-nfsd.out 2>&1
	ok $? "nfsd serves $EXPORT over NFSv4 with an RDMA listener on port 20049"
	sed 's/^/# /' /tmp/pair-nfsd.out
	svc_listening() {
		rdma resource show cm_id 2>/dev/null |
			grep -qE "^link $ORCA_DEV/[0-9-]+ .*state LISTEN .*comm \[rpcrdma\] .*:20049 "
	}
	poll_until 120 svc_listening
	rc=$?
	ok $rc "svcrdma listens on $ORCA_DEV, port 20049"
	dd if=/dev/urandom of="$EXPORT/from-server" bs=1M count=8 status=none
	pair_put server-ready "$rc $(sha "$EXPORT/from-server")"

	read -r big odd <<<"$(pair_get written 600)"
	[ -n "$big" ] && [ "$big" = "$(sha "$EXPORT/pair-nfs-big" 2>/dev/null)" ] &&
		[ "$odd" = "$(sha "$EXPORT/pair-nfs-odd" 2>/dev/null)" ]
	ok $? "the export holds the two files the client wrote, byte for byte"
	ls -l "$EXPORT" | sed 's/^/# /'
	pair_get client-done 600 >/dev/null
	ok $? "the client is done and unmounted"

	{
		rpc.nfsd 0 && exportfs -ua && pkill -x rpc.mountd && pkill -x rpcbind
		umount /etc/exports
		umount "$EXPORT"
		modprobe -r rpcrdma
	} >/tmp/pair-nfsstop.out 2>&1
	ok $? "nfsd stopped, rpcrdma unloaded"
	sed 's/^/# /' /tmp/pair-nfsstop.out
else
	modprobe rpcrdma
	ok $? "rpcrdma is loaded"
	read -r rc from_server <<<"$(pair_get server-ready 300)"
	[ "$rc" = 0 ]
	ok $? "nfsd on the server listens for RDMA"
	mkdir -p "$MNT"
	timeout 180 mount -t nfs4 -o rdma,port=20049,vers=4 "$ORCA_PEER_IP:/" "$MNT" >/tmp/pair-mount.out 2>&1 &&
		grep -E " $MNT nfs4 " /proc/mounts | grep -q 'proto=rdma'
	ok $? "mount -t nfs4 -o rdma,port=20049 $ORCA_PEER_IP:/ : mounted with proto=rdma"
	sed 's/^/# /' /tmp/pair-mount.out
	grep -E " $MNT " /proc/mounts | sed 's/^/# /'

	sums="none none"
	if mountpoint -q "$MNT"; then
		dd if=/dev/urandom of=/tmp/pair-nfs-big bs=1M count=24 status=none
		dd if=/dev/urandom of=/tmp/pair-nfs-odd bs=4099 count=3 status=none
		timeout 300 cp /tmp/pair-nfs-big /tmp/pair-nfs-odd "$MNT/" && timeout 300 sync
		ok $? "a 24 MiB and a 12297-byte file written through the mount"
		echo 3 >/proc/sys/vm/drop_caches
		timeout 300 cmp /tmp/pair-nfs-big "$MNT/pair-nfs-big" &&
			timeout 300 cmp /tmp/pair-nfs-odd "$MNT/pair-nfs-odd"
		ok $? "read back through the mount (page cache dropped): identical"
		sums="$(sha /tmp/pair-nfs-big) $(sha /tmp/pair-nfs-odd)"
		got=$(timeout 300 sha256sum <"$MNT/from-server" | cut -d' ' -f1)
		[ -n "$from_server" ] && [ "$got" = "$from_server" ]
		ok $? "the 8 MiB file the server wrote into its export reads back identical through the mount"
	else
		for what in write "read back" "the server's file"; do
			ok 1 "$what: not mounted"
		done
	fi
	pair_put written "$sums"
	if mountpoint -q "$MNT"; then
		timeout 120 umount "$MNT"
		ok $? "umount"
	else
		ok 1 "umount: not mounted"
	fi
	pair_put client-done 0
	# xprtrdma lets go of its transport asynchronously after umount.
	poll_until 60 modprobe -r rpcrdma
	ok $? "rpcrdma unloads"
fi

pair_leak_point nfs "$before"
plan "$_tap_n"
done_testing
