// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: the responder.
 *
 * A request from a local requester is executed against the destination
 * QP as its RoCEv2 packets would be: the QP must be in a state that
 * receives (RTR, RTS, SQD, SQE), RC checks the PSN (a request that is not
 * the expected one gets no answer: the requester's ACK timer retries it),
 * UC resynchronises on it, UD checks the Q_Key (a mismatch is dropped).
 *
 * SEND, SEND_IMM, SEND_INV and RDMA_WRITE_IMM take a receive WQE from the
 * QP's RQ or its SRQ (copied, then validated), scatter into it with keys
 * of the responder's PD, and complete it on the receive CQ.  Without a
 * receive WQE RC answers RNR NAK; UC and UD drop the message.  RDMA
 * WRITE, READ and atomics check the rkey against the responder QP's PD,
 * the MR's and the QP's remote access rights and the bounds.
 *
 * Error choices (RC; UC has no NAKs and drops what it cannot take):
 *  - receive buffer too short: the receive completes LOC_LEN_ERR, the QP
 *    goes to ERR with QP_REQ_ERR; requester REM_INV_REQ_ERR.  UD drops the
 *    message and keeps the receive WQE.
 *  - receive SGE with a bad lkey/PD/bounds/rights: the receive completes
 *    LOC_PROT_ERR, the QP goes to ERR; requester REM_OP_ERR.
 *  - malformed receive WQE (num_sge > max): completes LOC_QP_OP_ERR, QP to
 *    ERR with QP_FATAL; requester REM_OP_ERR.
 *  - bad rkey, MR rights, QP remote access flags or bounds: QP to ERR
 *    with QP_ACCESS_ERR; requester REM_ACCESS_ERR.  No receive WQE is
 *    consumed.
 *  - XRC: a request naming no XRC SRQ of the XRC_TGT QP's domain: invalid
 *    request, QP to ERR with QP_REQ_ERR; requester REM_INV_REQ_ERR.
 *  - SEND_INV whose key is not a FAST_REG region of the responder's PD,
 *    or a misaligned atomic: invalid request, QP to ERR with QP_REQ_ERR;
 *    requester REM_INV_REQ_ERR.  No receive WQE is consumed.
 *  - a failed page of an on-demand-paging region: as a bounds violation
 *    where it lies (the rkey's region, or the receive buffer).
 *
 * The responder's on-demand pages are checked before anything is moved
 * or a receive WQE consumed: at a page fault nothing is executed, and
 * the answer (ORCA_SOFT_PAGE_FAULT) makes the requester wait.  A UD
 * datagram that faults is dropped instead, as from the wire.
 */

#include <linux/bitfield.h>
#include <linux/ip.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "orca_ring.h"
#include "orca_soft_engine.h"

/* RoCEv2 header sizes, for the lengths in a UD receive's GRH area. */
#define ORCA_SOFT_UDP_HLEN	8
#define ORCA_SOFT_BTH_LEN	12
#define ORCA_SOFT_DETH_LEN	8
#define ORCA_SOFT_IMM_LEN	4
#define ORCA_SOFT_ICRC_LEN	4
#define ORCA_SOFT_IPV4_OFF	20	/* IPv4 header: last 20 bytes of the GRH */

#define ORCA_SOFT_REC_PROD	offsetof(struct orca_db_record, prod)
#define ORCA_SOFT_REC_CONS	offsetof(struct orca_db_record, cons)

/*
 * A responder error: RC moves the QP to ERR and reports @event (0: none)
 * and answers @ans; UC silently drops.
 */
enum orca_soft_answer orca_soft_resp_err(struct orca_soft_dev *sdev,
					 struct orca_soft_qp *dqp, u8 event,
					 enum orca_soft_answer ans)
{
	if (!orca_soft_qp_is_rc(dqp))
		return ORCA_SOFT_SILENT;
	orca_soft_qp_set_err(sdev, dqp);
	if (event)
		orca_soft_post_event(sdev, event, dqp->qpn);
	return ans;
}

/*
 * The rkey of a request: a valid MR or bound window of the QP's PD
 * allowing @access.  Return the region that holds [*@addr, + @len), with
 * *@addr in its iova space (a window may move it), or NULL.
 */
struct orca_soft_mr *orca_soft_rkey(struct orca_soft_dev *sdev,
				    struct orca_soft_qp *dqp, u32 rkey,
				    u64 *addr, u64 len, u32 access)
{
	struct orca_soft_mr *mr;

	mr = xa_load(&sdev->mrs, FIELD_GET(ORCA_MR_KEY_INDEX, rkey));
	if (!mr || !(le32_to_cpu(dqp->attr.access) & access))
		return NULL;
	/*
	 * A window changes only under eng_rwsem written; its region may
	 * change in another lane until pinned.
	 */
	if (mr->mw_type) {
		if (mr->key != rkey || !mr->valid || mr->pd != dqp->pd ||
		    !(mr->access & access) || !mr->region ||
		    !orca_soft_region_take(dqp, mr->region))
			return NULL;
		return orca_soft_mw_resolve(mr, dqp, addr, len);
	}
	if (mr->pd != dqp->pd || !orca_soft_key_take(dqp, mr, rkey) ||
	    !(mr->access & access))
		return NULL;
	return orca_soft_mr_range_ok(mr, *addr, len) ? mr : NULL;
}

void orca_soft_sgl_one(struct orca_soft_sgl *sgl, struct orca_soft_mr *mr,
		       u64 addr, u64 len)
{
	sgl->inl = NULL;
	sgl->nseg = 1;
	sgl->len = len;
	sgl->seg[0].mr = mr;
	sgl->seg[0].addr = addr;
	sgl->seg[0].len = len;
}

/* -------------------------------------------------- RDMA and atomics */

/*
 * RDMA WRITE (@access REMOTE_WRITE: the message's data lands in the
 * responder's memory) or RDMA READ (REMOTE_READ: the responder's memory
 * lands in the requester's read buffers): one rkey check, one copy.
 */
static enum orca_soft_answer orca_soft_resp_rdma(struct orca_soft_dev *sdev,
						 struct orca_soft_qp *dqp,
						 struct orca_soft_msg *msg,
						 u32 access)
{
	struct orca_soft_sgl *remote = &dqp->resp_scr->remote;
	struct orca_soft_mr *mr;
	u64 va;
	int err;

	if (!msg->len)
		return ORCA_SOFT_ACK;
	va = msg->remote_addr;
	mr = orca_soft_rkey(sdev, dqp, msg->rkey, &va, msg->len, access);
	if (!mr)
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_ACCESS_ERR,
					  ORCA_SOFT_NAK_ACCESS);
	orca_soft_sgl_one(remote, mr, va, msg->len);
	err = orca_soft_sgl_odp_check(sdev, remote, 0, msg->len,
				      access == ORCA_ACCESS_REMOTE_WRITE);
	if (!err && access == ORCA_ACCESS_REMOTE_WRITE)
		err = orca_soft_sgl_copy(sdev, remote, 0, msg->local, 0,
					 msg->len);
	else if (!err)
		err = orca_soft_sgl_copy(sdev, msg->local, 0, remote, 0,
					 msg->len);
	if (err == -EAGAIN)
		return ORCA_SOFT_PAGE_FAULT;
	if (err)
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_ACCESS_ERR,
					  ORCA_SOFT_NAK_ACCESS);
	return ORCA_SOFT_ACK;
}

