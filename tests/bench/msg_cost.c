// SPDX-License-Identifier: GPL-2.0-only
/*
 * What one small message costs, piece by piece, for 'make bench''s
 * breakdown rows (Documentation/orca-performance.rst).
 *
 *   msg_cost DEVICE GID_INDEX ITERATIONS [STEP...]
 *
 * One thread, one device, two RC QPs connected to each other on port 1
 * (addressed with GID GID_INDEX), each with its own CQ.  Each step runs
 * ITERATIONS times after a tenth as many to warm up, and prints
 * "msg_cost STEP NS" with the mean nanoseconds of one iteration:
 *
 *   syscall     getppid(): the floor of any system call in this guest
 *   uverbs_bad  a uverbs POST_SEND write() with no work request and a QP
 *               handle that does not exist: system call, uverbs
 *               dispatch, copy-in and the failed object lookup, no
 *               driver
 *   kick        the same command on a real QP with an empty SQ: what a
 *               provider's doorbell system call costs when there is no
 *               work (rdma-core's ibv_cmd_post_send() with no WR; liborca
 *               kicks with it, rxe's provider posts every WR with it)
 *   poll_empty  ibv_poll_cq() of an empty CQ
 *   write_pp    a 2-byte inline RDMA WRITE, signalled, posted on one QP
 *               and its completion polled, then the same from the other
 *               QP: the mean of one of the two
 *   read_pp     the same with a 2-byte RDMA READ
 *   send_pp     a 2-byte inline SEND to a posted receive: the send and
 *               the receive completion polled and the receive posted
 *               again, alternately from each QP
 *
 * With STEPs, only those run (to profile one, say).  Ping-pong
 * alternates the QPs as ib_*_lat does.  Each step starts on an idle
 * device (settle()); whether orca_soft then runs each post's kick in
 * the poster's system call or hands the QP to its engine thread is its
 * module parameter inline_kicks, which the caller sets ('make bench'
 * runs both).  Every payload is checked.  Exits 0 if every step ran and
 * every completion and payload was right, 1 otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>


/*
 * The e2e programs' helpers: open_by_name(), and wire_rc_connect(),
 * which wants diag().  tap_start(), unused here, is marked unused in a
 * place GCC applies to its return type.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "e2e_tap.h"
#pragma GCC diagnostic pop
#include "wire_common.h"
#include "kick_raw.h"

#define MC_BUF		4096
#define MC_TIMEOUT_NS	5000000000LL

struct mc_end {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	/* [0, 64) receives, is written and read into; [64, 66) is read;
	 * [128, 130) is what this end writes or sends.
	 */
	uint8_t *buf;
};

static struct ibv_mr *mr;
static long long iters;
static char **steps;
static int failed;

/* Whether @step is to run. */
static int want(const char *step)
{
	char **s;

	if (!*steps)
		return 1;
	for (s = steps; *s; s++)
		if (!strcmp(*s, step))
			return 1;
	return 0;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void report(const char *step, long long t0, long long n)
{
	printf("msg_cost %s %.1f\n", step, (double)(now_ns() - t0) / n);
	fflush(stdout);
}

static int bad(const char *what, int err)
{
	fprintf(stderr, "msg_cost: %s: %s\n", what, strerror(err));
	failed = 1;
	return -1;
}

/* Poll @cq until one completion, which must be @opcode and successful. */
static int reap(struct ibv_cq *cq, enum ibv_wc_opcode opcode)
{
	long long deadline = 0;
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0) {
		if (!deadline)
			deadline = now_ns() + MC_TIMEOUT_NS;
		else if (now_ns() > deadline)
			return bad("no completion in 5 s", ETIMEDOUT);
	}
	if (n < 0)
		return bad("ibv_poll_cq", EIO);
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != opcode) {
		fprintf(stderr, "msg_cost: completion %s, opcode %d (want %d)\n",
			ibv_wc_status_str(wc.status), wc.opcode, opcode);
		failed = 1;
		return -1;
	}
	return 0;
}

static int post_recv(struct mc_end *e)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf, .length = 64, .lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *badwr;
	int ret = ibv_post_recv(e->qp, &wr, &badwr);

	return ret ? bad("ibv_post_recv", ret) : 0;
}

