#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Completion timestamps: completion_timestamp_mask and hca_core_clock,
# ibv_query_rt_values_ex's raw clock, and CQs from ibv_create_cq_ex with
# the timestamp wc_flags: the timestamps and wallclock of send, receive,
# RDMA and flush completions between clock reads before posting and after
# polling, in order per CQ; the same CQs through ibv_poll_cq across ring
# wraps, resized while holding completions, and beside a CQ without
# timestamps (progs/dp_ts.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog dp_ts "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
