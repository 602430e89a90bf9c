// SPDX-License-Identifier: GPL-2.0-only
/*
 * Custom allocators of a parent domain (ibv_alloc_parent_domain(3) with
 * IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS; userspace/liborca/orcadv.h):
 * liborca takes the rings of every CQ, QP and SRQ created through it from
 * the application, and the kernel pins them there.
 *
 * The allocator here counts its calls and hands out pages of the test's
 * own arena (one anonymous mapping), filled with garbage.  Checked: each
 * call's size (the rings as orca-abi.h sizes them, computed here
 * independently), alignment (the page size), resource type
 * (ORCADV_RES_TYPE_*), pd and pd_context; the buffers zeroed by liborca;
 * the rings really in the arena (a posted send, receive and SRQ receive
 * are WQEs there, CQEs appear there); the pinned pages in VmPin; RC
 * traffic, SEND both ways (an RQ and an SRQ) and RDMA WRITE, checked
 * byte for byte through several wraps of every ring; a CQ resized onto a
 * new buffer, the old one freed; free() exactly once per buffer, with
 * the pointer and type alloc() gave, and only after the object is
 * destroyed.  Then the other answers: IBV_ALLOCATOR_USE_DEFAULT (the
 * kernel's rings, traffic with a queue on the arena), NULL (ENOMEM,
 * nothing leaked), a misaligned pointer (EINVAL, given back), read-only
 * memory (the kernel cannot pin it: EFAULT, given back).  In a child
 * without CAP_IPC_LOCK and with a small RLIMIT_MEMLOCK, a ring beyond
 * the limit fails with ENOMEM.  Prints TAP.  Usage: dp_alloc DEVICE
 */
#include <endian.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "dp_common.h"
#include <rdma/orca-abi.h>
#include "../../../userspace/liborca/orcadv.h"

#define ARENA_PAGES	256
#define MAX_RECS	64
#define MSG_MAX		4000

/* How the allocator answers its next calls. */
enum al_mode { AL_ARENA, AL_DEFAULT, AL_NULL, AL_MISALIGNED, AL_RDONLY };

/* One buffer alloc() handed out. */
struct al_rec {
	char *ptr;
	size_t size;
	uint64_t type;
	int frees;		/* free() calls that gave it back */
	bool in_arena;
	bool mapped;		/* a read-only mapping of its own */
	void *base;		/* the misaligned one's allocation */
};

static long page;
static struct ibv_pd *pdom;
static int pd_cookie;		/* the parent domain's pd_context */

static struct {
	char *base;
	int owner[ARENA_PAGES];	/* 1 + the record using the page, or 0 */
} arena;

static struct {
	enum al_mode mode;
	unsigned int calls, frees;
	unsigned int bad_args;	/* calls with another pd or pd_context */
	unsigned int bad_frees;	/* unknown pointer, wrong type, twice */
	size_t size, align;	/* of the last alloc() */
	uint64_t type;
	char *ptr;		/* what it returned */
	struct al_rec rec[MAX_RECS];
	int nrec;
} al;

static int arena_used(void)
{
	int i, n = 0;

	for (i = 0; i < ARENA_PAGES; i++)
		n += !!arena.owner[i];
	return n;
}

/* First fit of @n pages; the index of the first, or -1. */
static int arena_take(int n, int owner)
{
	int i, j;

	for (i = 0; i + n <= ARENA_PAGES; i++) {
		for (j = 0; j < n && !arena.owner[i + j]; j++)
			;
		if (j == n) {
			for (j = 0; j < n; j++)
				arena.owner[i + j] = owner;
			return i;
		}
	}
	return -1;
}