static enum orca_soft_answer orca_soft_resp_atomic(struct orca_soft_dev *sdev,
						   struct orca_soft_qp *dqp,
						   struct orca_soft_msg *msg)
{
	struct orca_soft_resp_scratch *s = dqp->resp_scr;
	bool cmp_swp = msg->opcode == ORCA_WQE_OP_ATOMIC_CMP_SWP;
	struct orca_soft_mr *mr;
	u64 orig, va = msg->remote_addr;
	int err;

	if (!IS_ALIGNED(msg->remote_addr, sizeof(u64)))
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_REQ_ERR,
					  ORCA_SOFT_NAK_INV_REQ);
	mr = orca_soft_rkey(sdev, dqp, msg->rkey, &va, sizeof(u64),
			    ORCA_ACCESS_REMOTE_ATOMIC);
	/* A zero-based window may move the word off its alignment. */
	if (!mr || !IS_ALIGNED(va, sizeof(u64)))
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_ACCESS_ERR,
					  ORCA_SOFT_NAK_ACCESS);
	/* Checked before it executes: an atomic executes once. */
	err = orca_soft_mr_odp_check(sdev, mr, va, sizeof(u64),
				     va + sizeof(u64), true);
	if (err == -EAGAIN)
		return ORCA_SOFT_PAGE_FAULT;
	if (!err)
		err = orca_soft_mem_atomic(sdev, mr, va, cmp_swp,
					   msg->compare_add, msg->swap, &orig);
	if (err)
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_ACCESS_ERR,
					  ORCA_SOFT_NAK_ACCESS);
	/* The original value travels back in the AtomicAckETH. */
	orca_soft_sgl_kbuf(&s->kbuf, &orig, sizeof(orig));
	if (orca_soft_sgl_copy(sdev, msg->local, 0, &s->kbuf, 0, sizeof(orig)))
		return ORCA_SOFT_NAK_OP;
	return ORCA_SOFT_ACK;
}

