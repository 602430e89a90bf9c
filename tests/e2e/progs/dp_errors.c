// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every completion error status of the data path and what comes with
 * it: LOC_LEN_ERR (RC, UC: receiver QP to ERR; UD: dropped), LOC_PROT_ERR
 * (bad lkey, another PD's MR, SGE beyond the MR, no LOCAL_WRITE),
 * REM_ACCESS_ERR (bad rkey, MR or QP without the remote right, beyond the
 * MR) with IBV_EVENT_QP_ACCESS_ERR on the responder, REM_INV_REQ_ERR
 * (misaligned atomic, with IBV_EVENT_QP_REQ_ERR; too-long SEND on RC),
 * RNR_RETRY_EXC_ERR for rnr_retry 0..6 and rnr_retry 7 waiting for a
 * late receive, WR_FLUSH_ERR for every outstanding and newly posted WR
 * once a QP is in ERR (by modify and after an error completion),
 * IBV_EVENT_QP_LAST_WQE_REACHED and IBV_EVENT_SRQ_LIMIT_REACHED; and a
 * CQ resize whose response cannot be delivered (EFAULT) leaves the CQ as
 * it was, still delivering completions.
 * Prints TAP.  Usage: dp_errors DEVICE
 */
#include <sys/mman.h>

#include <rdma/ib_user_verbs.h>

#include "dp_common.h"

#define BUFSZ 65536

static struct dp_buf abuf, bbuf;
static struct dp_buf ro_buf;		/* no LOCAL_WRITE, no remote access */
static struct dp_buf lw_buf;		/* LOCAL_WRITE only */
static struct ibv_pd *pd2;
static struct dp_buf other_pd_buf;	/* all access, but in pd2 */

/* The next completion on @cq is @wr_id with @status on @qp. */
static int wc_is(struct ibv_cq *cq, uint64_t wr_id, int status,
		 struct ibv_qp *qp, const char *what)
{
	struct ibv_wc wc;

	if (!dp_poll1(cq, &wc, what))
		return 0;
	if (wc.wr_id == wr_id && (int)wc.status == status && wc.qp_num == qp->qp_num)
		return 1;
	dp_wc_diag(what, &wc);
	diag("%s: wanted wr_id 0x%llx status %s qp_num 0x%x", what,
	     (unsigned long long)wr_id, ibv_wc_status_str(status), qp->qp_num);
	return 0;
}

static int state_is(struct ibv_qp *qp, int want, const char *what)
{
	int s = dp_qp_state(qp);

	if (s != want)
		diag("%s: QP state %s, want %s", what, dp_state_str(s),
		     dp_state_str(want));
	return s == want;
}

static int make(struct dp_pair *p, enum ibv_qp_type t, int access, int rnr_retry,
		const char *what)
{
	struct dp_qp_cfg c;

	dp_cfg_default(&c, t);
	c.access = access;
	c.rnr_retry = rnr_retry;
	c.sq_sig_all = 1;
	if (dp_pair_make(p, &c)) {
		ok(0, "%s: set up two connected %s QPs", what, dp_type_str(t));
		return 0;
	}
	return 1;
}

static void done(struct dp_pair *p)
{
	dp_pair_destroy(p);
	dp_ev_forget();
}

static int post_op(struct dp_pair *p, enum ibv_wr_opcode op, uint64_t wr_id,
		   void *laddr, uint32_t len, uint32_t lkey, void *raddr,
		   uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)laddr, len, lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = len ? 1 : 0, .opcode = op };

	if (op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = (uintptr_t)raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = (uintptr_t)raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (p->cfg.type == IBV_QPT_UD)
		dp_ud_dest(&wr, &p->a, &p->b);
	return dp_post_send(p->a.qp, &wr);
}

static int post_recv_b(struct dp_pair *p, uint64_t wr_id, void *addr,
		       uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };

	return dp_post_recv(p->b.qp, wr_id, &sge, 1);
}

/* ---- LOC_LEN_ERR -------------------------------------------------------- */

static void test_len_rc(void)
{
	struct dp_pair p;

	if (!make(&p, IBV_QPT_RC, DP_QP_ACC_ALL, 7, "RC LOC_LEN_ERR"))
		return;
	post_recv_b(&p, 0x10, bbuf.p, 100, bbuf.mr->lkey);
	post_recv_b(&p, 0x11, bbuf.p + 100, 100, bbuf.mr->lkey);
	post_op(&p, IBV_WR_SEND, 0x20, abuf.p, 200, abuf.mr->lkey, NULL, 0);
	post_op(&p, IBV_WR_SEND, 0x21, abuf.p, 10, abuf.mr->lkey, NULL, 0);
	ok(wc_is(p.b.rcq, 0x10, IBV_WC_LOC_LEN_ERR, p.b.qp, "receiver"),
	   "RC SEND of 200 bytes into a 100-byte receive: receiver LOC_LEN_ERR");
	ok(state_is(p.b.qp, IBV_QPS_ERR, "receiver"), "RC LOC_LEN_ERR: receiver QP in ERR");
	ok(wc_is(p.b.rcq, 0x11, IBV_WC_WR_FLUSH_ERR, p.b.qp, "receiver's next receive"),
	   "RC LOC_LEN_ERR: the receiver's next receive is flushed");
	ok(wc_is(p.a.scq, 0x20, IBV_WC_REM_INV_REQ_ERR, p.a.qp, "requester"),
	   "RC too-long SEND: requester REM_INV_REQ_ERR");
	ok(state_is(p.a.qp, IBV_QPS_ERR, "requester"), "RC too-long SEND: requester QP in ERR");
	ok(wc_is(p.a.scq, 0x21, IBV_WC_WR_FLUSH_ERR, p.a.qp, "requester's next send"),
	   "RC too-long SEND: the requester's next SEND is flushed");
	done(&p);
}