static void *al_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
		      size_t alignment, uint64_t type)
{
	struct al_rec *r;
	int first;

	al.calls++;
	al.size = size;
	al.align = alignment;
	al.type = type;
	al.ptr = NULL;
	if (pd != pdom || pd_context != &pd_cookie)
		al.bad_args++;
	if (al.mode == AL_DEFAULT)
		return IBV_ALLOCATOR_USE_DEFAULT;
	if (al.mode == AL_NULL || al.nrec == MAX_RECS)
		return NULL;

	r = &al.rec[al.nrec];
	memset(r, 0, sizeof(*r));
	r->size = size;
	r->type = type;
	switch (al.mode) {
	case AL_RDONLY:
		r->ptr = mmap(NULL, size, PROT_READ,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (r->ptr == MAP_FAILED)
			return NULL;
		r->mapped = true;
		break;
	case AL_MISALIGNED:
		if (posix_memalign(&r->base, page, size + page))
			return NULL;
		r->ptr = (char *)r->base + 64;
		break;
	default:
		first = size % page ? -1 :
			arena_take(size / page, al.nrec + 1);
		if (first < 0)
			return NULL;
		r->ptr = arena.base + (size_t)first * page;
		r->in_arena = true;
		/* Garbage: liborca must clear it. */
		memset(r->ptr, 0xa5, size);
		break;
	}
	al.nrec++;
	return al.ptr = r->ptr;
}

static void al_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		    uint64_t type)
{
	struct al_rec *r = NULL;
	int i;

	al.frees++;
	if (pd != pdom || pd_context != &pd_cookie)
		al.bad_args++;
	/* The arena's pages are handed out again: the latest such record. */
	for (i = al.nrec - 1; i >= 0; i--) {
		if (al.rec[i].ptr == ptr) {
			r = &al.rec[i];
			break;
		}
	}
	if (!r || r->type != type || r->frees++) {
		diag("free(%p, type 0x%llx): %s", ptr, (unsigned long long)type,
		     !r ? "never handed out" : r->type != type ?
		     "another type" : "freed again");
		al.bad_frees++;
		return;
	}
	if (r->in_arena) {
		for (i = 0; i < ARENA_PAGES; i++)
			if (arena.owner[i] == (int)(r - al.rec) + 1)
				arena.owner[i] = 0;
	} else if (r->mapped) {
		munmap(r->ptr, r->size);
	} else {
		free(r->base);
	}
}

/* The record of the last buffer handed out, or NULL if none was. */
static struct al_rec *al_last(void)
{
	return al.ptr && al.nrec ? &al.rec[al.nrec - 1] : NULL;
}

/* ---- ring sizes, as orca-abi.h gives them -------------------------------- */

static uint64_t pow2(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static size_t page_up(uint64_t v)
{
	return (v + page - 1) / page * page;
}

static size_t cq_bytes(uint32_t cqe, uint32_t entry)
{
	return page_up(pow2(cqe < 2 ? 2 : cqe) * entry);
}

static uint64_t wq_stride(uint32_t hdr, uint32_t sge, uint32_t inl,
			  uint32_t min)
{
	uint64_t s = hdr + 16ULL * sge;

	if (hdr + (uint64_t)inl > s)
		s = hdr + (uint64_t)inl;
	return pow2(s < min ? min : s);
}

static size_t wq_bytes(uint32_t wr, uint64_t stride)
{
	return page_up(pow2(wr ? wr : 1) * stride);
}

/* ---- checks --------------------------------------------------------------- */

/*
 * The last alloc() was one call after @calls, for @size bytes of @type
 * at page alignment, answered from the arena with a buffer that liborca
 * cleared: all zero for a new queue, in which nothing was written yet.
 * A CQ's new ring after a resize has the owner words the device wrote
 * (every slot the consumer will meet before the device writes it again
 * must look not valid): there, no byte of the allocator's 0xa5 fill may
 * remain (@written).
 */
static bool al_gave_ring(unsigned int calls, size_t size, uint64_t type,
			 bool written, const char *what)
{
	struct al_rec *r = al_last();
	size_t i, nz = 0;

	if (al.calls != calls + 1 || al.size != size ||
	    al.align != (size_t)page || al.type != type || al.bad_args ||
	    !r || !r->in_arena) {
		diag("%s: %u calls (want %u), size %zu (want %zu), alignment %zu, type 0x%llx (want 0x%llx), bad args %u",
		     what, al.calls, calls + 1, al.size, size, al.align,
		     (unsigned long long)al.type, (unsigned long long)type,
		     al.bad_args);
		return false;
	}
	for (i = 0; i < r->size; i++)
		nz += written ? (unsigned char)r->ptr[i] == 0xa5 : r->ptr[i] != 0;
	if (nz)
		diag("%s: %zu bytes of the buffer not cleared", what, nz);
	return !nz;
}

static bool al_gave(unsigned int calls, size_t size, uint64_t type,
		    const char *what)
{
	return al_gave_ring(calls, size, type, false, what);
}

/* VmPin of this process, in kB, or -1. */
static long vm_pin_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* ---- objects through the parent domain ------------------------------------ */

static struct ibv_cq *mk_cq(uint32_t cqe)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = cqe, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD, .parent_domain = pdom,
	};
	struct ibv_cq_ex *cqx = ibv_create_cq_ex(dp.ctx, &a);

	return cqx ? ibv_cq_ex_to_cq(cqx) : NULL;
}

