#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# On-demand paging (interface 1.5) on the local path: odp_caps, regions
# registered with IBV_ACCESS_ON_DEMAND on memory never touched, every
# opcode into and out of them, invalidations (MADV_DONTNEED, MAP_FIXED,
# mprotect), munmap() under a request (an error completion, not a wait),
# read-only memory, ibv_advise_mr, fork(), and nothing leaked
# (progs/odp.c).
#
# Then memory pressure: transfer loops of 256 KiB requests over a region
# while the kernel takes its pages away, every byte checked.  Two cases,
# each its own run of progs/odp.c:
#
#   anon  $ANON_MIB MiB of anonymous memory in a memory cgroup whose
#         memory.max ($CG_MAX) is smaller, with swap on a zram device
#         (anonymous memory cannot be taken away without swap): WRITEs
#         and READs, the cgroup's reclaim and a thread calling
#         MADV_PAGEOUT (on every chunk but the one in use) swapping pages
#         out under the requests, the device's faults swapping them in;
#   file  $FILE_MIB MiB of a file on $ORCA_RESULTS (9p: its page cache is
#         dropped without swap) mapped MAP_PRIVATE and PROT_READ, in the
#         same cgroup, READs, the same thread.  The page cache the
#         driver's fault handler brings in is not charged to the cgroup
#         (it runs in a kernel worker): the thread does the taking away.
#
# Without the memory controller or zram (the debug kernel has neither),
# anon is not run (said as a comment) and file runs on $FILE_MIB_NOCG MiB
# outside any cgroup.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

ANON_MIB=16
CG_MAX=12M
FILE_MIB=8
FILE_MIB_NOCG=4

before=$(res_summary)
t0=$(date +%s)
run_prog odp "$ORCA_DEV"
diag "odp took $(($(date +%s) - t0)) s"

CG_ROOT=/tmp/odp-cgroup
CG=""
ZRAM=""
cg_mounted=0
zram_loaded=0

# A memory cgroup limited to $CG_MAX ($CG), if the kernel has one.
if grep -qw cgroup2 /proc/filesystems && mkdir -p "$CG_ROOT" &&
	mount -t cgroup2 none "$CG_ROOT" 2>/dev/null; then
	cg_mounted=1
	if grep -qw memory "$CG_ROOT/cgroup.controllers" &&
		echo +memory >"$CG_ROOT/cgroup.subtree_control" &&
		mkdir "$CG_ROOT/odp" && echo "$CG_MAX" >"$CG_ROOT/odp/memory.max"; then
		CG=$CG_ROOT/odp
	fi
fi
# Swap on a zram device ($ZRAM), if the kernel has zram and no swap is on.
if [ -n "$CG" ] && [ "$(awk 'NR > 1' /proc/swaps | wc -l)" -eq 0 ] &&
	modprobe zram num_devices=1 2>/dev/null; then
	zram_loaded=1
	if [ "$(cat /sys/block/zram0/disksize 2>/dev/null)" = 0 ] &&
		echo 256M >/sys/block/zram0/disksize &&
		mkswap /dev/zram0 >/dev/null 2>&1 && swapon /dev/zram0; then
		ZRAM=/dev/zram0
	fi
fi
diag "memory cgroup: ${CG:-none}; swap: ${ZRAM:-none}"

# pressure NAME ARGS...: odp DEVICE pressure ARGS, in $CG if there is one.
pressure() {
	local out=/tmp/e2e-odp-pressure.out rc=0 t0
	t0=$(date +%s)
	if [ -n "$CG" ]; then
		# shellcheck disable=SC2016
		sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" \
			"$E2E_BIN/odp" "$ORCA_DEV" pressure "$@" >"$out" 2>&1 || rc=$?
	else
		"$E2E_BIN/odp" "$ORCA_DEV" pressure "$@" >"$out" 2>&1 || rc=$?
	fi
	fold_tap "$out" "$rc" "odp pressure $1"
	[ -z "$CG" ] || diag "cgroup: memory.peak $(cat "$CG/memory.peak" 2>/dev/null), $(grep -E '^(anon|file|pgmajfault|workingset_refault_anon|workingset_refault_file) ' "$CG/memory.stat" | tr '\n' ' ')"
	diag "odp pressure $* took $(($(date +%s) - t0)) s"
}

# cg_event NAME: counter NAME of $CG's memory.events (max, oom_kill).
cg_event() {
	awk -v k="$1" '$1 == k { print $2 }' "$CG/memory.events"
}

if [ -n "$CG" ] && [ -n "$ZRAM" ]; then
	max0=$(cg_event max)
	pressure anon "$ANON_MIB"
	max1=$(cg_event max)
	oom=$(cg_event oom_kill)
	[ "${max1:-0}" -gt "${max0:-0}" ] && [ "${oom:-1}" -eq 0 ]
	ok $? "anon: the cgroup reached its memory.max of $CG_MAX ($max0 -> $max1 times), no process was OOM-killed (oom_kill ${oom:-?})"
else
	diag "anon not run: it needs a memory cgroup and swap (memory cgroup ${CG:-none}, zram ${ZRAM:-none})"
fi

if [ -d "${ORCA_RESULTS:-}" ] && [ -w "$ORCA_RESULTS" ]; then
	file=$ORCA_RESULTS/odp-pressure.$$
	if [ -n "$CG" ]; then
		max0=$(cg_event max)
		pressure file "$FILE_MIB" "$file"
		max1=$(cg_event max)
		oom=$(cg_event oom_kill)
		[ "${oom:-1}" -eq 0 ]
		ok $? "file: no process was OOM-killed (the cgroup reached memory.max $max0 -> $max1 times)"
	else
		pressure file "$FILE_MIB_NOCG" "$file"
	fi
	rm -f "$file"
else
	ok 1 "file: ORCA_RESULTS (${ORCA_RESULTS:-unset}) is a writable directory for the file"
fi

if [ -n "$ZRAM" ]; then
	swapoff "$ZRAM"
	ok $? "swapoff $ZRAM"
	echo 1 >/sys/block/zram0/reset
fi
[ "$zram_loaded" -eq 0 ] || rmmod zram 2>/dev/null || diag "zram stays loaded"
if [ -n "$CG" ]; then
	rmdir "$CG"
	ok $? "the cgroup is removed (no process left in it)"
fi
[ "$cg_mounted" -eq 0 ] || umount "$CG_ROOT"

leak_check "$before"
plan "$_tap_n"
done_testing
