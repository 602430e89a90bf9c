#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# 'make bench': perftest on orca0 and on rxe0 (Soft-RoCE), one after the
# other in ONE guest, plus memcpy bandwidth, syscalls per post, message
# rates with 1, 2 and 4 QPs and with two processes, the CPU time of an
# idle device with 100 armed QPs, and NVMe-oF read rates (fio), and a
# table of the ratios against the goals of issue 13 (Performance):
#
#   message rate (64 B ib_send_bw, ib_write_bw)       >= 10 x rxe
#   64 KiB ib_write_bw / ib_read_bw bandwidth         >= 0.7 x memcpy
#   2-byte latency (ib_send/write/read_lat, typical)  <= 0.3 x rxe
#
# and of issue #4: syscalls per post under steady load near 0.  The
# other rows (64 KiB bandwidth against rxe, QP and process scaling,
# idle CPU time, NVMe-oF) have no target.
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
	! gcc -O2 -Wall -Wextra -Werror -o "$OUT/memcpy_bw" tests/bench/memcpy_bw.c >>"$OUT/build.log" 2>&1 ||
	! gcc -O2 -Wall -Wextra -Werror -I tests/e2e/progs -o "$OUT/idle_qps" tests/bench/idle_qps.c \
		-libverbs >>"$OUT/build.log" 2>&1 ||
	! gcc -O2 -Wall -Wextra -Werror -I tests/e2e/progs -o "$OUT/msg_cost" tests/bench/msg_cost.c \
		-libverbs >>"$OUT/build.log" 2>&1; then
	tail -n 30 "$OUT/build.log" >&2
	echo "bench: build failed" >&2
	exit 1
fi

