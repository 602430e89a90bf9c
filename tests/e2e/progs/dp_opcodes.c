// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every send opcode on every QP type it applies to, between two QPs of
 * one context: RC SEND, SEND_WITH_IMM, RDMA_WRITE[_WITH_IMM], RDMA_READ,
 * both atomics, inline SEND and WRITE; UC SEND[_WITH_IMM] and
 * RDMA_WRITE[_WITH_IMM]; UD SEND[_WITH_IMM] with the GRH area; RC and
 * UD receives from an SRQ; SEND_WITH_INV and LOCAL_INV on keys that
 * cannot be invalidated; signalled and unsignalled completions; the
 * solicited flag.  Payloads are patterned and checked byte for byte,
 * together with everything around them (poisoned), for zero-length,
 * one-byte, unaligned, page-spanning, multi-SGE gather/scatter and
 * 1 MiB messages.  Completion fields are checked one by one.
 * Prints TAP.  Usage: dp_opcodes DEVICE
 */
#include "dp_common.h"

#define MIB		(1U << 20)
#define BUFSZ		(MIB + 65536)

enum { XF_INLINE = 1, XF_SOLICITED = 2 };

static struct dp_buf abuf, bbuf;	/* a's and b's memory, all access */
static uint8_t *want;			/* expected image of a buffer */
static uint8_t *lin;			/* a linear message */
static uint32_t seq;			/* distinguishes cases */

#define N(a) ((int)DP_ARRAY_SIZE(a))

/* Gather the first @total bytes that @segs of @base hold, into @out. */
static void gather(uint8_t *out, const uint8_t *base, const struct dp_seg *s,
		   int n, size_t total)
{
	size_t k = 0;
	int j;

	for (j = 0; j < n && k < total; j++) {
		size_t c = s[j].len < total - k ? s[j].len : total - k;

		memcpy(out + k, base + s[j].off, c);
		k += c;
	}
}

static void scatter(uint8_t *base, const struct dp_seg *s, int n,
		    const uint8_t *in, size_t total)
{
	size_t k = 0;
	int j;

	for (j = 0; j < n && k < total; j++) {
		size_t c = s[j].len < total - k ? s[j].len : total - k;

		memcpy(base + s[j].off, in + k, c);
		k += c;
	}
}

static int wc_send_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	case IBV_WR_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	default:
		return IBV_WC_SEND;
	}
}

static const char *op_str(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND: return "SEND";
	case IBV_WR_SEND_WITH_IMM: return "SEND_WITH_IMM";
	case IBV_WR_SEND_WITH_INV: return "SEND_WITH_INV";
	case IBV_WR_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WR_RDMA_WRITE_WITH_IMM: return "RDMA_WRITE_WITH_IMM";
	case IBV_WR_RDMA_READ: return "RDMA_READ";
	case IBV_WR_ATOMIC_CMP_AND_SWP: return "ATOMIC_CMP_AND_SWP";
	case IBV_WR_ATOMIC_FETCH_AND_ADD: return "ATOMIC_FETCH_AND_ADD";
	case IBV_WR_LOCAL_INV: return "LOCAL_INV";
	default: return "?";
	}
}

/*
 * One transfer from a to b (b to a for READ's data) and all its checks;
 * one test point.  @src: a's SGEs (gather; READ: scatter).  @dst: b's
 * receive SGEs for sends; for WRITE and READ, dst[0].off is the remote
 * offset in b's buffer.  Returns 1 if everything held.
 */
