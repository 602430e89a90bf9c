// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * liborca: the data path.  Posting writes WQEs straight into the mapped
 * rings and publishes the producer index in the queue's doorbell record;
 * polling reads CQEs straight from the mapped CQ ring; arming writes the
 * CQ's arm word.  None of them makes a system call unless the device has
 * published that it is not looking (the "kick", see uapi/rdma/orca-abi.h):
 *
 *   post:  WQEs -> release store of prod -> full fence -> read dev_flags;
 *          ORCA_DB_DEV_POLLING clear -> the driver's QP kick method
 *          (or, without it, uverbs POST_SEND/POST_RECV with no WR), which
 *          orca.ko turns into the QP doorbell register.
 *   arm:   cons -> arm = (seq + 1) | REQUEST [| SOLICITED] -> full fence ->
 *          CQE at cons valid -> uverbs REQ_NOTIFY_CQ, which orca.ko turns
 *          into the CQ doorbell register.
 *
 * The device is on the other side of these fences: it clears POLLING,
 * fences and re-reads prod before it stops polling a queue, and after
 * writing a CQE it fences and reads the arm word.  So either the poster
 * sees POLLING clear, or the device sees the new prod (resp. the arm).
 *
 * Locking follows libibverbs' rules: any verb may be called from several
 * threads at once, so each SQ, RQ, SRQ and CQ has a spinlock.  Kicks are
 * issued after the lock is dropped.  The SQ, RQ and CQ of a QP or CQ
 * created under a thread domain skip their lock (orca_wq_lock() and
 * orca_cq_lock() in orca.h): the application serialises its calls on
 * them.  Nothing here allocates.
 */
#include <endian.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "datapath.h"

/* --- work queues ------------------------------------------------------ */

int orca_wq_init(struct orca_wq *wq, uint32_t max_wr, uint32_t max_sge)
{
	wq->max_wr = max_wr;
	wq->max_post_sge = max_sge;
	wq->prod = 0;
	wq->cons_seen = 0;
	return pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
}

void orca_wq_fini(struct orca_wq *wq)
{
	pthread_spin_destroy(&wq->lock);
}

/*
 * The WRs are in the ring and stay posted, but the device may not look
 * at the queue again until something else wakes it: the application is
 * likely to wait forever.  Say so once per process, on stderr too (like
 * the ABI mismatch in orca.c), since nothing else will.
 */
static void orca_kick_failed(const char *what, uint32_t qpn, int err)
{
	static int reported;

	if (__atomic_exchange_n(&reported, 1, __ATOMIC_RELAXED))
		return;
	orca_err("qp %u: %s kick failed: %s\n", qpn, what, strerror(err));
	fprintf(stderr,
		"liborca: qp %u: the kernel refused the %s doorbell kick (%s)%s\n",
		qpn, what, strerror(err),
		err == EOPNOTSUPP ?
		"; orca.ko must enable POST_SEND, POST_RECV and REQ_NOTIFY_CQ in uverbs_cmd_mask" :
		"");
}

_Static_assert(ORCA_IB_METHOD_QP_KICK == 1U << UVERBS_ID_NS_SHIFT &&
	       ORCA_IB_ATTR_QP_KICK_HANDLE == 1U << UVERBS_ID_NS_SHIFT,
	       "the QP kick is the first method of the driver namespace");

/*
 * The driver's QP kick method (orca-abi.h): one ioctl with the QP's
 * handle, which rings the doorbell for both of its queues; 0 or errno.
 */
static int orca_kick_method(struct orca_qp *qp)
{
	struct ib_uverbs_attr attr = {
		.attr_id = ORCA_IB_ATTR_QP_KICK_HANDLE,
		.flags = UVERBS_ATTR_F_MANDATORY,
		.data = qp->vqp.qp.handle,
	};

	return orca_ioctl(qp->vqp.qp.context, UVERBS_OBJECT_QP,
			  ORCA_IB_METHOD_QP_KICK, &attr, 1);
}

void orca_kick_sq(struct orca_qp *qp)
{
	struct ibv_send_wr *bad = NULL;
	int err;

	if (to_octx(qp->vqp.qp.context)->qp_kick)
		err = orca_kick_method(qp);
	else
		err = ibv_cmd_post_send(&qp->vqp.qp, NULL, &bad);
	if (err)
		orca_kick_failed("send queue", qp->qpn, err);
}

