#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of 'make bench' (tests/bench/run-bench.sh boots the guest):
# perftest on orca0, then the same on rxe0 (Soft-RoCE) in the same guest,
# plus a memcpy measurement, syscalls per post, message rates with
# several QPs and processes, the CPU time of an idle device with 100
# armed QPs and NVMe-oF (nvmet-rdma and nvme-rdma) read rates with fio.
# Server and client run in this guest and talk to 127.0.0.1 / the RoCE
# v2 GID of eth0's IPv4 address, as in the e2e tests
# (tests/e2e/lib-tools.sh).
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
# shellcheck source=tests/e2e/lib-nvmeof.sh
. "$HERE/../e2e/lib-nvmeof.sh"

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
# Two pairs at once: long enough (about a second or more each) that the
# two runs overlap for nearly all of their time, whatever the start-up
# skew between them; a short run's rate can be that of a CPU alone.
N_2P=${BENCH_N_2P:-200000}
# Syscalls per post: two runs under strace, N1 and N2 messages; the
# difference of their syscall counts over N2 - N1 leaves out what
# connection setup and teardown cost.
N1=${BENCH_N_STRACE1:-1000}
N2=${BENCH_N_STRACE2:-5000}
# The breakdown of one small message: iterations of each step.
N_MSG_COST=${BENCH_N_MSG_COST:-20000}
# The idle rows: seconds measured, QPs held.
IDLE_SECS=10
IDLE_QPS=100
CLK_TCK=$(getconf CLK_TCK)
# Seconds of each fio run of the NVMe-oF rows.
FIO_SECS=${BENCH_FIO_SECS:-10}
failed=0

# phase WHAT: how long the guest has taken so far (bash's SECONDS).
phase() {
	echo "bench: [${SECONDS} s] $1"
}

record() { # record DEV METRIC VALUE
	echo "$1 $2 $3" >>"$OUT"
	echo "bench: $1 $2 = $3"
}

