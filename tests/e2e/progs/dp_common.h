/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the data-path test programs (progs/dp_*.c): device
 * and GID selection, QPs brought to RTS against another QP of the same
 * context, patterned buffers, completion polling that gives up after a
 * generous time instead of hanging, and async event waits.
 *
 * Everything here is plain libibverbs: the programs must pass on any
 * correct verbs provider (e.g. rxe), not only on Orca.
 */
#ifndef ORCA_DP_COMMON_H
#define ORCA_DP_COMMON_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "e2e_tap.h"

#define DP_UNUSED __attribute__((unused))
#define DP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define DP_QKEY		0x11111111U
#define DP_GRH		40	/* UD receive buffers begin with this */
#define DP_ACC_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define DP_QP_ACC_ALL	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_REMOTE_ATOMIC)

/* ---- the device ------------------------------------------------------- */

struct dp_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int gid_index;
	int gid_ipv4;		/* the GID is IPv4-mapped (::ffff:a.b.c.d) */
	enum ibv_mtu mtu;	/* path MTU used for connected QPs */
};

static struct dp_dev dp;

static int dp_gid_is_ipv4(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g->raw, pfx, sizeof(pfx));
}

/*
 * A GID of port 1 to address our own QPs with: RoCE v2 preferred,
 * IPv4-mapped preferred among those; else any non-zero GID.
 */
static int dp_find_gid(void)
{
	int i, best = -1, best_score = -1;

	for (i = 0; i < dp.port.gid_tbl_len; i++) {
		struct ibv_gid_entry ent;
		union ibv_gid g;
		int score = 0;

		if (ibv_query_gid(dp.ctx, 1, i, &g))
			continue;
		if (!memcmp(g.raw, (uint8_t[16]){ 0 }, 16))
			continue;
		if (!ibv_query_gid_ex(dp.ctx, 1, i, &ent, 0) &&
		    ent.gid_type == IBV_GID_TYPE_ROCE_V2)
			score += 2;
		if (dp_gid_is_ipv4(&g))
			score += 1;
		if (score > best_score) {
			best = i;
			best_score = score;
			dp.gid = g;
		}
	}
	dp.gid_index = best;
	dp.gid_ipv4 = best >= 0 && dp_gid_is_ipv4(&dp.gid);
	return best >= 0 ? 0 : -1;
}

/* Open argv[1], query it, pick a GID, allocate a PD; or stop. */
static void DP_UNUSED dp_open(int argc, char **argv)
{
	char buf[INET6_ADDRSTRLEN];

	dp.ctx = tap_start(argc, argv);
	if (ibv_query_device(dp.ctx, &dp.attr) ||
	    ibv_query_port(dp.ctx, 1, &dp.port)) {
		ok(0, "query device and port 1");
		exit(tap_end());
	}
	dp.pd = ibv_alloc_pd(dp.ctx);
	if (!ok(dp.pd != NULL, "allocate a PD"))
		exit(tap_end());
	if (!ok(!dp_find_gid(), "port 1 has a GID to address our own QPs (index %d)",
		dp.gid_index))
		exit(tap_end());
	dp.mtu = dp.port.active_mtu < IBV_MTU_1024 ? dp.port.active_mtu :
		 IBV_MTU_1024;
	diag("GID %s (%s), port state %d, active_mtu %d, max_qp_wr %d, max_sge %d, "
	     "max_cqe %d, max_srq_wr %d, max_qp_rd_atom %d, atomic_cap %d",
	     inet_ntop(AF_INET6, dp.gid.raw, buf, sizeof(buf)),
	     dp.gid_ipv4 ? "IPv4-mapped" : "IPv6", dp.port.state,
	     128 << dp.port.active_mtu, dp.attr.max_qp_wr, dp.attr.max_sge,
	     dp.attr.max_cqe, dp.attr.max_srq_wr, dp.attr.max_qp_rd_atom,
	     dp.attr.atomic_cap);
}

static int DP_UNUSED dp_close(void)
{
	ok(!ibv_dealloc_pd(dp.pd), "deallocate the PD");
	ok(!ibv_close_device(dp.ctx), "close the device");
	return tap_end();
}

static unsigned int DP_UNUSED dp_mtu_bytes(void)
{
	return 128U << dp.mtu;
}

/* ---- patterned buffers ------------------------------------------------ */

/*
 * Byte i of the stream of @seed: position-dependent with no short period,
 * so that a shifted, truncated, reordered or mixed-up payload shows.
 */