static int xfer(struct dp_pair *p, const char *shape, enum ibv_wr_opcode op,
		const struct dp_seg *src, int nsrc, const struct dp_seg *dst,
		int ndst, int xf)
{
	enum ibv_qp_type type = p->cfg.type;
	int ud = type == IBV_QPT_UD;
	int is_send = op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM;
	int has_imm = op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM;
	int is_read = op == IBV_WR_RDMA_READ;
	int needs_recv = is_send || op == IBV_WR_RDMA_WRITE_WITH_IMM;
	size_t len = dp_segs_total(src, nsrc);
	uint32_t seed = ++seq * 7919U;
	uint32_t imm = 0x01020300U | (seq & 0xff);
	uint64_t swr = 0x5e0d000000000000ULL | seq, rwr = 0x4ec0000000000000ULL | seq;
	uint64_t fwr = 0xfe0c000000000000ULL | seq;
	struct ibv_sge ssge[8], rsge[8], fsge;
	uint8_t *inl = NULL;
	struct ibv_send_wr wr = { 0 };
	struct ibv_wc wc;
	struct dp_wc_want w;
	char what[160];
	int good = 1;
	size_t k;

	snprintf(what, sizeof(what), "%s %s %s%s%s (%zu bytes)", dp_type_str(type),
		 op_str(op), shape, xf & XF_INLINE ? ", inline" : "",
		 xf & XF_SOLICITED ? ", solicited" : "", len);
	memset(abuf.p, DP_POISON, BUFSZ);
	memset(bbuf.p, DP_POISON, BUFSZ);
	dp_cq_drain(p->a.scq);
	dp_cq_drain(p->b.rcq);

	/* The message, linear; then placed where it comes from. */
	dp_fill(lin, len, seed);
	if (is_read)
		memcpy(bbuf.p + dst[0].off, lin, len);
	else
		scatter(abuf.p, src, nsrc, lin, len);

	if (needs_recv) {
		if (op == IBV_WR_RDMA_WRITE_WITH_IMM)
			ndst = 0;	/* consumes a WQE, places nothing there */
		dp_sges(rsge, &bbuf, dst, ndst);
		if (dp_post_recv(p->b.qp, rwr, rsge, ndst))
			return ok(0, "%s: post the receive", what);
	} else if (!is_read) {
		/* A WRITE must not consume this; the fence SEND below does. */
		fsge = (struct ibv_sge){ (uintptr_t)bbuf.p + BUFSZ - 64, 64, bbuf.mr->lkey };
		if (dp_post_recv(p->b.qp, fwr, &fsge, 1))
			return ok(0, "%s: post the receive", what);
	}

	dp_sges(ssge, &abuf, src, nsrc);
	if (xf & XF_INLINE) {
		/* From unregistered memory, overwritten right after posting. */
		size_t at = 1;

		inl = malloc(len + 4 * nsrc + 1);
		for (k = 0; k < (size_t)nsrc; k++) {
			memcpy(inl + at, (void *)(uintptr_t)ssge[k].addr, ssge[k].length);
			ssge[k].addr = (uintptr_t)inl + at;
			ssge[k].lkey = 0xdeadbeef;	/* ignored for inline */
			at += ssge[k].length + 3;
		}
	}
	wr.wr_id = swr;
	wr.sg_list = ssge;
	wr.num_sge = nsrc;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED | (xf & XF_INLINE ? IBV_SEND_INLINE : 0) |
			(xf & XF_SOLICITED ? IBV_SEND_SOLICITED : 0);
	if (has_imm)
		wr.imm_data = htonl(imm);
	if (ud)
		dp_ud_dest(&wr, &p->a, &p->b);
	if (!is_send) {
		wr.wr.rdma.remote_addr = (uintptr_t)bbuf.p + dst[0].off;
		wr.wr.rdma.rkey = bbuf.mr->rkey;
	}
	if (dp_post_send(p->a.qp, &wr)) {
		free(inl);
		return ok(0, "%s: post the send", what);
	}
	if (inl) {
		memset(inl, 0x3c, len + 4 * nsrc + 1);
		free(inl);
	}

	/* The requester's completion. */
	w = (struct dp_wc_want){ swr, IBV_WC_SUCCESS, wc_send_opcode(op),
				 is_read ? (long)len : -1, p->a.qp->qp_num,
				 -1, -1, -1 };
	if (!dp_poll1(p->a.scq, &wc, what) ||
	    !dp_wc_check(&wc, &w, "requester completion"))
		good = 0;

	/* The responder's receive completion, if the opcode takes one. */
	if (needs_recv) {
		w = (struct dp_wc_want){
			rwr, IBV_WC_SUCCESS,
			is_send ? IBV_WC_RECV : IBV_WC_RECV_RDMA_WITH_IMM,
			(long)len + (ud ? DP_GRH : 0), p->b.qp->qp_num,
			ud ? (long)p->a.qp->qp_num : -1,
			(has_imm ? IBV_WC_WITH_IMM : 0) | (ud ? IBV_WC_GRH : 0),
			has_imm ? (long)imm : -1,
		};
		if (!dp_poll1(p->b.rcq, &wc, what) ||
		    !dp_wc_check(&wc, &w, "responder completion"))
			good = 0;
	} else if (!is_read) {
		/*
		 * RC: the WRITE's completion means it was placed, and it
		 * consumed no receive.  Then a SEND, ordered after the
		 * WRITE, must take the receive posted before it.
		 */
		struct ibv_send_wr f = { .wr_id = fwr, .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_SIGNALED };

		if (type == IBV_QPT_RC && !dp_cq_empty(p->b.rcq, "RDMA_WRITE consumed a receive"))
			good = 0;
		if (dp_post_send(p->a.qp, &f) || !dp_poll1(p->a.scq, &wc, "fence send") ||
		    wc.status != IBV_WC_SUCCESS)
			good = 0;
		w = (struct dp_wc_want){ fwr, IBV_WC_SUCCESS, IBV_WC_RECV, 0,
					 p->b.qp->qp_num, -1, 0, -1 };
		if (!dp_poll1(p->b.rcq, &wc, "fence receive") ||
		    !dp_wc_check(&wc, &w, "fence receive after the WRITE"))
			good = 0;
	}

	/* The memory: the message where it belongs, poison elsewhere. */
	memset(want, DP_POISON, BUFSZ);
	if (is_read) {
		memcpy(want + dst[0].off, lin, len);
		if (!dp_cmp(bbuf.p, want, BUFSZ, "READ source changed"))
			good = 0;
		memset(want, DP_POISON, BUFSZ);
		scatter(want, src, nsrc, lin, len);
		if (!dp_cmp(abuf.p, want, BUFSZ, "READ destination (a's buffer)"))
			good = 0;
	} else if (is_send && ud) {
		uint8_t grh[DP_GRH];

		memmove(lin + DP_GRH, lin, len);
		gather(grh, bbuf.p, dst, ndst, DP_GRH);
		if (!dp_check_grh(grh, what))
			good = 0;
		memcpy(lin, grh, DP_GRH);
		scatter(want, dst, ndst, lin, len + DP_GRH);
		if (!dp_cmp(bbuf.p, want, BUFSZ, "b's buffer"))
			good = 0;
	} else if (is_send) {
		scatter(want, dst, ndst, lin, len);
		if (!dp_cmp(bbuf.p, want, BUFSZ, "b's buffer"))
			good = 0;
	} else {
		memcpy(want + dst[0].off, lin, len);
		if (!dp_cmp(bbuf.p, want, BUFSZ, "b's buffer"))
			good = 0;
	}
	if (!dp_cq_empty(p->a.scq, "a's send CQ after the case") ||
	    !dp_cq_empty(p->b.rcq, "b's receive CQ after the case"))
		good = 0;
	return ok(good, "%s: completions and memory as expected", what);
}

