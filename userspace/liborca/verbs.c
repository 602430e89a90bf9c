// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * liborca: control path verbs.  Each is one uverbs command; Orca adds
 * udata only where orca-abi.h defines some.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "orca.h"

/* The ALLOC_PD response with its Orca udata. */
struct orca_alloc_pd_cmd_resp {
	struct ib_uverbs_alloc_pd_resp ibv;
	struct orca_alloc_pd_resp drv;
};

_Static_assert(offsetof(struct orca_alloc_pd_cmd_resp, drv) ==
	       sizeof(struct ib_uverbs_alloc_pd_resp),
	       "udata response must follow the core response");

/*
 * ibv_cmd_query_device_any() copies what the extended response holds,
 * completion_timestamp_mask and hca_core_clock included (orca.ko
 * reports UINT64_MAX and 1000000 kHz when the device has completion
 * timestamps, 0 otherwise).
 */
int orca_query_device_ex(struct ibv_context *ibctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int err;

	err = ibv_cmd_query_device_any(ibctx, input, attr, attr_size,
				       &resp, &resp_size);
	if (err)
		return err;

	/* The kernel reports fw_ver as major.minor.sub in 16-bit fields. */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
	return 0;
}

/*
 * ibv_query_rt_values_ex(3): the device clock as a timespec, which on the
 * software device is CLOCK_MONOTONIC_RAW itself (orca.h), read without
 * a system call.  It is the clock of the completion timestamps:
 * tv_sec * 10^9 + tv_nsec is in the units of ibv_wc_read_completion_ts().
 * The clock is there whether or not the device writes timestamps.
 * comp_mask comes back with the values filled in.  A mask with any
 * other bit is refused with EOPNOTSUPP, and values left alone (mlx4
 * and mlx5 answer EINVAL there; the man page says nothing).
 */
int orca_query_rt_values(struct ibv_context *ibctx,
			 struct ibv_values_ex *values)
{
	uint32_t filled = 0;

	if (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EOPNOTSUPP;

	if (values->comp_mask & IBV_VALUES_MASK_RAW_CLOCK) {
		if (clock_gettime(ORCA_DEVICE_CLOCK, &values->raw_clock))
			return errno;
		filled |= IBV_VALUES_MASK_RAW_CLOCK;
	}
	values->comp_mask = filled;
	return 0;
}

int orca_query_port(struct ibv_context *ibctx, uint8_t port_num,
		    struct ibv_port_attr *port_attr)
{
	struct ibv_query_port cmd = {};

	return ibv_cmd_query_port(ibctx, port_num, port_attr, &cmd,
				  sizeof(cmd));
}

struct ibv_pd *orca_alloc_pd(struct ibv_context *ibctx)
{
	struct orca_alloc_pd_cmd_resp resp = {};
	struct ibv_alloc_pd cmd = {};
	struct orca_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_alloc_pd(ibctx, &pd->ibv_pd, &cmd, sizeof(cmd),
			       &resp.ibv, sizeof(resp));
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	pd->pdn = resp.drv.pdn;

	orca_dbg("pd handle %u pdn %u\n", pd->ibv_pd.handle, pd->pdn);
	return &pd->ibv_pd;
}

/*
 * A PD goes to the kernel, unless a parent domain still stands for it
 * (EBUSY, nothing sent).  A parent domain is liborca's alone: it is
 * freed without a command, unless a QP, CQ or SRQ created with it is
 * still there (EBUSY: its rings may have come from the parent domain's
 * allocator, whose free() it needs); then its PD and TD lose a user.
 */
int orca_dealloc_pd(struct ibv_pd *ibpd)
{
	struct orca_pd *pd = to_opd(ibpd);
	int err;

	if (__atomic_load_n(&pd->users, __ATOMIC_ACQUIRE))
		return EBUSY;

	if (pd->real) {
		if (pd->td)
			__atomic_fetch_sub(&pd->td->users, 1, __ATOMIC_RELEASE);
		__atomic_fetch_sub(&pd->real->users, 1, __ATOMIC_RELEASE);
		orca_dbg("parent domain of pd handle %u freed\n",
			 ibpd->handle);
		free(pd);
		return 0;
	}

	err = ibv_cmd_dealloc_pd(ibpd);
	if (err)
		return err;

	free(pd);
	return 0;
}

/* --- thread domains and parent domains ------------------------------- */

/*
 * ibv_alloc_td(3).  struct ibv_td_init_attr has only comp_mask, which
 * names no field yet: anything in it is EINVAL.  A thread domain needs
 * no device resource, so there is no command.
 */
struct ibv_td *orca_alloc_td(struct ibv_context *ibctx,
			     struct ibv_td_init_attr *attr)
{
	struct orca_td *td;

