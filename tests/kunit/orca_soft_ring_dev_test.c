// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for orca_soft's paged rings (interface 1.7) as the device
 * handles them: CREATE_CQ and RESIZE_CQ, CREATE_SRQ and QUERY_SRQ, and
 * CREATE_QP with rings named by a page list of 4 KiB pages; where the
 * device then writes CQEs and reads WQE slots; the checks of the list
 * and its entries, and the failures that must leave nothing behind.
 *
 * The device's code under test (orca_soft_pbl.c, orca_soft_cq.c,
 * orca_soft_comp.c, orca_soft_srq.c, orca_soft_qp.c and the QP state
 * table) is compiled into this module and runs on a device structure of
 * its own; the few functions it calls in the rest of orca_soft are
 * stand-ins below.  Host memory is pages the test allocates, each ring
 * page on its own and a ring's pages in descending order; a DMA address
 * is a page's physical address, and an access outside the test's pages
 * fails and is counted (an unexpected one fails the case).  Input
 * mailboxes are the test's, PD 1 and one EQ exist, and the capabilities
 * are the test's.  The expected values come from
 * Documentation/orca-hw-interface.rst ("Ring page lists", CREATE_CQ,
 * RESIZE_CQ, CREATE_QP, CREATE_SRQ, QUERY_SRQ), written out as numbers.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sort.h>
#include <linux/string.h>

/* The code under test, compiled into this module. */
#include "../../drivers/orca_soft/orca_soft_pbl.c"
#include "../../drivers/orca_soft/orca_soft_cq.c"
#include "../../drivers/orca_soft/orca_soft_comp.c"
#include "../../drivers/orca_soft/orca_soft_srq.c"
#include "../../drivers/orca_soft/orca_soft_qp.c"
#include "../../drivers/orca_soft/orca_soft_qp_fsm.c"

/* ---- the specification's numbers ------------------------------------------ */

/* cap_flags: RING_PBL is bit 14. */
#define T_CAP_RING_PBL		BIT(14)
/* cfg words: PBL_LEVELS [29:28]; CQ: CQE64 [8]; WQ: [4:0], [11:8], [23:16]. */
#define T_LEVELS(l)		((u32)(l) << 28)
#define T_CQE64			BIT(8)
#define T_WQ(log2, stride, sge)	((u32)(log2) | (u32)(stride) << 8 | \
				 (u32)(sge) << 16)
/* Statuses. */
#define T_OK			0x00
#define T_BAD_PARAM		0x02
#define T_BAD_HANDLE		0x04
#define T_DMA_ERROR		0x08
/* QP type RC; CQE owner bit; the doorbell record's dev_flags POLLING. */
#define T_QPT_RC		2
#define T_OWNER			0x80000000U
#define T_POLLING		1U
/* Ring pages, and page addresses in a level-2 table page. */
#define T_PAGE			4096
#define T_PER_TABLE		512
/* Aligned and non-zero, but no memory of the test: unreadable. */
#define T_NOWHERE		BIT_ULL(44)

/* ---- the rest of the device, stood in for --------------------------------- */

#define T_MAX_ALLOCS		2048

struct orca_ringdev_alloc {
	struct page *page;
	unsigned int order;
};

struct orca_ringdev {
	struct orca_soft_dev *sdev;
	struct orca_soft_pd pd;
	u32 eqn;
	u32 caps;
	u8 in[ORCA_SOFT_MAX_IN_LEN];	/* the input mailbox */
	u8 out[ORCA_SOFT_MAX_IN_LEN];	/* the output mailbox */
	struct orca_ringdev_alloc *allocs;
	u32 nallocs;
	u32 bad_dma;			/* accesses outside the test's pages */
	u64 db;				/* a page of doorbell records */
};

static struct orca_ringdev *orca_ringdev;

/* Is [@addr, @addr + @len) inside one allocation of the test? */
static bool orca_ringdev_mem_ok(u64 addr, size_t len)
{
	struct orca_ringdev *t = orca_ringdev;
	u32 i;

	for (i = 0; i < t->nallocs; i++) {
		u64 base = page_to_phys(t->allocs[i].page);
		u64 size = PAGE_SIZE << t->allocs[i].order;

		if (addr >= base && addr - base <= size &&
		    len <= size - (addr - base))
			return true;
	}
	t->bad_dma++;
	return false;
}

int orca_soft_dma_read(struct orca_soft_dev *sdev, u64 addr, void *buf,
		       size_t len)
{
	if (!orca_ringdev_mem_ok(addr, len))
		return -EFAULT;
	memcpy(buf, phys_to_virt(addr), len);
	return 0;
}

int orca_soft_dma_write(struct orca_soft_dev *sdev, u64 addr,
			const void *buf, size_t len)
{
	if (!orca_ringdev_mem_ok(addr, len))
		return -EFAULT;
	memcpy(phys_to_virt(addr), buf, len);
	return 0;
}

int orca_soft_dma_write32(struct orca_soft_dev *sdev, u64 addr, u32 val)
{
	__le32 v = cpu_to_le32(val);

	return orca_soft_dma_write(sdev, addr, &v, sizeof(v));
}

int orca_soft_dma_read32(struct orca_soft_dev *sdev, u64 addr, u32 *val)
{
	__le32 v;

	if (orca_soft_dma_read(sdev, addr, &v, sizeof(v)))
		return -EFAULT;
	*val = le32_to_cpu(v);
	return 0;
}

int orca_soft_wq_set_flags(struct orca_soft_dev *sdev,
			   const struct orca_soft_wq *wq, u32 flags)
{
	return orca_soft_dma_write32(sdev, wq->db_addr +
				     offsetof(struct orca_db_record, dev_flags),
				     flags);
}

u32 orca_soft_cap_flags(struct orca_soft_dev *sdev)
{
	return orca_ringdev->caps;
}

bool orca_soft_rsvd_clear(const void *rsvd, size_t len)
{
	return !memchr_inv(rsvd, 0, len);
}

