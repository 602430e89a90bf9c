// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: the CQE writer and CQ arm evaluation.
 *
 * The CQEs of one CQ are serialised by the CQ's lock, whichever QPs
 * share it and whichever context runs them.  A CQE is written field by
 * field, a store barrier, then status_owner with the owner bit.  Then the
 * device issues a full barrier and reads the CQ record's arm word: one
 * COMP event per arm (uapi/rdma/orca-abi.h).
 */

#include <linux/bitfield.h>

#include "orca_ring.h"
#include "orca_soft_engine.h"

#define ORCA_SOFT_REC_CONS	offsetof(struct orca_db_record, cons)
#define ORCA_SOFT_REC_ARM	offsetof(struct orca_db_record, arm)

/* An arm whose event the EQ dropped stays pending (Completion EQ overflow). */
static void orca_soft_cq_fire(struct orca_soft_dev *sdev,
			      struct orca_soft_cq *cq, u32 arm)
{
	if (!orca_soft_eq_post(sdev, cq->eq, cq->cqn))
		return;
	cq->fired_seq = arm & ORCA_CQ_ARM_SEQ_MASK;
	cq->announced = cq->prod;
}

/*
 * Write one CQE (CQ lock held).  Return false if it cannot be written: a
 * CQ whose consumer has not made room (or published an impossible
 * consumer index) has overrun, and the CQE is dropped, and so is every
 * later one (`CQ overrun` in the interface specification).
 */
static bool orca_soft_cq_write(struct orca_soft_dev *sdev,
			       struct orca_soft_cq *cq,
			       const struct orca_soft_cqe_info *ci)
{
	bool ok = ci->status == ORCA_CQE_ST_SUCCESS;
	struct orca_cqe cqe;
	u32 cons, arm, word;
	u64 addr;

	lockdep_assert_held(&cq->lock);
	if (cq->overrun ||
	    orca_soft_dma_read32(sdev, cq->db_addr + ORCA_SOFT_REC_CONS,
				 &cons) ||
	    cq->prod - cons >= orca_ring_depth(cq->log2_depth))
		return false;

	/* An error CQE carries wr_id, qpn, opcode and status only. */
	addr = orca_soft_cqe_addr(cq, cq->prod);
	cqe.wr_id = cpu_to_le64(ci->wr_id);
	cqe.byte_len = cpu_to_le32(ok ? ci->byte_len : 0);
	cqe.imm_inv = cpu_to_le32(ok ? ci->imm_inv : 0);
	cqe.qpn = cpu_to_le32(ci->qpn);
	cqe.src_qp = cpu_to_le32(ok ? ci->src_qp : 0);
	cqe.info = cpu_to_le32(ci->opcode |
			       ((ok ? ci->flags : 0) <<
				ORCA_CQE_INFO_FLAGS_SHIFT));
	word = ci->status;
	if (orca_ring_phase(cq->prod, cq->log2_depth))
		word |= ORCA_CQE_OWNER;
	if (orca_soft_dma_write(sdev, addr, &cqe,
				offsetof(struct orca_cqe, status_owner)))
		return false;
	if (cq->cqe_size == ORCA_CQE64_SIZE) {
		/* The device clock is the host's CLOCK_MONOTONIC_RAW. */
		struct orca_cqe_ext ext = {
			.timestamp = cpu_to_le64(ktime_get_raw_ns()),
		};

		if (orca_soft_dma_write(sdev, addr + ORCA_CQE_SIZE, &ext,
					sizeof(ext)))
			return false;
	}
	/* The entry must be complete before its owner bit flips. */
	wmb();
	if (orca_soft_dma_write32(sdev,
				  addr + offsetof(struct orca_cqe, status_owner),
				  word))
		return false;
	cq->prod++;

	/* Pairs with the consumer's barrier between arm and CQE check. */
	smp_mb();
	if (orca_soft_dma_read32(sdev, cq->db_addr + ORCA_SOFT_REC_ARM, &arm))
		return true;
	if (!orca_arm_fires(arm, cq->fired_seq, ci->flags, ci->status))
		return true;
	/*
	 * The consumer writes cons before the arm word: cons read after the
	 * arm is at least the one that arm was written with.  An arm written
	 * after this CQE was polled is for a later completion.
	 */
	smp_rmb();
	if (!orca_soft_dma_read32(sdev, cq->db_addr + ORCA_SOFT_REC_CONS,
				  &cons) &&
	    orca_arm_cqe_unconsumed(cq->prod, cons, cq->log2_depth))
		orca_soft_cq_fire(sdev, cq, arm);
	return true;
}

/*
 * Write the CQE for @ci.  If it cannot be written, the CQ is in its error
 * state from now on (CQ_ERR, once), and the QP whose completion is lost
 * goes to ERR.
 */