/* ------------------------------------------------------------ receives */

/*
 * The GRH area of a UD receive: an IPv6 header, or for an IPv4-mapped
 * destination an IPv4 header in its last 20 bytes.  Return the CQE flags.
 */
static u8 orca_soft_build_grh(struct orca_soft_dev *sdev,
			      const struct orca_soft_msg *msg, u8 *grh)
{
	const struct orca_av *av = msg->av;
	u32 info = le32_to_cpu(av->info);
	u32 sgid_index = FIELD_GET(ORCA_AH_SGID_INDEX, info);
	const u8 *sgid = sdev->gids[sgid_index].gid;
	u32 udp_len = ORCA_SOFT_UDP_HLEN + ORCA_SOFT_BTH_LEN +
		      ORCA_SOFT_DETH_LEN + ORCA_SOFT_ICRC_LEN + msg->len;
	struct ipv6hdr *ip6 = (struct ipv6hdr *)grh;
	struct iphdr *ip;

	if (msg->opcode == ORCA_WQE_OP_SEND_IMM)
		udp_len += ORCA_SOFT_IMM_LEN;
	memset(grh, 0, ORCA_SOFT_GRH_LEN);
	if (ipv6_addr_v4mapped((const struct in6_addr *)av->dgid)) {
		ip = (struct iphdr *)(grh + ORCA_SOFT_IPV4_OFF);
		ip->version = 4;
		ip->ihl = 5;
		ip->tot_len = htons(sizeof(*ip) + udp_len);
		ip->frag_off = htons(IP_DF);
		ip->tos = av->traffic_class;
		ip->ttl = av->hop_limit;
		ip->protocol = IPPROTO_UDP;
		memcpy(&ip->saddr, sgid + 12, sizeof(ip->saddr));
		memcpy(&ip->daddr, av->dgid + 12, sizeof(ip->daddr));
		ip->check = ip_fast_csum((u8 *)ip, ip->ihl);
		return ORCA_CQE_FLAG_GRH | ORCA_CQE_FLAG_IPV4;
	}
	ip6_flow_hdr(ip6, av->traffic_class,
		     cpu_to_be32(FIELD_GET(ORCA_AH_FLOW_LABEL, info)));
	ip6->payload_len = htons(udp_len);
	ip6->nexthdr = IPPROTO_UDP;
	ip6->hop_limit = av->hop_limit;
	memcpy(&ip6->saddr, sgid, sizeof(ip6->saddr));
	memcpy(&ip6->daddr, av->dgid, sizeof(ip6->daddr));
	return ORCA_CQE_FLAG_GRH;
}

/*
 * An SRQ whose prod is impossible or unreachable (its lock held): report
 * it once.  Every QP that uses it goes to ERR, the one at hand through
 * its responder's error, the others when the exclusive holders next
 * look (orca_soft_srq_err_spread(): the engine's exclusive pass, or an
 * admin command): a shared lane may change only the QPs it holds.
 * Until then each one that takes a message into the SRQ goes to ERR
 * itself.
 */