/* An RC QP of @wr WRs of one SGE each way (none received with @srq). */
static struct ibv_qp *mk_qp(struct ibv_cq *scq, struct ibv_cq *rcq,
			    struct ibv_srq *srq, uint32_t wr)
{
	struct ibv_qp_init_attr a = {
		.send_cq = scq, .recv_cq = rcq, .srq = srq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = wr, .max_recv_wr = srq ? 0 : wr,
			 .max_send_sge = 1, .max_recv_sge = srq ? 0 : 1 },
	};

	return ibv_create_qp(pdom, &a);
}

static struct ibv_srq *mk_srq(uint32_t wr)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = wr, .max_sge = 1 } };

	return ibv_create_srq(pdom, &a);
}

/* Objects whose rings came from the arena: the buffer of each. */
struct ring_obj {
	const char *what;
	char *buf;
	size_t size;
	uint64_t type;
};

/* free() calls of the latest buffer handed out at @buf; -1: none was. */
static int rec_frees(const char *buf)
{
	int i;

	for (i = al.nrec - 1; i >= 0; i--)
		if (al.rec[i].ptr == buf)
			return al.rec[i].frees;
	return -1;
}

/* ---- traffic --------------------------------------------------------------- */

static struct dp_buf sbuf, rbuf;

/* One end of a pair: its QP and CQs; receives on its RQ or @srq. */
struct side {
	struct dp_end e;
	struct ibv_srq *srq;
};

/*
 * @n SENDs from @a to @b, each of a size of its own, into a receive
 * posted just before; every payload checked.  The number that arrived
 * intact.
 */
static int sends(struct side *a, struct side *b, int n, uint32_t seed)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge s, r;
	struct ibv_wc wc;
	int i, good = 0;
	uint32_t len;

	for (i = 0; i < n; i++) {
		len = 1 + (seed * 7919U + i * 977U) % MSG_MAX;
		dp_fill(sbuf.p, len, seed + i);
		memset(rbuf.p, DP_POISON, len + 1);
		s = (struct ibv_sge){ (uintptr_t)sbuf.p, len, sbuf.mr->lkey };
		r = (struct ibv_sge){ (uintptr_t)rbuf.p, MSG_MAX, rbuf.mr->lkey };
		wr = (struct ibv_send_wr){
			.wr_id = 0x100000 + i, .sg_list = &s, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		};
		if ((b->srq ? dp_post_srq_recv(b->srq, 0x200000 + i, &r, 1) :
			      dp_post_recv(b->e.qp, 0x200000 + i, &r, 1)) ||
		    ibv_post_send(a->e.qp, &wr, &bad))
			break;
		if (!dp_poll1(a->e.scq, &wc, "send") || wc.status ||
		    wc.wr_id != 0x100000U + i ||
		    !dp_poll1(b->e.rcq, &wc, "receive") || wc.status ||
		    wc.wr_id != 0x200000U + i || wc.byte_len != len) {
			dp_wc_diag("sends", &wc);
			break;
		}
		if (!dp_cmp(rbuf.p, sbuf.p, len, "send payload") ||
		    rbuf.p[len] != DP_POISON)
			break;
		good++;
	}
	return good;
}

/* @n RDMA WRITEs from @a into rbuf, each checked. */
static int writes(struct side *a, int n, uint32_t seed)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge s;
	struct ibv_wc wc;
	int i, good = 0;
	uint32_t len;

	for (i = 0; i < n; i++) {
		len = 1 + (seed * 104729U + i * 613U) % MSG_MAX;
		dp_fill(sbuf.p, len, seed + i);
		memset(rbuf.p, DP_POISON, len + 1);
		s = (struct ibv_sge){ (uintptr_t)sbuf.p, len, sbuf.mr->lkey };
		wr = (struct ibv_send_wr){
			.wr_id = 0x300000 + i, .sg_list = &s, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
		};
		wr.wr.rdma.remote_addr = (uintptr_t)rbuf.p;
		wr.wr.rdma.rkey = rbuf.mr->rkey;
		if (ibv_post_send(a->e.qp, &wr, &bad) ||
		    !dp_poll1(a->e.scq, &wc, "write") || wc.status ||
		    !dp_cmp(rbuf.p, sbuf.p, len, "write payload") ||
		    rbuf.p[len] != DP_POISON)
			break;
		good++;
	}
	return good;
}

