// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for orca_soft's on-demand-paging regions as the device
 * handles them, implicit regions (interface 1.6) above all: REG_MR's
 * checks, ODP_UPDATE's page range, translation and bounds, page faults,
 * memory windows and DEREG_MR.
 *
 * The device's code under test (orca_soft_odp.c, orca_soft_mr.c,
 * orca_soft_pbl.c, orca_soft_mem.c and orca_soft_mw.c) is compiled into
 * this module and runs on a device structure of its own; the few
 * functions it calls in the rest of orca_soft are stand-ins below: the
 * "DMA address" of a MAP's entry list is a kernel pointer, REG_MR's input
 * mailbox is the test's, PD 1 exists, the capabilities are the test's and
 * events are recorded.  The expected values come from
 * Documentation/orca-hw-interface.rst (REG_MR's FLAG_ODP and
 * FLAG_ODP_IMPLICIT, "ODP_UPDATE (0x1a)", "On-demand paging", the
 * ODP_FAULT event), written out as numbers.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>

/* The code under test, compiled into this module. */
#include "../../drivers/orca_soft/orca_soft_odp.c"
#include "../../drivers/orca_soft/orca_soft_mr.c"
#include "../../drivers/orca_soft/orca_soft_pbl.c"
#include "../../drivers/orca_soft/orca_soft_mem.c"
#include "../../drivers/orca_soft/orca_soft_mw.c"

/* ---- the rest of the device, stood in for --------------------------------- */

/* cap_flags bits (the specification's numbers, not the header's). */
#define T_CAP_ODP		BIT(12)
#define T_CAP_ODP_IMPLICIT	BIT(13)
#define T_CAP_ODP_EPOCH		BIT(15)
/* REG_MR flags. */
#define T_SHIFT_12		12U
#define T_LEVELS_1		BIT(8)
#define T_FLAG_PHYSICAL		BIT(16)
#define T_FLAG_DM		BIT(18)
#define T_FLAG_ODP		BIT(19)
#define T_FLAG_ODP_IMPLICIT	BIT(20)
#define T_IMPLICIT		(T_FLAG_ODP | T_FLAG_ODP_IMPLICIT | T_SHIFT_12)
/* Statuses. */
#define T_OK			0x00
#define T_BAD_PARAM		0x02
#define T_BAD_HANDLE		0x04
#define T_BUSY			0x06
#define T_UNSUPPORTED		0x07
/* ODP_UPDATE operations. */
#define T_MAP			1
#define T_UNMAP			2
#define T_FAIL			3
#define T_FAIL_FAULT		4
/* ODP_FAULT's info.EPOCH [23:8]. */
#define T_EPOCH(e)		((u32)(e) << 8)
/* The pages of an implicit region, and its last one. */
#define T_PAGES			BIT_ULL(52)
#define T_TOP			(T_PAGES - 1)
/* Access rights: local write, remote write and read, MW_BIND. */
#define T_ACCESS		(0x1U | 0x2U | 0x4U | 0x10U)

struct orca_odpdev {
	struct orca_soft_dev *sdev;
	struct orca_soft_pd pd;
	u32 caps;
	struct orca_hw_reg_mr in;	/* REG_MR's input mailbox */
	unsigned int nevents;
	u8 ev_type;
	u64 ev_data;
	u32 ev_aux;
	u32 ev_info;
};

static struct orca_odpdev *orca_odpdev;

int orca_soft_dma_read(struct orca_soft_dev *sdev, u64 addr, void *buf,
		       size_t len)
{
	memcpy(buf, (const void *)(uintptr_t)addr, len);
	return 0;
}

void orca_soft_post_event_aux(struct orca_soft_dev *sdev, u8 type, u64 data,
			      u32 aux, u32 info)
{
	orca_odpdev->nevents++;
	orca_odpdev->ev_type = type;
	orca_odpdev->ev_data = data;
	orca_odpdev->ev_aux = aux;
	orca_odpdev->ev_info = info;
}

void orca_soft_qp_wait(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
		       u8 kind, u64 delay_ns)
{
}

void orca_soft_kick(struct orca_soft_dev *sdev, u32 entry)
{
}

void orca_soft_wire_arm(struct orca_soft_dev *sdev, struct orca_soft_qp *qp)
{
}

bool orca_soft_rsvd_clear(const void *rsvd, size_t len)
{
	return !memchr_inv(rsvd, 0, len);
}

u8 orca_soft_get_input(struct orca_soft_dev *sdev, u64 in_addr, u32 in_len,
		       void *in, size_t len)
{
	memcpy(in, &orca_odpdev->in, min(len, sizeof(orca_odpdev->in)));
	return ORCA_AQ_STS_OK;
}

struct orca_soft_pd *orca_soft_pd_find(struct orca_soft_dev *sdev, u32 pdn)
{
	return pdn == 1 ? &orca_odpdev->pd : NULL;
}

u32 orca_soft_cap_flags(struct orca_soft_dev *sdev)
{
	return orca_odpdev->caps;
}

struct orca_soft_dm *orca_soft_dm_range(struct orca_soft_dev *sdev, u64 off,
					u64 len)
{
	return NULL;
}

