#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench's two-guest rows (tests/bench/run-bench-pair.sh runs this in
# both guests of one pair, once per pairing: orca-orca, then rxe-rxe):
# perftest across eth1, server on b, client on a, RC with the RoCE v2
# GID of each guest's eth1 address.  The result lines are the figures;
# the points only check that each run completed (as tests/pair/30-perftest.t
# does).  READs pass -o 16, as there: Orca allows 16 outstanding READs
# per QP and rxe 128.

# pair-timeout: 1200

. "$(dirname "$0")/../pair/lib-pair.sh"

gidx=$(pair_gid_index)
ok $? "$ORCA_DEV has a RoCE v2 GID for eth1's $ORCA_SELF_IP (index ${gidx:-none})"
gidx=${gidx:-0}

c=(-d "$ORCA_DEV" -x "$gidx")
pair_perftest write-bw b bw 65536 1000 0 client tools_listening ib_write_bw "${c[@]}"
pair_perftest read-bw b bw 65536 1000 0 server tools_listening ib_read_bw "${c[@]}" -o 16
pair_perftest send-rate b bw 64 20000 1 client tools_listening ib_send_bw "${c[@]}"
pair_perftest send-lat b lat 2 2000 1 - tools_listening ib_send_lat "${c[@]}"

plan "$_tap_n"
done_testing
