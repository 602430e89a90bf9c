/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * liborca: the libibverbs provider for the Orca HCA.
 */
#ifndef ORCA_PROVIDER_H
#define ORCA_PROVIDER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "verbs_abi.h"
#include "orcadv.h"
#include <rdma/orca-abi.h>

#define ORCA_PROVIDER_NAME	"orca"

/*
 * orca.ko registers its ib_device with RDMA_DRIVER_UNKNOWN.  It is the
 * driver_id of libibverbs' context, and the kernel refuses (EINVAL) an
 * ioctl whose header carries another.
 */
#define ORCA_DRIVER_ID		RDMA_DRIVER_UNKNOWN

/* The wc_flags that give a CQ 64-byte entries with a timestamp. */
#define ORCA_WC_EX_TIMESTAMPS	(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |	\
				 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)

/*
 * The device clock, in which CQE timestamps are taken: nanoseconds
 * (hca_core_clock 1000000 kHz).  On the software device it is the host's
 * CLOCK_MONOTONIC_RAW (orca-hw-interface.rst), so the current device
 * time is a clock_gettime(), which the vDSO answers without a system
 * call.
 */
#define ORCA_DEVICE_CLOCK	CLOCK_MONOTONIC_RAW

static inline uint64_t orca_timespec_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
}

#define orca_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

struct orca_device {
	struct verbs_device vdev;
};

struct orca_context {
	struct verbs_context vctx;
	uint32_t hw_version;		/* the device's ORCA_REG_VERSION */
	size_t page_size;		/* mmap granule */
	bool user_buf;			/* ORCA_UCTX_RESP_USER_BUF: rings may
					 * be in the process's memory */
	bool qp_kick;			/* kick with ORCA_IB_METHOD_QP_KICK */
};

/*
 * A thread domain (ibv_alloc_td(3)): nothing but a promise from the
 * application, which a parent domain passes on to the QPs and CQs
 * created with it.  users counts the parent domains naming it.
 */
struct orca_td {
	struct ibv_td ibv_td;
	unsigned int users;		/* atomic */
};

/*
 * A PD, or a parent domain (ibv_alloc_parent_domain(3)).  A parent
 * domain is a copy of its PD's handle and pdn, so that every command
 * naming a PD sends the real PD's handle without knowing the difference,
 * plus real, the PD it stands for, its TD, if any, and the application's
 * ring allocator, if any (orcadv.h).  users counts, for a PD, the parent
 * domains of it; for a parent domain, the QPs, CQs and SRQs created with
 * it.
 */
struct orca_pd {
	struct ibv_pd ibv_pd;
	uint32_t pdn;
	struct orca_pd *real;		/* parent domain: its PD; PD: NULL */
	struct orca_td *td;		/* parent domain: its TD, or NULL */
	void *pd_context;		/* parent domain: PD_CONTEXT's pointer */
	/* parent domain: ALLOCATORS' functions, both or neither */
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	unsigned int users;		/* atomic */
};

/*
 * One mmap of a queue's memory, from the key and length of a udata
 * response: the ring(s), then a page of doorbell records; or, when the
 * rings are in an orca_ubuf, the page of doorbell records alone.
 */
struct orca_qmap {
	void *addr;			/* NULL when not mapped */
	size_t len;
};

/*
 * A queue's rings in the process's own memory (ORCA_QUEUE_REQ_USER_BUF),
 * from the allocator of the parent domain it was created with: alloc()
 * gave addr for type, and parent->free() gets it back once the kernel no
 * longer uses it.  The object holds that parent domain (users) until it
 * is destroyed, so the buffer never outlives it.
 */
struct orca_ubuf {
	void *addr;			/* NULL: the rings are in the mapping */
	size_t len;
	uint64_t type;			/* ORCADV_RES_TYPE_* */
	struct orca_pd *parent;
};

/*
 * A work queue ring as the kernel laid it out: SQ, RQ or SRQ.  The
 * producer index is free-running; the slot is prod & (depth - 1).  The
 * lock serialises posters; the device only ever writes cons and
 * dev_flags of the record.
 */
struct orca_wq {
	void *ring;			/* depth * stride bytes */
	struct orca_db_record *db;	/* producer doorbell record */
	uint32_t depth;			/* entries, a power of two */
	uint32_t stride;		/* bytes per WQE, a power of two */
	uint32_t max_sge;		/* SGEs that fit in one WQE */
	uint32_t max_wr;		/* reported max_*_wr: ENOMEM beyond */
	uint32_t max_post_sge;		/* reported max_*_sge: EINVAL beyond */
	uint32_t prod;			/* software producer index */
	uint32_t cons_seen;		/* the device's cons when last read */
	bool no_lock;			/* created under a thread domain */
	pthread_spinlock_t lock;
};

