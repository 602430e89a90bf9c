/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * orca_soft: the Orca HCA implemented in software.
 *
 * Each instance is one Orca function attached to one Ethernet netdev.  It
 * behaves as the hardware interface specifies (Documentation/): a
 * register block, an admin command processor that reads commands from
 * and writes completions to host memory by DMA address, an async event
 * queue, and interrupt vectors.  The driver, orca.ko, finds it on the
 * auxiliary bus and never calls into this module except through the bus
 * device's notify hook.
 *
 *   orca_soft_main.c   module, "rdma link add ... type orca", instances,
 *                      netdev tracking, interrupt vectors
 *   orca_soft_regs.c   register block, enable/disable, DMA access, event
 *                      queue and interrupt delivery
 *   orca_soft_admin.c  the admin command processor: dispatch, device,
 *                      port, statistics, protection domains, reset
 *   orca_soft_mr.c     memory regions (REG_MR/DEREG_MR)
 *   orca_soft_pbl.c    page lists (REG_MR's format): regions' and paged
 *                      rings'
 *   orca_soft_odp.c    on-demand paging: page states, ODP_UPDATE, page
 *                      faults, QPs waiting for a page
 *   orca_soft_dm.c     device memory (ALLOC_DM/DEALLOC_DM, the aperture)
 *   orca_soft_mw.c     memory windows (ALLOC_MW/DEALLOC_MW, binding,
 *                      invalidation, remote keys through windows)
 *   orca_soft_cq.c     completion event queues and completion queues
 *   orca_soft_qp.c     queue pairs (CREATE/MODIFY/QUERY/DESTROY_QP)
 *   orca_soft_qp_fsm.c the QP state table (pure, tested by KUnit)
 *   orca_soft_srq.c    shared receive queues
 *   orca_soft_ah.c     address handles, the GID table, multicast groups
 *   orca_soft_engine.c the data-path engine thread: kicks, polling,
 *                      timers, error state and flushing, completion EQs
 *   orca_soft_req.c    the requester: send WQEs, local fast path
 *   orca_soft_resp.c   the responder: receive WQEs, RDMA and atomics
 *   orca_soft_comp.c   CQE writer and CQ arm evaluation
 *   orca_soft_mem.c    memory keys, SGE resolution, copies
 *   orca_soft_dp.h     pure data-path arithmetic (tested by KUnit)
 *   orca_soft_wire.c   RoCEv2 packet formats and the ICRC (pure, tested by
 *                      KUnit)
 *   orca_soft_net.c    the port: transmit, the rx_handler and the
 *                      receive queue
 *   orca_soft_frame.c  Ethernet/IP/UDP framing of RoCEv2 packets (pure,
 *                      tested by KUnit)
 *   orca_soft_wire_req.c  the requester and completer on the wire (RC
 *                      go-back-N, UC, UD datagrams)
 *   orca_soft_wire_resp.c the responder on the wire, the receive dispatch
 *
 * All admin commands and the device reset run on an ordered workqueue,
 * one at a time, each holding the engine semaphore (eng_rwsem) for
 * writing; the engine thread holds it the same way for each bounded
 * batch of data-path work.  The object tables and the reference counts
 * below (users: how many objects refer to this one) therefore need no
 * lock of their own.
 *
 * The shared lane (orca_soft_engine.c) is the one exception: a kick run
 * in the posting task may hold eng_rwsem for reading, with the kicked
 * QP's lock and its local peer's (on the wire, its own alone; a UD QP's
 * datagrams try each local destination's lock in turn), and execute
 * that QP's send queue while other tasks do the same with other QPs;
 * the engine thread takes received packets for RC, UC and UD QPs the
 * same way, under the lock of the QP each is for
 * (orca_soft_wire_rx_shared()).  What they touch beyond those QPs has a
 * lock of its own: a CQ's lock, the engine lists' eng_lock (the wire's
 * timers and owed ACKs included), the event queue locks, a shared
 * receive queue's lock (its consumer side), a FAST_REG region's
 * pin_lock (its key registered and invalidated by REG_MR, LOCAL_INV and
 * SEND with invalidate, while the lanes that copy through it hold pins:
 * orca_soft_mem.c); counters are per CPU, scratch space is per QP.
 * A QP that owes READ responses on the wire sends them in the lane
 * too, under its own lock, and the engine thread's shared passes let
 * RC and UC QPs' timers go off (a local RNR or ACK wait ended, the
 * wire's ACK timer and RNR wait) under the lock of the QP each is for.
 * Anything else (memory windows bound or invalidated, on-demand paging,
 * the GSI QP, multicast, XRC, the QPs of an SRQ that broke) is left to
 * the exclusive holders of eng_rwsem.
 *
 * The device never reclaims host memory.  Since on-demand paging, the
 * host's reclaim may wait for the device: an MMU notifier of orca.ko
 * issues ODP_UPDATE UNMAP and sleeps until the command completes.  If a
 * context that holds eng_rwsem (an admin command, the engine thread, a
 * kick run inline), or the admin work itself, entered direct reclaim,
 * reclaim could call that notifier, which would wait for a command only
 * this very context (or one blocked on the mutex it holds) can execute:
 * a deadlock, ended only by the driver declaring its admin queue dead.
 * So these contexts run with PF_MEMALLOC (memalloc_noreclaim_save()),
 * which keeps the allocations in them, the kernel's own included, out
 * of direct reclaim.  It does not keep a larger-than-a-page allocation
 * out of direct compaction, which migrates pages and calls the notifier
 * too: the allocations of this module therefore never allow direct
 * reclaim at all (ORCA_SOFT_GFP), and tables that may be large are
 * vmalloc()ed from single pages (orca_soft_table_alloc()).  They also
 * add __GFP_NOMEMALLOC, so PF_MEMALLOC does not open the emergency
 * reserves to them: those belong to reclaim, and commands userspace
 * asks for fail with NO_RESOURCES instead (a packet that finds no
 * memory is dropped and retransmitted, as on a congested link).  The admin
 * workqueue has a rescuer (WQ_MEM_RECLAIM), so a command the notifier
 * waits for runs even when no worker can be created.
 */
#ifndef ORCA_SOFT_H
#define ORCA_SOFT_H

#include <linux/etherdevice.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/overflow.h>
#include <linux/platform_device.h>
#include <linux/rwsem.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "orca_bus.h"
#include "orca_hw.h"
#include "orca_ring.h"
#include "orca_soft_net.h"

#define ORCA_SOFT_NUM_VECTORS	4
#define ORCA_SOFT_AQ_MAX_LOG2	10
#define ORCA_SOFT_EQ_MAX_LOG2	16

/* Device limits, reported by QUERY_DEVICE and enforced by the commands. */
#define ORCA_SOFT_MAX_PD		16384
#define ORCA_SOFT_MAX_EQ		64
#define ORCA_SOFT_MAX_QP		4096
#define ORCA_SOFT_MAX_QPN		(BIT(24) - 1)
#define ORCA_SOFT_GSI_QPN		1
#define ORCA_SOFT_MAX_QP_WR		16384
#define ORCA_SOFT_MAX_SGE		32
/* A receive WQE with the most SGEs an SRQ takes. */
#define ORCA_SOFT_SRQ_WQE_MAX		(ORCA_RECV_WQE_HDR_SIZE + \
					 ORCA_SOFT_MAX_SGE * \
					 sizeof(struct orca_sge))
#define ORCA_SOFT_MAX_CQ		4096
#define ORCA_SOFT_MAX_CQE		65536
#define ORCA_SOFT_MAX_MR		65536
#define ORCA_SOFT_MAX_MR_SIZE		BIT_ULL(40)
#define ORCA_SOFT_MAX_RD_ATOM		16
#define ORCA_SOFT_MAX_SRQ		1024
#define ORCA_SOFT_MAX_SRQ_WR		16384
#define ORCA_SOFT_MAX_XRCD		16384
/* Device memory: the aperture, 64 granules of ORCA_DM_UNIT. */
#define ORCA_SOFT_DM_SIZE		(256 * 1024)
#define ORCA_SOFT_MAX_AH		0x7fffffff
#define ORCA_SOFT_MAX_MCAST_GRP		256
#define ORCA_SOFT_MAX_MCAST_QP		64
#define ORCA_SOFT_MAX_INLINE		960
#define ORCA_SOFT_MAX_FRPL_LEN		512
#define ORCA_SOFT_PAGE_SIZE_CAP		(BIT_ULL(12) | BIT_ULL(21) | BIT_ULL(30))
#define ORCA_SOFT_GID_TBL_LEN		128
#define ORCA_SOFT_MAX_MTU		4096
/* Page lists: level-2 tables are 4 KiB pages of 512 entries. */
#define ORCA_SOFT_PBL_PAGE_SIZE		4096
#define ORCA_SOFT_PBL_ENTRIES		(ORCA_SOFT_PBL_PAGE_SIZE / sizeof(u64))
/* Largest page lists: one level-1 table page, or 512 of them. */
#define ORCA_SOFT_PBL1_MAX		ORCA_SOFT_PBL_ENTRIES
#define ORCA_SOFT_PBL2_MAX		(ORCA_SOFT_PBL_ENTRIES * \
					 ORCA_SOFT_PBL_ENTRIES)
