// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: the admin command processor.
 *
 * The engine fetches each command the driver published through AQ_SQ_DB
 * from host memory, executes it against the device state, and writes a
 * completion (owner bit last) into the completion ring.  Everything read
 * from host memory is a copy, validated before use: a command with a
 * non-zero reserved field or an out-of-range argument completes with
 * ORCA_AQ_STS_BAD_PARAM, never with a crash.
 */

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/ethtool.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/addrconf.h>

#include "orca_ring.h"
#include "orca_soft.h"
#include "orca_soft_wire.h"

/*
 * IPv6 + UDP + BTH + XRCETH + RETH + ImmDt + ICRC: the most a RoCEv2
 * packet with a payload adds (an XRC RDMA WRITE only with immediate).
 */
#define ORCA_SOFT_ROCE_OVERHEAD		(40 + 8 + 12 + 4 + 16 + 4 + 4)

/* Write a command's output mailbox; the driver must offer all of it. */
u8 orca_soft_put_output(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd, const void *out,
			size_t len)
{
	u64 addr = le64_to_cpu(cmd->hdr.out_addr);

	if (!addr || le32_to_cpu(cmd->hdr.out_len) < len)
		return ORCA_AQ_STS_BAD_PARAM;
	if (orca_soft_dma_write(sdev, addr, out, len))
		return ORCA_AQ_STS_DMA_ERROR;
	return ORCA_AQ_STS_OK;
}

bool orca_soft_rsvd_clear(const void *rsvd, size_t len)
{
	return !memchr_inv(rsvd, 0, len);
}

/*
 * Copy an input mailbox of @in_len bytes at @in_addr into @in (@len bytes,
 * the structure the command takes).  The mailbox must hold at least the
 * structure and at most ORCA_SOFT_MAX_IN_LEN bytes; bytes past the
 * structure must be zero.  Everything is validated on the copy.
 */
u8 orca_soft_get_input(struct orca_soft_dev *sdev, u64 in_addr, u32 in_len,
		       void *in, size_t len)
{
	u8 buf[ORCA_SOFT_MAX_IN_LEN];

	if (WARN_ON_ONCE(len > sizeof(buf)))
		return ORCA_AQ_STS_INTERNAL;
	if (!in_addr || in_len < len || in_len > sizeof(buf))
		return ORCA_AQ_STS_BAD_PARAM;
	if (orca_soft_dma_read(sdev, in_addr, buf, in_len))
		return ORCA_AQ_STS_DMA_ERROR;
	if (!orca_soft_rsvd_clear(buf + len, in_len - len))
		return ORCA_AQ_STS_BAD_PARAM;
	memcpy(in, buf, len);
	return ORCA_AQ_STS_OK;
}

/* A VLAN field: a 12-bit VLAN id, or ORCA_AH_VLAN_NONE. */
bool orca_soft_vlan_ok(u16 vlan)
{
	return vlan == ORCA_AH_VLAN_NONE || vlan < VLAN_N_VID;
}

/*
 * QUERY_DEVICE's cap_flags: what this instance supports.  The page
 * states of an implicit on-demand-paging region are indexed by 52-bit
 * page numbers, which an XArray holds on a 64-bit host only.  Paged
 * rings unless the instance was created with the module parameter
 * ring_pbl off.
 */
u32 orca_soft_cap_flags(struct orca_soft_dev *sdev)
{
	return ORCA_HW_DEV_CAP_RC | ORCA_HW_DEV_CAP_UC | ORCA_HW_DEV_CAP_UD |
	       ORCA_HW_DEV_CAP_SRQ | ORCA_HW_DEV_CAP_ATOMIC |
	       ORCA_HW_DEV_CAP_FAST_REG | ORCA_HW_DEV_CAP_RNR_NAK |
	       ORCA_HW_DEV_CAP_DETACH | ORCA_HW_DEV_CAP_MW |
	       ORCA_HW_DEV_CAP_TIMESTAMP | ORCA_HW_DEV_CAP_XRC |
	       (sdev->dm_pages ? ORCA_HW_DEV_CAP_DM : 0) |
	       ORCA_HW_DEV_CAP_ODP | ORCA_HW_DEV_CAP_ODP_EPOCH |
	       (IS_ENABLED(CONFIG_64BIT) ? ORCA_HW_DEV_CAP_ODP_IMPLICIT : 0) |
	       (sdev->ring_pbl ? ORCA_HW_DEV_CAP_RING_PBL : 0);
}

