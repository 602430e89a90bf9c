// SPDX-License-Identifier: GPL-2.0-only
/*
 * Completion timestamps: ibv_query_device_ex's completion_timestamp_mask
 * and hca_core_clock, ibv_query_rt_values_ex's raw clock, and CQs from
 * ibv_create_cq_ex with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP and
 * _TIMESTAMP_WALLCLOCK (64-byte CQEs on Orca): the timestamps of send,
 * receive, RDMA WRITE and READ completions, and of flush completions,
 * lie between clock reads taken before posting and after polling, and
 * never go backwards within one CQ; the wallclock conversion lies
 * between the matching CLOCK_REALTIME reads.  The same CQs polled with
 * the old ibv_poll_cq across ring wraps, resized while holding
 * completions, and beside a CQ without timestamps on the same device.
 *
 * Unlike the other dp_* programs this one checks Orca's documented
 * device clock (Documentation/orca-hw-interface.rst, "Completion
 * timestamps"): it counts nanoseconds (hca_core_clock 1000000 kHz) and on
 * this device it is the host's CLOCK_MONOTONIC_RAW.  Only causal bounds
 * are checked (a completion cannot be stamped before its WR was posted
 * nor after it was polled), never a duration.
 * Prints TAP.  Usage: dp_ts DEVICE
 */
#include "dp_common.h"

#define BUFSZ		(64 * 1024)
#define NSEC		1000000000ULL
#define CLOCK_KHZ	1000000ULL	/* the device clock counts nanoseconds */
#define TS_WC_FLAGS	(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP | \
			 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)

/*
 * Slack on the wallclock bounds.  The provider turns the raw clock into
 * wall time with an offset (CLOCK_REALTIME - CLOCK_MONOTONIC_RAW) sampled
 * at ibv_start_poll, and the test's bounds are CLOCK_REALTIME reads taken
 * at other moments.  The two clocks tick at slightly different rates (NTP
 * slews CLOCK_REALTIME by up to 500 ppm), so the offset drifts between
 * the samples: the slack absorbs that drift only.  It is not a bound on
 * how long anything in the test takes.
 */
#define WALL_SLACK_NS	(10ULL * 1000000)

static struct dp_buf abuf, bbuf;
static uint64_t dev_khz = CLOCK_KHZ;	/* hca_core_clock, once queried */

static uint64_t clk_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * NSEC + (uint64_t)t.tv_nsec;
}

/* A device clock value in nanoseconds. */
static uint64_t ts_ns(uint64_t ts)
{
	if (dev_khz == CLOCK_KHZ || !dev_khz)
		return ts;
	return (uint64_t)((unsigned __int128)ts * CLOCK_KHZ / dev_khz);
}

/* ---- QPs on CQs with or without timestamps -------------------------------- */

struct tend {
	struct dp_end e;		/* qp, and the ibv_cq views of the CQs */
	struct ibv_cq_ex *scx, *rcx;	/* NULL for CQs from ibv_create_cq */
};

struct tpair {
	struct dp_qp_cfg cfg;
	struct tend a, b;
};

static struct ibv_cq_ex *make_ts_cq(int cqe)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = cqe,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM |
			    TS_WC_FLAGS,
	};
	struct ibv_cq_ex *cq = ibv_create_cq_ex(dp.ctx, &ca);

	if (!cq)
		diag("ibv_create_cq_ex(cqe %d, wc_flags 0x%llx): %s", cqe,
		     (unsigned long long)ca.wc_flags, strerror(errno));
	return cq;
}

static struct ibv_cq *make_plain_cq(int cqe)
{
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, cqe, NULL, NULL, 0);

	if (!cq)
		diag("ibv_create_cq(cqe %d): %s", cqe, strerror(errno));
	return cq;
}

static int tend_create(struct tend *x, const struct dp_qp_cfg *c, int ts)
{
	struct ibv_qp_init_attr init = {
		.qp_type = c->type,
		.sq_sig_all = 0,
		.cap = { .max_send_wr = c->max_send_wr,
			 .max_recv_wr = c->max_recv_wr,
			 .max_send_sge = c->max_send_sge,
			 .max_recv_sge = c->max_recv_sge,
			 .max_inline_data = c->max_inline },
	};

	memset(x, 0, sizeof(*x));
	if (ts) {
		x->scx = make_ts_cq(c->cqe);
		x->rcx = make_ts_cq(c->cqe);
		if (!x->scx || !x->rcx)
			return -1;
		x->e.scq = ibv_cq_ex_to_cq(x->scx);
		x->e.rcq = ibv_cq_ex_to_cq(x->rcx);
	} else {
		x->e.scq = make_plain_cq(c->cqe);
		x->e.rcq = make_plain_cq(c->cqe);
		if (!x->e.scq || !x->e.rcq)
			return -1;
	}
	init.send_cq = x->e.scq;
	init.recv_cq = x->e.rcq;
	x->e.qp = ibv_create_qp(dp.pd, &init);
	if (!x->e.qp) {
		diag("ibv_create_qp(%s): %s", dp_type_str(c->type), strerror(errno));
		return -1;
	}
	x->e.cap = init.cap;
	return 0;
}

