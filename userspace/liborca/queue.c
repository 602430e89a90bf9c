// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * liborca: the queue objects of the control path (CQ, QP, SRQ).
 *
 * Each is one uverbs command carrying the whole Orca request, whose
 * response describes one mapping of the queue's memory: its ring(s) and a
 * page of doorbell records (uapi/rdma/orca-abi.h).  The response is
 * checked before anything is mapped, the mapping is made on the command
 * fd with the key and length from the response, and the ring and
 * doorbell pointers are kept for the data path (datapath.c).
 *
 * Through a parent domain with allocators (orcadv.h), the rings are the
 * application's instead: liborca sizes them as the kernel will, asks the
 * allocator for that many bytes, zeroes them and names them in the
 * request (ORCA_QUEUE_REQ_USER_BUF); the kernel pins them and maps the
 * doorbell page alone.  The allocator gets each buffer back once the
 * kernel no longer uses it.
 *
 * A response that does not describe a usable layout (with a buffer of
 * the process: not exactly the layout liborca sized it for) means the
 * kernel and liborca disagree about the ABI: the object is destroyed
 * again and the verb fails with EPROTO.
 *
 * XRC (interface 1.4): an XRC SRQ is a basic SRQ's ring, created with
 * the same udata; an XRC_SEND QP is an RC QP without a receive queue; an
 * XRC_RECV QP, created or opened, has neither udata nor memory.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "orca.h"

/*
 * The uverbs commands and responses with their Orca udata appended.
 * Every CQ is created with ibv_cmd_create_cq_ex() (see verbs_abi.h),
 * hence its extended command and response.
 */
struct orca_create_cq_cmd {
	struct ibv_create_cq_ex ibv;
	struct orca_create_cq_req drv;
};

struct orca_create_cq_cmd_resp {
	struct ib_uverbs_ex_create_cq_resp ibv;
	struct orca_create_cq_resp drv;
};

struct orca_resize_cq_cmd {
	struct ibv_resize_cq ibv;
	struct orca_resize_cq_req drv;
};

struct orca_resize_cq_cmd_resp {
	struct ib_uverbs_resize_cq_resp ibv;
	struct orca_resize_cq_resp drv;
};

struct orca_create_qp_cmd {
	struct ibv_create_qp ibv;
	struct orca_create_qp_req drv;
};

struct orca_create_qp_cmd_resp {
	struct ib_uverbs_create_qp_resp ibv;
	struct orca_create_qp_resp drv;
};

struct orca_create_srq_cmd {
	struct ibv_create_srq ibv;
	struct orca_create_srq_req drv;
};

struct orca_create_srq_cmd_resp {
	struct ib_uverbs_create_srq_resp ibv;
	struct orca_create_srq_resp drv;
};

/* ibv_create_srq_ex(): the same udata after the CREATE_XSRQ request. */
struct orca_create_xsrq_cmd {
	struct ibv_create_xsrq ibv;
	struct orca_create_srq_req drv;
};

/*
 * libibverbs passes everything after the core struct as udata, so the
 * Orca struct must start right after it and nothing may follow it.
 */
#define ORCA_UDATA_CHECK(wrap, core, drv_t)					\
	_Static_assert(offsetof(struct wrap, drv) == sizeof(struct core) &&	\
		       sizeof(struct wrap) ==					\
		       sizeof(struct core) + sizeof(struct drv_t),		\
		       #wrap ": udata must directly follow the core struct")

ORCA_UDATA_CHECK(orca_create_cq_cmd, ibv_create_cq_ex, orca_create_cq_req);
ORCA_UDATA_CHECK(orca_create_cq_cmd_resp, ib_uverbs_ex_create_cq_resp,
		 orca_create_cq_resp);
/* The extended write() command counts udata in 8-byte words. */
_Static_assert(sizeof(struct orca_create_cq_req) % 8 == 0 &&
	       sizeof(struct orca_create_cq_resp) % 8 == 0,
	       "CREATE_CQ udata must be a multiple of 8 bytes");
ORCA_UDATA_CHECK(orca_resize_cq_cmd, ibv_resize_cq, orca_resize_cq_req);
ORCA_UDATA_CHECK(orca_resize_cq_cmd_resp, ib_uverbs_resize_cq_resp,
		 orca_resize_cq_resp);
ORCA_UDATA_CHECK(orca_create_qp_cmd, ibv_create_qp, orca_create_qp_req);
ORCA_UDATA_CHECK(orca_create_qp_cmd_resp, ib_uverbs_create_qp_resp,
		 orca_create_qp_resp);
ORCA_UDATA_CHECK(orca_create_srq_cmd, ibv_create_srq, orca_create_srq_req);
ORCA_UDATA_CHECK(orca_create_srq_cmd_resp, ib_uverbs_create_srq_resp,
		 orca_create_srq_resp);
ORCA_UDATA_CHECK(orca_create_xsrq_cmd, ibv_create_xsrq, orca_create_srq_req);

_Static_assert(sizeof(struct orca_cqe) == ORCA_CQE_SIZE, "CQE size");
_Static_assert(sizeof(struct orca_cqe) + sizeof(struct orca_cqe_ext) ==
	       ORCA_CQE64_SIZE, "64-byte CQE size");
_Static_assert(sizeof(struct orca_db_record) == ORCA_DB_RECORD_SIZE,
	       "doorbell record size");
_Static_assert(sizeof(struct orca_send_wqe) == ORCA_SEND_WQE_HDR_SIZE,
	       "send WQE header size");
_Static_assert(sizeof(struct orca_recv_wqe) == ORCA_RECV_WQE_HDR_SIZE,
	       "receive WQE header size");

/* --- layout checks --------------------------------------------------- */

static bool orca_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* A region of the mapping: [off, off + len). */
struct orca_region {
	uint64_t off;
	uint64_t len;
	const char *what;
};

static bool orca_region_inside(const struct orca_region *r, uint64_t map_len)
{
	return r->len && r->off <= map_len && r->len <= map_len - r->off;
}

static bool orca_regions_overlap(const struct orca_region *a,
				 const struct orca_region *b)
{
	return a->off < b->off + b->len && b->off < a->off + a->len;
}

/*
 * Regions of one piece of memory of @len bytes (the mapping, or the
 * process's ring buffer, as @where says): every one inside it, 64-byte
 * aligned and disjoint from the others.
 */
static int orca_check_regions(const char *obj, const char *where,
			      uint64_t len, const struct orca_region *regions,
			      unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		if (!orca_region_inside(&regions[i], len) ||
		    regions[i].off % ORCA_DB_RECORD_SIZE) {
			orca_err("%s: %s at %llu+%llu does not fit a %llu byte %s\n",
				 obj, regions[i].what,
				 (unsigned long long)regions[i].off,
				 (unsigned long long)regions[i].len,
				 (unsigned long long)len, where);
			return EPROTO;
		}
		for (j = 0; j < i; j++) {
			if (orca_regions_overlap(&regions[i], &regions[j])) {
				orca_err("%s: %s overlaps %s\n", obj,
					 regions[i].what, regions[j].what);
				return EPROTO;
			}
		}
	}
	return 0;
}

/* The mapping: page granular, and the regions in it (as above). */
static int orca_check_map(struct orca_context *ctx, const char *obj,
			  uint64_t key, uint32_t map_len,
			  const struct orca_region *regions, unsigned int n)
{
	if (!map_len || map_len % ctx->page_size || key % ctx->page_size ||
	    key > (uint64_t)INT64_MAX) {
		orca_err("%s: bad mapping: key 0x%llx length %u\n", obj,
			 (unsigned long long)key, map_len);
		return EPROTO;
	}
	return orca_check_regions(obj, "mapping", map_len, regions, n);
}

/*
 * A work queue ring: depth and stride powers of two, room for the WQE
 * header and at least one SGE, and at least as large as the kernel says
 * it is in the core response (max_wr, max_sge).
 */
