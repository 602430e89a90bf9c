// SPDX-License-Identifier: GPL-2.0-only
/*
 * liborca's response checks without a kernel: the uverbs commands are
 * answered here, through fake-kernel.h (run by fake-sysfs.sh).
 *
 * Each case gives one CREATE_* response a defect and checks that the verb
 * fails with EPROTO, that liborca destroyed the object again, and that no
 * mapping is left; for a CQ, an entry size other than the one asked for
 * (64 bytes with completion timestamps, 32 without).  XRC (interface
 * 1.4): the commands and udata of XRC domains, XRC SRQs and the two XRC
 * QP types, ibv_open_qp, and what liborca refuses before sending any.
 * Device memory (interface 1.4): the DM_ALLOC ioctl liborca builds
 * itself, the mapping of its key, the DM_FREE and DM_MR_REG ioctls of
 * libibverbs, their order and errors, the refusals before any, and
 * ibv_import_dm as the ORCA_IB_METHOD_DM_QUERY ioctl and a mapping.
 * On-demand paging (interface 1.5): the ODP capabilities of the extended
 * QUERY_DEVICE reaching ibv_query_device_ex, IBV_ACCESS_ON_DEMAND
 * reaching REG_MR, and ibv_advise_mr as the ADVISE_MR ioctl, with the
 * kernel's errno returned unchanged.
 * Queue requests (ORCA_QUEUE_REQ_USER_BUF's ABI): every CREATE_CQ,
 * RESIZE_CQ, CREATE_QP, CREATE_SRQ and CREATE_XSRQ carries the whole
 * 24-byte Orca request, zeroed; custom allocators of a parent domain are
 * EOPNOTSUPP on a context whose ALLOC_UCONTEXT response lacks
 * ORCA_UCTX_RESP_USER_BUF, EINVAL without both callbacks on one that has
 * it (an unknown bit beside it is ignored); an imported context takes
 * the bit from QUERY_CONTEXT.
 * TAP output.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/orca-abi.h>

#include "fake-kernel.h"
/* For struct verbs_mr, which liborca's MRs are. */
#include "../liborca/verbs_abi.h"

#define PAGE	4096

/* The defect to put into the next response of its kind. */
enum defect {
	D_NONE,
	D_CQ_COMP_MASK, D_CQ_DEPTH, D_CQ_CQE_SIZE, D_CQ_DB_OUTSIDE,
	D_CQ_MMAP_LEN, D_CQ_SMALL,
	D_CQ_CQE_48, D_CQ_CQE_32, D_CQ_CQE_128,
	D_QP_COMP_MASK, D_QP_QPN, D_QP_SQ_STRIDE, D_QP_RQ_DEPTH,
	D_QP_OVERLAP, D_QP_INLINE, D_QP_SRQ_RQ,
	D_SRQ_STRIDE, D_SRQ_SRQN, D_XSRQ_NUM,
	D_AH_RSVD,
};

/* The XRC commands, as the fake kernel last saw them. */
#define XRCD_HANDLE	11
#define XSRQN		0x4242
static bool xrcd_busy;			/* CLOSE_XRCD answers EBUSY */
static struct ib_uverbs_open_xrcd last_xrcd;
static struct ib_uverbs_create_xsrq last_xsrq;
static struct ib_uverbs_create_qp last_qp;
static struct ib_uverbs_open_qp last_open;
/* Request and response lengths of the last command of each kind. */
static size_t xrcd_in, xrcd_out, xsrq_in, xsrq_out, qp_in, qp_out;
static size_t open_in, open_out;

/*
 * Device memory: the ioctls the fake kernel plays, the last of them as
 * it arrived (before the answer was written into it), and the errno
 * each method is to fail with.
 */
#define DM_HANDLE	21
#define DM_KEY		(80 * PAGE)
#define DM_MR_HANDLE	0x31
#define DM_LKEY		0x00dd0101
#define DM_RKEY		0x00dd0102
#define MAX_ATTRS	16
static struct ib_uverbs_ioctl_hdr last_ioctl;
static struct ib_uverbs_attr last_attrs[MAX_ATTRS];
static unsigned int n_dm_alloc, n_dm_free, n_dm_mr, n_dm_query;
static int dm_alloc_err, dm_free_err, dm_mr_err;
static uint32_t dm_freed;		/* handle of the last DM_FREE */
static unsigned int dm_free_seq;	/* fake_seq of the last DM_FREE */
static uint32_t last_dereg;		/* handle of the last DEREG_MR */

/*
 * On-demand paging: what the extended QUERY_DEVICE reports (orca.ko's
 * answer for a device with the ODP capability), the last REG_MR as it
 * arrived, the ADVISE_MR ioctls seen, the SGEs of the last, and the
 * errno the next ones fail with.
 */
#define ODP_RC_CAPS	(IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |	\
			 IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |	\
			 IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV)
#define ODP_MR_HANDLE	0x41
#define ODP_LKEY	0x00ee0103
#define ODP_RKEY	0x00ee0104
static struct ib_uverbs_reg_mr last_reg;
static unsigned int n_reg, n_advise;
static int advise_err;
static struct ib_uverbs_sge advised[4];
static size_t advised_len;

/*
 * The Orca request of the last queue command (CREATE_CQ either way,
 * RESIZE_CQ, CREATE_QP, CREATE_SRQ, CREATE_XSRQ) as it arrived: its
 * length and bytes.
 */
static unsigned char last_qreq[64];
static size_t last_qreq_len;

/* ALLOC_UCONTEXT's (and QUERY_CONTEXT's) response comp_mask. */
static uint32_t uctx_comp_mask;

static enum defect defect;
static unsigned int destroyed[64];	/* DESTROY_* commands seen */
static uint32_t last_flags;		/* of the last extended CREATE_CQ */
static struct ibv_context *ctx;

/* Keeps the @len bytes of Orca request at @drv, for sent_zero_qreq(). */
static void keep_qreq(const void *drv, size_t len)
{
	last_qreq_len = len;
	memset(last_qreq, 0xee, sizeof(last_qreq));
	memcpy(last_qreq, drv, len < sizeof(last_qreq) ? len : sizeof(last_qreq));
}

/* The last queue request was a whole one (24 bytes), all zero. */
static bool sent_zero_qreq(void)
{
	static const unsigned char zero[sizeof(struct orca_create_cq_req)];

	return last_qreq_len == sizeof(struct orca_create_cq_req) &&
	       !memcmp(last_qreq, zero, sizeof(zero));
}

/* The Orca request of a legacy write() command with a @core-byte core. */
static const void *legacy_drv(const void *cmd, size_t len, size_t core,
			      size_t *drv_len)
{
	size_t head = sizeof(struct ib_uverbs_cmd_hdr) + core;

	*drv_len = len > head ? len - head : 0;
	return (const char *)cmd + head;
}