echo "bench: booting a guest: perftest on orca0, then on rxe0 (log: $OUT/guest.log)"
rc=0
# The guest does not inherit this environment: pass the knobs on.
knobs=()
for k in BENCH_DEVS BENCH_N_SMALL BENCH_N_LARGE BENCH_N_LAT BENCH_N_2P BENCH_N_STRACE1 \
	BENCH_N_STRACE2 BENCH_TIMEOUT BENCH_FIO_SECS BENCH_N_MSG_COST BENCH_MSG_COST_ONLY; do
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
# "0.3" = at most 0.3x), ratio (orca0/rxe0, no target), memcpy (orca0
# bandwidth / memcpy, target "0.7" = at least 0.7), syscalls (near 0:
# below the target), info (no ratio, no target), scale (key "A/B": each
# device's A / B, no target), guest (a measurement of the guest, not of
# a device, shown in both columns; the target field is shown as is).
# The same rows, one line each, go to results.tsv.
ROWS='send_bw_64_mpps|ib_send_bw 64 B message rate [Mpps]|higher|10
write_bw_64_mpps|ib_write_bw 64 B message rate [Mpps]|higher|10
send_bw_64k_mibs|ib_send_bw 64 KiB bandwidth [MiB/s]|info|
write_bw_64k_mibs|ib_write_bw 64 KiB bandwidth [MiB/s]|ratio|
read_bw_64k_mibs|ib_read_bw 64 KiB bandwidth [MiB/s]|ratio|
write_bw_64k_mibs|ib_write_bw 64 KiB / memcpy 64 KiB|memcpy|0.7
read_bw_64k_mibs|ib_read_bw 64 KiB / memcpy 64 KiB|memcpy|0.7
send_lat_2_typ_us|ib_send_lat 2 B typical [usec]|lower|0.3
write_lat_2_typ_us|ib_write_lat 2 B typical [usec]|lower|0.3
read_lat_2_typ_us|ib_read_lat 2 B typical [usec]|lower|0.3
sc_loop|syscalls per post, steady-load loop (counted in-process)|syscalls|0.05
sc_write_bw_client|syscalls per post, ib_write_bw 64 B client|syscalls|0.05
sc_send_bw_client|syscalls per post, ib_send_bw 64 B client|syscalls|0.05
sc_send_bw_server|syscalls per receive, ib_send_bw 64 B server|syscalls|0.05
sc_write_bw_client_wi|  of which write+ioctl, ib_write_bw client|info|
sc_send_bw_client_wi|  of which write+ioctl, ib_send_bw client|info|
sc_send_bw_server_wi|  of which write+ioctl, ib_send_bw server|info|
send_bw_64_mpps|ib_send_bw 64 B, 1 process, -q 1 [Mpps]|info|
send_bw_64_q2_mpps|ib_send_bw 64 B, 1 process, -q 2 [Mpps]|info|
send_bw_64_q4_mpps|ib_send_bw 64 B, 1 process, -q 4 [Mpps]|info|
send_bw_64_2p_mpps|ib_send_bw 64 B, 2 processes x -q 1, summed [Mpps]|info|
send_bw_64_q4_mpps/send_bw_64_mpps|ib_send_bw 64 B scaling, -q 4 / -q 1|scale|
send_bw_64_2p_mpps/send_bw_64_mpps|ib_send_bw 64 B scaling, 2 processes / 1|scale|
write_bw_64_mpps|ib_write_bw 64 B, 1 process, -q 1 [Mpps]|info|
write_bw_64_q2_mpps|ib_write_bw 64 B, 1 process, -q 2 [Mpps]|info|
write_bw_64_q4_mpps|ib_write_bw 64 B, 1 process, -q 4 [Mpps]|info|
write_bw_64_2p_mpps|ib_write_bw 64 B, 2 processes x -q 1, summed [Mpps]|info|
write_bw_64_q4_mpps/write_bw_64_mpps|ib_write_bw 64 B scaling, -q 4 / -q 1|scale|
write_bw_64_2p_mpps/write_bw_64_mpps|ib_write_bw 64 B scaling, 2 processes / 1|scale|
idle100_sys_cpu_ms|idle, 100 armed RC QPs: system CPU in 10 s [ms]|info|
idle100_eng_cpu_ms|  of which the engine thread orca_soft*_eng [ms]|info|
idle_base_sys_cpu_ms|idle, no RDMA device: system CPU in 10 s [ms]|guest|(the baseline)
nvmeof_randread_4k_iops|NVMe-oF fio 4 KiB random read, QD 16 [IOPS]|ratio|
nvmeof_read_128k_mibs|NVMe-oF fio 128 KiB sequential read, QD 16 [MiB/s]|ratio|
memcpy_64k_mibs|memcpy 64 KiB blocks, 16 MiB ring [MiB/s]|guest|(the ceiling)
mc_syscall_ns|one message, one thread: getppid() system call [ns]|ratio|
mc_uverbs_bad_ns|  uverbs POST_SEND write(), no such QP [ns]|ratio|
mc_kick_ns|  uverbs POST_SEND write(), no WR, empty SQ (a kick) [ns]|ratio|
mc_poll_empty_ns|  ibv_poll_cq() of an empty CQ [ns]|ratio|
mc_write_pp_ns|  2 B WRITE posted and reaped, QPs in turn, kicks inline [ns]|ratio|
mc_read_pp_ns|  2 B READ posted and reaped, kicks inline [ns]|ratio|
mc_send_pp_ns|  2 B SEND posted, both ends reaped, kicks inline [ns]|ratio|
mcp_write_pp_ns|  2 B WRITE, kicks inline by uverbs POST_SEND [ns]|ratio|
mcp_read_pp_ns|  2 B READ, kicks inline by uverbs POST_SEND [ns]|ratio|
mcp_send_pp_ns|  2 B SEND, kicks inline by uverbs POST_SEND [ns]|ratio|
mct_write_pp_ns|  2 B WRITE, the engine thread polling [ns]|ratio|
mct_read_pp_ns|  2 B READ, the engine thread polling [ns]|ratio|
mct_send_pp_ns|  2 B SEND, the engine thread polling [ns]|ratio|'

