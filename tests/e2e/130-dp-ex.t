#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Extended verbs: ibv_create_cq_ex polled with start/next/end_poll and
# ibv_wc_read_*, ibv_create_qp_ex with send_ops_flags and the ibv_wr_*
# post API for each opcode of RC, UC and UD, batches and ibv_wr_abort
# (progs/dp_ex.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog dp_ex "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