static void test_len_uc(void)
{
	struct dp_pair p;

	if (!make(&p, IBV_QPT_UC, DP_QP_ACC_ALL, 7, "UC LOC_LEN_ERR"))
		return;
	post_recv_b(&p, 0x10, bbuf.p, 100, bbuf.mr->lkey);
	post_op(&p, IBV_WR_SEND, 0x20, abuf.p, 200, abuf.mr->lkey, NULL, 0);
	ok(wc_is(p.a.scq, 0x20, IBV_WC_SUCCESS, p.a.qp, "sender"),
	   "UC SEND of 200 bytes into a 100-byte receive: sender completes successfully");
	ok(wc_is(p.b.rcq, 0x10, IBV_WC_LOC_LEN_ERR, p.b.qp, "receiver"),
	   "UC: receiver LOC_LEN_ERR");
	ok(state_is(p.b.qp, IBV_QPS_ERR, "receiver"), "UC LOC_LEN_ERR: receiver QP in ERR");
	done(&p);
}

static void test_len_ud(void)
{
	struct dp_pair p;
	struct ibv_wc wc;
	struct dp_wc_want w;

	if (!make(&p, IBV_QPT_UD, 0, 7, "UD LOC_LEN_ERR"))
		return;
	post_recv_b(&p, 0x10, bbuf.p, DP_GRH + 100, bbuf.mr->lkey);
	dp_fill(abuf.p, 200, 77);
	post_op(&p, IBV_WR_SEND, 0x20, abuf.p, 200, abuf.mr->lkey, NULL, 0);
	ok(wc_is(p.a.scq, 0x20, IBV_WC_SUCCESS, p.a.qp, "sender"),
	   "UD SEND of 200 bytes to a 40+100-byte receive: sender completes successfully");
	post_op(&p, IBV_WR_SEND, 0x21, abuf.p + 1, 50, abuf.mr->lkey, NULL, 0);
	ok(wc_is(p.a.scq, 0x21, IBV_WC_SUCCESS, p.a.qp, "sender"),
	   "UD: a fitting 50-byte SEND completes");
	w = (struct dp_wc_want){ 0x10, IBV_WC_SUCCESS, IBV_WC_RECV, DP_GRH + 50,
				 p.b.qp->qp_num, p.a.qp->qp_num, IBV_WC_GRH, -1 };
	ok(dp_poll1(p.b.rcq, &wc, "receiver") && dp_wc_check(&wc, &w, "receiver") &&
	   dp_cmp(bbuf.p + DP_GRH, abuf.p + 1, 50, "payload"),
	   "UD: the too-long message was dropped; the receive got the next, fitting one");
	ok(state_is(p.b.qp, IBV_QPS_RTS, "receiver"), "UD: receiver QP still RTS");
	done(&p);
}

/* ---- LOC_PROT_ERR ------------------------------------------------------- */

static void prot_send(enum ibv_qp_type t, void *addr, uint32_t len, uint32_t lkey,
		      const char *what)
{
	struct dp_pair p;

	if (!make(&p, t, DP_QP_ACC_ALL, 7, what))
		return;
	post_recv_b(&p, 0x10, bbuf.p, 1024, bbuf.mr->lkey);
	post_op(&p, IBV_WR_SEND, 0x20, addr, len, lkey, NULL, 0);
	post_op(&p, IBV_WR_SEND, 0x21, abuf.p, 8, abuf.mr->lkey, NULL, 0);
	ok(wc_is(p.a.scq, 0x20, IBV_WC_LOC_PROT_ERR, p.a.qp, what),
	   "%s %s: LOC_PROT_ERR", dp_type_str(t), what);
	ok(state_is(p.a.qp, IBV_QPS_ERR, what) &&
	   wc_is(p.a.scq, 0x21, IBV_WC_WR_FLUSH_ERR, p.a.qp, "next send"),
	   "%s %s: QP in ERR, the next SEND flushed", dp_type_str(t), what);
	ok(dp_cq_empty(p.b.rcq, "receiver") && state_is(p.b.qp, IBV_QPS_RTS, "receiver"),
	   "%s %s: nothing reached the receiver", dp_type_str(t), what);
	done(&p);
}

/* An unsignalled WR that fails still completes (with its error). */
static void test_unsignalled_error(void)
{
	struct dp_qp_cfg c;
	struct dp_pair p;

	dp_cfg_default(&c, IBV_QPT_RC);
	c.sq_sig_all = 0;
	if (!ok(!dp_pair_make(&p, &c), "RC pair with sq_sig_all=0"))
		return;
	post_recv_b(&p, 0x10, bbuf.p, 64, bbuf.mr->lkey);
	post_op(&p, IBV_WR_SEND, 0x20, abuf.p, 16, abuf.mr->lkey ^ 0x5a5a5a00, NULL, 0);
	ok(wc_is(p.a.scq, 0x20, IBV_WC_LOC_PROT_ERR, p.a.qp, "unsignalled"),
	   "RC sq_sig_all=0: an unsignalled SEND with a bad lkey completes with LOC_PROT_ERR");
	done(&p);
}

