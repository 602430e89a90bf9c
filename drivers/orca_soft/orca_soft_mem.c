// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: memory keys, scatter/gather resolution and copies.
 *
 * A key names an entry of the device MR table (ORCA_MR_KEY_INDEX) and must
 * match the entry's whole key (the variant too) and the entry must be
 * valid.  An address range resolves through the MR's page list to DMA
 * addresses, and a DMA address to a page the way the DMA API mapped it for
 * the device's parent (dma_to_phys).  Data moves page by page with
 * kmap_local_page(): one copy from source memory to destination memory.
 *
 * An on-demand-paging region translates through the states of its pages
 * (orca_soft_odp.c), so every translation knows whether the access
 * writes.  Callers check an access's on-demand pages before they move
 * data (orca_soft_sgl_odp_check(), orca_soft_mr_odp_check()), so that a
 * page fault stops it before anything is written; the copies still
 * return -EAGAIN at a page fault and -EFAULT at a failed page.
 */

#include <linux/bitfield.h>
#include <linux/dma-direct.h>
#include <linux/highmem.h>

#include "orca_soft_engine.h"
#include "orca_soft_odp.h"

struct orca_soft_mr *orca_soft_mr_get(struct orca_soft_dev *sdev, u32 key)
{
	struct orca_soft_mr *mr;

	mr = xa_load(&sdev->mrs, FIELD_GET(ORCA_MR_KEY_INDEX, key));
	/* A window's key is no local key. */
	if (!mr || mr->key != key || !mr->valid || mr->mw_type)
		return NULL;
	return mr;
}

/*
 * LOCAL_INV (@remote false) and SEND_INV (@remote true) of @key by @qp:
 * the key, variant included, of a FAST_REG region of @qp's PD or of a
 * type 2 window (orca_soft_mw_inv_ok()).
 */
bool orca_soft_key_inv_ok(struct orca_soft_dev *sdev,
			  const struct orca_soft_qp *qp, u32 key, bool remote)
{
	struct orca_soft_mr *mr;

	mr = xa_load(&sdev->mrs, FIELD_GET(ORCA_MR_KEY_INDEX, key));
	if (!mr || mr->key != key)
		return false;
	if (mr->mw_type)
		return orca_soft_mw_inv_ok(mr, qp, remote);
	return (mr->flags & ORCA_MR_FLAG_FAST_REG) && mr->pd == qp->pd;
}

/* Invalidate @key, which orca_soft_key_inv_ok() accepted. */
void orca_soft_key_invalidate(struct orca_soft_dev *sdev, u32 key)
{
	struct orca_soft_mr *mr;

	mr = xa_load(&sdev->mrs, FIELD_GET(ORCA_MR_KEY_INDEX, key));
	if (mr->mw_type)
		orca_soft_mw_unbind(mr);
	else
		mr->valid = false;
}

/*
 * [addr, addr + len) lies within the region (or window), and addr + len
 * does not wrap.  Nothing here overflows, whatever the region: an
 * implicit on-demand-paging region is [0, U64_MAX).
 */
bool orca_soft_mr_range_ok(const struct orca_soft_mr *mr, u64 addr, u64 len)
{
	if (addr < mr->iova || addr + len < addr)
		return false;
	return addr + len - mr->iova <= mr->length;
}

/*
 * Resolve @n SGEs (already copied out of the ring) for a QP of PD @pd:
 * each lkey must name a valid MR of @pd with @access (ORCA_ACCESS_*), and
 * the SGE must lie within it.  Zero-length SGEs are skipped.
 * Return: 0, -EACCES (bad key, PD, access or bounds), -EMSGSIZE (longer
 * than the largest message).
 */
int orca_soft_sgl_resolve(struct orca_soft_dev *sdev,
			  struct orca_soft_sgl *sgl,
			  const struct orca_sge *sge, u32 n,
			  const struct orca_soft_pd *pd, u32 access)
{
	u32 i;

	sgl->nseg = 0;
	sgl->len = 0;
	sgl->inl = NULL;
	for (i = 0; i < n; i++) {
		u32 len = le32_to_cpu(sge[i].length);
		u64 addr = le64_to_cpu(sge[i].addr);
		struct orca_soft_seg *seg;
		struct orca_soft_mr *mr;

		if (!len)
			continue;
		mr = orca_soft_mr_get(sdev, le32_to_cpu(sge[i].lkey));
		if (!mr || mr->pd != pd || (mr->access & access) != access ||
		    !orca_soft_mr_range_ok(mr, addr, len))
			return -EACCES;
		seg = &sgl->seg[sgl->nseg++];
		seg->mr = mr;
		seg->addr = addr;
		seg->len = len;
		sgl->len += len;
	}
	if (sgl->len > ORCA_SOFT_MAX_MSG)
		return -EMSGSIZE;
	return 0;
}

void orca_soft_sgl_kbuf(struct orca_soft_sgl *sgl, const void *buf, u32 len)
{
	sgl->nseg = 0;
	sgl->len = len;
	sgl->inl = buf;
}

