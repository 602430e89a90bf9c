// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca HCA driver: completion queues.
 *
 * A CQ's memory (struct orca_qmem) is the ring of depth * cqe_size bytes
 * rounded up to a page, then a page whose first 64 bytes are the CQ's
 * doorbell record.  User CQs map all of it; with rings in the process's
 * own buffer (ORCA_QUEUE_REQ_USER_BUF) the memory is that page alone.
 */

#include <linux/bitfield.h>
#include <linux/log2.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_ioctl.h>

#include "orca.h"
#include "orca_ring.h"
#include <rdma/orca-abi.h>

static size_t orca_cq_ring_bytes(u32 depth, u32 cqe_size)
{
	return PAGE_ALIGN((size_t)depth * cqe_size);
}

/* Depth for @cqe entries, or 0 if the device cannot hold them. */
static u32 orca_cq_depth(struct orca_dev *dev, int cqe)
{
	if (cqe < 0 || cqe > le32_to_cpu(dev->hw_attr.max_cqe))
		return 0;
	return roundup_pow_of_two(max(cqe, 2));
}

static void orca_cq_kick(struct orca_dev *dev, struct orca_cq *cq)
{
	orca_reg_write(dev, ORCA_REG_CQ_DB,
		       FIELD_PREP(ORCA_CQ_DB_CQN, cq->cqn));
}

/*
 * After a resize of a kernel CQ, done or refused: an arm asked for while
 * it ran (orca_req_notify_cq() keeps it in arm_word) goes into the record
 * the device now uses, and the device looks at what the CQ holds.
 * Called with cq->lock held.
 */
static void orca_cq_rearm_locked(struct orca_dev *dev, struct orca_cq *cq)
{
	if (cq->user || !(cq->arm_word & ORCA_CQ_ARM_REQUEST))
		return;
	WRITE_ONCE(cq->db->arm, cpu_to_le32(cq->arm_word));
	/* The arm word before the doorbell that re-evaluates it. */
	mb();
	orca_cq_kick(dev, cq);
}

int orca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_create_cq_resp resp = {};
	struct orca_ubuf ubuf = {};
	struct orca_ucontext *uctx;
	size_t ring_bytes, db_off;
	u64 key = 0, ring;
	u8 levels;
	u32 depth;
	int ret;

	if (udata) {
		ret = orca_udata_queue_req(dev, udata, sizeof(resp), &ubuf);
		if (ret)
			return ret;
	}
	/*
	 * Completion timestamps: 64-byte entries.  Only a user CQ can have
	 * them: ib_wc has no field for a kernel consumer to read them in.
	 */
	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
		return -EOPNOTSUPP;
	if (attr->flags && (!udata || !(le32_to_cpu(dev->hw_attr.cap_flags) &
					 ORCA_HW_DEV_CAP_TIMESTAMP)))
		return -EOPNOTSUPP;
	if (!dev->num_ceqs)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= dev->num_ceqs)
		return -EINVAL;
	depth = orca_cq_depth(dev, attr->cqe);
	if (!depth || attr->cqe > INT_MAX)
		return -EINVAL;

	mutex_init(&cq->resize_lock);
	spin_lock_init(&cq->lock);
	cq->user = !!udata;
	cq->log2_depth = ilog2(depth);
	cq->cqe_size = attr->flags ? ORCA_CQE64_SIZE : ORCA_CQE_SIZE;
	cq->eqn = dev->ceqs[attr->comp_vector].eqn;
	ring_bytes = orca_cq_ring_bytes(depth, cq->cqe_size);
	cq->qmem = orca_qmem_create(dev, ring_bytes, cq->user, &ubuf, &db_off);
	if (IS_ERR(cq->qmem))
		return PTR_ERR(cq->qmem);
	cq->db = orca_qmem_ptr(cq->qmem, db_off);
	cq->cons = 0;
	cq->arm_seq = 0;

	ret = orca_qmem_ring(cq->qmem, 0, 0, (size_t)depth * cq->cqe_size,
			     &ring, &levels);
	if (ret) {
		orca_qmem_put(cq->qmem);
		return ret;
	}
	ret = orca_cmd_create_cq(dev, ring, levels,
				 orca_qmem_dma(cq->qmem, db_off),
				 cq->log2_depth,
				 cq->cqe_size == ORCA_CQE64_SIZE, cq->eqn,
				 &cq->cqn);
	orca_qmem_lists_done(dev, cq->qmem, ret);
	if (ret) {
		/* It may still run, or have made what we cannot name. */
		orca_qmem_destroyed(dev, cq->qmem,
				    !orca_admin_effect_unknown(dev, ret));
		return ret;
	}

	ret = xa_insert_irq(&dev->cq_xa, cq->cqn, cq, GFP_KERNEL);
	if (ret)
		goto err_destroy;

	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct orca_ucontext,
						 ibucontext);
		ret = orca_qmem_expose(&uctx->ibucontext, cq->qmem, &cq->mentry,
				       &key);
		if (ret)
			goto err_erase;
		resp.cqn = cq->cqn;
		resp.cqe_count = depth;
		resp.cqe_size = cq->cqe_size;
		resp.mmap_key = key;
		resp.mmap_len = cq->qmem->size;
		resp.db_offset = db_off;
		ret = orca_udata_put_resp(udata, &resp, sizeof(resp));
		if (ret)
			goto err_unexpose;
	}
	ibcq->cqe = depth;
	return 0;

