// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: register block, device enable/disable, DMA access, the async
 * event queue and interrupt delivery.
 *
 * The register block is ordinary memory handed to the driver as its
 * __iomem BAR.  A write the device must act on is followed by the bus
 * notify hook, which lands in orca_soft_notify() with the value written:
 * control and admin doorbell writes schedule the control work (an ordered
 * workqueue); QP and CQ doorbells are queued for the data-path engine
 * thread (orca_soft_engine.c); the event queue doorbells are handled at
 * once, because the driver rings them from its interrupt handler.
 *
 * The device reaches host memory only through DMA addresses, which it
 * translates to pages the way the DMA API mapped them for its parent.
 */

#include <linux/bitfield.h>
#include <linux/dma-direct.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/sched/mm.h>

#include "orca_ring.h"
#include "orca_soft.h"

/*
 * Fault injection for tests: a device whose admin processor stops
 * answering.  The driver must time out, declare its admin queue dead and
 * fail every later command without hanging.
 */
static bool fault_stall_admin;
module_param(fault_stall_admin, bool, 0644);
MODULE_PARM_DESC(fault_stall_admin,
		 "Test only: stop executing admin commands (default off)");

u32 orca_soft_reg_read(struct orca_soft_dev *sdev, u32 reg)
{
	return readl(sdev->bdev.regs + reg);
}

void orca_soft_reg_write(struct orca_soft_dev *sdev, u32 reg, u32 val)
{
	writel(val, sdev->bdev.regs + reg);
}

void orca_soft_regs_init(struct orca_soft_dev *sdev)
{
	orca_soft_reg_write(sdev, ORCA_REG_ID, ORCA_ID_MAGIC);
	orca_soft_reg_write(sdev, ORCA_REG_VERSION,
			    FIELD_PREP(ORCA_VERSION_MAJOR,
				       ORCA_IFACE_VERSION_MAJOR) |
			    FIELD_PREP(ORCA_VERSION_MINOR,
				       ORCA_IFACE_VERSION_MINOR));
	orca_soft_reg_write(sdev, ORCA_REG_CAPS,
			    FIELD_PREP(ORCA_CAPS_NUM_VECTORS,
				       ORCA_SOFT_NUM_VECTORS) |
			    FIELD_PREP(ORCA_CAPS_AQ_MAX_LOG2,
				       ORCA_SOFT_AQ_MAX_LOG2) |
			    FIELD_PREP(ORCA_CAPS_EQ_MAX_LOG2,
				       ORCA_SOFT_EQ_MAX_LOG2));
	orca_soft_reg_write(sdev, ORCA_REG_CTRL, 0);
	orca_soft_reg_write(sdev, ORCA_REG_STATUS, 0);
}

/* ------------------------------------------------------------------ DMA */

static int orca_soft_dma_xfer(struct orca_soft_dev *sdev, u64 addr,
			      void *buf, size_t len, bool to_host)
{
	while (len) {
		phys_addr_t phys = dma_to_phys(sdev_dev(sdev), addr);
		unsigned long pfn = PHYS_PFN(phys);
		size_t off = offset_in_page(phys);
		size_t chunk = min_t(size_t, len, PAGE_SIZE - off);

		if (!pfn_valid(pfn))
			return -EFAULT;
		if (to_host)
			memcpy_to_page(pfn_to_page(pfn), off, buf, chunk);
		else
			memcpy_from_page(buf, pfn_to_page(pfn), off, chunk);
		addr += chunk;
		buf += chunk;
		len -= chunk;
	}
	return 0;
}

int orca_soft_dma_read(struct orca_soft_dev *sdev, u64 addr, void *buf,
		       size_t len)
{
	return orca_soft_dma_xfer(sdev, addr, buf, len, false);
}

int orca_soft_dma_write(struct orca_soft_dev *sdev, u64 addr,
			const void *buf, size_t len)
{
	return orca_soft_dma_xfer(sdev, addr, (void *)buf, len, true);
}

/*
 * A single, untorn 32-bit store: used for the word that carries an owner
 * bit, after the rest of the entry has been written.
 */
