// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every verbs object from userspace, one test point per documented rule
 * and per bad input: CQ (create, limits, comp_vector, resize), SRQ
 * (limits, query, limit arming), AH (RoCEv2 GRH from the port's GIDs)
 * and MR (malloc'd, mmap'd and 2 MiB aligned buffers, access rules).
 * Prints TAP.  Usage: objects DEVICE
 */
#include <stdint.h>
#include <sys/mman.h>

#include "e2e_tap.h"

static struct ibv_context *ctx;
static struct ibv_device_attr dattr;
static struct ibv_pd *pd;

static struct ibv_qp *rc_qp(struct ibv_cq *cq, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .srq = srq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &init);
}

static void test_cq(void)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *big;
	struct ibv_qp *qp;
	int ret, nvec = ctx->num_comp_vectors;

	errno = 0;
	cq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	ok(cq && cq->cqe >= 1, "CQ with cqe = 1: created, cqe %d >= 1",
	   cq ? cq->cqe : -1);
	ok(cq && !ibv_destroy_cq(cq), "destroy it");

	cq = ibv_create_cq(ctx, 100, NULL, NULL, 0);
	ok(cq && cq->cqe >= 100, "CQ with cqe = 100: cqe %d >= 100",
	   cq ? cq->cqe : -1);
	ok(cq && cq->cqe == 128,
	   "CQ depth is the next power of two (128, got %d)", cq ? cq->cqe : -1);
	if (cq) {
		struct ibv_wc wc;

		/* An empty CQ has no completions: never a positive count. */
		ret = ibv_poll_cq(cq, 1, &wc);
		ok(ret <= 0, "ibv_poll_cq on an empty CQ returns %d (<= 0)",
		   ret);
	} else {
		ok(0, "ibv_poll_cq on an empty CQ: no CQ");
	}

	big = ibv_create_cq(ctx, dattr.max_cqe, NULL, NULL, 0);
	if (!ok(big && big->cqe >= dattr.max_cqe, "CQ with cqe = max_cqe (%d)",
		dattr.max_cqe))
		diag("ibv_create_cq: %s", strerror(errno));
	if (big)
		ibv_destroy_cq(big);

	errno = 0;
	big = ibv_create_cq(ctx, dattr.max_cqe + 1, NULL, NULL, 0);
	ok(!big && expect_errno(errno, EINVAL, "cqe > max_cqe"),
	   "CQ with cqe = max_cqe + 1 fails with EINVAL");
	if (big)
		ibv_destroy_cq(big);

	errno = 0;
	big = ibv_create_cq(ctx, 16, NULL, NULL, nvec);
	ok(!big && expect_errno(errno, EINVAL, "comp_vector"),
	   "CQ with comp_vector = num_comp_vectors (%d) fails with EINVAL",
	   nvec);
	if (big)
		ibv_destroy_cq(big);

	big = nvec > 0 ? ibv_create_cq(ctx, 16, NULL, NULL, nvec - 1) : NULL;
	ok(big != NULL, "CQ with comp_vector = num_comp_vectors - 1 (%d)",
	   nvec - 1);
	if (big)
		ibv_destroy_cq(big);

	ch = ibv_create_comp_channel(ctx);
	big = ch ? ibv_create_cq(ctx, 16, NULL, ch, 0) : NULL;
	ok(big != NULL, "CQ with a completion channel");
	if (big)
		ibv_destroy_cq(big);
	if (ch)
		ibv_destroy_comp_channel(ch);

	if (!cq) {
		ok(0, "resize (no CQ)");
		return;
	}
	ret = ibv_resize_cq(cq, 1000);
	ok(!ret && cq->cqe >= 1000, "ibv_resize_cq to 1000: cqe %d (%s)",
	   cq->cqe, strerror(ret));
	ret = ibv_resize_cq(cq, 10);
	ok(!ret && cq->cqe >= 10, "ibv_resize_cq down to 10: cqe %d (%s)",
	   cq->cqe, strerror(ret));
	ret = ibv_resize_cq(cq, dattr.max_cqe + 1);
	ok(expect_errno(ret, EINVAL, "resize > max_cqe") && cq->cqe >= 10,
	   "ibv_resize_cq to max_cqe + 1 fails with EINVAL, CQ unchanged");

	qp = rc_qp(cq, NULL);
	ret = qp ? ibv_destroy_cq(cq) : -1;
	ok(qp && expect_errno(ret, EBUSY, "destroy CQ in use"),
	   "ibv_destroy_cq while a QP uses it fails with EBUSY");
	ret = qp ? ibv_resize_cq(cq, 200) : -1;
	ok(!ret && cq->cqe >= 200,
	   "ibv_resize_cq while a QP uses the CQ (cqe %d)", cq->cqe);
	if (qp)
		ibv_destroy_qp(qp);
	ok(!ibv_destroy_cq(cq), "destroy the CQ once the QP is gone");
}

