// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: work queue geometry and shared receive queues.
 *
 * The device keeps an SRQ's ring (contiguous, or since interface 1.7
 * paged: orca_soft_pbl.c), its geometry, its doorbell record and its
 * limit; receive WQEs are consumed by the data path (issue #4), which
 * also raises ORCA_EQE_SRQ_LIMIT when fewer than the armed limit remain,
 * and disarms it.
 *
 * An XRC SRQ (interface 1.4) also belongs to an XRC domain and has a CQ of
 * its own: XRC_TGT QPs of the domain take its WQEs for the requests that
 * name it, check memory against its PD, and complete in its CQ.
 */

#include <linux/bitfield.h>
#include <linux/slab.h>
#include <rdma/orca-abi.h>

#include "orca_soft.h"

#define ORCA_WQ_CFG_ALL		(ORCA_WQ_CFG_LOG2_DEPTH | \
				 ORCA_WQ_CFG_LOG2_STRIDE | ORCA_WQ_CFG_MAX_SGE | \
				 ORCA_WQ_CFG_PBL_LEVELS)
/* max_qp_wr and max_srq_wr: 2^14 entries. */
#define ORCA_SOFT_WQ_MAX_LOG2	14
#define ORCA_SOFT_SQ_MIN_STRIDE	7	/* 128 bytes */
#define ORCA_SOFT_RQ_MIN_STRIDE	5	/* 32 bytes */
#define ORCA_SOFT_WQ_MAX_STRIDE	10	/* 1024 bytes */

/**
 * orca_soft_wq_cfg - decode and check an ORCA_WQ_CFG_* word
 * @cfg: the word
 * @hdr: bytes before a WQE's SGEs: ORCA_RECV_WQE_HDR_SIZE for a receive
 *	 queue, ORCA_SEND_WQE_HDR_SIZE for a send queue, or
 *	 ORCA_UD_SEND_WQE_HDR_SIZE for the send queue of a UD or GSI QP
 * @wq: filled with the geometry, and the ring's PBL_LEVELS
 *
 * Depth 1 .. 2^14 entries; stride 128 (send) or 32 (receive) .. 1024
 * bytes; max_sge <= 32 and the header plus max_sge SGEs fit the stride.
 * PBL_LEVELS is checked with the ring's address (orca_soft_ring_ok()).
 */
u8 orca_soft_wq_cfg(u32 cfg, u32 hdr, struct orca_soft_wq *wq)
{
	u8 log2 = FIELD_GET(ORCA_WQ_CFG_LOG2_DEPTH, cfg);
	u8 stride = FIELD_GET(ORCA_WQ_CFG_LOG2_STRIDE, cfg);
	u8 max_sge = FIELD_GET(ORCA_WQ_CFG_MAX_SGE, cfg);
	bool send = hdr != ORCA_RECV_WQE_HDR_SIZE;

	if (cfg & ~ORCA_WQ_CFG_ALL || log2 > ORCA_SOFT_WQ_MAX_LOG2 ||
	    stride < (send ? ORCA_SOFT_SQ_MIN_STRIDE : ORCA_SOFT_RQ_MIN_STRIDE) ||
	    stride > ORCA_SOFT_WQ_MAX_STRIDE || max_sge > ORCA_SOFT_MAX_SGE ||
	    hdr + max_sge * sizeof(struct orca_sge) > BIT(stride))
		return ORCA_AQ_STS_BAD_PARAM;
	wq->log2_depth = log2;
	wq->log2_stride = stride;
	wq->max_sge = max_sge;
	wq->ring.levels = FIELD_GET(ORCA_WQ_CFG_PBL_LEVELS, cfg);
	return ORCA_AQ_STS_OK;
}

static u32 orca_soft_wq_cfg_word(const struct orca_soft_wq *wq)
{
	return FIELD_PREP(ORCA_WQ_CFG_LOG2_DEPTH, wq->log2_depth) |
	       FIELD_PREP(ORCA_WQ_CFG_LOG2_STRIDE, wq->log2_stride) |
	       FIELD_PREP(ORCA_WQ_CFG_MAX_SGE, wq->max_sge) |
	       FIELD_PREP(ORCA_WQ_CFG_PBL_LEVELS, wq->ring.levels);
}

struct orca_soft_srq *orca_soft_srq_find(struct orca_soft_dev *sdev,
					 u32 srqn)
{
	return xa_load(&sdev->srqs, srqn);
}