static int orca_check_wq(const char *obj, const char *what, uint32_t depth,
			 uint32_t stride, uint32_t hdr_size, uint32_t max_wr,
			 uint32_t max_sge)
{
	if (!orca_is_pow2(depth) || !orca_is_pow2(stride) ||
	    stride < hdr_size + sizeof(struct orca_sge) || max_wr > depth ||
	    max_sge > (stride - hdr_size) / sizeof(struct orca_sge)) {
		orca_err("%s: bad %s: depth %u stride %u for max_wr %u max_sge %u\n",
			 obj, what, depth, stride, max_wr, max_sge);
		return EPROTO;
	}
	return 0;
}

static int orca_qmap_map(struct orca_context *ctx, struct orca_qmap *map,
			 uint64_t key, uint32_t len)
{
	void *addr;

	addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		    ctx->vctx.context.cmd_fd, (off_t)key);
	if (addr == MAP_FAILED) {
		int err = errno;

		orca_err("mmap of %u bytes at key 0x%llx failed: %s\n", len,
			 (unsigned long long)key, strerror(err));
		return err;
	}
	map->addr = addr;
	map->len = len;
	return 0;
}

static void orca_qmap_unmap(struct orca_qmap *map)
{
	if (map->addr)
		munmap(map->addr, map->len);
	map->addr = NULL;
	map->len = 0;
}

static void *orca_qmap_at(const struct orca_qmap *map, uint32_t off)
{
	return (char *)map->addr + off;
}

/* --- rings in the process's memory ----------------------------------- */

/*
 * A ring as the kernel sizes it (orca-abi.h, "Queue memory"): depth
 * entries of stride bytes, both powers of two, taking bytes, the product
 * rounded up to a page.
 */
struct orca_ring_geom {
	uint64_t depth;
	uint64_t stride;
	uint64_t bytes;
};

/* The power of two at or above @v, for 1 <= @v <= 2^63. */
static uint64_t orca_pow2(uint64_t v)
{
	return v <= 1 ? 1 : (uint64_t)1 << (64 - __builtin_clzll(v - 1));
}

/*
 * A ring of at least max(@entries, @min_entries) entries of @stride (a
 * power of two) bytes.  The kernel takes no buffer of 4 GiB or more
 * (buf_len is 32 bits to it): EINVAL for such a ring, before anything is
 * allocated.  Any queue of the sizes the device advertises is far below.
 */
static int orca_ring_geom(const struct orca_context *ctx, uint64_t entries,
			  uint64_t min_entries, uint64_t stride,
			  struct orca_ring_geom *g)
{
	g->depth = orca_pow2(entries > min_entries ? entries : min_entries);
	g->stride = stride;
	if (g->stride > UINT32_MAX || g->depth > UINT32_MAX / g->stride)
		return EINVAL;
	g->bytes = (g->depth * g->stride + ctx->page_size - 1) &
		   ~(uint64_t)(ctx->page_size - 1);
	return g->bytes > UINT32_MAX ? EINVAL : 0;
}

/*
 * A work queue ring (SQ, RQ, SRQ): WQEs of @hdr bytes, then @max_sge
 * SGEs or @inline_len bytes of inline data, at least @min_stride bytes.
 */
static int orca_wq_ring_geom(const struct orca_context *ctx, uint32_t max_wr,
			     uint32_t hdr, uint32_t max_sge,
			     uint32_t inline_len, uint32_t min_stride,
			     struct orca_ring_geom *g)
{
	uint64_t stride = hdr + (uint64_t)max_sge * sizeof(struct orca_sge);

	if ((uint64_t)hdr + inline_len > stride)
		stride = (uint64_t)hdr + inline_len;
	if (min_stride > stride)
		stride = min_stride;
	return orca_ring_geom(ctx, max_wr, 1, orca_pow2(stride), g);
}

/*
 * Clears the buffer, page by page, writing only the pages that are not
 * zero already: a page the allocator has just mapped is left as it is,
 * and memory the process cannot write reaches the kernel, which refuses
 * to pin it (EFAULT), instead of faulting here.
 */
static void orca_ubuf_clear(void *addr, size_t len, size_t page_size)
{
	unsigned char *p;
	size_t off;

	for (off = 0; off < len; off += page_size) {
		p = (unsigned char *)addr + off;
		if (p[0] || memcmp(p, p + 1, page_size - 1))
			memset(p, 0, page_size);
	}
}

/*
 * The rings of a new object of @type, @len bytes (a whole number of
 * pages), from @parent's allocator, which may be absent: 0 with
 * ubuf->addr set, the buffer page aligned and zeroed; 0 with ubuf->addr
 * NULL when there is no allocator or it answered
 * IBV_ALLOCATOR_USE_DEFAULT (the kernel's memory, as without one);
 * ENOMEM when it returned NULL; EINVAL when it returned a misaligned
 * buffer, which it gets back first.
 */
static int orca_ubuf_alloc(const struct orca_context *ctx,
			   struct orca_pd *parent, uint64_t type, uint64_t len,
			   struct orca_ubuf *ubuf)
{
	void *addr;

	memset(ubuf, 0, sizeof(*ubuf));
	if (!parent || !parent->alloc)
		return 0;

	addr = parent->alloc(&parent->ibv_pd, parent->pd_context, len,
			     ctx->page_size, type);
	if (addr == IBV_ALLOCATOR_USE_DEFAULT) {
		orca_dbg("ring allocator: the default for %llu bytes of type 0x%llx\n",
			 (unsigned long long)len, (unsigned long long)type);
		return 0;
	}
	if (!addr) {
		orca_dbg("ring allocator: no %llu bytes of type 0x%llx\n",
			 (unsigned long long)len, (unsigned long long)type);
		return ENOMEM;
	}
	if ((uintptr_t)addr % ctx->page_size) {
		orca_err("ring allocator: %p for type 0x%llx is not aligned to %zu bytes\n",
			 addr, (unsigned long long)type, ctx->page_size);
		parent->free(&parent->ibv_pd, parent->pd_context, addr, type);
		return EINVAL;
	}

	orca_ubuf_clear(addr, len, ctx->page_size);
	*ubuf = (struct orca_ubuf){
		.addr = addr,
		.len = len,
		.type = type,
		.parent = parent,
	};
	return 0;
}

/* Gives a buffer back to its allocator (nothing without one). */
static void orca_ubuf_free(struct orca_ubuf *ubuf)
{
	struct orca_pd *parent = ubuf->parent;

	if (ubuf->addr)
		parent->free(&parent->ibv_pd, parent->pd_context, ubuf->addr,
			     ubuf->type);
	memset(ubuf, 0, sizeof(*ubuf));
}

/*
 * Names @ubuf, if it has a buffer, in @req, any of the four queue
 * requests (which share comp_mask, buf_addr and buf_len); without one
 * they stay 0.
 */
#define orca_ubuf_req(ubuf, req)					\
	do {								\
		if ((ubuf)->addr) {					\
			(req)->comp_mask |= ORCA_QUEUE_REQ_USER_BUF;	\
			(req)->buf_addr = (uintptr_t)(ubuf)->addr;	\
			(req)->buf_len = (ubuf)->len;			\
		}							\
	} while (0)

/*
 * With the rings in a buffer of the process, the mapping is the doorbell
 * page alone, with the record(s) (@db) at its start.
 */
static int orca_check_db_map(struct orca_context *ctx, const char *obj,
			     uint64_t key, uint32_t map_len,
			     const struct orca_region *db)
{
	if (map_len != ctx->page_size || db->off) {
		orca_err("%s: a mapping of %u bytes with the %s at %llu; the doorbell page alone expected\n",
			 obj, map_len, db->what, (unsigned long long)db->off);
		return EPROTO;
	}
	return orca_check_map(ctx, obj, key, map_len, db, 1);
}

/* Where the rings start: the process's buffer, or the mapping. */
static void *orca_ring_base(const struct orca_qmap *map,
			    const struct orca_ubuf *ubuf)
{
	return ubuf->addr ? ubuf->addr : map->addr;
}

