#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Orca on the wire against Orca and against Soft-RoCE (rxe), in one
# guest (see lib-wire.sh): the rdma_cm tools (rping with payload
# validation, udaddy; their CM MADs travel on the GSI QPs over the wire),
# the RC pingpong example with data checks and perftest, with Orca as
# client and as server.  rxe allows 128 outstanding READs and atomics
# per QP, Orca 16, and perftest asks each side for the other's number:
# the READ and atomic runs fix it at 16 (-o 16), as they would between
# rxe and a ConnectX.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-tools.sh"
. "$(dirname "$0")/lib-wire.sh"

TOOLS_PORT=31000

modprobe rdma_ucm 2>/dev/null
ok $? "rdma_ucm is loaded (librdmacm's kernel interface)"

# wire_cm_listening PORT: an rdma_cm ID listens on PORT.
wire_cm_listening() {
	rdma resource show cm_id 2>/dev/null |
		grep -qE "state LISTEN .*src-addr [^ ]*:$1( |\$)"
}

# The namespaces of the two ends: NS_A runs what uses vw0's address,
# NS_B what uses vw1's.
NS_A=()
NS_B=(ip netns exec orcapeer)

# cm_case NAME PORT SERVER... -- CLIENT...: an rdma_cm tool pair, the
# server on the B end (it binds WIRE_IP_B), the client on the A end.
cm_case() {
	local name=$1 port=$2 srv=() cli=()
	shift 2
	while [ "$1" != -- ]; do
		srv+=("$1")
		shift
	done
	shift
	cli=("$@")
	TOOLS_READY=wire_cm_listening tools_pair "$name" "$port" \
		"${NS_B[@]}" "${srv[@]}" -- "${NS_A[@]}" "${cli[@]}"
	diag "$name: server ${srv[*]}; client ${cli[*]}"
	tools_point_status "$name"
	[ "$TP_SRV_RC" -eq 0 ] && [ "$TP_CLI_RC" -eq 0 ] || wire_counters
}

# rping_case NAME: 200 validated round trips of a 64-byte payload.
rping_case() {
	local pings port=$TOOLS_PORT
	TOOLS_PORT=$((TOOLS_PORT + 1))
	cm_case "$1" "$port" rping -s -a $WIRE_IP_B -p "$port" -V -C 200 -S 64 -- \
		stdbuf -oL rping -c -a $WIRE_IP_B -p "$port" -V -v -C 200 -S 64
	pings=$(grep -oE 'ping data: rdma-ping-[0-9]+:' "$TP_CLI_OUT" | sort -u | wc -l)
	[ "$pings" -eq 200 ] && ! grep -q 'data mismatch' "$TP_CLI_OUT"
	ok $? "$1: the client validated 200 distinct pings ($pings), no data mismatch"
}

# pp_case NAME SERVER_DEV SERVER_GID CLIENT_DEV CLIENT_GID: ibv_rc_pingpong
# with -c, 16 KiB messages at a 1024-byte MTU.
pp_case() {
	local name=$1 port=$TOOLS_PORT it=100 size=16384
	TOOLS_PORT=$((TOOLS_PORT + 1))
	tools_pair "$name" "$port" ibv_rc_pingpong -d "$2" -g "$3" -n $it -s $size -m 1024 -c -p "$port" -- \
		ibv_rc_pingpong -d "$4" -g "$5" -n $it -s $size -m 1024 -c -p "$port" 127.0.0.1
	diag "$name: ibv_rc_pingpong, server $2, client $4"
	tools_point_status "$name"
	[ "$TP_SRV_RC" -eq 0 ] && [ "$TP_CLI_RC" -eq 0 ] || wire_counters
	grep -q "^$((size * it * 2)) bytes in" "$TP_SRV_OUT" &&
		grep -q "^$((size * it * 2)) bytes in" "$TP_CLI_OUT" &&
		! grep -q 'invalid data' "$TP_SRV_OUT"
	ok $? "$name: both sides exchanged $((size * it * 2)) bytes, the server's data checks passed"
}

