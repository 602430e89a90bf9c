#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Teardown under traffic on the wire (issue 10, item 6): ib_write_bw -b
# (perftest, RDMA WRITEs both ways at once) runs between orcaw0 and
# orcaw1 on the veth pair of lib-wire.sh, and while packets are in
# flight in both directions one end goes away:
#   - the server process is SIGKILLed (its QP is destroyed by the close);
#   - its netdev goes down;
#   - its function is deleted (rdma link delete);
#   - orca.ko is unloaded, then orca_soft.ko.
# Each time nothing hangs: the operation returns, a side whose peer went
# away ends with a failed completion (the retries run out: the peer's QP
# is gone, or no frame gets through), no process is left running and no
# perftest QP or MR is left on either device.  The harness fails the run
# on any kernel report (KASAN, lockdep, WARN) and checks that the
# modules unload at the end.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-tools.sh"
. "$(dirname "$0")/lib-wire.sh"

TOOLS_PORT=31500
ORCA_KO=$ORCA_KO_ROOT/drivers/orca/orca.ko
SOFT_KO=$ORCA_KO_ROOT/drivers/orca_soft/orca_soft.ko
# perftest's own run time: far longer than any step here, so that a
# process that ends before it did so because of the teardown.
RUN_S=300
# How long a process may take to notice: the retries of perftest's QPs
# (timeout 14: 67 ms, 7 retries) take about a second; the rest is margin
# for a slow guest, not a measure.
GONE_S=120

before=$(res_summary)
wire_setup orca
A=$WIRE_A
B=$WIRE_B

# user_objs DEV: QPs and MRs of perftest processes on DEV in ib_core's
# resource tracking.
user_objs() {
	rdma resource show qp 2>/dev/null | grep -E "^link $1/" | grep -c 'comm ib_write_bw'
	rdma resource show mr 2>/dev/null | grep -E "^dev $1 " | grep -c 'comm ib_write_bw'
}

no_user_objs() {
	[ "$(user_objs "$1" | awk '{ n += $1 } END { print n + 0 }')" -eq 0 ]
}

# traffic NAME: start ib_write_bw -b, server on B and client on A, and
# wait until frames flow both ways (each device's tx_packets grew by
# 200).  Sets SRV and CLI (pids) and SRV_OUT, CLI_OUT.
traffic() {
	local port=$TOOLS_PORT a0 b0
	TOOLS_PORT=$((TOOLS_PORT + 1))
	SRV_OUT=/tmp/td-$1.server
	CLI_OUT=/tmp/td-$1.client
	ib_write_bw -d $B -x "$WIRE_GB" -b -D $RUN_S -s 65536 -p $port -F \
		>"$SRV_OUT" 2>&1 &
	SRV=$!
	wait_for 60 tools_listening $port
	a0=$(wire_stat $A tx_packets)
	b0=$(wire_stat $B tx_packets)
	ib_write_bw -d $A -x "$WIRE_GA" -b -D $RUN_S -s 65536 -p $port -F 127.0.0.1 \
		>"$CLI_OUT" 2>&1 &
	CLI=$!
	flowing() {
		[ "$(wire_stat $A tx_packets)" -ge $((a0 + 200)) ] &&
			[ "$(wire_stat $B tx_packets)" -ge $((b0 + 200)) ]
	}
	wait_for 90 flowing
	ok $? "$1: ib_write_bw -b between $A and $B: frames flow both ways"
}

# ends PID SECONDS: wait up to SECONDS for PID to exit; sets END to its
# exit status, or to "running" (and kills it) if it had not.
ends() {
	local pid=$1 deadline=$(($(date +%s) + $2))
	while kill -0 "$pid" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		END=running
		return
	fi
	END=0
	wait "$pid" || END=$?
}

# failed NAME SIDE STATUS: SIDE ended by itself with a non-zero status.
failed() {
	[ "$3" != running ] && [ "$3" -ne 0 ]
	ok $? "$1: the $2 ended with an error (exit status $3), not a hang"
	if [ "$3" = running ] || [ "$3" -eq 0 ]; then
		local f=$CLI_OUT
		[ "$2" = server ] && f=$SRV_OUT
		tail -n 15 "$f" | sed "s/^/# $1 $2: /"
		wire_counters
	else
		grep -m2 -iE 'error|fail' "$( [ "$2" = server ] && echo "$SRV_OUT" || echo "$CLI_OUT")" |
			sed "s/^/# $1 $2: /"
	fi
}

# stopped NAME SIDE STATUS: SIDE is no longer running (however it ended).
stopped() {
	[ "$3" != running ]
	ok $? "$1: the $2 is no longer running (exit status $3)"
}

