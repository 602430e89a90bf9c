// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca HCA driver: device memory (interface 1.4).
 *
 * ALLOC_DM gives a run of the function's device memory aperture (the bus
 * binding's dm_phys/dm_size, a BAR on PCI).  The process maps it through
 * an mmap entry whose key goes back in an Orca driver attribute of the
 * DM_ALLOC method: ioctl methods carry no udata.  The allocation lives as
 * long as a mapping of it does: ibv_free_dm only removes the entry, and
 * DEALLOC_DM is sent when the last mapping is gone (orca_mmap_free()), so
 * a process can never reach memory the device has handed to another.
 * Regions on device memory are in orca_mr.c (orca_reg_dm_mr()).
 *
 * ORCA_IB_METHOD_DM_QUERY gives another context on the same ucontext
 * (ibv_import_device(3)) the key and length of a DM, for ibv_import_dm(3).
 * The driver's other uverbs attribute, the QUERY_CONTEXT response of
 * orca_query_ucontext(), is declared here too, with orca_uapi_defs,
 * which also takes in the QP kick method of orca_wr.c.
 */

#define UVERBS_MODULE_NAME orca_ib
#include <linux/bitfield.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>

#include "orca.h"

/* The device memory of @dev, in bytes; 0 without the capability. */
u64 orca_dm_size(const struct orca_dev *dev)
{
	if (!(le32_to_cpu(dev->hw_attr.cap_flags) & ORCA_HW_DEV_CAP_DM))
		return 0;
	return min_t(u64, le32_to_cpu(dev->hw_attr.dm_size),
		     dev->bdev->dm_size);
}

struct ib_dm *orca_alloc_dm(struct ib_device *ibdev,
			    struct ib_ucontext *uctx,
			    struct ib_dm_alloc_attr *attr,
			    struct uverbs_attr_bundle *attrs)
{
	struct orca_dev *dev = to_odev(ibdev);
	struct orca_mmap_entry *mentry;
	struct orca_dm *dm;
	u64 key, size = orca_dm_size(dev);
	int ret;

	if (!size || attr->flags)
		return ERR_PTR(-EOPNOTSUPP);
	if (!attr->length)
		return ERR_PTR(-EINVAL);
	if (attr->length > size || PAGE_ALIGN(attr->length) > size)
		return ERR_PTR(-ENOMEM);

	dm = kzalloc(sizeof(*dm), GFP_KERNEL);
	if (!dm)
		return ERR_PTR(-ENOMEM);
	mentry = kzalloc(sizeof(*mentry), GFP_KERNEL);
	if (!mentry) {
		ret = -ENOMEM;
		goto err_free_dm;
	}
	/*
	 * Whole CPU pages, so that a mapping shows this allocation alone
	 * (pages may be larger than the device's granules).
	 */
	ret = orca_cmd_alloc_dm(dev, PAGE_ALIGN(attr->length),
				max_t(u32, attr->alignment, PAGE_SHIFT),
				&dm->dmn);
	if (ret)
		goto err_free_entry;
	dm->offset = (u64)(dm->dmn - 1) * ORCA_DM_UNIT;
	if (!PAGE_ALIGNED(dm->offset) || dm->offset > size ||
	    PAGE_ALIGN(attr->length) > size - dm->offset) {
		ret = -EIO;
		goto err_dealloc;
	}

	mentry->dev = dev;
	mentry->dmn = dm->dmn;
	mentry->dm_phys = dev->bdev->dm_phys + dm->offset;
	mentry->dm_len = PAGE_ALIGN(attr->length);
	ret = rdma_user_mmap_entry_insert(uctx, &mentry->rentry,
					  mentry->dm_len);
	if (ret)
		goto err_dealloc;
	dm->mentry = mentry;
	key = rdma_user_mmap_get_offset(&mentry->rentry);
	ret = uverbs_copy_to(attrs, ORCA_IB_ATTR_ALLOC_DM_RESP_MMAP_KEY, &key,
			     sizeof(key));
	if (ret) {
		/* orca_mmap_free() deallocates it. */
		rdma_user_mmap_entry_remove(&mentry->rentry);
		kfree(dm);
		return ERR_PTR(ret);
	}
	return &dm->ibdm;

err_dealloc:
	if (orca_cmd_dealloc_dm(dev, dm->dmn))
		ibdev_warn(ibdev, "DEALLOC_DM %u failed\n", dm->dmn);
err_free_entry:
	kfree(mentry);
err_free_dm:
	kfree(dm);
	return ERR_PTR(ret);
}

