// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: memory regions.
 *
 * REG_MR copies the region's page list out of host memory into the
 * device's own translation table (the driver may free its page-list
 * buffers as soon as the command completes) and validates it on the copy
 * (orca_soft_pbl.c).
 * The key's index selects the table entry; the variant is the driver's
 * and makes stale keys of a reused entry fail.  A region on device memory
 * (ORCA_MR_FLAG_DM) has no page list: it starts at an offset of the
 * aperture, inside one allocation, which it keeps from DEALLOC_DM.  An
 * on-demand-paging region (ORCA_MR_FLAG_ODP) has none either: its pages
 * start not present and ODP_UPDATE maps them (orca_soft_odp.c).  An
 * implicit one (ORCA_MR_FLAG_ODP_IMPLICIT with it) is the whole address
 * space: iova 0, length U64_MAX, ORCA_ODP_IMPLICIT_PAGES pages.
 */

#include <linux/bitfield.h>
#include <linux/slab.h>
#include <linux/log2.h>
#include <linux/mm.h>

#include "orca_soft.h"
#include "orca_soft_odp.h"

#define ORCA_MR_FLAGS_ALL	(ORCA_MR_PAGE_SHIFT | ORCA_MR_PBL_LEVELS | \
				 ORCA_MR_FLAG_PHYSICAL | ORCA_MR_FLAG_FAST_REG | \
				 ORCA_MR_FLAG_DM | ORCA_MR_FLAG_ODP | \
				 ORCA_MR_FLAG_ODP_IMPLICIT)
/* At most one kind of region besides page-list ones. */
#define ORCA_MR_KINDS		(ORCA_MR_FLAG_PHYSICAL | ORCA_MR_FLAG_FAST_REG | \
				 ORCA_MR_FLAG_DM | ORCA_MR_FLAG_ODP)

static bool orca_soft_page_shift_ok(u8 shift)
{
	return shift < 64 && (ORCA_SOFT_PAGE_SIZE_CAP & BIT_ULL(shift));
}

/*
 * The pages [@iova, @iova + @length) touches at 2^@shift bytes a page are
 * exactly @num_pages, and the range is 1 to ORCA_SOFT_MAX_MR_SIZE bytes
 * that do not wrap.
 */
static bool orca_soft_mr_span_ok(u64 iova, u64 length, u8 shift,
				 u32 num_pages)
{
	if (!length || length > ORCA_SOFT_MAX_MR_SIZE ||
	    iova + length - 1 < iova)
		return false;
	return ((iova + length - 1) >> shift) - (iova >> shift) + 1 ==
	       num_pages;
}

/*
 * Check the translation fields of @in for the kind of region it asks,
 * on a device with capabilities @caps.
 */
