#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# 'make check': every test stage in order, as one TAP stream.
#
#   tests/run-check.sh [STAGE...]     STAGE: build style kunit selftest e2e
#                                     e2e-debug cm-debug faults hostile pair
#                                     install (default: all, in that order,
#                                     except that kunit and the four
#                                     debug-kernel stages run in the
#                                     background from the start, the latter
#                                     one after another, and their points
#                                     come last, unless ORCA_CHECK_SERIAL=1)
#
# Each stage's test points are renumbered into one stream,
# "ok N - <stage>: <description>"; a stage that is missing, exits non-zero
# without a failing point, runs no point, or runs a number of points
# other than it planned adds a failing point.  "ok ... # SKIP/TODO" counts
# as a failure: nothing here is skipped on purpose.  Other output of a
# stage goes to build/check/<stage>.log; lines starting with '#' or
# 'harness:' are also shown as comments.  The last line is
# "N passed, N failed"; the exit status is non-zero if any failed.
# ORCA_CHECK_BUDGET (default 5000 s) bounds the whole run.
# ORCA_PAIR_MODES (default "orca-orca orca-rxe") are the pairings of the
# two-guest stage; add rxe-rxe, the control, to run it too.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
BUILD_DIR=${BUILD_DIR:-$REPO/build}
export BUILD_DIR
LOGS=$BUILD_DIR/check
mkdir -p "$LOGS"
rm -f "$LOGS/.build.done"

N=0
PASSED=0
FAILED=0
point() { # point OK|FAIL description
	N=$((N + 1))
	if [ "$1" = OK ]; then
		PASSED=$((PASSED + 1))
		echo "ok $N - $2"
	else
		FAILED=$((FAILED + 1))
		echo "not ok $N - $2"
	fi
}

# The whole run has a time budget (CI stops a run at 90 minutes): no stage
# may run past it, and a stage with no time left fails without running.
# 5000 s leaves .ci/run 400 s for make deps (17 s in the official run of
# 6f97633) and its summary.
BUDGET=${ORCA_CHECK_BUDGET:-5000}
START=$(date +%s)
stage_limit() { # stage_limit SECONDS: print min(SECONDS, time left)
	local left=$((START + BUDGET - $(date +%s)))
	[ "$left" -lt "$1" ] && echo "$left" || echo "$1"
}

