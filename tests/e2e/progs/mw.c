// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory windows (ibv_alloc_mw(3), ibv_bind_mw(3) and IBV_WR_BIND_MW of
 * ibv_post_send(3)) checked through RDMA traffic between two RC QPs of
 * the device: b, the responder, owns the memory behind the windows and
 * binds them; a reaches that memory through their keys.
 *
 * Type 1 windows: bind, rebind and unbind, the range and the rights a
 * window grants, its key never a local key, the errors ibv_bind_mw()
 * returns and the binds the device refuses (MW_BIND_ERR, the QP in
 * error).  Type 2 windows (2B): bound by a send WR, serving only the QP
 * that bound them, zero based, invalidated by LOCAL_INV and by
 * SEND_WITH_INV, and the binds refused when posted.  Lifetimes: a region
 * with a window bound is not deregistered, a PD with a window is not
 * deallocated, a bound window is deallocated.
 *
 * A request or bind that fails takes the QPs to error: the pair is
 * renewed after each (a type 1 window belongs to its PD and outlives
 * the pair; a type 2 window is unbound when the QP that bound it goes).
 * Prints TAP.  Usage: mw DEVICE
 */
#include <stdint.h>

#include "e2e_tap.h"
#include "dp_common.h"

#define LEN		8192	/* each of b's buffers, t and t2 */
#define XFER		64	/* bytes of each RDMA WRITE, READ and SEND */
#define WOFF		1024	/* window range A: t[WOFF, WOFF + WIN) */
#define WIN		2048
#define WOFF2		4096	/* window range B: t[WOFF2, WOFF2 + WIN2) */
#define WIN2		1024
#define ADD		0x0000000100000001ULL	/* what each FETCH_ADD adds */
#define ACC_RW		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)
#define MW_RW		(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
#define MW_ALL		(MW_RW | IBV_ACCESS_REMOTE_ATOMIC)
#define VA(x)		((uint64_t)(uintptr_t)(x))

static struct dp_qp_cfg cfg;
static struct dp_pair p;	/* a requests, b binds and responds */
static struct dp_buf src;	/* a's buffer, in dp.pd */
static struct dp_buf rcv;	/* b's receive buffer, in dp.pd */
static struct ibv_mr *mr;	/* t, with MW_BIND and every right */
static uint8_t *t, *t2;		/* b's memory behind the windows */
static uint8_t want[XFER];
static uint64_t wr_id;
static uint32_t seed = 1;

/* After a failed request or bind the QPs are in error: a new pair. */
static void renew(struct dp_pair *pp)
{
	dp_pair_destroy(pp);
	if (dp_pair_make(pp, &cfg))
		diag("a new pair: failed");
}

static const char *op_str(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE: return "WRITE";
	case IBV_WR_RDMA_READ: return "READ";
	case IBV_WR_ATOMIC_FETCH_AND_ADD: return "FETCH_ADD";
	default: return "?";
	}
}

/* n bytes at m all still hold the poison they were given. */
static int untouched(const uint8_t *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (m[i] != DP_POISON)
			return 0;
	return 1;
}

/*
 * The completion on @cq of the signalled WR just posted (number wr_id):
 * its status, diagnosed unless SUCCESS; -1 if none came, another WR's
 * came, or a successful one has another opcode than @opcode.
 */
static int done(struct ibv_cq *cq, enum ibv_wc_opcode opcode, const char *what)
{
	struct ibv_wc wc;

	if (!dp_poll1(cq, &wc, what))
		return -1;
	if (wc.wr_id != wr_id ||
	    (wc.status == IBV_WC_SUCCESS && wc.opcode != opcode)) {
		dp_wc_diag(what, &wc);
		diag("%s: wanted wr_id 0x%llx, opcode %s", what,
		     (unsigned long long)wr_id, dp_wc_opcode_str(opcode));
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS)
		diag("%s: %s", what, ibv_wc_status_str(wc.status));
	return wc.status;
}

/*
 * One signalled RDMA @op from end @e between (@laddr, @lkey) and
 * (@raddr, @rkey): XFER bytes for WRITE and READ, 8 for FETCH_ADD (which
 * adds ADD).  The completion's status, or -1 if there was none.
 */
static int rdma(struct dp_end *e, enum ibv_wr_opcode op, void *laddr,
		uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = VA(laddr), .length = XFER, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = ++wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
	};
	enum ibv_wc_opcode wc_op = IBV_WC_RDMA_WRITE;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		sge.length = 8;
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = ADD;
		wc_op = IBV_WC_FETCH_ADD;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
		if (op == IBV_WR_RDMA_READ)
			wc_op = IBV_WC_RDMA_READ;
	}
	if (!e->qp || dp_post_send(e->qp, &wr))
		return -1;
	return done(e->scq, wc_op, op_str(op));
}

