#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The uverbs write() commands, RDMA_VERBS_IOCTL and mmap on the command
# fd, called with random and boundary requests, driver udata, handles
# and attributes (progs/uverbs_fuzz.c), reproducibly from
# ORCA_UVERBS_FUZZ_SEED (default 20261126): ORCA_UVERBS_FUZZ_BATCHES
# processes (default 20) of ORCA_UVERBS_FUZZ_CALLS calls (default 500),
# each with real objects to name.  Every batch makes all its calls and
# exits, another context's QP pair works after each, and rdma resource
# show is back to its baseline at the end.  ORCA_UVERBS_FUZZ_FIRST
# (default 0) numbers the first batch: each batch is reproducible alone.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

SEED=${ORCA_UVERBS_FUZZ_SEED:-20261126}
BATCHES=${ORCA_UVERBS_FUZZ_BATCHES:-20}
CALLS=${ORCA_UVERBS_FUZZ_CALLS:-500}
FIRST=${ORCA_UVERBS_FUZZ_FIRST:-0}

before=$(res_summary)
"$E2E_BIN/uverbs_fuzz" -d "$ORCA_DEV" -n "$BATCHES" -c "$CALLS" -m "$SEED" -s "$FIRST" \
	>/tmp/e2e-uverbs_fuzz.out 2>&1
fold_tap /tmp/e2e-uverbs_fuzz.out $? "uverbs_fuzz -n $BATCHES -c $CALLS -m $SEED -s $FIRST"
leak_check "$before"
plan "$_tap_n"
done_testing