static u8 orca_soft_query_device(struct orca_soft_dev *sdev,
				 const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_query_device *c = &cmd->query_device;
	struct orca_hw_device_attr attr = {};
	u8 eui[8];

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;

	addrconf_addr_eui48(eui, sdev->netdev->dev_addr);
	memcpy(&attr.node_guid, eui, sizeof(eui));
	memcpy(&attr.sys_image_guid, eui, sizeof(eui));
	/* Firmware 1.0.0: major in bits 47:32, minor 31:16, sub 15:0. */
	attr.fw_version = cpu_to_le64(1ULL << 32);
	attr.max_mr_size = cpu_to_le64(ORCA_SOFT_MAX_MR_SIZE);
	attr.page_size_cap = cpu_to_le64(ORCA_SOFT_PAGE_SIZE_CAP);
	attr.vendor_id = cpu_to_le32(0xffffff);
	attr.vendor_part_id = cpu_to_le32(1);
	attr.hw_ver = cpu_to_le32(ORCA_IFACE_VERSION_MAJOR);
	attr.cap_flags = cpu_to_le32(orca_soft_cap_flags(sdev));
	attr.num_ports = cpu_to_le32(1);
	attr.max_qp = cpu_to_le32(ORCA_SOFT_MAX_QP);
	attr.max_qp_wr = cpu_to_le32(ORCA_SOFT_MAX_QP_WR);
	attr.max_sge = cpu_to_le32(ORCA_SOFT_MAX_SGE);
	attr.max_sge_rd = cpu_to_le32(ORCA_SOFT_MAX_SGE);
	attr.max_cq = cpu_to_le32(ORCA_SOFT_MAX_CQ);
	attr.max_cqe = cpu_to_le32(ORCA_SOFT_MAX_CQE);
	attr.max_mr = cpu_to_le32(ORCA_SOFT_MAX_MR);
	attr.max_pd = cpu_to_le32(ORCA_SOFT_MAX_PD);
	attr.max_qp_rd_atom = cpu_to_le32(ORCA_SOFT_MAX_RD_ATOM);
	attr.max_qp_init_rd_atom = cpu_to_le32(ORCA_SOFT_MAX_RD_ATOM);
	attr.max_srq = cpu_to_le32(ORCA_SOFT_MAX_SRQ);
	attr.max_srq_wr = cpu_to_le32(ORCA_SOFT_MAX_SRQ_WR);
	attr.max_srq_sge = cpu_to_le32(ORCA_SOFT_MAX_SGE);
	/* AHs are host memory: the device sets no limit. */
	attr.max_ah = cpu_to_le32(ORCA_SOFT_MAX_AH);
	attr.max_mcast_grp = cpu_to_le32(ORCA_SOFT_MAX_MCAST_GRP);
	attr.max_mcast_qp_attach = cpu_to_le32(ORCA_SOFT_MAX_MCAST_QP);
	attr.max_inline_data = cpu_to_le32(ORCA_SOFT_MAX_INLINE);
	attr.max_fast_reg_page_list_len = cpu_to_le32(ORCA_SOFT_MAX_FRPL_LEN);
	attr.max_pkeys = cpu_to_le32(1);
	/* Windows take entries of the same key table as regions. */
	attr.max_mw = cpu_to_le32(ORCA_SOFT_MAX_MR);
	/* Nanoseconds: ktime_get_raw_ns(), CLOCK_MONOTONIC_RAW. */
	attr.clock_khz = cpu_to_le32(1000000);
	attr.max_xrcd = cpu_to_le32(ORCA_SOFT_MAX_XRCD);
	attr.dm_size = cpu_to_le32(sdev->dm_pages ? ORCA_SOFT_DM_SIZE : 0);
	return orca_soft_put_output(sdev, cmd, &attr, sizeof(attr));
}

u32 orca_soft_active_mtu(struct net_device *ndev)
{
	int payload = READ_ONCE(ndev->mtu) - ORCA_SOFT_ROCE_OVERHEAD;
	u32 mtu = ORCA_SOFT_MAX_MTU;

	while (mtu > 256 && mtu > payload)
		mtu >>= 1;
	return mtu;
}

/* The port follows its netdev: ACTIVE while it is up with a carrier. */
enum orca_hw_port_state orca_soft_port_state(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev) ?
	       ORCA_PORT_ACTIVE : ORCA_PORT_DOWN;
}