static inline uint8_t dp_pat(uint32_t seed, size_t i)
{
	uint32_t x = (uint32_t)i * 2654435761U + seed * 40503U + 0x9e37U;

	x ^= x >> 15;
	x *= 0x2c1b3c6dU;
	x ^= x >> 12;
	return (uint8_t)(x ^ (i >> 16));
}

#define DP_POISON 0xa5

struct dp_buf {
	uint8_t *p;
	size_t len;
	struct ibv_mr *mr;
};

static int DP_UNUSED dp_buf_alloc(struct dp_buf *b, struct ibv_pd *pd,
				  size_t len, int access)
{
	memset(b, 0, sizeof(*b));
	if (posix_memalign((void **)&b->p, 4096, len))
		return -1;
	memset(b->p, DP_POISON, len);
	b->len = len;
	b->mr = ibv_reg_mr(pd, b->p, len, access);
	if (!b->mr) {
		diag("ibv_reg_mr(%zu bytes, access 0x%x): %s", len, access,
		     strerror(errno));
		free(b->p);
		b->p = NULL;
		return -1;
	}
	return 0;
}

static void DP_UNUSED dp_buf_free(struct dp_buf *b)
{
	if (b->mr)
		ibv_dereg_mr(b->mr);
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* A piece of a buffer: an SGE's offset and length within it. */
struct dp_seg {
	size_t off;
	uint32_t len;
};

/* Write stream @seed bytes [from, from + total) across @segs in order. */
static void DP_UNUSED dp_fill_segs(uint8_t *base, const struct dp_seg *segs,
				   int n, uint32_t seed, size_t from, size_t total)
{
	size_t k = 0;
	int j;
	uint32_t i;

	for (j = 0; j < n && k < total; j++)
		for (i = 0; i < segs[j].len && k < total; i++, k++)
			base[segs[j].off + i] = dp_pat(seed, from + k);
}

static void DP_UNUSED dp_fill(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = dp_pat(seed, i);
}

static size_t DP_UNUSED dp_segs_total(const struct dp_seg *segs, int n)
{
	size_t t = 0;
	int j;

	for (j = 0; j < n; j++)
		t += segs[j].len;
	return t;
}

static void DP_UNUSED dp_sges(struct ibv_sge *sge, const struct dp_buf *b,
			      const struct dp_seg *segs, int n)
{
	int j;

	for (j = 0; j < n; j++) {
		sge[j].addr = (uintptr_t)(b->p + segs[j].off);
		sge[j].length = segs[j].len;
		sge[j].lkey = b->mr->lkey;
	}
}

/*
 * Compare @got with @want over [0, len): on a difference, say where the
 * first one is and how many bytes differ, and, when the buffer holds
 * messages of @unit bytes each (0: it does not), which message that is.
 */
static int DP_UNUSED dp_cmp_units(const uint8_t *got, const uint8_t *want,
				  size_t len, size_t unit, const char *what)
{
	size_t i, first = len, nbad = 0;

	if (!memcmp(got, want, len))
		return 1;
	for (i = 0; i < len; i++) {
		if (got[i] != want[i]) {
			if (first == len)
				first = i;
			nbad++;
		}
	}
	if (unit)
		diag("%s: %zu byte(s) differ, first at offset %zu (message %zu, byte %zu of its slots): got 0x%02x, want 0x%02x",
		     what, nbad, first, first / unit, first % unit,
		     got[first], want[first]);
	else
		diag("%s: %zu byte(s) differ, first at offset %zu: got 0x%02x, want 0x%02x",
		     what, nbad, first, got[first], want[first]);
	return 0;
}

static int DP_UNUSED dp_cmp(const uint8_t *got, const uint8_t *want,
			    size_t len, const char *what)
{
	return dp_cmp_units(got, want, len, 0, what);
}

/* ---- completions ------------------------------------------------------ */

/*
 * How long a completion that must come may take.  Generous: tests never
 * fail on timing; this only turns a hang into a failure.  After a first
 * timeout the wait is shortened so that a broken device fails the
 * remaining points instead of overrunning the suite's time limit.
 */
static int dp_timeouts;

/*
 * The first time a wait times out on orca_soft, ask it to log its engine
 * and QP state (its dump_state parameter) and copy that part of the
 * kernel log into the output: a stall is then diagnosable from the test's
 * output alone.  Nothing on other devices.
 */
static void DP_UNUSED dp_dump_engine(void)
{
	char cmd[256], line[512];
	FILE *f;
	int fd;

	fd = open("/sys/module/orca_soft/parameters/dump_state", O_WRONLY);
	if (fd < 0)
		return;
	snprintf(line, sizeof(line), "orca-e2e: state dump for pid %d\n",
		 (int)getpid());
	f = fopen("/dev/kmsg", "w");
	if (f) {
		fputs(line, f);
		fclose(f);
	}
	if (write(fd, "1", 1) != 1)
		diag("writing orca_soft's dump_state failed");
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "dmesg | sed -n '/orca-e2e: state dump for pid %d$/,$p' | "
		 "grep 'orca_soft[0-9]*: ' | head -n 80", (int)getpid());
	f = popen(cmd, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		diag("kernel: %s", line);
	}
	pclose(f);
}

