#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The completion channel fd with select, poll and epoll: readiness, and a
# blocked wait woken by an event (progs/ev_readiness.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog ev_readiness -d "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