/* Destroy the QP, then its CQs; 1 if every call returned 0. */
static int tend_destroy(struct tend *x, const char *what)
{
	int ret, good = 1;

	if (x->e.qp && (ret = ibv_destroy_qp(x->e.qp))) {
		diag("%s: ibv_destroy_qp: %s", what, strerror(ret));
		good = 0;
	}
	if (x->e.scq && (ret = ibv_destroy_cq(x->e.scq))) {
		diag("%s: ibv_destroy_cq (send CQ): %s", what, strerror(ret));
		good = 0;
	}
	if (x->e.rcq && (ret = ibv_destroy_cq(x->e.rcq))) {
		diag("%s: ibv_destroy_cq (receive CQ): %s", what, strerror(ret));
		good = 0;
	}
	memset(x, 0, sizeof(*x));
	return good;
}

/*
 * An RC pair a -> b, each end with its own send and receive CQ of @cqe
 * entries, with timestamps (@ts) or from plain ibv_create_cq; one point.
 */
static int tpair_make(struct tpair *p, int ts, int cqe, const char *name)
{
	memset(p, 0, sizeof(*p));
	dp_cfg_default(&p->cfg, IBV_QPT_RC);
	p->cfg.cqe = cqe;
	if (tend_create(&p->a, &p->cfg, ts) || tend_create(&p->b, &p->cfg, ts))
		goto fail;
	if (dp_end_connect(&p->a.e, &p->cfg, p->b.e.qp->qp_num, IBV_QPS_RTS) ||
	    dp_end_connect(&p->b.e, &p->cfg, p->a.e.qp->qp_num, IBV_QPS_RTS))
		goto fail;
	if (ts)
		return ok(1, "%s: RC pair, send and receive CQs from ibv_create_cq_ex "
			  "(cqe %d) with wc_flags COMPLETION_TIMESTAMP | "
			  "COMPLETION_TIMESTAMP_WALLCLOCK | BYTE_LEN | QP_NUM, RTS",
			  name, p->a.e.scq->cqe);
	return ok(1, "%s: RC pair, CQs from ibv_create_cq without timestamps "
		  "(cqe %d), RTS", name, p->a.e.scq->cqe);
fail:
	tend_destroy(&p->a, name);
	tend_destroy(&p->b, name);
	return ok(0, "%s: RC pair with %s CQs", name,
		  ts ? "timestamp (ibv_create_cq_ex)" : "plain");
}

static void tpair_destroy(struct tpair *p, const char *name)
{
	int good = tend_destroy(&p->a, name);

	good &= tend_destroy(&p->b, name);
	ok(good, "%s: QPs and CQs destroyed, every destroy call returned 0", name);
}

/* ---- posting ----------------------------------------------------------- */

static int post_recv_at(struct ibv_qp *qp, uint64_t wr_id, size_t off, uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)bbuf.p + off, len, bbuf.mr->lkey };

	return dp_post_recv(qp, wr_id, &s, 1);
}

/*
 * One signalled WR from a's buffer at @off: a SEND of @len bytes, or an
 * RDMA WRITE / READ of @len bytes to / from b's buffer at @roff.
 */
static int post_wr(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
		   size_t off, uint32_t len, size_t roff)
{
	struct ibv_sge s = { (uintptr_t)abuf.p + off, len, abuf.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &s, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};

	if (op != IBV_WR_SEND) {
		wr.wr.rdma.remote_addr = (uintptr_t)bbuf.p + roff;
		wr.wr.rdma.rkey = bbuf.mr->rkey;
	}
	return dp_post_send(qp, &wr);
}

/* ---- polling with the timestamps ------------------------------------------ */

