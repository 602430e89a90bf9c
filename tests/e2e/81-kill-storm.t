#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# SIGKILL at every stage of a verbs process's life (progs/kill_storm.c):
# opening the device, creating each kind of object, connecting, with
# work requests in flight, destroying and closing.  ORCA_KILLS children
# (default 1000), each killed in the stage picked for it, at a moment a
# PRNG seeded with ORCA_KILL_SEED (default 20261126) picks.  Afterwards
# a new process moves data, rdma resource show is back to its baseline,
# and the harness unloads the modules and looks for kernel reports (and,
# on the debug kernel, kmemleak's).  make check runs 300 kills on the
# stock kernel and 100 on the debug one (tests/run-check.sh); make soak
# the thousand on the debug kernel, which takes about a quarter of an hour.
# e2e-timeout: 1500

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

KILLS=${ORCA_KILLS:-1000}
SEED=${ORCA_KILL_SEED:-20261126}

before=$(res_summary)
"$E2E_BIN/kill_storm" -d "$ORCA_DEV" -n "$KILLS" -m "$SEED" >/tmp/e2e-kill_storm.out 2>&1
fold_tap /tmp/e2e-kill_storm.out $? "kill_storm -n $KILLS -m $SEED"
leak_check "$before"
plan "$_tap_n"
done_testing
