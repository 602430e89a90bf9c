#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Many users on one HCA at once (progs/many_users.c): ORCA_MANY_PROCS
# processes (64) each make ORCA_MANY_QPS RC QPs (16: 1024 alive on the
# device at once), carry checked SENDs and WRITEs on them and destroy
# everything, ORCA_MANY_LAPS times (2 in make check; make soak runs
# many more).  Afterwards rdma resource show and the device's object
# counters are back at their baseline; kmemleak and KASAN judge the
# rest on the debug kernel.
# e2e-timeout: 1200

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog many_users "$ORCA_DEV"
grep '^process ' /tmp/e2e-many_users.out | head -40 | sed 's/^/# /'
leak_check "$before"
plan "$_tap_n"
done_testing
