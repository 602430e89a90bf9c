/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Orca HCA driver: core structures.
 *
 * Layering, top to bottom:
 *   orca_verbs.c   ib_device_ops; turns verbs into typed commands; queue
 *                  memory and its user mappings; AH, GID, mcast, stats
 *   orca_cq.c      CQs        orca_qp.c  QPs and SRQs    orca_mr.c  MRs
 *   orca_odp.c     on-demand paging: faults, invalidations, prefetch
 *   orca_cmd.c     one function per admin command: encode, exec, decode
 *   orca_admin.c   the admin queue: the single command execution path
 *   orca_eq.c      the async event queue, the completion event queues and
 *                  their interrupt handlers
 *   orca_main.c    bus binding, device bring-up and teardown
 *   orca_hw.h      hardware formats (shared with the device model)
 */
#ifndef ORCA_H
#define ORCA_H

#include <linux/completion.h>
#include <linux/io.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "orca_bus.h"
#include "orca_hw.h"

#define ORCA_PORT_NUM		1
/* Most SGEs a WQE can carry (ORCA_WQ_CFG_MAX_SGE holds more). */
#define ORCA_MAX_SGE_HW		32

/* Admin queue: command ring, completion ring, per-slot contexts. */
#define ORCA_AQ_LOG2_DEPTH	5
#define ORCA_AQ_MBOX_SIZE	512
/* Each slot's mailbox: input in the first half, output in the second. */
#define ORCA_AQ_MBOX_IN_OFF	0
#define ORCA_AQ_MBOX_OUT_OFF	256
#define ORCA_AQ_MBOX_HALF	256

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

/* Completion event queues: one per interrupt vector 1..num_vectors-1. */
#define ORCA_CEQ_LOG2_DEPTH	12

struct orca_ceq {
	struct orca_dev *dev;
	struct orca_eq eq;
	u32 eqn;
	unsigned int vector;
	int irq;
	bool created;		/* the device knows it: DESTROY_EQ on teardown */
	bool irq_requested;
};

/* A REG_MR page list: level 1, or level 2 with the pages of entries. */
struct orca_pbl_buf {
	__le64 *va;
	dma_addr_t dma;
	size_t size;
};

struct orca_pbl {
	u8 levels;
	struct orca_pbl_buf top;
	struct orca_pbl_buf *l1;	/* level 2: the pages of entries */
	u32 n_l1;
};

/* A page of queue memory, as the CPU and as the device address it. */
struct orca_qpage {
	void *va;
	dma_addr_t dma;
};

/* Rings of one queue object with a page list each (a QP's SQ and RQ). */
#define ORCA_QMEM_RINGS		2

/*
 * Queue memory of a CQ, QP or SRQ: a zeroed run of pages holding its rings
 * and its doorbell page (or the doorbell page alone, with the rings in a
 * buffer of the process: @umem below).  On a device with paged rings (RING_PBL) each page
 * is allocated on its own and every ring is handed to the device as a page
 * list, which is kept here until the memory is freed; otherwise the run is
 * one physically contiguous allocation (@contig).  A user object's pages
 * come from the page allocator so they can be mapped to userspace one by
 * one; a kernel object's are coherent DMA memory (dma_alloc_coherent),
 * which the CPU and the device see alike on every platform.  Referenced by
 * the object and by its mmap entry; the last reference unmaps and frees it.
 */
struct orca_qmem {
	struct kref ref;
	struct device *dmadev;
	struct list_head zombie;	/* on orca_dev.zombies */
	bool user;
	bool contig;
	u32 npages;
	size_t size;
	struct orca_qpage *pages;
	struct orca_pbl pbl[ORCA_QMEM_RINGS];
	/*
	 * Rings in the process's own buffer (ORCA_QUEUE_REQ_USER_BUF): then
	 * the pages above are the doorbell page alone, the buffer is pinned
	 * in @umem, and @ublk holds the DMA address of each of its 4 KiB
	 * blocks.
	 */
	struct ib_umem *umem;
	dma_addr_t *ublk;
	u32 nublk;
};