static void test_prot(void)
{
	prot_send(IBV_QPT_RC, abuf.p, 16, abuf.mr->lkey ^ 0x5a5a5a00, "SEND with a bad lkey");
	prot_send(IBV_QPT_RC, other_pd_buf.p, 16, other_pd_buf.mr->lkey,
		  "SEND from an MR of another PD");
	prot_send(IBV_QPT_RC, abuf.p + BUFSZ - 10, 20, abuf.mr->lkey,
		  "SEND with an SGE reaching beyond its MR");
	prot_send(IBV_QPT_RC, abuf.p - 4, 8, abuf.mr->lkey,
		  "SEND with an SGE starting before its MR");
	prot_send(IBV_QPT_UC, abuf.p, 16, abuf.mr->lkey ^ 0x5a5a5a00, "SEND with a bad lkey");
	prot_send(IBV_QPT_UD, abuf.p, 16, abuf.mr->lkey ^ 0x5a5a5a00, "SEND with a bad lkey");
	prot_send(IBV_QPT_UD, other_pd_buf.p, 16, other_pd_buf.mr->lkey,
		  "SEND from an MR of another PD");

	/* Receive into memory registered without LOCAL_WRITE. */
	{
		struct dp_pair p;
		struct ibv_wc wc;
		int got;

		if (make(&p, IBV_QPT_RC, DP_QP_ACC_ALL, 7, "receive without LOCAL_WRITE")) {
			post_recv_b(&p, 0x10, ro_buf.p, 64, ro_buf.mr->lkey);
			post_op(&p, IBV_WR_SEND, 0x20, abuf.p, 16, abuf.mr->lkey, NULL, 0);
			ok(wc_is(p.b.rcq, 0x10, IBV_WC_LOC_PROT_ERR, p.b.qp, "receiver"),
			   "RC receive into an MR without LOCAL_WRITE: receiver LOC_PROT_ERR");
			ok(state_is(p.b.qp, IBV_QPS_ERR, "receiver"),
			   "RC receive without LOCAL_WRITE: receiver QP in ERR");
			got = dp_poll1(p.a.scq, &wc, "requester");
			if (got)
				dp_wc_diag("requester", &wc);
			ok(got && wc.wr_id == 0x20 && wc.status != IBV_WC_SUCCESS,
			   "RC receive without LOCAL_WRITE: the requester completes with an error");
			ok(ro_buf.p[0] == DP_POISON, "the read-only buffer was not written");
			done(&p);
		}
	}
	/* RDMA READ into memory without LOCAL_WRITE: the requester's side. */
	{
		struct dp_pair p;

		if (make(&p, IBV_QPT_RC, DP_QP_ACC_ALL, 7, "READ without LOCAL_WRITE")) {
			post_op(&p, IBV_WR_RDMA_READ, 0x20, ro_buf.p, 64, ro_buf.mr->lkey,
				bbuf.p, bbuf.mr->rkey);
			ok(wc_is(p.a.scq, 0x20, IBV_WC_LOC_PROT_ERR, p.a.qp, "requester"),
			   "RC RDMA_READ into an MR without LOCAL_WRITE: LOC_PROT_ERR");
			ok(state_is(p.a.qp, IBV_QPS_ERR, "requester") && ro_buf.p[0] == DP_POISON,
			   "RC RDMA_READ without LOCAL_WRITE: QP in ERR, buffer not written");
			done(&p);
		}
	}
}

/* ---- REM_ACCESS_ERR / REM_INV_REQ_ERR ----------------------------------- */

static void remote_err(enum ibv_wr_opcode op, int qp_access, void *raddr,
		       uint32_t len, uint32_t rkey, int want_status,
		       enum ibv_event_type want_ev, const char *what)
{
	struct dp_pair p;

	if (!make(&p, IBV_QPT_RC, qp_access, 7, what))
		return;
	/* A receive on the responder that must be flushed, not consumed. */
	post_recv_b(&p, 0x10, bbuf.p + 2048, 64, bbuf.mr->lkey);
	if (post_op(&p, op, 0x20, abuf.p, len, abuf.mr->lkey, raddr, rkey) == EINVAL &&
	    want_status == IBV_WC_REM_INV_REQ_ERR) {
		/*
		 * An invalid request may also be refused by the provider at
		 * post time (ibv_post_send(3): EINVAL); then nothing was sent.
		 */
		ok(1, "RC %s: refused at post with EINVAL", what);
		done(&p);
		return;
	}
	post_op(&p, IBV_WR_SEND, 0x21, abuf.p, 8, abuf.mr->lkey, NULL, 0);
	ok(wc_is(p.a.scq, 0x20, want_status, p.a.qp, what), "RC %s: requester %s",
	   what, ibv_wc_status_str(want_status));
	ok(state_is(p.a.qp, IBV_QPS_ERR, "requester") &&
	   wc_is(p.a.scq, 0x21, IBV_WC_WR_FLUSH_ERR, p.a.qp, "next send"),
	   "RC %s: requester QP in ERR, its next SEND flushed", what);
	ok(dp_ev_wait(want_ev, p.b.qp, what), "RC %s: responder gets async %s", what,
	   ibv_event_type_str(want_ev));
	ok(state_is(p.b.qp, IBV_QPS_ERR, "responder") &&
	   wc_is(p.b.rcq, 0x10, IBV_WC_WR_FLUSH_ERR, p.b.qp, "responder's receive"),
	   "RC %s: responder QP in ERR, its receive flushed", what);
	done(&p);
}

