#!/bin/bash
# shellcheck disable=SC2016 # guest commands are expanded in the guest
# SPDX-License-Identifier: GPL-2.0-only
#
# Self-tests of the guest harness (tests/harness/run-guest.sh).  Each boots
# a guest and checks that the harness passes what is clean and fails, with
# the right finding, on what is not:
#
#   clean guest                 exit 0, stdout brought back, no finding
#   userspace text, exit 3      "WARNING:"/"Oops:" printed by a program is
#                               not a kernel report; the status comes back
#   mode=oops                   fails and names an Oops
#   mode=warn                   fails and names a WARNING, and no Oops
#   module in use               fails: module will not unload
#   hung guest                  fails: timed out, QEMU killed
#   pair                        two guests reach each other on eth1
#
# Prints TAP.  Environment: KDIR (module build), HARNESS_ARGS (extra
# run-guest.sh arguments, e.g. --kernel-image/--modules-dir).

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
RUN=$REPO/tests/harness/run-guest.sh
ABI=${ORCA_KABI:-$(cat "$BUILD_DIR/kernel-abi" 2>/dev/null || true)}
KDIR=${KDIR:-/usr/src/linux-headers-$ABI}
OUT=$BUILD_DIR/selftest
read -r -a EXTRA <<<"${HARNESS_ARGS:-}"

rm -rf "$OUT"
mkdir -p "$OUT"