/* A wait that must end did not: counted, and the first one dumped. */
static void DP_UNUSED dp_timed_out(void)
{
	if (!dp_timeouts++)
		dp_dump_engine();
}

static long DP_UNUSED dp_timeout_ms(void)
{
	const char *e = getenv("DP_TIMEOUT_MS");
	long t = e ? atol(e) : 20000;

	return dp_timeouts ? (t > 2000 ? 2000 : t) : t;
}

static long DP_UNUSED dp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static void DP_UNUSED dp_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Poll @cq until @n completions are in @wc or the timeout passes.
 * Returns how many were collected (a poll error counts as a timeout).
 */
static int DP_UNUSED dp_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n,
			     const char *what)
{
	long deadline = dp_now_ms() + dp_timeout_ms();
	int got = 0, r;
	unsigned int spins = 0;

	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0) {
			diag("%s: ibv_poll_cq returned %d", what, r);
			dp_timed_out();
			return got;
		}
		got += r;
		if (got >= n)
			break;
		if (r == 0 && (++spins & 0xff) == 0) {
			if (dp_now_ms() > deadline) {
				diag("%s: %d of %d completion(s) after %ld ms",
				     what, got, n, dp_timeout_ms());
				dp_timed_out();
				return got;
			}
			if (spins > 100000)
				usleep(100);
		}
	}
	return got;
}

/* One completion, or 0 with a diagnostic. */
static int DP_UNUSED dp_poll1(struct ibv_cq *cq, struct ibv_wc *wc,
			      const char *what)
{
	memset(wc, 0, sizeof(*wc));
	return dp_poll(cq, wc, 1, what) == 1;
}

/* The CQ holds no completion right now. */
static int DP_UNUSED dp_cq_empty(struct ibv_cq *cq, const char *what)
{
	struct ibv_wc wc;
	int r = ibv_poll_cq(cq, 1, &wc);

	if (r != 0)
		diag("%s: unexpected completion (poll %d): wr_id 0x%llx status %s opcode %d",
		     what, r, (unsigned long long)wc.wr_id,
		     r > 0 ? ibv_wc_status_str(wc.status) : "-", wc.opcode);
	return r == 0;
}

/* Empty the CQ; returns how many were thrown away. */
static int DP_UNUSED dp_cq_drain(struct ibv_cq *cq)
{
	struct ibv_wc wc[16];
	int r, n = 0;

	while ((r = ibv_poll_cq(cq, 16, wc)) > 0)
		n += r;
	return n;
}

static DP_UNUSED const char *dp_wc_opcode_str(int op)
{
	switch (op) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_COMP_SWAP: return "COMP_SWAP";
	case IBV_WC_FETCH_ADD: return "FETCH_ADD";
	case IBV_WC_BIND_MW: return "BIND_MW";
	case IBV_WC_LOCAL_INV: return "LOCAL_INV";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: return "?";
	}
}

static void DP_UNUSED dp_wc_diag(const char *what, const struct ibv_wc *wc)
{
	diag("%s: wr_id 0x%llx status %s (%d) opcode %s (%d) byte_len %u qp_num 0x%x "
	     "src_qp 0x%x wc_flags 0x%x imm_data 0x%08x vendor_err 0x%x", what,
	     (unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status),
	     wc->status, dp_wc_opcode_str(wc->opcode), wc->opcode, wc->byte_len,
	     wc->qp_num, wc->src_qp, wc->wc_flags, ntohl(wc->imm_data),
	     wc->vendor_err);
}

