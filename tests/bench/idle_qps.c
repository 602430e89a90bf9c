// SPDX-License-Identifier: GPL-2.0-only
/*
 * An idle device with armed QPs, for 'make bench''s idle CPU rows.
 *
 *   idle_qps DEVICE GID_INDEX SECONDS [QPS]
 *
 * Opens DEVICE, makes QPS (default 100, even) RC QPs, each with its own
 * CQ (all on one completion channel), connects them in pairs to each
 * other on the same port (RESET to RTS, addressed with port 1's GID
 * GID_INDEX), posts one receive on each and arms each CQ with
 * ibv_req_notify_cq().  Then it prints "ready", sleeps SECONDS without
 * touching the device (the caller measures the CPU time the system
 * spends meanwhile), checks that no completion came, and tears it all
 * down.  Prints "idle_qps qps=N seconds=S completions=C" at the end;
 * exits 0 if every step worked and nothing completed, 1 otherwise.
 */
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

#define IDLE_MAX_QPS	1024
#define IDLE_RECV_BYTES	64

static struct ibv_qp *qps[IDLE_MAX_QPS];
static struct ibv_cq *cqs[IDLE_MAX_QPS];

static int fail(const char *what, int err)
{
	fprintf(stderr, "idle_qps: %s: %s\n", what, strerror(err));
	return 1;
}

static int setup(struct ibv_context *ctx, struct ibv_pd *pd,
		 struct ibv_comp_channel *ch, struct ibv_mr *mr, int gidx,
		 int n)
{
	const unsigned int rights = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ;
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	union ibv_gid gid;
	int i, ret;

	if (ibv_query_gid(ctx, 1, gidx, &gid))
		return fail("ibv_query_gid", errno);
	for (i = 0; i < n; i++) {
		cqs[i] = ibv_create_cq(ctx, 8, NULL, ch, 0);
		if (!cqs[i])
			return fail("ibv_create_cq", errno);
		qa.send_cq = cqs[i];
		qa.recv_cq = cqs[i];
		qps[i] = ibv_create_qp(pd, &qa);
		if (!qps[i])
			return fail("ibv_create_qp", errno);
	}
	for (i = 0; i < n; i++) {
		struct ibv_qp *peer = qps[i ^ 1];

		if (wire_rc_connect(qps[i], rights, gidx, &gid, peer->qp_num))
			return fail("RESET to RTS", errno);
	}
	for (i = 0; i < n; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)mr->addr + (size_t)i * IDLE_RECV_BYTES,
			.length = IDLE_RECV_BYTES,
			.lkey = mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = i,
			.sg_list = &sge,
			.num_sge = 1,
		};
		struct ibv_recv_wr *bad;

		ret = ibv_post_recv(qps[i], &wr, &bad);
		if (ret)
			return fail("ibv_post_recv", ret);
		ret = ibv_req_notify_cq(cqs[i], 0);
		if (ret)
			return fail("ibv_req_notify_cq", ret);
	}
	return 0;
}

/* The completions that came on the CQs meanwhile (none is expected). */
static int count_completions(int n)
{
	struct ibv_wc wc;
	int i, got = 0;

	for (i = 0; i < n; i++)
		while (cqs[i] && ibv_poll_cq(cqs[i], 1, &wc) > 0)
			got++;
	return got;
}

static int teardown(int n)
{
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		if (qps[i] && ibv_destroy_qp(qps[i]))
			bad++;
		if (cqs[i] && ibv_destroy_cq(cqs[i]))
			bad++;
	}
	if (bad)
		fprintf(stderr, "idle_qps: %d destroy call(s) failed\n", bad);
	return bad;
}

int main(int argc, char **argv)
{
	struct ibv_comp_channel *ch = NULL;
	struct ibv_context *ctx;
	struct ibv_pd *pd = NULL;
	struct ibv_mr *mr = NULL;
	void *buf = NULL;
	int gidx, secs, n = 100, rc = 1, got = -1;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: %s DEVICE GID_INDEX SECONDS [QPS]\n",
			argv[0]);
		return 2;
	}
	gidx = atoi(argv[2]);
	secs = atoi(argv[3]);
	if (argc == 5)
		n = atoi(argv[4]);
	if (n < 2 || n > IDLE_MAX_QPS || n % 2 || secs < 0) {
		fprintf(stderr, "idle_qps: QPS must be even, 2 to %d\n",
			IDLE_MAX_QPS);
		return 2;
	}
	ctx = open_by_name(argv[1]);
	if (!ctx)
		return fail(argv[1], errno ? errno : ENODEV);
	pd = ibv_alloc_pd(ctx);
	ch = ibv_create_comp_channel(ctx);
	if (!pd || !ch) {
		fail("ibv_alloc_pd / ibv_create_comp_channel", errno);
		goto out;
	}
	if (posix_memalign(&buf, 4096, (size_t)n * IDLE_RECV_BYTES)) {
		fail("posix_memalign", ENOMEM);
		goto out;
	}
	mr = ibv_reg_mr(pd, buf, (size_t)n * IDLE_RECV_BYTES,
			IBV_ACCESS_LOCAL_WRITE);
	if (!mr) {
		fail("ibv_reg_mr", errno);
		goto out;
	}
	if (setup(ctx, pd, ch, mr, gidx, n))
		goto out;

	printf("ready\n");
	fflush(stdout);
	sleep(secs);

	got = count_completions(n);
	rc = got ? 1 : 0;
	if (got)
		fprintf(stderr, "idle_qps: %d completion(s) on idle QPs\n",
			got);
out:
	if (teardown(n))
		rc = 1;
	if (mr && ibv_dereg_mr(mr))
		rc = fail("ibv_dereg_mr", errno);
	free(buf);
	if (ch && ibv_destroy_comp_channel(ch))
		rc = fail("ibv_destroy_comp_channel", errno);
	if (pd && ibv_dealloc_pd(pd))
		rc = fail("ibv_dealloc_pd", errno);
	if (ibv_close_device(ctx))
		rc = fail("ibv_close_device", errno);
	printf("idle_qps qps=%d seconds=%d completions=%d\n", n, secs, got);
	return rc;
}
