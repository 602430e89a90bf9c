#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run Orca's KUnit suites in a guest booted on the KUnit/debug kernel.
#
#   tests/kunit/run-kunit.sh [--timeout SEC] [--out DIR] [--verbose]
#
# 1. builds (or reuses) the kernel: tests/kunit/build-kernel.sh;
# 2. builds all of Orca's kernel modules against it with W=1, in a copy of
#    the module sources under build/kunit/src, so that the objects in the
#    work tree (built for the stock kernel) are left alone (steps 1 and 2
#    are tests/kunit/build-modules.sh, shared with run-e2e.sh --debug-kernel);
# 3. boots the kernel with tests/harness/run-guest.sh over the host root,
#    loads every test module of tests/kunit after modprobing the modules
#    it depends on (their suites run at load),
#    and brings back the kernel log and /sys/kernel/debug/kunit;
# 4. parses the KTAP and prints one TAP line per case,
#    "ok N - kunit: <suite>.<case>" or "not ok N - ...", then the plan and
#    a last line "kunit: N passed, N failed".
#
# Exits 0 only if every case passed, at least one case ran, every suite
# reported all of its cases and the harness found no kernel problem.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
TIMEOUT=600
OUT=
VERBOSE=()

usage() {
	awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"
}

die() {
	echo "run-kunit: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--timeout) TIMEOUT=${2:?--timeout needs seconds}; shift ;;
	--out) OUT=${2:?--out needs a directory}; shift ;;
	--verbose) VERBOSE=(--verbose) ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument: $1" ;;
	esac
	shift
done

RUNNER=$REPO/tests/harness/run-guest.sh
[ -x "$RUNNER" ] || die "$RUNNER is missing"

# ---- 1./2. the kernel and the modules (shared with run-e2e.sh) -------------
ENV_LINES=$("$HERE/build-modules.sh") || die "building the KUnit kernel or the modules against it failed"
eval "$ENV_LINES"
for v in KUNIT_KERNEL_IMAGE KUNIT_KDIR KUNIT_MODROOT KUNIT_KREL KUNIT_MODSRC KUNIT_MODLOG; do
	[ -n "${!v:-}" ] || die "build-modules.sh did not report $v"
done
WORK=$BUILD_DIR/kunit
SRC=$KUNIT_MODSRC
if grep -E '^[^ ]*tests/kunit/[^ ]*: (warning|error):' "$KUNIT_MODLOG" >&2; then
	die "the KUnit test modules do not build cleanly with W=1"
fi

mapfile -t KOS < <(find "$SRC/tests/kunit" -maxdepth 1 -name '*_test.ko' | sort)
[ "${#KOS[@]}" -gt 0 ] || die "no test modules were built in $SRC/tests/kunit"
MODS=()
for ko in "${KOS[@]}"; do
	MODS+=("$(basename "$ko" .ko)")
done

# ---- 3. the guest ----------------------------------------------------------
if [ -z "$OUT" ]; then
	mkdir -p "$WORK/runs"
	OUT=$(mktemp -d "$WORK/runs/$(date +%Y%m%d-%H%M%S).XXXX")
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# The guest loads each module between markers in the kernel log, then
# returns the log (the suites' KTAP) and the debugfs results.
# shellcheck disable=SC2016 # expanded in the guest, not here
GUEST_CMD='
st=0
for ko in '"$(printf '%q ' "${KOS[@]}")"'; do
	m=$(basename "$ko" .ko)
	echo "orca-kunit: load $m" >/dev/kmsg
	# insmod does not resolve dependencies (e.g. ib_core): modprobe them.
	for dep in $(modinfo -F depends "$ko" | tr , " "); do
		if ! modprobe "$dep"; then
			echo "orca-kunit: modprobe $dep for $m failed" >/dev/kmsg
			st=1
		fi
	done
	if ! insmod "$ko"; then
		echo "orca-kunit: insmod $m failed" >/dev/kmsg
		st=1
	fi
	echo "orca-kunit: loaded $m" >/dev/kmsg
