// SPDX-License-Identifier: GPL-2.0-only
/*
 * Independent QPs of one device driven at the same time: 4 threads, each
 * with its own RC pair (a, b) on the local fast path, run ROUNDS rounds of
 *
 *   a: ATOMIC_FETCH_ADD 1 on one word all threads share,
 *   a -> b: a SEND,
 *   b -> a of the next thread's pair: a SEND, which that thread receives;
 *      so two threads kick the two QPs of one pair at the same time,
 *   a: RDMA WRITE of 256 bytes into b's buffer, then RDMA READ of it back.
 *
 * Every completion must be a success with the right wr_id and opcode,
 * every payload intact; the shared word must end at 4 x ROUNDS, and the
 * values the fetch-and-adds returned must be 0 .. 4 x ROUNDS - 1, each
 * once: an atomic that is not atomic against another QP's (on another
 * CPU) loses an increment or returns a value twice.
 *
 * Then 4 threads again, each with an RC pair whose b takes its receives
 * from one SRQ that all four b's share, ROUNDS rounds of a SEND a -> b
 * and one b -> a (so that both QPs of a pair receive, and their kicks
 * run in the posting threads at once).  The SRQ holds 4 x ROUNDS + 64
 * WQEs, each with its own buffer, and its limit is armed at 65: each of
 * the first 4 x ROUNDS WQEs must complete exactly once, with the
 * payload of the SEND that took it, and SRQ_LIMIT_REACHED must come
 * once, with the last message.  Two QPs that took one WQE would
 * complete it twice and leave one of the others.
 *
 * Then 4 threads, each with a UD QP, send ROUNDS datagrams each (one at
 * a time) to one UD QP they all share, whose receives are all posted
 * first: the lanes of the four senders want that QP at once (while their
 * kicks run in their threads: with orca_soft's inline_kicks=2, or before
 * the engine thread takes steady posters over), and a datagram that
 * finds it busy is left to the engine, which must still deliver it.
 * Each datagram must arrive exactly once, intact, each sender's in the
 * order it sent them, and the receives must complete in the order they
 * were posted.
 * Prints TAP.  Usage: dp_parallel DEVICE [ROUNDS [ud]]  (1 to 1000;
 * 1000; ud: the UD phase only)
 */
#include <pthread.h>

#include "dp_common.h"

#define NTHREADS	4
#define MAX_ROUNDS	1000
#define MSG		64
#define RDMA_LEN	256

struct worker {
	int t;
	struct dp_pair p;
	struct dp_buf abuf, bbuf;	/* a's and b's buffers, 4 KiB each */
	uint64_t *fetched;		/* the values the adds returned */
	int rounds_ok;
	char err[256];
};

static struct worker w[NTHREADS];
static struct dp_buf word;		/* the shared 8-byte counter */
static int rounds = MAX_ROUNDS;

/* The SRQ phase: the shared SRQ, its WQEs' buffers, each WQE's uses. */
#define SRQ_SPARE	64
static struct ibv_srq *srq;
static struct dp_buf slots;		/* MSG bytes per SRQ WQE */
static int nslots;
static int *slot_used;

/* Buffer layout of each end: [0, 64) receive, [64, 128) send, then RDMA. */
#define RX_OFF		0
#define TX_OFF		64
#define WR_OFF		128
#define RD_OFF		(WR_OFF + RDMA_LEN)
#define ATOM_OFF	(RD_OFF + RDMA_LEN)

static void sge_of(struct ibv_sge *s, struct dp_buf *b, size_t off,
		   uint32_t len)
{
	s->addr = (uintptr_t)(b->p + off);
	s->length = len;
	s->lkey = b->mr->lkey;
}

/* @n completions from @cq, or 0 with the reason in @k->err. */
static int poll_n(struct worker *k, struct ibv_cq *cq, struct ibv_wc *wc,
		  int n, const char *what)
{
	long deadline = dp_now_ms() + dp_timeout_ms();
	int got = 0, r;

	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0) {
			snprintf(k->err, sizeof(k->err), "%s: poll returned %d",
				 what, r);
			return 0;
		}
		got += r;
		if (!r && dp_now_ms() > deadline) {
			snprintf(k->err, sizeof(k->err),
				 "%s: %d of %d completions after %ld ms", what,
				 got, n, dp_timeout_ms());
			return 0;
		}
	}
	for (r = 0; r < n; r++) {
		if (wc[r].status != IBV_WC_SUCCESS) {
			snprintf(k->err, sizeof(k->err),
				 "%s: wr_id %llu status %s", what,
				 (unsigned long long)wc[r].wr_id,
				 ibv_wc_status_str(wc[r].status));
			return 0;
		}
	}
	return 1;
}

