// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queues of the largest sizes the device advertises (interface 1.7,
 * paged rings: Documentation/orca-hw-interface.rst, "Ring page lists"
 * and "Queue memory").  Every limit is taken from ibv_query_device.
 *
 *   full    An RC pair whose SQs and RQs hold max_qp_wr WQEs of max_sge
 *           SGEs, on one CQ of max_cqe entries: the RQ filled (one more
 *           receive is refused with ENOMEM), then max_qp_wr SENDs, each
 *           gathered from max_sge pieces and scattered into max_sge
 *           pieces; the same again, so that every ring index wraps; then
 *           max_qp_wr RDMA WRITEs of max_sge pieces, which take the CQ
 *           past its wrap.  An SRQ of max_srq_wr WQEs of max_srq_sge SGEs
 *           on an RC QP, filled (one more is refused) and consumed twice
 *           by SENDs of a QP with a small SQ, posted in batches that fit
 *           it.  A UD pair at max_qp_wr x max_sge on a CQ of max_cqe
 *           entries from ibv_create_cq_ex with completion timestamps
 *           (64-byte entries), taken past its wrap, every timestamp
 *           checked.  A small CQ resized to max_cqe while it holds
 *           completions: they are kept, and more than the old size then
 *           arrive.
 *   contig  On a device without paged rings (orca_soft ring_pbl=0): a
 *           QP of max_qp_wr x max_sge and an SRQ of max_srq_wr x
 *           max_srq_sge are refused with ENOMEM, and an RC pair of 1024
 *           WQEs of one SGE carries two full rounds of SENDs.
 *   again   An RC pair at the maximum carries one full round.
 *
 * Each completion's wr_id (its order), status, opcode, qp_num and
 * byte_len is checked, and every byte of the receive buffers: the
 * pieces written with what was sent, everything else untouched.
 * Prints TAP.  Usage: max_queues DEVICE [full|contig|again]
 */
#include "dp_common.h"

#define MQ_BATCH	256	/* WRs per post, completions per poll */
#define MQ_SPIECE	4	/* send buffer bytes per send SGE (1 to 4 used) */
#define MQ_WGAP		4	/* untouched bytes after each WRITE's target */
#define MQ_SMALL_WR	1024	/* the QP that must work without paged rings */
#define MQ_TAG_SEND	1ULL
#define MQ_TAG_RECV	2ULL
#define MQ_NDIAG	5	/* diagnostics per kind of failure and round */

enum mq_kind { MQ_SEND, MQ_WRITE };

/* A sender QP, the QP (or SRQ) its messages go to, one CQ for both. */
struct mq_flow {
	const char *name;
	int ud;
	int ready;			/* everything below was set up */
	struct ibv_qp *sqp;		/* posts the SENDs and WRITEs */
	struct ibv_qp *rqp;		/* takes the SENDs */
	struct ibv_srq *srq;		/* the receives go here if set */
	struct ibv_cq *cq;		/* every completion of the flow */
	struct ibv_cq_ex *cqx;		/* the same CQ, if it has timestamps */
	struct ibv_ah *ah;		/* UD: to our own GID */
	uint32_t sq_room;		/* the sender's max_send_wr */
	uint32_t nwr;			/* WQEs of the receive queue */
	uint32_t ns, nr;		/* SGEs per send, per receive */
	uint32_t rslot;			/* receive buffer bytes per receive SGE */
	uint32_t gslot;			/* UD: bytes per first piece (GRH) */
	uint32_t wslot;			/* bytes per WRITE target */
	struct dp_buf sbuf, rbuf, gbuf;
	uint8_t *want_r, *want_g;	/* what rbuf and gbuf must hold */
	struct ibv_sge *sge;
	struct ibv_send_wr *swr;
	struct ibv_recv_wr *rwr;
	struct ibv_wc wc[MQ_BATCH];
	uint64_t ts[MQ_BATCH];
	uint64_t khz;			/* hca_core_clock, 0: unknown */
	uint64_t last_ts;		/* the CQ's last timestamp, in ns */
	uint64_t cqes;			/* completions through the CQ */
};

/* Progress of one round. */
struct mq_state {
	uint32_t posted, sdone, rdone;
	uint32_t bad_s, bad_r, bad_ts, bad_grh;
	int post_err, poll_err, stalled;
};

static uint64_t mq_wr_id(uint64_t tag, unsigned int round, uint32_t i)
{
	return tag << 56 | (uint64_t)round << 32 | i;
}

static uint32_t mq_seed(unsigned int round, uint32_t i)
{
	return (uint32_t)round << 24 ^ i;
}

