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
 *   orca_soft_admin.c  the admin command processor: dispatch, device,
 *                      port, statistics, protection domains, reset
 *   orca_soft_mr.c     memory regions (REG_MR/DEREG_MR, page lists)
 *   orca_soft_cq.c     completion event queues and completion queues
 *   orca_soft_qp.c     queue pairs (CREATE/MODIFY/QUERY/DESTROY_QP)
 *   orca_soft_qp_fsm.c the QP state table (pure, tested by KUnit)
 *   orca_soft_srq.c    shared receive queues
 *   orca_soft_ah.c     address handles, the GID table, multicast groups
 *
 * All admin commands and the device reset run on the engine's ordered
 * workqueue, one at a time, so the object tables and the reference
 * counts below (users: how many objects refer to this one) need no lock
 * of their own on the control path.
 */
#ifndef ORCA_SOFT_H
#define ORCA_SOFT_H

#include <linux/etherdevice.h>
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

/* Device limits, reported by QUERY_DEVICE and enforced by the commands. */
#define ORCA_SOFT_MAX_PD		16384
#define ORCA_SOFT_MAX_EQ		64
#define ORCA_SOFT_MAX_QP		4096
#define ORCA_SOFT_MAX_QPN		(BIT(24) - 1)
#define ORCA_SOFT_GSI_QPN		1
#define ORCA_SOFT_MAX_QP_WR		16384
#define ORCA_SOFT_MAX_SGE		32
#define ORCA_SOFT_MAX_CQ		4096
#define ORCA_SOFT_MAX_CQE		65536
#define ORCA_SOFT_MAX_MR		65536
#define ORCA_SOFT_MAX_MR_SIZE		BIT_ULL(40)
#define ORCA_SOFT_MAX_RD_ATOM		16
#define ORCA_SOFT_MAX_SRQ		1024
#define ORCA_SOFT_MAX_SRQ_WR		16384
#define ORCA_SOFT_MAX_AH		65536
#define ORCA_SOFT_MAX_MCAST_GRP		256
#define ORCA_SOFT_MAX_MCAST_QP		64
#define ORCA_SOFT_MAX_INLINE		960
#define ORCA_SOFT_MAX_FRPL_LEN		512
#define ORCA_SOFT_PAGE_SIZE_CAP		(BIT_ULL(12) | BIT_ULL(21) | BIT_ULL(30))
#define ORCA_SOFT_GID_TBL_LEN		128
#define ORCA_SOFT_MAX_MTU		4096
/* Page lists: level-2 tables are 4 KiB pages of 512 entries. */
#define ORCA_SOFT_PBL_PAGE_SIZE		4096
#define ORCA_SOFT_PBL_ENTRIES		(ORCA_SOFT_PBL_PAGE_SIZE / sizeof(u64))
/* Input mailboxes: the input half of a 512-byte admin mailbox. */
#define ORCA_SOFT_MAX_IN_LEN		256

struct orca_soft_dev;

struct orca_soft_vector {
	struct irq_work work;
	struct orca_soft_dev *sdev;
	int irq;
};

/* Live objects and counters, reported by QUERY_STATS. */
struct orca_soft_counts {
	u64 cmds_completed;
	u64 cmds_failed;
	u64 async_events;		/* under orca_soft_dev.lock */
	u64 tx_packets;			/* data path (later) */
	u64 tx_bytes;
	u64 rx_packets;
	u64 rx_bytes;
	u32 pds;
	u32 mrs;
	u32 cqs;
	u32 qps;
	u32 srqs;
	u32 ahs;
};

struct orca_soft_pd {
	u32 pdn;
	u32 users;			/* MRs, QPs, SRQs, AHs */
};

/* A completion event queue on an interrupt vector. */
struct orca_soft_eq {
	u32 eqn;
	u64 ring_addr;
	u8 log2_depth;
	u8 vector;
	u32 prod;			/* device producer index */
	u32 users;			/* CQs */
};

struct orca_soft_cq {
	u32 cqn;
	u64 ring_addr;
	u64 db_addr;			/* struct orca_db_record */
	u8 log2_depth;
	struct orca_soft_eq *eq;
	u32 prod;			/* device producer index */
	u32 users;			/* QPs (once per send/recv use) */
};

/* Geometry of a work queue: SQ, RQ or SRQ. */
struct orca_soft_wq {
	u64 ring_addr;
	u64 db_addr;			/* struct orca_db_record */
	u8 log2_depth;
	u8 log2_stride;
	u8 max_sge;
	u32 cons;			/* device consumer index */
};

struct orca_soft_srq {
	u32 srqn;
	struct orca_soft_pd *pd;
	struct orca_soft_wq wq;
	u32 limit;			/* armed limit, 0: not armed */
	u32 users;			/* QPs */
};

struct orca_soft_qp {
	u32 qpn;
	u8 type;			/* enum orca_qp_type */
	u8 state;			/* enum orca_qp_state */
	bool sq_sig_all;
	struct orca_soft_pd *pd;
	struct orca_soft_cq *send_cq;
	struct orca_soft_cq *recv_cq;
	struct orca_soft_srq *srq;	/* or NULL: the QP has an RQ */
	struct orca_soft_wq sq;
	struct orca_soft_wq rq;
	u32 max_inline;
	u32 attr_set;			/* ORCA_QP_ATTR_* set since RESET */
	struct orca_hw_qp_attr attr;	/* the values set, as MODIFY_QP gave them */
	u32 mcast_attached;		/* groups this QP is attached to */
};

