// SPDX-License-Identifier: GPL-2.0-only
/*
 * Create and destroy one object type COUNT times (the .t around it
 * checks that nothing grows), or hold one of each object type until
 * stdin closes (for "rdma resource show" and "rdma statistic").
 *
 *   leak_loop DEVICE pd|cq|qp|srq|ah|mr|ctx COUNT   prints TAP
 *   leak_loop DEVICE hold                          prints "ready ..."
 */
#include <time.h>
#include <unistd.h>

#include "e2e_tap.h"

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_ah_attr ah_attr;
static char mr_buf[8192] __attribute__((aligned(4096)));

static int setup_ah_attr(void)
{
	union ibv_gid gid;
	int i;

	for (i = 0; i < 16; i++) {
		if (ibv_query_gid(ctx, 1, i, &gid))
			continue;
		if (gid.raw[0] == 0xfe && gid.raw[1] == 0x80)
			break;
	}
	if (i == 16)
		return -1;
	ah_attr.is_global = 1;
	ah_attr.grh.dgid = gid;
	ah_attr.grh.sgid_index = i;
	ah_attr.grh.hop_limit = 64;
	ah_attr.port_num = 1;
	return 0;
}

static struct ibv_qp *make_qp(struct ibv_srq *srq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .srq = srq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &init);
}

static struct ibv_srq *make_srq(void)
{
	struct ibv_srq_init_attr init = { .attr = { .max_wr = 1, .max_sge = 1 } };

	return ibv_create_srq(pd, &init);
}

/* One create/destroy cycle; 0 on success, else an errno. */
static int cycle(const char *type)
{
	if (!strcmp(type, "pd")) {
		struct ibv_pd *p = ibv_alloc_pd(ctx);

		return p ? ibv_dealloc_pd(p) : errno;
	}
	if (!strcmp(type, "cq")) {
		struct ibv_cq *c = ibv_create_cq(ctx, 1, NULL, NULL, 0);

		return c ? ibv_destroy_cq(c) : errno;
	}
	if (!strcmp(type, "qp")) {
		struct ibv_qp *q = make_qp(NULL);

		return q ? ibv_destroy_qp(q) : errno;
	}
	if (!strcmp(type, "srq")) {
		struct ibv_srq *s = make_srq();

		return s ? ibv_destroy_srq(s) : errno;
	}
	if (!strcmp(type, "ah")) {
		struct ibv_ah *a = ibv_create_ah(pd, &ah_attr);

		return a ? ibv_destroy_ah(a) : errno;
	}
	if (!strcmp(type, "mr")) {
		struct ibv_mr *m = ibv_reg_mr(pd, mr_buf, sizeof(mr_buf),
					      IBV_ACCESS_LOCAL_WRITE);

		return m ? ibv_dereg_mr(m) : errno;
	}
	if (!strcmp(type, "ctx")) {
		struct ibv_context *c = open_by_name(ibv_get_device_name(ctx->device));

		return c ? ibv_close_device(c) : errno;
	}
	return EINVAL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int hold(void)
{
	struct ibv_pd *pds[3];
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	char c;
	int i;

	for (i = 0; i < 3; i++)
		pds[i] = ibv_alloc_pd(ctx);
	srq = make_srq();
	qp = make_qp(NULL);
	mr = ibv_reg_mr(pd, mr_buf, sizeof(mr_buf), IBV_ACCESS_LOCAL_WRITE);
	ah = ibv_create_ah(pd, &ah_attr);
	if (!pds[0] || !pds[1] || !pds[2] || !srq || !qp || !mr || !ah) {
		printf("failed: %s\n", strerror(errno));
		return 1;
	}
	printf("ready qpn %u cqe %d lkey 0x%x pid %d\n", qp->qp_num, cq->cqe,
	       mr->lkey, getpid());
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	ibv_destroy_ah(ah);
	ibv_dereg_mr(mr);
	ibv_destroy_qp(qp);
	ibv_destroy_srq(srq);
	for (i = 0; i < 3; i++)
		ibv_dealloc_pd(pds[i]);
	return 0;
}

int main(int argc, char **argv)
{
	long i, count;
	double t0;
	int err = 0;

	if (argc == 3 && !strcmp(argv[2], "hold")) {
		ctx = open_by_name(argv[1]);
		pd = ctx ? ibv_alloc_pd(ctx) : NULL;
		cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
		if (!cq || setup_ah_attr()) {
			printf("failed: setup\n");
			return 1;
		}
		return hold();
	}
	if (argc != 4) {
		fprintf(stderr, "usage: %s DEVICE TYPE COUNT | DEVICE hold\n",
			argv[0]);
		return 2;
	}
	count = atol(argv[3]);
	ctx = tap_start(argc, argv);
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	if (!ok(cq && !setup_ah_attr(), "PD, CQ and AH attributes for the loop"))
		return tap_end();

	t0 = now();
	for (i = 0; i < count && !err; i++)
		err = cycle(argv[2]);
	if (!ok(!err, "%ld %s create/destroy cycles", count, argv[2]))
		diag("cycle %ld failed: %s", i, strerror(err));
	diag("%s: %ld cycles in %.2f s (%.0f us each)", argv[2], i,
	     now() - t0, i ? (now() - t0) * 1e6 / i : 0.0);

	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ok(!ibv_close_device(ctx), "close the device");
	return tap_end();
}
