// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: the requester.
 *
 * For a QP in RTS the engine executes the send WQEs between the device's
 * SQ index and the SQ record's prod, in order.  Each WQE is copied out of
 * the ring, then validated on the copy: opcode for the QP type, flags,
 * num_sge, inline length, keys (in the QP's PD) and bounds.
 *
 * A request travels as RoCEv2 would carry it: it takes
 * max(1, ceil(len / path_mtu)) PSNs (a READ as many as its response
 * packets, an atomic one) and is answered by ACK, NAK or RNR NAK.  When
 * the destination GID is one of the port's own, the local responder
 * executes it at once (orca_soft_resp.c), one copy from source to
 * destination memory.  Any other destination is the wire: RC and UC QPs
 * then run orca_soft_wire_req.c's requester, UD datagrams are sent as
 * one packet each and complete once sent.
 *
 * Requester error completions move the QP to the error state (for every
 * QP type: the device has no SQE handling).
 *
 * On-demand paging: the pages of a WQE's own buffer are checked before
 * it is executed.  A page fault there, or in the responder's memory when
 * the responder is local, leaves the WQE where it is and the QP waits
 * (orca_soft_odp_park()); a failed page completes it with LOC_PROT_ERR.
 */

#include <linux/bitfield.h>

#include "orca_ring.h"
#include "orca_soft_engine.h"

#define ORCA_WQE_FLAGS_ALL	(ORCA_WQE_FLAG_SIGNALED | ORCA_WQE_FLAG_SOLICITED | \
				 ORCA_WQE_FLAG_INLINE | ORCA_WQE_FLAG_FENCE)
#define ORCA_WQE_CTRL_RSVD	0xff000000U
#define ORCA_UD_QKEY_FROM_QP	0x80000000U
#define ORCA_SOFT_MCAST_QPN	0x00ffffffU

u8 orca_soft_wqe_cqe_opcode(u8 op)
{
	switch (op) {
	case ORCA_WQE_OP_RDMA_WRITE:
	case ORCA_WQE_OP_RDMA_WRITE_IMM:
		return ORCA_CQE_OP_RDMA_WRITE;
	case ORCA_WQE_OP_RDMA_READ:
		return ORCA_CQE_OP_RDMA_READ;
	case ORCA_WQE_OP_ATOMIC_CMP_SWP:
		return ORCA_CQE_OP_ATOMIC_CMP_SWP;
	case ORCA_WQE_OP_ATOMIC_FETCH_ADD:
		return ORCA_CQE_OP_ATOMIC_FETCH_ADD;
	case ORCA_WQE_OP_LOCAL_INV:
		return ORCA_CQE_OP_LOCAL_INV;
	case ORCA_WQE_OP_REG_MR:
		return ORCA_CQE_OP_REG_MR;
	case ORCA_WQE_OP_BIND_MW:
		return ORCA_CQE_OP_BIND_MW;
	default:
		return ORCA_CQE_OP_SEND;
	}
}

/* Opcodes each QP type executes. */
static bool orca_soft_op_ok(u8 type, u8 op)
{
	bool ud = type == ORCA_QPT_UD || type == ORCA_QPT_GSI;

	switch (op) {
	case ORCA_WQE_OP_SEND:
	case ORCA_WQE_OP_SEND_IMM:
	case ORCA_WQE_OP_LOCAL_INV:
	case ORCA_WQE_OP_REG_MR:
		return true;
	case ORCA_WQE_OP_RDMA_WRITE:
	case ORCA_WQE_OP_RDMA_WRITE_IMM:
	case ORCA_WQE_OP_BIND_MW:
		return !ud;
	case ORCA_WQE_OP_SEND_INV:
	case ORCA_WQE_OP_RDMA_READ:
	case ORCA_WQE_OP_ATOMIC_CMP_SWP:
	case ORCA_WQE_OP_ATOMIC_FETCH_ADD:
		return type == ORCA_QPT_RC || type == ORCA_QPT_XRC_INI;
	default:
		return false;
	}
}

/*
 * Opcodes the shared lane executes for @qp's WQE @wqe: all but those that
 * change a memory window (BIND_MW, an invalidation of a window's key);
 * a FAST_REG region's key changes under the region's own lock
 * (orca_soft_mem.c).  A SEND with invalidate on the wire invalidates the
 * other host's key.
 */
static bool orca_soft_op_shared(struct orca_soft_dev *sdev,
				struct orca_soft_qp *qp,
				const struct orca_send_wqe *wqe, u8 op)
{
	switch (op) {
	case ORCA_WQE_OP_SEND:
	case ORCA_WQE_OP_SEND_IMM:
	case ORCA_WQE_OP_RDMA_WRITE:
	case ORCA_WQE_OP_RDMA_WRITE_IMM:
	case ORCA_WQE_OP_RDMA_READ:
	case ORCA_WQE_OP_ATOMIC_CMP_SWP:
	case ORCA_WQE_OP_ATOMIC_FETCH_ADD:
	case ORCA_WQE_OP_REG_MR:
		return true;
	case ORCA_WQE_OP_SEND_INV:
		if (!orca_soft_req_local(sdev, qp))
			return true;
		fallthrough;
	case ORCA_WQE_OP_LOCAL_INV:
		return orca_soft_key_inv_shared(sdev,
						le32_to_cpu(wqe->imm_inv));
	default:
		return false;
	}
}

