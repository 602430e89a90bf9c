#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A device that stops answering admin commands: the command times out,
# the driver declares the admin queue dead, later commands fail at once
# instead of waiting, a user holding a PD gets IBV_EVENT_DEVICE_FATAL and
# leaves nothing behind, and the driver still unbinds and rebinds
# cleanly.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

plan 10

ORCA_KO=$ORCA_KO_ROOT/drivers/orca/orca.ko
STALL=/sys/module/orca_soft/parameters/fault_stall_admin
TIMEOUT=/sys/module/orca/parameters/admin_timeout_ms

before=$(res_summary)
dmesg -C
echo 1000 >"$TIMEOUT"
"$E2E_BIN/async_wait" -p -t 60 "$ORCA_DEV" DEVICE_FATAL >/tmp/fatal.out 2>&1 &
holder=$!
wait_for 30 grep -qx ready /tmp/fatal.out
ok $? "a user opens $ORCA_DEV, allocates a PD and waits for async events"
echo 1 >"$STALL"

! timeout 60 ibv_devinfo -d "$ORCA_DEV" >/dev/null 2>&1
ok $? "a query on the stalled device fails instead of hanging"

dmesg | grep -q 'admin command QUERY_PORT .* timed out after 1000 ms; admin queue is now dead'
ok $? "the driver reports the timeout and the dead queue"
dmesg | grep orca | sed 's/^/# /'

! timeout 60 ibv_devinfo -d "$ORCA_DEV" >/dev/null 2>&1
ok $? "a later query fails too"

[ "$(dmesg | grep -c 'timed out after')" -eq 1 ]
ok $? "the later query failed at once: no second timeout"

wait "$holder"
ok $? "the user got IBV_EVENT_DEVICE_FATAL, freed its PD and closed the device"
sed 's/^/# /' /tmp/fatal.out
# Only ib_core's side: the device counters need an admin command.
after=$(res_summary)
[ "${after%%;*}" = "${before%%;*}" ]
ok $? "rdma resource show: the user's PD and context are gone (${after%%;*})"

echo 0 >"$STALL"
timeout 120 rmmod orca
ok $? "rmmod orca with a dead admin queue"

insmod "$ORCA_KO" && wait_for 30 test -e "/sys/class/infiniband/$ORCA_DEV"
ok $? "insmod orca resets the device and registers $ORCA_DEV again"

wait_for 30 port_is PORT_ACTIVE
ok $? "$ORCA_DEV answers again (ACTIVE)"

done_testing
