// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca HCA driver: the async event queue, the completion event queues
 * and the device interrupts.
 *
 * Vector 0 signals both admin completions and async events; each other
 * vector carries one completion EQ (CREATE_EQ at probe).  The async
 * event queue is armed by writing its consumer index with the ARM bit;
 * the device raises the vector once for the next event after an arm, so
 * the handler consumes everything valid and re-arms at the end.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>

#include "orca.h"
#include "orca_ring.h"

static size_t orca_eq_bytes(struct orca_eq *eq)
{
	return orca_ring_depth(eq->log2_depth) * ORCA_EQE_SIZE;
}

int orca_aeq_init(struct orca_dev *dev)
{
	struct orca_eq *eq = &dev->aeq;

	eq->log2_depth = ORCA_AEQ_LOG2_DEPTH;
	eq->cons = 0;
	eq->ring = dma_alloc_coherent(dev->dmadev, orca_eq_bytes(eq),
				      &eq->dma, GFP_KERNEL);
	return eq->ring ? 0 : -ENOMEM;
}

void orca_aeq_destroy(struct orca_dev *dev)
{
	struct orca_eq *eq = &dev->aeq;

	dma_free_coherent(dev->dmadev, orca_eq_bytes(eq), eq->ring, eq->dma);
}

/* Tell the device where the ring is.  The device must be disabled. */
void orca_aeq_program(struct orca_dev *dev)
{
	struct orca_eq *eq = &dev->aeq;

	orca_reg_write(dev, ORCA_REG_AEQ_BASE_LO, lower_32_bits(eq->dma));
	orca_reg_write(dev, ORCA_REG_AEQ_BASE_HI, upper_32_bits(eq->dma));
	orca_reg_write(dev, ORCA_REG_AEQ_CFG,
		       FIELD_PREP(ORCA_AEQ_CFG_LOG2_DEPTH, eq->log2_depth) |
		       FIELD_PREP(ORCA_AEQ_CFG_VECTOR, 0));
}

void orca_aeq_arm(struct orca_dev *dev)
{
	orca_reg_write(dev, ORCA_REG_AEQ_DB,
		       FIELD_PREP(ORCA_AEQ_DB_CONS_IDX,
				  dev->aeq.cons & ORCA_AEQ_DB_CONS_IDX) |
		       ORCA_AEQ_DB_ARM);
}

static struct ib_qp *orca_event_qp_locked(struct orca_dev *dev, u32 qpn)
{
	struct orca_qp *qp = xa_load(&dev->qp_xa, qpn);

	return qp ? &qp->ibqp : NULL;
}

/*
 * Deliver an affiliated async event to the object's ib_core handler.  The
 * lookup and the call happen under the xarray lock: destroy erases the
 * object first, so a handler never runs for an object being freed.
 */