/* Pages of a paged ring (ORCA_RING_PAGE_SIZE). */
#define ORCA_SOFT_RING_PAGE_SHIFT	12
/* Input mailboxes: the input half of a 512-byte admin mailbox. */
#define ORCA_SOFT_MAX_IN_LEN		256
/* Kicks (QP and CQ doorbells) the engine has not picked up yet. */
#define ORCA_SOFT_KICK_FIFO		256
#define ORCA_SOFT_KICK_CQ		BIT(31)
/* A QP doorbell the posting task did not run: a kick for the handover. */
#define ORCA_SOFT_KICK_POSTER		BIT(30)
/* A QP doorbell from a context that can run no queue (orca_soft_engine.c). */
#define ORCA_SOFT_KICK_ATOMIC		BIT(29)
#define ORCA_SOFT_KICK_QP_FLAGS		(ORCA_SOFT_KICK_POSTER | \
					 ORCA_SOFT_KICK_ATOMIC)

/* Allocations in the device's own contexts: see the comment at the top. */
#define ORCA_SOFT_GFP	((GFP_KERNEL & ~__GFP_DIRECT_RECLAIM) | __GFP_NOMEMALLOC)

/*
 * A zeroed table of @n entries of @size bytes for the device's own
 * contexts: one page at most from the slab, larger ones from single
 * pages (vmalloc), so that no allocation needs compaction.  kvfree().
 */
static inline void *orca_soft_table_alloc(size_t n, size_t size)
{
	size_t bytes;

	if (check_mul_overflow(n, size, &bytes))
		return NULL;
	if (bytes <= PAGE_SIZE)
		return kzalloc(bytes, ORCA_SOFT_GFP);
	return __vmalloc(bytes, GFP_KERNEL | __GFP_NOMEMALLOC | __GFP_ZERO);
}

struct orca_soft_dev;
struct orca_soft_req_scratch;
struct orca_soft_resp_scratch;

struct orca_soft_vector {
	struct irq_work work;
	struct orca_soft_dev *sdev;
	int irq;
};

/*
 * The data path's counters, reported by QUERY_STATS: one copy per CPU,
 * counted with orca_soft_count() in any context (the receive handler's
 * softirq included) and summed when read.
 */