done
dmesg >"$ORCA_RESULTS/kunit-dmesg" 2>&1 || st=1
for d in /sys/kernel/debug/kunit/*/; do
	[ -f "$d/results" ] || continue
	echo "orca-kunit: debugfs $(basename "$d")"
	cat "$d/results"
done >"$ORCA_RESULTS/kunit-debugfs" 2>&1
exit $st
'

# A large log buffer: a suite with many failed expectations must not push
# the start of its KTAP out of the kernel log before the guest reads it.
echo "run-kunit: booting $KUNIT_KERNEL_IMAGE (artifacts: $OUT)" >&2
gst=0
"$RUNNER" --kernel-image "$KUNIT_KERNEL_IMAGE" --modules-dir "$KUNIT_MODROOT" \
	--timeout "$TIMEOUT" --mem 1024 --append "log_buf_len=8M" --out "$OUT" --unload "${MODS[*]}" "${VERBOSE[@]}" \
	--cmd "$GUEST_CMD" >"$OUT/guest.stdout" 2>"$OUT/guest.stderr" || gst=$?
grep '^harness: ' "$OUT/guest.stderr" >&2 || true

# ---- 4. the results ----------------------------------------------------------
KLOG=$OUT/guest/share/kunit-dmesg
[ -s "$KLOG" ] || KLOG=$OUT/guest/console.log
[ -f "$KLOG" ] || die "the guest left no kernel log (see $OUT)"

# KTAP as KUnit 6.1 prints it for a module: per suite, an indented
# "# Subtest: <suite>" and "1..<n>", one indented "ok/not ok <i> <case>"
# line per case preceded by its diagnostics, then "ok/not ok <k> <suite>".
# Timestamps ("[    1.234567] ") are stripped first.
RESULTS=$OUT/kunit.tap
sed -e 's/^\[ *[0-9]*\.[0-9]*\] //' -e 's/\r$//' "$KLOG" |
awk -v mods="${MODS[*]}" '
function flush_suite() {
	if (suite == "")
		return
	if (plan >= 0 && seen != plan) {
		n++; failed++
		printf "not ok %d - kunit: %s: %d of %d cases reported\n", n, suite, seen, plan
	}
	suite = ""
}
BEGIN {
	n = 0; passed = 0; failed = 0; skipped = 0; suite = ""; nsuites = 0
	split(mods, want, " ")
}
/^orca-kunit: load / { flush_suite(); loading = $3; loaded[loading] = 0; diag = ""; next }
/^orca-kunit: modprobe .* failed/ {
	n++; failed++
	printf "not ok %d - kunit: %s: dependency %s did not load\n", n, $5, $3
	next
}
/^orca-kunit: insmod .* failed/ {
	n++; failed++
	printf "not ok %d - kunit: %s: insmod failed\n", n, $3
	next
}
/^orca-kunit: loaded / { flush_suite(); loading = ""; next }
/^    # Subtest: / {
	flush_suite()
	suite = $3; plan = -1; seen = 0; diag = ""; nsuites++
	if (loading != "")
		loaded[loading]++
	next
}
suite != "" && /^    1\.\.[0-9]+$/ { plan = substr($1, 4) + 0; next }
suite != "" && /^    (ok|not ok) [0-9]+ / {
	line = substr($0, 5)
	ok = (line ~ /^ok /)
	sub(/^(ok|not ok) [0-9]+ (- )?/, "", line)
	name = line
	dir = ""
	if (index(name, " # ")) {
		dir = substr(name, index(name, " # ") + 3)
		name = substr(name, 1, index(name, " # ") - 1)
	}
	seen++; n++
	if (ok && dir ~ /^SKIP/) {
		skipped++
		printf "ok %d - kunit: %s.%s # %s\n", n, suite, name, dir
	} else if (ok) {
		passed++
		printf "ok %d - kunit: %s.%s\n", n, suite, name
	} else {
		failed++
		printf "not ok %d - kunit: %s.%s\n", n, suite, name
		printf "%s", diag
	}
	diag = ""
	next
}
suite != "" && /^    / { diag = diag "# " substr($0, 5) "\n"; next }
/^(ok|not ok) [0-9]+ / { flush_suite(); next }
END {
	flush_suite()
	for (i in want) {
		if (!(want[i] in loaded)) {
			n++; failed++
			printf "not ok %d - kunit: module %s was not loaded\n", n, want[i]
		} else if (loaded[want[i]] == 0) {
			n++; failed++
			printf "not ok %d - kunit: module %s ran no suite\n", n, want[i]
		}
	}
	printf "1..%d\n", n
	if (skipped)
		printf "# kunit: %d skipped\n", skipped
	printf "kunit: %d passed, %d failed\n", passed, failed
	exit (failed == 0 && passed > 0) ? 0 : 1
}' >"$RESULTS" || true

cat "$RESULTS"
summary=$(tail -n1 "$RESULTS")
case "$summary" in
"kunit: 0 passed, 0 failed") die "no KUnit case ran (see $OUT)" ;;
"kunit: "*" passed, 0 failed") ;;
*) echo "run-kunit: failures (artifacts: $OUT)" >&2; exit 1 ;;
esac
if [ "$gst" -ne 0 ]; then
	echo "run-kunit: the guest run failed with status $gst (see $OUT/findings)" >&2
	exit 1
fi
exit 0