	if (attr && attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td) {
		errno = ENOMEM;
		return NULL;
	}
	td->ibv_td.context = ibctx;
	return &td->ibv_td;
}

/* EBUSY while a parent domain names it. */
int orca_dealloc_td(struct ibv_td *ibtd)
{
	struct orca_td *td = to_otd(ibtd);

	if (__atomic_load_n(&td->users, __ATOMIC_ACQUIRE))
		return EBUSY;
	free(td);
	return 0;
}

/*
 * ibv_alloc_parent_domain(3).  PD_CONTEXT stores the pointer, which is
 * handed to the allocators.  ALLOCATORS (alloc and free, both non-NULL:
 * EINVAL otherwise) gives liborca the application's memory for the rings
 * of the CQs, QPs and SRQs created through the parent domain (queue.c,
 * orcadv.h); the kernel must take rings in the process's memory for
 * that (ORCA_UCTX_RESP_USER_BUF): without it ALLOCATORS is EOPNOTSUPP,
 * as is any bit liborca does not know, rather than silently ignored.
 * attr->pd must be a PD of this context, not a parent domain, and
 * attr->td, if set, a TD of this context: EINVAL otherwise.
 */
#define ORCA_PARENT_DOMAIN_SUPPORTED	(IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT | \
					 IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS)

struct ibv_pd *orca_alloc_parent_domain(struct ibv_context *ibctx,
					struct ibv_parent_domain_init_attr *attr)
{
	struct orca_context *ctx = to_octx(ibctx);
	struct orca_pd *pdom, *real;
	bool allocators;

	if (!attr) {
		errno = EINVAL;
		return NULL;
	}
	allocators = attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;
	if (attr->comp_mask & ~(uint32_t)ORCA_PARENT_DOMAIN_SUPPORTED ||
	    (allocators && !ctx->user_buf)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!attr->pd || attr->pd->context != ibctx ||
	    to_opd(attr->pd)->real ||
	    (attr->td && attr->td->context != ibctx) ||
	    (allocators && (!attr->alloc || !attr->free))) {
		errno = EINVAL;
		return NULL;
	}
	real = to_opd(attr->pd);

	pdom = calloc(1, sizeof(*pdom));
	if (!pdom) {
		errno = ENOMEM;
		return NULL;
	}
	pdom->ibv_pd.context = ibctx;
	pdom->ibv_pd.handle = real->ibv_pd.handle;
	pdom->pdn = real->pdn;
	pdom->real = real;
	if (attr->td) {
		pdom->td = to_otd(attr->td);
		__atomic_fetch_add(&pdom->td->users, 1, __ATOMIC_RELAXED);
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pdom->pd_context = attr->pd_context;
	if (allocators) {
		pdom->alloc = attr->alloc;
		pdom->free = attr->free;
	}
	__atomic_fetch_add(&real->users, 1, __ATOMIC_RELAXED);

	orca_dbg("parent domain of pd handle %u pdn %u%s%s\n",
		 real->ibv_pd.handle, real->pdn,
		 pdom->td ? ", with a thread domain" : "",
		 allocators ? ", with ring allocators" : "");
	return &pdom->ibv_pd;
}

/* A QP, CQ or SRQ was created with (destroyed from) a parent domain. */
void orca_parent_get(struct orca_pd *parent)
{
	if (parent)
		__atomic_fetch_add(&parent->users, 1, __ATOMIC_RELAXED);
}

void orca_parent_put(struct orca_pd *parent)
{
	if (parent)
		__atomic_fetch_sub(&parent->users, 1, __ATOMIC_RELEASE);
}

/*
 * Memory regions: no udata.  ibv_cmd_reg_mr() fills the handle, keys,
 * mr_type and access; ibv_reg_mr() sets pd, addr and length after us.
 * The access flags go to the kernel as they are: with
 * IBV_ACCESS_ON_DEMAND orca.ko registers an on-demand-paging region
 * (nothing pinned; libibverbs leaves the range forkable), or refuses
 * with EINVAL when the device has no ODP capability.
 */
struct ibv_mr *orca_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
			   uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ibv_reg_mr cmd = {};
	struct verbs_mr *vmr;
	int err;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_reg_mr(ibpd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}

