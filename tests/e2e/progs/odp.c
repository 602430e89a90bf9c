// SPDX-License-Identifier: GPL-2.0-only
/*
 * On-demand paging (interface 1.5; IBV_ACCESS_ON_DEMAND in ibv_reg_mr(3),
 * ibv_advise_mr(3)) between QPs of one device, where every access of a
 * request is the requester's (its QP waits while a page is missing):
 *
 *   - ibv_query_device_ex's odp_caps: ODP_SUPPORT and
 *     ODP_SUPPORT_IMPLICIT, and per transport what the driver reports
 *     (ODP_* below: the one place those values are written down);
 *   - registration on memory never touched (none of it made resident),
 *     on a range reserved PROT_NONE, with an iova other than the
 *     address; rights refused as for any region;
 *     ibv_rereg_mr to another mapping, to pinned and back to on demand;
 *   - SEND into a receive, RDMA WRITE and RDMA READ of a page, of 64 KiB
 *     and of 1 MiB at unaligned starts, FETCH_ADD and CMP_SWP, a receive
 *     from an SRQ, XRC, a UD SEND, gather and scatter lists mixing on-demand
 *     and pinned regions: each source written by the CPU, each sink never
 *     touched; every byte checked, the bytes around unchanged, the pages
 *     the device wrote resident afterwards;
 *   - invalidations: after MADV_DONTNEED a READ returns zeroes, or what
 *     the CPU wrote since, and a WRITE lands in the new pages (the CPU
 *     reads it); pages replaced by mmap(MAP_FIXED) are read anew;
 *     after mprotect(PROT_READ) a WRITE is REM_ACCESS_ERR and changes
 *     nothing, after mprotect(PROT_READ | PROT_WRITE) it lands;
 *   - munmap() of 4 pages in the middle of a region: a SEND, WRITE or
 *     READ whose range covers them completes with LOC_PROT_ERR (a local
 *     SGE) or REM_ACCESS_ERR (the remote range) instead of waiting,
 *     nothing outside the request changed; the pages around the hole
 *     still work and other QPs never noticed;
 *   - read-only memory (PROT_READ): without write rights a SEND source
 *     and a READ source; with REMOTE_WRITE (registration does not look
 *     at the mapping's rights) a WRITE into it is REM_ACCESS_ERR;
 *   - ibv_advise_mr: PREFETCH, PREFETCH_WRITE and PREFETCH_NO_FAULT with
 *     IBV_ADVISE_MR_FLAG_FLUSH (pages made resident, none for NO_FAULT)
 *     and over several SGEs; refused for a region that is not on demand,
 *     an lkey naming no region, a range outside the region (EFAULT),
 *     PREFETCH_WRITE without write rights (EPERM), unknown flags (EINVAL)
 *     or advice (EOPNOTSUPP), a region of another PD;
 *   - fork() after a region was used, the child writing its copy: the
 *     parent's READ and WRITE reach the parent's pages only, the child's
 *     copy never sees what the device wrote;
 *   - implicit ODP (interface 1.6: address NULL, length SIZE_MAX; EINVAL
 *     at an iova other than 0): WRITE, READ, SEND and FETCH_ADD through
 *     its keys on memory mapped after the registration and on .bss, an
 *     access across two of the driver's 64 MiB chunks, MADV_DONTNEED,
 *     ibv_advise_mr, addresses unmapped since (EFAULT, REM_ACCESS_ERR)
 *     or beyond user space (LOC_PROT_ERR), ibv_rereg_mr of its rights;
 *   - everything destroyed at the end (the .t checks the counts).
 *
 * "odp DEVICE pressure anon MIB" and "odp DEVICE pressure file MIB PATH"
 * instead run transfer loops over a region of MIB MiB while its pages
 * are taken away (see pressure_main).
 *
 * A failed request takes its QPs to error: a new pair follows.  While the
 * hole of the munmap() test exists, nothing is mapped (all its QPs are
 * made before), so that no new mapping can land in the hole.
 *
 * Prints TAP.  Usage: odp DEVICE
 *                     odp DEVICE pressure anon MIB
 *                     odp DEVICE pressure file MIB PATH
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e_tap.h"
#include "dp_common.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT		21
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif

/*
 * What the driver reports in odp_caps, written down here only: on
 * demand regions, implicit ones too; RC (and XRC) every operation and
 * SRQ receives; UD sends (a UD packet that faults at the responder is
 * dropped, so receives are not claimed); UC nothing.
 */
#define ODP_GENERAL	(IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT)
#define ODP_RC		(IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | \
			 IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ | \
			 IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV)
#define ODP_UD		IBV_ODP_SUPPORT_SEND
#define ODP_UC		0
#define ODP_XRC		ODP_RC

#define PG		4096UL
#define ACC_ODP		(DP_ACC_ALL | IBV_ACCESS_ON_DEMAND)
#define ADD		0x0000000100000001ULL
#define SWAP		0x0123456789abcdefULL
#define VA(p)		((uint64_t)(uintptr_t)(p))
/* The pages [off, off + len) of a page-aligned buffer touches. */
#define NPAGES(off, len) (((off) + (len) + PG - 1) / PG - (off) / PG)
#define ROUND_PG(n)	(((n) + PG - 1) / PG * PG)

static struct dp_qp_cfg cfg;
static struct dp_pair p;	/* a requests, b responds and receives */
static uint64_t wr_id;
static uint32_t seed = 1;
static int p_stale;		/* p lost track of a completion */

/* ---- buffers ---------------------------------------------------------- */

/*
 * A private anonymous mapping of @len bytes (never touched), or NULL.
 * Without transparent huge pages: a huge page the CPU's first write
 * brings in could cover pages of a neighbouring buffer (mappings made
 * one after the other merge), which must stay untouched.
 */
static uint8_t *map_anon(size_t len, int prot)
{
	void *m = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED) {
		diag("mmap(%zu bytes): %s", len, strerror(errno));
		return NULL;
	}
	madvise(m, len, MADV_NOHUGEPAGE);
	return m;
}

/* A mapping and a region over all of it. */
struct obuf {
	uint8_t *p;
	size_t len;
	struct ibv_mr *mr;
};

static int ob_reg(struct obuf *b, struct ibv_pd *pd, int access)
{
	errno = 0;
	b->mr = ibv_reg_mr(pd, b->p, b->len, access);
	if (!b->mr)
		diag("ibv_reg_mr(%zu bytes, access 0x%x): %s", b->len, access,
		     strerror(errno));
	return b->mr ? 0 : -1;
}

/* A fresh mapping of @len bytes, never touched, registered with @access. */
static int ob_make(struct obuf *b, size_t len, int access)
{
	memset(b, 0, sizeof(*b));
	b->p = map_anon(len, PROT_READ | PROT_WRITE);
	if (!b->p)
		return -1;
	b->len = len;
	return ob_reg(b, dp.pd, access);
}

/* Deregister and unmap: 1 if ibv_dereg_mr (if there was a region) said 0. */
static int ob_free(struct obuf *b)
{
	int ret = 0;

	if (b->mr) {
		ret = ibv_dereg_mr(b->mr);
		if (ret)
			diag("ibv_dereg_mr: %s", strerror(ret));
	}
	if (b->p)
		munmap(b->p, b->len);
	memset(b, 0, sizeof(*b));
	return !ret;
}

/*
 * How many of the pages [@p, @p + @len) are resident (mincore), or -1.
 * Allocates from the heap only (see t_munmap).
 */
static long resident(const uint8_t *p, size_t len)
{
	size_t n = ROUND_PG(len) / PG, i;
	unsigned char *v = malloc(n);
	long r = 0;

	if (!v)
		return -1;
	if (mincore((void *)p, len, v)) {
		diag("mincore: %s", strerror(errno));
		free(v);
		return -1;
	}
	for (i = 0; i < n; i++)
		r += v[i] & 1;
	free(v);
	return r;
}

/* @len bytes at @p are byte @from on of stream @s (no allocation). */
static int holds(const uint8_t *p, size_t len, uint32_t s, size_t from,
		 const char *what)
{
	size_t i, first = len, nbad = 0;

	for (i = 0; i < len; i++) {
		if (p[i] != dp_pat(s, from + i)) {
			if (first == len)
				first = i;
			nbad++;
		}
	}
	if (nbad)
		diag("%s: %zu of %zu byte(s) are not stream %u, first at offset %zu: 0x%02x, want 0x%02x",
		     what, nbad, len, s, first, p[first],
		     dp_pat(s, from + first));
	return !nbad;
}

/* @len bytes at @p are all @v. */
static int all_are(const uint8_t *p, size_t len, uint8_t v, const char *what)
{
	size_t i, first = len, nbad = 0;

	for (i = 0; i < len; i++) {
		if (p[i] != v) {
			if (first == len)
				first = i;
			nbad++;
		}
	}
	if (nbad)
		diag("%s: %zu of %zu byte(s) are not 0x%02x, first at offset %zu: 0x%02x",
		     what, nbad, len, v, first, p[first]);
	return !nbad;
}

static uint64_t word(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* ---- requests --------------------------------------------------------- */

static void renew(void)
{
	dp_pair_renew(&p, &cfg);
}

/* Before a request that must succeed: a new pair if p is not in RTS. */
static void ready(void)
{
	if (p_stale) {
		diag("a completion did not come: a new pair");
		p_stale = 0;
		renew();
		return;
	}
	dp_pair_ready(&p, &cfg);
}

/*
 * Post @wr signalled on the requester of @q and wait for its completion:
 * its status (diagnosed unless SUCCESS), or -1 if none came, another
 * WR's came or a successful one has another opcode than @opcode.
 */
static int post_wait(struct dp_pair *q, struct ibv_send_wr *wr,
		     enum ibv_wc_opcode opcode, const char *what)
{
	struct ibv_wc wc;

	wr->wr_id = ++wr_id;
	wr->send_flags |= IBV_SEND_SIGNALED;
	if (!q->a.qp || dp_post_send(q->a.qp, wr))
		return -1;
	if (!dp_poll1(q->a.scq, &wc, what)) {
		p_stale |= q == &p;
		return -1;
	}
	if (wc.wr_id != wr->wr_id ||
	    (wc.status == IBV_WC_SUCCESS && wc.opcode != opcode)) {
		p_stale |= q == &p;
		dp_wc_diag(what, &wc);
		diag("%s: wanted wr_id 0x%llx, opcode %s", what,
		     (unsigned long long)wr->wr_id, dp_wc_opcode_str(opcode));
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS)
		diag("%s: %s", what, ibv_wc_status_str(wc.status));
	return wc.status;
}

/* RDMA WRITE or READ on @q between (@laddr, @lkey) and (@raddr, @rkey). */
static int rdma_on(struct dp_pair *q, enum ibv_wr_opcode op, uint64_t laddr,
		   uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey,
		   const char *what)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op };

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return post_wait(q, &wr, op == IBV_WR_RDMA_READ ? IBV_WC_RDMA_READ :
			 IBV_WC_RDMA_WRITE, what);
}

static int rdma(enum ibv_wr_opcode op, uint64_t laddr, uint32_t len,
		uint32_t lkey, uint64_t raddr, uint32_t rkey, const char *what)
{
	ready();
	return rdma_on(&p, op, laddr, len, lkey, raddr, rkey, what);
}

/* FETCH_ADD (@swap unused) or CMP_SWP on the word at (@raddr, @rkey). */
static int atomic(enum ibv_wr_opcode op, uint64_t laddr, uint32_t lkey,
		  uint64_t raddr, uint32_t rkey, uint64_t cmp_add,
		  uint64_t swap, const char *what)
{
	struct ibv_sge sge = { .addr = laddr, .length = 8, .lkey = lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op };

	ready();
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	return post_wait(&p, &wr, op == IBV_WR_ATOMIC_CMP_AND_SWP ?
			 IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD, what);
}

/*
 * On @q, a SENDs the gather list @s (@ns SGEs) to b, whose receive (on
 * @srq if not NULL) scatters it into @r (@nr SGEs): 1 if the SEND
 * completes successfully and the receive with RECV and byte_len @len.
 */
