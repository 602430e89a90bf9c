// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca kernel verbs consumer test.
 *
 * On load, finds the RDMA device named by the "dev" parameter and, as a
 * kernel ULP would, goes through ib_core: PD (with the DMA MR behind its
 * lkey), CQ (create, resize, limits), SRQ (limit arming, query), QPs (RC
 * through RESET->INIT->RTR->RTS, UD, a refused second GSI QP, RC with an
 * SRQ), AH, fast-reg MR and multicast attach/detach.  Every object is
 * destroyed again.  Then the data path: traffic between two RC QPs and
 * two UD QPs on the device (every opcode, fast registration and
 * invalidation, an access error and its async event, drain, completion
 * events and the ib_post_send/ib_post_recv rules).  Last, queues of the
 * largest sizes the device advertises, full rings and wraps (max_only:
 * only those; no_ring_pbl: on a device without paged rings, where they
 * are refused).  Results are TAP lines in the kernel log, each
 * prefixed with "orca_kverbs_test: ", with the plan printed last.  The
 * module stays loaded until rmmod.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

static char *dev = "orca0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to test (default orca0)");

static char *peer;
module_param(peer, charp, 0444);
MODULE_PARM_DESC(peer, "RDMA device joined to dev by a wire: with it, only the wire tests run, RC from dev to peer");

static bool max_only;
module_param(max_only, bool, 0444);
MODULE_PARM_DESC(max_only, "Only the queues of the advertised maximum sizes");

static unsigned int keys;
module_param(keys, uint, 0444);
MODULE_PARM_DESC(keys, "Only the key test: threads registering, using and invalidating fast-reg keys of their own, this many times each, from dev to peer (or on dev)");

static bool no_ring_pbl;
module_param(no_ring_pbl, bool, 0444);
MODULE_PARM_DESC(no_ring_pbl, "dev has no paged rings (orca_soft ring_pbl=0): the largest queues must be refused with -ENOMEM");

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

/*
 * An address vector from @c's GID to the link-local @dgid.  ib_core
 * resolves the destination MAC for user QPs only: a kernel consumer
 * gives it, here the one a link-local GID is made of.
 */
static void kv_fill_ah_to(struct kv_ctx *c, union ib_gid *dgid,
			  struct rdma_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = rdma_ah_find_type(c->ibdev, 1);
	rdma_ah_set_port_num(ah, 1);
	rdma_ah_set_grh(ah, dgid, 0, c->gid_index, 64, 0);
	if (ah->type == RDMA_AH_ATTR_TYPE_ROCE)
		rdma_get_ll_mac((struct in6_addr *)dgid->raw, ah->roce.dmac);
}

static void kv_fill_ah(struct kv_ctx *c, struct rdma_ah_attr *ah)
{
	kv_fill_ah_to(c, &c->gid, ah);
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

static DEFINE_SPINLOCK(kv_atomic_lock);

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

	/*
	 * ib_cm creates and destroys AHs under spinlocks, without the
	 * SLEEPABLE flags: both must work in atomic context (on the debug
	 * kernel a sleep here is a "sleeping function called from invalid
	 * context" report, which fails the run).
	 */
	kv_fill_ah(c, &attr);
	spin_lock_irq(&kv_atomic_lock);
	ah = rdma_create_ah(c->pd, &attr, 0);
	spin_unlock_irq(&kv_atomic_lock);
	if (tap(!IS_ERR(ah),
		"rdma_create_ah not sleepable, under a spinlock (%d)",
		PTR_ERR_OR_ZERO(ah))) {
		spin_lock_irq(&kv_atomic_lock);
		rdma_destroy_ah(ah, 0);
		spin_unlock_irq(&kv_atomic_lock);
	}
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

/* ------------------------------------------------------------------
 * Data path.
 *
 * A hang is bounded by KV_TIMEOUT, far beyond what any step needs; a
 * step that runs into it fails, and the data-path tests stop there.
 */
#define KV_TIMEOUT	(30 * HZ)
#define KV_BUF_SIZE	8192
#define KV_GRH		40
#define KV_QKEY		0x11111111
#define KV_IMM		0x12345678

struct kv_wr {
	struct ib_cqe cqe;
	struct completion done;
	struct ib_wc wc;
};

struct kv_buf {
	void *va;
	u64 dma;
	size_t len;
};

struct kv_dp {
	struct kv_ctx *c;
	struct ib_pd *pd;		/* with the unsafe global rkey */
	struct ib_cq *cqa, *cqb, *cqc, *evcq;
	struct ib_qp *qa, *qb;		/* RC, connected to each other */
	struct ib_qp *qc, *qd;		/* UD, C sends to D */
	struct ib_ah *ah;
	struct ib_mr *fr;		/* fast-reg: invalidation tests */
	struct ib_mr *atom;		/* fast-reg: atomics target */
	struct kv_buf sa, la, rb, tb, rd, sc, frb, atb;
	struct kv_buf bs, bt;		/* 64 KiB: the rate measurement */
	wait_queue_head_t wq;
	atomic_t events;		/* completion events of evcq */
	unsigned long async;		/* bit per ib_event_type on QP B */
	bool hung;
	u8 fr_key;
	/*
	 * Every WR's completion context lives here, not on a stack: a WR
	 * that completes late (after a hang was declared) still finds it.
	 */
	struct kv_wr pool[48];
	unsigned int npool;
};

static void kv_wr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_wr *w = container_of(wc->wr_cqe, struct kv_wr, cqe);

	w->wc = *wc;
	complete(&w->done);
}

static void kv_wr_init(struct kv_wr *w)
{
	memset(w, 0, sizeof(*w));
	w->cqe.done = kv_wr_done;
	init_completion(&w->done);
	w->wc.status = IB_WC_GENERAL_ERR;
}

static struct kv_wr *kv_w(struct kv_dp *d)
{
	/* Reuse the last one rather than overflow (48 is plenty). */
	if (d->npool < ARRAY_SIZE(d->pool))
		d->npool++;
	kv_wr_init(&d->pool[d->npool - 1]);
	return &d->pool[d->npool - 1];
}

/* Wait for @w's completion; a missing one stops the data-path tests. */
static bool kv_wr_wait(struct kv_dp *d, struct kv_wr *w)
{
	if (d->hung)
		return false;
	if (wait_for_completion_timeout(&w->done, KV_TIMEOUT))
		return true;
	d->hung = true;
	pr_info("# no completion within %u s: data-path tests stop\n",
		KV_TIMEOUT / HZ);
	return false;
}

static int kv_dbuf_alloc(struct ib_device *ibdev, struct kv_buf *b,
			 size_t len)
{
	b->va = kzalloc(len, GFP_KERNEL);
	if (!b->va)
		return -ENOMEM;
	b->len = len;
	b->dma = ib_dma_map_single(ibdev, b->va, len, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, b->dma)) {
		kfree(b->va);
		b->va = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int kv_buf_alloc(struct kv_dp *d, struct kv_buf *b, size_t len)
{
	return kv_dbuf_alloc(d->c->ibdev, b, len);
}

static void kv_dbuf_free(struct ib_device *ibdev, struct kv_buf *b)
{
	if (!b->va)
		return;
	ib_dma_unmap_single(ibdev, b->dma, b->len, DMA_BIDIRECTIONAL);
	kfree(b->va);
	b->va = NULL;
}

static void kv_buf_free(struct kv_dp *d, struct kv_buf *b)
{
	kv_dbuf_free(d->c->ibdev, b);
}

/* The CPU is about to read what the device wrote, or the reverse. */
static void kv_dbuf_cpu(struct ib_device *ibdev, struct kv_buf *b)
{
	ib_dma_sync_single_for_cpu(ibdev, b->dma, b->len, DMA_BIDIRECTIONAL);
}

static void kv_buf_cpu(struct kv_dp *d, struct kv_buf *b)
{
	kv_dbuf_cpu(d->c->ibdev, b);
}

static void kv_dbuf_dev(struct ib_device *ibdev, struct kv_buf *b)
{
	ib_dma_sync_single_for_device(ibdev, b->dma, b->len,
				      DMA_BIDIRECTIONAL);
}

static void kv_buf_dev(struct kv_dp *d, struct kv_buf *b)
{
	kv_dbuf_dev(d->c->ibdev, b);
}

/* Byte @i of the pattern @seed: no period shorter than 64 KiB. */
static u8 kv_pat(u8 seed, size_t i)
{
	return seed + i * 7 + (i >> 8);
}

static void kv_fill(void *p, size_t len, u8 seed)
{
	u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = kv_pat(seed, i);
}

/* @p holds bytes @from .. @from + @len - 1 of the pattern @seed. */
static bool kv_same_from(const void *p, size_t len, u8 seed, size_t from)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != kv_pat(seed, from + i))
			return false;
	return true;
}

static bool kv_same(const void *p, size_t len, u8 seed)
{
	return kv_same_from(p, len, seed, 0);
}

static struct ib_sge kv_sge(struct kv_dp *d, struct kv_buf *b, size_t off,
			    u32 len)
{
	struct ib_sge sge = {
		.addr = b->dma + off,
		.length = len,
		.lkey = d->pd->local_dma_lkey,
	};

	return sge;
}

static int kv_post_recv(struct kv_dp *d, struct ib_qp *qp, struct kv_wr *w,
			struct kv_buf *b, size_t off, u32 len)
{
	struct ib_sge sge = kv_sge(d, b, off, len);
	struct ib_recv_wr wr = {
		.wr_cqe = &w->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	kv_wr_init(w);
	return ib_post_recv(qp, &wr, NULL);
}

static void kv_qp_event(struct ib_event *ev, void *ctx)
{
	struct kv_dp *d = ctx;

	if (ev->event < BITS_PER_LONG)
		set_bit(ev->event, &d->async);
	wake_up(&d->wq);
}

static void kv_comp_event(struct ib_cq *cq, void *ctx)
{
	struct kv_dp *d = ctx;

	atomic_inc(&d->events);
	wake_up(&d->wq);
}

static void kv_srq_event(struct ib_event *ev, void *ctx)
{
	struct kv_dp *d = ctx;

	if (ev->event < BITS_PER_LONG)
		set_bit(ev->event, &d->async);
	wake_up(&d->wq);
}

static int kv_post_srq_recv(struct kv_dp *d, struct ib_srq *srq,
			    struct kv_wr *w, unsigned int slot)
{
	struct ib_sge sge = kv_sge(d, &d->rb, slot * 1024, 1024);
	struct ib_recv_wr wr = {
		.wr_cqe = &w->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	kv_wr_init(w);
	return ib_post_srq_recv(srq, &wr, NULL);
}

static struct ib_qp *kv_dp_qp(struct kv_dp *d, enum ib_qp_type type,
			      struct ib_cq *scq, struct ib_cq *rcq)
{
	struct ib_qp_init_attr init = {
		.event_handler = kv_qp_event,
		.qp_context = d,
		.send_cq = scq,
		.recv_cq = rcq,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = type,
		.port_num = 1,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = 16,
			.max_send_sge = 2,
			.max_recv_sge = 2,
			.max_inline_data = 64,
		},
	};

	return ib_create_qp(d->pd, &init);
}

/* Bring RC @qp of @c to RTS, connected to QP @dqpn at @dgid. */
static int kv_rc_connect_to(struct kv_ctx *c, struct ib_qp *qp,
			    union ib_gid *dgid, u32 dqpn)
{
	struct ib_qp_attr attr;
	int ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
			       IB_ACCESS_REMOTE_ATOMIC;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	kv_fill_ah_to(c, dgid, &attr.ah_attr);
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = dqpn;
	attr.rq_psn = 0x100;
	attr.max_dest_rd_atomic = 4;
	attr.min_rnr_timer = 1;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0x100;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 4;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

static int kv_rc_connect(struct kv_dp *d, struct ib_qp *qp, u32 dqpn)
{
	return kv_rc_connect_to(d->c, qp, &d->c->gid, dqpn);
}

static int kv_ud_up(struct ib_qp *qp)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qkey = KV_QKEY,
	};
	int ret;

	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	attr.qp_state = IB_QPS_RTR;
	ret = ret ? : ib_modify_qp(qp, &attr, IB_QP_STATE);
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0x200;
	return ret ? : ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

/* Post one send-side WR on @qp and wait for its completion. */
static bool kv_send_wait(struct kv_dp *d, struct ib_qp *qp,
			 struct ib_send_wr *wr, struct kv_wr *w)
{
	int ret;

