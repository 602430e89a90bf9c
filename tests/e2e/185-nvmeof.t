#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# NVMe over Fabrics on orca0, target and host in this guest: nvmet-rdma
# exports a memory-backed null_blk namespace (configured through
# configfs) on eth0's IPv4 address, nvme-rdma connects to it with
# nvme-cli.  Both ends are kernel consumers: rdma_cm connects their QPs
# (CM MADs on QP1), nvme-rdma registers every I/O buffer with fast
# registration (IB_WR_REG_MR) and the target invalidates it remotely
# (SEND_WITH_INV).  Data is written, read back with O_DIRECT and
# compared, then fio verifies 4 KiB random writes by checksum.  After the
# disconnect and the unload of both transports nothing of orca0 is left,
# in ib_core's accounting or in the device's own.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-nvmeof.sh"

NQN=orca-e2e-nvmeof
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:6f72ca00-0e2e-4e5f-9d00-000000000185
PORTID=1
SVCID=4420

before=$(res_summary)
log0=$(($(dmesg_lines) + 1))
ip=$(ip -4 -o addr show dev "$ORCA_NETDEV" | awk '{ print $4 }' | cut -d/ -f1 | head -n1)

# The controller nvme-rdma created for $NQN: nvmeN, or nothing.
nvme_ctrl() {
	nvme_ctrl_of "$NQN"
}

# nvme_gone: no NVMe-oF controller is left (polled by wait_for, so the
# command substitution must run on every try, not once before it).
nvme_gone() {
	[ -z "$(nvme_ctrl)" ]
}

modprobe null_blk nr_devices=1 gb=1 memory_backed=1 &&
	modprobe nvmet-rdma && modprobe nvme-rdma
ok $? "null_blk (memory-backed), nvmet-rdma and nvme-rdma are loaded"
nvmet_up "$NQN" /dev/nullb0 "$PORTID" "$ip" "$SVCID" 2>/tmp/e2e-nvmet.err
ok $? "nvmet: subsystem $NQN with /dev/nullb0 on an rdma port at $ip:$SVCID"
sed 's/^/# /' /tmp/e2e-nvmet.err

rdma resource show cm_id 2>/dev/null | grep -qE "^link $ORCA_DEV/[0-9-]+ .*state LISTEN .*src-addr $ip:$SVCID "
ok $? "nvmet-rdma listens on $ORCA_DEV ($ip:$SVCID)"

timeout 120 nvme discover -t rdma -a "$ip" -s "$SVCID" --hostnqn="$HOSTNQN" >/tmp/e2e-disc.out 2>&1 &&
	grep -q "subnqn: *$NQN\$" /tmp/e2e-disc.out
disc=$?
ok $disc "nvme discover -t rdma lists $NQN"
[ -s /tmp/e2e-disc.out ] && grep -E 'subnqn|trtype' /tmp/e2e-disc.out | sed 's/^/# /'
[ "$disc" -eq 0 ] || { sed 's/^/# /' /tmp/e2e-disc.out; stall_report "$log0"; }

tx0=$(orca_stat tx_bytes)
timeout 120 nvme connect -t rdma -n "$NQN" -a "$ip" -s "$SVCID" --hostnqn="$HOSTNQN" >/tmp/e2e-conn.out 2>&1
rc=$?
ctrl=$(nvme_ctrl)
[ "$rc" -eq 0 ] && [ -n "$ctrl" ] && wait_for 30 test -b "/dev/${ctrl}n1"
conn=$?
ok $conn "nvme connect -t rdma: controller ${ctrl:-none} with namespace /dev/${ctrl:-none}n1 (status $rc)"
sed 's/^/# /' /tmp/e2e-conn.out
[ "$conn" -eq 0 ] || stall_report "$log0"
dev=/dev/${ctrl}n1

if [ -n "$ctrl" ] && [ -b "$dev" ]; then
	dd if=/dev/urandom of=/tmp/e2e-nvme.pat bs=1M count=32 status=none
	dd if=/tmp/e2e-nvme.pat of="$dev" bs=1M oflag=direct status=none &&
		dd if="$dev" of=/tmp/e2e-nvme.back bs=1M count=32 iflag=direct status=none &&
		cmp /tmp/e2e-nvme.pat /tmp/e2e-nvme.back
	ok $? "32 MiB written to $dev and read back with O_DIRECT: identical"
	cmp -n $((32 << 20)) /tmp/e2e-nvme.pat /dev/nullb0
	ok $? "the target's null_blk holds the same 32 MiB"

	timeout 600 fio --name=orca-verify --filename="$dev" --rw=randwrite --bs=4k \
		--size=16M --ioengine=libaio --iodepth=16 --direct=1 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --randseed=185 \
		>/tmp/e2e-fio.out 2>&1 &&
		grep -q 'err= 0' /tmp/e2e-fio.out
	ok $? "fio: 16 MiB of 4 KiB random writes at queue depth 16, crc32c-verified on read"
	grep -E '^ *(READ|WRITE):' /tmp/e2e-fio.out | sed 's/^/# /'
	tx1=$(orca_stat tx_bytes)
	[ -n "$tx0" ] && [ -n "$tx1" ] && [ $((tx1 - tx0)) -ge $((64 << 20)) ]
	ok $? "the I/O crossed $ORCA_DEV (tx_bytes grew $((${tx1:-0} - ${tx0:-0})), >= 64 MiB)"
else
	for what in "dd round trip" "null_blk content" "fio verify" "traffic on $ORCA_DEV"; do
		ok 1 "$what: no namespace to test"
	done
fi

timeout 120 nvme disconnect -n "$NQN" >/tmp/e2e-disc2.out 2>&1 &&
	grep -q 'disconnected 1 controller' /tmp/e2e-disc2.out
ok $? "nvme disconnect -n $NQN: one controller disconnected"
wait_for 30 nvme_gone
ok $? "the controller is gone"

nvmet_down "$NQN" "$PORTID"
modprobe -r nvme-rdma && modprobe -r nvmet-rdma && modprobe -r null_blk
ok $? "nvme-rdma, nvmet-rdma and null_blk unload"

leak_check "$before"
plan "$_tap_n"
done_testing