static void test_remote(void)
{
	uint8_t *end = bbuf.p + BUFSZ;

	memset(bbuf.p, DP_POISON, BUFSZ);

	remote_err(IBV_WR_RDMA_WRITE, DP_QP_ACC_ALL, bbuf.p, 16, bbuf.mr->rkey ^ 0x5a5a5a00,
		   IBV_WC_REM_ACCESS_ERR, IBV_EVENT_QP_ACCESS_ERR, "RDMA_WRITE with a bad rkey");
	remote_err(IBV_WR_RDMA_READ, DP_QP_ACC_ALL, bbuf.p, 16, bbuf.mr->rkey ^ 0x5a5a5a00,
		   IBV_WC_REM_ACCESS_ERR, IBV_EVENT_QP_ACCESS_ERR, "RDMA_READ with a bad rkey");
	remote_err(IBV_WR_ATOMIC_FETCH_AND_ADD, DP_QP_ACC_ALL, bbuf.p, 8,
		   bbuf.mr->rkey ^ 0x5a5a5a00, IBV_WC_REM_ACCESS_ERR,
		   IBV_EVENT_QP_ACCESS_ERR, "ATOMIC_FETCH_AND_ADD with a bad rkey");
	remote_err(IBV_WR_RDMA_WRITE, DP_QP_ACC_ALL, lw_buf.p, 16, lw_buf.mr->rkey,
		   IBV_WC_REM_ACCESS_ERR, IBV_EVENT_QP_ACCESS_ERR,
		   "RDMA_WRITE to an MR without REMOTE_WRITE");
	remote_err(IBV_WR_RDMA_READ, DP_QP_ACC_ALL, lw_buf.p, 16, lw_buf.mr->rkey,
		   IBV_WC_REM_ACCESS_ERR, IBV_EVENT_QP_ACCESS_ERR,
		   "RDMA_READ from an MR without REMOTE_READ");
	remote_err(IBV_WR_ATOMIC_CMP_AND_SWP, DP_QP_ACC_ALL, lw_buf.p, 8, lw_buf.mr->rkey,
		   IBV_WC_REM_ACCESS_ERR, IBV_EVENT_QP_ACCESS_ERR,
		   "ATOMIC_CMP_AND_SWP on an MR without REMOTE_ATOMIC");
	remote_err(IBV_WR_RDMA_WRITE, IBV_ACCESS_REMOTE_READ, bbuf.p, 16, bbuf.mr->rkey,
		   IBV_WC_REM_ACCESS_ERR, IBV_EVENT_QP_ACCESS_ERR,
		   "RDMA_WRITE to a QP without REMOTE_WRITE");
	remote_err(IBV_WR_RDMA_READ, IBV_ACCESS_REMOTE_WRITE, bbuf.p, 16, bbuf.mr->rkey,
		   IBV_WC_REM_ACCESS_ERR, IBV_EVENT_QP_ACCESS_ERR,
		   "RDMA_READ from a QP without REMOTE_READ");
	remote_err(IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_ACCESS_REMOTE_WRITE, bbuf.p, 8,
		   bbuf.mr->rkey, IBV_WC_REM_ACCESS_ERR, IBV_EVENT_QP_ACCESS_ERR,
		   "ATOMIC_FETCH_AND_ADD on a QP without REMOTE_ATOMIC");
	remote_err(IBV_WR_RDMA_WRITE, DP_QP_ACC_ALL, end - 8, 16, bbuf.mr->rkey,
		   IBV_WC_REM_ACCESS_ERR, IBV_EVENT_QP_ACCESS_ERR,
		   "RDMA_WRITE reaching beyond the remote MR");
	remote_err(IBV_WR_RDMA_READ, DP_QP_ACC_ALL, bbuf.p - 8, 16, bbuf.mr->rkey,
		   IBV_WC_REM_ACCESS_ERR, IBV_EVENT_QP_ACCESS_ERR,
		   "RDMA_READ starting before the remote MR");
	remote_err(IBV_WR_ATOMIC_CMP_AND_SWP, DP_QP_ACC_ALL, bbuf.p + 4, 8, bbuf.mr->rkey,
		   IBV_WC_REM_INV_REQ_ERR, IBV_EVENT_QP_REQ_ERR,
		   "ATOMIC_CMP_AND_SWP at a misaligned address");
	remote_err(IBV_WR_ATOMIC_FETCH_AND_ADD, DP_QP_ACC_ALL, bbuf.p + 1, 8, bbuf.mr->rkey,
		   IBV_WC_REM_INV_REQ_ERR, IBV_EVENT_QP_REQ_ERR,
		   "ATOMIC_FETCH_AND_ADD at a misaligned address");
	ok(bbuf.p[0] == DP_POISON && bbuf.p[BUFSZ - 1] == DP_POISON &&
	   lw_buf.p[0] == DP_POISON, "no failed request wrote the responder's memory");
}

/* ---- silent drops and the ACK timeout ------------------------------------ */

/*
 * UC has no acknowledgements: a WRITE with a bad rkey is dropped at the
 * responder, the requester completes successfully, and both QPs go on.
 */
