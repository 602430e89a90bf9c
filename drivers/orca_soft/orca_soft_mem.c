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
#include <linux/wait_bit.h>

#include "orca_soft_engine.h"
#include "orca_soft_odp.h"

/*
 * The shared lane and FAST_REG regions: another lane may invalidate such a
 * region, or register it again, while this one copies through it.  So a
 * lane (@qp->lane_pins set) reads the region's key and validity under its
 * pin_lock and pins it, once per WQE or packet it executes, until the
 * end of that unit (orca_soft_lane_unpin()).  A LOCAL_INV or REG_MR in a
 * lane goes ahead only while no lane holds a pin, else it is left to the
 * exclusive holders; a SEND with invalidate, whose data is placed when
 * the key goes, waits for the pins instead (orca_soft_key_invalidate()).
 * Any other region, and every region outside a lane, changes only under
 * eng_rwsem held for writing.
 */
static bool orca_soft_pins_have(const struct orca_soft_pins *pins,
				const struct orca_soft_mr *mr)
{
	u32 i;

	for (i = 0; i < pins->n; i++)
		if (pins->mr[i] == mr)
			return true;
	return false;
}

/* Pin @mr, pin_lock held, unless the lane has; false if it cannot. */
static bool orca_soft_lane_pin(struct orca_soft_pins *pins,
			       struct orca_soft_mr *mr)
{
	if (orca_soft_pins_have(pins, mr))
		return true;
	/* ORCA_SOFT_LANE_PINS covers the most one unit resolves. */
	if (WARN_ON_ONCE(pins->n == ORCA_SOFT_LANE_PINS))
		return false;
	pins->mr[pins->n++] = mr;
	WRITE_ONCE(mr->pins, mr->pins + 1);
	return true;
}

/*
 * Whether region @mr (no window) is valid under @key (any key when
 * @any: the region behind a window), pinned for the lane holding @qp if
 * there is one.  The region's other fields are read after this: a pin
 * keeps them.
 */
static bool orca_soft_mr_take(struct orca_soft_qp *qp,
			      struct orca_soft_mr *mr, u32 key, bool any)
{
	struct orca_soft_pins *pins = qp->lane_pins;
	bool ok;

	if (!pins || !(mr->flags & ORCA_MR_FLAG_FAST_REG))
		return (any || mr->key == key) && mr->valid;
	spin_lock(&mr->pin_lock);
	ok = (any || mr->key == key) && mr->valid &&
	     orca_soft_lane_pin(pins, mr);
	spin_unlock(&mr->pin_lock);
	return ok;
}

bool orca_soft_key_take(struct orca_soft_qp *qp, struct orca_soft_mr *mr,
			u32 key)
{
	return orca_soft_mr_take(qp, mr, key, false);
}

bool orca_soft_region_take(struct orca_soft_qp *qp, struct orca_soft_mr *mr)
{
	return orca_soft_mr_take(qp, mr, 0, true);
}

/* End the unit of the lane holding @qp: drop the pins it took. */
void orca_soft_lane_unpin(struct orca_soft_qp *qp)
{
	struct orca_soft_pins *pins = qp->lane_pins;
	u32 i;

	if (!pins)
		return;
	lockdep_assert_held(&qp->lock);
	for (i = 0; i < pins->n; i++) {
		struct orca_soft_mr *mr = pins->mr[i];
		bool wake;

		spin_lock(&mr->pin_lock);
		WRITE_ONCE(mr->pins, mr->pins - 1);
		wake = !mr->pins && !mr->valid;
		spin_unlock(&mr->pin_lock);
		if (wake) {
			/* Orders the count before the look at the waiters. */
			smp_mb();
			wake_up_var(&mr->pins);
		}
	}
	pins->n = 0;
}

/*
 * The valid region (no window) of @qp's PD that @key names, or NULL.  The
 * PD is checked first, so that no other PD's QP pins the region.
 */
struct orca_soft_mr *orca_soft_mr_get(struct orca_soft_dev *sdev,
				      struct orca_soft_qp *qp, u32 key)
{
	struct orca_soft_mr *mr;

	mr = xa_load(&sdev->mrs, FIELD_GET(ORCA_MR_KEY_INDEX, key));
	/* A window's key is no local key. */
	if (!mr || mr->mw_type || mr->pd != qp->pd ||
	    !orca_soft_key_take(qp, mr, key))
		return NULL;
	return mr;
}

/*
 * LOCAL_INV (@remote false) and SEND_INV (@remote true) of @key by @qp:
 * the key, variant included, of a FAST_REG region of @qp's PD or of a
 * type 2 window (orca_soft_mw_inv_ok()).  In a lane the region's key is
 * judged again when it is invalidated.
 */
