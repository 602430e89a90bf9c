// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * liborca: the extended data-path verbs.
 *
 * ibv_create_cq_ex(): the same CQ as ibv_create_cq(), polled through
 * start_poll/next_poll/end_poll.  The CQ lock is held from a successful
 * start_poll to end_poll; each entry is converted once into cq->ex_wc and
 * the read_*() callbacks return its fields.  With a completion timestamp
 * flag the CQ has 64-byte entries, whose timestamp (the device clock, in
 * ns) read_completion_ts returns as is, and read_completion_wallclock_ns
 * as CLOCK_REALTIME ns (see orca_wallclock_offset()).  CVLAN, flow tags
 * and tag matching are not available (EOPNOTSUPP).
 *
 * ibv_create_qp_ex() with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: the ibv_wr_*()
 * API of ibv_wr_post(3).  wr_start takes the SQ lock; each wr_<opcode>()
 * writes a WQE header into the ring at the next slot, the wr_set_*()
 * calls fill in its data and address (or, on an XRC_SEND QP, the
 * target's XRC SRQ); wr_complete publishes prod (and
 * kicks like ibv_post_send()) only if nothing failed, otherwise it rolls
 * the producer index back, so that none of the batch is posted, and
 * returns the first error.  wr_abort rolls back too.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "datapath.h"

/* --- extended CQ --------------------------------------------------------- */

#define ORCA_WC_EX_SUPPORTED	(IBV_WC_EX_WITH_BYTE_LEN |		\
				 IBV_WC_EX_WITH_IMM |			\
				 IBV_WC_EX_WITH_QP_NUM |		\
				 IBV_WC_EX_WITH_SRC_QP |		\
				 IBV_WC_EX_WITH_SLID |			\
				 IBV_WC_EX_WITH_SL |			\
				 IBV_WC_EX_WITH_DLID_PATH_BITS |	\
				 ORCA_WC_EX_TIMESTAMPS)

static inline struct orca_cq *to_ocq_ex(struct ibv_cq_ex *cqx)
{
	return orca_container_of(cqx, struct orca_cq, vcq.cq_ex);
}

static void orca_ex_publish(struct orca_cq *cq)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;

	cqx->wr_id = cq->ex_wc.wr_id;
	cqx->status = cq->ex_wc.status;
}

/* The next entry into cq->ex_wc (and cq->ex_ts, if it has one). */
static bool orca_ex_take(struct orca_cq *cq)
{
	return orca_cq_take(cq, &cq->ex_wc,
			    cq->cqe_size == ORCA_CQE64_SIZE ? &cq->ex_ts : NULL);
}

/*
 * CLOCK_REALTIME minus the device clock, in ns: added to a completion's
 * timestamp, it gives the wall clock time of the completion.  The
 * realtime read is set against the midpoint of two device clock reads
 * around it, so it is off by at most half the time the three reads took
 * (vDSO calls, well below a microsecond).  The device clock does not
 * follow NTP adjustments while CLOCK_REALTIME does, so the offset
 * drifts (by up to the system's frequency correction, typically tens of
 * ppm); it is taken afresh at each start_poll that finds an entry, and
 * a completion's wall clock time is off by that drift over its age.
 */
static uint64_t orca_wallclock_offset(void)
{
	struct timespec dev0, real, dev1;
	uint64_t d0, d1;

	clock_gettime(ORCA_DEVICE_CLOCK, &dev0);
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(ORCA_DEVICE_CLOCK, &dev1);
	d0 = orca_timespec_ns(&dev0);
	d1 = orca_timespec_ns(&dev1);
	return orca_timespec_ns(&real) - (d0 + (d1 - d0) / 2);
}

/*
 * A CQ with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK samples the
 * wall clock offset here, once per batch: every entry of the batch is
 * converted with the same offset.
 */
static int orca_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct orca_cq *cq = to_ocq_ex(cqx);

	if (attr->comp_mask)
		return EINVAL;

	orca_cq_lock(cq);
	cq->ex_start = cq->cons;
	if (!orca_ex_take(cq)) {
		orca_cq_unlock(cq);
		return ENOENT;
	}
	if (cq->ex_wallclock)
		cq->ex_wall_off = orca_wallclock_offset();
	orca_ex_publish(cq);
	return 0;
}