static void test_srq(void)
{
	struct ibv_srq_init_attr init = { .attr = { .max_wr = 100, .max_sge = 3 } };
	struct ibv_srq_attr a;
	struct ibv_srq *srq, *bad;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int ret;

	srq = ibv_create_srq(pd, &init);
	if (!ok(srq && init.attr.max_wr >= 100 && init.attr.max_sge >= 3,
		"SRQ 100 WRs, 3 SGEs: actual %u, %u", init.attr.max_wr,
		init.attr.max_sge))
		diag("ibv_create_srq: %s", strerror(errno));
	if (!srq)
		return;

	init.attr.max_wr = dattr.max_srq_wr + 1;
	init.attr.max_sge = 1;
	errno = 0;
	bad = ibv_create_srq(pd, &init);
	ok(!bad && expect_errno(errno, EINVAL, "srq max_wr"),
	   "SRQ with max_wr = max_srq_wr + 1 fails with EINVAL");
	if (bad)
		ibv_destroy_srq(bad);
	init.attr.max_wr = 16;
	init.attr.max_sge = dattr.max_srq_sge + 1;
	errno = 0;
	bad = ibv_create_srq(pd, &init);
	ok(!bad && expect_errno(errno, EINVAL, "srq max_sge"),
	   "SRQ with max_sge = max_srq_sge + 1 fails with EINVAL");
	if (bad)
		ibv_destroy_srq(bad);

	memset(&a, 0, sizeof(a));
	ret = ibv_query_srq(srq, &a);
	ok(!ret && a.max_wr >= 100 && a.max_sge >= 3 && a.srq_limit == 0,
	   "ibv_query_srq: max_wr %u, max_sge %u, srq_limit %u", a.max_wr,
	   a.max_sge, a.srq_limit);
	a.srq_limit = 10;
	ret = ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT);
	ok(!ret, "ibv_modify_srq arms the limit at 10 (%s)", strerror(ret));
	memset(&a, 0, sizeof(a));
	ok(!ibv_query_srq(srq, &a) && a.srq_limit == 10,
	   "ibv_query_srq reports srq_limit 10 (%u)", a.srq_limit);
	ok(!ibv_query_srq(srq, &a), "query again for max_wr");
	a.srq_limit = a.max_wr;
	ret = ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT);
	ok(expect_errno(ret, EINVAL, "limit = max_wr"),
	   "ibv_modify_srq with limit = max_wr (%u) fails with EINVAL",
	   a.max_wr);
	a.max_wr = 200;
	ret = ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR);
	ok(expect_errno(ret, EOPNOTSUPP, "resize srq"),
	   "ibv_modify_srq IBV_SRQ_MAX_WR (resize) fails with EOPNOTSUPP");

	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	qp = cq ? rc_qp(cq, srq) : NULL;
	ret = qp ? ibv_destroy_srq(srq) : -1;
	ok(qp && expect_errno(ret, EBUSY, "destroy SRQ in use"),
	   "ibv_destroy_srq while a QP uses it fails with EBUSY");
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	ok(!ibv_destroy_srq(srq), "destroy the SRQ");
}

static void test_ah(void)
{
	struct ibv_port_attr port;
	struct ibv_ah_attr ah_attr;
	int i, n = 0, good = 0;
	union ibv_gid gid;
	struct ibv_ah *ah;

	if (!ok(!ibv_query_port(ctx, 1, &port), "query port 1"))
		return;
	/* One AH towards each populated GID, with that GID as source. */
	for (i = 0; i < port.gid_tbl_len; i++) {
		if (ibv_query_gid(ctx, 1, i, &gid))
			continue;
		if (!memcmp(gid.raw, (char[16]){ 0 }, 16))
			continue;
		memset(&ah_attr, 0, sizeof(ah_attr));
		ah_attr.is_global = 1;
		ah_attr.grh.dgid = gid;
		ah_attr.grh.sgid_index = i;
		ah_attr.grh.hop_limit = 64;
		ah_attr.port_num = 1;
		n++;
		ah = ibv_create_ah(pd, &ah_attr);
		if (!ah)
			diag("ibv_create_ah with GID index %d: %s", i,
			     strerror(errno));
		if (ah && !ibv_destroy_ah(ah))
			good++;
	}
	ok(n > 0 && good == n,
	   "RoCEv2 AH with a GRH from each of the port's %d GIDs: created and destroyed (%d)",
	   n, good);

	memset(&ah_attr, 0, sizeof(ah_attr));
	ah_attr.port_num = 1;
	errno = 0;
	ah = ibv_create_ah(pd, &ah_attr);
	ok(!ah && expect_errno(errno, EINVAL, "AH without GRH"),
	   "AH without a GRH on a RoCE port fails with EINVAL");
	if (ah)
		ibv_destroy_ah(ah);
}