u8 orca_soft_create_srq(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd,
			struct orca_soft_cmd_out *out)
{
	const struct orca_cmd_mbox_in *c = &cmd->mbox_in;
	struct orca_soft_xrcd *xrcd = NULL;
	struct orca_soft_cq *cq = NULL;
	struct orca_soft_srq *srq;
	struct orca_soft_pd *pd;
	struct orca_soft_wq wq = {};
	struct orca_hw_srq in;
	u32 limit, type;
	u8 sts;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	sts = orca_soft_get_input(sdev, le64_to_cpu(c->in_addr),
				  le32_to_cpu(c->in_len), &in, sizeof(in));
	if (sts)
		return sts;
	type = FIELD_GET(ORCA_SRQ_INFO_TYPE, le32_to_cpu(in.info));
	if (!orca_soft_rsvd_clear(in.rsvd, sizeof(in.rsvd)) ||
	    le32_to_cpu(in.info) & ~ORCA_SRQ_INFO_TYPE ||
	    type > ORCA_SRQT_XRC ||
	    (type == ORCA_SRQT_BASIC && (in.xrcdn || in.cqn)))
		return ORCA_AQ_STS_BAD_PARAM;
	sts = orca_soft_wq_cfg(le32_to_cpu(in.cfg), ORCA_RECV_WQE_HDR_SIZE,
			       &wq);
	if (sts)
		return sts;
	wq.ring.addr = le64_to_cpu(in.ring_addr);
	wq.db_addr = le64_to_cpu(in.db_addr);
	limit = le32_to_cpu(in.limit);
	if (!orca_soft_ring_ok(sdev, &wq.ring, orca_soft_wq_bytes(&wq)) ||
	    !wq.db_addr || !IS_ALIGNED(wq.db_addr, ORCA_DB_RECORD_SIZE) ||
	    limit >= BIT(wq.log2_depth))
		return ORCA_AQ_STS_BAD_PARAM;
	pd = orca_soft_pd_find(sdev, le32_to_cpu(in.pdn));
	if (!pd)
		return ORCA_AQ_STS_BAD_HANDLE;
	if (type == ORCA_SRQT_XRC) {
		xrcd = orca_soft_xrcd_find(sdev, le32_to_cpu(in.xrcdn));
		cq = orca_soft_cq_find(sdev, le32_to_cpu(in.cqn));
		if (!xrcd || !cq)
			return ORCA_AQ_STS_BAD_HANDLE;
	}

	srq = kzalloc(sizeof(*srq), ORCA_SOFT_GFP);
	if (!srq)
		return ORCA_AQ_STS_NO_RESOURCES;
	srq->pd = pd;
	srq->xrcd = xrcd;
	srq->cq = cq;
	srq->wq = wq;
	srq->limit = limit;
	mutex_init(&srq->lock);
	sts = orca_soft_ring_load(sdev, &srq->wq.ring,
				  orca_soft_wq_bytes(&srq->wq));
	if (sts)
		goto err_free_srq;
	if (xa_alloc(&sdev->srqs, &srq->srqn, srq,
		     XA_LIMIT(1, ORCA_SOFT_MAX_SRQ), ORCA_SOFT_GFP)) {
		sts = ORCA_AQ_STS_NO_RESOURCES;
		goto err_release_ring;
	}
	/* The device looks at an SRQ's prod when it needs a WQE. */
	orca_soft_wq_set_flags(sdev, &srq->wq, ORCA_DB_DEV_POLLING);
	pd->users++;
	if (xrcd) {
		xrcd->users++;
		cq->users++;
	}
	sdev->counts.srqs++;
	out->result = srq->srqn;
	return ORCA_AQ_STS_OK;

err_release_ring:
	orca_soft_ring_release(&srq->wq.ring);
err_free_srq:
	mutex_destroy(&srq->lock);
	kfree(srq);
	return sts;
}

u8 orca_soft_modify_srq(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_modify_srq *c = &cmd->modify_srq;
	u32 mask = le32_to_cpu(c->attr_mask);
	u32 limit = le32_to_cpu(c->limit);
	struct orca_soft_srq *srq;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)) ||
	    (mask & ~(ORCA_SRQ_ATTR_MAX_WR | ORCA_SRQ_ATTR_LIMIT)))
		return ORCA_AQ_STS_BAD_PARAM;
	srq = orca_soft_srq_find(sdev, le32_to_cpu(c->srqn));
	if (!srq)
		return ORCA_AQ_STS_BAD_HANDLE;
	/* Resizing an SRQ is not implemented. */
	if (mask & ORCA_SRQ_ATTR_MAX_WR)
		return ORCA_AQ_STS_UNSUPPORTED;
	if (mask & ORCA_SRQ_ATTR_LIMIT) {
		if (limit >= BIT(srq->wq.log2_depth))
			return ORCA_AQ_STS_BAD_PARAM;
		srq->limit = limit;
	}
	return ORCA_AQ_STS_OK;
}

u8 orca_soft_query_srq(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_handle *c = &cmd->handle;
	struct orca_hw_srq attr = {};
	struct orca_soft_srq *srq;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	srq = orca_soft_srq_find(sdev, le32_to_cpu(c->handle));
	if (!srq)
		return ORCA_AQ_STS_BAD_HANDLE;
	attr.pdn = cpu_to_le32(srq->pd->pdn);
	attr.cfg = cpu_to_le32(orca_soft_wq_cfg_word(&srq->wq));
	attr.limit = cpu_to_le32(srq->limit);
	attr.max_wr = cpu_to_le32(BIT(srq->wq.log2_depth));
	/* A paged ring's page list, as given: it may be gone by now. */
	attr.ring_addr = cpu_to_le64(srq->wq.ring.addr);
	attr.db_addr = cpu_to_le64(srq->wq.db_addr);
	if (srq->xrcd) {
		attr.info = cpu_to_le32(FIELD_PREP(ORCA_SRQ_INFO_TYPE,
						   ORCA_SRQT_XRC));
		attr.xrcdn = cpu_to_le32(srq->xrcd->xrcdn);
		attr.cqn = cpu_to_le32(srq->cq->cqn);
	}
	return orca_soft_put_output(sdev, cmd, &attr, sizeof(attr));
}

