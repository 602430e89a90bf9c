// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca HCA driver: verbs.
 *
 * Each verb validates its input (udata is untrusted), turns it into typed
 * admin commands (orca_cmd.c) and translates the device's answer back.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/if_vlan.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/iter.h>
#include <rdma/uverbs_ioctl.h>

#include "orca.h"
#include <rdma/orca-abi.h>

/*
 * Copy a driver request of @len bytes from @udata.  A shorter request is
 * an error, and so is any non-zero byte beyond what this kernel knows.
 */
int orca_udata_get_req(struct ib_udata *udata, void *req, size_t len)
{
	if (udata->inlen < len)
		return -EINVAL;
	if (udata->inlen > len &&
	    !ib_is_udata_cleared(udata, len, udata->inlen - len))
		return -EINVAL;
	return ib_copy_from_udata(req, udata, len);
}

/*
 * The driver request of ALLOC_UCONTEXT: a comp_mask with no bits defined
 * yet and a reserved word, both zero.  Check it, and that userspace
 * offered room for a response of @resp_len bytes.
 */
struct orca_basic_req {
	__u32 comp_mask;
	__u32 reserved;
};

static_assert(sizeof(struct orca_basic_req) ==
	      sizeof(struct orca_alloc_ucontext_req));

static int orca_udata_basic_req(struct ib_udata *udata, size_t resp_len)
{
	struct orca_basic_req req;
	int ret;

	ret = orca_udata_get_req(udata, &req, sizeof(req));
	if (ret)
		return ret;
	if (req.comp_mask || req.reserved)
		return -EINVAL;
	if (udata->outlen < resp_len)
		return -EINVAL;
	return 0;
}

/*
 * The requests of CREATE_CQ, RESIZE_CQ, CREATE_QP and CREATE_SRQ share one
 * layout: comp_mask, a reserved word, and the process's ring buffer.  A
 * request of an older provider ends after the reserved word.
 */
static_assert(sizeof(struct orca_create_cq_req) ==
	      sizeof(struct orca_resize_cq_req));
static_assert(sizeof(struct orca_create_cq_req) ==
	      sizeof(struct orca_create_qp_req));
static_assert(sizeof(struct orca_create_cq_req) ==
	      sizeof(struct orca_create_srq_req));
static_assert(offsetof(struct orca_create_cq_req, buf_addr) ==
	      offsetof(struct orca_create_qp_req, buf_addr));
static_assert(offsetof(struct orca_create_cq_req, buf_addr) ==
	      offsetof(struct orca_create_srq_req, buf_addr));
static_assert(offsetof(struct orca_create_cq_req, buf_addr) ==
	      offsetof(struct orca_resize_cq_req, buf_addr));

/**
 * orca_udata_queue_req - check the request of a queue-creating command
 * @dev: the device
 * @udata: the command's udata
 * @resp_len: the response userspace must have room for
 * @ubuf: what the request names: a ring buffer in the process (len 0:
 *	  none, the kernel allocates the rings)
 *
 * A ring buffer needs the whole request, a device with paged rings, a
 * page-aligned address and a non-zero length; its exact length is checked
 * by the caller, which knows the rings.  Anything else, and any unknown
 * bit or non-zero reserved field, is EINVAL; a buffer on a device without
 * paged rings is EOPNOTSUPP.
 */
int orca_udata_queue_req(struct orca_dev *dev, struct ib_udata *udata,
			 size_t resp_len, struct orca_ubuf *ubuf)
{
	struct orca_create_cq_req req = {};
	size_t len = min(udata->inlen, sizeof(req));
	int ret;

	memset(ubuf, 0, sizeof(*ubuf));
	if (len < offsetof(struct orca_create_cq_req, buf_addr))
		return -EINVAL;
	ret = orca_udata_get_req(udata, &req, len);
	if (ret)
		return ret;
	if ((req.comp_mask & ~ORCA_QUEUE_REQ_USER_BUF) || req.reserved)
		return -EINVAL;
	if (udata->outlen < resp_len)
		return -EINVAL;
	if (!(req.comp_mask & ORCA_QUEUE_REQ_USER_BUF))
		return req.buf_addr || req.buf_len ? -EINVAL : 0;
	if (len < sizeof(req) || !req.buf_len || !PAGE_ALIGNED(req.buf_addr) ||
	    req.buf_addr != (unsigned long)req.buf_addr)
		return -EINVAL;
	if (!(le32_to_cpu(dev->hw_attr.cap_flags) & ORCA_HW_DEV_CAP_RING_PBL))
		return -EOPNOTSUPP;
	ubuf->addr = req.buf_addr;
	ubuf->len = req.buf_len;
	return 0;
}

/* Commands without a driver request accept only empty or zeroed input. */
int orca_udata_no_req(struct ib_udata *udata)
{
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	return 0;
}

/* Userspace must offer room for the whole response. */
int orca_udata_put_resp(struct ib_udata *udata, void *resp, size_t len)
{
	if (udata->outlen < len)
		return -EINVAL;
	return ib_copy_to_udata(udata, resp, len);
}