/* A ring buffer named by a queue-creating request; len 0: none. */
struct orca_ubuf {
	u64 addr;
	u64 len;
};

/* The CPU's address of byte @off of @qmem. */
static inline void *orca_qmem_ptr(const struct orca_qmem *qmem, size_t off)
{
	return qmem->pages[off >> PAGE_SHIFT].va + offset_in_page(off);
}

/* The device's address of byte @off of @qmem. */
static inline dma_addr_t orca_qmem_dma(const struct orca_qmem *qmem,
				       size_t off)
{
	return qmem->pages[off >> PAGE_SHIFT].dma + offset_in_page(off);
}

/*
 * What a user mapping shows: queue memory (qmem), or an allocation of
 * device memory (qmem NULL: dm_len bytes at dm_phys, allocation dmn of
 * dev, given back to the device when the last mapping goes).
 */
struct orca_mmap_entry {
	struct rdma_user_mmap_entry rentry;
	struct orca_qmem *qmem;
	struct orca_dev *dev;
	u32 dmn;
	phys_addr_t dm_phys;
	size_t dm_len;
};

/* Queued port states: a flap faster than port_work can follow. */
#define ORCA_PORT_Q_LEN		16

/* An ODP_FAULT event, as queued for the fault work. */
struct orca_odp_fault {
	u64 page;		/* first page of the region's table */
	u32 count;		/* pages, 1..ORCA_ODP_FAULT_MAX */
	u32 key;
	u16 epoch;		/* the region's failure epoch (ODP_EPOCH) */
	bool write;
};

/* Faults waiting for the fault work; more are dropped (the device asks again). */
#define ORCA_ODP_Q_LEN		64

/*
 * On-demand paging (orca_odp.c), set up at registration when the device
 * has the capability: the AEQ handler queues faults under lock, the work
 * on wq handles them, and mrs finds a region by its key's index.
 */
struct orca_odp_dev {
	struct workqueue_struct *wq;
	struct work_struct work;
	struct xarray mrs;		/* struct orca_mr by ORCA_MR_KEY_INDEX */
	spinlock_t lock;		/* everything below; taken in the AEQ handler */
	bool supported;			/* wq exists: the device may raise faults */
	bool enabled;			/* faults are queued */
	u8 q_head;
	u8 q_len;
	struct orca_odp_fault q[ORCA_ODP_Q_LEN];
	u64 dropped;			/* faults the full queue dropped */
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

	struct orca_ceq *ceqs;		/* num_ceqs, vectors 1.. */
	unsigned int num_ceqs;

	/* Objects by device number, for event dispatch. */
	struct xarray qp_xa;
	struct xarray cq_xa;
	struct xarray srq_xa;

	/*
	 * Queue memory of objects whose destroy the device did not confirm,
	 * and MRs whose registration or deregistration it did not confirm:
	 * it may still access their memory until it is disabled.
	 */
	struct mutex zombie_lock;
	struct list_head zombies;
	struct list_head mr_zombies;

	/* Live AHs: the device has no AH objects, the driver counts them. */
	atomic64_t num_ahs;

	/* MR key variants: incremented per registration. */
	atomic_t mr_variant;

	struct orca_hw_device_attr hw_attr;
	struct work_struct port_work;
	struct work_struct fatal_work;	/* the admin queue died */
	spinlock_t state_lock;		/* events_enabled, port_*  */
	bool events_enabled;
	enum ib_port_state port_state;	/* as last told to ib_core */
	/*
	 * Port states carried by PORT_CHANGE events, oldest first, for
	 * port_work to tell ib_core one by one; port_resync asks it to query
	 * the port when none is queued (after registration).
	 */
	u8 port_q[ORCA_PORT_Q_LEN];
	u8 port_q_head;
	u8 port_q_len;
	bool port_resync;

	/*
	 * Registered and running (from ib_core's enable_driver on, under
	 * state_lock): dealloc_driver stops it, once.
	 */
	bool live;
	/* orca_remove() is unregistering: no detach request then. */
	bool removing;

