// SPDX-License-Identifier: GPL-2.0-only
/*
 * liborca's data path without a kernel.  The uverbs commands are
 * answered here, through fake-kernel.h (run by fake-sysfs.sh), and the
 * anonymous memory that stands for each queue's mapping is treated as
 * the device would: this program reads the WQEs and prod that liborca
 * writes, and writes cons, dev_flags and CQEs.
 *
 * What is checked: the WQE and CQE formats of uapi/rdma/orca-abi.h, the
 * posting rules of ibv_post_send(3)/ibv_post_recv(3) (ENOMEM at the
 * reported limit, *bad_wr, EINVAL cases, RESET), the kick only when
 * ORCA_DB_DEV_POLLING is clear (counted as POST_SEND/POST_RECV/
 * REQ_NOTIFY_CQ commands), the CQ arm word sequence, the owner bit over
 * several passes of the ring, resize, and posting from several threads;
 * CQs with completion timestamps (64-byte entries, the CREATE_CQ flag,
 * read_completion_ts and _wallclock_ns), the device clock in
 * query_device_ex and query_rt_values_ex; thread and parent domains
 * (their rules, and QPs and CQs under a TD working without their
 * locks); XRC (interface 1.4): the xrc_srqn of every send WQE (the
 * target SRQ on an XRC_SEND QP, per opcode, through ibv_post_send and
 * ibv_wr_set_xrc_srqn; 0 everywhere else), XRC_RECV and opened QPs that
 * refuse every post, and receives on an XRC SRQ; device memory
 * (interface 1.4): max_dm_size, ibv_memcpy_to_dm/from_dm against the
 * memory behind the mapping and their bounds, and a WQE on a region of
 * device memory; custom allocators of parent domains (orcadv.h): the
 * calls (size, alignment, resource type, pd and pd_context), the
 * buffer named in the request (ORCA_QUEUE_REQ_USER_BUF), zeroed, the
 * rings and CQEs really in it and the doorbells in the mapped page,
 * resize, IBV_ALLOCATOR_USE_DEFAULT, NULL, a misaligned or read-only
 * buffer, failed creates and destroys, and free() exactly once per
 * buffer, after the kernel let go of it.  The fake kernel takes a
 * buffer as orca.ko does: the request checked, the exact length, and
 * memory the process can write.  TAP output.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/orca-abi.h>

#include "fake-kernel.h"
/* For the lock-elision checks: the provider's QP and CQ structures. */
#include "../liborca/orca.h"
#include "../liborca/orcadv.h"

#define PAGE	4096

/* The geometry the fake kernel gives every QP, SRQ and CQ. */
#define SQ_DEPTH	8
#define SQ_STRIDE	256	/* room for a UD WQE: 96-byte header + MAX_INLINE */
#define SQ_MAX_WR	6	/* reported: below the depth on purpose */
#define SQ_MAX_SGE	4
#define MAX_INLINE	64
#define RQ_DEPTH	8
#define RQ_STRIDE	64	/* 16-byte header + 3 SGEs */
#define RQ_MAX_WR	6
#define RQ_MAX_SGE	3
#define SRQ_DEPTH	8
#define SRQ_MAX_WR	5
/* The address vector the fake kernel returns for every AH. */
static const struct orca_av fake_av = {
	.dgid = { 0xfe, 0x80, [15] = 0x42 },
	.info = 0x12345678,
	.dmac = { 2, 0, 0, 0, 0, 0x42 },
	.vlan = 0xffff,
	.hop_limit = 64,
	.traffic_class = 0x10,
};

/* --- the fake kernel --------------------------------------------------- */

static unsigned int n_cmd[64];		/* commands seen, by number */
static uint32_t last_wr_count;		/* of the last POST_SEND/RECV */
static uint32_t last_solicited;		/* of the last REQ_NOTIFY_CQ */
static uint64_t next_key = 16 * PAGE;
static uint32_t next_qpn = 0x100;
static uint32_t next_pd_handle = 1;
static uint32_t last_qp_pd;		/* pd_handle of the last CREATE_QP */

static uint64_t last_key;		/* of the last CREATE/RESIZE answered */
static int chan_wfd = -1;	/* write end of the fake completion channel */

/* Memory windows: the last ALLOC_MW and DEALLOC_MW seen. */
static size_t last_mw_len, last_mw_out;	/* ALLOC_MW request/response sizes */
static uint32_t last_mw_pd, last_mw_type, last_mw_reserved;
static uint32_t last_dealloc_mw;	/* DEALLOC_MW handle */
static uint32_t next_mw = 0x123;	/* key index of the next window */
#define MR_LKEY		0x00abcd01	/* the lkey of every fake MR */

/* XRC: the domain handle, and the SRQ number of every XRC SRQ. */
#define XRCD_HANDLE	11
#define XSRQN		0x4242

/* Completion timestamps: whether the fake device has them. */
static bool dev_has_ts = true;
static unsigned int n_create_cq_ex;	/* extended CREATE_CQ commands */
static uint32_t last_cq_flags;		/* of the last CREATE_CQ */
static uint32_t next_cq_handle = 3;
static uint32_t cq_cqe_size[64];	/* by handle: each CQ's entry size */
/* What the extended QUERY_DEVICE reports. */
#define FAKE_TS_MASK	UINT64_MAX
#define FAKE_CORE_CLOCK	1000000		/* kHz: a nanosecond clock */
#define FAKE_DM_SIZE	(256 * 1024)	/* bytes of device memory */

/* Device memory: the key of the last DM_ALLOC, the DM_FREEs seen. */
#define DM_MR_LKEY	0x00dd0201	/* the lkey and rkey of every DM MR */
static uint64_t last_dm_key;
static uint32_t next_dm_handle = 1;
static unsigned int n_dm_free;

/*
 * Rings in the process's memory.  ALLOC_UCONTEXT offers them
 * (uctx_comp_mask).  For each queue command the fake kernel keeps the
 * length of the Orca request, and of a USER_BUF one the buffer, whether
 * it was zero when the command arrived, and the count of such commands.
 * create_err fails the next queue command (CREATE_*, RESIZE_CQ) after
 * its request was checked, destroy_err the next DESTROY_*; ubuf_defect
 * gives the next USER_BUF answer a ring twice as deep as the buffer was
 * sized for.  destroy_seq is the fake_seq of the last DESTROY_*.
 */
static uint32_t uctx_comp_mask = ORCA_UCTX_RESP_USER_BUF;
static size_t last_qreq_len;
static struct {
	uint64_t addr, len;
	bool zeroed;
	unsigned int n;
} ubuf_seen;
static int create_err, destroy_err;
static bool ubuf_defect;
static unsigned int destroy_seq;
static int zero_fd = -1;		/* /dev/zero, for take_ubuf() */

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p *= 2;
	return p;
}

static uint64_t page_up(uint64_t v)
{
	return (v + PAGE - 1) / PAGE * PAGE;
}

/* The Orca request of a legacy write() command with a @core-byte core. */
static const void *legacy_drv(const void *cmd, size_t len, size_t core,
			      size_t *drv_len)
{
	size_t head = sizeof(struct ib_uverbs_cmd_hdr) + core;

	*drv_len = len > head ? len - head : 0;
	return (const char *)cmd + head;
}

/*
 * A queue command's Orca request, checked as orca.ko checks it: 0 or
 * EINVAL; r->buf_len is 0 without a buffer.  The four requests share the
 * layout of orca_create_cq_req.
 */
static int parse_qreq(const void *drv, size_t len,
		      struct orca_create_cq_req *r)
{
	memset(r, 0, sizeof(*r));
	last_qreq_len = len;
	if (len < offsetof(struct orca_create_cq_req, buf_addr))
		return EINVAL;
	memcpy(r, drv, len < sizeof(*r) ? len : sizeof(*r));
	if (r->comp_mask & ~ORCA_QUEUE_REQ_USER_BUF || r->reserved)
		return EINVAL;
	if (!(r->comp_mask & ORCA_QUEUE_REQ_USER_BUF))
		return r->buf_addr || r->buf_len ? EINVAL : 0;
	if (len < sizeof(*r) || !r->buf_len || r->buf_addr % PAGE)
		return EINVAL;
	return 0;
}

/*
 * Takes the buffer of @r for rings of @want bytes, as orca.ko does: the
 * exact length (EINVAL), pinned writable, which a read() from /dev/zero
 * into it stands for (EFAULT for memory the process cannot write).
 * Notes whether liborca had zeroed it.  Then the queue command may still
 * fail (create_err).
 */
static int take_ubuf(const struct orca_create_cq_req *r, uint64_t want)
{
	unsigned char *p = (unsigned char *)(uintptr_t)r->buf_addr;
	bool zeroed = true;
	int err;

	if (r->buf_len != want)
		return EINVAL;
	for (uint64_t i = 0; i < r->buf_len && zeroed; i++)
		zeroed = !p[i];
	ubuf_seen.addr = r->buf_addr;
	ubuf_seen.len = r->buf_len;
	ubuf_seen.zeroed = zeroed;
	ubuf_seen.n++;
	if (read(zero_fd, p, r->buf_len) != (ssize_t)r->buf_len)
		return errno ? errno : EFAULT;
	err = create_err;
	create_err = 0;
	return err;
}

/* A queue command without a buffer may fail too (create_err). */
static int queue_cmd_err(void)
{
	int err = create_err;

	create_err = 0;
	return err;
}

static int destroy_cmd(void)
{
	int err = destroy_err;

	destroy_err = 0;
	destroy_seq = ++fake_seq;
	return err;
}

static uint32_t cq_depth_for(uint32_t cqe)
{
	uint32_t depth = 2;

	while (depth < cqe)
		depth *= 2;
	return depth;
}

/* The ring of a CQ of this depth and entry size, as orca.ko lays it out. */
static uint32_t cq_db_offset(uint32_t depth, uint32_t cqe_size)
{
	return (depth * cqe_size + PAGE - 1) / PAGE * PAGE;
}

/*
 * CREATE_CQ, legacy or extended (ex): 64-byte entries with the
 * timestamp flag, which a device without timestamps refuses; the ring
 * in the process's buffer with USER_BUF in the Orca request at @drv.
 */
