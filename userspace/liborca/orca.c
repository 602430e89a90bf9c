// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * liborca: device matching, device and context lifetime.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "orca.h"

/*
 * orca.ko's ib_device hangs off the auxiliary device "orca_soft.hca.<N>"
 * that orca_soft creates; the auxiliary bus reports its modalias as the
 * device name without the instance suffix.  A PCI binding would add its
 * own entry here.  The kernel registers with RDMA_DRIVER_UNKNOWN, so no
 * driver id entry can match.
 */
#define ORCA_AUX_MODALIAS	"auxiliary:orca_soft.hca"

static const struct verbs_match_ent orca_match_table[] = {
	{
		.u.modalias = ORCA_AUX_MODALIAS,
		.kind = VERBS_MATCH_MODALIAS,
	},
	{ .kind = VERBS_MATCH_SENTINEL },
};

static void orca_free_context(struct ibv_context *ibctx);

/*
 * The control path goes through uverbs commands; the data path (post,
 * poll, arm) works on the mapped rings and makes no system call unless
 * the device asks for a kick (datapath.c).  Ops left out keep
 * libibverbs' stubs, which fail with EOPNOTSUPP (import_pd and
 * import_mr among them).
 */
static const struct verbs_context_ops orca_ctx_ops = {
	/*
	 * ibv_advise_mr(3) on on-demand-paging MRs: orca.ko checks the
	 * advice, the flags and every SGE, and maps the pages before it
	 * answers, with IBV_ADVISE_MR_FLAG_FLUSH or without.
	 */
	.advise_mr = ibv_cmd_advise_mr,
	.alloc_dm = orca_alloc_dm,
	.alloc_mw = orca_alloc_mw,
	.alloc_parent_domain = orca_alloc_parent_domain,
	.alloc_pd = orca_alloc_pd,
	.alloc_td = orca_alloc_td,
	.attach_mcast = ibv_cmd_attach_mcast,
	.bind_mw = orca_bind_mw,
	.close_xrcd = orca_close_xrcd,
	.create_ah = orca_create_ah,
	.create_cq = orca_create_cq,
	.create_cq_ex = orca_create_cq_ex,
	.create_qp = orca_create_qp,
	.create_qp_ex = orca_create_qp_ex,
	.cq_event = orca_cq_event,
	.create_srq = orca_create_srq,
	.create_srq_ex = orca_create_srq_ex,
	.dealloc_mw = orca_dealloc_mw,
	.dealloc_pd = orca_dealloc_pd,
	.dealloc_td = orca_dealloc_td,
	.dereg_mr = orca_dereg_mr,
	.destroy_ah = orca_destroy_ah,
	.destroy_cq = orca_destroy_cq,
	.destroy_qp = orca_destroy_qp,
	.destroy_srq = orca_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = orca_free_context,
	.free_dm = orca_free_dm,
	.get_srq_num = orca_get_srq_num,
	.import_dm = orca_import_dm,
	.modify_qp = orca_modify_qp,
	.modify_srq = orca_modify_srq,
	.open_qp = orca_open_qp,
	.open_xrcd = orca_open_xrcd,
	.poll_cq = orca_poll_cq,
	.post_recv = orca_post_recv,
	.post_send = orca_post_send,
	.post_srq_recv = orca_post_srq_recv,
	.query_device_ex = orca_query_device_ex,
	.query_port = orca_query_port,
	.query_qp = orca_query_qp,
	.query_rt_values = orca_query_rt_values,
	.query_srq = orca_query_srq,
	.reg_dm_mr = orca_reg_dm_mr,
	.reg_mr = orca_reg_mr,
	.req_notify_cq = orca_req_notify_cq,
	.rereg_mr = orca_rereg_mr,
	.resize_cq = orca_resize_cq,
	.unimport_dm = orca_unimport_dm,
};

/* The ALLOC_UCONTEXT command and response with their Orca udata. */
struct orca_get_context_cmd {
	struct ibv_get_context ibv;
	struct orca_alloc_ucontext_req drv;
};

struct orca_get_context_resp {
	struct ib_uverbs_get_context_resp ibv;
	struct orca_alloc_ucontext_resp drv;
};

_Static_assert(offsetof(struct orca_get_context_cmd, drv) ==
	       sizeof(struct ibv_get_context),
	       "udata request must follow the core request");
_Static_assert(offsetof(struct orca_get_context_resp, drv) ==
	       sizeof(struct ib_uverbs_get_context_resp),
	       "udata response must follow the core response");

/*
 * The auxiliary bus has no modalias attribute in sysfs, so libibverbs'
 * own lookup of device/modalias finds nothing for it.  The bus does put
 * MODALIAS= in the device's uevent, which sysfs shows; match on that.
 */
