#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# RoCEv2 on the wire in one guest: two Orca functions on the two ends of
# a veth pair (orcaw0 on vw0, 10.77.0.1; orcaw1 on vw1, 10.77.0.2, in the
# network namespace orcapeer, so that each address is remote to the other
# side and ib_core resolves the peer's MAC address through ARP, as it
# would across hosts; the RDMA devices are shared by all namespaces, and
# the programs run in this one).
# Neither GID is the other function's own, so every packet between them
# leaves one port as an Ethernet frame and enters the other through its
# rx_handler: the transport (segmentation, ACKs, READ responses, atomics,
# UD datagrams), not the local fast path.  Then the same over a lossy
# link (netem drops 5% of each direction's frames): RC data must still
# verify, and the counters show the retransmissions that made it so.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-tools.sh"

TOOLS_PORT=30000
A=orcaw0
B=orcaw1
ITERS=200
SIZE=16384

link_up() {
	ibv_devinfo -d "$1" 2>/dev/null | grep -q 'state:[[:space:]]*PORT_ACTIVE'
}

# stat DEV NAME: one counter of DEV's "rdma statistic show".
stat() {
	rdma statistic show link "$1/1" 2>/dev/null |
		tr ' ' '\n' | awk -v n="$2" 'prev == n { print; exit } { prev = $0 }'
}

# gid_of DEV IPV4: the index of DEV port 1's RoCE v2 GID for IPV4.
gid_of() {
	local port=/sys/class/infiniband/$1/ports/1 a b c d want f idx
	IFS=. read -r a b c d <<<"$2"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
	for f in $(grep -lx "$want" "$port"/gids/* 2>/dev/null); do
		idx=${f##*/}
		[ "$(cat "$port/gid_attrs/types/$idx" 2>/dev/null)" = "RoCE v2" ] || continue
		echo "$idx"
		return 0
	done
	return 1
}

before=$(res_summary)
ip netns add orcapeer &&
	ip link add vw0 type veth peer name vw1 netns orcapeer &&
	ip addr add 10.77.0.1/24 dev vw0 &&
	ip -n orcapeer addr add 10.77.0.2/24 dev vw1 &&
	ip link set vw0 up && ip -n orcapeer link set vw1 up &&
	ip -n orcapeer link set lo up
ok $? "a veth pair vw0 (10.77.0.1) - vw1 (10.77.0.2, namespace orcapeer)"
rdma link add $A type orca netdev vw0 &&
	ip netns exec orcapeer rdma link add $B type orca netdev vw1
ok $? "rdma link add $A on vw0 and $B on vw1"
wait_for 30 link_up $A && wait_for 30 link_up $B
ok $? "both ports ACTIVE"
ga=''
gb=''
wait_for 30 gid_of $A 10.77.0.1 && wait_for 30 gid_of $B 10.77.0.2
ga=$(gid_of $A 10.77.0.1)
gb=$(gid_of $B 10.77.0.2)
[ -n "$ga" ] && [ -n "$gb" ]
ok $? "RoCE v2 GIDs for the IPv4 addresses ($A: ${ga:-none}, $B: ${gb:-none})"
ga=${ga:-0}
gb=${gb:-0}
mtu=$(tools_active_mtu $A)
mtu=${mtu:-1024}

tx0=$(stat $A tx_packets)

# pingpong NAME BYTES ITERS TOOL ARGS...: server on B, client on A.
pingpong() {
	local name=$1 bytes=$2 iters=$3 tool=$4 port=$TOOLS_PORT side file
	shift 4
	TOOLS_PORT=$((TOOLS_PORT + 1))
	tools_pair "$name" "$port" "$tool" -d $B -g "$gb" "$@" -p "$port" -- \
		"$tool" -d $A -g "$ga" "$@" -p "$port" 127.0.0.1
	diag "$name: $tool $* (server $B, client $A)"
	tools_point_status "$name"
	for side in server client; do
		file=$(tools_out "$side")
		grep -Eq "^$bytes bytes in [0-9.]+ seconds" "$file" &&
			grep -Eq "^$iters iters in [0-9.]+ seconds" "$file"
		ok $? "$name: $side reports $bytes bytes and $iters iters exchanged"
	done
	grep -q 'bytes in ' "$TP_SRV_OUT" && ! grep -q 'invalid data' "$TP_SRV_OUT"
	ok $? "$name: -c: the server found the client's data in every page"
}