static uint32_t mq_min(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Piece j of send i: 1 to MQ_SPIECE bytes. */
static uint32_t mq_slen(uint32_t i, uint32_t j)
{
	return 1 + (i * 7 + j * 3) % MQ_SPIECE;
}

static size_t mq_soff(const struct mq_flow *f, uint32_t i, uint32_t j)
{
	return ((size_t)i * f->ns + j) * MQ_SPIECE;
}

/* The bytes of message i: its ns pieces. */
static uint32_t mq_msg_len(const struct mq_flow *f, uint32_t i)
{
	uint32_t j, t = 0;

	for (j = 0; j < f->ns; j++)
		t += mq_slen(i, j);
	return t;
}

/*
 * Piece j of receive i, for a message of @t bytes: the message spread
 * over the nr pieces, plus 0 to 2 bytes to spare, so the pieces differ
 * from the send's.  Each piece is followed by at least one byte that
 * nothing may write.
 */
static uint32_t mq_rlen(const struct mq_flow *f, uint32_t i, uint32_t j,
			uint32_t t)
{
	return (t + f->nr - 1) / f->nr + (i + j) % 3;
}

/*
 * Where piece j of receive i lies: in rbuf, or for piece 0 of a UD
 * receive in gbuf, where the 40-byte GRH area comes first.
 */
static void mq_rpiece(const struct mq_flow *f, uint32_t i, uint32_t j,
		      uint32_t t, int *in_g, size_t *off, uint32_t *len)
{
	*in_g = f->ud && j == 0;
	*len = mq_rlen(f, i, j, t);
	if (*in_g) {
		*off = (size_t)i * f->gslot;
		*len += DP_GRH;
	} else {
		*off = ((size_t)i * f->nr + j) * f->rslot;
	}
}

static uint64_t mq_raw_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* A device timestamp in ns (the device clock runs at hca_core_clock kHz). */
static uint64_t mq_ts_ns(const struct mq_flow *f, uint64_t ts)
{
	if (f->khz == 1000000)
		return ts;
	return (uint64_t)((unsigned __int128)ts * 1000000 / f->khz);
}

/* ---- setting up ------------------------------------------------------- */

static struct ibv_qp *mq_qp(enum ibv_qp_type type, struct ibv_cq *cq,
			    struct ibv_srq *srq, uint32_t swr, uint32_t ssge,
			    uint32_t rwr, uint32_t rsge, struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = type,
		.cap = { .max_send_wr = swr, .max_send_sge = ssge,
			 .max_recv_wr = srq ? 0 : rwr,
			 .max_recv_sge = srq ? 0 : rsge },
	};
	struct ibv_qp *qp;

	memset(cap, 0, sizeof(*cap));
	qp = ibv_create_qp(dp.pd, &init);
	if (!qp) {
		diag("ibv_create_qp(%s, %u x %u send, %u x %u receive): %s",
		     dp_type_str(type), swr, ssge, rwr, rsge, strerror(errno));
		return NULL;
	}
	*cap = init.cap;
	return qp;
}

static int mq_caps_cover(const struct ibv_qp_cap *c, uint32_t swr,
			 uint32_t ssge, uint32_t rwr, uint32_t rsge)
{
	return c->max_send_wr >= swr && c->max_send_sge >= ssge &&
	       c->max_recv_wr >= rwr && c->max_recv_sge >= rsge;
}

/* @qp of type @type from RESET to RTS, connected to @peer (RC). */
static int mq_connect(struct ibv_qp *qp, enum ibv_qp_type type, uint32_t peer)
{
	struct dp_end e = { .qp = qp };
	struct dp_qp_cfg cfg;

	dp_cfg_default(&cfg, type);
	return dp_end_connect(&e, &cfg, peer, IBV_QPS_RTS);
}

/*
 * The buffers and WR arrays of @f for up to @nmsg messages a round:
 * ns, nr and ud must be set.
 */
static int mq_flow_bufs(struct mq_flow *f, uint32_t nmsg)
{
	uint32_t spread = (f->ns + f->nr - 1) / f->nr;
	uint32_t nsge = f->ns > f->nr ? f->ns : f->nr;
	size_t rlen, slot;

	f->rslot = MQ_SPIECE * spread + 3;
	f->gslot = DP_GRH + f->rslot;
	f->wslot = MQ_SPIECE * f->ns + MQ_WGAP;
	slot = (size_t)f->nr * f->rslot;
	rlen = (size_t)nmsg * (slot > f->wslot ? slot : f->wslot);
	if (dp_buf_alloc(&f->sbuf, dp.pd, (size_t)nmsg * f->ns * MQ_SPIECE,
			 IBV_ACCESS_LOCAL_WRITE) ||
	    dp_buf_alloc(&f->rbuf, dp.pd, rlen, DP_ACC_ALL))
		return -1;
	f->want_r = malloc(rlen);
	if (!f->want_r)
		return -1;
	if (f->ud) {
		if (dp_buf_alloc(&f->gbuf, dp.pd, (size_t)nmsg * f->gslot,
				 IBV_ACCESS_LOCAL_WRITE))
			return -1;
		f->want_g = malloc(f->gbuf.len);
		if (!f->want_g)
			return -1;
	}
	f->sge = calloc((size_t)MQ_BATCH * nsge, sizeof(*f->sge));
	f->swr = calloc(MQ_BATCH, sizeof(*f->swr));
	f->rwr = calloc(MQ_BATCH, sizeof(*f->rwr));
	if (!f->sge || !f->swr || !f->rwr)
		return -1;
	diag("%s: buffers: %zu bytes of send pieces, %zu of receive pieces%s",
	     f->name, f->sbuf.len, f->rbuf.len, f->ud ? " and GRH slots" : "");
	return 0;
}

/* Destroy what @f holds; 1 if every destroy call returned 0. */
static int mq_flow_destroy(struct mq_flow *f)
{
	int good = 1, ret;

	if (f->ah && (ret = ibv_destroy_ah(f->ah))) {
		diag("%s: ibv_destroy_ah: %s", f->name, strerror(ret));
		good = 0;
	}
	if (f->sqp && (ret = ibv_destroy_qp(f->sqp))) {
		diag("%s: ibv_destroy_qp (sender): %s", f->name, strerror(ret));
		good = 0;
	}
	if (f->rqp && (ret = ibv_destroy_qp(f->rqp))) {
		diag("%s: ibv_destroy_qp (receiver): %s", f->name, strerror(ret));
		good = 0;
	}
	if (f->srq && (ret = ibv_destroy_srq(f->srq))) {
		diag("%s: ibv_destroy_srq: %s", f->name, strerror(ret));
		good = 0;
	}
	if (f->cq && (ret = ibv_destroy_cq(f->cq))) {
		diag("%s: ibv_destroy_cq: %s", f->name, strerror(ret));
		good = 0;
	}
	dp_buf_free(&f->sbuf);
	dp_buf_free(&f->rbuf);
	dp_buf_free(&f->gbuf);
	free(f->want_r);
	free(f->want_g);
	free(f->sge);
	free(f->swr);
	free(f->rwr);
	memset(f, 0, sizeof(*f));
	return good;
}

/* ---- one round -------------------------------------------------------- */

/* The send data of @cnt messages, and the receive buffers poisoned. */
static void mq_fill(struct mq_flow *f, unsigned int round, uint32_t cnt)
{
	uint32_t i, j, b, k;

	for (i = 0; i < cnt; i++) {
		uint32_t seed = mq_seed(round, i);

		for (j = 0, k = 0; j < f->ns; j++)
			for (b = 0; b < mq_slen(i, j); b++)
				f->sbuf.p[mq_soff(f, i, j) + b] = dp_pat(seed, k++);
	}
	memset(f->rbuf.p, DP_POISON, f->rbuf.len);
	if (f->ud)
		memset(f->gbuf.p, DP_POISON, f->gbuf.len);
}