/*
 * The ib_core capabilities that hold for this device, each because the
 * interface specification promises it or the device reports it.
 */
static u64 orca_device_cap_flags(const struct orca_dev *dev, u32 caps)
{
	/* MODIFY_QP checks cur_qp_state; port changes raise events. */
	u64 flags = IB_DEVICE_CURR_QP_STATE_MOD | IB_DEVICE_PORT_ACTIVE_EVENT;

	if (dev->hw_attr.sys_image_guid)
		flags |= IB_DEVICE_SYS_IMAGE_GUID;
	if ((caps & ORCA_HW_DEV_CAP_FAST_REG) &&
	    dev->hw_attr.max_fast_reg_page_list_len)
		flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
	if (caps & ORCA_HW_DEV_CAP_RNR_NAK)
		flags |= IB_DEVICE_RC_RNR_NAK_GEN;
	if ((caps & ORCA_HW_DEV_CAP_MW) && dev->hw_attr.max_mw)
		flags |= IB_DEVICE_MEM_WINDOW | IB_DEVICE_MEM_WINDOW_TYPE_2B;
	if ((caps & ORCA_HW_DEV_CAP_XRC) && dev->hw_attr.max_xrcd)
		flags |= IB_DEVICE_XRC;
	return flags;
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
		min_t(u64, (u64)props->max_mcast_grp *
			   props->max_mcast_qp_attach, INT_MAX);
	props->max_fast_reg_page_list_len =
		le32_to_cpu(hw->max_fast_reg_page_list_len);
	props->max_pkeys = le32_to_cpu(hw->max_pkeys);
	if (caps & ORCA_HW_DEV_CAP_MW)
		props->max_mw = le32_to_cpu(hw->max_mw);
	props->max_dm_size = orca_dm_size(dev);
	/* User CQs only (orca_create_cq()): a 64-bit nanosecond clock. */
	if ((caps & ORCA_HW_DEV_CAP_TIMESTAMP) && hw->clock_khz) {
		props->timestamp_mask = U64_MAX;
		props->hca_core_clock = le32_to_cpu(hw->clock_khz);
	}
	props->atomic_cap = (caps & ORCA_HW_DEV_CAP_ATOMIC) ?
			    IB_ATOMIC_HCA : IB_ATOMIC_NONE;
	props->device_cap_flags = orca_device_cap_flags(dev, caps);
	/* "rdma link delete": the function can be detached afterwards. */
	if (caps & ORCA_HW_DEV_CAP_DETACH)
		props->kernel_cap_flags |= IBK_ALLOW_USER_UNREG;
	/* On-demand paging: IBK_ON_DEMAND_PAGING and odp_caps. */
	orca_odp_query_device(dev, props);
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

/* What ALLOC_UCONTEXT answers, and QUERY_CONTEXT again for an import. */
static void orca_ucontext_resp(struct orca_dev *dev,
			       struct orca_alloc_ucontext_resp *resp)
{
	memset(resp, 0, sizeof(*resp));
	resp->abi_version = ORCA_UVERBS_ABI_VERSION;
	resp->hw_version = dev->hw_version;
	/* Ring buffers of the process are described by page lists. */
	if (le32_to_cpu(dev->hw_attr.cap_flags) & ORCA_HW_DEV_CAP_RING_PBL)
		resp->comp_mask |= ORCA_UCTX_RESP_USER_BUF;
	resp->comp_mask |= ORCA_UCTX_RESP_QP_KICK;
}

static int orca_alloc_ucontext(struct ib_ucontext *ibuctx,
			       struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibuctx->device);
	struct orca_alloc_ucontext_resp resp;
	int ret;

	ret = orca_udata_basic_req(udata, sizeof(resp));
	if (ret) {
		ibdev_dbg(&dev->ibdev, "alloc_ucontext: bad udata: %d\n", ret);
		return ret;
	}

	orca_ucontext_resp(dev, &resp);
	return orca_udata_put_resp(udata, &resp, sizeof(resp));
}

/*
 * UVERBS_METHOD_QUERY_CONTEXT, which ibv_import_device(3) sends on a
 * uverbs fd whose ucontext exists: the ALLOC_UCONTEXT response, in the
 * mandatory driver attribute ORCA_IB_ATTR_QUERY_CONTEXT_RESP (declared
 * with the other driver attributes, in orca_dm.c).
 */
static int orca_query_ucontext(struct ib_ucontext *ibuctx,
			       struct uverbs_attr_bundle *attrs)
{
	struct orca_alloc_ucontext_resp resp;

	orca_ucontext_resp(to_odev(ibuctx->device), &resp);
	return uverbs_copy_to(attrs, ORCA_IB_ATTR_QUERY_CONTEXT_RESP, &resp,
			      sizeof(resp));
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
	 * A PD names no memory: one the device did not answer for, or a
	 * kernel PD (whose release cannot fail), is gone for the host
	 * whatever the device says.
	 */
	ret = orca_cmd_dealloc_pd(dev, pd->pdn);
	if (ret && orca_destroy_refused(dev, ret, udata, &pd->refused))
		return ret;
	if (ret)
		ibdev_warn(ibpd->device, "DEALLOC_PD %u failed: %d\n",
			   pd->pdn, ret);
	return 0;
}