static void orca_soft_srq_broken(struct orca_soft_dev *sdev,
				 struct orca_soft_srq *srq)
{
	if (srq->wq.broken)
		return;
	srq->wq.broken = true;
	orca_soft_post_event(sdev, ORCA_EQE_SRQ_ERR, srq->srqn);
	srq->err_owed = true;
	spin_lock(&sdev->eng_lock);
	sdev->srq_err_owed = true;
	WRITE_ONCE(sdev->eng_excl, true);
	spin_unlock(&sdev->eng_lock);
}

/*
 * Is there a receive WQE?  0 and the producer index, -ENOENT (none) or
 * -EIO (the queue is broken; already reported).
 */
int orca_soft_recv_avail(struct orca_soft_dev *sdev, struct orca_soft_qp *dqp,
			 u32 *prod)
{
	struct orca_soft_wq *wq = dqp->srq ? &dqp->srq->wq : &dqp->rq;

	/* An SRQ: the exclusive holders', or the shared lane's that locked it. */
	if (dqp->srq)
		lockdep_assert(lockdep_is_held_type(&sdev->eng_rwsem, 0) ||
			       lockdep_is_held(&dqp->srq->lock));
	if (wq->broken)
		return -EIO;
	if (orca_soft_dma_read32(sdev, wq->db_addr + ORCA_SOFT_REC_PROD, prod) ||
	    !orca_wq_prod_ok(*prod, wq->cons, wq->log2_depth)) {
		if (dqp->srq)
			orca_soft_srq_broken(sdev, dqp->srq);
		else
			orca_soft_wq_fatal(sdev, dqp, wq);
		return -EIO;
	}
	return *prod == wq->cons ? -ENOENT : 0;
}

/*
 * A receive WQE for an incoming message: ORCA_SOFT_ACK with the producer
 * index in *prod, or the answer when there is none (an RNR NAK on RC,
 * silence otherwise) or the queue is broken.
 */
enum orca_soft_answer orca_soft_recv_need(struct orca_soft_dev *sdev,
					  struct orca_soft_qp *dqp, u32 *prod)
{
	int ret;

	/* The message in progress holds its SRQ's WQE already. */
	*prod = 0;
	if (dqp->resp.srq_held)
		return ORCA_SOFT_ACK;
	ret = orca_soft_recv_avail(sdev, dqp, prod);

	if (ret == -ENOENT)
		return orca_soft_qp_is_rc(dqp) ? ORCA_SOFT_RNR_NAK :
						  ORCA_SOFT_SILENT;
	if (ret)
		return orca_soft_resp_err(sdev, dqp, 0, ORCA_SOFT_NAK_OP);
	return ORCA_SOFT_ACK;
}

/*
 * Copy the receive WQE at the queue's cons into resp_scr->rwqe, then
 * validate the copy: its wr_id goes to @ci.  The number of SGEs, or -EIO
 * when the WQE cannot be read or names more SGEs than the queue allows.
 */
int orca_soft_rwqe_read(struct orca_soft_dev *sdev, struct orca_soft_qp *dqp,
			struct orca_soft_cqe_info *ci)
{
	struct orca_soft_resp_scratch *s = dqp->resp_scr;
	struct orca_soft_wq *wq = dqp->srq ? &dqp->srq->wq : &dqp->rq;
	struct orca_recv_wqe *rwqe = (struct orca_recv_wqe *)s->rwqe;
	u64 addr = orca_soft_wq_slot(wq, wq->cons);
	u32 nsge;

	if (orca_soft_dma_read(sdev, addr, rwqe, ORCA_RECV_WQE_HDR_SIZE))
		return -EIO;
	ci->wr_id = le64_to_cpu(rwqe->wr_id);
	nsge = le32_to_cpu(rwqe->num_sge);
	if (nsge > wq->max_sge ||
	    orca_soft_dma_read(sdev, addr + ORCA_RECV_WQE_HDR_SIZE,
			       s->rwqe + ORCA_RECV_WQE_HDR_SIZE,
			       nsge * sizeof(struct orca_sge)))
		return -EIO;
	return nsge;
}

/*
 * Resolve the SGEs of the receive WQE orca_soft_rwqe_read copied into
 * resp_scr->remote: 0, -EACCES (a key or range the PD does not allow) or
 * -EMSGSIZE.
 */
