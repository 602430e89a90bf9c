// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca HCA driver: queue pairs and shared receive queues.
 *
 * A QP's memory (struct orca_qmem) is the send ring, the receive ring
 * (absent with an SRQ), each rounded up to a page, then a doorbell page
 * with the SQ record at 0 and the RQ record at ORCA_DB_RECORD_SIZE.  An
 * SRQ's is its ring then a doorbell page.  The device owns the QP state
 * machine; the driver checks what ibv_create_qp(3) asks of it and
 * translates attributes between ib_core and the hardware format.
 */

#include <linux/bitfield.h>
#include <linux/if_vlan.h>
#include <linux/log2.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_ioctl.h>

#include "orca.h"
#include <rdma/orca-abi.h>

#define ORCA_MAX_WQE_STRIDE	1024
#define ORCA_RQ_DB_OFFSET	ORCA_DB_RECORD_SIZE

/*
 * Ring geometry for @max_wr entries of @hdr bytes plus @max_sge SGEs or
 * @inline_len bytes of inline data, at least @min_stride bytes each.
 */
int orca_wq_geom(u32 max_wr, u32 max_sge, u32 hdr, u32 min_stride,
		 u32 inline_len, struct orca_wq_geom *g)
{
	u32 stride = max3(hdr + max_sge * (u32)sizeof(struct orca_sge),
			  hdr + inline_len, min_stride);

	stride = roundup_pow_of_two(stride);
	if (stride > ORCA_MAX_WQE_STRIDE)
		return -EINVAL;
	g->log2_stride = ilog2(stride);
	g->log2_depth = ilog2(roundup_pow_of_two(max(max_wr, 1U)));
	g->max_sge = min_t(u32, ORCA_MAX_SGE_HW,
			   (stride - hdr) / sizeof(struct orca_sge));
	return 0;
}

/* The poster's side of a kernel work queue in @qmem. */
void orca_kwq_init(struct orca_kwq *wq, struct orca_qmem *qmem,
		   const struct orca_wq_geom *g, u32 db_offset, u32 max_wr)
{
	spin_lock_init(&wq->lock);
	wq->qmem = qmem;
	wq->offset = g->offset;
	wq->db = orca_qmem_ptr(qmem, db_offset);
	wq->prod = 0;
	wq->cons = 0;
	wq->max_wr = max_wr;
	wq->max_sge = g->max_sge;
	wq->log2_depth = g->log2_depth;
	wq->log2_stride = g->log2_stride;
}

static size_t orca_wq_bytes(const struct orca_wq_geom *g)
{
	return PAGE_ALIGN((size_t)1 << (g->log2_depth + g->log2_stride));
}

static u32 orca_wq_cfg(const struct orca_wq_geom *g)
{
	return FIELD_PREP(ORCA_WQ_CFG_LOG2_DEPTH, g->log2_depth) |
	       FIELD_PREP(ORCA_WQ_CFG_LOG2_STRIDE, g->log2_stride) |
	       FIELD_PREP(ORCA_WQ_CFG_MAX_SGE, g->max_sge);
}

/*
 * Describe the ring of @g in @qmem (page list @idx) to the device: its
 * address and its cfg word.
 */
static int orca_wq_hw_ring(struct orca_qmem *qmem, unsigned int idx,
			   const struct orca_wq_geom *g, __le32 *cfg,
			   __le64 *addr)
{
	u8 levels;
	u64 ring;
	int ret;

	ret = orca_qmem_ring(qmem, idx, g->offset,
			     (size_t)1 << (g->log2_depth + g->log2_stride),
			     &ring, &levels);
	if (ret)
		return ret;
	*cfg = cpu_to_le32(orca_wq_cfg(g) |
			   FIELD_PREP(ORCA_WQ_CFG_PBL_LEVELS, levels));
	*addr = cpu_to_le64(ring);
	return 0;
}