/* --- completion queues ----------------------------------------------- */

struct orca_cq_layout {
	uint32_t cqe_count;
	uint32_t cqe_size;
	uint64_t mmap_key;
	uint32_t mmap_len;
	uint32_t db_offset;
};

/* The ring of a CQ asked for @cqe entries of @cqe_size bytes. */
static int orca_cq_ring_geom(const struct orca_context *ctx, uint32_t cqe,
			     uint32_t cqe_size, struct orca_ring_geom *g)
{
	return orca_ring_geom(ctx, cqe, 2, cqe_size, g);
}

/*
 * CQ = [ring: cqe_count entries][...][doorbell record at db_offset].
 * The entries are of the size the CQ was created for: 64 bytes exactly
 * when completion timestamps were asked for, 32 otherwise.  With the
 * ring in @ubuf (which has the bytes of @want), the ring must be exactly
 * @want and the mapping the doorbell page alone.
 */
static int orca_check_cq(struct orca_context *ctx, const struct ibv_cq *ibcq,
			 uint32_t comp_mask, uint32_t cqe_size,
			 const struct orca_cq_layout *l,
			 const struct orca_ubuf *ubuf,
			 const struct orca_ring_geom *want)
{
	struct orca_region regions[] = {
		{ 0, (uint64_t)l->cqe_count * l->cqe_size, "ring" },
		{ l->db_offset, ORCA_DB_RECORD_SIZE, "doorbell record" },
	};
	int err;

	if (comp_mask) {
		orca_err("cq: unknown response comp_mask 0x%x\n", comp_mask);
		return EPROTO;
	}
	if (l->cqe_size != cqe_size) {
		orca_err("cq: entries of %u bytes, expected %u\n", l->cqe_size,
			 cqe_size);
		return EPROTO;
	}
	if (!orca_is_pow2(l->cqe_count) || l->cqe_count < 2 ||
	    ibcq->cqe < 0 || (uint32_t)ibcq->cqe > l->cqe_count) {
		orca_err("cq: bad ring: %u entries of %u bytes for cqe %d\n",
			 l->cqe_count, l->cqe_size, ibcq->cqe);
		return EPROTO;
	}
	if (!ubuf->addr)
		return orca_check_map(ctx, "cq", l->mmap_key, l->mmap_len,
				      regions,
				      sizeof(regions) / sizeof(regions[0]));

	if (l->cqe_count != want->depth) {
		orca_err("cq: %u entries in a buffer sized for %llu\n",
			 l->cqe_count, (unsigned long long)want->depth);
		return EPROTO;
	}
	err = orca_check_regions("cq", "buffer", ubuf->len, &regions[0], 1);
	if (err)
		return err;
	return orca_check_db_map(ctx, "cq", l->mmap_key, l->mmap_len,
				 &regions[1]);
}

/* The ring and record pointers, once cq->map and cq->ubuf are final. */
static void orca_cq_set_ring(struct orca_cq *cq, const struct orca_cq_layout *l)
{
	cq->depth = l->cqe_count;
	cq->log2_depth = __builtin_ctz(l->cqe_count);
	cq->cqe_size = l->cqe_size;
	cq->ring = orca_ring_base(&cq->map, &cq->ubuf);
	cq->db = orca_qmap_at(&cq->map, l->db_offset);
}

/*
 * Undoes a create whose response was unusable: 0 or the errno of the
 * destroy, after which the kernel may still hold the CQ's memory.
 * ibv_cmd_destroy_cq() waits on the CQ's mutex and condition, which
 * libibverbs only initialises once create_cq has returned the CQ.
 */
static int orca_cq_undo_create(struct orca_cq *cq)
{
	struct ibv_cq *ibcq = &cq->vcq.cq;
	int err;

	pthread_mutex_init(&ibcq->mutex, NULL);
	pthread_cond_init(&ibcq->cond, NULL);
	err = ibv_cmd_destroy_cq(ibcq);
	if (err)
		orca_err("cq %u: destroy after a failed create: %s%s\n",
			 cq->cqn, strerror(err),
			 cq->ubuf.addr ? "; its ring buffer is not freed" : "");
	pthread_cond_destroy(&ibcq->cond);
	pthread_mutex_destroy(&ibcq->mutex);
	return err;
}

/*
 * Both create verbs; the caller sets what is specific to each.  attr is
 * the caller's own: cqe, channel, comp_vector and wc_flags, comp_mask 0.
 * Either timestamp flag in wc_flags makes ibv_cmd_create_cq_ex() ask for
 * IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION, which gives 64-byte entries
 * (orca_cqe_ext); a kernel that cannot refuses it (EOPNOTSUPP).  Without
 * it, libibverbs sends the same command as for ibv_create_cq().
 *
 * @parent is the parent domain of ibv_create_cq_ex()'s MASK_PD, or NULL:
 * the CQ holds it, skips its lock if it has a TD, and takes its ring
 * from its allocator if it has one.
 */
struct orca_cq *orca_create_cq_common(struct ibv_context *ibctx,
				      const struct ibv_cq_init_attr_ex *attr,
				      struct orca_pd *parent)
{
	struct orca_context *ctx = to_octx(ibctx);
	struct orca_create_cq_cmd_resp resp = {};
	struct orca_create_cq_cmd cmd = {};
	struct orca_ring_geom want = {};
	struct orca_cq_layout layout;
	uint32_t cqe_size;
	struct orca_cq *cq;
	int err;

	cqe_size = attr->wc_flags & ORCA_WC_EX_TIMESTAMPS ? ORCA_CQE64_SIZE :
							   ORCA_CQE_SIZE;
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}

	if (parent && parent->alloc) {
		err = orca_cq_ring_geom(ctx, attr->cqe, cqe_size, &want);
		if (!err)
			err = orca_ubuf_alloc(ctx, parent, ORCADV_RES_TYPE_CQ,
					      want.bytes, &cq->ubuf);
		if (err)
			goto err_free;
		orca_ubuf_req(&cq->ubuf, &cmd.drv);
	}

	/*
	 * No CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX: a kernel that cannot pass
	 * the flag on must fail the command, not drop the flag.
	 */
	err = ibv_cmd_create_cq_ex(ibctx, attr, &cq->vcq, &cmd.ibv,
				   sizeof(cmd), &resp.ibv, sizeof(resp), 0);
	if (err)
		goto err_ubuf;
	cq->cqn = resp.drv.cqn;

	layout = (struct orca_cq_layout){
		.cqe_count = resp.drv.cqe_count,
		.cqe_size = resp.drv.cqe_size,
		.mmap_key = resp.drv.mmap_key,
		.mmap_len = resp.drv.mmap_len,
		.db_offset = resp.drv.db_offset,
	};
	err = orca_check_cq(ctx, &cq->vcq.cq, resp.drv.comp_mask, cqe_size,
			    &layout, &cq->ubuf, &want);
	if (err)
		goto err_destroy;
	err = orca_qmap_map(ctx, &cq->map, layout.mmap_key, layout.mmap_len);
	if (err)
		goto err_destroy;
	orca_cq_set_ring(cq, &layout);
	err = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (err)
		goto err_unmap;
	cq->parent = parent;
	cq->no_lock = parent && parent->td;
	orca_parent_get(parent);

	orca_dbg("cq handle %u cqn %u: %u entries of %u bytes, cqe %d, mapping %u bytes%s\n",
		 cq->vcq.cq.handle, cq->cqn, cq->depth, cq->cqe_size,
		 cq->vcq.cq.cqe, layout.mmap_len,
		 cq->ubuf.addr ? ", ring in the allocator's buffer" : "");
	return cq;

err_unmap:
	orca_qmap_unmap(&cq->map);
err_destroy:
	/* The kernel may still hold the ring: then it is never freed. */
	if (orca_cq_undo_create(cq))
		goto err_free;
err_ubuf:
	orca_ubuf_free(&cq->ubuf);
