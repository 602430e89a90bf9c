// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: queue pairs.
 *
 * CREATE_QP records the QP's rings (contiguous, or since interface 1.7
 * paged: orca_soft_pbl.c), geometry and doorbell records for the data
 * path and takes references on its PD, CQs and SRQ.  The engine
 * (orca_soft_engine.c) is told about state changes: RTS starts posted
 * WQEs, ERR flushes them, RESET forgets them.
 * MODIFY_QP checks the attribute mask against the state table
 * (orca_soft_qp_fsm.c), then every value the mask names, and only then
 * applies anything.  QUERY_QP returns what was set.
 */

#include <linux/bitfield.h>
#include <linux/slab.h>
#include <rdma/orca-abi.h>

#include "orca_soft.h"
#include "orca_soft_dp.h"
#include "orca_soft_engine.h"
#include "orca_soft_qp_fsm.h"

#define ORCA_QP_INFO_ALL	(ORCA_QP_INFO_TYPE | ORCA_QP_INFO_SQ_SIG_ALL | \
				 ORCA_QP_INFO_USE_SRQ)
#define ORCA_SOFT_QPN_MASK	GENMASK(23, 0)
#define ORCA_SOFT_MAX_TIMEOUT	31
#define ORCA_SOFT_MAX_RETRY	7
#define ORCA_SOFT_MAX_RNR_TIMER	31
#define ORCA_SOFT_MTU_MIN	1	/* 256 bytes, as IB_MTU_256 */
#define ORCA_SOFT_MTU_MAX	5	/* 4096 bytes, as IB_MTU_4096 */
#define ORCA_SOFT_MIG_MAX	2	/* MIGRATED, REARM, ARMED */

struct orca_soft_qp *orca_soft_qp_find(struct orca_soft_dev *sdev, u32 qpn)
{
	return xa_load(&sdev->qps, qpn);
}

static bool orca_soft_wq_addrs_ok(struct orca_soft_dev *sdev,
				  const struct orca_soft_wq *wq)
{
	return orca_soft_ring_ok(sdev, &wq->ring, orca_soft_wq_bytes(wq)) &&
	       wq->db_addr && IS_ALIGNED(wq->db_addr, ORCA_DB_RECORD_SIZE);
}

/*
 * A QP's scratch space (CREATE_QP): whoever runs its send side or
 * delivers to it uses its own, never one shared by the device.
 */
static void orca_soft_qp_scratch_free(struct orca_soft_qp *qp)
{
	kvfree(qp->req_scr);
	qp->req_scr = NULL;
	kvfree(qp->resp_scr);
	qp->resp_scr = NULL;
}

static int orca_soft_qp_scratch_alloc(struct orca_soft_qp *qp)
{
	u32 held = orca_soft_qp_is_ud(qp) ? ORCA_SOFT_HELD_CQES : 1;

	qp->req_scr = orca_soft_table_alloc(1, struct_size(qp->req_scr, held,
							   held));
	qp->resp_scr = orca_soft_table_alloc(1, sizeof(*qp->resp_scr));
	if (!qp->req_scr || !qp->resp_scr) {
		orca_soft_qp_scratch_free(qp);
		return -ENOMEM;
	}
	qp->req_scr->max_held = held;
	return 0;
}

/* Check everything in @in that does not name another object. */
static u8 orca_soft_create_qp_check(struct orca_soft_dev *sdev,
				    const struct orca_hw_create_qp *in,
				    struct orca_soft_qp *qp)
{
	u32 info = le32_to_cpu(in->info);
	bool use_srq = info & ORCA_QP_INFO_USE_SRQ;
	u8 sts;

