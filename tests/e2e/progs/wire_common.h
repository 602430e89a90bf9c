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

#endif /* ORCA_E2E_WIRE_COMMON_H */
