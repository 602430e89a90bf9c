/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * orca_soft: pure arithmetic of on-demand paging (interface 1.5;
 * implicit regions since 1.6).
 *
 * Page indices of a region, the state the device keeps for each page,
 * the checks of ODP_UPDATE's arguments and entries, and the data word of
 * an ODP_FAULT event.  No device state: the KUnit suite
 * (tests/kunit/orca_soft_odp_test.c) tests these directly.
 */
#ifndef ORCA_SOFT_ODP_H
#define ORCA_SOFT_ODP_H

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "orca_hw.h"

/* The pages of an on-demand-paging region are 4 KiB, whatever the CPU's. */
#define ORCA_SOFT_ODP_SHIFT	12
#define ORCA_SOFT_ODP_PAGE	BIT_ULL(ORCA_SOFT_ODP_SHIFT)

/*
 * FAIL and FAIL_FAULT name at most this many pages: the device keeps one
 * entry per failed page, so that UNMAP never needs memory.  It is the
 * most pages one ODP_FAULT asks for.
 */
#define ORCA_SOFT_ODP_FAIL_MAX	ORCA_ODP_FAULT_MAX

/*
 * The state of a page is an XArray value entry (xa_mk_value()): PRESENT,
 * WRITE and the page frame (DMA address >> 12) for a present page, 0 for
 * a failed one.  A page without an entry is not present.  Value entries
 * hold at most BITS_PER_LONG - 1 bits.
 */
#define ORCA_SOFT_ODP_PRESENT	BIT(0)
#define ORCA_SOFT_ODP_WRITE	BIT(1)
#define ORCA_SOFT_ODP_PFN	GENMASK(BITS_PER_LONG - 2, 2)
#define ORCA_SOFT_ODP_FAILED	0UL

/* The index of the page holding address @va of a region starting at @iova. */
static inline u64 orca_soft_odp_page(u64 iova, u64 va)
{
	return (va >> ORCA_SOFT_ODP_SHIFT) - (iova >> ORCA_SOFT_ODP_SHIFT);
}

/*
 * The number of pages of an on-demand-paging region whose flags are
 * @flags and whose REG_MR named @num_pages: an implicit region
 * (ORCA_MR_FLAG_ODP_IMPLICIT, since 1.6) has ORCA_ODP_IMPLICIT_PAGES,
 * the whole address space, and num_pages 0.
 */
static inline u64 orca_soft_odp_npages(u32 flags, u32 num_pages)
{
	if (flags & ORCA_MR_FLAG_ODP_IMPLICIT)
		return ORCA_ODP_IMPLICIT_PAGES;
	return num_pages;
}

/* Pages [@page, @page + @count) are pages of a region of @npages pages. */
static inline bool orca_soft_odp_range_ok(u64 page, u32 count, u64 npages)
{
	return count && page < npages && count <= npages - page;
}

/*
 * ODP_UPDATE's count, pbl_addr and epoch, for operation @op; false:
 * BAD_PARAM.
 */
static inline bool orca_soft_odp_args_ok(u32 op, u32 count, u64 pbl_addr,
					 u32 epoch)
{
	/* Only FAIL_FAULT has an epoch, in [15:0]. */
	if (op == ORCA_ODP_FAIL_FAULT ? epoch & ~ORCA_ODP_EPOCH : epoch)
		return false;
	switch (op) {
	case ORCA_ODP_MAP:
		return count && count <= ORCA_ODP_MAP_MAX && pbl_addr &&
		       IS_ALIGNED(pbl_addr, sizeof(u64));
	case ORCA_ODP_UNMAP:
		return count && !pbl_addr;
	case ORCA_ODP_FAIL:
	case ORCA_ODP_FAIL_FAULT:
		return count && count <= ORCA_SOFT_ODP_FAIL_MAX && !pbl_addr;
	default:
		return false;
	}
}

/*
 * An entry of MAP's list: a non-zero address, the reserved bits clear,
 * and a page frame the state entry holds (always, on a 64-bit host).
 */
static inline bool orca_soft_odp_pte_ok(u64 pte)
{
	u64 pfn = FIELD_GET(ORCA_ODP_PTE_ADDR, pte);

	return pfn && !(pte & ORCA_ODP_PTE_RSVD) &&
	       pfn <= FIELD_MAX(ORCA_SOFT_ODP_PFN);
}

/* The state of a page MAP gives the entry @pte (orca_soft_odp_pte_ok()). */
static inline unsigned long orca_soft_odp_state(u64 pte)
{
	unsigned long pfn = FIELD_GET(ORCA_ODP_PTE_ADDR, pte);

	return FIELD_PREP(ORCA_SOFT_ODP_PFN, pfn) | ORCA_SOFT_ODP_PRESENT |
	       (pte & ORCA_ODP_PTE_WRITE ? ORCA_SOFT_ODP_WRITE : 0);
}

/*
 * What an access finds in a page whose XArray entry is @entry: 0 if it
 * may go on (present, and writable if it writes: @write), -EFAULT for a
 * failed page (an access error), -EAGAIN for a page fault (not present,
 * or read-only for a write).
 */
static inline int orca_soft_odp_access(const void *entry, bool write)
{
	unsigned long v;

	if (!xa_is_value(entry))
		return -EAGAIN;
	v = xa_to_value(entry);
	if (!(v & ORCA_SOFT_ODP_PRESENT))
		return -EFAULT;
	if (write && !(v & ORCA_SOFT_ODP_WRITE))
		return -EAGAIN;
	return 0;
}

/* The DMA address of address @va, in a present page of state @v. */
static inline u64 orca_soft_odp_dma(unsigned long v, u64 va)
{
	return ((u64)FIELD_GET(ORCA_SOFT_ODP_PFN, v) << ORCA_SOFT_ODP_SHIFT) |
	       (va & (ORCA_SOFT_ODP_PAGE - 1));
}

/*
 * The data word of an ODP_FAULT for pages @page to @last (@last >=
 * @page) of a region, at most ORCA_ODP_FAULT_MAX of them from @page on,
 * for an access that writes (@write) or only reads.
 */
static inline u64 orca_soft_odp_fault_data(u64 page, u64 last, bool write)
{
	u64 count = min_t(u64, last - page + 1, ORCA_ODP_FAULT_MAX);

	return FIELD_PREP(ORCA_EQE_ODP_PAGE, page) |
	       FIELD_PREP(ORCA_EQE_ODP_COUNT, count - 1) |
	       (write ? ORCA_EQE_ODP_WRITE : 0);
}

#endif /* ORCA_SOFT_ODP_H */