/*
 * In the shared lane (@excl set), whether @qp's WQE whose copied header is
 * @wqe must be left to the exclusive holders; *@excl is then set.  Judged
 * on the copy, which is what is then decoded.
 */
bool orca_soft_wqe_refused(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
			   const struct orca_send_wqe *wqe, bool *excl)
{
	u32 ctrl = le32_to_cpu(wqe->ctrl);

	if (!excl || orca_soft_op_shared(sdev, qp, wqe,
					 ctrl & ORCA_WQE_CTRL_OPCODE_MASK))
		return false;
	*excl = true;
	return true;
}

static bool orca_soft_op_is_read_like(u8 op)
{
	return op == ORCA_WQE_OP_RDMA_READ ||
	       op == ORCA_WQE_OP_ATOMIC_CMP_SWP ||
	       op == ORCA_WQE_OP_ATOMIC_FETCH_ADD;
}

/*
 * LOCAL_INV: imm_inv names a FAST_REG region or a type 2 window.  In the
 * shared lane, ORCA_SOFT_REQ_EXCL while other lanes copy through the
 * region.
 */
static u8 orca_soft_local_inv(struct orca_soft_dev *sdev,
			      struct orca_soft_qp *qp, u32 key)
{
	if (!orca_soft_key_inv_ok(sdev, qp, key, false))
		return ORCA_CQE_ST_LOC_PROT_ERR;
	if (orca_soft_key_invalidate(sdev, qp, key, false))
		return ORCA_SOFT_REQ_EXCL;
	return ORCA_CQE_ST_SUCCESS;
}

/* REG_MR: read the page list at @pbl into @mr's translation. */
static u8 orca_soft_fast_reg_pages(struct orca_soft_dev *sdev,
				   struct orca_soft_qp *qp,
				   struct orca_soft_mr *mr, u64 pbl,
				   u64 npages, u64 pgsz)
{
	__le64 *bounce = qp->req_scr->pbl;
	u32 per = ARRAY_SIZE(qp->req_scr->pbl);
	u32 i, done;

	for (done = 0; done < npages; done += per) {
		u32 n = min_t(u64, per, npages - done);

		if (orca_soft_dma_read(sdev, pbl + done * sizeof(*bounce),
				       bounce, n * sizeof(*bounce)))
			return ORCA_CQE_ST_LOC_PROT_ERR;
		for (i = 0; i < n; i++) {
			u64 a = le64_to_cpu(bounce[i]);

			if (!a || !IS_ALIGNED(a, pgsz))
				return ORCA_CQE_ST_LOC_PROT_ERR;
			mr->pages[done + i] = a;
		}
	}
	return ORCA_CQE_ST_SUCCESS;
}

/*
 * REG_MR (kernel fast register, struct orca_wqe_reg_mr): an invalid
 * FAST_REG region of the QP's PD gets a new key variant, translation and
 * rights, and becomes valid.  Any violation is LOC_PROT_ERR.  In the
 * shared lane the region is claimed (busy, a new generation) while its
 * translation is written, and only while no lane copies through the old
 * one (an invalidation may still be draining): else ORCA_SOFT_REQ_EXCL,
 * for the exclusive holders.  A second REG_MR meanwhile finds it taken,
 * as it would find it valid afterwards.  No lane reads an invalid
 * region's translation.
 */