u64 orca_soft_dm_bus(struct orca_soft_dev *sdev, u64 off)
{
	return 0;
}

/* ---- helpers -------------------------------------------------------------- */

static int orca_odpdev_init(struct kunit *test)
{
	struct orca_odpdev *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->sdev = kunit_kzalloc(test, sizeof(*t->sdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->sdev);
	/* The DMA parent: no DMA offset, bus addresses are physical. */
	t->sdev->pdev = kunit_kzalloc(test, sizeof(*t->sdev->pdev),
				      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->sdev->pdev);
	xa_init_flags(&t->sdev->mrs, XA_FLAGS_ALLOC1);
	INIT_LIST_HEAD(&t->sdev->eng_waiting);
	INIT_LIST_HEAD(&t->sdev->eng_timers);
	t->pd.pdn = 1;
	t->caps = T_CAP_ODP | T_CAP_ODP_IMPLICIT;
	orca_odpdev = t;
	test->priv = t;
	return 0;
}

static void orca_odpdev_exit(struct kunit *test)
{
	struct orca_odpdev *t = test->priv;

	orca_soft_mr_reset(t->sdev);
	xa_destroy(&t->sdev->mrs);
	orca_odpdev = NULL;
}

/* REG_MR of PD 1 with these fields: the status, the key in *@key. */
static u8 orca_odpdev_reg(struct orca_odpdev *t, u64 iova, u64 length,
			  u64 pbl_addr, u32 num_pages, u32 flags, u32 *key)
{
	union orca_aq_cmd cmd = {};
	struct orca_soft_cmd_out out = {};
	u8 sts;

	memset(&t->in, 0, sizeof(t->in));
	t->in.iova = cpu_to_le64(iova);
	t->in.length = cpu_to_le64(length);
	t->in.pbl_addr = cpu_to_le64(pbl_addr);
	t->in.pdn = cpu_to_le32(1);
	t->in.access = cpu_to_le32(T_ACCESS);
	t->in.num_pages = cpu_to_le32(num_pages);
	t->in.flags = cpu_to_le32(flags);
	t->in.key_variant = cpu_to_le32(0x5a);
	cmd.mbox_in.in_addr = cpu_to_le64(0x1000);
	cmd.mbox_in.in_len = cpu_to_le32(sizeof(t->in));
	sts = orca_soft_reg_mr(t->sdev, &cmd, &out);
	if (key)
		*key = out.result;
	return sts;
}

/* A good implicit region: its key. */
static u32 orca_odpdev_implicit(struct kunit *test)
{
	u32 key = 0;

	KUNIT_ASSERT_EQ(test, orca_odpdev_reg(test->priv, 0, U64_MAX, 0, 0,
					      T_IMPLICIT, &key), T_OK);
	return key;
}

static struct orca_soft_mr *orca_odpdev_mr(struct orca_odpdev *t, u32 key)
{
	return xa_load(&t->sdev->mrs, key >> 8);
}

/* @sgl: @len bytes at @addr of @mr. */
static void orca_odpdev_sgl(struct orca_soft_sgl *sgl,
			    struct orca_soft_mr *mr, u64 addr, u32 len)
{
	memset(sgl, 0, sizeof(*sgl));
	sgl->nseg = 1;
	sgl->len = len;
	sgl->seg[0].mr = mr;
	sgl->seg[0].addr = addr;
	sgl->seg[0].len = len;
}

static u8 orca_odpdev_dereg(struct orca_odpdev *t, u32 key)
{
	union orca_aq_cmd cmd = {};

	cmd.handle.handle = cpu_to_le32(key);
	return orca_soft_dereg_mr(t->sdev, &cmd);
}

/* ODP_UPDATE of region @key with @epoch; MAP reads the entries at @ptes. */
static u8 orca_odpdev_update_epoch(struct orca_odpdev *t, u32 key, u32 op,
				   u64 page, u32 count, const __le64 *ptes,
				   u32 epoch)
{
	union orca_aq_cmd cmd = {};

	cmd.odp_update.key = cpu_to_le32(key);
	cmd.odp_update.op = cpu_to_le32(op);
	cmd.odp_update.page = cpu_to_le64(page);
	cmd.odp_update.count = cpu_to_le32(count);
	cmd.odp_update.epoch = cpu_to_le32(epoch);
	cmd.odp_update.pbl_addr = cpu_to_le64((uintptr_t)ptes);
	return orca_soft_odp_update(t->sdev, &cmd);
}

static u8 orca_odpdev_update(struct orca_odpdev *t, u32 key, u32 op,
			     u64 page, u32 count, const __le64 *ptes)
{
	return orca_odpdev_update_epoch(t, key, op, page, count, ptes, 0);
}

/* The state entry of page @page of @mr (NULL: not present). */
static void *orca_odpdev_state(struct orca_soft_mr *mr, u64 page)
{
	return xa_load(&mr->odp, page);
}

/* ---- REG_MR ----------------------------------------------------------------- */

static void orca_odpdev_test_reg(struct kunit *test)
{
	struct orca_odpdev *t = test->priv;
	struct orca_soft_mr *mr;
	u32 key = 0;

	/* Exactly the fields of the whole address space. */
	KUNIT_ASSERT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0, 0, T_IMPLICIT,
					      &key), T_OK);
	KUNIT_EXPECT_EQ(test, key & 0xff, 0x5aU);
	mr = orca_odpdev_mr(t, key);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, mr->key, key);
	KUNIT_EXPECT_EQ(test, mr->iova, 0ULL);
	KUNIT_EXPECT_EQ(test, mr->length, U64_MAX);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_npages(mr->flags, mr->num_pages),
			T_PAGES);
	KUNIT_EXPECT_TRUE(test, mr->flags & T_FLAG_ODP);
	KUNIT_EXPECT_TRUE(test, mr->flags & T_FLAG_ODP_IMPLICIT);
	KUNIT_EXPECT_EQ(test, t->sdev->counts.mrs, 1U);

	/* Each field other than that is BAD_PARAM. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0x1000, U64_MAX, 0, 0,
					      T_IMPLICIT, NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0x1000, U64_MAX - 0x1000, 0, 0,
					      T_IMPLICIT, NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX - 1, 0, 0,
					      T_IMPLICIT, NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, 1ULL << 40, 0, 0,
					      T_IMPLICIT, NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, 0, 0, 0, T_IMPLICIT, NULL),
			T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0, 1, T_IMPLICIT,
					      NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0, 0xffffffffU,
					      T_IMPLICIT, NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0x1000, 0,
					      T_IMPLICIT, NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0, 0,
					      T_IMPLICIT | T_LEVELS_1, NULL),
			T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0, 0,
					      T_IMPLICIT & ~0xffU, NULL),
			T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0, 0,
					      (T_IMPLICIT & ~0xffU) | 21, NULL),
			T_BAD_PARAM);
	/* FLAG_ODP_IMPLICIT needs FLAG_ODP and goes with no other kind. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0, 0,
					      T_FLAG_ODP_IMPLICIT | T_SHIFT_12,
					      NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0, 0,
					      T_FLAG_ODP_IMPLICIT |
					      T_FLAG_PHYSICAL, NULL),
			T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0, 0,
					      T_IMPLICIT | T_FLAG_DM, NULL),
			T_BAD_PARAM);
	/* Bit 21 is still reserved. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0, 0,
					      T_IMPLICIT | (1U << 21), NULL),
			T_BAD_PARAM);
	/* Nothing was registered by those. */
	KUNIT_EXPECT_EQ(test, t->sdev->counts.mrs, 1U);

	/* An explicit region keeps its own rules next to it. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0x10000, 0x4000, 0, 4,
					      T_FLAG_ODP | T_SHIFT_12, NULL),
			T_OK);
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0, 0,
					      T_FLAG_ODP | T_SHIFT_12, NULL),
			T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t->sdev->counts.mrs, 2U);
}

static void orca_odpdev_test_reg_caps(struct kunit *test)
{
	struct orca_odpdev *t = test->priv;

	/* A device with explicit regions only. */
	t->caps = T_CAP_ODP;
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0, 0, T_IMPLICIT,
					      NULL), T_UNSUPPORTED);
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0x10000, 0x1000, 0, 1,
					      T_FLAG_ODP | T_SHIFT_12, NULL),
			T_OK);
	/* Without ODP at all. */
	t->caps = 0;
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0, 0, T_IMPLICIT,
					      NULL), T_UNSUPPORTED);
	/* The flag alone is malformed whatever the device has. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_reg(t, 0, U64_MAX, 0, 0,
					      T_FLAG_ODP_IMPLICIT | T_SHIFT_12,
					      NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t->sdev->counts.mrs, 1U);
}

/* ---- ODP_UPDATE --------------------------------------------------------------- */

