#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rdma_cm on orca0: librdmacm's example programs (rdmacm-utils) and
# perftest's -R mode connect through the connection manager, server and
# client in this guest over eth0's IPv4 address, which is one of orca0's
# RoCE v2 GIDs.  Every connection is set up with CM MADs on QP1 (REQ,
# REP, RTU, then DREQ/DREP), whose address handles ib_cm creates in
# atomic context.  Each run's exit status and its own report are
# checked, and the data where the tool can check it:
#
#   rping -V -v -C 1000   RC SEND + RDMA READ/WRITE; -V makes the client
#                         compare every payload it got back with what it
#                         sent (a mismatch ends it with "data mismatch"
#                         and a failure); all 1000 pings are printed
#   ucmatose -c 4 -C 10   four RC connections at once, ten sends each way
#   udaddy                UD: address resolution, SIDR, datagrams
#   mckey                 UD multicast: join, send, receive, leave
#   rdma_server/client    the rdma_cm "simple" API (rdma_create_ep)
#   rdma_xserver/xclient  the same with -c r (RC)
#   ib_send_bw/ib_write_lat/ib_read_bw -R   perftest connected by rdma_cm
#   progs/cm_rd_atomic    the READ/atomic depths rdma_cm negotiates
#                         (initiator_depth, responder_resources) are what
#                         the device holds for each QP; 8 READs posted at
#                         once on a depth of 2 all return the right bytes
#
# Servers open no TCP socket: a server is ready when its rdma_cm listener
# is in 'rdma resource show cm_id' (cm_listening).  Afterwards no cm_id,
# QP or MR of orca0 is left.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-tools.sh"

modprobe rdma_ucm 2>/dev/null
ok $? "rdma_ucm is loaded (librdmacm's kernel interface)"

before=$(res_summary)
ip=$(ip -4 -o addr show dev "$ORCA_NETDEV" | awk '{ print $4 }' | cut -d/ -f1 | head -n1)
wait_for 30 tools_gid_index "$ORCA_DEV" "$ORCA_NETDEV"
[ -n "$ip" ] && tools_gid_index "$ORCA_DEV" "$ORCA_NETDEV" >/dev/null
ok $? "$ORCA_DEV has a RoCE v2 GID for $ORCA_NETDEV's address ${ip:-none}"

TOOLS_READY=cm_listening

# cm_run NAME PORT SERVER... -- CLIENT...: a pair, both must exit 0.
cm_run() {
	local name=$1 port=$2
	shift 2
	tools_pair "$name" "$port" "$@"
	tools_point_status "$name"
}

# rping: 1000 round trips of a 64-byte payload, validated by the client.
# Line-buffered, so that a line on stderr never splits a 'ping data' one.
cm_run rping 17174 rping -s -a "$ip" -p 17174 -V -C 1000 -S 64 -- \
	stdbuf -oL rping -c -a "$ip" -p 17174 -V -v -C 1000 -S 64
pings=$(grep -oE 'ping data: rdma-ping-[0-9]+:' "$TP_CLI_OUT" | sort -u | wc -l)
[ "$pings" -eq 1000 ] && ! grep -q 'data mismatch' "$TP_CLI_OUT"
ok $? "rping: the client validated 1000 distinct pings ($pings), no data mismatch"

# ucmatose: four connections, ten messages each way on each.
cm_run ucmatose 17175 ucmatose -p 17175 -c 4 -C 10 -- \
	ucmatose -s "$ip" -p 17175 -c 4 -C 10
for side in server client; do
	file=$(tools_out "$side")
	grep -q '^data transfers complete$' "$file" &&
		grep -q '^return status 0$' "$file"
	ok $? "ucmatose: $side: data transfers complete, return status 0"
done