static int post(struct worker *k, struct ibv_qp *qp, uint64_t wr_id,
		enum ibv_wr_opcode op, struct ibv_sge *sge,
		uint64_t raddr, uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .opcode = op, .sg_list = sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	int ret;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 1;
	} else if (op != IBV_WR_SEND) {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	ret = ibv_post_send(qp, &wr, &bad);
	if (ret)
		snprintf(k->err, sizeof(k->err), "post opcode %d: %s", op,
			 strerror(ret));
	return !ret;
}

static int post_rx(struct worker *k, struct ibv_qp *qp, struct dp_buf *b)
{
	struct ibv_recv_wr wr = { .wr_id = 7, .num_sge = 1 }, *bad = NULL;
	struct ibv_sge s;
	int ret;

	sge_of(&s, b, RX_OFF, MSG);
	wr.sg_list = &s;
	ret = ibv_post_recv(qp, &wr, &bad);
	if (ret)
		snprintf(k->err, sizeof(k->err), "post_recv: %s",
			 strerror(ret));
	return !ret;
}

/* The payload thread @t's neighbour sends to thread @t's a in round @r. */
static uint32_t ring_seed(int t, int r)
{
	return 0x40000000U + (uint32_t)(t * MAX_ROUNDS + r);
}

/*
 * One round of thread @k->t on its pair P and on b of the next thread's
 * pair Q (a SEND from Q's b to Q's a, which that thread receives): the
 * thread that kicks Q's a and this one, kicking Q's b, collide on that
 * pair's two QPs.  0 with the reason in @k->err.
 */
static int round_once(struct worker *k, int r)
{
	struct worker *q = &w[(k->t + 1) % NTHREADS];
	struct ibv_qp *a = k->p.a.qp, *b = k->p.b.qp;
	uint32_t seed = (uint32_t)(k->t * MAX_ROUNDS + r);
	uint8_t want[MSG];
	struct ibv_wc wc[4];
	struct ibv_sge s;

	if (!post_rx(k, a, &k->abuf) || !post_rx(k, b, &k->bbuf))
		return 0;
	dp_fill(k->abuf.p + TX_OFF, MSG, seed);
	dp_fill(q->bbuf.p + TX_OFF, MSG, ring_seed(q->t, r));
	dp_fill(k->abuf.p + WR_OFF, RDMA_LEN, seed * 3);
	memset(k->abuf.p + RD_OFF, DP_POISON, RDMA_LEN);

	sge_of(&s, &k->abuf, ATOM_OFF, 8);
	if (!post(k, a, 1, IBV_WR_ATOMIC_FETCH_AND_ADD, &s,
		  (uintptr_t)word.p, word.mr->rkey))
		return 0;
	sge_of(&s, &k->abuf, TX_OFF, MSG);
	if (!post(k, a, 2, IBV_WR_SEND, &s, 0, 0))
		return 0;
	sge_of(&s, &q->bbuf, TX_OFF, MSG);
	if (!post(k, q->p.b.qp, 3, IBV_WR_SEND, &s, 0, 0))
		return 0;
	sge_of(&s, &k->abuf, WR_OFF, RDMA_LEN);
	if (!post(k, a, 4, IBV_WR_RDMA_WRITE, &s,
		  (uintptr_t)(k->bbuf.p + WR_OFF), k->bbuf.mr->rkey))
		return 0;
	sge_of(&s, &k->abuf, RD_OFF, RDMA_LEN);
	if (!post(k, a, 5, IBV_WR_RDMA_READ, &s,
		  (uintptr_t)(k->bbuf.p + WR_OFF), k->bbuf.mr->rkey))
		return 0;

	if (!poll_n(k, k->p.a.scq, wc, 4, "a's sends"))
		return 0;
	if (wc[0].wr_id != 1 || wc[1].wr_id != 2 || wc[2].wr_id != 4 ||
	    wc[3].wr_id != 5) {
		snprintf(k->err, sizeof(k->err),
			 "round %d: a's completions out of order: %llu %llu %llu %llu",
			 r, (unsigned long long)wc[0].wr_id,
			 (unsigned long long)wc[1].wr_id,
			 (unsigned long long)wc[2].wr_id,
			 (unsigned long long)wc[3].wr_id);
		return 0;
	}
	if (!poll_n(k, q->p.b.scq, wc, 1, "the send on the next pair's b") ||
	    !poll_n(k, k->p.b.rcq, wc, 1, "b's receive") ||
	    !poll_n(k, k->p.a.rcq, wc, 1, "a's receive"))
		return 0;
	memcpy(&k->fetched[r], k->abuf.p + ATOM_OFF, 8);
	dp_fill(want, MSG, ring_seed(k->t, r));
	if (!dp_cmp(k->bbuf.p + RX_OFF, k->abuf.p + TX_OFF, MSG, "a -> b") ||
	    !dp_cmp(k->abuf.p + RX_OFF, want, MSG, "b -> a") ||
	    !dp_cmp(k->abuf.p + RD_OFF, k->abuf.p + WR_OFF, RDMA_LEN,
		    "WRITE then READ")) {
		snprintf(k->err, sizeof(k->err), "round %d: a payload differs",
			 r);
		return 0;
	}
	return 1;
}

