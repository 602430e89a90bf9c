#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of 'make bench' (tests/bench/run-bench.sh boots the guest):
# perftest on orca0, then the same on rxe0 (Soft-RoCE) in the same guest,
# plus a memcpy measurement and syscalls per post.  Server and client run
# in this guest and talk to 127.0.0.1 / the RoCE v2 GID of eth0's IPv4
# address, as in the e2e tests (tests/e2e/lib-tools.sh).
#
#   bench-in-guest.sh RESULTS_FILE
#
# RESULTS_FILE gets one "DEV METRIC VALUE" line per measurement (VALUE
# "FAILED" when the tool did not run to completion); the log is on
# stdout.  orca0 and rxe0 would both use UDP port 4791, so orca0 is
# gone (orca, orca_soft unloaded) before rxe0 is created.  Exits 1 if a
# tool failed to run, 0 otherwise: the figures are never judged here.

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$HERE/../e2e/lib.sh"
# shellcheck source=tests/e2e/lib-tools.sh
. "$HERE/../e2e/lib-tools.sh"

OUT=${1:?usage: bench-in-guest.sh RESULTS_FILE}
: >"$OUT"
# shellcheck disable=SC2034 # used by lib-tools.sh
TOOLS_TIMEOUT=${BENCH_TIMEOUT:-180}
TOOLS_PORT=21000
# Iterations: enough for about a second of rxe at the figures of
# ARCHITECTURE.md section 3 (50 kpps at 64 B, 78 MB/s at 64 KiB).
N_SMALL=${BENCH_N_SMALL:-20000}
N_LARGE=${BENCH_N_LARGE:-2000}
N_LAT=${BENCH_N_LAT:-2000}
# Syscalls per post: two runs under strace, N1 and N2 messages; the
# difference of their syscall counts over N2 - N1 leaves out what
# connection setup and teardown cost.
N1=${BENCH_N_STRACE1:-1000}
N2=${BENCH_N_STRACE2:-5000}
failed=0

record() { # record DEV METRIC VALUE
	echo "$1 $2 $3" >>"$OUT"
	echo "bench: $1 $2 = $3"
}

# perf_run DEV GIDX TOOL BYTES ITERS: one perftest pair; the client's
# result line in PERF_LINE (empty if the run failed).
perf_run() {
	local dev=$1 gidx=$2 tool=$3 bytes=$4 iters=$5 port=$TOOLS_PORT
	TOOLS_PORT=$((TOOLS_PORT + 1))
	local args=(-d "$dev" -x "$gidx" -s "$bytes" -n "$iters" -p "$port" -F)
	echo
	echo "bench: $tool ${args[*]} (server and client to 127.0.0.1)"
	tools_pair "bench-$dev-$tool-$bytes" "$port" "$tool" "${args[@]}" -- \
		"$tool" "${args[@]}" 127.0.0.1
	sed -n '/^ *#bytes/,/^---/p' "$TP_CLI_OUT"
	PERF_LINE=
	if [ "$TP_SRV_RC" -ne 0 ] || [ "$TP_CLI_RC" -ne 0 ]; then
		echo "bench: $tool failed (server: $(tools_status_text "$TP_SRV_RC"), client: $(tools_status_text "$TP_CLI_RC"))"
		tail -n 20 "$TP_SRV_OUT" | sed 's/^/bench: server: /'
		tail -n 20 "$TP_CLI_OUT" | sed 's/^/bench: client: /'
		failed=1
		return 1
	fi
	PERF_LINE=$(tools_perftest_result "$TP_CLI_OUT")
}

# bw DEV GIDX TOOL BYTES ITERS NAME: record NAME_mpps and NAME_mibs.
bw() {
	local dev=$1 name=$6
	if perf_run "$1" "$2" "$3" "$4" "$5" && tools_perftest_bw_ok "$PERF_LINE" "$4" "$5"; then
		# shellcheck disable=SC2086 # split the fields
		set -- $PERF_LINE
		record "$dev" "${name}_mibs" "$4"
		record "$dev" "${name}_mpps" "$5"
	else
		failed=1
		record "$dev" "${name}_mibs" FAILED
		record "$dev" "${name}_mpps" FAILED
	fi
}

