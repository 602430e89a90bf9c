#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# munmap, mremap, mprotect, a second mmap and fork on the queue mappings
# liborca gives a process, each with RDMA WRITEs in flight, each case in
# a child of its own (progs/map_abuse.c): the device goes on with the
# memory the kernel holds, nothing the process does to its mappings
# reaches the kernel's pages or another QP, and everything is destroyed
# or cleaned up at exit.  ORCA_MAP_ROUNDS (default 3) rounds of every
# case; rdma resource show is back to its baseline afterwards.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

ROUNDS=${ORCA_MAP_ROUNDS:-3}

before=$(res_summary)
"$E2E_BIN/map_abuse" -d "$ORCA_DEV" -n "$ROUNDS" >/tmp/e2e-map_abuse.out 2>&1
fold_tap /tmp/e2e-map_abuse.out $? "map_abuse -n $ROUNDS"
leak_check "$before"
plan "$_tap_n"
done_testing