static void orca_kick_rq(struct orca_qp *qp)
{
	struct ibv_recv_wr *bad = NULL;
	int err;

	if (to_octx(qp->vqp.qp.context)->qp_kick)
		err = orca_kick_method(qp);
	else
		err = ibv_cmd_post_recv(&qp->vqp.qp, NULL, &bad);
	if (err)
		orca_kick_failed("receive queue", qp->qpn, err);
}

/*
 * After a successful move to RESET the device has dropped every WQE and
 * its done index in the record is where it will continue from; the
 * producer index restarts there, whatever the device chose.
 */
void orca_qp_reset_indices(struct orca_qp *qp)
{
	struct orca_wq *wqs[2] = { &qp->sq, &qp->rq };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct orca_wq *wq = wqs[i];

		if (!wq->depth)
			continue;
		orca_wq_lock(wq);
		wq->prod = orca_ld_acquire(&wq->db->cons);
		wq->cons_seen = wq->prod;
		orca_st_release(&wq->db->prod, wq->prod);
		orca_wq_unlock(wq);
	}
}

/* --- send WQEs -------------------------------------------------------- */

/* XRC_SEND takes exactly RC's opcodes; XRC_RECV none (no SQ). */
#define ORCA_QPT_RC	(1U << 0)
#define ORCA_QPT_UC	(1U << 1)
#define ORCA_QPT_UD	(1U << 2)
#define ORCA_QPT_XRC	(1U << 3)
#define ORCA_QPT_RCX	(ORCA_QPT_RC | ORCA_QPT_XRC)
#define ORCA_QPT_ALL	(ORCA_QPT_RCX | ORCA_QPT_UC | ORCA_QPT_UD)

/* ibv_wr_opcode -> the WQE opcode and the QP types it is valid on. */
static const struct {
	uint8_t valid;
	uint8_t op;
	uint8_t qpts;
	uint8_t inl;		/* takes IBV_SEND_INLINE */
} orca_send_ops[] = {
	[IBV_WR_SEND] = { 1, ORCA_WQE_OP_SEND, ORCA_QPT_ALL, 1 },
	[IBV_WR_SEND_WITH_IMM] = { 1, ORCA_WQE_OP_SEND_IMM, ORCA_QPT_ALL, 1 },
	/* The IBTA defines Send with Invalidate for RC (and XRC) only. */
	[IBV_WR_SEND_WITH_INV] = { 1, ORCA_WQE_OP_SEND_INV, ORCA_QPT_RCX, 1 },
	[IBV_WR_RDMA_WRITE] = {
		1, ORCA_WQE_OP_RDMA_WRITE, ORCA_QPT_RCX | ORCA_QPT_UC, 1
	},
	[IBV_WR_RDMA_WRITE_WITH_IMM] = {
		1, ORCA_WQE_OP_RDMA_WRITE_IMM, ORCA_QPT_RCX | ORCA_QPT_UC, 1
	},
	[IBV_WR_RDMA_READ] = { 1, ORCA_WQE_OP_RDMA_READ, ORCA_QPT_RCX, 0 },
	[IBV_WR_ATOMIC_CMP_AND_SWP] = {
		1, ORCA_WQE_OP_ATOMIC_CMP_SWP, ORCA_QPT_RCX, 0
	},
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = {
		1, ORCA_WQE_OP_ATOMIC_FETCH_ADD, ORCA_QPT_RCX, 0
	},
	[IBV_WR_LOCAL_INV] = {
		1, ORCA_WQE_OP_LOCAL_INV, ORCA_QPT_RCX | ORCA_QPT_UC, 0
	},
	/* Type 2 windows here; type 1 through ibv_bind_mw(). */
	[IBV_WR_BIND_MW] = {
		1, ORCA_WQE_OP_BIND_MW, ORCA_QPT_RCX | ORCA_QPT_UC, 0
	},
};

static inline unsigned int orca_qpt_bit(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return ORCA_QPT_RC;
	case IBV_QPT_UC:
		return ORCA_QPT_UC;
	case IBV_QPT_UD:
		return ORCA_QPT_UD;
	case IBV_QPT_XRC_SEND:
		return ORCA_QPT_XRC;
	default:
		return 0;
	}
}

/* The WQE opcode for a verbs opcode on this QP, or -1 when invalid. */
int orca_send_opcode(const struct orca_qp *qp, unsigned int wr_op,
		     bool *inline_ok)
{
	if (wr_op >= sizeof(orca_send_ops) / sizeof(orca_send_ops[0]) ||
	    !orca_send_ops[wr_op].valid ||
	    !(orca_send_ops[wr_op].qpts & orca_qpt_bit(qp->vqp.qp.qp_type)))
		return -1;
	*inline_ok = orca_send_ops[wr_op].inl;
	return orca_send_ops[wr_op].op;
}

