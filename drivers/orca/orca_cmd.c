// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca HCA driver: typed admin commands.
 *
 * One function per command: it encodes the command, executes it through
 * orca_admin_exec() and decodes what the device returned.  Nothing here
 * touches the rings or registers directly.
 */

#include <linux/bitfield.h>

#include "orca.h"

static void orca_cmd_init(union orca_aq_cmd *cmd, u8 opcode)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.op = cpu_to_le32(FIELD_PREP(ORCA_AQ_HDR_OPCODE, opcode));
}

/*
 * A handle returned in the completion's result: a u32, never 0.  A
 * result the driver cannot use fails with -EPROTO: the device did make
 * the object (orca_admin_effect_unknown()).
 */
static int orca_cmd_handle_result(u64 result, u32 *handle)
{
	if (!result || result > U32_MAX)
		return -EPROTO;
	*handle = result;
	return 0;
}

/* Commands that only name an object. */
static int orca_cmd_on_handle(struct orca_dev *dev, u8 opcode, u32 handle)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, opcode);
	cmd.handle.handle = cpu_to_le32(handle);
	return orca_admin_exec(dev, &cmd, NULL, 0, NULL, 0, NULL);
}

/* Commands with an input mailbox whose result is a new handle. */
static int orca_cmd_create_mbox(struct orca_dev *dev, u8 opcode,
				const void *in, size_t in_len, u32 *handle)
{
	union orca_aq_cmd cmd;
	u64 result;
	int ret;

	orca_cmd_init(&cmd, opcode);
	ret = orca_admin_exec(dev, &cmd, in, in_len, NULL, 0, &result);
	if (ret)
		return ret;
	return orca_cmd_handle_result(result, handle);
}

int orca_cmd_query_device(struct orca_dev *dev,
			  struct orca_hw_device_attr *attr)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_QUERY_DEVICE);
	return orca_admin_exec(dev, &cmd, NULL, 0, attr, sizeof(*attr), NULL);
}

int orca_cmd_query_port(struct orca_dev *dev, u32 port,
			struct orca_hw_port_attr *attr)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_QUERY_PORT);
	cmd.query_port.port = cpu_to_le32(port);
	return orca_admin_exec(dev, &cmd, NULL, 0, attr, sizeof(*attr), NULL);
}

int orca_cmd_query_stats(struct orca_dev *dev, struct orca_hw_stats *stats)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_QUERY_STATS);
	return orca_admin_exec(dev, &cmd, NULL, 0, stats, sizeof(*stats),
			       NULL);
}

int orca_cmd_create_eq(struct orca_dev *dev, dma_addr_t ring, u8 log2_depth,
		       unsigned int vector, u32 *eqn)
{
	union orca_aq_cmd cmd;
	u64 result;
	int ret;

	orca_cmd_init(&cmd, ORCA_CMD_CREATE_EQ);
	cmd.create_eq.ring_addr = cpu_to_le64(ring);
	cmd.create_eq.cfg =
		cpu_to_le32(FIELD_PREP(ORCA_EQ_CFG_LOG2_DEPTH, log2_depth) |
			    FIELD_PREP(ORCA_EQ_CFG_VECTOR, vector));
	ret = orca_admin_exec(dev, &cmd, NULL, 0, NULL, 0, &result);
	if (ret)
		return ret;
	return orca_cmd_handle_result(result, eqn);
}

int orca_cmd_destroy_eq(struct orca_dev *dev, u32 eqn)
{
	return orca_cmd_on_handle(dev, ORCA_CMD_DESTROY_EQ, eqn);
}

int orca_cmd_alloc_pd(struct orca_dev *dev, u32 *pdn)
{
	union orca_aq_cmd cmd;
	u64 result;
	int ret;

	orca_cmd_init(&cmd, ORCA_CMD_ALLOC_PD);
	ret = orca_admin_exec(dev, &cmd, NULL, 0, NULL, 0, &result);
	if (ret)
		return ret;
	if (result > U32_MAX)
		return -EPROTO;
	*pdn = result;
	return 0;
}

int orca_cmd_dealloc_pd(struct orca_dev *dev, u32 pdn)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_DEALLOC_PD);
	cmd.dealloc_pd.pdn = cpu_to_le32(pdn);
	return orca_admin_exec(dev, &cmd, NULL, 0, NULL, 0, NULL);
}

int orca_cmd_alloc_xrcd(struct orca_dev *dev, u32 *xrcdn)
{
	union orca_aq_cmd cmd;
	u64 result;
	int ret;

	orca_cmd_init(&cmd, ORCA_CMD_ALLOC_XRCD);
	ret = orca_admin_exec(dev, &cmd, NULL, 0, NULL, 0, &result);
	if (ret)
		return ret;
	return orca_cmd_handle_result(result, xrcdn);
}