/* a WRITEs fresh pattern bytes to @raddr through @rkey: 1 if they land at @dst. */
static int lands_at(struct dp_pair *pp, uint8_t *dst, uint64_t raddr,
		    uint32_t rkey)
{
	dp_fill(want, XFER, ++seed);
	memcpy(src.p, want, XFER);
	return rdma(&pp->a, IBV_WR_RDMA_WRITE, src.p, src.mr->lkey, raddr,
		    rkey) == IBV_WC_SUCCESS &&
	       dp_cmp(dst, want, XFER, "WRITE target");
}

static int lands(struct dp_pair *pp, uint8_t *dst, uint32_t rkey)
{
	return lands_at(pp, dst, VA(dst), rkey);
}

/* a READs @mem (given fresh pattern bytes) through @rkey: 1 if it got them. */
static int reads(struct dp_pair *pp, uint8_t *mem, uint32_t rkey)
{
	dp_fill(mem, XFER, ++seed);
	memset(src.p, DP_POISON, XFER);
	return rdma(&pp->a, IBV_WR_RDMA_READ, src.p, src.mr->lkey, VA(mem),
		    rkey) == IBV_WC_SUCCESS &&
	       dp_cmp(src.p, mem, XFER, "READ");
}

/* A FETCH_ADD on the 8 bytes at @mem: the old value back and ADD added. */
static int fadd(struct dp_pair *pp, uint8_t *mem, uint32_t rkey)
{
	uint64_t before = 0x1122334455667788ULL ^ ++seed, got, now;

	memcpy(mem, &before, 8);
	memset(src.p, DP_POISON, 8);
	if (rdma(&pp->a, IBV_WR_ATOMIC_FETCH_AND_ADD, src.p, src.mr->lkey,
		 VA(mem), rkey) != IBV_WC_SUCCESS)
		return 0;
	memcpy(&got, src.p, 8);
	memcpy(&now, mem, 8);
	if (got != before || now != before + ADD) {
		diag("FETCH_ADD: returned 0x%llx (want 0x%llx), memory now 0x%llx (want 0x%llx)",
		     (unsigned long long)got, (unsigned long long)before,
		     (unsigned long long)now,
		     (unsigned long long)(before + ADD));
		return 0;
	}
	return 1;
}

/*
 * A request from a that b must refuse: @op at @raddr through @rkey,
 * @mem the XFER bytes of b's memory it names.  It completes with
 * REM_ACCESS_ERR and changes neither @mem nor a's buffer.  The pair is
 * renewed afterwards (both QPs are in error).
 */
static int denied_at(struct dp_pair *pp, enum ibv_wr_opcode op,
		     const uint8_t *mem, uint64_t raddr, uint32_t rkey)
{
	uint8_t before[XFER], local[XFER];
	int st, good;

	dp_fill(src.p, XFER, ++seed);
	memcpy(local, src.p, XFER);
	memcpy(before, mem, XFER);
	st = rdma(&pp->a, op, src.p, src.mr->lkey, raddr, rkey);
	good = st == IBV_WC_REM_ACCESS_ERR;
	if (!good)
		diag("%s through key 0x%x: status %s, want REM_ACCESS_ERR",
		     op_str(op), rkey,
		     st >= 0 ? ibv_wc_status_str(st) : "no completion");
	good &= dp_cmp(mem, before, XFER, "b's memory");
	good &= dp_cmp(src.p, local, XFER, "a's buffer");
	renew(pp);
	return good;
}

static int denied(struct dp_pair *pp, enum ibv_wr_opcode op,
		  const uint8_t *mem, uint32_t rkey)
{
	return denied_at(pp, op, mem, VA(mem), rkey);
}

/* ---- binds -------------------------------------------------------------- */

/* Post a signalled type 1 bind on @e's QP: ibv_bind_mw's value. */
static int bind1_post(struct dp_end *e, struct ibv_mw *mw,
		      struct ibv_mr *bmr, void *addr, uint64_t len,
		      unsigned int access)
{
	struct ibv_mw_bind b = {
		.wr_id = ++wr_id, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = bmr, .addr = VA(addr), .length = len,
			       .mw_access_flags = access },
	};

	return e->qp ? ibv_bind_mw(e->qp, mw, &b) : -1;
}

/*
 * A type 1 bind (@bmr NULL, @addr NULL and @len 0: an unbind) by b: the
 * status of its completion, or -1 if it was not posted or not completed.
 */
