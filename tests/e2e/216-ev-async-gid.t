#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# IBV_EVENT_GID_CHANGE through ibv_get_async_event(3) when an IPv4 address
# is added to the netdev (its IPv4-mapped GID appears) and when it is
# deleted (the GID goes); progs/ev_async.c -m gid:ADDR waits for them.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

addr=192.0.2.77		# TEST-NET-1, never routed
out=/tmp/e2e-ev_async-gid.out
trap 'ip addr del "$addr/32" dev "$ORCA_NETDEV" 2>/dev/null' EXIT
before=$(res_summary)

"$E2E_BIN/ev_async" -d "$ORCA_DEV" -m "gid:$addr" >"$out" 2>&1 &
prog=$!
wait_for 30 grep -q '^# ready add' "$out"
ok $? "the program is waiting for GID_CHANGE"
ip addr add "$addr/32" dev "$ORCA_NETDEV"
ok $? "ip addr add $addr/32 dev $ORCA_NETDEV"
wait_for 60 grep -q '^# ready del' "$out"
ok $? "the program saw the GID added"
ip addr del "$addr/32" dev "$ORCA_NETDEV"
ok $? "ip addr del $addr/32 dev $ORCA_NETDEV"

wait "$prog"
fold_tap "$out" $? "ev_async -m gid:$addr"
leak_check "$before"
plan "$_tap_n"
done_testing
