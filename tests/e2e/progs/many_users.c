// SPDX-License-Identifier: GPL-2.0-only
/*
 * many_users DEVICE: many processes on one HCA at once, each making and
 * destroying its objects in a loop while the others run traffic.
 *
 * PROCS processes (ORCA_MANY_PROCS, default 64) are forked before
 * anything opens the device.  Each opens it, and in each of LAPS laps
 * (ORCA_MANY_LAPS, default 2) makes QPS RC QPs (ORCA_MANY_QPS, default
 * 16; connected in pairs on the port, each end with its own send and
 * receive CQs), a PD and an MR, then meets the others at a barrier: the
 * parent then reads the device's own QP counter, which must show every
 * process's QPs alive at once (64 x 16 = 1024 by default).  After a
 * second barrier each pair carries MSGS checked SENDs and one checked
 * RDMA WRITE each way (ORCA_MANY_MSGS, default 4), and everything is
 * destroyed.  The device is closed after the last lap.
 *
 * Each process's failures are written to stderr with its number; the
 * parent makes one TAP point per lap (the peak) and one per process.
 * 'rdma resource show' and the device's counters back at their baseline
 * are the .t's check (87-many-users.t), leaks the harness's.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dp_common.h"

#define MU_MAX_PROCS	256
#define MU_MAX_QPS	64
#define MU_MSG		2048

static unsigned int mu_procs = 64, mu_qps = 16, mu_laps = 2, mu_msgs = 4;

struct mu_shared {
	pthread_barrier_t created, go;
};

static struct mu_shared *mu_sh;

static unsigned int mu_env(const char *name, unsigned int def,
			   unsigned int max)
{
	const char *s = getenv(name);
	unsigned long v;

	if (!s || !*s)
		return def;
	v = strtoul(s, NULL, 0);
	return v && v <= max ? v : def;
}

static void mu_fail(unsigned int id, const char *what)
{
	fprintf(stderr, "process %u: %s: %s\n", id, what, strerror(errno));
}

/*
 * One completion from @cq, however long it takes: with dozens of
 * processes on two CPUs no deadline would be honest.  A completion that
 * never comes is a hang, which the harness's time limit reports.
 */
static int mu_poll1(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int n;

	while (!(n = ibv_poll_cq(cq, 1, wc)))
		sched_yield();
	return n == 1;
}

/* MSGS checked SENDs from @from to @to, then a checked WRITE. */
static int mu_traffic(struct dp_end *from, struct dp_end *to,
		      struct dp_buf *buf, size_t off, uint32_t seed,
		      unsigned int id)
{
	uint8_t *src = buf->p + off, *dst = buf->p + off + MU_MSG;
	struct ibv_sge s = { (uintptr_t)src, MU_MSG, buf->mr->lkey };
	struct ibv_sge r = { (uintptr_t)dst, MU_MSG, buf->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i <= mu_msgs; i++) {
		int write = i == mu_msgs;

		dp_fill(src, MU_MSG, seed + i);
		memset(dst, 0, MU_MSG);
		if (write) {
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = (uintptr_t)dst;
			wr.wr.rdma.rkey = buf->mr->rkey;
		} else if (dp_post_recv(to->qp, i, &r, 1)) {
			mu_fail(id, "post a receive");
			return -1;
		}
		if (ibv_post_send(from->qp, &wr, &bad)) {
			mu_fail(id, "post a send");
			return -1;
		}
		if (!mu_poll1(from->scq, &wc) ||
		    wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "process %u: %s %u did not complete: %s\n",
				id, write ? "WRITE" : "SEND", i,
				ibv_wc_status_str(wc.status));
			return -1;
		}
		if (!write && (!mu_poll1(to->rcq, &wc) ||
			       wc.status != IBV_WC_SUCCESS ||
			       wc.byte_len != MU_MSG)) {
			fprintf(stderr, "process %u: receive %u failed\n", id, i);
			return -1;
		}
		if (memcmp(dst, src, MU_MSG)) {
			fprintf(stderr, "process %u: %s %u: bytes differ\n",
				id, write ? "WRITE" : "SEND", i);
			return -1;
		}
	}
	return 0;
}

