#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Processes killed (SIGKILL) in the middle of rdma_cm connection setup and
# with established connections, on either side, leave nothing behind: no
# cm_id, QP, CQ, MR or PD of orca0 ('rdma resource show', and the
# device's own counts), and the peer of an established connection sees
# the disconnect (rdma_cm's DISCONNECTED event, which rping reports as
# "DISCONNECT EVENT") instead of hanging.
#
# A persistent rping server (-P) takes one client after another.  Setup
# kills come at once after the client starts (whatever phase it reached:
# address resolution, route, REQ sent or not); established kills come
# after the client printed its first validated ping.  Finally a client
# runs to completion against the same server, which must still serve,
# and then the server itself is killed under an endless client.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

PORT=17192
SETUP_KILLS=8
EST_KILLS=8

modprobe rdma_ucm 2>/dev/null
before=$(res_summary)
ip=$(ip -4 -o addr show dev "$ORCA_NETDEV" | awk '{ print $4 }' | cut -d/ -f1 | head -n1)

listening() {
	rdma resource show cm_id 2>/dev/null |
		grep -qE "^link $ORCA_DEV/[0-9-]+ .*state LISTEN .*:$PORT "
}

# cm_ids of orca0 other than the server's listener.
extra_cm_ids() {
	rdma resource show cm_id 2>/dev/null | grep -E "^link $ORCA_DEV/" |
		grep -vc 'state LISTEN'
}

stdbuf -oL -eL rping -s -P -a "$ip" -p "$PORT" -v >/tmp/e2e-srv.out 2>&1 &
srv=$!

# QPs of orca0 the server process holds.
server_qps() {
	rdma resource show qp 2>/dev/null | grep -E "^link $ORCA_DEV/" |
		grep -c " pid $srv "
}
wait_for 30 listening
ok $? "a persistent rping server listens on $ip:$PORT"

client() { # client COUNT OUTFILE: start an rping client in the background
	stdbuf -oL rping -c -a "$ip" -p "$PORT" -v -V -S 64 -C "$1" >"$2" 2>&1 &
	cli=$!
}

fail=0
for _ in $(seq "$SETUP_KILLS"); do
	client 0 /tmp/e2e-cli.out
	kill -9 "$cli"
	wait "$cli" 2>/dev/null
done
wait_for 30 test "$(extra_cm_ids)" -eq 0 || fail=1
[ "$fail" -eq 0 ] && kill -0 "$srv"
ok $? "$SETUP_KILLS clients killed during connection setup: no cm_id left but the listener ($(extra_cm_ids) extra), the server lives"

est=0
for _ in $(seq "$EST_KILLS"); do
	client 0 /tmp/e2e-cli.out
	if wait_for 60 grep -q 'ping data: rdma-ping-0:' /tmp/e2e-cli.out; then
		est=$((est + 1))
	fi
	kill -9 "$cli"
	wait "$cli" 2>/dev/null
done
ok $((est != EST_KILLS)) "$est of $EST_KILLS clients were killed with an established connection (after their first ping)"
# The server learns of each lost peer either from rdma_cm's DISCONNECTED
# event or from the flushed completions of its QP, whichever it handles
# first (rping tears the connection down on either, and a DISCONNECTED
# event still queued for a destroyed cm_id is dropped, so the count of
# "DISCONNECT EVENT" lines is not a count of connections).  What shows
# that it learned of every one: it holds no QP any more.
wait_for 60 test "$(server_qps)" -eq 0
ok $? "the server tore down every killed client's connection: it holds no QP ($(server_qps))"
diag "server: $(grep -c 'server DISCONNECT EVENT' /tmp/e2e-srv.out) DISCONNECT EVENT lines, $(grep -c 'cq completion' /tmp/e2e-srv.out) completion errors"
wait_for 30 test "$(extra_cm_ids)" -eq 0
ok $? "no cm_id left but the listener ($(extra_cm_ids) extra)"

client 20 /tmp/e2e-cli.out
timeout 120 tail --pid="$cli" -f /dev/null
wait "$cli"
rc=$?
[ "$rc" -eq 0 ] && [ "$(grep -c 'ping data: rdma-ping-' /tmp/e2e-cli.out)" -eq 20 ]
ok $? "a client afterwards completes 20 validated pings (status $rc)"

# The server side killed under an endless client.
client 0 /tmp/e2e-cli.out
wait_for 60 grep -q 'ping data: rdma-ping-0:' /tmp/e2e-cli.out
ok $? "an endless client is connected"
kill -9 "$srv"
wait "$srv" 2>/dev/null
timeout 60 tail --pid="$cli" -f /dev/null
ok $? "killing the server ends the client (it does not hang)"
grep -E 'DISCONNECT|error|fail' /tmp/e2e-cli.out | head -3 | sed 's/^/# /'
kill -9 "$cli" 2>/dev/null
wait "$cli" 2>/dev/null

wait_for 30 test -z "$(rdma resource show cm_id 2>/dev/null | grep -E "^link $ORCA_DEV/")"
ok $? "no cm_id of $ORCA_DEV is left"
leak_check "$before"
plan "$_tap_n"
done_testing