int orca_soft_rwqe_resolve(struct orca_soft_dev *sdev,
			   struct orca_soft_qp *dqp, u32 nsge)
{
	struct orca_soft_resp_scratch *s = dqp->resp_scr;

	return orca_soft_sgl_resolve(sdev, dqp, &s->remote,
				     (const struct orca_sge *)(s->rwqe +
				     ORCA_RECV_WQE_HDR_SIZE), nsge,
				     ORCA_ACCESS_LOCAL_WRITE);
}

/*
 * The receive WQE at cons is taken: publish cons, check the SRQ limit.
 * An SRQ's WQE the QP holds (orca_soft_wire_rwqe) left the SRQ when the
 * message took it: it is only released.
 */
void orca_soft_recv_consume(struct orca_soft_dev *sdev,
			    struct orca_soft_qp *dqp, u32 prod)
{
	struct orca_soft_wq *wq = dqp->srq ? &dqp->srq->wq : &dqp->rq;
	struct orca_soft_srq *srq = dqp->srq;

	if (dqp->resp.srq_held) {
		dqp->resp.srq_held = false;
		return;
	}

	wq->cons++;
	orca_soft_dma_write32(sdev, wq->db_addr + ORCA_SOFT_REC_CONS, wq->cons);
	if (srq && srq->limit && prod - wq->cons < srq->limit) {
		srq->limit = 0;
		orca_soft_post_event(sdev, ORCA_EQE_SRQ_LIMIT, srq->srqn);
	}
}

/* Complete a receive WQE in error; the QP goes to ERR. */
void orca_soft_recv_fail(struct orca_soft_dev *sdev, struct orca_soft_qp *dqp,
			 u32 prod, struct orca_soft_cqe_info *ci, u8 status)
{
	orca_soft_recv_consume(sdev, dqp, prod);
	ci->status = status;
	ci->byte_len = 0;
	orca_soft_cq_complete(sdev, dqp->recv_cq, ci);
	orca_soft_qp_set_err(sdev, dqp);
}

/*
 * SEND with Invalidate: the key (checked by orca_soft_key_inv_ok())
 * becomes invalid, and the receive completion says so.  Its data is
 * placed already (orca_soft_key_invalidate() may drop @dqp's lane pins).
 */
void orca_soft_recv_invalidate(struct orca_soft_dev *sdev,
			       struct orca_soft_qp *dqp, u32 key,
			       struct orca_soft_cqe_info *ci)
{
	orca_soft_key_invalidate(sdev, dqp, key, true);
	ci->flags |= ORCA_CQE_FLAG_INV;
	ci->imm_inv = key;
}

static enum orca_soft_answer orca_soft_resp_recv(struct orca_soft_dev *sdev,
						 struct orca_soft_qp *dqp,
						 struct orca_soft_msg *msg)
{
	struct orca_soft_resp_scratch *s = dqp->resp_scr;
	bool ud = orca_soft_qp_is_ud(dqp);
	struct orca_soft_cqe_info ci = {
		.qpn = dqp->qpn,
		.src_qp = ud ? msg->src->qpn : 0,
		.opcode = ORCA_CQE_OP_RECV,
	};
	struct orca_soft_mr *wmr = NULL;
	enum orca_soft_answer ans;
	u64 need, off = 0, wva = msg->remote_addr;
	u32 prod;
	int ret, nsge;

	ans = orca_soft_recv_need(sdev, dqp, &prod);
	if (ans != ORCA_SOFT_ACK)
		return ans;