static u8 orca_soft_fast_reg(struct orca_soft_dev *sdev,
			     struct orca_soft_qp *qp,
			     const struct orca_wqe_reg_mr *r)
{
	u32 key = le32_to_cpu(r->key);
	u32 info = le32_to_cpu(r->info);
	u32 access = FIELD_GET(ORCA_WQE_REG_MR_ACCESS, info);
	u8 shift = FIELD_GET(ORCA_WQE_REG_MR_PAGE_SHIFT, info);
	u64 iova = le64_to_cpu(r->iova);
	u64 length = le64_to_cpu(r->length);
	u64 pbl = le64_to_cpu(r->pbl_addr);
	struct orca_soft_mr *mr;
	u64 pgsz, npages;
	u8 st;

	mr = xa_load(&sdev->mrs, FIELD_GET(ORCA_MR_KEY_INDEX, key));
	if (!mr || !(mr->flags & ORCA_MR_FLAG_FAST_REG) || mr->pd != qp->pd)
		return ORCA_CQE_ST_LOC_PROT_ERR;
	if ((info & ~(ORCA_WQE_REG_MR_ACCESS | ORCA_WQE_REG_MR_PAGE_SHIFT)) ||
	    length > ORCA_SOFT_MAX_MR_SIZE || iova + length < iova ||
	    (access & ~ORCA_ACCESS_ALL) ||
	    ((access & (ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_ATOMIC)) &&
	     !(access & ORCA_ACCESS_LOCAL_WRITE)) ||
	    shift >= 64 || !(ORCA_SOFT_PAGE_SIZE_CAP & BIT_ULL(shift)) ||
	    !IS_ALIGNED(pbl, sizeof(u64)))
		return ORCA_CQE_ST_LOC_PROT_ERR;
	pgsz = BIT_ULL(shift);
	npages = DIV_ROUND_UP((iova & (pgsz - 1)) + length, pgsz);
	if (npages > mr->num_pages)
		return ORCA_CQE_ST_LOC_PROT_ERR;

	/* A REG_MR holds no pin (the lane's units end with a WQE). */
	spin_lock(&mr->pin_lock);
	if (mr->valid || mr->busy) {
		st = ORCA_CQE_ST_LOC_PROT_ERR;
	} else if (qp->lane_pins && mr->pins) {
		st = ORCA_SOFT_REQ_EXCL;
	} else {
		st = ORCA_CQE_ST_SUCCESS;
		mr->busy = true;
		WRITE_ONCE(mr->gen, mr->gen + 1);
	}
	spin_unlock(&mr->pin_lock);
	if (st != ORCA_CQE_ST_SUCCESS)
		return st;

	st = orca_soft_fast_reg_pages(sdev, qp, mr, pbl, npages, pgsz);
	spin_lock(&mr->pin_lock);
	if (st == ORCA_CQE_ST_SUCCESS) {
		mr->key = key;
		mr->iova = iova;
		mr->length = length;
		mr->access = access;
		mr->page_shift = shift;
		mr->valid = true;
	}
	mr->busy = false;
	spin_unlock(&mr->pin_lock);
	return st;
}

/* RC/UC: is the AV's GID one of the port's own (the local fast path)? */
bool orca_soft_req_local(struct orca_soft_dev *sdev, struct orca_soft_qp *qp)
{
	if (!qp->req.gid_gen || qp->req.gid_gen != sdev->gid_gen) {
		qp->req.dest_local = orca_soft_gid_is_local(sdev, qp->attr.dgid);
		qp->req.gid_gen = sdev->gid_gen;
	}
	return qp->req.dest_local;
}

/* RC/UC: the destination QP, if the AV's GID is the port's own. */
static struct orca_soft_qp *orca_soft_req_dest(struct orca_soft_dev *sdev,
					       struct orca_soft_qp *qp)
{
	struct orca_soft_qp *dqp;

	if (!orca_soft_req_local(sdev, qp))
		return NULL;
	dqp = orca_soft_qp_find(sdev, le32_to_cpu(qp->attr.dest_qpn));
	/*
	 * Connected: the peer must be of our type (XRC_TGT for XRC_INI)
	 * and connected to us.
	 */
	if (!dqp || dqp->type != (qp->type == ORCA_QPT_XRC_INI ?
				  ORCA_QPT_XRC_TGT : qp->type) ||
	    le32_to_cpu(dqp->attr.dest_qpn) != qp->qpn)
		return NULL;
	return dqp;
}

static void orca_soft_count_tx(struct orca_soft_dev *sdev,
			       const struct orca_soft_msg *msg)
{
	orca_soft_count(sdev, ORCA_SOFT_CNT_TX_PACKETS, msg->packets);
	orca_soft_count(sdev, ORCA_SOFT_CNT_TX_BYTES, msg->len);
}

/* RC and UC requests. */
static u8 orca_soft_req_connected(struct orca_soft_dev *sdev,
				  struct orca_soft_qp *qp,
				  struct orca_soft_msg *msg)
{
	u32 mtu = orca_mtu_bytes(qp->attr.path_mtu) ?: 256;
	struct orca_soft_qp *dqp;
	enum orca_soft_answer ans;

	msg->psn = qp->req.sq_psn;
	msg->packets = msg->opcode == ORCA_WQE_OP_ATOMIC_CMP_SWP ||
		       msg->opcode == ORCA_WQE_OP_ATOMIC_FETCH_ADD ?
		       1 : orca_packets(msg->len, mtu);
	if (!qp->req.wqe_started) {
		qp->req.retry_left = qp->attr.retry_cnt;
		qp->req.rnr_retry_left = qp->attr.rnr_retry;
		qp->req.wqe_started = true;
	}

	dqp = orca_soft_req_dest(sdev, qp);
	ans = dqp ? orca_soft_resp_deliver(sdev, dqp, msg) : ORCA_SOFT_SILENT;
	/* Either end's page: nothing was executed, the requester waits. */
	if (ans == ORCA_SOFT_PAGE_FAULT) {
		orca_soft_odp_park(sdev, qp);
		return ORCA_SOFT_REQ_WAIT;
	}
	orca_soft_count_tx(sdev, msg);

