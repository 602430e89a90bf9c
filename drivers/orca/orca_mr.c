// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca HCA driver: memory regions.
 *
 * REG_MR hands the device a region's page list.  The list lives in DMA
 * memory owned by the driver for the duration of the command only: the
 * device copies it.  Level 1 is one array of page addresses; level 2,
 * used when that array would not fit a page, is an array of addresses of
 * pages holding the level 1 entries.
 *
 * A user region registered with IB_ACCESS_ON_DEMAND has no page list:
 * its pages are mapped when the device asks for them (orca_odp.c).
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "orca.h"

#define ORCA_PBL_PAGE_SIZE	4096
#define ORCA_PBL_ENTRIES	(ORCA_PBL_PAGE_SIZE / sizeof(__le64))
#define ORCA_MR_IB_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ACCESS_MW_BIND)

static int orca_mr_check_access(struct orca_dev *dev, int access)
{
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	/* The region right exists where windows do (interface 1.3). */
	if ((access & IB_ACCESS_MW_BIND) &&
	    !(le32_to_cpu(dev->hw_attr.cap_flags) & ORCA_HW_DEV_CAP_MW))
		return -EOPNOTSUPP;
	/* Optional flags (relaxed ordering) may be ignored, no others. */
	if (access & ~(ORCA_MR_IB_ACCESS | IB_ACCESS_OPTIONAL))
		return -EOPNOTSUPP;
	return 0;
}

static struct orca_mr *orca_mr_alloc(void)
{
	return kzalloc(sizeof(struct orca_mr), GFP_KERNEL);
}

/* Register with the device; fills the key and the common fields. */
static int orca_mr_register(struct orca_dev *dev, struct ib_pd *ibpd,
			    struct orca_mr *mr, struct orca_hw_reg_mr *in)
{
	u32 variant = atomic_inc_return(&dev->mr_variant) & ORCA_MR_KEY_VARIANT;
	int ret;

	in->pdn = cpu_to_le32(to_opd(ibpd)->pdn);
	in->key_variant = cpu_to_le32(variant);
	in->flags = cpu_to_le32(mr->flags |
				FIELD_PREP(ORCA_MR_PAGE_SHIFT, mr->page_shift) |
				le32_to_cpu(in->flags));
	in->num_pages = cpu_to_le32(mr->num_pages);
	ret = orca_cmd_reg_mr(dev, in, &mr->key);
	if (ret)
		return ret;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return 0;
}

void orca_pbl_free(struct device *dmadev, struct orca_pbl *pbl)
{
	u32 i;

	for (i = 0; i < pbl->n_l1; i++)
		if (pbl->l1[i].va)
			dma_free_coherent(dmadev, pbl->l1[i].size,
					  pbl->l1[i].va, pbl->l1[i].dma);
	kfree(pbl->l1);
	if (pbl->top.va)
		dma_free_coherent(dmadev, pbl->top.size, pbl->top.va,
				  pbl->top.dma);
	memset(pbl, 0, sizeof(*pbl));
}

/*
 * The device did not confirm REG_MR or DEREG_MR: it may still read the
 * page list and access the pages.  Keep both until it is disabled.
 */
static void orca_mr_zombie(struct orca_dev *dev, struct orca_mr *mr)
{
	mutex_lock(&dev->zombie_lock);
	list_add_tail(&mr->zombie, &dev->mr_zombies);
	mutex_unlock(&dev->zombie_lock);
}

static void orca_mr_free(struct orca_dev *dev, struct orca_mr *mr)
{
	if (mr->flags & ORCA_MR_FLAG_ODP)
		orca_odp_mr_destroy(dev, mr);
	orca_pbl_free(dev->dmadev, &mr->pbl);
	if (mr->umem)
		ib_umem_release(mr->umem);
	if (mr->pages)
		dma_free_coherent(dev->dmadev,
				  mr->max_pages * sizeof(*mr->pages),
				  mr->pages, mr->pages_dma);
	kfree(mr);
}

/* The device is disabled: free what it may have been using. */
void orca_mr_zombies_release(struct orca_dev *dev)
{
	struct orca_mr *mr, *tmp;

	mutex_lock(&dev->zombie_lock);
	list_for_each_entry_safe(mr, tmp, &dev->mr_zombies, zombie) {
		list_del(&mr->zombie);
		orca_mr_free(dev, mr);
	}
	mutex_unlock(&dev->zombie_lock);
}

static int orca_pbl_buf_alloc(struct device *dmadev, struct orca_pbl_buf *b,
			      size_t size)
{
	b->size = size;
	b->va = dma_alloc_coherent(dmadev, size, &b->dma, GFP_KERNEL);
	return b->va ? 0 : -ENOMEM;
}