/*
 * One message of @opcode from @src to @dst, iteration @i: post, reap the
 * sender's completion (and for SEND the receiver's, then post the
 * receive again), check the bytes.
 */
static int one(struct mc_end *src, struct mc_end *dst,
	       enum ibv_wr_opcode opcode, long long i)
{
	uint8_t v0 = (uint8_t)i, v1 = (uint8_t)(i >> 8) ^ 0x5a;
	struct ibv_sge sge = { .length = 2, .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = opcode,
		.send_flags = IBV_SEND_SIGNALED,
	}, *badwr;
	enum ibv_wc_opcode wco;
	uint8_t *check;
	int ret;

	/* A WRITE's or SEND's completion means it was acknowledged: placed. */
	if (opcode == IBV_WR_RDMA_READ) {
		/* Read the peer's [64, 66) into our [0, 2). */
		dst->buf[64] = v0;
		dst->buf[65] = v1;
		sge.addr = (uintptr_t)src->buf;
		wr.wr.rdma.remote_addr = (uintptr_t)dst->buf + 64;
		check = src->buf;
		wco = IBV_WC_RDMA_READ;
	} else {
		src->buf[128] = v0;
		src->buf[129] = v1;
		sge.addr = (uintptr_t)src->buf + 128;
		wr.send_flags |= IBV_SEND_INLINE;
		wr.wr.rdma.remote_addr = (uintptr_t)dst->buf;
		check = dst->buf;
		wco = opcode == IBV_WR_SEND ? IBV_WC_SEND : IBV_WC_RDMA_WRITE;
	}
	wr.wr.rdma.rkey = mr->rkey;
	ret = ibv_post_send(src->qp, &wr, &badwr);
	if (ret)
		return bad("ibv_post_send", ret);
	if (reap(src->cq, wco))
		return -1;
	if (opcode == IBV_WR_SEND &&
	    (reap(dst->cq, IBV_WC_RECV) || post_recv(dst)))
		return -1;
	if (check[0] != v0 || check[1] != v1) {
		fprintf(stderr, "msg_cost: iteration %lld: payload %02x%02x, want %02x%02x\n",
			i, check[0], check[1], v0, v1);
		failed = 1;
		return -1;
	}
	return 0;
}

/*
 * Let the device go idle before a step: a device that polls its queues
 * after the last step's work (orca_soft's engine thread does, for some
 * tens of microseconds) would otherwise start this one polling.
 */
static void settle(void)
{
	usleep(100000);
}

static int pingpong(struct mc_end *a, struct mc_end *b,
		    enum ibv_wr_opcode opcode, const char *step)
{
	long long i, t0 = 0, warm = iters / 10;

	if (!want(step))
		return 0;
	settle();
	for (i = 0; i < warm + iters; i++) {
		if (i == warm)
			t0 = now_ns();
		if (one(a, b, opcode, 2 * i) || one(b, a, opcode, 2 * i + 1))
			return -1;
	}
	report(step, t0, 2 * iters);
	return 0;
}

/* The steps with no message, one call each: 0 if it went as it must. */
static struct ibv_context *mc_ctx;
static struct mc_end *mc_a;

static int step_syscall(void)
{
	syscall(SYS_getppid);
	return 0;
}

static int step_uverbs_bad(void)
{
	int ret = kick_post_send_raw(mc_ctx->cmd_fd, 0xfffffff0U);

	if (ret == EINVAL || ret == ENOENT)
		return 0;
	return bad("POST_SEND of a QP handle that is not there",
		   ret ? ret : EIO);
}

static int step_kick(void)
{
	int ret = kick_post_send_raw(mc_ctx->cmd_fd, mc_a->qp->handle);

	return ret ? bad("POST_SEND with no WR", ret) : 0;
}

static int step_poll_empty(void)
{
	struct ibv_wc wc;

	return ibv_poll_cq(mc_a->cq, 1, &wc) ?
	       bad("a completion on an idle CQ", EIO) : 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} calls[] = {
	{ "syscall", step_syscall },
	{ "uverbs_bad", step_uverbs_bad },
	{ "kick", step_kick },
	{ "poll_empty", step_poll_empty },
};