/* ---- the shapes --------------------------------------------------------- */

struct shape {
	const char *name;
	struct dp_seg src[4];
	int nsrc;
	struct dp_seg dst[4];
	int ndst;
};

/* For RC and UC: sends, writes, reads. */
static const struct shape big_shapes[] = {
	{ "zero-length (num_sge 0)", { { 0 } }, 0, { { 100, 64 } }, 1 },
	{ "one byte", { { 3, 1 } }, 1, { { 9, 1 } }, 1 },
	{ "unaligned address and length", { { 1, 7 } }, 1, { { 4097, 13 } }, 1 },
	{ "spanning a page boundary", { { 4093, 333 } }, 1, { { 8191, 400 } }, 1 },
	{ "spanning 4 pages", { { 100, 3 * 4096 + 17 } }, 1, { { 4095, 20000 } }, 1 },
	{ "3-SGE gather, 4-SGE scatter",
	  { { 10, 100 }, { 5001, 1 }, { 9000, 4000 } }, 3,
	  { { 20000, 50 }, { 30001, 2000 }, { 40000, 3 }, { 50007, 5000 } }, 4 },
	{ "4-SGE gather, 3-SGE scatter, unaligned",
	  { { 1, 4095 }, { 8193, 3 }, { 12289, 8191 }, { 30000, 77 } }, 4,
	  { { 7, 5000 }, { 40001, 7000 }, { 50003, 400 } }, 3 },
	{ "1 MiB", { { 0, MIB } }, 1, { { 0, MIB } }, 1 },
	{ "1 MiB unaligned, 3 SGEs", { { 1, MIB / 2 }, { MIB / 2 + 4099, MIB / 4 },
	  { MIB - MIB / 4 + 9000, MIB / 4 } }, 3, { { 3, MIB } }, 1 },
};

static void run_shapes(struct dp_pair *p, enum ibv_wr_opcode op,
		       const struct shape *sh, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		const struct dp_seg *dst = sh[i].dst;
		int ndst = sh[i].ndst;
		/* WRITE/READ: one remote range, at an odd offset. */
		struct dp_seg rdst = { sh[i].dst[0].off, 0 };

		if (op != IBV_WR_SEND && op != IBV_WR_SEND_WITH_IMM) {
			dst = &rdst;
			ndst = 1;
		}
		if (!xfer(p, sh[i].name, op, sh[i].src, sh[i].nsrc, dst, ndst, 0)) {
			/* Start over with a fresh pair: no error cascades. */
			struct dp_qp_cfg c = p->cfg;

			dp_pair_destroy(p);
			if (dp_pair_make(p, &c)) {
				ok(0, "recreate the QP pair");
				exit(tap_end());
			}
		}
	}
}

static int make_pair(struct dp_pair *p, enum ibv_qp_type t, int sig_all)
{
	struct dp_qp_cfg c;

	dp_cfg_default(&c, t);
	c.sq_sig_all = sig_all;
	return ok(!dp_pair_make(p, &c), "%s: two QPs connected to each other, RTS%s",
		  dp_type_str(t), sig_all ? ", sq_sig_all=1" : "");
}

static void test_connected(enum ibv_qp_type t)
{
	static const enum ibv_wr_opcode rc_ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
	};
	struct dp_pair p;
	int i, nops = t == IBV_QPT_RC ? 5 : 4;

	if (!make_pair(&p, t, 0))
		return;
	for (i = 0; i < nops; i++)
		run_shapes(&p, rc_ops[i], big_shapes, N(big_shapes));
	/* Immediate data with a zero-length WRITE. */
	{
		struct dp_seg r = { 64, 0 };

		xfer(&p, "zero-length", IBV_WR_RDMA_WRITE_WITH_IMM, NULL, 0, &r, 1, 0);
	}
	/* Solicited: delivered like any other. */
	{
		struct dp_seg s = { 5, 100 }, d = { 1000, 100 };

		xfer(&p, "100 bytes", IBV_WR_SEND, &s, 1, &d, 1, XF_SOLICITED);
		xfer(&p, "100 bytes", IBV_WR_SEND_WITH_IMM, &s, 1, &d, 1, XF_SOLICITED);
		xfer(&p, "100 bytes", IBV_WR_RDMA_WRITE_WITH_IMM, &s, 1, &d, 1,
		     XF_SOLICITED);
	}
	/* Inline, from unregistered memory that changes right after posting. */
	if (ok(p.a.cap.max_inline_data >= 64,
	       "%s: max_inline_data reported %u, >= the 64 requested",
	       dp_type_str(t), p.a.cap.max_inline_data)) {
		struct dp_seg s1 = { 11, 64 }, s2[2] = { { 3, 20 }, { 40, 44 } };
		struct dp_seg d = { 333, 200 };

		xfer(&p, "1 SGE", IBV_WR_SEND, &s1, 1, &d, 1, XF_INLINE);
		xfer(&p, "2 SGEs", IBV_WR_SEND, s2, 2, &d, 1, XF_INLINE);
		xfer(&p, "2 SGEs", IBV_WR_SEND_WITH_IMM, s2, 2, &d, 1, XF_INLINE);
		xfer(&p, "1 SGE", IBV_WR_RDMA_WRITE, &s1, 1, &d, 1, XF_INLINE);
		xfer(&p, "2 SGEs", IBV_WR_RDMA_WRITE, s2, 2, &d, 1, XF_INLINE);
		xfer(&p, "2 SGEs", IBV_WR_RDMA_WRITE_WITH_IMM, s2, 2, &d, 1, XF_INLINE);
	}
	dp_pair_destroy(&p);
}