u8 orca_soft_get_input(struct orca_soft_dev *sdev, u64 in_addr, u32 in_len,
		       void *in, size_t len)
{
	memcpy(in, orca_ringdev->in, min(len, sizeof(orca_ringdev->in)));
	return ORCA_AQ_STS_OK;
}

u8 orca_soft_put_output(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd, const void *out,
			size_t len)
{
	memcpy(orca_ringdev->out, out, min(len, sizeof(orca_ringdev->out)));
	return ORCA_AQ_STS_OK;
}

struct orca_soft_pd *orca_soft_pd_find(struct orca_soft_dev *sdev, u32 pdn)
{
	return pdn == 1 ? &orca_ringdev->pd : NULL;
}

struct orca_soft_xrcd *orca_soft_xrcd_find(struct orca_soft_dev *sdev,
					   u32 xrcdn)
{
	return NULL;
}

void orca_soft_eq_publish(struct orca_soft_dev *sdev, struct orca_soft_eq *eq,
			  bool add)
{
}

bool orca_soft_eq_post(struct orca_soft_dev *sdev, struct orca_soft_eq *eq,
		       u32 cqn)
{
	return true;
}

void orca_soft_post_event(struct orca_soft_dev *sdev, u8 type, u64 data)
{
}

void orca_soft_qp_set_err(struct orca_soft_dev *sdev, struct orca_soft_qp *qp)
{
}

void orca_soft_qp_modified(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
			   u8 cur, u32 mask)
{
}

void orca_soft_sqd_check(struct orca_soft_dev *sdev, struct orca_soft_qp *qp)
{
}

void orca_soft_qp_unlink(struct orca_soft_qp *qp)
{
}

void orca_soft_mcast_detach_qp(struct orca_soft_dev *sdev,
			       struct orca_soft_qp *qp)
{
}

void orca_soft_mw_qp_gone(struct orca_soft_dev *sdev, struct orca_soft_qp *qp)
{
}

int orca_soft_sq_run(struct orca_soft_dev *sdev, struct orca_soft_qp *qp,
		     int budget)
{
	return 0;
}

bool orca_soft_sgid_ok(struct orca_soft_dev *sdev, u32 sgid_index)
{
	return true;
}

bool orca_soft_vlan_ok(u16 vlan)
{
	return true;
}

/* ---- host memory ------------------------------------------------------------ */

/* 2^@order zeroed pages of host memory: their DMA address. */
static u64 orca_ringdev_alloc(struct kunit *test, unsigned int order)
{
	struct orca_ringdev *t = test->priv;
	struct page *page;

	KUNIT_ASSERT_LT(test, t->nallocs, (u32)T_MAX_ALLOCS);
	page = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);
	KUNIT_ASSERT_NOT_NULL(test, page);
	t->allocs[t->nallocs].page = page;
	t->allocs[t->nallocs].order = order;
	t->nallocs++;
	return page_to_phys(page);
}

static void *orca_ringdev_va(u64 addr)
{
	return phys_to_virt(addr);
}