static u8 orca_soft_query_port(struct orca_soft_dev *sdev,
			       const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_query_port *c = &cmd->query_port;
	struct net_device *ndev = sdev->netdev;
	struct orca_hw_port_attr attr = {};
	enum orca_hw_port_state state;
	u32 info;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)) ||
	    le32_to_cpu(c->port) != 1)
		return ORCA_AQ_STS_BAD_PARAM;

	state = orca_soft_port_state(ndev);
	info = FIELD_PREP(ORCA_PORT_INFO_STATE, state);
	if (state == ORCA_PORT_ACTIVE)
		info |= ORCA_PORT_INFO_LINK_UP;
	attr.info = cpu_to_le32(info);
	attr.max_mtu = cpu_to_le32(ORCA_SOFT_MAX_MTU);
	attr.active_mtu = cpu_to_le32(orca_soft_active_mtu(ndev));
	attr.gid_tbl_len = cpu_to_le32(ORCA_SOFT_GID_TBL_LEN);
	attr.pkey_tbl_len = cpu_to_le32(1);
	attr.max_msg_sz = cpu_to_le32(1U << 31);
	attr.netdev_mtu = cpu_to_le32(READ_ONCE(ndev->mtu));
	ether_addr_copy(attr.mac, ndev->dev_addr);
	return orca_soft_put_output(sdev, cmd, &attr, sizeof(attr));
}

/* The data path's counter @c, summed over the CPUs. */
u64 orca_soft_dp_total(struct orca_soft_dev *sdev, enum orca_soft_dp_count c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(sdev->dp_counts, cpu)->n[c]);
	return sum;
}

static __le64 orca_soft_dp_sum(struct orca_soft_dev *sdev,
			       enum orca_soft_dp_count c)
{
	return cpu_to_le64(orca_soft_dp_total(sdev, c));
}

/* The NAKs of kind @nak (enum orca_aeth_nak) sent and received. */
static void orca_soft_nak_sums(struct orca_soft_dev *sdev, u8 nak,
			       __le64 *sent, __le64 *rcvd)
{
	*sent = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_NAKS_SENT + nak);
	*rcvd = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_NAKS_RCVD + nak);
}

static u8 orca_soft_query_stats(struct orca_soft_dev *sdev,
				const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_query_stats *c = &cmd->query_stats;
	struct orca_soft_counts *n = &sdev->counts;
	struct orca_hw_stats st = {};
	unsigned long flags;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;

	st.cmds_completed = cpu_to_le64(n->cmds_completed);
	st.cmds_failed = cpu_to_le64(n->cmds_failed);
	spin_lock_irqsave(&sdev->lock, flags);
	st.async_events = cpu_to_le64(n->async_events);
	st.async_events_dropped = cpu_to_le64(sdev->aeq_overflows);
	spin_unlock_irqrestore(&sdev->lock, flags);
	st.pds = cpu_to_le64(n->pds);
	st.mrs = cpu_to_le64(n->mrs);
	st.cqs = cpu_to_le64(n->cqs);
	st.qps = cpu_to_le64(n->qps);
	st.srqs = cpu_to_le64(n->srqs);
	st.tx_packets = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_TX_PACKETS);
	st.tx_bytes = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_TX_BYTES);
	st.rx_packets = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_RX_PACKETS);
	st.rx_bytes = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_RX_BYTES);
	st.rx_drops = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_RX_DROPS);
	st.rx_icrc_errors = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_RX_ICRC_ERRORS);
	st.tx_drops = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_TX_DROPS);
	st.retransmits = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_RETRANSMITS);
	st.ack_timeouts = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_ACK_TIMEOUTS);
	st.rnr_naks_sent = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_RNR_NAKS_SENT);
	st.rnr_naks_rcvd = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_RNR_NAKS_RCVD);
	orca_soft_nak_sums(sdev, ORCA_AETH_NAK_PSN_SEQ, &st.seq_naks_sent,
			   &st.seq_naks_rcvd);
	orca_soft_nak_sums(sdev, ORCA_AETH_NAK_INV_REQ, &st.inv_req_naks_sent,
			   &st.inv_req_naks_rcvd);
	orca_soft_nak_sums(sdev, ORCA_AETH_NAK_REM_ACCESS,
			   &st.access_naks_sent, &st.access_naks_rcvd);
	orca_soft_nak_sums(sdev, ORCA_AETH_NAK_REM_OP, &st.op_naks_sent,
			   &st.op_naks_rcvd);
	st.duplicates = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_DUPLICATES);
	st.out_of_sequence = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_OUT_OF_SEQUENCE);
	st.ud_drops = orca_soft_dp_sum(sdev, ORCA_SOFT_CNT_UD_DROPS);
	return orca_soft_put_output(sdev, cmd, &st, sizeof(st));
}

