// SPDX-License-Identifier: GPL-2.0-only
/*
 * wire_mw DEV_A GID_A DEV_B GID_B: memory windows across the wire
 * (tests/e2e/300-wire-veth.t, 305-wire-interop.t).
 *
 * B owns a 64 KiB region (every remote right and MW_BIND) and binds the
 * windows into it; A, the requester, reaches B's memory only through the
 * windows' keys.  Two RC QP pairs, made up front, at a 1024-byte path
 * MTU: pair 0 carries the binds and the traffic, pair 1 the request
 * that crosses a window's end (a refused request takes its pair to
 * error).
 *
 *   - a type 1 window bound by ibv_bind_mw() on B's QP to 16 KiB of the
 *     region, with remote write, read and atomic: an 8 KiB WRITE
 *     through it (8 packets), a READ of the whole window (16 response
 *     packets) and a FETCH_ADD on its last word;
 *   - a type 2 window bound by IBV_WR_BIND_MW on B's QP, zero based,
 *     write and read: a WRITE to remote_addr 0 and a READ of the whole
 *     window from 0;
 *   - A's SEND_WITH_INV of the type 2 window's key: B's receive reports
 *     the invalidation; A's WRITE through that key then completes with
 *     REM_ACCESS_ERR (last on pair 0);
 *   - on pair 1, A's WRITE through the type 1 window that runs past its
 *     end (still inside the region): REM_ACCESS_ERR.
 *
 * After each request both buffers are compared byte for byte, all 64 KiB
 * of each, with what they must hold: the bytes around each target are
 * checked untouched and a refused request wrote nothing.
 *
 * Plain libibverbs: no Orca interface is used.
 *
 * Orca as B is the point: tests/e2e/300 (Orca to Orca) and 305 (rxe
 * requesting through Orca's windows).  rxe as B does not pass: Linux
 * 6.1's rxe flags an invalidating receive with the kernel's wc_flags
 * bit and checks a request through a window against its region's bounds
 * only.
 */
#include <stdint.h>
#include <time.h>

#include "e2e_tap.h"
#include "wire_common.h"

#define WM_PAIRS	2
#define WM_BUF		(64 << 10)	/* each end's buffer and region */
#define WM_W1_OFF	4096		/* the type 1 window: B's buf[4 KiB, 20 KiB) */
#define WM_W1_LEN	16384
#define WM_W2_OFF	32768		/* the type 2 window: B's buf[32 KiB, 48 KiB) */
#define WM_W2_LEN	16384
#define WM_RECV_OFF	57344		/* B's receive buffer, outside both */
#define WM_SEND_LEN	256
#define WM_ATOM_OFF	(WM_W1_OFF + WM_W1_LEN - 8)	/* the window's last word */
#define WM_XFER		8192		/* each WRITE: 8 packets */
#define WM_A_SRC	0		/* A's buffer: WRITE source */
#define WM_A_DST	16384		/* READ destination */
#define WM_A_ATOM	40960		/* FETCH_ADD result */
#define WM_A_SEND	49152		/* SEND source */
#define WM_ADD		0x0000000100000020ULL	/* carries across 32 bits */
#define WM_OLD		0x11223344fffffff0ULL
#define WM_B_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
			 IBV_ACCESS_MW_BIND)
#define WM_VA(p)	((uint64_t)(uintptr_t)(p))

static struct wire_end a, b;
static struct ibv_mw *mw1, *mw2;	/* B's type 1 and type 2 windows */
static uint32_t rkey1, rkey2;		/* their keys once bound */
static uint64_t wr_id;

/* All of @e's buffer holds what it must; else diagnose where not. */
static int wm_same(const struct wire_end *e, const char *what)
{
	return wire_cmp(e->buf, e->exp, WM_BUF, e->name, what);
}

