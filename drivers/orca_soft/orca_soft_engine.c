// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: the data-path engine.
 *
 * One kernel thread per device instance executes the work queues.  It
 * learns about new work two ways:
 *
 *  - kicks: ORCA_REG_QP_DB and ORCA_REG_CQ_DB writes arrive in
 *    orca_soft_notify(), in any context; the number written goes into a
 *    small FIFO (notify never looks at an object) and the thread is woken.
 *    A full FIFO sets "rescan": the thread then looks at every QP and CQ.
 *  - polling: while it has had work in the last ORCA_SOFT_SPIN_NS, the
 *    thread keeps polling the SQ producer index of every active QP, with
 *    ORCA_DB_DEV_POLLING set in their SQ records, so posters need not kick.
 *    Before it sleeps it clears the flag, issues a full barrier and reads
 *    prod once more (the poster does the opposite), so a post is never
 *    missed.  RQ records keep POLLING set while the QP receives: the
 *    responder reads their prod when a message arrives.
 *
 * The thread takes the engine semaphore for writing for each bounded
 * batch and drops it in between; admin commands take it the same way
 * around their execution, so every object the engine touches is alive
 * and stable during a batch.  Kicks may instead run a QP in the shared
 * lane (orca_soft_kick_shared()): the semaphore held for reading and the
 * locks of the QPs involved, several tasks at once.
 *
 * A QP in the error state completes every WQE of its SQ and RQ with
 * WR_FLUSH_ERR, including WQEs posted later (their kick finds it).
 */

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/stat.h>
#include <linux/slab.h>

#include "orca_ring.h"
#include "orca_soft_engine.h"

/*
 * Keep polling this long after the last work before sleeping, and for at
 * least this many empty polls: on an emulated CPU 50 us is only a few
 * polls, and the poll count keeps the window as long in instructions as
 * it is on real hardware.
 */
#define ORCA_SOFT_SPIN_NS	50000
#define ORCA_SOFT_SPIN_POLLS	4096
/*
 * Empty polls before sleeping while no active QP has POLLING set: every
 * poster then kicks (and its kick runs inline), and polling longer would
 * mostly take a CPU from busy-polling processes (orca_soft_engine_polls()).
 * Doubled, up to ORCA_SOFT_SPIN_POLLS, each time the thread then finds
 * it cannot sleep yet (WQEs on the wire waiting for their ACKs, say),
 * until it next sleeps.
 */
#define ORCA_SOFT_NAP_POLLS	16
/* WQEs per QP per pass, and per batch (between two mutex drops). */
#define ORCA_SOFT_QP_BUDGET	32
#define ORCA_SOFT_BATCH_BUDGET	256
/* Received packets per batch. */
#define ORCA_SOFT_RX_BUDGET	64
/* Active QPs per pass of the shared lane. */
#define ORCA_SOFT_SHARED_QPS	16
/*
 * The engine thread gives its posters' QPs back (their kicks run inline)
 * once another task has been runnable on its CPU for this long of its
 * polling, with RNR NAKs meanwhile, and takes none again for
 * ORCA_SOFT_GIVE_BACK_MS (orca_soft_engine_give_back()).
 */
#define ORCA_SOFT_CONTEND_NS	(2 * NSEC_PER_MSEC)
#define ORCA_SOFT_GIVE_BACK_MS	1000

#define ORCA_SOFT_REC_PROD	offsetof(struct orca_db_record, prod)
#define ORCA_SOFT_REC_CONS	offsetof(struct orca_db_record, cons)
#define ORCA_SOFT_REC_FLAGS	offsetof(struct orca_db_record, dev_flags)

/* ------------------------------------------------------------- helpers */

int orca_soft_dma_read32(struct orca_soft_dev *sdev, u64 addr, u32 *val)
{
	__le32 v;

	if (!IS_ALIGNED(addr, sizeof(u32)) ||
	    orca_soft_dma_read(sdev, addr, &v, sizeof(v)))
		return -EFAULT;
	*val = le32_to_cpu(v);
	return 0;
}

int orca_soft_wq_set_flags(struct orca_soft_dev *sdev,
			   const struct orca_soft_wq *wq, u32 flags)
{
	return orca_soft_dma_write32(sdev, wq->db_addr + ORCA_SOFT_REC_FLAGS,
				     flags);
}

static void orca_soft_wq_put_cons(struct orca_soft_dev *sdev,
				  const struct orca_soft_wq *wq)
{
	orca_soft_dma_write32(sdev, wq->db_addr + ORCA_SOFT_REC_CONS,
			      wq->cons);
}

bool orca_soft_qp_receives(const struct orca_soft_qp *qp)
{
	return qp->state == ORCA_QPS_RTR || qp->state == ORCA_QPS_RTS ||
	       qp->state == ORCA_QPS_SQD || qp->state == ORCA_QPS_SQE;
}

void orca_soft_qp_error_event(struct orca_soft_dev *sdev,
			      struct orca_soft_qp *qp, u8 type)
{
	orca_soft_post_event(sdev, type, qp->qpn);
}

/*
 * A work queue whose producer index is impossible: the QP (or the SRQ)
 * is broken.  Report it once and move the QP to the error state.
 */
void orca_soft_wq_fatal(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
			struct orca_soft_wq *wq)
{
	if (!wq->broken) {
		wq->broken = true;
		if (qp)
			orca_soft_post_event(sdev, ORCA_EQE_QP_FATAL, qp->qpn);
	}
	if (qp)
		orca_soft_qp_set_err(sdev, qp);
}

/* --------------------------------------------------- completion EQs */

/* Make @eq reachable by its doorbell (@add) or not, before it is freed. */
void orca_soft_eq_publish(struct orca_soft_dev *sdev, struct orca_soft_eq *eq,
			  bool add)
{
	unsigned long flags;

	if (WARN_ON_ONCE(eq->eqn > ORCA_SOFT_MAX_EQ))
		return;
	spin_lock_irqsave(&sdev->ceq_lock, flags);
	sdev->ceq[eq->eqn] = add ? eq : NULL;
	spin_unlock_irqrestore(&sdev->ceq_lock, flags);
}

/*
 * Write a COMP entry for @cqn; raise the vector if the EQ is armed.
 * Return false if the entry was dropped (EQ full, or unwritable).
 */
bool orca_soft_eq_post(struct orca_soft_dev *sdev, struct orca_soft_eq *eq,
		       u32 cqn)
{
	struct orca_eqe eqe = {};
	unsigned long flags;
	bool posted = false;
	u64 addr;
	u32 info;

	spin_lock_irqsave(&sdev->ceq_lock, flags);
	if (((eq->prod - eq->cons) & ORCA_EQ_DB_CONS_IDX) >=
	    orca_ring_depth(eq->log2_depth)) {
		eq->overflows++;
		goto out;
	}
	addr = eq->ring_addr +
	       (u64)orca_ring_slot(eq->prod, eq->log2_depth) * ORCA_EQE_SIZE;
	eqe.data = cpu_to_le64(cqn);
	info = FIELD_PREP(ORCA_EQE_TYPE, ORCA_EQE_COMP) |
	       FIELD_PREP(ORCA_EQE_PHASE,
			  orca_ring_phase(eq->prod, eq->log2_depth));
	if (orca_soft_dma_write(sdev, addr, &eqe,
				offsetof(struct orca_eqe, info)))
		goto out;
	/* The entry must be complete before its owner bit flips. */
	wmb();
	if (orca_soft_dma_write32(sdev, addr + offsetof(struct orca_eqe, info),
				  info))
		goto out;
	eq->prod++;
	posted = true;
	if (eq->armed) {
		eq->armed = false;
		orca_soft_raise_irq(sdev, eq->vector);
	}
out:
	spin_unlock_irqrestore(&sdev->ceq_lock, flags);
	return posted;
}

/*
 * ORCA_REG_EQ_DB, from notify in any context: the driver consumed EQ eqn
 * up to CONS_IDX; with ARM, raise the vector once for the next entry, at
 * once if there are entries past CONS_IDX.  A write with an impossible
 * consumer index is ignored.
 */
void orca_soft_eq_doorbell(struct orca_soft_dev *sdev, u32 val)
{
	u32 eqn = FIELD_GET(ORCA_EQ_DB_EQN, val);
	u32 cons = FIELD_GET(ORCA_EQ_DB_CONS_IDX, val);
	struct orca_soft_eq *eq;
	unsigned long flags;
	u32 used;

	if (eqn > ORCA_SOFT_MAX_EQ)
		return;
	spin_lock_irqsave(&sdev->ceq_lock, flags);
	eq = sdev->ceq[eqn];
	if (!eq)
		goto out;
	used = (eq->prod - cons) & ORCA_EQ_DB_CONS_IDX;
	if (used > orca_ring_depth(eq->log2_depth))
		goto out;
	eq->cons = cons;
	if (val & ORCA_EQ_DB_ARM) {
		if (used) {
			eq->armed = false;
			orca_soft_raise_irq(sdev, eq->vector);
		} else {
			eq->armed = true;
		}
	}
out:
	spin_unlock_irqrestore(&sdev->ceq_lock, flags);
}

