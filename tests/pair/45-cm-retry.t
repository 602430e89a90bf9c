#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The connection manager's own recovery across the wire, made certain
# rather than left to a lossy link's luck:
#
#   cm-retry     a tc filter on a's eth1 drops every RoCEv2 packet a sends
#                to QP1 (the CM's MADs: rdma_cm resolves the address by
#                ARP, so the first is the REQ); it is removed once it has
#                dropped one.  rping -V -C 50 (server b, client a) must
#                still connect and validate every ping: only ib_cm's
#                retransmission of the lost MAD can have connected it.
#   cm-reject    rping -c to a port of b's address where nothing listens:
#                b's CM answers with a REJ, and the client fails at once
#                with RDMA_CM_EVENT_REJECTED (no hang, no retries until
#                a timeout).
#   cm-timeout   the filter again, kept: every REQ a sends is lost.  The
#                client must fail by itself with RDMA_CM_EVENT_UNREACHABLE
#                once ib_cm has spent its retries (16 REQs, 4.8 s apart
#                for rdma_cm on RoCE: about 77 s), having resent the REQ
#                (the filter dropped more than one), and leave nothing.
#                Not in orca-rxe: a is Orca there as in orca-orca and b
#                never sees a MAD, so the case would repeat orca-orca's
#                77 s exactly (rxe-rxe runs it: a is rxe there).

# pair-timeout: 900

. "$(dirname "$0")/lib-pair.sh"

P=$TOOLS_PORT
FILTER=(dev eth1 egress protocol ip prio 7)

# mad_filter: drop every RoCEv2 packet a sends to QP1 (the CM's MADs).
# IPv4 without options: UDP at 20, BTH at 28, its DestQP in the low 24
# bits of the word at 32.
mad_filter() {
	tc qdisc add dev eth1 clsact &&
		tc filter add "${FILTER[@]}" u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff \
			match u32 0x00000001 0x00ffffff at 32 action drop
}

# mad_dropped: the filter has dropped at least one packet.
mad_dropped() {
	tc -s filter show dev eth1 egress 2>/dev/null | grep -qE 'dropped [1-9]'
}

before=$(res_summary)
watcher=
if is_role a; then
	mad_filter
	ok $? "a filter on eth1 drops what a sends to QP1 (the CM's MADs)"
	{
		poll_until 200 mad_dropped
		tc -s filter show dev eth1 egress >/tmp/pair-cm-filter.out 2>&1
		tc filter del "${FILTER[@]}"
	} &
	watcher=$!
fi
pair_tool cm-retry b cm_listening "$P" \
	rping -s -a "$ORCA_SELF_IP" -p "$P" -V -C 50 -S 64 -- \
	stdbuf -oL rping -c -a "$ORCA_PEER_IP" -p "$P" -V -v -C 50 -S 64
pair_status_point cm-retry
if [ -n "$watcher" ]; then
	wait "$watcher"
	grep -qE 'dropped [1-9]' /tmp/pair-cm-filter.out
	ok $? "cm-retry: the filter dropped a's first CM MAD ($(grep -oE 'dropped [0-9]+' /tmp/pair-cm-filter.out | head -n 1))"
	tc qdisc del dev eth1 clsact
	ok $? "cm-retry: the filter is gone"
	pings=$(grep -oE 'ping data: rdma-ping-[0-9]+:' "$TP_OUT" | sort -u | wc -l)
	[ "$pings" -eq 50 ] && ! grep -q 'data mismatch' "$TP_OUT"
	ok $? "cm-retry: connected after the retransmission, 50 distinct pings validated ($pings)"
fi
pair_leak_point cm-retry "$before"

# Nothing listens on P + 1 on b.
if is_role a; then
	_STDBUF_O=L LD_PRELOAD=$LIBSTDBUF timeout -k 5 60 \
		rping -c -a "$ORCA_PEER_IP" -p $((P + 1)) -C 1 -v >/tmp/pair-cm-reject.out 2>&1
	rc=$?
	[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]
	ok $? "cm-reject: rping to a port with no listener fails by itself (status $rc)"
	grep -q 'RDMA_CM_EVENT_REJECTED' /tmp/pair-cm-reject.out
	ok $? "cm-reject: the client saw RDMA_CM_EVENT_REJECTED"
	sed 's/^/# /' /tmp/pair-cm-reject.out | head -n 5
fi
pair_sync cm-reject >/dev/null
ok $? "cm-reject: both guests got through"
pair_leak_point cm-reject "$before"

[ "$PAIR_MODE" != orca-rxe ] || {
	plan "$_tap_n"
	done_testing
}
if is_role a; then
	mad_filter
	ok $? "cm-timeout: the filter drops every CM MAD a sends"
	_STDBUF_O=L LD_PRELOAD=$LIBSTDBUF timeout -k 5 200 \
		rping -c -a "$ORCA_PEER_IP" -p $((P + 2)) -C 1 -v >/tmp/pair-cm-timeout.out 2>&1
	rc=$?
	tc -s filter show dev eth1 egress >/tmp/pair-cm-filter.out 2>&1
	tc qdisc del dev eth1 clsact
	[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]
	ok $? "cm-timeout: rping whose REQs are all lost fails by itself (status $rc)"
	grep -q 'RDMA_CM_EVENT_UNREACHABLE' /tmp/pair-cm-timeout.out
	ok $? "cm-timeout: the client saw RDMA_CM_EVENT_UNREACHABLE"
	sed 's/^/# /' /tmp/pair-cm-timeout.out | head -n 5
	dropped=$(grep -oE 'dropped [0-9]+' /tmp/pair-cm-filter.out | head -n 1)
	[ "${dropped#dropped }" -gt 1 ] 2>/dev/null
	ok $? "cm-timeout: ib_cm resent the REQ before it gave up (the filter: ${dropped:-nothing})"
fi
pair_sync cm-timeout >/dev/null
ok $? "cm-timeout: both guests got through"
pair_leak_point cm-timeout "$before"

plan "$_tap_n"
done_testing
