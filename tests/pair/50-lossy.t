#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A bad link, netem on eth1's egress.  First guest b duplicates 5% and
# reorders 10% (delay 1ms) of what it sends; RC must still deliver every
# byte in order, once:
#
#   rc-64k-lossy-b  ibv_rc_pingpong -c -s 65536 -m 1024 -n 10, server b
#   rc-64k-lossy-a  the same, server a: b's duplicated, reordered ones
#   rping-lossy     rping -V -C 100 (server a): every payload validated
#
# Then guest a also drops 5% of what it sends, and perftest moves data
# across the dropping egress (ib_write_bw and ib_send_bw from a,
# ib_read_bw responses from a).  The pingpongs and rping do not run on a
# dropping link: their client leaves as soon as it has the last message,
# without waiting for the ACK of the server's last message (or the server
# for the client's), so a lost last ACK ends in RETRY_EXC_ERR on any RDMA
# device.  perftest waits for every completion and meets its peer over
# TCP before either side destroys its QP.  tests/e2e/310-wire-lossy.t
# checks every byte over a dropping link, with both ends in one process.
#
# Then: netem on a really dropped packets (its qdisc counts drops), and
# the qdiscs are removed again.
# pair-timeout: 900

. "$(dirname "$0")/lib-pair.sh"

if is_role a; then
	NETEM=(delay 0ms)
else
	NETEM=(delay 1ms reorder 90% duplicate 5%)
fi

gidx=$(pair_gid_index)
ok $? "$ORCA_DEV has a RoCE v2 GID for eth1's $ORCA_SELF_IP (index ${gidx:-none})"
gidx=${gidx:-0}

modprobe sch_netem && tc qdisc add dev eth1 root netem "${NETEM[@]}" &&
	tc qdisc show dev eth1 | grep -q 'qdisc netem'
ok $? "tc qdisc add dev eth1 root netem ${NETEM[*]}"
tc qdisc show dev eth1 | sed 's/^/# /'
pair_sync netem-on >/dev/null
ok $? "both guests have their netem qdisc in place"

c=(-d "$ORCA_DEV" -g "$gidx" -c -s 65536 -m 1024 -n 10)
pair_pingpong rc-64k-lossy-b b $((65536 * 10 * 2)) 10 ibv_rc_pingpong "${c[@]}"
pair_pingpong rc-64k-lossy-a a $((65536 * 10 * 2)) 10 ibv_rc_pingpong "${c[@]}"

TOOLS_READY=cm_listening
P=$TOOLS_PORT
before=$(res_summary)
pair_tool rping-lossy a cm_listening $P rping -s -a "$ORCA_SELF_IP" -p $P -V -C 100 -S 64 -- \
	stdbuf -oL rping -c -a "$ORCA_PEER_IP" -p $P -V -v -C 100 -S 64
pair_status_point rping-lossy
if [ "$TP_SIDE" = client ]; then
	pings=$(grep -oE 'ping data: rdma-ping-[0-9]+:' "$TP_OUT" | sort -u | wc -l)
	[ "$pings" -eq 100 ] && ! grep -q 'data mismatch' "$TP_OUT"
	ok $? "rping-lossy: the client validated 100 distinct pings ($pings), no data mismatch"
fi
pair_leak_point rping-lossy "$before"

# The dropping egress on a, then perftest across it.
if is_role a; then
	tc qdisc change dev eth1 root netem loss 5%
	ok $? "tc qdisc change dev eth1 root netem loss 5%"
fi
pair_sync netem-loss >/dev/null
ok $? "both guests are ready for the dropping link"
c=(-d "$ORCA_DEV" -x "$gidx")
pair_perftest write-bw-lossy b bw 65536 50 0 client tools_listening ib_write_bw "${c[@]}"
pair_perftest send-bw-lossy b bw 65536 50 1 client tools_listening ib_send_bw "${c[@]}"
pair_perftest read-bw-lossy a bw 65536 50 0 server tools_listening ib_read_bw "${c[@]}"
tc -s qdisc show dev eth1 | sed 's/^/# /'
if is_role a; then
	drops=$(tc -s qdisc show dev eth1 | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1)
	[ "${drops:-0}" -gt 0 ]
	ok $? "netem on a dropped packets while the tests ran (${drops:-none})"
fi
pair_sync netem-done >/dev/null
tc qdisc del dev eth1 root && ! tc qdisc show dev eth1 | grep -q netem
ok $? "tc qdisc del dev eth1 root: the netem qdisc is gone"

plan "$_tap_n"
done_testing
