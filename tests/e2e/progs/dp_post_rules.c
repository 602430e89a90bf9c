// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rules of ibv_post_recv(3), ibv_post_srq_recv(3) and ibv_post_send(3):
 * a WR list is posted in order up to the first WR that fails and *bad_wr
 * points at it (those before it execute, it and those after it do not);
 * ENOMEM beyond the reported max_recv_wr / max_send_wr / SRQ max_wr;
 * EINVAL for too many SGEs, inline data too long, an opcode the QP type
 * does not have; a QP in RESET refuses both posts (IBA C10-97.2.1); a
 * QP on an SRQ refuses post_recv; num_sge 0 is a zero-length receive;
 * UD receive buffers begin with the 40-byte GRH area.
 * Prints TAP.  Usage: dp_post_rules DEVICE
 */
#include "dp_common.h"

#define BUFSZ 65536

static struct dp_buf abuf, bbuf;

static int make(struct dp_pair *p, enum ibv_qp_type t, int rnr_retry)
{
	struct dp_qp_cfg c;

	dp_cfg_default(&c, t);
	c.rnr_retry = rnr_retry;
	c.sq_sig_all = 1;
	c.cqe = 1024;
	return ok(!dp_pair_make(p, &c), "set up two connected %s QPs", dp_type_str(t));
}

static void done(struct dp_pair *p)
{
	dp_pair_destroy(p);
	dp_ev_forget();
}

/* The next completion of @cq is @wr_id, @status. */
static int wc_is(struct ibv_cq *cq, uint64_t wr_id, int status, const char *what)
{
	struct ibv_wc wc;

	if (!dp_poll1(cq, &wc, what))
		return 0;
	if (wc.wr_id == wr_id && (int)wc.status == status)
		return 1;
	dp_wc_diag(what, &wc);
	diag("%s: wanted wr_id 0x%llx status %s", what, (unsigned long long)wr_id,
	     ibv_wc_status_str(status));
	return 0;
}

static void send_wr(struct ibv_send_wr *wr, struct ibv_sge *sge, struct dp_pair *p,
		    uint64_t wr_id, uint32_t len)
{
	memset(wr, 0, sizeof(*wr));
	*sge = (struct ibv_sge){ (uintptr_t)abuf.p, len, abuf.mr->lkey };
	wr->wr_id = wr_id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = IBV_WR_SEND;
	wr->send_flags = IBV_SEND_SIGNALED;
	if (p->cfg.type == IBV_QPT_UD)
		dp_ud_dest(wr, &p->a, &p->b);
}

static int send1(struct dp_pair *p, uint64_t wr_id, uint32_t len)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;

	send_wr(&wr, &sge, p, wr_id, len);
	return dp_post_send(p->a.qp, &wr);
}

/* ---- bad_wr ------------------------------------------------------------- */

