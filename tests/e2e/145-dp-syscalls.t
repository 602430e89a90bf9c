#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# System calls per post under steady load (issue #4: "near zero"), with
# progs/dp_syscalls.c (pipelined RC WRITEs and SENDs, busy polling):
#  - 100000 posts: the program counts its own read/write system calls
#    during the loops (/proc/self/io; a uverbs kick is a write);
#  - under "strace -f -c", which counts every system call of the
#    process: a short run (setup and teardown) and a long one; the
#    difference over the difference in posts is the figure reported.
# The bound asserted is generous: < 0.1 per post.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

MAX_PER_POST=0.1
STRACE_TIMEOUT=240

# traced NAME WRITES SENDS: run under strace; sets calls and posts.
traced() {
	local out=/tmp/e2e-dp_syscalls-$1.out st=/tmp/e2e-dp-strace-$1.out rc=0
	timeout "$STRACE_TIMEOUT" strace -f -c -o "$st" \
		"$E2E_BIN/dp_syscalls" "$ORCA_DEV" "$2" "$3" >"$out" 2>&1 || rc=$?
	[ "$rc" -eq 124 ] && diag "strace run '$1' timed out after $STRACE_TIMEOUT s"
	fold_tap "$out" "$rc" "dp_syscalls $2 $3 under strace"
	posts=$(sed -n 's/^# posts=\([0-9][0-9]*\)$/\1/p' "$out")
	# strace -c: "% time  seconds  usecs/call  calls  [errors]  syscall";
	# the last line is the total, with the calls in the 4th column.
	calls=$(awk '$NF == "total" { print $4 }' "$st" 2>/dev/null)
	diag "strace run '$1': ${calls:-?} system calls, ${posts:-?} posts"
}

before=$(res_summary)
run_prog dp_syscalls "$ORCA_DEV" 60000 40000

if command -v strace >/dev/null; then
	ok 0 "strace is installed"
	traced short 64 64
	c0=${calls:-} p0=${posts:-}
	traced long 12800 6400
	c1=${calls:-} p1=${posts:-}
	sed 's/^/# /' /tmp/e2e-dp-strace-long.out 2>/dev/null | head -n 25
	if [ -n "$c0" ] && [ -n "$p0" ] && [ -n "$c1" ] && [ -n "$p1" ] &&
		[ "$p1" -gt "$p0" ]; then
		ratio=$(awk -v c0="$c0" -v c1="$c1" -v p0="$p0" -v p1="$p1" \
			'BEGIN { printf "%.4f", (c1 - c0) / (p1 - p0) }')
		diag "syscalls per post: $ratio ($((c1 - c0)) more system calls for $((p1 - p0)) more posts)"
		awk -v r="$ratio" -v m="$MAX_PER_POST" 'BEGIN { exit !(r < m) }'
		ok $? "all system calls per post under steady load (strace): $ratio < $MAX_PER_POST"
	else
		ok 1 "all system calls per post (strace): no figure"
	fi
else
	ok 1 "strace is installed (tests/harness/install-deps.sh)"
fi
leak_check "$before"
plan "$_tap_n"
done_testing
