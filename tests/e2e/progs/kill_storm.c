// SPDX-License-Identifier: GPL-2.0-only
/*
 * SIGKILL at every stage of a verbs process's life:
 *
 *   kill_storm -d DEVICE -n KILLS -m SEED
 *
 * Each of KILLS children (forked; the parent never opens the device
 * before the storm is over) runs the same life in a loop:
 *
 *   open     ibv_open_device, query device and port, find a GID
 *   pd-mr    a PD and a 64 KiB MR
 *   cq       a completion channel, two CQs (one armed on the channel)
 *   srq      an SRQ with receives posted
 *   qp       an RC QP pair (the responder on the SRQ) and a UD QP
 *   connect  the RC pair to RTS against each other, the UD QP to RTS
 *   ah       an address handle for the UD QP
 *   traffic  RDMA WRITEs and SENDs, polled only in part, so that work
 *            requests are in flight whenever it dies here
 *   destroy  the QPs first, then the AH, SRQ, CQs, channel, MR, PD
 *   close    ibv_close_device
 *
 * and writes how far it got into a page shared with the parent.  For
 * kill number i the parent picks the stage i modulo the number of stages
 * (so every stage gets a tenth of the kills, whatever the timing), a
 * lap (the first or the second), and a delay of 0 to 2 ms from a
 * xorshift64* seeded with SEED; it waits until the child has begun that
 * stage of that lap (the child writes a byte to a pipe then; the parent
 * sleeps in poll() meanwhile, so that on one CPU it takes no time from
 * the child), waits the delay (the kill lands inside the stage or
 * later, inside a system call or not), and sends SIGKILL.  Every child
 * must die of that SIGKILL: one that exits on its own had a verbs call
 * fail, and says which.  The stage each child had reached when it died is
 * printed as a diagnostic.
 *
 * Then the parent lives one whole life itself and checks the bytes it
 * moved: the device still works for a new process.  The .t compares
 * rdma resource show with its baseline, and the harness unloads the
 * modules and scans the console (and, on the debug kernel, kmemleak).
 */
#include <getopt.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "dp_common.h"

#define KS_BUF		65536
#define KS_DEPTH	32
#define KS_SRQ_RECVS	16
#define KS_MSG		256
#define KS_LAPS		2
#define KS_MAX_DELAY_US	2000
#define KS_STAGE_WAIT_MS	120000L

enum ks_stage {
	KS_OPEN, KS_PD_MR, KS_CQ, KS_SRQ, KS_QP, KS_CONNECT, KS_AH,
	KS_TRAFFIC, KS_DESTROY, KS_CLOSE, KS_NSTAGES
};

static const char *const ks_stage_name[KS_NSTAGES] = {
	"open", "pd-mr", "cq", "srq", "qp", "connect", "ah", "traffic",
	"destroy", "close",
};

/* The page a child shares with its parent. */
struct ks_shared {
	volatile uint32_t begun;	/* stages begun, over all laps */
	uint32_t target;		/* tell the parent when begun reaches it */
	volatile int32_t fail_stage;	/* the stage a verbs call failed in */
	volatile int32_t fail_errno;
	char fail_what[64];
};

static struct ks_shared *sh;
static int ks_wake_fd = -1;	/* a child's end of its parent's pipe */

/* Everything one life makes. */
struct ks_life {
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *ecq;	/* ecq is armed on the channel */
	struct ibv_srq *srq;
	struct ibv_qp *a, *b, *ud;
	struct ibv_ah *ah;
	unsigned int outstanding;	/* signalled sends not yet polled */
};

/* A verbs call failed in a child: record it for the parent and exit. */
static void __attribute__((noreturn)) ks_fail(enum ks_stage s,
					       const char *what, int err)
{
	sh->fail_stage = s;
	sh->fail_errno = err;
	snprintf(sh->fail_what, sizeof(sh->fail_what), "%s", what);
	_exit(3);
}

/* Stages begin in order, so the count alone says which one is under way. */
static void ks_begin(enum ks_stage s)
{
	uint32_t n = __atomic_add_fetch(&sh->begun, 1, __ATOMIC_SEQ_CST);

	if (ks_wake_fd >= 0 && n == sh->target &&
	    write(ks_wake_fd, "s", 1) != 1)
		ks_fail(s, "write to the parent's pipe", errno);
}