static void test_mr(void)
{
	const size_t len = 64 * 1024, big = 2UL << 20;
	struct ibv_mr *mr, *mr2;
	char *buf, *map, *huge;
	uintptr_t aligned;
	int ret;

	buf = malloc(len);
	mr = buf ? ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
		 : NULL;
	if (!ok(mr && mr->addr == buf && mr->length == len &&
		mr->lkey == mr->rkey && mr->lkey,
		"reg_mr of a malloc'd 64 KiB buffer: addr, length, lkey == rkey (0x%x)",
		mr ? mr->lkey : 0))
		diag("ibv_reg_mr: %s", strerror(errno));
	mr2 = buf ? ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE) : NULL;
	ok(mr && mr2 && mr2->lkey != mr->lkey,
	   "the same buffer registered twice: two different keys (0x%x, 0x%x)",
	   mr ? mr->lkey : 0, mr2 ? mr2->lkey : 0);
	ret = ibv_dealloc_pd(pd);
	ok(expect_errno(ret, EBUSY, "dealloc PD with MR"),
	   "ibv_dealloc_pd while MRs use it fails with EBUSY");
	ok(mr && !ibv_dereg_mr(mr), "dereg_mr of the first");
	ok(mr2 && !ibv_dereg_mr(mr2), "dereg_mr of the second");

	mr = buf ? ibv_reg_mr(pd, buf + 100, 1000, IBV_ACCESS_LOCAL_WRITE) :
		   NULL;
	ok(mr && mr->addr == buf + 100 && mr->length == 1000,
	   "reg_mr of an unaligned 1000-byte range");
	if (mr)
		ibv_dereg_mr(mr);

	map = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mr = map != MAP_FAILED ? ibv_reg_mr(pd, map, 1 << 20,
					    IBV_ACCESS_LOCAL_WRITE) : NULL;
	ok(mr && mr->length == 1 << 20, "reg_mr of a 1 MiB anonymous mmap");
	ok(mr && !ibv_dereg_mr(mr), "dereg_mr of it");

	/* 2 MiB aligned and 2 MiB long; transparent huge pages if we get them. */
	huge = mmap(NULL, 2 * big, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	aligned = huge == MAP_FAILED ? 0 :
		  ((uintptr_t)huge + big - 1) & ~(uintptr_t)(big - 1);
	if (aligned) {
		madvise((void *)aligned, big, MADV_HUGEPAGE);
		memset((void *)aligned, 1, big);
	}
	mr = aligned ? ibv_reg_mr(pd, (void *)aligned, big,
				  IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_READ) : NULL;
	if (!ok(mr && mr->length == big, "reg_mr of a 2 MiB aligned 2 MiB buffer"))
		diag("ibv_reg_mr: %s", strerror(errno));
	ok(mr && !ibv_dereg_mr(mr), "dereg_mr of it");
	mr = aligned ? ibv_reg_mr(pd, (void *)aligned, 2 * big -
				  (aligned - (uintptr_t)huge) - 4096,
				  IBV_ACCESS_LOCAL_WRITE) : NULL;
	ok(mr != NULL, "reg_mr from a 2 MiB boundary to near the end of the map");
	if (mr)
		ibv_dereg_mr(mr);

	errno = 0;
	mr = ibv_reg_mr(pd, map, 4096, IBV_ACCESS_REMOTE_WRITE);
	ok(!mr && expect_errno(errno, EINVAL, "REMOTE_WRITE w/o LOCAL_WRITE"),
	   "reg_mr with REMOTE_WRITE but not LOCAL_WRITE fails with EINVAL");
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	mr = ibv_reg_mr(pd, map, 4096, IBV_ACCESS_REMOTE_ATOMIC);
	ok(!mr && expect_errno(errno, EINVAL, "REMOTE_ATOMIC w/o LOCAL_WRITE"),
	   "reg_mr with REMOTE_ATOMIC but not LOCAL_WRITE fails with EINVAL");
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	mr = ibv_reg_mr(pd, map, 4096, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_ON_DEMAND);
	/* On-demand paging (interface 1.5): tests/e2e/86-odp.t. */
	ok(mr != NULL, "reg_mr with IBV_ACCESS_ON_DEMAND succeeds (on-demand paging)");
	if (!mr)
		diag("reg_mr(ON_DEMAND): %s", strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);

	if (map != MAP_FAILED)
		munmap(map, 1 << 20);
	errno = 0;
	mr = map != MAP_FAILED ? ibv_reg_mr(pd, map, 4096,
					    IBV_ACCESS_LOCAL_WRITE) : NULL;
	ok(!mr && errno, "reg_mr of unmapped memory fails (%s)",
	   strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	if (huge != MAP_FAILED)
		munmap(huge, 2 * big);
	free(buf);
}

int main(int argc, char **argv)
{
	ctx = tap_start(argc, argv);
	ok(!ibv_query_device(ctx, &dattr),
	   "ibv_query_device: max_cqe %d, max_srq_wr %d, max_srq_sge %d",
	   dattr.max_cqe, dattr.max_srq_wr, dattr.max_srq_sge);
	pd = ibv_alloc_pd(ctx);
	if (!ok(pd != NULL, "allocate a PD"))
		return tap_end();

	test_cq();
	test_srq();
	test_ah();
	test_mr();

	ok(!ibv_dealloc_pd(pd), "deallocate the PD");
	ok(!ibv_close_device(ctx), "close the device");
	return tap_end();
}