/*
 * A CQ.  Its entries are ORCA_CQE_SIZE bytes, or ORCA_CQE64_SIZE (a
 * struct orca_cqe, then a struct orca_cqe_ext with the timestamp) when
 * it was created with a completion timestamp flag in wc_flags.
 */
struct orca_cq {
	struct verbs_cq vcq;
	uint32_t cqn;
	uint32_t depth;			/* entries, a power of two */
	uint32_t log2_depth;
	uint32_t cqe_size;		/* ORCA_CQE_SIZE or ORCA_CQE64_SIZE */
	void *ring;			/* depth entries of cqe_size bytes */
	struct orca_db_record *db;	/* cons and arm words */
	uint32_t cons;			/* software consumer index */
	uint16_t arm_seq;		/* SEQ of the last arm written */
	bool arm_live;			/* that arm may not have fired yet */
	bool arm_solicited;		/* it was solicited-only */
	uint32_t arm_cons;		/* cons when it was written */
	uint32_t ex_start;		/* cons at start_poll */
	struct ibv_wc ex_wc;		/* the entry start/next_poll found */
	uint64_t ex_ts;			/* and its timestamp (64-byte entries) */
	bool ex_wallclock;		/* IBV_WC_EX_WITH_..._WALLCLOCK asked */
	uint64_t ex_wall_off;		/* CLOCK_REALTIME - device clock, ns,
					 * sampled at start_poll */
	bool no_lock;			/* created under a thread domain */
	pthread_spinlock_t lock;
	struct orca_pd *parent;		/* the parent domain it was created
					 * with (ibv_create_cq_ex), or NULL */
	struct orca_qmap map;
	struct orca_ubuf ubuf;		/* the ring, if the parent domain's
					 * allocator gave it */
	struct orca_ubuf orphan;	/* a ring the kernel took in a resize
					 * liborca could not use (ABI
					 * disagreement): freed with the CQ */
};

/* State of the ibv_wr_*() sequence between wr_start and wr_complete. */
struct orca_wr_batch {
	uint32_t start_prod;		/* sq.prod at wr_start */
	int err;			/* first error of the batch */
	struct orca_send_wqe *wqe;	/* the WQE the wr_set_*() calls fill */
	uint8_t opcode;			/* ORCA_WQE_OP_* of wqe */
	bool inline_ok;			/* wqe's opcode takes inline data */
	bool has_data;			/* SGEs or inline data were set */
	bool has_ud;			/* wr_set_ud_addr() was called */
	bool has_xrc;			/* wr_set_xrc_srqn() was called */
};

/*
 * A QP.  An XRC_SEND QP has an SQ only (rq.depth 0).  An XRC_RECV QP,
 * created or opened (ibv_open_qp), has no ring and no mapping at all:
 * the kernel creates it without udata, its receives go to the XRC SRQ
 * that each message names, and nothing may be posted to it.
 */
struct orca_qp {
	struct verbs_qp vqp;
	uint32_t qpn;
	uint32_t max_inline;		/* reported max_inline_data */
	uint32_t sq_hdr;		/* bytes before a send WQE's SGEs */
	bool sq_sig_all;
	int state;			/* enum ibv_qp_state, atomic access */
	struct orca_wq sq;
	struct orca_wq rq;		/* depth 0 when the QP uses an SRQ */
	struct orca_wr_batch wr;
	struct orca_qmap map;
	struct orca_ubuf ubuf;		/* the rings, if the parent domain's
					 * allocator gave them */
	struct orca_pd *parent;		/* the parent domain it was created
					 * with, or NULL */
};

/*
 * An SRQ, basic or XRC: the same ring either way.  vsrq.srq_type says
 * which; an XRC SRQ also has vsrq.xrcd, vsrq.cq and vsrq.srq_num (equal
 * to srqn, the number senders put in their WQEs' xrc_srqn).
 */
struct orca_srq {
	struct verbs_srq vsrq;
	uint32_t srqn;
	struct orca_wq wq;
	struct orca_qmap map;
	struct orca_ubuf ubuf;		/* the ring, if the parent domain's
					 * allocator gave it */
	struct orca_pd *parent;		/* the parent domain it was created
					 * with, or NULL */
};

/* An AH is its address vector: UD WQEs carry a copy. */
struct orca_ah {
	struct ibv_ah ibv_ah;
	struct orca_av av;
};