/**
 * orca_pbl_alloc - allocate a page list of @num_pages entries
 * @dmadev: the device's DMA device
 * @num_pages: entries, at least 1
 * @pbl: the list; its entries are then written with orca_pbl_set()
 *
 * Up to 512 entries take one level-1 table, more a level-2 list of 4 KiB
 * table pages, so no DMA allocation is larger than a page.  The device
 * reads the list at @pbl->top.dma.  On failure @pbl is left empty (or
 * with a level-1 table of no memory), which orca_pbl_free() accepts.
 */
int orca_pbl_alloc(struct device *dmadev, u32 num_pages, struct orca_pbl *pbl)
{
	u32 i;
	int ret;

	memset(pbl, 0, sizeof(*pbl));
	if ((size_t)num_pages * sizeof(__le64) <= ORCA_PBL_PAGE_SIZE) {
		pbl->levels = 1;
		return orca_pbl_buf_alloc(dmadev, &pbl->top,
					  num_pages * sizeof(__le64));
	}

	/*
	 * Beyond what two levels of page list translate: a resource limit
	 * of the device (ibv_reg_mr(3) reports those as ENOMEM).
	 */
	if (DIV_ROUND_UP(num_pages, ORCA_PBL_ENTRIES) > ORCA_PBL_ENTRIES)
		return -ENOMEM;
	pbl->l1 = kcalloc(DIV_ROUND_UP(num_pages, ORCA_PBL_ENTRIES),
			  sizeof(*pbl->l1), GFP_KERNEL);
	if (!pbl->l1)
		return -ENOMEM;
	pbl->levels = 2;
	pbl->n_l1 = DIV_ROUND_UP(num_pages, ORCA_PBL_ENTRIES);
	ret = orca_pbl_buf_alloc(dmadev, &pbl->top,
				 pbl->n_l1 * sizeof(__le64));
	if (ret)
		goto err;
	for (i = 0; i < pbl->n_l1; i++) {
		ret = orca_pbl_buf_alloc(dmadev, &pbl->l1[i],
					 ORCA_PBL_PAGE_SIZE);
		if (ret)
			goto err;
		pbl->top.va[i] = cpu_to_le64(pbl->l1[i].dma);
	}
	return 0;

err:
	orca_pbl_free(dmadev, pbl);
	return ret;
}

/* Entry @i of a list from orca_pbl_alloc() names the page at @dma. */
void orca_pbl_set(struct orca_pbl *pbl, u32 i, dma_addr_t dma)
{
	__le64 *slot;

	if (pbl->levels == 1)
		slot = &pbl->top.va[i];
	else
		slot = &pbl->l1[i / ORCA_PBL_ENTRIES].va[i % ORCA_PBL_ENTRIES];
	*slot = cpu_to_le64(dma);
}

/* Build the page list of @umem in blocks of @pgsz bytes. */
static int orca_pbl_build(struct orca_dev *dev, struct ib_umem *umem,
			  unsigned long pgsz, u32 num_pages,
			  struct orca_pbl *pbl)
{
	struct ib_block_iter biter;
	u32 i = 0;
	int ret;

	ret = orca_pbl_alloc(dev->dmadev, num_pages, pbl);
	if (ret)
		return ret;
	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		if (WARN_ON_ONCE(i >= num_pages))
			break;
		orca_pbl_set(pbl, i++, rdma_block_iter_dma_address(&biter));
	}
	return 0;
}

/* DEREG_MR; an ODP region's under its cmd_lock (orca_odp_dereg()). */
static int orca_mr_hw_dereg(struct orca_dev *dev, struct orca_mr *mr)
{
	if (mr->flags & ORCA_MR_FLAG_ODP)
		return orca_odp_dereg(dev, mr);
	return orca_cmd_dereg_mr(dev, mr->key);
}

/* Undo a registration nobody has seen yet. */
static void orca_mr_discard(struct orca_dev *dev, struct orca_mr *mr)
{
	/*
	 * An ODP region needs no zombie: orca_mr_free() unmaps its pages on
	 * the device first, and the notifier would not wait for one.
	 */
	if (orca_mr_hw_dereg(dev, mr) && !(mr->flags & ORCA_MR_FLAG_ODP)) {
		orca_mr_zombie(dev, mr);
		return;
	}
	orca_mr_free(dev, mr);
}

/*
 * An on-demand-paging region of [start, start + length) at @virt: no
 * page is pinned or present when it is registered (orca_odp.c).
 */
