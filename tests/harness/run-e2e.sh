#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host side of the end-to-end suite: builds the e2e helper programs, boots
# one guest with tests/harness/run-guest.sh, runs tests/e2e/run-in-guest.sh
# in it (all *.t in one boot), and adds one test point for what the
# harness itself checks: no kernel report, no hang, orca and orca_soft
# unloaded.  Prints TAP.
#
#   run-e2e.sh [--debug-kernel] [--exclude GLOB]... [--test-timeout SEC]
#              [--timeout SEC] [--kmemleak-every N] [--out DIR]
#              [--env NAME=VALUE]...
#              [run-guest.sh options...] [-- T...]
#
# --debug-kernel   boot the KUnit/debug kernel (KASAN, lockdep, kmemleak,
#                  DEBUG_OBJECTS: tests/kunit/build-kernel.sh) instead of
#                  the stock one, with a 1 GiB guest and the modules built
#                  against it by tests/kunit/build-modules.sh (in
#                  build/kunit/src, as run-kunit.sh does); the userspace
#                  programs are the same.  Artifacts go to build/e2e-debug.
# --exclude GLOB   do not run the .t files whose name matches GLOB (on
#                  the stock kernel, DEBUG_ONLY below are left out too)
# --test-timeout   per-.t time limit in the guest (default 300 s)
# --kmemleak-every N  on a kernel with kmemleak, scan after every Nth .t
#                  (and the last) instead of after each
# --env NAME=VALUE set NAME in the environment of the .t files

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=tests/harness/lib-tap.sh
. "$HERE/lib-tap.sh"
BUILD_DIR=${BUILD_DIR:-$REPO/build}
TIMEOUT=1800
OUT=
DEBUG=0
ARGS=()
GUEST_ARGS=()
ENVS=()
while [ "$#" -gt 0 ]; do
	case "$1" in
	--timeout) TIMEOUT=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--debug-kernel) DEBUG=1; shift ;;
	--exclude) GUEST_ARGS+=(--exclude "$2"); shift 2 ;;
	--test-timeout) GUEST_ARGS+=(--test-timeout "$2"); shift 2 ;;
	--kmemleak-every) GUEST_ARGS+=(--kmemleak-every "$2"); shift 2 ;;
	--env) ENVS+=("$2"); shift 2 ;;
	--) shift; break ;;
	*) ARGS+=("$1"); shift ;;
	esac
done
# .t files that need the debug kernel's own facilities (fault injection):
# on the stock kernel they are not run.
DEBUG_ONLY=(77-fail-nth.t)
if [ "$DEBUG" -eq 0 ]; then
	for t in "${DEBUG_ONLY[@]}"; do
		GUEST_ARGS+=(--exclude "$t")
	done
fi
if [ -z "$OUT" ]; then
	OUT=$BUILD_DIR/e2e
	[ "$DEBUG" -eq 0 ] || OUT=$BUILD_DIR/e2e-debug
fi
rm -rf "$OUT"
mkdir -p "$OUT"

n=0
if [ -f "$REPO/tests/e2e/Makefile" ]; then
	n=$((n + 1))
	# make check runs the stock and debug suites side by side: one
	# build of the shared programs at a time.
	mkdir -p "$BUILD_DIR"
	if flock "$BUILD_DIR/.e2e-progs.lock" \
		make -C "$REPO/tests/e2e" BUILD_DIR="$BUILD_DIR" >"$OUT/build.log" 2>&1; then
		echo "ok $n - e2e helper programs build"
	else
		echo "not ok $n - e2e helper programs build"
		tail -n 20 "$OUT/build.log" | sed 's/^/#   /'
	fi
fi

KERNEL_ARGS=()
if [ "$DEBUG" -eq 1 ]; then
	n=$((n + 1))
	if env_lines=$("$REPO/tests/kunit/build-modules.sh" 2>"$OUT/modules-build.err"); then
		eval "$env_lines"
		echo "ok $n - modules build against the debug kernel $KUNIT_KREL"
		KERNEL_ARGS=(--kernel-image "$KUNIT_KERNEL_IMAGE" --modules-dir "$KUNIT_MODROOT" --mem 1024)
		GUEST_ARGS+=(--ko-root "$KUNIT_MODSRC")
	else
		echo "not ok $n - modules build against the debug kernel"
		tail -n 20 "$OUT/modules-build.err" | sed 's/^/#   /'
		echo "1..$n"
		exit 1
	fi
fi

# The guest's TAP is renumbered after our own points.
rc=0
"$HERE/run-guest.sh" "${KERNEL_ARGS[@]}" "${ARGS[@]}" --timeout "$TIMEOUT" --out "$OUT/guest" \
	--unload "orca orca_soft" -- env "${ENVS[@]}" tests/e2e/run-in-guest.sh "${GUEST_ARGS[@]}" -- "$@" \
	>"$OUT/guest.tap" 2>"$OUT/harness.err" || rc=$?
ran=0
tap_renumber "$OUT/guest.tap"
sed 's/^/# /' "$OUT/harness.err"

n=$((n + 1))
if [ -s "$OUT/guest/findings" ] || [ "$rc" -eq 99 ]; then
	echo "not ok $n - e2e guest: harness found kernel reports, a hang or a module that would not unload"
	sed 's/^/#   /' "$OUT/guest/findings"
elif [ "$ran" -eq 0 ]; then
	echo "not ok $n - e2e guest: no test points came back (status $rc)"
else
	echo "ok $n - e2e guest: no kernel report, no hang, orca and orca_soft unloaded"
fi
echo "1..$n"
[ "$rc" -eq 0 ]
