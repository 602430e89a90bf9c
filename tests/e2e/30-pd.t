#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Protection domains from userspace: liborca -> uverbs -> orca.ko ->
# ALLOC_PD/DEALLOC_PD on the admin queue -> orca_soft, and nothing left
# behind afterwards.

. "$(dirname "$0")/lib.sh"

# pd_test prints its own plan of 7; the two checks below add to it.
plan 9

# PDs of orca0 in "rdma resource show pd".  Kernel consumers keep theirs
# while the device is registered (ib_mad's, for the GSI QP), so what
# pd_test leaves behind is the difference from before it ran.
pd_count() {
	rdma resource show pd 2>/dev/null | grep -c "dev $ORCA_DEV "
}
pds_before=$(pd_count)

"$E2E_BIN/pd_test" "$ORCA_DEV" | sed -n 's/^\(not \)\{0,1\}ok [0-9]* - /&/p' >/tmp/pd.out
status=${PIPESTATUS[0]}
# Renumber pd_test's TAP into this file's sequence.
while read -r line; do
	case "$line" in
	"ok "*) ok 0 "${line#ok * - }" ;;
	"not ok "*) ok 1 "${line#not ok * - }" ;;
	esac
done </tmp/pd.out
# A crash must not shrink the plan: missing points count as failures.
while [ "$_tap_n" -lt 7 ]; do
	ok 1 "pd_test test point $((_tap_n + 1)) was never reported"
done
ok "$status" "pd_test exits 0"

pds_after=$(pd_count)
[ "$pds_after" -eq "$pds_before" ]
ok $? "rdma resource show pd: nothing left on $ORCA_DEV ($pds_after PDs, as before)"

done_testing