enum orca_soft_dp_count {
	ORCA_SOFT_CNT_TX_PACKETS,
	ORCA_SOFT_CNT_TX_BYTES,
	ORCA_SOFT_CNT_RX_PACKETS,
	ORCA_SOFT_CNT_RX_BYTES,
	ORCA_SOFT_CNT_RX_DROPS,		/* not RoCEv2, queue full, no QP */
	ORCA_SOFT_CNT_RX_ICRC_ERRORS,
	ORCA_SOFT_CNT_TX_DROPS,		/* the netdev refused a packet */
	ORCA_SOFT_CNT_RETRANSMITS,	/* request packets sent again */
	ORCA_SOFT_CNT_ACK_TIMEOUTS,
	ORCA_SOFT_CNT_RNR_NAKS_SENT,
	ORCA_SOFT_CNT_RNR_NAKS_RCVD,
	/*
	 * NAKs, four each, by enum orca_aeth_nak: PSN sequence, invalid
	 * request, access, operational.
	 */
	ORCA_SOFT_CNT_NAKS_SENT,
	ORCA_SOFT_CNT_NAKS_RCVD = ORCA_SOFT_CNT_NAKS_SENT + 4,
	ORCA_SOFT_CNT_DUPLICATES = ORCA_SOFT_CNT_NAKS_RCVD + 4,
	ORCA_SOFT_CNT_OUT_OF_SEQUENCE,	/* requests after a PSN gap */
	ORCA_SOFT_CNT_UD_DROPS,		/* datagrams no receive WQE took */
	ORCA_SOFT_NR_DP_COUNTS
};

struct orca_soft_dp_counts {
	u64 n[ORCA_SOFT_NR_DP_COUNTS];
};

/* Live objects and the admin queue's counters, reported by QUERY_STATS. */
struct orca_soft_counts {
	u64 cmds_completed;
	u64 cmds_failed;
	u64 async_events;		/* under orca_soft_dev.lock */
	u32 pds;
	u32 mrs;
	u32 mws;
	u32 cqs;
	u32 qps;
	u32 srqs;
};

struct orca_soft_pd {
	u32 pdn;
	u32 users;			/* MRs, MWs, QPs, SRQs, AHs */
};

struct orca_soft_xrcd {
	u32 xrcdn;
	u32 users;			/* XRC SRQs, XRC_TGT QPs */
};

/* A device memory allocation: granules [first, first + units). */
struct orca_soft_dm {
	u32 first;
	u32 units;
	u32 users;			/* regions */
};

/*
 * Where the ring of a CQ, SQ, RQ or SRQ lies.  addr and levels are what
 * the command gave (ORCA_CQ_CFG_PBL_LEVELS, ORCA_WQ_CFG_PBL_LEVELS).
 * Contiguous (levels 0): byte o of the ring is at addr + o.  Paged
 * (interface 1.7, levels 1 or 2): addr named the page list, which
 * orca_soft_ring_load() copied into pages[] because software may free it
 * once the command has completed; byte o is at pages[o / 4096] + o % 4096
 * (orca_soft_ring_at()).
 */
struct orca_soft_ring {
	u64 addr;
	u64 *pages;			/* paged: npages DMA addresses, else NULL */
	u32 npages;
	u8 levels;
};

/*
 * A completion event queue on an interrupt vector.  prod, cons and armed
 * are under orca_soft_dev.ceq_lock: the EQ doorbell is handled in the
 * notify call, in any context.
 */
struct orca_soft_eq {
	u32 eqn;
	u64 ring_addr;
	u8 log2_depth;
	u8 vector;
	u32 prod;			/* device producer index */
	u32 cons;			/* low 24 bits, from ORCA_REG_EQ_DB */
	bool armed;			/* raise the vector for the next entry */
	u64 overflows;			/* entries dropped: ring full */
	u32 users;			/* CQs */
};

struct orca_soft_cq {
	u32 cqn;
	struct orca_soft_ring ring;
	u64 db_addr;			/* struct orca_db_record */
	u8 log2_depth;
	u8 cqe_size;			/* ORCA_CQE_SIZE or ORCA_CQE64_SIZE */
	struct orca_soft_eq *eq;
	/*
	 * Producing CQEs and judging the arm (orca_soft_comp.c): taken
	 * inside any QP's context, outside ceq_lock.
	 */
	spinlock_t lock;
	u32 prod;			/* device producer index */
	u16 fired_seq;			/* ORCA_CQ_ARM_SEQ of the last arm fired */
	u32 announced;			/* CQEs below this index had an event */
	bool overrun;			/* CQ_ERR reported */
	u32 users;			/* QPs (once per send/recv use) */
};

/* Geometry of a work queue: SQ, RQ or SRQ. */
struct orca_soft_wq {
	struct orca_soft_ring ring;
	u64 db_addr;			/* struct orca_db_record */
	u8 log2_depth;
	u8 log2_stride;
	u8 max_sge;
	u32 cons;			/* device consumer index */
	bool broken;			/* hostile prod seen: QP_FATAL/SRQ_ERR sent */
};

struct orca_soft_srq {
	u32 srqn;
	struct orca_soft_pd *pd;
	struct orca_soft_xrcd *xrcd;	/* XRC SRQ: its domain, else NULL */
	struct orca_soft_cq *cq;	/* XRC SRQ: CQ of its receives */
	struct orca_soft_wq wq;
	/*
	 * The consumer side (wq.cons, wq.broken, limit, err_owed) in the
	 * shared lane: a lane that may take this SRQ's WQEs (its QP's local
	 * peer's SRQ, or a received packet's QP's) holds it for its batch,
	 * so that QPs on one SRQ never take one WQE twice.  Taken after the
	 * QP locks and only tried (a kick spins briefly), never waited for;
	 * the exclusive holders of eng_rwsem need not take it.
	 */
	struct mutex lock;
	u32 limit;			/* armed limit, 0: not armed */
	bool err_owed;			/* broken, its QPs not yet in ERR */
	u32 users;			/* QPs */
};

/*
 * A send WQE the wire requester has started (RC): what is needed to send
 * its packets again and to complete it, copied out of the ring when it
 * was first read.  The SGEs (or inline bytes) stay in the ring slot,
 * which is not free before the WQE completes, and are read again when
 * packets are (re)built.
 */
struct orca_soft_swqe {
	u64 wr_id;
	u64 remote_addr;
	u64 compare_add;
	u64 swap;
	u32 len;
	u32 rkey;
	u32 imm_inv;
	u32 first_psn;
	u32 xrc_srqn;			/* XRC_INI: the target's XRC SRQ */
	u32 npkts;			/* PSNs it takes; 0: executed locally */
	u8 op;				/* ORCA_WQE_OP_* */
	u8 flags;			/* ORCA_WQE_FLAG_* */
	u8 status;			/* npkts 0: its completion status */
};

