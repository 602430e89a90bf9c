// SPDX-License-Identifier: GPL-2.0-only
/*
 * wire_xrc DEV_A GID_A DEV_B GID_B: XRC across the wire
 * (tests/e2e/300-wire-veth.t, Orca to Orca).
 *
 * B opens an XRC domain (no file: fd -1 with O_CREAT) with one XRC SRQ
 * (B's PD, its own CQ) and WX_CONNS XRC_RECV QPs; A has as many
 * XRC_SEND QPs, each connected to one of B's at a 1024-byte path MTU.
 * Every request names B's SRQ by remote_srqn, except where said.
 *
 *   - connection 0: a SEND of 20 KiB (20 packets) into the SRQ, a WRITE
 *     of 20 KiB into B's region, a READ of 20 KiB from it (20 response
 *     packets) and a FETCH_ADD on a word of it;
 *   - connection 1: a SEND whose remote_srqn names no SRQ:
 *     REM_INV_REQ_ERR, and the WRITE posted behind it flushed;
 *   - connection 2: a WRITE through the rkey of a region in another PD
 *     of B (the SRQ's PD is the one checked): REM_ACCESS_ERR, and the
 *     WRITE behind it flushed.
 *
 * After each request both ends' buffers are compared, all of each, with
 * what they must hold: the bytes around each target are untouched and a
 * refused request wrote nothing; B's SRQ holds a receive through both
 * refusals that must stay unused.
 *
 * Plain libibverbs; rxe has no XRC, so this runs Orca to Orca only.
 */
#include <fcntl.h>
#include <stdint.h>
#include <time.h>

#include "e2e_tap.h"
#include "wire_common.h"

#define WX_CONNS	3
#define WX_BUF		(128 << 10)	/* each end's buffer and region */
#define WX_LEN		20480		/* 20 packets at MTU 1024 */
#define WX_RECV_OFF	4096		/* B: the SRQ's first receive */
#define WX_RECV2_OFF	(WX_RECV_OFF + WX_LEN + 4096)	/* its second */
#define WX_RDMA_OFF	65536		/* B: WRITE target, READ source */
#define WX_ATOM_OFF	(WX_BUF - 64)	/* B: the FETCH_ADD word */
#define WX_A_SRC	0		/* A: SEND and WRITE source */
#define WX_A_DST	32768		/* A: READ destination */
#define WX_A_ATOM	(WX_BUF - 64)	/* A: FETCH_ADD result */
#define WX_OTHER_LEN	8192		/* B's region in its other PD */
#define WX_ADD		0x0000000100000020ULL	/* carries across 32 bits */
#define WX_OLD		0x11223344fffffff0ULL
#define WX_NO_SRQN	0xffffffU
#define WX_REMOTE	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_REMOTE_ATOMIC)
#define WX_VA(p)	((uint64_t)(uintptr_t)(p))

static struct wire_end a, b;
static struct ibv_xrcd *xrcd;		/* B's domain */
static struct ibv_srq *srq;		/* B's XRC SRQ, in b.pd */
static uint32_t srqn;
static struct ibv_pd *pd2;		/* B's other PD */
static struct ibv_mr *mr2;		/* a region of it */
static uint8_t *buf2, *exp2;
static uint64_t wr_id;

/* Both ends' buffers and B's other region hold what they must. */
static int wx_same(const char *what)
{
	return wire_cmp(a.buf, a.exp, WX_BUF, "A's buffer", what) &
	       wire_cmp(b.buf, b.exp, WX_BUF, "B's buffer", what) &
	       wire_cmp(buf2, exp2, WX_OTHER_LEN, "B's region in its other PD",
		      what);
}

/* Nothing (more) on @e's CQ. */
static int wx_cq_empty(struct wire_end *e, const char *what)
{
	return wire_cq_empty(e->cq, e->name, what);
}

/* A signalled WR of A: @op of @len bytes at A's buf + @aoff, naming @num. */
static void wx_wr(struct ibv_send_wr *wr, struct ibv_sge *sge,
		  enum ibv_wr_opcode op, size_t aoff, uint32_t len,
		  uint32_t num)
{
	sge->addr = WX_VA(a.buf + aoff);
	sge->length = len;
	sge->lkey = a.mr->lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = ++wr_id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = op;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->qp_type.xrc.remote_srqn = num;
}

