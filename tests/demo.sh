#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# 'make demo': build if needed, boot two guests on one Ethernet segment
# (tests/harness/run-guest.sh --pair: eth1 is 10.99.0.1 in guest a and
# 10.99.0.2 in guest b), load ib_core, ib_uverbs, orca_soft.ko and
# orca.ko from the build tree in both, create orca0 on eth1, show it with
# rdma-core's own tools, then move data between the guests over RoCEv2:
# ibv_rc_pingpong -c (data validated), perftest's ib_write_bw, rping -v
# (rdma_cm: the connection handshake in CM MADs over the wire) and
# ibv_xsrq_pingpong (XRC: each side's XRC_SEND QP sends into the other's
# XRC SRQ through an XRC_RECV QP; it checks completions, not payloads),
# each with its server in guest b and its client in guest a.  The two
# guests meet through the two-guest tests' mailbox
# (tests/pair/lib-core.sh).
#
# 'make demo-one' (--one): one guest, orca0 on eth0, ibv_rc_pingpong -c,
# ib_write_bw and ibv_xsrq_pingpong with server and client in the guest
# (127.0.0.1; the two ibv_xsrq_pingpong processes share one XRC domain,
# both opening /tmp/xrc_domain).
#
#   tests/demo.sh [--one] [run-guest.sh options...]

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
BUILD_DIR=${BUILD_DIR:-$REPO/build}
export BUILD_DIR
ONE=0
if [ "${1:-}" = --one ]; then
	ONE=1
	shift
fi

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

# The guests' part, as script texts: the setup on $NETDEV, then the
# traffic of one guest or of the pair.
read -r -d '' SETUP <<'SCRIPT' || true
set -e
export RDMAV_DRIVERS=$PWD/build/userspace/liborca
me=${ORCA_GUEST:-guest}
run() { echo; echo "$me# $*"; "$@"; }
for ko in drivers/orca_soft/orca_soft.ko drivers/orca/orca.ko; do
	for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do
		modprobe "$dep"
	done
done
run modprobe ib_uverbs
run modprobe rdma_ucm
run insmod drivers/orca_soft/orca_soft.ko
run insmod drivers/orca/orca.ko
run rdma link add orca0 type orca netdev "$NETDEV"
for _ in $(seq 50); do
	ibv_devinfo -d orca0 2>/dev/null | grep -q PORT_ACTIVE && break
	sleep 0.2
done
run ip -4 addr show dev "$NETDEV"
run rdma link show
run ibv_devices
run ibv_devinfo -v -d orca0
SCRIPT

read -r -d '' ONE_GUEST <<'SCRIPT' || true
# Traffic: the helpers of the e2e tool tests (server in the background,
# client to 127.0.0.1, both under a time limit); they test statuses
# themselves, so errexit is off while they run.
set +e
. tests/e2e/lib.sh
. tests/e2e/lib-tools.sh
demo_failed=0
gidx=$(tools_gid_index orca0 "$NETDEV")
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
pair xsrq 18517 ibv_xsrq_pingpong -d orca0 -g "$gidx" -n 1000 -s 4096 -m 1024
set -e
run rmmod orca orca_soft
[ "$demo_failed" -eq 0 ]
SCRIPT

# Guest b serves, guest a connects.
read -r -d '' PAIR_GUEST <<'SCRIPT' || true
set +e
ORCA_NETDEV=eth1
. tests/e2e/lib.sh
. tests/e2e/lib-tools.sh
. tests/pair/lib-core.sh
demo_failed=0
# (perl starting in an emulated guest on a busy host can take more than
# the 10 s pair_mailbox_start waits)
pair_mailbox_start || poll_until 60 mailbox_listening ||
	{ echo "demo: the mailbox did not start"; exit 1; }
gidx=$(tools_gid_index orca0 eth1)
echo
echo "$me# cat /sys/class/infiniband/orca0/ports/1/gids/$gidx   (RoCE v2 GID of eth1's IPv4 address)"
cat "/sys/class/infiniband/orca0/ports/1/gids/$gidx"

# demo NAME PORT READY SERVER_CMD -- CLIENT_CMD: the server in guest b,
# started, then announced to a when READY PORT succeeds; the client in
# guest a once announced.  Each side shows its own output.
demo() {
	local name=$1 port=$2 ready=$3 srv=() cli=() pid rc=0 out=/tmp/demo-$1.out
	shift 3
	while [ "$1" != -- ]; do
		srv+=("$1")
		shift
	done
	shift
	cli=("$@")
	echo
	if [ "$me" = b ]; then
		echo "b# ${srv[*]} &"
		timeout 120 "${srv[@]}" >"$out" 2>&1 &
		pid=$!
		poll_until 60 "$ready" "$port"
		pair_send_raw "demo-$name" ready 120
		wait "$pid" || rc=$?
	else
		pair_recv_raw "demo-$name" 180 >/dev/null || rc=1
		echo "a# ${cli[*]}"
		[ "$rc" -ne 0 ] || timeout 120 "${cli[@]}" >"$out" 2>&1 || rc=$?
	fi
	cat "$out" 2>/dev/null
	echo "--- exit status $rc"
	if [ "$rc" -ne 0 ] || grep -q 'invalid data' "$out" 2>/dev/null; then
		echo "demo: $name failed in guest $me"
		demo_failed=1
	fi
}
peer=$ORCA_PEER_IP
demo rc 18515 tools_listening \
	ibv_rc_pingpong -d orca0 -g "$gidx" -n 1000 -c -p 18515 -- \
	ibv_rc_pingpong -d orca0 -g "$gidx" -n 1000 -c -p 18515 "$peer"
demo write-bw 18516 tools_listening \
	ib_write_bw -d orca0 -x "$gidx" -s 65536 -n 1000 -F -p 18516 -- \
	ib_write_bw -d orca0 -x "$gidx" -s 65536 -n 1000 -F -p 18516 "$peer"
ORCA_DEV=orca0
demo rping 18517 cm_listening \
	rping -s -a "$ORCA_SELF_IP" -p 18517 -C 10 -v -- \
	rping -c -a "$peer" -p 18517 -C 10 -v
# XRC: 1000 round trips of 4 KiB (4 packets), each side's XRC_SEND QP
# naming the other's XRC SRQ.
demo xsrq 18518 tools_listening \
	ibv_xsrq_pingpong -d orca0 -g "$gidx" -n 1000 -s 4096 -m 1024 -p 18518 -- \
	ibv_xsrq_pingpong -d orca0 -g "$gidx" -n 1000 -s 4096 -m 1024 -p 18518 "$peer"
# Both guests are done before either takes orca0 away.
if [ "$me" = a ]; then
	pair_send_raw demo-done yes 120
else
	pair_recv_raw demo-done 180 >/dev/null
fi
set -e
run rmmod orca orca_soft
[ "$demo_failed" -eq 0 ]
SCRIPT

if [ "$ONE" -eq 1 ]; then
	echo "demo: booting a guest (the harness checks the kernel log and the unload)"
	exec tests/harness/run-guest.sh --timeout 600 --unload "orca orca_soft" \
		--out "$BUILD_DIR/demo" "$@" --cmd "NETDEV=eth0
$SETUP
$ONE_GUEST"
fi
echo "demo: booting two guests (the harness checks both kernel logs and the unload)"
exec tests/harness/run-guest.sh --pair --smp 1 --timeout 900 --unload "orca orca_soft" \
	--out "$BUILD_DIR/demo-pair" "$@" --cmd-a "NETDEV=eth1
$SETUP
$PAIR_GUEST" --cmd-b "NETDEV=eth1
$SETUP
$PAIR_GUEST"