static int send_recv_on(struct dp_pair *q, struct ibv_srq *srq,
			struct ibv_sge *s, int ns, struct ibv_sge *r, int nr,
			uint32_t len, const char *what)
{
	struct ibv_send_wr wr = { .sg_list = s, .num_sge = ns,
				  .opcode = IBV_WR_SEND };
	struct dp_wc_want w = { 0, IBV_WC_SUCCESS, IBV_WC_RECV, len, 0, -1,
				0, -1 };
	struct ibv_wc wc;
	int good;

	if (!q->a.qp || !q->b.qp)
		return 0;
	w.wr_id = ++wr_id;
	w.qp_num = q->b.qp->qp_num;
	if (srq ? dp_post_srq_recv(srq, w.wr_id, r, nr) :
	    dp_post_recv(q->b.qp, w.wr_id, r, nr))
		return 0;
	good = post_wait(q, &wr, IBV_WC_SEND, what) == IBV_WC_SUCCESS;
	if (!dp_poll1(q->b.rcq, &wc, what)) {
		p_stale |= q == &p;
		return 0;
	}
	return dp_wc_check(&wc, &w, what) && good;
}

static int send_recv(struct ibv_sge *s, int ns, struct ibv_sge *r, int nr,
		     uint32_t len, const char *what)
{
	ready();
	return send_recv_on(&p, NULL, s, ns, r, nr, len, what);
}

/* ---- the capabilities ------------------------------------------------- */

static void t_caps(void)
{
	struct ibv_device_attr_ex ax;
	struct ibv_odp_caps *c = &ax.odp_caps;
	int ret;

	memset(&ax, 0, sizeof(ax));
	ret = ibv_query_device_ex(dp.ctx, NULL, &ax);
	if (ret)
		diag("ibv_query_device_ex: %s", strerror(ret));
	diag("odp_caps: general 0x%llx, rc 0x%x, uc 0x%x, ud 0x%x; xrc_odp_caps 0x%x",
	     (unsigned long long)c->general_caps,
	     c->per_transport_caps.rc_odp_caps,
	     c->per_transport_caps.uc_odp_caps,
	     c->per_transport_caps.ud_odp_caps, ax.xrc_odp_caps);
	ok(!ret && c->general_caps == ODP_GENERAL,
	   "ibv_query_device_ex: odp_caps.general_caps is ODP_SUPPORT | ODP_SUPPORT_IMPLICIT (0x%x): got 0x%llx",
	   ODP_GENERAL, (unsigned long long)c->general_caps);
	ok(!ret && c->per_transport_caps.rc_odp_caps == ODP_RC,
	   "rc_odp_caps are SEND, RECV, WRITE, READ, ATOMIC and SRQ_RECV (0x%x): got 0x%x",
	   ODP_RC, c->per_transport_caps.rc_odp_caps);
	ok(!ret && c->per_transport_caps.ud_odp_caps == ODP_UD,
	   "ud_odp_caps are SEND (0x%x): got 0x%x", ODP_UD,
	   c->per_transport_caps.ud_odp_caps);
	ok(!ret && c->per_transport_caps.uc_odp_caps == ODP_UC &&
	   ax.xrc_odp_caps == ODP_XRC,
	   "uc_odp_caps are none (got 0x%x); xrc_odp_caps are RC's (0x%x): got 0x%x",
	   c->per_transport_caps.uc_odp_caps, ODP_XRC, ax.xrc_odp_caps);
}

/* ---- registration ----------------------------------------------------- */

/* Reserved PROT_NONE, registered on demand before anything is mapped. */
static struct obuf later;
#define LATER_LEN	(16 * PG)

/* ibv_reg_mr of @len bytes at @m with @access: its errno, or -1 if made. */
static int refused(uint8_t *m, size_t len, int access, const char *what)
{
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_mr(dp.pd, m, len, access);
	if (mr) {
		diag("%s: ibv_reg_mr(access 0x%x) succeeded", what, access);
		ibv_dereg_mr(mr);
		return -1;
	}
	return errno;
}

static void t_reg(void)
{
	static const int bad[] = {
		IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_LOCAL_WRITE | (1 << 15),
	};
	struct obuf b;
	long res;
	size_t i;
	int good, e1, e2;

	good = !ob_make(&b, 1 << 20, ACC_ODP);
	res = good ? resident(b.p, b.len) : -1;
	good = good && b.mr->addr == b.p && b.mr->length == b.len &&
	       b.mr->pd == dp.pd && res == 0;
	if (b.mr)
		diag("1 MiB region: lkey 0x%x rkey 0x%x; %ld page(s) resident after the registration",
		     b.mr->lkey, b.mr->rkey, res);
	ok(good,
	   "ibv_reg_mr with ON_DEMAND and every right on 1 MiB freshly mmap()ed and never touched: a region of that address, length and PD; registering made none of its 256 pages resident (mincore)");

	memset(&later, 0, sizeof(later));
	later.p = map_anon(LATER_LEN, PROT_NONE);
	later.len = later.p ? LATER_LEN : 0;
	ok(later.p && !ob_reg(&later, dp.pd, ACC_ODP),
	   "ibv_reg_mr with ON_DEMAND and every right on 64 KiB reserved PROT_NONE (no page the process may touch yet) succeeds");

	for (i = 0, good = b.p != NULL; b.p && i < DP_ARRAY_SIZE(bad); i++) {
		e1 = refused(b.p, PG, bad[i], "pinned");
		e2 = refused(b.p, PG, bad[i] | IBV_ACCESS_ON_DEMAND,
			     "on demand");
		if (e1 != e2 || e2 <= 0 || (i < 3 && e2 != EINVAL)) {
			diag("access 0x%x: errno %d without ON_DEMAND, %d with",
			     bad[i], e1, e2);
			good = 0;
		}
	}
	ok(good,
	   "ON_DEMAND with REMOTE_WRITE, REMOTE_ATOMIC or REMOTE_WRITE | REMOTE_READ but not LOCAL_WRITE: EINVAL, as without ON_DEMAND; with an unknown access bit (1 << 15): the errno it gets without");
	ob_free(&b);
}

/* ---- the data path ---------------------------------------------------- */

enum xkind { XK_SEND, XK_WRITE, XK_READ };

static const char *const xk_name[] = { "SEND", "RDMA WRITE", "RDMA READ" };

/*
 * One transfer of @len bytes from byte @off of a fresh on-demand source
 * (written by the CPU) to byte @off of a fresh on-demand sink (never
 * touched).  1 if it completed successfully, the sink holds the bytes and
 * zeroes elsewhere, the source is unchanged, and every page of the sink
 * the transfer covers (none before) is resident.
 */
static int xfer(enum xkind k, size_t off, uint32_t len)
{
	size_t blen = ROUND_PG(off + len) + PG, np = NPAGES(off, len);
	size_t first = off / PG * PG;
	struct obuf s, d;
	struct ibv_sge ss, rs;
	long before = -1, after = -1;
	uint32_t sd = ++seed;
	char what[80];
	int good = 0;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	snprintf(what, sizeof(what), "%s of %u bytes at %zu", xk_name[k], len,
		 off);
	if (ob_make(&s, blen, ACC_ODP) || ob_make(&d, blen, ACC_ODP))
		goto out;
	dp_fill(s.p + off, len, sd);
	before = resident(d.p, blen);
	switch (k) {
	case XK_SEND:
		ss = (struct ibv_sge){ VA(s.p + off), len, s.mr->lkey };
		rs = (struct ibv_sge){ VA(d.p + off), len, d.mr->lkey };
		good = send_recv(&ss, 1, &rs, 1, len, what);
		break;
	case XK_WRITE:
		good = rdma(IBV_WR_RDMA_WRITE, VA(s.p + off), len, s.mr->lkey,
			    VA(d.p + off), d.mr->rkey, what) == IBV_WC_SUCCESS;
		break;
	case XK_READ:
		good = rdma(IBV_WR_RDMA_READ, VA(d.p + off), len, d.mr->lkey,
			    VA(s.p + off), s.mr->rkey, what) == IBV_WC_SUCCESS;
		break;
	}
	after = resident(d.p + first, np * PG);
	if (before != 0 || after != (long)np) {
		diag("%s: sink pages resident: %ld of %zu before, %ld of the %zu it covers after",
		     what, before, blen / PG, after, np);
		good = 0;
	}
	good &= holds(d.p + off, len, sd, 0, what);
	good &= all_are(d.p, off, 0, "before the sink's range");
	good &= all_are(d.p + off + len, blen - off - len, 0,
			"after the sink's range");
	good &= holds(s.p + off, len, sd, 0, "the source");
out:
	good &= ob_free(&s);
	good &= ob_free(&d);
	return good;
}

static void t_xfers(void)
{
	static const struct {
		size_t off;
		uint32_t len;
	} sz[] = {
		{ 0, 4096 }, { 123, 65536 }, { 4000, 1 << 20 },
	};
	size_t i;
	int k;

	for (k = XK_SEND; k <= XK_READ; k++)
		for (i = 0; i < DP_ARRAY_SIZE(sz); i++)
			ok(xfer(k, sz[i].off, sz[i].len),
			   "%s of %u bytes from byte %zu of an on-demand region written by the CPU to byte %zu of one never touched (%zu pages): completions %s, every byte arrives, the rest of the sink zero, the source unchanged; afterwards the sink's pages it covers are resident (none were)",
			   xk_name[k], sz[i].len, sz[i].off, sz[i].off,
			   (size_t)NPAGES(sz[i].off, sz[i].len),
			   k == XK_SEND ? "SEND and RECV" : xk_name[k]);
}

/* FETCH_ADD and CMP_SWP on words of a region never touched. */
static void t_atomics(void)
{
	struct obuf t, r;
	uint8_t *w1, *w2;
	int st, good;

	memset(&r, 0, sizeof(r));
	if (ob_make(&t, 4 * PG, ACC_ODP) || ob_make(&r, 4 * PG, ACC_ODP)) {
		ok(0, "two on-demand regions of 4 pages for the atomics");
		ob_free(&t);
		ob_free(&r);
		return;
	}
	w1 = t.p + 2 * PG + 8;
	w2 = t.p + 3 * PG + 16;
	st = atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, VA(r.p + 8), r.mr->lkey,
		    VA(w1), t.mr->rkey, ADD, 0, "FETCH_ADD");
	good = st == IBV_WC_SUCCESS && word(r.p + 8) == 0 &&
	       word(w1) == ADD;
	ok(good && all_are(t.p, 2 * PG + 8, 0, "before the word") &&
	   all_are(w1 + 8, PG - 16, 0, "after the word") &&
	   all_are(r.p, 8, 0, "before the result"),
	   "FETCH_ADD of 0x%llx on a word of an on-demand region never touched, the old value into one never touched: completion FETCH_ADD, 0 returned (got 0x%llx), the word 0x%llx: added once though both pages were missing",
	   (unsigned long long)ADD, (unsigned long long)word(r.p + 8),
	   (unsigned long long)word(w1));

	st = atomic(IBV_WR_ATOMIC_CMP_AND_SWP, VA(r.p + PG + 16), r.mr->lkey,
		    VA(w2), t.mr->rkey, 0, SWAP, "CMP_SWP, equal");
	ok(st == IBV_WC_SUCCESS && word(r.p + PG + 16) == 0 &&
	   word(w2) == SWAP,
	   "CMP_SWP comparing with 0 on another word never touched (its own page), the result into another page never touched: 0 returned, the word swapped (0x%llx)",
	   (unsigned long long)word(w2));

	st = atomic(IBV_WR_ATOMIC_CMP_AND_SWP, VA(r.p + 2 * PG), r.mr->lkey,
		    VA(w2), t.mr->rkey, ~SWAP, 0, "CMP_SWP, unequal");
	good = st == IBV_WC_SUCCESS && word(r.p + 2 * PG) == SWAP &&
	       word(w2) == SWAP;
	st = atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, VA(r.p + 3 * PG), r.mr->lkey,
		    VA(w1), t.mr->rkey, ADD, 0, "FETCH_ADD again");
	ok(good && st == IBV_WC_SUCCESS && word(r.p + 3 * PG) == ADD &&
	   word(w1) == 2 * ADD,
	   "CMP_SWP comparing with another value: its value returned, the word unchanged; FETCH_ADD on the first word again: 0x%llx returned, the sum 0x%llx",
	   (unsigned long long)ADD, (unsigned long long)(2 * ADD));
	ob_free(&t);
	ob_free(&r);
}

