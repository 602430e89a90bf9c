#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The IBTA QP state machine from userspace: legal and illegal transitions,
# required, disallowed and out-of-range attributes, ibv_query_qp (progs/qp_modify.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog qp_modify "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