	/* UC has no acknowledgements: sent is done. */
	if (!orca_soft_qp_is_rc(qp) || ans == ORCA_SOFT_ACK) {
		qp->req.sq_psn = orca_psn_add(qp->req.sq_psn, msg->packets);
		return ORCA_CQE_ST_SUCCESS;
	}
	switch (ans) {
	case ORCA_SOFT_SILENT:
		if (!qp->req.retry_left)
			return ORCA_CQE_ST_RETRY_EXC_ERR;
		qp->req.retry_left--;
		orca_soft_qp_wait(sdev, qp, ORCA_SOFT_WAIT_ACK,
				  orca_ack_timeout_ns(qp->attr.timeout));
		return ORCA_SOFT_REQ_WAIT;
	case ORCA_SOFT_RNR_NAK:
		/* Both ends are this device's: it sent and received one. */
		orca_soft_count(sdev, ORCA_SOFT_CNT_RNR_NAKS_SENT, 1);
		orca_soft_count(sdev, ORCA_SOFT_CNT_RNR_NAKS_RCVD, 1);
		if (!qp->req.rnr_retry_left)
			return ORCA_CQE_ST_RNR_RETRY_EXC_ERR;
		if (qp->req.rnr_retry_left != ORCA_SOFT_RNR_INFINITE)
			qp->req.rnr_retry_left--;
		orca_soft_qp_wait(sdev, qp, ORCA_SOFT_WAIT_RNR,
				  orca_rnr_timer_us(dqp->attr.min_rnr_timer) *
				  NSEC_PER_USEC);
		return ORCA_SOFT_REQ_WAIT;
	case ORCA_SOFT_NAK_INV_REQ:
		return ORCA_CQE_ST_REM_INV_REQ_ERR;
	case ORCA_SOFT_NAK_ACCESS:
		return ORCA_CQE_ST_REM_ACCESS_ERR;
	default:
		return ORCA_CQE_ST_REM_OP_ERR;
	}
}

/*
 * The address vector a UD WQE carries after its header, copied out of
 * the ring and checked on the copy: a populated source GID, a VLAN id or
 * none, reserved bytes 0.
 */
static const struct orca_av *orca_soft_req_av(struct orca_soft_dev *sdev,
					      struct orca_soft_qp *qp, u64 addr)
{
	struct orca_av *av = &qp->req_scr->av;
	u16 vlan;

	if (orca_soft_dma_read(sdev, addr + ORCA_SEND_WQE_HDR_SIZE, av,
			       sizeof(*av)))
		return NULL;
	vlan = le16_to_cpu(av->vlan);
	if (!orca_soft_sgid_ok(sdev, FIELD_GET(ORCA_AH_SGID_INDEX,
					       le32_to_cpu(av->info))) ||
	    !orca_soft_vlan_ok(vlan) ||
	    !orca_soft_rsvd_clear(av->reserved, sizeof(av->reserved)))
		return NULL;
	return av;
}

/*
 * In the shared lane (@qp's lock held, nothing else), take the locks a
 * datagram to local QP @dqp needs: its own (unless it is @qp) and its
 * SRQ's, only tried.  False if the exclusive holders must deliver it: a
 * lock is taken, or @dqp is the GSI QP.  Its keys are pinned in @qp's
 * lane's list.  They are held to the end of the WQE, once its receive
 * completion is written (orca_soft_ud_unlock()): a datagram from another
 * QP must not complete a later receive of @dqp's before it.
 */
static bool orca_soft_ud_lock(struct orca_soft_qp *qp, struct orca_soft_qp *dqp)
{
	if (dqp->type != ORCA_QPT_UD)
		return false;
	if (dqp != qp && !mutex_trylock(&dqp->lock))
		return false;
	if (dqp->srq && !mutex_trylock(&dqp->srq->lock)) {
		if (dqp != qp)
			mutex_unlock(&dqp->lock);
		return false;
	}
	dqp->lane_pins = qp->lane_pins;
	qp->req_scr->ud_dest = dqp;
	return true;
}

/* The end of @qp's WQE in the lane: let its datagram's destination go. */
static void orca_soft_ud_unlock(struct orca_soft_qp *qp)
{
	struct orca_soft_qp *dqp = qp->req_scr->ud_dest;

	if (!dqp)
		return;
	qp->req_scr->ud_dest = NULL;
	if (dqp->srq)
		mutex_unlock(&dqp->srq->lock);
	if (dqp != qp) {
		dqp->lane_pins = NULL;
		mutex_unlock(&dqp->lock);
	}
}

/*
 * A UD or GSI QP's datagram: to a local QP, a multicast group's members
 * (here and, through the switch, on other hosts), or another host.  In
 * the shared lane (@qp->lane_pins set: UD QPs only) a local destination
 * is locked for the delivery (orca_soft_ud_lock()), and a datagram for a
 * group, or for a destination it cannot lock, is left to the exclusive
 * holders untouched: ORCA_SOFT_REQ_EXCL.
 */
static u8 orca_soft_req_ud(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
			   const struct orca_send_wqe *wqe, u64 addr,
			   struct orca_soft_msg *msg)
{
	u32 qkey = le32_to_cpu(wqe->seg.ud.remote_qkey);
	struct orca_soft_qp *dqp = NULL;
	const struct orca_av *av;
	bool mcast, local;

