#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kick of a user QP (progs/dp_kick.c): traffic that pauses between
# posts, so that posts kick an idle device; a WRITE ping-pong between
# two threads, in which every post must kick (the device never polls
# the send queue of half of a ping-pong); and the driver's QP kick
# method called directly, good and bad handles; once with liborca's
# default kick (the method) and once with ORCA_KICK=post_send (the
# zero-WR uverbs POST_SEND and POST_RECV commands, as a provider without
# the method kicks).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog dp_kick "$ORCA_DEV"
ORCA_KICK=post_send "$E2E_BIN/dp_kick" "$ORCA_DEV" >/tmp/e2e-dp_kick-post_send.out 2>&1
fold_tap /tmp/e2e-dp_kick-post_send.out $? "dp_kick with ORCA_KICK=post_send"
leak_check "$before"
plan "$_tap_n"
done_testing