/* A receive of @len bytes at B's buf + @off in the SRQ. */
static int wx_recv(uint64_t id, size_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = WX_VA(b.buf + off),
		.length = len,
		.lkey = b.mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = id,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad = NULL;
	int ret = ibv_post_srq_recv(srq, &wr, &bad);

	if (ret)
		diag("ibv_post_srq_recv: %s", strerror(ret));
	return !ret;
}

static int wx_open(struct wire_end *e, int is_b)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};
	int q;

	if (wire_end_open(e, 32))
		return -1;
	if (is_b) {
		struct ibv_srq_init_attr_ex sa = {
			.attr = { .max_wr = 4, .max_sge = 1 },
			.comp_mask = IBV_SRQ_INIT_ATTR_TYPE |
				     IBV_SRQ_INIT_ATTR_PD |
				     IBV_SRQ_INIT_ATTR_XRCD |
				     IBV_SRQ_INIT_ATTR_CQ,
			.srq_type = IBV_SRQT_XRC,
			.pd = e->pd,
			.cq = e->cq,
		};
		int ret;

		xrcd = ibv_open_xrcd(e->ctx, &xa);
		if (!xrcd) {
			diag("%s: ibv_open_xrcd(fd -1, O_CREAT): %s", e->name,
			     strerror(errno));
			return -1;
		}
		sa.xrcd = xrcd;
		srq = ibv_create_srq_ex(e->ctx, &sa);
		if (!srq) {
			diag("%s: ibv_create_srq_ex(XRC): %s", e->name,
			     strerror(errno));
			return -1;
		}
		ret = ibv_get_srq_num(srq, &srqn);
		if (ret || srqn >= 1U << 24 || srqn == WX_NO_SRQN) {
			diag("%s: ibv_get_srq_num: %s, 0x%x", e->name,
			     ret ? strerror(ret) : "0", srqn);
			return -1;
		}
		memset(&qa, 0, sizeof(qa));
		qa.qp_type = IBV_QPT_XRC_RECV;
		qa.comp_mask = IBV_QP_INIT_ATTR_XRCD;
		qa.xrcd = xrcd;
	} else {
		qa.pd = e->pd;
		qa.send_cq = e->cq;
	}
	for (q = 0; q < WX_CONNS; q++) {
		e->qp[q] = ibv_create_qp_ex(e->ctx, &qa);
		if (!e->qp[q]) {
			diag("%s: ibv_create_qp_ex(%s): %s", e->name,
			     is_b ? "XRC_RECV" : "XRC_SEND", strerror(errno));
			return -1;
		}
	}
	if (posix_memalign((void **)&e->buf, 4096, WX_BUF))
		return -1;
	e->exp = malloc(WX_BUF);
	if (!e->exp)
		return -1;
	wire_fill(e->buf, e->exp, 0, WX_BUF, is_b ? 2 : 1);
	e->mr = ibv_reg_mr(e->pd, e->buf, WX_BUF, IBV_ACCESS_LOCAL_WRITE |
			   (is_b ? WX_REMOTE : 0));
	if (!e->mr) {
		diag("%s: ibv_reg_mr: %s", e->name, strerror(errno));
		return -1;
	}
	if (!is_b)
		return 0;
	pd2 = ibv_alloc_pd(e->ctx);
	if (!pd2 || posix_memalign((void **)&buf2, 4096, WX_OTHER_LEN))
		return -1;
	exp2 = malloc(WX_OTHER_LEN);
	if (!exp2)
		return -1;
	wire_fill(buf2, exp2, 0, WX_OTHER_LEN, 3);
	mr2 = ibv_reg_mr(pd2, buf2, WX_OTHER_LEN,
			 IBV_ACCESS_LOCAL_WRITE | WX_REMOTE);
	if (!mr2)
		diag("%s: ibv_reg_mr in the other PD: %s", e->name,
		     strerror(errno));
	return mr2 ? 0 : -1;
}

/* Both devices say they have XRC. */
static int wx_caps(void)
{
	struct wire_end *e[2] = { &a, &b };
	struct ibv_device_attr da;
	int i, ret, good = 1;

	for (i = 0; i < 2; i++) {
		memset(&da, 0, sizeof(da));
		ret = ibv_query_device(e[i]->ctx, &da);
		if (ret || !(da.device_cap_flags & IBV_DEVICE_XRC)) {
			diag("%s: ibv_query_device %s, device_cap_flags 0x%x: no IBV_DEVICE_XRC",
			     e[i]->name, ret ? strerror(ret) : "0",
			     da.device_cap_flags);
			good = 0;
		}
	}
	return good;
}

