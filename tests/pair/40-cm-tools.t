#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# librdmacm's example programs between the two guests: every connection
# is resolved (ARP on eth1) and set up with CM MADs on QP1 across the
# wire.  rdma_cm servers open no TCP socket: a server is ready when its
# listener is in 'rdma resource show cm_id' (cm_listening).
#
#   rping          server a, client b: -V -C 200, 64-byte payloads; the
#                  client compares every payload that came back (RDMA
#                  READ of its buffer, SEND, RDMA WRITE back) with what it
#                  sent and prints each: 200 distinct, no mismatch
#   ucmatose       server b: 4 connections, 10 messages each way on each
#   udaddy         server a: UD, address and SIDR resolution, datagrams
#   mckey a->b, b->a  UD multicast to 239.1.2.3: the receiver joins, then
#                  the sender (on the other guest) sends 10 messages; the
#                  receiver gets all 10
#   rdma_server/rdma_client   server b: the rdma_cm "simple" API
#   rdma_xserver/rdma_xclient -c r   server a

# pair-timeout: 900

. "$(dirname "$0")/lib-pair.sh"

# cm_run NAME SERVER_ROLE PORT SERVER... -- CLIENT...: status and leaks
# around pair_tool; READY is $TOOLS_READY.
TOOLS_READY=cm_listening
cm_run() {
	local name=$1 srv=$2 port=$3
	shift 3
	CM_BEFORE=$(res_summary)
	pair_tool "$name" "$srv" "$TOOLS_READY" "$port" "$@"
	pair_status_point "$name"
}

P=$TOOLS_PORT

# Line-buffered, so that a line on stderr never splits a 'ping data' one.
cm_run rping a $P rping -s -a "$ORCA_SELF_IP" -p $P -V -C 200 -S 64 -- \
	stdbuf -oL rping -c -a "$ORCA_PEER_IP" -p $P -V -v -C 200 -S 64
if [ "$TP_SIDE" = client ]; then
	pings=$(grep -oE 'ping data: rdma-ping-[0-9]+:' "$TP_OUT" | sort -u | wc -l)
	[ "$pings" -eq 200 ] && ! grep -q 'data mismatch' "$TP_OUT"
	ok $? "rping: the client validated 200 distinct pings ($pings), no data mismatch"
fi
pair_leak_point rping "$CM_BEFORE"

cm_run ucmatose b $((P + 1)) ucmatose -b "$ORCA_SELF_IP" -p $((P + 1)) -c 4 -C 10 -- \
	ucmatose -s "$ORCA_PEER_IP" -p $((P + 1)) -c 4 -C 10
grep -q '^data transfers complete$' "$TP_OUT" && grep -q '^return status 0$' "$TP_OUT"
ok $? "ucmatose: $TP_SIDE: data transfers complete, return status 0"
pair_leak_point ucmatose "$CM_BEFORE"

# udaddy listens on its fixed port 7174 (its -p is the port space).
cm_run udaddy a 7174 udaddy -b "$ORCA_SELF_IP" -- udaddy -s "$ORCA_PEER_IP"
grep -q '^data transfers complete$' "$TP_OUT"
ok $? "udaddy: $TP_SIDE: data transfers complete"
pair_leak_point udaddy "$CM_BEFORE"

# mckey: the receiver is ready once it has joined the group.
mckey_joined() {
	grep -q '^receiving data transfers$' "$TP_SRV_OUT"
}
TOOLS_READY=mckey_joined
for rx in a b; do
	tx=b
	[ "$rx" = a ] || tx=a
	cm_run "mckey-$tx-$rx" "$rx" 0 stdbuf -oL mckey -m 239.1.2.3 -b "$ORCA_SELF_IP" -C 10 -- \
		mckey -m 239.1.2.3 -b "$ORCA_SELF_IP" -s -C 10
	grep -q '^data transfers complete$' "$TP_OUT"
	rc=$?
	if [ "$TP_SIDE" = server ]; then
		ok $rc "mckey-$tx-$rx: the receiver got the 10 multicast messages $tx sent"
	else
		ok $rc "mckey-$tx-$rx: the sender completed its 10 sends"
	fi
	[ "$rc" -eq 0 ] || tools_show "$TP_OUT" "$TP_SIDE"
	pair_leak_point "mckey-$tx-$rx" "$CM_BEFORE"
done
TOOLS_READY=cm_listening

cm_run rdma_server b $((P + 2)) rdma_server -s "$ORCA_SELF_IP" -p $((P + 2)) -- \
	rdma_client -s "$ORCA_PEER_IP" -p $((P + 2))
grep -qE "rdma_(server|client): end 0" "$TP_OUT"
ok $? "rdma_server/rdma_client: the $TP_SIDE ends 0"
pair_leak_point rdma_server "$CM_BEFORE"

cm_run rdma_xserver a $((P + 3)) rdma_xserver -c r -p $((P + 3)) -- \
	rdma_xclient -s "$ORCA_PEER_IP" -p $((P + 3)) -c r
grep -qE "rdma_x(server|client): end 0" "$TP_OUT"
ok $? "rdma_xserver/rdma_xclient -c r: the $TP_SIDE ends 0"
pair_leak_point rdma_xserver "$CM_BEFORE"

plan "$_tap_n"
done_testing
