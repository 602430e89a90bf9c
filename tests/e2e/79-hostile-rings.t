#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A hostile process (progs/ring_fuzz.c): garbage in the rings and the
# doorbell records that liborca maps into it, producer indices far ahead
# and behind, CQ entries and records overwritten, and work requests that
# name another process's keys.  Each round's victims go to error or not,
# but never touch anything else: a bystander QP pair of the same process
# works after every round, the other process's MR is unchanged, every
# victim is destroyed, and rdma resource show is back to its baseline.
# The PRNG seed makes a run reproducible: ORCA_FUZZ_SEED (default
# 20261126) and ORCA_FUZZ_ROUNDS (default 100).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

SEED=${ORCA_FUZZ_SEED:-20261126}
ROUNDS=${ORCA_FUZZ_ROUNDS:-100}

before=$(res_summary)
"$E2E_BIN/ring_fuzz" -d "$ORCA_DEV" -n "$ROUNDS" -m "$SEED" >/tmp/e2e-ring_fuzz.out 2>&1
fold_tap /tmp/e2e-ring_fuzz.out $? "ring_fuzz -n $ROUNDS -m $SEED"
leak_check "$before"
plan "$_tap_n"
done_testing