int orca_soft_dma_write32(struct orca_soft_dev *sdev, u64 addr, u32 val)
{
	phys_addr_t phys = dma_to_phys(sdev_dev(sdev), addr);
	unsigned long pfn = PHYS_PFN(phys);
	__le32 *p;
	void *va;

	if (!IS_ALIGNED(addr, sizeof(u32)) || !pfn_valid(pfn))
		return -EFAULT;
	va = kmap_local_page(pfn_to_page(pfn));
	p = va + offset_in_page(phys);
	WRITE_ONCE(*p, cpu_to_le32(val));
	kunmap_local(va);
	return 0;
}

/* ------------------------------------------------------------ interrupts */

void orca_soft_raise_irq(struct orca_soft_dev *sdev, u8 vector)
{
	if (vector < ORCA_SOFT_NUM_VECTORS)
		irq_work_queue(&sdev->vec[vector].work);
}

void orca_soft_set_fatal(struct orca_soft_dev *sdev, const char *why)
{
	unsigned long flags;

	spin_lock_irqsave(&sdev->lock, flags);
	if (!sdev->fatal)
		dev_err(sdev_dev(sdev), "device error: %s\n", why);
	sdev->fatal = true;
	orca_soft_reg_write(sdev, ORCA_REG_STATUS,
			    orca_soft_reg_read(sdev, ORCA_REG_STATUS) |
			    ORCA_STATUS_FATAL);
	spin_unlock_irqrestore(&sdev->lock, flags);
}

/* ----------------------------------------------------- async event queue */

static u32 orca_soft_aeq_used(struct orca_soft_dev *sdev)
{
	return (sdev->aeq_prod - sdev->aeq_cons) & ORCA_AEQ_DB_CONS_IDX;
}

/*
 * An event whose type carries a word in the entry's aux field too, and
 * maybe bits of info besides TYPE and PHASE (@info: ODP_FAULT's EPOCH).
 */
void orca_soft_post_event_aux(struct orca_soft_dev *sdev, u8 type, u64 data,
			      u32 aux, u32 info)
{
	struct orca_eqe eqe = {};
	unsigned long flags;
	u64 addr;

	/* The caller's bits are type-specific: never TYPE or PHASE. */
	if (WARN_ON_ONCE(info & (ORCA_EQE_TYPE | ORCA_EQE_PHASE)))
		info &= ~(ORCA_EQE_TYPE | ORCA_EQE_PHASE);
	spin_lock_irqsave(&sdev->lock, flags);
	if (!sdev->enabled || sdev->fatal)
		goto out;
	if (orca_soft_aeq_used(sdev) >= orca_ring_depth(sdev->aeq_log2_depth)) {
		sdev->aeq_overflows++;
		goto out;
	}

	addr = sdev->aeq_base +
	       orca_ring_slot(sdev->aeq_prod, sdev->aeq_log2_depth) *
	       ORCA_EQE_SIZE;
	eqe.data = cpu_to_le64(data);
	eqe.aux = cpu_to_le32(aux);
	info |= FIELD_PREP(ORCA_EQE_TYPE, type) |
		FIELD_PREP(ORCA_EQE_PHASE,
			   orca_ring_phase(sdev->aeq_prod,
					   sdev->aeq_log2_depth));
	if (orca_soft_dma_write(sdev, addr, &eqe,
				offsetof(struct orca_eqe, info)))
		goto dma_error;
	/* The entry must be complete before its owner bit flips. */
	wmb();
	if (orca_soft_dma_write32(sdev, addr + offsetof(struct orca_eqe, info),
				  info))
		goto dma_error;
	sdev->aeq_prod++;
	sdev->counts.async_events++;
	if (sdev->aeq_armed) {
		sdev->aeq_armed = false;
		orca_soft_raise_irq(sdev, sdev->aeq_vector);
	}
out:
	spin_unlock_irqrestore(&sdev->lock, flags);
	return;

dma_error:
	spin_unlock_irqrestore(&sdev->lock, flags);
	orca_soft_set_fatal(sdev, "DMA error writing the async event queue");
}

/* Every event type but ODP_FAULT has aux 0, and info TYPE and PHASE only. */
void orca_soft_post_event(struct orca_soft_dev *sdev, u8 type, u64 data)
{
	orca_soft_post_event_aux(sdev, type, data, 0, 0);
}

