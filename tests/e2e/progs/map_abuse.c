// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a process can do to the queue mappings liborca gives it, with
 * work in flight:
 *
 *   map_abuse -d DEVICE [-n ROUNDS]
 *
 * Each case runs in a child of its own (its own context, a CQ and an RC
 * QP pair of its own) that has just posted 16 signalled 32 KiB RDMA
 * WRITEs when it does its one thing to the requester QP's mapping (the
 * send and receive rings and a page of doorbell records) or to the CQ's:
 *
 *   munmap-qp    unmaps the QP: the device goes on with the memory the
 *                kernel holds; the 16 completions arrive, the bytes land,
 *                and destroying the QP and the CQ succeeds
 *   munmap-cq    unmaps the CQ while the device writes completions into
 *                it; destroying the QP and the CQ succeeds
 *   munmap-exit  unmaps both and exits without destroying anything: the
 *                kernel cleans up (the .t compares rdma resource show)
 *   mremap       growing the QP mapping fails (EFAULT: it cannot expand);
 *                moving it to another address works, the old range is
 *                gone and the new one holds the same pages (its first
 *                page of ring reads the same through it); destroying the
 *                QP, and then unmapping the moved range, succeeds
 *   mprotect     PROT_EXEC is refused (EACCES); read-only is allowed,
 *                and the next post then faults in the process itself
 *                (the child dies of SIGSEGV, nothing else)
 *   mmap-again   the QP's mmap key mapped a second time: with the wrong
 *                length (EINVAL) or with PROT_EXEC (EINVAL; EPERM where
 *                /dev is noexec) it is refused; with the right length it
 *                maps the same pages; after the QP is destroyed the extra
 *                mapping stays usable (the pages live until it goes) and
 *                a new mapping of the key fails with EINVAL
 *   fork         forks while the WRITEs are in flight; the grandchild
 *                opens the device itself and moves checked bytes on a QP
 *                pair of its own, then exits; the child's completions and
 *                bytes are all there, and its own objects destroy
 *
 * After every case the parent's bystander QP pair (made before any
 * child, so every child inherited its mappings) carries a SEND whose
 * bytes are checked.  A child reports through a shared page.
 */
#define _GNU_SOURCE	/* mremap */
#include <getopt.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "dp_common.h"
#include "uverbs_maps.h"

#define MA_WRITES	16
#define MA_WSIZE	32768
#define MA_BUF		(2 * MA_WRITES * MA_WSIZE)
#define MA_PAGE		4096UL

struct ma_shared {
	char why[256];		/* a failing child's reason */
};

static struct ma_shared *sh;

/* One child's objects. */
struct ma_victim {
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct uv_map cq_map, qp_map, qpb_map;
};

__attribute__((format(printf, 1, 2), noreturn))
static void ma_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sh->why, sizeof(sh->why), fmt, ap);
	va_end(ap);
	_exit(1);
}

/* Create with @make and return the one uverbs mapping it added. */
#define MA_NEW_MAPPED(obj, make, map, what)				\
	do {								\
		struct uv_map b_[UV_MAX_MAPS], a_[UV_MAX_MAPS];		\
		const struct uv_map *m_;				\
		int nb_ = uv_maps(b_);					\
									\
		(obj) = (make);						\
		if (!(obj))						\
			ma_fail("%s: %s", what, strerror(errno));	\
		m_ = nb_ < 0 ? NULL : uv_new_map(b_, nb_, a_, uv_maps(a_)); \
		if (!m_)						\
			ma_fail("%s: no single new uverbs mapping", what); \
		(map) = *m_;						\
	} while (0)