struct tswc {
	struct ibv_wc wc;	/* wr_id, status, qp_num; opcode, byte_len if success */
	uint64_t ts;		/* ibv_wc_read_completion_ts */
	uint64_t wall;		/* ibv_wc_read_completion_wallclock_ns */
};

static void tswc_read(struct ibv_cq_ex *cq, struct tswc *w)
{
	memset(w, 0, sizeof(*w));
	w->wc.wr_id = cq->wr_id;
	w->wc.status = cq->status;
	w->wc.qp_num = ibv_wc_read_qp_num(cq);
	if (w->wc.status == IBV_WC_SUCCESS) {
		w->wc.opcode = ibv_wc_read_opcode(cq);
		w->wc.byte_len = ibv_wc_read_byte_len(cq);
	}
	w->ts = ibv_wc_read_completion_ts(cq);
	w->wall = ibv_wc_read_completion_wallclock_ns(cq);
}

/*
 * Poll @n completions of a timestamp CQ with start/next/end_poll, in
 * order, or give up after the completion timeout.  Returns how many.
 */
static int tpoll(struct ibv_cq_ex *cq, struct tswc *out, int n, const char *what)
{
	struct ibv_poll_cq_attr pa = {};
	long deadline = dp_now_ms() + dp_timeout_ms();
	unsigned int spins = 0;
	int got = 0, ret;

	while (got < n) {
		ret = ibv_start_poll(cq, &pa);
		if (ret == ENOENT) {
			if ((++spins & 0xff) == 0) {
				if (dp_now_ms() > deadline) {
					diag("%s: %d of %d completion(s) after %ld ms",
					     what, got, n, dp_timeout_ms());
					dp_timed_out();
					return got;
				}
				if (spins > 100000)
					usleep(100);
			}
			continue;
		}
		if (ret) {
			diag("%s: ibv_start_poll: %s", what, strerror(ret));
			dp_timed_out();
			return got;
		}
		do {
			tswc_read(cq, &out[got++]);
		} while (got < n && ibv_next_poll(cq) == 0);
		ibv_end_poll(cq);
	}
	return got;
}

static int tempty(struct ibv_cq_ex *cq, const char *what)
{
	struct ibv_poll_cq_attr pa = {};
	int ret = ibv_start_poll(cq, &pa);

	if (ret == ENOENT)
		return 1;
	if (!ret) {
		diag("%s: unexpected completion wr_id 0x%llx status %s", what,
		     (unsigned long long)cq->wr_id, ibv_wc_status_str(cq->status));
		ibv_end_poll(cq);
	} else {
		diag("%s: ibv_start_poll: %s", what, strerror(ret));
	}
	return 0;
}

static void tswc_diag(const char *what, int i, const struct tswc *w)
{
	diag("%s[%d]: wr_id 0x%llx status %s opcode %s byte_len %u qp_num 0x%x "
	     "ts %llu wall %llu", what, i, (unsigned long long)w->wc.wr_id,
	     ibv_wc_status_str(w->wc.status), dp_wc_opcode_str(w->wc.opcode),
	     w->wc.byte_len, w->wc.qp_num, (unsigned long long)w->ts,
	     (unsigned long long)w->wall);
}

/* Every timestamp of @w[0..n) in [lo, hi] ns (CLOCK_MONOTONIC_RAW). */
static int ts_within(const struct tswc *w, int n, uint64_t lo, uint64_t hi,
		     const char *what)
{
	int i, good = 1;

	for (i = 0; i < n; i++) {
		uint64_t ns = ts_ns(w[i].ts);

		if (ns >= lo && ns <= hi)
			continue;
		diag("%s[%d] (wr_id 0x%llx): timestamp %llu ns not in [%llu, %llu] "
		     "(%+lld ns from the low bound)", what, i,
		     (unsigned long long)w[i].wc.wr_id, (unsigned long long)ns,
		     (unsigned long long)lo, (unsigned long long)hi,
		     (long long)(ns - lo));
		good = 0;
	}
	return good;
}

/* The timestamps of @w[0..n), in the CQ's order, never go backwards. */
static int ts_ordered(const struct tswc *w, int n, const char *what)
{
	int i, good = 1;

	for (i = 1; i < n; i++) {
		if (w[i].ts >= w[i - 1].ts)
			continue;
		diag("%s: completion %d (wr_id 0x%llx) stamped %llu, before "
		     "completion %d (wr_id 0x%llx) at %llu", what, i,
		     (unsigned long long)w[i].wc.wr_id, (unsigned long long)w[i].ts,
		     i - 1, (unsigned long long)w[i - 1].wc.wr_id,
		     (unsigned long long)w[i - 1].ts);
		good = 0;
	}
	return good;
}