static void orca_dispatch_affiliated(struct orca_dev *dev, u8 type, u32 num)
{
	struct ib_event event = { .device = &dev->ibdev };
	unsigned long flags;

	switch (type) {
	case ORCA_EQE_QP_FATAL:
	case ORCA_EQE_QP_REQ_ERR:
	case ORCA_EQE_QP_ACCESS_ERR:
	case ORCA_EQE_QP_LAST_WQE:
	case ORCA_EQE_QP_SQ_DRAINED:
	case ORCA_EQE_QP_COMM_EST: {
		struct ib_qp *ibqp;

		switch (type) {
		case ORCA_EQE_QP_FATAL:
			event.event = IB_EVENT_QP_FATAL;
			break;
		case ORCA_EQE_QP_REQ_ERR:
			event.event = IB_EVENT_QP_REQ_ERR;
			break;
		case ORCA_EQE_QP_ACCESS_ERR:
			event.event = IB_EVENT_QP_ACCESS_ERR;
			break;
		case ORCA_EQE_QP_LAST_WQE:
			event.event = IB_EVENT_QP_LAST_WQE_REACHED;
			break;
		case ORCA_EQE_QP_SQ_DRAINED:
			event.event = IB_EVENT_SQ_DRAINED;
			break;
		default:
			event.event = IB_EVENT_COMM_EST;
			break;
		}
		xa_lock_irqsave(&dev->qp_xa, flags);
		ibqp = orca_event_qp_locked(dev, num);
		if (ibqp && ibqp->event_handler) {
			event.element.qp = ibqp;
			ibqp->event_handler(&event, ibqp->qp_context);
		}
		xa_unlock_irqrestore(&dev->qp_xa, flags);
		break;
	}
	case ORCA_EQE_CQ_ERR: {
		struct orca_cq *cq;

		event.event = IB_EVENT_CQ_ERR;
		xa_lock_irqsave(&dev->cq_xa, flags);
		cq = xa_load(&dev->cq_xa, num);
		if (cq && cq->ibcq.event_handler) {
			event.element.cq = &cq->ibcq;
			cq->ibcq.event_handler(&event, cq->ibcq.cq_context);
		}
		xa_unlock_irqrestore(&dev->cq_xa, flags);
		break;
	}
	case ORCA_EQE_SRQ_LIMIT:
	case ORCA_EQE_SRQ_ERR: {
		struct orca_srq *srq;

		event.event = type == ORCA_EQE_SRQ_LIMIT ?
			      IB_EVENT_SRQ_LIMIT_REACHED : IB_EVENT_SRQ_ERR;
		xa_lock_irqsave(&dev->srq_xa, flags);
		srq = xa_load(&dev->srq_xa, num);
		if (srq && srq->ibsrq.event_handler) {
			event.element.srq = &srq->ibsrq;
			srq->ibsrq.event_handler(&event,
						 srq->ibsrq.srq_context);
		}
		xa_unlock_irqrestore(&dev->srq_xa, flags);
		break;
	}
	}
}

/*
 * PORT_CHANGE carries the port's state when the device posted it.  Queue
 * it for port_work, which tells ib_core of each change in order: a flap
 * (down then up before the work runs) is two events, not none.  A full
 * queue keeps the newest state in its last slot.
 */
static int orca_port_event(struct orca_dev *dev, u64 data)
{
	enum ib_port_state state;
	u8 tail;

	if (FIELD_GET(ORCA_EQE_PORT_NUM, data) != ORCA_PORT_NUM ||
	    (data & ORCA_EQE_PORT_RSVD))
		return -EINVAL;
	switch (FIELD_GET(ORCA_EQE_PORT_STATE, data)) {
	case ORCA_PORT_ACTIVE:
		state = IB_PORT_ACTIVE;
		break;
	case ORCA_PORT_DOWN:
		state = IB_PORT_DOWN;
		break;
	default:
		return -EINVAL;
	}

	spin_lock(&dev->state_lock);
	if (dev->events_enabled) {
		if (dev->port_q_len < ORCA_PORT_Q_LEN)
			dev->port_q_len++;
		tail = (dev->port_q_head + dev->port_q_len - 1) %
		       ORCA_PORT_Q_LEN;
		dev->port_q[tail] = state;
		schedule_work(&dev->port_work);
	}
	spin_unlock(&dev->state_lock);
	return 0;
}

static void orca_handle_eqe(struct orca_dev *dev, u32 info, u64 data, u32 aux)
{
	u8 type = FIELD_GET(ORCA_EQE_TYPE, info);

	switch (type) {
	case ORCA_EQE_PORT_CHANGE:
		if (orca_port_event(dev, data))
			goto bad;
		break;
	case ORCA_EQE_ODP_FAULT:
		/* Queued for the fault work (orca_odp.c). */
		if (orca_odp_event(dev, data, aux,
				   FIELD_GET(ORCA_EQE_ODP_EPOCH, info)))
			goto bad;
		break;
	case ORCA_EQE_QP_FATAL:
	case ORCA_EQE_QP_REQ_ERR:
	case ORCA_EQE_QP_ACCESS_ERR:
	case ORCA_EQE_QP_LAST_WQE:
	case ORCA_EQE_QP_SQ_DRAINED:
	case ORCA_EQE_QP_COMM_EST:
	case ORCA_EQE_CQ_ERR:
	case ORCA_EQE_SRQ_LIMIT:
	case ORCA_EQE_SRQ_ERR:
		if (data > U32_MAX)
			goto bad;
		orca_dispatch_affiliated(dev, type, data);
		break;
	default:
		goto bad;
	}
	return;
bad:
	dev_warn_ratelimited(orca_device(dev),
			     "unexpected async event type 0x%x (data 0x%llx aux 0x%x info 0x%x)\n",
			     type, data, aux, info);
}

