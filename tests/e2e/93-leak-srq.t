#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# SRQs created and destroyed 10,000 times: no growth in memory or in
# "rdma resource show" (see lib-leak.sh).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-leak.sh"

leak_loop srq
plan "$_tap_n"
done_testing