static int orca_qp_type(struct ib_qp_init_attr *attr, bool user,
			enum orca_qp_type *type)
{
	switch (attr->qp_type) {
	case IB_QPT_RC:
		*type = ORCA_QPT_RC;
		return 0;
	case IB_QPT_UC:
		*type = ORCA_QPT_UC;
		return 0;
	case IB_QPT_UD:
		*type = ORCA_QPT_UD;
		return 0;
	/*
	 * XRC: the send side for user QPs only, since a kernel ib_send_wr
	 * cannot name the target's SRQ; ib_core creates the receive side
	 * itself, without udata, for a user.
	 */
	case IB_QPT_XRC_INI:
		if (!user)
			return -EOPNOTSUPP;
		*type = ORCA_QPT_XRC_INI;
		return 0;
	case IB_QPT_XRC_TGT:
		*type = ORCA_QPT_XRC_TGT;
		return 0;
	case IB_QPT_GSI:
		if (user)
			return -EOPNOTSUPP;
		*type = ORCA_QPT_GSI;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/* The ibv_create_qp(3) checks, then the geometry and the caps to report. */
static int orca_qp_caps(struct orca_dev *dev, struct orca_qp *qp,
			struct ib_qp_init_attr *attr)
{
	const struct orca_hw_device_attr *hw = &dev->hw_attr;
	struct ib_qp_cap *cap = &attr->cap;
	u32 max_wr = le32_to_cpu(hw->max_qp_wr);
	u32 max_sge = min_t(u32, le32_to_cpu(hw->max_sge), ORCA_MAX_SGE_HW);
	u32 max_inline = le32_to_cpu(hw->max_inline_data);
	u32 hdr;
	int ret;

	if (cap->max_send_wr > max_wr || cap->max_send_sge > max_sge ||
	    cap->max_inline_data > max_inline)
		return -EINVAL;
	qp->has_rq = !attr->srq && attr->qp_type != IB_QPT_XRC_INI;
	if (qp->has_rq && (cap->max_recv_wr > max_wr ||
			   cap->max_recv_sge > max_sge))
		return -EINVAL;

	/* UD and GSI send WQEs carry an address vector after the header. */
	hdr = attr->qp_type == IB_QPT_UD || attr->qp_type == IB_QPT_GSI ?
	      ORCA_UD_SEND_WQE_HDR_SIZE : ORCA_SEND_WQE_HDR_SIZE;
	ret = orca_wq_geom(cap->max_send_wr, cap->max_send_sge, hdr, 128,
			   cap->max_inline_data, &qp->sq);
	if (ret)
		return ret;
	qp->sq_hdr = hdr;
	qp->max_inline = min_t(u32, max_inline,
			       (1U << qp->sq.log2_stride) - hdr);
	if (qp->has_rq) {
		ret = orca_wq_geom(cap->max_recv_wr, cap->max_recv_sge,
				   ORCA_RECV_WQE_HDR_SIZE, 32, 0, &qp->rq);
		if (ret)
			return ret;
	}

	cap->max_send_wr = 1U << qp->sq.log2_depth;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_inline_data = qp->max_inline;
	if (qp->has_rq) {
		cap->max_recv_wr = 1U << qp->rq.log2_depth;
		cap->max_recv_sge = qp->rq.max_sge;
	} else {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}
	return 0;
}

/*
 * The receive side of XRC: no queue, no CQ, no PD; requests name the XRC
 * SRQ of its domain that takes them.  ib_core shares it among the
 * processes of the domain and destroys it with its last handle.
 */
static int orca_create_xrc_tgt(struct orca_dev *dev, struct orca_qp *qp,
			       struct ib_qp_init_attr *attr)
{
	struct ib_qp *ibqp = &qp->ibqp;
	struct orca_hw_create_qp hw = {};
	int ret;

	if (!(le32_to_cpu(dev->hw_attr.cap_flags) & ORCA_HW_DEV_CAP_XRC))
		return -EOPNOTSUPP;
	if (attr->create_flags)
		return -EOPNOTSUPP;
	hw.info = cpu_to_le32(FIELD_PREP(ORCA_QP_INFO_TYPE, qp->hw_type));
	hw.xrcdn = cpu_to_le32(to_oxrcd(attr->xrcd)->xrcdn);
	ret = orca_cmd_create_qp(dev, &hw, &qp->qpn);
	if (ret)
		return ret;
	if (qp->qpn == 1) {
		ret = -EIO;
		goto err_destroy;
	}
	ibqp->qp_num = qp->qpn;
	ibqp->port = ORCA_PORT_NUM;
	ret = xa_insert_irq(&dev->qp_xa, qp->qpn, qp, GFP_KERNEL);
	if (ret)
		goto err_destroy;
	/* Nothing to post to: the posting verbs refuse it as a user QP's. */
	qp->user = true;
	qp->in_reset = true;
	memset(&attr->cap, 0, sizeof(attr->cap));
	qp->cap = attr->cap;
	qp->sq_sig_type = attr->sq_sig_type;
	return 0;

err_destroy:
	if (orca_cmd_destroy_qp(dev, qp->qpn))
		ibdev_warn(&dev->ibdev, "DESTROY_QP %u failed\n", qp->qpn);
	return ret;
}

int orca_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		   struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_create_qp_resp resp = {};
	struct orca_hw_create_qp hw = {};
	struct orca_ucontext *uctx;
	struct orca_ubuf ubuf = {};
	size_t sq_bytes, rq_bytes, db_off;
	u64 key = 0;
	bool is_gsi;
	u32 info;
	int ret;

	if (udata) {
		ret = orca_udata_queue_req(dev, udata, sizeof(resp), &ubuf);
		if (ret)
			return ret;
	}
	ret = orca_qp_type(attr, !!udata, &qp->hw_type);
	if (ret)
		return ret;
	if (qp->hw_type == ORCA_QPT_XRC_TGT) {
		/* It has no rings. */
		if (ubuf.len)
			return -EINVAL;
		return orca_create_xrc_tgt(dev, qp, attr);
	}
	if (attr->create_flags)
		return -EOPNOTSUPP;
	if (attr->srq) {
		if (attr->qp_type != IB_QPT_RC && attr->qp_type != IB_QPT_UD)
			return -EINVAL;
		if (attr->srq->pd != ibqp->pd)
			return -EINVAL;
	}
	if (!attr->send_cq)
		return -EINVAL;
	if (!attr->recv_cq && !attr->srq && qp->hw_type != ORCA_QPT_XRC_INI)
		return -EINVAL;
	if (qp->hw_type == ORCA_QPT_XRC_INI &&
	    !(le32_to_cpu(dev->hw_attr.cap_flags) & ORCA_HW_DEV_CAP_XRC))
		return -EOPNOTSUPP;
	ret = orca_qp_caps(dev, qp, attr);
	if (ret)
		return ret;

	sq_bytes = orca_wq_bytes(&qp->sq);
	rq_bytes = qp->has_rq ? orca_wq_bytes(&qp->rq) : 0;
	qp->sq.offset = 0;
	qp->rq.offset = sq_bytes;
	qp->user = !!udata;
	qp->in_reset = true;
	qp->qmem = orca_qmem_create(dev, sq_bytes + rq_bytes, qp->user, &ubuf,
				    &db_off);
	if (IS_ERR(qp->qmem))
		return PTR_ERR(qp->qmem);
	qp->db_offset = db_off;
	orca_kwq_init(&qp->ksq, qp->qmem, &qp->sq, qp->db_offset,
		      attr->cap.max_send_wr);
	if (qp->has_rq)
		orca_kwq_init(&qp->krq, qp->qmem, &qp->rq,
			      qp->db_offset + ORCA_RQ_DB_OFFSET,
			      attr->cap.max_recv_wr);

	info = FIELD_PREP(ORCA_QP_INFO_TYPE, qp->hw_type);
	if (attr->sq_sig_type == IB_SIGNAL_ALL_WR)
		info |= ORCA_QP_INFO_SQ_SIG_ALL;
	if (attr->srq) {
		info |= ORCA_QP_INFO_USE_SRQ;
		hw.srqn = cpu_to_le32(to_osrq(attr->srq)->srqn);
	}
	hw.info = cpu_to_le32(info);
	hw.pdn = cpu_to_le32(to_opd(ibqp->pd)->pdn);
	hw.send_cqn = cpu_to_le32(to_ocq(attr->send_cq)->cqn);
	if (attr->recv_cq && attr->qp_type != IB_QPT_XRC_INI)
		hw.recv_cqn = cpu_to_le32(to_ocq(attr->recv_cq)->cqn);
	hw.max_inline = cpu_to_le32(qp->max_inline);
	ret = orca_wq_hw_ring(qp->qmem, 0, &qp->sq, &hw.sq_cfg, &hw.sq_addr);
	if (ret)
		goto err_free;
	hw.sq_db_addr = cpu_to_le64(orca_qmem_dma(qp->qmem, qp->db_offset));
	if (qp->has_rq) {
		ret = orca_wq_hw_ring(qp->qmem, 1, &qp->rq, &hw.rq_cfg,
				      &hw.rq_addr);
		if (ret)
			goto err_free;
		hw.rq_db_addr =
			cpu_to_le64(orca_qmem_dma(qp->qmem, qp->db_offset +
						  ORCA_RQ_DB_OFFSET));
	}
	ret = orca_cmd_create_qp(dev, &hw, &qp->qpn);
	orca_qmem_lists_done(dev, qp->qmem, ret);
	if (ret) {
		/* It may still run, or have made what we cannot name. */
		orca_qmem_destroyed(dev, qp->qmem,
				    !orca_admin_effect_unknown(dev, ret));
		return ret;
	}
	/* QPN 1 is the GSI QP, and only it. */
	is_gsi = qp->hw_type == ORCA_QPT_GSI;
	if (is_gsi ? qp->qpn != 1 : qp->qpn == 1) {
		ret = -EIO;
		goto err_destroy;
	}
	ibqp->qp_num = qp->qpn;
	/* One port: ib_core learns it from modify_qp, restrack needs it now. */
	ibqp->port = ORCA_PORT_NUM;

	ret = xa_insert_irq(&dev->qp_xa, qp->qpn, qp, GFP_KERNEL);
	if (ret)
		goto err_destroy;

	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct orca_ucontext,
						 ibucontext);
		ret = orca_qmem_expose(&uctx->ibucontext, qp->qmem, &qp->mentry,
				       &key);
		if (ret)
			goto err_erase;
		resp.qpn = qp->qpn;
		resp.sq_depth = 1U << qp->sq.log2_depth;
		resp.sq_stride = 1U << qp->sq.log2_stride;
		if (qp->has_rq) {
			resp.rq_depth = 1U << qp->rq.log2_depth;
			resp.rq_stride = 1U << qp->rq.log2_stride;
		}
		resp.max_inline = qp->max_inline;
		resp.sq_offset = qp->sq.offset;
		resp.rq_offset = qp->rq.offset;
		resp.db_offset = qp->db_offset;
		resp.mmap_key = key;
		resp.mmap_len = qp->qmem->size;
		ret = orca_udata_put_resp(udata, &resp, sizeof(resp));
		if (ret)
			goto err_unexpose;
	}
	qp->cap = attr->cap;
	qp->sq_sig_type = attr->sq_sig_type;
	return 0;