static struct orca_mr *orca_mr_create_odp(struct ib_pd *ibpd, u64 start,
					  u64 length, u64 virt, int access)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	struct orca_hw_reg_mr in = {};
	struct orca_mr *mr;
	int ret;

	mr = orca_mr_alloc();
	if (!mr)
		return ERR_PTR(-ENOMEM);
	ret = orca_odp_mr_init(mr, ibpd, start, length, virt, access);
	if (ret)
		goto err_free;
	in.iova = cpu_to_le64(virt);
	in.length = cpu_to_le64(length);
	in.access = cpu_to_le32(orca_access_to_hw(access));
	/*
	 * Even a REG_MR without an answer leaves nothing to keep: no page
	 * of the region is present, so the device can reach no memory.
	 */
	ret = orca_mr_register(dev, ibpd, mr, &in);
	if (ret)
		goto err_free;
	ret = orca_odp_mr_publish(dev, mr);
	if (ret) {
		orca_mr_discard(dev, mr);
		return ERR_PTR(ret);
	}
	return mr;

err_free:
	orca_mr_free(dev, mr);
	return ERR_PTR(ret);
}

/*
 * Pin [start, start + length), hand the device its page list and
 * register it at @virt in @ibpd: a new MR with a new key.  With
 * IB_ACCESS_ON_DEMAND, an ODP region instead.
 */
static struct orca_mr *orca_mr_create_user(struct ib_pd *ibpd, u64 start,
					   u64 length, u64 virt, int access)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	struct orca_hw_reg_mr in = {};
	unsigned long pgsz;
	struct orca_mr *mr;
	int ret;

	ret = orca_mr_check_access(dev, access & ~IB_ACCESS_ON_DEMAND);
	if (ret)
		return ERR_PTR(ret);
	/* The implicit region too: orca_odp_mr_init() checks the range. */
	if (access & IB_ACCESS_ON_DEMAND)
		return orca_mr_create_odp(ibpd, start, length, virt, access);
	if (!length || length > le64_to_cpu(dev->hw_attr.max_mr_size))
		return ERR_PTR(-EINVAL);

	mr = orca_mr_alloc();
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->access = access;
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		ret = PTR_ERR(mr->umem);
		goto err_free;
	}
	pgsz = ib_umem_find_best_pgsz(mr->umem,
				      le64_to_cpu(dev->hw_attr.page_size_cap),
				      virt);
	if (!pgsz) {
		ret = -EINVAL;
		goto err_release;
	}
	mr->page_shift = order_base_2(pgsz);
	mr->num_pages = ib_umem_num_dma_blocks(mr->umem, pgsz);

	ret = orca_pbl_build(dev, mr->umem, pgsz, mr->num_pages, &mr->pbl);
	if (ret)
		goto err_release;
	in.iova = cpu_to_le64(virt);
	in.length = cpu_to_le64(length);
	in.pbl_addr = cpu_to_le64(mr->pbl.top.dma);
	in.access = cpu_to_le32(orca_access_to_hw(access));
	in.flags = cpu_to_le32(FIELD_PREP(ORCA_MR_PBL_LEVELS, mr->pbl.levels));
	ret = orca_mr_register(dev, ibpd, mr, &in);
	if (orca_admin_effect_unknown(dev, ret)) {
		/* No answer: the device may still read the list and register. */
		orca_mr_zombie(dev, mr);
		return ERR_PTR(ret);
	}
	/* The device copied the page list (or refused it). */
	orca_pbl_free(dev->dmadev, &mr->pbl);
	if (ret)
		goto err_release;
	return mr;

err_release:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(ret);
}

struct ib_mr *orca_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 virt, int access, struct ib_udata *udata)
{
	struct orca_mr *mr;