static void test_recv_bad_wr(void)
{
	struct ibv_recv_wr wr[3], *bad = NULL;
	struct ibv_sge sge[40];
	struct dp_pair p;
	uint32_t nsge;
	int ret, i;

	if (!make(&p, IBV_QPT_RC, 7))
		return;
	nsge = p.b.cap.max_recv_sge + 1;
	if (nsge > DP_ARRAY_SIZE(sge)) {
		ok(0, "max_recv_sge %u is too large for this test", p.b.cap.max_recv_sge);
		done(&p);
		return;
	}
	for (i = 0; i < (int)nsge; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)bbuf.p + 64 * i, 64, bbuf.mr->lkey };
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		wr[i].wr_id = 0x10 + i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	wr[2].sg_list = sge;
	wr[2].num_sge = nsge;
	ret = ibv_post_recv(p.b.qp, wr, &bad);
	ok(ret == EINVAL && bad == &wr[2],
	   "post_recv of 3 WRs, the 3rd with num_sge %u > max_recv_sge %u: EINVAL, "
	   "bad_wr is the 3rd (ret %d, bad_wr index %ld)", nsge, p.b.cap.max_recv_sge,
	   ret, bad ? (long)(bad - wr) : -1L);
	for (i = 0; i < 3; i++)
		send1(&p, 0x20 + i, 8);
	ok(wc_is(p.b.rcq, 0x10, IBV_WC_SUCCESS, "1st") &&
	   wc_is(p.b.rcq, 0x11, IBV_WC_SUCCESS, "2nd"),
	   "the 2 WRs before bad_wr were posted: 2 messages complete on them, in order");
	dp_post_recv(p.b.qp, 0x99, sge, 1);
	ok(wc_is(p.b.rcq, 0x99, IBV_WC_SUCCESS, "3rd"),
	   "bad_wr was not posted: the 3rd message takes the receive posted afterwards");
	ok(wc_is(p.a.scq, 0x20, IBV_WC_SUCCESS, "s1") && wc_is(p.a.scq, 0x21, IBV_WC_SUCCESS, "s2") &&
	   wc_is(p.a.scq, 0x22, IBV_WC_SUCCESS, "s3"), "the 3 SENDs completed");

	/* The first WR bad: nothing is posted. */
	wr[0].sg_list = sge;
	wr[0].num_sge = nsge;
	wr[1].num_sge = 1;
	wr[2].next = NULL;
	bad = NULL;
	ret = ibv_post_recv(p.b.qp, wr, &bad);
	ok(ret == EINVAL && bad == &wr[0],
	   "post_recv with the 1st WR invalid: EINVAL, bad_wr is the 1st (ret %d)", ret);
	dp_post_recv(p.b.qp, 0x98, sge, 1);
	send1(&p, 0x23, 8);
	ok(wc_is(p.b.rcq, 0x98, IBV_WC_SUCCESS, "after") && wc_is(p.a.scq, 0x23, IBV_WC_SUCCESS, "s"),
	   "none of that list was posted: the next message takes a receive posted afterwards");
	done(&p);
}