static int mq_post_recvs(struct mq_flow *f, unsigned int round, uint32_t cnt)
{
	struct ibv_recv_wr *bad = NULL;
	uint32_t i = 0, b, nb, j, t, len;
	size_t off;
	int in_g, ret;

	while (i < cnt) {
		nb = mq_min(cnt - i, MQ_BATCH);
		for (b = 0; b < nb; b++, i++) {
			struct ibv_sge *sg = f->sge + (size_t)b * f->nr;

			t = mq_msg_len(f, i);
			for (j = 0; j < f->nr; j++) {
				mq_rpiece(f, i, j, t, &in_g, &off, &len);
				sg[j].addr = (uintptr_t)(in_g ? f->gbuf.p : f->rbuf.p) + off;
				sg[j].length = len;
				sg[j].lkey = in_g ? f->gbuf.mr->lkey : f->rbuf.mr->lkey;
			}
			f->rwr[b] = (struct ibv_recv_wr){
				.wr_id = mq_wr_id(MQ_TAG_RECV, round, i),
				.sg_list = sg, .num_sge = (int)f->nr,
				.next = b + 1 < nb ? &f->rwr[b + 1] : NULL,
			};
		}
		ret = f->srq ? ibv_post_srq_recv(f->srq, f->rwr, &bad) :
			       ibv_post_recv(f->rqp, f->rwr, &bad);
		if (ret) {
			diag("%s, round %u: posting receives %u..%u: %s (at wr_id 0x%llx)",
			     f->name, round, i - nb, i - 1, strerror(ret),
			     bad ? (unsigned long long)bad->wr_id : 0ULL);
			return -1;
		}
	}
	return 0;
}

