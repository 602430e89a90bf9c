// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: the responder on the wire, and the receive dispatch.
 *
 * The engine thread takes received packets off the port's queue
 * (orca_soft_net.c), parses their transport headers and hands requests
 * to the destination QP's responder, responses to its completer
 * (orca_soft_wire_req.c).  A packet for no QP, or for a QP of another
 * transport, is dropped (rx_drops).
 *
 * RC responder: the request with the expected PSN is executed; one with
 * an earlier PSN is a duplicate: SEND and WRITE are acknowledged again,
 * READ and atomics are answered again from the responder resources (the
 * last max_dest_rd_atomic of them, kept with the atomic's original
 * value).  A later PSN means packets were lost: one PSN sequence NAK is
 * sent, until the expected PSN arrives.  A SEND's receive WQE stays at
 * the queue's cons until its last packet; without one, the first packet
 * is answered with an RNR NAK carrying min_rnr_timer.  ACKs are sent for
 * packets that ask for one (AckReq), coalesced: at most one per QP per
 * batch of received packets, for the newest PSN, and never before the
 * READ responses and atomic ACKs that precede it in PSN order.  Errors
 * are answered with the NAK the local fast path uses (orca_soft_resp.c)
 * and move the QP to the error state.
 *
 * UC: a PSN gap drops the message in progress; packets are taken again
 * from the next first (or only) packet.  UD: the Q_Key is checked, the
 * datagram lands after a 40-byte GRH area holding its IP header.
 *
 * On-demand paging: a request's target pages are checked before it is
 * executed (a READ's whole range before it is answered, an atomic's word
 * before it executes).  At a page fault RC does not execute the packet:
 * its PSN stays the expected one and the answer is an RNR NAK with the
 * QP's min_rnr_timer; the message in progress (the receive WQE, the
 * WRITE's target) stays, so the packet sent again continues it.  UC and
 * UD drop the packet.  A failed page is handled as a bounds violation.
 * READ responses check each packet's pages as they go out: at a page
 * fault they wait (orca_soft_odp_hold_resp()) and go on from there.
 */

#include <linux/bitfield.h>

#include "orca_ring.h"
#include "orca_soft_engine.h"

#define ORCA_SOFT_PKEY_BASE	0x7fff
#define ORCA_SOFT_MCAST_QPN	0x00ffffffU
#define ORCA_SOFT_IPV4_OFF	20	/* IPv4 header: last 20 bytes of the GRH */

#define ORCA_SOFT_F_KIND	(ORCA_WIRE_F_SEND | ORCA_WIRE_F_WRITE | \
				 ORCA_WIRE_F_READ | ORCA_WIRE_F_ATOMIC)

static u8 orca_soft_resp_nres(const struct orca_soft_qp *qp)
{
	return clamp_t(u8, qp->attr.max_dest_rd_atomic, 1,
		       ORCA_SOFT_MAX_RD_ATOM);
}

/* ------------------------------------------------------------- answers */

/* The opcode of a response: an XRC_TGT QP answers with RC's XRC twins. */
static u8 orca_soft_wire_resp_op(const struct orca_soft_qp *qp, u8 rc_op)
{
	return qp->type == ORCA_QPT_XRC_TGT ? ORCA_WIRE_XRC_OP(rc_op) : rc_op;
}

static void orca_soft_wire_send_aeth(struct orca_soft_dev *sdev,
				     struct orca_soft_qp *qp, u8 opcode,
				     u8 syndrome, u32 psn, u64 orig)
{
	struct orca_wire_pkt pkt = {
		.opcode = orca_soft_wire_resp_op(qp, opcode),
		.pkey = ORCA_SOFT_PKEY_DEFAULT,
		.dest_qpn = le32_to_cpu(qp->attr.dest_qpn),
		.psn = psn,
		.aeth_syndrome = syndrome,
		.aeth_msn = qp->resp.msn & ORCA_AETH_MSN,
		.atomic_orig = orig,
	};
	struct orca_soft_route rt;

	orca_soft_qp_route(sdev, qp, &rt);
	orca_soft_wire_tx(sdev, &rt, &pkt, NULL, 0);
}

static u8 orca_soft_syn(u8 type, u8 value)
{
	return FIELD_PREP(ORCA_AETH_SYN_TYPE, type) |
	       FIELD_PREP(ORCA_AETH_SYN_VALUE, value);
}

/*
 * Take @qp off eng_acks.  Its node is @qp's (its lock, or the semaphore
 * written); the list's other nodes may be other lanes'.
 */
static void orca_soft_wire_acks_del(struct orca_soft_dev *sdev,
				    struct orca_soft_qp *qp)
{
	if (list_empty(&qp->resp.ack_node))
		return;
	spin_lock(&sdev->eng_lock);
	list_del_init(&qp->resp.ack_node);
	spin_unlock(&sdev->eng_lock);
}

/* ACK everything before rq_psn. */
static void orca_soft_wire_ack(struct orca_soft_dev *sdev,
			       struct orca_soft_qp *qp)
{
	qp->resp.ack_pending = false;
	orca_soft_wire_acks_del(sdev, qp);
	orca_soft_wire_send_aeth(sdev, qp, ORCA_OP_RC_ACK,
				 orca_soft_syn(ORCA_AETH_ACK,
					       ORCA_AETH_CREDITS_INVALID),
				 orca_psn_add(qp->resp.rq_psn, -1U), 0);
}

static void orca_soft_wire_owe_ack(struct orca_soft_dev *sdev,
				   struct orca_soft_qp *qp)
{
	qp->resp.ack_pending = true;
	if (list_empty(&qp->resp.ack_node)) {
		spin_lock(&sdev->eng_lock);
		list_add_tail(&qp->resp.ack_node, &sdev->eng_acks);
		spin_unlock(&sdev->eng_lock);
	}
}

/* The ACK @qp owes after its packets of a batch, if any. */
static void orca_soft_wire_flush_ack(struct orca_soft_dev *sdev,
				     struct orca_soft_qp *qp)
{
	/* Behind READ responses: resp_run sends it after them. */
	if (list_empty(&qp->resp.ack_node) || qp->resp.rd_busy)
		return;
	if (qp->resp.ack_pending && qp->state != ORCA_QPS_ERR &&
	    qp->state != ORCA_QPS_RESET)
		orca_soft_wire_ack(sdev, qp);
	else
		orca_soft_wire_acks_del(sdev, qp);
}

/* The ACKs owed after a batch of received packets (semaphore written). */
void orca_soft_wire_flush_acks(struct orca_soft_dev *sdev)
{
	struct orca_soft_qp *qp, *tmp;

	list_for_each_entry_safe(qp, tmp, &sdev->eng_acks, resp.ack_node)
		orca_soft_wire_flush_ack(sdev, qp);
}

