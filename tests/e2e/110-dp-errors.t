#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Completion error statuses, flushes and the async events that go with
# them: LOC_LEN_ERR, LOC_PROT_ERR, REM_ACCESS_ERR, REM_INV_REQ_ERR, RNR
# retries, WR_FLUSH_ERR, QP_ACCESS_ERR, QP_REQ_ERR, LAST_WQE_REACHED,
# SRQ_LIMIT_REACHED (progs/dp_errors.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
rnr_s0=$(orca_stat rnr_naks_sent)
rnr_r0=$(orca_stat rnr_naks_rcvd)
run_prog dp_errors "$ORCA_DEV"
rnr_s1=$(orca_stat rnr_naks_sent)
rnr_r1=$(orca_stat rnr_naks_rcvd)
# The local path counts an RNR NAK as sent and as received: rnr_retry r
# fails on the (r+1)-th, so rnr_retry 0..6 alone make 28; rnr_retry 7
# makes a number that depends on when the receive is posted.
rnr_s=$((${rnr_s1:-0} - ${rnr_s0:-0}))
rnr_r=$((${rnr_r1:-0} - ${rnr_r0:-0}))
[ -n "$rnr_s1" ] && [ "$rnr_s" -ge 28 ] && [ "$rnr_s" -eq "$rnr_r" ]
ok $? "local RNR NAKs are counted: rnr_naks_sent +$rnr_s, rnr_naks_rcvd +$rnr_r (at least 28 each, equal)"
leak_check "$before"
plan "$_tap_n"
done_testing
