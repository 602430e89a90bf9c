/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared helpers of the completion-event and async-event tests
 * (progs/ev_*.c, tests/e2e/2??-ev-*.t).  Header-only, on top of e2e_tap.h.
 *
 * The tests are written against the verbs man pages, not against Orca:
 * they must pass on any provider that follows them (they are checked on
 * rxe as well as on orca0).  Everything here is plain libibverbs:
 *   - options: -d DEVICE (required), -g GID_INDEX (default: picked, see
 *     ev_pick_gid), -n COUNT, -m MODE, -w WAIT_MS (how long an expected
 *     event or completion may take before it counts as missing, default
 *     30000), -q QUIET_MS (how long the channel must stay silent to show
 *     that no event is pending, default 1000);
 *   - one context, one PD, one registered buffer;
 *   - RC QPs of that context connected to each other through the port's
 *     own GID (loopback), brought to RTS;
 *   - a send/receive pair that produces one completion on each side;
 *   - waits on a completion channel or the async fd that never hang:
 *     poll() with a time limit, then the blocking verbs call.
 *
 * An expected event that does not come within WAIT_MS is a failure, not a
 * hang.  An event that must not come is shown absent by QUIET_MS of
 * silence on the fd; a slow machine can only make that check weaker
 * (a late stray event is missed), never make a correct provider fail.
 */
#ifndef ORCA_E2E_EV_COMMON_H
#define ORCA_E2E_EV_COMMON_H

#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "e2e_tap.h"

/*
 * e2e_tap.h's tap_start() (its unused attribute lands on the return type)
 * is not used here: -d parsing replaces it.  Referencing it keeps
 * -Werror=unused-function quiet.
 */
static struct ibv_context *(*const ev_tap_start_ref)(int, char **)
	__attribute__((unused)) = tap_start;

#define EV_BUF_SIZE	(1 << 20)
#define EV_MSG_SIZE	64

static const char *ev_dev_name;
static int ev_gid_opt = -1;
static long ev_count = -1;
static const char *ev_mode;
static int ev_wait_ms = 30000;
static int ev_quiet_ms = 1000;
/* max_dest_rd_atomic for the next ev_connect() calls; -1: the device's (up to 4). */
static int ev_dest_rd_atomic = -1;

struct ev_dev {
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_port_attr pattr;
	uint8_t port;
	int gid_index;
	union ibv_gid gid;
	struct ibv_pd *pd;
	char *buf;
	struct ibv_mr *mr;
};

static void __attribute__((unused)) ev_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s -d DEVICE [-g GID_INDEX] [-n COUNT] [-m MODE] [-w WAIT_MS] [-q QUIET_MS]\n",
		prog);
	exit(2);
}

static void __attribute__((unused)) ev_parse(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "d:g:n:m:w:q:")) != -1) {
		switch (opt) {
		case 'd':
			ev_dev_name = optarg;
			break;
		case 'g':
			ev_gid_opt = atoi(optarg);
			break;
		case 'n':
			ev_count = atol(optarg);
			break;
		case 'm':
			ev_mode = optarg;
			break;
		case 'w':
			ev_wait_ms = atoi(optarg);
			break;
		case 'q':
			ev_quiet_ms = atoi(optarg);
			break;
		default:
			ev_usage(argv[0]);
		}
	}
	if (!ev_dev_name || optind != argc)
		ev_usage(argv[0]);
}

static long long __attribute__((unused)) ev_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* Stop at once: the rest of the program depends on what just failed. */
static void __attribute__((unused)) ev_bail(const char *what)
{
	ok(0, "%s", what);
	exit(tap_end());
}

/*
 * The GID the loopback connections use: -g if given, else the first
 * RoCEv2 GID holding an IPv4-mapped address, else the first RoCEv2 GID,
 * else the first non-zero GID of the port.
 */
static int ev_pick_gid(struct ev_dev *d)
{
	int i, best = -1, rank = 0;

	if (ev_gid_opt >= 0) {
		d->gid_index = ev_gid_opt;
		return ibv_query_gid(d->ctx, d->port, ev_gid_opt, &d->gid);
	}
	for (i = 0; i < d->pattr.gid_tbl_len; i++) {
		struct ibv_gid_entry ent;
		static const uint8_t v4pfx[12] = { [10] = 0xff, [11] = 0xff };
		int r;

		if (ibv_query_gid_ex(d->ctx, d->port, i, &ent, 0))
			continue;
		if (!ent.gid.global.interface_id && !ent.gid.global.subnet_prefix)
			continue;
		r = 1;
		if (ent.gid_type == IBV_GID_TYPE_ROCE_V2) {
			r = 2;
			if (!memcmp(ent.gid.raw, v4pfx, sizeof(v4pfx)))
				r = 3;
		}
		if (r > rank) {
			rank = r;
			best = i;
			d->gid = ent.gid;
		}
	}
	d->gid_index = best;
	return best < 0 ? -1 : 0;
}