/* Answers one write() command; returns 0 or an errno. */
static int answer(const void *cmd, size_t len)
{
	const struct ib_uverbs_cmd_hdr *hdr = cmd;
	const uint64_t *core = (const void *)(hdr + 1);
	size_t out_len = (size_t)hdr->out_words * 4;
	uint64_t resp = len >= sizeof(*hdr) + 8 ? core[0] : 0;

	if (hdr->command < 64)
		destroyed[hdr->command]++;

	switch (hdr->command) {
	case IB_USER_VERBS_CMD_GET_CONTEXT: {
		struct ib_uverbs_get_context_resp c = {
			.async_fd = open("/dev/null", O_RDONLY | O_CLOEXEC),
			.num_comp_vectors = 1,
		};
		struct orca_alloc_ucontext_resp d = {
			.comp_mask = uctx_comp_mask,
			.abi_version = ORCA_UVERBS_ABI_VERSION,
		};
		put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_ALLOC_PD: {
		struct ib_uverbs_alloc_pd_resp c = { .pd_handle = 1 };
		struct orca_alloc_pd_resp d = { .pdn = 1 };

		put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_CREATE_CQ:
	case FAKE_EX(IB_USER_VERBS_EX_CMD_CREATE_CQ):
	case IB_USER_VERBS_CMD_RESIZE_CQ: {
		const struct ib_uverbs_create_cq *req = (const void *)core;
		const struct ib_uverbs_resize_cq *rreq = (const void *)core;
		const struct ib_uverbs_ex_create_cq *xreq = ex_req_of(hdr);
		bool resize = hdr->command == IB_USER_VERBS_CMD_RESIZE_CQ;
		bool ex = hdr->command & IB_USER_VERBS_CMD_FLAG_EXTENDED;
		uint32_t depth = 2;
		uint32_t cqe = resize ? rreq->cqe : ex ? xreq->cqe : req->cqe;
		/* The timestamp flag gives 64-byte entries (the CQ's size
		 * for a resize is not looked at: only 32-byte CQs are). */
		uint32_t size = ex && xreq->flags ? ORCA_CQE64_SIZE :
			        ORCA_CQE_SIZE;
		struct ib_uverbs_ex_create_cq_resp c;
		struct orca_create_cq_resp d = {
			.cqn = 7, .cqe_size = size, .mmap_key = 16 * PAGE,
		};

		if (ex) {
			out_len = ex_out_len(hdr);
			last_flags = xreq->flags;
			keep_qreq((const char *)xreq + hdr->in_words * 8,
				  ex_hdr_of(hdr)->provider_in_words * 8);
		} else {
			size_t n;
			const void *drv = legacy_drv(cmd, len, resize ?
				sizeof(*rreq) : sizeof(*req), &n);

			keep_qreq(drv, n);
		}
		while (depth < cqe)
			depth *= 2;
		c = (struct ib_uverbs_ex_create_cq_resp){
			.base = { .cq_handle = 3, .cqe = depth },
			.response_length = sizeof(c),
		};
		d.cqe_count = depth;
		d.db_offset = (depth * size + PAGE - 1) / PAGE * PAGE;
		d.mmap_len = d.db_offset + PAGE;
		switch (defect) {
		case D_CQ_COMP_MASK: d.comp_mask = 1; break;
		case D_CQ_DEPTH: d.cqe_count = depth + 1; break;
		case D_CQ_CQE_SIZE: d.cqe_size = 64; break;
		case D_CQ_DB_OUTSIDE: d.db_offset = d.mmap_len; break;
		case D_CQ_MMAP_LEN: d.mmap_len += 1; break;
		case D_CQ_SMALL: d.cqe_count = depth / 2; break;
		case D_CQ_CQE_48: d.cqe_size = 48; break;
		case D_CQ_CQE_32: d.cqe_size = 32; break;
		case D_CQ_CQE_128: d.cqe_size = 128; break;
		default: break;
		}
		if (resize) {
			struct ib_uverbs_resize_cq_resp rc = { .cqe = depth };
			struct orca_resize_cq_resp rd = {
				.comp_mask = d.comp_mask, .cqe_count = d.cqe_count,
				.mmap_key = d.mmap_key + PAGE * 64,
				.mmap_len = d.mmap_len, .db_offset = d.db_offset,
			};

			put(resp, &rc, sizeof(rc), &rd, sizeof(rd), out_len);
		} else if (ex) {
			put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
		} else {
			put(resp, &c.base, sizeof(c.base), &d, sizeof(d),
			    out_len);
		}
		return 0;
	}
	case IB_USER_VERBS_CMD_CREATE_QP: {
		const struct ib_uverbs_create_qp *req = (const void *)core;
		/*
		 * libibverbs sends enum ibv_qp_type, whose values are the
		 * kernel's: XRC_SEND is XRC_INI, XRC_RECV XRC_TGT.  XRC_INI
		 * has no receive queue; XRC_TGT no queue at all.
		 */
		bool no_rq = req->is_srq || req->qp_type == IBV_QPT_XRC_SEND;
		struct ib_uverbs_create_qp_resp c = {
			.qp_handle = 4, .qpn = 0x123,
			.max_send_wr = 8, .max_recv_wr = no_rq ? 0 : 8,
			.max_send_sge = 4, .max_recv_sge = no_rq ? 0 : 4,
			.max_inline_data = 64,
		};
		struct orca_create_qp_resp d = {
			.qpn = 0x123, .sq_depth = 8, .sq_stride = 128,
			.rq_depth = no_rq ? 0 : 8,
			.rq_stride = no_rq ? 0 : 128,
			.max_inline = 64, .sq_offset = 0, .rq_offset = PAGE,
			.db_offset = 2 * PAGE, .mmap_key = 32 * PAGE,
			.mmap_len = 3 * PAGE,
		};

		last_qp = *req;
		qp_in = len;
		{
			size_t n;
			const void *drv = legacy_drv(cmd, len, sizeof(*req), &n);

			keep_qreq(drv, n);
		}
		qp_out = out_len;
		if (req->qp_type == IBV_QPT_XRC_RECV) {
			/* ib_core gives the driver no udata: the core only. */
			c = (struct ib_uverbs_create_qp_resp){
				.qp_handle = 4, .qpn = 0x123,
			};
			put(resp, &c, sizeof(c), NULL, 0, out_len);
			return 0;
		}

		switch (defect) {
		case D_QP_COMP_MASK: d.comp_mask = 4; break;
		case D_QP_QPN: d.qpn = 0x124; break;
		case D_QP_SQ_STRIDE: d.sq_stride = 96; break;
		case D_QP_RQ_DEPTH: d.rq_depth = 4; break;
		case D_QP_OVERLAP: d.rq_offset = 512; break;
		case D_QP_INLINE: c.max_inline_data = 65; break;
		case D_QP_SRQ_RQ: d.rq_depth = 8; break;
		default: break;
		}
		put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_CREATE_SRQ: {
		struct ib_uverbs_create_srq_resp c = {
			.srq_handle = 5, .max_wr = 16, .max_sge = 2,
		};
		size_t n;
		const void *drv = legacy_drv(cmd, len,
					     sizeof(struct ib_uverbs_create_srq),
					     &n);

		keep_qreq(drv, n);
		struct orca_create_srq_resp d = {
			.srqn = 9, .depth = 16, .stride = 64,
			.mmap_key = 48 * PAGE, .mmap_len = 2 * PAGE,
			.db_offset = PAGE,
		};

		if (defect == D_SRQ_STRIDE)
			d.stride = 48;
		if (defect == D_SRQ_SRQN)
			d.srqn = 0;
		put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_CREATE_XSRQ: {
		const struct ib_uverbs_create_xsrq *req = (const void *)core;
		struct ib_uverbs_create_srq_resp c = {
			.srq_handle = 5, .max_wr = 16, .max_sge = 2,
			.srqn = XSRQN,
		};
		struct orca_create_srq_resp d = {
			.srqn = XSRQN, .depth = 16, .stride = 64,
			.mmap_key = 48 * PAGE, .mmap_len = 2 * PAGE,
			.db_offset = PAGE,
		};

		last_xsrq = *req;
		xsrq_in = len;
		{
			size_t n;
			const void *drv = legacy_drv(cmd, len, sizeof(*req), &n);

			keep_qreq(drv, n);
		}
		xsrq_out = out_len;
		if (defect == D_SRQ_STRIDE)
			d.stride = 48;
		if (defect == D_XSRQ_NUM)
			c.srqn = XSRQN + 1;
		put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_OPEN_XRCD: {
		const struct ib_uverbs_open_xrcd *req = (const void *)core;
		struct ib_uverbs_open_xrcd_resp c = { .xrcd_handle = XRCD_HANDLE };

		last_xrcd = *req;
		xrcd_in = len;
		xrcd_out = out_len;
		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_CLOSE_XRCD:
		return xrcd_busy ? EBUSY : 0;
	case IB_USER_VERBS_CMD_OPEN_QP: {
		const struct ib_uverbs_open_qp *req = (const void *)core;
		struct ib_uverbs_create_qp_resp c = {
			.qp_handle = 8, .qpn = req->qpn,
		};

		last_open = *req;
		open_in = len;
		open_out = out_len;
		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_CREATE_AH: {
		struct ib_uverbs_create_ah_resp c = { .ah_handle = 6 };
		struct orca_create_ah_resp d = {
			.reserved = defect == D_AH_RSVD ? 1 : 0,
		};

		put(resp, &c, sizeof(c), &d, sizeof(d), out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_DESTROY_CQ: {
		struct ib_uverbs_destroy_cq_resp c = {};

		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_DESTROY_QP: {
		struct ib_uverbs_destroy_qp_resp c = {};

		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_DESTROY_SRQ: {
		struct ib_uverbs_destroy_srq_resp c = {};

		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_DEREG_MR: {
		const struct ib_uverbs_dereg_mr *req = (const void *)core;

		last_dereg = req->mr_handle;
		return 0;
	}
	case IB_USER_VERBS_CMD_REG_MR: {
		struct ib_uverbs_reg_mr_resp c = {
			.mr_handle = ODP_MR_HANDLE, .lkey = ODP_LKEY,
			.rkey = ODP_RKEY,
		};

		n_reg++;
		memcpy(&last_reg, core, sizeof(last_reg));
		put(resp, &c, sizeof(c), NULL, 0, out_len);
		return 0;
	}
	case FAKE_EX(IB_USER_VERBS_EX_CMD_QUERY_DEVICE): {
		struct ib_uverbs_ex_query_device_resp c = {
			.base = { .max_mr_size = 1ULL << 40, .phys_port_cnt = 1 },
			.odp_caps = {
				.general_caps = IBV_ODP_SUPPORT,
				.per_transport_caps = {
					.rc_odp_caps = ODP_RC_CAPS,
					.ud_odp_caps = IBV_ODP_SUPPORT_SEND,
				},
			},
			.xrc_odp_caps = ODP_RC_CAPS,
		};

		out_len = ex_out_len(hdr);
		if (out_len > sizeof(c))
			out_len = sizeof(c);
		c.response_length = out_len;
		memcpy((void *)(uintptr_t)resp, &c, out_len);
		return 0;
	}
	case IB_USER_VERBS_CMD_DEALLOC_PD:
	case IB_USER_VERBS_CMD_DESTROY_AH:
		return 0;
	default:
		return ENOSYS;
	}
}

/* Writes a PTR_OUT attribute's answer, as uverbs_copy_to() does. */
static int put_out(struct ib_uverbs_attr *a, const void *val, size_t len)
{
	if (!a || a->len != len || !a->data)
		return EINVAL;
	memcpy((void *)(uintptr_t)a->data, val, len);
	a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
	return 0;
}

/*
 * QUERY_CONTEXT, as orca.ko answers it for ibv_import_device(): the two
 * core outputs and Orca's driver attribute, the ALLOC_UCONTEXT response.
 */
static int answer_query_context(struct ib_uverbs_ioctl_hdr *hdr)
{
	struct orca_alloc_ucontext_resp d = {
		.comp_mask = uctx_comp_mask,
		.abi_version = ORCA_UVERBS_ABI_VERSION,
	};
	uint32_t vectors = 1;
	uint64_t support = 0;
	int err;

	err = put_out(ioctl_attr(hdr, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS),
		      &vectors, sizeof(vectors));
	if (!err)
		err = put_out(ioctl_attr(hdr, UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT),
			      &support, sizeof(support));
	if (!err)
		err = put_out(ioctl_attr(hdr, ORCA_IB_ATTR_QUERY_CONTEXT_RESP),
			      &d, sizeof(d));
	return err;
}

/*
 * DM_ALLOC, DM_FREE, DM_MR_REG, ORCA_IB_METHOD_DM_QUERY, ADVISE_MR, and
 * for ibv_import_device() QUERY_CONTEXT and ASYNC_EVENT_ALLOC;
 * everything else goes to /dev/null.
 */
static int answer_ioctl(struct ib_uverbs_ioctl_hdr *hdr)
{
	struct ib_uverbs_attr *a;
	uint64_t key = DM_KEY;
	uint32_t lkey = DM_LKEY, rkey = DM_RKEY;
	bool mr_method = hdr->object_id == UVERBS_OBJECT_MR &&
			 (hdr->method_id == UVERBS_METHOD_DM_MR_REG ||
			  hdr->method_id == UVERBS_METHOD_ADVISE_MR);
	int err;

	if (hdr->object_id == UVERBS_OBJECT_DEVICE &&
	    hdr->method_id == UVERBS_METHOD_QUERY_CONTEXT)
		return answer_query_context(hdr);
	if (hdr->object_id == UVERBS_OBJECT_ASYNC_EVENT &&
	    hdr->method_id == UVERBS_METHOD_ASYNC_EVENT_ALLOC) {
		/* An imported context's own async fd: the kernel's new fd. */
		a = ioctl_attr(hdr, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE);
		if (!a)
			return EINVAL;
		a->data = open("/dev/null", O_RDONLY | O_CLOEXEC);
		return 0;
	}
	if (hdr->object_id != UVERBS_OBJECT_DM && !mr_method)
		return FAKE_IOCTL_PASS;
	last_ioctl = *hdr;
	memset(last_attrs, 0, sizeof(last_attrs));
	memcpy(last_attrs, hdr->attrs,
	       (hdr->num_attrs < MAX_ATTRS ? hdr->num_attrs : MAX_ATTRS) *
	       sizeof(last_attrs[0]));

	if (hdr->method_id == UVERBS_METHOD_ADVISE_MR) {
		/* The kernel copies the SGE array in (UA_ALLOC_AND_COPY). */
		n_advise++;
		a = ioctl_attr(hdr, UVERBS_ATTR_ADVISE_MR_SGE_LIST);
		advised_len = a ? a->len : 0;
		if (a && a->len > sizeof(uint64_t) && a->len <= sizeof(advised))
			memcpy(advised, (void *)(uintptr_t)a->data, a->len);
		return advise_err;
	}
	if (hdr->object_id == UVERBS_OBJECT_MR) {
		n_dm_mr++;
		if (dm_mr_err)
			return dm_mr_err;
		a = ioctl_attr(hdr, UVERBS_ATTR_REG_DM_MR_HANDLE);
		if (!a)
			return EINVAL;
		a->data = DM_MR_HANDLE;
		err = put_out(ioctl_attr(hdr, UVERBS_ATTR_REG_DM_MR_RESP_LKEY),
			      &lkey, sizeof(lkey));
		if (!err)
			err = put_out(ioctl_attr(hdr, UVERBS_ATTR_REG_DM_MR_RESP_RKEY),
				      &rkey, sizeof(rkey));
		return err;
	}

	switch (hdr->method_id) {
	case UVERBS_METHOD_DM_ALLOC:
		n_dm_alloc++;
		if (dm_alloc_err)
			return dm_alloc_err;
		a = ioctl_attr(hdr, UVERBS_ATTR_ALLOC_DM_HANDLE);
		if (!a)
			return EINVAL;
		a->data = DM_HANDLE;
		return put_out(ioctl_attr(hdr, ORCA_IB_ATTR_ALLOC_DM_RESP_MMAP_KEY),
			       &key, sizeof(key));
	case UVERBS_METHOD_DM_FREE:
		n_dm_free++;
		dm_free_seq = ++fake_seq;
		a = ioctl_attr(hdr, UVERBS_ATTR_FREE_DM_HANDLE);
		dm_freed = a ? a->data : 0;
		return dm_free_err;
	case ORCA_IB_METHOD_DM_QUERY: {
		/* A DM of 5000 bytes at DM_KEY; any other handle names none. */
		uint64_t len = 5000;

		n_dm_query++;
		a = ioctl_attr(hdr, ORCA_IB_ATTR_QUERY_DM_HANDLE);
		if (!a || a->len)
			return EINVAL;
		if (a->data != DM_HANDLE)
			return ENOENT;
		err = put_out(ioctl_attr(hdr, ORCA_IB_ATTR_QUERY_DM_RESP_MMAP_KEY),
			      &key, sizeof(key));
		if (!err)
			err = put_out(ioctl_attr(hdr, ORCA_IB_ATTR_QUERY_DM_RESP_LENGTH),
				      &len, sizeof(len));
		return err;
	}
	default:
		return EPROTONOSUPPORT;
	}
}

#define EXPECT_REFUSED(create, cmd, what)					\
	do {									\
		unsigned int before = destroyed[cmd];				\
		int maps_before = live_maps;					\
		void *obj = (create);						\
		ok(!obj && errno == EPROTO && destroyed[cmd] == before + 1 &&	\
		   live_maps == maps_before,					\
		   "%s: refused with EPROTO, object destroyed, nothing mapped",	\
		   what);							\
	} while (0)

/*
 * A CQ with completion timestamps: 64-byte entries, and nothing else.
 * One CQ of the caller's stays mapped throughout.
 */
static void test_cq_ts(void)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 5, .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};
	static const struct {
		enum defect d;
		const char *what;
	} cases[] = {
		{ D_CQ_CQE_32, "cq with timestamps: CQE size 32" },
		{ D_CQ_CQE_128, "cq with timestamps: CQE size 128" },
		{ D_CQ_CQE_48, "cq with timestamps: CQE size 48" },
	};
	struct ibv_cq_ex *cqx;

	last_flags = 0;
	cqx = ibv_create_cq_ex(ctx, &a);
	ok(cqx && last_flags == IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION &&
	   live_maps == 2,
	   "cq with timestamps: TIMESTAMP_COMPLETION sent, 64-byte entries accepted and mapped");
	ok(cqx && !ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)) && live_maps == 1,
	   "cq with timestamps: destroy unmaps");
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		defect = cases[i].d;
		EXPECT_REFUSED(ibv_create_cq_ex(ctx, &a),
			       IB_USER_VERBS_CMD_DESTROY_CQ, cases[i].what);
	}
	defect = D_NONE;
}

/* ibv_create_srq_ex() of an XRC SRQ with everything it needs. */
static struct ibv_srq_init_attr_ex xsrq_attr(struct ibv_pd *pd,
					     struct ibv_xrcd *xrcd,
					     struct ibv_cq *cq)
{
	return (struct ibv_srq_init_attr_ex){
		.attr = { .max_wr = 16, .max_sge = 2 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC, .pd = pd, .xrcd = xrcd, .cq = cq,
	};
}

/* XRC SRQs: the command, the number, and the refusals. */
static void test_xsrq(struct ibv_pd *pd, struct ibv_xrcd *xrcd,
		      struct ibv_cq *cq)
{
	struct ibv_srq_init_attr_ex sx = xsrq_attr(pd, xrcd, cq);
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 16, .max_sge = 2 } };
	const size_t drv_in = sizeof(struct orca_create_srq_req);
	const size_t drv_out = sizeof(struct orca_create_srq_resp);
	static const struct {
		uint32_t clear, set;
		enum ibv_srq_type type;
		int err;
		const char *what;
	} bads[] = {
		{ IBV_SRQ_INIT_ATTR_XRCD, 0, IBV_SRQT_XRC, EINVAL, "without XRCD" },
		{ IBV_SRQ_INIT_ATTR_CQ, 0, IBV_SRQT_XRC, EINVAL, "without CQ" },
		{ IBV_SRQ_INIT_ATTR_PD, 0, IBV_SRQT_XRC, EINVAL, "without PD" },
		{ 0, IBV_SRQ_INIT_ATTR_TM, IBV_SRQT_TM, EOPNOTSUPP,
		  "of type TM (tag matching)" },
		{ 0, IBV_SRQ_INIT_ATTR_TM, IBV_SRQT_XRC, EOPNOTSUPP,
		  "with the TM mask" },
		{ 0, IBV_SRQ_INIT_ATTR_RESERVED, IBV_SRQT_XRC, EOPNOTSUPP,
		  "with an unknown mask bit" },
		{ 0, 0, (enum ibv_srq_type)7, EINVAL, "of an unknown type" },
	};
	unsigned int sent = destroyed[IB_USER_VERBS_CMD_CREATE_XSRQ];
	int maps = live_maps;
	struct ibv_srq *srq;
	uint32_t num = 0;
	unsigned int i;

	sx.srq_context = &sx;
	srq = ibv_create_srq_ex(ctx, &sx);
	ok(srq && live_maps == maps + 1 &&
	   destroyed[IB_USER_VERBS_CMD_CREATE_XSRQ] == sent + 1 &&
	   last_xsrq.srq_type == IBV_SRQT_XRC && last_xsrq.pd_handle == 1 &&
	   last_xsrq.xrcd_handle == XRCD_HANDLE && last_xsrq.cq_handle == 3 &&
	   last_xsrq.max_wr == 16 && last_xsrq.max_sge == 2 &&
	   xsrq_in == sizeof(struct ib_uverbs_cmd_hdr) +
		      sizeof(struct ib_uverbs_create_xsrq) + drv_in &&
	   xsrq_out == sizeof(struct ib_uverbs_create_srq_resp) + drv_out,
	   "xrc srq: CREATE_XSRQ with PD, XRCD and CQ, the SRQ udata both ways; mapped");
	ok(srq && sent_zero_qreq(),
	   "xrc srq: CREATE_XSRQ carries the whole Orca request, zeroed");
	ok(srq && !ibv_get_srq_num(srq, &num) && num == XSRQN &&
	   srq->srq_context == &sx && srq->pd == pd && srq->context == ctx &&
	   sx.attr.max_wr == 16 && sx.attr.max_sge == 2,
	   "xrc srq: ibv_get_srq_num is the kernel's srqn; srq_context, pd, caps set");
	ok(srq && !ibv_destroy_srq(srq) && live_maps == maps,
	   "xrc srq: destroy unmaps");

	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		sx = xsrq_attr(pd, xrcd, cq);
		sx.comp_mask = (sx.comp_mask & ~bads[i].clear) | bads[i].set;
		sx.srq_type = bads[i].type;
		sx.tm_cap.max_num_tags = 8;
		errno = 0;
		srq = ibv_create_srq_ex(ctx, &sx);
		ok(!srq && errno == bads[i].err &&
		   destroyed[IB_USER_VERBS_CMD_CREATE_XSRQ] == sent + 1 &&
		   live_maps == maps,
		   "xrc srq %s: %s, no command sent", bads[i].what,
		   strerror(bads[i].err));
	}

	sx = xsrq_attr(pd, xrcd, cq);
	defect = D_XSRQ_NUM;
	EXPECT_REFUSED(ibv_create_srq_ex(ctx, &sx),
		       IB_USER_VERBS_CMD_DESTROY_SRQ,
		       "xrc srq: srq_num of the core response differs from the udata srqn");
	defect = D_SRQ_STRIDE;
	EXPECT_REFUSED(ibv_create_srq_ex(ctx, &sx),
		       IB_USER_VERBS_CMD_DESTROY_SRQ,
		       "xrc srq: stride too small");
	defect = D_NONE;

	/* A basic SRQ through create_srq_ex: the CQ mask takes it there. */
	sx = xsrq_attr(pd, xrcd, cq);
	sx.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ;
	sx.srq_type = IBV_SRQT_XRC;	/* no TYPE bit: not looked at */
	sx.srq_context = &sattr;
	sent = destroyed[IB_USER_VERBS_CMD_CREATE_SRQ];
	srq = ibv_create_srq_ex(ctx, &sx);
	ok(srq && live_maps == maps + 1 &&
	   destroyed[IB_USER_VERBS_CMD_CREATE_SRQ] == sent + 1 &&
	   srq->srq_context == &sattr && srq->pd == pd &&
	   ibv_get_srq_num(srq, &num) == EINVAL,
	   "basic srq via create_srq_ex: CREATE_SRQ with its udata, mapped; get_srq_num EINVAL");
	ok(srq && !ibv_destroy_srq(srq) && live_maps == maps,
	   "basic srq via create_srq_ex: destroy unmaps");
	srq = ibv_create_srq(pd, &sattr);
	ok(srq && ibv_get_srq_num(srq, &num) == EINVAL && !ibv_destroy_srq(srq),
	   "ibv_create_srq srq: get_srq_num EINVAL");
}

/* XRC_SEND, XRC_RECV and opened QPs. */
static void test_xrc_qps(struct ibv_pd *pd, struct ibv_xrcd *xrcd,
			 struct ibv_cq *cq)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 16, .max_sge = 2 } };
	const struct ibv_qp_cap caps = {
		.max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 4,
		.max_recv_sge = 4, .max_inline_data = 64,
	};
	const size_t core_in = sizeof(struct ib_uverbs_cmd_hdr) +
			       sizeof(struct ib_uverbs_create_qp);
	unsigned int sent = destroyed[IB_USER_VERBS_CMD_CREATE_QP];
	unsigned int opened = destroyed[IB_USER_VERBS_CMD_OPEN_QP];
	struct ibv_qp_init_attr_ex qx;
	struct ibv_qp_init_attr qa;
	struct ibv_qp_open_attr ox;
	int maps = live_maps;
	struct ibv_srq *srq;
	struct ibv_qp *qp;

	srq = ibv_create_srq(pd, &sattr);
	if (!srq) {
		ok(0, "srq for the XRC QP checks: %s", strerror(errno));
		return;
	}
	maps = live_maps;

	/* PD alone: libibverbs hands it to create_qp. */
	qx = (struct ibv_qp_init_attr_ex){
		.send_cq = cq, .recv_cq = cq, .srq = srq,
		.qp_type = IBV_QPT_XRC_SEND, .cap = caps,
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd,
	};
	qp = ibv_create_qp_ex(ctx, &qx);
	ok(qp && live_maps == maps + 1 && last_qp.qp_type == IBV_QPT_XRC_SEND &&
	   last_qp.pd_handle == 1 && last_qp.send_cq_handle == 3 &&
	   !last_qp.recv_cq_handle && !last_qp.is_srq && !last_qp.srq_handle &&
	   !last_qp.max_recv_wr && !last_qp.max_recv_sge &&
	   qp_in == core_in + sizeof(struct orca_create_qp_req) &&
	   !qx.cap.max_recv_wr && !qx.cap.max_recv_sge &&
	   qx.cap.max_send_wr == 8 && qp->send_cq == cq && !qp->recv_cq &&
	   !qp->srq && qp->qp_type == IBV_QPT_XRC_SEND,
	   "xrc_send qp: CREATE_QP with the QP udata, no receive CQ, SRQ or caps; mapped without a receive queue");
	ok(qp && !ibv_destroy_qp(qp) && live_maps == maps,
	   "xrc_send qp: destroy unmaps");

	qx = (struct ibv_qp_init_attr_ex){
		.send_cq = cq, .qp_type = IBV_QPT_XRC_SEND, .cap = caps,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd, .send_ops_flags = IBV_QP_EX_WITH_SEND |
			IBV_QP_EX_WITH_RDMA_READ |
			IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
	};
	qp = ibv_create_qp_ex(ctx, &qx);
	ok(qp && ibv_qp_to_qp_ex(qp) && live_maps == maps + 1 &&
	   last_qp.qp_type == IBV_QPT_XRC_SEND && !qx.cap.max_recv_wr,
	   "xrc_send qp with send_ops_flags (RC's ops): an ibv_qp_ex");
	ok(qp && !ibv_destroy_qp(qp) && live_maps == maps,
	   "xrc_send qp_ex: destroy unmaps");

	defect = D_QP_SRQ_RQ;
	EXPECT_REFUSED(ibv_create_qp_ex(ctx, &qx), IB_USER_VERBS_CMD_DESTROY_QP,
		       "xrc_send qp: a receive ring in the response");
	defect = D_NONE;

	sent = destroyed[IB_USER_VERBS_CMD_CREATE_QP];
	qx.send_cq = NULL;
	errno = 0;
	ok(!ibv_create_qp_ex(ctx, &qx) && errno == EINVAL &&
	   destroyed[IB_USER_VERBS_CMD_CREATE_QP] == sent,
	   "xrc_send qp without a send CQ: EINVAL, no command sent");

	/* XRC_RECV: an XRCD and nothing else. */
	qx = (struct ibv_qp_init_attr_ex){
		.qp_context = &qx, .qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = xrcd,
	};
	qp = ibv_create_qp_ex(ctx, &qx);
	ok(qp && live_maps == maps &&
	   destroyed[IB_USER_VERBS_CMD_CREATE_QP] == sent + 1 &&
	   last_qp.qp_type == IBV_QPT_XRC_RECV &&
	   last_qp.pd_handle == XRCD_HANDLE && !last_qp.send_cq_handle &&
	   !last_qp.recv_cq_handle && !last_qp.is_srq && qp_in == core_in &&
	   qp_out == sizeof(struct ib_uverbs_create_qp_resp) &&
	   qp->qp_num == 0x123 && !qp->pd && !qp->send_cq && !qp->recv_cq &&
	   qp->qp_type == IBV_QPT_XRC_RECV && qp->qp_context == &qx &&
	   qp->state == IBV_QPS_RESET,
	   "xrc_recv qp: CREATE_QP naming the XRCD, no udata either way, nothing mapped");
	ok(qp && !ibv_destroy_qp(qp) && live_maps == maps,
	   "xrc_recv qp: destroyed");

	sent = destroyed[IB_USER_VERBS_CMD_CREATE_QP];
	qx.comp_mask = IBV_QP_INIT_ATTR_PD;
	qx.pd = pd;
	errno = 0;
	ok(!ibv_create_qp_ex(ctx, &qx) && errno == EINVAL,
	   "xrc_recv qp with a PD and no XRCD: EINVAL");
	qx.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	errno = 0;
	ok(!ibv_create_qp_ex(ctx, &qx) && errno == EINVAL,
	   "xrc_recv qp_ex without XRCD: EINVAL");
	qx.comp_mask = IBV_QP_INIT_ATTR_XRCD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qx.send_ops_flags = IBV_QP_EX_WITH_SEND;
	errno = 0;
	ok(!ibv_create_qp_ex(ctx, &qx) && errno == EOPNOTSUPP,
	   "xrc_recv qp with a send op: EOPNOTSUPP");
	qa = (struct ibv_qp_init_attr){ .qp_type = IBV_QPT_XRC_RECV,
					.send_cq = cq, .recv_cq = cq };
	errno = 0;
	ok(!ibv_create_qp(pd, &qa) && errno == EINVAL &&
	   destroyed[IB_USER_VERBS_CMD_CREATE_QP] == sent,
	   "ibv_create_qp of an XRC_RECV QP: EINVAL (no XRCD), no command sent");

	/* ibv_open_qp: a handle on an XRC_RECV QP of the domain. */
	ox = (struct ibv_qp_open_attr){
		.comp_mask = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM |
			     IBV_QP_OPEN_ATTR_TYPE | IBV_QP_OPEN_ATTR_CONTEXT,
		.qp_num = 0x777, .xrcd = xrcd, .qp_type = IBV_QPT_XRC_RECV,
		.qp_context = &ox,
	};
	qp = ibv_open_qp(ctx, &ox);
	ok(qp && live_maps == maps &&
	   destroyed[IB_USER_VERBS_CMD_OPEN_QP] == opened + 1 &&
	   last_open.qpn == 0x777 && last_open.pd_handle == XRCD_HANDLE &&
	   last_open.qp_type == IBV_QPT_XRC_RECV &&
	   open_in == sizeof(struct ib_uverbs_cmd_hdr) +
		      sizeof(struct ib_uverbs_open_qp) &&
	   open_out == sizeof(struct ib_uverbs_create_qp_resp) &&
	   qp->qp_num == 0x777 && qp->qp_context == &ox && !qp->pd &&
	   qp->qp_type == IBV_QPT_XRC_RECV,
	   "open_qp: OPEN_QP with the XRCD, qpn and type, no udata, nothing mapped");
	ok(qp && !ibv_destroy_qp(qp) && live_maps == maps,
	   "open_qp: the handle is destroyed");
	ox.comp_mask &= ~IBV_QP_OPEN_ATTR_NUM;
	errno = 0;
	ok(!ibv_open_qp(ctx, &ox) && errno == EINVAL, "open_qp without NUM: EINVAL");
	ox.comp_mask |= IBV_QP_OPEN_ATTR_NUM;
	ox.qp_type = IBV_QPT_RC;
	errno = 0;
	ok(!ibv_open_qp(ctx, &ox) && errno == EINVAL, "open_qp of an RC QP: EINVAL");
	ox.qp_type = IBV_QPT_XRC_RECV;
	ox.comp_mask |= IBV_QP_OPEN_ATTR_RESERVED;
	errno = 0;
	ok(!ibv_open_qp(ctx, &ox) && errno == EOPNOTSUPP &&
	   destroyed[IB_USER_VERBS_CMD_OPEN_QP] == opened + 1,
	   "open_qp with an unknown mask bit: EOPNOTSUPP; none of these sent");
	ibv_destroy_srq(srq);
}

/* XRC domains, and what is created in them (interface 1.4). */
static void test_xrc(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_xrcd_init_attr xattr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1, .oflags = O_CREAT,
	};
	struct ibv_xrcd *xrcd;
	int ret;

	xrcd = ibv_open_xrcd(ctx, &xattr);
	ok(xrcd && xrcd->context == ctx && last_xrcd.fd == (uint32_t)-1 &&
	   last_xrcd.oflags == O_CREAT &&
	   xrcd_in == sizeof(struct ib_uverbs_cmd_hdr) +
		      sizeof(struct ib_uverbs_open_xrcd) &&
	   xrcd_out == sizeof(struct ib_uverbs_open_xrcd_resp),
	   "xrcd: OPEN_XRCD with fd and oflags, no udata either way");
	if (!xrcd)
		return;
	xattr.comp_mask = IBV_XRCD_INIT_ATTR_FD;
	errno = 0;
	ok(!ibv_open_xrcd(ctx, &xattr) && errno == EINVAL,
	   "xrcd without OFLAGS: EINVAL");

	test_xsrq(pd, xrcd, cq);
	test_xrc_qps(pd, xrcd, cq);

	xrcd_busy = true;
	ret = ibv_close_xrcd(xrcd);
	ok(ret == EBUSY, "xrcd: a CLOSE_XRCD the kernel refuses keeps it (ret %d)",
	   ret);
	xrcd_busy = false;
	ok(!ibv_close_xrcd(xrcd), "xrcd: closed");
}

/* The attribute of the last DM ioctl with this id, as sent, or NULL. */
static const struct ib_uverbs_attr *sent_attr(uint16_t id)
{
	for (unsigned int i = 0; i < last_ioctl.num_attrs && i < MAX_ATTRS; i++) {
		if (last_attrs[i].attr_id == id)
			return &last_attrs[i];
	}
	return NULL;
}

/*
 * Whether it was sent mandatory, with this length and data (inline
 * data, or an IDR's handle: 0 for a new object), as libibverbs sends
 * its own.
 */
static bool sent_in(uint16_t id, uint16_t len, uint64_t data)
{
	const struct ib_uverbs_attr *a = sent_attr(id);

	return a && a->len == len && a->flags == UVERBS_ATTR_F_MANDATORY &&
	       a->data == data;
}

/* An output: mandatory, this length, and a buffer. */
static bool sent_out(uint16_t id, uint16_t len)
{
	const struct ib_uverbs_attr *a = sent_attr(id);

	return a && a->len == len && a->flags == UVERBS_ATTR_F_MANDATORY &&
	       a->data;
}

static bool sent_header(uint16_t object, uint16_t method, uint16_t nattrs)
{
	return last_ioctl.object_id == object &&
	       last_ioctl.method_id == method &&
	       last_ioctl.num_attrs == nattrs &&
	       last_ioctl.length == sizeof(last_ioctl) +
				    nattrs * sizeof(struct ib_uverbs_attr) &&
	       last_ioctl.driver_id == RDMA_DRIVER_UNKNOWN &&
	       !last_ioctl.reserved1 && !last_ioctl.reserved2;
}

/* ibv_reg_dm_mr(3) on a DM of the fake kernel, and what is refused. */
static void test_dm_mr(struct ibv_device *dev, struct ibv_pd *pd,
		       struct ibv_dm *dm, struct ibv_mr **mrp)
{
	const unsigned int access = IBV_ACCESS_ZERO_BASED |
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_WRITE;
	unsigned int mrs = n_dm_mr;
	struct ibv_context *ctx2;
	struct verbs_mr *vmr;
	struct ibv_pd *pd2;
	struct ibv_mr *mr;

	errno = 0;
	ok(!ibv_reg_dm_mr(pd, dm, 0, 100, IBV_ACCESS_LOCAL_WRITE) &&
	   errno == EINVAL && n_dm_mr == mrs,
	   "dm mr without IBV_ACCESS_ZERO_BASED: EINVAL, nothing sent");

	mr = ibv_reg_dm_mr(pd, dm, 100, 200, access);
	ok(mr && n_dm_mr == mrs + 1 &&
	   sent_header(UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG, 8) &&
	   sent_in(UVERBS_ATTR_REG_DM_MR_HANDLE, 0, 0) &&
	   sent_in(UVERBS_ATTR_REG_DM_MR_PD_HANDLE, 0, pd->handle) &&
	   sent_in(UVERBS_ATTR_REG_DM_MR_DM_HANDLE, 0, DM_HANDLE) &&
	   sent_in(UVERBS_ATTR_REG_DM_MR_OFFSET, 8, 100) &&
	   sent_in(UVERBS_ATTR_REG_DM_MR_LENGTH, 8, 200) &&
	   sent_in(UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS, 4, access) &&
	   sent_out(UVERBS_ATTR_REG_DM_MR_RESP_LKEY, 4) &&
	   sent_out(UVERBS_ATTR_REG_DM_MR_RESP_RKEY, 4),
	   "dm mr: DM_MR_REG with the PD's and the DM's handles, offset 100, length 200, access with ZERO_BASED; lkey and rkey out");
	vmr = (struct verbs_mr *)mr;
	ok(mr && mr->context == ctx && mr->pd == pd && !mr->addr &&
	   mr->length == 200 && mr->handle == DM_MR_HANDLE &&
	   mr->lkey == DM_LKEY && mr->rkey == DM_RKEY &&
	   vmr->mr_type == IBV_MR_TYPE_MR && vmr->access == (int)access,
	   "dm mr: context, pd, addr NULL (zero based), length, the kernel's handle and keys; mr_type MR, access kept as for reg_mr");

	dm_mr_err = EINVAL;
	errno = 0;
	ok(!ibv_reg_dm_mr(pd, dm, 4096, 8192, access) && errno == EINVAL &&
	   n_dm_mr == mrs + 2,
	   "dm mr beyond the allocation: the kernel's EINVAL");
	dm_mr_err = EACCES;
	errno = 0;
	ok(!ibv_reg_dm_mr(pd, dm, 0, 8, access | IBV_ACCESS_REMOTE_ATOMIC) &&
	   errno == EACCES && n_dm_mr == mrs + 3,
	   "dm mr: any other errno of the kernel passes through (EACCES)");
	dm_mr_err = 0;

	ctx2 = ibv_open_device(dev);
	pd2 = ctx2 ? ibv_alloc_pd(ctx2) : NULL;
	errno = 0;
	ok(pd2 && !ibv_reg_dm_mr(pd2, dm, 0, 100, access) && errno == EINVAL &&
	   n_dm_mr == mrs + 3,
	   "dm mr with a PD of another context: EINVAL, nothing sent");
	if (pd2)
		ibv_dealloc_pd(pd2);
	if (ctx2)
		ibv_close_device(ctx2);
	*mrp = mr;
}

/* Device memory (interface 1.4): ibv_alloc_dm(3) and what follows. */
static void test_dm(struct ibv_device *dev, struct ibv_pd *pd)
{
	static const struct {
		int kernel, err;
		const char *what;
	} errs[] = {
		{ ENOMEM, ENOMEM, "no room on the device: ENOMEM" },
		{ EINVAL, EINVAL, "an alignment the device cannot give: EINVAL" },
		{ EOPNOTSUPP, EOPNOTSUPP, "a device without device memory: EOPNOTSUPP" },
		{ EPROTONOSUPPORT, EOPNOTSUPP,
		  "a kernel without the method or Orca's attribute (EPROTONOSUPPORT): EOPNOTSUPP" },
	};
	struct ibv_alloc_dm_attr da = { .length = 5000, .log_align_req = 13 };
	unsigned int allocs = n_dm_alloc, frees = n_dm_free, sent;
	const char buf[8] = "orca-dm";
	struct ibv_mr *mr = NULL;
	int maps = live_maps;
	struct ibv_dm *dm;
	unsigned int i;
	int ret;

	dm = ibv_alloc_dm(ctx, &da);
	ok(dm && n_dm_alloc == allocs + 1 &&
	   sent_header(UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 4),
	   "dm: a DM_ALLOC ioctl: object DM, 4 attributes, driver_id RDMA_DRIVER_UNKNOWN, reserved words 0");
	ok(sent_in(UVERBS_ATTR_ALLOC_DM_HANDLE, 0, 0) &&
	   sent_in(UVERBS_ATTR_ALLOC_DM_LENGTH, 8, 5000) &&
	   sent_in(UVERBS_ATTR_ALLOC_DM_ALIGNMENT, 4, 13) &&
	   sent_out(ORCA_IB_ATTR_ALLOC_DM_RESP_MMAP_KEY, 8),
	   "dm: the new handle (IDR), length (u64 inline), log2 alignment (u32 inline) and Orca's mmap key (u64 out, id 0x1000), all mandatory");
	ok(dm && n_dm_free == frees && live_maps == maps + 1 && map_of(DM_KEY) &&
	   map_len_of(DM_KEY) == 2 * PAGE,
	   "dm: the key mapped, 5000 bytes rounded up to 2 pages");
	ok(dm && dm->context == ctx && dm->handle == DM_HANDLE &&
	   dm->comp_mask == IBV_DM_MASK_HANDLE && dm->memcpy_to_dm &&
	   dm->memcpy_from_dm,
	   "dm: context, handle (comp_mask IBV_DM_MASK_HANDLE) and the copy functions set");
	if (!dm)
		return;

	allocs = n_dm_alloc;
	da.comp_mask = 1;
	errno = 0;
	ok(!ibv_alloc_dm(ctx, &da) && errno == EINVAL && n_dm_alloc == allocs,
	   "dm with comp_mask 1: EINVAL, nothing sent");
	da = (struct ibv_alloc_dm_attr){ .length = 0 };
	errno = 0;
	ok(!ibv_alloc_dm(ctx, &da) && errno == EINVAL && n_dm_alloc == allocs,
	   "dm of length 0: EINVAL, nothing sent");
	da.length = SIZE_MAX - PAGE + 2;
	errno = 0;
	ok(!ibv_alloc_dm(ctx, &da) && errno == ENOMEM && n_dm_alloc == allocs,
	   "dm of a length whose page rounding wraps: ENOMEM, nothing sent");

	da.length = PAGE;
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		dm_alloc_err = errs[i].kernel;
		errno = 0;
		ok(!ibv_alloc_dm(ctx, &da) && errno == errs[i].err &&
		   n_dm_alloc == allocs + i + 1 && n_dm_free == frees &&
		   live_maps == maps + 1,
		   "dm: %s, nothing mapped or freed", errs[i].what);
	}
	dm_alloc_err = 0;

	mmap_err = EAGAIN;
	errno = 0;
	ok(!ibv_alloc_dm(ctx, &da) && errno == EAGAIN &&
	   n_dm_free == frees + 1 && dm_freed == DM_HANDLE &&
	   sent_header(UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE, 1) &&
	   live_maps == maps + 1,
	   "dm: a failed mmap: DM_FREE of the new handle, mmap's errno (EAGAIN)");
	mmap_err = 0;

	test_dm_mr(dev, pd, dm, &mr);

	frees = n_dm_free;
	dm_free_err = EBUSY;
	ret = ibv_free_dm(dm);
	ok(ret == EBUSY && n_dm_free == frees + 1 && dm_freed == DM_HANDLE &&
	   live_maps == maps + 1 && map_of(DM_KEY),
	   "dm: DM_FREE refused while an MR uses it: EBUSY, the mapping kept");
	dm_free_err = 0;
	ok(!ibv_memcpy_to_dm(dm, 4992, buf, sizeof(buf)) &&
	   !memcmp(map_of(DM_KEY) + 4992, buf, sizeof(buf)),
	   "dm: still usable after the refused free");
	ok(mr && !ibv_dereg_mr(mr) && last_dereg == DM_MR_HANDLE,
	   "dm mr: deregistered like any MR (DEREG_MR of its handle)");
	ret = ibv_free_dm(dm);
	ok(!ret && n_dm_free == frees + 2 && dm_freed == DM_HANDLE &&
	   sent_header(UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE, 1) &&
	   sent_in(UVERBS_ATTR_FREE_DM_HANDLE, 0, DM_HANDLE) &&
	   live_maps == maps && unmap_seq > dm_free_seq,
	   "dm: freed: DM_FREE of its handle first, then the mapping unmapped");

	sent = n_dm_alloc + n_dm_free + n_dm_mr;
	maps = live_maps;
	dm = ibv_import_dm(ctx, DM_HANDLE);
	ok(dm && n_dm_query == 1 &&
	   sent_header(UVERBS_OBJECT_DM, ORCA_IB_METHOD_DM_QUERY, 3) &&
	   sent_in(ORCA_IB_ATTR_QUERY_DM_HANDLE, 0, DM_HANDLE) &&
	   sent_out(ORCA_IB_ATTR_QUERY_DM_RESP_MMAP_KEY, 8) &&
	   sent_out(ORCA_IB_ATTR_QUERY_DM_RESP_LENGTH, 8) &&
	   live_maps == maps + 1 && map_len_of(DM_KEY) == 2 * PAGE &&
	   dm->context == ctx && dm->handle == DM_HANDLE &&
	   dm->comp_mask == IBV_DM_MASK_HANDLE && dm->memcpy_to_dm,
	   "import_dm: one ORCA_IB_METHOD_DM_QUERY of the handle; the key mapped for the 5000 bytes it answers (2 pages); context, handle, IBV_DM_MASK_HANDLE and the copies set");
	if (dm) {
		ret = ibv_memcpy_to_dm(dm, 4999, buf, 2);
		ibv_unimport_dm(dm);
		ok(ret == EINVAL && live_maps == maps &&
		   n_dm_alloc + n_dm_free + n_dm_mr == sent,
		   "import_dm: copies bounded by the length the kernel gave; unimport_dm unmaps it and sends nothing (no DM_FREE)");
	}
	errno = 0;
	ok(!ibv_import_dm(ctx, DM_HANDLE + 1) && errno == ENOENT &&
	   n_dm_query == 2 && live_maps == maps,
	   "import_dm of a handle the kernel does not know: ENOENT (its errno, unchanged), nothing mapped");
}

