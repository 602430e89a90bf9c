// SPDX-License-Identifier: GPL-2.0-only
/*
 * XRC on the local path (interface 1.4; ibv_open_xrcd(3),
 * ibv_create_srq_ex(3), ibv_create_qp_ex(3), ibv_open_qp(3),
 * ibv_post_send(3), ibv_wr_post(3)): XRC_SEND QPs (initiators, in
 * dp.pd) connected to XRC_RECV QPs (targets) of the same device through
 * its own GID, sending into the XRC SRQs their work requests name.
 *
 * Domain A (a file, opened with O_CREAT) has SRQ 1 (PD 1, CQ 1) and
 * SRQ 2 (PD 2, CQ 2); domain B (another file) has one XRC SRQ (PD 1);
 * a basic SRQ (PD 1) stands beside them.  Checked, payloads byte for
 * byte, the long ones 20 KiB (20 packets at a 1024-byte path MTU):
 *
 *   - IBV_DEVICE_XRC; the posts an XRC QP refuses (EINVAL): receives on
 *     either, sends on XRC_RECV, remote_srqn of 2^24 or more;
 *   - SEND, SEND_WITH_IMM, SEND_WITH_INV, RDMA_WRITE, RDMA_WRITE_WITH_IMM,
 *     RDMA_READ, both atomics, BIND_MW and LOCAL_INV on an XRC_SEND QP;
 *     a receive completes in the CQ of the SRQ named, qp_num the
 *     XRC_RECV QP's;
 *   - one XRC_RECV QP feeding both SRQs of its domain; two connections
 *     feeding one SRQ; a SEND waiting (RNR) for its receive;
 *   - memory checked against the PD of the SRQ named: an rkey of another
 *     PD is REM_ACCESS_ERR; a remote_srqn naming no SRQ, a basic SRQ or
 *     another domain's SRQ is REM_INV_REQ_ERR; nothing written, no
 *     receive completion, the WR behind flushed;
 *   - the ibv_wr_* API with ibv_wr_set_xrc_srqn;
 *   - domain A opened again by a second context (its SRQ reached through
 *     the first context's XRC_RECV QP; ibv_close_xrcd EBUSY while an SRQ
 *     or XRC_RECV QP made through that handle exists) and by a child
 *     process, which opens the parent's XRC_RECV QP with ibv_open_qp and
 *     receives in its own SRQ, also after the parent destroyed its
 *     handle of the QP;
 *   - creation without XRCD, CQ or PD: EINVAL.
 *
 * The child is forked before the parent opens the device and talks to
 * it through two pipes.  A failed request takes the connection to error:
 * it is renewed afterwards.  Prints TAP.  Usage: xrc DEVICE
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e_tap.h"
#include "dp_common.h"

#define XFER		20480	/* a long message: 20 packets at MTU 1024 */
#define SHORT		6144	/* the messages posted several at a time */
#define SLOTS		4	/* XFER-sized slots of each buffer */
#define BUF		(SLOTS * XFER)
#define WOFF		4096	/* where WRITEs land in m1 and m2 */
#define AOFF		(BUF - 64)	/* the atomics' word in m1 */
#define RES_OFF		(3 * XFER)	/* src: where atomics return */
#define PSN		0x1234
#define ADD		0x0000000100000001ULL
#define NO_SRQN		0xffffffU	/* names no SRQ */
#define CHILD_SEED	0xc0
#define VA(p)		((uint64_t)(uintptr_t)(p))

/* An XRC connection: an initiator of the parent's context and its target. */
struct xp {
	struct ibv_cq *scq;	/* the initiator's send CQ */
	struct ibv_qp *ini;	/* XRC_SEND, in dp.pd */
	struct ibv_qp_ex *qpx;	/* its ibv_wr_* interface, if asked for */
	struct ibv_qp *tgt;	/* XRC_RECV, in domain A */
	uint32_t tqpn;		/* tgt's number */
};

static const char *devname;
static char path_a[] = "/tmp/orca-xrc-a.XXXXXX";
static char path_b[] = "/tmp/orca-xrc-b.XXXXXX";
static int fd_a = -1, fd_b = -1;
static struct ibv_xrcd *xrcd, *xrcd_b;	/* domains A and B */
static struct ibv_pd *pd1, *pd2;	/* the PDs of SRQs 1 and 2 */
static struct ibv_cq *cq1, *cq2, *cqb;	/* the CQs of SRQ 1, 2 and B's */
static struct ibv_srq *s1, *s2, *sb, *bs;	/* bs: the basic SRQ */
static uint32_t n1, n2, nb, nbs;	/* their numbers */
static int nbs_known;
static struct dp_buf src;		/* the initiators', in dp.pd */
static struct dp_buf rx1, rx2;		/* receive buffers, PD 1 and PD 2 */
static struct dp_buf m1, m2;		/* RDMA targets, PD 1 and PD 2 */
static struct dp_buf rxb;		/* receives of sb and bs, PD 1 */
static struct dp_buf wbuf;		/* behind the initiator's window */
static struct ibv_mw *mwi;		/* type 2, dp.pd: bound on an XRC_SEND QP */
static struct ibv_mw *mwf;		/* type 2, PD 1: left free */
static struct xp x;			/* the connection most tests use */
static uint64_t wr_id;
static uint32_t seed = 1;

/* ---- the child process ------------------------------------------------ */

enum { CMD_GO = 1, CMD_CHECK, CMD_FINISH };

/* A command (parent) or an answer (child: what 1 if all went well). */
struct xmsg {
	uint32_t what;
	uint32_t val;
};

static pid_t child_pid = -1;
static int to_child = -1, from_child = -1;

static int xwrite(int fd, uint32_t what, uint32_t val)
{
	struct xmsg m = { what, val };

	return write(fd, &m, sizeof(m)) == sizeof(m);
}

static int xread(int fd, struct xmsg *m)
{
	return read(fd, m, sizeof(*m)) == sizeof(*m);
}

/* An XRC SRQ of @xd with its number, or NULL. */
static struct ibv_srq *xsrq(struct ibv_context *ctx, struct ibv_xrcd *xd,
			    struct ibv_pd *pd, struct ibv_cq *cq, uint32_t *num)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 16, .max_sge = 2 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd,
		.xrcd = xd,
		.cq = cq,
	};
	struct ibv_srq *srq = ibv_create_srq_ex(ctx, &a);
	int ret;

	if (!srq) {
		diag("ibv_create_srq_ex(XRC): %s", strerror(errno));
		return NULL;
	}
	*num = 0;
	ret = ibv_get_srq_num(srq, num);
	if (ret || *num >= 1U << 24) {
		diag("ibv_get_srq_num: %s, number 0x%x",
		     ret ? strerror(ret) : "0", *num);
		ibv_destroy_srq(srq);
		return NULL;
	}
	return srq;
}

/*
 * The child's receive @k (of 1, 2): the next completion on @cq is one
 * of its two receives, not taken before, RECV of XFER bytes through QP
 * @tqpn, and its slot of @buf holds the parent's message k.
 */
static int child_check(struct ibv_cq *cq, const uint8_t *buf, uint32_t k,
		       uint32_t tqpn, int *taken)
{
	struct dp_wc_want w = { 0, IBV_WC_SUCCESS, IBV_WC_RECV, XFER, tqpn,
				-1, 0, -1 };
	uint8_t *want = malloc(XFER);
	struct ibv_wc wc;
	int good = 0;

	if (!want || !dp_poll1(cq, &wc, "child: receive"))
		goto out;
	if (wc.wr_id != 1 && wc.wr_id != 2) {
		dp_wc_diag("child: not one of its receives", &wc);
		goto out;
	}
	if (taken[wc.wr_id - 1]++) {
		diag("child: receive %llu completed twice",
		     (unsigned long long)wc.wr_id);
		goto out;
	}
	w.wr_id = wc.wr_id;
	dp_fill(want, XFER, CHILD_SEED + k);
	good = dp_wc_check(&wc, &w, "child: receive") &&
	       dp_cmp(buf + (wc.wr_id - 1) * XFER, want, XFER,
		      "child: received bytes") &&
	       dp_cq_empty(cq, "child's CQ");
out:
	free(want);
	return good;
}

/*
 * The child: waits for CMD_GO (with the parent's XRC_RECV QP number),
 * opens domain A through the file (no O_CREAT: it must exist), opens
 * that QP, makes its own PD, CQ, XRC SRQ and two receives of XFER bytes,
 * and answers with its SRQ's number.  Then CMD_CHECK k checks receive
 * k, and CMD_FINISH (or the parent going away) ends it: everything
 * destroyed, the answer and the exit status say whether the setup and
 * the teardown went well.
 */
