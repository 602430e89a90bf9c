// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: memory windows.
 *
 * A window is an entry of the key table, like a region, but it has no
 * pages of its own: a BIND_MW work request points it at a range of a
 * region (which then cannot be deregistered) and gives it remote rights
 * and a new key variant.  Remote requests that name the window's key
 * resolve through it to the region.  A type 1 window belongs to its PD;
 * a type 2 window (type 2B) also to the QP that bound it, and only
 * requests arriving at that QP may use it.  Type 2 windows are
 * invalidated by LOCAL_INV and SEND_INV; type 1 windows are rebound or
 * unbound (length 0) instead.
 */

#include <linux/bitfield.h>
#include <linux/slab.h>

#include "orca_soft_engine.h"

#define ORCA_SOFT_BIND_INFO_ALL	(ORCA_WQE_BIND_ACCESS | \
				 ORCA_WQE_BIND_ZERO_BASED)
#define ORCA_SOFT_BIND_ACCESS	(ORCA_ACCESS_REMOTE_WRITE | \
				 ORCA_ACCESS_REMOTE_READ | \
				 ORCA_ACCESS_REMOTE_ATOMIC)

u8 orca_soft_alloc_mw(struct orca_soft_dev *sdev,
		      const union orca_aq_cmd *cmd,
		      struct orca_soft_cmd_out *out)
{
	const struct orca_cmd_alloc_mw *c = &cmd->alloc_mw;
	u32 type = le32_to_cpu(c->type);
	u32 variant = le32_to_cpu(c->key_variant);
	struct orca_soft_mr *mw;
	struct orca_soft_pd *pd;
	u32 index;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)) ||
	    (type != ORCA_MW_TYPE_1 && type != ORCA_MW_TYPE_2) ||
	    (variant & ~ORCA_MR_KEY_VARIANT))
		return ORCA_AQ_STS_BAD_PARAM;
	pd = orca_soft_pd_find(sdev, le32_to_cpu(c->pdn));
	if (!pd)
		return ORCA_AQ_STS_BAD_HANDLE;

	mw = kzalloc(sizeof(*mw), ORCA_SOFT_GFP);
	if (!mw)
		return ORCA_AQ_STS_NO_RESOURCES;
	mw->pd = pd;
	mw->mw_type = type;
	if (xa_alloc(&sdev->mrs, &index, mw, XA_LIMIT(1, ORCA_SOFT_MAX_MR),
		     ORCA_SOFT_GFP)) {
		kfree(mw);
		return ORCA_AQ_STS_NO_RESOURCES;
	}
	mw->key = FIELD_PREP(ORCA_MR_KEY_INDEX, index) | variant;
	pd->users++;
	sdev->counts.mws++;
	out->result = mw->key;
	return ORCA_AQ_STS_OK;
}

/* The window no longer grants access: it lets go of region and QP. */
void orca_soft_mw_unbind(struct orca_soft_mr *mw)
{
	if (mw->region)
		mw->region->windows--;
	if (mw->mw_qp)
		mw->mw_qp->windows--;
	mw->region = NULL;
	mw->mw_qp = NULL;
	mw->valid = false;
	mw->iova = 0;
	mw->length = 0;
	mw->base = 0;
	mw->access = 0;
}

u8 orca_soft_dealloc_mw(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_handle *c = &cmd->handle;
	u32 index = FIELD_GET(ORCA_MR_KEY_INDEX, le32_to_cpu(c->handle));
	struct orca_soft_mr *mw;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	/* Binding changes the variant: the index alone names a window. */
	mw = xa_load(&sdev->mrs, index);
	if (!mw || !mw->mw_type)
		return ORCA_AQ_STS_BAD_HANDLE;
	orca_soft_mw_unbind(mw);
	xa_erase(&sdev->mrs, index);
	mw->pd->users--;
	sdev->counts.mws--;
	kfree(mw);
	return ORCA_AQ_STS_OK;
}

/* DESTROY_QP: the type 2 windows bound through @qp become free. */
void orca_soft_mw_qp_gone(struct orca_soft_dev *sdev, struct orca_soft_qp *qp)
{
	struct orca_soft_mr *mw;
	unsigned long idx;

	xa_for_each(&sdev->mrs, idx, mw) {
		if (!qp->windows)
			break;
		if (mw->mw_type && mw->mw_qp == qp)
			orca_soft_mw_unbind(mw);
	}
}

/*
 * BIND_MW (struct orca_wqe_bind_mw, imm_inv the window's current key),
 * executed by @qp.  Every violation is MW_BIND_ERR.
 */