	orca_dbg("mr handle %u lkey 0x%x rkey 0x%x: %zu bytes at %p\n",
		 vmr->ibv_mr.handle, vmr->ibv_mr.lkey, vmr->ibv_mr.rkey,
		 length, addr);
	return &vmr->ibv_mr;
}

/*
 * No udata either way.  The kernel registers anew with what @flags
 * changes and the old MR's attributes for the rest, so the keys change;
 * ibv_cmd_rereg_mr() copies the new ones.  On failure the old MR is
 * untouched (ibv_rereg_mr(3) only promises less).
 */
int orca_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp = {};
	struct ibv_rereg_mr cmd = {};
	int err;

	err = ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
			       access, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err)
		return err;
	/* ibv_dereg_mr() reads the access flags (IBV_ACCESS_ON_DEMAND). */
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		vmr->access = access;
	orca_dbg("mr handle %u rereg flags 0x%x: lkey 0x%x rkey 0x%x\n",
		 vmr->ibv_mr.handle, flags, vmr->ibv_mr.lkey,
		 vmr->ibv_mr.rkey);
	return 0;
}

int orca_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = ibv_cmd_dereg_mr(vmr);
	if (err)
		return err;

	free(vmr);
	return 0;
}

/*
 * Memory windows: no udata either way (orca.ko defines none), so the
 * command is exactly the core request and the response the core one.
 * ibv_cmd_alloc_mw() fills context, pd, rkey, handle and type.  Type 2
 * windows are the IBTA's type 2B: bound to the QP whose BIND_MW bound
 * them.  The binds themselves are send WQEs (datapath.c).
 */
struct ibv_mw *orca_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ibv_alloc_mw cmd = {};
	struct ibv_mw *mw;
	int err;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		errno = EINVAL;
		return NULL;
	}

	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_alloc_mw(ibpd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}

	orca_dbg("mw handle %u type %d rkey 0x%x\n", mw->handle, mw->type,
		 mw->rkey);
	return mw;
}

int orca_dealloc_mw(struct ibv_mw *mw)
{
	int err;

	err = ibv_cmd_dealloc_mw(mw);
	if (err)
		return err;

	free(mw);
	return 0;
}

/* The CREATE_AH response with its Orca udata; the request has none. */
struct orca_create_ah_cmd_resp {
	struct ib_uverbs_create_ah_resp ibv;
	struct orca_create_ah_resp drv;
};

_Static_assert(offsetof(struct orca_create_ah_cmd_resp, drv) ==
	       sizeof(struct ib_uverbs_create_ah_resp) &&
	       sizeof(struct orca_create_ah_cmd_resp) ==
	       sizeof(struct ib_uverbs_create_ah_resp) +
	       sizeof(struct orca_create_ah_resp),
	       "udata response must directly follow the core response");

/*
 * Orca is RoCEv2 only: an AH needs a GRH.  The kernel refuses one without
 * it too; failing here just saves the system call.
 */
struct ibv_ah *orca_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr)
{
	struct orca_create_ah_cmd_resp resp = {};
	struct orca_ah *ah;
	int err;

	if (!attr->is_global) {
		errno = EINVAL;
		return NULL;
	}

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_create_ah(ibpd, &ah->ibv_ah, attr, &resp.ibv,
				sizeof(resp));
	if (err)
		goto err_free;