err_free:
	free(cq);
	errno = err;
	return NULL;
}

struct ibv_cq *orca_create_cq(struct ibv_context *ibctx, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = cqe,
		.channel = channel,
		.comp_vector = comp_vector,
	};
	struct orca_cq *cq;

	cq = orca_create_cq_common(ibctx, &attr, NULL);
	return cq ? &cq->vcq.cq : NULL;
}

/*
 * RESIZE_CQ gives the CQ a new allocation; the device has moved the
 * unconsumed entries into it, each at its same free-running index, so
 * the consumer index and the arm sequence carry on.  The entries keep
 * their size (and their timestamps), which the response does not
 * repeat.  The old mapping is released once the new one is in place.
 * The CQ lock is held across the command: nobody may poll or arm while
 * the device moves entries, and the device reads cons from the record,
 * which the lock keeps current.
 *
 * A CQ of a parent domain with allocators asks them for the new ring
 * (which may be IBV_ALLOCATOR_USE_DEFAULT this time, or the other way
 * round) before it takes the lock, and gives rings back after: the old
 * one on success, the new one on failure.  A response liborca cannot
 * use after the kernel resized leaves the CQ on its old ring (broken:
 * the kernel and liborca disagree about the ABI); the new one, which
 * the kernel holds, is kept as cq->orphan until the CQ is destroyed.
 */
int orca_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct orca_context *ctx = to_octx(ibcq->context);
	struct orca_resize_cq_cmd_resp resp = {};
	struct orca_resize_cq_cmd cmd = {};
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_ubuf ubuf = {}, done[2] = {};
	struct orca_ring_geom want = {};
	struct orca_cq_layout layout;
	struct orca_qmap map = {};
	int old_cqe = ibcq->cqe;
	int err;

	if (cq->parent && cq->parent->alloc) {
		/* The kernel takes cqe as a u32: a negative one is huge. */
		err = orca_cq_ring_geom(ctx, (uint32_t)cqe, cq->cqe_size,
					&want);
		if (!err)
			err = orca_ubuf_alloc(ctx, cq->parent,
					      ORCADV_RES_TYPE_CQ, want.bytes,
					      &ubuf);
		if (err)
			return err;
		orca_ubuf_req(&ubuf, &cmd.drv);
	}

	orca_cq_lock(cq);
	err = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv, sizeof(cmd), &resp.ibv,
				sizeof(resp));
	if (err) {
		done[0] = ubuf;
		goto out;
	}

	layout = (struct orca_cq_layout){
		.cqe_count = resp.drv.cqe_count,
		.cqe_size = cq->cqe_size,
		.mmap_key = resp.drv.mmap_key,
		.mmap_len = resp.drv.mmap_len,
		.db_offset = resp.drv.db_offset,
	};
	err = orca_check_cq(ctx, ibcq, resp.drv.comp_mask, cq->cqe_size,
			    &layout, &ubuf, &want);
	if (!err)
		err = orca_qmap_map(ctx, &map, layout.mmap_key,
				    layout.mmap_len);
	if (err) {
		/* The kernel has moved on; there is no way back. */
		orca_err("cq %u: resized, but the new ring is unusable\n",
			 cq->cqn);
		ibcq->cqe = old_cqe;
		/* The kernel let go of an earlier orphan, not of ubuf. */
		done[0] = cq->orphan;
		cq->orphan = ubuf;
		goto out;
	}

	orca_qmap_unmap(&cq->map);
	cq->map = map;
	/* The kernel let go of the old ring (and of any orphan). */
	done[0] = cq->ubuf;
	done[1] = cq->orphan;
	memset(&cq->orphan, 0, sizeof(cq->orphan));
	cq->ubuf = ubuf;
	orca_cq_set_ring(cq, &layout);

	orca_dbg("cq %u: resized to %u entries of %u bytes, cqe %d%s\n",
		 cq->cqn, cq->depth, cq->cqe_size, ibcq->cqe,
		 cq->ubuf.addr ? ", ring in the allocator's buffer" : "");
out:
	orca_cq_unlock(cq);
	orca_ubuf_free(&done[0]);
	orca_ubuf_free(&done[1]);
	return err;
}

/*
 * The mapping and the ring buffer go once the kernel has destroyed the
 * CQ; while a QP uses it (EBUSY) everything stays.
 */
int orca_destroy_cq(struct ibv_cq *ibcq)
{
	struct orca_cq *cq = to_ocq(ibcq);
	int err;

	err = ibv_cmd_destroy_cq(ibcq);
	if (err)
		return err;

	pthread_spin_destroy(&cq->lock);
	orca_qmap_unmap(&cq->map);
	orca_ubuf_free(&cq->ubuf);
	orca_ubuf_free(&cq->orphan);
	orca_parent_put(cq->parent);
	free(cq);
	return 0;
}

/* --- queue pairs ----------------------------------------------------- */

/* The rings of a QP as the kernel sizes them: rq.bytes 0 without an RQ. */
struct orca_qp_geom {
	struct orca_ring_geom sq;
	struct orca_ring_geom rq;
};

/*
 * From the caps asked for (before the command, which writes the actual
 * ones back).  The QP's buffer is the SQ ring, then the RQ ring.
 */
static int orca_qp_ring_geom(const struct orca_context *ctx,
			     const struct orca_qp *qp,
			     const struct ibv_qp_cap *cap, bool has_rq,
			     struct orca_qp_geom *g)
{
	int err;

	memset(g, 0, sizeof(*g));
	err = orca_wq_ring_geom(ctx, cap->max_send_wr, qp->sq_hdr,
				cap->max_send_sge, cap->max_inline_data, 128,
				&g->sq);
	if (err || !has_rq)
		return err;
	err = orca_wq_ring_geom(ctx, cap->max_recv_wr, ORCA_RECV_WQE_HDR_SIZE,
				cap->max_recv_sge, 0, 32, &g->rq);
	if (err)
		return err;
	return g->sq.bytes + g->rq.bytes > UINT32_MAX ? EINVAL : 0;
}

/* With the rings in a buffer of the process: exactly as sized. */
static int orca_check_qp_geom(const struct orca_create_qp_resp *r,
			      bool has_rq, const struct orca_qp_geom *want)
{
	if (r->sq_depth != want->sq.depth || r->sq_stride != want->sq.stride ||
	    r->sq_offset ||
	    (has_rq && (r->rq_depth != want->rq.depth ||
			r->rq_stride != want->rq.stride ||
			r->rq_offset != want->sq.bytes))) {
		orca_err("qp: sq %ux%u at %u, rq %ux%u at %u in a buffer sized for sq %llux%llu, rq %llux%llu at %llu\n",
			 r->sq_depth, r->sq_stride, r->sq_offset, r->rq_depth,
			 r->rq_stride, r->rq_offset,
			 (unsigned long long)want->sq.depth,
			 (unsigned long long)want->sq.stride,
			 (unsigned long long)want->rq.depth,
			 (unsigned long long)want->rq.stride,
			 (unsigned long long)want->sq.bytes);
		return EPROTO;
	}
	return 0;
}

/*
 * QP = [SQ ring][RQ ring, absent with an SRQ][SQ and RQ doorbell records];
 * with a buffer of the process (@ubuf, sized as @want), the rings are in
 * it and the mapping is the page of doorbell records.  cap is what the
 * kernel reported in the core response.
 */
