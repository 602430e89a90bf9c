#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Port events through ibv_get_async_event(3): IBV_EVENT_PORT_ERR then
# IBV_EVENT_PORT_ACTIVE, naming port 1, while the netdev goes down and up
# (progs/ev_async.c -m port waits for them, with a time limit).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

out=/tmp/e2e-ev_async-port.out
before=$(res_summary)
check "port starts ACTIVE" port_is PORT_ACTIVE

"$E2E_BIN/ev_async" -d "$ORCA_DEV" -m port -w 60000 >"$out" 2>&1 &
prog=$!
wait_for 30 grep -q '^# ready' "$out"
ok $? "the program is waiting for async events"

ip link set "$ORCA_NETDEV" down
wait_for 30 port_is PORT_DOWN
ok $? "port goes PORT_DOWN when $ORCA_NETDEV goes down"
ip link set "$ORCA_NETDEV" up
wait_for 30 port_is PORT_ACTIVE
ok $? "port returns to PORT_ACTIVE when $ORCA_NETDEV comes up"

wait "$prog"
fold_tap "$out" $? "ev_async -m port"

# Let the addresses (and their GIDs) come back for the tests that follow.
wait_for 30 sh -c "ibv_devinfo -v -d $ORCA_DEV | grep -q '::ffff:'"
ok $? "the IPv4 GIDs are back"
leak_check "$before"
plan "$_tap_n"
done_testing
