// SPDX-License-Identifier: GPL-2.0-only
/*
 * A hostile process against the queues liborca maps into it:
 *
 *   ring_fuzz -d DEVICE -n ROUNDS -m SEED
 *
 * Each round makes a victim CQ and an RC QP pair on it, finds the new
 * uverbs mappings of the CQ and of the sending QP (rings, then one page of
 * doorbell records: uapi/rdma/orca-abi.h, as ev_fatal.c does), and does
 * one thing a PRNG seeded with SEED picks:
 *
 *   lkey   a SEND whose SGE names the canary's MR (lkey and address)
 *   write  an RDMA WRITE into the canary's MR (its rkey and address)
 *   read   an RDMA READ from it
 *   sq     random bytes over the send ring, then posts, and the SQ
 *          record's prod set to random values in between
 *   rq     the same on the receive ring and the RQ record
 *   recs   random bytes over the whole page of doorbell records
 *   cq     random bytes over the CQ's ring and record, then posts that
 *          make the device write CQEs there
 *
 * The canary is a second process, forked first: its own context, PD, MR
 * (a known pattern) and QP pair.  A work request naming its keys must
 * fail (LOC_PROT_ERR for the lkey, REM_ACCESS_ERR for the rkey), never
 * reach its memory.  After every round a bystander RC QP pair of this
 * process, on its own CQ, carries a SEND whose bytes are checked, and the
 * victims are destroyed and must go.  At the end the async events named
 * only victim objects, and the canary finds its MR unchanged and its QP
 * pair working.  The harness adds KASAN, lockdep and kmemleak on the
 * debug kernel; 79-hostile-rings.t compares rdma resource show.
 *
 * This process never polls a CQ it scribbled on: liborca is its own
 * library; the kernel and the device are what is under test.
 */
#include <pthread.h>
#include <sys/wait.h>

#include <rdma/orca-abi.h>

#include "ev_common.h"
#include "uverbs_maps.h"

#define RF_PAGE		4096UL
#define RF_DEPTH	32	/* send and receive WRs of the victims */
#define RF_PATTERN	0xa5

/* What the canary tells the parent about its MR. */
struct rf_canary {
	uint64_t addr;
	uint32_t lkey, rkey;
};

enum { RF_LKEY, RF_WRITE, RF_READ, RF_SQ, RF_RQ, RF_RECS, RF_CQ, RF_KINDS };

static const char *const rf_kind_name[RF_KINDS] = {
	"lkey", "write", "read", "sq", "rq", "recs", "cq",
};

static struct ev_dev d;

/* ---- async events, read by a thread so that destroys never wait ---- */

#define RF_MAX_EVENTS	4096

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	enum ibv_event_type type;
	void *obj;
} events[RF_MAX_EVENTS];
static int nevents;
static volatile int ev_stop;

static void *rf_event_thread(void *arg)
{
	(void)arg;
	while (!ev_stop) {
		struct ibv_async_event ev;

		if (ev_readable(d.ctx->async_fd, 100) <= 0)
			continue;
		if (ibv_get_async_event(d.ctx, &ev))
			continue;
		pthread_mutex_lock(&ev_lock);
		if (nevents < RF_MAX_EVENTS) {
			events[nevents].type = ev.event_type;
			events[nevents].obj = ev.element.qp;
			nevents++;
		}
		pthread_mutex_unlock(&ev_lock);
		ibv_ack_async_event(&ev);
	}
	return NULL;
}

/* ---- the canary process ------------------------------------------- */