/*
 * Open -d DEVICE, port 1, pick the GID, allocate a PD and register a
 * buffer with every access right.  Each step is a test point; a failure
 * ends the program (nothing else can run).
 */
static void __attribute__((unused)) ev_open(struct ev_dev *d)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ;

	memset(d, 0, sizeof(*d));
	d->port = 1;
	d->ctx = open_by_name(ev_dev_name);
	if (!d->ctx) {
		diag("ibv_open_device(%s): %s", ev_dev_name, strerror(errno));
		ev_bail("open the device");
	}
	if (ibv_query_device(d->ctx, &d->attr) ||
	    ibv_query_port(d->ctx, d->port, &d->pattr))
		ev_bail("query the device and port 1");
	if (d->pattr.state != IBV_PORT_ACTIVE)
		diag("port 1 is %s, not ACTIVE", ibv_port_state_str(d->pattr.state));
	if (ev_pick_gid(d))
		ev_bail("port 1 has a usable GID");
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		ev_bail("allocate a PD");
	d->buf = calloc(1, EV_BUF_SIZE);
	if (!d->buf)
		ev_bail("allocate the buffer");
	if (d->attr.atomic_cap != IBV_ATOMIC_NONE)
		acc |= IBV_ACCESS_REMOTE_ATOMIC;
	d->mr = ibv_reg_mr(d->pd, d->buf, EV_BUF_SIZE, acc);
	if (!d->mr) {
		diag("ibv_reg_mr: %s", strerror(errno));
		ev_bail("register the buffer");
	}
}

static void __attribute__((unused)) ev_close(struct ev_dev *d)
{
	if (d->mr)
		ibv_dereg_mr(d->mr);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	free(d->buf);
}

/* An RC QP in RESET; depth is both max_send_wr and max_recv_wr. */
static __attribute__((unused)) struct ibv_qp *
ev_create_rc(struct ev_dev *d, struct ibv_cq *scq, struct ibv_cq *rcq,
	     struct ibv_srq *srq, int depth)
{
	struct ibv_qp_init_attr init = {
		.send_cq = scq, .recv_cq = rcq, .srq = srq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = depth, .max_recv_wr = srq ? 0 : depth,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &init);

	if (!qp)
		diag("ibv_create_qp(RC, depth %d): %s", depth, strerror(errno));
	return qp;
}

/* RESET -> INIT -> RTR -> RTS, connected to remote_qpn on this port. */
static int __attribute__((unused))
ev_connect(struct ev_dev *d, struct ibv_qp *qp, uint32_t remote_qpn)
{
	int rd = d->attr.max_qp_rd_atom < 4 ? d->attr.max_qp_rd_atom : 4;
	int ird = d->attr.max_qp_init_rd_atom < 4 ? d->attr.max_qp_init_rd_atom : 4;
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = d->port;
	a.pkey_index = 0;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (d->attr.atomic_cap != IBV_ATOMIC_NONE)
		a.qp_access_flags |= IBV_ACCESS_REMOTE_ATOMIC;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret) {
		diag("modify QP %u to INIT: %s", qp->qp_num, strerror(ret));
		return ret;
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = d->pattr.active_mtu;
	a.dest_qp_num = remote_qpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = ev_dest_rd_atomic >= 0 ? ev_dest_rd_atomic : rd;
	a.min_rnr_timer = 1;
	a.ah_attr.port_num = d->port;
	if (d->pattr.link_layer == IBV_LINK_LAYER_INFINIBAND) {
		a.ah_attr.dlid = d->pattr.lid;
	} else {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = d->gid;
		a.ah_attr.grh.sgid_index = d->gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret) {
		diag("modify QP %u to RTR: %s", qp->qp_num, strerror(ret));
		return ret;
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = ird;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		diag("modify QP %u to RTS: %s", qp->qp_num, strerror(ret));
	return ret;
}

/*
 * Two RC QPs of this context connected to each other, in RTS.  a sends
 * to b.  Returns 0, or -1 after a diagnostic.
 */
static int __attribute__((unused))
ev_pair(struct ev_dev *d, struct ibv_qp **a, struct ibv_qp **b,
	struct ibv_cq *a_scq, struct ibv_cq *a_rcq,
	struct ibv_cq *b_scq, struct ibv_cq *b_rcq,
	struct ibv_srq *b_srq, int depth)
{
	*a = ev_create_rc(d, a_scq, a_rcq, NULL, depth);
	*b = ev_create_rc(d, b_scq, b_rcq, b_srq, depth);
	if (!*a || !*b)
		return -1;
	if (ev_connect(d, *a, (*b)->qp_num) || ev_connect(d, *b, (*a)->qp_num))
		return -1;
	return 0;
}

static int __attribute__((unused))
ev_post_recv(struct ev_dev *d, struct ibv_qp *qp, size_t off, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)d->buf + off, .length = EV_MSG_SIZE,
		.lkey = d->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int ret = ibv_post_recv(qp, &wr, &bad);

	if (ret)
		diag("ibv_post_recv(QP %u): %s", qp->qp_num, strerror(ret));
	return ret;
}