static int orca_ringdev_cmp_desc(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * @n ring pages, each allocated on its own and listed from the highest
 * address down: the page after page[i] is never page[i + 1], so a device
 * that addressed the ring as contiguous from page[0] would miss.
 */
static void orca_ringdev_pages(struct kunit *test, u64 *pages, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		pages[i] = orca_ringdev_alloc(test, 0);
	sort(pages, n, sizeof(*pages), orca_ringdev_cmp_desc, NULL);
}

/* Write @n page addresses at @addr. */
static void orca_ringdev_put(u64 addr, const u64 *pages, u32 n)
{
	__le64 *p = orca_ringdev_va(addr);
	u32 i;

	for (i = 0; i < n; i++)
		p[i] = cpu_to_le64(pages[i]);
}

/*
 * A page list of @n pages at byte @off of fresh memory: level 1 the
 * addresses themselves, level 2 those of table pages holding them.
 */
static u64 orca_ringdev_list(struct kunit *test, const u64 *pages, u32 n,
			     u8 levels, u32 off)
{
	u64 top[8];
	u32 ntop, i;
	u64 list;

	if (levels == 1) {
		list = orca_ringdev_alloc(test, 1) + off;
		KUNIT_ASSERT_LE(test, off + n * 8, 2U * PAGE_SIZE);
		orca_ringdev_put(list, pages, n);
		return list;
	}
	ntop = DIV_ROUND_UP(n, T_PER_TABLE);
	KUNIT_ASSERT_LE(test, ntop, (u32)ARRAY_SIZE(top));
	for (i = 0; i < ntop; i++) {
		top[i] = orca_ringdev_alloc(test, 0);
		orca_ringdev_put(top[i], pages + i * T_PER_TABLE,
				 min_t(u32, n - i * T_PER_TABLE, T_PER_TABLE));
	}
	list = orca_ringdev_alloc(test, 0) + off;
	orca_ringdev_put(list, top, ntop);
	return list;
}

/* Doorbell record @i. */
static u64 orca_ringdev_db(struct orca_ringdev *t, u32 i)
{
	return t->db + i * 64;
}

static struct orca_db_record *orca_ringdev_rec(u64 db)
{
	return orca_ringdev_va(db);
}

static struct orca_cqe *orca_ringdev_cqe(u64 addr)
{
	return orca_ringdev_va(addr);
}

static int orca_ringdev_init(struct kunit *test)
{
	struct orca_ringdev *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct orca_soft_eq *eq;

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->sdev = kunit_kzalloc(test, sizeof(*t->sdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->sdev);
	t->allocs = kunit_kcalloc(test, T_MAX_ALLOCS, sizeof(*t->allocs),
				  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->allocs);
	xa_init_flags(&t->sdev->eqs, XA_FLAGS_ALLOC1);
	xa_init_flags(&t->sdev->cqs, XA_FLAGS_ALLOC1);
	xa_init_flags(&t->sdev->qps, XA_FLAGS_ALLOC1);
	xa_init_flags(&t->sdev->srqs, XA_FLAGS_ALLOC1);
	t->pd.pdn = 1;
	t->caps = T_CAP_RING_PBL;
	orca_ringdev = t;
	test->priv = t;

	/* One EQ: CQ reset frees it. */
	eq = kzalloc(sizeof(*eq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, eq);
	eq->log2_depth = 6;
	if (xa_alloc(&t->sdev->eqs, &eq->eqn, eq, XA_LIMIT(1, 64),
		     GFP_KERNEL)) {
		kfree(eq);
		KUNIT_ASSERT_FAILURE(test, "no EQ");
	}
	t->eqn = eq->eqn;
	t->db = orca_ringdev_alloc(test, 0);
	return 0;
}

static void orca_ringdev_exit(struct kunit *test)
{
	struct orca_ringdev *t = test->priv;
	u32 i;

	orca_soft_qp_reset(t->sdev);
	orca_soft_srq_reset(t->sdev);
	orca_soft_cq_reset(t->sdev);
	xa_destroy(&t->sdev->eqs);
	xa_destroy(&t->sdev->cqs);
	xa_destroy(&t->sdev->qps);
	xa_destroy(&t->sdev->srqs);
	for (i = 0; i < t->nallocs; i++)
		__free_pages(t->allocs[i].page, t->allocs[i].order);
	orca_ringdev = NULL;
}

/* ---- commands ----------------------------------------------------------------- */

static u8 orca_ringdev_create_cq(struct orca_ringdev *t, u64 ring, u32 cfg,
				 u64 db, u32 *cqn)
{
	struct orca_soft_cmd_out out = {};
	union orca_aq_cmd cmd = {};
	u8 sts;

	cmd.create_cq.ring_addr = cpu_to_le64(ring);
	cmd.create_cq.db_addr = cpu_to_le64(db);
	cmd.create_cq.cfg = cpu_to_le32(cfg);
	cmd.create_cq.eqn = cpu_to_le32(t->eqn);
	sts = orca_soft_create_cq(t->sdev, &cmd, &out);
	if (cqn)
		*cqn = out.result;
	return sts;
}

static u8 orca_ringdev_resize_cq(struct orca_ringdev *t, u32 cqn, u64 ring,
				 u32 cfg, u64 *moved)
{
	struct orca_soft_cmd_out out = {};
	union orca_aq_cmd cmd = {};
	u8 sts;

	cmd.resize_cq.ring_addr = cpu_to_le64(ring);
	cmd.resize_cq.cqn = cpu_to_le32(cqn);
	cmd.resize_cq.cfg = cpu_to_le32(cfg);
	sts = orca_soft_resize_cq(t->sdev, &cmd, &out);
	if (moved)
		*moved = out.result;
	return sts;
}

/* A CQ created OK: the device's CQ. */
static struct orca_soft_cq *orca_ringdev_cq(struct kunit *test, u64 ring,
					    u32 cfg, u64 db)
{
	struct orca_ringdev *t = test->priv;
	struct orca_soft_cq *cq;
	u32 cqn = 0;

	KUNIT_ASSERT_EQ(test, orca_ringdev_create_cq(t, ring, cfg, db, &cqn),
			T_OK);
	cq = orca_soft_cq_find(t->sdev, cqn);
	KUNIT_ASSERT_NOT_NULL(test, cq);
	return cq;
}

/* The consumer has taken every CQE so far; then one more is written. */
static void orca_ringdev_complete(struct orca_ringdev *t,
				  struct orca_soft_cq *cq, u64 wr_id)
{
	struct orca_soft_cqe_info ci = {
		.wr_id = wr_id,
		.byte_len = 1,
		.qpn = 0x77,
	};

	orca_ringdev_rec(cq->db_addr)->cons = cpu_to_le32(cq->prod);
	orca_soft_cq_complete(t->sdev, cq, &ci);
}

/* The CQE at @addr holds @wr_id with owner bit @owner. */
static void orca_ringdev_expect_cqe(struct kunit *test, u64 addr, u64 wr_id,
				    bool owner)
{
	struct orca_cqe *cqe = orca_ringdev_cqe(addr);

	KUNIT_EXPECT_EQ(test, le64_to_cpu(cqe->wr_id), wr_id);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cqe->qpn), 0x77U);
	KUNIT_EXPECT_EQ(test, !!(le32_to_cpu(cqe->status_owner) & T_OWNER),
			owner);
}

/* ---- CQs ---------------------------------------------------------------------- */

static void orca_ringdev_test_cq_level1(struct kunit *test)
{
	struct orca_ringdev *t = test->priv;
	struct orca_soft_cq *cq;
	u64 pages[2], list;
	u32 i;

	/* 256 CQEs of 32 bytes: 2 pages; the list 8-byte, not 64-byte, aligned. */
	orca_ringdev_pages(test, pages, 2);
	list = orca_ringdev_list(test, pages, 2, 1, 8);
	cq = orca_ringdev_cq(test, list, 8 | T_LEVELS(1),
			     orca_ringdev_db(t, 0));
	KUNIT_EXPECT_EQ(test, cq->ring.addr, list);
	KUNIT_EXPECT_EQ(test, cq->ring.levels, 1);
	KUNIT_ASSERT_EQ(test, cq->ring.npages, 2U);
	KUNIT_EXPECT_EQ(test, cq->ring.pages[0], pages[0]);
	KUNIT_EXPECT_EQ(test, cq->ring.pages[1], pages[1]);

	/* The device copied the list and never reads it again. */
	memset(orca_ringdev_va(list), 0xa5, 16);

	/* Two passes and a bit: the second pass clears the owner bit. */
	for (i = 0; i < 258; i++)
		orca_ringdev_complete(t, cq, 0x1000 + i);
	KUNIT_EXPECT_EQ(test, cq->prod, 258U);
	KUNIT_EXPECT_FALSE(test, cq->overrun);
	/* Byte o at page[o / 4096] + o % 4096: across the page boundary. */
	orca_ringdev_expect_cqe(test, pages[0] + 2 * 32, 0x1002, true);
	orca_ringdev_expect_cqe(test, pages[0] + 4064, 0x1000 + 127, true);
	orca_ringdev_expect_cqe(test, pages[1], 0x1000 + 128, true);
	orca_ringdev_expect_cqe(test, pages[1] + 4064, 0x1000 + 255, true);
	/* The wrap: back to the first page. */
	orca_ringdev_expect_cqe(test, pages[0], 0x1000 + 256, false);
	orca_ringdev_expect_cqe(test, pages[0] + 32, 0x1000 + 257, false);
	KUNIT_EXPECT_EQ(test, t->bad_dma, 0U);
}

static void orca_ringdev_test_cq_small(struct kunit *test)
{
	struct orca_ringdev *t = test->priv;
	struct orca_soft_cq *cq;
	u64 pages[2], list;

	/* 2 CQEs: 64 bytes, from the first byte of their page. */
	orca_ringdev_pages(test, pages, 1);
	list = orca_ringdev_list(test, pages, 1, 1, 0);
	cq = orca_ringdev_cq(test, list, 1 | T_LEVELS(1),
			     orca_ringdev_db(t, 0));
	KUNIT_EXPECT_EQ(test, cq->ring.npages, 1U);
	orca_ringdev_complete(t, cq, 1);
	orca_ringdev_complete(t, cq, 2);
	orca_ringdev_complete(t, cq, 3);
	orca_ringdev_expect_cqe(test, pages[0], 3, false);
	orca_ringdev_expect_cqe(test, pages[0] + 32, 2, true);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(orca_ringdev_cqe(pages[0] + 64)->wr_id),
			0ULL);

	/* Level 2 with one partial table page: 2 of its 512 entries. */
	orca_ringdev_pages(test, pages, 2);
	list = orca_ringdev_list(test, pages, 2, 2, 24);
	cq = orca_ringdev_cq(test, list, 8 | T_LEVELS(2),
			     orca_ringdev_db(t, 1));
	KUNIT_ASSERT_EQ(test, cq->ring.npages, 2U);
	KUNIT_EXPECT_EQ(test, cq->ring.pages[1], pages[1]);
	cq->prod = 127;
	orca_ringdev_complete(t, cq, 127);
	orca_ringdev_complete(t, cq, 128);
	orca_ringdev_expect_cqe(test, pages[0] + 4064, 127, true);
	orca_ringdev_expect_cqe(test, pages[1], 128, true);
	KUNIT_EXPECT_EQ(test, t->sdev->counts.cqs, 2U);
	KUNIT_EXPECT_EQ(test, t->bad_dma, 0U);
}