static int bind1(struct ibv_mw *mw, struct ibv_mr *bmr, void *addr,
		 uint64_t len, unsigned int access)
{
	int ret = bind1_post(&p.b, mw, bmr, addr, len, access);

	if (ret) {
		diag("ibv_bind_mw: %s", ret > 0 ? strerror(ret) : "no QP");
		return -1;
	}
	return done(p.b.scq, IBV_WC_BIND_MW, "BIND_MW");
}

/* Post a signalled type 2 bind to key @rkey on b's QP: ibv_post_send's value. */
static int bind2_post(struct ibv_mw *mw, uint32_t rkey, struct ibv_mr *bmr,
		      void *addr, uint64_t len, unsigned int access)
{
	struct ibv_send_wr wr = {
		.wr_id = ++wr_id, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_mw = {
			.mw = mw, .rkey = rkey,
			.bind_info = { .mr = bmr, .addr = VA(addr),
				       .length = len,
				       .mw_access_flags = access },
		},
	}, *bad = NULL;

	return p.b.qp ? ibv_post_send(p.b.qp, &wr, &bad) : -1;
}

/*
 * A type 2 bind by b to the window's next key, ibv_inc_rkey(mw->rkey):
 * the status of its completion (-1: none).  On success mw->rkey is set
 * to the new key, as the application must (ibv_post_send(3)).
 */
static int bind2(struct ibv_mw *mw, struct ibv_mr *bmr, void *addr,
		 uint64_t len, unsigned int access)
{
	uint32_t key = ibv_inc_rkey(mw->rkey);
	int ret = bind2_post(mw, key, bmr, addr, len, access), st;

	if (ret) {
		diag("ibv_post_send(BIND_MW): %s",
		     ret > 0 ? strerror(ret) : "no QP");
		return -1;
	}
	st = done(p.b.scq, IBV_WC_BIND_MW, "BIND_MW");
	if (st == IBV_WC_SUCCESS)
		mw->rkey = key;
	return st;
}

/*
 * A bind refused when posted: @got is @wanted, nothing completes on b's
 * send CQ and the window's key is still @key (put back if not).
 */
static int post_fails(int got, int wanted, struct ibv_mw *mw, uint32_t key,
		      const char *what)
{
	int good = expect_errno(got, wanted, what);

	if (p.b.scq && !dp_cq_empty(p.b.scq, what))
		good = 0;
	if (mw->rkey != key) {
		diag("%s: mw->rkey changed from 0x%x to 0x%x", what, key,
		     mw->rkey);
		mw->rkey = key;
		good = 0;
	}
	return good;
}

/*
 * A bind that b's device refused: @st is MW_BIND_ERR, b's QP is in ERR
 * and its next WR (a WRITE to a's buffer) completes with WR_FLUSH_ERR.
 * The pair is renewed afterwards.
 */
static int refused(int st, const char *what)
{
	int state = p.b.qp ? dp_qp_state(p.b.qp) : -1;
	int next = rdma(&p.b, IBV_WR_RDMA_WRITE, src.p, src.mr->lkey,
			VA(src.p + LEN / 2), src.mr->rkey);
	int good = st == IBV_WC_MW_BIND_ERR && state == IBV_QPS_ERR &&
		   next == IBV_WC_WR_FLUSH_ERR;

	if (!good)
		diag("%s: bind %s, QP state %s, next WR %s; want MW_BIND_ERR, ERR, WR_FLUSH_ERR",
		     what, st >= 0 ? ibv_wc_status_str(st) : "not completed",
		     dp_state_str(state),
		     next >= 0 ? ibv_wc_status_str(next) : "not completed");
	renew(&p);
	return good;
}

/*
 * A type 1 bind of a fresh window that the device must refuse: with
 * @stale, the window is first bound (the same way, which must work) and
 * then bound again under the key it had before that bind.  The window
 * is deallocated afterwards.
 */
static int bind1_refused(struct ibv_mr *bmr, void *addr, uint64_t len,
			 unsigned int access, int stale, const char *what)
{
	struct ibv_mw *w = ibv_alloc_mw(dp.pd, IBV_MW_TYPE_1);
	uint32_t key, old;
	int st, good = 1;

	if (!w) {
		diag("%s: ibv_alloc_mw: %s", what, strerror(errno));
		return 0;
	}
	key = w->rkey;
	if (stale) {
		old = key;
		st = bind1(w, bmr, addr, len, access);
		if (st != IBV_WC_SUCCESS || w->rkey != ibv_inc_rkey(old)) {
			diag("%s: the first bind failed", what);
			good = 0;
		}
		key = w->rkey;
		w->rkey = old;	/* the variant before that bind: stale */
		diag("%s: window key 0x%x, bound again as 0x%x", what, key,
		     old);
	}
	st = bind1(w, bmr, addr, len, access);
	/* liborca moved mw->rkey on when posting: the window's key is key. */
	w->rkey = key;
	good &= refused(st, what);
	if (ibv_dealloc_mw(w)) {
		diag("%s: ibv_dealloc_mw failed", what);
		good = 0;
	}
	return good;
}

