// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * liborca: control path verbs.  Each is one uverbs command; Orca adds
 * udata only where orca-abi.h defines some.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orca.h"

/* The ALLOC_PD response with its Orca udata. */
struct orca_alloc_pd_cmd_resp {
	struct ib_uverbs_alloc_pd_resp ibv;
	struct orca_alloc_pd_resp drv;
};

_Static_assert(offsetof(struct orca_alloc_pd_cmd_resp, drv) ==
	       sizeof(struct ib_uverbs_alloc_pd_resp),
	       "udata response must follow the core response");

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

int orca_dealloc_pd(struct ibv_pd *ibpd)
{
	struct orca_pd *pd = to_opd(ibpd);
	int err;

	err = ibv_cmd_dealloc_pd(ibpd);
	if (err)
		return err;

	free(pd);
	return 0;
}
