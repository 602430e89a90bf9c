// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: completion event queues and completion queues.
 *
 * A CQ is a ring of 32-byte entries the device will write (issue #4's data
 * path) and a doorbell record the consumer updates; the device keeps the
 * ring geometry, the record's address and its producer index.  Each CQ
 * reports its events on one completion EQ.  Since interface 1.7 the ring
 * may be paged (orca_soft_pbl.c); an EQ's ring is always contiguous.
 */

#include <linux/bitfield.h>
#include <linux/slab.h>
#include <rdma/orca-abi.h>

#include "orca_ring.h"
#include "orca_soft.h"

#define ORCA_EQ_CFG_ALL		(ORCA_EQ_CFG_LOG2_DEPTH | ORCA_EQ_CFG_VECTOR)
#define ORCA_SOFT_CQ_MAX_LOG2	16	/* ORCA_SOFT_MAX_CQE entries */

static bool orca_soft_ring_addr_ok(u64 addr)
{
	return addr && IS_ALIGNED(addr, ORCA_RING_ALIGN);
}

static bool orca_soft_db_addr_ok(u64 addr)
{
	return addr && IS_ALIGNED(addr, ORCA_DB_RECORD_SIZE);
}

/* ---------------------------------------------------------------- EQs */

u8 orca_soft_create_eq(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd,
		       struct orca_soft_cmd_out *out)
{
	const struct orca_cmd_create_eq *c = &cmd->create_eq;
	u32 cfg = le32_to_cpu(c->cfg);
	struct orca_soft_eq *eq;
	u8 log2, vector;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	log2 = FIELD_GET(ORCA_EQ_CFG_LOG2_DEPTH, cfg);
	vector = FIELD_GET(ORCA_EQ_CFG_VECTOR, cfg);
	if ((cfg & ~ORCA_EQ_CFG_ALL) || !log2 ||
	    log2 > ORCA_SOFT_EQ_MAX_LOG2 || vector >= ORCA_SOFT_NUM_VECTORS ||
	    !orca_soft_ring_addr_ok(le64_to_cpu(c->ring_addr)))
		return ORCA_AQ_STS_BAD_PARAM;

	eq = kzalloc(sizeof(*eq), ORCA_SOFT_GFP);
	if (!eq)
		return ORCA_AQ_STS_NO_RESOURCES;
	eq->ring_addr = le64_to_cpu(c->ring_addr);
	eq->log2_depth = log2;
	eq->vector = vector;
	if (xa_alloc(&sdev->eqs, &eq->eqn, eq, XA_LIMIT(1, ORCA_SOFT_MAX_EQ),
		     ORCA_SOFT_GFP)) {
		kfree(eq);
		return ORCA_AQ_STS_NO_RESOURCES;
	}
	/* Disarmed until the driver arms it through ORCA_REG_EQ_DB. */
	orca_soft_eq_publish(sdev, eq, true);
	out->result = eq->eqn;
	return ORCA_AQ_STS_OK;
}

u8 orca_soft_destroy_eq(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_handle *c = &cmd->handle;
	struct orca_soft_eq *eq;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	eq = xa_load(&sdev->eqs, le32_to_cpu(c->handle));
	if (!eq)
		return ORCA_AQ_STS_BAD_HANDLE;
	if (eq->users)
		return ORCA_AQ_STS_BUSY;
	orca_soft_eq_publish(sdev, eq, false);
	xa_erase(&sdev->eqs, eq->eqn);
	kfree(eq);
	return ORCA_AQ_STS_OK;
}

/* ---------------------------------------------------------------- CQs */

struct orca_soft_cq *orca_soft_cq_find(struct orca_soft_dev *sdev, u32 cqn)
{
	return xa_load(&sdev->cqs, cqn);
}

/*
 * @extra: the bits besides LOG2_DEPTH and PBL_LEVELS the command may
 * carry.  PBL_LEVELS is checked with the ring's address.
 */
static bool orca_soft_cq_cfg_ok(u32 cfg, u32 extra)
{
	u8 log2 = FIELD_GET(ORCA_CQ_CFG_LOG2_DEPTH, cfg);

	return !(cfg & ~(ORCA_CQ_CFG_LOG2_DEPTH | ORCA_CQ_CFG_PBL_LEVELS |
			 extra)) && log2 &&
	       log2 <= ORCA_SOFT_CQ_MAX_LOG2;
}