/*
 * XRC domains.  ib_core shares one among the processes that open the
 * same file, and allocates it from a user context only (no udata here
 * for a kernel caller either: ib_alloc_xrcd_user() passes what it got).
 */
static int orca_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibxrcd->device);
	struct orca_xrcd *xrcd = to_oxrcd(ibxrcd);
	int ret;

	if (!(le32_to_cpu(dev->hw_attr.cap_flags) & ORCA_HW_DEV_CAP_XRC))
		return -EOPNOTSUPP;
	if (udata) {
		ret = orca_udata_no_req(udata);
		if (ret)
			return ret;
	}
	return orca_cmd_alloc_xrcd(dev, &xrcd->xrcdn);
}

/*
 * A failed dealloc cannot be retried through ib_core: ib_uverbs_dealloc_xrcd()
 * raises the domain's use count when the driver fails, and every later
 * attempt then stops at that count (EBUSY, and a WARNING when the file
 * closes).  So the driver asks a refusing device once more itself, and
 * then lets the domain go whatever the device says: like a PD, it names
 * no memory the device could still use.
 */
static int orca_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibxrcd->device);
	struct orca_xrcd *xrcd = to_oxrcd(ibxrcd);
	int ret;

	ret = orca_destroy_retried(dev, orca_cmd_dealloc_xrcd, xrcd->xrcdn);
	if (ret)
		ibdev_warn(ibxrcd->device, "DEALLOC_XRCD %u failed: %d\n",
			   xrcd->xrcdn, ret);
	return 0;
}

/*
 * Queue memory.  With paged rings each page is allocated on its own, so a
 * queue of any size the device advertises needs nothing larger than a
 * page.  A device without them takes one physically contiguous block,
 * which a user object's splits into independent pages.  Every user page
 * can then be inserted into a user mapping, which holds its own page
 * reference, and is charged to the process's memory cgroup.  A kernel
 * object's memory is coherent DMA memory: the driver polls it and writes
 * it while the device does, with no sync calls on any platform.
 */
static int orca_qmem_alloc_contig(struct orca_qmem *qmem)
{
	size_t size = qmem->size;
	unsigned int order = get_order(size);
	struct page *page;
	dma_addr_t dma;
	u32 i;
	void *va;

	if (order >= MAX_ORDER)
		return -ENOMEM;
	if (!qmem->user) {
		va = dma_alloc_coherent(qmem->dmadev, size, &dma,
					GFP_KERNEL | __GFP_NOWARN);
		if (!va)
			return -ENOMEM;
	} else {
		page = alloc_pages(GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				   __GFP_NOWARN, order);
		if (!page)
			return -ENOMEM;
		split_page(page, order);
		/* Give back what the power-of-two block has beyond @size. */
		for (i = qmem->npages; i < (1U << order); i++)
			__free_page(page + i);
		va = page_address(page);
		dma = dma_map_page(qmem->dmadev, page, 0, size,
				   DMA_BIDIRECTIONAL);
		if (dma_mapping_error(qmem->dmadev, dma)) {
			for (i = 0; i < qmem->npages; i++)
				__free_page(page + i);
			return -ENOMEM;
		}
	}
	for (i = 0; i < qmem->npages; i++) {
		qmem->pages[i].va = va + i * PAGE_SIZE;
		qmem->pages[i].dma = dma + i * PAGE_SIZE;
	}
	return 0;
}

static void orca_qmem_free_contig(struct orca_qmem *qmem)
{
	void *va = qmem->pages[0].va;
	u32 i;

	if (!qmem->user) {
		dma_free_coherent(qmem->dmadev, qmem->size, va,
				  qmem->pages[0].dma);
		return;
	}
	dma_unmap_page(qmem->dmadev, qmem->pages[0].dma, qmem->size,
		       DMA_BIDIRECTIONAL);
	for (i = 0; i < qmem->npages; i++)
		__free_page(virt_to_page(va) + i);
}

/* Free pages [0, @n) of a paged @qmem. */
static void orca_qmem_free_pages(struct orca_qmem *qmem, u32 n)
{
	struct orca_qpage *p;
	u32 i;

	for (i = 0; i < n; i++) {
		p = &qmem->pages[i];
		if (!qmem->user) {
			dma_free_coherent(qmem->dmadev, PAGE_SIZE, p->va,
					  p->dma);
			continue;
		}
		dma_unmap_page(qmem->dmadev, p->dma, PAGE_SIZE,
			       DMA_BIDIRECTIONAL);
		free_page((unsigned long)p->va);
	}
}

