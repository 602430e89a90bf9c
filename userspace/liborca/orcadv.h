/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * orcadv.h: what liborca, the libibverbs provider for the Orca HCA,
 * offers applications beyond the verbs API.
 *
 * Custom allocators of a parent domain (ibv_alloc_parent_domain(3) with
 * IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS).  When the kernel driver takes
 * queue rings in the process's own memory, liborca calls the parent
 * domain's alloc() for the rings of every CQ, QP and SRQ created through
 * it (a CQ again at each ibv_resize_cq()):
 *
 *	alloc(&parent_domain, pd_context, size, alignment, resource_type)
 *
 * size is the exact byte count of the object's rings, a whole number of
 * pages; alignment is the system page size, which the returned pointer
 * must honour (a misaligned one is given back to free() and the verb
 * fails with EINVAL); resource_type is one of the values below.  alloc()
 * may return IBV_ALLOCATOR_USE_DEFAULT, and the kernel allocates that
 * object's rings as it does without a parent domain; NULL fails the verb
 * with ENOMEM.  liborca zeroes the buffer (pages already zero are not
 * written), and the kernel pins it, against RLIMIT_MEMLOCK, until the
 * object is destroyed: it must stay allocated until then, and be memory
 * the process may write (the verb fails with EFAULT otherwise).
 *
 *	free(&parent_domain, pd_context, ptr, resource_type)
 *
 * gives back each buffer alloc() returned, with the same resource type,
 * exactly once: when the object is destroyed (after the kernel let go of
 * it), when its create fails, or, for a CQ's old ring, when a resize
 * succeeded (its new ring if the resize failed).
 *
 * Doorbell records are never allocated through the parent domain: they
 * live in a page the kernel maps into the process for each object.
 */
#ifndef ORCADV_H
#define ORCADV_H

#include <stdint.h>

/* Set in every resource type that liborca defines. */
#define ORCADV_RES_TYPE_PROVIDER	((uint64_t)1 << 63)

/* A QP's send ring, then its receive ring (none with an SRQ, XRC_SEND). */
#define ORCADV_RES_TYPE_QP		(ORCADV_RES_TYPE_PROVIDER | 1)
/* An SRQ's ring, basic or XRC. */
#define ORCADV_RES_TYPE_SRQ		(ORCADV_RES_TYPE_PROVIDER | 2)
/* A CQ's ring of entries (32 bytes each, 64 with completion timestamps). */
#define ORCADV_RES_TYPE_CQ		(ORCADV_RES_TYPE_PROVIDER | 3)

#endif /* ORCADV_H */
