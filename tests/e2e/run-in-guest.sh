#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the end-to-end suite: runs inside a harness guest (see
# tests/harness/run-e2e.sh), as root, cwd = the repository.
#
#   run-in-guest.sh [--ko-root DIR] [--exclude GLOB]... [--test-timeout SEC]
#                   [--] [T...]
#
#   1. when the kernel has kmemleak: a scan, then "clear", so that what
#      the boot left unreferenced is not counted against the tests;
#   2. modprobe ib_core, ib_uverbs (and the modules' other dependencies),
#      insmod drivers/orca_soft/orca_soft.ko and drivers/orca/orca.ko from
#      --ko-root (default: the repository; the modules must be built for
#      the running kernel, e.g. build/kunit/src for the debug kernel);
#   3. rdma link add orca0 type orca netdev eth0;
#   4. runs every executable tests/e2e/*.t (or those named as arguments)
#      whose name matches no --exclude glob, in order, each under a time
#      limit (--test-timeout, default 300 s, or the test's own
#      "# e2e-timeout: SEC" line if that is longer); before each one,
#      orca0 is brought back if an earlier test left it gone;
#   5. after each one, two leak checks (see leak_points below): no
#      pd/cq/qp/mr/srq of orca0 left in "rdma resource show", and, when
#      the kernel has kmemleak, no new leak in a kmemleak scan;
#   6. removes orca and orca_soft (the harness then checks they are gone).
#
# Prints one flat TAP stream: each test point of each .t becomes
# "ok N - <file>: <description>"; a .t that dies, times out, or runs a
# different number of points than it planned adds a failing point.

set -euo pipefail

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$E2E_DIR/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
ORCA_KO_ROOT=$REPO
T_TIMEOUT=${E2E_TEST_TIMEOUT:-300}
KMEMLEAK_EVERY=1
EXCLUDE=()
while [ "$#" -gt 0 ]; do
	case "$1" in
	--ko-root) ORCA_KO_ROOT=$(cd "$2" && pwd); shift 2 ;;
	--exclude) EXCLUDE+=("$2"); shift 2 ;;
	--test-timeout) T_TIMEOUT=$2; shift 2 ;;
	--kmemleak-every) KMEMLEAK_EVERY=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "run-in-guest.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
SOFT_KO=$ORCA_KO_ROOT/drivers/orca_soft/orca_soft.ko
ORCA_KO=$ORCA_KO_ROOT/drivers/orca/orca.ko
ORCA_DEV=orca0
ORCA_NETDEV=eth0
KMEMLEAK=/sys/kernel/debug/kmemleak
# The object types whose leftovers count as a leak.
RES_TYPES=(pd cq qp mr srq)

export BUILD_DIR ORCA_DEV ORCA_NETDEV ORCA_KO_ROOT
export IBV_CONFIG_DIR=$BUILD_DIR/userspace/libibverbs.d
export RDMAV_DRIVERS=$BUILD_DIR/userspace/liborca

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
# shellcheck source=tests/e2e/lib-stall.sh
. "$E2E_DIR/lib-stall.sh"

# modprobe what a module file depends on, then insmod it.
load_ko() {
	local ko=$1 dep
	[ -f "$ko" ] || { echo "$ko not built"; return 1; }
	for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do
		modprobe "$dep" || return 1
	done
	insmod "$ko"
}

is_loaded() { [ -e "/sys/module/$1/initstate" ]; }

# Bring up orca0 from whatever state an earlier test left.
setup() {
	modprobe ib_core && modprobe ib_uverbs || return 1
	if ! is_loaded orca_soft; then
		load_ko "$SOFT_KO" || return 1
	fi
	if ! is_loaded orca; then
		load_ko "$ORCA_KO" || return 1
	fi
	if [ ! -e "/sys/class/infiniband/$ORCA_DEV" ]; then
		rdma link add "$ORCA_DEV" type orca netdev "$ORCA_NETDEV" || return 1
	fi

	for _ in $(seq 100); do
		[ -e "/sys/class/infiniband/$ORCA_DEV" ] && break
		sleep 0.1
	done
	if [ ! -e "/sys/class/infiniband/$ORCA_DEV" ]; then
		echo "$ORCA_DEV did not appear"
		return 1
	fi
	# ib_core fills the GID table from the netdev's addresses in a work
	# item of its own: a test must not find it still empty.
	gids_ready
}