static void orca_odpdev_test_update_range(struct kunit *test)
{
	struct orca_odpdev *t = test->priv;
	u32 key = orca_odpdev_implicit(test);
	struct orca_soft_mr *mr = orca_odpdev_mr(t, key);
	__le64 ptes[2] = { cpu_to_le64(0x1234000), cpu_to_le64(0x5678001) };

	/* MAP: the last page, and the last two. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_MAP, T_TOP, 1, ptes),
			T_OK);
	KUNIT_EXPECT_TRUE(test, xa_is_value(orca_odpdev_state(mr, T_TOP)));
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_MAP, T_TOP - 1, 2,
						 ptes), T_OK);
	KUNIT_EXPECT_TRUE(test, xa_is_value(orca_odpdev_state(mr, T_TOP - 1)));
	/* Past the last page, or at it: BAD_PARAM, nothing changes. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_MAP, T_TOP, 2, ptes),
			T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_MAP, T_PAGES, 1,
						 ptes), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_MAP, U64_MAX, 1,
						 ptes), T_BAD_PARAM);
	KUNIT_EXPECT_NULL(test, orca_odpdev_state(mr, T_PAGES));
	/* Page 0 and the pages of 32-bit indices are pages too. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_MAP, 0, 1, ptes),
			T_OK);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_MAP, 0xffffffffULL,
						 2, ptes), T_OK);
	KUNIT_EXPECT_TRUE(test,
			  xa_is_value(orca_odpdev_state(mr, 1ULL << 32)));

	/* FAIL: up to 1024 pages, up to the last page. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_FAIL, T_PAGES - 1024,
						 1024, NULL), T_OK);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_access(orca_odpdev_state(mr, T_TOP),
						   false), -EFAULT);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_FAIL, T_TOP, 2,
						 NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_FAIL, T_PAGES, 1,
						 NULL), T_BAD_PARAM);

	/* UNMAP: a u32 count from 1, the range below 2^52. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_UNMAP, T_TOP, 1,
						 NULL), T_OK);
	KUNIT_EXPECT_NULL(test, orca_odpdev_state(mr, T_TOP));
	KUNIT_EXPECT_NOT_NULL(test, orca_odpdev_state(mr, T_TOP - 1));
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_UNMAP, T_TOP, 2,
						 NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_UNMAP, T_PAGES, 1,
						 NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_UNMAP,
						 T_PAGES - 0xfffffffeULL,
						 0xffffffffU, NULL),
			T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_UNMAP, 0, 0, NULL),
			T_BAD_PARAM);
	KUNIT_EXPECT_NOT_NULL(test, orca_odpdev_state(mr, T_TOP - 1));
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_UNMAP,
						 T_PAGES - 0xffffffffULL,
						 0xffffffffU, NULL), T_OK);
	KUNIT_EXPECT_NULL(test, orca_odpdev_state(mr, T_TOP - 1));
	KUNIT_EXPECT_NULL(test, orca_odpdev_state(mr, T_PAGES - 1024));
	/* The low pages were out of that range. */
	KUNIT_EXPECT_NOT_NULL(test, orca_odpdev_state(mr, 0));
	KUNIT_EXPECT_NOT_NULL(test, orca_odpdev_state(mr, 1ULL << 32));
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_UNMAP, 0,
						 0xffffffffU, NULL), T_OK);
	KUNIT_EXPECT_NULL(test, orca_odpdev_state(mr, 0));
	KUNIT_EXPECT_NOT_NULL(test, orca_odpdev_state(mr, 1ULL << 32));
	KUNIT_EXPECT_FALSE(test, xa_empty(&mr->odp));
}