# lat DEV GIDX TOOL BYTES ITERS NAME: record NAME_typ_us and NAME_avg_us.
lat() {
	local dev=$1 name=$6
	if perf_run "$1" "$2" "$3" "$4" "$5" && tools_perftest_lat_ok "$PERF_LINE" "$4" "$5"; then
		# shellcheck disable=SC2086 # split the fields
		set -- $PERF_LINE
		record "$dev" "${name}_typ_us" "$5"
		record "$dev" "${name}_avg_us" "$6"
	else
		failed=1
		record "$dev" "${name}_typ_us" FAILED
		record "$dev" "${name}_avg_us" FAILED
	fi
}

# strace_calls FILE: "TOTAL WRITE_IOCTL" syscall counts of an strace -c
# summary (columns: % time, seconds, usecs/call, calls, [errors,] name).
strace_calls() {
	awk '$NF == "total" { total = $4 }
	     $NF == "write" || $NF == "ioctl" { wi += $4 }
	     END { printf "%d %d\n", total, wi }' "$1"
}

# strace_run DEV GIDX TOOL ITERS SIDE: run TOOL with 64-byte messages,
# SIDE (server or client) under strace -f -c; prints "TOTAL WRITE_IOCTL".
strace_run() {
	local dev=$1 gidx=$2 tool=$3 iters=$4 side=$5 port=$TOOLS_PORT
	local sfile=/tmp/bench-strace-$dev-$tool-$side-$iters
	TOOLS_PORT=$((TOOLS_PORT + 1))
	local args=(-d "$dev" -x "$gidx" -s 64 -n "$iters" -p "$port" -F)
	local st=(strace -f -c -o "$sfile")
	if [ "$side" = server ]; then
		tools_pair "strace-$dev-$tool-$iters" "$port" "${st[@]}" "$tool" "${args[@]}" -- \
			"$tool" "${args[@]}" 127.0.0.1
	else
		tools_pair "strace-$dev-$tool-$iters" "$port" "$tool" "${args[@]}" -- \
			"${st[@]}" "$tool" "${args[@]}" 127.0.0.1
	fi
	if [ "$TP_SRV_RC" -ne 0 ] || [ "$TP_CLI_RC" -ne 0 ] || [ ! -s "$sfile" ]; then
		echo "bench: $tool -n $iters under strace failed (server: $(tools_status_text "$TP_SRV_RC"), client: $(tools_status_text "$TP_CLI_RC"))" >&2
		tail -n 20 "$TP_SRV_OUT" "$TP_CLI_OUT" >&2
		return 1
	fi
	echo "bench: strace -c of the $tool $side, $iters messages:" >&2
	sed 's/^/bench:   /' "$sfile" >&2
	strace_calls "$sfile"
}

# syscalls DEV GIDX TOOL SIDE NAME: record NAME (all syscalls per
# message) and NAME_wi (write + ioctl per message) for SIDE of TOOL.
syscalls() {
	local dev=$1 name=$5 a b
	if a=$(strace_run "$1" "$2" "$3" "$N1" "$4" 2>&1 >/tmp/bench-sc1) &&
		b=$(strace_run "$1" "$2" "$3" "$N2" "$4" 2>&1 >/tmp/bench-sc2); then
		echo "$a"
		echo "$b"
		read -r a1 w1 </tmp/bench-sc1
		read -r a2 w2 </tmp/bench-sc2
		record "$dev" "$name" "$(awk -v x="$a1" -v y="$a2" -v n="$((N2 - N1))" \
			'BEGIN { printf "%.4f", (y - x) / n }')"
		record "$dev" "${name}_wi" "$(awk -v x="$w1" -v y="$w2" -v n="$((N2 - N1))" \
			'BEGIN { printf "%.4f", (y - x) / n }')"
	else
		echo "$a"
		echo "${b:-}"
		failed=1
		record "$dev" "$name" FAILED
		record "$dev" "${name}_wi" FAILED
	fi
}

# loop_syscalls DEV NAME: system calls per post counted by the process
# itself inside progs/dp_syscalls.c's steady-load loops (100,000
# pipelined RC WRITEs and SENDs; perf tracepoint or seccomp trap), so
# without the setup and teardown noise of the strace difference above.
loop_syscalls() {
	local dev=$1 name=$2 out=/tmp/bench-dp-syscalls-$1 sc posts
	timeout 300 "$E2E_BIN/dp_syscalls" "$dev" 60000 40000 >"$out" 2>&1
	sc=$(sed -n 's/^# syscalls=\([0-9][0-9]*\)$/\1/p' "$out")
	posts=$(sed -n 's/^# posts=\([0-9][0-9]*\)$/\1/p' "$out")
	grep -E '^# .*system calls during' "$out" || true
	if [ -n "$sc" ] && [ -n "$posts" ] && [ "$posts" -gt 0 ]; then
		record "$dev" "$name" "$(awk -v s="$sc" -v p="$posts" \
			'BEGIN { printf "%.4f", s / p }')"
	else
		echo "bench: dp_syscalls on $dev gave no count" >&2
		tail -n 20 "$out" >&2
		failed=1
		record "$dev" "$name" FAILED
	fi
}