	struct orca_odp_dev odp;
};

struct orca_ucontext {
	struct ib_ucontext ibucontext;
};

struct orca_pd {
	struct ib_pd ibpd;
	u32 pdn;
	bool refused;		/* the device refused a DEALLOC_PD once */
};

struct orca_xrcd {
	struct ib_xrcd ibxrcd;
	u32 xrcdn;
};

/* Device memory: allocation dmn, at offset bytes into the aperture. */
struct orca_dm {
	struct ib_dm ibdm;
	u32 dmn;
	u64 offset;
	struct orca_mmap_entry *mentry;
};

struct orca_cq {
	struct ib_cq ibcq;
	u32 cqn;
	u8 log2_depth;
	u8 cqe_size;		/* ORCA_CQE_SIZE, or ORCA_CQE64_SIZE */
	u32 eqn;
	bool user;
	bool refused;		/* the device refused a DESTROY_CQ once */
	struct orca_qmem *qmem;
	struct orca_mmap_entry *mentry;	/* user CQs */
	struct mutex resize_lock;	/* qmem, mentry, log2_depth */

	/* Kernel CQs: the consumer side of the ring. */
	spinlock_t lock;		/* everything below, and log2_depth */
	struct orca_db_record *db;
	u32 cons;
	u16 arm_seq;
	u32 arm_word;			/* last arm word written */
	bool arm_pending;		/* an arm was written since the last event */
	bool arm_fired;			/* its event came (completion EQ handler) */
	bool resizing;			/* poll_cq finds nothing meanwhile */
};

/* A kernel QP's send or receive queue, or a kernel SRQ: the poster's side. */
struct orca_kwq {
	spinlock_t lock;		/* prod, cons and the ring slots */
	struct orca_qmem *qmem;		/* the ring is at offset in it */
	size_t offset;
	struct orca_db_record *db;
	u32 prod;
	u32 cons;			/* the device's, as last read */
	u32 max_wr;			/* reported capacity */
	u32 max_sge;
	u8 log2_depth;
	u8 log2_stride;
};

struct orca_wq_geom {
	u8 log2_depth;
	u8 log2_stride;
	u32 max_sge;
	u32 offset;		/* within the queue memory */
};

struct orca_qp {
	struct ib_qp ibqp;
	u32 qpn;
	enum orca_qp_type hw_type;
	struct orca_wq_geom sq;
	struct orca_wq_geom rq;	/* log2_depth 0 and no ring with an SRQ */
	bool has_rq;
	bool refused;		/* the device refused a DESTROY_QP once */
	u32 sq_hdr;		/* bytes before a send WQE's SGEs */
	u32 max_inline;
	u32 db_offset;
	struct orca_qmem *qmem;
	struct orca_mmap_entry *mentry;
	struct ib_qp_cap cap;	/* as reported at create */
	enum ib_sig_type sq_sig_type;
	bool user;
	bool in_reset;		/* last successful modify: RESET (or none) */
	struct orca_kwq ksq;	/* kernel QPs */
	struct orca_kwq krq;	/* kernel QPs without an SRQ */
};

struct orca_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	bool refused;		/* the device refused a DESTROY_SRQ once */
	u32 max_sge;
	struct orca_wq_geom wq;
	u32 db_offset;
	struct orca_qmem *qmem;
	struct orca_mmap_entry *mentry;
	bool user;
	struct orca_kwq kwq;	/* kernel SRQs */
};

/*
 * One ib_umem_odp of an on-demand-paging region and where its pages sit
 * in the device's table of the region (orca_odp.c): the whole of an
 * explicit region, one chunk of an implicit one.
 */
struct orca_odp_span {
	struct ib_umem_odp *umem;
	struct orca_mr *mr;
	u64 first;			/* the device's page of the span's first */
	u64 npages;
	u64 va;				/* the process address of that page */
	/* Under umem_mutex: pages [fail_lo, fail_hi) may be failed. */
	u64 fail_lo;
	u64 fail_hi;
};