static void orca_ringdev_test_cq_level2(struct kunit *test)
{
	struct orca_ringdev *t = test->priv;
	struct orca_soft_cq *cq;
	struct orca_cqe_ext *ext;
	u64 *pages, list;
	u32 i, same = 0;

	/* The largest CQ: 2^16 CQEs of 64 bytes, 4 MiB, 1024 pages, 2 tables. */
	pages = kunit_kcalloc(test, 1024, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	orca_ringdev_pages(test, pages, 1024);
	list = orca_ringdev_list(test, pages, 1024, 2, 0);
	cq = orca_ringdev_cq(test, list, 16 | T_CQE64 | T_LEVELS(2),
			     orca_ringdev_db(t, 0));
	KUNIT_EXPECT_EQ(test, cq->cqe_size, 64);
	KUNIT_ASSERT_EQ(test, cq->ring.npages, 1024U);
	for (i = 0; i < 1024; i++)
		same += cq->ring.pages[i] == pages[i];
	KUNIT_EXPECT_EQ(test, same, 1024U);

	/* From the last CQE of the first table's last page to the second's. */
	cq->prod = 32766;
	orca_ringdev_complete(t, cq, 32766);
	orca_ringdev_complete(t, cq, 32767);
	orca_ringdev_complete(t, cq, 32768);
	orca_ringdev_expect_cqe(test, pages[511] + 4032 - 64, 32766, true);
	orca_ringdev_expect_cqe(test, pages[511] + 4032, 32767, true);
	orca_ringdev_expect_cqe(test, pages[512], 32768, true);
	/* The timestamp follows its CQE in the same page. */
	ext = orca_ringdev_va(pages[512] + 32);
	KUNIT_EXPECT_NE(test, le64_to_cpu(ext->timestamp), 0ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(orca_ringdev_cqe(pages[512] + 64)->wr_id),
			0ULL);
	/* And the last CQE of the ring, then the wrap. */
	cq->prod = 65535;
	orca_ringdev_complete(t, cq, 65535);
	orca_ringdev_complete(t, cq, 65536);
	orca_ringdev_expect_cqe(test, pages[1023] + 4032, 65535, true);
	orca_ringdev_expect_cqe(test, pages[0], 65536, false);
	KUNIT_EXPECT_EQ(test, t->bad_dma, 0U);
}

static void orca_ringdev_test_cq_bad_param(struct kunit *test)
{
	struct orca_ringdev *t = test->priv;
	u64 db = orca_ringdev_db(t, 0);
	u64 pages[2], bad[2], list, ring;
	u64 *many;
	u32 i;

	orca_ringdev_pages(test, pages, 2);
	list = orca_ringdev_list(test, pages, 2, 1, 0);

	/* PBL_LEVELS 3. */
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, list, 8 | T_LEVELS(3),
						     db, NULL), T_BAD_PARAM);
	/* The list's address: 8-byte aligned and non-zero. */
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, list + 4,
						     8 | T_LEVELS(1), db, NULL),
			T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, 0, 8 | T_LEVELS(1), db,
						     NULL), T_BAD_PARAM);
	/* A contiguous ring is still ORCA_RING_ALIGN (64) aligned. */
	ring = orca_ringdev_alloc(test, 1);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, ring + 8, 8, db, NULL),
			T_BAD_PARAM);

	/* Page addresses: 4 KiB aligned, non-zero. */
	bad[0] = pages[0];
	bad[1] = pages[1] + 0x800;
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t,
						     orca_ringdev_list(test, bad, 2, 1, 0),
						     8 | T_LEVELS(1), db, NULL),
			T_BAD_PARAM);
	bad[1] = 0;
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t,
						     orca_ringdev_list(test, bad, 2, 1, 0),
						     8 | T_LEVELS(1), db, NULL),
			T_BAD_PARAM);
	bad[0] = pages[0] + 8;
	bad[1] = pages[1];
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t,
						     orca_ringdev_list(test, bad, 2, 2, 0),
						     8 | T_LEVELS(2), db, NULL),
			T_BAD_PARAM);
	/* A table page address: 4 KiB aligned, non-zero. */
	list = orca_ringdev_list(test, pages, 2, 2, 0);
	*(__le64 *)orca_ringdev_va(list) =
		cpu_to_le64(le64_to_cpu(*(__le64 *)orca_ringdev_va(list)) + 8);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, list, 8 | T_LEVELS(2),
						     db, NULL), T_BAD_PARAM);
	*(__le64 *)orca_ringdev_va(list) = 0;
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, list, 8 | T_LEVELS(2),
						     db, NULL), T_BAD_PARAM);

	/* Level 1 names at most 512 pages: 2^16 CQEs of 32 bytes, not 64. */
	many = kunit_kcalloc(test, 1024, sizeof(*many), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, many);
	for (i = 0; i < 1024; i++)
		many[i] = pages[i & 1];
	list = orca_ringdev_list(test, many, 512, 1, 0);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, list,
						     16 | T_CQE64 | T_LEVELS(1),
						     db, NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t->sdev->counts.cqs, 0U);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, list, 16 | T_LEVELS(1),
						     db, NULL), T_OK);
	KUNIT_EXPECT_EQ(test, t->sdev->counts.cqs, 1U);

	/* A device without RING_PBL: PBL_LEVELS is reserved there. */
	t->caps = 0;
	list = orca_ringdev_list(test, pages, 2, 1, 0);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, list, 8 | T_LEVELS(1),
						     db, NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, list, 8 | T_LEVELS(2),
						     db, NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, ring, 8, db, NULL),
			T_OK);
	KUNIT_EXPECT_EQ(test, t->sdev->counts.cqs, 2U);
	/* Nothing was read outside the test's memory. */
	KUNIT_EXPECT_EQ(test, t->bad_dma, 0U);
}

