#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Memory keys changing in the shared lane: tests/e2e/kmod/orca_kverbs_test.ko
# with keys= runs four kernel threads at once, each with an RC pair of its
# own and a fast-reg region at B, through rounds of IB_WR_REG_MR with a
# new key, an RDMA WRITE through it and a READ back (every byte
# checked), and an invalidation (SEND_WITH_INV from A and LOCAL_INV on B
# in turn); then a WRITE through the key invalidated last must fail
# with IB_WC_REM_ACCESS_ERR and leave the region untouched.  Then, five
# times for each way of invalidating, three threads WRITE 16 KiB at a
# time through one key while it is invalidated under them: each one's
# WRITEs succeed until one fails with IB_WC_REM_ACCESS_ERR, and nothing
# reaches the region once the invalidation has completed.  Once on
# $ORCA_DEV (the local fast path), once more there with inline_kicks=2
# (every kick runs in its poster's task, so the writers' lanes and the
# invalidating one run at the same time, rather than most of them in the
# engine thread that polls steady posters), once from orcaw0 to orcaw1
# (the veth pair of lib-wire.sh: the WRITEs and SEND_WITH_INV received
# off the wire).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-wire.sh"

KO=$ORCA_KO_ROOT/tests/e2e/kmod/orca_kverbs_test.ko
ROUNDS=100

# keys_run TAG ARGS...: one load of the module, its TAP folded in.
keys_run() {
	local tag=$1 status
	shift
	dmesg -C
	insmod "$KO" keys=$ROUNDS "$@" 2>/tmp/kverbs-keys.err
	status=$?
	ok "$status" "$tag: insmod orca_kverbs_test.ko keys=$ROUNDS $*"
	sed 's/^/# /' /tmp/kverbs-keys.err
	dmesg | sed -n 's/^.*orca_kverbs_test: //p' >/tmp/kverbs-keys.tap
	fold_tap /tmp/kverbs-keys.tap "$status" "orca_kverbs_test $tag"
	rmmod orca_kverbs_test
	ok $? "$tag: rmmod orca_kverbs_test"
}

before=$(res_summary)
keys_run local dev="$ORCA_DEV"
param=/sys/module/orca_soft/parameters/inline_kicks
kicks=$(cat $param)
echo 2 >$param
keys_run "local, inline_kicks=2" dev="$ORCA_DEV"
echo "$kicks" >$param
wire_setup orca
keys_run wire dev=$WIRE_A peer=$WIRE_B
grep -q '^not ok' /tmp/kverbs-keys.tap && wire_counters
wire_teardown
leak_check "$before"
plan "$_tap_n"
done_testing
