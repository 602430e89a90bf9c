// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca HCA driver: posting work requests.
 *
 * Kernel QPs and SRQs: the WQEs are written into the ring in coherent DMA
 * memory, then the producer index into the queue's doorbell record
 * (uapi/rdma/orca-abi.h), then a full barrier and a look at the device's
 * POLLING flag in the same record: only a device that is not polling the
 * queue is notified, through the QP doorbell register.  Each queue has
 * its own lock, taken with interrupts off: ib_core consumers post from
 * any context.
 *
 * User QPs post in their own mapping.  Their "kick" is the driver's
 * uverbs method ORCA_IB_METHOD_QP_KICK, or the zero-WR POST_SEND and
 * POST_RECV commands of a provider that does not use it: liborca found
 * POLLING clear after writing prod, and the driver rings the QP doorbell
 * on its behalf.
 */

#define UVERBS_MODULE_NAME orca_ib
#include <linux/bitfield.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>

#include "orca.h"
#include "orca_ring.h"
#include <rdma/orca-abi.h>

static void orca_qp_kick(struct orca_dev *dev, struct orca_qp *qp)
{
	orca_reg_write(dev, ORCA_REG_QP_DB,
		       FIELD_PREP(ORCA_QP_DB_QPN, qp->qpn));
}

/*
 * The kick of a user QP, whichever way it came: EINVAL for an XRC
 * target, which has no queue of the process's own.
 */
static int orca_qp_user_kick(struct orca_dev *dev, struct orca_qp *qp)
{
	if (!qp->user || qp->hw_type == ORCA_QPT_XRC_TGT)
		return -EINVAL;
	orca_qp_kick(dev, qp);
	return 0;
}

static u32 orca_kwq_room_at(struct orca_kwq *wq, u32 cons)
{
	u32 used = wq->prod - cons;

	return used >= wq->max_wr ? 0 : wq->max_wr - used;
}

/*
 * Free slots: the reported capacity minus what the device has not done.
 * The device's cons is read only when the last value read says the
 * queue is full, which keeps the poster off the cache line the device
 * writes.
 */
static u32 orca_kwq_room(struct orca_kwq *wq)
{
	u32 room = orca_kwq_room_at(wq, wq->cons);

	if (room)
		return room;
	wq->cons = le32_to_cpu(READ_ONCE(wq->db->cons));
	return orca_kwq_room_at(wq, wq->cons);
}

static void *orca_kwq_slot(struct orca_kwq *wq, u32 idx)
{
	return orca_qmem_ptr(wq->qmem, wq->offset +
			     ((size_t)orca_ring_slot(idx, wq->log2_depth) <<
			      wq->log2_stride));
}

/*
 * Publish prod after the WQEs below it are complete; tell the device
 * unless it says it is polling.  Returns true if it must be kicked.
 */
static bool orca_kwq_publish(struct orca_kwq *wq)
{
	dma_wmb();
	WRITE_ONCE(wq->db->prod, cpu_to_le32(wq->prod));
	/* Pairs with the device's barrier between clearing POLLING and
	 * re-reading prod: one of the two sees the other's store.
	 */
	mb();
	return !(le32_to_cpu(READ_ONCE(wq->db->dev_flags)) &
		 ORCA_DB_DEV_POLLING);
}

static void orca_put_sges(struct orca_sge *dst, const struct ib_sge *sg,
			  int num_sge)
{
	int i;

	for (i = 0; i < num_sge; i++) {
		dst[i].addr = cpu_to_le64(sg[i].addr);
		dst[i].length = cpu_to_le32(sg[i].length);
		dst[i].lkey = cpu_to_le32(sg[i].lkey);
	}
}

/* The device opcode of @wr on @qp, or -EINVAL if the QP type forbids it. */
static int orca_send_opcode(const struct orca_qp *qp,
			    enum ib_wr_opcode opcode)
{
	bool rc = qp->hw_type == ORCA_QPT_RC;
	bool uc = qp->hw_type == ORCA_QPT_UC;