/*
 * On-demand paging: the capabilities the kernel reports, an ODP region,
 * and ibv_advise_mr(3), which liborca hands to the kernel as it is.
 */
static void test_odp(struct ibv_pd *pd)
{
	static const int errs[] = { EFAULT, ENOENT, EPERM, EINVAL, EOPNOTSUPP };
	static char buf[3 * PAGE] __attribute__((aligned(PAGE)));
	struct ibv_device_attr_ex attr;
	struct ibv_sge sge[2];
	unsigned int sent;
	struct ibv_mr *mr;
	int access = IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE |
		     IBV_ACCESS_REMOTE_WRITE;
	int ret;

	ret = ibv_query_device_ex(ctx, NULL, &attr);
	ok(!ret && attr.odp_caps.general_caps == IBV_ODP_SUPPORT &&
	   attr.odp_caps.per_transport_caps.rc_odp_caps == ODP_RC_CAPS &&
	   attr.odp_caps.per_transport_caps.ud_odp_caps == IBV_ODP_SUPPORT_SEND &&
	   !attr.odp_caps.per_transport_caps.uc_odp_caps &&
	   attr.xrc_odp_caps == ODP_RC_CAPS,
	   "odp: query_device_ex reports the kernel's odp_caps and xrc_odp_caps (ret %d)",
	   ret);

	mr = ibv_reg_mr(pd, buf + 100, 2 * PAGE, access);
	ok(mr && n_reg == 1 && last_reg.start == (uintptr_t)(buf + 100) &&
	   last_reg.length == 2 * PAGE &&
	   last_reg.hca_va == (uintptr_t)(buf + 100) &&
	   last_reg.pd_handle == pd->handle &&
	   last_reg.access_flags == (uint32_t)access,
	   "odp: REG_MR carries IBV_ACCESS_ON_DEMAND with the range and the other flags");
	ok(mr && mr->handle == ODP_MR_HANDLE && mr->lkey == ODP_LKEY &&
	   mr->rkey == ODP_RKEY && mr->addr == buf + 100 &&
	   mr->length == 2 * PAGE &&
	   ((struct verbs_mr *)mr)->access == access,
	   "odp: the MR's handle, keys, range and access flags (ON_DEMAND kept for ibv_dereg_mr)");

	sge[0] = (struct ibv_sge){ (uintptr_t)buf + 100, 200, ODP_LKEY };
	sge[1] = (struct ibv_sge){ (uintptr_t)buf + PAGE, PAGE, ODP_LKEY };
	ret = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			    IBV_ADVISE_MR_FLAG_FLUSH, sge, 2);
	ok(!ret && n_advise == 1 &&
	   sent_header(UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR, 4) &&
	   sent_in(UVERBS_ATTR_ADVISE_MR_PD_HANDLE, 0, pd->handle) &&
	   sent_in(UVERBS_ATTR_ADVISE_MR_ADVICE, 8,
		   IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE) &&
	   sent_in(UVERBS_ATTR_ADVISE_MR_FLAGS, 4, IBV_ADVISE_MR_FLAG_FLUSH) &&
	   sent_in(UVERBS_ATTR_ADVISE_MR_SGE_LIST, sizeof(sge),
		   (uintptr_t)sge),
	   "odp: advise_mr is one ADVISE_MR ioctl: PD handle, advice, flags, the SGE array (ret %d)",
	   ret);
	ok(advised_len == sizeof(sge) && !memcmp(advised, sge, sizeof(sge)),
	   "odp: the SGEs reach the kernel as given");

	for (int advice = IBV_ADVISE_MR_ADVICE_PREFETCH;
	     advice <= IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT; advice++) {
		ret = ibv_advise_mr(pd, advice, 0, sge, 1);
		ok(!ret && sent_in(UVERBS_ATTR_ADVISE_MR_ADVICE, 8, advice) &&
		   sent_in(UVERBS_ATTR_ADVISE_MR_FLAGS, 4, 0) &&
		   advised_len == sizeof(sge[0]),
		   "odp: advice %d without FLUSH goes to the kernel as it is", advice);
	}

	for (unsigned int i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		sent = n_advise;
		advise_err = errs[i];
		ret = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, sge, 2);
		ok(ret == errs[i] && n_advise == sent + 1,
		   "odp: advise_mr returns the kernel's %s", strerror(errs[i]));
	}
	advise_err = 0;

	ok(mr && !ibv_dereg_mr(mr) && last_dereg == ODP_MR_HANDLE,
	   "odp: the region is deregistered like any MR");
}

