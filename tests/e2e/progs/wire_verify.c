// SPDX-License-Identifier: GPL-2.0-only
/*
 * wire_verify DEV_A GID_A DEV_B GID_B ITERS: RC traffic between two RDMA
 * devices joined by a wire (tests/e2e/310-wire-lossy.t), every byte
 * checked.
 *
 * One process owns both ends, so neither QP is destroyed before every
 * work request of the other has completed: on a link that loses frames
 * each lost packet or ACK must be recovered by the transport, and a
 * failure cannot come from a peer that went away early (the way
 * ibv_rc_pingpong's client leaves before the ACK of the server's last
 * message).  Each iteration: a SEND each way, an RDMA WRITE and an RDMA
 * READ from A to B, and an atomic fetch-and-add, with message sizes from
 * 1 byte to 64 KiB (64 packets at a 1024-byte path MTU).
 *
 * wire_verify ... ITERS rnr: first an RNR wait longer than the ACK
 * timeout.  B's min_rnr_timer is 0 (655 ms), A's local ACK timeout 14
 * (67 ms) with retry_cnt 3 and rnr_retry 7 (infinite); A sends while B
 * has no receive posted, and B posts one 2 s later.  The SEND must
 * complete: an RNR wait is no ACK wait and spends no retry_cnt, however
 * long it lasts (the ACK timer starts again with the resend).
 *
 * wire_verify ... 0 halt: a WQE that fails locally stops the QP's later
 * WQEs.  B's QP stays in INIT (it drops what A sends) while A posts, in
 * one chain, a WRITE, a WRITE whose SGE has an lkey A does not have, and
 * a WRITE of a marker; B moves to RTR 200 ms later, and A's resend (ACK
 * timeout 18, 1.07 s) lands the first WRITE.  A completes the first WRITE
 * successfully, the second with LOC_PROT_ERR and the third with
 * WR_FLUSH_ERR, and the marker never reaches B: no WQE after a failed one
 * is sent.
 *
 * wire_verify ... 0 sqd: SQD drains the WQEs in progress on the wire.
 * B's QP stays in INIT while A posts a 64 KiB WRITE; once A's port has
 * sent packets (its tx_packets or sent_pkts hardware counter grew: the
 * WRITE is in progress), A moves to SQD with en_sqd_async and posts a
 * second WRITE.  For 300 ms nothing may
 * complete and no SQ_DRAINED may arrive (the first WRITE is not
 * acknowledged); then B moves to RTR, A's resend lands the first WRITE,
 * and SQ_DRAINED follows its completion; the second WRITE has not
 * started (its bytes are not at B) until A is back in RTS, where it
 * completes.
 *
 * wire_verify ... 0 path GID_A_SEEN: A's QP sends from its GID GID_A
 * while B's QP is connected to A's GID GID_A_SEEN, another address of
 * A's port: B must drop what does not come from its QP's path (as rxe
 * does), so A's SEND ends in RETRY_EXC_ERR (retry_cnt 1) and B receives
 * nothing.
 *
 * wire_verify ... 0 naks: responses go out in PSN order, NAKs included.
 * A posts, in one chain, a 64 KiB READ from B (64 responses at the
 * 1024-byte path MTU) and a WRITE with an rkey B does not have.  B's NAK
 * for the WRITE must follow the READ's responses: the READ completes
 * with its data, the WRITE with REM_ACCESS_ERR.  A NAK ahead of the
 * responses would tell A that the READ had been lost, and B, in ERR by
 * then, would never answer it again.  (300-wire-veth.t holds both
 * requests in a plug qdisc and releases them together, so that B takes
 * them at once; A's ACK timeout is 20, 4.3 s, to outlast the plug.)
 *
 * Plain libibverbs: passes on any correct RoCE device pair.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>

#include "e2e_tap.h"
#include "wire_common.h"

#define WV_BUF		(1 << 20)
#define WV_SEND		0		/* offsets in each end's buffer */
#define WV_RECV		(256 << 10)
#define WV_RDMA		(512 << 10)
#define WV_ATOMIC	(1020 << 10)
#define WV_TIMEOUT_MS	120000

struct wv_end {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	int gidx;
	uint32_t psn;
};

/* min_rnr_timer of the responders, retry_cnt and timeout of the requesters. */
static uint8_t wv_min_rnr = 12, wv_retry_cnt = 7, wv_timeout = 14;

