#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rdma-core's tools sleeping on completion events (-e) on orca0: each
# waits in ibv_get_cq_event on a completion channel and re-arms with
# ibv_req_notify_cq after every event, so a lost or missing event is a
# hang, which the time limit turns into a failure.  ibv_rc_pingpong -e
# (with -c data validation), perftest's ib_send_bw -e and ib_send_lat -e.
# This file runs on the debug kernel too (KASAN, lockdep).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-tools.sh"

TOOLS_PORT=15500
ITERS=200
SIZE=16384

before=$(res_summary)
gidx=''
wait_for 30 tools_gid_index "$ORCA_DEV" "$ORCA_NETDEV"
gidx=$(tools_gid_index "$ORCA_DEV" "$ORCA_NETDEV")
[ -n "$gidx" ]
ok $? "$ORCA_DEV has a RoCE v2 GID for $ORCA_NETDEV's IPv4 address (index ${gidx:-none})"
gidx=${gidx:-0}

tools_pingpong rc-events $((SIZE * ITERS * 2)) "$ITERS" ibv_rc_pingpong \
	-d "$ORCA_DEV" -g "$gidx" -n "$ITERS" -s "$SIZE" -m 1024 -c -e
tools_perftest send-bw-events bw 4096 "$ITERS" 1 ib_send_bw -d "$ORCA_DEV" -x "$gidx" -e
tools_perftest send-lat-events lat 2 "$ITERS" 1 ib_send_lat -d "$ORCA_DEV" -x "$gidx" -e

leak_check "$before"
plan "$_tap_n"
done_testing
