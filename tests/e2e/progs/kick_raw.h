/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The zero-WR uverbs POST_SEND command, written to a context's command
 * fd by hand: the kick of a provider without Orca's QP kick method
 * (uapi/rdma/orca-abi.h), and, for a handle that names nothing, the
 * cost of uverbs' dispatch alone (tests/bench/msg_cost.c).
 */
#ifndef ORCA_E2E_KICK_RAW_H
#define ORCA_E2E_KICK_RAW_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

/* POST_SEND with no WR for QP handle @handle on @fd; 0 or errno. */
static inline int kick_post_send_raw(int fd, uint32_t handle)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send c;
	} req;
	struct ib_uverbs_post_send_resp resp;

	memset(&req, 0, sizeof(req));
	req.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.c.response = (uintptr_t)&resp;
	req.c.qp_handle = handle;
	req.c.wqe_size = sizeof(struct ib_uverbs_send_wr);
	if (write(fd, &req, sizeof(req)) == (ssize_t)sizeof(req))
		return 0;
	return errno;
}

#endif /* ORCA_E2E_KICK_RAW_H */