/*
 * Without a parent domain's allocator, every queue command carries the
 * whole Orca request (24 bytes, since ORCA_QUEUE_REQ_USER_BUF), zeroed:
 * comp_mask 0, no buffer.
 */
static void test_qreq(struct ibv_pd *pd)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 5, .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 4,
			 .max_recv_sge = 4, .max_inline_data = 64 },
	};
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 2 } };
	struct ibv_cq_ex *cqx;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	last_qreq_len = 0;
	cq = ibv_create_cq(ctx, 5, NULL, NULL, 0);
	ok(cq && sent_zero_qreq(),
	   "request: CREATE_CQ carries the whole 24-byte Orca request, zeroed");
	last_qreq_len = 0;
	ok(cq && !ibv_resize_cq(cq, 100) && sent_zero_qreq(),
	   "request: RESIZE_CQ too");
	last_qreq_len = 0;
	cqx = ibv_create_cq_ex(ctx, &ca);
	ok(cqx && last_flags && sent_zero_qreq(),
	   "request: the extended CREATE_CQ too (24 bytes: a multiple of 8)");
	if (cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));

	qa.send_cq = qa.recv_cq = cq;
	last_qreq_len = 0;
	qp = cq ? ibv_create_qp(pd, &qa) : NULL;
	ok(qp && sent_zero_qreq(), "request: CREATE_QP too");
	if (qp)
		ibv_destroy_qp(qp);
	last_qreq_len = 0;
	srq = ibv_create_srq(pd, &sa);
	ok(srq && sent_zero_qreq(), "request: CREATE_SRQ too");
	if (srq)
		ibv_destroy_srq(srq);
	if (cq)
		ibv_destroy_cq(cq);
}

