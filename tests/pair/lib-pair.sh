# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Helpers of the two-guest tests (tests/pair/*.t).  pair-in-guest.sh runs
# every .t in guest a and in guest b at the same time; the two copies of
# a .t take different roles (which guest is the server is the .t's
# choice, per case) and meet through the mailbox (lib-core.sh), never
# through a sleep.  Environment from pair-in-guest.sh:
#
#   PAIR_ROLE      a or b (this guest)
#   PAIR_MODE      the pairing: orca-orca, orca-rxe or rxe-rxe (a's
#                  provider first)
#   PAIR_DEV       this guest's RDMA device (orca0 or rxe0), on eth1
#   PAIR_PEER_DEV  the peer's
#   PAIR_KEY       prefix of this .t's mailbox keys (<mode>.<t>)
#   PAIR_PORT_BASE a TCP port range of this .t and pairing for the tools
#   ORCA_SELF_IP ORCA_PEER_IP  eth1's addresses (run-guest.sh --pair)
#
# Sources tests/e2e/lib.sh (TAP: ok, plan, diag), lib-prog.sh and
# lib-tools.sh (tools_gid_index, cm_listening, the perftest result
# checks) with ORCA_DEV set to this guest's device and ORCA_NETDEV to
# eth1.  Every point is prefixed with the guest and its device:
# "[a orca0] ...".

PAIR_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export ORCA_DEV=${PAIR_DEV:?not run by pair-in-guest.sh}
export ORCA_NETDEV=eth1
# shellcheck source=tests/e2e/lib.sh
. "$PAIR_DIR/../e2e/lib.sh"
# shellcheck source=tests/e2e/lib-prog.sh
. "$PAIR_DIR/../e2e/lib-prog.sh"
# shellcheck source=tests/e2e/lib-tools.sh
. "$PAIR_DIR/../e2e/lib-tools.sh"

PAIR_ROLE=${PAIR_ROLE:?}
PAIR_MODE=${PAIR_MODE:?}
PAIR_PEER_DEV=${PAIR_PEER_DEV:?}
PAIR_KEY=${PAIR_KEY:?}
# What this guest is, for the test points: "a orca0".
ME="$PAIR_ROLE $PAIR_DEV"
eval "_lib_$(declare -f ok)"
ok() {
	local cond=$1
	shift
	_lib_ok "$cond" "[$ME] $*"
}

# Seconds one tool run may take, and the server after its client is done
# (a server whose client failed would otherwise wait for ever).
TOOLS_TIMEOUT=${PAIR_TOOL_TIMEOUT:-120}
TOOLS_SERVER_GRACE=${PAIR_SERVER_GRACE:-10}
TOOLS_PORT=${PAIR_PORT_BASE:-20000}
# Default bound of a pair_get: the peer's longest step between two
# meetings is one tool run and its server's grace.
PAIR_WAIT=${PAIR_WAIT:-$((TOOLS_TIMEOUT + TOOLS_SERVER_GRACE + 30))}
# shellcheck source=tests/pair/lib-core.sh
. "$PAIR_DIR/lib-core.sh"

# ---- the mailbox, keyed by this .t -------------------------------------------

pair_keyname() { # pair_keyname NAME: the mailbox key of NAME in this .t
	local k="$PAIR_KEY.$1"
	echo "${k//[^A-Za-z0-9._+-]/_}"
}

# pair_put NAME VALUE / pair_get NAME [BOUND]: the same, keyed in this .t.
pair_put() { pair_send_raw "$(pair_keyname "$1")" "$2"; }
pair_get() { pair_recv_raw "$(pair_keyname "$1")" "${2:-$PAIR_WAIT}"; }

# pair_sync NAME [VALUE [BOUND]]: both guests are here; prints the peer's
# VALUE.  Fails (status 1) if the peer does not arrive within BOUND.
pair_sync() {
	pair_put "sync.$1" "${2:-here}" || return 1
	pair_get "sync.$1" "${3:-$PAIR_WAIT}"
}

is_role() { [ "$PAIR_ROLE" = "$1" ]; }

# The guest that serves kernel storage (nvmet, nfsd) in this pairing; the
# other guest is the client.  It is a, except in orca-rxe, where rxe (b)
# serves and Orca is the client.  A storage client registers every I/O
# buffer with a REG_MR work request in front of its SEND, and Linux 6.1's
# rxe, when it retransmits (after a lost packet or a NAK), runs again the
# REG_MRs queued behind the SEND it goes back to: rxe_reg_fast_mr() finds
# the region still valid ("mr->lkey = ... not free"), the QP fails, and
# the host's reconnected queues fail the same way at the next
# retransmission.  rxe against rxe does this too (netem loss on both
# eth1s); a server sends no REG_MR, so a retransmitting rxe server is
# harmless.  Orca as the client is what this pairing checks: its REG_MRs
# take effect once, at their first start (orca_soft_wire_req.c).
pair_storage_server() {
	if [ "$PAIR_MODE" = orca-rxe ]; then echo b; else echo a; fi
}
is_storage_server() { is_role "$(pair_storage_server)"; }