/* With the receive queue full, one more receive is refused with ENOMEM. */
static int mq_one_more(struct mq_flow *f, unsigned int round)
{
	struct ibv_sge sg = { (uintptr_t)f->rbuf.p, 1, f->rbuf.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = mq_wr_id(MQ_TAG_RECV, round, 0xffffffff),
				  .sg_list = &sg, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;
	int ret;

	ret = f->srq ? ibv_post_srq_recv(f->srq, &wr, &bad) :
		       ibv_post_recv(f->rqp, &wr, &bad);
	return expect_errno(ret, ENOMEM, "one receive more than the queue holds") &&
	       bad == &wr;
}

static int mq_post_sends(struct mq_flow *f, unsigned int round, uint32_t from,
			 uint32_t n, enum mq_kind kind)
{
	struct ibv_send_wr *bad = NULL;
	uint32_t b, j, i;
	int ret;

	for (b = 0; b < n; b++) {
		struct ibv_sge *sg = f->sge + (size_t)b * f->ns;
		struct ibv_send_wr *wr = &f->swr[b];

		i = from + b;
		for (j = 0; j < f->ns; j++) {
			sg[j].addr = (uintptr_t)f->sbuf.p + mq_soff(f, i, j);
			sg[j].length = mq_slen(i, j);
			sg[j].lkey = f->sbuf.mr->lkey;
		}
		*wr = (struct ibv_send_wr){
			.wr_id = mq_wr_id(MQ_TAG_SEND, round, i),
			.next = b + 1 < n ? &f->swr[b + 1] : NULL,
			.sg_list = sg, .num_sge = (int)f->ns,
			.opcode = kind == MQ_WRITE ? IBV_WR_RDMA_WRITE : IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
		};
		if (kind == MQ_WRITE) {
			wr->wr.rdma.remote_addr = (uintptr_t)f->rbuf.p +
						  (size_t)i * f->wslot;
			wr->wr.rdma.rkey = f->rbuf.mr->rkey;
		} else if (f->ud) {
			wr->wr.ud.ah = f->ah;
			wr->wr.ud.remote_qpn = f->rqp->qp_num;
			wr->wr.ud.remote_qkey = DP_QKEY;
		}
	}
	ret = ibv_post_send(f->sqp, f->swr, &bad);
	if (ret)
		diag("%s, round %u: posting sends %u..%u: %s (at wr_id 0x%llx)",
		     f->name, round, from, from + n - 1, strerror(ret),
		     bad ? (unsigned long long)bad->wr_id : 0ULL);
	return ret;
}

/*
 * How many more sends may be posted: what the SQ has room for, and what
 * the CQ has room for if none of what is in flight were polled (a send
 * makes two completions, its own and its receive's).
 */
static uint32_t mq_room(const struct mq_flow *f, const struct mq_state *s,
			enum mq_kind kind)
{
	uint64_t per = kind == MQ_WRITE ? 1 : 2;
	uint64_t cqes = per * s->posted - s->sdone - s->rdone;
	uint32_t inflight = s->posted - s->sdone, sq, cq;

	sq = f->sq_room > inflight ? f->sq_room - inflight : 0;
	cq = (uint64_t)f->cq->cqe > cqes ? (uint32_t)(((uint64_t)f->cq->cqe - cqes) / per) : 0;
	return mq_min(sq, cq);
}

/* Up to MQ_BATCH completions into f->wc (and f->ts); -1 on an error. */
static int mq_poll(struct mq_flow *f)
{
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cq = f->cqx;
	int n = 0, ret;

	if (!cq)
		return ibv_poll_cq(f->cq, MQ_BATCH, f->wc);
	ret = ibv_start_poll(cq, &pa);
	if (ret == ENOENT)
		return 0;
	if (ret)
		return -1;
	for (;;) {
		struct ibv_wc *w = &f->wc[n];

		memset(w, 0, sizeof(*w));
		w->wr_id = cq->wr_id;
		w->status = cq->status;
		w->opcode = ibv_wc_read_opcode(cq);
		w->byte_len = ibv_wc_read_byte_len(cq);
		w->qp_num = ibv_wc_read_qp_num(cq);
		w->src_qp = ibv_wc_read_src_qp(cq);
		w->wc_flags = ibv_wc_read_wc_flags(cq);
		f->ts[n++] = ibv_wc_read_completion_ts(cq);
		if (n == MQ_BATCH)
			break;
		ret = ibv_next_poll(cq);
		if (ret)
			break;
	}
	ibv_end_poll(cq);
	return ret && ret != ENOENT ? -1 : n;
}

/* Check one completion against what round @round expects next. */
static void mq_take(struct mq_flow *f, struct mq_state *s, unsigned int k,
		    unsigned int round, enum mq_kind kind, uint64_t t0,
		    uint64_t now)
{
	const struct ibv_wc *wc = &f->wc[k];
	uint64_t tag = wc->wr_id >> 56;
	int good;

	f->cqes++;
	if (tag == MQ_TAG_RECV && kind == MQ_SEND) {
		uint32_t i = s->rdone++;
		uint32_t len = mq_msg_len(f, i) + (f->ud ? DP_GRH : 0);

		good = wc->wr_id == mq_wr_id(MQ_TAG_RECV, round, i) &&
		       wc->status == IBV_WC_SUCCESS && wc->opcode == IBV_WC_RECV &&
		       wc->byte_len == len && wc->qp_num == f->rqp->qp_num;
		if (f->ud)
			good = good && wc->src_qp == f->sqp->qp_num &&
			       (wc->wc_flags & IBV_WC_GRH);
		if (!good && s->bad_r++ < MQ_NDIAG) {
			dp_wc_diag("receive completion", wc);
			diag("%s, round %u: receive completion %u: wanted wr_id 0x%llx, "
			     "RECV, byte_len %u, qp_num 0x%x%s", f->name, round, i,
			     (unsigned long long)mq_wr_id(MQ_TAG_RECV, round, i),
			     len, f->rqp->qp_num, f->ud ? ", src_qp, GRH" : "");
		}
	} else {
		uint32_t i = s->sdone++;
		int op = kind == MQ_WRITE ? IBV_WC_RDMA_WRITE : IBV_WC_SEND;

		good = wc->wr_id == mq_wr_id(MQ_TAG_SEND, round, i) &&
		       wc->status == IBV_WC_SUCCESS && (int)wc->opcode == op &&
		       wc->qp_num == f->sqp->qp_num;
		if (!good && s->bad_s++ < MQ_NDIAG) {
			dp_wc_diag("send completion", wc);
			diag("%s, round %u: send completion %u: wanted wr_id 0x%llx, %s, "
			     "qp_num 0x%x", f->name, round, i,
			     (unsigned long long)mq_wr_id(MQ_TAG_SEND, round, i),
			     dp_wc_opcode_str(op), f->sqp->qp_num);
		}
	}
	if (f->cqx) {
		uint64_t ns = mq_ts_ns(f, f->ts[k]);

		good = ns >= f->last_ts && (!f->khz || (ns >= t0 && ns <= now));
		if (!good && s->bad_ts++ < MQ_NDIAG)
			diag("%s, round %u: completion %llu of the CQ (wr_id 0x%llx): "
			     "timestamp %llu ns, the one before %llu, round began at %llu, "
			     "polled by %llu", f->name, round,
			     (unsigned long long)f->cqes,
			     (unsigned long long)wc->wr_id, (unsigned long long)ns,
			     (unsigned long long)f->last_ts, (unsigned long long)t0,
			     (unsigned long long)now);
		if (ns > f->last_ts)
			f->last_ts = ns;
	}
}

/* Post the round's sends as the queues allow and take every completion. */
static void mq_run(struct mq_flow *f, struct mq_state *s, unsigned int round,
		   uint32_t cnt, enum mq_kind kind, uint64_t t0)
{
	long last = dp_now_ms();
	unsigned int spins = 0;
	uint32_t want = cnt, c;
	uint64_t now = 0;
	int n, k;

	for (;;) {
		while (!s->post_err && s->posted < cnt) {
			c = mq_min(mq_room(f, s, kind),
				   mq_min(cnt - s->posted, MQ_BATCH));
			if (!c)
				break;
			if (mq_post_sends(f, round, s->posted, c, kind)) {
				s->post_err = 1;
				break;
			}
			s->posted += c;
		}
		if (s->post_err)
			want = s->posted;
		if (s->sdone >= want && (kind == MQ_WRITE || s->rdone >= want))
			break;
		n = mq_poll(f);
		if (n < 0) {
			diag("%s, round %u: polling the CQ failed", f->name, round);
			s->poll_err = 1;
			break;
		}
		if (f->cqx)
			now = mq_raw_ns();
		for (k = 0; k < n; k++)
			mq_take(f, s, k, round, kind, t0, now);
		if (n) {
			last = dp_now_ms();
			spins = 0;
		} else if (dp_now_ms() - last > dp_timeout_ms()) {
			diag("%s, round %u: no completion for %ld ms: %u of %u sends posted, "
			     "%u send and %u receive completions", f->name, round,
			     dp_timeout_ms(), s->posted, cnt, s->sdone, s->rdone);
			dp_timed_out();
			s->stalled = 1;
			break;
		} else if (++spins > 1000) {
			usleep(20);
		}
	}
}

/* The GRH area of a UD receive names our GID as source and destination. */
static int mq_grh_ok(const uint8_t *g)
{
	if (dp.gid_ipv4)
		return (g[20] >> 4) == 4 && !memcmp(g + 32, dp.gid.raw + 12, 4) &&
		       !memcmp(g + 36, dp.gid.raw + 12, 4);
	return (g[0] >> 4) == 6 && !memcmp(g + 8, dp.gid.raw, 16) &&
	       !memcmp(g + 24, dp.gid.raw, 16);
}

/*
 * What the receive buffers must hold after @cnt messages: each message's
 * bytes in its pieces, in order, then poison.  The GRH areas of UD
 * receives are checked for our GID and taken as they are.
 */
static int mq_check_data(struct mq_flow *f, struct mq_state *s,
			 unsigned int round, uint32_t cnt, enum mq_kind kind)
{
	uint32_t i, j, b, k, t, len;
	uint8_t *w;
	size_t off;
	int in_g, good;

	memset(f->want_r, DP_POISON, f->rbuf.len);
	if (f->ud)
		memset(f->want_g, DP_POISON, f->gbuf.len);
	for (i = 0; i < cnt; i++) {
		uint32_t seed = mq_seed(round, i);

		t = mq_msg_len(f, i);
		if (kind == MQ_WRITE) {
			for (k = 0; k < t; k++)
				f->want_r[(size_t)i * f->wslot + k] = dp_pat(seed, k);
			continue;
		}
		for (j = 0, k = 0; j < f->nr; j++) {
			mq_rpiece(f, i, j, t, &in_g, &off, &len);
			w = (in_g ? f->want_g : f->want_r) + off;
			b = 0;
			if (in_g) {
				if (!mq_grh_ok(f->gbuf.p + off) &&
				    s->bad_grh++ < MQ_NDIAG) {
					dp_check_grh(f->gbuf.p + off, "UD receive");
					diag("%s, round %u: receive %u: GRH area", f->name,
					     round, i);
				}
				memcpy(w, f->gbuf.p + off, DP_GRH);
				b = DP_GRH;
			}
			for (; b < len && k < t; b++)
				w[b] = dp_pat(seed, k++);
		}
	}
	if (kind == MQ_WRITE)
		return dp_cmp_units(f->rbuf.p, f->want_r, f->rbuf.len,
				    f->wslot, "RDMA WRITE targets");
	good = dp_cmp_units(f->rbuf.p, f->want_r, f->rbuf.len,
			    (size_t)f->nr * f->rslot, "receive pieces");
	if (f->ud)
		good &= dp_cmp_units(f->gbuf.p, f->want_g, f->gbuf.len,
				     f->gslot,
				     "first receive pieces (GRH and payload)");
	return good && !s->bad_grh;
}

/*
 * One round: @cnt receives posted (MQ_SEND; with @check_full, they fill
 * the queue and one more must be refused), then @cnt SENDs or RDMA
 * WRITEs, as many in flight as the SQ and the CQ hold, every completion
 * taken and checked, then the data.  The points depend on the arguments
 * only: 3 for a WRITE round, 4 for a SEND round, one more with
 * @check_full and one more on a CQ with timestamps.
 */
static void mq_round(struct mq_flow *f, unsigned int round, uint32_t cnt,
		     enum mq_kind kind, int check_full)
{
	const char *what = kind == MQ_WRITE ? "RDMA WRITEs" : "SENDs";
	const char *q = f->srq ? "SRQ" : "RQ";
	struct mq_state s = {};
	int posted = 0, full = 0, data = 0, empty = 0;
	uint64_t t0 = 0;
	long ms = 0;

	if (f->ready) {
		mq_fill(f, round, cnt);
		t0 = mq_raw_ns();
		ms = dp_now_ms();
		posted = kind == MQ_WRITE || !mq_post_recvs(f, round, cnt);
		if (check_full)
			full = posted && mq_one_more(f, round);
		if (posted)
			mq_run(f, &s, round, cnt, kind, t0);
		ms = dp_now_ms() - ms;
		data = posted && mq_check_data(f, &s, round, cnt, kind);
		empty = dp_cq_empty(f->cq, f->name);
		diag("%s, round %u: %u %s in %ld ms; %llu completions through the CQ "
		     "of %d entries so far", f->name, round, cnt, what, ms,
		     (unsigned long long)f->cqes, f->cq->cqe);
	}
	if (kind == MQ_SEND)
		ok(posted, "%s, round %u: %u receives of %u SGEs posted to the %s "
		   "(its %u WQEs%s)", f->name, round, cnt, f->nr, q, f->nwr,
		   cnt == f->nwr ? ": full" : "");
	if (check_full)
		ok(full, "%s, round %u: the %s full, one more receive is refused with "
		   "ENOMEM", f->name, round, q);
	ok(f->ready && !s.post_err && !s.poll_err && !s.stalled &&
	   s.posted == cnt && s.sdone == cnt && !s.bad_s && empty,
	   "%s, round %u: %u %s of %u SGEs posted in batches of up to %u that fit "
	   "the SQ (%u WQEs) and the CQ: %u send completions, in order, successful, "
	   "and nothing else (%u bad)", f->name, round, cnt, what, f->ns, MQ_BATCH,
	   f->sq_room, s.sdone, s.bad_s);
	if (kind == MQ_SEND)
		ok(f->ready && s.rdone == cnt && !s.bad_r,
		   "%s, round %u: %u receive completions, in order, successful, RECV "
		   "with the message's byte_len and qp_num%s (%u bad)", f->name, round,
		   s.rdone, f->ud ? ", the sender as src_qp and a GRH" : "", s.bad_r);
	ok(data, kind == MQ_WRITE ?
	   "%s, round %u: each WRITE's %u pieces are at its target byte for byte, "
	   "the bytes between targets untouched" :
	   "%s, round %u: each message's %u pieces are scattered byte for byte "
	   "over its receive's pieces, nothing else written", f->name, round, f->ns);
	if (f->cqx)
		ok(f->ready && s.sdone + s.rdone > 0 && !s.bad_ts,
		   "%s, round %u: every completion timestamp %s, and none is earlier "
		   "than the one before it in the CQ (%u bad)", f->name, round,
		   f->khz ? "lies between CLOCK_MONOTONIC_RAW read before posting and "
		   "after polling" : "is read", s.bad_ts);
}

/* ---- the tests ---------------------------------------------------------- */

/*
 * An RC pair, both QPs with SQ and RQ of @q WQEs of @n SGEs, on one CQ of
 * @cqe entries; A sends to B: @rounds rounds of SENDs filling B's RQ,
 * then, with @write, a round of RDMA WRITEs.
 */
static void test_rc(const char *name, uint32_t q, uint32_t n, int cqe,
		    unsigned int rounds, int write)
{
	struct ibv_qp_cap ca = {}, cb = {};
	struct mq_flow f = { .name = name };
	unsigned int r;
	int good;

	f.cq = ibv_create_cq(dp.ctx, cqe, NULL, NULL, 0);
	if (!f.cq)
		diag("ibv_create_cq(%d): %s", cqe, strerror(errno));
	ok(f.cq && f.cq->cqe >= cqe, "%s: ibv_create_cq of %d entries (cqe %d)",
	   name, cqe, f.cq ? f.cq->cqe : -1);
	if (f.cq) {
		f.sqp = mq_qp(IBV_QPT_RC, f.cq, NULL, q, n, q, n, &ca);
		f.rqp = mq_qp(IBV_QPT_RC, f.cq, NULL, q, n, q, n, &cb);
	}
	good = f.sqp && f.rqp && mq_caps_cover(&ca, q, n, q, n) &&
	       mq_caps_cover(&cb, q, n, q, n);
	ok(good, "%s: two RC QPs, each with max_send_wr = max_recv_wr = %u and "
	   "max_send_sge = max_recv_sge = %u: the caps cover it (%u/%u WRs, %u/%u "
	   "SGEs; %u/%u WRs, %u/%u SGEs)", name, q, n, ca.max_send_wr,
	   ca.max_recv_wr, ca.max_send_sge, ca.max_recv_sge, cb.max_send_wr,
	   cb.max_recv_wr, cb.max_send_sge, cb.max_recv_sge);
	if (good) {
		f.sq_room = ca.max_send_wr;
		f.nwr = cb.max_recv_wr;
		f.ns = n;
		f.nr = n;
		good = !mq_connect(f.sqp, IBV_QPT_RC, f.rqp->qp_num) &&
		       !mq_connect(f.rqp, IBV_QPT_RC, f.sqp->qp_num) &&
		       !mq_flow_bufs(&f, f.nwr > f.sq_room ? f.nwr : f.sq_room);
	}
	f.ready = good;
	ok(good, "%s: the QPs connected to each other (RTS), the buffers registered",
	   name);
	for (r = 1; r <= rounds; r++)
		mq_round(&f, r, f.ready ? f.nwr : q, MQ_SEND, r == 1);
	if (write)
		mq_round(&f, rounds + 1, f.ready ? f.sq_room : q, MQ_WRITE, 0);
	ok(mq_flow_destroy(&f), "%s: QPs and CQ destroyed, every call returned 0",
	   name);
}

/*
 * An SRQ of max_srq_wr WQEs of max_srq_sge SGEs; RC QP E on it, QP F
 * with an SQ of 256 WQEs of max_sge SGEs sending to E, all on one CQ of
 * max_cqe entries: two rounds that fill the SRQ and empty it.
 */
static void test_srq(void)
{
	uint32_t wr = (uint32_t)dp.attr.max_srq_wr, sge = (uint32_t)dp.attr.max_srq_sge;
	uint32_t n = (uint32_t)dp.attr.max_sge;
	uint32_t fwr = mq_min(256, (uint32_t)dp.attr.max_qp_wr);
	struct ibv_srq_init_attr si = { .attr = { .max_wr = wr, .max_sge = sge } };
	struct mq_flow f = { .name = "SRQ" };
	struct ibv_srq_attr sa = {};
	struct ibv_qp_cap ce = {}, cf = {};
	int good;

	f.cq = ibv_create_cq(dp.ctx, dp.attr.max_cqe, NULL, NULL, 0);
	if (!f.cq)
		diag("ibv_create_cq(%d): %s", dp.attr.max_cqe, strerror(errno));
	f.srq = ibv_create_srq(dp.pd, &si);
	if (!f.srq)
		diag("ibv_create_srq(%u x %u): %s", wr, sge, strerror(errno));
	good = f.srq && !ibv_query_srq(f.srq, &sa);
	ok(good && si.attr.max_wr >= wr && si.attr.max_sge >= sge &&
	   sa.max_wr >= wr && sa.max_sge >= sge,
	   "SRQ: ibv_create_srq with max_wr = max_srq_wr %u and max_sge = "
	   "max_srq_sge %u: created with %u x %u, ibv_query_srq says %u x %u",
	   wr, sge, si.attr.max_wr, si.attr.max_sge, sa.max_wr, sa.max_sge);
	if (f.cq && f.srq) {
		f.rqp = mq_qp(IBV_QPT_RC, f.cq, f.srq, 16, 1, 0, 0, &ce);
		f.sqp = mq_qp(IBV_QPT_RC, f.cq, NULL, fwr, n, 16, 1, &cf);
	}
	good = good && f.cq && f.cq->cqe >= dp.attr.max_cqe && f.rqp && f.sqp &&
	       mq_caps_cover(&cf, fwr, n, 16, 1);
	if (good) {
		f.sq_room = cf.max_send_wr;
		f.nwr = sa.max_wr;
		f.ns = n;
		f.nr = sge;
		good = !mq_connect(f.sqp, IBV_QPT_RC, f.rqp->qp_num) &&
		       !mq_connect(f.rqp, IBV_QPT_RC, f.sqp->qp_num) &&
		       !mq_flow_bufs(&f, f.nwr > f.sq_room ? f.nwr : f.sq_room);
	}
	f.ready = good;
	ok(good, "SRQ: a CQ of max_cqe %d entries (cqe %d), RC QP E on the SRQ, QP F "
	   "with an SQ of %u x %u sending to it, connected, buffers registered",
	   dp.attr.max_cqe, f.cq ? f.cq->cqe : -1, fwr, n);
	mq_round(&f, 1, f.ready ? f.nwr : wr, MQ_SEND, 1);
	mq_round(&f, 2, f.ready ? f.nwr : wr, MQ_SEND, 0);
	ok(mq_flow_destroy(&f), "SRQ: QPs, SRQ and CQ destroyed, every call returned 0");
}

/*
 * A UD pair at max_qp_wr x max_sge on one CQ of max_cqe entries from
 * ibv_create_cq_ex with completion timestamps: two full rounds, then one
 * that takes the CQ past its wrap.
 */
static void test_ud_ts(void)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = (uint32_t)dp.attr.max_cqe,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM |
			    IBV_WC_EX_WITH_SRC_QP |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};
	uint32_t q = (uint32_t)dp.attr.max_qp_wr, n = (uint32_t)dp.attr.max_sge;
	struct mq_flow f = { .name = "UD", .ud = 1 };
	struct ibv_device_attr_ex ax = {};
	struct ibv_qp_cap cs = {}, cb = {};
	uint64_t before, third;
	int good;

	if (!ibv_query_device_ex(dp.ctx, NULL, &ax))
		f.khz = ax.hca_core_clock;
	diag("hca_core_clock %llu kHz", (unsigned long long)f.khz);
	f.cqx = ibv_create_cq_ex(dp.ctx, &ca);
	if (!f.cqx)
		diag("ibv_create_cq_ex(cqe %d, COMPLETION_TIMESTAMP): %s",
		     dp.attr.max_cqe, strerror(errno));
	f.cq = f.cqx ? ibv_cq_ex_to_cq(f.cqx) : NULL;
	ok(f.cq && f.cq->cqe >= dp.attr.max_cqe,
	   "UD: ibv_create_cq_ex of max_cqe %d entries with "
	   "IBV_WC_EX_WITH_COMPLETION_TIMESTAMP (cqe %d)", dp.attr.max_cqe,
	   f.cq ? f.cq->cqe : -1);
	if (f.cq) {
		f.sqp = mq_qp(IBV_QPT_UD, f.cq, NULL, q, n, q, n, &cs);
		f.rqp = mq_qp(IBV_QPT_UD, f.cq, NULL, q, n, q, n, &cb);
	}
	good = f.sqp && f.rqp && mq_caps_cover(&cs, q, n, q, n) &&
	       mq_caps_cover(&cb, q, n, q, n);
	ok(good, "UD: two UD QPs, each with max_send_wr = max_recv_wr = max_qp_wr %u "
	   "and max_send_sge = max_recv_sge = max_sge %u: the caps cover it (%u/%u "
	   "WRs, %u/%u SGEs; %u/%u WRs, %u/%u SGEs)", q, n, cs.max_send_wr,
	   cs.max_recv_wr, cs.max_send_sge, cs.max_recv_sge, cb.max_send_wr,
	   cb.max_recv_wr, cb.max_send_sge, cb.max_recv_sge);
	if (good) {
		f.sq_room = cs.max_send_wr;
		f.nwr = cb.max_recv_wr;
		f.ns = n;
		f.nr = n;
		good = !mq_connect(f.sqp, IBV_QPT_UD, 0) &&
		       !mq_connect(f.rqp, IBV_QPT_UD, 0) &&
		       (f.ah = dp_make_ah(dp.pd)) != NULL &&
		       !mq_flow_bufs(&f, f.nwr);
	}
	f.ready = good;
	ok(good, "UD: the QPs in RTS, an AH to our GID, the buffers registered");
	mq_round(&f, 1, f.ready ? f.nwr : q, MQ_SEND, 1);
	mq_round(&f, 2, f.ready ? f.nwr : q, MQ_SEND, 0);
	/* Enough for the CQ to wrap, if the two rounds did not already. */
	before = 4ULL * (f.ready ? f.nwr : q);
	third = before > (uint64_t)dp.attr.max_cqe ? 1024 :
		((uint64_t)dp.attr.max_cqe - before) / 2 + 1024;
	if (third > (f.ready ? f.nwr : q))
		third = f.ready ? f.nwr : q;
	mq_round(&f, 3, (uint32_t)third, MQ_SEND, 0);
	ok(f.ready && f.cqes > (uint64_t)f.cq->cqe,
	   "UD: %llu completions went through the timestamp CQ of %d entries: its "
	   "ring wrapped", (unsigned long long)f.cqes, f.cq ? f.cq->cqe : -1);
	ok(mq_flow_destroy(&f), "UD: QPs, AH and CQ destroyed, every call returned 0");
}