static void test_send_bad_wr(void)
{
	struct ibv_send_wr wr[3], *bad = NULL;
	struct ibv_sge sge[40], s[3];
	struct ibv_sge rs = { (uintptr_t)bbuf.p, 8192, bbuf.mr->lkey };
	struct dp_pair p;
	uint32_t nsge;
	int ret, i;

	if (!make(&p, IBV_QPT_RC, 7))
		return;
	nsge = p.a.cap.max_send_sge + 1;
	if (nsge > DP_ARRAY_SIZE(sge)) {
		ok(0, "max_send_sge %u is too large for this test", p.a.cap.max_send_sge);
		done(&p);
		return;
	}
	for (i = 0; i < (int)nsge; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)abuf.p + 64 * i, 64, abuf.mr->lkey };
	for (i = 0; i < 4; i++)
		dp_post_recv(p.b.qp, 0x40 + i, &rs, 1);
	for (i = 0; i < 3; i++) {
		send_wr(&wr[i], &s[i], &p, 0x10 + i, 8);
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	wr[2].sg_list = sge;
	wr[2].num_sge = nsge;
	ret = ibv_post_send(p.a.qp, wr, &bad);
	ok(ret == EINVAL && bad == &wr[2],
	   "post_send of 3 WRs, the 3rd with num_sge %u > max_send_sge %u: EINVAL, "
	   "bad_wr is the 3rd (ret %d, bad_wr index %ld)", nsge, p.a.cap.max_send_sge,
	   ret, bad ? (long)(bad - wr) : -1L);
	ok(wc_is(p.a.scq, 0x10, IBV_WC_SUCCESS, "1st") && wc_is(p.a.scq, 0x11, IBV_WC_SUCCESS, "2nd") &&
	   wc_is(p.b.rcq, 0x40, IBV_WC_SUCCESS, "r1") && wc_is(p.b.rcq, 0x41, IBV_WC_SUCCESS, "r2"),
	   "the 2 WRs before bad_wr executed and completed");
	send1(&p, 0x13, 8);
	ok(wc_is(p.a.scq, 0x13, IBV_WC_SUCCESS, "next") && wc_is(p.b.rcq, 0x42, IBV_WC_SUCCESS, "r3"),
	   "bad_wr did not execute: the next SEND is the 3rd to arrive");

	/* Inline data longer than max_inline_data. */
	if (p.a.cap.max_inline_data + 1 <= BUFSZ) {
		for (i = 0; i < 2; i++) {
			send_wr(&wr[i], &s[i], &p, 0x20 + i, 8);
			wr[i].next = i < 1 ? &wr[i + 1] : NULL;
		}
		s[1].length = p.a.cap.max_inline_data + 1;
		wr[1].send_flags |= IBV_SEND_INLINE;
		bad = NULL;
		ret = ibv_post_send(p.a.qp, wr, &bad);
		ok(ret == EINVAL && bad == &wr[1],
		   "post_send with the 2nd WR inline of %u bytes > max_inline_data %u: "
		   "EINVAL, bad_wr is the 2nd (ret %d)", s[1].length,
		   p.a.cap.max_inline_data, ret);
		ok(wc_is(p.a.scq, 0x20, IBV_WC_SUCCESS, "1st") &&
		   wc_is(p.b.rcq, 0x43, IBV_WC_SUCCESS, "r") && dp_cq_empty(p.a.scq, "after"),
		   "the 1st WR executed, the 2nd did not");
	}
	done(&p);

	/* An opcode the QP type does not have. */
	{
		static const struct {
			enum ibv_qp_type t;
			enum ibv_wr_opcode op;
			const char *name;
		} bad_ops[] = {
			{ IBV_QPT_UC, IBV_WR_RDMA_READ, "RDMA_READ on UC" },
			{ IBV_QPT_UC, IBV_WR_ATOMIC_FETCH_AND_ADD, "ATOMIC_FETCH_AND_ADD on UC" },
			{ IBV_QPT_UC, IBV_WR_SEND_WITH_INV, "SEND_WITH_INV on UC (RC only)" },
			{ IBV_QPT_UD, IBV_WR_RDMA_WRITE, "RDMA_WRITE on UD" },
			{ IBV_QPT_UD, IBV_WR_RDMA_READ, "RDMA_READ on UD" },
			{ IBV_QPT_UD, IBV_WR_ATOMIC_CMP_AND_SWP, "ATOMIC_CMP_AND_SWP on UD" },
		};
		unsigned int k;

		for (k = 0; k < DP_ARRAY_SIZE(bad_ops); k++) {
			if (!make(&p, bad_ops[k].t, 7))
				continue;
			dp_post_recv(p.b.qp, 0x40, &rs, 1);
			for (i = 0; i < 2; i++) {
				send_wr(&wr[i], &s[i], &p, 0x30 + i, 8);
				wr[i].next = i < 1 ? &wr[i + 1] : NULL;
			}
			wr[1].opcode = bad_ops[k].op;
			wr[1].wr.rdma.remote_addr = (uintptr_t)bbuf.p;
			wr[1].wr.rdma.rkey = bbuf.mr->rkey;
			bad = NULL;
			ret = ibv_post_send(p.a.qp, wr, &bad);
			ok(ret == EINVAL && bad == &wr[1] &&
			   wc_is(p.a.scq, 0x30, IBV_WC_SUCCESS, "1st") &&
			   wc_is(p.b.rcq, 0x40, IBV_WC_SUCCESS, "r") &&
			   dp_cq_empty(p.a.scq, "after"),
			   "post_send of SEND + %s: EINVAL, bad_wr is the 2nd, the SEND executed (ret %d)",
			   bad_ops[k].name, ret);
			done(&p);
		}
	}
}

/* ---- ENOMEM ---------------------------------------------------------------- */