static const uint32_t wv_sizes[] = { 1, 1000, 1024, 4096, 16385, 65536 };

static void wv_fill(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = wire_pat(seed, i);
}

/* Index of the first byte of p[0..len) that is not the pattern, or -1. */
static long wv_check(const uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != wire_pat(seed, i))
			return (long)i;
	return -1;
}

/* The next completion of @e into @wc, within WV_TIMEOUT_MS; 0 or -1. */
static int wv_next(struct wv_end *e, struct ibv_wc *wc, const char *what)
{
	long deadline = wire_now_ms() + WV_TIMEOUT_MS;
	int n;

	while ((n = ibv_poll_cq(e->cq, 1, wc)) == 0) {
		if (wire_now_ms() > deadline) {
			diag("%s: no completion on %s in %d ms", what, e->name,
			     WV_TIMEOUT_MS);
			return -1;
		}
	}
	if (n < 0) {
		diag("%s: ibv_poll_cq on %s failed", what, e->name);
		return -1;
	}
	return 0;
}

/* One completion of @e, with the status and opcode expected. */
static int wv_poll(struct wv_end *e, enum ibv_wc_opcode op, uint32_t len,
		   const char *what)
{
	struct ibv_wc wc;

	if (wv_next(e, &wc, what))
		return -1;
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != op ||
	    ((op == IBV_WC_RECV) && wc.byte_len != len)) {
		diag("%s: %s completed %s, opcode %d, byte_len %u (want opcode %d, %u)",
		     what, e->name, ibv_wc_status_str(wc.status), wc.opcode,
		     wc.byte_len, op, len);
		return -1;
	}
	return 0;
}

static int wv_open(struct wv_end *e)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	e->ctx = open_by_name(e->name);
	if (!e->ctx || ibv_query_gid(e->ctx, 1, e->gidx, &e->gid))
		return -1;
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = e->pd ? ibv_create_cq(e->ctx, 64, NULL, NULL, 0) : NULL;
	if (!e->cq)
		return -1;
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &qa);
	if (posix_memalign((void **)&e->buf, 4096, WV_BUF))
		return -1;
	memset(e->buf, 0, WV_BUF);
	e->mr = ibv_reg_mr(e->pd, e->buf, WV_BUF, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	e->psn = (uint32_t)(wire_now_ms() * 7919) & 0xffffff;
	return e->qp && e->mr ? 0 : -1;
}

static int wv_init(struct wv_end *e)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	return ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* From INIT to RTS. */
static int wv_connect_init(struct wv_end *e, const struct wv_end *peer)
{
	struct ibv_qp_attr a = {};

	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = peer->psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = wv_min_rnr;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = e->gidx;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = wv_timeout;
	a.retry_cnt = wv_retry_cnt;
	a.rnr_retry = 7;
	a.sq_psn = e->psn;
	a.max_rd_atomic = 16;
	return ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int wv_connect(struct wv_end *e, const struct wv_end *peer)
{
	return wv_init(e) || wv_connect_init(e, peer) ? -1 : 0;
}

static int wv_post(struct wv_end *e, enum ibv_wr_opcode op, uint32_t off,
		   uint32_t len, const struct wv_end *peer, uint32_t roff)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + off,
		.length = len,
		.lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = (uintptr_t)peer->buf + roff;
		wr.wr.atomic.rkey = peer->mr->rkey;
		wr.wr.atomic.compare_add = 1;
	} else if (op != IBV_WR_SEND) {
		wr.wr.rdma.remote_addr = (uintptr_t)peer->buf + roff;
		wr.wr.rdma.rkey = peer->mr->rkey;
	}
	return ibv_post_send(e->qp, &wr, &bad);
}

static int wv_recv(struct wv_end *e, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + WV_RECV,
		.length = len,
		.lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	memset(e->buf + WV_RECV, 0, len);
	return ibv_post_recv(e->qp, &wr, &bad);
}

/* A SEND of @len bytes from @s to @r, checked; 0 or -1. */
static int wv_send(struct wv_end *s, struct wv_end *r, uint32_t len,
		   uint32_t seed)
{
	long bad;

	wv_fill(s->buf + WV_SEND, len, seed);
	if (wv_recv(r, len) || wv_post(s, IBV_WR_SEND, WV_SEND, len, r, 0) ||
	    wv_poll(s, IBV_WC_SEND, len, "send") ||
	    wv_poll(r, IBV_WC_RECV, len, "recv"))
		return -1;
	bad = wv_check(r->buf + WV_RECV, len, seed);
	if (bad >= 0)
		diag("SEND %s->%s of %u bytes: byte %ld differs", s->name,
		     r->name, len, bad);
	return bad >= 0 ? -1 : 0;
}