	if (wqe->seg.ud.reserved0)
		return ORCA_CQE_ST_LOC_QP_OP_ERR;
	av = orca_soft_req_av(sdev, qp, addr);
	if (!av)
		return ORCA_CQE_ST_LOC_QP_OP_ERR;
	if (msg->len > orca_soft_active_mtu(sdev->netdev))
		return ORCA_CQE_ST_LOC_LEN_ERR;
	mcast = orca_soft_gid_is_mcast(av->dgid);
	local = !mcast && orca_soft_gid_is_local(sdev, av->dgid);
	if (local) {
		dqp = orca_soft_qp_find(sdev, le32_to_cpu(wqe->seg.ud.remote_qpn) &
					ORCA_SOFT_MCAST_QPN);
		if (dqp && !orca_soft_qp_is_ud(dqp))
			dqp = NULL;
	}
	if (qp->lane_pins && (mcast || (dqp && !orca_soft_ud_lock(qp, dqp))))
		return ORCA_SOFT_REQ_EXCL;
	/* A Q_Key with the high bit set means "the QP's own" (IBTA). */
	if (qkey & ORCA_UD_QKEY_FROM_QP)
		qkey = le32_to_cpu(qp->attr.qkey);
	msg->qkey = qkey;
	msg->av = av;
	msg->psn = qp->req.sq_psn;
	msg->packets = 1;
	qp->req.sq_psn = orca_psn_add(qp->req.sq_psn, 1);

	/* The wire counts the packets it sends itself. */
	if (local)
		orca_soft_count_tx(sdev, msg);
	if (mcast) {
		struct orca_soft_mcg *mcg = orca_soft_mcg_find(sdev, av->dgid);
		u32 i;

		for (i = 0; mcg && i < mcg->nr_qps; i++) {
			dqp = orca_soft_qp_find(sdev, mcg->qpn[i]);
			if (dqp && dqp->type == ORCA_QPT_UD)
				orca_soft_resp_deliver(sdev, dqp, msg);
		}
		/* Other hosts' members, through the switch. */
		orca_soft_wire_send_ud(sdev, qp, msg, ORCA_SOFT_MCAST_QPN);
	} else if (dqp) {
		orca_soft_resp_deliver(sdev, dqp, msg);
	} else if (!local) {
		orca_soft_wire_send_ud(sdev, qp, msg,
				       le32_to_cpu(wqe->seg.ud.remote_qpn) &
				       ORCA_SOFT_MCAST_QPN);
	}
	/* Unanswered or dropped, a datagram was sent. */
	return ORCA_CQE_ST_SUCCESS;
}

/* Reserved fields of a send WQE header must be 0. */
static bool orca_soft_wqe_rsvd_ok(const struct orca_send_wqe *wqe, u8 op,
				  u32 fl, u32 nsge)
{
	if ((le32_to_cpu(wqe->ctrl) & ORCA_WQE_CTRL_RSVD) ||
	    (fl & ~ORCA_WQE_FLAGS_ALL) ||
	    !orca_soft_rsvd_clear(wqe->reserved, sizeof(wqe->reserved)))
		return false;
	if (fl & ORCA_WQE_FLAG_INLINE) {
		if (nsge)
			return false;
	} else if (wqe->inline_len) {
		return false;
	}
	switch (op) {
	case ORCA_WQE_OP_RDMA_WRITE:
	case ORCA_WQE_OP_RDMA_WRITE_IMM:
	case ORCA_WQE_OP_RDMA_READ:
		return !wqe->seg.rdma.reserved;
	case ORCA_WQE_OP_ATOMIC_CMP_SWP:
	case ORCA_WQE_OP_ATOMIC_FETCH_ADD:
		return !wqe->seg.atomic.reserved;
	case ORCA_WQE_OP_LOCAL_INV:
		return !nsge;
	case ORCA_WQE_OP_REG_MR:
		return !nsge;
	case ORCA_WQE_OP_BIND_MW:
		return !nsge && !wqe->seg.bind.reserved;
	default:
		return !wqe->seg.ud.reserved;
	}
}

/*
 * Decode the send WQE copied into the scratch buffer (its header; the
 * rest is read from the ring slot at @addr) and check it on the copy:
 * fill @msg and the local buffer it names (req_scr->local).  LOCAL_INV,
 * REG_MR and BIND_MW are executed here and set *@executed.  Return a CQE
 * status.
 */