static void orca_ringdev_test_cq_dma_error(struct kunit *test)
{
	struct orca_ringdev *t = test->priv;
	u64 db = orca_ringdev_db(t, 0);
	u64 pages[2], top[1], list;

	/* The list cannot be read. */
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, T_NOWHERE,
						     8 | T_LEVELS(1), db, NULL),
			T_DMA_ERROR);
	KUNIT_EXPECT_EQ(test, t->bad_dma, 1U);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, T_NOWHERE + 8,
						     8 | T_LEVELS(2), db, NULL),
			T_DMA_ERROR);
	/* Level 2: the list can, its table page cannot. */
	top[0] = T_NOWHERE;
	list = orca_ringdev_list(test, top, 1, 1, 0);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, list, 8 | T_LEVELS(2),
						     db, NULL), T_DMA_ERROR);
	KUNIT_EXPECT_EQ(test, t->bad_dma, 3U);
	KUNIT_EXPECT_EQ(test, t->sdev->counts.cqs, 0U);

	/* The pages themselves are not read at the command. */
	pages[0] = T_NOWHERE;
	pages[1] = T_NOWHERE + T_PAGE;
	list = orca_ringdev_list(test, pages, 2, 1, 0);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_cq(t, list, 8 | T_LEVELS(1),
						     db, NULL), T_OK);
	KUNIT_EXPECT_EQ(test, t->bad_dma, 3U);
}

static void orca_ringdev_test_cq_resize(struct kunit *test)
{
	struct orca_ringdev *t = test->priv;
	u64 db = orca_ringdev_db(t, 0);
	u64 pages[2], pages2[4], ring, list;
	struct orca_soft_cq *cq;
	u64 moved = 0;
	u32 i;

	/* A contiguous CQ of 4 CQEs: 3 written, the first consumed. */
	ring = orca_ringdev_alloc(test, 0);
	cq = orca_ringdev_cq(test, ring, 2, db);
	for (i = 1; i <= 3; i++)
		orca_ringdev_complete(t, cq, i);
	orca_ringdev_rec(db)->cons = cpu_to_le32(1);

	/* To 256 CQEs on 2 pages; every byte not moved starts at 0xff. */
	orca_ringdev_pages(test, pages, 2);
	memset(orca_ringdev_va(pages[0]), 0xff, T_PAGE);
	memset(orca_ringdev_va(pages[1]), 0xff, T_PAGE);
	list = orca_ringdev_list(test, pages, 2, 1, 0);
	KUNIT_ASSERT_EQ(test, orca_ringdev_resize_cq(t, cq->cqn, list,
						     8 | T_LEVELS(1), &moved),
			T_OK);
	KUNIT_EXPECT_EQ(test, moved, 2ULL);
	KUNIT_EXPECT_EQ(test, cq->log2_depth, 8);
	KUNIT_EXPECT_EQ(test, cq->ring.levels, 1);
	KUNIT_ASSERT_EQ(test, cq->ring.npages, 2U);
	KUNIT_EXPECT_EQ(test, cq->ring.pages[1], pages[1]);
	memset(orca_ringdev_va(list), 0, 16);

	/* Positions 1 and 2 keep their slots, owner bit of the first pass. */
	orca_ringdev_expect_cqe(test, pages[0] + 32, 2, true);
	orca_ringdev_expect_cqe(test, pages[0] + 64, 3, true);
	/*
	 * Every other slot: not valid for the position the consumer meets
	 * there next, 3 .. 256.  Slot 0 is position 256, of the second pass.
	 */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(orca_ringdev_cqe(pages[0] + 96)->status_owner) &
			T_OWNER, 0U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(orca_ringdev_cqe(pages[1])->status_owner) &
			T_OWNER, 0U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(orca_ringdev_cqe(pages[1] + 4064)->status_owner) &
			T_OWNER, 0U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(orca_ringdev_cqe(pages[0])->status_owner) &
			T_OWNER, T_OWNER);

	/* New CQEs go to the pages: position 3, then across the page. */
	for (i = 3; i < 130; i++)
		orca_ringdev_complete(t, cq, i + 1);
	orca_ringdev_expect_cqe(test, pages[0] + 96, 4, true);
	orca_ringdev_expect_cqe(test, pages[0] + 4064, 128, true);
	orca_ringdev_expect_cqe(test, pages[1], 129, true);
	orca_ringdev_expect_cqe(test, pages[1] + 32, 130, true);
	/* The old ring's slot 3 is left alone. */
	KUNIT_EXPECT_EQ(test, le64_to_cpu(orca_ringdev_cqe(ring + 96)->wr_id),
			0ULL);

	/* Paged to paged: 512 CQEs on 4 pages at level 2, 5 unconsumed. */
	orca_ringdev_pages(test, pages2, 4);
	list = orca_ringdev_list(test, pages2, 4, 2, 0);
	orca_ringdev_rec(db)->cons = cpu_to_le32(cq->prod - 5);
	KUNIT_ASSERT_EQ(test, orca_ringdev_resize_cq(t, cq->cqn, list,
						     9 | T_LEVELS(2), &moved),
			T_OK);
	KUNIT_EXPECT_EQ(test, moved, 5ULL);
	KUNIT_ASSERT_EQ(test, cq->ring.npages, 4U);
	KUNIT_EXPECT_EQ(test, cq->ring.pages[3], pages2[3]);
	/* Positions 125 .. 129: slots 125 .. 127 on page 0, 128, 129 on page 1. */
	orca_ringdev_expect_cqe(test, pages2[0] + 125 * 32, 126, true);
	orca_ringdev_expect_cqe(test, pages2[0] + 127 * 32, 128, true);
	orca_ringdev_expect_cqe(test, pages2[1], 129, true);
	orca_ringdev_expect_cqe(test, pages2[1] + 32, 130, true);
	orca_ringdev_complete(t, cq, 131);
	orca_ringdev_expect_cqe(test, pages2[1] + 64, 131, true);

	/* And back to a contiguous ring. */
	ring = orca_ringdev_alloc(test, 0);
	KUNIT_ASSERT_EQ(test, orca_ringdev_resize_cq(t, cq->cqn, ring, 4,
						     &moved), T_OK);
	KUNIT_EXPECT_EQ(test, cq->ring.levels, 0);
	KUNIT_EXPECT_NULL(test, cq->ring.pages);
	KUNIT_EXPECT_EQ(test, cq->ring.addr, ring);
	orca_ringdev_complete(t, cq, 132);
	/* Position 131 of 16: slot 3. */
	orca_ringdev_expect_cqe(test, ring + 3 * 32, 132, true);
	KUNIT_EXPECT_EQ(test, t->bad_dma, 0U);
}