void orca_soft_cq_complete(struct orca_soft_dev *sdev,
			   struct orca_soft_cq *cq,
			   const struct orca_soft_cqe_info *ci)
{
	bool first = false, written;
	struct orca_soft_qp *qp;

	spin_lock_bh(&cq->lock);
	written = orca_soft_cq_write(sdev, cq, ci);
	if (!written && !cq->overrun) {
		cq->overrun = true;
		first = true;
	}
	spin_unlock_bh(&cq->lock);
	if (written)
		return;
	if (first)
		orca_soft_post_event(sdev, ORCA_EQE_CQ_ERR, cq->cqn);
	qp = orca_soft_qp_find(sdev, ci->qpn);
	if (qp)
		orca_soft_qp_set_err(sdev, qp);
}

/* Does the CQE at @idx satisfy a solicited-only arm? */
static bool orca_soft_cqe_solicited(struct orca_soft_dev *sdev,
				    struct orca_soft_cq *cq, u32 idx)
{
	struct orca_cqe cqe;
	u32 info, st;

	if (orca_soft_dma_read(sdev, orca_soft_cqe_addr(cq, idx), &cqe,
			       sizeof(cqe)))
		return false;
	info = le32_to_cpu(cqe.info);
	st = le32_to_cpu(cqe.status_owner);
	return orca_arm_fires(ORCA_CQ_ARM_REQUEST | ORCA_CQ_ARM_SOLICITED, 0,
			      (info & ORCA_CQE_INFO_FLAGS_MASK) >>
			      ORCA_CQE_INFO_FLAGS_SHIFT,
			      st & ORCA_CQE_STATUS_MASK);
}

/*
 * ORCA_REG_CQ_DB: the arm word changed while CQEs may already be there.
 * Fire at once if one between the record's cons and our producer
 * satisfies the arm, unless an earlier event already announced it: a
 * consumer that re-arms after an event and before polling the CQE that
 * caused it gets no second event for that CQE, while one that polled
 * the CQ empty and armed after a CQE slipped in gets its event.
 */
static void orca_soft_cq_arm(struct orca_soft_dev *sdev,
			     struct orca_soft_cq *cq)
{
	u32 cons, arm, used, skip, i;

	lockdep_assert_held(&cq->lock);
	if (orca_soft_dma_read32(sdev, cq->db_addr + ORCA_SOFT_REC_ARM, &arm))
		return;
	/* The arm first: the cons read after it is at least the arm's. */
	smp_rmb();
	if (orca_soft_dma_read32(sdev, cq->db_addr + ORCA_SOFT_REC_CONS,
				 &cons))
		return;
	if (!orca_arm_pending(arm, cq->fired_seq))
		return;
	used = cq->prod - cons;
	if (!used || used > orca_ring_depth(cq->log2_depth))
		return;
	/* Entries [cons, announced) were announced; none if cons is past. */
	skip = cq->announced - cons;
	if (skip > used)
		skip = 0;
	if (skip == used)
		return;
	if (!(arm & ORCA_CQ_ARM_SOLICITED)) {
		orca_soft_cq_fire(sdev, cq, arm);
		return;
	}
	for (i = skip; i < used; i++) {
		if (orca_soft_cqe_solicited(sdev, cq, cons + i)) {
			orca_soft_cq_fire(sdev, cq, arm);
			return;
		}
	}
}

void orca_soft_cq_doorbell(struct orca_soft_dev *sdev, u32 cqn)
{
	struct orca_soft_cq *cq = orca_soft_cq_find(sdev, cqn);

	if (!cq)
		return;
	spin_lock_bh(&cq->lock);
	orca_soft_cq_arm(sdev, cq);
	spin_unlock_bh(&cq->lock);
}

/*
 * A successful receive completion of the local fast path is written only
 * after the requester has finished the WQE that caused it and published
 * the SQ's cons: a peer that sees the message and answers at once must
 * find the requester's slot free (ping-pong with unsignalled sends and
 * one SQ slot, as perftest's latency tests do).
 */
void orca_soft_cq_hold(struct orca_soft_dev *sdev, struct orca_soft_qp *src,
		       struct orca_soft_cq *cq,
		       const struct orca_soft_cqe_info *ci)
{
	struct orca_soft_req_scratch *s = src->req_scr;

	if (s->nheld >= s->max_held) {
		orca_soft_cq_complete(sdev, cq, ci);
		return;
	}
	s->held[s->nheld].cq = cq;
	s->held[s->nheld].ci = *ci;
	s->nheld++;
}

void orca_soft_cq_release_held(struct orca_soft_dev *sdev,
			       struct orca_soft_qp *qp)
{
	struct orca_soft_req_scratch *s = qp->req_scr;
	u32 i;

	for (i = 0; i < s->nheld; i++)
		orca_soft_cq_complete(sdev, s->held[i].cq, &s->held[i].ci);
	s->nheld = 0;
}