u8 orca_soft_req_decode(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
			u64 addr, struct orca_soft_msg *out,
			struct orca_soft_cqe_info *ci, bool *executed)
{
	struct orca_soft_req_scratch *s = qp->req_scr;
	struct orca_send_wqe *wqe = (struct orca_send_wqe *)s->wqe;
	u32 stride = BIT(qp->sq.log2_stride);
	u32 hdr = qp->sq_hdr;
	u32 ctrl = le32_to_cpu(wqe->ctrl);
	u8 op = ctrl & ORCA_WQE_CTRL_OPCODE_MASK;
	u32 fl = (ctrl & ORCA_WQE_CTRL_FLAGS_MASK) >> ORCA_WQE_CTRL_FLAGS_SHIFT;
	u32 nsge = (ctrl & ORCA_WQE_CTRL_NUM_SGE_MASK) >>
		   ORCA_WQE_CTRL_NUM_SGE_SHIFT;
	struct orca_soft_msg msg = {
		.src = qp,
		.opcode = op,
		.flags = fl,
		.solicited = fl & ORCA_WQE_FLAG_SOLICITED,
		.imm_inv = le32_to_cpu(wqe->imm_inv),
		.local = &s->local,
		.xrc_srqn = le32_to_cpu(wqe->xrc_srqn),
	};
	int ret;

	*executed = false;
	if (!orca_soft_op_ok(qp->type, op) ||
	    !orca_soft_wqe_rsvd_ok(wqe, op, fl, nsge))
		return ORCA_CQE_ST_LOC_QP_OP_ERR;
	/* The target's SRQ: XRC_INI QPs only, 24 bits. */
	if (qp->type == ORCA_QPT_XRC_INI ?
	    msg.xrc_srqn & ~ORCA_WQE_XRC_SRQN_MASK : msg.xrc_srqn)
		return ORCA_CQE_ST_LOC_QP_OP_ERR;
	if (op == ORCA_WQE_OP_LOCAL_INV) {
		*executed = true;
		return orca_soft_local_inv(sdev, qp, msg.imm_inv);
	}
	if (op == ORCA_WQE_OP_REG_MR) {
		*executed = true;
		return orca_soft_fast_reg(sdev, qp, (const void *)&wqe->seg);
	}
	if (op == ORCA_WQE_OP_BIND_MW) {
		*executed = true;
		return orca_soft_bind_mw(sdev, qp, msg.imm_inv, &wqe->seg.bind);
	}

	if (fl & ORCA_WQE_FLAG_INLINE) {
		u32 len = le32_to_cpu(wqe->inline_len);

		if (orca_soft_op_is_read_like(op) || len > qp->max_inline ||
		    hdr + len > stride)
			return ORCA_CQE_ST_LOC_QP_OP_ERR;
		if (orca_soft_dma_read(sdev, addr + hdr, s->wqe + hdr, len))
			return ORCA_CQE_ST_LOC_QP_OP_ERR;
		orca_soft_sgl_kbuf(&s->local, s->wqe + hdr, len);
	} else {
		if (nsge > qp->sq.max_sge)
			return ORCA_CQE_ST_LOC_QP_OP_ERR;
		if (nsge && orca_soft_dma_read(sdev, addr + hdr, s->wqe + hdr,
					       nsge * sizeof(struct orca_sge)))
			return ORCA_CQE_ST_LOC_QP_OP_ERR;
		ret = orca_soft_sgl_resolve(sdev, qp, &s->local,
					    (const struct orca_sge *)(s->wqe +
					    hdr), nsge,
					    orca_soft_op_is_read_like(op) ?
					    ORCA_ACCESS_LOCAL_WRITE : 0);
		if (ret == -EMSGSIZE)
			return ORCA_CQE_ST_LOC_LEN_ERR;
		if (ret)
			return ORCA_CQE_ST_LOC_PROT_ERR;
	}
	msg.len = s->local.len;
	ci->byte_len = msg.len;

	switch (op) {
	case ORCA_WQE_OP_ATOMIC_CMP_SWP:
	case ORCA_WQE_OP_ATOMIC_FETCH_ADD:
		if (msg.len != sizeof(u64))
			return ORCA_CQE_ST_LOC_LEN_ERR;
		msg.remote_addr = le64_to_cpu(wqe->seg.atomic.remote_addr);
		msg.rkey = le32_to_cpu(wqe->seg.atomic.rkey);
		msg.compare_add = le64_to_cpu(wqe->seg.atomic.compare_add);
		msg.swap = le64_to_cpu(wqe->seg.atomic.swap);
		break;
	case ORCA_WQE_OP_RDMA_WRITE:
	case ORCA_WQE_OP_RDMA_WRITE_IMM:
	case ORCA_WQE_OP_RDMA_READ:
		msg.remote_addr = le64_to_cpu(wqe->seg.rdma.remote_addr);
		msg.rkey = le32_to_cpu(wqe->seg.rdma.rkey);
		break;
	default:
		break;
	}
	*out = msg;
	return ORCA_CQE_ST_SUCCESS;
}

/*
 * The on-demand pages of @msg's own buffer (a READ's or atomic's is
 * written): SUCCESS, LOC_PROT_ERR at a failed page, REQ_WAIT at a page
 * fault, with the QP waiting for the page.
 */
