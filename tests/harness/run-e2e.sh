#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host side of the end-to-end suite: builds the e2e helper programs, boots
# one guest with tests/harness/run-guest.sh, runs tests/e2e/run-in-guest.sh
# in it (all *.t in one boot), and adds one test point for what the
# harness itself checks: no kernel report, no hang, orca and orca_soft
# unloaded.  Prints TAP.
#
#   run-e2e.sh [--timeout SEC] [--out DIR] [run-guest.sh options...] [-- T...]

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
TIMEOUT=1800
OUT=$BUILD_DIR/e2e
ARGS=()
while [ "$#" -gt 0 ]; do
	case "$1" in
	--timeout) TIMEOUT=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--) shift; break ;;
	*) ARGS+=("$1"); shift ;;
	esac
done
rm -rf "$OUT"
mkdir -p "$OUT"

n=0
if [ -f "$REPO/tests/e2e/Makefile" ]; then
	n=$((n + 1))
	if make -C "$REPO/tests/e2e" BUILD_DIR="$BUILD_DIR" >"$OUT/build.log" 2>&1; then
		echo "ok $n - e2e helper programs build"
	else
		echo "not ok $n - e2e helper programs build"
		tail -n 20 "$OUT/build.log" | sed 's/^/#   /'
	fi
fi

# The guest's TAP is renumbered after our own points.
rc=0
"$HERE/run-guest.sh" "${ARGS[@]}" --timeout "$TIMEOUT" --out "$OUT/guest" \
	--unload "orca orca_soft" -- tests/e2e/run-in-guest.sh "$@" \
	>"$OUT/guest.tap" 2>"$OUT/harness.err" || rc=$?
ran=0
while IFS= read -r line; do
	if [[ "$line" =~ ^(not\ )?ok\ [0-9]+(.*)$ ]]; then
		n=$((n + 1))
		ran=$((ran + 1))
		echo "${BASH_REMATCH[1]}ok $n${BASH_REMATCH[2]}"
	elif [[ "$line" =~ ^1\.\. ]]; then
		:
	else
		echo "$line"
	fi
done <"$OUT/guest.tap"
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