err_unexpose:
	orca_qmem_unexpose(qp->mentry);
err_erase:
	xa_erase_irq(&dev->qp_xa, qp->qpn);
err_destroy:
	if (orca_cmd_destroy_qp(dev, qp->qpn)) {
		orca_qmem_destroyed(dev, qp->qmem, false);
		return ret;
	}
	orca_qmem_put(qp->qmem);
	return ret;

err_free:
	orca_qmem_put(qp->qmem);
	return ret;
}

/*
 * ib_core destroys an XRC_TGT QP with its last handle and cannot retry
 * that: a device that refuses the destroy once is asked again at once,
 * as a user object's destroy would be retried.
 */
static int orca_destroy_xrc_tgt(struct orca_dev *dev, struct orca_qp *qp)
{
	int ret;

	xa_erase_irq(&dev->qp_xa, qp->qpn);
	ret = orca_destroy_retried(dev, orca_cmd_destroy_qp, qp->qpn);
	if (ret)
		ibdev_warn_ratelimited(&dev->ibdev,
				       "DESTROY_QP %u (XRC_TGT) failed: %d\n",
				       qp->qpn, ret);
	return 0;
}

int orca_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);

	if (qp->hw_type == ORCA_QPT_XRC_TGT)
		return orca_destroy_xrc_tgt(dev, qp);

	return orca_destroy_queue(dev, &dev->qp_xa, qp->qpn, qp,
				  orca_cmd_destroy_qp, qp->qmem, qp->mentry,
				  "QP", udata, &qp->refused);
}

