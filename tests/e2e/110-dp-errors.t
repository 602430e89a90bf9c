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
run_prog dp_errors "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