static void test_enomem_recv(void)
{
	struct ibv_sge s = { (uintptr_t)bbuf.p, 64, bbuf.mr->lkey };
	struct ibv_recv_wr wr[2], *bad;
	struct dp_qp_cfg c;
	struct dp_end e;
	uint32_t i, max, posted = 0, flushed = 0;
	int ret = 0;
	struct ibv_wc wc;

	dp_cfg_default(&c, IBV_QPT_RC);
	c.max_recv_wr = 32;
	c.cqe = 4096;
	if (!ok(!dp_end_create(&e, &c, dp.pd) && !dp_to_init(e.qp, &c),
		"an RC QP in INIT (receives queue, nothing consumes them)"))
		goto out;
	max = e.cap.max_recv_wr;
	ok(max >= 32 && max <= 2048, "max_recv_wr reported %u (32 requested)", max);
	if (max > 2048)
		goto out;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i + 1 < max; i++) {
		wr[0].wr_id = i;
		wr[0].sg_list = &s;
		wr[0].num_sge = 1;
		ret = ibv_post_recv(e.qp, wr, &bad);
		if (ret)
			break;
		posted++;
	}
	ok(posted == max - 1, "%u receives posted one by one (%s)", posted,
	   ret ? strerror(ret) : "no error");
	wr[0] = (struct ibv_recv_wr){ .wr_id = max - 1, .sg_list = &s, .num_sge = 1,
				      .next = &wr[1] };
	wr[1] = (struct ibv_recv_wr){ .wr_id = max, .sg_list = &s, .num_sge = 1 };
	bad = NULL;
	ret = ibv_post_recv(e.qp, wr, &bad);
	ok(ret == ENOMEM && bad == &wr[1],
	   "a list of 2 with one slot left: ENOMEM, bad_wr is the 2nd (ret %d, bad_wr index %ld)",
	   ret, bad ? (long)(bad - wr) : -1L);
	if (bad == &wr[1])
		posted++;
	bad = NULL;
	ret = ibv_post_recv(e.qp, &wr[1], &bad);
	ok(ret == ENOMEM && bad == &wr[1], "one more beyond max_recv_wr: ENOMEM (ret %d)", ret);
	dp_set_state(e.qp, IBV_QPS_ERR);
	while (flushed < max + 1 && dp_poll(e.rcq, &wc, 1, "flush") == 1) {
		if (wc.status != IBV_WC_WR_FLUSH_ERR || wc.wr_id != flushed)
			break;
		flushed++;
		if (flushed == max)
			break;
	}
	ok(flushed == max && dp_cq_empty(e.rcq, "flush"),
	   "modify to ERR flushes exactly max_recv_wr = %u receives, in order (%u)", max, flushed);
out:
	dp_end_destroy(&e);
}

static void test_enomem_send(void)
{
	struct dp_pair p;
	struct ibv_send_wr wr[2], *bad;
	struct ibv_sge s[2];
	uint32_t i, max, posted = 0, flushed = 0;
	struct ibv_wc wc;
	int ret = 0;

	/* Every SEND waits behind the first, which RNR holds (rnr_retry 7). */
	if (!make(&p, IBV_QPT_RC, 7))
		return;
	max = p.a.cap.max_send_wr;
	ok(max >= 64 && max <= 1000, "max_send_wr reported %u (64 requested)", max);
	if (max > 1000)
		goto out;
	for (i = 0; i + 1 < max; i++) {
		send_wr(&wr[0], &s[0], &p, i, 8);
		ret = ibv_post_send(p.a.qp, wr, &bad);
		if (ret)
			break;
		posted++;
	}
	ok(posted == max - 1, "RC, SENDs held up by RNR: %u posted one by one (%s)", posted,
	   ret ? strerror(ret) : "no error");
	send_wr(&wr[0], &s[0], &p, max - 1, 8);
	send_wr(&wr[1], &s[1], &p, max, 8);
	wr[0].next = &wr[1];
	bad = NULL;
	ret = ibv_post_send(p.a.qp, wr, &bad);
	ok(ret == ENOMEM && bad == &wr[1],
	   "a list of 2 with one slot left: ENOMEM, bad_wr is the 2nd (ret %d, bad_wr index %ld)",
	   ret, bad ? (long)(bad - wr) : -1L);
	bad = NULL;
	ret = ibv_post_send(p.a.qp, &wr[1], &bad);
	ok(ret == ENOMEM && bad == &wr[1], "one more beyond max_send_wr: ENOMEM (ret %d)", ret);
	dp_set_state(p.a.qp, IBV_QPS_ERR);
	while (dp_poll(p.a.scq, &wc, 1, "flush") == 1) {
		if (wc.status != IBV_WC_WR_FLUSH_ERR || wc.wr_id != flushed)
			break;
		if (++flushed == max)
			break;
	}
	ok(flushed == max && dp_cq_empty(p.a.scq, "flush"),
	   "modify to ERR flushes exactly max_send_wr = %u SENDs, in order (%u)", max, flushed);
out:
	done(&p);
}