static void ma_setup(struct ma_victim *v)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = MA_WRITES + 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct dp_qp_cfg rc;

	memset(v, 0, sizeof(*v));
	dp.ctx = open_by_name(getenv("MA_DEV"));
	if (!dp.ctx || ibv_query_device(dp.ctx, &dp.attr) ||
	    ibv_query_port(dp.ctx, 1, &dp.port) || dp_find_gid())
		ma_fail("open and query the device: %s", strerror(errno));
	dp.mtu = dp.port.active_mtu < IBV_MTU_1024 ? dp.port.active_mtu :
		 IBV_MTU_1024;
	dp.pd = ibv_alloc_pd(dp.ctx);
	v->buf = aligned_alloc(MA_PAGE, MA_BUF);
	if (!dp.pd || !v->buf)
		ma_fail("PD and buffer: %s", strerror(errno));
	dp_fill(v->buf, MA_BUF / 2, 77);
	memset(v->buf + MA_BUF / 2, 0, MA_BUF / 2);
	v->mr = ibv_reg_mr(dp.pd, v->buf, MA_BUF, DP_ACC_ALL);
	if (!v->mr)
		ma_fail("ibv_reg_mr: %s", strerror(errno));
	MA_NEW_MAPPED(v->cq, ibv_create_cq(dp.ctx, 4 * MA_WRITES, NULL, NULL, 0),
		      v->cq_map, "ibv_create_cq");
	ia.send_cq = v->cq;
	ia.recv_cq = v->cq;
	MA_NEW_MAPPED(v->a, ibv_create_qp(dp.pd, &ia), v->qp_map,
		      "ibv_create_qp (requester)");
	MA_NEW_MAPPED(v->b, ibv_create_qp(dp.pd, &ia), v->qpb_map,
		      "ibv_create_qp (responder)");
	dp_cfg_default(&rc, IBV_QPT_RC);
	if (dp_end_connect(&(struct dp_end){ .qp = v->a }, &rc, v->b->qp_num,
			   IBV_QPS_RTS) ||
	    dp_end_connect(&(struct dp_end){ .qp = v->b }, &rc, v->a->qp_num,
			   IBV_QPS_RTS))
		ma_fail("connect the QP pair");
}

/* Post the 16 WRITEs: buf[i * 32K] -> buf[half + i * 32K]. */
static void ma_post(struct ma_victim *v)
{
	int i;

	for (i = 0; i < MA_WRITES; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)v->buf + i * MA_WSIZE,
			.length = MA_WSIZE, .lkey = v->mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = {
				.remote_addr = (uintptr_t)v->buf + MA_BUF / 2 +
					       i * MA_WSIZE,
				.rkey = v->mr->rkey,
			},
		}, *bad;

		errno = ibv_post_send(v->a, &wr, &bad);
		if (errno)
			ma_fail("ibv_post_send: %s", strerror(errno));
	}
}

/* The 16 completions, all successful, and the bytes where they belong. */
static void ma_reap(struct ma_victim *v)
{
	struct ibv_wc wc[MA_WRITES];
	int i, n = dp_poll(v->cq, wc, MA_WRITES, "the WRITEs");

	if (n != MA_WRITES)
		ma_fail("%d of %d WRITE completions", n, MA_WRITES);
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			ma_fail("WRITE %llu: %s", (unsigned long long)wc[i].wr_id,
				ibv_wc_status_str(wc[i].status));
	if (memcmp(v->buf, v->buf + MA_BUF / 2, MA_BUF / 2))
		ma_fail("the WRITEs' bytes are not where they belong");
}

static void ma_destroy(struct ma_victim *v, int qp_a_too)
{
	if (qp_a_too && ibv_destroy_qp(v->a))
		ma_fail("ibv_destroy_qp (requester): %s", strerror(errno));
	if (ibv_destroy_qp(v->b))
		ma_fail("ibv_destroy_qp (responder): %s", strerror(errno));
	if (ibv_destroy_cq(v->cq))
		ma_fail("ibv_destroy_cq: %s", strerror(errno));
	if (ibv_dereg_mr(v->mr) || ibv_dealloc_pd(dp.pd) ||
	    ibv_close_device(dp.ctx))
		ma_fail("dereg MR, dealloc PD, close: %s", strerror(errno));
}

static size_t ma_len(const struct uv_map *m)
{
	return m->end - m->start;
}

/* Is [start, end) still a uverbs mapping of this process? */
static int ma_mapped(unsigned long start, unsigned long end)
{
	struct uv_map m[UV_MAX_MAPS];
	int i, n = uv_maps(m);

	for (i = 0; i < n; i++)
		if (m[i].start == start && m[i].end == end)
			return 1;
	return 0;
}

/* ---- the cases: each runs in a child and ends in _exit ---------------- */

static void ma_munmap_qp(struct ma_victim *v)
{
	ma_post(v);
	if (munmap((void *)v->qp_map.start, ma_len(&v->qp_map)))
		ma_fail("munmap the QP: %s", strerror(errno));
	ma_reap(v);
	ma_destroy(v, 1);
}

static void ma_munmap_cq(struct ma_victim *v)
{
	ma_post(v);
	if (munmap((void *)v->cq_map.start, ma_len(&v->cq_map)))
		ma_fail("munmap the CQ: %s", strerror(errno));
	/* The device writes the 16 completions into pages no longer mapped. */
	if (ibv_destroy_qp(v->a))
		ma_fail("ibv_destroy_qp (requester): %s", strerror(errno));
	ma_destroy(v, 0);
}