# stage_tap NAME: fold the TAP a stage prints (stdin) into the stream;
# sets ST_RAN, ST_BAD and ST_PLANNED for stage_end.
stage_tap() {
	local name=$1 log=$LOGS/$1.log line desc
	ST_RAN=0
	ST_BAD=0
	ST_PLANNED=''
	while IFS= read -r line; do
		printf '%s\n' "$line" >>"$log"
		if [[ "$line" =~ ^1\.\.([0-9]+) ]]; then
			ST_PLANNED=${BASH_REMATCH[1]}
		elif [[ "$line" =~ ^(not\ )?ok\ [0-9]+(\ -)?\ ?(.*)$ ]]; then
			ST_RAN=$((ST_RAN + 1))
			desc=${BASH_REMATCH[3]}
			desc=${desc#"$name: "}
			if [ -n "${BASH_REMATCH[1]}" ]; then
				ST_BAD=$((ST_BAD + 1))
				point FAIL "$name: $desc"
			elif [[ "$desc" =~ \#\ *(SKIP|TODO) ]]; then
				ST_BAD=$((ST_BAD + 1))
				point FAIL "$name: $desc (skip/todo is not a pass)"
			else
				point OK "$name: $desc"
			fi
		elif [[ "$line" =~ ^(#|harness:) ]]; then
			printf '# %s\n' "$line"
		fi
	done
}

# stage_end NAME T0 RC LIMIT: the points for how a stage ended.
stage_end() {
	local name=$1 t0=$2 rc=$3 limit=$4
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		point FAIL "$name: timed out after $limit s"
	elif [ "$ST_RAN" -eq 0 ]; then
		point FAIL "$name: ran no test point (exit status $rc, see $LOGS/$name.log)"
	elif [ -n "$ST_PLANNED" ] && [ "$ST_PLANNED" -ne "$ST_RAN" ]; then
		point FAIL "$name: planned $ST_PLANNED test points, ran $ST_RAN"
	elif [ "$rc" -ne 0 ] && [ "$ST_BAD" -eq 0 ]; then
		point FAIL "$name: exited with status $rc with no failing test point (see $LOGS/$name.log)"
	fi
	echo "# stage $name: $(($(date +%s) - t0)) s"
}

# run_stage NAME TIMEOUT COMMAND...: run a TAP-printing stage.
run_stage() {
	local name=$1 limit fifo t0 pid rc=0
	limit=$(stage_limit "$2")
	shift 2
	if [ "$limit" -le 0 ]; then
		echo "# stage $name: not run"
		point FAIL "$name: not run, the time budget of $BUDGET s is spent"
		return
	fi
	echo "# stage $name: $*"
	t0=$(date +%s)
	fifo=$(mktemp -u "$LOGS/.fifo.XXXXXX")
	mkfifo "$fifo"
	timeout -k 30 "$limit" "$@" </dev/null >"$fifo" 2>&1 &
	pid=$!
	stage_tap "$name" <"$fifo"
	wait "$pid" || rc=$?
	rm -f "$fifo"
	stage_end "$name" "$t0" "$rc" "$limit"
}

# A stage can run in the background while the next ones run: bg_start
# starts it with its output held in a file, bg_finish waits for it and
# then folds its points into the stream, so that the stream stays in
# stage order.
# A background stage named in BG_AFTER starts only once that one ended
# (its .done file exists: bg_finish keeps it, unlike the .rc file), so
# that two debug guests never run at once; its time limit then counts
# from its own start, within the budget.  BG_AFTER may name the
# foreground stage build: the debug guests use liborca and the e2e
# programs that 'make' builds, and run-e2e.sh would build the programs
# at the same time in the same tree.
declare -A BG_PID BG_T0 BG_LIMIT BG_AFTER
bg_start() { # bg_start NAME TIMEOUT SCRIPT [ARGS...]
	local name=$1 limit after=${BG_AFTER[$1]:-}
	limit=$(stage_limit "$2")
	shift 2
	BG_LIMIT[$name]=$limit
	BG_T0[$name]=$(date +%s)
	rm -rf "$LOGS/$name.log" "$LOGS/.$name.out" "$LOGS/.$name.rc" \
		"$LOGS/.$name.done" "$LOGS/.$name.claim" "$LOGS/.$name.limit"
	if [ "$limit" -le 0 ] || [ ! -x "$1" ]; then
		BG_PID[$name]=''
		return
	fi
	# Only a stage this run has is waited for.
	if [ "$after" = build ]; then
		[[ " ${stages[*]} " == *" build "* ]] || after=''
	elif [ -n "$after" ] && [ -z "${BG_PID[$after]:-}" ]; then
		after=''
	fi
	echo "# stage $name (in the background${after:+, after $after}): $*"
	{
		if [ -n "$after" ]; then
			while [ ! -e "$LOGS/.$after.done" ]; do
				sleep 5
			done
			limit=$(stage_limit "$limit")
		fi
		# The foreground may have taken the stage over meanwhile.
		if stage_claim "$name"; then
			[ -z "$after" ] ||
				echo "# started after $after, $(($(date +%s) - BG_T0[$name])) s after the stage was queued" >"$LOGS/.$name.out"
			bg_run "$name" "$limit" "$@"
		fi
	} &
	BG_PID[$name]=$!
}
# stage_claim NAME: succeed for the first caller only (the background
# chain or the foreground, whichever comes first).
stage_claim() {
	mkdir "$LOGS/.$1.claim" 2>/dev/null
}
# bg_run NAME LIMIT COMMAND...: run a background stage's command, its
# output held in .NAME.out, its status in .NAME.rc, then mark it done.
bg_run() {
	local name=$1 limit=$2 rc=0
	shift 2
	echo "$limit" >"$LOGS/.$name.limit"
	if [ "$limit" -le 0 ]; then
		echo "not ok 1 - not run, the time budget of $BUDGET s is spent" >>"$LOGS/.$name.out"
		rc=1
	else
		timeout -k 30 "$limit" "$@" </dev/null >>"$LOGS/.$name.out" 2>&1 || rc=$?
	fi
	echo "$rc" >"$LOGS/.$name.rc"
	: >"$LOGS/.$name.done"
}
bg_finish() { # bg_finish NAME SCRIPT
	local name=$1 rc limit
	if [ -z "${BG_PID[$name]:-}" ]; then
		echo "# stage $name: $2"
		if [ ! -x "$2" ]; then
			point FAIL "$name: $2 does not exist or is not executable"
		else
			point FAIL "$name: not run, the time budget of $BUDGET s is spent"
		fi
		return
	fi
	wait "${BG_PID[$name]}" || true
	echo "# stage $name: started in the background $(($(date +%s) - BG_T0[$name])) s ago"
	stage_tap "$name" <"$LOGS/.$name.out"
	rc=$(cat "$LOGS/.$name.rc" 2>/dev/null || echo 1)
	limit=$(cat "$LOGS/.$name.limit" 2>/dev/null || echo "${BG_LIMIT[$name]}")
	rm -rf "$LOGS/.$name.out" "$LOGS/.$name.rc" "$LOGS/.$name.claim" \
		"$LOGS/.$name.limit"
	stage_end "$name" "${BG_T0[$name]}" "$rc" "$limit"
}

stage_build() {
	local log=$LOGS/build.log t0
	echo "# stage build: make"
	t0=$(date +%s)
	if timeout -k 30 "$(stage_limit 1200)" make >"$log" 2>&1 </dev/null; then
		point OK "build: make (modules W=1, liborca)"
	else
		point FAIL "build: make (modules W=1, liborca)"
		tail -n 30 "$log" | sed 's/^/#   /'
	fi
	# W=1 warnings fail the build stage too: the modules must build clean.
	if grep -E '^[^ ]+:[0-9]+:[0-9]+: warning:' "$log" >"$LOGS/build-warnings.log"; then
		point FAIL "build: compiler warnings: $(wc -l <"$LOGS/build-warnings.log")"
		head -n 20 "$LOGS/build-warnings.log" | sed 's/^/#   /'
	else
		point OK "build: no compiler warnings"
	fi
	: >"$LOGS/.build.done"
	echo "# stage build: $(($(date +%s) - t0)) s"
}

# A script that does not exist is a failing test, not a skip.
stage_script() { # stage_script NAME TIMEOUT SCRIPT [ARGS...]
	local name=$1 limit=$2 script=$3
	shift 3
	if [ ! -x "$script" ]; then
		echo "# stage $name: $script"
		point FAIL "$name: $script does not exist or is not executable"
		return
	fi
	run_stage "$name" "$limit" "$script" "$@"
}

# Four stages run on the KUnit/debug kernel (KASAN, UBSAN, lockdep,
# kmemleak, DEBUG_OBJECTS), each in its own guest, with a kmemleak scan
# after every third .t.  e2e-debug (two vCPUs, for the tests that run
# threads and QPs at once) holds the .t files whose kernel paths those
# checkers judge best: object lifetimes, teardown and error unwinding,
# concurrency:
#
#   45-link-delete, 47-link-netdev, 50-unload    device and netdev removal
#                                                with users attached
#   71-mw, 73-mr-rereg, 74-objects,              every object's bad inputs,
#   76-udata-raw, 82-xrc, 84-dm, 86-odp          hostile udata, memory
#                                                windows, MRs re-registered,
#                                                XRC domains, SRQs and QPs
#                                                shared by contexts and
#                                                processes, device memory
#                                                mapped into processes and
#                                                given back at their exit,
#                                                on-demand paging (page
#                                                faults and MMU-notifier
#                                                invalidations racing them)
#   78-kverbs                                    a kernel consumer (CQs
#                                                polled in softirq and
#                                                workqueue)
#   110-dp-errors, 140-dp-threads,               error completions and
#   142-dp-parallel, 138-dp-alloc                flushes; posting from
#                                                many threads, and QPs
#                                                run at once in the
#                                                shared lane (lockdep);
#                                                custom allocators
#   212-ev-async-fatal                           a fatal device
#   315-wire-teardown                            the wire torn down under
#                                                traffic
#
# cm-debug (one vCPU), the connection manager and its kernel users:
#
#   180-cm-tools                                 librdmacm's tools: ib_cm,
#                                                rdma_cm and the GSI QP
#   185-nvmeof, 186-nfs-rdma                     NVMe-oF and NFS/RDMA
#   187-cm-kill                                  processes killed mid-setup
#
# faults (one vCPU), the failures injected under the driver (issue 12,
# item 3):
#
#   60-admin-timeout                             a dead admin queue
#   75-admin-faults                              every admin command of the
#                                                verbs calls failed in turn,
#                                                and one completing after
#                                                the queue was declared dead
#   77-fail-nth                                  every kernel allocation of
#                                                the verbs calls failed in
#                                                turn (fault injection: the
#                                                debug kernel only)
#
# hostile (one vCPU), a hostile userspace (issue 12, item 2):
#
#   79-hostile-rings                             garbage in the mapped rings
#                                                and records, foreign keys
#   81-kill-storm                                SIGKILL in every stage of a
#                                                process's life (100 kills
#                                                here, 300 on the stock
#                                                kernel, 1000 in make soak)
#   83-map-abuse                                 munmap, mremap, mprotect,
#                                                mmap and fork on the queue
#                                                mappings, work in flight
#   85-uverbs-fuzz                               random and mutated uverbs
#                                                commands, ioctls and mmaps
#
# The whole suite on the debug kernel takes 40 to 45 minutes on the
# 2-core machine (1645 s measured quiet, 37 .t files; the rest are the
# same userspace over paths these already take) and with the debug
# kernel's cold build (15 to 28 minutes) would keep make check above
# an hour: it runs in 'make soak' (SOAK_PARTS=e2e-debug), as do the
# wire tests 300, 305 and 310 on the debug kernel (wire-debug).
# dma_debug=off: 6.1's DMA-API debugging reports any two mappings of
# one cacheline ("overlapping mappings aren't supported"), and
# registering one user buffer in two MRs, which verbs allow, maps it
# twice through ib_umem on every DMA-mapping RDMA device.  KASAN,
# lockdep, kmemleak and DEBUG_OBJECTS stay on.
# The official CI run of 6f97633 (2026-11-28), about 2.3 times slower
# than this machine, ran e2e-debug into its guest's old limit of 2400 s.
# The guest's limit is 3000 s: the stage's own (BG_CMD_LIMIT, counted
# from the start of make check) and the budget bound it anyway.
E2E_DEBUG_TESTS=(45-link-delete 47-link-netdev 50-unload 71-mw 73-mr-rereg
	74-objects 76-udata-raw 78-kverbs 82-xrc 84-dm 86-odp 110-dp-errors
	140-dp-threads 142-dp-parallel 212-ev-async-fatal 315-wire-teardown
	138-dp-alloc)
CM_DEBUG_TESTS=(180-cm-tools 185-nvmeof 186-nfs-rdma 187-cm-kill)
FAULT_TESTS=(60-admin-timeout 75-admin-faults 77-fail-nth)
HOSTILE_TESTS=(79-hostile-rings 81-kill-storm 83-map-abuse 85-uverbs-fuzz)
# debug_e2e STAGE VCPUS NAME...: the run-e2e.sh command for these .t
# files on the debug kernel in a guest of VCPUS vCPUs, its artifacts in
# $BUILD_DIR/STAGE.  Each .t may take 900 s: 315-wire-teardown.t took
# 363 s in a warm run and 606 s in a cold one (2026-11-28), beside the
# pair stage, making progress to the end.
debug_e2e() {
	local t out=$BUILD_DIR/$1 smp=$2
	shift 2
	CMD=(tests/harness/run-e2e.sh --out "$out" --smp "$smp"
		--debug-kernel --timeout 3000 --test-timeout 900
		--kmemleak-every 3
		--append dma_debug=off
		--env ORCA_KILLS=100 --env ORCA_PARALLEL_ROUNDS=200 --)
	for t in "$@"; do
		CMD+=("$REPO/tests/e2e/$t.t")
	done
}
# Every stage that boots the debug kernel (kunit, e2e-debug, cm-debug,
# faults, hostile) starts in the background before the first foreground
# stage: each asks tests/kunit/build-kernel.sh for the kernel, the first
# builds it and the others wait on its lock (with a warm cache none
# waits).  kunit starts at once; e2e-debug waits for the foreground
# build stage (it needs liborca and the e2e programs), and the others
# run one after another behind it, so that the background chain has one
# debug guest at a time.  Once the foreground's own stages are done, it
# takes over the chain's stages that have not started, the last first
# (stage_claim decides who runs a stage), so that two guests share the
# host to the end.
# A cold build (15 to 25 minutes on 2 cores) thus overlaps build,
# style, selftest and e2e instead of delaying them.  Their points
# follow the foreground stages' in the stream.  The limits count from
# the start of make check (for all but kunit and e2e-debug, from the
# stage's own start, within the budget).
# Every stage runs at the same priority.  The foreground ran at nice 5
# until 2026-11-28: beside a cold kernel build at nice 0 its one-vCPU
# guest got a quarter of a CPU, and twice (cold runs, 90-leak after
# 88-max-queues) that guest's kernel stopped making progress: the timer
# tick, slowed by the starved QEMU threads, took longer than its period,
# and a page clear (rep stosb) advanced a few bytes a second between
# ticks, with soft lockups and RCU stalls on the console.
BG_ORDER=(kunit e2e-debug cm-debug faults hostile)
declare -A BG_CMD_LIMIT=([kunit]=4200 [e2e-debug]=4200 [cm-debug]=1800
	[faults]=1200 [hostile]=1800)
BG_AFTER=([e2e-debug]=build [cm-debug]=e2e-debug [faults]=cm-debug
	[hostile]=faults)
bg_command() { # bg_command NAME: set CMD to the stage's command
	case "$1" in
	kunit) CMD=(tests/kunit/run-kunit.sh) ;;
	e2e-debug) debug_e2e e2e-debug 2 "${E2E_DEBUG_TESTS[@]}" ;;
	cm-debug) debug_e2e cm-debug 1 "${CM_DEBUG_TESTS[@]}" ;;
	faults) debug_e2e faults 1 "${FAULT_TESTS[@]}" ;;
	hostile) debug_e2e hostile 1 "${HOSTILE_TESTS[@]}" ;;
	esac
}

stages=("$@")
[ "${#stages[@]}" -gt 0 ] ||
	stages=(build style kunit selftest e2e e2e-debug cm-debug faults hostile pair
		install)
declare -A IN_BG=()
if [ "${ORCA_CHECK_SERIAL:-0}" != 1 ]; then
	for s in "${BG_ORDER[@]}"; do
		case " ${stages[*]} " in
		*" $s "*)
			bg_command "$s"
			bg_start "$s" "${BG_CMD_LIMIT[$s]}" "${CMD[@]}"
			IN_BG[$s]=1 ;;
		esac
	done
