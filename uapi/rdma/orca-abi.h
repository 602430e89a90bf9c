/* SPDX-License-Identifier: ((GPL-2.0-only WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * Orca HCA: the ABI between orca.ko and its userspace provider, liborca.
 *
 * Everything here crosses the user/kernel boundary: the udata carried by
 * the uverbs commands, and (as the data path lands) the formats that
 * userspace writes into or reads from the rings it maps.  All multi-byte
 * fields of shared memory formats are little-endian.
 *
 * Rules for every udata struct below:
 *  - the kernel rejects a request shorter than the struct it expects;
 *  - every reserved field must be zero, and comp_mask may only carry bits
 *    defined here, otherwise the command fails with EINVAL;
 *  - userspace must offer room for the whole response struct; a shorter
 *    response buffer fails the command with EINVAL.
 */
#ifndef ORCA_ABI_USER_H
#define ORCA_ABI_USER_H

#include <linux/types.h>

/* Bumped on any incompatible change; the provider refuses other versions. */
#define ORCA_UVERBS_ABI_VERSION 2

/* ALLOC_UCONTEXT */
struct orca_alloc_ucontext_req {
	__u32 comp_mask;	/* no bits defined yet */
	__u32 reserved;
};

/*
 * ALLOC_UCONTEXT response comp_mask: the queue-creating commands accept
 * ORCA_QUEUE_REQ_USER_BUF (rings in the process's memory); the driver
 * has the QP kick method ORCA_IB_METHOD_QP_KICK (below).
 */
#define ORCA_UCTX_RESP_USER_BUF		0x00000001U
#define ORCA_UCTX_RESP_QP_KICK		0x00000002U

struct orca_alloc_ucontext_resp {
	__u32 comp_mask;	/* ORCA_UCTX_RESP_* */
	__u32 abi_version;	/* ORCA_UVERBS_ABI_VERSION */
	__u32 hw_version;	/* device ORCA_REG_VERSION */
	__u32 reserved;
};

/* ALLOC_PD */
struct orca_alloc_pd_resp {
	__u32 comp_mask;	/* no bits defined yet */
	__u32 pdn;		/* device PD number */
};

/*
 * Queue memory.  Each CQ, QP and SRQ is one mmap: its ring(s) followed by
 * one page of doorbell records.  The response gives the mmap key, the
 * length to map, and the offset of each part within the mapping.
 *
 * Rings in the process's own memory (ORCA_QUEUE_REQ_USER_BUF in the
 * request of CREATE_CQ, RESIZE_CQ, CREATE_QP or CREATE_SRQ; offered
 * when the ALLOC_UCONTEXT response has ORCA_UCTX_RESP_USER_BUF): the
 * request names a page-aligned buffer of exactly the bytes the rings
 * take, laid out as they would be in the mapping, which the process
 * has zeroed.  The kernel pins it until the object is destroyed (or, for
 * RESIZE_CQ, replaced; a failed RESIZE_CQ unpins the new buffer at once),
 * counted against RLIMIT_MEMLOCK.  If the device does not answer the
 * destroy, the pages stay pinned until the device is disabled.  The
 * mapping is then the doorbell page alone (db_offset 0), and the
 * response's ring offsets (sq_offset, rq_offset) are offsets in the
 * buffer.
 *
 * The kernel sizes rings as follows (pow2: round up to a power of two;
 * page: round up to a whole page of the kernel's page size, which is
 * sysconf(_SC_PAGESIZE); UD and GSI send WQEs have the
 * ORCA_UD_SEND_WQE_HDR_SIZE header, other send WQEs
 * ORCA_SEND_WQE_HDR_SIZE, receive WQEs ORCA_RECV_WQE_HDR_SIZE; an SGE
 * is 16 bytes):
 *   CQ:  depth pow2(max(cqe, 2)), entries of 32 bytes (64 with
 *        completion timestamps); bytes page(depth * entry size).
 *   SQ:  depth pow2(max(max_send_wr, 1)), stride pow2(max(hdr + 16 *
 *        max_send_sge, hdr + max_inline_data, 128)).
 *   RQ, SRQ: depth pow2(max(max_wr, 1)), stride pow2(max(hdr + 16 *
 *        max_sge, 32)).
 *   Each work queue ring takes page(depth * stride) bytes; a QP's buffer
 *   is its SQ ring, then its RQ ring (none with an SRQ or for XRC_SEND).
 */