err_unexpose:
	orca_qmem_unexpose(cq->mentry);
err_erase:
	xa_erase_irq(&dev->cq_xa, cq->cqn);
err_destroy:
	if (orca_cmd_destroy_cq(dev, cq->cqn)) {
		orca_qmem_destroyed(dev, cq->qmem, false);
		return ret;
	}
	orca_qmem_put(cq->qmem);
	return ret;
}

int orca_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_resize_cq_resp resp = {};
	struct orca_mmap_entry *mentry = NULL;
	struct orca_ucontext *uctx;
	struct orca_ubuf ubuf = {};
	struct orca_qmem *qmem;
	size_t ring_bytes, db_off;
	u64 key = 0, ring;
	u8 levels;
	u32 depth;
	int ret;

	if (udata) {
		ret = orca_udata_queue_req(dev, udata, sizeof(resp), &ubuf);
		if (ret)
			return ret;
	}
	depth = orca_cq_depth(dev, cqe);
	if (!depth || cqe < 1)
		return -EINVAL;

	/* The device keeps the CQ's entry size. */
	ring_bytes = orca_cq_ring_bytes(depth, cq->cqe_size);
	qmem = orca_qmem_create(dev, ring_bytes, cq->user, &ubuf, &db_off);
	if (IS_ERR(qmem))
		return PTR_ERR(qmem);
	ret = orca_qmem_ring(qmem, 0, 0, (size_t)depth * cq->cqe_size, &ring,
			     &levels);
	if (ret)
		goto err_free;
	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct orca_ucontext,
						 ibucontext);
		ret = orca_qmem_expose(&uctx->ibucontext, qmem, &mentry, &key);
		if (ret)
			goto err_free;
		/*
		 * The response goes out before the device moves: once it has,
		 * a response that cannot be delivered would leave the process
		 * polling a ring the device no longer writes.  If the command
		 * then fails, the caller sees the error and ignores it.
		 */
		resp.cqe_count = depth;
		resp.mmap_key = key;
		resp.mmap_len = qmem->size;
		resp.db_offset = db_off;
		ret = orca_udata_put_resp(udata, &resp, sizeof(resp));
		if (ret)
			goto err_unexpose;
	}

	mutex_lock(&cq->resize_lock);
	/*
	 * A kernel CQ is not polled while the device moves its entries:
	 * the record's cons must not change under the move.
	 */
	spin_lock_irq(&cq->lock);
	cq->resizing = true;
	spin_unlock_irq(&cq->lock);
	/* The new record starts where the old one is. */
	memcpy(orca_qmem_ptr(qmem, db_off), cq->db, ORCA_DB_RECORD_SIZE);
	ret = orca_cmd_resize_cq(dev, cq->cqn, ring, levels,
				 orca_qmem_dma(qmem, db_off), ilog2(depth));
	orca_qmem_lists_done(dev, qmem, ret);
	if (ret) {
		spin_lock_irq(&cq->lock);
		cq->resizing = false;
		orca_cq_rearm_locked(dev, cq);
		spin_unlock_irq(&cq->lock);
		mutex_unlock(&cq->resize_lock);
		goto err_unexpose;
	}
	/* The device confirmed it moved to the new memory. */
	orca_qmem_destroyed(dev, cq->qmem, true);
	if (cq->mentry)
		orca_qmem_unexpose(cq->mentry);
	spin_lock_irq(&cq->lock);
	cq->qmem = qmem;
	cq->db = orca_qmem_ptr(qmem, db_off);
	cq->log2_depth = ilog2(depth);
	cq->resizing = false;
	orca_cq_rearm_locked(dev, cq);
	spin_unlock_irq(&cq->lock);
	cq->mentry = mentry;
	ibcq->cqe = depth;
	mutex_unlock(&cq->resize_lock);
	return 0;