static u8 orca_soft_req_pages(struct orca_soft_dev *sdev,
			      struct orca_soft_qp *qp,
			      const struct orca_soft_msg *msg)
{
	int ret;

	ret = orca_soft_sgl_odp_check(sdev, msg->local, 0, msg->local->len,
				      orca_soft_op_is_read_like(msg->opcode));
	if (ret == -EAGAIN) {
		orca_soft_odp_park(sdev, qp);
		return ORCA_SOFT_REQ_WAIT;
	}
	return ret ? ORCA_CQE_ST_LOC_PROT_ERR : ORCA_CQE_ST_SUCCESS;
}

/* Execute the WQE copied into the scratch buffer; a status or REQ_WAIT. */
static u8 orca_soft_req_exec(struct orca_soft_dev *sdev,
			     struct orca_soft_qp *qp, u64 addr,
			     struct orca_soft_cqe_info *ci)
{
	struct orca_send_wqe *wqe = (struct orca_send_wqe *)qp->req_scr->wqe;
	struct orca_soft_msg msg;
	bool executed;
	u8 st;

	st = orca_soft_req_decode(sdev, qp, addr, &msg, ci, &executed);
	if (st != ORCA_CQE_ST_SUCCESS || executed)
		return st;
	st = orca_soft_req_pages(sdev, qp, &msg);
	if (st != ORCA_CQE_ST_SUCCESS)
		return st;
	if (orca_soft_qp_is_ud(qp))
		return orca_soft_req_ud(sdev, qp, wqe, addr, &msg);
	return orca_soft_req_connected(sdev, qp, &msg);
}

/*
 * Execute the WQE at the SQ's cons.  Return false if it must wait (a
 * timer), the ring is unreadable, or (@excl set) the shared lane may not
 * execute it; true once it is done, cons has moved past it and its
 * completion, if any, is written.  A CQE is never visible before the
 * record's cons has passed its WQE: a consumer that polled it may reuse
 * the slot at once.
 */
static bool orca_soft_req_one(struct orca_soft_dev *sdev,
			      struct orca_soft_qp *qp, bool *excl)
{
	struct orca_send_wqe *wqe = (struct orca_send_wqe *)qp->req_scr->wqe;
	struct orca_soft_cqe_info ci = { .qpn = qp->qpn };
	u64 addr = orca_soft_wq_slot(&qp->sq, qp->sq.cons);
	bool signaled;
	u32 ctrl;
	u8 st;

	if (orca_soft_dma_read(sdev, addr, wqe, ORCA_SEND_WQE_HDR_SIZE)) {
		orca_soft_wq_fatal(sdev, qp, &qp->sq);
		return false;
	}
	if (orca_soft_wqe_refused(sdev, qp, wqe, excl))
		return false;
	ctrl = le32_to_cpu(wqe->ctrl);
	ci.wr_id = le64_to_cpu(wqe->wr_id);
	ci.opcode = orca_soft_wqe_cqe_opcode(ctrl & ORCA_WQE_CTRL_OPCODE_MASK);
	signaled = qp->sq_sig_all ||
		   (ctrl & (ORCA_WQE_FLAG_SIGNALED << ORCA_WQE_CTRL_FLAGS_SHIFT));

	st = orca_soft_req_exec(sdev, qp, addr, &ci);
	if (st == ORCA_SOFT_REQ_EXCL) {
		*excl = true;
		return false;
	}
	if (st == ORCA_SOFT_REQ_WAIT) {
		orca_soft_cq_release_held(sdev, qp);
		return false;
	}
	qp->req.wqe_started = false;
	qp->sq.cons++;
	ci.status = st;
	if (signaled || st != ORCA_CQE_ST_SUCCESS || qp->req_scr->nheld)
		orca_soft_dma_write32(sdev, qp->sq.db_addr +
				      offsetof(struct orca_db_record, cons),
				      qp->sq.cons);
	if (signaled || st != ORCA_CQE_ST_SUCCESS)
		orca_soft_cq_complete(sdev, qp->send_cq, &ci);
	/* The responders' receive CQEs, now that the slot is free. */
	orca_soft_cq_release_held(sdev, qp);
	if (st != ORCA_CQE_ST_SUCCESS)
		orca_soft_qp_set_err(sdev, qp);
	return true;
}

/*
 * Execute up to @budget WQEs of @qp's send queue on the local fast path;
 * return how many.  With @excl (the shared lane), stop before a WQE only
 * the engine's exclusive holders may execute, and set *@excl.
 */
static int orca_soft_sq_local(struct orca_soft_dev *sdev,
			      struct orca_soft_qp *qp, int budget, bool *excl)
{
	u32 start = qp->sq.cons;
	int n = 0;
	u32 prod;