/* ib_core attribute mask bits and the device's, one for one. */
static const struct {
	int ib;
	u32 hw;
} orca_qp_mask_map[] = {
	{ IB_QP_STATE, ORCA_QP_ATTR_STATE },
	{ IB_QP_CUR_STATE, ORCA_QP_ATTR_CUR_STATE },
	{ IB_QP_EN_SQD_ASYNC_NOTIFY, ORCA_QP_ATTR_EN_SQD_ASYNC },
	{ IB_QP_ACCESS_FLAGS, ORCA_QP_ATTR_ACCESS_FLAGS },
	{ IB_QP_PKEY_INDEX, ORCA_QP_ATTR_PKEY_INDEX },
	{ IB_QP_PORT, ORCA_QP_ATTR_PORT },
	{ IB_QP_QKEY, ORCA_QP_ATTR_QKEY },
	{ IB_QP_AV, ORCA_QP_ATTR_AV },
	{ IB_QP_PATH_MTU, ORCA_QP_ATTR_PATH_MTU },
	{ IB_QP_TIMEOUT, ORCA_QP_ATTR_TIMEOUT },
	{ IB_QP_RETRY_CNT, ORCA_QP_ATTR_RETRY_CNT },
	{ IB_QP_RNR_RETRY, ORCA_QP_ATTR_RNR_RETRY },
	{ IB_QP_RQ_PSN, ORCA_QP_ATTR_RQ_PSN },
	{ IB_QP_MAX_QP_RD_ATOMIC, ORCA_QP_ATTR_MAX_QP_RD_ATOMIC },
	{ IB_QP_ALT_PATH, ORCA_QP_ATTR_ALT_PATH },
	{ IB_QP_MIN_RNR_TIMER, ORCA_QP_ATTR_MIN_RNR_TIMER },
	{ IB_QP_SQ_PSN, ORCA_QP_ATTR_SQ_PSN },
	{ IB_QP_MAX_DEST_RD_ATOMIC, ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC },
	{ IB_QP_PATH_MIG_STATE, ORCA_QP_ATTR_PATH_MIG_STATE },
	{ IB_QP_CAP, ORCA_QP_ATTR_CAP },
	{ IB_QP_DEST_QPN, ORCA_QP_ATTR_DEST_QPN },
};

static const struct {
	enum ib_qp_state ib;
	enum orca_qp_state hw;
} orca_qp_state_map[] = {
	{ IB_QPS_RESET, ORCA_QPS_RESET },
	{ IB_QPS_INIT, ORCA_QPS_INIT },
	{ IB_QPS_RTR, ORCA_QPS_RTR },
	{ IB_QPS_RTS, ORCA_QPS_RTS },
	{ IB_QPS_SQD, ORCA_QPS_SQD },
	{ IB_QPS_SQE, ORCA_QPS_SQE },
	{ IB_QPS_ERR, ORCA_QPS_ERR },
};

static int orca_qp_state_to_hw(enum ib_qp_state ib, u8 *hw)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(orca_qp_state_map); i++) {
		if (orca_qp_state_map[i].ib == ib) {
			*hw = orca_qp_state_map[i].hw;
			return 0;
		}
	}
	return -EINVAL;
}

