// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca kernel verbs consumer test.
 *
 * On load, finds the RDMA device named by the "dev" parameter and, as a
 * kernel ULP would, goes through ib_core: PD (with the DMA MR behind its
 * lkey), CQ (create, resize, limits), SRQ (limit arming, query), QPs (RC
 * through RESET->INIT->RTR->RTS, UD, a refused second GSI QP, RC with an
 * SRQ), AH, fast-reg MR and multicast attach/detach.  Every object is
 * destroyed again.  Results are TAP lines in the kernel log, each
 * prefixed with "orca_kverbs_test: ", with the plan printed last.  The
 * module stays loaded until rmmod.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

static char *dev = "orca0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to test (default orca0)");

static unsigned int test_num;
static unsigned int test_failed;

static __printf(2, 3) bool tap(bool cond, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	test_num++;
	pr_info("%s %u - %pV\n", cond ? "ok" : "not ok", test_num, &vaf);
	va_end(args);
	if (!cond)
		test_failed++;
	return cond;
}

struct kv_ctx {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	union ib_gid gid;
	int gid_index;
};

/* The link-local RoCEv2 GID of port 1: its MAC comes from the GID. */
static int kv_find_gid(struct kv_ctx *c)
{
	const struct ib_gid_attr *attr;
	int i, len = c->ibdev->port_data[1].immutable.gid_tbl_len;

	for (i = 0; i < len; i++) {
		attr = rdma_get_gid_attr(c->ibdev, 1, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    attr->gid.raw[0] == 0xfe && attr->gid.raw[1] == 0x80) {
			c->gid = attr->gid;
			c->gid_index = i;
			rdma_put_gid_attr(attr);
			return 0;
		}
		rdma_put_gid_attr(attr);
	}
	return -ENOENT;
}

static void kv_fill_ah(struct kv_ctx *c, struct rdma_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = rdma_ah_find_type(c->ibdev, 1);
	rdma_ah_set_port_num(ah, 1);
	rdma_ah_set_grh(ah, &c->gid, 0, c->gid_index, 64, 0);
}

static struct ib_qp *kv_create_qp(struct kv_ctx *c, enum ib_qp_type type,
				  struct ib_srq *srq)
{
	struct ib_qp_init_attr init = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.srq = srq,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = type,
		.port_num = 1,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = srq ? 0 : 16,
			.max_send_sge = 2,
			.max_recv_sge = srq ? 0 : 2,
		},
	};

	return ib_create_qp(c->pd, &init);
}

