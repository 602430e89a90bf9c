#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Kernel style checks ('make style'), TAP output:
#   - checkpatch.pl --strict --no-tree -f on every kernel C/H file under
#     drivers/, tests/kunit/, tests/selftest/ and uapi/ (one test each);
#   - sparse over the out-of-tree modules: make C=2 (one test), failing on
#     any sparse report.
#
# checkpatch comes from linux-source-6.1, unpacked once (atomically) into
# ${ORCA_CACHE:-$HOME/.cache/orca}/linux-source-6.1, shared with the KUnit
# kernel build.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
ORCA_CACHE=${ORCA_CACHE:-${HOME:-/root}/.cache/orca}
TARBALL=/usr/src/linux-source-6.1.tar.xz
SRC=$ORCA_CACHE/linux-source-6.1
ABI=${ORCA_KABI:-$(cat "$BUILD_DIR/kernel-abi" 2>/dev/null || true)}
KDIR=${KDIR:-/usr/src/linux-headers-$ABI}
LOGS=$BUILD_DIR/style
mkdir -p "$LOGS"

n=0
failed=0
tap() { # tap OK|FAIL description [diagnostic file]
	n=$((n + 1))
	if [ "$1" = OK ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
		if [ -n "${3:-}" ] && [ -s "$3" ]; then
			sed 's/^/#   /' "$3" | head -n 40
		fi
	fi
}

# Unpack the kernel source once; a partial unpack never takes the final
# name (unpack to a temporary directory, then rename).
unpack_source() {
	local tmp
	[ -f "$SRC/Makefile" ] && return 0
	[ -r "$TARBALL" ] || { echo "$TARBALL not found (make deps)" >&2; return 1; }
	mkdir -p "$ORCA_CACHE"
	tmp=$(mktemp -d "$ORCA_CACHE/.linux-source-6.1.XXXXXX")
	if ! tar -C "$tmp" -xJf "$TARBALL" ||
		[ ! -f "$tmp/linux-source-6.1/Makefile" ]; then
		rm -rf "$tmp"
		return 1
	fi
	# If another process won the race, its copy is as good as ours.
	mv -T "$tmp/linux-source-6.1" "$SRC" 2>/dev/null || [ -f "$SRC/Makefile" ]
	rm -rf "$tmp"
}

# --- checkpatch ----------------------------------------------------------------

CHECKPATCH=$SRC/scripts/checkpatch.pl
if unpack_source >"$LOGS/unpack.log" 2>&1 && [ -x "$CHECKPATCH" ]; then
	mapfile -t files < <(cd "$REPO" &&
		find drivers tests/kunit tests/selftest uapi \
			-type f \( -name '*.c' -o -name '*.h' \) ! -name '*.mod.c' \
			2>/dev/null | LC_ALL=C sort)
	if [ "${#files[@]}" -eq 0 ]; then
		tap FAIL "checkpatch: no kernel source files found"
	fi
	for f in "${files[@]}"; do
		log=$LOGS/checkpatch-${f//\//_}.log
		if (cd "$REPO" && "$CHECKPATCH" --strict --no-tree --no-summary \
			--show-types -f "$f") >"$log" 2>&1 &&
			! grep -qE '^(ERROR|WARNING|CHECK):' "$log"; then
			tap OK "checkpatch --strict $f"
		else
			tap FAIL "checkpatch --strict $f" "$log"
		fi
	done
else
	tap FAIL "checkpatch: cannot unpack $TARBALL into $SRC" "$LOGS/unpack.log"
fi

# --- sparse --------------------------------------------------------------------

# C=2 runs sparse on every source file whether or not it is rebuilt.
# Anything sparse says about a file fails the test; the kernel's own
# compiler output ("CC", "LD", ...) is not a report.
if [ ! -d "$KDIR" ]; then
	tap FAIL "sparse: KDIR=$KDIR not found (make deps)"
elif ! command -v sparse >/dev/null; then
	tap FAIL "sparse: not installed (make deps)"
else
	log=$LOGS/sparse.log
	rc=0
	make -C "$KDIR" M="$REPO" C=2 CF="-D__CHECK_ENDIAN__" modules \
		>"$log" 2>&1 || rc=$?
	grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error|note):|^[^ ]+: (warning|error):' \
		"$log" >"$LOGS/sparse-reports.log" || true
	if [ "$rc" -ne 0 ]; then
		{
			echo "make exited with status $rc"
			grep -E 'error|Error' "$log" | head -n 20
		} >"$LOGS/sparse-fail.log"
		tap FAIL "sparse (make C=2) over the modules" "$LOGS/sparse-fail.log"
	elif ! grep -q '^  CHECK ' "$log"; then
		echo "sparse did not run on any file (no CHECK lines)" >"$LOGS/sparse-fail.log"
		tap FAIL "sparse (make C=2) over the modules" "$LOGS/sparse-fail.log"
	elif [ -s "$LOGS/sparse-reports.log" ]; then
		tap FAIL "sparse (make C=2) over the modules: $(wc -l <"$LOGS/sparse-reports.log") reports" \
			"$LOGS/sparse-reports.log"
	else
		tap OK "sparse (make C=2) over the modules ($(grep -c '^  CHECK ' "$log") files)"
	fi
fi

# --- shell scripts -----------------------------------------------------------

# The harness's own scripts are held to shellcheck when it is installed.
if command -v shellcheck >/dev/null; then
	mapfile -t scripts < <(cd "$REPO" && {
		ls tests/harness/*.sh tests/selftest/*.sh tests/style/*.sh \
			tests/run-check.sh tests/demo.sh tests/e2e/run-in-guest.sh tests/pair/*.sh tests/packaging/*.sh scripts/*.sh \
			tests/bench/*.sh tests/soak/*.sh .ci/run 2>/dev/null || true
	})
	log=$LOGS/shellcheck.log
	if (cd "$REPO" && shellcheck -x "${scripts[@]}") >"$log" 2>&1; then
		tap OK "shellcheck (${#scripts[@]} harness scripts)"
	else
		tap FAIL "shellcheck (${#scripts[@]} harness scripts)" "$log"
	fi
fi

echo "1..$n"
[ "$failed" -eq 0 ]