static int ks_post_srq(struct ks_life *l, int n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)l->buf + KS_BUF / 2,
		.length = KS_MSG, .lkey = l->mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i, ret;

	for (i = 0; i < n; i++) {
		wr.wr_id = i;
		ret = ibv_post_srq_recv(l->srq, &wr, &bad);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * One life, stage by stage.  In a child, any failure ends the process
 * through ks_fail(); in the parent (@check) it is a failing point and
 * the life stops where it is (what was made is still destroyed).
 */
static int ks_life(const char *dev, int check)
{
	struct dp_qp_cfg rc, ud;
	struct ks_life l = { 0 };
	struct ibv_wc wc[16];
	int ret = -1, i, n, round;

#define KS_TRY(stage, cond, what)					\
	do {								\
		if (!(cond)) {						\
			int e_ = errno;					\
			if (!check)					\
				ks_fail(stage, what, e_);		\
			ok(0, "%s: %s (%s)", ks_stage_name[stage], what,	\
			   strerror(e_));				\
			goto out;					\
		}							\
	} while (0)

	ks_begin(KS_OPEN);
	dp.ctx = open_by_name(dev);
	KS_TRY(KS_OPEN, dp.ctx, "ibv_open_device");
	KS_TRY(KS_OPEN, !ibv_query_device(dp.ctx, &dp.attr) &&
	       !ibv_query_port(dp.ctx, 1, &dp.port), "query device and port");
	KS_TRY(KS_OPEN, !dp_find_gid(), "a GID on port 1");
	dp.mtu = dp.port.active_mtu < IBV_MTU_1024 ? dp.port.active_mtu :
		 IBV_MTU_1024;

	ks_begin(KS_PD_MR);
	dp.pd = ibv_alloc_pd(dp.ctx);
	KS_TRY(KS_PD_MR, dp.pd, "ibv_alloc_pd");
	l.buf = aligned_alloc(4096, KS_BUF);
	KS_TRY(KS_PD_MR, l.buf, "aligned_alloc");
	memset(l.buf, 0, KS_BUF);
	l.mr = ibv_reg_mr(dp.pd, l.buf, KS_BUF, DP_ACC_ALL);
	KS_TRY(KS_PD_MR, l.mr, "ibv_reg_mr");

	ks_begin(KS_CQ);
	l.ch = ibv_create_comp_channel(dp.ctx);
	KS_TRY(KS_CQ, l.ch, "ibv_create_comp_channel");
	l.cq = ibv_create_cq(dp.ctx, 4 * KS_DEPTH, NULL, NULL, 0);
	KS_TRY(KS_CQ, l.cq, "ibv_create_cq");
	l.ecq = ibv_create_cq(dp.ctx, 4 * KS_DEPTH, NULL, l.ch, 0);
	KS_TRY(KS_CQ, l.ecq, "ibv_create_cq on a channel");
	KS_TRY(KS_CQ, !ibv_req_notify_cq(l.ecq, 0), "ibv_req_notify_cq");

	ks_begin(KS_SRQ);
	{
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = KS_SRQ_RECVS, .max_sge = 1 },
		};

		l.srq = ibv_create_srq(dp.pd, &sa);
		KS_TRY(KS_SRQ, l.srq, "ibv_create_srq");
		errno = ks_post_srq(&l, KS_SRQ_RECVS);
		KS_TRY(KS_SRQ, !errno, "ibv_post_srq_recv");
	}

	ks_begin(KS_QP);
	dp_cfg_default(&rc, IBV_QPT_RC);
	dp_cfg_default(&ud, IBV_QPT_UD);
	{
		struct ibv_qp_init_attr ia = {
			.qp_type = IBV_QPT_RC, .send_cq = l.cq, .recv_cq = l.ecq,
			.cap = { .max_send_wr = KS_DEPTH, .max_recv_wr = 4,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		l.a = ibv_create_qp(dp.pd, &ia);
		KS_TRY(KS_QP, l.a, "ibv_create_qp (RC requester)");
		ia.srq = l.srq;
		ia.cap.max_recv_wr = 0;
		ia.cap.max_recv_sge = 0;
		l.b = ibv_create_qp(dp.pd, &ia);
		KS_TRY(KS_QP, l.b, "ibv_create_qp (RC responder on the SRQ)");
		ia.srq = NULL;
		ia.qp_type = IBV_QPT_UD;
		ia.cap.max_recv_wr = 4;
		ia.cap.max_recv_sge = 1;
		l.ud = ibv_create_qp(dp.pd, &ia);
		KS_TRY(KS_QP, l.ud, "ibv_create_qp (UD)");
	}

	ks_begin(KS_CONNECT);
	KS_TRY(KS_CONNECT, !dp_end_connect(&(struct dp_end){ .qp = l.a }, &rc,
					   l.b->qp_num, IBV_QPS_RTS),
	       "RC requester to RTS");
	KS_TRY(KS_CONNECT, !dp_end_connect(&(struct dp_end){ .qp = l.b }, &rc,
					   l.a->qp_num, IBV_QPS_RTS),
	       "RC responder to RTS");
	KS_TRY(KS_CONNECT, !dp_end_connect(&(struct dp_end){ .qp = l.ud }, &ud,
					   0, IBV_QPS_RTS),
	       "UD QP to RTS");

	ks_begin(KS_AH);
	l.ah = dp_make_ah(dp.pd);
	KS_TRY(KS_AH, l.ah, "ibv_create_ah");

	ks_begin(KS_TRAFFIC);
	for (round = 0; round < 8; round++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)l.buf, .length = 4096,
			.lkey = l.mr->lkey,
		};
		struct ibv_send_wr wr = {
			.sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.wr.rdma = { .rkey = l.mr->rkey },
		}, *bad;

		/* A pattern per round; the parent checks the last one. */
		for (i = 0; i < 4096; i++)
			l.buf[i] = dp_pat(round, i);
		for (i = 0; i < 4 && l.outstanding < KS_DEPTH - 1; i++) {
			wr.wr_id = round * 8 + i;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.wr.rdma.remote_addr = (uintptr_t)l.buf + 8192 +
						 4096 * (uint64_t)i;
			errno = ibv_post_send(l.a, &wr, &bad);
			KS_TRY(KS_TRAFFIC, !errno, "ibv_post_send (WRITE)");
			l.outstanding++;
		}
		if (l.outstanding < KS_DEPTH - 1) {
			wr.opcode = IBV_WR_SEND;
			sge.length = KS_MSG;
			errno = ibv_post_send(l.a, &wr, &bad);
			KS_TRY(KS_TRAFFIC, !errno, "ibv_post_send (SEND)");
			l.outstanding++;
		}
		/*
		 * Poll for half of what is outstanding: work stays in
		 * flight from one round to the next.  The parent waits for
		 * all of it at the end to check the bytes.
		 */
		n = check && round == 7 ? (int)l.outstanding :
		    (int)l.outstanding / 2;
		while (n > 0) {
			int got = dp_poll(l.cq, wc, n < 16 ? n : 16, "sends");

			KS_TRY(KS_TRAFFIC, got > 0, "the sends complete");
			for (i = 0; i < got; i++)
				KS_TRY(KS_TRAFFIC, wc[i].status == IBV_WC_SUCCESS,
				       "a send completes with success");
			n -= got;
			l.outstanding -= got;
		}
		/* The SENDs land on the SRQ: keep it stocked. */
		while ((n = ibv_poll_cq(l.ecq, 16, wc)) > 0) {
			for (i = 0; i < n; i++)
				KS_TRY(KS_TRAFFIC, wc[i].status == IBV_WC_SUCCESS,
				       "a receive completes with success");
			errno = ks_post_srq(&l, n);
			KS_TRY(KS_TRAFFIC, !errno, "ibv_post_srq_recv");
		}
	}
	if (check) {
		int bad_at = -1;

		for (i = 0; i < 4 && bad_at < 0; i++)
			bad_at = dp_cmp(l.buf + 8192 + 4096 * i, l.buf, 4096,
					"WRITE") ? -1 : i;
		ok(bad_at < 0, "traffic: the last round's four 4 KiB WRITEs "
		   "landed byte for byte");
	}

	ret = 0;
