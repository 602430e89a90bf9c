// SPDX-License-Identifier: GPL-2.0-only
/*
 * The extended verbs of the data path: ibv_create_cq_ex polled with
 * ibv_start_poll/next_poll/end_poll and the ibv_wc_read_* accessors, and
 * ibv_create_qp_ex with send_ops_flags posted with the ibv_wr_* API: each
 * opcode of RC, UC and UD, ibv_wr_set_sge, _sge_list, _inline_data,
 * _inline_data_list, _ud_addr, several WRs in one batch, and
 * ibv_wr_abort discarding a batch; ibv_wr_send_inv and ibv_wr_local_inv
 * of keys that cannot be invalidated.  Payloads checked byte for byte.
 * Prints TAP.  Usage: dp_ex DEVICE
 */
#include "dp_common.h"

#define BUFSZ (256 * 1024)

static struct dp_buf abuf, bbuf;
static uint8_t *lin;

struct xend {
	struct dp_end e;
	struct ibv_cq_ex *scx, *rcx;
	struct ibv_qp_ex *qpx;
};

struct xpair {
	struct dp_qp_cfg cfg;
	struct xend a, b;
};

static uint64_t ops_for(enum ibv_qp_type t)
{
	uint64_t f = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;

	if (t != IBV_QPT_UD)
		f |= IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	if (t == IBV_QPT_RC)
		f |= IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	return f;
}

static struct ibv_cq_ex *make_cq_ex(void)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 256,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
			    IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP,
	};
	struct ibv_cq_ex *cq = ibv_create_cq_ex(dp.ctx, &ca);

	if (!cq)
		diag("ibv_create_cq_ex: %s", strerror(errno));
	return cq;
}

static uint64_t extra_ops;	/* added to ops_for() by xend_create */

static int xend_create(struct xend *x, const struct dp_qp_cfg *c)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = c->type, .sq_sig_all = 0, .pd = dp.pd,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 4,
			 .max_recv_sge = 4, .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = ops_for(c->type) | extra_ops,
	};

	memset(x, 0, sizeof(*x));
	x->scx = make_cq_ex();
	x->rcx = make_cq_ex();
	if (!x->scx || !x->rcx)
		return -1;
	x->e.scq = ibv_cq_ex_to_cq(x->scx);
	x->e.rcq = ibv_cq_ex_to_cq(x->rcx);
	qa.send_cq = x->e.scq;
	qa.recv_cq = x->e.rcq;
	x->e.qp = ibv_create_qp_ex(dp.ctx, &qa);
	if (!x->e.qp) {
		diag("ibv_create_qp_ex(%s, send_ops_flags 0x%llx): %s", dp_type_str(c->type),
		     (unsigned long long)qa.send_ops_flags, strerror(errno));
		return -1;
	}
	x->e.cap = qa.cap;
	x->qpx = ibv_qp_to_qp_ex(x->e.qp);
	if (!x->qpx) {
		diag("ibv_qp_to_qp_ex: NULL");
		return -1;
	}
	return 0;
}

static int xpair_make(struct xpair *p, enum ibv_qp_type t)
{
	dp_cfg_default(&p->cfg, t);
	if (xend_create(&p->a, &p->cfg) || xend_create(&p->b, &p->cfg))
		goto fail;
	if (dp_end_connect(&p->a.e, &p->cfg, p->b.e.qp->qp_num, IBV_QPS_RTS) ||
	    dp_end_connect(&p->b.e, &p->cfg, p->a.e.qp->qp_num, IBV_QPS_RTS))
		goto fail;
	if (t == IBV_QPT_UD && !(p->a.e.ah = dp_make_ah(dp.pd)))
		goto fail;
	return ok(1, "%s: two QPs from ibv_create_qp_ex (send_ops_flags 0x%llx) with "
		  "ibv_create_cq_ex CQs, connected, RTS", dp_type_str(t),
		  (unsigned long long)(ops_for(t) | extra_ops));
fail:
	dp_end_destroy(&p->a.e);
	dp_end_destroy(&p->b.e);
	return ok(0, "%s: QPs from ibv_create_qp_ex with CQs from ibv_create_cq_ex",
		  dp_type_str(t));
}

