# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Helpers for the .t files that run rdma-core's own tools on orca0
# (tests/e2e/15?-19?-tools-*.t): the pingpong examples of ibverbs-utils
# and perftest.  Each tool runs as a server in the background and a
# client to 127.0.0.1 in the same guest; both talk over orca0's port 1
# with the RoCE v2 GID of the netdev's IPv4 address, which is local to
# the port, so traffic takes the device's local path.
#
# Every run has a time limit: a hang is a failing point, never a skip.
# Source after lib.sh.  Also used by tests/bench/bench-in-guest.sh.

# Seconds one tool run (server or client) may take: a guard against a
# hang, not a measure (a debug-kernel guest under load was seen to need
# several times the stock kernel's minute).
TOOLS_TIMEOUT=${TOOLS_TIMEOUT:-180}
# After the client has exited, seconds the server gets to finish.
TOOLS_SERVER_GRACE=${TOOLS_SERVER_GRACE:-30}
# TCP port of the next run (the tools exchange QP numbers over TCP);
# each run takes a new one, so no run meets an earlier one's socket.
TOOLS_PORT=${TOOLS_PORT:-18600}
# Runs a perftest -R case gets when its client is rejected in perftest
# 4.5's connect/listen race (180-cm-tools.t says which): perftest's own
# fix retries the same way.
PERFTEST_CM_TRIES=${PERFTEST_CM_TRIES:-4}

# tools_gid_index DEV NETDEV: print the index in DEV port 1's GID table
# of the RoCE v2 GID for NETDEV's IPv4 address (::ffff:a.b.c.d), found
# in /sys/class/infiniband/DEV/ports/1/gids and gid_attrs/{types,ndevs}.
tools_gid_index() {
	local dev=$1 netdev=$2 ip a b c d want f idx port
	port=/sys/class/infiniband/$dev/ports/1
	ip=$(ip -4 -o addr show dev "$netdev" | awk '{ print $4 }' | cut -d/ -f1 | head -n1)
	[ -n "$ip" ] || return 1
	IFS=. read -r a b c d <<<"$ip"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
	for f in $(grep -lx "$want" "$port"/gids/* 2>/dev/null); do
		idx=${f##*/}
		[ "$(cat "$port/gid_attrs/types/$idx" 2>/dev/null)" = "RoCE v2" ] || continue
		[ "$(cat "$port/gid_attrs/ndevs/$idx" 2>/dev/null)" = "$netdev" ] || continue
		echo "$idx"
		return 0
	done
	return 1
}

# tools_active_mtu DEV: port 1's active MTU in bytes.
tools_active_mtu() {
	ibv_devinfo -d "$1" -i 1 2>/dev/null |
		sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'
}

# tools_listening PORT: a TCP socket listens on PORT.
tools_listening() {
	[ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]
}

# cm_listening PORT: an rdma_cm ID of $ORCA_DEV listens on PORT (rdma_cm
# servers open no TCP socket; their listeners are in the RDMA core's
# resource tracking: 'link orca0/1' when bound to one of its addresses,
# 'link orca0/-' for the device's share of a wildcard listener).
cm_listening() {
	rdma resource show cm_id 2>/dev/null |
		grep -qE "^link $ORCA_DEV/[0-9-]+ .*state LISTEN .*src-addr [^ ]*:$1( |\$)"
}

# The readiness check tools_pair calls with the port: a function name.
TOOLS_READY=${TOOLS_READY:-tools_listening}

# tools_out server|client: that side's output file of the last tools_pair.
tools_out() {
	if [ "$1" = client ]; then
		echo "$TP_CLI_OUT"
	else
		echo "$TP_SRV_OUT"
	fi
}

# tools_status_text STATUS: a timeout's exit status says so.
tools_status_text() {
	case "$1" in
	124 | 137) echo "timed out after $TOOLS_TIMEOUT s" ;;
	125) echo "not started, the server never listened" ;;
	*) echo "exit status $1" ;;
	esac
}