	kv_wr_init(w);
	wr->wr_cqe = &w->cqe;
	wr->send_flags |= IB_SEND_SIGNALED;
	ret = ib_post_send(qp, wr, NULL);
	if (ret) {
		pr_info("# ib_post_send failed: %d\n", ret);
		return false;
	}
	return kv_wr_wait(d, w);
}

static bool kv_wc_ok(struct kv_wr *w, enum ib_wc_opcode op)
{
	return w->wc.status == IB_WC_SUCCESS && w->wc.opcode == op;
}

/* SEND and SEND_WITH_IMM between the RC QPs, two SGEs each side. */
static void kv_dp_rc_send(struct kv_dp *d)
{
	struct kv_wr *rw = kv_w(d), *sw = kv_w(d);
	struct ib_sge sg[2], rsg[2];
	struct ib_recv_wr rwr = { .sg_list = rsg, .num_sge = 2 };
	struct ib_send_wr wr = { .sg_list = sg, .num_sge = 2 };
	int ret;

	/* 3000 bytes from two pieces of A's buffer into two of B's. */
	kv_fill(d->sa.va, 3000, 0x11);
	kv_buf_dev(d, &d->sa);
	memset(d->rb.va, 0, d->rb.len);
	kv_buf_dev(d, &d->rb);
	sg[0] = kv_sge(d, &d->sa, 0, 1000);
	sg[1] = kv_sge(d, &d->sa, 1000, 2000);
	rsg[0] = kv_sge(d, &d->rb, 5, 2500);
	rsg[1] = kv_sge(d, &d->rb, 4096, 1000);
	kv_wr_init(rw);
	rwr.wr_cqe = &rw->cqe;
	ret = ib_post_recv(d->qb, &rwr, NULL);
	tap(!ret, "RC: ib_post_recv of two SGEs on B (%d)", ret);
	wr.opcode = IB_WR_SEND;
	if (!kv_send_wait(d, d->qa, &wr, sw) || !kv_wr_wait(d, rw)) {
		tap(false, "RC SEND completes");
		return;
	}
	kv_buf_cpu(d, &d->rb);
	tap(kv_wc_ok(sw, IB_WC_SEND) && sw->wc.qp == d->qa,
	    "RC SEND: sender completion IB_WC_SEND, success, wc.qp is A (status %d, opcode %d)",
	    sw->wc.status, sw->wc.opcode);
	tap(kv_wc_ok(rw, IB_WC_RECV) && rw->wc.byte_len == 3000 &&
	    rw->wc.qp == d->qb && !(rw->wc.wc_flags & IB_WC_WITH_IMM),
	    "RC SEND: receive completion IB_WC_RECV of 3000 bytes on B (status %d, opcode %d, len %u, flags 0x%x)",
	    rw->wc.status, rw->wc.opcode, rw->wc.byte_len, rw->wc.wc_flags);
	tap(kv_same(d->rb.va + 5, 2500, 0x11) &&
	    kv_same_from(d->rb.va + 4096, 500, 0x11, 2500) &&
	    !((u8 *)d->rb.va)[4] && !((u8 *)d->rb.va)[2505],
	    "RC SEND: payload scattered byte for byte, nothing around it touched");

	/* SEND_WITH_IMM, and SOLICITED. */
	kv_wr_init(rw);
	rwr.wr_cqe = &rw->cqe;
	rsg[0] = kv_sge(d, &d->rb, 0, 100);
	rwr.num_sge = 1;
	ret = ib_post_recv(d->qb, &rwr, NULL);
	kv_fill(d->sa.va, 100, 0x22);
	kv_buf_dev(d, &d->sa);
	wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.num_sge = 1;
	sg[0] = kv_sge(d, &d->sa, 0, 100);
	wr.ex.imm_data = cpu_to_be32(KV_IMM);
	wr.send_flags = IB_SEND_SOLICITED;
	if (ret || !kv_send_wait(d, d->qa, &wr, sw) || !kv_wr_wait(d, rw)) {
		tap(false, "RC SEND_WITH_IMM completes (%d)", ret);
		return;
	}
	kv_buf_cpu(d, &d->rb);
	tap(kv_wc_ok(sw, IB_WC_SEND) && kv_wc_ok(rw, IB_WC_RECV) &&
	    (rw->wc.wc_flags & IB_WC_WITH_IMM) &&
	    be32_to_cpu(rw->wc.ex.imm_data) == KV_IMM && rw->wc.byte_len == 100 &&
	    kv_same(d->rb.va, 100, 0x22),
	    "RC SEND_WITH_IMM: IB_WC_WITH_IMM, imm 0x%x, 100 bytes (status %d, flags 0x%x)",
	    be32_to_cpu(rw->wc.ex.imm_data), rw->wc.status, rw->wc.wc_flags);

	/* Inline: the payload travels in the WQE; the buffer may change. */
	kv_wr_init(rw);
	rwr.wr_cqe = &rw->cqe;
	ret = ib_post_recv(d->qb, &rwr, NULL);
	kv_fill(d->sa.va + 1024, 60, 0x33);
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_INLINE;
	sg[0].addr = (uintptr_t)(d->sa.va + 1024);
	sg[0].length = 60;
	sg[0].lkey = 0;
	if (ret || !kv_send_wait(d, d->qa, &wr, sw) || !kv_wr_wait(d, rw)) {
		tap(false, "RC inline SEND completes (%d)", ret);
		return;
	}
	kv_buf_cpu(d, &d->rb);
	tap(kv_wc_ok(sw, IB_WC_SEND) && kv_wc_ok(rw, IB_WC_RECV) &&
	    rw->wc.byte_len == 60 && kv_same(d->rb.va, 60, 0x33),
	    "RC SEND with IB_SEND_INLINE: 60 bytes arrive (status %d/%d, len %u)",
	    sw->wc.status, rw->wc.status, rw->wc.byte_len);
}

/* An unsignaled SEND before a signaled one: only the second completes. */
static void kv_dp_unsignaled(struct kv_dp *d)
{
	struct kv_wr *rw[2] = { kv_w(d), kv_w(d) };
	struct kv_wr *uw = kv_w(d), *sw = kv_w(d);
	struct ib_sge sg = kv_sge(d, &d->sa, 0, 16);
	struct ib_send_wr wr[2] = {};
	int ret;

	ret = kv_post_recv(d, d->qb, rw[0], &d->rb, 0, 64);
	ret = ret ? : kv_post_recv(d, d->qb, rw[1], &d->rb, 64, 64);
	kv_wr_init(uw);
	kv_wr_init(sw);
	wr[0].opcode = IB_WR_SEND;
	wr[0].sg_list = &sg;
	wr[0].num_sge = 1;
	wr[0].wr_cqe = &uw->cqe;
	wr[0].next = &wr[1];
	wr[1] = wr[0];
	wr[1].next = NULL;
	wr[1].wr_cqe = &sw->cqe;
	wr[1].send_flags = IB_SEND_SIGNALED;
	ret = ret ? : ib_post_send(d->qa, wr, NULL);
	if (ret || !kv_wr_wait(d, sw) || !kv_wr_wait(d, rw[1])) {
		tap(false, "unsignaled + signaled SEND complete (%d)", ret);
		return;
	}
	tap(kv_wc_ok(sw, IB_WC_SEND) && !completion_done(&uw->done) &&
	    completion_done(&rw[0]->done),
	    "an unsignaled SEND makes no completion, the signaled one after it does, both arrive");
}

static void kv_dp_rdma(struct kv_dp *d)
{
	struct ib_sge sg = kv_sge(d, &d->sa, 0, 4096);
	struct ib_rdma_wr wr = {
		.wr = { .sg_list = &sg, .num_sge = 1 },
		.rkey = d->pd->unsafe_global_rkey,
	};
	struct kv_wr *sw = kv_w(d), *rw = kv_w(d);
	int ret;

	/* RDMA WRITE: 4096 bytes into B's target buffer at offset 100. */
	kv_fill(d->sa.va, 4096, 0x44);
	kv_buf_dev(d, &d->sa);
	memset(d->tb.va, 0, d->tb.len);
	kv_buf_dev(d, &d->tb);
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.remote_addr = d->tb.dma + 100;
	if (!kv_send_wait(d, d->qa, &wr.wr, sw)) {
		tap(false, "RDMA WRITE completes");
		return;
	}
	kv_buf_cpu(d, &d->tb);
	tap(kv_wc_ok(sw, IB_WC_RDMA_WRITE) && kv_same(d->tb.va + 100, 4096, 0x44) &&
	    !((u8 *)d->tb.va)[99] && !((u8 *)d->tb.va)[4196],
	    "RDMA WRITE of 4096 bytes: IB_WC_RDMA_WRITE, data in place (status %d, opcode %d)",
	    sw->wc.status, sw->wc.opcode);

	/* RDMA WRITE_WITH_IMM consumes a receive WQE at B. */
	ret = kv_post_recv(d, d->qb, rw, &d->rb, 0, 16);
	kv_fill(d->sa.va, 512, 0x55);
	kv_buf_dev(d, &d->sa);
	sg.length = 512;
	wr.wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
	wr.wr.ex.imm_data = cpu_to_be32(KV_IMM + 1);
	wr.remote_addr = d->tb.dma + 6000;
	if (ret || !kv_send_wait(d, d->qa, &wr.wr, sw) ||
	    !kv_wr_wait(d, rw)) {
		tap(false, "RDMA WRITE_WITH_IMM completes (%d)", ret);
		return;
	}
	kv_buf_cpu(d, &d->tb);
	tap(kv_wc_ok(sw, IB_WC_RDMA_WRITE) &&
	    kv_wc_ok(rw, IB_WC_RECV_RDMA_WITH_IMM) &&
	    (rw->wc.wc_flags & IB_WC_WITH_IMM) &&
	    be32_to_cpu(rw->wc.ex.imm_data) == KV_IMM + 1 &&
	    rw->wc.byte_len == 512 && kv_same(d->tb.va + 6000, 512, 0x55),
	    "RDMA WRITE_WITH_IMM: IB_WC_RECV_RDMA_WITH_IMM at B, imm 0x%x, 512 bytes written (status %d/%d, opcode %d, len %u)",
	    be32_to_cpu(rw->wc.ex.imm_data), sw->wc.status, rw->wc.status,
	    rw->wc.opcode, rw->wc.byte_len);

	/* RDMA READ of B's target buffer into A's local buffer. */
	kv_fill(d->tb.va, 3000, 0x66);
	kv_buf_dev(d, &d->tb);
	memset(d->la.va, 0, d->la.len);
	kv_buf_dev(d, &d->la);
	sg = kv_sge(d, &d->la, 8, 3000);
	wr.wr.opcode = IB_WR_RDMA_READ;
	wr.wr.send_flags = 0;
	wr.remote_addr = d->tb.dma;
	if (!kv_send_wait(d, d->qa, &wr.wr, sw)) {
		tap(false, "RDMA READ completes");
		return;
	}
	kv_buf_cpu(d, &d->la);
	tap(kv_wc_ok(sw, IB_WC_RDMA_READ) && sw->wc.byte_len == 3000 &&
	    kv_same(d->la.va + 8, 3000, 0x66) && !((u8 *)d->la.va)[7] &&
	    !((u8 *)d->la.va)[3008],
	    "RDMA READ of 3000 bytes: IB_WC_RDMA_READ, byte_len %u, data in place (status %d)",
	    sw->wc.byte_len, sw->wc.status);
}

/* Fast-register @mr over @b with @access through QP B's send queue. */
static bool kv_reg_mr(struct kv_dp *d, struct ib_mr *mr, struct kv_buf *b,
		      int access, const char *what)
{
	struct scatterlist sg;
	struct ib_reg_wr wr = {};
	struct kv_wr *w = kv_w(d);
	int n;

	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = b->dma;
	sg_dma_len(&sg) = b->len;
	n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	ib_update_fast_reg_key(mr, ++d->fr_key);
	wr.wr.opcode = IB_WR_REG_MR;
	wr.mr = mr;
	wr.key = mr->rkey;
	wr.access = access;
	if (n != 1 || !kv_send_wait(d, d->qb, &wr.wr, w)) {
		tap(false, "%s: IB_WR_REG_MR completes (map %d)", what, n);
		return false;
	}
	return tap(kv_wc_ok(w, IB_WC_REG_MR),
		   "%s: IB_WR_REG_MR of %u bytes, key 0x%x: IB_WC_REG_MR, success (status %d, opcode %d)",
		   what, (u32)b->len, mr->rkey, w->wc.status, w->wc.opcode);
}

static void kv_dp_atomics(struct kv_dp *d)
{
	struct ib_sge sg = kv_sge(d, &d->la, 64, 8);
	struct ib_atomic_wr wr = {
		.wr = { .sg_list = &sg, .num_sge = 1 },
	};
	u64 *target = d->atb.va, *old = d->la.va + 64;
	struct kv_wr *w = kv_w(d);

	*target = 5;
	kv_buf_dev(d, &d->atb);
	if (!kv_reg_mr(d, d->atom, &d->atb, IB_ACCESS_LOCAL_WRITE |
		       IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_REMOTE_READ,
		       "atomics target"))
		return;
	wr.rkey = d->atom->rkey;
	wr.remote_addr = d->atom->iova;
	wr.wr.opcode = IB_WR_ATOMIC_CMP_AND_SWP;
	wr.compare_add = 5;
	wr.swap = 0x900000009ULL;
	*old = 0;
	kv_buf_dev(d, &d->la);
	if (!kv_send_wait(d, d->qa, &wr.wr, w)) {
		tap(false, "ATOMIC_CMP_AND_SWP completes");
		return;
	}
	kv_buf_cpu(d, &d->la);
	kv_buf_cpu(d, &d->atb);
	tap(kv_wc_ok(w, IB_WC_COMP_SWAP) && *old == 5 &&
	    *target == 0x900000009ULL,
	    "ATOMIC_CMP_AND_SWP 5 -> 0x900000009: IB_WC_COMP_SWAP, old %llu, now 0x%llx (status %d)",
	    *old, *target, w->wc.status);

	wr.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.send_flags = 0;
	wr.compare_add = 3;
	*old = 0;
	kv_buf_dev(d, &d->la);
	if (!kv_send_wait(d, d->qa, &wr.wr, w)) {
		tap(false, "ATOMIC_FETCH_AND_ADD completes");
		return;
	}
	kv_buf_cpu(d, &d->la);
	kv_buf_cpu(d, &d->atb);
	tap(kv_wc_ok(w, IB_WC_FETCH_ADD) && *old == 0x900000009ULL &&
	    *target == 0x90000000cULL,
	    "ATOMIC_FETCH_AND_ADD 3: IB_WC_FETCH_ADD, old 0x%llx, now 0x%llx (status %d)",
	    *old, *target, w->wc.status);
}

/* RDMA WRITE of 256 bytes from A through @rkey at @addr; its completion. */
static bool kv_write_via(struct kv_dp *d, u32 rkey, u64 addr, u8 seed,
			 struct kv_wr *w)
{
	struct ib_sge sg = kv_sge(d, &d->sa, 0, 256);
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .sg_list = &sg,
			.num_sge = 1 },
		.remote_addr = addr,
		.rkey = rkey,
	};

	kv_fill(d->sa.va, 256, seed);
	kv_buf_dev(d, &d->sa);
	return kv_send_wait(d, d->qa, &wr.wr, w);
}

/*
 * Not a check: how fast the kernel path moves RDMA WRITEs from A to B,
 * in batches of 16 with the last one signaled.  Printed as a comment.
 */
static void kv_dp_rate(struct kv_dp *d, u32 len, unsigned int batches)
{
	struct ib_sge sg = kv_sge(d, &d->bs, 0, len);
	struct ib_rdma_wr wr[16] = {};
	struct kv_wr *w = kv_w(d);
	unsigned int b, i;
	u64 t0, ns;
	int ret;

	for (i = 0; i < 16; i++) {
		wr[i].wr.opcode = IB_WR_RDMA_WRITE;
		wr[i].wr.sg_list = &sg;
		wr[i].wr.num_sge = 1;
		wr[i].wr.next = i < 15 ? &wr[i + 1].wr : NULL;
		wr[i].remote_addr = d->bt.dma;
		wr[i].rkey = d->pd->unsafe_global_rkey;
	}
	wr[15].wr.send_flags = IB_SEND_SIGNALED;
	wr[15].wr.wr_cqe = &w->cqe;
	t0 = ktime_get_ns();
	for (b = 0; b < batches; b++) {
		kv_wr_init(w);
		ret = ib_post_send(d->qa, &wr[0].wr, NULL);
		if (ret || !kv_wr_wait(d, w) || w->wc.status != IB_WC_SUCCESS) {
			pr_info("# rate: batch %u failed (%d, status %d)\n", b,
				ret, w->wc.status);
			return;
		}
	}
	ns = max_t(u64, ktime_get_ns() - t0, 1);
	pr_info("# kernel RDMA WRITE %u B: %u in %llu us: %llu writes/s, %llu MB/s\n",
		len, batches * 16, ns / 1000,
		div64_u64((u64)batches * 16 * NSEC_PER_SEC, ns),
		div64_u64((u64)batches * 16 * len * 1000, ns));
}

/*
 * Fast registration and invalidation, ending with an access error that
 * moves both RC QPs to the error state.
 */