/*
 * a SENDs with invalidation of @key to b: the SEND completes, b's
 * receive has the bytes, IBV_WC_WITH_INV and invalidated_rkey @key.
 */
static int send_inv(uint32_t key)
{
	struct ibv_sge s = { VA(src.p), XFER, src.mr->lkey };
	struct ibv_sge r = { VA(rcv.p), XFER, rcv.mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED, .invalidate_rkey = key,
	};
	struct dp_wc_want w = { 0, IBV_WC_SUCCESS, IBV_WC_RECV, XFER, 0, -1,
				IBV_WC_WITH_INV, -1 };
	struct ibv_wc wc;
	int good;

	if (!p.a.qp)
		return 0;
	dp_fill(src.p, XFER, ++seed);
	memset(rcv.p, DP_POISON, XFER);
	w.wr_id = ++wr_id;
	w.qp_num = p.b.qp->qp_num;
	if (dp_post_recv(p.b.qp, w.wr_id, &r, 1))
		return 0;
	wr.wr_id = ++wr_id;
	if (dp_post_send(p.a.qp, &wr))
		return 0;
	good = done(p.a.scq, IBV_WC_SEND, "SEND_WITH_INV") == IBV_WC_SUCCESS;
	if (!dp_poll1(p.b.rcq, &wc, "SEND_WITH_INV receive"))
		return 0;
	good &= dp_wc_check(&wc, &w, "SEND_WITH_INV receive");
	if (wc.status == IBV_WC_SUCCESS && wc.invalidated_rkey != key) {
		diag("invalidated_rkey 0x%x, want 0x%x", wc.invalidated_rkey,
		     key);
		good = 0;
	}
	return good && dp_cmp(rcv.p, src.p, XFER, "received bytes");
}

/* LOCAL_INV of @key by b: the status of its completion (-1: none). */
static int local_inv(uint32_t key)
{
	struct ibv_send_wr wr = {
		.wr_id = ++wr_id, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED, .invalidate_rkey = key,
	};

	if (!p.b.qp || dp_post_send(p.b.qp, &wr))
		return -1;
	return done(p.b.scq, IBV_WC_LOCAL_INV, "LOCAL_INV");
}

