/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Orca HCA hardware interface: register map, admin queue, event queue and
 * command formats.
 *
 * This header is the single declaration of the formats specified in
 * Documentation/orca-hw-interface.rst.  The driver (drivers/orca) and the
 * software implementation of the device (drivers/orca_soft) both include
 * it.  All in-memory formats are little-endian; sub-word fields are
 * declared as masks for FIELD_PREP()/FIELD_GET().
 */
#ifndef ORCA_HW_H
#define ORCA_HW_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>
#include <rdma/orca-abi.h>

/* ---------------------------------------------------------------------
 * Register block (BAR 0).  All registers are 32 bits wide.
 */
#define ORCA_REG_BLOCK_SIZE		0x1000

#define ORCA_REG_ID			0x000	/* RO: ORCA_ID_MAGIC */
#define ORCA_REG_VERSION		0x004	/* RO: interface version */
#define ORCA_REG_CAPS			0x008	/* RO: queue and vector limits */
#define ORCA_REG_CTRL			0x010	/* RW: device control */
#define ORCA_REG_STATUS			0x014	/* RO: device status */
#define ORCA_REG_AQ_SQ_BASE_LO		0x020	/* RW: admin command ring */
#define ORCA_REG_AQ_SQ_BASE_HI		0x024
#define ORCA_REG_AQ_CQ_BASE_LO		0x028	/* RW: admin completion ring */
#define ORCA_REG_AQ_CQ_BASE_HI		0x02c
#define ORCA_REG_AQ_CFG			0x030	/* RW: admin queue config */
#define ORCA_REG_AQ_SQ_DB		0x034	/* WO: command producer index */
#define ORCA_REG_AEQ_BASE_LO		0x040	/* RW: async event queue */
#define ORCA_REG_AEQ_BASE_HI		0x044
#define ORCA_REG_AEQ_CFG		0x048	/* RW: async event queue config */
#define ORCA_REG_AEQ_DB			0x04c	/* WO: consumer index + arm */
/* Data-path doorbells (interface 1.1). */
#define ORCA_REG_QP_DB			0x050	/* WO: ORCA_QP_DB_QPN */
#define ORCA_REG_CQ_DB			0x054	/* WO: ORCA_CQ_DB_CQN */
#define ORCA_REG_EQ_DB			0x058	/* WO: completion EQ cons + arm */

#define ORCA_ID_MAGIC			0x4f524341	/* "ORCA" */

#define ORCA_VERSION_MAJOR		GENMASK(31, 16)
#define ORCA_VERSION_MINOR		GENMASK(15, 0)
#define ORCA_IFACE_VERSION_MAJOR	1
#define ORCA_IFACE_VERSION_MINOR	8

#define ORCA_CAPS_NUM_VECTORS		GENMASK(7, 0)
#define ORCA_CAPS_AQ_MAX_LOG2		GENMASK(15, 8)
#define ORCA_CAPS_EQ_MAX_LOG2		GENMASK(23, 16)

#define ORCA_CTRL_ENABLE		BIT(0)
#define ORCA_CTRL_DETACH		BIT(1)

#define ORCA_STATUS_READY		BIT(0)
#define ORCA_STATUS_FATAL		BIT(1)

#define ORCA_AQ_CFG_LOG2_DEPTH		GENMASK(4, 0)
#define ORCA_AQ_CFG_VECTOR		GENMASK(15, 8)
#define ORCA_AQ_CFG_IRQ_EN		BIT(16)

#define ORCA_AEQ_CFG_LOG2_DEPTH		GENMASK(4, 0)
#define ORCA_AEQ_CFG_VECTOR		GENMASK(15, 8)

#define ORCA_AEQ_DB_CONS_IDX		GENMASK(23, 0)
#define ORCA_AEQ_DB_ARM			BIT(31)

/*
 * QP doorbell: "QP qpn has new work the device may not be polling for".
 * Written after a poster updated the prod index of the QP's SQ or RQ
 * doorbell record and found ORCA_DB_DEV_POLLING clear in that record
 * (uapi/rdma/orca-abi.h).  The device then looks at both queues of the
 * QP.  Writes for unknown QPNs are ignored.
 */
#define ORCA_QP_DB_QPN			GENMASK(23, 0)

/*
 * CQ doorbell: "CQ cqn's arm word changed while completions may already
 * be waiting".  The device re-evaluates the arm word of the CQ's doorbell
 * record against the entries between the record's cons and its own
 * producer index, and raises the completion event at once if one of them
 * satisfies the arm.  Writes for unknown CQNs are ignored.
 */
#define ORCA_CQ_DB_CQN			GENMASK(23, 0)

/*
 * Completion EQ doorbell: the driver consumed EQ eqn up to CONS_IDX; with
 * ARM the device raises the EQ's vector once for the next entry, at once
 * if entries past CONS_IDX are already there.  An EQ starts disarmed.
 */
#define ORCA_EQ_DB_CONS_IDX		GENMASK(23, 0)
#define ORCA_EQ_DB_EQN			GENMASK(30, 24)
#define ORCA_EQ_DB_ARM			BIT(31)

/* Ring base addresses must be aligned to this. */
#define ORCA_RING_ALIGN			64

/* ---------------------------------------------------------------------
 * Admin queue: command ring entries (64 bytes) written by the driver,
 * completion ring entries (16 bytes) written by the device.
 */
