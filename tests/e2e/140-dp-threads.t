#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# libibverbs thread safety on the data path: 4 threads post SENDs to one
# RC QP at once, 4 threads post receives to one RQ at once; every
# completion accounted for, in order per thread, payloads intact
# (progs/dp_threads.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog dp_threads "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
