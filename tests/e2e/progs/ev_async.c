// SPDX-License-Identifier: GPL-2.0-only
/*
 * Async events through ibv_get_async_event(3) / ibv_ack_async_event(3),
 * each provoked deliberately through verbs (-m MODE):
 *
 *   qp-access  RDMA WRITE with an rkey that is no longer valid: the
 *              requester completes with IBV_WC_REM_ACCESS_ERR, the
 *              responder QP gets IBV_EVENT_QP_ACCESS_ERR and goes to ERR;
 *   qp-req     an invalid request (ATOMIC FETCH_AND_ADD to a misaligned
 *              remote address, or where the provider refuses that at post
 *              time, an RDMA READ to a responder whose max_dest_rd_atomic
 *              is 0): IBV_WC_REM_INV_REQ_ERR at the requester,
 *              IBV_EVENT_QP_REQ_ERR at the responder, which goes to ERR;
 *   qp-req-rd0 the same with the RDMA READ to a responder whose
 *              max_dest_rd_atomic is 0, whatever the provider does with
 *              a misaligned atomic (it has no responder resource);
 *   cq-err     a CQ of N entries receives N + 1 completions, unpolled:
 *              IBV_EVENT_CQ_ERR naming that CQ;
 *   srq-limit  an SRQ created with srq_limit 1000 (meaningless at creation,
 *              ibv_create_srq(3): the SRQ is created and not armed) and
 *              holding 8 receives is armed with srq_limit 4: four
 *              consumed, no event; the fifth leaves 3 < 4: one
 *              IBV_EVENT_SRQ_LIMIT_REACHED naming the SRQ, srq_limit reads
 *              0 (ibv_query_srq(3)), and a sixth raises nothing more;
 *   last-wqe   a QP on an SRQ moved to ERR: IBV_EVENT_QP_LAST_WQE_REACHED;
 *   port       prints "# ready", then expects IBV_EVENT_PORT_ERR and
 *              IBV_EVENT_PORT_ACTIVE on port 1 (the .t takes the netdev
 *              down and up);
 *   gid:ADDR   prints "# ready add", expects IBV_EVENT_GID_CHANGE and the
 *              IPv4-mapped GID of ADDR in the table; prints "# ready del",
 *              expects IBV_EVENT_GID_CHANGE and the GID gone (the .t adds
 *              and deletes ADDR on the netdev).
 *
 * Every wait is a poll() on the async fd limited to WAIT_MS: a missing
 * event is a failure, not a hang.
 *
 * Usage: ev_async -d DEVICE -m MODE [-w WAIT_MS] [-q QUIET_MS]  (prints TAP)
 */
#include <arpa/inet.h>

#include "ev_common.h"

static struct ev_dev d;

/* Expect one async event of type want for the object obj (or port). */
static int expect_async(enum ibv_event_type want, void *obj, int port,
			const char *what)
{
	struct ibv_async_event ev;
	int r = ev_async_wait(d.ctx, want, ev_wait_ms, &ev), match = 0;

	if (r == 1)
		diag("no %s within %d ms", ibv_event_type_str(want), ev_wait_ms);
	if (r == 0) {
		switch (want) {
		case IBV_EVENT_CQ_ERR:
			match = (void *)ev.element.cq == obj;
			break;
		case IBV_EVENT_SRQ_LIMIT_REACHED:
		case IBV_EVENT_SRQ_ERR:
			match = (void *)ev.element.srq == obj;
			break;
		case IBV_EVENT_PORT_ACTIVE:
		case IBV_EVENT_PORT_ERR:
		case IBV_EVENT_GID_CHANGE:
			match = ev.element.port_num == port;
			if (!match)
				diag("port_num %d", ev.element.port_num);
			break;
		default:
			match = (void *)ev.element.qp == obj;
			break;
		}
		ibv_ack_async_event(&ev);
	}
	return ok(r == 0 && match, "%s: %s, naming %s", what,
		  ibv_event_type_str(want), obj ? "its object" : "port 1");
}

