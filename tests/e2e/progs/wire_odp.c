// SPDX-License-Identifier: GPL-2.0-only
/*
 * wire_odp DEV_A GID_A DEV_B GID_B: on-demand paging across the wire
 * (tests/e2e/300-wire-veth.t, Orca to Orca).
 *
 * Each end has one region registered with IBV_ACCESS_ON_DEMAND over a
 * fresh mapping of 256 KiB (A: local write; B: every remote right).  A
 * requests, B responds; neither region's pages are known to its device
 * before a request needs them, so B's device raises a page fault for a
 * request from the wire and answers it with an RNR NAK (A retries after
 * B's min_rnr_timer; the .t counts B's rnr_naks_sent), and A's device
 * waits for A's pages before it sends a payload or lands a response.
 * Two RC QP pairs, made up front, at a 1024-byte path MTU, rnr_retry 7:
 * pair 0 carries the traffic, pair 1 the refused request.
 *
 *   - a WRITE of 64 KiB (64 packets) from A's region into B's;
 *   - a READ of 64 KiB of what B's CPU wrote into an area of A's region
 *     the device never used (64 response packets);
 *   - a SEND of 20 KiB into a receive in B's region;
 *   - FETCH_ADD and CMP_SWP on words of B's region, the results into A's;
 *   - madvise(MADV_DONTNEED) of all of B's region, then a WRITE of new
 *     bytes: B's CPU reads them (B's device used B's new pages);
 *   - UD: numbered datagrams for a receive in B's region: the first is
 *     dropped (its page is missing; the .t counts B's ud_drops), A sends
 *     the next every 20 ms until one completes the receive;
 *   - munmap() of 4 pages of B's region, then on pair 1 a WRITE over
 *     them: REM_ACCESS_ERR (a NAK, not RNR NAKs for ever), nothing
 *     outside the request changed.
 *
 * After each request both regions are compared, all of each, with what
 * they must hold.  While B's hole exists nothing is mapped (no new
 * mapping can land in it).
 *
 * Plain libibverbs; the rest is Orca's (odp_caps).
 */
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>

#include "e2e_tap.h"
#include "wire_common.h"

#define WO_PAIRS	2
#define WO_PG		4096
#define WO_LEN		(64 * WO_PG)	/* each end's mapping and region */
#define WO_XFER		65536
#define WO_B_WRITE	0		/* B: the WRITE's target */
#define WO_B_READ	(20 * WO_PG)	/* B: the READ's source */
#define WO_B_RECV	(40 * WO_PG + 100)	/* B: the receive */
#define WO_SEND		20480
#define WO_B_ATOM	(47 * WO_PG + 8)	/* B: the atomics' words */
#define WO_HOLE		(56 * WO_PG)	/* B: munmap()ed, 4 pages */
#define WO_HOLE_N	(4 * WO_PG)
#define WO_REQ		(54 * WO_PG)	/* the refused WRITE: 8 pages */
#define WO_REQ_N	(8 * WO_PG)
#define WO_A_SRC	0		/* A: WRITE and SEND source */
#define WO_A_DST	(20 * WO_PG + 3)	/* A: the READ's sink */
#define WO_A_ATOM	(50 * WO_PG + 16)	/* A: atomic results */
#define WO_B_UD		(50 * WO_PG)	/* B: the UD receive (GRH, payload) */
#define WO_A_UD		(40 * WO_PG)	/* A: the UD payload */
#define WO_UD_LEN	512
#define WO_QKEY		0x0d0d0d0dU
#define WO_ADD		0x0000000100000020ULL
#define WO_SWAP		0x0f1e2d3c4b5a6978ULL
#define WO_B_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
			 IBV_ACCESS_ON_DEMAND)
#define WO_VA(p)	((uint64_t)(uintptr_t)(p))

static struct wire_end a, b;
static uint64_t wr_id;
static int hole;		/* B's pages [WO_HOLE, + WO_HOLE_N) are gone */

/* All of @e's region (but B's hole) holds what it must. */
static int wo_same(const struct wire_end *e, const char *what)
{
	size_t tail = WO_HOLE + WO_HOLE_N;

	if (e != &b || !hole)
		return wire_cmp(e->buf, e->exp, WO_LEN, e->name, what);
	return wire_cmp(e->buf, e->exp, WO_HOLE, e->name, what) &
	       wire_cmp(e->buf + tail, e->exp + tail, WO_LEN - tail, e->name,
			what);
}