	switch (opcode) {
	case IB_WR_SEND:
		return ORCA_WQE_OP_SEND;
	case IB_WR_SEND_WITH_IMM:
		return ORCA_WQE_OP_SEND_IMM;
	case IB_WR_SEND_WITH_INV:
		/* The IBTA defines Send with Invalidate for RC only. */
		return rc ? ORCA_WQE_OP_SEND_INV : -EINVAL;
	case IB_WR_RDMA_WRITE:
		return rc || uc ? ORCA_WQE_OP_RDMA_WRITE : -EINVAL;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return rc || uc ? ORCA_WQE_OP_RDMA_WRITE_IMM : -EINVAL;
	case IB_WR_RDMA_READ:
		return rc ? ORCA_WQE_OP_RDMA_READ : -EINVAL;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return rc ? ORCA_WQE_OP_ATOMIC_CMP_SWP : -EINVAL;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return rc ? ORCA_WQE_OP_ATOMIC_FETCH_ADD : -EINVAL;
	case IB_WR_LOCAL_INV:
		return rc || uc ? ORCA_WQE_OP_LOCAL_INV : -EINVAL;
	case IB_WR_REG_MR:
		return rc || uc ? ORCA_WQE_OP_REG_MR : -EINVAL;
	default:
		return -EINVAL;
	}
}

/* Copy the inline payload after the WQE header. */
static int orca_put_inline(struct orca_qp *qp, void *data,
			   const struct ib_send_wr *wr, u32 *len)
{
	u32 total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 l = wr->sg_list[i].length;

		if (l > qp->max_inline - total)
			return -EINVAL;
		memcpy(data + total, (void *)(uintptr_t)wr->sg_list[i].addr, l);
		total += l;
	}
	*len = total;
	return 0;
}

static int orca_put_reg_mr(struct orca_send_wqe *wqe,
			   const struct ib_reg_wr *reg)
{
	struct orca_mr *mr = to_omr(reg->mr);
	struct orca_wqe_reg_mr *seg = (struct orca_wqe_reg_mr *)&wqe->seg;
	unsigned int shift;

	/* Optional access flags (relaxed ordering) may be ignored. */
	if (!mr->pages || !is_power_of_2(reg->mr->page_size) ||
	    reg->access & ~(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
			    IB_ACCESS_OPTIONAL))
		return -EINVAL;
	shift = ilog2(reg->mr->page_size);
	seg->iova = cpu_to_le64(reg->mr->iova);
	seg->length = cpu_to_le64(reg->mr->length);
	seg->pbl_addr = cpu_to_le64(mr->pages_dma);
	seg->key = cpu_to_le32(reg->key);
	seg->info = cpu_to_le32(FIELD_PREP(ORCA_WQE_REG_MR_ACCESS,
					   orca_access_to_hw(reg->access)) |
				FIELD_PREP(ORCA_WQE_REG_MR_PAGE_SHIFT, shift));
	return 0;
}

#define ORCA_IB_SEND_FLAGS	(IB_SEND_FENCE | IB_SEND_SIGNALED | \
				 IB_SEND_SOLICITED | IB_SEND_INLINE)