/* Put a NAK or an RNR NAK (AETH syndrome @syn) for @psn on the wire. */
static void orca_soft_wire_nak_out(struct orca_soft_dev *sdev,
				   struct orca_soft_qp *qp, u8 syn, u32 psn)
{
	if (FIELD_GET(ORCA_AETH_SYN_TYPE, syn) == ORCA_AETH_RNR_NAK)
		orca_soft_count(sdev, ORCA_SOFT_CNT_RNR_NAKS_SENT, 1);
	else
		orca_soft_count(sdev, ORCA_SOFT_CNT_NAKS_SENT +
				min_t(u8, FIELD_GET(ORCA_AETH_SYN_VALUE, syn), 3),
				1);
	orca_soft_wire_send_aeth(sdev, qp, ORCA_OP_RC_ACK, syn, psn, 0);
}

/*
 * A NAK for the request at @psn.  Responses go out in PSN order: while
 * READ responses for earlier requests are queued, the NAK is owed and
 * sent after them (ahead of them it would tell the requester that its
 * READ was lost).  The first NAK owed stands, unless an error NAK comes
 * after a sequence or RNR NAK: the requester goes back to the first
 * anyway, and an error ends the QP.
 */
static void orca_soft_wire_nak(struct orca_soft_dev *sdev,
			       struct orca_soft_qp *qp, u8 syn, u32 psn,
			       bool fatal)
{
	if (!qp->resp.rd_busy) {
		orca_soft_wire_nak_out(sdev, qp, syn, psn);
		return;
	}
	if (qp->resp.nak_owed && (qp->resp.nak_fatal || !fatal))
		return;
	qp->resp.nak_owed = true;
	qp->resp.nak_fatal = fatal;
	qp->resp.nak_syn = syn;
	qp->resp.nak_psn = psn;
}

/* Answer @ans for the request at @psn (not ACK: that is coalesced). */
static void orca_soft_wire_answer(struct orca_soft_dev *sdev,
				  struct orca_soft_qp *qp, u32 psn,
				  enum orca_soft_answer ans)
{
	u8 code;

	switch (ans) {
	case ORCA_SOFT_RNR_NAK:
	case ORCA_SOFT_PAGE_FAULT:
		orca_soft_wire_nak(sdev, qp,
				   orca_soft_syn(ORCA_AETH_RNR_NAK,
						 qp->attr.min_rnr_timer),
				   psn, false);
		return;
	case ORCA_SOFT_NAK_INV_REQ:
		code = ORCA_AETH_NAK_INV_REQ;
		break;
	case ORCA_SOFT_NAK_ACCESS:
		code = ORCA_AETH_NAK_REM_ACCESS;
		break;
	case ORCA_SOFT_NAK_OP:
		code = ORCA_AETH_NAK_REM_OP;
		break;
	default:
		return;
	}
	orca_soft_wire_nak(sdev, qp, orca_soft_syn(ORCA_AETH_NAK, code), psn,
			   true);
}

/* ------------------------------------------------------------ receives */

/*
 * The receive WQE of the message at hand into resp_scr->rwqe, its buffer
 * resolved into resp_scr->remote: an RQ's is read at the RQ's cons each
 * time, and so is a UD QP's (a datagram is one packet); an RC QP's SRQ
 * WQE is taken off the SRQ (cons advanced, limit checked, with @prod
 * from orca_soft_recv_need) the first time and held by the QP until the
 * message completes.  (orca.ko gives no UC QP an SRQ.)  0, or the
 * status to complete it with.
 */
static u8 orca_soft_wire_rwqe(struct orca_soft_dev *sdev,
			      struct orca_soft_qp *dqp,
			      struct orca_soft_cqe_info *ci, u32 prod)
{
	struct orca_soft_resp_scratch *s = dqp->resp_scr;
	int nsge;
	int ret;

	if (dqp->resp.srq_held) {
		nsge = dqp->resp.srq_nsge;
		memcpy(s->rwqe, dqp->srq_wqe, ORCA_RECV_WQE_HDR_SIZE +
		       nsge * sizeof(struct orca_sge));
		ci->wr_id = le64_to_cpu(((struct orca_recv_wqe *)s->rwqe)->wr_id);
	} else {
		nsge = orca_soft_rwqe_read(sdev, dqp, ci);
		if (nsge < 0)
			return ORCA_CQE_ST_LOC_QP_OP_ERR;
		if (dqp->srq && orca_soft_qp_is_rc(dqp)) {
			memcpy(dqp->srq_wqe, s->rwqe, ORCA_RECV_WQE_HDR_SIZE +
			       nsge * sizeof(struct orca_sge));
			orca_soft_recv_consume(sdev, dqp, prod);
			dqp->resp.srq_nsge = nsge;
			dqp->resp.srq_held = true;
		}
	}
	ret = orca_soft_rwqe_resolve(sdev, dqp, nsge);
	if (ret == -EMSGSIZE)
		return ORCA_CQE_ST_LOC_LEN_ERR;
	if (ret)
		return ORCA_CQE_ST_LOC_PROT_ERR;
	return 0;
}

/* A receive WQE failed with @st: complete it, QP to ERR; the answer. */
static enum orca_soft_answer orca_soft_wire_rwqe_fail(struct orca_soft_dev *sdev,
						      struct orca_soft_qp *dqp,
						      u32 prod,
						      struct orca_soft_cqe_info *ci,
						      u8 st)
{
	orca_soft_recv_fail(sdev, dqp, prod, ci, st);
	dqp->resp.cur = 0;
	if (st == ORCA_CQE_ST_LOC_QP_OP_ERR) {
		orca_soft_post_event(sdev, ORCA_EQE_QP_FATAL, dqp->qpn);
		return ORCA_SOFT_NAK_OP;
	}
	if (st == ORCA_CQE_ST_LOC_LEN_ERR) {
		orca_soft_post_event(sdev, ORCA_EQE_QP_REQ_ERR, dqp->qpn);
		return ORCA_SOFT_NAK_INV_REQ;
	}
	return ORCA_SOFT_NAK_OP;
}

/* A message landed: its receive WQE completes successfully. */
static void orca_soft_wire_recv_done(struct orca_soft_dev *sdev,
				     struct orca_soft_qp *dqp, u32 prod,
				     struct orca_soft_cqe_info *ci, bool se)
{
	if (se)
		ci->flags |= ORCA_CQE_FLAG_SOLICITED;
	ci->status = ORCA_CQE_ST_SUCCESS;
	orca_soft_recv_consume(sdev, dqp, prod);
	orca_soft_cq_complete(sdev, dqp->recv_cq, ci);
}