/*
 * Doorbell record: 64 bytes, one per SQ, RQ, SRQ and CQ.
 *
 * Work queues (SQ, RQ, SRQ): software writes prod after the WQEs it
 * covers are complete in the ring (store barrier first); the device
 * writes cons and dev_flags.  cons counts WQEs the device is done with:
 * for an RQ or SRQ, WQEs it has taken (and copied); for an SQ, WQEs whose
 * execution has finished and whose completion, if any, is in the CQ.  A
 * slot below cons may be reused.  cons must be current by the time the
 * completion can be polled: the device stores cons after a CQE's other
 * fields and before its owner word (for an RQ/SRQ, a WQE is taken long
 * before its CQE).  ibv_post_send(3) counts a WR as outstanding until
 * its completion (or a later one) was polled, and applications such as
 * perftest keep exactly max_send_wr in flight that way; a cons that
 * lags the CQEs makes their next post fail with ENOMEM.  prod - cons
 * never exceeds the ring depth; a device that finds it does moves the
 * QP to the error state.
 * A move to RESET drops every WQE of the QP's SQ and RQ: when MODIFY_QP
 * completes, the device has written to each record the cons it will
 * continue from, and software restarts prod there.
 *
 * After writing prod, a poster issues a full barrier and reads
 * dev_flags: if ORCA_DB_DEV_POLLING is clear it must notify the device
 * (the QP doorbell register, through the driver for userspace).  The
 * device clears the flag, issues a full barrier and re-reads prod before
 * it stops polling, so one of the two always sees the other's store.
 * Userspace notifies with a uverbs POST_SEND (SQ) or POST_RECV (RQ)
 * carrying no WR, and arms a CQ whose next CQE is already there with
 * REQ_NOTIFY_CQ.  Linux leaves these three commands out of the default
 * ib_device.uverbs_cmd_mask, so orca.ko must add them; otherwise uverbs
 * answers EOPNOTSUPP without calling the driver.
 *
 * CQ: software writes cons (entries consumed, free-running) and arm; the
 * device never writes the CQ record.
 */
struct orca_db_record {
	__le32 prod;		/* WQ: producer index (software) */
	__le32 cons;		/* WQ: done index (device); CQ: consumer index (software) */
	__le32 arm;		/* CQ: ORCA_CQ_ARM_* (software) */
	__le32 dev_flags;	/* WQ: ORCA_DB_DEV_* (device) */
	__le32 reserved[12];
};

#define ORCA_DB_RECORD_SIZE		64
/* The device is polling this queue: posting needs no notify (kick). */
#define ORCA_DB_DEV_POLLING		0x00000001U

/*
 * CQ arm word.  To request one completion event, software writes cons
 * first, then arm = (previous SEQ + 1) | REQUEST [| SOLICITED], then
 * issues a full barrier and looks at the CQE at cons: if it is valid, it
 * notifies the device (CQ doorbell register).  The device treats the arm
 * as pending while REQUEST is set and SEQ differs from the SEQ of the
 * last arm it fired; it fires (one completion EQ entry) for the next CQE
 * it writes, or with SOLICITED only for a CQE with ORCA_CQE_FLAG_SOLICITED
 * or a status other than success.  After writing each CQE the device
 * issues a full barrier and reads the arm word.
 */
#define ORCA_CQ_ARM_SEQ_MASK		0x0000ffffU
#define ORCA_CQ_ARM_SOLICITED		0x00010000U
#define ORCA_CQ_ARM_REQUEST		0x00020000U

/* Scatter/gather element, in send and receive WQEs. */
struct orca_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};

/* Send WQE: 64-byte header, then SGEs or inline data; stride is 2^n. */
struct orca_wqe_rdma {
	__le64 remote_addr;
	__le32 rkey;
	__le32 reserved;
};

struct orca_wqe_atomic {
	__le64 remote_addr;
	__le32 rkey;
	__le32 reserved;
	__le64 compare_add;
	__le64 swap;
};

struct orca_wqe_ud {
	__le32 reserved0;	/* 0 (was an AH number before ABI 2) */
	__le32 remote_qpn;
	__le32 remote_qkey;
	__le32 reserved;
};