int orca_cmd_dealloc_xrcd(struct orca_dev *dev, u32 xrcdn)
{
	return orca_cmd_on_handle(dev, ORCA_CMD_DEALLOC_XRCD, xrcdn);
}

int orca_cmd_alloc_dm(struct orca_dev *dev, u64 length, u32 log_align,
		      u32 *dmn)
{
	union orca_aq_cmd cmd;
	u64 result;
	int ret;

	orca_cmd_init(&cmd, ORCA_CMD_ALLOC_DM);
	cmd.alloc_dm.length = cpu_to_le64(length);
	cmd.alloc_dm.log_align = cpu_to_le32(log_align);
	ret = orca_admin_exec(dev, &cmd, NULL, 0, NULL, 0, &result);
	if (ret)
		return ret;
	return orca_cmd_handle_result(result, dmn);
}

int orca_cmd_dealloc_dm(struct orca_dev *dev, u32 dmn)
{
	return orca_cmd_on_handle(dev, ORCA_CMD_DEALLOC_DM, dmn);
}

int orca_cmd_reg_mr(struct orca_dev *dev, const struct orca_hw_reg_mr *in,
		    u32 *key)
{
	union orca_aq_cmd cmd;
	u64 result;
	int ret;

	orca_cmd_init(&cmd, ORCA_CMD_REG_MR);
	ret = orca_admin_exec(dev, &cmd, in, sizeof(*in), NULL, 0, &result);
	if (ret)
		return ret;
	if (result > U32_MAX || !FIELD_GET(ORCA_MR_KEY_INDEX, (u32)result))
		return -EPROTO;
	*key = result;
	return 0;
}

int orca_cmd_dereg_mr(struct orca_dev *dev, u32 key)
{
	return orca_cmd_on_handle(dev, ORCA_CMD_DEREG_MR, key);
}

/*
 * ODP_UPDATE: MAP @count entries at @pbl_addr from page @page of region
 * @key on, or UNMAP, FAIL or FAIL_FAULT those pages (@pbl_addr 0);
 * @epoch is FAIL_FAULT's, 0 for the others.  Allocates nothing: it runs
 * under the region's umem_mutex, in reclaim too.
 */
int orca_cmd_odp_update(struct orca_dev *dev, u32 key, enum orca_odp_op op,
			u64 page, u32 count, dma_addr_t pbl_addr, u16 epoch)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_ODP_UPDATE);
	cmd.odp_update.key = cpu_to_le32(key);
	cmd.odp_update.op = cpu_to_le32(op);
	cmd.odp_update.page = cpu_to_le64(page);
	cmd.odp_update.count = cpu_to_le32(count);
	cmd.odp_update.pbl_addr = cpu_to_le64(pbl_addr);
	cmd.odp_update.epoch = cpu_to_le32(FIELD_PREP(ORCA_ODP_EPOCH, epoch));
	return orca_admin_exec(dev, &cmd, NULL, 0, NULL, 0, NULL);
}

int orca_cmd_alloc_mw(struct orca_dev *dev, u32 pdn, u32 type, u32 variant,
		      u32 *key)
{
	union orca_aq_cmd cmd;
	u64 result;
	int ret;

	orca_cmd_init(&cmd, ORCA_CMD_ALLOC_MW);
	cmd.alloc_mw.pdn = cpu_to_le32(pdn);
	cmd.alloc_mw.type = cpu_to_le32(type);
	cmd.alloc_mw.key_variant = cpu_to_le32(variant);
	ret = orca_admin_exec(dev, &cmd, NULL, 0, NULL, 0, &result);
	if (ret)
		return ret;
	if (result > U32_MAX || !FIELD_GET(ORCA_MR_KEY_INDEX, (u32)result))
		return -EPROTO;
	*key = result;
	return 0;
}

int orca_cmd_dealloc_mw(struct orca_dev *dev, u32 key)
{
	return orca_cmd_on_handle(dev, ORCA_CMD_DEALLOC_MW, key);
}

int orca_cmd_create_cq(struct orca_dev *dev, u64 ring, u8 pbl_levels,
		       dma_addr_t db, u8 log2_depth, bool cqe64, u32 eqn,
		       u32 *cqn)
{
	union orca_aq_cmd cmd;
	u64 result;
	int ret;

	orca_cmd_init(&cmd, ORCA_CMD_CREATE_CQ);
	cmd.create_cq.ring_addr = cpu_to_le64(ring);
	cmd.create_cq.db_addr = cpu_to_le64(db);
	cmd.create_cq.cfg =
		cpu_to_le32(FIELD_PREP(ORCA_CQ_CFG_LOG2_DEPTH, log2_depth) |
			    FIELD_PREP(ORCA_CQ_CFG_PBL_LEVELS, pbl_levels) |
			    (cqe64 ? ORCA_CQ_CFG_CQE64 : 0));
	cmd.create_cq.eqn = cpu_to_le32(eqn);
	ret = orca_admin_exec(dev, &cmd, NULL, 0, NULL, 0, &result);
	if (ret)
		return ret;
	return orca_cmd_handle_result(result, cqn);
}

