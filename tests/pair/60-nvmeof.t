#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# NVMe over Fabrics across the wire: one guest is the target (nvmet-rdma
# exports a memory-backed null_blk through configfs on its eth1
# address), the other the host (nvme-rdma, connected with nvme-cli); see
# pair_storage_server() for which is which.  Both ends are kernel
# consumers of their device: rdma_cm connects the queues (CM MADs on
# QP1), nvme-rdma registers every I/O buffer with fast registration and
# the target moves the data with RDMA READ and WRITE.
#
# The host writes 32 MiB of random data with O_DIRECT, reads it back and
# compares; the target then finds the same 32 MiB in its null_blk (the
# host sends the SHA-256 through the mailbox); fio verifies 16 MiB of
# 4 KiB random writes (crc32c) at queue depth 16, past the first 32 MiB.
# Then the host resets the controller five times while fio writes and
# verifies 16 MiB more: every reset must succeed and every block verify.
# After the disconnect and the unload of both transports nothing is left
# on either device.

# pair-timeout: 900

. "$(dirname "$0")/lib-pair.sh"
# shellcheck source=tests/e2e/lib-nvmeof.sh
. "$(dirname "$0")/../e2e/lib-nvmeof.sh"

NQN=orca-pair-nvmeof
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:6f72ca00-0e2e-4e5f-9d00-000000000060
PORTID=1
SVCID=4420
RESETS=5

before=$(res_summary)

if is_storage_server; then
	target_down() {
		nvmet_down "$NQN" "$PORTID"
	}
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 && modprobe nvmet-rdma
	ok $? "null_blk (memory-backed) and nvmet-rdma are loaded"
	nvmet_up "$NQN" /dev/nullb0 "$PORTID" "$ORCA_SELF_IP" "$SVCID" \
		2>/tmp/pair-nvmet.err
	ok $? "nvmet: subsystem $NQN with /dev/nullb0 on an rdma port at $ORCA_SELF_IP:$SVCID"
	sed 's/^/# /' /tmp/pair-nvmet.err
	poll_until 120 cm_listening "$SVCID"
	rc=$?
	ok $rc "nvmet-rdma listens on $ORCA_DEV ($ORCA_SELF_IP:$SVCID)"
	pair_put target-ready "$rc"

	# The host's checksum of what it wrote, once it has read it back.
	want=$(pair_get written 800)
	have=$(head -c $((32 << 20)) /dev/nullb0 | sha256sum | cut -d' ' -f1)
	[ -n "$want" ] && [ "$want" = "$have" ]
	ok $? "the target's null_blk holds the 32 MiB the host wrote (sha256 ${have:0:16}..., the host's ${want:0:16}...)"
	pair_get host-done 800 >/dev/null
	ok $? "the host is done and disconnected"

	target_down
	modprobe -r nvmet-rdma && modprobe -r null_blk
	ok $? "nvmet-rdma and null_blk unload"