static int child_main(int rfd, int wfd)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.oflags = 0,
	};
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_context *ctx = NULL;
	struct ibv_xrcd *xd = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_srq *srq = NULL;
	struct dp_buf b = { 0 };
	uint32_t srqn = 0, tqpn;
	int fd = -1, good = 1, taken[2] = { 0, 0 }, r;
	struct xmsg m;

	if (!xread(rfd, &m) || m.what != CMD_GO)
		return 1;
	tqpn = m.val;
	ctx = open_by_name(devname);
	fd = open(path_a, O_RDONLY);
	if (!ctx || fd < 0) {
		diag("child: open %s and %s: %s", devname, path_a,
		     strerror(errno));
		good = 0;
		goto answer;
	}
	xa.fd = fd;
	xd = ibv_open_xrcd(ctx, &xa);
	if (!xd) {
		diag("child: ibv_open_xrcd(%s, no O_CREAT): %s", path_a,
		     strerror(errno));
		good = 0;
		goto answer;
	}
	oa.qp_num = tqpn;
	oa.xrcd = xd;
	qp = ibv_open_qp(ctx, &oa);
	if (!qp || qp->qp_num != tqpn || qp->qp_type != IBV_QPT_XRC_RECV) {
		diag("child: ibv_open_qp(0x%x): %s, qp_num 0x%x, qp_type %d",
		     tqpn, qp ? "opened" : strerror(errno),
		     qp ? qp->qp_num : 0, qp ? (int)qp->qp_type : -1);
		good = 0;
		goto answer;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 8, NULL, NULL, 0) : NULL;
	if (!cq || dp_buf_alloc(&b, pd, 2 * XFER, DP_ACC_ALL)) {
		diag("child: PD, CQ or MR: %s", strerror(errno));
		good = 0;
		goto answer;
	}
	srq = xsrq(ctx, xd, pd, cq, &srqn);
	if (!srq) {
		good = 0;
		goto answer;
	}
	for (r = 0; r < 2; r++) {
		struct ibv_sge s = { VA(b.p + r * XFER), XFER, b.mr->lkey };

		if (dp_post_srq_recv(srq, r + 1, &s, 1))
			good = 0;
	}
answer:
	if (!xwrite(wfd, good, srqn))
		good = 0;
	while (xread(rfd, &m) && m.what == CMD_CHECK)
		xwrite(wfd, good && child_check(cq, b.p, m.val, tqpn, taken), 0);

	if (qp && ibv_destroy_qp(qp)) {
		diag("child: ibv_destroy_qp of its handle failed");
		good = 0;
	}
	if (srq && ibv_destroy_srq(srq)) {
		diag("child: ibv_destroy_srq failed");
		good = 0;
	}
	if (b.mr && ibv_dereg_mr(b.mr)) {
		diag("child: ibv_dereg_mr failed");
		good = 0;
	}
	b.mr = NULL;
	dp_buf_free(&b);
	if (cq && ibv_destroy_cq(cq)) {
		diag("child: ibv_destroy_cq failed");
		good = 0;
	}
	if (pd && ibv_dealloc_pd(pd)) {
		diag("child: ibv_dealloc_pd failed");
		good = 0;
	}
	if (xd && ibv_close_xrcd(xd)) {
		diag("child: ibv_close_xrcd failed");
		good = 0;
	}
	if (fd >= 0)
		close(fd);
	if (ctx && ibv_close_device(ctx)) {
		diag("child: ibv_close_device failed");
		good = 0;
	}
	xwrite(wfd, good, 0);
	return good ? 0 : 1;
}

/* Send the child @cmd (@val); 1 if it answered that all went well. */
static int child_ask(uint32_t cmd, uint32_t val, uint32_t *out)
{
	struct xmsg m;

	if (to_child < 0 || !xwrite(to_child, cmd, val) ||
	    !xread(from_child, &m)) {
		diag("the child did not answer command %u", cmd);
		return 0;
	}
	if (out)
		*out = m.val;
	return m.what == 1;
}

/* End the child (CMD_FINISH, then wait): its exit status, or -1. */
static int child_end(void)
{
	struct xmsg m;
	int status = -1;

	if (child_pid <= 0)
		return -1;
	if (to_child >= 0) {
		if (xwrite(to_child, CMD_FINISH, 0) && xread(from_child, &m) &&
		    m.what != 1)
			diag("the child's teardown failed");
		close(to_child);
		to_child = -1;
	}
	if (waitpid(child_pid, &status, 0) != child_pid)
		status = -1;
	child_pid = -1;
	if (from_child >= 0)
		close(from_child);
	from_child = -1;
	return status;
}

static void at_exit(void)
{
	child_end();
	if (fd_a >= 0)
		unlink(path_a);
	if (fd_b >= 0)
		unlink(path_b);
}

/* ---- connections ------------------------------------------------------ */

static int xp_destroy(struct xp *p)
{
	int bad = 0;

	if (p->ini && ibv_destroy_qp(p->ini)) {
		diag("ibv_destroy_qp(XRC_SEND) failed");
		bad++;
	}
	if (p->tgt && ibv_destroy_qp(p->tgt)) {
		diag("ibv_destroy_qp(XRC_RECV) failed");
		bad++;
	}
	if (p->scq && ibv_destroy_cq(p->scq)) {
		diag("ibv_destroy_cq failed");
		bad++;
	}
	memset(p, 0, sizeof(*p));
	return bad;
}

/*
 * A connection of domain @xd: an XRC_SEND QP (comp_mask PD, plus
 * SEND_OPS_FLAGS if @ops) with its own send CQ and no receive queue,
 * an XRC_RECV QP (comp_mask XRCD only), connected.
 */
static int xp_make(struct xp *p, struct ibv_xrcd *xd, uint64_t ops)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = 64, .max_send_sge = 4 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = dp.pd,
	};
	struct ibv_qp_init_attr_ex ta = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = xd,
	};

	memset(p, 0, sizeof(*p));
	p->scq = ibv_create_cq(dp.ctx, 128, NULL, NULL, 0);
	if (!p->scq) {
		diag("ibv_create_cq: %s", strerror(errno));
		return -1;
	}
	ia.send_cq = p->scq;
	if (ops) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ia.send_ops_flags = ops;
	}
	p->ini = ibv_create_qp_ex(dp.ctx, &ia);
	if (!p->ini) {
		diag("ibv_create_qp_ex(XRC_SEND%s): %s",
		     ops ? ", send_ops_flags" : "", strerror(errno));
		goto fail;
	}
	p->tgt = ibv_create_qp_ex(dp.ctx, &ta);
	if (!p->tgt) {
		diag("ibv_create_qp_ex(XRC_RECV): %s", strerror(errno));
		goto fail;
	}
	p->tqpn = p->tgt->qp_num;
	if (p->ini->qp_type != IBV_QPT_XRC_SEND ||
	    p->tgt->qp_type != IBV_QPT_XRC_RECV) {
		diag("qp_type %d and %d, want XRC_SEND (%d) and XRC_RECV (%d)",
		     p->ini->qp_type, p->tgt->qp_type, IBV_QPT_XRC_SEND,
		     IBV_QPT_XRC_RECV);
		goto fail;
	}
	if (ops) {
		p->qpx = ibv_qp_to_qp_ex(p->ini);
		if (!p->qpx) {
			diag("ibv_qp_to_qp_ex: NULL");
			goto fail;
		}
	}
	if (dp_xrc_connect(p->ini, p->tgt, PSN))
		goto fail;
	return 0;
fail:
	xp_destroy(p);
	return -1;
}

/* After a failed request the connection is in error: a new one. */
static void renew(struct xp *p)
{
	xp_destroy(p);
	if (xp_make(p, xrcd, 0))
		diag("a new XRC connection: failed");
}

/* ---- work requests and completions ------------------------------------ */

static struct ibv_sge sge_of(const struct dp_buf *b, size_t off, uint32_t len)
{
	struct ibv_sge s = { VA(b->p + off), len, b->mr->lkey };

	return s;
}

/* A signalled WR of @op naming XRC SRQ @srqn. */
static void wr_init(struct ibv_send_wr *wr, struct ibv_sge *sge, int n,
		    enum ibv_wr_opcode op, uint32_t srqn)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = ++wr_id;
	wr->sg_list = sge;
	wr->num_sge = n;
	wr->opcode = op;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->qp_type.xrc.remote_srqn = srqn;
}

/* The remote address and key of an RDMA or atomic WR. */
static void wr_remote(struct ibv_send_wr *wr, const void *raddr, uint32_t rkey)
{
	if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr->wr.atomic.remote_addr = VA(raddr);
		wr->wr.atomic.rkey = rkey;
	} else {
		wr->wr.rdma.remote_addr = VA(raddr);
		wr->wr.rdma.rkey = rkey;
	}
}

static int post(struct xp *p, struct ibv_send_wr *wr)
{
	return p->ini && !dp_post_send(p->ini, wr);
}

/* The next completion of @p's initiator: WR @id, @status, @opcode on success. */
static int sent(struct xp *p, uint64_t id, enum ibv_wc_status status,
		enum ibv_wc_opcode opcode, const char *what)
{
	struct dp_wc_want w = { id, status,
				status == IBV_WC_SUCCESS ? (int)opcode : -1,
				-1, p->ini ? p->ini->qp_num : 0, -1, -1, -1 };
	struct ibv_wc wc;

