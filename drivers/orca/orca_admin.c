// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca HCA driver: the admin queue.
 *
 * Every command the driver sends to the device goes through
 * orca_admin_exec().  A command takes a context slot (at most one per ring
 * entry, so the rings can never overflow), is written into the command
 * ring, and the producer index is published through the AQ_SQ_DB
 * register.  The device posts one completion per command into the
 * completion ring, tagged with the command id and the owner (phase) bit,
 * and raises the admin interrupt.  A command that does not complete
 * within admin_timeout_ms marks the queue dead: from then on every
 * command fails at once with -EIO instead of waiting on a device that no
 * longer answers.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>

#include "orca.h"
#include "orca_ring.h"

/* MODIFY_QP carries its input mailbox where struct orca_cmd_mbox_in does. */
static_assert(offsetof(struct orca_cmd_modify_qp, in_addr) ==
	      offsetof(struct orca_cmd_mbox_in, in_addr));
static_assert(offsetof(struct orca_cmd_modify_qp, in_len) ==
	      offsetof(struct orca_cmd_mbox_in, in_len));

static unsigned int admin_timeout_ms = 10000;
module_param(admin_timeout_ms, uint, 0644);
MODULE_PARM_DESC(admin_timeout_ms,
		 "Admin command timeout in ms; on expiry the admin queue is declared dead (default 10000)");

static u32 orca_aq_depth(struct orca_admin *aq)
{
	return orca_ring_depth(aq->log2_depth);
}

const char *orca_aq_opcode_name(u8 opcode)
{
	switch (opcode) {
	case ORCA_CMD_QUERY_DEVICE:
		return "QUERY_DEVICE";
	case ORCA_CMD_QUERY_PORT:
		return "QUERY_PORT";
	case ORCA_CMD_ALLOC_PD:
		return "ALLOC_PD";
	case ORCA_CMD_DEALLOC_PD:
		return "DEALLOC_PD";
	case ORCA_CMD_QUERY_STATS:
		return "QUERY_STATS";
	case ORCA_CMD_CREATE_EQ:
		return "CREATE_EQ";
	case ORCA_CMD_DESTROY_EQ:
		return "DESTROY_EQ";
	case ORCA_CMD_REG_MR:
		return "REG_MR";
	case ORCA_CMD_DEREG_MR:
		return "DEREG_MR";
	case ORCA_CMD_ALLOC_MW:
		return "ALLOC_MW";
	case ORCA_CMD_DEALLOC_MW:
		return "DEALLOC_MW";
	case ORCA_CMD_ODP_UPDATE:
		return "ODP_UPDATE";
	case ORCA_CMD_CREATE_CQ:
		return "CREATE_CQ";
	case ORCA_CMD_RESIZE_CQ:
		return "RESIZE_CQ";
	case ORCA_CMD_DESTROY_CQ:
		return "DESTROY_CQ";
	case ORCA_CMD_CREATE_QP:
		return "CREATE_QP";
	case ORCA_CMD_MODIFY_QP:
		return "MODIFY_QP";
	case ORCA_CMD_QUERY_QP:
		return "QUERY_QP";
	case ORCA_CMD_DESTROY_QP:
		return "DESTROY_QP";
	case ORCA_CMD_CREATE_SRQ:
		return "CREATE_SRQ";
	case ORCA_CMD_MODIFY_SRQ:
		return "MODIFY_SRQ";
	case ORCA_CMD_QUERY_SRQ:
		return "QUERY_SRQ";
	case ORCA_CMD_DESTROY_SRQ:
		return "DESTROY_SRQ";
	case ORCA_CMD_ADD_GID:
		return "ADD_GID";
	case ORCA_CMD_DEL_GID:
		return "DEL_GID";
	case ORCA_CMD_ATTACH_MCAST:
		return "ATTACH_MCAST";
	case ORCA_CMD_DETACH_MCAST:
		return "DETACH_MCAST";
	default:
		return "UNKNOWN";
	}
}

int orca_aq_status_to_errno(u8 status)
{
	switch (status) {
	case ORCA_AQ_STS_OK:
		return 0;
	case ORCA_AQ_STS_BAD_OPCODE:
	case ORCA_AQ_STS_UNSUPPORTED:
		return -EOPNOTSUPP;
	case ORCA_AQ_STS_BAD_PARAM:
	case ORCA_AQ_STS_BAD_HANDLE:
	case ORCA_AQ_STS_BAD_STATE:
		return -EINVAL;
	case ORCA_AQ_STS_NO_RESOURCES:
		return -ENOMEM;
	case ORCA_AQ_STS_BUSY:
		return -EBUSY;
	case ORCA_AQ_STS_DMA_ERROR:
	case ORCA_AQ_STS_INTERNAL:
	default:
		return -EIO;
	}
}