fi
# Each .t runs once in make check, on the kernel or in the form that
# proves it best; make soak runs the rest (its parts e2e-debug and
# e2e-stock).  The stock e2e leaves out the .t files that the
# debug-kernel stages of the same run take, among them the one-guest
# kernel consumers 185-nvmeof, 186-nfs-rdma and 187-cm-kill (the pair
# stage runs NVMe-oF and NFS/RDMA on Debian's own modules, across two
# guests) and 75-admin-faults (orca_soft's admin faults are the same on
# both kernels), and, when the pair stage runs, 188-middleware: the pair
# stage's 80-middleware is its two-guest form (issue 11 asks for that
# form once the wire is in).  These stay on both kernels:
# 81-kill-storm (300 kills on the stock kernel, three times what the
# debug kernel has time for; make soak runs a thousand), and what issue
# 14 asks for on both: 71-mw, 73-mr-rereg, 82-xrc, 84-dm, 86-odp (its
# memory-pressure case needs the stock kernel's memory cgroup and zram)
# and 138-dp-alloc.  88-max-queues (paged rings at the advertised
# maxima) runs on the stock kernel only: 29 s there and over 200 s on
# the debug kernel, where make soak's e2e-debug part runs it.
# 310-wire-lossy (two Orca functions on a veth pair in one guest, 5%
# loss) runs in make soak: the pair stage's 50-lossy is its two-guest
# form, stronger (100,000 messages at 1% and 10% loss, against Orca and
# against rxe).
# The stock e2e guest has one vCPU, as the pair stage's guests do: two
# guests of two vCPUs side by side put four vCPU threads on the two host
# CPUs, and a vCPU that waits for its descheduled peer (an IPI, a lock,
# a poster the engine thread waits for) stalls.  Beside a busy loop,
# 240-ev-stress.t (20,000 round trips), 300, 204 and 150 took 555 s
# with two vCPUs and 140 s with one (2026-11-28).
E2E_ARGS=(--smp 1 --timeout 2900 --env ORCA_KILLS=300
	--exclude 310-wire-lossy.t)