	return p->scq && dp_poll1(p->scq, &wc, what) &&
	       dp_wc_check(&wc, &w, what);
}

/*
 * The next completion on @cq: receive @id, successful, @opcode, @len
 * bytes, through XRC_RECV QP @qpn, with exactly @flags of IMM and INV,
 * immediate @imm (-1: not checked).  @wc, if given, gets it.
 */
static int rcvd(struct ibv_cq *cq, uint64_t id, enum ibv_wc_opcode opcode,
		uint32_t len, uint32_t qpn, int flags, long imm,
		struct ibv_wc *wc, const char *what)
{
	struct dp_wc_want w = { id, IBV_WC_SUCCESS, opcode, len, qpn, -1,
				flags, imm };
	struct ibv_wc tmp;

	if (!wc)
		wc = &tmp;
	return dp_poll1(cq, wc, what) && dp_wc_check(wc, &w, what);
}

static int rpost(struct ibv_srq *srq, uint64_t id, const struct dp_buf *b,
		 size_t off, uint32_t len)
{
	struct ibv_sge s = sge_of(b, off, len);

	return srq && !dp_post_srq_recv(srq, id, &s, 1);
}

/* No SRQ's CQ holds a completion. */
static int srq_cqs_empty(const char *what)
{
	return dp_cq_empty(cq1, what) & dp_cq_empty(cq2, what) &
	       dp_cq_empty(cqb, what);
}

/* [p, p + n) still holds the poison it was given. */
static int poisoned(const uint8_t *p, size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] != DP_POISON) {
			diag("%s: byte %zu is 0x%02x, not the poison", what, i,
			     p[i]);
			return 0;
		}
	}
	return 1;
}

/* A copy of @b's bytes, for same(). */
static uint8_t *snap(const struct dp_buf *b)
{
	uint8_t *c = malloc(b->len);

	if (c)
		memcpy(c, b->p, b->len);
	return c;
}

/* @b still holds the bytes @copy has (which is freed). */
static int same(const struct dp_buf *b, uint8_t *copy, const char *what)
{
	int r = copy && dp_cmp(b->p, copy, b->len, what);

	free(copy);
	return r;
}

static int qp_in_err(struct ibv_qp *qp, const char *what)
{
	int s = qp ? dp_qp_state(qp) : -1;

	if (s != IBV_QPS_ERR)
		diag("%s: QP state %s, want ERR", what, dp_state_str(s));
	return s == IBV_QPS_ERR;
}

/* ---- the tests ---------------------------------------------------------- */

/* ibv_post_recv on the XRC_SEND QP, ibv_post_send and _recv on XRC_RECV. */
static int t_post_refused(int which)
{
	struct ibv_sge s = sge_of(&src, 0, 64);
	struct ibv_recv_wr rwr = { .wr_id = ++wr_id, .sg_list = &s,
				   .num_sge = 1 }, *rbad = NULL;
	struct ibv_send_wr wr, *bad = NULL;
	int ret;

	if (!x.ini)
		return 0;
	if (which == 0) {
		ret = ibv_post_recv(x.ini, &rwr, &rbad);
		return expect_errno(ret, EINVAL, "ibv_post_recv(XRC_SEND)") &&
		       rbad == &rwr;
	}
	if (which == 1) {
		wr_init(&wr, &s, 1, IBV_WR_SEND, n1);
		ret = ibv_post_send(x.tgt, &wr, &bad);
		return expect_errno(ret, EINVAL, "ibv_post_send(XRC_RECV)") &&
		       bad == &wr;
	}
	ret = ibv_post_recv(x.tgt, &rwr, &rbad);
	return expect_errno(ret, EINVAL, "ibv_post_recv(XRC_RECV)") &&
	       rbad == &rwr;
}

/*
 * remote_srqn 2^24: refused when posted; a WRITE posted next is the
 * first completion, so nothing of the refused WR was posted.
 */
static int t_srqn_too_big(void)
{
	struct ibv_sge s = sge_of(&src, 0, 64);
	struct ibv_send_wr wr, *bad = NULL;
	int ret, good;

	if (!x.ini)
		return 0;
	wr_init(&wr, &s, 1, IBV_WR_SEND, 1U << 24);
	ret = ibv_post_send(x.ini, &wr, &bad);
	good = expect_errno(ret, EINVAL, "remote_srqn 2^24") && bad == &wr;
	dp_fill(src.p, 64, ++seed);
	memset(m1.p, DP_POISON, BUF);
	wr_init(&wr, &s, 1, IBV_WR_RDMA_WRITE, n1);
	wr_remote(&wr, m1.p + WOFF, m1.mr->rkey);
	good &= post(&x, &wr) &&
		sent(&x, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
		     "the WRITE after the refused post") &&
		dp_cmp(m1.p + WOFF, src.p, 64, "WRITE") &&
		dp_cq_empty(x.scq, "initiator's CQ") &&
		srq_cqs_empty("the WRITE after the refused post");
	return good;
}

/*
 * A SEND-like @op of @len bytes from src (two SGEs) into SRQ 1 through
 * x: the initiator's completion, then SRQ 1's receive with @flags (and
 * @imm_inv as immediate for SEND_WITH_IMM, as key for SEND_WITH_INV),
 * the bytes, and nothing in SRQ 2's CQ.
 */
static int send_s1(enum ibv_wr_opcode op, uint32_t len, uint32_t imm_inv,
		   int flags, struct ibv_wc *wc, const char *what)
{
	struct ibv_sge s[2];
	struct ibv_send_wr wr;
	uint64_t rid = ++wr_id;
	int good;

	dp_fill(src.p, len, ++seed);
	memset(rx1.p, DP_POISON, BUF);
	if (!x.ini || !rpost(s1, rid, &rx1, 0, XFER))
		return 0;
	s[0] = sge_of(&src, 0, len / 2);
	s[1] = sge_of(&src, len / 2, len - len / 2);
	wr_init(&wr, s, 2, op, n1);
	if (op == IBV_WR_SEND_WITH_IMM)
		wr.imm_data = htonl(imm_inv);
	else if (op == IBV_WR_SEND_WITH_INV)
		wr.invalidate_rkey = imm_inv;
	if (!post(&x, &wr))
		return 0;
	good = sent(&x, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_SEND, what);
	good &= rcvd(cq1, rid, IBV_WC_RECV, len, x.tqpn, flags,
		     op == IBV_WR_SEND_WITH_IMM ? (long)imm_inv : -1, wc, what);
	good &= dp_cmp(rx1.p, src.p, len, what) &&
		poisoned(rx1.p + len, BUF - len, "after the message");
	good &= dp_cq_empty(cq2, "SRQ 2's CQ");
	return good;
}

/* A WRITE of XFER bytes into @mem (PD of SRQ @srqn) lands; nothing else. */
static int t_write(uint32_t srqn, struct dp_buf *mem)
{
	struct ibv_sge s = sge_of(&src, 0, XFER);
	struct ibv_send_wr wr;
	int good;

	dp_fill(src.p, XFER, ++seed);
	memset(mem->p, DP_POISON, BUF);
	wr_init(&wr, &s, 1, IBV_WR_RDMA_WRITE, srqn);
	wr_remote(&wr, mem->p + WOFF, mem->mr->rkey);
	if (!post(&x, &wr))
		return 0;
	good = sent(&x, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, "WRITE") &&
	       dp_cmp(mem->p + WOFF, src.p, XFER, "WRITE target");
	good &= poisoned(mem->p, WOFF, "before the WRITE target") &&
		poisoned(mem->p + WOFF + XFER, BUF - WOFF - XFER,
			 "after the WRITE target");
	good &= srq_cqs_empty("WRITE");
	return good;
}

/* RDMA_WRITE_WITH_IMM of 4 KiB into m1 through SRQ 1. */
static int t_write_imm(void)
{
	struct ibv_sge s = sge_of(&src, 0, 4096);
	struct ibv_send_wr wr;
	uint64_t rid = ++wr_id;
	uint32_t imm = 0x1abc0000U | (seed & 0xffff);
	int good;

	dp_fill(src.p, 4096, ++seed);
	memset(m1.p, DP_POISON, BUF);
	memset(rx1.p, DP_POISON, BUF);
	if (!x.ini || !rpost(s1, rid, &rx1, 0, XFER))
		return 0;
	wr_init(&wr, &s, 1, IBV_WR_RDMA_WRITE_WITH_IMM, n1);
	wr.imm_data = htonl(imm);
	wr_remote(&wr, m1.p + WOFF, m1.mr->rkey);
	if (!post(&x, &wr))
		return 0;
	good = sent(&x, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
		    "WRITE_WITH_IMM");
	good &= rcvd(cq1, rid, IBV_WC_RECV_RDMA_WITH_IMM, 4096, x.tqpn,
		     IBV_WC_WITH_IMM, imm, NULL, "WRITE_WITH_IMM receive");
	good &= dp_cmp(m1.p + WOFF, src.p, 4096, "WRITE_WITH_IMM target") &&
		poisoned(m1.p + WOFF + 4096, BUF - WOFF - 4096,
			 "after the target");
	good &= poisoned(rx1.p, BUF, "the receive buffer");
	good &= dp_cq_empty(cq2, "SRQ 2's CQ");
	return good;
}