/*
 * An on-demand-paging region's state (orca_odp.c).  Each span's
 * umem_mutex serialises the ODP_UPDATEs of its pages with the MMU
 * notifier's invalidations; cmd_lock, taken inside it, serialises every
 * ODP_UPDATE of the region with its deregistration.
 */
struct orca_odp_mr {
	struct ib_pd *pd;		/* as registered, for advise_mr */
	u64 iova;
	u64 length;
	bool implicit;			/* the whole address space */
	struct orca_odp_span span;	/* explicit regions: the region */
	struct xarray children;		/* implicit: spans by chunk */
	struct mm_struct *mm;		/* implicit: the process's, grabbed */
	/* Lookups (fault work, advise_mr) hold a use; the last one completes done. */
	refcount_t users;
	struct completion done;
	bool published;			/* in orca_odp_dev.mrs, users counts */
	struct mutex cmd_lock;		/* the two below, and ODP_UPDATEs */
	bool dead;			/* the device has no region any more */
	/* ORCA_ODP_MAP_MAX entries for MAP, in coherent DMA memory. */
	__le64 *pbl;
	dma_addr_t pbl_dma;
	/* For rdma resource show. */
	atomic64_t faults;
	atomic64_t mapped;
	atomic64_t failed;		/* FAIL/FAIL_FAULT sent, maybe ignored */
	atomic64_t unmapped;
};

struct orca_mr {
	struct ib_mr ibmr;
	u32 key;
	bool refused;		/* the device refused a DEREG_MR once */
	bool deregistered;	/* by a rereg: only host memory is left */
	u32 flags;		/* ORCA_MR_FLAG_* */
	int access;		/* IB_ACCESS_*, user MRs (for rereg) */
	u8 page_shift;
	u32 num_pages;
	struct ib_umem *umem;
	/*
	 * Fast-reg MRs: the page list built by map_mr_sg, in coherent DMA
	 * memory: a REG_MR work request points the device at it.
	 */
	__le64 *pages;
	dma_addr_t pages_dma;
	u32 max_pages;
	u32 npages;
	/* User MRs: the page list, only while REG_MR may still read it. */
	struct orca_pbl pbl;
	struct list_head zombie;	/* on orca_dev.mr_zombies */
	/* ORCA_MR_FLAG_ODP regions: umem is the ib_umem_odp's. */
	struct orca_odp_mr odp;
};

/* A memory window: a key of the device's key table, bound by WQEs. */
struct orca_mw {
	struct ib_mw ibmw;
	u32 key;		/* as allocated; binding changes the variant */
	bool refused;		/* the device refused a DEALLOC_MW once */
};

/* An address handle is its address vector, in host memory. */
struct orca_ah {
	struct ib_ah ibah;
	struct orca_av av;
};

static inline struct orca_dev *to_odev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct orca_dev, ibdev);
}

static inline struct orca_dm *to_odm(struct ib_dm *ibdm)
{
	return container_of(ibdm, struct orca_dm, ibdm);
}

static inline struct orca_xrcd *to_oxrcd(struct ib_xrcd *ibxrcd)
{
	return container_of(ibxrcd, struct orca_xrcd, ibxrcd);
}

static inline struct orca_pd *to_opd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct orca_pd, ibpd);
}

static inline struct orca_cq *to_ocq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct orca_cq, ibcq);
}

static inline struct orca_qp *to_oqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct orca_qp, ibqp);
}

static inline struct orca_srq *to_osrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct orca_srq, ibsrq);
}

static inline struct orca_mr *to_omr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct orca_mr, ibmr);
}

static inline struct orca_mw *to_omw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct orca_mw, ibmw);
}

static inline struct orca_ah *to_oah(struct ib_ah *ibah)
{
	return container_of(ibah, struct orca_ah, ibah);
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
		dev->bdev->ops->notify(dev->bdev, reg, val);
}