/* An address vector from end @from to end @to. */
static void wx_av(struct ibv_ah_attr *ah, const struct wire_end *from,
		  const struct wire_end *to)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->grh.dgid = to->gid;
	ah->grh.sgid_index = from->gidx;
	ah->grh.hop_limit = 64;
	ah->port_num = 1;
}

/*
 * Connection @q: A's XRC_SEND QP to INIT, RTR and RTS, B's XRC_RECV QP
 * to INIT (remote write, read and atomic) and RTR; PSNs 0, one RDMA
 * read or atomic outstanding, 7 retries of both kinds.
 */
static int wx_connect(int q)
{
	struct ibv_qp *ini = a.qp[q], *tgt = b.qp[q];
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int init = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_ACCESS_FLAGS;
	int rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	int ret;

	ret = ibv_modify_qp(ini, &at, init);
	at.qp_access_flags = WX_REMOTE;
	if (!ret)
		ret = ibv_modify_qp(tgt, &at, init);
	if (ret) {
		diag("connection %d: to INIT: %s", q, strerror(ret));
		return -1;
	}

	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_1024;
	at.rq_psn = 0;
	at.dest_qp_num = tgt->qp_num;
	wx_av(&at.ah_attr, &a, &b);
	ret = ibv_modify_qp(ini, &at, rtr);
	at.dest_qp_num = ini->qp_num;
	at.max_dest_rd_atomic = 1;
	at.min_rnr_timer = 12;
	wx_av(&at.ah_attr, &b, &a);
	if (!ret)
		ret = ibv_modify_qp(tgt, &at, rtr | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	if (ret) {
		diag("connection %d: to RTR: %s", q, strerror(ret));
		return -1;
	}

	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	at.timeout = 14;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.sq_psn = 0;
	at.max_rd_atomic = 1;
	ret = ibv_modify_qp(ini, &at, IBV_QP_STATE | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		diag("connection %d: XRC_SEND to RTS: %s", q, strerror(ret));
	return ret ? -1 : 0;
}

/* 1. A SEND of WX_LEN bytes on connection 0 into the SRQ. */
static int wx_send(void)
{
	uint64_t rid = ++wr_id;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct ibv_wc wc;
	int good;

	wire_fill(a.buf, a.exp, WX_A_SRC, WX_LEN, 10);
	if (!wx_recv(rid, WX_RECV_OFF, WX_LEN))
		return 0;
	wx_wr(&wr, &sge, IBV_WR_SEND, WX_A_SRC, WX_LEN, srqn);
	if (!wire_post(a.qp[0], &wr, "SEND"))
		return 0;
	good = wire_end_wc(&a, a.qp[0], wr.wr_id, IBV_WC_SUCCESS, IBV_WC_SEND, &wc,
		     "SEND");
	if (!wire_end_wc(&b, b.qp[0], rid, IBV_WC_SUCCESS, IBV_WC_RECV, &wc,
		   "SEND's receive"))
		return 0;
	if (wc.byte_len != WX_LEN || (wc.wc_flags & (IBV_WC_WITH_IMM |
						     IBV_WC_WITH_INV))) {
		diag("receive: byte_len %u, wc_flags 0x%x (want %u, neither IMM nor INV)",
		     wc.byte_len, wc.wc_flags, WX_LEN);
		good = 0;
	}
	memcpy(b.exp + WX_RECV_OFF, a.buf + WX_A_SRC, WX_LEN);
	return good & wx_same("SEND");
}

/* 2. A WRITE of WX_LEN bytes on connection 0 into B's region. */
static int wx_write(void)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct ibv_wc wc;
	int good;

	wire_fill(a.buf, a.exp, WX_A_SRC, WX_LEN, 20);
	wx_wr(&wr, &sge, IBV_WR_RDMA_WRITE, WX_A_SRC, WX_LEN, srqn);
	wr.wr.rdma.remote_addr = WX_VA(b.buf + WX_RDMA_OFF);
	wr.wr.rdma.rkey = b.mr->rkey;
	if (!wire_post(a.qp[0], &wr, "WRITE"))
		return 0;
	good = wire_end_wc(&a, a.qp[0], wr.wr_id, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
		     &wc, "WRITE");
	memcpy(b.exp + WX_RDMA_OFF, a.buf + WX_A_SRC, WX_LEN);
	return good & wx_same("WRITE") & wx_cq_empty(&b, "WRITE");
}

/* 3. A READ of WX_LEN bytes of B's region, fresh bytes from B's CPU. */
static int wx_read(void)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct ibv_wc wc;
	int good;

	wire_fill(b.buf, b.exp, WX_RDMA_OFF, WX_LEN, 30);
	wire_fill(a.buf, a.exp, WX_A_DST, WX_LEN, 31);
	wx_wr(&wr, &sge, IBV_WR_RDMA_READ, WX_A_DST, WX_LEN, srqn);
	wr.wr.rdma.remote_addr = WX_VA(b.buf + WX_RDMA_OFF);
	wr.wr.rdma.rkey = b.mr->rkey;
	if (!wire_post(a.qp[0], &wr, "READ"))
		return 0;
	good = wire_end_wc(&a, a.qp[0], wr.wr_id, IBV_WC_SUCCESS, IBV_WC_RDMA_READ,
		     &wc, "READ");
	memcpy(a.exp + WX_A_DST, b.exp + WX_RDMA_OFF, WX_LEN);
	return good & wx_same("READ") & wx_cq_empty(&b, "READ");
}