int orca_cmd_resize_cq(struct orca_dev *dev, u32 cqn, u64 ring,
		       u8 pbl_levels, dma_addr_t db, u8 log2_depth)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_RESIZE_CQ);
	cmd.resize_cq.ring_addr = cpu_to_le64(ring);
	cmd.resize_cq.cqn = cpu_to_le32(cqn);
	cmd.resize_cq.cfg =
		cpu_to_le32(FIELD_PREP(ORCA_CQ_CFG_LOG2_DEPTH, log2_depth) |
			    FIELD_PREP(ORCA_CQ_CFG_PBL_LEVELS, pbl_levels));
	cmd.resize_cq.db_addr = cpu_to_le64(db);
	return orca_admin_exec(dev, &cmd, NULL, 0, NULL, 0, NULL);
}

int orca_cmd_destroy_cq(struct orca_dev *dev, u32 cqn)
{
	return orca_cmd_on_handle(dev, ORCA_CMD_DESTROY_CQ, cqn);
}

int orca_cmd_create_qp(struct orca_dev *dev, const struct orca_hw_create_qp *in,
		       u32 *qpn)
{
	int ret;

	ret = orca_cmd_create_mbox(dev, ORCA_CMD_CREATE_QP, in, sizeof(*in),
				   qpn);
	if (!ret && *qpn >= BIT(24))
		ret = -EPROTO;
	return ret;
}

int orca_cmd_modify_qp(struct orca_dev *dev, u32 qpn,
		       const struct orca_hw_qp_attr *attr)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_MODIFY_QP);
	cmd.modify_qp.qpn = cpu_to_le32(qpn);
	return orca_admin_exec(dev, &cmd, attr, sizeof(*attr), NULL, 0, NULL);
}

int orca_cmd_query_qp(struct orca_dev *dev, u32 qpn,
		      struct orca_hw_qp_attr *attr)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_QUERY_QP);
	cmd.handle.handle = cpu_to_le32(qpn);
	return orca_admin_exec(dev, &cmd, NULL, 0, attr, sizeof(*attr), NULL);
}

int orca_cmd_destroy_qp(struct orca_dev *dev, u32 qpn)
{
	return orca_cmd_on_handle(dev, ORCA_CMD_DESTROY_QP, qpn);
}

int orca_cmd_create_srq(struct orca_dev *dev, const struct orca_hw_srq *in,
			u32 *srqn)
{
	return orca_cmd_create_mbox(dev, ORCA_CMD_CREATE_SRQ, in, sizeof(*in),
				    srqn);
}

int orca_cmd_modify_srq(struct orca_dev *dev, u32 srqn, u32 attr_mask,
			u32 max_wr, u32 limit)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_MODIFY_SRQ);
	cmd.modify_srq.srqn = cpu_to_le32(srqn);
	cmd.modify_srq.attr_mask = cpu_to_le32(attr_mask);
	cmd.modify_srq.max_wr = cpu_to_le32(max_wr);
	cmd.modify_srq.limit = cpu_to_le32(limit);
	return orca_admin_exec(dev, &cmd, NULL, 0, NULL, 0, NULL);
}

int orca_cmd_query_srq(struct orca_dev *dev, u32 srqn, struct orca_hw_srq *out)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_QUERY_SRQ);
	cmd.handle.handle = cpu_to_le32(srqn);
	return orca_admin_exec(dev, &cmd, NULL, 0, out, sizeof(*out), NULL);
}

int orca_cmd_destroy_srq(struct orca_dev *dev, u32 srqn)
{
	return orca_cmd_on_handle(dev, ORCA_CMD_DESTROY_SRQ, srqn);
}

/* ADD_GID or DEL_GID; @c is the body filled by the caller. */
int orca_cmd_gid(struct orca_dev *dev, u8 opcode, const struct orca_cmd_gid *c)
{
	union orca_aq_cmd cmd;

	cmd.gid = *c;
	cmd.hdr.op = cpu_to_le32(FIELD_PREP(ORCA_AQ_HDR_OPCODE, opcode));
	cmd.hdr.out_len = 0;
	cmd.hdr.out_addr = 0;
	return orca_admin_exec(dev, &cmd, NULL, 0, NULL, 0, NULL);
}

/* ATTACH_MCAST or DETACH_MCAST. */
int orca_cmd_mcast(struct orca_dev *dev, u8 opcode, const u8 *gid, u32 qpn)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, opcode);
	memcpy(cmd.mcast.gid, gid, sizeof(cmd.mcast.gid));
	cmd.mcast.qpn = cpu_to_le32(qpn);
	return orca_admin_exec(dev, &cmd, NULL, 0, NULL, 0, NULL);
}