	if (!orca_soft_rsvd_clear(in->rsvd, sizeof(in->rsvd)) ||
	    (info & ~ORCA_QP_INFO_ALL))
		return ORCA_AQ_STS_BAD_PARAM;
	qp->type = FIELD_GET(ORCA_QP_INFO_TYPE, info);
	if (qp->type < ORCA_QPT_GSI || qp->type > ORCA_QPT_XRC_TGT)
		return ORCA_AQ_STS_UNSUPPORTED;
	/* An SRQ serves RC and UD QPs only. */
	if (use_srq && qp->type != ORCA_QPT_RC && qp->type != ORCA_QPT_UD)
		return ORCA_AQ_STS_BAD_PARAM;
	if (!use_srq && in->srqn)
		return ORCA_AQ_STS_BAD_PARAM;
	if (qp->type != ORCA_QPT_XRC_TGT && in->xrcdn)
		return ORCA_AQ_STS_BAD_PARAM;
	/* An XRC_TGT QP has no queue, CQ or PD: only its domain. */
	if (qp->type == ORCA_QPT_XRC_TGT)
		return info == FIELD_PREP(ORCA_QP_INFO_TYPE, qp->type) &&
		       !in->pdn && !in->send_cqn && !in->recv_cqn &&
		       !in->sq_cfg && !in->rq_cfg && !in->max_inline &&
		       !in->sq_addr && !in->rq_addr && !in->sq_db_addr &&
		       !in->rq_db_addr ? ORCA_AQ_STS_OK : ORCA_AQ_STS_BAD_PARAM;
	qp->sq_sig_all = info & ORCA_QP_INFO_SQ_SIG_ALL;

	/* UD and GSI send WQEs carry an address vector after the header. */
	qp->sq_hdr = qp->type == ORCA_QPT_UD || qp->type == ORCA_QPT_GSI ?
		     ORCA_UD_SEND_WQE_HDR_SIZE : ORCA_SEND_WQE_HDR_SIZE;
	sts = orca_soft_wq_cfg(le32_to_cpu(in->sq_cfg), qp->sq_hdr, &qp->sq);
	if (sts)
		return sts;
	qp->sq.ring.addr = le64_to_cpu(in->sq_addr);
	qp->sq.db_addr = le64_to_cpu(in->sq_db_addr);
	qp->max_inline = le32_to_cpu(in->max_inline);
	if (!orca_soft_wq_addrs_ok(sdev, &qp->sq) ||
	    qp->max_inline > ORCA_SOFT_MAX_INLINE ||
	    qp->sq_hdr + qp->max_inline > BIT(qp->sq.log2_stride))
		return ORCA_AQ_STS_BAD_PARAM;

	/* With an SRQ, the RQ fields are ignored. */
	if (use_srq)
		return ORCA_AQ_STS_OK;
	/* An XRC_INI QP sends only. */
	if (qp->type == ORCA_QPT_XRC_INI)
		return !in->recv_cqn && !in->rq_cfg && !in->rq_addr &&
		       !in->rq_db_addr ? ORCA_AQ_STS_OK : ORCA_AQ_STS_BAD_PARAM;
	sts = orca_soft_wq_cfg(le32_to_cpu(in->rq_cfg), ORCA_RECV_WQE_HDR_SIZE,
			       &qp->rq);
	if (sts)
		return sts;
	qp->rq.ring.addr = le64_to_cpu(in->rq_addr);
	qp->rq.db_addr = le64_to_cpu(in->rq_db_addr);
	if (!orca_soft_wq_addrs_ok(sdev, &qp->rq))
		return ORCA_AQ_STS_BAD_PARAM;
	return ORCA_AQ_STS_OK;
}

/* Look up the objects @in names; all must exist, the SRQ in the QP's PD. */
static u8 orca_soft_create_qp_refs(struct orca_soft_dev *sdev,
				   const struct orca_hw_create_qp *in,
				   struct orca_soft_qp *qp)
{
	if (qp->type == ORCA_QPT_XRC_TGT) {
		qp->xrcd = orca_soft_xrcd_find(sdev, le32_to_cpu(in->xrcdn));
		return qp->xrcd ? ORCA_AQ_STS_OK : ORCA_AQ_STS_BAD_HANDLE;
	}
	qp->pd = orca_soft_pd_find(sdev, le32_to_cpu(in->pdn));
	qp->send_cq = orca_soft_cq_find(sdev, le32_to_cpu(in->send_cqn));
	if (qp->type != ORCA_QPT_XRC_INI)
		qp->recv_cq = orca_soft_cq_find(sdev,
						le32_to_cpu(in->recv_cqn));
	if (!qp->pd || !qp->send_cq ||
	    (!qp->recv_cq && qp->type != ORCA_QPT_XRC_INI))
		return ORCA_AQ_STS_BAD_HANDLE;
	if (!(le32_to_cpu(in->info) & ORCA_QP_INFO_USE_SRQ))
		return ORCA_AQ_STS_OK;
	qp->srq = orca_soft_srq_find(sdev, le32_to_cpu(in->srqn));
	if (!qp->srq)
		return ORCA_AQ_STS_BAD_HANDLE;
	if (qp->srq->pd != qp->pd || qp->srq->xrcd)
		return ORCA_AQ_STS_BAD_PARAM;
	return ORCA_AQ_STS_OK;
}