/*
 * A's signalled @op on pair @q: @len bytes at A's buf + @aoff and
 * (@raddr, @rkey) at B (FETCH_ADD: 8 bytes, adding WM_ADD).  1 if it
 * completes with @status.
 */
static int wm_rdma(int q, enum ibv_wr_opcode op, size_t aoff, uint32_t len,
		   uint64_t raddr, uint32_t rkey, enum ibv_wc_status status,
		   const char *what)
{
	struct ibv_sge sge = {
		.addr = WM_VA(a.buf + aoff),
		.length = len,
		.lkey = a.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = ++wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	enum ibv_wc_opcode wc_op = IBV_WC_RDMA_WRITE;
	struct ibv_wc wc;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		sge.length = 8;
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = WM_ADD;
		wc_op = IBV_WC_FETCH_ADD;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
		if (op == IBV_WR_RDMA_READ)
			wc_op = IBV_WC_RDMA_READ;
	}
	return wire_post(a.qp[q], &wr, what) &&
	       wire_end_wc(&a, a.qp[q], wr.wr_id, status, wc_op, &wc, what);
}

static int wm_open(struct wire_end *e, unsigned int access)
{
	if (wire_end_open(e, 16) || wire_end_rc_qps(e, WM_PAIRS) ||
	    posix_memalign((void **)&e->buf, 4096, WM_BUF))
		return -1;
	e->exp = malloc(WM_BUF);
	if (!e->exp)
		return -1;
	wire_fill(e->buf, e->exp, 0, WM_BUF, e == &a ? 1 : 2);
	return wire_end_reg(e, WM_BUF, access);
}

/* B's device has windows of both types. */
static int wm_caps(void)
{
	struct ibv_device_attr da;
	int ret = ibv_query_device(b.ctx, &da);

	if (ret) {
		diag("%s: ibv_query_device: %s", b.name, strerror(ret));
		return 0;
	}
	if (!(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW) ||
	    !(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B) ||
	    da.max_mw < 2) {
		diag("%s: device_cap_flags 0x%x, max_mw %d: no windows of type 1 and 2B",
		     b.name, da.device_cap_flags, da.max_mw);
		return 0;
	}
	return 1;
}

/* 1. B binds a type 1 window with ibv_bind_mw(). */
static int wm_bind1(void)
{
	struct ibv_mw_bind mb = {
		.wr_id = ++wr_id,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = b.mr,
			.addr = WM_VA(b.buf + WM_W1_OFF),
			.length = WM_W1_LEN,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_READ |
					   IBV_ACCESS_REMOTE_ATOMIC,
		},
	};
	struct ibv_wc wc;
	uint32_t old;
	int ret;

	mw1 = ibv_alloc_mw(b.pd, IBV_MW_TYPE_1);
	if (!mw1) {
		diag("ibv_alloc_mw(TYPE_1): %s", strerror(errno));
		return 0;
	}
	old = mw1->rkey;
	ret = ibv_bind_mw(b.qp[0], mw1, &mb);
	if (ret) {
		diag("ibv_bind_mw: %s", strerror(ret));
		return 0;
	}
	if (!wire_end_wc(&b, b.qp[0], mb.wr_id, IBV_WC_SUCCESS, IBV_WC_BIND_MW, &wc,
		   "type 1 bind")) {
		mw1->rkey = old;	/* ibv_bind_mw(3): put it back */
		return 0;
	}
	rkey1 = mw1->rkey;
	diag("type 1 window: key 0x%x before the bind, 0x%x after", old,
	     rkey1);
	if (rkey1 == old) {
		diag("ibv_bind_mw left mw->rkey at 0x%x", old);
		return 0;
	}
	return wm_same(&b, "type 1 bind");
}