static int orca_qmem_alloc_pages(struct orca_qmem *qmem)
{
	struct orca_qpage *p;
	struct page *page;
	u32 i;

	for (i = 0; i < qmem->npages; i++) {
		p = &qmem->pages[i];
		if (!qmem->user) {
			p->va = dma_alloc_coherent(qmem->dmadev, PAGE_SIZE,
						   &p->dma, GFP_KERNEL);
			if (!p->va)
				goto err;
			continue;
		}
		page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!page)
			goto err;
		p->dma = dma_map_page(qmem->dmadev, page, 0, PAGE_SIZE,
				      DMA_BIDIRECTIONAL);
		if (dma_mapping_error(qmem->dmadev, p->dma)) {
			__free_page(page);
			goto err;
		}
		p->va = page_address(page);
	}
	return 0;

err:
	orca_qmem_free_pages(qmem, i);
	return -ENOMEM;
}

struct orca_qmem *orca_qmem_alloc(struct orca_dev *dev, size_t size,
				  bool user)
{
	struct orca_qmem *qmem;
	int ret;

	qmem = kzalloc(sizeof(*qmem), GFP_KERNEL);
	if (!qmem)
		return ERR_PTR(-ENOMEM);
	qmem->size = PAGE_ALIGN(size);
	qmem->npages = qmem->size >> PAGE_SHIFT;
	qmem->dmadev = dev->dmadev;
	qmem->user = user;
	qmem->contig = !(le32_to_cpu(dev->hw_attr.cap_flags) &
			 ORCA_HW_DEV_CAP_RING_PBL);
	kref_init(&qmem->ref);
	INIT_LIST_HEAD(&qmem->zombie);
	qmem->pages = kvcalloc(qmem->npages, sizeof(*qmem->pages),
			       user ? GFP_KERNEL_ACCOUNT : GFP_KERNEL);
	if (!qmem->pages) {
		ret = -ENOMEM;
		goto err_free;
	}
	if (qmem->contig)
		ret = orca_qmem_alloc_contig(qmem);
	else
		ret = orca_qmem_alloc_pages(qmem);
	if (ret)
		goto err_free_pages;
	return qmem;

err_free_pages:
	kvfree(qmem->pages);
err_free:
	kfree(qmem);
	return ERR_PTR(ret);
}

static void orca_qmem_release(struct kref *ref)
{
	struct orca_qmem *qmem = container_of(ref, struct orca_qmem, ref);
	unsigned int i;

	for (i = 0; i < ORCA_QMEM_RINGS; i++)
		orca_pbl_free(qmem->dmadev, &qmem->pbl[i]);
	kvfree(qmem->ublk);
	if (qmem->umem)
		ib_umem_release(qmem->umem);
	if (qmem->contig)
		orca_qmem_free_contig(qmem);
	else
		orca_qmem_free_pages(qmem, qmem->npages);
	kvfree(qmem->pages);
	kfree(qmem);
}

/**
 * orca_qmem_attach_ubuf - take a queue's rings from the process's buffer
 * @dev: the device
 * @qmem: the queue's memory, holding only its doorbell page
 * @ubuf: the buffer, as orca_udata_queue_req() checked it
 *
 * The buffer is pinned writable (ib_umem_get() counts it against
 * RLIMIT_MEMLOCK and fails for memory the process cannot write) until
 * @qmem is freed, which is after the device is done with it.  The
 * process may unmap or reuse its virtual range meanwhile: the device
 * keeps writing the pinned pages.
 */
