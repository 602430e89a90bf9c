// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca HCA driver: on-demand paging (interface 1.5; implicit regions 1.6;
 * failure epochs 1.8).
 *
 * An ODP region (REG_MR with ORCA_MR_FLAG_ODP) is registered without a
 * page list.  The device keeps a table of its 4 KiB pages, each one not
 * present, present (read-only or writable, at a DMA address) or failed,
 * and only ODP_UPDATE changes it.  Page i of an explicit region's table
 * covers [(iova & ~0xfff) + i * 4096, + 4096) of the region's addresses;
 * since iova and the process address start agree within a 4 KiB page,
 * that is [(start & ~0xfff) + i * 4096, + 4096) of the process's memory.
 * Page i of an implicit region (ORCA_MR_FLAG_ODP_IMPLICIT: the whole
 * address space, iova 0) covers [i * 4096, + 4096) of it.
 *
 * Spans.  The host side of a region's pages is an ib_umem_odp with an
 * MMU interval notifier.  An explicit region has one for its range (its
 * span); an implicit one has a root without pages, and a child per
 * ORCA_ODP_CHILD_SIZE chunk of the address space, created the first time
 * a fault or advise_mr needs a page in the chunk and kept until the
 * region is destroyed (struct orca_odp_span in orca_odp_mr.children).
 *
 * Faults.  An access needing a page that is not present (or not writable
 * for a write) makes the device raise ODP_FAULT with the region's key and
 * a run of pages.  The AEQ handler queues it (a FIFO of ORCA_ODP_Q_LEN;
 * when that is full the fault is dropped, and the device raises it again
 * within ORCA_ODP_RETRY_MS).  The fault work looks the region up by its
 * key, has ib_umem_odp make the pages resident and map them for DMA, and
 * issues MAP.  Pages where the process has no memory, or none writable
 * for a write, get FAIL: the waiting access then fails as one beyond
 * the region's bounds would, instead of waiting for ever.  On a device
 * with ODP_EPOCH (1.8) that is FAIL_FAULT with the fault's failure
 * epoch, which the device ignores if the epoch moved since the fault was
 * raised (an access used up a failed page of the region, or an UNMAP
 * erased a page's state): a copy of a fault the device raised again
 * while the first was being handled cannot fail the page once more
 * after the access it was for.
 *
 * Invalidations.  Before the kernel takes pages away (munmap, migration,
 * reclaim, copy-on-write), the MMU interval notifier calls
 * orca_odp_invalidate(), which issues UNMAP for the pages of the range
 * that may be present or failed and waits for it: when UNMAP completes
 * the device no longer reaches them.  Only then are they unmapped for
 * DMA.
 *
 * Locking and memory.  A span's umem_mutex serialises the ODP_UPDATEs of
 * its pages with its invalidations: ib_umem_odp_map_dma_and_lock()
 * returns with it held and with the pages' DMA addresses current, and
 * MAP is issued before it is dropped.  The region's cmd_lock, taken
 * inside it, serialises every ODP_UPDATE of the region (and the use of
 * its MAP page list, which the spans share) with DEREG_MR.  The notifier
 * takes both in reclaim, so nothing allocates memory while holding
 * either: orca_admin_exec() does not, and MAP's entries go into the page
 * list each region allocates when it is registered.  Lock order:
 * umem_mutex, cmd_lock, then the admin queue.
 *
 * Lifetime.  A region is published in orca_odp_dev.mrs by its key's
 * index once REG_MR succeeded.  The fault work and advise_mr take a use
 * of it under the xarray's lock; destroying it takes it out of the
 * xarray, drops the first use and waits for the last before it releases
 * the umems (which unmaps what is still mapped and removes the
 * notifiers).
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/mmu_notifier.h>
#include <linux/sched/signal.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/rdma_netlink.h>

#include "orca.h"

#define ORCA_ODP_PAGE_SHIFT	12
#define ORCA_ODP_PAGE_SIZE	BIT_ULL(ORCA_ODP_PAGE_SHIFT)
#define ORCA_ODP_PBL_SIZE	(ORCA_ODP_MAP_MAX * sizeof(__le64))
/*
 * An implicit region's chunks: one child ib_umem_odp each, made where
 * the process has a mapping.  2 MiB keeps a child (its two lists of 512
 * entries, about 8 KiB) small beside the memory it can map.
 */
#define ORCA_ODP_CHILD_SHIFT	21
#define ORCA_ODP_CHILD_SIZE	BIT_ULL(ORCA_ODP_CHILD_SHIFT)
#define ORCA_ODP_CHILD_PAGES	BIT_ULL(ORCA_ODP_CHILD_SHIFT - ORCA_ODP_PAGE_SHIFT)
/* An invalidation looks at this many pages between reschedules. */
#define ORCA_ODP_SCAN_BATCH	4096
/* Tries at a chunk that keeps racing with invalidations (-EBUSY). */
#define ORCA_ODP_BUSY_TRIES	3
/* The rights that let an access write the region's memory. */
#define ORCA_ODP_WRITE_ACCESS	(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)

/* The pages of @mr's table. */
static u64 orca_odp_npages(struct orca_mr *mr)
{
	return mr->odp.implicit ? ORCA_ODP_IMPLICIT_PAGES : mr->num_pages;
}

/* The process address where page @page of @span's region starts. */
static u64 orca_odp_page_va(struct orca_odp_span *span, u64 page)
{
	return span->va + ((page - span->first) << ORCA_ODP_PAGE_SHIFT);
}

/* The page of @mr's table that holds address @addr of the region. */
static u64 orca_odp_addr_page(struct orca_mr *mr, u64 addr)
{
	return (addr >> ORCA_ODP_PAGE_SHIFT) -
	       (mr->odp.iova >> ORCA_ODP_PAGE_SHIFT);
}

static bool orca_odp_writable(struct orca_mr *mr)
{
	return mr->access & ORCA_ODP_WRITE_ACCESS;
}

/*
 * Implicit regions: with the device's capability, on 64-bit hosts only
 * (their chunks are indexed by an unsigned long).
 */
static bool orca_odp_implicit_ok(struct orca_dev *dev)
{
	return BITS_PER_LONG == 64 &&
	       (le32_to_cpu(dev->hw_attr.cap_flags) &
		ORCA_HW_DEV_CAP_ODP_IMPLICIT);
}

/* ib_umem_odp's DMA address entry for page @page; under umem_mutex. */
static dma_addr_t orca_odp_dma_entry(struct orca_odp_span *span, u64 page,
				     u64 *offset)
{
	struct ib_umem_odp *odp = span->umem;
	u64 off = orca_odp_page_va(span, page) - ib_umem_start(odp);

	/* A CPU page may hold several of the device's 4 KiB pages. */
	*offset = off & (BIT_ULL(odp->page_shift) - 1);
	return odp->dma_list[off >> odp->page_shift];
}

/* A region by its key, with a use taken; NULL if there is none. */
static struct orca_mr *orca_odp_get(struct orca_dev *dev, u32 key)
{
	struct orca_mr *mr;

	xa_lock(&dev->odp.mrs);
	mr = xa_load(&dev->odp.mrs, FIELD_GET(ORCA_MR_KEY_INDEX, key));
	if (mr && (mr->key != key || !refcount_inc_not_zero(&mr->odp.users)))
		mr = NULL;
	xa_unlock(&dev->odp.mrs);
	return mr;
}

static void orca_odp_put(struct orca_mr *mr)
{
	if (refcount_dec_and_test(&mr->odp.users))
		complete(&mr->odp.done);
}

/* Pages [@lo, @hi) of @span may now be failed; under umem_mutex. */
static void orca_odp_note_failed(struct orca_odp_span *span, u64 lo, u64 hi)
{
	if (span->fail_lo < span->fail_hi) {
		lo = min(lo, span->fail_lo);
		hi = max(hi, span->fail_hi);
	}
	span->fail_lo = lo;
	span->fail_hi = hi;
}

static const struct mmu_interval_notifier_ops orca_odp_mni_ops;

/* Whether the process of implicit region @mr maps anything in [@va, @end). */
static bool orca_odp_has_vma(struct orca_mr *mr, u64 va, u64 end)
{
	struct mm_struct *mm = mr->odp.mm;
	bool found;

	if (va >= mm->task_size || !mmget_not_zero(mm))
		return false;
	mmap_read_lock(mm);
	found = find_vma_intersection(mm, va, min(end, mm->task_size));
	mmap_read_unlock(mm);
	mmput(mm);
	return found;
}

/*
 * After page @page of implicit region @mr, which no mapping of its
 * process holds: the first page of the next chunk a mapping reaches,
 * U64_MAX if none does.
 */
static u64 orca_odp_next_mapped(struct orca_mr *mr, u64 page)
{
	struct mm_struct *mm = mr->odp.mm;
	struct vm_area_struct *vma;
	u64 va = ALIGN(((page + 1) << ORCA_ODP_PAGE_SHIFT), ORCA_ODP_CHILD_SIZE);
	u64 next = U64_MAX;

	if (va >= mm->task_size || !mmget_not_zero(mm))
		return next;
	mmap_read_lock(mm);
	vma = find_vma(mm, va);
	if (vma)
		next = max_t(u64, va, ALIGN_DOWN(vma->vm_start,
						 ORCA_ODP_CHILD_SIZE));
	mmap_read_unlock(mm);
	mmput(mm);
	return next == U64_MAX ? next : next >> ORCA_ODP_PAGE_SHIFT;
}

/*
 * The span of @mr that holds page @page, for a fault or advise_mr (a use
 * of @mr held): an explicit region's own, or an implicit region's child
 * for the chunk.  A child is made if there is none yet, @make is set,
 * and the process maps something in the chunk, so that children cost
 * memory only where the process has some.  -EFAULT where there is no
 * span and none is made, -ENOMEM.
 */
static struct orca_odp_span *orca_odp_span_get(struct orca_mr *mr, u64 page,
					       bool make)
{
	struct ib_umem_odp *root = to_ib_umem_odp(mr->umem);
	struct orca_odp_span *span, *old;
	struct ib_umem_odp *child;
	unsigned long chunk;
	u64 va;

	if (!mr->odp.implicit)
		return &mr->odp.span;
	/* The chunk index fits an unsigned long below the task size. */
	va = ALIGN_DOWN(page << ORCA_ODP_PAGE_SHIFT, ORCA_ODP_CHILD_SIZE);
	if (va >= mr->odp.mm->task_size)
		return ERR_PTR(-EFAULT);
	chunk = va >> ORCA_ODP_CHILD_SHIFT;
	span = xa_load(&mr->odp.children, chunk);
	if (span)
		return span;
	if (!make || !orca_odp_has_vma(mr, va, va + ORCA_ODP_CHILD_SIZE))
		return ERR_PTR(-EFAULT);

	span = kzalloc(sizeof(*span), GFP_KERNEL);
	if (!span)
		return ERR_PTR(-ENOMEM);
	child = ib_umem_odp_alloc_child(root, va, ORCA_ODP_CHILD_SIZE,
					&orca_odp_mni_ops);
	if (IS_ERR(child)) {
		kfree(span);
		return ERR_CAST(child);
	}
	span->umem = child;
	span->mr = mr;
	span->first = va >> ORCA_ODP_PAGE_SHIFT;
	span->npages = ORCA_ODP_CHILD_PAGES;
	span->va = va;
	/* Nothing is mapped yet: the notifier had nothing to do. */
	mutex_lock(&child->umem_mutex);
	child->private = span;
	mutex_unlock(&child->umem_mutex);

	old = xa_cmpxchg(&mr->odp.children, chunk, NULL, span, GFP_KERNEL);
	if (!old)
		return span;
	/* Another caller made it first, or no memory for the slot. */
	ib_umem_odp_release(child);
	kfree(span);
	return xa_is_err(old) ? ERR_PTR(xa_err(old)) : old;
}

/*
 * MAP's entry for page @page: the DMA address ib_umem_odp mapped it at,
 * writable if ib_umem_odp allows writes; 0 if the page is not mapped.
 * Called with umem_mutex held.
 */
static u64 orca_odp_pte(struct orca_odp_span *span, u64 page)
{
	u64 offset, addr;
	dma_addr_t dma;

	dma = orca_odp_dma_entry(span, page, &offset);
	if (!(dma & (ODP_READ_ALLOWED_BIT | ODP_WRITE_ALLOWED_BIT)))
		return 0;
	addr = (dma & ODP_DMA_ADDR_MASK) + offset;
	/* MAP takes non-zero addresses of whole 4 KiB pages only. */
	if (WARN_ON_ONCE(!addr || (addr & ~ORCA_ODP_PTE_ADDR)))
		return 0;
	return FIELD_PREP(ORCA_ODP_PTE_ADDR, addr >> ORCA_ODP_PAGE_SHIFT) |
	       ((dma & ODP_WRITE_ALLOWED_BIT) ? ORCA_ODP_PTE_WRITE : 0);
}

/*
 * MAP the pages of [@page, @page + @count) that ib_umem_odp has mapped,
 * one command per run of them.  @count is at most ORCA_ODP_MAP_MAX, what
 * the region's page list holds.  Called with umem_mutex held.  -ENOENT
 * if the device no longer has the region.
 */
static int orca_odp_push(struct orca_dev *dev, struct orca_odp_span *span,
			 u64 page, u32 count)
{
	struct orca_mr *mr = span->mr;
	u32 i, n = 0;
	int ret = 0;

	mutex_lock(&mr->odp.cmd_lock);
	if (mr->odp.dead) {
		ret = -ENOENT;
		goto out;
	}
	for (i = 0; i <= count; i++) {
		u64 pte = i < count ? orca_odp_pte(span, page + i) : 0;

		if (pte) {
			mr->odp.pbl[n++] = cpu_to_le64(pte);
			continue;
		}
		if (!n)
			continue;
		ret = orca_cmd_odp_update(dev, mr->key, ORCA_ODP_MAP,
					  page + i - n, n, mr->odp.pbl_dma, 0);
		if (ret)
			break;
		atomic64_add(n, &mr->odp.mapped);
		n = 0;
	}
out:
	mutex_unlock(&mr->odp.cmd_lock);
	return ret;
}

/*
 * Make pages [@page, @page + @count) of @span resident (with @fault;
 * else take those that are), map them for DMA with @access_mask
 * and MAP them; @count is at most ORCA_ODP_MAP_MAX.  Returns 0; an error
 * of ib_umem_odp_map_dma_and_lock(): -EFAULT or -EPERM where the process
 * has no such memory, -EBUSY after racing with invalidations too long,
 * -ENOMEM, -EINVAL once the process is gone; -ENOENT when the device no
 * longer has the region; -EIO when MAP failed (the pages stay as they
 * were on the device).
 */
static int orca_odp_map_chunk(struct orca_dev *dev, struct orca_odp_span *span,
			      u64 page, u32 count, u64 access_mask, bool fault)
{
	struct ib_umem_odp *odp = span->umem;
	int ret;

	ret = ib_umem_odp_map_dma_and_lock(odp, orca_odp_page_va(span, page),
					   (u64)count << ORCA_ODP_PAGE_SHIFT,
					   access_mask, fault);
	if (ret < 0)
		return ret;
	/* No invalidation can run until umem_mutex goes. */
	ret = orca_odp_push(dev, span, page, count);
	mutex_unlock(&odp->umem_mutex);
	if (ret && ret != -ENOENT) {
		/* A device short of memory is asked again with the next fault. */
		if (ret != -ENOMEM)
			ibdev_warn_ratelimited(&dev->ibdev,
					       "ODP_UPDATE MAP of region 0x%x failed: %d\n",
					       span->mr->key, ret);
		ret = -EIO;
	}
	return ret;
}

static bool orca_odp_epochs(struct orca_dev *dev)
{
	return le32_to_cpu(dev->hw_attr.cap_flags) & ORCA_HW_DEV_CAP_ODP_EPOCH;
}

/*
 * Page @page of @mr cannot be had for the fault of failure epoch @epoch:
 * FAIL it.  Under the umem_mutex of @span, the span that holds it, if
 * there is one: with none the page lies where no memory can ever be
 * mapped.
 */
static void orca_odp_fail(struct orca_dev *dev, struct orca_mr *mr,
			  struct orca_odp_span *span, u64 page, u16 epoch)
{
	bool epochs = orca_odp_epochs(dev);
	int ret = 0;

	if (span)
		mutex_lock(&span->umem->umem_mutex);
	mutex_lock(&mr->odp.cmd_lock);
	if (!mr->odp.dead) {
		ret = orca_cmd_odp_update(dev, mr->key,
					  epochs ? ORCA_ODP_FAIL_FAULT :
						   ORCA_ODP_FAIL,
					  page, 1, 0, epoch);
		/* Maybe failed: the device may have ignored FAIL_FAULT. */
		if (!ret && span)
			orca_odp_note_failed(span, page, page + 1);
	}
	mutex_unlock(&mr->odp.cmd_lock);
	if (span)
		mutex_unlock(&span->umem->umem_mutex);
	if (ret)
		ibdev_warn_ratelimited(&dev->ibdev,
				       "ODP_UPDATE %s of region 0x%x failed: %d\n",
				       epochs ? "FAIL_FAULT" : "FAIL", mr->key,
				       ret);
	else
		atomic64_inc(&mr->odp.failed);
}

/*
 * Where an access needs memory the process does not have: no mapping or
 * none with the rights (-EFAULT), a read-only one for a write (-EPERM),
 * or no process any more (-EINVAL).
 */
static bool orca_odp_unreachable(int ret)
{
	return ret == -EFAULT || ret == -EPERM || ret == -EINVAL;
}

/*
 * An access needs pages [@page, @page + @count) of @span, writable if
 * @write.  Map them, chunk by chunk, writable whenever the region may be
 * written (a later write then needs no fault).  A chunk the process
 * cannot provide is halved until the first page that is missing is
 * found: that page is failed alone, the pages before it mapped, so that
 * the access fails there and the rest of the region is unharmed.  A
 * chunk that keeps racing with invalidations is halved too, a few times;
 * out of memory, or still racing, the device's next fault tries again.
 * Returns true if all of them were mapped.
 */
static bool orca_odp_handle_span(struct orca_dev *dev,
				 struct orca_odp_span *span, u64 page,
				 u32 count, bool write, u16 epoch)
{
	u64 want = ODP_READ_ALLOWED_BIT;
	u32 chunk = ORCA_ODP_MAP_MAX;
	unsigned int busy = 0;
	int ret;

	if (orca_odp_writable(span->mr))
		want |= ODP_WRITE_ALLOWED_BIT;
	while (count) {
		u32 n = min(count, chunk);

		ret = orca_odp_map_chunk(dev, span, page, n, want, true);
		/* A read does with a read-only mapping. */
		if ((ret == -EFAULT || ret == -EPERM) && !write &&
		    want != ODP_READ_ALLOWED_BIT)
			ret = orca_odp_map_chunk(dev, span, page, n,
						 ODP_READ_ALLOWED_BIT, true);
		if (!ret) {
			page += n;
			count -= n;
			continue;
		}
		if (orca_odp_unreachable(ret)) {
			if (n > 1) {
				chunk = n / 2;
				continue;
			}
			orca_odp_fail(dev, span->mr, span, page, epoch);
			return false;
		}
		/* A smaller chunk races with fewer invalidations. */
		if (ret == -EBUSY && ++busy < ORCA_ODP_BUSY_TRIES) {
			chunk = max(n / 2, 1U);
			continue;
		}
		return false;
	}
	return true;
}

/*
 * A fault of failure epoch @epoch: an access needs pages [@page, @page +
 * @count) of @mr, writable if @write.  Span by span, as
 * orca_odp_handle_span() does.
 */
static void orca_odp_handle(struct orca_dev *dev, struct orca_mr *mr,
			    u64 page, u32 count, bool write, u16 epoch)
{
	u64 npages = orca_odp_npages(mr);
	struct orca_odp_span *span;

	atomic64_inc(&mr->odp.faults);
	if (page >= npages)
		return;
	count = min_t(u64, count, npages - page);
	/*
	 * The device checks the region's rights before its pages: this
	 * cannot come.  A read-only MAP would only fault again.
	 */
	if (write && !orca_odp_writable(mr)) {
		span = orca_odp_span_get(mr, page, false);
		orca_odp_fail(dev, mr, IS_ERR(span) ? NULL : span, page,
			      epoch);
		return;
	}
	while (count) {
		u32 n;

		span = orca_odp_span_get(mr, page, true);
		if (IS_ERR(span)) {
			/* Out of memory: the device's next fault tries again. */
			if (PTR_ERR(span) != -ENOMEM)
				orca_odp_fail(dev, mr, NULL, page, epoch);
			return;
		}
		n = min_t(u64, count, span->first + span->npages - page);
		if (!orca_odp_handle_span(dev, span, page, n, write, epoch))
			return;
		page += n;
		count -= n;
	}
}

/* The fault work: handle the queued faults, oldest first. */
static void orca_odp_work(struct work_struct *work)
{
	struct orca_odp_dev *odp = container_of(work, struct orca_odp_dev,
						work);
	struct orca_dev *dev = container_of(odp, struct orca_dev, odp);
	struct orca_odp_fault f;
	struct orca_mr *mr;

	for (;;) {
		spin_lock_irq(&odp->lock);
		if (!odp->q_len) {
			spin_unlock_irq(&odp->lock);
			return;
		}
		f = odp->q[odp->q_head];
		odp->q_head = (odp->q_head + 1) % ORCA_ODP_Q_LEN;
		odp->q_len--;
		spin_unlock_irq(&odp->lock);

		/* A fault for a region being destroyed finds none. */
		mr = orca_odp_get(dev, f.key);
		if (mr) {
			orca_odp_handle(dev, mr, f.page, f.count, f.write,
					f.epoch);
			orca_odp_put(mr);
		}
		cond_resched();
	}
}

/*
 * An ODP_FAULT event of failure epoch @epoch (AEQ interrupt handler):
 * queue it for the fault work, unless the same fault is queued already,
 * which then takes this one's epoch, the newer.  Returns -EINVAL for an
 * event the device should not have raised.
 */
int orca_odp_event(struct orca_dev *dev, u64 data, u32 key, u16 epoch)
{
	struct orca_odp_dev *odp = &dev->odp;
	struct orca_odp_fault f = {
		.page = FIELD_GET(ORCA_EQE_ODP_PAGE, data),
		.count = FIELD_GET(ORCA_EQE_ODP_COUNT, data) + 1,
		.key = key,
		.epoch = epoch,
		.write = !!(data & ORCA_EQE_ODP_WRITE),
	};
	unsigned long flags;
	int ret = 0;
	u8 i;

	if ((data & ORCA_EQE_ODP_RSVD) || (epoch && !orca_odp_epochs(dev)))
		return -EINVAL;
	spin_lock_irqsave(&odp->lock, flags);
	if (!odp->supported) {
		ret = -EINVAL;
		goto out;
	}
	/* Stopped: the device is going away with no region left. */
	if (!odp->enabled)
		goto out;
	for (i = 0; i < odp->q_len; i++) {
		struct orca_odp_fault *q =
			&odp->q[(odp->q_head + i) % ORCA_ODP_Q_LEN];

		if (q->key == f.key && q->page == f.page &&
		    q->count == f.count && q->write == f.write) {
			q->epoch = f.epoch;
			goto out;
		}
	}
	if (odp->q_len == ORCA_ODP_Q_LEN) {
		odp->dropped++;
		goto out;
	}
	odp->q[(odp->q_head + odp->q_len) % ORCA_ODP_Q_LEN] = f;
	odp->q_len++;
	queue_work(odp->wq, &odp->work);
out:
	spin_unlock_irqrestore(&odp->lock, flags);
	return ret;
}

void orca_odp_dev_init(struct orca_dev *dev)
{
	spin_lock_init(&dev->odp.lock);
	INIT_WORK(&dev->odp.work, orca_odp_work);
	xa_init(&dev->odp.mrs);
}

/*
 * After QUERY_DEVICE, before the ib_device is registered: with the ODP
 * capability, the workqueue of the fault work.  It has a rescuer
 * (WQ_MEM_RECLAIM): a QP waiting for a page makes no progress until its
 * fault is handled, memory pressure or not.  Reclaim never waits for
 * the work (an invalidation waits for umem_mutex, which the work does
 * not hold while it faults pages in), so this is for progress, not to
 * avoid a deadlock.
 */
int orca_odp_start(struct orca_dev *dev)
{
	struct orca_odp_dev *odp = &dev->odp;
	struct workqueue_struct *wq;

	if (!(le32_to_cpu(dev->hw_attr.cap_flags) & ORCA_HW_DEV_CAP_ODP))
		return 0;
	wq = alloc_workqueue("%s_odp", WQ_UNBOUND | WQ_MEM_RECLAIM, 1,
			     dev_name(orca_device(dev)));
	if (!wq)
		return -ENOMEM;
	spin_lock_irq(&odp->lock);
	odp->wq = wq;
	odp->supported = true;
	odp->enabled = true;
	spin_unlock_irq(&odp->lock);
	return 0;
}

/*
 * No region is left (ib_core destroyed every MR before dealloc_driver),
 * and the admin queue still works: stop queueing faults, let the work
 * finish, and free its workqueue.  Safe to call more than once.
 */
void orca_odp_stop(struct orca_dev *dev)
{
	struct orca_odp_dev *odp = &dev->odp;

	spin_lock_irq(&odp->lock);
	odp->enabled = false;
	odp->q_len = 0;
	spin_unlock_irq(&odp->lock);
	if (!odp->wq)
		return;
	cancel_work_sync(&odp->work);
	destroy_workqueue(odp->wq);
	odp->wq = NULL;
	WARN_ON(!xa_empty(&odp->mrs));
	xa_destroy(&odp->mrs);
	if (odp->dropped)
		dev_dbg(orca_device(dev), "%llu page faults dropped (queue full)\n",
			odp->dropped);
}

/*
 * What ibv_query_device_ex(3) reports: ODP regions, implicit ones when
 * the device has them, for every RC operation, and for UD sends, where
 * only the requester touches the region (a UD or UC packet that faults
 * at the responder is dropped).  XRC as RC.
 */
void orca_odp_query_device(struct orca_dev *dev, struct ib_device_attr *props)
{
	u32 caps = le32_to_cpu(dev->hw_attr.cap_flags);
	u32 rc;

	if (!READ_ONCE(dev->odp.supported))
		return;
	props->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	props->odp_caps.general_caps = IB_ODP_SUPPORT;
	if (orca_odp_implicit_ok(dev))
		props->odp_caps.general_caps |= IB_ODP_SUPPORT_IMPLICIT;
	rc = IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV | IB_ODP_SUPPORT_WRITE |
	     IB_ODP_SUPPORT_READ;
	if (caps & ORCA_HW_DEV_CAP_ATOMIC)
		rc |= IB_ODP_SUPPORT_ATOMIC;
	if (caps & ORCA_HW_DEV_CAP_SRQ)
		rc |= IB_ODP_SUPPORT_SRQ_RECV;
	if (caps & ORCA_HW_DEV_CAP_RC)
		props->odp_caps.per_transport_caps.rc_odp_caps = rc;
	if (caps & ORCA_HW_DEV_CAP_UD)
		props->odp_caps.per_transport_caps.ud_odp_caps =
			IB_ODP_SUPPORT_SEND;
	if ((caps & ORCA_HW_DEV_CAP_XRC) && dev->hw_attr.max_xrcd)
		props->odp_caps.per_transport_caps.xrc_odp_caps = rc;
}

/*
 * UNMAP the pages of [@start, @end), an invalidated range of process
 * addresses inside @span, that may be present or failed.  When it
 * completes the device no longer reaches them.  Called with umem_mutex
 * held, maybe in reclaim: allocates nothing.
 */
static void orca_odp_unmap(struct orca_dev *dev, struct orca_odp_span *span,
			   u64 start, u64 end)
{
	struct ib_umem_odp *odp = span->umem;
	struct orca_mr *mr = span->mr;
	u64 first, last, lo, hi, page, offset;
	int ret;

	if (end <= span->va)
		return;
	first = span->first;
	if (start > span->va)
		first += (start - span->va) >> ORCA_ODP_PAGE_SHIFT;
	last = span->first + min_t(u64, DIV_ROUND_UP(end - span->va,
						     ORCA_ODP_PAGE_SIZE),
				   span->npages);
	if (first >= last)
		return;

	/* Narrow it to the pages mapped for DMA, and those maybe failed. */
	lo = last;
	hi = first;
	if (odp->npages) {
		for (page = first; page < last; page++) {
			/* A range may be big: the notifier may sleep. */
			if (!(page % ORCA_ODP_SCAN_BATCH))
				cond_resched();
			if (!orca_odp_dma_entry(span, page, &offset))
				continue;
			lo = min(lo, page);
			hi = page + 1;
		}
	}
	if (span->fail_lo < span->fail_hi &&
	    span->fail_lo < last && span->fail_hi > first) {
		lo = min(lo, max(first, span->fail_lo));
		hi = max(hi, min(last, span->fail_hi));
	}
	if (lo >= hi)
		return;

	mutex_lock(&mr->odp.cmd_lock);
	ret = mr->odp.dead ? -ENOENT :
	      orca_cmd_odp_update(dev, mr->key, ORCA_ODP_UNMAP, lo, hi - lo, 0,
				  0);
	mutex_unlock(&mr->odp.cmd_lock);
	if (ret) {
		/*
		 * The notifier cannot refuse: the pages are unmapped for DMA
		 * all the same.  A dead admin queue means a dead device.
		 */
		if (ret != -ENOENT)
			ibdev_warn_ratelimited(&dev->ibdev,
					       "ODP_UPDATE UNMAP of region 0x%x pages %llu+%llu failed: %d\n",
					       mr->key, lo, hi - lo, ret);
		return;
	}
	atomic64_add(hi - lo, &mr->odp.unmapped);
	if (lo <= span->fail_lo && hi >= span->fail_hi) {
		span->fail_lo = 0;
		span->fail_hi = 0;
	}
}

/* mmu_interval_notifier_ops.invalidate of every ODP span. */
static bool orca_odp_invalidate(struct mmu_interval_notifier *mni,
				const struct mmu_notifier_range *range,
				unsigned long cur_seq)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp,
					       notifier);
	struct orca_odp_span *span;
	u64 start, end;

	/* UNMAP sleeps; the caller tries again where it may block. */
	if (!mmu_notifier_range_blockable(range))
		return false;

	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max_t(u64, range->start, ib_umem_start(odp));
	end = min_t(u64, range->end, ib_umem_end(odp));
	if (start < end) {
		/* Not published yet: nothing was mapped. */
		span = odp->private;
		if (span)
			orca_odp_unmap(to_odev(span->mr->odp.pd->device), span,
				       start, end);
		ib_umem_odp_unmap_dma_pages(odp, start, end);
	}
	mutex_unlock(&odp->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops orca_odp_mni_ops = {
	.invalidate = orca_odp_invalidate,
};

/* Whether [@start, @start + @length) is the implicit ODP range. */
static bool orca_odp_is_implicit(u64 start, u64 length)
{
	return !start && length == U64_MAX;
}

/*
 * The host side of an ODP region: for an explicit region of
 * [@start, @start + @length), its ib_umem_odp and span; for an implicit
 * one, the root ib_umem_odp and a hold on the process's mm_struct.
 */
static int orca_odp_umem_init(struct orca_mr *mr, struct ib_pd *ibpd,
			      u64 start, u64 length, int access)
{
	struct ib_umem_odp *odp;

	if (mr->odp.implicit) {
		odp = ib_umem_odp_alloc_implicit(ibpd->device, access);
		if (IS_ERR(odp))
			return PTR_ERR(odp);
		/* Children are made later, from the fault work too. */
		mr->odp.mm = odp->umem.owning_mm;
		mmgrab(mr->odp.mm);
		mr->umem = &odp->umem;
		return 0;
	}
	odp = ib_umem_odp_get(ibpd->device, start, length, access,
			      &orca_odp_mni_ops);
	if (IS_ERR(odp))
		return PTR_ERR(odp);
	mr->umem = &odp->umem;
	mr->odp.span.umem = odp;
	mr->odp.span.mr = mr;
	mr->odp.span.npages = mr->num_pages;
	mr->odp.span.va = ALIGN_DOWN(start, ORCA_ODP_PAGE_SIZE);
	return 0;
}

/*
 * An ODP region of [@start, @start + @length) at @virt in @ibpd, or the
 * implicit one (start 0, length U64_MAX, virt 0): check the range, and
 * set @mr up (its page list for MAP, the ib_umem_odp and its notifier)
 * for REG_MR; orca_odp_mr_publish() once that succeeded.  On failure
 * nothing is left to undo but @mr itself (orca_odp_mr_destroy()).
 */
int orca_odp_mr_init(struct orca_mr *mr, struct ib_pd *ibpd, u64 start,
		     u64 length, u64 virt, int access)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	u64 num_pages = 0, last;
	int ret;

	if (!READ_ONCE(dev->odp.supported))
		return -EOPNOTSUPP;
	if (orca_odp_is_implicit(start, length)) {
		if (!orca_odp_implicit_ok(dev))
			return -EOPNOTSUPP;
		if (virt)
			return -EINVAL;
		mr->odp.implicit = true;
	} else {
		if (!length ||
		    length > le64_to_cpu(dev->hw_attr.max_mr_size) ||
		    check_add_overflow(virt, length - 1, &last) ||
		    check_add_overflow(start, length - 1, &last))
			return -EINVAL;
		/* Page i of the device's table is page i of the range. */
		if ((virt ^ start) & (ORCA_ODP_PAGE_SIZE - 1))
			return -EINVAL;
		num_pages = ((virt + length - 1) >> ORCA_ODP_PAGE_SHIFT) -
			    (virt >> ORCA_ODP_PAGE_SHIFT) + 1;
		if (num_pages > U32_MAX)
			return -EINVAL;
	}

	mr->flags = ORCA_MR_FLAG_ODP;
	if (mr->odp.implicit)
		mr->flags |= ORCA_MR_FLAG_ODP_IMPLICIT;
	mr->page_shift = ORCA_ODP_PAGE_SHIFT;
	mr->num_pages = num_pages;
	mr->access = access;
	mr->odp.pd = ibpd;
	mr->odp.iova = virt;
	mr->odp.length = length;
	xa_init(&mr->odp.children);
	mutex_init(&mr->odp.cmd_lock);
	/* Until orca_odp_mr_publish(): the device has no such region. */
	mr->odp.dead = true;
	refcount_set(&mr->odp.users, 1);
	init_completion(&mr->odp.done);

	mr->odp.pbl = dma_alloc_coherent(dev->dmadev, ORCA_ODP_PBL_SIZE,
					 &mr->odp.pbl_dma, GFP_KERNEL);
	if (!mr->odp.pbl)
		return -ENOMEM;
	ret = orca_odp_umem_init(mr, ibpd, start, length, access);
	if (ret) {
		dma_free_coherent(dev->dmadev, ORCA_ODP_PBL_SIZE, mr->odp.pbl,
				  mr->odp.pbl_dma);
		mr->odp.pbl = NULL;
	}
	return ret;
}