/*
 * Copy the page lists of the QP's paged rings, once create_qp_refs()
 * has told whether it has an RQ of its own.  On failure, a ring already
 * loaded is released with the QP.
 */
static u8 orca_soft_qp_rings_load(struct orca_soft_dev *sdev,
				  struct orca_soft_qp *qp)
{
	u8 sts;

	if (orca_soft_qp_has_sq(qp)) {
		sts = orca_soft_ring_load(sdev, &qp->sq.ring,
					  orca_soft_wq_bytes(&qp->sq));
		if (sts)
			return sts;
	}
	if (orca_soft_qp_has_rq(qp))
		return orca_soft_ring_load(sdev, &qp->rq.ring,
					   orca_soft_wq_bytes(&qp->rq));
	return ORCA_AQ_STS_OK;
}

static void orca_soft_qp_rings_release(struct orca_soft_qp *qp)
{
	orca_soft_ring_release(&qp->rq.ring);
	orca_soft_ring_release(&qp->sq.ring);
}

/* Take (@d 1) or drop (-1) the references of a QP on the objects it uses. */
static void orca_soft_qp_refs(struct orca_soft_qp *qp, int d)
{
	if (qp->type == ORCA_QPT_XRC_TGT) {
		qp->xrcd->users += d;
		return;
	}
	qp->pd->users += d;
	qp->send_cq->users += d;
	if (qp->recv_cq)
		qp->recv_cq->users += d;
	if (qp->srq)
		qp->srq->users += d;
}

u8 orca_soft_create_qp(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd,
		       struct orca_soft_cmd_out *out)
{
	const struct orca_cmd_mbox_in *c = &cmd->mbox_in;
	struct orca_hw_create_qp in;
	struct orca_soft_qp *qp;
	u8 sts;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	sts = orca_soft_get_input(sdev, le64_to_cpu(c->in_addr),
				  le32_to_cpu(c->in_len), &in, sizeof(in));
	if (sts)
		return sts;

	qp = kzalloc(sizeof(*qp), ORCA_SOFT_GFP);
	if (!qp)
		return ORCA_AQ_STS_NO_RESOURCES;
	mutex_init(&qp->lock);
	sts = orca_soft_create_qp_check(sdev, &in, qp);
	if (sts)
		goto err_free;
	if (orca_soft_qp_is_rc(qp) && orca_soft_qp_has_sq(qp)) {
		qp->req.swqe = orca_soft_table_alloc(ORCA_SOFT_SWQES,
						     sizeof(*qp->req.swqe));
		if (!qp->req.swqe) {
			sts = ORCA_AQ_STS_NO_RESOURCES;
			goto err_free;
		}
	}
	if (orca_soft_qp_scratch_alloc(qp)) {
		sts = ORCA_AQ_STS_NO_RESOURCES;
		goto err_free;
	}
	sts = orca_soft_create_qp_refs(sdev, &in, qp);
	if (sts)
		goto err_free;
	sts = orca_soft_qp_rings_load(sdev, qp);
	if (sts)
		goto err_free;
	if (qp->srq || qp->type == ORCA_QPT_XRC_TGT) {
		qp->srq_wqe = kmalloc(ORCA_SOFT_SRQ_WQE_MAX, ORCA_SOFT_GFP);
		if (!qp->srq_wqe) {
			sts = ORCA_AQ_STS_NO_RESOURCES;
			goto err_free;
		}
	}