/* Position within an SGL: segment @i, byte @off of it. */
struct orca_soft_pos {
	u32 i;
	u64 off;
};

static void orca_soft_pos_seek(const struct orca_soft_sgl *sgl,
			       struct orca_soft_pos *pos, u64 off)
{
	pos->i = 0;
	while (pos->i < sgl->nseg && off >= sgl->seg[pos->i].len) {
		off -= sgl->seg[pos->i].len;
		pos->i++;
	}
	pos->off = off;
}

static void orca_soft_pos_advance(const struct orca_soft_sgl *sgl,
				  struct orca_soft_pos *pos, u64 n)
{
	pos->off += n;
	if (pos->i < sgl->nseg && pos->off == sgl->seg[pos->i].len) {
		pos->i++;
		pos->off = 0;
	}
}

/*
 * The page behind byte @off of @seg, for an access that writes (@write)
 * or reads, and how many bytes from there are contiguous in it (within
 * the segment, the MR page and the CPU page).  0, -EFAULT (not memory, or
 * a failed on-demand page) or -EAGAIN (a page fault, posted).
 */
static int orca_soft_seg_page(struct orca_soft_dev *sdev,
			      const struct orca_soft_seg *seg, u64 off,
			      bool write, struct page **page, u32 *pgoff,
			      u64 *n)
{
	struct orca_soft_mr *mr = seg->mr;
	u64 va = seg->addr + off;
	u64 avail = seg->len - off;
	phys_addr_t phys;
	unsigned long pfn;
	u64 dma;
	int ret;

	if (mr->flags & ORCA_MR_FLAG_PHYSICAL) {
		dma = va;
	} else if (mr->flags & ORCA_MR_FLAG_DM) {
		/* The aperture is contiguous: no page list. */
		dma = mr->dm_bus + (va - mr->iova);
	} else if (mr->flags & ORCA_MR_FLAG_ODP) {
		/* A fault asks for the pages up to the segment's end. */
		ret = orca_soft_odp_translate(sdev, mr, va, seg->addr + seg->len,
					      write, &dma);
		if (ret)
			return ret;
		avail = min(avail, ORCA_SOFT_ODP_PAGE -
				   (va & (ORCA_SOFT_ODP_PAGE - 1)));
	} else {
		u64 pgsz = BIT_ULL(mr->page_shift);
		u64 moff = va - mr->iova + (mr->iova & (pgsz - 1));
		u64 idx = moff >> mr->page_shift;

		if (idx >= mr->num_pages)
			return -EFAULT;
		dma = mr->pages[idx] + (moff & (pgsz - 1));
		avail = min(avail, pgsz - (moff & (pgsz - 1)));
	}
	phys = dma_to_phys(sdev_dev(sdev), dma);
	pfn = PHYS_PFN(phys);
	if (!pfn_valid(pfn))
		return -EFAULT;
	*page = pfn_to_page(pfn);
	*pgoff = offset_in_page(phys);
	*n = min_t(u64, avail, PAGE_SIZE - *pgoff);
	return 0;
}

/*
 * Copy @len bytes from byte @soff of @src to byte @doff of @dst.  Both
 * ranges must lie within their SGLs (callers check the lengths).
 * Return: 0, -EFAULT (a page address that is not memory, or a failed
 * on-demand page) or -EAGAIN (a page fault, posted; the bytes before it
 * may have been copied).
 */
int orca_soft_sgl_copy(struct orca_soft_dev *sdev,
		       const struct orca_soft_sgl *dst, u64 doff,
		       const struct orca_soft_sgl *src, u64 soff, u64 len)
{
	struct orca_soft_pos sp, dp;

	if (WARN_ON_ONCE(soff + len > src->len || doff + len > dst->len))
		return -EFAULT;
	if (src->inl && dst->inl) {
		memcpy((u8 *)dst->inl + doff, src->inl + soff, len);
		return 0;
	}
	orca_soft_pos_seek(src, &sp, soff);
	orca_soft_pos_seek(dst, &dp, doff);
	while (len) {
		struct page *spage = NULL, *dpage;
		u32 spgoff = 0, dpgoff;
		u64 sn = len, dn, n;
		void *s, *d;
		int ret;

		if (!src->inl) {
			ret = orca_soft_seg_page(sdev, &src->seg[sp.i], sp.off,
						 false, &spage, &spgoff, &sn);
			if (ret)
				return ret;
		}
		ret = orca_soft_seg_page(sdev, &dst->seg[dp.i], dp.off, true,
					 &dpage, &dpgoff, &dn);
		if (ret)
			return ret;
		n = min3(len, sn, dn);

		d = kmap_local_page(dpage);
		if (src->inl) {
			memcpy(d + dpgoff, src->inl + soff, n);
			soff += n;
		} else {
			s = kmap_local_page(spage);
			memcpy(d + dpgoff, s + spgoff, n);
			kunmap_local(s);
			orca_soft_pos_advance(src, &sp, n);
		}
		kunmap_local(d);
		orca_soft_pos_advance(dst, &dp, n);
		len -= n;
	}
	return 0;
}