/* 2. A's WRITE, READ and FETCH_ADD through the type 1 window. */
static int wm_use1(void)
{
	uint64_t old = WM_OLD, now = WM_OLD + WM_ADD;
	int good = 1;

	if (!rkey1)
		return 0;
	wire_fill(a.buf, a.exp, WM_A_SRC, WM_XFER, 10);
	good &= wm_rdma(0, IBV_WR_RDMA_WRITE, WM_A_SRC, WM_XFER,
			WM_VA(b.buf + WM_W1_OFF), rkey1, IBV_WC_SUCCESS,
			"type 1 WRITE");
	memcpy(b.exp + WM_W1_OFF, a.buf + WM_A_SRC, WM_XFER);
	good &= wm_same(&b, "type 1 WRITE") & wm_same(&a, "type 1 WRITE");

	/* The READ: the window's second half gets new bytes from B's CPU. */
	wire_fill(b.buf, b.exp, WM_W1_OFF + WM_XFER, WM_W1_LEN - WM_XFER, 11);
	wire_fill(a.buf, a.exp, WM_A_DST, WM_W1_LEN, 12);
	good &= wm_rdma(0, IBV_WR_RDMA_READ, WM_A_DST, WM_W1_LEN,
			WM_VA(b.buf + WM_W1_OFF), rkey1, IBV_WC_SUCCESS,
			"type 1 READ");
	memcpy(a.exp + WM_A_DST, b.exp + WM_W1_OFF, WM_W1_LEN);
	good &= wm_same(&a, "type 1 READ") & wm_same(&b, "type 1 READ");

	memcpy(b.buf + WM_ATOM_OFF, &old, 8);
	memcpy(b.exp + WM_ATOM_OFF, &old, 8);
	wire_fill(a.buf, a.exp, WM_A_ATOM, 8, 13);
	good &= wm_rdma(0, IBV_WR_ATOMIC_FETCH_AND_ADD, WM_A_ATOM, 8,
			WM_VA(b.buf + WM_ATOM_OFF), rkey1, IBV_WC_SUCCESS,
			"type 1 FETCH_ADD");
	memcpy(a.exp + WM_A_ATOM, &old, 8);
	memcpy(b.exp + WM_ATOM_OFF, &now, 8);
	good &= wm_same(&a, "type 1 FETCH_ADD (the old value at A)") &
		wm_same(&b, "type 1 FETCH_ADD (the sum at B)");
	return good;
}