enum orca_aq_opcode {
	ORCA_CMD_QUERY_DEVICE		= 0x01,
	ORCA_CMD_QUERY_PORT		= 0x02,
	ORCA_CMD_QUERY_STATS		= 0x03,
	ORCA_CMD_CREATE_EQ		= 0x04,
	ORCA_CMD_DESTROY_EQ		= 0x05,
	ORCA_CMD_ALLOC_PD		= 0x10,
	ORCA_CMD_DEALLOC_PD		= 0x11,
	ORCA_CMD_REG_MR			= 0x12,
	ORCA_CMD_DEREG_MR		= 0x13,
	ORCA_CMD_ALLOC_MW		= 0x14,
	ORCA_CMD_DEALLOC_MW		= 0x15,
	ORCA_CMD_ALLOC_XRCD		= 0x16,
	ORCA_CMD_DEALLOC_XRCD		= 0x17,
	ORCA_CMD_ALLOC_DM		= 0x18,
	ORCA_CMD_DEALLOC_DM		= 0x19,
	ORCA_CMD_ODP_UPDATE		= 0x1a,
	ORCA_CMD_CREATE_CQ		= 0x20,
	ORCA_CMD_RESIZE_CQ		= 0x21,
	ORCA_CMD_DESTROY_CQ		= 0x22,
	ORCA_CMD_CREATE_QP		= 0x30,
	ORCA_CMD_MODIFY_QP		= 0x31,
	ORCA_CMD_QUERY_QP		= 0x32,
	ORCA_CMD_DESTROY_QP		= 0x33,
	ORCA_CMD_CREATE_SRQ		= 0x38,
	ORCA_CMD_MODIFY_SRQ		= 0x39,
	ORCA_CMD_QUERY_SRQ		= 0x3a,
	ORCA_CMD_DESTROY_SRQ		= 0x3b,
	/* 0x40, 0x41: CREATE_AH, DESTROY_AH until v1.1; retired (BAD_OPCODE) */
	ORCA_CMD_ADD_GID		= 0x48,
	ORCA_CMD_DEL_GID		= 0x49,
	ORCA_CMD_ATTACH_MCAST		= 0x50,
	ORCA_CMD_DETACH_MCAST		= 0x51,
};

enum orca_aq_status {
	ORCA_AQ_STS_OK			= 0x00,
	ORCA_AQ_STS_BAD_OPCODE		= 0x01,
	ORCA_AQ_STS_BAD_PARAM		= 0x02,
	ORCA_AQ_STS_NO_RESOURCES	= 0x03,
	ORCA_AQ_STS_BAD_HANDLE		= 0x04,
	ORCA_AQ_STS_BAD_STATE		= 0x05,
	ORCA_AQ_STS_BUSY		= 0x06,
	ORCA_AQ_STS_UNSUPPORTED		= 0x07,
	ORCA_AQ_STS_DMA_ERROR		= 0x08,
	ORCA_AQ_STS_INTERNAL		= 0x09,
};

/* Common header of every command. */
struct orca_aq_hdr {
	__le32 op;		/* ORCA_AQ_HDR_OPCODE, ORCA_AQ_HDR_CMD_ID */
	__le32 out_len;		/* bytes the device may write at out_addr */
	__le64 out_addr;	/* DMA address of the output mailbox, or 0 */
};

#define ORCA_AQ_HDR_OPCODE		GENMASK(7, 0)
#define ORCA_AQ_HDR_CMD_ID		GENMASK(31, 16)

#define ORCA_AQ_CMD_SIZE		64
#define ORCA_AQ_CMD_BODY_SIZE		(ORCA_AQ_CMD_SIZE - sizeof(struct orca_aq_hdr))

/* QUERY_DEVICE: output is struct orca_hw_device_attr. */
struct orca_cmd_query_device {
	struct orca_aq_hdr hdr;
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE];
};

/* QUERY_PORT: output is struct orca_hw_port_attr. */
struct orca_cmd_query_port {
	struct orca_aq_hdr hdr;
	__le32 port;		/* 1-based port number */
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE - 4];
};

/* ALLOC_PD: the completion's result carries the new PD number. */
struct orca_cmd_alloc_pd {
	struct orca_aq_hdr hdr;
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE];
};

struct orca_cmd_dealloc_pd {
	struct orca_aq_hdr hdr;
	__le32 pdn;
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE - 4];
};

/*
 * Commands whose input does not fit the 48-byte body pass it in an input
 * mailbox: a host buffer of in_len bytes at in_addr, which the device
 * copies before it validates anything in it.
 */
struct orca_cmd_mbox_in {
	struct orca_aq_hdr hdr;
	__le64 in_addr;
	__le32 in_len;
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE - 12];
};

/*
 * MODIFY_QP: an input mailbox (struct orca_hw_qp_attr) like
 * struct orca_cmd_mbox_in, plus the QP number in the first dword after
 * in_len.
 */
struct orca_cmd_modify_qp {
	struct orca_aq_hdr hdr;
	__le64 in_addr;
	__le32 in_len;
	__le32 qpn;
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE - 16];
};

/*
 * ALLOC_MW (interface 1.3): a memory window of PD pdn, unbound; the
 * completion's result carries its key (ORCA_MR_KEY_INDEX | key_variant).
 */
struct orca_cmd_alloc_mw {
	struct orca_aq_hdr hdr;
	__le32 pdn;
	__le32 type;		/* ORCA_MW_TYPE_* */
	__le32 key_variant;	/* low 8 bits used */
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE - 12];
};

#define ORCA_MW_TYPE_1			1	/* bound by key, to a PD */
#define ORCA_MW_TYPE_2			2	/* type 2B: bound to a QP */