/*
 * Check one completion's fields; an expectation of -1 is not checked.
 * src_qp -1 also means "not a UD receive": IBV_WC_GRH is defined only
 * for UD QPs (ibv_poll_cq(3)), so it is not checked then (rxe sets it on
 * RC receives).  Diagnoses every mismatch.
 */
struct dp_wc_want {
	uint64_t wr_id;
	int status;
	int opcode;		/* -1: any */
	long byte_len;		/* -1: any */
	uint32_t qp_num;
	long src_qp;		/* -1: any */
	int wc_flags;		/* -1: any; else IMM | INV | GRH exactly */
	long imm;		/* host-order imm_data; -1: not checked */
};

static int DP_UNUSED dp_wc_check(const struct ibv_wc *wc,
				 const struct dp_wc_want *w, const char *what)
{
	int good = 1;
	int flags = wc->wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV |
				    (w->src_qp >= 0 ? IBV_WC_GRH : 0));

	if (wc->wr_id != w->wr_id || (int)wc->status != w->status ||
	    wc->qp_num != w->qp_num)
		good = 0;
	if (w->opcode >= 0 && (int)wc->opcode != w->opcode)
		good = 0;
	if (w->byte_len >= 0 && wc->byte_len != (uint32_t)w->byte_len)
		good = 0;
	if (w->src_qp >= 0 && wc->src_qp != (uint32_t)w->src_qp)
		good = 0;
	if (w->wc_flags >= 0 && flags != w->wc_flags)
		good = 0;
	if (w->imm >= 0 && wc->imm_data != htonl((uint32_t)w->imm))
		good = 0;
	if (!good) {
		dp_wc_diag(what, wc);
		diag("%s: wanted wr_id 0x%llx status %s opcode %s byte_len %ld qp_num 0x%x "
		     "src_qp %ld wc_flags %d imm 0x%lx", what,
		     (unsigned long long)w->wr_id, ibv_wc_status_str(w->status),
		     w->opcode >= 0 ? dp_wc_opcode_str(w->opcode) : "any",
		     w->byte_len, w->qp_num, w->src_qp, w->wc_flags,
		     (unsigned long)w->imm);
	}
	return good;
}

/* ---- QPs -------------------------------------------------------------- */

struct dp_qp_cfg {
	enum ibv_qp_type type;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	uint32_t max_inline;
	int sq_sig_all;
	int access;		/* qp_access_flags (RC, UC) */
	int rnr_retry;		/* RC */
	int min_rnr_timer;	/* RC */
	int retry_cnt;		/* RC */
	int cqe;		/* size of each of the QP's two CQs */
	struct ibv_srq *srq;
};

static void DP_UNUSED dp_cfg_default(struct dp_qp_cfg *c, enum ibv_qp_type type)
{
	memset(c, 0, sizeof(*c));
	c->type = type;
	c->max_send_wr = 64;
	c->max_recv_wr = 64;
	c->max_send_sge = 4;
	c->max_recv_sge = 4;
	c->max_inline = 64;
	c->access = DP_QP_ACC_ALL;
	c->rnr_retry = 7;
	c->min_rnr_timer = 1;
	c->retry_cnt = 7;
	c->cqe = 256;
}

/* One end: a QP with its own send and receive CQs (and an AH for UD). */
struct dp_end {
	struct ibv_qp *qp;
	struct ibv_cq *scq, *rcq;
	struct ibv_ah *ah;	/* UD: AH to the *other* end's port */
	struct ibv_qp_cap cap;	/* as reported by ibv_create_qp */
};

/* Two ends, a (requester side) and b (responder side), connected. */
struct dp_pair {
	struct dp_qp_cfg cfg;
	struct dp_end a, b;
};

static DP_UNUSED const char *dp_type_str(enum ibv_qp_type t)
{
	return t == IBV_QPT_RC ? "RC" : t == IBV_QPT_UC ? "UC" :
	       t == IBV_QPT_UD ? "UD" : "?";
}

static int dp_end_create(struct dp_end *e, const struct dp_qp_cfg *c,
			 struct ibv_pd *pd)
{
	struct ibv_qp_init_attr init = {
		.qp_type = c->type, .sq_sig_all = c->sq_sig_all, .srq = c->srq,
		.cap = { .max_send_wr = c->max_send_wr,
			 .max_recv_wr = c->srq ? 0 : c->max_recv_wr,
			 .max_send_sge = c->max_send_sge,
			 .max_recv_sge = c->srq ? 0 : c->max_recv_sge,
			 .max_inline_data = c->max_inline },
	};