static int orca_check_qp(struct orca_context *ctx, const struct orca_qp *qp,
			 const struct ibv_qp_cap *cap, bool has_rq,
			 const struct orca_create_qp_resp *r,
			 const struct orca_ubuf *ubuf,
			 const struct orca_qp_geom *want)
{
	struct orca_region regions[3];
	unsigned int n = 0;
	int err;

	if (r->comp_mask) {
		orca_err("qp: unknown response comp_mask 0x%x\n", r->comp_mask);
		return EPROTO;
	}
	if (!r->qpn || r->qpn != qp->vqp.qp.qp_num) {
		orca_err("qp: qpn %u in udata, %u in the core response\n",
			 r->qpn, qp->vqp.qp.qp_num);
		return EPROTO;
	}

	err = orca_check_wq("qp", "send queue", r->sq_depth, r->sq_stride,
			    qp->sq_hdr, cap->max_send_wr, cap->max_send_sge);
	if (err)
		return err;
	if (r->max_inline > r->sq_stride - qp->sq_hdr ||
	    cap->max_inline_data > r->max_inline) {
		orca_err("qp: max_inline %u (reported %u) with a %u byte stride\n",
			 r->max_inline, cap->max_inline_data, r->sq_stride);
		return EPROTO;
	}
	regions[n++] = (struct orca_region){
		r->sq_offset, (uint64_t)r->sq_depth * r->sq_stride, "send queue"
	};

	if (has_rq) {
		err = orca_check_wq("qp", "receive queue", r->rq_depth,
				    r->rq_stride, ORCA_RECV_WQE_HDR_SIZE,
				    cap->max_recv_wr, cap->max_recv_sge);
		if (err)
			return err;
		regions[n++] = (struct orca_region){
			r->rq_offset, (uint64_t)r->rq_depth * r->rq_stride,
			"receive queue"
		};
	} else if (r->rq_depth) {
		orca_err("qp: receive queue of %u entries with an SRQ\n",
			 r->rq_depth);
		return EPROTO;
	}

	regions[n++] = (struct orca_region){
		r->db_offset, 2 * ORCA_DB_RECORD_SIZE, "doorbell records"
	};
	if (!ubuf->addr)
		return orca_check_map(ctx, "qp", r->mmap_key, r->mmap_len,
				      regions, n);

	err = orca_check_qp_geom(r, has_rq, want);
	if (!err)
		err = orca_check_regions("qp", "buffer", ubuf->len, regions,
					 n - 1);
	if (err)
		return err;
	return orca_check_db_map(ctx, "qp", r->mmap_key, r->mmap_len,
				 &regions[n - 1]);
}

/* The ring and record pointers, once qp->map and qp->ubuf are final. */
static void orca_qp_set_rings(struct orca_qp *qp, bool has_rq,
			      const struct ibv_qp_cap *cap,
			      const struct orca_create_qp_resp *r)
{
	struct orca_db_record *db = orca_qmap_at(&qp->map, r->db_offset);
	char *base = orca_ring_base(&qp->map, &qp->ubuf);

	qp->qpn = r->qpn;
	qp->max_inline = cap->max_inline_data;
	qp->sq = (struct orca_wq){
		.ring = base + r->sq_offset,
		.db = &db[0],
		.depth = r->sq_depth,
		.stride = r->sq_stride,
		.max_sge = (r->sq_stride - qp->sq_hdr) /
			   sizeof(struct orca_sge),
		.max_wr = cap->max_send_wr,
		.max_post_sge = cap->max_send_sge,
	};
	if (!has_rq)
		return;
	qp->rq = (struct orca_wq){
		.ring = base + r->rq_offset,
		.db = &db[1],
		.depth = r->rq_depth,
		.stride = r->rq_stride,
		.max_sge = (r->rq_stride - ORCA_RECV_WQE_HDR_SIZE) /
			   sizeof(struct orca_sge),
		.max_wr = cap->max_recv_wr,
		.max_post_sge = cap->max_recv_sge,
	};
}

/* The posting locks: one per work queue. */
static int orca_qp_init_locks(struct orca_qp *qp)
{
	int err;

	err = orca_wq_init(&qp->sq, qp->sq.max_wr, qp->sq.max_post_sge);
	if (err)
		return err;
	err = orca_wq_init(&qp->rq, qp->rq.max_wr, qp->rq.max_post_sge);
	if (err)
		orca_wq_fini(&qp->sq);
	return err;
}

/*
 * Undoes a create (or open) that the kernel did but liborca cannot use:
 * 0 or the errno of the destroy, after which the kernel may still hold
 * the QP's memory.
 */
static int orca_qp_undo_create(struct orca_qp *qp)
{
	int err;

	err = ibv_cmd_destroy_qp(&qp->vqp.qp);
	if (err)
		orca_err("qp %u: destroy after a failed create: %s%s\n",
			 qp->vqp.qp.qp_num, strerror(err),
			 qp->ubuf.addr ? "; its ring buffer is not freed" : "");
	pthread_cond_destroy(&qp->vqp.qp.cond);
	pthread_mutex_destroy(&qp->vqp.qp.mutex);
	return err;
}

/*
 * Every QP type but XRC_RECV ends here with comp_mask PD, in an attr of
 * the caller's own.  ibv_cmd_create_qp_ex() fills the ibv_qp (pd, cqs,
 * srq, type, state RESET, mutex, cond) and writes the actual caps back
 * to attr->cap.  attr->pd may be a parent domain, which carries its
 * PD's handle; ibqp->pd stays the parent domain, as
 * ibv_alloc_parent_domain(3) has it.  With a thread domain in it, the
 * SQ and RQ are posted to without their locks; with allocators, the
 * rings are theirs, sized from the caps asked for.
 *
 * An XRC_SEND QP is the sending half of an RC connection: the same
 * command, udata and send queue, but no receive queue, so its recv_cq,
 * srq and receive caps are dropped before the command (ibqp->recv_cq
 * and ibqp->srq are NULL, max_recv_wr/max_recv_sge come back 0); it
 * needs a send_cq.  An XRC_RECV QP needs an XRC domain, which this
 * path (ibv_create_qp(), an ibv_create_qp_ex() mask of PD alone) cannot
 * carry: EINVAL, the answer of ibv_cmd_create_qp_ex() too.
 */
static struct ibv_qp *orca_create_qp_common(struct ibv_context *ibctx,
					    struct ibv_qp_init_attr_ex *attr)
{
	struct orca_context *ctx = to_octx(ibctx);
	struct orca_pd *parent = orca_parent_domain(ibctx, attr->pd);
	struct orca_create_qp_cmd_resp resp = {};
	struct orca_create_qp_cmd cmd = {};
	struct orca_qp_geom want = {};
	struct orca_qp *qp;
	bool has_rq;
	int err;

	switch (attr->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		break;
	case IBV_QPT_XRC_SEND:
		if (!attr->send_cq) {
			errno = EINVAL;
			return NULL;
		}
		attr->recv_cq = NULL;
		attr->srq = NULL;
		attr->cap.max_recv_wr = 0;
		attr->cap.max_recv_sge = 0;
		break;
	case IBV_QPT_XRC_RECV:
		errno = EINVAL;
		return NULL;
	default:
		errno = EOPNOTSUPP;
		return NULL;
	}
	has_rq = !attr->srq && attr->qp_type != IBV_QPT_XRC_SEND;

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	/* UD send WQEs carry an address vector after the header. */
	qp->sq_hdr = attr->qp_type == IBV_QPT_UD ? ORCA_UD_SEND_WQE_HDR_SIZE :
		     ORCA_SEND_WQE_HDR_SIZE;

	if (parent && parent->alloc) {
		err = orca_qp_ring_geom(ctx, qp, &attr->cap, has_rq, &want);
		if (!err)
			err = orca_ubuf_alloc(ctx, parent, ORCADV_RES_TYPE_QP,
					      want.sq.bytes + want.rq.bytes,
					      &qp->ubuf);
		if (err)
			goto err_free;
		orca_ubuf_req(&qp->ubuf, &cmd.drv);
	}

	err = ibv_cmd_create_qp_ex(ibctx, &qp->vqp, attr, &cmd.ibv,
				   sizeof(cmd), &resp.ibv, sizeof(resp));
	if (err)
		goto err_ubuf;