# udaddy: UD over rdma_cm (SIDR), on its fixed port 7174 (its -p is the
# port space).
cm_run udaddy 7174 udaddy -- udaddy -s "$ip"
grep -q '^data transfers complete$' "$TP_SRV_OUT" &&
	grep -q '^data transfers complete$' "$TP_CLI_OUT"
ok $? "udaddy: both sides report their data transfers complete"

# mckey: the receiver is ready once it has joined the group.
mckey_joined() {
	grep -q '^receiving data transfers$' "$TP_SRV_OUT"
}
TOOLS_READY=mckey_joined
cm_run mckey 0 stdbuf -oL mckey -m 239.1.2.3 -b "$ip" -C 10 -- \
	mckey -m 239.1.2.3 -b "$ip" -s -C 10
grep -q '^data transfers complete$' "$TP_SRV_OUT"
ok $? "mckey: the receiver got the sender's 10 multicast messages"
TOOLS_READY=cm_listening

cm_run rdma_server 17177 rdma_server -p 17177 -- rdma_client -s "$ip" -p 17177
grep -q 'rdma_server: end 0' "$TP_SRV_OUT" && grep -q 'rdma_client: end 0' "$TP_CLI_OUT"
ok $? "rdma_server/rdma_client: both end 0"

cm_run rdma_xserver 17178 rdma_xserver -c r -p 17178 -- \
	rdma_xclient -s "$ip" -p 17178 -c r
grep -q 'rdma_xserver: end 0' "$TP_SRV_OUT" && grep -q 'rdma_xclient: end 0' "$TP_CLI_OUT"
ok $? "rdma_xserver/rdma_xclient -c r: both end 0"

# perftest with -R: the result lines, as 160/170 check them.
# cm_perftest_pair NAME PORT TOOL BYTES ITERS: one run, server and client.
cm_perftest_pair() {
	local args=(-R -d "$ORCA_DEV" -s "$4" -n "$5" -p "$2" -F)
	[[ "$3" == *_lat ]] && args+=("$TOOLS_LAT_CYCLES")
	tools_pair "$1" "$2" "$3" "${args[@]}" -- "$3" "${args[@]}" "$ip"
}
cm_perftest() {
	local name=$1 kind=$2 bytes=$3 iters=$4 port=$5 tool=$6 line
	cm_perftest_pair "$name" "$port" "$tool" "$bytes" "$iters"
	# perftest 4.5 with -R connects twice (its data exchange, then the
	# test's QP); its client can ask for the second connection before
	# the server listens again, gets a REJ (no listener), and crashes in
	# its retry path (perftest issue #93, fixed upstream in 3d9d8d0; seen
	# with rxe too; the fix retries as this does).  Only for that: again
	# on another port, up to PERFTEST_CM_TRIES runs in all.
	local try=1
	while [ "$try" -lt "$PERFTEST_CM_TRIES" ] && [ "$TP_CLI_RC" -ne 0 ] &&
		grep -q 'RDMA_CM_EVENT_REJECTED' "$TP_CLI_OUT"; do
		port=$((port + 100))
		try=$((try + 1))
		diag "$name: perftest's client was rejected (its connect/listen race): run $try on port $port"
		cm_perftest_pair "$name" "$port" "$tool" "$bytes" "$iters"
	done
	tools_point_status "$name"
	line=$(tools_perftest_result "$TP_CLI_OUT")
	if [ "$kind" = bw ]; then
		tools_perftest_bw_ok "$line" "$bytes" "$iters"
	else
		tools_perftest_lat_ok "$line" "$bytes" "$iters"
	fi
	ok $? "$name: the client's result line for $bytes B x $iters"
	diag "$name: $line"
}
cm_perftest send-bw-R bw 4096 500 17179 ib_send_bw
cm_perftest write-lat-R lat 2 500 17180 ib_write_lat
cm_perftest read-bw-R bw 65536 200 17181 ib_read_bw

run_prog cm_rd_atomic "$ip" 17182

leak_check "$before"
plan "$_tap_n"
done_testing