static void orca_odpdev_test_update_explicit(struct kunit *test)
{
	struct orca_odpdev *t = test->priv;
	__le64 pte = cpu_to_le64(0x1234000);
	u32 key = 0;

	/* An explicit region of 4 pages keeps num_pages as its bound. */
	KUNIT_ASSERT_EQ(test, orca_odpdev_reg(t, 0x10800, 0x3000, 0, 4,
					      T_FLAG_ODP | T_SHIFT_12, &key),
			T_OK);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_MAP, 3, 1, &pte),
			T_OK);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_MAP, 4, 1, &pte),
			T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_UNMAP, 0, 5, NULL),
			T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_FAIL, T_TOP, 1,
						 NULL), T_BAD_PARAM);
}

/* ---- translation and bounds -------------------------------------------------- */

static void orca_odpdev_test_bounds(struct kunit *test)
{
	struct orca_odpdev *t = test->priv;
	struct orca_soft_mr *mr = orca_odpdev_mr(t, orca_odpdev_implicit(test));

	/* Every byte of [0, U64_MAX) is in the region. */
	KUNIT_EXPECT_TRUE(test, orca_soft_mr_range_ok(mr, 0, 1));
	KUNIT_EXPECT_TRUE(test, orca_soft_mr_range_ok(mr, 0, U64_MAX));
	KUNIT_EXPECT_TRUE(test, orca_soft_mr_range_ok(mr, U64_MAX - 1, 1));
	KUNIT_EXPECT_TRUE(test, orca_soft_mr_range_ok(mr, U64_MAX - 0x1000,
						      0x1000));
	KUNIT_EXPECT_TRUE(test, orca_soft_mr_range_ok(mr, 0x7fffffffe000ULL,
						      1U << 31));
	/* U64_MAX itself is not, and nothing wraps. */
	KUNIT_EXPECT_FALSE(test, orca_soft_mr_range_ok(mr, U64_MAX, 1));
	KUNIT_EXPECT_FALSE(test, orca_soft_mr_range_ok(mr, U64_MAX - 0xf, 0x10));
	KUNIT_EXPECT_FALSE(test, orca_soft_mr_range_ok(mr, 1, U64_MAX));
	KUNIT_EXPECT_FALSE(test, orca_soft_mr_range_ok(mr, U64_MAX - 7,
						       0x100));
}