/* -------------------------------------------------------------- kicks */

/*
 * From notify, any context: queue a QPN (with ORCA_SOFT_KICK_POSTER or
 * ORCA_SOFT_KICK_ATOMIC, from orca_soft_doorbell()) or
 * ORCA_SOFT_KICK_CQ | CQN.
 */
void orca_soft_kick(struct orca_soft_dev *sdev, u32 entry)
{
	unsigned long flags;
	u32 used;

	spin_lock_irqsave(&sdev->kick_lock, flags);
	used = sdev->kick_tail - sdev->kick_head;
	if (used && sdev->kick_fifo[(sdev->kick_tail - 1) %
				    ORCA_SOFT_KICK_FIFO] == entry) {
		/* The same kick is still queued. */
	} else if (used >= ORCA_SOFT_KICK_FIFO) {
		sdev->kick_rescan = true;
	} else {
		sdev->kick_fifo[sdev->kick_tail++ % ORCA_SOFT_KICK_FIFO] = entry;
	}
	if (sdev->eng_idle && sdev->eng_task) {
		sdev->eng_idle = false;
		wake_up_process(sdev->eng_task);
	}
	spin_unlock_irqrestore(&sdev->kick_lock, flags);
}

/* The earliest deadline armed since timers were last judged, U64_MAX. */
static u64 orca_soft_timer_min(struct orca_soft_dev *sdev)
{
	return atomic64_read(&sdev->eng_timer_min);
}

/*
 * A lane armed a deadline (eng_timer_min): wake the engine thread if
 * it sleeps past it.  It reads eng_timer_min under kick_lock before it
 * sleeps, so either it sees the deadline or this sees it asleep.
 */
static void orca_soft_engine_timer_wake(struct orca_soft_dev *sdev)
{
	unsigned long flags;

	if (orca_soft_timer_min(sdev) == U64_MAX)
		return;
	spin_lock_irqsave(&sdev->kick_lock, flags);
	if (sdev->eng_idle && sdev->eng_task &&
	    orca_soft_timer_min(sdev) < sdev->eng_sleep_until) {
		sdev->eng_idle = false;
		wake_up_process(sdev->eng_task);
	}
	spin_unlock_irqrestore(&sdev->kick_lock, flags);
}

/* From the rx_handler, softirq: packets are queued on sdev->rxq. */
void orca_soft_engine_wake(struct orca_soft_dev *sdev)
{
	unsigned long flags;

	spin_lock_irqsave(&sdev->kick_lock, flags);
	if (sdev->eng_idle && sdev->eng_task) {
		sdev->eng_idle = false;
		wake_up_process(sdev->eng_task);
	}
	spin_unlock_irqrestore(&sdev->kick_lock, flags);
}

/* ------------------------------------------------------ QP activation */

/* See orca_soft_kick_inline() for the modes. */
#define ORCA_SOFT_HANDOVER_KICKS	4

static int inline_kicks = 1;
module_param(inline_kicks, int, 0644);
MODULE_PARM_DESC(inline_kicks,
		 "Run kicked queues in the kicking task: 0 never, 1 and hand repeatedly kicked QPs to the engine thread (default), 2 inline only, 3 and always hand over to the thread");

/*
 * @qp is a steady poster's (kicked again and again with no request from
 * a peer in between), and the engine thread may take it now: it has not
 * given its posters' QPs back lately (orca_soft_engine_give_back()).
 */
static bool orca_soft_steady_poster(struct orca_soft_dev *sdev,
				    const struct orca_soft_qp *qp)
{
	return qp->kick_repeats >= ORCA_SOFT_HANDOVER_KICKS &&
	       time_after_eq64(get_jiffies_64(), READ_ONCE(sdev->handover_at));
}

/*
 * Whether the engine thread takes @qp's posts by polling, with POLLING
 * advertised: a steady poster (kicked again and again with no request
 * from a peer in between) while the thread has a CPU to poll on, or
 * every QP in the modes that hand each one over, or one kicked from a
 * context that cannot run its queue (a kernel poster under a spinlock or
 * in softirq: the thread serves it whatever it does, until the QP is
 * reset).  Half of a ping-pong of any other poster never is: its poster
 * kicks, and the kick runs inline.  Were POLLING set on it (a kick the
 * thread took because a lock was busy), its posts would wait for the
 * thread, which competes for the CPUs with two busy-polling processes
 * and finds work in every pass: a state that lasts, with the thread's
 * turn on a CPU (some milliseconds) in every round trip.
 */
static bool orca_soft_sq_polled(struct orca_soft_dev *sdev,
				const struct orca_soft_qp *qp)
{
	int mode = READ_ONCE(inline_kicks);

	return mode == 0 || mode == 3 ||
	       (mode == 1 && (qp->kicks_atomic ||
			      orca_soft_steady_poster(sdev, qp)));
}

/* One more kick of @qp with no request from its peer since the last. */
static void orca_soft_kick_count(struct orca_soft_qp *qp)
{
	if (qp->kick_repeats < ORCA_SOFT_HANDOVER_KICKS)
		qp->kick_repeats++;
}

static void orca_soft_sq_polling(struct orca_soft_dev *sdev,
				 struct orca_soft_qp *qp, bool on)
{
	if (qp->sq_polling == on || !orca_soft_qp_has_sq(qp))
		return;
	/* Read by orca_soft_engine_polls() under eng_lock alone. */
	WRITE_ONCE(qp->sq_polling, on);
	orca_soft_wq_set_flags(sdev, &qp->sq, on ? ORCA_DB_DEV_POLLING : 0);
}

/*
 * Put @qp on the engine's active list: its queues will be looked at.  A
 * QP whose send queue waits (a timer, a page) only has READ responses to
 * send, if any.
 */
void orca_soft_qp_activate(struct orca_soft_dev *sdev, struct orca_soft_qp *qp)
{
	if (qp->req.wait != ORCA_SOFT_WAIT_NONE &&
	    qp->state != ORCA_QPS_ERR && !qp->resp.rd_busy)
		return;
	spin_lock(&sdev->eng_lock);
	if (list_empty(&qp->active_node))
		list_add_tail(&qp->active_node, &sdev->eng_active);
	spin_unlock(&sdev->eng_lock);
	if (qp->state == ORCA_QPS_RTS && orca_soft_sq_polled(sdev, qp))
		orca_soft_sq_polling(sdev, qp, true);
}

/*
 * @qp received a request from a peer, even a duplicate or one it will
 * refuse (its lock held, or eng_rwsem written): its own kicks are a
 * ping-pong's from now on, and its posts no longer wait for the engine
 * thread.  A QP with POLLING set is on the active list (or waits for a
 * timer, which brings it back), and leaves it only when the thread
 * quiesces, which reads prod after clearing the flag: a post that saw
 * POLLING still set is found.
 */
void orca_soft_qp_answers(struct orca_soft_dev *sdev, struct orca_soft_qp *qp)
{
	qp->kick_repeats = 0;
	if (!orca_soft_sq_polled(sdev, qp))
		orca_soft_sq_polling(sdev, qp, false);
}

/* Take @qp off every engine list (destroy, reset: eng_rwsem written). */
void orca_soft_qp_unlink(struct orca_soft_qp *qp)
{
	list_del_init(&qp->active_node);
	list_del_init(&qp->wait_node);
	list_del_init(&qp->timer_node);
	list_del_init(&qp->resp.ack_node);
	qp->req.wait = ORCA_SOFT_WAIT_NONE;
}

/*
 * The WQE at the SQ's cons waits: an RNR NAK, or an unanswered request.
 * @delay_ns 0 means for ever (ACK timeout 0).  POLLING stays as it is:
 * the engine looks at the SQ again when the timer fires, so WQEs posted
 * meanwhile need no kick.
 */
void orca_soft_qp_wait(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
		       u8 kind, u64 delay_ns)
{
	qp->req.wait = kind;
	qp->req.wait_until = delay_ns ? ktime_get_ns() + delay_ns : U64_MAX;
	spin_lock(&sdev->eng_lock);
	list_del_init(&qp->active_node);
	list_move_tail(&qp->wait_node, &sdev->eng_waiting);
	/* As a wire deadline: the thread learns of it (timer_wake). */
	if (qp->req.wait_until < (u64)atomic64_read(&sdev->eng_timer_min))
		atomic64_set(&sdev->eng_timer_min, (s64)qp->req.wait_until);
	spin_unlock(&sdev->eng_lock);
}

