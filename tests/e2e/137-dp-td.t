#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Thread domains and parent domains: an RC pair whose QPs and CQs are
# created through a parent domain with a TD (liborca skips their locks),
# SEND/WRITE/READ checked byte for byte, ALLOCATORS without callbacks
# refused (EINVAL) and the dealloc order rules (progs/dp_td.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog dp_td "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