/* The driver consumed events up to CONS_IDX, and may re-arm. */
static void orca_soft_aeq_doorbell(struct orca_soft_dev *sdev, u32 db)
{
	unsigned long flags;
	u32 used;

	spin_lock_irqsave(&sdev->lock, flags);
	if (!sdev->enabled || sdev->fatal)
		goto out;
	used = (sdev->aeq_prod - FIELD_GET(ORCA_AEQ_DB_CONS_IDX, db)) &
	       ORCA_AEQ_DB_CONS_IDX;
	if (used > orca_ring_depth(sdev->aeq_log2_depth)) {
		spin_unlock_irqrestore(&sdev->lock, flags);
		orca_soft_set_fatal(sdev, "async event queue consumer index out of range");
		return;
	}
	sdev->aeq_cons = FIELD_GET(ORCA_AEQ_DB_CONS_IDX, db);
	if (db & ORCA_AEQ_DB_ARM) {
		/* Events the driver has not seen yet fire at once. */
		if (used) {
			sdev->aeq_armed = false;
			orca_soft_raise_irq(sdev, sdev->aeq_vector);
		} else {
			sdev->aeq_armed = true;
		}
	}
out:
	spin_unlock_irqrestore(&sdev->lock, flags);
}

/* ------------------------------------------------------ enable / disable */

static bool orca_soft_ring_cfg_ok(u64 base, u8 log2_depth, u8 max_log2,
				  u8 vector)
{
	return base && IS_ALIGNED(base, ORCA_RING_ALIGN) && log2_depth &&
	       log2_depth <= max_log2 && vector < ORCA_SOFT_NUM_VECTORS;
}

static u64 orca_soft_reg_read64(struct orca_soft_dev *sdev, u32 lo, u32 hi)
{
	return ((u64)orca_soft_reg_read(sdev, hi) << 32) |
	       orca_soft_reg_read(sdev, lo);
}

static void orca_soft_enable(struct orca_soft_dev *sdev)
{
	u32 aq_cfg = orca_soft_reg_read(sdev, ORCA_REG_AQ_CFG);
	u32 aeq_cfg = orca_soft_reg_read(sdev, ORCA_REG_AEQ_CFG);
	unsigned long flags;

	sdev->aq_sq_base = orca_soft_reg_read64(sdev, ORCA_REG_AQ_SQ_BASE_LO,
						ORCA_REG_AQ_SQ_BASE_HI);
	sdev->aq_cq_base = orca_soft_reg_read64(sdev, ORCA_REG_AQ_CQ_BASE_LO,
						ORCA_REG_AQ_CQ_BASE_HI);
	sdev->aq_log2_depth = FIELD_GET(ORCA_AQ_CFG_LOG2_DEPTH, aq_cfg);
	sdev->aq_vector = FIELD_GET(ORCA_AQ_CFG_VECTOR, aq_cfg);
	sdev->aq_irq_en = aq_cfg & ORCA_AQ_CFG_IRQ_EN;
	sdev->aq_sq_cons = 0;
	sdev->aq_cq_prod = 0;

	if (!orca_soft_ring_cfg_ok(sdev->aq_sq_base, sdev->aq_log2_depth,
				   ORCA_SOFT_AQ_MAX_LOG2, sdev->aq_vector) ||
	    !IS_ALIGNED(sdev->aq_cq_base, ORCA_RING_ALIGN) ||
	    !sdev->aq_cq_base) {
		orca_soft_set_fatal(sdev, "invalid admin queue configuration");
		return;
	}

	spin_lock_irqsave(&sdev->lock, flags);
	sdev->aeq_base = orca_soft_reg_read64(sdev, ORCA_REG_AEQ_BASE_LO,
					      ORCA_REG_AEQ_BASE_HI);
	sdev->aeq_log2_depth = FIELD_GET(ORCA_AEQ_CFG_LOG2_DEPTH, aeq_cfg);
	sdev->aeq_vector = FIELD_GET(ORCA_AEQ_CFG_VECTOR, aeq_cfg);
	sdev->aeq_prod = 0;
	sdev->aeq_cons = 0;
	sdev->aeq_armed = false;
	if (!orca_soft_ring_cfg_ok(sdev->aeq_base, sdev->aeq_log2_depth,
				   ORCA_SOFT_EQ_MAX_LOG2, sdev->aeq_vector)) {
		spin_unlock_irqrestore(&sdev->lock, flags);
		orca_soft_set_fatal(sdev, "invalid async event queue configuration");
		return;
	}
	sdev->enabled = true;
	orca_soft_reg_write(sdev, ORCA_REG_STATUS, ORCA_STATUS_READY);
	spin_unlock_irqrestore(&sdev->lock, flags);
}

