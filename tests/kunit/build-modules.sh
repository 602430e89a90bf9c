#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build all of Orca's kernel modules (driver, software HCA, KUnit suites,
# e2e and self-test modules) against the KUnit/debug kernel.
#
#   tests/kunit/build-modules.sh
#
# 1. builds (or reuses) the kernel: tests/kunit/build-kernel.sh;
# 2. copies the module sources into build/kunit/src, so that the objects
#    in the work tree (built for the stock kernel) are left alone, and
#    builds them there with W=1 (incremental: mtimes are kept).
#
# Shared by tests/kunit/run-kunit.sh and tests/harness/run-e2e.sh
# --debug-kernel.  On success stdout holds, in shell syntax, the four
# KUNIT_* lines of build-kernel.sh --print-env and
#   KUNIT_MODSRC=<tree with drivers/orca/orca.ko etc.>
#   KUNIT_MODLOG=<the module build's log>
# Progress and errors go to stderr.  Runs are serialized by a lock.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}

die() {
	echo "build-modules: $*" >&2
	exit 2
}

ENV_LINES=$("$HERE/build-kernel.sh" --print-env) || die "building the KUnit kernel failed"
eval "$ENV_LINES"
for v in KUNIT_KERNEL_IMAGE KUNIT_KDIR KUNIT_MODROOT KUNIT_KREL; do
	[ -n "${!v:-}" ] || die "build-kernel.sh did not report $v"
done

WORK=$BUILD_DIR/kunit
SRC=$WORK/src
BLOG=$WORK/modules-build.log
mkdir -p "$SRC"
exec 9>"$WORK/.src.lock"
flock 9

# Only the inputs of the kernel build; mtimes are kept, so the build
# stays incremental.  make check runs this beside the tree's own build,
# whose kbuild temporaries (.tmp_*/, *.mod.c) come and go meanwhile:
# they are not inputs, and one that vanishes mid-copy (rsync's status
# 24) is no failure.
rc=0
rsync -a --delete --prune-empty-dirs \
	--exclude=/build/ --exclude=/userspace/ --exclude=.git/ \
	--exclude='.tmp_*/' --exclude='*.mod.c' \
	--include='*/' --include=Kbuild --include='*.c' --include='*.h' \
	--exclude='*' "$REPO/" "$SRC/" || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 24 ] || die "copying the sources failed (rsync status $rc)"

echo "build-modules: building modules against $KUNIT_KREL (log: $BLOG)" >&2
if ! make -C "$KUNIT_KDIR" M="$SRC" W=1 modules >"$BLOG" 2>&1; then
	tail -n 30 "$BLOG" >&2
	die "module build against $KUNIT_KDIR failed"
fi

printf '%s\n' "$ENV_LINES"
printf 'KUNIT_MODSRC=%q\n' "$SRC"
printf 'KUNIT_MODLOG=%q\n' "$BLOG"