/* A SEND packet (RC or UC) with the expected PSN. */
static enum orca_soft_answer orca_soft_wire_send(struct orca_soft_dev *sdev,
						 struct orca_soft_qp *dqp,
						 const struct orca_wire_pkt *pkt,
						 u16 flags, const u8 *payload)
{
	struct orca_soft_resp_scratch *s = dqp->resp_scr;
	struct orca_soft_cqe_info ci = {
		.qpn = dqp->qpn,
		.opcode = ORCA_CQE_OP_RECV,
	};
	bool last = flags & ORCA_WIRE_F_LAST;
	u32 plen = pkt->payload_len;
	enum orca_soft_answer ans;
	u32 prod;
	int ret;
	u8 st;

	ans = orca_soft_recv_need(sdev, dqp, &prod);
	if (ans != ORCA_SOFT_ACK)
		return ans;
	if (flags & ORCA_WIRE_F_FIRST)
		dqp->resp.off = 0;
	if (last && (pkt->opcode == ORCA_OP_RC_SEND_LAST_INV ||
		     pkt->opcode == ORCA_OP_RC_SEND_ONLY_INV) &&
	    !orca_soft_key_inv_ok(sdev, dqp, pkt->ieth_rkey, true))
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_REQ_ERR,
					  ORCA_SOFT_NAK_INV_REQ);

	st = orca_soft_wire_rwqe(sdev, dqp, &ci, prod);
	if (!st && (u64)dqp->resp.off + plen > s->remote.len)
		st = ORCA_CQE_ST_LOC_LEN_ERR;
	if (!st) {
		ret = orca_soft_sgl_odp_check(sdev, &s->remote, dqp->resp.off,
					      plen, true);
		/* Not executed: the receive WQE stays the message's. */
		if (ret == -EAGAIN)
			return ORCA_SOFT_PAGE_FAULT;
		if (ret)
			st = ORCA_CQE_ST_LOC_PROT_ERR;
	}
	if (!st) {
		orca_soft_sgl_kbuf(&s->kbuf, payload, plen);
		if (plen && orca_soft_sgl_copy(sdev, &s->remote, dqp->resp.off,
					       &s->kbuf, 0, plen))
			st = ORCA_CQE_ST_LOC_PROT_ERR;
	}
	if (st) {
		enum orca_soft_answer ans;

		ans = orca_soft_wire_rwqe_fail(sdev, dqp, prod, &ci, st);
		return orca_soft_qp_is_rc(dqp) ? ans : ORCA_SOFT_SILENT;
	}
	dqp->resp.off += plen;
	if (!last) {
		dqp->resp.cur = ORCA_WIRE_F_SEND;
		return ORCA_SOFT_ACK;
	}

	dqp->resp.cur = 0;
	ci.byte_len = dqp->resp.off;
	switch (pkt->opcode & ORCA_WIRE_OP_CODE) {
	case ORCA_OP_RC_SEND_LAST_IMM:
	case ORCA_OP_RC_SEND_ONLY_IMM:
		ci.flags |= ORCA_CQE_FLAG_IMM;
		ci.imm_inv = be32_to_cpu(pkt->imm);
		break;
	case ORCA_OP_RC_SEND_LAST_INV:
	case ORCA_OP_RC_SEND_ONLY_INV:
		if (orca_soft_qp_is_rc(dqp))
			orca_soft_recv_invalidate(sdev, dqp, pkt->ieth_rkey,
						  &ci);
		break;
	default:
		break;
	}
	orca_soft_wire_recv_done(sdev, dqp, prod, &ci, pkt->se);
	dqp->resp.msn++;
	return ORCA_SOFT_ACK;
}

/* A WRITE packet (RC or UC) with the expected PSN. */
static enum orca_soft_answer orca_soft_wire_write(struct orca_soft_dev *sdev,
						  struct orca_soft_qp *dqp,
						  const struct orca_wire_pkt *pkt,
						  u16 flags, const u8 *payload)
{
	struct orca_soft_resp_scratch *s = dqp->resp_scr;
	bool last = flags & ORCA_WIRE_F_LAST;
	bool imm = pkt->opcode == ORCA_OP_RC_WRITE_LAST_IMM ||
		   pkt->opcode == ORCA_OP_RC_WRITE_ONLY_IMM ||
		   pkt->opcode == ORCA_OP_UC_WRITE_LAST_IMM ||
		   pkt->opcode == ORCA_OP_UC_WRITE_ONLY_IMM;
	struct orca_soft_cqe_info ci = {
		.qpn = dqp->qpn,
		.opcode = ORCA_CQE_OP_RECV_RDMA_IMM,
	};
	u32 plen = pkt->payload_len;
	struct orca_soft_mr *mr;
	enum orca_soft_answer ans;
	u32 prod = 0;
	int ret;

	if (flags & ORCA_WIRE_F_FIRST) {
		u64 va = pkt->reth_va;

		if (pkt->reth_len > ORCA_SOFT_MAX_MSG ||
		    (last && pkt->reth_len != plen) || pkt->reth_len < plen)
			return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_REQ_ERR,
						  ORCA_SOFT_NAK_INV_REQ);
		if (pkt->reth_len &&
		    !orca_soft_rkey(sdev, dqp, pkt->reth_rkey, &va,
				    pkt->reth_len, ORCA_ACCESS_REMOTE_WRITE))
			return orca_soft_resp_err(sdev, dqp,
						  ORCA_EQE_QP_ACCESS_ERR,
						  ORCA_SOFT_NAK_ACCESS);
		dqp->resp.wr_va = pkt->reth_va;
		dqp->resp.wr_rkey = pkt->reth_rkey;
		dqp->resp.wr_len = pkt->reth_len;
		dqp->resp.off = 0;
	}
	if ((u64)dqp->resp.off + plen > dqp->resp.wr_len ||
	    (last && dqp->resp.off + plen != dqp->resp.wr_len))
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_REQ_ERR,
					  ORCA_SOFT_NAK_INV_REQ);
	if (imm) {
		ans = orca_soft_recv_need(sdev, dqp, &prod);
		if (ans != ORCA_SOFT_ACK)
			return ans;
	}
	if (plen) {
		u64 va = dqp->resp.wr_va + dqp->resp.off;

		mr = orca_soft_rkey(sdev, dqp, dqp->resp.wr_rkey, &va, plen,
				    ORCA_ACCESS_REMOTE_WRITE);
		if (!mr)
			return orca_soft_resp_err(sdev, dqp,
						  ORCA_EQE_QP_ACCESS_ERR,
						  ORCA_SOFT_NAK_ACCESS);
		/* A fault asks for the pages up to the end of the WRITE. */
		ret = orca_soft_mr_odp_check(sdev, mr, va, plen,
					     va + (dqp->resp.wr_len -
						   dqp->resp.off), true);
		if (ret == -EAGAIN)
			return ORCA_SOFT_PAGE_FAULT;
		orca_soft_sgl_one(&s->remote, mr, va, plen);
		orca_soft_sgl_kbuf(&s->kbuf, payload, plen);
		if (ret ||
		    orca_soft_sgl_copy(sdev, &s->remote, 0, &s->kbuf, 0, plen))
			return orca_soft_resp_err(sdev, dqp,
						  ORCA_EQE_QP_ACCESS_ERR,
						  ORCA_SOFT_NAK_ACCESS);
	}
	dqp->resp.off += plen;
	if (!last) {
		dqp->resp.cur = ORCA_WIRE_F_WRITE;
		return ORCA_SOFT_ACK;
	}
	dqp->resp.cur = 0;
	if (imm) {
		u8 st = orca_soft_wire_rwqe(sdev, dqp, &ci, prod);

		/* The buffer is not used: only a malformed WQE fails. */
		if (st == ORCA_CQE_ST_LOC_QP_OP_ERR) {
			enum orca_soft_answer ans;

			ans = orca_soft_wire_rwqe_fail(sdev, dqp, prod, &ci, st);
			return orca_soft_qp_is_rc(dqp) ? ans :
							  ORCA_SOFT_SILENT;
		}
		ci.byte_len = dqp->resp.wr_len;
		ci.flags = ORCA_CQE_FLAG_IMM;
		ci.imm_inv = be32_to_cpu(pkt->imm);
		orca_soft_wire_recv_done(sdev, dqp, prod, &ci, pkt->se);
	}
	dqp->resp.msn++;
	return ORCA_SOFT_ACK;
}