static void kv_dp_fastreg(struct kv_dp *d)
{
	struct ib_send_wr wr = {};
	struct kv_wr *w = kv_w(d), *rw = kv_w(d);
	u32 key1, key2;
	int ret;

	memset(d->frb.va, 0, d->frb.len);
	kv_buf_dev(d, &d->frb);
	if (!kv_reg_mr(d, d->fr, &d->frb, IB_ACCESS_LOCAL_WRITE |
		       IB_ACCESS_REMOTE_WRITE, "fast-reg"))
		return;
	key1 = d->fr->rkey;
	if (!kv_write_via(d, key1, d->fr->iova + 300, 0x77, w)) {
		tap(false, "RDMA WRITE through the fast-registered key completes");
		return;
	}
	kv_buf_cpu(d, &d->frb);
	tap(kv_wc_ok(w, IB_WC_RDMA_WRITE) &&
	    kv_same(d->frb.va + 300, 256, 0x77),
	    "RDMA WRITE through the new rkey 0x%x lands in the region (status %d)",
	    key1, w->wc.status);

	/* SEND_WITH_INV invalidates key1 at B. */
	ret = kv_post_recv(d, d->qb, rw, &d->rb, 0, 64);
	wr.opcode = IB_WR_SEND_WITH_INV;
	wr.ex.invalidate_rkey = key1;
	if (ret || !kv_send_wait(d, d->qa, &wr, w) || !kv_wr_wait(d, rw)) {
		tap(false, "SEND_WITH_INV completes (%d)", ret);
		return;
	}
	tap(kv_wc_ok(w, IB_WC_SEND) && kv_wc_ok(rw, IB_WC_RECV) &&
	    (rw->wc.wc_flags & IB_WC_WITH_INVALIDATE) &&
	    rw->wc.ex.invalidate_rkey == key1 && rw->wc.byte_len == 0,
	    "SEND_WITH_INV: receive has IB_WC_WITH_INVALIDATE of 0x%x (got 0x%x, status %d, flags 0x%x)",
	    key1, rw->wc.ex.invalidate_rkey, rw->wc.status, rw->wc.wc_flags);

	/* Registering again needs an invalid region: key1 must be gone. */
	if (!kv_reg_mr(d, d->fr, &d->frb, IB_ACCESS_LOCAL_WRITE |
		       IB_ACCESS_REMOTE_WRITE | IB_ACCESS_RELAXED_ORDERING,
		       "fast-reg with relaxed ordering, after SEND_WITH_INV"))
		return;
	key2 = d->fr->rkey;

	/* LOCAL_INV of key2 on B's own send queue. */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IB_WR_LOCAL_INV;
	wr.ex.invalidate_rkey = key2;
	if (!kv_send_wait(d, d->qb, &wr, w)) {
		tap(false, "LOCAL_INV completes");
		return;
	}
	tap(kv_wc_ok(w, IB_WC_LOCAL_INV),
	    "LOCAL_INV of 0x%x: IB_WC_LOCAL_INV, success (status %d, opcode %d)",
	    key2, w->wc.status, w->wc.opcode);

	/* A write through the invalidated key fails at the responder. */
	d->async = 0;
	if (!kv_write_via(d, key2, d->fr->iova, 0x88, w)) {
		tap(false, "RDMA WRITE through the invalidated key completes");
		return;
	}
	kv_buf_cpu(d, &d->frb);
	tap(w->wc.status == IB_WC_REM_ACCESS_ERR &&
	    kv_same(d->frb.va + 300, 256, 0x77) && !((u8 *)d->frb.va)[0],
	    "RDMA WRITE through the invalidated rkey: IB_WC_REM_ACCESS_ERR, region untouched (status %d)",
	    w->wc.status);
	tap(wait_event_timeout(d->wq, test_bit(IB_EVENT_QP_ACCESS_ERR,
					       &d->async), KV_TIMEOUT),
	    "responder QP B gets the async event IB_EVENT_QP_ACCESS_ERR (events 0x%lx)",
	    d->async);
}

/*
 * An RC QP E with an SRQ, fed by QP F: receives come from the SRQ, and
 * the armed limit raises IB_EVENT_SRQ_LIMIT_REACHED once the SRQ holds
 * fewer WQEs than it.
 */
static void kv_dp_srq(struct kv_dp *d)
{
	struct ib_srq_init_attr sinit = {
		.event_handler = kv_srq_event,
		.srq_context = d,
		.attr = { .max_wr = 16, .max_sge = 1 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_qp_init_attr qinit = {
		.event_handler = kv_qp_event,
		.qp_context = d,
		.send_cq = d->cqb,
		.recv_cq = d->cqb,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
		.port_num = 1,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
	};
	struct ib_sge sg = kv_sge(d, &d->sa, 0, 300);
	struct ib_send_wr wr = { .opcode = IB_WR_SEND, .sg_list = &sg,
				 .num_sge = 1 };
	struct kv_wr *rw[2], *sw;
	struct ib_srq_attr sattr = { .srq_limit = 2 };
	struct ib_srq *srq;
	struct ib_qp *qe = NULL, *qf = NULL;
	int ret;

	rw[0] = kv_w(d);
	rw[1] = kv_w(d);
	sw = kv_w(d);
	srq = ib_create_srq(d->pd, &sinit);
	if (!tap(!IS_ERR(srq), "SRQ: ib_create_srq (%d)", PTR_ERR_OR_ZERO(srq)))
		return;
	qinit.srq = srq;
	qe = ib_create_qp(d->pd, &qinit);
	qinit.srq = NULL;
	qinit.send_cq = d->cqa;
	qinit.recv_cq = d->cqa;
	qinit.cap.max_recv_wr = 1;
	qinit.cap.max_recv_sge = 1;
	qf = IS_ERR(qe) ? ERR_PTR(-EINVAL) : ib_create_qp(d->pd, &qinit);
	ret = PTR_ERR_OR_ZERO(qe) ? : PTR_ERR_OR_ZERO(qf);
	ret = ret ? : kv_rc_connect(d, qe, qf->qp_num);
	ret = ret ? : kv_rc_connect(d, qf, qe->qp_num);
	ret = ret ? : kv_post_srq_recv(d, srq, rw[0], 0);
	ret = ret ? : kv_post_srq_recv(d, srq, rw[1], 1);
	ret = ret ? : ib_modify_srq(srq, &sattr, IB_SRQ_LIMIT);
	if (!tap(!ret, "SRQ: RC QP E on it, QP F, connected; 2 receives posted, limit 2 (%d)",
		 ret))
		goto out;

	kv_fill(d->sa.va, 300, 0x99);
	kv_buf_dev(d, &d->sa);
	if (!kv_send_wait(d, qf, &wr, sw) || !kv_wr_wait(d, rw[0])) {
		tap(false, "SRQ: SEND from F to E completes");
		goto out;
	}
	kv_buf_cpu(d, &d->rb);
	tap(kv_wc_ok(sw, IB_WC_SEND) && kv_wc_ok(rw[0], IB_WC_RECV) &&
	    rw[0]->wc.qp == qe && rw[0]->wc.byte_len == 300 &&
	    kv_same(d->rb.va, 300, 0x99) && !completion_done(&rw[1]->done),
	    "SRQ: the first SRQ receive takes F's SEND, wc.qp E, 300 bytes (status %d, len %u)",
	    rw[0]->wc.status, rw[0]->wc.byte_len);
	tap(wait_event_timeout(d->wq, test_bit(IB_EVENT_SRQ_LIMIT_REACHED,
					       &d->async), KV_TIMEOUT),
	    "SRQ: fewer WQEs than the limit raises IB_EVENT_SRQ_LIMIT_REACHED (events 0x%lx)",
	    d->async);
	memset(&sattr, 0, sizeof(sattr));
	ret = ib_query_srq(srq, &sattr);
	tap(!ret && sattr.srq_limit == 0,
	    "SRQ: the limit is disarmed after the event (%d, limit %u)", ret,
	    sattr.srq_limit);
out:
	if (!IS_ERR_OR_NULL(qf)) {
		if (!d->hung)
			ib_drain_qp(qf);
		ib_destroy_qp(qf);
	}
	if (!IS_ERR_OR_NULL(qe)) {
		if (!d->hung)
			ib_drain_qp(qe);
		ib_destroy_qp(qe);
	}
	/* The second receive was flushed by the drain, or is discarded. */
	tap(!ib_destroy_srq_user(srq, NULL), "SRQ: ib_destroy_srq");
}

/* Outstanding receives are flushed, and ib_drain_qp returns. */
static void kv_dp_drain(struct kv_dp *d)
{
	struct kv_wr *rw = kv_w(d);
	int ret;

	ret = kv_post_recv(d, d->qa, rw, &d->la, 0, 64);
	tap(!ret, "ib_post_recv on A (%d)", ret);
	if (d->hung) {
		tap(false, "ib_drain_qp (skipped: the device hung earlier)");
		return;
	}
	ib_drain_qp(d->qa);
	ib_drain_qp(d->qb);
	tap(true, "ib_drain_qp of A and B returns");
	tap(!ret && completion_done(&rw->done) &&
	    rw->wc.status == IB_WC_WR_FLUSH_ERR,
	    "the outstanding receive on A completed with IB_WC_WR_FLUSH_ERR (status %d)",
	    rw->wc.status);
}

/* Poll one completion of the event CQ (raw, wr_id based). */
static bool kv_poll_one(struct kv_dp *d, struct ib_wc *wc)
{
	unsigned long end = jiffies + KV_TIMEOUT;

	if (d->hung)
		return false;
	do {
		if (ib_poll_cq(d->evcq, 1, wc) == 1)
			return true;
		usleep_range(100, 1000);
	} while (time_before(jiffies, end));
	d->hung = true;
	pr_info("# no completion on the event CQ: data-path tests stop\n");
	return false;
}

static bool kv_ud_send(struct kv_dp *d, u8 seed, u32 len, int flags,
		       bool imm)
{
	struct ib_sge sg = kv_sge(d, &d->sc, 0, len);
	struct ib_ud_wr wr = {
		.wr = { .opcode = imm ? IB_WR_SEND_WITH_IMM : IB_WR_SEND,
			.sg_list = &sg, .num_sge = 1, .send_flags = flags,
			.ex.imm_data = cpu_to_be32(KV_IMM + seed) },
		.ah = d->ah,
		.remote_qpn = d->qd->qp_num,
		.remote_qkey = KV_QKEY,
	};
	struct kv_wr *w = kv_w(d);

	kv_fill(d->sc.va, len, seed);
	kv_buf_dev(d, &d->sc);
	return kv_send_wait(d, d->qc, &wr.wr, w) && kv_wc_ok(w, IB_WC_SEND);
}

static bool kv_ud_check(struct kv_dp *d, struct ib_wc *wc, u64 slot, u8 seed,
			u32 len)
{
	kv_buf_cpu(d, &d->rd);
	return wc->status == IB_WC_SUCCESS && wc->opcode == IB_WC_RECV &&
	       wc->wr_id == slot && wc->byte_len == len + KV_GRH &&
	       kv_same(d->rd.va + slot * 512 + KV_GRH, len, seed);
}

/*
 * UD traffic from C to D, D's receive CQ having a completion handler:
 * one event per arm, IB_CQ_REPORT_MISSED_EVENTS, IB_CQ_SOLICITED.
 */
static void kv_dp_ud_events(struct kv_dp *d)
{
	struct ib_recv_wr rwr[6];
	struct ib_sge rsg[6];
	struct ib_wc wc;
	int i, ret;

	for (i = 0; i < 6; i++) {
		rsg[i] = kv_sge(d, &d->rd, i * 512, 512);
		memset(&rwr[i], 0, sizeof(rwr[i]));
		rwr[i].wr_id = i;
		rwr[i].sg_list = &rsg[i];
		rwr[i].num_sge = 1;
		rwr[i].next = i < 5 ? &rwr[i + 1] : NULL;
	}
	ret = ib_post_recv(d->qd, rwr, NULL);
	tap(!ret, "UD: a list of 6 receives on D (%d)", ret);

	ret = ib_req_notify_cq(d->evcq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS);
	tap(ret == 0,
	    "ib_req_notify_cq, CQ empty: IB_CQ_REPORT_MISSED_EVENTS gives 0 (%d)",
	    ret);
	if (!kv_ud_send(d, 0x10, 200, 0, false)) {
		tap(false, "UD SEND completes");
		return;
	}
	tap(wait_event_timeout(d->wq, atomic_read(&d->events) >= 1,
			       KV_TIMEOUT),
	    "UD SEND to an armed CQ raises one completion event (%d)",
	    atomic_read(&d->events));
	ret = ib_req_notify_cq(d->evcq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS);
	tap(ret == 1,
	    "ib_req_notify_cq, completion waiting: IB_CQ_REPORT_MISSED_EVENTS gives 1 (%d)",
	    ret);
	if (!kv_poll_one(d, &wc)) {
		tap(false, "UD receive completion");
		return;
	}
	tap(kv_ud_check(d, &wc, 0, 0x10, 200) && wc.qp == d->qd &&
	    wc.src_qp == d->qc->qp_num,
	    "UD receive: IB_WC_RECV of 40 + 200 bytes, payload after the GRH, wc.qp D, src_qp %u = C (status %d, len %u)",
	    wc.src_qp, wc.status, wc.byte_len);
	tap((wc.wc_flags & IB_WC_GRH) &&
	    (wc.wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE) &&
	    wc.network_hdr_type == RDMA_NETWORK_IPV6,
	    "UD receive: IB_WC_GRH, network_hdr_type IPv6 for the link-local GID (flags 0x%x, type %u)",
	    wc.wc_flags, wc.network_hdr_type);

	/* Armed again; then one more SEND without re-arming. */
	ret = ib_req_notify_cq(d->evcq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS);
	tap(ret == 0, "ib_req_notify_cq after polling everything returns 0 (%d)",
	    ret);
	if (!kv_ud_send(d, 0x20, 100, 0, false) ||
	    !wait_event_timeout(d->wq, atomic_read(&d->events) >= 2,
				KV_TIMEOUT)) {
		tap(false, "second event (events %d)", atomic_read(&d->events));
		return;
	}
	if (!kv_ud_send(d, 0x30, 100, 0, false) || !kv_poll_one(d, &wc) ||
	    !kv_ud_check(d, &wc, 1, 0x20, 100) || !kv_poll_one(d, &wc) ||
	    !kv_ud_check(d, &wc, 2, 0x30, 100)) {
		tap(false, "two more UD receives");
		return;
	}
	tap(atomic_read(&d->events) == 2,
	    "one event per arm: a completion after the event, without re-arm, raises none (%d)",
	    atomic_read(&d->events));

	/* Solicited only: an unsolicited receive raises nothing. */
	ret = ib_req_notify_cq(d->evcq, IB_CQ_SOLICITED);
	if (ret || !kv_ud_send(d, 0x40, 100, 0, false) || !kv_poll_one(d, &wc) ||
	    !kv_ud_check(d, &wc, 3, 0x40, 100)) {
		tap(false, "unsolicited UD receive (%d)", ret);
		return;
	}
	tap(atomic_read(&d->events) == 2,
	    "IB_CQ_SOLICITED: an unsolicited completion raises no event (%d)",
	    atomic_read(&d->events));
	if (!kv_ud_send(d, 0x50, 100, IB_SEND_SOLICITED, true)) {
		tap(false, "solicited UD SEND_WITH_IMM completes");
		return;
	}
	tap(wait_event_timeout(d->wq, atomic_read(&d->events) >= 3,
			       KV_TIMEOUT),
	    "IB_CQ_SOLICITED: a solicited SEND_WITH_IMM raises the event (%d)",
	    atomic_read(&d->events));
	if (!kv_poll_one(d, &wc)) {
		tap(false, "solicited UD receive");
		return;
	}
	tap(kv_ud_check(d, &wc, 4, 0x50, 100) &&
	    (wc.wc_flags & IB_WC_WITH_IMM) &&
	    be32_to_cpu(wc.ex.imm_data) == KV_IMM + 0x50,
	    "UD SEND_WITH_IMM: IB_WC_WITH_IMM, imm 0x%x (status %d, flags 0x%x)",
	    be32_to_cpu(wc.ex.imm_data), wc.status, wc.wc_flags);

	/*
	 * The arm word's SEQ has 16 bits: 65536 arms in a row, then one
	 * completion, still raise exactly the one event of the last arm.
	 */
	for (i = 0, ret = 0; i < 65536 && !ret; i++)
		ret = ib_req_notify_cq(d->evcq, IB_CQ_NEXT_COMP);
	if (ret || !kv_ud_send(d, 0x60, 100, 0, false)) {
		tap(false, "65536 arms, then a UD SEND (%d)", ret);
		return;
	}
	tap(wait_event_timeout(d->wq, atomic_read(&d->events) >= 4,
			       KV_TIMEOUT),
	    "65536 ib_req_notify_cq in a row, then a completion: the event comes (%d)",
	    atomic_read(&d->events));
	if (!kv_poll_one(d, &wc)) {
		tap(false, "UD receive after 65536 arms");
		return;
	}
	tap(kv_ud_check(d, &wc, 5, 0x60, 100) && atomic_read(&d->events) == 4,
	    "  and it is the only one (%d events)", atomic_read(&d->events));
}

/* ib_post_send / ib_post_recv rules, on QPs that never reach RTS. */
static void kv_dp_post_rules(struct kv_dp *d)
{
	const struct ib_send_wr *sbad = NULL;
	const struct ib_recv_wr *rbad = NULL;
	struct ib_send_wr *swr = NULL;
	struct ib_recv_wr *rwr = NULL;
	struct ib_sge sg[4], big;
	struct ib_qp_init_attr qinit;
	struct ib_cq_init_attr cq_attr = { .cqe = 64 };
	struct ib_qp_attr attr;
	struct ib_cq *cq;
	struct ib_qp *qp;
	u32 n_send, n_recv, i;
	int ret;

	/* A CQ of its own: these WRs carry no completion context. */
	cq = ib_create_cq(d->c->ibdev, NULL, NULL, NULL, &cq_attr);
	if (!tap(!IS_ERR(cq), "rules: ib_create_cq (%d)", PTR_ERR_OR_ZERO(cq)))
		return;
	qp = kv_dp_qp(d, IB_QPT_RC, cq, cq);
	if (!tap(!IS_ERR(qp), "rules: ib_create_qp RC (%d)",
		 PTR_ERR_OR_ZERO(qp))) {
		ib_destroy_cq(cq);
		return;
	}
	ret = ib_query_qp(qp, &attr, IB_QP_CAP, &qinit);
	n_send = qinit.cap.max_send_wr;
	n_recv = qinit.cap.max_recv_wr;
	swr = kcalloc(n_send + 1, sizeof(*swr), GFP_KERNEL);
	rwr = kcalloc(n_recv + 1, sizeof(*rwr), GFP_KERNEL);
	if (ret || !swr || !rwr) {
		tap(false, "rules: query caps and allocate WR lists (%d)", ret);
		goto out;
	}
	for (i = 0; i < 4; i++)
		sg[i] = kv_sge(d, &d->sa, i * 16, 16);
	for (i = 0; i <= n_send; i++) {
		swr[i].opcode = IB_WR_SEND;
		swr[i].next = i < n_send ? &swr[i + 1] : NULL;
	}
	for (i = 0; i <= n_recv; i++)
		rwr[i].next = i < n_recv ? &rwr[i + 1] : NULL;

	ret = ib_post_recv(qp, rwr, &rbad);
	tap(ret == -EINVAL && rbad == rwr,
	    "ib_post_recv in RESET fails with -EINVAL, bad_wr the first (%d)",
	    ret);
	ret = ib_post_send(qp, swr, &sbad);
	tap(ret == -EINVAL && sbad == swr,
	    "ib_post_send in RESET fails with -EINVAL, bad_wr the first (%d)",
	    ret);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	tap(!ret, "rules: RESET -> INIT (%d)", ret);

	/* Receives: n_recv fit (zero-length ones), the one beyond does not. */
	rbad = NULL;
	ret = ib_post_recv(qp, rwr, &rbad);
	tap(ret == -ENOMEM && rbad == &rwr[n_recv],
	    "a list of max_recv_wr + 1 = %u receives: -ENOMEM at the last one (%d, bad_wr #%ld)",
	    n_recv + 1, ret, rbad ? (long)(rbad - rwr) : -1L);

	/* Sends: too many SGEs, too much inline, a bad opcode. */
	swr[0].next = NULL;
	swr[0].sg_list = sg;
	swr[0].num_sge = qinit.cap.max_send_sge + 1;
	sbad = NULL;
	ret = ib_post_send(qp, swr, &sbad);
	tap(ret == -EINVAL && sbad == swr,
	    "ib_post_send with num_sge = max_send_sge + 1 = %u fails with -EINVAL (%d)",
	    qinit.cap.max_send_sge + 1, ret);
	big.addr = (uintptr_t)d->sa.va;
	big.length = qinit.cap.max_inline_data + 1;
	big.lkey = 0;
	swr[0].sg_list = &big;
	swr[0].num_sge = 1;
	swr[0].send_flags = IB_SEND_INLINE;
	sbad = NULL;
	ret = ib_post_send(qp, swr, &sbad);
	tap(ret == -EINVAL && sbad == swr,
	    "ib_post_send of %u inline bytes (max_inline_data + 1) fails with -EINVAL (%d)",
	    qinit.cap.max_inline_data + 1, ret);
	swr[0].send_flags = 0;
	swr[0].num_sge = 0;
	swr[0].opcode = IB_WR_BIND_MW;
	sbad = NULL;
	ret = ib_post_send(qp, swr, &sbad);
	tap(ret == -EINVAL && sbad == swr,
	    "ib_post_send of an opcode the device does not have fails with -EINVAL (%d)",
	    ret);

	/* In order up to the first failure: the good first WR is posted. */
	swr[0].opcode = IB_WR_SEND;
	swr[0].next = &swr[1];
	swr[1].opcode = IB_WR_BIND_MW;
	swr[1].next = NULL;
	sbad = NULL;
	ret = ib_post_send(qp, swr, &sbad);
	tap(ret == -EINVAL && sbad == &swr[1],
	    "a list [good, bad]: -EINVAL with bad_wr the second (%d)", ret);
	for (i = 0; i <= n_send; i++) {
		swr[i].opcode = IB_WR_SEND;
		swr[i].next = i < n_send ? &swr[i + 1] : NULL;
	}
	sbad = NULL;
	ret = ib_post_send(qp, swr, &sbad);
	tap(ret == -ENOMEM && sbad == &swr[n_send - 1],
	    "then max_send_wr = %u more: -ENOMEM at #%u, the first of the list took a slot (%d, bad_wr #%ld)",
	    n_send, n_send - 1, ret, sbad ? (long)(sbad - swr) : -1L);

	/* A move to RESET drops every WQE: both queues take a full load. */
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RESET;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE);
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	ret = ret ? : ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
				   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	rwr[n_recv - 1].next = NULL;
	swr[n_send - 1].next = NULL;
	ret = ret ? : ib_post_recv(qp, rwr, &rbad);
	ret = ret ? : ib_post_send(qp, swr, &sbad);
	tap(!ret,
	    "full queues -> RESET -> INIT: max_recv_wr receives and max_send_wr sends fit again (%d)",
	    ret);
out:
	kfree(swr);
	kfree(rwr);
	tap(!ib_destroy_qp(qp), "rules: ib_destroy_qp with WRs still queued");
	ib_destroy_cq(cq);
}

static void kv_dp_ud_rules(struct kv_dp *d)
{
	struct ib_sge sg = kv_sge(d, &d->sc, 0, 8);
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .sg_list = &sg,
			.num_sge = 1 },
	};
	const struct ib_send_wr *bad = NULL;
	int ret;

	ret = ib_post_send(d->qc, &wr.wr, &bad);
	tap(ret == -EINVAL && bad == &wr.wr,
	    "RDMA WRITE on a UD QP fails with -EINVAL (%d)", ret);
}