/* ---- atomics ------------------------------------------------------------ */

static int atomic1(struct dp_pair *p, enum ibv_wr_opcode op, size_t roff,
		   uint64_t before, uint64_t cmp_add, uint64_t swap,
		   uint64_t want_remote, const char *name)
{
	uint64_t *remote = (uint64_t *)(bbuf.p + roff);
	uint64_t *result = (uint64_t *)(abuf.p + 1000);
	struct ibv_sge sge = { (uintptr_t)result, 8, abuf.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 0xa7000000ULL | ++seq, .sg_list = &sge, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
	};
	struct dp_wc_want w = { wr.wr_id, IBV_WC_SUCCESS, wc_send_opcode(op), 8,
				p->a.qp->qp_num, -1, -1, -1 };
	struct ibv_wc wc;
	int good;

	*remote = before;
	*result = 0x5a5a5a5a5a5a5a5aULL;
	wr.wr.atomic.remote_addr = (uintptr_t)remote;
	wr.wr.atomic.rkey = bbuf.mr->rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	good = !dp_post_send(p->a.qp, &wr) && dp_poll1(p->a.scq, &wc, name) &&
	       dp_wc_check(&wc, &w, name);
	if (*result != before || *remote != want_remote) {
		diag("%s: old value returned 0x%llx (want 0x%llx), remote now 0x%llx (want 0x%llx)",
		     name, (unsigned long long)*result, (unsigned long long)before,
		     (unsigned long long)*remote, (unsigned long long)want_remote);
		good = 0;
	}
	return ok(good, "RC %s: completion, old value and remote value", name);
}

static void test_atomics(void)
{
	struct dp_pair p;

	if (!ok(dp.attr.atomic_cap != IBV_ATOMIC_NONE,
		"the device reports atomic support (atomic_cap %d)", dp.attr.atomic_cap))
		return;
	if (!make_pair(&p, IBV_QPT_RC, 0))
		return;
	atomic1(&p, IBV_WR_ATOMIC_CMP_AND_SWP, 64, 0x1122334455667788ULL,
		0x1122334455667788ULL, 0x0102030405060708ULL, 0x0102030405060708ULL,
		"ATOMIC_CMP_AND_SWP, compare equal: swapped");
	atomic1(&p, IBV_WR_ATOMIC_CMP_AND_SWP, 72, 0x1122334455667788ULL,
		0x1122334455667789ULL, 0x0102030405060708ULL, 0x1122334455667788ULL,
		"ATOMIC_CMP_AND_SWP, compare different: not swapped");
	atomic1(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, 4096, 0x00000000ffffffffULL, 1, 0,
		0x0000000100000000ULL, "ATOMIC_FETCH_AND_ADD, carry across 32 bits");
	atomic1(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, 8192 - 8, 0xfffffffffffffffeULL, 3, 0,
		1, "ATOMIC_FETCH_AND_ADD, wraps at 64 bits");
	dp_pair_destroy(&p);
}

/*
 * Many READs and atomics in flight at once (more than max_rd_atomic):
 * each completes once, in order, with its data; 64 FETCH_ADDs of 1 on
 * one word return 0..63 in posting order and leave 64.
 */
static void test_rd_atomic_pipeline(void)
{
	struct dp_pair p;
	struct ibv_send_wr wr[64];
	struct ibv_sge sge[64];
	struct ibv_wc wc[64];
	struct ibv_send_wr *bad;
	uint64_t *word = (uint64_t *)(bbuf.p + MIB), *res = (uint64_t *)(abuf.p + MIB);
	int i, n, good = 1;

	if (!make_pair(&p, IBV_QPT_RC, 0))
		return;
	memset(abuf.p, DP_POISON, BUFSZ);
	dp_fill(bbuf.p, 64 * 4096, 4242);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 64; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)abuf.p + i * 4100 + 1, 4096 - i,
					   abuf.mr->lkey };
		wr[i].wr_id = 0x400 + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_READ;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uintptr_t)bbuf.p + i * 4096 + i;
		wr[i].wr.rdma.rkey = bbuf.mr->rkey;
		wr[i].next = i < 63 ? &wr[i + 1] : NULL;
	}
	if (dp_post_send(p.a.qp, wr))
		good = 0;
	n = dp_poll(p.a.scq, wc, 64, "64 READs");
	for (i = 0; i < n; i++)
		if (wc[i].wr_id != 0x400U + i || wc[i].status != IBV_WC_SUCCESS ||
		    wc[i].byte_len != 4096U - i ||
		    memcmp(abuf.p + i * 4100 + 1, bbuf.p + i * 4096 + i, 4096 - i)) {
			dp_wc_diag("READ", &wc[i]);
			good = 0;
			break;
		}
	ok(good && n == 64, "RC 64 RDMA READs in one post (max_rd_atomic %d): all complete "
	   "in order with their data", dp.attr.max_qp_rd_atom < 16 ? dp.attr.max_qp_rd_atom : 16);

	good = 1;
	*word = 0;
	for (i = 0; i < 64; i++) {
		res[i] = ~0ULL;
		sge[i] = (struct ibv_sge){ (uintptr_t)&res[i], 8, abuf.mr->lkey };
		wr[i].wr_id = 0x500 + i;
		wr[i].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr[i].wr.atomic.remote_addr = (uintptr_t)word;
		wr[i].wr.atomic.rkey = bbuf.mr->rkey;
		wr[i].wr.atomic.compare_add = 1;
	}
	if (ibv_post_send(p.a.qp, wr, &bad))
		good = 0;
	n = dp_poll(p.a.scq, wc, 64, "64 atomics");
	for (i = 0; i < n; i++)
		if (wc[i].wr_id != 0x500U + i || wc[i].status != IBV_WC_SUCCESS ||
		    res[i] != (uint64_t)i) {
			dp_wc_diag("FETCH_ADD", &wc[i]);
			diag("old value %llu, want %d", (unsigned long long)res[i], i);
			good = 0;
			break;
		}
	ok(good && n == 64 && *word == 64,
	   "RC 64 ATOMIC_FETCH_AND_ADD of 1 in one post: old values 0..63 in order, "
	   "word now 64 (%llu)", (unsigned long long)*word);
	dp_pair_destroy(&p);
}