struct orca_soft_mr {
	u32 key;
	struct orca_soft_pd *pd;
	u64 iova;
	u64 length;
	u32 access;			/* ORCA_ACCESS_* */
	u32 flags;			/* ORCA_MR_FLAG_* */
	u8 page_shift;
	u32 num_pages;			/* FAST_REG: capacity of pages[] */
	u64 *pages;			/* DMA address of each page */
	bool valid;			/* FAST_REG: false until registered */
};

struct orca_soft_ah {
	u32 ahn;
	struct orca_soft_pd *pd;
	u8 dgid[16];
	u32 info;			/* ORCA_AH_* */
	u8 dmac[ETH_ALEN];
	u16 vlan;
};

struct orca_soft_gid {
	bool valid;
	u8 gid[16];
	u32 type;			/* enum orca_gid_type */
	u8 mac[ETH_ALEN];
	u16 vlan;
};

struct orca_soft_mcg {
	struct list_head list;
	u8 gid[16];
	u32 nr_qps;
	u32 qpn[ORCA_SOFT_MAX_MCAST_QP];
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

	/* Device resources (see orca_soft_admin_reset()). */
	struct xarray pds;		/* struct orca_soft_pd, by pdn */
	struct xarray eqs;		/* struct orca_soft_eq, by eqn */
	struct xarray mrs;		/* struct orca_soft_mr, by key index */
	struct xarray cqs;		/* struct orca_soft_cq, by cqn */
	struct xarray qps;		/* struct orca_soft_qp, by qpn */
	struct xarray srqs;		/* struct orca_soft_srq, by srqn */
	struct xarray ahs;		/* struct orca_soft_ah, by ahn */
	u32 qpn_next;			/* cyclic QPN allocation */
	struct orca_soft_gid gids[ORCA_SOFT_GID_TBL_LEN];
	struct list_head mcgs;		/* struct orca_soft_mcg */
	u32 nr_mcgs;
	struct orca_soft_counts counts;
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
void orca_soft_notify(struct orca_bus_device *bdev, u32 reg, u32 val);
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

/* What a command returns besides its status. */
struct orca_soft_cmd_out {
	u64 result;
	u16 syndrome;
};

/* orca_soft_admin.c */
void orca_soft_admin_process(struct orca_soft_dev *sdev);
void orca_soft_admin_reset(struct orca_soft_dev *sdev);
void orca_soft_admin_init(struct orca_soft_dev *sdev);
bool orca_soft_rsvd_clear(const void *rsvd, size_t len);
u8 orca_soft_put_output(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd, const void *out,
			size_t len);
u8 orca_soft_get_input(struct orca_soft_dev *sdev, u64 in_addr, u32 in_len,
		       void *in, size_t len);
struct orca_soft_pd *orca_soft_pd_find(struct orca_soft_dev *sdev, u32 pdn);
bool orca_soft_vlan_ok(u16 vlan);

/* orca_soft_mr.c */
u8 orca_soft_reg_mr(struct orca_soft_dev *sdev, const union orca_aq_cmd *cmd,
		    struct orca_soft_cmd_out *out);
u8 orca_soft_dereg_mr(struct orca_soft_dev *sdev,
		      const union orca_aq_cmd *cmd);
void orca_soft_mr_reset(struct orca_soft_dev *sdev);

/* orca_soft_cq.c */
u8 orca_soft_create_eq(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd,
		       struct orca_soft_cmd_out *out);
u8 orca_soft_destroy_eq(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd);
u8 orca_soft_create_cq(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd,
		       struct orca_soft_cmd_out *out);
u8 orca_soft_resize_cq(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd,
		       struct orca_soft_cmd_out *out);
u8 orca_soft_destroy_cq(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd);
struct orca_soft_cq *orca_soft_cq_find(struct orca_soft_dev *sdev, u32 cqn);
void orca_soft_cq_reset(struct orca_soft_dev *sdev);

/* orca_soft_srq.c */
u8 orca_soft_wq_cfg(u32 cfg, bool send, struct orca_soft_wq *wq);
u8 orca_soft_create_srq(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd,
			struct orca_soft_cmd_out *out);
u8 orca_soft_modify_srq(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd);
u8 orca_soft_query_srq(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd);
u8 orca_soft_destroy_srq(struct orca_soft_dev *sdev,
			 const union orca_aq_cmd *cmd);
struct orca_soft_srq *orca_soft_srq_find(struct orca_soft_dev *sdev,
					 u32 srqn);
void orca_soft_srq_reset(struct orca_soft_dev *sdev);

/* orca_soft_qp.c */
u8 orca_soft_create_qp(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd,
		       struct orca_soft_cmd_out *out);
u8 orca_soft_modify_qp(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd);
u8 orca_soft_query_qp(struct orca_soft_dev *sdev,
		      const union orca_aq_cmd *cmd);
u8 orca_soft_destroy_qp(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd);
struct orca_soft_qp *orca_soft_qp_find(struct orca_soft_dev *sdev, u32 qpn);
void orca_soft_qp_reset(struct orca_soft_dev *sdev);

/* orca_soft_ah.c */
u8 orca_soft_create_ah(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd,
		       struct orca_soft_cmd_out *out);
u8 orca_soft_destroy_ah(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd);
u8 orca_soft_add_gid(struct orca_soft_dev *sdev,
		     const union orca_aq_cmd *cmd);
u8 orca_soft_del_gid(struct orca_soft_dev *sdev,
		     const union orca_aq_cmd *cmd);
u8 orca_soft_attach_mcast(struct orca_soft_dev *sdev,
			  const union orca_aq_cmd *cmd);
u8 orca_soft_detach_mcast(struct orca_soft_dev *sdev,
			  const union orca_aq_cmd *cmd);
bool orca_soft_sgid_ok(struct orca_soft_dev *sdev, u32 sgid_index);
void orca_soft_ah_reset(struct orca_soft_dev *sdev);

#endif /* ORCA_SOFT_H */