/*
 * A's signalled @op on pair @q: @len bytes at A's buf + @aoff and B's
 * buf + @boff (atomics: 8 bytes, @cmp_add and @swap).  1 if it completes
 * with @status.
 */
static int wo_req(int q, enum ibv_wr_opcode op, size_t aoff, uint32_t len,
		  size_t boff, uint64_t cmp_add, uint64_t swap,
		  enum ibv_wc_status status, const char *what)
{
	struct ibv_sge sge = {
		.addr = WO_VA(a.buf + aoff),
		.length = len,
		.lkey = a.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = ++wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	enum ibv_wc_opcode wc_op;
	struct ibv_wc wc;

	switch (op) {
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		sge.length = 8;
		wr.wr.atomic.remote_addr = WO_VA(b.buf + boff);
		wr.wr.atomic.rkey = b.mr->rkey;
		wr.wr.atomic.compare_add = cmp_add;
		wr.wr.atomic.swap = swap;
		wc_op = op == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP :
			IBV_WC_FETCH_ADD;
		break;
	default:
		wr.wr.rdma.remote_addr = WO_VA(b.buf + boff);
		wr.wr.rdma.rkey = b.mr->rkey;
		wc_op = op == IBV_WR_RDMA_READ ? IBV_WC_RDMA_READ :
			IBV_WC_RDMA_WRITE;
		break;
	}
	return wire_post(a.qp[q], &wr, what) &&
	       wire_end_wc(&a, a.qp[q], wr.wr_id, status, wc_op, &wc, what);
}

static int wo_open(struct wire_end *e, unsigned int access)
{
	void *m;

	if (wire_end_open(e, 16) || wire_end_rc_qps(e, WO_PAIRS))
		return -1;
	e->exp = calloc(1, WO_LEN);
	m = mmap(NULL, WO_LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!e->exp || m == MAP_FAILED)
		return -1;
	e->buf = m;
	return wire_end_reg(e, WO_LEN, access);
}

/* Both devices have on-demand paging for RC WRITE, READ, SEND, atomics. */
static int wo_caps(void)
{
	const uint32_t need = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			      IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
			      IBV_ODP_SUPPORT_ATOMIC;
	struct wire_end *e[2] = { &a, &b };
	struct ibv_device_attr_ex ax;
	int i, good = 1;

	for (i = 0; i < 2; i++) {
		memset(&ax, 0, sizeof(ax));
		if (ibv_query_device_ex(e[i]->ctx, NULL, &ax) ||
		    !(ax.odp_caps.general_caps & IBV_ODP_SUPPORT) ||
		    (ax.odp_caps.per_transport_caps.rc_odp_caps & need) != need) {
			diag("%s: odp_caps general 0x%llx, rc 0x%x", e[i]->name,
			     (unsigned long long)ax.odp_caps.general_caps,
			     ax.odp_caps.per_transport_caps.rc_odp_caps);
			good = 0;
		}
	}
	return good;
}

/* 1. A's WRITE from its region into B's, neither used by a device. */
static int wo_write(void)
{
	wire_fill(a.buf, a.exp, WO_A_SRC, WO_XFER, 1);
	if (!wo_req(0, IBV_WR_RDMA_WRITE, WO_A_SRC, WO_XFER, WO_B_WRITE, 0, 0,
		    IBV_WC_SUCCESS, "WRITE"))
		return 0;
	memcpy(b.exp + WO_B_WRITE, a.exp + WO_A_SRC, WO_XFER);
	return wo_same(&b, "WRITE") & wo_same(&a, "WRITE");
}

/* 2. A's READ of what B's CPU wrote, into an area A's device never used. */
static int wo_read(void)
{
	wire_fill(b.buf, b.exp, WO_B_READ, WO_XFER, 2);
	if (!wo_req(0, IBV_WR_RDMA_READ, WO_A_DST, WO_XFER, WO_B_READ, 0, 0,
		    IBV_WC_SUCCESS, "READ"))
		return 0;
	memcpy(a.exp + WO_A_DST, b.exp + WO_B_READ, WO_XFER);
	return wo_same(&a, "READ") & wo_same(&b, "READ");
}

/* 3. A's SEND into a receive in B's region. */
static int wo_send(void)
{
	struct ibv_sge rs = {
		.addr = WO_VA(b.buf + WO_B_RECV),
		.length = WO_SEND,
		.lkey = b.mr->lkey,
	};
	struct ibv_recv_wr rwr = {
		.wr_id = ++wr_id,
		.sg_list = &rs,
		.num_sge = 1,
	}, *rbad = NULL;
	struct ibv_sge ss = {
		.addr = WO_VA(a.buf + WO_A_SRC + 5),
		.length = WO_SEND,
		.lkey = a.mr->lkey,
	};
	struct ibv_send_wr swr = {
		.wr_id = ++wr_id,
		.sg_list = &ss,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_wc wc;
	int good, ret;

	wire_fill(a.buf, a.exp, WO_A_SRC + 5, WO_SEND, 3);
	ret = ibv_post_recv(b.qp[0], &rwr, &rbad);
	if (ret) {
		diag("ibv_post_recv: %s", strerror(ret));
		return 0;
	}
	if (!wire_post(a.qp[0], &swr, "SEND"))
		return 0;
	good = wire_end_wc(&a, a.qp[0], swr.wr_id, IBV_WC_SUCCESS, IBV_WC_SEND, &wc,
		     "SEND");
	if (!wire_end_wc(&b, b.qp[0], rwr.wr_id, IBV_WC_SUCCESS, IBV_WC_RECV, &wc,
		   "SEND's receive"))
		return 0;
	if (wc.byte_len != WO_SEND) {
		diag("receive: byte_len %u, want %u", wc.byte_len, WO_SEND);
		good = 0;
	}
	memcpy(b.exp + WO_B_RECV, a.exp + WO_A_SRC + 5, WO_SEND);
	return good & wo_same(&b, "SEND") & wo_same(&a, "SEND");
}

/* 4. FETCH_ADD and CMP_SWP on words of B's region. */
static int wo_atomics(void)
{
	uint64_t v = WO_ADD, sw = WO_SWAP;
	int good;

	good = wo_req(0, IBV_WR_ATOMIC_FETCH_AND_ADD, WO_A_ATOM, 8, WO_B_ATOM,
		      WO_ADD, 0, IBV_WC_SUCCESS, "FETCH_ADD");
	memset(a.exp + WO_A_ATOM, 0, 8);	/* the old value: 0 */
	memcpy(b.exp + WO_B_ATOM, &v, 8);
	good &= wo_req(0, IBV_WR_ATOMIC_CMP_AND_SWP, WO_A_ATOM + 8, 8,
		       WO_B_ATOM, WO_ADD, WO_SWAP, IBV_WC_SUCCESS, "CMP_SWP");
	memcpy(a.exp + WO_A_ATOM + 8, &v, 8);
	memcpy(b.exp + WO_B_ATOM, &sw, 8);
	return good & wo_same(&a, "atomics") & wo_same(&b, "atomics");
}

/* 5. B drops its pages; A's WRITE lands in B's new ones. */
static int wo_dontneed(void)
{
	if (madvise(b.buf, WO_LEN, MADV_DONTNEED)) {
		diag("madvise(MADV_DONTNEED): %s", strerror(errno));
		return 0;
	}
	memset(b.exp, 0, WO_LEN);
	wire_fill(a.buf, a.exp, WO_A_SRC, WO_XFER, 5);
	if (!wo_req(0, IBV_WR_RDMA_WRITE, WO_A_SRC, WO_XFER, WO_B_WRITE, 0, 0,
		    IBV_WC_SUCCESS, "WRITE after DONTNEED"))
		return 0;
	memcpy(b.exp + WO_B_WRITE, a.exp + WO_A_SRC, WO_XFER);
	return wo_same(&b, "WRITE after DONTNEED") &
	       wo_same(&a, "WRITE after DONTNEED");
}

/* 6. B's hole; A's WRITE over it on pair 1. */
static int wo_hole(void)
{
	if (munmap(b.buf + WO_HOLE, WO_HOLE_N)) {
		diag("munmap: %s", strerror(errno));
		return 0;
	}
	hole = 1;
	wire_fill(b.buf, b.exp, WO_REQ, WO_HOLE - WO_REQ, 6);
	wire_fill(b.buf, b.exp, WO_HOLE + WO_HOLE_N, WO_REQ + WO_REQ_N - WO_HOLE - WO_HOLE_N,
		7);
	wire_fill(a.buf, a.exp, WO_A_SRC, WO_REQ_N, 8);
	if (!wo_req(1, IBV_WR_RDMA_WRITE, WO_A_SRC, WO_REQ_N, WO_REQ, 0, 0,
		    IBV_WC_REM_ACCESS_ERR, "WRITE over the hole"))
		return 0;
	/*
	 * The pages before the hole may hold what the WRITE carried up to
	 * the fault (a retried access writes the same bytes again): the
	 * check leaves out [WO_REQ, WO_HOLE).
	 */
	memcpy(b.exp + WO_REQ, b.buf + WO_REQ, WO_HOLE - WO_REQ);
	return wo_same(&b, "WRITE over the hole") &
	       wo_same(&a, "WRITE over the hole");
}

/* A UD QP of @e in RTS, or NULL. */
static struct ibv_qp *wo_ud_qp(struct wire_end *e)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_UD,
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr at = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = WO_QKEY,
	};
	struct ibv_qp *qp = ibv_create_qp(e->pd, &qa);