err_unexpose:
	if (mentry)
		orca_qmem_unexpose(mentry);
err_free:
	/* A device that did not answer may have started using it. */
	orca_qmem_destroyed(dev, qmem,
			    !orca_admin_effect_unknown(dev, ret));
	return ret;
}

int orca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);

	/* BUSY: ib_core counts its users, and the device agrees. */
	return orca_destroy_queue(dev, &dev->cq_xa, cq->cqn, cq,
				  orca_cmd_destroy_cq, cq->qmem, cq->mentry,
				  "CQ", udata, &cq->refused);
}

/* The entry of a kernel CQ at free-running position @idx. */
static struct orca_cqe *orca_cq_cqe(struct orca_cq *cq, u32 idx)
{
	return orca_qmem_ptr(cq->qmem,
			     (size_t)orca_ring_slot(idx, cq->log2_depth) *
			     cq->cqe_size);
}

static bool orca_cqe_valid(struct orca_cq *cq, u32 idx, u32 *status_owner)
{
	struct orca_cqe *cqe = orca_cq_cqe(cq, idx);
	u32 so = le32_to_cpu(READ_ONCE(cqe->status_owner));

	if (!!(so & ORCA_CQE_OWNER) != orca_ring_phase(idx, cq->log2_depth))
		return false;
	*status_owner = so;
	return true;
}

/*
 * A kernel CQ's consumer state, for `rdma resource show cq -dd`: its
 * consumer index, the last arm word written, whether that arm's event
 * came, and whether a completion waits at cons.  A CQ armed, not fired,
 * with a completion waiting has lost its event.
 */
static int orca_fill_res_kcq(struct sk_buff *msg, struct orca_cq *cq)
{
	unsigned long flags;
	u32 cons, arm, so;
	bool fired, ready;

	spin_lock_irqsave(&cq->lock, flags);
	cons = cq->cons;
	arm = cq->arm_word;
	fired = cq->arm_fired;
	ready = !cq->resizing && orca_cqe_valid(cq, cq->cons, &so);
	spin_unlock_irqrestore(&cq->lock, flags);

	if (rdma_nl_put_driver_u32(msg, "cons", cons) ||
	    rdma_nl_put_driver_u32_hex(msg, "arm", arm) ||
	    rdma_nl_put_driver_u32(msg, "arm_fired", fired) ||
	    rdma_nl_put_driver_u32(msg, "cqe_ready", ready))
		return -EMSGSIZE;
	return 0;
}

