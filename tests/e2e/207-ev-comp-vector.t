#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Completion vectors: num_comp_vectors >= 1, a CQ on each vector delivers
# its events, an out-of-range vector is refused (progs/ev_compvec.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog ev_compvec -d "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