/*
 * ALLOC_XRCD (interface 1.4): an XRC domain; the completion's result
 * carries its number.  DEALLOC_XRCD names it with struct orca_cmd_handle.
 */
struct orca_cmd_alloc_xrcd {
	struct orca_aq_hdr hdr;
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE];
};

/*
 * ALLOC_DM (interface 1.4): length bytes of the device memory aperture
 * (ORCA_DM_UNIT granules), starting at a multiple of 2^log_align (and of
 * ORCA_DM_UNIT), zeroed.  The completion's result is the allocation's
 * number n: it starts at byte (n - 1) * ORCA_DM_UNIT of the aperture.
 * DEALLOC_DM names it with struct orca_cmd_handle.
 */
struct orca_cmd_alloc_dm {
	struct orca_aq_hdr hdr;
	__le64 length;
	__le32 log_align;
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE - 12];
};

#define ORCA_DM_UNIT			4096

/*
 * ODP_UPDATE (interface 1.5): change the state of count pages of the
 * on-demand-paging region key, from page index page on (page i of the
 * region covers [iova & ~0xfff + i * 4096, + 4096)).  MAP reads count
 * (at most ORCA_ODP_MAP_MAX) entries at pbl_addr: ORCA_ODP_PTE_ADDR the
 * page's DMA address, ORCA_ODP_PTE_WRITE whether the device may write
 * it.  UNMAP makes the pages not present, FAIL makes them failed; both
 * need pbl_addr 0.  Since 1.8 (ORCA_HW_DEV_CAP_ODP_EPOCH), FAIL_FAULT
 * answers one ODP_FAULT: it fails the pages only if epoch (ORCA_ODP_EPOCH)
 * is still the region's failure epoch, and otherwise changes nothing.
 * The epoch moves on when an access uses up a failed page and when UNMAP
 * erases the state of a page.  epoch is 0 for the other operations.
 */
enum orca_odp_op {
	ORCA_ODP_MAP			= 1,
	ORCA_ODP_UNMAP			= 2,
	ORCA_ODP_FAIL			= 3,
	ORCA_ODP_FAIL_FAULT		= 4,
};

struct orca_cmd_odp_update {
	struct orca_aq_hdr hdr;
	__le32 key;
	__le32 op;		/* enum orca_odp_op */
	__le64 page;
	__le32 count;
	__le32 epoch;		/* ORCA_ODP_EPOCH; reserved before 1.8 */
	__le64 pbl_addr;
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE - 32];
};

#define ORCA_ODP_EPOCH			GENMASK(15, 0)

#define ORCA_ODP_MAP_MAX		512
#define ORCA_ODP_PTE_WRITE		BIT_ULL(0)
#define ORCA_ODP_PTE_RSVD		GENMASK_ULL(11, 1)
#define ORCA_ODP_PTE_ADDR		GENMASK_ULL(63, 12)

/* Commands that name one object by its handle (DESTROY_*, DEREG_MR, ...). */
struct orca_cmd_handle {
	struct orca_aq_hdr hdr;
	__le32 handle;
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE - 4];
};

/* QUERY_STATS: output is struct orca_hw_stats. */
struct orca_cmd_query_stats {
	struct orca_aq_hdr hdr;
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE];
};

/* CREATE_EQ: a completion event queue on an interrupt vector; result eqn. */
struct orca_cmd_create_eq {
	struct orca_aq_hdr hdr;
	__le64 ring_addr;	/* ORCA_RING_ALIGN aligned */
	__le32 cfg;		/* ORCA_EQ_CFG_LOG2_DEPTH, ORCA_EQ_CFG_VECTOR */
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE - 12];
};

#define ORCA_EQ_CFG_LOG2_DEPTH		GENMASK(4, 0)
#define ORCA_EQ_CFG_VECTOR		GENMASK(15, 8)

/* CREATE_CQ: result cqn. */
struct orca_cmd_create_cq {
	struct orca_aq_hdr hdr;
	__le64 ring_addr;	/* the ring, or its page list (PBL_LEVELS) */
	__le64 db_addr;		/* struct orca_db_record */
	__le32 cfg;		/* ORCA_CQ_CFG_* */
	__le32 eqn;		/* completion EQ for this CQ's events */
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE - 24];
};

#define ORCA_CQ_CFG_LOG2_DEPTH		GENMASK(4, 0)
/* CREATE_CQ only (1.3): 64-byte entries with a completion timestamp. */
#define ORCA_CQ_CFG_CQE64		BIT(8)
/* Since 1.7: 0 a contiguous ring, 1 or 2 a page list (ORCA_RING_PAGE_SIZE). */
#define ORCA_CQ_CFG_PBL_LEVELS		GENMASK(29, 28)

/*
 * Since 1.7 (ORCA_HW_DEV_CAP_RING_PBL): a paged ring lies on 4 KiB pages
 * named by a page list in REG_MR's format, level 1 (at most 512 page
 * addresses) or level 2 (addresses of 4 KiB table pages of 512 each).
 * Byte o of the ring is at page[o / 4096] + o % 4096.
 */
#define ORCA_RING_PAGE_SIZE		4096

/*
 * RESIZE_CQ: move unconsumed entries to a new ring.  db_addr, if not 0,
 * is the CQ's new doorbell record (the new allocation holds one): the
 * device reads cons from the current record, moves the entries, then
 * uses the new ring and record.  0 keeps the current record.
 */
