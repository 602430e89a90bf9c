// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca HCA driver: the async event queue and the device interrupt.
 *
 * Vector 0 signals both admin completions and async events.  The async
 * event queue is armed by writing its consumer index with the ARM bit;
 * the device raises the vector once for the next event after an arm, so
 * the handler consumes everything valid and re-arms at the end.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>

#include "orca.h"
#include "orca_ring.h"

static size_t orca_aeq_bytes(struct orca_eq *eq)
{
	return orca_ring_depth(eq->log2_depth) * ORCA_EQE_SIZE;
}

int orca_aeq_init(struct orca_dev *dev)
{
	struct orca_eq *eq = &dev->aeq;

	eq->log2_depth = ORCA_AEQ_LOG2_DEPTH;
	eq->cons = 0;
	eq->ring = dma_alloc_coherent(dev->dmadev, orca_aeq_bytes(eq),
				      &eq->dma, GFP_KERNEL);
	return eq->ring ? 0 : -ENOMEM;
}

void orca_aeq_destroy(struct orca_dev *dev)
{
	struct orca_eq *eq = &dev->aeq;

	dma_free_coherent(dev->dmadev, orca_aeq_bytes(eq), eq->ring, eq->dma);
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

static void orca_handle_eqe(struct orca_dev *dev, u8 type, u64 data)
{
	switch (type) {
	case ORCA_EQE_PORT_CHANGE:
		spin_lock(&dev->state_lock);
		if (dev->events_enabled)
			schedule_work(&dev->port_work);
		spin_unlock(&dev->state_lock);
		break;
	default:
		dev_warn_ratelimited(orca_device(dev),
				     "unknown async event type 0x%x (data 0x%llx)\n",
				     type, data);
		break;
	}
}

static void orca_aeq_process(struct orca_dev *dev)
{
	struct orca_eq *eq = &dev->aeq;

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
		orca_handle_eqe(dev, FIELD_GET(ORCA_EQE_TYPE, info),
				le64_to_cpu(eqe->data));
		eq->cons++;
	}
	orca_aeq_arm(dev);
}

irqreturn_t orca_async_irq_handler(int irq, void *data)
{
	struct orca_dev *dev = data;

	orca_admin_process_completions(dev);
	orca_aeq_process(dev);
	return IRQ_HANDLED;
}

/* Port state changed: ask the device, and tell ib_core what changed. */
void orca_port_work(struct work_struct *work)
{
	struct orca_dev *dev = container_of(work, struct orca_dev, port_work);
	struct orca_hw_port_attr hw;
	struct ib_port_attr attr = {};
	struct ib_event event = {};
	bool changed;

	if (orca_cmd_query_port(dev, ORCA_PORT_NUM, &hw))
		return;
	if (orca_port_attr_to_ib(&hw, &attr))
		return;

	spin_lock_irq(&dev->state_lock);
	changed = dev->events_enabled && attr.state != dev->port_state;
	if (changed)
		dev->port_state = attr.state;
	spin_unlock_irq(&dev->state_lock);
	if (!changed)
		return;

	event.device = &dev->ibdev;
	event.element.port_num = ORCA_PORT_NUM;
	event.event = attr.state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
						     IB_EVENT_PORT_ERR;
	ib_dispatch_event(&event);
}