static void orca_ringdev_test_cq_resize_fail(struct kunit *test)
{
	struct orca_ringdev *t = test->priv;
	u64 db = orca_ringdev_db(t, 0);
	u64 pages[2], bad[2], list;
	struct orca_soft_cq *cq;
	u64 *old;
	u32 i;

	orca_ringdev_pages(test, pages, 2);
	cq = orca_ringdev_cq(test, orca_ringdev_list(test, pages, 2, 1, 0),
			     8 | T_LEVELS(1), db);
	old = cq->ring.pages;
	for (i = 0; i < 3; i++)
		orca_ringdev_complete(t, cq, i);

	/* Bad page addresses, PBL_LEVELS 3, a device without RING_PBL. */
	bad[0] = pages[0];
	bad[1] = 0;
	list = orca_ringdev_list(test, bad, 2, 1, 0);
	KUNIT_EXPECT_EQ(test, orca_ringdev_resize_cq(t, cq->cqn, list,
						     8 | T_LEVELS(1), NULL),
			T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_ringdev_resize_cq(t, cq->cqn, list,
						     8 | T_LEVELS(3), NULL),
			T_BAD_PARAM);
	/* CQE64 is CREATE_CQ's only. */
	KUNIT_EXPECT_EQ(test, orca_ringdev_resize_cq(t, cq->cqn, list,
						     8 | T_CQE64 | T_LEVELS(1),
						     NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_ringdev_resize_cq(t, cq->cqn + 1, list,
						     8 | T_LEVELS(1), NULL),
			T_BAD_HANDLE);
	t->caps = 0;
	list = orca_ringdev_list(test, pages, 2, 1, 0);
	KUNIT_EXPECT_EQ(test, orca_ringdev_resize_cq(t, cq->cqn, list,
						     8 | T_LEVELS(1), NULL),
			T_BAD_PARAM);
	t->caps = T_CAP_RING_PBL;
	KUNIT_EXPECT_EQ(test, t->bad_dma, 0U);

	/* An unreadable list. */
	KUNIT_EXPECT_EQ(test, orca_ringdev_resize_cq(t, cq->cqn, T_NOWHERE,
						     8 | T_LEVELS(1), NULL),
			T_DMA_ERROR);
	/* A readable list of pages the device cannot write. */
	bad[0] = orca_ringdev_alloc(test, 0);
	bad[1] = T_NOWHERE;
	list = orca_ringdev_list(test, bad, 2, 1, 0);
	KUNIT_EXPECT_EQ(test, orca_ringdev_resize_cq(t, cq->cqn, list,
						     8 | T_LEVELS(1), NULL),
			T_DMA_ERROR);
	KUNIT_EXPECT_GT(test, t->bad_dma, 1U);
	t->bad_dma = 0;

	/* The CQ kept its ring, its pages and its depth. */
	KUNIT_EXPECT_PTR_EQ(test, cq->ring.pages, old);
	KUNIT_EXPECT_EQ(test, cq->ring.npages, 2U);
	KUNIT_EXPECT_EQ(test, cq->log2_depth, 8);
	KUNIT_EXPECT_EQ(test, cq->prod, 3U);
	orca_ringdev_complete(t, cq, 3);
	orca_ringdev_expect_cqe(test, pages[0] + 96, 3, true);
	KUNIT_EXPECT_EQ(test, t->bad_dma, 0U);
}

/* ---- SRQs --------------------------------------------------------------------- */

static u8 orca_ringdev_create_srq(struct orca_ringdev *t, u32 cfg, u64 ring,
				  u64 db, u32 *srqn)
{
	struct orca_hw_srq *in = (struct orca_hw_srq *)t->in;
	struct orca_soft_cmd_out out = {};
	union orca_aq_cmd cmd = {};
	u8 sts;

	memset(t->in, 0, sizeof(t->in));
	in->pdn = cpu_to_le32(1);
	in->cfg = cpu_to_le32(cfg);
	in->ring_addr = cpu_to_le64(ring);
	in->db_addr = cpu_to_le64(db);
	cmd.mbox_in.in_addr = cpu_to_le64(0x1000);
	cmd.mbox_in.in_len = cpu_to_le32(sizeof(*in));
	sts = orca_soft_create_srq(t->sdev, &cmd, &out);
	if (srqn)
		*srqn = out.result;
	return sts;
}

static void orca_ringdev_test_srq(struct kunit *test)
{
	struct orca_ringdev *t = test->priv;
	/* 128 WQEs of 64 bytes (3 SGEs): 8 KiB, 2 pages. */
	u32 cfg = T_WQ(7, 6, 3) | T_LEVELS(1);
	u64 db = orca_ringdev_db(t, 1);
	struct orca_hw_srq *attr = (struct orca_hw_srq *)t->out;
	struct orca_recv_wqe *wqe, got;
	struct orca_soft_srq *srq;
	union orca_aq_cmd cmd = {};
	u64 pages[2], bad[2], list;
	u32 srqn = 0;

	orca_ringdev_pages(test, pages, 2);
	list = orca_ringdev_list(test, pages, 2, 1, 16);
	KUNIT_ASSERT_EQ(test, orca_ringdev_create_srq(t, cfg, list, db, &srqn),
			T_OK);
	srq = orca_soft_srq_find(t->sdev, srqn);
	KUNIT_ASSERT_NOT_NULL(test, srq);
	KUNIT_ASSERT_EQ(test, srq->wq.ring.npages, 2U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(orca_ringdev_rec(db)->dev_flags),
			T_POLLING);
	memset(orca_ringdev_va(list), 0, 16);

	/* Slot 65 is byte 4160: the second page's second WQE. */
	KUNIT_EXPECT_EQ(test, orca_soft_wq_slot(&srq->wq, 65), pages[1] + 64);
	KUNIT_EXPECT_EQ(test, orca_soft_wq_slot(&srq->wq, 128 + 65),
			pages[1] + 64);
	KUNIT_EXPECT_EQ(test, orca_soft_wq_slot(&srq->wq, 63), pages[0] + 4032);
	KUNIT_EXPECT_EQ(test, orca_soft_wq_slot(&srq->wq, 64), pages[1]);
	wqe = orca_ringdev_va(pages[1] + 64);
	wqe->wr_id = cpu_to_le64(0xabcdef);
	wqe->num_sge = cpu_to_le32(2);
	KUNIT_ASSERT_EQ(test, orca_soft_dma_read(t->sdev,
						 orca_soft_wq_slot(&srq->wq, 65),
						 &got, sizeof(got)), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(got.wr_id), 0xabcdefULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(got.num_sge), 2U);

	/* QUERY_SRQ: the page list's address and the cfg as given. */
	cmd.handle.handle = cpu_to_le32(srqn);
	KUNIT_ASSERT_EQ(test, orca_soft_query_srq(t->sdev, &cmd), T_OK);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(attr->ring_addr), list);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(attr->cfg), cfg);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(attr->max_wr), 128U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(attr->db_addr), db);

	/* What CREATE_CQ refuses, CREATE_SRQ refuses. */
	list = orca_ringdev_list(test, pages, 2, 1, 0);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_srq(t, T_WQ(7, 6, 3) |
						      T_LEVELS(3), list, db,
						      NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_srq(t, cfg, list + 4, db,
						      NULL), T_BAD_PARAM);
	bad[0] = pages[0];
	bad[1] = pages[1] | 0x40;
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_srq(t, cfg,
						      orca_ringdev_list(test, bad, 2, 1, 0),
						      db, NULL), T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t->bad_dma, 0U);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_srq(t, cfg, T_NOWHERE, db,
						      NULL), T_DMA_ERROR);
	KUNIT_EXPECT_EQ(test, t->bad_dma, 1U);
	t->caps = 0;
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_srq(t, cfg, list, db, NULL),
			T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, t->sdev->counts.srqs, 1U);

	cmd.handle.handle = cpu_to_le32(srqn);
	KUNIT_EXPECT_EQ(test, orca_soft_destroy_srq(t->sdev, &cmd), T_OK);
	KUNIT_EXPECT_EQ(test, t->sdev->counts.srqs, 0U);
}

