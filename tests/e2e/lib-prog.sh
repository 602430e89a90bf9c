# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Helpers for .t files that run a C test program (tests/e2e/progs) and
# check that it left nothing behind.  Source after lib.sh.  The program
# prints TAP with its plan at the end; run_prog folds its points into
# the .t's own numbering, and the .t prints its plan last ("plan $_tap_n").

shopt -s extglob

# res_summary: the per-device object counts of "rdma resource show",
# e.g. "pd 1 cq 1 qp 1 cm_id 0 mr 0 ctx 0 srq 0".  Kernel consumers
# (ib_mad's GSI QP, CQ and PD) are included, so compare, don't expect 0.
res_summary() {
	rdma resource show 2>/dev/null |
		sed -n "s/^[0-9]*: $ORCA_DEV: //p"
}

# fold_tap FILE STATUS NAME: one point per TAP point in FILE, plus one
# that NAME ran to completion (a plan matching what it ran, and an exit
# STATUS of 0 or 1: no crash).
fold_tap() {
	local file=$1 status=$2 name=$3 line planned="" ran=0
	while IFS= read -r line; do
		if [[ "$line" =~ ^1\.\.([0-9]+) ]]; then
			planned=${BASH_REMATCH[1]}
		elif [[ "$line" =~ ^ok\ [0-9]+\ -\ (.*)$ ]]; then
			ran=$((ran + 1))
			ok 0 "${BASH_REMATCH[1]}"
		elif [[ "$line" =~ ^not\ ok\ [0-9]+\ -\ (.*)$ ]]; then
			ran=$((ran + 1))
			ok 1 "${BASH_REMATCH[1]}"
		else
			echo "# $line"
		fi
	done <"$file"
	[ -n "$planned" ] && [ "$planned" -eq "$ran" ] && [ "$status" -le 1 ]
	ok $? "$name ran to completion ($ran points, plan ${planned:-none}, exit status $status)"
}

# run_prog PROG ARGS...: run a program of $E2E_BIN and fold its TAP.
run_prog() {
	local prog=$1
	shift
	"$E2E_BIN/$prog" "$@" >"/tmp/e2e-$prog.out" 2>&1
	fold_tap "/tmp/e2e-$prog.out" $? "$prog"
}

# leak_check BEFORE: the object counts are back to BEFORE.
leak_check() {
	local after
	after=$(res_summary)
	[ -n "$1" ] && [ "$1" = "$after" ]
	ok $? "rdma resource show: counts back to what they were ($after)"
	[ "$1" = "$after" ] || diag "before: $1"
}