/* ------------------------------------------------ READ and atomics */

/* Queue responder resource @i for sending from @psn. */
static void orca_soft_wire_rd_queue(struct orca_soft_dev *sdev,
				    struct orca_soft_qp *qp, u8 i, u32 psn)
{
	qp->resp.rd_idx = i;
	qp->resp.rd_psn = psn;
	qp->resp.rd_busy = true;
	orca_soft_qp_activate(sdev, qp);
}

/*
 * The region a READ response reads from, resolved again for each packet.
 * An XRC_TGT QP checks the rkey against the PD of the SRQ the READ named
 * (the QP may have borrowed another SRQ since), if that SRQ still exists.
 */
static struct orca_soft_mr *orca_soft_wire_rd_mr(struct orca_soft_dev *sdev,
						 struct orca_soft_qp *qp,
						 const struct orca_soft_rres *r,
						 u64 *va, u32 len)
{
	struct orca_soft_pd *pd = qp->pd;
	struct orca_soft_srq *srq;
	struct orca_soft_mr *mr;

	if (qp->type != ORCA_QPT_XRC_TGT)
		return orca_soft_rkey(sdev, qp, r->rkey, va, len,
				      ORCA_ACCESS_REMOTE_READ);
	if (r->xrc_gone)
		return NULL;
	srq = orca_soft_srq_find(sdev, r->xrc_srqn);
	if (!srq || srq->xrcd != qp->xrcd)
		return NULL;
	qp->pd = srq->pd;
	mr = orca_soft_rkey(sdev, qp, r->rkey, va, len,
			    ORCA_ACCESS_REMOTE_READ);
	qp->pd = pd;
	return mr;
}

/*
 * A new READ or atomic: take the next responder resource.  NULL (an
 * invalid request) when the QP has none (max_dest_rd_atomic 0) or all are
 * still answering.
 */
static struct orca_soft_rres *orca_soft_wire_res_new(struct orca_soft_qp *qp)
{
	u8 n = orca_soft_resp_nres(qp);
	struct orca_soft_rres *r;

	if (!qp->attr.max_dest_rd_atomic)
		return NULL;

	/* All resources still answering: the requester broke its limit. */
	if (qp->resp.rd_busy && qp->resp.rd_idx == qp->resp.res_head % n)
		return NULL;
	r = &qp->resp.res[qp->resp.res_head % n];
	memset(r, 0, sizeof(*r));
	return r;
}

static void orca_soft_wire_res_commit(struct orca_soft_dev *sdev,
				      struct orca_soft_qp *qp,
				      struct orca_soft_rres *r)
{
	u8 n = orca_soft_resp_nres(qp);
	u8 i = qp->resp.res_head % n;

	r->valid = true;
	qp->resp.res_head = (i + 1) % n;
	if (!qp->resp.rd_busy)
		orca_soft_wire_rd_queue(sdev, qp, i, r->first_psn);
}

static enum orca_soft_answer orca_soft_wire_read(struct orca_soft_dev *sdev,
						 struct orca_soft_qp *dqp,
						 const struct orca_wire_pkt *pkt)
{
	u32 mtu = orca_soft_qp_mtu(sdev, dqp);
	struct orca_soft_rres *r;
	struct orca_soft_mr *mr;
	u64 va = pkt->reth_va;
	int ret = 0;

	if (pkt->reth_len > ORCA_SOFT_MAX_MSG)
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_REQ_ERR,
					  ORCA_SOFT_NAK_INV_REQ);
	if (pkt->reth_len) {
		mr = orca_soft_rkey(sdev, dqp, pkt->reth_rkey, &va,
				    pkt->reth_len, ORCA_ACCESS_REMOTE_READ);
		/* All of it is there before it is answered. */
		if (mr)
			ret = orca_soft_mr_odp_check(sdev, mr, va,
						     pkt->reth_len,
						     va + pkt->reth_len, false);
		if (ret == -EAGAIN)
			return ORCA_SOFT_PAGE_FAULT;
		if (!mr || ret)
			return orca_soft_resp_err(sdev, dqp,
						  ORCA_EQE_QP_ACCESS_ERR,
						  ORCA_SOFT_NAK_ACCESS);
	}
	r = orca_soft_wire_res_new(dqp);
	if (!r)
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_REQ_ERR,
					  ORCA_SOFT_NAK_INV_REQ);
	r->first_psn = pkt->psn;
	r->npkts = orca_packets(pkt->reth_len, mtu);
	r->va = pkt->reth_va;
	r->rkey = pkt->reth_rkey;
	r->len = pkt->reth_len;
	r->xrc_srqn = pkt->xrc_srqn;
	orca_soft_wire_res_commit(sdev, dqp, r);
	dqp->resp.rq_psn = orca_psn_add(pkt->psn, r->npkts);
	dqp->resp.msn++;
	return ORCA_SOFT_SILENT;
}

static enum orca_soft_answer orca_soft_wire_atomic(struct orca_soft_dev *sdev,
						   struct orca_soft_qp *dqp,
						   const struct orca_wire_pkt *pkt)
{
	struct orca_soft_rres *r;
	struct orca_soft_mr *mr;
	u64 orig, va = pkt->atomic_va;
	int ret;

	if (!IS_ALIGNED(pkt->atomic_va, sizeof(u64)))
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_REQ_ERR,
					  ORCA_SOFT_NAK_INV_REQ);
	mr = orca_soft_rkey(sdev, dqp, pkt->atomic_rkey, &va, sizeof(u64),
			    ORCA_ACCESS_REMOTE_ATOMIC);
	/* A zero-based window may move the word off its alignment. */
	if (!mr || !IS_ALIGNED(va, sizeof(u64)))
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_ACCESS_ERR,
					  ORCA_SOFT_NAK_ACCESS);
	/* Checked before it executes: an atomic executes once. */
	ret = orca_soft_mr_odp_check(sdev, mr, va, sizeof(u64),
				     va + sizeof(u64), true);
	if (ret == -EAGAIN)
		return ORCA_SOFT_PAGE_FAULT;
	if (ret)
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_ACCESS_ERR,
					  ORCA_SOFT_NAK_ACCESS);
	r = orca_soft_wire_res_new(dqp);
	if (!r)
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_REQ_ERR,
					  ORCA_SOFT_NAK_INV_REQ);
	if (orca_soft_mem_atomic(sdev, mr, va,
				 pkt->opcode == ORCA_OP_RC_CMP_SWAP,
				 pkt->opcode == ORCA_OP_RC_CMP_SWAP ?
				 pkt->atomic_compare : pkt->atomic_swap_add,
				 pkt->atomic_swap_add, &orig))
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_ACCESS_ERR,
					  ORCA_SOFT_NAK_ACCESS);
	r->first_psn = pkt->psn;
	r->npkts = 1;
	r->va = pkt->atomic_va;
	r->rkey = pkt->atomic_rkey;
	r->len = sizeof(u64);
	r->orig = orig;
	r->atomic = true;
	orca_soft_wire_res_commit(sdev, dqp, r);
	dqp->resp.rq_psn = orca_psn_add(pkt->psn, 1);
	dqp->resp.msn++;
	return ORCA_SOFT_SILENT;
}