/*
 * Device memory (ibv_alloc_dm(3), interface 1.4): an allocation in the
 * device's aperture, mapped through the uverbs fd from its first byte.
 * length is what was allocated, the bound of memcpy_{to,from}_dm; the
 * mapping is that rounded up to whole pages.
 */
struct orca_dm {
	struct verbs_dm vdm;
	void *addr;
	size_t map_len;
	size_t length;
};

static inline struct orca_context *to_octx(struct ibv_context *ibctx)
{
	return orca_container_of(ibctx, struct orca_context, vctx.context);
}

static inline struct orca_pd *to_opd(struct ibv_pd *ibpd)
{
	return orca_container_of(ibpd, struct orca_pd, ibv_pd);
}

static inline struct orca_td *to_otd(struct ibv_td *ibtd)
{
	return orca_container_of(ibtd, struct orca_td, ibv_td);
}

/* A PD of ctx that is a parent domain; NULL for anything else. */
static inline struct orca_pd *orca_parent_domain(struct ibv_context *ctx,
						 struct ibv_pd *ibpd)
{
	if (!ibpd || ibpd->context != ctx || !to_opd(ibpd)->real)
		return NULL;
	return to_opd(ibpd);
}

/*
 * Whether two PDs are the same protection domain: a parent domain is
 * its PD.  A PD of another context (or provider) is never looked into.
 */
static inline bool orca_same_pd(const struct ibv_pd *a, const struct ibv_pd *b)
{
	const struct orca_pd *pa, *pb;

	if (a == b)
		return true;
	if (!a || !b || a->context != b->context)
		return false;
	pa = orca_container_of(a, const struct orca_pd, ibv_pd);
	pb = orca_container_of(b, const struct orca_pd, ibv_pd);
	return (pa->real ? pa->real : pa) == (pb->real ? pb->real : pb);
}

static inline struct orca_cq *to_ocq(struct ibv_cq *ibcq)
{
	return orca_container_of(ibcq, struct orca_cq, vcq.cq);
}

static inline struct orca_qp *to_oqp(struct ibv_qp *ibqp)
{
	return orca_container_of(ibqp, struct orca_qp, vqp.qp);
}

static inline struct orca_srq *to_osrq(struct ibv_srq *ibsrq)
{
	return orca_container_of(ibsrq, struct orca_srq, vsrq.srq);
}

static inline struct verbs_xrcd *to_vxrcd(struct ibv_xrcd *ibxrcd)
{
	return orca_container_of(ibxrcd, struct verbs_xrcd, xrcd);
}

static inline struct orca_ah *to_oah(struct ibv_ah *ibah)
{
	return orca_container_of(ibah, struct orca_ah, ibv_ah);
}

static inline struct orca_dm *to_odm(struct ibv_dm *ibdm)
{
	return orca_container_of(ibdm, struct orca_dm, vdm.dm);
}

/* Where a send WQE's SGEs or inline data start: after the UD AV, if any. */
static inline void *orca_send_payload(const struct orca_qp *qp,
				      struct orca_send_wqe *wqe)
{
	return (char *)wqe + qp->sq_hdr;
}

/*
 * The SQ, RQ and CQ locks.  A queue created under a thread domain has
 * no_lock set for its whole life: the application has promised not to
 * use it from two threads at once (ibv_alloc_td(3)), so these skip the
 * lock.  For every other queue the cost is one predictable branch on a
 * field next to the lock.
 */
static inline void orca_wq_lock(struct orca_wq *wq)
{
	if (!wq->no_lock)
		pthread_spin_lock(&wq->lock);
}

static inline void orca_wq_unlock(struct orca_wq *wq)
{
	if (!wq->no_lock)
		pthread_spin_unlock(&wq->lock);
}

static inline void orca_cq_lock(struct orca_cq *cq)
{
	if (!cq->no_lock)
		pthread_spin_lock(&cq->lock);
}

static inline void orca_cq_unlock(struct orca_cq *cq)
{
	if (!cq->no_lock)
		pthread_spin_unlock(&cq->lock);
}

/*
 * Diagnostics go through libibverbs' log (VERBS_LOG_LEVEL, VERBS_LOG_FILE).
 * Its logger does not look at the context, so these are usable before
 * one exists.
 */