static enum ib_qp_state orca_qp_state_from_hw(u8 hw)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(orca_qp_state_map); i++)
		if (orca_qp_state_map[i].hw == hw)
			return orca_qp_state_map[i].ib;
	return IB_QPS_ERR;
}

u32 orca_access_to_hw(int access)
{
	u32 hw = 0;

	if (access & IB_ACCESS_LOCAL_WRITE)
		hw |= ORCA_ACCESS_LOCAL_WRITE;
	if (access & IB_ACCESS_REMOTE_WRITE)
		hw |= ORCA_ACCESS_REMOTE_WRITE;
	if (access & IB_ACCESS_REMOTE_READ)
		hw |= ORCA_ACCESS_REMOTE_READ;
	if (access & IB_ACCESS_REMOTE_ATOMIC)
		hw |= ORCA_ACCESS_REMOTE_ATOMIC;
	/* Regions only: a QP's access flags never carry it. */
	if (access & IB_ACCESS_MW_BIND)
		hw |= ORCA_ACCESS_MW_BIND;
	return hw;
}

static int orca_access_from_hw(u32 hw)
{
	int access = 0;

	if (hw & ORCA_ACCESS_LOCAL_WRITE)
		access |= IB_ACCESS_LOCAL_WRITE;
	if (hw & ORCA_ACCESS_REMOTE_WRITE)
		access |= IB_ACCESS_REMOTE_WRITE;
	if (hw & ORCA_ACCESS_REMOTE_READ)
		access |= IB_ACCESS_REMOTE_READ;
	if (hw & ORCA_ACCESS_REMOTE_ATOMIC)
		access |= IB_ACCESS_REMOTE_ATOMIC;
	return access;
}

#define ORCA_QP_IB_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

/*
 * An address vector from ib_core's attributes: RoCEv2 needs a GRH, and
 * ib_core has resolved the destination MAC.  Never sleeps: AHs are
 * created in atomic context.
 */
int orca_ah_attr_to_av(const struct rdma_ah_attr *ah, struct orca_av *av)
{
	const struct ib_global_route *grh;
	u16 vlan = ORCA_AH_VLAN_NONE;
	int ret;

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(ah);
	if (grh->sgid_attr) {
		ret = rdma_read_gid_l2_fields(grh->sgid_attr, &vlan, NULL);
		if (ret)
			return ret;
		if (vlan >= VLAN_N_VID)
			vlan = ORCA_AH_VLAN_NONE;
	}
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	av->info = cpu_to_le32(FIELD_PREP(ORCA_AH_FLOW_LABEL,
					  grh->flow_label) |
			       FIELD_PREP(ORCA_AH_SGID_INDEX,
					  grh->sgid_index) |
			       FIELD_PREP(ORCA_AH_SL, rdma_ah_get_sl(ah)));
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	memcpy(av->dmac, ah->roce.dmac, sizeof(av->dmac));
	av->vlan = cpu_to_le16(vlan);
	return 0;
}

/* A QP's primary path carries the same vector, field by field. */
static int orca_av_to_hw(const struct rdma_ah_attr *ah,
			 struct orca_hw_qp_attr *hw)
{
	struct orca_av av;
	int ret;

	ret = orca_ah_attr_to_av(ah, &av);
	if (ret)
		return ret;
	memcpy(hw->dgid, av.dgid, sizeof(hw->dgid));
	hw->av_info = av.info;
	hw->hop_limit = av.hop_limit;
	hw->traffic_class = av.traffic_class;
	memcpy(hw->dmac, av.dmac, sizeof(hw->dmac));
	hw->vlan = av.vlan;
	return 0;
}

/*
 * Translate a modify.  Only what ib_core's types cannot hold in the
 * hardware fields is rejected here; the device checks the transition,
 * the required and allowed attributes and their ranges.
 */