struct orca_cmd_resize_cq {
	struct orca_aq_hdr hdr;
	__le64 ring_addr;
	__le32 cqn;
	__le32 cfg;		/* ORCA_CQ_CFG_LOG2_DEPTH, ORCA_CQ_CFG_PBL_LEVELS */
	__le64 db_addr;		/* struct orca_db_record, or 0 */
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE - 24];
};

/*
 * Address vector fields, as in a QP's av_info and in struct orca_av (the
 * host-memory address vector that UD WQEs carry, uapi/rdma/orca-abi.h).
 */
#define ORCA_AH_FLOW_LABEL		GENMASK(19, 0)
#define ORCA_AH_SGID_INDEX		GENMASK(27, 20)
#define ORCA_AH_SL			GENMASK(31, 28)
#define ORCA_AH_VLAN_NONE		0xffff

static_assert(ORCA_AH_FLOW_LABEL == ORCA_AV_INFO_FLOW_LABEL);
static_assert(ORCA_AH_SGID_INDEX == ORCA_AV_INFO_SGID_INDEX);
static_assert(ORCA_AH_SL == ORCA_AV_INFO_SL);
static_assert(ORCA_AH_VLAN_NONE == ORCA_AV_VLAN_NONE);
static_assert(sizeof(struct orca_av) == ORCA_AV_SIZE);

/* ADD_GID / DEL_GID: entry @index of the port's GID table. */
struct orca_cmd_gid {
	struct orca_aq_hdr hdr;
	u8 gid[16];
	__le32 index;
	__le32 type;		/* enum orca_gid_type */
	u8 mac[6];
	__le16 vlan;		/* 0xffff: untagged */
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE - 32];
};

enum orca_gid_type {
	ORCA_GID_ROCE_V2_IPV4		= 1,
	ORCA_GID_ROCE_V2_IPV6		= 2,
};

/* ATTACH_MCAST / DETACH_MCAST */
struct orca_cmd_mcast {
	struct orca_aq_hdr hdr;
	u8 gid[16];
	__le32 qpn;
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE - 20];
};

/* MODIFY_SRQ: ORCA_SRQ_ATTR_LIMIT arms the limit event. */
struct orca_cmd_modify_srq {
	struct orca_aq_hdr hdr;
	__le32 srqn;
	__le32 attr_mask;	/* ORCA_SRQ_ATTR_* */
	__le32 max_wr;
	__le32 limit;
	u8 rsvd[ORCA_AQ_CMD_BODY_SIZE - 16];
};

#define ORCA_SRQ_ATTR_MAX_WR		BIT(0)
#define ORCA_SRQ_ATTR_LIMIT		BIT(1)

union orca_aq_cmd {
	struct orca_aq_hdr hdr;
	struct orca_cmd_query_device query_device;
	struct orca_cmd_query_port query_port;
	struct orca_cmd_query_stats query_stats;
	struct orca_cmd_alloc_pd alloc_pd;
	struct orca_cmd_dealloc_pd dealloc_pd;
	struct orca_cmd_mbox_in mbox_in;
	struct orca_cmd_modify_qp modify_qp;
	struct orca_cmd_handle handle;
	struct orca_cmd_alloc_mw alloc_mw;
	struct orca_cmd_alloc_xrcd alloc_xrcd;
	struct orca_cmd_alloc_dm alloc_dm;
	struct orca_cmd_odp_update odp_update;
	struct orca_cmd_create_eq create_eq;
	struct orca_cmd_create_cq create_cq;
	struct orca_cmd_resize_cq resize_cq;
	struct orca_cmd_gid gid;
	struct orca_cmd_mcast mcast;
	struct orca_cmd_modify_srq modify_srq;
	u8 raw[ORCA_AQ_CMD_SIZE];
};

static_assert(sizeof(union orca_aq_cmd) == ORCA_AQ_CMD_SIZE);

struct orca_aq_cqe {
	__le64 result;		/* command-specific output, e.g. a handle */
	__le32 info0;		/* ORCA_AQ_CQE_CMD_ID, ORCA_AQ_CQE_SQ_HEAD */
	__le32 info1;		/* ORCA_AQ_CQE_STATUS, ..., ORCA_AQ_CQE_PHASE */
};

#define ORCA_AQ_CQE_CMD_ID		GENMASK(15, 0)
#define ORCA_AQ_CQE_SQ_HEAD		GENMASK(31, 16)
#define ORCA_AQ_CQE_STATUS		GENMASK(7, 0)
#define ORCA_AQ_CQE_SYNDROME		GENMASK(23, 8)
#define ORCA_AQ_CQE_PHASE		BIT(31)

#define ORCA_AQ_CQE_SIZE		16
static_assert(sizeof(struct orca_aq_cqe) == ORCA_AQ_CQE_SIZE);

/* ---------------------------------------------------------------------
 * QUERY_DEVICE output mailbox.
 */
