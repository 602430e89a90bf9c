// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: on-demand paging (interface 1.5; implicit regions, 1.6;
 * failure epochs, 1.8).
 *
 * An on-demand-paging region (REG_MR with FLAG_ODP) has no page list.
 * The device keeps the state of each of its 4 KiB pages in the region's
 * XArray, indexed by page (orca_soft_odp.h): no entry while the page is
 * not present, a value entry with the DMA address and the write right
 * once it is, a "failed" value entry after FAIL or FAIL_FAULT.  Only
 * pages the driver has mapped or failed take memory: a region of 2^28
 * pages costs nothing until it is used, and neither does an implicit
 * region (FLAG_ODP_IMPLICIT), whose 2^52 pages are the whole address
 * space: page i holds addresses [i * 4096, + 4096).  Page indices are u64
 * and XArray indices unsigned long, so implicit regions need a 64-bit
 * host (orca_soft_cap_flags()).
 *
 * ODP_UPDATE changes page states, and a command that fails changes none:
 * MAP and FAIL (FAIL_FAULT too) first reserve a slot for every page they
 * name (the only step that allocates; on failure the reservations are
 * released and the command completes NO_RESOURCES), then store into the
 * slots.  UNMAP only erases entries, walking the ones the range holds
 * rather than every page, so it never needs memory: the driver issues it
 * from its MMU notifier, where it cannot be allowed to fail.  For the
 * same reason FAIL names at most ORCA_SOFT_ODP_FAIL_MAX pages: failed
 * pages are entries too, and a range of them is never split into two by
 * allocating.
 *
 * Commands and the data path exclude each other (eng_rwsem): an access sees
 * the states before a command or after it, and once an UNMAP has completed
 * no access uses the pages it named.
 *
 * The data path looks the pages of an access up before it moves data
 * (orca_soft_mem.c).  A failed page makes the access an access error, like a
 * bounds violation, and is not present again afterwards.
 *
 * Failure epochs (interface 1.8).  Using up a failed page so adds one to the
 * region's failure epoch, and so does an UNMAP that erases the state of a
 * page (present or failed): either way a fault raised before may have had
 * its answer, and the memory may have changed since.  Every ODP_FAULT
 * carries the epoch and FAIL_FAULT must name it, so that a late answer to a
 * fault raised twice cannot fail the page after the access it was for.  The
 * epoch is read and changed only with eng_rwsem held for writing: by
 * commands and by the data path's exclusive passes (the shared lane never
 * runs while the device has an on-demand-paging region).
 *
 * A page that is not present, or read-only for a write, is a page fault:
 * ODP_FAULT is posted with the region's key and the pages from that one to
 * the end of the access, and the caller parks the requester
 * (orca_soft_odp_park()), holds back READ responses
 * (orca_soft_odp_hold_resp()), answers an RNR NAK, or drops a datagram.  A
 * MAP, FAIL or FAIL_FAULT of the region lets the QPs waiting for it go on at
 * once; otherwise they try again after ORCA_ODP_RETRY_MS.
 */

#include <linux/bitfield.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "orca_soft_engine.h"
#include "orca_soft_odp.h"

/* UNMAP lets others run after erasing this many entries. */
#define ORCA_SOFT_ODP_UNMAP_BATCH	4096

#define ORCA_SOFT_ODP_RETRY_NS	((u64)ORCA_ODP_RETRY_MS * NSEC_PER_MSEC)

void orca_soft_odp_mr_init(struct orca_soft_mr *mr)
{
	xa_init(&mr->odp);
}

void orca_soft_odp_mr_fini(struct orca_soft_mr *mr)
{
	xa_destroy(&mr->odp);
}

/* ------------------------------------------------------------ faults */

/*
 * A page fault at page @page of @mr, for an access that goes on to
 * address @end (exclusive) of the region: post ODP_FAULT for the pages
 * from @page to the one holding @end - 1, and remember the region for
 * the caller that parks a QP.
 */