/* An RDMA_READ of XFER bytes of m1 through SRQ 1. */
static int t_read(void)
{
	struct ibv_sge s = sge_of(&src, 0, XFER);
	struct ibv_send_wr wr;
	int good;

	dp_fill(m1.p + WOFF, XFER, ++seed);
	memset(src.p, DP_POISON, BUF);
	wr_init(&wr, &s, 1, IBV_WR_RDMA_READ, n1);
	wr_remote(&wr, m1.p + WOFF, m1.mr->rkey);
	if (!post(&x, &wr))
		return 0;
	good = sent(&x, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, "READ") &&
	       dp_cmp(src.p, m1.p + WOFF, XFER, "READ");
	good &= poisoned(src.p + XFER, BUF - XFER, "after the READ's bytes");
	good &= srq_cqs_empty("READ");
	return good;
}

/* An atomic through SRQ 1 on m1's word; @old gets what it returned. */
static int atomic(enum ibv_wr_opcode op, uint64_t cmp_add, uint64_t swap,
		  uint64_t *old)
{
	struct ibv_sge s = sge_of(&src, RES_OFF, 8);
	struct ibv_send_wr wr;

	memset(src.p + RES_OFF, DP_POISON, 8);
	wr_init(&wr, &s, 1, op, n1);
	wr_remote(&wr, m1.p + AOFF, m1.mr->rkey);
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	if (!post(&x, &wr) ||
	    !sent(&x, wr.wr_id, IBV_WC_SUCCESS,
		  op == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP :
		  IBV_WC_FETCH_ADD, "atomic"))
		return 0;
	memcpy(old, src.p + RES_OFF, 8);
	return 1;
}

static uint64_t word(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static int word_is(uint64_t got, uint64_t want, const char *what)
{
	if (got != want)
		diag("%s: 0x%016llx, want 0x%016llx", what,
		     (unsigned long long)got, (unsigned long long)want);
	return got == want;
}

static int t_cmp_swap(void)
{
	uint64_t v = 0x1122334455667788ULL ^ ++seed, w = ~v, old = 0;
	int good;

	memcpy(m1.p + AOFF, &v, 8);
	good = atomic(IBV_WR_ATOMIC_CMP_AND_SWP, v, w, &old) &&
	       word_is(old, v, "CMP_AND_SWP (equal) returned") &&
	       word_is(word(m1.p + AOFF), w, "memory after it");
	good &= atomic(IBV_WR_ATOMIC_CMP_AND_SWP, v, v + 3, &old) &&
		word_is(old, w, "CMP_AND_SWP (unequal) returned") &&
		word_is(word(m1.p + AOFF), w, "memory after it");
	return good & srq_cqs_empty("CMP_AND_SWP");
}

static int t_fetch_add(void)
{
	uint64_t v = 0x0102030405060708ULL ^ ++seed, old = 0;

	memcpy(m1.p + AOFF, &v, 8);
	return atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, ADD, 0, &old) &&
	       word_is(old, v, "FETCH_ADD returned") &&
	       word_is(word(m1.p + AOFF), v + ADD, "memory after it") &&
	       srq_cqs_empty("FETCH_ADD");
}

/* BIND_MW of the type 2 window mwi on x's initiator, then LOCAL_INV of it. */
static int t_bind_inv(void)
{
	struct ibv_send_wr wr;
	uint32_t key = ibv_inc_rkey(mwi->rkey);
	int good;

	wr_init(&wr, NULL, 0, IBV_WR_BIND_MW, 0);
	wr.bind_mw.mw = mwi;
	wr.bind_mw.rkey = key;
	wr.bind_mw.bind_info.mr = wbuf.mr;
	wr.bind_mw.bind_info.addr = VA(wbuf.p);
	wr.bind_mw.bind_info.length = wbuf.len;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if (!post(&x, &wr))
		return 0;
	good = sent(&x, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_BIND_MW, "BIND_MW");
	if (good)
		mwi->rkey = key;	/* the application's job (ibv_post_send(3)) */
	wr_init(&wr, NULL, 0, IBV_WR_LOCAL_INV, 0);
	wr.invalidate_rkey = key;
	good &= post(&x, &wr) &&
		sent(&x, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV,
		     "LOCAL_INV");
	return good & srq_cqs_empty("BIND_MW and LOCAL_INV");
}

/* SEND_WITH_INV into SRQ 1 of the free type 2 window of PD 1. */
static int t_send_inv(void)
{
	struct ibv_wc wc;
	int good;

	memset(&wc, 0, sizeof(wc));
	good = send_s1(IBV_WR_SEND_WITH_INV, 3000, mwf->rkey, IBV_WC_WITH_INV,
		       &wc, "SEND_WITH_INV");
	if (wc.invalidated_rkey != mwf->rkey) {
		diag("invalidated_rkey 0x%x, want 0x%x", wc.invalidated_rkey,
		     mwf->rkey);
		good = 0;
	}
	return good;
}

/*
 * Four SENDs of SHORT bytes through x, posted together, naming SRQ 1,
 * 2, 1, 2: SRQ 1's CQ completes messages 0 and 2 in that order, SRQ 2's
 * 1 and 3, each in the receive its wr_id names, each through x's target.
 */
static int t_two_srqs(void)
{
	uint64_t rid[2][2], sid[4];
	int used[2][2] = { { 0, 0 }, { 0, 0 } }, i, good = 1;
	struct ibv_send_wr wr;
	struct ibv_sge s[4];

	memset(rx1.p, DP_POISON, BUF);
	memset(rx2.p, DP_POISON, BUF);
	for (i = 0; i < 2; i++) {
		rid[0][i] = ++wr_id;
		rid[1][i] = ++wr_id;
		if (!rpost(s1, rid[0][i], &rx1, i * XFER, SHORT) ||
		    !rpost(s2, rid[1][i], &rx2, i * XFER, SHORT))
			return 0;
	}
	for (i = 0; i < 4; i++) {
		dp_fill(src.p + i * XFER, SHORT, seed + i);
		s[i] = sge_of(&src, i * XFER, SHORT);
		wr_init(&wr, &s[i], 1, IBV_WR_SEND, i % 2 ? n2 : n1);
		sid[i] = wr.wr_id;
		if (!post(&x, &wr))
			return 0;
	}
	seed += 4;
	for (i = 0; i < 4; i++)
		good &= sent(&x, sid[i], IBV_WC_SUCCESS, IBV_WC_SEND, "SEND");
	for (i = 0; i < 4; i++) {
		int q = i % 2, slot;
		struct dp_wc_want w = { 0, IBV_WC_SUCCESS, IBV_WC_RECV, SHORT,
					x.tqpn, -1, 0, -1 };
		struct dp_buf *b = q ? &rx2 : &rx1;
		struct ibv_wc wc;

		if (!dp_poll1(q ? cq2 : cq1, &wc, "receive")) {
			good = 0;
			continue;
		}
		slot = wc.wr_id == rid[q][0] ? 0 : wc.wr_id == rid[q][1] ? 1 : -1;
		w.wr_id = wc.wr_id;
		if (slot < 0 || used[q][slot]++ ||
		    !dp_wc_check(&wc, &w, "receive")) {
			dp_wc_diag("not a receive of this SRQ, or one taken twice",
				   &wc);
			good = 0;
			continue;
		}
		good &= dp_cmp(b->p + slot * XFER, src.p + i * XFER, SHORT,
			       q ? "SRQ 2's message" : "SRQ 1's message");
	}
	return good & srq_cqs_empty("after both SRQs' messages");
}

/*
 * @op (WRITE or READ) of XFER bytes through x naming SRQ @srqn at
 * @mem's buffer, through its rkey, that the target must refuse with
 * @status; behind it a valid WRITE to m1 through SRQ 1, which must be
 * flushed.  Nothing changes in @mem, m1 or src; the initiator ends in
 * ERR; no SRQ's CQ gets a completion.  x is renewed afterwards.
 */
