#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the two-guest tests: runs in guest a and in guest b of a
# tests/harness/run-guest.sh --pair boot (see tests/pair/run-pair.sh), as
# root, cwd = the repository; ORCA_GUEST says which guest this is.
#
#   pair-in-guest.sh [--modes "M..."] [--test-timeout SEC] [--keep-going]
#                    [--] [T...]
#
#   1. starts this guest's mailbox on eth1 (lib-core.sh) and meets the
#      peer there;
#   2. for each pairing M (orca-orca, orca-rxe, rxe-rxe: a's provider,
#      then b's), brings up this guest's device on eth1: orca0 (ib_core,
#      ib_uverbs, orca_soft.ko, orca.ko, 'rdma link add orca0 type orca
#      netdev eth1') or rxe0 (rdma_rxe, 'rdma link add rxe0 type rxe
#      netdev eth1'), waits for the RoCE v2 GID of eth1's address;
#   3. runs every tests/pair/*.t (or those named) in step with the peer:
#      both guests meet before and after each .t; each .t runs under a
#      time limit (--test-timeout, default 400 s, or its own "#
#      pair-timeout: SEC" line if that is longer);
#   4. after each .t: the device holds what it held when it was fresh
#      ('rdma resource show' and, on orca0, the device's own counts);
#   5. removes the device and its modules before the next pairing.
#
# Once a .t has a failing point in either guest, the pairing's remaining
# .t files are not run: each is one failing point that says so (a
# pairing whose wire is broken would otherwise spend every case's time
# limit, on the way to the same verdict).  --keep-going runs them all.
#
# Prints one flat TAP stream whose points read "<pairing>: <file>: ...";
# lines "# === <section>" mark where each pairing's setup, .t and teardown
# start, for run-pair.sh to interleave the two guests' streams.

set -uo pipefail

PAIR_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$PAIR_DIR/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
MODES="orca-orca orca-rxe rxe-rxe"
T_TIMEOUT=400
KEEP_GOING=0
while [ "$#" -gt 0 ]; do
	case "$1" in
	--modes) MODES=$2; shift 2 ;;
	--test-timeout) T_TIMEOUT=$2; shift 2 ;;
	--keep-going) KEEP_GOING=1; shift ;;
	--) shift; break ;;
	-*) echo "pair-in-guest.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done

PAIR_ROLE=${ORCA_GUEST:?not in a run-guest.sh --pair guest}
case "$PAIR_ROLE" in
a | b) ;;
*) echo "pair-in-guest.sh: ORCA_GUEST is $PAIR_ROLE, not a or b" >&2; exit 2 ;;
esac
: "${ORCA_SELF_IP:?}" "${ORCA_PEER_IP:?}"
export PAIR_ROLE BUILD_DIR
export RDMAV_DRIVERS=$BUILD_DIR/userspace/liborca
SOFT_KO=$REPO/drivers/orca_soft/orca_soft.ko
ORCA_KO=$REPO/drivers/orca/orca.ko

# lib.sh's TAP helpers are the .t files'; this runner numbers its own.
# shellcheck source=tests/pair/lib-core.sh
. "$PAIR_DIR/lib-core.sh"
# shellcheck source=tests/e2e/lib-stall.sh
. "$PAIR_DIR/../e2e/lib-stall.sh"

n=0
failed=0
point() { # point OK|FAIL description
	n=$((n + 1))
	if [ "$1" = OK ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
	fi
}
indent() { sed 's/^/# /'; }
section() { echo "# === $*"; }

# sync NAME BOUND [VALUE]: meet the peer, telling it VALUE; the peer's
# value in SYNC_PEER.  A failing point if it does not come.
sync() {
	local what=$1 bound=$2 key
	key=sync.${what//[^A-Za-z0-9._+-]/_}
	SYNC_PEER=
	if ! pair_send_raw "$key" "${3:-$PAIR_ROLE}" "$bound" >/tmp/pair-sync.err 2>&1 ||
		! SYNC_PEER=$(pair_recv_raw "$key" "$bound" 2>>/tmp/pair-sync.err); then
		point FAIL "$what: [$PAIR_ROLE] the peer did not arrive within $bound s"
		indent </tmp/pair-sync.err
		return 1
	fi
}

# ---- devices ------------------------------------------------------------------

# provider MODE: this guest's provider (orca or rxe) in the pairing.
provider() {
	local m=$1
	case "$m" in
	orca-orca | orca-rxe | rxe-orca | rxe-rxe) ;;
	*) return 1 ;;
	esac
	if [ "$PAIR_ROLE" = a ]; then echo "${m%-*}"; else echo "${m#*-}"; fi
}