# perf_case NAME SERVER_DEV SERVER_GID CLIENT_DEV CLIENT_GID TOOL ARGS...
perf_case() {
	local name=$1 sd=$2 sg=$3 cd=$4 cg=$5 tool=$6 port=$TOOLS_PORT line
	shift 6
	TOOLS_PORT=$((TOOLS_PORT + 1))
	tools_pair "$name" "$port" "$tool" -d "$sd" -x "$sg" "$@" -p "$port" -F -- \
		"$tool" -d "$cd" -x "$cg" "$@" -p "$port" -F 127.0.0.1
	diag "$name: $tool $*, server $sd, client $cd"
	tools_point_status "$name"
	[ "$TP_SRV_RC" -eq 0 ] && [ "$TP_CLI_RC" -eq 0 ] || wire_counters
	line=$(tools_perftest_result "$(tools_out client)")
	[ -n "$line" ]
	ok $? "$name: the client reports a result: $(echo "$line" | tr -s ' \t' ' ')"
}

before=$(res_summary)

# ---- Orca to Orca
wire_setup orca
rping_case orca-rping
# udaddy: UD through rdma_cm (SIDR), on its fixed port 7174.
cm_case orca-udaddy 7174 udaddy -b $WIRE_IP_B -- udaddy -s $WIRE_IP_B -b $WIRE_IP_A
grep -q '^data transfers complete$' "$TP_SRV_OUT" &&
	grep -q '^data transfers complete$' "$TP_CLI_OUT"
ok $? "orca-udaddy: both sides report their data transfers complete"
# mckey: the receiver joins 239.1.2.3 on vw1, the sender sends from vw0.
mckey_joined() {
	grep -q '^receiving data transfers$' "$TP_SRV_OUT"
}
TOOLS_READY=mckey_joined tools_pair orca-mckey 0 \
	"${NS_B[@]}" stdbuf -oL mckey -m 239.1.2.3 -b $WIRE_IP_B -C 10 -- \
	"${NS_A[@]}" mckey -m 239.1.2.3 -b $WIRE_IP_A -s -C 10
tools_point_status orca-mckey
grep -q '^data transfers complete$' "$TP_SRV_OUT"
ok $? "orca-mckey: the receiver got the sender's 10 multicast datagrams over the wire"
wire_teardown

# ---- Orca against rxe
NS_A=(ip netns exec orcapeer)
NS_B=()
wire_setup rxe
pp_case rxe-server-rc $WIRE_B "$WIRE_GB" $WIRE_A "$WIRE_GA"
pp_case orca-server-rc $WIRE_A "$WIRE_GA" $WIRE_B "$WIRE_GB"
perf_case rxe-write-bw $WIRE_B "$WIRE_GB" $WIRE_A "$WIRE_GA" ib_write_bw -s 65536 -n 100
perf_case rxe-read-bw $WIRE_B "$WIRE_GB" $WIRE_A "$WIRE_GA" ib_read_bw -s 65536 -n 100 -o 16
perf_case rxe-send-bw $WIRE_A "$WIRE_GA" $WIRE_B "$WIRE_GB" ib_send_bw -s 65536 -n 100
perf_case rxe-atomic-bw $WIRE_B "$WIRE_GB" $WIRE_A "$WIRE_GA" ib_atomic_bw -n 100 -o 16
rping_case rxe-rping
# Memory windows: rxe requesting through Orca's windows (progs/wire_mw.c
# says why not the other way).
run_prog wire_mw $WIRE_B "$WIRE_GB" $WIRE_A "$WIRE_GA"
for c in tx_packets rx_packets retransmits ack_timeouts duplicates out_of_sequence rx_drops rx_icrc_errors; do
	diag "$WIRE_A $c $(wire_stat $WIRE_A $c)"
done
icrc=$(wire_stat $WIRE_A rx_icrc_errors)
[ "${icrc:-x}" = 0 ]
ok $? "$WIRE_A: every packet from rxe passed the ICRC check (rx_icrc_errors ${icrc:-?})"
wire_teardown

leak_check "$before"
plan "$_tap_n"
done_testing
