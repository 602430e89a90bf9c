/* SPDX-License-Identifier: ((GPL-2.0-only WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * Orca HCA: the ABI between orca.ko and its userspace provider, liborca.
 *
 * Everything here crosses the user/kernel boundary: the udata carried by
 * the uverbs commands, and (as the data path lands) the formats that
 * userspace writes into or reads from the rings it maps.  All multi-byte
 * fields of shared memory formats are little-endian.
 *
 * Rules for every udata struct below:
 *  - the kernel rejects a request shorter than the struct it expects;
 *  - every reserved field must be zero, and comp_mask may only carry bits
 *    defined here, otherwise the command fails with EINVAL;
 *  - responses are written up to the length userspace offered.
 */
#ifndef ORCA_ABI_USER_H
#define ORCA_ABI_USER_H

#include <linux/types.h>

/* Bumped on any incompatible change; the provider refuses other versions. */
#define ORCA_UVERBS_ABI_VERSION 1

/* ALLOC_UCONTEXT */
struct orca_alloc_ucontext_req {
	__u32 comp_mask;	/* no bits defined yet */
	__u32 reserved;
};

struct orca_alloc_ucontext_resp {
	__u32 comp_mask;	/* no bits defined yet */
	__u32 abi_version;	/* ORCA_UVERBS_ABI_VERSION */
	__u32 hw_version;	/* device ORCA_REG_VERSION */
	__u32 reserved;
};

/* ALLOC_PD */
struct orca_alloc_pd_resp {
	__u32 comp_mask;	/* no bits defined yet */
	__u32 pdn;		/* device PD number */
};

#endif /* ORCA_ABI_USER_H */
