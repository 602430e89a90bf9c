#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make soak: RoCEv2 over a bad link, long (issue 10, item 5).  The veth
# pair of the wire tests (tests/e2e/lib-wire.sh), Orca against Orca and
# then Orca against Soft-RoCE (rxe), and for each pairing five links in
# turn: 1% loss, 10% loss, 5% duplication, reordering (a quarter of the
# frames sent at once, the rest 2 ms late) and 1% corruption (one
# flipped bit: the ICRC must catch it, or the IP or UDP checksum first).
# On each link progs/wire_verify.c runs SOAK_WIRE_ITERS iterations
# (default 4000) of five messages (a SEND each way, an RDMA WRITE, an
# RDMA READ, a FETCH_ADD; 1 byte to 64 KiB) with every byte checked:
# 100,000 messages a pairing by default.  Then a UD flood (ib_send_bw -c
# UD for 10 s) over a link that loses 10% each way.
#
# netem runs on both ends, except for 10% loss: there vw0 drops 10% of
# what it sends for half the iterations, then vw1 for the other half.
# With 10% on both ends, an attempt of a one-packet operation (the
# request or its ACK lost) fails with probability 1 - 0.9^2 = 0.19, and
# wire_verify does one operation at a time, so only the ACK timer
# recovers it.  IBTA allows at most 7 retries (retry_cnt 7; Soft-RoCE
# 6.1 treats 7 as "forever", which IBTA reserves for rnr_retry), and
# eight failed attempts in a row have probability 0.19^8 = 1.7e-6 per
# operation: over 100,000 messages and the timeouts of multi-packet
# tails, a correct device would fail the run more than once in twenty
# (this is how both pairings failed on a busy host in the first full
# soak, 2026-11-26).  One lossy end gives 0.1^8 = 1e-8 an operation.
#
# Run by tests/soak/run-soak.sh (SOAK_PARTS=wire), in one stock-kernel
# guest.

. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/lib-prog.sh"
. "$(dirname "$0")/../e2e/lib-tools.sh"
. "$(dirname "$0")/../e2e/lib-wire.sh"

iters=${SOAK_WIRE_ITERS:-4000}
TOOLS_PORT=32000
diag "iterations a link: $iters (5 messages each)"

# ENDS:NETEM, ENDS being both, vw0 or vw1 (half the iterations each).
links=(
	"both:loss 1%"
	"vw0:loss 10%"
	"vw1:loss 10%"
	"both:duplicate 5%"
	"both:delay 2ms reorder 25% 50%"
	"both:corrupt 1%"
)

# in_ns_of DEV CMD...: run CMD in the namespace that holds DEV (with
# rxe, vw0 is the one in orcapeer; see wire_setup).
in_ns_of() {
	local dev=$1
	shift
	if ip link show "$dev" >/dev/null 2>&1; then
		"$@"
	else
		wire_peer "$@"
	fi
}

before=$(res_summary)
for kind in orca rxe; do
	wire_setup $kind
	ga=$WIRE_GA
	gb=$WIRE_GB
	for entry in "${links[@]}"; do
		ends=${entry%%:*}
		link=${entry#*:}
		n=$iters
		devs=(vw0 vw1)
		if [ "$ends" != both ]; then
			devs=("$ends")
			n=$(((iters + 1) / 2))
		fi
		rc=0
		for d in "${devs[@]}"; do
			# shellcheck disable=SC2086 # the netem arguments are words
			in_ns_of "$d" tc qdisc add dev "$d" root netem $link || rc=1
		done
		ok $rc "$kind: netem $link on ${devs[*]}"
		t0=$(date +%s)
		run_prog wire_verify $WIRE_A "$ga" $WIRE_B "$gb" "$n"
		diag "$kind, netem $link on ${devs[*]}: $n iterations in $(($(date +%s) - t0)) s"
		wire_counters
		for d in "${devs[@]}"; do
			in_ns_of "$d" tc qdisc del dev "$d" root
		done
	done
	# A UD flood under 10% loss loses datagrams, nothing else: both
	# sides run their time (perftest's duration mode: a UD receiver
	# cannot wait for a count that loss makes unreachable) and exit 0.
	in_ns_of vw0 tc qdisc add dev vw0 root netem loss 10% &&
		in_ns_of vw1 tc qdisc add dev vw1 root netem loss 10%
	ok $? "$kind: netem loss 10% on vw0 and vw1 for a UD flood"
	TOOLS_PORT=$((TOOLS_PORT + 10))
	wire_perf "$kind-ud-flood" ib_send_bw -c UD -s 1024 -D 10
	in_ns_of vw0 tc qdisc del dev vw0 root
	in_ns_of vw1 tc qdisc del dev vw1 root

	icrc=$(wire_stat $WIRE_A rx_icrc_errors)
	[ "${icrc:-0}" -gt 0 ]
	ok $? "$kind: $WIRE_A counted the corrupted frames the ICRC caught (rx_icrc_errors ${icrc:-?})"
	wire_teardown
	WIRE_A=orcaw0
	WIRE_B=orcaw1
done
leak_check "$before"
plan "$_tap_n"
done_testing