/*
 * REG_MR made the region: from now on invalidations UNMAP its pages, and
 * faults and advise_mr find it by its key.
 */
int orca_odp_mr_publish(struct orca_dev *dev, struct orca_mr *mr)
{
	struct ib_umem_odp *odp = to_ib_umem_odp(mr->umem);
	int ret;

	mutex_lock(&mr->odp.cmd_lock);
	mr->odp.dead = false;
	mutex_unlock(&mr->odp.cmd_lock);
	if (!mr->odp.implicit) {
		mutex_lock(&odp->umem_mutex);
		odp->private = &mr->odp.span;
		mutex_unlock(&odp->umem_mutex);
	}
	/*
	 * Another region's entry at this index is one whose DEREG_MR just
	 * freed the index: it is on its way out (orca_odp_mr_destroy()).
	 */
	ret = xa_err(xa_store(&dev->odp.mrs,
			      FIELD_GET(ORCA_MR_KEY_INDEX, mr->key), mr,
			      GFP_KERNEL));
	if (ret)
		return ret;
	mr->odp.published = true;
	return 0;
}

/*
 * DEREG_MR, under cmd_lock: once it succeeded no ODP_UPDATE can name the
 * key, whose index the device may give to a new region.
 */
int orca_odp_dereg(struct orca_dev *dev, struct orca_mr *mr)
{
	int ret;

	mutex_lock(&mr->odp.cmd_lock);
	ret = orca_cmd_dereg_mr(dev, mr->key);
	if (!ret)
		mr->odp.dead = true;
	mutex_unlock(&mr->odp.cmd_lock);
	return ret;
}