static void ma_munmap_exit(struct ma_victim *v)
{
	ma_post(v);
	if (munmap((void *)v->qp_map.start, ma_len(&v->qp_map)) ||
	    munmap((void *)v->cq_map.start, ma_len(&v->cq_map)))
		ma_fail("munmap the QP and the CQ: %s", strerror(errno));
}

static void ma_mremap(struct ma_victim *v)
{
	size_t len = ma_len(&v->qp_map);
	uint8_t before[MA_PAGE], *old = (uint8_t *)v->qp_map.start, *dst;
	void *r;

	ma_post(v);
	r = mremap(old, len, len + MA_PAGE, 0);
	if (r != MAP_FAILED || errno != EFAULT)
		ma_fail("mremap to grow the QP mapping: %s, want EFAULT",
			r == MAP_FAILED ? strerror(errno) : "success");
	/* A place to move it to. */
	dst = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (dst == MAP_FAILED)
		ma_fail("mmap a place: %s", strerror(errno));
	ma_reap(v);
	/*
	 * The first page is ring: work requests that only this process
	 * writes (the device writes into the page of records, e.g. whether
	 * it is polling the queue, at any time).
	 */
	memcpy(before, old, MA_PAGE);
	r = mremap(old, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	if (r != dst)
		ma_fail("mremap to move the QP mapping: %s", strerror(errno));
	if (ma_mapped((unsigned long)old, (unsigned long)old + len) ||
	    !ma_mapped((unsigned long)dst, (unsigned long)dst + len))
		ma_fail("after the move /proc/self/maps does not show the "
			"mapping at its new place only");
	if (memcmp(before, dst, MA_PAGE))
		ma_fail("the moved mapping's first page of ring differs");
	ma_destroy(v, 1);
	if (munmap(dst, len))
		ma_fail("munmap the moved mapping: %s", strerror(errno));
}

static void ma_mprotect(struct ma_victim *v)
{
	void *qp = (void *)v->qp_map.start;
	size_t len = ma_len(&v->qp_map);
	struct ibv_sge sge = {
		.addr = (uintptr_t)v->buf, .length = 64, .lkey = v->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = (uintptr_t)v->buf + MA_BUF / 2,
			     .rkey = v->mr->rkey },
	}, *bad;

	ma_post(v);
	if (!mprotect(qp, len, PROT_READ | PROT_WRITE | PROT_EXEC) ||
	    errno != EACCES)
		ma_fail("mprotect PROT_EXEC on the QP: %s, want EACCES",
			strerror(errno));
	ma_reap(v);
	if (mprotect(qp, len, PROT_READ))
		ma_fail("mprotect PROT_READ on the QP: %s", strerror(errno));
	/* The post writes the ring: SIGSEGV, in this process only. */
	errno = ibv_post_send(v->a, &wr, &bad);
	ma_fail("a post on a read-only ring returned %d (%s), did not fault",
		errno, strerror(errno));
}

static void ma_mmap_again(struct ma_victim *v)
{
	size_t len = ma_len(&v->qp_map);
	off_t key = (off_t)v->qp_map.offset;
	int fd = dp.ctx->cmd_fd;
	volatile uint8_t *again;
	uint8_t *p;

	ma_post(v);
	p = mmap(NULL, len + MA_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, key);
	if (p != MAP_FAILED || errno != EINVAL)
		ma_fail("mmap of the QP key one page too long: %s, want EINVAL",
			p == MAP_FAILED ? strerror(errno) : "success");
	/* EPERM instead where /dev is mounted noexec: refused either way. */
	p = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_SHARED, fd, key);
	if (p != MAP_FAILED || (errno != EINVAL && errno != EPERM))
		ma_fail("mmap of the QP key with PROT_EXEC: %s, want EINVAL",
			p == MAP_FAILED ? strerror(errno) : "success");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, key);
	if (p == MAP_FAILED)
		ma_fail("mmap of the QP key a second time: %s", strerror(errno));
	again = p;
	ma_reap(v);
	if (memcmp(p, (void *)v->qp_map.start, len - MA_PAGE))
		ma_fail("the second mapping of the QP shows other ring bytes");
	/* liborca unmaps its own mapping; ours stays. */
	if (ibv_destroy_qp(v->a))
		ma_fail("ibv_destroy_qp (requester): %s", strerror(errno));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, key);
	if (p != MAP_FAILED || errno != EINVAL)
		ma_fail("mmap of a destroyed QP's key: %s, want EINVAL",
			p == MAP_FAILED ? strerror(errno) : "success");
	/* The pages live as long as a mapping does: this read must not fault. */
	(void)again[len - MA_PAGE];
	again[0] = 0xff;
	ma_destroy(v, 0);
	if (munmap((void *)again, len))
		ma_fail("munmap the second mapping: %s", strerror(errno));
}