static void test_uc_bad_rkey(void)
{
	struct dp_pair p;
	struct ibv_wc wc;

	if (!make(&p, IBV_QPT_UC, DP_QP_ACC_ALL, 7, "UC bad rkey"))
		return;
	memset(bbuf.p, DP_POISON, 4096);
	post_recv_b(&p, 0x10, bbuf.p + 2048, 64, bbuf.mr->lkey);
	post_op(&p, IBV_WR_RDMA_WRITE, 0x20, abuf.p, 16, abuf.mr->lkey, bbuf.p,
		bbuf.mr->rkey ^ 0x5a5a5a00);
	ok(wc_is(p.a.scq, 0x20, IBV_WC_SUCCESS, p.a.qp, "requester"),
	   "UC RDMA_WRITE with a bad rkey: the requester completes successfully");
	dp_fill(abuf.p + 100, 24, 99);
	post_op(&p, IBV_WR_SEND, 0x21, abuf.p + 100, 24, abuf.mr->lkey, NULL, 0);
	ok(wc_is(p.a.scq, 0x21, IBV_WC_SUCCESS, p.a.qp, "requester") &&
	   dp_poll1(p.b.rcq, &wc, "receiver") && wc.wr_id == 0x10 &&
	   wc.status == IBV_WC_SUCCESS && wc.byte_len == 24 &&
	   dp_cmp(bbuf.p + 2048, abuf.p + 100, 24, "SEND payload") &&
	   bbuf.p[0] == DP_POISON && state_is(p.b.qp, IBV_QPS_RTS, "responder"),
	   "UC: the bad WRITE was dropped (memory untouched), the next SEND is received, "
	   "responder still RTS");
	done(&p);
}

/* UD: a message with the wrong Q_Key is dropped; the receive waits. */
static void test_ud_bad_qkey(void)
{
	struct ibv_sge s = { (uintptr_t)abuf.p, 16, abuf.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 0x20, .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND };
	struct dp_pair p;
	struct ibv_wc wc;
	int got;

	if (!make(&p, IBV_QPT_UD, 0, 7, "UD bad Q_Key"))
		return;
	post_recv_b(&p, 0x10, bbuf.p, DP_GRH + 64, bbuf.mr->lkey);
	dp_ud_dest(&wr, &p.a, &p.b);
	wr.wr.ud.remote_qkey = DP_QKEY ^ 0x00ff00ff;
	dp_post_send(p.a.qp, &wr);
	ok(wc_is(p.a.scq, 0x20, IBV_WC_SUCCESS, p.a.qp, "sender"),
	   "UD SEND with the wrong Q_Key: the sender completes successfully");
	wr.wr_id = 0x21;
	wr.wr.ud.remote_qkey = DP_QKEY;
	s.length = 5;
	dp_post_send(p.a.qp, &wr);
	got = wc_is(p.a.scq, 0x21, IBV_WC_SUCCESS, p.a.qp, "sender") &&
	      dp_poll1(p.b.rcq, &wc, "receiver");
	if (got && (wc.wr_id != 0x10 || wc.status != IBV_WC_SUCCESS ||
		    wc.byte_len != DP_GRH + 5))
		dp_wc_diag("receiver", &wc);
	ok(got && wc.wr_id == 0x10 && wc.status == IBV_WC_SUCCESS &&
	   wc.byte_len == DP_GRH + 5,
	   "UD: the wrong-Q_Key message was dropped; the receive got the next one");
	done(&p);
}

/* RC to a QP that does not answer (left in INIT): RETRY_EXC_ERR. */
static void test_retry_exc(void)
{
	struct dp_qp_cfg c;
	struct dp_pair p;

	dp_cfg_default(&c, IBV_QPT_RC);
	c.sq_sig_all = 1;
	c.retry_cnt = 2;
	memset(&p, 0, sizeof(p));
	p.cfg = c;
	if (!ok(!dp_end_create(&p.a, &c, dp.pd) && !dp_end_create(&p.b, &c, dp.pd) &&
		!dp_end_connect(&p.a, &c, p.b.qp->qp_num, IBV_QPS_RTS) &&
		!dp_end_connect(&p.b, &c, p.a.qp->qp_num, IBV_QPS_INIT),
		"an RC QP in RTS whose peer stays in INIT (retry_cnt 2, timeout 14)"))
		goto out;
	post_recv_b(&p, 0x10, bbuf.p, 64, bbuf.mr->lkey);
	post_op(&p, IBV_WR_SEND, 0x20, abuf.p, 16, abuf.mr->lkey, NULL, 0);
	post_op(&p, IBV_WR_SEND, 0x21, abuf.p, 16, abuf.mr->lkey, NULL, 0);
	ok(wc_is(p.a.scq, 0x20, IBV_WC_RETRY_EXC_ERR, p.a.qp, "requester") &&
	   state_is(p.a.qp, IBV_QPS_ERR, "requester"),
	   "RC SEND to a peer in INIT: RETRY_EXC_ERR after the retries, requester QP in ERR");
	ok(wc_is(p.a.scq, 0x21, IBV_WC_WR_FLUSH_ERR, p.a.qp, "next") &&
	   dp_cq_empty(p.b.rcq, "peer") && state_is(p.b.qp, IBV_QPS_INIT, "peer"),
	   "RC: the next SEND is flushed; the peer took nothing and is still in INIT");
out:
	done(&p);
}

/* ---- RNR ------------------------------------------------------------------ */