static int orca_qmem_attach_ubuf(struct orca_dev *dev,
				 struct orca_qmem *qmem,
				 const struct orca_ubuf *ubuf)
{
	struct ib_block_iter biter;
	struct ib_umem *umem;
	u32 i = 0, n;

	if (ubuf->len > U32_MAX || !IS_ALIGNED(ubuf->len, PAGE_SIZE))
		return -EINVAL;
	n = ubuf->len / ORCA_RING_PAGE_SIZE;
	umem = ib_umem_get(&dev->ibdev, ubuf->addr, ubuf->len,
			   IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	qmem->ublk = kvcalloc(n, sizeof(*qmem->ublk), GFP_KERNEL);
	if (!qmem->ublk) {
		ib_umem_release(umem);
		return -ENOMEM;
	}
	rdma_umem_for_each_dma_block(umem, &biter, ORCA_RING_PAGE_SIZE) {
		if (WARN_ON_ONCE(i >= n))
			break;
		qmem->ublk[i++] = rdma_block_iter_dma_address(&biter);
	}
	qmem->umem = umem;
	qmem->nublk = n;
	return 0;
}

/**
 * orca_qmem_create - the memory of a new CQ, QP or SRQ
 * @dev: the device
 * @ring_bytes: what its rings take, each rounded up to a page
 * @user: a user object
 * @ubuf: the process's ring buffer (len 0: none), or NULL
 * @db_off: where the doorbell page is in the result
 *
 * The rings and then a doorbell page, or with a buffer of the process
 * (which must hold exactly the rings) the doorbell page alone.
 */
struct orca_qmem *orca_qmem_create(struct orca_dev *dev, size_t ring_bytes,
				   bool user, const struct orca_ubuf *ubuf,
				   size_t *db_off)
{
	struct orca_qmem *qmem;
	int ret;

	if (!ubuf || !ubuf->len) {
		*db_off = ring_bytes;
		return orca_qmem_alloc(dev, ring_bytes + PAGE_SIZE, user);
	}
	if (ubuf->len != ring_bytes)
		return ERR_PTR(-EINVAL);
	qmem = orca_qmem_alloc(dev, PAGE_SIZE, true);
	if (IS_ERR(qmem))
		return qmem;
	ret = orca_qmem_attach_ubuf(dev, qmem, ubuf);
	if (ret) {
		orca_qmem_put(qmem);
		return ERR_PTR(ret);
	}
	*db_off = 0;
	return qmem;
}

/* The device's address of the 4 KiB ring block at @off. */
static dma_addr_t orca_qmem_ring_dma(const struct orca_qmem *qmem, size_t off)
{
	if (qmem->umem)
		return qmem->ublk[off / ORCA_RING_PAGE_SIZE];
	return orca_qmem_dma(qmem, off);
}

/*
 * The command that took @qmem's page lists was answered: the device has
 * copied them (or refused them) and never reads them again.  A command
 * without an answer leaves them, with the rest of @qmem, to the zombie
 * list.
 */
void orca_qmem_lists_done(struct orca_dev *dev, struct orca_qmem *qmem,
			  int ret)
{
	unsigned int i;

	if (orca_admin_effect_unknown(dev, ret))
		return;
	for (i = 0; i < ORCA_QMEM_RINGS; i++)
		orca_pbl_free(qmem->dmadev, &qmem->pbl[i]);
}

/**
 * orca_qmem_ring - describe a ring of @qmem to the device
 * @qmem: the queue memory
 * @idx: which of the object's rings (0, or 1 for a QP's RQ): its page list
 * @off: the ring's page-aligned offset in @qmem
 * @bytes: the ring's size
 * @addr: the address for the command: the ring, or its page list
 * @levels: the PBL_LEVELS for the ring's cfg word
 *
 * Contiguous memory is named directly (level 0).  Paged memory gets a page
 * list of 4 KiB device pages, which stays with @qmem until the command
 * has been answered (orca_qmem_lists_done()) or @qmem is freed.  With a
 * buffer of the process (orca_qmem_attach_ubuf()), @off is an offset in
 * that buffer.
 */
int orca_qmem_ring(struct orca_qmem *qmem, unsigned int idx, size_t off,
		   size_t bytes, u64 *addr, u8 *levels)
{
	struct orca_pbl *pbl = &qmem->pbl[idx];
	u32 i, n = DIV_ROUND_UP(bytes, ORCA_RING_PAGE_SIZE);
	size_t room = qmem->umem ? (size_t)qmem->nublk * ORCA_RING_PAGE_SIZE :
				   qmem->size;
	int ret;

	if (WARN_ON_ONCE(idx >= ORCA_QMEM_RINGS || !PAGE_ALIGNED(off) ||
			 off > room || bytes > room - off || !bytes ||
			 pbl->levels))
		return -EINVAL;
	if (qmem->contig) {
		*addr = orca_qmem_dma(qmem, off);
		*levels = 0;
		return 0;
	}
	ret = orca_pbl_alloc(qmem->dmadev, n, pbl);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		orca_pbl_set(pbl, i,
			     orca_qmem_ring_dma(qmem, off + (size_t)i *
						ORCA_RING_PAGE_SIZE));
	*addr = pbl->top.dma;
	*levels = pbl->levels;
	return 0;
}

void orca_qmem_put(struct orca_qmem *qmem)
{
	kref_put(&qmem->ref, orca_qmem_release);
}

/**
 * orca_destroy_queue - destroy a CQ, QP or SRQ and release its queue memory
 * @dev: the device
 * @xa: where event handlers look the object up by @handle
 * @handle: the device handle (cqn, qpn or srqn)
 * @obj: the object, to publish again if the device refuses
 * @destroy: the typed DESTROY_* command
 * @qmem: the object's queue memory
 * @mentry: its user mapping, or NULL
 * @what: "CQ", "QP" or "SRQ", for messages
 * @user: a user object (ib_core may retry its destroy)
 * @refused: the object's flag for orca_destroy_refused()
 *
 * The object is unpublished first, so no event handler runs for it once
 * the device has destroyed it.  A refusal from the device (BUSY, the
 * object still in use, or any other answered failure) leaves the object
 * whole on it: the first refusal of a user object's destroy is returned
 * and the object published again.  Otherwise the object is gone toward
 * ib_core, and its memory is kept until the device is disabled.
 */
int orca_destroy_queue(struct orca_dev *dev, struct xarray *xa, u32 handle,
		       void *obj, int (*destroy)(struct orca_dev *, u32),
		       struct orca_qmem *qmem, struct orca_mmap_entry *mentry,
		       const char *what, bool user, bool *refused)
{
	int ret;

	xa_erase_irq(xa, handle);
	ret = destroy(dev, handle);
	if (ret && orca_destroy_refused(dev, ret, user, refused)) {
		if (xa_insert_irq(xa, handle, obj, GFP_KERNEL))
			ibdev_warn(&dev->ibdev, "%s %u lost its events\n",
				   what, handle);
		return ret;
	}
	if (ret)
		ibdev_warn_ratelimited(&dev->ibdev,
				       "DESTROY_%s %u failed: %d\n",
				       what, handle, ret);
	if (mentry)
		orca_qmem_unexpose(mentry);
	orca_qmem_destroyed(dev, qmem, !ret);
	return 0;
}

/*
 * The object owning @qmem is gone for ib_core.  If the device did not
 * confirm its destruction it may still access the memory: keep it until
 * the device is disabled.
 */
void orca_qmem_destroyed(struct orca_dev *dev, struct orca_qmem *qmem,
			 bool device_done)
{
	/* An XRC_TGT QP has no queue memory. */
	if (!qmem)
		return;
	if (device_done) {
		orca_qmem_put(qmem);
		return;
	}
	mutex_lock(&dev->zombie_lock);
	list_add_tail(&qmem->zombie, &dev->zombies);
	mutex_unlock(&dev->zombie_lock);
}

/* The device is disabled: free the memory it may have been using. */
void orca_zombies_release(struct orca_dev *dev)
{
	struct orca_qmem *qmem, *tmp;

	mutex_lock(&dev->zombie_lock);
	list_for_each_entry_safe(qmem, tmp, &dev->zombies, zombie) {
		list_del(&qmem->zombie);
		orca_qmem_put(qmem);
	}
	mutex_unlock(&dev->zombie_lock);
	orca_mr_zombies_release(dev);
}

/* Offer @qmem to userspace through an mmap entry; @key is its offset. */
int orca_qmem_expose(struct ib_ucontext *uctx, struct orca_qmem *qmem,
		     struct orca_mmap_entry **out, u64 *key)
{
	struct orca_mmap_entry *mentry;
	int ret;

	mentry = kzalloc(sizeof(*mentry), GFP_KERNEL);
	if (!mentry)
		return -ENOMEM;
	kref_get(&qmem->ref);
	mentry->qmem = qmem;
	ret = rdma_user_mmap_entry_insert(uctx, &mentry->rentry, qmem->size);
	if (ret) {
		orca_qmem_put(qmem);
		kfree(mentry);
		return ret;
	}
	*key = rdma_user_mmap_get_offset(&mentry->rentry);
	*out = mentry;
	return 0;
}

/* No new mappings; mmap_free runs when the last reference goes. */
void orca_qmem_unexpose(struct orca_mmap_entry *mentry)
{
	rdma_user_mmap_entry_remove(&mentry->rentry);
}

/*
 * Device memory: the aperture is I/O memory on PCI (write-combining) and
 * RAM on the software device (cacheable, as the kernel maps it).  ib_core
 * tracks the mapping (zapped if the device goes) and holds the entry
 * while it exists.  A child does not inherit it (VM_DONTCOPY): device
 * memory belongs to the process that allocated it, and a copy made
 * while the device goes away would escape ib_core's tracking.
 */
static int orca_mmap_dm(struct ib_ucontext *uctx, struct vm_area_struct *vma,
			struct orca_mmap_entry *mentry)
{
	pgprot_t prot = vma->vm_page_prot;

	if (vma_pages(vma) != mentry->dm_len >> PAGE_SHIFT ||
	    (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	vma->vm_flags &= ~VM_MAYEXEC;
	vma->vm_flags |= VM_DONTCOPY;
	if (!mentry->dev->bdev->dm_ram)
		prot = pgprot_writecombine(prot);
	return rdma_user_mmap_io(uctx, vma, PHYS_PFN(mentry->dm_phys),
				 mentry->dm_len, prot, &mentry->rentry);
}

static int orca_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rentry;
	struct orca_mmap_entry *mentry;
	unsigned long i, npages;
	int ret = 0;

	rentry = rdma_user_mmap_entry_get(uctx, vma);
	if (!rentry)
		return -EINVAL;
	mentry = container_of(rentry, struct orca_mmap_entry, rentry);
	npages = vma_pages(vma);
	if (!mentry->qmem) {
		ret = orca_mmap_dm(uctx, vma, mentry);
		goto out;
	}
	if (npages != mentry->qmem->size >> PAGE_SHIFT ||
	    (vma->vm_flags & VM_EXEC)) {
		ret = -EINVAL;
		goto out;
	}
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_flags &= ~VM_MAYEXEC;
	for (i = 0; i < npages; i++) {
		ret = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE,
				     virt_to_page(mentry->qmem->pages[i].va));
		if (ret)
			break;
	}
out:
	rdma_user_mmap_entry_put(rentry);
	return ret;
}

static void orca_mmap_free(struct rdma_user_mmap_entry *rentry)
{
	struct orca_mmap_entry *mentry =
		container_of(rentry, struct orca_mmap_entry, rentry);

	if (mentry->qmem)
		orca_qmem_put(mentry->qmem);
	else
		orca_dm_release(mentry);
	kfree(mentry);
}

/*
 * Address handles are address vectors in host memory (struct orca_av):
 * creating or destroying one issues no device command and never sleeps,
 * as ib_cm needs (it creates AHs under spinlocks, without
 * RDMA_CREATE_AH_SLEEPABLE).  UD WQEs carry a copy of the vector.  A user
 * AH's vector goes back in the udata response: liborca copies it into
 * its WQEs itself.
 */
static int orca_create_ah(struct ib_ah *ibah,
			  struct rdma_ah_init_attr *init_attr,
			  struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibah->device);
	struct orca_create_ah_resp resp = {};
	struct orca_ah *ah = to_oah(ibah);
	int ret;

	if (udata) {
		ret = orca_udata_no_req(udata);
		if (ret)
			return ret;
		if (udata->outlen < sizeof(resp))
			return -EINVAL;
	}
	ret = orca_ah_attr_to_av(init_attr->ah_attr, &ah->av);
	if (ret)
		return ret;
	if (udata) {
		resp.av = ah->av;
		ret = orca_udata_put_resp(udata, &resp, sizeof(resp));
		if (ret)
			return ret;
	}
	atomic64_inc(&dev->num_ahs);
	return 0;
}