static int connect_pair(struct side *a, struct side *b)
{
	struct dp_qp_cfg cfg;

	dp_cfg_default(&cfg, IBV_QPT_RC);
	return dp_end_connect(&a->e, &cfg, b->e.qp->qp_num, IBV_QPS_RTS) ||
	       dp_end_connect(&b->e, &cfg, a->e.qp->qp_num, IBV_QPS_RTS);
}

/* ---- the main pair, all on the arena ---------------------------------------- */

#define PAIR_WR		16	/* each QP's send and receive WRs */
#define PAIR_CQE	16
#define SRQ_WR		32
/* WQE strides of the pair's queues: one SGE, no inline data. */
#define SEND_STRIDE	wq_stride(ORCA_SEND_WQE_HDR_SIZE, 1, 0, 128)
#define RECV_STRIDE	wq_stride(ORCA_RECV_WQE_HDR_SIZE, 1, 0, 32)

static struct side A, B;
static struct ring_obj objs[8];
static int nobjs;

/* Creates one object, checks its allocation, notes its buffer. */
#define MAKE(lhs, expr, size_, type_, what_)				\
	do {								\
		unsigned int calls_ = al.calls;				\
		lhs = (expr);						\
		ok(lhs && al_gave(calls_, size_, type_, what_),		\
		   "%s: alloc(parent domain, pd_context, %zu bytes, alignment %ld, %s) from the arena, the buffer zeroed", \
		   what_, (size_t)(size_), page, #type_);		\
		if (lhs && al_last())					\
			objs[nobjs++] = (struct ring_obj){		\
				what_, al.ptr, size_, type_ };		\
	} while (0)

static bool make_pair(void)
{
	size_t cqsz = cq_bytes(PAIR_CQE, ORCA_CQE_SIZE);
	size_t sq = wq_bytes(PAIR_WR, SEND_STRIDE);
	size_t rq = wq_bytes(PAIR_WR, RECV_STRIDE);
	size_t srq = wq_bytes(SRQ_WR, RECV_STRIDE);
	long pin0, pin1;

	MAKE(A.e.scq, mk_cq(PAIR_CQE), cqsz, ORCADV_RES_TYPE_CQ, "CQ a.send");
	MAKE(A.e.rcq, mk_cq(PAIR_CQE), cqsz, ORCADV_RES_TYPE_CQ, "CQ a.recv");
	MAKE(B.e.scq, mk_cq(PAIR_CQE), cqsz, ORCADV_RES_TYPE_CQ, "CQ b.send");
	MAKE(B.e.rcq, mk_cq(PAIR_CQE), cqsz, ORCADV_RES_TYPE_CQ, "CQ b.recv");
	if (!A.e.scq || !A.e.rcq || !B.e.scq || !B.e.rcq)
		return false;
	pin0 = vm_pin_kb();
	MAKE(B.srq, mk_srq(SRQ_WR), srq, ORCADV_RES_TYPE_SRQ, "SRQ");
	pin1 = vm_pin_kb();
	ok(pin0 >= 0 && pin1 - pin0 == (long)srq / 1024,
	   "the SRQ's ring is pinned: VmPin %ld -> %ld kB (+%zu)", pin0, pin1,
	   srq / 1024);
	MAKE(A.e.qp, mk_qp(A.e.scq, A.e.rcq, NULL, PAIR_WR), sq + rq,
	     ORCADV_RES_TYPE_QP, "QP a (send ring, receive ring)");
	MAKE(B.e.qp, mk_qp(B.e.scq, B.e.rcq, B.srq, PAIR_WR), sq,
	     ORCADV_RES_TYPE_QP, "QP b (send ring; receives on the SRQ)");
	if (!B.srq || !A.e.qp || !B.e.qp)
		return false;
	return ok(!connect_pair(&A, &B), "RC pair a <-> b connected (RTS)");
}

static struct ring_obj *obj_of(const char *what)
{
	int i;

	for (i = 0; i < nobjs; i++)
		if (!strcmp(objs[i].what, what))
			return &objs[i];
	return NULL;
}

static const struct orca_cqe *cqe_at(const char *buf, uint32_t i)
{
	return (const struct orca_cqe *)(buf + (size_t)i * ORCA_CQE_SIZE);
}

/*
 * The first WQEs and CQEs, looked at in the arena: the send ring of QP
 * a, the SRQ ring and the first entries of the two CQs.
 */
static void test_rings_in_arena(void)
{
	struct ring_obj *qa = obj_of("QP a (send ring, receive ring)");
	struct ring_obj *srq = obj_of("SRQ");
	struct ring_obj *acq = obj_of("CQ a.send");
	struct ring_obj *bcq = obj_of("CQ b.recv");
	struct ring_obj *arq = qa;
	size_t sq = wq_bytes(PAIR_WR, SEND_STRIDE);
	struct ibv_sge s = { (uintptr_t)sbuf.p, 64, sbuf.mr->lkey };
	struct ibv_sge r = { (uintptr_t)rbuf.p, MSG_MAX, rbuf.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 0xa110c, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	const struct orca_send_wqe *swqe;
	const struct orca_recv_wqe *rwqe;
	struct ibv_wc wc;

	if (!qa || !srq || !acq || !bcq) {
		ok(0, "the objects of the pair are in the arena");
		return;
	}
	swqe = (const void *)qa->buf;
	rwqe = (const void *)srq->buf;
	ok(!dp_post_srq_recv(B.srq, 0x5eed, &r, 1) &&
	   le64toh(rwqe->wr_id) == 0x5eed && le32toh(rwqe->num_sge) == 1,
	   "a receive posted to the SRQ is a WQE in its arena buffer (wr_id 0x5eed, 1 SGE)");
	dp_fill(sbuf.p, 64, 1);
	ok(!ibv_post_send(A.e.qp, &wr, &bad) &&
	   le64toh(swqe->wr_id) == 0xa110c,
	   "a posted send is a WQE in QP a's arena buffer (wr_id 0xa110c)");
	ok(dp_poll1(A.e.scq, &wc, "first send") && !wc.status &&
	   dp_poll1(B.e.rcq, &wc, "first receive") && !wc.status &&
	   le64toh(cqe_at(acq->buf, 0)->wr_id) == 0xa110c &&
	   le32toh(cqe_at(acq->buf, 0)->status_owner) & ORCA_CQE_OWNER &&
	   le64toh(cqe_at(bcq->buf, 0)->wr_id) == 0x5eed &&
	   le32toh(cqe_at(bcq->buf, 0)->status_owner) & ORCA_CQE_OWNER,
	   "the device wrote the two CQEs in the CQs' arena buffers (owner bit set); both polled");
	/* Taken by the first SEND b -> a (test_traffic()). */
	ok(dp_post_recv(A.e.qp, 0x7ec, &r, 1) == 0 &&
	   le64toh(((const struct orca_recv_wqe *)(arq->buf + sq))->wr_id) == 0x7ec,
	   "a receive posted to QP a is a WQE in its buffer, after the send ring (offset %zu)",
	   sq);
}

/*
 * SENDs a -> b (SRQ), b -> a (RQ: its first receive is posted already),
 * WRITEs a -> b: several wraps of every ring.
 */
static void test_traffic(void)
{
	struct ibv_sge s = { (uintptr_t)sbuf.p, 100, sbuf.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 0xb0, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;
	int n;

	/* The receive posted to QP a above takes this one. */
	dp_fill(sbuf.p, 100, 77);
	ok(!ibv_post_send(B.e.qp, &wr, &bad) &&
	   dp_poll1(B.e.scq, &wc, "b send") && !wc.status &&
	   dp_poll1(A.e.rcq, &wc, "a receive") && !wc.status &&
	   wc.wr_id == 0x7ec && wc.byte_len == 100 &&
	   dp_cmp(rbuf.p, sbuf.p, 100, "b -> a payload"),
	   "b -> a SEND into the receive queue of QP a: data matches");

	n = sends(&A, &B, 5 * SRQ_WR + 3, 11);
	ok(n == 5 * SRQ_WR + 3,
	   "%d of %d SENDs a -> b (1..%d bytes) through the SRQ: data matches (SQ, SRQ, CQ rings wrap %d, %d, %d times)",
	   n, 5 * SRQ_WR + 3, MSG_MAX, (5 * SRQ_WR + 3) / PAIR_WR,
	   (5 * SRQ_WR + 3) / SRQ_WR, (5 * SRQ_WR + 3) / PAIR_CQE);
	n = sends(&B, &A, 3 * PAIR_WR + 5, 22);
	ok(n == 3 * PAIR_WR + 5,
	   "%d of %d SENDs b -> a through QP a's receive queue: data matches",
	   n, 3 * PAIR_WR + 5);
	n = writes(&A, 2 * PAIR_WR + 1, 33);
	ok(n == 2 * PAIR_WR + 1, "%d of %d RDMA WRITEs a -> b: data matches",
	   n, 2 * PAIR_WR + 1);
}

/* A CQ resized onto a new buffer; the old one given back. */
static void test_resize(void)
{
	struct ring_obj *o = obj_of("CQ a.send");
	unsigned int calls = al.calls;
	char *old = o ? o->buf : NULL;
	size_t want = cq_bytes(200, ORCA_CQE_SIZE);
	struct al_rec *r;
	bool found = false;
	uint32_t i;
	int ret, n;

	ret = ibv_resize_cq(A.e.scq, 200);
	r = al_last();
	ok(!ret && o &&
	   al_gave_ring(calls, want, ORCADV_RES_TYPE_CQ, true, "resize") &&
	   r && r->ptr != old && A.e.scq->cqe >= 200,
	   "ibv_resize_cq(200): a new ring of %zu bytes from the arena, ORCADV_RES_TYPE_CQ, cleared (ret %d, cqe %d)",
	   want, ret, A.e.scq ? A.e.scq->cqe : -1);
	ok(!ret && rec_frees(old) == 1 && !al.bad_frees,
	   "the old ring was freed once, with its pointer and type, when the resize succeeded");
	if (ret || !o || !r)
		return;
	o->buf = r->ptr;
	o->size = want;

	n = sends(&A, &B, 2 * SRQ_WR, 44);
	ok(n == 2 * SRQ_WR,
	   "%d of %d SENDs a -> b after the resize: data matches", n, 2 * SRQ_WR);
	for (i = 0; i < want / ORCA_CQE_SIZE && !found; i++)
		found = (le64toh(cqe_at(o->buf, i)->wr_id) & ~0xffffULL) ==
			0x100000;
	ok(found, "their send completions are in the new ring's arena buffer");
}

/* Destroys, each buffer freed once, after its object. */
static void test_destroy(void)
{
	enum { QP, SRQ, CQ };
	const struct {
		const char *what;
		int kind;
		void *obj;
	} order[] = {
		{ "QP a (send ring, receive ring)", QP, A.e.qp },
		{ "QP b (send ring; receives on the SRQ)", QP, B.e.qp },
		{ "SRQ", SRQ, B.srq },
		{ "CQ a.send", CQ, A.e.scq },
		{ "CQ a.recv", CQ, A.e.rcq },
		{ "CQ b.send", CQ, B.e.scq },
		{ "CQ b.recv", CQ, B.e.rcq },
	};
	struct ring_obj *o;
	unsigned int i;
	long pin0, pin1;
	int before, ret;

	ok(ibv_dealloc_pd(pdom) == EBUSY,
	   "the parent domain is EBUSY while its queues exist");
	for (i = 0; i < DP_ARRAY_SIZE(order); i++) {
		o = obj_of(order[i].what);
		if (!o || !order[i].obj) {
			ok(0, "%s: not there to destroy", order[i].what);
			continue;
		}
		before = rec_frees(o->buf);
		pin0 = vm_pin_kb();
		ret = order[i].kind == QP ? ibv_destroy_qp(order[i].obj) :
		      order[i].kind == SRQ ? ibv_destroy_srq(order[i].obj) :
		      ibv_destroy_cq(order[i].obj);
		pin1 = vm_pin_kb();
		ok(!ret && before == 0 && rec_frees(o->buf) == 1 &&
		   !al.bad_frees && pin0 - pin1 == (long)o->size / 1024,
		   "%s destroyed: its %zu-byte buffer freed once (none before), with its pointer and type; VmPin %ld -> %ld kB",
		   order[i].what, o->size, pin0, pin1);
	}
	memset(&A, 0, sizeof(A));
	memset(&B, 0, sizeof(B));
}

/* IBV_ALLOCATOR_USE_DEFAULT: the kernel's rings, next to the arena's. */
static void test_default(void)
{
	unsigned int calls = al.calls, frees = al.frees;
	int used = arena_used(), n;
	struct side C = {}, D = {};

	al.mode = AL_DEFAULT;
	C.e.scq = mk_cq(PAIR_CQE);
	C.e.rcq = mk_cq(PAIR_CQE);
	C.e.qp = C.e.scq && C.e.rcq ?
		 mk_qp(C.e.scq, C.e.rcq, NULL, PAIR_WR) : NULL;
	C.srq = mk_srq(SRQ_WR);
	ok(C.e.qp && C.srq && al.calls == calls + 4 && al.type ==
	   ORCADV_RES_TYPE_SRQ && arena_used() == used && !al.bad_args,
	   "IBV_ALLOCATOR_USE_DEFAULT for two CQs, a QP and an SRQ: all created, on the kernel's rings (nothing from the arena)");
	if (C.srq)
		ibv_destroy_srq(C.srq);
	C.srq = NULL;

	al.mode = AL_ARENA;
	D.e.scq = mk_cq(PAIR_CQE);
	D.e.rcq = mk_cq(PAIR_CQE);
	D.e.qp = D.e.scq && D.e.rcq ?
		 mk_qp(D.e.scq, D.e.rcq, NULL, PAIR_WR) : NULL;
	if (ok(C.e.qp && D.e.qp && !connect_pair(&C, &D),
	       "a pair of a QP on the kernel's rings and one on the arena's")) {
		n = sends(&C, &D, 2 * PAIR_WR + 1, 55);
		n += sends(&D, &C, 2 * PAIR_WR + 1, 66);
		ok(n == 4 * PAIR_WR + 2, "%d of %d SENDs both ways: data matches",
		   n, 4 * PAIR_WR + 2);
	}
	dp_end_destroy(&C.e);
	dp_end_destroy(&D.e);
	ok(al.frees == frees + 3 && !al.bad_frees && arena_used() == used,
	   "destroyed: the three arena buffers freed, nothing for the default rings");
}

/* NULL, a misaligned pointer, read-only memory. */
static void test_refusals(void)
{
	unsigned int calls, frees = al.frees;
	int used = arena_used();
	struct ibv_cq *cq;
	struct al_rec *r;
	void *obj;

	cq = mk_cq(PAIR_CQE);
	if (!ok(cq != NULL, "a CQ for the QPs below"))
		return;
	frees = al.frees;
	used = arena_used();

	al.mode = AL_NULL;
	calls = al.calls;
	errno = 0;
	obj = mk_cq(PAIR_CQE);
	ok(!obj && errno == ENOMEM && al.calls == calls + 1 &&
	   al.type == ORCADV_RES_TYPE_CQ,
	   "alloc() returns NULL for a CQ: ENOMEM (errno %d)", errno);
	errno = 0;
	obj = mk_qp(cq, cq, NULL, PAIR_WR);
	ok(!obj && errno == ENOMEM && al.calls == calls + 2 &&
	   al.type == ORCADV_RES_TYPE_QP,
	   "alloc() returns NULL for a QP: ENOMEM (errno %d)", errno);
	errno = 0;
	obj = mk_srq(SRQ_WR);
	ok(!obj && errno == ENOMEM && al.calls == calls + 3 &&
	   al.type == ORCADV_RES_TYPE_SRQ && al.frees == frees &&
	   arena_used() == used,
	   "alloc() returns NULL for an SRQ: ENOMEM (errno %d); nothing to free", errno);

	al.mode = AL_MISALIGNED;
	errno = 0;
	obj = mk_qp(cq, cq, NULL, PAIR_WR);
	r = al_last();
	ok(!obj && errno == EINVAL && r && (uintptr_t)r->ptr % page == 64 &&
	   r->frees == 1 && !al.bad_frees,
	   "a buffer 64 bytes past a page boundary for a QP: EINVAL, given back to free() (errno %d)",
	   errno);

	al.mode = AL_RDONLY;
	errno = 0;
	obj = mk_cq(PAIR_CQE);
	r = al_last();
	ok(!obj && errno == EFAULT && r && r->frees == 1 && !al.bad_frees,
	   "read-only memory for a CQ: the kernel cannot pin it writable, EFAULT; freed (errno %d)",
	   errno);
	errno = 0;
	obj = mk_qp(cq, cq, NULL, PAIR_WR);
	r = al_last();
	ok(!obj && errno == EFAULT && r && r->frees == 1 && !al.bad_frees,
	   "read-only memory for a QP: EFAULT; freed (errno %d)", errno);
	errno = 0;
	obj = mk_srq(SRQ_WR);
	r = al_last();
	ok(!obj && errno == EFAULT && r && r->frees == 1 && !al.bad_frees,
	   "read-only memory for an SRQ: EFAULT; freed (errno %d)", errno);
	al.mode = AL_ARENA;
	ok(!ibv_destroy_cq(cq), "destroy that CQ");
}

/* ---- RLIMIT_MEMLOCK, in a child without CAP_IPC_LOCK ---------------------- */

static void *heap_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
			size_t alignment, uint64_t type)
{
	void *p;

	(void)pd, (void)type;
	++*(int *)pd_context;
	return posix_memalign(&p, alignment, size) ? NULL : p;
}

static void heap_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		      uint64_t type)
{
	(void)pd, (void)type;
	--*(int *)pd_context;
	free(ptr);
}

/*
 * Exit status: 0 if a CQ of 1024 entries (8 pages) fails with ENOMEM
 * under an RLIMIT_MEMLOCK of 4 pages, its buffer freed, and one of 16
 * entries (1 page) works; 10 + a step number otherwise.
 */
static int memlock_child(const char *dev)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	struct rlimit rl = { 4 * page, 4 * page };
	struct ibv_parent_domain_init_attr pa = {
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = heap_alloc, .free = heap_free,
	};
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 1024, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
	};
	struct ibv_context *ctx;
	struct ibv_cq_ex *cqx;
	struct ibv_pd *pd, *p;
	int live = 0;

	if (syscall(SYS_capget, &h, d))
		return 11;
	d[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
	if (syscall(SYS_capset, &h, d) || setrlimit(RLIMIT_MEMLOCK, &rl))
		return 12;
	ctx = open_by_name(dev);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	if (!pd)
		return 13;
	pa.pd = pd;
	pa.pd_context = &live;
	p = ibv_alloc_parent_domain(ctx, &pa);
	if (!p)
		return 14;
	ca.parent_domain = p;
	errno = 0;
	cqx = ibv_create_cq_ex(ctx, &ca);
	if (cqx || errno != ENOMEM)
		return 15;
	if (live)
		return 16;
	ca.cqe = 16;
	cqx = ibv_create_cq_ex(ctx, &ca);
	if (!cqx || live != 1)
		return 17;
	if (ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)) || live)
		return 18;
	if (ibv_dealloc_pd(p) || ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		return 19;
	return 0;
}