/* Build the WQE of @wr in slot @wqe.  Nothing is published yet. */
static int orca_build_send_wqe(struct orca_qp *qp, struct orca_send_wqe *wqe,
			       const struct ib_send_wr *wr)
{
	bool is_ud = qp->hw_type == ORCA_QPT_UD || qp->hw_type == ORCA_QPT_GSI;
	u32 wqe_flags = 0, inline_len = 0;
	int opcode, num_sge = 0;
	int ret;

	opcode = orca_send_opcode(qp, wr->opcode);
	if (opcode < 0)
		return opcode;
	if (wr->send_flags & ~ORCA_IB_SEND_FLAGS)
		return -EINVAL;
	if (wr->num_sge < 0 || wr->num_sge > qp->ksq.max_sge)
		return -EINVAL;

	memset(wqe, 0, ORCA_SEND_WQE_HDR_SIZE);
	wqe->wr_id = cpu_to_le64(wr->wr_id);
	if (wr->send_flags & IB_SEND_SIGNALED)
		wqe_flags |= ORCA_WQE_FLAG_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		wqe_flags |= ORCA_WQE_FLAG_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		wqe_flags |= ORCA_WQE_FLAG_FENCE;

	switch (opcode) {
	case ORCA_WQE_OP_SEND_IMM:
	case ORCA_WQE_OP_RDMA_WRITE_IMM:
		wqe->imm_inv = cpu_to_le32(be32_to_cpu(wr->ex.imm_data));
		break;
	case ORCA_WQE_OP_SEND_INV:
	case ORCA_WQE_OP_LOCAL_INV:
		wqe->imm_inv = cpu_to_le32(wr->ex.invalidate_rkey);
		break;
	}

	switch (opcode) {
	case ORCA_WQE_OP_SEND:
	case ORCA_WQE_OP_SEND_IMM:
	case ORCA_WQE_OP_SEND_INV:
		if (is_ud) {
			const struct ib_ud_wr *ud = ud_wr(wr);

			if (!ud->ah)
				return -EINVAL;
			memcpy((void *)wqe + ORCA_SEND_WQE_HDR_SIZE,
			       &to_oah(ud->ah)->av, ORCA_AV_SIZE);
			wqe->seg.ud.remote_qpn = cpu_to_le32(ud->remote_qpn);
			wqe->seg.ud.remote_qkey = cpu_to_le32(ud->remote_qkey);
		}
		break;
	case ORCA_WQE_OP_RDMA_WRITE:
	case ORCA_WQE_OP_RDMA_WRITE_IMM:
	case ORCA_WQE_OP_RDMA_READ:
		wqe->seg.rdma.remote_addr =
			cpu_to_le64(rdma_wr(wr)->remote_addr);
		wqe->seg.rdma.rkey = cpu_to_le32(rdma_wr(wr)->rkey);
		break;
	case ORCA_WQE_OP_ATOMIC_CMP_SWP:
	case ORCA_WQE_OP_ATOMIC_FETCH_ADD:
		wqe->seg.atomic.remote_addr =
			cpu_to_le64(atomic_wr(wr)->remote_addr);
		wqe->seg.atomic.rkey = cpu_to_le32(atomic_wr(wr)->rkey);
		wqe->seg.atomic.compare_add =
			cpu_to_le64(atomic_wr(wr)->compare_add);
		wqe->seg.atomic.swap = cpu_to_le64(atomic_wr(wr)->swap);
		break;
	case ORCA_WQE_OP_REG_MR:
		ret = orca_put_reg_mr(wqe, reg_wr(wr));
		if (ret)
			return ret;
		break;
	}

	if (opcode == ORCA_WQE_OP_LOCAL_INV || opcode == ORCA_WQE_OP_REG_MR) {
		/* No data, so nothing to inline. */
	} else if ((wr->send_flags & IB_SEND_INLINE) &&
		   opcode != ORCA_WQE_OP_RDMA_READ &&
		   opcode != ORCA_WQE_OP_ATOMIC_CMP_SWP &&
		   opcode != ORCA_WQE_OP_ATOMIC_FETCH_ADD) {
		ret = orca_put_inline(qp, (void *)wqe + qp->sq_hdr,
				      wr, &inline_len);
		if (ret)
			return ret;
		wqe_flags |= ORCA_WQE_FLAG_INLINE;
		wqe->inline_len = cpu_to_le32(inline_len);
	} else {
		num_sge = wr->num_sge;
		orca_put_sges((void *)wqe + qp->sq_hdr,
			      wr->sg_list, num_sge);
	}

	wqe->ctrl = cpu_to_le32(FIELD_PREP(ORCA_WQE_CTRL_OPCODE_MASK, opcode) |
				FIELD_PREP(ORCA_WQE_CTRL_FLAGS_MASK, wqe_flags) |
				FIELD_PREP(ORCA_WQE_CTRL_NUM_SGE_MASK,
					   num_sge));
	return 0;
}

int orca_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr)
{
	struct orca_dev *dev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_kwq *wq = &qp->ksq;
	unsigned long flags;
	bool kick = false;
	int ret = 0;
	u32 start;

	if (qp->user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		return orca_qp_user_kick(dev, qp);
	}
	if (!wr)
		return 0;
	if (READ_ONCE(qp->in_reset)) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&wq->lock, flags);
	start = wq->prod;
	for (; wr; wr = wr->next) {
		if (!orca_kwq_room(wq)) {
			ret = -ENOMEM;
			break;
		}
		ret = orca_build_send_wqe(qp, orca_kwq_slot(wq, wq->prod), wr);
		if (ret)
			break;
		wq->prod++;
	}
	if (wr)
		*bad_wr = wr;
	if (wq->prod != start)
		kick = orca_kwq_publish(wq);
	spin_unlock_irqrestore(&wq->lock, flags);
	if (kick)
		orca_qp_kick(dev, qp);
	return ret;
}

