/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * orca_soft: declarations shared by the data-path engine's files
 * (orca_soft_engine.c, _req.c, _resp.c, _comp.c, _mem.c, _odp.c).
 *
 * Everything here runs on the engine thread or in an admin command, both
 * under orca_soft_dev.eng_rwsem (see orca_soft.h for the shared lane).
 */
#ifndef ORCA_SOFT_ENGINE_H
#define ORCA_SOFT_ENGINE_H

#include <rdma/orca-abi.h>

#include "orca_soft.h"
#include "orca_soft_dp.h"
#include "orca_soft_net.h"
#include "orca_soft_wire.h"

/* Largest WQE stride (ORCA_WQ_CFG_LOG2_STRIDE 10). */
#define ORCA_SOFT_WQE_MAX		1024
/* The GRH area at the start of a UD receive buffer. */
#define ORCA_SOFT_GRH_LEN		40
/* Largest message: QUERY_PORT max_msg_sz. */
#define ORCA_SOFT_MAX_MSG		BIT_ULL(31)

/* A resolved scatter/gather element: a range of a valid MR. */
struct orca_soft_seg {
	struct orca_soft_mr *mr;
	u64 addr;			/* within [mr->iova, mr->iova + length) */
	u32 len;
};

/*
 * A message buffer: resolved SGEs, or (inl) bytes the engine holds in
 * kernel memory (inline data, a GRH, an atomic's original value).
 */
struct orca_soft_sgl {
	u32 nseg;
	u64 len;			/* total bytes */
	const u8 *inl;			/* kernel buffer of len bytes, or NULL */
	struct orca_soft_seg seg[ORCA_SOFT_MAX_SGE];
};

/* A receive CQE held back until the requester has completed its WQE. */
struct orca_soft_held_cqe {
	struct orca_soft_cq *cq;
	struct orca_soft_cqe_info ci;
};

#define ORCA_SOFT_HELD_CQES	(ORCA_SOFT_MAX_MCAST_QP + 1)

/* REG_MR page-list entries read per DMA access (fast register). */
#define ORCA_SOFT_PBL_CHUNK		64

/*
 * Scratch space of a QP's requester and completer, used only by whoever
 * runs that QP's send side: the send WQE being executed, copied out of
 * the ring, the buffer it names, and the receive completions of local
 * peers held back until it completes (orca_soft_cq_hold()).  A request
 * handed to a local responder (struct orca_soft_msg) points into it.
 */
struct orca_soft_req_scratch {
	u8 wqe[ORCA_SOFT_WQE_MAX];	/* send WQE, copied from the ring */
	struct orca_soft_sgl local;	/* its buffer */
	struct orca_soft_sgl kbuf;	/* kernel bytes (a response's payload) */
	struct orca_av av;		/* a UD WQE's address vector, copied */
	__le64 pbl[ORCA_SOFT_PBL_CHUNK];	/* REG_MR: page list, copied */
	u32 nheld;
	u32 max_held;			/* UD: a group's members; else 1 */
	/* The shared lane: a UD datagram's destination, locked to its end. */
	struct orca_soft_qp *ud_dest;
	struct orca_soft_held_cqe held[];
};

/*
 * Scratch space of a QP's responder, used only by whoever delivers a
 * request to that QP: the receive WQE, copied, and the buffer it names
 * or the request's target.
 */
struct orca_soft_resp_scratch {
	u8 rwqe[ORCA_SOFT_WQE_MAX];	/* receive WQE, copied */
	struct orca_soft_sgl remote;	/* responder's buffer */
	struct orca_soft_sgl kbuf;	/* kernel bytes (GRH, atomic result) */
	u8 grh[ORCA_SOFT_GRH_LEN];
};

/* A request as the requester hands it to a local responder. */
struct orca_soft_msg {
	struct orca_soft_qp *src;	/* requester QP */
	u8 opcode;			/* ORCA_WQE_OP_* */
	u8 flags;			/* ORCA_WQE_FLAG_* */
	bool solicited;
	u32 imm_inv;
	u64 len;
	u32 psn;			/* first PSN */
	u32 packets;			/* PSNs the request consumes */
	struct orca_soft_sgl *local;	/* payload, or READ/atomic sink */
	u64 remote_addr;		/* RDMA and atomics */
	u32 rkey;
	u64 compare_add;
	u64 swap;
	u32 xrc_srqn;			/* XRC_INI: the target's XRC SRQ */
	/* UD: the address vector, validated on the engine's copy */
	u32 qkey;
	const struct orca_av *av;
};

/* The responder's answer, as ACK/NAK would carry it. */
enum orca_soft_answer {
	ORCA_SOFT_ACK,			/* executed */
	ORCA_SOFT_SILENT,		/* dropped: no answer at all */
	ORCA_SOFT_RNR_NAK,		/* no receive WQE */
	ORCA_SOFT_NAK_INV_REQ,		/* invalid request */
	ORCA_SOFT_NAK_ACCESS,		/* remote access error */
	ORCA_SOFT_NAK_OP,		/* remote operational error */
	/*
	 * A page of an on-demand-paging region is not present (ODP_FAULT
	 * posted): the local requester waits, RC on the wire answers an
	 * RNR NAK, UC and UD drop the packet.
	 */
	ORCA_SOFT_PAGE_FAULT,
};