/* Every wallclock of @w[0..n) in [real0 - slack, real1 + slack]. */
static int wall_within(const struct tswc *w, int n, uint64_t real0,
		       uint64_t real1, const char *what)
{
	uint64_t lo = real0 - WALL_SLACK_NS, hi = real1 + WALL_SLACK_NS;
	int i, good = 1;

	for (i = 0; i < n; i++) {
		if (w[i].wall >= lo && w[i].wall <= hi)
			continue;
		diag("%s[%d] (wr_id 0x%llx): wallclock %llu ns not in [%llu, %llu] "
		     "(CLOCK_REALTIME reads %llu, %llu +- %llu ns)", what, i,
		     (unsigned long long)w[i].wc.wr_id, (unsigned long long)w[i].wall,
		     (unsigned long long)lo, (unsigned long long)hi,
		     (unsigned long long)real0, (unsigned long long)real1,
		     WALL_SLACK_NS);
		good = 0;
	}
	return good;
}

static int check_wcs(const struct tswc *w, const struct dp_wc_want *want, int n,
		     const char *what)
{
	int i, good = 1;

	for (i = 0; i < n; i++)
		if (!dp_wc_check(&w[i].wc, &want[i], what))
			good = 0;
	return good;
}

/* ---- the device and its clock -------------------------------------------- */

static void test_device(void)
{
	struct ibv_device_attr_ex ax;
	struct ibv_values_ex v;
	uint64_t lo, hi, raw;
	int ret;

	memset(&ax, 0, sizeof(ax));
	ret = ibv_query_device_ex(dp.ctx, NULL, &ax);
	if (ret)
		diag("ibv_query_device_ex: %s", strerror(ret));
	ok(!ret && ax.completion_timestamp_mask == UINT64_MAX,
	   "ibv_query_device_ex: completion_timestamp_mask 0x%llx (all 64 bits)",
	   (unsigned long long)ax.completion_timestamp_mask);
	ok(!ret && ax.hca_core_clock == CLOCK_KHZ,
	   "ibv_query_device_ex: hca_core_clock %llu kHz (1000000: the clock counts "
	   "nanoseconds)", (unsigned long long)ax.hca_core_clock);
	if (!ret && ax.hca_core_clock)
		dev_khz = ax.hca_core_clock;

	memset(&v, 0, sizeof(v));
	v.comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	lo = clk_ns(CLOCK_MONOTONIC_RAW);
	ret = ibv_query_rt_values_ex(dp.ctx, &v);
	hi = clk_ns(CLOCK_MONOTONIC_RAW);
	ok(!ret && (v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK),
	   "ibv_query_rt_values_ex(RAW_CLOCK): returns %d (%s), comp_mask 0x%x has "
	   "RAW_CLOCK", ret, ret ? strerror(ret) : "success", v.comp_mask);
	/* Whole nanoseconds in tv_sec and tv_nsec: either way of splitting them. */
	raw = (uint64_t)v.raw_clock.tv_sec * NSEC + (uint64_t)v.raw_clock.tv_nsec;
	ok(!ret && raw >= lo && raw <= hi,
	   "ibv_query_rt_values_ex: raw_clock %llu ns lies between the "
	   "CLOCK_MONOTONIC_RAW reads before and after (%llu, %llu)",
	   (unsigned long long)raw, (unsigned long long)lo, (unsigned long long)hi);
}

/* ---- traffic on timestamp CQs ----------------------------------------------- */

#define NSEND 8
#define RW_OFF (48 * 1024)	/* WRITE target and READ source in bbuf */
#define RW_LEN 512

static uint32_t send_len(int i)
{
	return 1 + 397 * (uint32_t)i;
}

/*
 * 8 SENDs, an RDMA WRITE and an RDMA READ from a, between clock reads:
 * their completions, and the timestamps' bounds, order and wallclock.
 */