/*
 * A READ's region is no longer valid while its responses go out: a
 * remote access NAK for this READ now, instead of any NAK owed for a
 * later request (if one took the QP to ERR, that was reported then).
 */
static void orca_soft_wire_rd_gone(struct orca_soft_dev *sdev,
				   struct orca_soft_qp *qp, u32 psn)
{
	enum orca_soft_answer ans;

	qp->resp.rd_busy = false;
	qp->resp.nak_owed = false;
	if (qp->state == ORCA_QPS_ERR) {
		orca_soft_wire_nak_out(sdev, qp,
				       orca_soft_syn(ORCA_AETH_NAK,
						     ORCA_AETH_NAK_REM_ACCESS),
				       psn);
		return;
	}
	ans = orca_soft_resp_err(sdev, qp, ORCA_EQE_QP_ACCESS_ERR,
				 ORCA_SOFT_NAK_ACCESS);
	orca_soft_wire_answer(sdev, qp, psn, ans);
}

/*
 * The @plen bytes from byte @off of READ @r, into resp_scr->remote: 0,
 * -EFAULT (the region or its rights went away, or a failed page) or
 * -EAGAIN (a page fault, posted for the pages up to the READ's end).
 */
static int orca_soft_wire_rd_src(struct orca_soft_dev *sdev,
				 struct orca_soft_qp *qp,
				 const struct orca_soft_rres *r, u32 off,
				 u32 plen)
{
	struct orca_soft_mr *mr;
	u64 va = r->va + off;
	int ret;

	mr = orca_soft_wire_rd_mr(sdev, qp, r, &va, plen);
	if (!mr)
		return -EFAULT;
	ret = orca_soft_mr_odp_check(sdev, mr, va, plen, va + r->len - off,
				     false);
	if (!ret)
		orca_soft_sgl_one(&qp->resp_scr->remote, mr, va, plen);
	return ret;
}

/*
 * A page a READ response needs was taken away since the READ was
 * accepted (UNMAP: swapped out, migrated, fork()).  The responses wait
 * for it, and go on from this one.  In ERR, where only responses owed
 * before the error NAK go out, they end here instead.
 */
static void orca_soft_wire_rd_wait(struct orca_soft_dev *sdev,
				   struct orca_soft_qp *qp)
{
	if (orca_soft_qp_receives(qp))
		orca_soft_odp_hold_resp(sdev, qp);
	else
		qp->resp.rd_busy = false;
}

/* Send queued READ responses and atomic ACKs; return packets sent. */
int orca_soft_wire_resp_run(struct orca_soft_dev *sdev,
			    struct orca_soft_qp *qp, int budget)
{
	struct orca_soft_resp_scratch *s = qp->resp_scr;
	u32 mtu = orca_soft_qp_mtu(sdev, qp);
	u8 nres = orca_soft_resp_nres(qp);
	struct orca_soft_route rt;
	int n = 0;
	int ret;

	/* Responses waiting for a page go on when it is mapped or failed. */
	if (!qp->resp.rd_busy || qp->resp.odp_until)
		return 0;
	/*
	 * In ERR only the responses owed before the error NAK go out (the
	 * requests before the failed one were answered, in PSN order).
	 */
	if (!orca_soft_qp_receives(qp) &&
	    !(qp->resp.nak_owed && qp->resp.nak_fatal)) {
		qp->resp.rd_busy = false;
		qp->resp.nak_owed = false;
		return 0;
	}
	orca_soft_qp_route(sdev, qp, &rt);
	while (qp->resp.rd_busy && n < budget) {
		struct orca_soft_rres *r = &qp->resp.res[qp->resp.rd_idx];
		u32 idx = orca_psn_diff(qp->resp.rd_psn, r->first_psn);
		struct orca_wire_pkt pkt = {
			.pkey = ORCA_SOFT_PKEY_DEFAULT,
			.dest_qpn = le32_to_cpu(qp->attr.dest_qpn),
			.psn = qp->resp.rd_psn,
			.aeth_syndrome = orca_soft_syn(ORCA_AETH_ACK,
						       ORCA_AETH_CREDITS_INVALID),
			.aeth_msn = qp->resp.msn & ORCA_AETH_MSN,
		};

		n++;
		if (r->atomic) {
			pkt.opcode = orca_soft_wire_resp_op(qp,
							    ORCA_OP_RC_ATOMIC_ACK);
			pkt.atomic_orig = r->orig;
			orca_soft_wire_tx(sdev, &rt, &pkt, NULL, 0);
		} else {
			u32 off = idx * mtu;
			u32 plen = min(mtu, r->len - off);

			if (r->npkts == 1)
				pkt.opcode = ORCA_OP_RC_READ_RESP_ONLY;
			else if (!idx)
				pkt.opcode = ORCA_OP_RC_READ_RESP_FIRST;
			else if (idx == r->npkts - 1)
				pkt.opcode = ORCA_OP_RC_READ_RESP_LAST;
			else
				pkt.opcode = ORCA_OP_RC_READ_RESP_MIDDLE;
			pkt.opcode = orca_soft_wire_resp_op(qp, pkt.opcode);
			pkt.payload_len = plen;
			ret = plen ? orca_soft_wire_rd_src(sdev, qp, r, off,
							   plen) : 0;
			if (ret == -EAGAIN) {
				orca_soft_wire_rd_wait(sdev, qp);
				break;
			}
			if (ret) {
				/* The region (or a page) went away meanwhile. */
				orca_soft_wire_rd_gone(sdev, qp, pkt.psn);
				break;
			}
			orca_soft_wire_tx(sdev, &rt, &pkt, &s->remote, 0);
			/* In the shared lane: the packet's data has moved. */
			orca_soft_lane_unpin(qp);
			if (idx + 1 < r->npkts) {
				qp->resp.rd_psn = orca_psn_add(qp->resp.rd_psn, 1);
				continue;
			}
		}
		/* This one is answered: the next queued, if any. */
		qp->resp.rd_idx = (qp->resp.rd_idx + 1) % nres;
		if (qp->resp.rd_idx == qp->resp.res_head % nres ||
		    !qp->resp.res[qp->resp.rd_idx].valid)
			qp->resp.rd_busy = false;
		else
			qp->resp.rd_psn = qp->resp.res[qp->resp.rd_idx].first_psn;
	}
	if (qp->resp.rd_busy)
		return n;
	if (qp->resp.ack_pending && orca_soft_qp_receives(qp))
		orca_soft_wire_ack(sdev, qp);
	if (qp->resp.nak_owed) {
		qp->resp.nak_owed = false;
		orca_soft_wire_nak_out(sdev, qp, qp->resp.nak_syn,
				       qp->resp.nak_psn);
	}
	return n;
}