static const struct verbs_match_ent *
orca_match_uevent(struct verbs_sysfs_dev *sysfs_dev)
{
	const struct verbs_match_ent *ent;
	char buf[1024];
	char *line, *next;

	if (ibv_read_ibdev_sysfs_file(buf, sizeof(buf), sysfs_dev,
				      "device/uevent") <= 0)
		return NULL;

	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "MODALIAS=", 9))
			continue;
		for (ent = orca_match_table;
		     ent->kind != VERBS_MATCH_SENTINEL; ent++) {
			if (ent->kind == VERBS_MATCH_MODALIAS &&
			    !fnmatch(ent->u.modalias, line + 9, 0))
				return ent;
		}
	}
	return NULL;
}

static bool orca_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	if (!sysfs_dev->match)
		sysfs_dev->match = orca_match_uevent(sysfs_dev);
	if (!sysfs_dev->match)
		return false;

	orca_info("%s matches (uverbs abi %u)\n", sysfs_dev->ibdev_name,
		  sysfs_dev->abi_ver);
	return true;
}

static struct verbs_device *orca_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct orca_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	orca_dbg("%s\n", sysfs_dev->ibdev_name);
	return &dev->vdev;
}

static void orca_uninit_device(struct verbs_device *vdev)
{
	free(orca_container_of(vdev, struct orca_device, vdev));
}