static int orca_next_poll(struct ibv_cq_ex *cqx)
{
	struct orca_cq *cq = to_ocq_ex(cqx);

	if (!orca_ex_take(cq))
		return ENOENT;
	orca_ex_publish(cq);
	return 0;
}

static void orca_end_poll(struct ibv_cq_ex *cqx)
{
	struct orca_cq *cq = to_ocq_ex(cqx);

	if (cq->cons != cq->ex_start)
		orca_cq_update_cons(cq);
	orca_cq_unlock(cq);
}

static enum ibv_wc_opcode orca_read_opcode(struct ibv_cq_ex *cqx)
{
	return to_ocq_ex(cqx)->ex_wc.opcode;
}

static uint32_t orca_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return to_ocq_ex(cqx)->ex_wc.vendor_err;
}

static uint32_t orca_read_byte_len(struct ibv_cq_ex *cqx)
{
	return to_ocq_ex(cqx)->ex_wc.byte_len;
}

/* Also ibv_wc_read_invalidated_rkey(): the union of struct ibv_wc. */
static __be32 orca_read_imm_data(struct ibv_cq_ex *cqx)
{
	return to_ocq_ex(cqx)->ex_wc.imm_data;
}

static uint32_t orca_read_qp_num(struct ibv_cq_ex *cqx)
{
	return to_ocq_ex(cqx)->ex_wc.qp_num;
}

static uint32_t orca_read_src_qp(struct ibv_cq_ex *cqx)
{
	return to_ocq_ex(cqx)->ex_wc.src_qp;
}

static unsigned int orca_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return to_ocq_ex(cqx)->ex_wc.wc_flags;
}

static uint32_t orca_read_slid(struct ibv_cq_ex *cqx)
{
	return to_ocq_ex(cqx)->ex_wc.slid;
}

static uint8_t orca_read_sl(struct ibv_cq_ex *cqx)
{
	return to_ocq_ex(cqx)->ex_wc.sl;
}

static uint8_t orca_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return to_ocq_ex(cqx)->ex_wc.dlid_path_bits;
}

/* The device clock when the device wrote the entry: ns (hca_core_clock). */
static uint64_t orca_read_completion_ts(struct ibv_cq_ex *cqx)
{
	return to_ocq_ex(cqx)->ex_ts;
}

/* The same instant in CLOCK_REALTIME ns, with the batch's offset. */
static uint64_t orca_read_completion_wallclock_ns(struct ibv_cq_ex *cqx)
{
	struct orca_cq *cq = to_ocq_ex(cqx);

	return cq->ex_ts + cq->ex_wall_off;
}

/*
 * libibverbs refuses wc_flags outside IBV_CREATE_CQ_SUP_WC_FLAGS itself
 * and initialises the common ibv_cq fields after this returns.  CQ
 * creation flags are not supported.  MASK_PD must name a parent domain
 * of this context (EINVAL otherwise); the kernel does not hear of it.
 * If the parent domain has a thread domain the CQ is polled and armed
 * without its lock; if it has allocators, the ring is theirs
 * (queue.c).  Either
 * completion timestamp flag gives the CQ 64-byte entries; the kernel
 * refuses them (EOPNOTSUPP) on a device without timestamps.  The
 * read_completion_*() callbacks are installed only for the flags asked
 * for (ibv_create_cq_ex(3): only those fields may be read).  Only the
 * members that the validated comp_mask names are read from attr.
 */
