#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Kernel consumers through ib_core: tests/e2e/kmod/orca_kverbs_test.ko
# creates, modifies, queries and destroys every object type on orca0 when
# it loads, then runs kernel traffic between two RC and two UD QPs (every
# opcode, fast registration and invalidation, SRQ, drain, completion and
# async events, the ib_post_* rules), then queues of the largest sizes
# the device advertises (interface 1.7, paged rings: a CQ of max_cqe, an
# RC pair at max_qp_wr x max_send_sge / max_recv_sge, an SRQ at
# max_srq_wr x max_srq_sge, each filled, consumed and wrapped, every
# completion and byte checked), and reports TAP in the kernel log; this
# folds that TAP in.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
kverbs_tap "$ORCA_DEV" dev="$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