# tools_pair NAME PORT SERVER_ARGV... -- CLIENT_ARGV...
# Runs the server in the background, waits until it listens on PORT
# ("$TOOLS_READY PORT" succeeds; it may also look at $TP_SRV_OUT),
# runs the client, then gives the server TOOLS_SERVER_GRACE seconds to
# finish.  Sets TP_SRV_RC and TP_CLI_RC (the exit statuses; 124 means
# killed at its time limit, 125 that the client was never started
# because the server did not listen) and TP_SRV_OUT / TP_CLI_OUT (files
# with each side's stdout and stderr).
tools_pair() {
	local name=$1 port=$2 srv=() cli=() spid deadline
	shift 2
	while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
		srv+=("$1")
		shift
	done
	shift
	cli=("$@")
	TP_SRV_OUT=/tmp/tools-$name.server
	TP_CLI_OUT=/tmp/tools-$name.client
	: >"$TP_CLI_OUT"

	timeout -k 5 "$TOOLS_TIMEOUT" "${srv[@]}" >"$TP_SRV_OUT" 2>&1 &
	spid=$!
	deadline=$(($(date +%s) + TOOLS_TIMEOUT))
	until "$TOOLS_READY" "$port"; do
		if ! kill -0 "$spid" 2>/dev/null || [ "$(date +%s)" -ge "$deadline" ]; then
			break
		fi
		sleep 0.1
	done
	if "$TOOLS_READY" "$port"; then
		timeout -k 5 "$TOOLS_TIMEOUT" "${cli[@]}" >"$TP_CLI_OUT" 2>&1
		TP_CLI_RC=$?
	else
		echo "the server never became ready ($TOOLS_READY $port)" >"$TP_CLI_OUT"
		TP_CLI_RC=125
	fi

	deadline=$(($(date +%s) + TOOLS_SERVER_GRACE))
	while kill -0 "$spid" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do
		sleep 0.1
	done
	if kill -0 "$spid" 2>/dev/null; then
		echo "tools_pair: server still running $TOOLS_SERVER_GRACE s after the client; killed" >>"$TP_SRV_OUT"
		kill "$spid" 2>/dev/null
	fi
	wait "$spid"
	TP_SRV_RC=$?
}

# tools_show FILE LABEL: the file as TAP comments.
tools_show() {
	sed "s/^/# $2: /" "$1"
}

# tools_point_status NAME: one point, both sides exited 0.
tools_point_status() {
	[ "$TP_SRV_RC" -eq 0 ] && [ "$TP_CLI_RC" -eq 0 ]
	ok $? "$1: server and client exit 0 (server: $(tools_status_text "$TP_SRV_RC"), client: $(tools_status_text "$TP_CLI_RC"))"
	if [ "$TP_SRV_RC" -ne 0 ] || [ "$TP_CLI_RC" -ne 0 ]; then
		tools_show "$TP_SRV_OUT" server | tail -n 40
		tools_show "$TP_CLI_OUT" client | tail -n 40
	fi
}

# ---- ibverbs-utils pingpong examples ------------------------------------------

# tools_pingpong NAME BYTES ITERS TOOL ARGS...: run TOOL (ibv_*_pingpong)
# as server and client with ARGS plus -p PORT, and check
#   - both exit 0;
#   - each side reports "BYTES bytes in T seconds" and "ITERS iters in
#     T seconds" (what the tool computes from its options: BYTES =
#     size * iters * 2);
#   - with -c among ARGS, the server found no "invalid data": the
#     examples' -c has the client mark the first byte of each page of
#     its send buffer (the UD one: the first byte after the 40-byte GRH
#     area) and the server check those bytes of its receive buffer,
#     which it filled with 0x7b before posting it, after the last
#     exchange.  The tools only print the finding, their exit status
#     does not change, so the output is what is checked.
tools_pingpong() {
	local name=$1 bytes=$2 iters=$3 tool=$4 port=$TOOLS_PORT side file chk=0 a
	shift 4
	TOOLS_PORT=$((TOOLS_PORT + 1))
	for a in "$@"; do
		[ "$a" = -c ] && chk=1
	done
	tools_pair "$name" "$port" "$tool" "$@" -p "$port" -- \
		"$tool" "$@" -p "$port" 127.0.0.1
	diag "$name: $tool $* -p $port [127.0.0.1]"
	tools_point_status "$name"
	for side in server client; do
		file=$(tools_out "$side")
		grep -Eq "^$bytes bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$" "$file" &&
			grep -Eq "^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter$" "$file"
		ok $? "$name: $side reports $bytes bytes and $iters iters exchanged"
		grep -E '(bytes|iters) in ' "$file" | sed "s/^/# $name $side: /"
	done
	if [ "$chk" -eq 1 ]; then
		grep -q 'bytes in ' "$TP_SRV_OUT" && ! grep -q 'invalid data' "$TP_SRV_OUT"
		ok $? "$name: -c: the server found the client's data in every page of its receive buffer"
		grep 'invalid data' "$TP_SRV_OUT" | head -n 10 | sed "s/^/# $name server: /"
	fi
}

# ---- perftest ---------------------------------------------------------------------