u8 orca_soft_create_cq(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd,
		       struct orca_soft_cmd_out *out)
{
	const struct orca_cmd_create_cq *c = &cmd->create_cq;
	u32 cfg = le32_to_cpu(c->cfg);
	u8 log2 = FIELD_GET(ORCA_CQ_CFG_LOG2_DEPTH, cfg);
	u8 size = (cfg & ORCA_CQ_CFG_CQE64) ? ORCA_CQE64_SIZE : ORCA_CQE_SIZE;
	struct orca_soft_ring ring = {
		.addr = le64_to_cpu(c->ring_addr),
		.levels = FIELD_GET(ORCA_CQ_CFG_PBL_LEVELS, cfg),
	};
	u64 bytes = (u64)orca_ring_depth(log2) * size;
	struct orca_soft_cq *cq;
	struct orca_soft_eq *eq;
	u8 sts;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)) ||
	    !orca_soft_cq_cfg_ok(cfg, ORCA_CQ_CFG_CQE64) ||
	    !orca_soft_ring_ok(sdev, &ring, bytes) ||
	    !orca_soft_db_addr_ok(le64_to_cpu(c->db_addr)))
		return ORCA_AQ_STS_BAD_PARAM;
	eq = xa_load(&sdev->eqs, le32_to_cpu(c->eqn));
	if (!eq)
		return ORCA_AQ_STS_BAD_HANDLE;

	cq = kzalloc(sizeof(*cq), ORCA_SOFT_GFP);
	if (!cq)
		return ORCA_AQ_STS_NO_RESOURCES;
	spin_lock_init(&cq->lock);
	cq->ring = ring;
	sts = orca_soft_ring_load(sdev, &cq->ring, bytes);
	if (sts)
		goto err_free_cq;
	cq->db_addr = le64_to_cpu(c->db_addr);
	cq->log2_depth = log2;
	cq->cqe_size = size;
	cq->eq = eq;
	/*
	 * Cyclic: a COMP of a destroyed CQ still unconsumed in its EQ
	 * would otherwise reach the next CQ created, which takes the same
	 * number at once.
	 */
	if (xa_alloc_cyclic(&sdev->cqs, &cq->cqn, cq,
			    XA_LIMIT(1, ORCA_SOFT_MAX_CQ), &sdev->cqn_next,
			    ORCA_SOFT_GFP) < 0) {
		sts = ORCA_AQ_STS_NO_RESOURCES;
		goto err_release_ring;
	}
	eq->users++;
	sdev->counts.cqs++;
	out->result = cq->cqn;
	return ORCA_AQ_STS_OK;

err_release_ring:
	orca_soft_ring_release(&cq->ring);
err_free_cq:
	kfree(cq);
	return sts;
}

/*
 * Move the unconsumed entries [cons, prod) to the new ring, each at its
 * own free-running position with the owner bit of the new ring, and mark
 * every other slot of the new ring not valid for the position the
 * consumer will next meet there.  Indices carry on unchanged.
 */
static u8 orca_soft_cq_move(struct orca_soft_dev *sdev,
			    struct orca_soft_cq *cq,
			    const struct orca_soft_ring *ring, u8 log2,
			    u32 cons, u32 used)
{
	u32 depth = orca_ring_depth(log2);
	u8 entry[ORCA_CQE64_SIZE];
	struct orca_cqe *cqe = (struct orca_cqe *)entry;
	u32 k;

	for (k = 0; k < depth; k++) {
		u32 i = cons + k;
		u64 to = orca_soft_ring_entry(ring, i, log2, cq->cqe_size);
		u32 owner = orca_ring_phase(i, log2) ? ORCA_CQE_OWNER : 0;
		u32 word;

		if (k >= used) {
			/* Not produced yet: the opposite owner bit. */
			if (orca_soft_dma_write32(sdev, to +
						  offsetof(struct orca_cqe,
							   status_owner),
						  owner ^ ORCA_CQE_OWNER))
				return ORCA_AQ_STS_DMA_ERROR;
			continue;
		}
		/* The whole entry moves: a 64-byte one with its timestamp. */
		if (orca_soft_dma_read(sdev, orca_soft_cqe_addr(cq, i), entry,
				       cq->cqe_size))
			return ORCA_AQ_STS_DMA_ERROR;
		word = (le32_to_cpu(cqe->status_owner) & ~ORCA_CQE_OWNER) |
		       owner;
		if (orca_soft_dma_write(sdev, to, entry,
					offsetof(struct orca_cqe, status_owner)))
			return ORCA_AQ_STS_DMA_ERROR;
		if (cq->cqe_size > ORCA_CQE_SIZE &&
		    orca_soft_dma_write(sdev, to + ORCA_CQE_SIZE,
					entry + ORCA_CQE_SIZE,
					cq->cqe_size - ORCA_CQE_SIZE))
			return ORCA_AQ_STS_DMA_ERROR;
		/* The entry must be complete before its owner bit flips. */
		wmb();
		if (orca_soft_dma_write32(sdev, to +
					  offsetof(struct orca_cqe,
						   status_owner), word))
			return ORCA_AQ_STS_DMA_ERROR;
	}
	return ORCA_AQ_STS_OK;
}