declare -A DEBUG_LIST=([e2e-debug]=E2E_DEBUG_TESTS [cm-debug]=CM_DEBUG_TESTS
	[faults]=FAULT_TESTS [hostile]=HOSTILE_TESTS)
for s in "${!DEBUG_LIST[@]}"; do
	[[ " ${stages[*]} " == *" $s "* ]] || continue
	declare -n list=${DEBUG_LIST[$s]}
	for t in "${list[@]}"; do
		case "$t" in
		71-*|73-*|81-*|82-*|84-*|86-*|138-*) ;;
		*) E2E_ARGS+=(--exclude "$t.t") ;;
		esac
	done
	unset -n list
done
[[ " ${stages[*]} " != *" pair "* ]] ||
	E2E_ARGS+=(--exclude 188-middleware.t)
for s in "${stages[@]}"; do
	[ -z "${IN_BG[$s]:-}" ] || continue
	rm -f "$LOGS/$s.log"
	case "$s" in
	build) stage_build ;;
	style) stage_script style 900 tests/style/run-style.sh ;;
	kunit) stage_script kunit 2400 tests/kunit/run-kunit.sh ;;
	selftest) stage_script selftest 900 tests/selftest/run-selftest.sh ;;
	# Measured 2026-11-25 (45 .t files, 1646 points, from a clean clone):
	# 928 s, of which 737 s in the .t files (240-ev-stress 98 s,
	# 187-cm-kill 91 s, 188-middleware 55 s; most under 20 s).
	# Beside the e2e-debug guest, on a host busy with more, it passed
	# its old 1800 s limit at 92-leak-qp.t (2026-11-25): 2400 s.  The
	# official CI machine ran 6f97633 about 2.3 times slower than this
	# one (2026-11-28): 2900 s for the guest, the budget bounding it.
	e2e) stage_script e2e 3000 tests/harness/run-e2e.sh "${E2E_ARGS[@]}" ;;
	# Two guests on one Ethernet segment (tests/pair/run-pair.sh), one
	# boot for every pairing: Orca on both, Orca against Soft-RoCE (rxe),
	# and, opt-in (ORCA_PAIR_MODES), rxe on both: the control that
	# proves the tests.  Measured 2026-11-25: rxe-rxe 368 and 401 s for
	# the boot (242 points), so about 800 s for the two default
	# pairings; all three would bring make check past an hour.
	pair) stage_script pair 1800 tests/pair/run-pair.sh --timeout 1700 \
		--modes "${ORCA_PAIR_MODES:-orca-orca orca-rxe}" ;;
	# make deb (with lintian), then a stock-kernel guest with nothing of
	# Orca installs the packages with apt-get (DKMS builds the modules
	# there), runs orca0 with no environment variable, and removes them
	# (tests/packaging/run-install.sh).  Measured 2026-11-26: 82 s for
	# make deb, 413 s for apt-get install with its DKMS build, 520 s in
	# all, beside another guest.  On a host as slow as the official CI
	# machine (2026-11-28), alone: the DKMS build 637 s, apt-get install
	# 705 and 787 s, the guest 830 and 946 s; beside a debug guest it
	# ran into its old limit of 1100 s (official CI and a local run):
	# with about half the host it needs about twice that.  The budget
	# bounds it anyway.
	install) stage_script install 2000 tests/packaging/run-install.sh --timeout 1900 ;;
	e2e-debug|cm-debug|faults|hostile)
		bg_command "$s"
		stage_script "$s" 2600 "${CMD[@]}" ;;
	*) point FAIL "unknown stage $s" ;;
	esac
done
# With its own stages done, the foreground takes over the debug-kernel
# stages the background chain has not started yet, the last first: two
# guests then run at once to the end instead of one.
for ((i = ${#BG_ORDER[@]} - 1; i >= 0; i--)); do
	s=${BG_ORDER[i]}
	if [ -z "${IN_BG[$s]:-}" ] || [ -z "${BG_PID[$s]:-}" ] ||
		! stage_claim "$s"; then
		continue
	fi
	bg_command "$s"
	echo "# stage $s: taken over by the foreground: ${CMD[*]}"
	bg_run "$s" "$(stage_limit "${BG_CMD_LIMIT[$s]}")" "${CMD[@]}"
done
for s in "${BG_ORDER[@]}"; do
	[ -z "${IN_BG[$s]:-}" ] || { bg_command "$s"; bg_finish "$s" "${CMD[0]}"; }
done
echo "# make check took $(($(date +%s) - START)) s; logs in $LOGS"
echo "1..$N"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