struct orca_soft_pd *orca_soft_pd_find(struct orca_soft_dev *sdev, u32 pdn)
{
	return xa_load(&sdev->pds, pdn);
}

static u8 orca_soft_alloc_pd(struct orca_soft_dev *sdev,
			     const union orca_aq_cmd *cmd,
			     struct orca_soft_cmd_out *out)
{
	const struct orca_cmd_alloc_pd *c = &cmd->alloc_pd;
	struct orca_soft_pd *pd;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	pd = kzalloc(sizeof(*pd), ORCA_SOFT_GFP);
	if (!pd)
		return ORCA_AQ_STS_NO_RESOURCES;
	if (xa_alloc(&sdev->pds, &pd->pdn, pd, XA_LIMIT(1, ORCA_SOFT_MAX_PD),
		     ORCA_SOFT_GFP)) {
		kfree(pd);
		return ORCA_AQ_STS_NO_RESOURCES;
	}
	sdev->counts.pds++;
	out->result = pd->pdn;
	return ORCA_AQ_STS_OK;
}

static u8 orca_soft_dealloc_pd(struct orca_soft_dev *sdev,
			       const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_dealloc_pd *c = &cmd->dealloc_pd;
	struct orca_soft_pd *pd;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	pd = orca_soft_pd_find(sdev, le32_to_cpu(c->pdn));
	if (!pd)
		return ORCA_AQ_STS_BAD_HANDLE;
	if (pd->users)
		return ORCA_AQ_STS_BUSY;
	xa_erase(&sdev->pds, pd->pdn);
	sdev->counts.pds--;
	kfree(pd);
	return ORCA_AQ_STS_OK;
}

struct orca_soft_xrcd *orca_soft_xrcd_find(struct orca_soft_dev *sdev,
					   u32 xrcdn)
{
	return xa_load(&sdev->xrcds, xrcdn);
}

static u8 orca_soft_alloc_xrcd(struct orca_soft_dev *sdev,
			       const union orca_aq_cmd *cmd,
			       struct orca_soft_cmd_out *out)
{
	const struct orca_cmd_alloc_xrcd *c = &cmd->alloc_xrcd;
	struct orca_soft_xrcd *xrcd;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	xrcd = kzalloc(sizeof(*xrcd), ORCA_SOFT_GFP);
	if (!xrcd)
		return ORCA_AQ_STS_NO_RESOURCES;
	if (xa_alloc(&sdev->xrcds, &xrcd->xrcdn, xrcd,
		     XA_LIMIT(1, ORCA_SOFT_MAX_XRCD), ORCA_SOFT_GFP)) {
		kfree(xrcd);
		return ORCA_AQ_STS_NO_RESOURCES;
	}
	out->result = xrcd->xrcdn;
	return ORCA_AQ_STS_OK;
}

static u8 orca_soft_dealloc_xrcd(struct orca_soft_dev *sdev,
				 const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_handle *c = &cmd->handle;
	struct orca_soft_xrcd *xrcd;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	xrcd = orca_soft_xrcd_find(sdev, le32_to_cpu(c->handle));
	if (!xrcd)
		return ORCA_AQ_STS_BAD_HANDLE;
	if (xrcd->users)
		return ORCA_AQ_STS_BUSY;
	xa_erase(&sdev->xrcds, xrcd->xrcdn);
	kfree(xrcd);
	return ORCA_AQ_STS_OK;
}

static u8 orca_soft_exec(struct orca_soft_dev *sdev,
			 const union orca_aq_cmd *cmd,
			 struct orca_soft_cmd_out *out)
{
	u8 opcode = FIELD_GET(ORCA_AQ_HDR_OPCODE, le32_to_cpu(cmd->hdr.op));