/*
 * ibv_post_send(3): a WR is outstanding until its completion was polled.
 * Keep exactly max_send_wr WRITEs outstanding, every one signalled, and
 * post one more right after each completion polled: no post may fail.
 */
static void test_sq_full_refill(void)
{
	struct dp_pair p;
	struct ibv_send_wr wr, *bad;
	/* 16 KiB each: a device that takes time per WR shows a lagging cons. */
	struct ibv_sge s = { (uintptr_t)abuf.p, 16384, abuf.mr->lkey };
	struct ibv_wc wc;
	uint32_t max, i, posted = 0, ndone = 0, total = 4000;
	int ret = 0, bad_wc = 0;

	if (!make(&p, IBV_QPT_RC, 7))
		return;
	max = p.a.cap.max_send_wr;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)bbuf.p;
	wr.wr.rdma.rkey = bbuf.mr->rkey;
	for (i = 0; i < max && !ret; i++, posted++) {
		wr.wr_id = posted;
		ret = ibv_post_send(p.a.qp, &wr, &bad);
	}
	while (!ret && ndone < total) {
		if (dp_poll(p.a.scq, &wc, 1, "refill") != 1)
			break;
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != ndone)
			bad_wc++;
		ndone++;
		if (posted < total) {
			wr.wr_id = posted;
			ret = ibv_post_send(p.a.qp, &wr, &bad);
			if (!ret)
				posted++;
		}
	}
	if (ret)
		diag("post of WR %u failed with %s after %u completions "
		     "(%u outstanding by the verbs rules)", posted, strerror(ret), ndone,
		     posted - ndone);
	ok(!ret && ndone == total && !bad_wc,
	   "RC SQ kept at max_send_wr = %u outstanding, one 16 KiB WRITE posted per "
	   "completion polled: %u WRs, no post fails (%u completed, %d bad)", max, total, ndone, bad_wc);
	done(&p);
}

static void test_enomem_srq(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(dp.pd, &sa);
	struct ibv_sge s = { (uintptr_t)bbuf.p, 64, bbuf.mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &s, .num_sge = 1 }, *bad;
	uint32_t i, max, posted = 0;
	int ret = 0;

	if (!ok(srq != NULL, "create an SRQ of 16"))
		return;
	max = sa.attr.max_wr;
	ok(max >= 16 && max <= 4096, "SRQ max_wr reported %u (16 requested)", max);
	for (i = 0; i < max && i < 4096; i++) {
		wr.wr_id = i;
		ret = ibv_post_srq_recv(srq, &wr, &bad);
		if (ret)
			break;
		posted++;
	}
	ok(posted == max, "%u receives posted to the SRQ (%s)", posted,
	   ret ? strerror(ret) : "no error");
	bad = NULL;
	ret = ibv_post_srq_recv(srq, &wr, &bad);
	ok(ret == ENOMEM && bad == &wr, "one more beyond the SRQ's max_wr: ENOMEM (ret %d)", ret);
	ok(!ibv_destroy_srq(srq), "destroy the full SRQ");
}

/* ---- RESET, SRQ QPs, zero-length receives, the UD GRH area ------------------ */