/* A duplicate request: acknowledge again, or answer again. */
static void orca_soft_wire_dup(struct orca_soft_dev *sdev,
			       struct orca_soft_qp *qp,
			       const struct orca_wire_pkt *pkt, u16 flags)
{
	u8 nres = orca_soft_resp_nres(qp);
	u8 i;

	orca_soft_count(sdev, ORCA_SOFT_CNT_DUPLICATES, 1);
	if (!(flags & (ORCA_WIRE_F_READ | ORCA_WIRE_F_ATOMIC))) {
		orca_soft_wire_owe_ack(sdev, qp);
		return;
	}
	for (i = 0; i < nres; i++) {
		struct orca_soft_rres *r = &qp->resp.res[i];

		if (!r->valid || r->atomic != !!(flags & ORCA_WIRE_F_ATOMIC) ||
		    orca_psn_diff(pkt->psn, r->first_psn) < 0 ||
		    orca_psn_diff(pkt->psn, orca_psn_add(r->first_psn,
							 r->npkts)) >= 0)
			continue;
		/*
		 * Responses already going out from an earlier PSN will get
		 * there: a second replay would cut the first one short.
		 */
		if (!r->atomic && qp->resp.rd_busy &&
		    orca_psn_diff(pkt->psn, qp->resp.rd_psn) >= 0)
			return;
		if (r->atomic)
			orca_soft_wire_send_aeth(sdev, qp,
						 ORCA_OP_RC_ATOMIC_ACK,
						 orca_soft_syn(ORCA_AETH_ACK,
							       ORCA_AETH_CREDITS_INVALID),
						 pkt->psn, r->orig);
		else
			orca_soft_wire_rd_queue(sdev, qp, i, pkt->psn);
		return;
	}
}

/* ----------------------------------------------------------- requests */

/* Does the packet continue (or start) the message in progress? */
static bool orca_soft_wire_seq_ok(struct orca_soft_dev *sdev,
				  const struct orca_soft_qp *qp,
				  const struct orca_wire_pkt *pkt, u16 flags)
{
	u32 mtu = orca_soft_qp_mtu(sdev, qp);

	if (qp->resp.cur) {
		if ((flags & ORCA_WIRE_F_FIRST) ||
		    (flags & ORCA_SOFT_F_KIND) != qp->resp.cur)
			return false;
	} else if (!(flags & ORCA_WIRE_F_FIRST)) {
		return false;
	}
	if (!(flags & ORCA_WIRE_F_PAYLOAD))
		return true;
	if (flags & ORCA_WIRE_F_LAST)
		return pkt->payload_len <= mtu;
	return pkt->payload_len == mtu;
}

static enum orca_soft_answer orca_soft_wire_exec(struct orca_soft_dev *sdev,
						 struct orca_soft_qp *qp,
						 const struct orca_wire_pkt *pkt,
						 u16 flags, const u8 *payload)
{
	if (flags & ORCA_WIRE_F_SEND)
		return orca_soft_wire_send(sdev, qp, pkt, flags, payload);
	if (flags & ORCA_WIRE_F_WRITE)
		return orca_soft_wire_write(sdev, qp, pkt, flags, payload);
	if (flags & ORCA_WIRE_F_READ)
		return orca_soft_wire_read(sdev, qp, pkt);
	return orca_soft_wire_atomic(sdev, qp, pkt);
}

static void orca_soft_wire_rc_request(struct orca_soft_dev *sdev,
				      struct orca_soft_qp *qp,
				      const struct orca_wire_pkt *pkt,
				      u16 flags, const u8 *payload)
{
	s32 d = orca_psn_diff(pkt->psn, qp->resp.rq_psn);
	enum orca_soft_answer ans;

	if (d < 0) {
		orca_soft_wire_dup(sdev, qp, pkt, flags);
		return;
	}
	if (d > 0) {
		orca_soft_count(sdev, ORCA_SOFT_CNT_OUT_OF_SEQUENCE, 1);
		if (!qp->resp.nak_sent) {
			qp->resp.nak_sent = true;
			orca_soft_wire_nak(sdev, qp,
					   orca_soft_syn(ORCA_AETH_NAK,
							 ORCA_AETH_NAK_PSN_SEQ),
					   qp->resp.rq_psn, false);
		}
		return;
	}
	/* The expected PSN came: a sequence or RNR NAK owed for it is moot. */
	qp->resp.nak_sent = false;
	qp->resp.nak_owed = false;
	if (!orca_soft_wire_seq_ok(sdev, qp, pkt, flags) ||
	    ((flags & ORCA_WIRE_F_ATOMIC) && !(flags & ORCA_WIRE_F_LAST)) ||
	    (qp->type == ORCA_QPT_XRC_TGT &&
	     !orca_soft_xrc_bind(sdev, qp, pkt->xrc_srqn,
				 flags & ORCA_WIRE_F_FIRST))) {
		ans = orca_soft_resp_err(sdev, qp, ORCA_EQE_QP_REQ_ERR,
					 ORCA_SOFT_NAK_INV_REQ);
	} else {
		ans = orca_soft_wire_exec(sdev, qp, pkt, flags, payload);
	}
	if (ans == ORCA_SOFT_ACK) {
		qp->resp.rq_psn = orca_psn_add(pkt->psn, 1);
		if (pkt->ack_req)
			orca_soft_wire_owe_ack(sdev, qp);
		return;
	}
	orca_soft_wire_answer(sdev, qp, pkt->psn, ans);
}

static void orca_soft_wire_uc_request(struct orca_soft_dev *sdev,
				      struct orca_soft_qp *qp,
				      const struct orca_wire_pkt *pkt,
				      u16 flags, const u8 *payload)
{
	if (pkt->psn != qp->resp.rq_psn) {
		/* Lost packets: the message in progress is gone. */
		if (orca_psn_diff(pkt->psn, qp->resp.rq_psn) > 0)
			orca_soft_count(sdev, ORCA_SOFT_CNT_OUT_OF_SEQUENCE, 1);
		else
			orca_soft_count(sdev, ORCA_SOFT_CNT_DUPLICATES, 1);
		qp->resp.cur = 0;
	}
	qp->resp.rq_psn = orca_psn_add(pkt->psn, 1);
	/* A new message ends one that never got its last packet. */
	if (flags & ORCA_WIRE_F_FIRST)
		qp->resp.cur = 0;
	if (!orca_soft_wire_seq_ok(sdev, qp, pkt, flags)) {
		qp->resp.cur = 0;
		return;
	}
	if (orca_soft_wire_exec(sdev, qp, pkt, flags, payload) !=
	    ORCA_SOFT_ACK)
		qp->resp.cur = 0;
}

/* ------------------------------------------------------------------ UD */