#define orca_log(level, fmt, ...) \
	__verbs_log(NULL, level, "liborca: %s: " fmt, __func__, ##__VA_ARGS__)
#define orca_err(fmt, ...)	orca_log(VERBS_LOG_ERR, fmt, ##__VA_ARGS__)
#define orca_info(fmt, ...)	orca_log(VERBS_LOG_INFO, fmt, ##__VA_ARGS__)
#define orca_dbg(fmt, ...)	orca_log(VERBS_LOG_DEBUG, fmt, ##__VA_ARGS__)

/* verbs.c */
/* An ioctl method liborca builds itself (verbs.c). */
struct ib_uverbs_attr;
int orca_ioctl(struct ibv_context *ibctx, uint16_t object, uint16_t method,
	       struct ib_uverbs_attr *attrs, unsigned int nattrs);
int orca_query_device_ex(struct ibv_context *ibctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int orca_query_port(struct ibv_context *ibctx, uint8_t port_num,
		    struct ibv_port_attr *port_attr);
int orca_query_rt_values(struct ibv_context *ibctx,
			 struct ibv_values_ex *values);
struct ibv_pd *orca_alloc_pd(struct ibv_context *ibctx);
int orca_dealloc_pd(struct ibv_pd *ibpd);
struct ibv_td *orca_alloc_td(struct ibv_context *ibctx,
			     struct ibv_td_init_attr *attr);
int orca_dealloc_td(struct ibv_td *ibtd);
struct ibv_pd *orca_alloc_parent_domain(struct ibv_context *ibctx,
					struct ibv_parent_domain_init_attr *attr);
void orca_parent_get(struct orca_pd *parent);
void orca_parent_put(struct orca_pd *parent);
struct ibv_mr *orca_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
			   uint64_t hca_va, int access);
int orca_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access);
int orca_dereg_mr(struct verbs_mr *vmr);
struct ibv_mw *orca_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type);
int orca_dealloc_mw(struct ibv_mw *mw);
struct ibv_ah *orca_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr);
int orca_destroy_ah(struct ibv_ah *ibah);
struct ibv_xrcd *orca_open_xrcd(struct ibv_context *ibctx,
				struct ibv_xrcd_init_attr *attr);
int orca_close_xrcd(struct ibv_xrcd *ibxrcd);
struct ibv_dm *orca_alloc_dm(struct ibv_context *ibctx,
			     struct ibv_alloc_dm_attr *attr);
int orca_free_dm(struct ibv_dm *ibdm);
struct ibv_dm *orca_import_dm(struct ibv_context *ibctx, uint32_t dm_handle);
void orca_unimport_dm(struct ibv_dm *ibdm);
struct ibv_mr *orca_reg_dm_mr(struct ibv_pd *ibpd, struct ibv_dm *ibdm,
			      uint64_t dm_offset, size_t length,
			      unsigned int access);

/* queue.c */
struct orca_cq *orca_create_cq_common(struct ibv_context *ibctx,
				      const struct ibv_cq_init_attr_ex *attr,
				      struct orca_pd *parent);
struct ibv_cq *orca_create_cq(struct ibv_context *ibctx, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector);
int orca_resize_cq(struct ibv_cq *ibcq, int cqe);
int orca_destroy_cq(struct ibv_cq *ibcq);
struct ibv_qp *orca_create_qp(struct ibv_pd *ibpd,
			      struct ibv_qp_init_attr *attr);
struct ibv_qp *orca_create_qp_ex(struct ibv_context *ibctx,
				 struct ibv_qp_init_attr_ex *attr);
int orca_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask);
int orca_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr);
int orca_destroy_qp(struct ibv_qp *ibqp);
struct ibv_qp *orca_open_qp(struct ibv_context *ibctx,
			    struct ibv_qp_open_attr *attr);
struct ibv_srq *orca_create_srq(struct ibv_pd *ibpd,
				struct ibv_srq_init_attr *attr);
struct ibv_srq *orca_create_srq_ex(struct ibv_context *ibctx,
				   struct ibv_srq_init_attr_ex *attr);
int orca_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num);
int orca_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask);
int orca_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int orca_destroy_srq(struct ibv_srq *ibsrq);

/* exverbs.c */
struct ibv_cq_ex *orca_create_cq_ex(struct ibv_context *ibctx,
				    struct ibv_cq_init_attr_ex *attr);
uint64_t orca_qp_ex_send_ops(enum ibv_qp_type type);
void orca_qp_init_ex(struct orca_qp *qp);

/* datapath.c */
int orca_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
int orca_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind);
int orca_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);
int orca_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);
int orca_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc);
int orca_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
void orca_cq_event(struct ibv_cq *ibcq);
void orca_qp_reset_indices(struct orca_qp *qp);
int orca_wq_init(struct orca_wq *wq, uint32_t max_wr, uint32_t max_sge);
void orca_wq_fini(struct orca_wq *wq);

#endif /* ORCA_PROVIDER_H */