	switch (opcode) {
	case ORCA_CMD_QUERY_DEVICE:
		return orca_soft_query_device(sdev, cmd);
	case ORCA_CMD_QUERY_PORT:
		return orca_soft_query_port(sdev, cmd);
	case ORCA_CMD_QUERY_STATS:
		return orca_soft_query_stats(sdev, cmd);
	case ORCA_CMD_CREATE_EQ:
		return orca_soft_create_eq(sdev, cmd, out);
	case ORCA_CMD_DESTROY_EQ:
		return orca_soft_destroy_eq(sdev, cmd);
	case ORCA_CMD_ALLOC_PD:
		return orca_soft_alloc_pd(sdev, cmd, out);
	case ORCA_CMD_DEALLOC_PD:
		return orca_soft_dealloc_pd(sdev, cmd);
	case ORCA_CMD_REG_MR:
		return orca_soft_reg_mr(sdev, cmd, out);
	case ORCA_CMD_DEREG_MR:
		return orca_soft_dereg_mr(sdev, cmd);
	case ORCA_CMD_ALLOC_MW:
		return orca_soft_alloc_mw(sdev, cmd, out);
	case ORCA_CMD_DEALLOC_MW:
		return orca_soft_dealloc_mw(sdev, cmd);
	case ORCA_CMD_ALLOC_XRCD:
		return orca_soft_alloc_xrcd(sdev, cmd, out);
	case ORCA_CMD_DEALLOC_XRCD:
		return orca_soft_dealloc_xrcd(sdev, cmd);
	case ORCA_CMD_ALLOC_DM:
		return orca_soft_alloc_dm(sdev, cmd, out);
	case ORCA_CMD_DEALLOC_DM:
		return orca_soft_dealloc_dm(sdev, cmd);
	case ORCA_CMD_ODP_UPDATE:
		return orca_soft_odp_update(sdev, cmd);
	case ORCA_CMD_CREATE_CQ:
		return orca_soft_create_cq(sdev, cmd, out);
	case ORCA_CMD_RESIZE_CQ:
		return orca_soft_resize_cq(sdev, cmd, out);
	case ORCA_CMD_DESTROY_CQ:
		return orca_soft_destroy_cq(sdev, cmd);
	case ORCA_CMD_CREATE_QP:
		return orca_soft_create_qp(sdev, cmd, out);
	case ORCA_CMD_MODIFY_QP:
		return orca_soft_modify_qp(sdev, cmd);
	case ORCA_CMD_QUERY_QP:
		return orca_soft_query_qp(sdev, cmd);
	case ORCA_CMD_DESTROY_QP:
		return orca_soft_destroy_qp(sdev, cmd);
	case ORCA_CMD_CREATE_SRQ:
		return orca_soft_create_srq(sdev, cmd, out);
	case ORCA_CMD_MODIFY_SRQ:
		return orca_soft_modify_srq(sdev, cmd);
	case ORCA_CMD_QUERY_SRQ:
		return orca_soft_query_srq(sdev, cmd);
	case ORCA_CMD_DESTROY_SRQ:
		return orca_soft_destroy_srq(sdev, cmd);
	case ORCA_CMD_ADD_GID:
		return orca_soft_add_gid(sdev, cmd);
	case ORCA_CMD_DEL_GID:
		return orca_soft_del_gid(sdev, cmd);
	case ORCA_CMD_ATTACH_MCAST:
		return orca_soft_attach_mcast(sdev, cmd);
	case ORCA_CMD_DETACH_MCAST:
		return orca_soft_detach_mcast(sdev, cmd);
	default:
		return ORCA_AQ_STS_BAD_OPCODE;
	}
}

static int orca_soft_post_completion(struct orca_soft_dev *sdev, u16 cmd_id,
				     u8 status,
				     const struct orca_soft_cmd_out *out)
{
	struct orca_aq_cqe cqe = {};
	u64 addr;
	u32 info1;

	addr = sdev->aq_cq_base +
	       orca_ring_slot(sdev->aq_cq_prod, sdev->aq_log2_depth) *
	       ORCA_AQ_CQE_SIZE;
	cqe.result = cpu_to_le64(out->result);
	cqe.info0 = cpu_to_le32(FIELD_PREP(ORCA_AQ_CQE_CMD_ID, cmd_id) |
				FIELD_PREP(ORCA_AQ_CQE_SQ_HEAD,
					   sdev->aq_sq_cons & 0xffff));
	info1 = FIELD_PREP(ORCA_AQ_CQE_STATUS, status) |
		FIELD_PREP(ORCA_AQ_CQE_SYNDROME, out->syndrome) |
		FIELD_PREP(ORCA_AQ_CQE_PHASE,
			   orca_ring_phase(sdev->aq_cq_prod,
					   sdev->aq_log2_depth));
	if (orca_soft_dma_write(sdev, addr, &cqe,
				offsetof(struct orca_aq_cqe, info1)))
		return -EFAULT;
	/* The entry must be complete before its owner bit flips. */
	wmb();
	if (orca_soft_dma_write32(sdev,
				  addr + offsetof(struct orca_aq_cqe, info1),
				  info1))
		return -EFAULT;
	sdev->aq_cq_prod++;
	return 0;
}

