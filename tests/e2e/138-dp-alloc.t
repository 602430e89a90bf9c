#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Custom allocators of a parent domain: the rings of CQs, QPs and SRQs in
# the test's own arena, sized, aligned and typed as orcadv.h says, pinned
# (VmPin, RLIMIT_MEMLOCK), with RC traffic through several ring wraps and
# a CQ resize; free() once per buffer after destroy; USE_DEFAULT, NULL,
# misaligned and read-only answers (progs/dp_alloc.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog dp_alloc "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