struct ibv_cq_ex *orca_create_cq_ex(struct ibv_context *ibctx,
				    struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_init_attr_ex a = {};
	struct orca_pd *parent = NULL;
	struct ibv_cq_ex *cqx;
	struct orca_cq *cq;

	if (attr->comp_mask & ~(IBV_CQ_INIT_ATTR_MASK_FLAGS |
				IBV_CQ_INIT_ATTR_MASK_PD) ||
	    (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS && attr->flags) ||
	    attr->wc_flags & ~(uint64_t)ORCA_WC_EX_SUPPORTED) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		parent = orca_parent_domain(ibctx, attr->parent_domain);
		if (!parent) {
			errno = EINVAL;
			return NULL;
		}
	}
	if (attr->cqe > INT32_MAX) {
		errno = EINVAL;
		return NULL;
	}

	a.cqe = attr->cqe;
	a.channel = attr->channel;
	a.comp_vector = attr->comp_vector;
	a.wc_flags = attr->wc_flags;
	cq = orca_create_cq_common(ibctx, &a, parent);
	if (!cq)
		return NULL;

	cqx = &cq->vcq.cq_ex;
	cqx->start_poll = orca_start_poll;
	cqx->next_poll = orca_next_poll;
	cqx->end_poll = orca_end_poll;
	cqx->read_opcode = orca_read_opcode;
	cqx->read_vendor_err = orca_read_vendor_err;
	cqx->read_wc_flags = orca_read_wc_flags;
	cqx->read_byte_len = orca_read_byte_len;
	cqx->read_imm_data = orca_read_imm_data;
	cqx->read_qp_num = orca_read_qp_num;
	cqx->read_src_qp = orca_read_src_qp;
	cqx->read_slid = orca_read_slid;
	cqx->read_sl = orca_read_sl;
	cqx->read_dlid_path_bits = orca_read_dlid_path_bits;
	if (attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		cqx->read_completion_ts = orca_read_completion_ts;
	if (attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK) {
		cqx->read_completion_wallclock_ns =
			orca_read_completion_wallclock_ns;
		cq->ex_wallclock = true;
	}
	return cqx;
}

/* --- extended QP: the ibv_wr_*() API ----------------------------------- */

#define ORCA_SEND_OPS_UD	(IBV_QP_EX_WITH_SEND |			\
				 IBV_QP_EX_WITH_SEND_WITH_IMM)
#define ORCA_SEND_OPS_UC	(ORCA_SEND_OPS_UD |			\
				 IBV_QP_EX_WITH_RDMA_WRITE |		\
				 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |	\
				 IBV_QP_EX_WITH_LOCAL_INV |		\
				 IBV_QP_EX_WITH_BIND_MW)
#define ORCA_SEND_OPS_RC	(ORCA_SEND_OPS_UC |			\
				 IBV_QP_EX_WITH_SEND_WITH_INV |		\
				 IBV_QP_EX_WITH_RDMA_READ |		\
				 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |	\
				 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

/* The send_ops_flags a QP of this type can have; the same opcode rules
 * as ibv_post_send().
 */
uint64_t orca_qp_ex_send_ops(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
	case IBV_QPT_XRC_SEND:
		return ORCA_SEND_OPS_RC;
	case IBV_QPT_UC:
		return ORCA_SEND_OPS_UC;
	case IBV_QPT_UD:
		return ORCA_SEND_OPS_UD;
	default:
		return 0;
	}
}

static inline struct orca_qp *to_oqp_ex(struct ibv_qp_ex *qpx)
{
	return orca_container_of(qpx, struct orca_qp, vqp.qp_ex);
}

static inline void orca_wr_fail(struct orca_qp *qp, int err)
{
	if (!qp->wr.err)
		qp->wr.err = err;
	qp->wr.wqe = NULL;
}

/*
 * Checks what the WQE being built needs before the next one starts or
 * the batch completes: an atomic needs its one 8-byte SGE (checked when
 * set), a UD send its address, a request on an XRC_SEND QP its target
 * SRQ (ibv_wr_post(3): wr_set_xrc_srqn() must be called).
 */
static void orca_wr_close(struct orca_qp *qp)
{
	struct orca_wr_batch *b = &qp->wr;
	enum ibv_qp_type type = qp->vqp.qp.qp_type;

	if (!b->wqe)
		return;
	if ((b->opcode == ORCA_WQE_OP_ATOMIC_CMP_SWP ||
	     b->opcode == ORCA_WQE_OP_ATOMIC_FETCH_ADD) && !b->has_data)
		orca_wr_fail(qp, EINVAL);
	else if (type == IBV_QPT_UD && !b->has_ud)
		orca_wr_fail(qp, EINVAL);
	else if (type == IBV_QPT_XRC_SEND && orca_wqe_op_xrc(b->opcode) &&
		 !b->has_xrc)
		orca_wr_fail(qp, EINVAL);
	b->wqe = NULL;
}