static int create_cq(uint64_t resp, size_t out_len, uint32_t cqe,
		     uint32_t flags, bool ex, const void *drv, size_t drv_len)
{
	uint32_t depth = cq_depth_for(cqe), handle;
	uint32_t size = flags ? ORCA_CQE64_SIZE : ORCA_CQE_SIZE;
	struct ib_uverbs_ex_create_cq_resp c;
	struct orca_create_cq_resp d;
	struct orca_create_cq_req r;
	int err;

	last_cq_flags = flags;
	if (flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
		return EINVAL;
	if (flags && !dev_has_ts)
		return EOPNOTSUPP;
	err = parse_qreq(drv, drv_len, &r);
	if (!err)
		err = r.buf_len ? take_ubuf(&r, page_up((uint64_t)depth * size)) :
				  queue_cmd_err();
	if (err)
		return err;

	handle = next_cq_handle++;
	c = (struct ib_uverbs_ex_create_cq_resp){
		.base = { .cq_handle = handle, .cqe = depth },
		.response_length = sizeof(c),
	};
	d = (struct orca_create_cq_resp){
		.cqn = 7, .cqe_count = depth, .cqe_size = size,
		.mmap_key = next_key,
		.db_offset = cq_db_offset(depth, size),
	};
	d.mmap_len = d.db_offset + PAGE;
	if (r.buf_len) {
		/* The ring is the buffer; the mapping the doorbell page. */
		d.db_offset = 0;
		d.mmap_len = PAGE;
		if (ubuf_defect)
			d.cqe_count = depth * 2;
		ubuf_defect = false;
	}
	cq_cqe_size[handle % 64] = size;
	last_key = next_key;
	next_key += 64 * PAGE;
	if (ex)
		put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
	else
		put(resp, &c.base, sizeof(c.base), &d, sizeof(d), out_len);
	return 0;
}

/*
 * CREATE_QP with its rings in the process's buffer: sized from the caps
 * asked for as orca.ko sizes them (orca-abi.h), the SQ ring then the RQ
 * ring in the buffer, the caps reported as asked, the doorbell records
 * at the start of a one-page mapping.
 */
static int ubuf_qp(const struct ib_uverbs_create_qp *req,
		   const struct orca_create_qp_req *r,
		   struct ib_uverbs_create_qp_resp *c,
		   struct orca_create_qp_resp *d)
{
	bool no_rq = req->is_srq || req->qp_type == IBV_QPT_XRC_SEND;
	uint32_t hdr = req->qp_type == IBV_QPT_UD ? ORCA_UD_SEND_WQE_HDR_SIZE :
		       ORCA_SEND_WQE_HDR_SIZE;
	uint64_t sq_stride, sq_depth, rq_stride = 0, rq_depth = 0;
	uint64_t sq_bytes, rq_bytes = 0;
	int err;

	sq_stride = hdr + 16ULL * req->max_send_sge;
	if (hdr + (uint64_t)req->max_inline_data > sq_stride)
		sq_stride = hdr + (uint64_t)req->max_inline_data;
	sq_stride = pow2_at_least(sq_stride < 128 ? 128 : sq_stride);
	sq_depth = pow2_at_least(req->max_send_wr ? req->max_send_wr : 1);
	sq_bytes = page_up(sq_depth * sq_stride);
	if (!no_rq) {
		rq_stride = ORCA_RECV_WQE_HDR_SIZE + 16ULL * req->max_recv_sge;
		rq_stride = pow2_at_least(rq_stride < 32 ? 32 : rq_stride);
		rq_depth = pow2_at_least(req->max_recv_wr ? req->max_recv_wr : 1);
		rq_bytes = page_up(rq_depth * rq_stride);
	}
	err = take_ubuf((const struct orca_create_cq_req *)r,
			sq_bytes + rq_bytes);
	if (err)
		return err;

	c->max_send_wr = req->max_send_wr;
	c->max_recv_wr = no_rq ? 0 : req->max_recv_wr;
	c->max_send_sge = req->max_send_sge;
	c->max_recv_sge = no_rq ? 0 : req->max_recv_sge;
	c->max_inline_data = req->max_inline_data;
	d->sq_depth = sq_depth;
	d->sq_stride = sq_stride;
	d->rq_depth = rq_depth;
	d->rq_stride = rq_stride;
	d->max_inline = req->max_inline_data;
	d->sq_offset = 0;
	d->rq_offset = no_rq ? 0 : sq_bytes;
	d->db_offset = 0;
	d->mmap_len = PAGE;
	if (ubuf_defect)
		d->sq_depth *= 2;
	ubuf_defect = false;
	return 0;
}

/*
 * CREATE_SRQ and CREATE_XSRQ: the Orca request at @drv checked, and with
 * USER_BUF the ring sized from max_wr and max_sge, in the buffer, the
 * caps reported as asked, the doorbell record in a one-page mapping.
 */
static int ubuf_srq(const void *drv, size_t drv_len, uint32_t max_wr,
		    uint32_t max_sge, struct ib_uverbs_create_srq_resp *c,
		    struct orca_create_srq_resp *d)
{
	struct orca_create_srq_req r;
	uint64_t stride, depth;
	int err;

	err = parse_qreq(drv, drv_len, (struct orca_create_cq_req *)&r);
	if (err || !r.buf_len)
		return err ? err : queue_cmd_err();
	stride = ORCA_RECV_WQE_HDR_SIZE + 16ULL * max_sge;
	stride = pow2_at_least(stride < 32 ? 32 : stride);
	depth = pow2_at_least(max_wr ? max_wr : 1);
	err = take_ubuf((const struct orca_create_cq_req *)&r,
			page_up(depth * stride));
	if (err)
		return err;
	c->max_wr = max_wr;
	c->max_sge = max_sge;
	d->depth = ubuf_defect ? depth * 2 : depth;
	d->stride = stride;
	d->db_offset = 0;
	d->mmap_len = PAGE;
	ubuf_defect = false;
	return 0;
}

static int answer(const void *cmd, size_t len)
{
	const struct ib_uverbs_cmd_hdr *hdr = cmd;
	const uint64_t *core = (const void *)(hdr + 1);
	size_t out_len = (size_t)hdr->out_words * 4;
	uint64_t resp = len >= sizeof(*hdr) + 8 ? core[0] : 0;

	if (hdr->command < 64)
		n_cmd[hdr->command]++;

	switch (hdr->command) {
	case IB_USER_VERBS_CMD_GET_CONTEXT: {
		struct ib_uverbs_get_context_resp c = {
			.async_fd = open("/dev/null", O_RDONLY | O_CLOEXEC),
			.num_comp_vectors = 1,
		};
		struct orca_alloc_ucontext_resp d = {
			.comp_mask = uctx_comp_mask,
			.abi_version = ORCA_UVERBS_ABI_VERSION,
		};
		put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_ALLOC_PD: {
		struct ib_uverbs_alloc_pd_resp c = {
			.pd_handle = next_pd_handle++,
		};
		struct orca_alloc_pd_resp d = { .pdn = 1 };

		put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_CREATE_CQ: {
		const struct ib_uverbs_create_cq *req = (const void *)core;
		size_t n;
		const void *drv = legacy_drv(cmd, len, sizeof(*req), &n);

		return create_cq(resp, out_len, req->cqe, 0, false, drv, n);
	}
	case FAKE_EX(IB_USER_VERBS_EX_CMD_CREATE_CQ): {
		const struct ib_uverbs_ex_create_cq *req = ex_req_of(hdr);

		n_create_cq_ex++;
		return create_cq(resp, ex_out_len(hdr), req->cqe, req->flags,
				 true, (const char *)req + hdr->in_words * 8,
				 ex_hdr_of(hdr)->provider_in_words * 8);
	}
	case FAKE_EX(IB_USER_VERBS_EX_CMD_QUERY_DEVICE): {
		struct ib_uverbs_ex_query_device_resp c = {
			.base = { .fw_ver = 0x000100020003ULL, .max_cqe = 65536 },
			.response_length = sizeof(c),
			.timestamp_mask = dev_has_ts ? FAKE_TS_MASK : 0,
			.hca_core_clock = dev_has_ts ? FAKE_CORE_CLOCK : 0,
			.max_dm_size = FAKE_DM_SIZE,
		};
		size_t n = ex_out_len(hdr);

		memcpy((void *)(uintptr_t)resp, &c, n < sizeof(c) ? n : sizeof(c));
		return 0;
	}
	case IB_USER_VERBS_CMD_RESIZE_CQ: {
		const struct ib_uverbs_resize_cq *req = (const void *)core;
		uint32_t depth = cq_depth_for(req->cqe);
		uint32_t size = cq_cqe_size[req->cq_handle % 64];
		struct ib_uverbs_resize_cq_resp c = { .cqe = depth };
		struct orca_resize_cq_resp d = {
			.cqe_count = depth, .mmap_key = next_key,
		};
		struct orca_create_cq_req r;
		size_t n;
		const void *drv = legacy_drv(cmd, len, sizeof(*req), &n);
		int err;

		err = parse_qreq(drv, n, &r);
		if (!err)
			err = r.buf_len ?
			      take_ubuf(&r, page_up((uint64_t)depth * size)) :
			      queue_cmd_err();
		if (err)
			return err;
		/* The new ring has the CQ's entry size. */
		d.db_offset = cq_db_offset(depth, size);
		d.mmap_len = d.db_offset + PAGE;
		if (r.buf_len) {
			d.db_offset = 0;
			d.mmap_len = PAGE;
		}
		last_key = next_key;
		next_key += 64 * PAGE;
		put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_CREATE_QP: {
		const struct ib_uverbs_create_qp *req = (const void *)core;
		uint32_t qpn = next_qpn++;
		/* XRC_SEND (XRC_INI) has no RQ, XRC_RECV (XRC_TGT) no queue. */
		bool no_rq = req->is_srq || req->qp_type == IBV_QPT_XRC_SEND;
		struct ib_uverbs_create_qp_resp c = {
			.qp_handle = qpn, .qpn = qpn,
			.max_send_wr = SQ_MAX_WR,
			.max_recv_wr = no_rq ? 0 : RQ_MAX_WR,
			.max_send_sge = SQ_MAX_SGE,
			.max_recv_sge = no_rq ? 0 : RQ_MAX_SGE,
			.max_inline_data = MAX_INLINE,
		};
		struct orca_create_qp_resp d = {
			.qpn = qpn, .sq_depth = SQ_DEPTH, .sq_stride = SQ_STRIDE,
			.rq_depth = no_rq ? 0 : RQ_DEPTH,
			.rq_stride = no_rq ? 0 : RQ_STRIDE,
			.max_inline = MAX_INLINE, .sq_offset = 0,
			.rq_offset = PAGE, .db_offset = 2 * PAGE,
			.mmap_key = next_key, .mmap_len = 3 * PAGE,
		};

		struct orca_create_qp_req r;
		size_t n;
		const void *drv = legacy_drv(cmd, len, sizeof(*req), &n);
		int err;

		last_qp_pd = req->pd_handle;
		if (req->qp_type == IBV_QPT_XRC_RECV) {
			/* No udata: the core response alone, no memory. */
			c = (struct ib_uverbs_create_qp_resp){
				.qp_handle = qpn, .qpn = qpn,
			};
			put(resp, &c, sizeof(c), NULL, 0, out_len);
			return 0;
		}
		err = parse_qreq(drv, n, (struct orca_create_cq_req *)&r);
		if (!err && r.buf_len)
			err = ubuf_qp(req, &r, &c, &d);
		else if (!err)
			err = queue_cmd_err();
		if (err)
			return err;
		last_key = next_key;
		next_key += 64 * PAGE;
		put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_CREATE_SRQ: {
		const struct ib_uverbs_create_srq *req = (const void *)core;
		struct ib_uverbs_create_srq_resp c = {
			.srq_handle = 5, .max_wr = SRQ_MAX_WR,
			.max_sge = RQ_MAX_SGE,
		};
		struct orca_create_srq_resp d = {
			.srqn = 9, .depth = SRQ_DEPTH, .stride = RQ_STRIDE,
			.mmap_key = next_key, .mmap_len = 2 * PAGE,
			.db_offset = PAGE,
		};
		size_t n;
		const void *drv = legacy_drv(cmd, len, sizeof(*req), &n);
		int err;

		err = ubuf_srq(drv, n, req->max_wr, req->max_sge, &c, &d);
		if (err)
			return err;
		last_key = next_key;
		next_key += 64 * PAGE;
		put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_CREATE_XSRQ: {
		/* An XRC SRQ: a basic SRQ's ring, and its number. */
		const struct ib_uverbs_create_xsrq *req = (const void *)core;
		struct ib_uverbs_create_srq_resp c = {
			.srq_handle = 6, .max_wr = SRQ_MAX_WR,
			.max_sge = RQ_MAX_SGE, .srqn = XSRQN,
		};
		struct orca_create_srq_resp d = {
			.srqn = XSRQN, .depth = SRQ_DEPTH, .stride = RQ_STRIDE,
			.mmap_key = next_key, .mmap_len = 2 * PAGE,
			.db_offset = PAGE,
		};
		size_t n;
		const void *drv = legacy_drv(cmd, len, sizeof(*req), &n);
		int err;

		err = ubuf_srq(drv, n, req->max_wr, req->max_sge, &c, &d);
		if (err)
			return err;
		last_key = next_key;
		next_key += 64 * PAGE;
		put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_OPEN_XRCD: {
		struct ib_uverbs_open_xrcd_resp c = { .xrcd_handle = XRCD_HANDLE };

		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_OPEN_QP: {
		const struct ib_uverbs_open_qp *req = (const void *)core;
		struct ib_uverbs_create_qp_resp c = {
			.qp_handle = 0x800 + req->qpn, .qpn = req->qpn,
		};

		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_QUERY_QP: {
		struct ib_uverbs_query_qp_resp c = {
			.qp_state = IBV_QPS_INIT, .cur_qp_state = IBV_QPS_INIT,
		};

		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL: {
		struct ib_uverbs_create_comp_channel_resp c;
		int p[2];

		if (pipe(p))
			return errno;
		chan_wfd = p[1];
		c.fd = p[0];
		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_CREATE_AH: {
		struct ib_uverbs_create_ah_resp c = { .ah_handle = 6 };
		struct orca_create_ah_resp d = { .av = fake_av };

		put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_POST_SEND:
	case IB_USER_VERBS_CMD_POST_RECV: {
		const struct ib_uverbs_post_send *req = (const void *)core;
		struct ib_uverbs_post_send_resp c = {};

		last_wr_count = req->wr_count;
		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_REQ_NOTIFY_CQ: {
		const struct ib_uverbs_req_notify_cq *req = (const void *)core;

		last_solicited = req->solicited_only;
		return 0;
	}
	case IB_USER_VERBS_CMD_DESTROY_CQ: {
		struct ib_uverbs_destroy_cq_resp c = {};

		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return destroy_cmd();
	}
	case IB_USER_VERBS_CMD_DESTROY_QP: {
		struct ib_uverbs_destroy_qp_resp c = {};

		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return destroy_cmd();
	}
	case IB_USER_VERBS_CMD_DESTROY_SRQ: {
		struct ib_uverbs_destroy_srq_resp c = {};

		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return destroy_cmd();
	}
	case IB_USER_VERBS_CMD_REG_MR: {
		struct ib_uverbs_reg_mr_resp c = {
			.mr_handle = 4, .lkey = MR_LKEY, .rkey = MR_LKEY,
		};

		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_ALLOC_MW: {
		const struct ib_uverbs_alloc_mw *req = (const void *)core;
		uint32_t idx = next_mw++;
		/* Type 1 keys start at variant 0xff: the first bind wraps. */
		struct ib_uverbs_alloc_mw_resp c = {
			.mw_handle = idx,
			.rkey = idx << 8 | (req->mw_type == 1 ? 0xff : 0x10),
		};

		last_mw_len = len;
		last_mw_out = out_len;
		last_mw_pd = req->pd_handle;
		last_mw_type = req->mw_type;
		last_mw_reserved = req->reserved[0] | req->reserved[1] |
				   req->reserved[2];
		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_DEALLOC_MW: {
		const struct ib_uverbs_dealloc_mw *req = (const void *)core;

		last_dealloc_mw = req->mw_handle;
		return 0;
	}
	case IB_USER_VERBS_CMD_DEREG_MR:
	case IB_USER_VERBS_CMD_CLOSE_XRCD:
	case IB_USER_VERBS_CMD_MODIFY_QP:
	case IB_USER_VERBS_CMD_DEALLOC_PD:
	case IB_USER_VERBS_CMD_DESTROY_AH:
		return 0;
	default:
		return ENOSYS;
	}
}

/*
 * The ioctl-only methods: DM_ALLOC (a new handle, and a key for the
 * mapping like a queue's), DM_FREE and DM_MR_REG.
 */
static int answer_ioctl(struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_uverbs_attr *h, *k, *l, *r;
	uint32_t mkey = DM_MR_LKEY;

	if (hdr->object_id == UVERBS_OBJECT_DM &&
	    hdr->method_id == UVERBS_METHOD_DM_ALLOC) {
		h = ioctl_attr(hdr, UVERBS_ATTR_ALLOC_DM_HANDLE);
		k = ioctl_attr(hdr, ORCA_IB_ATTR_ALLOC_DM_RESP_MMAP_KEY);
		if (!h || !k || k->len != sizeof(last_dm_key))
			return EINVAL;
		h->data = next_dm_handle++;
		last_dm_key = next_key;
		next_key += 64 * PAGE;
		memcpy((void *)(uintptr_t)k->data, &last_dm_key,
		       sizeof(last_dm_key));
		k->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
		return 0;
	}
	if (hdr->object_id == UVERBS_OBJECT_DM &&
	    hdr->method_id == UVERBS_METHOD_DM_FREE) {
		n_dm_free++;
		return 0;
	}
	if (hdr->object_id == UVERBS_OBJECT_MR &&
	    hdr->method_id == UVERBS_METHOD_DM_MR_REG) {
		h = ioctl_attr(hdr, UVERBS_ATTR_REG_DM_MR_HANDLE);
		l = ioctl_attr(hdr, UVERBS_ATTR_REG_DM_MR_RESP_LKEY);
		r = ioctl_attr(hdr, UVERBS_ATTR_REG_DM_MR_RESP_RKEY);
		if (!h || !l || !r || l->len != sizeof(mkey) ||
		    r->len != sizeof(mkey))
			return EINVAL;
		h->data = 0x77;
		memcpy((void *)(uintptr_t)l->data, &mkey, sizeof(mkey));
		memcpy((void *)(uintptr_t)r->data, &mkey, sizeof(mkey));
		l->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
		r->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
		return 0;
	}
	return FAKE_IOCTL_PASS;
}

/* --- the fake device's view of the queues ----------------------------- */

struct dev_qp {
	char *sq;
	char *rq;
	struct orca_db_record *sq_db;
	struct orca_db_record *rq_db;
};

struct dev_cq {
	char *ring;
	struct orca_db_record *db;
	uint32_t depth;
	uint32_t size;			/* bytes per entry: 32 or 64 */
	uint32_t prod;			/* the device's producer index */
	uint64_t ts;			/* the timestamp dev_cqe() writes */
};

static struct dev_qp dev_qp_of(uint64_t key)
{
	char *m = map_of(key);
	struct orca_db_record *db = (void *)(m + 2 * PAGE);

	return (struct dev_qp){ m, m + PAGE, &db[0], &db[1] };
}

static uint32_t ld(const __le32 *p)
{
	return le32toh(__atomic_load_n(p, __ATOMIC_ACQUIRE));
}

static void st(__le32 *p, uint32_t v)
{
	__atomic_store_n(p, htole32(v), __ATOMIC_RELEASE);
}

static struct orca_send_wqe *sq_wqe(struct dev_qp *d, uint32_t idx)
{
	return (void *)(d->sq + (idx % SQ_DEPTH) * SQ_STRIDE);
}

static struct orca_recv_wqe *rq_wqe(char *ring, uint32_t idx)
{
	return (void *)(ring + (idx % RQ_DEPTH) * RQ_STRIDE);
}

static const struct orca_sge *wqe_sge(const void *wqe, size_t hdr)
{
	return (const void *)((const char *)wqe + hdr);
}

static struct orca_cqe *dev_slot(const struct dev_cq *c, uint32_t idx)
{
	return (void *)(c->ring + (size_t)(idx % c->depth) * c->size);
}

/*
 * Writes one CQE the way the device does: body (and, in a 64-byte
 * entry, the extension with c->ts), barrier, owner word.
 */
static void dev_cqe(struct dev_cq *c, uint64_t wr_id, uint32_t opcode,
		    uint32_t flags, uint32_t status, uint32_t byte_len,
		    uint32_t imm_inv, uint32_t qpn, uint32_t src_qp)
{
	struct orca_cqe *e = dev_slot(c, c->prod);
	uint32_t pass = c->prod / c->depth;
	uint32_t owner = (pass & 1) ? 0 : ORCA_CQE_OWNER;

	if (c->size == ORCA_CQE64_SIZE) {
		struct orca_cqe_ext *x = (void *)(e + 1);

		*x = (struct orca_cqe_ext){ .timestamp = htole64(c->ts) };
	}

	e->wr_id = htole64(wr_id);
	e->byte_len = htole32(byte_len);
	e->imm_inv = htole32(imm_inv);
	e->qpn = htole32(qpn);
	e->src_qp = htole32(src_qp);
	e->info = htole32(opcode | flags << ORCA_CQE_INFO_FLAGS_SHIFT);
	st(&e->status_owner, status | owner);
	c->prod++;
}

static struct dev_cq dev_cq_sized(uint64_t key, uint32_t depth,
				  uint32_t size)
{
	char *m = map_of(key);

	return (struct dev_cq){
		.ring = m, .db = (void *)(m + cq_db_offset(depth, size)),
		.depth = depth, .size = size,
	};
}

static struct dev_cq dev_cq_of(uint64_t key, uint32_t depth)
{
	return dev_cq_sized(key, depth, ORCA_CQE_SIZE);
}

/* --- helpers ----------------------------------------------------------- */

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static uint64_t cq_key;

static struct ibv_qp *make_qp(enum ibv_qp_type type, struct ibv_srq *srq,
			      struct dev_qp *d)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = type,
		.cap = { .max_send_wr = SQ_MAX_WR, .max_recv_wr = RQ_MAX_WR,
			 .max_send_sge = SQ_MAX_SGE,
			 .max_recv_sge = RQ_MAX_SGE,
			 .max_inline_data = MAX_INLINE },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &a);

	if (qp)
		*d = dev_qp_of(last_key);
	return qp;
}

static int to_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr a = { .qp_state = s };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* Links n WRs of an array into a list. */
static void link_send(struct ibv_send_wr *wr, int n)
{
	for (int i = 0; i < n; i++)
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
}

static void link_recv(struct ibv_recv_wr *wr, int n)
{
	for (int i = 0; i < n; i++)
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
}

/* --- tests ------------------------------------------------------------- */

static void test_recv(void)
{
	struct ibv_sge sg[4] = {
		{ 0x1000, 100, 0x11 }, { 0x2000, 200, 0x22 },
		{ 0x3000, 300, 0x33 }, { 0x4000, 400, 0x44 },
	};
	struct ibv_recv_wr wr[4] = {}, *bad = NULL;
	const struct orca_recv_wqe *w;
	const struct orca_sge *s;
	unsigned int before;
	struct dev_qp d;
	struct ibv_qp *qp;
	int ret;

	qp = make_qp(IBV_QPT_RC, NULL, &d);
	if (!qp) {
		ok(0, "rc qp created: %s", strerror(errno));
		return;
	}
	d.rq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);

	wr[0] = (struct ibv_recv_wr){ .wr_id = 1 };
	ret = ibv_post_recv(qp, wr, &bad);
	ok(ret == EINVAL && bad == &wr[0] && ld(&d.rq_db->prod) == 0,
	   "post_recv in RESET: EINVAL, bad_wr = the first WR, nothing posted (ret %d)",
	   ret);

	ok(!to_state(qp, IBV_QPS_INIT), "modify to INIT");
	wr[0] = (struct ibv_recv_wr){ .wr_id = 0xa0, .num_sge = 0 };
	wr[1] = (struct ibv_recv_wr){ .wr_id = 0xa1, .sg_list = sg, .num_sge = 1 };
	wr[2] = (struct ibv_recv_wr){ .wr_id = 0xa2, .sg_list = sg + 1,
				      .num_sge = 3 };
	link_recv(wr, 3);
	before = n_cmd[IB_USER_VERBS_CMD_POST_RECV];
	bad = NULL;
	ret = ibv_post_recv(qp, wr, &bad);
	ok(ret == 0 && ld(&d.rq_db->prod) == 3 &&
	   n_cmd[IB_USER_VERBS_CMD_POST_RECV] == before,
	   "post_recv of 3 WRs (0, 1, 3 SGEs) with POLLING set: prod 3, no kick");

	w = rq_wqe(d.rq, 0);
	ok(le64toh(w->wr_id) == 0xa0 && le32toh(w->num_sge) == 0 && !w->reserved,
	   "zero-length receive WQE: wr_id, num_sge 0");
	w = rq_wqe(d.rq, 2);
	s = wqe_sge(w, ORCA_RECV_WQE_HDR_SIZE);
	ok(le64toh(w->wr_id) == 0xa2 && le32toh(w->num_sge) == 3 &&
	   le64toh(s[0].addr) == 0x2000 && le32toh(s[0].length) == 200 &&
	   le32toh(s[0].lkey) == 0x22 && le64toh(s[2].addr) == 0x4000 &&
	   le32toh(s[2].length) == 400 && le32toh(s[2].lkey) == 0x44,
	   "receive WQE with 3 SGEs: little-endian addr/length/lkey in order");

	d.rq_db->dev_flags = 0;
	before = n_cmd[IB_USER_VERBS_CMD_POST_RECV];
	wr[0] = (struct ibv_recv_wr){ .wr_id = 0xa3 };
	ret = ibv_post_recv(qp, wr, &bad);
	ok(ret == 0 && n_cmd[IB_USER_VERBS_CMD_POST_RECV] == before + 1 &&
	   last_wr_count == 0,
	   "post_recv with POLLING clear: one POST_RECV kick with no WR");
	d.rq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);

	/* 4 outstanding of max_recv_wr 6: the 3rd of 4 fails. */
	for (int i = 0; i < 4; i++)
		wr[i] = (struct ibv_recv_wr){ .wr_id = 0xb0 + i };
	link_recv(wr, 4);
	ret = ibv_post_recv(qp, wr, &bad);
	ok(ret == ENOMEM && bad == &wr[2] && ld(&d.rq_db->prod) == 6,
	   "post_recv beyond max_recv_wr: ENOMEM at the 3rd WR, 2 posted (ret %d)",
	   ret);

	st(&d.rq_db->cons, 2);
	wr[0] = (struct ibv_recv_wr){ .wr_id = 0xc0 };
	wr[1] = (struct ibv_recv_wr){ .wr_id = 0xc1, .sg_list = sg,
				      .num_sge = 4 };
	wr[2] = (struct ibv_recv_wr){ .wr_id = 0xc2 };
	link_recv(wr, 3);
	ret = ibv_post_recv(qp, wr, &bad);
	ok(ret == EINVAL && bad == &wr[1] && ld(&d.rq_db->prod) == 7 &&
	   le64toh(rq_wqe(d.rq, 6)->wr_id) == 0xc0,
	   "num_sge 4 > max_recv_sge 3: EINVAL at that WR, the one before posted");

	st(&d.rq_db->cons, 3);
	wr[0] = (struct ibv_recv_wr){ .wr_id = 0xd0 };
	wr[1] = (struct ibv_recv_wr){ .wr_id = 0xd1 };
	link_recv(wr, 2);
	ret = ibv_post_recv(qp, wr, &bad);
	ok(ret == 0 && ld(&d.rq_db->prod) == 9 &&
	   le64toh(rq_wqe(d.rq, 7)->wr_id) == 0xd0 &&
	   le64toh(rq_wqe(d.rq, 0)->wr_id) == 0xd1,
	   "the ring wraps: index 8 is slot 0");
	wr[0].next = NULL;
	ret = ibv_post_recv(qp, wr, &bad);
	ok(ret == ENOMEM, "6 outstanding again: ENOMEM (ret %d)", ret);

	ok(!ibv_destroy_qp(qp), "destroy qp");
}

static void test_send_rules(void)
{
	uint64_t buf8 = 0;
	char big[MAX_INLINE + 1];
	struct ibv_sge sg[5] = {
		{ (uintptr_t)&buf8, 8, 0x55 }, { 0x2000, 2, 0x2 },
		{ 0x3000, 3, 0x3 }, { 0x4000, 4, 0x4 }, { 0x5000, 5, 0x5 },
	};
	struct ibv_sge sg_big = { (uintptr_t)big, sizeof(big), 1 };
	struct ibv_send_wr wr[8] = {}, *bad = NULL;
	unsigned int before;
	struct dev_qp d;
	struct ibv_qp *qp;
	int ret;

	memset(big, 'x', sizeof(big));
	qp = make_qp(IBV_QPT_RC, NULL, &d);
	if (!qp) {
		ok(0, "rc qp created: %s", strerror(errno));
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);

	wr[0] = (struct ibv_send_wr){ .wr_id = 1, .opcode = IBV_WR_SEND };
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == EINVAL && bad == &wr[0] && ld(&d.sq_db->prod) == 0,
	   "post_send in RESET: EINVAL, nothing posted (ret %d)", ret);

	ok(!to_state(qp, IBV_QPS_INIT), "modify to INIT");
	for (int i = 0; i < 8; i++)
		wr[i] = (struct ibv_send_wr){ .wr_id = 0x100 + i,
					      .opcode = IBV_WR_SEND };
	link_send(wr, 8);
	before = n_cmd[IB_USER_VERBS_CMD_POST_SEND];
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == ENOMEM && bad == &wr[6] && ld(&d.sq_db->prod) == 6 &&
	   n_cmd[IB_USER_VERBS_CMD_POST_SEND] == before,
	   "8 sends, max_send_wr 6: ENOMEM at the 7th, 6 posted, no kick while POLLING (ret %d)",
	   ret);

	/* The device finished 6; the poster must see it (acquire). */
	st(&d.sq_db->cons, 6);
	d.sq_db->dev_flags = 0;
	link_send(wr, 3);
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == 0 && ld(&d.sq_db->prod) == 9 &&
	   n_cmd[IB_USER_VERBS_CMD_POST_SEND] == before + 1 &&
	   last_wr_count == 0,
	   "3 sends with POLLING clear: one POST_SEND kick with no WR for the list");
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	st(&d.sq_db->cons, 9);

	/* Each invalid case fails at the 2nd WR; the 1st gets posted. */
	struct {
		struct ibv_send_wr wr;
		const char *what;
	} bads[] = {
		{ { .opcode = IBV_WR_SEND, .sg_list = sg, .num_sge = 5 },
		  "num_sge 5 > max_send_sge 4" },
		{ { .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_INLINE,
		    .sg_list = &sg_big, .num_sge = 1 },
		  "inline data of max_inline + 1 bytes" },
		{ { .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD, .sg_list = sg + 1,
		    .num_sge = 1 },
		  "atomic with a 2-byte SGE" },
		{ { .opcode = IBV_WR_ATOMIC_CMP_AND_SWP, .sg_list = sg,
		    .num_sge = 2 },
		  "atomic with 2 SGEs" },
		{ { .opcode = IBV_WR_BIND_MW }, "BIND_MW without a window" },
		{ { .opcode = (enum ibv_wr_opcode)77 }, "unknown opcode" },
	};
	for (unsigned int i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		uint32_t prod = ld(&d.sq_db->prod);

		wr[0] = (struct ibv_send_wr){ .wr_id = 0x200,
					      .opcode = IBV_WR_SEND };
		wr[1] = bads[i].wr;
		link_send(wr, 2);
		ret = ibv_post_send(qp, wr, &bad);
		ok(ret == EINVAL && bad == &wr[1] &&
		   ld(&d.sq_db->prod) == prod + 1,
		   "%s: EINVAL at that WR, the one before posted (ret %d)",
		   bads[i].what, ret);
		st(&d.sq_db->cons, prod + 1);
	}
	ok(!ibv_destroy_qp(qp), "destroy qp");
}

static void test_send_format(void)
{
	char a[10], b[20];
	uint64_t old = 0;
	struct ibv_sge sg[3] = {
		{ (uintptr_t)a, sizeof(a), 0x71 }, { (uintptr_t)b, sizeof(b), 0x72 },
		{ (uintptr_t)&old, 8, 0x73 },
	};
	struct ibv_send_wr wr[6] = {}, *bad = NULL;
	const struct orca_send_wqe *w;
	const struct orca_sge *s;
	struct dev_qp d;
	struct ibv_qp *qp;
	uint32_t ctrl;
	int ret;

	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	qp = make_qp(IBV_QPT_RC, NULL, &d);
	if (!qp || to_state(qp, IBV_QPS_INIT)) {
		ok(0, "rc qp in INIT");
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);

	wr[0] = (struct ibv_send_wr){
		.wr_id = 0x1111222233334444ULL, .opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
			      IBV_SEND_FENCE,
		.sg_list = sg, .num_sge = 2, .imm_data = htobe32(0x11223344),
	};
	wr[1] = (struct ibv_send_wr){
		.wr_id = 2, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_INLINE, .sg_list = sg, .num_sge = 2,
		.wr.rdma = { .remote_addr = 0xabcdef0123ULL, .rkey = 0x777 },
	};
	wr[2] = (struct ibv_send_wr){
		.wr_id = 3, .opcode = IBV_WR_RDMA_READ, .sg_list = sg + 1,
		.num_sge = 1,
		.wr.rdma = { .remote_addr = 0x5000, .rkey = 0x888 },
	};
	wr[3] = (struct ibv_send_wr){
		.wr_id = 4, .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.sg_list = sg + 2, .num_sge = 1,
		.wr.atomic = { .remote_addr = 0x6000, .rkey = 0x999,
			       .compare_add = 0x1234, .swap = 0x5678 },
	};
	wr[4] = (struct ibv_send_wr){
		.wr_id = 5, .opcode = IBV_WR_LOCAL_INV,
		.invalidate_rkey = 0xfeed,
	};
	wr[5] = (struct ibv_send_wr){
		.wr_id = 6, .opcode = IBV_WR_SEND_WITH_INV,
		.invalidate_rkey = 0xbeef,
	};
	link_send(wr, 6);
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == 0 && ld(&d.sq_db->prod) == 6, "6 WRs of 6 opcodes posted");

	w = sq_wqe(&d, 0);
	ctrl = le32toh(w->ctrl);
	s = wqe_sge(w, ORCA_SEND_WQE_HDR_SIZE);
	ok(le64toh(w->wr_id) == 0x1111222233334444ULL &&
	   (ctrl & ORCA_WQE_CTRL_OPCODE_MASK) == ORCA_WQE_OP_SEND_IMM &&
	   (ctrl & ORCA_WQE_CTRL_FLAGS_MASK) >> ORCA_WQE_CTRL_FLAGS_SHIFT ==
	   (ORCA_WQE_FLAG_SIGNALED | ORCA_WQE_FLAG_SOLICITED |
	    ORCA_WQE_FLAG_FENCE) &&
	   (ctrl & ORCA_WQE_CTRL_NUM_SGE_MASK) >> ORCA_WQE_CTRL_NUM_SGE_SHIFT == 2 &&
	   le32toh(w->imm_inv) == 0x11223344 && !w->inline_len &&
	   le64toh(s[1].addr) == (uintptr_t)b && le32toh(s[1].length) == 20 &&
	   le32toh(s[1].lkey) == 0x72,
	   "SEND_WITH_IMM: wr_id, opcode, flags, num_sge, imm_inv = host value of imm_data, SGEs");

	w = sq_wqe(&d, 1);
	ctrl = le32toh(w->ctrl);
	ok((ctrl & ORCA_WQE_CTRL_OPCODE_MASK) == ORCA_WQE_OP_RDMA_WRITE &&
	   (ctrl & ORCA_WQE_CTRL_FLAGS_MASK) >> ORCA_WQE_CTRL_FLAGS_SHIFT ==
	   ORCA_WQE_FLAG_INLINE &&
	   !(ctrl & ORCA_WQE_CTRL_NUM_SGE_MASK) && le32toh(w->inline_len) == 30 &&
	   !memcmp((const char *)w + 64, a, 10) &&
	   !memcmp((const char *)w + 74, b, 20) &&
	   le64toh(w->seg.rdma.remote_addr) == 0xabcdef0123ULL &&
	   le32toh(w->seg.rdma.rkey) == 0x777,
	   "inline RDMA_WRITE: the two SGEs' 30 bytes after the header, rdma segment");

	w = sq_wqe(&d, 2);
	ok((le32toh(w->ctrl) & ORCA_WQE_CTRL_OPCODE_MASK) == ORCA_WQE_OP_RDMA_READ &&
	   !(le32toh(w->ctrl) & ORCA_WQE_CTRL_FLAGS_MASK) &&
	   le64toh(w->seg.rdma.remote_addr) == 0x5000 &&
	   le32toh(w->seg.rdma.rkey) == 0x888,
	   "RDMA_READ: unsignaled, rdma segment");

	w = sq_wqe(&d, 3);
	s = wqe_sge(w, ORCA_SEND_WQE_HDR_SIZE);
	ok((le32toh(w->ctrl) & ORCA_WQE_CTRL_OPCODE_MASK) ==
	   ORCA_WQE_OP_ATOMIC_CMP_SWP &&
	   le64toh(w->seg.atomic.remote_addr) == 0x6000 &&
	   le32toh(w->seg.atomic.rkey) == 0x999 &&
	   le64toh(w->seg.atomic.compare_add) == 0x1234 &&
	   le64toh(w->seg.atomic.swap) == 0x5678 &&
	   le32toh(s[0].length) == 8,
	   "ATOMIC_CMP_AND_SWP: atomic segment, one 8-byte SGE");

	w = sq_wqe(&d, 4);
	ok((le32toh(w->ctrl) & ORCA_WQE_CTRL_OPCODE_MASK) == ORCA_WQE_OP_LOCAL_INV &&
	   le32toh(w->imm_inv) == 0xfeed,
	   "LOCAL_INV: imm_inv = the key");
	w = sq_wqe(&d, 5);
	ok((le32toh(w->ctrl) & ORCA_WQE_CTRL_OPCODE_MASK) == ORCA_WQE_OP_SEND_INV &&
	   le32toh(w->imm_inv) == 0xbeef,
	   "SEND_WITH_INV: imm_inv = the rkey to invalidate");

	/* RESET: the device restarted at its cons; so does the producer. */
	st(&d.sq_db->cons, 0);
	ok(!to_state(qp, IBV_QPS_RESET) && ld(&d.sq_db->prod) == 0,
	   "modify to RESET: prod restarts at the device's cons");
	wr[0].next = NULL;
	ok(ibv_post_send(qp, wr, &bad) == EINVAL, "post_send in RESET again: EINVAL");
	ok(!ibv_destroy_qp(qp), "destroy qp");
}

static void test_qp_types(void)
{
	struct ibv_ah_attr aattr = { .is_global = 1, .port_num = 1 };
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = SRQ_MAX_WR, .max_sge = RQ_MAX_SGE },
	};
	struct ibv_send_wr wr = {}, *bad = NULL;
	struct ibv_recv_wr rwr[6] = {}, *rbad = NULL;
	const struct orca_send_wqe *w;
	struct ibv_srq *srq;
	struct ibv_ah *ah;
	struct dev_qp d;
	struct ibv_qp *qp;
	unsigned int before;
	char *srq_map;
	int ret;

	qp = make_qp(IBV_QPT_UC, NULL, &d);
	if (!qp || to_state(qp, IBV_QPS_INIT)) {
		ok(0, "uc qp in INIT");
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	wr = (struct ibv_send_wr){ .opcode = IBV_WR_RDMA_READ };
	ok(ibv_post_send(qp, &wr, &bad) == EINVAL, "UC: RDMA_READ is EINVAL");
	wr = (struct ibv_send_wr){ .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD };
	ok(ibv_post_send(qp, &wr, &bad) == EINVAL, "UC: atomics are EINVAL");
	wr = (struct ibv_send_wr){ .opcode = IBV_WR_RDMA_WRITE_WITH_IMM };
	ok(!ibv_post_send(qp, &wr, &bad) && ld(&d.sq_db->prod) == 1,
	   "UC: RDMA_WRITE_WITH_IMM is posted");
	ibv_destroy_qp(qp);

	ah = ibv_create_ah(pd, &aattr);
	qp = make_qp(IBV_QPT_UD, NULL, &d);
	if (!ah || !qp || to_state(qp, IBV_QPS_INIT)) {
		ok(0, "ud qp in INIT and an AH");
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	wr = (struct ibv_send_wr){ .opcode = IBV_WR_RDMA_WRITE,
				   .wr.ud = { .ah = ah } };
	ok(ibv_post_send(qp, &wr, &bad) == EINVAL, "UD: RDMA_WRITE is EINVAL");
	wr = (struct ibv_send_wr){ .opcode = IBV_WR_SEND_WITH_INV,
				   .wr.ud = { .ah = ah } };
	ok(ibv_post_send(qp, &wr, &bad) == EINVAL, "UD: SEND_WITH_INV is EINVAL");
	wr = (struct ibv_send_wr){
		.wr_id = 9, .opcode = IBV_WR_SEND,
		.wr.ud = { .ah = ah, .remote_qpn = 0xabcde,
			   .remote_qkey = 0x80010002 },
	};
	ret = ibv_post_send(qp, &wr, &bad);
	w = sq_wqe(&d, 0);
	ok(!ret && !w->seg.ud.reserved0 &&
	   !memcmp(w + 1, &fake_av, sizeof(fake_av)) &&
	   le32toh(w->seg.ud.remote_qpn) == 0xabcde &&
	   le32toh(w->seg.ud.remote_qkey) == 0x80010002,
	   "UD SEND: the AH's address vector after the header, remote QPN and Q_Key");
	ibv_destroy_qp(qp);
	ibv_destroy_ah(ah);

	srq = ibv_create_srq(pd, &sattr);
	srq_map = srq ? map_of(last_key) : NULL;
	if (!srq_map) {
		ok(0, "srq created");
		return;
	}
	qp = make_qp(IBV_QPT_RC, srq, &d);
	if (!qp || to_state(qp, IBV_QPS_INIT)) {
		ok(0, "rc qp with srq in INIT");
		return;
	}
	rwr[0] = (struct ibv_recv_wr){ .wr_id = 1 };
	ret = ibv_post_recv(qp, rwr, &rbad);
	ok(ret == EINVAL && rbad == &rwr[0],
	   "post_recv on a QP with an SRQ: EINVAL");

	for (int i = 0; i < 6; i++)
		rwr[i] = (struct ibv_recv_wr){ .wr_id = 0x300 + i };
	link_recv(rwr, 6);
	before = n_cmd[IB_USER_VERBS_CMD_POST_RECV];
	ret = ibv_post_srq_recv(srq, rwr, &rbad);
	ok(ret == ENOMEM && rbad == &rwr[5] &&
	   ld(&((struct orca_db_record *)(srq_map + PAGE))->prod) == 5 &&
	   le64toh(rq_wqe(srq_map, 4)->wr_id) == 0x304 &&
	   n_cmd[IB_USER_VERBS_CMD_POST_RECV] == before,
	   "SRQ: ENOMEM at max_wr 5, WQEs in the ring, never a kick (ret %d)",
	   ret);
	ibv_destroy_qp(qp);
	ibv_destroy_srq(srq);
}

static void test_poll(void)
{
	struct ibv_wc wc[8];
	struct dev_cq c;
	uint64_t expect;
	bool seq_ok;
	int n;

	c = dev_cq_of(cq_key, 8);
	ok(ibv_poll_cq(cq, 8, wc) == 0 && ld(&c.db->cons) == 0,
	   "empty CQ: poll returns 0");

	dev_cqe(&c, 0x10, ORCA_CQE_OP_SEND, 0, ORCA_CQE_ST_SUCCESS, 0, 0,
		0x123, 0);
	dev_cqe(&c, 0x11, ORCA_CQE_OP_RECV, ORCA_CQE_FLAG_IMM | ORCA_CQE_FLAG_GRH,
		ORCA_CQE_ST_SUCCESS, 1064, 0x11223344, 0x124, 0x456);
	dev_cqe(&c, 0x12, ORCA_CQE_OP_RECV, ORCA_CQE_FLAG_INV,
		ORCA_CQE_ST_SUCCESS, 7, 0xcafe, 0x124, 0);
	n = ibv_poll_cq(cq, 2, wc);
	ok(n == 2 && ld(&c.db->cons) == 2, "poll of 2 with 3 there: 2, cons 2");
	ok(wc[0].wr_id == 0x10 && wc[0].status == IBV_WC_SUCCESS &&
	   wc[0].opcode == IBV_WC_SEND && wc[0].qp_num == 0x123 &&
	   !wc[0].wc_flags,
	   "send CQE: wr_id, status, opcode, qp_num, no flags");
	ok(wc[1].wr_id == 0x11 && wc[1].opcode == IBV_WC_RECV &&
	   wc[1].byte_len == 1064 && wc[1].src_qp == 0x456 &&
	   wc[1].wc_flags == (IBV_WC_WITH_IMM | IBV_WC_GRH) &&
	   wc[1].imm_data == htobe32(0x11223344) && !wc[1].slid &&
	   !wc[1].sl && !wc[1].pkey_index && !wc[1].dlid_path_bits,
	   "receive CQE with immediate and GRH: imm_data big-endian, src_qp, byte_len");
	n = ibv_poll_cq(cq, 8, wc);
	ok(n == 1 && wc[0].wc_flags == IBV_WC_WITH_INV &&
	   wc[0].invalidated_rkey == 0xcafe && ld(&c.db->cons) == 3,
	   "receive CQE with invalidation: invalidated_rkey");

	dev_cqe(&c, 0x13, ORCA_CQE_OP_RDMA_READ, 0, 0x33, 0, 0, 1, 0);
	dev_cqe(&c, 0x14, 0x42, 0, ORCA_CQE_ST_SUCCESS, 0, 0, 1, 0);
	dev_cqe(&c, 0x15, ORCA_CQE_OP_RECV_RDMA_IMM, ORCA_CQE_FLAG_IMM,
		ORCA_CQE_ST_REM_ACCESS_ERR, 0, 5, 1, 0);
	n = ibv_poll_cq(cq, 8, wc);
	ok(n == 3 && wc[0].status == IBV_WC_GENERAL_ERR &&
	   wc[0].vendor_err == 0x33 && wc[1].status == IBV_WC_GENERAL_ERR &&
	   wc[1].wr_id == 0x14 && wc[2].status == IBV_WC_REM_ACCESS_ERR &&
	   wc[2].opcode == IBV_WC_RECV_RDMA_WITH_IMM,
	   "unknown status / unknown opcode: IBV_WC_GENERAL_ERR; known error status kept");

	/* Several passes over the 8-entry ring, 5 at a time. */
	expect = 0x1000;
	seq_ok = true;
	for (int round = 0; round < 7; round++) {
		for (int i = 0; i < 5; i++)
			dev_cqe(&c, 0x1000 + round * 5 + i, ORCA_CQE_OP_SEND, 0,
				0, 0, 0, 1, 0);
		n = ibv_poll_cq(cq, 8, wc);
		if (n != 5)
			seq_ok = false;
		for (int i = 0; i < n; i++)
			if (wc[i].wr_id != expect++)
				seq_ok = false;
		if (ibv_poll_cq(cq, 8, wc) != 0)
			seq_ok = false;
	}
	ok(seq_ok && ld(&c.db->cons) == c.prod,
	   "41 entries over 5 passes of 8: owner bit flips per pass, stale entries not taken");
}

static uint32_t arm_word(uint32_t seq, bool solicited)
{
	return (seq & ORCA_CQ_ARM_SEQ_MASK) | ORCA_CQ_ARM_REQUEST |
	       (solicited ? ORCA_CQ_ARM_SOLICITED : 0);
}

static void test_arm(void)
{
	struct dev_cq c = dev_cq_of(cq_key, 8);
	unsigned int before = n_cmd[IB_USER_VERBS_CMD_REQ_NOTIFY_CQ];
	struct ibv_wc wc[8];
	uint32_t arm0, seq;

	c.prod = ld(&c.db->cons);
	arm0 = ld(&c.db->arm);
	ok(!ibv_req_notify_cq(cq, 0), "arm an empty CQ");
	seq = (arm0 + 1) & ORCA_CQ_ARM_SEQ_MASK;
	ok(ld(&c.db->arm) == arm_word(seq, false) &&
	   n_cmd[IB_USER_VERBS_CMD_REQ_NOTIFY_CQ] == before,
	   "arm word = (seq + 1) | REQUEST (0x%x -> 0x%x), no system call",
	   arm0, ld(&c.db->arm));
	ok(!ibv_req_notify_cq(cq, 1) &&
	   ld(&c.db->arm) == arm_word(seq, true) &&
	   n_cmd[IB_USER_VERBS_CMD_REQ_NOTIFY_CQ] == before,
	   "arm again, solicited-only, before anything fired: the pending arm is replaced (same SEQ | SOLICITED), no system call");

	dev_cqe(&c, 0x77, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
	ok(!ibv_req_notify_cq(cq, 1) &&
	   n_cmd[IB_USER_VERBS_CMD_REQ_NOTIFY_CQ] == before + 1 &&
	   last_solicited == 1 && ld(&c.db->arm) == arm_word(seq, true),
	   "arm with a CQE already at cons: arm written, then REQ_NOTIFY_CQ kick (solicited_only 1)");
	ok(ibv_poll_cq(cq, 8, wc) == 1 && ld(&c.db->cons) == c.prod,
	   "poll it: cons published");
	ok(!ibv_req_notify_cq(cq, 0) && ld(&c.db->arm) == arm_word(seq, false) &&
	   n_cmd[IB_USER_VERBS_CMD_REQ_NOTIFY_CQ] == before + 1,
	   "a solicited-only arm may still be pending after a CQE: same SEQ, no system call");

	dev_cqe(&c, 0x78, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
	ok(ibv_poll_cq(cq, 8, wc) == 1 && !ibv_req_notify_cq(cq, 0) &&
	   ld(&c.db->arm) == arm_word(seq + 1, false),
	   "a CQE consumed after an arm for every completion: it fired, the next arm takes SEQ + 1");
	seq++;

	dev_cqe(&c, 0x79, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
	ok(!ibv_req_notify_cq(cq, 0) &&
	   n_cmd[IB_USER_VERBS_CMD_REQ_NOTIFY_CQ] == before + 2 &&
	   last_solicited == 0 && ld(&c.db->arm) == arm_word(seq, false),
	   "arm again with a CQE at cons, nothing consumed since the last arm: same SEQ, REQ_NOTIFY_CQ kick (solicited_only 0)");
	ok(ibv_poll_cq(cq, 8, wc) == 1 && !ibv_req_notify_cq(cq, 0) &&
	   ld(&c.db->arm) == arm_word(seq + 1, false),
	   "an arm for every completion that kicked for a waiting CQE has fired: the next takes SEQ + 1");
}

/*
 * The SEQ must never come back to the value the device fired last, or
 * the arm is ignored: 65536 arms in a row without an event (ev_oneshot
 * does that) keep the SEQ of the pending arm; an event read through the
 * channel retires it.
 */
static void test_arm_events(void)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *ccq = ch ? ibv_create_cq(ctx, 8, NULL, ch, 0) : NULL;
	struct ib_uverbs_comp_event_desc ev;
	uint32_t fired, seq;
	struct ibv_cq *ecq = NULL;
	struct dev_cq c;
	void *ectx;
	bool same = true;

	if (!ccq) {
		ok(0, "a CQ on a fake completion channel: %s", strerror(errno));
		return;
	}
	c = dev_cq_of(last_key, 8);
	ok(!ibv_req_notify_cq(ccq, 0), "arm the channel's CQ");
	/* The device fires that arm: one event into the channel. */
	fired = ld(&c.db->arm) & ORCA_CQ_ARM_SEQ_MASK;
	ev.cq_handle = (uintptr_t)ccq;
	ok(write(chan_wfd, &ev, sizeof(ev)) == sizeof(ev) &&
	   !ibv_get_cq_event(ch, &ecq, &ectx) && ecq == ccq,
	   "ibv_get_cq_event returns its event");
	ok(!ibv_req_notify_cq(ccq, 0) &&
	   ld(&c.db->arm) == arm_word(fired + 1, false),
	   "after the event, the next arm takes the next SEQ");
	seq = fired + 1;
	for (int i = 0; i < 65536; i++) {
		if (ibv_req_notify_cq(ccq, i & 1) ||
		    (ld(&c.db->arm) & ORCA_CQ_ARM_SEQ_MASK) !=
		    (seq & ORCA_CQ_ARM_SEQ_MASK))
			same = false;
	}
	ok(same && (ld(&c.db->arm) & ORCA_CQ_ARM_SEQ_MASK) != fired,
	   "65536 more arms with no event: all keep the pending SEQ, which is not the fired one");
	ok(!ibv_destroy_cq(ccq) && !ibv_destroy_comp_channel(ch),
	   "destroy the CQ and the channel");
}

static void test_resize(void)
{
	struct dev_cq c = dev_cq_of(cq_key, 8), n;
	struct ibv_wc wc[8];
	uint32_t cons, arm;
	int got;
	bool order = true;

	c.prod = cons = ld(&c.db->cons);
	arm = ld(&c.db->arm);
	/* Two entries wait in the old ring when the CQ is resized. */
	dev_cqe(&c, 0x500, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
	dev_cqe(&c, 0x501, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
	if (ibv_resize_cq(cq, 20)) {
		ok(0, "resize to 20");
		return;
	}
	cq_key = last_key;
	n = dev_cq_of(cq_key, 32);
	/*
	 * The device moved them at their index, with the new phase, and
	 * made every other slot read as not valid for the consumer.
	 */
	for (uint32_t i = cons; i != cons + 32; i++)
		dev_slot(&n, i)->status_owner =
			htole32((i / 32) & 1 ? ORCA_CQE_OWNER : 0);
	n.prod = cons;
	n.db->cons = htole32(cons);
	n.db->arm = htole32(arm);
	dev_cqe(&n, 0x500, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
	dev_cqe(&n, 0x501, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
	dev_cqe(&n, 0x502, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
	got = ibv_poll_cq(cq, 8, wc);
	for (int i = 0; i < got; i++)
		if (wc[i].wr_id != 0x500 + (uint64_t)i)
			order = false;
	ok(cq->cqe == 32 && got == 3 && order &&
	   ld(&n.db->cons) == cons + 3,
	   "resize: polling carries on in the new ring at the same index (got %d)",
	   got);
	ok(!ibv_req_notify_cq(cq, 0) &&
	   ld(&n.db->arm) == (((arm + 1) & ORCA_CQ_ARM_SEQ_MASK) |
			      ORCA_CQ_ARM_REQUEST),
	   "resize: the arm sequence carries on in the new record");
}

/* Several threads post to one SQ; a device thread consumes. */
#define MT_THREADS	4
#define MT_PER_THREAD	3000

struct mt {
	struct ibv_qp *qp;
	struct dev_qp d;
	volatile bool stop;
	unsigned char seen[MT_THREADS * MT_PER_THREAD];
	unsigned int dups, bad_ids;
	int errors;
};

static void *mt_device(void *arg)
{
	struct mt *m = arg;
	uint32_t cons = 0;

	while (!m->stop || cons != ld(&m->d.sq_db->prod)) {
		uint32_t prod = ld(&m->d.sq_db->prod);

		if (prod == cons) {
			sched_yield();
			continue;
		}
		for (; cons != prod; cons++) {
			uint64_t id = le64toh(sq_wqe(&m->d, cons)->wr_id);

			if (id >= MT_THREADS * MT_PER_THREAD)
				m->bad_ids++;
			else if (m->seen[id]++)
				m->dups++;
		}
		st(&m->d.sq_db->cons, cons);
	}
	return NULL;
}

struct mt_poster {
	struct mt *m;
	int idx;
};

static void *mt_post(void *arg)
{
	struct mt_poster *p = arg;

	for (int i = 0; i < MT_PER_THREAD; i++) {
		struct ibv_send_wr wr = {
			.wr_id = (uint64_t)p->idx * MT_PER_THREAD + i,
			.opcode = IBV_WR_SEND,
		}, *bad;
		int ret;

		while ((ret = ibv_post_send(p->m->qp, &wr, &bad)) == ENOMEM)
			sched_yield();
		if (ret)
			__atomic_add_fetch(&p->m->errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_threads(void)
{
	static struct mt m;
	struct mt_poster p[MT_THREADS];
	pthread_t dev, th[MT_THREADS];
	unsigned int missing = 0, before;

	m.qp = make_qp(IBV_QPT_RC, NULL, &m.d);
	if (!m.qp || to_state(m.qp, IBV_QPS_INIT)) {
		ok(0, "rc qp in INIT");
		return;
	}
	m.d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	before = n_cmd[IB_USER_VERBS_CMD_POST_SEND];
	pthread_create(&dev, NULL, mt_device, &m);
	for (int i = 0; i < MT_THREADS; i++) {
		p[i] = (struct mt_poster){ &m, i };
		pthread_create(&th[i], NULL, mt_post, &p[i]);
	}
	for (int i = 0; i < MT_THREADS; i++)
		pthread_join(th[i], NULL);
	m.stop = true;
	pthread_join(dev, NULL);
	for (unsigned int i = 0; i < MT_THREADS * MT_PER_THREAD; i++)
		missing += !m.seen[i];
	ok(!m.errors && !m.dups && !m.bad_ids && !missing &&
	   n_cmd[IB_USER_VERBS_CMD_POST_SEND] == before,
	   "%d threads x %d posts on one SQ: each WR seen once by the device (errors %d dups %u missing %u), no syscall",
	   MT_THREADS, MT_PER_THREAD, m.errors, m.dups, missing);
	ibv_destroy_qp(m.qp);
}


static void test_cq_ex(void)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 8, .wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cqx;
	struct ibv_wc wc;
	struct dev_cq c;
	bool fields;

	a.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	dev_has_ts = false;
	errno = 0;
	ok(!ibv_create_cq_ex(ctx, &a) && errno == EOPNOTSUPP &&
	   last_cq_flags == IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION,
	   "create_cq_ex with completion timestamps on a device without them: the kernel's EOPNOTSUPP");
	dev_has_ts = true;
	a.wc_flags = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_CVLAN;
	errno = 0;
	ok(!ibv_create_cq_ex(ctx, &a) && errno == EOPNOTSUPP,
	   "create_cq_ex with CVLAN: EOPNOTSUPP");
	a.wc_flags = IBV_WC_STANDARD_FLAGS;
	cqx = ibv_create_cq_ex(ctx, &a);
	if (!cqx) {
		ok(0, "create_cq_ex with the standard wc_flags: %s",
		   strerror(errno));
		return;
	}
	c = dev_cq_of(last_key, 8);
	ok(ibv_start_poll(cqx, &pa) == ENOENT, "start_poll on an empty CQ: ENOENT");

	dev_cqe(&c, 0x61, ORCA_CQE_OP_RECV, ORCA_CQE_FLAG_IMM | ORCA_CQE_FLAG_GRH,
		ORCA_CQE_ST_SUCCESS, 99, 0xa1b2c3d4, 0x321, 0x654);
	dev_cqe(&c, 0x62, ORCA_CQE_OP_RDMA_WRITE, 0, ORCA_CQE_ST_WR_FLUSH_ERR,
		0, 0, 0x321, 0);
	dev_cqe(&c, 0x63, ORCA_CQE_OP_RECV, ORCA_CQE_FLAG_INV,
		ORCA_CQE_ST_SUCCESS, 5, 0x4455, 0x321, 0);
	dev_cqe(&c, 0x64, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 0x321, 0);

	fields = ibv_start_poll(cqx, &pa) == 0 && cqx->wr_id == 0x61 &&
		 cqx->status == IBV_WC_SUCCESS &&
		 ibv_wc_read_opcode(cqx) == IBV_WC_RECV &&
		 ibv_wc_read_byte_len(cqx) == 99 &&
		 ibv_wc_read_imm_data(cqx) == htobe32(0xa1b2c3d4) &&
		 ibv_wc_read_wc_flags(cqx) == (IBV_WC_WITH_IMM | IBV_WC_GRH) &&
		 ibv_wc_read_qp_num(cqx) == 0x321 &&
		 ibv_wc_read_src_qp(cqx) == 0x654 && !ibv_wc_read_slid(cqx) &&
		 !ibv_wc_read_sl(cqx) && !ibv_wc_read_dlid_path_bits(cqx);
	ok(fields, "start_poll: wr_id, status and every read_*() of a receive with immediate");
	ok(ibv_next_poll(cqx) == 0 && cqx->wr_id == 0x62 &&
	   cqx->status == IBV_WC_WR_FLUSH_ERR,
	   "next_poll: the flushed RDMA_WRITE");
	ok(ibv_next_poll(cqx) == 0 &&
	   ibv_wc_read_wc_flags(cqx) == IBV_WC_WITH_INV &&
	   ibv_wc_read_invalidated_rkey(cqx) == 0x4455,
	   "next_poll: invalidated rkey");
	ok(ld(&c.db->cons) == 0, "cons not published before end_poll");
	ibv_end_poll(cqx);
	ok(ld(&c.db->cons) == 3, "end_poll publishes cons 3");
	ok(ibv_poll_cq(ibv_cq_ex_to_cq(cqx), 1, &wc) == 1 && wc.wr_id == 0x64,
	   "the same CQ through ibv_poll_cq");
	ok(ibv_start_poll(cqx, &pa) == ENOENT, "start_poll: ENOENT when drained");
	ok(!ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), "destroy the extended CQ");
}

/* --- completion timestamps -------------------------------------------- */

static uint64_t clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/*
 * RESIZE_CQ of a 64-byte CQ: the kernel allocates the new ring with the
 * same entry size (the response does not say), and the device moves the
 * entries with their timestamps.
 */
static void test_cq_ts_resize(struct ibv_cq_ex *cqx, struct dev_cq *c)
{
	struct ibv_poll_cq_attr pa = {};
	uint32_t cons = ld(&c->db->cons);
	bool moved = true;
	struct dev_cq n;

	for (uint32_t i = 0; i < 2; i++) {
		c->ts = 0x600 + i;
		dev_cqe(c, 0x600 + i, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
	}
	if (ibv_resize_cq(ibv_cq_ex_to_cq(cqx), 20)) {
		ok(0, "resize the 64-byte CQ");
		return;
	}
	n = dev_cq_sized(last_key, 32, ORCA_CQE64_SIZE);
	for (uint32_t i = cons; i != cons + 32; i++)
		dev_slot(&n, i)->status_owner =
			htole32((i / 32) & 1 ? ORCA_CQE_OWNER : 0);
	n.prod = cons;
	n.db->cons = htole32(cons);
	for (uint32_t i = 0; i < 3; i++) {
		n.ts = 0x600 + i;
		dev_cqe(&n, 0x600 + i, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
	}
	if (ibv_start_poll(cqx, &pa)) {
		moved = false;
	} else {
		for (uint32_t i = 0; i < 3; i++) {
			if ((i && ibv_next_poll(cqx)) ||
			    cqx->wr_id != 0x600 + i ||
			    ibv_wc_read_completion_ts(cqx) != 0x600 + i)
				moved = false;
		}
		ibv_end_poll(cqx);
	}
	ok(cqx->cqe == 32 && moved && ld(&n.db->cons) == cons + 3,
	   "resize of a 64-byte CQ: the new ring has 64-byte entries, polled with their timestamps at the same index");
	*c = n;
}

/*
 * A 64-byte CQ: the CREATE_CQ flag, the callbacks, the stride through
 * both poll paths, the timestamps and their wall clock conversion.
 */
static void test_cq_ts(void)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 8,
		.wc_flags = IBV_WC_STANDARD_FLAGS |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
	};
	unsigned int before = n_create_cq_ex;
	struct ibv_poll_cq_attr pa = {};
	uint64_t raw0, real0, raw1, real1, lo, hi, base;
	uint64_t ts[3], off[3];
	struct ibv_cq_ex *cqx;
	struct ibv_wc wc[8];
	struct dev_cq c;
	bool seq_ok, in_order;
	int n;

	cqx = ibv_create_cq_ex(ctx, &a);
	ok(cqx && n_create_cq_ex == before + 1 &&
	   last_cq_flags == IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION &&
	   cq_cqe_size[(cqx ? cqx->handle : 0) % 64] == ORCA_CQE64_SIZE,
	   "create_cq_ex with both timestamp flags: the extended CREATE_CQ with TIMESTAMP_COMPLETION, 64-byte entries answered");
	if (!cqx)
		return;
	ok(cqx->read_completion_ts && cqx->read_completion_wallclock_ns,
	   "read_completion_ts and read_completion_wallclock_ns installed");
	c = dev_cq_sized(last_key, 8, ORCA_CQE64_SIZE);

	/* Three entries at 64-byte stride, the device clock in each. */
	base = clock_ns(CLOCK_MONOTONIC_RAW);
	c.ts = base;
	dev_cqe(&c, 0x71, ORCA_CQE_OP_SEND, 0, ORCA_CQE_ST_SUCCESS, 0, 0,
		0x321, 0);
	c.ts = base + 1234;
	dev_cqe(&c, 0x72, ORCA_CQE_OP_RECV, ORCA_CQE_FLAG_IMM,
		ORCA_CQE_ST_SUCCESS, 40, 0x55667788, 0x321, 0x9);
	c.ts = 0xfedcba9876543210ULL;	/* all 64 bits, little-endian */
	dev_cqe(&c, 0x73, ORCA_CQE_OP_RDMA_READ, 0, ORCA_CQE_ST_SUCCESS, 64,
		0, 0x321, 0);

	raw0 = clock_ns(CLOCK_MONOTONIC_RAW);
	real0 = clock_ns(CLOCK_REALTIME);
	n = ibv_start_poll(cqx, &pa);
	raw1 = clock_ns(CLOCK_MONOTONIC_RAW);
	real1 = clock_ns(CLOCK_REALTIME);
	if (n) {
		ok(0, "start_poll on the 64-byte CQ: %s", strerror(n));
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
		return;
	}
	in_order = cqx->wr_id == 0x71;
	ts[0] = ibv_wc_read_completion_ts(cqx);
	off[0] = ibv_wc_read_completion_wallclock_ns(cqx) - ts[0];
	in_order = in_order && ibv_next_poll(cqx) == 0 &&
		   cqx->wr_id == 0x72 &&
		   ibv_wc_read_opcode(cqx) == IBV_WC_RECV &&
		   ibv_wc_read_byte_len(cqx) == 40 &&
		   ibv_wc_read_imm_data(cqx) == htobe32(0x55667788) &&
		   ibv_wc_read_src_qp(cqx) == 0x9;
	ts[1] = ibv_wc_read_completion_ts(cqx);
	off[1] = ibv_wc_read_completion_wallclock_ns(cqx) - ts[1];
	in_order = in_order && ibv_next_poll(cqx) == 0 &&
		   cqx->wr_id == 0x73 &&
		   ibv_wc_read_opcode(cqx) == IBV_WC_RDMA_READ;
	ts[2] = ibv_wc_read_completion_ts(cqx);
	off[2] = ibv_wc_read_completion_wallclock_ns(cqx) - ts[2];
	in_order = in_order && ibv_next_poll(cqx) == ENOENT;
	ibv_end_poll(cqx);
	ok(in_order && ld(&c.db->cons) == 3,
	   "start_poll/next_poll: three 64-byte entries in order with their fields, cons 3 at end_poll");
	ok(ts[0] == base && ts[1] == base + 1234 &&
	   ts[2] == 0xfedcba9876543210ULL,
	   "read_completion_ts: the timestamp the device wrote in each entry");
	/*
	 * The offset liborca took inside start_poll is CLOCK_REALTIME -
	 * CLOCK_MONOTONIC_RAW at some instant between the reads above.
	 */
	lo = real0 - raw1;
	hi = real1 - raw0;
	ok(off[0] >= lo && off[0] <= hi,
	   "read_completion_wallclock_ns = ts + (CLOCK_REALTIME - CLOCK_MONOTONIC_RAW), within [%llu, %llu] (got %llu)",
	   (unsigned long long)lo, (unsigned long long)hi,
	   (unsigned long long)off[0]);
	ok(off[1] == off[0] && off[2] == off[0],
	   "the wall clock offset is sampled once per start_poll: the same for every entry of the batch");

	/* The same ring through ibv_poll_cq, over several passes. */
	seq_ok = true;
	for (int round = 0; round < 5; round++) {
		for (int i = 0; i < 5; i++) {
			c.ts = round * 5 + i;
			dev_cqe(&c, 0x2000 + round * 5 + i, ORCA_CQE_OP_SEND,
				0, 0, 0, 0, 1, 0);
		}
		n = ibv_poll_cq(ibv_cq_ex_to_cq(cqx), 8, wc);
		if (n != 5)
			seq_ok = false;
		for (int i = 0; i < n; i++)
			if (wc[i].wr_id != 0x2000 + (uint64_t)round * 5 + i ||
			    wc[i].status != IBV_WC_SUCCESS)
				seq_ok = false;
	}
	ok(seq_ok && ld(&c.db->cons) == c.prod,
	   "ibv_poll_cq on a 64-byte CQ: 25 entries in order, across the end of the 8-entry ring three times");

	/* And start_poll across the end of the ring. */
	seq_ok = true;
	for (int i = 0; i < 6; i++) {
		c.ts = 5000 + i;
		dev_cqe(&c, 0x3000 + i, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
	}
	if (ibv_start_poll(cqx, &pa)) {
		seq_ok = false;
	} else {
		for (int i = 0; i < 6; i++) {
			if ((i && ibv_next_poll(cqx)) ||
			    cqx->wr_id != 0x3000 + (uint64_t)i ||
			    ibv_wc_read_completion_ts(cqx) != 5000 + (uint64_t)i)
				seq_ok = false;
		}
		if (ibv_next_poll(cqx) != ENOENT)
			seq_ok = false;
		ibv_end_poll(cqx);
	}
	ok(seq_ok && ld(&c.db->cons) == c.prod,
	   "start_poll/next_poll across the end of the ring: entries and timestamps in order");
	test_cq_ts_resize(cqx, &c);
	ok(!ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), "destroy the 64-byte CQ");
}

/* One timestamp flag at a time, and CQs without: 32-byte entries. */
static void test_cq_ts_flags(void)
{
	struct ibv_cq_init_attr_ex a = { .cqe = 8 };
	struct ibv_poll_cq_attr pa = {};
	unsigned int before = n_create_cq_ex;
	struct ibv_cq_ex *cqx;
	struct ibv_cq *pcq;
	struct ibv_wc wc;
	struct dev_cq c;
	bool fine;
	int ret;

	a.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	cqx = ibv_create_cq_ex(ctx, &a);
	ok(cqx && n_create_cq_ex == before + 1 &&
	   last_cq_flags == IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION &&
	   cqx->read_completion_ts && !cqx->read_completion_wallclock_ns,
	   "COMPLETION_TIMESTAMP alone: the flag sent, read_completion_ts only");
	if (cqx) {
		c = dev_cq_sized(last_key, 8, ORCA_CQE64_SIZE);
		c.ts = 0x1122334455667788ULL;
		dev_cqe(&c, 0x81, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
		ret = ibv_start_poll(cqx, &pa);
		fine = !ret && cqx->wr_id == 0x81 &&
		       ibv_wc_read_completion_ts(cqx) == 0x1122334455667788ULL;
		if (!ret)
			ibv_end_poll(cqx);
		ok(fine, "COMPLETION_TIMESTAMP alone: the entry's timestamp");
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	}

	a.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
	cqx = ibv_create_cq_ex(ctx, &a);
	ok(cqx && n_create_cq_ex == before + 2 &&
	   last_cq_flags == IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION &&
	   !cqx->read_completion_ts && cqx->read_completion_wallclock_ns,
	   "COMPLETION_TIMESTAMP_WALLCLOCK alone: the flag sent (64-byte entries), read_completion_wallclock_ns only");
	if (cqx) {
		uint64_t raw0, real0, raw1, real1, off = 0;

		c = dev_cq_sized(last_key, 8, ORCA_CQE64_SIZE);
		c.ts = clock_ns(CLOCK_MONOTONIC_RAW);
		dev_cqe(&c, 0x82, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
		raw0 = clock_ns(CLOCK_MONOTONIC_RAW);
		real0 = clock_ns(CLOCK_REALTIME);
		ret = ibv_start_poll(cqx, &pa);
		raw1 = clock_ns(CLOCK_MONOTONIC_RAW);
		real1 = clock_ns(CLOCK_REALTIME);
		fine = !ret && cqx->wr_id == 0x82;
		if (!ret) {
			off = ibv_wc_read_completion_wallclock_ns(cqx) - c.ts;
			ibv_end_poll(cqx);
		}
		ok(fine && off >= real0 - raw1 && off <= real1 - raw0,
		   "COMPLETION_TIMESTAMP_WALLCLOCK alone: the wall clock of the entry's timestamp");
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	}

	a.wc_flags = IBV_WC_STANDARD_FLAGS;
	cqx = ibv_create_cq_ex(ctx, &a);
	ok(cqx && n_create_cq_ex == before + 2 && !last_cq_flags &&
	   cq_cqe_size[cqx->handle % 64] == ORCA_CQE_SIZE &&
	   !cqx->read_completion_ts && !cqx->read_completion_wallclock_ns,
	   "create_cq_ex without timestamps: the legacy CREATE_CQ, 32-byte entries, no timestamp callbacks");
	if (cqx) {
		c = dev_cq_of(last_key, 8);
		dev_cqe(&c, 0x83, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
		dev_cqe(&c, 0x84, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
		ret = ibv_start_poll(cqx, &pa);
		fine = !ret && cqx->wr_id == 0x83 && !ibv_next_poll(cqx) &&
		       cqx->wr_id == 0x84;
		if (!ret)
			ibv_end_poll(cqx);
		ok(fine, "32-byte extended CQ: entries at a 32-byte stride");
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	}

	pcq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	ok(pcq && n_create_cq_ex == before + 2 && !last_cq_flags &&
	   cq_cqe_size[pcq->handle % 64] == ORCA_CQE_SIZE,
	   "ibv_create_cq: the legacy CREATE_CQ, 32-byte entries");
	if (pcq) {
		c = dev_cq_of(last_key, 8);
		dev_cqe(&c, 0x85, ORCA_CQE_OP_SEND, 0, 0, 0, 0, 1, 0);
		ok(ibv_poll_cq(pcq, 1, &wc) == 1 && wc.wr_id == 0x85,
		   "32-byte CQ: polled as before");
		ibv_destroy_cq(pcq);
	}
}

/* What the device reports about its clock, and the clock itself. */
static void test_clock(void)
{
	struct ibv_device_attr_ex attr;
	struct ibv_values_ex v;
	uint64_t raw0, raw1, got;
	int ret;

	ret = ibv_query_device_ex(ctx, NULL, &attr);
	ok(!ret && attr.completion_timestamp_mask == FAKE_TS_MASK &&
	   attr.hca_core_clock == FAKE_CORE_CLOCK &&
	   !strcmp(attr.orig_attr.fw_ver, "1.2.3"),
	   "query_device_ex: completion_timestamp_mask and hca_core_clock of the kernel reach the caller (ret %d)",
	   ret);

	v = (struct ibv_values_ex){ .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	raw0 = clock_ns(CLOCK_MONOTONIC_RAW);
	ret = ibv_query_rt_values_ex(ctx, &v);
	raw1 = clock_ns(CLOCK_MONOTONIC_RAW);
	got = (uint64_t)v.raw_clock.tv_sec * 1000000000ULL +
	      (uint64_t)v.raw_clock.tv_nsec;
	ok(!ret && v.comp_mask == IBV_VALUES_MASK_RAW_CLOCK &&
	   v.raw_clock.tv_nsec >= 0 && v.raw_clock.tv_nsec < 1000000000 &&
	   got >= raw0 && got <= raw1,
	   "query_rt_values_ex: RAW_CLOCK is CLOCK_MONOTONIC_RAW, between two reads of it");

	v = (struct ibv_values_ex){ .comp_mask = 0 };
	ok(!ibv_query_rt_values_ex(ctx, &v) && v.comp_mask == 0,
	   "query_rt_values_ex with an empty mask: nothing filled");
	v = (struct ibv_values_ex){
		.comp_mask = IBV_VALUES_MASK_RAW_CLOCK | IBV_VALUES_MASK_RESERVED,
	};
	ok(ibv_query_rt_values_ex(ctx, &v) == EOPNOTSUPP &&
	   v.comp_mask == (IBV_VALUES_MASK_RAW_CLOCK | IBV_VALUES_MASK_RESERVED),
	   "query_rt_values_ex with an unknown mask bit: EOPNOTSUPP, values left alone");
}

/* Device memory of 5000 bytes: two pages behind the mapping. */
#define DM_LEN		5000
#define DM_MAP		(2 * PAGE)

/* ibv_memcpy_to_dm/from_dm against the memory the device sees. */
static void test_dm_copy(struct ibv_dm *dm, char *dev)
{
	static const struct {
		uint64_t off;
		size_t len;
		const char *what;
	} bads[] = {
		{ 0, DM_LEN + 1, "length + 1 bytes at offset 0" },
		{ DM_LEN - 1, 2, "2 bytes at the last byte" },
		{ DM_LEN, 1, "1 byte at the end" },
		{ DM_LEN + 1, 0, "0 bytes beyond the end" },
		{ UINT64_MAX, 2, "offset UINT64_MAX, offset + length wrapping" },
		{ PAGE, SIZE_MAX - PAGE + 1, "offset + length wrapping to 0" },
		{ 1, SIZE_MAX, "length SIZE_MAX" },
	};
	static char host[DM_MAP], back[DM_MAP], saved[DM_MAP];
	bool clean = true;
	unsigned int i;

	for (i = 0; i < DM_MAP; i++)
		host[i] = (char)(i * 7 + 1);
	memset(dev, 0xa5, DM_MAP);
	ok(!ibv_memcpy_to_dm(dm, 100, host, 300) &&
	   !memcmp(dev + 100, host, 300) && dev[99] == (char)0xa5 &&
	   dev[400] == (char)0xa5,
	   "memcpy_to_dm: 300 bytes land at offset 100 of the device's memory, nothing around them");
	ok(!ibv_memcpy_to_dm(dm, 0, host, DM_LEN) &&
	   !memcmp(dev, host, DM_LEN) && dev[DM_LEN] == (char)0xa5,
	   "memcpy_to_dm of the whole allocation (offset 0, its length)");
	for (i = 0; i < 1000; i++)
		dev[4000 + i] = (char)~i;
	memset(back, 0, sizeof(back));
	ok(!ibv_memcpy_from_dm(back, dm, 4000, 1000) &&
	   !memcmp(back, dev + 4000, 1000) && !back[1000],
	   "memcpy_from_dm: what the device wrote at 4000..4999, and no more");
	ok(!ibv_memcpy_to_dm(dm, DM_LEN, host, 0) &&
	   !ibv_memcpy_from_dm(back, dm, DM_LEN, 0) &&
	   !ibv_memcpy_from_dm(back, dm, 0, 0),
	   "zero-length copies at the start and at the end: 0");

	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		memcpy(saved, dev, DM_MAP);
		memset(back, 0x5a, sizeof(back));
		ok(ibv_memcpy_to_dm(dm, bads[i].off, host, bads[i].len) == EINVAL &&
		   ibv_memcpy_from_dm(back, dm, bads[i].off, bads[i].len) == EINVAL &&
		   !memcmp(dev, saved, DM_MAP) && back[0] == 0x5a &&
		   back[DM_MAP - 1] == 0x5a,
		   "memcpy to/from dm, %s: EINVAL, nothing copied",
		   bads[i].what);
	}
	for (i = DM_LEN; i < DM_MAP; i++)
		clean &= dev[i] == (char)0xa5;
	ok(clean, "the mapping beyond the allocation's length was never written");
}

/*
 * Device memory: max_dm_size, the copies, an RDMA WRITE from a region on
 * device memory (its SGE addresses from 0), and the cleanup.
 */
static void test_dm(void)
{
	struct ibv_alloc_dm_attr da = { .length = DM_LEN };
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_device_attr_ex attr;
	const struct orca_send_wqe *w;
	const struct orca_sge *s;
	unsigned int frees;
	struct ibv_sge sge;
	struct ibv_mr *mr;
	struct ibv_dm *dm;
	struct ibv_qp *qp;
	struct dev_qp d;
	uint64_t key;
	char *dev;
	int ret;

	ret = ibv_query_device_ex(ctx, NULL, &attr);
	ok(!ret && attr.max_dm_size == FAKE_DM_SIZE,
	   "query_device_ex: the kernel's max_dm_size reaches the caller (ret %d)",
	   ret);

	dm = ibv_alloc_dm(ctx, &da);
	key = last_dm_key;
	dev = dm ? map_of(key) : NULL;
	ok(dev && map_len_of(key) == DM_MAP,
	   "dm: allocated and mapped whole (2 pages)");
	if (!dev)
		return;
	test_dm_copy(dm, dev);

	mr = ibv_reg_dm_mr(pd, dm, 0, DM_LEN,
			   IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE);
	qp = mr ? make_qp(IBV_QPT_RC, NULL, &d) : NULL;
	if (!qp || to_state(qp, IBV_QPS_INIT)) {
		ok(0, "dm mr and an rc qp in INIT");
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	sge = (struct ibv_sge){ .addr = 100, .length = 300, .lkey = mr->lkey };
	wr = (struct ibv_send_wr){
		.wr_id = 0xd1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED, .sg_list = &sge, .num_sge = 1,
		.wr.rdma = { .remote_addr = 0x10000, .rkey = 0x4242 },
	};
	ret = ibv_post_send(qp, &wr, &bad);
	w = sq_wqe(&d, 0);
	s = wqe_sge(w, ORCA_SEND_WQE_HDR_SIZE);
	ok(!ret && mr->lkey == DM_MR_LKEY && !mr->addr &&
	   ld(&d.sq_db->prod) == 1 &&
	   (le32toh(w->ctrl) & ORCA_WQE_CTRL_OPCODE_MASK) ==
	   ORCA_WQE_OP_RDMA_WRITE &&
	   le64toh(s->addr) == 100 && le32toh(s->length) == 300 &&
	   le32toh(s->lkey) == DM_MR_LKEY,
	   "an RDMA WRITE from a DM MR: the SGE carries the zero-based offset 100 and the MR's lkey");
	ok(!ibv_destroy_qp(qp) && !ibv_dereg_mr(mr), "destroy qp, dereg dm mr");

	frees = n_dm_free;
	ok(!ibv_free_dm(dm) && n_dm_free == frees + 1 && !map_of(key),
	   "dm: freed (DM_FREE), unmapped");
}

static struct ibv_qp *make_qp_ex(enum ibv_qp_type type, uint64_t ops,
				 struct dev_qp *d)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = SQ_MAX_WR, .max_recv_wr = RQ_MAX_WR,
			 .max_send_sge = SQ_MAX_SGE,
			 .max_recv_sge = RQ_MAX_SGE,
			 .max_inline_data = MAX_INLINE },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd, .send_ops_flags = ops,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(ctx, &a);

	if (qp)
		*d = dev_qp_of(last_key);
	return qp;
}

static void test_qp_ex(void)
{
	const uint64_t rc_ops = IBV_QP_EX_WITH_RDMA_WRITE |
		IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND |
		IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
		IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV |
		IBV_QP_EX_WITH_SEND_WITH_INV;
	struct ibv_ah_attr aattr = { .is_global = 1, .port_num = 1 };
	char x[7] = "1234567", y[5] = "abcde";
	struct ibv_data_buf bufs[2] = { { x, sizeof(x) }, { y, sizeof(y) } };
	struct ibv_sge sg5[5] = {};
	const struct orca_send_wqe *w;
	const struct orca_sge *s;
	struct ibv_qp_ex *qpx;
	unsigned int before;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct dev_qp d;
	int ret;

	errno = 0;
	ok(!make_qp_ex(IBV_QPT_UD, IBV_QP_EX_WITH_SEND |
		       IBV_QP_EX_WITH_RDMA_WRITE, &d) && errno == EOPNOTSUPP,
	   "create_qp_ex: RDMA_WRITE in send_ops_flags of a UD QP is EOPNOTSUPP");
	errno = 0;
	ok(!make_qp_ex(IBV_QPT_UD, IBV_QP_EX_WITH_SEND |
		       IBV_QP_EX_WITH_BIND_MW, &d) && errno == EOPNOTSUPP,
	   "create_qp_ex: BIND_MW in send_ops_flags of a UD QP is EOPNOTSUPP");

	qp = make_qp_ex(IBV_QPT_RC, rc_ops, &d);
	qpx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	if (!qpx) {
		ok(0, "create_qp_ex RC with every supported send op: %s",
		   strerror(errno));
		return;
	}
	ok(1, "create_qp_ex RC with every supported send op; ibv_qp_to_qp_ex works");

	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ret = ibv_wr_complete(qpx);
	ok(ret == EINVAL && ld(&d.sq_db->prod) == 0,
	   "wr_complete in RESET: EINVAL, nothing posted (ret %d)", ret);

	to_state(qp, IBV_QPS_INIT);
	d.sq_db->dev_flags = 0;
	before = n_cmd[IB_USER_VERBS_CMD_POST_SEND];
	ibv_wr_start(qpx);
	qpx->wr_id = 0x71;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	ibv_wr_send_imm(qpx, htobe32(0x01020304));
	ibv_wr_set_sge(qpx, 0x11, 0x1000, 100);
	qpx->wr_id = 0x72;
	qpx->wr_flags = IBV_SEND_INLINE;
	ibv_wr_rdma_write(qpx, 0x99, 0x8000);
	ibv_wr_set_inline_data_list(qpx, 2, bufs);
	qpx->wr_id = 0x73;
	qpx->wr_flags = 0;
	ibv_wr_atomic_fetch_add(qpx, 0x98, 0x9000, 5);
	ibv_wr_set_sge(qpx, 0x12, 0x2000, 8);
	qpx->wr_id = 0x74;
	ibv_wr_local_inv(qpx, 0xabc);
	qpx->wr_id = 0x75;
	ibv_wr_rdma_write_imm(qpx, 0x97, 0xa000, htobe32(0x0a0b0c0d));
	ret = ibv_wr_complete(qpx);
	ok(ret == 0 && ld(&d.sq_db->prod) == 5 &&
	   n_cmd[IB_USER_VERBS_CMD_POST_SEND] == before + 1,
	   "a batch of 5 WRs: posted, one kick with POLLING clear (ret %d)", ret);

	w = sq_wqe(&d, 0);
	s = wqe_sge(w, ORCA_SEND_WQE_HDR_SIZE);
	ok(le64toh(w->wr_id) == 0x71 &&
	   le32toh(w->ctrl) == (ORCA_WQE_OP_SEND_IMM |
				(ORCA_WQE_FLAG_SIGNALED | ORCA_WQE_FLAG_SOLICITED) <<
				ORCA_WQE_CTRL_FLAGS_SHIFT |
				1 << ORCA_WQE_CTRL_NUM_SGE_SHIFT) &&
	   le32toh(w->imm_inv) == 0x01020304 && le64toh(s[0].addr) == 0x1000 &&
	   le32toh(s[0].length) == 100 && le32toh(s[0].lkey) == 0x11,
	   "wr_send_imm + wr_set_sge: WQE as ibv_post_send writes it");
	w = sq_wqe(&d, 1);
	ok(le64toh(w->wr_id) == 0x72 &&
	   le32toh(w->ctrl) == (ORCA_WQE_OP_RDMA_WRITE |
				ORCA_WQE_FLAG_INLINE << ORCA_WQE_CTRL_FLAGS_SHIFT) &&
	   le32toh(w->inline_len) == 12 && !memcmp((const char *)w + 64, x, 7) &&
	   !memcmp((const char *)w + 71, y, 5) &&
	   le64toh(w->seg.rdma.remote_addr) == 0x8000 &&
	   le32toh(w->seg.rdma.rkey) == 0x99,
	   "wr_rdma_write + wr_set_inline_data_list: 12 inline bytes");
	w = sq_wqe(&d, 2);
	ok((le32toh(w->ctrl) & ORCA_WQE_CTRL_OPCODE_MASK) ==
	   ORCA_WQE_OP_ATOMIC_FETCH_ADD &&
	   le64toh(w->seg.atomic.compare_add) == 5 &&
	   le64toh(w->seg.atomic.remote_addr) == 0x9000,
	   "wr_atomic_fetch_add: atomic segment");
	w = sq_wqe(&d, 3);
	ok((le32toh(w->ctrl) & ORCA_WQE_CTRL_OPCODE_MASK) == ORCA_WQE_OP_LOCAL_INV &&
	   le32toh(w->imm_inv) == 0xabc, "wr_local_inv: key");
	w = sq_wqe(&d, 4);
	ok((le32toh(w->ctrl) & ORCA_WQE_CTRL_OPCODE_MASK) ==
	   ORCA_WQE_OP_RDMA_WRITE_IMM && le32toh(w->imm_inv) == 0x0a0b0c0d &&
	   le32toh(w->seg.rdma.rkey) == 0x97,
	   "wr_rdma_write_imm: immediate and rdma segment");
	st(&d.sq_db->cons, 5);
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);

	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge_list(qpx, 5, sg5);
	ibv_wr_send(qpx);
	ret = ibv_wr_complete(qpx);
	ok(ret == EINVAL && ld(&d.sq_db->prod) == 5,
	   "a batch with 5 SGEs on its 2nd WR: EINVAL, none of the 3 posted");

	ibv_wr_start(qpx);
	ibv_wr_atomic_cmp_swp(qpx, 1, 0x10, 1, 2);
	ret = ibv_wr_complete(qpx);
	ok(ret == EINVAL, "an atomic without its SGE: EINVAL");

	ibv_wr_start(qpx);
	for (int i = 0; i < SQ_MAX_WR + 1; i++)
		ibv_wr_send(qpx);
	ret = ibv_wr_complete(qpx);
	ok(ret == ENOMEM && ld(&d.sq_db->prod) == 5,
	   "a batch beyond max_send_wr: ENOMEM, none posted");

	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_abort(qpx);
	ibv_wr_start(qpx);
	qpx->wr_id = 0x80;
	ibv_wr_send(qpx);
	ret = ibv_wr_complete(qpx);
	ok(ret == 0 && ld(&d.sq_db->prod) == 6 &&
	   le64toh(sq_wqe(&d, 5)->wr_id) == 0x80,
	   "wr_abort drops its WR; the next batch takes the slot");
	ibv_destroy_qp(qp);

	ah = ibv_create_ah(pd, &aattr);
	qp = make_qp_ex(IBV_QPT_UD, IBV_QP_EX_WITH_SEND, &d);
	qpx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	if (!ah || !qpx || to_state(qp, IBV_QPS_INIT)) {
		ok(0, "ud qp_ex in INIT and an AH");
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ret = ibv_wr_complete(qpx);
	ok(ret == EINVAL && ld(&d.sq_db->prod) == 0,
	   "UD wr_send without wr_set_ud_addr: EINVAL");
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, ah, 0x777, 0x11111111);
	ibv_wr_set_inline_data(qpx, x, 3);
	ret = ibv_wr_complete(qpx);
	w = sq_wqe(&d, 0);
	ok(ret == 0 && !w->seg.ud.reserved0 &&
	   !memcmp(w + 1, &fake_av, sizeof(fake_av)) &&
	   !memcmp((char *)w + ORCA_UD_SEND_WQE_HDR_SIZE, x, 3) &&
	   le32toh(w->seg.ud.remote_qpn) == 0x777 &&
	   le32toh(w->seg.ud.remote_qkey) == 0x11111111 &&
	   le32toh(w->inline_len) == 3,
	   "UD wr_send + wr_set_ud_addr + inline: AV, ud segment, data after the AV");
	ibv_destroy_qp(qp);
	ibv_destroy_ah(ah);
}

/* --- memory windows ----------------------------------------------------- */

static char mw_buf[4096];
static struct ibv_pd *pd2;		/* a second PD */
static struct ibv_mr *mr, *mr2;		/* an MR on pd, one on pd2 */
static struct ibv_mw *mw1, *mw2;	/* type 1 and type 2 windows on pd */

/* The provider's bind_mw itself, past ibv_bind_mw()'s own checks. */
static int prov_bind(struct ibv_qp *qp, struct ibv_mw *mw,
		     struct ibv_mw_bind *b)
{
	return qp->context->ops.bind_mw(qp, mw, b);
}

/* Whether w is the BIND_MW WQE with these fields (and no SGE, no inline). */
static bool bind_wqe_is(const struct orca_send_wqe *w, uint64_t wr_id,
			uint32_t flags, uint32_t key, uint32_t new_key,
			uint32_t mr_key, uint64_t addr, uint64_t length,
			uint32_t info)
{
	return le64toh(w->wr_id) == wr_id &&
	       le32toh(w->ctrl) == (ORCA_WQE_OP_BIND_MW |
				    flags << ORCA_WQE_CTRL_FLAGS_SHIFT) &&
	       le32toh(w->imm_inv) == key && !w->inline_len &&
	       le32toh(w->seg.bind.new_key) == new_key &&
	       le32toh(w->seg.bind.mr_key) == mr_key &&
	       le64toh(w->seg.bind.addr) == addr &&
	       le64toh(w->seg.bind.length) == length &&
	       le32toh(w->seg.bind.info) == info && !w->seg.bind.reserved;
}

static void test_mw_alloc(void)
{
	unsigned int before = n_cmd[IB_USER_VERBS_CMD_ALLOC_MW];
	struct ibv_mw *mw;

	errno = 0;
	mw = ibv_alloc_mw(pd, (enum ibv_mw_type)3);
	ok(!mw && errno == EINVAL &&
	   n_cmd[IB_USER_VERBS_CMD_ALLOC_MW] == before,
	   "alloc_mw of type 3: EINVAL, no command sent");

	mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	ok(mw1 && n_cmd[IB_USER_VERBS_CMD_ALLOC_MW] == before + 1 &&
	   last_mw_len == sizeof(struct ib_uverbs_cmd_hdr) +
			  sizeof(struct ib_uverbs_alloc_mw) &&
	   last_mw_out == sizeof(struct ib_uverbs_alloc_mw_resp) &&
	   last_mw_pd == pd->handle && last_mw_type == IBV_MW_TYPE_1 &&
	   !last_mw_reserved,
	   "alloc_mw type 1: ALLOC_MW with the PD's handle and type 1, no udata either way (%zu/%zu bytes)",
	   last_mw_len, last_mw_out);
	ok(mw1 && mw1->context == ctx && mw1->pd == pd &&
	   mw1->type == IBV_MW_TYPE_1 && mw1->handle == 0x123 &&
	   mw1->rkey == 0x123ff,
	   "alloc_mw type 1: context, pd, type, and handle and rkey from the answer");
	mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	ok(mw2 && last_mw_type == IBV_MW_TYPE_2 && mw2->type == IBV_MW_TYPE_2 &&
	   mw2->pd == pd && mw2->rkey == 0x12410,
	   "alloc_mw type 2: ALLOC_MW with type 2");

	pd2 = ibv_alloc_pd(ctx);
	mr = ibv_reg_mr(pd, mw_buf, sizeof(mw_buf),
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mr2 = pd2 ? ibv_reg_mr(pd2, mw_buf, sizeof(mw_buf),
			       IBV_ACCESS_MW_BIND) : NULL;
	ok(pd2 && mr && mr2 && mr->lkey == MR_LKEY && mr2->pd == pd2,
	   "a second PD, an MR on each PD");
}

/* ibv_bind_mw(3): type 1 windows. */
static void test_bind_type1(void)
{
	struct ibv_mw_bind b = {
		.wr_id = 0xb1,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE |
			      IBV_SEND_SOLICITED,
		.bind_info = {
			.mr = mr, .addr = (uintptr_t)mw_buf + 16, .length = 100,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_READ,
		},
	};
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UC,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = SQ_MAX_WR, .max_recv_wr = RQ_MAX_WR,
			 .max_send_sge = SQ_MAX_SGE,
			 .max_recv_sge = RQ_MAX_SGE },
	};
	struct ibv_send_wr wr = {}, *bad = NULL;
	struct ibv_mw *mw_other;
	unsigned int before;
	uint32_t key, prod;
	struct dev_qp d;
	struct ibv_qp *qp;
	int ret;

	qp = make_qp(IBV_QPT_RC, NULL, &d);
	mw_other = ibv_alloc_mw(pd2, IBV_MW_TYPE_1);
	if (!qp || !mw1 || !mw2 || !mr || !mr2 || !mw_other) {
		ok(0, "rc qp, windows and MRs for the type 1 binds");
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);

	key = mw1->rkey;
	errno = 0;
	ret = ibv_bind_mw(qp, mw1, &b);
	ok(ret == EINVAL && errno == EINVAL && ld(&d.sq_db->prod) == 0 &&
	   mw1->rkey == key,
	   "ibv_bind_mw in RESET: EINVAL (errno too), nothing posted, rkey kept (ret %d)",
	   ret);

	to_state(qp, IBV_QPS_INIT);
	ret = ibv_bind_mw(qp, mw1, &b);
	ok(ret == 0 && ld(&d.sq_db->prod) == 1 && mw1->rkey == 0x12300,
	   "ibv_bind_mw: posted; mw->rkey takes the next variant (0x%x -> 0x%x: 0xff wraps to 0, the index stays)",
	   key, mw1->rkey);
	ok(bind_wqe_is(sq_wqe(&d, 0), 0xb1,
		       ORCA_WQE_FLAG_SIGNALED | ORCA_WQE_FLAG_FENCE, key,
		       0x12300, MR_LKEY, (uintptr_t)mw_buf + 16, 100,
		       ORCA_BIND_ACCESS_REMOTE_WRITE |
		       ORCA_BIND_ACCESS_REMOTE_READ),
	   "type 1 BIND_MW WQE: imm_inv = the old key, new_key, mr_key = the MR's lkey, addr, length, rights; SIGNALED and FENCE, not SOLICITED; no SGE");

	/* Unbind: length 0, with or without an MR. */
	d.sq_db->dev_flags = 0;
	before = n_cmd[IB_USER_VERBS_CMD_POST_SEND];
	b = (struct ibv_mw_bind){
		.wr_id = 0xb2,
		.bind_info = { .mr = mr, .addr = 0x1234,
			       .mw_access_flags = IBV_ACCESS_REMOTE_READ },
	};
	ret = ibv_bind_mw(qp, mw1, &b);
	ok(ret == 0 && ld(&d.sq_db->prod) == 2 &&
	   n_cmd[IB_USER_VERBS_CMD_POST_SEND] == before + 1 &&
	   last_wr_count == 0 && mw1->rkey == 0x12301 &&
	   bind_wqe_is(sq_wqe(&d, 1), 0xb2, 0, 0x12300, 0x12301, 0, 0, 0,
		       ORCA_BIND_ACCESS_REMOTE_READ),
	   "unbind (length 0) naming an MR: mr_key and addr 0, unsignaled; with POLLING clear, one POST_SEND kick");
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	b.bind_info = (struct ibv_mw_bind_info){};
	ret = ibv_bind_mw(qp, mw1, &b);
	ok(ret == 0 && mw1->rkey == 0x12302 &&
	   bind_wqe_is(sq_wqe(&d, 2), 0xb2, 0, 0x12301, 0x12302, 0, 0, 0, 0),
	   "unbind without an MR: only the keys");
	st(&d.sq_db->cons, 3);

	/* The provider's own checks, which ibv_bind_mw() partly repeats. */
	struct {
		struct ibv_mw *mw;
		struct ibv_mw_bind_info bi;
		int err;
		const char *what;
	} bads[] = {
		{ NULL, { mr, 0, 8, 0 }, EINVAL, "no window" },
		{ mw2, { mr, 0, 8, 0 }, EINVAL, "a type 2 window" },
		{ mw_other, { mr, 0, 8, 0 }, EINVAL,
		  "a window of another PD than the QP's" },
		{ mw1, { NULL, 0, 8, 0 }, EINVAL, "a length without an MR" },
		{ mw1, { NULL, 0x1000, 0, 0 }, EINVAL,
		  "an address without an MR" },
		{ mw1, { mr, 0, 8, IBV_ACCESS_LOCAL_WRITE }, EINVAL,
		  "LOCAL_WRITE access" },
		{ mw1, { mr, 0, 8, IBV_ACCESS_MW_BIND }, EINVAL,
		  "MW_BIND access" },
		{ mw1, { mr, 0, 8, IBV_ACCESS_ZERO_BASED }, EINVAL,
		  "ZERO_BASED on a type 1 window" },
		{ mw1, { mr2, 0, 8, 0 }, EPERM, "an MR of another PD" },
	};
	for (unsigned int i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		key = bads[i].mw ? bads[i].mw->rkey : 0;
		prod = ld(&d.sq_db->prod);
		b = (struct ibv_mw_bind){
			.wr_id = 0xbad, .send_flags = IBV_SEND_SIGNALED,
			.bind_info = bads[i].bi,
		};
		errno = 0;
		ret = prov_bind(qp, bads[i].mw, &b);
		ok(ret == bads[i].err && errno == bads[i].err &&
		   ld(&d.sq_db->prod) == prod &&
		   (!bads[i].mw || bads[i].mw->rkey == key),
		   "bind_mw with %s: %s (errno too), nothing posted, rkey kept (ret %d)",
		   bads[i].what, strerror(bads[i].err), ret);
	}
	b = (struct ibv_mw_bind){ .bind_info = { mr2, 0, 8, 0 } };
	ok(ibv_bind_mw(qp, mw1, &b) == EPERM && ld(&d.sq_db->prod) == prod,
	   "ibv_bind_mw with an MR of another PD: EPERM");

	/* max_send_wr outstanding. */
	for (int i = 0; i < SQ_MAX_WR; i++) {
		wr = (struct ibv_send_wr){ .opcode = IBV_WR_SEND };
		ibv_post_send(qp, &wr, &bad);
	}
	prod = ld(&d.sq_db->prod);
	key = mw1->rkey;
	b = (struct ibv_mw_bind){
		.wr_id = 0xb3,
		.bind_info = { mr, (uintptr_t)mw_buf, 8, 0 },
	};
	errno = 0;
	ret = ibv_bind_mw(qp, mw1, &b);
	ok(ret == ENOMEM && errno == ENOMEM && prod == 3 + SQ_MAX_WR &&
	   ld(&d.sq_db->prod) == prod && mw1->rkey == key,
	   "ibv_bind_mw with max_send_wr outstanding: ENOMEM, nothing posted (ret %d)",
	   ret);
	ibv_destroy_qp(qp);

	/* UD cannot bind; UC can, and sq_sig_all signals the bind. */
	qp = make_qp(IBV_QPT_UD, NULL, &d);
	if (!qp || to_state(qp, IBV_QPS_INIT)) {
		ok(0, "ud qp in INIT");
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	b = (struct ibv_mw_bind){ .bind_info = { mr, (uintptr_t)mw_buf, 8, 0 } };
	key = mw1->rkey;
	ok(ibv_bind_mw(qp, mw1, &b) == EINVAL && ld(&d.sq_db->prod) == 0 &&
	   mw1->rkey == key, "ibv_bind_mw on a UD QP: EINVAL");
	ibv_destroy_qp(qp);

	qp = ibv_create_qp(pd, &qa);
	if (!qp || to_state(qp, IBV_QPS_INIT)) {
		ok(0, "uc qp with sq_sig_all in INIT");
		return;
	}
	d = dev_qp_of(last_key);
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	b = (struct ibv_mw_bind){
		.wr_id = 0xb4,
		.bind_info = { mr, (uintptr_t)mw_buf, 64,
			       IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_ATOMIC },
	};
	ret = ibv_bind_mw(qp, mw1, &b);
	ok(ret == 0 && mw1->rkey == ibv_inc_rkey(key) &&
	   bind_wqe_is(sq_wqe(&d, 0), 0xb4, ORCA_WQE_FLAG_SIGNALED, key,
		       ibv_inc_rkey(key), MR_LKEY, (uintptr_t)mw_buf, 64,
		       ORCA_BIND_ACCESS_REMOTE_WRITE |
		       ORCA_BIND_ACCESS_REMOTE_ATOMIC),
	   "ibv_bind_mw on a UC QP with sq_sig_all: posted, SIGNALED");
	ibv_destroy_qp(qp);
	ok(!ibv_dealloc_mw(mw_other), "dealloc the window of the other PD");
}

/* The ways a type 2 bind (post_send or wr_bind_mw) is refused. */
struct bad_bind {
	struct ibv_mw *mw;
	uint32_t rkey;
	struct ibv_mw_bind_info bi;
	int err;
	const char *what;
};

static unsigned int bad_binds(struct bad_bind *bads, struct ibv_mw *other)
{
	uint32_t next = ibv_inc_rkey(mw2->rkey);
	unsigned int n = 0;

	bads[n++] = (struct bad_bind){ NULL, 0, { mr, 0, 8, 0 }, EINVAL,
				       "no window" };
	bads[n++] = (struct bad_bind){ mw1, ibv_inc_rkey(mw1->rkey),
				       { mr, 0, 8, 0 }, EINVAL,
				       "a type 1 window" };
	bads[n++] = (struct bad_bind){ other, ibv_inc_rkey(other->rkey),
				       { mr, 0, 8, 0 }, EINVAL,
				       "a window of another PD than the QP's" };
	bads[n++] = (struct bad_bind){ mw2, next + 0x100, { mr, 0, 8, 0 },
				       EINVAL, "a key of another index" };
	bads[n++] = (struct bad_bind){ mw2, next, { NULL, 0, 8, 0 }, EINVAL,
				       "no MR" };
	bads[n++] = (struct bad_bind){ mw2, next, { mr, 0, 0, 0 }, EINVAL,
				       "length 0" };
	bads[n++] = (struct bad_bind){ mw2, next,
				       { mr, 0, 8, IBV_ACCESS_LOCAL_WRITE },
				       EINVAL, "LOCAL_WRITE access" };
	bads[n++] = (struct bad_bind){ mw2, next,
				       { mr, 0, 8, IBV_ACCESS_MW_BIND },
				       EINVAL, "MW_BIND access" };
	bads[n++] = (struct bad_bind){ mw2, next, { mr2, 0, 8, 0 }, EPERM,
				       "an MR of another PD" };
	return n;
}

/* ibv_post_send(3) with IBV_WR_BIND_MW: type 2 windows. */
static void test_bind_type2(void)
{
	struct ibv_send_wr wr[2] = {}, *bad = NULL;
	struct bad_bind bads[16];
	struct ibv_mw *mw_other;
	uint32_t key, prod;
	unsigned int n;
	struct dev_qp d;
	struct ibv_qp *qp;
	int ret;

	qp = make_qp(IBV_QPT_RC, NULL, &d);
	mw_other = ibv_alloc_mw(pd2, IBV_MW_TYPE_2);
	if (!qp || to_state(qp, IBV_QPS_INIT) || !mw1 || !mw2 || !mr ||
	    !mr2 || !mw_other) {
		ok(0, "rc qp in INIT, windows and MRs for the type 2 binds");
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);

	key = mw2->rkey;
	wr[0] = (struct ibv_send_wr){
		.wr_id = 0xc1, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE |
			      IBV_SEND_SOLICITED | IBV_SEND_FENCE,
		.num_sge = 99,	/* not looked at */
		.bind_mw = {
			.mw = mw2, .rkey = ibv_inc_rkey(key),
			.bind_info = {
				.mr = mr, .addr = (uintptr_t)mw_buf + 64,
				.length = 256,
				.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
						   IBV_ACCESS_REMOTE_ATOMIC |
						   IBV_ACCESS_ZERO_BASED,
			},
		},
	};
	wr[1] = (struct ibv_send_wr){
		.wr_id = 0xc2, .opcode = IBV_WR_BIND_MW,
		.bind_mw = {
			.mw = mw2, .rkey = (key & ~0xffU) | 0x77,
			.bind_info = { mr, (uintptr_t)mw_buf, sizeof(mw_buf),
				       IBV_ACCESS_REMOTE_READ },
		},
	};
	link_send(wr, 2);
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == 0 && ld(&d.sq_db->prod) == 2 && mw2->rkey == key,
	   "post_send of 2 type 2 binds: posted; mw->rkey left to the application (ret %d)",
	   ret);
	ok(bind_wqe_is(sq_wqe(&d, 0), 0xc1,
		       ORCA_WQE_FLAG_SIGNALED | ORCA_WQE_FLAG_FENCE, key,
		       ibv_inc_rkey(key), MR_LKEY, (uintptr_t)mw_buf + 64, 256,
		       ORCA_BIND_ACCESS_REMOTE_WRITE |
		       ORCA_BIND_ACCESS_REMOTE_ATOMIC |
		       ORCA_WQE_BIND_ZERO_BASED),
	   "IBV_WR_BIND_MW WQE: imm_inv = mw->rkey, new_key = the WR's rkey, ZERO_BASED; num_sge and INLINE ignored, SOLICITED dropped");
	ok(bind_wqe_is(sq_wqe(&d, 1), 0xc2, 0, key, (key & ~0xffU) | 0x77,
		       MR_LKEY, (uintptr_t)mw_buf, sizeof(mw_buf),
		       ORCA_BIND_ACCESS_REMOTE_READ),
	   "IBV_WR_BIND_MW: any variant of the window's index");
	st(&d.sq_db->cons, 2);

	n = bad_binds(bads, mw_other);
	for (unsigned int i = 0; i < n; i++) {
		prod = ld(&d.sq_db->prod);
		wr[0] = (struct ibv_send_wr){
			.wr_id = 0xbad, .opcode = IBV_WR_BIND_MW,
			.send_flags = IBV_SEND_SIGNALED,
			.bind_mw = { bads[i].mw, bads[i].rkey, bads[i].bi },
		};
		bad = NULL;
		ret = ibv_post_send(qp, wr, &bad);
		ok(ret == bads[i].err && bad == &wr[0] &&
		   ld(&d.sq_db->prod) == prod && mw2->rkey == key,
		   "IBV_WR_BIND_MW with %s: %s, bad_wr = it, SQ producer unchanged (ret %d)",
		   bads[i].what, strerror(bads[i].err), ret);
	}

	/* After a good WR, a bad bind stops the list there. */
	prod = ld(&d.sq_db->prod);
	wr[0] = (struct ibv_send_wr){ .wr_id = 0xc3, .opcode = IBV_WR_SEND };
	wr[1] = (struct ibv_send_wr){
		.wr_id = 0xc4, .opcode = IBV_WR_BIND_MW,
		.bind_mw = { mw2, ibv_inc_rkey(key), { mr, 0, 0, 0 } },
	};
	link_send(wr, 2);
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == EINVAL && bad == &wr[1] && ld(&d.sq_db->prod) == prod + 1,
	   "a SEND then a bind of length 0: EINVAL at the bind, the SEND posted");
	ibv_destroy_qp(qp);

	/* UC binds type 2 windows too; UD does not. */
	qp = make_qp(IBV_QPT_UC, NULL, &d);
	if (!qp || to_state(qp, IBV_QPS_INIT)) {
		ok(0, "uc qp in INIT");
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	wr[0] = (struct ibv_send_wr){
		.wr_id = 0xc5, .opcode = IBV_WR_BIND_MW,
		.bind_mw = { mw2, ibv_inc_rkey(key),
			     { mr, (uintptr_t)mw_buf, 8, 0 } },
	};
	ok(!ibv_post_send(qp, wr, &bad) && ld(&d.sq_db->prod) == 1 &&
	   bind_wqe_is(sq_wqe(&d, 0), 0xc5, 0, key, ibv_inc_rkey(key),
		       MR_LKEY, (uintptr_t)mw_buf, 8, 0),
	   "UC: IBV_WR_BIND_MW is posted");
	ibv_destroy_qp(qp);
	qp = make_qp(IBV_QPT_UD, NULL, &d);
	if (!qp || to_state(qp, IBV_QPS_INIT)) {
		ok(0, "ud qp in INIT");
		return;
	}
	ok(ibv_post_send(qp, wr, &bad) == EINVAL && ld(&d.sq_db->prod) == 0,
	   "UD: IBV_WR_BIND_MW is EINVAL");
	ibv_destroy_qp(qp);
	ok(!ibv_dealloc_mw(mw_other), "dealloc the window of the other PD");
}

/* ibv_wr_bind_mw() of the extended QP API. */
static void test_bind_wr(void)
{
	const uint64_t ops = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_BIND_MW |
			     IBV_QP_EX_WITH_LOCAL_INV;
	struct ibv_mw_bind_info bi = {
		.mr = mr, .addr = (uintptr_t)mw_buf + 8, .length = 512,
		.mw_access_flags = IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_ZERO_BASED,
	};
	struct bad_bind bads[16];
	struct ibv_mw *mw_other;
	struct ibv_qp_ex *qpx;
	uint32_t key, prod;
	unsigned int n;
	struct dev_qp d;
	struct ibv_qp *qp;
	int ret;

	qp = make_qp_ex(IBV_QPT_UC, ops, &d);
	ok(qp && ibv_qp_to_qp_ex(qp),
	   "create_qp_ex: UC with BIND_MW in send_ops_flags");
	if (qp)
		ibv_destroy_qp(qp);
	qp = make_qp_ex(IBV_QPT_RC, ops, &d);
	qpx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	mw_other = ibv_alloc_mw(pd2, IBV_MW_TYPE_2);
	if (!qpx || to_state(qp, IBV_QPS_INIT) || !mw1 || !mw2 || !mr ||
	    !mr2 || !mw_other) {
		ok(0, "create_qp_ex RC with BIND_MW in INIT, windows and MRs");
		return;
	}
	ok(1, "create_qp_ex: RC with BIND_MW in send_ops_flags");
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);

	key = mw2->rkey;
	ibv_wr_start(qpx);
	qpx->wr_id = 0xd1;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
			IBV_SEND_FENCE;
	ibv_wr_bind_mw(qpx, mw2, ibv_inc_rkey(key), &bi);
	qpx->wr_id = 0xd2;
	qpx->wr_flags = 0;
	ibv_wr_send(qpx);
	ret = ibv_wr_complete(qpx);
	ok(ret == 0 && ld(&d.sq_db->prod) == 2 && mw2->rkey == key &&
	   bind_wqe_is(sq_wqe(&d, 0), 0xd1,
		       ORCA_WQE_FLAG_SIGNALED | ORCA_WQE_FLAG_FENCE, key,
		       ibv_inc_rkey(key), MR_LKEY, (uintptr_t)mw_buf + 8, 512,
		       ORCA_BIND_ACCESS_REMOTE_READ |
		       ORCA_WQE_BIND_ZERO_BASED) &&
	   le32toh(sq_wqe(&d, 1)->ctrl) == ORCA_WQE_OP_SEND,
	   "wr_bind_mw + wr_send: the bind WQE as post_send writes it, then the send; mw->rkey untouched (ret %d)",
	   ret);
	st(&d.sq_db->cons, 2);

	n = bad_binds(bads, mw_other);
	for (unsigned int i = 0; i < n; i++) {
		prod = ld(&d.sq_db->prod);
		ibv_wr_start(qpx);
		ibv_wr_send(qpx);
		ibv_wr_bind_mw(qpx, bads[i].mw, bads[i].rkey, &bads[i].bi);
		ibv_wr_send(qpx);
		ret = ibv_wr_complete(qpx);
		ok(ret == bads[i].err && ld(&d.sq_db->prod) == prod &&
		   mw2->rkey == key,
		   "wr_bind_mw with %s: wr_complete returns %s, none of the batch posted (ret %d)",
		   bads[i].what, strerror(bads[i].err), ret);
	}

	ibv_wr_start(qpx);
	ibv_wr_bind_mw(qpx, mw2, ibv_inc_rkey(key), &bi);
	ibv_wr_set_sge(qpx, 1, 0x1000, 8);
	ret = ibv_wr_complete(qpx);
	ok(ret == EINVAL && ld(&d.sq_db->prod) == 2,
	   "wr_set_sge after wr_bind_mw: EINVAL (a bind has no data)");
	ibv_wr_start(qpx);
	ibv_wr_bind_mw(qpx, mw2, ibv_inc_rkey(key), &bi);
	ibv_wr_set_inline_data(qpx, mw_buf, 4);
	ret = ibv_wr_complete(qpx);
	ok(ret == EINVAL && ld(&d.sq_db->prod) == 2,
	   "wr_set_inline_data after wr_bind_mw: EINVAL");
	ibv_destroy_qp(qp);
	ok(!ibv_dealloc_mw(mw_other), "dealloc the window of the other PD");
}

/* BIND_MW completions, through ibv_poll_cq and the extended CQ. */
static void test_bind_poll(void)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 8, .wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cqx;
	struct ibv_cq *pcq;
	struct ibv_wc wc[4];
	struct dev_cq c;
	bool fields;
	int n;

	pcq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	if (!pcq) {
		ok(0, "a CQ for the BIND_MW completions");
		return;
	}
	c = dev_cq_of(last_key, 8);
	dev_cqe(&c, 0xe1, ORCA_CQE_OP_BIND_MW, 0, ORCA_CQE_ST_SUCCESS, 0, 0,
		0x200, 0);
	dev_cqe(&c, 0xe2, ORCA_CQE_OP_BIND_MW, 0, ORCA_CQE_ST_MW_BIND_ERR, 0,
		0, 0x200, 0);
	n = ibv_poll_cq(pcq, 4, wc);
	ok(n == 2 && wc[0].wr_id == 0xe1 && wc[0].status == IBV_WC_SUCCESS &&
	   wc[0].opcode == IBV_WC_BIND_MW && !wc[0].byte_len &&
	   !wc[0].wc_flags && !wc[0].vendor_err && wc[0].qp_num == 0x200 &&
	   wc[1].wr_id == 0xe2 && wc[1].status == IBV_WC_MW_BIND_ERR &&
	   wc[1].opcode == IBV_WC_BIND_MW,
	   "poll_cq: a BIND_MW CQE is IBV_WC_BIND_MW, byte_len 0; MW_BIND_ERR is IBV_WC_MW_BIND_ERR");
	ok(!ibv_destroy_cq(pcq), "destroy that CQ");

	cqx = ibv_create_cq_ex(ctx, &a);
	if (!cqx) {
		ok(0, "an extended CQ for the BIND_MW completions");
		return;
	}
	c = dev_cq_of(last_key, 8);
	dev_cqe(&c, 0xe3, ORCA_CQE_OP_BIND_MW, 0, ORCA_CQE_ST_SUCCESS, 0, 0,
		0x201, 0);
	dev_cqe(&c, 0xe4, ORCA_CQE_OP_BIND_MW, 0, ORCA_CQE_ST_MW_BIND_ERR, 0,
		0, 0x201, 0);
	fields = ibv_start_poll(cqx, &pa) == 0 && cqx->wr_id == 0xe3 &&
		 cqx->status == IBV_WC_SUCCESS &&
		 ibv_wc_read_opcode(cqx) == IBV_WC_BIND_MW &&
		 ibv_wc_read_byte_len(cqx) == 0 &&
		 ibv_wc_read_qp_num(cqx) == 0x201;
	fields = fields && ibv_next_poll(cqx) == 0 && cqx->wr_id == 0xe4 &&
		 cqx->status == IBV_WC_MW_BIND_ERR &&
		 ibv_wc_read_opcode(cqx) == IBV_WC_BIND_MW;
	ibv_end_poll(cqx);
	ok(fields,
	   "extended CQ: read_opcode of a BIND_MW CQE is IBV_WC_BIND_MW, byte_len 0; MW_BIND_ERR status");
	ok(!ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), "destroy the extended CQ");
}

/* --- XRC ------------------------------------------------------------------ */

_Static_assert(offsetof(struct orca_send_wqe, xrc_srqn) == 0x14,
	       "xrc_srqn at byte 0x14 of a send WQE");

static struct ibv_xrcd *xrcd;

/* Every opcode an XRC_SEND QP takes: RC's. */
#define XRC_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |	\
		 IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_RDMA_WRITE |	\
		 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |			\
		 IBV_QP_EX_WITH_RDMA_READ |				\
		 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |			\
		 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |			\
		 IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW)

/* The word at byte 0x14 of a WQE, as the device reads it. */
static uint32_t wqe_xrc(const struct orca_send_wqe *w)
{
	__le32 v;

	memcpy(&v, (const char *)w + 0x14, sizeof(v));
	return le32toh(v);
}

/* Whether w has opcode op, xrc_srqn x, and its reserved words 0. */
static bool xrc_wqe_is(const struct orca_send_wqe *w, uint32_t op, uint32_t x)
{
	return (le32toh(w->ctrl) & ORCA_WQE_CTRL_OPCODE_MASK) == op &&
	       wqe_xrc(w) == x && !w->reserved[0] && !w->reserved[1];
}

/* Stale WQEs in every slot: nothing of theirs may survive a post. */
static void poison_sq(struct dev_qp *d)
{
	memset(d->sq, 0xff, SQ_DEPTH * SQ_STRIDE);
}

/* An XRC_SEND QP (PD alone: through create_qp), with ops an ibv_qp_ex. */
static struct ibv_qp *make_xrc_send(uint64_t ops, struct dev_qp *d)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = SQ_MAX_WR, .max_send_sge = SQ_MAX_SGE,
			 .max_inline_data = MAX_INLINE },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd,
	};
	struct ibv_qp *qp;

	if (ops) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = ops;
	}
	qp = ibv_create_qp_ex(ctx, &a);
	if (qp)
		*d = dev_qp_of(last_key);
	return qp;
}

/* ibv_post_send and ibv_bind_mw on an XRC_SEND QP. */
static void test_xrc_post(void)
{
	char a[16] = "0123456789abcdef";
	uint64_t old = 0;
	struct ibv_sge sg = { (uintptr_t)a, sizeof(a), 0x61 };
	struct ibv_sge sg8 = { (uintptr_t)&old, 8, 0x62 };
	struct ibv_mw_bind b = {
		.wr_id = 0xe1,
		.bind_info = { .mr = mr, .addr = (uintptr_t)mw_buf,
			       .length = 64,
			       .mw_access_flags = IBV_ACCESS_REMOTE_READ },
	};
	struct ibv_send_wr wr[6] = {}, *bad = NULL;
	struct ibv_recv_wr rwr = {}, *rbad = NULL;
	const struct orca_send_wqe *w;
	uint32_t key;
	struct dev_qp d;
	struct ibv_qp *qp;
	int ret;

	qp = make_xrc_send(0, &d);
	if (!qp || to_state(qp, IBV_QPS_INIT) || !mw1 || !mw2 || !mr) {
		ok(0, "xrc_send qp in INIT, windows and an MR");
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	poison_sq(&d);

	wr[0] = (struct ibv_send_wr){
		.wr_id = 0xd0, .opcode = IBV_WR_SEND, .sg_list = &sg,
		.num_sge = 1, .qp_type.xrc.remote_srqn = 0x10,
	};
	wr[1] = (struct ibv_send_wr){
		.wr_id = 0xd1, .opcode = IBV_WR_SEND_WITH_IMM,
		.imm_data = htobe32(0xa1b2c3d4),
		.qp_type.xrc.remote_srqn = 0x11,
	};
	wr[2] = (struct ibv_send_wr){
		.wr_id = 0xd2, .opcode = IBV_WR_SEND_WITH_INV,
		.invalidate_rkey = 0x3344, .qp_type.xrc.remote_srqn = 0x12,
	};
	wr[3] = (struct ibv_send_wr){
		.wr_id = 0xd3, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_INLINE, .sg_list = &sg, .num_sge = 1,
		.wr.rdma = { .remote_addr = 0x7000, .rkey = 0x71 },
		.qp_type.xrc.remote_srqn = 0x13,
	};
	wr[4] = (struct ibv_send_wr){
		.wr_id = 0xd4, .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.imm_data = htobe32(5),
		.wr.rdma = { .remote_addr = 0x8000, .rkey = 0x81 },
		.qp_type.xrc.remote_srqn = 0x14,
	};
	wr[5] = (struct ibv_send_wr){
		.wr_id = 0xd5, .opcode = IBV_WR_RDMA_READ, .sg_list = &sg,
		.num_sge = 1,
		.wr.rdma = { .remote_addr = 0x9000, .rkey = 0x91 },
		.qp_type.xrc.remote_srqn = ORCA_WQE_XRC_SRQN_MASK,
	};
	link_send(wr, 6);
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == 0 && ld(&d.sq_db->prod) == 6,
	   "xrc_send: SEND, SEND_WITH_IMM, SEND_WITH_INV, RDMA_WRITE (inline), RDMA_WRITE_WITH_IMM, RDMA_READ posted (ret %d)",
	   ret);
	w = sq_wqe(&d, 0);
	ok(xrc_wqe_is(w, ORCA_WQE_OP_SEND, 0x10) &&
	   le64toh(w->wr_id) == 0xd0 &&
	   le64toh(wqe_sge(w, ORCA_SEND_WQE_HDR_SIZE)->addr) == (uintptr_t)a,
	   "xrc_send SEND: remote_srqn in xrc_srqn (byte 0x14), the SGE after the 64-byte header");
	ok(xrc_wqe_is(sq_wqe(&d, 1), ORCA_WQE_OP_SEND_IMM, 0x11) &&
	   le32toh(sq_wqe(&d, 1)->imm_inv) == 0xa1b2c3d4,
	   "xrc_send SEND_WITH_IMM: xrc_srqn, immediate");
	ok(xrc_wqe_is(sq_wqe(&d, 2), ORCA_WQE_OP_SEND_INV, 0x12) &&
	   le32toh(sq_wqe(&d, 2)->imm_inv) == 0x3344,
	   "xrc_send SEND_WITH_INV: xrc_srqn, the key");
	w = sq_wqe(&d, 3);
	ok(xrc_wqe_is(w, ORCA_WQE_OP_RDMA_WRITE, 0x13) &&
	   le32toh(w->inline_len) == sizeof(a) &&
	   !memcmp((const char *)w + ORCA_SEND_WQE_HDR_SIZE, a, sizeof(a)) &&
	   le64toh(w->seg.rdma.remote_addr) == 0x7000 &&
	   le32toh(w->seg.rdma.rkey) == 0x71,
	   "xrc_send inline RDMA_WRITE: xrc_srqn, rdma segment, data after the header");
	ok(xrc_wqe_is(sq_wqe(&d, 4), ORCA_WQE_OP_RDMA_WRITE_IMM, 0x14) &&
	   le32toh(sq_wqe(&d, 4)->seg.rdma.rkey) == 0x81,
	   "xrc_send RDMA_WRITE_WITH_IMM: xrc_srqn");
	ok(xrc_wqe_is(sq_wqe(&d, 5), ORCA_WQE_OP_RDMA_READ,
		      ORCA_WQE_XRC_SRQN_MASK) &&
	   le64toh(sq_wqe(&d, 5)->seg.rdma.remote_addr) == 0x9000,
	   "xrc_send RDMA_READ: xrc_srqn 2^24 - 1, the largest");
	st(&d.sq_db->cons, 6);

	key = mw2->rkey;
	wr[0] = (struct ibv_send_wr){
		.wr_id = 0xd6, .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.sg_list = &sg8, .num_sge = 1,
		.wr.atomic = { .remote_addr = 0xa000, .rkey = 0xa1,
			       .compare_add = 1, .swap = 2 },
		.qp_type.xrc.remote_srqn = 0x16,
	};
	wr[1] = (struct ibv_send_wr){
		.wr_id = 0xd7, .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.sg_list = &sg8, .num_sge = 1,
		.wr.atomic = { .remote_addr = 0xb000, .rkey = 0xb1,
			       .compare_add = 3 },
		.qp_type.xrc.remote_srqn = 0x17,
	};
	/* Local operations: remote_srqn is not looked at, even if huge. */
	wr[2] = (struct ibv_send_wr){
		.wr_id = 0xd8, .opcode = IBV_WR_LOCAL_INV,
		.invalidate_rkey = 0x5566,
		.qp_type.xrc.remote_srqn = 0xdeadbeef,
	};
	wr[3] = (struct ibv_send_wr){
		.wr_id = 0xd9, .opcode = IBV_WR_BIND_MW,
		.bind_mw = {
			.mw = mw2, .rkey = (key & ~0xffU) | 0x21,
			.bind_info = { mr, (uintptr_t)mw_buf, 128,
				       IBV_ACCESS_REMOTE_WRITE },
		},
		.qp_type.xrc.remote_srqn = 0xffffffff,
	};
	link_send(wr, 4);
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == 0 && ld(&d.sq_db->prod) == 10,
	   "xrc_send: both atomics, LOCAL_INV and a type 2 BIND_MW posted (ret %d)",
	   ret);
	w = sq_wqe(&d, 6);
	ok(xrc_wqe_is(w, ORCA_WQE_OP_ATOMIC_CMP_SWP, 0x16) &&
	   le64toh(w->seg.atomic.remote_addr) == 0xa000 &&
	   le64toh(w->seg.atomic.swap) == 2 &&
	   le32toh(wqe_sge(w, ORCA_SEND_WQE_HDR_SIZE)->length) == 8,
	   "xrc_send ATOMIC_CMP_AND_SWP: xrc_srqn, atomic segment, its 8-byte SGE");
	ok(xrc_wqe_is(sq_wqe(&d, 7), ORCA_WQE_OP_ATOMIC_FETCH_ADD, 0x17) &&
	   le64toh(sq_wqe(&d, 7)->seg.atomic.compare_add) == 3,
	   "xrc_send ATOMIC_FETCH_AND_ADD: xrc_srqn");
	ok(xrc_wqe_is(sq_wqe(&d, 0), ORCA_WQE_OP_LOCAL_INV, 0) &&
	   le32toh(sq_wqe(&d, 0)->imm_inv) == 0x5566,
	   "xrc_send LOCAL_INV: xrc_srqn 0 whatever remote_srqn says");
	ok(bind_wqe_is(sq_wqe(&d, 1), 0xd9, 0, key, (key & ~0xffU) | 0x21,
		       MR_LKEY, (uintptr_t)mw_buf, 128,
		       ORCA_BIND_ACCESS_REMOTE_WRITE) &&
	   xrc_wqe_is(sq_wqe(&d, 1), ORCA_WQE_OP_BIND_MW, 0),
	   "xrc_send BIND_MW (type 2): the bind, xrc_srqn 0");
	st(&d.sq_db->cons, 10);

	key = mw1->rkey;
	ret = ibv_bind_mw(qp, mw1, &b);
	ok(ret == 0 && ld(&d.sq_db->prod) == 11 && mw1->rkey != key &&
	   xrc_wqe_is(sq_wqe(&d, 2), ORCA_WQE_OP_BIND_MW, 0),
	   "xrc_send ibv_bind_mw (type 1): posted, xrc_srqn 0 (ret %d)", ret);
	st(&d.sq_db->cons, 11);

	wr[0] = (struct ibv_send_wr){ .wr_id = 0xda, .opcode = IBV_WR_SEND,
				      .qp_type.xrc.remote_srqn = 0x20 };
	wr[1] = (struct ibv_send_wr){ .wr_id = 0xdb, .opcode = IBV_WR_SEND,
				      .qp_type.xrc.remote_srqn = 1U << 24 };
	link_send(wr, 2);
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == EINVAL && bad == &wr[1] && ld(&d.sq_db->prod) == 12 &&
	   xrc_wqe_is(sq_wqe(&d, 3), ORCA_WQE_OP_SEND, 0x20),
	   "xrc_send: remote_srqn 2^24 is EINVAL at that WR, the one before posted (ret %d)",
	   ret);
	wr[0] = (struct ibv_send_wr){
		.opcode = IBV_WR_RDMA_WRITE, .qp_type.xrc.remote_srqn = ~0U,
	};
	bad = NULL;
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == EINVAL && bad == &wr[0] && ld(&d.sq_db->prod) == 12,
	   "xrc_send: remote_srqn 0xffffffff alone: EINVAL, nothing posted (ret %d)",
	   ret);
	wr[0] = (struct ibv_send_wr){
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD, .sg_list = &sg8,
		.num_sge = 1, .qp_type.xrc.remote_srqn = 1U << 31,
	};
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == EINVAL && ld(&d.sq_db->prod) == 12,
	   "xrc_send: an atomic with remote_srqn 2^31: EINVAL, nothing posted");

	rwr.wr_id = 1;
	ret = ibv_post_recv(qp, &rwr, &rbad);
	ok(ret == EINVAL && rbad == &rwr,
	   "xrc_send: post_recv is EINVAL, it has no receive queue");
	ok(!ibv_destroy_qp(qp), "destroy the xrc_send qp");
}

/*
 * Every other QP type writes 0 at 0x14, over stale ring contents, on
 * every post path, whatever remote_srqn holds.
 */
static void test_xrc_zero(void)
{
	struct ibv_ah_attr aattr = { .is_global = 1, .port_num = 1 };
	uint64_t old = 0;
	struct ibv_sge sg8 = { (uintptr_t)&old, 8, 0x62 };
	struct ibv_mw_bind b = {
		.bind_info = { .mr = mr, .addr = (uintptr_t)mw_buf,
			       .length = 64,
			       .mw_access_flags = IBV_ACCESS_REMOTE_READ },
	};
	struct ibv_send_wr wr[3] = {}, *bad = NULL;
	struct ibv_qp_ex *qpx;
	struct ibv_ah *ah;
	struct dev_qp d;
	struct ibv_qp *qp;
	int ret;

	qp = make_qp(IBV_QPT_RC, NULL, &d);
	if (!qp || to_state(qp, IBV_QPS_INIT) || !mw1 || !mr) {
		ok(0, "rc qp in INIT for the xrc_srqn 0 checks");
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	poison_sq(&d);
	wr[0] = (struct ibv_send_wr){ .opcode = IBV_WR_SEND,
				      .qp_type.xrc.remote_srqn = 0x123456 };
	wr[1] = (struct ibv_send_wr){ .opcode = IBV_WR_RDMA_WRITE,
				      .qp_type.xrc.remote_srqn = 1U << 24 };
	wr[2] = (struct ibv_send_wr){
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD, .sg_list = &sg8,
		.num_sge = 1, .qp_type.xrc.remote_srqn = 7,
	};
	link_send(wr, 3);
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == 0 && xrc_wqe_is(sq_wqe(&d, 0), ORCA_WQE_OP_SEND, 0) &&
	   xrc_wqe_is(sq_wqe(&d, 1), ORCA_WQE_OP_RDMA_WRITE, 0) &&
	   xrc_wqe_is(sq_wqe(&d, 2), ORCA_WQE_OP_ATOMIC_FETCH_ADD, 0),
	   "RC post_send over stale WQEs: xrc_srqn and reserved 0, remote_srqn ignored (ret %d)",
	   ret);
	ret = ibv_bind_mw(qp, mw1, &b);
	ok(ret == 0 && xrc_wqe_is(sq_wqe(&d, 3), ORCA_WQE_OP_BIND_MW, 0),
	   "RC ibv_bind_mw over a stale WQE: xrc_srqn 0 (ret %d)", ret);
	ibv_destroy_qp(qp);

	qp = make_qp(IBV_QPT_UC, NULL, &d);
	if (!qp || to_state(qp, IBV_QPS_INIT)) {
		ok(0, "uc qp in INIT");
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	poison_sq(&d);
	wr[0] = (struct ibv_send_wr){ .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
				      .qp_type.xrc.remote_srqn = 0x55 };
	wr[0].next = NULL;
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == 0 && xrc_wqe_is(sq_wqe(&d, 0), ORCA_WQE_OP_RDMA_WRITE_IMM, 0),
	   "UC post_send over a stale WQE: xrc_srqn 0 (ret %d)", ret);
	ibv_destroy_qp(qp);

	ah = ibv_create_ah(pd, &aattr);
	qp = make_qp(IBV_QPT_UD, NULL, &d);
	if (!ah || !qp || to_state(qp, IBV_QPS_INIT)) {
		ok(0, "ud qp in INIT and an AH");
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	poison_sq(&d);
	wr[0] = (struct ibv_send_wr){
		.opcode = IBV_WR_SEND,
		.wr.ud = { .ah = ah, .remote_qpn = 3, .remote_qkey = 4 },
		.qp_type.xrc.remote_srqn = 0x66,
	};
	ret = ibv_post_send(qp, wr, &bad);
	ok(ret == 0 && xrc_wqe_is(sq_wqe(&d, 0), ORCA_WQE_OP_SEND, 0) &&
	   !memcmp(sq_wqe(&d, 0) + 1, &fake_av, sizeof(fake_av)),
	   "UD post_send over a stale WQE: xrc_srqn 0, the AV after the header (ret %d)",
	   ret);
	ibv_destroy_qp(qp);
	ibv_destroy_ah(ah);

	qp = make_qp_ex(IBV_QPT_RC, IBV_QP_EX_WITH_SEND |
			IBV_QP_EX_WITH_LOCAL_INV, &d);
	qpx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	if (!qpx || to_state(qp, IBV_QPS_INIT)) {
		ok(0, "rc qp_ex in INIT");
		return;
	}
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	poison_sq(&d);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_local_inv(qpx, 9);
	ret = ibv_wr_complete(qpx);
	ok(ret == 0 && ld(&d.sq_db->prod) == 2 &&
	   xrc_wqe_is(sq_wqe(&d, 0), ORCA_WQE_OP_SEND, 0) &&
	   xrc_wqe_is(sq_wqe(&d, 1), ORCA_WQE_OP_LOCAL_INV, 0),
	   "RC wr_send, wr_local_inv over stale WQEs: xrc_srqn 0 (ret %d)", ret);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_xrc_srqn(qpx, 5);
	ret = ibv_wr_complete(qpx);
	ok(ret == EINVAL && ld(&d.sq_db->prod) == 2,
	   "RC wr_set_xrc_srqn: EINVAL, the batch not posted (ret %d)", ret);
	ibv_destroy_qp(qp);
}

/* ibv_wr_*() on an XRC_SEND QP: wr_set_xrc_srqn. */
static void test_xrc_ex(void)
{
	char x[4] = "wxyz";
	uint32_t key;
	struct ibv_mw_bind_info bi = { NULL, (uintptr_t)mw_buf, 32,
				       IBV_ACCESS_REMOTE_READ };
	const struct orca_send_wqe *w;
	struct ibv_qp_ex *qpx;
	struct dev_qp d;
	struct ibv_qp *qp;
	int ret;

	qp = make_xrc_send(XRC_OPS, &d);
	qpx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	if (!qpx || to_state(qp, IBV_QPS_INIT) || !mw2 || !mr) {
		ok(0, "xrc_send qp_ex with every RC op, in INIT: %s",
		   strerror(errno));
		return;
	}
	ok(1, "xrc_send qp_ex with every RC send op; ibv_qp_to_qp_ex works");
	d.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	poison_sq(&d);
	bi.mr = mr;
	key = mw2->rkey;

	ibv_wr_start(qpx);
	qpx->wr_id = 0xf1;
	ibv_wr_send(qpx);
	ibv_wr_set_xrc_srqn(qpx, 0x31);
	ibv_wr_set_sge(qpx, 0x11, 0x1000, 10);
	qpx->wr_id = 0xf2;
	ibv_wr_rdma_write(qpx, 0x22, 0x2000);
	ibv_wr_set_inline_data(qpx, x, sizeof(x));
	ibv_wr_set_xrc_srqn(qpx, ORCA_WQE_XRC_SRQN_MASK);
	qpx->wr_id = 0xf3;
	ibv_wr_atomic_fetch_add(qpx, 0x33, 0x3000, 7);
	ibv_wr_set_xrc_srqn(qpx, 0x33);
	ibv_wr_set_sge(qpx, 0x12, 0x4000, 8);
	qpx->wr_id = 0xf4;
	ibv_wr_local_inv(qpx, 0x44);
	qpx->wr_id = 0xf5;
	ibv_wr_bind_mw(qpx, mw2, (key & ~0xffU) | 0x45, &bi);
	qpx->wr_id = 0xf6;
	ibv_wr_rdma_read(qpx, 0x66, 0x6000);
	ibv_wr_set_sge(qpx, 0x13, 0x5000, 16);
	ibv_wr_set_xrc_srqn(qpx, 0x36);
	ret = ibv_wr_complete(qpx);
	ok(ret == 0 && ld(&d.sq_db->prod) == 6,
	   "xrc_send wr_*: SEND, RDMA_WRITE, FETCH_ADD, LOCAL_INV, BIND_MW, RDMA_READ posted (ret %d)",
	   ret);
	w = sq_wqe(&d, 0);
	ok(xrc_wqe_is(w, ORCA_WQE_OP_SEND, 0x31) && le64toh(w->wr_id) == 0xf1 &&
	   le64toh(wqe_sge(w, ORCA_SEND_WQE_HDR_SIZE)->addr) == 0x1000,
	   "wr_send + wr_set_xrc_srqn + wr_set_sge: xrc_srqn, the SGE");
	w = sq_wqe(&d, 1);
	ok(xrc_wqe_is(w, ORCA_WQE_OP_RDMA_WRITE, ORCA_WQE_XRC_SRQN_MASK) &&
	   le32toh(w->inline_len) == sizeof(x) &&
	   !memcmp((const char *)w + ORCA_SEND_WQE_HDR_SIZE, x, sizeof(x)),
	   "wr_rdma_write + inline + wr_set_xrc_srqn(2^24 - 1), setter after the data");
	ok(xrc_wqe_is(sq_wqe(&d, 2), ORCA_WQE_OP_ATOMIC_FETCH_ADD, 0x33) &&
	   le64toh(sq_wqe(&d, 2)->seg.atomic.compare_add) == 7,
	   "wr_atomic_fetch_add + wr_set_xrc_srqn: xrc_srqn, atomic segment");
	ok(xrc_wqe_is(sq_wqe(&d, 3), ORCA_WQE_OP_LOCAL_INV, 0) &&
	   le32toh(sq_wqe(&d, 3)->imm_inv) == 0x44,
	   "wr_local_inv without a setter: xrc_srqn 0 over a stale WQE");
	ok(bind_wqe_is(sq_wqe(&d, 4), 0xf5, 0, key, (key & ~0xffU) | 0x45,
		       MR_LKEY, (uintptr_t)mw_buf, 32,
		       ORCA_BIND_ACCESS_REMOTE_READ) &&
	   xrc_wqe_is(sq_wqe(&d, 4), ORCA_WQE_OP_BIND_MW, 0),
	   "wr_bind_mw without a setter: the bind, xrc_srqn 0");
	ok(xrc_wqe_is(sq_wqe(&d, 5), ORCA_WQE_OP_RDMA_READ, 0x36),
	   "wr_rdma_read + set_sge + wr_set_xrc_srqn: xrc_srqn");
	st(&d.sq_db->cons, 6);

	ibv_wr_start(qpx);
	ibv_wr_send_imm(qpx, htobe32(1));
	ibv_wr_set_xrc_srqn(qpx, 0x41);
	ibv_wr_send_inv(qpx, 0x99);
	ibv_wr_set_xrc_srqn(qpx, 0x42);
	ibv_wr_atomic_cmp_swp(qpx, 0x77, 0x7000, 1, 2);
	ibv_wr_set_sge(qpx, 0x14, 0x8000, 8);
	ibv_wr_set_xrc_srqn(qpx, 0x43);
	ibv_wr_rdma_write_imm(qpx, 0x88, 0x9000, htobe32(2));
	ibv_wr_set_xrc_srqn(qpx, 0x44);
	ret = ibv_wr_complete(qpx);
	ok(ret == 0 && ld(&d.sq_db->prod) == 10 &&
	   xrc_wqe_is(sq_wqe(&d, 6), ORCA_WQE_OP_SEND_IMM, 0x41) &&
	   xrc_wqe_is(sq_wqe(&d, 7), ORCA_WQE_OP_SEND_INV, 0x42) &&
	   xrc_wqe_is(sq_wqe(&d, 0), ORCA_WQE_OP_ATOMIC_CMP_SWP, 0x43) &&
	   xrc_wqe_is(sq_wqe(&d, 1), ORCA_WQE_OP_RDMA_WRITE_IMM, 0x44),
	   "xrc_send wr_send_imm, _send_inv, _atomic_cmp_swp, _rdma_write_imm with their xrc_srqn (ret %d)",
	   ret);
	st(&d.sq_db->cons, 10);

	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_xrc_srqn(qpx, 1);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 0x11, 0x1000, 10);
	ret = ibv_wr_complete(qpx);
	ok(ret == EINVAL && ld(&d.sq_db->prod) == 10,
	   "xrc_send: a WR without wr_set_xrc_srqn fails the batch with EINVAL, none posted (ret %d)",
	   ret);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_xrc_srqn(qpx, 1U << 24);
	ret = ibv_wr_complete(qpx);
	ok(ret == EINVAL && ld(&d.sq_db->prod) == 10,
	   "xrc_send: wr_set_xrc_srqn(2^24): EINVAL, nothing posted (ret %d)",
	   ret);
	ibv_wr_start(qpx);
	ibv_wr_local_inv(qpx, 0x44);
	ibv_wr_set_xrc_srqn(qpx, 5);
	ret = ibv_wr_complete(qpx);
	ok(ret == 0 && ld(&d.sq_db->prod) == 11 &&
	   xrc_wqe_is(sq_wqe(&d, 10), ORCA_WQE_OP_LOCAL_INV, 0),
	   "xrc_send: wr_set_xrc_srqn after wr_local_inv is accepted and ignored: posted, xrc_srqn 0 (ret %d)",
	   ret);
	st(&d.sq_db->cons, 11);
	ibv_wr_start(qpx);
	ibv_wr_set_xrc_srqn(qpx, 5);
	ret = ibv_wr_complete(qpx);
	ok(ret == EINVAL && ld(&d.sq_db->prod) == 11,
	   "xrc_send: wr_set_xrc_srqn with no WR open: EINVAL (ret %d)", ret);
	ibv_destroy_qp(qp);
}

/* XRC_RECV QPs, created or opened: no queue, every post refused. */
static void test_xrc_recv(void)
{
	struct ibv_qp_init_attr_ex qx = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.xrcd = xrcd,
	};
	struct ibv_qp_open_attr ox = {
		.comp_mask = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM |
			     IBV_QP_OPEN_ATTR_TYPE,
		.xrcd = xrcd, .qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_mw_bind b = {
		.bind_info = { .mr = mr, .addr = (uintptr_t)mw_buf,
			       .length = 64,
			       .mw_access_flags = IBV_ACCESS_REMOTE_READ },
	};
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND }, *bad = NULL;
	struct ibv_recv_wr rwr = {}, *rbad = NULL;
	unsigned int sends, recvs, modifies;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	int maps = live_maps;
	int ret;

	qp = ibv_create_qp_ex(ctx, &qx);
	qpx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	if (!qpx || !mw1 || !mr) {
		ok(0, "xrc_recv qp: %s", strerror(errno));
		return;
	}
	ok(live_maps == maps && last_qp_pd == XRCD_HANDLE,
	   "xrc_recv qp: created in the XRCD, nothing mapped");
	sends = n_cmd[IB_USER_VERBS_CMD_POST_SEND];
	recvs = n_cmd[IB_USER_VERBS_CMD_POST_RECV];
	ret = ibv_post_send(qp, &wr, &bad);
	ok(ret == EINVAL && bad == &wr, "xrc_recv in RESET: post_send EINVAL");
	modifies = n_cmd[IB_USER_VERBS_CMD_MODIFY_QP];
	ok(!to_state(qp, IBV_QPS_INIT) && qp->state == IBV_QPS_INIT &&
	   n_cmd[IB_USER_VERBS_CMD_MODIFY_QP] == modifies + 1,
	   "xrc_recv: modify to INIT (MODIFY_QP)");
	bad = NULL;
	ret = ibv_post_send(qp, &wr, &bad);
	ok(ret == EINVAL && bad == &wr,
	   "xrc_recv in INIT: post_send EINVAL, bad_wr the WR (ret %d)", ret);
	ret = ibv_post_recv(qp, &rwr, &rbad);
	ok(ret == EINVAL && rbad == &rwr,
	   "xrc_recv: post_recv EINVAL (ret %d)", ret);
	ret = ibv_bind_mw(qp, mw1, &b);
	ok(ret == EINVAL, "xrc_recv: ibv_bind_mw EINVAL (ret %d)", ret);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ret = ibv_wr_complete(qpx);
	ok(ret == EINVAL, "xrc_recv: a wr_send batch EINVAL (ret %d)", ret);
	ok(n_cmd[IB_USER_VERBS_CMD_POST_SEND] == sends &&
	   n_cmd[IB_USER_VERBS_CMD_POST_RECV] == recvs,
	   "xrc_recv: no kick for any of these");
	ok(!ibv_query_qp(qp, &attr, IBV_QP_STATE, &init) &&
	   attr.qp_state == IBV_QPS_INIT,
	   "xrc_recv: query_qp (QUERY_QP)");
	ok(!ibv_destroy_qp(qp), "xrc_recv: destroyed");

	ox.qp_num = 0x150;
	qp = ibv_open_qp(ctx, &ox);
	if (!qp) {
		ok(0, "open_qp: %s", strerror(errno));
		return;
	}
	ok(qp->qp_num == 0x150 && qp->handle == 0x950 && live_maps == maps &&
	   !ibv_qp_to_qp_ex(qp),
	   "open_qp: a handle on QP 0x150, nothing mapped, no ibv_qp_ex");
	ret = ibv_post_send(qp, &wr, &bad);
	ok(ret == EINVAL && ibv_post_recv(qp, &rwr, &rbad) == EINVAL,
	   "opened xrc_recv: post_send and post_recv EINVAL");
	ok(!to_state(qp, IBV_QPS_INIT) &&
	   ibv_post_send(qp, &wr, &bad) == EINVAL,
	   "opened xrc_recv: modify works, posting is still EINVAL");
	ok(!ibv_destroy_qp(qp), "opened xrc_recv: the handle is destroyed");
}

/* Receives on an XRC SRQ: the ring of a basic SRQ. */
static void test_xrc_srq(void)
{
	struct ibv_srq_init_attr_ex sx = {
		.attr = { .max_wr = SRQ_MAX_WR, .max_sge = RQ_MAX_SGE },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC, .pd = pd, .xrcd = xrcd, .cq = cq,
	};
	struct ibv_sge sg = { 0x1234, 100, 0x77 };
	struct ibv_recv_wr rwr[6] = {}, *rbad = NULL;
	const struct orca_recv_wqe *w;
	unsigned int before;
	struct ibv_srq *srq;
	uint32_t num = 0;
	char *m;
	int ret;

	srq = ibv_create_srq_ex(ctx, &sx);
	m = srq ? map_of(last_key) : NULL;
	if (!m) {
		ok(0, "xrc srq: %s", strerror(errno));
		return;
	}
	ret = ibv_get_srq_num(srq, &num);
	ok(!ret && num == XSRQN, "xrc srq: ibv_get_srq_num 0x%x", num);
	for (int i = 0; i < 6; i++)
		rwr[i] = (struct ibv_recv_wr){ .wr_id = 0x400 + i,
					       .sg_list = &sg, .num_sge = 1 };
	link_recv(rwr, 6);
	before = n_cmd[IB_USER_VERBS_CMD_POST_RECV];
	ret = ibv_post_srq_recv(srq, rwr, &rbad);
	w = rq_wqe(m, 4);
	ok(ret == ENOMEM && rbad == &rwr[5] &&
	   ld(&((struct orca_db_record *)(m + PAGE))->prod) == 5 &&
	   le64toh(w->wr_id) == 0x404 && le32toh(w->num_sge) == 1 &&
	   le64toh(wqe_sge(w, ORCA_RECV_WQE_HDR_SIZE)->addr) == 0x1234 &&
	   n_cmd[IB_USER_VERBS_CMD_POST_RECV] == before,
	   "xrc srq: post_srq_recv as on a basic SRQ: WQEs in the ring, ENOMEM at max_wr, no kick (ret %d)",
	   ret);
	ok(!ibv_destroy_srq(srq), "xrc srq: destroyed");
}

static void test_xrc(void)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1, .oflags = O_CREAT,
	};

	xrcd = ibv_open_xrcd(ctx, &xa);
	if (!xrcd) {
		ok(0, "open_xrcd: %s", strerror(errno));
		return;
	}
	test_xrc_post();
	test_xrc_zero();
	test_xrc_ex();
	test_xrc_recv();
	test_xrc_srq();
	ok(!ibv_close_xrcd(xrcd), "close_xrcd");
}

static void test_mw_dealloc(void)
{
	unsigned int before = n_cmd[IB_USER_VERBS_CMD_DEALLOC_MW];
	uint32_t h;

	if (!mw1 || !mw2) {
		ok(0, "the windows to deallocate");
		return;
	}
	h = mw1->handle;
	ok(!ibv_dealloc_mw(mw1) && last_dealloc_mw == h &&
	   n_cmd[IB_USER_VERBS_CMD_DEALLOC_MW] == before + 1,
	   "dealloc_mw: DEALLOC_MW with the window's handle");
	h = mw2->handle;
	ok(!ibv_dealloc_mw(mw2) && last_dealloc_mw == h,
	   "dealloc_mw of the type 2 window");
	ok(!ibv_dereg_mr(mr) && !ibv_dereg_mr(mr2) && !ibv_dealloc_pd(pd2),
	   "dereg the MRs, dealloc the second PD");
}

/* --- thread domains and parent domains -------------------------------- */

/*
 * What a worker does while the test holds a lock of the queue it uses:
 * post one send, post one receive, poll the CQ, arm it.  done says it
 * got through.
 */
struct td_work {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	int post_err, recv_err, polled, arm_err;
	bool done;
};

static void *td_worker(void *arg)
{
	struct td_work *w = arg;
	struct ibv_send_wr swr = { .wr_id = 0x7d, .opcode = IBV_WR_SEND };
	struct ibv_recv_wr rwr = { .wr_id = 0x7e };
	struct ibv_send_wr *sbad = NULL;
	struct ibv_recv_wr *rbad = NULL;
	struct ibv_wc wc;

	w->post_err = ibv_post_send(w->qp, &swr, &sbad);
	w->recv_err = ibv_post_recv(w->qp, &rwr, &rbad);
	w->polled = ibv_poll_cq(w->cq, 1, &wc);
	w->arm_err = ibv_req_notify_cq(w->cq, 0);
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Runs td_worker on qp and cq while this thread holds the SQ, RQ and CQ
 * spinlocks.  Returns whether it finished within ms milliseconds with
 * the locks held; it is let through (and joined) in any case.
 */
static bool td_runs_under_locks(struct ibv_qp *qp, struct ibv_cq *cq,
				struct td_work *w, int ms)
{
	struct orca_qp *oqp = orca_container_of(qp, struct orca_qp, vqp.qp);
	struct orca_cq *ocq = orca_container_of(cq, struct orca_cq, vcq.cq);
	pthread_t t;
	bool done = false;

	*w = (struct td_work){ .qp = qp, .cq = cq };
	pthread_spin_lock(&oqp->sq.lock);
	pthread_spin_lock(&oqp->rq.lock);
	pthread_spin_lock(&ocq->lock);
	if (pthread_create(&t, NULL, td_worker, w)) {
		pthread_spin_unlock(&ocq->lock);
		pthread_spin_unlock(&oqp->rq.lock);
		pthread_spin_unlock(&oqp->sq.lock);
		return false;
	}
	for (int i = 0; i < ms && !done; i++) {
		usleep(1000);
		done = __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
	}
	pthread_spin_unlock(&ocq->lock);
	pthread_spin_unlock(&oqp->rq.lock);
	pthread_spin_unlock(&oqp->sq.lock);
	pthread_join(t, NULL);
	return done;
}

static struct ibv_cq_ex *make_cq_pd(struct ibv_pd *parent, struct dev_cq *c)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 8, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
		.parent_domain = parent,
	};
	struct ibv_cq_ex *cqx = ibv_create_cq_ex(ctx, &a);

	if (cqx)
		*c = dev_cq_of(last_key, 8);
	return cqx;
}