/* orca_soft_mem.c */
struct orca_soft_mr *orca_soft_mr_get(struct orca_soft_dev *sdev,
				      struct orca_soft_qp *qp, u32 key);
bool orca_soft_key_take(struct orca_soft_qp *qp, struct orca_soft_mr *mr,
			u32 key);
bool orca_soft_region_take(struct orca_soft_qp *qp, struct orca_soft_mr *mr);
void orca_soft_lane_unpin(struct orca_soft_qp *qp);
bool orca_soft_key_inv_shared(struct orca_soft_dev *sdev, u32 key);
bool orca_soft_mr_range_ok(const struct orca_soft_mr *mr, u64 addr, u64 len);
bool orca_soft_key_inv_ok(struct orca_soft_dev *sdev,
			  const struct orca_soft_qp *qp, u32 key, bool remote);
int orca_soft_key_invalidate(struct orca_soft_dev *sdev,
			     struct orca_soft_qp *qp, u32 key, bool placed);
int orca_soft_sgl_resolve(struct orca_soft_dev *sdev,
			  struct orca_soft_qp *qp,
			  struct orca_soft_sgl *sgl,
			  const struct orca_sge *sge, u32 n, u32 access);
void orca_soft_sgl_kbuf(struct orca_soft_sgl *sgl, const void *buf, u32 len);
int orca_soft_sgl_copy(struct orca_soft_dev *sdev,
		       const struct orca_soft_sgl *dst, u64 doff,
		       const struct orca_soft_sgl *src, u64 soff, u64 len);
int orca_soft_sgl_read(struct orca_soft_dev *sdev,
		       const struct orca_soft_sgl *src, u64 soff, void *buf,
		       u64 len);
int orca_soft_mem_atomic(struct orca_soft_dev *sdev, struct orca_soft_mr *mr,
			 u64 addr, bool cmp_swp, u64 compare_add, u64 swap,
			 u64 *orig);
int orca_soft_mr_odp_check(struct orca_soft_dev *sdev, struct orca_soft_mr *mr,
			   u64 addr, u64 len, u64 end, bool write);
int orca_soft_sgl_odp_check(struct orca_soft_dev *sdev,
			    const struct orca_soft_sgl *sgl, u64 off, u64 len,
			    bool write);

/* orca_soft_odp.c */
int orca_soft_odp_translate(struct orca_soft_dev *sdev,
			    struct orca_soft_mr *mr, u64 va, u64 end,
			    bool write, u64 *dma);
int orca_soft_odp_check(struct orca_soft_dev *sdev, struct orca_soft_mr *mr,
			u64 va, u64 len, u64 end, bool write);
void orca_soft_odp_park(struct orca_soft_dev *sdev, struct orca_soft_qp *qp);
void orca_soft_odp_hold_resp(struct orca_soft_dev *sdev,
			     struct orca_soft_qp *qp);

/* orca_soft_mw.c */
u8 orca_soft_bind_mw(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
		     u32 cur_key, const struct orca_wqe_bind_mw *b);
bool orca_soft_mw_inv_ok(const struct orca_soft_mr *mw,
			 const struct orca_soft_qp *qp, bool remote);
void orca_soft_mw_unbind(struct orca_soft_mr *mw);
struct orca_soft_mr *orca_soft_mw_resolve(const struct orca_soft_mr *mw,
					  const struct orca_soft_qp *dqp,
					  u64 *addr, u64 len);

/* orca_soft_comp.c */
void orca_soft_cq_hold(struct orca_soft_dev *sdev, struct orca_soft_qp *src,
		       struct orca_soft_cq *cq,
		       const struct orca_soft_cqe_info *ci);
void orca_soft_cq_release_held(struct orca_soft_dev *sdev,
			       struct orca_soft_qp *qp);

/* orca_soft_resp.c */
enum orca_soft_answer orca_soft_resp_err(struct orca_soft_dev *sdev,
					 struct orca_soft_qp *dqp, u8 event,
					 enum orca_soft_answer ans);
struct orca_soft_mr *orca_soft_rkey(struct orca_soft_dev *sdev,
				    struct orca_soft_qp *dqp, u32 rkey,
				    u64 *addr, u64 len, u32 access);
void orca_soft_sgl_one(struct orca_soft_sgl *sgl, struct orca_soft_mr *mr,
		       u64 addr, u64 len);
int orca_soft_recv_avail(struct orca_soft_dev *sdev, struct orca_soft_qp *dqp,
			 u32 *prod);
enum orca_soft_answer orca_soft_recv_need(struct orca_soft_dev *sdev,
					  struct orca_soft_qp *dqp, u32 *prod);