u8 orca_soft_resize_cq(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd,
		       struct orca_soft_cmd_out *out)
{
	const struct orca_cmd_resize_cq *c = &cmd->resize_cq;
	u64 db = le64_to_cpu(c->db_addr);
	u32 cfg = le32_to_cpu(c->cfg);
	u8 log2 = FIELD_GET(ORCA_CQ_CFG_LOG2_DEPTH, cfg);
	struct orca_soft_ring ring = {
		.addr = le64_to_cpu(c->ring_addr),
		.levels = FIELD_GET(ORCA_CQ_CFG_PBL_LEVELS, cfg),
	};
	struct orca_db_record rec;
	struct orca_soft_cq *cq;
	u32 cons, used;
	u64 bytes;
	u8 sts;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)) ||
	    !orca_soft_cq_cfg_ok(cfg, 0) || (db && !orca_soft_db_addr_ok(db)))
		return ORCA_AQ_STS_BAD_PARAM;
	cq = orca_soft_cq_find(sdev, le32_to_cpu(c->cqn));
	if (!cq)
		return ORCA_AQ_STS_BAD_HANDLE;
	/* The new ring's size, hence its page list, needs the CQ's CQE size. */
	bytes = (u64)orca_ring_depth(log2) * cq->cqe_size;
	if (!orca_soft_ring_ok(sdev, &ring, bytes))
		return ORCA_AQ_STS_BAD_PARAM;

	if (orca_soft_dma_read(sdev, cq->db_addr, &rec, sizeof(rec)))
		return ORCA_AQ_STS_DMA_ERROR;
	cons = le32_to_cpu(rec.cons);
	used = orca_ring_used(cq->prod, cons);
	if (used > orca_ring_depth(cq->log2_depth) ||
	    used > orca_ring_depth(log2))
		return ORCA_AQ_STS_BAD_PARAM;

	/* Until the command succeeds, the CQ keeps its ring and its pages. */
	sts = orca_soft_ring_load(sdev, &ring, bytes);
	if (sts)
		return sts;
	sts = orca_soft_cq_move(sdev, cq, &ring, log2, cons, used);
	if (sts)
		goto err_release_ring;
	if (db) {
		/* The new record starts where the old one is. */
		struct orca_db_record nrec = {
			.cons = rec.cons,
			.arm = rec.arm,
		};

		if (orca_soft_dma_write(sdev, db, &nrec, sizeof(nrec))) {
			sts = ORCA_AQ_STS_DMA_ERROR;
			goto err_release_ring;
		}
		cq->db_addr = db;
	}
	orca_soft_ring_release(&cq->ring);
	cq->ring = ring;
	cq->log2_depth = log2;
	out->result = used;
	return ORCA_AQ_STS_OK;

err_release_ring:
	orca_soft_ring_release(&ring);
	return sts;
}

static void orca_soft_cq_free(struct orca_soft_dev *sdev,
			      struct orca_soft_cq *cq)
{
	xa_erase(&sdev->cqs, cq->cqn);
	cq->eq->users--;
	sdev->counts.cqs--;
	orca_soft_ring_release(&cq->ring);
	kfree(cq);
}

u8 orca_soft_destroy_cq(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_handle *c = &cmd->handle;
	struct orca_soft_cq *cq;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	cq = orca_soft_cq_find(sdev, le32_to_cpu(c->handle));
	if (!cq)
		return ORCA_AQ_STS_BAD_HANDLE;
	if (cq->users)
		return ORCA_AQ_STS_BUSY;
	orca_soft_cq_free(sdev, cq);
	return ORCA_AQ_STS_OK;
}

/* Reset: CQs, then the EQs they used. */
void orca_soft_cq_reset(struct orca_soft_dev *sdev)
{
	struct orca_soft_cq *cq;
	struct orca_soft_eq *eq;
	unsigned long idx;

	xa_for_each(&sdev->cqs, idx, cq)
		orca_soft_cq_free(sdev, cq);
	xa_for_each(&sdev->eqs, idx, eq) {
		orca_soft_eq_publish(sdev, eq, false);
		xa_erase(&sdev->eqs, idx);
		kfree(eq);
	}
}
