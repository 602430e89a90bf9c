// SPDX-License-Identifier: GPL-2.0-only
/*
 * libibverbs' thread-safety rule on the data path: several threads post
 * to one QP at the same time.  Phase 1: 4 threads each post 600 SENDs
 * (single WRs and lists of 2, sizes varying) to one RC QP while the main
 * thread polls both CQs and reposts receives; every send completes once,
 * in each thread's order, and every message arrives intact and in each
 * thread's order.  Phase 2: 4 threads post receives to one RQ at the
 * same time; each is consumed exactly once.
 * Prints TAP.  Usage: dp_threads DEVICE
 */
#include <pthread.h>

#include "dp_common.h"

#define NTHREADS	4
#define PER_THREAD	600
#define WINDOW		16		/* outstanding SENDs per thread */
#define SLOT		4096
#define NRECV		256
#define MAXLEN		(SLOT - 64)

static struct dp_pair p;
static struct dp_buf abuf, bbuf;
static int outstanding[NTHREADS];	/* SENDs posted, not yet completed */
static int post_errors;
static volatile int stop;

static uint32_t msg_len(int t, int seq)
{
	return 8 + (uint32_t)(seq * 37 + t * 101) % (MAXLEN - 8);
}

static uint64_t wr_id_of(int t, int seq)
{
	return ((uint64_t)t << 32) | (uint32_t)seq;
}

/* Message @seq of thread @t into @dst: an 8-byte header, then pattern. */
static void make_msg(uint8_t *dst, int t, int seq)
{
	uint32_t len = msg_len(t, seq), hdr[2] = { t, seq };

	memcpy(dst, hdr, 8);
	dp_fill(dst + 8, len - 8, (uint32_t)wr_id_of(t, seq) ^ 0x5bd1e995U);
}

static void *poster(void *arg)
{
	int t = (int)(long)arg, seq = 0;
	uint8_t *base = abuf.p + (size_t)t * WINDOW * SLOT;

	while (seq < PER_THREAD && !stop) {
		struct ibv_send_wr wr[2], *bad;
		struct ibv_sge sge[2];
		int n = (seq % 3 == 2 && seq + 1 < PER_THREAD) ? 2 : 1, i, ret;

		/* Wait for room: WR seq - WINDOW has completed then. */
		while (__atomic_load_n(&outstanding[t], __ATOMIC_ACQUIRE) > WINDOW - n && !stop)
			sched_yield();
		memset(wr, 0, sizeof(wr));
		for (i = 0; i < n; i++) {
			uint8_t *src = base + (size_t)((seq + i) % WINDOW) * SLOT;

			make_msg(src, t, seq + i);
			sge[i] = (struct ibv_sge){ (uintptr_t)src, msg_len(t, seq + i),
						   abuf.mr->lkey };
			wr[i].wr_id = wr_id_of(t, seq + i);
			wr[i].sg_list = &sge[i];
			wr[i].num_sge = 1;
			wr[i].opcode = IBV_WR_SEND;
			wr[i].send_flags = IBV_SEND_SIGNALED;
			wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		}
		__atomic_add_fetch(&outstanding[t], n, __ATOMIC_ACQ_REL);
		ret = ibv_post_send(p.a.qp, wr, &bad);
		if (ret) {
			fprintf(stdout, "# thread %d: ibv_post_send: %s\n", t, strerror(ret));
			__atomic_add_fetch(&post_errors, 1, __ATOMIC_RELAXED);
			stop = 1;
			break;
		}
		seq += n;
	}
	return NULL;
}

