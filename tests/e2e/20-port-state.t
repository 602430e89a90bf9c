#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The port follows the netdev's link: the device reports the change on its
# async event queue, the driver re-queries the port and dispatches
# IB_EVENT_PORT_ERR / IB_EVENT_PORT_ACTIVE, which reach userspace.

. "$(dirname "$0")/lib.sh"

plan 8

check "port starts ACTIVE" port_is PORT_ACTIVE

"$E2E_BIN/async_wait" -t 60 "$ORCA_DEV" PORT_ERR PORT_ACTIVE >/tmp/async.out 2>&1 &
watcher=$!
wait_for 30 grep -q ready /tmp/async.out
ok $? "async event watcher is ready"

ip link set "$ORCA_NETDEV" down
wait_for 20 port_is PORT_DOWN
ok $? "port goes PORT_DOWN when $ORCA_NETDEV goes down"

rdma link show "$ORCA_DEV/1" | grep -q 'state DOWN'
ok $? "rdma link reports DOWN"

ip link set "$ORCA_NETDEV" up
wait_for 20 port_is PORT_ACTIVE
ok $? "port returns to PORT_ACTIVE when $ORCA_NETDEV comes up"

wait "$watcher"
ok $? "userspace received IBV_EVENT_PORT_ERR then IBV_EVENT_PORT_ACTIVE"
sed 's/^/# /' /tmp/async.out

# A flap: down and up again at once, faster than the driver's port work
# runs.  Each PORT_CHANGE event carries the state it was posted with, so
# userspace still gets PORT_ERR then PORT_ACTIVE (a driver that re-queried
# the port once for both saw ACTIVE twice and reported nothing).
"$E2E_BIN/async_wait" -t 60 "$ORCA_DEV" PORT_ERR PORT_ACTIVE >/tmp/async.out 2>&1 &
watcher=$!
wait_for 30 grep -q ready /tmp/async.out
ok $? "async event watcher is ready again"
ip link set "$ORCA_NETDEV" down && ip link set "$ORCA_NETDEV" up
wait "$watcher"
ok $? "a down/up flap: userspace received IBV_EVENT_PORT_ERR then IBV_EVENT_PORT_ACTIVE"
sed 's/^/# /' /tmp/async.out

# Let the addresses come back for the tests that follow.
wait_for 20 sh -c "ibv_devinfo -v -d $ORCA_DEV | grep -q '::ffff:'"

done_testing