static int refused_rdma(enum ibv_wr_opcode op, uint32_t srqn,
			struct dp_buf *mem, enum ibv_wc_status status,
			const char *what)
{
	struct ibv_sge s = sge_of(&src, 0, XFER), s2 = sge_of(&src, XFER, 64);
	struct ibv_send_wr wr, wr2;
	uint8_t *was_mem, *was_m1, *was_src;
	int good;

	dp_fill(mem->p, BUF, ++seed);
	dp_fill(m1.p, BUF, ++seed);
	dp_fill(src.p, BUF, ++seed);
	was_mem = snap(mem);
	was_m1 = snap(&m1);
	was_src = snap(&src);
	wr_init(&wr, &s, 1, op, srqn);
	wr_remote(&wr, mem->p + WOFF, mem->mr->rkey);
	wr_init(&wr2, &s2, 1, IBV_WR_RDMA_WRITE, n1);
	wr_remote(&wr2, m1.p + WOFF, m1.mr->rkey);
	wr.next = &wr2;
	good = post(&x, &wr) && sent(&x, wr.wr_id, status, 0, what) &&
	       qp_in_err(x.ini, what) &&
	       sent(&x, wr2.wr_id, IBV_WC_WR_FLUSH_ERR, 0,
		    "the WRITE behind it");
	good &= same(mem, was_mem, "the target of the refused request");
	good &= same(&m1, was_m1, "SRQ 1's MR");
	good &= same(&src, was_src, "the initiator's buffer");
	good &= srq_cqs_empty(what);
	renew(&x);
	return good;
}

/*
 * A SEND of 3000 bytes through x naming @srqn, which no XRC SRQ of the
 * domain has, and behind it a valid WRITE to m1 through SRQ 1:
 * REM_INV_REQ_ERR, the WRITE flushed, nothing written (rxb holds the
 * receives posted to sb and bs), no completion on any SRQ's CQ.  x is
 * renewed afterwards.
 */
static int refused_send(uint32_t srqn, const char *what)
{
	struct ibv_sge s = sge_of(&src, 0, 3000), s2 = sge_of(&src, XFER, 64);
	struct ibv_send_wr wr, wr2;
	uint8_t *was_rxb, *was_rx1, *was_rx2, *was_m1;
	int good;

	if (srqn == n1 || srqn == n2) {
		diag("%s: 0x%x is the number of SRQ 1 or 2", what, srqn);
		return 0;
	}
	dp_fill(src.p, BUF, ++seed);
	dp_fill(m1.p, BUF, ++seed);
	was_rxb = snap(&rxb);
	was_rx1 = snap(&rx1);
	was_rx2 = snap(&rx2);
	was_m1 = snap(&m1);
	wr_init(&wr, &s, 1, IBV_WR_SEND, srqn);
	wr_init(&wr2, &s2, 1, IBV_WR_RDMA_WRITE, n1);
	wr_remote(&wr2, m1.p + WOFF, m1.mr->rkey);
	wr.next = &wr2;
	good = post(&x, &wr) &&
	       sent(&x, wr.wr_id, IBV_WC_REM_INV_REQ_ERR, 0, what) &&
	       qp_in_err(x.ini, what) &&
	       sent(&x, wr2.wr_id, IBV_WC_WR_FLUSH_ERR, 0,
		    "the WRITE behind it");
	good &= same(&rxb, was_rxb, "receive buffers of domain B's and the basic SRQ");
	good &= same(&rx1, was_rx1, "SRQ 1's receive buffer");
	good &= same(&rx2, was_rx2, "SRQ 2's receive buffer");
	good &= same(&m1, was_m1, "SRQ 1's MR");
	good &= srq_cqs_empty(what);
	renew(&x);
	return good;
}

/*
 * A SEND of XFER bytes to SRQ 2, which has no receive: with rnr_retry 7
 * the initiator waits; the receive posted afterwards takes the message.
 */
static int t_rnr(void)
{
	struct ibv_sge s = sge_of(&src, 0, XFER);
	struct ibv_send_wr wr;
	uint64_t rid;
	int good;

	dp_fill(src.p, XFER, ++seed);
	memset(rx2.p, DP_POISON, BUF);
	wr_init(&wr, &s, 1, IBV_WR_SEND, n2);
	if (!post(&x, &wr))
		return 0;
	rid = ++wr_id;
	if (!rpost(s2, rid, &rx2, 0, XFER))
		return 0;
	good = sent(&x, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_SEND, "SEND (RNR)");
	good &= rcvd(cq2, rid, IBV_WC_RECV, XFER, x.tqpn, 0, -1, NULL,
		     "the receive posted after the SEND");
	good &= dp_cmp(rx2.p, src.p, XFER, "the message");
	return good & srq_cqs_empty("after the RNR wait");
}

/*
 * Two connections of domain A, x and a new one, each SEND SHORT bytes
 * twice into SRQ 1, taking turns: each receive names its connection's
 * XRC_RECV QP, holds that connection's next message, and is one of the
 * four posted, used once.
 */
static int t_two_initiators(void)
{
	struct xp y, *c[2] = { &x, &y };
	uint64_t rid[4], sid[4];
	int used[4] = { 0, 0, 0, 0 }, next[2] = { 0, 0 };
	int i, k, q, good = 1, posted = 1;
	struct ibv_send_wr wr;
	struct ibv_sge s[4];

	if (xp_make(&y, xrcd, 0))
		return 0;
	memset(rx1.p, DP_POISON, BUF);
	for (i = 0; i < 4; i++) {
		rid[i] = ++wr_id;
		if (!rpost(s1, rid[i], &rx1, i * XFER, SHORT))
			posted = 0;
	}
	/* Message k of connection q comes from src slot 2q + k. */
	for (k = 0; posted && k < 2; k++) {
		for (q = 0; q < 2; q++) {
			i = 2 * q + k;
			dp_fill(src.p + i * XFER, SHORT, seed + i);
			s[i] = sge_of(&src, i * XFER, SHORT);
			wr_init(&wr, &s[i], 1, IBV_WR_SEND, n1);
			sid[i] = wr.wr_id;
			if (!post(c[q], &wr))
				posted = 0;
		}
	}
	good = posted;
	for (i = 0; posted && i < 4; i++)
		good &= sent(c[i / 2], sid[i], IBV_WC_SUCCESS, IBV_WC_SEND,
			     "SEND");
	for (i = 0; posted && i < 4; i++) {
		struct ibv_wc wc;
		int r;

		if (!dp_poll1(cq1, &wc, "receive")) {
			good = 0;
			break;
		}
		q = wc.qp_num == x.tqpn ? 0 : wc.qp_num == y.tqpn ? 1 : -1;
		for (r = 0; r < 4 && rid[r] != wc.wr_id; r++)
			;
		if (q < 0 || r == 4 || used[r]++ || next[q] > 1 ||
		    wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
		    wc.byte_len != SHORT) {
			dp_wc_diag("not a receive of one of the two connections' messages",
				   &wc);
			good = 0;
			continue;
		}
		k = next[q]++;
		good &= dp_cmp(rx1.p + r * XFER, src.p + (2 * q + k) * XFER,
			       SHORT, q ? "the second connection's message" :
			       "the first connection's message");
	}
	seed += 4;
	good &= srq_cqs_empty("after the two connections' messages");
	if (xp_destroy(&y))
		good = 0;
	return good;
}

/*
 * One ibv_wr_* batch on @e's initiator, every WR naming its SRQ with
 * ibv_wr_set_xrc_srqn: a SEND of XFER bytes to SRQ 1, a WRITE of XFER
 * bytes into m2 through SRQ 2, a FETCH_ADD on m1's word through SRQ 1.
 * *@posted: complete returned 0 and the three completed in order;
 * *@landed: the data where it belongs.
 */
static void t_wr_api(struct xp *e, int *posted, int *landed)
{
	static const enum ibv_wc_opcode op[3] = {
		IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_FETCH_ADD
	};
	uint64_t v = 0x0a0b0c0d01020304ULL ^ ++seed, rid = ++wr_id, id[3];
	struct ibv_qp_ex *q = e->qpx;
	int i, ret;

	*posted = *landed = 0;
	if (!q)
		return;
	dp_fill(src.p, 2 * XFER, ++seed);
	memset(src.p + RES_OFF, DP_POISON, 8);
	memset(rx1.p, DP_POISON, BUF);
	memset(m2.p, DP_POISON, BUF);
	memcpy(m1.p + AOFF, &v, 8);
	if (!rpost(s1, rid, &rx1, 0, XFER))
		return;

	ibv_wr_start(q);
	q->wr_id = id[0] = ++wr_id;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(q);
	ibv_wr_set_xrc_srqn(q, n1);
	ibv_wr_set_sge(q, src.mr->lkey, VA(src.p), XFER);
	q->wr_id = id[1] = ++wr_id;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(q, m2.mr->rkey, VA(m2.p + WOFF));
	ibv_wr_set_xrc_srqn(q, n2);
	ibv_wr_set_sge(q, src.mr->lkey, VA(src.p + XFER), XFER);
	q->wr_id = id[2] = ++wr_id;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(q, m1.mr->rkey, VA(m1.p + AOFF), ADD);
	ibv_wr_set_xrc_srqn(q, n1);
	ibv_wr_set_sge(q, src.mr->lkey, VA(src.p + RES_OFF), 8);
	ret = ibv_wr_complete(q);
	if (ret) {
		diag("ibv_wr_complete: %s", strerror(ret));
		return;
	}
	*posted = 1;
	for (i = 0; i < 3; i++)
		*posted &= sent(e, id[i], IBV_WC_SUCCESS, op[i], "ibv_wr_* WR");

	*landed = rcvd(cq1, rid, IBV_WC_RECV, XFER, e->tqpn, 0, -1, NULL,
		       "ibv_wr_send's receive") &&
		  dp_cmp(rx1.p, src.p, XFER, "ibv_wr_send's message");
	*landed &= dp_cmp(m2.p + WOFF, src.p + XFER, XFER,
			  "ibv_wr_rdma_write's target") &&
		   poisoned(m2.p, WOFF, "before it") &&
		   poisoned(m2.p + WOFF + XFER, BUF - WOFF - XFER, "after it");
	*landed &= word_is(word(src.p + RES_OFF), v,
			   "ibv_wr_atomic_fetch_add returned") &&
		   word_is(word(m1.p + AOFF), v + ADD, "memory after it");
	*landed &= srq_cqs_empty("after the ibv_wr_* batch");
}

