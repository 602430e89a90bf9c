// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca HCA driver: verbs.
 *
 * Each verb validates its input (udata is untrusted), turns it into typed
 * admin commands (orca_cmd.c) and translates the device's answer back.
 */

#include <linux/bitfield.h>
#include <linux/module.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "orca.h"
#include <rdma/orca-abi.h>

/*
 * Copy a driver request of @len bytes from @udata.  A shorter request is
 * an error, and so is any non-zero byte beyond what this kernel knows.
 */
static int orca_udata_get_req(struct ib_udata *udata, void *req, size_t len)
{
	if (udata->inlen < len)
		return -EINVAL;
	if (udata->inlen > len &&
	    !ib_is_udata_cleared(udata, len, udata->inlen - len))
		return -EINVAL;
	return ib_copy_from_udata(req, udata, len);
}

/* Commands without a driver request accept only empty or zeroed input. */
static int orca_udata_no_req(struct ib_udata *udata)
{
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	return 0;
}

/* Userspace must offer room for the whole response. */
static int orca_udata_put_resp(struct ib_udata *udata, void *resp,
			       size_t len)
{
	if (udata->outlen < len)
		return -EINVAL;
	return ib_copy_to_udata(udata, resp, len);
}

static int orca_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *props,
			     struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibdev);
	const struct orca_hw_device_attr *hw = &dev->hw_attr;
	u32 caps = le32_to_cpu(hw->cap_flags);

	if (udata && orca_udata_no_req(udata))
		return -EINVAL;

	memset(props, 0, sizeof(*props));
	props->fw_ver = le64_to_cpu(hw->fw_version);
	props->sys_image_guid = hw->sys_image_guid;
	props->max_mr_size = le64_to_cpu(hw->max_mr_size);
	props->page_size_cap = le64_to_cpu(hw->page_size_cap);
	props->vendor_id = le32_to_cpu(hw->vendor_id);
	props->vendor_part_id = le32_to_cpu(hw->vendor_part_id);
	props->hw_ver = le32_to_cpu(hw->hw_ver);
	props->max_qp = le32_to_cpu(hw->max_qp);
	props->max_qp_wr = le32_to_cpu(hw->max_qp_wr);
	props->max_send_sge = le32_to_cpu(hw->max_sge);
	props->max_recv_sge = le32_to_cpu(hw->max_sge);
	props->max_sge_rd = le32_to_cpu(hw->max_sge_rd);
	props->max_cq = le32_to_cpu(hw->max_cq);
	props->max_cqe = le32_to_cpu(hw->max_cqe);
	props->max_mr = le32_to_cpu(hw->max_mr);
	props->max_pd = le32_to_cpu(hw->max_pd);
	props->max_qp_rd_atom = le32_to_cpu(hw->max_qp_rd_atom);
	props->max_qp_init_rd_atom = le32_to_cpu(hw->max_qp_init_rd_atom);
	props->max_res_rd_atom = min_t(u64, (u64)props->max_qp_rd_atom *
					    props->max_qp, INT_MAX);
	props->max_srq = le32_to_cpu(hw->max_srq);
	props->max_srq_wr = le32_to_cpu(hw->max_srq_wr);
	props->max_srq_sge = le32_to_cpu(hw->max_srq_sge);
	props->max_ah = le32_to_cpu(hw->max_ah);
	props->max_mcast_grp = le32_to_cpu(hw->max_mcast_grp);
	props->max_mcast_qp_attach = le32_to_cpu(hw->max_mcast_qp_attach);
	props->max_total_mcast_qp_attach =
		props->max_mcast_grp * props->max_mcast_qp_attach;
	props->max_fast_reg_page_list_len =
		le32_to_cpu(hw->max_fast_reg_page_list_len);
	props->max_pkeys = le32_to_cpu(hw->max_pkeys);
	props->atomic_cap = (caps & ORCA_HW_DEV_CAP_ATOMIC) ?
			    IB_ATOMIC_HCA : IB_ATOMIC_NONE;
	return 0;
}

int orca_port_attr_to_ib(const struct orca_hw_port_attr *hw,
			 struct ib_port_attr *attr)
{
	u32 info = le32_to_cpu(hw->info);

