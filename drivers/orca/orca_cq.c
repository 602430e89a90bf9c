// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca HCA driver: completion queues.
 *
 * A CQ's memory is one allocation: the ring of depth * ORCA_CQE_SIZE
 * bytes rounded up to a page, then a page whose first 64 bytes are the
 * CQ's doorbell record.  User CQs map all of it.
 */

#include <linux/log2.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_ioctl.h>

#include "orca.h"
#include <rdma/orca-abi.h>

static size_t orca_cq_ring_bytes(u32 depth)
{
	return PAGE_ALIGN((size_t)depth * ORCA_CQE_SIZE);
}

/* Depth for @cqe entries, or 0 if the device cannot hold them. */
static u32 orca_cq_depth(struct orca_dev *dev, int cqe)
{
	if (cqe < 0 || cqe > le32_to_cpu(dev->hw_attr.max_cqe))
		return 0;
	return roundup_pow_of_two(max(cqe, 2));
}

int orca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_create_cq_resp resp = {};
	struct orca_ucontext *uctx;
	size_t ring_bytes;
	u64 key = 0;
	u32 depth;
	int ret;

	if (udata) {
		ret = orca_udata_basic_req(udata, sizeof(resp));
		if (ret)
			return ret;
	}
	if (attr->flags)
		return -EOPNOTSUPP;
	if (!dev->num_ceqs)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= dev->num_ceqs)
		return -EINVAL;
	depth = orca_cq_depth(dev, attr->cqe);
	if (!depth || attr->cqe > INT_MAX)
		return -EINVAL;

	mutex_init(&cq->resize_lock);
	cq->log2_depth = ilog2(depth);
	cq->eqn = dev->ceqs[attr->comp_vector].eqn;
	ring_bytes = orca_cq_ring_bytes(depth);
	cq->qmem = orca_qmem_alloc(dev, ring_bytes + PAGE_SIZE);
	if (IS_ERR(cq->qmem))
		return PTR_ERR(cq->qmem);

	ret = orca_cmd_create_cq(dev, cq->qmem->dma, cq->qmem->dma + ring_bytes,
				 cq->log2_depth, cq->eqn, &cq->cqn);
	if (ret)
		goto err_free;

	ret = xa_insert_irq(&dev->cq_xa, cq->cqn, cq, GFP_KERNEL);
	if (ret)
		goto err_destroy;

	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct orca_ucontext,
						 ibucontext);
		ret = orca_qmem_expose(&uctx->ibucontext, cq->qmem, &cq->mentry,
				       &key);
		if (ret)
			goto err_erase;
		resp.cqn = cq->cqn;
		resp.cqe_count = depth;
		resp.cqe_size = ORCA_CQE_SIZE;
		resp.mmap_key = key;
		resp.mmap_len = cq->qmem->size;
		resp.db_offset = ring_bytes;
		ret = orca_udata_put_resp(udata, &resp, sizeof(resp));
		if (ret)
			goto err_unexpose;
	}
	ibcq->cqe = depth;
	return 0;

err_unexpose:
	orca_qmem_unexpose(cq->mentry);
err_erase:
	xa_erase_irq(&dev->cq_xa, cq->cqn);
err_destroy:
	if (orca_cmd_destroy_cq(dev, cq->cqn)) {
		orca_qmem_destroyed(dev, cq->qmem, false);
		return ret;
	}
err_free:
	orca_qmem_put(cq->qmem);
	return ret;
}

int orca_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_resize_cq_resp resp = {};
	struct orca_mmap_entry *mentry = NULL;
	struct orca_ucontext *uctx;
	struct orca_qmem *qmem;
	size_t ring_bytes;
	u64 key = 0;
	u32 depth;
	int ret;

	if (udata) {
		ret = orca_udata_basic_req(udata, sizeof(resp));
		if (ret)
			return ret;
	}
	depth = orca_cq_depth(dev, cqe);
	if (!depth || cqe < 1)
		return -EINVAL;

	ring_bytes = orca_cq_ring_bytes(depth);
	qmem = orca_qmem_alloc(dev, ring_bytes + PAGE_SIZE);
	if (IS_ERR(qmem))
		return PTR_ERR(qmem);
	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct orca_ucontext,
						 ibucontext);
		ret = orca_qmem_expose(&uctx->ibucontext, qmem, &mentry, &key);
		if (ret)
			goto err_free;
	}

	mutex_lock(&cq->resize_lock);
	/* The new record starts where the old one is. */
	memcpy(qmem->va + ring_bytes,
	       cq->qmem->va + orca_cq_ring_bytes(1U << cq->log2_depth),
	       ORCA_DB_RECORD_SIZE);
	ret = orca_cmd_resize_cq(dev, cq->cqn, qmem->dma,
				 qmem->dma + ring_bytes, ilog2(depth));
	if (ret) {
		mutex_unlock(&cq->resize_lock);
		goto err_unexpose;
	}
	/* The device confirmed it moved to the new memory. */
	orca_qmem_destroyed(dev, cq->qmem, true);
	if (cq->mentry)
		orca_qmem_unexpose(cq->mentry);
	cq->qmem = qmem;
	cq->mentry = mentry;
	cq->log2_depth = ilog2(depth);
	ibcq->cqe = depth;
	mutex_unlock(&cq->resize_lock);

	if (udata) {
		resp.cqe_count = depth;
		resp.mmap_key = key;
		resp.mmap_len = qmem->size;
		resp.db_offset = ring_bytes;
		return orca_udata_put_resp(udata, &resp, sizeof(resp));
	}
	return 0;

err_unexpose:
	if (mentry)
		orca_qmem_unexpose(mentry);
err_free:
	/* A device that did not answer may have started using it. */
	orca_qmem_destroyed(dev, qmem, ret != -EIO);
	return ret;
}

int orca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);

	/* BUSY: ib_core counts its users, and the device agrees. */
	return orca_destroy_queue(dev, &dev->cq_xa, cq->cqn, cq,
				  orca_cmd_destroy_cq, cq->qmem, cq->mentry,
				  "CQ");
}

int orca_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct orca_cq *cq = to_ocq(ibcq);
	struct nlattr *nest;

	nest = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "cqn", cq->cqn) ||
	    rdma_nl_put_driver_u32(msg, "depth", 1U << cq->log2_depth) ||
	    rdma_nl_put_driver_u32(msg, "eqn", cq->eqn))
		goto err;
	nla_nest_end(msg, nest);
	return 0;

err:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}