	/* Checks that reject the request without consuming a receive. */
	if (msg->opcode == ORCA_WQE_OP_SEND_INV &&
	    !orca_soft_key_inv_ok(sdev, dqp, msg->imm_inv, true))
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_REQ_ERR,
					  ORCA_SOFT_NAK_INV_REQ);
	if (msg->opcode == ORCA_WQE_OP_RDMA_WRITE_IMM && msg->len) {
		wmr = orca_soft_rkey(sdev, dqp, msg->rkey, &wva, msg->len,
				     ORCA_ACCESS_REMOTE_WRITE);
		if (!wmr)
			return orca_soft_resp_err(sdev, dqp,
						  ORCA_EQE_QP_ACCESS_ERR,
						  ORCA_SOFT_NAK_ACCESS);
	}

	nsge = orca_soft_rwqe_read(sdev, dqp, &ci);
	if (nsge < 0) {
		orca_soft_recv_fail(sdev, dqp, prod, &ci,
				    ORCA_CQE_ST_LOC_QP_OP_ERR);
		orca_soft_post_event(sdev, ORCA_EQE_QP_FATAL, dqp->qpn);
		return orca_soft_qp_is_rc(dqp) ? ORCA_SOFT_NAK_OP :
						  ORCA_SOFT_SILENT;
	}

	if (msg->opcode == ORCA_WQE_OP_RDMA_WRITE_IMM) {
		ci.opcode = ORCA_CQE_OP_RECV_RDMA_IMM;
		ci.byte_len = msg->len;
		if (wmr) {
			orca_soft_sgl_one(&s->remote, wmr, wva, msg->len);
			ret = orca_soft_sgl_odp_check(sdev, &s->remote, 0,
						      msg->len, true);
			if (!ret)
				ret = orca_soft_sgl_copy(sdev, &s->remote, 0,
							 msg->local, 0,
							 msg->len);
			if (ret == -EAGAIN)
				return ORCA_SOFT_PAGE_FAULT;
			if (ret)
				return orca_soft_resp_err(sdev, dqp,
							  ORCA_EQE_QP_ACCESS_ERR,
							  ORCA_SOFT_NAK_ACCESS);
		}
		goto done;
	}

	ret = orca_soft_rwqe_resolve(sdev, dqp, nsge);
	if (ret == -EACCES) {
		if (ud)
			return ORCA_SOFT_SILENT;
		orca_soft_recv_fail(sdev, dqp, prod, &ci,
				    ORCA_CQE_ST_LOC_PROT_ERR);
		return orca_soft_qp_is_rc(dqp) ? ORCA_SOFT_NAK_OP :
						  ORCA_SOFT_SILENT;
	}
	need = msg->len + (ud ? ORCA_SOFT_GRH_LEN : 0);
	if (ret || need > s->remote.len) {
		/* UD drops what does not fit, and keeps the receive. */
		if (ud)
			return ORCA_SOFT_SILENT;
		orca_soft_recv_fail(sdev, dqp, prod, &ci,
				    ORCA_CQE_ST_LOC_LEN_ERR);
		if (!orca_soft_qp_is_rc(dqp))
			return ORCA_SOFT_SILENT;
		orca_soft_post_event(sdev, ORCA_EQE_QP_REQ_ERR, dqp->qpn);
		return ORCA_SOFT_NAK_INV_REQ;
	}
	/* The receive buffer's pages, before the receive is consumed. */
	ret = orca_soft_sgl_odp_check(sdev, &s->remote, 0, need, true);
	if (ret == -EAGAIN) {
		if (!ud)
			return ORCA_SOFT_PAGE_FAULT;
		/* A datagram is dropped, as one from the wire would be. */
		orca_soft_count(sdev, ORCA_SOFT_CNT_UD_DROPS, 1);
		return ORCA_SOFT_SILENT;
	}
	if (!ret && ud) {
		ci.flags |= orca_soft_build_grh(sdev, msg, s->grh);
		orca_soft_sgl_kbuf(&s->kbuf, s->grh, ORCA_SOFT_GRH_LEN);
		if (orca_soft_sgl_copy(sdev, &s->remote, 0, &s->kbuf, 0,
				       ORCA_SOFT_GRH_LEN))
			return ORCA_SOFT_SILENT;
		off = ORCA_SOFT_GRH_LEN;
	}
	if (!ret)
		ret = orca_soft_sgl_copy(sdev, &s->remote, off, msg->local, 0,
					 msg->len);
	/* A failed page: as a receive SGE out of bounds. */
	if (ret) {
		if (ud)
			return ORCA_SOFT_SILENT;
		orca_soft_recv_fail(sdev, dqp, prod, &ci,
				    ORCA_CQE_ST_LOC_PROT_ERR);
		return orca_soft_qp_is_rc(dqp) ? ORCA_SOFT_NAK_OP :
						  ORCA_SOFT_SILENT;
	}
	ci.byte_len = need;