	err = orca_check_qp(ctx, qp, &attr->cap, has_rq, &resp.drv, &qp->ubuf,
			    &want);
	if (err)
		goto err_destroy;
	err = orca_qmap_map(ctx, &qp->map, resp.drv.mmap_key,
			    resp.drv.mmap_len);
	if (err)
		goto err_destroy;
	orca_qp_set_rings(qp, has_rq, &attr->cap, &resp.drv);
	qp->sq_sig_all = attr->sq_sig_all;
	qp->state = IBV_QPS_RESET;
	err = orca_qp_init_locks(qp);
	if (err)
		goto err_unmap;
	qp->parent = parent;
	if (parent && parent->td) {
		qp->sq.no_lock = true;
		qp->rq.no_lock = true;
	}
	orca_parent_get(parent);

	orca_dbg("qp handle %u qpn %u type %d: sq %ux%u rq %ux%u inline %u%s%s\n",
		 qp->vqp.qp.handle, qp->qpn, attr->qp_type, qp->sq.depth,
		 qp->sq.stride, qp->rq.depth, qp->rq.stride, qp->max_inline,
		 qp->sq.no_lock ? ", thread domain: no locks" : "",
		 qp->ubuf.addr ? ", rings in the allocator's buffer" : "");
	return &qp->vqp.qp;

err_unmap:
	orca_qmap_unmap(&qp->map);
err_destroy:
	/* The kernel may still hold the rings: then they are never freed. */
	if (orca_qp_undo_create(qp))
		goto err_free;
err_ubuf:
	orca_ubuf_free(&qp->ubuf);
err_free:
	free(qp);
	errno = err;
	return NULL;
}

/*
 * An XRC_RECV QP (the kernel's XRC_TGT), with comp_mask XRCD in an attr
 * of the caller's own.  ib_core creates it without udata (the driver
 * writes no orca_create_qp_resp), so ibv_cmd_create_qp_ex2() carries
 * none either way, and there is no ring and nothing to map: requests
 * arriving at it go to the XRC SRQ that each one names, and posting to
 * it is EINVAL (datapath.c).  The command names the XRCD instead of a
 * PD; ibqp->pd, the CQs and srq are NULL, vqp.xrcd is the domain.  The
 * caps are passed on as given and come back as the kernel answered.
 */
static struct ibv_qp *orca_create_xrc_recv_qp(struct ibv_context *ibctx,
					      struct ibv_qp_init_attr_ex *attr)
{
	struct ib_uverbs_ex_create_qp_resp resp = {};
	struct ibv_create_qp_ex cmd = {};
	struct orca_qp *qp;
	int err;

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_create_qp_ex2(ibctx, &qp->vqp, attr, &cmd, sizeof(cmd),
				    &resp, sizeof(resp));
	if (err)
		goto err_free;
	qp->qpn = qp->vqp.qp.qp_num;
	qp->sq_sig_all = attr->sq_sig_all;
	qp->state = IBV_QPS_RESET;
	err = orca_qp_init_locks(qp);
	if (err)
		goto err_destroy;

	orca_dbg("qp handle %u qpn %u: XRC_RECV of xrcd handle %u\n",
		 qp->vqp.qp.handle, qp->qpn, to_vxrcd(attr->xrcd)->handle);
	return &qp->vqp.qp;

err_destroy:
	orca_qp_undo_create(qp);
err_free:
	free(qp);
	errno = err;
	return NULL;
}

struct ibv_qp *orca_create_qp(struct ibv_pd *ibpd,
			      struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = ibpd,
	};
	struct ibv_qp *qp;

	qp = orca_create_qp_common(ibpd->context, &attr_ex);
	if (qp)
		attr->cap = attr_ex.cap;
	return qp;
}

/*
 * ibv_create_qp_ex() only comes here for masks other than PD alone.  Orca
 * takes PD (XRCD for an XRC_RECV QP, which needs no PD) with an empty
 * CREATE_FLAGS, and SEND_OPS_FLAGS for the ibv_wr_*() API (exverbs.c)
 * with the opcodes valid on the QP type (none on XRC_RECV).  A PD with
 * an XRC_RECV QP, or an XRCD with another type, is not looked at.  RSS
 * and TSO are not supported.  Only the fields these masks name are
 * read: the caller's struct may predate later members.
 */
#define ORCA_QP_INIT_ATTR_KNOWN	(IBV_QP_INIT_ATTR_SEND_OPS_FLAGS * 2 - 1)

struct ibv_qp *orca_create_qp_ex(struct ibv_context *ibctx,
				 struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {};
	bool xrc_recv = attr->qp_type == IBV_QPT_XRC_RECV;
	uint32_t need = xrc_recv ? IBV_QP_INIT_ATTR_XRCD : IBV_QP_INIT_ATTR_PD;
	struct ibv_qp *qp;

	if (attr->comp_mask & ~ORCA_QP_INIT_ATTR_KNOWN ||
	    !(attr->comp_mask & need)) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->comp_mask & ~(IBV_QP_INIT_ATTR_PD |
				IBV_QP_INIT_ATTR_XRCD |
				IBV_QP_INIT_ATTR_CREATE_FLAGS |
				IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ||
	    (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS &&
	     attr->create_flags) ||
	    (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS &&
	     attr->send_ops_flags &
	     ~orca_qp_ex_send_ops(attr->qp_type))) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	attr_ex.qp_context = attr->qp_context;
	attr_ex.cap = attr->cap;
	attr_ex.qp_type = attr->qp_type;
	attr_ex.sq_sig_all = attr->sq_sig_all;
	if (xrc_recv) {
		if (!attr->xrcd || attr->xrcd->context != ibctx) {
			errno = EINVAL;
			return NULL;
		}
		attr_ex.comp_mask = IBV_QP_INIT_ATTR_XRCD;
		attr_ex.xrcd = attr->xrcd;
		qp = orca_create_xrc_recv_qp(ibctx, &attr_ex);
	} else {
		if (!attr->pd || attr->pd->context != ibctx) {
			errno = EINVAL;
			return NULL;
		}
		attr_ex.send_cq = attr->send_cq;
		attr_ex.recv_cq = attr->recv_cq;
		attr_ex.srq = attr->srq;
		attr_ex.comp_mask = IBV_QP_INIT_ATTR_PD;
		attr_ex.pd = attr->pd;
		qp = orca_create_qp_common(ibctx, &attr_ex);
	}
	if (!qp)
		return NULL;
	attr->cap = attr_ex.cap;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		orca_qp_init_ex(to_oqp(qp));
	return qp;
}

/*
 * ibv_open_qp(3): another handle, in this context, on an XRC_RECV QP
 * created in the XRC domain attr->xrcd (by any process sharing it).
 * OPEN_QP carries no udata, and the QP has no memory: it is modified,
 * queried and destroyed (which closes this handle only) like any QP,
 * and posting to it is EINVAL.  ibv_cmd_open_qp() leaves pd, the CQs
 * and srq NULL and the state IBV_QPS_UNKNOWN.  comp_mask needs XRCD,
 * NUM and TYPE (EINVAL; unknown bits are EOPNOTSUPP, as libibverbs
 * answers), and only XRC_RECV QPs can be opened (EINVAL; ib_core
 * refuses other types too).
 */
#define ORCA_QP_OPEN_ATTR_NEED	(IBV_QP_OPEN_ATTR_XRCD |		\
				 IBV_QP_OPEN_ATTR_NUM |			\
				 IBV_QP_OPEN_ATTR_TYPE)