	if (udata && orca_udata_no_req(udata))
		return ERR_PTR(-EINVAL);
	/* ODP follows a process's address space: a kernel caller has none. */
	if (!udata && (access & IB_ACCESS_ON_DEMAND))
		return ERR_PTR(-EOPNOTSUPP);
	mr = orca_mr_create_user(ibpd, start, length, virt, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	return &mr->ibmr;
}

/*
 * ibv_rereg_mr(3): a new registration with the old region's attributes
 * for whatever @flags leaves unchanged, returned for ib_core to put in
 * the old one's place; the keys change.  The old region is deregistered
 * here, before ib_core destroys it: a region with memory windows bound
 * is not (BUSY), and the rereg then fails with EBUSY, the new region
 * undone.  Whenever the rereg fails, the old MR is unchanged and valid.
 */
struct ib_mr *orca_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				 u64 length, u64 virt, int access,
				 struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibmr->device);
	struct orca_mr *old = to_omr(ibmr);
	struct orca_mr *mr;
	int ret;

	if (udata && orca_udata_no_req(udata))
		return ERR_PTR(-EINVAL);
	/* Only what reg_user_mr registered: it has a umem. */
	if (!old->umem)
		return ERR_PTR(-EINVAL);
	if (!(flags & IB_MR_REREG_TRANS) && old->odp.implicit) {
		/* The whole address space again. */
		start = 0;
		length = U64_MAX;
		virt = 0;
	} else if (!(flags & IB_MR_REREG_TRANS)) {
		start = old->umem->address;
		length = old->umem->length;
		virt = ibmr->iova;
	}
	if (!(flags & IB_MR_REREG_ACCESS))
		access = old->access;

	mr = orca_mr_create_user(ibpd, start, length, virt, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	ret = orca_mr_hw_dereg(dev, old);
	if (ret == -EBUSY) {
		orca_mr_discard(dev, mr);
		return ERR_PTR(ret);
	}
	/* Another failure: ib_core's destroy of the old MR tries again. */
	if (!ret)
		old->deregistered = true;
	/* ib_core sets these at reg_mr, but not for a rereg's new MR. */
	mr->ibmr.iova = virt;
	mr->ibmr.length = length;
	return &mr->ibmr;
}

struct ib_mr *orca_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	struct orca_hw_reg_mr in = {};
	struct orca_mr *mr;
	int ret;

	ret = orca_mr_check_access(dev, access);
	if (ret)
		return ERR_PTR(ret);
	mr = orca_mr_alloc();
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->flags = ORCA_MR_FLAG_PHYSICAL;
	in.length = dev->hw_attr.max_mr_size;
	in.access = cpu_to_le32(orca_access_to_hw(access));
	ret = orca_mr_register(dev, ibpd, mr, &in);
	if (ret) {
		kfree(mr);
		return ERR_PTR(ret);
	}
	return &mr->ibmr;
}

/*
 * A region on device memory: bytes [offset, offset + length) of the
 * allocation, addressed from 0 (ib_core requires IB_ZERO_BASED).  The
 * device builds the translation from the aperture offset; the region
 * keeps the allocation (ib_core counts it in dm->usecnt).
 */
struct ib_mr *orca_reg_dm_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
			     struct ib_dm_mr_attr *attr,
			     struct uverbs_attr_bundle *attrs)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	struct orca_dm *dm = to_odm(ibdm);
	int access = attr->access_flags & ~IB_ZERO_BASED;
	struct orca_hw_reg_mr in = {};
	struct orca_mr *mr;
	int ret;

	ret = orca_mr_check_access(dev, access);
	if (ret)
		return ERR_PTR(ret);
	if (!attr->length || attr->offset > ibdm->length ||
	    attr->length > ibdm->length - attr->offset)
		return ERR_PTR(-EINVAL);
	/*
	 * Remote atomics address 8-byte words from 0, and the device needs
	 * them aligned in device memory: the region must start aligned.
	 */
	if ((access & IB_ACCESS_REMOTE_ATOMIC) &&
	    !IS_ALIGNED(dm->offset + attr->offset, sizeof(u64)))
		return ERR_PTR(-EINVAL);
	mr = orca_mr_alloc();
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->flags = ORCA_MR_FLAG_DM;
	mr->page_shift = ilog2(ORCA_DM_UNIT);
	mr->access = attr->access_flags;
	in.iova = 0;
	in.length = cpu_to_le64(attr->length);
	in.pbl_addr = cpu_to_le64(dm->offset + attr->offset);
	in.access = cpu_to_le32(orca_access_to_hw(access));
	ret = orca_mr_register(dev, ibpd, mr, &in);
	if (ret) {
		kfree(mr);
		return ERR_PTR(ret);
	}
	mr->ibmr.length = attr->length;
	mr->ibmr.iova = 0;
	return &mr->ibmr;
}

struct ib_mr *orca_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			    u32 max_num_sg)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	struct orca_hw_reg_mr in = {};
	struct orca_mr *mr;
	int ret;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg ||
	    max_num_sg > le32_to_cpu(dev->hw_attr.max_fast_reg_page_list_len))
		return ERR_PTR(-EINVAL);

	mr = orca_mr_alloc();
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->pages = dma_alloc_coherent(dev->dmadev,
				       max_num_sg * sizeof(*mr->pages),
				       &mr->pages_dma, GFP_KERNEL);
	if (!mr->pages) {
		ret = -ENOMEM;
		goto err_free;
	}
	mr->max_pages = max_num_sg;
	mr->flags = ORCA_MR_FLAG_FAST_REG;
	mr->page_shift = PAGE_SHIFT;
	mr->num_pages = max_num_sg;
	ret = orca_mr_register(dev, ibpd, mr, &in);
	if (ret)
		goto err_free_pages;
	return &mr->ibmr;