# bench_dev DEV: every measurement on DEV.
bench_dev() {
	local dev=$1 gidx
	if ! wait_for 30 tools_gid_index "$dev" eth0; then
		echo "bench: $dev has no RoCE v2 GID for eth0's IPv4 address"
		failed=1
		return 1
	fi
	gidx=$(tools_gid_index "$dev" eth0)
	record "$dev" gid_index "$gidx"
	bw "$dev" "$gidx" ib_send_bw 64 "$N_SMALL" send_bw_64
	bw "$dev" "$gidx" ib_write_bw 64 "$N_SMALL" write_bw_64
	bw "$dev" "$gidx" ib_send_bw 65536 "$N_LARGE" send_bw_64k
	bw "$dev" "$gidx" ib_write_bw 65536 "$N_LARGE" write_bw_64k
	bw "$dev" "$gidx" ib_read_bw 65536 "$N_LARGE" read_bw_64k
	lat "$dev" "$gidx" ib_send_lat 2 "$N_LAT" send_lat_2
	lat "$dev" "$gidx" ib_write_lat 2 "$N_LAT" write_lat_2
	lat "$dev" "$gidx" ib_read_lat 2 "$N_LAT" read_lat_2
	syscalls "$dev" "$gidx" ib_write_bw client sc_write_bw_client
	syscalls "$dev" "$gidx" ib_send_bw client sc_send_bw_client
	syscalls "$dev" "$gidx" ib_send_bw server sc_send_bw_server
	loop_syscalls "$dev" sc_loop
}

# load_ko KO: modprobe what it depends on, then insmod it.
load_ko() {
	local dep
	for dep in $(modinfo -F depends "$1" | tr ',' ' '); do
		modprobe "$dep" || return 1
	done
	insmod "$1"
}

# shellcheck disable=SC2317 # called through wait_for
port_active() { # port_active DEV
	ibv_devinfo -d "$1" 2>/dev/null | grep -q PORT_ACTIVE
}

echo "bench: $(uname -r), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
echo "bench: perftest $(dpkg-query -W -f='${Version}' perftest 2>/dev/null), rdma-core $(dpkg-query -W -f='${Version}' ibverbs-providers 2>/dev/null)"

# --- memcpy, the ceiling of a local copy ---
if mc=$("$BUILD_DIR/bench/memcpy_bw" 65536 $((16 << 20)) 2); then
	echo "bench: $mc"
	record guest memcpy_64k_mibs "$(echo "$mc" | sed -n 's/.*MiB\/s=\([0-9.]*\).*/\1/p')"
else
	failed=1
	record guest memcpy_64k_mibs FAILED
fi

# --- orca0 ---
# BENCH_DEVS (default "orca0 rxe0") can leave one out, e.g. to debug.
DEVS=" ${BENCH_DEVS:-orca0 rxe0} "
if [[ "$DEVS" != *" orca0 "* ]]; then
	echo "bench: orca0 left out (BENCH_DEVS)"
elif modprobe ib_uverbs && load_ko "$REPO/drivers/orca_soft/orca_soft.ko" &&
	load_ko "$REPO/drivers/orca/orca.ko" &&
	rdma link add orca0 type orca netdev eth0 && wait_for 30 port_active orca0; then
	bench_dev orca0
else
	echo "bench: could not bring up orca0"
	failed=1
fi
# orca0 cannot be deleted with 'rdma link delete': unloading removes it.
rdma link delete orca0 >/dev/null 2>&1
for m in orca orca_soft; do
	if [ -e "/sys/module/$m" ] && ! timeout 120 rmmod "$m"; then
		echo "bench: rmmod $m failed"
		failed=1
	fi
done

# --- rxe0 ---
if [[ "$DEVS" != *" rxe0 "* ]]; then
	echo "bench: rxe0 left out (BENCH_DEVS)"
elif modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0 &&
	wait_for 30 port_active rxe0; then
	bench_dev rxe0
else
	echo "bench: could not bring up rxe0"
	failed=1
fi
rdma link delete rxe0 >/dev/null 2>&1

echo "bench: done (a tool failed: $failed)"
exit "$failed"
