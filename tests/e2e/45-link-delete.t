#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "rdma link delete orca0" removes the device and its Orca function, idle
# or with users attached, and "rdma link add" creates it again.  orca.ko
# allows user unregistration (IBK_ALLOW_USER_UNREG) because the function
# can be detached: after ib_core has unregistered orca0 (every user
# context told DEVICE_FATAL and disassociated, every object destroyed),
# orca.ko stops the function and writes CTRL.DETACH, and orca_soft
# removes the auxiliary device, which unbinds orca.ko.

. "$(dirname "$0")/lib.sh"

dev_present() {
	[ -e "/sys/class/infiniband/$ORCA_DEV" ]
}

dev_gone() {
	! dev_present
}

# The auxiliary device orca0 sits on, e.g. orca_soft.hca.0.
function_of() {
	basename "$(readlink -f "/sys/class/infiniband/$ORCA_DEV/device")"
}

# delete_and_check WHAT: delete orca0, which must take its function with it.
delete_and_check() {
	local what=$1 fn
	fn=$(function_of)
	timeout 120 rdma link delete "$ORCA_DEV" >/tmp/e2e-del.out 2>&1
	ok $? "$what: rdma link delete $ORCA_DEV succeeds"
	sed 's/^/# /' /tmp/e2e-del.out
	wait_for 30 dev_gone
	ok $? "$what: $ORCA_DEV is gone"
	wait_for 30 test ! -e "/sys/bus/auxiliary/devices/$fn"
	ok $? "$what: its function $fn is gone from the auxiliary bus"
	! rdma link show 2>/dev/null | grep -q "link $ORCA_DEV/"
	ok $? "$what: rdma link show no longer lists $ORCA_DEV"
}

add_and_check() {
	local what=$1
	rdma link add "$ORCA_DEV" type orca netdev "$ORCA_NETDEV" >/tmp/e2e-add.out 2>&1 &&
		wait_for 30 port_is PORT_ACTIVE
	ok $? "$what: rdma link add $ORCA_DEV type orca netdev $ORCA_NETDEV: back and ACTIVE"
	sed 's/^/# /' /tmp/e2e-add.out
}

check "the kernel allows deleting $ORCA_DEV (IBK_ALLOW_USER_UNREG)" dev_present

# --- idle, after a state dump ---
# dump_state (the diagnosis the data-path tests write on a stall) holds
# the module's parameter lock and the instance list's mutex; deleting
# the link then destroys the instance under that mutex, flushing its
# admin work.  On the debug kernel lockdep judges the two orders.
echo 1 >/sys/module/orca_soft/parameters/dump_state
ok $? "orca_soft's dump_state can be written (it logs each instance's engine)"
delete_and_check idle
add_and_check "after an idle delete"

# --- a process holds a PD and waits for async events ---
"$E2E_BIN/async_wait" -p -t 90 "$ORCA_DEV" DEVICE_FATAL >/tmp/hold.out 2>&1 &
holder=$!
wait_for 30 grep -q ready /tmp/hold.out
ok $? "a process holds $ORCA_DEV open with a PD"
delete_and_check "in use"
wait "$holder"
ok $? "in use: the process received DEVICE_FATAL and cleaned up"
sed 's/^/# /' /tmp/hold.out
add_and_check "after a delete in use"

# --- an rdma_cm listener (rping -s) ---
modprobe rdma_ucm
ip=$(ip -4 -o addr show dev "$ORCA_NETDEV" | awk '{ print $4 }' | cut -d/ -f1 | head -n1)
timeout -k 5 120 rping -s -a "$ip" -p 17190 -v >/tmp/e2e-rping.out 2>&1 &
rp=$!
wait_for 30 sh -c "rdma resource show cm_id | grep -q 'state LISTEN .*:17190 '"
ok $? "rping -s listens on $ip through $ORCA_DEV"
delete_and_check "with an rdma_cm listener"
wait "$rp"
rc=$?
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]
ok $? "the listener learned of the removal and exited by itself (status $rc)"
sed 's/^/# /' /tmp/e2e-rping.out | head -5
add_and_check "after a delete under rdma_cm"

plan "$_tap_n"
done_testing