static void kv_test_pd(struct kv_ctx *c)
{
	struct ib_pd *pd;

	pd = ib_alloc_pd(c->ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (!tap(!IS_ERR(pd), "ib_alloc_pd with IB_PD_UNSAFE_GLOBAL_RKEY (get_dma_mr)"))
		return;
	tap(pd->__internal_mr && pd->unsafe_global_rkey &&
	    pd->local_dma_lkey == pd->__internal_mr->lkey,
	    "the PD's DMA MR gives local_dma_lkey 0x%x and a global rkey 0x%x",
	    pd->local_dma_lkey, pd->unsafe_global_rkey);
	tap(!ib_dealloc_pd_user(pd, NULL), "ib_dealloc_pd of it (and its DMA MR)");
}

static void kv_test_cq(struct kv_ctx *c)
{
	struct ib_cq_init_attr attr = { .cqe = 100 };
	struct ib_cq *cq;
	int ret;

	cq = ib_create_cq(c->ibdev, NULL, NULL, NULL, &attr);
	if (tap(!IS_ERR(cq) && cq->cqe >= 100,
		"ib_create_cq of 100 entries without a completion handler (cqe %d)",
		IS_ERR(cq) ? -1 : cq->cqe)) {
		ret = ib_resize_cq(cq, 1000);
		tap(!ret && cq->cqe >= 1000, "ib_resize_cq to 1000 (%d, cqe %d)",
		    ret, cq->cqe);
		tap(!ib_destroy_cq_user(cq, NULL), "ib_destroy_cq");
	} else {
		tap(false, "ib_resize_cq (no CQ)");
		tap(false, "ib_destroy_cq (no CQ)");
	}

	attr.cqe = c->ibdev->attrs.max_cqe + 1;
	cq = ib_create_cq(c->ibdev, NULL, NULL, NULL, &attr);
	tap(PTR_ERR_OR_ZERO(cq) == -EINVAL,
	    "ib_create_cq with cqe = max_cqe + 1 fails with -EINVAL (%d)",
	    PTR_ERR_OR_ZERO(cq));
	if (!IS_ERR(cq))
		ib_destroy_cq_user(cq, NULL);

	attr.cqe = 16;
	attr.comp_vector = c->ibdev->num_comp_vectors;
	cq = ib_create_cq(c->ibdev, NULL, NULL, NULL, &attr);
	tap(PTR_ERR_OR_ZERO(cq) == -EINVAL,
	    "ib_create_cq with comp_vector = num_comp_vectors (%d) fails with -EINVAL (%d)",
	    c->ibdev->num_comp_vectors, PTR_ERR_OR_ZERO(cq));
	if (!IS_ERR(cq))
		ib_destroy_cq_user(cq, NULL);
}

static void kv_test_rc(struct kv_ctx *c)
{
	struct ib_qp_init_attr qinit;
	struct ib_qp_attr attr, q;
	struct ib_qp *qp;
	int ret;

	qp = kv_create_qp(c, IB_QPT_RC, NULL);
	if (!tap(!IS_ERR(qp), "ib_create_qp RC (%d)", PTR_ERR_OR_ZERO(qp)))
		return;
	tap(qp->qp_num >= 2 && qp->qp_num < BIT(24), "RC QP number %u is in 2..2^24-1",
	    qp->qp_num);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	tap(!ret, "ib_modify_qp RC RESET -> INIT (%d)", ret);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 1;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
	tap(ret == -EINVAL, "ib_modify_qp RC INIT -> RTS is illegal: -EINVAL (%d)",
	    ret);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	kv_fill_ah(c, &attr.ah_attr);
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = qp->qp_num;
	attr.rq_psn = 0x1234;
	attr.max_dest_rd_atomic = 4;
	attr.min_rnr_timer = 12;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	tap(!ret, "ib_modify_qp RC INIT -> RTR (%d)", ret);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0x5678;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 4;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			   IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			   IB_QP_MAX_QP_RD_ATOMIC);
	tap(!ret, "ib_modify_qp RC RTR -> RTS (%d)", ret);

	memset(&q, 0, sizeof(q));
	memset(&qinit, 0, sizeof(qinit));
	ret = ib_query_qp(qp, &q, IB_QP_STATE | IB_QP_PATH_MTU |
			  IB_QP_DEST_QPN | IB_QP_RQ_PSN | IB_QP_SQ_PSN |
			  IB_QP_TIMEOUT | IB_QP_MAX_DEST_RD_ATOMIC |
			  IB_QP_ACCESS_FLAGS | IB_QP_AV | IB_QP_CAP, &qinit);
	tap(!ret && q.qp_state == IB_QPS_RTS && q.path_mtu == IB_MTU_1024 &&
	    q.dest_qp_num == qp->qp_num && q.rq_psn == 0x1234 &&
	    q.sq_psn == 0x5678 && q.timeout == 14 && q.max_dest_rd_atomic == 4 &&
	    q.qp_access_flags == (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ),
	    "ib_query_qp returns what was set (state %d, psn 0x%x/0x%x, timeout %u)",
	    q.qp_state, q.rq_psn, q.sq_psn, q.timeout);
	tap(!ret && qinit.cap.max_send_wr >= 16 && qinit.cap.max_recv_wr >= 16 &&
	    qinit.cap.max_send_sge >= 2 && qinit.cap.max_recv_sge >= 2,
	    "ib_query_qp caps cover what was asked (%u/%u WRs, %u/%u SGEs)",
	    qinit.cap.max_send_wr, qinit.cap.max_recv_wr,
	    qinit.cap.max_send_sge, qinit.cap.max_recv_sge);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_ERR;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE);
	tap(!ret, "ib_modify_qp RC RTS -> ERR (%d)", ret);
	tap(!ib_destroy_qp(qp), "ib_destroy_qp RC");
}

static void kv_test_ud(struct kv_ctx *c)
{
	static const union ib_gid mgid = {
		.raw = { 0xff, 0x0e, [14] = 0x43, [15] = 0x21 },
	};
	struct ib_qp_attr attr;
	struct ib_qp *qp;
	int ret;

	qp = kv_create_qp(c, IB_QPT_UD, NULL);
	if (!tap(!IS_ERR(qp), "ib_create_qp UD (%d)", PTR_ERR_OR_ZERO(qp)))
		return;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qkey = 0x1234;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	attr.qp_state = IB_QPS_RTR;
	ret = ret ? : ib_modify_qp(qp, &attr, IB_QP_STATE);
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 7;
	ret = ret ? : ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
	tap(!ret, "ib_modify_qp UD RESET -> INIT -> RTR -> RTS (%d)", ret);

	ret = ib_attach_mcast(qp, (union ib_gid *)&mgid, 0);
	tap(!ret, "ib_attach_mcast UD QP to ff0e::4321 (%d)", ret);
	ret = ib_detach_mcast(qp, (union ib_gid *)&mgid, 0);
	tap(!ret, "ib_detach_mcast (%d)", ret);
	tap(!ib_destroy_qp(qp), "ib_destroy_qp UD");
}