	if (resp.drv.comp_mask || resp.drv.reserved) {
		orca_err("ah: comp_mask 0x%x reserved 0x%x in the response\n",
			 resp.drv.comp_mask, resp.drv.reserved);
		err = EPROTO;
		goto err_destroy;
	}
	ah->av = resp.drv.av;

	orca_dbg("ah handle %u\n", ah->ibv_ah.handle);
	return &ah->ibv_ah;

err_destroy:
	if (ibv_cmd_destroy_ah(&ah->ibv_ah))
		orca_err("ah: destroy after a failed create failed\n");
err_free:
	free(ah);
	errno = err;
	return NULL;
}

int orca_destroy_ah(struct ibv_ah *ibah)
{
	struct orca_ah *ah = to_oah(ibah);
	int err;

	err = ibv_cmd_destroy_ah(ibah);
	if (err)
		return err;

	free(ah);
	return 0;
}

/*
 * XRC domains (interface 1.4): no udata either way.  The kernel finds
 * or creates the domain behind attr->fd (the inode of the file it
 * names; -1 for a domain of this context alone), following
 * attr->oflags (O_CREAT, O_EXCL), so several processes opening the same
 * file share one domain.  ibv_cmd_open_xrcd() checks comp_mask: FD and
 * OFLAGS are required (EINVAL), unknown bits are EOPNOTSUPP.
 */
struct ibv_xrcd *orca_open_xrcd(struct ibv_context *ibctx,
				struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct ibv_open_xrcd cmd = {};
	struct verbs_xrcd *xrcd;
	int err;

	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_open_xrcd(ibctx, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(xrcd);
		errno = err;
		return NULL;
	}

	orca_dbg("xrcd handle %u (fd %d)\n", xrcd->handle, attr->fd);
	return &xrcd->xrcd;
}

/*
 * The kernel refuses (EBUSY) while an XRC SRQ or XRC_RECV QP created
 * or opened through this handle exists; the XRCD is kept then.  A
 * domain shared through a file lives on while another opener has it.
 */
int orca_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = to_vxrcd(ibxrcd);
	int err;

	err = ibv_cmd_close_xrcd(xrcd);
	if (err)
		return err;

	free(xrcd);
	return 0;
}

/* --- device memory (interface 1.4) ----------------------------------- */

/*
 * Ioctl methods liborca sends itself: DM_ALLOC, whose answer (the mmap
 * key) comes back in a mandatory driver attribute, Orca's DM_QUERY, and
 * QUERY_CONTEXT with Orca's driver attribute (orca.c).  libibverbs would
 * take a driver attribute only through a linked struct
 * ibv_command_buffer, rdma-core's internal stack structure (cmd_ioctl.h)
 * with bitfields and helpers that no header of the release declares and
 * that may change with any release.  So they are built only from the
 * kernel's stable uapi (rdma_user_ioctl_cmds.h): the header directly
 * followed by the attributes, all mandatory, as libibverbs marks its
 * own.
 */
#define ORCA_IOCTL_MAX_ATTRS	4

struct orca_ioctl_buf {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[ORCA_IOCTL_MAX_ATTRS];
};

_Static_assert(sizeof(struct ib_uverbs_ioctl_hdr) == 24 &&
	       sizeof(struct ib_uverbs_attr) == 16 &&
	       offsetof(struct orca_ioctl_buf, attrs) ==
	       sizeof(struct ib_uverbs_ioctl_hdr),
	       "the ioctl header must be directly followed by its attributes");

/*
 * Method @method of object @object with the @nattrs attributes @attrs
 * (at most ORCA_IOCTL_MAX_ATTRS).  They are copied back afterwards: the
 * kernel writes the data of a new IDR attribute.  0 or the errno.
 */
int orca_ioctl(struct ibv_context *ibctx, uint16_t object, uint16_t method,
	       struct ib_uverbs_attr *attrs, unsigned int nattrs)
{
	struct orca_ioctl_buf cmd = {
		.hdr = {
			.length = sizeof(cmd.hdr) + nattrs * sizeof(*attrs),
			.object_id = object,
			.method_id = method,
			.num_attrs = nattrs,
			.driver_id = ORCA_DRIVER_ID,
		},
	};