/*
 * A region the device did not confirm deregistering: UNMAP every page
 * that may be present, so that it reaches none of the memory about to be
 * unmapped for DMA.  Under cmd_lock.  An implicit region's pages outside
 * its spans were never mapped.
 */
static int orca_odp_unmap_all(struct orca_dev *dev, struct orca_mr *mr)
{
	struct orca_odp_span *span;
	unsigned long chunk;
	int ret = 0, err;

	if (!mr->odp.implicit)
		return orca_cmd_odp_update(dev, mr->key, ORCA_ODP_UNMAP, 0,
					   mr->num_pages, 0, 0);
	/* Every one, whatever happens to the others. */
	xa_for_each(&mr->odp.children, chunk, span) {
		err = orca_cmd_odp_update(dev, mr->key, ORCA_ODP_UNMAP,
					  span->first, span->npages, 0, 0);
		if (err && !ret)
			ret = err;
	}
	return ret;
}

/*
 * Free what orca_odp_mr_init() set up.  A region the device did not
 * confirm deregistering gets every page unmapped first; a fault it
 * raises for the region afterwards finds none.  If that fails too the
 * device is beyond reach, and the memory is released regardless, as the
 * notifier could not refuse to give it up either.
 */
void orca_odp_mr_destroy(struct orca_dev *dev, struct orca_mr *mr)
{
	struct orca_odp_span *span;
	unsigned long chunk;
	int ret = 0;

	if (!mr->umem)
		goto out;
	mutex_lock(&mr->odp.cmd_lock);
	if (!mr->odp.dead) {
		ret = orca_odp_unmap_all(dev, mr);
		mr->odp.dead = true;
	}
	mutex_unlock(&mr->odp.cmd_lock);
	if (ret)
		ibdev_warn_ratelimited(&dev->ibdev,
				       "ODP region 0x%x: UNMAP of all its pages failed: %d\n",
				       mr->key, ret);

	if (mr->odp.published) {
		xa_cmpxchg(&dev->odp.mrs, FIELD_GET(ORCA_MR_KEY_INDEX, mr->key),
			   mr, NULL, 0);
		mr->odp.published = false;
		orca_odp_put(mr);
		wait_for_completion(&mr->odp.done);
	}
	/* No fault work or advise_mr is left to make children. */
	xa_for_each(&mr->odp.children, chunk, span) {
		xa_erase(&mr->odp.children, chunk);
		/* Unmaps what is still mapped, and removes the notifier. */
		ib_umem_odp_release(span->umem);
		kfree(span);
		cond_resched();
	}
	xa_destroy(&mr->odp.children);
	ib_umem_release(mr->umem);
	mr->umem = NULL;
	if (mr->odp.mm)
		mmdrop(mr->odp.mm);
	mr->odp.mm = NULL;
out:
	if (mr->odp.pbl)
		dma_free_coherent(dev->dmadev, ORCA_ODP_PBL_SIZE, mr->odp.pbl,
				  mr->odp.pbl_dma);
	mr->odp.pbl = NULL;
}

