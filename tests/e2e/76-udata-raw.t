#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Strict udata: raw uverbs write() commands with short, dirty or unknown
# driver requests and short responses get EINVAL (progs/udata_raw.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog udata_raw "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
