#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Completion events are one shot (ibv_req_notify_cq(3)): one event per
# arm however many completions follow, none without an arm, the next one
# after a re-arm; batched ibv_ack_cq_events (progs/ev_oneshot.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog ev_oneshot -d "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
