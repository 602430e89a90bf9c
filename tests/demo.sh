#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# 'make demo': build if needed, boot a guest, load ib_core, ib_uverbs,
# orca_soft.ko and orca.ko from the build tree, create orca0 on eth0, and
# show it with rdma-core's own tools (ibv_devices, ibv_devinfo -v), then
# move data over it: ibv_rc_pingpong (with -c, data validation) and
# perftest's ib_write_bw, each as a server and a client to 127.0.0.1 in
# the guest, over the RoCE v2 GID of eth0's IPv4 address.
#
#   tests/demo.sh [run-guest.sh options...]

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
BUILD_DIR=${BUILD_DIR:-$REPO/build}
export BUILD_DIR

if [ ! -f "$BUILD_DIR/kernel-abi" ]; then
	echo "demo: run 'make deps' first" >&2
	exit 1
fi
echo "demo: building (make)"
make -s >"$BUILD_DIR/demo-build.log" 2>&1 || {
	tail -n 30 "$BUILD_DIR/demo-build.log" >&2
	echo "demo: build failed" >&2
	exit 1
}

# The guest's part, as a script text.
read -r -d '' GUEST <<'SCRIPT' || true
set -e
export IBV_CONFIG_DIR=$PWD/build/userspace/libibverbs.d
export RDMAV_DRIVERS=$PWD/build/userspace/liborca
run() { echo; echo "guest# $*"; "$@"; }
for ko in drivers/orca_soft/orca_soft.ko drivers/orca/orca.ko; do
	for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do
		modprobe "$dep"
	done
done
run modprobe ib_uverbs
run insmod drivers/orca_soft/orca_soft.ko
run insmod drivers/orca/orca.ko
run rdma link add orca0 type orca netdev eth0
for _ in $(seq 50); do
	ibv_devinfo -d orca0 2>/dev/null | grep -q PORT_ACTIVE && break
	sleep 0.2
done
run rdma link show
run ibv_devices
run ibv_devinfo -v -d orca0

# Traffic: the helpers of the e2e tool tests (server in the background,
# client to 127.0.0.1, both under a time limit); they test statuses
# themselves, so errexit is off while they run.
set +e
. tests/e2e/lib.sh
. tests/e2e/lib-tools.sh
demo_failed=0
gidx=$(tools_gid_index orca0 eth0)
echo
echo "guest# cat /sys/class/infiniband/orca0/ports/1/gids/$gidx   (RoCE v2 GID of eth0's IPv4 address)"
cat "/sys/class/infiniband/orca0/ports/1/gids/$gidx"
pair() { # pair NAME PORT TOOL ARGS...: server and client, show both
	local name=$1 port=$2
	shift 2
	echo
	echo "guest# $* -p $port &              (server)"
	echo "guest# $* -p $port 127.0.0.1      (client)"
	tools_pair "demo-$name" "$port" "$@" -p "$port" -- "$@" -p "$port" 127.0.0.1
	echo "--- server (exit status $TP_SRV_RC):"
	cat "$TP_SRV_OUT"
	echo "--- client (exit status $TP_CLI_RC):"
	cat "$TP_CLI_OUT"
	if [ "$TP_SRV_RC" -ne 0 ] || [ "$TP_CLI_RC" -ne 0 ] ||
		grep -q 'invalid data' "$TP_SRV_OUT"; then
		echo "demo: $1 failed"
		demo_failed=1
	fi
}
pair rc 18515 ibv_rc_pingpong -d orca0 -g "$gidx" -n 1000 -c
pair write-bw 18516 ib_write_bw -d orca0 -x "$gidx" -s 65536 -n 1000 -F
set -e
run rmmod orca orca_soft
[ "$demo_failed" -eq 0 ]
SCRIPT

echo "demo: booting a guest (the harness checks the kernel log and the unload)"
exec tests/harness/run-guest.sh --timeout 600 --unload "orca orca_soft" \
	--out "$BUILD_DIR/demo" "$@" --cmd "$GUEST"
