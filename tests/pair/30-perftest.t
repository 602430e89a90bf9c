#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perftest between the two guests (RC, each side with -x the RoCE v2 GID
# index of its eth1 address, QP numbers exchanged over TCP), then the
# same with -R (rdma_cm connects the QPs: CM MADs on QP1 across the
# wire).  The server alternates between a and b, so each direction of
# each operation is taken by one of the runs.  Checked: both exit 0, the
# result lines (the client's; the server's too for the send tests, whose
# server counts every message) for the sizes and counts asked, and that
# the payload went out on the sending guest's eth1.  No figure is
# checked: 'make bench' measures.  READ and atomic runs pass -o 16:
# rxe allows 128 outstanding READs and atomics per QP, Orca 16 (as a
# ConnectX), and perftest asks each side for its peer's figure, which
# the side with fewer refuses.

# pair-timeout: 900

. "$(dirname "$0")/lib-pair.sh"

gidx=$(pair_gid_index)
ok $? "$ORCA_DEV has a RoCE v2 GID for eth1's $ORCA_SELF_IP (index ${gidx:-none})"
gidx=${gidx:-0}

c=(-d "$ORCA_DEV" -x "$gidx")
pair_perftest send-bw a bw 4096 200 1 client tools_listening ib_send_bw "${c[@]}"
pair_perftest write-bw b bw 65536 50 0 client tools_listening ib_write_bw "${c[@]}"
pair_perftest read-bw a bw 65536 50 0 server tools_listening ib_read_bw "${c[@]}" -o 16
pair_perftest atomic-bw b bw 8 200 0 - tools_listening ib_atomic_bw "${c[@]}" -o 16
pair_perftest send-lat a lat 2 100 1 - tools_listening ib_send_lat "${c[@]}"

r=(-R -d "$ORCA_DEV")
pair_perftest send-bw-R b bw 4096 200 1 client cm_listening ib_send_bw "${r[@]}"
pair_perftest write-bw-R a bw 65536 50 0 client cm_listening ib_write_bw "${r[@]}"
pair_perftest read-bw-R b bw 65536 50 0 server cm_listening ib_read_bw "${r[@]}" -o 16
pair_perftest atomic-bw-R a bw 8 200 0 - cm_listening ib_atomic_bw "${r[@]}" -o 16
pair_perftest send-lat-R b lat 2 100 1 - cm_listening ib_send_lat "${r[@]}"

plan "$_tap_n"
done_testing
