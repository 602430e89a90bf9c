// SPDX-License-Identifier: GPL-2.0-only
/*
 * wire_srq DEV_A GID_A DEV_B GID_B: multi-packet SENDs from two RC QPs of
 * A to two RC QPs of B that share one SRQ (tests/e2e/300-wire-veth.t).
 *
 * Each of A's QPs posts WS_MSGS SENDs of WS_LEN bytes (1024 packets at a
 * 1024-byte path MTU, more than a requester sends before it waits for an
 * ACK), alternately, all at once, so the packets of the two QPs'
 * messages interleave on the wire.  A receive WQE of the SRQ
 * belongs to one message from the moment its first packet needs it: every
 * receive must hold exactly the message its completion names (the k-th
 * completion of a QP holds that QP's k-th SEND, byte for byte), each of
 * B's receive WQEs completes once, and each QP's messages complete in
 * order.
 *
 * Plain libibverbs: passes on any correct RoCE device pair.
 */
#include <stdint.h>
#include <time.h>

#include "e2e_tap.h"
#include "wire_common.h"

#define WS_QPS		2
#define WS_MSGS		2
#define WS_LEN		(1 << 20)
#define WS_NRECV	(WS_QPS * WS_MSGS)
#define WS_BUF		((size_t)WS_NRECV * WS_LEN)
#define WS_TIMEOUT_MS	120000

struct ws_end {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;		/* B only */
	struct ibv_qp *qp[WS_QPS];
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	int gidx;
};

/* The seed of QP @q's SEND @k. */
static uint32_t ws_seed(int q, int k)
{
	return 1000U * (uint32_t)(q + 1) + (uint32_t)k;
}

static int ws_open(struct ws_end *e, int with_srq)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = WS_NRECV, .max_sge = 1 },
	};
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = WS_MSGS, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int q;

	e->ctx = open_by_name(e->name);
	if (!e->ctx || ibv_query_gid(e->ctx, 1, e->gidx, &e->gid))
		return -1;
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = e->pd ? ibv_create_cq(e->ctx, 2 * WS_NRECV, NULL, NULL, 0) :
			NULL;
	if (!e->cq)
		return -1;
	if (with_srq) {
		e->srq = ibv_create_srq(e->pd, &sa);
		if (!e->srq)
			return -1;
		qa.srq = e->srq;
		qa.cap.max_recv_wr = 0;
	}
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	for (q = 0; q < WS_QPS; q++) {
		e->qp[q] = ibv_create_qp(e->pd, &qa);
		if (!e->qp[q])
			return -1;
	}
	if (posix_memalign((void **)&e->buf, 4096, WS_BUF))
		return -1;
	memset(e->buf, 0, WS_BUF);
	e->mr = ibv_reg_mr(e->pd, e->buf, WS_BUF, IBV_ACCESS_LOCAL_WRITE);
	return e->mr ? 0 : -1;
}

static int ws_connect(struct ibv_qp *qp, const struct ws_end *e,
		      const struct ws_end *peer, struct ibv_qp *peer_qp)
{
	return wire_rc_connect(qp, 0, e->gidx, &peer->gid, peer_qp->qp_num);
}

/* B: every receive WQE, wr_id its slot in B's buffer. */
static int ws_post_recvs(struct ws_end *b)
{
	int i;

	for (i = 0; i < WS_NRECV; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)b->buf + (size_t)i * WS_LEN,
			.length = WS_LEN,
			.lkey = b->mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = (uint64_t)i,
			.sg_list = &sge,
			.num_sge = 1,
		}, *bad;

		if (ibv_post_srq_recv(b->srq, &wr, &bad))
			return -1;
	}
	return 0;
}

/* A: SEND k of each QP from its own slot, the QPs taking turns. */
static int ws_post_sends(struct ws_end *a)
{
	size_t slot, i;
	int k, q;

	for (slot = 0; slot < WS_NRECV; slot++)
		for (i = 0; i < WS_LEN; i++)
			a->buf[slot * WS_LEN + i] =
				wire_pat(ws_seed((int)(slot / WS_MSGS),
					       (int)(slot % WS_MSGS)), i);
	for (k = 0; k < WS_MSGS; k++) {
		for (q = 0; q < WS_QPS; q++) {
			struct ibv_sge sge = {
				.length = WS_LEN,
				.lkey = a->mr->lkey,
			};
			struct ibv_send_wr wr = {
				.sg_list = &sge,
				.num_sge = 1,
				.opcode = IBV_WR_SEND,
				.send_flags = IBV_SEND_SIGNALED,
			}, *bad;

			slot = (size_t)q * WS_MSGS + (size_t)k;
			sge.addr = (uintptr_t)a->buf + slot * WS_LEN;
			wr.wr_id = slot;
			if (ibv_post_send(a->qp[q], &wr, &bad))
				return -1;
		}
	}
	return 0;
}

