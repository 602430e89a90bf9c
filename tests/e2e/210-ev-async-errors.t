#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Affiliated async events, each provoked deliberately through verbs and
# received with ibv_get_async_event(3) (progs/ev_async.c): QP access
# error (stale rkey), QP request error (invalid request: a misaligned
# atomic, a READ to a QP without responder resources), CQ error (CQ
# overrun), SRQ limit reached (one shot), QP last WQE reached (a QP on an
# SRQ moved to ERR).
#
# Not here, because verbs cannot provoke them on a working device: QP
# fatal (a local work queue catastrophic error) and SRQ error (an SRQ
# catastrophic error).  212-ev-async-fatal.t provokes those by corrupting
# a doorbell record.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
for mode in qp-access qp-req qp-req-rd0 cq-err srq-limit last-wqe; do
	"$E2E_BIN/ev_async" -d "$ORCA_DEV" -m "$mode" >"/tmp/e2e-ev_async-$mode.out" 2>&1
	fold_tap "/tmp/e2e-ev_async-$mode.out" $? "ev_async -m $mode"
done
leak_check "$before"
plan "$_tap_n"
done_testing
