#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A device that stops answering admin commands: the command times out,
# the driver declares the admin queue dead, later commands fail at once
# instead of waiting, and the driver still unbinds and rebinds cleanly.

. "$(dirname "$0")/lib.sh"

plan 7

ORCA_KO=$ORCA_KO_ROOT/drivers/orca/orca.ko
STALL=/sys/module/orca_soft/parameters/fault_stall_admin
TIMEOUT=/sys/module/orca/parameters/admin_timeout_ms

dmesg -C
echo 1000 >"$TIMEOUT"
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

echo 0 >"$STALL"
timeout 120 rmmod orca
ok $? "rmmod orca with a dead admin queue"

insmod "$ORCA_KO" && wait_for 30 test -e "/sys/class/infiniband/$ORCA_DEV"
ok $? "insmod orca resets the device and registers $ORCA_DEV again"

wait_for 30 port_is PORT_ACTIVE
ok $? "$ORCA_DEV answers again (ACTIVE)"

done_testing
