#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# 'make bench': perftest on orca0 and on rxe0 (Soft-RoCE), one after the
# other in ONE guest, plus memcpy bandwidth and syscalls per post, and a
# table of the ratios against the targets of issue #4:
#
#   message rate (64 B ib_send_bw, ib_write_bw)       >= 10 x rxe
#   64 KiB ib_write_bw / ib_read_bw bandwidth         >= 10 x rxe and
#                                                     >= 0.5 x memcpy
#   2-byte latency (ib_send/write/read_lat, typical)  <= 0.5 x rxe
#   syscalls per post under steady load              near 0
#
#   tests/bench/run-bench.sh [run-guest.sh options...]
#
# The targets are goals, not assertions: the exit status is 0 when every
# tool ran, non-zero only when one failed to run (or the guest did).
# Output: the table on stdout and in build/bench/results.txt, the same
# figures as tab-separated values in build/bench/results.tsv, the raw
# "DEV METRIC VALUE" lines in build/bench/raw.txt, the guest's log in
# build/bench/guest.log.  Figures are from an emulated CPU (QEMU TCG):
# only the ratios, taken in the same run, mean anything.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$REPO"
BUILD_DIR=${BUILD_DIR:-$REPO/build}
export BUILD_DIR
OUT=$BUILD_DIR/bench

if [ ! -f "$BUILD_DIR/kernel-abi" ]; then
	echo "bench: run 'make deps' first" >&2
	exit 1
fi
for t in ib_send_bw strace gcc; do
	command -v "$t" >/dev/null || {
		echo "bench: $t not found: run 'make deps' first" >&2
		exit 1
	}
done
rm -rf "$OUT"
mkdir -p "$OUT"

echo "bench: building (make)"
if ! make -s >"$OUT/build.log" 2>&1 ||
	! gcc -O2 -Wall -Wextra -Werror -o "$OUT/memcpy_bw" tests/bench/memcpy_bw.c >>"$OUT/build.log" 2>&1; then
	tail -n 30 "$OUT/build.log" >&2
	echo "bench: build failed" >&2
	exit 1
fi

echo "bench: booting a guest: perftest on orca0, then on rxe0 (log: $OUT/guest.log)"
rc=0
# The guest does not inherit this environment: pass the knobs on.
knobs=()
for k in BENCH_DEVS BENCH_N_SMALL BENCH_N_LARGE BENCH_N_LAT BENCH_N_STRACE1 BENCH_N_STRACE2 BENCH_TIMEOUT; do
	[ -z "${!k:-}" ] || knobs+=("$k=${!k}")
done
tests/harness/run-guest.sh --timeout 3600 --out "$OUT/guest" "$@" -- \
	env "${knobs[@]}" tests/bench/bench-in-guest.sh /orca-results/raw.txt \
	>"$OUT/guest.log" 2>&1 || rc=$?
if [ -f "$OUT/guest/guest/share/raw.txt" ]; then
	cp "$OUT/guest/guest/share/raw.txt" "$OUT/raw.txt"
else
	: >"$OUT/raw.txt"
fi
grep -E '^bench: .* failed|^harness: ' "$OUT/guest.log" | sed 's/^/  /' || true

# ---- the table ----------------------------------------------------------------
# Rows: key|label|kind|target.  kind: higher (a rate or bandwidth: ratio
# orca0/rxe0, target "10" = at least 10x), lower (a latency: target
# "0.5" = at most 0.5x), memcpy (orca0 bandwidth / memcpy, at least
# 0.5), info (no ratio, no target), syscalls (near 0: below 0.05).
ROWS='send_bw_64_mpps|ib_send_bw 64 B message rate [Mpps]|higher|10
write_bw_64_mpps|ib_write_bw 64 B message rate [Mpps]|higher|10
send_bw_64k_mibs|ib_send_bw 64 KiB bandwidth [MiB/s]|info|
write_bw_64k_mibs|ib_write_bw 64 KiB bandwidth [MiB/s]|higher|10
read_bw_64k_mibs|ib_read_bw 64 KiB bandwidth [MiB/s]|higher|10
write_bw_64k_mibs|ib_write_bw 64 KiB / memcpy 64 KiB|memcpy|0.5
read_bw_64k_mibs|ib_read_bw 64 KiB / memcpy 64 KiB|memcpy|0.5
send_lat_2_typ_us|ib_send_lat 2 B typical [usec]|lower|0.5
write_lat_2_typ_us|ib_write_lat 2 B typical [usec]|lower|0.5
read_lat_2_typ_us|ib_read_lat 2 B typical [usec]|lower|0.5
sc_loop|syscalls per post, steady-load loop (counted in-process)|syscalls|0.05
sc_write_bw_client|syscalls per post, ib_write_bw 64 B client|syscalls|0.05
sc_send_bw_client|syscalls per post, ib_send_bw 64 B client|syscalls|0.05
sc_send_bw_server|syscalls per receive, ib_send_bw 64 B server|syscalls|0.05
sc_write_bw_client_wi|  of which write+ioctl, ib_write_bw client|info|
sc_send_bw_client_wi|  of which write+ioctl, ib_send_bw client|info|
sc_send_bw_server_wi|  of which write+ioctl, ib_send_bw server|info|'