static int mu_lap(unsigned int id, unsigned int lap)
{
	struct dp_pair pairs[MU_MAX_QPS / 2];
	unsigned int npairs = mu_qps / 2, made = 0, i;
	struct dp_qp_cfg cfg;
	struct dp_buf buf;
	int bad = 0;

	dp.pd = ibv_alloc_pd(dp.ctx);
	if (!dp.pd) {
		mu_fail(id, "ibv_alloc_pd");
		bad = 1;
	} else if (dp_buf_alloc(&buf, dp.pd, npairs * 2 * MU_MSG, DP_ACC_ALL)) {
		mu_fail(id, "ibv_reg_mr");
		bad = 1;
	}
	dp_cfg_default(&cfg, IBV_QPT_RC);
	cfg.max_send_wr = 8;
	cfg.max_recv_wr = 8;
	cfg.max_send_sge = 1;
	cfg.max_recv_sge = 1;
	cfg.cqe = 16;
	for (made = 0; !bad && made < npairs; made++) {
		if (dp_pair_make(&pairs[made], &cfg)) {
			mu_fail(id, "make an RC pair");
			bad = 1;
			break;
		}
	}
	/* Everyone meets here, failed or not, so that no one waits forever. */
	pthread_barrier_wait(&mu_sh->created);
	pthread_barrier_wait(&mu_sh->go);
	for (i = 0; !bad && i < npairs; i++) {
		uint32_t seed = id << 20 | lap << 10 | i << 2;

		if (mu_traffic(&pairs[i].a, &pairs[i].b, &buf,
			       i * 2 * MU_MSG, seed, id) ||
		    mu_traffic(&pairs[i].b, &pairs[i].a, &buf,
			       i * 2 * MU_MSG, seed + 2, id))
			bad = 1;
	}
	for (i = 0; i < made; i++)
		dp_pair_destroy(&pairs[i]);
	if (dp.pd) {
		if (buf.mr)
			dp_buf_free(&buf);
		if (ibv_dealloc_pd(dp.pd)) {
			mu_fail(id, "ibv_dealloc_pd");
			bad = 1;
		}
		dp.pd = NULL;
	}
	return bad;
}

static int mu_child(const char *name, unsigned int id)
{
	unsigned int lap;
	int bad = 0;

	dp.ctx = open_by_name(name);
	if (!dp.ctx || ibv_query_device(dp.ctx, &dp.attr) ||
	    ibv_query_port(dp.ctx, 1, &dp.port) || dp_find_gid()) {
		mu_fail(id, "open and query the device");
		bad = 1;
	} else {
		dp.mtu = dp.port.active_mtu < IBV_MTU_1024 ?
			 dp.port.active_mtu : IBV_MTU_1024;
	}
	for (lap = 0; lap < mu_laps; lap++) {
		if (bad) {
			/* Keep the others' barriers whole. */
			pthread_barrier_wait(&mu_sh->created);
			pthread_barrier_wait(&mu_sh->go);
			continue;
		}
		bad = mu_lap(id, lap);
	}
	if (dp.ctx && ibv_close_device(dp.ctx)) {
		mu_fail(id, "ibv_close_device");
		bad = 1;
	}
	return bad;
}

/*
 * The device's QP counter.  ib_core answers from the copy it read last
 * for the port's lifespan (10 ms) and a jiffy: wait 30 ms first.
 */
static long mu_dev_qps(const char *name)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 };
	char path[256], s[32] = "";
	FILE *f;

	nanosleep(&ts, NULL);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/qps", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(s, sizeof(s), f))
		s[0] = 0;
	fclose(f);
	return s[0] ? strtol(s, NULL, 10) : -1;
}

int main(int argc, char **argv)
{
	pid_t pids[MU_MAX_PROCS];
	pthread_barrierattr_t ba;
	unsigned int i, lap, failed = 0;
	long base;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	mu_procs = mu_env("ORCA_MANY_PROCS", mu_procs, MU_MAX_PROCS);
	mu_qps = mu_env("ORCA_MANY_QPS", mu_qps, MU_MAX_QPS) & ~1U;
	mu_laps = mu_env("ORCA_MANY_LAPS", mu_laps, 100000);
	mu_msgs = mu_env("ORCA_MANY_MSGS", mu_msgs, 1000);
	if (!mu_qps)
		mu_qps = 2;

	mu_sh = mmap(NULL, sizeof(*mu_sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!ok(mu_sh != MAP_FAILED, "shared barriers"))
		return tap_end();
	pthread_barrierattr_init(&ba);
	pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(&mu_sh->created, &ba, mu_procs + 1);
	pthread_barrier_init(&mu_sh->go, &ba, mu_procs + 1);
	base = mu_dev_qps(argv[1]);
	if (!ok(base >= 0, "the device's qps counter reads %ld", base))
		return tap_end();

	fflush(stdout);
	for (i = 0; i < mu_procs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(mu_child(argv[1], i));
		if (pids[i] < 0) {
			ok(0, "fork process %u: %s", i, strerror(errno));
			/* The barriers count every process: none can go on. */
			abort();
		}
	}
	for (lap = 0; lap < mu_laps; lap++) {
		long now;

		pthread_barrier_wait(&mu_sh->created);
		now = mu_dev_qps(argv[1]);
		pthread_barrier_wait(&mu_sh->go);
		ok(now - base == (long)(mu_procs * mu_qps),
		   "lap %u: %ld QPs of %u processes alive on the device at once (%u expected)",
		   lap + 1, now - base, mu_procs, mu_procs * mu_qps);
	}
	for (i = 0; i < mu_procs; i++) {
		int st;

		if (waitpid(pids[i], &st, 0) != pids[i] ||
		    !WIFEXITED(st) || WEXITSTATUS(st))
			failed++;
	}
	ok(!failed,
	   "%u processes x %u laps: each made %u QPs, sent %u checked SENDs and a WRITE each way on each pair, and destroyed everything (%u failed)",
	   mu_procs, mu_laps, mu_qps, mu_msgs, failed);
	return tap_end();
}
