# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# The leak loop shared by tests/e2e/9N-leak-*.t: each object type is
# created and destroyed 10,000 times (ORCA_LEAK_CYCLES) by one process;
# afterwards "rdma resource show" counts are what they were, and neither
# unreclaimable slab nor available memory moved beyond a small tolerance.
# The device's table limits (max_cq, max_qp 4096, max_srq 1024 < 10,000)
# also turn any object the device fails to free into a failed create.
# One .t per few types keeps each under run-in-guest.sh's time limit.
# Source after lib.sh and lib-prog.sh; call leak_loop TYPE...

CYCLES=${ORCA_LEAK_CYCLES:-10000}
# Growth allowed over the cycles: less than 64 bytes per cycle of
# unreclaimable slab, and 20 MiB of available memory, which wanders by
# about that much (page allocator, per-cpu lists); a page per cycle
# would be 40 MiB.
SLAB_TOL_KB=$((CYCLES * 64 / 1024))
AVAIL_TOL_KB=${ORCA_LEAK_AVAIL_TOL_KB:-20480}

meminfo() {
	sed -n "s/^$1: *\([0-9]*\) kB/\1/p" /proc/meminfo
}

# Drop caches.  No compaction: after 86-odp.t (swap on zram in a memory
# cgroup) and 88-max-queues.t in the same guest, a write to
# /proc/sys/vm/compact_memory here left the stock 6.1 guest allocating
# pages so slowly that 90-leak-pd-ah-mr-ctx.t ran out of its 300 s with
# soft lockups in clear_page_erms (2026-11-29; reproduced with the
# orca_soft of 66e76c5, and gone without the compaction; the cause is
# not known yet).  The per-cpu page lists it drained hold little with
# the e2e guest's one vCPU, and a shrink over the tolerance is measured
# again below.
settle() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
}

leak_loop() {
	local t before res0 res1 slab0 slab1 avail0 avail1 start

	before=$(res_summary)
	for t in "$@"; do
		# Warm up the slab caches, per-cpu page lists and device tables.
		"$E2E_BIN/leak_loop" "$ORCA_DEV" "$t" 1000 >/dev/null 2>&1
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
		# MemAvailable is noisy: one interval was seen to drop 34 MiB
		# where 30,000 further cycles moved nothing.  A leak repeats,
		# so an interval over the tolerance is measured once more,
		# from a new baseline, and fails only if that one is too.
		local shrink=$((avail0 - avail1)) again=''
		if [ "$shrink" -ge "$AVAIL_TOL_KB" ]; then
			diag "$t: available memory shrank $shrink kB; measuring another $CYCLES cycles"
			avail0=$avail1
			run_prog leak_loop "$ORCA_DEV" "$t" "$CYCLES"
			settle
			avail1=$(meminfo MemAvailable)
			again=" (first interval: $shrink kB)"
			shrink=$((avail0 - avail1))
		fi
		[ "$shrink" -lt "$AVAIL_TOL_KB" ]
		ok $? "$t: available memory shrank $shrink kB (< $AVAIL_TOL_KB kB)$again"
	done
	leak_check "$before"
}