static void orca_free_context(struct ibv_context *ibctx)
{
	struct orca_context *ctx = to_octx(ibctx);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

/*
 * What a new context takes from the ALLOC_UCONTEXT response (or, for an
 * imported one, QUERY_CONTEXT's copy of it): 0, or EPROTO for an ABI
 * this library does not speak.  The response's comp_mask lists what the
 * kernel offers: ORCA_UCTX_RESP_USER_BUF, rings in the process's memory
 * (which parent domains' allocators need, verbs.c); ORCA_UCTX_RESP_QP_KICK,
 * the QP kick method, which the kicks use unless ORCA_KICK=post_send
 * asks for the uverbs POST_SEND and POST_RECV commands (orca(7)).  A bit
 * this library does not know is an offer it does not take, not an error.
 */
static int orca_context_setup(struct orca_context *ctx,
			      const struct orca_alloc_ucontext_resp *drv)
{
	struct ibv_device *ibdev = ctx->vctx.context.device;
	const char *kick;

	if (drv->abi_version != ORCA_UVERBS_ABI_VERSION) {
		fprintf(stderr,
			"liborca: %s: kernel driver speaks Orca ABI %u, this library speaks %u; refusing the device\n",
			ibdev->name, drv->abi_version,
			ORCA_UVERBS_ABI_VERSION);
		return EPROTO;
	}
	ctx->hw_version = drv->hw_version;
	ctx->page_size = sysconf(_SC_PAGESIZE);
	ctx->user_buf = drv->comp_mask & ORCA_UCTX_RESP_USER_BUF;
	kick = getenv("ORCA_KICK");
	ctx->qp_kick = (drv->comp_mask & ORCA_UCTX_RESP_QP_KICK) &&
		       !(kick && !strcmp(kick, "post_send"));
	if (drv->comp_mask & ~(ORCA_UCTX_RESP_USER_BUF |
			       ORCA_UCTX_RESP_QP_KICK))
		orca_dbg("%s: context comp_mask 0x%x, unknown bits ignored\n",
			 ibdev->name, drv->comp_mask);

	verbs_set_ops(&ctx->vctx, &orca_ctx_ops);
	return 0;
}

static struct verbs_context *orca_alloc_context(struct ibv_device *ibdev,
						int cmd_fd, void *private_data)
{
	struct orca_get_context_resp resp = {};
	struct orca_get_context_cmd cmd = {};
	struct orca_context *ctx;
	int err;

	/* Owns cmd_fd from here on, including on failure. */
	ctx = _verbs_init_and_alloc_context(ibdev, cmd_fd, sizeof(*ctx),
					    &((struct orca_context *)NULL)->vctx,
					    ORCA_DRIVER_ID);
	if (!ctx)
		return NULL;

	err = ibv_cmd_get_context(&ctx->vctx, &cmd.ibv, sizeof(cmd),
				  &resp.ibv, sizeof(resp));
	if (err) {
		orca_err("%s: ALLOC_UCONTEXT failed: %s\n", ibdev->name,
			 strerror(err));
		goto err_uninit;
	}

	err = orca_context_setup(ctx, &resp.drv);
	if (err)
		goto err_uninit;

	orca_dbg("%s: context open, hw version 0x%x%s\n", ibdev->name,
		 ctx->hw_version,
		 ctx->user_buf ? ", rings in process memory offered" : "");
	return &ctx->vctx;

err_uninit:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	errno = err;
	return NULL;
}

/*
 * UVERBS_METHOD_QUERY_CONTEXT, sent by orca_ioctl() (verbs.c): the two
 * core attributes libibverbs' ibv_cmd_query_context() sends, and Orca's
 * mandatory driver attribute with the ALLOC_UCONTEXT response.
 */
enum {
	ORCA_QCTX_ATTR_COMP_VECTORS,	/* u32 out */
	ORCA_QCTX_ATTR_CORE_SUPPORT,	/* u64 out */
	ORCA_QCTX_ATTR_DRV,		/* struct orca_alloc_ucontext_resp out */
	ORCA_QCTX_NUM_ATTRS,
};

static int orca_cmd_query_context(struct orca_context *ctx,
				  struct orca_alloc_ucontext_resp *drv)
{
	struct ibv_context *ibctx = &ctx->vctx.context;
	/* The kernel writes through the pointers: start defined. */
	uint32_t comp_vectors = 0;
	uint64_t core_support = 0;
	struct ib_uverbs_attr attrs[ORCA_QCTX_NUM_ATTRS] = {
		[ORCA_QCTX_ATTR_COMP_VECTORS] = {
			.attr_id = UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
			.len = sizeof(comp_vectors),
			.flags = UVERBS_ATTR_F_MANDATORY,
			.data = (uintptr_t)&comp_vectors,
		},
		[ORCA_QCTX_ATTR_CORE_SUPPORT] = {
			.attr_id = UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT,
			.len = sizeof(core_support),
			.flags = UVERBS_ATTR_F_MANDATORY,
			.data = (uintptr_t)&core_support,
		},
		[ORCA_QCTX_ATTR_DRV] = {
			.attr_id = ORCA_IB_ATTR_QUERY_CONTEXT_RESP,
			.len = sizeof(*drv),
			.flags = UVERBS_ATTR_F_MANDATORY,
			.data = (uintptr_t)drv,
		},
	};
	int err;

	err = orca_ioctl(ibctx, UVERBS_OBJECT_DEVICE,
			 UVERBS_METHOD_QUERY_CONTEXT, attrs, ORCA_QCTX_NUM_ATTRS);
	if (err)
		return err;
	ibctx->num_comp_vectors = comp_vectors;
	/* As ibv_cmd_query_context() does. */
	orca_container_of(ibctx->device, struct verbs_device,
			  device)->core_support = core_support;
	return 0;
}

/*
 * ibv_import_device(3): a context on the ucontext that @cmd_fd (a dup
 * of another context's, or one passed from another process) already
 * has; it owns @cmd_fd from here on.  Every object of that ucontext is
 * reachable through it by handle (ibv_import_dm(3)); the objects it
 * creates itself are the ucontext's too.
 */
static struct verbs_context *orca_import_context(struct ibv_device *ibdev,
						 int cmd_fd)
{
	struct orca_alloc_ucontext_resp drv = {};
	struct orca_context *ctx;
	int err;

	ctx = _verbs_init_and_alloc_context(ibdev, cmd_fd, sizeof(*ctx),
					    &((struct orca_context *)NULL)->vctx,
					    ORCA_DRIVER_ID);
	if (!ctx)
		return NULL;

	err = orca_cmd_query_context(ctx, &drv);
	if (err) {
		orca_err("%s: QUERY_CONTEXT failed: %s\n", ibdev->name,
			 strerror(err));
		goto err_uninit;
	}
	err = orca_context_setup(ctx, &drv);
	if (err)
		goto err_uninit;

	orca_dbg("%s: context imported, hw version 0x%x%s\n", ibdev->name,
		 ctx->hw_version,
		 ctx->user_buf ? ", rings in process memory offered" : "");
	return &ctx->vctx;

err_uninit:
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	errno = err;
	return NULL;
}

static const struct verbs_device_ops orca_dev_ops = {
	.name = ORCA_PROVIDER_NAME,
	.match_min_abi_version = ORCA_UVERBS_ABI_VERSION,
	.match_max_abi_version = ORCA_UVERBS_ABI_VERSION,
	.match_table = orca_match_table,
	.match_device = orca_match_device,
	.alloc_device = orca_alloc_device,
	.uninit_device = orca_uninit_device,
	.alloc_context = orca_alloc_context,
	.import_context = orca_import_context,
};

/* libibverbs dlopen()s the provider; registration happens at load. */
static void __attribute__((constructor)) orca_register(void)
{
	verbs_register_driver_34(&orca_dev_ops);
	orca_info("provider registered (private ABI %d)\n",
		  ORCA_VERBS_PABI_VERSION);
}