static int no_async(int ms, const char *what)
{
	struct ibv_async_event ev;
	int r = ev_readable(d.ctx->async_fd, ms);

	if (r == 1 && !ibv_get_async_event(d.ctx, &ev)) {
		diag("unexpected async event %s", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	return ok(r == 0, "%s", what);
}

static int qp_state_is(struct ibv_qp *qp, enum ibv_qp_state want)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return 0;
	if (a.qp_state != want)
		diag("QP %u is in state %d, expected %d", qp->qp_num,
		     a.qp_state, want);
	return a.qp_state == want;
}

/* One send completion on cq with status st. */
static int send_status(struct ibv_cq *cq, enum ibv_wc_status st)
{
	struct ibv_wc wc;

	if (ev_poll_n(cq, 1, &wc, ev_wait_ms) != 1) {
		diag("no completion within %d ms", ev_wait_ms);
		return 0;
	}
	if (wc.status != st)
		diag("completion status: %s, expected %s", ev_wc_str(&wc),
		     ibv_wc_status_str(st));
	return wc.status == st;
}

/*
 * The requester's half of qp-req: an invalid request.  First choice, a
 * misaligned atomic; a provider may refuse that at post time (EINVAL:
 * rxe does), and then the request is an RDMA READ to a responder that
 * accepts no RDMA READ / atomic (max_dest_rd_atomic = 0), which only the
 * responder can know about (at once with @read).  Returns the post's
 * status.
 */
static int post_invalid_request(struct ibv_qp **a, struct ibv_qp **b,
				struct ibv_cq *cq, int read)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge = {
		.addr = (uintptr_t)d.buf + 8192, .length = 8, .lkey = d.mr->lkey,
	};
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (read) {
		diag("asked for the RDMA READ");
	} else if (d.attr.atomic_cap != IBV_ATOMIC_NONE) {
		wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = (uintptr_t)d.buf + 65536 + 4;
		wr.wr.atomic.rkey = d.mr->rkey;
		wr.wr.atomic.compare_add = 1;
		ret = ibv_post_send(*a, &wr, &bad);
		if (ret != EINVAL) {
			diag("invalid request: ATOMIC FETCH_AND_ADD to a misaligned address");
			return ret;
		}
		diag("the provider refuses a misaligned atomic at post time");
	} else {
		diag("the device has no atomics");
	}
	/* A new pair whose responder takes no RDMA READ. */
	if (ibv_destroy_qp(*a) || ibv_destroy_qp(*b))
		return -1;
	ev_dest_rd_atomic = 0;
	ret = ev_pair(&d, a, b, cq, cq, cq, cq, NULL, 8);
	ev_dest_rd_atomic = -1;
	if (ret)
		return -1;
	diag("invalid request: RDMA READ to a responder with max_dest_rd_atomic = 0");
	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = (uintptr_t)d.buf + 65536;
	wr.wr.rdma.rkey = d.mr->rkey;
	return ibv_post_send(*a, &wr, &bad);
}

