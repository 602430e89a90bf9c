#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A kernel consumer on the wire: tests/e2e/kmod/orca_kverbs_test.ko with
# peer= connects an RC QP on orcaw0 to one on orcaw1 (the veth pair of
# lib-wire.sh) and checks what only kernel verbs can post: an RDMA READ
# into a fast-registered region followed, in the same post, by a
# LOCAL_INV of that region with IB_SEND_FENCE.  The fence holds the
# invalidation until the READ's responses are in, so the READ completes
# with its data and the LOCAL_INV after it.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-wire.sh"

before=$(res_summary)
wire_setup orca
kverbs_tap wire dev=$WIRE_A peer=$WIRE_B
grep -q '^not ok' /tmp/kverbs.tap && wire_counters
wire_teardown
leak_check "$before"
plan "$_tap_n"
done_testing
