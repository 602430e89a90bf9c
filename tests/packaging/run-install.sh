#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check's install stage: build the Debian packages (make deb, with
# lintian), then boot a stock-kernel guest that has nothing of Orca in it
# and run install-in-guest.sh there: apt-get installs the two packages
# (DKMS builds the modules for the guest's kernel), orca0 comes up with
# no manual module loading and no environment variable, ibv_devices and
# ibv_rc_pingpong work, the man pages read, and apt-get remove --purge
# leaves nothing behind.  Prints TAP; the guest's points follow make
# deb's, then one point for what the harness checks (no kernel report,
# no hang).
#
#   run-install.sh [--out DIR] [--timeout SEC]

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
OUT=$BUILD_DIR/install
TIMEOUT=1200
while [ "$#" -gt 0 ]; do
	case "$1" in
	--out) OUT=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	*) echo "run-install.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
rm -rf "$OUT"
mkdir -p "$OUT"

n=1
t0=$(date +%s)
if "$REPO/scripts/build-deb.sh" >"$OUT/deb.log" 2>&1; then
	echo "ok $n - make deb: orca-dkms and liborca built, lintian reports no error ($(($(date +%s) - t0)) s)"
	sed 's/^/# /' "$OUT/deb.log"
else
	echo "not ok $n - make deb: orca-dkms and liborca built, lintian reports no error"
	sed 's/^/# /' "$OUT/deb.log"
	echo "1..$n"
	exit 1
fi

rc=0
"$REPO/tests/harness/run-guest.sh" --timeout "$TIMEOUT" --out "$OUT/guest" \
	--unload "orca orca_soft" -- tests/packaging/install-in-guest.sh "$BUILD_DIR/deb" \
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
if [ -s "$OUT/guest/findings" ] || [ "$rc" -ne 0 ] || [ "$ran" -eq 0 ]; then
	echo "not ok $n - install guest: no kernel report, no hang, every point passed (status $rc, $ran points)"
	rc=1
else
	echo "ok $n - install guest: no kernel report, no hang ($ran points, $(($(date +%s) - t0)) s in all)"
fi
echo "1..$n"
exit "$rc"