static void phase_sends(void)
{
	pthread_t th[NTHREADS];
	int next_recv[NTHREADS] = { 0 }, next_send[NTHREADS] = { 0 };
	int bad_payload = 0, bad_order = 0, bad_status = 0, i;
	int nsend = 0, nrecv = 0, total = NTHREADS * PER_THREAD;
	long last_progress = dp_now_ms();
	uint8_t *want = malloc(SLOT);

	for (i = 0; i < NRECV; i++) {
		struct ibv_sge s = { (uintptr_t)bbuf.p + (size_t)i * SLOT, SLOT, bbuf.mr->lkey };

		if (dp_post_recv(p.b.qp, i, &s, 1))
			break;
	}
	if (!ok(i == NRECV, "post %d receives", NRECV))
		return;
	for (i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, poster, (void *)(long)i);

	while (nsend < total || nrecv < total) {
		struct ibv_wc wc[32];
		int n, k;

		n = ibv_poll_cq(p.b.rcq, 32, wc);
		for (k = 0; k < n; k++) {
			uint8_t *slot = bbuf.p + (size_t)wc[k].wr_id * SLOT;
			uint32_t hdr[2];
			struct ibv_sge s = { (uintptr_t)slot, SLOT, bbuf.mr->lkey };

			nrecv++;
			if (wc[k].status != IBV_WC_SUCCESS || wc[k].wr_id >= NRECV) {
				if (bad_status++ < 5)
					dp_wc_diag("receive", &wc[k]);
				continue;
			}
			memcpy(hdr, slot, 8);
			if (hdr[0] >= NTHREADS || hdr[1] >= PER_THREAD ||
			    wc[k].byte_len != msg_len(hdr[0], hdr[1])) {
				if (bad_payload++ < 5)
					diag("receive: header thread %u seq %u, byte_len %u",
					     hdr[0], hdr[1], wc[k].byte_len);
			} else {
				if ((int)hdr[1] != next_recv[hdr[0]] && bad_order++ < 5)
					diag("thread %u: message %u arrived, expected %d",
					     hdr[0], hdr[1], next_recv[hdr[0]]);
				next_recv[hdr[0]] = hdr[1] + 1;
				make_msg(want, hdr[0], hdr[1]);
				if (!dp_cmp(slot, want, wc[k].byte_len, "message"))
					bad_payload++;
			}
			memset(slot, DP_POISON, 16);
			dp_post_recv(p.b.qp, wc[k].wr_id, &s, 1);
		}
		if (n)
			last_progress = dp_now_ms();

		n = ibv_poll_cq(p.a.scq, 32, wc);
		for (k = 0; k < n; k++) {
			int t = (int)(wc[k].wr_id >> 32), seq = (int)(uint32_t)wc[k].wr_id;

			nsend++;
			if (wc[k].status != IBV_WC_SUCCESS || t >= NTHREADS) {
				if (bad_status++ < 5)
					dp_wc_diag("send", &wc[k]);
				continue;
			}
			if (seq != next_send[t] && bad_order++ < 5)
				diag("thread %d: send %d completed, expected %d", t, seq,
				     next_send[t]);
			next_send[t] = seq + 1;
			__atomic_sub_fetch(&outstanding[t], 1, __ATOMIC_ACQ_REL);
		}
		if (n)
			last_progress = dp_now_ms();
		if (stop || dp_now_ms() - last_progress > dp_timeout_ms()) {
			diag("no progress: %d of %d send and %d receive completions", nsend,
			     total, nrecv);
			stop = 1;
			break;
		}
	}
	stop = 1;
	for (i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	ok(!post_errors && nsend == total && nrecv == total,
	   "%d threads x %d SENDs to one RC QP: %d send and %d receive completions, "
	   "no post failed", NTHREADS, PER_THREAD, nsend, nrecv);
	ok(!bad_status, "every completion succeeded (%d did not)", bad_status);
	ok(!bad_order, "send completions and messages in each thread's posting order");
	ok(!bad_payload, "every message intact (byte_len, header, pattern)");
	ok(dp_cq_empty(p.a.scq, "send CQ") && dp_cq_empty(p.b.rcq, "recv CQ"),
	   "no extra completion");
	free(want);
}

/* Phase 2: receives posted to one RQ by several threads at once. */
#define RECV_PER_THREAD 40

static void *recv_poster(void *arg)
{
	int t = (int)(long)arg, i;

	for (i = 0; i < RECV_PER_THREAD; i++) {
		struct ibv_sge s = { (uintptr_t)bbuf.p + (size_t)(t * RECV_PER_THREAD + i) * 64,
				     64, bbuf.mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = wr_id_of(t, i), .sg_list = &s, .num_sge = 1 };
		struct ibv_recv_wr *bad;

		if (ibv_post_recv(p.b.qp, &wr, &bad))
			__atomic_add_fetch(&post_errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void phase_recvs(void)
{
	int total = NTHREADS * RECV_PER_THREAD, i, got, dup = 0, bad = 0;
	static struct ibv_wc wc[NTHREADS * RECV_PER_THREAD];
	char seen[NTHREADS][RECV_PER_THREAD] = { { 0 } };
	int last[NTHREADS];
	pthread_t th[NTHREADS];

	post_errors = 0;
	for (i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, recv_poster, (void *)(long)i);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	ok(!post_errors, "%d threads post %d receives each to one RQ at once", NTHREADS,
	   RECV_PER_THREAD);
	for (i = 0; i < total; i++) {
		struct ibv_sge s = { (uintptr_t)abuf.p, 8, abuf.mr->lkey };
		struct ibv_send_wr w = { .wr_id = i, .sg_list = &s, .num_sge = 1,
					 .opcode = IBV_WR_SEND };

		if (i % 32 == 31)
			w.send_flags = IBV_SEND_SIGNALED;
		if (dp_post_send(p.a.qp, &w))
			break;
		if (i % 32 == 31 && dp_poll(p.a.scq, wc, 1, "send") != 1)
			break;
	}
	got = dp_poll(p.b.rcq, wc, total, "receives");
	for (i = 0; i < NTHREADS; i++)
		last[i] = -1;
	for (i = 0; i < got; i++) {
		int t = (int)(wc[i].wr_id >> 32), k = (int)(uint32_t)wc[i].wr_id;

		if (wc[i].status != IBV_WC_SUCCESS || t >= NTHREADS || k >= RECV_PER_THREAD) {
			bad++;
			continue;
		}
		if (seen[t][k]++)
			dup++;
		if (k <= last[t])
			bad++;
		last[t] = k;
	}
	ok(got == total && !dup && !bad,
	   "%d messages consume each of the %d receives once, each thread's in its order "
	   "(%d completions, %d duplicates, %d bad)", total, total, got, dup, bad);
}

/*
 * Phase 3: 6 RC pairs whose 12 QPs all use one CQ (send and receive),
 * one thread posting to each requester at once; the completions of the
 * shared CQ are sorted out by qp_num.
 */
#define NPAIRS		6
#define PAIR_MSGS	300
#define PMSG		32

static struct ibv_cq *shared_cq;
static struct dp_end ends[NPAIRS][2];

static void *pair_poster(void *arg)
{
	int k = (int)(long)arg, i;
	struct ibv_send_wr *bad;

	for (i = 0; i < PAIR_MSGS; i++) {
		uint8_t *m = abuf.p + ((size_t)k * PAIR_MSGS + i) * PMSG;
		struct ibv_sge s = { (uintptr_t)m, PMSG, abuf.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = wr_id_of(k, i), .sg_list = &s,
					  .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };

		if (ibv_post_send(ends[k][0].qp, &wr, &bad))
			__atomic_add_fetch(&post_errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void phase_shared_cq(void)
{
	struct dp_qp_cfg c;
	pthread_t th[NPAIRS];
	int next_s[NPAIRS] = { 0 }, next_r[NPAIRS] = { 0 };
	int k, i, j, made = 1, nsend = 0, nrecv = 0, bad = 0;
	int total = NPAIRS * PAIR_MSGS;

	dp_cfg_default(&c, IBV_QPT_RC);
	c.max_send_wr = 512;
	c.max_recv_wr = 512;
	shared_cq = ibv_create_cq(dp.ctx, 4 * total, NULL, NULL, 0);
	if (!ok(shared_cq != NULL, "one CQ of %d entries", 4 * total))
		return;
	memset(ends, 0, sizeof(ends));
	for (k = 0; k < NPAIRS && made; k++) {
		for (j = 0; j < 2 && made; j++) {
			struct ibv_qp_init_attr ia = {
				.send_cq = shared_cq, .recv_cq = shared_cq,
				.qp_type = IBV_QPT_RC,
				.cap = { .max_send_wr = 512, .max_recv_wr = 512,
					 .max_send_sge = 1, .max_recv_sge = 1 },
			};

			ends[k][j].qp = ibv_create_qp(dp.pd, &ia);
			made = ends[k][j].qp != NULL;
		}
	}
	for (k = 0; k < NPAIRS && made; k++)
		made = !dp_end_connect(&ends[k][0], &c, ends[k][1].qp->qp_num, IBV_QPS_RTS) &&
		       !dp_end_connect(&ends[k][1], &c, ends[k][0].qp->qp_num, IBV_QPS_RTS);
	for (k = 0; k < NPAIRS && made; k++) {
		for (i = 0; i < PAIR_MSGS && made; i++) {
			uint32_t hdr[2] = { k, i };
			uint8_t *m = abuf.p + ((size_t)k * PAIR_MSGS + i) * PMSG;
			struct ibv_sge rs = { (uintptr_t)bbuf.p + ((size_t)k * PAIR_MSGS + i) * PMSG,
					      PMSG, bbuf.mr->lkey };

			memcpy(m, hdr, 8);
			dp_fill(m + 8, PMSG - 8, (uint32_t)wr_id_of(k, i));
			made = !dp_post_recv(ends[k][1].qp, wr_id_of(k, i), &rs, 1);
		}
	}
	if (!ok(made, "%d RC pairs on one CQ, connected, %d receives each posted", NPAIRS,
		PAIR_MSGS))
		goto out;
	post_errors = 0;
	for (k = 0; k < NPAIRS; k++)
		pthread_create(&th[k], NULL, pair_poster, (void *)(long)k);
	while (nsend + nrecv < 2 * total) {
		struct ibv_wc wc[32];
		int n = dp_poll(shared_cq, wc, 1, "shared CQ");

		if (n != 1)
			break;
		n += ibv_poll_cq(shared_cq, 31, wc + 1);
		for (j = 0; j < n; j++) {
			int pk = (int)(wc[j].wr_id >> 32), seq = (int)(uint32_t)wc[j].wr_id;
			int side = -1;

			for (k = 0; k < NPAIRS && side < 0; k++) {
				if (wc[j].qp_num == ends[k][0].qp->qp_num)
					side = 0;
				else if (wc[j].qp_num == ends[k][1].qp->qp_num)
					side = 1;
			}
			k--;
			if (side < 0 || pk != k || wc[j].status != IBV_WC_SUCCESS) {
				if (bad++ < 5)
					dp_wc_diag("shared CQ", &wc[j]);
				continue;
			}
			if (side == 0) {
				nsend++;
				if (seq != next_s[k]++ && bad++ < 5)
					diag("pair %d: send %d completed out of order", k, seq);
			} else {
				uint8_t *m = bbuf.p + ((size_t)k * PAIR_MSGS + seq) * PMSG;

				nrecv++;
				if ((seq != next_r[k]++ || wc[j].opcode != IBV_WC_RECV ||
				     wc[j].byte_len != PMSG ||
				     memcmp(m, abuf.p + ((size_t)k * PAIR_MSGS + seq) * PMSG,
					    PMSG)) && bad++ < 5)
					diag("pair %d: receive %d out of order or wrong", k, seq);
			}
		}
	}
	for (k = 0; k < NPAIRS; k++)
		pthread_join(th[k], NULL);
	ok(!post_errors && nsend == total && nrecv == total && !bad &&
	   dp_cq_empty(shared_cq, "shared CQ"),
	   "%d threads x %d SENDs on %d QPs sharing one CQ: %d send and %d receive "
	   "completions, each QP's in order, payloads intact (%d bad)", NPAIRS, PAIR_MSGS,
	   2 * NPAIRS, nsend, nrecv, bad);
out:
	for (k = 0; k < NPAIRS; k++)
		for (j = 0; j < 2; j++)
			if (ends[k][j].qp)
				ibv_destroy_qp(ends[k][j].qp);
	ibv_destroy_cq(shared_cq);
}

int main(int argc, char **argv)
{
	struct dp_qp_cfg c;

	dp_open(argc, argv);
	dp_cfg_default(&c, IBV_QPT_RC);
	c.max_send_wr = NTHREADS * WINDOW + 64;
	c.max_recv_wr = NRECV;
	c.max_send_sge = 1;
	c.max_recv_sge = 1;
	c.cqe = 2048;
	if (!ok(!dp_buf_alloc(&abuf, dp.pd, (size_t)NTHREADS * WINDOW * SLOT, DP_ACC_ALL) &&
		!dp_buf_alloc(&bbuf, dp.pd, (size_t)NRECV * SLOT, DP_ACC_ALL) &&
		!dp_pair_make(&p, &c), "two connected RC QPs and their buffers"))
		return tap_end();
	phase_sends();
	dp_pair_destroy(&p);
	/* A fresh pair: the first one's RQ still holds receives. */
	if (ok(!dp_pair_make(&p, &c), "two new connected RC QPs")) {
		phase_recvs();
		dp_pair_destroy(&p);
	}
	phase_shared_cq();
	dp_buf_free(&abuf);
	dp_buf_free(&bbuf);
	return dp_close();
}