/* WQEs the wire requester keeps started (a power of 2). */
#define ORCA_SOFT_SWQES			64

/*
 * Requester state of a QP.  On the local fast path a request is
 * answered while it is executed, so nothing is ever outstanding there.
 * On the wire (RC, UC and UD to another host) packets go out from the
 * WQE at "next"; RC keeps them until acknowledged (go-back-N).
 */
struct orca_soft_req {
	u32 sq_psn;			/* PSN of the next request packet */
	u32 outstanding_rd_atomic;	/* READ/ATOMIC requests not answered */
	u8 retry_left;			/* ACK timeouts left for the WQE at cons */
	u8 rnr_retry_left;		/* RNR NAKs left; 7: infinite */
	bool wqe_started;		/* the counters above are loaded */
	u8 wait;			/* enum orca_soft_wait */
	u64 wait_until;			/* ktime (ns) the WQE at cons retries */
	u32 odp_key;			/* WAIT_ODP: the region waited for */
	u32 gid_gen;			/* dest_local is valid for this gen */
	bool dest_local;		/* RC/UC: the AV's dgid is ours */

	/* The wire. */
	u32 next;			/* SQ index of the WQE to send next */
	u32 next_off;			/* bytes of it already sent */
	u32 started;			/* swqe[] is filled below this index */
	u32 fail_idx;			/* failed: the SQ index of that WQE */
	bool failed;			/* a started WQE failed, not yet retired */
	u32 una_psn;			/* oldest PSN not acknowledged */
	u32 max_psn;			/* one past the highest PSN sent */
	u32 gap_psn;			/* READ responses re-requested from */
	u64 timer_at;			/* retransmit deadline (ns), 0: none */
	u64 rnr_until;			/* no request before this time (ns) */
	struct orca_soft_swqe *swqe;	/* RC: ORCA_SOFT_SWQES, by SQ index */
};

/* A READ or atomic the responder executed: replayed for a duplicate. */
struct orca_soft_rres {
	u32 first_psn;
	u32 npkts;
	u64 va;
	u32 rkey;
	u32 len;
	u64 orig;			/* atomic: the value returned */
	u32 xrc_srqn;			/* XRC_TGT READ: the SRQ it named */
	bool xrc_gone;			/* ... destroyed since: no more responses */
	bool atomic;
	bool valid;
};

/*
 * Responder state of a QP.  On the wire a message arrives packet by
 * packet: the receive WQE of a SEND stays at its RQ's cons until its last
 * packet; an RC QP's SRQ WQE is taken off the SRQ when the message first
 * needs it and held by the QP (srq_wqe) until the message completes, so
 * that QPs sharing the SRQ never fill the same WQE.  A WRITE's target is
 * kept from its RETH.
 */
struct orca_soft_resp {
	u32 rq_psn;			/* PSN expected in the next request */
	u32 msn;			/* messages completed (AETH MSN) */

	/* The wire. */
	u8 cur;				/* message in progress: ORCA_WIRE_F_* */
	/*
	 * XRC_TGT: the SRQ number the message's first packet named, and
	 * whether that SRQ still exists (orca_soft_xrc_bind()).
	 */
	u32 xrc_srqn;
	bool xrc_live;
	u32 off;			/* its bytes received so far */
	u64 wr_va;			/* WRITE: RETH */
	u32 wr_rkey;
	u32 wr_len;
	bool nak_sent;			/* PSN sequence NAK sent for rq_psn */
	bool ack_pending;		/* an ACK for rq_psn - 1 is owed */
	struct list_head ack_node;	/* on eng_acks */
	/* READ responses: res[rd_idx] is being sent from rd_psn. */
	struct orca_soft_rres res[ORCA_SOFT_MAX_RD_ATOM];
	u8 res_head;			/* next res[] slot to fill */
	u8 rd_idx;
	bool rd_busy;
	u32 rd_psn;
	/* A NAK owed behind the READ responses queued before it. */
	bool nak_owed;
	bool nak_fatal;			/* it took the QP to ERR */
	u8 nak_syn;
	u32 nak_psn;
	bool srq_held;			/* srq_wqe holds a WQE of the SRQ */
	u8 srq_nsge;			/* its SGEs */
	/*
	 * READ responses wait for a page of region odp_key until it is
	 * mapped or failed, or until odp_until (ns; 0: not waiting).
	 */
	u64 odp_until;
	u32 odp_key;
};

enum orca_soft_wait {
	ORCA_SOFT_WAIT_NONE,
	ORCA_SOFT_WAIT_RNR,		/* RNR NAK: the responder's timer */
	ORCA_SOFT_WAIT_ACK,		/* no answer: local ACK timeout */
	ORCA_SOFT_WAIT_ODP,		/* a page of region req.odp_key */
};

/*
 * The FAST_REG regions a lane resolved for the WQE or packet it is
 * executing, each pinned once (orca_soft_mr.pins): the most one unit
 * resolves is a local SEND of ORCA_SOFT_MAX_SGE SGEs into a receive of
 * as many (on a QP looped to itself, both into one list).
 */
#define ORCA_SOFT_LANE_PINS	(2 * ORCA_SOFT_MAX_SGE + 2)

struct orca_soft_pins {
	u32 n;
	struct orca_soft_mr *mr[ORCA_SOFT_LANE_PINS];
};

/*
 * An XRC_TGT QP owns no PD, CQ or SRQ: pd, recv_cq and srq are those of
 * the XRC SRQ the request being executed names (orca_soft_xrc_bind()),
 * borrowed, not counted in the objects' users.  An XRC_INI QP has no
 * recv_cq.
 */