/**
 * orca_admin_effect_unknown - may a failed command have an effect?
 * @dev: the device
 * @ret: what the command's orca_cmd_*() call returned
 *
 * A command the device answered with a failure had no effect: what it
 * named may be freed, and the object it was to destroy still exists.
 * Two failures are different: a command that got no answer (the queue
 * is then dead; every failure on a dead queue counts as one) may still
 * run later, and one answered OK with a result the driver cannot use
 * (-EPROTO) made an object the driver cannot name.
 */
bool orca_admin_effect_unknown(struct orca_dev *dev, int ret)
{
	return ret == -EPROTO || (ret == -EIO && READ_ONCE(dev->aq.dead));
}

/**
 * orca_destroy_refused - pass a destroy's failure on to ib_core?
 * @dev: the device
 * @ret: what the destroy command returned (not 0)
 * @user: the object is a user's (ib_core may retry its destroy)
 * @refused: the object's flag: the device refused its destroy before
 *
 * A user object's destroy that the device refuses (it answered, so the
 * object is whole) fails once with the device's errno, and ib_core
 * retries it, at the latest when the process closes the device.  A
 * second refusal, a kernel object's (whose destroy cannot fail) and a
 * destroy without a known effect succeed toward ib_core: a device that
 * keeps refusing must not make ib_core give up on an object it still
 * tracks.  The caller then keeps what the device may touch until it is
 * disabled.
 */
bool orca_destroy_refused(struct orca_dev *dev, int ret, bool user,
			  bool *refused)
{
	if (!user || *refused || orca_admin_effect_unknown(dev, ret))
		return false;
	*refused = true;
	return true;
}

/**
 * orca_destroy_retried - a destroy that ib_core cannot retry
 * @dev: the device
 * @destroy: the command (DEALLOC_XRCD, DESTROY_QP, DEALLOC_DM)
 * @handle: the object
 *
 * A device that refuses it (it answered, so the object is whole) is asked
 * once more at once, as a user object's refused destroy would be retried
 * (orca_destroy_refused()).  Return: what the last attempt returned.
 */
int orca_destroy_retried(struct orca_dev *dev,
			 int (*destroy)(struct orca_dev *, u32), u32 handle)
{
	int ret = destroy(dev, handle);

	if (ret && !orca_admin_effect_unknown(dev, ret))
		ret = destroy(dev, handle);
	return ret;
}

int orca_admin_init(struct orca_dev *dev)
{
	struct orca_admin *aq = &dev->aq;
	u32 depth;
	u32 i;

	aq->log2_depth = ORCA_AQ_LOG2_DEPTH;
	depth = orca_aq_depth(aq);

	aq->ctx = kcalloc(depth, sizeof(*aq->ctx), GFP_KERNEL);
	if (!aq->ctx)
		return -ENOMEM;
	for (i = 0; i < depth; i++)
		init_completion(&aq->ctx[i].done);

	aq->sq = dma_alloc_coherent(dev->dmadev, depth * ORCA_AQ_CMD_SIZE,
				    &aq->sq_dma, GFP_KERNEL);
	if (!aq->sq)
		goto err_free_ctx;

	aq->cq = dma_alloc_coherent(dev->dmadev, depth * ORCA_AQ_CQE_SIZE,
				    &aq->cq_dma, GFP_KERNEL);
	if (!aq->cq)
		goto err_free_sq;

	aq->mbox = dma_alloc_coherent(dev->dmadev, depth * ORCA_AQ_MBOX_SIZE,
				      &aq->mbox_dma, GFP_KERNEL);
	if (!aq->mbox)
		goto err_free_cq;

	sema_init(&aq->slots, depth);
	spin_lock_init(&aq->lock);
	aq->sq_prod = 0;
	aq->cq_cons = 0;
	aq->dead = false;
	return 0;

err_free_cq:
	dma_free_coherent(dev->dmadev, depth * ORCA_AQ_CQE_SIZE, aq->cq,
			  aq->cq_dma);
err_free_sq:
	dma_free_coherent(dev->dmadev, depth * ORCA_AQ_CMD_SIZE, aq->sq,
			  aq->sq_dma);
err_free_ctx:
	kfree(aq->ctx);
	return -ENOMEM;
}

void orca_admin_destroy(struct orca_dev *dev)
{
	struct orca_admin *aq = &dev->aq;
	u32 depth = orca_aq_depth(aq);

	dma_free_coherent(dev->dmadev, depth * ORCA_AQ_MBOX_SIZE, aq->mbox,
			  aq->mbox_dma);
	dma_free_coherent(dev->dmadev, depth * ORCA_AQ_CQE_SIZE, aq->cq,
			  aq->cq_dma);
	dma_free_coherent(dev->dmadev, depth * ORCA_AQ_CMD_SIZE, aq->sq,
			  aq->sq_dma);
	kfree(aq->ctx);
}

