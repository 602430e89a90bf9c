// SPDX-License-Identifier: GPL-2.0-only
/*
 * Thread domains and parent domains: ibv_alloc_td, ibv_alloc_parent_domain
 * of dp.pd with that TD, an RC pair whose QPs (ibv_create_qp, and
 * ibv_create_qp_ex with send_ops_flags) and CQs (ibv_create_cq_ex with
 * IBV_CQ_INIT_ATTR_MASK_PD) are created through the parent domain, so
 * that liborca posts and polls them without their locks; one buffer
 * registered through the parent domain, one through dp.pd.  SEND, RDMA
 * WRITE and RDMA READ, payloads checked byte for byte.  Then the rules:
 * ALLOCATORS without alloc and free is EINVAL (EOPNOTSUPP where the
 * kernel takes no rings in process memory; allocators themselves are
 * 138-dp-alloc.t's), a CQ's MASK_PD must name a parent
 * domain, the TD and the PD are EBUSY while the parent domain exists,
 * the parent domain is EBUSY while its QPs and CQs exist, and parent
 * domain, TD, PD go in that order.  Prints TAP.  Usage: dp_td DEVICE
 */
#include <stdbool.h>

#include "dp_common.h"

#define BUFSZ (64 * 1024)
#define MSG   (20 * 1024)	/* several MTUs */

static struct dp_buf abuf, bbuf;
static struct ibv_td *td;
static struct ibv_pd *pdom;	/* the parent domain of dp.pd with td */

static struct ibv_cq *make_cq_pd(struct ibv_pd *parent)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 64,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
		.parent_domain = parent,
	};
	struct ibv_cq_ex *cqx = ibv_create_cq_ex(dp.ctx, &ca);

	if (!cqx) {
		diag("ibv_create_cq_ex(MASK_PD): %s", strerror(errno));
		return NULL;
	}
	return ibv_cq_ex_to_cq(cqx);
}

/*
 * One end through the parent domain: CQs from ibv_create_cq_ex with
 * MASK_PD, the QP from ibv_create_qp(pdom) or, with @ex,
 * ibv_create_qp_ex with PD and SEND_OPS_FLAGS.
 */
static int end_create(struct dp_end *e, const struct dp_qp_cfg *c, bool ex)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = c->type,
		.cap = { .max_send_wr = c->max_send_wr,
			 .max_recv_wr = c->max_recv_wr,
			 .max_send_sge = c->max_send_sge,
			 .max_recv_sge = c->max_recv_sge,
			 .max_inline_data = c->max_inline },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pdom,
	};

	memset(e, 0, sizeof(*e));
	e->scq = make_cq_pd(pdom);
	e->rcq = make_cq_pd(pdom);
	if (!e->scq || !e->rcq)
		return -1;
	qa.send_cq = e->scq;
	qa.recv_cq = e->rcq;
	if (ex) {
		qa.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qa.send_ops_flags = IBV_QP_EX_WITH_SEND |
				    IBV_QP_EX_WITH_RDMA_WRITE |
				    IBV_QP_EX_WITH_RDMA_READ;
		e->qp = ibv_create_qp_ex(dp.ctx, &qa);
	} else {
		struct ibv_qp_init_attr ia = {
			.send_cq = e->scq, .recv_cq = e->rcq,
			.qp_type = c->type, .cap = qa.cap,
		};

		e->qp = ibv_create_qp(pdom, &ia);
		qa.cap = ia.cap;
	}
	if (!e->qp) {
		diag("ibv_create_qp%s(parent domain): %s", ex ? "_ex" : "",
		     strerror(errno));
		return -1;
	}
	e->cap = qa.cap;
	return 0;
}

