#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Queues of every size the device advertises (interface 1.7, paged
# rings; issue 13, item 3), every limit from ibv_query_device: an RC pair
# with SQs and RQs of max_qp_wr WQEs of max_sge SGEs on a CQ of max_cqe
# entries, an SRQ of max_srq_wr x max_srq_sge, a UD pair at max_qp_wr x
# max_sge on a timestamp CQ (64-byte entries) of max_cqe, a small CQ
# resized to max_cqe while it holds completions; each queue filled,
# consumed and wrapped, every completion and byte checked
# (progs/max_queues.c full).  The kernel consumer at the maximum is in
# 78-kverbs.t.
#
# Then orca_soft is loaded again with ring_pbl=0, a device without paged
# rings, on which orca.ko gives each queue one contiguous allocation:
# ibv_devinfo and traffic (ibv_rc_pingpong; an RC pair of 1024 WQEs of
# one SGE, two full rounds) still work, and a QP of max_qp_wr x max_sge
# and an SRQ of max_srq_wr x max_srq_sge are refused with ENOMEM, from
# userspace (max_queues contig) and from the kernel (orca_kverbs_test.ko
# max_only no_ring_pbl).  Last, orca_soft is loaded again with its
# defaults, and an RC pair at the maximum carries a full round again
# (max_queues again).  Nothing is leaked on either device.
# e2e-timeout: 900

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-tools.sh"

SOFT_KO=$ORCA_KO_ROOT/drivers/orca_soft/orca_soft.ko
RING_PBL=/sys/module/orca_soft/parameters/ring_pbl
TOOLS_PORT=15800

dev_present() {
	[ -e "/sys/class/infiniband/$ORCA_DEV" ]
}

dev_gone() {
	! dev_present
}

# soft_reload [PARAM=VALUE...]: orca0 deleted, orca_soft unloaded and
# loaded again with PARAMs, orca0 added again: ACTIVE, with the RoCE v2
# GID of the netdev's IPv4 address (ib_core adds GIDs in a work item of
# its own).
soft_reload() {
	rdma link delete "$ORCA_DEV" &&
		wait_for 30 dev_gone &&
		timeout 120 rmmod orca_soft &&
		insmod "$SOFT_KO" "$@" &&
		rdma link add "$ORCA_DEV" type orca netdev "$ORCA_NETDEV" &&
		wait_for 30 dev_present &&
		wait_for 30 port_is PORT_ACTIVE &&
		wait_for 30 tools_gid_index "$ORCA_DEV" "$ORCA_NETDEV"
}

ring_pbl_diag() {
	if [ -r "$RING_PBL" ]; then
		diag "orca_soft ring_pbl: $(cat "$RING_PBL")"
	else
		diag "orca_soft ring_pbl is not readable in sysfs"
	fi
}

# Whatever happens, the tests after this one get orca_soft's defaults.
reloaded=0
restore() {
	[ "$reloaded" -eq 1 ] || return 0
	soft_reload >/dev/null 2>&1 || echo "# could not load orca_soft again with its defaults"
}
trap restore EXIT
trap 'exit 1' TERM INT

# --- paged rings (the default) ---
before=$(res_summary)
run_prog max_queues "$ORCA_DEV" full
leak_check "$before"

# --- a device without paged rings ---
reloaded=1
soft_reload ring_pbl=0 2>/tmp/maxq-reload.err
ok $? "orca_soft loaded again with ring_pbl=0: $ORCA_DEV added again, ACTIVE, with a RoCE v2 GID"
sed 's/^/# /' /tmp/maxq-reload.err
ring_pbl_diag
before=$(res_summary)

check "ibv_devinfo -d $ORCA_DEV works without paged rings" ibv_devinfo -v -d "$ORCA_DEV"
grep -E 'max_qp_wr|max_sge|max_cqe|max_srq_wr|max_srq_sge' /tmp/e2e-check.out | sed 's/^/# /'

gidx=$(tools_gid_index "$ORCA_DEV" "$ORCA_NETDEV")
tools_pingpong rc $((4096 * 100 * 2)) 100 ibv_rc_pingpong -d "$ORCA_DEV" \
	-g "${gidx:-0}" -n 100 -c -s 4096 -m 1024

run_prog max_queues "$ORCA_DEV" contig

kverbs_tap "no paged rings" dev="$ORCA_DEV" max_only=1 no_ring_pbl=1
leak_check "$before"

# --- paged rings again ---
soft_reload 2>/tmp/maxq-reload.err
status=$?
ok "$status" "orca_soft loaded again with its defaults: $ORCA_DEV added again, ACTIVE, with a RoCE v2 GID"
sed 's/^/# /' /tmp/maxq-reload.err
[ "$status" -ne 0 ] || reloaded=0
ring_pbl_diag
before=$(res_summary)
run_prog max_queues "$ORCA_DEV" again
leak_check "$before"

plan "$_tap_n"
done_testing
