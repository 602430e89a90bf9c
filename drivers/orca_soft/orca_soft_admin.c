// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: the admin command processor.
 *
 * The engine fetches each command the driver published through AQ_SQ_DB
 * from host memory, executes it against the device state, and writes a
 * completion (owner bit last) into the completion ring.  Everything read
 * from host memory is a copy, validated before use: a command with a
 * non-zero reserved field or an out-of-range argument completes with
 * ORCA_AQ_STS_BAD_PARAM, never with a crash.
 */

#include <linux/bitfield.h>
#include <linux/ethtool.h>
#include <linux/etherdevice.h>
#include <linux/string.h>
#include <net/addrconf.h>

#include "orca_ring.h"
#include "orca_soft.h"

/* Device limits, reported by QUERY_DEVICE. */
#define ORCA_SOFT_MAX_PD		16384
#define ORCA_SOFT_GID_TBL_LEN		128
#define ORCA_SOFT_MAX_MTU		4096
/* IPv6 + UDP + BTH + RETH + ICRC: the most a RoCEv2 packet adds. */
#define ORCA_SOFT_ROCE_OVERHEAD		(40 + 8 + 12 + 16 + 4)

struct orca_soft_cmd_out {
	u64 result;
	u16 syndrome;
};

/* Write a command's output mailbox; the driver must offer all of it. */
static u8 orca_soft_put_output(struct orca_soft_dev *sdev,
			       const union orca_aq_cmd *cmd,
			       const void *out, size_t len)
{
	u64 addr = le64_to_cpu(cmd->hdr.out_addr);

	if (!addr || le32_to_cpu(cmd->hdr.out_len) < len)
		return ORCA_AQ_STS_BAD_PARAM;
	if (orca_soft_dma_write(sdev, addr, out, len))
		return ORCA_AQ_STS_DMA_ERROR;
	return ORCA_AQ_STS_OK;
}

static bool orca_soft_rsvd_clear(const void *rsvd, size_t len)
{
	return !memchr_inv(rsvd, 0, len);
}

static u8 orca_soft_query_device(struct orca_soft_dev *sdev,
				 const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_query_device *c = &cmd->query_device;
	struct orca_hw_device_attr attr = {};
	u8 eui[8];

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;

	addrconf_addr_eui48(eui, sdev->netdev->dev_addr);
	memcpy(&attr.node_guid, eui, sizeof(eui));
	memcpy(&attr.sys_image_guid, eui, sizeof(eui));
	/* Firmware 1.0.0: major in bits 47:32, minor 31:16, sub 15:0. */
	attr.fw_version = cpu_to_le64(1ULL << 32);
	attr.max_mr_size = cpu_to_le64(U64_MAX);
	attr.page_size_cap = cpu_to_le64(PAGE_SIZE);
	attr.vendor_id = cpu_to_le32(0xffffff);
	attr.vendor_part_id = cpu_to_le32(1);
	attr.hw_ver = cpu_to_le32(ORCA_IFACE_VERSION_MAJOR);
	attr.cap_flags = cpu_to_le32(0);
	attr.num_ports = cpu_to_le32(1);
	attr.max_pd = cpu_to_le32(ORCA_SOFT_MAX_PD);
	attr.max_pkeys = cpu_to_le32(1);
	return orca_soft_put_output(sdev, cmd, &attr, sizeof(attr));
}

static u32 orca_soft_active_mtu(struct net_device *ndev)
{
	int payload = READ_ONCE(ndev->mtu) - ORCA_SOFT_ROCE_OVERHEAD;
	u32 mtu = ORCA_SOFT_MAX_MTU;

	while (mtu > 256 && mtu > payload)
		mtu >>= 1;
	return mtu;
}

static u8 orca_soft_query_port(struct orca_soft_dev *sdev,
			       const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_query_port *c = &cmd->query_port;
	struct net_device *ndev = sdev->netdev;
	struct orca_hw_port_attr attr = {};
	bool up;
	u32 info;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)) ||
	    le32_to_cpu(c->port) != 1)
		return ORCA_AQ_STS_BAD_PARAM;

	up = netif_running(ndev) && netif_carrier_ok(ndev);
	info = FIELD_PREP(ORCA_PORT_INFO_STATE,
			  up ? ORCA_PORT_ACTIVE : ORCA_PORT_DOWN);
	if (up)
		info |= ORCA_PORT_INFO_LINK_UP;
	attr.info = cpu_to_le32(info);
	attr.max_mtu = cpu_to_le32(ORCA_SOFT_MAX_MTU);
	attr.active_mtu = cpu_to_le32(orca_soft_active_mtu(ndev));
	attr.gid_tbl_len = cpu_to_le32(ORCA_SOFT_GID_TBL_LEN);
	attr.pkey_tbl_len = cpu_to_le32(1);
	attr.max_msg_sz = cpu_to_le32(1U << 31);
	attr.netdev_mtu = cpu_to_le32(READ_ONCE(ndev->mtu));
	ether_addr_copy(attr.mac, ndev->dev_addr);
	return orca_soft_put_output(sdev, cmd, &attr, sizeof(attr));
}