static void test_rnr(void)
{
	struct dp_pair p;
	struct ibv_wc wc;
	int r;

	for (r = 0; r <= 6; r++) {
		char what[64];

		snprintf(what, sizeof(what), "rnr_retry %d", r);
		if (!make(&p, IBV_QPT_RC, DP_QP_ACC_ALL, r, what))
			continue;
		post_op(&p, IBV_WR_SEND, 0x20, abuf.p, 16, abuf.mr->lkey, NULL, 0);
		ok(wc_is(p.a.scq, 0x20, IBV_WC_RNR_RETRY_EXC_ERR, p.a.qp, what) &&
		   state_is(p.a.qp, IBV_QPS_ERR, "requester"),
		   "RC SEND, no receive, %s: RNR_RETRY_EXC_ERR, requester QP in ERR", what);
		ok(state_is(p.b.qp, IBV_QPS_RTS, "responder") &&
		   dp_cq_empty(p.b.rcq, "responder"),
		   "RC %s: the responder is still RTS with no completion", what);
		done(&p);
	}

	if (!make(&p, IBV_QPT_RC, DP_QP_ACC_ALL, 7, "rnr_retry 7"))
		return;
	dp_fill(abuf.p, 300, 5);
	post_op(&p, IBV_WR_SEND, 0x20, abuf.p, 300, abuf.mr->lkey, NULL, 0);
	dp_sleep_ms(300);
	/* Without a receive an RC SEND cannot succeed; with 7 it cannot fail. */
	ok(dp_cq_empty(p.a.scq, "rnr_retry 7"),
	   "RC SEND, no receive, rnr_retry 7 (infinite): no completion while none is posted");
	post_recv_b(&p, 0x10, bbuf.p + 1, 1000, bbuf.mr->lkey);
	ok(wc_is(p.a.scq, 0x20, IBV_WC_SUCCESS, p.a.qp, "requester") &&
	   dp_poll1(p.b.rcq, &wc, "receiver") && wc.wr_id == 0x10 &&
	   wc.status == IBV_WC_SUCCESS && wc.byte_len == 300 &&
	   dp_cmp(bbuf.p + 1, abuf.p, 300, "payload"),
	   "RC rnr_retry 7: a receive posted later gets the message, both sides succeed");
	done(&p);
}

/* ---- WR_FLUSH_ERR ---------------------------------------------------------- */

static int flushed(struct ibv_cq *cq, struct ibv_qp *qp, uint64_t first, int n,
		   const char *what)
{
	int i, good = 1;

	for (i = 0; i < n; i++)
		if (!wc_is(cq, first + i, IBV_WC_WR_FLUSH_ERR, qp, what))
			good = 0;
	return good && dp_cq_empty(cq, what);
}

static void test_flush(void)
{
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sge[3];
	struct dp_pair p;
	int i;

	/* RC: SENDs held up by RNR (rnr_retry 7), receives never matched. */
	if (make(&p, IBV_QPT_RC, DP_QP_ACC_ALL, 7, "flush by modify")) {
		for (i = 0; i < 5; i++)
			post_op(&p, IBV_WR_SEND, 0x20 + i, abuf.p, 16, abuf.mr->lkey, NULL, 0);
		for (i = 0; i < 3; i++) {
			struct ibv_sge s = { (uintptr_t)abuf.p, 64, abuf.mr->lkey };

			dp_post_recv(p.a.qp, 0x40 + i, &s, 1);
		}
		dp_sleep_ms(100);
		ok(dp_cq_empty(p.a.scq, "send CQ") && dp_cq_empty(p.a.rcq, "recv CQ"),
		   "RC: 5 SENDs outstanding (RNR, rnr_retry 7) and 3 receives, no completion");
		ok(!dp_set_state(p.a.qp, IBV_QPS_ERR), "RC: modify the QP to ERR");
		ok(flushed(p.a.scq, p.a.qp, 0x20, 5, "SQ flush"),
		   "RC modify to ERR: each of the 5 outstanding SENDs completes with WR_FLUSH_ERR, in order");
		ok(flushed(p.a.rcq, p.a.qp, 0x40, 3, "RQ flush"),
		   "RC modify to ERR: each of the 3 receives completes with WR_FLUSH_ERR, in order");
		ok(!post_op(&p, IBV_WR_SEND, 0x60, abuf.p, 16, abuf.mr->lkey, NULL, 0) &&
		   !post_op(&p, IBV_WR_RDMA_WRITE, 0x61, abuf.p, 16, abuf.mr->lkey, bbuf.p,
			    bbuf.mr->rkey) &&
		   flushed(p.a.scq, p.a.qp, 0x60, 2, "SQ in ERR"),
		   "RC in ERR: 2 WRs posted to the SQ are accepted and complete with WR_FLUSH_ERR");
		{
			struct ibv_sge s = { (uintptr_t)abuf.p, 64, abuf.mr->lkey };

			ok(!dp_post_recv(p.a.qp, 0x70, &s, 1) && !dp_post_recv(p.a.qp, 0x71, &s, 1) &&
			   flushed(p.a.rcq, p.a.qp, 0x70, 2, "RQ in ERR"),
			   "RC in ERR: 2 receives posted are accepted and complete with WR_FLUSH_ERR");
		}
		done(&p);
	}

	/* After an error completion: the rest of the list is flushed. */
	if (make(&p, IBV_QPT_RC, DP_QP_ACC_ALL, 7, "flush after an error")) {
		memset(wr, 0, sizeof(wr));
		for (i = 0; i < 3; i++) {
			sge[i] = (struct ibv_sge){ (uintptr_t)abuf.p, 16, abuf.mr->lkey };
			wr[i].wr_id = 0x20 + i;
			wr[i].sg_list = &sge[i];
			wr[i].num_sge = 1;
			wr[i].opcode = IBV_WR_RDMA_WRITE;
			wr[i].wr.rdma.remote_addr = (uintptr_t)bbuf.p;
			wr[i].wr.rdma.rkey = bbuf.mr->rkey;
			wr[i].next = i < 2 ? &wr[i + 1] : NULL;
		}
		sge[0].lkey ^= 0x5a5a5a00;
		for (i = 0; i < 2; i++) {
			struct ibv_sge s = { (uintptr_t)abuf.p, 64, abuf.mr->lkey };

			dp_post_recv(p.a.qp, 0x40 + i, &s, 1);
		}
		ok(!ibv_post_send(p.a.qp, wr, &bad), "RC: post 3 WRITEs, the first with a bad lkey");
		ok(wc_is(p.a.scq, 0x20, IBV_WC_LOC_PROT_ERR, p.a.qp, "first"),
		   "RC: the first completes with LOC_PROT_ERR");
		ok(flushed(p.a.scq, p.a.qp, 0x21, 2, "rest"),
		   "RC after an error completion: the other 2 WRITEs are flushed, in order");
		ok(flushed(p.a.rcq, p.a.qp, 0x40, 2, "receives"),
		   "RC after an error completion: the 2 receives are flushed");
		done(&p);
	}

	/* UD and UC: receives flushed on modify to ERR. */
	for (i = 0; i < 2; i++) {
		enum ibv_qp_type t = i ? IBV_QPT_UC : IBV_QPT_UD;
		struct ibv_sge s = { (uintptr_t)bbuf.p, 1024, bbuf.mr->lkey };
		int j;

		if (!make(&p, t, DP_QP_ACC_ALL, 7, "flush"))
			continue;
		for (j = 0; j < 4; j++)
			dp_post_recv(p.b.qp, 0x40 + j, &s, 1);
		ok(!dp_set_state(p.b.qp, IBV_QPS_ERR) &&
		   flushed(p.b.rcq, p.b.qp, 0x40, 4, "RQ flush"),
		   "%s modify to ERR: 4 receives complete with WR_FLUSH_ERR, in order",
		   dp_type_str(t));
		ok(!post_op(&p, IBV_WR_SEND, 0x60, abuf.p, 16, abuf.mr->lkey, NULL, 0) &&
		   wc_is(p.a.scq, 0x60, IBV_WC_SUCCESS, p.a.qp, "sender"),
		   "%s: a SEND to the QP in ERR still completes at the sender", dp_type_str(t));
		ok(!dp_post_recv(p.b.qp, 0x70, &s, 1) &&
		   flushed(p.b.rcq, p.b.qp, 0x70, 1, "RQ in ERR"),
		   "%s in ERR: a new receive completes with WR_FLUSH_ERR (and took no message)",
		   dp_type_str(t));
		done(&p);
	}
}