/*
 * ib_core checked that no region uses it.  Mappings may outlive this:
 * the device memory goes back to the device with the last of them.
 */
int orca_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs)
{
	struct orca_dm *dm = to_odm(ibdm);

	rdma_user_mmap_entry_remove(&dm->mentry->rentry);
	kfree(dm);
	return 0;
}

/* The last mapping of an allocation is gone (orca_mmap_free()). */
void orca_dm_release(struct orca_mmap_entry *mentry)
{
	int ret = orca_destroy_retried(mentry->dev, orca_cmd_dealloc_dm,
				       mentry->dmn);

	/* A device that refused twice keeps it. */
	if (ret)
		ibdev_warn_ratelimited(&mentry->dev->ibdev,
				       "DEALLOC_DM %u failed: %d\n",
				       mentry->dmn, ret);
}

/*
 * ib_core found the handle's object in this ucontext, checked that it is
 * a DM and holds it (shared) until the method returns, so ibv_free_dm
 * cannot take it meanwhile (EBUSY).  The mmap entry lives as long as
 * the DM does: the key names it until orca_dealloc_dm().
 */
static int UVERBS_HANDLER(ORCA_IB_METHOD_DM_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_dm *ibdm = uverbs_attr_get_obj(attrs,
						 ORCA_IB_ATTR_QUERY_DM_HANDLE);
	struct orca_dm *dm;
	u64 key, length;
	int ret;

	if (IS_ERR(ibdm))
		return PTR_ERR(ibdm);
	dm = to_odm(ibdm);
	key = rdma_user_mmap_get_offset(&dm->mentry->rentry);
	length = ibdm->length;
	ret = uverbs_copy_to(attrs, ORCA_IB_ATTR_QUERY_DM_RESP_MMAP_KEY, &key,
			     sizeof(key));
	if (ret)
		return ret;
	return uverbs_copy_to(attrs, ORCA_IB_ATTR_QUERY_DM_RESP_LENGTH,
			      &length, sizeof(length));
}

DECLARE_UVERBS_NAMED_METHOD(ORCA_IB_METHOD_DM_QUERY,
			    UVERBS_ATTR_IDR(ORCA_IB_ATTR_QUERY_DM_HANDLE,
					    UVERBS_OBJECT_DM,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(ORCA_IB_ATTR_QUERY_DM_RESP_MMAP_KEY,
						UVERBS_ATTR_TYPE(u64),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(ORCA_IB_ATTR_QUERY_DM_RESP_LENGTH,
						UVERBS_ATTR_TYPE(u64),
						UA_MANDATORY));

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_DM,
			      &UVERBS_METHOD(ORCA_IB_METHOD_DM_QUERY));

ADD_UVERBS_ATTRIBUTES_SIMPLE(orca_ib_dm, UVERBS_OBJECT_DM,
			     UVERBS_METHOD_DM_ALLOC,
			     UVERBS_ATTR_PTR_OUT(ORCA_IB_ATTR_ALLOC_DM_RESP_MMAP_KEY,
						 UVERBS_ATTR_TYPE(u64),
						 UA_MANDATORY));

ADD_UVERBS_ATTRIBUTES_SIMPLE(orca_ib_query_context, UVERBS_OBJECT_DEVICE,
			     UVERBS_METHOD_QUERY_CONTEXT,
			     UVERBS_ATTR_PTR_OUT(ORCA_IB_ATTR_QUERY_CONTEXT_RESP,
						 UVERBS_ATTR_STRUCT(struct orca_alloc_ucontext_resp,
								    reserved),
						 UA_MANDATORY));

const struct uapi_definition orca_uapi_defs[] = {
	UAPI_DEF_CHAIN(orca_qp_uapi_defs),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DM, &orca_ib_dm),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_DM),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &orca_ib_query_context),
	{},
};