static void test_rules_before(void)
{
	struct ibv_parent_domain_init_attr pa = {
		.pd = dp.pd, .td = td,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS,
	};
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 16, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD, .parent_domain = dp.pd,
	};
	struct ibv_td_init_attr ta = { .comp_mask = 1 };
	struct ibv_pd *p;

	errno = 0;
	p = ibv_alloc_parent_domain(dp.ctx, &pa);
	ok(!p && (errno == EINVAL || errno == EOPNOTSUPP),
	   "ibv_alloc_parent_domain with ALLOCATORS but no alloc and free: %s",
	   errno == EINVAL ? "EINVAL" : errno == EOPNOTSUPP ?
	   "EOPNOTSUPP (no rings in process memory on this device)" :
	   strerror(errno));
	if (p)
		ibv_dealloc_pd(p);

	pa.comp_mask = 0;
	pa.pd = pdom;
	errno = 0;
	p = ibv_alloc_parent_domain(dp.ctx, &pa);
	ok(!p && errno == EINVAL,
	   "ibv_alloc_parent_domain of a parent domain: EINVAL (errno %d)",
	   errno);
	if (p)
		ibv_dealloc_pd(p);

	errno = 0;
	ok(!ibv_alloc_td(dp.ctx, &ta) && errno == EINVAL,
	   "ibv_alloc_td with a comp_mask bit: EINVAL");

	errno = 0;
	ok(!ibv_create_cq_ex(dp.ctx, &ca) && errno == EINVAL,
	   "ibv_create_cq_ex with MASK_PD naming a plain PD: EINVAL");

	ok(ibv_dealloc_td(td) == EBUSY,
	   "ibv_dealloc_td while the parent domain exists: EBUSY");
	ok(ibv_dealloc_pd(dp.pd) == EBUSY,
	   "ibv_dealloc_pd of the PD while the parent domain exists: EBUSY");
}

/* a sends MSG bytes into b's receive; a writes; a reads back. */
static void test_traffic(struct dp_pair *p)
{
	struct ibv_sge sa, sb;
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	uint8_t *want;
	int good;

	want = malloc(MSG);
	if (!ok(want != NULL, "pattern buffer"))
		return;

	/* SEND a -> b. */
	dp_fill(abuf.p, MSG, 11);
	memset(bbuf.p, DP_POISON, BUFSZ);
	sb = (struct ibv_sge){ (uintptr_t)bbuf.p, MSG, bbuf.mr->lkey };
	sa = (struct ibv_sge){ (uintptr_t)abuf.p, MSG, abuf.mr->lkey };
	wr = (struct ibv_send_wr){ .wr_id = 0x51, .sg_list = &sa, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED };
	good = !dp_post_recv(p->b.qp, 0x52, &sb, 1) &&
	       !dp_post_send(p->a.qp, &wr) &&
	       dp_poll1(p->a.scq, &wc, "send") && wc.wr_id == 0x51 &&
	       wc.status == IBV_WC_SUCCESS &&
	       dp_poll1(p->b.rcq, &wc, "receive") && wc.wr_id == 0x52 &&
	       wc.status == IBV_WC_SUCCESS && wc.byte_len == MSG &&
	       wc.opcode == IBV_WC_RECV;
	dp_fill(want, MSG, 11);
	good = good && dp_cmp(bbuf.p, want, MSG, "send payload");
	ok(good, "SEND of %u bytes through parent-domain QPs and CQs: data matches",
	   MSG);

	/* RDMA WRITE a -> b, into the second half of b's buffer. */
	dp_fill(abuf.p, MSG, 22);
	wr = (struct ibv_send_wr){ .wr_id = 0x53, .sg_list = &sa, .num_sge = 1,
				   .opcode = IBV_WR_RDMA_WRITE,
				   .send_flags = IBV_SEND_SIGNALED };
	wr.wr.rdma.remote_addr = (uintptr_t)bbuf.p + BUFSZ / 2;
	wr.wr.rdma.rkey = bbuf.mr->rkey;
	good = !dp_post_send(p->a.qp, &wr) &&
	       dp_poll1(p->a.scq, &wc, "write") && wc.wr_id == 0x53 &&
	       wc.status == IBV_WC_SUCCESS;
	dp_fill(want, MSG, 22);
	good = good && dp_cmp(bbuf.p + BUFSZ / 2, want, MSG, "write payload") &&
	       dp_cq_empty(p->b.rcq, "responder receive CQ");
	ok(good, "RDMA WRITE of %u bytes to an MR of the PD: data matches", MSG);

	/* RDMA READ: a reads b's first half (the SEND payload) back. */
	memset(abuf.p, DP_POISON, BUFSZ);
	wr = (struct ibv_send_wr){ .wr_id = 0x54, .sg_list = &sa, .num_sge = 1,
				   .opcode = IBV_WR_RDMA_READ,
				   .send_flags = IBV_SEND_SIGNALED };
	wr.wr.rdma.remote_addr = (uintptr_t)bbuf.p;
	wr.wr.rdma.rkey = bbuf.mr->rkey;
	good = !dp_post_send(p->a.qp, &wr) &&
	       dp_poll1(p->a.scq, &wc, "read") && wc.wr_id == 0x54 &&
	       wc.status == IBV_WC_SUCCESS;
	dp_fill(want, MSG, 11);
	good = good && dp_cmp(abuf.p, want, MSG, "read payload");
	ok(good, "RDMA READ of %u bytes into an MR of the parent domain: data matches",
	   MSG);
	free(want);
}