n=0
failed=0
tap() { # tap OK|FAIL description [diagnostic file]
	n=$((n + 1))
	if [ "$1" = OK ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
		if [ -n "${3:-}" ] && [ -f "$3" ]; then
			sed 's/^/#   /' "$3" | tail -n 20
		fi
	fi
}

# guest NAME [run-guest args...]: sets RC; output in $OUT/NAME.{out,err}
guest() {
	local name=$1
	shift
	RC=0
	"$RUN" "${EXTRA[@]}" --out "$OUT/$name" "$@" \
		>"$OUT/$name.out" 2>"$OUT/$name.err" || RC=$?
	{
		echo "exit status $RC"
		cat "$OUT/$name.err"
	} >"$OUT/$name.diag"
}

# The fault module, built from this directory alone so that a broken
# driver build does not hide the harness's own state.
KO=$HERE/orca_selftest_fault.ko
if make -s -C "$KDIR" M="$HERE" W=1 modules >"$OUT/build.log" 2>&1 &&
	[ -f "$KO" ]; then
	tap OK "build orca_selftest_fault.ko"
else
	tap FAIL "build orca_selftest_fault.ko" "$OUT/build.log"
fi

# 1. A clean guest passes and brings its stdout back.
guest clean --timeout 180 --cmd 'echo "selftest-marker $(uname -r)"; exit 0'
if [ "$RC" -eq 0 ] && grep -q '^selftest-marker ' "$OUT/clean.out" &&
	! grep -q '^harness: \(kernel\|guest .* hung\|module\)' "$OUT/clean.err"; then
	tap OK "harness passes a clean guest and returns its stdout"
else
	tap FAIL "harness passes a clean guest and returns its stdout" "$OUT/clean.diag"
fi

# 1b. The clean guest's clock runs at the host's rate: the TSC frequency
#     it settled on (the last "Detected" or "Refined" line, the latter
#     measured against the emulated HPET) is within 1% of the host's.
#     Under TCG the guest's TSC is the host's; a guest that calibrated
#     it wrong runs every timeout in it too fast or too slow.
host_khz=$("$BUILD_DIR/harness/tsc-khz" 2>/dev/null || echo 0)
guest_mhz=$(sed -n 's/.*tsc: \(Detected\|Refined TSC clocksource calibration:\) \([0-9.]*\) MHz.*/\2/p' \
	"$OUT/clean/guest/console.log" 2>/dev/null | tail -n 1)
echo "host TSC ${host_khz} kHz, guest TSC ${guest_mhz:-unknown} MHz" >>"$OUT/clean.diag"
if awk -v h="$host_khz" -v g="${guest_mhz:-0}" \
	'BEGIN { exit !(h > 0 && g * 1000 > h * 0.99 && g * 1000 < h * 1.01) }'; then
	tap OK "the clean guest's TSC runs at the host's ${host_khz} kHz (it says ${guest_mhz} MHz)"
else
	tap FAIL "the clean guest's TSC runs at the host's ${host_khz} kHz (it says ${guest_mhz:-nothing})" "$OUT/clean.diag"
fi

# 2. Programs printing report-like text are not kernel reports; the exit
#    status is passed through.
guest usertext --timeout 180 --cmd '
echo "WARNING: CPU: 0 PID: 1 at fake.c:1 not_a_kernel_warning"
echo "Oops: 0000 [#1] not a kernel oops" >&2
echo "BUG: not a kernel bug" >/dev/console
exit 3'
if [ "$RC" -eq 3 ] && ! grep -q '^harness: kernel reported' "$OUT/usertext.err"; then
	tap OK "userspace text is not a kernel report; exit status 3 comes back"
else
	tap FAIL "userspace text is not a kernel report; exit status 3 comes back" "$OUT/usertext.diag"
fi

# 3. An Oops fails the run and is named.
guest oops --timeout 180 --cmd "insmod $KO mode=oops"
if [ "$RC" -ne 0 ] && grep -q '^harness: kernel reported Oops: ' "$OUT/oops.err"; then
	tap OK "harness fails on an Oops and names it (mode=oops)"
else
	tap FAIL "harness fails on an Oops and names it (mode=oops)" "$OUT/oops.diag"
fi

# 4. A WARNING fails the run, is named, and is not called an Oops.  The
#    module loaded and must unload cleanly.
guest warn --timeout 180 --unload orca_selftest_fault --cmd "insmod $KO mode=warn"
if [ "$RC" -ne 0 ] && grep -q '^harness: kernel reported WARNING: ' "$OUT/warn.err" &&
	! grep -q '^harness: kernel reported \(Oops\|BUG\|panic\)' "$OUT/warn.err" &&
	! grep -q '^harness: module will not unload' "$OUT/warn.err"; then
	tap OK "harness fails on a WARNING and names it, not an Oops (mode=warn)"
else
	tap FAIL "harness fails on a WARNING and names it, not an Oops (mode=warn)" "$OUT/warn.diag"
fi

# 5. A module that will not unload (ib_core, held by rdma_rxe).
guest unload --timeout 180 --unload ib_core --cmd 'modprobe rdma_rxe'
if [ "$RC" -ne 0 ] && grep -q '^harness: module will not unload: ib_core' "$OUT/unload.err"; then
	tap OK "harness fails on a module that will not unload"
else
	tap FAIL "harness fails on a module that will not unload" "$OUT/unload.diag"
fi

# 6. A hung guest is killed at the timeout and reported.
t0=$(date +%s)
guest hang --timeout 40 --cmd 'sleep 3600'
t1=$(date +%s)
if [ "$RC" -ne 0 ] && grep -q '^harness: guest .* hung: timed out' "$OUT/hang.err" &&
	[ $((t1 - t0)) -lt 120 ]; then
	tap OK "harness kills and reports a hung guest ($((t1 - t0)) s)"
else
	tap FAIL "harness kills and reports a hung guest" "$OUT/hang.diag"
fi

# 7. Two guests on one Ethernet segment.  Each side pings the other, then
# tells it so over TCP and waits to be told the same: a side that only
# pinged and exited could power off before its peer, slower to boot on a
# busy host, had pinged it (seen in CI, 2026-11-26).  The loops are
# bounded; the guest timeout bounds the wait.
PAIR_CMD='busybox nc -l -p 7001 >/tmp/peer-said & l=$!
r=0; for i in $(seq 120); do busybox ping -c 1 -W 2 "$ORCA_PEER_IP" >/dev/null && { r=1; break; }; sleep 1; done
[ "$r" = 1 ] || exit 1
echo "reached $ORCA_PEER_IP"
r=0; for i in $(seq 120); do echo "reached by $ORCA_SELF_IP" | busybox nc -w 2 "$ORCA_PEER_IP" 7001 && { r=1; break; }; sleep 1; done
[ "$r" = 1 ] || exit 1
wait "$l"; cat /tmp/peer-said; grep -qx "reached by $ORCA_PEER_IP" /tmp/peer-said'
guest pair --timeout 300 --pair --cmd-a "$PAIR_CMD" --cmd-b "$PAIR_CMD"
if [ "$RC" -eq 0 ] && grep -q '^reached 10.99.0.2$' "$OUT/pair/a/share/stdout" &&
	grep -q '^reached by 10.99.0.2$' "$OUT/pair/a/share/stdout" &&
	grep -q '^reached 10.99.0.1$' "$OUT/pair/b/share/stdout" &&
	grep -q '^reached by 10.99.0.1$' "$OUT/pair/b/share/stdout"; then
	tap OK "pair: two guests reach each other on eth1"
else
	tap FAIL "pair: two guests reach each other on eth1" "$OUT/pair.diag"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
