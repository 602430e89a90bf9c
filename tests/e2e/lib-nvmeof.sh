# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# NVMe over Fabrics over RDMA with target and host in one guest, shared
# by 185-nvmeof.t and tests/bench/bench-in-guest.sh: an nvmet subsystem
# exporting one block device on an rdma port, made and taken down
# through configfs, and the controller nvme-rdma creates for it.  The
# caller loads the modules (nvmet-rdma, nvme-rdma, the block device's).

NVMET_CFS=/sys/kernel/config/nvmet

# nvmet_up NQN BLOCKDEV PORTID IP SVCID: subsystem NQN (any host may
# connect) with BLOCKDEV as namespace 1, on rdma port PORTID listening
# at IPv4 address IP, port SVCID.  Mounts configfs if it is not.
# Errors on stderr; status 0 if every step worked.
nvmet_up() {
	local nqn=$1 bdev=$2 portid=$3 ip=$4 svcid=$5
	local s=$NVMET_CFS/subsystems/$1 p=$NVMET_CFS/ports/$3

	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config || return 1
	mkdir "$s" &&
		echo 1 >"$s/attr_allow_any_host" &&
		mkdir "$s/namespaces/1" &&
		echo -n "$bdev" >"$s/namespaces/1/device_path" &&
		echo 1 >"$s/namespaces/1/enable" &&
		mkdir "$p" &&
		echo rdma >"$p/addr_trtype" &&
		echo ipv4 >"$p/addr_adrfam" &&
		echo "$ip" >"$p/addr_traddr" &&
		echo "$svcid" >"$p/addr_trsvcid" &&
		ln -s "$s" "$p/subsystems/$nqn"
}

# nvmet_down NQN PORTID: remove what nvmet_up made, as much of it as is
# there; status 0 if nothing of it is left.
nvmet_down() {
	local nqn=$1 s=$NVMET_CFS/subsystems/$1 p=$NVMET_CFS/ports/$2

	rm -f "$p/subsystems/$nqn" 2>/dev/null
	rmdir "$p" 2>/dev/null
	[ -e "$s/namespaces/1/enable" ] && echo 0 >"$s/namespaces/1/enable"
	rmdir "$s/namespaces/1" 2>/dev/null
	rmdir "$s" 2>/dev/null
	[ ! -e "$s" ] && [ ! -e "$p" ]
}

# nvme_ctrl_of NQN: the rdma controller (nvmeN) connected to NQN, or
# nothing.
nvme_ctrl_of() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/subsysnqn" ] && [ "$(cat "$c/subsysnqn")" = "$1" ] &&
			[ "$(cat "$c/transport")" = rdma ] && basename "$c"
	done
}
