/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * liborca: helpers shared by the data path (datapath.c) and the extended
 * verbs (exverbs.c).
 */
#ifndef ORCA_DATAPATH_H
#define ORCA_DATAPATH_H

#include <endian.h>
#include <stdatomic.h>

#include "orca.h"

/* --- shared memory accessors ----------------------------------------- */

static inline uint32_t orca_ld_acquire(const __le32 *p)
{
	return le32toh(__atomic_load_n(p, __ATOMIC_ACQUIRE));
}

static inline uint32_t orca_ld_relaxed(const __le32 *p)
{
	return le32toh(__atomic_load_n(p, __ATOMIC_RELAXED));
}

static inline void orca_st_release(__le32 *p, uint32_t v)
{
	__atomic_store_n(p, htole32(v), __ATOMIC_RELEASE);
}

static inline void orca_st_relaxed(__le32 *p, uint32_t v)
{
	__atomic_store_n(p, htole32(v), __ATOMIC_RELAXED);
}

/* --- work queues ------------------------------------------------------ */

static inline void *orca_wq_slot(const struct orca_wq *wq, uint32_t idx)
{
	return (char *)wq->ring + (size_t)(idx & (wq->depth - 1)) * wq->stride;
}

/*
 * Whether one more WQE would exceed the reported max_wr.  The device's
 * done index is only re-read (acquire: the device is done with the slots
 * below it) when the value last seen says full, so a post that finds
 * room touches no cache line the device writes until it reads
 * dev_flags.  A device cons beyond prod makes prod - cons huge, which
 * reads as full.
 */
static inline bool orca_wq_full(struct orca_wq *wq)
{
	if (wq->prod - wq->cons_seen < wq->max_wr)
		return false;
	wq->cons_seen = orca_ld_acquire(&wq->db->cons);
	return wq->prod - wq->cons_seen >= wq->max_wr;
}

/*
 * Publishes wq->prod: the WQEs below it are complete in the ring.
 * Returns whether the device asked to be notified.
 */
static inline bool orca_wq_publish(struct orca_wq *wq)
{
	orca_st_release(&wq->db->prod, wq->prod);
	atomic_thread_fence(memory_order_seq_cst);
	return !(orca_ld_relaxed(&wq->db->dev_flags) & ORCA_DB_DEV_POLLING);
}

static inline uint32_t orca_ctrl(unsigned int op, uint32_t flags,
				 uint32_t num_sge)
{
	return (op & ORCA_WQE_CTRL_OPCODE_MASK) |
	       ((flags << ORCA_WQE_CTRL_FLAGS_SHIFT) &
		ORCA_WQE_CTRL_FLAGS_MASK) |
	       ((num_sge << ORCA_WQE_CTRL_NUM_SGE_SHIFT) &
		ORCA_WQE_CTRL_NUM_SGE_MASK);
}

/* --- completion queues ------------------------------------------------ */

/* Entry idx (free-running) of the ring, whatever the entry size. */
static inline const struct orca_cqe *orca_cq_slot(const struct orca_cq *cq,
						  uint32_t idx)
{
	return (const void *)((const char *)cq->ring +
			      (size_t)(idx & (cq->depth - 1)) * cq->cqe_size);
}

static inline bool orca_qp_in_reset(const struct orca_qp *qp)
{
	return __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE) == IBV_QPS_RESET;
}

/*
 * Whether a WQE of this opcode sends a request, which on an XRC_SEND QP
 * names the target's XRC SRQ in xrc_srqn; LOCAL_INV and BIND_MW act
 * locally and carry 0 there.
 */
static inline bool orca_wqe_op_xrc(unsigned int op)
{
	return op != ORCA_WQE_OP_LOCAL_INV && op != ORCA_WQE_OP_BIND_MW;
}

/*
 * The flags a BIND_MW WQE takes: a bind completes locally and carries
 * no message, so SOLICITED (and INLINE) have no meaning for it.
 */
#define ORCA_WQE_BIND_FLAGS	(ORCA_WQE_FLAG_SIGNALED | ORCA_WQE_FLAG_FENCE)

void orca_kick_sq(struct orca_qp *qp);
int orca_send_opcode(const struct orca_qp *qp, unsigned int wr_op,
		     bool *inline_ok);
uint32_t orca_send_flags(const struct orca_qp *qp, unsigned int flags);
int orca_inline_append(const struct orca_qp *qp, struct orca_send_wqe *wqe,
		       uint32_t *len, const void *addr, size_t length);
void orca_write_sges(struct orca_sge *dst, const struct ibv_sge *sg,
		     size_t n);
int orca_bind_prepare(const struct orca_qp *qp, const struct ibv_mw *mw,
		      enum ibv_mw_type type, uint32_t new_key,
		      const struct ibv_mw_bind_info *bi,
		      struct orca_send_wqe *wqe);
bool orca_cq_take(struct orca_cq *cq, struct ibv_wc *wc, uint64_t *ts);
void orca_cq_update_cons(struct orca_cq *cq);

#endif /* ORCA_DATAPATH_H */