awk -v rows="$ROWS" '
	{ v[$1 " " $2] = $3 }
	function num(x) { return x != "" && x != "FAILED" }
	function show(x) { return x == "" ? "-" : x }
	END {
		mc = v["guest memcpy_64k_mibs"]
		n = split(rows, r, "\n")
		fmt = "%-58s %12s %12s %10s  %-24s %s\n"
		printf fmt, "metric", "orca0", "rxe0", "ratio", "target", "met"
		for (i = 1; i <= n; i++) {
			split(r[i], f, "|")
			key = f[1]; label = f[2]; kind = f[3]; tgt = f[4]
			o = v["orca0 " key]; x = v["rxe0 " key]
			ratio = "-"; target = ""; met = ""
			if (kind == "higher" || kind == "lower") {
				if (num(o) && num(x) && x + 0 > 0)
					ratio = sprintf("%.2fx", o / x)
				if (kind == "higher") {
					target = ">= " tgt "x rxe0"
					if (ratio != "-") met = (o / x >= tgt + 0) ? "yes" : "no"
				} else {
					target = "<= " tgt "x rxe0"
					if (ratio != "-") met = (o / x <= tgt + 0) ? "yes" : "no"
				}
			} else if (kind == "memcpy") {
				if (num(o) && num(mc) && mc + 0 > 0) o2 = sprintf("%.3f", o / mc)
				else o2 = "-"
				if (num(x) && num(mc) && mc + 0 > 0) x2 = sprintf("%.3f", x / mc)
				else x2 = "-"
				o = o2; x = x2
				target = ">= " tgt " (orca0)"
				if (o != "-") met = (o + 0 >= tgt + 0) ? "yes" : "no"
			} else if (kind == "syscalls") {
				if (num(o) && num(x) && x + 0 > 0)
					ratio = sprintf("%.2fx", o / x)
				target = "near 0 (< " tgt ", orca0)"
				if (num(o)) met = (o + 0 < tgt + 0) ? "yes" : "no"
			}
			printf fmt, label, show(o), show(x), ratio, target, met
			printf "%s\t%s\t%s\t%s\t%s\t%s\n", label, show(o), show(x), ratio, target, met >> tsv
		}
		printf fmt, "memcpy 64 KiB blocks, 16 MiB ring [MiB/s]", show(mc), show(mc), "-", "(the ceiling)", ""
		printf "%s\t%s\t%s\t%s\t%s\t%s\n", "memcpy 64 KiB [MiB/s]", show(mc), show(mc), "-", "", "" >> tsv
	}' tsv="$OUT/results.tsv" "$OUT/raw.txt" >"$OUT/table.txt"

{
	echo "Orca bench, $(date -u +%FT%TZ), $(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "one QEMU TCG guest, $(grep -m1 '^bench: [0-9]' "$OUT/guest.log" | sed 's/^bench: //')"
	echo "server and client in the same guest, 127.0.0.1, RoCE v2 GID of eth0's IPv4 address; perftest MB/sec = MiB/s;"
	echo "latency = perftest t_typical (median); syscalls per post: steady-load loop = counted by tests/e2e/progs/dp_syscalls itself over 100,000 posts; ib_*_bw rows = (syscalls of an N2-message run - of an N1-message run) / (N2 - N1), strace -f -c, noisy (can come out slightly negative)"
	echo
	cat "$OUT/table.txt"
} >"$OUT/results.txt"
cat "$OUT/results.txt"
echo
echo "bench: results in $OUT/results.txt (tab-separated: results.tsv, raw: raw.txt)"
if [ "$rc" -ne 0 ] || grep -q ' FAILED$' "$OUT/raw.txt" || [ ! -s "$OUT/raw.txt" ]; then
	echo "bench: a tool failed to run (guest exit status $rc): see $OUT/guest.log" >&2
	exit 1
fi