	memset(e, 0, sizeof(*e));
	e->scq = ibv_create_cq(dp.ctx, c->cqe, NULL, NULL, 0);
	e->rcq = ibv_create_cq(dp.ctx, c->cqe, NULL, NULL, 0);
	if (!e->scq || !e->rcq) {
		diag("ibv_create_cq(%d): %s", c->cqe, strerror(errno));
		return -1;
	}
	init.send_cq = e->scq;
	init.recv_cq = e->rcq;
	e->qp = ibv_create_qp(pd, &init);
	if (!e->qp) {
		diag("ibv_create_qp(%s): %s", dp_type_str(c->type), strerror(errno));
		return -1;
	}
	e->cap = init.cap;
	return 0;
}

static void dp_fill_av(struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->grh.dgid = dp.gid;
	ah->grh.sgid_index = dp.gid_index;
	ah->grh.hop_limit = 64;
	ah->port_num = 1;
}

static int dp_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		     const char *what)
{
	int ret = ibv_modify_qp(qp, a, mask);

	if (ret)
		diag("ibv_modify_qp(%s): %s", what, strerror(ret));
	return ret;
}

/*
 * Connect XRC_SEND @ini to XRC_RECV @tgt of the device (both from RESET):
 * INIT, then RTR to each other with @psn; @ini on to RTS (rnr_retry 7),
 * @tgt stays in RTR.  Up to 16 READs and atomics outstanding.
 */
static int DP_UNUSED dp_xrc_connect(struct ibv_qp *ini, struct ibv_qp *tgt,
				    uint32_t psn)
{
	int rd = dp.attr.max_qp_rd_atom < 16 ? dp.attr.max_qp_rd_atom : 16;
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_ACCESS_FLAGS;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	if (dp_modify(ini, &a, mask, "XRC_SEND to INIT"))
		return -1;
	a.qp_access_flags = DP_QP_ACC_ALL;
	if (dp_modify(tgt, &a, mask, "XRC_RECV to INIT"))
		return -1;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	dp_fill_av(&a.ah_attr);
	a.path_mtu = dp.mtu;
	a.rq_psn = psn;
	a.dest_qp_num = tgt->qp_num;
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN;
	if (dp_modify(ini, &a, mask, "XRC_SEND to RTR"))
		return -1;
	a.dest_qp_num = ini->qp_num;
	a.max_dest_rd_atomic = rd;
	a.min_rnr_timer = 1;
	if (dp_modify(tgt, &a, mask | IBV_QP_MAX_DEST_RD_ATOMIC |
		      IBV_QP_MIN_RNR_TIMER, "XRC_RECV to RTR"))
		return -1;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = psn;
	a.max_rd_atomic = rd;
	return dp_modify(ini, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			 IBV_QP_MAX_QP_RD_ATOMIC, "XRC_SEND to RTS");
}

/* RESET -> INIT. */
static int DP_UNUSED dp_to_init(struct ibv_qp *qp, const struct dp_qp_cfg *c)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (c->type == IBV_QPT_UD) {
		a.qkey = DP_QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = c->access;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	return dp_modify(qp, &a, mask, "to INIT");
}

/* INIT -> RTR, connected to @dest_qpn on our own GID. */
static int DP_UNUSED dp_to_rtr(struct ibv_qp *qp, const struct dp_qp_cfg *c,
			       uint32_t dest_qpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
	int mask = IBV_QP_STATE;

	if (c->type != IBV_QPT_UD) {
		dp_fill_av(&a.ah_attr);
		a.path_mtu = dp.mtu;
		a.dest_qp_num = dest_qpn;
		a.rq_psn = 0x1234;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
	}
	if (c->type == IBV_QPT_RC) {
		a.max_dest_rd_atomic = dp.attr.max_qp_rd_atom < 16 ?
				       dp.attr.max_qp_rd_atom : 16;
		a.min_rnr_timer = c->min_rnr_timer;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	return dp_modify(qp, &a, mask, "to RTR");
}

/* RTR -> RTS. */
static int DP_UNUSED dp_to_rts(struct ibv_qp *qp, const struct dp_qp_cfg *c)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS, .sq_psn = 0x1234 };
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (c->type == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = c->retry_cnt;
		a.rnr_retry = c->rnr_retry;
		a.max_rd_atomic = dp.attr.max_qp_rd_atom < 16 ?
				  dp.attr.max_qp_rd_atom : 16;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return dp_modify(qp, &a, mask, "to RTS");
}