/*
 * Disabling resets the device: every object it holds is destroyed.  The
 * engine semaphore is taken first, so the data path has stopped touching
 * host memory before STATUS says the device is disabled.  No reclaim
 * while it is held (orca_soft.h).
 */
void orca_soft_disable(struct orca_soft_dev *sdev)
{
	unsigned int noreclaim = memalloc_noreclaim_save();
	unsigned long flags;

	down_write(&sdev->eng_rwsem);
	spin_lock_irqsave(&sdev->lock, flags);
	sdev->enabled = false;
	sdev->fatal = false;
	sdev->aeq_armed = false;
	/* Queue indices restart from zero on the next enable. */
	orca_soft_reg_write(sdev, ORCA_REG_AQ_SQ_DB, 0);
	orca_soft_reg_write(sdev, ORCA_REG_AEQ_DB, 0);
	orca_soft_reg_write(sdev, ORCA_REG_STATUS, 0);
	spin_unlock_irqrestore(&sdev->lock, flags);
	orca_soft_admin_reset(sdev);
	up_write(&sdev->eng_rwsem);
	memalloc_noreclaim_restore(noreclaim);
}

/*
 * The control work: enable, disable, admin commands.  The host's reclaim
 * may wait for a command this work executes (ODP_UPDATE UNMAP from an MMU
 * notifier), so the work never enters reclaim itself (orca_soft.h).
 */
void orca_soft_engine_work(struct work_struct *work)
{
	struct orca_soft_dev *sdev = container_of(work, struct orca_soft_dev,
						  engine_work);
	bool enable = orca_soft_reg_read(sdev, ORCA_REG_CTRL) & ORCA_CTRL_ENABLE;
	unsigned int noreclaim = memalloc_noreclaim_save();

	if (!enable) {
		if (sdev->enabled || sdev->fatal)
			orca_soft_disable(sdev);
		goto out;
	}
	if (!sdev->enabled && !sdev->fatal)
		orca_soft_enable(sdev);
	if (sdev->enabled && !sdev->fatal && !READ_ONCE(fault_stall_admin))
		orca_soft_admin_process(sdev);
out:
	memalloc_noreclaim_restore(noreclaim);
}

void orca_soft_notify(struct orca_bus_device *bdev, u32 reg, u32 val)
{
	struct orca_soft_dev *sdev = bdev_to_sdev(bdev);

	switch (reg) {
	case ORCA_REG_CTRL:
		if ((val & ORCA_CTRL_DETACH) && !(val & ORCA_CTRL_ENABLE))
			orca_soft_detach_request(sdev);
		queue_work(sdev->wq, &sdev->engine_work);
		break;
	case ORCA_REG_AQ_SQ_DB:
		queue_work(sdev->wq, &sdev->engine_work);
		break;
	case ORCA_REG_AEQ_DB:
		orca_soft_aeq_doorbell(sdev, val);
		break;
	case ORCA_REG_QP_DB:
		orca_soft_doorbell(sdev, FIELD_GET(ORCA_QP_DB_QPN, val));
		break;
	case ORCA_REG_CQ_DB:
		orca_soft_doorbell(sdev, ORCA_SOFT_KICK_CQ |
				   FIELD_GET(ORCA_CQ_DB_CQN, val));
		break;
	case ORCA_REG_EQ_DB:
		orca_soft_eq_doorbell(sdev, val);
		break;
	default:
		/* Configuration registers are latched on enable. */
		break;
	}
}