static int rf_canary(int ready_fd, int done_fd)
{
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct rf_canary info;
	struct ibv_wc wc[2];
	char c;
	size_t i;

	/* Its diagnostics go to stderr, its result to the exit status. */
	if (!freopen("/dev/null", "w", stdout))
		return 10;
	ev_open(&d);
	memset(d.buf, RF_PATTERN, EV_BUF_SIZE);
	cq = ibv_create_cq(d.ctx, 64, NULL, NULL, 0);
	if (!cq || ev_pair(&d, &a, &b, cq, cq, cq, cq, NULL, 16))
		return 11;
	info.addr = (uintptr_t)d.buf;
	info.lkey = d.mr->lkey;
	info.rkey = d.mr->rkey;
	if (write(ready_fd, &info, sizeof(info)) != sizeof(info))
		return 12;
	if (read(done_fd, &c, 1) != 1)
		return 13;
	for (i = 0; i < EV_BUF_SIZE; i++) {
		if ((uint8_t)d.buf[i] != RF_PATTERN) {
			fprintf(stderr, "canary: byte %zu of the MR changed\n", i);
			return 1;
		}
	}
	/* Its QP pair still carries a message. */
	memset(d.buf, 0x11, EV_MSG_SIZE);
	if (ev_send_recv(&d, a, b, 7, 0) || ev_poll_n(cq, 2, wc, ev_wait_ms) != 2 ||
	    wc[0].status != IBV_WC_SUCCESS || wc[1].status != IBV_WC_SUCCESS) {
		fprintf(stderr, "canary: its SEND did not complete\n");
		return 2;
	}
	if (ibv_destroy_qp(a) || ibv_destroy_qp(b) || ibv_destroy_cq(cq))
		return 3;
	ev_close(&d);
	return 0;
}

/* ---- one round ----------------------------------------------------- */

struct rf_victim {
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct uv_map cq_map, qp_map;
};

static int rf_victim_make(struct rf_victim *v)
{
	struct uv_map before[UV_MAX_MAPS], after[UV_MAX_MAPS];
	const struct uv_map *m;
	int nb;

	memset(v, 0, sizeof(*v));
	nb = uv_maps(before);
	v->cq = ibv_create_cq(d.ctx, 64, NULL, NULL, 0);
	m = nb < 0 ? NULL : uv_new_map(before, nb, after, uv_maps(after));
	if (!v->cq || !m)
		return -1;
	v->cq_map = *m;
	v->b = ev_create_rc(&d, v->cq, v->cq, NULL, RF_DEPTH);
	nb = uv_maps(before);
	v->a = ev_create_rc(&d, v->cq, v->cq, NULL, RF_DEPTH);
	m = nb < 0 ? NULL : uv_new_map(before, nb, after, uv_maps(after));
	if (!v->a || !v->b || !m)
		return -1;
	v->qp_map = *m;
	if (ev_connect(&d, v->a, v->b->qp_num) ||
	    ev_connect(&d, v->b, v->a->qp_num))
		return -1;
	return 0;
}

static int rf_victim_destroy(struct rf_victim *v)
{
	int bad = 0;

	if (v->a && ibv_destroy_qp(v->a))
		bad = 1;
	if (v->b && ibv_destroy_qp(v->b))
		bad = 1;
	if (v->cq && ibv_destroy_cq(v->cq))
		bad = 1;
	return bad ? -1 : 0;
}

/* Random bytes over [start, end): a few stretches, or all of it. */
static void rf_scribble(unsigned long start, unsigned long end)
{
	unsigned long len = end - start, off, n, k;
	int stretches = 1 + e2e_rand() % 8;
	uint8_t *p = (uint8_t *)start;

	if (e2e_rand() % 4 == 0) {
		for (k = 0; k < len; k++)
			p[k] = e2e_rand();
		return;
	}
	while (stretches--) {
		off = e2e_rand() % len;
		n = 1 + e2e_rand() % 256;
		for (k = 0; k < n && off + k < len; k++)
			p[off + k] = e2e_rand();
	}
}

static volatile uint32_t *rf_record(const struct uv_map *m, int index,
				    int word)
{
	volatile uint32_t *rec = (volatile uint32_t *)(m->end - RF_PAGE);

	return rec + index * (ORCA_DB_RECORD_SIZE / 4) + word;
}

/* A random producer index: near, far ahead, or behind. */
static uint32_t rf_prod(uint32_t now)
{
	switch (e2e_rand() % 4) {
	case 0:
		return now + 1 + e2e_rand() % RF_DEPTH;
	case 1:
		return now + RF_DEPTH + e2e_rand() % 1000;
	case 2:
		return now - 1 - e2e_rand() % RF_DEPTH;
	default:
		return e2e_rand();
	}
}

