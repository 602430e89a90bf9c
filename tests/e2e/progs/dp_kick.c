// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kick of a user QP (uapi/rdma/orca-abi.h): the driver's method
 * ORCA_IB_METHOD_QP_KICK, which liborca uses, and the zero-WR uverbs
 * POST_SEND command, which it uses with ORCA_KICK=post_send and which
 * providers without the method use.
 *
 *   dp_kick DEVICE [ROUNDS]
 *
 *  - traffic: ROUNDS (default 50) rounds of a 64-byte SEND each way and
 *    a 64-byte WRITE, between two RC QPs of the device, with a pause of
 *    2 ms after each, so that the device stops polling the queues and
 *    the next post has to kick it (whether it did is not asserted:
 *    that is timing; the completions and bytes are, and that no kick
 *    went the other way than ORCA_KICK says);
 *  - a WRITE ping-pong between two threads, each busy-polling for the
 *    other's WRITE: every post kicks (the device never polls the send
 *    queue of half of a ping-pong), and every WRITE arrives;
 *  - the method, called directly: on a QP in RTS, RESET and ERR it
 *    answers 0 and completes nothing; a handle that names nothing is
 *    ENOENT, a CQ's handle, an XRC target's, the handle attribute
 *    missing or given a length EINVAL, a destroyed QP's handle ENOENT;
 *  - the zero-WR POST_SEND write() on a QP in RTS is still accepted,
 *    on an XRC target refused (EINVAL) as the method refuses it.
 *
 * The run under ORCA_KICK=post_send is the same program (the .t file).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/orca-abi.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "dp_common.h"
#include "kick_raw.h"

#define KICK_LEN	64

/*
 * Which kicks the library sent during the traffic: this program's own
 * ioctl() and write() (uverbs_intercept.h) see every call of the
 * process, libibverbs' and liborca's included, and count the kicks.  A
 * kick by the method is ORCA_IB_METHOD_QP_KICK; one by the commands is
 * POST_SEND or POST_RECV, which libibverbs sends as an ioctl
 * (UVERBS_METHOD_INVOKE_WRITE) or, on a kernel without that, a write().
 */
static int counting;
static unsigned long method_kicks, command_kicks, verbs_calls;

/* The ping-pong's two threads kick at once. */
static void count(unsigned long *n)
{
	__atomic_fetch_add(n, 1, __ATOMIC_RELAXED);
}

static unsigned long kicks_so_far(void)
{
	return __atomic_load_n(&method_kicks, __ATOMIC_RELAXED) +
	       __atomic_load_n(&command_kicks, __ATOMIC_RELAXED);
}

static void count_ioctl(const struct ib_uverbs_ioctl_hdr *hdr)
{
	unsigned int i;

	count(&verbs_calls);
	if (hdr->object_id == UVERBS_OBJECT_QP &&
	    hdr->method_id == ORCA_IB_METHOD_QP_KICK) {
		count(&method_kicks);
		return;
	}
	if (hdr->object_id != UVERBS_OBJECT_DEVICE ||
	    hdr->method_id != UVERBS_METHOD_INVOKE_WRITE)
		return;
	for (i = 0; i < hdr->num_attrs; i++)
		if (hdr->attrs[i].attr_id == UVERBS_ATTR_WRITE_CMD &&
		    (hdr->attrs[i].data == IB_USER_VERBS_CMD_POST_SEND ||
		     hdr->attrs[i].data == IB_USER_VERBS_CMD_POST_RECV))
			count(&command_kicks);
}

static void intercept_ioctl(int fd, unsigned long req, void *arg)
{
	(void)fd;
	if (counting && req == RDMA_VERBS_IOCTL && arg)
		count_ioctl(arg);
}

static void intercept_write(int fd, const void *buf, size_t len)
{
	const struct ib_uverbs_cmd_hdr *hdr = buf;

	if (counting && dp.ctx && fd == dp.ctx->cmd_fd &&
	    len >= sizeof(*hdr)) {
		count(&verbs_calls);
		if (hdr->command == IB_USER_VERBS_CMD_POST_SEND ||
		    hdr->command == IB_USER_VERBS_CMD_POST_RECV)
			count(&command_kicks);
	}
}