static int orca_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	atomic64_dec(&to_odev(ibah->device)->num_ahs);
	return 0;
}

static int orca_gid_cmd(const struct ib_gid_attr *attr, u8 opcode)
{
	struct orca_dev *dev = to_odev(attr->device);
	struct orca_cmd_gid c = {};
	u16 vlan = ORCA_AH_VLAN_NONE;
	int ret;

	if (attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	/* DEL_GID needs only the index; the netdev may be gone by then. */
	if (opcode == ORCA_CMD_ADD_GID) {
		ret = rdma_read_gid_l2_fields(attr, &vlan, c.mac);
		if (ret)
			return ret;
		if (vlan >= VLAN_N_VID)
			vlan = ORCA_AH_VLAN_NONE;
	}
	memcpy(c.gid, attr->gid.raw, sizeof(c.gid));
	c.index = cpu_to_le32(attr->index);
	c.type = cpu_to_le32(ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw) ?
			     ORCA_GID_ROCE_V2_IPV4 : ORCA_GID_ROCE_V2_IPV6);
	c.vlan = cpu_to_le16(vlan);
	return orca_cmd_gid(dev, opcode, &c);
}

static int orca_add_gid(const struct ib_gid_attr *attr, void **context)
{
	return orca_gid_cmd(attr, ORCA_CMD_ADD_GID);
}

