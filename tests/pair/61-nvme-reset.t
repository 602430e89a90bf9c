#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# NVMe over Fabrics controller resets under I/O: one guest is the target
# (nvmet-rdma, memory-backed null_blk), the other the host (see
# pair_storage_server() for which is which).  While fio writes and then
# crc32c-verifies 16 MiB of 4 KiB random writes at queue depth 16, the
# host resets the controller five times: each reset disconnects every
# queue, with the I/O in flight, drains the QPs on both ends and
# connects new ones, and the I/O is sent again.  Every reset must
# succeed, fio must see no error and every block must verify; afterwards
# nothing is left on either device.

# pair-timeout: 900

. "$(dirname "$0")/lib-pair.sh"
# shellcheck source=tests/e2e/lib-nvmeof.sh
. "$(dirname "$0")/../e2e/lib-nvmeof.sh"

NQN=orca-pair-nvme-reset
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:6f72ca00-0e2e-4e5f-9d00-000000000061
PORTID=2
SVCID=4421
RESETS=5

before=$(res_summary)

if is_storage_server; then
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

	pair_get host-done 800 >/dev/null
	ok $? "the host is done and disconnected"

	nvmet_down "$NQN" "$PORTID"
	modprobe -r nvmet-rdma && modprobe -r null_blk
	ok $? "nvmet-rdma and null_blk unload"
else
	nvme_ctrl() {
		nvme_ctrl_of "$NQN"
	}
	ip=$ORCA_PEER_IP
	modprobe nvme-rdma
	ok $? "nvme-rdma is loaded"
	[ "$(pair_get target-ready 300)" = 0 ]
	ok $? "the target listens"

	timeout 120 nvme connect -t rdma -n "$NQN" -a "$ip" -s "$SVCID" --hostnqn="$HOSTNQN" >/tmp/pair-conn.out 2>&1
	rc=$?
	ctrl=$(nvme_ctrl)
	[ "$rc" -eq 0 ] && [ -n "$ctrl" ] && poll_until 120 test -b "/dev/${ctrl}n1"
	ok $? "nvme connect -t rdma -a $ip: controller ${ctrl:-none} with namespace /dev/${ctrl:-none}n1 (status $rc)"
	dev=/dev/${ctrl}n1

	if [ -n "$ctrl" ] && [ -b "$dev" ]; then
		timeout 600 fio --name=orca-reset --filename="$dev" --rw=randwrite --bs=4k \
			--offset=0 --size=16M --ioengine=libaio --iodepth=16 --direct=1 \
			--verify=crc32c --do_verify=1 --verify_fatal=1 --randseed=61 \
			>/tmp/pair-fio.out 2>&1 &
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
		[ "$rc" -eq 0 ] && grep -q 'err= 0' /tmp/pair-fio.out
		ok $? "fio: 16 MiB of 4 KiB random writes at queue depth 16, crc32c-verified across the resets (fio status $rc)"
		[ "$done_resets" -eq "$RESETS" ]
		ok $? "$RESETS controller resets, $busy_resets of them with fio running: $done_resets succeeded, $failed_resets failed"
		grep -E '^ *(READ|WRITE):|err=' /tmp/pair-fio.out | sed 's/^/# /'
	else
		ok 1 "fio: no namespace"
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

pair_leak_point nvme-reset "$before"
plan "$_tap_n"
done_testing