static void xpair_destroy(struct xpair *p)
{
	dp_end_destroy(&p->a.e);
	dp_end_destroy(&p->b.e);
}

/*
 * Poll @n completions with start_poll/next_poll/end_poll, read through
 * the ibv_wc_read_* accessors into struct ibv_wc for checking.
 */
static int xpoll(struct ibv_cq_ex *cq, struct ibv_wc *wc, int n, const char *what)
{
	struct ibv_poll_cq_attr pa = {};
	long deadline = dp_now_ms() + dp_timeout_ms();
	int got = 0, ret;

	while (got < n) {
		ret = ibv_start_poll(cq, &pa);
		if (ret == ENOENT) {
			if (dp_now_ms() > deadline) {
				diag("%s: %d of %d completion(s) after %ld ms", what, got, n,
				     dp_timeout_ms());
				dp_timed_out();
				return got;
			}
			continue;
		}
		if (ret) {
			diag("%s: ibv_start_poll: %d", what, ret);
			return got;
		}
		do {
			struct ibv_wc *w = &wc[got++];

			memset(w, 0, sizeof(*w));
			w->wr_id = cq->wr_id;
			w->status = cq->status;
			if (w->status == IBV_WC_SUCCESS) {
				w->opcode = ibv_wc_read_opcode(cq);
				w->byte_len = ibv_wc_read_byte_len(cq);
				w->qp_num = ibv_wc_read_qp_num(cq);
				w->src_qp = ibv_wc_read_src_qp(cq);
				w->wc_flags = ibv_wc_read_wc_flags(cq);
				if (w->wc_flags & IBV_WC_WITH_IMM)
					w->imm_data = ibv_wc_read_imm_data(cq);
			}
		} while (got < n && ibv_next_poll(cq) == 0);
		ibv_end_poll(cq);
	}
	return got;
}

static int xpoll1(struct ibv_cq_ex *cq, struct ibv_wc *wc, const char *what)
{
	return xpoll(cq, wc, 1, what) == 1;
}

static int xempty(struct ibv_cq_ex *cq, const char *what)
{
	struct ibv_poll_cq_attr pa = {};
	int ret = ibv_start_poll(cq, &pa);

	if (ret == ENOENT)
		return 1;
	if (!ret) {
		diag("%s: unexpected completion wr_id 0x%llx status %d", what,
		     (unsigned long long)cq->wr_id, cq->status);
		ibv_end_poll(cq);
	}
	return 0;
}

/* ---- the cases ----------------------------------------------------------- */

enum sgmode { SG_ONE, SG_LIST, SG_INLINE, SG_INLINE_LIST };

static const char *const sg_name[] = { "wr_set_sge", "wr_set_sge_list (3 SGEs)",
				       "wr_set_inline_data",
				       "wr_set_inline_data_list (3 buffers)" };

/* Set the data of the current WR: @len bytes of a's buffer at @off. */
static void set_data(struct xpair *p, enum sgmode m, size_t off, uint32_t len,
		     uint8_t *scratch)
{
	struct ibv_qp_ex *q = p->a.qpx;
	uint32_t l1 = len / 3, l2 = len / 3, l3 = len - 2 * (len / 3);
	struct ibv_sge sg[3] = {
		{ (uintptr_t)abuf.p + off, l1, abuf.mr->lkey },
		{ (uintptr_t)abuf.p + off + l1 + 4099, l2, abuf.mr->lkey },
		{ (uintptr_t)abuf.p + off + l1 + l2 + 9001, l3, abuf.mr->lkey },
	};
	struct ibv_data_buf db[3];
	int i;

	switch (m) {
	case SG_ONE:
		ibv_wr_set_sge(q, abuf.mr->lkey, (uintptr_t)abuf.p + off, len);
		break;
	case SG_LIST:
		ibv_wr_set_sge_list(q, 3, sg);
		break;
	case SG_INLINE:
		memcpy(scratch, abuf.p + off, len);
		ibv_wr_set_inline_data(q, scratch, len);
		break;
	case SG_INLINE_LIST:
		for (i = 0; i < 3; i++) {
			memcpy(scratch + 100 * i, (void *)(uintptr_t)sg[i].addr, sg[i].length);
			db[i] = (struct ibv_data_buf){ scratch + 100 * i, sg[i].length };
		}
		ibv_wr_set_inline_data_list(q, 3, db);
		break;
	}
}

