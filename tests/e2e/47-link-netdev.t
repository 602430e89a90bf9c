#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# An Orca function takes its netdev's RoCEv2 packets with an rx_handler
# (orca_soft_net.c).  A netdev that already has one (a bridge port) is
# refused with an error naming it; a function's netdev cannot become a
# bridge port; and deleting the netdev takes the handler off and the
# function with it.

. "$(dirname "$0")/lib.sh"

BR=orca_br0
DM=orca_dm0

dev_gone() {
	! [ -e "/sys/class/infiniband/$1" ]
}

cleanup() {
	ip link del "$DM" 2>/dev/null
	ip link del "$BR" 2>/dev/null
}
trap cleanup EXIT

plan 11

modprobe bridge && modprobe dummy &&
	ip link add "$BR" type bridge && ip link add "$DM" type dummy
ok $? "a bridge $BR and a dummy netdev $DM"

! ip link set "$ORCA_NETDEV" master "$BR" 2>/tmp/e2e-br.err
ok $? "$ORCA_NETDEV, under $ORCA_DEV, cannot become a bridge port"
sed 's/^/# /' /tmp/e2e-br.err

ip link set "$DM" master "$BR"
ok $? "$DM is a port of $BR"
! rdma link add orca_bp type orca netdev "$DM" 2>/tmp/e2e-bp.err
ok $? "rdma link add on a bridge port is refused"
sed 's/^/# /' /tmp/e2e-bp.err
dmesg | grep -q "orca_soft: $DM already has a receive handler"
ok $? "the kernel log names $DM"
dev_gone orca_bp
ok $? "the refused request left no device behind"

ip link set "$DM" nomaster &&
	rdma link add orca_dm type orca netdev "$DM" &&
	wait_for 10 test -e /sys/class/infiniband/orca_dm
ok $? "out of the bridge, $DM takes a function (orca_dm)"
! ip link set "$DM" master "$BR" 2>/dev/null
ok $? "$DM, under orca_dm, cannot become a bridge port"

timeout 60 ip link del "$DM"
ok $? "ip link del $DM returns with a function on it"
wait_for 30 dev_gone orca_dm
ok $? "orca_dm went with its netdev"

check "$ORCA_DEV still ACTIVE" port_is PORT_ACTIVE

done_testing