static void test_traffic(struct tpair *p)
{
	struct tswc sw[NSEND + 2], rw[NSEND];
	struct dp_wc_want ws[NSEND + 2], wr[NSEND];
	uint64_t raw0, raw1, real0, real1;
	int i, ns, nr, good = 1;

	dp_fill(abuf.p, BUFSZ, 0x75);
	memset(bbuf.p, DP_POISON, BUFSZ);
	/* CLOCK_REALTIME outermost: see wall_within(). */
	real0 = clk_ns(CLOCK_REALTIME);
	raw0 = clk_ns(CLOCK_MONOTONIC_RAW);
	for (i = 0; i < NSEND; i++)
		if (post_recv_at(p->b.e.qp, 0x200 + i, 4096 * i, 4096))
			good = 0;
	for (i = 0; i < NSEND; i++)
		if (post_wr(p->a.e.qp, 0x100 + i, IBV_WR_SEND, 4096 * i, send_len(i), 0))
			good = 0;
	if (post_wr(p->a.e.qp, 0x100 + NSEND, IBV_WR_RDMA_WRITE, RW_OFF, RW_LEN, RW_OFF) ||
	    post_wr(p->a.e.qp, 0x101 + NSEND, IBV_WR_RDMA_READ, RW_OFF + RW_LEN, RW_LEN,
		    RW_OFF + 4096))
		good = 0;
	ns = tpoll(p->a.scx, sw, NSEND + 2, "traffic: a's send CQ");
	nr = tpoll(p->b.rcx, rw, NSEND, "traffic: b's receive CQ");
	raw1 = clk_ns(CLOCK_MONOTONIC_RAW);
	real1 = clk_ns(CLOCK_REALTIME);

	for (i = 0; i < NSEND + 2; i++)
		ws[i] = (struct dp_wc_want){ 0x100 + i, IBV_WC_SUCCESS,
					     i < NSEND ? IBV_WC_SEND :
					     i == NSEND ? IBV_WC_RDMA_WRITE :
					     IBV_WC_RDMA_READ,
					     i == NSEND + 1 ? RW_LEN : -1,
					     p->a.e.qp->qp_num, -1, -1, -1 };
	for (i = 0; i < NSEND; i++)
		wr[i] = (struct dp_wc_want){ 0x200 + i, IBV_WC_SUCCESS, IBV_WC_RECV,
					     send_len(i), p->b.e.qp->qp_num,
					     -1, -1, -1 };
	good = good && ns == NSEND + 2 && nr == NSEND;
	good = good && check_wcs(sw, ws, ns, "traffic send") &&
	       check_wcs(rw, wr, nr, "traffic receive");
	good = tempty(p->a.scx, "a's send CQ") && good;
	good = tempty(p->b.rcx, "b's receive CQ") && good;
	good = tempty(p->a.rcx, "a's receive CQ") && good;
	good = tempty(p->b.scx, "b's send CQ") && good;
	ok(good, "timestamp CQs: %d SENDs, an RDMA WRITE and an RDMA READ: %d send and "
	   "%d receive completions, in order, right; nothing else", NSEND, ns, nr);
	if (!good) {
		for (i = 0; i < ns; i++)
			tswc_diag("send", i, &sw[i]);
		for (i = 0; i < nr; i++)
			tswc_diag("recv", i, &rw[i]);
	}
	if (ns && nr)
		diag("timestamps: send CQ %llu .. %llu, receive CQ %llu .. %llu; "
		     "CLOCK_MONOTONIC_RAW %llu .. %llu",
		     (unsigned long long)sw[0].ts, (unsigned long long)sw[ns - 1].ts,
		     (unsigned long long)rw[0].ts, (unsigned long long)rw[nr - 1].ts,
		     (unsigned long long)raw0, (unsigned long long)raw1);

	ok(ns == NSEND + 2 && nr == NSEND &&
	   ts_within(sw, ns, raw0, raw1, "send") & ts_within(rw, nr, raw0, raw1, "recv"),
	   "every completion's ibv_wc_read_completion_ts lies between "
	   "CLOCK_MONOTONIC_RAW before posting and after polling");
	ok(ns == NSEND + 2 && nr == NSEND &&
	   ts_ordered(sw, ns, "send CQ") & ts_ordered(rw, nr, "receive CQ"),
	   "timestamps never decrease in each CQ's completion order");
	ok(ns == NSEND + 2 && nr == NSEND &&
	   wall_within(sw, ns, real0, real1, "send") &
	   wall_within(rw, nr, real0, real1, "recv"),
	   "every completion's ibv_wc_read_completion_wallclock_ns lies between "
	   "CLOCK_REALTIME before posting and after polling (+- %llu ms for the "
	   "two clocks' rates)", WALL_SLACK_NS / 1000000);
}

/*
 * A pair on CQs without timestamps (32-byte entries) beside the pair on
 * timestamp CQs (64-byte entries): SENDs on both, interleaved.
 */