static unsigned int n_alloc_calls;

static void *count_alloc(struct ibv_pd *p, void *pd_context, size_t size,
			 size_t alignment, uint64_t type)
{
	(void)p, (void)pd_context, (void)size, (void)alignment, (void)type;
	n_alloc_calls++;
	return IBV_ALLOCATOR_USE_DEFAULT;
}

static void count_free(struct ibv_pd *p, void *pd_context, void *ptr,
		       uint64_t type)
{
	(void)p, (void)pd_context, (void)ptr, (void)type;
	n_alloc_calls++;
}

/* ibv_alloc_parent_domain with ALLOCATORS on @pdx: errno, or 0 if made. */
static int try_allocators(struct ibv_pd *pdx, bool with_alloc, bool with_free)
{
	struct ibv_parent_domain_init_attr pa = {
		.pd = pdx,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = with_alloc ? count_alloc : NULL,
		.free = with_free ? count_free : NULL,
		.pd_context = &pa,
	};
	struct ibv_pd *p;

	errno = 0;
	p = ibv_alloc_parent_domain(pdx->context, &pa);
	if (!p)
		return errno ? errno : -1;
	return ibv_dealloc_pd(p) ? -1 : 0;
}

/*
 * Custom allocators need the kernel's ORCA_UCTX_RESP_USER_BUF, from
 * ALLOC_UCONTEXT or, for an imported context, QUERY_CONTEXT.
 */
