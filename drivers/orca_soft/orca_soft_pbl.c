// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: page lists, and the rings they describe.
 *
 * REG_MR names a region's pages with a page list, level 1 (the page
 * addresses) or level 2 (the addresses of 4 KiB table pages of 512 page
 * addresses each).  Since interface 1.7 the ring of a CQ, SQ, RQ or SRQ
 * may be named the same way, with 4 KiB pages (ORCA_RING_PAGE_SIZE): a
 * paged ring.  Both copy the list into the device's own storage while
 * the command executes, validate the copy, and never read the list again:
 * software may free it as soon as the command has completed.
 */

#include <linux/slab.h>

#include "orca_soft.h"

/*
 * Read @n little-endian page addresses at @addr into @dst, through the
 * 4 KiB @bounce buffer, and check each is non-zero and @align aligned.
 */
static u8 orca_soft_read_addrs(struct orca_soft_dev *sdev, u64 addr, u32 n,
			       u64 *dst, __le64 *bounce, u64 align)
{
	while (n) {
		u32 chunk = min_t(u32, n, ORCA_SOFT_PBL_ENTRIES);
		u32 i;

		if (orca_soft_dma_read(sdev, addr, bounce,
				       chunk * sizeof(*bounce)))
			return ORCA_AQ_STS_DMA_ERROR;
		for (i = 0; i < chunk; i++) {
			u64 a = le64_to_cpu(bounce[i]);

			if (!a || !IS_ALIGNED(a, align))
				return ORCA_AQ_STS_BAD_PARAM;
			dst[i] = a;
		}
		addr += chunk * sizeof(*bounce);
		dst += chunk;
		n -= chunk;
	}
	return ORCA_AQ_STS_OK;
}

/**
 * orca_soft_pbl_read - copy a page list in REG_MR's format
 * @sdev: the device
 * @pbl_addr: the list: level 1, the @n page addresses; level 2, the
 *	      ceil(@n / 512) addresses of the table pages that hold them
 * @levels: 1 or 2
 * @n: the number of pages; at most ORCA_SOFT_PBL1_MAX with level 1,
 *     ORCA_SOFT_PBL2_MAX with level 2 (the caller checked)
 * @align: the page size: every page address must be aligned to it
 * @dst: filled with the @n page addresses
 *
 * Every page address must be non-zero and @align aligned, every table
 * page address non-zero and 4 KiB aligned: else BAD_PARAM.  A part of
 * the list that cannot be read is DMA_ERROR.
 */
u8 orca_soft_pbl_read(struct orca_soft_dev *sdev, u64 pbl_addr, u8 levels,
		      u32 n, u64 align, u64 *dst)
{
	u32 ntop, i, left;
	__le64 *bounce;
	u64 *top;
	u8 sts;

	bounce = kmalloc(ORCA_SOFT_PBL_PAGE_SIZE, ORCA_SOFT_GFP);
	if (!bounce)
		return ORCA_AQ_STS_NO_RESOURCES;

	if (levels == 1) {
		sts = orca_soft_read_addrs(sdev, pbl_addr, n, dst, bounce,
					   align);
		goto out_free_bounce;
	}

	ntop = DIV_ROUND_UP(n, ORCA_SOFT_PBL_ENTRIES);
	top = kmalloc_array(ntop, sizeof(*top), ORCA_SOFT_GFP);
	if (!top) {
		sts = ORCA_AQ_STS_NO_RESOURCES;
		goto out_free_bounce;
	}
	sts = orca_soft_read_addrs(sdev, pbl_addr, ntop, top, bounce,
				   ORCA_SOFT_PBL_PAGE_SIZE);
	left = n;
	for (i = 0; sts == ORCA_AQ_STS_OK && i < ntop; i++) {
		u32 chunk = min_t(u32, left, ORCA_SOFT_PBL_ENTRIES);

		sts = orca_soft_read_addrs(sdev, top[i], chunk,
					   dst + i * ORCA_SOFT_PBL_ENTRIES,
					   bounce, align);
		left -= chunk;
	}
	kfree(top);
out_free_bounce:
	kfree(bounce);
	return sts;
}

/* The pages of a ring of @bytes bytes (at most 2^24: no overflow). */
static u32 orca_soft_ring_npages(u64 bytes)
{
	return DIV_ROUND_UP(bytes, ORCA_RING_PAGE_SIZE);
}

/**
 * orca_soft_ring_ok - check a ring's address and PBL_LEVELS
 * @sdev: the device
 * @ring: addr and levels as the command gave them
 * @bytes: the ring's size: its depth times its entry size
 *
 * A contiguous ring (levels 0) is non-zero and ORCA_RING_ALIGN aligned.
 * A paged one needs the RING_PBL capability, levels 1 or 2, a page list
 * address that is non-zero and 8-byte aligned, and, at level 1, at most
 * one table page of page addresses.  The entries of the list are checked
 * when orca_soft_ring_load() reads them.
 */
bool orca_soft_ring_ok(struct orca_soft_dev *sdev,
		       const struct orca_soft_ring *ring, u64 bytes)
{
	u32 n = orca_soft_ring_npages(bytes);

	if (!ring->addr)
		return false;
	switch (ring->levels) {
	case 0:
		return IS_ALIGNED(ring->addr, ORCA_RING_ALIGN);
	case 1:
		if (n > ORCA_SOFT_PBL1_MAX)
			return false;
		break;
	case 2:
		if (n > ORCA_SOFT_PBL2_MAX)
			return false;
		break;
	default:
		return false;
	}
	/* A 1.6 device: PBL_LEVELS was reserved. */
	if (!(orca_soft_cap_flags(sdev) & ORCA_HW_DEV_CAP_RING_PBL))
		return false;
	return IS_ALIGNED(ring->addr, sizeof(u64));
}

/**
 * orca_soft_ring_load - copy a paged ring's page list
 * @sdev: the device
 * @ring: addr and levels passed orca_soft_ring_ok(); pages NULL
 * @bytes: as for orca_soft_ring_ok()
 *
 * A contiguous ring needs nothing.  For a paged one, pages[] gets the
 * DMA address of each of its pages.  On failure (BAD_PARAM for a page
 * address that is zero or not 4 KiB aligned, DMA_ERROR, NO_RESOURCES)
 * @ring is left without pages.  orca_soft_ring_release() undoes it.
 */
u8 orca_soft_ring_load(struct orca_soft_dev *sdev, struct orca_soft_ring *ring,
		       u64 bytes)
{
	u32 n = orca_soft_ring_npages(bytes);
	u64 *pages;
	u8 sts;

	if (!ring->levels)
		return ORCA_AQ_STS_OK;
	/*
	 * 4096 pages for a 16 MiB SQ: from single pages beyond one, as
	 * every table of the device (orca_soft_table_alloc()).
	 */
	pages = orca_soft_table_alloc(n, sizeof(*pages));
	if (!pages)
		return ORCA_AQ_STS_NO_RESOURCES;
	sts = orca_soft_pbl_read(sdev, ring->addr, ring->levels, n,
				 ORCA_RING_PAGE_SIZE, pages);
	if (sts) {
		kvfree(pages);
		return sts;
	}
	ring->pages = pages;
	ring->npages = n;
	return ORCA_AQ_STS_OK;
}

/* Free what orca_soft_ring_load() allocated, when the ring is done with. */
void orca_soft_ring_release(struct orca_soft_ring *ring)
{
	kvfree(ring->pages);
	ring->pages = NULL;
	ring->npages = 0;
}