/* Lay the message @lin[0..len) out where set_data(@m, @off) reads it. */
static void place(enum sgmode m, size_t off, uint32_t len)
{
	uint32_t l1 = len / 3, l2 = len / 3;

	if (m == SG_ONE || m == SG_INLINE) {
		memcpy(abuf.p + off, lin, len);
		return;
	}
	memcpy(abuf.p + off, lin, l1);
	memcpy(abuf.p + off + l1 + 4099, lin + l1, l2);
	memcpy(abuf.p + off + l1 + l2 + 9001, lin + l1 + l2, len - l1 - l2);
}

static uint32_t seq;

/*
 * One WR through the ibv_wr_* API from a to b, and its checks.  @op is
 * the ibv_wr_opcode it stands for.
 */
static void one(struct xpair *p, enum ibv_wr_opcode op, enum sgmode m, uint32_t len)
{
	int ud = p->cfg.type == IBV_QPT_UD;
	int has_imm = op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM;
	int is_send = op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM;
	struct ibv_qp_ex *q = p->a.qpx;
	uint64_t swr = 0xe000 + ++seq, rwr = 0xf000 + seq;
	uint32_t imm = 0xa1b2c300U + seq, seed = seq * 13U;
	size_t roff = 333 + seq;
	struct ibv_sge rs = { (uintptr_t)bbuf.p + roff, BUFSZ / 2, bbuf.mr->lkey };
	uint8_t scratch[512];
	struct dp_wc_want w;
	struct ibv_wc wc;
	int ret, good = 1;
	const char *name = op == IBV_WR_SEND ? "ibv_wr_send" :
			   op == IBV_WR_SEND_WITH_IMM ? "ibv_wr_send_imm" :
			   op == IBV_WR_RDMA_WRITE ? "ibv_wr_rdma_write" :
			   op == IBV_WR_RDMA_WRITE_WITH_IMM ? "ibv_wr_rdma_write_imm" :
			   "ibv_wr_rdma_read";

	memset(abuf.p, DP_POISON, BUFSZ);
	memset(bbuf.p, DP_POISON, BUFSZ);
	dp_fill(lin, len, seed);
	if (op == IBV_WR_RDMA_READ)
		memcpy(bbuf.p + roff, lin, len);
	else
		place(m, 64, len);
	if (is_send || has_imm)
		dp_post_recv(p->b.e.qp, rwr, &rs, op == IBV_WR_RDMA_WRITE_WITH_IMM ? 0 : 1);

	ibv_wr_start(q);
	q->wr_id = swr;
	q->wr_flags = IBV_SEND_SIGNALED | (m >= SG_INLINE ? IBV_SEND_INLINE : 0);
	switch (op) {
	case IBV_WR_SEND:
		ibv_wr_send(q);
		break;
	case IBV_WR_SEND_WITH_IMM:
		ibv_wr_send_imm(q, htonl(imm));
		break;
	case IBV_WR_RDMA_WRITE:
		ibv_wr_rdma_write(q, bbuf.mr->rkey, (uintptr_t)bbuf.p + roff);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		ibv_wr_rdma_write_imm(q, bbuf.mr->rkey, (uintptr_t)bbuf.p + roff, htonl(imm));
		break;
	default:
		ibv_wr_rdma_read(q, bbuf.mr->rkey, (uintptr_t)bbuf.p + roff);
		break;
	}
	if (ud)
		ibv_wr_set_ud_addr(q, p->a.e.ah, p->b.e.qp->qp_num, DP_QKEY);
	set_data(p, m, 64, len, scratch);
	ret = ibv_wr_complete(q);
	memset(scratch, 0x3c, sizeof(scratch));
	if (ret) {
		ok(0, "%s %s, %s, %u bytes: ibv_wr_complete: %s", dp_type_str(p->cfg.type),
		   name, sg_name[m], len, strerror(ret));
		return;
	}
	w = (struct dp_wc_want){ swr, IBV_WC_SUCCESS,
				 op == IBV_WR_RDMA_READ ? IBV_WC_RDMA_READ :
				 is_send ? IBV_WC_SEND : IBV_WC_RDMA_WRITE,
				 op == IBV_WR_RDMA_READ ? (long)len : -1,
				 p->a.e.qp->qp_num, -1, -1, -1 };
	if (!xpoll1(p->a.scx, &wc, "requester") || !dp_wc_check(&wc, &w, "requester"))
		good = 0;
	if (is_send || has_imm) {
		w = (struct dp_wc_want){ rwr, IBV_WC_SUCCESS,
					 is_send ? IBV_WC_RECV : IBV_WC_RECV_RDMA_WITH_IMM,
					 (long)len + (ud ? DP_GRH : 0), p->b.e.qp->qp_num,
					 ud ? (long)p->a.e.qp->qp_num : -1,
					 (has_imm ? IBV_WC_WITH_IMM : 0) | (ud ? IBV_WC_GRH : 0),
					 has_imm ? (long)imm : -1 };
		if (!xpoll1(p->b.rcx, &wc, "responder") || !dp_wc_check(&wc, &w, "responder"))
			good = 0;
	}
	if (op == IBV_WR_RDMA_READ) {
		uint8_t *got = malloc(len + 1);

		/* Gather back what set_data's SGEs received. */
		if (m == SG_ONE) {
			memcpy(got, abuf.p + 64, len);
		} else {
			uint32_t l1 = len / 3, l2 = len / 3;

			memcpy(got, abuf.p + 64, l1);
			memcpy(got + l1, abuf.p + 64 + l1 + 4099, l2);
			memcpy(got + l1 + l2, abuf.p + 64 + l1 + l2 + 9001, len - l1 - l2);
		}
		if (!dp_cmp(got, lin, len, "READ data"))
			good = 0;
		free(got);
	} else {
		uint8_t *dst = bbuf.p + roff + (ud && is_send ? DP_GRH : 0);

		if (op == IBV_WR_RDMA_WRITE && p->cfg.type == IBV_QPT_UC) {
			/* UC: the completion does not mean placed; a SEND behind it does. */
			dp_post_recv(p->b.e.qp, rwr, &rs, 0);
			ibv_wr_start(q);
			q->wr_id = swr + 0x100;
			q->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_send(q);
			ibv_wr_set_sge_list(q, 0, NULL);
			if (ibv_wr_complete(q) || !xpoll1(p->a.scx, &wc, "fence") ||
			    !xpoll1(p->b.rcx, &wc, "fence"))
				good = 0;
		}
		if (!dp_cmp(dst, lin, len, "payload") || dst[len] != DP_POISON)
			good = 0;
	}
	ok(good && xempty(p->a.scx, "send CQ") && xempty(p->b.rcx, "recv CQ"),
	   "%s %s, %s, %u bytes: completions (read with ibv_wc_read_*) and payload",
	   dp_type_str(p->cfg.type), name, sg_name[m], len);
}