static u8 orca_soft_mr_check(const struct orca_hw_reg_mr *in, u32 flags,
			     u32 caps)
{
	u64 iova = le64_to_cpu(in->iova);
	u64 length = le64_to_cpu(in->length);
	u64 pbl_addr = le64_to_cpu(in->pbl_addr);
	u32 num_pages = le32_to_cpu(in->num_pages);
	u8 shift = FIELD_GET(ORCA_MR_PAGE_SHIFT, flags);
	u8 levels = FIELD_GET(ORCA_MR_PBL_LEVELS, flags);

	if (hweight32(flags & ORCA_MR_KINDS) > 1)
		return ORCA_AQ_STS_BAD_PARAM;
	/* Implicit is a kind of on-demand-paging region. */
	if ((flags & ORCA_MR_FLAG_ODP_IMPLICIT) && !(flags & ORCA_MR_FLAG_ODP))
		return ORCA_AQ_STS_BAD_PARAM;

	if (flags & ORCA_MR_FLAG_ODP_IMPLICIT) {
		if (!(caps & ORCA_HW_DEV_CAP_ODP) ||
		    !(caps & ORCA_HW_DEV_CAP_ODP_IMPLICIT))
			return ORCA_AQ_STS_UNSUPPORTED;
		/* The whole address space, no page list, 4 KiB pages. */
		if (iova || length != U64_MAX || num_pages || pbl_addr ||
		    levels || shift != ORCA_SOFT_ODP_SHIFT)
			return ORCA_AQ_STS_BAD_PARAM;
		return ORCA_AQ_STS_OK;
	}

	if (flags & ORCA_MR_FLAG_ODP) {
		if (!(caps & ORCA_HW_DEV_CAP_ODP))
			return ORCA_AQ_STS_UNSUPPORTED;
		/* No page list: 4 KiB pages, all not present at first. */
		if (pbl_addr || levels || shift != ORCA_SOFT_ODP_SHIFT ||
		    !orca_soft_mr_span_ok(iova, length, shift, num_pages))
			return ORCA_AQ_STS_BAD_PARAM;
		return ORCA_AQ_STS_OK;
	}

	if (flags & ORCA_MR_FLAG_DM) {
		/* The device builds the translation: 4 KiB pages, no list. */
		if (num_pages || levels || shift != ilog2(ORCA_DM_UNIT) ||
		    !length ||
		    iova + length - 1 < iova)
			return ORCA_AQ_STS_BAD_PARAM;
		return ORCA_AQ_STS_OK;
	}

	if (flags & ORCA_MR_FLAG_PHYSICAL) {
		/* No table: iova is the DMA address. */
		if (pbl_addr || num_pages || levels || shift)
			return ORCA_AQ_STS_BAD_PARAM;
		return ORCA_AQ_STS_OK;
	}

	if (flags & ORCA_MR_FLAG_FAST_REG) {
		/* Room for num_pages; iova, length and page size come later. */
		if (pbl_addr || levels || !num_pages ||
		    num_pages > ORCA_SOFT_MAX_FRPL_LEN ||
		    (shift && !orca_soft_page_shift_ok(shift)))
			return ORCA_AQ_STS_BAD_PARAM;
		return ORCA_AQ_STS_OK;
	}

	if (!orca_soft_page_shift_ok(shift) || !pbl_addr ||
	    !IS_ALIGNED(pbl_addr, sizeof(u64)))
		return ORCA_AQ_STS_BAD_PARAM;
	if (levels == 1) {
		if (num_pages > ORCA_SOFT_PBL1_MAX)
			return ORCA_AQ_STS_BAD_PARAM;
	} else if (levels == 2) {
		if (num_pages > ORCA_SOFT_PBL2_MAX)
			return ORCA_AQ_STS_BAD_PARAM;
	} else {
		return ORCA_AQ_STS_BAD_PARAM;
	}
	/* Exactly the pages [iova, iova + length) touches. */
	if (!orca_soft_mr_span_ok(iova, length, shift, num_pages))
		return ORCA_AQ_STS_BAD_PARAM;
	return ORCA_AQ_STS_OK;
}

static void orca_soft_mr_free(struct orca_soft_mr *mr)
{
	if (mr->dm)
		mr->dm->users--;
	if (mr->flags & ORCA_MR_FLAG_ODP)
		orca_soft_odp_mr_fini(mr);
	kvfree(mr->pages);
	kfree(mr);
}