static void orca_soft_odp_fault(struct orca_soft_dev *sdev,
				const struct orca_soft_mr *mr, u64 page,
				u64 end, bool write)
{
	u64 last = orca_soft_odp_page(mr->iova, end - 1);
	u32 info = 0;

	/* An access may run on past the region's end, or wrap around. */
	last = clamp_t(u64, last, page,
		       orca_soft_odp_npages(mr->flags, mr->num_pages) - 1);
	if (orca_soft_cap_flags(sdev) & ORCA_HW_DEV_CAP_ODP_EPOCH)
		info = FIELD_PREP(ORCA_EQE_ODP_EPOCH, mr->odp_epoch);
	sdev->odp_fault_key = mr->key;
	orca_soft_post_event_aux(sdev, ORCA_EQE_ODP_FAULT,
				 orca_soft_odp_fault_data(page, last, write),
				 mr->key, info);
}

/*
 * An access failed on failed page @page of @mr: the page is not present
 * again, so that a later access faults anew (the process may have mapped
 * memory there since), and the region's failure epoch moves on, so that
 * a FAIL_FAULT answering a fault raised before now changes nothing.
 * Erasing needs no memory.
 */
static void orca_soft_odp_unfail(struct orca_soft_mr *mr, u64 page)
{
	xa_erase(&mr->odp, page);
	mr->odp_epoch++;
}

/*
 * The DMA address of address @va of on-demand-paging region @mr, for an
 * access that writes (@write) or reads and runs on to address @end of
 * the region.  0, -EFAULT (a failed page) or -EAGAIN (a page fault,
 * posted).
 */
int orca_soft_odp_translate(struct orca_soft_dev *sdev,
			    struct orca_soft_mr *mr, u64 va, u64 end,
			    bool write, u64 *dma)
{
	u64 page = orca_soft_odp_page(mr->iova, va);
	void *entry = xa_load(&mr->odp, page);
	int ret = orca_soft_odp_access(entry, write);

	if (!ret)
		*dma = orca_soft_odp_dma(xa_to_value(entry), va);
	else if (ret == -EAGAIN)
		orca_soft_odp_fault(sdev, mr, page, end, write);
	else
		orca_soft_odp_unfail(mr, page);
	return ret;
}

/*
 * Check every page of on-demand-paging region @mr that [@va, @va + @len)
 * touches (within the region), for an access that writes (@write) or
 * reads and runs on to address @end.  The first page that is not usable
 * decides: 0, -EFAULT (a failed page) or -EAGAIN (a page fault, posted
 * for the pages from there to @end).
 */
int orca_soft_odp_check(struct orca_soft_dev *sdev, struct orca_soft_mr *mr,
			u64 va, u64 len, u64 end, bool write)
{
	XA_STATE(xas, &mr->odp, orca_soft_odp_page(mr->iova, va));
	u64 page, last;
	void *entry;
	int ret;

	if (!len)
		return 0;
	last = orca_soft_odp_page(mr->iova, va + len - 1);
	/*
	 * Nothing changes the states under us: the engine semaphore is
	 * written (the shared lane never runs with on-demand-paging regions).
	 */
	rcu_read_lock();
	entry = xas_load(&xas);
	for (page = xas.xa_index; ; page++) {
		ret = orca_soft_odp_access(entry, write);
		if (ret || page == last)
			break;
		entry = xas_next(&xas);
	}
	rcu_read_unlock();
	if (ret == -EAGAIN)
		orca_soft_odp_fault(sdev, mr, page, end, write);
	else if (ret)
		orca_soft_odp_unfail(mr, page);
	return ret;
}

/* ------------------------------------------------------- waiting QPs */

/*
 * The requester of @qp met the page fault just posted: its send queue
 * waits for a MAP, FAIL or FAIL_FAULT of that region, or
 * ORCA_ODP_RETRY_MS.
 */
void orca_soft_odp_park(struct orca_soft_dev *sdev, struct orca_soft_qp *qp)
{
	qp->req.odp_key = sdev->odp_fault_key;
	orca_soft_qp_wait(sdev, qp, ORCA_SOFT_WAIT_ODP,
			  ORCA_SOFT_ODP_RETRY_NS);
}