/* ---- SRQ events ------------------------------------------------------------ */

static void test_srq_events(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(dp.pd, &sa);
	struct ibv_srq_attr attr = { .srq_limit = 2 };
	struct ibv_sge s = { (uintptr_t)bbuf.p, 1024, bbuf.mr->lkey };
	struct dp_qp_cfg c;
	struct dp_pair p;
	int i, good = 1;

	if (!ok(srq != NULL, "create an SRQ")) {
		diag("ibv_create_srq: %s", strerror(errno));
		return;
	}
	for (i = 0; i < 4; i++)
		dp_post_srq_recv(srq, 0x40 + i, &s, 1);
	ok(!ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT),
	   "arm the SRQ limit at 2 with 4 receives posted");
	dp_cfg_default(&c, IBV_QPT_RC);
	c.sq_sig_all = 1;
	if (!ok(!dp_pair_make2(&p, &c, srq), "an RC pair whose responder uses the SRQ"))
		goto out;
	for (i = 0; i < 3; i++) {
		post_op(&p, IBV_WR_SEND, 0x20 + i, abuf.p, 16, abuf.mr->lkey, NULL, 0);
		if (!wc_is(p.a.scq, 0x20 + i, IBV_WC_SUCCESS, p.a.qp, "send") ||
		    !wc_is(p.b.rcq, 0x40 + i, IBV_WC_SUCCESS, p.b.qp, "receive"))
			good = 0;
	}
	ok(good, "3 SENDs take 3 of the SRQ's 4 receives");
	ok(dp_ev_wait(IBV_EVENT_SRQ_LIMIT_REACHED, srq, "SRQ limit"),
	   "1 receive left, below the limit of 2: IBV_EVENT_SRQ_LIMIT_REACHED");
	memset(&attr, 0xff, sizeof(attr));
	ok(!ibv_query_srq(srq, &attr) && attr.srq_limit == 0,
	   "the limit is disarmed once it fired (ibv_query_srq srq_limit %u)", attr.srq_limit);

	ok(!dp_set_state(p.b.qp, IBV_QPS_ERR), "move the SRQ's QP to ERR");
	ok(dp_ev_wait(IBV_EVENT_QP_LAST_WQE_REACHED, p.b.qp, "last WQE"),
	   "IBV_EVENT_QP_LAST_WQE_REACHED for the QP on the SRQ");
	dp_pair_destroy(&p);
	dp_ev_forget();

	/* The remaining SRQ receive still works for another QP. */
	if (ok(!dp_pair_make2(&p, &c, srq), "a new RC pair on the same SRQ")) {
		post_op(&p, IBV_WR_SEND, 0x30, abuf.p, 16, abuf.mr->lkey, NULL, 0);
		ok(wc_is(p.a.scq, 0x30, IBV_WC_SUCCESS, p.a.qp, "send") &&
		   wc_is(p.b.rcq, 0x43, IBV_WC_SUCCESS, p.b.qp, "receive"),
		   "the SRQ's last receive serves the new QP");
		dp_pair_destroy(&p);
		dp_ev_forget();
	}