/*
 * BIND_MW (interface 1.3): imm_inv holds the window's current key; the
 * window gets new_key (same index, new variant) and covers
 * [addr, addr + length) of the MR named by mr_key, with the rights of
 * info.  A type 1 window with length 0 is unbound (mr_key, addr unused).
 */
struct orca_wqe_bind_mw {
	__le64 addr;
	__le64 length;
	__le32 mr_key;
	__le32 new_key;
	__le32 info;		/* ORCA_WQE_BIND_* */
	__le32 reserved;
};

#define ORCA_WQE_BIND_ACCESS		0x000000ffU	/* ORCA_BIND_ACCESS_* */
#define ORCA_WQE_BIND_ZERO_BASED	0x00000100U
#define ORCA_BIND_ACCESS_REMOTE_WRITE	0x00000002U
#define ORCA_BIND_ACCESS_REMOTE_READ	0x00000004U
#define ORCA_BIND_ACCESS_REMOTE_ATOMIC	0x00000008U

/*
 * Address vector: 32 bytes, in host memory.  An address handle is only
 * this: orca.ko fills it from the ah_attr that ib_core resolved (the
 * destination MAC included) without a device command, and every UD and
 * GSI send WQE carries a copy right after its 64-byte header, so the
 * device never looks an AH up.  The device validates it on its copy:
 * sgid_index must name a populated GID, vlan must be < 4096 or 0xffff,
 * reserved must be 0; otherwise the WQE completes with LOC_QP_OP_ERR.
 */
struct orca_av {
	__u8 dgid[16];
	__le32 info;		/* ORCA_AV_INFO_* */
	__u8 dmac[6];
	__le16 vlan;		/* 0xffff: untagged */
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 reserved[2];
};

#define ORCA_AV_SIZE			32
#define ORCA_AV_INFO_FLOW_LABEL		0x000fffffU
#define ORCA_AV_INFO_SGID_INDEX		0x0ff00000U
#define ORCA_AV_INFO_SL			0xf0000000U
#define ORCA_AV_VLAN_NONE		0xffff

/* A UD/GSI send WQE: header, address vector, then SGEs or inline data. */
#define ORCA_UD_SEND_WQE_HDR_SIZE	(ORCA_SEND_WQE_HDR_SIZE + ORCA_AV_SIZE)

/*
 * imm_inv of a WQE and a CQE holds immediate data as the host value of
 * the big-endian imm_data (be32_to_cpu), stored little-endian; or a key
 * (SEND_INV, LOCAL_INV, and the invalidated rkey of a receive CQE).
 * Send WQE opcodes and the segment each uses:
 *   SEND, SEND_IMM, SEND_INV   seg.ud and the struct orca_av that follows
 *                              the header on UD/GSI QPs; unused otherwise
 *   RDMA_WRITE[_IMM], READ     seg.rdma
 *   ATOMIC_*                   seg.atomic; one 8-byte SGE gets the old value
 *   LOCAL_INV                  imm_inv = key, no SGE
 *   BIND_MW                    seg.bind, imm_inv = the window's key, no SGE
 *   REG_MR                     kernel only (drivers/orca/orca_hw.h)
 * On an XRC_INI QP (interface 1.4) xrc_srqn names the XRC SRQ at the
 * target that a request (every opcode but LOCAL_INV, BIND_MW and REG_MR)
 * goes to, below 2^24; on other QPs it is 0.
 */
struct orca_send_wqe {
	__le64 wr_id;
	__le32 ctrl;		/* ORCA_WQE_CTRL_* */
	__le32 imm_inv;		/* immediate data or key, see above */
	__le32 inline_len;	/* with ORCA_WQE_FLAG_INLINE */
	__le32 xrc_srqn;	/* XRC_INI QPs: the target's XRC SRQ */
	__le32 reserved[2];
	union {
		struct orca_wqe_rdma rdma;
		struct orca_wqe_atomic atomic;
		struct orca_wqe_ud ud;
		struct orca_wqe_bind_mw bind;
		__le64 raw[4];
	} seg;
	/* struct orca_sge sge[num_sge], or inline data */
};

#define ORCA_SEND_WQE_HDR_SIZE		64
#define ORCA_WQE_XRC_SRQN_MASK		0x00ffffffU
#define ORCA_WQE_CTRL_OPCODE_MASK	0x000000ffU
#define ORCA_WQE_CTRL_FLAGS_SHIFT	8
#define ORCA_WQE_CTRL_FLAGS_MASK	0x0000ff00U
#define ORCA_WQE_CTRL_NUM_SGE_SHIFT	16
#define ORCA_WQE_CTRL_NUM_SGE_MASK	0x00ff0000U