#include "uverbs_intercept.h"

struct kick_req {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attr;
};

/*
 * The method with @nattrs (0 or 1) attributes: the handle @handle, of
 * length @len.  0 or errno.
 */
static int kick_raw(uint32_t handle, unsigned int nattrs, uint16_t len)
{
	struct kick_req req;

	memset(&req, 0, sizeof(req));
	req.hdr.length = sizeof(req.hdr) + nattrs * sizeof(req.attr);
	req.hdr.object_id = UVERBS_OBJECT_QP;
	req.hdr.method_id = ORCA_IB_METHOD_QP_KICK;
	req.hdr.num_attrs = nattrs;
	req.hdr.driver_id = RDMA_DRIVER_UNKNOWN;
	req.attr.attr_id = ORCA_IB_ATTR_QP_KICK_HANDLE;
	req.attr.flags = UVERBS_ATTR_F_MANDATORY;
	req.attr.len = len;
	req.attr.data = handle;
	if (ioctl(dp.ctx->cmd_fd, RDMA_VERBS_IOCTL, &req))
		return errno;
	return 0;
}

static int kick(uint32_t handle)
{
	return kick_raw(handle, 1, 0);
}

/* The zero-WR POST_SEND command on @qp; 0 or errno. */
static int kick_post_send(struct ibv_qp *qp)
{
	return kick_post_send_raw(dp.ctx->cmd_fd, qp->handle);
}