static void orca_soft_wire_ud_deliver(struct orca_soft_dev *sdev,
				      struct orca_soft_qp *dqp,
				      const struct orca_soft_rx *rx,
				      const struct orca_wire_pkt *pkt,
				      const u8 *payload)
{
	struct orca_soft_resp_scratch *s = dqp->resp_scr;
	struct orca_soft_cqe_info ci = {
		.qpn = dqp->qpn,
		.src_qp = pkt->deth_sqpn,
		.opcode = ORCA_CQE_OP_RECV,
		.flags = ORCA_CQE_FLAG_GRH,
	};
	u32 plen = pkt->payload_len;
	u32 prod;
	int ret;
	u8 st;

	if (!orca_soft_qp_receives(dqp) ||
	    pkt->deth_qkey != le32_to_cpu(dqp->attr.qkey))
		goto drop;
	ret = orca_soft_recv_avail(sdev, dqp, &prod);
	if (ret)
		goto drop;
	st = orca_soft_wire_rwqe(sdev, dqp, &ci, prod);
	if (st == ORCA_CQE_ST_LOC_QP_OP_ERR) {
		orca_soft_recv_fail(sdev, dqp, prod, &ci, st);
		orca_soft_post_event(sdev, ORCA_EQE_QP_FATAL, dqp->qpn);
		return;
	}
	/* UD drops what does not fit, and keeps the receive. */
	if (st || ORCA_SOFT_GRH_LEN + plen > s->remote.len)
		goto drop;
	/* ... and what lands on a page that is not there (fault posted). */
	if (orca_soft_sgl_odp_check(sdev, &s->remote, 0,
				    ORCA_SOFT_GRH_LEN + plen, true))
		goto drop;

	memset(s->grh, 0, sizeof(s->grh));
	if (rx->ip_version == 4) {
		memcpy(s->grh + ORCA_SOFT_IPV4_OFF, rx->nethdr,
		       ORCA_SOFT_GRH_LEN - ORCA_SOFT_IPV4_OFF);
		ci.flags |= ORCA_CQE_FLAG_IPV4;
	} else {
		memcpy(s->grh, rx->nethdr, ORCA_SOFT_GRH_LEN);
	}
	orca_soft_sgl_kbuf(&s->kbuf, s->grh, ORCA_SOFT_GRH_LEN);
	if (orca_soft_sgl_copy(sdev, &s->remote, 0, &s->kbuf, 0,
			       ORCA_SOFT_GRH_LEN))
		goto drop;
	orca_soft_sgl_kbuf(&s->kbuf, payload, plen);
	if (plen && orca_soft_sgl_copy(sdev, &s->remote, ORCA_SOFT_GRH_LEN,
				       &s->kbuf, 0, plen))
		goto drop;
	ci.byte_len = ORCA_SOFT_GRH_LEN + plen;
	if (pkt->opcode == ORCA_OP_UD_SEND_ONLY_IMM) {
		ci.flags |= ORCA_CQE_FLAG_IMM;
		ci.imm_inv = be32_to_cpu(pkt->imm);
	}
	orca_soft_wire_recv_done(sdev, dqp, prod, &ci, pkt->se);
	return;
drop:
	orca_soft_count(sdev, ORCA_SOFT_CNT_UD_DROPS, 1);
}

static void orca_soft_wire_rx_ud(struct orca_soft_dev *sdev,
				 const struct orca_soft_rx *rx,
				 const struct orca_wire_pkt *pkt,
				 const u8 *payload)
{
	struct orca_soft_qp *dqp;

	if (pkt->dest_qpn == ORCA_SOFT_MCAST_QPN) {
		struct orca_soft_mcg *mcg = NULL;
		u32 i;

		if (orca_soft_gid_is_mcast(rx->dgid))
			mcg = orca_soft_mcg_find(sdev, rx->dgid);
		if (!mcg) {
			orca_soft_count(sdev, ORCA_SOFT_CNT_RX_DROPS, 1);
			return;
		}
		for (i = 0; i < mcg->nr_qps; i++) {
			dqp = orca_soft_qp_find(sdev, mcg->qpn[i]);
			if (dqp && dqp->type == ORCA_QPT_UD)
				orca_soft_wire_ud_deliver(sdev, dqp, rx, pkt,
							  payload);
		}
		return;
	}
	dqp = orca_soft_qp_find(sdev, pkt->dest_qpn);
	if (!dqp || !orca_soft_qp_is_ud(dqp)) {
		orca_soft_count(sdev, ORCA_SOFT_CNT_RX_DROPS, 1);
		return;
	}
	orca_soft_wire_ud_deliver(sdev, dqp, rx, pkt, payload);
}

/* ------------------------------------------------------------ dispatch */

/*
 * RC and UC take packets only from their path: from the address vector's
 * dgid, to the port GID its sgid_index names.  Anything else is dropped.
 */
static bool orca_soft_wire_on_path(const struct orca_soft_dev *sdev,
				   const struct orca_soft_qp *qp,
				   const struct orca_soft_rx *rx)
{
	u32 sgid = FIELD_GET(ORCA_AH_SGID_INDEX, le32_to_cpu(qp->attr.av_info));

	return !memcmp(rx->sgid, qp->attr.dgid, sizeof(rx->sgid)) &&
	       !memcmp(rx->dgid, sdev->gids[sgid % ORCA_SOFT_GID_TBL_LEN].gid,
		       sizeof(rx->dgid));
}

/*
 * The QP type a packet of @transport is for: XRC requests go to XRC_TGT,
 * datagrams to UD QPs (the GSI QP's are the exclusive holders' only).
 */
static u8 orca_soft_wire_qp_type(u8 transport, u16 flags)
{
	switch (transport) {
	case ORCA_WIRE_RC:
		return ORCA_QPT_RC;
	case ORCA_WIRE_UC:
		return ORCA_QPT_UC;
	case ORCA_WIRE_UD:
		return ORCA_QPT_UD;
	default:
		return flags & ORCA_WIRE_F_REQUEST ? ORCA_QPT_XRC_TGT :
						     ORCA_QPT_XRC_INI;
	}
}

/*
 * Check and decode @rx's headers into @pkt; a packet that fails, or whose
 * P_Key is not a full member's, is counted as dropped: -EINVAL.
 */
static int orca_soft_wire_rx_parse(struct orca_soft_dev *sdev,
				   const struct orca_soft_rx *rx,
				   struct orca_wire_pkt *pkt)
{
	if (orca_wire_parse(rx->transport, rx->len + ORCA_WIRE_ICRC_LEN, 0,
			    pkt) ||
	    (pkt->pkey & ORCA_SOFT_PKEY_BASE) != ORCA_SOFT_PKEY_BASE) {
		orca_soft_count(sdev, ORCA_SOFT_CNT_RX_DROPS, 1);
		return -EINVAL;
	}
	return 0;
}

/* Take the parsed packet @pkt of @rx to its QP. */
static void orca_soft_wire_rx_dispatch(struct orca_soft_dev *sdev,
				       const struct orca_soft_rx *rx,
				       struct orca_wire_pkt *pkt)
{
	const struct orca_wire_opinfo *op = orca_wire_opinfo(pkt->opcode);
	const u8 *payload = rx->transport + pkt->payload_off;
	struct orca_soft_qp *qp;
	u8 transport;

	orca_soft_count(sdev, ORCA_SOFT_CNT_RX_PACKETS, 1);
	orca_soft_count(sdev, ORCA_SOFT_CNT_RX_BYTES, pkt->payload_len);