/* 4. A FETCH_ADD on B's word: the old value at A, the sum at B. */
static int wx_fetch_add(void)
{
	uint64_t old = WX_OLD, now = WX_OLD + WX_ADD;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct ibv_wc wc;
	int good;

	memcpy(b.buf + WX_ATOM_OFF, &old, 8);
	memcpy(b.exp + WX_ATOM_OFF, &old, 8);
	wire_fill(a.buf, a.exp, WX_A_ATOM, 8, 40);
	wx_wr(&wr, &sge, IBV_WR_ATOMIC_FETCH_AND_ADD, WX_A_ATOM, 8, srqn);
	wr.wr.atomic.remote_addr = WX_VA(b.buf + WX_ATOM_OFF);
	wr.wr.atomic.rkey = b.mr->rkey;
	wr.wr.atomic.compare_add = WX_ADD;
	if (!wire_post(a.qp[0], &wr, "FETCH_ADD"))
		return 0;
	good = wire_end_wc(&a, a.qp[0], wr.wr_id, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD,
		     &wc, "FETCH_ADD");
	memcpy(a.exp + WX_A_ATOM, &old, 8);
	memcpy(b.exp + WX_ATOM_OFF, &now, 8);
	return good & wx_same("FETCH_ADD") & wx_cq_empty(&b, "FETCH_ADD");
}

/*
 * On connection @q, @wr (which B must refuse with @status) and behind it
 * a valid WRITE of 64 bytes into B's region: @status, then WR_FLUSH_ERR.
 * Nothing changes at either end and B's CQ stays empty.
 */
static int wx_refused(int q, struct ibv_send_wr *wr, enum ibv_wc_status status,
		      const char *what)
{
	struct ibv_send_wr wr2;
	struct ibv_sge sge2;
	struct ibv_wc wc;
	int good;

	wire_fill(a.buf, a.exp, WX_A_DST, 64, 50 + (uint32_t)q);
	wx_wr(&wr2, &sge2, IBV_WR_RDMA_WRITE, WX_A_DST, 64, srqn);
	wr2.wr.rdma.remote_addr = WX_VA(b.buf + WX_RDMA_OFF);
	wr2.wr.rdma.rkey = b.mr->rkey;
	wr->next = &wr2;
	if (!wire_post(a.qp[q], wr, what))
		return 0;
	good = wire_end_wc(&a, a.qp[q], wr->wr_id, status, 0, &wc, what) &&
	       wire_end_wc(&a, a.qp[q], wr2.wr_id, IBV_WC_WR_FLUSH_ERR, 0, &wc,
		     "the WRITE behind it");
	return good & wx_same(what) & wx_cq_empty(&b, what);
}

/* 5. Connection 1: a SEND naming no SRQ, B's SRQ holding a receive. */
static int wx_bad_srqn(void)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;

	wire_fill(a.buf, a.exp, WX_A_SRC, 4096, 60);
	if (!wx_recv(++wr_id, WX_RECV2_OFF, 4096))
		return 0;
	wx_wr(&wr, &sge, IBV_WR_SEND, WX_A_SRC, 4096, WX_NO_SRQN);
	return wx_refused(1, &wr, IBV_WC_REM_INV_REQ_ERR,
			  "SEND naming no SRQ");
}