	if (!qp) {
		diag("%s: ibv_create_qp(UD): %s", e->name, strerror(errno));
		return NULL;
	}
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		goto fail;
	at.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE))
		goto fail;
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = 0;
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN))
		goto fail;
	return qp;
fail:
	diag("%s: a UD QP to RTS: %s", e->name, strerror(errno));
	ibv_destroy_qp(qp);
	return NULL;
}

/*
 * 7. UD: A's datagrams, numbered, for a receive in an area of B's
 * region its device never used.  The first finds the page missing and
 * is dropped (the .t counts B's ud_drops); A sends the next one every
 * 20 ms until the receive completes, with a later datagram.
 */
static int wo_ud(void)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.grh = { .dgid = b.gid, .sgid_index = a.gidx, .hop_limit = 64 },
		.port_num = 1,
	};
	struct ibv_sge rs = {
		.addr = WO_VA(b.buf + WO_B_UD),
		.length = WO_UD_LEN + 40,
		.lkey = b.mr->lkey,
	};
	struct ibv_recv_wr rwr = { .wr_id = ++wr_id, .sg_list = &rs,
				   .num_sge = 1 }, *rbad = NULL;
	struct ibv_sge ss = {
		.addr = WO_VA(a.buf + WO_A_UD),
		.length = WO_UD_LEN,
		.lkey = a.mr->lkey,
	};
	struct ibv_send_wr swr = {
		.sg_list = &ss,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_wc wc;
	long deadline = wire_now_ms() + WIRE_END_TIMEOUT_MS;
	uint32_t seq = 0, got = 0;
	int good = 0, n = 0;

	qa = wo_ud_qp(&a);
	qb = wo_ud_qp(&b);
	ah = ibv_create_ah(a.pd, &aa);
	if (!qa || !qb || !ah) {
		diag("UD QPs and an AH: %s", strerror(errno));
		goto out;
	}
	if (ibv_post_recv(qb, &rwr, &rbad)) {
		diag("ibv_post_recv(UD) failed");
		goto out;
	}
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = qb->qp_num;
	swr.wr.ud.remote_qkey = WO_QKEY;
	while (!n && wire_now_ms() < deadline) {
		seq++;
		wire_fill(a.buf, a.exp, WO_A_UD, WO_UD_LEN, 100 + seq);
		memcpy(a.buf + WO_A_UD, &seq, 4);
		memcpy(a.exp + WO_A_UD, &seq, 4);
		swr.wr_id = ++wr_id;
		if (!wire_post(qa, &swr, "UD SEND") ||
		    !wire_end_wc(&a, qa, swr.wr_id, IBV_WC_SUCCESS, IBV_WC_SEND, &wc,
			   "UD SEND"))
			goto out;
		for (n = 0; !n && wire_now_ms() < deadline; ) {
			long until = wire_now_ms() + 20;

			while (!(n = ibv_poll_cq(b.cq, 1, &wc)) &&
			       wire_now_ms() < until)
				;
			if (!n)
				break;
		}
	}
	if (n != 1 || wc.wr_id != rwr.wr_id || wc.status != IBV_WC_SUCCESS ||
	    wc.byte_len != WO_UD_LEN + 40) {
		diag("UD receive: %d completion(s) after %u datagram(s): wr_id %llu, %s, byte_len %u",
		     n, seq, n == 1 ? (unsigned long long)wc.wr_id : 0ULL,
		     n == 1 ? ibv_wc_status_str(wc.status) : "-",
		     n == 1 ? wc.byte_len : 0);
		goto out;
	}
	memcpy(&got, b.buf + WO_B_UD + 40, 4);
	diag("UD: %u datagram(s) sent, the receive holds datagram %u", seq,
	     got);
	/* The receive holds one of the datagrams, the pattern it carried. */
	memcpy(b.exp + WO_B_UD, b.buf + WO_B_UD, 40);
	memcpy(b.exp + WO_B_UD + 40, &got, 4);
	if (got >= 2 && got <= seq) {
		size_t i;

		for (i = 4; i < WO_UD_LEN; i++)
			b.exp[WO_B_UD + 40 + i] = wire_pat(100 + got, i);
		good = 1;
	}
	good &= wo_same(&b, "UD") & wo_same(&a, "UD");
out:
	if (qa && ibv_destroy_qp(qa))
		good = 0;
	if (qb && ibv_destroy_qp(qb))
		good = 0;
	if (ah && ibv_destroy_ah(ah))
		good = 0;
	return good;
}