/* A SEND into an SRQ's receive whose buffer is on demand, never touched. */
static void t_srq(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 2 } };
	struct ibv_srq *srq;
	struct dp_pair ps;
	struct obuf s, d;
	struct ibv_sge ss, rs;
	uint32_t sd = ++seed, len = 65536;
	int good = 0;

	memset(&ps, 0, sizeof(ps));
	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	srq = ibv_create_srq(dp.pd, &sa);
	if (!srq)
		diag("ibv_create_srq: %s", strerror(errno));
	if (srq && !dp_pair_make2(&ps, &cfg, srq) &&
	    !ob_make(&s, len + PG, ACC_ODP) && !ob_make(&d, len + 2 * PG, ACC_ODP)) {
		dp_fill(s.p + 5, len, sd);
		ss = (struct ibv_sge){ VA(s.p + 5), len, s.mr->lkey };
		rs = (struct ibv_sge){ VA(d.p + 777), len, d.mr->lkey };
		good = send_recv_on(&ps, srq, &ss, 1, &rs, 1, len, "SRQ") &&
		       holds(d.p + 777, len, sd, 0, "SRQ receive") &&
		       all_are(d.p, 777, 0, "before") &&
		       all_are(d.p + 777 + len, d.len - 777 - len, 0, "after");
	}
	ok(good,
	   "a SEND of %u bytes from an on-demand region into a receive of an SRQ whose buffer is on demand and never touched: completions SEND and RECV, the bytes arrive, nothing else written",
	   len);
	dp_pair_destroy(&ps);
	ob_free(&s);
	ob_free(&d);
	if (srq && ibv_destroy_srq(srq))
		diag("ibv_destroy_srq failed");
}

/* XRC: a SEND into an XRC SRQ's on-demand receive, a WRITE and a READ. */
struct xrc {
	struct ibv_xrcd *xd;
	struct ibv_cq *scq, *rcq;
	struct ibv_srq *srq;
	struct ibv_qp *ini, *tgt;
	uint32_t srqn;
};

static int xrc_make(struct xrc *x)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 8, .max_sge = 2 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = dp.pd,
	};
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = 8, .max_send_sge = 2 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = dp.pd,
	};
	struct ibv_qp_init_attr_ex ta = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};

	memset(x, 0, sizeof(*x));
	x->xd = ibv_open_xrcd(dp.ctx, &xa);
	x->scq = ibv_create_cq(dp.ctx, 16, NULL, NULL, 0);
	x->rcq = ibv_create_cq(dp.ctx, 16, NULL, NULL, 0);
	if (!x->xd || !x->scq || !x->rcq) {
		diag("ibv_open_xrcd or ibv_create_cq: %s", strerror(errno));
		return -1;
	}
	sa.xrcd = x->xd;
	sa.cq = x->rcq;
	x->srq = ibv_create_srq_ex(dp.ctx, &sa);
	if (!x->srq || ibv_get_srq_num(x->srq, &x->srqn)) {
		diag("ibv_create_srq_ex(XRC) or ibv_get_srq_num: %s",
		     strerror(errno));
		return -1;
	}
	ia.send_cq = x->scq;
	ia.recv_cq = x->scq;
	ta.xrcd = x->xd;
	x->ini = ibv_create_qp_ex(dp.ctx, &ia);
	x->tgt = x->ini ? ibv_create_qp_ex(dp.ctx, &ta) : NULL;
	if (!x->tgt) {
		diag("ibv_create_qp_ex(XRC_SEND, XRC_RECV): %s", strerror(errno));
		return -1;
	}
	return dp_xrc_connect(x->ini, x->tgt, 0x77);
}

static void xrc_destroy(struct xrc *x)
{
	if (x->ini && ibv_destroy_qp(x->ini))
		diag("ibv_destroy_qp(XRC_SEND) failed");
	if (x->tgt && ibv_destroy_qp(x->tgt))
		diag("ibv_destroy_qp(XRC_RECV) failed");
	if (x->srq && ibv_destroy_srq(x->srq))
		diag("ibv_destroy_srq(XRC) failed");
	if (x->scq)
		ibv_destroy_cq(x->scq);
	if (x->rcq)
		ibv_destroy_cq(x->rcq);
	if (x->xd && ibv_close_xrcd(x->xd))
		diag("ibv_close_xrcd failed");
	memset(x, 0, sizeof(*x));
}

/* One XRC request signalled on x->ini: its status, or -1. */
static int xrc_req(struct xrc *x, struct ibv_send_wr *wr,
		   enum ibv_wc_opcode opcode, const char *what)
{
	struct dp_pair q;

	memset(&q, 0, sizeof(q));
	q.a.qp = x->ini;
	q.a.scq = x->scq;
	wr->qp_type.xrc.remote_srqn = x->srqn;
	return post_wait(&q, wr, opcode, what);
}

static void t_xrc(void)
{
	const uint32_t len = 65536;
	struct obuf s, d;
	struct xrc x;
	struct ibv_sge ss, rs;
	struct ibv_send_wr wr = { .sg_list = &ss, .num_sge = 1 };
	struct dp_wc_want w = { 0, IBV_WC_SUCCESS, IBV_WC_RECV, len, 0, -1, 0,
				-1 };
	struct ibv_wc wc;
	uint32_t sd = ++seed;
	int good = 0;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	if (xrc_make(&x) || ob_make(&s, 3 * len, ACC_ODP) ||
	    ob_make(&d, 3 * len, ACC_ODP))
		goto out;
	dp_fill(s.p, 3 * len, sd);

	/* A SEND into the SRQ's receive, whose buffer is d's first third. */
	ss = (struct ibv_sge){ VA(s.p), len, s.mr->lkey };
	rs = (struct ibv_sge){ VA(d.p), len, d.mr->lkey };
	w.wr_id = ++wr_id;
	w.qp_num = x.tgt->qp_num;
	if (dp_post_srq_recv(x.srq, w.wr_id, &rs, 1))
		goto out;
	wr.opcode = IBV_WR_SEND;
	good = xrc_req(&x, &wr, IBV_WC_SEND, "XRC SEND") == IBV_WC_SUCCESS &&
	       dp_poll1(x.rcq, &wc, "XRC receive") &&
	       dp_wc_check(&wc, &w, "XRC receive");

	/* A WRITE into d's second third, a READ of s's third into d's third. */
	ss = (struct ibv_sge){ VA(s.p + len), len, s.mr->lkey };
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = 0;
	wr.wr.rdma.remote_addr = VA(d.p + len);
	wr.wr.rdma.rkey = d.mr->rkey;
	good &= xrc_req(&x, &wr, IBV_WC_RDMA_WRITE, "XRC WRITE") ==
		IBV_WC_SUCCESS;
	ss = (struct ibv_sge){ VA(d.p + 2 * len), len, d.mr->lkey };
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = 0;
	wr.wr.rdma.remote_addr = VA(s.p + 2 * len);
	wr.wr.rdma.rkey = s.mr->rkey;
	good &= xrc_req(&x, &wr, IBV_WC_RDMA_READ, "XRC READ") ==
		IBV_WC_SUCCESS;
	good &= holds(d.p, 3 * len, sd, 0, "XRC sink");
out:
	ok(good,
	   "XRC: an XRC_SEND QP's SEND of %u bytes into an XRC SRQ's receive, a WRITE and a READ of as many, each from an on-demand region the CPU wrote to one never touched: all complete successfully (the receive on the SRQ's CQ), every byte arrives",
	   len);
	xrc_destroy(&x);
	ob_free(&s);
	ob_free(&d);
}

/* A UD SEND whose payload is on demand. */
static void t_ud(void)
{
	struct dp_qp_cfg u;
	struct dp_pair pu;
	struct dp_buf rb;
	struct obuf s;
	struct ibv_sge ss, rs;
	struct ibv_send_wr wr = { .num_sge = 1, .opcode = IBV_WR_SEND };
	struct dp_wc_want w = { 0, IBV_WC_SUCCESS, IBV_WC_RECV, 0, 0, -1, 0,
				-1 };
	struct ibv_wc wc;
	uint32_t len = dp_mtu_bytes(), sd = ++seed;
	int good = 0;

	memset(&rb, 0, sizeof(rb));
	memset(&s, 0, sizeof(s));
	dp_cfg_default(&u, IBV_QPT_UD);
	if (dp_pair_make(&pu, &u)) {
		ok(0, "a UD pair");
		return;
	}
	if (!dp_buf_alloc(&rb, dp.pd, len + DP_GRH, DP_ACC_ALL) &&
	    !ob_make(&s, 2 * PG, ACC_ODP)) {
		dp_fill(s.p + PG - 100, len, sd);
		ss = (struct ibv_sge){ VA(s.p + PG - 100), len, s.mr->lkey };
		rs = (struct ibv_sge){ VA(rb.p), len + DP_GRH, rb.mr->lkey };
		wr.sg_list = &ss;
		dp_ud_dest(&wr, &pu.a, &pu.b);
		w.wr_id = ++wr_id;
		w.qp_num = pu.b.qp->qp_num;
		w.byte_len = len + DP_GRH;
		w.src_qp = pu.a.qp->qp_num;
		w.wc_flags = IBV_WC_GRH;
		if (!dp_post_recv(pu.b.qp, w.wr_id, &rs, 1)) {
			struct dp_pair q = { .a = pu.a };

			good = post_wait(&q, &wr, IBV_WC_SEND, "UD SEND") ==
			       IBV_WC_SUCCESS;
			good &= dp_poll1(pu.b.rcq, &wc, "UD receive") &&
				dp_wc_check(&wc, &w, "UD receive") &&
				holds(rb.p + DP_GRH, len, sd, 0, "UD payload");
		}
	}
	ok(good,
	   "UD: a SEND of %u bytes (the path MTU) whose payload, written by the CPU, crosses a page boundary of an on-demand region: completions SEND and RECV (byte_len %u), the payload after the GRH",
	   len, len + DP_GRH);
	dp_pair_destroy(&pu);
	dp_buf_free(&rb);
	ob_free(&s);
}

/* Gather from and scatter into on-demand and pinned regions mixed. */
static void t_sg(void)
{
	struct obuf s1, s2, d1, d2;
	struct dp_buf pin;
	struct ibv_sge s[3], r[3];
	uint32_t sd = ++seed;
	int good = 0;

	memset(&pin, 0, sizeof(pin));
	memset(&s2, 0, sizeof(s2));
	memset(&d1, 0, sizeof(d1));
	memset(&d2, 0, sizeof(d2));
	if (ob_make(&s1, 2 * PG, ACC_ODP) || ob_make(&s2, 4 * PG, ACC_ODP) ||
	    ob_make(&d1, 4 * PG, ACC_ODP) || ob_make(&d2, 4 * PG, ACC_ODP) ||
	    dp_buf_alloc(&pin, dp.pd, 8192, DP_ACC_ALL))
		goto out;
	/* The message: 100 + 3000 + 9000 bytes of stream sd, in order. */
	dp_fill(pin.p, 8192, 0);
	memset(pin.p + 4096, DP_POISON, 4096);
	{
		size_t i;

		for (i = 0; i < 100; i++)
			s1.p[PG - 50 + i] = dp_pat(sd, i);
		for (i = 0; i < 3000; i++)
			pin.p[i] = dp_pat(sd, 100 + i);
		for (i = 0; i < 9000; i++)
			s2.p[5 + i] = dp_pat(sd, 3100 + i);
	}
	s[0] = (struct ibv_sge){ VA(s1.p + PG - 50), 100, s1.mr->lkey };
	s[1] = (struct ibv_sge){ VA(pin.p), 3000, pin.mr->lkey };
	s[2] = (struct ibv_sge){ VA(s2.p + 5), 9000, s2.mr->lkey };
	r[0] = (struct ibv_sge){ VA(d1.p + 4000), 5000, d1.mr->lkey };
	r[1] = (struct ibv_sge){ VA(pin.p + 4096), 2100, pin.mr->lkey };
	r[2] = (struct ibv_sge){ VA(d2.p + 2 * PG - 1), 5000, d2.mr->lkey };
	good = send_recv(s, 3, r, 3, 12100, "gather and scatter") &&
	       holds(d1.p + 4000, 5000, sd, 0, "first receive piece") &&
	       holds(pin.p + 4096, 2100, sd, 5000, "pinned receive piece") &&
	       holds(d2.p + 2 * PG - 1, 5000, sd, 7100, "third receive piece") &&
	       all_are(d1.p, 4000, 0, "before the first piece") &&
	       all_are(d1.p + 9000, d1.len - 9000, 0, "after it") &&
	       all_are(d2.p, 2 * PG - 1, 0, "before the third") &&
	       all_are(d2.p + 2 * PG + 4999, 2 * PG - 4999, 0, "after it") &&
	       all_are(pin.p + 4096 + 2100, 4096 - 2100, DP_POISON,
		       "after the pinned piece");
out:
	ok(good,
	   "a SEND gathered from on-demand (100 bytes across a page boundary), pinned (3000) and on-demand (9000) SGEs into a receive scattered over on-demand (5000, never touched), pinned (2100) and on-demand (5000 across a page boundary, never touched) SGEs: the 12100 bytes in order, nothing else written");
	ob_free(&s1);
	ob_free(&s2);
	ob_free(&d1);
	ob_free(&d2);
	dp_buf_free(&pin);
}

