/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared helpers of the wire programs (progs/wire_*.c): the byte pattern
 * their payloads carry, a monotonic clock in milliseconds, an RC QP
 * brought to RTS against a peer across the wire, and the completion a
 * step expects.  Include e2e_tap.h first (diag()).
 */
#ifndef ORCA_E2E_WIRE_COMMON_H
#define ORCA_E2E_WIRE_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

/* Byte @i of the payload pattern @seed. */
static inline uint8_t wire_pat(uint32_t seed, size_t i)
{
	uint32_t x = seed * 2654435761U + (uint32_t)i * 40503U;

	return (uint8_t)(x ^ (x >> 13) ^ (x >> 24));
}

static inline long wire_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * RESET to RTS: @qp (port 1, remote rights @access) to the QP @dest_qpn
 * at GID @dgid, from GID index @sgid_index; path MTU 1024, PSNs 0, one
 * RDMA read or atomic each way, 7 retries of both kinds.
 */
static inline int wire_rc_connect(struct ibv_qp *qp, unsigned int access,
				  int sgid_index, const union ibv_gid *dgid,
				  uint32_t dest_qpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = access,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = sgid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * The next completion on @cq (of the end called @name): WR @id of @qp
 * with @status (and, if that is SUCCESS, @opcode), within @timeout_ms.
 * 1 if so; @wc gets it.
 */
static inline int wire_expect_wc(struct ibv_cq *cq, const char *name,
				 struct ibv_qp *qp, uint64_t id,
				 enum ibv_wc_status status,
				 enum ibv_wc_opcode opcode, struct ibv_wc *wc,
				 const char *what, int timeout_ms)
{
	long deadline = wire_now_ms() + timeout_ms;
	int n;

	while ((n = ibv_poll_cq(cq, 1, wc)) == 0) {
		if (wire_now_ms() > deadline) {
			diag("%s: no completion on %s in %d ms", what, name,
			     timeout_ms);
			return 0;
		}
	}
	if (n < 0) {
		diag("%s: ibv_poll_cq on %s failed", what, name);
		return 0;
	}
	if (wc->wr_id != id || wc->qp_num != qp->qp_num ||
	    wc->status != status ||
	    (status == IBV_WC_SUCCESS && wc->opcode != opcode)) {
		diag("%s: %s completed wr_id %llu of QP 0x%x: %s, opcode %d (want wr_id %llu of QP 0x%x: %s, opcode %d)",
		     what, name, (unsigned long long)wc->wr_id, wc->qp_num,
		     ibv_wc_status_str(wc->status), wc->opcode,
		     (unsigned long long)id, qp->qp_num,
		     ibv_wc_status_str(status), opcode);
		return 0;
	}
	return 1;
}

/* Nothing (more) on @cq, which may be NULL (of the end called @name). */
static inline int wire_cq_empty(struct ibv_cq *cq, const char *name,
				const char *what)
{
	struct ibv_wc wc;
	int n = cq ? ibv_poll_cq(cq, 1, &wc) : 0;

	if (n)
		diag("%s: a completion on %s nobody waited for (%d): wr_id %llu, %s",
		     what, name, n, n > 0 ? (unsigned long long)wc.wr_id : 0ULL,
		     n > 0 ? ibv_wc_status_str(wc.status) : "poll error");
	return !n;
}

/* Give buf[off, off + len) the pattern @seed, and exp (what buf must hold) too. */
static inline void wire_fill(uint8_t *buf, uint8_t *exp, size_t off,
			     size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[off + i] = exp[off + i] = wire_pat(seed, i);
}

/* @len bytes at @p are what @e says; else diagnose where not. */
static inline int wire_cmp(const uint8_t *p, const uint8_t *e, size_t len,
			   const char *whose, const char *what)
{
	size_t i, first = 0, last = 0, n = 0;

	for (i = 0; i < len; i++) {
		if (p[i] == e[i])
			continue;
		if (!n++)
			first = i;
		last = i;
	}
	if (n)
		diag("%s: %zu bytes of %s differ, offsets %zu to %zu (byte %zu is 0x%02x, want 0x%02x)",
		     what, n, whose, first, last, first, p[first], e[first]);
	return !n;
}

/* Post the chain @wr on @qp; 1 if ibv_post_send() took it. */
static inline int wire_post(struct ibv_qp *qp, struct ibv_send_wr *wr,
			    const char *what)
{
	struct ibv_send_wr *bad = NULL;
	int ret = ibv_post_send(qp, wr, &bad);

	if (ret)
		diag("%s: ibv_post_send: %s", what, strerror(ret));
	return !ret;
}

/* Count a failed destroy call of the end called @name: 1 if @ret says so. */
static inline int wire_ret(int ret, const char *what, const char *name)
{
	if (ret)
		diag("%s: %s: %s", name, what, strerror(ret));
	return ret ? 1 : 0;
}

/* One end of a wire test: a device, a PD, a CQ, QPs and a buffer. */
#define WIRE_END_QPS	4

struct wire_end {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[WIRE_END_QPS];
	struct ibv_mr *mr;
	uint8_t *buf;
	uint8_t *exp;			/* what buf must hold */
	union ibv_gid gid;
	int gidx;
};

/* Open @e's device (e->name), read GID e->gidx, make a PD and a CQ of @cqe. */
static inline int wire_end_open(struct wire_end *e, int cqe)
{
	e->ctx = open_by_name(e->name);
	if (!e->ctx || ibv_query_gid(e->ctx, 1, e->gidx, &e->gid)) {
		diag("%s: cannot open it or read GID %d", e->name, e->gidx);
		return -1;
	}
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = e->pd ? ibv_create_cq(e->ctx, cqe, NULL, NULL, 0) : NULL;
	return e->cq ? 0 : -1;
}

/* @n RC QPs of @e on its CQ (4 sends, 2 receives, one SGE each). */
static inline int wire_end_rc_qps(struct wire_end *e, int n)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int q;

	for (q = 0; q < n; q++) {
		e->qp[q] = ibv_create_qp(e->pd, &qa);
		if (!e->qp[q])
			return -1;
	}
	return 0;
}