u8 orca_soft_reg_mr(struct orca_soft_dev *sdev, const union orca_aq_cmd *cmd,
		    struct orca_soft_cmd_out *out)
{
	const struct orca_cmd_mbox_in *c = &cmd->mbox_in;
	struct orca_hw_reg_mr in;
	struct orca_soft_mr *mr;
	struct orca_soft_pd *pd;
	u32 access, flags, variant, index;
	u8 sts;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	sts = orca_soft_get_input(sdev, le64_to_cpu(c->in_addr),
				  le32_to_cpu(c->in_len), &in, sizeof(in));
	if (sts)
		return sts;
	if (!orca_soft_rsvd_clear(in.rsvd, sizeof(in.rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;

	access = le32_to_cpu(in.access);
	flags = le32_to_cpu(in.flags);
	variant = le32_to_cpu(in.key_variant);
	if ((access & ~ORCA_MR_ACCESS_ALL) || (flags & ~ORCA_MR_FLAGS_ALL) ||
	    (variant & ~ORCA_MR_KEY_VARIANT))
		return ORCA_AQ_STS_BAD_PARAM;
	/* Remote write and atomic need local write (IBTA). */
	if ((access & (ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & ORCA_ACCESS_LOCAL_WRITE))
		return ORCA_AQ_STS_BAD_PARAM;
	sts = orca_soft_mr_check(&in, flags, orca_soft_cap_flags(sdev));
	if (sts)
		return sts;
	pd = orca_soft_pd_find(sdev, le32_to_cpu(in.pdn));
	if (!pd)
		return ORCA_AQ_STS_BAD_HANDLE;
	if (sdev->counts.mrs >= ORCA_SOFT_MAX_MR)
		return ORCA_AQ_STS_NO_RESOURCES;

	mr = kzalloc(sizeof(*mr), ORCA_SOFT_GFP);
	if (!mr)
		return ORCA_AQ_STS_NO_RESOURCES;
	spin_lock_init(&mr->pin_lock);
	mr->pd = pd;
	mr->iova = le64_to_cpu(in.iova);
	mr->length = le64_to_cpu(in.length);
	mr->access = access;
	mr->flags = flags & (ORCA_MR_KINDS | ORCA_MR_FLAG_ODP_IMPLICIT);
	mr->page_shift = FIELD_GET(ORCA_MR_PAGE_SHIFT, flags);
	mr->num_pages = le32_to_cpu(in.num_pages);
	mr->valid = !(flags & ORCA_MR_FLAG_FAST_REG);
	if (flags & ORCA_MR_FLAG_ODP) {
		orca_soft_odp_mr_init(mr);
	} else if (mr->num_pages) {
		mr->pages = orca_soft_table_alloc(mr->num_pages,
						  sizeof(*mr->pages));
		if (!mr->pages) {
			sts = ORCA_AQ_STS_NO_RESOURCES;
			goto err_free;
		}
	}
	if (flags & ORCA_MR_FLAG_DM) {
		u64 off = le64_to_cpu(in.pbl_addr);

		/* Inside one allocation of the aperture. */
		mr->dm = orca_soft_dm_range(sdev, off, mr->length);
		if (!mr->dm) {
			sts = ORCA_AQ_STS_BAD_PARAM;
			goto err_free;
		}
		mr->dm->users++;
		mr->dm_bus = orca_soft_dm_bus(sdev, off);
	} else if (!(flags & ORCA_MR_KINDS)) {
		sts = orca_soft_pbl_read(sdev, le64_to_cpu(in.pbl_addr),
					 FIELD_GET(ORCA_MR_PBL_LEVELS, flags),
					 mr->num_pages, BIT_ULL(mr->page_shift),
					 mr->pages);
		if (sts)
			goto err_free;
	}

	if (xa_alloc(&sdev->mrs, &index, mr, XA_LIMIT(1, ORCA_SOFT_MAX_MR),
		     ORCA_SOFT_GFP)) {
		sts = ORCA_AQ_STS_NO_RESOURCES;
		goto err_free;
	}
	mr->key = FIELD_PREP(ORCA_MR_KEY_INDEX, index) | variant;
	pd->users++;
	sdev->counts.mrs++;
	if (flags & ORCA_MR_FLAG_ODP)
		sdev->odp_mrs++;
	out->result = mr->key;
	return ORCA_AQ_STS_OK;

err_free:
	orca_soft_mr_free(mr);
	return sts;
}

u8 orca_soft_dereg_mr(struct orca_soft_dev *sdev,
		      const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_handle *c = &cmd->handle;
	u32 key = le32_to_cpu(c->handle);
	struct orca_soft_mr *mr;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	mr = xa_load(&sdev->mrs, FIELD_GET(ORCA_MR_KEY_INDEX, key));
	/* REG_MR WQEs change a fast-register region's variant. */
	if (!mr || mr->mw_type ||
	    (mr->key != key && !(mr->flags & ORCA_MR_FLAG_FAST_REG)))
		return ORCA_AQ_STS_BAD_HANDLE;
	/* Windows bound to it must be unbound first. */
	if (mr->windows)
		return ORCA_AQ_STS_BUSY;
	xa_erase(&sdev->mrs, FIELD_GET(ORCA_MR_KEY_INDEX, key));
	mr->pd->users--;
	sdev->counts.mrs--;
	/* QPs waiting for its pages find out that the key is gone. */
	if (mr->flags & ORCA_MR_FLAG_ODP) {
		sdev->odp_mrs--;
		orca_soft_odp_wake(sdev, mr->key);
	}
	orca_soft_mr_free(mr);
	return ORCA_AQ_STS_OK;
}

void orca_soft_mr_reset(struct orca_soft_dev *sdev)
{
	struct orca_soft_mr *mr;
	unsigned long idx;

	xa_for_each(&sdev->mrs, idx, mr) {
		xa_erase(&sdev->mrs, idx);
		orca_soft_mr_free(mr);
	}
}
