# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# The stall report, for lib.sh's tests and for run-in-guest.sh's time
# limit: sourced by both, with ORCA_DEV set.

# stall_report [DMESG_FROM]: what a stalled kernel consumer leaves to see,
# as TAP comments.  Every task in uninterruptible sleep with its kernel
# stack, orca0's kernel QPs and CQs with their ring indices (driver
# details of `rdma -dd resource show`: a queue with prod != cons, or a CQ
# armed and not fired with cqe_ready 1, has stopped moving), the port's
# counters, and the kernel log from line DMESG_FROM on (the last 40
# lines; all of it if the log was cleared since).
stall_report() {
	local from=${1:-1} pid
	# A test that cleared the log (dmesg -C) leaves fewer lines.
	[ "$from" -le "$(dmesg_lines)" ] || from=1
	echo "# stall report: tasks in D state"
	for pid in $(ps -eo pid=,stat= | awk '$2 ~ /^D/ { print $1 }'); do
		echo "# - $pid $(cat "/proc/$pid/comm" 2>/dev/null)"
		sed 's/^/#     /' "/proc/$pid/stack" 2>/dev/null
	done
	echo "# stall report: $ORCA_DEV queues"
	rdma -dd resource show qp link "$ORCA_DEV" 2>&1 | sed 's/^/#   /'
	rdma -dd resource show cq 2>&1 | grep "dev $ORCA_DEV " | sed 's/^/#   /'
	rdma statistic show link "$ORCA_DEV/1" 2>&1 | sed 's/^/#   /'
	echo "# stall report: kernel log"
	dmesg | tail -n "+$from" | tail -n 40 | sed 's/^/#   /'
}

# dmesg_lines: how many lines the kernel log has now (for stall_report).
dmesg_lines() {
	dmesg | wc -l
}