/* Post a few SENDs and receives on the victims; errors are expected. */
static void rf_posts(struct rf_victim *v)
{
	int i, n = 1 + e2e_rand() % 4;

	for (i = 0; i < n; i++) {
		ev_post_recv(&d, v->b, 4096, 100 + i);
		ev_post_send(&d, v->a, 0, 200 + i, 0);
	}
}

static int rf_foreign(struct rf_victim *v, const struct rf_canary *c,
		      int kind)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)d.buf, .length = EV_MSG_SIZE,
		.lkey = d.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	enum ibv_wc_status want = IBV_WC_REM_ACCESS_ERR;
	struct ibv_wc wc;
	int n;

	if (kind == RF_LKEY) {
		sge.addr = c->addr;
		sge.lkey = c->lkey;
		wr.opcode = IBV_WR_SEND;
		want = IBV_WC_LOC_PROT_ERR;
		ev_post_recv(&d, v->b, 4096, 9);
	} else {
		wr.opcode = kind == RF_WRITE ? IBV_WR_RDMA_WRITE :
					       IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = c->addr;
		wr.wr.rdma.rkey = c->rkey;
	}
	if (ibv_post_send(v->a, &wr, &bad)) {
		diag("%s: the post failed", rf_kind_name[kind]);
		return -1;
	}
	do {
		n = ev_poll_n(v->cq, 1, &wc, ev_wait_ms);
	} while (n == 1 && wc.qp_num != v->a->qp_num);
	if (n != 1 || wc.wr_id != 1 || wc.status != want) {
		diag("%s with the canary's key: %s (want %s)",
		     rf_kind_name[kind],
		     n == 1 ? ibv_wc_status_str(wc.status) : "no completion",
		     ibv_wc_status_str(want));
		return -1;
	}
	return 0;
}

static void rf_garbage(struct rf_victim *v, int kind)
{
	const struct uv_map *q = &v->qp_map;
	unsigned long sq_end = q->start + RF_DEPTH * 128;
	int i, n = 1 + e2e_rand() % 3;

	for (i = 0; i < n; i++) {
		switch (kind) {
		case RF_SQ:
			rf_scribble(q->start, sq_end);
			rf_posts(v);
			*rf_record(q, 0, 0) = rf_prod(*rf_record(q, 0, 0));
			break;
		case RF_RQ:
			rf_scribble(sq_end, q->end - RF_PAGE);
			rf_posts(v);
			*rf_record(q, 1, 0) = rf_prod(*rf_record(q, 1, 0));
			break;
		case RF_RECS:
			rf_scribble(q->end - RF_PAGE, q->end);
			rf_posts(v);
			break;
		default:
			rf_scribble(v->cq_map.start, v->cq_map.end);
			rf_posts(v);
			break;
		}
	}
	rf_posts(v);
}