/*
 * Starts the WQE of one wr_<opcode>() call at sq.prod, with the wr_id
 * and wr_flags the caller set in the ibv_qp_ex.  NULL once the batch
 * has failed.
 */
static struct orca_send_wqe *orca_wr_begin(struct orca_qp *qp,
					   unsigned int wr_op)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;
	struct orca_wr_batch *b = &qp->wr;
	struct orca_wq *sq = &qp->sq;
	struct orca_send_wqe *wqe;
	bool inline_ok;
	int op;

	orca_wr_close(qp);
	if (b->err)
		return NULL;

	op = orca_send_opcode(qp, wr_op, &inline_ok);
	if (op < 0) {
		orca_wr_fail(qp, EINVAL);
		return NULL;
	}
	if (orca_wq_full(sq)) {
		orca_wr_fail(qp, ENOMEM);
		return NULL;
	}

	wqe = orca_wq_slot(sq, sq->prod);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = htole64(qpx->wr_id);
	wqe->ctrl = htole32(orca_ctrl(op, orca_send_flags(qp, qpx->wr_flags),
				      0));
	sq->prod++;

	b->wqe = wqe;
	b->opcode = op;
	b->inline_ok = inline_ok;
	b->has_data = false;
	b->has_ud = false;
	b->has_xrc = false;
	return wqe;
}

static void orca_wr_start(struct ibv_qp_ex *qpx)
{
	struct orca_qp *qp = to_oqp_ex(qpx);
	struct orca_wr_batch *b = &qp->wr;

	orca_wq_lock(&qp->sq);
	b->start_prod = qp->sq.prod;
	b->err = orca_qp_in_reset(qp) ? EINVAL : 0;
	b->wqe = NULL;
}

static int orca_wr_complete(struct ibv_qp_ex *qpx)
{
	struct orca_qp *qp = to_oqp_ex(qpx);
	struct orca_wr_batch *b = &qp->wr;
	struct orca_wq *sq = &qp->sq;
	bool kick = false;
	int err;

	orca_wr_close(qp);
	err = b->err;
	if (err)
		sq->prod = b->start_prod;
	else if (sq->prod != b->start_prod)
		kick = orca_wq_publish(sq);
	orca_wq_unlock(sq);

	if (kick)
		orca_kick_sq(qp);
	return err;
}

static void orca_wr_abort(struct ibv_qp_ex *qpx)
{
	struct orca_qp *qp = to_oqp_ex(qpx);

	qp->sq.prod = qp->wr.start_prod;
	qp->wr.wqe = NULL;
	orca_wq_unlock(&qp->sq);
}

static void orca_wr_send(struct ibv_qp_ex *qpx)
{
	orca_wr_begin(to_oqp_ex(qpx), IBV_WR_SEND);
}

static void orca_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct orca_send_wqe *wqe;

	wqe = orca_wr_begin(to_oqp_ex(qpx), IBV_WR_SEND_WITH_IMM);
	if (wqe)
		wqe->imm_inv = htole32(be32toh(imm_data));
}

static void orca_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct orca_send_wqe *wqe;

	wqe = orca_wr_begin(to_oqp_ex(qpx), IBV_WR_SEND_WITH_INV);
	if (wqe)
		wqe->imm_inv = htole32(invalidate_rkey);
}

static void orca_wr_rdma(struct ibv_qp_ex *qpx, unsigned int wr_op,
			 uint32_t rkey, uint64_t remote_addr, uint32_t imm)
{
	struct orca_send_wqe *wqe;

	wqe = orca_wr_begin(to_oqp_ex(qpx), wr_op);
	if (!wqe)
		return;
	wqe->seg.rdma.remote_addr = htole64(remote_addr);
	wqe->seg.rdma.rkey = htole32(rkey);
	wqe->imm_inv = htole32(imm);
}