/*
 * A small CQ resized to max_cqe while it holds completions: they come
 * out after the resize, then more than the old size arrive and are held.
 */
#define RS_FIRST	32
#define RS_BATCH	32
#define RS_SLOT		64

static int rs_batch(struct dp_pair *p, struct dp_buf *sb, struct dp_buf *rb,
		    uint32_t from, uint32_t n)
{
	struct ibv_wc wc[RS_BATCH];
	uint32_t i;

	for (i = from; i < from + n; i++) {
		struct ibv_sge r = { (uintptr_t)rb->p + (size_t)i * RS_SLOT, RS_SLOT,
				     rb->mr->lkey };
		struct ibv_sge s = { (uintptr_t)sb->p + (size_t)i * RS_SLOT,
				     1 + i % (RS_SLOT - 1), sb->mr->lkey };
		struct ibv_send_wr wr = { .wr_id = i, .sg_list = &s, .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };

		if (dp_post_recv(p->b.qp, 0x10000 + i, &r, 1) ||
		    dp_post_send(p->a.qp, &wr))
			return -1;
	}
	/*
	 * Between two QPs of one function the device executes a send WQE
	 * to its end, the receiver's CQE included, before the next one
	 * ("Processing model"): once A's send completions are polled, B's
	 * receive completions are in B's CQ, unpolled.
	 */
	if (dp_poll(p->a.scq, wc, (int)n, "resize: A's sends") != (int)n)
		return -1;
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS || wc[i].wr_id != from + i) {
			dp_wc_diag("resize: A's send", &wc[i]);
			return -1;
		}
	return 0;
}