static void atomics(struct xpair *p)
{
	struct ibv_qp_ex *q = p->a.qpx;
	uint64_t *r = (uint64_t *)(bbuf.p + 512), *res = (uint64_t *)(abuf.p + 8);
	struct ibv_wc wc[2];
	struct dp_wc_want w;
	int good = 1;

	*r = 100;
	res[0] = res[1] = 0;
	ibv_wr_start(q);
	q->wr_id = 0xa1;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_cmp_swp(q, bbuf.mr->rkey, (uintptr_t)r, 100, 200);
	ibv_wr_set_sge(q, abuf.mr->lkey, (uintptr_t)&res[0], 8);
	q->wr_id = 0xa2;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(q, bbuf.mr->rkey, (uintptr_t)r, 5);
	ibv_wr_set_sge(q, abuf.mr->lkey, (uintptr_t)&res[1], 8);
	if (ibv_wr_complete(q) || xpoll(p->a.scx, wc, 2, "atomics") != 2)
		good = 0;
	w = (struct dp_wc_want){ 0xa1, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, 8,
				 p->a.e.qp->qp_num, -1, -1, -1 };
	good = good && dp_wc_check(&wc[0], &w, "cmp_swp");
	w.wr_id = 0xa2;
	w.opcode = IBV_WC_FETCH_ADD;
	good = good && dp_wc_check(&wc[1], &w, "fetch_add");
	if (res[0] != 100 || res[1] != 200 || *r != 205) {
		diag("old values %llu, %llu (want 100, 200); remote %llu (want 205)",
		     (unsigned long long)res[0], (unsigned long long)res[1],
		     (unsigned long long)*r);
		good = 0;
	}
	ok(good, "RC ibv_wr_atomic_cmp_swp then ibv_wr_atomic_fetch_add in one batch: "
	   "completions, old values, remote value");
}