uint32_t orca_send_flags(const struct orca_qp *qp, unsigned int flags)
{
	uint32_t f = 0;

	if (flags & IBV_SEND_SIGNALED || qp->sq_sig_all)
		f |= ORCA_WQE_FLAG_SIGNALED;
	if (flags & IBV_SEND_SOLICITED)
		f |= ORCA_WQE_FLAG_SOLICITED;
	if (flags & IBV_SEND_FENCE)
		f |= ORCA_WQE_FLAG_FENCE;
	return f;
}

/*
 * Appends one buffer to the inline data after the WQE header; *len is
 * the inline length so far.  EINVAL when the total would exceed
 * max_inline.
 */
int orca_inline_append(const struct orca_qp *qp, struct orca_send_wqe *wqe,
		       uint32_t *len, const void *addr, size_t length)
{
	if (length > qp->max_inline - *len)
		return EINVAL;
	memcpy((char *)orca_send_payload(qp, wqe) + *len, addr, length);
	*len += length;
	return 0;
}

/* The SGEs that follow a send or receive WQE header, little-endian. */
void orca_write_sges(struct orca_sge *dst, const struct ibv_sge *sg,
		     size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct orca_sge s = {
			.addr = htole64(sg[i].addr),
			.length = htole32(sg[i].length),
			.lkey = htole32(sg[i].lkey),
		};

		memcpy(&dst[i], &s, sizeof(s));
	}
}

/* --- memory window binds ----------------------------------------------- */

/* The variant of a key: the bits a bind changes; the rest is the index. */
#define ORCA_KEY_VARIANT	0x000000ffU

/* The rights a window may grant (ibv_bind_mw(3)); type 2 may be zero based. */
#define ORCA_MW_ACCESS		(IBV_ACCESS_REMOTE_WRITE |		\
				 IBV_ACCESS_REMOTE_READ |		\
				 IBV_ACCESS_REMOTE_ATOMIC)

/*
 * Fills imm_inv and seg.bind of the BIND_MW WQE *wqe that gives window
 * mw (of the type the calling verb binds) the key new_key and the range
 * and rights of bi.  Returns 0 or an errno for what the device would
 * refuse with MW_BIND_ERR, taking the QP to ERR, and what is cheap to
 * see here: EINVAL for no window, a window of the other type, of
 * another context or PD than the QP, rights other than remote
 * write/read/atomic (and ZERO_BASED, type 2 only), a range without a
 * region, a type 2 bind without a region or of length 0, or a type 2
 * key with another index; EPERM for a region of another PD (as
 * ibv_bind_mw() itself does).  Whether the region allows binds and
 * holds the range is the device's to check.
 */
int orca_bind_prepare(const struct orca_qp *qp, const struct ibv_mw *mw,
		      enum ibv_mw_type type, uint32_t new_key,
		      const struct ibv_mw_bind_info *bi,
		      struct orca_send_wqe *wqe)
{
	const struct ibv_qp *ibqp = &qp->vqp.qp;
	unsigned int allowed = ORCA_MW_ACCESS;
	uint32_t info = 0;

	if (!mw || !bi || mw->type != type || mw->context != ibqp->context ||
	    !orca_same_pd(mw->pd, ibqp->pd))
		return EINVAL;
	if (type == IBV_MW_TYPE_2) {
		allowed |= IBV_ACCESS_ZERO_BASED;
		if (!bi->mr || !bi->length ||
		    (new_key & ~ORCA_KEY_VARIANT) !=
		    (mw->rkey & ~ORCA_KEY_VARIANT))
			return EINVAL;
	} else if (!bi->mr && (bi->addr || bi->length)) {
		return EINVAL;
	}
	if (bi->mw_access_flags & ~allowed)
		return EINVAL;
	if (bi->mr && !orca_same_pd(bi->mr->pd, mw->pd))
		return EPERM;

	if (bi->mw_access_flags & IBV_ACCESS_REMOTE_WRITE)
		info |= ORCA_BIND_ACCESS_REMOTE_WRITE;
	if (bi->mw_access_flags & IBV_ACCESS_REMOTE_READ)
		info |= ORCA_BIND_ACCESS_REMOTE_READ;
	if (bi->mw_access_flags & IBV_ACCESS_REMOTE_ATOMIC)
		info |= ORCA_BIND_ACCESS_REMOTE_ATOMIC;
	if (bi->mw_access_flags & IBV_ACCESS_ZERO_BASED)
		info |= ORCA_WQE_BIND_ZERO_BASED;