/*
 * Move @qp to the error state: its RQ record stops advertising polling
 * (posts in ERR are kicked, then flushed), timers are cancelled, and the
 * engine flushes both queues.  A QP with an SRQ reports LAST_WQE, once
 * the SRQ's WQE it may hold is flushed (orca_soft_flush_held).
 */
void orca_soft_qp_set_err(struct orca_soft_dev *sdev, struct orca_soft_qp *qp)
{
	if (qp->state == ORCA_QPS_ERR)
		return;
	qp->state = ORCA_QPS_ERR;
	if (orca_soft_qp_has_rq(qp))
		orca_soft_wq_set_flags(sdev, &qp->rq, 0);
	/* The flag is clear before we look at prod for the flush. */
	smp_mb();
	spin_lock(&sdev->eng_lock);
	list_del_init(&qp->wait_node);
	list_del_init(&qp->timer_node);
	list_del_init(&qp->resp.ack_node);
	WRITE_ONCE(sdev->eng_excl, true);
	spin_unlock(&sdev->eng_lock);
	qp->req.wait = ORCA_SOFT_WAIT_NONE;
	qp->req.timer_at = 0;
	qp->req.rnr_until = 0;
	qp->resp.odp_until = 0;
	/* READ responses queued: the responder's next pass judges them. */
	orca_soft_qp_activate(sdev, qp);
	/* An XRC_TGT QP only borrows SRQs: orca_soft_flush_held() says it. */
	if (qp->srq && !qp->resp.srq_held && qp->type != ORCA_QPT_XRC_TGT)
		orca_soft_post_event(sdev, ORCA_EQE_QP_LAST_WQE, qp->qpn);
}

/*
 * A QP in SQD whose send queue is drained (no WQE in progress: on the
 * wire an RC QP waits for the WQEs it started, a UC QP for the message it
 * is sending; elsewhere WQEs run whole) posts the QP_SQ_DRAINED it owes.
 */
void orca_soft_sqd_check(struct orca_soft_dev *sdev, struct orca_soft_qp *qp)
{
	bool busy = false;

	if (qp->state != ORCA_QPS_SQD || !qp->sqd_notify)
		return;
	if (!orca_soft_qp_is_ud(qp) && !orca_soft_req_local(sdev, qp))
		busy = qp->req.next_off ||
		       (qp->req.swqe && qp->sq.cons != qp->req.started);
	if (busy)
		return;
	qp->sqd_notify = false;
	orca_soft_post_event(sdev, ORCA_EQE_QP_SQ_DRAINED, qp->qpn);
}

/* MODIFY_QP to RESET: forget everything posted, as CREATE_QP left it. */
static void orca_soft_qp_reset_dp(struct orca_soft_dev *sdev,
				  struct orca_soft_qp *qp)
{
	u32 prod;

	struct orca_soft_swqe *swqe = qp->req.swqe;

	orca_soft_qp_unlink(qp);
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->resp, 0, sizeof(qp->resp));
	qp->kick_repeats = 0;
	qp->kicks_atomic = false;
	qp->req.swqe = swqe;
	INIT_LIST_HEAD(&qp->resp.ack_node);
	if (qp->type == ORCA_QPT_XRC_TGT) {
		/* Nothing borrowed outlives the QP's messages. */
		qp->srq = NULL;
		qp->pd = NULL;
		qp->recv_cq = NULL;
		return;
	}
	orca_soft_sq_polling(sdev, qp, false);
	qp->sq.broken = false;
	if (!orca_soft_dma_read32(sdev, qp->sq.db_addr + ORCA_SOFT_REC_PROD,
				  &prod)) {
		qp->sq.cons = prod;
		orca_soft_wq_put_cons(sdev, &qp->sq);
	}
	if (!orca_soft_qp_has_rq(qp))
		return;
	qp->rq.broken = false;
	orca_soft_wq_set_flags(sdev, &qp->rq, 0);
	if (!orca_soft_dma_read32(sdev, qp->rq.db_addr + ORCA_SOFT_REC_PROD,
				  &prod)) {
		qp->rq.cons = prod;
		orca_soft_wq_put_cons(sdev, &qp->rq);
	}
}

/*
 * After MODIFY_QP applied @mask and moved @qp from @cur to its new state
 * (admin command, engine semaphore written).
 */
void orca_soft_qp_modified(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
			   u8 cur, u32 mask)
{
	if (qp->state == ORCA_QPS_RESET) {
		if (cur != ORCA_QPS_RESET)
			orca_soft_qp_reset_dp(sdev, qp);
		return;
	}
	/* RQ: POLLING from INIT on, until RESET or ERR. */
	if (cur == ORCA_QPS_RESET && qp->state != ORCA_QPS_ERR &&
	    orca_soft_qp_has_rq(qp))
		orca_soft_wq_set_flags(sdev, &qp->rq, ORCA_DB_DEV_POLLING);
	if (mask & ORCA_QP_ATTR_SQ_PSN)
		qp->req.sq_psn = le32_to_cpu(qp->attr.sq_psn) &
				 ORCA_SOFT_PSN_MASK;
	if (mask & ORCA_QP_ATTR_RQ_PSN)
		qp->resp.rq_psn = le32_to_cpu(qp->attr.rq_psn) &
				  ORCA_SOFT_PSN_MASK;
	if (mask & ORCA_QP_ATTR_AV)
		qp->req.gid_gen = 0;
	if ((mask & ORCA_QP_ATTR_SQ_PSN) ||
	    (qp->state == ORCA_QPS_RTS && cur != ORCA_QPS_RTS &&
	     cur != ORCA_QPS_SQD))
		orca_soft_wire_qp_init(qp);
	/* Posted WQEs start in RTS; an error flushes them. */
	if (qp->state == ORCA_QPS_RTS || qp->state == ORCA_QPS_ERR)
		orca_soft_kick(sdev, qp->qpn);
}

/* ------------------------------------------------------------ flushing */

static int orca_soft_flush_wq(struct orca_soft_dev *sdev,
			      struct orca_soft_qp *qp, struct orca_soft_wq *wq,
			      bool send, int budget)
{
	struct orca_soft_cqe_info ci = {
		.qpn = qp->qpn,
		.status = ORCA_CQE_ST_WR_FLUSH_ERR,
		.opcode = ORCA_CQE_OP_RECV,
	};
	struct orca_soft_cq *cq = send ? qp->send_cq : qp->recv_cq;
	int n = 0;
	u32 prod;

	if (wq->broken ||
	    orca_soft_dma_read32(sdev, wq->db_addr + ORCA_SOFT_REC_PROD, &prod))
		return 0;
	if (!orca_wq_prod_ok(prod, wq->cons, wq->log2_depth)) {
		orca_soft_wq_fatal(sdev, qp, wq);
		return 0;
	}
	while (wq->cons != prod && n < budget) {
		u64 addr = orca_soft_wq_slot(wq, wq->cons);
		struct orca_send_wqe hdr;
		size_t len = send ? offsetof(struct orca_send_wqe, imm_inv) :
				    sizeof(struct orca_recv_wqe);

		if (orca_soft_dma_read(sdev, addr, &hdr, len)) {
			orca_soft_wq_fatal(sdev, qp, wq);
			break;
		}
		ci.wr_id = le64_to_cpu(hdr.wr_id);
		if (send)
			ci.opcode = orca_soft_wqe_cqe_opcode(le32_to_cpu(hdr.ctrl) &
							     ORCA_WQE_CTRL_OPCODE_MASK);
		/* The slot is free before its CQE can be seen. */
		wq->cons++;
		orca_soft_wq_put_cons(sdev, wq);
		orca_soft_cq_complete(sdev, cq, &ci);
		n++;
	}
	return n;
}

/*
 * A QP in ERR that holds an SRQ's WQE for a message it will not finish:
 * the WQE completes with WR_FLUSH_ERR, then LAST_WQE.
 */
static int orca_soft_flush_held(struct orca_soft_dev *sdev,
				struct orca_soft_qp *qp)
{
	struct orca_soft_cqe_info ci = {
		.qpn = qp->qpn,
		.status = ORCA_CQE_ST_WR_FLUSH_ERR,
		.opcode = ORCA_CQE_OP_RECV,
	};
	const struct orca_recv_wqe *rwqe = (const void *)qp->srq_wqe;