load_ko() { # modprobe what a module file depends on, then insmod it
	local ko=$1 dep
	[ -f "$ko" ] || { echo "$ko not built"; return 1; }
	for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do
		modprobe "$dep" || return 1
	done
	[ -e "/sys/module/$(basename "$ko" .ko)/initstate" ] || insmod "$ko"
}

# gid_of IP: the GID string of an IPv4 address.
gid_of() {
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d"
}

# dev_up PROVIDER DEV: the device on eth1, with the GID of eth1's address.
dev_up() {
	local prov=$1 dev=$2 want
	modprobe ib_core && modprobe ib_uverbs && modprobe rdma_ucm || return 1
	case "$prov" in
	orca)
		load_ko "$SOFT_KO" && load_ko "$ORCA_KO" || return 1
		rdma link add "$dev" type orca netdev eth1 || return 1
		;;
	rxe)
		modprobe rdma_rxe || return 1
		rdma link add "$dev" type rxe netdev eth1 || return 1
		;;
	esac
	want=$(gid_of "$ORCA_SELF_IP")
	poll_until 120 grep -qx "$want" "/sys/class/infiniband/$dev/ports/1/gids/"* && return 0
	echo "$dev has no GID for eth1's address $ORCA_SELF_IP after 120 s"
	return 1
}

# dev_down PROVIDER DEV: the device deleted, its modules unloaded.
dev_down() {
	local prov=$1 dev=$2 m
	if [ -e "/sys/class/infiniband/$dev" ]; then
		rdma link delete "$dev" || return 1
	fi
	case "$prov" in
	orca) m="orca orca_soft" ;;
	rxe) m=rdma_rxe ;;
	esac
	for m in $m; do
		if [ -e "/sys/module/$m/initstate" ]; then
			timeout 120 rmmod "$m" || return 1
		fi
	done
}

devname() { echo "${1}0"; }

# ---- the run ---------------------------------------------------------------------

if [ "$#" -gt 0 ]; then
	tests=("$@")