static void orca_odpdev_test_translate(struct kunit *test)
{
	struct orca_odpdev *t = test->priv;
	u32 key = orca_odpdev_implicit(test);
	struct orca_soft_mr *mr = orca_odpdev_mr(t, key);
	u64 va = U64_MAX - 0xfff + 0x123;
	struct orca_soft_sgl *sgl;
	struct page *page;
	__le64 pte;
	u8 buf[16];
	u64 dma = 0;
	u8 *p;
	int i;

	/* A real page behind the last page of the address space. */
	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	p = page_address(page);
	for (i = 0; i < PAGE_SIZE; i++)
		p[i] = i * 7 + 1;
	pte = cpu_to_le64(page_to_phys(page) | 1);
	KUNIT_ASSERT_EQ(test, orca_odpdev_update(t, key, T_MAP, T_TOP, 1, &pte),
			T_OK);

	KUNIT_EXPECT_EQ(test, orca_soft_odp_translate(t->sdev, mr, va, va + 16,
						      true, &dma), 0);
	KUNIT_EXPECT_EQ(test, dma, (u64)page_to_phys(page) + 0x123);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_check(t->sdev, mr, U64_MAX - 0xfff,
						  0xfff, U64_MAX, true), 0);
	KUNIT_EXPECT_EQ(test, t->nevents, 0U);

	/* The bytes read through the region are the page's. */
	sgl = kunit_kzalloc(test, sizeof(*sgl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sgl);
	orca_odpdev_sgl(sgl, mr, va, sizeof(buf));
	KUNIT_EXPECT_EQ(test, orca_soft_sgl_read(t->sdev, sgl, 0, buf,
						 sizeof(buf)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(buf, p + 0x123, sizeof(buf)), 0);
	/* The last byte of the region, U64_MAX - 1. */
	orca_odpdev_sgl(sgl, mr, U64_MAX - 1, 1);
	KUNIT_EXPECT_EQ(test, orca_soft_sgl_read(t->sdev, sgl, 0, buf, 1), 0);
	KUNIT_EXPECT_EQ(test, buf[0], p[0xffe]);

	/* Once unmapped, the same access faults. */
	KUNIT_ASSERT_EQ(test, orca_odpdev_update(t, key, T_UNMAP, T_TOP, 1,
						 NULL), T_OK);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_translate(t->sdev, mr, va, va + 16,
						      false, &dma), -EAGAIN);
	KUNIT_EXPECT_EQ(test, t->nevents, 1U);
	__free_page(page);
}

/* ---- page faults ---------------------------------------------------------------- */

static void orca_odpdev_test_fault(struct kunit *test)
{
	struct orca_odpdev *t = test->priv;
	u32 key = orca_odpdev_implicit(test);
	struct orca_soft_mr *mr = orca_odpdev_mr(t, key);
	__le64 pte = cpu_to_le64(0x1234001);
	u64 va = U64_MAX - 0xfff + 0x800;
	u64 dma;

	/* One page, written: ODP_FAULT (0x50), page 2^52 - 1, the key. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_translate(t->sdev, mr, va, va + 0x100,
						      true, &dma), -EAGAIN);
	KUNIT_EXPECT_EQ(test, t->nevents, 1U);
	KUNIT_EXPECT_EQ(test, t->ev_type, 0x50);
	KUNIT_EXPECT_EQ(test, t->ev_aux, key);
	KUNIT_EXPECT_EQ(test, t->ev_data, T_TOP | (1ULL << 62));
	KUNIT_EXPECT_EQ(test, t->sdev->odp_fault_key, key);

	/* Three pages up to U64_MAX - 1, read: COUNT 2. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_check(t->sdev, mr,
						  U64_MAX - 0x2fff + 8,
						  0x3000 - 9, U64_MAX, false),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, t->ev_data, (T_TOP - 2) | (2ULL << 52));
	/* With the first one present, the fault starts at the second. */
	KUNIT_ASSERT_EQ(test, orca_odpdev_update(t, key, T_MAP, T_TOP - 2, 1,
						 &pte), T_OK);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_check(t->sdev, mr,
						  U64_MAX - 0x2fff + 8,
						  0x3000 - 9, U64_MAX, true),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, t->ev_data,
			(T_TOP - 1) | (1ULL << 52) | (1ULL << 62));

	/* An access running on past the top names pages up to the last. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_translate(t->sdev, mr,
						      U64_MAX - 0x1fff, 0,
						      false, &dma), -EAGAIN);
	KUNIT_EXPECT_EQ(test, t->ev_data, (T_TOP - 1) | (1ULL << 52));
	KUNIT_EXPECT_EQ(test, orca_soft_odp_translate(t->sdev, mr,
						      U64_MAX - 0x1fff, 0x1000,
						      false, &dma), -EAGAIN);
	KUNIT_EXPECT_EQ(test, t->ev_data, T_TOP - 1);

	/* A high fault far from the top, and at page 0. */
	KUNIT_EXPECT_EQ(test, orca_soft_odp_translate(t->sdev, mr,
						      0x123456789abcULL,
						      0x123456789abcULL + 1,
						      false, &dma), -EAGAIN);
	KUNIT_EXPECT_EQ(test, t->ev_data, 0x123456789ULL);
	KUNIT_EXPECT_EQ(test, orca_soft_odp_translate(t->sdev, mr, 0, 0x1000,
						      false, &dma), -EAGAIN);
	KUNIT_EXPECT_EQ(test, t->ev_data, 0ULL);

	/* A failed high page: an access error, then not present again. */
	KUNIT_ASSERT_EQ(test, orca_odpdev_update(t, key, T_FAIL, T_TOP, 1,
						 NULL), T_OK);
	t->nevents = 0;
	KUNIT_EXPECT_EQ(test, orca_soft_odp_translate(t->sdev, mr, va, va + 1,
						      false, &dma), -EFAULT);
	KUNIT_EXPECT_EQ(test, t->nevents, 0U);
	KUNIT_EXPECT_NULL(test, orca_odpdev_state(mr, T_TOP));
}

