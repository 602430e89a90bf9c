// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the pure arithmetic of orca_soft's on-demand paging
 * (drivers/orca_soft/orca_soft_odp.h): page indices, the page count of
 * explicit and implicit regions, ODP_UPDATE's argument and entry checks,
 * the page states and what an access finds in them, and the ODP_FAULT
 * data word.  tests/kunit/orca_soft_odp_dev_test.c tests the device's
 * handling of the regions.
 *
 * The expected values come from Documentation/orca-hw-interface.rst
 * ("On-demand paging", "ODP_UPDATE (0x1a)", the ODP_FAULT event: PAGE
 * [51:0], COUNT [61:52] pages less one, WRITE [62]), written out here as
 * numbers rather than through the header's macros.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/xarray.h>

#include "../../drivers/orca_soft/orca_soft_odp.h"

static void orca_odp_test_page(struct kunit *test)
{
	/* Page 0 starts at iova rounded down to 4 KiB. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_page(0x1234, 0x1234), 0ULL);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_page(0x1234, 0x1fff), 0ULL);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_page(0x1234, 0x2000), 1ULL);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_page(0xfff, 0x1000), 1ULL);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_page(0x1000, 0x1000), 0ULL);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_page(0x1000, 0x5000), 4ULL);
	/* The largest region: 2^40 bytes from an unaligned iova. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_page(0x7ff, 0x7ffULL + (1ULL << 40) - 1),
			1ULL << 28);
	/* High addresses. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_page(0xffffffffff000000ULL,
						 0xffffffffffffffffULL), 0xfffULL);
	/* An implicit region (iova 0): the page is the address >> 12. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_page(0, 0xfffULL), 0ULL);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_page(0, 0x123456789abcULL),
			0x123456789ULL);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_page(0, 0xfffffffffffffffeULL),
			(1ULL << 52) - 1);
}

static void orca_odp_test_npages(struct kunit *test)
{
	/* FLAG_ODP [19] alone: the pages REG_MR named. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_npages(1U << 19, 4), 4ULL);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_npages(1U << 19, 1U << 28),
			1ULL << 28);
	/* With FLAG_ODP_IMPLICIT [20]: 2^52, whatever num_pages says. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_npages((1U << 19) | (1U << 20), 0),
			1ULL << 52);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_npages((1U << 19) | (1U << 20), 7),
			1ULL << 52);
}

static void orca_odp_test_range(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_range_ok(0, 1, 1));
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_range_ok(5, 3, 8));
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_range_ok(0, 8, 8));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_range_ok(0, 0, 1));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_range_ok(1, 1, 1));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_range_ok(0, 2, 1));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_range_ok(5, 4, 8));
	/* No wrap of page + count. */
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_range_ok(~0ULL, 1, 10));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_range_ok(~0ULL - 1, 2, ~0ULL));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_range_ok(2, 0xffffffffU, 10));
	/* The 2^52 pages of an implicit region. */
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_range_ok((1ULL << 52) - 1, 1,
						       1ULL << 52));
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_range_ok((1ULL << 52) - 0xffffffffULL,
						       0xffffffffU, 1ULL << 52));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_range_ok((1ULL << 52) - 1, 2,
							1ULL << 52));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_range_ok(1ULL << 52, 1,
							1ULL << 52));
}

static void orca_odp_test_args(struct kunit *test)
{
	/* MAP (1): 1..512 entries at a non-zero 8-byte aligned address. */
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_args_ok(1, 1, 0x1000, 0));
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_args_ok(1, 512, 0x8, 0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(1, 0, 0x1000, 0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(1, 513, 0x1000, 0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(1, 1, 0, 0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(1, 1, 0x1004, 0));
	/* UNMAP (2): any count from 1, no address. */
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_args_ok(2, 1, 0, 0));
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_args_ok(2, 0xffffffffU, 0, 0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(2, 0, 0, 0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(2, 1, 0x1000, 0));
	/* FAIL (3): 1..1024 pages, no address. */
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_args_ok(3, 1, 0, 0));
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_args_ok(3, 1024, 0, 0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(3, 1025, 0, 0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(3, 0, 0, 0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(3, 1, 0x1000, 0));
	/* FAIL_FAULT (4, since 1.8): as FAIL. */
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_args_ok(4, 1, 0, 0));
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_args_ok(4, 1024, 0, 0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(4, 1025, 0, 0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(4, 0, 0, 0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(4, 1, 0x1000, 0));
	/* Only FAIL_FAULT has an epoch, in [15:0]. */
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_args_ok(4, 1, 0, 0xffff));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(4, 1, 0, 0x10000));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(4, 1, 0, 0x80000000U));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(1, 1, 0x1000, 1));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(2, 1, 0, 1));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(3, 1, 0, 1));
	/* Unknown operations. */
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(0, 1, 0, 0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(5, 1, 0, 0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_args_ok(0xffffffffU, 1, 0x1000, 0));
}