u8 orca_soft_bind_mw(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
		     u32 cur_key, const struct orca_wqe_bind_mw *b)
{
	u32 new_key = le32_to_cpu(b->new_key);
	u32 info = le32_to_cpu(b->info);
	u32 access = FIELD_GET(ORCA_WQE_BIND_ACCESS, info);
	bool zb = info & ORCA_WQE_BIND_ZERO_BASED;
	u64 addr = le64_to_cpu(b->addr);
	u64 length = le64_to_cpu(b->length);
	struct orca_soft_mr *mw, *mr = NULL;

	mw = xa_load(&sdev->mrs, FIELD_GET(ORCA_MR_KEY_INDEX, cur_key));
	if (!mw || !mw->mw_type || mw->key != cur_key || mw->pd != qp->pd ||
	    FIELD_GET(ORCA_MR_KEY_INDEX, new_key) !=
	    FIELD_GET(ORCA_MR_KEY_INDEX, cur_key))
		return ORCA_CQE_ST_MW_BIND_ERR;
	if ((info & ~ORCA_SOFT_BIND_INFO_ALL) ||
	    (access & ~ORCA_SOFT_BIND_ACCESS))
		return ORCA_CQE_ST_MW_BIND_ERR;
	if (mw->mw_type == ORCA_MW_TYPE_1) {
		/* Type 1: never zero-based; length 0 unbinds. */
		if (zb)
			return ORCA_CQE_ST_MW_BIND_ERR;
	} else if (mw->valid || !length) {
		/* Type 2: only a free window, and never to nothing. */
		return ORCA_CQE_ST_MW_BIND_ERR;
	}

	if (length) {
		mr = xa_load(&sdev->mrs,
			     FIELD_GET(ORCA_MR_KEY_INDEX, le32_to_cpu(b->mr_key)));
		if (!mr || mr->mw_type || mr->key != le32_to_cpu(b->mr_key) ||
		    !mr->valid || mr->pd != qp->pd ||
		    !(mr->access & ORCA_ACCESS_MW_BIND) ||
		    !orca_soft_mr_range_ok(mr, addr, length))
			return ORCA_CQE_ST_MW_BIND_ERR;
		/* Remote write and atomics need local write (IBTA C10-74). */
		if ((access & (ORCA_ACCESS_REMOTE_WRITE |
			       ORCA_ACCESS_REMOTE_ATOMIC)) &&
		    !(mr->access & ORCA_ACCESS_LOCAL_WRITE))
			return ORCA_CQE_ST_MW_BIND_ERR;
	}

	orca_soft_mw_unbind(mw);
	mw->key = new_key;
	if (!length)
		return ORCA_CQE_ST_SUCCESS;
	mw->region = mr;
	mr->windows++;
	if (mw->mw_type == ORCA_MW_TYPE_2) {
		mw->mw_qp = qp;
		qp->windows++;
	}
	mw->base = addr;
	mw->iova = zb ? 0 : addr;
	mw->length = length;
	mw->access = access;
	mw->valid = true;
	return ORCA_CQE_ST_SUCCESS;
}

/*
 * LOCAL_INV and SEND_INV of a window's key: a type 2 window of @qp's PD;
 * a bound one, SEND_INV (@remote) only through the QP it is bound to.
 * A free one stays free, as a region already invalid does.
 */
bool orca_soft_mw_inv_ok(const struct orca_soft_mr *mw,
			 const struct orca_soft_qp *qp, bool remote)
{
	return mw->mw_type == ORCA_MW_TYPE_2 && mw->pd == qp->pd &&
	       (!mw->valid || !remote || mw->mw_qp == qp);
}

/*
 * A remote request through window @mw at *@addr for @len bytes: the
 * region behind it, with *@addr moved into the region's iova space, or
 * NULL.  The key, the PD and the rights are the caller's to check, and
 * the region's validity (orca_soft_region_take(), which pins it).
 */
struct orca_soft_mr *orca_soft_mw_resolve(const struct orca_soft_mr *mw,
					  const struct orca_soft_qp *dqp,
					  u64 *addr, u64 len)
{
	struct orca_soft_mr *mr = mw->region;
	u64 va;

	if (!mr || (mw->mw_qp && mw->mw_qp != dqp) ||
	    !orca_soft_mr_range_ok(mw, *addr, len))
		return NULL;
	va = *addr - mw->iova + mw->base;
	if (!orca_soft_mr_range_ok(mr, va, len))
		return NULL;
	*addr = va;
	return mr;
}