	sts = ORCA_AQ_STS_NO_RESOURCES;
	if (sdev->counts.qps >= ORCA_SOFT_MAX_QP)
		goto err_free;
	if (qp->type == ORCA_QPT_GSI) {
		/* One GSI QP, always QP1. */
		qp->qpn = ORCA_SOFT_GSI_QPN;
		if (xa_insert(&sdev->qps, qp->qpn, qp, ORCA_SOFT_GFP))
			goto err_free;
	} else if (xa_alloc_cyclic(&sdev->qps, &qp->qpn, qp,
				   XA_LIMIT(ORCA_SOFT_GSI_QPN + 1,
					    ORCA_SOFT_MAX_QPN),
				   &sdev->qpn_next, ORCA_SOFT_GFP) < 0) {
		goto err_free;
	}

	qp->state = ORCA_QPS_RESET;
	INIT_LIST_HEAD(&qp->active_node);
	INIT_LIST_HEAD(&qp->wait_node);
	INIT_LIST_HEAD(&qp->timer_node);
	INIT_LIST_HEAD(&qp->resp.ack_node);
	orca_soft_qp_refs(qp, 1);
	sdev->counts.qps++;
	out->result = qp->qpn;
	return ORCA_AQ_STS_OK;

err_free:
	orca_soft_qp_rings_release(qp);
	kfree(qp->srq_wqe);
	orca_soft_qp_scratch_free(qp);
	kvfree(qp->req.swqe);
	mutex_destroy(&qp->lock);
	kfree(qp);
	return sts;
}

/* Check the value of every attribute @mask names. */
static u8 orca_soft_qp_values_ok(struct orca_soft_dev *sdev,
				 const struct orca_hw_qp_attr *in, u32 mask)
{
	if ((mask & ORCA_QP_ATTR_EN_SQD_ASYNC) && in->en_sqd_async > 1)
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_ACCESS_FLAGS) &&
	    (le32_to_cpu(in->access) & ~ORCA_ACCESS_ALL))
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_PKEY_INDEX) && le16_to_cpu(in->pkey_index))
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_PORT) && in->port != 1)
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_AV) &&
	    (!orca_soft_sgid_ok(sdev, FIELD_GET(ORCA_AH_SGID_INDEX,
						le32_to_cpu(in->av_info))) ||
	     !orca_soft_vlan_ok(le16_to_cpu(in->vlan))))
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_PATH_MTU) &&
	    (in->path_mtu < ORCA_SOFT_MTU_MIN ||
	     in->path_mtu > ORCA_SOFT_MTU_MAX))
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_TIMEOUT) && in->timeout > ORCA_SOFT_MAX_TIMEOUT)
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_RETRY_CNT) &&
	    in->retry_cnt > ORCA_SOFT_MAX_RETRY)
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_RNR_RETRY) &&
	    in->rnr_retry > ORCA_SOFT_MAX_RETRY)
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_MIN_RNR_TIMER) &&
	    in->min_rnr_timer > ORCA_SOFT_MAX_RNR_TIMER)
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_RQ_PSN) &&
	    (le32_to_cpu(in->rq_psn) & ~ORCA_SOFT_PSN_MASK))
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_SQ_PSN) &&
	    (le32_to_cpu(in->sq_psn) & ~ORCA_SOFT_PSN_MASK))
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_DEST_QPN) &&
	    (le32_to_cpu(in->dest_qpn) & ~ORCA_SOFT_QPN_MASK))
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_MAX_QP_RD_ATOMIC) &&
	    in->max_rd_atomic > ORCA_SOFT_MAX_RD_ATOM)
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC) &&
	    in->max_dest_rd_atomic > ORCA_SOFT_MAX_RD_ATOM)
		return ORCA_AQ_STS_BAD_PARAM;
	if ((mask & ORCA_QP_ATTR_PATH_MIG_STATE) &&
	    in->path_mig_state > ORCA_SOFT_MIG_MAX)
		return ORCA_AQ_STS_BAD_PARAM;
	return ORCA_AQ_STS_OK;
}