static int orca_del_gid(const struct ib_gid_attr *attr, void **context)
{
	int ret = orca_gid_cmd(attr, ORCA_CMD_DEL_GID);

	if (ret)
		ibdev_warn_ratelimited(attr->device,
				       "DEL_GID %u failed: %d\n",
				       attr->index, ret);
	return 0;
}

static int orca_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	return orca_cmd_mcast(to_odev(ibqp->device), ORCA_CMD_ATTACH_MCAST,
			      gid->raw, to_oqp(ibqp)->qpn);
}

/*
 * ib_core has already forgotten the attachment when it calls here, and
 * it keeps the QP's use count if this fails: a failed detach would leave
 * a QP that can never be destroyed.  So a detach the device refuses is
 * logged and succeeds; the device drops the attachment with the QP.
 */
static int orca_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	int ret;

	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	ret = orca_cmd_mcast(to_odev(ibqp->device), ORCA_CMD_DETACH_MCAST,
			     gid->raw, to_oqp(ibqp)->qpn);
	if (ret)
		ibdev_warn_ratelimited(ibqp->device,
				       "DETACH_MCAST of QP %u failed: %d; the QP stays attached until destroyed\n",
				       to_oqp(ibqp)->qpn, ret);
	return 0;
}

/* The AH count comes from the driver, at the device's "ahs" slot. */
#define ORCA_STAT_AHS	((offsetof(struct orca_hw_stats, ahs) - \
			  offsetof(struct orca_hw_stats, cmds_completed)) / \
			 sizeof(__le64))

