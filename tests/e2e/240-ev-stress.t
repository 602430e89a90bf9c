#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Event-driven ping-pong stress (progs/ev_stress.c): two QPs, one thread a
# side, each waiting on its own completion channel, ack, re-arm, poll; no
# lost wakeup (every wait has a time limit) and no stray event; the rate
# is printed as a diagnostic.
#
# Round trips: issue #5 asks for 100,000.  Measured on orca0 in a TCG
# guest on the shared 2-core host: 100-250 round trips/s depending on the
# host's load, 2.8-3.3 events per round trip; the full 100,000 passed in
# 502 s (199 round trips/s), beyond the per-test limit of run-in-guest.sh
# (300 s) and much of the e2e stage's budget.
# make check therefore runs 10,000 on the stock kernel and 2,000 on the
# debug kernel (KASAN, lockdep, kmemleak: recognised by kmemleak's debugfs
# file, as run-in-guest.sh does; events cost several times more there).
# The races looked for are the same at any count.  The full run:
#   tests/harness/run-guest.sh --unload "orca orca_soft" --cmd \
#     'EV_STRESS_COUNT=100000 tests/e2e/run-in-guest.sh --test-timeout 3000 \
#      -- tests/e2e/240-ev-stress.t'

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

count=10000
[ -e /sys/kernel/debug/kmemleak ] && count=2000
count=${EV_STRESS_COUNT:-$count}
diag "round trips: $count"

before=$(res_summary)
run_prog ev_stress -d "$ORCA_DEV" -n "$count"
leak_check "$before"
plan "$_tap_n"
done_testing