/* Consume every valid entry of @eq, handing each (its info word too) to @handle. */
static void orca_eq_consume(struct orca_dev *dev, struct orca_eq *eq,
			    void (*handle)(struct orca_dev *dev, u32 info,
					   u64 data, u32 aux))
{
	for (;;) {
		struct orca_eqe *eqe;
		u32 info;

		eqe = &eq->ring[orca_ring_slot(eq->cons, eq->log2_depth)];
		info = le32_to_cpu(READ_ONCE(eqe->info));
		if (FIELD_GET(ORCA_EQE_PHASE, info) !=
		    orca_ring_phase(eq->cons, eq->log2_depth))
			break;
		/* Read the entry only after its owner bit. */
		dma_rmb();
		handle(dev, info, le64_to_cpu(eqe->data),
		       le32_to_cpu(eqe->aux));
		eq->cons++;
	}
}

static void orca_aeq_process(struct orca_dev *dev)
{
	orca_eq_consume(dev, &dev->aeq, orca_handle_eqe);
	orca_aeq_arm(dev);
}

irqreturn_t orca_async_irq_handler(int irq, void *data)
{
	struct orca_dev *dev = data;

	orca_admin_process_completions(dev);
	orca_aeq_process(dev);
	return IRQ_HANDLED;
}

/* Tell ib_core that the port is now in @state, if that is news. */
static void orca_port_note(struct orca_dev *dev, enum ib_port_state state)
{
	struct ib_event event = {};
	bool changed;

	spin_lock_irq(&dev->state_lock);
	changed = dev->events_enabled && state != dev->port_state;
	if (changed)
		dev->port_state = state;
	spin_unlock_irq(&dev->state_lock);
	if (!changed)
		return;

	event.device = &dev->ibdev;
	event.element.port_num = ORCA_PORT_NUM;
	event.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
						IB_EVENT_PORT_ERR;
	ib_dispatch_event(&event);
}

/*
 * The admin queue is dead (orca_admin_exec()): the device can no longer
 * be managed, so it is fatal for its users, as a device reporting a
 * catastrophic error would be.  Every user gets IB_EVENT_DEVICE_FATAL;
 * their objects go as they close them (a DESTROY fails at once, and
 * memory the device may still touch waits for its disable), and nothing
 * new can be made.
 */
void orca_fatal_work(struct work_struct *work)
{
	struct orca_dev *dev = container_of(work, struct orca_dev, fatal_work);
	struct ib_event event = {
		.device = &dev->ibdev,
		.event = IB_EVENT_DEVICE_FATAL,
	};
	bool tell;

	spin_lock_irq(&dev->state_lock);
	tell = dev->events_enabled;
	spin_unlock_irq(&dev->state_lock);
	if (!tell)
		return;
	ibdev_err(&dev->ibdev,
		  "the admin queue is dead: device fatal, users told\n");
	ib_dispatch_event(&event);
}