enum orca_wqe_opcode {
	ORCA_WQE_OP_SEND		= 0,
	ORCA_WQE_OP_SEND_IMM		= 1,
	ORCA_WQE_OP_SEND_INV		= 2,
	ORCA_WQE_OP_RDMA_WRITE		= 3,
	ORCA_WQE_OP_RDMA_WRITE_IMM	= 4,
	ORCA_WQE_OP_RDMA_READ		= 5,
	ORCA_WQE_OP_ATOMIC_CMP_SWP	= 6,
	ORCA_WQE_OP_ATOMIC_FETCH_ADD	= 7,
	ORCA_WQE_OP_LOCAL_INV		= 8,
	ORCA_WQE_OP_REG_MR		= 9,	/* kernel only */
	ORCA_WQE_OP_BIND_MW		= 10,
};

#define ORCA_WQE_FLAG_SIGNALED		0x00000001U
#define ORCA_WQE_FLAG_SOLICITED		0x00000002U
#define ORCA_WQE_FLAG_INLINE		0x00000004U
#define ORCA_WQE_FLAG_FENCE		0x00000008U

/* Receive WQE (RQ and SRQ): 16-byte header, then SGEs; stride is 2^n. */
struct orca_recv_wqe {
	__le64 wr_id;
	__le32 num_sge;
	__le32 reserved;
	/* struct orca_sge sge[num_sge] */
};

#define ORCA_RECV_WQE_HDR_SIZE		16

/*
 * Completion queue entry: 32 bytes.  The device writes everything else,
 * issues a store barrier, then writes status_owner.  Entry i of a ring of
 * 2^n entries is valid when its OWNER bit equals ((i >> n) & 1) ^ 1, i.e.
 * 1 on the first pass (rings start zeroed).
 */
struct orca_cqe {
	__le64 wr_id;
	__le32 byte_len;
	__le32 imm_inv;		/* immediate data or invalidated rkey */
	__le32 qpn;		/* the local QP */
	__le32 src_qp;		/* UD receives: the sender's QPN */
	__le32 info;		/* ORCA_CQE_INFO_* */
	__le32 status_owner;	/* ORCA_CQE_STATUS_MASK, ORCA_CQE_OWNER */
};

#define ORCA_CQE_SIZE			32

/*
 * A CQ created with 64-byte entries (interface 1.3, ibv_create_cq_ex with
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP): each entry is a struct orca_cqe
 * followed by this.  The device writes it before status_owner.
 * timestamp is the device clock (nanoseconds; on the software device the
 * host's CLOCK_MONOTONIC_RAW) when the device wrote the entry.
 */
struct orca_cqe_ext {
	__le64 timestamp;
	__le64 reserved[3];
};

#define ORCA_CQE64_SIZE			64
#define ORCA_CQE_INFO_OPCODE_MASK	0x000000ffU	/* enum orca_cqe_opcode */
#define ORCA_CQE_INFO_FLAGS_SHIFT	8
#define ORCA_CQE_INFO_FLAGS_MASK	0x0000ff00U
#define ORCA_CQE_FLAG_IMM		0x00000001U
#define ORCA_CQE_FLAG_INV		0x00000002U
#define ORCA_CQE_FLAG_GRH		0x00000004U	/* UD: GRH area filled */
#define ORCA_CQE_FLAG_SOLICITED		0x00000008U	/* receive, SE bit set */
#define ORCA_CQE_FLAG_IPV4		0x00000010U	/* GRH area holds IPv4 */
#define ORCA_CQE_STATUS_MASK		0x000000ffU	/* enum orca_cqe_status */
#define ORCA_CQE_OWNER			0x80000000U

enum orca_cqe_opcode {
	ORCA_CQE_OP_SEND		= 0x00,
	ORCA_CQE_OP_RDMA_WRITE		= 0x01,
	ORCA_CQE_OP_RDMA_READ		= 0x02,
	ORCA_CQE_OP_ATOMIC_CMP_SWP	= 0x03,
	ORCA_CQE_OP_ATOMIC_FETCH_ADD	= 0x04,
	ORCA_CQE_OP_LOCAL_INV		= 0x05,
	ORCA_CQE_OP_REG_MR		= 0x06,
	ORCA_CQE_OP_BIND_MW		= 0x07,
	ORCA_CQE_OP_RECV		= 0x80,
	ORCA_CQE_OP_RECV_RDMA_IMM	= 0x81,
};