static struct ibv_qp *make_qp_pd(struct ibv_pd *ppd, struct ibv_cq *qcq,
				 bool ex, struct dev_qp *d)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = qcq, .recv_cq = qcq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SQ_MAX_WR, .max_recv_wr = RQ_MAX_WR,
			 .max_send_sge = SQ_MAX_SGE,
			 .max_recv_sge = RQ_MAX_SGE },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = ppd,
	};
	struct ibv_qp *qp;

	if (ex) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = IBV_QP_EX_WITH_SEND;
		qp = ibv_create_qp_ex(ctx, &a);
	} else {
		struct ibv_qp_init_attr b = {
			.send_cq = qcq, .recv_cq = qcq, .qp_type = IBV_QPT_RC,
			.cap = a.cap,
		};

		qp = ibv_create_qp(ppd, &b);
	}
	if (qp)
		*d = dev_qp_of(last_key);
	return qp;
}

static void test_td_alloc(struct ibv_td **td, struct ibv_pd **pdx,
			  struct ibv_pd **pdom, struct ibv_pd **pdom_nt)
{
	struct ibv_td_init_attr ta = { .comp_mask = 1 };
	struct ibv_parent_domain_init_attr pa = {};
	struct ibv_td foreign_td = { .context = (void *)&foreign_td };
	static int pd_ctx_cookie;
	struct ibv_pd *p;

