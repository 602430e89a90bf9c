/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * liborca: the libibverbs provider for the Orca HCA.
 */
#ifndef ORCA_PROVIDER_H
#define ORCA_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#include "verbs_abi.h"
#include <rdma/orca-abi.h>

#define ORCA_PROVIDER_NAME	"orca"

#define orca_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

struct orca_device {
	struct verbs_device vdev;
};

struct orca_context {
	struct verbs_context vctx;
	uint32_t hw_version;		/* the device's ORCA_REG_VERSION */
};

struct orca_pd {
	struct ibv_pd ibv_pd;
	uint32_t pdn;
};

static inline struct orca_context *to_octx(struct ibv_context *ibctx)
{
	return orca_container_of(ibctx, struct orca_context, vctx.context);
}

static inline struct orca_pd *to_opd(struct ibv_pd *ibpd)
{
	return orca_container_of(ibpd, struct orca_pd, ibv_pd);
}

/*
 * Diagnostics go through libibverbs' log (VERBS_LOG_LEVEL, VERBS_LOG_FILE).
 * Its logger does not look at the context, so these are usable before
 * one exists.
 */
#define orca_log(level, fmt, ...) \
	__verbs_log(NULL, level, "liborca: %s: " fmt, __func__, ##__VA_ARGS__)
#define orca_err(fmt, ...)	orca_log(VERBS_LOG_ERR, fmt, ##__VA_ARGS__)
#define orca_info(fmt, ...)	orca_log(VERBS_LOG_INFO, fmt, ##__VA_ARGS__)
#define orca_dbg(fmt, ...)	orca_log(VERBS_LOG_DEBUG, fmt, ##__VA_ARGS__)

/* verbs.c */
int orca_query_device_ex(struct ibv_context *ibctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int orca_query_port(struct ibv_context *ibctx, uint8_t port_num,
		    struct ibv_port_attr *port_attr);
struct ibv_pd *orca_alloc_pd(struct ibv_context *ibctx);
int orca_dealloc_pd(struct ibv_pd *ibpd);

#endif /* ORCA_PROVIDER_H */