	wqe->imm_inv = htole32(mw->rkey);
	/* Length 0 unbinds a type 1 window: no region, no address. */
	wqe->seg.bind.addr = htole64(bi->length ? bi->addr : 0);
	wqe->seg.bind.length = htole64(bi->length);
	wqe->seg.bind.mr_key = htole32(bi->length ? bi->mr->lkey : 0);
	wqe->seg.bind.new_key = htole32(new_key);
	wqe->seg.bind.info = htole32(info);
	wqe->seg.bind.reserved = 0;
	return 0;
}

/*
 * Writes the WQE for wr into the SQ slot at sq.prod; returns an errno.
 * The header is built whole on the stack (xrc_srqn and the reserved
 * words 0 unless set) and copied last.
 */
static int orca_build_send(struct orca_qp *qp, const struct ibv_send_wr *wr)
{
	struct orca_send_wqe *wqe = orca_wq_slot(&qp->sq, qp->sq.prod);
	struct orca_send_wqe hdr = { .wr_id = htole64(wr->wr_id) };
	uint32_t flags, num_sge = 0, inline_len = 0;
	bool inline_ok;
	int op, err;

	op = orca_send_opcode(qp, wr->opcode, &inline_ok);
	if (op < 0)
		return EINVAL;
	if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND && orca_wqe_op_xrc(op)) {
		if (wr->qp_type.xrc.remote_srqn & ~ORCA_WQE_XRC_SRQN_MASK)
			return EINVAL;
		hdr.xrc_srqn = htole32(wr->qp_type.xrc.remote_srqn);
	}
	/* A bind has no data: its num_sge and sg_list are not looked at. */
	if (op != ORCA_WQE_OP_BIND_MW &&
	    (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->sq.max_post_sge))
		return EINVAL;
	flags = orca_send_flags(qp, wr->send_flags);

	switch (op) {
	case ORCA_WQE_OP_SEND_IMM:
	case ORCA_WQE_OP_RDMA_WRITE_IMM:
		hdr.imm_inv = htole32(be32toh(wr->imm_data));
		break;
	case ORCA_WQE_OP_SEND_INV:
	case ORCA_WQE_OP_LOCAL_INV:
		hdr.imm_inv = htole32(wr->invalidate_rkey);
		break;
	default:
		break;
	}

	switch (op) {
	case ORCA_WQE_OP_SEND:
	case ORCA_WQE_OP_SEND_IMM:
	case ORCA_WQE_OP_SEND_INV:
		if (qp->vqp.qp.qp_type != IBV_QPT_UD)
			break;
		if (!wr->wr.ud.ah)
			return EINVAL;
		memcpy(wqe + 1, &to_oah(wr->wr.ud.ah)->av, ORCA_AV_SIZE);
		hdr.seg.ud.remote_qpn = htole32(wr->wr.ud.remote_qpn);
		hdr.seg.ud.remote_qkey = htole32(wr->wr.ud.remote_qkey);
		break;
	case ORCA_WQE_OP_RDMA_WRITE:
	case ORCA_WQE_OP_RDMA_WRITE_IMM:
	case ORCA_WQE_OP_RDMA_READ:
		hdr.seg.rdma.remote_addr = htole64(wr->wr.rdma.remote_addr);
		hdr.seg.rdma.rkey = htole32(wr->wr.rdma.rkey);
		break;
	case ORCA_WQE_OP_ATOMIC_CMP_SWP:
	case ORCA_WQE_OP_ATOMIC_FETCH_ADD:
		if (wr->num_sge != 1 || wr->sg_list[0].length != 8)
			return EINVAL;
		hdr.seg.atomic.remote_addr =
			htole64(wr->wr.atomic.remote_addr);
		hdr.seg.atomic.rkey = htole32(wr->wr.atomic.rkey);
		hdr.seg.atomic.compare_add =
			htole64(wr->wr.atomic.compare_add);
		hdr.seg.atomic.swap = htole64(wr->wr.atomic.swap);
		break;
	case ORCA_WQE_OP_BIND_MW:
		/* The application keeps mw->rkey (ibv_post_send(3)). */
		err = orca_bind_prepare(qp, wr->bind_mw.mw, IBV_MW_TYPE_2,
					wr->bind_mw.rkey,
					&wr->bind_mw.bind_info, &hdr);
		if (err)
			return err;
		flags &= ORCA_WQE_BIND_FLAGS;
		break;
	default:
		break;
	}

	if (op == ORCA_WQE_OP_LOCAL_INV || op == ORCA_WQE_OP_BIND_MW) {
		/* No data: the SGEs, if any, are not looked at. */
	} else if (inline_ok && wr->send_flags & IBV_SEND_INLINE) {
		for (int i = 0; i < wr->num_sge; i++) {
			err = orca_inline_append(qp, wqe, &inline_len,
				(const void *)(uintptr_t)wr->sg_list[i].addr,
				wr->sg_list[i].length);
			if (err)
				return err;
		}
		flags |= ORCA_WQE_FLAG_INLINE;
	} else {
		num_sge = wr->num_sge;
		orca_write_sges(orca_send_payload(qp, wqe), wr->sg_list,
				num_sge);
	}

	hdr.ctrl = htole32(orca_ctrl(op, flags, num_sge));
	hdr.inline_len = htole32(inline_len);
	memcpy(wqe, &hdr, sizeof(hdr));
	return 0;
}

