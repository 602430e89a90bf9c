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

int orca_cmd_query_device(struct orca_dev *dev,
			  struct orca_hw_device_attr *attr)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_QUERY_DEVICE);
	return orca_admin_exec(dev, &cmd, attr, sizeof(*attr), NULL);
}

int orca_cmd_query_port(struct orca_dev *dev, u32 port,
			struct orca_hw_port_attr *attr)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_QUERY_PORT);
	cmd.query_port.port = cpu_to_le32(port);
	return orca_admin_exec(dev, &cmd, attr, sizeof(*attr), NULL);
}

int orca_cmd_alloc_pd(struct orca_dev *dev, u32 *pdn)
{
	union orca_aq_cmd cmd;
	u64 result;
	int ret;

	orca_cmd_init(&cmd, ORCA_CMD_ALLOC_PD);
	ret = orca_admin_exec(dev, &cmd, NULL, 0, &result);
	if (ret)
		return ret;
	if (result > U32_MAX)
		return -EIO;
	*pdn = result;
	return 0;
}

int orca_cmd_dealloc_pd(struct orca_dev *dev, u32 pdn)
{
	union orca_aq_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_DEALLOC_PD);
	cmd.dealloc_pd.pdn = cpu_to_le32(pdn);
	return orca_admin_exec(dev, &cmd, NULL, 0, NULL);
}
