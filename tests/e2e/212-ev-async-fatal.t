#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The catastrophic affiliated async events, QP fatal and SRQ error
# (progs/ev_fatal.c).  Verbs cannot provoke them on a working device, so
# the program does what a buggy or hostile application could: it
# overwrites a doorbell record that liborca mapped into the process with
# an impossible producer index, sends a message to the queue, and expects
# the device to report the broken queue through ibv_get_async_event(3).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
for mode in qp-fatal srq-err; do
	"$E2E_BIN/ev_fatal" -d "$ORCA_DEV" -m "$mode" >"/tmp/e2e-ev_fatal-$mode.out" 2>&1
	fold_tap "/tmp/e2e-ev_fatal-$mode.out" $? "ev_fatal -m $mode"
done
leak_check "$before"
plan "$_tap_n"
done_testing