static int kv_dp_setup(struct kv_dp *d)
{
	struct ib_device *ibdev = d->c->ibdev;
	struct ib_cq_init_attr cq_attr = { .cqe = 64 };
	struct rdma_ah_attr ah_attr;
	int ret;

	d->pd = ib_alloc_pd(ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(d->pd))
		return PTR_ERR(d->pd);
	d->cqa = ib_alloc_cq(ibdev, d, 64, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(d->cqa))
		return PTR_ERR(d->cqa);
	d->cqb = ib_alloc_cq(ibdev, d, 64, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(d->cqb))
		return PTR_ERR(d->cqb);
	d->cqc = ib_alloc_cq(ibdev, d, 64, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(d->cqc))
		return PTR_ERR(d->cqc);
	cq_attr.comp_vector = ibdev->num_comp_vectors - 1;
	d->evcq = ib_create_cq(ibdev, kv_comp_event, NULL, d, &cq_attr);
	if (IS_ERR(d->evcq))
		return PTR_ERR(d->evcq);
	d->qa = kv_dp_qp(d, IB_QPT_RC, d->cqa, d->cqa);
	if (IS_ERR(d->qa))
		return PTR_ERR(d->qa);
	d->qb = kv_dp_qp(d, IB_QPT_RC, d->cqb, d->cqb);
	if (IS_ERR(d->qb))
		return PTR_ERR(d->qb);
	d->qc = kv_dp_qp(d, IB_QPT_UD, d->cqc, d->cqc);
	if (IS_ERR(d->qc))
		return PTR_ERR(d->qc);
	d->qd = kv_dp_qp(d, IB_QPT_UD, d->cqc, d->evcq);
	if (IS_ERR(d->qd))
		return PTR_ERR(d->qd);
	d->fr = ib_alloc_mr(d->pd, IB_MR_TYPE_MEM_REG, 4);
	if (IS_ERR(d->fr))
		return PTR_ERR(d->fr);
	d->atom = ib_alloc_mr(d->pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(d->atom))
		return PTR_ERR(d->atom);
	/* The UD traffic below goes through an AH made as ib_cm makes them. */
	kv_fill_ah(d->c, &ah_attr);
	spin_lock_irq(&kv_atomic_lock);
	d->ah = rdma_create_ah(d->pd, &ah_attr, 0);
	spin_unlock_irq(&kv_atomic_lock);
	if (IS_ERR(d->ah))
		return PTR_ERR(d->ah);
	ret = kv_buf_alloc(d, &d->sa, KV_BUF_SIZE) ? :
	      kv_buf_alloc(d, &d->la, KV_BUF_SIZE) ? :
	      kv_buf_alloc(d, &d->rb, KV_BUF_SIZE) ? :
	      kv_buf_alloc(d, &d->tb, KV_BUF_SIZE) ? :
	      kv_buf_alloc(d, &d->rd, 6 * 512) ? :
	      kv_buf_alloc(d, &d->sc, 512) ? :
	      kv_buf_alloc(d, &d->frb, 2 * PAGE_SIZE) ? :
	      kv_buf_alloc(d, &d->atb, PAGE_SIZE) ? :
	      kv_buf_alloc(d, &d->bs, SZ_64K) ? :
	      kv_buf_alloc(d, &d->bt, SZ_64K);
	if (ret)
		return ret;
	ret = kv_rc_connect(d, d->qa, d->qb->qp_num);
	ret = ret ? : kv_rc_connect(d, d->qb, d->qa->qp_num);
	ret = ret ? : kv_ud_up(d->qc);
	return ret ? : kv_ud_up(d->qd);
}