static int __attribute__((unused))
ev_post_srq_recv(struct ev_dev *d, struct ibv_srq *srq, size_t off,
		 uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)d->buf + off, .length = EV_MSG_SIZE,
		.lkey = d->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int ret = ibv_post_srq_recv(srq, &wr, &bad);

	if (ret)
		diag("ibv_post_srq_recv: %s", strerror(ret));
	return ret;
}

/* One signalled SEND of EV_MSG_SIZE bytes from buf + off; flags extra. */
static int __attribute__((unused))
ev_post_send(struct ev_dev *d, struct ibv_qp *qp, size_t off, uint64_t wr_id,
	     unsigned int flags)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)d->buf + off, .length = EV_MSG_SIZE,
		.lkey = d->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED | flags,
	};
	struct ibv_send_wr *bad;
	int ret = ibv_post_send(qp, &wr, &bad);

	if (ret)
		diag("ibv_post_send(QP %u): %s", qp->qp_num, strerror(ret));
	return ret;
}

/* Receive on b, then send from a: one completion on each side. */
static int __attribute__((unused))
ev_send_recv(struct ev_dev *d, struct ibv_qp *a, struct ibv_qp *b,
	     uint64_t wr_id, unsigned int flags)
{
	if (ev_post_recv(d, b, 4096, wr_id))
		return -1;
	return ev_post_send(d, a, 0, wr_id, flags);
}

/*
 * Poll cq until n completions are in wc[] or wait_ms pass.  Returns how
 * many were collected (a short count is a timeout), -1 on a poll error.
 * Polling never arms or disarms a CQ, so tests may use it to know that a
 * completion has arrived.
 */
static int __attribute__((unused))
ev_poll_n(struct ibv_cq *cq, int n, struct ibv_wc *wc, int wait_ms)
{
	long long end = ev_now_us() + wait_ms * 1000LL;
	int got = 0, r;

	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0) {
			diag("ibv_poll_cq: %d", r);
			return -1;
		}
		got += r;
		if (got >= n || ev_now_us() > end)
			break;
		if (!r)
			usleep(200);
	}
	return got;
}

/* Poll whatever the CQ holds now into wc[max] without waiting. */
static int __attribute__((unused))
ev_drain(struct ibv_cq *cq, struct ibv_wc *wc, int max)
{
	int got = 0, r;

	while (got < max) {
		r = ibv_poll_cq(cq, max - got, wc + got);
		if (r < 0)
			return -1;
		if (!r)
			break;
		got += r;
	}
	return got;
}

/* poll() one fd for POLLIN: 1 readable, 0 timeout, -1 error. */
static int __attribute__((unused)) ev_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	do {
		r = poll(&p, 1, ms);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		diag("poll: %s", strerror(errno));
	return r < 0 ? -1 : (r > 0 && (p.revents & POLLIN));
}

/*
 * Next completion event within wait_ms: 0 with *cq and *cq_ctx filled
 * (not yet acknowledged), 1 if none came, -1 on error.
 */
static int __attribute__((unused))
ev_get(struct ibv_comp_channel *ch, int wait_ms, struct ibv_cq **cq,
       void **cq_ctx)
{
	int r = ev_readable(ch->fd, wait_ms);

	if (r <= 0)
		return r < 0 ? -1 : 1;
	if (ibv_get_cq_event(ch, cq, cq_ctx)) {
		diag("ibv_get_cq_event: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* No completion event arrives on ch within quiet_ms. */
static int __attribute__((unused)) ev_silent(struct ibv_comp_channel *ch, int quiet_ms)
{
	return ev_readable(ch->fd, quiet_ms) == 0;
}

static __attribute__((unused)) const char *ev_wc_str(const struct ibv_wc *wc)
{
	return ibv_wc_status_str(wc->status);
}

/*
 * Wait up to wait_ms for an async event of type want.  Other events are
 * printed and acknowledged.  Returns 0 with *ev filled (not acknowledged),
 * 1 on timeout, -1 on error.
 */
static int __attribute__((unused))
ev_async_wait(struct ibv_context *ctx, enum ibv_event_type want, int wait_ms,
	      struct ibv_async_event *ev)
{
	long long end = ev_now_us() + wait_ms * 1000LL;

	for (;;) {
		long long left = (end - ev_now_us()) / 1000;
		int r;

		if (left < 0)
			return 1;
		r = ev_readable(ctx->async_fd, (int)left);
		if (r < 0)
			return -1;
		if (!r)
			return 1;
		if (ibv_get_async_event(ctx, ev)) {
			diag("ibv_get_async_event: %s", strerror(errno));
			return -1;
		}
		if (ev->event_type == want)
			return 0;
		diag("async event %s (waiting for %s)",
		     ibv_event_type_str(ev->event_type), ibv_event_type_str(want));
		ibv_ack_async_event(ev);
	}
}

static int __attribute__((unused)) ev_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

#endif /* ORCA_E2E_EV_COMMON_H */