/* Poll @n successful completions of @opcode from @e into @wc. */
static int ws_poll(struct ws_end *e, struct ibv_wc *wc, int n,
		   enum ibv_wc_opcode opcode)
{
	long deadline = wire_now_ms() + WS_TIMEOUT_MS;
	int got = 0, r;

	while (got < n) {
		r = ibv_poll_cq(e->cq, n - got, wc + got);
		if (r < 0) {
			diag("ibv_poll_cq on %s failed", e->name);
			return -1;
		}
		for (; r > 0; r--, got++) {
			if (wc[got].status != IBV_WC_SUCCESS ||
			    wc[got].opcode != opcode) {
				diag("%s: completion %d is %s, opcode %d (want %d)",
				     e->name, got,
				     ibv_wc_status_str(wc[got].status),
				     wc[got].opcode, opcode);
				return -1;
			}
		}
		if (got < n && wire_now_ms() > deadline) {
			diag("%s: %d of %d completions in %d ms", e->name, got,
			     n, WS_TIMEOUT_MS);
			return -1;
		}
	}
	return 0;
}

/* Check B's receives; the number of messages found intact. */
static int ws_check(const struct ws_end *b, const struct ibv_wc *wc)
{
	int seen[WS_NRECV] = { 0 }, next[WS_QPS] = { 0 };
	int i, q, intact = 0;

	for (i = 0; i < WS_NRECV; i++) {
		const uint8_t *p;
		uint64_t slot = wc[i].wr_id;
		size_t j;
		int k;

		for (q = 0; q < WS_QPS; q++)
			if (b->qp[q]->qp_num == wc[i].qp_num)
				break;
		if (q == WS_QPS || slot >= WS_NRECV || seen[slot]++ ||
		    wc[i].byte_len != WS_LEN) {
			diag("receive %d: qp_num %u, wr_id %llu, byte_len %u: not one of B's QPs, an unknown or repeated WQE, or not %u bytes",
			     i, wc[i].qp_num, (unsigned long long)slot,
			     wc[i].byte_len, WS_LEN);
			continue;
		}
		k = next[q]++;
		p = b->buf + slot * WS_LEN;
		for (j = 0; j < WS_LEN; j++)
			if (p[j] != wire_pat(ws_seed(q, k), j))
				break;
		if (j < WS_LEN) {
			diag("receive %d (QP %d's SEND %d, WQE %llu): byte %zu differs",
			     i, q, k, (unsigned long long)slot, j);
			continue;
		}
		intact++;
	}
	return intact;
}

int main(int argc, char **argv)
{
	struct ws_end a = {}, b = {};
	struct ibv_wc wc[WS_NRECV];
	int q, ok_conn = 1, intact = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV_A GID_A DEV_B GID_B\n", argv[0]);
		return 2;
	}
	a.name = argv[1];
	a.gidx = atoi(argv[2]);
	b.name = argv[3];
	b.gidx = atoi(argv[4]);

	if (!ok(!ws_open(&a, 0) && !ws_open(&b, 1),
		"%s: 2 RC QPs; %s: 2 RC QPs on one SRQ of %d receives", a.name,
		b.name, WS_NRECV))
		return 1;
	for (q = 0; q < WS_QPS; q++)
		if (ws_connect(a.qp[q], &a, &b, b.qp[q]) ||
		    ws_connect(b.qp[q], &b, &a, a.qp[q]))
			ok_conn = 0;
	if (!ok(ok_conn, "the QP pairs are connected across the wire (RTS)"))
		return 1;
	if (!ok(!ws_post_recvs(&b) && !ws_post_sends(&a),
		"%d receives of %d bytes posted to the SRQ; %d SENDs of %d bytes posted, the QPs taking turns",
		WS_NRECV, WS_LEN, WS_NRECV, WS_LEN))
		return 1;
	ok(!ws_poll(&a, wc, WS_NRECV, IBV_WC_SEND),
	   "A: every SEND completed successfully");
	if (ok(!ws_poll(&b, wc, WS_NRECV, IBV_WC_RECV),
	       "B: every receive completed successfully"))
		intact = ws_check(&b, wc);
	ok(intact == WS_NRECV,
	   "%d of %d receives hold their QP's SEND in order, byte for byte, each WQE used once",
	   intact, WS_NRECV);

	for (q = 0; q < WS_QPS; q++) {
		ibv_destroy_qp(a.qp[q]);
		ibv_destroy_qp(b.qp[q]);
	}
	ibv_destroy_srq(b.srq);
	ibv_dereg_mr(a.mr);
	ibv_dereg_mr(b.mr);
	ibv_destroy_cq(a.cq);
	ibv_destroy_cq(b.cq);
	ibv_dealloc_pd(a.pd);
	ibv_dealloc_pd(b.pd);
	ibv_close_device(a.ctx);
	ibv_close_device(b.ctx);
	free(a.buf);
	free(b.buf);
	(void)tap_start;
	return tap_end();
}