static void kv_dp_teardown(struct kv_dp *d)
{
	if (!IS_ERR_OR_NULL(d->ah))
		rdma_destroy_ah(d->ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (!IS_ERR_OR_NULL(d->fr))
		ib_dereg_mr(d->fr);
	if (!IS_ERR_OR_NULL(d->atom))
		ib_dereg_mr(d->atom);
	if (!IS_ERR_OR_NULL(d->qd))
		ib_destroy_qp(d->qd);
	if (!IS_ERR_OR_NULL(d->qc))
		ib_destroy_qp(d->qc);
	if (!IS_ERR_OR_NULL(d->qb))
		ib_destroy_qp(d->qb);
	if (!IS_ERR_OR_NULL(d->qa))
		ib_destroy_qp(d->qa);
	if (!IS_ERR_OR_NULL(d->evcq))
		ib_destroy_cq(d->evcq);
	if (!IS_ERR_OR_NULL(d->cqc))
		ib_free_cq(d->cqc);
	if (!IS_ERR_OR_NULL(d->cqb))
		ib_free_cq(d->cqb);
	if (!IS_ERR_OR_NULL(d->cqa))
		ib_free_cq(d->cqa);
	kv_buf_free(d, &d->sa);
	kv_buf_free(d, &d->la);
	kv_buf_free(d, &d->rb);
	kv_buf_free(d, &d->tb);
	kv_buf_free(d, &d->rd);
	kv_buf_free(d, &d->sc);
	kv_buf_free(d, &d->frb);
	kv_buf_free(d, &d->atb);
	kv_buf_free(d, &d->bs);
	kv_buf_free(d, &d->bt);
	if (!IS_ERR_OR_NULL(d->pd))
		ib_dealloc_pd(d->pd);
}

static void kv_test_dp(struct kv_ctx *c)
{
	struct kv_dp *d = kzalloc(sizeof(*d), GFP_KERNEL);
	int ret;

	if (!tap(d, "data path: context"))
		return;
	d->c = c;
	init_waitqueue_head(&d->wq);
	atomic_set(&d->events, 0);
	ret = kv_dp_setup(d);
	if (tap(!ret,
		"data path: PD, 4 CQs, 2 RC + 2 UD QPs in RTS, 2 MRs, an AH (%d)",
		ret)) {
		kv_dp_post_rules(d);
		kv_dp_ud_rules(d);
		kv_dp_rc_send(d);
		kv_dp_unsignaled(d);
		kv_dp_rdma(d);
		kv_dp_atomics(d);
		kv_dp_ud_events(d);
		kv_dp_srq(d);
		kv_dp_rate(d, 64, 500);
		kv_dp_rate(d, SZ_64K, 50);
		kv_dp_fastreg(d);
		kv_dp_drain(d);
	}
	kv_dp_teardown(d);
	tap(true, "data path: everything destroyed");
	kfree(d);
}

/* ------------------------------------------------------------------
 * Queues at the largest sizes the device advertises (interface 1.7,
 * paged rings): a CQ of max_cqe entries, an RC pair whose SQs and RQs
 * hold max_qp_wr WQEs of max_send_sge / max_recv_sge SGEs, an SRQ of
 * max_srq_wr WQEs of max_srq_sge SGEs.  Each receive queue is filled
 * (one more receive is refused with -ENOMEM) and consumed twice, so
 * every ring index wraps; RDMA WRITEs of max_send_sge pieces take the
 * CQ past its wrap.  Every completion and every byte is checked.  With
 * no_ring_pbl the device has no paged rings: those queues must be
 * refused with -ENOMEM, and a QP of 1024 WQEs of one SGE must work.
 *
 * The buffers are single pages, each mapped on its own, so that nothing
 * here needs a large allocation either; no SGE crosses a page.
 */
#define KM_BATCH	64	/* WRs per post, completions per poll */
#define KM_SPIECE	4	/* send buffer bytes per send SGE (1 to 4 used) */
#define KM_TAG_SEND	1ULL
#define KM_TAG_RECV	2ULL
#define KM_POISON	0xa5
#define KM_NDIAG	5
#define KM_SMALL_WR	1024

struct km_pbuf {
	struct page **pages;
	u64 *dma;
	unsigned int npages;
	size_t len;
};

struct km_flow {
	const char *name;
	struct ib_device *ibdev;
	struct ib_pd *pd;		/* with the unsafe global rkey */
	struct ib_cq *cq;		/* every completion of both QPs */
	struct ib_qp *sqp;		/* posts the SENDs and WRITEs */
	struct ib_qp *rqp;		/* takes the SENDs */
	struct ib_srq *srq;		/* the receives go here if set */
	u32 sq_room;			/* the sender's max_send_wr */
	u32 nwr;			/* WQEs of the receive queue */
	u32 ns, nr;			/* SGEs per send, per receive */
	u32 rslot;			/* receive buffer bytes per receive SGE */
	u32 wslot;			/* bytes per WRITE target */
	struct km_pbuf sbuf, rbuf;
	struct ib_sge *sge;
	struct ib_rdma_wr *swr;
	struct ib_recv_wr *rwr;
	struct ib_wc wc[KM_BATCH];
	u64 cqes;			/* completions through the CQ */
	bool ready;
};

struct km_state {
	u32 posted, sdone, rdone, bad_s, bad_r;
	bool post_err, poll_err, stalled;
};

static u64 km_wr_id(u64 tag, unsigned int round, u32 i)
{
	return tag << 56 | (u64)round << 32 | i;
}

/* Byte @k of the message with @seed: no short period. */
static u8 km_pat(u32 seed, u32 k)
{
	u32 x = k * 2654435761U + seed * 40503U + 0x9e37U;

	x ^= x >> 15;
	x *= 0x2c1b3c6dU;
	x ^= x >> 12;
	return x;
}

static u32 km_seed(unsigned int round, u32 i)
{
	return (u32)round << 24 ^ i;
}

static u32 km_slen(u32 i, u32 j)
{
	return 1 + (i * 7 + j * 3) % KM_SPIECE;
}

static u32 km_msg_len(const struct km_flow *f, u32 i)
{
	u32 j, t = 0;

	for (j = 0; j < f->ns; j++)
		t += km_slen(i, j);
	return t;
}

/* Receive piece j of receive i for a message of @t bytes (1 to 2 spare). */
static u32 km_rlen(const struct km_flow *f, u32 i, u32 j, u32 t)
{
	return DIV_ROUND_UP(t, f->nr) + (i + j) % 3;
}

static void km_pbuf_free(struct ib_device *ibdev, struct km_pbuf *b)
{
	unsigned int i;

	for (i = 0; b->pages && i < b->npages; i++) {
		if (!b->pages[i])
			break;
		ib_dma_unmap_page(ibdev, b->dma[i], PAGE_SIZE, DMA_BIDIRECTIONAL);
		__free_page(b->pages[i]);
	}
	kvfree(b->pages);
	kvfree(b->dma);
	memset(b, 0, sizeof(*b));
}

static int km_pbuf_alloc(struct ib_device *ibdev, struct km_pbuf *b, size_t len)
{
	unsigned int i;

	b->len = len;
	b->npages = DIV_ROUND_UP(len, PAGE_SIZE);
	b->pages = kvcalloc(b->npages, sizeof(*b->pages), GFP_KERNEL);
	b->dma = kvcalloc(b->npages, sizeof(*b->dma), GFP_KERNEL);
	if (!b->pages || !b->dma)
		goto err;
	for (i = 0; i < b->npages; i++) {
		struct page *page = alloc_page(GFP_KERNEL);

		if (!page)
			goto err;
		b->dma[i] = ib_dma_map_page(ibdev, page, 0, PAGE_SIZE,
					    DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(ibdev, b->dma[i])) {
			__free_page(page);
			goto err;
		}
		b->pages[i] = page;
	}
	return 0;
err:
	km_pbuf_free(ibdev, b);
	return -ENOMEM;
}

static u8 *km_byte(struct km_pbuf *b, size_t off)
{
	return (u8 *)page_address(b->pages[off >> PAGE_SHIFT]) + offset_in_page(off);
}

static struct ib_sge km_sge(struct km_flow *f, struct km_pbuf *b, size_t off,
			    u32 len)
{
	struct ib_sge sge = {
		.addr = b->dma[off >> PAGE_SHIFT] + offset_in_page(off),
		.length = len,
		.lkey = f->pd->local_dma_lkey,
	};

	return sge;
}

static void km_pbuf_sync(struct ib_device *ibdev, struct km_pbuf *b, bool cpu)
{
	unsigned int i;

	for (i = 0; i < b->npages; i++) {
		if (cpu)
			ib_dma_sync_single_for_cpu(ibdev, b->dma[i], PAGE_SIZE,
						   DMA_BIDIRECTIONAL);
		else
			ib_dma_sync_single_for_device(ibdev, b->dma[i], PAGE_SIZE,
						      DMA_BIDIRECTIONAL);
	}
}

static void km_pbuf_set(struct km_pbuf *b, u8 v)
{
	unsigned int i;

	for (i = 0; i < b->npages; i++)
		memset(page_address(b->pages[i]), v, PAGE_SIZE);
}

static struct ib_qp *km_qp(struct km_flow *f, struct ib_srq *srq, u32 swr,
			   u32 ssge, u32 rwr, u32 rsge, struct ib_qp_cap *cap)
{
	struct ib_qp_init_attr init = {
		.send_cq = f->cq,
		.recv_cq = f->cq,
		.srq = srq,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
		.port_num = 1,
		.cap = {
			.max_send_wr = swr,
			.max_send_sge = ssge,
			.max_recv_wr = srq ? 0 : rwr,
			.max_recv_sge = srq ? 0 : rsge,
		},
	};
	struct ib_qp *qp = ib_create_qp(f->pd, &init);

	*cap = init.cap;
	if (IS_ERR(qp)) {
		pr_info("# %s: ib_create_qp(%u x %u send, %u x %u receive): %ld\n",
			f->name, swr, ssge, rwr, rsge, PTR_ERR(qp));
		return NULL;
	}
	return qp;
}

static bool km_caps_cover(const struct ib_qp_cap *c, u32 swr, u32 ssge,
			  u32 rwr, u32 rsge)
{
	return c->max_send_wr >= swr && c->max_send_sge >= ssge &&
	       c->max_recv_wr >= rwr && c->max_recv_sge >= rsge;
}

/* Buffers and WR arrays for up to @nmsg messages a round. */
static int km_flow_bufs(struct km_flow *f, u32 nmsg)
{
	u32 nsge = max(f->ns, f->nr);

	f->rslot = roundup_pow_of_two(KM_SPIECE * DIV_ROUND_UP(f->ns, f->nr) + 3);
	f->wslot = roundup_pow_of_two(KM_SPIECE * f->ns + 4);
	if (f->rslot > PAGE_SIZE || f->wslot > PAGE_SIZE) {
		pr_info("# %s: %u SGEs per send do not fit the buffer layout\n",
			f->name, f->ns);
		return -EINVAL;
	}
	if (km_pbuf_alloc(f->ibdev, &f->sbuf, (size_t)nmsg * f->ns * KM_SPIECE) ||
	    km_pbuf_alloc(f->ibdev, &f->rbuf,
			  (size_t)nmsg * max(f->nr * f->rslot, f->wslot)))
		return -ENOMEM;
	f->sge = kcalloc(KM_BATCH * nsge, sizeof(*f->sge), GFP_KERNEL);
	f->swr = kcalloc(KM_BATCH, sizeof(*f->swr), GFP_KERNEL);
	f->rwr = kcalloc(KM_BATCH, sizeof(*f->rwr), GFP_KERNEL);
	return f->sge && f->swr && f->rwr ? 0 : -ENOMEM;
}

static bool km_flow_destroy(struct km_flow *f)
{
	bool good = true;

	if (f->sqp && ib_destroy_qp(f->sqp))
		good = false;
	if (f->rqp && ib_destroy_qp(f->rqp))
		good = false;
	if (f->srq && ib_destroy_srq_user(f->srq, NULL))
		good = false;
	if (f->cq && ib_destroy_cq_user(f->cq, NULL))
		good = false;
	km_pbuf_free(f->ibdev, &f->sbuf);
	km_pbuf_free(f->ibdev, &f->rbuf);
	kfree(f->sge);
	kfree(f->swr);
	kfree(f->rwr);
	if (f->pd && ib_dealloc_pd_user(f->pd, NULL))
		good = false;
	return good;
}

/* A PD, a CQ of @cqe entries, one point. */
static bool km_flow_start(struct kv_ctx *c, struct km_flow *f, int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct ib_cq *cq = NULL;
	struct ib_pd *pd;

	f->ibdev = c->ibdev;
	pd = ib_alloc_pd(c->ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (!IS_ERR(pd)) {
		f->pd = pd;
		cq = ib_create_cq(c->ibdev, NULL, NULL, NULL, &attr);
		if (!IS_ERR(cq))
			f->cq = cq;
	}
	return tap(f->cq && f->cq->cqe >= cqe,
		   "%s: a PD, ib_create_cq of %d entries (%ld, cqe %d)", f->name,
		   cqe, IS_ERR(pd) ? PTR_ERR(pd) : PTR_ERR_OR_ZERO(cq),
		   f->cq ? f->cq->cqe : -1);
}

static void km_fill(struct km_flow *f, unsigned int round, u32 cnt)
{
	u32 i, j, b, k;

	for (i = 0; i < cnt; i++) {
		u32 seed = km_seed(round, i);

		for (j = 0, k = 0; j < f->ns; j++)
			for (b = 0; b < km_slen(i, j); b++)
				*km_byte(&f->sbuf, ((size_t)i * f->ns + j) * KM_SPIECE + b) =
					km_pat(seed, k++);
	}
	km_pbuf_set(&f->rbuf, KM_POISON);
	km_pbuf_sync(f->ibdev, &f->sbuf, false);
	km_pbuf_sync(f->ibdev, &f->rbuf, false);
}

static int km_post_recvs(struct km_flow *f, unsigned int round, u32 cnt)
{
	const struct ib_recv_wr *bad = NULL;
	u32 i = 0, b, nb, j, t;
	int ret;

	while (i < cnt) {
		nb = min_t(u32, cnt - i, KM_BATCH);
		for (b = 0; b < nb; b++, i++) {
			struct ib_sge *sg = f->sge + (size_t)b * f->nr;

			t = km_msg_len(f, i);
			for (j = 0; j < f->nr; j++)
				sg[j] = km_sge(f, &f->rbuf,
					       ((size_t)i * f->nr + j) * f->rslot,
					       km_rlen(f, i, j, t));
			f->rwr[b] = (struct ib_recv_wr){
				.wr_id = km_wr_id(KM_TAG_RECV, round, i),
				.sg_list = sg,
				.num_sge = f->nr,
				.next = b + 1 < nb ? &f->rwr[b + 1] : NULL,
			};
		}
		ret = f->srq ? ib_post_srq_recv(f->srq, f->rwr, &bad) :
			       ib_post_recv(f->rqp, f->rwr, &bad);
		if (ret) {
			pr_info("# %s, round %u: posting receives %u..%u: %d\n",
				f->name, round, i - nb, i - 1, ret);
			return ret;
		}
	}
	return 0;
}

/* One receive more than the queue holds: what ib_post_*recv says. */
static int km_one_more(struct km_flow *f, unsigned int round)
{
	struct ib_sge sg = km_sge(f, &f->rbuf, 0, 1);
	struct ib_recv_wr wr = {
		.wr_id = km_wr_id(KM_TAG_RECV, round, U32_MAX),
		.sg_list = &sg,
		.num_sge = 1,
	};
	const struct ib_recv_wr *bad = NULL;
	int ret;

	ret = f->srq ? ib_post_srq_recv(f->srq, &wr, &bad) :
		       ib_post_recv(f->rqp, &wr, &bad);
	if (ret && bad != &wr)
		pr_info("# %s: the refused receive is not the one bad_wr names\n",
			f->name);
	return ret && bad == &wr ? ret : ret ? -EFAULT : 0;
}

static int km_post_sends(struct km_flow *f, unsigned int round, u32 from,
			 u32 n, bool write)
{
	const struct ib_send_wr *bad = NULL;
	u32 b, j, i;
	int ret;

	for (b = 0; b < n; b++) {
		struct ib_sge *sg = f->sge + (size_t)b * f->ns;
		struct ib_rdma_wr *wr = &f->swr[b];

		i = from + b;
		for (j = 0; j < f->ns; j++)
			sg[j] = km_sge(f, &f->sbuf,
				       ((size_t)i * f->ns + j) * KM_SPIECE,
				       km_slen(i, j));
		memset(wr, 0, sizeof(*wr));
		wr->wr.wr_id = km_wr_id(KM_TAG_SEND, round, i);
		wr->wr.next = b + 1 < n ? &f->swr[b + 1].wr : NULL;
		wr->wr.sg_list = sg;
		wr->wr.num_sge = f->ns;
		wr->wr.opcode = write ? IB_WR_RDMA_WRITE : IB_WR_SEND;
		wr->wr.send_flags = IB_SEND_SIGNALED;
		if (write) {
			size_t off = (size_t)i * f->wslot;

			wr->remote_addr = f->rbuf.dma[off >> PAGE_SHIFT] +
					  offset_in_page(off);
			wr->rkey = f->pd->unsafe_global_rkey;
		}
	}
	ret = ib_post_send(f->sqp, &f->swr[0].wr, &bad);
	if (ret)
		pr_info("# %s, round %u: posting sends %u..%u: %d\n", f->name,
			round, from, from + n - 1, ret);
	return ret;
}

/*
 * More sends may be posted while the SQ has room and the CQ would hold
 * every completion of what is in flight (a SEND makes two).
 */
static u32 km_room(const struct km_flow *f, const struct km_state *s,
		   bool write)
{
	u64 per = write ? 1 : 2;
	u64 cqes = per * s->posted - s->sdone - s->rdone;
	u32 inflight = s->posted - s->sdone, sq, cq;

	sq = f->sq_room > inflight ? f->sq_room - inflight : 0;
	cq = (u64)f->cq->cqe > cqes ? div64_u64((u64)f->cq->cqe - cqes, per) : 0;
	return min(sq, cq);
}

static void km_take(struct km_flow *f, struct km_state *s,
		    const struct ib_wc *wc, unsigned int round, bool write)
{
	bool good;
	u32 i;

	f->cqes++;
	if (wc->wr_id >> 56 == KM_TAG_RECV && !write) {
		u32 len;

		i = s->rdone++;
		len = km_msg_len(f, i);
		good = wc->wr_id == km_wr_id(KM_TAG_RECV, round, i) &&
		       wc->status == IB_WC_SUCCESS && wc->opcode == IB_WC_RECV &&
		       wc->byte_len == len && wc->qp == f->rqp;
		if (!good && s->bad_r++ < KM_NDIAG)
			pr_info("# %s, round %u: receive completion %u: wr_id 0x%llx status %d opcode %d byte_len %u (want %u), qp %s\n",
				f->name, round, i, wc->wr_id, wc->status,
				wc->opcode, wc->byte_len, len,
				wc->qp == f->rqp ? "right" : "wrong");
		return;
	}
	i = s->sdone++;
	good = wc->wr_id == km_wr_id(KM_TAG_SEND, round, i) &&
	       wc->status == IB_WC_SUCCESS && wc->qp == f->sqp &&
	       wc->opcode == (write ? IB_WC_RDMA_WRITE : IB_WC_SEND);
	if (!good && s->bad_s++ < KM_NDIAG)
		pr_info("# %s, round %u: send completion %u: wr_id 0x%llx (want 0x%llx) status %d opcode %d, qp %s\n",
			f->name, round, i, wc->wr_id,
			km_wr_id(KM_TAG_SEND, round, i), wc->status, wc->opcode,
			wc->qp == f->sqp ? "right" : "wrong");
}

static void km_run(struct km_flow *f, struct km_state *s, unsigned int round,
		   u32 cnt, bool write)
{
	unsigned long last = jiffies;
	unsigned int spins = 0;
	u32 want = cnt, c;
	int n, k;

	for (;;) {
		while (!s->post_err && s->posted < cnt) {
			c = min3(km_room(f, s, write), cnt - s->posted,
				 (u32)KM_BATCH);
			if (!c)
				break;
			if (km_post_sends(f, round, s->posted, c, write)) {
				s->post_err = true;
				break;
			}
			s->posted += c;
		}
		if (s->post_err)
			want = s->posted;
		if (s->sdone >= want && (write || s->rdone >= want))
			break;
		n = ib_poll_cq(f->cq, KM_BATCH, f->wc);
		if (n < 0) {
			pr_info("# %s, round %u: ib_poll_cq: %d\n", f->name, round, n);
			s->poll_err = true;
			break;
		}
		for (k = 0; k < n; k++)
			km_take(f, s, &f->wc[k], round, write);
		if (n) {
			last = jiffies;
			spins = 0;
		} else if (time_after(jiffies, last + KV_TIMEOUT)) {
			pr_info("# %s, round %u: no completion for %u s: %u of %u posted, %u send and %u receive completions\n",
				f->name, round, KV_TIMEOUT / HZ, s->posted, cnt,
				s->sdone, s->rdone);
			s->stalled = true;
			break;
		} else if (++spins > 100) {
			usleep_range(20, 100);
		}
		cond_resched();
	}
}

/* A byte of the receive buffer that is not what it should be. */
static bool km_bad_byte(struct km_flow *f, size_t off, u8 want, u32 msg,
			u32 *nbad)
{
	u8 got = *km_byte(&f->rbuf, off);

	if (got == want)
		return false;
	if ((*nbad)++ < KM_NDIAG)
		pr_info("# %s: byte %zu (message %u): 0x%02x, want 0x%02x\n",
			f->name, off, msg, got, want);
	return true;
}

/* Each message's bytes in its pieces (or WRITE target), poison elsewhere. */
static bool km_check_data(struct km_flow *f, unsigned int round, u32 cnt,
			  bool write)
{
	size_t off, end = 0;
	u32 i, j, b, k, t, len, nbad = 0;

	km_pbuf_sync(f->ibdev, &f->rbuf, true);
	for (i = 0; i < cnt; i++) {
		u32 seed = km_seed(round, i);

		t = km_msg_len(f, i);
		if (write) {
			off = (size_t)i * f->wslot;
			for (b = 0; b < f->wslot; b++)
				km_bad_byte(f, off + b, b < t ? km_pat(seed, b) :
					    KM_POISON, i, &nbad);
			end = off + f->wslot;
			continue;
		}
		for (j = 0, k = 0; j < f->nr; j++) {
			off = ((size_t)i * f->nr + j) * f->rslot;
			len = km_rlen(f, i, j, t);
			for (b = 0; b < f->rslot; b++)
				km_bad_byte(f, off + b, b < len && k < t ?
					    km_pat(seed, k++) : KM_POISON, i,
					    &nbad);
			end = off + f->rslot;
		}
	}
	for (off = end; off < f->rbuf.len; off++)
		km_bad_byte(f, off, KM_POISON, cnt, &nbad);
	if (nbad)
		pr_info("# %s, round %u: %u byte(s) wrong\n", f->name, round, nbad);
	return !nbad;
}

/*
 * One round, as many points whatever happens: 2 for a WRITE round, 4
 * for a SEND round, one more with @check_full.
 */
static void km_round(struct km_flow *f, unsigned int round, u32 cnt,
		     bool write, bool check_full)
{
	const char *q = f->srq ? "SRQ" : "RQ";
	struct km_state s = {};
	int posted = -EINVAL, full = 0;
	bool data = false;
	u64 t0 = ktime_get_ns();

	if (f->ready) {
		km_fill(f, round, cnt);
		posted = write ? 0 : km_post_recvs(f, round, cnt);
		if (check_full && !posted)
			full = km_one_more(f, round);
		if (!posted)
			km_run(f, &s, round, cnt, write);
		data = !posted && km_check_data(f, round, cnt, write);
		pr_info("# %s, round %u: %u %s in %llu ms, %llu completions through the CQ of %d entries so far\n",
			f->name, round, cnt, write ? "RDMA WRITEs" : "SENDs",
			div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC), f->cqes,
			f->cq->cqe);
	}
	if (!write)
		tap(!posted, "%s, round %u: %u receives of %u SGEs posted to the %s (%u WQEs) (%d)",
		    f->name, round, cnt, f->nr, q, f->nwr, posted);
	if (check_full)
		tap(full == -ENOMEM,
		    "%s, round %u: the %s full, one more receive is refused with -ENOMEM (%d)",
		    f->name, round, q, full);
	tap(f->ready && !s.post_err && !s.poll_err && !s.stalled &&
	    s.posted == cnt && s.sdone == cnt && !s.bad_s &&
	    (write || s.rdone == cnt) && !ib_poll_cq(f->cq, 1, f->wc),
	    "%s, round %u: %u %s of %u SGEs, as many in flight as the SQ (%u) and the CQ hold: every send completion in order, successful, nothing else (%u bad)",
	    f->name, round, cnt, write ? "RDMA WRITEs" : "SENDs", f->ns,
	    f->sq_room, s.bad_s);
	if (!write)
		tap(f->ready && s.rdone == cnt && !s.bad_r,
		    "%s, round %u: %u receive completions in order, successful, with the message's byte_len and QP (%u bad)",
		    f->name, round, s.rdone, s.bad_r);
	if (write)
		tap(data,
		    "%s, round %u: each WRITE's %u pieces at its target byte for byte, nothing else written",
		    f->name, round, f->ns);
	else
		tap(data,
		    "%s, round %u: each message's %u pieces scattered byte for byte over its receive's pieces, nothing else written",
		    f->name, round, f->ns);
}

/*
 * RC pair A -> B, SQ and RQ of @q WQEs of @ns / @nr SGEs each, one CQ of
 * @cqe entries: @rounds rounds of SENDs filling B's RQ, then with @write
 * a round of RDMA WRITEs (the CQ must then have wrapped).
 */
static void km_rc(struct kv_ctx *c, const char *name, u32 q, u32 ns, u32 nr,
		  int cqe, unsigned int rounds, bool write)
{
	struct km_flow *f = kzalloc(sizeof(*f), GFP_KERNEL);
	struct ib_qp_cap ca = {}, cb = {};
	unsigned int r;
	bool good;
	int ret = -EINVAL;

	if (!tap(f, "%s: context", name))
		return;
	f->name = name;
	good = km_flow_start(c, f, cqe);
	if (good) {
		f->sqp = km_qp(f, NULL, q, ns, q, nr, &ca);
		f->rqp = km_qp(f, NULL, q, ns, q, nr, &cb);
	}
	good = f->sqp && f->rqp && km_caps_cover(&ca, q, ns, q, nr) &&
	       km_caps_cover(&cb, q, ns, q, nr);
	tap(good,
	    "%s: two RC QPs with max_send_wr = max_recv_wr = %u, max_send_sge %u, max_recv_sge %u: the caps cover it (%u/%u WRs, %u/%u SGEs; %u/%u, %u/%u)",
	    name, q, ns, nr, ca.max_send_wr, ca.max_recv_wr, ca.max_send_sge,
	    ca.max_recv_sge, cb.max_send_wr, cb.max_recv_wr, cb.max_send_sge,
	    cb.max_recv_sge);
	if (good) {
		f->sq_room = ca.max_send_wr;
		f->nwr = cb.max_recv_wr;
		f->ns = ns;
		f->nr = nr;
		ret = kv_rc_connect_to(c, f->sqp, &c->gid, f->rqp->qp_num);
		ret = ret ? : kv_rc_connect_to(c, f->rqp, &c->gid, f->sqp->qp_num);
		ret = ret ? : km_flow_bufs(f, max(f->nwr, f->sq_room));
	}
	f->ready = !ret;
	tap(f->ready, "%s: the QPs connected (RTS), the buffers mapped (%d)", name,
	    ret);
	for (r = 1; r <= rounds; r++)
		km_round(f, r, f->ready ? f->nwr : q, false, r == 1);
	if (write) {
		km_round(f, rounds + 1, f->ready ? f->sq_room : q, true, false);
		tap(f->ready && f->cqes > (u64)f->cq->cqe,
		    "%s: %llu completions went through the CQ of %d entries: its ring wrapped",
		    name, f->cqes, f->cq ? f->cq->cqe : -1);
	}
	tap(km_flow_destroy(f), "%s: QPs, CQ and PD destroyed", name);
	kfree(f);
}

/*
 * An SRQ of max_srq_wr WQEs of max_srq_sge SGEs; RC QP E on it, QP F
 * with an SQ of 256 WQEs sending to it, one CQ of max_cqe entries: two
 * rounds that fill the SRQ and empty it.
 */
static void km_srq(struct kv_ctx *c)
{
	struct ib_device_attr *a = &c->ibdev->attrs;
	struct ib_srq_init_attr si = {
		.attr = { .max_wr = a->max_srq_wr, .max_sge = a->max_srq_sge },
		.srq_type = IB_SRQT_BASIC,
	};
	u32 fwr = min_t(u32, 256, a->max_qp_wr), ns = a->max_send_sge;
	struct km_flow *f = kzalloc(sizeof(*f), GFP_KERNEL);
	struct ib_qp_cap ce = {}, cf = {};
	struct ib_srq_attr sa = {};
	struct ib_srq *srq;
	bool good;
	int ret = -EINVAL;

	if (!tap(f, "max SRQ: context"))
		return;
	f->name = "max SRQ";
	good = km_flow_start(c, f, a->max_cqe);
	srq = f->pd ? ib_create_srq(f->pd, &si) : ERR_PTR(-EINVAL);
	if (!IS_ERR(srq)) {
		f->srq = srq;
		ret = ib_query_srq(srq, &sa);
	}
	tap(!IS_ERR(srq) && !ret && sa.max_wr >= (u32)a->max_srq_wr &&
	    sa.max_sge >= (u32)a->max_srq_sge,
	    "max SRQ: ib_create_srq with max_wr = max_srq_wr %d, max_sge = max_srq_sge %d (%d): ib_query_srq says %u x %u",
	    a->max_srq_wr, a->max_srq_sge, PTR_ERR_OR_ZERO(srq), sa.max_wr,
	    sa.max_sge);
	if (good && f->srq) {
		f->rqp = km_qp(f, f->srq, 16, 1, 0, 0, &ce);
		f->sqp = km_qp(f, NULL, fwr, ns, 16, 1, &cf);
	}
	ret = -EINVAL;
	if (f->rqp && f->sqp && !IS_ERR(srq) && km_caps_cover(&cf, fwr, ns, 16, 1)) {
		f->sq_room = cf.max_send_wr;
		f->nwr = sa.max_wr;
		f->ns = ns;
		f->nr = a->max_srq_sge;
		ret = kv_rc_connect_to(c, f->sqp, &c->gid, f->rqp->qp_num);
		ret = ret ? : kv_rc_connect_to(c, f->rqp, &c->gid, f->sqp->qp_num);
		ret = ret ? : km_flow_bufs(f, max(f->nwr, f->sq_room));
	}
	f->ready = !ret;
	tap(f->ready,
	    "max SRQ: RC QP E on the SRQ, QP F with an SQ of %u x %u sending to it, connected, buffers mapped (%d)",
	    fwr, ns, ret);
	km_round(f, 1, f->ready ? f->nwr : a->max_srq_wr, false, true);
	km_round(f, 2, f->ready ? f->nwr : a->max_srq_wr, false, false);
	tap(km_flow_destroy(f), "max SRQ: QPs, SRQ, CQ and PD destroyed");
	kfree(f);
}

/* Without paged rings the largest queues are refused with -ENOMEM. */
static void km_contig(struct kv_ctx *c)
{
	struct ib_device_attr *a = &c->ibdev->attrs;
	struct ib_srq_init_attr si = {
		.attr = { .max_wr = a->max_srq_wr, .max_sge = a->max_srq_sge },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_qp_init_attr init = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
		.port_num = 1,
		.cap = {
			.max_send_wr = a->max_qp_wr,
			.max_recv_wr = a->max_qp_wr,
			.max_send_sge = a->max_send_sge,
			.max_recv_sge = a->max_recv_sge,
		},
	};
	struct ib_srq *srq;
	struct ib_qp *qp;

	qp = ib_create_qp(c->pd, &init);
	tap(PTR_ERR_OR_ZERO(qp) == -ENOMEM,
	    "contig: an RC QP of max_qp_wr %d x max_send_sge %d / max_recv_sge %d is refused with -ENOMEM (%d)",
	    a->max_qp_wr, a->max_send_sge, a->max_recv_sge,
	    PTR_ERR_OR_ZERO(qp));
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
	srq = ib_create_srq(c->pd, &si);
	tap(PTR_ERR_OR_ZERO(srq) == -ENOMEM,
	    "contig: an SRQ of max_srq_wr %d x max_srq_sge %d is refused with -ENOMEM (%d)",
	    a->max_srq_wr, a->max_srq_sge, PTR_ERR_OR_ZERO(srq));
	if (!IS_ERR(srq))
		ib_destroy_srq(srq);
	km_rc(c, "contig", min_t(u32, KM_SMALL_WR, a->max_qp_wr), 1, 1,
	      4 * KM_SMALL_WR, 2, false);
}

static void kv_test_maxq(struct kv_ctx *c)
{
	struct ib_device_attr *a = &c->ibdev->attrs;

	pr_info("# max_qp_wr %d, max_send_sge %d, max_recv_sge %d, max_cqe %d, max_srq_wr %d, max_srq_sge %d%s\n",
		a->max_qp_wr, a->max_send_sge, a->max_recv_sge, a->max_cqe,
		a->max_srq_wr, a->max_srq_sge,
		no_ring_pbl ? "; the device has no paged rings" : "");
	if (no_ring_pbl) {
		km_contig(c);
		return;
	}
	km_rc(c, "max RC", a->max_qp_wr, a->max_send_sge, a->max_recv_sge,
	      a->max_cqe, 2, true);
	km_srq(c);
}

/* ------------------------------------------------------------------
 * The wire (peer=): RC from QP A on dev to QP B on peer, two functions
 * joined by a link, each addressed by its link-local RoCEv2 GID.
 */
#define KW_READ_LEN	SZ_64K

/* c.pd has the unsafe global rkey; c.cq is the QP's CQ. */
struct kv_end {
	struct kv_ctx c;
	struct ib_qp *qp;
	struct kv_buf buf;
};

struct kv_wire {
	struct kv_end a, b;
	struct ib_mr *fr;		/* fast-reg over A's buffer */
	struct kv_wr w[3];
};

static int kw_end_up(struct kv_end *e, const char *name)
{
	int ret;

	e->c.ibdev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!e->c.ibdev)
		return -ENODEV;
	ret = kv_find_gid(&e->c);
	if (ret)
		return ret;
	e->c.pd = ib_alloc_pd(e->c.ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(e->c.pd))
		return PTR_ERR(e->c.pd);
	e->c.cq = ib_alloc_cq(e->c.ibdev, NULL, 32, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(e->c.cq))
		return PTR_ERR(e->c.cq);
	e->qp = kv_create_qp(&e->c, IB_QPT_RC, NULL);
	if (IS_ERR(e->qp))
		return PTR_ERR(e->qp);
	return kv_dbuf_alloc(e->c.ibdev, &e->buf, KW_READ_LEN);
}

