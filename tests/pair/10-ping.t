#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Sanity of the segment and the devices: each guest pings the other over
# eth1 (ICMP echo, 5 replies); each guest's device is ACTIVE on port 1
# with a RoCE v2 GID for its eth1 address; and each guest receives from
# the other, through the mailbox, the GID the peer's device announces,
# which must be the peer's eth1 address (::ffff:a.b.c.d).

. "$(dirname "$0")/lib-pair.sh"

busybox ping -c 5 -W 5 -I eth1 "$ORCA_PEER_IP" >/tmp/pair-ping.out 2>&1 &&
	grep -q '5 packets transmitted, 5 packets received' /tmp/pair-ping.out
ok $? "ping -I eth1 $ORCA_PEER_IP: 5 of 5 replies"
tail -n 3 /tmp/pair-ping.out | sed 's/^/# /'

poll_until 120 port_is PORT_ACTIVE
ok $? "$ORCA_DEV port 1 is ACTIVE ($(port_state))"

gidx=$(pair_gid_index)
ok $? "$ORCA_DEV has a RoCE v2 GID for eth1's $ORCA_SELF_IP (index ${gidx:-none})"
mine=$(cat "/sys/class/infiniband/$ORCA_DEV/ports/1/gids/${gidx:-0}" 2>/dev/null)
theirs=$(pair_sync gid "$mine")
IFS=. read -r o1 o2 o3 o4 <<<"$ORCA_PEER_IP"
want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$o1" "$o2" "$o3" "$o4")
[ -n "$theirs" ] && [ "$theirs" = "$want" ]
ok $? "the peer's $PAIR_PEER_DEV announces the GID of $ORCA_PEER_IP ($theirs)"

plan "$_tap_n"
done_testing