static int orca_build_recv_wqe(struct orca_kwq *wq, struct orca_recv_wqe *wqe,
			       const struct ib_recv_wr *wr)
{
	if (wr->num_sge < 0 || wr->num_sge > wq->max_sge)
		return -EINVAL;
	wqe->wr_id = cpu_to_le64(wr->wr_id);
	wqe->num_sge = cpu_to_le32(wr->num_sge);
	wqe->reserved = 0;
	orca_put_sges((void *)wqe + ORCA_RECV_WQE_HDR_SIZE, wr->sg_list,
		      wr->num_sge);
	return 0;
}

/* Post @wr to a kernel RQ or SRQ; *@kick: the device must be notified. */
static int orca_post_kwq_recv(struct orca_kwq *wq, const struct ib_recv_wr *wr,
			      const struct ib_recv_wr **bad_wr, bool *kick)
{
	unsigned long flags;
	int ret = 0;
	u32 start;

	*kick = false;
	spin_lock_irqsave(&wq->lock, flags);
	start = wq->prod;
	for (; wr; wr = wr->next) {
		if (!orca_kwq_room(wq)) {
			ret = -ENOMEM;
			break;
		}
		ret = orca_build_recv_wqe(wq, orca_kwq_slot(wq, wq->prod), wr);
		if (ret)
			break;
		wq->prod++;
	}
	if (wr)
		*bad_wr = wr;
	if (wq->prod != start)
		*kick = orca_kwq_publish(wq);
	spin_unlock_irqrestore(&wq->lock, flags);
	return ret;
}

int orca_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr)
{
	struct orca_dev *dev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	bool kick = false;
	int ret;

	if (qp->user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		return orca_qp_user_kick(dev, qp);
	}
	if (!wr)
		return 0;
	/* IBA C10-97.2.1: no receives in RESET; none on an SRQ's QP. */
	if (!qp->has_rq || READ_ONCE(qp->in_reset)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	ret = orca_post_kwq_recv(&qp->krq, wr, bad_wr, &kick);
	if (kick)
		orca_qp_kick(dev, qp);
	return ret;
}

/*
 * SRQs: the device always polls them (POLLING stays set), and a posted
 * receive waits for a message to arrive at one of the SRQ's QPs, so there
 * is nothing to kick.
 */
int orca_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct orca_srq *srq = to_osrq(ibsrq);
	bool kick;

	if (srq->user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		return 0;
	}
	if (!wr)
		return 0;
	return orca_post_kwq_recv(&srq->kwq, wr, bad_wr, &kick);
}

/*
 * ORCA_IB_METHOD_QP_KICK (orca-abi.h).  ib_core found the handle's object
 * in the ucontext, checked that it is a QP and holds it (shared) until
 * the method returns, so it cannot be destroyed meanwhile.
 */
static int UVERBS_HANDLER(ORCA_IB_METHOD_QP_KICK)(struct uverbs_attr_bundle *attrs)
{
	struct ib_qp *ibqp = uverbs_attr_get_obj(attrs,
						 ORCA_IB_ATTR_QP_KICK_HANDLE);

	if (IS_ERR(ibqp))
		return PTR_ERR(ibqp);
	return orca_qp_user_kick(to_odev(ibqp->device),
				 to_oqp(ibqp->real_qp));
}

DECLARE_UVERBS_NAMED_METHOD(ORCA_IB_METHOD_QP_KICK,
			    UVERBS_ATTR_IDR(ORCA_IB_ATTR_QP_KICK_HANDLE,
					    UVERBS_OBJECT_QP,
					    UVERBS_ACCESS_READ, UA_MANDATORY));

ADD_UVERBS_METHODS(orca_ib_qp, UVERBS_OBJECT_QP,
		   &UVERBS_METHOD(ORCA_IB_METHOD_QP_KICK));

const struct uapi_definition orca_qp_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_QP, &orca_ib_qp),
	{},
};