	if (nattrs > ORCA_IOCTL_MAX_ATTRS)
		return EINVAL;
	memcpy(cmd.attrs, attrs, nattrs * sizeof(*attrs));
	if (ioctl(ibctx->cmd_fd, RDMA_VERBS_IOCTL, &cmd))
		return errno;
	memcpy(attrs, cmd.attrs, nattrs * sizeof(*attrs));
	return 0;
}

/*
 * @err of Orca's method @what: a kernel without it (EPROTONOSUPPORT, or
 * ENOTTY without the ioctl interface) means no such feature here,
 * EOPNOTSUPP, which is what libibverbs answers for an ioctl-only command
 * it cannot send.
 */
static int orca_ioctl_feature_err(int err, const char *what)
{
	if (err == EPROTONOSUPPORT || err == ENOTTY) {
		orca_dbg("%s: %s from the kernel\n", what, strerror(err));
		return EOPNOTSUPP;
	}
	return err;
}

/* DM_ALLOC's attributes, in this order. */
enum {
	ORCA_DM_ATTR_HANDLE,		/* IDR, new: the kernel writes data */
	ORCA_DM_ATTR_LENGTH,		/* u64, inline */
	ORCA_DM_ATTR_ALIGN,		/* u32, inline: log2 of the alignment */
	ORCA_DM_ATTR_KEY,		/* u64 out, through data */
	ORCA_DM_NUM_ATTRS,
};

_Static_assert(ORCA_DM_NUM_ATTRS <= ORCA_IOCTL_MAX_ATTRS,
	       "DM_ALLOC fits orca_ioctl()");
_Static_assert(ORCA_IB_ATTR_ALLOC_DM_RESP_MMAP_KEY ==
	       1U << UVERBS_ID_NS_SHIFT,
	       "the mmap key is the first attribute of the driver namespace");

/*
 * Returns 0 or an errno.  A kernel without the method (or without Orca's
 * attribute) answers EPROTONOSUPPORT, one without the ioctl interface
 * ENOTTY: both mean no device memory here, EOPNOTSUPP, which is what
 * libibverbs answers for an ioctl-only command it cannot send.
 */
static int orca_cmd_alloc_dm(struct ibv_context *ibctx,
			     const struct ibv_alloc_dm_attr *attr,
			     uint32_t *handle, uint64_t *key)
{
	struct ib_uverbs_attr attrs[ORCA_DM_NUM_ATTRS] = {
		[ORCA_DM_ATTR_HANDLE] = {
			.attr_id = UVERBS_ATTR_ALLOC_DM_HANDLE,
			.flags = UVERBS_ATTR_F_MANDATORY,
		},
		[ORCA_DM_ATTR_LENGTH] = {
			.attr_id = UVERBS_ATTR_ALLOC_DM_LENGTH,
			.len = sizeof(uint64_t),
			.flags = UVERBS_ATTR_F_MANDATORY,
			.data = attr->length,
		},
		[ORCA_DM_ATTR_ALIGN] = {
			.attr_id = UVERBS_ATTR_ALLOC_DM_ALIGNMENT,
			.len = sizeof(uint32_t),
			.flags = UVERBS_ATTR_F_MANDATORY,
		},
		[ORCA_DM_ATTR_KEY] = {
			.attr_id = ORCA_IB_ATTR_ALLOC_DM_RESP_MMAP_KEY,
			.len = sizeof(*key),
			.flags = UVERBS_ATTR_F_MANDATORY,
			.data = (uintptr_t)key,
		},
	};
	int err;

	/* Inline data up to 8 bytes: the kernel reads the first len bytes. */
	memcpy(&attrs[ORCA_DM_ATTR_ALIGN].data, &attr->log_align_req,
	       sizeof(uint32_t));

	err = orca_ioctl(ibctx, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, attrs,
			 ORCA_DM_NUM_ATTRS);
	if (err)
		return orca_ioctl_feature_err(err, "DM_ALLOC");
	*handle = attrs[ORCA_DM_ATTR_HANDLE].data;
	return 0;
}