	errno = 0;
	ok(!ibv_alloc_td(ctx, &ta) && errno == EINVAL,
	   "alloc_td with an unknown comp_mask bit: EINVAL");
	ta.comp_mask = 0;
	*td = ibv_alloc_td(ctx, &ta);
	ok(*td && (*td)->context == ctx, "alloc_td: a TD of the context");
	*pdx = ibv_alloc_pd(ctx);
	if (!*td || !*pdx) {
		ok(0, "td and pd for the parent domain checks");
		return;
	}

	errno = 0;
	ok(!ibv_alloc_parent_domain(ctx, &pa) && errno == EINVAL,
	   "alloc_parent_domain without a PD: EINVAL");
	pa.pd = *pdx;
	pa.td = &foreign_td;
	errno = 0;
	ok(!ibv_alloc_parent_domain(ctx, &pa) && errno == EINVAL,
	   "alloc_parent_domain with a TD of another context: EINVAL");
	pa.td = *td;
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;
	errno = 0;
	ok(!ibv_alloc_parent_domain(ctx, &pa) && errno == EINVAL,
	   "alloc_parent_domain with ALLOCATORS but no alloc and free: EINVAL");
	pa.comp_mask = 1 << 7;
	errno = 0;
	ok(!ibv_alloc_parent_domain(ctx, &pa) && errno == EOPNOTSUPP,
	   "alloc_parent_domain with an unknown comp_mask bit: EOPNOTSUPP");

	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	pa.pd_context = &pd_ctx_cookie;
	*pdom = ibv_alloc_parent_domain(ctx, &pa);
	ok(*pdom && *pdom != *pdx && (*pdom)->context == ctx &&
	   (*pdom)->handle == (*pdx)->handle &&
	   to_opd(*pdom)->pd_context == &pd_ctx_cookie,
	   "alloc_parent_domain with a TD and PD_CONTEXT: the PD's handle, the pointer kept");
	pa = (struct ibv_parent_domain_init_attr){ .pd = *pdx };
	*pdom_nt = ibv_alloc_parent_domain(ctx, &pa);
	ok(*pdom_nt && (*pdom_nt)->handle == (*pdx)->handle,
	   "alloc_parent_domain without a TD");
	if (*pdom) {
		pa.pd = *pdom;
		errno = 0;
		p = ibv_alloc_parent_domain(ctx, &pa);
		ok(!p && errno == EINVAL,
		   "alloc_parent_domain of a parent domain: EINVAL");
	}
}