static void test_reset(void)
{
	struct ibv_sge s = { (uintptr_t)bbuf.p, 64, bbuf.mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 0x10, .sg_list = &s, .num_sge = 1 }, *rbad = NULL;
	struct ibv_send_wr swr, *sbad = NULL;
	struct ibv_sge ss;
	struct dp_qp_cfg c;
	struct dp_pair p;
	int ret;

	dp_cfg_default(&c, IBV_QPT_RC);
	c.sq_sig_all = 1;
	memset(&p, 0, sizeof(p));
	p.cfg = c;
	if (!ok(!dp_end_create(&p.a, &c, dp.pd) && !dp_end_create(&p.b, &c, dp.pd),
		"two RC QPs in RESET"))
		goto out;
	ret = ibv_post_recv(p.b.qp, &rwr, &rbad);
	ok(ret != 0 && rbad == &rwr, "post_recv in RESET fails at once (%s), bad_wr set",
	   ret ? strerror(ret) : "success");
	ok(ret == EINVAL, "post_recv in RESET: EINVAL (got %d)", ret);
	send_wr(&swr, &ss, &p, 0x20, 8);
	ret = ibv_post_send(p.b.qp, &swr, &sbad);
	ok(ret != 0 && sbad == &swr, "post_send in RESET fails at once (%s), bad_wr set",
	   ret ? strerror(ret) : "success");
	ok(ret == EINVAL, "post_send in RESET: EINVAL (got %d)", ret);
	if (!ok(!dp_end_connect(&p.a, &c, p.b.qp->qp_num, IBV_QPS_RTS) &&
		!dp_end_connect(&p.b, &c, p.a.qp->qp_num, IBV_QPS_RTS),
		"then connect them to RTS"))
		goto out;
	dp_post_recv(p.b.qp, 0x11, &s, 1);
	dp_post_recv(p.a.qp, 0x12, &s, 1);
	send1(&p, 0x21, 8);
	ok(wc_is(p.b.rcq, 0x11, IBV_WC_SUCCESS, "recv") && wc_is(p.a.scq, 0x21, IBV_WC_SUCCESS, "send"),
	   "nothing posted in RESET remained: a message takes the receive posted in RTS");
	swr.wr_id = 0x22;
	ret = dp_post_send(p.b.qp, &swr);
	ok(!ret && wc_is(p.b.scq, 0x22, IBV_WC_SUCCESS, "send") && dp_cq_empty(p.b.scq, "send CQ"),
	   "the QP's send queue holds only what was posted in RTS");
	dp_cq_drain(p.a.rcq);
out:
	done(&p);
}

static void test_srq_qp_post_recv(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(dp.pd, &sa);
	struct ibv_sge s = { (uintptr_t)bbuf.p, 64, bbuf.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &s, .num_sge = 1 }, *bad = NULL;
	struct dp_qp_cfg c;
	struct dp_pair p;
	int ret;

	if (!ok(srq != NULL, "create an SRQ"))
		return;
	dp_cfg_default(&c, IBV_QPT_RC);
	if (ok(!dp_pair_make2(&p, &c, srq), "an RC pair whose responder uses the SRQ")) {
		ret = ibv_post_recv(p.b.qp, &wr, &bad);
		ok(ret == EINVAL && bad == &wr,
		   "post_recv to a QP that uses an SRQ: EINVAL, bad_wr set (ret %d)", ret);
		done(&p);
	}
	ibv_destroy_srq(srq);
}

