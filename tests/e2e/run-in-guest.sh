#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the end-to-end suite: runs inside a harness guest (see
# tests/harness/run-e2e.sh), as root, cwd = the repository.
#
#   1. modprobe ib_core, ib_uverbs (and the modules' other dependencies),
#      insmod drivers/orca_soft/orca_soft.ko and drivers/orca/orca.ko from
#      the build tree;
#   2. rdma link add orca0 type orca netdev eth0;
#   3. runs every executable tests/e2e/*.t (or those named as arguments)
#      in order, each under a time limit; before each one, orca0 is brought
#      back if an earlier test left it gone;
#   4. removes orca and orca_soft (the harness then checks they are gone).
#
# Prints one flat TAP stream: each test point of each .t becomes
# "ok N - <file>: <description>"; a .t that dies, times out, or runs a
# different number of points than it planned adds a failing point.

set -uo pipefail

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$E2E_DIR/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
SOFT_KO=$REPO/drivers/orca_soft/orca_soft.ko
ORCA_KO=$REPO/drivers/orca/orca.ko
ORCA_DEV=orca0
ORCA_NETDEV=eth0
T_TIMEOUT=${E2E_TEST_TIMEOUT:-300}

export BUILD_DIR ORCA_DEV ORCA_NETDEV
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
		[ -e "/sys/class/infiniband/$ORCA_DEV" ] && return 0
		sleep 0.1
	done
	echo "$ORCA_DEV did not appear"
	return 1
}

if [ "$#" -gt 0 ]; then
	tests=("$@")
else
	tests=()
	for t in "$E2E_DIR"/*.t; do
		[ -x "$t" ] && tests+=("$t")
	done
fi

if setup >/tmp/e2e-setup.out 2>&1; then
	point OK "setup: load ib_core, ib_uverbs, orca_soft.ko, orca.ko; rdma link add $ORCA_DEV type orca netdev $ORCA_NETDEV"
	up=1
else
	point FAIL "setup: load ib_core, ib_uverbs, orca_soft.ko, orca.ko; rdma link add $ORCA_DEV type orca netdev $ORCA_NETDEV"
	indent </tmp/e2e-setup.out
	up=0
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
	start=$(date +%s)
	timeout -k 10 "$T_TIMEOUT" "$t" </dev/null >/tmp/e2e-t.out 2>/tmp/e2e-t.err
	rc=$?
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
		point FAIL "$name: timed out after $T_TIMEOUT s"
	elif [ -z "$planned" ]; then
		point FAIL "$name: no plan (exit status $rc, $ran points)"
	elif [ "$planned" -ne "$ran" ]; then
		point FAIL "$name: planned $planned test points, ran $ran (exit status $rc)"
	elif [ "$rc" -ne 0 ] && [ "$ran" -gt 0 ] &&
		! grep -q '^not ok' /tmp/e2e-t.out; then
		point FAIL "$name: exited with status $rc although every point passed"
	fi
	echo "# $name took $(($(date +%s) - start)) s"
done

# Teardown: the harness checks afterwards that these are gone.
rdma link delete "$ORCA_DEV" >/dev/null 2>&1
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