int main(int argc, char **argv)
{
	struct ibv_parent_domain_init_attr pa = {};
	struct ibv_td_init_attr ta = {};
	struct dp_qp_cfg cfg;
	struct dp_pair p;
	int made;

	dp_open(argc, argv);
	td = ibv_alloc_td(dp.ctx, &ta);
	if (!ok(td != NULL, "ibv_alloc_td"))
		return dp_close();
	pa.pd = dp.pd;
	pa.td = td;
	pdom = ibv_alloc_parent_domain(dp.ctx, &pa);
	if (!ok(pdom != NULL && pdom != dp.pd,
		"ibv_alloc_parent_domain of the PD with the TD")) {
		diag("ibv_alloc_parent_domain: %s", strerror(errno));
		ibv_dealloc_td(td);
		return dp_close();
	}
	test_rules_before();

	if (!ok(!dp_buf_alloc(&abuf, pdom, BUFSZ, DP_ACC_ALL) &&
		!dp_buf_alloc(&bbuf, dp.pd, BUFSZ, DP_ACC_ALL),
		"register a buffer through the parent domain, one through the PD"))
		goto out_bufs;

	dp_cfg_default(&cfg, IBV_QPT_RC);
	memset(&p, 0, sizeof(p));
	p.cfg = cfg;
	made = !end_create(&p.a, &cfg, false) && !end_create(&p.b, &cfg, true) &&
	       !dp_end_connect(&p.a, &cfg, p.b.qp->qp_num, IBV_QPS_RTS) &&
	       !dp_end_connect(&p.b, &cfg, p.a.qp->qp_num, IBV_QPS_RTS);
	ok(made && p.a.qp->pd == pdom && p.b.qp->pd == pdom,
	   "RC pair: QPs (ibv_create_qp, ibv_create_qp_ex) and CQs (ibv_create_cq_ex MASK_PD) of the parent domain, at RTS");
	if (made)
		test_traffic(&p);

	ok(ibv_dealloc_pd(pdom) == EBUSY,
	   "ibv_dealloc_pd of the parent domain while its QPs and CQs exist: EBUSY");
	dp_pair_destroy(&p);
out_bufs:
	dp_buf_free(&abuf);
	dp_buf_free(&bbuf);

	ok(ibv_dealloc_td(td) == EBUSY && ibv_dealloc_pd(dp.pd) == EBUSY,
	   "objects gone, parent domain still there: TD and PD still EBUSY");
	ok(!ibv_dealloc_pd(pdom), "ibv_dealloc_pd of the parent domain");
	ok(!ibv_dealloc_td(td), "then ibv_dealloc_td");
	return dp_close();
}