# gids_ready: the RoCE v2 GID of $ORCA_NETDEV's IPv4 address is in the
# table (when the netdev has one and is up), within 30 s.
gids_ready() {
	local ip want a b c d
	[ "$(cat "/sys/class/net/$ORCA_NETDEV/operstate" 2>/dev/null)" = up ] ||
		return 0
	ip=$(ip -4 -o addr show dev "$ORCA_NETDEV" 2>/dev/null |
		awk '{ print $4 }' | cut -d/ -f1 | head -n1)
	[ -n "$ip" ] || return 0
	IFS=. read -r a b c d <<<"$ip"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
		"$a" "$b" "$c" "$d")
	for _ in $(seq 300); do
		grep -qx "$want" "/sys/class/infiniband/$ORCA_DEV/ports/1/gids/"* 2>/dev/null &&
			return 0
		sleep 0.1
	done
	echo "$ORCA_DEV has no GID for $ORCA_NETDEV's address $ip after 30 s"
	return 1
}

# ---- leak checks ------------------------------------------------------------

# res_counts: "pd N cq N qp N mr N srq N" of orca0 from the summary line
# of "rdma resource show" ("0: orca0: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0
# srq 0"); empty if orca0 is not listed.
# The CQs of ib_core's shared CQ pool (ib_cq_pool_get: nvmet-rdma,
# svcrdma) are not counted: the pool keeps them until the device is
# unregistered.  They are the CQs ib_core allocated itself that no QP
# uses (ib_mad's own CQ always has its QPs).
res_counts() {
	local pool
	pool=$(rdma resource show cq 2>/dev/null |
		grep -E "^(dev|link) $ORCA_DEV(/[0-9-]+)? " |
		grep -c ' users 0 .*comm \[ib_core\]')
	rdma resource show 2>/dev/null | awk -v dev="$ORCA_DEV:" -v types="${RES_TYPES[*]}" -v pool="$pool" '
	$2 == dev {
		for (i = 3; i < NF; i += 2)
			c[$i] = $(i + 1)
		c["cq"] -= pool
		k = split(types, t, " ")
		for (j = 1; j <= k; j++)
			printf "%s%s %s", (j > 1 ? " " : ""), t[j], ((t[j] in c) ? c[t[j]] : "?")
		print ""
	}'
}

# The "rdma resource show" baseline: what a fresh orca0 holds by design.
# Kernel clients that attach to every RDMA device (ib_core's MAD layer,
# with a GSI QP, its CQ and PD on devices where it runs) own objects that
# are not any test's leftovers; the counts of a freshly added orca0 are
# taken as the baseline and every test must leave orca0 at exactly those.
# On the current tree a fresh orca0 lists no pd/cq/qp/mr/srq at all (no
# MAD agent runs on it), so in practice each test must leave it empty.
RES_BASELINE=

# res_point NAME: orca0 holds no more and no fewer objects than the
# baseline.  User objects go when the process closes its uverbs file;
# a grace of 5 s covers teardown deferred to a workqueue.
res_point() {
	local name=$1 now='' t note=''
	if [ ! -e "/sys/class/infiniband/$ORCA_DEV" ]; then
		# ib_core destroys a departing device's objects with it; what
		# can be checked is the orca0 that the next test will use.
		note=" (orca0 was removed by the test and is re-created for the check)"
		if ! setup >/tmp/e2e-setup.out 2>&1; then
			point FAIL "$name: rdma resource show: could not bring $ORCA_DEV back to check it"
			indent </tmp/e2e-setup.out
			return
		fi
	fi
	for _ in $(seq 50); do
		now=$(res_counts)
		[ "$now" = "$RES_BASELINE" ] && break
		sleep 0.1
	done
	if [ "$now" = "$RES_BASELINE" ]; then
		point OK "$name: rdma resource show: no pd/cq/qp/mr/srq of $ORCA_DEV left behind ($now)$note"
		return
	fi
	point FAIL "$name: rdma resource show: $ORCA_DEV holds ${now:-nothing (not listed)}, expected $RES_BASELINE$note"
	for t in "${RES_TYPES[@]}"; do
		rdma resource show "$t" dev "$ORCA_DEV" 2>&1 | indent || true
	done
}