int orca_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct orca_cq *cq = to_ocq(ibcq);
	struct nlattr *nest;

	nest = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "cqn", cq->cqn) ||
	    rdma_nl_put_driver_u32(msg, "depth", 1U << cq->log2_depth) ||
	    rdma_nl_put_driver_u32(msg, "eqn", cq->eqn))
		goto err;
	if (!cq->user && orca_fill_res_kcq(msg, cq))
		goto err;
	nla_nest_end(msg, nest);
	return 0;

err:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

static enum ib_wc_status orca_wc_status(u32 status)
{
	switch (status) {
	case ORCA_CQE_ST_SUCCESS:
		return IB_WC_SUCCESS;
	case ORCA_CQE_ST_LOC_LEN_ERR:
		return IB_WC_LOC_LEN_ERR;
	case ORCA_CQE_ST_LOC_QP_OP_ERR:
		return IB_WC_LOC_QP_OP_ERR;
	case ORCA_CQE_ST_LOC_PROT_ERR:
		return IB_WC_LOC_PROT_ERR;
	case ORCA_CQE_ST_WR_FLUSH_ERR:
		return IB_WC_WR_FLUSH_ERR;
	case ORCA_CQE_ST_MW_BIND_ERR:
		return IB_WC_MW_BIND_ERR;
	case ORCA_CQE_ST_BAD_RESP_ERR:
		return IB_WC_BAD_RESP_ERR;
	case ORCA_CQE_ST_LOC_ACCESS_ERR:
		return IB_WC_LOC_ACCESS_ERR;
	case ORCA_CQE_ST_REM_INV_REQ_ERR:
		return IB_WC_REM_INV_REQ_ERR;
	case ORCA_CQE_ST_REM_ACCESS_ERR:
		return IB_WC_REM_ACCESS_ERR;
	case ORCA_CQE_ST_REM_OP_ERR:
		return IB_WC_REM_OP_ERR;
	case ORCA_CQE_ST_RETRY_EXC_ERR:
		return IB_WC_RETRY_EXC_ERR;
	case ORCA_CQE_ST_RNR_RETRY_EXC_ERR:
		return IB_WC_RNR_RETRY_EXC_ERR;
	case ORCA_CQE_ST_FATAL_ERR:
		return IB_WC_FATAL_ERR;
	default:
		return IB_WC_GENERAL_ERR;
	}
}

static enum ib_wc_opcode orca_wc_opcode(u32 op)
{
	switch (op) {
	case ORCA_CQE_OP_SEND:
		return IB_WC_SEND;
	case ORCA_CQE_OP_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case ORCA_CQE_OP_RDMA_READ:
		return IB_WC_RDMA_READ;
	case ORCA_CQE_OP_ATOMIC_CMP_SWP:
		return IB_WC_COMP_SWAP;
	case ORCA_CQE_OP_ATOMIC_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	case ORCA_CQE_OP_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case ORCA_CQE_OP_REG_MR:
		return IB_WC_REG_MR;
	case ORCA_CQE_OP_BIND_MW:
		return IB_WC_BIND_MW;
	case ORCA_CQE_OP_RECV_RDMA_IMM:
		return IB_WC_RECV_RDMA_WITH_IMM;
	default:
		return IB_WC_RECV;
	}
}

/*
 * Translate one CQE.  The QP is looked up by number: a CQE of a QP that
 * has been destroyed meanwhile names no QP, and is dropped (false).  Only
 * the address of the ib_qp is formed here, nothing is read through it.
 */