# perf_run DEV GIDX TOOL BYTES ITERS [OPTION...]: one perftest pair
# (OPTIONs added to both sides); the client's result line in PERF_LINE
# (empty if the run failed).
perf_run() {
	local dev=$1 gidx=$2 tool=$3 bytes=$4 iters=$5 port=$TOOLS_PORT
	TOOLS_PORT=$((TOOLS_PORT + 1))
	local args=(-d "$dev" -x "$gidx" -s "$bytes" -n "$iters" -p "$port" -F "${@:6}")
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

# bw DEV GIDX TOOL BYTES ITERS NAME [QPS]: record NAME_mpps and
# NAME_mibs.  With QPS, perftest -q QPS: ITERS messages on each QP, and
# the result line counts (and rates) those of all QPs.
bw() {
	local dev=$1 name=$6 qps=${7:-1} opt=()
	[ -n "${7:-}" ] && opt=(-q "$7")
	if perf_run "$1" "$2" "$3" "$4" "$5" "${opt[@]}" &&
		tools_perftest_bw_ok "$PERF_LINE" "$4" "$(($5 * qps))"; then
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

# both_listening PORT: each pair's readiness check in bw2, so that the
# two clients start together: PORT (its server's) listens, and both
# servers have been seen listening (a server stops listening once its
# client has connected, which can be before the other pair looks).
# shellcheck disable=SC2317 # called through TOOLS_READY
both_listening() {
	tools_listening "$1" || return 1
	touch "/tmp/bench-listened-$1"
	[ -e "/tmp/bench-listened-$BW2_PORT1" ] && [ -e "/tmp/bench-listened-$BW2_PORT2" ]
}

# bw2 DEV GIDX TOOL BYTES ITERS NAME: two independent perftest pairs at
# the same time (two servers, two clients, one QP each, ITERS messages
# each, TCP ports P and P+1); each client starts once both servers
# listen.  Records NAME_mpps, the sum of the two clients' message rates.
bw2() {
	local dev=$1 gidx=$2 tool=$3 bytes=$4 iters=$5 name=$6
	local i port rc line srv cli sum=0 ok=1 pids=() args
	BW2_PORT1=$TOOLS_PORT
	BW2_PORT2=$((TOOLS_PORT + 1))
	TOOLS_PORT=$((TOOLS_PORT + 2))
	echo
	echo "bench: two $tool pairs at once: -d $dev -x $gidx -s $bytes -n $iters -F, -p $BW2_PORT1 and -p $BW2_PORT2"
	for i in 1 2; do
		port=$((BW2_PORT1 + i - 1))
		args=(-d "$dev" -x "$gidx" -s "$bytes" -n "$iters" -p "$port" -F)
		rm -f "/tmp/bench-$dev-$tool-2p$i.rc" "/tmp/bench-listened-$port"
		(
			TOOLS_READY=both_listening
			tools_pair "bench-$dev-$tool-$bytes-2p$i" "$port" "$tool" "${args[@]}" -- \
				"$tool" "${args[@]}" 127.0.0.1
			echo "$TP_SRV_RC $TP_CLI_RC" >"/tmp/bench-$dev-$tool-2p$i.rc"
		) &
		pids+=("$!")
	done
	wait "${pids[@]}"
	for i in 1 2; do
		srv=/tmp/tools-bench-$dev-$tool-$bytes-2p$i.server
		cli=/tmp/tools-bench-$dev-$tool-$bytes-2p$i.client
		rc=$(cat "/tmp/bench-$dev-$tool-2p$i.rc" 2>/dev/null) || rc="none none"
		line=$(tools_perftest_result "$cli")
		if [ "$rc" != "0 0" ] || ! tools_perftest_bw_ok "$line" "$bytes" "$iters"; then
			echo "bench: $tool pair $i failed (exit statuses of server and client: $rc)"
			tail -n 20 "$srv" | sed 's/^/bench: server: /'
			tail -n 20 "$cli" | sed 's/^/bench: client: /'
			ok=0
			continue
		fi
		echo "bench: pair $i: $(echo "$line" | tr -s ' \t' ' ')"
		# shellcheck disable=SC2086 # split the fields
		set -- $line
		sum=$(awk -v a="$sum" -v b="$5" 'BEGIN { printf "%.6f", a + b }')
	done
	if [ "$ok" -eq 1 ]; then
		record "$dev" "${name}_mpps" "$sum"
	else
		failed=1
		record "$dev" "${name}_mpps" FAILED
	fi
}

# sys_cpu_ticks: the whole system's non-idle CPU time so far, in clock
# ticks: user + nice + system + irq + softirq + steal of /proc/stat.
sys_cpu_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

# engine_pids: the PIDs of orca_soft's engine threads (orca_softN_eng).
engine_pids() {
	local f comm
	for f in /proc/[0-9]*/comm; do
		comm=$(cat "$f" 2>/dev/null) || continue
		[[ "$comm" =~ ^orca_soft[0-9]+_eng$ ]] || continue
		f=${f#/proc/}
		echo "${f%/comm}"
	done
}

# task_ticks PID...: their utime + stime (/proc/PID/stat fields 14 and
# 15) summed, in clock ticks; fails if one is gone.
task_ticks() {
	local pid st sum=0
	for pid in "$@"; do
		st=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
		st=${st##*) }
		# shellcheck disable=SC2086 # split the fields (field 3 on)
		set -- $st
		sum=$((sum + ${12} + ${13}))
	done
	echo "$sum"
}

ticks_ms() { # ticks_ms TICKS: in milliseconds
	echo $(($1 * 1000 / CLK_TCK))
}

# idle_base: the system's CPU time over IDLE_SECS with no RDMA device
# and nothing running (the reference for the idle rows).
idle_base() {
	local s0 s1
	echo "bench: system CPU time over $IDLE_SECS s, no RDMA device"
	s0=$(sys_cpu_ticks)
	sleep "$IDLE_SECS"
	s1=$(sys_cpu_ticks)
	record guest idle_base_sys_cpu_ms "$(ticks_ms $((s1 - s0)))"
}

# idle_cpu DEV GIDX: idle_qps holds IDLE_QPS connected RC QPs on DEV,
# each with a posted receive and an armed CQ, and sleeps; over IDLE_SECS
# of that sleep, record idle100_sys_cpu_ms (the whole system's CPU time)
# and, for orca0, idle100_eng_cpu_ms (its engine threads').  Raw figures:
# the baseline (idle_base) is not subtracted.
idle_cpu() {
	local dev=$1 gidx=$2 out=/tmp/bench-idle-$1 pid rc deadline
	local eng=() s0 s1 e0='' e1='' ok=1
	echo
	echo "bench: $IDLE_QPS idle RC QPs on $dev, system CPU time over $IDLE_SECS s"
	timeout -k 5 $((IDLE_SECS + 120)) "$BUILD_DIR/bench/idle_qps" "$dev" "$gidx" \
		$((IDLE_SECS + 2)) "$IDLE_QPS" >"$out" 2>&1 &
	pid=$!
	deadline=$(($(date +%s) + 100))
	until grep -qx ready "$out"; do
		if ! kill -0 "$pid" 2>/dev/null || [ "$(date +%s)" -ge "$deadline" ]; then
			break
		fi
		sleep 0.1
	done
	if grep -qx ready "$out"; then
		[ "$dev" = orca0 ] && mapfile -t eng < <(engine_pids)
		if [ "$dev" = orca0 ] && [ "${#eng[@]}" -eq 0 ]; then
			echo "bench: no orca_soft*_eng thread found"
			ok=0
		fi
		[ "${#eng[@]}" -eq 0 ] || e0=$(task_ticks "${eng[@]}")
		s0=$(sys_cpu_ticks)
		sleep "$IDLE_SECS"
		s1=$(sys_cpu_ticks)
		[ "${#eng[@]}" -eq 0 ] || e1=$(task_ticks "${eng[@]}")
	else
		echo "bench: idle_qps did not get ready"
		ok=0
	fi
	wait "$pid"
	rc=$?
	sed 's/^/bench: idle_qps: /' "$out"
	if [ "$rc" -ne 0 ]; then
		echo "bench: idle_qps on $dev failed ($(tools_status_text "$rc"))"
		ok=0
	fi
	if [ "$ok" -eq 1 ]; then
		record "$dev" idle100_sys_cpu_ms "$(ticks_ms $((s1 - s0)))"
	else
		failed=1
		record "$dev" idle100_sys_cpu_ms FAILED
	fi
	[ "$dev" = orca0 ] || return 0
	if [ "$ok" -eq 1 ] && [ -n "$e0" ] && [ -n "$e1" ]; then
		echo "bench: engine threads (PIDs): ${eng[*]}"
		record "$dev" idle100_eng_cpu_ms "$(ticks_ms $((e1 - e0)))"
	else
		failed=1
		record "$dev" idle100_eng_cpu_ms FAILED
	fi
}

# ---- NVMe over Fabrics: nvmet-rdma target and nvme-rdma host here ----
NVME_NQN=orca-bench-nvmeof
NVME_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:6f72ca00-0e2e-4e5f-9d00-0000000b0013
NVME_PORTID=1
NVME_SVCID=4420
# The same for both devices: a 1 GiB null_blk (no memory behind it).
NULLB_PARAMS=(nr_devices=1 gb=1)

# shellcheck disable=SC2317 # called through wait_for
nvme_ns_ready() { # nvme_ns_ready: the namespace's block device is there
	local c
	c=$(nvme_ctrl_of "$NVME_NQN")
	[ -n "$c" ] && [ -b "/dev/${c}n1" ]
}

# shellcheck disable=SC2317 # called through wait_for
nvme_no_ctrl() {
	[ -z "$(nvme_ctrl_of "$NVME_NQN")" ]
}

# shellcheck disable=SC2317 # called through wait_for
nvmet_listening() { # nvmet_listening DEV IP: nvmet-rdma listens on DEV
	rdma resource show cm_id 2>/dev/null |
		grep -qE "^link $1/[0-9-]+ .*state LISTEN .*src-addr $2:$NVME_SVCID "
}

# fio_read JSON: "IOPS MIB_PER_S" of the reads of fio's only job in its
# JSON output; fails if the job reported an error or read nothing.
fio_read() {
	python3 - "$1" <<'EOF'
import json
import sys

text = open(sys.argv[1]).read()
job = json.loads(text[text.index("{"):])["jobs"][0]
r = job["read"]
if job["error"] or r["io_bytes"] <= 0:
    sys.exit(1)
print("%.0f %.2f" % (r["iops"], r["bw_bytes"] / 1048576.0))
EOF
}

# fio_run BDEV RW BS NAME: FIO_SECS seconds of RW (randread or read) in
# blocks of BS on BDEV, queue depth 16, one job, O_DIRECT, libaio;
# FIO_RESULT gets fio_read's "IOPS MIB_PER_S" (empty if fio failed).
fio_run() {
	local out=/tmp/bench-fio-$4.json rc
	FIO_RESULT=
	echo "bench: fio --rw=$2 --bs=$3 --iodepth=16 --numjobs=1 --direct=1 --ioengine=libaio --time_based --runtime=$FIO_SECS on $1"
	timeout -k 5 $((FIO_SECS + 120)) fio --name="$4" --filename="$1" --rw="$2" \
		--bs="$3" --iodepth=16 --numjobs=1 --direct=1 --ioengine=libaio \
		--time_based --runtime="$FIO_SECS" --output-format=json \
		--output="$out" >"/tmp/bench-fio-$4.log" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ] || ! FIO_RESULT=$(fio_read "$out"); then
		echo "bench: fio $4 failed ($(tools_status_text "$rc"))"
		tail -n 20 "/tmp/bench-fio-$4.log" "$out" | sed 's/^/bench: /'
		FIO_RESULT=
		return 1
	fi
	echo "bench: IOPS, MiB/s: $FIO_RESULT"
}

# nvmeof DEV: NVMe-oF over DEV, target (null_blk behind nvmet-rdma on
# eth0's IPv4 address) and host (nvme connect) in this guest; records
# nvmeof_randread_4k_iops and nvmeof_read_128k_mibs.  Then disconnects,
# takes the target down and unloads nvme-rdma, nvmet-rdma and null_blk,
# so that nothing holds DEV when it goes.
nvmeof() {
	local dev=$1 ip ctrl m ok=0
	ip=$(ip -4 -o addr show dev eth0 | awk '{ print $4 }' | cut -d/ -f1 | head -n1)
	echo
	echo "bench: NVMe-oF over $dev: nvmet-rdma at $ip:$NVME_SVCID, /dev/nullb0 (null_blk ${NULLB_PARAMS[*]})"
	if modprobe null_blk "${NULLB_PARAMS[@]}" && modprobe nvmet-rdma && modprobe nvme-rdma &&
		nvmet_up "$NVME_NQN" /dev/nullb0 "$NVME_PORTID" "$ip" "$NVME_SVCID" &&
		wait_for 10 nvmet_listening "$dev" "$ip" &&
		timeout 120 nvme connect -t rdma -n "$NVME_NQN" -a "$ip" -s "$NVME_SVCID" \
			--hostnqn="$NVME_HOSTNQN" 2>&1 | sed 's/^/bench: /' &&
		[ "${PIPESTATUS[0]}" -eq 0 ] && wait_for 30 nvme_ns_ready; then
		ok=1
	else
		echo "bench: NVMe-oF setup over $dev failed"
		rdma resource show cm_id 2>/dev/null | sed 's/^/bench: /'
	fi
	ctrl=$(nvme_ctrl_of "$NVME_NQN")
	if [ "$ok" -eq 1 ] && fio_run "/dev/${ctrl}n1" randread 4k "$dev-randread-4k"; then
		record "$dev" nvmeof_randread_4k_iops "${FIO_RESULT% *}"
	else
		failed=1
		record "$dev" nvmeof_randread_4k_iops FAILED
	fi
	if [ "$ok" -eq 1 ] && fio_run "/dev/${ctrl}n1" read 128k "$dev-read-128k"; then
		record "$dev" nvmeof_read_128k_mibs "${FIO_RESULT#* }"
	else
		failed=1
		record "$dev" nvmeof_read_128k_mibs FAILED
	fi
	if [ -n "$ctrl" ]; then
		timeout 120 nvme disconnect -n "$NVME_NQN" 2>&1 | sed 's/^/bench: /'
		if ! wait_for 30 nvme_no_ctrl; then
			echo "bench: the NVMe-oF controller $ctrl is still there"
			failed=1
		fi
	fi
	if ! nvmet_down "$NVME_NQN" "$NVME_PORTID"; then
		echo "bench: the nvmet subsystem or port is still there"
		failed=1
	fi
	for m in nvme-rdma nvmet-rdma null_blk; do
		if ! timeout 120 modprobe -r "$m"; then
			echo "bench: modprobe -r $m failed"
			failed=1
		fi
	done
}

# msg_cost_run DEV GIDX PREFIX [VAR=VALUE...]: one run of
# tests/bench/msg_cost.c (in that environment), each step recorded as
# PREFIX_STEP_ns.
msg_cost_run() {
	local dev=$1 out step ns
	echo
	echo "bench: msg_cost $dev $2 $N_MSG_COST ($3)"
	if out=$(timeout "$TOOLS_TIMEOUT" env "${@:4}" "$BUILD_DIR/bench/msg_cost" "$dev" "$2" \
		"$N_MSG_COST" 2>&1); then
		echo "$out"
		while read -r _ step ns; do
			record "$dev" "${3}_${step}_ns" "$ns"
		done < <(echo "$out" | grep '^msg_cost ')
	else
		printf '%s\n' "$out" | sed 's/^/bench: msg_cost: /'
		echo "bench: msg_cost failed on $dev"
		failed=1
		for step in syscall uverbs_bad kick poll_empty write_pp read_pp send_pp; do
			record "$dev" "${3}_${step}_ns" FAILED
		done
	fi
}

# msg_cost DEV GIDX: the breakdown rows.  orca_soft three times: with
# every kick run in the poster's system call (inline_kicks=2), the way
# rxe always works, as in perftest's latency tests, whose two processes
# keep both CPUs busy, liborca kicking with the driver's QP kick method
# and then with uverbs POST_SEND (ORCA_KICK=post_send); then with each
# kicked QP handed to the engine thread (inline_kicks=3), which polls
# its SQ from the other CPU, so that no post makes a system call.  rxe
# three times the same way (the runs show its spread).
msg_cost() {
	local param=/sys/module/orca_soft/parameters/inline_kicks mode=
	if [ "$1" = orca0 ] && ! { mode=$(cat "$param") && echo 2 >"$param"; }; then
		echo "bench: cannot set $param"
		failed=1
	fi
	msg_cost_run "$1" "$2" mc
	msg_cost_run "$1" "$2" mcp ORCA_KICK=post_send
	if [ "$1" = orca0 ] && ! echo 3 >"$param"; then
		echo "bench: cannot set $param"
		failed=1
	fi
	msg_cost_run "$1" "$2" mct
	if [ -n "$mode" ] && ! echo "$mode" >"$param"; then
		echo "bench: cannot restore $param"
		failed=1
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
	phase "$dev: the cost of one small message, piece by piece"
	msg_cost "$dev" "$gidx"
	[ -z "${BENCH_MSG_COST_ONLY:-}" ] || return 0
	phase "$dev: perftest"
	bw "$dev" "$gidx" ib_send_bw 64 "$N_SMALL" send_bw_64
	bw "$dev" "$gidx" ib_write_bw 64 "$N_SMALL" write_bw_64
	bw "$dev" "$gidx" ib_send_bw 65536 "$N_LARGE" send_bw_64k
	bw "$dev" "$gidx" ib_write_bw 65536 "$N_LARGE" write_bw_64k
	bw "$dev" "$gidx" ib_read_bw 65536 "$N_LARGE" read_bw_64k
	lat "$dev" "$gidx" ib_send_lat 2 "$N_LAT" send_lat_2
	lat "$dev" "$gidx" ib_write_lat 2 "$N_LAT" write_lat_2
	lat "$dev" "$gidx" ib_read_lat 2 "$N_LAT" read_lat_2
	phase "$dev: syscalls per post"
	syscalls "$dev" "$gidx" ib_write_bw client sc_write_bw_client
	syscalls "$dev" "$gidx" ib_send_bw client sc_send_bw_client
	syscalls "$dev" "$gidx" ib_send_bw server sc_send_bw_server
	loop_syscalls "$dev" sc_loop
	phase "$dev: several QPs and processes"
	# Aggregates: -q 1 is the 64 B runs above; -q N carries the same
	# number of messages in all (N_SMALL / N on each QP).
	bw "$dev" "$gidx" ib_send_bw 64 $((N_SMALL / 2)) send_bw_64_q2 2
	bw "$dev" "$gidx" ib_send_bw 64 $((N_SMALL / 4)) send_bw_64_q4 4
	bw2 "$dev" "$gidx" ib_send_bw 64 "$N_2P" send_bw_64_2p
	bw "$dev" "$gidx" ib_write_bw 64 $((N_SMALL / 2)) write_bw_64_q2 2
	bw "$dev" "$gidx" ib_write_bw 64 $((N_SMALL / 4)) write_bw_64_q4 4
	bw2 "$dev" "$gidx" ib_write_bw 64 "$N_2P" write_bw_64_2p
	phase "$dev: idle QPs"
	idle_cpu "$dev" "$gidx"
	phase "$dev: NVMe-oF"
	nvmeof "$dev"
	phase "$dev: done"
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

# --- the system's CPU time with no device work, for the idle rows ---
idle_base

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

phase "done (a tool failed: $failed)"
exit "$failed"