# perf NAME TOOL ARGS...: perftest, server on B, client on A.
perf() {
	local name=$1 tool=$2 port=$TOOLS_PORT line
	shift 2
	TOOLS_PORT=$((TOOLS_PORT + 1))
	tools_pair "$name" "$port" "$tool" -d $B -x "$gb" "$@" -p "$port" -F -- \
		"$tool" -d $A -x "$ga" "$@" -p "$port" -F 127.0.0.1
	diag "$name: $tool $* (server $B, client $A)"
	tools_point_status "$name"
	line=$(tools_perftest_result "$(tools_out client)")
	[ -n "$line" ]
	ok $? "$name: the client reports a result"
	echo "# $name: $(echo "$line" | tr -s ' \t' ' ')"
}

common=(-n "$ITERS" -c)
pingpong rc-small $((1 * ITERS * 2)) "$ITERS" ibv_rc_pingpong "${common[@]}" -s 1 -m 1024
pingpong rc $((SIZE * ITERS * 2)) "$ITERS" ibv_rc_pingpong "${common[@]}" -s "$SIZE" -m 1024
pingpong uc $((SIZE * ITERS * 2)) "$ITERS" ibv_uc_pingpong "${common[@]}" -s "$SIZE" -m 1024
pingpong ud $((mtu * ITERS * 2)) "$ITERS" ibv_ud_pingpong "${common[@]}" -s "$mtu"
pingpong srq $((SIZE * ITERS * 2)) "$ITERS" ibv_srq_pingpong "${common[@]}" -s "$SIZE" -m 1024 -q 4

perf send-bw ib_send_bw -s 65536 -n 200
perf write-bw ib_write_bw -s 65536 -n 200
perf read-bw ib_read_bw -s 65536 -n 200
perf atomic-bw ib_atomic_bw -n 200
perf write-lat ib_write_lat -s 2 -n 200

tx1=$(stat $A tx_packets)
rx1=$(stat $B rx_packets)
[ "${tx1:-0}" -gt "${tx0:-0}" ] && [ "${rx1:-0}" -gt 0 ]
ok $? "$A counted packets sent (${tx0:-?} -> ${tx1:-?}), $B packets received (${rx1:-?})"
icrc=$(stat $B rx_icrc_errors)
[ "${icrc:-x}" = 0 ]
ok $? "$B: no ICRC errors on a clean link (${icrc:-?})"

# The same over a link that loses frames in both directions.
re0=$(stat $A retransmits)
tc qdisc add dev vw0 root netem loss 5% &&
	ip netns exec orcapeer tc qdisc add dev vw1 root netem loss 5%
ok $? "netem: vw0 and vw1 drop 5% of the frames they send"
pingpong lossy-rc $((SIZE * ITERS * 2)) "$ITERS" ibv_rc_pingpong "${common[@]}" -s "$SIZE" -m 1024
perf lossy-write-bw ib_write_bw -s 65536 -n 100
perf lossy-read-bw ib_read_bw -s 65536 -n 100
tc qdisc del dev vw0 root
ip netns exec orcapeer tc qdisc del dev vw1 root
re1=$(stat $A retransmits)
[ "${re1:-0}" -gt "${re0:-0}" ]
ok $? "$A retransmitted packets over the lossy link (retransmits ${re0:-?} -> ${re1:-?})"
for c in retransmits ack_timeouts seq_naks_sent seq_naks_rcvd duplicates out_of_sequence; do
	diag "$A $c $(stat $A $c), $B $c $(stat $B $c)"
done

rdma link delete $A && rdma link delete $B
ok $? "rdma link delete $A and $B"
ip link del vw0 && ip netns del orcapeer
ok $? "the veth pair and the namespace are removed"
leak_check "$before"
plan "$_tap_n"
done_testing