static void batch_and_abort(struct xpair *p)
{
	struct ibv_qp_ex *q = p->a.qpx;
	struct ibv_sge rs = { (uintptr_t)bbuf.p, 4096, bbuf.mr->lkey };
	struct ibv_wc wc[3];
	int i, good = 1;

	memset(bbuf.p, DP_POISON, BUFSZ);
	for (i = 0; i < 3; i++)
		dp_post_recv(p->b.e.qp, 0x50 + i, &rs, 1);

	/* Two WRs built, then aborted: nothing may happen. */
	ibv_wr_start(q);
	for (i = 0; i < 2; i++) {
		q->wr_id = 0x60 + i;
		q->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(q);
		if (p->cfg.type == IBV_QPT_UD)
			ibv_wr_set_ud_addr(q, p->a.e.ah, p->b.e.qp->qp_num, DP_QKEY);
		ibv_wr_set_sge(q, abuf.mr->lkey, (uintptr_t)abuf.p, 16);
	}
	ibv_wr_abort(q);

	/* Then a batch of 3 in one start/complete. */
	ibv_wr_start(q);
	for (i = 0; i < 3; i++) {
		q->wr_id = 0x70 + i;
		q->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send_imm(q, htonl(0x100 + i));
		if (p->cfg.type == IBV_QPT_UD)
			ibv_wr_set_ud_addr(q, p->a.e.ah, p->b.e.qp->qp_num, DP_QKEY);
		ibv_wr_set_sge(q, abuf.mr->lkey, (uintptr_t)abuf.p + i, 16);
	}
	if (ibv_wr_complete(q))
		good = 0;
	if (xpoll(p->a.scx, wc, 3, "batch") != 3)
		good = 0;
	for (i = 0; good && i < 3; i++)
		if (wc[i].wr_id != 0x70U + i || wc[i].status != IBV_WC_SUCCESS) {
			dp_wc_diag("batch send", &wc[i]);
			good = 0;
		}
	ok(good, "%s: a batch of 3 WRs in one ibv_wr_start/complete: 3 completions, in order; "
	   "the 2 WRs aborted before it gave none", dp_type_str(p->cfg.type));
	good = xpoll(p->b.rcx, wc, 3, "batch receives") == 3;
	for (i = 0; good && i < 3; i++)
		if (wc[i].wr_id != 0x50U + i || wc[i].imm_data != htonl(0x100 + i)) {
			dp_wc_diag("batch receive", &wc[i]);
			good = 0;
		}
	ok(good && xempty(p->b.rcx, "receives"),
	   "%s: ibv_wr_abort discarded its WRs: the batch's 3 messages take the first 3 receives",
	   dp_type_str(p->cfg.type));
}

