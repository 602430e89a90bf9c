#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# RoCEv2 on the wire in one guest: two Orca functions on the two ends of
# a veth pair (lib-wire.sh: orcaw0 on vw0, orcaw1 on vw1 in another
# network namespace).
# Neither GID is the other function's own, so every packet between them
# leaves one port as an Ethernet frame and enters the other through its
# rx_handler: the transport (segmentation, ACKs, READ responses, atomics,
# UD datagrams), not the local fast path, over IPv4 and IPv6 GIDs.
# 310-wire-lossy.t does the same over a link that loses frames.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-tools.sh"
. "$(dirname "$0")/lib-wire.sh"

TOOLS_PORT=30000
ITERS=100
SIZE=16384

before=$(res_summary)
wire_setup orca
A=$WIRE_A
B=$WIRE_B
ga=$WIRE_GA
gb=$WIRE_GB
mtu=$(tools_active_mtu $A)
mtu=${mtu:-1024}

tx0=$(wire_stat $A tx_packets)

# pingpong NAME BYTES ITERS TOOL ARGS...: server on B, client on A.
pingpong() {
	local name=$1 bytes=$2 iters=$3 tool=$4 port=$TOOLS_PORT side file
	shift 4
	TOOLS_PORT=$((TOOLS_PORT + 1))
	tools_pair "$name" "$port" "$tool" -d $B -g "$gb" "$@" -p "$port" -- \
		"$tool" -d $A -g "$ga" "$@" -p "$port" 127.0.0.1
	diag "$name: $tool $* (server $B, client $A)"
	tools_point_status "$name"
	[ "$TP_SRV_RC" -eq 0 ] && [ "$TP_CLI_RC" -eq 0 ] || wire_counters
	for side in server client; do
		file=$(tools_out "$side")
		grep -Eq "^$bytes bytes in [0-9.]+ seconds" "$file" &&
			grep -Eq "^$iters iters in [0-9.]+ seconds" "$file"
		ok $? "$name: $side reports $bytes bytes and $iters iters exchanged"
	done
	grep -q 'bytes in ' "$TP_SRV_OUT" && ! grep -q 'invalid data' "$TP_SRV_OUT"
	ok $? "$name: -c: the server found the client's data in every page"
}

common=(-n "$ITERS" -c)
pingpong rc-small $((1 * ITERS * 2)) "$ITERS" ibv_rc_pingpong "${common[@]}" -s 1 -m 1024
pingpong rc $((SIZE * ITERS * 2)) "$ITERS" ibv_rc_pingpong "${common[@]}" -s "$SIZE" -m 1024
# The same over the IPv6 GIDs: IPv6 headers, the flow label's UDP port.
ga6=$WIRE_G6A
gb6=$WIRE_G6B
pingpong6() {
	local ga=$ga6 gb=$gb6
	pingpong "$@"
}
pingpong6 rc-ipv6 $((SIZE * ITERS * 2)) "$ITERS" ibv_rc_pingpong "${common[@]}" -s "$SIZE" -m 1024
pingpong6 ud-ipv6 $((mtu * ITERS * 2)) "$ITERS" ibv_ud_pingpong "${common[@]}" -s "$mtu"
pingpong uc $((SIZE * ITERS * 2)) "$ITERS" ibv_uc_pingpong "${common[@]}" -s "$SIZE" -m 1024
pingpong ud $((mtu * ITERS * 2)) "$ITERS" ibv_ud_pingpong "${common[@]}" -s "$mtu"
pingpong srq $((SIZE * ITERS * 2)) "$ITERS" ibv_srq_pingpong "${common[@]}" -s "$SIZE" -m 1024 -q 4

