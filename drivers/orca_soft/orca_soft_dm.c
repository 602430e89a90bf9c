// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: device memory (interface 1.4).
 *
 * The function owns an aperture of ORCA_SOFT_DM_SIZE bytes: physically
 * contiguous pages that the bus binding offers the driver to map into
 * processes, as a PCI function would offer a BAR.  ALLOC_DM hands out
 * runs of ORCA_DM_UNIT granules, first fit at the alignment asked for,
 * and zeroes them, so that no allocation shows what an earlier one held.
 * A region registered on device memory (REG_MR with ORCA_MR_FLAG_DM)
 * translates into one allocation and keeps it from DEALLOC_DM (BUSY).
 * The data path reaches the aperture as it reaches host memory, by the
 * bus address of its pages.
 *
 * Allocations change only in admin commands and the device reset, under
 * the engine semaphore, as every other object table.
 */

#include <linux/bitmap.h>
#include <linux/dma-direct.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "orca_soft.h"

#define ORCA_SOFT_DM_UNITS	(ORCA_SOFT_DM_SIZE / ORCA_DM_UNIT)

/*
 * A function without the contiguous pages (memory too fragmented) works
 * without device memory: no DM capability, dm_size 0.
 */
int orca_soft_dm_init(struct orca_soft_dev *sdev)
{
	sdev->dm_pages = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN,
				     get_order(ORCA_SOFT_DM_SIZE));
	if (!sdev->dm_pages) {
		dev_info(sdev_dev(sdev), "no device memory: %u KiB not available\n",
			 ORCA_SOFT_DM_SIZE / 1024);
		return 0;
	}
	sdev->dm_va = page_address(sdev->dm_pages);
	sdev->bdev.dm_phys = page_to_phys(sdev->dm_pages);
	sdev->bdev.dm_size = ORCA_SOFT_DM_SIZE;
	sdev->bdev.dm_ram = true;
	return 0;
}

void orca_soft_dm_fini(struct orca_soft_dev *sdev)
{
	if (sdev->dm_pages)
		__free_pages(sdev->dm_pages, get_order(ORCA_SOFT_DM_SIZE));
	sdev->dm_pages = NULL;
}

/* The bus address of byte @off of the aperture, for the data path. */
u64 orca_soft_dm_bus(struct orca_soft_dev *sdev, u64 off)
{
	return phys_to_dma(sdev_dev(sdev), sdev->bdev.dm_phys + off);
}

u8 orca_soft_alloc_dm(struct orca_soft_dev *sdev,
		      const union orca_aq_cmd *cmd,
		      struct orca_soft_cmd_out *out)
{
	const struct orca_cmd_alloc_dm *c = &cmd->alloc_dm;
	u64 length = le64_to_cpu(c->length);
	u32 log_align = le32_to_cpu(c->log_align);
	unsigned long first, units, align;
	struct orca_soft_dm *dm;

	if (!sdev->dm_pages)
		return ORCA_AQ_STS_UNSUPPORTED;
	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)) || !length ||
	    log_align > ilog2(ORCA_SOFT_DM_SIZE))
		return ORCA_AQ_STS_BAD_PARAM;
	if (length > ORCA_SOFT_DM_SIZE)
		return ORCA_AQ_STS_NO_RESOURCES;
	units = DIV_ROUND_UP(length, ORCA_DM_UNIT);
	align = max_t(unsigned long, BIT(log_align) / ORCA_DM_UNIT, 1);
	first = bitmap_find_next_zero_area(sdev->dm_used, ORCA_SOFT_DM_UNITS,
					   0, units, align - 1);
	if (first >= ORCA_SOFT_DM_UNITS)
		return ORCA_AQ_STS_NO_RESOURCES;
	dm = kzalloc(sizeof(*dm), ORCA_SOFT_GFP);
	if (!dm)
		return ORCA_AQ_STS_NO_RESOURCES;
	dm->first = first;
	dm->units = units;
	bitmap_set(sdev->dm_used, first, units);
	sdev->dms[first] = dm;
	memset(sdev->dm_va + first * ORCA_DM_UNIT, 0, units * ORCA_DM_UNIT);
	out->result = first + 1;
	return ORCA_AQ_STS_OK;
}

static struct orca_soft_dm *orca_soft_dm_find(struct orca_soft_dev *sdev,
					      u32 dmn)
{
	return dmn && dmn <= ORCA_SOFT_DM_UNITS ? sdev->dms[dmn - 1] : NULL;
}

static void orca_soft_dm_free(struct orca_soft_dev *sdev,
			      struct orca_soft_dm *dm)
{
	bitmap_clear(sdev->dm_used, dm->first, dm->units);
	sdev->dms[dm->first] = NULL;
	kfree(dm);
}

u8 orca_soft_dealloc_dm(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_handle *c = &cmd->handle;
	struct orca_soft_dm *dm;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)))
		return ORCA_AQ_STS_BAD_PARAM;
	dm = orca_soft_dm_find(sdev, le32_to_cpu(c->handle));
	if (!dm)
		return ORCA_AQ_STS_BAD_HANDLE;
	if (dm->users)
		return ORCA_AQ_STS_BUSY;
	orca_soft_dm_free(sdev, dm);
	return ORCA_AQ_STS_OK;
}

/* The allocation that holds all of [@off, @off + @len), or NULL. */
struct orca_soft_dm *orca_soft_dm_range(struct orca_soft_dev *sdev, u64 off,
					u64 len)
{
	struct orca_soft_dm *dm;
	u64 start, end;
	u32 i;

	if (!len || off >= ORCA_SOFT_DM_SIZE || len > ORCA_SOFT_DM_SIZE - off)
		return NULL;
	for (i = 0; i < ORCA_SOFT_DM_UNITS; i++) {
		dm = sdev->dms[i];
		if (!dm)
			continue;
		start = (u64)dm->first * ORCA_DM_UNIT;
		end = start + (u64)dm->units * ORCA_DM_UNIT;
		if (off >= start && off + len <= end)
			return dm;
	}
	return NULL;
}

void orca_soft_dm_reset(struct orca_soft_dev *sdev)
{
	u32 i;

	for (i = 0; i < ORCA_SOFT_DM_UNITS; i++)
		if (sdev->dms[i])
			orca_soft_dm_free(sdev, sdev->dms[i]);
}