else
	# The controller nvme-rdma created for $NQN: nvmeN, or nothing.
	nvme_ctrl() {
		nvme_ctrl_of "$NQN"
	}
	ip=$ORCA_PEER_IP
	modprobe nvme-rdma
	ok $? "nvme-rdma is loaded"
	[ "$(pair_get target-ready 300)" = 0 ]
	ok $? "the target listens"

	timeout 120 nvme discover -t rdma -a "$ip" -s "$SVCID" --hostnqn="$HOSTNQN" >/tmp/pair-disc.out 2>&1 &&
		grep -q "subnqn: *$NQN\$" /tmp/pair-disc.out
	ok $? "nvme discover -t rdma -a $ip lists $NQN"
	grep -E 'subnqn|trtype|traddr' /tmp/pair-disc.out | sed 's/^/# /'

	timeout 120 nvme connect -t rdma -n "$NQN" -a "$ip" -s "$SVCID" --hostnqn="$HOSTNQN" >/tmp/pair-conn.out 2>&1
	rc=$?
	ctrl=$(nvme_ctrl)
	[ "$rc" -eq 0 ] && [ -n "$ctrl" ] && poll_until 120 test -b "/dev/${ctrl}n1"
	ok $? "nvme connect -t rdma -a $ip: controller ${ctrl:-none} with namespace /dev/${ctrl:-none}n1 (status $rc)"
	sed 's/^/# /' /tmp/pair-conn.out
	dev=/dev/${ctrl}n1

	sum=none
	if [ -n "$ctrl" ] && [ -b "$dev" ]; then
		dd if=/dev/urandom of=/tmp/pair-nvme.pat bs=1M count=32 status=none
		timeout 300 dd if=/tmp/pair-nvme.pat of="$dev" bs=1M oflag=direct status=none &&
			timeout 300 dd if="$dev" of=/tmp/pair-nvme.back bs=1M count=32 iflag=direct status=none &&
			cmp /tmp/pair-nvme.pat /tmp/pair-nvme.back
		ok $? "32 MiB written to $dev and read back with O_DIRECT: identical"
		sum=$(sha256sum </tmp/pair-nvme.pat | cut -d' ' -f1)
	else
		ok 1 "32 MiB written and read back: no namespace"
	fi
	pair_put written "$sum"
	if [ -n "$ctrl" ] && [ -b "$dev" ]; then
		timeout 300 fio --name=orca-verify --filename="$dev" --rw=randwrite --bs=4k \
			--offset=64M --size=16M --ioengine=libaio --iodepth=16 --direct=1 \
			--verify=crc32c --do_verify=1 --verify_fatal=1 --randseed=60 \
			>/tmp/pair-fio.out 2>&1 &&
			grep -q 'err= 0' /tmp/pair-fio.out
		ok $? "fio: 16 MiB of 4 KiB random writes at queue depth 16, crc32c-verified on read"
		grep -E '^ *(READ|WRITE):' /tmp/pair-fio.out | sed 's/^/# /'
	else
		ok 1 "fio verify: no namespace"
	fi

	# Controller resets under I/O: each one disconnects every queue
	# with I/O in flight, drains the QPs on both ends and connects new
	# ones; the I/O is sent again.
	if [ -n "$ctrl" ] && [ -b "$dev" ]; then
		timeout 600 fio --name=orca-reset --filename="$dev" --rw=randwrite --bs=4k \
			--offset=96M --size=16M --ioengine=libaio --iodepth=16 --direct=1 \
			--verify=crc32c --do_verify=1 --verify_fatal=1 --randseed=61 \
			>/tmp/pair-fio2.out 2>&1 &
		fio_pid=$!
		done_resets=0
		busy_resets=0
		failed_resets=0
		while [ "$((done_resets + failed_resets))" -lt "$RESETS" ]; do
			kill -0 "$fio_pid" 2>/dev/null && busy_resets=$((busy_resets + 1))
			if timeout 300 sh -c "echo 1 > /sys/class/nvme/$ctrl/reset_controller"; then
				done_resets=$((done_resets + 1))
			else
				failed_resets=$((failed_resets + 1))
			fi
			echo "# reset $((done_resets + failed_resets)): controller $(cat "/sys/class/nvme/$ctrl/state")"
		done
		wait "$fio_pid"
		rc=$?
		[ "$rc" -eq 0 ] && grep -q 'err= 0' /tmp/pair-fio2.out
		ok $? "fio: 16 MiB more of 4 KiB random writes at queue depth 16, crc32c-verified across the resets (fio status $rc)"
		[ "$done_resets" -eq "$RESETS" ]
		ok $? "$RESETS controller resets, $busy_resets of them with fio running: $done_resets succeeded, $failed_resets failed"
		grep -E '^ *(READ|WRITE):|err=' /tmp/pair-fio2.out | sed 's/^/# /'
	else
		ok 1 "fio across resets: no namespace"
		ok 1 "resets: no namespace"
	fi

	timeout 120 nvme disconnect -n "$NQN" >/tmp/pair-disc2.out 2>&1 &&
		grep -q 'disconnected 1 controller' /tmp/pair-disc2.out
	ok $? "nvme disconnect -n $NQN: one controller disconnected"
	no_ctrl() { [ -z "$(nvme_ctrl)" ]; }
	poll_until 120 no_ctrl
	ok $? "the controller is gone"
	pair_put host-done 0
	modprobe -r nvme-rdma
	ok $? "nvme-rdma unloads"
fi

pair_leak_point nvmeof "$before"
plan "$_tap_n"
done_testing