/* ---- QPs ---------------------------------------------------------------------- */

static u8 orca_ringdev_create_qp(struct orca_ringdev *t, u32 cqn, u32 sq_cfg,
				 u64 sq, u32 rq_cfg, u64 rq, u32 *qpn)
{
	struct orca_hw_create_qp *in = (struct orca_hw_create_qp *)t->in;
	struct orca_soft_cmd_out out = {};
	union orca_aq_cmd cmd = {};
	u8 sts;

	memset(t->in, 0, sizeof(t->in));
	in->info = cpu_to_le32(T_QPT_RC);
	in->pdn = cpu_to_le32(1);
	in->send_cqn = cpu_to_le32(cqn);
	in->recv_cqn = cpu_to_le32(cqn);
	in->sq_cfg = cpu_to_le32(sq_cfg);
	in->rq_cfg = cpu_to_le32(rq_cfg);
	in->sq_addr = cpu_to_le64(sq);
	in->rq_addr = cpu_to_le64(rq);
	in->sq_db_addr = cpu_to_le64(orca_ringdev_db(t, 2));
	in->rq_db_addr = cpu_to_le64(orca_ringdev_db(t, 3));
	cmd.mbox_in.in_addr = cpu_to_le64(0x1000);
	cmd.mbox_in.in_len = cpu_to_le32(sizeof(*in));
	sts = orca_soft_create_qp(t->sdev, &cmd, &out);
	if (qpn)
		*qpn = out.result;
	return sts;
}