/* Port statistics: the device's counters, in struct orca_hw_stats order. */
static const struct rdma_stat_desc orca_stat_descs[] = {
	{ .name = "cmds_completed" },
	{ .name = "cmds_failed" },
	{ .name = "async_events" },
	{ .name = "async_events_dropped" },
	{ .name = "pds" },
	{ .name = "mrs" },
	{ .name = "cqs" },
	{ .name = "qps" },
	{ .name = "srqs" },
	{ .name = "ahs" },
	{ .name = "tx_packets" },
	{ .name = "tx_bytes" },
	{ .name = "rx_packets" },
	{ .name = "rx_bytes" },
	{ .name = "rx_drops" },
	{ .name = "rx_icrc_errors" },
	{ .name = "tx_drops" },
	{ .name = "retransmits" },
	{ .name = "ack_timeouts" },
	{ .name = "rnr_naks_sent" },
	{ .name = "rnr_naks_rcvd" },
	{ .name = "seq_naks_sent" },
	{ .name = "seq_naks_rcvd" },
	{ .name = "inv_req_naks_sent" },
	{ .name = "inv_req_naks_rcvd" },
	{ .name = "access_naks_sent" },
	{ .name = "access_naks_rcvd" },
	{ .name = "op_naks_sent" },
	{ .name = "op_naks_rcvd" },
	{ .name = "duplicates" },
	{ .name = "out_of_sequence" },
	{ .name = "ud_drops" },
};

/* One name per counter: the mailbox is nothing but counters. */
static_assert(ARRAY_SIZE(orca_stat_descs) ==
	      sizeof(struct orca_hw_stats) / sizeof(__le64));

static struct rdma_hw_stats *orca_alloc_hw_port_stats(struct ib_device *ibdev,
						      u32 port)
{
	return rdma_alloc_hw_stats_struct(orca_stat_descs,
					  ARRAY_SIZE(orca_stat_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int orca_get_hw_stats(struct ib_device *ibdev,
			     struct rdma_hw_stats *stats, u32 port, int index)
{
	struct orca_hw_stats hw;
	const __le64 *ctr = (const __le64 *)&hw;
	unsigned int i;
	int ret;

	ret = orca_cmd_query_stats(to_odev(ibdev), &hw);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(orca_stat_descs); i++)
		stats->value[i] = le64_to_cpu(ctr[i]);
	/* Since v1.2 the device has no AHs (its field reads 0). */
	stats->value[ORCA_STAT_AHS] =
		atomic64_read(&to_odev(ibdev)->num_ahs);
	return ARRAY_SIZE(orca_stat_descs);
}

const struct ib_device_ops orca_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = ORCA_UVERBS_ABI_VERSION,

	.add_gid = orca_add_gid,
	.advise_mr = orca_advise_mr,
	.alloc_hw_port_stats = orca_alloc_hw_port_stats,
	.alloc_mr = orca_alloc_mr,
	.alloc_mw = orca_alloc_mw,
	.alloc_dm = orca_alloc_dm,
	.alloc_pd = orca_alloc_pd,
	.alloc_xrcd = orca_alloc_xrcd,
	.alloc_ucontext = orca_alloc_ucontext,
	.attach_mcast = orca_attach_mcast,
	.create_ah = orca_create_ah,
	.create_cq = orca_create_cq,
	.create_qp = orca_create_qp,
	.create_srq = orca_create_srq,
	.create_user_ah = orca_create_ah,
	.dealloc_mw = orca_dealloc_mw,
	.dealloc_dm = orca_dealloc_dm,
	.dealloc_pd = orca_dealloc_pd,
	.dealloc_xrcd = orca_dealloc_xrcd,
	.dealloc_ucontext = orca_dealloc_ucontext,
	.del_gid = orca_del_gid,
	.dereg_mr = orca_dereg_mr,
	.destroy_ah = orca_destroy_ah,
	.destroy_cq = orca_destroy_cq,
	.destroy_qp = orca_destroy_qp,
	.destroy_srq = orca_destroy_srq,
	.detach_mcast = orca_detach_mcast,
	.disassociate_ucontext = orca_disassociate_ucontext,
	.fill_res_cq_entry = orca_fill_res_cq_entry,
	.fill_res_mr_entry = orca_fill_res_mr_entry,
	.fill_res_qp_entry = orca_fill_res_qp_entry,
	.get_dma_mr = orca_get_dma_mr,
	.get_hw_stats = orca_get_hw_stats,
	.get_link_layer = orca_get_link_layer,
	.get_port_immutable = orca_get_port_immutable,
	.map_mr_sg = orca_map_mr_sg,
	.mmap = orca_mmap,
	.mmap_free = orca_mmap_free,
	.modify_qp = orca_modify_qp,
	.modify_srq = orca_modify_srq,
	.poll_cq = orca_poll_cq,
	.post_recv = orca_post_recv,
	.post_send = orca_post_send,
	.post_srq_recv = orca_post_srq_recv,
	.query_device = orca_query_device,
	.query_pkey = orca_query_pkey,
	.query_port = orca_query_port,
	.query_qp = orca_query_qp,
	.query_srq = orca_query_srq,
	.query_ucontext = orca_query_ucontext,
	.reg_dm_mr = orca_reg_dm_mr,
	.reg_user_mr = orca_reg_user_mr,
	.req_notify_cq = orca_req_notify_cq,
	.rereg_user_mr = orca_rereg_user_mr,
	.resize_cq = orca_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, orca_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, orca_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, orca_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, orca_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, orca_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, orca_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, orca_ucontext, ibucontext),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, orca_xrcd, ibxrcd),
};