/* A region whose iova is not its address. */
static void t_iova(void)
{
	const uint64_t iova = 0x5a5a00000000ULL + 0x345;
	struct obuf v;
	struct dp_buf pin;
	uint8_t *base;
	uint32_t sd = ++seed, len = 9000;
	int st, good = 0;

	memset(&pin, 0, sizeof(pin));
	memset(&v, 0, sizeof(v));
	v.p = map_anon(8 * PG, PROT_READ | PROT_WRITE);
	if (!v.p || dp_buf_alloc(&pin, dp.pd, 2 * len, DP_ACC_ALL))
		goto out;
	v.len = 8 * PG;
	base = v.p + 0x345;
	errno = 0;
	v.mr = ibv_reg_mr_iova(dp.pd, base, 6 * PG, iova, ACC_ODP);
	if (!v.mr) {
		diag("ibv_reg_mr_iova(iova 0x%llx): %s",
		     (unsigned long long)iova, strerror(errno));
		goto out;
	}
	dp_fill(pin.p, len, sd);
	st = rdma(IBV_WR_RDMA_WRITE, VA(pin.p), len, pin.mr->lkey,
		  iova + 1000, v.mr->rkey, "WRITE through the iova");
	good = st == IBV_WC_SUCCESS && holds(base + 1000, len, sd, 0, "iova") &&
	       all_are(v.p, 0x345 + 1000, 0, "before") &&
	       all_are(base + 1000 + len, v.len - 0x345 - 1000 - len, 0,
		       "after");
	dp_fill(base + 20000, 3000, sd + 1);
	memset(pin.p + len, DP_POISON, len);
	st = rdma(IBV_WR_RDMA_READ, VA(pin.p + len), 3000, pin.mr->lkey,
		  iova + 20000, v.mr->rkey, "READ through the iova");
	good &= st == IBV_WC_SUCCESS &&
		holds(pin.p + len, 3000, sd + 1, 0, "READ through the iova");
out:
	ok(good,
	   "an on-demand region of 6 pages from byte 0x345 of a mapping with iova 0x%llx: a WRITE of %u bytes to iova + 1000 lands at the address + 1000 and nowhere else, a READ from iova + 20000 returns what the CPU wrote at the address + 20000",
	   (unsigned long long)iova, len);
	ob_free(&v);
	dp_buf_free(&pin);
}

/* The region registered on PROT_NONE (t_reg), now made accessible. */
static void t_later(void)
{
	struct dp_buf pin;
	uint32_t sd = ++seed, half = LATER_LEN / 2;
	int st, good = 0;

	memset(&pin, 0, sizeof(pin));
	if (!later.mr || dp_buf_alloc(&pin, dp.pd, LATER_LEN, DP_ACC_ALL))
		goto out;
	if (mprotect(later.p, LATER_LEN, PROT_READ | PROT_WRITE)) {
		diag("mprotect: %s", strerror(errno));
		goto out;
	}
	dp_fill(later.p, half, sd);
	st = rdma(IBV_WR_RDMA_READ, VA(pin.p), half, pin.mr->lkey,
		  VA(later.p), later.mr->rkey, "READ of the first half");
	good = st == IBV_WC_SUCCESS && holds(pin.p, half, sd, 0, "READ");
	dp_fill(pin.p + half, half, sd + 1);
	st = rdma(IBV_WR_RDMA_WRITE, VA(pin.p + half), half, pin.mr->lkey,
		  VA(later.p + half), later.mr->rkey, "WRITE of the second half");
	good &= st == IBV_WC_SUCCESS &&
		holds(later.p + half, half, sd + 1, 0, "WRITE") &&
		holds(later.p, half, sd, 0, "first half");
out:
	ok(good,
	   "the region registered on PROT_NONE memory, after mprotect(PROT_READ | PROT_WRITE): a READ of its first half returns what the CPU wrote there, a WRITE into its second half lands");
	dp_buf_free(&pin);
}

/* ---- ibv_rereg_mr ----------------------------------------------------- */

/*
 * ibv_rereg_mr(3) of on-demand regions: a new translation, on-demand no
 * more, on demand again.  A pinned region keeps its pages after
 * MADV_DONTNEED (the device writes to the pages it pinned, the process
 * reads its new zero pages), an on-demand one follows the process: that
 * tells which one the region is.
 */
static void t_rereg(void)
{
	const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ;
	const size_t len = 4 * PG;
	struct obuf a;
	struct dp_buf pin;
	uint8_t *m2;
	uint32_t sd = ++seed;
	int r, st, good;

	memset(&pin, 0, sizeof(pin));
	m2 = map_anon(len, PROT_READ | PROT_WRITE);
	if (ob_make(&a, len, acc | IBV_ACCESS_ON_DEMAND) || !m2 ||
	    dp_buf_alloc(&pin, dp.pd, len, DP_ACC_ALL)) {
		ok(0, "an on-demand region, a second mapping, a pinned region");
		goto out;
	}
	dp_fill(pin.p, len, sd);
	r = ibv_rereg_mr(a.mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, m2, len,
			 0);
	st = r ? -1 : rdma(IBV_WR_RDMA_WRITE, VA(pin.p), len, pin.mr->lkey,
			   VA(m2), a.mr->rkey, "WRITE after the new translation");
	ok(!r && a.mr->addr == m2 && st == IBV_WC_SUCCESS &&
	   holds(m2, len, sd, 0, "the new mapping") &&
	   all_are(a.p, len, 0, "the old mapping"),
	   "ibv_rereg_mr(CHANGE_TRANSLATION) of an on-demand region to another mapping never touched: 0 (got %d); a WRITE through the new rkey lands there, the old mapping untouched",
	   r);

	r = ibv_rereg_mr(a.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, acc);
	good = !r && !madvise(m2, len, MADV_DONTNEED);
	dp_fill(pin.p, len, sd + 1);
	st = good ? rdma(IBV_WR_RDMA_WRITE, VA(pin.p), len, pin.mr->lkey,
			 VA(m2), a.mr->rkey, "WRITE, pinned") : -1;
	ok(good && st == IBV_WC_SUCCESS && all_are(m2, len, 0, "pinned"),
	   "CHANGE_ACCESS to the same rights without ON_DEMAND: 0 (got %d); the region is pinned: after MADV_DONTNEED a WRITE completes but the process reads its new zero pages",
	   r);

	r = ibv_rereg_mr(a.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			 acc | IBV_ACCESS_ON_DEMAND);
	good = !r && !madvise(m2, len, MADV_DONTNEED);
	dp_fill(pin.p, len, sd + 2);
	st = good ? rdma(IBV_WR_RDMA_WRITE, VA(pin.p), len, pin.mr->lkey,
			 VA(m2), a.mr->rkey, "WRITE, on demand again") : -1;
	ok(good && st == IBV_WC_SUCCESS && holds(m2, len, sd + 2, 0, "on demand"),
	   "CHANGE_ACCESS back to ON_DEMAND: 0 (got %d); after MADV_DONTNEED a WRITE lands in the process's new pages",
	   r);
out:
	ob_free(&a);
	if (m2)
		munmap(m2, len);
	dp_buf_free(&pin);
}

/* ---- invalidations ---------------------------------------------------- */

#define INV_LEN		(16 * PG)