static void test_coexist(struct tpair *t)
{
	struct tswc sw[3], rw[3];
	struct ibv_wc pw[3], prw[3];
	struct tpair p;
	int i, good = 1;

	if (!tpair_make(&p, 0, 32, "no timestamps"))
		return;
	for (i = 0; i < 3; i++) {
		good = good && !post_recv_at(p.b.e.qp, 0x600 + i, 4096 * i, 4096) &&
		       !post_recv_at(t->b.e.qp, 0x700 + i, 4096 * (i + 4), 4096);
		good = good && !post_wr(p.a.e.qp, 0x610 + i, IBV_WR_SEND, 0, 10 + i, 0) &&
		       !post_wr(t->a.e.qp, 0x710 + i, IBV_WR_SEND, 0, 20 + i, 0);
	}
	good = good && dp_poll(p.a.e.scq, pw, 3, "plain send CQ") == 3 &&
	       dp_poll(p.b.e.rcq, prw, 3, "plain receive CQ") == 3 &&
	       tpoll(t->a.scx, sw, 3, "timestamp send CQ") == 3 &&
	       tpoll(t->b.rcx, rw, 3, "timestamp receive CQ") == 3;
	for (i = 0; good && i < 3; i++) {
		struct dp_wc_want w;

		w = (struct dp_wc_want){ 0x610 + i, IBV_WC_SUCCESS, IBV_WC_SEND, -1,
					 p.a.e.qp->qp_num, -1, -1, -1 };
		good = dp_wc_check(&pw[i], &w, "plain send");
		w = (struct dp_wc_want){ 0x600 + i, IBV_WC_SUCCESS, IBV_WC_RECV, 10 + i,
					 p.b.e.qp->qp_num, -1, -1, -1 };
		good = dp_wc_check(&prw[i], &w, "plain receive") && good;
		w = (struct dp_wc_want){ 0x710 + i, IBV_WC_SUCCESS, IBV_WC_SEND, -1,
					 t->a.e.qp->qp_num, -1, -1, -1 };
		good = dp_wc_check(&sw[i].wc, &w, "timestamp send") && good;
		w = (struct dp_wc_want){ 0x700 + i, IBV_WC_SUCCESS, IBV_WC_RECV, 20 + i,
					 t->b.e.qp->qp_num, -1, -1, -1 };
		good = dp_wc_check(&rw[i].wc, &w, "timestamp receive") && good;
	}
	good = good && dp_cq_empty(p.a.e.scq, "plain send CQ") &&
	       dp_cq_empty(p.b.e.rcq, "plain receive CQ") &&
	       tempty(t->a.scx, "timestamp send CQ") &&
	       tempty(t->b.rcx, "timestamp receive CQ");
	ok(good, "a CQ without timestamps works beside timestamp CQs on the same "
	   "device: 3 SENDs on each pair, interleaved, all completions right");
	tpair_destroy(&p, "no timestamps");
}

/* ---- flush completions ------------------------------------------------------ */

static void test_flush(void)
{
	struct tswc sw, rw;
	struct tpair p;
	uint64_t raw0, raw1;
	int good = 1, got;

	if (!tpair_make(&p, 1, 64, "flush"))
		return;
	good = !dp_set_state(p.a.e.qp, IBV_QPS_ERR);
	raw0 = clk_ns(CLOCK_MONOTONIC_RAW);
	good = good && !post_recv_at(p.a.e.qp, 0x31, 0, 64) &&
	       !post_wr(p.a.e.qp, 0x30, IBV_WR_SEND, 0, 64, 0);
	got = good && tpoll(p.a.scx, &sw, 1, "flushed send") == 1 &&
	      tpoll(p.a.rcx, &rw, 1, "flushed receive") == 1;
	raw1 = clk_ns(CLOCK_MONOTONIC_RAW);
	ok(got && sw.wc.wr_id == 0x30 && sw.wc.status == IBV_WC_WR_FLUSH_ERR &&
	   rw.wc.wr_id == 0x31 && rw.wc.status == IBV_WC_WR_FLUSH_ERR,
	   "a QP moved to ERR: a SEND and a receive posted to it complete with "
	   "WR_FLUSH_ERR (%s, %s)",
	   got ? ibv_wc_status_str(sw.wc.status) : "-",
	   got ? ibv_wc_status_str(rw.wc.status) : "-");
	ok(got && ts_within(&sw, 1, raw0, raw1, "flushed send") &
	   ts_within(&rw, 1, raw0, raw1, "flushed receive"),
	   "the flush completions carry timestamps between CLOCK_MONOTONIC_RAW "
	   "before posting and after polling");
	ok(tempty(p.a.scx, "send CQ") & tempty(p.a.rcx, "receive CQ") &
	   tempty(p.b.rcx, "b's receive CQ"),
	   "no other completion (the peer is untouched)");
	tpair_destroy(&p, "flush");
	dp_ev_forget();
}