static bool orca_cqe_to_wc(struct orca_dev *dev, const struct orca_cqe *cqe,
			   u32 status_owner, struct ib_wc *wc)
{
	u32 info = le32_to_cpu(cqe->info);
	u32 flags = (info & ORCA_CQE_INFO_FLAGS_MASK) >>
		    ORCA_CQE_INFO_FLAGS_SHIFT;
	u32 imm_inv = le32_to_cpu(cqe->imm_inv);
	struct orca_qp *qp;

	qp = xa_load(&dev->qp_xa, le32_to_cpu(cqe->qpn) & ORCA_QP_DB_QPN);
	if (!qp)
		return false;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = le64_to_cpu(cqe->wr_id);
	wc->status = orca_wc_status(status_owner & ORCA_CQE_STATUS_MASK);
	wc->opcode = orca_wc_opcode(info & ORCA_CQE_INFO_OPCODE_MASK);
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	wc->qp = &qp->ibqp;
	wc->src_qp = le32_to_cpu(cqe->src_qp) & ORCA_QP_DB_QPN;
	wc->port_num = ORCA_PORT_NUM;
	if (flags & ORCA_CQE_FLAG_IMM) {
		wc->ex.imm_data = cpu_to_be32(imm_inv);
		wc->wc_flags |= IB_WC_WITH_IMM;
	} else if (flags & ORCA_CQE_FLAG_INV) {
		wc->ex.invalidate_rkey = imm_inv;
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	if (flags & ORCA_CQE_FLAG_GRH) {
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = (flags & ORCA_CQE_FLAG_IPV4) ?
				       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	}
	return true;
}

/*
 * Kernel CQs only: a user CQ is polled by its owner, in its own mapping
 * (the uverbs POLL_CQ command on one is refused).
 */
int orca_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	unsigned long flags;
	u32 start, so;
	int n = 0;

	if (cq->user)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->resizing)
		goto out;
	start = cq->cons;
	while (n < num_entries && orca_cqe_valid(cq, cq->cons, &so)) {
		struct orca_cqe *cqe;

		cqe = orca_cq_cqe(cq, cq->cons);
		/* Read the entry only after its owner bit. */
		dma_rmb();
		if (orca_cqe_to_wc(dev, cqe, so, &wc[n]))
			n++;
		cq->cons++;
	}
	if (cq->cons != start) {
		/* The entries are read before the device may reuse them. */
		dma_mb();
		WRITE_ONCE(cq->db->cons, cpu_to_le32(cq->cons));
	}
out:
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/*
 * Arm the CQ for one completion event.  A user CQ's arm word was written
 * by its owner (liborca), who found a completion already waiting: only
 * the doorbell is left to ring.  A kernel CQ's arm follows the same
 * protocol here: cons, then the arm word with a new sequence, a full
 * barrier, then a look at the entry at cons.
 */
int orca_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	unsigned long irqflags;
	u32 arm, so;
	int ret = 0;

	if (cq->user) {
		orca_cq_kick(dev, cq);
		return 0;
	}

	spin_lock_irqsave(&cq->lock, irqflags);
	/*
	 * The device ignores an arm whose SEQ is the one it fired last.  A
	 * new SEQ is taken only once the previous arm's event came, so no
	 * number of arms without an event brings SEQ back to that value;
	 * until then the pending arm is rewritten with its SEQ (still one
	 * event).  An event raised but not yet handled is on its way to the
	 * completion handler, and covers what follows.
	 */
	if (!cq->arm_pending || cq->arm_fired)
		cq->arm_seq = (cq->arm_seq + 1) & ORCA_CQ_ARM_SEQ_MASK;
	cq->arm_pending = true;
	cq->arm_fired = false;
	arm = cq->arm_seq | ORCA_CQ_ARM_REQUEST;
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED)
		arm |= ORCA_CQ_ARM_SOLICITED;
	cq->arm_word = arm;
	if (cq->resizing) {
		/* orca_resize_cq() writes it into the new record. */
		spin_unlock_irqrestore(&cq->lock, irqflags);
		return (flags & IB_CQ_REPORT_MISSED_EVENTS) ? 1 : 0;
	}
	WRITE_ONCE(cq->db->cons, cpu_to_le32(cq->cons));
	/* The device reads the arm word, then cons: cons must land first. */
	dma_wmb();
	WRITE_ONCE(cq->db->arm, cpu_to_le32(arm));
	/* Pairs with the device's barrier between a CQE and reading arm. */
	mb();
	if (orca_cqe_valid(cq, cq->cons, &so)) {
		if (flags & IB_CQ_REPORT_MISSED_EVENTS)
			ret = 1;
		else
			orca_cq_kick(dev, cq);
	}
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