static void orca_odp_test_pte(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_pte_ok(0x1000));
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_pte_ok(0x1001));
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_pte_ok(0x123456789000ULL));
	/* A zero address, with or without WRITE. */
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_pte_ok(0));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_pte_ok(1));
	/* Reserved bits [11:1]. */
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_pte_ok(0x1002));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_pte_ok(0x1800));
	KUNIT_EXPECT_FALSE(test, orca_soft_odp_pte_ok(0x1ffe));
#if BITS_PER_LONG == 64
	/* The highest page a 64-bit DMA address can name. */
	KUNIT_EXPECT_TRUE(test, orca_soft_odp_pte_ok(0xfffffffffffff001ULL));
#endif
}

/* A page's state as the XArray holds it. */
static const void *orca_odp_entry(unsigned long state)
{
	return xa_mk_value(state);
}

static void orca_odp_test_access(struct kunit *test)
{
	const void *rw = orca_odp_entry(orca_soft_odp_state(0x12345001ULL));
	const void *ro = orca_odp_entry(orca_soft_odp_state(0x12345000ULL));
	const void *failed = orca_odp_entry(ORCA_SOFT_ODP_FAILED);

	/* Not present: a fault, for reads and writes. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_access(NULL, false), -EAGAIN);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_access(NULL, true), -EAGAIN);
	/* Present and writable: anything goes. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_access(rw, false), 0);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_access(rw, true), 0);
	/* Read-only: a write faults. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_access(ro, false), 0);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_access(ro, true), -EAGAIN);
	/* Failed: an access error either way. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_access(failed, false), -EFAULT);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_access(failed, true), -EFAULT);
}

static void orca_odp_test_dma(struct kunit *test)
{
	unsigned long v = orca_soft_odp_state(0x12345001ULL);

	/* The page's address, and the byte's offset in the 4 KiB page. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_dma(v, 0x7000), 0x12345000ULL);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_dma(v, 0x7abc), 0x12345abcULL);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_dma(v, 0xffffffffffffffffULL),
			0x12345fffULL);
	/* The WRITE bit is not part of the address. */
	v = orca_soft_odp_state(0x12345000ULL);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_dma(v, 0x10), 0x12345010ULL);
#if BITS_PER_LONG == 64
	v = orca_soft_odp_state(0xfffffffffffff001ULL);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_dma(v, 0x123),
			0xfffffffffffff123ULL);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_access(orca_odp_entry(v), true), 0);
#endif
}

static void orca_odp_test_fault(struct kunit *test)
{
	/* One page, read. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_fault_data(5, 5, false), 5ULL);
	/* Three pages from 7, written: COUNT holds pages less one. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_fault_data(7, 9, true),
			7ULL | (2ULL << 52) | (1ULL << 62));
	/* 1024 pages is the most one event names... */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_fault_data(0, 1023, false),
			1023ULL << 52);
	/* ... and a longer access is capped there. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_fault_data(0, 5000, true),
			(1023ULL << 52) | (1ULL << 62));
	KUNIT_EXPECT_EQ(test, orca_soft_odp_fault_data(100, 100 + (1ULL << 28),
						       false),
			100ULL | (1023ULL << 52));
	/* The last page of the largest region; bit 63 stays 0. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_fault_data(1ULL << 28, 1ULL << 28,
						       true),
			(1ULL << 28) | (1ULL << 62));
	/* The last page of an implicit region fills PAGE [51:0]. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_fault_data((1ULL << 52) - 1,
						       (1ULL << 52) - 1, true),
			((1ULL << 52) - 1) | (1ULL << 62));
	KUNIT_EXPECT_EQ(test, orca_soft_odp_fault_data((1ULL << 52) - 2,
						       (1ULL << 52) - 1, false),
			((1ULL << 52) - 2) | (1ULL << 52));
}

static struct kunit_case orca_odp_test_cases[] = {
	KUNIT_CASE(orca_odp_test_page),
	KUNIT_CASE(orca_odp_test_npages),
	KUNIT_CASE(orca_odp_test_range),
	KUNIT_CASE(orca_odp_test_args),
	KUNIT_CASE(orca_odp_test_pte),
	KUNIT_CASE(orca_odp_test_access),
	KUNIT_CASE(orca_odp_test_dma),
	KUNIT_CASE(orca_odp_test_fault),
	{}
};

static struct kunit_suite orca_odp_test_suite = {
	.name = "orca_soft_odp",
	.test_cases = orca_odp_test_cases,
};

kunit_test_suite(orca_odp_test_suite);

MODULE_DESCRIPTION("KUnit tests for orca_soft's on-demand paging arithmetic");
MODULE_LICENSE("GPL");