/* orca_admin.c */
int orca_admin_init(struct orca_dev *dev);
void orca_admin_destroy(struct orca_dev *dev);
void orca_admin_program(struct orca_dev *dev);
void orca_admin_process_completions(struct orca_dev *dev);
int orca_admin_exec(struct orca_dev *dev, union orca_aq_cmd *cmd,
		    const void *in, size_t in_len, void *out, size_t out_len,
		    u64 *result);
int orca_aq_status_to_errno(u8 status);
bool orca_admin_effect_unknown(struct orca_dev *dev, int ret);
int orca_destroy_retried(struct orca_dev *dev,
			 int (*destroy)(struct orca_dev *, u32), u32 handle);
bool orca_destroy_refused(struct orca_dev *dev, int ret, bool user,
			  bool *refused);
const char *orca_aq_opcode_name(u8 opcode);

/* orca_eq.c */
int orca_aeq_init(struct orca_dev *dev);
void orca_aeq_destroy(struct orca_dev *dev);
void orca_aeq_program(struct orca_dev *dev);
void orca_aeq_arm(struct orca_dev *dev);
irqreturn_t orca_async_irq_handler(int irq, void *data);
void orca_port_work(struct work_struct *work);
void orca_fatal_work(struct work_struct *work);
int orca_ceqs_create(struct orca_dev *dev);
void orca_ceqs_destroy(struct orca_dev *dev);
void orca_ceqs_free(struct orca_dev *dev, bool device_stopped);

/* orca_cmd.c */
int orca_cmd_query_device(struct orca_dev *dev,
			  struct orca_hw_device_attr *attr);
int orca_cmd_query_port(struct orca_dev *dev, u32 port,
			struct orca_hw_port_attr *attr);
int orca_cmd_alloc_pd(struct orca_dev *dev, u32 *pdn);
int orca_cmd_dealloc_pd(struct orca_dev *dev, u32 pdn);
int orca_cmd_alloc_xrcd(struct orca_dev *dev, u32 *xrcdn);
int orca_cmd_dealloc_xrcd(struct orca_dev *dev, u32 xrcdn);
int orca_cmd_alloc_dm(struct orca_dev *dev, u64 length, u32 log_align,
		      u32 *dmn);
int orca_cmd_dealloc_dm(struct orca_dev *dev, u32 dmn);

/* orca_dm.c */
u64 orca_dm_size(const struct orca_dev *dev);
struct ib_dm *orca_alloc_dm(struct ib_device *ibdev,
			    struct ib_ucontext *uctx,
			    struct ib_dm_alloc_attr *attr,
			    struct uverbs_attr_bundle *attrs);
int orca_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs);
void orca_dm_release(struct orca_mmap_entry *mentry);
struct ib_mr *orca_reg_dm_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
			     struct ib_dm_mr_attr *attr,
			     struct uverbs_attr_bundle *attrs);
extern const struct uapi_definition orca_uapi_defs[];
extern const struct uapi_definition orca_qp_uapi_defs[];

int orca_cmd_query_stats(struct orca_dev *dev, struct orca_hw_stats *stats);
int orca_cmd_create_eq(struct orca_dev *dev, dma_addr_t ring, u8 log2_depth,
		       unsigned int vector, u32 *eqn);
int orca_cmd_destroy_eq(struct orca_dev *dev, u32 eqn);
int orca_cmd_reg_mr(struct orca_dev *dev, const struct orca_hw_reg_mr *in,
		    u32 *key);
int orca_cmd_dereg_mr(struct orca_dev *dev, u32 key);
int orca_cmd_odp_update(struct orca_dev *dev, u32 key, enum orca_odp_op op,
			u64 page, u32 count, dma_addr_t pbl_addr, u16 epoch);
int orca_cmd_alloc_mw(struct orca_dev *dev, u32 pdn, u32 type, u32 variant,
		      u32 *key);
int orca_cmd_dealloc_mw(struct orca_dev *dev, u32 key);
int orca_cmd_create_cq(struct orca_dev *dev, u64 ring, u8 pbl_levels,
		       dma_addr_t db, u8 log2_depth, bool cqe64, u32 eqn,
		       u32 *cqn);