/*
 * ORCA_IB_METHOD_DM_QUERY (orca-abi.h): the handle, then the key and the
 * length the kernel writes.
 */
enum {
	ORCA_QDM_ATTR_HANDLE,		/* IDR, read: the DM */
	ORCA_QDM_ATTR_KEY,		/* u64 out, through data */
	ORCA_QDM_ATTR_LENGTH,		/* u64 out, through data */
	ORCA_QDM_NUM_ATTRS,
};

_Static_assert(ORCA_QDM_NUM_ATTRS <= ORCA_IOCTL_MAX_ATTRS,
	       "DM_QUERY fits orca_ioctl()");
_Static_assert(ORCA_IB_METHOD_DM_QUERY == 1U << UVERBS_ID_NS_SHIFT &&
	       ORCA_IB_ATTR_QUERY_DM_HANDLE == 1U << UVERBS_ID_NS_SHIFT,
	       "the DM query is the first method of the driver namespace");

/*
 * Returns 0 or the kernel's errno: ENOENT for a handle that names no
 * object of the ucontext, EINVAL for one that names an object other
 * than a DM (ib_core's answers).  A kernel without the method answers
 * EPROTONOSUPPORT (ENOTTY without the ioctl interface): EOPNOTSUPP.
 */
static int orca_cmd_query_dm(struct ibv_context *ibctx, uint32_t handle,
			     uint64_t *key, uint64_t *length)
{
	struct ib_uverbs_attr attrs[ORCA_QDM_NUM_ATTRS] = {
		[ORCA_QDM_ATTR_HANDLE] = {
			.attr_id = ORCA_IB_ATTR_QUERY_DM_HANDLE,
			.flags = UVERBS_ATTR_F_MANDATORY,
			.data = handle,
		},
		[ORCA_QDM_ATTR_KEY] = {
			.attr_id = ORCA_IB_ATTR_QUERY_DM_RESP_MMAP_KEY,
			.len = sizeof(*key),
			.flags = UVERBS_ATTR_F_MANDATORY,
			.data = (uintptr_t)key,
		},
		[ORCA_QDM_ATTR_LENGTH] = {
			.attr_id = ORCA_IB_ATTR_QUERY_DM_RESP_LENGTH,
			.len = sizeof(*length),
			.flags = UVERBS_ATTR_F_MANDATORY,
			.data = (uintptr_t)length,
		},
	};

	return orca_ioctl_feature_err(orca_ioctl(ibctx, UVERBS_OBJECT_DM,
						 ORCA_IB_METHOD_DM_QUERY, attrs,
						 ORCA_QDM_NUM_ATTRS),
				      "DM_QUERY");
}

/* Whether [dm_offset, dm_offset + length) lies inside the allocation. */
static bool orca_dm_range_ok(const struct orca_dm *dm, uint64_t dm_offset,
			     size_t length)
{
	return dm_offset <= dm->length && length <= dm->length - dm_offset;
}

/*
 * ibv_memcpy_to_dm(3).  The software device's aperture is cacheable RAM,
 * so a plain copy; the full fence then orders it before anything the
 * caller does next, such as the doorbell of a WQE that reads it.
 */
static int orca_memcpy_to_dm(struct ibv_dm *ibdm, uint64_t dm_offset,
			     const void *host_addr, size_t length)
{
	struct orca_dm *dm = to_odm(ibdm);

	if (!orca_dm_range_ok(dm, dm_offset, length))
		return EINVAL;
	memcpy((char *)dm->addr + dm_offset, host_addr, length);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return 0;
}

/*
 * ibv_memcpy_from_dm(3): the fence first, so that the copy reads no
 * earlier than whatever told the caller the device had written (a CQE
 * polled).
 */
static int orca_memcpy_from_dm(void *host_addr, struct ibv_dm *ibdm,
			       uint64_t dm_offset, size_t length)
{
	struct orca_dm *dm = to_odm(ibdm);

	if (!orca_dm_range_ok(dm, dm_offset, length))
		return EINVAL;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	memcpy(host_addr, (const char *)dm->addr + dm_offset, length);
	return 0;
}