	if (!qp->resp.srq_held)
		return 0;
	ci.wr_id = le64_to_cpu(rwqe->wr_id);
	qp->resp.srq_held = false;
	orca_soft_cq_complete(sdev, qp->recv_cq, &ci);
	orca_soft_post_event(sdev, ORCA_EQE_QP_LAST_WQE, qp->qpn);
	return 1;
}

/* ------------------------------------------------------------- passes */

/* Work for one active QP; the number of WQEs it took. */
static int orca_soft_qp_run(struct orca_soft_dev *sdev,
			    struct orca_soft_qp *qp, int budget)
{
	int n = 0;

	if (qp->resp.rd_busy)
		n = orca_soft_wire_resp_run(sdev, qp, budget);
	if (qp->state == ORCA_QPS_ERR) {
		if (orca_soft_qp_has_sq(qp))
			n += orca_soft_flush_wq(sdev, qp, &qp->sq, true,
						budget);
		if (orca_soft_qp_has_rq(qp))
			n += orca_soft_flush_wq(sdev, qp, &qp->rq, false,
						budget);
		else if (qp->srq)
			n += orca_soft_flush_held(sdev, qp);
		return n;
	}
	if (!orca_soft_qp_has_sq(qp))
		return n;
	/* SQD: the WQEs in progress on the wire finish (orca_soft_sq_run). */
	if ((qp->state != ORCA_QPS_RTS && qp->state != ORCA_QPS_SQD) ||
	    qp->req.wait != ORCA_SOFT_WAIT_NONE)
		return n;
	n += orca_soft_sq_run(sdev, qp, budget);
	orca_soft_sqd_check(sdev, qp);
	return n;
}

static void orca_soft_kick_one(struct orca_soft_dev *sdev, u32 entry)
{
	struct orca_soft_qp *qp;

	if (entry & ORCA_SOFT_KICK_CQ) {
		orca_soft_cq_doorbell(sdev, entry & ~ORCA_SOFT_KICK_CQ);
		return;
	}
	qp = orca_soft_qp_find(sdev, entry & ~ORCA_SOFT_KICK_QP_FLAGS);
	if (!qp)
		return;
	if (entry & ORCA_SOFT_KICK_ATOMIC)
		qp->kicks_atomic = true;
	/*
	 * A poster's kick that its task could not run counts as one too,
	 * and before the thread runs the WQEs it was for.
	 */
	if (entry & ORCA_SOFT_KICK_POSTER)
		orca_soft_kick_count(qp);
	orca_soft_qp_activate(sdev, qp);
}

/*
 * Kicks that come from a task that may block (the uverbs kick of a user
 * poster, typically) let that task run the engine for the kicked queue
 * itself, as a NIC would start on the doorbell write: no wake-up of the
 * engine thread and no context switch on the way.  In the shared lane if
 * the QP is eligible, else with the engine semaphore free for writing;
 * the semaphore only tried, QP locks spun for briefly (notify never
 * sleeps), and bounded by a batch.
 *
 * A QP kicked several times with no request from a peer in between (a
 * steady poster) is then also handed to the engine thread, which polls
 * its SQ with POLLING set for a while, so that the poster stops making
 * system calls (orca_soft_sq_polled()), unless the thread found no CPU
 * of its own lately (orca_soft_engine_give_back()).  Ping-pong between
 * two QPs stays inline: no third busy thread competes for the CPUs, and
 * a send has completed when the post that kicked returns (perftest's
 * latency tests with -e rely on that, as they do with rxe).
 *
 * The module parameter inline_kicks (above orca_soft_sq_polled()): 0
 * never inline; 1 inline, hand over repeatedly kicked QPs (default); 2
 * inline only (a system call for nearly every post); 3 inline, always
 * hand over.
 */

/*
 * A kick of @qp ran (the QP locked, or the engine semaphore written):
 * true if the QP should now be handed to the engine thread.  A QP kicked
 * again and again with no request from a peer in between is a steady
 * poster; one that receives between its kicks is half of a ping-pong.
 */
static bool orca_soft_kick_handover(struct orca_soft_dev *sdev,
				    struct orca_soft_qp *qp, int mode)
{
	orca_soft_kick_count(qp);
	return mode == 3 || (mode == 1 && orca_soft_steady_poster(sdev, qp));
}

/*
 * Timers, flushes, polling or received packets: the thread's job.  Read
 * with no lock held: what this task put on the lists it sees, and whoever
 * else adds to them asks the same question after it.
 */
static bool orca_soft_engine_busy(struct orca_soft_dev *sdev)
{
	return !list_empty(&sdev->eng_active) ||
	       !list_empty(&sdev->eng_waiting) ||
	       !list_empty(&sdev->eng_timers) ||
	       !skb_queue_empty_lockless(&sdev->rxq);
}

/*
 * Run @qp, whose lock is held, in the shared lane if it is eligible and
 * its peer's lock (and the peer's SRQ's) is free.  Return the WQEs
 * executed, or -1 if it did not run; *@excl says whether the exclusive
 * holders must look at it (not eligible, or a WQE the lane leaves), not
 * when the peer or its SRQ was only busy in another lane.
 */
static int orca_soft_lane_run(struct orca_soft_dev *sdev,
			      struct orca_soft_qp *qp, int budget, bool *excl)
{
	struct orca_soft_qp *peer = orca_soft_req_shared_peer(sdev, qp);
	struct orca_soft_srq *srq;
	int n = -1;

	*excl = !peer;
	/* Never waits, so two lanes that each want the other's QP back off. */
	if (!peer || (peer != qp && !mutex_trylock(&peer->lock)))
		return -1;
	srq = orca_soft_req_shared_srq(sdev, qp, peer);
	if (!srq || mutex_trylock(&srq->lock)) {
		n = orca_soft_sq_run_shared(sdev, qp, peer, budget, excl);
		if (srq)
			mutex_unlock(&srq->lock);
	}
	if (peer != qp)
		mutex_unlock(&peer->lock);
	return n;
}

/*
 * How long a kick waits for a QP lock another lane holds.  Lanes hold
 * them for one bounded batch and wait for nothing meanwhile but, in a
 * kick, another QP lock in order, so the lock is normally free again
 * within a few microseconds; a kick left to the engine thread instead
 * waits for the thread's turn on a CPU, which in a ping-pong of two
 * busy-polling processes on two CPUs is milliseconds.  The kick spins
 * rather than sleeps (notify never sleeps), and gives up at once when
 * its CPU is wanted, perhaps by the holder.
 */
#define ORCA_SOFT_LOCK_SPIN_NS	50000

/* Take @lock, spinning until *@until (set on the first failure). */
static bool orca_soft_lane_spin(struct mutex *lock, u64 *until)
{
	while (!mutex_trylock(lock)) {
		u64 now = ktime_get_ns();

		if (!*until)
			*until = now + ORCA_SOFT_LOCK_SPIN_NS;
		else if (now >= *until || need_resched())
			return false;
		/* Read only, off the holder's cache line, until it is free. */
		while (mutex_is_locked(lock) && !need_resched() &&
		       ktime_get_ns() < *until)
			cpu_relax();
	}
	return true;
}

/*
 * Lock kicked @qp and its shared-lane peer, spinning for each a little
 * (orca_soft_lane_spin()).  Two kicks spin only in QPN order, lower
 * first, so they never spin for each other's lock.  Return the peer
 * with both locked, or NULL with neither (a lock stayed taken, or the
 * QP is not eligible: its state is only known under its lock).
 */
static struct orca_soft_qp *orca_soft_kick_lock(struct orca_soft_dev *sdev,
						struct orca_soft_qp *qp)
{
	struct orca_soft_qp *peer;
	u64 until = 0;

	if (!orca_soft_lane_spin(&qp->lock, &until))
		return NULL;
	peer = orca_soft_req_shared_peer(sdev, qp);
	if (!peer)
		goto unlock;
	if (peer == qp || mutex_trylock(&peer->lock))
		return peer;
	if (peer->qpn > qp->qpn) {
		if (orca_soft_lane_spin(&peer->lock, &until))
			return peer;
		goto unlock;
	}
	mutex_unlock(&qp->lock);
	if (!orca_soft_lane_spin(&peer->lock, &until))
		return NULL;
	if (!orca_soft_lane_spin(&qp->lock, &until)) {
		mutex_unlock(&peer->lock);
		return NULL;
	}
	/* Its state may have changed while it was unlocked. */
	if (orca_soft_req_shared_peer(sdev, qp) == peer)
		return peer;
	mutex_unlock(&peer->lock);
unlock:
	mutex_unlock(&qp->lock);
	return NULL;
}