/* Thread @t's SEND a -> b of round @r in the SRQ phase. */
static uint32_t srq_seed(int t, int r)
{
	return 0x20000000U + (uint32_t)(t * MAX_ROUNDS + r);
}

/*
 * One round of the SRQ phase: a SEND from a, which b takes from the
 * shared SRQ, then one from b, which a takes from its RQ.  0 with the
 * reason in @k->err.
 */
static int srq_round(struct worker *k, int r)
{
	struct ibv_qp *a = k->p.a.qp, *b = k->p.b.qp;
	uint8_t want[MSG];
	struct ibv_wc wc;
	struct ibv_sge s;

	if (!post_rx(k, a, &k->abuf))
		return 0;
	dp_fill(k->abuf.p + TX_OFF, MSG, srq_seed(k->t, r));
	dp_fill(k->bbuf.p + TX_OFF, MSG, ring_seed(k->t, r));
	sge_of(&s, &k->abuf, TX_OFF, MSG);
	if (!post(k, a, 2, IBV_WR_SEND, &s, 0, 0) ||
	    !poll_n(k, k->p.b.rcq, &wc, 1, "b's receive from the SRQ"))
		return 0;
	if (wc.wr_id >= (uint64_t)nslots || wc.byte_len != MSG ||
	    wc.qp_num != b->qp_num || wc.opcode != IBV_WC_RECV) {
		snprintf(k->err, sizeof(k->err),
			 "round %d: SRQ completion wr_id %llu, %u bytes, QP %u, opcode %d",
			 r, (unsigned long long)wc.wr_id, wc.byte_len,
			 wc.qp_num, wc.opcode);
		return 0;
	}
	__atomic_add_fetch(&slot_used[wc.wr_id], 1, __ATOMIC_RELAXED);
	dp_fill(want, MSG, srq_seed(k->t, r));
	if (!dp_cmp(slots.p + wc.wr_id * MSG, want, MSG, "a -> b (SRQ)")) {
		snprintf(k->err, sizeof(k->err),
			 "round %d: SRQ WQE %llu holds another payload", r,
			 (unsigned long long)wc.wr_id);
		return 0;
	}
	sge_of(&s, &k->bbuf, TX_OFF, MSG);
	if (!post(k, b, 3, IBV_WR_SEND, &s, 0, 0) ||
	    !poll_n(k, k->p.a.scq, &wc, 1, "a's send") ||
	    !poll_n(k, k->p.b.scq, &wc, 1, "b's send") ||
	    !poll_n(k, k->p.a.rcq, &wc, 1, "a's receive"))
		return 0;
	if (!dp_cmp(k->abuf.p + RX_OFF, k->bbuf.p + TX_OFF, MSG, "b -> a")) {
		snprintf(k->err, sizeof(k->err), "round %d: b -> a differs",
			 r);
		return 0;
	}
	return 1;
}