/* The bystander pair carries one SEND, its bytes checked. */
static int rf_bystander(struct ibv_qp *a, struct ibv_qp *b, struct ibv_cq *cq,
			uint8_t seed)
{
	struct ibv_wc wc[2];
	int n;

	memset(d.buf, seed, EV_MSG_SIZE);
	memset(d.buf + 8192, 0, EV_MSG_SIZE);
	if (ev_post_recv(&d, b, 8192, 1) || ev_post_send(&d, a, 0, 2, 0))
		return -1;
	n = ev_poll_n(cq, 2, wc, ev_wait_ms);
	if (n != 2 || wc[0].status != IBV_WC_SUCCESS ||
	    wc[1].status != IBV_WC_SUCCESS) {
		diag("bystander: %d completion(s), %s", n,
		     n ? ibv_wc_status_str(wc[0].status) : "none");
		return -1;
	}
	if ((uint8_t)d.buf[8192] != seed ||
	    (uint8_t)d.buf[8192 + EV_MSG_SIZE - 1] != seed) {
		diag("bystander: the message arrived damaged");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int ready[2], done[2], i, rounds, status, kinds[RF_KINDS] = {};
	int bad_rounds = 0, bad_foreign = 0, bad_destroy = 0, bad_events = 0;
	struct ibv_qp *ba, *bb;
	struct ibv_cq *bcq;
	struct rf_canary c;
	pthread_t thread;
	pid_t child;

	ev_parse(argc, argv);
	if (!ev_mode || ev_count < 1)
		ev_usage(argv[0]);
	rounds = (int)ev_count;
	e2e_rng = strtoull(ev_mode, NULL, 0) | 1;

	if (pipe(ready) || pipe(done))
		ev_bail("pipes to the canary");
	fflush(stdout);
	child = fork();
	if (child < 0)
		ev_bail("fork the canary");
	if (child == 0)
		_exit(rf_canary(ready[1], done[0]));
	if (!ok(read(ready[0], &c, sizeof(c)) == sizeof(c),
		"the canary process is ready: its own context, PD, MR and QP pair"))
		ev_bail("no canary");

	ev_open(&d);
	bcq = ibv_create_cq(d.ctx, 64, NULL, NULL, 0);
	if (!ok(bcq && !ev_pair(&d, &ba, &bb, bcq, bcq, bcq, bcq, NULL, 16) &&
		!rf_bystander(ba, bb, bcq, 1),
		"a bystander RC QP pair on its own CQ carries a message"))
		ev_bail("no bystander");
	if (ev_set_nonblock(d.ctx->async_fd) ||
	    pthread_create(&thread, NULL, rf_event_thread, NULL))
		ev_bail("the async event reader");
	diag("seed %s, %d rounds", ev_mode, rounds);

	for (i = 0; i < rounds; i++) {
		struct rf_victim v;
		int kind = e2e_rand() % RF_KINDS;

		if (rf_victim_make(&v)) {
			diag("round %d: cannot make the victims", i);
			bad_rounds++;
			rf_victim_destroy(&v);
			break;
		}
		kinds[kind]++;
		if (kind <= RF_READ) {
			if (rf_foreign(&v, &c, kind))
				bad_foreign++;
		} else {
			rf_garbage(&v, kind);
		}
		if (rf_bystander(ba, bb, bcq, (uint8_t)(i + 2))) {
			diag("round %d (%s): the bystander failed", i,
			     rf_kind_name[kind]);
			bad_rounds++;
			rf_victim_destroy(&v);
			break;
		}
		if (rf_victim_destroy(&v)) {
			diag("round %d (%s): a victim would not go", i,
			     rf_kind_name[kind]);
			bad_destroy++;
		}
	}
	ok(!bad_rounds && i == rounds,
	   "%d of %d rounds (lkey %d, write %d, read %d, sq %d, rq %d, recs %d, cq %d): the bystander pair carried a checked message after each",
	   i, rounds, kinds[RF_LKEY], kinds[RF_WRITE], kinds[RF_READ],
	   kinds[RF_SQ], kinds[RF_RQ], kinds[RF_RECS], kinds[RF_CQ]);
	ok(!bad_foreign,
	   "work requests naming the canary's keys failed: LOC_PROT_ERR for its lkey, REM_ACCESS_ERR for its rkey (%d wrong)",
	   bad_foreign);
	ok(!bad_destroy, "every victim CQ and QP was destroyed (%d would not go)",
	   bad_destroy);

	ev_stop = 1;
	pthread_join(thread, NULL);
	for (i = 0; i < nevents; i++) {
		if (events[i].type == IBV_EVENT_DEVICE_FATAL ||
		    events[i].obj == ba || events[i].obj == bb ||
		    events[i].obj == bcq) {
			diag("async event %s on a bystander or the device",
			     ibv_event_type_str(events[i].type));
			bad_events++;
		}
	}
	ok(!bad_events, "%d async events, all on victim objects", nevents);

	if (write(done[1], "x", 1) != 1 || waitpid(child, &status, 0) != child)
		status = -1;
	ok(status == 0,
	   "the canary process: its MR unchanged, its QP pair still carries a message (status 0x%x)",
	   status);

	ibv_destroy_qp(ba);
	ibv_destroy_qp(bb);
	ibv_destroy_cq(bcq);
	ev_close(&d);
	return tap_end();
}