out:
	ks_begin(KS_DESTROY);
	if (l.a && ibv_destroy_qp(l.a) && !check)
		ks_fail(KS_DESTROY, "ibv_destroy_qp", errno);
	if (l.b && ibv_destroy_qp(l.b) && !check)
		ks_fail(KS_DESTROY, "ibv_destroy_qp", errno);
	if (l.ud && ibv_destroy_qp(l.ud) && !check)
		ks_fail(KS_DESTROY, "ibv_destroy_qp", errno);
	if (l.ah && ibv_destroy_ah(l.ah) && !check)
		ks_fail(KS_DESTROY, "ibv_destroy_ah", errno);
	if (l.srq && ibv_destroy_srq(l.srq) && !check)
		ks_fail(KS_DESTROY, "ibv_destroy_srq", errno);
	if (l.cq && ibv_destroy_cq(l.cq) && !check)
		ks_fail(KS_DESTROY, "ibv_destroy_cq", errno);
	if (l.ecq && ibv_destroy_cq(l.ecq) && !check)
		ks_fail(KS_DESTROY, "ibv_destroy_cq", errno);
	if (l.ch && ibv_destroy_comp_channel(l.ch) && !check)
		ks_fail(KS_DESTROY, "ibv_destroy_comp_channel", errno);
	if (l.mr && ibv_dereg_mr(l.mr) && !check)
		ks_fail(KS_DESTROY, "ibv_dereg_mr", errno);
	if (dp.pd && ibv_dealloc_pd(dp.pd) && !check)
		ks_fail(KS_DESTROY, "ibv_dealloc_pd", errno);
	dp.pd = NULL;
	free(l.buf);

	ks_begin(KS_CLOSE);
	if (dp.ctx && ibv_close_device(dp.ctx) && !check)
		ks_fail(KS_CLOSE, "ibv_close_device", errno);
	dp.ctx = NULL;
	return ret;