int orca_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_wq *sq = &qp->sq;
	uint32_t start;
	bool kick = false;
	int err = 0;

	/* An XRC_RECV QP has no send queue. */
	if (!sq->depth) {
		*bad_wr = wr;
		return EINVAL;
	}

	orca_wq_lock(sq);
	if (orca_qp_in_reset(qp)) {
		err = EINVAL;
		goto out;
	}

	start = sq->prod;
	for (; wr; wr = wr->next) {
		if (orca_wq_full(sq)) {
			err = ENOMEM;
			break;
		}
		err = orca_build_send(qp, wr);
		if (err)
			break;
		sq->prod++;
	}
	if (sq->prod != start)
		kick = orca_wq_publish(sq);
out:
	orca_wq_unlock(sq);
	if (err)
		*bad_wr = wr;
	if (kick)
		orca_kick_sq(qp);
	return err;
}

/*
 * ibv_bind_mw(3): binds a type 1 window (length 0: unbinds it) with one
 * BIND_MW WQE, posted as ibv_post_send() posts one: under the SQ lock,
 * EINVAL in RESET, ENOMEM when the SQ is full, then the same publish
 * and kick.  The window's new key is its key with the next variant
 * (ibv_inc_rkey()); mw->rkey takes it once the WQE is posted, and the
 * caller puts the old one back if the device refuses the bind
 * (MW_BIND_ERR; a flushed bind may have taken effect).
 * Errors are returned and also left in errno; nothing is posted then.
 */
int orca_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind)
{
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_wq *sq = &qp->sq;
	struct orca_send_wqe hdr = {};
	bool inline_ok, kick = false;
	uint32_t new_key, flags;
	int op, err;

	op = orca_send_opcode(qp, IBV_WR_BIND_MW, &inline_ok);
	if (op < 0 || !mw || !mw_bind) {
		err = EINVAL;
		goto out;
	}
	new_key = ibv_inc_rkey(mw->rkey);
	err = orca_bind_prepare(qp, mw, IBV_MW_TYPE_1, new_key,
				&mw_bind->bind_info, &hdr);
	if (err)
		goto out;
	flags = orca_send_flags(qp, mw_bind->send_flags) & ORCA_WQE_BIND_FLAGS;
	hdr.wr_id = htole64(mw_bind->wr_id);
	hdr.ctrl = htole32(orca_ctrl(op, flags, 0));

	orca_wq_lock(sq);
	if (orca_qp_in_reset(qp)) {
		err = EINVAL;
	} else if (orca_wq_full(sq)) {
		err = ENOMEM;
	} else {
		memcpy(orca_wq_slot(sq, sq->prod), &hdr, sizeof(hdr));
		sq->prod++;
		mw->rkey = new_key;
		kick = orca_wq_publish(sq);
	}
	orca_wq_unlock(sq);

	if (kick)
		orca_kick_sq(qp);
out:
	if (err)
		errno = err;
	return err;
}

/* --- receive WQEs ----------------------------------------------------- */