	/* Here WQEs run whole: none is in progress in SQD. */
	if (qp->state != ORCA_QPS_RTS)
		return 0;
	if (orca_soft_dma_read32(sdev, qp->sq.db_addr +
				 offsetof(struct orca_db_record, prod), &prod) ||
	    !orca_wq_prod_ok(prod, qp->sq.cons, qp->sq.log2_depth)) {
		orca_soft_wq_fatal(sdev, qp, &qp->sq);
		return 0;
	}
	while (qp->sq.cons != prod && n < budget) {
		bool done = orca_soft_req_one(sdev, qp, excl);

		/*
		 * In the lane, the WQE's data has moved and its completions
		 * are written: its pins and its datagram's destination go.
		 */
		orca_soft_ud_unlock(qp);
		orca_soft_lane_unpin(qp);
		if (!done)
			break;
		n++;
		if (qp->state != ORCA_QPS_RTS)
			break;
	}
	if (qp->sq.cons != start)
		orca_soft_dma_write32(sdev, qp->sq.db_addr +
				      offsetof(struct orca_db_record, cons),
				      qp->sq.cons);
	return n;
}

/*
 * Execute up to @budget WQEs of @qp's SQ (QP in RTS, or in SQD with WQEs
 * in progress on the wire), on the wire or the local fast path; return
 * how many.  @excl as for orca_soft_sq_local().
 */
static int orca_soft_sq_exec(struct orca_soft_dev *sdev,
			     struct orca_soft_qp *qp, int budget, bool *excl)
{
	if (qp->sq.broken)
		return 0;
	if (!orca_soft_qp_is_ud(qp) && !orca_soft_req_local(sdev, qp))
		return orca_soft_wire_sq_run(sdev, qp, budget, excl);
	return orca_soft_sq_local(sdev, qp, budget, excl);
}

/* Run @qp's SQ outside the shared lane (eng_rwsem written). */
int orca_soft_sq_run(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
		     int budget)
{
	return orca_soft_sq_exec(sdev, qp, budget, NULL);
}

/*
 * The shared lane (orca_soft.h; eng_rwsem read, @qp's lock held): the
 * QP whose lock must be held with @qp's for @qp's send queue to run
 * there: its local peer, or @qp itself on the wire, where the peer is
 * another host's, and for a UD QP, whose datagrams lock each local
 * destination in turn (orca_soft_ud_lock()).  NULL if the queue needs
 * the exclusive holders: not an RC, UC or UD QP in RTS with nothing to
 * wait for, or a device with on-demand-paging regions.  READ responses
 * and atomic ACKs a QP owes on the wire go out in the lane, with its
 * own lock, before its send queue runs (orca_soft_sq_run_shared()).  A
 * local peer that takes its receives from an SRQ needs the SRQ's lock
 * too (orca_soft_req_shared_srq()).
 */
struct orca_soft_qp *orca_soft_req_shared_peer(struct orca_soft_dev *sdev,
					       struct orca_soft_qp *qp)
{
	if ((qp->type != ORCA_QPT_RC && qp->type != ORCA_QPT_UC &&
	     qp->type != ORCA_QPT_UD) ||
	    qp->state != ORCA_QPS_RTS || qp->req.wait != ORCA_SOFT_WAIT_NONE ||
	    qp->sq.broken || sdev->odp_mrs)
		return NULL;
	if (qp->type == ORCA_QPT_UD || !orca_soft_req_local(sdev, qp))
		return qp;
	return orca_soft_req_dest(sdev, qp);
}

/*
 * The SRQ whose lock the shared lane must hold, with @qp's and @peer's
 * (orca_soft_req_shared_peer()), to run @qp's send queue: the local
 * peer's, whose WQEs its SENDs take; NULL if none.  On the wire the
 * peer's receives are another host's; a UD QP's datagrams lock their
 * destination's SRQ each.
 */
struct orca_soft_srq *orca_soft_req_shared_srq(struct orca_soft_dev *sdev,
					       struct orca_soft_qp *qp,
					       struct orca_soft_qp *peer)
{
	if (orca_soft_qp_is_ud(qp) || !orca_soft_req_local(sdev, qp))
		return NULL;
	return peer->srq;
}

/*
 * The shared lane: the READ responses and atomic ACKs @qp owes on the
 * wire, then its send queue, its lock and @peer's held
 * (orca_soft_req_shared_peer()), as the exclusive pass orders them.
 * Return the packets and WQEs; *@excl is set if a WQE was left for the
 * exclusive holders, or if a response took the QP to ERR (its queues
 * are flushed there).  The keys both QPs resolve are pinned in @qp's
 * list, one WQE or response packet at a time.
 */
int orca_soft_sq_run_shared(struct orca_soft_dev *sdev,
			    struct orca_soft_qp *qp, struct orca_soft_qp *peer,
			    int budget, bool *excl)
{
	int n = 0;

	*excl = false;
	WARN_ON_ONCE(qp->lane_pins || peer->lane_pins);
	qp->lane_pins = &qp->pins;
	peer->lane_pins = &qp->pins;
	if (qp->resp.rd_busy)
		n = orca_soft_wire_resp_run(sdev, qp, budget);
	if (qp->state == ORCA_QPS_RTS)
		n += orca_soft_sq_exec(sdev, qp, budget, excl);
	else
		*excl = true;
	orca_soft_lane_unpin(qp);
	peer->lane_pins = NULL;
	qp->lane_pins = NULL;
	return n;
}