/* Completion status; the values are those of enum ibv_wc_status. */
enum orca_cqe_status {
	ORCA_CQE_ST_SUCCESS		= 0,
	ORCA_CQE_ST_LOC_LEN_ERR		= 1,
	ORCA_CQE_ST_LOC_QP_OP_ERR	= 2,
	ORCA_CQE_ST_LOC_PROT_ERR	= 4,
	ORCA_CQE_ST_WR_FLUSH_ERR	= 5,
	ORCA_CQE_ST_MW_BIND_ERR		= 6,
	ORCA_CQE_ST_BAD_RESP_ERR	= 7,
	ORCA_CQE_ST_LOC_ACCESS_ERR	= 8,
	ORCA_CQE_ST_REM_INV_REQ_ERR	= 9,
	ORCA_CQE_ST_REM_ACCESS_ERR	= 10,
	ORCA_CQE_ST_REM_OP_ERR		= 11,
	ORCA_CQE_ST_RETRY_EXC_ERR	= 12,
	ORCA_CQE_ST_RNR_RETRY_EXC_ERR	= 13,
	ORCA_CQE_ST_FATAL_ERR		= 19,
	ORCA_CQE_ST_GENERAL_ERR		= 21,
};

/* Request comp_mask of CREATE_CQ, RESIZE_CQ, CREATE_QP and CREATE_SRQ. */
#define ORCA_QUEUE_REQ_USER_BUF		0x00000001U

/*
 * CREATE_CQ and RESIZE_CQ.  An older provider's request ends after
 * reserved; with ORCA_QUEUE_REQ_USER_BUF it must be whole.
 */
struct orca_create_cq_req {
	__u32 comp_mask;	/* ORCA_QUEUE_REQ_* */
	__u32 reserved;
	__aligned_u64 buf_addr;	/* USER_BUF: the rings; else 0 */
	__aligned_u64 buf_len;	/* USER_BUF: their bytes; else 0 */
};

struct orca_create_cq_resp {
	__u32 comp_mask;
	__u32 cqn;
	__u32 cqe_count;	/* ring entries: the CQ holds this many */
	__u32 cqe_size;		/* ORCA_CQE_SIZE, or ORCA_CQE64_SIZE */
	__aligned_u64 mmap_key;
	__u32 mmap_len;
	__u32 db_offset;	/* struct orca_db_record within the mapping */
};

struct orca_resize_cq_req {
	__u32 comp_mask;
	__u32 reserved;
	__aligned_u64 buf_addr;
	__aligned_u64 buf_len;
};

struct orca_resize_cq_resp {
	__u32 comp_mask;
	__u32 cqe_count;
	__aligned_u64 mmap_key;
	__u32 mmap_len;
	__u32 db_offset;
};

/* CREATE_QP */
struct orca_create_qp_req {
	__u32 comp_mask;	/* ORCA_QUEUE_REQ_* */
	__u32 reserved;
	__aligned_u64 buf_addr;	/* USER_BUF: the SQ ring, then the RQ ring */
	__aligned_u64 buf_len;
};

struct orca_create_qp_resp {
	__u32 comp_mask;
	__u32 qpn;
	__u32 sq_depth;		/* ring entries */
	__u32 sq_stride;	/* bytes per send WQE */
	__u32 rq_depth;		/* 0 with an SRQ */
	__u32 rq_stride;
	__u32 max_inline;
	__u32 sq_offset;	/* offsets within the mapping (the buffer) */
	__u32 rq_offset;
	__u32 db_offset;	/* SQ record; the RQ record follows it */
	__aligned_u64 mmap_key;
	__u32 mmap_len;
	__u32 reserved;
};

/* CREATE_SRQ */
struct orca_create_srq_req {
	__u32 comp_mask;	/* ORCA_QUEUE_REQ_* */
	__u32 reserved;
	__aligned_u64 buf_addr;
	__aligned_u64 buf_len;
};

struct orca_create_srq_resp {
	__u32 comp_mask;
	__u32 srqn;
	__u32 depth;
	__u32 stride;
	__aligned_u64 mmap_key;
	__u32 mmap_len;
	__u32 db_offset;
};