	transport = FIELD_GET(ORCA_WIRE_OP_TRANSPORT, pkt->opcode);
	if (transport == ORCA_WIRE_UD) {
		orca_soft_wire_rx_ud(sdev, rx, pkt, payload);
		return;
	}
	qp = orca_soft_qp_find(sdev, pkt->dest_qpn);
	if (!qp || qp->type != orca_soft_wire_qp_type(transport, op->flags) ||
	    orca_soft_req_local(sdev, qp) ||
	    !orca_soft_wire_on_path(sdev, qp, rx)) {
		orca_soft_count(sdev, ORCA_SOFT_CNT_RX_DROPS, 1);
		return;
	}
	/* From here on an XRC packet is handled as its RC twin. */
	if (transport == ORCA_WIRE_XRC)
		pkt->opcode = FIELD_GET(ORCA_WIRE_OP_CODE, pkt->opcode);
	if (!(op->flags & ORCA_WIRE_F_REQUEST)) {
		orca_soft_wire_rx_response(sdev, qp, pkt, payload);
		return;
	}
	if (!orca_soft_qp_receives(qp)) {
		orca_soft_count(sdev, ORCA_SOFT_CNT_RX_DROPS, 1);
		return;
	}
	orca_soft_qp_answers(sdev, qp);
	if (orca_soft_qp_is_rc(qp))
		orca_soft_wire_rc_request(sdev, qp, pkt, op->flags, payload);
	else
		orca_soft_wire_uc_request(sdev, qp, pkt, op->flags, payload);
}

static void orca_soft_wire_rx_one(struct orca_soft_dev *sdev,
				  const struct orca_soft_rx *rx)
{
	struct orca_wire_pkt pkt;

	if (!orca_soft_wire_rx_parse(sdev, rx, &pkt))
		orca_soft_wire_rx_dispatch(sdev, rx, &pkt);
}

/*
 * Take up to @budget received packets, the one the shared lane left
 * first; flush the ACKs they owe (eng_rwsem written).
 */
int orca_soft_wire_rx(struct orca_soft_dev *sdev, int budget)
{
	struct orca_soft_rx *rx = &sdev->rx_held;
	int n = 0;

	while (n < budget && (rx->skb || orca_soft_net_rx_next(sdev, rx))) {
		orca_soft_wire_rx_one(sdev, rx);
		orca_soft_net_rx_done(rx);
		n++;
	}
	orca_soft_wire_flush_acks(sdev);
	return n;
}

/*
 * The QP the shared lane may take the parsed packet @pkt for, or NULL if
 * it needs the exclusive holders.  Only what no lane changes is looked
 * at here: the QP's type, the device's ODP regions, whether a SEND with
 * invalidate names a window, a datagram's group; the rest of
 * orca_soft_wire_rx_dispatch()'s checks run with the QP locked.
 */
static struct orca_soft_qp *
orca_soft_wire_rx_lane_qp(struct orca_soft_dev *sdev,
			  const struct orca_wire_pkt *pkt)
{
	const struct orca_wire_opinfo *op = orca_wire_opinfo(pkt->opcode);
	u8 transport = FIELD_GET(ORCA_WIRE_OP_TRANSPORT, pkt->opcode);
	struct orca_soft_qp *qp;

	if (sdev->odp_mrs ||
	    (transport != ORCA_WIRE_RC && transport != ORCA_WIRE_UC &&
	     transport != ORCA_WIRE_UD) ||
	    ((op->hdrs & ORCA_WIRE_HDR_IETH) &&
	     !orca_soft_key_inv_shared(sdev, pkt->ieth_rkey)))
		return NULL;
	/* A datagram for a group goes to each member QP: not one lock. */
	if (transport == ORCA_WIRE_UD && pkt->dest_qpn == ORCA_SOFT_MCAST_QPN)
		return NULL;
	qp = orca_soft_qp_find(sdev, pkt->dest_qpn);
	if (!qp || qp->type != orca_soft_wire_qp_type(transport, op->flags))
		return NULL;
	return qp;
}

/*
 * Try @qp's lock and its SRQ's (the QP's receives are taken under it).
 * The keys its packets resolve are pinned in its own list.
 */
static bool orca_soft_wire_rx_lock(struct orca_soft_qp *qp)
{
	if (!mutex_trylock(&qp->lock))
		return false;
	if (qp->srq && !mutex_trylock(&qp->srq->lock)) {
		mutex_unlock(&qp->lock);
		return false;
	}
	qp->lane_pins = &qp->pins;
	return true;
}

/* Flush the ACK @qp owes, then unlock what orca_soft_wire_rx_lock took. */
static void orca_soft_wire_rx_unlock(struct orca_soft_dev *sdev,
				     struct orca_soft_qp *qp)
{
	qp->lane_pins = NULL;
	orca_soft_wire_flush_ack(sdev, qp);
	if (qp->srq)
		mutex_unlock(&qp->srq->lock);
	mutex_unlock(&qp->lock);
}

/*
 * The wire in the shared lane (orca_soft.h; eng_rwsem held for reading,
 * by the engine thread, rxq's only consumer): received packets for RC,
 * UC and UD QPs, each under its QP's lock, so that kicks run other QPs
 * meanwhile, and the QP's SRQ's lock if it has one.  What such a packet
 * changes beyond its QP has its own lock: CQs, event queues, the
 * engine's lists (eng_lock), the counters.  Consecutive packets for one
 * QP are taken under one locking, and its ACK is flushed before the
 * locks are dropped.  A packet that does not parse is dropped in the
 * lane.  One that needs the exclusive holders (XRC, the GSI QP, a
 * multicast datagram, a window's key to invalidate, a QP or SRQ that a
 * kick is running) ends the batch: it stays in rx_held, *@excl is set,
 * and the exclusive pass takes it before any other, so packets keep
 * their order.  Return the packets taken.
 */
int orca_soft_wire_rx_shared(struct orca_soft_dev *sdev, int budget,
			     bool *excl)
{
	struct orca_soft_rx *rx = &sdev->rx_held;
	/* @locked's lock is held, and its SRQ's if it has one. */
	struct orca_soft_qp *qp, *locked = NULL;
	struct orca_wire_pkt pkt;
	int n = 0;

	lockdep_assert_held_read(&sdev->eng_rwsem);
	while (n < budget && (rx->skb || orca_soft_net_rx_next(sdev, rx))) {
		/*
		 * A packet whose headers or P_Key fail touches no QP: it is
		 * dropped here, and the batch goes on.
		 */
		if (orca_soft_wire_rx_parse(sdev, rx, &pkt)) {
			orca_soft_net_rx_done(rx);
			n++;
			continue;
		}
		qp = orca_soft_wire_rx_lane_qp(sdev, &pkt);
		if (!qp || qp != locked) {
			if (locked) {
				orca_soft_wire_rx_unlock(sdev, locked);
				locked = NULL;
			}
			if (!qp || !orca_soft_wire_rx_lock(qp)) {
				*excl = true;
				break;
			}
			locked = qp;
		}
		orca_soft_wire_rx_dispatch(sdev, rx, &pkt);
		/* The packet's data has moved: its pins go. */
		orca_soft_lane_unpin(locked);
		orca_soft_net_rx_done(rx);
		n++;
	}
	if (locked)
		orca_soft_wire_rx_unlock(sdev, locked);
	return n;
}