/* Tell ib_core of each queued port state change, oldest first. */
void orca_port_work(struct work_struct *work)
{
	struct orca_dev *dev = container_of(work, struct orca_dev, port_work);
	enum ib_port_state state;
	bool resync;

	spin_lock_irq(&dev->state_lock);
	/* Queued events end with the current state: no query needed. */
	resync = dev->port_resync && !dev->port_q_len;
	dev->port_resync = false;
	spin_unlock_irq(&dev->state_lock);
	if (resync) {
		struct orca_hw_port_attr hw;
		struct ib_port_attr attr = {};

		if (!orca_cmd_query_port(dev, ORCA_PORT_NUM, &hw) &&
		    !orca_port_attr_to_ib(&hw, &attr))
			orca_port_note(dev, attr.state);
	}

	for (;;) {
		spin_lock_irq(&dev->state_lock);
		if (!dev->port_q_len) {
			spin_unlock_irq(&dev->state_lock);
			break;
		}
		state = dev->port_q[dev->port_q_head];
		dev->port_q_head = (dev->port_q_head + 1) % ORCA_PORT_Q_LEN;
		dev->port_q_len--;
		spin_unlock_irq(&dev->state_lock);
		orca_port_note(dev, state);
	}
}

/* A completion event: call the CQ's completion handler. */
static void orca_handle_ceqe(struct orca_dev *dev, u32 info, u64 data, u32 aux)
{
	u8 type = FIELD_GET(ORCA_EQE_TYPE, info);
	struct orca_cq *cq = NULL;
	unsigned long flags;

	if (type != ORCA_EQE_COMP || data > U32_MAX) {
		dev_warn_ratelimited(orca_device(dev),
				     "unexpected completion event type 0x%x (data 0x%llx)\n",
				     type, data);
		return;
	}
	xa_lock_irqsave(&dev->cq_xa, flags);
	cq = xa_load(&dev->cq_xa, data);
	if (cq) {
		/*
		 * The arm fired: the next one may take a new SEQ.  Under the
		 * CQ's lock, as orca_req_notify_cq() reads and clears the
		 * mark: a mark set between its read and its clear would be
		 * lost, every later arm would reuse the SEQ the device
		 * already fired, and the CQ would never signal again.
		 */
		spin_lock(&cq->lock);
		cq->arm_fired = true;
		spin_unlock(&cq->lock);
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	}
	xa_unlock_irqrestore(&dev->cq_xa, flags);
}

/*
 * Let the device raise @ceq's vector again: it consumed up to cons, and
 * the device signals the next entry (at once if one is already there).
 */
static void orca_ceq_arm(struct orca_ceq *ceq)
{
	orca_reg_write(ceq->dev, ORCA_REG_EQ_DB,
		       FIELD_PREP(ORCA_EQ_DB_EQN, ceq->eqn) |
		       FIELD_PREP(ORCA_EQ_DB_CONS_IDX,
				  ceq->eq.cons & ORCA_EQ_DB_CONS_IDX) |
		       ORCA_EQ_DB_ARM);
}

/*
 * Completion vectors.  The device raises a completion EQ's vector once
 * per arm of the EQ doorbell (and a CQ produces at most one entry per arm
 * of its own arm word): consume everything valid, call each CQ's
 * completion handler, then re-arm with the new consumer index.  The
 * handler runs under the CQ xarray's lock, which destroy_cq takes to
 * unpublish the CQ: once that returned, no handler runs for it.
 */
static irqreturn_t orca_ceq_irq_handler(int irq, void *data)
{
	struct orca_ceq *ceq = data;

	orca_eq_consume(ceq->dev, &ceq->eq, orca_handle_ceqe);
	orca_ceq_arm(ceq);
	return IRQ_HANDLED;
}

/*
 * Create one completion EQ per interrupt vector 1..num_vectors-1.  A
 * device that does not implement CREATE_EQ gets none: CQs then cannot be
 * created.
 */
