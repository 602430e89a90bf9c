#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The two-guest tests: boots one pair of guests (tests/harness/run-guest.sh
# --pair, 1 vCPU each, eth1 of a and b on one Ethernet segment: 10.99.0.1
# and 10.99.0.2) and runs tests/pair/pair-in-guest.sh in both, which runs
# every tests/pair/*.t in both guests in step, once per pairing of RDMA
# providers.  Prints TAP: the points of guest a and guest b, interleaved
# per pairing and .t, then one point for what the harness checks itself
# (no kernel report, no hang, every module unloaded in either guest).
#
#   run-pair.sh [--modes "M..."] [--test-timeout SEC] [--keep-going]
#               [--timeout SEC] [--out DIR] [run-guest.sh options...]
#               [-- T...]
#
# --modes        pairings to run, in order (default: $PAIR_MODES, or
#                "orca-orca orca-rxe rxe-rxe"); a pairing names guest a's
#                provider, then b's: orca is orca0 (orca_soft + orca.ko),
#                rxe is Linux's Soft-RoCE rxe0 (rdma_rxe), each on eth1
# --test-timeout per-.t limit in the guests (default 400 s)
# --keep-going   run every .t of a pairing even after one failed (by
#                default the rest of that pairing is one failing point
#                per .t, "not run": see pair-in-guest.sh)
# --timeout      the whole boot (default: 300 s + 900 s per pairing)
# --out DIR      artifacts (default build/pair): guests/{a,b}/share has
#                each guest's stdout (its TAP), console log and dmesg
# T...           .t files to run (default: every executable tests/pair/*.t)
#
# Everything else is passed to run-guest.sh (e.g. --verbose).

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
MODES=${PAIR_MODES:-orca-orca orca-rxe rxe-rxe}
T_TIMEOUT=400
KEEP=()
TIMEOUT=
OUT=
ARGS=()
while [ "$#" -gt 0 ]; do
	case "$1" in
	--modes) MODES=$2; shift 2 ;;
	--test-timeout) T_TIMEOUT=$2; shift 2 ;;
	--keep-going) KEEP=(--keep-going); shift ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	-h | --help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--) shift; break ;;
	*) ARGS+=("$1"); shift ;;
	esac
done
read -r -a mode_list <<<"$MODES"
[ "${#mode_list[@]}" -gt 0 ] || { echo "run-pair.sh: no pairing given" >&2; exit 2; }
: "${TIMEOUT:=$((300 + 900 * ${#mode_list[@]}))}"
OUT=${OUT:-$BUILD_DIR/pair}
rm -rf "$OUT"
mkdir -p "$OUT"

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

missing=()
for f in drivers/orca/orca.ko drivers/orca_soft/orca_soft.ko; do
	[ -f "$REPO/$f" ] || missing+=("$f")
done
[ -f "$BUILD_DIR/userspace/liborca-rdmav34.so" ] || missing+=("build/userspace/liborca-rdmav34.so")
if [ "${#missing[@]}" -eq 0 ]; then
	point OK "orca.ko, orca_soft.ko and liborca are built"
else
	point FAIL "not built: ${missing[*]} (run make)"
fi

cmd=$(printf '%q ' tests/pair/pair-in-guest.sh --modes "$MODES" \
	--test-timeout "$T_TIMEOUT" "${KEEP[@]}" -- "$@")
t0=$(date +%s)
rc=0
"$REPO/tests/harness/run-guest.sh" --pair --smp 1 --timeout "$TIMEOUT" \
	--out "$OUT/guests" --unload "orca orca_soft rdma_rxe" "${ARGS[@]}" \
	--cmd-a "$cmd" --cmd-b "$cmd" >"$OUT/run-guest.out" 2>"$OUT/harness.err" || rc=$?

# The two streams, section by section ("# === <section>" lines), a's
# part of a section before b's; points renumbered.
declare -A body=([-]="")
order=(-)
for g in a b; do
	sec=-
	f=$OUT/guests/$g/share/stdout
	[ -f "$f" ] || continue
	while IFS= read -r line; do
		if [[ "$line" =~ ^#\ ===\ (.*)$ ]]; then
			sec=${BASH_REMATCH[1]}
			[ -n "${body[$sec]+x}" ] || { order+=("$sec"); body[$sec]=; }
			continue
		fi
		body[$sec/$g]+="$line"$'\n'
	done <"$f"
done
ran=0
for sec in "${order[@]}"; do
	for g in a b; do
		while IFS= read -r line; do
			if [[ "$line" =~ ^(not\ )?ok\ [0-9]+(\ -)?\ ?(.*)$ ]]; then
				ran=$((ran + 1))
				if [ -n "${BASH_REMATCH[1]}" ]; then
					point FAIL "${BASH_REMATCH[3]}"
				else
					point OK "${BASH_REMATCH[3]}"
				fi
			elif [[ "$line" =~ ^1\.\. ]] || [ -z "$line" ]; then
				:
			else
				echo "$line"
			fi
		done <<<"${body[$sec/$g]:-}"
	done
done
sed 's/^/# /' "$OUT/harness.err"
for g in a b; do
	if [ ! -s "$OUT/guests/$g/share/stdout" ]; then
		point FAIL "guest $g: no test points came back (status $rc)"
	fi
done
if [ -s "$OUT/guests/findings" ] || [ "$rc" -eq 99 ]; then
	point FAIL "pair guests: the harness found kernel reports, a hang or a module that would not unload"
	sed 's/^/#   /' "$OUT/guests/findings"
elif [ "$ran" -eq 0 ]; then
	point FAIL "pair guests: no test points came back (status $rc)"
else
	point OK "pair guests: no kernel report, no hang, orca, orca_soft and rdma_rxe unloaded in a and b"
fi
echo "# pairings $MODES: $(($(date +%s) - t0)) s for the boot of the pair"
echo "1..$n"
[ "$failed" -eq 0 ] && [ "$rc" -eq 0 ]
