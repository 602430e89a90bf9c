#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# 'make demo': build if needed, boot a guest, load ib_core, ib_uverbs,
# orca_soft.ko and orca.ko from the build tree, create orca0 on eth0, and
# show it with rdma-core's own tools (ibv_devices, ibv_devinfo -v).
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
run rmmod orca orca_soft
SCRIPT

echo "demo: booting a guest (the harness checks the kernel log and the unload)"
exec tests/harness/run-guest.sh --timeout 600 --unload "orca orca_soft" \
	--out "$BUILD_DIR/demo" "$@" --cmd "$GUEST"