static void kv_test_gsi(struct kv_ctx *c)
{
	struct ib_qp *qp, *qp2;

	/*
	 * ib_mad opens QPN 1 itself, but only on a device that provides
	 * the whole kernel verbs set (the data path ops too): then there
	 * is no second GSI QP.  Otherwise this test creates the one.
	 */
	qp = kv_create_qp(c, IB_QPT_GSI, NULL);
	if (c->ibdev->kverbs_provider) {
		tap(IS_ERR(qp),
		    "a second GSI QP is refused while ib_mad owns QPN 1 (%d)",
		    PTR_ERR_OR_ZERO(qp));
		tap(true, "(ib_mad holds the GSI QP: nothing more to create)");
		tap(true, "(ib_mad holds the GSI QP: nothing to destroy)");
		if (!IS_ERR(qp))
			ib_destroy_qp(qp);
		return;
	}
	if (!tap(!IS_ERR(qp) && qp->qp_num == 1,
		 "ib_create_qp GSI on port 1 gets QPN 1 (%d, qpn %u)",
		 PTR_ERR_OR_ZERO(qp), IS_ERR(qp) ? 0 : qp->qp_num)) {
		tap(false, "second GSI QP (no first)");
		tap(false, "destroy the GSI QP (no QP)");
		if (!IS_ERR(qp))
			ib_destroy_qp(qp);
		return;
	}
	qp2 = kv_create_qp(c, IB_QPT_GSI, NULL);
	tap(IS_ERR(qp2), "a second GSI QP is refused (%d)",
	    PTR_ERR_OR_ZERO(qp2));
	if (!IS_ERR(qp2))
		ib_destroy_qp(qp2);
	tap(!ib_destroy_qp(qp), "ib_destroy_qp GSI");
}