struct ibv_qp *orca_open_qp(struct ibv_context *ibctx,
			    struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp = {};
	struct ibv_open_qp cmd = {};
	struct orca_qp *qp;
	int err;

	if (attr->comp_mask & ~(uint32_t)(IBV_QP_OPEN_ATTR_RESERVED - 1)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & ORCA_QP_OPEN_ATTR_NEED) !=
	    ORCA_QP_OPEN_ATTR_NEED || !attr->xrcd ||
	    attr->xrcd->context != ibctx ||
	    attr->qp_type != IBV_QPT_XRC_RECV) {
		errno = EINVAL;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_open_qp(ibctx, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (err)
		goto err_free;
	qp->qpn = qp->vqp.qp.qp_num;
	qp->state = IBV_QPS_UNKNOWN;
	err = orca_qp_init_locks(qp);
	if (err)
		goto err_destroy;

	orca_dbg("qp handle %u: opened XRC_RECV qpn %u\n", qp->vqp.qp.handle,
		 qp->qpn);
	return &qp->vqp.qp;

err_destroy:
	orca_qp_undo_create(qp);
err_free:
	free(qp);
	errno = err;
	return NULL;
}

/*
 * No udata either way.  The device enforces the state machine; liborca
 * only remembers the state it set, for the posting rules of RESET, and
 * restarts its ring indices on a move to RESET.  A move to ERR made by
 * the device is not seen here, and needs not be: posting in ERR is
 * allowed (the WRs complete with WR_FLUSH_ERR).
 */
int orca_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask)
{
	struct orca_qp *qp = to_oqp(ibqp);
	struct ibv_modify_qp cmd = {};
	int err;

	err = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (err || !(attr_mask & IBV_QP_STATE))
		return err;

	if (attr->qp_state == IBV_QPS_RESET)
		orca_qp_reset_indices(qp);
	__atomic_store_n(&qp->state, attr->qp_state, __ATOMIC_RELEASE);
	return 0;
}

int orca_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

/*
 * Fails with EBUSY, keeping the QP, its mapping and its ring buffer,
 * while attached.
 */
int orca_destroy_qp(struct ibv_qp *ibqp)
{
	struct orca_qp *qp = to_oqp(ibqp);
	int err;

	err = ibv_cmd_destroy_qp(ibqp);
	if (err)
		return err;

	orca_wq_fini(&qp->rq);
	orca_wq_fini(&qp->sq);
	orca_qmap_unmap(&qp->map);
	orca_ubuf_free(&qp->ubuf);
	orca_parent_put(qp->parent);
	free(qp);
	return 0;
}

/* --- shared receive queues ------------------------------------------- */

/* The ring of an SRQ as the kernel sizes it, from the attrs asked for. */
static int orca_srq_ring_geom(const struct orca_context *ctx,
			      const struct ibv_srq_attr *attr,
			      struct orca_ring_geom *g)
{
	return orca_wq_ring_geom(ctx, attr->max_wr, ORCA_RECV_WQE_HDR_SIZE,
				 attr->max_sge, 0, 32, g);
}

/*
 * Before the command: the ring from @parent's allocator, if it has one
 * (sized as @want, from the attrs asked for), named in @req.
 */
static int orca_srq_ubuf_alloc(const struct orca_context *ctx,
			       struct orca_srq *srq, struct orca_pd *parent,
			       const struct ibv_srq_attr *attr,
			       struct orca_ring_geom *want,
			       struct orca_create_srq_req *req)
{
	int err;

	if (!parent || !parent->alloc)
		return 0;
	err = orca_srq_ring_geom(ctx, attr, want);
	if (!err)
		err = orca_ubuf_alloc(ctx, parent, ORCADV_RES_TYPE_SRQ,
				      want->bytes, &srq->ubuf);
	if (!err)
		orca_ubuf_req(&srq->ubuf, req);
	return err;
}

/*
 * SRQ = [ring][...][doorbell record at db_offset]; with a buffer of the
 * process (@ubuf, sized as @want), the ring is exactly that buffer's and
 * the mapping is the doorbell page.
 */
static int orca_check_srq(struct orca_context *ctx,
			  const struct ibv_srq_attr *attr,
			  const struct orca_create_srq_resp *r,
			  const struct orca_ubuf *ubuf,
			  const struct orca_ring_geom *want)
{
	struct orca_region regions[] = {
		{ 0, (uint64_t)r->depth * r->stride, "ring" },
		{ r->db_offset, ORCA_DB_RECORD_SIZE, "doorbell record" },
	};
	int err;

	if (r->comp_mask || !r->srqn) {
		orca_err("srq: comp_mask 0x%x srqn %u in the response\n",
			 r->comp_mask, r->srqn);
		return EPROTO;
	}
	err = orca_check_wq("srq", "ring", r->depth, r->stride,
			    ORCA_RECV_WQE_HDR_SIZE, attr->max_wr, attr->max_sge);
	if (err)
		return err;
	if (!ubuf->addr)
		return orca_check_map(ctx, "srq", r->mmap_key, r->mmap_len,
				      regions,
				      sizeof(regions) / sizeof(regions[0]));

	if (r->depth != want->depth || r->stride != want->stride) {
		orca_err("srq: %ux%u in a buffer sized for %llux%llu\n",
			 r->depth, r->stride,
			 (unsigned long long)want->depth,
			 (unsigned long long)want->stride);
		return EPROTO;
	}
	err = orca_check_regions("srq", "buffer", ubuf->len, &regions[0], 1);
	if (err)
		return err;
	return orca_check_db_map(ctx, "srq", r->mmap_key, r->mmap_len,
				 &regions[1]);
}

/*
 * Checks the response (attr holds the max_wr and max_sge the kernel
 * answered), maps the ring (or the doorbell page, with the ring in
 * srq->ubuf) and sets up posting: the same for a basic and an XRC SRQ.
 * On failure nothing is left mapped.
 */
static int orca_srq_setup(struct orca_context *ctx, struct orca_srq *srq,
			  const struct ibv_srq_attr *attr,
			  const struct orca_create_srq_resp *r,
			  const struct orca_ring_geom *want)
{
	int err;

	err = orca_check_srq(ctx, attr, r, &srq->ubuf, want);
	if (err)
		return err;
	err = orca_qmap_map(ctx, &srq->map, r->mmap_key, r->mmap_len);
	if (err)
		return err;
	srq->wq = (struct orca_wq){
		.ring = orca_ring_base(&srq->map, &srq->ubuf),
		.db = orca_qmap_at(&srq->map, r->db_offset),
		.depth = r->depth,
		.stride = r->stride,
		.max_sge = (r->stride - ORCA_RECV_WQE_HDR_SIZE) /
			   sizeof(struct orca_sge),
	};
	err = orca_wq_init(&srq->wq, attr->max_wr, attr->max_sge);
	if (err)
		orca_qmap_unmap(&srq->map);
	return err;
}

/*
 * Undoes a create that the kernel did but liborca cannot use: 0 or the
 * errno of the destroy, after which the kernel may still hold the
 * SRQ's memory.
 */
static int orca_srq_undo_create(struct orca_srq *srq)
{
	int err;

	err = ibv_cmd_destroy_srq(&srq->vsrq.srq);
	if (err)
		orca_err("srq %u: destroy after a failed create: %s%s\n",
			 srq->srqn, strerror(err),
			 srq->ubuf.addr ? "; its ring buffer is not freed" : "");
	pthread_cond_destroy(&srq->vsrq.srq.cond);
	pthread_mutex_destroy(&srq->vsrq.srq.mutex);
	return err;
}

/* A created SRQ holds the parent domain it was created with, if any. */
static void orca_srq_set_parent(struct orca_srq *srq, struct orca_pd *parent)
{
	srq->parent = parent;
	orca_parent_get(parent);
	orca_dbg("srq handle %u srqn %u type %d: %ux%u%s\n",
		 srq->vsrq.srq.handle, srq->srqn, srq->vsrq.srq_type,
		 srq->wq.depth, srq->wq.stride,
		 srq->ubuf.addr ? ", ring in the allocator's buffer" : "");
}

/*
 * ibv_create_srq(3); ibpd may be a parent domain, whose allocators then
 * give the ring.  SRQs keep their lock under a thread domain.
 */
struct ibv_srq *orca_create_srq(struct ibv_pd *ibpd,
				struct ibv_srq_init_attr *attr)
{
	struct orca_context *ctx = to_octx(ibpd->context);
	struct orca_pd *parent = orca_parent_domain(ibpd->context, ibpd);
	struct orca_create_srq_cmd_resp resp = {};
	struct orca_create_srq_cmd cmd = {};
	struct orca_ring_geom want = {};
	struct orca_srq *srq;
	int err;

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	srq->vsrq.srq_type = IBV_SRQT_BASIC;
	err = orca_srq_ubuf_alloc(ctx, srq, parent, &attr->attr, &want,
				  &cmd.drv);
	if (err)
		goto err_free;