static int run(struct ibv_context *ctx, struct mc_end *a, struct mc_end *b)
{
	long long i, t0 = 0, warm = iters / 10;
	size_t c;

	mc_ctx = ctx;
	mc_a = a;
	for (c = 0; c < sizeof(calls) / sizeof(calls[0]); c++) {
		if (!want(calls[c].name))
			continue;
		settle();
		for (i = 0; i < warm + iters; i++) {
			if (i == warm)
				t0 = now_ns();
			if (calls[c].fn())
				return -1;
		}
		report(calls[c].name, t0, iters);
	}

	if (pingpong(a, b, IBV_WR_RDMA_WRITE, "write_pp") ||
	    pingpong(a, b, IBV_WR_RDMA_READ, "read_pp") ||
	    (want("send_pp") && (post_recv(a) || post_recv(b))) ||
	    pingpong(a, b, IBV_WR_SEND, "send_pp"))
		return -1;
	return 0;
}

static int end_init(struct ibv_context *ctx, struct ibv_pd *pd,
		    struct mc_end *e, uint8_t *buf)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 64 },
	};

	e->buf = buf;
	e->cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!e->cq)
		return bad("ibv_create_cq", errno);
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	e->qp = ibv_create_qp(pd, &qa);
	if (!e->qp)
		return bad("ibv_create_qp", errno);
	return 0;
}

int main(int argc, char **argv)
{
	const unsigned int rights = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_LOCAL_WRITE;
	struct mc_end a = { 0 }, b = { 0 };
	struct ibv_context *ctx;
	struct ibv_pd *pd = NULL;
	union ibv_gid gid;
	void *buf = NULL;
	int gidx;

	if (argc < 4 || atoll(argv[3]) < 10) {
		fprintf(stderr, "usage: %s DEVICE GID_INDEX ITERATIONS (>= 10) [STEP...]\n",
			argv[0]);
		return 2;
	}
	gidx = atoi(argv[2]);
	iters = atoll(argv[3]);
	steps = argv + 4;
	ctx = open_by_name(argv[1]);
	if (!ctx)
		return bad(argv[1], errno ? errno : ENODEV), 1;
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		bad("ibv_alloc_pd", errno);
		goto out;
	}
	if (posix_memalign(&buf, 4096, 2 * MC_BUF)) {
		bad("posix_memalign", ENOMEM);
		goto out;
	}
	memset(buf, 0, 2 * MC_BUF);
	mr = ibv_reg_mr(pd, buf, 2 * MC_BUF, rights);
	if (!mr) {
		bad("ibv_reg_mr", errno);
		goto out;
	}
	if (ibv_query_gid(ctx, 1, gidx, &gid)) {
		bad("ibv_query_gid", errno);
		goto out;
	}
	if (end_init(ctx, pd, &a, buf) ||
	    end_init(ctx, pd, &b, (uint8_t *)buf + MC_BUF))
		goto out;
	if (wire_rc_connect(a.qp, rights, gidx, &gid, b.qp->qp_num) ||
	    wire_rc_connect(b.qp, rights, gidx, &gid, a.qp->qp_num)) {
		bad("RESET to RTS", errno);
		goto out;
	}
	run(ctx, &a, &b);
out:
	if (a.qp && ibv_destroy_qp(a.qp))
		bad("ibv_destroy_qp", errno);
	if (b.qp && ibv_destroy_qp(b.qp))
		bad("ibv_destroy_qp", errno);
	if (a.cq && ibv_destroy_cq(a.cq))
		bad("ibv_destroy_cq", errno);
	if (b.cq && ibv_destroy_cq(b.cq))
		bad("ibv_destroy_cq", errno);
	if (mr && ibv_dereg_mr(mr))
		bad("ibv_dereg_mr", errno);
	free(buf);
	if (pd && ibv_dealloc_pd(pd))
		bad("ibv_dealloc_pd", errno);
	if (ibv_close_device(ctx))
		bad("ibv_close_device", errno);
	return failed;
}