/* Tell the device where the rings are.  The device must be disabled. */
void orca_admin_program(struct orca_dev *dev)
{
	struct orca_admin *aq = &dev->aq;

	orca_reg_write(dev, ORCA_REG_AQ_SQ_BASE_LO, lower_32_bits(aq->sq_dma));
	orca_reg_write(dev, ORCA_REG_AQ_SQ_BASE_HI, upper_32_bits(aq->sq_dma));
	orca_reg_write(dev, ORCA_REG_AQ_CQ_BASE_LO, lower_32_bits(aq->cq_dma));
	orca_reg_write(dev, ORCA_REG_AQ_CQ_BASE_HI, upper_32_bits(aq->cq_dma));
	orca_reg_write(dev, ORCA_REG_AQ_CFG,
		       FIELD_PREP(ORCA_AQ_CFG_LOG2_DEPTH, aq->log2_depth) |
		       FIELD_PREP(ORCA_AQ_CFG_VECTOR, 0) |
		       ORCA_AQ_CFG_IRQ_EN);
}

/*
 * Declare the queue dead, fail every command still waiting, and make the
 * device fatal for its users (orca_fatal_work()).  Called with aq->lock
 * held.
 */
static void orca_admin_mark_dead(struct orca_dev *dev)
{
	struct orca_admin *aq = &dev->aq;
	u32 i;

	if (aq->dead)
		return;
	aq->dead = true;
	schedule_work(&dev->fatal_work);
	for (i = 0; i < orca_aq_depth(aq); i++) {
		if (aq->ctx[i].busy) {
			aq->ctx[i].status = ORCA_AQ_STS_INTERNAL;
			complete(&aq->ctx[i].done);
		}
	}
}

/* Called from the interrupt handler: consume every valid completion. */
void orca_admin_process_completions(struct orca_dev *dev)
{
	struct orca_admin *aq = &dev->aq;
	unsigned long flags;

	spin_lock_irqsave(&aq->lock, flags);
	for (;;) {
		struct orca_aq_cqe *cqe;
		struct orca_aq_ctx *ctx;
		u32 info0, info1;
		u16 cmd_id;

		cqe = &aq->cq[orca_ring_slot(aq->cq_cons, aq->log2_depth)];
		info1 = le32_to_cpu(READ_ONCE(cqe->info1));
		if (FIELD_GET(ORCA_AQ_CQE_PHASE, info1) !=
		    orca_ring_phase(aq->cq_cons, aq->log2_depth))
			break;
		/* Read the rest of the entry only after its owner bit. */
		dma_rmb();
		info0 = le32_to_cpu(cqe->info0);
		cmd_id = FIELD_GET(ORCA_AQ_CQE_CMD_ID, info0);
		aq->cq_cons++;

		ctx = &aq->ctx[orca_ring_slot(cmd_id, aq->log2_depth)];
		if (!ctx->busy || ctx->cmd_id != cmd_id) {
			dev_err_ratelimited(orca_device(dev),
					    "admin completion for unknown command id 0x%04x\n",
					    cmd_id);
			continue;
		}
		ctx->status = FIELD_GET(ORCA_AQ_CQE_STATUS, info1);
		ctx->syndrome = FIELD_GET(ORCA_AQ_CQE_SYNDROME, info1);
		ctx->result = le64_to_cpu(cqe->result);
		complete(&ctx->done);
	}
	spin_unlock_irqrestore(&aq->lock, flags);
}

/**
 * orca_admin_exec - execute one admin command and wait for its completion
 * @dev: the device
 * @cmd: the command; the header's opcode is set, the rest is filled here
 * @in: input mailbox contents, or NULL; only for commands whose body is
 *	struct orca_cmd_mbox_in or starts like it (in_addr, in_len)
 * @in_len: size of @in, at most ORCA_AQ_MBOX_HALF
 * @out: buffer for the output mailbox, or NULL
 * @out_len: size of @out, at most ORCA_AQ_MBOX_HALF
 * @result: where to store the completion's result field, or NULL
 *
 * The slot's mailbox holds the input at ORCA_AQ_MBOX_IN_OFF and the
 * output at ORCA_AQ_MBOX_OUT_OFF.  Sleeps.  Returns 0, a negative errno
 * translated from the device status, or -EIO once the queue is dead.
 */