	err = ibv_cmd_create_srq(ibpd, &srq->vsrq.srq, attr, &cmd.ibv,
				 sizeof(cmd), &resp.ibv, sizeof(resp));
	if (err)
		goto err_ubuf;
	srq->srqn = resp.drv.srqn;

	err = orca_srq_setup(ctx, srq, &attr->attr, &resp.drv, &want);
	if (err)
		goto err_destroy;

	orca_srq_set_parent(srq, parent);
	return &srq->vsrq.srq;

err_destroy:
	/* The kernel may still hold the ring: then it is never freed. */
	if (orca_srq_undo_create(srq))
		goto err_free;
err_ubuf:
	orca_ubuf_free(&srq->ubuf);
err_free:
	free(srq);
	errno = err;
	return NULL;
}

/*
 * ibv_create_srq_ex(3).  libibverbs sends a mask of PD, or PD and TYPE
 * BASIC, to create_srq instead; everything else comes here.  Both types
 * Orca has take the same CREATE_SRQ udata and give the same ring:
 *
 *  - BASIC (or no TYPE): needs PD; XRCD and CQ are not looked at, and
 *    the command is the one ibv_create_srq() sends;
 *  - XRC: needs TYPE, PD, XRCD and CQ, all of this context (EINVAL):
 *    the SRQ receives the requests of XRC_SEND QPs that name its
 *    number (ibv_get_srq_num(), which senders put in their WRs) and
 *    arrive at an XRC_RECV QP of the same domain, and completes them
 *    on attr->cq.  The command is the CREATE_XSRQ one (or the ioctl).
 *
 * Tag matching (the TM type, or the TM mask) is EOPNOTSUPP, as are mask
 * bits libibverbs does not know; another type is EINVAL.  Only the
 * members the mask names are read, through a copy, and max_wr/max_sge
 * come back as the kernel answered.  The ibv_create_srq_ex() inline
 * sets none of the ibv_srq's fields afterwards, and
 * ibv_cmd_create_srq_ex() only some (verbs_abi.h): srq_context, pd and
 * the verbs_srq fields are set here.  attr->pd may be a parent domain,
 * whose allocators then give the ring, for either type.
 */
#define ORCA_SRQ_INIT_ATTR_KNOWN	(IBV_SRQ_INIT_ATTR_RESERVED - 1)
#define ORCA_SRQ_INIT_ATTR_XRC		(IBV_SRQ_INIT_ATTR_TYPE |	\
					 IBV_SRQ_INIT_ATTR_PD |		\
					 IBV_SRQ_INIT_ATTR_XRCD |	\
					 IBV_SRQ_INIT_ATTR_CQ)

struct ibv_srq *orca_create_srq_ex(struct ibv_context *ibctx,
				   struct ibv_srq_init_attr_ex *attr)
{
	struct orca_context *ctx = to_octx(ibctx);
	struct orca_create_srq_cmd_resp resp = {};
	struct orca_create_xsrq_cmd cmd = {};
	struct ibv_srq_init_attr_ex a = {};
	enum ibv_srq_type type = IBV_SRQT_BASIC;
	struct orca_ring_geom want = {};
	struct orca_srq *srq;
	uint32_t need;
	int err;

	if (attr->comp_mask & ~(uint32_t)ORCA_SRQ_INIT_ATTR_KNOWN ||
	    attr->comp_mask & IBV_SRQ_INIT_ATTR_TM) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = attr->srq_type;
	switch (type) {
	case IBV_SRQT_BASIC:
		need = IBV_SRQ_INIT_ATTR_PD;
		break;
	case IBV_SRQT_XRC:
		need = ORCA_SRQ_INIT_ATTR_XRC;
		break;
	case IBV_SRQT_TM:
		errno = EOPNOTSUPP;
		return NULL;
	default:
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & need) != need || !attr->pd ||
	    attr->pd->context != ibctx ||
	    (type == IBV_SRQT_XRC &&
	     (!attr->xrcd || attr->xrcd->context != ibctx ||
	      !attr->cq || attr->cq->context != ibctx))) {
		errno = EINVAL;
		return NULL;
	}

	a.srq_context = attr->srq_context;
	a.attr = attr->attr;
	a.comp_mask = need | IBV_SRQ_INIT_ATTR_TYPE;
	a.srq_type = type;
	a.pd = attr->pd;
	if (type == IBV_SRQT_XRC) {
		a.xrcd = attr->xrcd;
		a.cq = attr->cq;
	}

	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	err = orca_srq_ubuf_alloc(ctx, srq, orca_parent_domain(ibctx, a.pd),
				  &a.attr, &want, &cmd.drv);
	if (err)
		goto err_free;

	err = ibv_cmd_create_srq_ex(ibctx, &srq->vsrq, &a, &cmd.ibv,
				    sizeof(cmd), &resp.ibv, sizeof(resp));
	if (err)
		goto err_ubuf;
	srq->srqn = resp.drv.srqn;
	srq->vsrq.srq.srq_context = attr->srq_context;
	srq->vsrq.srq.pd = attr->pd;
	srq->vsrq.srq_type = type;
	if (type == IBV_SRQT_XRC) {
		srq->vsrq.xrcd = to_vxrcd(attr->xrcd);
		srq->vsrq.cq = attr->cq;
		/*
		 * The number senders name it by is the kernel's (ib_core's
		 * srq_num, which orca.ko sets to the device SRQ number):
		 * it must be the udata's and fit a WQE's xrc_srqn.
		 */
		if (srq->vsrq.srq_num != srq->srqn ||
		    srq->srqn & ~ORCA_WQE_XRC_SRQN_MASK) {
			orca_err("srq: XRC srq_num %u, srqn %u in udata\n",
				 srq->vsrq.srq_num, srq->srqn);
			err = EPROTO;
			goto err_destroy;
		}
	}

	err = orca_srq_setup(ctx, srq, &a.attr, &resp.drv, &want);
	if (err)
		goto err_destroy;
	attr->attr.max_wr = a.attr.max_wr;
	attr->attr.max_sge = a.attr.max_sge;

	orca_srq_set_parent(srq, orca_parent_domain(ibctx, a.pd));
	return &srq->vsrq.srq;

err_destroy:
	/* The kernel may still hold the ring: then it is never freed. */
	if (orca_srq_undo_create(srq))
		goto err_free;
err_ubuf:
	orca_ubuf_free(&srq->ubuf);
err_free:
	free(srq);
	errno = err;
	return NULL;
}

/*
 * ibv_get_srq_num(3): the number XRC_SEND QPs put in their WRs
 * (remote_srqn, ibv_wr_set_xrc_srqn()) to reach this XRC SRQ.  A basic
 * SRQ has no use for one: EINVAL.
 */
int orca_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct orca_srq *srq = to_osrq(ibsrq);

	if (srq->vsrq.srq_type != IBV_SRQT_XRC)
		return EINVAL;
	*srq_num = srq->vsrq.srq_num;
	return 0;
}

/* No udata.  IBV_SRQ_LIMIT arms the limit event; IBV_SRQ_MAX_WR is refused. */
int orca_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int orca_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

/* The mapping and the ring buffer go once the kernel destroyed the SRQ. */
int orca_destroy_srq(struct ibv_srq *ibsrq)
{
	struct orca_srq *srq = to_osrq(ibsrq);
	int err;

	err = ibv_cmd_destroy_srq(ibsrq);
	if (err)
		return err;

	orca_wq_fini(&srq->wq);
	orca_qmap_unmap(&srq->map);
	orca_ubuf_free(&srq->ubuf);
	orca_parent_put(srq->parent);
	free(srq);
	return 0;
}