/*
 * A second context of the device opens domain A through file A and
 * makes an XRC SRQ in it: x's SEND naming it arrives in that context's
 * CQ (*@arrived).  Closing that handle of the domain: EBUSY while the
 * SRQ exists (*@busy_srq), EBUSY while an XRC_RECV QP made through it
 * exists, then 0 (*@busy_qp).
 */
static void t_ctx2(int *arrived, int *busy_srq, int *busy_qp)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd_a,
		.oflags = O_CREAT,
	};
	struct ibv_qp_init_attr_ex ta = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	struct ibv_context *c2 = open_by_name(devname);
	struct ibv_xrcd *xd2 = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp = NULL;
	struct dp_buf b = { 0 };
	struct ibv_sge s = sge_of(&src, 0, XFER);
	struct ibv_send_wr wr;
	uint64_t rid = ++wr_id;
	uint32_t num = 0;
	int ret;

	*arrived = *busy_srq = *busy_qp = 0;
	if (!c2 || !(xd2 = ibv_open_xrcd(c2, &xa)) ||
	    !(pd = ibv_alloc_pd(c2)) ||
	    !(cq = ibv_create_cq(c2, 8, NULL, NULL, 0)) ||
	    dp_buf_alloc(&b, pd, XFER, DP_ACC_ALL) ||
	    !(srq = xsrq(c2, xd2, pd, cq, &num))) {
		diag("second context: device, domain A, PD, CQ, MR or SRQ: %s",
		     strerror(errno));
		goto out;
	}
	dp_fill(src.p, XFER, ++seed);
	wr_init(&wr, &s, 1, IBV_WR_SEND, num);
	if (rpost(srq, rid, &b, 0, XFER) && post(&x, &wr)) {
		*arrived = sent(&x, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_SEND,
				"SEND to the second context's SRQ");
		*arrived &= rcvd(cq, rid, IBV_WC_RECV, XFER, x.tqpn, 0, -1,
				 NULL, "the second context's receive") &&
			    dp_cmp(b.p, src.p, XFER, "the message");
		*arrived &= srq_cqs_empty("the first context's SRQ CQs");
	}

	ret = ibv_close_xrcd(xd2);
	if (!ret)
		xd2 = NULL;
	*busy_srq = expect_errno(ret, EBUSY, "close_xrcd with an SRQ");
	if (ibv_destroy_srq(srq))
		diag("second context: ibv_destroy_srq failed");
	else
		srq = NULL;
	if (!xd2)
		goto out;
	ta.xrcd = xd2;
	qp = ibv_create_qp_ex(c2, &ta);
	if (!qp) {
		diag("second context: ibv_create_qp_ex(XRC_RECV): %s",
		     strerror(errno));
		goto out;
	}
	ret = ibv_close_xrcd(xd2);
	if (!ret)
		xd2 = NULL;
	*busy_qp = expect_errno(ret, EBUSY, "close_xrcd with an XRC_RECV QP");
	ret = ibv_destroy_qp(qp);
	if (!ret)
		qp = NULL;
	*busy_qp &= !ret;
	if (xd2) {
		ret = ibv_close_xrcd(xd2);
		if (!ret)
			xd2 = NULL;
		*busy_qp &= expect_errno(ret, 0, "close_xrcd with neither");
	}
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (srq)
		ibv_destroy_srq(srq);
	dp_buf_free(&b);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	if (xd2)
		ibv_close_xrcd(xd2);
	if (c2)
		ibv_close_device(c2);
}

/* A SEND of XFER bytes (message @k) through @p to the child's SRQ @srqn. */
static int send_child(struct xp *p, uint32_t srqn, uint32_t k)
{
	struct ibv_sge s = sge_of(&src, 0, XFER);
	struct ibv_send_wr wr;
	int good;

	dp_fill(src.p, XFER, CHILD_SEED + k);
	wr_init(&wr, &s, 1, IBV_WR_SEND, srqn);
	if (!post(p, &wr))
		return 0;
	good = sent(p, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_SEND,
		    "SEND to the child's SRQ");
	return child_ask(CMD_CHECK, k, NULL) & good;
}

/*
 * The child process on a connection of its own (xc): res[0] it opened
 * the domain and the XRC_RECV QP and made its SRQ; res[1] a SEND through
 * xc arrived there; res[2] the parent destroyed its handle of the
 * XRC_RECV QP and a second SEND still arrived; res[3] the child tore
 * everything down and exited 0.
 */
static void t_child(int res[4])
{
	struct xp xc;
	uint32_t csrq = 0;
	int ret, status;

	res[0] = res[1] = res[2] = res[3] = 0;
	if (xp_make(&xc, xrcd, 0)) {
		child_end();
		return;
	}
	res[0] = child_ask(CMD_GO, xc.tqpn, &csrq);
	if (res[0]) {
		diag("the child's XRC SRQ: 0x%x", csrq);
		res[1] = send_child(&xc, csrq, 1);
		ret = ibv_destroy_qp(xc.tgt);
		if (ret)
			diag("ibv_destroy_qp of the parent's XRC_RECV handle: %s",
			     strerror(ret));
		else
			xc.tgt = NULL;
		res[2] = !ret && send_child(&xc, csrq, 2);
	}
	status = child_end();
	res[3] = status == 0;
	if (status)
		diag("the child's exit status: 0x%x", status);
	xp_destroy(&xc);
}

/* Creation refused: @got NULL with errno EINVAL; else it is destroyed. */
static int refused_create(void *got, int is_qp, const char *what)
{
	int err = errno;

	if (got) {
		diag("%s: created", what);
		if (is_qp)
			ibv_destroy_qp(got);
		else
			ibv_destroy_srq(got);
		return 0;
	}
	return expect_errno(err, EINVAL, what);
}

static void t_create_errors(int res[4])
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd1,
		.cq = cq1,
	};
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_SEND,
		.send_cq = x.scq,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
	};
	struct ibv_qp_init_attr_ex ta = { .qp_type = IBV_QPT_XRC_RECV };

	errno = 0;
	res[0] = refused_create(ibv_create_srq_ex(dp.ctx, &sa), 0,
				"XRC SRQ without an XRCD");
	sa.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		       IBV_SRQ_INIT_ATTR_XRCD;
	sa.xrcd = xrcd;
	sa.cq = NULL;
	errno = 0;
	res[1] = refused_create(ibv_create_srq_ex(dp.ctx, &sa), 0,
				"XRC SRQ without a CQ");
	errno = 0;
	res[2] = refused_create(ibv_create_qp_ex(dp.ctx, &ia), 1,
				"XRC_SEND QP without a PD");
	errno = 0;
	res[3] = refused_create(ibv_create_qp_ex(dp.ctx, &ta), 1,
				"XRC_RECV QP without an XRCD");
}

/* ---- setup and teardown ------------------------------------------------- */

static struct ibv_xrcd *open_domain(int fd, const char *path)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = O_CREAT,
	};
	struct ibv_xrcd *xd;

	if (fd < 0) {
		diag("no file for a domain (%s)", path);
		return NULL;
	}
	xd = ibv_open_xrcd(dp.ctx, &a);
	if (!xd)
		diag("ibv_open_xrcd(%s, O_CREAT): %s", path, strerror(errno));
	return xd;
}