static void kw_end_down(struct kv_end *e)
{
	if (!e->c.ibdev)
		return;
	if (!IS_ERR_OR_NULL(e->qp))
		ib_destroy_qp(e->qp);
	if (!IS_ERR_OR_NULL(e->c.cq))
		ib_free_cq(e->c.cq);
	kv_dbuf_free(e->c.ibdev, &e->buf);
	if (!IS_ERR_OR_NULL(e->c.pd))
		ib_dealloc_pd(e->c.pd);
	ib_device_put(e->c.ibdev);
}

static bool kw_wait(struct kv_wr *w)
{
	return wait_for_completion_timeout(&w->done, KV_TIMEOUT);
}

/*
 * FENCE orders the local operations too: a LOCAL_INV posted with
 * IB_SEND_FENCE right behind an RDMA READ into the region it
 * invalidates does not start before the READ's responses are in, so
 * the READ lands and completes with its data, then the key goes.
 * (Without the fence the device may invalidate at once; the READ would
 * then find its region gone.)
 */
static void kw_fence(struct kv_wire *x)
{
	struct kv_end *a = &x->a, *b = &x->b;
	struct kv_wr *rw = &x->w[0], *rd = &x->w[1], *inv = &x->w[2];
	struct scatterlist sg;
	struct ib_reg_wr reg = {};
	struct ib_sge sge;
	struct ib_rdma_wr read = {};
	struct ib_send_wr linv = {};
	int n, ret;

	kv_fill(b->buf.va, KW_READ_LEN, 0x3c);
	kv_dbuf_dev(b->c.ibdev, &b->buf);
	memset(a->buf.va, 0, KW_READ_LEN);
	kv_dbuf_dev(a->c.ibdev, &a->buf);

	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = a->buf.dma;
	sg_dma_len(&sg) = KW_READ_LEN;
	n = ib_map_mr_sg(x->fr, &sg, 1, NULL, PAGE_SIZE);
	ib_update_fast_reg_key(x->fr, 0x5e);
	kv_wr_init(rw);
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_cqe = &rw->cqe;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = x->fr;
	reg.key = x->fr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE;
	ret = n == 1 ? ib_post_send(a->qp, &reg.wr, NULL) : -EINVAL;
	if (!ret && !kw_wait(rw))
		ret = -ETIMEDOUT;
	if (!tap(!ret && kv_wc_ok(rw, IB_WC_REG_MR),
		 "wire: IB_WR_REG_MR of %u bytes on %s (map %d, post %d, status %d)",
		 KW_READ_LEN, dev, n, ret, rw->wc.status))
		return;

	/* One post: the READ, then the fenced LOCAL_INV of its sink. */
	kv_wr_init(rd);
	kv_wr_init(inv);
	sge.addr = x->fr->iova;
	sge.length = KW_READ_LEN;
	sge.lkey = x->fr->lkey;
	read.wr.opcode = IB_WR_RDMA_READ;
	read.wr.wr_cqe = &rd->cqe;
	read.wr.sg_list = &sge;
	read.wr.num_sge = 1;
	read.wr.send_flags = IB_SEND_SIGNALED;
	read.wr.next = &linv;
	read.remote_addr = b->buf.dma;
	read.rkey = b->c.pd->unsafe_global_rkey;
	linv.opcode = IB_WR_LOCAL_INV;
	linv.wr_cqe = &inv->cqe;
	linv.send_flags = IB_SEND_SIGNALED | IB_SEND_FENCE;
	linv.ex.invalidate_rkey = x->fr->rkey;
	ret = ib_post_send(a->qp, &read.wr, NULL);
	if (!tap(!ret,
		 "wire: RDMA READ of %u bytes into the region, then LOCAL_INV of its key with IB_SEND_FENCE, in one post (%d)",
		 KW_READ_LEN, ret))
		return;
	if (!tap(kw_wait(rd) && kw_wait(inv), "wire: both complete"))
		return;
	kv_dbuf_cpu(a->c.ibdev, &a->buf);
	tap(kv_wc_ok(rd, IB_WC_RDMA_READ) && rd->wc.byte_len == KW_READ_LEN &&
	    kv_same(a->buf.va, KW_READ_LEN, 0x3c),
	    "wire: the READ before the fence completes with its data: IB_WC_RDMA_READ, %u bytes in place (status %d, opcode %d, byte_len %u)",
	    KW_READ_LEN, rd->wc.status, rd->wc.opcode, rd->wc.byte_len);
	tap(kv_wc_ok(inv, IB_WC_LOCAL_INV),
	    "wire: the fenced LOCAL_INV then succeeds: IB_WC_LOCAL_INV (status %d, opcode %d)",
	    inv->wc.status, inv->wc.opcode);
}