/* ---- the old ibv_poll_cq on 64-byte entries, across ring wraps -------------- */

#define SMALL_CQE	16
#define ROUNDS		6
#define RSEND		6	/* SENDs per round, then a WRITE and a READ */

static uint32_t round_len(int r, int i)
{
	return 1 + (131 * (uint32_t)r + 577 * (uint32_t)i) % 3000;
}

static void test_old_api(struct tpair *p)
{
	struct ibv_cq *scq = p->a.e.scq, *rcq = p->b.e.rcq;
	struct ibv_wc wc[RSEND + 2];
	int r, i, sgood = 1, rgood = 1, nsent = 0, nrecv = 0;

	for (r = 0; r < ROUNDS && sgood && rgood; r++) {
		struct dp_wc_want w;
		uint64_t base = 0x1000 * (r + 1);
		uint32_t rlen = 8 + 24 * r;
		int good = 1;

		for (i = 0; i < RSEND; i++)
			good = good && !post_recv_at(p->b.e.qp, base + 0x80 + i,
						     4096 * i, 4096);
		for (i = 0; i < RSEND; i++)
			good = good && !post_wr(p->a.e.qp, base + i, IBV_WR_SEND,
						 4096 * i, round_len(r, i), 0);
		good = good && !post_wr(p->a.e.qp, base + RSEND, IBV_WR_RDMA_WRITE,
					RW_OFF, 64, RW_OFF) &&
		       !post_wr(p->a.e.qp, base + RSEND + 1, IBV_WR_RDMA_READ,
				RW_OFF + 4096, rlen, RW_OFF + 8192);
		if (!good) {
			sgood = rgood = 0;
			break;
		}
		/* ibv_poll_cq asks for all that are missing: several per call. */
		if (dp_poll(scq, wc, RSEND + 2, "old API send CQ") != RSEND + 2)
			sgood = 0;
		for (i = 0; sgood && i < RSEND + 2; i++, nsent++) {
			w = (struct dp_wc_want){ base + i, IBV_WC_SUCCESS,
						 i < RSEND ? IBV_WC_SEND :
						 i == RSEND ? IBV_WC_RDMA_WRITE :
						 IBV_WC_RDMA_READ,
						 i == RSEND + 1 ? (long)rlen : -1,
						 p->a.e.qp->qp_num, -1, -1, -1 };
			if (!dp_wc_check(&wc[i], &w, "old API send")) {
				diag("round %d, send completion %d (%d through the ring)",
				     r, i, nsent);
				sgood = 0;
			}
		}
		if (dp_poll(rcq, wc, RSEND, "old API receive CQ") != RSEND)
			rgood = 0;
		for (i = 0; rgood && i < RSEND; i++, nrecv++) {
			w = (struct dp_wc_want){ base + 0x80 + i, IBV_WC_SUCCESS,
						 IBV_WC_RECV, round_len(r, i),
						 p->b.e.qp->qp_num, -1, -1, -1 };
			if (!dp_wc_check(&wc[i], &w, "old API receive")) {
				diag("round %d, receive completion %d (%d through the ring)",
				     r, i, nrecv);
				rgood = 0;
			}
		}
	}
	sgood = sgood && dp_cq_empty(scq, "old API send CQ");
	rgood = rgood && dp_cq_empty(rcq, "old API receive CQ");
	ok(sgood && nsent > 2 * scq->cqe,
	   "ibv_poll_cq on a timestamp CQ of %d entries: %d send completions "
	   "(SEND, RDMA_WRITE, RDMA_READ) in %d rounds, each with its wr_id, "
	   "opcode, status and READ byte_len, across ring wraps",
	   scq->cqe, nsent, ROUNDS);
	ok(rgood && nrecv > 2 * rcq->cqe,
	   "ibv_poll_cq on a timestamp CQ of %d entries: %d receive completions "
	   "in %d rounds, each with its wr_id, opcode, status and byte_len, across "
	   "ring wraps", rcq->cqe, nrecv, ROUNDS);
}

/* ---- resize with completions in the ring ---------------------------------- */