static int orca_qp_attr_to_hw(const struct ib_qp_attr *attr, int mask,
			      struct orca_hw_qp_attr *hw)
{
	u32 hw_mask = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(orca_qp_mask_map); i++) {
		if (mask & orca_qp_mask_map[i].ib) {
			hw_mask |= orca_qp_mask_map[i].hw;
			mask &= ~orca_qp_mask_map[i].ib;
		}
	}
	if (mask)
		return -EOPNOTSUPP;
	hw->attr_mask = cpu_to_le32(hw_mask);

	if (hw_mask & ORCA_QP_ATTR_STATE) {
		ret = orca_qp_state_to_hw(attr->qp_state, &hw->qp_state);
		if (ret)
			return ret;
	}
	if (hw_mask & ORCA_QP_ATTR_CUR_STATE) {
		ret = orca_qp_state_to_hw(attr->cur_qp_state,
					  &hw->cur_qp_state);
		if (ret)
			return ret;
	}
	if (hw_mask & ORCA_QP_ATTR_EN_SQD_ASYNC)
		hw->en_sqd_async = !!attr->en_sqd_async_notify;
	if (hw_mask & ORCA_QP_ATTR_ACCESS_FLAGS) {
		if (attr->qp_access_flags & ~ORCA_QP_IB_ACCESS)
			return -EINVAL;
		hw->access = cpu_to_le32(orca_access_to_hw(attr->qp_access_flags));
	}
	if (hw_mask & ORCA_QP_ATTR_PKEY_INDEX)
		hw->pkey_index = cpu_to_le16(attr->pkey_index);
	if (hw_mask & ORCA_QP_ATTR_PORT) {
		if (attr->port_num > U8_MAX)
			return -EINVAL;
		hw->port = attr->port_num;
	}
	if (hw_mask & ORCA_QP_ATTR_QKEY)
		hw->qkey = cpu_to_le32(attr->qkey);
	if (hw_mask & ORCA_QP_ATTR_AV) {
		ret = orca_av_to_hw(&attr->ah_attr, hw);
		if (ret)
			return ret;
	}
	if (hw_mask & ORCA_QP_ATTR_PATH_MTU)
		hw->path_mtu = attr->path_mtu;
	if (hw_mask & ORCA_QP_ATTR_TIMEOUT)
		hw->timeout = attr->timeout;
	if (hw_mask & ORCA_QP_ATTR_RETRY_CNT)
		hw->retry_cnt = attr->retry_cnt;
	if (hw_mask & ORCA_QP_ATTR_RNR_RETRY)
		hw->rnr_retry = attr->rnr_retry;
	if (hw_mask & ORCA_QP_ATTR_RQ_PSN)
		hw->rq_psn = cpu_to_le32(attr->rq_psn);
	if (hw_mask & ORCA_QP_ATTR_MAX_QP_RD_ATOMIC)
		hw->max_rd_atomic = attr->max_rd_atomic;
	if (hw_mask & ORCA_QP_ATTR_MIN_RNR_TIMER)
		hw->min_rnr_timer = attr->min_rnr_timer;
	if (hw_mask & ORCA_QP_ATTR_SQ_PSN)
		hw->sq_psn = cpu_to_le32(attr->sq_psn);
	if (hw_mask & ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC)
		hw->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (hw_mask & ORCA_QP_ATTR_PATH_MIG_STATE)
		hw->path_mig_state = attr->path_mig_state;
	if (hw_mask & ORCA_QP_ATTR_CAP) {
		hw->max_send_wr = cpu_to_le32(attr->cap.max_send_wr);
		hw->max_recv_wr = cpu_to_le32(attr->cap.max_recv_wr);
		hw->max_send_sge = cpu_to_le32(attr->cap.max_send_sge);
		hw->max_recv_sge = cpu_to_le32(attr->cap.max_recv_sge);
		hw->max_inline = cpu_to_le32(attr->cap.max_inline_data);
	}
	if (hw_mask & ORCA_QP_ATTR_DEST_QPN)
		hw->dest_qpn = cpu_to_le32(attr->dest_qp_num);
	return 0;
}

/*
 * The device dropped every WQE of a QP moved to RESET and wrote into the
 * record the cons it continues from: posting restarts there.
 */
static void orca_kwq_restart(struct orca_kwq *wq)
{
	unsigned long flags;

	spin_lock_irqsave(&wq->lock, flags);
	wq->cons = le32_to_cpu(READ_ONCE(wq->db->cons));
	wq->prod = wq->cons;
	WRITE_ONCE(wq->db->prod, cpu_to_le32(wq->prod));
	spin_unlock_irqrestore(&wq->lock, flags);
}

int orca_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_hw_qp_attr hw = {};
	int ret;

	if (udata) {
		ret = orca_udata_no_req(udata);
		if (ret)
			return ret;
	}
	ret = orca_qp_attr_to_hw(attr, mask, &hw);
	if (ret)
		return ret;
	ret = orca_cmd_modify_qp(to_odev(ibqp->device), qp->qpn, &hw);
	if (ret || !(mask & IB_QP_STATE))
		return ret;
	if (attr->qp_state == IB_QPS_RESET && !qp->user) {
		orca_kwq_restart(&qp->ksq);
		if (qp->has_rq)
			orca_kwq_restart(&qp->krq);
	}
	WRITE_ONCE(qp->in_reset, attr->qp_state == IB_QPS_RESET);
	return 0;
}

static void orca_av_from_hw(const struct orca_hw_qp_attr *hw,
			    struct rdma_ah_attr *ah)
{
	u32 info = le32_to_cpu(hw->av_info);
	union ib_gid dgid;

	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	memcpy(dgid.raw, hw->dgid, sizeof(dgid.raw));
	rdma_ah_set_port_num(ah, ORCA_PORT_NUM);
	rdma_ah_set_sl(ah, FIELD_GET(ORCA_AH_SL, info));
	rdma_ah_set_grh(ah, &dgid, FIELD_GET(ORCA_AH_FLOW_LABEL, info),
			FIELD_GET(ORCA_AH_SGID_INDEX, info), hw->hop_limit,
			hw->traffic_class);
	memcpy(ah->roce.dmac, hw->dmac, sizeof(ah->roce.dmac));
}