int orca_ceqs_create(struct orca_dev *dev)
{
	u32 caps = orca_reg_read(dev, ORCA_REG_CAPS);
	u8 log2_depth = min_t(u32, ORCA_CEQ_LOG2_DEPTH,
			      FIELD_GET(ORCA_CAPS_EQ_MAX_LOG2, caps));
	unsigned int n = dev->num_vectors - 1;
	unsigned int i;
	int ret;

	dev->num_ceqs = 0;
	if (!n)
		return 0;
	dev->ceqs = kcalloc(n, sizeof(*dev->ceqs), GFP_KERNEL);
	if (!dev->ceqs)
		return -ENOMEM;

	for (i = 0; i < n; i++) {
		struct orca_ceq *ceq = &dev->ceqs[i];

		ceq->dev = dev;
		ceq->vector = i + 1;
		ceq->irq = dev->bdev->irqs[ceq->vector];
		ceq->eq.log2_depth = log2_depth;
		ceq->eq.cons = 0;
		ceq->eq.ring = dma_alloc_coherent(dev->dmadev,
						  orca_eq_bytes(&ceq->eq),
						  &ceq->eq.dma, GFP_KERNEL);
		if (!ceq->eq.ring) {
			ret = -ENOMEM;
			goto err;
		}
		dev->num_ceqs++;

		ret = request_irq(ceq->irq, orca_ceq_irq_handler, 0,
				  dev_name(&dev->bdev->adev.dev), ceq);
		if (ret)
			goto err;
		ceq->irq_requested = true;

		ret = orca_cmd_create_eq(dev, ceq->eq.dma, log2_depth,
					 ceq->vector, &ceq->eqn);
		if (ret == -EOPNOTSUPP && i == 0) {
			dev_warn(orca_device(dev),
				 "device has no completion EQs; CQs are unavailable\n");
			orca_ceqs_destroy(dev);
			return 0;
		}
		if (ret) {
			dev_err(orca_device(dev),
				"CREATE_EQ on vector %u failed: %d\n",
				ceq->vector, ret);
			/*
			 * Unanswered, it may still create the EQ; answered
			 * with an unusable EQN, it made one: either way keep
			 * the ring until the device stops (the DESTROY_EQ
			 * that follows fails, and leaves it created).
			 */
			if (orca_admin_effect_unknown(dev, ret))
				ceq->created = true;
			goto err;
		}
		ceq->created = true;
		if (ceq->eqn > FIELD_MAX(ORCA_EQ_DB_EQN)) {
			dev_err(orca_device(dev),
				"completion EQ number %u has no doorbell\n",
				ceq->eqn);
			ret = -EIO;
			goto err;
		}
		orca_ceq_arm(ceq);
	}
	return 0;

err:
	orca_ceqs_destroy(dev);
	return ret;
}

/*
 * Destroy the completion EQs and free their interrupts.  The rings are
 * freed only if the device confirmed the destroy; orca_ceqs_free() frees
 * the others once the device is disabled.
 */
void orca_ceqs_destroy(struct orca_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->num_ceqs; i++) {
		struct orca_ceq *ceq = &dev->ceqs[i];

		if (ceq->created) {
			int ret = orca_cmd_destroy_eq(dev, ceq->eqn);

			if (ret)
				dev_warn(orca_device(dev),
					 "DESTROY_EQ %u failed: %d\n",
					 ceq->eqn, ret);
			else
				ceq->created = false;
		}
		if (ceq->irq_requested) {
			free_irq(ceq->irq, ceq);
			ceq->irq_requested = false;
		}
	}
	orca_ceqs_free(dev, false);
}

/* Free the rings the device no longer writes (all, once it stopped). */
void orca_ceqs_free(struct orca_dev *dev, bool device_stopped)
{
	unsigned int i;
	bool all = true;

	for (i = 0; i < dev->num_ceqs; i++) {
		struct orca_ceq *ceq = &dev->ceqs[i];

		if (!ceq->eq.ring)
			continue;
		if (ceq->created && !device_stopped) {
			all = false;
			continue;
		}
		dma_free_coherent(dev->dmadev, orca_eq_bytes(&ceq->eq),
				  ceq->eq.ring, ceq->eq.dma);
		ceq->eq.ring = NULL;
		ceq->created = false;
	}
	if (all) {
		kfree(dev->ceqs);
		dev->ceqs = NULL;
		dev->num_ceqs = 0;
	}
}