static u8 orca_soft_alloc_pd(struct orca_soft_dev *sdev,
			     const union orca_aq_cmd *cmd,
			     struct orca_soft_cmd_out *out)
{
	const struct orca_cmd_alloc_pd *c = &cmd->alloc_pd;
	u32 pdn;
	int ret;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	ret = xa_alloc(&sdev->pds, &pdn, xa_mk_value(0),
		       XA_LIMIT(1, ORCA_SOFT_MAX_PD), GFP_KERNEL);
	if (ret)
		return ORCA_AQ_STS_NO_RESOURCES;
	out->result = pdn;
	return ORCA_AQ_STS_OK;
}

static u8 orca_soft_dealloc_pd(struct orca_soft_dev *sdev,
			       const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_dealloc_pd *c = &cmd->dealloc_pd;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	if (!xa_erase(&sdev->pds, le32_to_cpu(c->pdn)))
		return ORCA_AQ_STS_BAD_HANDLE;
	return ORCA_AQ_STS_OK;
}

static u8 orca_soft_exec(struct orca_soft_dev *sdev,
			 const union orca_aq_cmd *cmd,
			 struct orca_soft_cmd_out *out)
{
	u8 opcode = FIELD_GET(ORCA_AQ_HDR_OPCODE, le32_to_cpu(cmd->hdr.op));

	switch (opcode) {
	case ORCA_CMD_QUERY_DEVICE:
		return orca_soft_query_device(sdev, cmd);
	case ORCA_CMD_QUERY_PORT:
		return orca_soft_query_port(sdev, cmd);
	case ORCA_CMD_ALLOC_PD:
		return orca_soft_alloc_pd(sdev, cmd, out);
	case ORCA_CMD_DEALLOC_PD:
		return orca_soft_dealloc_pd(sdev, cmd);
	default:
		return ORCA_AQ_STS_BAD_OPCODE;
	}
}

static int orca_soft_post_completion(struct orca_soft_dev *sdev, u16 cmd_id,
				     u8 status,
				     const struct orca_soft_cmd_out *out)
{
	struct orca_aq_cqe cqe = {};
	u64 addr;
	u32 info1;

	addr = sdev->aq_cq_base +
	       orca_ring_slot(sdev->aq_cq_prod, sdev->aq_log2_depth) *
	       ORCA_AQ_CQE_SIZE;
	cqe.result = cpu_to_le64(out->result);
	cqe.info0 = cpu_to_le32(FIELD_PREP(ORCA_AQ_CQE_CMD_ID, cmd_id) |
				FIELD_PREP(ORCA_AQ_CQE_SQ_HEAD,
					   sdev->aq_sq_cons & 0xffff));
	info1 = FIELD_PREP(ORCA_AQ_CQE_STATUS, status) |
		FIELD_PREP(ORCA_AQ_CQE_SYNDROME, out->syndrome) |
		FIELD_PREP(ORCA_AQ_CQE_PHASE,
			   orca_ring_phase(sdev->aq_cq_prod,
					   sdev->aq_log2_depth));
	if (orca_soft_dma_write(sdev, addr, &cqe,
				offsetof(struct orca_aq_cqe, info1)))
		return -EFAULT;
	/* The entry must be complete before its owner bit flips. */
	wmb();
	if (orca_soft_dma_write32(sdev,
				  addr + offsetof(struct orca_aq_cqe, info1),
				  info1))
		return -EFAULT;
	sdev->aq_cq_prod++;
	return 0;
}

void orca_soft_admin_process(struct orca_soft_dev *sdev)
{
	u32 prod = orca_soft_reg_read(sdev, ORCA_REG_AQ_SQ_DB);
	bool posted = false;

	if (!orca_ring_prod_valid(prod, sdev->aq_sq_cons, sdev->aq_log2_depth)) {
		orca_soft_set_fatal(sdev, "admin producer index out of range");
		return;
	}

	while (sdev->aq_sq_cons != prod) {
		struct orca_soft_cmd_out out = {};
		union orca_aq_cmd cmd;
		u64 addr;
		u8 status;

		addr = sdev->aq_sq_base +
		       orca_ring_slot(sdev->aq_sq_cons, sdev->aq_log2_depth) *
		       ORCA_AQ_CMD_SIZE;
		if (orca_soft_dma_read(sdev, addr, &cmd, sizeof(cmd))) {
			orca_soft_set_fatal(sdev, "DMA error reading the admin queue");
			return;
		}
		sdev->aq_sq_cons++;

		status = orca_soft_exec(sdev, &cmd, &out);
		if (orca_soft_post_completion(sdev,
					      FIELD_GET(ORCA_AQ_HDR_CMD_ID,
							le32_to_cpu(cmd.hdr.op)),
					      status, &out)) {
			orca_soft_set_fatal(sdev, "DMA error writing the admin completion queue");
			return;
		}
		posted = true;
	}

	if (posted && sdev->aq_irq_en)
		orca_soft_raise_irq(sdev, sdev->aq_vector);
}

void orca_soft_admin_init(struct orca_soft_dev *sdev)
{
	xa_init_flags(&sdev->pds, XA_FLAGS_ALLOC1);
}

/* Device reset: forget every object. */
void orca_soft_admin_reset(struct orca_soft_dev *sdev)
{
	xa_destroy(&sdev->pds);
	orca_soft_admin_init(sdev);
}
