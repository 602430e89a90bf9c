#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ibv_req_notify_cq(cq, 1): only solicited receive completions and error
# completions raise the event; successful sends and unsolicited receives
# do not (progs/ev_solicited.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog ev_solicited -d "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