static int orca_build_recv(struct orca_wq *wq, const struct ibv_recv_wr *wr)
{
	struct orca_recv_wqe *wqe = orca_wq_slot(wq, wq->prod);
	struct orca_recv_wqe hdr;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_post_sge)
		return EINVAL;

	orca_write_sges((struct orca_sge *)(wqe + 1), wr->sg_list, wr->num_sge);
	hdr = (struct orca_recv_wqe){
		.wr_id = htole64(wr->wr_id),
		.num_sge = htole32(wr->num_sge),
	};
	memcpy(wqe, &hdr, sizeof(hdr));
	return 0;
}

/*
 * Posts to an RQ or SRQ with wq->lock held.  Returns an errno, with *bad
 * at the first WR not posted, and whether the device wants a kick.
 */
static int orca_post_recv_locked(struct orca_wq *wq, struct ibv_recv_wr *wr,
				 struct ibv_recv_wr **bad, bool *kick)
{
	uint32_t start = wq->prod;
	int err = 0;

	for (; wr; wr = wr->next) {
		if (orca_wq_full(wq)) {
			err = ENOMEM;
			break;
		}
		err = orca_build_recv(wq, wr);
		if (err)
			break;
		wq->prod++;
	}
	if (wq->prod != start)
		*kick = orca_wq_publish(wq);
	if (err)
		*bad = wr;
	return err;
}

int orca_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_wq *rq = &qp->rq;
	bool kick = false;
	int err;

	/*
	 * A QP with an SRQ, an XRC_SEND and an XRC_RECV QP have no receive
	 * queue of their own.
	 */
	if (!rq->depth) {
		*bad_wr = wr;
		return EINVAL;
	}

	orca_wq_lock(rq);
	if (orca_qp_in_reset(qp)) {
		/* IBA C10-97.2.1: posting to a QP in RESET is an error. */
		*bad_wr = wr;
		err = EINVAL;
	} else {
		err = orca_post_recv_locked(rq, wr, bad_wr, &kick);
	}
	orca_wq_unlock(rq);

	if (kick)
		orca_kick_rq(qp);
	return err;
}

/*
 * The device always polls SRQs (it reads prod when a message needs a
 * receive WQE), so an SRQ post never kicks.
 */
int orca_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct orca_srq *srq = to_osrq(ibsrq);
	bool kick = false;
	int err;

	pthread_spin_lock(&srq->wq.lock);
	err = orca_post_recv_locked(&srq->wq, wr, bad_wr, &kick);
	pthread_spin_unlock(&srq->wq.lock);
	return err;
}

/* --- completion queues ------------------------------------------------ */