static void test_memlock(const char *dev)
{
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(memlock_child(dev));
	if (pid > 0)
		waitpid(pid, &status, 0);
	ok(pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status),
	   "without CAP_IPC_LOCK and with RLIMIT_MEMLOCK 4 pages: a CQ ring of 8 pages fails with ENOMEM (and is freed), one of a page works (child status 0x%x)",
	   status);
}

int main(int argc, char **argv)
{
	struct ibv_parent_domain_init_attr pa = {
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = al_alloc, .free = al_free, .pd_context = &pd_cookie,
	};
	bool made;

	page = sysconf(_SC_PAGESIZE);
	/* Before this process opens anything. */
	if (argc > 1)
		test_memlock(argv[1]);
	dp_open(argc, argv);

	arena.base = mmap(NULL, ARENA_PAGES * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ok(arena.base != MAP_FAILED, "an arena of %d pages", ARENA_PAGES))
		return dp_close();
	pa.pd = dp.pd;
	pdom = ibv_alloc_parent_domain(dp.ctx, &pa);
	if (!ok(pdom != NULL && !al.calls,
		"ibv_alloc_parent_domain with ALLOCATORS and PD_CONTEXT (nothing allocated yet)")) {
		diag("ibv_alloc_parent_domain: %s", strerror(errno));
		return dp_close();
	}
	if (!ok(!dp_buf_alloc(&sbuf, dp.pd, MSG_MAX + 64, DP_ACC_ALL) &&
		!dp_buf_alloc(&rbuf, dp.pd, MSG_MAX + 64, DP_ACC_ALL),
		"register a send and a receive buffer"))
		goto out;

	made = make_pair();
	if (made) {
		test_rings_in_arena();
		test_traffic();
		test_resize();
	}
	test_destroy();
	test_default();
	test_refusals();

	ok(!arena_used() && al.frees == (unsigned int)al.nrec && !al.bad_frees &&
	   !al.bad_args,
	   "every buffer handed out (%d) was freed exactly once with its pointer and type; the arena is empty",
	   al.nrec);
out:
	dp_buf_free(&sbuf);
	dp_buf_free(&rbuf);
	ok(!ibv_dealloc_pd(pdom), "ibv_dealloc_pd of the parent domain");
	munmap(arena.base, ARENA_PAGES * page);
	return dp_close();
}