/* ---- UD ----------------------------------------------------------------- */

static void test_ud(void)
{
	struct dp_pair p;
	unsigned int mtu = dp_mtu_bytes();
	const struct shape ud_shapes[] = {
		{ "zero-length (num_sge 0)", { { 0 } }, 0, { { 100, 64 } }, 1 },
		{ "one byte", { { 3, 1 } }, 1, { { 9, 41 } }, 1 },
		{ "unaligned", { { 1, 333 } }, 1, { { 4097, 500 } }, 1 },
		{ "a full MTU, spanning a page", { { 4000, mtu } }, 1,
		  { { 8190, mtu + DP_GRH } }, 1 },
		{ "3-SGE gather, GRH in its own SGE, 3-SGE scatter",
		  { { 10, 100 }, { 5001, 1 }, { 9000, 300 } }, 3,
		  { { 20000, DP_GRH }, { 30001, 201 }, { 40003, 300 } }, 3 },
		{ "GRH area spanning 2 SGEs, payload spanning 3",
		  { { 4090, 200 } }, 1,
		  { { 20000, 24 }, { 30001, 20 }, { 40003, 150 }, { 50000, 100 } }, 4 },
	};
	int i;

	if (!make_pair(&p, IBV_QPT_UD, 0))
		return;
	for (i = 0; i < N(ud_shapes); i++) {
		xfer(&p, ud_shapes[i].name, IBV_WR_SEND, ud_shapes[i].src,
		     ud_shapes[i].nsrc, ud_shapes[i].dst, ud_shapes[i].ndst, 0);
		xfer(&p, ud_shapes[i].name, IBV_WR_SEND_WITH_IMM, ud_shapes[i].src,
		     ud_shapes[i].nsrc, ud_shapes[i].dst, ud_shapes[i].ndst,
		     i == 2 ? XF_SOLICITED : 0);
	}
	if (ok(p.a.cap.max_inline_data >= 64, "UD: max_inline_data reported %u, >= 64",
	       p.a.cap.max_inline_data)) {
		struct dp_seg s[2] = { { 3, 20 }, { 40, 44 } }, d = { 333, 200 };

		xfer(&p, "2 SGEs", IBV_WR_SEND, s, 2, &d, 1, XF_INLINE);
		xfer(&p, "2 SGEs", IBV_WR_SEND_WITH_IMM, s, 2, &d, 1, XF_INLINE);
	}
	dp_pair_destroy(&p);
}

/*
 * UD through an IPv6 GID of the port (not IPv4-mapped): the GRH area
 * holds a real IPv6 header then.  The port's link-local GID is one.
 */
static void test_ud_ipv6(void)
{
	struct dp_dev saved = dp;
	union ibv_gid g;
	struct dp_pair p;
	int i, found = -1;

	for (i = 0; i < dp.port.gid_tbl_len && found < 0; i++) {
		struct ibv_gid_entry ent;

		if (!ibv_query_gid(dp.ctx, 1, i, &g) && g.raw[0] == 0xfe &&
		    g.raw[1] == 0x80 && !ibv_query_gid_ex(dp.ctx, 1, i, &ent, 0) &&
		    ent.gid_type == IBV_GID_TYPE_ROCE_V2)
			found = i;
	}
	if (!ok(found >= 0, "port 1 has a link-local RoCE v2 GID (index %d)", found))
		return;
	dp.gid = g;
	dp.gid_index = found;
	dp.gid_ipv4 = 0;
	if (make_pair(&p, IBV_QPT_UD, 0)) {
		struct dp_seg s = { 7, 300 }, d = { 4000, 400 };
		struct dp_seg s3[3] = { { 1, 10 }, { 500, 20 }, { 900, 30 } };
		struct dp_seg d2[2] = { { 8000, DP_GRH }, { 9001, 100 } };

		xfer(&p, "IPv6 GID, 300 bytes", IBV_WR_SEND, &s, 1, &d, 1, 0);
		xfer(&p, "IPv6 GID, 3 SGEs to GRH + payload SGEs", IBV_WR_SEND_WITH_IMM,
		     s3, 3, d2, 2, 0);
		dp_pair_destroy(&p);
	}
	dp = saved;
}