/* One completion on @cq: WR @id, successful, @opcode; 0 if so. */
static int reap(struct ibv_cq *cq, uint64_t id, enum ibv_wc_opcode opcode,
		const char *what)
{
	struct ibv_wc wc;

	if (!dp_poll1(cq, &wc, what))
		return -1;
	if (wc.wr_id == id && wc.status == IBV_WC_SUCCESS &&
	    wc.opcode == opcode)
		return 0;
	diag("%s: wr_id %llu, %s, opcode %d (want wr_id %llu, success, opcode %d)",
	     what, (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
	     wc.opcode, (unsigned long long)id, opcode);
	return -1;
}

static const char *err_str(int err)
{
	return err ? strerror(err) : "0";
}

/* ROUNDS of SEND both ways and a WRITE a -> b, each checked. */
static void test_traffic(int rounds, int post_send_kicks)
{
	struct ibv_qp_init_attr qi;
	struct dp_buf abuf, bbuf;
	unsigned long before;
	struct ibv_qp_attr qa;
	struct dp_qp_cfg c;
	struct dp_pair p;
	int i, bad = 0;

	dp_cfg_default(&c, IBV_QPT_RC);
	if (!ok(!dp_pair_make(&p, &c), "an RC pair in RTS"))
		return;
	if (dp_buf_alloc(&abuf, dp.pd, 4 * KICK_LEN, DP_ACC_ALL)) {
		ok(0, "register the buffers");
		dp_pair_destroy(&p);
		return;
	}
	if (dp_buf_alloc(&bbuf, dp.pd, 4 * KICK_LEN, DP_ACC_ALL)) {
		ok(0, "register the buffers");
		dp_buf_free(&abuf);
		dp_pair_destroy(&p);
		return;
	}
	counting = 1;
	for (i = 0; i < rounds && !bad; i++) {
		struct ibv_sge sa, sb, sw, ra, rb;
		struct ibv_recv_wr rwa = { .wr_id = 1, .sg_list = &ra, .num_sge = 1 };
		struct ibv_recv_wr rwb = { .wr_id = 2, .sg_list = &rb, .num_sge = 1 };
		struct ibv_send_wr wa = { .wr_id = 3, .sg_list = &sa, .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };
		struct ibv_send_wr wb = { .wr_id = 4, .sg_list = &sb, .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED };
		struct ibv_send_wr ww = { .wr_id = 5, .sg_list = &sw, .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED };
		struct ibv_recv_wr *rbad;
		struct ibv_send_wr *sbad;

		/* a: [0] sends, [1] receives, [2] is written from. */
		dp_fill(abuf.p, KICK_LEN, 3 * i);
		dp_fill(abuf.p + 2 * KICK_LEN, KICK_LEN, 3 * i + 2);
		dp_fill(bbuf.p, KICK_LEN, 3 * i + 1);
		memset(abuf.p + KICK_LEN, 0, KICK_LEN);
		memset(bbuf.p + KICK_LEN, 0, 3 * KICK_LEN);
		sa = (struct ibv_sge){ (uintptr_t)abuf.p, KICK_LEN, abuf.mr->lkey };
		ra = (struct ibv_sge){ (uintptr_t)abuf.p + KICK_LEN, KICK_LEN,
				       abuf.mr->lkey };
		sw = (struct ibv_sge){ (uintptr_t)abuf.p + 2 * KICK_LEN, KICK_LEN,
				       abuf.mr->lkey };
		sb = (struct ibv_sge){ (uintptr_t)bbuf.p, KICK_LEN, bbuf.mr->lkey };
		rb = (struct ibv_sge){ (uintptr_t)bbuf.p + KICK_LEN, KICK_LEN,
				       bbuf.mr->lkey };
		ww.wr.rdma.remote_addr = (uintptr_t)bbuf.p + 2 * KICK_LEN;
		ww.wr.rdma.rkey = bbuf.mr->rkey;

		if (ibv_post_recv(p.a.qp, &rwa, &rbad) ||
		    ibv_post_recv(p.b.qp, &rwb, &rbad) ||
		    ibv_post_send(p.a.qp, &wa, &sbad)) {
			diag("round %d: a post failed", i);
			bad = 1;
			break;
		}
		bad |= reap(p.a.scq, 3, IBV_WC_SEND, "a's SEND") ||
		       reap(p.b.rcq, 2, IBV_WC_RECV, "b's receive");
		dp_sleep_ms(2);
		if (bad || ibv_post_send(p.b.qp, &wb, &sbad)) {
			bad = 1;
			break;
		}
		bad |= reap(p.b.scq, 4, IBV_WC_SEND, "b's SEND") ||
		       reap(p.a.rcq, 1, IBV_WC_RECV, "a's receive");
		dp_sleep_ms(2);
		if (bad || ibv_post_send(p.a.qp, &ww, &sbad)) {
			bad = 1;
			break;
		}
		bad |= reap(p.a.scq, 5, IBV_WC_RDMA_WRITE, "a's WRITE");
		if (bad)
			break;
		if (memcmp(bbuf.p + KICK_LEN, abuf.p, KICK_LEN) ||
		    memcmp(abuf.p + KICK_LEN, bbuf.p, KICK_LEN) ||
		    memcmp(bbuf.p + 2 * KICK_LEN, abuf.p + 2 * KICK_LEN,
			   KICK_LEN)) {
			diag("round %d: the bytes that arrived are not the ones sent",
			     i);
			bad = 1;
		}
		dp_sleep_ms(2);
	}
	/* The counting sees libibverbs' calls: one it must make. */
	before = verbs_calls;
	if (!ibv_query_qp(p.a.qp, &qa, IBV_QP_STATE, &qi))
		ok(verbs_calls > before,
		   "ibv_query_qp() reached the kernel through this program's ioctl() or write()");
	else
		ok(0, "ibv_query_qp: %s", strerror(errno));
	counting = 0;
	ok(!bad && i == rounds,
	   "%d rounds of SEND each way and a WRITE, pausing between posts: every completion and byte right",
	   rounds);
	/* How many posts kicked is timing; which way they kicked is not. */
	if (post_send_kicks)
		ok(!method_kicks,
		   "ORCA_KICK=post_send: no kick by the method (%lu by POST_SEND/POST_RECV)",
		   command_kicks);
	else
		ok(!command_kicks,
		   "no kick by POST_SEND/POST_RECV: liborca kicks with the method (%lu kicks)",
		   method_kicks);
	ok(dp_cq_empty(p.a.scq, "a's send CQ") && dp_cq_empty(p.a.rcq, "a's recv CQ") &&
	   dp_cq_empty(p.b.scq, "b's send CQ") && dp_cq_empty(p.b.rcq, "b's recv CQ"),
	   "no completion more than the WRs posted");
	dp_buf_free(&abuf);
	dp_buf_free(&bbuf);
	dp_pair_destroy(&p);
}

/*
 * A WRITE ping-pong between two threads, one per QP of a pair: each
 * waits, busy-polling its buffer, for the other's WRITE of round i
 * before it writes round i back (a first).  Each QP therefore receives
 * a request between any two of its posts, the pattern of perftest's
 * latency tests, and the device never takes its posts by polling
 * (POLLING stays clear in its SQ record; orca-hw-interface.rst, "When
 * POLLING is set"): every post kicks.  The two threads kick at once on
 * two CPUs and meet in the device's locks; a kick that met a busy lock
 * used to leave its QP to the engine thread with POLLING set.
 */
struct pp_side {
	struct ibv_qp *qp;
	struct ibv_cq *scq;
	volatile uint32_t *in;		/* the peer writes here */
	uint32_t *out;			/* this side writes from here */
	uint32_t lkey, rkey;
	uint64_t raddr;
	int rounds, first;
	int bad;
};

/* Wait for @v in *@s->in; 0, or -1 after the timeout. */
static int pp_wait(struct pp_side *s, uint32_t v)
{
	long deadline = dp_now_ms() + dp_timeout_ms();
	unsigned int spins = 0;

	while (*s->in != v) {
		if ((++spins & 0xfff) == 0 && dp_now_ms() > deadline) {
			diag("round %u: the peer's WRITE did not arrive (%u there)",
			     v, *s->in);
			return -1;
		}
	}
	return 0;
}

static void *pp_main(void *arg)
{
	struct pp_side *s = arg;
	struct ibv_sge sge = { (uintptr_t)s->out, sizeof(uint32_t), s->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	uint32_t i;

	wr.wr.rdma.remote_addr = s->raddr;
	wr.wr.rdma.rkey = s->rkey;
	for (i = 1; i <= (uint32_t)s->rounds; i++) {
		if (!s->first && pp_wait(s, i))
			goto fail;
		*s->out = i;
		wr.wr_id = i;
		if (ibv_post_send(s->qp, &wr, &bad)) {
			diag("round %u: ibv_post_send failed", i);
			goto fail;
		}
		if (reap(s->scq, i, IBV_WC_RDMA_WRITE, "the WRITE's completion") ||
		    (s->first && pp_wait(s, i)))
			goto fail;
	}
	return NULL;
fail:
	s->bad = 1;
	return NULL;
}

static void test_pingpong(int rounds)
{
	struct pp_side side[2];
	unsigned long before;
	struct dp_buf buf;
	pthread_t tid[2];
	struct dp_qp_cfg c;
	struct dp_pair p;
	int i, started = 0;

	dp_cfg_default(&c, IBV_QPT_RC);
	if (!ok(!dp_pair_make(&p, &c), "a third RC pair in RTS"))
		return;
	if (dp_buf_alloc(&buf, dp.pd, 128, DP_ACC_ALL)) {
		ok(0, "register the ping-pong's buffer");
		dp_pair_destroy(&p);
		return;
	}
	memset(buf.p, 0, 128);
	/* a's half, then b's: [0] written by the peer, [8] written from. */
	for (i = 0; i < 2; i++)
		side[i] = (struct pp_side){
			.qp = i ? p.b.qp : p.a.qp,
			.scq = i ? p.b.scq : p.a.scq,
			.in = (volatile uint32_t *)(buf.p + 64 * i),
			.out = (uint32_t *)(buf.p + 64 * i + 8),
			.lkey = buf.mr->lkey, .rkey = buf.mr->rkey,
			.raddr = (uintptr_t)buf.p + 64 * !i,
			.rounds = rounds, .first = !i,
		};
	counting = 1;
	before = kicks_so_far();
	for (i = 0; i < 2; i++) {
		if (pthread_create(&tid[i], NULL, pp_main, &side[i]))
			break;
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	counting = 0;
	if (ok(started == 2 && !side[0].bad && !side[1].bad,
	       "a 4-byte WRITE ping-pong of %d rounds between two threads: every WRITE arrived and completed",
	       rounds))
		ok(kicks_so_far() - before == 2UL * rounds,
		   "every one of its %d posts kicked (%lu kicks): the device never polls a ping-pong's send queue",
		   2 * rounds, kicks_so_far() - before);
	dp_buf_free(&buf);
	dp_pair_destroy(&p);
}

/* Calls of the method itself, good and bad, and the POST_SEND kick. */
static void test_method(void)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_qp_init_attr_ex tx = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct dp_qp_cfg c;
	struct dp_pair p;
	struct ibv_xrcd *xrcd;
	struct ibv_qp *tgt;
	uint32_t handle;
	int err;

	dp_cfg_default(&c, IBV_QPT_RC);
	if (!ok(!dp_pair_make(&p, &c), "another RC pair in RTS"))
		return;
	err = kick(p.a.qp->handle);
	ok(!err, "the method on a QP in RTS with nothing posted: %s", err_str(err));
	err = kick_post_send(p.a.qp);
	ok(!err, "the zero-WR POST_SEND kick of the same QP: %s", err_str(err));
	err = kick_raw(p.a.qp->handle, 0, 0);
	ok(err == EINVAL, "the method without its handle attribute: EINVAL (%s)",
	   err_str(err));
	err = kick_raw(p.a.qp->handle, 1, sizeof(uint32_t));
	ok(err == EINVAL, "the handle attribute with a length: EINVAL (%s)",
	   err_str(err));
	err = kick(0xfffffff0U);
	ok(err == ENOENT, "a handle that names nothing: ENOENT (%s)",
	   err_str(err));
	err = kick(p.a.scq->handle);
	ok(err == EINVAL, "a CQ's handle: EINVAL (%s)", err_str(err));

	err = ibv_modify_qp(p.b.qp, &qa, IBV_QP_STATE);
	ok(!err, "move b to ERR: %s", err_str(err));
	err = kick(p.b.qp->handle);
	ok(!err, "the method on a QP in ERR: %s", err_str(err));
	qa.qp_state = IBV_QPS_RESET;
	err = ibv_modify_qp(p.b.qp, &qa, IBV_QP_STATE);
	ok(!err, "move b to RESET: %s", err_str(err));
	err = kick(p.b.qp->handle);
	ok(!err, "the method on a QP in RESET: %s", err_str(err));
	ok(dp_cq_empty(p.a.scq, "a's send CQ") && dp_cq_empty(p.a.rcq, "a's recv CQ") &&
	   dp_cq_empty(p.b.scq, "b's send CQ") && dp_cq_empty(p.b.rcq, "b's recv CQ"),
	   "kicks with nothing posted complete nothing");

	handle = p.a.qp->handle;
	dp_pair_destroy(&p);
	err = kick(handle);
	ok(err == ENOENT, "a destroyed QP's handle: ENOENT (%s)", err_str(err));

	xrcd = ibv_open_xrcd(dp.ctx, &xa);
	if (!ok(xrcd != NULL, "open an XRC domain: %s",
		xrcd ? "0" : strerror(errno)))
		return;
	tx.xrcd = xrcd;
	tgt = ibv_create_qp_ex(dp.ctx, &tx);
	if (ok(tgt != NULL, "create an XRC target QP: %s",
	       tgt ? "0" : strerror(errno))) {
		err = kick(tgt->handle);
		ok(err == EINVAL, "an XRC target's handle: EINVAL (%s)",
		   err_str(err));
		err = kick_post_send(tgt);
		ok(err == EINVAL,
		   "the zero-WR POST_SEND kick of an XRC target: EINVAL (%s)",
		   err_str(err));
		ok(!ibv_destroy_qp(tgt), "destroy the XRC target QP");
	}
	ok(!ibv_close_xrcd(xrcd), "close the XRC domain");
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 50;
	const char *mode;

	dp_open(argc, argv);
	mode = getenv("ORCA_KICK");

	diag("ORCA_KICK=%s", mode ? mode : "");
	test_traffic(rounds > 0 ? rounds : 50,
		     mode && !strcmp(mode, "post_send"));
	test_pingpong(2000);
	test_method();
	return dp_close();
}