# stop_both NAME: both processes lost their device: SIGTERM ends them
# (neither is stuck in the kernel).
stop_both() {
	local p
	for p in $SRV $CLI; do
		kill "$p" 2>/dev/null
	done
	ends "$CLI" 30
	stopped "$1" client "$END"
	ends "$SRV" 30
	stopped "$1" server "$END"
}

clean() {
	wait_for 30 no_user_objs $A && wait_for 30 no_user_objs $B
	ok $? "$1: no QP or MR of ib_write_bw left on $A or $B ($(user_objs $A | paste -sd/), $(user_objs $B | paste -sd/))"
}

qps_a=$(wire_stat $A qps)
qps_b=$(wire_stat $B qps)

# ---- the server process is killed ------------------------------------------
traffic kill
kill -9 $SRV
wait $SRV 2>/dev/null
ends $CLI $GONE_S
failed kill client "$END"
clean kill
[ "$(wire_stat $A qps)" = "$qps_a" ] && [ "$(wire_stat $B qps)" = "$qps_b" ]
ok $? "kill: the devices hold as many QPs as before ($A $(wire_stat $A qps), $B $(wire_stat $B qps))"

# ---- the server's netdev goes down ------------------------------------------
traffic link-down
wire_peer ip link set vw1 down
ok $? "link-down: ip link set vw1 down under traffic returns"
ends $CLI $GONE_S
failed link-down client "$END"
ends $SRV $GONE_S
failed link-down server "$END"
clean link-down
wire_peer ip link set vw1 up &&
	wait_for 60 wire_link_up $B
ok $? "link-down: vw1 up again, $B ACTIVE"
wire_perf after-link-down ib_write_bw -s 4096 -n 200

# ---- the server's function is deleted ---------------------------------------
traffic delete
timeout 120 rdma link delete $B
ok $? "delete: rdma link delete $B under traffic returns and succeeds"
[ ! -e /sys/class/infiniband/$B ]
ok $? "delete: $B is gone"
ends $CLI $GONE_S
failed delete client "$END"
# The server's device is gone under it (DEVICE_FATAL; perftest does not
# read async events): however it ends, it must end, and its objects go
# with the device.
kill $SRV 2>/dev/null
ends $SRV 30
stopped delete server "$END"
wait_for 30 no_user_objs $A
ok $? "delete: no QP or MR of ib_write_bw left on $A"
wire_peer rdma link add $B type orca netdev vw1 &&
	wait_for 30 wire_link_up $B && wait_for 30 wire_gid $B $WIRE_IP_B
ok $? "delete: rdma link add $B again, ACTIVE"
WIRE_GB=$(wire_gid $B $WIRE_IP_B)

# ---- orca.ko is unloaded ------------------------------------------------------
traffic rmmod-orca
timeout 120 rmmod orca
ok $? "rmmod-orca: rmmod orca under traffic returns and succeeds"
stop_both rmmod-orca
insmod "$ORCA_KO" &&
	wait_for 60 wire_link_up $A && wait_for 60 wire_link_up $B &&
	wait_for 60 port_is PORT_ACTIVE
ok $? "rmmod-orca: insmod orca brings $ORCA_DEV, $A and $B back ACTIVE"
wait_for 30 wire_gid $A $WIRE_IP_A && wait_for 30 wire_gid $B $WIRE_IP_B
WIRE_GA=$(wire_gid $A $WIRE_IP_A)
WIRE_GB=$(wire_gid $B $WIRE_IP_B)
wire_perf after-rmmod ib_write_bw -s 4096 -n 200

# ---- orca_soft.ko is unloaded ------------------------------------------------
traffic rmmod-soft
timeout 120 rmmod orca orca_soft
ok $? "rmmod-soft: rmmod orca orca_soft under traffic returns and succeeds"
stop_both rmmod-soft
[ ! -e /sys/class/infiniband/$A ] && [ ! -e /sys/class/infiniband/$B ]
ok $? "rmmod-soft: $A and $B are gone"
insmod "$SOFT_KO" && insmod "$ORCA_KO" &&
	rdma link add "$ORCA_DEV" type orca netdev "$ORCA_NETDEV" &&
	wait_for 30 port_is PORT_ACTIVE
ok $? "rmmod-soft: insmod orca_soft and orca, rdma link add $ORCA_DEV: ACTIVE again"

ip netns del orcapeer && ! ip link show vw0 >/dev/null 2>&1
ok $? "wire: the namespace and the veth pair are gone"

leak_check "$before"
plan "$_tap_n"
done_testing