#define ORCA_HW_DEV_CAP_RC		BIT(0)
#define ORCA_HW_DEV_CAP_UC		BIT(1)
#define ORCA_HW_DEV_CAP_UD		BIT(2)
#define ORCA_HW_DEV_CAP_SRQ		BIT(3)
#define ORCA_HW_DEV_CAP_ATOMIC		BIT(4)
#define ORCA_HW_DEV_CAP_FAST_REG	BIT(5)
#define ORCA_HW_DEV_CAP_RNR_NAK		BIT(6)
#define ORCA_HW_DEV_CAP_DETACH		BIT(7)
#define ORCA_HW_DEV_CAP_MW		BIT(8)	/* memory windows, 1.3 */
#define ORCA_HW_DEV_CAP_TIMESTAMP	BIT(9)	/* CQE64 timestamps, 1.3 */
#define ORCA_HW_DEV_CAP_XRC		BIT(10)	/* XRC domains, SRQs, QPs, 1.4 */
#define ORCA_HW_DEV_CAP_DM		BIT(11)	/* device memory, 1.4 */
#define ORCA_HW_DEV_CAP_ODP		BIT(12)	/* on-demand paging, 1.5 */
#define ORCA_HW_DEV_CAP_ODP_IMPLICIT	BIT(13)	/* implicit ODP regions, 1.6 */
#define ORCA_HW_DEV_CAP_RING_PBL	BIT(14)	/* paged rings, 1.7 */
#define ORCA_HW_DEV_CAP_ODP_EPOCH	BIT(15)	/* ODP failure epochs, 1.8 */

/* GUIDs are EUI-64 identifiers, stored in network byte order. */
struct orca_hw_device_attr {
	__le64 fw_version;
	__be64 node_guid;
	__be64 sys_image_guid;
	__le64 max_mr_size;
	__le64 page_size_cap;
	__le32 vendor_id;
	__le32 vendor_part_id;
	__le32 hw_ver;
	__le32 cap_flags;	/* ORCA_HW_DEV_CAP_* */
	__le32 num_ports;
	__le32 max_qp;
	__le32 max_qp_wr;
	__le32 max_sge;
	__le32 max_sge_rd;
	__le32 max_cq;
	__le32 max_cqe;
	__le32 max_mr;
	__le32 max_pd;
	__le32 max_qp_rd_atom;
	__le32 max_qp_init_rd_atom;
	__le32 max_srq;
	__le32 max_srq_wr;
	__le32 max_srq_sge;
	__le32 max_ah;
	__le32 max_mcast_grp;
	__le32 max_mcast_qp_attach;
	__le32 max_inline_data;
	__le32 max_fast_reg_page_list_len;
	__le32 max_pkeys;
	__le32 max_mw;		/* since 1.3 */
	__le32 clock_khz;	/* since 1.3: the completion clock's rate */
	__le32 max_xrcd;	/* since 1.4 */
	__le32 dm_size;		/* since 1.4: bytes of device memory */
	u8 rsvd[104];
};

#define ORCA_HW_DEVICE_ATTR_SIZE	256
static_assert(sizeof(struct orca_hw_device_attr) == ORCA_HW_DEVICE_ATTR_SIZE);

/* ---------------------------------------------------------------------
 * QUERY_PORT output mailbox.
 */
enum orca_hw_port_state {
	ORCA_PORT_DOWN			= 1,
	ORCA_PORT_ACTIVE		= 4,
};

#define ORCA_PORT_INFO_STATE		GENMASK(3, 0)
#define ORCA_PORT_INFO_LINK_UP		BIT(8)

struct orca_hw_port_attr {
	__le32 info;		/* ORCA_PORT_INFO_* */
	__le32 max_mtu;		/* largest RoCE payload MTU, bytes */
	__le32 active_mtu;	/* payload MTU the netdev allows, bytes */
	__le32 gid_tbl_len;
	__le32 pkey_tbl_len;
	__le32 max_msg_sz;
	__le32 netdev_mtu;	/* MTU of the attached Ethernet netdev */
	__le32 rsvd0;
	u8 mac[8];		/* 6 bytes used */
	u8 rsvd[24];
};

#define ORCA_HW_PORT_ATTR_SIZE		64
static_assert(sizeof(struct orca_hw_port_attr) == ORCA_HW_PORT_ATTR_SIZE);

/* ---------------------------------------------------------------------
 * Access rights of MRs and QPs.
 */
#define ORCA_ACCESS_LOCAL_WRITE		BIT(0)
#define ORCA_ACCESS_REMOTE_WRITE	BIT(1)
#define ORCA_ACCESS_REMOTE_READ		BIT(2)
#define ORCA_ACCESS_REMOTE_ATOMIC	BIT(3)
#define ORCA_ACCESS_ALL			GENMASK(3, 0)
/*
 * REG_MR only (not the fast-register WQE, whose ACCESS is within
 * ORCA_ACCESS_ALL): memory windows may be bound to the region.
 */
#define ORCA_ACCESS_MW_BIND		BIT(4)
#define ORCA_MR_ACCESS_ALL		(ORCA_ACCESS_ALL | ORCA_ACCESS_MW_BIND)

/* The rights a bind WQE grants a window are these bits (orca-abi.h). */
static_assert(ORCA_BIND_ACCESS_REMOTE_WRITE == ORCA_ACCESS_REMOTE_WRITE);
static_assert(ORCA_BIND_ACCESS_REMOTE_READ == ORCA_ACCESS_REMOTE_READ);
static_assert(ORCA_BIND_ACCESS_REMOTE_ATOMIC == ORCA_ACCESS_REMOTE_ATOMIC);

/* ---------------------------------------------------------------------
 * REG_MR input mailbox.  Result: the key, used both as lkey and rkey:
 * ORCA_MR_KEY_INDEX selects the device's MR table entry, ORCA_MR_KEY_VARIANT
 * is the driver's choice and makes stale keys of a reused entry invalid.
 *
 * Translation: the region [iova, iova + length) maps onto num_pages pages
 * of 2^page_shift bytes; page i starts at DMA address pages[i], and iova's
 * offset within the first page is iova mod 2^page_shift.  With PBL level 1
 * pbl_addr points at the num_pages (at most 512) __le64 page addresses;
 * with level 2 it points at the __le64 addresses of 4 KiB, 4 KiB aligned
 * table pages, each holding 512 of them (whatever page_shift is).  A
 * PHYSICAL region has no table: iova is the DMA address.  A
 * FAST_REG region is created invalid with room for num_pages pages; its
 * translation is later written by a fast-register work request.
 */
