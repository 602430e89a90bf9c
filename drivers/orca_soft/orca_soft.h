/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * orca_soft: the Orca HCA implemented in software.
 *
 * Each instance is one Orca function attached to one Ethernet netdev.  It
 * behaves as the hardware interface specifies (Documentation/): a
 * register block, an admin command processor that reads commands from
 * and writes completions to host memory by DMA address, an async event
 * queue, and interrupt vectors.  The driver, orca.ko, finds it on the
 * auxiliary bus and never calls into this module except through the bus
 * device's notify hook.
 *
 *   orca_soft_main.c   module, "rdma link add ... type orca", instances,
 *                      netdev tracking, interrupt vectors
 *   orca_soft_regs.c   register block, enable/disable, DMA access, event
 *                      queue and interrupt delivery
 *   orca_soft_admin.c  the admin command processor
 */
#ifndef ORCA_SOFT_H
#define ORCA_SOFT_H

#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "orca_bus.h"
#include "orca_hw.h"

#define ORCA_SOFT_NUM_VECTORS	4
#define ORCA_SOFT_AQ_MAX_LOG2	10
#define ORCA_SOFT_EQ_MAX_LOG2	16

struct orca_soft_dev;

struct orca_soft_vector {
	struct irq_work work;
	struct orca_soft_dev *sdev;
	int irq;
};

struct orca_soft_dev {
	struct orca_bus_device bdev;	/* the function, as the bus sees it */
	struct list_head list;		/* on orca_soft_devices */
	u32 id;
	struct platform_device *pdev;	/* DMA parent */
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	void *regs;			/* backing memory of bdev.regs */

	int irq_base;
	struct orca_soft_vector vec[ORCA_SOFT_NUM_VECTORS];

	/* The engine: serialises control and admin processing. */
	struct workqueue_struct *wq;
	struct work_struct engine_work;
	bool netdev_gone;		/* under orca_soft_list_lock */

	spinlock_t lock;		/* enabled, fatal, aeq */
	bool enabled;
	bool fatal;

	/* Admin queue, latched when the device is enabled. */
	u64 aq_sq_base;
	u64 aq_cq_base;
	u8 aq_log2_depth;
	u8 aq_vector;
	bool aq_irq_en;
	u32 aq_sq_cons;
	u32 aq_cq_prod;

	/* Async event queue, latched when the device is enabled. */
	u64 aeq_base;
	u8 aeq_log2_depth;
	u8 aeq_vector;
	u32 aeq_prod;
	u32 aeq_cons;			/* low 24 bits, from the doorbell */
	bool aeq_armed;
	u64 aeq_overflows;

	/* Device resources. */
	struct xarray pds;
};

static inline struct orca_soft_dev *bdev_to_sdev(struct orca_bus_device *b)
{
	return container_of(b, struct orca_soft_dev, bdev);
}

static inline struct device *sdev_dev(struct orca_soft_dev *sdev)
{
	return &sdev->pdev->dev;
}

/* orca_soft_regs.c */
void orca_soft_regs_init(struct orca_soft_dev *sdev);
u32 orca_soft_reg_read(struct orca_soft_dev *sdev, u32 reg);
void orca_soft_reg_write(struct orca_soft_dev *sdev, u32 reg, u32 val);
void orca_soft_notify(struct orca_bus_device *bdev, u32 reg);
void orca_soft_engine_work(struct work_struct *work);
void orca_soft_disable(struct orca_soft_dev *sdev);
void orca_soft_raise_irq(struct orca_soft_dev *sdev, u8 vector);
int orca_soft_dma_read(struct orca_soft_dev *sdev, u64 addr, void *buf,
		       size_t len);
int orca_soft_dma_write(struct orca_soft_dev *sdev, u64 addr,
			const void *buf, size_t len);
int orca_soft_dma_write32(struct orca_soft_dev *sdev, u64 addr, u32 val);
void orca_soft_post_event(struct orca_soft_dev *sdev, u8 type, u64 data);
void orca_soft_set_fatal(struct orca_soft_dev *sdev, const char *why);

/* orca_soft_admin.c */
void orca_soft_admin_process(struct orca_soft_dev *sdev);
void orca_soft_admin_reset(struct orca_soft_dev *sdev);
void orca_soft_admin_init(struct orca_soft_dev *sdev);

#endif /* ORCA_SOFT_H */