static int target_objects(void)
{
	pd1 = ibv_alloc_pd(dp.ctx);
	pd2 = ibv_alloc_pd(dp.ctx);
	cq1 = ibv_create_cq(dp.ctx, 64, NULL, NULL, 0);
	cq2 = ibv_create_cq(dp.ctx, 64, NULL, NULL, 0);
	cqb = ibv_create_cq(dp.ctx, 64, NULL, NULL, 0);
	if (!pd1 || !pd2 || !cq1 || !cq2 || !cqb) {
		diag("PDs and CQs: %s", strerror(errno));
		return -1;
	}
	if (dp_buf_alloc(&src, dp.pd, BUF, DP_ACC_ALL) ||
	    dp_buf_alloc(&rx1, pd1, BUF, DP_ACC_ALL) ||
	    dp_buf_alloc(&rx2, pd2, BUF, DP_ACC_ALL) ||
	    dp_buf_alloc(&m1, pd1, BUF, DP_ACC_ALL) ||
	    dp_buf_alloc(&m2, pd2, BUF, DP_ACC_ALL) ||
	    dp_buf_alloc(&rxb, pd1, 4096, DP_ACC_ALL) ||
	    dp_buf_alloc(&wbuf, dp.pd, 4096,
			 DP_ACC_ALL | IBV_ACCESS_MW_BIND))
		return -1;
	mwi = ibv_alloc_mw(dp.pd, IBV_MW_TYPE_2);
	mwf = ibv_alloc_mw(pd1, IBV_MW_TYPE_2);
	if (!mwi || !mwf) {
		diag("ibv_alloc_mw(TYPE_2): %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* An XRC SRQ of domain A made and destroyed: the number it had, or 0. */
static uint32_t probe_srqn(void)
{
	struct ibv_srq *p;
	uint32_t num = 0;

	p = xsrq(dp.ctx, xrcd, pd1, cq1, &num);
	if (!p)
		return 0;
	if (ibv_destroy_srq(p)) {
		diag("ibv_destroy_srq of a probe failed");
		return 0;
	}
	return num;
}

/*
 * SRQs 1 and 2 of domain A, B's, the basic one; receives on the last two.
 *
 * A basic SRQ has no number to ask for (ibv_get_srq_num(3) is for XRC
 * SRQs), but the device numbers all its SRQs, XRC or not, lowest free
 * first (Documentation/orca-hw-interface.rst, object numbers): the basic
 * SRQ made just after an XRC SRQ numbered p was destroyed takes p.  Two
 * more probes confirm it: the first gets another number q, the second
 * q again (the numbers are reused lowest first, and p is taken).
 * Nothing else makes SRQs meanwhile (the child makes its own later).
 */
static int srqs(void)
{
	struct ibv_srq_init_attr ba = { .attr = { .max_wr = 4, .max_sge = 1 } };
	uint32_t p, q, r;

	s1 = xsrq(dp.ctx, xrcd, pd1, cq1, &n1);
	s2 = xsrq(dp.ctx, xrcd, pd2, cq2, &n2);
	sb = xsrq(dp.ctx, xrcd_b, pd1, cqb, &nb);
	if (!s1 || !s2 || !sb)
		return -1;
	diag("XRC SRQ numbers: SRQ 1 0x%x, SRQ 2 0x%x, domain B's 0x%x",
	     n1, n2, nb);
	if (n1 == n2 || n1 == nb || n2 == nb) {
		diag("two XRC SRQs have one number");
		return -1;
	}
	p = probe_srqn();
	bs = ibv_create_srq(pd1, &ba);
	if (!bs) {
		diag("ibv_create_srq (basic): %s", strerror(errno));
		return -1;
	}
	q = probe_srqn();
	r = probe_srqn();
	nbs = p;
	nbs_known = p && q && q != p && r == q;
	if (nbs_known)
		diag("the basic SRQ's number: 0x%x (a probe before it had it, two after it 0x%x)",
		     p, q);
	else
		diag("the basic SRQ's number is not known: probes before and after it had 0x%x, then 0x%x and 0x%x",
		     p, q, r);
	memset(rxb.p, DP_POISON, rxb.len);
	if (!rpost(bs, ++wr_id, &rxb, 0, 2048) ||
	    !rpost(sb, ++wr_id, &rxb, 2048, 2048))
		return -1;
	return 0;
}

static int undo(int ret, const char *what)
{
	if (ret)
		diag("%s failed: %s", what, strerror(ret));
	return ret ? 1 : 0;
}

static int buf_free(struct dp_buf *b)
{
	int bad = 0;

	if (b->mr)
		bad = undo(ibv_dereg_mr(b->mr), "ibv_dereg_mr");
	b->mr = NULL;
	dp_buf_free(b);
	return bad;
}

/* Everything made here, in order; the number of calls that failed. */
static int teardown(void)
{
	struct ibv_srq **srq[] = { &s1, &s2, &sb, &bs };
	struct ibv_cq **cq[] = { &cq1, &cq2, &cqb };
	struct dp_buf *b[] = { &src, &rx1, &rx2, &m1, &m2, &rxb, &wbuf };
	unsigned int i;
	int bad = xp_destroy(&x);

	for (i = 0; i < DP_ARRAY_SIZE(srq); i++)
		if (*srq[i])
			bad += undo(ibv_destroy_srq(*srq[i]), "ibv_destroy_srq");
	if (mwi)
		bad += undo(ibv_dealloc_mw(mwi), "ibv_dealloc_mw");
	if (mwf)
		bad += undo(ibv_dealloc_mw(mwf), "ibv_dealloc_mw");
	for (i = 0; i < DP_ARRAY_SIZE(b); i++)
		bad += buf_free(b[i]);
	for (i = 0; i < DP_ARRAY_SIZE(cq); i++)
		if (*cq[i])
			bad += undo(ibv_destroy_cq(*cq[i]), "ibv_destroy_cq");
	if (pd1)
		bad += undo(ibv_dealloc_pd(pd1), "ibv_dealloc_pd");
	if (pd2)
		bad += undo(ibv_dealloc_pd(pd2), "ibv_dealloc_pd");
	if (xrcd)
		bad += undo(ibv_close_xrcd(xrcd), "ibv_close_xrcd");
	if (xrcd_b)
		bad += undo(ibv_close_xrcd(xrcd_b), "ibv_close_xrcd");
	return bad;
}

int main(int argc, char **argv)
{
	int p2c[2], c2p[2], a, b, c, res[4], up;
	struct xp xe;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	devname = argv[1];
	fd_a = mkstemp(path_a);
	fd_b = mkstemp(path_b);
	/* A child gone early must not kill the parent writing to it. */
	signal(SIGPIPE, SIG_IGN);
	if (!pipe(p2c) && !pipe(c2p)) {
		fflush(stdout);
		child_pid = fork();
		if (child_pid == 0) {
			close(p2c[1]);
			close(c2p[0]);
			_exit(child_main(p2c[0], c2p[1]));
		}
		close(p2c[0]);
		close(c2p[1]);
		to_child = p2c[1];
		from_child = c2p[0];
		if (child_pid < 0)
			diag("fork: %s", strerror(errno));
	}
	atexit(at_exit);

	dp_open(argc, argv);
	ok(!!(dp.attr.device_cap_flags & IBV_DEVICE_XRC),
	   "query_device: IBV_DEVICE_XRC in device_cap_flags (0x%x)",
	   dp.attr.device_cap_flags);
	xrcd = open_domain(fd_a, path_a);
	xrcd_b = open_domain(fd_b, path_b);
	up = ok(xrcd && xrcd_b,
		"ibv_open_xrcd with the fd of a new file and O_CREAT, for two files: XRC domains A and B");
	up &= ok(!target_objects(),
		 "two more PDs, their CQs and MRs; an MR with MW_BIND; type 2 windows in the initiators' PD and in PD 1");
	up &= ok(up && !srqs(),
		 "ibv_create_srq_ex (srq_type XRC; PD, XRCD, CQ): SRQ 1 (PD 1) and SRQ 2 (PD 2) in domain A, one in domain B; ibv_get_srq_num gives each its own number below 2^24; a basic SRQ");
	up &= ok(up && !xp_make(&x, xrcd, 0) &&
		 dp_qp_state(x.ini) == IBV_QPS_RTS &&
		 dp_qp_state(x.tgt) == IBV_QPS_RTR,
		 "an XRC_SEND QP (comp_mask PD, a send CQ, no receive queue) and an XRC_RECV QP of domain A (comp_mask XRCD, no CQ or PD), connected: the XRC_SEND in RTS, the XRC_RECV in RTR");
	if (!up)
		goto out;

	/* ---- what is refused when posted -------------------------------- */
	ok(t_post_refused(0),
	   "ibv_post_recv on the XRC_SEND QP (no receive queue): EINVAL, bad_wr the WR");
	ok(t_post_refused(1),
	   "ibv_post_send on the XRC_RECV QP: EINVAL, bad_wr the WR");
	ok(t_post_refused(2),
	   "ibv_post_recv on the XRC_RECV QP: EINVAL, bad_wr the WR");
	ok(t_srqn_too_big(),
	   "a SEND with remote_srqn 2^24: ibv_post_send EINVAL, bad_wr the WR; a WRITE posted next is the first completion and lands");

	/* ---- every opcode, into SRQ 1 ------------------------------------ */
	ok(send_s1(IBV_WR_SEND, XFER, 0, 0, NULL, "SEND"),
	   "SEND of %d bytes (2 SGEs) naming SRQ 1: completion SEND; SRQ 1's CQ: RECV, byte_len %d, qp_num the XRC_RECV QP's; the bytes arrived; nothing in SRQ 2's CQ",
	   XFER, XFER);
	ok(send_s1(IBV_WR_SEND_WITH_IMM, 3000, 0x5eed0000U | seed,
		   IBV_WC_WITH_IMM, NULL, "SEND_WITH_IMM"),
	   "SEND_WITH_IMM of 3000 bytes naming SRQ 1: RECV with IBV_WC_WITH_IMM and the immediate, qp_num the XRC_RECV QP's; the bytes arrived");
	ok(t_write(n1, &m1),
	   "RDMA_WRITE of %d bytes through the rkey of an MR of PD 1, naming SRQ 1: lands byte for byte, the bytes around untouched, no receive completion",
	   XFER);
	ok(t_write_imm(),
	   "RDMA_WRITE_WITH_IMM of 4096 bytes naming SRQ 1: lands; SRQ 1's CQ: RECV_RDMA_WITH_IMM, byte_len 4096, IBV_WC_WITH_IMM, the immediate; the receive buffer untouched");
	ok(t_read(),
	   "RDMA_READ of %d bytes of PD 1's MR naming SRQ 1: the initiator gets its bytes",
	   XFER);
	ok(t_cmp_swap(),
	   "ATOMIC_CMP_AND_SWP naming SRQ 1: an equal compare swaps and returns the old value; an unequal one returns the value and leaves it");
	ok(t_fetch_add(),
	   "ATOMIC_FETCH_AND_ADD naming SRQ 1: returns the old value and adds");
	ok(t_bind_inv(),
	   "BIND_MW of a type 2 window (IBV_WR_BIND_MW) on the XRC_SEND QP, then LOCAL_INV of its key: completions BIND_MW and LOCAL_INV");
	ok(t_send_inv(),
	   "SEND_WITH_INV naming SRQ 1 of the key of a free type 2 window of PD 1: RECV with IBV_WC_WITH_INV and invalidated_rkey the key; the bytes arrived");

	/* ---- one XRC_RECV QP, two SRQs ----------------------------------- */
	ok(t_two_srqs(),
	   "one XRC_RECV QP feeds both SRQs of its domain: 4 SENDs of %d bytes posted together naming SRQ 1, 2, 1, 2: SRQ 1's CQ gets the 1st and 3rd, SRQ 2's the 2nd and 4th, in order, qp_num the XRC_RECV QP's, byte for byte",
	   SHORT);
	ok(t_write(n2, &m2),
	   "RDMA_WRITE of %d bytes through the rkey of an MR of PD 2, naming SRQ 2: lands byte for byte",
	   XFER);

	/* ---- memory checked against the PD of the SRQ named ------------- */
	ok(refused_rdma(IBV_WR_RDMA_WRITE, n1, &m2, IBV_WC_REM_ACCESS_ERR,
			"WRITE, PD 2's rkey, SRQ 1"),
	   "RDMA_WRITE through the rkey of PD 2's MR naming SRQ 1 (PD 1): REM_ACCESS_ERR, nothing written; the initiator in ERR, the WRITE behind it WR_FLUSH_ERR");
	ok(refused_rdma(IBV_WR_RDMA_WRITE, n1, &src, IBV_WC_REM_ACCESS_ERR,
			"WRITE, the initiator's PD's rkey, SRQ 1"),
	   "RDMA_WRITE through the rkey of an MR of the initiator's own PD naming SRQ 1: REM_ACCESS_ERR, nothing written, the WR behind it flushed");
	ok(refused_rdma(IBV_WR_RDMA_READ, n1, &m2, IBV_WC_REM_ACCESS_ERR,
			"READ, PD 2's rkey, SRQ 1"),
	   "RDMA_READ through the rkey of PD 2's MR naming SRQ 1: REM_ACCESS_ERR, nothing read, the WR behind it flushed");

	/* ---- remote_srqn naming no XRC SRQ of the domain ----------------- */
	ok(nb != NO_SRQN && (!nbs_known || nbs != NO_SRQN) &&
	   refused_send(NO_SRQN, "no SRQ"),
	   "a SEND with remote_srqn 0x%x (no SRQ): REM_INV_REQ_ERR, the WRITE behind it WR_FLUSH_ERR, nothing written, no completion in any SRQ's CQ",
	   NO_SRQN);
	ok(nbs_known && refused_send(nbs, "the basic SRQ"),
	   "a SEND naming the basic SRQ (the number an XRC SRQ destroyed just before it had: SRQs are numbered lowest free): REM_INV_REQ_ERR, its receive untouched, the WR behind it flushed");
	ok(refused_send(nb, "domain B's SRQ"),
	   "a SEND naming the XRC SRQ of domain B: REM_INV_REQ_ERR, its receive untouched, nothing in its CQ, the WR behind it flushed");
	ok(refused_rdma(IBV_WR_RDMA_WRITE, nb, &m1, IBV_WC_REM_INV_REQ_ERR,
			"WRITE naming domain B's SRQ"),
	   "RDMA_WRITE naming the XRC SRQ of domain B (whose PD holds the MR): REM_INV_REQ_ERR, nothing written, the WR behind it flushed");

	/* ---- RNR, and two connections into one SRQ ----------------------- */
	ok(t_rnr(),
	   "SEND of %d bytes naming SRQ 2 with no receive there (rnr_retry 7), the receive posted afterwards: the SEND completes successfully and the receive holds it",
	   XFER);
	ok(t_two_initiators(),
	   "two XRC connections of domain A each SEND twice into SRQ 1, taking turns: each receive's qp_num is its connection's XRC_RECV QP, each connection's messages in order, byte for byte, each receive used once");

	/* ---- the ibv_wr_* API --------------------------------------------- */
	up = ok(!xp_make(&xe, xrcd, IBV_QP_EX_WITH_SEND |
			 IBV_QP_EX_WITH_RDMA_WRITE |
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD),
		"ibv_create_qp_ex of an XRC_SEND QP with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS (SEND, RDMA_WRITE, ATOMIC_FETCH_AND_ADD): ibv_qp_to_qp_ex gives it; connected to a new XRC_RECV QP");
	if (!up)
		memset(&xe, 0, sizeof(xe));
	t_wr_api(&xe, &a, &b);
	ok(a, "ibv_wr_start; ibv_wr_send, ibv_wr_rdma_write and ibv_wr_atomic_fetch_add, each with ibv_wr_set_xrc_srqn and ibv_wr_set_sge; ibv_wr_complete 0; the three complete in order: SEND, RDMA_WRITE, FETCH_ADD");
	ok(b, "the ibv_wr_* batch: the SEND's %d bytes in SRQ 1 (qp_num the new XRC_RECV QP's), the WRITE's %d bytes in PD 2's MR through SRQ 2, the FETCH_ADD returned the old value and added",
	   XFER, XFER);
	if (xp_destroy(&xe))
		diag("destroying the ibv_wr_* connection failed");

	/* ---- domain A in a second context ------------------------------- */
	t_ctx2(&a, &b, &c);
	ok(a, "a second context opens domain A through file A (O_CREAT) and makes an XRC SRQ (its own PD and CQ): a SEND naming it through the first context's XRC_RECV QP arrives in its CQ, qp_num that QP's, byte for byte");
	ok(b, "ibv_close_xrcd of the second context's handle while its XRC SRQ exists: EBUSY");
	ok(c, "ibv_close_xrcd of it while an XRC_RECV QP made through it exists: EBUSY; with neither it closes");
	ok(send_s1(IBV_WR_SEND, SHORT, 0, 0, NULL, "SEND after the close"),
	   "domain A still serves the first context: a SEND naming SRQ 1 arrives");

	/* ---- domain A and the XRC_RECV QP in another process ------------- */
	t_child(res);
	ok(res[0], "a child process opens domain A through file A (without O_CREAT: it exists), ibv_open_qp of the parent's XRC_RECV QP gives its qp_num and XRC_RECV; the child makes an XRC SRQ (its own context, PD and CQ)");
	ok(res[1], "a SEND of %d bytes through the parent's XRC_SEND QP naming the child's SRQ: completion SEND; the child's CQ: RECV, qp_num the XRC_RECV QP's, byte for byte",
	   XFER);
	ok(res[2], "the parent destroys its handle of the XRC_RECV QP (0); a second SEND through the same connection still arrives in the child's SRQ");
	ok(res[3], "the child destroys its QP handle, SRQ, MR, CQ and PD, closes the domain and the device, and exits 0");

	/* ---- creation refused --------------------------------------------- */
	t_create_errors(res);
	ok(res[0], "ibv_create_srq_ex of an XRC SRQ without an XRCD (comp_mask TYPE, PD, CQ): EINVAL");
	ok(res[1], "ibv_create_srq_ex of an XRC SRQ without a CQ (comp_mask TYPE, PD, XRCD): EINVAL");
	ok(res[2], "ibv_create_qp_ex of an XRC_SEND QP without a PD (comp_mask 0): EINVAL");
	ok(res[3], "ibv_create_qp_ex of an XRC_RECV QP without an XRCD (comp_mask 0): EINVAL");

out:
	child_end();
	a = teardown();
	ok(!a, "every QP, SRQ, window, MR, CQ and PD destroyed, both XRC domains closed (%d calls failed)",
	   a);
	return dp_close();
}