/*
 * The shared lane (orca_soft.h): run kicked QP @qpn with eng_rwsem held
 * for reading, the QP's lock and its local peer's (and the peer's SRQ's,
 * orca_soft_req_shared_srq()), so that tasks kicking different QPs run
 * them on their own CPUs at once.  The semaphore is not waited for, the
 * other locks only briefly.  Return false if the exclusive holders must
 * look at the QP: it is not eligible (orca_soft_req_shared_peer()), a
 * lock stayed taken, or a WQE is not for the shared lane; *@more if the
 * batch budget ran out.
 */
static bool orca_soft_kick_shared(struct orca_soft_dev *sdev, u32 qpn,
				  int mode, bool *more, bool *counted)
{
	struct orca_soft_qp *qp, *peer;
	struct orca_soft_srq *srq;
	bool excl = true;
	u64 until = 0;
	int n;

	if (!down_read_trylock(&sdev->eng_rwsem))
		return false;
	if (!READ_ONCE(sdev->enabled) || READ_ONCE(sdev->fatal))
		goto out;
	qp = orca_soft_qp_find(sdev, qpn);
	if (!qp)
		goto out;
	peer = orca_soft_kick_lock(sdev, qp);
	if (!peer)
		goto out;
	/* Taken after the QP locks, and only tried: no order to keep. */
	srq = orca_soft_req_shared_srq(sdev, qp, peer);
	if (srq && !orca_soft_lane_spin(&srq->lock, &until))
		goto unlock;
	n = orca_soft_sq_run_shared(sdev, qp, peer, ORCA_SOFT_BATCH_BUDGET,
				    &excl);
	*more = orca_soft_kick_handover(sdev, qp, mode) ||
		n >= ORCA_SOFT_BATCH_BUDGET;
	*counted = true;
	if (srq)
		mutex_unlock(&srq->lock);
unlock:
	if (peer != qp)
		mutex_unlock(&peer->lock);
	mutex_unlock(&qp->lock);
out:
	up_read(&sdev->eng_rwsem);
	return !excl;
}

/*
 * Return true if the kick needs nothing more from the engine thread;
 * *@counted if it counted toward the QP's handover.  Only from a task
 * that may block (orca_soft_doorbell() checks).  The poster's task does
 * not reclaim while it holds the engine's semaphore (orca_soft.h).
 */
static bool orca_soft_kick_inline(struct orca_soft_dev *sdev, u32 entry,
				  bool *counted)
{
	int mode = READ_ONCE(inline_kicks);
	bool more = false;
	struct orca_soft_qp *qp;
	unsigned int noreclaim;

	if (!mode)
		return false;
	noreclaim = memalloc_noreclaim_save();
	/* An arm touches its CQ alone, under the CQ's lock. */
	if (entry & ORCA_SOFT_KICK_CQ) {
		if (!down_read_trylock(&sdev->eng_rwsem)) {
			memalloc_noreclaim_restore(noreclaim);
			return false;
		}
		if (READ_ONCE(sdev->enabled) && !READ_ONCE(sdev->fatal))
			orca_soft_cq_doorbell(sdev, entry & ~ORCA_SOFT_KICK_CQ);
		up_read(&sdev->eng_rwsem);
		memalloc_noreclaim_restore(noreclaim);
		return true;
	}
	if (orca_soft_kick_shared(sdev, entry, mode, &more, counted)) {
		memalloc_noreclaim_restore(noreclaim);
		/* The engine: only for what this lane left it. */
		orca_soft_engine_timer_wake(sdev);
		return !more && !READ_ONCE(sdev->eng_excl);
	}
	if (!down_write_trylock(&sdev->eng_rwsem)) {
		memalloc_noreclaim_restore(noreclaim);
		return false;
	}
	if (!READ_ONCE(sdev->enabled) || READ_ONCE(sdev->fatal))
		goto unlock;
	qp = orca_soft_qp_find(sdev, entry);
	if (qp && orca_soft_qp_run(sdev, qp, ORCA_SOFT_BATCH_BUDGET) >=
	    ORCA_SOFT_BATCH_BUDGET)
		more = true;
	if (qp && !*counted) {
		*counted = true;
		if (orca_soft_kick_handover(sdev, qp, mode))
			more = true;
	}
	orca_soft_srq_err_spread(sdev);
unlock:
	up_write(&sdev->eng_rwsem);
	memalloc_noreclaim_restore(noreclaim);
	return !more && !orca_soft_engine_busy(sdev);
}

/*
 * Notify: a QP or CQ doorbell (ORCA_SOFT_KICK_CQ | cqn).  The engine
 * thread learns from the kicks it is given how the QP's poster kicks.
 */
void orca_soft_doorbell(struct orca_soft_dev *sdev, u32 entry)
{
	bool counted = false;
	u32 how;

	if (in_task() && preemptible()) {
		if (orca_soft_kick_inline(sdev, entry, &counted))
			return;
		how = counted ? 0 : ORCA_SOFT_KICK_POSTER;
	} else {
		/* Without a preempt count every context looks atomic. */
		how = IS_ENABLED(CONFIG_PREEMPT_COUNT) ?
		      ORCA_SOFT_KICK_ATOMIC : ORCA_SOFT_KICK_POSTER;
	}
	if (!(entry & ORCA_SOFT_KICK_CQ))
		entry |= how;
	orca_soft_kick(sdev, entry);
}

/* Take the kicks queued by notify. */
static bool orca_soft_drain_kicks(struct orca_soft_dev *sdev)
{
	u32 batch[32];
	bool rescan, any = false;
	u32 n, i;

	do {
		spin_lock_irq(&sdev->kick_lock);
		rescan = sdev->kick_rescan;
		sdev->kick_rescan = false;
		for (n = 0; n < ARRAY_SIZE(batch) &&
		     sdev->kick_head != sdev->kick_tail; n++)
			batch[n] = sdev->kick_fifo[sdev->kick_head++ %
						   ORCA_SOFT_KICK_FIFO];
		spin_unlock_irq(&sdev->kick_lock);

		for (i = 0; i < n; i++)
			orca_soft_kick_one(sdev, batch[i]);
		if (rescan) {
			struct orca_soft_qp *qp;
			struct orca_soft_cq *cq;
			unsigned long idx;

			xa_for_each(&sdev->qps, idx, qp)
				orca_soft_qp_activate(sdev, qp);
			xa_for_each(&sdev->cqs, idx, cq)
				orca_soft_cq_doorbell(sdev, cq->cqn);
		}
		any |= n || rescan;
	} while (n == ARRAY_SIZE(batch));
	return any;
}

/*
 * Whether a wire deadline @due is due at @now.  A timer is judged once
 * every packet received before it was due has been taken (@oldest, the
 * arrival of the first one still queued): the answer may be waiting in
 * the receive queue.
 */
static bool orca_soft_wire_due(u64 due, u64 now, u64 oldest)
{
	return due <= now && due < oldest;
}

/*
 * @qp's timers due at @now go off (eng_rwsem written, or read and @qp's
 * lock held): the end of a local wait, the wire's deadlines (the
 * requester looks at them when it runs).  Return true if any did.
 */
static bool orca_soft_qp_timers(struct orca_soft_dev *sdev,
				struct orca_soft_qp *qp, u64 now, u64 oldest)
{
	bool waited = false, wire = false;

	lockdep_assert_held(&sdev->eng_rwsem);
	spin_lock(&sdev->eng_lock);
	if (!list_empty(&qp->wait_node) && qp->req.wait_until <= now) {
		list_del_init(&qp->wait_node);
		waited = true;
	}
	if (!list_empty(&qp->timer_node) &&
	    orca_soft_wire_due(orca_soft_wire_deadline(qp), now, oldest)) {
		list_del_init(&qp->timer_node);
		wire = true;
	}
	spin_unlock(&sdev->eng_lock);
	if (waited)
		qp->req.wait = ORCA_SOFT_WAIT_NONE;
	if (wire) {
		orca_soft_wire_timer(sdev, qp);
		/* Deadlines not due yet stay armed. */
		orca_soft_wire_arm(sdev, qp);
	}
	if (waited || wire)
		orca_soft_qp_activate(sdev, qp);
	return waited || wire;
}

/* QPs whose timer is due go back to work. */
static void orca_soft_run_timers(struct orca_soft_dev *sdev, u64 now)
{
	u64 oldest = orca_soft_net_rx_oldest(sdev);
	struct orca_soft_qp *qp, *tmp;

	list_for_each_entry_safe(qp, tmp, &sdev->eng_waiting, wait_node)
		orca_soft_qp_timers(sdev, qp, now, oldest);
	list_for_each_entry_safe(qp, tmp, &sdev->eng_timers, timer_node)
		orca_soft_qp_timers(sdev, qp, now, oldest);
}