int orca_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init)
{
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_hw_qp_attr hw;
	u32 set;
	int ret;

	ret = orca_cmd_query_qp(to_odev(ibqp->device), qp->qpn, &hw);
	if (ret)
		return ret;
	set = le32_to_cpu(hw.attr_mask);

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = orca_qp_state_from_hw(hw.qp_state);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = hw.path_mtu;
	attr->path_mig_state = hw.path_mig_state;
	attr->qkey = le32_to_cpu(hw.qkey);
	attr->rq_psn = le32_to_cpu(hw.rq_psn);
	attr->sq_psn = le32_to_cpu(hw.sq_psn);
	attr->dest_qp_num = le32_to_cpu(hw.dest_qpn);
	attr->qp_access_flags = orca_access_from_hw(le32_to_cpu(hw.access));
	attr->pkey_index = le16_to_cpu(hw.pkey_index);
	attr->port_num = hw.port ? hw.port : ORCA_PORT_NUM;
	attr->en_sqd_async_notify = hw.en_sqd_async;
	attr->sq_draining = hw.sq_draining;
	attr->max_rd_atomic = hw.max_rd_atomic;
	attr->max_dest_rd_atomic = hw.max_dest_rd_atomic;
	attr->min_rnr_timer = hw.min_rnr_timer;
	attr->timeout = hw.timeout;
	attr->retry_cnt = hw.retry_cnt;
	attr->rnr_retry = hw.rnr_retry;
	if (set & ORCA_QP_ATTR_AV)
		orca_av_from_hw(&hw, &attr->ah_attr);
	attr->cap = qp->cap;

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->cap = qp->cap;
	init->sq_sig_type = qp->sq_sig_type;
	init->port_num = ORCA_PORT_NUM;
	return 0;
}

/*
 * A kernel work queue's indices, for `rdma resource show qp -dd`: what
 * was posted (prod) and what the device has finished (its cons in the
 * doorbell record).  A queue that holds WQEs while nothing moves is a
 * stalled one.
 */
static int orca_fill_res_kwq(struct sk_buff *msg, const char *name,
			     struct orca_kwq *kwq)
{
	char key[16];
	unsigned long flags;
	u32 prod, cons;

	spin_lock_irqsave(&kwq->lock, flags);
	prod = kwq->prod;
	cons = le32_to_cpu(READ_ONCE(kwq->db->cons));
	spin_unlock_irqrestore(&kwq->lock, flags);

	snprintf(key, sizeof(key), "%s_prod", name);
	if (rdma_nl_put_driver_u32(msg, key, prod))
		return -EMSGSIZE;
	snprintf(key, sizeof(key), "%s_cons", name);
	return rdma_nl_put_driver_u32(msg, key, cons) ? -EMSGSIZE : 0;
}

int orca_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct orca_qp *qp = to_oqp(ibqp);
	struct nlattr *nest;

	/* An XRC_TGT QP has no queue to describe. */
	if (qp->hw_type == ORCA_QPT_XRC_TGT)
		return 0;
	nest = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "sq_depth", 1U << qp->sq.log2_depth) ||
	    rdma_nl_put_driver_u32(msg, "sq_stride",
				   1U << qp->sq.log2_stride) ||
	    rdma_nl_put_driver_u32(msg, "rq_depth",
				   qp->has_rq ? 1U << qp->rq.log2_depth : 0) ||
	    rdma_nl_put_driver_u32(msg, "rq_stride",
				   qp->has_rq ? 1U << qp->rq.log2_stride : 0) ||
	    rdma_nl_put_driver_u32(msg, "max_inline", qp->max_inline))
		goto err;
	if (!qp->user &&
	    (orca_fill_res_kwq(msg, "sq", &qp->ksq) ||
	     (qp->has_rq && orca_fill_res_kwq(msg, "rq", &qp->krq))))
		goto err;
	nla_nest_end(msg, nest);
	return 0;

err:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/* Shared receive queues. */
int orca_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibsrq->device);
	const struct orca_hw_device_attr *hwa = &dev->hw_attr;
	struct orca_srq *srq = to_osrq(ibsrq);
	struct orca_create_srq_resp resp = {};
	struct orca_hw_srq hw = {};
	struct orca_ubuf ubuf = {};
	struct orca_ucontext *uctx;
	size_t ring_bytes, db_off;
	u64 key = 0;
	u32 depth;
	int ret;

	if (udata) {
		ret = orca_udata_queue_req(dev, udata, sizeof(resp), &ubuf);
		if (ret)
			return ret;
	}
	if (attr->srq_type == IB_SRQT_XRC) {
		/* ib_core checked the domain and the CQ are there. */
		if (!(le32_to_cpu(hwa->cap_flags) & ORCA_HW_DEV_CAP_XRC))
			return -EOPNOTSUPP;
		hw.info = cpu_to_le32(FIELD_PREP(ORCA_SRQ_INFO_TYPE,
						 ORCA_SRQT_XRC));
		hw.xrcdn = cpu_to_le32(to_oxrcd(attr->ext.xrc.xrcd)->xrcdn);
		hw.cqn = cpu_to_le32(to_ocq(attr->ext.cq)->cqn);
	} else if (attr->srq_type != IB_SRQT_BASIC) {
		return -EOPNOTSUPP;
	}
	if (attr->attr.max_wr > le32_to_cpu(hwa->max_srq_wr) ||
	    attr->attr.max_sge > min_t(u32, le32_to_cpu(hwa->max_srq_sge),
				       ORCA_MAX_SGE_HW))
		return -EINVAL;
	ret = orca_wq_geom(attr->attr.max_wr, attr->attr.max_sge,
			   ORCA_RECV_WQE_HDR_SIZE, 32, 0, &srq->wq);
	if (ret)
		return ret;
	depth = 1U << srq->wq.log2_depth;

	ring_bytes = orca_wq_bytes(&srq->wq);
	srq->max_sge = srq->wq.max_sge;
	srq->user = !!udata;
	srq->wq.offset = 0;
	srq->qmem = orca_qmem_create(dev, ring_bytes, srq->user, &ubuf,
				     &db_off);
	if (IS_ERR(srq->qmem))
		return PTR_ERR(srq->qmem);
	srq->db_offset = db_off;
	orca_kwq_init(&srq->kwq, srq->qmem, &srq->wq, db_off, depth);

	hw.pdn = cpu_to_le32(to_opd(ibsrq->pd)->pdn);
	/*
	 * srq_limit means nothing at creation (ibv_create_srq(3); ConnectX
	 * ignores it too): only MODIFY_SRQ arms the limit.
	 */
	hw.limit = 0;
	ret = orca_wq_hw_ring(srq->qmem, 0, &srq->wq, &hw.cfg, &hw.ring_addr);
	if (ret) {
		orca_qmem_put(srq->qmem);
		return ret;
	}
	hw.db_addr = cpu_to_le64(orca_qmem_dma(srq->qmem, db_off));
	ret = orca_cmd_create_srq(dev, &hw, &srq->srqn);
	orca_qmem_lists_done(dev, srq->qmem, ret);
	if (ret) {
		/* It may still run, or have made what we cannot name. */
		orca_qmem_destroyed(dev, srq->qmem,
				    !orca_admin_effect_unknown(dev, ret));
		return ret;
	}

	/* The number XRC senders name the SRQ by (ibv_get_srq_num(3)). */
	if (attr->srq_type == IB_SRQT_XRC)
		ibsrq->ext.xrc.srq_num = srq->srqn;

	ret = xa_insert_irq(&dev->srq_xa, srq->srqn, srq, GFP_KERNEL);
	if (ret)
		goto err_destroy;

	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct orca_ucontext,
						 ibucontext);
		ret = orca_qmem_expose(&uctx->ibucontext, srq->qmem,
				       &srq->mentry, &key);
		if (ret)
			goto err_erase;
		resp.srqn = srq->srqn;
		resp.depth = depth;
		resp.stride = 1U << srq->wq.log2_stride;
		resp.mmap_key = key;
		resp.mmap_len = srq->qmem->size;
		resp.db_offset = db_off;
		ret = orca_udata_put_resp(udata, &resp, sizeof(resp));
		if (ret)
			goto err_unexpose;
	}
	attr->attr.max_wr = depth;
	attr->attr.max_sge = srq->max_sge;
	return 0;

err_unexpose:
	orca_qmem_unexpose(srq->mentry);
err_erase:
	xa_erase_irq(&dev->srq_xa, srq->srqn);
err_destroy:
	if (orca_cmd_destroy_srq(dev, srq->srqn)) {
		orca_qmem_destroyed(dev, srq->qmem, false);
		return ret;
	}
	orca_qmem_put(srq->qmem);
	return ret;
}

int orca_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct orca_srq *srq = to_osrq(ibsrq);
	int ret;

	if (udata) {
		ret = orca_udata_no_req(udata);
		if (ret)
			return ret;
	}
	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;
	if (mask & ~IB_SRQ_LIMIT)
		return -EINVAL;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit >= (1U << srq->wq.log2_depth))
		return -EINVAL;
	return orca_cmd_modify_srq(to_odev(ibsrq->device), srq->srqn,
				   ORCA_SRQ_ATTR_LIMIT, 0, attr->srq_limit);
}

int orca_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct orca_srq *srq = to_osrq(ibsrq);
	struct orca_hw_srq hw;
	int ret;

	ret = orca_cmd_query_srq(to_odev(ibsrq->device), srq->srqn, &hw);
	if (ret)
		return ret;
	attr->max_wr = le32_to_cpu(hw.max_wr);
	attr->max_sge = FIELD_GET(ORCA_WQ_CFG_MAX_SGE, le32_to_cpu(hw.cfg));
	attr->srq_limit = le32_to_cpu(hw.limit);
	return 0;
}

int orca_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibsrq->device);
	struct orca_srq *srq = to_osrq(ibsrq);

	return orca_destroy_queue(dev, &dev->srq_xa, srq->srqn, srq,
				  orca_cmd_destroy_srq, srq->qmem, srq->mentry,
				  "SRQ", udata, &srq->refused);
}