# kmemleak does not report an object younger than 5 s at the start of a
# scan (its minimum age), so a scan waits until the test's last
# allocations are that old; otherwise they would be blamed on the next
# test.  A scan takes about 10 s on a 1 GiB debug guest: one per .t,
# about 15 s a test, is the cost.  The report file lists every object
# reported so far (nothing is cleared, so the harness's own scan at
# power-off still sees them); a record is new if its first two lines
# (address and size; comm, pid and jiffies) were not in the last report.
KMEMLEAK_MIN_AGE=5
KMEMLEAK_SEEN=/tmp/e2e-kmemleak.seen
: >"$KMEMLEAK_SEEN"

# kmemleak_scan: scan, the full report in /tmp/e2e-kmemleak.now.
kmemleak_scan() {
	echo scan >"$KMEMLEAK" && cat "$KMEMLEAK" >/tmp/e2e-kmemleak.now
}

# kmemleak_new OLD NEW: the records of NEW whose key is not in OLD.
kmemleak_new() {
	awk '
	/^unreferenced object / {
		hdr = $0
		getline comm
		key = hdr "|" comm
		if (FILENAME == ARGV[1]) {
			seen[key] = 1
			next
		}
		show = !(key in seen)
		if (show)
			print hdr "\n" comm
		next
	}
	FILENAME == ARGV[2] && show { print }
	' "$1" "$2"
}

kmemleak_point() { # kmemleak_point NAME END_TIME
	local name=$1 wait
	wait=$(($2 + KMEMLEAK_MIN_AGE - $(date +%s)))
	[ "$wait" -le 0 ] || sleep "$wait"
	if ! kmemleak_scan 2>/tmp/e2e-kmemleak.err; then
		point FAIL "$name: kmemleak scan failed"
		indent </tmp/e2e-kmemleak.err
		return
	fi
	kmemleak_new "$KMEMLEAK_SEEN" /tmp/e2e-kmemleak.now >/tmp/e2e-kmemleak.new
	cp /tmp/e2e-kmemleak.now "$KMEMLEAK_SEEN"
	if [ ! -s /tmp/e2e-kmemleak.new ]; then
		point OK "$name: kmemleak scan: no new suspected leak"
		return
	fi
	point FAIL "$name: kmemleak scan: $(grep -c '^unreferenced object' /tmp/e2e-kmemleak.new) new suspected leak(s)"
	head -n 300 /tmp/e2e-kmemleak.new | indent
}

# --kmemleak-every N: a kmemleak scan after every Nth .t and after the
# last (a scan costs about 15 s); a report then names the .t files since
# the last scan, and its backtraces say where each object came from.
# The 'rdma resource show' check still follows every .t.
KMEMLEAK_GROUP=()

leak_points() { # leak_points NAME END_TIME LAST(0|1)
	local t0 names
	t0=$(date +%s)
	res_point "$1"
	KMEMLEAK_GROUP+=("$1")
	if [ -e "$KMEMLEAK" ] &&
		{ [ "${#KMEMLEAK_GROUP[@]}" -ge "$KMEMLEAK_EVERY" ] || [ "$3" -eq 1 ]; }; then
		names=${KMEMLEAK_GROUP[*]}
		kmemleak_point "${names// /, }" "$2"
		KMEMLEAK_GROUP=()
	fi
	echo "# $1: leak checks took $(($(date +%s) - t0)) s"
}

# ---- the tests ----------------------------------------------------------------

excluded() {
	local g
	for g in "${EXCLUDE[@]}"; do
		# shellcheck disable=SC2053 # $g is a glob
		[[ "$1" == $g ]] && return 0
	done
	return 1
}

if [ "$#" -gt 0 ]; then
	candidates=("$@")
