#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Independent QPs driven at once from 4 threads: each thread's RC pair
# does FETCH_ADD on one shared word, SENDs, WRITE and READ, and each
# thread also sends on the next thread's pair, so two threads kick the
# two QPs of one pair at the same time.  Every completion and payload as
# expected, no increment lost or returned twice.  Then 4 threads whose
# pairs' receivers share one SRQ: each of its WQEs taken once, with the
# payload of the SEND that took it, and its limit event once.  Then 4
# threads each sending datagrams from a UD QP of their own to one UD QP
# they share: each datagram arrives once, intact, each sender's in order
# (progs/dp_parallel.c).  The UD part runs once more with orca_soft's
# inline_kicks=2, where every kick runs in its poster's thread (rather
# than the engine thread polling the senders once they post steadily),
# so that the four senders' lanes want the shared QP at the same time.
# ORCA_PARALLEL_ROUNDS rounds per thread (1000; fewer on the debug
# kernel, where each costs about ten times as much).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog dp_parallel "$ORCA_DEV" "${ORCA_PARALLEL_ROUNDS:-1000}"
param=/sys/module/orca_soft/parameters/inline_kicks
kicks=$(cat $param)
echo 2 >$param
run_prog dp_parallel "$ORCA_DEV" "${ORCA_PARALLEL_ROUNDS:-1000}" ud
echo "$kicks" >$param
leak_check "$before"
plan "$_tap_n"
done_testing