static void t_invalidate(void)
{
	struct obuf b;
	struct dp_buf pin;
	uint32_t s1 = ++seed, s2 = ++seed, s3 = ++seed, s4 = ++seed;
	void *m;
	int st, good;

	memset(&pin, 0, sizeof(pin));
	if (ob_make(&b, INV_LEN, ACC_ODP) ||
	    dp_buf_alloc(&pin, dp.pd, INV_LEN, DP_ACC_ALL)) {
		ok(0, "an on-demand region of 64 KiB and a pinned one");
		goto out;
	}

	/* WRITE, then MADV_DONTNEED: a READ returns the new (zero) pages. */
	dp_fill(pin.p, INV_LEN, s1);
	st = rdma(IBV_WR_RDMA_WRITE, VA(pin.p), INV_LEN, pin.mr->lkey,
		  VA(b.p), b.mr->rkey, "WRITE before DONTNEED");
	good = st == IBV_WC_SUCCESS && holds(b.p, INV_LEN, s1, 0, "written");
	if (madvise(b.p, INV_LEN, MADV_DONTNEED))
		diag("madvise(MADV_DONTNEED): %s", strerror(errno));
	memset(pin.p, DP_POISON, INV_LEN);
	st = rdma(IBV_WR_RDMA_READ, VA(pin.p), INV_LEN, pin.mr->lkey,
		  VA(b.p), b.mr->rkey, "READ after DONTNEED");
	ok(good && st == IBV_WC_SUCCESS &&
	   all_are(pin.p, INV_LEN, 0, "READ after DONTNEED"),
	   "a WRITE of 64 KiB into an on-demand region (the CPU reads it), then madvise(MADV_DONTNEED) of the region: a READ of it returns zeroes, the process's new pages, not what the WRITE left");

	/* The CPU writes new pages after MADV_DONTNEED: a READ sees them. */
	dp_fill(b.p, INV_LEN, s2);
	if (madvise(b.p, INV_LEN, MADV_DONTNEED))
		diag("madvise(MADV_DONTNEED): %s", strerror(errno));
	dp_fill(b.p, INV_LEN, s3);
	st = rdma(IBV_WR_RDMA_READ, VA(pin.p), INV_LEN, pin.mr->lkey,
		  VA(b.p), b.mr->rkey, "READ after the CPU wrote");
	ok(st == IBV_WC_SUCCESS && holds(pin.p, INV_LEN, s3, 0, "READ"),
	   "madvise(MADV_DONTNEED) again, the CPU writes a new pattern into the new pages: a READ returns that pattern");

	/* The device WRITEs after MADV_DONTNEED: the CPU sees it. */
	if (madvise(b.p, INV_LEN, MADV_DONTNEED))
		diag("madvise(MADV_DONTNEED): %s", strerror(errno));
	dp_fill(pin.p, INV_LEN, s4);
	st = rdma(IBV_WR_RDMA_WRITE, VA(pin.p), INV_LEN, pin.mr->lkey,
		  VA(b.p), b.mr->rkey, "WRITE after DONTNEED");
	ok(st == IBV_WC_SUCCESS && holds(b.p, INV_LEN, s4, 0, "CPU read"),
	   "madvise(MADV_DONTNEED) of the pages the READ mapped, then a WRITE of 64 KiB: the CPU reads what it wrote (it went to the new pages)");

	/* Pages 4 to 11 replaced by a new mapping: read anew. */
	m = mmap(b.p + 4 * PG, 8 * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	good = m == b.p + 4 * PG;
	if (!good)
		diag("mmap(MAP_FIXED): %s", strerror(errno));
	dp_fill(b.p + 4 * PG, 8 * PG, s1);
	memset(pin.p, DP_POISON, INV_LEN);
	st = rdma(IBV_WR_RDMA_READ, VA(pin.p), INV_LEN, pin.mr->lkey,
		  VA(b.p), b.mr->rkey, "READ after MAP_FIXED");
	ok(good && st == IBV_WC_SUCCESS &&
	   holds(pin.p, 4 * PG, s4, 0, "pages 0 to 3") &&
	   holds(pin.p + 4 * PG, 8 * PG, s1, 0, "pages 4 to 11") &&
	   holds(pin.p + 12 * PG, 4 * PG, s4, 12 * PG, "pages 12 to 15"),
	   "pages 4 to 11 of the region replaced by a new mapping (mmap MAP_FIXED) that the CPU fills: a READ of the region returns the new pages' bytes there and the WRITE's elsewhere");

	/* mprotect(PROT_READ): a WRITE is refused; PROT_WRITE again: it lands. */
	dp_fill(pin.p, INV_LEN, s2);
	st = rdma(IBV_WR_RDMA_WRITE, VA(pin.p), INV_LEN, pin.mr->lkey,
		  VA(b.p), b.mr->rkey, "WRITE before mprotect");
	good = st == IBV_WC_SUCCESS && holds(b.p, INV_LEN, s2, 0, "written");
	if (mprotect(b.p, INV_LEN, PROT_READ)) {
		diag("mprotect(PROT_READ): %s", strerror(errno));
		good = 0;
	}
	dp_fill(pin.p, INV_LEN, s3);
	st = rdma(IBV_WR_RDMA_WRITE, VA(pin.p), INV_LEN, pin.mr->lkey,
		  VA(b.p), b.mr->rkey, "WRITE into PROT_READ");
	ok(good && st == IBV_WC_REM_ACCESS_ERR &&
	   holds(b.p, INV_LEN, s2, 0, "after the refused WRITE"),
	   "a WRITE of 64 KiB into the region (it lands), then mprotect(PROT_READ): a WRITE into it completes with REM_ACCESS_ERR (the process cannot write there), the pages unchanged");
	renew();
	good = !mprotect(b.p, INV_LEN, PROT_READ | PROT_WRITE);
	if (!good)
		diag("mprotect(PROT_READ | PROT_WRITE): %s", strerror(errno));
	st = rdma(IBV_WR_RDMA_WRITE, VA(pin.p), INV_LEN, pin.mr->lkey,
		  VA(b.p), b.mr->rkey, "WRITE after PROT_WRITE again");
	ok(good && st == IBV_WC_SUCCESS &&
	   holds(b.p, INV_LEN, s3, 0, "after PROT_WRITE"),
	   "mprotect(PROT_READ | PROT_WRITE) again: the same WRITE lands (the pages are writable again, not failed for good)");
out:
	ob_free(&b);
	dp_buf_free(&pin);
}

/* ---- munmap() in the middle of a region -------------------------------- */

#define H_PAGES		16
#define H_FIRST		4	/* the hole: pages 4 to 7 */
#define H_N		4
#define H_REQ		2	/* the requests cover pages 2 to 9 */
#define H_REQ_N		8
#define H_FP		5	/* pairs made before the hole */

/* Send @len bytes at @laddr (@lkey) on @q into a pinned receive: its status. */
static int send_status(struct dp_pair *q, uint64_t laddr, uint32_t len,
		       uint32_t lkey, struct dp_buf *rb, const char *what)
{
	struct ibv_sge s = { laddr, len, lkey };
	struct ibv_sge r = { VA(rb->p), len, rb->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND };

	if (!q->b.qp || dp_post_recv(q->b.qp, ++wr_id, &r, 1))
		return -1;
	return post_wait(q, &wr, IBV_WC_SEND, what);
}

static void t_munmap(void)
{
	static uint8_t want[H_PAGES * PG];	/* the pages beside the hole */
	struct dp_pair fp[H_FP];
	struct dp_bystander by;
	struct dp_buf pin, rb;
	struct obuf h;
	uint8_t *req, *hole;
	uint32_t rlen = H_REQ_N * PG, sd = ++seed;
	size_t lo = H_REQ * PG, hi = (H_REQ + H_REQ_N) * PG;
	int i, st, good, made = 1;
	void *m;

	memset(fp, 0, sizeof(fp));
	memset(&pin, 0, sizeof(pin));
	memset(&rb, 0, sizeof(rb));
	memset(&h, 0, sizeof(h));
	for (i = 0; i < H_FP; i++)
		made &= !dp_pair_make(&fp[i], &cfg);
	made &= !dp_bystander_make(&by);
	made &= !dp_buf_alloc(&pin, dp.pd, H_PAGES * PG, DP_ACC_ALL) &&
		!dp_buf_alloc(&rb, dp.pd, H_PAGES * PG, DP_ACC_ALL) &&
		!ob_make(&h, H_PAGES * PG, ACC_ODP);
	if (made) {
		dp_fill(pin.p, h.len, sd);
		st = rdma_on(&fp[0], IBV_WR_RDMA_WRITE, VA(pin.p), h.len,
			     pin.mr->lkey, VA(h.p), h.mr->rkey, "WRITE before");
		made = st == IBV_WC_SUCCESS && holds(h.p, h.len, sd, 0, "WRITE");
	}
	if (!ok(made,
		"%d RC pairs, a bystander pair, an on-demand region of %d pages that a WRITE fills",
		H_FP, H_PAGES))
		goto out;

	/*
	 * The hole; the pages beside it dropped too, then written by the
	 * CPU: the process has them, the device none of the region.
	 */
	hole = h.p + H_FIRST * PG;
	req = h.p + lo;
	good = !munmap(hole, H_N * PG);
	good &= !madvise(h.p, H_FIRST * PG, MADV_DONTNEED) &&
		!madvise(hole + H_N * PG, (H_PAGES - H_FIRST - H_N) * PG,
			 MADV_DONTNEED);
	if (!good)
		diag("munmap or madvise: %s", strerror(errno));
	dp_fill(want, sizeof(want), ++sd);
	memcpy(h.p, want, H_FIRST * PG);
	memcpy(hole + H_N * PG, want + (H_FIRST + H_N) * PG,
	       (H_PAGES - H_FIRST - H_N) * PG);

	st = send_status(&fp[1], VA(req), rlen, h.mr->lkey, &rb,
			 "SEND over the hole");
	ok(good && st == IBV_WC_LOC_PROT_ERR,
	   "munmap() of pages %d to %d of the region: a SEND whose SGE is pages %d to %d of it completes with LOC_PROT_ERR (got %s), not waiting",
	   H_FIRST, H_FIRST + H_N - 1, H_REQ, H_REQ + H_REQ_N - 1,
	   st < 0 ? "nothing" : ibv_wc_status_str(st));

	dp_fill(pin.p, rlen, ++sd);
	st = rdma_on(&fp[2], IBV_WR_RDMA_WRITE, VA(pin.p), rlen, pin.mr->lkey,
		     VA(req), h.mr->rkey, "WRITE over the hole");
	ok(st == IBV_WC_REM_ACCESS_ERR &&
	   !memcmp(h.p, want, lo) && !memcmp(h.p + hi, want + hi, h.len - hi),
	   "an RDMA WRITE to pages %d to %d: REM_ACCESS_ERR (got %s); the region's pages outside the request unchanged",
	   H_REQ, H_REQ + H_REQ_N - 1,
	   st < 0 ? "nothing" : ibv_wc_status_str(st));

	st = rdma_on(&fp[3], IBV_WR_RDMA_READ, VA(pin.p), rlen, pin.mr->lkey,
		     VA(req), h.mr->rkey, "READ from the hole");
	ok(st == IBV_WC_REM_ACCESS_ERR,
	   "an RDMA READ from pages %d to %d: REM_ACCESS_ERR (got %s)",
	   H_REQ, H_REQ + H_REQ_N - 1,
	   st < 0 ? "nothing" : ibv_wc_status_str(st));

	st = rdma_on(&fp[4], IBV_WR_RDMA_READ, VA(req), rlen, h.mr->lkey,
		     VA(pin.p), pin.mr->rkey, "READ into the hole");
	ok(st == IBV_WC_LOC_PROT_ERR &&
	   !memcmp(h.p, want, lo) && !memcmp(h.p + hi, want + hi, h.len - hi),
	   "an RDMA READ into an SGE of pages %d to %d: LOC_PROT_ERR (got %s); the region's pages outside the SGE unchanged",
	   H_REQ, H_REQ + H_REQ_N - 1,
	   st < 0 ? "nothing" : ibv_wc_status_str(st));

	/* Pages 0 to 3 and 8 to 15 are the process's: they work. */
	dp_fill(pin.p, H_FIRST * PG, ++sd);
	st = rdma_on(&fp[0], IBV_WR_RDMA_WRITE, VA(pin.p), H_FIRST * PG,
		     pin.mr->lkey, VA(h.p), h.mr->rkey, "WRITE beside the hole");
	good = st == IBV_WC_SUCCESS && holds(h.p, H_FIRST * PG, sd, 0,
					      "WRITE beside the hole");
	memset(pin.p, DP_POISON, h.len);
	st = rdma_on(&fp[0], IBV_WR_RDMA_READ, VA(pin.p),
		     (H_PAGES - H_FIRST - H_N) * PG, pin.mr->lkey,
		     VA(hole + H_N * PG), h.mr->rkey, "READ beside the hole");
	good &= st == IBV_WC_SUCCESS &&
		!memcmp(pin.p, want + (H_FIRST + H_N) * PG,
			(H_PAGES - H_FIRST - H_N) * PG);
	ok(good,
	   "on the first pair, a WRITE to pages 0 to 3 lands and a READ of pages 8 to 15 returns what the CPU wrote: the pages the requests covered beside the hole (2, 3, 8, 9) are not failed");
	ok(dp_bystander_send(&by, ++sd),
	   "a SEND on an unrelated pair still arrives byte for byte");

	/*
	 * The hole gets memory again, which no invalidation tells the
	 * driver: the access that failed turned the failed pages back
	 * into not present, so the next one asks for them anew.
	 */
	m = mmap(hole, H_N * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	st = -1;
	if (m == hole) {
		dp_fill(pin.p, H_N * PG, ++sd);
		st = rdma_on(&fp[0], IBV_WR_RDMA_WRITE, VA(pin.p), H_N * PG,
			     pin.mr->lkey, VA(hole), h.mr->rkey,
			     "WRITE into the hole mapped again");
	} else {
		diag("mmap() of the hole again: %s",
		     m == MAP_FAILED ? strerror(errno) : "another address");
		if (m != MAP_FAILED)
			munmap(m, H_N * PG);
	}
	ok(st == IBV_WC_SUCCESS && holds(hole, H_N * PG, sd, 0, "hole"),
	   "after mmap() of the hole again, a WRITE into it succeeds and lands (failed pages fail one access only)");
out:
	for (i = 0; i < H_FP; i++)
		dp_pair_destroy(&fp[i]);
	dp_bystander_destroy(&by);
	dp_buf_free(&pin);
	dp_buf_free(&rb);
	ob_free(&h);
}

/* ---- read-only memory ------------------------------------------------- */

static void t_readonly(void)
{
	struct obuf ro;
	struct ibv_mr *m0 = NULL, *m1 = NULL, *m2 = NULL;
	struct dp_buf pin;
	struct ibv_sge ss, rs;
	uint32_t sd = ++seed, len = 8 * PG;
	int st, good;

	memset(&pin, 0, sizeof(pin));
	memset(&ro, 0, sizeof(ro));
	ro.p = map_anon(len, PROT_READ | PROT_WRITE);
	if (!ro.p || dp_buf_alloc(&pin, dp.pd, len, DP_ACC_ALL)) {
		ok(0, "a mapping of 8 pages and a pinned region");
		goto out;
	}
	ro.len = len;
	dp_fill(ro.p, len, sd);
	if (mprotect(ro.p, len, PROT_READ))
		diag("mprotect(PROT_READ): %s", strerror(errno));

	errno = 0;
	m0 = ibv_reg_mr(dp.pd, ro.p, len, IBV_ACCESS_ON_DEMAND);
	if (!m0)
		diag("ibv_reg_mr(ON_DEMAND) of PROT_READ memory: %s",
		     strerror(errno));
	memset(pin.p, DP_POISON, len);
	ss = (struct ibv_sge){ VA(ro.p + 10), len - 20, m0 ? m0->lkey : 0 };
	rs = (struct ibv_sge){ VA(pin.p), len - 20, pin.mr->lkey };
	ok(m0 && send_recv(&ss, 1, &rs, 1, len - 20, "SEND from PROT_READ") &&
	   holds(pin.p, len - 20, sd, 10, "received"),
	   "8 pages written by the CPU, then mprotect(PROT_READ), registered with ON_DEMAND and no other right: a SEND of %u bytes from them arrives byte for byte",
	   len - 20);

	errno = 0;
	m1 = ibv_reg_mr(dp.pd, ro.p, len,
			IBV_ACCESS_ON_DEMAND | IBV_ACCESS_REMOTE_READ);
	if (!m1)
		diag("ibv_reg_mr(ON_DEMAND | REMOTE_READ): %s", strerror(errno));
	memset(pin.p, DP_POISON, len);
	st = m1 ? rdma(IBV_WR_RDMA_READ, VA(pin.p), len, pin.mr->lkey,
		       VA(ro.p), m1->rkey, "READ from PROT_READ") : -1;
	ok(st == IBV_WC_SUCCESS && holds(pin.p, len, sd, 0, "READ"),
	   "the same memory registered with ON_DEMAND | REMOTE_READ: an RDMA READ of all of it returns its bytes");

	errno = 0;
	m2 = ibv_reg_mr(dp.pd, ro.p, len, IBV_ACCESS_ON_DEMAND |
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!m2)
		diag("ibv_reg_mr(ON_DEMAND | LOCAL_WRITE | REMOTE_WRITE): %s",
		     strerror(errno));
	dp_fill(pin.p, len, sd + 1);
	st = m2 ? rdma(IBV_WR_RDMA_WRITE, VA(pin.p), PG, pin.mr->lkey,
		       VA(ro.p + 2 * PG), m2->rkey, "WRITE into PROT_READ") : -1;
	good = m2 && st == IBV_WC_REM_ACCESS_ERR &&
	       holds(ro.p, len, sd, 0, "after the refused WRITE");
	ok(good,
	   "the same memory registered with ON_DEMAND | LOCAL_WRITE | REMOTE_WRITE: ibv_reg_mr succeeds (it does not look at the mapping's rights); an RDMA WRITE into it completes with REM_ACCESS_ERR (got %s), the memory unchanged",
	   st < 0 ? "nothing" : ibv_wc_status_str(st));
	renew();

	/* Not a rule: a READ through that writable region of PROT_READ memory. */
	if (m2) {
		st = rdma(IBV_WR_RDMA_READ, VA(pin.p), PG, pin.mr->lkey,
			  VA(ro.p + 4 * PG), m2->rkey, "READ through it");
		diag("an RDMA READ through that region (writable, on PROT_READ memory): %s",
		     st < 0 ? "no completion" : ibv_wc_status_str(st));
		if (st != IBV_WC_SUCCESS)
			renew();
	}
out:
	if (m0)
		ibv_dereg_mr(m0);
	if (m1)
		ibv_dereg_mr(m1);
	if (m2)
		ibv_dereg_mr(m2);
	if (ro.p)
		munmap(ro.p, ro.len);
	dp_buf_free(&pin);
}

/* ---- ibv_advise_mr ---------------------------------------------------- */

static int advise(struct ibv_pd *pd, enum ibv_advise_mr_advice adv,
		  uint32_t flags, struct ibv_sge *sge, uint32_t n)
{
	return ibv_advise_mr(pd, adv, flags, sge, n);
}

/* @ret is one of the @n errnos in @e; diagnosed if not. */
static int errno_in(int ret, const int *e, int n, const char *what)
{
	int i;

	for (i = 0; i < n; i++)
		if (ret == e[i])
			return 1;
	diag("%s: got %s (%d)", what, ret ? strerror(ret) : "success", ret);
	return 0;
}

static void t_advise(void)
{
	const uint32_t F = IBV_ADVISE_MR_FLAG_FLUSH;
	struct obuf a, ro, pin;
	struct ibv_pd *pd2 = NULL;
	struct ibv_mr *other = NULL;
	struct ibv_sge s[2];
	uint32_t sd = ++seed, dead;
	uint8_t *buf2 = NULL;
	int r1, r2, st;

	memset(&ro, 0, sizeof(ro));
	memset(&pin, 0, sizeof(pin));
	if (ob_make(&a, 64 * PG, ACC_ODP) ||
	    ob_make(&ro, 8 * PG, IBV_ACCESS_ON_DEMAND | IBV_ACCESS_REMOTE_READ) ||
	    ob_make(&pin, 8 * PG, DP_ACC_ALL)) {
		ok(0, "regions for ibv_advise_mr");
		goto out;
	}

	s[0] = (struct ibv_sge){ VA(a.p), 16 * PG, a.mr->lkey };
	r1 = advise(dp.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, F, s, 1);
	ok(!r1 && resident(a.p, 16 * PG) == 16,
	   "ibv_advise_mr(PREFETCH_WRITE, FLUSH) of 16 untouched pages of an on-demand region: 0 (got %s), the 16 pages resident afterwards (%ld)",
	   r1 ? strerror(r1) : "0", resident(a.p, 16 * PG));
	dp_fill(a.p, 16 * PG, sd);
	memset(pin.p, DP_POISON, pin.len);
	st = rdma(IBV_WR_RDMA_READ, VA(pin.p), 8 * PG, pin.mr->lkey,
		  VA(a.p + 8 * PG), a.mr->rkey, "READ after the prefetch");
	ok(st == IBV_WC_SUCCESS && holds(pin.p, 8 * PG, sd, 8 * PG, "READ"),
	   "the CPU then writes them: an RDMA READ returns what it wrote (the prefetch mapped the process's pages)");

	s[0] = (struct ibv_sge){ VA(a.p + 16 * PG), 16 * PG, a.mr->lkey };
	r1 = advise(dp.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, F, s, 1);
	ok(!r1 && resident(a.p + 16 * PG, 16 * PG) == 16,
	   "PREFETCH with FLUSH of the next 16 untouched pages: 0 (got %s), the pages resident (%ld)",
	   r1 ? strerror(r1) : "0", resident(a.p + 16 * PG, 16 * PG));

	s[0] = (struct ibv_sge){ VA(a.p + 32 * PG), 16 * PG, a.mr->lkey };
	r1 = advise(dp.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, F, s, 1);
	ok(!r1 && resident(a.p + 32 * PG, 16 * PG) == 0,
	   "PREFETCH_NO_FAULT with FLUSH of 16 more untouched pages: 0 (got %s), none made resident (%ld)",
	   r1 ? strerror(r1) : "0", resident(a.p + 32 * PG, 16 * PG));

	s[0] = (struct ibv_sge){ VA(a.p + 48 * PG + 100), 5000, a.mr->lkey };
	s[1] = (struct ibv_sge){ VA(ro.p + 10), 3 * PG, ro.mr->lkey };
	r1 = advise(dp.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, F, s, 2);
	ok(!r1, "PREFETCH with FLUSH of two SGEs, in two on-demand regions (one without write rights), neither page aligned: 0 (got %s)",
	   r1 ? strerror(r1) : "0");

	s[0] = (struct ibv_sge){ VA(pin.p), PG, pin.mr->lkey };
	r1 = advise(dp.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, F, s, 1);
	ok(errno_in(r1, (const int[]){ EINVAL, ENOENT }, 2, "pinned region"),
	   "PREFETCH of a range of a region that is not on demand: EINVAL or ENOENT (got %s)",
	   r1 ? strerror(r1) : "0");

	dead = pin.mr->lkey;
	ob_free(&pin);
	s[0] = (struct ibv_sge){ VA(a.p), PG, dead };
	r1 = advise(dp.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, F, s, 1);
	ok(errno_in(r1, (const int[]){ EINVAL, ENOENT, EFAULT }, 3, "dead lkey"),
	   "PREFETCH through the lkey of a region just deregistered: EINVAL, ENOENT or EFAULT (got %s)",
	   r1 ? strerror(r1) : "0");

	s[0] = (struct ibv_sge){ VA(a.p + a.len - 100), 200, a.mr->lkey };
	r1 = advise(dp.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, F, s, 1);
	s[0] = (struct ibv_sge){ VA(a.p) - 8, 16, a.mr->lkey };
	r2 = advise(dp.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, F, s, 1);
	ok(expect_errno(r1, EFAULT, "past the end") &&
	   expect_errno(r2, EFAULT, "before the start"),
	   "PREFETCH of 200 bytes running 100 past the region's end, PREFETCH_WRITE of 16 bytes starting 8 before its start: EFAULT each");

	s[0] = (struct ibv_sge){ VA(ro.p), PG, ro.mr->lkey };
	r1 = advise(dp.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, F, s, 1);
	ok(expect_errno(r1, EPERM, "PREFETCH_WRITE without write rights"),
	   "PREFETCH_WRITE of an on-demand region registered with REMOTE_READ only: EPERM");

	s[0] = (struct ibv_sge){ VA(a.p), PG, a.mr->lkey };
	r1 = advise(dp.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 2, s, 1);
	r2 = advise(dp.pd, (enum ibv_advise_mr_advice)3, F, s, 1);
	ok(expect_errno(r1, EINVAL, "flags 2") &&
	   expect_errno(r2, EOPNOTSUPP, "advice 3"),
	   "ibv_advise_mr with an unknown flag (2): EINVAL; with an unknown advice (3): EOPNOTSUPP");

	pd2 = ibv_alloc_pd(dp.ctx);
	buf2 = map_anon(4 * PG, PROT_READ | PROT_WRITE);
	errno = 0;
	other = pd2 && buf2 ? ibv_reg_mr(pd2, buf2, 4 * PG, ACC_ODP) : NULL;
	if (other) {
		s[0] = (struct ibv_sge){ VA(buf2), PG, other->lkey };
		r1 = advise(dp.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, F, s, 1);
	} else {
		diag("a PD and an on-demand region in it: %s", strerror(errno));
		r1 = -1;
	}
	ok(other && errno_in(r1, (const int[]){ EPERM, EINVAL, ENOENT }, 3,
			     "another PD"),
	   "PREFETCH naming the PD through an on-demand region of another PD: EPERM, EINVAL or ENOENT (got %s)",
	   r1 > 0 ? strerror(r1) : r1 ? "-" : "0");
out:
	if (other)
		ibv_dereg_mr(other);
	if (pd2)
		ibv_dealloc_pd(pd2);
	if (buf2)
		munmap(buf2, 4 * PG);
	ob_free(&a);
	ob_free(&ro);
	ob_free(&pin);
}

/* ---- fork() ----------------------------------------------------------- */

/*
 * The child: at 'w' it writes stream @cs into the first half of its
 * copy; at 'c' it checks the first half holds @cs and the second the
 * parent's @ps from before the fork.  Each answer is one byte, 1 if
 * good.
 */
static int fork_child(uint8_t *m, size_t len, uint32_t ps, uint32_t cs,
		      int rfd, int wfd)
{
	char c, r;

	if (read(rfd, &c, 1) != 1 || c != 'w')
		return 1;
	dp_fill(m, len / 2, cs);
	r = 1;
	if (write(wfd, &r, 1) != 1)
		return 1;
	if (read(rfd, &c, 1) != 1 || c != 'c')
		return 1;
	r = holds(m, len / 2, cs, 0, "child, first half") &&
	    holds(m + len / 2, len / 2, ps, len / 2, "child, second half");
	if (write(wfd, &r, 1) != 1)
		return 1;
	return 0;
}

static void t_fork(void)
{
	struct obuf b;
	struct dp_buf pin;
	uint32_t ps = ++seed, cs = ++seed, ns = ++seed, len = 16 * PG;
	int p2c[2] = { -1, -1 }, c2p[2] = { -1, -1 };
	int st, good, status = -1;
	pid_t pid = -1;
	char c, r = 0;

	memset(&pin, 0, sizeof(pin));
	if (ob_make(&b, len, ACC_ODP) ||
	    dp_buf_alloc(&pin, dp.pd, len, DP_ACC_ALL) || pipe(p2c) ||
	    pipe(c2p)) {
		ok(0, "a region, pipes");
		goto out;
	}
	dp_fill(pin.p, len, ps);
	st = rdma(IBV_WR_RDMA_WRITE, VA(pin.p), len, pin.mr->lkey, VA(b.p),
		  b.mr->rkey, "WRITE before fork");
	good = st == IBV_WC_SUCCESS && holds(b.p, len, ps, 0, "before fork");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		_exit(fork_child(b.p, len, ps, cs, p2c[0], c2p[1]));
	}
	close(p2c[0]);
	close(c2p[1]);
	p2c[0] = c2p[1] = -1;
	if (pid < 0)
		diag("fork: %s", strerror(errno));
	c = 'w';
	good &= pid > 0 && write(p2c[1], &c, 1) == 1 &&
		read(c2p[0], &r, 1) == 1 && r == 1;
	memset(pin.p, DP_POISON, len);
	st = rdma(IBV_WR_RDMA_READ, VA(pin.p), len, pin.mr->lkey, VA(b.p),
		  b.mr->rkey, "READ after fork");
	ok(good && st == IBV_WC_SUCCESS && holds(pin.p, len, ps, 0, "READ"),
	   "a WRITE of 64 KiB into an on-demand region, fork(), the child writes the first half of its copy: the parent's READ of the region returns what the WRITE left, not the child's bytes");

	dp_fill(pin.p, len, ns);
	st = rdma(IBV_WR_RDMA_WRITE, VA(pin.p), len, pin.mr->lkey, VA(b.p),
		  b.mr->rkey, "WRITE after fork");
	ok(st == IBV_WC_SUCCESS && holds(b.p, len, ns, 0, "parent"),
	   "the parent's WRITE of new bytes into all of it: the parent's CPU reads them");

	c = 'c';
	r = 0;
	good = pid > 0 && write(p2c[1], &c, 1) == 1 &&
	       read(c2p[0], &r, 1) == 1 && r == 1;
	close(p2c[1]);
	p2c[1] = -1;
	if (pid > 0 && waitpid(pid, &status, 0) != pid)
		status = -1;
	ok(good && status == 0,
	   "the child's copy holds its own first half and the pre-fork second half, none of the parent's new bytes; it exits with 0 (status 0x%x)",
	   status);
out:
	for (st = 0; st < 2; st++) {
		if (p2c[st] >= 0)
			close(p2c[st]);
		if (c2p[st] >= 0)
			close(c2p[st]);
	}
	ob_free(&b);
	dp_buf_free(&pin);
}

/* ---- implicit on-demand paging ---------------------------------------- */

/* The chunks orca.ko maps an implicit region by (orca_odp.c). */
#define IMP_CHUNK	(2UL << 20)
#define IMP_LEN		(16 * PG)
/* An address no process can map (the kernel's half on x86-64). */
#define IMP_KERNEL_VA	0xffff888000000000ULL
/* User addresses no mapping of this test reaches (mmap goes top down). */
#define IMP_FAR_VA	0x100000000000ULL

/* Source data of the implicit tests in .bss: any memory of the process. */
static uint8_t imp_bss[IMP_LEN];

/*
 * SEND @len bytes at @src to a receive at @dst, both through lkey @key:
 * the SEND's status (RECV checked), -1 if anything else went wrong.
 */
static int imp_send(uint8_t *src, uint8_t *dst, uint32_t len, uint32_t key,
		    const char *what)
{
	struct ibv_sge s = { VA(src), len, key };
	struct ibv_sge r = { VA(dst), len, key };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND };
	struct dp_wc_want w = { 0, IBV_WC_SUCCESS, IBV_WC_RECV, len, 0, -1,
				0, -1 };
	struct ibv_wc wc;
	int st;

	ready();
	w.wr_id = ++wr_id;
	w.qp_num = p.b.qp->qp_num;
	if (dp_post_recv(p.b.qp, w.wr_id, &r, 1))
		return -1;
	st = post_wait(&p, &wr, IBV_WC_SEND, what);
	if (st != IBV_WC_SUCCESS) {
		/* The receive is flushed with the pair. */
		p_stale = 1;
		return st;
	}
	if (!dp_poll1(p.b.rcq, &wc, what) || !dp_wc_check(&wc, &w, what)) {
		p_stale = 1;
		return -1;
	}
	return st;
}