/* 6. Connection 2: a WRITE through the rkey of B's other PD's region. */
static int wx_other_pd(void)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;

	wire_fill(a.buf, a.exp, WX_A_SRC, 4096, 70);
	wx_wr(&wr, &sge, IBV_WR_RDMA_WRITE, WX_A_SRC, 4096, srqn);
	wr.wr.rdma.remote_addr = WX_VA(buf2 + 1024);
	wr.wr.rdma.rkey = mr2->rkey;
	return wx_refused(2, &wr, IBV_WC_REM_ACCESS_ERR,
			  "WRITE through another PD's rkey");
}

/* Release what wx_open() made of @e; the number of calls that failed. */
static int wx_close(struct wire_end *e, int is_b)
{
	int bad = wire_end_close_qps(e);

	if (is_b && srq)
		bad += wire_ret(ibv_destroy_srq(srq), "ibv_destroy_srq", e->name);
	if (is_b && mr2)
		bad += wire_ret(ibv_dereg_mr(mr2), "ibv_dereg_mr", e->name);
	if (is_b && pd2)
		bad += wire_ret(ibv_dealloc_pd(pd2), "ibv_dealloc_pd", e->name);
	bad += wire_end_close_objs(e);
	if (is_b && xrcd)
		bad += wire_ret(ibv_close_xrcd(xrcd), "ibv_close_xrcd", e->name);
	bad += wire_end_close_dev(e);
	free(e->buf);
	free(e->exp);
	if (is_b) {
		free(buf2);
		free(exp2);
	}
	return bad;
}

int main(int argc, char **argv)
{
	int q, up, bad = 0;

	if (wire_ends_args(argc, argv, &a, &b))
		return 2;

	up = ok(!wx_open(&a, 0) && !wx_open(&b, 1) && wx_caps(),
		"%s and %s have IBV_DEVICE_XRC; %s: %d XRC_SEND QPs, a 128 KiB MR; %s: an XRC domain (fd -1, O_CREAT), an XRC SRQ with its CQ, %d XRC_RECV QPs, a 128 KiB MR with remote write, read and atomic, and an 8 KiB one in another PD",
		a.name, b.name, a.name, WX_CONNS, b.name, WX_CONNS);
	for (q = 0; up && q < WX_CONNS; q++)
		if (wx_connect(q))
			up = 0;
	if (!ok(up, "%d XRC connections across the wire (XRC_SEND in RTS, XRC_RECV in RTR, path MTU 1024); B's SRQ is 0x%x",
		WX_CONNS, srqn))
		goto out;

	ok(wx_send(),
	   "A's SEND of %d bytes naming B's SRQ: completion SEND; B's SRQ CQ: RECV, byte_len %d, qp_num B's XRC_RECV QP's; both buffers byte for byte as they must be",
	   WX_LEN, WX_LEN);
	ok(wx_write(),
	   "A's WRITE of %d bytes naming B's SRQ lands in B's region; nothing else changes, no completion at B",
	   WX_LEN);
	ok(wx_read(),
	   "A's READ of %d bytes naming B's SRQ returns B's bytes; nothing else changes",
	   WX_LEN);
	ok(wx_fetch_add(),
	   "A's FETCH_ADD naming B's SRQ returns the old value and adds at B");
	ok(wx_bad_srqn(),
	   "on the second connection, a SEND with remote_srqn 0x%x (no SRQ): REM_INV_REQ_ERR, the WRITE behind it WR_FLUSH_ERR; nothing written, the SRQ's receive unused, no completion at B",
	   WX_NO_SRQN);
	ok(wx_other_pd(),
	   "on the third connection, a WRITE naming B's SRQ through the rkey of a region in another PD of B: REM_ACCESS_ERR, the WRITE behind it WR_FLUSH_ERR; nothing written");

out:
	if (!wx_cq_empty(&a, "the end") || !wx_cq_empty(&b, "the end"))
		bad++;
	bad += wx_close(&a, 0);
	bad += wx_close(&b, 1);
	ok(!bad,
	   "no completion left over; every QP, SRQ, MR, CQ and PD destroyed, the XRC domain closed (%d calls failed)",
	   bad);
	(void)tap_start;
	return tap_end();
}