# ---- the device, its counts, files ------------------------------------------------

# The RoCE v2 GID index of eth1's IPv4 address on this guest's device.
pair_gid_index() {
	poll_until 120 tools_gid_index "$ORCA_DEV" "$ORCA_NETDEV" &&
		tools_gid_index "$ORCA_DEV" "$ORCA_NETDEV"
}

res_summary() { pair_res_summary "$ORCA_DEV"; }

# has_line REGEX FILE: a line of FILE matches REGEX (bash's own matching).
has_line() {
	local line
	while IFS= read -r line; do
		[[ "$line" =~ $1 ]] && return 0
	done <"$2"
	return 1
}

# show_lines REGEX FILE LABEL: the matching lines as TAP comments.
show_lines() {
	local line
	while IFS= read -r line; do
		[[ "$line" =~ $1 ]] && echo "# $3: $line"
	done <"$2"
}

# ---- leak points -------------------------------------------------------------------

# pair_leak_point NAME BEFORE: this guest's device holds what it held
# before the case (ib_core's counts and, on orca0, the device's own),
# within 5 s (teardown deferred to a workqueue).
pair_leak_point() {
	local have t deadline
	t=$EPOCHSECONDS
	deadline=$((t + 5))
	while :; do
		have=$(res_summary)
		[ -n "$2" ] && [ "$have" = "$2" ] && break
		t=$EPOCHSECONDS
		[ "$t" -lt "$deadline" ] || break
		nap 0.2
	done
	[ -n "$2" ] && [ "$have" = "$2" ]
	ok $? "$1: nothing left behind ($have)"
	[ "$have" = "$2" ] || diag "before: $2"
}

# ---- one tool run on two guests --------------------------------------------------

# Line-buffered stdout, as stdbuf -oL does it (without starting stdbuf):
# a tool killed at its time limit still shows what it printed.
LIBSTDBUF=/usr/libexec/coreutils/libstdbuf.so

# pair_tool NAME SERVER_ROLE READY PORT SERVER_ARGV... -- CLIENT_ARGV...
#
# The guest in SERVER_ROLE runs SERVER_ARGV in the background, waits until
# "READY PORT" succeeds (bounded by TOOLS_TIMEOUT and by the server's
# exit) and tells the peer so; the other guest then runs CLIENT_ARGV
# (which names the server's address) and tells the server when it is
# done; the server gets TOOLS_SERVER_GRACE more seconds.  Each side runs
# under TOOLS_TIMEOUT.  Both guests end up knowing both exit statuses:
# TP_SRV_RC, TP_CLI_RC (124: killed at the time limit; 125: the client
# was not started because the server never became ready; 126: the peer's
# status never came back).  TP_SIDE is server or client; TP_OUT the
# local side's output (also TP_SRV_OUT or TP_CLI_OUT).
pair_tool() {
	local name=$1 srv_role=$2 ready=$3 port=$4 srv=() cli=() pid t deadline grace rc
	local done_key
	shift 4
	while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
		srv+=("$1")
		shift
	done
	shift
	cli=("$@")
	TP_SRV_OUT=/tmp/pair-$name.server
	TP_CLI_OUT=/tmp/pair-$name.client
	TP_SRV_RC=126
	TP_CLI_RC=126
	if is_role "$srv_role"; then
		TP_SIDE=server
		TP_OUT=$TP_SRV_OUT
		_STDBUF_O=L LD_PRELOAD=$LIBSTDBUF \
			timeout -k 5 "$TOOLS_TIMEOUT" "${srv[@]}" >"$TP_SRV_OUT" 2>&1 &
		pid=$!
		t=$EPOCHSECONDS
		deadline=$((t + TOOLS_TIMEOUT))
		until "$ready" "$port"; do
			t=$EPOCHSECONDS
			if ! kill -0 "$pid" 2>/dev/null || [ "$t" -ge "$deadline" ]; then
				break
			fi
			nap 0.1
		done
		rc=0
		"$ready" "$port" || rc=1
		[ "$rc" -eq 0 ] || echo "pair_tool: the server never became ready ($ready $port)" >>"$TP_SRV_OUT"
		pair_put "$name.ready" "$rc"
		# Until the server exits; once the client is done, a grace.
		done_key=$PAIR_INBOX/$(pair_keyname "$name.client-rc")
		grace=
		while kill -0 "$pid" 2>/dev/null; do
			t=$EPOCHSECONDS
			if [ -z "$grace" ] && [ -f "$done_key" ]; then
				grace=$((t + TOOLS_SERVER_GRACE))
			fi
			if [ -n "$grace" ] && [ "$t" -ge "$grace" ]; then
				echo "pair_tool: server still running $TOOLS_SERVER_GRACE s after the client; killed" >>"$TP_SRV_OUT"
				kill "$pid" 2>/dev/null
				break
			fi
			nap 0.1
		done
		wait "$pid"
		TP_SRV_RC=$?
		pair_put "$name.server-rc" "$TP_SRV_RC"
		TP_CLI_RC=$(pair_get "$name.client-rc") || TP_CLI_RC=126
	else
		TP_SIDE=client
		TP_OUT=$TP_CLI_OUT
		if [ "$(pair_get "$name.ready" $((TOOLS_TIMEOUT + 30)))" = 0 ]; then
			_STDBUF_O=L LD_PRELOAD=$LIBSTDBUF \
				timeout -k 5 "$TOOLS_TIMEOUT" "${cli[@]}" >"$TP_CLI_OUT" 2>&1
			TP_CLI_RC=$?
		else
			echo "pair_tool: the server never became ready" >"$TP_CLI_OUT"
			TP_CLI_RC=125
		fi
		pair_put "$name.client-rc" "$TP_CLI_RC"
		TP_SRV_RC=$(pair_get "$name.server-rc") || TP_SRV_RC=126
	fi
}

