#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ibverbs-utils' pingpong examples on orca0, server and client in this
# guest over the RoCE v2 GID of eth0's IPv4 address: ibv_rc_pingpong,
# ibv_uc_pingpong, ibv_ud_pingpong and ibv_srq_pingpong (16 RC QPs on
# one SRQ), each with -c (data validation, see lib-tools.sh).  RC, UC
# and SRQ messages are 16 KiB, 16 packets at a 1024-byte path MTU, so
# four pages of the receive buffer are checked; UD messages are as large
# as the port's active MTU allows.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-tools.sh"

TOOLS_PORT=15000
ITERS=200
SIZE=16384

before=$(res_summary)
gidx=''
wait_for 30 tools_gid_index "$ORCA_DEV" "$ORCA_NETDEV"
gidx=$(tools_gid_index "$ORCA_DEV" "$ORCA_NETDEV")
[ -n "$gidx" ]
ok $? "$ORCA_DEV has a RoCE v2 GID for $ORCA_NETDEV's IPv4 address (index ${gidx:-none})"
gidx=${gidx:-0}
mtu=$(tools_active_mtu "$ORCA_DEV")
[ -n "$mtu" ]
ok $? "$ORCA_DEV port 1 active MTU: ${mtu:-unknown}"
mtu=${mtu:-1024}

common=(-d "$ORCA_DEV" -g "$gidx" -n "$ITERS" -c)
tools_pingpong rc $((SIZE * ITERS * 2)) "$ITERS" ibv_rc_pingpong "${common[@]}" -s "$SIZE" -m 1024
tools_pingpong uc $((SIZE * ITERS * 2)) "$ITERS" ibv_uc_pingpong "${common[@]}" -s "$SIZE" -m 1024
tools_pingpong ud $((mtu * ITERS * 2)) "$ITERS" ibv_ud_pingpong "${common[@]}" -s "$mtu"
tools_pingpong srq $((SIZE * ITERS * 2)) "$ITERS" ibv_srq_pingpong "${common[@]}" -s "$SIZE" -m 1024 -q 16

leak_check "$before"
plan "$_tap_n"
done_testing