/* Register @e's buffer of @len bytes with @access. */
static inline int wire_end_reg(struct wire_end *e, size_t len,
			       unsigned int access)
{
	e->mr = ibv_reg_mr(e->pd, e->buf, len, access);
	if (!e->mr)
		diag("%s: ibv_reg_mr(0x%x): %s", e->name, access,
		     strerror(errno));
	return e->mr ? 0 : -1;
}

/* Destroy @e's QPs; the number of calls that failed. */
static inline int wire_end_close_qps(struct wire_end *e)
{
	int q, bad = 0;

	for (q = 0; q < WIRE_END_QPS; q++)
		if (e->qp[q])
			bad += wire_ret(ibv_destroy_qp(e->qp[q]),
					"ibv_destroy_qp", e->name);
	return bad;
}

/* Then its MR, CQ and PD (not the device, nor the buffers). */
static inline int wire_end_close_objs(struct wire_end *e)
{
	int bad = 0;

	if (e->mr)
		bad += wire_ret(ibv_dereg_mr(e->mr), "ibv_dereg_mr", e->name);
	if (e->cq)
		bad += wire_ret(ibv_destroy_cq(e->cq), "ibv_destroy_cq",
				e->name);
	if (e->pd)
		bad += wire_ret(ibv_dealloc_pd(e->pd), "ibv_dealloc_pd",
				e->name);
	return bad;
}

/* Last, the device. */
static inline int wire_end_close_dev(struct wire_end *e)
{
	return e->ctx ? wire_ret(ibv_close_device(e->ctx),
				 "ibv_close_device", e->name) : 0;
}

/* "PROG DEV_A GID_A DEV_B GID_B": name and GID index of each end; 0, or 2 (usage). */
static inline int wire_ends_args(int argc, char **argv, struct wire_end *a,
				 struct wire_end *b)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV_A GID_A DEV_B GID_B\n", argv[0]);
		return 2;
	}
	a->name = argv[1];
	a->gidx = atoi(argv[2]);
	b->name = argv[3];
	b->gidx = atoi(argv[4]);
	return 0;
}

/* Connect QP q of @a with QP q of @b, q < @n, both ways, remote rights all. */
static inline int wire_ends_connect(struct wire_end *a, struct wire_end *b,
				    int n)
{
	const unsigned int rights = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
	int q;

	for (q = 0; q < n; q++)
		if (wire_rc_connect(a->qp[q], rights, a->gidx, &b->gid,
				    b->qp[q]->qp_num) ||
		    wire_rc_connect(b->qp[q], rights, b->gidx, &a->gid,
				    a->qp[q]->qp_num))
			return -1;
	return 0;
}

/* How long an end waits for a completion it expects. */
#define WIRE_END_TIMEOUT_MS	60000

/* The next completion of @e: wire_expect_wc() on its CQ. */
static inline int wire_end_wc(struct wire_end *e, struct ibv_qp *qp,
			      uint64_t id, enum ibv_wc_status status,
			      enum ibv_wc_opcode opcode, struct ibv_wc *wc,
			      const char *what)
{
	return wire_expect_wc(e->cq, e->name, qp, id, status, opcode, wc, what,
			      WIRE_END_TIMEOUT_MS);
}

#endif /* ORCA_E2E_WIRE_COMMON_H */
