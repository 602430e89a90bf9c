#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Several CQs on one completion channel: each event names its CQ and
# cq_context; another channel's CQ delivers there (progs/ev_multicq.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog ev_multicq -d "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