else
	tests=()
	for t in "$PAIR_DIR"/*.t; do
		[ -x "$t" ] && tests+=("$t")
	done
fi

section start
if pair_mailbox_start; then
	point OK "mailbox: [$PAIR_ROLE] listens on $ORCA_SELF_IP:$PAIR_MAILBOX_PORT"
else
	point FAIL "mailbox: [$PAIR_ROLE] listens on $ORCA_SELF_IP:$PAIR_MAILBOX_PORT"
	indent <"$PAIR_INBOX.err"
fi
# The peer may still be booting.
if sync start 300; then
	point OK "mailbox: [$PAIR_ROLE] $ORCA_SELF_IP and its peer ($ORCA_PEER_IP) meet over eth1"
fi
[ "${#tests[@]}" -gt 0 ] || point FAIL "no executable tests/pair/*.t"

mode_idx=0
for mode in $MODES; do
	mode_idx=$((mode_idx + 1))
	section "$mode setup"
	mode_t0=$EPOCHSECONDS
	if ! prov=$(provider "$mode"); then
		point FAIL "$mode: not a pairing (orca-orca, orca-rxe, rxe-rxe)"
		continue
	fi
	if [ "$PAIR_ROLE" = a ]; then peer_prov=${mode#*-}; else peer_prov=${mode%-*}; fi
	dev=$(devname "$prov")
	peer_dev=$(devname "$peer_prov")
	baseline=
	if dev_up "$prov" "$dev" >/tmp/pair-setup.out 2>&1; then
		baseline=$(pair_res_summary "$dev")
	fi
	if [ -n "$baseline" ]; then
		point OK "$mode: setup: [$PAIR_ROLE $dev] rdma link add $dev type $prov netdev eth1, with the RoCE v2 GID of $ORCA_SELF_IP"
		diag_line="$dev baseline: $baseline"
		echo "# $diag_line"
	else
		point FAIL "$mode: setup: [$PAIR_ROLE $dev] rdma link add $dev type $prov netdev eth1, with the RoCE v2 GID of $ORCA_SELF_IP"
		indent </tmp/pair-setup.out
	fi
	sync "$mode.up" 300

	t_idx=0
	broken=
	for t in "${tests[@]}"; do
		t_idx=$((t_idx + 1))
		name=$(basename "$t")
		section "$mode $name"
		if [ -n "$broken" ]; then
			point FAIL "$mode: $name: [$PAIR_ROLE $dev] not run: $broken failed in this pairing (run-pair.sh --keep-going runs every .t)"
			continue
		fi
		failed_before=$failed
		limit=$T_TIMEOUT
		own=$(sed -n 's/^# pair-timeout: \([0-9][0-9]*\)$/\1/p' "$t" | head -n 1)
		[ -n "$own" ] && [ "$own" -gt "$limit" ] && limit=$own
		sync "$mode: $name: begin" $((limit + 120))
		start=$EPOCHSECONDS
		klog_from=$(($(dmesg_lines) + 1))
		rc=0
		PAIR_MODE=$mode PAIR_DEV=$dev PAIR_PEER_DEV=$peer_dev \
			PAIR_KEY="$mode.${name%.t}" \
			PAIR_PORT_BASE=$((20000 + mode_idx * 2000 + t_idx * 100)) \
			timeout -k 10 "$limit" "$t" </dev/null >/tmp/pair-t.out 2>/tmp/pair-t.err || rc=$?
		end=$EPOCHSECONDS
		planned=
		ran=0
		while IFS= read -r line; do
			if [[ "$line" =~ ^1\.\.([0-9]+) ]]; then
				planned=${BASH_REMATCH[1]}
			elif [[ "$line" =~ ^ok\ [0-9]+( -)?\ ?(.*)$ ]]; then
				ran=$((ran + 1))
				desc=${BASH_REMATCH[2]}
				if [[ "$desc" =~ \#\ *(SKIP|TODO) ]]; then
					point FAIL "$mode: $name: $desc (skipped/todo is not a pass)"
				else
					point OK "$mode: $name: $desc"
				fi
			elif [[ "$line" =~ ^not\ ok\ [0-9]+( -)?\ ?(.*)$ ]]; then
				ran=$((ran + 1))
				point FAIL "$mode: $name: ${BASH_REMATCH[2]}"
			else
				echo "# $line"
			fi
		done </tmp/pair-t.out
		if [ -s /tmp/pair-t.err ]; then
			echo "# stderr of $name:"
			indent </tmp/pair-t.err | tail -n 30
		fi
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			point FAIL "$mode: $name: [$PAIR_ROLE $dev] timed out after $limit s"
		elif [ -z "$planned" ]; then
			point FAIL "$mode: $name: [$PAIR_ROLE $dev] no plan (exit status $rc, $ran points)"
		elif [ "$planned" -ne "$ran" ]; then
			point FAIL "$mode: $name: [$PAIR_ROLE $dev] planned $planned test points, ran $ran (exit status $rc)"
		elif [ "$rc" -ne 0 ] && ! grep -q '^not ok' /tmp/pair-t.out; then
			point FAIL "$mode: $name: [$PAIR_ROLE $dev] exited with status $rc although every point passed"
		fi
		echo "# $mode: $name took $((end - start)) s on $PAIR_ROLE"
		# What a failure leaves to go on: e2e's stall report (tasks in D
		# state, the device's queues and counters, the kernel's log of
		# the .t).
		if [ "$failed" -gt "$failed_before" ]; then
			ORCA_DEV=$dev stall_report "$klog_from"
		fi
		# A qdisc a .t left on eth1 (netem) would spoil the next ones.
		if tc qdisc show dev eth1 | grep -q netem; then
			point FAIL "$mode: $name: [$PAIR_ROLE $dev] left a netem qdisc on eth1 (removed)"
			tc qdisc show dev eth1 | indent
			tc qdisc del dev eth1 root
		fi
		# The device is back to what it held fresh.
		if [ -n "$baseline" ]; then
			fresh() {
				have=$(pair_res_summary "$dev")
				[ "$have" = "$baseline" ]
			}
			if poll_until 60 fresh || fresh; then
				point OK "$mode: $name: [$PAIR_ROLE $dev] holds what it held fresh ($have)"
			else
				point FAIL "$mode: $name: [$PAIR_ROLE $dev] holds ${have:-nothing (not listed)}, fresh it held $baseline"
				rdma resource show 2>&1 | indent
			fi
		fi
		sync "$mode: $name: end" $((limit + 120)) $((failed - failed_before)) || SYNC_PEER=1
		if [ "$KEEP_GOING" -eq 0 ] && { [ "$failed" -gt "$failed_before" ] || [ "$SYNC_PEER" != 0 ]; }; then
			broken=$name
		fi
	done

	section "$mode teardown"
	if dev_down "$prov" "$dev" >/tmp/pair-down.out 2>&1; then
		point OK "$mode: teardown: [$PAIR_ROLE $dev] rdma link delete $dev, its modules unloaded"
	else
		point FAIL "$mode: teardown: [$PAIR_ROLE $dev] rdma link delete $dev, its modules unloaded"
		indent </tmp/pair-down.out
	fi
	sync "$mode.down" 300
	t=$EPOCHSECONDS
	echo "# $mode: the pairing took $((t - mode_t0)) s on $PAIR_ROLE"
done

section end
sync end 300
[ -z "${PAIR_MAILBOX_PID:-}" ] || kill "$PAIR_MAILBOX_PID" 2>/dev/null
echo "1..$n"
[ "$failed" -eq 0 ]
