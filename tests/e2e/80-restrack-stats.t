#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Visibility: while a process holds a PD, CQ, QP, SRQ, MR and AH on orca0,
# "rdma resource show" lists them (with the driver's details under -dd),
# and "rdma statistic show link orca0/1" reports the device's counters
# fetched with QUERY_STATS, which move as objects come and go.  Writing
# orca_soft's dump_state parameter logs the engine and that QP.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

LINK=$ORCA_DEV/1
# Every counter of struct orca_hw_stats, in its order.
COUNTERS="cmds_completed cmds_failed async_events async_events_dropped
pds mrs cqs qps srqs ahs tx_packets tx_bytes rx_packets rx_bytes
rx_drops rx_icrc_errors tx_drops retransmits ack_timeouts
rnr_naks_sent rnr_naks_rcvd seq_naks_sent seq_naks_rcvd
inv_req_naks_sent inv_req_naks_rcvd access_naks_sent access_naks_rcvd
op_naks_sent op_naks_rcvd duplicates out_of_sequence ud_drops"

# snapshot FILE: "rdma statistic show link orca0/1" into FILE, one word
# per line (each call costs a QUERY_STATS command and a netlink dump).
snapshot() {
	rdma statistic show link "$LINK" 2>/dev/null | tr ' ' '\n' >"$1"
}

# counter NAME FILE: the value of counter NAME in a snapshot.
counter() {
	sed -n "/^$1\$/{n;p;q}" "$2"
}

# words FILE: number of words in FILE.
words() {
	wc -w <"$1"
}

before=$(res_summary)

rdma statistic show link "$LINK" >/tmp/stat.out 2>&1
ok $? "rdma statistic show link $LINK"
sed 's/^/# /' /tmp/stat.out
snapshot /tmp/stat0.words
for c in $COUNTERS; do
	[[ "$(counter "$c" /tmp/stat0.words)" =~ ^[0-9]+$ ]]
	ok $? "counter $c is reported ($(counter "$c" /tmp/stat0.words))"
done
# No more and no fewer: a counter the driver reports and this list lacks
# is not checked above.
shown=$(awk '$1 == "link" { for (i = 3; i <= NF; i += 2) print $i }' /tmp/stat.out)
[ "$shown" = "$(tr -s ' \n' '\n' <<<"$COUNTERS")" ]
ok $? "the counters shown are COUNTERS, in order ($(wc -w <<<"$shown") of them)"

declare -A c0
for c in pds mrs cqs qps srqs ahs cmds_completed; do
	c0[$c]=$(counter "$c" /tmp/stat0.words)
done

rm -f /tmp/hold.fifo
mkfifo /tmp/hold.fifo
"$E2E_BIN/leak_loop" "$ORCA_DEV" hold </tmp/hold.fifo >/tmp/hold.out 2>&1 &
holder=$!
# Read-write: never blocks, and closing it gives the holder EOF.
exec 3<>/tmp/hold.fifo
wait_for 60 grep -q '^ready' /tmp/hold.out
ok $? "a process holds 4 PDs, a CQ, an RC QP, an SRQ, an MR and an AH"
sed 's/^/# /' /tmp/hold.out
read -r _ _ qpn _ _ _ _ _ pid </tmp/hold.out

# --- rdma resource show, while the objects exist ---
# A QP in RESET has no port yet: list all, not "link orca0/1".
rdma resource show qp >/tmp/res-qp.out 2>&1
grep -Eq "$ORCA_DEV/.* lqpn $qpn .*type RC .*pid $pid comm leak_loop" /tmp/res-qp.out
ok $? "rdma resource show qp lists the RC QP $qpn of pid $pid"
sed 's/^/# /' /tmp/res-qp.out

rdma -d resource show qp | grep " lqpn $qpn " >/tmp/res-qp-d.out 2>&1
rdma -dd resource show qp | grep " lqpn $qpn " >/tmp/res-qp-dd.out 2>&1
[ "$(words /tmp/res-qp-dd.out)" -gt "$(words /tmp/res-qp-d.out)" ]
ok $? "rdma -dd resource show qp adds the driver's details for QP $qpn"
sed 's/^/# -dd: /' /tmp/res-qp-dd.out

# --- orca_soft's state dump (what the data-path tests log on a stall) ---
echo "orca-e2e: restrack dump" >/dev/kmsg
echo 1 >/sys/module/orca_soft/parameters/dump_state
dmesg | sed -n '/orca-e2e: restrack dump$/,$p' >/tmp/dump.out
grep -Eq "orca_soft[0-9]+: engine: (asleep|awake), kicks [0-9]+ queued" /tmp/dump.out &&
	grep -Eq "orca_soft[0-9]+: qp $qpn type [0-9]+ state 0 .* sq 0/0/0x0 cons 0" /tmp/dump.out
ok $? "writing orca_soft's dump_state logs the engine and the held QP $qpn (in RESET, nothing posted)"
grep orca_soft /tmp/dump.out | sed 's/^/# /'

for obj in cq mr pd srq; do
	rdma resource show "$obj" >"/tmp/res-$obj.out" 2>&1
	grep -Eq "dev $ORCA_DEV .*pid $pid comm leak_loop" "/tmp/res-$obj.out"
	ok $? "rdma resource show $obj lists the held $obj"
	grep "dev $ORCA_DEV " "/tmp/res-$obj.out" | sed 's/^/# /'
done
[ "$(grep -c "dev $ORCA_DEV .*pid $pid comm leak_loop" /tmp/res-pd.out)" -eq 4 ]
ok $? "rdma resource show pd lists all 4 PDs of the process"

for obj in cq mr; do
	rdma -d resource show "$obj" >"/tmp/res-$obj-d.out" 2>&1
	rdma -dd resource show "$obj" >"/tmp/res-$obj-dd.out" 2>&1
	grep "pid $pid comm" "/tmp/res-$obj-d.out" >/tmp/res-d.line
	grep "pid $pid comm" "/tmp/res-$obj-dd.out" >/tmp/res-dd.line
	[ "$(words /tmp/res-dd.line)" -gt "$(words /tmp/res-d.line)" ]
	ok $? "rdma -dd resource show $obj adds the driver's details"
	sed "s/^/# -dd: /" /tmp/res-dd.line
done

# --- the device counters moved ---
snapshot /tmp/stat1.words
for c in pds cqs qps srqs mrs ahs; do
	want=1
	[ "$c" = pds ] && want=4
	now=$(counter "$c" /tmp/stat1.words)
	[ -n "$now" ] && [ -n "${c0[$c]}" ] && [ "$now" -ge $((c0[$c] + want)) ]
	ok $? "counter $c went from ${c0[$c]:-?} to ${now:-?} (+$want at least)"
done
now=$(counter cmds_completed /tmp/stat1.words)
[ -n "$now" ] && [ -n "${c0[cmds_completed]}" ] && [ "$now" -gt "${c0[cmds_completed]}" ]
ok $? "counter cmds_completed moved (${c0[cmds_completed]:-?} -> ${now:-?})"

exec 3>&-
wait "$holder"
ok $? "the process releases everything and exits 0"
leak_check "$before"
plan "$_tap_n"
done_testing