/* Take @n receive completions from B's CQ: in order, lengths and data. */
static int rs_take(struct dp_pair *p, struct dp_buf *sb, struct dp_buf *rb,
		   uint32_t from, uint32_t n, const char *what)
{
	struct ibv_wc wc;
	uint32_t i, len;
	int good = 1;

	for (i = from; i < from + n; i++) {
		struct dp_wc_want w = { 0x10000 + i, IBV_WC_SUCCESS, IBV_WC_RECV, 0,
					p->b.qp->qp_num, -1, -1, -1 };

		len = 1 + i % (RS_SLOT - 1);
		w.byte_len = len;
		if (!dp_poll1(p->b.rcq, &wc, what) || !dp_wc_check(&wc, &w, what) ||
		    !dp_cmp(rb->p + (size_t)i * RS_SLOT, sb->p + (size_t)i * RS_SLOT,
			    len, what)) {
			diag("%s: receive completion %u", what, i);
			good = 0;
			break;
		}
	}
	return good && dp_cq_empty(p->b.rcq, what);
}

static void test_resize(void)
{
	struct dp_buf sb = {}, rb = {};
	struct dp_qp_cfg cfg;
	struct dp_pair p;
	uint32_t more = 0, i;
	int good, old = -1, ret = -1, got = 0, kept = 0, held = 0;

	dp_cfg_default(&cfg, IBV_QPT_RC);
	cfg.cqe = 64;
	good = !dp_pair_make(&p, &cfg);
	if (good) {
		old = p.b.rcq->cqe;
		more = ((uint32_t)old * 4 + RS_BATCH) / RS_BATCH * RS_BATCH;
		good = !dp_buf_alloc(&sb, dp.pd, (size_t)(RS_FIRST + more) * RS_SLOT,
				     DP_ACC_ALL) &&
		       !dp_buf_alloc(&rb, dp.pd, (size_t)(RS_FIRST + more) * RS_SLOT,
				     DP_ACC_ALL);
	}
	if (good) {
		dp_fill(sb.p, sb.len, 0x51ed);
		good = !rs_batch(&p, &sb, &rb, 0, RS_FIRST);
	}
	ok(good, "resize: an RC pair whose receive CQ has %d entries (cqe %d); %d "
	   "SENDs done, their receive completions in that CQ, unpolled", cfg.cqe,
	   old, RS_FIRST);
	if (good) {
		ret = ibv_resize_cq(p.b.rcq, dp.attr.max_cqe);
		if (ret)
			diag("ibv_resize_cq(%d): %s", dp.attr.max_cqe, strerror(ret));
		got = p.b.rcq->cqe;
	}
	ok(good && !ret && got >= dp.attr.max_cqe,
	   "resize: ibv_resize_cq from %d to max_cqe %d entries with %d completions "
	   "pending returns 0 (%d), cqe %d", old, dp.attr.max_cqe, RS_FIRST, ret, got);
	kept = good && !ret && rs_take(&p, &sb, &rb, 0, RS_FIRST, "resize: kept");
	ok(kept, "resize: the %d pending completions are kept: they come out in "
	   "order, successful, with their byte_len and data, and nothing else",
	   RS_FIRST);
	if (kept) {
		for (i = 0; i < more; i += RS_BATCH)
			if (rs_batch(&p, &sb, &rb, RS_FIRST + i, RS_BATCH))
				break;
		held = i >= more &&
		       rs_take(&p, &sb, &rb, RS_FIRST, more, "resize: held");
	}
	ok(held, "resize: then %u more SENDs, more than the old %d entries, all "
	   "completed into the resized CQ before it is polled: the %u come out in "
	   "order, right, and nothing else", more, old, more);
	dp_pair_destroy(&p);
	dp_buf_free(&sb);
	dp_buf_free(&rb);
}