/* rdma resource show mr -dd: the region's paging counters. */
int orca_odp_fill_res(struct sk_buff *msg, struct orca_mr *mr)
{
	if (rdma_nl_put_driver_u64(msg, "odp_faults",
				   atomic64_read(&mr->odp.faults)) ||
	    rdma_nl_put_driver_u64(msg, "odp_mapped",
				   atomic64_read(&mr->odp.mapped)) ||
	    rdma_nl_put_driver_u64(msg, "odp_failed",
				   atomic64_read(&mr->odp.failed)) ||
	    rdma_nl_put_driver_u64(msg, "odp_unmapped",
				   atomic64_read(&mr->odp.unmapped)))
		return -EMSGSIZE;
	return 0;
}

/*
 * Map the region pages @sge covers, as advise_mr asked.  Errors as the
 * RDMA core's other ODP driver gives them: ENOENT for a key that names
 * no ODP region (any longer), EPERM for one of another PD or, with
 * PREFETCH_WRITE, without write rights; EFAULT (as ibv_advise_mr(3) has
 * it) for a range beyond the region and memory the process does not
 * have.
 */
static int orca_odp_prefetch(struct orca_dev *dev, struct ib_pd *ibpd,
			     const struct ib_sge *sge, u64 access_mask,
			     bool fault)
{
	struct orca_odp_span *span;
	u32 chunk = ORCA_ODP_MAP_MAX;
	unsigned int busy = 0;
	struct orca_mr *mr;
	u64 page, last;
	int ret = 0;

	mr = orca_odp_get(dev, sge->lkey);
	if (!mr)
		return -ENOENT;
	if (mr->odp.pd != ibpd ||
	    ((access_mask & ODP_WRITE_ALLOWED_BIT) && !orca_odp_writable(mr))) {
		ret = -EPERM;
		goto out;
	}
	if (sge->addr < mr->odp.iova || sge->length > mr->odp.length ||
	    sge->addr - mr->odp.iova > mr->odp.length - sge->length) {
		ret = -EFAULT;
		goto out;
	}
	if (!sge->length)
		goto out;

	page = orca_odp_addr_page(mr, sge->addr);
	last = orca_odp_addr_page(mr, sge->addr + sge->length - 1);
	while (page <= last) {
		u32 n;

		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		span = orca_odp_span_get(mr, page, true);
		if (IS_ERR(span) && PTR_ERR(span) == -EFAULT && !fault) {
			/* NO_FAULT: nothing mapped there, nothing to map. */
			page = orca_odp_next_mapped(mr, page);
			continue;
		}
		if (IS_ERR(span)) {
			ret = PTR_ERR(span);
			break;
		}
		n = min3(last - page + 1, span->first + span->npages - page,
			 (u64)chunk);
		ret = orca_odp_map_chunk(dev, span, page, n, access_mask,
					 fault);
		if (ret == -EBUSY && ++busy < ORCA_ODP_BUSY_TRIES) {
			chunk = max(n / 2, 1U);
			continue;
		}
		if (ret)
			break;
		page += n;
		cond_resched();
	}
	if (orca_odp_unreachable(ret))
		ret = -EFAULT;
out:
	orca_odp_put(mr);
	return ret;
}

/*
 * ibv_advise_mr(3): map the pages of ODP regions before they are used.
 * PREFETCH maps them read-only, PREFETCH_WRITE writable (faulting them
 * in as for a write), PREFETCH_NO_FAULT only those the process has
 * resident, as they are.  Done before returning, IB_UVERBS_ADVISE_MR_FLAG_FLUSH
 * or not.
 */
int orca_advise_mr(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		   u32 flags, struct ib_sge *sg_list, u32 num_sge,
		   struct uverbs_attr_bundle *attrs)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	u64 access_mask = ODP_READ_ALLOWED_BIT;
	bool fault = true;
	u32 i;
	int ret;

	if (!READ_ONCE(dev->odp.supported))
		return -EOPNOTSUPP;
	switch (advice) {
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH:
		break;
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE:
		access_mask |= ODP_WRITE_ALLOWED_BIT;
		break;
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		fault = false;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH)
		return -EINVAL;

	for (i = 0; i < num_sge; i++) {
		ret = orca_odp_prefetch(dev, ibpd, &sg_list[i], access_mask,
					fault);
		if (ret)
			return ret;
	}
	return 0;
}