static void test_zero_len_recv(void)
{
	enum ibv_qp_type types[2] = { IBV_QPT_RC, IBV_QPT_UC };
	struct ibv_recv_wr rwr = { .wr_id = 0x10, .num_sge = 0 }, *bad;
	struct dp_pair p;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < 2; i++) {
		if (!make(&p, types[i], 7))
			continue;
		rwr.wr_id = 0x10;
		ok(!ibv_post_recv(p.b.qp, &rwr, &bad), "%s: post a receive with num_sge 0",
		   dp_type_str(types[i]));
		send1(&p, 0x20, 0);
		ok(wc_is(p.a.scq, 0x20, IBV_WC_SUCCESS, "send") &&
		   dp_poll1(p.b.rcq, &wc, "recv") && wc.wr_id == 0x10 &&
		   wc.status == IBV_WC_SUCCESS && wc.byte_len == 0 && wc.opcode == IBV_WC_RECV,
		   "%s: a zero-length SEND completes it with byte_len 0", dp_type_str(types[i]));
		if (types[i] == IBV_QPT_RC) {
			rwr.wr_id = 0x11;
			ibv_post_recv(p.b.qp, &rwr, &bad);
			send1(&p, 0x21, 1);
			ok(wc_is(p.b.rcq, 0x11, IBV_WC_LOC_LEN_ERR, "recv"),
			   "RC: a 1-byte SEND into a num_sge 0 receive: LOC_LEN_ERR");
		}
		done(&p);
	}
}

static void test_ud_grh(void)
{
	struct ibv_sge s = { (uintptr_t)bbuf.p + 100, DP_GRH, bbuf.mr->lkey };
	struct dp_pair p;
	struct ibv_wc wc;
	int got;

	if (!make(&p, IBV_QPT_UD, 7))
		return;
	memset(bbuf.p, DP_POISON, 4096);
	dp_post_recv(p.b.qp, 0x10, &s, 1);
	send1(&p, 0x20, 0);
	got = wc_is(p.a.scq, 0x20, IBV_WC_SUCCESS, "send") && dp_poll1(p.b.rcq, &wc, "recv");
	if (got && (wc.wr_id != 0x10 || wc.status != IBV_WC_SUCCESS ||
		    wc.byte_len != DP_GRH || !(wc.wc_flags & IBV_WC_GRH)))
		dp_wc_diag("recv", &wc);
	ok(got && wc.wr_id == 0x10 && wc.status == IBV_WC_SUCCESS &&
	   wc.byte_len == DP_GRH && (wc.wc_flags & IBV_WC_GRH),
	   "UD: a zero-length SEND into a 40-byte receive: byte_len 40, IBV_WC_GRH");
	ok(dp_check_grh(bbuf.p + 100, "GRH area") &&
	   bbuf.p[99] == DP_POISON && bbuf.p[100 + DP_GRH] == DP_POISON,
	   "UD: the GRH area was filled, nothing around it written");
	done(&p);

	/* 39 bytes cannot hold the GRH area: the message is dropped. */
	if (!make(&p, IBV_QPT_UD, 7))
		return;
	s.length = DP_GRH - 1;
	dp_post_recv(p.b.qp, 0x11, &s, 1);
	send1(&p, 0x21, 0);
	ok(wc_is(p.a.scq, 0x21, IBV_WC_SUCCESS, "send"), "UD: a zero-length SEND to a 39-byte receive "
	   "completes at the sender");
	dp_set_state(p.b.qp, IBV_QPS_ERR);
	ok(wc_is(p.b.rcq, 0x11, IBV_WC_WR_FLUSH_ERR, "recv") && dp_cq_empty(p.b.rcq, "recv"),
	   "UD: the 39-byte receive did not take it (flushed when the QP goes to ERR)");
	done(&p);
}

int main(int argc, char **argv)
{
	dp_open(argc, argv);
	if (!ok(!dp_buf_alloc(&abuf, dp.pd, BUFSZ, DP_ACC_ALL) &&
		!dp_buf_alloc(&bbuf, dp.pd, BUFSZ, DP_ACC_ALL), "register two buffers"))
		return tap_end();
	test_recv_bad_wr();
	test_send_bad_wr();
	test_enomem_recv();
	test_enomem_send();
	test_sq_full_refill();
	test_enomem_srq();
	test_reset();
	test_srq_qp_post_recv();
	test_zero_len_recv();
	test_ud_grh();
	dp_buf_free(&abuf);
	dp_buf_free(&bbuf);
	return dp_close();
}