static void t_implicit(void)
{
	const uint32_t F = IBV_ADVISE_MR_FLAG_FLUSH;
	uint8_t *a = NULL, *b = NULL, *c = NULL, *big = NULL, *edge;
	uint32_t sd = ++seed, key = 0;
	struct ibv_mr *imr, *mr;
	struct ibv_sge sge;
	uint64_t v;
	int i, r, st, good, e;

	errno = 0;
	mr = ibv_reg_mr_iova(dp.pd, NULL, SIZE_MAX, PG, ACC_ODP);
	e = errno;
	if (mr)
		ibv_dereg_mr(mr);
	ok(!mr && e == EINVAL,
	   "implicit ODP (address NULL, length SIZE_MAX) at iova 4096 instead of 0: EINVAL (got %s)",
	   mr ? "a region" : strerror(e));

	errno = 0;
	imr = ibv_reg_mr(dp.pd, NULL, SIZE_MAX, ACC_ODP);
	if (!imr)
		diag("ibv_reg_mr(NULL, SIZE_MAX, ON_DEMAND): %s",
		     strerror(errno));
	if (!ok(imr && !imr->addr && imr->length == SIZE_MAX &&
		imr->lkey == imr->rkey,
		"implicit ODP: ibv_reg_mr(NULL, SIZE_MAX, ON_DEMAND and every right) is a region of the whole address space, lkey = rkey"))
		return;
	key = imr->lkey;

	/* Memory the process maps only after the registration. */
	a = map_anon(IMP_LEN, PROT_READ | PROT_WRITE);
	b = map_anon(IMP_LEN, PROT_READ | PROT_WRITE);
	c = map_anon(IMP_LEN, PROT_READ | PROT_WRITE);
	if (!ok(a && b && c, "three mappings of 64 KiB made after the registration"))
		goto out;

	dp_fill(a, IMP_LEN, sd);
	st = rdma(IBV_WR_RDMA_WRITE, VA(a) + 100, IMP_LEN - 200, key,
		  VA(b) + 100, key, "implicit WRITE");
	ok(st == IBV_WC_SUCCESS && holds(b + 100, IMP_LEN - 200, sd, 100, "WRITE") &&
	   all_are(b, 100, 0, "before") &&
	   all_are(b + IMP_LEN - 100, 100, 0, "after"),
	   "RDMA WRITE of 64 KiB - 200 bytes between two of them, local and remote key the implicit region's: the bytes land, those around stay zero");

	st = rdma(IBV_WR_RDMA_READ, VA(c), IMP_LEN, key, VA(b), key,
		  "implicit READ");
	ok(st == IBV_WC_SUCCESS && holds(c + 100, IMP_LEN - 200, sd, 100, "READ") &&
	   all_are(c, 100, 0, "READ before"),
	   "RDMA READ of 64 KiB back into the third: the same bytes");

	dp_fill(imp_bss, IMP_LEN, sd + 1);
	memset(c, 0, IMP_LEN);
	st = imp_send(imp_bss, c, IMP_LEN, key, "implicit SEND");
	ok(st == IBV_WC_SUCCESS && holds(c, IMP_LEN, sd + 1, 0, "SEND"),
	   "SEND of 64 KiB from the program's .bss into a receive in a mapping, both through the implicit lkey");

	memcpy(b, &(uint64_t){ 41 }, 8);
	st = atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, VA(a), key, VA(b), key, 1, 0,
		    "implicit FETCH_ADD");
	v = word(b);
	ok(st == IBV_WC_SUCCESS && word(a) == 41 && v == 42,
	   "FETCH_ADD on a word of a mapping through the implicit rkey: old value 41 returned, 42 left (got %llu)",
	   (unsigned long long)v);

	/* An access across two of the driver's chunks. */
	big = mmap(NULL, 3 * IMP_CHUNK, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (big == MAP_FAILED)
		big = NULL;
	if (!ok(big != NULL, "a mapping of 6 MiB, never touched"))
		goto out;
	madvise(big, 3 * IMP_CHUNK, MADV_NOHUGEPAGE);
	/* A chunk boundary more than a chunk inside, less than two. */
	edge = (uint8_t *)(((uintptr_t)big + 2 * IMP_CHUNK) & ~(IMP_CHUNK - 1));
	dp_fill(edge - IMP_LEN / 2, IMP_LEN, sd + 2);
	st = rdma(IBV_WR_RDMA_WRITE, VA(edge) - IMP_LEN / 2, IMP_LEN, key,
		  VA(a), key, "WRITE from across");
	good = st == IBV_WC_SUCCESS && holds(a, IMP_LEN, sd + 2, 0, "across");
	dp_fill(b, IMP_LEN, sd + 3);
	st = rdma(IBV_WR_RDMA_READ, VA(edge) + PG - IMP_LEN, IMP_LEN, key,
		  VA(b), key, "READ into across");
	ok(good && st == IBV_WC_SUCCESS &&
	   holds(edge + PG - IMP_LEN, IMP_LEN, sd + 3, 0, "READ across") &&
	   holds(edge + PG, IMP_LEN / 2 - PG, sd + 2, IMP_LEN / 2 + PG,
		 "beyond"),
	   "a WRITE from and a READ into 64 KiB across a 2 MiB boundary of a 6 MiB mapping (two of the driver's chunks): the bytes arrive, the bytes beyond unchanged");

	/* Invalidation: the process's new pages, not the old ones. */
	good = !madvise(b, IMP_LEN, MADV_DONTNEED);
	st = good ? rdma(IBV_WR_RDMA_READ, VA(c), IMP_LEN, key, VA(b), key,
			 "READ after DONTNEED") : -1;
	good = good && st == IBV_WC_SUCCESS && all_are(c, IMP_LEN, 0, "zeroes");
	dp_fill(a, IMP_LEN, sd + 4);
	st = good ? rdma(IBV_WR_RDMA_WRITE, VA(a), IMP_LEN, key, VA(b), key,
			 "WRITE after DONTNEED") : -1;
	ok(good && st == IBV_WC_SUCCESS && holds(b, IMP_LEN, sd + 4, 0, "CPU"),
	   "after MADV_DONTNEED of the sink a READ through the implicit region returns zeroes, and a WRITE lands in the pages the CPU reads");

	/* advise_mr on the implicit region. */
	sge = (struct ibv_sge){ VA(big) + 2 * IMP_CHUNK, 4 * PG, key };
	r = advise(dp.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, F, &sge, 1);
	ok(!r && resident(big + 2 * IMP_CHUNK, 4 * PG) == 4,
	   "ibv_advise_mr(PREFETCH_WRITE, FLUSH) of 4 untouched pages through the implicit lkey: 0 (got %d), the pages resident",
	   r);

	/* A range the process never mapped: nothing to do, nothing made. */
	sge = (struct ibv_sge){ IMP_FAR_VA, UINT32_MAX, key };
	for (i = 0, r = 0; i < 256 && !r; i++, sge.addr += 1ULL << 32)
		r = advise(dp.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, F,
			   &sge, 1);
	ok(!r,
	   "ibv_advise_mr(PREFETCH_NO_FAULT) of 1 TiB at 0x%llx that the process never mapped, through the implicit lkey: 0 (got %s)",
	   IMP_FAR_VA, r ? strerror(r) : "0");

	/* Where the process has no memory. */
	munmap(big, 3 * IMP_CHUNK);
	big = NULL;
	sge = (struct ibv_sge){ VA(edge), PG, key };
	r = advise(dp.pd, IBV_ADVISE_MR_ADVICE_PREFETCH, F, &sge, 1);
	ok(r == EFAULT, "ibv_advise_mr of an address unmapped since: EFAULT (got %s)",
	   r ? strerror(r) : "success");
	st = rdma(IBV_WR_RDMA_WRITE, VA(a), PG, key, VA(edge), key,
		  "WRITE to unmapped");
	ok(st == IBV_WC_REM_ACCESS_ERR,
	   "an RDMA WRITE to an address unmapped since, through the implicit rkey: REM_ACCESS_ERR (got %s)",
	   st < 0 ? "no completion" : ibv_wc_status_str(st));
	st = imp_send((uint8_t *)(uintptr_t)IMP_KERNEL_VA, c, 64, key,
		      "SEND from the kernel's half");
	ok(st == IBV_WC_LOC_PROT_ERR,
	   "a SEND from 0x%llx (beyond user space) through the implicit lkey: LOC_PROT_ERR (got %s)",
	   IMP_KERNEL_VA, st < 0 ? "no completion" : ibv_wc_status_str(st));

	/* A new registration: rights change, keys change. */
	r = ibv_rereg_mr(imr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			 IBV_ACCESS_ON_DEMAND);
	st = r ? -1 : rdma(IBV_WR_RDMA_READ, VA(c), IMP_LEN, imr->lkey,
			   VA(b), imr->rkey, "READ after rereg");
	good = !r && st == IBV_WC_SUCCESS && holds(c, IMP_LEN, sd + 4, 0, "rereg");
	st = good ? rdma(IBV_WR_RDMA_WRITE, VA(a), PG, imr->lkey, VA(b),
			 imr->rkey, "WRITE after rereg") : -1;
	ok(good && st == IBV_WC_REM_ACCESS_ERR && !imr->addr &&
	   imr->length == SIZE_MAX,
	   "ibv_rereg_mr(CHANGE_ACCESS) of the implicit region to LOCAL_WRITE | REMOTE_READ: 0 (got %d); still the whole address space; READ works, WRITE is REM_ACCESS_ERR (got %s)",
	   r, st < 0 ? "no completion" : ibv_wc_status_str(st));
out:
	if (big)
		munmap(big, 3 * IMP_CHUNK);
	r = ibv_dereg_mr(imr);
	ok(!r, "the implicit region deregistered: %s", r ? strerror(r) : "0");
	if (a)
		munmap(a, IMP_LEN);
	if (b)
		munmap(b, IMP_LEN);
	if (c)
		munmap(c, IMP_LEN);
}