int main(int argc, char **argv)
{
	struct ibv_mr *mr2, *mr_pd2;
	struct ibv_mw *mw1, *mw2, *w;
	struct ibv_pd *pd2;
	struct dp_pair q;
	uint32_t k0, k1, k2, flags;
	int st, st2, ret, ret2;

	dp_open(argc, argv);
	dp_cfg_default(&cfg, IBV_QPT_RC);
	flags = dp.attr.device_cap_flags;
	ok((flags & IBV_DEVICE_MEM_WINDOW) &&
	   (flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B) && dp.attr.max_mw > 0,
	   "query_device: MEM_WINDOW and MEM_WINDOW_TYPE_2B in device_cap_flags (0x%x), max_mw %d > 0",
	   flags, dp.attr.max_mw);
	if (!ok(!dp_buf_alloc(&src, dp.pd, LEN, ACC_RW) &&
		!dp_buf_alloc(&rcv, dp.pd, 4096, ACC_RW) &&
		!posix_memalign((void **)&t, 4096, LEN) &&
		!posix_memalign((void **)&t2, 4096, LEN) &&
		!dp_pair_make(&p, &cfg), "buffers and an RC pair"))
		return tap_end();
	memset(t, DP_POISON, LEN);
	memset(t2, DP_POISON, LEN);
	pd2 = ibv_alloc_pd(dp.ctx);
	mr_pd2 = pd2 ? ibv_reg_mr(pd2, t2, LEN, ACC_RW | IBV_ACCESS_MW_BIND) :
		 NULL;
	mr = ibv_reg_mr(dp.pd, t, LEN, DP_ACC_ALL | IBV_ACCESS_MW_BIND);
	mw1 = ibv_alloc_mw(dp.pd, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(dp.pd, IBV_MW_TYPE_2);
	if (!ok(pd2 && mr_pd2 && mr && mw1 && mw2 &&
		mw1->type == IBV_MW_TYPE_1 && mw1->pd == dp.pd &&
		mw2->type == IBV_MW_TYPE_2 && mw2->pd == dp.pd,
		"a second PD with an MR; an MR with MW_BIND; alloc_mw of a type 1 and a type 2 window")) {
		diag("last error: %s", strerror(errno));
		return tap_end();
	}
	diag("keys: MR 0x%x, type 1 window 0x%x, type 2 window 0x%x",
	     mr->rkey, mw1->rkey, mw2->rkey);

	/* ---- type 1: bind, and access through the window ------------------ */
	k0 = mw1->rkey;
	st = bind1(mw1, mr, t + WOFF, WIN, MW_ALL);
	ok(st == IBV_WC_SUCCESS && mw1->rkey == ibv_inc_rkey(k0),
	   "type 1 bind by b (ibv_bind_mw 0) to range A with write, read and atomic: completion BIND_MW, mw->rkey 0x%x = ibv_inc_rkey(0x%x)",
	   mw1->rkey, k0);
	k1 = mw1->rkey;
	ok(lands(&p, t + WOFF, k1) && t[WOFF - 1] == DP_POISON,
	   "a's WRITE through the window to its first byte lands; the byte before it is untouched");
	ok(lands(&p, t + WOFF + WIN - XFER, k1) && t[WOFF + WIN] == DP_POISON,
	   "a WRITE ending at its last byte lands; the byte after it is untouched");
	ok(reads(&p, t + WOFF + 256, k1),
	   "a READ through the window returns the region's bytes");
	ok(fadd(&p, t + WOFF + 512, k1),
	   "a FETCH_ADD through the window returns the old value and adds");
	ok(denied(&p, IBV_WR_RDMA_WRITE, t + WOFF + 128, k0),
	   "a WRITE through the key alloc_mw gave (before the bind): REM_ACCESS_ERR, nothing written");
	ok(denied(&p, IBV_WR_RDMA_WRITE, t + WOFF - XFER, k1),
	   "a WRITE just before the window, inside the MR: REM_ACCESS_ERR, nothing written");
	ok(denied(&p, IBV_WR_RDMA_WRITE, t + WOFF + WIN - XFER / 2, k1),
	   "a WRITE across the window's end: REM_ACCESS_ERR, nothing written");

	/* ---- type 1: rebind to range B, write only ----------------------- */
	st = bind1(mw1, mr, t + WOFF2, WIN2, IBV_ACCESS_REMOTE_WRITE);
	ok(st == IBV_WC_SUCCESS && mw1->rkey == ibv_inc_rkey(k1),
	   "type 1 rebind to range B with REMOTE_WRITE only: completion BIND_MW, mw->rkey the next variant");
	k2 = mw1->rkey;
	ok(lands(&p, t + WOFF2, k2) && lands(&p, t + WOFF2 + WIN2 - XFER, k2) &&
	   t[WOFF2 - 1] == DP_POISON && t[WOFF2 + WIN2] == DP_POISON,
	   "WRITEs through the new key to B's first and last bytes land, the bytes around B untouched");
	ok(denied(&p, IBV_WR_RDMA_WRITE, t + WOFF2 + 128, k1),
	   "a WRITE through the key from before the rebind, inside B: REM_ACCESS_ERR");
	ok(denied(&p, IBV_WR_RDMA_WRITE, t + WOFF + 128, k2),
	   "a WRITE through the new key to range A (no longer the window's): REM_ACCESS_ERR");
	ok(denied(&p, IBV_WR_RDMA_READ, t + WOFF2 + 256, k2),
	   "a READ through the window bound with REMOTE_WRITE only: REM_ACCESS_ERR, nothing read");
	ok(denied(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, t + WOFF2 + 512, k2),
	   "a FETCH_ADD through it: REM_ACCESS_ERR, nothing changed");

	memset(src.p + LEN / 2, DP_POISON, XFER);
	st = rdma(&p.a, IBV_WR_RDMA_WRITE, t + WOFF2, k2, VA(src.p + LEN / 2),
		  src.mr->rkey);
	ok(st == IBV_WC_LOC_PROT_ERR && untouched(src.p + LEN / 2, XFER),
	   "the window's key as the lkey of a local SGE (a WRITE from range B): LOC_PROT_ERR, nothing written");
	renew(&p);

	/* ---- type 1: binds refused when posted --------------------------- */
	ok(post_fails(bind1_post(&p.b, mw1, NULL, NULL, WIN,
				 IBV_ACCESS_REMOTE_WRITE), EINVAL, mw1, k2,
		      "no MR, length"),
	   "ibv_bind_mw with no MR but a length: EINVAL, nothing posted, key unchanged");
	ok(post_fails(bind1_post(&p.b, mw1, mr, t + WOFF, WIN,
				 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ZERO_BASED),
		      EINVAL, mw1, k2, "ZERO_BASED"),
	   "ibv_bind_mw with IBV_ACCESS_ZERO_BASED: EINVAL, nothing posted, key unchanged");
	ok(post_fails(bind1_post(&p.b, mw1, mr_pd2, t2, LEN,
				 IBV_ACCESS_REMOTE_WRITE), EPERM, mw1, k2,
		      "MR of another PD"),
	   "ibv_bind_mw to an MR of another PD: EPERM, nothing posted, key unchanged");
	k0 = mw2->rkey;
	ok(post_fails(bind1_post(&p.b, mw2, mr, t + WOFF, WIN,
				 IBV_ACCESS_REMOTE_WRITE), EINVAL, mw2, k0,
		      "type 2 window"),
	   "ibv_bind_mw of a type 2 window: EINVAL, nothing posted, key unchanged");
	renew(&p);
	if (ibv_dereg_mr(mr_pd2))
		diag("dereg_mr of the second PD's MR failed");

	/* ---- type 1: lifetimes -------------------------------------------- */
	ret = ibv_dereg_mr(mr);
	ok(expect_errno(ret, EBUSY, "dereg_mr"),
	   "dereg_mr of the MR with the type 1 window bound: EBUSY");
	if (!ret)	/* it went: the rest needs one */
		mr = ibv_reg_mr(dp.pd, t, LEN, DP_ACC_ALL | IBV_ACCESS_MW_BIND);
	ret = ibv_dereg_mr(mr);
	ok(expect_errno(ret, EBUSY, "dereg_mr again"),
	   "dereg_mr of it again, the window still bound: EBUSY again");
	if (!ret)
		mr = ibv_reg_mr(dp.pd, t, LEN, DP_ACC_ALL | IBV_ACCESS_MW_BIND);
	k0 = mr->lkey;
	errno = 0;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   DP_ACC_ALL | IBV_ACCESS_MW_BIND);
	ok(ret == IBV_REREG_MR_ERR_CMD && errno == EBUSY && mr->lkey == k0,
	   "rereg_mr of it, the window still bound: IBV_REREG_MR_ERR_CMD, EBUSY, the MR's keys unchanged (got %d, %s)",
	   ret, strerror(errno));
	ok(lands(&p, t + WOFF2 + 128, k2),
	   "after the refused dereg_mr and rereg_mr a WRITE through the window still lands");
	st = bind1(mw1, NULL, NULL, 0, 0);
	ok(st == IBV_WC_SUCCESS && mw1->rkey == ibv_inc_rkey(k2),
	   "type 1 unbind (no MR, address 0, length 0): completion BIND_MW, mw->rkey the next variant");
	st = denied(&p, IBV_WR_RDMA_WRITE, t + WOFF2 + 256, k2);
	ok(denied(&p, IBV_WR_RDMA_WRITE, t + WOFF2 + 256, mw1->rkey) && st,
	   "after the unbind, WRITEs through its bound key and through its new key: REM_ACCESS_ERR");

	mr2 = ibv_reg_mr(dp.pd, t2, LEN, ACC_RW | IBV_ACCESS_MW_BIND);
	st = mr2 ? bind1(mw1, mr2, t2, LEN, IBV_ACCESS_REMOTE_WRITE) : -1;
	ret = mr2 ? ibv_dereg_mr(mr2) : -1;
	if (!ret)
		mr2 = NULL;
	st2 = bind1(mw1, NULL, NULL, 0, 0);
	ret2 = mr2 ? ibv_dereg_mr(mr2) : -1;
	ok(st == IBV_WC_SUCCESS && ret == EBUSY && st2 == IBV_WC_SUCCESS &&
	   ret2 == 0,
	   "a second MR with the window bound: dereg_mr EBUSY; unbound, it deregisters (bind %d, dereg %d, unbind %d, dereg %d)",
	   st, ret, st2, ret2);
	if (st != IBV_WC_SUCCESS || st2 != IBV_WC_SUCCESS)
		renew(&p);	/* a failed bind left b's QP in error */

	w = ibv_alloc_mw(dp.pd, IBV_MW_TYPE_1);
	mr2 = ibv_reg_mr(dp.pd, t2, LEN, ACC_RW | IBV_ACCESS_MW_BIND);
	st = w && mr2 ? bind1(w, mr2, t2 + 512, 1024, IBV_ACCESS_REMOTE_WRITE) :
	     -1;
	k0 = w ? w->rkey : 0;
	ret = w ? ibv_dealloc_mw(w) : -1;
	st2 = denied(&p, IBV_WR_RDMA_WRITE, t2 + 512, k0);
	ret2 = mr2 ? ibv_dereg_mr(mr2) : -1;
	ok(st == IBV_WC_SUCCESS && ret == 0 && st2 && ret2 == 0,
	   "dealloc_mw of a bound type 1 window succeeds; its key then gives REM_ACCESS_ERR and its MR deregisters");

	w = ibv_alloc_mw(pd2, IBV_MW_TYPE_1);
	ret = w ? ibv_dealloc_pd(pd2) : -1;
	if (!ret)
		pd2 = NULL;
	ok(w && expect_errno(ret, EBUSY, "dealloc_pd"),
	   "dealloc_pd of a PD that has a window: EBUSY");
	ret = w ? ibv_dealloc_mw(w) : 0;
	ret2 = pd2 ? ibv_dealloc_pd(pd2) : -1;
	ok(w && !ret && !ret2,
	   "once the window is deallocated, so is the PD (dealloc_mw %d, dealloc_pd %d)",
	   ret, ret2);

	/* ---- type 1: binds the device refuses ---------------------------- */
	mr2 = ibv_reg_mr(dp.pd, t2, LEN, ACC_RW);
	ok(mr2 && bind1_refused(mr2, t2, LEN, IBV_ACCESS_REMOTE_WRITE, 0,
				"MR without MW_BIND"),
	   "type 1 bind to an MR without IBV_ACCESS_MW_BIND: MW_BIND_ERR, b's QP in ERR, its next WR flushed");
	if (mr2)
		ibv_dereg_mr(mr2);
	ok(bind1_refused(mr, t + LEN - XFER, 2 * XFER, IBV_ACCESS_REMOTE_WRITE,
			 0, "range past the MR"),
	   "type 1 bind to a range that ends past the MR: MW_BIND_ERR, b's QP in ERR, its next WR flushed");
	mr2 = ibv_reg_mr(dp.pd, t2, LEN,
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND);
	w = ibv_alloc_mw(dp.pd, IBV_MW_TYPE_1);
	st = mr2 && w ? bind1(w, mr2, t2, LEN, IBV_ACCESS_REMOTE_READ) : -1;
	if (w)
		ibv_dealloc_mw(w);
	if (st != IBV_WC_SUCCESS) {
		diag("a read-only bind to the MR without LOCAL_WRITE: %d", st);
		renew(&p);
	}
	ok(st == IBV_WC_SUCCESS &&
	   bind1_refused(mr2, t2, LEN, IBV_ACCESS_REMOTE_WRITE, 0,
			 "REMOTE_WRITE, no LOCAL_WRITE"),
	   "type 1 bind granting REMOTE_WRITE on an MR without LOCAL_WRITE (REMOTE_READ binds work): MW_BIND_ERR, QP in ERR, next WR flushed");
	if (mr2)
		ibv_dereg_mr(mr2);
	ok(bind1_refused(mr, t + WOFF, WIN, IBV_ACCESS_REMOTE_WRITE, 1,
			 "stale key"),
	   "type 1 bind naming the window by a stale key variant: MW_BIND_ERR, b's QP in ERR, its next WR flushed");

	/* ---- type 2: binds refused when posted --------------------------- */
	k0 = mw2->rkey;
	k1 = mw1->rkey;
	ok(post_fails(bind2_post(mw1, ibv_inc_rkey(k1), mr, t + WOFF, WIN,
				 MW_RW), EINVAL, mw1, k1, "type 1 window"),
	   "IBV_WR_BIND_MW of a type 1 window: ibv_post_send EINVAL, nothing posted");
	ok(post_fails(bind2_post(mw2, ibv_inc_rkey(k0) ^ 0x100, mr, t + WOFF,
				 WIN, MW_RW), EINVAL, mw2, k0, "another index"),
	   "IBV_WR_BIND_MW to a key with another index: ibv_post_send EINVAL, nothing posted");
	ok(post_fails(bind2_post(mw2, ibv_inc_rkey(k0), NULL, t + WOFF, WIN,
				 MW_RW), EINVAL, mw2, k0, "no MR"),
	   "IBV_WR_BIND_MW without an MR: ibv_post_send EINVAL, nothing posted");
	ok(post_fails(bind2_post(mw2, ibv_inc_rkey(k0), mr, t + WOFF, 0,
				 MW_RW), EINVAL, mw2, k0, "length 0"),
	   "IBV_WR_BIND_MW of length 0: ibv_post_send EINVAL, nothing posted");
	renew(&p);

	/* ---- type 2: bind, and the QP it serves --------------------------- */
	memset(t, DP_POISON, LEN);
	st = bind2(mw2, mr, t + WOFF, WIN, MW_RW);
	ok(st == IBV_WC_SUCCESS && mw2->rkey == ibv_inc_rkey(k0),
	   "type 2 bind (IBV_WR_BIND_MW) by b to range A, key ibv_inc_rkey(mw->rkey): completion BIND_MW");
	k1 = mw2->rkey;
	ok(lands(&p, t + WOFF, k1) && lands(&p, t + WOFF + WIN - XFER, k1) &&
	   t[WOFF - 1] == DP_POISON && t[WOFF + WIN] == DP_POISON,
	   "a's WRITEs through it to its first and last bytes land at b, the bytes around untouched");
	if (dp_pair_make(&q, &cfg))
		diag("a second pair: failed");
	st = denied(&q, IBV_WR_RDMA_WRITE, t + WOFF + 128, k1);
	dp_pair_destroy(&q);
	ok(st && lands(&p, t + WOFF + 256, k1),
	   "a WRITE through its key arriving at another QP of the PD (a second pair's responder): REM_ACCESS_ERR; through b it still lands");

	/* ---- type 2: LOCAL_INV -------------------------------------------- */
	ok(local_inv(k1) == IBV_WC_SUCCESS,
	   "LOCAL_INV of the type 2 window's key on b: completion LOCAL_INV");
	ok(denied(&p, IBV_WR_RDMA_WRITE, t + WOFF + 128, k1),
	   "a WRITE through the invalidated key: REM_ACCESS_ERR");
	ok(local_inv(k1) == IBV_WC_SUCCESS,
	   "LOCAL_INV of it again, already free: completion LOCAL_INV, as for a region already invalid");
	st = bind2(mw2, mr, t + WOFF2, WIN2, MW_RW);
	ok(st == IBV_WC_SUCCESS && mw2->rkey == ibv_inc_rkey(k1) &&
	   lands(&p, t + WOFF2, mw2->rkey),
	   "the invalidated window binds again (range B, the next variant) and a WRITE through it lands");

	/* ---- type 2: SEND_WITH_INV ----------------------------------------- */
	k2 = mw2->rkey;
	ok(send_inv(k2),
	   "a's SEND_WITH_INV of the window's key: b's receive has IBV_WC_WITH_INV and invalidated_rkey 0x%x",
	   k2);
	ok(denied(&p, IBV_WR_RDMA_WRITE, t + WOFF2 + 128, k2),
	   "a WRITE through the key SEND_WITH_INV invalidated: REM_ACCESS_ERR");

	/* ---- type 2: a bound window is not bound again -------------------- */
	/* bind2() moves mw->rkey on only when a bind succeeds. */
	st = bind2(mw2, mr, t + WOFF, WIN, MW_RW);
	st2 = refused(bind2(mw2, mr, t + WOFF2, WIN2, MW_RW),
		      "bound type 2 window");
	ok(st == IBV_WC_SUCCESS && st2,
	   "binding the bound type 2 window again: MW_BIND_ERR, b's QP in ERR, its next WR flushed");
	/* The QP that bound it is gone with the old pair: the window is free. */

	/* ---- type 2: zero based ------------------------------------------- */
	memset(t, DP_POISON, LEN);
	st = bind2(mw2, mr, t + WOFF, WIN, MW_RW | IBV_ACCESS_ZERO_BASED);
	k1 = mw2->rkey;
	ok(st == IBV_WC_SUCCESS && lands_at(&p, t + WOFF, 0, k1) &&
	   lands_at(&p, t + WOFF + WIN - XFER, WIN - XFER, k1) &&
	   t[WOFF - 1] == DP_POISON && t[WOFF + WIN] == DP_POISON,
	   "type 2 bind with ZERO_BASED: WRITEs to remote_addr 0 and WIN - XFER land at the bind address and at the window's end");
	ok(denied_at(&p, IBV_WR_RDMA_WRITE, t + WOFF, VA(t + WOFF), k1),
	   "a WRITE to the bind address as remote_addr (an offset past the window): REM_ACCESS_ERR");

	dp_pair_destroy(&p);
	ok(!ibv_dealloc_mw(mw1) && !ibv_dealloc_mw(mw2),
	   "dealloc_mw of both windows");
	ok(mr && !ibv_dereg_mr(mr), "dereg_mr");
	dp_buf_free(&src);
	dp_buf_free(&rcv);
	free(t);
	free(t2);
	return dp_close();
}
