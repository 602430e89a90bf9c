#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Every send opcode on every QP type it applies to, between QPs of orca0:
# payloads patterned and checked byte for byte (zero-length, unaligned,
# page-spanning, multi-SGE, 1 MiB), completion fields, immediate data,
# inline, SRQ receives, signalled/unsignalled (progs/dp_opcodes.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog dp_opcodes "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