static void test_td(void)
{
	struct ibv_pd *pdx = NULL, *pdom = NULL, *pdom_nt = NULL;
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 8, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
	};
	struct ibv_mw_bind b = {
		.wr_id = 0xb7,
		.bind_info = { .addr = (uintptr_t)mw_buf, .length = 64,
			       .mw_access_flags = IBV_ACCESS_REMOTE_READ },
	};
	struct ibv_poll_cq_attr poll_attr = {};
	struct ibv_qp *qp_td, *qp_ex, *qp_nt;
	struct ibv_cq_ex *cq_td, *cq_nt;
	struct ibv_mr *mrx;
	struct ibv_mw *mwx;
	struct dev_cq c_td, c_nt;
	struct dev_qp d_td, d_ex, d_nt;
	struct ibv_td *td = NULL;
	struct td_work w;
	unsigned int deallocs;
	bool fine;

	test_td_alloc(&td, &pdx, &pdom, &pdom_nt);
	if (!td || !pdx || !pdom || !pdom_nt)
		return;

	deallocs = n_cmd[IB_USER_VERBS_CMD_DEALLOC_PD];
	ok(ibv_dealloc_td(td) == EBUSY, "dealloc_td while a parent domain names it: EBUSY");
	ok(ibv_dealloc_pd(pdx) == EBUSY &&
	   n_cmd[IB_USER_VERBS_CMD_DEALLOC_PD] == deallocs,
	   "dealloc_pd of a PD with parent domains: EBUSY, no DEALLOC_PD sent");

	errno = 0;
	ca.parent_domain = pdx;
	ok(!ibv_create_cq_ex(ctx, &ca) && errno == EINVAL,
	   "create_cq_ex with MASK_PD naming a plain PD: EINVAL");
	ca.parent_domain = NULL;
	errno = 0;
	ok(!ibv_create_cq_ex(ctx, &ca) && errno == EINVAL,
	   "create_cq_ex with MASK_PD and no parent domain: EINVAL");

	cq_td = make_cq_pd(pdom, &c_td);
	cq_nt = make_cq_pd(pdom_nt, &c_nt);
	qp_td = cq_td ? make_qp_pd(pdom, ibv_cq_ex_to_cq(cq_td), false,
				   &d_td) : NULL;
	ok(qp_td && last_qp_pd == pdx->handle && qp_td->pd == pdom,
	   "create_qp with a parent domain: CREATE_QP names the PD's handle, qp->pd is the parent domain");
	qp_ex = cq_td ? make_qp_pd(pdom, ibv_cq_ex_to_cq(cq_td), true,
				   &d_ex) : NULL;
	qp_nt = cq_nt ? make_qp_pd(pdom_nt, ibv_cq_ex_to_cq(cq_nt), false,
				   &d_nt) : NULL;
	if (!cq_td || !cq_nt || !qp_td || !qp_ex || !qp_nt) {
		ok(0, "CQs and QPs through the parent domains: %s",
		   strerror(errno));
		return;
	}
	ok(to_oqp(qp_td)->sq.no_lock && to_oqp(qp_td)->rq.no_lock &&
	   to_oqp(qp_ex)->sq.no_lock &&
	   to_ocq(ibv_cq_ex_to_cq(cq_td))->no_lock,
	   "with a TD: the QPs (create_qp, create_qp_ex) and the CQ skip their locks");
	ok(!to_oqp(qp_nt)->sq.no_lock && !to_oqp(qp_nt)->rq.no_lock &&
	   !to_ocq(ibv_cq_ex_to_cq(cq_nt))->no_lock && !to_ocq(cq)->no_lock,
	   "without a TD, and a plain CQ: locks kept");

	to_state(qp_td, IBV_QPS_INIT);
	to_state(qp_ex, IBV_QPS_INIT);
	to_state(qp_nt, IBV_QPS_INIT);
	d_td.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	d_td.rq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	d_nt.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	d_nt.rq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);

	dev_cqe(&c_td, 0x7f, ORCA_CQE_OP_SEND, 0, ORCA_CQE_ST_SUCCESS, 0, 0,
		to_oqp(qp_td)->qpn, 0);
	fine = td_runs_under_locks(qp_td, ibv_cq_ex_to_cq(cq_td), &w, 2000);
	ok(fine && !w.post_err && !w.recv_err && w.polled == 1 && !w.arm_err,
	   "TD QP and CQ: post_send, post_recv, poll and arm go through while their locks are held");
	ok(ld(&d_td.sq_db->prod) == 1 && ld(&d_td.rq_db->prod) == 1 &&
	   le64toh(sq_wqe(&d_td, 0)->wr_id) == 0x7d &&
	   ld(&c_td.db->cons) == 1,
	   "TD QP and CQ: the WQEs are in the rings, cons published");

	dev_cqe(&c_nt, 0x80, ORCA_CQE_OP_SEND, 0, ORCA_CQE_ST_SUCCESS, 0, 0,
		to_oqp(qp_nt)->qpn, 0);
	fine = td_runs_under_locks(qp_nt, ibv_cq_ex_to_cq(cq_nt), &w, 100);
	ok(!fine && w.done && !w.post_err && !w.recv_err && w.polled == 1,
	   "parent domain without a TD: the worker waits for the locks, then posts and polls");

	/* The ibv_wr_*() API and start/end_poll under a TD, locks held. */
	pthread_spin_lock(&to_oqp(qp_ex)->sq.lock);
	pthread_spin_lock(&to_ocq(ibv_cq_ex_to_cq(cq_td))->lock);
	d_ex.sq_db->dev_flags = htole32(ORCA_DB_DEV_POLLING);
	ibv_wr_start(ibv_qp_to_qp_ex(qp_ex));
	ibv_qp_to_qp_ex(qp_ex)->wr_id = 0x81;
	ibv_wr_send(ibv_qp_to_qp_ex(qp_ex));
	ibv_wr_set_sge(ibv_qp_to_qp_ex(qp_ex), 1, 0x1000, 8);
	ok(ibv_wr_complete(ibv_qp_to_qp_ex(qp_ex)) == 0 &&
	   ld(&d_ex.sq_db->prod) == 1,
	   "TD QP: wr_start/wr_complete post with the SQ lock held elsewhere");
	dev_cqe(&c_td, 0x82, ORCA_CQE_OP_SEND, 0, ORCA_CQE_ST_SUCCESS, 0, 0,
		1, 0);
	fine = ibv_start_poll(cq_td, &poll_attr) == 0 && cq_td->wr_id == 0x82;
	if (fine)
		ibv_end_poll(cq_td);
	ok(fine && ld(&c_td.db->cons) == 2,
	   "TD CQ: start_poll/end_poll with the CQ lock held elsewhere");
	pthread_spin_unlock(&to_ocq(ibv_cq_ex_to_cq(cq_td))->lock);
	pthread_spin_unlock(&to_oqp(qp_ex)->sq.lock);

	/* A parent domain is its PD for the window bind checks. */
	mrx = ibv_reg_mr(pdx, mw_buf, sizeof(mw_buf),
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	mwx = ibv_alloc_mw(pdx, IBV_MW_TYPE_1);
	b.bind_info.mr = mrx;
	ok(mrx && mwx && ibv_bind_mw(qp_td, mwx, &b) == 0 &&
	   ld(&d_td.sq_db->prod) == 2,
	   "bind_mw on a QP of a parent domain, window and MR of its PD: posted");
	if (mwx)
		ibv_dealloc_mw(mwx);
	if (mrx)
		ibv_dereg_mr(mrx);

	ok(ibv_dealloc_pd(pdom) == EBUSY, "dealloc of a parent domain with QPs and CQs: EBUSY");
	ok(!ibv_destroy_qp(qp_td) && !ibv_destroy_qp(qp_ex) &&
	   ibv_dealloc_pd(pdom) == EBUSY,
	   "QPs destroyed: the CQ still holds the parent domain (EBUSY)");
	ok(!ibv_destroy_cq(ibv_cq_ex_to_cq(cq_td)) && !ibv_dealloc_pd(pdom) &&
	   n_cmd[IB_USER_VERBS_CMD_DEALLOC_PD] == deallocs,
	   "CQ destroyed: the parent domain goes, no DEALLOC_PD sent");
	ok(!ibv_dealloc_td(td), "then the TD goes");
	ok(ibv_dealloc_pd(pdx) == EBUSY,
	   "the PD: still EBUSY while the parent domain without a TD exists");
	ok(!ibv_destroy_qp(qp_nt) && !ibv_destroy_cq(ibv_cq_ex_to_cq(cq_nt)) &&
	   !ibv_dealloc_pd(pdom_nt) && !ibv_dealloc_pd(pdx) &&
	   n_cmd[IB_USER_VERBS_CMD_DEALLOC_PD] == deallocs + 1,
	   "last parent domain gone: the PD is deallocated with one DEALLOC_PD");
}