/* The UD phase: the QP all threads send to, its receive buffers. */
#define UD_MSG		64
#define UD_SLOT		(DP_GRH + UD_MSG)
static struct dp_end ud_sink;
static struct dp_buf ud_rx;

/* A datagram's payload: its sender and round, then a pattern of them. */
static void ud_payload(uint8_t *p, int t, int r)
{
	uint32_t id[2] = { (uint32_t)t, (uint32_t)r };

	memcpy(p, id, sizeof(id));
	dp_fill(p + sizeof(id), UD_MSG - sizeof(id),
		0x60000000U + (uint32_t)(t * MAX_ROUNDS + r));
}

/* One round of the UD phase: a datagram from a to the shared QP. */
static int ud_round(struct worker *k, int r)
{
	struct ibv_send_wr wr = {
		.wr_id = r, .opcode = IBV_WR_SEND, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	struct ibv_wc wc;
	struct ibv_sge s;
	int ret;

	ud_payload(k->abuf.p + TX_OFF, k->t, r);
	sge_of(&s, &k->abuf, TX_OFF, UD_MSG);
	wr.sg_list = &s;
	wr.wr.ud.ah = k->p.a.ah;
	wr.wr.ud.remote_qpn = ud_sink.qp->qp_num;
	wr.wr.ud.remote_qkey = DP_QKEY;
	ret = ibv_post_send(k->p.a.qp, &wr, &bad);
	if (ret) {
		snprintf(k->err, sizeof(k->err), "round %d: post: %s", r,
			 strerror(ret));
		return 0;
	}
	return poll_n(k, k->p.a.scq, &wc, 1, "a's datagram");
}

/* The round the phase's threads run: round_once() or srq_round(). */
static int (*phase_round)(struct worker *k, int r);

static void *worker_main(void *arg)
{
	struct worker *k = arg;
	int r;

	for (r = 0; r < rounds; r++) {
		if (!phase_round(k, r))
			break;
		k->rounds_ok++;
	}
	return NULL;
}

/*
 * The NTHREADS RC pairs of a phase per @cfg (b on @srq if not NULL),
 * each end with a 4 KiB buffer of access @acc; the number made.
 */
static int workers_make(const struct dp_qp_cfg *cfg, struct ibv_srq *srq,
			int acc)
{
	int t;

	for (t = 0; t < NTHREADS; t++) {
		struct worker *k = &w[t];

		k->t = t;
		if (dp_pair_make2(&k->p, cfg, srq) ||
		    dp_buf_alloc(&k->abuf, dp.pd, 4096, acc) ||
		    dp_buf_alloc(&k->bbuf, dp.pd, 4096, acc))
			break;
	}
	return t;
}

/*
 * A thread per worker running ROUNDS rounds of @fn, joined; one point
 * that they all started and one per thread that it ran every round
 * (@what, the round).  The number of threads that ran.
 */
static int workers_run(int (*fn)(struct worker *k, int r), const char *what)
{
	pthread_t tid[NTHREADS];
	int t, made;

	phase_round = fn;
	for (t = 0; t < NTHREADS; t++)
		if (pthread_create(&tid[t], NULL, worker_main, &w[t]))
			break;
	made = t;
	for (t = 0; t < made; t++)
		pthread_join(tid[t], NULL);
	ok(made == NTHREADS, "%d threads started", NTHREADS);
	for (t = 0; t < made; t++)
		if (!ok(w[t].rounds_ok == rounds,
			"thread %d: %d rounds of %s, all intact", t, rounds,
			what))
			diag("thread %d stopped after %d rounds: %s", t,
			     w[t].rounds_ok, w[t].err);
	return made;
}

/* Destroy what workers_make() made, whatever it got to. */
static void workers_free(void)
{
	int t;

	for (t = 0; t < NTHREADS; t++) {
		dp_pair_destroy(&w[t].p);
		dp_buf_free(&w[t].abuf);
		dp_buf_free(&w[t].bbuf);
	}
}

/* The SRQ phase (the head comment).  @acc: the buffers' access. */
static void srq_phase(int acc)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_sge = 1 } };
	struct ibv_srq_attr lim = { .srq_limit = SRQ_SPARE + 1 };
	int made, bad = 0, i, used = 0;
	struct dp_qp_cfg cfg;
	struct ibv_sge s;

	nslots = NTHREADS * rounds + SRQ_SPARE;
	sa.attr.max_wr = nslots;
	memset(w, 0, sizeof(w));
	slot_used = calloc(nslots, sizeof(*slot_used));
	srq = ibv_create_srq(dp.pd, &sa);
	if (!ok(srq && slot_used &&
		!dp_buf_alloc(&slots, dp.pd, (size_t)nslots * MSG, acc),
		"an SRQ of %d WQEs, each with a buffer of its own", nslots))
		goto out;
	for (i = 0; i < nslots; i++) {
		sge_of(&s, &slots, (size_t)i * MSG, MSG);
		if (dp_post_srq_recv(srq, i, &s, 1))
			break;
	}
	if (!ok(i == nslots, "post its %d WQEs", nslots) ||
	    !ok(!ibv_modify_srq(srq, &lim, IBV_SRQ_LIMIT),
		"arm its limit at %d", SRQ_SPARE + 1))
		goto out;
	dp_cfg_default(&cfg, IBV_QPT_RC);
	if (!ok(workers_make(&cfg, srq, acc) == NTHREADS,
		"%d RC pairs, each b on the SRQ", NTHREADS))
		goto out;
	made = workers_run(srq_round,
			   "a SEND into the shared SRQ and one back");
	for (i = 0; i < nslots; i++) {
		if (slot_used[i] > 1 || (!slot_used[i] && i < made * rounds)) {
			if (bad++ < 5)
				diag("SRQ WQE %d completed %d times", i,
				     slot_used[i]);
		}
		used += slot_used[i];
	}
	ok(!bad && used == made * rounds,
	   "each of the SRQ's first %d WQEs completed once (%d completions)",
	   made * rounds, used);
	if (made == NTHREADS) {
		ok(dp_ev_wait(IBV_EVENT_SRQ_LIMIT_REACHED, srq,
			      "the SRQ's limit"),
		   "SRQ_LIMIT_REACHED when %d WQEs were left", SRQ_SPARE);
		dp_ev_collect(0);
		ok(!dp_ev_take(IBV_EVENT_SRQ_LIMIT_REACHED, srq),
		   "and only once");
	}