static void kv_test_srq(struct kv_ctx *c)
{
	struct ib_srq_init_attr init = {
		.attr = { .max_wr = 64, .max_sge = 2 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_srq_attr attr;
	struct ib_srq *srq;
	struct ib_qp *qp;
	int ret;

	srq = ib_create_srq(c->pd, &init);
	if (!tap(!IS_ERR(srq), "ib_create_srq of 64 WRs (%d)",
		 PTR_ERR_OR_ZERO(srq)))
		return;
	memset(&attr, 0, sizeof(attr));
	attr.srq_limit = 8;
	ret = ib_modify_srq(srq, &attr, IB_SRQ_LIMIT);
	tap(!ret, "ib_modify_srq arms the limit at 8 (%d)", ret);
	memset(&attr, 0, sizeof(attr));
	ret = ib_query_srq(srq, &attr);
	tap(!ret && attr.srq_limit == 8 && attr.max_wr >= 64 && attr.max_sge >= 2,
	    "ib_query_srq: limit %u, max_wr %u, max_sge %u", attr.srq_limit,
	    attr.max_wr, attr.max_sge);
	attr.srq_limit = attr.max_wr;
	ret = ib_modify_srq(srq, &attr, IB_SRQ_LIMIT);
	tap(ret == -EINVAL, "ib_modify_srq with limit = max_wr fails with -EINVAL (%d)",
	    ret);

	qp = kv_create_qp(c, IB_QPT_RC, srq);
	tap(!IS_ERR(qp), "ib_create_qp RC with the SRQ (%d)", PTR_ERR_OR_ZERO(qp));
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
	qp = kv_create_qp(c, IB_QPT_UC, srq);
	tap(PTR_ERR_OR_ZERO(qp) == -EINVAL,
	    "ib_create_qp UC with an SRQ fails with -EINVAL (%d)",
	    PTR_ERR_OR_ZERO(qp));
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
	tap(!ib_destroy_srq_user(srq, NULL), "ib_destroy_srq");
}

static void kv_test_ah(struct kv_ctx *c)
{
	struct rdma_ah_attr attr;
	struct ib_ah *ah;

	kv_fill_ah(c, &attr);
	ah = rdma_create_ah(c->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (tap(!IS_ERR(ah), "rdma_create_ah (sleepable) with a RoCEv2 GRH (%d)",
		PTR_ERR_OR_ZERO(ah)))
		tap(!rdma_destroy_ah_user(ah, RDMA_DESTROY_AH_SLEEPABLE, NULL),
		    "rdma_destroy_ah");
	else
		tap(false, "rdma_destroy_ah (no AH)");

	kv_fill_ah(c, &attr);
	ah = rdma_create_ah(c->pd, &attr, 0);
	tap(!IS_ERR(ah) || PTR_ERR(ah) == -EOPNOTSUPP,
	    "rdma_create_ah not sleepable: created or -EOPNOTSUPP (%d)",
	    PTR_ERR_OR_ZERO(ah));
	if (!IS_ERR(ah))
		rdma_destroy_ah(ah, 0);
}

static void kv_test_mr(struct kv_ctx *c)
{
	struct scatterlist sg;
	struct page *pages;
	struct ib_mr *mr;
	int n;

	mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, 16);
	if (!tap(!IS_ERR(mr) && mr->lkey == mr->rkey,
		 "ib_alloc_mr IB_MR_TYPE_MEM_REG of 16 pages (%d), lkey == rkey",
		 PTR_ERR_OR_ZERO(mr)))
		goto too_big;

	pages = alloc_pages(GFP_KERNEL, 1);
	sg_init_table(&sg, 1);
	if (pages)
		sg_set_page(&sg, pages, 2 * PAGE_SIZE, 0);
	n = pages ? ib_dma_map_sg(c->ibdev, &sg, 1, DMA_BIDIRECTIONAL) : 0;
	if (n == 1) {
		n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
		tap(n == 1 && mr->length == 2 * PAGE_SIZE,
		    "ib_map_mr_sg of two pages (%d, length %llu)", n, mr->length);
		ib_dma_unmap_sg(c->ibdev, &sg, 1, DMA_BIDIRECTIONAL);
	} else {
		tap(false, "ib_map_mr_sg of two pages: DMA mapping failed");
	}
	if (pages)
		__free_pages(pages, 1);
	tap(!ib_dereg_mr(mr), "ib_dereg_mr of the fast-reg MR");

too_big:
	mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG,
			 c->ibdev->attrs.max_fast_reg_page_list_len + 1);
	tap(IS_ERR(mr), "ib_alloc_mr beyond max_fast_reg_page_list_len (%u) fails (%d)",
	    c->ibdev->attrs.max_fast_reg_page_list_len, PTR_ERR_OR_ZERO(mr));
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
}

static void kv_run(struct kv_ctx *c)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 64 };

	c->ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!tap(c->ibdev, "ib_device_get_by_name(%s)", dev))
		return;
	tap(rdma_protocol_roce(c->ibdev, 1) && c->ibdev->attrs.max_qp > 0,
	    "%s port 1 is RoCE, max_qp %d", dev, c->ibdev->attrs.max_qp);
	if (!tap(!kv_find_gid(c), "a link-local RoCEv2 GID (index %d)",
		 c->gid_index))
		goto put;

	c->pd = ib_alloc_pd(c->ibdev, 0);
	if (!tap(!IS_ERR(c->pd), "ib_alloc_pd (%d)", PTR_ERR_OR_ZERO(c->pd)))
		goto put;
	c->cq = ib_create_cq(c->ibdev, NULL, NULL, NULL, &cq_attr);
	if (!tap(!IS_ERR(c->cq), "ib_create_cq for the QPs (%d)",
		 PTR_ERR_OR_ZERO(c->cq)))
		goto pd;

	kv_test_pd(c);
	kv_test_cq(c);
	kv_test_rc(c);
	kv_test_ud(c);
	kv_test_gsi(c);
	kv_test_srq(c);
	kv_test_ah(c);
	kv_test_mr(c);

	tap(!ib_destroy_cq_user(c->cq, NULL), "ib_destroy_cq of the QPs' CQ");
pd:
	tap(!ib_dealloc_pd_user(c->pd, NULL), "ib_dealloc_pd");
put:
	ib_device_put(c->ibdev);
}

static int __init orca_kverbs_test_init(void)
{
	struct kv_ctx *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return -ENOMEM;
	kv_run(c);
	kfree(c);
	pr_info("# %u of %u test points failed\n", test_failed, test_num);
	pr_info("1..%u\n", test_num);
	return 0;
}

static void __exit orca_kverbs_test_exit(void)
{
}

module_init(orca_kverbs_test_init);
module_exit(orca_kverbs_test_exit);
MODULE_DESCRIPTION("Orca HCA: kernel verbs consumer test");
MODULE_LICENSE("GPL");