/*
 * Whether the shared lane may let @qp's timers go off: an RC or UC QP
 * (XRC's go with the exclusive holders, as XRC does) on a device without
 * on-demand paging, whose waits for a page its faults' resolution ends.
 */
static bool orca_soft_timers_shared(struct orca_soft_dev *sdev,
				    const struct orca_soft_qp *qp)
{
	return (qp->type == ORCA_QPT_RC || qp->type == ORCA_QPT_UC) &&
	       !sdev->odp_mrs;
}

/*
 * The timers in the shared lane (the engine thread, eng_rwsem read):
 * QPs whose wait or wire deadline is due go off as in the exclusive
 * pass, each under its own lock, while kicks run other QPs.  The lists
 * are only read here, under eng_lock, to find them; each QP is judged
 * again under its lock.  *@next_timer is the thread's earliest deadline,
 * recomputed here with eng_timer_min reset, both under eng_lock, which
 * every lane that arms a deadline takes.  A QP whose lock another lane
 * holds is found again in the next pass, unless it has been due for
 * longer than a kick spins for a lock: then, as for a QP the lane may
 * not take or a packet held for the exclusive pass (perhaps the awaited
 * answer), *@excl is set.  The QPs that go on are work for the next
 * pass, not this one's: the thread naps as it did before they went off.
 */
static void orca_soft_run_timers_shared(struct orca_soft_dev *sdev,
					u64 *next_timer, bool *excl)
{
	struct orca_soft_qp *batch[ORCA_SOFT_SHARED_QPS];
	u64 due[ORCA_SOFT_SHARED_QPS];
	u64 now = ktime_get_ns(), oldest, next = U64_MAX, t;
	struct orca_soft_qp *qp;
	int i, n = 0;

	if (min(*next_timer, orca_soft_timer_min(sdev)) > now)
		return;
	if (sdev->rx_held.skb) {
		*excl = true;
		return;
	}
	oldest = orca_soft_net_rx_oldest(sdev);
	spin_lock(&sdev->eng_lock);
	atomic64_set(&sdev->eng_timer_min, (s64)U64_MAX);
	/*
	 * A QP on both lists is taken once: its lock covers both.  The
	 * deadlines are read without the QP's lock, which guards them: a
	 * lane that moves one earlier arms it under eng_lock afterwards
	 * (eng_timer_min), and each QP is judged again under its lock.
	 */
	list_for_each_entry(qp, &sdev->eng_waiting, wait_node) {
		t = qp->req.wait_until;
		next = min(next, t);
		if (t <= now && n < ARRAY_SIZE(batch)) {
			due[n] = t;
			batch[n++] = qp;
		}
	}
	list_for_each_entry(qp, &sdev->eng_timers, timer_node) {
		/* Unlocked read, judged again under the QP's lock. */
		t = data_race(orca_soft_wire_deadline(qp));
		next = min(next, t);
		if (orca_soft_wire_due(t, now, oldest) &&
		    n < ARRAY_SIZE(batch) &&
		    (list_empty(&qp->wait_node) || qp->req.wait_until > now)) {
			due[n] = t;
			batch[n++] = qp;
		}
	}
	spin_unlock(&sdev->eng_lock);
	*next_timer = next;

	/* The QPs stay alive: destroying one needs eng_rwsem written. */
	for (i = 0; i < n; i++) {
		qp = batch[i];
		if (!orca_soft_timers_shared(sdev, qp)) {
			*excl = true;
			continue;
		}
		if (!mutex_trylock(&qp->lock)) {
			if (now - due[i] > ORCA_SOFT_LOCK_SPIN_NS)
				*excl = true;
			continue;
		}
		orca_soft_qp_timers(sdev, qp, now, oldest);
		mutex_unlock(&qp->lock);
	}
}

/* The earliest timer still armed, U64_MAX if none. */
static u64 orca_soft_next_timer(struct orca_soft_dev *sdev)
{
	struct orca_soft_qp *qp;
	u64 next = U64_MAX;

	list_for_each_entry(qp, &sdev->eng_waiting, wait_node)
		next = min(next, qp->req.wait_until);
	list_for_each_entry(qp, &sdev->eng_timers, timer_node)
		next = min(next, orca_soft_wire_deadline(qp));
	return next;
}

/* One batch: kicks, timers, then the active QPs.  Return WQEs done. */
static int orca_soft_engine_pass(struct orca_soft_dev *sdev, u64 *next_timer)
{
	struct orca_soft_qp *qp, *tmp;
	int done = 0;

	/* What the shared lane left is taken below, or stays on the lists. */
	WRITE_ONCE(sdev->eng_excl, false);
	/* Every deadline armed is on the lists: *next_timer below. */
	atomic64_set(&sdev->eng_timer_min, (s64)U64_MAX);
	if (!READ_ONCE(sdev->enabled) || READ_ONCE(sdev->fatal)) {
		/* Nothing to act on: forget the kicks and the packet in hand. */
		if (sdev->rx_held.skb)
			orca_soft_net_rx_done(&sdev->rx_held);
		spin_lock_irq(&sdev->kick_lock);
		sdev->kick_head = sdev->kick_tail;
		sdev->kick_rescan = false;
		spin_unlock_irq(&sdev->kick_lock);
		*next_timer = U64_MAX;
		return 0;
	}
	if (orca_soft_drain_kicks(sdev))
		done = 1;
	done += orca_soft_wire_rx(sdev, ORCA_SOFT_RX_BUDGET);
	orca_soft_run_timers(sdev, ktime_get_ns());
	list_for_each_entry_safe(qp, tmp, &sdev->eng_active, active_node) {
		done += orca_soft_qp_run(sdev, qp, ORCA_SOFT_QP_BUDGET);
		if (done >= ORCA_SOFT_BATCH_BUDGET)
			break;
	}
	/* Last: an SRQ may have broken in this pass too. */
	done += orca_soft_srq_err_spread(sdev);
	*next_timer = orca_soft_next_timer(sdev);
	return done;
}

/*
 * About to sleep: stop advertising polling on every active QP, then look
 * at each SQ's prod once more.  Return false if work turned up.
 */
static bool orca_soft_engine_quiesce(struct orca_soft_dev *sdev)
{
	struct orca_soft_qp *qp, *tmp;
	bool idle = true;
	u32 prod;

	list_for_each_entry(qp, &sdev->eng_active, active_node)
		orca_soft_sq_polling(sdev, qp, false);
	/* Pairs with the poster's barrier between prod and dev_flags. */
	smp_mb();
	list_for_each_entry_safe(qp, tmp, &sdev->eng_active, active_node) {
		bool work = false;

		/* A send queue that waits, or responses that do, are no work. */
		if ((qp->state == ORCA_QPS_RTS || qp->state == ORCA_QPS_ERR) &&
		    orca_soft_qp_has_sq(qp) &&
		    qp->req.wait == ORCA_SOFT_WAIT_NONE &&
		    !orca_soft_dma_read32(sdev, qp->sq.db_addr +
					  ORCA_SOFT_REC_PROD, &prod) &&
		    prod != qp->sq.cons && !qp->sq.broken)
			work = true;
		if (qp->resp.rd_busy && !qp->resp.odp_until)
			work = true;
		if (qp->state == ORCA_QPS_ERR && orca_soft_qp_has_rq(qp) &&
		    !qp->rq.broken &&
		    !orca_soft_dma_read32(sdev, qp->rq.db_addr +
					  ORCA_SOFT_REC_PROD, &prod) &&
		    prod != qp->rq.cons)
			work = true;
		if (work) {
			idle = false;
			orca_soft_qp_activate(sdev, qp);
		} else {
			list_del_init(&qp->active_node);
		}
	}
	return idle;
}

static void orca_soft_engine_sleep(struct orca_soft_dev *sdev, u64 deadline)
{
	bool empty;

	set_current_state(TASK_INTERRUPTIBLE);
	spin_lock_irq(&sdev->kick_lock);
	empty = sdev->kick_head == sdev->kick_tail && !sdev->kick_rescan &&
		skb_queue_empty_lockless(&sdev->rxq);
	/* A deadline a lane armed since the last pass (timer_wake). */
	deadline = min(deadline, orca_soft_timer_min(sdev));
	sdev->eng_sleep_until = deadline;
	sdev->eng_idle = empty;
	spin_unlock_irq(&sdev->kick_lock);
	if (empty && !kthread_should_stop()) {
		if (deadline == U64_MAX) {
			schedule();
		} else {
			ktime_t t = ns_to_ktime(deadline);

			schedule_hrtimeout_range(&t, 10 * NSEC_PER_USEC,
						 HRTIMER_MODE_ABS);
		}
	}
	__set_current_state(TASK_RUNNING);
	spin_lock_irq(&sdev->kick_lock);
	sdev->eng_idle = false;
	spin_unlock_irq(&sdev->kick_lock);
}