/* --- custom allocators of a parent domain ----------------------------- */

enum al_mode { AL_ARENA, AL_DEFAULT, AL_NULL, AL_MISALIGNED, AL_RDONLY };

#define AL_MAX_LIVE	16

struct al_block {
	void *ptr;			/* what alloc() returned */
	void *base;			/* what to release */
	size_t len;
	uint64_t type;
	bool mapped;			/* mmap()ed (AL_RDONLY), else heap */
};

/*
 * The allocator under test.  Every call is recorded.  In AL_ARENA mode
 * it hands out page-aligned heap memory filled with garbage (liborca
 * must zero it); the other modes answer IBV_ALLOCATOR_USE_DEFAULT, NULL,
 * a pointer 64 bytes past a page boundary, or a fresh read-only mapping.
 * Each buffer handed out is tracked until free() gives it back with its
 * type: anything else counts in bad_free.
 */
static struct {
	enum al_mode mode;
	unsigned int n_alloc, n_free, bad_free;
	struct ibv_pd *pd;		/* of the last alloc() */
	void *pd_context;
	size_t size, align;
	uint64_t type;
	void *ptr;			/* what it returned */
	struct ibv_pd *free_pd;		/* of the last free() */
	void *free_ctx;
	void *freed;
	uint64_t freed_type;
	unsigned int free_seq;		/* fake_seq of the last free() */
	struct al_block live[AL_MAX_LIVE];
} al;