pair_status_text() {
	case "$1" in
	124 | 137) echo "timed out after $TOOLS_TIMEOUT s" ;;
	125) echo "not started, the server never became ready" ;;
	126) echo "status never came back from the peer" ;;
	*) echo "exit status $1" ;;
	esac
}

# pair_diag: what the device and eth1 say, after a failed run.
pair_diag() {
	{
		rdma statistic show link "$ORCA_DEV/1"
		ip -s link show dev eth1
		tc -s qdisc show dev eth1
		dmesg | tail -n 15
	} 2>&1 | sed "s/^/# $PAIR_ROLE: /"
}

# pair_status_point NAME: this side exited 0 (the peer makes its own
# point); on failure, this side's output and pair_diag.
pair_status_point() {
	local rc=$TP_SRV_RC other=$TP_CLI_RC peer=client
	if [ "$TP_SIDE" = client ]; then
		rc=$TP_CLI_RC
		other=$TP_SRV_RC
		peer=server
	fi
	[ "$rc" -eq 0 ]
	ok $? "$1: $TP_SIDE exits 0 ($(pair_status_text "$rc"); the $peer: $(pair_status_text "$other"))"
	if [ "$rc" -ne 0 ] || [ "$other" -ne 0 ]; then
		tools_show "$TP_OUT" "$TP_SIDE" | tail -n 40
		pair_diag
	fi
}

# ---- pingpong and perftest, across ----------------------------------------------

# pair_pingpong NAME SERVER_ROLE BYTES ITERS TOOL ARGS...: TOOL (an
# ibv_*_pingpong) with ARGS -p PORT on both guests, the client naming
# the server's address.  Each side: it exits 0; it reports "BYTES bytes"
# and "ITERS iters" (lib-tools.sh's tools_pingpong says what they are);
# with -c, the server: no "invalid data" in any page of its receive
# buffer, i.e. the client's marks arrived; no objects left behind.
pair_pingpong() {
	local name=$1 srv_role=$2 bytes=$3 iters=$4 tool=$5 port=$TOOLS_PORT chk=0 a before
	shift 5
	TOOLS_PORT=$((TOOLS_PORT + 1))
	for a in "$@"; do
		[ "$a" = -c ] && chk=1
	done
	before=$(res_summary)
	pair_tool "$name" "$srv_role" tools_listening "$port" "$tool" "$@" -p "$port" -- \
		"$tool" "$@" -p "$port" "$ORCA_PEER_IP"
	diag "$name: $tool $* -p $port (server on $srv_role)"
	pair_status_point "$name"
	has_line "^$bytes bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$" "$TP_OUT" &&
		has_line "^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" "$TP_OUT"
	ok $? "$name: $TP_SIDE reports $bytes bytes and $iters iters exchanged"
	show_lines '(bytes|iters) in ' "$TP_OUT" "$name $TP_SIDE"
	if [ "$chk" -eq 1 ] && [ "$TP_SIDE" = server ]; then
		has_line 'bytes in ' "$TP_OUT" && ! has_line 'invalid data' "$TP_OUT"
		ok $? "$name: -c: the server found the client's data in every page of its receive buffer"
		show_lines 'invalid data' "$TP_OUT" "$name server" | head -n 10
	fi
	pair_leak_point "$name" "$before"
}

