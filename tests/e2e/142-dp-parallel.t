#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Independent QPs driven at once from 4 threads: each thread's RC pair
# does FETCH_ADD on one shared word, SENDs, WRITE and READ, and each
# thread also sends on the next thread's pair, so two threads kick the
# two QPs of one pair at the same time.  Every completion and payload as
# expected, no increment lost or returned twice.  Then 4 threads whose
# pairs' receivers share one SRQ: each of its WQEs taken once, with the
# payload of the SEND that took it, and its limit event once
# (progs/dp_parallel.c).
# ORCA_PARALLEL_ROUNDS rounds per thread (1000; fewer on the debug
# kernel, where each costs about ten times as much).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog dp_parallel "$ORCA_DEV" "${ORCA_PARALLEL_ROUNDS:-1000}"
leak_check "$before"
plan "$_tap_n"
done_testing