#undef KS_TRY
}

static void __attribute__((noreturn)) ks_child(const char *dev)
{
	for (;;)
		ks_life(dev, 0);
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s -d DEVICE -n KILLS -m SEED\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int at_kill[KS_NSTAGES] = { 0 }, targets[KS_NSTAGES] = { 0 };
	unsigned long kills = 0, lost = 0, shown = 0, nkills = 1000;
	unsigned long long seed = 20261126;
	const char *dev = NULL;
	char line[512];
	size_t len;
	int opt, s;

	while ((opt = getopt(argc, argv, "d:n:m:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'n': nkills = strtoul(optarg, NULL, 0); break;
		case 'm': seed = strtoull(optarg, NULL, 0); break;
		default: usage(argv[0]);
		}
	}
	if (!dev || !nkills)
		usage(argv[0]);
	e2e_rng = seed ? seed : 1;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	diag("%lu kills, seed %llu; stages:", nkills, seed);
	for (s = 0, len = 0; s < KS_NSTAGES; s++)
		len += snprintf(line + len, sizeof(line) - len, " %s",
				ks_stage_name[s]);
	diag("%s", line);

	for (unsigned long i = 0; i < nkills; i++) {
		unsigned int stage = i % KS_NSTAGES;
		unsigned int lap = e2e_rand() % KS_LAPS;
		unsigned int delay = e2e_rand() % (KS_MAX_DELAY_US + 1);
		uint32_t target = lap * KS_NSTAGES + stage + 1;
		long deadline;
		int status, died = 0, wake[2];
		pid_t pid;

		memset(sh, 0, sizeof(*sh));
		sh->fail_stage = -1;
		sh->target = target;
		if (pipe(wake)) {
			ok(0, "pipe: %s", strerror(errno));
			break;
		}
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			ok(0, "fork: %s", strerror(errno));
			close(wake[0]);
			close(wake[1]);
			break;
		}
		if (!pid) {
			close(wake[0]);
			ks_wake_fd = wake[1];
			ks_child(dev);
		}
		close(wake[1]);
		targets[stage]++;

		/*
		 * Wait for the stage to begin (a byte in the pipe) or for the
		 * child to die (end of file: the parent holds no write end).
		 */
		deadline = dp_now_ms() + KS_STAGE_WAIT_MS;
		for (;;) {
			struct pollfd pfd = { .fd = wake[0], .events = POLLIN };
			long left = deadline - dp_now_ms();
			char byte;
			int pr;

			if (left <= 0)
				break;
			pr = poll(&pfd, 1, (int)left);
			if (pr < 0 && errno == EINTR)
				continue;
			if (pr <= 0)
				break;
			if (read(wake[0], &byte, 1) == 1)
				break;
			/* EOF: the child is gone, or going; reap it. */
			if (waitpid(pid, &status, 0) == pid)
				died = 1;
			break;
		}
		close(wake[0]);
		if (!died) {
			if (delay)
				usleep(delay);
			kill(pid, SIGKILL);
			if (waitpid(pid, &status, 0) != pid)
				status = -1;
		}
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
		    sh->begun >= target) {
			kills++;
			at_kill[(sh->begun - 1) % KS_NSTAGES]++;
			continue;
		}
		lost++;
		if (shown++ < 10) {
			if (sh->fail_stage >= 0)
				diag("child %lu (target %s, lap %u): %s failed in "
				     "stage %s: %s", i, ks_stage_name[stage],
				     lap + 1, sh->fail_what,
				     ks_stage_name[sh->fail_stage],
				     strerror(sh->fail_errno));
			else if (sh->begun < target)
				diag("child %lu: stage %s of lap %u not begun "
				     "within %ld s (%u stages begun)", i,
				     ks_stage_name[stage], lap + 1,
				     KS_STAGE_WAIT_MS / 1000, sh->begun);
			else
				diag("child %lu: status 0x%x, not SIGKILL", i,
				     status);
		}
	}

	ok(kills == nkills && !lost,
	   "%lu of %lu children reached the stage picked for them and died "
	   "of SIGKILL (%lu did not)", kills, nkills, lost);
	for (s = 0, len = 0; s < KS_NSTAGES; s++)
		len += snprintf(line + len, sizeof(line) - len, " %s %u/%u",
				ks_stage_name[s], at_kill[s], targets[s]);
	diag("stage at the kill / kills aimed at it:%s", line);

	/* A new process's life, whole, with its bytes checked. */
	sh->fail_stage = -1;
	ok(!ks_life(dev, 1), "after the storm a whole life (open to close, "
	   "traffic checked) succeeds");
	return tap_end();
}
