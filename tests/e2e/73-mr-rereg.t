#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ibv_rereg_mr(3): translation, access and PD changes checked through RDMA
# traffic, the input and command errors of its man page, and nothing
# leaked (progs/mr_rereg.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog mr_rereg "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