/*
 * The READ responses @qp sends met the page fault just posted: they wait
 * for a MAP, FAIL or FAIL_FAULT of that region, or ORCA_ODP_RETRY_MS.  The
 * requester only sees them late; its own timer asks again if they take
 * too long.
 */
void orca_soft_odp_hold_resp(struct orca_soft_dev *sdev,
			     struct orca_soft_qp *qp)
{
	qp->resp.odp_key = sdev->odp_fault_key;
	qp->resp.odp_until = ktime_get_ns() + ORCA_SOFT_ODP_RETRY_NS;
	orca_soft_wire_arm(sdev, qp);
}

/*
 * Region @key was mapped, failed or deregistered: every QP waiting for
 * one of its pages goes on now.
 */
void orca_soft_odp_wake(struct orca_soft_dev *sdev, u32 key)
{
	struct orca_soft_qp *qp, *tmp;

	list_for_each_entry_safe(qp, tmp, &sdev->eng_waiting, wait_node) {
		if (qp->req.wait != ORCA_SOFT_WAIT_ODP || qp->req.odp_key != key)
			continue;
		list_del_init(&qp->wait_node);
		qp->req.wait = ORCA_SOFT_WAIT_NONE;
		orca_soft_kick(sdev, qp->qpn);
	}
	list_for_each_entry_safe(qp, tmp, &sdev->eng_timers, timer_node) {
		if (!qp->resp.odp_until || qp->resp.odp_key != key)
			continue;
		qp->resp.odp_until = 0;
		orca_soft_wire_arm(sdev, qp);
		orca_soft_kick(sdev, qp->qpn);
	}
}

/* ---------------------------------------------------------- ODP_UPDATE */

/* Undo orca_soft_odp_reserve() for the first @n pages from @first. */
static void orca_soft_odp_release(struct orca_soft_mr *mr, u64 first, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		xa_release(&mr->odp, first + i);
}

/*
 * Make sure pages [@first, @first + @count) have a slot, so that storing
 * their new states cannot fail.  A page with no entry gets a reserved
 * one, which reads as no entry.  0 or -ENOMEM, with nothing reserved.
 */