/*
 * Datagrams posted just before their QP is destroyed are sent: the
 * device sees the doorbell before DESTROY_QP (mckey, for one, posts its
 * sends and destroys the QP at once).  16 unsignalled sends, then
 * ibv_destroy_qp with no pause; the receiver gets all 16, in order and
 * intact.
 */
static void test_ud_destroy_posted(void)
{
	enum { NSEND = 16, LEN = 200, SLOT = 1024 };
	uint32_t src_qpn;
	struct ibv_wc wc[NSEND];
	struct dp_pair p;
	int i, got, ret, good = 1;

	if (!make_pair(&p, IBV_QPT_UD, 0))
		return;
	for (i = 0; i < NSEND; i++) {
		struct ibv_sge r = { (uintptr_t)bbuf.p + SLOT * i, LEN + DP_GRH,
				     bbuf.mr->lkey };

		memset(bbuf.p + SLOT * i, 0, LEN + DP_GRH);
		if (dp_post_recv(p.b.qp, 0x600 + i, &r, 1))
			good = 0;
	}
	for (i = 0; i < NSEND && good; i++) {
		struct ibv_sge s = { (uintptr_t)abuf.p + SLOT * i, LEN,
				     abuf.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 0x500 + i, .sg_list = &s,
					  .num_sge = 1, .opcode = IBV_WR_SEND };

		dp_fill(abuf.p + SLOT * i, LEN, 0xd00 + i);
		dp_ud_dest(&wr, &p.a, &p.b);
		if (dp_post_send(p.a.qp, &wr))
			good = 0;
	}
	ok(good, "UD: %d receives and %d unsignalled sends posted", NSEND, NSEND);
	src_qpn = p.a.qp->qp_num;
	ret = ibv_destroy_qp(p.a.qp);
	p.a.qp = NULL;
	ok(!ret, "UD: the sending QP destroyed right after posting (%s)",
	   ret ? strerror(ret) : "ok");
	got = good ? dp_poll(p.b.rcq, wc, NSEND, "UD sends before destroy") : 0;
	for (i = 0; i < got; i++) {
		struct dp_wc_want w = { 0x600 + i, IBV_WC_SUCCESS, IBV_WC_RECV,
					LEN + DP_GRH, p.b.qp->qp_num, src_qpn,
					IBV_WC_GRH, -1 };

		dp_fill(want, LEN, 0xd00 + i);
		if (!dp_wc_check(&wc[i], &w, "UD send before destroy") ||
		    !dp_cmp(bbuf.p + SLOT * i + DP_GRH, want, LEN,
			    "UD send before destroy"))
			good = 0;
	}
	ok(good && got == NSEND,
	   "UD: all %d datagrams posted before DESTROY_QP arrived, in order and intact (%d)",
	   NSEND, got);
	dp_pair_destroy(&p);
}

/* ---- SRQ ---------------------------------------------------------------- */

/* Send @len bytes from @p->a; the SRQ WQE @slot must take it, on p->b. */
static int srq_one(struct dp_pair *p, int slot, size_t len, const char *what)
{
	int ud = p->cfg.type == IBV_QPT_UD;
	uint32_t seed = ++seq * 31U;
	struct ibv_sge sge = { (uintptr_t)abuf.p + 4096 * slot + 1, len, abuf.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 0x5000 + slot, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND_WITH_IMM,
				  .send_flags = IBV_SEND_SIGNALED,
				  .imm_data = htonl(0xc0de0000U + slot) };
	struct dp_wc_want w = { 0x7000 + slot, IBV_WC_SUCCESS, IBV_WC_RECV,
				(long)len + (ud ? DP_GRH : 0), p->b.qp->qp_num,
				ud ? (long)p->a.qp->qp_num : -1,
				IBV_WC_WITH_IMM | (ud ? IBV_WC_GRH : 0), 0xc0de0000L + slot };
	uint8_t *dst = bbuf.p + 65536 * slot + (ud ? DP_GRH : 0);
	struct ibv_wc wc;
	int good = 1;

	dp_fill(abuf.p + 4096 * slot + 1, len, seed);
	if (ud)
		dp_ud_dest(&wr, &p->a, &p->b);
	if (dp_post_send(p->a.qp, &wr) || !dp_poll1(p->a.scq, &wc, what) ||
	    wc.status != IBV_WC_SUCCESS) {
		dp_wc_diag(what, &wc);
		good = 0;
	}
	if (!dp_poll1(p->b.rcq, &wc, what) || !dp_wc_check(&wc, &w, what))
		good = 0;
	dp_fill(lin, len, seed);
	if (!dp_cmp(dst, lin, len, what) ||
	    (ud && !dp_check_grh(bbuf.p + 65536 * slot, what)) || dst[len] != DP_POISON)
		good = 0;
	return ok(good, "%s", what);
}