static int DP_UNUSED dp_set_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr a = { .qp_state = s };

	return dp_modify(qp, &a, IBV_QP_STATE, "state");
}

static int DP_UNUSED dp_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return -1;
	return a.qp_state;
}

static DP_UNUSED const char *dp_state_str(int s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD",
					 "SQE", "ERR" };

	return s >= 0 && s < (int)DP_ARRAY_SIZE(n) ? n[s] : "?";
}

static struct ibv_ah *dp_make_ah(struct ibv_pd *pd)
{
	struct ibv_ah_attr ah;
	struct ibv_ah *r;

	dp_fill_av(&ah);
	r = ibv_create_ah(pd, &ah);
	if (!r)
		diag("ibv_create_ah: %s", strerror(errno));
	return r;
}

static void DP_UNUSED dp_end_destroy(struct dp_end *e)
{
	if (e->ah)
		ibv_destroy_ah(e->ah);
	if (e->qp && ibv_destroy_qp(e->qp))
		diag("ibv_destroy_qp failed");
	if (e->scq)
		ibv_destroy_cq(e->scq);
	if (e->rcq)
		ibv_destroy_cq(e->rcq);
	memset(e, 0, sizeof(*e));
}

/*
 * Bring one end to RTS (or stop at @until) connected to @peer_qpn.
 */
static int DP_UNUSED dp_end_connect(struct dp_end *e, const struct dp_qp_cfg *c,
				    uint32_t peer_qpn, enum ibv_qp_state until)
{
	if (dp_to_init(e->qp, c))
		return -1;
	if (until == IBV_QPS_INIT)
		return 0;
	if (dp_to_rtr(e->qp, c, peer_qpn))
		return -1;
	if (until == IBV_QPS_RTR)
		return 0;
	return dp_to_rts(e->qp, c);
}

/*
 * Create two QPs per @c (b may use @b_srq instead of c->srq; a is in
 * dp.pd, b in @b_pd) and connect them to each other up to RTS.  Returns
 * 0, or -1 with everything freed.
 */
static int DP_UNUSED dp_pair_make_in(struct dp_pair *p,
				     const struct dp_qp_cfg *c,
				     struct ibv_srq *b_srq, struct ibv_pd *b_pd)
{
	struct dp_qp_cfg cb = *c;

	memset(p, 0, sizeof(*p));
	p->cfg = *c;
	cb.srq = b_srq;
	if (dp_end_create(&p->a, c, dp.pd) || dp_end_create(&p->b, &cb, b_pd))
		goto fail;
	if (dp_end_connect(&p->a, c, p->b.qp->qp_num, IBV_QPS_RTS) ||
	    dp_end_connect(&p->b, &cb, p->a.qp->qp_num, IBV_QPS_RTS))
		goto fail;
	if (c->type == IBV_QPT_UD) {
		p->a.ah = dp_make_ah(dp.pd);
		p->b.ah = dp_make_ah(b_pd);
		if (!p->a.ah || !p->b.ah)
			goto fail;
	}
	return 0;
fail:
	dp_end_destroy(&p->a);
	dp_end_destroy(&p->b);
	return -1;
}

static int DP_UNUSED dp_pair_make2(struct dp_pair *p, const struct dp_qp_cfg *c,
				   struct ibv_srq *b_srq)
{
	return dp_pair_make_in(p, c, b_srq, dp.pd);
}

static int DP_UNUSED dp_pair_make(struct dp_pair *p, const struct dp_qp_cfg *c)
{
	return dp_pair_make2(p, c, c->srq);
}

static void DP_UNUSED dp_pair_destroy(struct dp_pair *p)
{
	dp_end_destroy(&p->a);
	dp_end_destroy(&p->b);
}

/* After a failed request the QPs are in error: @p made anew from @c. */
static void DP_UNUSED dp_pair_renew(struct dp_pair *p,
				    const struct dp_qp_cfg *c)
{
	dp_pair_destroy(p);
	if (dp_pair_make(p, c))
		diag("a new pair: failed");
}

/*
 * Before a request that must succeed: if an earlier one left @p out of
 * RTS, a new pair, so that only that one's point fails.
 */