static void orca_soft_qp_apply(struct orca_soft_qp *qp,
			       const struct orca_hw_qp_attr *in, u32 mask)
{
	struct orca_hw_qp_attr *a = &qp->attr;

	if (mask & ORCA_QP_ATTR_EN_SQD_ASYNC)
		a->en_sqd_async = in->en_sqd_async;
	if (mask & ORCA_QP_ATTR_ACCESS_FLAGS)
		a->access = in->access;
	if (mask & ORCA_QP_ATTR_PKEY_INDEX)
		a->pkey_index = in->pkey_index;
	if (mask & ORCA_QP_ATTR_PORT)
		a->port = in->port;
	if (mask & ORCA_QP_ATTR_QKEY)
		a->qkey = in->qkey;
	if (mask & ORCA_QP_ATTR_PATH_MTU)
		a->path_mtu = in->path_mtu;
	if (mask & ORCA_QP_ATTR_TIMEOUT)
		a->timeout = in->timeout;
	if (mask & ORCA_QP_ATTR_RETRY_CNT)
		a->retry_cnt = in->retry_cnt;
	if (mask & ORCA_QP_ATTR_RNR_RETRY)
		a->rnr_retry = in->rnr_retry;
	if (mask & ORCA_QP_ATTR_RQ_PSN)
		a->rq_psn = in->rq_psn;
	if (mask & ORCA_QP_ATTR_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = in->max_rd_atomic;
	if (mask & ORCA_QP_ATTR_MIN_RNR_TIMER)
		a->min_rnr_timer = in->min_rnr_timer;
	if (mask & ORCA_QP_ATTR_SQ_PSN)
		a->sq_psn = in->sq_psn;
	if (mask & ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = in->max_dest_rd_atomic;
	if (mask & ORCA_QP_ATTR_PATH_MIG_STATE)
		a->path_mig_state = in->path_mig_state;
	if (mask & ORCA_QP_ATTR_DEST_QPN)
		a->dest_qpn = in->dest_qpn;
	if (mask & ORCA_QP_ATTR_AV) {
		memcpy(a->dgid, in->dgid, sizeof(a->dgid));
		a->av_info = in->av_info;
		a->hop_limit = in->hop_limit;
		a->traffic_class = in->traffic_class;
		ether_addr_copy(a->dmac, in->dmac);
		a->vlan = in->vlan;
	}
	qp->attr_set |= mask & ~(ORCA_QP_ATTR_STATE | ORCA_QP_ATTR_CUR_STATE);
}

u8 orca_soft_modify_qp(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_modify_qp *c = &cmd->modify_qp;
	struct orca_hw_qp_attr in;
	struct orca_soft_qp *qp;
	u8 sts, cur, next;
	u32 mask;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	qp = orca_soft_qp_find(sdev, le32_to_cpu(c->qpn));
	if (!qp)
		return ORCA_AQ_STS_BAD_HANDLE;
	sts = orca_soft_get_input(sdev, le64_to_cpu(c->in_addr),
				  le32_to_cpu(c->in_len), &in, sizeof(in));
	if (sts)
		return sts;
	if (in.rsvd0 ||
	    !orca_soft_rsvd_clear(in.rsvd1, sizeof(in.rsvd1)) ||
	    !orca_soft_rsvd_clear(in.rsvd2, sizeof(in.rsvd2)))
		return ORCA_AQ_STS_BAD_PARAM;

	mask = le32_to_cpu(in.attr_mask);
	cur = qp->state;
	next = (mask & ORCA_QP_ATTR_STATE) ? in.qp_state : cur;
	if (next >= ORCA_QPS_NUM)
		return ORCA_AQ_STS_BAD_PARAM;
	sts = orca_qp_modify_check(qp->type, cur, next, mask);
	if (sts)
		return sts;
	/* The caller's idea of the current state must be right. */
	if ((mask & ORCA_QP_ATTR_CUR_STATE) && in.cur_qp_state != cur)
		return ORCA_AQ_STS_BAD_STATE;
	sts = orca_soft_qp_values_ok(sdev, &in, mask);
	if (sts)
		return sts;

	if (next == ORCA_QPS_RESET) {
		/* Back to the state CREATE_QP left it in. */
		memset(&qp->attr, 0, sizeof(qp->attr));
		qp->attr_set = 0;
	}
	orca_soft_qp_apply(qp, &in, mask);
	if (next == ORCA_QPS_ERR)
		orca_soft_qp_set_err(sdev, qp);
	else
		qp->state = next;
	orca_soft_qp_modified(sdev, qp, cur, mask);

	/*
	 * SQD starts no WQE: QP_SQ_DRAINED once those in progress are done
	 * (at once unless a message is on the wire, orca_soft_sqd_check).
	 */
	qp->sqd_notify = next == ORCA_QPS_SQD &&
			 (cur == ORCA_QPS_SQD ? qp->sqd_notify :
						!!qp->attr.en_sqd_async);
	orca_soft_sqd_check(sdev, qp);
	return ORCA_AQ_STS_OK;
}

u8 orca_soft_query_qp(struct orca_soft_dev *sdev,
		      const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_handle *c = &cmd->handle;
	struct orca_hw_qp_attr attr;
	struct orca_soft_qp *qp;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	qp = orca_soft_qp_find(sdev, le32_to_cpu(c->handle));
	if (!qp)
		return ORCA_AQ_STS_BAD_HANDLE;

	attr = qp->attr;
	/* The PSNs the data path has reached. */
	attr.sq_psn = cpu_to_le32(qp->req.sq_psn);
	attr.rq_psn = cpu_to_le32(qp->resp.rq_psn);
	attr.attr_mask = cpu_to_le32(qp->attr_set | ORCA_QP_ATTR_STATE |
				     ORCA_QP_ATTR_CAP);
	attr.qp_state = qp->state;
	attr.cur_qp_state = qp->state;
	attr.sq_draining = 0;
	if (orca_soft_qp_has_sq(qp)) {
		attr.max_send_wr = cpu_to_le32(BIT(qp->sq.log2_depth));
		attr.max_send_sge = cpu_to_le32(qp->sq.max_sge);
		attr.max_inline = cpu_to_le32(qp->max_inline);
	}
	if (orca_soft_qp_has_rq(qp)) {
		attr.max_recv_wr = cpu_to_le32(BIT(qp->rq.log2_depth));
		attr.max_recv_sge = cpu_to_le32(qp->rq.max_sge);
	}
	return orca_soft_put_output(sdev, cmd, &attr, sizeof(attr));
}

static void orca_soft_qp_free(struct orca_soft_dev *sdev,
			      struct orca_soft_qp *qp)
{
	orca_soft_qp_unlink(qp);
	xa_erase(&sdev->qps, qp->qpn);
	orca_soft_qp_refs(qp, -1);
	sdev->counts.qps--;
	orca_soft_qp_rings_release(qp);
	kfree(qp->srq_wqe);
	orca_soft_qp_scratch_free(qp);
	kvfree(qp->req.swqe);
	mutex_destroy(&qp->lock);
	kfree(qp);
}

u8 orca_soft_destroy_qp(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_handle *c = &cmd->handle;
	struct orca_soft_qp *qp;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	qp = orca_soft_qp_find(sdev, le32_to_cpu(c->handle));
	if (!qp)
		return ORCA_AQ_STS_BAD_HANDLE;
	/* ib_core may have forgotten an attachment whose detach failed. */
	orca_soft_mcast_detach_qp(sdev, qp);
	/* Type 2 windows bound through it become free. */
	orca_soft_mw_qp_gone(sdev, qp);
	/*
	 * A doorbell written before the command is seen before it: the
	 * datagrams a UD or GSI QP had posted are sent first.  Connected
	 * QPs' unstarted WQEs are dropped with the QP.
	 */
	if (orca_soft_qp_is_ud(qp) && qp->state == ORCA_QPS_RTS &&
	    qp->req.wait == ORCA_SOFT_WAIT_NONE)
		orca_soft_sq_run(sdev, qp, BIT(qp->sq.log2_depth));
	orca_soft_qp_free(sdev, qp);
	return ORCA_AQ_STS_OK;
}

void orca_soft_qp_reset(struct orca_soft_dev *sdev)
{
	struct orca_soft_qp *qp;
	unsigned long idx;

	xa_for_each(&sdev->qps, idx, qp)
		orca_soft_qp_free(sdev, qp);
}
