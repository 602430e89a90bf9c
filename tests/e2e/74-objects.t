#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# CQ, SRQ, AH and MR from userspace: limits, resize, limit arming, RoCEv2
# AHs, MRs of malloc'd, mmap'd and 2 MiB aligned memory (progs/objects.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog objects "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