/* ---- failure epochs (1.8) ------------------------------------------------------ */

/* Fault at address @va of @mr (a read of one byte): the event's epoch. */
static u32 orca_odpdev_fault_epoch(struct kunit *test, struct orca_soft_mr *mr,
				   u64 va)
{
	struct orca_odpdev *t = test->priv;
	u64 dma;

	t->nevents = 0;
	KUNIT_EXPECT_EQ(test, orca_soft_odp_translate(t->sdev, mr, va, va + 1,
						      false, &dma), -EAGAIN);
	KUNIT_EXPECT_EQ(test, t->nevents, 1U);
	KUNIT_EXPECT_EQ(test, t->ev_info & ~T_EPOCH(0xffff), 0U);
	return t->ev_info >> 8;
}

/* A failed page at @va of @mr is used up: an access error, then not present. */
static void orca_odpdev_use_up(struct kunit *test, struct orca_soft_mr *mr,
			       u64 va)
{
	struct orca_odpdev *t = test->priv;
	u64 dma;

	KUNIT_EXPECT_EQ(test, orca_soft_odp_translate(t->sdev, mr, va, va + 1,
						      false, &dma), -EFAULT);
	KUNIT_EXPECT_NULL(test, orca_odpdev_state(mr, va >> 12));
}

static void orca_odpdev_test_epoch(struct kunit *test)
{
	struct orca_odpdev *t = test->priv;
	struct orca_soft_mr *mr;
	struct orca_soft_qp *qp;
	__le64 pte = cpu_to_le64(0x5678001);
	u64 va = 0x7f0000123000ULL, page = va >> 12;
	u32 key, e;

	t->caps |= T_CAP_ODP_EPOCH;
	key = orca_odpdev_implicit(test);
	mr = orca_odpdev_mr(t, key);
	KUNIT_ASSERT_NOT_NULL(test, mr);

	/* A new region's faults carry epoch 0; FAIL_FAULT 0 fails the page. */
	e = orca_odpdev_fault_epoch(test, mr, va);
	KUNIT_EXPECT_EQ(test, e, 0U);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update_epoch(t, key, T_FAIL_FAULT,
						       page, 1, NULL, e), T_OK);
	KUNIT_EXPECT_NOT_NULL(test, orca_odpdev_state(mr, page));
	/* Answered twice before the access: still failed, once. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_update_epoch(t, key, T_FAIL_FAULT,
						       page, 1, NULL, e), T_OK);
	orca_odpdev_use_up(test, mr, va);

	/*
	 * The same fault answered again after that (a copy raised before
	 * the page was used up): OK, no page changes, and the QP waiting
	 * for the region goes on all the same.
	 */
	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->req.wait = ORCA_SOFT_WAIT_ODP;
	qp->req.odp_key = key;
	list_add_tail(&qp->wait_node, &t->sdev->eng_waiting);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update_epoch(t, key, T_FAIL_FAULT,
						       page, 1, NULL, e), T_OK);
	KUNIT_EXPECT_NULL(test, orca_odpdev_state(mr, page));
	KUNIT_EXPECT_TRUE(test, list_empty(&t->sdev->eng_waiting));
	KUNIT_EXPECT_EQ(test, qp->req.wait, ORCA_SOFT_WAIT_NONE);

	/* The next fault carries epoch 1, and its answer fails the page. */
	e = orca_odpdev_fault_epoch(test, mr, va);
	KUNIT_EXPECT_EQ(test, e, 1U);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update_epoch(t, key, T_FAIL_FAULT,
						       page, 1, NULL, e), T_OK);
	KUNIT_EXPECT_NOT_NULL(test, orca_odpdev_state(mr, page));

	/* Another page used up moves the epoch for the whole region. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_FAIL, page + 7, 1,
						 NULL), T_OK);
	orca_odpdev_use_up(test, mr, va + 7 * 4096);
	KUNIT_EXPECT_EQ(test, orca_odpdev_fault_epoch(test, mr, va + 4096), 2U);
	/* The page failed under epoch 1 stays failed until an access. */
	orca_odpdev_use_up(test, mr, va);
	KUNIT_EXPECT_EQ(test, orca_odpdev_fault_epoch(test, mr, va), 3U);

	/* FAIL (3) ignores the epoch, as in 1.7. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_FAIL, page, 1, NULL),
			T_OK);
	KUNIT_EXPECT_NOT_NULL(test, orca_odpdev_state(mr, page));
	orca_odpdev_use_up(test, mr, va);

	/* An UNMAP of pages that are all not present leaves the epoch... */
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_UNMAP, page, 8, NULL),
			T_OK);
	KUNIT_EXPECT_EQ(test, orca_odpdev_fault_epoch(test, mr, va), 4U);
	/* ...one that erases a failed page moves it, once... */
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_FAIL, page, 2, NULL),
			T_OK);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_UNMAP, page, 8, NULL),
			T_OK);
	KUNIT_EXPECT_NULL(test, orca_odpdev_state(mr, page));
	KUNIT_EXPECT_EQ(test, orca_odpdev_fault_epoch(test, mr, va), 5U);
	/*
	 * ...and so does one that erases a present page: a copy of the
	 * fault MAP answered, handled after the page was taken away, comes
	 * too late.
	 */
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_MAP, page, 1, &pte),
			T_OK);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_UNMAP, page, 1, NULL),
			T_OK);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update_epoch(t, key, T_FAIL_FAULT,
						       page, 1, NULL, 5), T_OK);
	KUNIT_EXPECT_NULL(test, orca_odpdev_state(mr, page));
	KUNIT_EXPECT_EQ(test, orca_odpdev_fault_epoch(test, mr, va), 6U);

	/*
	 * The epoch wraps after 0xffff (set here directly: reaching it
	 * through the interface takes 65,530 more use-ups).
	 */
	mr->odp_epoch = 0xffff;
	KUNIT_EXPECT_EQ(test, orca_odpdev_fault_epoch(test, mr, va), 0xffffU);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update_epoch(t, key, T_FAIL_FAULT,
						       page, 1, NULL, 0xffff),
			T_OK);
	orca_odpdev_use_up(test, mr, va);
	e = orca_odpdev_fault_epoch(test, mr, va);
	KUNIT_EXPECT_EQ(test, e, 0U);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update_epoch(t, key, T_FAIL_FAULT,
						       page, 1, NULL, 0xffff),
			T_OK);
	KUNIT_EXPECT_NULL(test, orca_odpdev_state(mr, page));

	/* epoch [31:16], and any epoch for the other operations: BAD_PARAM. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_update_epoch(t, key, T_FAIL_FAULT,
						       page, 1, NULL,
						       0x10000), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update_epoch(t, key, T_FAIL, page, 1,
						       NULL, 1), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update_epoch(t, key, T_UNMAP, page, 1,
						       NULL, 1), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_odpdev_update_epoch(t, key, T_MAP, page, 1,
						       &pte, 1), T_BAD_PARAM);
	KUNIT_EXPECT_NULL(test, orca_odpdev_state(mr, page));

	/* A device without ODP_EPOCH: no FAIL_FAULT, faults carry 0. */
	t->caps &= ~T_CAP_ODP_EPOCH;
	KUNIT_EXPECT_EQ(test, orca_odpdev_update_epoch(t, key, T_FAIL_FAULT,
						       page, 1, NULL, 0),
			T_BAD_PARAM);
	/* (An epoch that is not 0, set directly.) */
	mr->odp_epoch = 5;
	KUNIT_EXPECT_EQ(test, orca_odpdev_fault_epoch(test, mr, va), 0U);
	KUNIT_EXPECT_NULL(test, orca_odpdev_state(mr, page));
	KUNIT_EXPECT_EQ(test, orca_odpdev_dereg(t, key), T_OK);
}

