#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The device's admin commands failing, one at a time, and one completing
# after the driver gave up on it.
#
# 1. progs/fail_nth.c in admin mode: orca_soft's fault_admin_nth fails
#    each admin command of a verbs call in turn, with no effect on the
#    device, as a device out of resources (status 3) or with an internal
#    error (status 9) would answer.  Each call fails with an errno or
#    succeeds; a destroy that fails succeeds when retried; every object
#    made goes, on the host (rdma resource show) and on the device (its
#    object counters) alike.  A destroy the device refuses twice
#    succeeds the second time, the object left on the device (until the
#    reload in part 2).
# 2. A late completion (fault_admin_hold_nth): a process with RDMA
#    WRITEs in flight is killed, and the device holds the first command
#    of its teardown until the driver has timed it out and declared the
#    admin queue dead.  The process still goes, the device keeps
#    executing its WRITEs into memory the driver must not have freed
#    (KASAN judges on the debug kernel), the held command then completes
#    into a dead queue, and the driver unloads and comes back whole.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

P=/sys/module/orca_soft/parameters
TIMEOUT=/sys/module/orca/parameters/admin_timeout_ms
ORCA_KO=$ORCA_KO_ROOT/drivers/orca/orca.ko
before=$(res_summary)

for status in 3 9; do
	echo $status >$P/fault_admin_status
	run_prog fail_nth "$ORCA_DEV" admin
	echo 0 >$P/fault_admin_nth
done
echo 3 >$P/fault_admin_status
leak_check "$before"

# A device that refuses the same destroy twice: the second refusal
# succeeds toward ib_core and the object stays on the device until the
# driver is reloaded below.
run_prog fail_nth "$ORCA_DEV" admin refuse-twice
echo 0 >$P/fault_admin_nth

# ---- 2: a completion after the queue is declared dead ----------------
dmesg -C
echo 1000 >"$TIMEOUT"
"$E2E_BIN/admin_hold" "$ORCA_DEV" busy >/tmp/hold.out 2>&1 &
busy=$!
wait_for 60 grep -qx ready /tmp/hold.out
ok $? "a process keeps 64 RDMA WRITEs of 64 KiB in flight on an RC pair"

echo 1 >$P/fault_admin_hold_nth
kill -KILL "$busy"
wait_for 60 grep -qx Y $P/fault_admin_held
ok $? "killed: the device holds the first admin command of its teardown"

queue_died() {
	dmesg | grep -q 'timed out after 1000 ms; admin queue is now dead'
}
wait_for 60 queue_died
ok $? "the driver times that command out and declares the admin queue dead"

wait "$busy" 2>/dev/null
[ $? -eq 137 ]
ok $? "the process is gone while the device still holds its command"

echo N >$P/fault_admin_held
timeout 120 rmmod orca
ok $? "released, the command completes into the dead queue; rmmod orca"

insmod "$ORCA_KO" && wait_for 30 port_is PORT_ACTIVE
ok $? "insmod orca: $ORCA_DEV is back and ACTIVE"
run_prog admin_hold "$ORCA_DEV" check
dmesg | grep orca | sed 's/^/# /'

leak_check "$before"
plan "$_tap_n"
done_testing
