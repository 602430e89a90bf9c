# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Helpers for .t files that run a C test program (tests/e2e/progs) and
# check that it left nothing behind.  Source after lib.sh.  The program
# prints TAP with its plan at the end; run_prog folds its points into
# the .t's own numbering, and the .t prints its plan last ("plan $_tap_n").

shopt -s extglob

# pool_cqs: CQs of ib_core's shared CQ pool on $ORCA_DEV (ib_cq_pool_get,
# used by nvmet-rdma, svcrdma and other kernel consumers).  The pool keeps
# its CQs until the device is unregistered; they are the ones ib_core
# allocated itself ("comm [ib_core]") that no QP uses (ib_mad's own CQ
# always has its QPs).
pool_cqs() {
	rdma resource show cq 2>/dev/null |
		grep -E "^(dev|link) $ORCA_DEV(/[0-9-]+)? " |
		grep -c ' users 0 .*comm \[ib_core\]'
}

# res_summary: the per-device object counts of "rdma resource show"
# (ib_core's view), then the device's own (QUERY_STATS in "rdma statistic
# show": what orca_soft still holds, which a failed DEREG_MR or
# DEALLOC_PD leaves behind even when ib_core forgot the object), e.g.
# "pd 1 cq 1 qp 1 cm_id 0 mr 0 ctx 0 srq 0; device: pds 1 mrs 0 cqs 1
# qps 1 srqs 0 ahs 0".  The CQs of ib_core's shared pool are not counted
# in either.  Kernel consumers (ib_mad's GSI QP, CQ and PD) are included,
# so compare, don't expect 0.
res_summary() {
	local pool res dev
	pool=$(pool_cqs)
	res=$(rdma resource show 2>/dev/null |
		sed -n "s/^[0-9]*: $ORCA_DEV: //p" |
		awk -v p="$pool" '{ for (i = 1; i < NF; i += 2) if ($i == "cq") $(i + 1) -= p; print }')
	dev=$(rdma statistic show link "$ORCA_DEV/1" 2>/dev/null |
		grep -oE ' (pds|mrs|cqs|qps|srqs|ahs) [0-9]+' |
		awk -v p="$pool" '{ if ($1 == "cqs") $2 -= p; printf " %s %s", $1, $2 }')
	[ -n "$res" ] && echo "$res; device:$dev"
}

# orca_stat NAME: one counter of $ORCA_DEV's "rdma statistic show".
orca_stat() {
	rdma statistic show link "$ORCA_DEV/1" 2>/dev/null |
		grep -oE " $1 [0-9]+" | awk '{ print $2 }'
}

# kverbs_tap LABEL ARGS...: load tests/e2e/kmod/orca_kverbs_test.ko with
# ARGS, fold the TAP it reports in the kernel log into this test's (the
# lines also stay in /tmp/kverbs.tap), and unload it; LABEL starts each
# of the points of its own.
kverbs_tap() {
	local label=$1 status
	shift
	dmesg -C
	insmod "$ORCA_KO_ROOT/tests/e2e/kmod/orca_kverbs_test.ko" "$@" \
		2>/tmp/kverbs.err
	status=$?
	ok "$status" "$label: insmod orca_kverbs_test.ko $*"
	sed 's/^/# /' /tmp/kverbs.err
	dmesg | sed -n 's/^.*orca_kverbs_test: //p' >/tmp/kverbs.tap
	fold_tap /tmp/kverbs.tap "$status" "orca_kverbs_test ($label)"
	rmmod orca_kverbs_test
	ok $? "$label: rmmod orca_kverbs_test"
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
	[ "$(pool_cqs)" -eq 0 ] || diag "not counted: $(pool_cqs) CQs of ib_core's shared CQ pool"
}