/*
 * Fault injection for tests, per command: fault_admin_nth = N makes the
 * N-th admin command executed from now on fail with fault_admin_status
 * and no effect; the parameter then reads 0 and fault_admin_fired holds
 * the opcode that failed.  fault_admin_hold_nth = N holds the N-th
 * command back before executing it: fault_admin_held reads Y until the
 * test writes N to it (or a minute has passed), and the command then
 * runs and completes, after the driver may have given up on it.
 *
 * Sysfs stores each parameter with one write, under the module's
 * parameter lock.  The admin work does not take that lock: a write of
 * dump_state holds it and waits for orca_soft_mutex, which the reaper
 * holds while it flushes this work.  It counts down with a
 * compare-and-swap instead, which a store from sysfs in between makes
 * fail and try again, and reads and writes the rest once each.
 */
static int fault_admin_nth;
module_param(fault_admin_nth, int, 0644);
MODULE_PARM_DESC(fault_admin_nth,
		 "Test only: fail the N-th admin command from now on (0: off)");

static uint fault_admin_status = ORCA_AQ_STS_NO_RESOURCES;
module_param(fault_admin_status, uint, 0644);
MODULE_PARM_DESC(fault_admin_status,
		 "Test only: the status fault_admin_nth fails a command with (default 3, NO_RESOURCES)");

static uint fault_admin_fired;
module_param(fault_admin_fired, uint, 0444);
MODULE_PARM_DESC(fault_admin_fired,
		 "Test only: the opcode fault_admin_nth failed last");

static int fault_admin_hold_nth;
module_param(fault_admin_hold_nth, int, 0644);
MODULE_PARM_DESC(fault_admin_hold_nth,
		 "Test only: hold the N-th admin command from now on until fault_admin_held is cleared (0: off)");

static bool fault_admin_held;
module_param(fault_admin_held, bool, 0644);
MODULE_PARM_DESC(fault_admin_held,
		 "Test only: Y while a command is held; write N to let it run");

#define ORCA_SOFT_HOLD_MAX_MS	60000

/* Count @counter down; true when it reaches zero now. */
static bool orca_soft_fault_countdown(int *counter)
{
	int old = READ_ONCE(*counter), seen;

	while (old > 0) {
		seen = cmpxchg(counter, old, old - 1);
		if (seen == old)
			return old == 1;
		old = seen;
	}
	return false;
}

/* The status an injected failure gives @opcode, or OK for none. */
static u8 orca_soft_fault_admin(u8 opcode)
{
	unsigned long until;
	uint status;

	if (orca_soft_fault_countdown(&fault_admin_hold_nth)) {
		until = jiffies + msecs_to_jiffies(ORCA_SOFT_HOLD_MAX_MS);
		WRITE_ONCE(fault_admin_held, true);
		while (READ_ONCE(fault_admin_held) &&
		       time_before(jiffies, until))
			msleep(20);
		WRITE_ONCE(fault_admin_held, false);
	}
	if (!orca_soft_fault_countdown(&fault_admin_nth))
		return ORCA_AQ_STS_OK;
	status = READ_ONCE(fault_admin_status);
	WRITE_ONCE(fault_admin_fired, opcode);
	/* A fault must fail the command. */
	return status && status <= U8_MAX ? status : ORCA_AQ_STS_INTERNAL;
}