/* ---- memory windows ------------------------------------------------------------- */

static void orca_odpdev_test_mw(struct kunit *test)
{
	struct orca_odpdev *t = test->priv;
	u32 key = orca_odpdev_implicit(test);
	struct orca_soft_mr *mr = orca_odpdev_mr(t, key);
	struct orca_soft_cmd_out out = {};
	struct orca_wqe_bind_mw b = {};
	union orca_aq_cmd cmd = {};
	struct orca_soft_qp *qp;
	struct orca_soft_mr *mw;
	u64 addr;

	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->pd = &t->pd;
	cmd.alloc_mw.pdn = cpu_to_le32(1);
	cmd.alloc_mw.type = cpu_to_le32(ORCA_MW_TYPE_1);
	KUNIT_ASSERT_EQ(test, orca_soft_alloc_mw(t->sdev, &cmd, &out), T_OK);
	mw = orca_odpdev_mr(t, out.result);
	KUNIT_ASSERT_NOT_NULL(test, mw);

	/* Zero-based, over the two pages below the top. */
	b.addr = cpu_to_le64(U64_MAX - 0x1fff);
	b.length = cpu_to_le64(0x1fff);
	b.mr_key = cpu_to_le32(key);
	b.new_key = cpu_to_le32(out.result + 1);
	b.info = cpu_to_le32(ORCA_BIND_ACCESS_REMOTE_READ |
			     ORCA_WQE_BIND_ZERO_BASED);
	KUNIT_EXPECT_EQ(test, orca_soft_bind_mw(t->sdev, qp, out.result, &b),
			ORCA_CQE_ST_MW_BIND_ERR);
	/* Type 1 windows are never zero-based: a type 1 bind then. */
	b.info = cpu_to_le32(ORCA_BIND_ACCESS_REMOTE_READ);
	KUNIT_ASSERT_EQ(test, orca_soft_bind_mw(t->sdev, qp, out.result, &b),
			ORCA_CQE_ST_SUCCESS);
	KUNIT_EXPECT_EQ(test, mr->windows, 1U);
	addr = U64_MAX - 0x1000;
	KUNIT_EXPECT_PTR_EQ(test, orca_soft_mw_resolve(mw, qp, &addr, 0x1000),
			    mr);
	KUNIT_EXPECT_EQ(test, addr, U64_MAX - 0x1000);
	addr = U64_MAX - 0x1000;
	KUNIT_EXPECT_NULL(test, orca_soft_mw_resolve(mw, qp, &addr, 0x1001));
	/* The region cannot go while the window is bound. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_dereg(t, key), T_BUSY);

	/* The whole region, and past its end. */
	b.new_key = cpu_to_le32(out.result + 2);
	b.addr = 0;
	b.length = cpu_to_le64(U64_MAX);
	KUNIT_EXPECT_EQ(test, orca_soft_bind_mw(t->sdev, qp, out.result + 1,
						&b), ORCA_CQE_ST_SUCCESS);
	b.new_key = cpu_to_le32(out.result + 3);
	b.addr = cpu_to_le64(1);
	KUNIT_EXPECT_EQ(test, orca_soft_bind_mw(t->sdev, qp, out.result + 2,
						&b), ORCA_CQE_ST_MW_BIND_ERR);
	b.addr = cpu_to_le64(U64_MAX);
	b.length = cpu_to_le64(1);
	KUNIT_EXPECT_EQ(test, orca_soft_bind_mw(t->sdev, qp, out.result + 2,
						&b), ORCA_CQE_ST_MW_BIND_ERR);
	/* Unbinding (length 0) lets the region go. */
	b.length = 0;
	KUNIT_EXPECT_EQ(test, orca_soft_bind_mw(t->sdev, qp, out.result + 2,
						&b), ORCA_CQE_ST_SUCCESS);
	KUNIT_EXPECT_EQ(test, mr->windows, 0U);
	KUNIT_EXPECT_EQ(test, orca_odpdev_dereg(t, key), T_OK);
}