/*
 * Fill @dm as libibverbs' own ibv_cmd_alloc_dm() would (context, handle
 * in both places, IBV_DM_MASK_HANDLE) and map the allocation, @length
 * bytes rounded up to whole pages, from @key on the uverbs fd: 0 or
 * mmap's errno.  @length is at most SIZE_MAX - (page_size - 1).
 */
static int orca_dm_map(struct ibv_context *ibctx, struct orca_dm *dm,
		       uint32_t handle, size_t length, uint64_t key)
{
	struct orca_context *ctx = to_octx(ibctx);
	int err;

	dm->vdm.dm.context = ibctx;
	dm->vdm.dm.comp_mask = IBV_DM_MASK_HANDLE;
	dm->vdm.dm.handle = handle;
	dm->vdm.handle = handle;
	dm->length = length;
	dm->map_len = (length + ctx->page_size - 1) & ~(ctx->page_size - 1);

	dm->addr = mmap(NULL, dm->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			ibctx->cmd_fd, (off_t)key);
	if (dm->addr == MAP_FAILED) {
		err = errno;
		orca_err("dm handle %u: mmap of %zu bytes at key 0x%llx: %s\n",
			 handle, dm->map_len, (unsigned long long)key,
			 strerror(err));
		return err;
	}
	dm->vdm.dm.memcpy_to_dm = orca_memcpy_to_dm;
	dm->vdm.dm.memcpy_from_dm = orca_memcpy_from_dm;
	return 0;
}

/*
 * ibv_alloc_dm(3).  No comp_mask bit is defined, and a length of 0 is
 * EINVAL, before anything is sent; a length whose page rounding would
 * wrap is larger than any device memory, ENOMEM as the kernel would
 * answer.  The kernel's errors come back unchanged: ENOMEM when the
 * device has no room, EINVAL for an alignment it cannot give,
 * EOPNOTSUPP without device memory.  The allocation is then mapped
 * whole, from its first byte; if that fails it is freed again and the
 * verb fails with mmap's errno.
 */
struct ibv_dm *orca_alloc_dm(struct ibv_context *ibctx,
			     struct ibv_alloc_dm_attr *attr)
{
	struct orca_context *ctx = to_octx(ibctx);
	struct orca_dm *dm;
	uint32_t handle = 0;
	/*
	 * The kernel writes the key through the attribute's pointer, beyond
	 * what RDMA_VERBS_IOCTL's size tells a memory checker: start defined.
	 */
	uint64_t key = 0;
	int err;

	if (attr->comp_mask || !attr->length) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->length > SIZE_MAX - (ctx->page_size - 1)) {
		errno = ENOMEM;
		return NULL;
	}

	dm = calloc(1, sizeof(*dm));
	if (!dm) {
		errno = ENOMEM;
		return NULL;
	}

	err = orca_cmd_alloc_dm(ibctx, attr, &handle, &key);
	if (err)
		goto err_free;
	err = orca_dm_map(ibctx, dm, handle, attr->length, key);
	if (err) {
		if (ibv_cmd_free_dm(&dm->vdm))
			orca_err("dm handle %u: free after a failed mmap failed\n",
				 handle);
		goto err_free;
	}

	orca_dbg("dm handle %u: %zu bytes (align 2^%u) at %p\n", handle,
		 dm->length, attr->log_align_req, dm->addr);
	return &dm->vdm.dm;

err_free:
	free(dm);
	errno = err;
	return NULL;
}

/*
 * The kernel refuses (EBUSY) while an MR is registered on the
 * allocation: then the DM, its mapping included, stays as it was.
 * Otherwise the mapping goes after the DM: orca.ko gives the memory back
 * to the device when the last mapping of it is gone.
 */
int orca_free_dm(struct ibv_dm *ibdm)
{
	struct orca_dm *dm = to_odm(ibdm);
	int err;

	err = ibv_cmd_free_dm(&dm->vdm);
	if (err)
		return err;

	if (munmap(dm->addr, dm->map_len))
		orca_err("dm handle %u: munmap: %s\n", dm->vdm.handle,
			 strerror(errno));
	free(dm);
	return 0;
}

