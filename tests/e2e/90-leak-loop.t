#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Every object type created and destroyed 10,000 times (ORCA_LEAK_CYCLES)
# by one process: afterwards "rdma resource show" counts are what they
# were, and neither unreclaimable slab nor available memory moved beyond
# a small tolerance.  The device's table limits (max_cq, max_qp 4096,
# max_srq 1024 < 10,000) also make any object the device fails to free
# show up as a failed create.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

CYCLES=${ORCA_LEAK_CYCLES:-10000}
TYPES=${ORCA_LEAK_TYPES:-"pd cq qp srq ah mr ctx"}
# Growth allowed over 10,000 cycles: less than 64 bytes per cycle of
# unreclaimable slab, and 4 MiB of available memory (page allocator and
# per-cpu caches wander a little).
SLAB_TOL_KB=$((CYCLES * 64 / 1024))
AVAIL_TOL_KB=4096

meminfo() {
	sed -n "s/^$1: *\([0-9]*\) kB/\1/p" /proc/meminfo
}

settle() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
}

before=$(res_summary)
for t in $TYPES; do
	# Warm up the slab caches and the device tables first.
	"$E2E_BIN/leak_loop" "$ORCA_DEV" "$t" 200 >/dev/null 2>&1
	settle
	res0=$(res_summary)
	slab0=$(meminfo SUnreclaim)
	avail0=$(meminfo MemAvailable)
	start=$(date +%s)
	run_prog leak_loop "$ORCA_DEV" "$t" "$CYCLES"
	diag "$t: $CYCLES cycles took $(($(date +%s) - start)) s"
	settle
	res1=$(res_summary)
	slab1=$(meminfo SUnreclaim)
	avail1=$(meminfo MemAvailable)
	[ -n "$res0" ] && [ "$res0" = "$res1" ]
	ok $? "$t: rdma resource show counts unchanged after $CYCLES cycles ($res1)"
	[ $((slab1 - slab0)) -lt "$SLAB_TOL_KB" ]
	ok $? "$t: unreclaimable slab grew $((slab1 - slab0)) kB (< $SLAB_TOL_KB kB)"
	[ $((avail0 - avail1)) -lt "$AVAIL_TOL_KB" ]
	ok $? "$t: available memory shrank $((avail0 - avail1)) kB (< $AVAIL_TOL_KB kB)"
done
leak_check "$before"
plan "$_tap_n"
done_testing