out:
	dp_ev_forget();
	workers_free();
	if (srq)
		ok(!ibv_destroy_srq(srq), "destroy the SRQ");
	dp_buf_free(&slots);
	free(slot_used);
}

/*
 * Check the shared QP's receive completions, one per datagram whose send
 * completed: in the order the receives were posted, each of the @made
 * threads' datagrams once, from its QP, intact, in its sender's order.
 */
static int ud_check(int made)
{
	static int next[NTHREADS];
	struct worker k = { .t = -1 };
	int n = 0, i, t, bad = 0;
	struct ibv_wc *wc;

	for (t = 0; t < made; t++)
		n += w[t].rounds_ok;
	wc = calloc(n ? n : 1, sizeof(*wc));
	if (!wc || !n ||
	    !poll_n(&k, ud_sink.rcq, wc, n, "the shared QP's receives")) {
		diag("%s", !wc ? "out of memory" : !n ? "no datagram sent" :
		     k.err);
		free(wc);
		return 0;
	}
	memset(next, 0, sizeof(next));
	for (i = 0; i < n && bad < 5; i++) {
		uint8_t *p, want[UD_MSG];
		uint32_t id[2];

		if (wc[i].wr_id != (uint64_t)i || wc[i].byte_len != UD_SLOT ||
		    wc[i].opcode != IBV_WC_RECV) {
			diag("receive %d: wr_id %llu, %u bytes, opcode %d", i,
			     (unsigned long long)wc[i].wr_id, wc[i].byte_len,
			     wc[i].opcode);
			bad++;
			continue;
		}
		p = ud_rx.p + wc[i].wr_id * UD_SLOT + DP_GRH;
		memcpy(id, p, sizeof(id));
		if (id[0] >= (uint32_t)made || id[1] != (uint32_t)next[id[0]] ||
		    wc[i].src_qp != w[id[0]].p.a.qp->qp_num) {
			diag("receive %d: datagram %u of thread %u (from QP %u), expected %d",
			     i, id[1], id[0], wc[i].src_qp,
			     id[0] < (uint32_t)made ? next[id[0]] : -1);
			bad++;
			continue;
		}
		ud_payload(want, id[0], id[1]);
		if (memcmp(p, want, UD_MSG)) {
			diag("receive %d: datagram %u of thread %u differs", i,
			     id[1], id[0]);
			bad++;
		}
		next[id[0]]++;
	}
	free(wc);
	return !bad;
}