/* 3. B binds a zero-based type 2 window; A's WRITE and READ from 0. */
static int wm_bind2(void)
{
	struct ibv_send_wr wr = {
		.wr_id = ++wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	uint32_t key;
	int good = 1;

	mw2 = ibv_alloc_mw(b.pd, IBV_MW_TYPE_2);
	if (!mw2) {
		diag("ibv_alloc_mw(TYPE_2): %s", strerror(errno));
		return 0;
	}
	key = ibv_inc_rkey(mw2->rkey);
	wr.bind_mw.mw = mw2;
	wr.bind_mw.rkey = key;
	wr.bind_mw.bind_info.mr = b.mr;
	wr.bind_mw.bind_info.addr = WM_VA(b.buf + WM_W2_OFF);
	wr.bind_mw.bind_info.length = WM_W2_LEN;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					       IBV_ACCESS_REMOTE_READ |
					       IBV_ACCESS_ZERO_BASED;
	if (!wire_post(b.qp[0], &wr, "type 2 bind") ||
	    !wire_end_wc(&b, b.qp[0], wr.wr_id, IBV_WC_SUCCESS, IBV_WC_BIND_MW, &wc,
		   "type 2 bind"))
		return 0;
	diag("type 2 window: key 0x%x before the bind, 0x%x after",
	     mw2->rkey, key);
	mw2->rkey = rkey2 = key;	/* the application's job (ibv_post_send(3)) */

	wire_fill(a.buf, a.exp, WM_A_SRC, WM_XFER, 20);
	good &= wm_rdma(0, IBV_WR_RDMA_WRITE, WM_A_SRC, WM_XFER, 0, rkey2,
			IBV_WC_SUCCESS, "zero-based WRITE");
	memcpy(b.exp + WM_W2_OFF, a.buf + WM_A_SRC, WM_XFER);
	good &= wm_same(&b, "zero-based WRITE") & wm_same(&a, "zero-based WRITE");

	wire_fill(b.buf, b.exp, WM_W2_OFF + WM_XFER, WM_W2_LEN - WM_XFER, 21);
	wire_fill(a.buf, a.exp, WM_A_DST, WM_W2_LEN, 22);
	good &= wm_rdma(0, IBV_WR_RDMA_READ, WM_A_DST, WM_W2_LEN, 0, rkey2,
			IBV_WC_SUCCESS, "zero-based READ");
	memcpy(a.exp + WM_A_DST, b.exp + WM_W2_OFF, WM_W2_LEN);
	good &= wm_same(&a, "zero-based READ") & wm_same(&b, "zero-based READ");
	return good;
}

/* 4. A's SEND_WITH_INV of the type 2 window's key. */
static int wm_send_inv(void)
{
	struct ibv_sge rs = {
		.addr = WM_VA(b.buf + WM_RECV_OFF),
		.length = WM_SEND_LEN,
		.lkey = b.mr->lkey,
	};
	struct ibv_recv_wr rwr = {
		.wr_id = ++wr_id,
		.sg_list = &rs,
		.num_sge = 1,
	}, *rbad = NULL;
	struct ibv_sge ss = {
		.addr = WM_VA(a.buf + WM_A_SEND),
		.length = WM_SEND_LEN,
		.lkey = a.mr->lkey,
	};
	struct ibv_send_wr swr = {
		.wr_id = ++wr_id,
		.sg_list = &ss,
		.num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	int good = 1, ret, inv;

	if (!rkey2)
		return 0;
	swr.invalidate_rkey = rkey2;
	wire_fill(a.buf, a.exp, WM_A_SEND, WM_SEND_LEN, 30);
	ret = ibv_post_recv(b.qp[0], &rwr, &rbad);
	if (ret) {
		diag("ibv_post_recv: %s", strerror(ret));
		return 0;
	}
	if (!wire_post(a.qp[0], &swr, "SEND_WITH_INV"))
		return 0;
	good &= wire_end_wc(&a, a.qp[0], swr.wr_id, IBV_WC_SUCCESS, IBV_WC_SEND,
		      &wc, "SEND_WITH_INV");
	if (!wire_end_wc(&b, b.qp[0], rwr.wr_id, IBV_WC_SUCCESS, IBV_WC_RECV, &wc,
		   "SEND_WITH_INV receive"))
		return 0;
	inv = !!(wc.wc_flags & IBV_WC_WITH_INV);
	if (!inv || wc.invalidated_rkey != rkey2 ||
	    wc.byte_len != WM_SEND_LEN) {
		diag("receive: wc_flags 0x%x, invalidated_rkey 0x%x, byte_len %u (want IBV_WC_WITH_INV, 0x%x, %u)",
		     wc.wc_flags, wc.invalidated_rkey, wc.byte_len, rkey2,
		     WM_SEND_LEN);
		good = 0;
	}
	memcpy(b.exp + WM_RECV_OFF, a.buf + WM_A_SEND, WM_SEND_LEN);
	return good & wm_same(&b, "SEND_WITH_INV") &
	       wm_same(&a, "SEND_WITH_INV");
}

/*
 * A's WRITE on pair @q of @len fresh bytes to (@raddr, @rkey) that B
 * must refuse: REM_ACCESS_ERR, neither buffer changed.
 */
static int wm_refused(int q, uint64_t raddr, uint32_t len, uint32_t rkey,
		      const char *what)
{
	int good;

	if (!rkey)
		return 0;
	wire_fill(a.buf, a.exp, WM_A_SRC, len, 40 + (uint32_t)q);
	good = wm_rdma(q, IBV_WR_RDMA_WRITE, WM_A_SRC, len, raddr, rkey,
		       IBV_WC_REM_ACCESS_ERR, what);
	return good & wm_same(&b, what) & wm_same(&a, what);
}

/* Nothing more on @e's CQ. */
static int wm_cq_empty(struct wire_end *e)
{
	return wire_cq_empty(e->cq, e->name, "the end");
}

/* Release what wm_open() made of @e; the number of calls that failed. */
static int wm_close(struct wire_end *e)
{
	int bad = wire_end_close_qps(e) + wire_end_close_objs(e) +
		  wire_end_close_dev(e);

	free(e->buf);
	free(e->exp);
	return bad;
}

int main(int argc, char **argv)
{
	int up, bad = 0;

	if (wire_ends_args(argc, argv, &a, &b))
		return 2;

	up = ok(!wm_open(&a, IBV_ACCESS_LOCAL_WRITE) &&
		!wm_open(&b, WM_B_ACCESS) && wm_caps(),
		"%s: %d RC QPs, a 64 KiB MR; %s (memory windows of type 1 and 2B): %d RC QPs, a 64 KiB MR with LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC and MW_BIND",
		a.name, WM_PAIRS, b.name, WM_PAIRS);
	if (up && wire_ends_connect(&a, &b, WM_PAIRS))
		up = 0;
	if (!ok(up, "%d QP pairs connected across the wire (RTS, path MTU 1024)",
		WM_PAIRS))
		goto out;

	ok(wm_bind1(),
	   "B: type 1 window bound by ibv_bind_mw on its QP to [buf+%d, +%d) with remote write, read and atomic: completion BIND_MW, mw->rkey the new key",
	   WM_W1_OFF, WM_W1_LEN);
	ok(wm_use1(),
	   "A through the type 1 window: an %d-byte WRITE at its start lands, a READ of all %d bytes returns B's, a FETCH_ADD on its last word returns the old value and adds; nothing else changes",
	   WM_XFER, WM_W1_LEN);
	ok(wm_bind2(),
	   "B: zero-based type 2 window bound by IBV_WR_BIND_MW to [buf+%d, +%d): A's %d-byte WRITE to remote_addr 0 lands at buf+%d, A's READ of %d bytes from 0 returns them",
	   WM_W2_OFF, WM_W2_LEN, WM_XFER, WM_W2_OFF, WM_W2_LEN);
	ok(wm_send_inv(),
	   "A's SEND_WITH_INV of the type 2 window's key: B's receive has the bytes, IBV_WC_WITH_INV and invalidated_rkey 0x%x",
	   rkey2);
	ok(wm_refused(0, 0, WM_XFER, rkey2, "WRITE through the invalidated key"),
	   "A's WRITE through the invalidated type 2 key: REM_ACCESS_ERR, nothing written");
	ok(wm_refused(1, WM_VA(b.buf + WM_W1_OFF + WM_W1_LEN - WM_XFER / 2),
		      WM_XFER, rkey1, "WRITE across the window's end"),
	   "on the second pair, A's %d-byte WRITE through the type 1 window that runs %d bytes past its end (inside the MR): REM_ACCESS_ERR, nothing written",
	   WM_XFER, WM_XFER / 2);

out:
	if (!wm_cq_empty(&a) || !wm_cq_empty(&b))
		bad++;
	if (mw1)
		bad += wire_ret(ibv_dealloc_mw(mw1), "ibv_dealloc_mw (type 1)", b.name);
	if (mw2)
		bad += wire_ret(ibv_dealloc_mw(mw2), "ibv_dealloc_mw (type 2)", b.name);
	bad += wm_close(&a);
	bad += wm_close(&b);
	ok(!bad,
	   "no completion left over; dealloc_mw of both windows, then every QP, MR, CQ, PD and context destroyed (%d calls failed)",
	   bad);
	(void)tap_start;
	return tap_end();
}
