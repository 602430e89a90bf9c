#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "rdma link add ... type orca" refuses what it cannot do, with an error,
# and leaves nothing behind.

. "$(dirname "$0")/lib.sh"

plan 4

! rdma link add orca_dup type orca netdev "$ORCA_NETDEV" 2>/tmp/dup.err
ok $? "a second function on $ORCA_NETDEV is refused"
sed 's/^/# /' /tmp/dup.err

! rdma link add orca_lo type orca netdev lo 2>/tmp/lo.err
ok $? "a non-Ethernet netdev (lo) is refused"
sed 's/^/# /' /tmp/lo.err

! ls /sys/class/infiniband | grep -Eq '^orca_(dup|lo)$'
ok $? "no device was left behind by the refused requests"

check "$ORCA_DEV still ACTIVE" port_is PORT_ACTIVE

done_testing