struct orca_hw_reg_mr {
	__le64 iova;
	__le64 length;
	__le64 pbl_addr;
	__le32 pdn;
	__le32 access;		/* ORCA_ACCESS_* */
	__le32 num_pages;
	__le32 flags;		/* ORCA_MR_FLAG_*, ORCA_MR_PAGE_SHIFT */
	__le32 key_variant;	/* low 8 bits used */
	u8 rsvd[20];
};

#define ORCA_HW_REG_MR_SIZE		64
static_assert(sizeof(struct orca_hw_reg_mr) == ORCA_HW_REG_MR_SIZE);

#define ORCA_MR_PAGE_SHIFT		GENMASK(7, 0)
#define ORCA_MR_PBL_LEVELS		GENMASK(9, 8)
#define ORCA_MR_FLAG_PHYSICAL		BIT(16)
#define ORCA_MR_FLAG_FAST_REG		BIT(17)
/*
 * Since 1.4: the region is device memory.  pbl_addr is the byte offset
 * in the aperture where it starts, inside one allocation; num_pages is 0
 * and PAGE_SHIFT 12; the device builds the translation.
 */
#define ORCA_MR_FLAG_DM			BIT(18)
/*
 * Since 1.5: an on-demand-paging region.  pbl_addr 0, PBL_LEVELS 0,
 * PAGE_SHIFT 12, num_pages the pages it touches.  Its pages start not
 * present; ODP_UPDATE maps, unmaps and fails them, and the data path
 * raises ODP_FAULT when an access needs a page that is not present.
 */
#define ORCA_MR_FLAG_ODP		BIT(19)
/*
 * Since 1.6, with FLAG_ODP: an implicit on-demand-paging region, the
 * whole address space.  iova 0, length U64_MAX, num_pages 0, pbl_addr
 * 0, PBL_LEVELS 0, PAGE_SHIFT 12; page i covers [i * 4096, + 4096), for
 * i below ORCA_ODP_IMPLICIT_PAGES.
 */
#define ORCA_MR_FLAG_ODP_IMPLICIT	BIT(20)
#define ORCA_ODP_IMPLICIT_PAGES		BIT_ULL(52)

#define ORCA_MR_KEY_VARIANT		GENMASK(7, 0)
#define ORCA_MR_KEY_INDEX		GENMASK(31, 8)

/* ---------------------------------------------------------------------
 * CREATE_QP input mailbox.  Result: qpn (1 for the GSI QP).
 */
enum orca_qp_type {
	ORCA_QPT_GSI			= 1,
	ORCA_QPT_RC			= 2,
	ORCA_QPT_UC			= 3,
	ORCA_QPT_UD			= 4,
	ORCA_QPT_XRC_INI		= 5,	/* 1.4: XRC send side */
	ORCA_QPT_XRC_TGT		= 6,	/* 1.4: XRC receive side */
};

struct orca_hw_create_qp {
	__le32 info;		/* ORCA_QP_INFO_* */
	__le32 pdn;
	__le32 send_cqn;
	__le32 recv_cqn;
	__le32 srqn;		/* with ORCA_QP_INFO_USE_SRQ */
	__le32 sq_cfg;		/* ORCA_WQ_CFG_* */
	__le32 rq_cfg;		/* ORCA_WQ_CFG_*; ignored with an SRQ */
	__le32 max_inline;
	__le64 sq_addr;
	__le64 rq_addr;
	__le64 sq_db_addr;	/* struct orca_db_record */
	__le64 rq_db_addr;
	__le32 xrcdn;		/* XRC_TGT: its XRC domain; else 0 */
	u8 rsvd[28];
};

#define ORCA_HW_CREATE_QP_SIZE		96
static_assert(sizeof(struct orca_hw_create_qp) == ORCA_HW_CREATE_QP_SIZE);

#define ORCA_QP_INFO_TYPE		GENMASK(3, 0)
#define ORCA_QP_INFO_SQ_SIG_ALL		BIT(8)
#define ORCA_QP_INFO_USE_SRQ		BIT(9)

/* Work queue geometry: SQ, RQ and SRQ rings. */
#define ORCA_WQ_CFG_LOG2_DEPTH		GENMASK(4, 0)
#define ORCA_WQ_CFG_LOG2_STRIDE		GENMASK(11, 8)
#define ORCA_WQ_CFG_MAX_SGE		GENMASK(23, 16)
/* Since 1.7: as ORCA_CQ_CFG_PBL_LEVELS; the ring address names a page list. */
#define ORCA_WQ_CFG_PBL_LEVELS		GENMASK(29, 28)

/* ---------------------------------------------------------------------
 * MODIFY_QP input mailbox, and QUERY_QP output mailbox.
 *
 * attr_mask says which fields MODIFY_QP applies; the device checks it
 * against the IBTA QP state table (required and allowed attributes of
 * each transition, per QP type) and rejects the whole command with
 * BAD_STATE for an illegal transition and BAD_PARAM for a missing or
 * disallowed attribute or an out-of-range value.  QUERY_QP fills every
 * field and returns the mask of those that have been set.
 */