err_free_pages:
	dma_free_coherent(dev->dmadev, max_num_sg * sizeof(*mr->pages),
			  mr->pages, mr->pages_dma);
err_free:
	kfree(mr);
	return ERR_PTR(ret);
}

static int orca_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct orca_mr *mr = to_omr(ibmr);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

/*
 * Build the page list a fast-register work request points the device at.
 * The consumer does not remap an MR while such a request is in flight.
 */
int orca_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset)
{
	struct orca_mr *mr = to_omr(ibmr);

	mr->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, orca_set_page);
}

int orca_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibmr->device);
	struct orca_mr *mr = to_omr(ibmr);
	int ret;

	/* A rereg deregistered it on the device already. */
	if (mr->deregistered) {
		orca_mr_free(dev, mr);
		return 0;
	}
	ret = orca_mr_hw_dereg(dev, mr);
	/*
	 * BUSY: memory windows are bound to it.  The user can unbind them,
	 * and a context's teardown deallocates them: refused every time
	 * (ibv_dereg_mr(3)), not once.
	 */
	if (ret == -EBUSY && udata)
		return ret;
	if (ret && orca_destroy_refused(dev, ret, udata, &mr->refused))
		return ret;
	if (ret) {
		ibdev_warn_ratelimited(ibmr->device,
				       "DEREG_MR 0x%x failed: %d\n",
				       mr->key, ret);
		/*
		 * The device may still access the pages or the page list.
		 * Not an ODP region's: orca_mr_free() unmaps its pages.
		 */
		if (!(mr->flags & ORCA_MR_FLAG_ODP) && (mr->umem || mr->pages)) {
			orca_mr_zombie(dev, mr);
			return 0;
		}
	}
	orca_mr_free(dev, mr);
	return 0;
}

/*
 * Memory windows (user only: ib_core has no kernel verb for them).  The
 * device validates every bind; the driver only allocates the key.
 */
int orca_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibmw->device);
	struct orca_mw *mw = to_omw(ibmw);
	u32 variant, type;
	int ret;

	if (!(le32_to_cpu(dev->hw_attr.cap_flags) & ORCA_HW_DEV_CAP_MW))
		return -EOPNOTSUPP;
	/* No driver request (zeroed bytes pass) and no driver response. */
	if (udata && orca_udata_no_req(udata))
		return -EINVAL;
	switch (ibmw->type) {
	case IB_MW_TYPE_1:
		type = ORCA_MW_TYPE_1;
		break;
	case IB_MW_TYPE_2:
		type = ORCA_MW_TYPE_2;
		break;
	default:
		return -EINVAL;
	}
	variant = atomic_inc_return(&dev->mr_variant) & ORCA_MR_KEY_VARIANT;
	ret = orca_cmd_alloc_mw(dev, to_opd(ibmw->pd)->pdn, type, variant,
				&mw->key);
	if (ret)
		return ret;
	ibmw->rkey = mw->key;
	return 0;
}

int orca_dealloc_mw(struct ib_mw *ibmw)
{
	struct orca_dev *dev = to_odev(ibmw->device);
	struct orca_mw *mw = to_omw(ibmw);
	int ret;

	ret = orca_cmd_dealloc_mw(dev, mw->key);
	if (ret && orca_destroy_refused(dev, ret, true, &mw->refused))
		return ret;
	/* A window holds no host memory that the device could still use. */
	if (ret)
		ibdev_warn_ratelimited(ibmw->device,
				       "DEALLOC_MW 0x%x failed: %d\n",
				       mw->key, ret);
	return 0;
}

int orca_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct orca_mr *mr = to_omr(ibmr);
	struct nlattr *nest;

	nest = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32_hex(msg, "key", mr->key) ||
	    rdma_nl_put_driver_u32(msg, "page_shift", mr->page_shift) ||
	    rdma_nl_put_driver_u32(msg, "num_pages", mr->num_pages) ||
	    rdma_nl_put_driver_u32_hex(msg, "flags", mr->flags))
		goto err;
	if ((mr->flags & ORCA_MR_FLAG_ODP) && orca_odp_fill_res(msg, mr))
		goto err;
	nla_nest_end(msg, nest);
	return 0;

err:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}
