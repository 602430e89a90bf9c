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
# reaches the region once the invalidation has completed.  Then the same
# with three readers: each one's READs of its slot succeed until one
# fails with IB_WC_REM_ACCESS_ERR, and each that succeeded returned the
# slot's pattern, never the bytes the CPU writes into the region once
# the invalidation has completed (on the wire, B's READ responses read
# the region packet by packet in the shared lane).  Once on
# $ORCA_DEV (the local fast path), once more there with inline_kicks=2
# (every kick runs in its poster's task, so the writers' lanes and the
# invalidating one run at the same time, rather than most of them in the
# engine thread that polls steady posters), once from orcaw0 to orcaw1
# (the veth pair of lib-wire.sh: the WRITEs and SEND_WITH_INV received
# off the wire).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-wire.sh"

ROUNDS=100

before=$(res_summary)
kverbs_tap local keys=$ROUNDS dev="$ORCA_DEV"
param=/sys/module/orca_soft/parameters/inline_kicks
kicks=$(cat $param)
echo 2 >$param
kverbs_tap "local, inline_kicks=2" keys=$ROUNDS dev="$ORCA_DEV"
echo "$kicks" >$param
wire_setup orca
kverbs_tap wire keys=$ROUNDS dev=$WIRE_A peer=$WIRE_B
grep -q '^not ok' /tmp/kverbs.tap && wire_counters
wire_teardown
leak_check "$before"
plan "$_tap_n"
done_testing
