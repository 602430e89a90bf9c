#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# XRC (interface 1.4) on the local path: XRC domains opened through
# files and shared with a second context and with another process (which
# opens the XRC_RECV QP with ibv_open_qp and keeps it alive after its
# creator's handle is gone), XRC SRQs in two PDs fed by one XRC_RECV QP,
# every RC opcode on an XRC_SEND QP (and through the ibv_wr_* API), the
# memory of a request checked against the PD of the SRQ it names, SRQ
# numbers that name no XRC SRQ of the domain, an RNR wait, what is
# refused when created and when posted, and nothing leaked
# (progs/xrc.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog xrc "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