/* invalid_request: 0 a stale rkey; 1 an invalid request; 2 the READ. */
static void remote_error(int invalid_request)
{
	struct ibv_cq *cq = ibv_create_cq(d.ctx, 16, NULL, NULL, 0);
	struct ibv_send_wr wr, *bad;
	struct ibv_qp *a, *b;
	struct ibv_sge sge;
	struct ibv_mr *gone;
	int ret;

	if (!ok(cq && !ev_pair(&d, &a, &b, cq, cq, cq, cq, NULL, 8),
		"a CQ and two RC QPs connected to each other"))
		ev_bail("cannot continue");
	if (!invalid_request) {
		gone = ibv_reg_mr(d.pd, d.buf + 65536, 4096,
				  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
		if (!ok(gone != NULL, "register, then deregister, a writable MR"))
			ev_bail("cannot make a stale rkey");
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 1;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.rkey = gone->rkey;
		wr.wr.rdma.remote_addr = (uintptr_t)d.buf + 65536;
		ibv_dereg_mr(gone);
		sge.addr = (uintptr_t)d.buf;
		sge.length = EV_MSG_SIZE;
		sge.lkey = d.mr->lkey;
		ret = ibv_post_send(a, &wr, &bad);
		if (ret)
			diag("ibv_post_send: %s", strerror(ret));
		ok(!ret && send_status(cq, IBV_WC_REM_ACCESS_ERR),
		   "RDMA WRITE with a stale rkey: requester completes with IBV_WC_REM_ACCESS_ERR");
		expect_async(IBV_EVENT_QP_ACCESS_ERR, b, 0, "responder QP");
	} else {
		ret = post_invalid_request(&a, &b, cq, invalid_request == 2);
		if (ret)
			diag("ibv_post_send: %s", ret > 0 ? strerror(ret) : "no QPs");
		ok(!ret && send_status(cq, IBV_WC_REM_INV_REQ_ERR),
		   "invalid request: requester completes with IBV_WC_REM_INV_REQ_ERR");
		expect_async(IBV_EVENT_QP_REQ_ERR, b, 0, "responder QP");
	}
	ok(qp_state_is(b, IBV_QPS_ERR), "the responder QP is in ERR");
	ok(!ibv_destroy_qp(a) && !ibv_destroy_qp(b) && !ibv_destroy_cq(cq),
	   "destroy the QPs and the CQ");
}

static void cq_err(void)
{
	struct ibv_cq *small = ibv_create_cq(d.ctx, 1, NULL, NULL, 0);
	struct ibv_cq *aux = ibv_create_cq(d.ctx, 256, NULL, NULL, 0);
	struct ibv_qp *a, *b;
	int i, n, good = 1;

	if (!ok(small && aux, "a small CQ (%d entries) and an auxiliary CQ",
		small ? small->cqe : -1))
		ev_bail("cannot continue");
	n = small->cqe + 1;
	if (n > 1000)
		ev_bail("the small CQ is not small");
	/* a's send completions go to the small CQ. */
	if (!ok(!ev_pair(&d, &a, &b, small, aux, aux, aux, NULL, n + 1),
		"two RC QPs; the sender's send CQ is the small one"))
		ev_bail("cannot continue");
	for (i = 0; i < n; i++)
		if (ev_post_recv(&d, b, 4096 + i * EV_MSG_SIZE, i))
			good = 0;
	for (i = 0; i < n && good; i++)
		if (ev_post_send(&d, a, 0, i, 0))
			good = 0;
	ok(good, "%d signalled SENDs into a CQ of %d entries, not polled", n, n - 1);
	expect_async(IBV_EVENT_CQ_ERR, small, 0, "CQ overrun");
	ok(!ibv_destroy_qp(a) && !ibv_destroy_qp(b) && !ibv_destroy_cq(small) &&
	   !ibv_destroy_cq(aux), "destroy the QPs and the CQs");
}

static void srq_limit(void)
{
	struct ibv_srq_init_attr sia = {
		.attr = { .max_wr = 16, .max_sge = 1, .srq_limit = 1000 },
	};
	struct ibv_cq *cq = ibv_create_cq(d.ctx, 64, NULL, NULL, 0);
	struct ibv_srq_attr sa = { .srq_limit = 99 };
	struct ibv_srq *srq = ibv_create_srq(d.pd, &sia);
	struct ibv_wc wc[16];
	struct ibv_qp *a, *b;
	int i, good = 1;

	if (!ok(cq && srq,
		"a CQ and an SRQ of 16, created with srq_limit 1000 (ignored at creation)"))
		ev_bail("cannot continue");
	ok(!ibv_query_srq(srq, &sa) && sa.srq_limit == 0,
	   "ibv_query_srq after creation: srq_limit = 0, not armed (%u)",
	   sa.srq_limit);
	sa.srq_limit = 4;
	if (!ok(!ev_pair(&d, &a, &b, cq, cq, cq, cq, srq, 8),
		"two RC QPs, the receiver on the SRQ"))
		ev_bail("cannot continue");
	for (i = 0; i < 8; i++)
		if (ev_post_srq_recv(&d, srq, 4096 + i * EV_MSG_SIZE, 100 + i))
			good = 0;
	ok(good, "8 receives posted to the SRQ");
	ok(!ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), "ibv_modify_srq(srq_limit = 4)");
	sa.srq_limit = 99;
	ok(!ibv_query_srq(srq, &sa) && sa.srq_limit == 4,
	   "ibv_query_srq: srq_limit = 4 (%u)", sa.srq_limit);

	for (i = 0; i < 4; i++)
		if (ev_post_send(&d, a, 0, i, 0))
			good = 0;
	ok(good && ev_poll_n(cq, 8, wc, ev_wait_ms) == 8,
	   "4 messages consume 4 receives (4 left, not below the limit)");
	no_async(ev_quiet_ms, "no SRQ_LIMIT_REACHED yet");
	ok(!ev_post_send(&d, a, 0, 4, 0) && ev_poll_n(cq, 2, wc, ev_wait_ms) == 2,
	   "a fifth consumes one more (3 left, below 4)");
	expect_async(IBV_EVENT_SRQ_LIMIT_REACHED, srq, 0, "the SRQ");
	sa.srq_limit = 99;
	ok(!ibv_query_srq(srq, &sa) && sa.srq_limit == 0,
	   "ibv_query_srq: srq_limit = 0 now, the limit is no longer armed (%u)",
	   sa.srq_limit);
	ok(!ev_post_send(&d, a, 0, 5, 0) && ev_poll_n(cq, 2, wc, ev_wait_ms) == 2,
	   "a sixth message (2 left)");
	no_async(ev_quiet_ms, "no second SRQ_LIMIT_REACHED (one shot)");
	ok(!ibv_destroy_qp(a) && !ibv_destroy_qp(b) && !ibv_destroy_srq(srq) &&
	   !ibv_destroy_cq(cq), "destroy the QPs, the SRQ and the CQ");
}