static void orca_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	orca_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void orca_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t remote_addr, __be32 imm_data)
{
	orca_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr,
		     be32toh(imm_data));
}

static void orca_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr)
{
	orca_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void orca_wr_atomic(struct ibv_qp_ex *qpx, unsigned int wr_op,
			   uint32_t rkey, uint64_t remote_addr,
			   uint64_t compare_add, uint64_t swap)
{
	struct orca_send_wqe *wqe;

	wqe = orca_wr_begin(to_oqp_ex(qpx), wr_op);
	if (!wqe)
		return;
	wqe->seg.atomic.remote_addr = htole64(remote_addr);
	wqe->seg.atomic.rkey = htole32(rkey);
	wqe->seg.atomic.compare_add = htole64(compare_add);
	wqe->seg.atomic.swap = htole64(swap);
}

static void orca_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t remote_addr, uint64_t compare,
				   uint64_t swap)
{
	orca_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
		       compare, swap);
}

static void orca_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				     uint64_t remote_addr, uint64_t add)
{
	orca_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr,
		       add, 0);
}

static void orca_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct orca_send_wqe *wqe;

	wqe = orca_wr_begin(to_oqp_ex(qpx), IBV_WR_LOCAL_INV);
	if (wqe)
		wqe->imm_inv = htole32(invalidate_rkey);
}

/*
 * Binds a type 2 window under the rules of ibv_post_send() with
 * IBV_WR_BIND_MW (orca_bind_prepare()); mw->rkey stays the
 * application's to update.
 */
static void orca_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			    uint32_t rkey,
			    const struct ibv_mw_bind_info *bind_info)
{
	struct orca_qp *qp = to_oqp_ex(qpx);
	struct orca_send_wqe *wqe;
	int err;

	wqe = orca_wr_begin(qp, IBV_WR_BIND_MW);
	if (!wqe)
		return;
	err = orca_bind_prepare(qp, mw, IBV_MW_TYPE_2, rkey, bind_info, wqe);
	if (err) {
		orca_wr_fail(qp, err);
		return;
	}
	wqe->ctrl = htole32(orca_ctrl(ORCA_WQE_OP_BIND_MW,
				      orca_send_flags(qp, qpx->wr_flags) &
				      ORCA_WQE_BIND_FLAGS, 0));
}

static void orca_wr_set_ctrl_data(struct orca_wr_batch *b, uint32_t flags,
				  uint32_t num_sge)
{
	uint32_t ctrl = le32toh(b->wqe->ctrl);
	uint32_t old_flags = (ctrl & ORCA_WQE_CTRL_FLAGS_MASK) >>
			     ORCA_WQE_CTRL_FLAGS_SHIFT;

	b->wqe->ctrl = htole32(orca_ctrl(ctrl & ORCA_WQE_CTRL_OPCODE_MASK,
					 old_flags | flags, num_sge));
	b->has_data = true;
}

static void orca_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				 const struct ibv_sge *sg_list)
{
	struct orca_qp *qp = to_oqp_ex(qpx);
	struct orca_wr_batch *b = &qp->wr;

	if (!b->wqe) {
		orca_wr_fail(qp, EINVAL);
		return;
	}
	if (b->has_data || num_sge > qp->sq.max_post_sge) {
		orca_wr_fail(qp, EINVAL);
		return;
	}
	switch (b->opcode) {
	case ORCA_WQE_OP_ATOMIC_CMP_SWP:
	case ORCA_WQE_OP_ATOMIC_FETCH_ADD:
		if (num_sge != 1 || sg_list[0].length != 8) {
			orca_wr_fail(qp, EINVAL);
			return;
		}
		break;
	case ORCA_WQE_OP_LOCAL_INV:
	case ORCA_WQE_OP_BIND_MW:
		/* No data: nothing to point at. */
		orca_wr_fail(qp, EINVAL);
		return;
	default:
		break;
	}
	orca_write_sges(orca_send_payload(qp, b->wqe), sg_list, num_sge);
	orca_wr_set_ctrl_data(b, 0, num_sge);
}

static void orca_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			    uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	orca_wr_set_sge_list(qpx, 1, &sge);
}