/* ---- memory pressure -------------------------------------------------- */

#define CHUNK		(256U << 10)	/* one request's bytes */

/*
 * A thread that keeps asking the kernel to page the region out, a chunk
 * at a time, round the region, skipping the chunk the requests use
 * (cur): a page taken away from under a request again and again would
 * let the request make progress only when the timing allows.  The
 * chunk can change while a call is under way: a request then sees its
 * pages taken away once, no more.
 */
struct pageout {
	uint8_t *p;
	size_t nc;		/* chunks */
	size_t cur;		/* the chunk in use (atomic) */
	int stop;
	long calls, fails;
	pthread_t th;
};

static void *pageout_loop(void *arg)
{
	struct pageout *po = arg;
	size_t k = 0;

	while (!__atomic_load_n(&po->stop, __ATOMIC_ACQUIRE)) {
		k = (k + 1) % po->nc;
		if (k != __atomic_load_n(&po->cur, __ATOMIC_ACQUIRE)) {
			if (madvise(po->p + k * CHUNK, CHUNK, MADV_PAGEOUT))
				po->fails++;
			else
				po->calls++;
		}
		dp_sleep_ms(2);
	}
	return NULL;
}

/* The next requests use chunk @c: the thread leaves it alone. */
static void pageout_use(struct pageout *po, size_t c)
{
	__atomic_store_n(&po->cur, c, __ATOMIC_RELEASE);
}