static int wo_close(struct wire_end *e)
{
	int bad = wire_end_close_qps(e) + wire_end_close_objs(e) +
		  wire_end_close_dev(e);

	if (e->buf)
		munmap(e->buf, WO_LEN);
	free(e->exp);
	return bad;
}

int main(int argc, char **argv)
{
	int up, bad = 0;

	if (wire_ends_args(argc, argv, &a, &b))
		return 2;

	up = ok(!wo_open(&a, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND) &&
		!wo_open(&b, WO_B_ACCESS) && wo_caps(),
		"%s and %s report on-demand paging for RC SEND, RECV, WRITE, READ and ATOMIC; each has %d RC QPs and a region of %d KiB registered with ON_DEMAND over memory never touched (%s: LOCAL_WRITE; %s: every remote right)",
		a.name, b.name, WO_PAIRS, WO_LEN >> 10, a.name, b.name);
	if (up && wire_ends_connect(&a, &b, WO_PAIRS))
		up = 0;
	if (!ok(up, "%d QP pairs connected across the wire (RTS, path MTU 1024, rnr_retry 7)",
		WO_PAIRS))
		goto out;

	ok(wo_write(),
	   "A's WRITE of %d bytes (64 packets) from its region into B's: completion RDMA_WRITE; B's region holds them and zeroes elsewhere",
	   WO_XFER);
	ok(wo_read(),
	   "A's READ of %d bytes that B's CPU wrote into an area of A's region its device never used: completion RDMA_READ, the bytes arrive",
	   WO_XFER);
	ok(wo_send(),
	   "A's SEND of %d bytes into a receive in an area of B's region its device never used: completions SEND and RECV (byte_len %d), the bytes arrive",
	   WO_SEND, WO_SEND);
	ok(wo_atomics(),
	   "FETCH_ADD on a word of B's region never used returns 0 and adds, then CMP_SWP comparing with the sum swaps it; the results land in A's region");
	ok(wo_dontneed(),
	   "B: madvise(MADV_DONTNEED) of all its region, then A's WRITE of %d new bytes: B's CPU reads them, the rest of B's region zeroes",
	   WO_XFER);
	ok(wo_ud(),
	   "UD: A's datagrams of %d bytes, numbered, for a receive in an area of B's region its device never used: the first is dropped (its page is missing), a later one completes the receive (byte_len %d) and is the one in it",
	   WO_UD_LEN, WO_UD_LEN + 40);
	ok(wo_hole(),
	   "B: munmap() of %d pages of its region, then on pair 1 A's WRITE of %d bytes over them: REM_ACCESS_ERR, nothing written after the hole",
	   WO_HOLE_N / WO_PG, WO_REQ_N);
out:
	if (!wire_cq_empty(a.cq, a.name, "the end") ||
	    !wire_cq_empty(b.cq, b.name, "the end"))
		bad++;
	bad += wo_close(&a);
	bad += wo_close(&b);
	ok(!bad,
	   "no completion left over; every QP, MR, CQ and PD destroyed (%d calls failed)",
	   bad);
	(void)tap_start;
	return tap_end();
}