awk -v rows="$ROWS" '
	{ v[$1 " " $2] = $3 }
	function num(x) { return x != "" && x != "FAILED" }
	function show(x) { return x == "" ? "-" : x }
	function scale(a, b) {
		return num(a) && num(b) && b + 0 > 0 ? sprintf("%.2f", a / b) : ""
	}
	END {
		mc = v["guest memcpy_64k_mibs"]
		n = split(rows, r, "\n")
		fmt = "%-58s %12s %12s %10s  %-24s %s\n"
		printf fmt, "metric", "orca0", "rxe0", "ratio", "target", "met"
		printf "%s\t%s\t%s\t%s\t%s\t%s\n", "metric", "orca0", "rxe0", "ratio", "target", "met" > tsv
		for (i = 1; i <= n; i++) {
			split(r[i], f, "|")
			key = f[1]; label = f[2]; kind = f[3]; tgt = f[4]
			o = v["orca0 " key]; x = v["rxe0 " key]
			ratio = "-"; target = ""; met = ""
			if (kind == "higher" || kind == "lower" || kind == "ratio") {
				if (num(o) && num(x) && x + 0 > 0)
					ratio = sprintf("%.2fx", o / x)
				if (kind == "higher") {
					target = ">= " tgt "x rxe0"
					if (ratio != "-") met = (o / x >= tgt + 0) ? "yes" : "no"
				} else if (kind == "lower") {
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
			} else if (kind == "scale") {
				split(key, k, "/")
				o = scale(v["orca0 " k[1]], v["orca0 " k[2]])
				x = scale(v["rxe0 " k[1]], v["rxe0 " k[2]])
			} else if (kind == "guest") {
				o = v["guest " key]; x = o
				target = tgt
			}
			printf fmt, label, show(o), show(x), ratio, target, met
			printf "%s\t%s\t%s\t%s\t%s\t%s\n", label, show(o), show(x), ratio, target, met > tsv
		}
	}' tsv="$OUT/results.tsv" "$OUT/raw.txt" >"$OUT/table.txt"

{
	echo "Orca bench, $(date -u +%FT%TZ), $(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "one QEMU TCG guest, $(grep -m1 '^bench: [0-9]' "$OUT/guest.log" | sed 's/^bench: //')"
	echo "server and client in the same guest, 127.0.0.1, RoCE v2 GID of eth0's IPv4 address; perftest MB/sec = MiB/s;"
	echo "latency = perftest t_typical (median); syscalls per post: steady-load loop = counted by tests/e2e/progs/dp_syscalls itself over 100,000 posts; ib_*_bw rows = (syscalls of an N2-message run - of an N1-message run) / (N2 - N1), strace -f -c, noisy (can come out slightly negative)"
	echo "-q N: one perftest pair with N QPs, 20,000 messages in all by default; 2 processes: two pairs at once on two TCP ports, each client's message rate summed;"
	echo "idle: CPU time (user+nice+system+irq+softirq+steal of /proc/stat; the engine thread's utime+stime) in 10 s while tests/bench/idle_qps holds 100 connected RC QPs with a receive posted and the CQ armed, nothing subtracted;"
	echo "one message: tests/bench/msg_cost, one thread, two RC QPs of the device connected to each other, mean of $(sed -n 's/^bench: msg_cost [^ ]* [^ ]* \([0-9]*\) .*/\1/p' "$OUT/guest.log" | head -n1) iterations (ping-pong rows: per message); kicks inline: orca_soft inline_kicks=2, a system call per post, as rxe, liborca's kick the driver's QP kick method, or uverbs POST_SEND with ORCA_KICK=post_send; the engine thread polling: inline_kicks=3, no system call per post (rxe0: three runs of the same);"
	echo "NVMe-oF: nvmet-rdma (null_blk) and nvme-rdma in the same guest over the device, fio libaio, direct, 1 job, $(sed -n 's/^bench: fio .*--runtime=\([0-9]*\) .*/\1/p' "$OUT/guest.log" | head -n1) s per run"
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
