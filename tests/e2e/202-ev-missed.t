#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# No completion is missed between poll and arm: the man page's loop
# (ibv_get_cq_event(3)) against a producer thread, with no lost wakeup and
# no stray event (progs/ev_missed.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog ev_missed -d "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
