#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A completion channel (and the async fd) set O_NONBLOCK: EAGAIN with
# nothing pending, the event once one is (progs/ev_nonblock.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog ev_nonblock -d "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