int orca_cmd_resize_cq(struct orca_dev *dev, u32 cqn, u64 ring,
		       u8 pbl_levels, dma_addr_t db, u8 log2_depth);
int orca_cmd_destroy_cq(struct orca_dev *dev, u32 cqn);
int orca_cmd_create_qp(struct orca_dev *dev, const struct orca_hw_create_qp *in,
		       u32 *qpn);
int orca_cmd_modify_qp(struct orca_dev *dev, u32 qpn,
		       const struct orca_hw_qp_attr *attr);
int orca_cmd_query_qp(struct orca_dev *dev, u32 qpn,
		      struct orca_hw_qp_attr *attr);
int orca_cmd_destroy_qp(struct orca_dev *dev, u32 qpn);
int orca_cmd_create_srq(struct orca_dev *dev, const struct orca_hw_srq *in,
			u32 *srqn);
int orca_cmd_modify_srq(struct orca_dev *dev, u32 srqn, u32 attr_mask,
			u32 max_wr, u32 limit);
int orca_cmd_query_srq(struct orca_dev *dev, u32 srqn, struct orca_hw_srq *out);
int orca_cmd_destroy_srq(struct orca_dev *dev, u32 srqn);
int orca_cmd_gid(struct orca_dev *dev, u8 opcode, const struct orca_cmd_gid *c);
int orca_cmd_mcast(struct orca_dev *dev, u8 opcode, const u8 *gid, u32 qpn);

/* orca_verbs.c */
int orca_udata_get_req(struct ib_udata *udata, void *req, size_t len);
int orca_udata_no_req(struct ib_udata *udata);
int orca_udata_put_resp(struct ib_udata *udata, void *resp, size_t len);
struct orca_qmem *orca_qmem_alloc(struct orca_dev *dev, size_t size,
				  bool user);
void orca_qmem_put(struct orca_qmem *qmem);
int orca_qmem_ring(struct orca_qmem *qmem, unsigned int idx, size_t off,
		   size_t bytes, u64 *addr, u8 *levels);
void orca_qmem_lists_done(struct orca_dev *dev, struct orca_qmem *qmem,
			  int ret);
struct orca_qmem *orca_qmem_create(struct orca_dev *dev, size_t ring_bytes,
				   bool user, const struct orca_ubuf *ubuf,
				   size_t *db_off);
int orca_udata_queue_req(struct orca_dev *dev, struct ib_udata *udata,
			 size_t resp_len, struct orca_ubuf *ubuf);
void orca_qmem_destroyed(struct orca_dev *dev, struct orca_qmem *qmem,
			 bool device_done);
void orca_zombies_release(struct orca_dev *dev);
int orca_qmem_expose(struct ib_ucontext *uctx, struct orca_qmem *qmem,
		     struct orca_mmap_entry **out, u64 *key);
void orca_qmem_unexpose(struct orca_mmap_entry *mentry);
int orca_destroy_queue(struct orca_dev *dev, struct xarray *xa, u32 handle,
		       void *obj, int (*destroy)(struct orca_dev *, u32),
		       struct orca_qmem *qmem, struct orca_mmap_entry *mentry,
		       const char *what, bool user, bool *refused);

/* orca_cq.c */
int orca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata);
int orca_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int orca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int orca_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int orca_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int orca_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* orca_qp.c */
int orca_ah_attr_to_av(const struct rdma_ah_attr *ah, struct orca_av *av);
int orca_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		   struct ib_udata *udata);
int orca_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int orca_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init);
int orca_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int orca_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int orca_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		    struct ib_udata *udata);
int orca_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata);
int orca_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int orca_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
u32 orca_access_to_hw(int access);
void orca_kwq_init(struct orca_kwq *wq, struct orca_qmem *qmem,
		   const struct orca_wq_geom *g, u32 db_offset, u32 max_wr);