/* pswpout of /proc/vmstat, or -1. */
static long pswpout(void)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char name[64];
	long v, r = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", name, &v) == 2)
		if (!strcmp(name, "pswpout"))
			r = v;
	fclose(f);
	return r;
}

static uint32_t chunk_seed(int pass, size_t c)
{
	return 1000 + (uint32_t)pass * 65536 + (uint32_t)c;
}

/* A READ of chunk @c of @b into @snk: 1 if it holds stream @s. */
static int read_chunk(struct obuf *b, struct dp_buf *snk, size_t c,
		      uint32_t s, const char *what)
{
	int st;

	memset(snk->p, DP_POISON, CHUNK);
	st = rdma(IBV_WR_RDMA_READ, VA(snk->p), CHUNK, snk->mr->lkey,
		  VA(b->p + c * CHUNK), b->mr->rkey, what);
	if (st != IBV_WC_SUCCESS || !holds(snk->p, CHUNK, s, 0, what)) {
		diag("%s: chunk %zu (bytes %zu to %zu)", what, c, c * CHUNK,
		     (c + 1) * CHUNK - 1);
		return 0;
	}
	return 1;
}

/*
 * odp DEVICE pressure anon MIB: a region of MIB MiB of anonymous memory,
 * every right.  With a thread calling
 * MADV_PAGEOUT over it all along (and, as the .t runs it, in a memory
 * cgroup smaller than the region, with swap): two passes of, for each
 * 256 KiB chunk, a WRITE of new bytes into it, a READ of it and the CPU
 * reading it; then MADV_PAGEOUT of all of it, and a READ of each chunk
 * again, the device the first to touch the pages.
 *
 * odp DEVICE pressure file MIB PATH: PATH is written with MIB MiB of a
 * pattern, mapped MAP_PRIVATE and PROT_READ (page cache, which the
 * kernel drops without swap) and registered with REMOTE_READ: two
 * passes of a READ of each chunk and the CPU reading it, the thread as
 * above; then MADV_PAGEOUT of all of it and a READ of each chunk again.
 */
static int pressure_main(int argc, char **argv)
{
	int file = argc >= 6 && !strcmp(argv[3], "file");
	size_t mib = argc >= 5 ? strtoul(argv[4], NULL, 0) : 0;
	size_t len = mib << 20, nc = len / CHUNK, c;
	struct pageout po;
	struct dp_buf src, snk;
	struct obuf b;
	long sw0, sw1, res, t0 = dp_now_ms();
	int pass, st, good, started = 0, fd = -1;

	if ((!file && (argc != 5 || strcmp(argv[3], "anon"))) ||
	    (file && argc != 6) || !mib || mib > 4096) {
		fprintf(stderr, "usage: %s DEVICE pressure anon MIB | file MIB PATH\n",
			argv[0]);
		return 2;
	}
	dp_open(argc, argv);
	dp_cfg_default(&cfg, IBV_QPT_RC);
	memset(&b, 0, sizeof(b));
	memset(&src, 0, sizeof(src));
	memset(&snk, 0, sizeof(snk));
	memset(&po, 0, sizeof(po));
	good = !dp_pair_make(&p, &cfg) &&
	       !dp_buf_alloc(&src, dp.pd, CHUNK, DP_ACC_ALL) &&
	       !dp_buf_alloc(&snk, dp.pd, CHUNK, DP_ACC_ALL);
	if (good && file) {
		fd = open(argv[5], O_RDWR | O_CREAT | O_TRUNC, 0600);
		for (c = 0; fd >= 0 && good && c < nc; c++) {
			dp_fill(src.p, CHUNK, chunk_seed(0, c));
			good = pwrite(fd, src.p, CHUNK, (off_t)(c * CHUNK)) ==
			       (ssize_t)CHUNK;
		}
		if (fd < 0 || !good || fsync(fd)) {
			diag("%s: %s", argv[5], strerror(errno));
			good = 0;
		}
		if (good) {
			b.p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
			if (b.p == MAP_FAILED) {
				diag("mmap of %s: %s", argv[5], strerror(errno));
				b.p = NULL;
				good = 0;
			}
		}
		if (fd >= 0)
			close(fd);
		b.len = len;
		good = good && !ob_reg(&b, dp.pd, IBV_ACCESS_ON_DEMAND |
				      IBV_ACCESS_REMOTE_READ);
	} else if (good) {
		b.p = map_anon(len, PROT_READ | PROT_WRITE);
		b.len = len;
		good = b.p && !ob_reg(&b, dp.pd, ACC_ODP);
	}
	if (!ok(good,
		file ? "%zu MiB of a file (%s) written with a pattern, mapped MAP_PRIVATE and PROT_READ, registered with ON_DEMAND | REMOTE_READ; pinned buffers; an RC pair" :
		"%zu MiB of anonymous memory%s registered with ON_DEMAND and every right; pinned buffers; an RC pair",
		mib, file ? argv[5] : ""))
		goto out;
	diag("set up in %ld ms", dp_now_ms() - t0);

	sw0 = pswpout();
	po.p = b.p;
	po.nc = nc;
	started = !pthread_create(&po.th, NULL, pageout_loop, &po);
	if (!started)
		diag("pthread_create failed");
	for (pass = 0; pass < 2; pass++) {
		t0 = dp_now_ms();
		good = started;
		for (c = 0; good && c < nc; c++) {
			uint32_t s = chunk_seed(file ? 0 : pass, c);

			pageout_use(&po, c);
			if (!file) {
				dp_fill(src.p, CHUNK, s);
				st = rdma(IBV_WR_RDMA_WRITE, VA(src.p), CHUNK,
					  src.mr->lkey, VA(b.p + c * CHUNK),
					  b.mr->rkey, "WRITE of a chunk");
				good = st == IBV_WC_SUCCESS;
			}
			good = good && read_chunk(&b, &snk, c, s, "READ") &&
			       holds(b.p + c * CHUNK, CHUNK, s, 0, "the CPU");
		}
		diag("pass %d: %ld ms", pass + 1, dp_now_ms() - t0);
		ok(good,
		   file ? "pass %d, pages taken away all along: a READ of each 256 KiB of the %zu MiB returns the file's bytes, and so does the CPU" :
		   "pass %d, pages taken away all along: for each 256 KiB of the %zu MiB, a WRITE of new bytes, then a READ returns them, and so does the CPU",
		   pass + 1, mib);
	}
	if (started) {
		__atomic_store_n(&po.stop, 1, __ATOMIC_RELEASE);
		pthread_join(po.th, NULL);
	}
	diag("MADV_PAGEOUT by the thread: %ld calls, %ld failed", po.calls,
	     po.fails);

	t0 = dp_now_ms();
	if (madvise(b.p, len, MADV_PAGEOUT))
		diag("madvise(MADV_PAGEOUT): %s", strerror(errno));
	res = resident(b.p, len);
	sw1 = pswpout();
	diag("pswpout %ld -> %ld", sw0, sw1);
	ok(po.calls > 0 && res >= 0 && res < (long)(len / PG) &&
	   (file || sw1 > sw0),
	   file ? "the pages were taken away: after MADV_PAGEOUT of the whole region, %ld of its %zu pages are resident" :
	   "the pages were taken away: after MADV_PAGEOUT of the whole region, %ld of its %zu pages are resident; pages were swapped out (pswpout went up)",
	   res, len / PG);

	good = 1;
	for (c = 0; good && c < nc; c++)
		good = read_chunk(&b, &snk, c, chunk_seed(file ? 0 : 1, c),
				  "READ after paging out");
	diag("after MADV_PAGEOUT: %ld ms", dp_now_ms() - t0);
	ok(good,
	   "then a READ of each 256 KiB, the device the first to touch the pages again: each returns the bytes it must");
out:
	dp_pair_destroy(&p);
	good = ob_free(&b);
	dp_buf_free(&src);
	dp_buf_free(&snk);
	if (file && unlink(argv[5]))
		diag("unlink %s: %s", argv[5], strerror(errno));
	ok(good, "the region deregistered, the QPs and CQs destroyed");
	return dp_close();
}

int main(int argc, char **argv)
{
	int good;

	signal(SIGPIPE, SIG_IGN);
	if (argc >= 3 && !strcmp(argv[2], "pressure"))
		return pressure_main(argc, argv);
	dp_open(argc, argv);
	dp_cfg_default(&cfg, IBV_QPT_RC);
	t_caps();
	if (!ok(!dp_pair_make(&p, &cfg),
		"an RC pair on the device (path MTU %u)", dp_mtu_bytes()))
		return dp_close();
	t_reg();
	t_xfers();
	t_atomics();
	t_srq();
	t_xrc();
	t_ud();
	t_sg();
	t_iova();
	t_later();
	t_rereg();
	t_invalidate();
	t_munmap();
	t_readonly();
	t_advise();
	t_fork();
	t_implicit();
	dp_pair_destroy(&p);
	good = ob_free(&later);
	ok(good, "every region deregistered, every QP, CQ and SRQ destroyed");
	return dp_close();
}
