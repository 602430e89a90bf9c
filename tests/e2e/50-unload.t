#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Either module can be unloaded while orca0 exists and a process has it
# open: the process gets IBV_EVENT_DEVICE_FATAL, nothing hangs, and the
# device comes back when the module returns.

. "$(dirname "$0")/lib.sh"

plan 12

ORCA_KO=$ORCA_KO_ROOT/drivers/orca/orca.ko
SOFT_KO=$ORCA_KO_ROOT/drivers/orca_soft/orca_soft.ko

dev_present() {
	[ -e "/sys/class/infiniband/$ORCA_DEV" ]
}

hold_device() {
	"$E2E_BIN/async_wait" -p -t 90 "$ORCA_DEV" DEVICE_FATAL >/tmp/hold.out 2>&1 &
	holder=$!
	wait_for 30 grep -q ready /tmp/hold.out
}

# --- the driver goes away, the function stays ---
hold_device
ok $? "a process holds $ORCA_DEV open with a PD"

timeout 120 rmmod orca
ok $? "rmmod orca while $ORCA_DEV is in use"

! dev_present
ok $? "$ORCA_DEV is gone"

wait "$holder"
ok $? "the process received DEVICE_FATAL and cleaned up"
sed 's/^/# /' /tmp/hold.out

test -e /sys/bus/auxiliary/devices/orca_soft.hca.0
ok $? "the Orca function orca_soft.hca.0 is still on the bus"

insmod "$ORCA_KO"
wait_for 30 dev_present
ok $? "insmod orca binds the function again and $ORCA_DEV returns"

wait_for 30 port_is PORT_ACTIVE
ok $? "$ORCA_DEV is ACTIVE again"

# --- the device goes away under the driver ---
hold_device
ok $? "a process holds $ORCA_DEV open with a PD"

timeout 120 rmmod orca_soft
ok $? "rmmod orca_soft while $ORCA_DEV is in use"

wait "$holder"
ok $? "the process received DEVICE_FATAL and cleaned up"
sed 's/^/# /' /tmp/hold.out

! dev_present
ok $? "$ORCA_DEV is gone"

insmod "$SOFT_KO" && rdma link add "$ORCA_DEV" type orca netdev "$ORCA_NETDEV" &&
	wait_for 30 port_is PORT_ACTIVE
ok $? "insmod orca_soft and rdma link add bring $ORCA_DEV back ACTIVE"

done_testing
