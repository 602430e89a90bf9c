#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Event-driven ping-pong stress (progs/ev_stress.c): two QPs, one thread a
# side, each waiting on its own completion channel, ack, re-arm, poll; no
# lost wakeup (every wait has a time limit) and no stray event; the rate
# is printed as a diagnostic.
#
# Round trips: 100,000 (issue #5), or EV_STRESS_COUNT.  On the debug
# kernel (KASAN, lockdep, kmemleak: recognised by kmemleak's debugfs file,
# as run-in-guest.sh does) every event costs several times more, and the
# run uses 10,000 so that it fits the per-test time limit; the races it
# looks for are the same at any count.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

count=100000
[ -e /sys/kernel/debug/kmemleak ] && count=10000
count=${EV_STRESS_COUNT:-$count}
diag "round trips: $count"

before=$(res_summary)
run_prog ev_stress -d "$ORCA_DEV" -n "$count"
leak_check "$before"
plan "$_tap_n"
done_testing