/* orca_wr.c */
int orca_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int orca_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);
int orca_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);
int orca_wq_geom(u32 max_wr, u32 max_sge, u32 hdr, u32 min_stride,
		 u32 inline_len, struct orca_wq_geom *g);

/* orca_mr.c */
int orca_pbl_alloc(struct device *dmadev, u32 num_pages, struct orca_pbl *pbl);
void orca_pbl_set(struct orca_pbl *pbl, u32 i, dma_addr_t dma);
void orca_pbl_free(struct device *dmadev, struct orca_pbl *pbl);
struct ib_mr *orca_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *orca_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 virt, int access, struct ib_udata *udata);
struct ib_mr *orca_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				 u64 length, u64 virt, int access,
				 struct ib_pd *ibpd, struct ib_udata *udata);
struct ib_mr *orca_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			    u32 max_num_sg);
int orca_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);
int orca_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int orca_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int orca_dealloc_mw(struct ib_mw *ibmw);
int orca_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);
void orca_mr_zombies_release(struct orca_dev *dev);

/* orca_odp.c */
#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)
void orca_odp_dev_init(struct orca_dev *dev);
int orca_odp_start(struct orca_dev *dev);
void orca_odp_stop(struct orca_dev *dev);
int orca_odp_event(struct orca_dev *dev, u64 data, u32 key, u16 epoch);
void orca_odp_query_device(struct orca_dev *dev, struct ib_device_attr *props);
int orca_odp_mr_init(struct orca_mr *mr, struct ib_pd *ibpd, u64 start,
		     u64 length, u64 virt, int access);
int orca_odp_mr_publish(struct orca_dev *dev, struct orca_mr *mr);
int orca_odp_dereg(struct orca_dev *dev, struct orca_mr *mr);
void orca_odp_mr_destroy(struct orca_dev *dev, struct orca_mr *mr);
int orca_odp_fill_res(struct sk_buff *msg, struct orca_mr *mr);
int orca_advise_mr(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		   u32 flags, struct ib_sge *sg_list, u32 num_sge,
		   struct uverbs_attr_bundle *attrs);
#else
/* A kernel without CONFIG_INFINIBAND_ON_DEMAND_PAGING: no ODP regions. */
static inline void orca_odp_dev_init(struct orca_dev *dev)
{
}

static inline int orca_odp_start(struct orca_dev *dev)
{
	return 0;
}

static inline void orca_odp_stop(struct orca_dev *dev)
{
}

static inline int orca_odp_event(struct orca_dev *dev, u64 data, u32 key,
				 u16 epoch)
{
	return -EINVAL;
}

static inline void orca_odp_query_device(struct orca_dev *dev,
					 struct ib_device_attr *props)
{
}

static inline int orca_odp_mr_init(struct orca_mr *mr, struct ib_pd *ibpd,
				   u64 start, u64 length, u64 virt, int access)
{
	return -EOPNOTSUPP;
}

static inline int orca_odp_mr_publish(struct orca_dev *dev,
				      struct orca_mr *mr)
{
	return -EOPNOTSUPP;
}

static inline int orca_odp_dereg(struct orca_dev *dev, struct orca_mr *mr)
{
	return orca_cmd_dereg_mr(dev, mr->key);
}

static inline void orca_odp_mr_destroy(struct orca_dev *dev,
				       struct orca_mr *mr)
{
}

static inline int orca_odp_fill_res(struct sk_buff *msg, struct orca_mr *mr)
{
	return 0;
}

static inline int orca_advise_mr(struct ib_pd *ibpd,
				 enum ib_uverbs_advise_mr_advice advice,
				 u32 flags, struct ib_sge *sg_list,
				 u32 num_sge, struct uverbs_attr_bundle *attrs)
{
	return -EOPNOTSUPP;
}
#endif

/* orca_verbs.c */
extern const struct ib_device_ops orca_dev_ops;
int orca_port_attr_to_ib(const struct orca_hw_port_attr *hw,
			 struct ib_port_attr *attr);

#endif /* ORCA_H */