# eth1_tx VAR, eth1_rx VAR: bytes eth1 has sent, received.
eth1_tx() { read -r "$1" </sys/class/net/eth1/statistics/tx_bytes; }
eth1_rx() { read -r "$1" </sys/class/net/eth1/statistics/rx_bytes; }

# pair_perftest_rejected NAME: the client of the last pair_tool NAME
# failed with RDMA_CM_EVENT_REJECTED; the client tells the server.
pair_perftest_rejected() {
	local r=0
	if [ "$TP_SIDE" = client ]; then
		[ "$TP_CLI_RC" -ne 0 ] && grep -q 'RDMA_CM_EVENT_REJECTED' "$TP_CLI_OUT" && r=1
		pair_put "$1.rejected" "$r"
	else
		r=$(pair_get "$1.rejected") || r=0
	fi
	[ "$r" = 1 ]
}

# pair_perftest NAME SERVER_ROLE KIND BYTES ITERS SERVER_REPORTS DATA_FROM READY TOOL ARGS...:
# a perftest TOOL with ARGS -s BYTES -n ITERS -p PORT -F on both guests;
# KIND is bw or lat.  READY is tools_listening, or cm_listening with -R.
# Each side exits 0; the client (and with SERVER_REPORTS=1, the server)
# prints a well-formed result line for BYTES x ITERS; the side that
# sends the payload (DATA_FROM: client, server, or - for none worth
# counting) put at least BYTES x ITERS bytes on eth1: the messages
# crossed the wire; nothing left behind.
pair_perftest() {
	local name=$1 srv_role=$2 kind=$3 bytes=$4 iters=$5 srv_reports=$6 from=$7 ready=$8 tool=$9
	local port=$TOOLS_PORT line before tx0 tx1
	shift 9
	TOOLS_PORT=$((TOOLS_PORT + 1))
	local args=("$@" -s "$bytes" -n "$iters" -F)
	[ "$kind" = lat ] && args+=("$TOOLS_LAT_CYCLES")
	before=$(res_summary)
	eth1_tx tx0
	pair_tool "$name" "$srv_role" "$ready" "$port" "$tool" "${args[@]}" -p "$port" -- \
		"$tool" "${args[@]}" -p "$port" "$ORCA_PEER_IP"
	# perftest 4.5 with -R connects twice (its data exchange, then the
	# test's QP); its client can ask for the second connection before
	# the server listens again, gets a REJ (no listener) and crashes in
	# its retry path (perftest 3d9d8d0 fixes it upstream, retrying as
	# this does; 180 says more).  Only for that: again on another port,
	# up to PERFTEST_CM_TRIES runs in all.
	local try=1
	while [ "$ready" = cm_listening ] && [ "$try" -lt "$PERFTEST_CM_TRIES" ] &&
		pair_perftest_rejected "$name"; do
		port=$((port + 100))
		try=$((try + 1))
		diag "$name: perftest's client was rejected (its connect/listen race): run $try on port $port"
		name=$name-$try
		pair_tool "$name" "$srv_role" "$ready" "$port" "$tool" "${args[@]}" -p "$port" -- \
			"$tool" "${args[@]}" -p "$port" "$ORCA_PEER_IP"
	done
	eth1_tx tx1
	diag "$name: $tool ${args[*]} -p $port (server on $srv_role)"
	pair_status_point "$name"
	if [ "$TP_SIDE" = client ] || [ "$srv_reports" -eq 1 ]; then
		line=$(tools_perftest_result "$TP_OUT")
		"tools_perftest_${kind}_ok" "$line" "$bytes" "$iters"
		ok $? "$name: $TP_SIDE reports a result for $bytes-byte messages x $iters"
		read -r -a line <<<"$line"
		echo "# $name $TP_SIDE: ${line[*]}"
	fi
	if [ "$TP_SIDE" = "$from" ]; then
		[ $((tx1 - tx0)) -ge $((bytes * iters)) ]
		ok $? "$name: the $TP_SIDE sent the payload over eth1 (tx_bytes grew $((tx1 - tx0)), >= $((bytes * iters)))"
	fi
	pair_leak_point "$name" "$before"
}