int orca_admin_exec(struct orca_dev *dev, union orca_aq_cmd *cmd,
		    const void *in, size_t in_len, void *out, size_t out_len,
		    u64 *result)
{
	struct orca_admin *aq = &dev->aq;
	u8 opcode = FIELD_GET(ORCA_AQ_HDR_OPCODE, le32_to_cpu(cmd->hdr.op));
	struct orca_aq_ctx *ctx = NULL;
	unsigned long flags;
	unsigned long left;
	u32 slot, i;
	int ret;

	if (WARN_ON(out_len > ORCA_AQ_MBOX_HALF || in_len > ORCA_AQ_MBOX_HALF))
		return -EINVAL;

	if (READ_ONCE(aq->dead))
		return -EIO;

	down(&aq->slots);

	spin_lock_irqsave(&aq->lock, flags);
	if (aq->dead) {
		spin_unlock_irqrestore(&aq->lock, flags);
		up(&aq->slots);
		return -EIO;
	}
	for (i = 0; i < orca_aq_depth(aq); i++) {
		if (!aq->ctx[i].busy) {
			ctx = &aq->ctx[i];
			break;
		}
	}
	/* The semaphore guarantees a free context. */
	if (WARN_ON(!ctx)) {
		spin_unlock_irqrestore(&aq->lock, flags);
		up(&aq->slots);
		return -EIO;
	}
	slot = i;
	ctx->busy = true;
	ctx->status = ORCA_AQ_STS_INTERNAL;
	ctx->result = 0;
	reinit_completion(&ctx->done);
	/* Low bits select the context, high bits tell reuses apart. */
	aq->next_gen++;
	ctx->cmd_id = (aq->next_gen << aq->log2_depth) | slot;

	cmd->hdr.op = cpu_to_le32(FIELD_PREP(ORCA_AQ_HDR_OPCODE, opcode) |
				  FIELD_PREP(ORCA_AQ_HDR_CMD_ID, ctx->cmd_id));
	if (in) {
		memcpy(aq->mbox + slot * ORCA_AQ_MBOX_SIZE + ORCA_AQ_MBOX_IN_OFF,
		       in, in_len);
		cmd->mbox_in.in_addr = cpu_to_le64(aq->mbox_dma +
						   slot * ORCA_AQ_MBOX_SIZE +
						   ORCA_AQ_MBOX_IN_OFF);
		cmd->mbox_in.in_len = cpu_to_le32(in_len);
	}
	if (out) {
		cmd->hdr.out_addr = cpu_to_le64(aq->mbox_dma +
						slot * ORCA_AQ_MBOX_SIZE +
						ORCA_AQ_MBOX_OUT_OFF);
		cmd->hdr.out_len = cpu_to_le32(out_len);
	} else {
		cmd->hdr.out_addr = 0;
		cmd->hdr.out_len = 0;
	}

	memcpy(&aq->sq[orca_ring_slot(aq->sq_prod, aq->log2_depth)], cmd,
	       ORCA_AQ_CMD_SIZE);
	aq->sq_prod++;
	/* writel() orders the ring write before the doorbell. */
	orca_reg_write(dev, ORCA_REG_AQ_SQ_DB, aq->sq_prod);
	spin_unlock_irqrestore(&aq->lock, flags);

	left = wait_for_completion_timeout(&ctx->done,
					   msecs_to_jiffies(admin_timeout_ms));

	spin_lock_irqsave(&aq->lock, flags);
	if (!left && !aq->dead) {
		dev_err(orca_device(dev),
			"admin command %s (id 0x%04x) timed out after %u ms; admin queue is now dead\n",
			orca_aq_opcode_name(opcode), ctx->cmd_id,
			admin_timeout_ms);
		orca_admin_mark_dead(dev);
	}
	if (aq->dead) {
		/*
		 * The device may still write this slot's mailbox: the
		 * context stays busy forever.  The semaphore slot is given
		 * back so that callers blocked in down() wake up, see the
		 * dead queue and fail too.
		 */
		spin_unlock_irqrestore(&aq->lock, flags);
		up(&aq->slots);
		return -EIO;
	}

	ret = orca_aq_status_to_errno(ctx->status);
	if (ret)
		dev_dbg(orca_device(dev),
			"admin command %s failed: status 0x%x syndrome 0x%x\n",
			orca_aq_opcode_name(opcode), ctx->status,
			ctx->syndrome);
	if (!ret && result)
		*result = ctx->result;
	if (!ret && out)
		memcpy(out, aq->mbox + slot * ORCA_AQ_MBOX_SIZE +
		       ORCA_AQ_MBOX_OUT_OFF, out_len);
	ctx->busy = false;
	spin_unlock_irqrestore(&aq->lock, flags);
	up(&aq->slots);
	return ret;
}