static void test_allocators(struct ibv_device *dev, struct ibv_pd *pd)
{
	struct ibv_context *ctx2 = NULL, *ctx3 = NULL;
	struct ibv_pd *pd2 = NULL, *pd3 = NULL;
	int fd;

	n_alloc_calls = 0;
	ok(try_allocators(pd, true, true) == EOPNOTSUPP,
	   "allocators: EOPNOTSUPP on a context without ORCA_UCTX_RESP_USER_BUF");
	ok(try_allocators(pd, false, false) == EOPNOTSUPP,
	   "allocators: EOPNOTSUPP there without callbacks too");

	uctx_comp_mask = ORCA_UCTX_RESP_USER_BUF | 0x80000000U;
	ctx2 = ibv_open_device(dev);
	pd2 = ctx2 ? ibv_alloc_pd(ctx2) : NULL;
	ok(pd2 != NULL,
	   "allocators: a context whose response has USER_BUF and an unknown bit opens");
	if (!pd2)
		goto out;
	ok(try_allocators(pd2, false, true) == EINVAL,
	   "allocators: without alloc: EINVAL");
	ok(try_allocators(pd2, true, false) == EINVAL,
	   "allocators: without free: EINVAL");
	ok(try_allocators(pd2, true, true) == 0 && !n_alloc_calls,
	   "allocators: with both, on a context with USER_BUF: a parent domain (neither called)");

	/* An imported context takes the bit from QUERY_CONTEXT. */
	fd = dup(ctx2->cmd_fd);
	ctx3 = fd >= 0 ? ibv_import_device(fd) : NULL;
	pd3 = ctx3 ? ibv_alloc_pd(ctx3) : NULL;
	ok(pd3 && try_allocators(pd3, true, true) == 0,
	   "allocators: on a context imported with USER_BUF in QUERY_CONTEXT's answer: accepted");
	if (pd3)
		ibv_dealloc_pd(pd3);
	if (ctx3)
		ibv_close_device(ctx3);
	uctx_comp_mask = 0;
	fd = dup(ctx2->cmd_fd);
	ctx3 = fd >= 0 ? ibv_import_device(fd) : NULL;
	pd3 = ctx3 ? ibv_alloc_pd(ctx3) : NULL;
	ok(pd3 && try_allocators(pd3, true, true) == EOPNOTSUPP,
	   "allocators: on a context imported without it: EOPNOTSUPP");
	if (pd3)
		ibv_dealloc_pd(pd3);
	if (ctx3)
		ibv_close_device(ctx3);
out:
	uctx_comp_mask = 0;
	if (pd2)
		ibv_dealloc_pd(pd2);
	if (ctx2)
		ibv_close_device(ctx2);
}