#define ORCA_ST_CHECK(orca, ibv) \
	_Static_assert((int)(orca) == (int)(ibv), #orca " == " #ibv)
ORCA_ST_CHECK(ORCA_CQE_ST_SUCCESS, IBV_WC_SUCCESS);
ORCA_ST_CHECK(ORCA_CQE_ST_LOC_LEN_ERR, IBV_WC_LOC_LEN_ERR);
ORCA_ST_CHECK(ORCA_CQE_ST_LOC_QP_OP_ERR, IBV_WC_LOC_QP_OP_ERR);
ORCA_ST_CHECK(ORCA_CQE_ST_LOC_PROT_ERR, IBV_WC_LOC_PROT_ERR);
ORCA_ST_CHECK(ORCA_CQE_ST_WR_FLUSH_ERR, IBV_WC_WR_FLUSH_ERR);
ORCA_ST_CHECK(ORCA_CQE_ST_MW_BIND_ERR, IBV_WC_MW_BIND_ERR);
ORCA_ST_CHECK(ORCA_CQE_ST_BAD_RESP_ERR, IBV_WC_BAD_RESP_ERR);
ORCA_ST_CHECK(ORCA_CQE_ST_LOC_ACCESS_ERR, IBV_WC_LOC_ACCESS_ERR);
ORCA_ST_CHECK(ORCA_CQE_ST_REM_INV_REQ_ERR, IBV_WC_REM_INV_REQ_ERR);
ORCA_ST_CHECK(ORCA_CQE_ST_REM_ACCESS_ERR, IBV_WC_REM_ACCESS_ERR);
ORCA_ST_CHECK(ORCA_CQE_ST_REM_OP_ERR, IBV_WC_REM_OP_ERR);
ORCA_ST_CHECK(ORCA_CQE_ST_RETRY_EXC_ERR, IBV_WC_RETRY_EXC_ERR);
ORCA_ST_CHECK(ORCA_CQE_ST_RNR_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR);
ORCA_ST_CHECK(ORCA_CQE_ST_FATAL_ERR, IBV_WC_FATAL_ERR);
ORCA_ST_CHECK(ORCA_CQE_ST_GENERAL_ERR, IBV_WC_GENERAL_ERR);

static bool orca_wc_status(uint32_t st, enum ibv_wc_status *out)
{
	switch (st) {
	case ORCA_CQE_ST_SUCCESS:
	case ORCA_CQE_ST_LOC_LEN_ERR:
	case ORCA_CQE_ST_LOC_QP_OP_ERR:
	case ORCA_CQE_ST_LOC_PROT_ERR:
	case ORCA_CQE_ST_WR_FLUSH_ERR:
	case ORCA_CQE_ST_MW_BIND_ERR:
	case ORCA_CQE_ST_BAD_RESP_ERR:
	case ORCA_CQE_ST_LOC_ACCESS_ERR:
	case ORCA_CQE_ST_REM_INV_REQ_ERR:
	case ORCA_CQE_ST_REM_ACCESS_ERR:
	case ORCA_CQE_ST_REM_OP_ERR:
	case ORCA_CQE_ST_RETRY_EXC_ERR:
	case ORCA_CQE_ST_RNR_RETRY_EXC_ERR:
	case ORCA_CQE_ST_FATAL_ERR:
	case ORCA_CQE_ST_GENERAL_ERR:
		*out = (enum ibv_wc_status)st;
		return true;
	default:
		return false;
	}
}

static bool orca_wc_opcode(uint32_t op, enum ibv_wc_opcode *out)
{
	switch (op) {
	case ORCA_CQE_OP_SEND:
		*out = IBV_WC_SEND;
		return true;
	case ORCA_CQE_OP_RDMA_WRITE:
		*out = IBV_WC_RDMA_WRITE;
		return true;
	case ORCA_CQE_OP_RDMA_READ:
		*out = IBV_WC_RDMA_READ;
		return true;
	case ORCA_CQE_OP_ATOMIC_CMP_SWP:
		*out = IBV_WC_COMP_SWAP;
		return true;
	case ORCA_CQE_OP_ATOMIC_FETCH_ADD:
		*out = IBV_WC_FETCH_ADD;
		return true;
	case ORCA_CQE_OP_LOCAL_INV:
		*out = IBV_WC_LOCAL_INV;
		return true;
	case ORCA_CQE_OP_BIND_MW:
		*out = IBV_WC_BIND_MW;
		return true;
	case ORCA_CQE_OP_RECV:
		*out = IBV_WC_RECV;
		return true;
	case ORCA_CQE_OP_RECV_RDMA_IMM:
		*out = IBV_WC_RECV_RDMA_WITH_IMM;
		return true;
	default:
		/* REG_MR is kernel only: a user CQ never holds one. */
		return false;
	}
}

/*
 * Fills wc from a copy of a CQE.  Anything the device should not have
 * written becomes IBV_WC_GENERAL_ERR with the raw word in vendor_err.
 */
static void orca_cqe_to_wc(const struct orca_cqe *cqe, uint32_t status_owner,
			   struct ibv_wc *wc)
{
	uint32_t info = le32toh(cqe->info);
	uint32_t flags = (info & ORCA_CQE_INFO_FLAGS_MASK) >>
			 ORCA_CQE_INFO_FLAGS_SHIFT;
	uint32_t imm_inv = le32toh(cqe->imm_inv);

	wc->wr_id = le64toh(cqe->wr_id);
	wc->vendor_err = 0;
	wc->byte_len = le32toh(cqe->byte_len);
	wc->qp_num = le32toh(cqe->qpn);
	wc->src_qp = le32toh(cqe->src_qp);
	wc->wc_flags = 0;
	wc->imm_data = 0;
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = 0;
	wc->dlid_path_bits = 0;

	if (!orca_wc_status(status_owner & ORCA_CQE_STATUS_MASK,
			    &wc->status)) {
		wc->status = IBV_WC_GENERAL_ERR;
		wc->vendor_err = status_owner & ORCA_CQE_STATUS_MASK;
	}
	if (!orca_wc_opcode(info & ORCA_CQE_INFO_OPCODE_MASK, &wc->opcode)) {
		wc->opcode = IBV_WC_SEND;
		wc->status = IBV_WC_GENERAL_ERR;
		wc->vendor_err = info;
	}

	if (flags & ORCA_CQE_FLAG_IMM) {
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = htobe32(imm_inv);
	} else if (flags & ORCA_CQE_FLAG_INV) {
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = imm_inv;
	}
	if (flags & ORCA_CQE_FLAG_GRH)
		wc->wc_flags |= IBV_WC_GRH;
}

/*
 * Takes the CQE at cq->cons into wc if the device has written it.  The
 * owner bit is read with acquire semantics, so the rest of the entry
 * (written before it, the timestamp of a 64-byte entry included) is
 * read after it; the entry is then copied, and only the copy is looked
 * at.  ts, if not NULL, gets the timestamp: only for 64-byte entries.
 */
bool orca_cq_take(struct orca_cq *cq, struct ibv_wc *wc, uint64_t *ts)
{
	const struct orca_cqe *slot = orca_cq_slot(cq, cq->cons);
	uint32_t phase = (cq->cons >> cq->log2_depth) & 1;
	struct orca_cqe cqe;
	uint32_t so;

	so = orca_ld_acquire(&slot->status_owner);
	if (!!(so & ORCA_CQE_OWNER) != (phase ^ 1))
		return false;
	memcpy(&cqe, slot, sizeof(cqe));
	if (ts) {
		const struct orca_cqe_ext *ext = (const void *)(slot + 1);

		*ts = le64toh(ext->timestamp);
	}
	orca_cqe_to_wc(&cqe, so, wc);
	cq->cons++;
	return true;
}

/* Tells the device how far software has consumed. */
void orca_cq_update_cons(struct orca_cq *cq)
{
	orca_st_release(&cq->db->cons, cq->cons);
}

int orca_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct orca_cq *cq = to_ocq(ibcq);
	int n = 0;

	orca_cq_lock(cq);
	while (n < num_entries && orca_cq_take(cq, &wc[n], NULL))
		n++;
	if (n)
		orca_cq_update_cons(cq);
	orca_cq_unlock(cq);
	return n;
}

