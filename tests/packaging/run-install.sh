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
# shellcheck source=tests/harness/lib-tap.sh
. "$HERE/../harness/lib-tap.sh"
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
bad=0
tap() { # tap STATUS DESCRIPTION: point number $n
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		bad=$((bad + 1))
	fi
}

# make install into a staging root, then make uninstall: exactly the
# files listed in the README, and nothing left afterwards.
stage=$OUT/destdir
want="etc/libibverbs.d/orca.driver
lib/modules/KREL/updates/orca/orca.ko
lib/modules/KREL/updates/orca/orca_soft.ko
usr/include/infiniband/orcadv.h
usr/lib/MULTIARCH/libibverbs/liborca-rdmav34.so
usr/share/doc/orca/README
usr/share/doc/orca/index.rst
usr/share/doc/orca/liborca.md
usr/share/doc/orca/orca-hw-interface.rst
usr/share/man/man4/orca_soft.4
usr/share/man/man7/orca.7"
n=1
if make -C "$REPO" install DESTDIR="$stage" >"$OUT/make-install.log" 2>&1; then
	# The release the modules were built for, as modprobe will match it.
	krel=$(modinfo -F vermagic "$REPO/drivers/orca/orca.ko" | cut -d' ' -f1)
	want=$(echo "$want" | sed "s/KREL/$krel/; s/MULTIARCH/$(cc -print-multiarch)/")
	got=$(cd "$stage" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
	[ "$got" = "$want" ] && [ "$(cat "$stage/etc/libibverbs.d/orca.driver")" = "driver orca" ]
	rc=$?
else
	rc=1
fi
tap "$rc" "make install DESTDIR=...: the modules, liborca, orca.driver, man pages and docs"
(cd "$stage" 2>/dev/null && find . -type f | sort) | sed 's/^/# /'
n=$((n + 1))
make -C "$REPO" uninstall DESTDIR="$stage" >>"$OUT/make-install.log" 2>&1
left=$(find "$stage" -type f 2>/dev/null)
[ -z "$left" ]
tap $? "make uninstall DESTDIR=...: no file left${left:+: $left}"

n=$((n + 1))
t0=$(date +%s)
if "$REPO/scripts/build-deb.sh" >"$OUT/deb.log" 2>&1; then
	echo "ok $n - make deb: orca-dkms, liborca and liborca-dev built, lintian reports no error ($(($(date +%s) - t0)) s)"
	sed 's/^/# /' "$OUT/deb.log"
else
	echo "not ok $n - make deb: orca-dkms, liborca and liborca-dev built, lintian reports no error"
	sed 's/^/# /' "$OUT/deb.log"
	echo "1..$n"
	exit 1
fi

rc=0
"$REPO/tests/harness/run-guest.sh" --timeout "$TIMEOUT" --out "$OUT/guest" \
	--unload "orca orca_soft" -- tests/packaging/install-in-guest.sh "$BUILD_DIR/deb" \
	>"$OUT/guest.tap" 2>"$OUT/harness.err" || rc=$?
ran=0
tap_renumber "$OUT/guest.tap"
sed 's/^/# /' "$OUT/harness.err"

n=$((n + 1))
if [ -s "$OUT/guest/findings" ] || [ "$rc" -ne 0 ] || [ "$ran" -eq 0 ]; then
	echo "not ok $n - install guest: no kernel report, no hang, every point passed (status $rc, $ran points)"
	rc=1
else
	echo "ok $n - install guest: no kernel report, no hang ($ran points, $(($(date +%s) - t0)) s in all)"
fi
echo "1..$n"
[ "$bad" -eq 0 ] || rc=1
exit "$rc"