struct orca_soft_qp {
	u32 qpn;
	u8 type;			/* enum orca_qp_type */
	u8 state;			/* enum orca_qp_state */
	bool sq_sig_all;
	struct orca_soft_pd *pd;
	struct orca_soft_cq *send_cq;
	struct orca_soft_cq *recv_cq;
	struct orca_soft_srq *srq;	/* or NULL: the QP has an RQ */
	struct orca_soft_xrcd *xrcd;	/* XRC_TGT: its domain */
	struct orca_soft_wq sq;
	struct orca_soft_wq rq;
	u32 sq_hdr;			/* bytes before a send WQE's SGEs */
	u32 max_inline;
	u32 attr_set;			/* ORCA_QP_ATTR_* set since RESET */
	struct orca_hw_qp_attr attr;	/* the values set, as MODIFY_QP gave them */
	u32 mcast_attached;		/* groups this QP is attached to */
	u32 windows;			/* type 2 windows bound through it */

	/*
	 * Data path: under eng_rwsem held for writing, or for reading with
	 * @lock (the shared lane).
	 */
	struct mutex lock;
	struct orca_soft_req req;
	struct orca_soft_resp resp;
	u8 *srq_wqe;			/* with an SRQ: ORCA_SOFT_SRQ_WQE_MAX bytes */
	struct orca_soft_req_scratch *req_scr;	/* with an SQ */
	struct orca_soft_resp_scratch *resp_scr;
	struct list_head active_node;	/* on eng_active: polled */
	struct list_head wait_node;	/* on eng_waiting: timer armed */
	struct list_head timer_node;	/* on eng_timers: wire timers armed */
	bool sq_polling;		/* ORCA_DB_DEV_POLLING set in the SQ record */
	u8 kick_repeats;		/* kicks since it last received a request */
	bool kicks_atomic;		/* kicked where no queue can run */
	bool sqd_notify;		/* SQD: QP_SQ_DRAINED owed once drained */

	/*
	 * The shared lane: while a lane holds @lock, the pins of the lane
	 * this QP's keys are resolved into (its own, or its local peer's
	 * requester's); NULL outside a lane.  @pins: those a lane has
	 * taken for this QP's send queue, or its received packets.
	 */
	struct orca_soft_pins *lane_pins;
	struct orca_soft_pins pins;
};

/*
 * An entry of the key table: a memory region, or a memory window
 * (mw_type 1 or 2).  A window is valid while bound; its iova and length
 * are the range remote requests name (0-based for ZERO_BASED), base is
 * where that range starts in the bound region's iova space.
 */
struct orca_soft_mr {
	u32 key;
	struct orca_soft_pd *pd;
	u64 iova;
	u64 length;
	u32 access;			/* ORCA_ACCESS_*, ORCA_ACCESS_MW_BIND */
	u32 flags;			/* ORCA_MR_FLAG_* */
	u8 page_shift;
	u32 num_pages;			/* FAST_REG: capacity of pages[] */
	u64 *pages;			/* DMA address of each page */
	bool valid;			/* FAST_REG: false until registered */
	u32 windows;			/* region: windows bound to it */
	u8 mw_type;			/* 0 for a region, else ORCA_MW_TYPE_* */
	u64 base;			/* window: start in the region */
	struct orca_soft_mr *region;	/* window: bound to, or NULL */
	struct orca_soft_qp *mw_qp;	/* type 2 window: bound through */
	struct orca_soft_dm *dm;	/* ORCA_MR_FLAG_DM: its allocation */
	u64 dm_bus;			/* bus address of the region's byte 0 */
	struct xarray odp;		/* ORCA_MR_FLAG_ODP: page states */
	u16 odp_epoch;			/* failure epoch (1.8); eng_rwsem written */

	/*
	 * FAST_REG regions in the shared lane (orca_soft_mem.c): @key and
	 * @valid change under @pin_lock, @pins counts the lanes that copy
	 * through the translation; a REG_MR claims the region (@busy), with
	 * no pin held, writes the translation outside the lock and then
	 * makes it valid, one more generation (@gen).  Outside the lane
	 * (eng_rwsem written) no pin is held.
	 */
	spinlock_t pin_lock;
	u32 pins;
	u32 gen;
	bool busy;
};

struct orca_soft_gid {
	bool valid;
	u8 gid[16];
	u32 type;			/* enum orca_gid_type */
	u8 mac[ETH_ALEN];
	u16 vlan;
};

struct orca_soft_mcg {
	struct list_head list;
	u8 gid[16];
	u32 nr_qps;
	u32 qpn[ORCA_SOFT_MAX_MCAST_QP];
};

struct orca_soft_dev {
	struct orca_bus_device bdev;	/* the function, as the bus sees it */
	struct list_head list;		/* on orca_soft_devices */
	u32 id;
	struct platform_device *pdev;	/* DMA parent */
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	void *regs;			/* backing memory of bdev.regs */

	int irq_base;
	struct orca_soft_vector vec[ORCA_SOFT_NUM_VECTORS];

	bool ring_pbl;			/* RING_PBL: module parameter at creation */

	/* Control: enable/disable and admin commands, one at a time. */
	struct workqueue_struct *wq;
	struct work_struct engine_work;
	bool netdev_gone;		/* under orca_soft_list_lock */
	bool detach;			/* CTRL.DETACH; under the same lock */

