// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: the requester and the completer on the wire.
 *
 * RC: the WQEs between the SQ's cons and "next" have been sent, at least
 * in part; the one at "next" may be partly sent (next_off bytes).  Each
 * started WQE is described in swqe[] (what was read from the ring when it
 * was first started), so that it can be sent again and completed whatever
 * the application does to the ring meanwhile.  Packets go out while fewer
 * than ORCA_SOFT_WIRE_WINDOW PSNs are unacknowledged, fewer than
 * max_rd_atomic READ/atomic requests are unanswered, and no fence holds.
 *
 * Responses (ACK, NAK, READ responses, atomic ACKs) are taken in PSN
 * order.  An ACK for PSN p completes every WQE that ends at or before p,
 * except a READ or atomic that has not had its response: the response
 * was lost, and the requester goes back to it.  A PSN sequence NAK, an
 * RNR NAK (after the responder's RNR timer) and the local ACK timeout all
 * go back N: everything from the PSN named (the oldest unacknowledged one
 * for a timeout) is sent again.  The ACK timeout costs one of retry_cnt
 * retries and an RNR NAK one of rnr_retry (7: infinite); both counters
 * are reloaded whenever the responder makes progress.  Any other NAK
 * completes the WQE it names in error.
 *
 * UC: packets go out from the WQE at cons, which completes once its last
 * packet is sent.  UD: each datagram is one packet, sent from the
 * requester (orca_soft_req.c).
 *
 * On-demand paging: before each packet the pages it carries are checked
 * (before a READ or atomic request, the pages its responses land in).  A
 * page fault stops the sender before that packet and the QP waits
 * (orca_soft_wire_park()); it goes on from there.  A READ response or
 * atomic ACK that finds its page not present is dropped, the sender goes
 * back to its PSN and waits: the request is sent again from there.  A
 * failed page completes the WQE with LOC_PROT_ERR.  While the QP waits
 * for a page its ACK timer is stopped: waiting costs no retry.
 */

#include <linux/bitfield.h>

#include "orca_ring.h"
#include "orca_soft_engine.h"

/* Ask for an ACK at least every this many packets of a long message. */
#define ORCA_SOFT_ACKREQ_EVERY	16

static bool orca_soft_op_rd_like(u8 op)
{
	return op == ORCA_WQE_OP_RDMA_READ ||
	       op == ORCA_WQE_OP_ATOMIC_CMP_SWP ||
	       op == ORCA_WQE_OP_ATOMIC_FETCH_ADD;
}

static bool orca_soft_op_atomic(u8 op)
{
	return op == ORCA_WQE_OP_ATOMIC_CMP_SWP ||
	       op == ORCA_WQE_OP_ATOMIC_FETCH_ADD;
}

static struct orca_soft_swqe *orca_soft_swqe_at(struct orca_soft_qp *qp,
						u32 idx)
{
	return &qp->req.swqe[idx & (ORCA_SOFT_SWQES - 1)];
}

static void orca_soft_put_sq_cons(struct orca_soft_dev *sdev,
				  struct orca_soft_qp *qp)
{
	orca_soft_dma_write32(sdev, qp->sq.db_addr +
			      offsetof(struct orca_db_record, cons),
			      qp->sq.cons);
}

/* The BTH opcode of a request packet. */
static u8 orca_soft_wire_opcode(u8 type, u8 op, bool first, bool last)
{
	u8 base = type == ORCA_QPT_UC ? ORCA_OP_UC_SEND_FIRST :
		  type == ORCA_QPT_XRC_INI ? ORCA_OP_XRC_SEND_FIRST : 0;
	u8 code;

	switch (op) {
	case ORCA_WQE_OP_SEND:
		code = first ? (last ? ORCA_OP_RC_SEND_ONLY :
			       ORCA_OP_RC_SEND_FIRST) :
			       (last ? ORCA_OP_RC_SEND_LAST :
			       ORCA_OP_RC_SEND_MIDDLE);
		break;
	case ORCA_WQE_OP_SEND_IMM:
		code = first ? (last ? ORCA_OP_RC_SEND_ONLY_IMM :
			       ORCA_OP_RC_SEND_FIRST) :
			       (last ? ORCA_OP_RC_SEND_LAST_IMM :
			       ORCA_OP_RC_SEND_MIDDLE);
		break;
	case ORCA_WQE_OP_SEND_INV:
		code = first ? (last ? ORCA_OP_RC_SEND_ONLY_INV :
			       ORCA_OP_RC_SEND_FIRST) :
			       (last ? ORCA_OP_RC_SEND_LAST_INV :
			       ORCA_OP_RC_SEND_MIDDLE);
		break;
	case ORCA_WQE_OP_RDMA_WRITE:
		code = first ? (last ? ORCA_OP_RC_WRITE_ONLY :
			       ORCA_OP_RC_WRITE_FIRST) :
			       (last ? ORCA_OP_RC_WRITE_LAST :
			       ORCA_OP_RC_WRITE_MIDDLE);
		break;
	case ORCA_WQE_OP_RDMA_WRITE_IMM:
		code = first ? (last ? ORCA_OP_RC_WRITE_ONLY_IMM :
			       ORCA_OP_RC_WRITE_FIRST) :
			       (last ? ORCA_OP_RC_WRITE_LAST_IMM :
			       ORCA_OP_RC_WRITE_MIDDLE);
		break;
	case ORCA_WQE_OP_RDMA_READ:
		code = ORCA_OP_RC_READ_REQUEST;
		break;
	case ORCA_WQE_OP_ATOMIC_CMP_SWP:
		code = ORCA_OP_RC_CMP_SWAP;
		break;
	default:
		code = ORCA_OP_RC_FETCH_ADD;
		break;
	}
	return base | code;
}

/*
 * The parts of a route that come from an address vector's info word,
 * GID and MAC, for packets from QP @sqpn to QP @dqpn.
 */
static void orca_soft_route_fill(struct orca_soft_dev *sdev,
				 struct orca_soft_route *rt, u32 info,
				 const u8 *dgid, const u8 *dmac, u32 sqpn,
				 u32 dqpn)
{
	u32 sgid = FIELD_GET(ORCA_AH_SGID_INDEX, info);

	memcpy(rt->sgid, sdev->gids[sgid % ORCA_SOFT_GID_TBL_LEN].gid,
	       sizeof(rt->sgid));
	memcpy(rt->dgid, dgid, sizeof(rt->dgid));
	memcpy(rt->dmac, dmac, ETH_ALEN);
	rt->flow_label = FIELD_GET(ORCA_AH_FLOW_LABEL, info);
	rt->sport = orca_wire_udp_sport(rt->flow_label, sqpn, dqpn);
}

/* The route of a connected QP's packets, from its address vector. */
void orca_soft_qp_route(struct orca_soft_dev *sdev,
			const struct orca_soft_qp *qp,
			struct orca_soft_route *rt)
{
	orca_soft_route_fill(sdev, rt, le32_to_cpu(qp->attr.av_info),
			     qp->attr.dgid, qp->attr.dmac, qp->qpn,
			     le32_to_cpu(qp->attr.dest_qpn));
	rt->vlan = le16_to_cpu(qp->attr.vlan);
	rt->hop_limit = qp->attr.hop_limit;
	rt->traffic_class = qp->attr.traffic_class;
}

/*
 * Build and send one packet: the headers @pkt describes, then
 * @pkt->payload_len bytes of @sgl from @off.  The payload length must be
 * what the opcode allows.
 */
int orca_soft_wire_tx(struct orca_soft_dev *sdev,
		      const struct orca_soft_route *rt,
		      struct orca_wire_pkt *pkt,
		      const struct orca_soft_sgl *sgl, u64 off)
{
	const struct orca_wire_opinfo *op = orca_wire_opinfo(pkt->opcode);
	u32 pad = orca_wire_pad(pkt->payload_len);
	struct sk_buff *skb;
	u32 len;
	u8 *p;
	int hl;

	if (WARN_ON_ONCE(!op))
		return -EINVAL;
	len = op->hdr_len + pkt->payload_len + pad;
	skb = orca_soft_net_alloc(sdev, rt, len, &p);
	if (!skb) {
		orca_soft_count(sdev, ORCA_SOFT_CNT_TX_DROPS, 1);
		return -ENOMEM;
	}
	hl = orca_wire_build(pkt, p, len);
	if (WARN_ON_ONCE(hl < 0) ||
	    (pkt->payload_len &&
	     orca_soft_sgl_read(sdev, sgl, off, p + hl, pkt->payload_len))) {
		kfree_skb(skb);
		orca_soft_count(sdev, ORCA_SOFT_CNT_TX_DROPS, 1);
		return -EFAULT;
	}
	memset(p + hl + pkt->payload_len, 0, pad);
	orca_soft_count(sdev, ORCA_SOFT_CNT_TX_PACKETS, 1);
	orca_soft_count(sdev, ORCA_SOFT_CNT_TX_BYTES, pkt->payload_len);
	return orca_soft_net_xmit(sdev, skb);
}

/* ------------------------------------------------------------------ UD */

/* One datagram of a UD or GSI QP to another host (or a group's hosts). */
void orca_soft_wire_send_ud(struct orca_soft_dev *sdev,
			    struct orca_soft_qp *qp,
			    const struct orca_soft_msg *msg, u32 dest_qpn)
{
	const struct orca_av *av = msg->av;
	struct orca_wire_pkt pkt = {
		.opcode = msg->opcode == ORCA_WQE_OP_SEND_IMM ?
			  ORCA_OP_UD_SEND_ONLY_IMM : ORCA_OP_UD_SEND_ONLY,
		.se = msg->solicited,
		.pkey = ORCA_SOFT_PKEY_DEFAULT,
		.dest_qpn = dest_qpn,
		.psn = msg->psn,
		.imm = cpu_to_be32(msg->imm_inv),
		.deth_qkey = msg->qkey,
		.deth_sqpn = qp->qpn,
		.payload_len = msg->len,
	};
	struct orca_soft_route rt = {
		.vlan = le16_to_cpu(av->vlan),
		.hop_limit = av->hop_limit,
		.traffic_class = av->traffic_class,
	};

	orca_soft_route_fill(sdev, &rt, le32_to_cpu(av->info), av->dgid,
			     av->dmac, qp->qpn, dest_qpn);
	orca_soft_wire_tx(sdev, &rt, &pkt, msg->local, 0);
}

/* ------------------------------------------------------- RC completion */

/*
 * Arm the engine's timer list for @qp's wire deadlines.  In the shared
 * lane other QPs' nodes change beside @qp's, and the engine thread learns
 * of the deadline through eng_timer_min.
 */
void orca_soft_wire_arm(struct orca_soft_dev *sdev, struct orca_soft_qp *qp)
{
	u64 due = orca_soft_wire_deadline(qp);

	spin_lock(&sdev->eng_lock);
	if (due != U64_MAX) {
		if (list_empty(&qp->timer_node))
			list_add_tail(&qp->timer_node, &sdev->eng_timers);
		if (due < (u64)atomic64_read(&sdev->eng_timer_min))
			atomic64_set(&sdev->eng_timer_min, (s64)due);
	} else {
		list_del_init(&qp->timer_node);
	}
	spin_unlock(&sdev->eng_lock);
}

/*
 * The earliest wire deadline of @qp, U64_MAX if none: the requester's
 * ACK timer and RNR wait, the responder's wait for a page.
 */
u64 orca_soft_wire_deadline(const struct orca_soft_qp *qp)
{
	u64 t = U64_MAX;

	if (qp->req.timer_at)
		t = qp->req.timer_at;
	if (qp->req.rnr_until)
		t = min(t, qp->req.rnr_until);
	if (qp->resp.odp_until)
		t = min(t, qp->resp.odp_until);
	return t;
}

/*
 * (Re)start the ACK timer if anything is unacknowledged, else stop it.
 * An RNR wait, or a wait for a page, is not an ACK wait: the timer starts
 * again with the resend.
 */
static void orca_soft_wire_restart_timer(struct orca_soft_dev *sdev,
					 struct orca_soft_qp *qp, bool progress)
{
	u64 to = orca_ack_timeout_ns(qp->attr.timeout);

	if (orca_psn_diff(qp->req.max_psn, qp->req.una_psn) <= 0 || !to ||
	    qp->req.rnr_until || qp->req.wait == ORCA_SOFT_WAIT_ODP)
		qp->req.timer_at = 0;
	else if (progress || !qp->req.timer_at)
		qp->req.timer_at = ktime_get_ns() + to;
	orca_soft_wire_arm(sdev, qp);
}

/*
 * The page fault just posted stops @qp's sender: it waits for the page
 * (orca_soft_odp_park()), without its ACK timer.
 */
static void orca_soft_wire_park(struct orca_soft_dev *sdev,
				struct orca_soft_qp *qp)
{
	orca_soft_odp_park(sdev, qp);
	qp->req.timer_at = 0;
	orca_soft_wire_arm(sdev, qp);
}

/* The WQE at cons is done with @status. */
static void orca_soft_wire_complete(struct orca_soft_dev *sdev,
				    struct orca_soft_qp *qp, u8 status)
{
	struct orca_soft_swqe *w = orca_soft_swqe_at(qp, qp->sq.cons);
	struct orca_soft_cqe_info ci = {
		.qpn = qp->qpn,
		.wr_id = w->wr_id,
		.opcode = orca_soft_wqe_cqe_opcode(w->op),
		.byte_len = w->len,
		.status = status,
	};
	bool signaled = qp->sq_sig_all || (w->flags & ORCA_WQE_FLAG_SIGNALED);

	if (w->npkts && orca_soft_op_rd_like(w->op) &&
	    qp->req.outstanding_rd_atomic &&
	    qp->sq.cons != qp->req.next)
		qp->req.outstanding_rd_atomic--;
	qp->sq.cons++;
	if (qp->req.next == qp->sq.cons - 1) {
		qp->req.next = qp->sq.cons;
		qp->req.next_off = 0;
	}
	/* The slot is free before its CQE can be seen. */
	orca_soft_put_sq_cons(sdev, qp);
	if (signaled || status != ORCA_CQE_ST_SUCCESS)
		orca_soft_cq_complete(sdev, qp->send_cq, &ci);
	if (status != ORCA_CQE_ST_SUCCESS) {
		qp->req.timer_at = 0;
		qp->req.rnr_until = 0;
		spin_lock(&sdev->eng_lock);
		list_del_init(&qp->timer_node);
		spin_unlock(&sdev->eng_lock);
		orca_soft_qp_set_err(sdev, qp);
	}
	orca_soft_sqd_check(sdev, qp);
}

/*
 * Position the sender at @psn: the WQE that contains it, at the byte
 * where that packet starts (go back N, or forward past what an ACK
 * covered).  READ/atomic requests before it are unanswered.
 */
static void orca_soft_wire_seek(struct orca_soft_dev *sdev,
				struct orca_soft_qp *qp, u32 psn)
{
	u32 mtu = orca_soft_qp_mtu(sdev, qp);
	u32 i;

	qp->req.outstanding_rd_atomic = 0;
	for (i = qp->sq.cons; i != qp->req.started; i++) {
		struct orca_soft_swqe *w = orca_soft_swqe_at(qp, i);
		s32 d;

		if (!w->npkts)
			continue;
		if (orca_psn_diff(psn, orca_psn_add(w->first_psn,
						    w->npkts)) < 0) {
			d = orca_psn_diff(psn, w->first_psn);
			if (d < 0 || orca_soft_op_atomic(w->op))
				d = 0;
			qp->req.next = i;
			qp->req.next_off = d * mtu;
			qp->req.sq_psn = orca_psn_add(w->first_psn, d);
			return;
		}
		if (orca_soft_op_rd_like(w->op))
			qp->req.outstanding_rd_atomic++;
	}
	qp->req.next = qp->req.started;
	qp->req.next_off = 0;
	qp->req.sq_psn = psn;
}

/*
 * Complete the WQEs whose PSNs all lie before @psn (the responder has
 * them) and those executed locally in between.  Stop at a READ or atomic
 * without its response: return false, una at the first PSN it lacks.  A
 * @psn inside a READ's or atomic's PSNs acknowledges only the responses
 * already taken: una does not move into the unanswered ones.
 */
static bool orca_soft_wire_ack_before(struct orca_soft_dev *sdev,
				      struct orca_soft_qp *qp, u32 psn)
{
	while (qp->sq.cons != qp->req.started && qp->state != ORCA_QPS_ERR) {
		struct orca_soft_swqe *w = orca_soft_swqe_at(qp, qp->sq.cons);
		u32 end = orca_psn_add(w->first_psn, w->npkts);

		if (!w->npkts) {
			if (qp->sq.cons == qp->req.next)
				break;
			orca_soft_wire_complete(sdev, qp, w->status);
			continue;
		}
		if (orca_soft_op_rd_like(w->op)) {
			/* Completed by its last response, never by an ACK. */
			if (orca_psn_diff(w->first_psn, qp->req.una_psn) > 0)
				qp->req.una_psn = w->first_psn;
			return orca_psn_diff(psn, end) < 0 &&
			       orca_psn_diff(psn, qp->req.una_psn) <= 0;
		}
		if (orca_psn_diff(psn, end) < 0)
			break;
		orca_soft_wire_complete(sdev, qp, ORCA_CQE_ST_SUCCESS);
	}
	if (orca_psn_diff(psn, qp->req.una_psn) > 0)
		qp->req.una_psn = psn;
	return true;
}

/* Local ops and failed WQEs at the head complete in order. */
static void orca_soft_wire_retire(struct orca_soft_dev *sdev,
				  struct orca_soft_qp *qp)
{
	while (qp->sq.cons != qp->req.next &&
	       (qp->state == ORCA_QPS_RTS || qp->state == ORCA_QPS_SQD)) {
		struct orca_soft_swqe *w = orca_soft_swqe_at(qp, qp->sq.cons);

		if (w->npkts)
			break;
		if (qp->req.failed && qp->sq.cons == qp->req.fail_idx)
			qp->req.failed = false;
		orca_soft_wire_complete(sdev, qp, w->status);
	}
}

/*
 * The started WQE @w at SQ index @idx failed (@st) before all of it was
 * sent: it sends nothing more, and neither does any WQE after it, even
 * one already started whose packets a go-back-N would send again (they
 * would carry the failed one's offset and PSNs).  It completes when the
 * WQEs before it have; then the QP is in error and flushes the rest.
 */
static void orca_soft_wire_fail(struct orca_soft_qp *qp,
				struct orca_soft_swqe *w, u32 idx, u8 st)
{
	w->npkts = 0;
	w->status = st;
	if (!qp->req.failed || (s32)(idx - qp->req.fail_idx) < 0) {
		qp->req.failed = true;
		qp->req.fail_idx = idx;
	}
	qp->req.next = idx + 1;
	qp->req.next_off = 0;
}

/*
 * Re-read the WQE of @w (SQ index @idx) and resolve its local buffer into
 * req_scr->local.  The application may have rewritten the slot: it must
 * still describe the same operation and length.  0, or the CQE status
 * to complete the WQE with: its own decoding's (a local key invalidated
 * since it started: LOC_PROT_ERR), else LOC_QP_OP_ERR.
 */
static u8 orca_soft_wire_load(struct orca_soft_dev *sdev,
			      struct orca_soft_qp *qp, u32 idx,
			      const struct orca_soft_swqe *w)
{
	u64 addr = orca_soft_wq_slot(&qp->sq, idx);
	struct orca_soft_cqe_info ci = {};
	const struct orca_send_wqe *wqe = (const void *)qp->req_scr->wqe;
	struct orca_soft_msg msg;
	bool executed;
	u8 st;

	if (orca_soft_dma_read(sdev, addr, qp->req_scr->wqe,
			       ORCA_SEND_WQE_HDR_SIZE))
		return ORCA_CQE_ST_LOC_QP_OP_ERR;
	/* A slot rewritten to a memory-key operation is not executed. */
	if ((le32_to_cpu(wqe->ctrl) & ORCA_WQE_CTRL_OPCODE_MASK) != w->op)
		return ORCA_CQE_ST_LOC_QP_OP_ERR;
	st = orca_soft_req_decode(sdev, qp, addr, &msg, &ci, &executed);
	if (st)
		return st;
	if (executed || msg.opcode != w->op || msg.len != w->len)
		return ORCA_CQE_ST_LOC_QP_OP_ERR;
	return 0;
}

/* A READ response or atomic ACK for the WQE at cons, at PSN una. */
static void orca_soft_wire_rd_resp(struct orca_soft_dev *sdev,
				   struct orca_soft_qp *qp,
				   const struct orca_wire_pkt *pkt,
				   const u8 *payload)
{
	struct orca_soft_req_scratch *s = qp->req_scr;
	u32 mtu = orca_soft_qp_mtu(sdev, qp);
	struct orca_soft_swqe *w;
	u32 idx, off, plen;
	bool atomic = pkt->opcode == ORCA_OP_RC_ATOMIC_ACK;
	u8 want, st;
	u64 orig;
	int ret;

	/*
	 * A response answers every request before it: the SENDs and WRITEs
	 * whose ACK was coalesced into it or lost are complete.
	 */
	if (orca_psn_diff(pkt->psn, qp->req.una_psn) > 0) {
		orca_soft_wire_ack_before(sdev, qp, pkt->psn);
		if (qp->state == ORCA_QPS_ERR)
			return;
	}
	if (pkt->psn != qp->req.una_psn) {
		/*
		 * A gap in the responses: those before it were lost.  Ask
		 * again from the first one missing, once per gap, rather
		 * than wait for the ACK timer.
		 */
		if (orca_psn_diff(pkt->psn, qp->req.una_psn) > 0 &&
		    qp->req.gap_psn != qp->req.una_psn) {
			qp->req.gap_psn = qp->req.una_psn;
			orca_soft_count(sdev, ORCA_SOFT_CNT_OUT_OF_SEQUENCE, 1);
			orca_soft_wire_seek(sdev, qp, qp->req.una_psn);
		}
		return;
	}
	/* Everything before it has been answered. */
	if (!orca_soft_wire_ack_before(sdev, qp, pkt->psn) ||
	    qp->sq.cons == qp->req.started || qp->state == ORCA_QPS_ERR)
		return;
	w = orca_soft_swqe_at(qp, qp->sq.cons);
	idx = orca_psn_diff(pkt->psn, w->first_psn);
	if (!w->npkts || idx >= w->npkts ||
	    atomic != orca_soft_op_atomic(w->op) ||
	    (!atomic && w->op != ORCA_WQE_OP_RDMA_READ))
		goto drop;
	if (atomic) {
		want = ORCA_OP_RC_ATOMIC_ACK;
		plen = 0;
		off = 0;
	} else {
		off = idx * mtu;
		plen = min(mtu, w->len - off);
		if (w->npkts == 1)
			want = ORCA_OP_RC_READ_RESP_ONLY;
		else if (!idx)
			want = ORCA_OP_RC_READ_RESP_FIRST;
		else if (idx == w->npkts - 1)
			want = ORCA_OP_RC_READ_RESP_LAST;
		else
			want = ORCA_OP_RC_READ_RESP_MIDDLE;
	}
	if (pkt->opcode != want || pkt->payload_len != plen)
		goto drop;
	st = orca_soft_wire_load(sdev, qp, qp->sq.cons, w);
	if (st) {
		orca_soft_wire_complete(sdev, qp, st);
		return;
	}
	if (atomic) {
		orig = pkt->atomic_orig;
		orca_soft_sgl_kbuf(&s->kbuf, &orig, sizeof(orig));
		plen = sizeof(orig);
	} else {
		orca_soft_sgl_kbuf(&s->kbuf, payload, plen);
	}
	ret = orca_soft_sgl_odp_check(sdev, &s->local, off, plen, true);
	if (ret == -EAGAIN) {
		/*
		 * Nowhere to land: the response is dropped, and the request
		 * is sent again from its PSN once the page is there.  The
		 * responses after it are not a gap to report.
		 */
		qp->req.gap_psn = qp->req.una_psn;
		orca_soft_wire_seek(sdev, qp, qp->req.una_psn);
		orca_soft_wire_park(sdev, qp);
		return;
	}
	if (ret || (plen && orca_soft_sgl_copy(sdev, &s->local, off,
					       &s->kbuf, 0, plen))) {
		orca_soft_wire_complete(sdev, qp, ORCA_CQE_ST_LOC_PROT_ERR);
		return;
	}
	qp->req.una_psn = orca_psn_add(pkt->psn, 1);
	if (idx == w->npkts - 1)
		orca_soft_wire_complete(sdev, qp, ORCA_CQE_ST_SUCCESS);
	return;
drop:
	orca_soft_count(sdev, ORCA_SOFT_CNT_RX_DROPS, 1);
}

static u8 orca_soft_nak_status(u8 code)
{
	switch (code) {
	case ORCA_AETH_NAK_REM_ACCESS:
		return ORCA_CQE_ST_REM_ACCESS_ERR;
	case ORCA_AETH_NAK_REM_OP:
		return ORCA_CQE_ST_REM_OP_ERR;
	default:
		return ORCA_CQE_ST_REM_INV_REQ_ERR;
	}
}

/* An RNR NAK for PSN @psn: wait the responder's timer, then go back. */
static void orca_soft_wire_rnr(struct orca_soft_dev *sdev,
			       struct orca_soft_qp *qp, u32 psn, u8 timer)
{
	orca_soft_count(sdev, ORCA_SOFT_CNT_RNR_NAKS_RCVD, 1);
	if (!orca_soft_wire_ack_before(sdev, qp, psn) ||
	    qp->state == ORCA_QPS_ERR)
		return;
	if (!qp->req.rnr_retry_left) {
		if (qp->sq.cons != qp->req.started)
			orca_soft_wire_complete(sdev, qp,
						ORCA_CQE_ST_RNR_RETRY_EXC_ERR);
		return;
	}
	if (qp->req.rnr_retry_left != ORCA_SOFT_RNR_INFINITE)
		qp->req.rnr_retry_left--;
	orca_soft_wire_seek(sdev, qp, psn);
	qp->req.rnr_until = ktime_get_ns() +
			    (u64)orca_rnr_timer_us(timer) * NSEC_PER_USEC;
	qp->req.timer_at = 0;
}

/*
 * A response from the responder: ACK, NAK, READ response or atomic ACK
 * (already parsed; @payload is @pkt->payload_len bytes).
 */
void orca_soft_wire_rx_response(struct orca_soft_dev *sdev,
				struct orca_soft_qp *qp,
				const struct orca_wire_pkt *pkt,
				const u8 *payload)
{
	u32 una = qp->req.una_psn;
	u8 syn = pkt->aeth_syndrome;
	u8 type = FIELD_GET(ORCA_AETH_SYN_TYPE, syn);
	u8 value = FIELD_GET(ORCA_AETH_SYN_VALUE, syn);
	bool has_aeth = orca_wire_opinfo(pkt->opcode)->hdrs &
			ORCA_WIRE_HDR_AETH;

	if (!orca_soft_qp_is_rc(qp) || !qp->req.swqe ||
	    (qp->state != ORCA_QPS_RTS && qp->state != ORCA_QPS_SQD)) {
		orca_soft_count(sdev, ORCA_SOFT_CNT_RX_DROPS, 1);
		return;
	}
	/*
	 * Only PSNs sent and not yet acknowledged mean anything: an older
	 * response (a replay overtaken by an ACK) is normal and ignored.
	 */
	if (orca_psn_diff(pkt->psn, qp->req.max_psn) >= 0 ||
	    orca_psn_diff(pkt->psn, orca_psn_add(una, -1U)) < 0)
		return;

	if (pkt->opcode != ORCA_OP_RC_ACK) {
		if (has_aeth && type != ORCA_AETH_ACK)
			goto drop;
		orca_soft_wire_rd_resp(sdev, qp, pkt, payload);
	} else if (type == ORCA_AETH_ACK) {
		if (!orca_soft_wire_ack_before(sdev, qp,
					       orca_psn_add(pkt->psn, 1)))
			orca_soft_wire_seek(sdev, qp, qp->req.una_psn);
	} else if (type == ORCA_AETH_RNR_NAK) {
		orca_soft_wire_rnr(sdev, qp, pkt->psn, value);
	} else if (type == ORCA_AETH_NAK) {
		orca_soft_count(sdev, ORCA_SOFT_CNT_NAKS_RCVD +
				min_t(u8, value, 3), 1);
		if (!orca_soft_wire_ack_before(sdev, qp, pkt->psn) ||
		    qp->state == ORCA_QPS_ERR) {
			orca_soft_wire_seek(sdev, qp, qp->req.una_psn);
		} else if (value == ORCA_AETH_NAK_PSN_SEQ) {
			orca_soft_wire_seek(sdev, qp, pkt->psn);
		} else if (qp->sq.cons != qp->req.started) {
			orca_soft_wire_complete(sdev, qp,
						orca_soft_nak_status(value));
		}
	} else {
		goto drop;
	}
	if (qp->state == ORCA_QPS_ERR)
		return;
	/* An ACK beyond where the sender went back to moves it forward. */
	if (orca_psn_diff(qp->req.una_psn, qp->req.sq_psn) > 0)
		orca_soft_wire_seek(sdev, qp, qp->req.una_psn);
	if (qp->req.una_psn != una) {
		qp->req.retry_left = qp->attr.retry_cnt;
		qp->req.rnr_retry_left = qp->attr.rnr_retry;
	}
	orca_soft_wire_retire(sdev, qp);
	orca_soft_wire_restart_timer(sdev, qp, qp->req.una_psn != una);
	orca_soft_qp_activate(sdev, qp);
	return;
drop:
	orca_soft_count(sdev, ORCA_SOFT_CNT_RX_DROPS, 1);
}

/*
 * The wire deadlines of @qp that are due: the RNR wait and the
 * responder's wait for a page end; the ACK timer expired (if not yet:
 * nothing).
 */
void orca_soft_wire_timer(struct orca_soft_dev *sdev, struct orca_soft_qp *qp)
{
	u64 now = ktime_get_ns();

	if (qp->resp.odp_until && now >= qp->resp.odp_until)
		qp->resp.odp_until = 0;
	if (qp->req.rnr_until && now >= qp->req.rnr_until)
		qp->req.rnr_until = 0;
	if (!qp->req.timer_at || now < qp->req.timer_at)
		return;
	qp->req.timer_at = 0;
	if (orca_psn_diff(qp->req.max_psn, qp->req.una_psn) <= 0)
		return;
	orca_soft_count(sdev, ORCA_SOFT_CNT_ACK_TIMEOUTS, 1);
	if (!qp->req.retry_left) {
		if (qp->sq.cons != qp->req.started)
			orca_soft_wire_complete(sdev, qp,
						ORCA_CQE_ST_RETRY_EXC_ERR);
		return;
	}
	qp->req.retry_left--;
	orca_soft_wire_seek(sdev, qp, qp->req.una_psn);
}

/* ------------------------------------------------------------- sending */

/*
 * Copy the send WQE at SQ index @idx and decode it into @w: -EIO when the
 * ring cannot be read (the SQ is then fatal), else the CQE status the
 * decoding gives; *@executed for LOCAL_INV, REG_MR and BIND_MW, done
 * already.  In the shared lane (@excl) a WQE it does not execute
 * (orca_soft_wqe_refused(), or a memory key another lane copies
 * through) is left as it is: -EAGAIN, *@excl set.
 */
static int orca_soft_swqe_fill(struct orca_soft_dev *sdev,
			       struct orca_soft_qp *qp, u32 idx,
			       struct orca_soft_swqe *w,
			       struct orca_soft_cqe_info *ci, bool *executed,
			       bool *excl)
{
	struct orca_send_wqe *wqe = (struct orca_send_wqe *)qp->req_scr->wqe;
	u64 addr = orca_soft_wq_slot(&qp->sq, idx);
	struct orca_soft_msg msg = {};
	u32 ctrl;
	u8 st;

	memset(w, 0, sizeof(*w));
	if (orca_soft_dma_read(sdev, addr, wqe, ORCA_SEND_WQE_HDR_SIZE)) {
		orca_soft_wq_fatal(sdev, qp, &qp->sq);
		return -EIO;
	}
	if (orca_soft_wqe_refused(sdev, qp, wqe, excl))
		return -EAGAIN;
	ctrl = le32_to_cpu(wqe->ctrl);
	w->wr_id = le64_to_cpu(wqe->wr_id);
	w->op = ctrl & ORCA_WQE_CTRL_OPCODE_MASK;
	w->flags = (ctrl & ORCA_WQE_CTRL_FLAGS_MASK) >>
		   ORCA_WQE_CTRL_FLAGS_SHIFT;
	ci->wr_id = w->wr_id;
	ci->opcode = orca_soft_wqe_cqe_opcode(w->op);
	st = orca_soft_req_decode(sdev, qp, addr, &msg, ci, executed);
	if (st == ORCA_SOFT_REQ_EXCL) {
		*excl = true;
		return -EAGAIN;
	}
	w->len = ci->byte_len;
	if (st != ORCA_CQE_ST_SUCCESS || *executed)
		return st;
	w->len = msg.len;
	w->remote_addr = msg.remote_addr;
	w->rkey = msg.rkey;
	w->imm_inv = msg.imm_inv;
	w->compare_add = msg.compare_add;
	w->swap = msg.swap;
	w->xrc_srqn = msg.xrc_srqn;
	return st;
}

/*
 * Start the WQE at next (first time): copy what it is into swqe[].  False
 * if the sender stops: the ring is unreadable, the WQE failed to start,
 * or (*@excl set) the shared lane leaves it untouched.
 */
static bool orca_soft_wire_start(struct orca_soft_dev *sdev,
				 struct orca_soft_qp *qp, bool *excl)
{
	struct orca_soft_swqe *w = orca_soft_swqe_at(qp, qp->req.next);
	u32 mtu = orca_soft_qp_mtu(sdev, qp);
	struct orca_soft_cqe_info ci = {};
	bool executed;
	int st;

	st = orca_soft_swqe_fill(sdev, qp, qp->req.next, w, &ci, &executed,
				 excl);
	if (st < 0)
		return false;
	qp->req.started++;
	if (st != ORCA_CQE_ST_SUCCESS || executed) {
		w->status = st;
		qp->req.next++;
		return st == ORCA_CQE_ST_SUCCESS;
	}
	w->first_psn = qp->req.sq_psn;
	w->npkts = orca_soft_op_atomic(w->op) ? 1 : orca_packets(w->len, mtu);
	return true;
}

/*
 * The on-demand pages of the next packet of @w, from byte @off of its
 * local buffer @sgl: the @plen bytes it carries, or for a READ or atomic
 * request the rest of the buffer its responses land in.  0, or else the
 * sender stops: at a page fault the QP waits (and 0 goes to *@st), at a
 * failed page *@st is LOC_PROT_ERR.
 */
static bool orca_soft_wire_pkt_pages(struct orca_soft_dev *sdev,
				     struct orca_soft_qp *qp,
				     const struct orca_soft_swqe *w,
				     const struct orca_soft_sgl *sgl, u32 off,
				     u32 plen, u8 *st)
{
	int ret;

	if (orca_soft_op_rd_like(w->op))
		ret = orca_soft_sgl_odp_check(sdev, sgl, off, w->len - off,
					      true);
	else
		ret = orca_soft_sgl_odp_check(sdev, sgl, off, plen, false);
	if (ret == -EAGAIN)
		orca_soft_wire_park(sdev, qp);
	else if (ret)
		*st = ORCA_CQE_ST_LOC_PROT_ERR;
	return !ret;
}

/*
 * Send packets of the WQE at next from next_off, its local buffer in
 * req_scr->local; return packets sent, up to @budget.  *@st is 0, or the
 * status the WQE fails with (a failed page) and nothing more is sent.
 * The sender also stops short when the QP waits for a page.
 */
static int orca_soft_wire_send_wqe(struct orca_soft_dev *sdev,
				   struct orca_soft_qp *qp,
				   struct orca_soft_swqe *w, int budget,
				   u8 *st)
{
	struct orca_soft_sgl *sgl = &qp->req_scr->local;
	u32 mtu = orca_soft_qp_mtu(sdev, qp);
	bool rc = orca_soft_qp_is_rc(qp);
	struct orca_soft_route rt;
	int n = 0;

	*st = 0;
	orca_soft_qp_route(sdev, qp, &rt);
	do {
		u32 off = qp->req.next_off;
		u32 psn = qp->req.sq_psn;
		struct orca_wire_pkt pkt = {
			.pkey = ORCA_SOFT_PKEY_DEFAULT,
			.dest_qpn = le32_to_cpu(qp->attr.dest_qpn),
			.psn = psn,
		};
		u32 npsn = 1, plen = 0;
		bool first = !off, last = true;

		if (rc && orca_psn_diff(psn, qp->req.una_psn) >=
			  ORCA_SOFT_WIRE_WINDOW)
			break;
		if (w->op == ORCA_WQE_OP_RDMA_READ) {
			pkt.reth_va = w->remote_addr + off;
			pkt.reth_rkey = w->rkey;
			pkt.reth_len = w->len - off;
			pkt.ack_req = true;
			npsn = orca_packets(w->len - off, mtu);
		} else if (orca_soft_op_atomic(w->op)) {
			pkt.atomic_va = w->remote_addr;
			pkt.atomic_rkey = w->rkey;
			pkt.atomic_swap_add = w->op == ORCA_WQE_OP_ATOMIC_CMP_SWP ?
					      w->swap : w->compare_add;
			pkt.atomic_compare = w->compare_add;
			pkt.ack_req = true;
		} else {
			plen = min(mtu, w->len - off);
			last = off + plen == w->len;
			if (first && (w->op == ORCA_WQE_OP_RDMA_WRITE ||
				      w->op == ORCA_WQE_OP_RDMA_WRITE_IMM)) {
				pkt.reth_va = w->remote_addr;
				pkt.reth_rkey = w->rkey;
				pkt.reth_len = w->len;
			}
			if (last) {
				pkt.imm = cpu_to_be32(w->imm_inv);
				pkt.ieth_rkey = w->imm_inv;
				pkt.se = (w->flags & ORCA_WQE_FLAG_SOLICITED) &&
					 w->op != ORCA_WQE_OP_RDMA_WRITE;
			}
			pkt.ack_req = rc && (last || !((psn + 1) %
					     ORCA_SOFT_ACKREQ_EVERY));
			pkt.payload_len = plen;
		}
		if (!orca_soft_wire_pkt_pages(sdev, qp, w, sgl, off, plen, st))
			break;
		pkt.opcode = orca_soft_wire_opcode(qp->type, w->op, first, last);
		pkt.xrc_srqn = w->xrc_srqn;
		if (rc && orca_psn_diff(psn, qp->req.max_psn) < 0)
			orca_soft_count(sdev, ORCA_SOFT_CNT_RETRANSMITS, 1);
		orca_soft_wire_tx(sdev, &rt, &pkt, sgl, off);
		qp->req.sq_psn = orca_psn_add(psn, npsn);
		if (orca_psn_diff(qp->req.sq_psn, qp->req.max_psn) > 0)
			qp->req.max_psn = qp->req.sq_psn;
		n++;
		if (w->op == ORCA_WQE_OP_RDMA_READ ||
		    orca_soft_op_atomic(w->op))
			qp->req.next_off = w->len;
		else
			qp->req.next_off = off + plen;
	} while (qp->req.next_off < w->len && n < budget);
	return n;
}

/* UC: send the WQE at cons and complete it. */
static int orca_soft_wire_uc_run(struct orca_soft_dev *sdev,
				 struct orca_soft_qp *qp, u32 prod, int budget,
				 bool *excl)
{
	int n = 0;

	/* SQD: only the message being sent goes on. */
	while (qp->sq.cons != prod && n < budget &&
	       qp->req.wait == ORCA_SOFT_WAIT_NONE &&
	       (qp->state == ORCA_QPS_RTS ||
		(qp->state == ORCA_QPS_SQD && qp->req.next_off))) {
		struct orca_soft_cqe_info ci = { .qpn = qp->qpn };
		struct orca_soft_swqe w;
		bool executed, signaled;
		u8 fail;
		int st;

		/* In the lane, the last WQE's packets are out: its pins go. */
		orca_soft_lane_unpin(qp);
		st = orca_soft_swqe_fill(sdev, qp, qp->sq.cons, &w, &ci,
					 &executed, excl);
		if (st < 0)
			break;
		if (st == ORCA_CQE_ST_SUCCESS && !executed) {
			n += orca_soft_wire_send_wqe(sdev, qp, &w, budget - n,
						     &fail);
			if (fail)
				st = fail;
			else if (qp->req.next_off < w.len)
				break;
		} else {
			n++;
		}
		qp->req.next_off = 0;
		signaled = qp->sq_sig_all ||
			   (w.flags & ORCA_WQE_FLAG_SIGNALED);
		qp->sq.cons++;
		qp->req.next = qp->sq.cons;
		qp->req.started = qp->sq.cons;
		orca_soft_put_sq_cons(sdev, qp);
		ci.status = st;
		if (signaled || st != ORCA_CQE_ST_SUCCESS)
			orca_soft_cq_complete(sdev, qp->send_cq, &ci);
		if (st != ORCA_CQE_ST_SUCCESS)
			orca_soft_qp_set_err(sdev, qp);
	}
	return n;
}

/*
 * The newest WQE started failed before it was sent (a bad SGE, say): it
 * completes in error once the WQEs before it are acknowledged, and the
 * QP goes to ERR, which flushes the WQEs after it.  None of them starts.
 */
static bool orca_soft_wire_halted(struct orca_soft_qp *qp)
{
	const struct orca_soft_swqe *w;

	if (qp->req.failed)
		return true;
	if (qp->req.started == qp->sq.cons)
		return false;
	w = orca_soft_swqe_at(qp, qp->req.started - 1);
	return !w->npkts && w->status != ORCA_CQE_ST_SUCCESS;
}

/*
 * Does the WQE at next wait for a FENCE?  LOCAL_INV, REG_MR and BIND_MW
 * take effect when they start, before any packet, so the flag is judged
 * before the start, for every opcode.  A ring that cannot be read is
 * the start's to report.
 */
static bool orca_soft_wire_fenced(struct orca_soft_dev *sdev,
				  struct orca_soft_qp *qp)
{
	u64 addr = orca_soft_wq_slot(&qp->sq, qp->req.next);
	u32 ctrl;

	if (!qp->req.outstanding_rd_atomic ||
	    orca_soft_dma_read32(sdev,
				 addr + offsetof(struct orca_send_wqe, ctrl),
				 &ctrl))
		return false;
	return FIELD_GET(ORCA_WQE_CTRL_FLAGS_MASK, ctrl) & ORCA_WQE_FLAG_FENCE;
}

/*
 * RC and UC over the wire: send what the window allows (QP in RTS, or in
 * SQD with WQEs in progress); return the packets sent and WQEs retired.
 * In the shared lane (@excl; @qp locked, RTS) the sender stops before a
 * WQE it may not start and sets *@excl.
 */
int orca_soft_wire_sq_run(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
			  int budget, bool *excl)
{
	u32 max_rd = max_t(u32, qp->attr.max_rd_atomic, 1);
	u64 now;
	u32 prod;
	int n = 0;
	u8 st;

	if (orca_soft_dma_read32(sdev, qp->sq.db_addr +
				 offsetof(struct orca_db_record, prod), &prod) ||
	    !orca_wq_prod_ok(prod, qp->sq.cons, qp->sq.log2_depth)) {
		orca_soft_wq_fatal(sdev, qp, &qp->sq);
		return 0;
	}
	if (qp->type == ORCA_QPT_UC)
		return orca_soft_wire_uc_run(sdev, qp, prod, budget, excl);
	if (WARN_ON_ONCE(!qp->req.swqe))
		return 0;

	/*
	 * The ACK timer is judged by the engine's timer pass only, after
	 * the packets received before it was due (an ACK may be queued).
	 */
	if (qp->state != ORCA_QPS_RTS && qp->state != ORCA_QPS_SQD)
		return 0;
	now = ktime_get_ns();
	if (qp->req.rnr_until && now < qp->req.rnr_until) {
		orca_soft_wire_arm(sdev, qp);
		return 0;
	}
	qp->req.rnr_until = 0;
	if (!qp->req.wqe_started) {
		qp->req.retry_left = qp->attr.retry_cnt;
		qp->req.rnr_retry_left = qp->attr.rnr_retry;
		qp->req.wqe_started = true;
	}

	while (n < budget &&
	       (qp->state == ORCA_QPS_RTS || qp->state == ORCA_QPS_SQD)) {
		struct orca_soft_swqe *w;
		bool fresh = qp->req.next == qp->req.started;

		/* In the lane, the last WQE's packets are out: its pins go. */
		orca_soft_lane_unpin(qp);
		if (qp->req.next == prod && fresh)
			break;
		/* Nothing at or after a failed WQE goes out. */
		if (qp->req.failed &&
		    (s32)(qp->req.next - qp->req.fail_idx) >= 0)
			break;
		if (fresh) {
			/* SQD starts nothing: the started WQEs finish. */
			if (qp->req.next - qp->sq.cons >= ORCA_SOFT_SWQES ||
			    orca_soft_wire_halted(qp) ||
			    qp->state == ORCA_QPS_SQD ||
			    orca_soft_wire_fenced(sdev, qp))
				break;
			if (!orca_soft_wire_start(sdev, qp, excl)) {
				if (!excl || !*excl)
					n++;
				break;
			}
			w = orca_soft_swqe_at(qp, qp->req.started - 1);
			if (!w->npkts) {
				n++;
				orca_soft_wire_retire(sdev, qp);
				continue;
			}
		} else {
			w = orca_soft_swqe_at(qp, qp->req.next);
			if (!w->npkts) {
				qp->req.next++;
				qp->req.next_off = 0;
				continue;
			}
			st = orca_soft_wire_load(sdev, qp, qp->req.next, w);
			if (st) {
				orca_soft_wire_fail(qp, w, qp->req.next, st);
				orca_soft_wire_retire(sdev, qp);
				break;
			}
		}
		if (!qp->req.next_off) {
			if ((w->flags & ORCA_WQE_FLAG_FENCE) &&
			    qp->req.outstanding_rd_atomic)
				break;
			if (orca_soft_op_rd_like(w->op) &&
			    qp->req.outstanding_rd_atomic >= max_rd)
				break;
		}
		if (orca_psn_diff(qp->req.sq_psn, qp->req.una_psn) >=
		    ORCA_SOFT_WIRE_WINDOW)
			break;
		n += orca_soft_wire_send_wqe(sdev, qp, w, budget - n, &st);
		if (st) {
			/* A failed page: as a WQE that fails to load. */
			orca_soft_wire_fail(qp, w, qp->req.next, st);
			orca_soft_wire_retire(sdev, qp);
			break;
		}
		if (qp->req.next_off < w->len)
			break;
		if (orca_soft_op_rd_like(w->op))
			qp->req.outstanding_rd_atomic++;
		qp->req.next++;
		qp->req.next_off = 0;
	}
	orca_soft_wire_retire(sdev, qp);
	orca_soft_wire_restart_timer(sdev, qp, false);
	return n;
}

/* A QP's wire state as MODIFY_QP to RTS (or a new SQ PSN) leaves it. */
void orca_soft_wire_qp_init(struct orca_soft_qp *qp)
{
	qp->req.next = qp->sq.cons;
	qp->req.started = qp->sq.cons;
	qp->req.next_off = 0;
	qp->req.failed = false;
	qp->req.una_psn = qp->req.sq_psn;
	qp->req.max_psn = qp->req.sq_psn;
	qp->req.gap_psn = orca_psn_add(qp->req.sq_psn, -1U);
	qp->req.timer_at = 0;
	qp->req.rnr_until = 0;
	qp->req.outstanding_rd_atomic = 0;
}