/*
 * The engine thread has polled for a while on a CPU another task wanted
 * too, and requesters met RNR NAKs meanwhile (eng_rwsem written).  On two
 * CPUs, ib_send_bw's client and server each busy-poll one, and the
 * thread takes its turns from them: a turn the server is off its CPU is
 * a turn it reposts no receive, so the client's next SENDs wait out an
 * RNR timer, and a turn the client is off its CPU is one it posts
 * nothing.  Polling saves the poster its system calls only where the
 * thread has a CPU of its own.  So each poster's QP the thread polls,
 * active or waiting for a timer (an RNR NAK's), goes back to its
 * poster, whose kicks then run it inline, and none is taken again for
 * ORCA_SOFT_GIVE_BACK_MS.  Without RNR NAKs the thread keeps its QPs
 * even on a shared CPU: two processes posting 64-byte WRITEs on two CPUs
 * still move more with it than by a system call each
 * (Documentation/orca-performance.rst).  The NAKs are counted
 * device-wide, so a pair that meets them gives back every poster's QP.
 * QPs the thread serves anyway keep POLLING.
 *
 * A post that saw POLLING still set is found: an active QP leaves the
 * list only when the thread quiesces, which reads prod after clearing
 * the flag, when it waits (the timer brings it back) or when it is reset
 * or destroyed; a waiting one comes back when its timer fires.
 */
static bool orca_soft_give_back_qp(struct orca_soft_dev *sdev,
				   struct orca_soft_qp *qp)
{
	if (!qp->sq_polling || qp->kicks_atomic)
		return false;
	qp->kick_repeats = 0;
	orca_soft_sq_polling(sdev, qp, false);
	return true;
}

static void orca_soft_engine_give_back(struct orca_soft_dev *sdev)
{
	struct orca_soft_qp *qp;
	bool any = false;

	if (READ_ONCE(inline_kicks) != 1)
		return;
	list_for_each_entry(qp, &sdev->eng_active, active_node)
		any |= orca_soft_give_back_qp(sdev, qp);
	list_for_each_entry(qp, &sdev->eng_waiting, wait_node)
		any |= orca_soft_give_back_qp(sdev, qp);
	if (any)
		WRITE_ONCE(sdev->handover_at, get_jiffies_64() +
			   msecs_to_jiffies(ORCA_SOFT_GIVE_BACK_MS));
}

/* The engine thread's view of its CPU (orca_soft_engine_contended()). */
struct orca_soft_contention {
	u64 since;	/* another task runnable since, 0: alone */
	u64 rnr;	/* RNR NAKs received by then */
};

/*
 * Whether another task has now been runnable on the thread's CPU for
 * ORCA_SOFT_CONTEND_NS of its polling, with RNR NAKs received meanwhile.
 */
static bool orca_soft_engine_contended(struct orca_soft_dev *sdev,
				       struct orca_soft_contention *c,
				       u64 now)
{
	u64 rnr;

	if (single_task_running()) {
		c->since = 0;
		return false;
	}
	if (!c->since) {
		c->since = now;
		c->rnr = orca_soft_dp_total(sdev, ORCA_SOFT_CNT_RNR_NAKS_RCVD);
		return false;
	}
	if (now - c->since < ORCA_SOFT_CONTEND_NS)
		return false;
	rnr = orca_soft_dp_total(sdev, ORCA_SOFT_CNT_RNR_NAKS_RCVD);
	c->since = 0;
	return rnr != c->rnr;
}

/*
 * Whether the thread polls a poster's send queue for it: an active QP
 * with POLLING advertised.  Otherwise its posters kick: a wake-up after
 * a kick that ran elsewhere, a packet or a timer would keep it polling
 * for ORCA_SOFT_SPIN_POLLS and ORCA_SOFT_SPIN_NS, on a CPU that the two
 * busy-polling processes of a ping-pong (perftest's latency tests) need,
 * and finding the WQEs their kicks are about to run.  eng_rwsem held,
 * read or written: destroying or resetting a QP takes it off the list
 * with the semaphore written.
 */
static bool orca_soft_engine_polls(struct orca_soft_dev *sdev)
{
	struct orca_soft_qp *qp;
	bool polls = false;

	lockdep_assert_held(&sdev->eng_rwsem);
	spin_lock(&sdev->eng_lock);
	list_for_each_entry(qp, &sdev->eng_active, active_node) {
		if (READ_ONCE(qp->sq_polling)) {
			polls = true;
			break;
		}
	}
	spin_unlock(&sdev->eng_lock);
	return polls;
}

/*
 * Whether the thread has polled long enough since its last work: @polls
 * from orca_soft_engine_polls() after its last empty pass, @nap the empty
 * polls enough while it polls no poster's queue.
 */
static bool orca_soft_engine_idle(u32 idle_polls, u64 idle_ns, bool polls,
				  u32 nap)
{
	if (idle_polls >= ORCA_SOFT_SPIN_POLLS && idle_ns >= ORCA_SOFT_SPIN_NS)
		return true;
	return !polls && idle_polls >= nap;
}

/*
 * Work only the exclusive pass does: kicks, a packet the shared lane
 * left, a QP a lane left in ERR (eng_excl).  Timers due are the shared
 * pass's first; it asks for this pass for those it may not run.
 */
static bool orca_soft_engine_excl_due(struct orca_soft_dev *sdev)
{
	return READ_ONCE(sdev->eng_excl) ||
	       READ_ONCE(sdev->kick_head) != READ_ONCE(sdev->kick_tail) ||
	       READ_ONCE(sdev->kick_rescan) || sdev->rx_held.skb ||
	       !READ_ONCE(sdev->enabled) || READ_ONCE(sdev->fatal);
}

/*
 * A pass of the shared lane (eng_rwsem held for reading): received
 * packets (orca_soft_wire_rx_shared()), the timers due
 * (orca_soft_run_timers_shared(), which updates *@next_timer), then the
 * first active QPs, each eligible one with its lock and its peer's,
 * while kicking tasks run others.  QPs whose lock is taken are some
 * other lane's now.  Return the packets and WQEs taken; set *@excl if a
 * packet, a timer or an active QP needs the exclusive pass (not
 * eligible, or a WQE the lane leaves).
 */
static int orca_soft_engine_shared_pass(struct orca_soft_dev *sdev,
					u64 *next_timer, bool *excl)
{
	struct orca_soft_qp *batch[ORCA_SOFT_SHARED_QPS];
	int i, ran, n = 0, done = 0;
	struct orca_soft_qp *qp;
	bool left;

	if (!READ_ONCE(sdev->enabled) || READ_ONCE(sdev->fatal)) {
		*excl = true;
		return 0;
	}
	done = orca_soft_wire_rx_shared(sdev, ORCA_SOFT_RX_BUDGET, excl);
	orca_soft_run_timers_shared(sdev, next_timer, excl);

	spin_lock(&sdev->eng_lock);
	list_for_each_entry(qp, &sdev->eng_active, active_node) {
		batch[n++] = qp;
		if (n == ARRAY_SIZE(batch))
			break;
	}
	/* The rest get their turn first next time. */
	if (n == ARRAY_SIZE(batch) &&
	    !list_is_last(&batch[n - 1]->active_node, &sdev->eng_active))
		list_rotate_to_front(batch[n - 1]->active_node.next,
				     &sdev->eng_active);
	spin_unlock(&sdev->eng_lock);

	/* The QPs stay alive: destroying one needs eng_rwsem written. */
	for (i = 0; i < n; i++) {
		qp = batch[i];
		if (!mutex_trylock(&qp->lock))
			continue;
		ran = orca_soft_lane_run(sdev, qp, ORCA_SOFT_QP_BUDGET, &left);
		if (ran > 0)
			done += ran;
		*excl |= left;
		mutex_unlock(&qp->lock);
	}
	return done;
}

/*
 * The engine thread.  While every active QP is one the shared lane may
 * run, every packet received is one it may take, and nothing else is
 * due, it works in shared passes, so that kicks of other QPs run in
 * their tasks at the same time (timers due included); any other work
 * (kicks, flushes, going to sleep) is an exclusive pass.
 */