static void test_type(enum ibv_qp_type t)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
	};
	int nops = t == IBV_QPT_RC ? 5 : t == IBV_QPT_UC ? 4 : 2;
	uint32_t big = t == IBV_QPT_UD ? dp_mtu_bytes() : 100000;
	struct xpair p;
	int i;

	if (!xpair_make(&p, t))
		return;
	{
		struct ibv_poll_cq_attr pa = {};

		ok(ibv_start_poll(p.a.scx, &pa) == ENOENT,
		   "%s: ibv_start_poll on an empty CQ: ENOENT", dp_type_str(t));
	}
	for (i = 0; i < nops; i++) {
		one(&p, ops[i], SG_ONE, 1);
		one(&p, ops[i], SG_ONE, big);
		one(&p, ops[i], SG_LIST, big - 7);
		if (ops[i] != IBV_WR_RDMA_READ) {
			one(&p, ops[i], SG_INLINE, 61);
			one(&p, ops[i], SG_INLINE_LIST, 50);
		}
	}
	if (t == IBV_QPT_RC)
		atomics(&p);
	batch_and_abort(&p);
	xpair_destroy(&p);
}

/*
 * ibv_wr_send_inv and ibv_wr_local_inv of keys that cannot be
 * invalidated (userspace has neither MWs nor fast-register MRs): the
 * statuses the Orca hardware interface documents, as in dp_opcodes.
 */
static void test_inv(void)
{
	struct ibv_sge rs = { (uintptr_t)bbuf.p, 64, bbuf.mr->lkey };
	struct xpair p;
	struct ibv_wc wc;
	int got;

	extra_ops = IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_LOCAL_INV;
	if (!xpair_make(&p, IBV_QPT_RC))
		goto out;
	dp_post_recv(p.b.e.qp, 0x2e, &rs, 1);
	ibv_wr_start(p.a.qpx);
	p.a.qpx->wr_id = 0x1e;
	p.a.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_inv(p.a.qpx, bbuf.mr->rkey);
	ibv_wr_set_sge(p.a.qpx, abuf.mr->lkey, (uintptr_t)abuf.p, 16);
	got = !ibv_wr_complete(p.a.qpx) && xpoll1(p.a.scx, &wc, "send_inv");
	ok(got && wc.wr_id == 0x1e && wc.status == IBV_WC_REM_INV_REQ_ERR,
	   "RC ibv_wr_send_inv of an ordinary MR's rkey: REM_INV_REQ_ERR (%s)",
	   got ? ibv_wc_status_str(wc.status) : "no completion");
	got = xpoll1(p.b.rcx, &wc, "send_inv responder");
	ok(got && wc.wr_id == 0x2e && wc.status == IBV_WC_WR_FLUSH_ERR,
	   "RC ibv_wr_send_inv: the responder's receive is flushed, not consumed (%s)",
	   got ? ibv_wc_status_str(wc.status) : "no completion");
	xpair_destroy(&p);
	dp_ev_forget();

	if (!xpair_make(&p, IBV_QPT_RC))
		goto out;
	ibv_wr_start(p.a.qpx);
	p.a.qpx->wr_id = 0x1f;
	p.a.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(p.a.qpx, abuf.mr->lkey);
	got = !ibv_wr_complete(p.a.qpx) && xpoll1(p.a.scx, &wc, "local_inv");
	ok(got && wc.wr_id == 0x1f && wc.status == IBV_WC_LOC_PROT_ERR,
	   "RC ibv_wr_local_inv of an ordinary MR's key: LOC_PROT_ERR (%s)",
	   got ? ibv_wc_status_str(wc.status) : "no completion");
	xpair_destroy(&p);
	dp_ev_forget();
out:
	extra_ops = 0;
}

int main(int argc, char **argv)
{
	dp_open(argc, argv);
	lin = malloc(BUFSZ);
	if (!ok(lin && !dp_buf_alloc(&abuf, dp.pd, BUFSZ, DP_ACC_ALL) &&
		!dp_buf_alloc(&bbuf, dp.pd, BUFSZ, DP_ACC_ALL), "register two buffers"))
		return tap_end();
	test_type(IBV_QPT_RC);
	test_type(IBV_QPT_UC);
	test_type(IBV_QPT_UD);
	test_inv();
	dp_buf_free(&abuf);
	dp_buf_free(&bbuf);
	free(lin);
	return dp_close();
}