# Every operation, every byte checked, on a clean wire.
run_prog wire_verify $A "$ga" $B "$gb" 12
# An RNR wait longer than the ACK timeout spends no retry_cnt.
run_prog wire_verify $A "$ga" $B "$gb" 2 rnr
# A WQE that fails locally behind an unacknowledged one: nothing after
# it is sent.
run_prog wire_verify $A "$ga" $B "$gb" 0 halt
# SQD with a WRITE in progress: it finishes (resent), then SQ_DRAINED.
run_prog wire_verify $A "$ga" $B "$gb" 0 sqd
# A NAK for a request behind a READ waits for the READ's responses.  A's
# READ and bad WRITE are held in a plug qdisc on vw0 and released
# together: B takes both in one batch, the READ's responses still to send.
sent_two() {
	[ "$(wire_stat "$A" tx_packets)" -ge $((tx0 + 2)) ]
}
tx0=$(wire_stat $A tx_packets)
tc qdisc add dev vw0 root plug limit 1000000
ok $? "a plug qdisc holds what vw0 sends"
"$E2E_BIN/wire_verify" $A "$ga" $B "$gb" 0 naks >/tmp/e2e-wire_verify.out 2>&1 &
pid=$!
wait_for 60 sent_two
ok $? "$A sent the READ and the WRITE into the plug"
tc qdisc change dev vw0 root plug release_indefinite
wait "$pid"
fold_tap /tmp/e2e-wire_verify.out $? wire_verify
tc qdisc del dev vw0 root
ok $? "the plug is gone"
# A QP takes packets only from its path: A sends from a second address
# of vw0 to a QP of B connected to A's first.
ip addr add 10.77.0.3/24 dev vw0 && wait_for 30 wire_gid $A 10.77.0.3
ok $? "a second address on vw0, 10.77.0.3, and its RoCE v2 GID"
run_prog wire_verify $A "$(wire_gid $A 10.77.0.3)" $B "$gb" 0 path "$ga"
ip addr del 10.77.0.3/24 dev vw0
# Two QPs' multi-packet SENDs into one SRQ: a receive WQE per message.
run_prog wire_srq $A "$ga" $B "$gb"
# Memory windows: B binds a type 1 and a zero-based type 2 window, A
# writes, reads, adds and invalidates through their keys.
run_prog wire_mw $A "$ga" $B "$gb"
# XRC: A's XRC_SEND QPs into an XRC SRQ of B through B's XRC_RECV QPs:
# a SEND, WRITE and READ of 20 KiB and a FETCH_ADD, a remote_srqn naming
# no SRQ and an rkey of another PD than the SRQ's (not in 305: rxe has no
# XRC).
run_prog wire_xrc $A "$ga" $B "$gb"
# On-demand paging: regions of both ends registered ON_DEMAND over memory
# never touched; B's device answers a request whose page is missing with
# an RNR NAK (counted in rnr_naks_sent) and drops a UD datagram whose
# page is missing (ud_drops), A's waits for its own pages; a WRITE over
# pages B unmapped is REM_ACCESS_ERR.
rnr0=$(wire_stat $B rnr_naks_sent)
udd0=$(wire_stat $B ud_drops)
run_prog wire_odp $A "$ga" $B "$gb"
rnr1=$(wire_stat $B rnr_naks_sent)
udd1=$(wire_stat $B ud_drops)
[ "${rnr1:-0}" -gt "${rnr0:-0}" ]
ok $? "wire_odp: $B answered requests for pages it did not have with RNR NAKs (rnr_naks_sent ${rnr0:-?} -> ${rnr1:-?})"
[ "${udd1:-0}" -gt "${udd0:-0}" ]
ok $? "wire_odp: $B dropped the datagram whose page it did not have (ud_drops ${udd0:-?} -> ${udd1:-?})"
wire_perf send-bw ib_send_bw -s 65536 -n 100
wire_perf write-bw ib_write_bw -s 65536 -n 100
wire_perf read-bw ib_read_bw -s 65536 -n 100
wire_perf atomic-bw ib_atomic_bw -n 100
wire_perf write-lat ib_write_lat -s 2 -n 100 "$TOOLS_LAT_CYCLES"

tx1=$(wire_stat $A tx_packets)
rx1=$(wire_stat $B rx_packets)
[ "${tx1:-0}" -gt "${tx0:-0}" ] && [ "${rx1:-0}" -gt 0 ]
ok $? "$A counted packets sent (${tx0:-?} -> ${tx1:-?}), $B packets received (${rx1:-?})"
icrc=$(wire_stat $B rx_icrc_errors)
[ "${icrc:-x}" = 0 ]
ok $? "$B: no ICRC errors on a clean link (${icrc:-?})"

wire_teardown
leak_check "$before"
plan "$_tap_n"
done_testing