static void orca_soft_srq_free(struct orca_soft_dev *sdev,
			       struct orca_soft_srq *srq)
{
	xa_erase(&sdev->srqs, srq->srqn);
	srq->pd->users--;
	if (srq->xrcd) {
		srq->xrcd->users--;
		srq->cq->users--;
	}
	sdev->counts.srqs--;
	orca_soft_ring_release(&srq->wq.ring);
	mutex_destroy(&srq->lock);
	kfree(srq);
}

u8 orca_soft_destroy_srq(struct orca_soft_dev *sdev,
			 const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_handle *c = &cmd->handle;
	struct orca_soft_srq *srq;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	srq = orca_soft_srq_find(sdev, le32_to_cpu(c->handle));
	if (!srq)
		return ORCA_AQ_STS_BAD_HANDLE;
	if (srq->users)
		return ORCA_AQ_STS_BUSY;
	if (srq->xrcd)
		orca_soft_xrc_srq_gone(sdev, srq);
	orca_soft_srq_free(sdev, srq);
	return ORCA_AQ_STS_OK;
}

/*
 * XRC_TGT QPs forget @srq: one that borrowed it drops the WQE it holds
 * (it goes with the SRQ), a message that named it in its first packet
 * cannot go on (its next packet is an invalid request, even if a new SRQ
 * took the number meanwhile), and READ responses that still have to read
 * through its PD stop.
 */
void orca_soft_xrc_srq_gone(struct orca_soft_dev *sdev,
			    struct orca_soft_srq *srq)
{
	struct orca_soft_qp *qp;
	unsigned long idx;
	u32 i;

	xa_for_each(&sdev->qps, idx, qp) {
		if (qp->type != ORCA_QPT_XRC_TGT)
			continue;
		if (qp->srq == srq) {
			qp->resp.srq_held = false;
			qp->srq = NULL;
			qp->pd = NULL;
			qp->recv_cq = NULL;
		}
		if (qp->resp.xrc_srqn == srq->srqn)
			qp->resp.xrc_live = false;
		for (i = 0; i < ARRAY_SIZE(qp->resp.res); i++)
			if (qp->resp.res[i].valid &&
			    qp->resp.res[i].xrc_srqn == srq->srqn)
				qp->resp.res[i].xrc_gone = true;
	}
}

/*
 * An XRC_TGT QP executes a packet naming XRC SRQ @srqn (@first: the first
 * packet of a message): the SRQ must exist and belong to the QP's domain,
 * and every later packet of the message must name the SRQ the first one
 * named, while it exists.  The QP then works with the SRQ's PD and
 * completes in its CQ.
 */
bool orca_soft_xrc_bind(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
			u32 srqn, bool first)
{
	struct orca_soft_srq *srq;

	if (!first && (!qp->resp.xrc_live || srqn != qp->resp.xrc_srqn))
		return false;
	srq = orca_soft_srq_find(sdev, srqn);
	if (!srq || srq->xrcd != qp->xrcd ||
	    (qp->resp.srq_held && srq != qp->srq))
		return false;
	qp->srq = srq;
	qp->pd = srq->pd;
	qp->recv_cq = srq->cq;
	qp->resp.xrc_srqn = srqn;
	qp->resp.xrc_live = true;
	return true;
}

/*
 * The exclusive holders of eng_rwsem (the engine's passes, admin
 * commands): every QP of an SRQ that broke goes to ERR
 * (orca_soft_srq_broken()).  An XRC_TGT QP only borrows SRQs: it goes
 * to ERR if it takes a message into one (orca_soft_recv_need()).
 * Return the QPs moved.
 */
int orca_soft_srq_err_spread(struct orca_soft_dev *sdev)
{
	struct orca_soft_srq *srq;
	struct orca_soft_qp *qp;
	unsigned long i, j;
	int n = 0;

	if (!sdev->srq_err_owed)
		return 0;
	sdev->srq_err_owed = false;
	xa_for_each(&sdev->srqs, i, srq) {
		if (!srq->err_owed)
			continue;
		srq->err_owed = false;
		xa_for_each(&sdev->qps, j, qp) {
			if (qp->srq == srq && qp->type != ORCA_QPT_XRC_TGT &&
			    qp->state != ORCA_QPS_ERR) {
				orca_soft_qp_set_err(sdev, qp);
				n++;
			}
		}
	}
	return n;
}

void orca_soft_srq_reset(struct orca_soft_dev *sdev)
{
	struct orca_soft_srq *srq;
	unsigned long idx;

	xa_for_each(&sdev->srqs, idx, srq)
		orca_soft_srq_free(sdev, srq);
}
