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

#define ORCA_ID_MAGIC			0x4f524341	/* "ORCA" */

#define ORCA_VERSION_MAJOR		GENMASK(31, 16)
#define ORCA_VERSION_MINOR		GENMASK(15, 0)
#define ORCA_IFACE_VERSION_MAJOR	1
#define ORCA_IFACE_VERSION_MINOR	0

#define ORCA_CAPS_NUM_VECTORS		GENMASK(7, 0)
#define ORCA_CAPS_AQ_MAX_LOG2		GENMASK(15, 8)
#define ORCA_CAPS_EQ_MAX_LOG2		GENMASK(23, 16)

#define ORCA_CTRL_ENABLE		BIT(0)

#define ORCA_STATUS_READY		BIT(0)
#define ORCA_STATUS_FATAL		BIT(1)

#define ORCA_AQ_CFG_LOG2_DEPTH		GENMASK(4, 0)
#define ORCA_AQ_CFG_VECTOR		GENMASK(15, 8)
#define ORCA_AQ_CFG_IRQ_EN		BIT(16)

#define ORCA_AEQ_CFG_LOG2_DEPTH		GENMASK(4, 0)
#define ORCA_AEQ_CFG_VECTOR		GENMASK(15, 8)

#define ORCA_AEQ_DB_CONS_IDX		GENMASK(23, 0)
#define ORCA_AEQ_DB_ARM			BIT(31)

/* Ring base addresses must be aligned to this. */
#define ORCA_RING_ALIGN			64

/* ---------------------------------------------------------------------
 * Admin queue: command ring entries (64 bytes) written by the driver,
 * completion ring entries (16 bytes) written by the device.
 */
enum orca_aq_opcode {
	ORCA_CMD_QUERY_DEVICE		= 0x01,
	ORCA_CMD_QUERY_PORT		= 0x02,
	ORCA_CMD_ALLOC_PD		= 0x10,
	ORCA_CMD_DEALLOC_PD		= 0x11,
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

union orca_aq_cmd {
	struct orca_aq_hdr hdr;
	struct orca_cmd_query_device query_device;
	struct orca_cmd_query_port query_port;
	struct orca_cmd_alloc_pd alloc_pd;
	struct orca_cmd_dealloc_pd dealloc_pd;
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
	u8 rsvd[120];
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
 * Event queue entries (16 bytes), written by the device.
 */
enum orca_eqe_type {
	ORCA_EQE_PORT_CHANGE		= 0x01,	/* data: port number */
};

struct orca_eqe {
	__le64 data;
	__le32 rsvd;
	__le32 info;		/* ORCA_EQE_TYPE, ORCA_EQE_PHASE */
};

#define ORCA_EQE_TYPE			GENMASK(7, 0)
#define ORCA_EQE_PHASE			BIT(31)

#define ORCA_EQE_SIZE			16
static_assert(sizeof(struct orca_eqe) == ORCA_EQE_SIZE);

#endif /* ORCA_HW_H */