else
	candidates=()
	for t in "$E2E_DIR"/*.t; do
		[ -x "$t" ] && candidates+=("$t")
	done
fi
tests=()
for t in "${candidates[@]}"; do
	if excluded "$(basename "$t")"; then
		echo "# $(basename "$t"): excluded (--exclude)"
		continue
	fi
	tests+=("$t")
done

if [ -e "$KMEMLEAK" ]; then
	# Reports from the boot (before any of our modules load) are not ours.
	if kmemleak_scan 2>/tmp/e2e-kmemleak.err && echo clear >"$KMEMLEAK" 2>>/tmp/e2e-kmemleak.err; then
		point OK "kmemleak: scan and clear before the suite ($(grep -c '^unreferenced object' /tmp/e2e-kmemleak.now) boot-time report(s) cleared)"
	else
		point FAIL "kmemleak: scan and clear before the suite"
		indent </tmp/e2e-kmemleak.err
	fi
fi

up=0
if setup >/tmp/e2e-setup.out 2>&1; then
	RES_BASELINE=$(res_counts)
	if [ -n "$RES_BASELINE" ]; then
		point OK "setup: load ib_core, ib_uverbs, orca_soft.ko, orca.ko; rdma link add $ORCA_DEV type orca netdev $ORCA_NETDEV"
		echo "# rdma resource show baseline of a fresh $ORCA_DEV: $RES_BASELINE"
		up=1
	else
		point FAIL "setup: $ORCA_DEV is not listed by rdma resource show"
		rdma resource show 2>&1 | indent
	fi
else
	point FAIL "setup: load ib_core, ib_uverbs, orca_soft.ko, orca.ko; rdma link add $ORCA_DEV type orca netdev $ORCA_NETDEV"
	indent </tmp/e2e-setup.out
fi

[ "${#tests[@]}" -gt 0 ] || point FAIL "no executable tests/e2e/*.t found"

for t in "${tests[@]}"; do
	name=$(basename "$t")
	if [ "$up" -eq 1 ] && ! setup >/tmp/e2e-setup.out 2>&1; then
		point FAIL "$name: could not bring $ORCA_DEV back before the test"
		indent </tmp/e2e-setup.out
		continue
	elif [ "$up" -eq 0 ]; then
		point FAIL "$name: not run, setup failed"
		continue
	fi
	echo "# --- $name"
	limit=$T_TIMEOUT
	own=$(sed -n 's/^# e2e-timeout: \([0-9][0-9]*\)$/\1/p' "$t" | head -n 1)
	[ -n "$own" ] && [ "$own" -gt "$limit" ] && limit=$own
	start=$(date +%s)
	log0=$(($(dmesg_lines) + 1))
	rc=0
	timeout -k 10 "$limit" "$t" </dev/null >/tmp/e2e-t.out 2>/tmp/e2e-t.err || rc=$?
	end=$(date +%s)
	planned=
	ran=0
	while IFS= read -r line; do
		if [[ "$line" =~ ^1\.\.([0-9]+) ]]; then
			planned=${BASH_REMATCH[1]}
		elif [[ "$line" =~ ^ok\ [0-9]+( -)?\ ?(.*)$ ]]; then
			ran=$((ran + 1))
			desc=${BASH_REMATCH[2]}
			if [[ "$desc" =~ \#\ *(SKIP|TODO) ]]; then
				point FAIL "$name: $desc (skipped/todo is not a pass)"
			else
				point OK "$name: $desc"
			fi
		elif [[ "$line" =~ ^not\ ok\ [0-9]+( -)?\ ?(.*)$ ]]; then
			ran=$((ran + 1))
			point FAIL "$name: ${BASH_REMATCH[2]}"
		else
			echo "# $line"
		fi
	done </tmp/e2e-t.out
	if [ -s /tmp/e2e-t.err ]; then
		echo "# stderr of $name:"
		indent </tmp/e2e-t.err | tail -n 30
	fi
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		point FAIL "$name: timed out after $limit s"
		stall_report "$log0"
	elif [ -z "$planned" ]; then
		point FAIL "$name: no plan (exit status $rc, $ran points)"
	elif [ "$planned" -ne "$ran" ]; then
		point FAIL "$name: planned $planned test points, ran $ran (exit status $rc)"
	elif [ "$rc" -ne 0 ] && [ "$ran" -gt 0 ] &&
		! grep -q '^not ok' /tmp/e2e-t.out; then
		point FAIL "$name: exited with status $rc although every point passed"
	fi
	echo "# $name took $((end - start)) s"
	last=0
	[ "$t" = "${tests[-1]}" ] && last=1
	leak_points "$name" "$end" "$last"
done

# Teardown: the harness checks afterwards that these are gone.
rdma link delete "$ORCA_DEV" >/dev/null 2>&1 || true
td=OK
for m in orca orca_soft; do
	if is_loaded "$m" && ! timeout 120 rmmod "$m" 2>/tmp/e2e-rmmod.err; then
		td=FAIL
		indent </tmp/e2e-rmmod.err
	fi
done
point "$td" "teardown: rmmod orca orca_soft"

echo "1..$n"
[ "$failed" -eq 0 ]