int main(void)
{
	struct ibv_qp_init_attr qattr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 4,
			 .max_recv_sge = 4, .max_inline_data = 64 },
	};
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 16, .max_sge = 2 } };
	struct ibv_ah_attr aattr = { .is_global = 1, .port_num = 1 };
	static const struct {
		enum defect d;
		const char *what;
	} cq_cases[] = {
		{ D_CQ_COMP_MASK, "cq: unknown comp_mask" },
		{ D_CQ_DEPTH, "cq: depth not a power of two" },
		{ D_CQ_CQE_SIZE, "cq: CQE size 64, not asked for" },
		{ D_CQ_CQE_48, "cq: CQE size 48" },
		{ D_CQ_DB_OUTSIDE, "cq: doorbell record outside the mapping" },
		{ D_CQ_MMAP_LEN, "cq: mapping length not page granular" },
		{ D_CQ_SMALL, "cq: ring smaller than the reported cqe" },
	}, qp_cases[] = {
		{ D_QP_COMP_MASK, "qp: unknown comp_mask" },
		{ D_QP_QPN, "qp: qpn differs from the core response" },
		{ D_QP_SQ_STRIDE, "qp: send stride not a power of two" },
		{ D_QP_RQ_DEPTH, "qp: receive ring smaller than max_recv_wr" },
		{ D_QP_OVERLAP, "qp: receive ring overlaps the send ring" },
		{ D_QP_INLINE, "qp: max_inline_data beyond max_inline" },
	};
	struct ibv_device **list;
	struct ibv_srq *srq;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	unsigned int i;
	int nmaps;

	list = ibv_get_device_list(NULL);
	if (!list || !list[0] || strcmp(ibv_get_device_name(list[0]), "orca0")) {
		printf("Bail out! no orca0\n");
		return 1;
	}
	ctx = ibv_open_device(list[0]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	if (!pd) {
		printf("Bail out! open/alloc_pd: %s\n", strerror(errno));
		return 1;
	}

	cq = ibv_create_cq(ctx, 5, NULL, NULL, 0);
	ok(cq && cq->cqe == 8 && live_maps == 1, "cq: well-formed response accepted and mapped");
	for (i = 0; i < sizeof(cq_cases) / sizeof(cq_cases[0]); i++) {
		defect = cq_cases[i].d;
		EXPECT_REFUSED(ibv_create_cq(ctx, 5, NULL, NULL, 0),
			       IB_USER_VERBS_CMD_DESTROY_CQ, cq_cases[i].what);
	}
	defect = D_NONE;
	test_cq_ts();
	ok(cq && !ibv_resize_cq(cq, 100) && cq->cqe == 128 && live_maps == 1,
	   "cq: resize remaps, old mapping released");
	defect = D_CQ_DEPTH;
	ok(cq && ibv_resize_cq(cq, 200) == EPROTO && cq->cqe == 128 && live_maps == 1,
	   "cq: bad resize response refused, CQ keeps its mapping");
	defect = D_NONE;

	qattr.send_cq = qattr.recv_cq = cq;
	qp = ibv_create_qp(pd, &qattr);
	ok(qp && live_maps == 2 && qattr.cap.max_inline_data == 64,
	   "qp: well-formed response accepted and mapped");
	ok(qp && !ibv_destroy_qp(qp) && live_maps == 1, "qp: destroy unmaps");
	for (i = 0; i < sizeof(qp_cases) / sizeof(qp_cases[0]); i++) {
		defect = qp_cases[i].d;
		EXPECT_REFUSED(ibv_create_qp(pd, &qattr),
			       IB_USER_VERBS_CMD_DESTROY_QP, qp_cases[i].what);
	}
	defect = D_NONE;

	srq = ibv_create_srq(pd, &sattr);
	ok(srq && live_maps == 2, "srq: well-formed response accepted and mapped");
	defect = D_QP_SRQ_RQ;
	qattr.srq = srq;
	EXPECT_REFUSED(ibv_create_qp(pd, &qattr), IB_USER_VERBS_CMD_DESTROY_QP,
		       "qp: receive ring with an SRQ");
	defect = D_SRQ_STRIDE;
	EXPECT_REFUSED(ibv_create_srq(pd, &sattr), IB_USER_VERBS_CMD_DESTROY_SRQ,
		       "srq: stride too small");
	defect = D_SRQ_SRQN;
	EXPECT_REFUSED(ibv_create_srq(pd, &sattr), IB_USER_VERBS_CMD_DESTROY_SRQ,
		       "srq: srqn 0");
	defect = D_NONE;
	nmaps = live_maps;
	ok(srq && !ibv_destroy_srq(srq) && live_maps == nmaps - 1, "srq: destroy unmaps");

	ah = ibv_create_ah(pd, &aattr);
	ok(ah && !ibv_destroy_ah(ah), "ah: well-formed response accepted");
	defect = D_AH_RSVD;
	EXPECT_REFUSED(ibv_create_ah(pd, &aattr), IB_USER_VERBS_CMD_DESTROY_AH,
		       "ah: reserved field set in the response");
	defect = D_NONE;

	test_xrc(pd, cq);
	test_dm(list[0], pd);
	test_odp(pd);
	test_qreq(pd);
	test_allocators(list[0], pd);

	ok(cq && !ibv_destroy_cq(cq) && live_maps == 0, "cq: destroy unmaps");
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("1..%d\n", n_test);
	return n_fail ? 1 : 0;
}