static void kv_wire_run(void)
{
	struct kv_wire *x = kzalloc(sizeof(*x), GFP_KERNEL);
	int ret;

	if (!tap(x, "wire: context"))
		return;
	ret = kw_end_up(&x->a, dev);
	ret = ret ? : kw_end_up(&x->b, peer);
	if (!ret) {
		x->fr = ib_alloc_mr(x->a.c.pd, IB_MR_TYPE_MEM_REG,
				    KW_READ_LEN / PAGE_SIZE);
		ret = PTR_ERR_OR_ZERO(x->fr);
	}
	ret = ret ? : kv_rc_connect_to(&x->a.c, x->a.qp, &x->b.c.gid,
				       x->b.qp->qp_num);
	ret = ret ? : kv_rc_connect_to(&x->b.c, x->b.qp, &x->a.c.gid,
				       x->a.qp->qp_num);
	if (tap(!ret,
		"wire: an RC QP on %s and one on %s, connected through their link-local GIDs; a fast-reg MR (%d)",
		dev, peer, ret))
		kw_fence(x);
	if (!IS_ERR_OR_NULL(x->fr))
		ib_dereg_mr(x->fr);
	kw_end_down(&x->a);
	kw_end_down(&x->b);
	tap(true, "wire: everything destroyed");
	kfree(x);
}

/* ------------------------------------------------------------------
 * Keys (keys=): KK_THREADS threads, each with an RC pair of its own
 * (A on dev, B on peer or dev) and a fast-reg region of B's, register
 * the region with a new key, RDMA WRITE through it and READ it back,
 * and invalidate it (SEND_WITH_INV from A and LOCAL_INV on B in turn),
 * @keys times, all at once.  Every byte and completion is checked; last,
 * a WRITE through the key invalidated last must fail and leave the
 * region untouched.
 */
#define KK_THREADS	4
#define KK_LEN		256
#define KK_READ_OFF	SZ_4K
#define KK_RECV_OFF	SZ_8K

/* "orca0 to orca0", say: set by kk_run(). */
static char kk_path[64];

struct kk_thread {
	struct kv_end a, b;
	struct ib_mr *fr;
	struct kv_wr ws, wr;
	unsigned int id;
	unsigned int done;		/* iterations completed */
	char why[160];			/* the first failure */
	struct completion exited;
};

static bool kk_post(struct kk_thread *t, struct ib_qp *qp,
		    struct ib_send_wr *wr, const char *what)
{
	int ret;

	kv_wr_init(&t->ws);
	wr->wr_cqe = &t->ws.cqe;
	wr->send_flags |= IB_SEND_SIGNALED;
	ret = ib_post_send(qp, wr, NULL);
	if (!ret && kw_wait(&t->ws))
		return true;
	snprintf(t->why, sizeof(t->why), "%s: post %d or no completion",
		 what, ret);
	return false;
}

static bool kk_wc(struct kk_thread *t, struct kv_wr *w,
		  enum ib_wc_opcode op, const char *what, unsigned int i)
{
	if (w->wc.status == IB_WC_SUCCESS && w->wc.opcode == op)
		return true;
	snprintf(t->why, sizeof(t->why),
		 "iteration %u, %s: status %d, opcode %d", i, what,
		 w->wc.status, w->wc.opcode);
	return false;
}

static bool kk_reg(struct kk_thread *t, unsigned int i)
{
	struct ib_reg_wr wr = {};
	struct scatterlist sg;

	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = t->b.buf.dma;
	sg_dma_len(&sg) = SZ_4K;
	if (ib_map_mr_sg(t->fr, &sg, 1, NULL, SZ_4K) != 1) {
		snprintf(t->why, sizeof(t->why), "ib_map_mr_sg");
		return false;
	}
	ib_update_fast_reg_key(t->fr, (u8)(t->fr->rkey + 1));
	wr.wr.opcode = IB_WR_REG_MR;
	wr.mr = t->fr;
	wr.key = t->fr->rkey;
	wr.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		    IB_ACCESS_REMOTE_READ;
	return kk_post(t, t->b.qp, &wr.wr, "IB_WR_REG_MR") &&
	       kk_wc(t, &t->ws, IB_WC_REG_MR, "IB_WR_REG_MR", i);
}

/* RDMA @op of KK_LEN bytes between A's buffer at @aoff and the key's @off. */
static bool kk_rdma(struct kk_thread *t, enum ib_wr_opcode op, u32 aoff,
		    u32 off, u32 rkey)
{
	struct ib_sge sg = {
		.addr = t->a.buf.dma + aoff,
		.length = KK_LEN,
		.lkey = t->a.c.pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = { .opcode = op, .sg_list = &sg, .num_sge = 1 },
		.remote_addr = t->fr->iova + off,
		.rkey = rkey,
	};

	return kk_post(t, t->a.qp, &wr.wr,
		       op == IB_WR_RDMA_WRITE ? "RDMA WRITE" : "RDMA READ");
}

static bool kk_invalidate(struct kk_thread *t, unsigned int i)
{
	u32 key = t->fr->rkey;
	struct ib_send_wr wr = {};
	struct ib_sge rsg = {
		.addr = t->b.buf.dma + KK_RECV_OFF,
		.length = 64,
		.lkey = t->b.c.pd->local_dma_lkey,
	};
	struct ib_recv_wr rwr = { .sg_list = &rsg, .num_sge = 1 };
	int ret;

	if (i & 1) {
		wr.opcode = IB_WR_LOCAL_INV;
		wr.ex.invalidate_rkey = key;
		return kk_post(t, t->b.qp, &wr, "IB_WR_LOCAL_INV") &&
		       kk_wc(t, &t->ws, IB_WC_LOCAL_INV, "IB_WR_LOCAL_INV", i);
	}
	kv_wr_init(&t->wr);
	rwr.wr_cqe = &t->wr.cqe;
	ret = ib_post_recv(t->b.qp, &rwr, NULL);
	if (ret) {
		snprintf(t->why, sizeof(t->why), "ib_post_recv: %d", ret);
		return false;
	}
	wr.opcode = IB_WR_SEND_WITH_INV;
	wr.ex.invalidate_rkey = key;
	if (!kk_post(t, t->a.qp, &wr, "IB_WR_SEND_WITH_INV") ||
	    !kk_wc(t, &t->ws, IB_WC_SEND, "IB_WR_SEND_WITH_INV", i))
		return false;
	if (!kw_wait(&t->wr)) {
		snprintf(t->why, sizeof(t->why),
			 "iteration %u: no receive completion", i);
		return false;
	}
	if (!kk_wc(t, &t->wr, IB_WC_RECV, "the receive of SEND_WITH_INV", i))
		return false;
	if (!(t->wr.wc.wc_flags & IB_WC_WITH_INVALIDATE) ||
	    t->wr.wc.ex.invalidate_rkey != key) {
		snprintf(t->why, sizeof(t->why),
			 "iteration %u: receive flags 0x%x, key 0x%x, not 0x%x",
			 i, t->wr.wc.wc_flags, t->wr.wc.ex.invalidate_rkey,
			 key);
		return false;
	}
	return true;
}

static bool kk_iteration(struct kk_thread *t, unsigned int i)
{
	u8 seed = t->id * 64 + i;
	u32 off = (i * KK_LEN) % (SZ_4K - KK_LEN);

	if (!kk_reg(t, i))
		return false;
	kv_fill(t->a.buf.va, KK_LEN, seed);
	memset(t->a.buf.va + KK_READ_OFF, 0, KK_LEN);
	kv_dbuf_dev(t->a.c.ibdev, &t->a.buf);
	if (!kk_rdma(t, IB_WR_RDMA_WRITE, 0, off, t->fr->rkey) ||
	    !kk_wc(t, &t->ws, IB_WC_RDMA_WRITE, "RDMA WRITE", i) ||
	    !kk_rdma(t, IB_WR_RDMA_READ, KK_READ_OFF, off, t->fr->rkey) ||
	    !kk_wc(t, &t->ws, IB_WC_RDMA_READ, "RDMA READ", i))
		return false;
	kv_dbuf_cpu(t->a.c.ibdev, &t->a.buf);
	if (!kv_same(t->a.buf.va + KK_READ_OFF, KK_LEN, seed)) {
		snprintf(t->why, sizeof(t->why),
			 "iteration %u: the READ did not return what the WRITE put at %u",
			 i, off);
		return false;
	}
	return kk_invalidate(t, i);
}

static int kk_thread_fn(void *arg)
{
	struct kk_thread *t = arg;
	unsigned int i;

	for (i = 0; i < keys; i++) {
		if (!kk_iteration(t, i))
			break;
		t->done++;
	}
	complete(&t->exited);
	return 0;
}

static int kk_thread_up(struct kk_thread *t)
{
	const char *bname = peer ? peer : dev;
	int ret;

	init_completion(&t->exited);
	ret = kw_end_up(&t->a, dev);
	ret = ret ? : kw_end_up(&t->b, bname);
	if (ret)
		return ret;
	t->fr = ib_alloc_mr(t->b.c.pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(t->fr))
		return PTR_ERR(t->fr);
	ret = kv_rc_connect_to(&t->a.c, t->a.qp, &t->b.c.gid, t->b.qp->qp_num);
	return ret ? : kv_rc_connect_to(&t->b.c, t->b.qp, &t->a.c.gid,
					t->a.qp->qp_num);
}

static void kk_thread_down(struct kk_thread *t)
{
	if (!IS_ERR_OR_NULL(t->fr))
		ib_dereg_mr(t->fr);
	kw_end_down(&t->a);
	kw_end_down(&t->b);
}

/* A WRITE through the key invalidated last fails; the region is as it was. */
static void kk_stale(struct kk_thread *t)
{
	u32 off = ((keys - 1) * KK_LEN) % (SZ_4K - KK_LEN);
	u8 seed = t->id * 64 + keys - 1;

	kv_fill(t->a.buf.va, KK_LEN, seed + 1);
	kv_dbuf_dev(t->a.c.ibdev, &t->a.buf);
	if (!kk_rdma(t, IB_WR_RDMA_WRITE, 0, off, t->fr->rkey)) {
		tap(false, "keys %s: thread %u: %s", kk_path, t->id, t->why);
		return;
	}
	kv_dbuf_cpu(t->b.c.ibdev, &t->b.buf);
	tap(t->ws.wc.status == IB_WC_REM_ACCESS_ERR &&
	    kv_same(t->b.buf.va + off, KK_LEN, seed),
	    "keys %s: thread %u: a WRITE through the invalidated key 0x%x: IB_WC_REM_ACCESS_ERR, region untouched (status %d)",
	    kk_path, t->id, t->fr->rkey, t->ws.wc.status);
}

static void kk_run(void)
{
	struct kk_thread *t = kcalloc(KK_THREADS, sizeof(*t), GFP_KERNEL);
	struct task_struct *task;
	unsigned int i, started = 0;
	int ret = 0;

	snprintf(kk_path, sizeof(kk_path), "%s to %s", dev, peer ? peer : dev);
	if (!tap(t, "keys %s: context", kk_path))
		return;
	for (i = 0; i < KK_THREADS && !ret; i++) {
		t[i].id = i;
		ret = kk_thread_up(&t[i]);
	}
	if (!tap(!ret,
		 "keys %s: %u RC pairs, each with a fast-reg region at B (%d)",
		 kk_path, KK_THREADS, ret))
		goto down;
	for (i = 0; i < KK_THREADS; i++) {
		task = kthread_run(kk_thread_fn, &t[i], "orca_kk/%u", i);
		if (IS_ERR(task))
			break;
		started++;
	}
	tap(started == KK_THREADS, "keys %s: %u threads started", kk_path,
	    started);
	for (i = 0; i < started; i++)
		wait_for_completion(&t[i].exited);
	for (i = 0; i < started; i++) {
		tap(t[i].done == keys,
		    "keys %s: thread %u: %u of %u rounds of REG_MR, WRITE, READ (data checked) and invalidation%s%s",
		    kk_path, i, t[i].done, keys, t[i].why[0] ? ": " : "", t[i].why);
		if (t[i].done == keys)
			kk_stale(&t[i]);
	}
down:
	for (i = 0; i < KK_THREADS; i++)
		kk_thread_down(&t[i]);
	tap(true, "keys %s: everything destroyed", kk_path);
	kfree(t);
}