static void DP_UNUSED dp_pair_ready(struct dp_pair *p,
				    const struct dp_qp_cfg *c)
{
	if (p->a.qp && dp_qp_state(p->a.qp) == IBV_QPS_RTS &&
	    dp_qp_state(p->b.qp) == IBV_QPS_RTS)
		return;
	diag("the pair is not in RTS after a failure: a new pair");
	dp_pair_renew(p, c);
}

/* Post one receive of @n SGEs; returns ibv_post_recv's value. */
static int DP_UNUSED dp_post_recv(struct ibv_qp *qp, uint64_t wr_id,
				  struct ibv_sge *sge, int n)
{
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sge, .num_sge = n };
	struct ibv_recv_wr *bad = NULL;
	int ret = ibv_post_recv(qp, &wr, &bad);

	if (ret)
		diag("ibv_post_recv(wr_id 0x%llx): %s", (unsigned long long)wr_id,
		     strerror(ret));
	return ret;
}

static int DP_UNUSED dp_post_srq_recv(struct ibv_srq *srq, uint64_t wr_id,
				      struct ibv_sge *sge, int n)
{
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sge, .num_sge = n };
	struct ibv_recv_wr *bad = NULL;
	int ret = ibv_post_srq_recv(srq, &wr, &bad);

	if (ret)
		diag("ibv_post_srq_recv(wr_id 0x%llx): %s",
		     (unsigned long long)wr_id, strerror(ret));
	return ret;
}

static int DP_UNUSED dp_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int ret = ibv_post_send(qp, wr, &bad);

	if (ret)
		diag("ibv_post_send(wr_id 0x%llx, opcode %d): %s",
		     (unsigned long long)wr->wr_id, wr->opcode, strerror(ret));
	return ret;
}

/* Fill @wr as a signalled UD send to end @to of @p, through @from's AH. */
/* ---- a bystander ------------------------------------------------------ */

/*
 * An RC QP pair with a 4 KiB buffer at each end, for the programs that
 * abuse one thing and check that nothing else was touched.
 */
struct dp_bystander {
	struct dp_pair pair;
	struct dp_buf src, dst;
};

static int DP_UNUSED dp_bystander_make(struct dp_bystander *b)
{
	struct dp_qp_cfg cfg;

	memset(b, 0, sizeof(*b));
	dp_cfg_default(&cfg, IBV_QPT_RC);
	if (dp_pair_make(&b->pair, &cfg))
		return -1;
	if (dp_buf_alloc(&b->src, dp.pd, 4096, DP_ACC_ALL) ||
	    dp_buf_alloc(&b->dst, dp.pd, 4096, DP_ACC_ALL))
		return -1;
	return 0;
}