out:
	ok(!ibv_destroy_srq(srq), "destroy the SRQ");
}

/* ---- a resize that cannot answer ---------------------------------------- */

/*
 * RESIZE_CQ as a raw uverbs write() whose response buffer is a read-only
 * page: the kernel cannot deliver the new ring's location, so the resize
 * must fail with EFAULT and leave the CQ where the process polls it.  The
 * driver request is eight zero bytes (what Orca's is; other providers
 * take zeroes or nothing), the response room the largest any needs.
 */
static int resize_unanswerable(struct ibv_cq *cq, int cqe, void *ro)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_resize_cq c;
		uint32_t drv[2];
	} req;
	ssize_t n;

	memset(&req, 0, sizeof(req));
	req.hdr.command = IB_USER_VERBS_CMD_RESIZE_CQ;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = (sizeof(struct ib_uverbs_resize_cq_resp) + 64) / 4;
	req.c.response = (uintptr_t)ro;
	req.c.cq_handle = cq->handle;
	req.c.cqe = cqe;
	n = write(cq->context->cmd_fd, &req, sizeof(req));
	if (n == (ssize_t)sizeof(req))
		return 0;
	return n < 0 ? errno : EIO;
}

static void test_resize_efault(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct dp_pair p;
	int cqe, ret;
	void *ro;

	ro = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ok(ro != MAP_FAILED, "a read-only page for the resize response"))
		return;
	if (!make(&p, IBV_QPT_RC, DP_QP_ACC_ALL, 7, "resize EFAULT"))
		goto out;
	cqe = p.b.rcq->cqe;
	post_recv_b(&p, 0x700, bbuf.p, 64, bbuf.mr->lkey);
	ret = resize_unanswerable(p.b.rcq, cqe * 4, ro);
	if (ret != EFAULT)
		diag("RESIZE_CQ into a read-only response: %s",
		     ret ? strerror(ret) : "success");
	ok(ret == EFAULT,
	   "RESIZE_CQ (%d to %d) with a read-only response buffer fails with EFAULT",
	   cqe, cqe * 4);
	post_op(&p, IBV_WR_SEND, 0x701, abuf.p, 16, abuf.mr->lkey, NULL, 0);
	ok(wc_is(p.b.rcq, 0x700, IBV_WC_SUCCESS, p.b.qp, "receive after the failed resize"),
	   "after the failed resize the CQ still delivers completions where the process polls");
	ok(p.b.rcq->cqe == cqe, "the CQ keeps its size (cqe %d, was %d)",
	   p.b.rcq->cqe, cqe);
	ok(wc_is(p.a.scq, 0x701, IBV_WC_SUCCESS, p.a.qp, "sender"),
	   "the SEND across completes on the sender");
	ret = ibv_resize_cq(p.b.rcq, cqe * 4);
	ok(!ret && p.b.rcq->cqe >= cqe * 4,
	   "then ibv_resize_cq to %d works (cqe %d: %s)", cqe * 4,
	   p.b.rcq->cqe, strerror(ret));
	post_recv_b(&p, 0x702, bbuf.p, 64, bbuf.mr->lkey);
	post_op(&p, IBV_WR_SEND, 0x703, abuf.p, 16, abuf.mr->lkey, NULL, 0);
	ok(wc_is(p.b.rcq, 0x702, IBV_WC_SUCCESS, p.b.qp, "receive after the resize") &&
	   wc_is(p.a.scq, 0x703, IBV_WC_SUCCESS, p.a.qp, "sender after the resize"),
	   "and the resized CQ delivers the next completion");
	done(&p);
out:
	munmap(ro, pg);
}

int main(int argc, char **argv)
{
	dp_open(argc, argv);
	pd2 = ibv_alloc_pd(dp.ctx);
	if (!ok(pd2 && !dp_buf_alloc(&abuf, dp.pd, BUFSZ, DP_ACC_ALL) &&
		!dp_buf_alloc(&bbuf, dp.pd, BUFSZ, DP_ACC_ALL) &&
		!dp_buf_alloc(&ro_buf, dp.pd, 4096, 0) &&
		!dp_buf_alloc(&lw_buf, dp.pd, 4096, IBV_ACCESS_LOCAL_WRITE) &&
		!dp_buf_alloc(&other_pd_buf, pd2, 4096, DP_ACC_ALL),
		"register the test buffers (all access; none; LOCAL_WRITE only; another PD)"))
		return tap_end();

	test_len_rc();
	test_len_uc();
	test_len_ud();
	test_prot();
	test_unsignalled_error();
	test_remote();
	test_uc_bad_rkey();
	test_ud_bad_qkey();
	test_retry_exc();
	test_rnr();
	test_flush();
	test_srq_events();
	test_resize_efault();

	dp_buf_free(&abuf);
	dp_buf_free(&bbuf);
	dp_buf_free(&ro_buf);
	dp_buf_free(&lw_buf);
	dp_buf_free(&other_pd_buf);
	ok(!ibv_dealloc_pd(pd2), "deallocate the second PD");
	return dp_close();
}