void orca_soft_admin_process(struct orca_soft_dev *sdev)
{
	u32 prod = orca_soft_reg_read(sdev, ORCA_REG_AQ_SQ_DB);
	bool posted = false;

	if (!orca_ring_prod_valid(prod, sdev->aq_sq_cons, sdev->aq_log2_depth)) {
		orca_soft_set_fatal(sdev, "admin producer index out of range");
		return;
	}

	while (sdev->aq_sq_cons != prod) {
		struct orca_soft_cmd_out out = {};
		union orca_aq_cmd cmd;
		u64 addr;
		u8 status;

		addr = sdev->aq_sq_base +
		       orca_ring_slot(sdev->aq_sq_cons, sdev->aq_log2_depth) *
		       ORCA_AQ_CMD_SIZE;
		if (orca_soft_dma_read(sdev, addr, &cmd, sizeof(cmd))) {
			orca_soft_set_fatal(sdev, "DMA error reading the admin queue");
			return;
		}
		sdev->aq_sq_cons++;

		status = orca_soft_fault_admin(FIELD_GET(ORCA_AQ_HDR_OPCODE,
							 le32_to_cpu(cmd.hdr.op)));
		if (status == ORCA_AQ_STS_OK) {
			/*
			 * Commands and data-path batches exclude each other.
			 * A command sees, and leaves, the QPs of an SRQ that
			 * broke in ERR (orca_soft_srq_broken()).
			 */
			down_write(&sdev->eng_rwsem);
			orca_soft_srq_err_spread(sdev);
			status = orca_soft_exec(sdev, &cmd, &out);
			orca_soft_srq_err_spread(sdev);
			up_write(&sdev->eng_rwsem);
		}
		if (status != ORCA_AQ_STS_OK) {
			/* A failed command has no effect and no result. */
			out.result = 0;
			sdev->counts.cmds_failed++;
		} else {
			sdev->counts.cmds_completed++;
		}
		if (orca_soft_post_completion(sdev,
					      FIELD_GET(ORCA_AQ_HDR_CMD_ID,
							le32_to_cpu(cmd.hdr.op)),
					      status, &out)) {
			orca_soft_set_fatal(sdev, "DMA error writing the admin completion queue");
			return;
		}
		posted = true;
	}

	if (posted && sdev->aq_irq_en)
		orca_soft_raise_irq(sdev, sdev->aq_vector);
}

void orca_soft_admin_init(struct orca_soft_dev *sdev)
{
	int cpu;

	xa_init_flags(&sdev->pds, XA_FLAGS_ALLOC1);
	xa_init_flags(&sdev->eqs, XA_FLAGS_ALLOC1);
	xa_init_flags(&sdev->mrs, XA_FLAGS_ALLOC1);
	xa_init_flags(&sdev->cqs, XA_FLAGS_ALLOC1);
	xa_init_flags(&sdev->qps, XA_FLAGS_ALLOC1);
	xa_init_flags(&sdev->srqs, XA_FLAGS_ALLOC1);
	xa_init_flags(&sdev->xrcds, XA_FLAGS_ALLOC1);
	INIT_LIST_HEAD(&sdev->mcgs);
	sdev->nr_mcgs = 0;
	sdev->qpn_next = 2;
	sdev->cqn_next = 1;
	memset(sdev->gids, 0, sizeof(sdev->gids));
	memset(&sdev->counts, 0, sizeof(sdev->counts));
	sdev->odp_mrs = 0;
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(sdev->dp_counts, cpu), 0,
		       sizeof(struct orca_soft_dp_counts));
}

/*
 * Device reset: destroy every object, users first (QPs and their
 * multicast attachments, SRQs, CQs, EQs, MRs, AHs), PDs last, and forget
 * the GID table and the counters.  The caller holds the engine semaphore.
 */
void orca_soft_admin_reset(struct orca_soft_dev *sdev)
{
	struct orca_soft_xrcd *xrcd;
	struct orca_soft_pd *pd;
	unsigned long idx;

	lockdep_assert_held_write(&sdev->eng_rwsem);
	orca_soft_qp_reset(sdev);
	orca_soft_srq_reset(sdev);
	orca_soft_cq_reset(sdev);
	orca_soft_mr_reset(sdev);
	orca_soft_dm_reset(sdev);
	orca_soft_ah_reset(sdev);
	xa_for_each(&sdev->pds, idx, pd)
		kfree(pd);
	xa_destroy(&sdev->pds);
	xa_for_each(&sdev->xrcds, idx, xrcd)
		kfree(xrcd);
	xa_destroy(&sdev->xrcds);
	xa_destroy(&sdev->eqs);
	xa_destroy(&sdev->mrs);
	xa_destroy(&sdev->cqs);
	xa_destroy(&sdev->qps);
	xa_destroy(&sdev->srqs);
	orca_soft_admin_init(sdev);
}
