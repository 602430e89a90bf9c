#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# RoCEv2 on a lossy wire in one guest: two Orca functions on a veth pair
# (lib-wire.sh), each end dropping 5% of the frames it sends (netem).
# RC must still deliver every byte intact (go-back-N on PSN sequence
# NAKs, gaps in READ responses and the ACK timeout), and the counters
# show how.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-tools.sh"
. "$(dirname "$0")/lib-wire.sh"

TOOLS_PORT=30500

before=$(res_summary)
wire_setup orca
A=$WIRE_A
B=$WIRE_B
ga=$WIRE_GA
gb=$WIRE_GB

re0=$(wire_stat $A retransmits)

# Every byte checked (progs/wire_verify.c): SENDs both ways, WRITEs,
# READs and atomics, 1 byte to 64 KiB, with both ends in one process, so
# that no QP goes away before its peer's last ACK (unlike
# ibv_rc_pingpong, whose client leaves before the ACK of the server's
# last message: over a lossy link that ends in RETRY_EXC_ERR on any RDMA
# device).
tc qdisc add dev vw0 root netem loss 5% &&
	wire_peer tc qdisc add dev vw1 root netem loss 5%
ok $? "netem: vw0 and vw1 drop 5% of the frames they send"
run_prog wire_verify $A "$ga" $B "$gb" 60
tc qdisc del dev vw0 root
wire_peer tc qdisc del dev vw1 root

# perftest waits for every completion and then meets its peer over TCP
# before either side destroys its QP: both directions may lose frames.
tc qdisc add dev vw0 root netem loss 5% &&
	wire_peer tc qdisc add dev vw1 root netem loss 5%
ok $? "netem: vw0 and vw1 drop 5% of the frames they send"
wire_perf lossy-write-bw ib_write_bw -s 65536 -n 50
wire_perf lossy-read-bw ib_read_bw -s 65536 -n 50
wire_perf lossy-send-bw ib_send_bw -s 65536 -n 50
tc qdisc del dev vw0 root
wire_peer tc qdisc del dev vw1 root
re1=$(wire_stat $A retransmits)
[ "${re1:-0}" -gt "${re0:-0}" ]
ok $? "$A retransmitted packets over the lossy links (retransmits ${re0:-?} -> ${re1:-?})"
wire_counters

wire_teardown
leak_check "$before"
plan "$_tap_n"
done_testing