# tools_perftest_result FILE: print perftest's result line: the first
# line after the one starting with " #bytes" that starts with a number.
# Its latency loops measure the TSC (for --latency_gap, 0 unless asked)
# whatever -C says, and stderr, merged into FILE, can put "Correlation
# coefficient r^2: 0.69 < 0.9" between header and result when the TCG
# host is busy (seen in CI, 2026-11-27); the result is not affected.
tools_perftest_result() {
	awk 'found && $1 ~ /^[0-9]+$/ { print; exit } /^ *#bytes/ { found = 1 }' "$1"
}

# tools_perftest_bw_ok LINE BYTES ITERS: a bandwidth result line for
# BYTES and ITERS with numeric peak, average and message rate.
tools_perftest_bw_ok() {
	[[ "$1" =~ ^[[:space:]]*$2[[:space:]]+$3([[:space:]]+[0-9]+\.[0-9]+){3}[[:space:]]*$ ]]
}

# The latency tests report in TSC cycles (-C).  In microseconds, perftest
# 4.5 first measures the TSC against gettimeofday() and gives up when the
# samples do not fit a line (r^2 < 0.9), which a busy TCG host can cause:
# it then prints that instead of a usable result, whatever the device did
# (seen in CI, 2026-11-26: "Correlation coefficient r^2: 0.81 < 0.9").
# A result in cycles needs no such measurement, and absolute times under
# TCG mean nothing anyway.  TOOLS_LAT_CYCLES names the option for
# callers that build their own command lines.
TOOLS_LAT_CYCLES=-C

# tools_perftest_lat_ok LINE BYTES ITERS: a latency result line for
# BYTES and ITERS with numeric t_min, t_max, t_typical, t_avg and the two
# percentiles.  t_stdev may also read nan: perftest 4.5 squares each
# sample's distance from the mean in an int, which overflows once one
# sample is 46,341 units away, and in cycles one scheduling delay of the
# guest is (its header still says usec: perftest prints that either way).
tools_perftest_lat_ok() {
	local n='[0-9]+\.[0-9]+' sd='([0-9]+\.[0-9]+|-?nan)'
	[[ "$1" =~ ^[[:space:]]*$2[[:space:]]+$3([[:space:]]+$n){4}[[:space:]]+$sd([[:space:]]+$n){2}[[:space:]]*$ ]]
}

# tools_perftest NAME KIND BYTES ITERS SERVER_REPORTS TOOL ARGS...: run a
# perftest TOOL (e.g. ib_write_bw) with ARGS plus -s BYTES -n ITERS
# -p PORT -F; KIND is bw or lat, and lat adds -C (TOOLS_LAT_CYCLES).
# Checks both exit 0 and the client's result line; with SERVER_REPORTS=1
# (the send tests, where the server receives and counts every message)
# the server's result line too.
tools_perftest() {
	local name=$1 kind=$2 bytes=$3 iters=$4 srv_reports=$5 tool=$6 port=$TOOLS_PORT
	local side file line sides=client
	shift 6
	TOOLS_PORT=$((TOOLS_PORT + 1))
	local args=("$@" -s "$bytes" -n "$iters" -p "$port" -F)
	[ "$kind" = lat ] && args+=("$TOOLS_LAT_CYCLES")
	tools_pair "$name" "$port" "$tool" "${args[@]}" -- "$tool" "${args[@]}" 127.0.0.1
	diag "$name: $tool ${args[*]} [127.0.0.1]"
	tools_point_status "$name"
	[ "$srv_reports" -eq 1 ] && sides="server client"
	for side in $sides; do
		file=$(tools_out "$side")
		line=$(tools_perftest_result "$file")
		"tools_perftest_${kind}_ok" "$line" "$bytes" "$iters"
		ok $? "$name: $side reports a result for $bytes-byte messages x $iters"
		echo "# $name $side: $(grep -m1 '^ *#bytes' "$file" | tr -s ' \t' ' ')"
		echo "# $name $side: $(echo "$line" | tr -s ' \t' ' ')"
	done
}

# tools_ucx_transports: one point each that ucx_info -d lists the rc_verbs
# and ud_verbs transports on $ORCA_DEV port 1 (188-middleware.t and the
# two-guest 80-middleware.t).
tools_ucx_transports() {
	local tl out=/tmp/tools-ucx-info.out
	timeout 120 ucx_info -d >"$out" 2>&1
	for tl in rc_verbs ud_verbs; do
		awk -v tl="$tl" -v dev="$ORCA_DEV:1" '
			/Transport:/ { t = $NF }
			/Device:/ && t == tl && $NF == dev { found = 1 }
			END { exit !found }' "$out"
		ok $? "ucx_info -d: transport $tl on device $ORCA_DEV:1"
	done
}
