/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Orca HCA driver: core structures.
 *
 * Layering, top to bottom:
 *   orca_verbs.c   ib_device_ops; turns verbs into typed commands
 *   orca_cmd.c     one function per admin command: encode, exec, decode
 *   orca_admin.c   the admin queue: the single command execution path
 *   orca_eq.c      the async event queue and the device interrupt handler
 *   orca_main.c    bus binding, device bring-up and teardown
 *   orca_hw.h      hardware formats (shared with the device model)
 */
#ifndef ORCA_H
#define ORCA_H

#include <linux/completion.h>
#include <linux/io.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "orca_bus.h"
#include "orca_hw.h"

#define ORCA_PORT_NUM		1

/* Admin queue: command ring, completion ring, per-slot contexts. */
#define ORCA_AQ_LOG2_DEPTH	5
#define ORCA_AQ_MBOX_SIZE	512

struct orca_aq_ctx {
	struct completion done;
	u16 cmd_id;
	bool busy;		/* owned by a command in flight */
	u8 status;		/* ORCA_AQ_STS_* from the completion */
	u16 syndrome;
	u64 result;
};

struct orca_admin {
	union orca_aq_cmd *sq;
	dma_addr_t sq_dma;
	struct orca_aq_cqe *cq;
	dma_addr_t cq_dma;
	void *mbox;			/* ORCA_AQ_MBOX_SIZE per slot */
	dma_addr_t mbox_dma;
	u8 log2_depth;

	/* Bounds the commands in flight to the ring depth. */
	struct semaphore slots;

	spinlock_t lock;		/* everything below */
	u32 sq_prod;
	u32 cq_cons;
	u16 next_gen;
	bool dead;
	struct orca_aq_ctx *ctx;
};

/* Async event queue. */
#define ORCA_AEQ_LOG2_DEPTH	8

struct orca_eq {
	struct orca_eqe *ring;
	dma_addr_t dma;
	u8 log2_depth;
	u32 cons;
};

struct orca_dev {
	struct ib_device ibdev;
	struct orca_bus_device *bdev;
	struct device *dmadev;
	void __iomem *regs;
	u32 hw_version;
	unsigned int num_vectors;

	struct orca_admin aq;
	struct orca_eq aeq;
	int irq;			/* vector 0: admin and async events */

	struct orca_hw_device_attr hw_attr;
	struct work_struct port_work;
	spinlock_t state_lock;		/* events_enabled, port_state */
	bool events_enabled;
	enum ib_port_state port_state;
};

struct orca_ucontext {
	struct ib_ucontext ibucontext;
};

struct orca_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

static inline struct orca_dev *to_odev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct orca_dev, ibdev);
}

static inline struct orca_pd *to_opd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct orca_pd, ibpd);
}

/* The bus device: used for messages, valid before and after registration. */
static inline struct device *orca_device(struct orca_dev *dev)
{
	return &dev->bdev->adev.dev;
}

/* Register access: every write is followed by the bus notify hook. */
static inline u32 orca_reg_read(struct orca_dev *dev, u32 reg)
{
	return readl(dev->regs + reg);
}

static inline void orca_reg_write(struct orca_dev *dev, u32 reg, u32 val)
{
	writel(val, dev->regs + reg);
	if (dev->bdev->ops && dev->bdev->ops->notify)
		dev->bdev->ops->notify(dev->bdev, reg);
}

/* orca_admin.c */
int orca_admin_init(struct orca_dev *dev);
void orca_admin_destroy(struct orca_dev *dev);
void orca_admin_program(struct orca_dev *dev);
void orca_admin_process_completions(struct orca_dev *dev);
int orca_admin_exec(struct orca_dev *dev, union orca_aq_cmd *cmd,
		    void *out, size_t out_len, u64 *result);
int orca_aq_status_to_errno(u8 status);
const char *orca_aq_opcode_name(u8 opcode);

/* orca_eq.c */
int orca_aeq_init(struct orca_dev *dev);
void orca_aeq_destroy(struct orca_dev *dev);
void orca_aeq_program(struct orca_dev *dev);
void orca_aeq_arm(struct orca_dev *dev);
irqreturn_t orca_async_irq_handler(int irq, void *data);
void orca_port_work(struct work_struct *work);

/* orca_cmd.c */
int orca_cmd_query_device(struct orca_dev *dev,
			  struct orca_hw_device_attr *attr);
int orca_cmd_query_port(struct orca_dev *dev, u32 port,
			struct orca_hw_port_attr *attr);
int orca_cmd_alloc_pd(struct orca_dev *dev, u32 *pdn);
int orca_cmd_dealloc_pd(struct orca_dev *dev, u32 pdn);

/* orca_verbs.c */
extern const struct ib_device_ops orca_dev_ops;
int orca_port_attr_to_ib(const struct orca_hw_port_attr *hw,
			 struct ib_port_attr *attr);

#endif /* ORCA_H */