done:
	switch (msg->opcode) {
	case ORCA_WQE_OP_SEND_IMM:
	case ORCA_WQE_OP_RDMA_WRITE_IMM:
		ci.flags |= ORCA_CQE_FLAG_IMM;
		ci.imm_inv = msg->imm_inv;
		break;
	case ORCA_WQE_OP_SEND_INV:
		orca_soft_recv_invalidate(sdev, dqp, msg->imm_inv, &ci);
		break;
	default:
		break;
	}
	if (msg->solicited)
		ci.flags |= ORCA_CQE_FLAG_SOLICITED;
	ci.status = ORCA_CQE_ST_SUCCESS;
	orca_soft_recv_consume(sdev, dqp, prod);
	orca_soft_cq_hold(sdev, msg->src, dqp->recv_cq, &ci);
	return ORCA_SOFT_ACK;
}

/* ------------------------------------------------------------ dispatch */

enum orca_soft_answer orca_soft_resp_deliver(struct orca_soft_dev *sdev,
					     struct orca_soft_qp *dqp,
					     struct orca_soft_msg *msg)
{
	enum orca_soft_answer ans;

	if (!orca_soft_qp_receives(dqp))
		return ORCA_SOFT_SILENT;
	orca_soft_qp_answers(sdev, dqp);
	switch (dqp->type) {
	case ORCA_QPT_RC:
	case ORCA_QPT_XRC_TGT:
		/* Not the expected PSN: a duplicate or a gap, no answer. */
		if (msg->psn != dqp->resp.rq_psn)
			return ORCA_SOFT_SILENT;
		break;
	case ORCA_QPT_UC:
		/* A new message's first packet resynchronises UC. */
		dqp->resp.rq_psn = msg->psn;
		break;
	default:
		if (msg->qkey != le32_to_cpu(dqp->attr.qkey))
			return ORCA_SOFT_SILENT;
		break;
	}

	/* XRC: the request names the SRQ, whose PD and CQ serve it. */
	if (dqp->type == ORCA_QPT_XRC_TGT &&
	    !orca_soft_xrc_bind(sdev, dqp, msg->xrc_srqn, true))
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_REQ_ERR,
					  ORCA_SOFT_NAK_INV_REQ);

	/* No responder resource takes a READ or atomic. */
	if (!dqp->attr.max_dest_rd_atomic &&
	    (msg->opcode == ORCA_WQE_OP_RDMA_READ ||
	     msg->opcode == ORCA_WQE_OP_ATOMIC_CMP_SWP ||
	     msg->opcode == ORCA_WQE_OP_ATOMIC_FETCH_ADD))
		return orca_soft_resp_err(sdev, dqp, ORCA_EQE_QP_REQ_ERR,
					  ORCA_SOFT_NAK_INV_REQ);

	switch (msg->opcode) {
	case ORCA_WQE_OP_RDMA_WRITE:
		ans = orca_soft_resp_rdma(sdev, dqp, msg,
					  ORCA_ACCESS_REMOTE_WRITE);
		break;
	case ORCA_WQE_OP_RDMA_READ:
		ans = orca_soft_resp_rdma(sdev, dqp, msg,
					  ORCA_ACCESS_REMOTE_READ);
		break;
	case ORCA_WQE_OP_ATOMIC_CMP_SWP:
	case ORCA_WQE_OP_ATOMIC_FETCH_ADD:
		ans = orca_soft_resp_atomic(sdev, dqp, msg);
		break;
	default:
		ans = orca_soft_resp_recv(sdev, dqp, msg);
		break;
	}
	if (ans == ORCA_SOFT_ACK) {
		if (!orca_soft_qp_is_ud(dqp))
			dqp->resp.rq_psn = orca_psn_add(msg->psn, msg->packets);
		dqp->resp.msn++;
		orca_soft_count(sdev, ORCA_SOFT_CNT_RX_PACKETS, msg->packets);
		orca_soft_count(sdev, ORCA_SOFT_CNT_RX_BYTES, msg->len);
	}
	return ans;
}