	/* The data-path engine (orca_soft_engine.c). */
	struct rw_semaphore eng_rwsem;	/* engine batches vs admin commands */
	/*
	 * The eng_ lists: changed under eng_rwsem written, or read and
	 * eng_lock (the shared lane).
	 */
	spinlock_t eng_lock;
	/*
	 * A QP the shared lane ran went to ERR: the engine's exclusive pass
	 * has work (set under eng_lock, cleared under eng_rwsem written).
	 */
	bool eng_excl;
	/*
	 * An SRQ broke (err_owed): its QPs go to ERR in the next exclusive
	 * pass (set under eng_lock, cleared under eng_rwsem written).
	 */
	bool srq_err_owed;
	/*
	 * Until then (jiffies_64) no poster's QP is handed to the engine
	 * thread: it found no CPU of its own (orca_soft_engine_give_back();
	 * written under eng_rwsem written, read under eng_rwsem).
	 */
	u64 handover_at;
	struct task_struct *eng_task;	/* under kick_lock */
	bool eng_idle;			/* asleep, wants a wake-up; kick_lock */
	u64 eng_sleep_until;		/* ... until then, U64_MAX: a kick */
	spinlock_t kick_lock;		/* kick FIFO; taken in notify */
	u32 kick_fifo[ORCA_SOFT_KICK_FIFO];
	u32 kick_head;
	u32 kick_tail;
	bool kick_rescan;		/* FIFO overflowed: look at everything */
	struct sk_buff_head rxq;	/* received packets for the engine */
	/*
	 * The engine thread's packet in hand: one the shared lane left for
	 * the exclusive pass (skb set) is taken first.
	 */
	struct orca_soft_rx rx_held;
	/*
	 * The earliest deadline (a wire timer, a local wait) armed since
	 * the engine thread last judged the timers (lowered under eng_lock,
	 * reset under it or eng_rwsem written; a u64, U64_MAX for none): a
	 * lane may arm one meanwhile.
	 */
	atomic64_t eng_timer_min;
	bool rx_attached;		/* our rx_handler is on netdev */
	struct list_head eng_active;	/* QPs being polled */
	struct list_head eng_waiting;	/* QPs waiting for a timer */
	struct list_head eng_timers;	/* QPs with a wire timer armed */
	struct list_head eng_acks;	/* QPs owing an ACK */
	u32 gid_gen;			/* bumped on every GID table change */
	spinlock_t ceq_lock;		/* completion EQ state, ceq[] */
	struct orca_soft_eq *ceq[ORCA_SOFT_MAX_EQ + 1];
	u32 odp_fault_key;		/* region of the last page fault */
	u32 odp_mrs;			/* on-demand-paging regions (admin) */

	struct orca_soft_dp_counts __percpu *dp_counts;	/* data path */

	spinlock_t lock;		/* enabled, fatal, aeq */
	bool enabled;
	bool fatal;

	/* Admin queue, latched when the device is enabled. */
	u64 aq_sq_base;
	u64 aq_cq_base;
	u8 aq_log2_depth;
	u8 aq_vector;
	bool aq_irq_en;
	u32 aq_sq_cons;
	u32 aq_cq_prod;

	/* Async event queue, latched when the device is enabled. */
	u64 aeq_base;
	u8 aeq_log2_depth;
	u8 aeq_vector;
	u32 aeq_prod;
	u32 aeq_cons;			/* low 24 bits, from the doorbell */
	bool aeq_armed;
	u64 aeq_overflows;

	/* Device resources (see orca_soft_admin_reset()). */
	struct xarray pds;		/* struct orca_soft_pd, by pdn */
	struct xarray eqs;		/* struct orca_soft_eq, by eqn */
	struct xarray mrs;		/* struct orca_soft_mr, by key index */
	struct xarray cqs;		/* struct orca_soft_cq, by cqn */
	struct xarray qps;		/* struct orca_soft_qp, by qpn */
	struct xarray srqs;		/* struct orca_soft_srq, by srqn */
	struct xarray xrcds;		/* struct orca_soft_xrcd, by xrcdn */
	/* Device memory (orca_soft_dm.c): the aperture and its allocations. */
	struct page *dm_pages;
	void *dm_va;
	DECLARE_BITMAP(dm_used, ORCA_SOFT_DM_SIZE / ORCA_DM_UNIT);
	struct orca_soft_dm *dms[ORCA_SOFT_DM_SIZE / ORCA_DM_UNIT];
	u32 qpn_next;			/* cyclic QPN allocation */
	u32 cqn_next;			/* cyclic CQN allocation */
	struct orca_soft_gid gids[ORCA_SOFT_GID_TBL_LEN];
	struct list_head mcgs;		/* struct orca_soft_mcg */
	u32 nr_mcgs;
	struct orca_soft_counts counts;
};

static inline void orca_soft_count(struct orca_soft_dev *sdev,
				   enum orca_soft_dp_count c, u64 n)
{
	this_cpu_add(sdev->dp_counts->n[c], n);
}

u64 orca_soft_dp_total(struct orca_soft_dev *sdev, enum orca_soft_dp_count c);

/* RC transport: RC, and both halves of XRC. */
static inline bool orca_soft_qp_is_rc(const struct orca_soft_qp *qp)
{
	return qp->type == ORCA_QPT_RC || qp->type == ORCA_QPT_XRC_INI ||
	       qp->type == ORCA_QPT_XRC_TGT;
}

/* An XRC_TGT QP has no send queue. */
static inline bool orca_soft_qp_has_sq(const struct orca_soft_qp *qp)
{
	return qp->type != ORCA_QPT_XRC_TGT;
}

/* A receive queue of its own: not with an SRQ, never on XRC QPs. */
static inline bool orca_soft_qp_has_rq(const struct orca_soft_qp *qp)
{
	return !qp->srq && qp->type != ORCA_QPT_XRC_INI &&
	       qp->type != ORCA_QPT_XRC_TGT;
}

static inline struct orca_soft_dev *bdev_to_sdev(struct orca_bus_device *b)
{
	return container_of(b, struct orca_soft_dev, bdev);
}

static inline struct device *sdev_dev(struct orca_soft_dev *sdev)
{
	return &sdev->pdev->dev;
}

static_assert(BIT(ORCA_SOFT_RING_PAGE_SHIFT) == ORCA_RING_PAGE_SIZE);

/*
 * The DMA address of byte @off of @ring, which is below the ring's size
 * (its depth times its entry size).  The page list was copied at the
 * command, so a paged ring costs the data path a shift and an array
 * index.  Entries are powers of two of at most 1024 bytes and never
 * cross a page: an address inside an entry may be computed from the
 * entry's.
 */
static inline u64 orca_soft_ring_at(const struct orca_soft_ring *ring,
				    u64 off)
{
	if (!ring->pages)
		return ring->addr + off;
	return ring->pages[off >> ORCA_SOFT_RING_PAGE_SHIFT] +
	       (off & (ORCA_RING_PAGE_SIZE - 1));
}

/* The entry of @size bytes at free-running position @idx of @ring. */
static inline u64 orca_soft_ring_entry(const struct orca_soft_ring *ring,
				       u32 idx, u8 log2_depth, u32 size)
{
	return orca_soft_ring_at(ring,
				 (u64)orca_ring_slot(idx, log2_depth) * size);
}