static int orca_soft_engine_thread(void *data)
{
	struct orca_soft_dev *sdev = data;
	u64 last_work = ktime_get_ns();
	u64 next_timer = U64_MAX;
	u32 nap = ORCA_SOFT_NAP_POLLS;
	bool give_back = false;
	unsigned int noreclaim;
	bool want_excl = true;
	bool polls = true;
	u32 idle_polls = 0;
	struct orca_soft_contention contended = {};

	/*
	 * The thread holds the engine semaphore for every batch and allocates
	 * (packets) in them: it never reclaims (orca_soft.h).
	 */
	noreclaim = memalloc_noreclaim_save();
	while (!kthread_should_stop()) {
		/*
		 * Polling waits for a poster on another CPU; with one CPU
		 * it would only keep the poster (and the process polling
		 * the CQ) off it until the next tick.
		 */
		bool spin = num_online_cpus() > 1;
		u64 now = ktime_get_ns();
		bool idle, sleep = false;
		int done = 0;

		idle = !spin || orca_soft_engine_idle(idle_polls,
						      now - last_work, polls,
						      nap);
		if (!want_excl && !idle && !orca_soft_engine_excl_due(sdev)) {
			down_read(&sdev->eng_rwsem);
			done = orca_soft_engine_shared_pass(sdev, &next_timer,
							    &want_excl);
			if (!done)
				polls = orca_soft_engine_polls(sdev);
			up_read(&sdev->eng_rwsem);
			if (done) {
				last_work = ktime_get_ns();
				idle_polls = 0;
			} else {
				idle_polls++;
				cpu_relax();
			}
			if (orca_soft_engine_contended(sdev, &contended, now))
				give_back = true;
			want_excl |= give_back;
			cond_resched();
			continue;
		}

		want_excl = false;
		down_write(&sdev->eng_rwsem);
		if (give_back)
			orca_soft_engine_give_back(sdev);
		give_back = false;
		done = orca_soft_engine_pass(sdev, &next_timer);
		now = ktime_get_ns();
		/* With one CPU the thread never polls: nothing to weigh. */
		if (!done && spin)
			polls = orca_soft_engine_polls(sdev);
		if (done) {
			last_work = now;
			idle_polls = 0;
		} else if (!spin ||
			   (orca_soft_engine_idle(++idle_polls, now - last_work,
						  polls, nap) &&
			    next_timer > now + ORCA_SOFT_SPIN_NS)) {
			sleep = orca_soft_engine_quiesce(sdev);
			if (!sleep) {
				last_work = now;
				idle_polls = 0;
				nap = min_t(u32, 2 * nap, ORCA_SOFT_SPIN_POLLS);
			}
		}
		up_write(&sdev->eng_rwsem);

		if (sleep) {
			orca_soft_engine_sleep(sdev, next_timer);
			last_work = ktime_get_ns();
			nap = ORCA_SOFT_NAP_POLLS;
			idle_polls = 0;
			contended.since = 0;
			want_excl = true;
		} else {
			if (!done)
				cpu_relax();
			if (orca_soft_engine_contended(sdev, &contended, now))
				give_back = true;
			want_excl |= give_back;
		}
		cond_resched();
	}
	memalloc_noreclaim_restore(noreclaim);
	return 0;
}

/* ---------------------------------------------------------- diagnosis */

/* One record's prod, cons and dev_flags for the dump; ~0 if unreadable. */
static void orca_soft_dump_rec(struct orca_soft_dev *sdev,
			       const struct orca_soft_wq *wq, u32 *v)
{
	static const u32 off[] = {
		ORCA_SOFT_REC_PROD, ORCA_SOFT_REC_CONS, ORCA_SOFT_REC_FLAGS
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(off); i++) {
		if (orca_soft_dma_read32(sdev, wq->db_addr + off[i], &v[i]))
			v[i] = ~0U;
	}
}

#define ORCA_SOFT_DUMP_QPS	64

/*
 * Log the engine's state and that of each QP (the first
 * ORCA_SOFT_DUMP_QPS), for a test that saw a queue stop: which list each
 * QP is on, what it waits for, and its records as the host wrote them.
 * The QPs are only looked at with the engine semaphore held for writing;
 * if it cannot be had within two seconds (something holds it), only the
 * engine's own fields are logged.
 */
void orca_soft_engine_dump(struct orca_soft_dev *sdev)
{
	u64 now = ktime_get_ns();
	struct orca_soft_qp *qp;
	unsigned long idx;
	int tries, n = 0;
	u32 sq[3], rq[3];

	spin_lock_irq(&sdev->kick_lock);
	pr_info("orca_soft%u: engine: %s, kicks %u queued, rescan %d, rx %u packets, excl %d, enabled %d, fatal %d\n",
		sdev->id, sdev->eng_idle ? "asleep" : "awake",
		sdev->kick_tail - sdev->kick_head, sdev->kick_rescan,
		skb_queue_len(&sdev->rxq), READ_ONCE(sdev->eng_excl),
		READ_ONCE(sdev->enabled), READ_ONCE(sdev->fatal));
	spin_unlock_irq(&sdev->kick_lock);

	for (tries = 0; !down_write_trylock(&sdev->eng_rwsem); tries++) {
		if (tries == 100) {
			pr_info("orca_soft%u: engine semaphore held for 2 s: QPs not dumped\n",
				sdev->id);
			return;
		}
		msleep(20);
	}
	xa_for_each(&sdev->qps, idx, qp) {
		if (n++ == ORCA_SOFT_DUMP_QPS) {
			pr_info("orca_soft%u: more QPs not dumped\n", sdev->id);
			break;
		}
		memset(sq, 0, sizeof(sq));
		memset(rq, 0, sizeof(rq));
		if (orca_soft_qp_has_sq(qp))
			orca_soft_dump_rec(sdev, &qp->sq, sq);
		if (orca_soft_qp_has_rq(qp))
			orca_soft_dump_rec(sdev, &qp->rq, rq);
		pr_info("orca_soft%u: qp %u type %u state %u%s%s%s%s wait %u in %lld ms rd_busy %d kicks %u sq %u/%u/%#x cons %u%s%s rq %u/%u/%#x cons %u%s\n",
			sdev->id, qp->qpn, qp->type, qp->state,
			list_empty(&qp->active_node) ? "" : " active",
			list_empty(&qp->wait_node) ? "" : " waiting",
			list_empty(&qp->timer_node) ? "" : " timers",
			list_empty(&qp->resp.ack_node) ? "" : " acks",
			qp->req.wait,
			qp->req.wait == ORCA_SOFT_WAIT_NONE ? 0LL :
			(s64)(qp->req.wait_until - now) / NSEC_PER_MSEC,
			qp->resp.rd_busy, qp->kick_repeats,
			sq[0], sq[1], sq[2], qp->sq.cons,
			qp->sq_polling ? " polling" : "",
			qp->sq.broken ? " broken" : "",
			rq[0], rq[1], rq[2], qp->rq.cons,
			qp->rq.broken ? " broken" : "");
	}
	up_write(&sdev->eng_rwsem);
}

/* ------------------------------------------------------------ lifetime */

void orca_soft_engine_init(struct orca_soft_dev *sdev)
{
	init_rwsem(&sdev->eng_rwsem);
	spin_lock_init(&sdev->eng_lock);
	sdev->handover_at = get_jiffies_64();
	spin_lock_init(&sdev->kick_lock);
	spin_lock_init(&sdev->ceq_lock);
	INIT_LIST_HEAD(&sdev->eng_active);
	INIT_LIST_HEAD(&sdev->eng_waiting);
	INIT_LIST_HEAD(&sdev->eng_timers);
	INIT_LIST_HEAD(&sdev->eng_acks);
	atomic64_set(&sdev->eng_timer_min, (s64)U64_MAX);
	sdev->eng_sleep_until = U64_MAX;
	skb_queue_head_init(&sdev->rxq);
	sdev->gid_gen = 1;
}

int orca_soft_engine_start(struct orca_soft_dev *sdev)
{
	struct task_struct *task;

	task = kthread_create(orca_soft_engine_thread, sdev, "orca_soft%u_eng",
			      sdev->id);
	if (IS_ERR(task))
		return PTR_ERR(task);
	spin_lock_irq(&sdev->kick_lock);
	sdev->eng_task = task;
	spin_unlock_irq(&sdev->kick_lock);
	wake_up_process(task);
	return 0;
}

void orca_soft_engine_stop(struct orca_soft_dev *sdev)
{
	struct task_struct *task;

	spin_lock_irq(&sdev->kick_lock);
	task = sdev->eng_task;
	sdev->eng_task = NULL;
	sdev->eng_idle = false;
	spin_unlock_irq(&sdev->kick_lock);
	if (task)
		kthread_stop(task);
}