	switch (FIELD_GET(ORCA_PORT_INFO_STATE, info)) {
	case ORCA_PORT_ACTIVE:
		attr->state = IB_PORT_ACTIVE;
		break;
	case ORCA_PORT_DOWN:
		attr->state = IB_PORT_DOWN;
		break;
	default:
		return -EIO;
	}
	attr->phys_state = (info & ORCA_PORT_INFO_LINK_UP) ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = ib_mtu_int_to_enum(le32_to_cpu(hw->max_mtu));
	attr->active_mtu = ib_mtu_int_to_enum(le32_to_cpu(hw->active_mtu));
	attr->gid_tbl_len = le32_to_cpu(hw->gid_tbl_len);
	attr->pkey_tbl_len = le32_to_cpu(hw->pkey_tbl_len);
	attr->max_msg_sz = le32_to_cpu(hw->max_msg_sz);
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->bad_pkey_cntr = 0;
	attr->qkey_viol_cntr = 0;
	attr->lid = 0;
	attr->sm_lid = 0;
	attr->lmc = 0;
	attr->max_vl_num = 1;
	attr->sm_sl = 0;
	attr->subnet_timeout = 0;
	attr->init_type_reply = 0;
	return 0;
}

static int orca_query_port(struct ib_device *ibdev, u32 port,
			   struct ib_port_attr *attr)
{
	struct orca_dev *dev = to_odev(ibdev);
	struct orca_hw_port_attr hw;
	int ret;

	ret = orca_cmd_query_port(dev, port, &hw);
	if (ret)
		return ret;
	ret = orca_port_attr_to_ib(&hw, attr);
	if (ret)
		return ret;
	/* The Ethernet speed of the attached netdev, as IB speed/width. */
	return ib_get_eth_speed(ibdev, port, &attr->active_speed,
				&attr->active_width);
}

static int orca_get_port_immutable(struct ib_device *ibdev, u32 port,
				   struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int ret;

	ret = ib_query_port(ibdev, port, &attr);
	if (ret)
		return ret;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer orca_get_link_layer(struct ib_device *ibdev,
						u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int orca_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			   u16 *pkey)
{
	if (index > 0)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static int orca_alloc_ucontext(struct ib_ucontext *ibuctx,
			       struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibuctx->device);
	struct orca_alloc_ucontext_resp resp = {};
	struct orca_alloc_ucontext_req req;
	int ret;

	ret = orca_udata_get_req(udata, &req, sizeof(req));
	if (ret)
		return ret;
	if (req.comp_mask || req.reserved) {
		ibdev_dbg(&dev->ibdev,
			  "alloc_ucontext: unknown comp_mask 0x%x or reserved 0x%x\n",
			  req.comp_mask, req.reserved);
		return -EINVAL;
	}

	resp.abi_version = ORCA_UVERBS_ABI_VERSION;
	resp.hw_version = dev->hw_version;
	return orca_udata_put_resp(udata, &resp, sizeof(resp));
}

static void orca_dealloc_ucontext(struct ib_ucontext *ibuctx)
{
}

/*
 * Nothing to revoke yet beyond what ib_core does (user mmaps are zapped
 * by the core); providing this lets the device go away while user
 * contexts are still open.
 */
static void orca_disassociate_ucontext(struct ib_ucontext *ibuctx)
{
}

static int orca_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	struct orca_pd *pd = to_opd(ibpd);
	struct orca_alloc_pd_resp resp = {};
	int ret;

	if (udata) {
		ret = orca_udata_no_req(udata);
		if (ret)
			return ret;
		if (udata->outlen < sizeof(resp))
			return -EINVAL;
	}

	ret = orca_cmd_alloc_pd(dev, &pd->pdn);
	if (ret)
		return ret;

	if (udata) {
		resp.pdn = pd->pdn;
		ret = orca_udata_put_resp(udata, &resp, sizeof(resp));
		if (ret)
			goto err_dealloc;
	}
	return 0;

err_dealloc:
	orca_cmd_dealloc_pd(dev, pd->pdn);
	return ret;
}

static int orca_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	struct orca_pd *pd = to_opd(ibpd);
	int ret;

	/*
	 * The PD is gone for the host whatever the device says: a failure
	 * here means the device is unreachable, and its state with it.
	 */
	ret = orca_cmd_dealloc_pd(dev, pd->pdn);
	if (ret)
		ibdev_warn(ibpd->device, "DEALLOC_PD %u failed: %d\n",
			   pd->pdn, ret);
	return 0;
}

const struct ib_device_ops orca_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = ORCA_UVERBS_ABI_VERSION,

	.alloc_pd = orca_alloc_pd,
	.alloc_ucontext = orca_alloc_ucontext,
	.dealloc_pd = orca_dealloc_pd,
	.dealloc_ucontext = orca_dealloc_ucontext,
	.disassociate_ucontext = orca_disassociate_ucontext,
	.get_link_layer = orca_get_link_layer,
	.get_port_immutable = orca_get_port_immutable,
	.query_device = orca_query_device,
	.query_pkey = orca_query_pkey,
	.query_port = orca_query_port,

	INIT_RDMA_OBJ_SIZE(ib_pd, orca_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, orca_ucontext, ibucontext),
};