/* The CQE at free-running position @idx of @cq. */
static inline u64 orca_soft_cqe_addr(const struct orca_soft_cq *cq, u32 idx)
{
	return orca_soft_ring_entry(&cq->ring, idx, cq->log2_depth,
				    cq->cqe_size);
}

/* The WQE slot at free-running position @idx of @wq. */
static inline u64 orca_soft_wq_slot(const struct orca_soft_wq *wq, u32 idx)
{
	return orca_soft_ring_at(&wq->ring,
				 (u64)orca_ring_slot(idx, wq->log2_depth) <<
				 wq->log2_stride);
}

/* Bytes of the ring of @wq. */
static inline u64 orca_soft_wq_bytes(const struct orca_soft_wq *wq)
{
	return BIT_ULL(wq->log2_depth + wq->log2_stride);
}

/* orca_soft_regs.c */
void orca_soft_regs_init(struct orca_soft_dev *sdev);
u32 orca_soft_reg_read(struct orca_soft_dev *sdev, u32 reg);
void orca_soft_reg_write(struct orca_soft_dev *sdev, u32 reg, u32 val);
void orca_soft_notify(struct orca_bus_device *bdev, u32 reg, u32 val);
void orca_soft_detach_request(struct orca_soft_dev *sdev);
enum orca_hw_port_state orca_soft_port_state(struct net_device *ndev);
void orca_soft_engine_work(struct work_struct *work);
void orca_soft_disable(struct orca_soft_dev *sdev);
void orca_soft_raise_irq(struct orca_soft_dev *sdev, u8 vector);
int orca_soft_dma_read(struct orca_soft_dev *sdev, u64 addr, void *buf,
		       size_t len);
int orca_soft_dma_write(struct orca_soft_dev *sdev, u64 addr,
			const void *buf, size_t len);
int orca_soft_dma_write32(struct orca_soft_dev *sdev, u64 addr, u32 val);
void orca_soft_post_event(struct orca_soft_dev *sdev, u8 type, u64 data);
void orca_soft_post_event_aux(struct orca_soft_dev *sdev, u8 type, u64 data,
			      u32 aux, u32 info);
void orca_soft_set_fatal(struct orca_soft_dev *sdev, const char *why);

/* What a command returns besides its status. */
struct orca_soft_cmd_out {
	u64 result;
	u16 syndrome;
};

/* orca_soft_admin.c */
void orca_soft_admin_process(struct orca_soft_dev *sdev);
void orca_soft_admin_reset(struct orca_soft_dev *sdev);
void orca_soft_admin_init(struct orca_soft_dev *sdev);
bool orca_soft_rsvd_clear(const void *rsvd, size_t len);
u8 orca_soft_put_output(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd, const void *out,
			size_t len);
u8 orca_soft_get_input(struct orca_soft_dev *sdev, u64 in_addr, u32 in_len,
		       void *in, size_t len);
struct orca_soft_pd *orca_soft_pd_find(struct orca_soft_dev *sdev, u32 pdn);
u32 orca_soft_cap_flags(struct orca_soft_dev *sdev);
struct orca_soft_xrcd *orca_soft_xrcd_find(struct orca_soft_dev *sdev,
					   u32 xrcdn);
bool orca_soft_vlan_ok(u16 vlan);
u32 orca_soft_active_mtu(struct net_device *ndev);

/* orca_soft_mr.c */
u8 orca_soft_reg_mr(struct orca_soft_dev *sdev, const union orca_aq_cmd *cmd,
		    struct orca_soft_cmd_out *out);
u8 orca_soft_dereg_mr(struct orca_soft_dev *sdev,
		      const union orca_aq_cmd *cmd);
void orca_soft_mr_reset(struct orca_soft_dev *sdev);

/* orca_soft_pbl.c */
u8 orca_soft_pbl_read(struct orca_soft_dev *sdev, u64 pbl_addr, u8 levels,
		      u32 n, u64 align, u64 *dst);
bool orca_soft_ring_ok(struct orca_soft_dev *sdev,
		       const struct orca_soft_ring *ring, u64 bytes);
u8 orca_soft_ring_load(struct orca_soft_dev *sdev, struct orca_soft_ring *ring,
		       u64 bytes);
void orca_soft_ring_release(struct orca_soft_ring *ring);

/* orca_soft_odp.c */
u8 orca_soft_odp_update(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd);
void orca_soft_odp_mr_init(struct orca_soft_mr *mr);
void orca_soft_odp_mr_fini(struct orca_soft_mr *mr);
void orca_soft_odp_wake(struct orca_soft_dev *sdev, u32 key);

/* orca_soft_dm.c */
int orca_soft_dm_init(struct orca_soft_dev *sdev);
void orca_soft_dm_fini(struct orca_soft_dev *sdev);
u64 orca_soft_dm_bus(struct orca_soft_dev *sdev, u64 off);
u8 orca_soft_alloc_dm(struct orca_soft_dev *sdev,
		      const union orca_aq_cmd *cmd,
		      struct orca_soft_cmd_out *out);
u8 orca_soft_dealloc_dm(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd);
struct orca_soft_dm *orca_soft_dm_range(struct orca_soft_dev *sdev, u64 off,
					u64 len);
void orca_soft_dm_reset(struct orca_soft_dev *sdev);

/* orca_soft_mw.c */
u8 orca_soft_alloc_mw(struct orca_soft_dev *sdev,
		      const union orca_aq_cmd *cmd,
		      struct orca_soft_cmd_out *out);
u8 orca_soft_dealloc_mw(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd);
void orca_soft_mw_qp_gone(struct orca_soft_dev *sdev, struct orca_soft_qp *qp);

/* orca_soft_cq.c */
u8 orca_soft_create_eq(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd,
		       struct orca_soft_cmd_out *out);
u8 orca_soft_destroy_eq(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd);
u8 orca_soft_create_cq(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd,
		       struct orca_soft_cmd_out *out);