static void orca_ringdev_test_qp(struct kunit *test)
{
	struct orca_ringdev *t = test->priv;
	/* SQ: 16 WQEs of 1024 bytes, 16 KiB on 4 pages; RQ: 8 of 32 bytes. */
	u32 sq_cfg = T_WQ(4, 10, 4) | T_LEVELS(2);
	u32 rq_cfg = T_WQ(3, 5, 1) | T_LEVELS(1);
	u64 sq[4], rq[1], bad[4], sq_list, rq_list, ring;
	struct orca_soft_cq *cq;
	union orca_aq_cmd cmd = {};
	struct orca_soft_qp *qp;
	u32 qpn = 0;

	cq = orca_ringdev_cq(test, orca_ringdev_alloc(test, 0), 4,
			     orca_ringdev_db(t, 0));
	orca_ringdev_pages(test, sq, 4);
	orca_ringdev_pages(test, rq, 1);
	sq_list = orca_ringdev_list(test, sq, 4, 2, 0);
	rq_list = orca_ringdev_list(test, rq, 1, 1, 0);
	KUNIT_ASSERT_EQ(test, orca_ringdev_create_qp(t, cq->cqn, sq_cfg,
						     sq_list, rq_cfg, rq_list,
						     &qpn), T_OK);
	qp = orca_soft_qp_find(t->sdev, qpn);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	KUNIT_ASSERT_EQ(test, qp->sq.ring.npages, 4U);
	KUNIT_ASSERT_EQ(test, qp->rq.ring.npages, 1U);
	memset(orca_ringdev_va(sq_list), 0, 8);
	memset(orca_ringdev_va(rq_list), 0, 8);

	/* Four WQEs a page; the wrap; the RQ's 256 bytes on one page. */
	KUNIT_EXPECT_EQ(test, orca_soft_wq_slot(&qp->sq, 0), sq[0]);
	KUNIT_EXPECT_EQ(test, orca_soft_wq_slot(&qp->sq, 5), sq[1] + 1024);
	KUNIT_EXPECT_EQ(test, orca_soft_wq_slot(&qp->sq, 11), sq[2] + 3072);
	KUNIT_EXPECT_EQ(test, orca_soft_wq_slot(&qp->sq, 16 + 15),
			sq[3] + 3072);
	KUNIT_EXPECT_EQ(test, orca_soft_wq_slot(&qp->rq, 7), rq[0] + 224);
	KUNIT_EXPECT_EQ(test, orca_soft_wq_slot(&qp->rq, 8), rq[0]);

	/* The RQ's list cannot be read: no QP, the SQ's pages go too. */
	sq_list = orca_ringdev_list(test, sq, 4, 2, 0);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_qp(t, cq->cqn, sq_cfg,
						     sq_list, rq_cfg, T_NOWHERE,
						     NULL), T_DMA_ERROR);
	t->bad_dma = 0;
	/* A bad page address in the SQ's list, PBL_LEVELS 3 on the RQ. */
	memcpy(bad, sq, sizeof(bad));
	bad[3] += 0x100;
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_qp(t, cq->cqn, sq_cfg,
						     orca_ringdev_list(test, bad, 4, 2, 0),
						     rq_cfg, rq_list, NULL),
			T_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_qp(t, cq->cqn, sq_cfg,
						     sq_list, T_WQ(3, 5, 1) |
						     T_LEVELS(3), rq_list,
						     NULL), T_BAD_PARAM);
	/* Without RING_PBL, contiguous rings only. */
	t->caps = 0;
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_qp(t, cq->cqn, sq_cfg,
						     sq_list, rq_cfg, rq_list,
						     NULL), T_BAD_PARAM);
	ring = orca_ringdev_alloc(test, 3);
	KUNIT_EXPECT_EQ(test, orca_ringdev_create_qp(t, cq->cqn, T_WQ(4, 10, 4),
						     ring, T_WQ(3, 5, 1),
						     ring + 16384, &qpn),
			T_OK);
	qp = orca_soft_qp_find(t->sdev, qpn);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	KUNIT_EXPECT_NULL(test, qp->sq.ring.pages);
	KUNIT_EXPECT_EQ(test, orca_soft_wq_slot(&qp->sq, 5), ring + 5120);
	KUNIT_EXPECT_EQ(test, orca_soft_wq_slot(&qp->rq, 7), ring + 16384 + 224);
	KUNIT_EXPECT_EQ(test, t->sdev->counts.qps, 2U);
	KUNIT_EXPECT_EQ(test, cq->users, 4U);
	KUNIT_EXPECT_EQ(test, t->bad_dma, 0U);

	cmd.handle.handle = cpu_to_le32(qpn);
	KUNIT_EXPECT_EQ(test, orca_soft_destroy_qp(t->sdev, &cmd), T_OK);
	KUNIT_EXPECT_EQ(test, t->sdev->counts.qps, 1U);
}

static struct kunit_case orca_ringdev_test_cases[] = {
	KUNIT_CASE(orca_ringdev_test_cq_level1),
	KUNIT_CASE(orca_ringdev_test_cq_small),
	KUNIT_CASE(orca_ringdev_test_cq_level2),
	KUNIT_CASE(orca_ringdev_test_cq_bad_param),
	KUNIT_CASE(orca_ringdev_test_cq_dma_error),
	KUNIT_CASE(orca_ringdev_test_cq_resize),
	KUNIT_CASE(orca_ringdev_test_cq_resize_fail),
	KUNIT_CASE(orca_ringdev_test_srq),
	KUNIT_CASE(orca_ringdev_test_qp),
	{}
};

static struct kunit_suite orca_ringdev_test_suite = {
	.name = "orca_soft_ring_dev",
	.init = orca_ringdev_init,
	.exit = orca_ringdev_exit,
	.test_cases = orca_ringdev_test_cases,
};

kunit_test_suite(orca_ringdev_test_suite);

MODULE_DESCRIPTION("KUnit tests for orca_soft's paged rings");
MODULE_LICENSE("GPL");