/*
 * Device memory (interface 1.4): UVERBS_METHOD_DM_ALLOC is an ioctl, so
 * orca.ko answers through a driver attribute of its own instead of
 * udata: the mmap key (offset for mmap() on the uverbs fd) of the
 * allocation, which is mapped from its first byte, rounded up to whole
 * pages.  The attribute is mandatory: ORCA_IB_ATTR_ALLOC_DM_RESP_MMAP_KEY
 * is the first id of the driver namespace (1 << UVERBS_ID_NS_SHIFT of
 * rdma/ib_user_ioctl_cmds.h), a __u64 the kernel writes.
 */
#define ORCA_IB_ATTR_ALLOC_DM_RESP_MMAP_KEY	0x1000

/*
 * Importing a DM (ibv_import_dm(3)) into another context on the same
 * ucontext (ibv_import_device(3)): ORCA_IB_METHOD_DM_QUERY, the first
 * method of UVERBS_OBJECT_DM in the driver namespace, answers what
 * DM_ALLOC gave the allocating context.  Its attributes, all mandatory:
 *   ORCA_IB_ATTR_QUERY_DM_HANDLE         the DM's handle (an object
 *                                        attribute, read access)
 *   ORCA_IB_ATTR_QUERY_DM_RESP_MMAP_KEY  __u64: the allocation's mmap key,
 *                                        as ORCA_IB_ATTR_ALLOC_DM_RESP_MMAP_KEY
 *   ORCA_IB_ATTR_QUERY_DM_RESP_LENGTH    __u64: the length asked at
 *                                        allocation (the mapping is that
 *                                        rounded up to whole pages)
 * A handle that names no object of the ucontext is ENOENT (ib_core's
 * answer), one that names an object other than a DM EINVAL.
 * The ids are enumerators, not macros, as the kernel's method
 * declarations paste them into names.
 */
enum orca_ib_dm_methods {
	ORCA_IB_METHOD_DM_QUERY = 0x1000,
};

enum orca_ib_query_dm_attrs {
	ORCA_IB_ATTR_QUERY_DM_HANDLE = 0x1000,
	ORCA_IB_ATTR_QUERY_DM_RESP_MMAP_KEY,
	ORCA_IB_ATTR_QUERY_DM_RESP_LENGTH,
};

/*
 * The kick of a user QP: after posting, a process that found POLLING
 * clear in a queue's doorbell record asks the driver to ring the QP
 * doorbell register on its behalf.  ORCA_IB_METHOD_QP_KICK, the first
 * method of UVERBS_OBJECT_QP in the driver namespace, does that and
 * nothing else: no work request, no udata, no response.  Its one
 * attribute, mandatory:
 *   ORCA_IB_ATTR_QP_KICK_HANDLE  the QP's handle (an object attribute,
 *                                read access)
 * A handle that names no object of the ucontext is ENOENT, one that
 * names an object other than a QP EINVAL, a QP being destroyed at the
 * same time EBUSY, any handle after the device is gone EIO (ib_core's
 * answers); a QP with no queue of the process's own (an XRC target) is
 * EINVAL.  The same kick, for either queue, is also the zero-WR uverbs
 * POST_SEND or POST_RECV command (EINVAL for an XRC target too), which
 * a provider for a driver without the method (no ORCA_UCTX_RESP_QP_KICK)
 * sends; the method is the cheaper of the two (no command to unmarshal,
 * no allocation).
 */
enum orca_ib_qp_methods {
	ORCA_IB_METHOD_QP_KICK = 0x1000,
};

enum orca_ib_qp_kick_attrs {
	ORCA_IB_ATTR_QP_KICK_HANDLE = 0x1000,
};

/*
 * UVERBS_METHOD_QUERY_CONTEXT (ibv_import_device(3)) answers the
 * ALLOC_UCONTEXT response, struct orca_alloc_ucontext_resp, again in
 * this mandatory driver attribute.
 */
#define ORCA_IB_ATTR_QUERY_CONTEXT_RESP		0x1000

/* CREATE_AH: no device command; the response is the address vector. */
struct orca_create_ah_resp {
	__u32 comp_mask;	/* no bits defined yet */
	__u32 reserved;
	struct orca_av av;
};

#endif /* ORCA_ABI_USER_H */