/*
 * Copy @len bytes at offset @soff of @src into the kernel buffer @buf (a
 * packet being built).  -EFAULT if a page of @src is not memory or a
 * failed on-demand page, -EAGAIN at a page fault (posted).
 */
int orca_soft_sgl_read(struct orca_soft_dev *sdev,
		       const struct orca_soft_sgl *src, u64 soff, void *buf,
		       u64 len)
{
	struct orca_soft_pos sp;
	u8 *d = buf;

	if (WARN_ON_ONCE(soff + len > src->len))
		return -EFAULT;
	if (src->inl) {
		memcpy(d, src->inl + soff, len);
		return 0;
	}
	orca_soft_pos_seek(src, &sp, soff);
	while (len) {
		struct page *page;
		u32 pgoff;
		u64 n;
		void *s;
		int ret;

		ret = orca_soft_seg_page(sdev, &src->seg[sp.i], sp.off, false,
					 &page, &pgoff, &n);
		if (ret)
			return ret;
		n = min(len, n);
		s = kmap_local_page(page);
		memcpy(d, s + pgoff, n);
		kunmap_local(s);
		orca_soft_pos_advance(src, &sp, n);
		d += n;
		len -= n;
	}
	return 0;
}

/*
 * An 8-byte atomic at @addr of @mr (8-byte aligned, checked by the
 * caller), executed as one locked compare-and-exchange on the word: it
 * is atomic against the device's other atomics, whichever context runs
 * them, and the host CPU sees a single aligned 64-bit store.  The word
 * must be writable even if a compare fails; callers check its on-demand
 * page first, so that an atomic never faults once it has started.
 */
int orca_soft_mem_atomic(struct orca_soft_dev *sdev, struct orca_soft_mr *mr,
			 u64 addr, bool cmp_swp, u64 compare_add, u64 swap,
			 u64 *orig)
{
	struct orca_soft_seg seg = { .mr = mr, .addr = addr, .len = 8 };
	struct page *page;
	u64 n, old, cur, want;
	u32 pgoff;
	void *va;
	u64 *p;
	int ret;

	ret = orca_soft_seg_page(sdev, &seg, 0, true, &page, &pgoff, &n);
	if (ret)
		return ret;
	/* A device-memory region may put the word off its alignment. */
	if (n < 8 || !IS_ALIGNED(pgoff, sizeof(u64)))
		return -EFAULT;
	va = kmap_local_page(page);
	p = va + pgoff;
	/* The word is a little-endian integer, whatever the host. */
	cur = READ_ONCE(*p);
	do {
		old = le64_to_cpu((__force __le64)cur);
		if (cmp_swp && old != compare_add)
			break;
		want = (__force u64)cpu_to_le64(cmp_swp ? swap :
						 old + compare_add);
	} while (!try_cmpxchg64(p, &cur, want));
	kunmap_local(va);
	*orig = old;
	return 0;
}

/*
 * Before an access to [@addr, @addr + @len) of @mr (checked against the
 * region's bounds) that writes (@write) or reads, and runs on to @end:
 * the pages it touches, if @mr is an on-demand-paging region
 * (orca_soft_odp_check()).  0, -EFAULT (a failed page: an access error)
 * or -EAGAIN (a page fault, posted).
 */
int orca_soft_mr_odp_check(struct orca_soft_dev *sdev, struct orca_soft_mr *mr,
			   u64 addr, u64 len, u64 end, bool write)
{
	if (!(mr->flags & ORCA_MR_FLAG_ODP))
		return 0;
	return orca_soft_odp_check(sdev, mr, addr, len, end, write);
}

/*
 * Before an access to bytes [@off, @off + @len) of @sgl that writes
 * (@write) or reads: the pages of on-demand-paging regions it touches.
 * A fault asks for the pages up to the end of the SGE it is in.  0,
 * -EFAULT or -EAGAIN, as orca_soft_mr_odp_check().
 */
int orca_soft_sgl_odp_check(struct orca_soft_dev *sdev,
			    const struct orca_soft_sgl *sgl, u64 off, u64 len,
			    bool write)
{
	struct orca_soft_pos pos;
	int ret;

	if (sgl->inl)
		return 0;
	orca_soft_pos_seek(sgl, &pos, off);
	for (; len && pos.i < sgl->nseg; pos.i++, pos.off = 0) {
		const struct orca_soft_seg *seg = &sgl->seg[pos.i];
		u64 n = min(len, seg->len - pos.off);

		ret = orca_soft_mr_odp_check(sdev, seg->mr, seg->addr + pos.off,
					     n, seg->addr + seg->len, write);
		if (ret)
			return ret;
		len -= n;
	}
	return 0;
}