static void test_srq(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 2 } };
	struct ibv_srq *srq = ibv_create_srq(dp.pd, &sa);
	struct dp_pair p1, p2, u;
	struct dp_qp_cfg c;
	struct ibv_sge sge[2];
	int i;

	if (!ok(srq != NULL, "create an SRQ (max_wr 16, max_sge 2)")) {
		diag("ibv_create_srq: %s", strerror(errno));
		return;
	}
	memset(abuf.p, DP_POISON, BUFSZ);
	memset(bbuf.p, DP_POISON, BUFSZ);
	/* Slot i: 65536 bytes at bbuf + 65536 * i, as two SGEs. */
	for (i = 0; i < 8; i++) {
		sge[0] = (struct ibv_sge){ (uintptr_t)bbuf.p + 65536 * i, 1000, bbuf.mr->lkey };
		sge[1] = (struct ibv_sge){ (uintptr_t)bbuf.p + 65536 * i + 1000, 60000,
					   bbuf.mr->lkey };
		if (dp_post_srq_recv(srq, 0x7000 + i, sge, 2))
			break;
	}
	ok(i == 8, "post 8 receives to the SRQ");

	dp_cfg_default(&c, IBV_QPT_RC);
	if (ok(!dp_pair_make2(&p1, &c, srq) && !dp_pair_make2(&p2, &c, srq),
	       "two RC pairs whose responders receive from the SRQ")) {
		srq_one(&p1, 0, 3000, "RC on SRQ: QP 1 takes SRQ WQE 0 (scattered over 2 SGEs)");
		srq_one(&p2, 1, 1, "RC on SRQ: QP 2 takes SRQ WQE 1");
		srq_one(&p1, 2, 50000, "RC on SRQ: QP 1 takes SRQ WQE 2");
		srq_one(&p2, 3, 0, "RC on SRQ: QP 2 takes SRQ WQE 3 (zero-length)");
		dp_pair_destroy(&p1);
		dp_pair_destroy(&p2);
	}
	dp_cfg_default(&c, IBV_QPT_UD);
	if (ok(!dp_pair_make2(&u, &c, srq), "a UD pair whose receiver uses the SRQ")) {
		srq_one(&u, 4, 100, "UD on SRQ: takes SRQ WQE 4, GRH area first");
		srq_one(&u, 5, dp_mtu_bytes(), "UD on SRQ: takes SRQ WQE 5, a full MTU");
		dp_pair_destroy(&u);
	}
	dp_ev_forget();	/* LAST_WQE_REACHED of the destroyed QPs, if any */
	ok(!ibv_destroy_srq(srq), "destroy the SRQ with 2 receives still posted");
}

/* ---- signalled and unsignalled ----------------------------------------- */

static void post_chain(struct dp_pair *p, int n, const unsigned int *flags,
		       enum ibv_wr_opcode op, uint64_t base)
{
	struct ibv_send_wr wr[8];
	struct ibv_sge sge[8];
	int i;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)abuf.p + 64 * i, 16, abuf.mr->lkey };
		wr[i].wr_id = base + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = op;
		wr[i].send_flags = flags[i];
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		if (op == IBV_WR_RDMA_WRITE) {
			wr[i].wr.rdma.remote_addr = (uintptr_t)bbuf.p + 64 * i;
			wr[i].wr.rdma.rkey = bbuf.mr->rkey;
		}
		if (p->cfg.type == IBV_QPT_UD)
			dp_ud_dest(&wr[i], &p->a, &p->b);
	}
	dp_post_send(p->a.qp, wr);
}

static void test_signal(enum ibv_qp_type t)
{
	static const unsigned int uus[3] = { 0, 0, IBV_SEND_SIGNALED };
	static const unsigned int none[3] = { 0, 0, 0 };
	struct dp_pair p;
	struct ibv_wc wc[4];
	int i, n;
	struct ibv_sge rs = { (uintptr_t)bbuf.p + 8192, 4096, bbuf.mr->lkey };

	if (!make_pair(&p, t, 0))
		return;
	for (i = 0; i < 6; i++)
		dp_post_recv(p.b.qp, 0x100 + i, &rs, 1);
	post_chain(&p, 3, uus, IBV_WR_SEND, 0x900);
	n = dp_poll(p.b.rcq, wc, 3, "3 receives");
	ok(n == 3, "%s sq_sig_all=0: 3 SENDs (unsignalled, unsignalled, signalled) "
	   "all delivered", dp_type_str(t));
	n = dp_poll(p.a.scq, wc, 1, "the signalled completion");
	ok(n == 1 && wc[0].wr_id == 0x902 && wc[0].status == IBV_WC_SUCCESS &&
	   dp_cq_empty(p.a.scq, "unsignalled SENDs"),
	   "%s sq_sig_all=0: one send completion, of the signalled WR", dp_type_str(t));
	if (t != IBV_QPT_UD) {
		post_chain(&p, 3, none, IBV_WR_RDMA_WRITE, 0xa00);
		post_chain(&p, 3, uus, IBV_WR_RDMA_WRITE, 0xb00);
		n = dp_poll(p.a.scq, wc, 1, "the signalled WRITE");
		ok(n == 1 && wc[0].wr_id == 0xb02 && wc[0].status == IBV_WC_SUCCESS &&
		   wc[0].opcode == IBV_WC_RDMA_WRITE &&
		   dp_cq_empty(p.a.scq, "unsignalled WRITEs"),
		   "%s sq_sig_all=0: 5 unsignalled WRITEs give no completion, "
		   "the signalled one does", dp_type_str(t));
	}
	dp_pair_destroy(&p);

	if (!make_pair(&p, t, 1))
		return;
	for (i = 0; i < 3; i++)
		dp_post_recv(p.b.qp, 0x100 + i, &rs, 1);
	post_chain(&p, 3, none, IBV_WR_SEND, 0x900);
	n = dp_poll(p.a.scq, wc, 3, "sq_sig_all completions");
	ok(n == 3 && wc[0].wr_id == 0x900 && wc[1].wr_id == 0x901 &&
	   wc[2].wr_id == 0x902 && !wc[0].status && !wc[1].status && !wc[2].status,
	   "%s sq_sig_all=1: 3 SENDs without IBV_SEND_SIGNALED give 3 completions, in order",
	   dp_type_str(t));
	n = dp_poll(p.b.rcq, wc, 3, "3 receives");
	ok(n == 3 && wc[0].wr_id == 0x100 && wc[1].wr_id == 0x101 && wc[2].wr_id == 0x102,
	   "%s: receives complete in posting order", dp_type_str(t));
	dp_pair_destroy(&p);
}

