#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Memory windows: type 1 windows bound, rebound and unbound by
# ibv_bind_mw(3), type 2 windows by IBV_WR_BIND_MW and invalidated by
# LOCAL_INV and SEND_WITH_INV; the range, rights and QP a window
# serves checked through RDMA traffic, the binds refused when posted
# and by the device, the region and PD a window keeps busy, and nothing
# leaked (progs/mw.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog mw "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