/* ---- DEREG_MR --------------------------------------------------------------------- */

static void orca_odpdev_test_dereg(struct kunit *test)
{
	struct orca_odpdev *t = test->priv;
	u32 key = orca_odpdev_implicit(test);
	__le64 ptes[4] = {
		cpu_to_le64(0x1000), cpu_to_le64(0x2001),
		cpu_to_le64(0x3000), cpu_to_le64(0x4001),
	};

	/* Page states all over the address space... */
	KUNIT_ASSERT_EQ(test, orca_odpdev_update(t, key, T_MAP, 0, 4, ptes),
			T_OK);
	KUNIT_ASSERT_EQ(test, orca_odpdev_update(t, key, T_MAP, 1ULL << 40, 4,
						 ptes), T_OK);
	KUNIT_ASSERT_EQ(test, orca_odpdev_update(t, key, T_MAP, T_TOP - 3, 4,
						 ptes), T_OK);
	KUNIT_ASSERT_EQ(test, orca_odpdev_update(t, key, T_FAIL, 1ULL << 51,
						 1024, NULL), T_OK);
	/* ... go with the region (kmemleak would tell otherwise). */
	KUNIT_EXPECT_EQ(test, orca_odpdev_dereg(t, key), T_OK);
	KUNIT_EXPECT_EQ(test, t->sdev->counts.mrs, 0U);
	KUNIT_EXPECT_NULL(test, orca_odpdev_mr(t, key));
	/* The key is stale now. */
	KUNIT_EXPECT_EQ(test, orca_odpdev_update(t, key, T_UNMAP, 0, 1, NULL),
			T_BAD_HANDLE);
	KUNIT_EXPECT_EQ(test, orca_odpdev_dereg(t, key), T_BAD_HANDLE);
}

static struct kunit_case orca_odpdev_test_cases[] = {
	KUNIT_CASE(orca_odpdev_test_reg),
	KUNIT_CASE(orca_odpdev_test_reg_caps),
	KUNIT_CASE(orca_odpdev_test_update_range),
	KUNIT_CASE(orca_odpdev_test_update_explicit),
	KUNIT_CASE(orca_odpdev_test_bounds),
	KUNIT_CASE(orca_odpdev_test_translate),
	KUNIT_CASE(orca_odpdev_test_fault),
	KUNIT_CASE(orca_odpdev_test_epoch),
	KUNIT_CASE(orca_odpdev_test_mw),
	KUNIT_CASE(orca_odpdev_test_dereg),
	{}
};

static struct kunit_suite orca_odpdev_test_suite = {
	.name = "orca_soft_odp_dev",
	.init = orca_odpdev_init,
	.exit = orca_odpdev_exit,
	.test_cases = orca_odpdev_test_cases,
};

kunit_test_suite(orca_odpdev_test_suite);

MODULE_DESCRIPTION("KUnit tests for orca_soft's on-demand-paging regions");
MODULE_LICENSE("GPL");
