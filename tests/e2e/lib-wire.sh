# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Two Orca functions joined by a wire in one guest (tests/e2e/3??-wire-*.t):
# a veth pair vw0 (10.77.0.1, fd77::1) - vw1 (10.77.0.2, fd77::2), vw1 in the network
# namespace orcapeer so that each address is remote to the other side
# and ib_core resolves the peer's MAC address through ARP, as it does
# across hosts.  WIRE_A (orcaw0) sits on vw0, WIRE_B on vw1 (orcaw1, or
# an rxe device with wire_setup rxe).  The RDMA devices are visible in
# every namespace; programs that bind an IP address of vw1 (rdma_cm
# servers) run in orcapeer (wire_peer), the others anywhere.
# Source after lib.sh.

WIRE_A=orcaw0
WIRE_B=orcaw1
WIRE_IP_A=10.77.0.1
WIRE_IP_B=10.77.0.2
WIRE_IP6_A=fd77::1
WIRE_IP6_B=fd77::2

wire_link_up() {
	ibv_devinfo -d "$1" 2>/dev/null | grep -q 'state:[[:space:]]*PORT_ACTIVE'
}

# wire_gid DEV IPV4: the index of DEV port 1's RoCE v2 GID for IPV4.
wire_gid() {
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

# wire_gid6 DEV GIDSTRING: the index of DEV port 1's RoCE v2 GID written
# as GIDSTRING (eight groups of four hex digits).
wire_gid6() {
	local port=/sys/class/infiniband/$1/ports/1 f idx
	for f in $(grep -lx "$2" "$port"/gids/* 2>/dev/null); do
		idx=${f##*/}
		[ "$(cat "$port/gid_attrs/types/$idx" 2>/dev/null)" = "RoCE v2" ] || continue
		echo "$idx"
		return 0
	done
	return 1
}

# wire_stat DEV NAME: one counter of DEV's "rdma statistic show".
wire_stat() {
	rdma statistic show link "$1/1" 2>/dev/null |
		tr ' ' '\n' | awk -v n="$2" 'prev == n { print; exit } { prev = $0 }'
}

# wire_counters: both devices' wire counters, as TAP comments (after a
# failure, to tell a lost packet from a stuck queue).
wire_counters() {
	local d c line
	for d in $WIRE_A $WIRE_B; do
		line=''
		for c in tx_packets rx_packets tx_drops rx_drops retransmits ack_timeouts \
			seq_naks_sent seq_naks_rcvd rnr_naks_sent rnr_naks_rcvd duplicates \
			out_of_sequence rx_icrc_errors; do
			line="$line $c $(wire_stat "$d" $c)"
		done
		diag "$d:$line"
	done
	wire_dump
}

# wire_dump: orca_soft's view of its engines and QPs (its dump_state
# parameter), from the kernel log, as TAP comments.
_wire_dumps=0
wire_dump() {
	local dump=/sys/module/orca_soft/parameters/dump_state
	local mark="orca-e2e: wire dump $$.$((++_wire_dumps))"

	[ -w "$dump" ] || return 0
	echo "$mark" >/dev/kmsg
	echo 1 >"$dump"
	dmesg | sed -n "/$mark\$/,\$p" | grep 'orca_soft[0-9]*: ' | head -n 60 |
		sed 's/^/kernel: /' | while IFS= read -r line; do diag "$line"; done
}

# wire_perf NAME TOOL ARGS...: perftest TOOL, server on WIRE_B, client on
# WIRE_A (connecting over TCP to 127.0.0.1); both must exit 0 and the
# client print a result line.
wire_perf() {
	local name=$1 tool=$2 port=$TOOLS_PORT line
	shift 2
	TOOLS_PORT=$((TOOLS_PORT + 1))
	tools_pair "$name" "$port" "$tool" -d $WIRE_B -x "$WIRE_GB" "$@" -p "$port" -F -- \
		"$tool" -d $WIRE_A -x "$WIRE_GA" "$@" -p "$port" -F 127.0.0.1
	diag "$name: $tool $* (server $WIRE_B, client $WIRE_A)"
	tools_point_status "$name"
	[ "$TP_SRV_RC" -eq 0 ] && [ "$TP_CLI_RC" -eq 0 ] || wire_counters
	line=$(tools_perftest_result "$(tools_out client)")
	[ -n "$line" ]
	ok $? "$name: the client reports a result"
	echo "# $name: $(echo "$line" | tr -s ' \t' ' ')"
}

# wire_peer CMD...: run CMD in vw1's namespace.
wire_peer() {
	ip netns exec orcapeer "$@"
}

# wire_setup [rxe]: the veth pair, the namespace and the two devices, as
# TAP points; sets WIRE_GA and WIRE_GB (GID indexes).  With rxe, WIRE_B is
# rxe0 on vw1 and vw0 goes into the namespace instead, because rxe only
# receives in the initial namespace.
wire_setup() {
	local kind=${1:-orca} a_ns=() b_ns=(ip netns exec orcapeer) d
	if [ "$kind" = rxe ]; then
		WIRE_B=rxew1
		a_ns=(ip netns exec orcapeer)
		b_ns=()
	fi
	# What a .t killed at its time limit left behind.
	for d in orcaw0 orcaw1 rxew1; do
		rdma link delete "$d" 2>/dev/null
	done
	ip netns del orcapeer 2>/dev/null
	ip link del vw0 2>/dev/null
	ip link del vw1 2>/dev/null
	ip netns add orcapeer &&
		ip link add vw0 type veth peer name vw1 &&
		if [ "$kind" = rxe ]; then
			ip link set vw0 netns orcapeer
		else
			ip link set vw1 netns orcapeer
		fi &&
		"${a_ns[@]}" ip addr add $WIRE_IP_A/24 dev vw0 &&
		"${b_ns[@]}" ip addr add $WIRE_IP_B/24 dev vw1 &&
		"${a_ns[@]}" ip -6 addr add $WIRE_IP6_A/64 dev vw0 nodad &&
		"${b_ns[@]}" ip -6 addr add $WIRE_IP6_B/64 dev vw1 nodad &&
		"${a_ns[@]}" ip link set vw0 up && "${b_ns[@]}" ip link set vw1 up &&
		ip -n orcapeer link set lo up
	ok $? "wire: veth pair vw0 ($WIRE_IP_A) - vw1 ($WIRE_IP_B), one end in namespace orcapeer"
	# Each side learns the other's MAC now, on a clean link: ib_core
	# resolves a QP's destination MAC from the neighbour tables, and a
	# .t that then puts netem loss on the link must not depend on an
	# ARP or ND exchange getting through it.
	"${a_ns[@]}" busybox ping -q -c 1 -W 10 $WIRE_IP_B >/dev/null &&
		"${a_ns[@]}" busybox ping -q -6 -c 1 -W 10 $WIRE_IP6_B >/dev/null
	ok $? "wire: vw0 and vw1 know each other's MAC (ping over IPv4 and IPv6)"
	if [ "$kind" = rxe ]; then
		modprobe rdma_rxe &&
			"${a_ns[@]}" rdma link add $WIRE_A type orca netdev vw0 &&
			rdma link add $WIRE_B type rxe netdev vw1
	else
		rdma link add $WIRE_A type orca netdev vw0 &&
			"${b_ns[@]}" rdma link add $WIRE_B type orca netdev vw1
	fi
	ok $? "wire: rdma link add $WIRE_A (orca) on vw0 and $WIRE_B ($kind) on vw1"
	wait_for 30 wire_link_up $WIRE_A && wait_for 30 wire_link_up $WIRE_B
	ok $? "wire: both ports ACTIVE"
	WIRE_GA=''
	WIRE_GB=''
	wait_for 30 wire_gid $WIRE_A $WIRE_IP_A && wait_for 30 wire_gid $WIRE_B $WIRE_IP_B
	WIRE_GA=$(wire_gid $WIRE_A $WIRE_IP_A)
	WIRE_GB=$(wire_gid $WIRE_B $WIRE_IP_B)
	[ -n "$WIRE_GA" ] && [ -n "$WIRE_GB" ]
	ok $? "wire: RoCE v2 GIDs of the IPv4 addresses ($WIRE_A: ${WIRE_GA:-none}, $WIRE_B: ${WIRE_GB:-none})"
	WIRE_GA=${WIRE_GA:-0}
	WIRE_GB=${WIRE_GB:-0}
	WIRE_G6A=''
	WIRE_G6B=''
	wait_for 30 wire_gid6 $WIRE_A fd77:0000:0000:0000:0000:0000:0000:0001 &&
		wait_for 30 wire_gid6 $WIRE_B fd77:0000:0000:0000:0000:0000:0000:0002
	WIRE_G6A=$(wire_gid6 $WIRE_A fd77:0000:0000:0000:0000:0000:0000:0001)
	WIRE_G6B=$(wire_gid6 $WIRE_B fd77:0000:0000:0000:0000:0000:0000:0002)
	[ -n "$WIRE_G6A" ] && [ -n "$WIRE_G6B" ]
	ok $? "wire: RoCE v2 GIDs of the IPv6 addresses ($WIRE_A: ${WIRE_G6A:-none}, $WIRE_B: ${WIRE_G6B:-none})"
	WIRE_G6A=${WIRE_G6A:-0}
	WIRE_G6B=${WIRE_G6B:-0}
}

# wire_teardown: both devices, the pair and the namespace.
wire_teardown() {
	rdma link delete $WIRE_A && rdma link delete $WIRE_B
	ok $? "wire: rdma link delete $WIRE_A and $WIRE_B"
	ip netns del orcapeer && ! ip link show vw0 >/dev/null 2>&1
	ok $? "wire: the namespace and the veth pair are gone"
}