static void orca_wr_set_inline_data_list(struct ibv_qp_ex *qpx,
					 size_t num_buf,
					 const struct ibv_data_buf *buf_list)
{
	struct orca_qp *qp = to_oqp_ex(qpx);
	struct orca_wr_batch *b = &qp->wr;
	uint32_t len = 0;
	size_t i;

	if (!b->wqe || b->has_data || !b->inline_ok) {
		orca_wr_fail(qp, EINVAL);
		return;
	}
	for (i = 0; i < num_buf; i++) {
		if (orca_inline_append(qp, b->wqe, &len, buf_list[i].addr,
				       buf_list[i].length)) {
			orca_wr_fail(qp, EINVAL);
			return;
		}
	}
	b->wqe->inline_len = htole32(len);
	orca_wr_set_ctrl_data(b, ORCA_WQE_FLAG_INLINE, 0);
}

static void orca_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				    size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	orca_wr_set_inline_data_list(qpx, 1, &buf);
}

static void orca_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct orca_qp *qp = to_oqp_ex(qpx);
	struct orca_wr_batch *b = &qp->wr;

	if (!b->wqe || qp->vqp.qp.qp_type != IBV_QPT_UD || !ah) {
		orca_wr_fail(qp, EINVAL);
		return;
	}
	memcpy(b->wqe + 1, &to_oah(ah)->av, ORCA_AV_SIZE);
	b->wqe->seg.ud.remote_qpn = htole32(remote_qpn);
	b->wqe->seg.ud.remote_qkey = htole32(remote_qkey);
	b->has_ud = true;
}

/*
 * The XRC SRQ at the target that the request goes to (remote_srqn of
 * ibv_post_send()), on an XRC_SEND QP only: EINVAL on other QPs and for
 * a number of 2^24 or more.  After wr_local_inv() or wr_bind_mw(), which
 * send no request, it is accepted and ignored, as ibv_post_send() ignores
 * remote_srqn there: applications set it on every WR.
 */
static void orca_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	struct orca_qp *qp = to_oqp_ex(qpx);
	struct orca_wr_batch *b = &qp->wr;

	if (!b->wqe || qp->vqp.qp.qp_type != IBV_QPT_XRC_SEND ||
	    remote_srqn & ~ORCA_WQE_XRC_SRQN_MASK) {
		orca_wr_fail(qp, EINVAL);
		return;
	}
	if (!orca_wqe_op_xrc(b->opcode))
		return;
	b->wqe->xrc_srqn = htole32(remote_srqn);
	b->has_xrc = true;
}

/*
 * Makes the QP an ibv_qp_ex for ibv_qp_to_qp_ex().  Every builder is set;
 * opcodes the QP type cannot take were refused at creation, and fail the
 * batch with EINVAL if called anyway.
 */
void orca_qp_init_ex(struct orca_qp *qp)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	qpx->wr_start = orca_wr_start;
	qpx->wr_complete = orca_wr_complete;
	qpx->wr_abort = orca_wr_abort;
	qpx->wr_send = orca_wr_send;
	qpx->wr_send_imm = orca_wr_send_imm;
	qpx->wr_send_inv = orca_wr_send_inv;
	qpx->wr_rdma_write = orca_wr_rdma_write;
	qpx->wr_rdma_write_imm = orca_wr_rdma_write_imm;
	qpx->wr_rdma_read = orca_wr_rdma_read;
	qpx->wr_atomic_cmp_swp = orca_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = orca_wr_atomic_fetch_add;
	qpx->wr_local_inv = orca_wr_local_inv;
	qpx->wr_bind_mw = orca_wr_bind_mw;
	qpx->wr_set_sge = orca_wr_set_sge;
	qpx->wr_set_sge_list = orca_wr_set_sge_list;
	qpx->wr_set_inline_data = orca_wr_set_inline_data;
	qpx->wr_set_inline_data_list = orca_wr_set_inline_data_list;
	qpx->wr_set_ud_addr = orca_wr_set_ud_addr;
	qpx->wr_set_xrc_srqn = orca_wr_set_xrc_srqn;
	qp->vqp.comp_mask |= VERBS_QP_EX;
}