/* The UD phase (the head comment). */
static void ud_phase(int acc)
{
	struct dp_qp_cfg cfg, scfg;
	int made, i, n = NTHREADS * rounds;
	struct ibv_sge s;

	memset(w, 0, sizeof(w));
	dp_cfg_default(&cfg, IBV_QPT_UD);
	scfg = cfg;
	scfg.max_recv_wr = n;
	scfg.cqe = n;
	if (!ok(!dp_end_create(&ud_sink, &scfg, dp.pd) &&
		!dp_end_connect(&ud_sink, &scfg, 0, IBV_QPS_RTS) &&
		!dp_buf_alloc(&ud_rx, dp.pd, (size_t)n * UD_SLOT, acc),
		"a UD QP with %d receives' room, and their buffers", n))
		goto out;
	for (i = 0; i < n; i++) {
		sge_of(&s, &ud_rx, (size_t)i * UD_SLOT, UD_SLOT);
		if (dp_post_recv(ud_sink.qp, i, &s, 1))
			break;
	}
	if (!ok(i == n, "post its %d receives", n) ||
	    !ok(workers_make(&cfg, NULL, acc) == NTHREADS,
		"%d UD pairs, each a sending to the shared QP", NTHREADS))
		goto out;
	made = workers_run(ud_round, "a datagram to the shared UD QP");
	ok(ud_check(made),
	   "the shared QP's receives complete in order, each of the %d datagrams once, intact, each sender's in order",
	   made * rounds);
out:
	workers_free();
	dp_end_destroy(&ud_sink);
	dp_buf_free(&ud_rx);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

int main(int argc, char **argv)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	static uint64_t all[NTHREADS * MAX_ROUNDS];
	struct dp_qp_cfg cfg;
	int t, made, i, once = 1;
	uint64_t total;

	if (argc > 2)
		rounds = atoi(argv[2]);
	if (rounds < 1 || rounds > MAX_ROUNDS ||
	    (argc > 3 && strcmp(argv[3], "ud"))) {
		fprintf(stderr, "usage: dp_parallel DEVICE [ROUNDS 1..%d [ud]]\n",
			MAX_ROUNDS);
		return 2;
	}
	dp_open(argc, argv);
	if (argc > 3) {
		ud_phase(acc);
		return dp_close();
	}
	if (dp.attr.atomic_cap == IBV_ATOMIC_NONE) {
		ok(0, "the device has atomics (atomic_cap %d)",
		   dp.attr.atomic_cap);
		return dp_close();
	}
	dp_cfg_default(&cfg, IBV_QPT_RC);
	if (!ok(!dp_buf_alloc(&word, dp.pd, 4096, acc), "the shared word"))
		return dp_close();
	memset(word.p, 0, 8);
	for (t = 0; t < NTHREADS; t++)
		w[t].fetched = &all[t * rounds];
	if (!ok(workers_make(&cfg, NULL, acc) == NTHREADS,
		"%d RC pairs with their buffers", NTHREADS))
		goto out;
	made = workers_run(round_once,
			   "FETCH_ADD, SEND both ways, WRITE and READ");
	memcpy(&total, word.p, 8);
	ok(total == (uint64_t)made * rounds,
	   "the shared word counts every fetch-and-add (%llu, want %llu)",
	   (unsigned long long)total, (unsigned long long)made * rounds);
	if (made == NTHREADS) {
		for (t = 0; t < NTHREADS; t++)
			if (w[t].rounds_ok != rounds)
				once = 0;
		qsort(all, NTHREADS * rounds, sizeof(all[0]), cmp_u64);
		for (i = 0; once && i < NTHREADS * rounds; i++) {
			if (all[i] != (uint64_t)i) {
				diag("sorted value %d is %llu", i,
				     (unsigned long long)all[i]);
				once = 0;
			}
		}
		ok(once, "the fetch-and-adds returned 0 .. %d, each once",
		   NTHREADS * rounds - 1);
	}
out:
	workers_free();
	dp_buf_free(&word);
	srq_phase(acc);
	ud_phase(acc);
	return dp_close();
}