int orca_soft_rwqe_read(struct orca_soft_dev *sdev, struct orca_soft_qp *dqp,
			struct orca_soft_cqe_info *ci);
int orca_soft_rwqe_resolve(struct orca_soft_dev *sdev,
			   struct orca_soft_qp *dqp, u32 nsge);
void orca_soft_recv_consume(struct orca_soft_dev *sdev,
			    struct orca_soft_qp *dqp, u32 prod);
void orca_soft_recv_fail(struct orca_soft_dev *sdev, struct orca_soft_qp *dqp,
			 u32 prod, struct orca_soft_cqe_info *ci, u8 status);
void orca_soft_recv_invalidate(struct orca_soft_dev *sdev,
			       struct orca_soft_qp *dqp, u32 key,
			       struct orca_soft_cqe_info *ci);
enum orca_soft_answer orca_soft_resp_deliver(struct orca_soft_dev *sdev,
					     struct orca_soft_qp *dqp,
					     struct orca_soft_msg *msg);

/* orca_soft_req.c */
/*
 * Not CQE statuses: the requester decided to wait (RNR, ACK timer, a
 * page), or, in the shared lane, leaves the WQE to the exclusive holders
 * untouched (a memory key other lanes copy through).
 */
#define ORCA_SOFT_REQ_WAIT	0xff
#define ORCA_SOFT_REQ_EXCL	0xfe
u8 orca_soft_req_decode(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
			u64 addr, struct orca_soft_msg *out,
			struct orca_soft_cqe_info *ci, bool *executed);
bool orca_soft_req_local(struct orca_soft_dev *sdev, struct orca_soft_qp *qp);
bool orca_soft_wqe_refused(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
			   const struct orca_send_wqe *wqe, bool *excl);
struct orca_soft_qp *orca_soft_req_shared_peer(struct orca_soft_dev *sdev,
					       struct orca_soft_qp *qp);
struct orca_soft_srq *orca_soft_req_shared_srq(struct orca_soft_dev *sdev,
					       struct orca_soft_qp *qp,
					       struct orca_soft_qp *peer);
int orca_soft_sq_run_shared(struct orca_soft_dev *sdev,
			    struct orca_soft_qp *qp, struct orca_soft_qp *peer,
			    int budget, bool *excl);

/* The default P_Key, the only one in the port's table. */
#define ORCA_SOFT_PKEY_DEFAULT	0xffff

/* A connected QP's path MTU in bytes, never above what the netdev carries. */
static inline u32 orca_soft_qp_mtu(struct orca_soft_dev *sdev,
				   const struct orca_soft_qp *qp)
{
	u32 mtu = orca_mtu_bytes(qp->attr.path_mtu) ?: 256;

	return min(mtu, orca_soft_active_mtu(sdev->netdev) ?: 256);
}

/* orca_soft_wire_req.c: the requester and completer on the wire */
#define ORCA_SOFT_WIRE_WINDOW	128	/* PSNs unacknowledged at most */
int orca_soft_wire_sq_run(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
			  int budget, bool *excl);
void orca_soft_wire_send_ud(struct orca_soft_dev *sdev,
			    struct orca_soft_qp *qp,
			    const struct orca_soft_msg *msg, u32 dest_qpn);
void orca_soft_wire_rx_response(struct orca_soft_dev *sdev,
				struct orca_soft_qp *qp,
				const struct orca_wire_pkt *pkt,
				const u8 *payload);
void orca_soft_wire_timer(struct orca_soft_dev *sdev, struct orca_soft_qp *qp);
u64 orca_soft_wire_deadline(const struct orca_soft_qp *qp);
void orca_soft_wire_arm(struct orca_soft_dev *sdev, struct orca_soft_qp *qp);
void orca_soft_wire_qp_init(struct orca_soft_qp *qp);

/* orca_soft_wire_resp.c: the responder on the wire, receive dispatch */
int orca_soft_wire_rx(struct orca_soft_dev *sdev, int budget);
int orca_soft_wire_rx_shared(struct orca_soft_dev *sdev, int budget,
			     bool *excl);
void orca_soft_wire_flush_acks(struct orca_soft_dev *sdev);
int orca_soft_wire_resp_run(struct orca_soft_dev *sdev,
			    struct orca_soft_qp *qp, int budget);
void orca_soft_qp_route(struct orca_soft_dev *sdev,
			const struct orca_soft_qp *qp,
			struct orca_soft_route *rt);
int orca_soft_wire_tx(struct orca_soft_dev *sdev,
		      const struct orca_soft_route *rt,
		      struct orca_wire_pkt *pkt,
		      const struct orca_soft_sgl *sgl, u64 off);

/* orca_soft_engine.c */
bool orca_soft_qp_receives(const struct orca_soft_qp *qp);
void orca_soft_qp_error_event(struct orca_soft_dev *sdev,
			      struct orca_soft_qp *qp, u8 type);

#endif /* ORCA_SOFT_ENGINE_H */