#define NRESIZE		4
#define RESIZE_CQE	64

static void test_resize(struct tpair *p)
{
	struct tswc rw[NRESIZE + 1], sw[NRESIZE];
	struct ibv_cq *rcq = p->b.e.rcq;
	uint64_t raw0, raw1;
	int i, ret, old = rcq->cqe, good = 1, nr;

	raw0 = clk_ns(CLOCK_MONOTONIC_RAW);
	for (i = 0; i < NRESIZE; i++)
		good = good && !post_recv_at(p->b.e.qp, 0x880 + i, 4096 * i, 4096) &&
		       !post_wr(p->a.e.qp, 0x800 + i, IBV_WR_SEND, 4096 * i, 100 + i, 0);
	/*
	 * Between two QPs of one function the device executes a send WQE
	 * to its end, the receiver's CQE included, before the next one
	 * ("Processing model" in the interface specification): once a's 4
	 * send completions are polled, b's 4 receive completions are in
	 * b's ring, unpolled, when it is resized.
	 */
	good = good && tpoll(p->a.scx, sw, NRESIZE, "resize: a's sends") == NRESIZE;
	ret = good ? ibv_resize_cq(rcq, RESIZE_CQE) : -1;
	ok(good && !ret && rcq->cqe >= RESIZE_CQE,
	   "ibv_resize_cq %d -> %d on a timestamp CQ holding %d unpolled "
	   "completions: returns %d, cqe %d", old, RESIZE_CQE, NRESIZE, ret,
	   rcq->cqe);
	nr = good && !ret ? tpoll(p->b.rcx, rw, NRESIZE, "resize: b's receives") : 0;
	raw1 = clk_ns(CLOCK_MONOTONIC_RAW);
	for (i = 0; i < nr; i++)
		if (rw[i].wc.wr_id != 0x880U + i || rw[i].wc.status != IBV_WC_SUCCESS ||
		    rw[i].wc.opcode != IBV_WC_RECV ||
		    rw[i].wc.byte_len != 100U + i) {
			tswc_diag("after resize", i, &rw[i]);
			good = 0;
		}
	ok(good && nr == NRESIZE && tempty(p->b.rcx, "resized receive CQ"),
	   "after the resize the %d receive completions come out in order with "
	   "their wr_ids and lengths, and nothing else (%d)", NRESIZE, nr);
	ok(nr == NRESIZE && ts_within(rw, nr, raw0, raw1, "after resize"),
	   "their timestamps lie between CLOCK_MONOTONIC_RAW before posting and "
	   "after polling");
	ok(nr == NRESIZE && ts_ordered(rw, nr, "after resize"),
	   "their timestamps never decrease");

	/* The resized ring takes new completions. */
	good = nr == NRESIZE &&
	       !post_recv_at(p->b.e.qp, 0x890, 0, 4096) &&
	       !post_wr(p->a.e.qp, 0x810, IBV_WR_SEND, 0, 33, 0) &&
	       tpoll(p->a.scx, sw, 1, "after resize: one more send") == 1 &&
	       tpoll(p->b.rcx, &rw[NRESIZE], 1, "after resize: one more receive") == 1;
	ok(good && sw[0].wc.wr_id == 0x810 && sw[0].wc.status == IBV_WC_SUCCESS &&
	   rw[NRESIZE].wc.wr_id == 0x890 && rw[NRESIZE].wc.byte_len == 33 &&
	   ts_ordered(rw, NRESIZE + 1, "after resize, one more"),
	   "the resized CQ takes a new completion, stamped no earlier than the "
	   "ones before it");
}

int main(int argc, char **argv)
{
	struct tpair t;

	dp_open(argc, argv);
	if (!ok(!dp_buf_alloc(&abuf, dp.pd, BUFSZ, DP_ACC_ALL) &&
		!dp_buf_alloc(&bbuf, dp.pd, BUFSZ, DP_ACC_ALL), "register two buffers"))
		return tap_end();
	test_device();
	if (tpair_make(&t, 1, 256, "traffic")) {
		test_traffic(&t);
		test_coexist(&t);
		tpair_destroy(&t, "traffic");
	}
	test_flush();
	if (tpair_make(&t, 1, SMALL_CQE, "small CQs")) {
		test_old_api(&t);
		test_resize(&t);
		tpair_destroy(&t, "small CQs");
	}
	dp_buf_free(&abuf);
	dp_buf_free(&bbuf);
	return dp_close();
}