/*
 * ibv_req_notify_cq(3): one event for the next (solicited) completion.
 * The arm word is written after cons; the fence orders it before the
 * look at the CQE at cons.  If that CQE is already there, the device may
 * have written it before it could see the arm, so it is asked to look
 * again (the kick); otherwise the device will see the arm after writing
 * that CQE.
 *
 * The SEQ is 16 bits and the device ignores an arm whose SEQ is the one
 * it fired last, so a new SEQ is only taken once the previous arm is
 * known to have fired; until then the arm is rewritten with its SEQ
 * (replacing a pending arm, solicited-only or not, is still one event).
 * It is known to have fired when its event was read (cq_event), when it
 * was not solicited-only and a CQE was already there or has been
 * consumed since (the device fires such an arm for any CQE).  So any
 * number of arms without an event never brings SEQ back to the one
 * fired last.  An arm whose event is still unread is rewritten as is:
 * that event already covers the completions that follow.
 */
int orca_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct orca_cq *cq = to_ocq(ibcq);
	const struct orca_cqe *slot;
	uint32_t arm, phase, so;
	bool kick;

	orca_cq_lock(cq);
	orca_st_release(&cq->db->cons, cq->cons);
	if (cq->arm_live && !cq->arm_solicited && cq->cons != cq->arm_cons)
		cq->arm_live = false;
	if (!cq->arm_live)
		cq->arm_seq = (cq->arm_seq + 1) & ORCA_CQ_ARM_SEQ_MASK;
	arm = cq->arm_seq | ORCA_CQ_ARM_REQUEST;
	if (solicited_only)
		arm |= ORCA_CQ_ARM_SOLICITED;
	/* Release: the device reads the arm word, then cons. */
	orca_st_release(&cq->db->arm, arm);
	atomic_thread_fence(memory_order_seq_cst);

	slot = orca_cq_slot(cq, cq->cons);
	phase = (cq->cons >> cq->log2_depth) & 1;
	so = orca_ld_relaxed(&slot->status_owner);
	kick = !!(so & ORCA_CQE_OWNER) == (phase ^ 1);

	cq->arm_live = !(kick && !solicited_only);
	cq->arm_solicited = solicited_only;
	cq->arm_cons = cq->cons;
	orca_cq_unlock(cq);

	if (!kick)
		return 0;
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

/* ibv_get_cq_event() read an event of this CQ: its last arm fired. */
void orca_cq_event(struct ibv_cq *ibcq)
{
	struct orca_cq *cq = to_ocq(ibcq);

	orca_cq_lock(cq);
	cq->arm_live = false;
	orca_cq_unlock(cq);
}