#define ORCA_QP_ATTR_STATE		BIT(0)
#define ORCA_QP_ATTR_CUR_STATE		BIT(1)
#define ORCA_QP_ATTR_EN_SQD_ASYNC	BIT(2)
#define ORCA_QP_ATTR_ACCESS_FLAGS	BIT(3)
#define ORCA_QP_ATTR_PKEY_INDEX		BIT(4)
#define ORCA_QP_ATTR_PORT		BIT(5)
#define ORCA_QP_ATTR_QKEY		BIT(6)
#define ORCA_QP_ATTR_AV			BIT(7)
#define ORCA_QP_ATTR_PATH_MTU		BIT(8)
#define ORCA_QP_ATTR_TIMEOUT		BIT(9)
#define ORCA_QP_ATTR_RETRY_CNT		BIT(10)
#define ORCA_QP_ATTR_RNR_RETRY		BIT(11)
#define ORCA_QP_ATTR_RQ_PSN		BIT(12)
#define ORCA_QP_ATTR_MAX_QP_RD_ATOMIC	BIT(13)
#define ORCA_QP_ATTR_ALT_PATH		BIT(14)
#define ORCA_QP_ATTR_MIN_RNR_TIMER	BIT(15)
#define ORCA_QP_ATTR_SQ_PSN		BIT(16)
#define ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC	BIT(17)
#define ORCA_QP_ATTR_PATH_MIG_STATE	BIT(18)
#define ORCA_QP_ATTR_CAP		BIT(19)
#define ORCA_QP_ATTR_DEST_QPN		BIT(20)
#define ORCA_QP_ATTR_ALL		GENMASK(20, 0)

enum orca_qp_state {
	ORCA_QPS_RESET			= 0,
	ORCA_QPS_INIT			= 1,
	ORCA_QPS_RTR			= 2,
	ORCA_QPS_RTS			= 3,
	ORCA_QPS_SQD			= 4,
	ORCA_QPS_SQE			= 5,
	ORCA_QPS_ERR			= 6,
	ORCA_QPS_NUM			= 7,
};

struct orca_hw_qp_attr {
	__le32 attr_mask;	/* ORCA_QP_ATTR_* */
	u8 qp_state;		/* enum orca_qp_state */
	u8 cur_qp_state;
	u8 path_mtu;		/* 1..5: 256..4096 bytes, as IB enum ib_mtu */
	u8 path_mig_state;
	__le32 qkey;
	__le32 rq_psn;		/* 24 bits */
	__le32 sq_psn;		/* 24 bits */
	__le32 dest_qpn;	/* 24 bits */
	__le32 access;		/* ORCA_ACCESS_* */
	__le16 pkey_index;
	u8 port;
	u8 en_sqd_async;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u8 min_rnr_timer;	/* 5 bits */
	u8 timeout;		/* 5 bits */
	u8 retry_cnt;		/* 3 bits */
	u8 rnr_retry;		/* 3 bits; 7 = infinite */
	u8 sq_draining;		/* QUERY_QP only */
	u8 rsvd0;
	/* Address vector (ORCA_QP_ATTR_AV). */
	u8 dgid[16];
	__le32 av_info;		/* ORCA_AH_FLOW_LABEL, _SGID_INDEX, _SL */
	u8 hop_limit;
	u8 traffic_class;
	u8 dmac[6];
	__le16 vlan;		/* 0xffff: untagged */
	u8 rsvd1[6];
	/* Current capacities (QUERY_QP only). */
	__le32 max_send_wr;
	__le32 max_recv_wr;
	__le32 max_send_sge;
	__le32 max_recv_sge;
	__le32 max_inline;
	u8 rsvd2[32];
};

#define ORCA_HW_QP_ATTR_SIZE		128
static_assert(sizeof(struct orca_hw_qp_attr) == ORCA_HW_QP_ATTR_SIZE);

/* ---------------------------------------------------------------------
 * CREATE_SRQ input mailbox, QUERY_SRQ output mailbox.  Result: srqn.
 */
struct orca_hw_srq {
	__le32 pdn;
	__le32 cfg;		/* ORCA_WQ_CFG_* */
	__le32 limit;		/* 0: not armed */
	__le32 max_wr;		/* QUERY_SRQ only */
	__le64 ring_addr;
	__le64 db_addr;		/* struct orca_db_record */
	__le32 info;		/* ORCA_SRQ_INFO_TYPE; since 1.4 */
	__le32 xrcdn;		/* XRC SRQ: its XRC domain; else 0 */
	__le32 cqn;		/* XRC SRQ: CQ of its receives; else 0 */
	u8 rsvd[20];
};

#define ORCA_HW_SRQ_SIZE		64
static_assert(sizeof(struct orca_hw_srq) == ORCA_HW_SRQ_SIZE);

#define ORCA_SRQ_INFO_TYPE		GENMASK(3, 0)
#define ORCA_SRQT_BASIC			0
#define ORCA_SRQT_XRC			1

/* ---------------------------------------------------------------------
 * QUERY_STATS output mailbox: free-running 64-bit counters.
 */
