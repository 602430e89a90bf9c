#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ibv_create_qp(3) as documented: caps against the device limits, actual
# caps reported back, SRQ rules, multicast EBUSY, QP types (progs/create_qp_rules.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog create_qp_rules "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