u8 orca_soft_resize_cq(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd,
		       struct orca_soft_cmd_out *out);
u8 orca_soft_destroy_cq(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd);
struct orca_soft_cq *orca_soft_cq_find(struct orca_soft_dev *sdev, u32 cqn);
void orca_soft_cq_reset(struct orca_soft_dev *sdev);

/* orca_soft_srq.c */
u8 orca_soft_wq_cfg(u32 cfg, u32 hdr, struct orca_soft_wq *wq);
u8 orca_soft_create_srq(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd,
			struct orca_soft_cmd_out *out);
u8 orca_soft_modify_srq(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd);
u8 orca_soft_query_srq(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd);
u8 orca_soft_destroy_srq(struct orca_soft_dev *sdev,
			 const union orca_aq_cmd *cmd);
struct orca_soft_srq *orca_soft_srq_find(struct orca_soft_dev *sdev,
					 u32 srqn);
int orca_soft_srq_err_spread(struct orca_soft_dev *sdev);
void orca_soft_srq_reset(struct orca_soft_dev *sdev);
void orca_soft_xrc_srq_gone(struct orca_soft_dev *sdev,
			    struct orca_soft_srq *srq);
bool orca_soft_xrc_bind(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
			u32 srqn, bool first);

/* orca_soft_qp.c */
u8 orca_soft_create_qp(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd,
		       struct orca_soft_cmd_out *out);
u8 orca_soft_modify_qp(struct orca_soft_dev *sdev,
		       const union orca_aq_cmd *cmd);
u8 orca_soft_query_qp(struct orca_soft_dev *sdev,
		      const union orca_aq_cmd *cmd);
u8 orca_soft_destroy_qp(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd);
/* Datagram QPs: UD and the GSI QP, whose send WQEs carry an AV. */
static inline bool orca_soft_qp_is_ud(const struct orca_soft_qp *qp)
{
	return qp->type == ORCA_QPT_UD || qp->type == ORCA_QPT_GSI;
}

struct orca_soft_qp *orca_soft_qp_find(struct orca_soft_dev *sdev, u32 qpn);
void orca_soft_qp_reset(struct orca_soft_dev *sdev);

/* orca_soft_engine.c */
int orca_soft_engine_start(struct orca_soft_dev *sdev);
void orca_soft_engine_stop(struct orca_soft_dev *sdev);
void orca_soft_engine_dump(struct orca_soft_dev *sdev);
void orca_soft_engine_init(struct orca_soft_dev *sdev);
void orca_soft_kick(struct orca_soft_dev *sdev, u32 entry);
void orca_soft_engine_wake(struct orca_soft_dev *sdev);
void orca_soft_doorbell(struct orca_soft_dev *sdev, u32 entry);
void orca_soft_eq_doorbell(struct orca_soft_dev *sdev, u32 val);
bool orca_soft_eq_post(struct orca_soft_dev *sdev, struct orca_soft_eq *eq,
		       u32 cqn);
void orca_soft_eq_publish(struct orca_soft_dev *sdev, struct orca_soft_eq *eq,
			  bool add);
void orca_soft_sqd_check(struct orca_soft_dev *sdev, struct orca_soft_qp *qp);
void orca_soft_qp_activate(struct orca_soft_dev *sdev,
			   struct orca_soft_qp *qp);
void orca_soft_qp_answers(struct orca_soft_dev *sdev, struct orca_soft_qp *qp);
void orca_soft_qp_set_err(struct orca_soft_dev *sdev, struct orca_soft_qp *qp);
void orca_soft_qp_modified(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
			   u8 cur, u32 mask);
void orca_soft_qp_unlink(struct orca_soft_qp *qp);
void orca_soft_qp_wait(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
		       u8 kind, u64 delay_ns);
int orca_soft_wq_set_flags(struct orca_soft_dev *sdev,
			   const struct orca_soft_wq *wq, u32 flags);
int orca_soft_dma_read32(struct orca_soft_dev *sdev, u64 addr, u32 *val);
void orca_soft_wq_fatal(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
			struct orca_soft_wq *wq);

/* orca_soft_comp.c */
struct orca_soft_cqe_info {
	u64 wr_id;
	u32 byte_len;
	u32 imm_inv;
	u32 qpn;
	u32 src_qp;
	u8 opcode;			/* enum orca_cqe_opcode */
	u8 flags;			/* ORCA_CQE_FLAG_* */
	u8 status;			/* enum orca_cqe_status */
};

void orca_soft_cq_complete(struct orca_soft_dev *sdev,
			   struct orca_soft_cq *cq,
			   const struct orca_soft_cqe_info *ci);
void orca_soft_cq_doorbell(struct orca_soft_dev *sdev, u32 cqn);

/* orca_soft_req.c */
int orca_soft_sq_run(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
		     int budget);
u8 orca_soft_wqe_cqe_opcode(u8 wqe_opcode);

/* orca_soft_resp.c: see orca_soft_engine.h */

/* orca_soft_ah.c */
u8 orca_soft_add_gid(struct orca_soft_dev *sdev,
		     const union orca_aq_cmd *cmd);
u8 orca_soft_del_gid(struct orca_soft_dev *sdev,
		     const union orca_aq_cmd *cmd);
u8 orca_soft_attach_mcast(struct orca_soft_dev *sdev,
			  const union orca_aq_cmd *cmd);
void orca_soft_mcast_detach_qp(struct orca_soft_dev *sdev,
			       struct orca_soft_qp *qp);
u8 orca_soft_detach_mcast(struct orca_soft_dev *sdev,
			  const union orca_aq_cmd *cmd);
bool orca_soft_sgid_ok(struct orca_soft_dev *sdev, u32 sgid_index);
bool orca_soft_gid_is_local(struct orca_soft_dev *sdev, const u8 *gid);
bool orca_soft_gid_is_mcast(const u8 *gid);
struct orca_soft_mcg *orca_soft_mcg_find(struct orca_soft_dev *sdev,
					 const u8 *gid);
void orca_soft_ah_reset(struct orca_soft_dev *sdev);

#endif /* ORCA_SOFT_H */