/* ---- SEND_WITH_INV and LOCAL_INV --------------------------------------- */

/*
 * Userspace has no key that can be invalidated (no MW, no FRMR), so an
 * ordinary MR's key named by SEND_WITH_INV or LOCAL_INV must fail, never
 * succeed nor hang.  The statuses are those the Orca hardware interface
 * documents (Documentation/orca-hw-interface.rst, "Error handling"),
 * which are the IBTA's: SEND_WITH_INV of a key the responder cannot
 * invalidate is an invalid request (requester REM_INV_REQ_ERR, responder
 * to ERR without consuming a receive, async QP_REQ_ERR); LOCAL_INV of a
 * key that is not a fast-register region is LOC_PROT_ERR.
 */
static void test_inv(void)
{
	struct ibv_sge s = { (uintptr_t)abuf.p, 32, abuf.mr->lkey };
	struct ibv_sge r = { (uintptr_t)bbuf.p, 64, bbuf.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 0x1e, .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_SEND_WITH_INV,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct dp_pair p;
	struct ibv_wc wc;
	int ret, got;

	if (!make_pair(&p, IBV_QPT_RC, 0))
		return;
	memset(bbuf.p, DP_POISON, 64);
	dp_post_recv(p.b.qp, 0x2e, &r, 1);
	wr.invalidate_rkey = bbuf.mr->rkey;
	ret = ibv_post_send(p.a.qp, &wr, &bad);
	ok(!ret, "RC SEND_WITH_INV of an ordinary MR's rkey: posted (%s)",
	   ret ? strerror(ret) : "ok");
	got = !ret && dp_poll1(p.a.scq, &wc, "SEND_WITH_INV");
	if (got && wc.status != IBV_WC_REM_INV_REQ_ERR)
		dp_wc_diag("SEND_WITH_INV requester", &wc);
	ok(got && wc.wr_id == 0x1e && wc.status == IBV_WC_REM_INV_REQ_ERR,
	   "RC SEND_WITH_INV of a key the responder cannot invalidate: requester "
	   "REM_INV_REQ_ERR (%s)", got ? ibv_wc_status_str(wc.status) : "no completion");
	ok(dp_ev_wait(IBV_EVENT_QP_REQ_ERR, p.b.qp, "SEND_WITH_INV"),
	   "RC SEND_WITH_INV: responder gets async IBV_EVENT_QP_REQ_ERR");
	got = dp_poll1(p.b.rcq, &wc, "SEND_WITH_INV responder");
	if (got && wc.status != IBV_WC_WR_FLUSH_ERR)
		dp_wc_diag("SEND_WITH_INV responder", &wc);
	ok(got && wc.wr_id == 0x2e && wc.status == IBV_WC_WR_FLUSH_ERR &&
	   dp_qp_state(p.b.qp) == IBV_QPS_ERR && bbuf.p[0] == DP_POISON,
	   "RC SEND_WITH_INV: responder in ERR, its receive not consumed but flushed");
	dp_pair_destroy(&p);
	dp_ev_forget();

	if (!make_pair(&p, IBV_QPT_RC, 0))
		return;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x1f;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = abuf.mr->lkey;
	ret = ibv_post_send(p.a.qp, &wr, &bad);
	ok(!ret, "RC LOCAL_INV of an ordinary MR's key: posted (%s)",
	   ret ? strerror(ret) : "ok");
	got = !ret && dp_poll1(p.a.scq, &wc, "LOCAL_INV");
	if (got && wc.status != IBV_WC_LOC_PROT_ERR)
		dp_wc_diag("LOCAL_INV", &wc);
	ok(got && wc.wr_id == 0x1f && wc.status == IBV_WC_LOC_PROT_ERR &&
	   dp_qp_state(p.a.qp) == IBV_QPS_ERR,
	   "RC LOCAL_INV of a key that is not a fast-register region: LOC_PROT_ERR, QP in ERR (%s)",
	   got ? ibv_wc_status_str(wc.status) : "no completion");
	dp_pair_destroy(&p);
	dp_ev_forget();
}

int main(int argc, char **argv)
{
	dp_open(argc, argv);
	want = malloc(BUFSZ);
	lin = malloc(BUFSZ);
	if (!ok(want && lin && !dp_buf_alloc(&abuf, dp.pd, BUFSZ, DP_ACC_ALL) &&
		!dp_buf_alloc(&bbuf, dp.pd, BUFSZ, DP_ACC_ALL),
		"register two %u-byte buffers with all access rights", BUFSZ))
		return tap_end();

	test_connected(IBV_QPT_RC);
	test_connected(IBV_QPT_UC);
	test_atomics();
	test_rd_atomic_pipeline();
	test_ud();
	test_ud_ipv6();
	test_ud_destroy_posted();
	test_srq();
	test_signal(IBV_QPT_RC);
	test_signal(IBV_QPT_UC);
	test_signal(IBV_QPT_UD);
	test_inv();

	dp_buf_free(&abuf);
	dp_buf_free(&bbuf);
	free(want);
	free(lin);
	return dp_close();
}