struct orca_hw_stats {
	__le64 cmds_completed;
	__le64 cmds_failed;
	__le64 async_events;
	__le64 async_events_dropped;
	__le64 pds;
	__le64 mrs;
	__le64 cqs;
	__le64 qps;
	__le64 srqs;
	__le64 ahs;
	__le64 tx_packets;
	__le64 tx_bytes;
	__le64 rx_packets;
	__le64 rx_bytes;
	/* The RoCEv2 wire: drops, retransmission and NAKs. */
	__le64 rx_drops;
	__le64 rx_icrc_errors;
	__le64 tx_drops;
	__le64 retransmits;
	__le64 ack_timeouts;
	__le64 rnr_naks_sent;
	__le64 rnr_naks_rcvd;
	__le64 seq_naks_sent;		/* NAK code 0: PSN sequence error */
	__le64 seq_naks_rcvd;
	__le64 inv_req_naks_sent;	/* NAK code 1: invalid request */
	__le64 inv_req_naks_rcvd;
	__le64 access_naks_sent;	/* NAK code 2: remote access error */
	__le64 access_naks_rcvd;
	__le64 op_naks_sent;		/* NAK code 3: remote op error */
	__le64 op_naks_rcvd;
	__le64 duplicates;
	__le64 out_of_sequence;
	__le64 ud_drops;
};

#define ORCA_HW_STATS_SIZE		256
static_assert(sizeof(struct orca_hw_stats) == ORCA_HW_STATS_SIZE);

/* ---------------------------------------------------------------------
 * Event queue entries (16 bytes), written by the device.
 */
enum orca_eqe_type {
	/* Async event queue. */
	ORCA_EQE_PORT_CHANGE		= 0x01,	/* data: port number */
	ORCA_EQE_QP_FATAL		= 0x10,	/* data: qpn */
	ORCA_EQE_QP_REQ_ERR		= 0x11,
	ORCA_EQE_QP_ACCESS_ERR		= 0x12,
	ORCA_EQE_QP_LAST_WQE		= 0x13,
	ORCA_EQE_QP_SQ_DRAINED		= 0x14,
	ORCA_EQE_QP_COMM_EST		= 0x15,
	ORCA_EQE_CQ_ERR			= 0x20,	/* data: cqn */
	ORCA_EQE_SRQ_LIMIT		= 0x30,	/* data: srqn */
	ORCA_EQE_SRQ_ERR		= 0x31,
	ORCA_EQE_ODP_FAULT		= 0x50,	/* data: ORCA_EQE_ODP_*; aux: key */
	/* Completion event queues. */
	ORCA_EQE_COMP			= 0x40,	/* data: cqn */
};

struct orca_eqe {
	__le64 data;
	__le32 aux;		/* type-specific; 0 unless the type says */
	__le32 info;		/* ORCA_EQE_TYPE, _PHASE, _ODP_EPOCH */
};

#define ORCA_EQE_TYPE			GENMASK(7, 0)
/*
 * ODP_FAULT only, since 1.8 and only with ORCA_HW_DEV_CAP_ODP_EPOCH: the
 * region's failure epoch when the fault was raised; else 0.
 */
#define ORCA_EQE_ODP_EPOCH		GENMASK(23, 8)
#define ORCA_EQE_PHASE			BIT(31)

/* PORT_CHANGE data: the port and its state when the event was posted. */
#define ORCA_EQE_PORT_NUM		GENMASK_ULL(7, 0)
#define ORCA_EQE_PORT_STATE		GENMASK_ULL(11, 8)	/* orca_hw_port_state */
#define ORCA_EQE_PORT_RSVD		GENMASK_ULL(63, 12)

/*
 * ODP_FAULT data (1.5): pages [PAGE, PAGE + COUNT] of the region whose
 * key is in aux are needed, and WRITE says whether they must be writable.
 */
#define ORCA_EQE_ODP_PAGE		GENMASK_ULL(51, 0)
#define ORCA_EQE_ODP_COUNT		GENMASK_ULL(61, 52)	/* pages - 1 */
#define ORCA_EQE_ODP_WRITE		BIT_ULL(62)
#define ORCA_EQE_ODP_RSVD		BIT_ULL(63)
/* An ODP_FAULT names at most this many pages. */
#define ORCA_ODP_FAULT_MAX		1024
/* A QP waiting for a page tries again after this long at the latest. */
#define ORCA_ODP_RETRY_MS		10

#define ORCA_EQE_SIZE			16
static_assert(sizeof(struct orca_eqe) == ORCA_EQE_SIZE);

/* ---------------------------------------------------------------------
 * Kernel-only send WQE segment: ORCA_WQE_OP_REG_MR (fast register).  It
 * overlays orca_send_wqe.seg (uapi/rdma/orca-abi.h).  key names a
 * FAST_REG region of the QP's PD (ORCA_MR_KEY_INDEX) and carries its new
 * variant; the region must be invalid.  pbl_addr points at
 * ceil((iova mod 2^page_shift + length) / 2^page_shift) __le64 page DMA
 * addresses, no more than the region was created for.  On success the
 * region becomes valid with the new key, iova, length and access.
 */
struct orca_wqe_reg_mr {
	__le64 iova;
	__le64 length;
	__le64 pbl_addr;
	__le32 key;
	__le32 info;		/* ORCA_WQE_REG_MR_ACCESS, _PAGE_SHIFT */
};

#define ORCA_WQE_REG_MR_ACCESS		GENMASK(7, 0)	/* ORCA_ACCESS_* */
#define ORCA_WQE_REG_MR_PAGE_SHIFT	GENMASK(15, 8)
static_assert(sizeof(struct orca_wqe_reg_mr) == 32);
static_assert(sizeof(struct orca_wqe_bind_mw) == 32);
static_assert(sizeof(struct orca_cqe) == ORCA_CQE_SIZE);
static_assert(sizeof(struct orca_cqe) + sizeof(struct orca_cqe_ext) ==
	      ORCA_CQE64_SIZE);

#endif /* ORCA_HW_H */
