#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ibv_destroy_cq waits until every event it handed out is acknowledged,
# then returns (progs/ev_ackdestroy.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog ev_ackdestroy -d "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