static int al_pd_cookie;		/* the parent domain's pd_context */
static struct ibv_pd *al_pdom;		/* pd's parent domain with al */

static void al_release(struct al_block *b)
{
	if (b->mapped)
		munmap(b->base, b->len);
	else
		free(b->base);
	memset(b, 0, sizeof(*b));
}

static void *al_alloc(struct ibv_pd *p, void *pd_context, size_t size,
		      size_t align, uint64_t type)
{
	struct al_block b = { .len = size, .type = type };
	unsigned int i;

	al.n_alloc++;
	al.pd = p;
	al.pd_context = pd_context;
	al.size = size;
	al.align = align;
	al.type = type;
	al.ptr = NULL;
	switch (al.mode) {
	case AL_DEFAULT:
		return al.ptr = IBV_ALLOCATOR_USE_DEFAULT;
	case AL_NULL:
		return NULL;
	case AL_RDONLY:
		b.base = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			      -1, 0);
		if (b.base == MAP_FAILED)
			return NULL;
		b.ptr = b.base;
		b.mapped = true;
		break;
	case AL_ARENA:
	case AL_MISALIGNED:
		if (posix_memalign(&b.base, PAGE, size + PAGE))
			return NULL;
		memset(b.base, 0x5a, size + PAGE);
		b.ptr = (char *)b.base + (al.mode == AL_MISALIGNED ? 64 : 0);
		break;
	}
	for (i = 0; i < AL_MAX_LIVE && al.live[i].ptr; i++)
		;
	if (i == AL_MAX_LIVE) {
		al_release(&b);
		return NULL;
	}
	al.live[i] = b;
	return al.ptr = b.ptr;
}

static void al_free(struct ibv_pd *p, void *pd_context, void *ptr,
		    uint64_t type)
{
	unsigned int i;

	al.n_free++;
	al.free_pd = p;
	al.free_ctx = pd_context;
	al.freed = ptr;
	al.freed_type = type;
	al.free_seq = ++fake_seq;
	for (i = 0; i < AL_MAX_LIVE && al.live[i].ptr != ptr; i++)
		;
	if (!ptr || i == AL_MAX_LIVE || al.live[i].type != type) {
		al.bad_free++;
		return;
	}
	al_release(&al.live[i]);
}

static unsigned int al_live(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < AL_MAX_LIVE; i++)
		n += al.live[i].ptr != NULL;
	return n;
}

/* The last alloc() was call @n, for @size bytes of @type through al_pdom. */
static bool al_called(unsigned int n, size_t size, uint64_t type)
{
	return al.n_alloc == n && al.pd == al_pdom &&
	       al.pd_context == &al_pd_cookie && al.size == size &&
	       al.align == PAGE && al.type == type;
}

/* The last free() was call @n, of @ptr with @type, through al_pdom. */
static bool al_freed(unsigned int n, void *ptr, uint64_t type)
{
	return al.n_free == n && al.freed == ptr && al.freed_type == type &&
	       al.free_pd == al_pdom && al.free_ctx == &al_pd_cookie &&
	       !al.bad_free;
}