/* A SEND that meets an empty RQ for 2 s (see the top); 0 or -1. */
static int wv_rnr(struct wv_end *a, struct wv_end *b)
{
	struct timespec two = { .tv_sec = 2 };
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	long bad;

	wv_fill(a->buf + WV_SEND, 4096, 77);
	if (wv_post(a, IBV_WR_SEND, WV_SEND, 4096, b, 0))
		return -1;
	nanosleep(&two, NULL);
	if (wv_recv(b, 4096) || wv_poll(a, IBV_WC_SEND, 4096, "send after RNR") ||
	    wv_poll(b, IBV_WC_RECV, 4096, "recv after RNR"))
		return -1;
	bad = wv_check(b->buf + WV_RECV, 4096, 77);
	if (bad >= 0) {
		diag("SEND after RNR: byte %ld differs", bad);
		return -1;
	}
	if (ibv_query_qp(a->qp, &qa, IBV_QP_STATE, &qi) ||
	    qa.qp_state != IBV_QPS_RTS) {
		diag("after the RNR waits %s's QP is not in RTS", a->name);
		return -1;
	}
	return 0;
}

/* The next completion of @e, which must have @status; 0 or -1. */
static int wv_poll_status(struct wv_end *e, enum ibv_wc_status status,
			  const char *what)
{
	struct ibv_wc wc;

	if (wv_next(e, &wc, what))
		return -1;
	if (wc.status != status) {
		diag("%s: %s completed %s (want %s)", what, e->name,
		     ibv_wc_status_str(wc.status), ibv_wc_status_str(status));
		return -1;
	}
	return 0;
}

/* The naks case (see the top); 0 or -1. */
static int wv_naks(struct wv_end *a, struct wv_end *b)
{
	struct ibv_sge rs = {
		.addr = (uintptr_t)a->buf + WV_RECV,
		.length = 65536,
		.lkey = a->mr->lkey,
	};
	struct ibv_sge ws = {
		.addr = (uintptr_t)a->buf + WV_SEND,
		.length = 64,
		.lkey = a->mr->lkey,
	};
	struct ibv_send_wr wr[2] = {}, *bad;
	long at;

	wv_fill(b->buf + WV_RDMA, 65536, 77);
	memset(a->buf + WV_RECV, 0, 65536);
	wr[0].sg_list = &rs;
	wr[0].num_sge = 1;
	wr[0].opcode = IBV_WR_RDMA_READ;
	wr[0].send_flags = IBV_SEND_SIGNALED;
	wr[0].wr.rdma.remote_addr = (uintptr_t)b->buf + WV_RDMA;
	wr[0].wr.rdma.rkey = b->mr->rkey;
	wr[0].next = &wr[1];
	wr[1].sg_list = &ws;
	wr[1].num_sge = 1;
	wr[1].opcode = IBV_WR_RDMA_WRITE;
	wr[1].send_flags = IBV_SEND_SIGNALED;
	wr[1].wr.rdma.remote_addr = (uintptr_t)b->buf + WV_RDMA;
	/* Far above any key index B has handed out. */
	wr[1].wr.rdma.rkey = b->mr->rkey ^ 0x80000000u;
	if (ibv_post_send(a->qp, wr, &bad)) {
		diag("posting the READ and the WRITE failed");
		return -1;
	}
	if (wv_poll_status(a, IBV_WC_SUCCESS, "the READ before the bad WRITE"))
		return -1;
	at = wv_check(a->buf + WV_RECV, 65536, 77);
	if (at >= 0) {
		diag("the READ's byte %ld differs", at);
		return -1;
	}
	return wv_poll_status(a, IBV_WC_REM_ACCESS_ERR,
			      "the WRITE with a bad rkey");
}