bool orca_soft_key_inv_ok(struct orca_soft_dev *sdev,
			  const struct orca_soft_qp *qp, u32 key, bool remote)
{
	struct orca_soft_mr *mr;
	bool ok;

	mr = xa_load(&sdev->mrs, FIELD_GET(ORCA_MR_KEY_INDEX, key));
	if (!mr)
		return false;
	if (mr->mw_type)
		return mr->key == key && orca_soft_mw_inv_ok(mr, qp, remote);
	if (!(mr->flags & ORCA_MR_FLAG_FAST_REG) || mr->pd != qp->pd)
		return false;
	spin_lock(&mr->pin_lock);
	ok = mr->key == key;
	spin_unlock(&mr->pin_lock);
	return ok;
}

/*
 * Whether the shared lane may invalidate @key (LOCAL_INV, or a SEND_INV
 * received locally): not a window's, whose binding changes only under
 * eng_rwsem written.  A key that names nothing fails in the lane as
 * anywhere.
 */
bool orca_soft_key_inv_shared(struct orca_soft_dev *sdev, u32 key)
{
	struct orca_soft_mr *mr;

	mr = xa_load(&sdev->mrs, FIELD_GET(ORCA_MR_KEY_INDEX, key));
	return !mr || !mr->mw_type;
}

/* How long a drain spins before it sleeps; see orca_soft_mr_drain(). */
#define ORCA_SOFT_DRAIN_SPIN_NS	20000

static bool orca_soft_mr_drained(struct orca_soft_mr *mr, u32 gen)
{
	return !READ_ONCE(mr->pins) || READ_ONCE(mr->gen) != gen;
}

/*
 * @mr went invalid in generation @gen, in the lane holding @qp: wait
 * until no lane copies through that translation, as the invalidation's
 * completion promises.  No lane pins the region again; its own pins are
 * dropped first (its unit's data has moved).  A lane that holds a pin is
 * within one WQE or packet and waits for nobody's pins, so the wait is
 * short; it spins a little, then sleeps until the last pin goes
 * (orca_soft_lane_unpin() wakes it).  A REG_MR that claimed the region
 * meanwhile (a new generation) found no pin left.
 */
static void orca_soft_mr_drain(struct orca_soft_qp *qp,
			       struct orca_soft_mr *mr, u32 gen)
{
	u64 until = ktime_get_ns() + ORCA_SOFT_DRAIN_SPIN_NS;

	orca_soft_lane_unpin(qp);
	while (!orca_soft_mr_drained(mr, gen)) {
		if (ktime_get_ns() >= until || need_resched()) {
			wait_var_event(&mr->pins, orca_soft_mr_drained(mr, gen));
			break;
		}
		cpu_relax();
	}
	/* The last copies through the old translation before what follows. */
	spin_lock(&mr->pin_lock);
	spin_unlock(&mr->pin_lock);
}

/*
 * Invalidate @key, which orca_soft_key_inv_ok() accepted for @qp.  In a
 * lane, a LOCAL_INV (@placed false) goes ahead only if no lane holds a
 * pin on the region, else it returns -EBUSY and is left to the exclusive
 * holders; a SEND with invalidate (@placed: its data is in the receive
 * buffer already) makes the region invalid and waits for the pins
 * (orca_soft_mr_drain()).  A key that another lane has meanwhile
 * invalidated and registered again is left alone.  Windows are
 * invalidated by the exclusive holders only (orca_soft_key_inv_shared()).
 */
int orca_soft_key_invalidate(struct orca_soft_dev *sdev,
			     struct orca_soft_qp *qp, u32 key, bool placed)
{
	bool lane = qp->lane_pins, drain = false;
	struct orca_soft_mr *mr;
	u32 gen = 0;
	int ret = 0;

	mr = xa_load(&sdev->mrs, FIELD_GET(ORCA_MR_KEY_INDEX, key));
	if (mr->mw_type) {
		WARN_ON_ONCE(lane);
		orca_soft_mw_unbind(mr);
		return 0;
	}
	if (lane && !placed)
		orca_soft_lane_unpin(qp);
	spin_lock(&mr->pin_lock);
	/* Else registered again by another lane since it was checked. */
	if (mr->key == key) {
		if (lane && !placed && mr->pins) {
			ret = -EBUSY;
		} else {
			mr->valid = false;
			drain = lane && mr->pins;
			gen = mr->gen;
		}
	}
	spin_unlock(&mr->pin_lock);
	if (drain)
		orca_soft_mr_drain(qp, mr, gen);
	return ret;
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
 * Resolve @n SGEs (already copied out of the ring) for @qp: each lkey
 * must name a valid MR of @qp's PD with @access (ORCA_ACCESS_*), and the
 * SGE must lie within it.  Zero-length SGEs are skipped.
 * Return: 0, -EACCES (bad key, PD, access or bounds), -EMSGSIZE (longer
 * than the largest message).
 */
int orca_soft_sgl_resolve(struct orca_soft_dev *sdev,
			  struct orca_soft_qp *qp,
			  struct orca_soft_sgl *sgl,
			  const struct orca_sge *sge, u32 n, u32 access)
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
		mr = orca_soft_mr_get(sdev, qp, le32_to_cpu(sge[i].lkey));
		if (!mr || (mr->access & access) != access ||
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