/* The last queue command named @ptr, @len bytes, zeroed, in 24 bytes. */
static bool ubuf_named(unsigned int n, void *ptr, size_t len)
{
	return ubuf_seen.n == n && ubuf_seen.addr == (uintptr_t)ptr &&
	       ubuf_seen.len == len && ubuf_seen.zeroed &&
	       last_qreq_len == sizeof(struct orca_create_cq_req);
}

static struct ibv_cq_ex *al_cq(struct ibv_pd *parent, uint32_t cqe,
			       uint64_t wc_flags)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = cqe, .wc_flags = IBV_WC_STANDARD_FLAGS | wc_flags,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD, .parent_domain = parent,
	};

	return ibv_create_cq_ex(ctx, &a);
}

static struct ibv_qp *al_qp(struct ibv_pd *parent, enum ibv_qp_type type,
			    struct ibv_srq *srq, uint32_t wr, uint32_t sge,
			    uint32_t inl)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = type,
		.cap = { .max_send_wr = wr, .max_recv_wr = srq ? 0 : wr / 2,
			 .max_send_sge = sge, .max_recv_sge = srq ? 0 : sge - 1,
			 .max_inline_data = inl },
	};

	return ibv_create_qp(parent, &a);
}

static struct ibv_srq *al_srq(struct ibv_pd *parent, uint32_t wr,
			      uint32_t sge)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = wr, .max_sge = sge } };

	return ibv_create_srq(parent, &a);
}

/* A CQ's ring in the buffer: CQEs, polling, resize (CQ ring: 32 B each). */
static void test_alloc_cq(void)
{
	unsigned int na = al.n_alloc, nf = al.n_free, ns = ubuf_seen.n;
	struct ibv_cq_ex *cqx;
	struct ibv_cq *c;
	struct dev_cq d;
	struct ibv_wc wc;
	void *old;
	int ret;

	cqx = al_cq(al_pdom, 100, 0);
	c = cqx ? ibv_cq_ex_to_cq(cqx) : NULL;
	ok(c && al_called(na + 1, PAGE, ORCADV_RES_TYPE_CQ),
	   "alloc: a CQ of 100: alloc(parent domain, pd_context, 4096 bytes = 128 x 32, page alignment, ORCADV_RES_TYPE_CQ)");
	if (!c)
		return;
	ok(ubuf_named(ns + 1, al.ptr, PAGE) && map_len_of(last_key) == PAGE &&
	   to_ocq(c)->ring == al.ptr,
	   "alloc: CREATE_CQ names it (USER_BUF, 24-byte request), zeroed over the allocator's garbage; only the doorbell page is mapped");
	d = (struct dev_cq){ .ring = al.ptr, .db = (void *)map_of(last_key),
			     .depth = 128, .size = ORCA_CQE_SIZE };
	dev_cqe(&d, 0xc0ffee, ORCA_CQE_OP_SEND, 0, ORCA_CQE_ST_SUCCESS, 0, 0,
		1, 0);
	ok(ibv_poll_cq(c, 1, &wc) == 1 && wc.wr_id == 0xc0ffee &&
	   ld(&d.db->cons) == 1,
	   "alloc: a CQE the device writes in the buffer is polled; cons goes to the mapped record");

	/* Resize: a new ring from the allocator, the old one freed after. */
	old = al.ptr;
	ret = ibv_resize_cq(c, 1000);
	ok(!ret && al_called(na + 2, 8 * PAGE, ORCADV_RES_TYPE_CQ) &&
	   ubuf_named(ns + 2, al.ptr, 8 * PAGE) &&
	   al_freed(nf + 1, old, ORCADV_RES_TYPE_CQ) &&
	   al.free_seq > 0 && to_ocq(c)->ring == al.ptr && c->cqe == 1024,
	   "alloc: resize to 1000: a 32768-byte ring (1024 x 32) named in RESIZE_CQ; then the old ring freed (ret %d)",
	   ret);
	d = (struct dev_cq){ .ring = al.ptr, .db = (void *)map_of(last_key),
			     .depth = 1024, .size = ORCA_CQE_SIZE, .prod = 1 };
	dev_cqe(&d, 0xc0ffef, ORCA_CQE_OP_SEND, 0, ORCA_CQE_ST_SUCCESS, 0, 0,
		1, 0);
	ok(ibv_poll_cq(c, 1, &wc) == 1 && wc.wr_id == 0xc0ffef &&
	   ld(&d.db->cons) == 2,
	   "alloc: after the resize, CQEs come from the new ring");

	old = al.ptr;
	create_err = ENOMEM;
	ret = ibv_resize_cq(c, 2000);
	ok(ret == ENOMEM && al_called(na + 3, 16 * PAGE, ORCADV_RES_TYPE_CQ) &&
	   al_freed(nf + 2, al.ptr, ORCADV_RES_TYPE_CQ) &&
	   to_ocq(c)->ring == old && c->cqe == 1024,
	   "alloc: a failed resize: the new ring freed, the CQ keeps the old (ret %d)",
	   ret);
	al.mode = AL_MISALIGNED;
	ret = ibv_resize_cq(c, 2000);
	ok(ret == EINVAL && al.n_alloc == na + 4 &&
	   al_freed(nf + 3, al.ptr, ORCADV_RES_TYPE_CQ) &&
	   to_ocq(c)->ring == old,
	   "alloc: a misaligned ring for a resize: given back, EINVAL, the CQ unchanged");
	al.mode = AL_DEFAULT;
	ret = ibv_resize_cq(c, 50);
	ok(!ret && al_called(na + 5, PAGE, ORCADV_RES_TYPE_CQ) &&
	   al_freed(nf + 4, old, ORCADV_RES_TYPE_CQ) &&
	   !to_ocq(c)->ubuf.addr &&
	   to_ocq(c)->ring == (void *)map_of(last_key),
	   "alloc: resize with IBV_ALLOCATOR_USE_DEFAULT: the kernel's ring, mapped; the old one freed");
	al.mode = AL_ARENA;
	ok(!ibv_destroy_cq(c) && al.n_free == nf + 4,
	   "alloc: destroying a CQ on the kernel's ring frees nothing");

	/* 64-byte entries, freed on destroy, after DESTROY_CQ. */
	cqx = al_cq(al_pdom, 100, IBV_WC_EX_WITH_COMPLETION_TIMESTAMP);
	c = cqx ? ibv_cq_ex_to_cq(cqx) : NULL;
	ok(c && al_called(na + 6, 2 * PAGE, ORCADV_RES_TYPE_CQ) &&
	   ubuf_named(ns + 4, al.ptr, 2 * PAGE),
	   "alloc: a CQ of 100 with timestamps: 8192 bytes (128 x 64)");
	old = al.ptr;
	ok(c && !ibv_destroy_cq(c) && al_freed(nf + 5, old, ORCADV_RES_TYPE_CQ) &&
	   al.free_seq > destroy_seq,
	   "alloc: destroy_cq: its ring freed once, with its type, after DESTROY_CQ");

	errno = 0;
	ok(!al_cq(al_pdom, INT32_MAX, 0) && errno == EINVAL &&
	   al.n_alloc == na + 6,
	   "alloc: a CQ whose ring would take 2^36 bytes: EINVAL, the allocator not called");
}

/* QPs: sizes per type, WQEs in the buffer, doorbells in the page. */
static void test_alloc_qp(struct ibv_srq *srq)
{
	unsigned int na = al.n_alloc, nf = al.n_free, ns = ubuf_seen.n;
	struct ibv_qp_init_attr_ex xa = {
		.send_cq = cq, .qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = al_pdom, .send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_sge sge = { 0x1000, 8, MR_LKEY };
	struct ibv_send_wr swr = {
		.wr_id = 0x5e0d, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND,
	}, *sbad;
	struct ibv_recv_wr rwr = {
		.wr_id = 0x7ec0, .sg_list = &sge, .num_sge = 1,
	}, *rbad;
	struct orca_db_record *db;
	struct ibv_qp *qp;
	char *ring;

	/* SQ 128 x 256 (64 + 100 inline) = 8 pages; RQ 64 x 64 = 1 page. */
	qp = al_qp(al_pdom, IBV_QPT_RC, NULL, 100, 3, 100);
	ok(qp && al_called(na + 1, 9 * PAGE, ORCADV_RES_TYPE_QP),
	   "alloc: an RC QP (100 x 3 SGEs, 100 inline; 50 x 2 SGEs): alloc of 36864 bytes, 8 pages of 128 x 256 B send WQEs then one of 64 x 64 B receive WQEs, ORCADV_RES_TYPE_QP");
	if (!qp)
		return;
	ring = al.ptr;
	db = (void *)map_of(last_key);
	ok(ubuf_named(ns + 1, ring, 9 * PAGE) && map_len_of(last_key) == PAGE &&
	   to_oqp(qp)->sq.ring == ring && to_oqp(qp)->rq.ring == ring + 8 * PAGE &&
	   to_oqp(qp)->sq.stride == 256 && to_oqp(qp)->rq.stride == 64 &&
	   to_oqp(qp)->sq.db == &db[0] && to_oqp(qp)->rq.db == &db[1],
	   "alloc: CREATE_QP names it, zeroed; the SQ ring at its start, the RQ ring after 32768 bytes, both records in the mapped page");
	to_state(qp, IBV_QPS_INIT);
	ok(!ibv_post_send(qp, &swr, &sbad) && !ibv_post_recv(qp, &rwr, &rbad) &&
	   le64toh(((struct orca_send_wqe *)ring)->wr_id) == 0x5e0d &&
	   le64toh(((struct orca_recv_wqe *)(ring + 8 * PAGE))->wr_id) == 0x7ec0 &&
	   ld(&db[0].prod) == 1 && ld(&db[1].prod) == 1,
	   "alloc: a posted send and receive are WQEs in the buffer; prod in the mapped records");

	destroy_err = EBUSY;
	ok(ibv_destroy_qp(qp) == EBUSY && al.n_free == nf &&
	   le64toh(((struct orca_send_wqe *)ring)->wr_id) == 0x5e0d,
	   "alloc: a destroy the kernel refuses (EBUSY) frees nothing");
	ok(!ibv_destroy_qp(qp) && al_freed(nf + 1, ring, ORCADV_RES_TYPE_QP) &&
	   al.free_seq > destroy_seq,
	   "alloc: destroy_qp: the rings freed once, with the type, after DESTROY_QP");

	/* UD: 96-byte WQE header, through ibv_create_qp_ex. */
	xa.qp_type = IBV_QPT_UD;
	xa.recv_cq = cq;
	xa.cap = (struct ibv_qp_cap){ .max_send_wr = 6, .max_recv_wr = 6,
				      .max_send_sge = 4, .max_recv_sge = 3,
				      .max_inline_data = 64 };
	qp = ibv_create_qp_ex(ctx, &xa);
	ok(qp && al_called(na + 2, 2 * PAGE, ORCADV_RES_TYPE_QP) &&
	   ubuf_named(ns + 2, al.ptr, 2 * PAGE) &&
	   to_oqp(qp)->sq.stride == 256 &&
	   to_oqp(qp)->rq.ring == (char *)al.ptr + PAGE,
	   "alloc: a UD QP through ibv_create_qp_ex: 8 x 256 B (96-byte header + 64) and 8 x 64 B, a page each");
	ring = al.ptr;
	ok(qp && !ibv_destroy_qp(qp) && al_freed(nf + 2, ring, ORCADV_RES_TYPE_QP),
	   "alloc: its rings freed on destroy");

	/* With an SRQ, and XRC_SEND: a send ring only. */
	qp = al_qp(al_pdom, IBV_QPT_RC, srq, 8, 1, 0);
	ok(qp && al_called(na + 3, PAGE, ORCADV_RES_TYPE_QP) &&
	   ubuf_named(ns + 3, al.ptr, PAGE) && !to_oqp(qp)->rq.depth,
	   "alloc: an RC QP with an SRQ: the send ring alone (8 x 128 B: one page)");
	ring = al.ptr;
	ok(qp && !ibv_destroy_qp(qp) && al_freed(nf + 3, ring, ORCADV_RES_TYPE_QP),
	   "alloc: freed on destroy");
	xa = (struct ibv_qp_init_attr_ex){
		.send_cq = cq, .qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = al_pdom,
	};
	qp = ibv_create_qp_ex(ctx, &xa);
	ok(qp && al_called(na + 4, PAGE, ORCADV_RES_TYPE_QP) &&
	   ubuf_named(ns + 4, al.ptr, PAGE),
	   "alloc: an XRC_SEND QP: the send ring alone");
	ring = al.ptr;
	ok(qp && !ibv_destroy_qp(qp) && al_freed(nf + 4, ring, ORCADV_RES_TYPE_QP),
	   "alloc: freed on destroy");
}

/* SRQs, basic and XRC; the parent domain is held while one exists. */
static void test_alloc_srq(struct ibv_srq **keep)
{
	unsigned int na = al.n_alloc, nf = al.n_free, ns = ubuf_seen.n;
	struct ibv_xrcd_init_attr xi = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1, .oflags = O_CREAT,
	};
	struct ibv_sge sge = { 0x1000, 8, MR_LKEY };
	struct ibv_recv_wr rwr = {
		.wr_id = 0x5a5a, .sg_list = &sge, .num_sge = 1,
	}, *bad;
	struct ibv_srq_init_attr_ex sx;
	struct orca_db_record *db;
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	char *ring;

	/* 128 x 64 B (16 + 3 x 16, rounded up): 2 pages. */
	srq = al_srq(al_pdom, 100, 3);
	ok(srq && al_called(na + 1, 2 * PAGE, ORCADV_RES_TYPE_SRQ) &&
	   ubuf_named(ns + 1, al.ptr, 2 * PAGE) && map_len_of(last_key) == PAGE,
	   "alloc: an SRQ of 100 x 3 SGEs: alloc of 8192 bytes (128 x 64), ORCADV_RES_TYPE_SRQ; named, zeroed; the doorbell page mapped");
	if (!srq)
		return;
	ring = al.ptr;
	db = (void *)map_of(last_key);
	ok(!ibv_post_srq_recv(srq, &rwr, &bad) &&
	   le64toh(((struct orca_recv_wqe *)ring)->wr_id) == 0x5a5a &&
	   ld(&db->prod) == 1,
	   "alloc: a receive posted to the SRQ is a WQE in the buffer; prod in the mapped record");
	*keep = srq;

	xrcd = ibv_open_xrcd(ctx, &xi);
	sx = (struct ibv_srq_init_attr_ex){
		.attr = { .max_wr = 16, .max_sge = 2 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC, .pd = al_pdom, .xrcd = xrcd, .cq = cq,
	};
	srq = xrcd ? ibv_create_srq_ex(ctx, &sx) : NULL;
	ok(srq && al_called(na + 2, PAGE, ORCADV_RES_TYPE_SRQ) &&
	   ubuf_named(ns + 2, al.ptr, PAGE) && to_osrq(srq)->wq.ring == al.ptr,
	   "alloc: an XRC SRQ through ibv_create_srq_ex: its ring (16 x 64 B) in a buffer, named in CREATE_XSRQ");
	ring = al.ptr;
	ok(srq && !ibv_destroy_srq(srq) &&
	   al_freed(nf + 1, ring, ORCADV_RES_TYPE_SRQ) &&
	   al.free_seq > destroy_seq,
	   "alloc: destroy_srq: its ring freed once, with its type, after DESTROY_SRQ");
	if (xrcd)
		ibv_close_xrcd(xrcd);
}

/* What the allocator may answer, and creates that fail. */
static void test_alloc_answers(void)
{
	unsigned int na = al.n_alloc, nf = al.n_free, ns = ubuf_seen.n;
	unsigned int cqs = n_cmd[IB_USER_VERBS_CMD_CREATE_CQ];
	unsigned int qps = n_cmd[IB_USER_VERBS_CMD_CREATE_QP];
	unsigned int srqs = n_cmd[IB_USER_VERBS_CMD_CREATE_SRQ];
	unsigned int dqp, dcq;
	int maps = live_maps;
	struct ibv_cq_ex *cqx;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	void *ptr;

	/* USE_DEFAULT: the kernel's rings, as without allocators. */
	al.mode = AL_DEFAULT;
	cqx = al_cq(al_pdom, 8, 0);
	ok(cqx && al_called(na + 1, PAGE, ORCADV_RES_TYPE_CQ) &&
	   ubuf_seen.n == ns && last_qreq_len == 24 &&
	   map_len_of(last_key) == 2 * PAGE,
	   "alloc: IBV_ALLOCATOR_USE_DEFAULT for a CQ: no buffer named, the kernel's ring and doorbell page mapped");
	qp = al_qp(al_pdom, IBV_QPT_RC, NULL, SQ_MAX_WR, SQ_MAX_SGE, 0);
	ok(qp && al.n_alloc == na + 2 && al.type == ORCADV_RES_TYPE_QP &&
	   ubuf_seen.n == ns && map_len_of(last_key) == 3 * PAGE,
	   "alloc: IBV_ALLOCATOR_USE_DEFAULT for a QP: the kernel's rings");
	srq = al_srq(al_pdom, SRQ_MAX_WR, RQ_MAX_SGE);
	ok(srq && al.n_alloc == na + 3 && al.type == ORCADV_RES_TYPE_SRQ &&
	   ubuf_seen.n == ns && map_len_of(last_key) == 2 * PAGE,
	   "alloc: IBV_ALLOCATOR_USE_DEFAULT for an SRQ: the kernel's ring");
	ok(qp && !ibv_destroy_qp(qp) && srq && !ibv_destroy_srq(srq) &&
	   cqx && !ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)) && al.n_free == nf &&
	   live_maps == maps,
	   "alloc: destroying them frees nothing");

	/* NULL: ENOMEM, nothing sent, nothing to free. */
	al.mode = AL_NULL;
	na = al.n_alloc;
	errno = 0;
	ok(!al_cq(al_pdom, 8, 0) && errno == ENOMEM &&
	   n_cmd[IB_USER_VERBS_CMD_CREATE_CQ] == cqs + 1,
	   "alloc: NULL for a CQ: ENOMEM, no CREATE_CQ sent");
	errno = 0;
	ok(!al_qp(al_pdom, IBV_QPT_RC, NULL, 8, 1, 0) && errno == ENOMEM &&
	   n_cmd[IB_USER_VERBS_CMD_CREATE_QP] == qps + 1,
	   "alloc: NULL for a QP: ENOMEM, no CREATE_QP sent");
	errno = 0;
	ok(!al_srq(al_pdom, 8, 1) && errno == ENOMEM &&
	   n_cmd[IB_USER_VERBS_CMD_CREATE_SRQ] == srqs + 1 &&
	   al.n_alloc == na + 3 && al.n_free == nf && live_maps == maps,
	   "alloc: NULL for an SRQ: ENOMEM, no CREATE_SRQ sent; nothing freed or mapped");

	/* Misaligned: given back, EINVAL. */
	al.mode = AL_MISALIGNED;
	errno = 0;
	ok(!al_qp(al_pdom, IBV_QPT_RC, NULL, 8, 1, 0) && errno == EINVAL &&
	   al.n_alloc == na + 4 &&
	   al_freed(nf + 1, al.ptr, ORCADV_RES_TYPE_QP) &&
	   (uintptr_t)al.ptr % PAGE == 64 &&
	   n_cmd[IB_USER_VERBS_CMD_CREATE_QP] == qps + 1,
	   "alloc: a buffer 64 bytes off a page boundary: free()d with its type, EINVAL, no CREATE_QP sent");

	/* A create the kernel fails: the buffer goes back, no destroy. */
	al.mode = AL_ARENA;
	dqp = n_cmd[IB_USER_VERBS_CMD_DESTROY_QP];
	dcq = n_cmd[IB_USER_VERBS_CMD_DESTROY_CQ];
	create_err = ENOSPC;
	errno = 0;
	ok(!al_cq(al_pdom, 8, 0) && errno == ENOSPC &&
	   al_freed(nf + 2, al.ptr, ORCADV_RES_TYPE_CQ) &&
	   n_cmd[IB_USER_VERBS_CMD_DESTROY_CQ] == dcq,
	   "alloc: CREATE_CQ fails (ENOSPC): its errno; the ring freed, no DESTROY_CQ");

	/* A response liborca refuses: destroyed, then freed. */
	ubuf_defect = true;
	errno = 0;
	ok(!al_qp(al_pdom, IBV_QPT_RC, NULL, 8, 1, 0) && errno == EPROTO &&
	   n_cmd[IB_USER_VERBS_CMD_DESTROY_QP] == dqp + 1 &&
	   al_freed(nf + 3, al.ptr, ORCADV_RES_TYPE_QP) &&
	   al.free_seq > destroy_seq && live_maps == maps,
	   "alloc: a send ring twice as deep as the buffer was sized for: EPROTO, DESTROY_QP, then the rings freed; nothing mapped");
	ubuf_defect = true;
	errno = 0;
	ok(!al_srq(al_pdom, 8, 1) && errno == EPROTO &&
	   al_freed(nf + 4, al.ptr, ORCADV_RES_TYPE_SRQ) &&
	   al.free_seq > destroy_seq && live_maps == maps,
	   "alloc: an SRQ ring twice as deep as sized: EPROTO, destroyed, then freed");
	ubuf_defect = true;
	errno = 0;
	ok(!al_cq(al_pdom, 8, 0) && errno == EPROTO &&
	   al_freed(nf + 5, al.ptr, ORCADV_RES_TYPE_CQ) &&
	   al.free_seq > destroy_seq && live_maps == maps,
	   "alloc: a CQ ring twice as deep as sized: EPROTO, destroyed, then freed");

	/* Read-only memory: not written by liborca; the kernel cannot pin it. */
	al.mode = AL_RDONLY;
	ns = ubuf_seen.n;
	errno = 0;
	ok(!al_srq(al_pdom, 8, 1) && errno == EFAULT && ubuf_seen.n == ns + 1 &&
	   ubuf_seen.zeroed && (ptr = al.ptr) &&
	   al_freed(nf + 6, ptr, ORCADV_RES_TYPE_SRQ),
	   "alloc: a read-only (zero) buffer: liborca leaves it alone, the kernel's EFAULT, free()d");
	al.mode = AL_ARENA;
}

static void test_alloc(void)
{
	struct ibv_parent_domain_init_attr pa = {
		.pd = pd,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = al_alloc, .free = al_free, .pd_context = &al_pd_cookie,
	};
	struct ibv_srq *srq = NULL;
	struct ibv_pd *pdom, *pdom_td;
	struct ibv_td *td;
	struct ibv_qp *qp;
	struct ibv_cq_ex *cqx;

	ok(ORCADV_RES_TYPE_QP == ((uint64_t)1 << 63 | 1) &&
	   ORCADV_RES_TYPE_SRQ == ((uint64_t)1 << 63 | 2) &&
	   ORCADV_RES_TYPE_CQ == ((uint64_t)1 << 63 | 3),
	   "orcadv.h: ORCADV_RES_TYPE_QP, _SRQ, _CQ are 1 << 63 | 1, 2, 3");
	zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	al_pdom = ibv_alloc_parent_domain(ctx, &pa);
	ok(al_pdom && !al.n_alloc,
	   "alloc: a parent domain with allocators on a context with USER_BUF; nothing allocated yet");
	if (!al_pdom || zero_fd < 0)
		return;

	test_alloc_cq();
	test_alloc_srq(&srq);
	test_alloc_qp(srq);
	ok(ibv_dealloc_pd(al_pdom) == EBUSY,
	   "alloc: the parent domain is EBUSY while an SRQ created with it exists");
	ok(srq && !ibv_destroy_srq(srq), "alloc: destroy the SRQ");
	test_alloc_answers();
	ok(!ibv_dealloc_pd(al_pdom), "alloc: then the parent domain goes");

	/* A thread domain as well: lock elision and the allocator's rings. */
	td = ibv_alloc_td(ctx, &(struct ibv_td_init_attr){});
	pa.td = td;
	pdom_td = td ? ibv_alloc_parent_domain(ctx, &pa) : NULL;
	pdom = al_pdom = pdom_td;
	cqx = pdom_td ? al_cq(pdom_td, 8, 0) : NULL;
	qp = pdom_td ? al_qp(pdom_td, IBV_QPT_RC, NULL, 8, 1, 0) : NULL;
	ok(cqx && qp && to_ocq(ibv_cq_ex_to_cq(cqx))->no_lock &&
	   to_ocq(ibv_cq_ex_to_cq(cqx))->ubuf.addr &&
	   to_oqp(qp)->sq.no_lock && to_oqp(qp)->rq.no_lock &&
	   to_oqp(qp)->sq.ring == al.ptr,
	   "alloc: with a thread domain too: the CQ and QP skip their locks, their rings are the allocator's");
	if (qp)
		ibv_destroy_qp(qp);
	if (cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	ok(pdom && !ibv_dealloc_pd(pdom) && td && !ibv_dealloc_td(td),
	   "alloc: that parent domain and TD go");
	al_pdom = NULL;

	ok(!al_live() && !al.bad_free && al.n_free > 0,
	   "alloc: every buffer handed out came back exactly once, with its type (%u allocs, %u frees)",
	   al.n_alloc, al.n_free);
	close(zero_fd);
}

int main(void)
{
	struct ibv_device **list;

	list = ibv_get_device_list(NULL);
	if (!list || !list[0] || strcmp(ibv_get_device_name(list[0]), "orca0")) {
		printf("Bail out! no orca0\n");
		return 1;
	}
	ctx = ibv_open_device(list[0]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 8, NULL, NULL, 0) : NULL;
	if (!cq) {
		printf("Bail out! open/alloc_pd/create_cq: %s\n", strerror(errno));
		return 1;
	}
	cq_key = last_key;

	test_recv();
	test_send_rules();
	test_send_format();
	test_qp_types();
	test_poll();
	test_arm();
	test_arm_events();
	test_resize();
	test_threads();
	test_cq_ex();
	test_cq_ts();
	test_cq_ts_flags();
	test_clock();
	test_qp_ex();
	test_mw_alloc();
	test_bind_type1();
	test_bind_type2();
	test_bind_wr();
	test_bind_poll();
	test_xrc();
	test_mw_dealloc();
	test_td();
	test_dm();
	test_alloc();

	ok(!ibv_destroy_cq(cq), "destroy cq");
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	if (chan_wfd >= 0)
		close(chan_wfd);
	printf("1..%d\n", n_test);
	return n_fail ? 1 : 0;
}