/* The path case (see the top); 0 or -1. */
static int wv_astray(struct wv_end *a, struct wv_end *b)
{
	struct timespec pause = { .tv_nsec = 500 * 1000000L };
	struct ibv_wc wc;

	if (wv_recv(b, 4096) || wv_post(a, IBV_WR_SEND, WV_SEND, 4096, b, 0) ||
	    wv_poll_status(a, IBV_WC_RETRY_EXC_ERR, "the SEND off the path"))
		return -1;
	nanosleep(&pause, NULL);
	if (ibv_poll_cq(b->cq, 1, &wc) != 0) {
		diag("%s completed a receive (%s): the SEND got through",
		     b->name, ibv_wc_status_str(wc.status));
		return -1;
	}
	return 0;
}

/* The next async event of @e within @ms: its type, or -1 for none. */
static int wv_async(struct wv_end *e, int ms)
{
	struct pollfd pfd = { .fd = e->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int type;

	if (poll(&pfd, 1, ms) != 1 || ibv_get_async_event(e->ctx, &ev))
		return -1;
	type = ev.event_type;
	ibv_ack_async_event(&ev);
	return type;
}

/* @e's port 1 counter of packets sent (tx_packets, or rxe's sent_pkts). */
static long wv_sent(const struct wv_end *e)
{
	static const char *const names[] = { "tx_packets", "sent_pkts" };
	char path[256];
	long v = -1;
	unsigned int i;
	FILE *f;

	for (i = 0; i < sizeof(names) / sizeof(names[0]) && v < 0; i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
			 e->name, names[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* The sqd case (see the top): B's QP in INIT, A's in RTS; 0 or -1. */
static int wv_sqd(struct wv_end *a, struct wv_end *b)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_SQD, .en_sqd_async_notify = 1 };
	int flags = fcntl(a->ctx->async_fd, F_GETFL);
	long sent = wv_sent(a), deadline;
	struct ibv_wc wc;
	uint32_t i;
	int ev;

	if (flags < 0 || fcntl(a->ctx->async_fd, F_SETFL, flags | O_NONBLOCK))
		return -1;
	if (sent < 0) {
		diag("%s has no tx_packets or sent_pkts counter", a->name);
		return -1;
	}
	wv_fill(a->buf + WV_SEND, 65536 + 4096, 93);
	memset(b->buf + WV_RDMA, 0, 65536 + 4096);
	if (wv_post(a, IBV_WR_RDMA_WRITE, WV_SEND, 65536, b, WV_RDMA)) {
		diag("posting the first WRITE failed");
		return -1;
	}
	deadline = wire_now_ms() + WV_TIMEOUT_MS;
	while (wv_sent(a) <= sent) {
		if (wire_now_ms() > deadline) {
			diag("%s sent nothing in %d ms", a->name, WV_TIMEOUT_MS);
			return -1;
		}
	}
	if (ibv_modify_qp(a->qp, &qa, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY) ||
	    wv_post(a, IBV_WR_RDMA_WRITE, WV_SEND + 65536, 4096, b,
		    WV_RDMA + 65536)) {
		diag("WRITE, SQD, WRITE: a post or the move to SQD failed");
		return -1;
	}
	ev = wv_async(a, 300);
	if (ev >= 0 || ibv_poll_cq(a->cq, 1, &wc) != 0) {
		diag("before %s acknowledged anything: %s arrived", b->name,
		     ev >= 0 ? ibv_event_type_str(ev) : "a completion");
		return -1;
	}
	if (wv_connect_init(b, a)) {
		diag("%s's QP did not reach RTS", b->name);
		return -1;
	}
	if (wv_poll_status(a, IBV_WC_SUCCESS, "the WRITE started before SQD"))
		return -1;
	ev = wv_async(a, WV_TIMEOUT_MS);
	if (ev != IBV_EVENT_SQ_DRAINED) {
		diag("after the first WRITE: %s, not SQ_DRAINED",
		     ev >= 0 ? ibv_event_type_str(ev) : "no event");
		return -1;
	}
	if (wv_check(b->buf + WV_RDMA, 65536, 93) >= 0) {
		diag("the first WRITE did not land intact");
		return -1;
	}
	for (i = 65536; i < 65536 + 4096; i++) {
		if (b->buf[WV_RDMA + i]) {
			diag("the WRITE posted in SQD started in SQD");
			return -1;
		}
	}
	qa.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(a->qp, &qa, IBV_QP_STATE) ||
	    wv_poll_status(a, IBV_WC_SUCCESS, "the WRITE posted in SQD, in RTS"))
		return -1;
	for (i = 65536; i < 65536 + 4096; i++) {
		if (b->buf[WV_RDMA + i] != wire_pat(93, i)) {
			diag("the second WRITE did not land intact (byte %u)", i);
			return -1;
		}
	}
	return 0;
}

/* The halt case (see the top): B's QP in INIT, A's in RTS; 0 or -1. */
static int wv_halt(struct wv_end *a, struct wv_end *b)
{
	struct timespec pause = { .tv_nsec = 200 * 1000000L };
	struct ibv_sge sge[3];
	struct ibv_send_wr wr[3], *bad;
	uint32_t i;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		sge[i].addr = (uintptr_t)a->buf + WV_SEND + i * 4096;
		sge[i].length = 4096;
		sge[i].lkey = a->mr->lkey;
		wr[i].wr_id = i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uintptr_t)b->buf + WV_RDMA + i * 4096;
		wr[i].wr.rdma.rkey = b->mr->rkey;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	sge[1].lkey = a->mr->lkey ^ 0x5a5a00;
	wv_fill(a->buf + WV_SEND, 3 * 4096, 91);
	memset(b->buf + WV_RDMA, 0, 3 * 4096);
	if (ibv_post_send(a->qp, wr, &bad)) {
		diag("posting the three WRITEs failed");
		return -1;
	}
	nanosleep(&pause, NULL);
	if (wv_connect_init(b, a)) {
		diag("%s's QP did not reach RTS", b->name);
		return -1;
	}
	if (wv_poll_status(a, IBV_WC_SUCCESS, "the first WRITE") ||
	    wv_poll_status(a, IBV_WC_LOC_PROT_ERR, "the WRITE with a bad lkey") ||
	    wv_poll_status(a, IBV_WC_WR_FLUSH_ERR, "the WRITE after it"))
		return -1;
	if (wv_check(b->buf + WV_RDMA, 4096, 91) >= 0) {
		diag("the first WRITE did not land intact");
		return -1;
	}
	for (i = 4096; i < 3 * 4096; i++) {
		if (b->buf[WV_RDMA + i]) {
			diag("%s's buffer changed at byte %u: a WRITE after the failed one was sent",
			     b->name, i);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct wv_end a = {}, b = {}, a_seen;
	int iters, i, nsend = 0, nwrite = 0, nread = 0, natomic = 0;
	const char *mode = argc > 6 ? argv[6] : "";
	uint64_t expect = 0;

	if (!(argc == 6 ||
	      (argc == 7 && (!strcmp(mode, "rnr") || !strcmp(mode, "halt") ||
			     !strcmp(mode, "sqd") || !strcmp(mode, "naks"))) ||
	      (argc == 8 && !strcmp(mode, "path")))) {
		fprintf(stderr, "usage: %s DEV_A GID_A DEV_B GID_B ITERS [rnr|halt|sqd|naks|path GID_A_SEEN]\n",
			argv[0]);
		return 2;
	}
	if (!strcmp(mode, "rnr")) {
		wv_min_rnr = 0;
		wv_retry_cnt = 3;
	}
	if (!strcmp(mode, "halt") || !strcmp(mode, "sqd"))
		wv_timeout = 18;
	if (!strcmp(mode, "naks"))
		wv_timeout = 20;
	if (!strcmp(mode, "path"))
		wv_retry_cnt = 1;
	a.name = argv[1];
	a.gidx = atoi(argv[2]);
	b.name = argv[3];
	b.gidx = atoi(argv[4]);
	iters = atoi(argv[5]);

	if (!ok(!wv_open(&a) && !wv_open(&b),
		"%s and %s open, PD, CQ, RC QP and 1 MiB MR each", a.name,
		b.name))
		return 1;
	if (!strcmp(mode, "path")) {
		a_seen = a;
		if (!ok(!ibv_query_gid(a.ctx, 1, atoi(argv[7]), &a_seen.gid) &&
			!wv_connect(&a, &b) && !wv_connect(&b, &a_seen),
			"%s's QP sends from GID %s, %s's QP takes packets from GID %s",
			a.name, argv[2], b.name, argv[7]))
			return 1;
		ok(!wv_astray(&a, &b),
		   "a SEND from an address that is not the peer QP's path is dropped: RETRY_EXC_ERR, nothing received");
	} else if (!strcmp(mode, "sqd")) {
		if (!ok(!wv_connect(&a, &b) && !wv_init(&b),
			"%s's QP in RTS, %s's in INIT", a.name, b.name))
			return 1;
		ok(!wv_sqd(&a, &b),
		   "SQD on the wire: the WRITE in progress is resent and completes, then SQ_DRAINED; the WRITE posted in SQD starts only in RTS");
	} else if (!strcmp(mode, "halt")) {
		if (!ok(!wv_connect(&a, &b) && !wv_init(&b),
			"%s's QP in RTS, %s's in INIT", a.name, b.name))
			return 1;
		ok(!wv_halt(&a, &b),
		   "a WRITE, a WRITE with a bad lkey, a WRITE: SUCCESS, LOC_PROT_ERR, WR_FLUSH_ERR; nothing after the failed WRITE reached the peer");
	} else if (!ok(!wv_connect(&a, &b) && !wv_connect(&b, &a),
		       "the two QPs are connected across the wire (RTS)")) {
		return 1;
	} else if (!strcmp(mode, "naks")) {
		ok(!wv_naks(&a, &b),
		   "a 64 KiB READ and a WRITE with a bad rkey in one post: the READ completes with its data, then the WRITE with REM_ACCESS_ERR (the NAK waits behind the READ's responses)");
	}
	if (!strcmp(mode, "rnr") &&
	    !ok(!wv_rnr(&a, &b),
		"a SEND that waits 2 s for a receive (RNR timer 655 ms, ACK timeout 67 ms, retry_cnt 3, rnr_retry 7) completes, data intact, QP in RTS"))
		return 1;

	for (i = 0; i < iters; i++) {
		uint32_t len = wv_sizes[i % (sizeof(wv_sizes) / sizeof(wv_sizes[0]))];
		uint32_t seed = 4 * (uint32_t)i + 1;
		long bad;
		uint64_t got;

		if (wv_send(&a, &b, len, seed) || wv_send(&b, &a, len, seed + 1))
			break;
		nsend += 2;

		wv_fill(a.buf + WV_SEND, len, seed + 2);
		if (wv_post(&a, IBV_WR_RDMA_WRITE, WV_SEND, len, &b, WV_RDMA) ||
		    wv_poll(&a, IBV_WC_RDMA_WRITE, len, "write"))
			break;
		bad = wv_check(b.buf + WV_RDMA, len, seed + 2);
		if (bad >= 0) {
			diag("WRITE of %u bytes: byte %ld differs", len, bad);
			break;
		}
		nwrite++;

		wv_fill(b.buf + WV_RDMA, len, seed + 3);
		memset(a.buf + WV_RECV, 0, len);
		if (wv_post(&a, IBV_WR_RDMA_READ, WV_RECV, len, &b, WV_RDMA) ||
		    wv_poll(&a, IBV_WC_RDMA_READ, len, "read"))
			break;
		bad = wv_check(a.buf + WV_RECV, len, seed + 3);
		if (bad >= 0) {
			diag("READ of %u bytes: byte %ld differs", len, bad);
			break;
		}
		nread++;

		if (wv_post(&a, IBV_WR_ATOMIC_FETCH_AND_ADD, WV_SEND, 8, &b,
			    WV_ATOMIC) ||
		    wv_poll(&a, IBV_WC_FETCH_ADD, 8, "atomic"))
			break;
		memcpy(&got, a.buf + WV_SEND, sizeof(got));
		if (got != expect) {
			diag("FETCH_ADD %d returned %llu, want %llu", i,
			     (unsigned long long)got,
			     (unsigned long long)expect);
			break;
		}
		expect++;
		natomic++;
	}
	ok(nsend == 2 * iters, "%d of %d SENDs (both ways, 1 B to 64 KiB) arrived intact",
	   nsend, 2 * iters);
	ok(nwrite == iters, "%d of %d RDMA WRITEs landed intact", nwrite, iters);
	ok(nread == iters, "%d of %d RDMA READs brought the right bytes", nread,
	   iters);
	ok(natomic == iters, "%d of %d FETCH_ADDs returned the previous sum",
	   natomic, iters);
	memcpy(&expect, b.buf + WV_ATOMIC, sizeof(expect));
	ok(expect == (uint64_t)natomic, "the remote counter is %llu after %d adds",
	   (unsigned long long)expect, natomic);

	ibv_destroy_qp(a.qp);
	ibv_destroy_qp(b.qp);
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
	/* The one-device opener of e2e_tap.h is not needed here. */
	(void)tap_start;
	return tap_end();
}
