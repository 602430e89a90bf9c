#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perftest's latency tests complete on orca0 (RC, server and client in
# this guest over the RoCE v2 GID of eth0's IPv4 address): ib_send_lat,
# ib_write_lat, ib_read_lat and ib_atomic_lat, a few hundred round trips
# each.  Only completion and well-formed results are checked, never a
# figure: 'make bench' measures.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-tools.sh"

TOOLS_PORT=17000

before=$(res_summary)
gidx=''
wait_for 30 tools_gid_index "$ORCA_DEV" "$ORCA_NETDEV"
gidx=$(tools_gid_index "$ORCA_DEV" "$ORCA_NETDEV")
[ -n "$gidx" ]
ok $? "$ORCA_DEV has a RoCE v2 GID for $ORCA_NETDEV's IPv4 address (index ${gidx:-none})"
gidx=${gidx:-0}

common=(-d "$ORCA_DEV" -x "$gidx")
tools_perftest send-lat lat 2 500 1 ib_send_lat "${common[@]}"
tools_perftest write-lat lat 2 500 0 ib_write_lat "${common[@]}"
tools_perftest read-lat lat 2 500 0 ib_read_lat "${common[@]}"
tools_perftest atomic-lat lat 8 500 0 ib_atomic_lat "${common[@]}"

leak_check "$before"
plan "$_tap_n"
done_testing
