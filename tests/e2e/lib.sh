# SPDX-License-Identifier: GPL-2.0-only
#
# TAP helpers for the guest end-to-end tests (tests/e2e/*.t).  Each .t
# file sources this, runs inside the guest as root with orca0 already
# created on eth0 (see run-in-guest.sh), and prints TAP on stdout.

set -u

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$E2E_DIR/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
E2E_BIN=$BUILD_DIR/tests/e2e
# The tree holding the kernel modules built for the running kernel
# (drivers/orca/orca.ko, ...): the repository for the stock kernel,
# build/kunit/src for the debug kernel (run-in-guest.sh --ko-root).
ORCA_KO_ROOT=${ORCA_KO_ROOT:-$REPO}

# libibverbs 44 has no config-dir override; RDMAV_DRIVERS names extra
# providers by path (it appends -rdmav34.so) on top of /etc/libibverbs.d.
export RDMAV_DRIVERS=$BUILD_DIR/userspace/liborca

ORCA_DEV=${ORCA_DEV:-orca0}
ORCA_NETDEV=${ORCA_NETDEV:-eth0}
. "$E2E_DIR/lib-stall.sh"

_tap_n=0
_tap_failed=0

plan() {
	echo "1..$1"
}

ok() {
	local cond=$1
	shift
	_tap_n=$((_tap_n + 1))
	if [ "$cond" -eq 0 ]; then
		echo "ok $_tap_n - $*"
	else
		echo "not ok $_tap_n - $*"
		_tap_failed=$((_tap_failed + 1))
	fi
}

# check DESCRIPTION COMMAND...: one test point from a command's status.
check() {
	local desc=$1
	shift
	"$@" >/tmp/e2e-check.out 2>&1
	local rc=$?
	ok "$rc" "$desc"
	[ "$rc" -eq 0 ] || sed 's/^/# /' /tmp/e2e-check.out
	return "$rc"
}

diag() {
	echo "# $*"
}

# wait_for SECONDS COMMAND...: poll until COMMAND succeeds.
wait_for() {
	local deadline=$(($(date +%s) + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$deadline" ] && return 1
		sleep 0.2
	done
}

port_state() {
	ibv_devinfo -d "$ORCA_DEV" 2>/dev/null |
		sed -n 's/^[[:space:]]*state:[[:space:]]*\([A-Z_]*\).*/\1/p'
}

port_is() {
	[ "$(port_state)" = "$1" ]
}

done_testing() {
	[ "$_tap_failed" -eq 0 ]
	exit $?
}