static int orca_soft_odp_reserve(struct orca_soft_mr *mr, u64 first,
				 u32 count)
{
	u32 i;

	for (i = 0; i < count; i++) {
		if (xa_reserve(&mr->odp, first + i, ORCA_SOFT_GFP)) {
			orca_soft_odp_release(mr, first, i);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Store state @v for page @page, whose slot is reserved: cannot fail. */
static void orca_soft_odp_store(struct orca_soft_mr *mr, u64 page,
				unsigned long v)
{
	void *old = xa_store(&mr->odp, page, xa_mk_value(v), ORCA_SOFT_GFP);

	WARN_ON_ONCE(xa_is_err(old));
}

/* MAP: read and check all the entries, then change the pages. */
static u8 orca_soft_odp_map(struct orca_soft_dev *sdev,
			    struct orca_soft_mr *mr, u64 first, u32 count,
			    u64 pbl_addr)
{
	__le64 *ptes;
	u32 i;
	u8 sts;

	ptes = kmalloc_array(count, sizeof(*ptes), ORCA_SOFT_GFP);
	if (!ptes)
		return ORCA_AQ_STS_NO_RESOURCES;
	if (orca_soft_dma_read(sdev, pbl_addr, ptes, count * sizeof(*ptes))) {
		sts = ORCA_AQ_STS_DMA_ERROR;
		goto out_free;
	}
	for (i = 0; i < count; i++) {
		if (!orca_soft_odp_pte_ok(le64_to_cpu(ptes[i]))) {
			sts = ORCA_AQ_STS_BAD_PARAM;
			goto out_free;
		}
	}
	if (orca_soft_odp_reserve(mr, first, count)) {
		sts = ORCA_AQ_STS_NO_RESOURCES;
		goto out_free;
	}
	for (i = 0; i < count; i++)
		orca_soft_odp_store(mr, first + i,
				    orca_soft_odp_state(le64_to_cpu(ptes[i])));
	sts = ORCA_AQ_STS_OK;
out_free:
	kfree(ptes);
	return sts;
}

/*
 * FAIL: the pages become failed, whatever they were.  FAIL_FAULT the
 * same if the fault it answers, of failure epoch @epoch, was raised in
 * the region's current epoch; otherwise nothing changes.
 */
static u8 orca_soft_odp_fail(struct orca_soft_mr *mr, u32 op, u64 first,
			     u32 count, u16 epoch)
{
	u32 i;

	if (op == ORCA_ODP_FAIL_FAULT && epoch != mr->odp_epoch)
		return ORCA_AQ_STS_OK;
	if (orca_soft_odp_reserve(mr, first, count))
		return ORCA_AQ_STS_NO_RESOURCES;
	for (i = 0; i < count; i++)
		orca_soft_odp_store(mr, first + i, ORCA_SOFT_ODP_FAILED);
	return ORCA_AQ_STS_OK;
}

/*
 * UNMAP: erase the entries of pages [@first, @first + @count), visiting
 * only the entries there are.  Erasing never allocates.  If it erased
 * any, the failure epoch moves on.
 */
static void orca_soft_odp_unmap(struct orca_soft_mr *mr, u64 first,
				u32 count)
{
	XA_STATE(xas, &mr->odp, first);
	unsigned long last = first + count - 1;
	unsigned int n = 0;
	void *entry;

	xas_lock(&xas);
	xas_for_each(&xas, entry, last) {
		xas_store(&xas, NULL);
		if (++n % ORCA_SOFT_ODP_UNMAP_BATCH)
			continue;
		xas_pause(&xas);
		xas_unlock(&xas);
		cond_resched();
		xas_lock(&xas);
	}
	xas_unlock(&xas);
	if (n)
		mr->odp_epoch++;
}

u8 orca_soft_odp_update(struct orca_soft_dev *sdev,
			const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_odp_update *c = &cmd->odp_update;
	u32 key = le32_to_cpu(c->key);
	u32 op = le32_to_cpu(c->op);
	u32 count = le32_to_cpu(c->count);
	u64 page = le64_to_cpu(c->page);
	u64 pbl_addr = le64_to_cpu(c->pbl_addr);
	u32 epoch = le32_to_cpu(c->epoch);
	u32 caps = orca_soft_cap_flags(sdev);
	struct orca_soft_mr *mr;
	u8 sts;

	if (!(caps & ORCA_HW_DEV_CAP_ODP))
		return ORCA_AQ_STS_UNSUPPORTED;
	if (op == ORCA_ODP_FAIL_FAULT && !(caps & ORCA_HW_DEV_CAP_ODP_EPOCH))
		return ORCA_AQ_STS_BAD_PARAM;
	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)) ||
	    !orca_soft_odp_args_ok(op, count, pbl_addr, epoch))
		return ORCA_AQ_STS_BAD_PARAM;
	mr = xa_load(&sdev->mrs, FIELD_GET(ORCA_MR_KEY_INDEX, key));
	if (!mr || mr->mw_type || !(mr->flags & ORCA_MR_FLAG_ODP) ||
	    mr->key != key)
		return ORCA_AQ_STS_BAD_HANDLE;
	if (!orca_soft_odp_range_ok(page, count,
				    orca_soft_odp_npages(mr->flags,
							 mr->num_pages)))
		return ORCA_AQ_STS_BAD_PARAM;

	switch (op) {
	case ORCA_ODP_MAP:
		sts = orca_soft_odp_map(sdev, mr, page, count, pbl_addr);
		break;
	case ORCA_ODP_FAIL:
	case ORCA_ODP_FAIL_FAULT:
		sts = orca_soft_odp_fail(mr, op, page, count,
					 FIELD_GET(ORCA_ODP_EPOCH, epoch));
		break;
	default:
		orca_soft_odp_unmap(mr, page, count);
		return ORCA_AQ_STS_OK;
	}
	/* The QPs waiting for the region try again at once. */
	if (sts == ORCA_AQ_STS_OK)
		orca_soft_odp_wake(sdev, key);
	return sts;
}