/* One SEND of 4 KiB patterned by @seed: 1 if it arrived byte for byte. */
static int DP_UNUSED dp_bystander_send(struct dp_bystander *b, uint32_t seed)
{
	struct ibv_sge s = { (uintptr_t)b->src.p, 4096, b->src.mr->lkey };
	struct ibv_sge r = { (uintptr_t)b->dst.p, 4096, b->dst.mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	dp_fill(b->src.p, 4096, seed);
	memset(b->dst.p, 0, 4096);
	if (dp_post_recv(b->pair.b.qp, 1, &r, 1) ||
	    ibv_post_send(b->pair.a.qp, &wr, &bad))
		return 0;
	if (!dp_poll1(b->pair.a.scq, &wc, "bystander send") ||
	    wc.status != IBV_WC_SUCCESS ||
	    !dp_poll1(b->pair.b.rcq, &wc, "bystander receive") ||
	    wc.status != IBV_WC_SUCCESS)
		return 0;
	return dp_cmp(b->dst.p, b->src.p, 4096, "bystander bytes");
}

static void DP_UNUSED dp_bystander_destroy(struct dp_bystander *b)
{
	dp_buf_free(&b->src);
	dp_buf_free(&b->dst);
	dp_pair_destroy(&b->pair);
}

static void DP_UNUSED dp_ud_dest(struct ibv_send_wr *wr, struct dp_end *from,
				 struct dp_end *to)
{
	wr->wr.ud.ah = from->ah;
	wr->wr.ud.remote_qpn = to->qp->qp_num;
	wr->wr.ud.remote_qkey = DP_QKEY;
}

/* The 40-byte GRH area of a UD receive: our GID as source and dest. */
static int DP_UNUSED dp_check_grh(const uint8_t *g, const char *what)
{
	int good;

	if (dp.gid_ipv4) {
		/* IPv4 header in the last 20 bytes. */
		good = (g[20] >> 4) == 4 && !memcmp(g + 32, dp.gid.raw + 12, 4) &&
		       !memcmp(g + 36, dp.gid.raw + 12, 4);
	} else {
		good = (g[0] >> 4) == 6 && !memcmp(g + 8, dp.gid.raw, 16) &&
		       !memcmp(g + 24, dp.gid.raw, 16);
	}
	if (!good) {
		int i;
		char hex[3 * DP_GRH + 1];

		for (i = 0; i < DP_GRH; i++)
			sprintf(hex + 3 * i, "%02x ", g[i]);
		diag("%s: GRH area does not carry our GID as source and destination (%s): %s",
		     what, dp.gid_ipv4 ? "IPv4 header at byte 20" : "IPv6 GRH", hex);
	}
	return good;
}

/* ---- async events ----------------------------------------------------- */

#define DP_MAX_PENDING_EV 32

static struct {
	enum ibv_event_type type;
	void *obj;
} dp_ev_pending[DP_MAX_PENDING_EV];
static int dp_ev_npending;

static DP_UNUSED const char *dp_ev_str(enum ibv_event_type t)
{
	return ibv_event_type_str(t);
}

static void *dp_ev_obj(const struct ibv_async_event *ev)
{
	switch (ev->event_type) {
	case IBV_EVENT_CQ_ERR:
		return ev->element.cq;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return ev->element.srq;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return ev->element.qp;
	default:
		return NULL;
	}
}

/*
 * Read every async event available within @ms into the pending list
 * (acknowledged at once, so that destroying the object never waits).
 */
static void dp_ev_collect(long ms)
{
	struct pollfd pfd = { .fd = dp.ctx->async_fd, .events = POLLIN };
	int fl = fcntl(dp.ctx->async_fd, F_GETFL);
	struct ibv_async_event ev;
	long deadline = dp_now_ms() + ms;

	fcntl(dp.ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	for (;;) {
		long left = deadline - dp_now_ms();

		if (poll(&pfd, 1, left > 0 ? left : 0) <= 0)
			break;
		while (!ibv_get_async_event(dp.ctx, &ev)) {
			if (dp_ev_npending < DP_MAX_PENDING_EV) {
				dp_ev_pending[dp_ev_npending].type = ev.event_type;
				dp_ev_pending[dp_ev_npending].obj = dp_ev_obj(&ev);
				dp_ev_npending++;
			}
			ibv_ack_async_event(&ev);
		}
		if (left <= 0)
			break;
		/* Something arrived: return to let the caller match it. */
		break;
	}
	fcntl(dp.ctx->async_fd, F_SETFL, fl);
}

static int dp_ev_take(enum ibv_event_type type, void *obj)
{
	int i;

	for (i = 0; i < dp_ev_npending; i++) {
		if (dp_ev_pending[i].type == type && dp_ev_pending[i].obj == obj) {
			memmove(&dp_ev_pending[i], &dp_ev_pending[i + 1],
				(dp_ev_npending - i - 1) * sizeof(dp_ev_pending[0]));
			dp_ev_npending--;
			return 1;
		}
	}
	return 0;
}

/*
 * Wait (up to the completion timeout) for async event @type on @obj (a
 * QP, SRQ or CQ pointer).  Other events seen meanwhile are kept for a
 * later wait.
 */
static int DP_UNUSED dp_ev_wait(enum ibv_event_type type, void *obj,
				const char *what)
{
	long deadline = dp_now_ms() + dp_timeout_ms();
	int i;

	for (;;) {
		if (dp_ev_take(type, obj))
			return 1;
		if (dp_now_ms() >= deadline)
			break;
		dp_ev_collect(deadline - dp_now_ms());
	}
	diag("%s: no %s after %ld ms", what, dp_ev_str(type), dp_timeout_ms());
	for (i = 0; i < dp_ev_npending; i++)
		diag("%s: events seen instead: %s on %p", what,
		     dp_ev_str(dp_ev_pending[i].type), dp_ev_pending[i].obj);
	dp_timed_out();
	return 0;
}

/* Forget pending events about objects about to be destroyed. */
static void DP_UNUSED dp_ev_forget(void)
{
	dp_ev_collect(0);
	dp_ev_npending = 0;
}

#endif /* ORCA_DP_COMMON_H */