/*
 * ibv_import_dm(3): a DM of the ucontext this context shares with
 * others (ibv_import_device(3)), typically allocated through another
 * of them.  ORCA_IB_METHOD_DM_QUERY gives its mmap key and the length
 * asked at allocation; the allocation is mapped again, so that the
 * copies (bounded by that length, as on the original) and
 * ibv_reg_dm_mr work on the import as they do on the original.  A
 * handle that names no object of the ucontext fails with ENOENT, one
 * that names another kind of object with EINVAL (the kernel's errnos,
 * unchanged); a length the kernel should never give (0, or one whose
 * page rounding would wrap) is EPROTO; a failed mmap its errno.
 */
struct ibv_dm *orca_import_dm(struct ibv_context *ibctx, uint32_t dm_handle)
{
	struct orca_context *ctx = to_octx(ibctx);
	/* The kernel writes both through pointers: start defined. */
	uint64_t key = 0, length = 0;
	struct orca_dm *dm;
	int err;

	err = orca_cmd_query_dm(ibctx, dm_handle, &key, &length);
	if (err) {
		errno = err;
		return NULL;
	}
	if (!length || length > SIZE_MAX - (ctx->page_size - 1)) {
		orca_err("dm handle %u: the kernel gave length %llu\n",
			 dm_handle, (unsigned long long)length);
		errno = EPROTO;
		return NULL;
	}

	dm = calloc(1, sizeof(*dm));
	if (!dm) {
		errno = ENOMEM;
		return NULL;
	}
	err = orca_dm_map(ibctx, dm, dm_handle, length, key);
	if (err) {
		free(dm);
		errno = err;
		return NULL;
	}

	orca_dbg("dm handle %u imported: %zu bytes at %p\n", dm_handle,
		 dm->length, dm->addr);
	return &dm->vdm.dm;
}

/*
 * ibv_unimport_dm(3): the mapping and the userspace object go, the
 * kernel's DM stays for whoever else holds it (ibv_free_dm(3) frees
 * it).  Works on any Orca DM, an allocated one too.
 */
void orca_unimport_dm(struct ibv_dm *ibdm)
{
	struct orca_dm *dm = to_odm(ibdm);

	if (munmap(dm->addr, dm->map_len))
		orca_err("dm handle %u: munmap: %s\n", dm->vdm.handle,
			 strerror(errno));
	free(dm);
}

/*
 * ibv_reg_dm_mr(3): bytes [dm_offset, dm_offset + length) of the
 * allocation, addressed from 0.  libibverbs refuses access without
 * IBV_ACCESS_ZERO_BASED (EINVAL, nothing sent); the kernel checks the
 * range and the access flags, and its errno is returned unchanged.  A
 * DM of another context is EINVAL: its handle would name another
 * allocation, or none, in this one.  The MR is an ordinary one from
 * then on (mr_type IBV_MR_TYPE_MR, addr NULL), deregistered with
 * orca_dereg_mr(); while it exists the DM cannot be freed (EBUSY).
 */
struct ibv_mr *orca_reg_dm_mr(struct ibv_pd *ibpd, struct ibv_dm *ibdm,
			      uint64_t dm_offset, size_t length,
			      unsigned int access)
{
	struct orca_dm *dm = to_odm(ibdm);
	struct verbs_mr *vmr;
	int err;

	if (ibdm->context != ibpd->context) {
		errno = EINVAL;
		return NULL;
	}

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_reg_dm_mr(ibpd, &dm->vdm, dm_offset, length, access,
				vmr, NULL);
	if (err) {
		free(vmr);
		errno = err;
		return NULL;
	}
	/* As ibv_cmd_reg_mr() does; ibv_dereg_mr() reads it. */
	vmr->access = access;

	orca_dbg("mr handle %u lkey 0x%x rkey 0x%x: dm handle %u, %zu bytes at offset %llu\n",
		 vmr->ibv_mr.handle, vmr->ibv_mr.lkey, vmr->ibv_mr.rkey,
		 dm->vdm.handle, length, (unsigned long long)dm_offset);
	return &vmr->ibv_mr;
}
