#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# 'make bench', two-guest rows: perftest between two guests on one
# Ethernet segment (tests/pair/run-pair.sh: one boot, 1 vCPU each), Orca
# on both ends and then Soft-RoCE (rxe) on both ends, in the same boot,
# and the ratios against the goals of the RoCEv2 issue:
#
#   64 KiB ib_write_bw / ib_read_bw bandwidth   >= 3 x rxe
#   64 B ib_send_bw message rate                >= 3 x rxe
#   2-byte ib_send_lat (typical)                <= 0.5 x rxe
#
#   tests/bench/run-bench-pair.sh [run-guest.sh options...]
#
# Goals, not assertions: the exit status is non-zero only when a run
# failed.  Output: the table on stdout and in build/bench-pair/results.txt
# (tab-separated: results.tsv); the two guests' logs under
# build/bench-pair/run/.  Figures from emulated CPUs: only the ratios,
# taken in one boot, mean anything.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$REPO"
BUILD_DIR=${BUILD_DIR:-$REPO/build}
export BUILD_DIR
OUT=$BUILD_DIR/bench-pair
rm -rf "$OUT"
mkdir -p "$OUT"

echo "bench-pair: building (make)"
if ! make -s >"$OUT/build.log" 2>&1; then
	tail -n 30 "$OUT/build.log" >&2
	echo "bench-pair: build failed" >&2
	exit 1
fi

echo "bench-pair: booting two guests: perftest orca0 <-> orca0, then rxe0 <-> rxe0"
rc=0
tests/pair/run-pair.sh --modes "orca-orca rxe-rxe" --out "$OUT/run" "$@" \
	-- tests/bench/pair-bench.t >"$OUT/tap.txt" 2>&1 || rc=$?
grep -E '^not ok' "$OUT/tap.txt" | sed 's/^/  /' || true

# The client's result lines, in guest a's log: "# # NAME client: BYTES
# ITERS ..." under "# === MODE pair-bench.t".
awk '
	/^# === / { mode = $3; next }
	/^# # [a-z-]+ client: / {
		name = $3
		sub(/:$/, "", name)
		line = $0
		sub(/^# # [a-z-]+ client: /, "", line)
		print mode, name, line
	}' "$OUT/run/guests/a/share/stdout" >"$OUT/raw.txt" 2>/dev/null || : >"$OUT/raw.txt"

# perftest's columns: bw "bytes iters peak avg msgrate" (MB/sec, Mpps);
# lat "bytes iters t_min t_max t_typical t_avg t_stdev p99 p99.9" (TSC
# cycles: pair_perftest runs the latency tests with -C, as lib-tools.sh
# explains; both guests run on the one host, so the ratio holds).
awk '
	{ fig[$1 " " $2] = $0 }
	function col(mode, name, i,    f) {
		if (!((mode " " name) in fig))
			return ""
		split(fig[mode " " name], f, " ")
		return f[i + 2]
	}
	function row(label, name, i, kind, goal,    o, x, ratio, met) {
		o = col("orca-orca", name, i)
		x = col("rxe-rxe", name, i)
		ratio = "-"
		met = ""
		if (o != "" && x != "" && x + 0 > 0) {
			ratio = sprintf("%.2fx", o / x)
			if (kind == "higher")
				met = (o / x >= goal) ? "yes" : "no"
			else
				met = (o / x <= goal) ? "yes" : "no"
		}
		printf fmt, label, o == "" ? "-" : o, x == "" ? "-" : x, ratio,
			(kind == "higher" ? ">= " : "<= ") goal "x rxe", met
		printf "%s\t%s\t%s\t%s\t%s\t%s\n", label, o, x, ratio, goal, met >> tsv
	}
	END {
		fmt = "%-44s %12s %12s %9s  %-14s %s\n"
		printf fmt, "metric (two guests, eth1)", "orca-orca", "rxe-rxe", "ratio", "goal", "met"
		row("ib_write_bw 64 KiB average [MiB/s]", "write-bw", 4, "higher", 3)
		row("ib_read_bw 64 KiB average [MiB/s]", "read-bw", 4, "higher", 3)
		row("ib_send_bw 64 B message rate [Mpps]", "send-rate", 5, "higher", 3)
		row("ib_send_lat 2 B typical [TSC cycles]", "send-lat", 5, "lower", 0.5)
	}' tsv="$OUT/results.tsv" "$OUT/raw.txt" >"$OUT/table.txt"

{
	echo "Orca bench, two guests, $(date -u +%FT%TZ), $(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "two QEMU TCG guests (1 vCPU each) on one Ethernet segment (eth1), server on b, client on a;"
	echo "RC, RoCE v2 GID of eth1's IPv4 address; orca-orca and rxe-rxe in the same boot, one after the other;"
	echo "perftest MB/sec = MiB/s; latency = perftest t_typical (median)"
	echo
	cat "$OUT/table.txt"
} >"$OUT/results.txt"
cat "$OUT/results.txt"
echo
echo "bench-pair: results in $OUT/results.txt (run log: $OUT/tap.txt)"
if [ "$rc" -ne 0 ] || [ "$(wc -l <"$OUT/raw.txt")" -ne 8 ]; then
	echo "bench-pair: a run failed (run-pair.sh exit status $rc): see $OUT/tap.txt" >&2
	exit 1
fi
