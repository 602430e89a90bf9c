#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The rules of ibv_post_recv(3), ibv_post_srq_recv(3) and ibv_post_send(3):
# in-order posting up to *bad_wr, ENOMEM beyond max_*_wr, EINVAL for
# SGEs, inline, opcodes; RESET refuses posts; num_sge 0; the UD GRH
# area (progs/dp_post_rules.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog dp_post_rules "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
