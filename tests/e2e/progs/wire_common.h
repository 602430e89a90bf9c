/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared helpers of the wire programs (progs/wire_*.c): the byte pattern
 * their payloads carry, a monotonic clock in milliseconds, and an RC QP
 * brought to RTS against a peer across the wire.
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

#endif /* ORCA_E2E_WIRE_COMMON_H */