/* What only a device with paged rings can hold is refused with ENOMEM. */
static void test_contig(void)
{
	uint32_t q = (uint32_t)dp.attr.max_qp_wr, n = (uint32_t)dp.attr.max_sge;
	struct ibv_srq_init_attr si = {
		.attr = { .max_wr = (uint32_t)dp.attr.max_srq_wr,
			  .max_sge = (uint32_t)dp.attr.max_srq_sge },
	};
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = q, .max_recv_wr = q, .max_send_sge = n,
			 .max_recv_sge = n },
	};
	struct ibv_cq *cq = ibv_create_cq(dp.ctx, 256, NULL, NULL, 0);
	struct ibv_srq *srq;
	struct ibv_qp *qp = NULL;
	int err = 0;

	if (cq) {
		init.send_cq = cq;
		init.recv_cq = cq;
		errno = 0;
		qp = ibv_create_qp(dp.pd, &init);
		err = errno;
	}
	ok(cq && !qp && expect_errno(err, ENOMEM, "ibv_create_qp at the maximum"),
	   "contig: an RC QP of max_qp_wr %u x max_sge %u (SQ and RQ) is refused "
	   "with ENOMEM (%s)", q, n, qp ? "created" : strerror(err));
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	errno = 0;
	srq = ibv_create_srq(dp.pd, &si);
	err = errno;
	ok(!srq && expect_errno(err, ENOMEM, "ibv_create_srq at the maximum"),
	   "contig: an SRQ of max_srq_wr %d x max_srq_sge %d is refused with "
	   "ENOMEM (%s)", dp.attr.max_srq_wr, dp.attr.max_srq_sge,
	   srq ? "created" : strerror(err));
	if (srq)
		ibv_destroy_srq(srq);
	q = mq_min(MQ_SMALL_WR, q);
	test_rc("contig", q, 1, (int)(4 * q), 2, 0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "full";

	if (strcmp(mode, "full") && strcmp(mode, "contig") && strcmp(mode, "again")) {
		fprintf(stderr, "usage: %s DEVICE [full|contig|again]\n", argv[0]);
		return 2;
	}
	dp_open(argc, argv);
	diag("mode %s; max_srq_sge %d", mode, dp.attr.max_srq_sge);
	if (!strcmp(mode, "full")) {
		test_rc("RC", (uint32_t)dp.attr.max_qp_wr, (uint32_t)dp.attr.max_sge,
			dp.attr.max_cqe, 2, 1);
		test_srq();
		test_ud_ts();
		test_resize();
	} else if (!strcmp(mode, "contig")) {
		test_contig();
	} else {
		test_rc("again", (uint32_t)dp.attr.max_qp_wr,
			(uint32_t)dp.attr.max_sge, dp.attr.max_cqe, 1, 0);
	}
	return dp_close();
}