/* In the grandchild: a context, PD, MR, CQ and QP pair of its own. */
static int ma_grandchild(void)
{
	struct ma_victim g;

	ma_setup(&g);
	ma_post(&g);
	ma_reap(&g);
	ma_destroy(&g, 1);
	return 0;
}

static void ma_fork(struct ma_victim *v)
{
	int status;
	pid_t pid;

	ma_post(v);
	pid = fork();
	if (pid < 0)
		ma_fail("fork: %s", strerror(errno));
	if (!pid)
		_exit(ma_grandchild());
	ma_reap(v);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		char why[sizeof(sh->why)];

		memcpy(why, sh->why, sizeof(why));
		why[sizeof(why) - 1] = 0;
		ma_fail("the grandchild (its own verbs after fork) ended with "
			"status 0x%x: %s", status, why);
	}
	ma_destroy(v, 1);
}

struct ma_case {
	const char *name;
	void (*run)(struct ma_victim *v);
	int want_signal;	/* the child is to die of this signal */
	const char *says;
};

static const struct ma_case cases[] = {
	{ "munmap-qp", ma_munmap_qp, 0,
	  "munmap of the QP with WRITEs in flight: they complete, the bytes "
	  "land, QP and CQ destroy" },
	{ "munmap-cq", ma_munmap_cq, 0,
	  "munmap of the CQ while completions arrive: QP and CQ destroy" },
	{ "munmap-exit", ma_munmap_exit, 0,
	  "munmap of QP and CQ, then exit with everything alive" },
	{ "mremap", ma_mremap, 0,
	  "mremap: growing fails with EFAULT, moving keeps the same pages; "
	  "destroy and munmap succeed" },
	{ "mprotect", ma_mprotect, SIGSEGV,
	  "mprotect: PROT_EXEC is refused with EACCES; a post on a read-only "
	  "ring faults in the process only" },
	{ "mmap-again", ma_mmap_again, 0,
	  "mmap of the QP key again: too long or PROT_EXEC is refused, the "
	  "right length maps the same pages, which outlive the QP; the key "
	  "of a destroyed QP gives EINVAL" },
	{ "fork", ma_fork, 0,
	  "fork with WRITEs in flight: the grandchild's own verbs work, the "
	  "child's completions and bytes are all there" },
};

static struct dp_bystander by;

int main(int argc, char **argv)
{
	const char *dev = NULL;
	int rounds = 1, opt, round, c;
	char *dargv[2];

	while ((opt = getopt(argc, argv, "d:n:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'n': rounds = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s -d DEVICE [-n ROUNDS]\n", argv[0]);
			return 2;
		}
	}
	if (!dev || rounds < 1) {
		fprintf(stderr, "usage: %s -d DEVICE [-n ROUNDS]\n", argv[0]);
		return 2;
	}
	setenv("MA_DEV", dev, 1);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 2;
	}

	dargv[0] = argv[0];
	dargv[1] = (char *)dev;
	dp_open(2, dargv);
	if (!ok(!dp_bystander_make(&by),
		"the bystander: an RC QP pair and two buffers"))
		return tap_end();
	ok(dp_bystander_send(&by, 1000),
	   "the bystander's SEND arrives byte for byte");

	for (round = 1; round <= rounds; round++) {
		for (c = 0; c < (int)DP_ARRAY_SIZE(cases); c++) {
			const struct ma_case *k = &cases[c];
			struct ma_victim v;
			int status = -1, good;
			pid_t pid;

			memset(sh, 0, sizeof(*sh));
			fflush(stdout);
			pid = fork();
			if (pid < 0) {
				ok(0, "fork: %s", strerror(errno));
				continue;
			}
			if (!pid) {
				ma_setup(&v);
				k->run(&v);
				_exit(0);
			}
			waitpid(pid, &status, 0);
			if (k->want_signal)
				good = WIFSIGNALED(status) &&
				       WTERMSIG(status) == k->want_signal;
			else
				good = WIFEXITED(status) && !WEXITSTATUS(status);
			if (!ok(good, "%s (round %d): %s", k->name, round, k->says))
				diag("%s: status 0x%x%s%s", k->name, status,
				     sh->why[0] ? ": " : "", sh->why);
			ok(dp_bystander_send(&by, 1000 + round * 100 + c),
			   "after %s: the bystander's SEND arrives byte for byte",
			   k->name);
		}
	}

	dp_bystander_destroy(&by);
	return dp_close();
}