static void last_wqe(void)
{
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_cq *cq = ibv_create_cq(d.ctx, 64, NULL, NULL, 0);
	struct ibv_srq *srq = ibv_create_srq(d.pd, &sia);
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp *a, *b;
	struct ibv_wc wc[2];

	if (!ok(cq && srq && !ev_pair(&d, &a, &b, cq, cq, cq, cq, srq, 8),
		"a CQ, an SRQ, two RC QPs with the receiver on the SRQ"))
		ev_bail("cannot continue");
	ok(!ev_post_srq_recv(&d, srq, 4096, 1) && !ev_post_srq_recv(&d, srq, 8192, 2) &&
	   !ev_post_send(&d, a, 0, 3, 0) && ev_poll_n(cq, 2, wc, ev_wait_ms) == 2,
	   "one message through the SRQ");
	ok(!ibv_modify_qp(b, &qa, IBV_QP_STATE), "move the receiving QP to ERR");
	expect_async(IBV_EVENT_QP_LAST_WQE_REACHED, b, 0, "the QP on the SRQ");
	ok(!ibv_destroy_qp(a) && !ibv_destroy_qp(b) && !ibv_destroy_srq(srq) &&
	   !ibv_destroy_cq(cq), "destroy the QPs, the SRQ and the CQ");
}

static void port(void)
{
	diag("ready");
	expect_async(IBV_EVENT_PORT_ERR, NULL, d.port, "netdev down");
	expect_async(IBV_EVENT_PORT_ACTIVE, NULL, d.port, "netdev up");
}

static int gid_present(const union ibv_gid *g)
{
	union ibv_gid x;
	int i;

	for (i = 0; i < d.pattr.gid_tbl_len; i++)
		if (!ibv_query_gid(d.ctx, d.port, i, &x) &&
		    !memcmp(&x, g, sizeof(x)))
			return 1;
	return 0;
}

/* Wait until the GID is (or is not) in the table, up to WAIT_MS. */
static int gid_becomes(const union ibv_gid *g, int present)
{
	long long end = ev_now_us() + ev_wait_ms * 1000LL;

	while (gid_present(g) != present) {
		if (ev_now_us() > end)
			return 0;
		usleep(10000);
	}
	return 1;
}

/* Take further GID_CHANGE events of the same change (one per GID type). */
static void drain_gid_changes(void)
{
	struct ibv_async_event ev;

	while (ev_readable(d.ctx->async_fd, ev_quiet_ms) == 1 &&
	       !ibv_get_async_event(d.ctx, &ev)) {
		diag("then %s", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
}

static void gid(const char *addr)
{
	union ibv_gid g;

	memset(&g, 0, sizeof(g));
	g.raw[10] = 0xff;
	g.raw[11] = 0xff;
	if (inet_pton(AF_INET, addr, &g.raw[12]) != 1)
		ev_bail("-m gid:ADDR needs an IPv4 address");
	ok(!gid_present(&g), "::ffff:%s is not in the GID table yet", addr);
	diag("ready add");
	expect_async(IBV_EVENT_GID_CHANGE, NULL, d.port, "address added");
	ok(gid_becomes(&g, 1), "::ffff:%s is in the GID table", addr);
	drain_gid_changes();
	diag("ready del");
	expect_async(IBV_EVENT_GID_CHANGE, NULL, d.port, "address deleted");
	ok(gid_becomes(&g, 0), "::ffff:%s is gone from the GID table", addr);
	drain_gid_changes();
}

int main(int argc, char **argv)
{
	ev_parse(argc, argv);
	if (!ev_mode)
		ev_usage(argv[0]);
	ev_open(&d);
	if (!strcmp(ev_mode, "qp-access"))
		remote_error(0);
	else if (!strcmp(ev_mode, "qp-req"))
		remote_error(1);
	else if (!strcmp(ev_mode, "qp-req-rd0"))
		remote_error(2);
	else if (!strcmp(ev_mode, "cq-err"))
		cq_err();
	else if (!strcmp(ev_mode, "srq-limit"))
		srq_limit();
	else if (!strcmp(ev_mode, "last-wqe"))
		last_wqe();
	else if (!strcmp(ev_mode, "port"))
		port();
	else if (!strncmp(ev_mode, "gid:", 4))
		gid(ev_mode + 4);
	else
		ev_usage(argv[0]);
	ev_close(&d);
	return tap_end();
}