/*
 * One key, many lanes (keys=, after the rounds above): KS_WRITERS threads
 * RDMA WRITE through one fast-reg key of B's, each 16 KiB into a slot of
 * its own, again and again, while the key is invalidated under them, by
 * a LOCAL_INV on a fourth QP of B's, then in a second run by a
 * SEND_WITH_INV that QP receives.  Whatever the interleaving: each
 * writer's WRITEs succeed until one fails with IB_WC_REM_ACCESS_ERR, and
 * once the invalidation has completed nothing more reaches the region,
 * whose slots hold each writer's last successful WRITE, or where the
 * failed one had partly landed (a message of several packets on the
 * wire may), that one's bytes.
 *
 * Then the same with RDMA READs of the slots, each filled with a pattern
 * of its own first: each reader's READs succeed until one fails with
 * IB_WC_REM_ACCESS_ERR, and every one that succeeded returned the slot's
 * pattern, never the bytes the test writes into the region (by the CPU)
 * once the invalidation has completed.  On the wire, B's READ responses
 * read the region packet by packet, while the invalidation goes on.
 */
#define KS_WRITERS	3
#define KS_PAIRS	(KS_WRITERS + 1)
#define KS_WARMUP	20
#define KS_MAX_WRITES	100000
#define KS_SLOT		SZ_16K
#define KS_REGION	(KS_WRITERS * KS_SLOT)
#define KS_RECV_OFF	(KS_REGION + SZ_4K)
#define KS_ROUNDS	5		/* of each invalidation */
#define KS_SEED(i)	(0x40 + (i) * 16)	/* slot i's pattern, READs */
#define KS_AFTER	0xa5		/* the region's after the invalidation */

struct ks_run;

struct ks_writer {
	struct ks_run *r;
	unsigned int id;
	struct kv_wr w;
	unsigned int ok;		/* WRITEs that succeeded */
	unsigned int wrong;		/* READs that succeeded, wrong bytes */
	u8 last_seed;
	int end;			/* the first that did not: its status */
	struct completion exited;
};

struct ks_run {
	struct kv_end a[KS_PAIRS];	/* the writers', and the sender's */
	struct kv_end b;		/* the region's side; b.qp is pair 0's */
	struct ib_qp *bq[KS_PAIRS];
	struct ib_mr *mr;
	struct ks_writer wr[KS_WRITERS];
	struct kv_wr inv, recv;
	bool read;			/* the threads READ rather than WRITE */
	wait_queue_head_t wq;
	u8 snap[KS_REGION];
};

static int ks_writer_fn(void *arg)
{
	struct ks_writer *x = arg;
	struct kv_end *a = &x->r->a[x->id];
	struct ib_sge sg = {
		.addr = a->buf.dma,
		.length = KS_SLOT,
		.lkey = a->c.pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .sg_list = &sg,
			.num_sge = 1, .send_flags = IB_SEND_SIGNALED,
			.wr_cqe = &x->w.cqe },
		.remote_addr = x->r->mr->iova + x->id * KS_SLOT,
		.rkey = x->r->mr->rkey,
	};
	unsigned int n;
	int ret;

	if (x->r->read)
		wr.wr.opcode = IB_WR_RDMA_READ;
	x->end = -ETIMEDOUT;
	for (n = 0; n < KS_MAX_WRITES; n++) {
		u8 seed = x->id * 64 + n;

		if (x->r->read)
			memset(a->buf.va, 0, KS_SLOT);
		else
			kv_fill(a->buf.va, KS_SLOT, seed);
		kv_dbuf_dev(a->c.ibdev, &a->buf);
		kv_wr_init(&x->w);
		ret = ib_post_send(a->qp, &wr.wr, NULL);
		if (ret) {
			x->end = ret;
			break;
		}
		if (!kw_wait(&x->w))
			break;
		if (x->w.wc.status != IB_WC_SUCCESS) {
			x->end = x->w.wc.status;
			break;
		}
		if (x->r->read) {
			kv_dbuf_cpu(a->c.ibdev, &a->buf);
			if (!kv_same_from(a->buf.va, KS_SLOT, KS_SEED(x->id),
					  0))
				x->wrong++;
		}
		x->ok++;
		x->last_seed = seed;
		wake_up(&x->r->wq);
	}
	wake_up(&x->r->wq);
	complete(&x->exited);
	return 0;
}

static bool ks_warm(struct ks_run *r)
{
	unsigned int i;

	for (i = 0; i < KS_WRITERS; i++)
		if (r->wr[i].ok < KS_WARMUP && !completion_done(&r->wr[i].exited))
			return false;
	return true;
}

static int ks_up(struct ks_run *r)
{
	const char *bname = peer ? peer : dev;
	struct ib_reg_wr reg = {};
	struct scatterlist sg;
	unsigned int i;
	int ret;

	init_waitqueue_head(&r->wq);
	ret = kw_end_up(&r->b, bname);
	for (i = 0; i < KS_PAIRS && !ret; i++)
		ret = kw_end_up(&r->a[i], dev);
	if (ret)
		return ret;
	r->bq[0] = r->b.qp;
	for (i = 1; i < KS_PAIRS; i++) {
		r->bq[i] = kv_create_qp(&r->b.c, IB_QPT_RC, NULL);
		if (IS_ERR(r->bq[i]))
			return PTR_ERR(r->bq[i]);
	}
	for (i = 0; i < KS_PAIRS && !ret; i++) {
		ret = kv_rc_connect_to(&r->a[i].c, r->a[i].qp, &r->b.c.gid,
				       r->bq[i]->qp_num);
		ret = ret ? : kv_rc_connect_to(&r->b.c, r->bq[i],
					       &r->a[i].c.gid,
					       r->a[i].qp->qp_num);
	}
	if (ret)
		return ret;
	r->mr = ib_alloc_mr(r->b.c.pd, IB_MR_TYPE_MEM_REG,
			    KS_REGION / PAGE_SIZE);
	if (IS_ERR(r->mr))
		return PTR_ERR(r->mr);
	if (r->read)
		for (i = 0; i < KS_WRITERS; i++)
			kv_fill(r->b.buf.va + i * KS_SLOT, KS_SLOT, KS_SEED(i));
	else
		memset(r->b.buf.va, 0, KS_REGION);
	kv_dbuf_dev(r->b.c.ibdev, &r->b.buf);
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = r->b.buf.dma;
	sg_dma_len(&sg) = KS_REGION;
	if (ib_map_mr_sg(r->mr, &sg, 1, NULL, PAGE_SIZE) != 1)
		return -EINVAL;
	ib_update_fast_reg_key(r->mr, 0x5a);
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_cqe = &r->inv.cqe;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = r->mr;
	reg.key = r->mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		     IB_ACCESS_REMOTE_READ;
	kv_wr_init(&r->inv);
	ret = ib_post_send(r->bq[KS_WRITERS], &reg.wr, NULL);
	if (ret)
		return ret;
	if (!kw_wait(&r->inv))
		return -ETIMEDOUT;
	return r->inv.wc.status == IB_WC_SUCCESS ? 0 : -EIO;
}

static void ks_down(struct ks_run *r)
{
	unsigned int i;

	for (i = 1; i < KS_PAIRS; i++)
		if (!IS_ERR_OR_NULL(r->bq[i]))
			ib_destroy_qp(r->bq[i]);
	if (!IS_ERR_OR_NULL(r->mr))
		ib_dereg_mr(r->mr);
	for (i = 0; i < KS_PAIRS; i++)
		kw_end_down(&r->a[i]);
	kw_end_down(&r->b);
}

/* Invalidate the key under the writers: LOCAL_INV, or SEND_WITH_INV. */
static bool ks_invalidate(struct ks_run *r, bool send, const char *what)
{
	u32 key = r->mr->rkey;
	struct ib_send_wr wr = {
		.wr_cqe = &r->inv.cqe,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = key,
	};
	struct ib_sge rsg = {
		.addr = r->b.buf.dma + KS_RECV_OFF,
		.length = 64,
		.lkey = r->b.c.pd->local_dma_lkey,
	};
	struct ib_recv_wr rwr = { .wr_cqe = &r->recv.cqe, .sg_list = &rsg,
				  .num_sge = 1 };
	int ret;

	kv_wr_init(&r->inv);
	kv_wr_init(&r->recv);
	if (send) {
		wr.opcode = IB_WR_SEND_WITH_INV;
		ret = ib_post_recv(r->bq[KS_WRITERS], &rwr, NULL);
		ret = ret ? : ib_post_send(r->a[KS_WRITERS].qp, &wr, NULL);
	} else {
		wr.opcode = IB_WR_LOCAL_INV;
		ret = ib_post_send(r->bq[KS_WRITERS], &wr, NULL);
	}
	if (ret || !kw_wait(&r->inv) || (send && !kw_wait(&r->recv)))
		return tap(false, "%s: the invalidation completes (%d)", what,
			   ret);
	if (send)
		return tap(r->inv.wc.status == IB_WC_SUCCESS &&
			   r->recv.wc.status == IB_WC_SUCCESS &&
			   (r->recv.wc.wc_flags & IB_WC_WITH_INVALIDATE) &&
			   r->recv.wc.ex.invalidate_rkey == key,
			   "%s: the receive has IB_WC_WITH_INVALIDATE of 0x%x (status %d, %d, flags 0x%x)",
			   what, key, r->inv.wc.status, r->recv.wc.status,
			   r->recv.wc.wc_flags);
	return tap(r->inv.wc.status == IB_WC_SUCCESS &&
		   r->inv.wc.opcode == IB_WC_LOCAL_INV,
		   "%s: LOCAL_INV of 0x%x succeeds (status %d)", what, key,
		   r->inv.wc.status);
}

/*
 * Slot @i holds, byte by byte, writer @x's last successful WRITE or the
 * one after it, which failed.
 */
static bool ks_slot_ok(const struct ks_run *r, const struct ks_writer *x)
{
	const u8 *p = r->snap + x->id * KS_SLOT;
	size_t i;

	if (!x->ok)
		return false;
	for (i = 0; i < KS_SLOT; i++)
		if (p[i] != kv_pat(x->last_seed, i) &&
		    p[i] != kv_pat(x->last_seed + 1, i))
			return false;
	return true;
}

static void ks_check(struct ks_run *r, const char *what)
{
	const char *op = r->read ? "READ" : "WRITE";
	bool denied = true, kept = true, warm = true;
	unsigned int i, wrong = 0;

	for (i = 0; i < KS_WRITERS; i++) {
		struct ks_writer *x = &r->wr[i];

		pr_info("# %s: thread %u: %u %ss succeeded, then status %d\n",
			what, i, x->ok, op, x->end);
		warm &= x->ok >= KS_WARMUP;
		denied &= x->end == IB_WC_REM_ACCESS_ERR;
		if (r->read)
			wrong += x->wrong;
		else
			kept &= ks_slot_ok(r, x);
	}
	tap(warm, "%s: each thread's first %u %ss through the key succeed",
	    what, KS_WARMUP, op);
	tap(denied,
	    "%s: each thread's %ss succeed until one fails with IB_WC_REM_ACCESS_ERR",
	    what, op);
	if (r->read) {
		tap(!wrong,
		    "%s: every READ that succeeded returned its slot's bytes, none written after the invalidation (%u did not)",
		    what, wrong);
		return;
	}
	kv_dbuf_cpu(r->b.c.ibdev, &r->b.buf);
	tap(!memcmp(r->snap, r->b.buf.va, KS_REGION) && kept,
	    "%s: nothing reaches the region once the invalidation completed; each slot holds its writer's last successful WRITE (or bytes of the failed one)",
	    what);
}

static void ks_one(bool send, bool read)
{
	struct ks_run *r = kzalloc(sizeof(*r), GFP_KERNEL);
	char what[96];
	unsigned int i, started = 0;
	int ret;

	snprintf(what, sizeof(what), "one key, %u %s, %s, %s", KS_WRITERS,
		 read ? "readers" : "writers",
		 send ? "SEND_WITH_INV" : "LOCAL_INV", kk_path);
	if (!tap(r, "%s: context", what))
		return;
	r->read = read;
	ret = ks_up(r);
	if (!tap(!ret,
		 "%s: %u RC pairs into one PD of B's, a fast-reg key registered (%d)",
		 what, KS_PAIRS, ret))
		goto down;
	for (i = 0; i < KS_WRITERS; i++) {
		struct task_struct *task;

		r->wr[i].r = r;
		r->wr[i].id = i;
		init_completion(&r->wr[i].exited);
		task = kthread_run(ks_writer_fn, &r->wr[i], "orca_ks/%u", i);
		if (IS_ERR(task))
			break;
		started++;
	}
	if (!tap(started == KS_WRITERS, "%s: %u writers started", what,
		 started)) {
		for (i = 0; i < started; i++)
			wait_for_completion(&r->wr[i].exited);
		goto down;
	}
	wait_event_timeout(r->wq, ks_warm(r), KV_TIMEOUT);
	if (ks_invalidate(r, send, what)) {
		kv_dbuf_cpu(r->b.c.ibdev, &r->b.buf);
		if (read) {
			/* What a READ served from here on would return. */
			memset(r->b.buf.va, KS_AFTER, KS_REGION);
			kv_dbuf_dev(r->b.c.ibdev, &r->b.buf);
		} else {
			memcpy(r->snap, r->b.buf.va, KS_REGION);
		}
	}
	for (i = 0; i < KS_WRITERS; i++)
		wait_for_completion(&r->wr[i].exited);
	ks_check(r, what);
down:
	ks_down(r);
	tap(true, "%s: everything destroyed", what);
	kfree(r);
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

	if (!max_only) {
		kv_test_pd(c);
		kv_test_cq(c);
		kv_test_rc(c);
		kv_test_ud(c);
		kv_test_gsi(c);
		kv_test_srq(c);
		kv_test_ah(c);
		kv_test_mr(c);
		kv_test_dp(c);
	}
	kv_test_maxq(c);

	tap(!ib_destroy_cq_user(c->cq, NULL), "ib_destroy_cq of the QPs' CQ");
pd:
	tap(!ib_dealloc_pd_user(c->pd, NULL), "ib_dealloc_pd");
put:
	ib_device_put(c->ibdev);
}

static int __init orca_kverbs_test_init(void)
{
	struct kv_ctx *c = kzalloc(sizeof(*c), GFP_KERNEL);
	unsigned int i;

	if (!c)
		return -ENOMEM;
	if (keys) {
		kk_run();
		for (i = 0; i < KS_ROUNDS; i++) {
			ks_one(false, false);
			ks_one(true, false);
		}
		for (i = 0; i < KS_ROUNDS; i++) {
			ks_one(false, true);
			ks_one(true, true);
		}
	} else if (peer) {
		kv_wire_run();
	} else {
		kv_run(c);
	}
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
