#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Kernel allocation failures on every path that makes or destroys a
# verbs object (progs/fail_nth.c): with the kernel's fault injection,
# fail-nth fails each slab and page allocation of a verbs call in turn,
# in ib_core, ib_uverbs, orca.ko and liborca's mmaps alike.  Each call
# fails with an errno or succeeds; every object made goes; afterwards
# rdma resource show is back to its baseline, and the harness's kmemleak
# scan, KASAN and lockdep find nothing.  Debug kernel only (Debian's
# stock kernel has no fault injection): run-e2e.sh leaves it out on the
# stock kernel.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

D=/sys/kernel/debug
mountpoint -q $D || mount -t debugfs none $D
before=$(res_summary)

# GFP_KERNEL allocations too (the defaults skip those that may sleep),
# order-0 pages too, and no stack dump per injected failure.
saved=()
for f in failslab/ignore-gfp-wait fail_page_alloc/ignore-gfp-wait \
	fail_page_alloc/min-order failslab/verbose fail_page_alloc/verbose; do
	saved+=("$f=$(cat "$D/$f" 2>/dev/null)")
done
fi_setup() {
	echo N >$D/failslab/ignore-gfp-wait &&
		echo N >$D/fail_page_alloc/ignore-gfp-wait &&
		echo 0 >$D/fail_page_alloc/min-order &&
		echo 0 >$D/failslab/verbose &&
		echo 0 >$D/fail_page_alloc/verbose
}
fi_setup
ok $? "failslab and fail_page_alloc fail any allocation fail-nth names, quietly"

run_prog fail_nth "$ORCA_DEV"

for s in "${saved[@]}"; do
	echo "${s#*=}" >"$D/${s%%=*}"
done
leak_check "$before"
plan "$_tap_n"
done_testing
