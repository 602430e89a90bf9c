#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ibverbs-utils' pingpong examples between the two guests, over each
# device's RoCE v2 GID of its eth1 address (-g), all with -c: the client
# marks the first byte of every page of its send buffer and the server
# checks those bytes in its receive buffer (lib-tools.sh), so each run
# proves the client-to-server direction.  Both sides must report the
# bytes and iterations their options ask for.
#
#   rc-1        ibv_rc_pingpong -s 1, server a: one-byte messages
#   rc-64k-a    ibv_rc_pingpong -s 65536 -m 1024 -n 10, server a: 64 packets a
#               message (b -> a checked)
#   rc-64k-b    the same, server b (a -> b checked)
#   uc-4k       ibv_uc_pingpong -s 4096 -m 1024: 4-packet UC messages
#   ud          ibv_ud_pingpong at the smaller of the two active MTUs
#   srq         ibv_srq_pingpong -q 4 -s 4096 -m 1024: 4 QPs on one SRQ

# pair-timeout: 600

. "$(dirname "$0")/lib-pair.sh"

gidx=$(pair_gid_index)
ok $? "$ORCA_DEV has a RoCE v2 GID for eth1's $ORCA_SELF_IP (index ${gidx:-none})"
gidx=${gidx:-0}
mtu=$(tools_active_mtu "$ORCA_DEV")
peer_mtu=$(pair_sync mtu "${mtu:-0}")
[ -n "$mtu" ] && [ -n "$peer_mtu" ] && [ "$peer_mtu" -gt 0 ]
ok $? "active MTUs: $ORCA_DEV ${mtu:-unknown}, the peer's $PAIR_PEER_DEV ${peer_mtu:-unknown}"
ud=${mtu:-1024}
[ "${peer_mtu:-0}" -gt 0 ] && [ "$peer_mtu" -lt "$ud" ] && ud=$peer_mtu

c=(-d "$ORCA_DEV" -g "$gidx" -c)
pair_pingpong rc-1 a $((1 * 100 * 2)) 100 ibv_rc_pingpong "${c[@]}" -s 1 -n 100
pair_pingpong rc-64k-a a $((65536 * 10 * 2)) 10 ibv_rc_pingpong "${c[@]}" -s 65536 -m 1024 -n 10
pair_pingpong rc-64k-b b $((65536 * 10 * 2)) 10 ibv_rc_pingpong "${c[@]}" -s 65536 -m 1024 -n 10
pair_pingpong uc-4k a $((4096 * 100 * 2)) 100 ibv_uc_pingpong "${c[@]}" -s 4096 -m 1024 -n 100
pair_pingpong ud b $((ud * 100 * 2)) 100 ibv_ud_pingpong "${c[@]}" -s "$ud" -n 100
pair_pingpong srq a $((4096 * 100 * 2)) 100 ibv_srq_pingpong "${c[@]}" -s 4096 -m 1024 -q 4 -n 100

plan "$_tap_n"
done_testing
