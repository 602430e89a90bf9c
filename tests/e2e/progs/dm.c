// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device memory (interface 1.4; ibv_alloc_dm(3), ibv_reg_dm_mr(3)) on
 * one device: what ibv_alloc_dm allocates and refuses, what
 * ibv_memcpy_to_dm and ibv_memcpy_from_dm copy and refuse, the regions
 * ibv_reg_dm_mr makes and refuses, and RDMA traffic between two RC QPs
 * of the device into and out of device memory.
 *
 *   - max_dm_size (ibv_query_device_ex) is 262144; allocations are in
 *     4 KiB granules: four of them (one of 15 granules and a byte) fill
 *     the device memory, do not overlap, and a fifth is ENOMEM; freed
 *     space is given again, zeroed; log_align_req 16 and 18 (with the
 *     starts such alignments leave in 256 KiB), larger ones EINVAL;
 *     comp_mask, length 0 and lengths beyond the device memory refused;
 *   - the bounds of the copies: the length asked at allocation, not
 *     the granules behind it, also when offset + length wraps around;
 *   - regions: IBV_ACCESS_ZERO_BASED required, the range inside the
 *     length asked; ibv_free_dm EBUSY while a region is on the DM;
 *   - the data path, through a region at byte DOFF of a 128 KiB DM
 *     (so its address x is byte DOFF + x of the DM), every byte of the
 *     DM checked against a model after each step: RDMA WRITE into it and
 *     READ from it, SEND gathered from it, receives scattered into it,
 *     DM to DM, FETCH_ADD and CMP_SWP on a word of it (and a result
 *     returned into it), 20 KiB and 80 KiB messages (20 and 80 packets
 *     at path MTU 1024); a WRITE through a region without REMOTE_WRITE,
 *     or past the region's end, is REM_ACCESS_ERR, an SGE past its end
 *     LOC_PROT_ERR, nothing written;
 *   - a child process that holds all the device memory (and a region on
 *     it) and exits without freeing anything gives it all back;
 *   - ibv_import_dm in a context imported from a dup of the cmd_fd
 *     (ibv_import_device): bytes written through either DM read back
 *     through the other, the import's copies bounded as the original's,
 *     a region on the import reached by RDMA WRITE and READ between QPs
 *     of the imported context and keeping the original from
 *     ibv_free_dm; a handle naming nothing ENOENT, a PD's EINVAL, a
 *     freed DM's ENOENT; ibv_unimport_dm leaves the DM to the original.
 *
 * The child is forked before the parent opens the device and talks to
 * it through two pipes.  A failed request takes the connection to error:
 * it is renewed afterwards.  Prints TAP.  Usage: dm DEVICE
 */
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e_tap.h"
#include "dp_common.h"

#define DM_MAX		262144	/* max_dm_size, documented */
#define LOG_MAX		18	/* the largest log_align_req: log2(DM_MAX) */
#define GRAN		4096	/* the allocation granule */
#define SMALL		5000	/* the DM of the copy and region rules */
#define REUSE		20480	/* the DM freed and allocated again */
#define XFER		20480	/* a long message: 20 packets at MTU 1024 */
#define DM_LEN		131072	/* the data path's DM */
#define DOFF		5096	/* where its region dmr starts in it */
#define MR_LEN		(4 * XFER)	/* dmr's length: 80 packets */
#define W_OFF		0		/* dmr: where WRITEs land */
#define R_OFF		XFER		/* dmr: what READs and SENDs take */
#define V_OFF		(2 * XFER)	/* dmr: where receives land */
#define C_OFF		(3 * XFER)	/* dmr: the DM-to-DM WRITE's target */
#define C_LEN		10240
#define A_OFF		(3 * XFER + XFER / 2)	/* dmr: the atomics' word */
#define DOFF2		110000	/* where the read-only region starts */
#define RO_LEN		8192
#define ADD		0x0000000100000001ULL
#define ACC_DM		(DP_ACC_ALL | IBV_ACCESS_ZERO_BASED)
#define ACC_RO		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_ZERO_BASED)
#define WRAP(n)		((uint64_t)0 - (n))	/* 2^64 - n */
#define VA(p)		((uint64_t)(uintptr_t)(p))

static size_t dm_max;		/* max_dm_size, as queried */
static uint8_t *zero, *pat, *rd;	/* dm_max bytes each */
static struct dp_qp_cfg cfg;
static struct dp_pair p;	/* a requests, b responds and receives */
static struct dp_buf hsrc, hdst;	/* host memory, MR_LEN bytes each */
static struct ibv_dm *big;	/* the data path's DM, DM_LEN bytes */
static struct ibv_mr *dmr;	/* on big: [DOFF, DOFF + MR_LEN), ACC_DM */
static struct ibv_mr *ro;	/* on big: [DOFF2, DOFF2 + RO_LEN), ACC_RO */
static uint8_t shadow[DM_LEN];	/* what big must hold, byte for byte */
static uint64_t wr_id;
static uint32_t seed = 1;

/* ---- the child process ------------------------------------------------ */

/*
 * The child allocates all the device memory in four DMs of a quarter
 * each, writes a pattern to all of it, registers a region on the first
 * and answers; at the parent's next word it exits without freeing
 * anything.  Its answer: the step it failed at (0: none) and errno.
 */
struct cmsg {
	int32_t step;
	int32_t err;
};

static pid_t child_pid = -1;
static int to_child = -1, from_child = -1;

static int child_main(const char *name, int rfd, int wfd)
{
	struct cmsg m = { 0, 0 };
	struct ibv_alloc_dm_attr a = { .length = DM_MAX / 4 };
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_dm *d;
	uint8_t *buf;
	char c;
	int i, ret;

	if (read(rfd, &c, 1) != 1)
		return 0;	/* the parent is gone: nothing to do */
	buf = malloc(DM_MAX / 4);
	ctx = open_by_name(name);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	if (!buf || !pd) {
		m.step = !buf ? 1 : !ctx ? 2 : 3;
		m.err = errno;
		goto answer;
	}
	for (i = 0; i < 4; i++) {
		d = ibv_alloc_dm(ctx, &a);
		if (!d) {
			m.step = 10 + i;
			m.err = errno;
			goto answer;
		}
		dp_fill(buf, DM_MAX / 4, 0xc0 + i);
		ret = ibv_memcpy_to_dm(d, 0, buf, DM_MAX / 4);
		if (ret) {
			m.step = 20 + i;
			m.err = ret;
			goto answer;
		}
		if (!i && !ibv_reg_dm_mr(pd, d, 0, DM_MAX / 4, ACC_DM)) {
			m.step = 30;
			m.err = errno;
			goto answer;
		}
	}
answer:
	if (write(wfd, &m, sizeof(m)) != sizeof(m))
		return 1;
	(void)!read(rfd, &c, 1);
	/* Neither freed nor deregistered nor closed: the exit does it. */
	return 0;
}

/* Tell the child to allocate; its answer (step -1: none came). */
static struct cmsg child_fill(void)
{
	struct cmsg m = { -1, 0 };

	if (to_child < 0 || write(to_child, "g", 1) != 1 ||
	    read(from_child, &m, sizeof(m)) != sizeof(m))
		m.step = -1;
	return m;
}

/* Tell the child to exit (or close its pipe) and reap it: its status. */
static int child_end(void)
{
	int status = -1;

	if (child_pid <= 0)
		return -1;
	if (to_child >= 0) {
		(void)!write(to_child, "x", 1);
		close(to_child);
		to_child = -1;
	}
	if (waitpid(child_pid, &status, 0) != child_pid)
		status = -1;
	child_pid = -1;
	if (from_child >= 0)
		close(from_child);
	from_child = -1;
	return status;
}

static void at_exit(void)
{
	child_end();
}

/* ---- allocations ------------------------------------------------------ */

static struct ibv_dm *dm_alloc(size_t len, uint32_t log_align,
			       uint32_t comp_mask)
{
	struct ibv_alloc_dm_attr a = {
		.length = len, .log_align_req = log_align,
		.comp_mask = comp_mask,
	};
	struct ibv_dm *d;

	errno = 0;
	d = ibv_alloc_dm(dp.ctx, &a);
	if (!d)
		diag("ibv_alloc_dm(length %zu, log_align_req %u, comp_mask 0x%x): %s",
		     len, log_align, comp_mask, strerror(errno));
	return d;
}

/* An allocation that must be refused with @want; one made is freed. */
static int refused(size_t len, uint32_t log_align, uint32_t comp_mask,
		   int want, const char *what)
{
	struct ibv_alloc_dm_attr a = {
		.length = len, .log_align_req = log_align,
		.comp_mask = comp_mask,
	};
	struct ibv_dm *d;

	errno = 0;
	d = ibv_alloc_dm(dp.ctx, &a);
	if (d) {
		diag("%s: ibv_alloc_dm succeeded", what);
		ibv_free_dm(d);
		return 0;
	}
	return expect_errno(errno, want, what);
}

/* ibv_free_dm of *@d (if any): 1 if it returned 0; *@d is then NULL. */
static int dm_free(struct ibv_dm **d)
{
	int ret;

	if (!*d)
		return 0;
	ret = ibv_free_dm(*d);
	if (ret) {
		diag("ibv_free_dm: %s", strerror(ret));
		return 0;
	}
	*d = NULL;
	return 1;
}

/* The first @len bytes of @d read back as @want (NULL: as zeroes). */
static int dm_reads(struct ibv_dm *d, size_t len, const uint8_t *want,
		    const char *what)
{
	int ret;

	if (!d)
		return 0;
	memset(rd, DP_POISON, len);
	ret = ibv_memcpy_from_dm(rd, d, 0, len);
	if (ret) {
		diag("%s: ibv_memcpy_from_dm(offset 0, %zu bytes): %s", what,
		     len, strerror(ret));
		return 0;
	}
	return dp_cmp(rd, want ? want : zero, len, what);
}

/* Write stream @s to the first @len bytes of @d. */
static int dm_put(struct ibv_dm *d, size_t len, uint32_t s)
{
	int ret;

	if (!d)
		return 0;
	dp_fill(pat, len, s);
	ret = ibv_memcpy_to_dm(d, 0, pat, len);
	if (ret)
		diag("ibv_memcpy_to_dm(offset 0, %zu bytes): %s", len,
		     strerror(ret));
	return !ret;
}

/* The first @len bytes of @d hold stream @s. */
static int dm_holds(struct ibv_dm *d, size_t len, uint32_t s,
		    const char *what)
{
	uint8_t *want = malloc(len);
	int good;

	if (!want)
		return 0;
	dp_fill(want, len, s);
	good = dm_reads(d, len, want, what);
	free(want);
	return good;
}

/* ---- the data path ---------------------------------------------------- */

/* After a failed request the QPs are in error: a new pair. */
static void renew(void)
{
	dp_pair_renew(&p, &cfg);
}

/*
 * Before a request that must succeed: if an earlier one that should
 * have succeeded left the pair in error, a new pair, so that only that
 * one's point fails.
 */
static void ready(void)
{
	dp_pair_ready(&p, &cfg);
}

/*
 * big holds what shadow says, every one of its DM_LEN bytes.  If not,
 * the model takes what big holds, so that one wrong step fails its own
 * point and not every later one too.
 */
static int big_is_shadow(const char *what)
{
	if (dm_reads(big, DM_LEN, shadow, what))
		return 1;
	if (big && !ibv_memcpy_from_dm(rd, big, 0, DM_LEN))
		memcpy(shadow, rd, DM_LEN);
	return 0;
}

/* Write stream @s to bytes [@off, @off + @len) of big (and the model). */
static int big_put(size_t off, size_t len, uint32_t s)
{
	int ret;

	dp_fill(shadow + off, len, s);
	ret = big ? ibv_memcpy_to_dm(big, off, shadow + off, len) : -1;
	if (ret)
		diag("ibv_memcpy_to_dm(offset %zu, %zu bytes) of the data path's DM: %d",
		     off, len, ret);
	return !ret;
}

static uint64_t shadow_word(size_t off)
{
	uint64_t v;

	memcpy(&v, shadow + off, 8);
	return v;
}

static void shadow_set_word(size_t off, uint64_t v)
{
	memcpy(shadow + off, &v, 8);
}

/*
 * Post @wr signalled on a's QP and wait for its completion: its status
 * (diagnosed unless SUCCESS), or -1 if none came, another WR's came or
 * a successful one has another opcode than @opcode.
 */
static int post_wait(struct ibv_send_wr *wr, enum ibv_wc_opcode opcode,
		     const char *what)
{
	struct ibv_wc wc;

	wr->wr_id = ++wr_id;
	wr->send_flags |= IBV_SEND_SIGNALED;
	if (!p.a.qp || dp_post_send(p.a.qp, wr))
		return -1;
	if (!dp_poll1(p.a.scq, &wc, what))
		return -1;
	if (wc.wr_id != wr->wr_id ||
	    (wc.status == IBV_WC_SUCCESS && wc.opcode != opcode)) {
		dp_wc_diag(what, &wc);
		diag("%s: wanted wr_id 0x%llx, opcode %s", what,
		     (unsigned long long)wr->wr_id, dp_wc_opcode_str(opcode));
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS)
		diag("%s: %s", what, ibv_wc_status_str(wc.status));
	return wc.status;
}

/* An RDMA WRITE or READ of @len bytes between (@laddr, @lkey) and (@raddr, @rkey). */
static int rdma(enum ibv_wr_opcode op, uint64_t laddr, uint32_t len,
		uint32_t lkey, uint64_t raddr, uint32_t rkey, const char *what)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op };

	ready();
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return post_wait(&wr, op == IBV_WR_RDMA_READ ? IBV_WC_RDMA_READ :
			 IBV_WC_RDMA_WRITE, what);
}

/* FETCH_ADD (@swap unused) or CMP_SWP on the word at (@raddr, @rkey). */
static int atomic(enum ibv_wr_opcode op, uint64_t laddr, uint32_t lkey,
		  uint64_t raddr, uint32_t rkey, uint64_t cmp_add,
		  uint64_t swap, const char *what)
{
	struct ibv_sge sge = { .addr = laddr, .length = 8, .lkey = lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op };

	ready();
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	return post_wait(&wr, op == IBV_WR_ATOMIC_CMP_AND_SWP ?
			 IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD, what);
}

/*
 * a SENDs the gather list @s (@ns SGEs) to b, whose receive scatters it
 * into @r (@nr SGEs): 1 if the SEND completes successfully and the
 * receive with RECV, byte_len @len, b's qp_num.
 */
static int send_recv(struct ibv_sge *s, int ns, struct ibv_sge *r, int nr,
		     uint32_t len, const char *what)
{
	struct ibv_send_wr wr = { .sg_list = s, .num_sge = ns,
				  .opcode = IBV_WR_SEND };
	struct dp_wc_want w = { 0, IBV_WC_SUCCESS, IBV_WC_RECV, len, 0, -1,
				0, -1 };
	struct ibv_wc wc;
	int good;

	ready();
	if (!p.a.qp || !p.b.qp)
		return 0;
	w.wr_id = ++wr_id;
	w.qp_num = p.b.qp->qp_num;
	if (dp_post_recv(p.b.qp, w.wr_id, r, nr))
		return 0;
	good = post_wait(&wr, IBV_WC_SEND, what) == IBV_WC_SUCCESS;
	if (!dp_poll1(p.b.rcq, &wc, what))
		return 0;
	return dp_wc_check(&wc, &w, what) && good;
}

/* @n bytes at @m all still hold the poison they were given. */
static int untouched(const uint8_t *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (m[i] != DP_POISON)
			return 0;
	return 1;
}

/* ---- the sections ----------------------------------------------------- */

/* Refused allocations, and one of all the device memory. */
static void t_alloc_rules(void)
{
	struct ibv_dm *d;
	int good;

	ok(refused(GRAN, 0, 1, EINVAL, "comp_mask 1"),
	   "ibv_alloc_dm of 4096 bytes with comp_mask 1: EINVAL");
	ok(refused(0, 0, 0, EINVAL, "length 0"),
	   "ibv_alloc_dm of length 0: EINVAL");
	ok(refused(dm_max + 1, 0, 0, ENOMEM, "max_dm_size + 1"),
	   "ibv_alloc_dm of max_dm_size + 1 bytes: ENOMEM");
	ok(refused((1ULL << 32) + GRAN, 0, 0, ENOMEM, "2^32 + 4096") &&
	   refused(SIZE_MAX, 0, 0, ENOMEM, "SIZE_MAX"),
	   "ibv_alloc_dm of 2^32 + 4096 bytes (4096 if cut to 32 bits) and of SIZE_MAX bytes: ENOMEM");
	ok(refused(GRAN, LOG_MAX + 1, 0, EINVAL, "log_align_req 19"),
	   "ibv_alloc_dm with log_align_req %d (larger than 18): EINVAL",
	   LOG_MAX + 1);
	ok(refused(GRAN, 32, 0, EINVAL, "log_align_req 32") &&
	   refused(GRAN, 64, 0, EINVAL, "log_align_req 64") &&
	   refused(GRAN, UINT32_MAX, 0, EINVAL, "log_align_req 2^32 - 1"),
	   "ibv_alloc_dm with log_align_req 32, 64 and 2^32 - 1: EINVAL");

	d = dm_alloc(dm_max, 0, 0);
	good = d && d->context == dp.ctx && dm_reads(d, dm_max, NULL, "all");
	ok(dm_free(&d) && good,
	   "ibv_alloc_dm of all max_dm_size (%zu) bytes: its context the device's, it reads as zeroes; ibv_free_dm 0",
	   dm_max);
}

/*
 * Four allocations fill the device memory; a fifth does not fit; the
 * space one of them leaves is given again, zeroed.
 */
static void t_fill(void)
{
	size_t q = dm_max / 4;
	size_t len[4] = { q, q, q - GRAN + 1, q };
	struct ibv_dm *f[4] = { NULL }, *d;
	int i, made = 1, zeroed = 1, put = 1, held = 1, freed;

	for (i = 0; i < 4; i++) {
		f[i] = dm_alloc(len[i], 0, 0);
		made &= f[i] != NULL;
		zeroed &= dm_reads(f[i], len[i], NULL, "a new allocation");
	}
	ok(made && zeroed,
	   "four allocations of %zu, %zu, %zu and %zu bytes (%zu granules of 4 KiB in all: all the device memory) succeed, each reads as zeroes",
	   len[0], len[1], len[2], len[3], dm_max / GRAN);
	for (i = 0; i < 4; i++)
		put &= dm_put(f[i], len[i], 100 + i);
	for (i = 0; i < 4; i++)
		held &= dm_holds(f[i], len[i], 100 + i, "a quarter");
	ok(made && put && held,
	   "each of the four, written in full with its own pattern, holds it after all four were written: they do not overlap");
	ok(refused(GRAN, 0, 0, ENOMEM, "a fifth"),
	   "a fifth allocation, of 4096 bytes: ENOMEM (the third's %zu bytes take %zu granules)",
	   len[2], q / GRAN);

	freed = dm_free(&f[1]);
	d = dm_alloc(q, 0, 0);
	held = dm_holds(f[0], len[0], 100, "the first") &&
	       dm_holds(f[2], len[2], 102, "the third") &&
	       dm_holds(f[3], len[3], 103, "the fourth");
	ok(freed && d && dm_reads(d, q, NULL, "in the second's space") && held,
	   "after ibv_free_dm of the second (0), an allocation of %zu bytes fits in the space it left (the only space free) and reads as zeroes though that held the second's pattern; the other three still hold theirs",
	   q);
	freed = dm_free(&d);
	for (i = 0; i < 4; i++)
		if (f[i])
			freed &= dm_free(&f[i]);
	ok(freed, "ibv_free_dm of the four: 0 each");
}

/* Freed memory given again is zeroed; alignment. */
static void t_reuse_align(void)
{
	size_t slots = dm_max >> 16;	/* 64 KiB-aligned starts */
	struct ibv_dm *a[64] = { NULL }, *d, *u;
	int put, freed, good = 1, held = 1;
	size_t i;

	d = dm_alloc(REUSE, 0, 0);
	put = dm_put(d, REUSE, 7) && dm_holds(d, REUSE, 7, "before the free");
	freed = dm_free(&d);
	d = dm_alloc(REUSE, 0, 0);
	ok(put && freed && dm_reads(d, REUSE, NULL, "allocated again"),
	   "an allocation of %d bytes written in full with a pattern and freed; a new allocation of %d bytes reads as zeroes",
	   REUSE, REUSE);
	dm_free(&d);

	if (slots > DP_ARRAY_SIZE(a))
		slots = DP_ARRAY_SIZE(a);
	for (i = 0; i < slots; i++) {
		a[i] = dm_alloc(GRAN, 16, 0);
		good &= a[i] && dm_reads(a[i], GRAN, NULL, "aligned") &&
			dm_put(a[i], GRAN, 200 + i);
	}
	for (i = 0; i < slots; i++)
		held &= dm_holds(a[i], GRAN, 200 + i, "aligned");
	ok(good && held,
	   "%zu allocations of 4096 bytes with log_align_req 16 succeed, read as zeroes and do not overlap",
	   slots);
	u = NULL;
	ok(refused(GRAN, 16, 0, ENOMEM, "aligned, one too many") &&
	   (u = dm_alloc(GRAN, 0, 0)) != NULL,
	   "another with log_align_req 16: ENOMEM (%zu bytes have %zu starts aligned to 64 KiB, all taken); one of 4096 bytes with log_align_req 0 still fits",
	   dm_max, slots);
	freed = dm_free(&u) || !u;
	for (i = 0; i < slots; i++)
		freed &= dm_free(&a[i]);

	d = dm_alloc(GRAN, LOG_MAX, 0);
	ok(freed && d && refused(GRAN, LOG_MAX, 0, ENOMEM, "second at 2^18"),
	   "log_align_req 18 (the device memory's size): an allocation of 4096 bytes succeeds; a second while it is held: ENOMEM (offset 0 is the only start so aligned)");
	dm_free(&d);
}

/* The copies' bounds, the regions' rules and ibv_free_dm, on 5000 bytes. */
static void t_small(void)
{
	uint8_t model[SMALL], b, c;
	struct ibv_mr *m1 = NULL, *m2 = NULL, *m3, *m;
	struct ibv_dm *s;
	int r1, r2, good;

	s = dm_alloc(SMALL, 0, 0);
	dp_fill(model, SMALL, 9);
	r1 = s ? ibv_memcpy_to_dm(s, 0, model, SMALL) : -1;
	ok(s && !r1 && dm_reads(s, SMALL, model, "5000 bytes"),
	   "ibv_memcpy_to_dm of %d bytes at offset 0 of a DM of %d bytes: 0; ibv_memcpy_from_dm of them: 0, the same bytes",
	   SMALL, SMALL);
	if (!s)
		return;

	dp_fill(pat, 4001, 10);
	memcpy(model + 3, pat, 4001);
	r1 = ibv_memcpy_to_dm(s, 3, pat, 4001);
	memset(rd, DP_POISON, 997 + 8);
	r2 = ibv_memcpy_from_dm(rd, s, 1001, 997);
	good = !r1 && !r2 && dp_cmp(rd, model + 1001, 997, "997 at 1001") &&
	       untouched(rd + 997, 8);
	ok(good && dm_reads(s, SMALL, model, "after 4001 at 3"),
	   "ibv_memcpy_to_dm of 4001 bytes at offset 3 and ibv_memcpy_from_dm of 997 at offset 1001 (neither a multiple of 8): 0; exactly those bytes copied, the rest unchanged");

	b = model[SMALL - 1] ^ 0x5a;
	r1 = ibv_memcpy_to_dm(s, SMALL - 1, &b, 1);
	c = 0;
	r2 = ibv_memcpy_from_dm(&c, s, SMALL - 1, 1);
	if (!r1)
		model[SMALL - 1] = b;
	ok(!r1 && !r2 && c == b,
	   "offset 4999, length 1 (the last byte asked for): ibv_memcpy_to_dm 0 and ibv_memcpy_from_dm 0 of the byte written");

	dp_fill(pat, SMALL + 1, 11);
	good = expect_errno(ibv_memcpy_to_dm(s, SMALL - 1, pat, 2), EINVAL,
			    "to_dm at 4999, 2 bytes");
	good &= expect_errno(ibv_memcpy_to_dm(s, SMALL, pat, 1), EINVAL,
			     "to_dm at 5000, 1 byte");
	good &= expect_errno(ibv_memcpy_to_dm(s, 0, pat, SMALL + 1), EINVAL,
			     "to_dm at 0, 5001 bytes");
	ok(good && dm_reads(s, SMALL, model, "after refused copies"),
	   "ibv_memcpy_to_dm past the %d bytes asked for (offset 4999 length 2, offset 5000 length 1, offset 0 length 5001; its granules reach 8192): EINVAL, nothing written",
	   SMALL);
	good = expect_errno(ibv_memcpy_to_dm(s, WRAP(1), pat, 2), EINVAL,
			    "to_dm at 2^64 - 1, 2 bytes");
	good &= expect_errno(ibv_memcpy_to_dm(s, WRAP(GRAN), pat, GRAN + 1),
			     EINVAL, "to_dm at 2^64 - 4096, 4097 bytes");
	ok(good && dm_reads(s, SMALL, model, "after wrapping copies"),
	   "ibv_memcpy_to_dm where offset + length wraps around 2^64 to 1 (offset 2^64 - 1 length 2, offset 2^64 - 4096 length 4097): EINVAL, nothing written");
	good = expect_errno(ibv_memcpy_from_dm(rd, s, SMALL - 1, 2), EINVAL,
			    "from_dm at 4999, 2 bytes");
	good &= expect_errno(ibv_memcpy_from_dm(rd, s, SMALL, 1), EINVAL,
			     "from_dm at 5000, 1 byte");
	good &= expect_errno(ibv_memcpy_from_dm(rd, s, 0, SMALL + 1), EINVAL,
			     "from_dm at 0, 5001 bytes");
	good &= expect_errno(ibv_memcpy_from_dm(rd, s, WRAP(1), 2), EINVAL,
			     "from_dm at 2^64 - 1, 2 bytes");
	good &= expect_errno(ibv_memcpy_from_dm(rd, s, WRAP(GRAN), GRAN + 1),
			     EINVAL, "from_dm at 2^64 - 4096, 4097 bytes");
	ok(good,
	   "ibv_memcpy_from_dm past the %d bytes (the same three ranges) or where offset + length wraps around (the same two): EINVAL",
	   SMALL);

	/* ---- regions ------------------------------------------------------ */
	errno = 0;
	m = ibv_reg_dm_mr(dp.pd, s, 0, SMALL, DP_ACC_ALL);
	ok(!m && expect_errno(errno, EINVAL, "no ZERO_BASED"),
	   "ibv_reg_dm_mr without IBV_ACCESS_ZERO_BASED: EINVAL");
	if (m)
		ibv_dereg_mr(m);
	good = 1;
	{
		static const uint64_t rng[][2] = {
			{ 4096, SMALL - 4096 + 1 }, { SMALL, 1 }, { 0, SMALL + 1 },
			{ 0, 8192 }, { WRAP(1), 2 }, { WRAP(GRAN), GRAN + 1 },
		};
		size_t i;

		for (i = 0; i < DP_ARRAY_SIZE(rng); i++) {
			errno = 0;
			m = ibv_reg_dm_mr(dp.pd, s, rng[i][0], rng[i][1],
					  ACC_DM);
			if (m) {
				diag("ibv_reg_dm_mr(dm_offset %llu, length %llu) succeeded",
				     (unsigned long long)rng[i][0],
				     (unsigned long long)rng[i][1]);
				ibv_dereg_mr(m);
				good = 0;
			} else {
				good &= expect_errno(errno, EINVAL,
						     "reg_dm_mr past the DM");
			}
		}
	}
	ok(good,
	   "ibv_reg_dm_mr with dm_offset + length past the %d bytes (4096 + 905, 5000 + 1, 0 + 5001, 0 + 8192: the granules) or wrapping around 2^64 (2^64 - 1 + 2, 2^64 - 4096 + 4097): EINVAL",
	   SMALL);
	m1 = ibv_reg_dm_mr(dp.pd, s, 4096, SMALL - 4096, ACC_DM);
	if (!m1)
		diag("ibv_reg_dm_mr(4096, %d): %s", SMALL - 4096,
		     strerror(errno));
	m2 = ibv_reg_dm_mr(dp.pd, s, 0, SMALL, ACC_DM);
	if (!m2)
		diag("ibv_reg_dm_mr(0, %d): %s", SMALL, strerror(errno));
	ok(m1 && m2 && m1->length == SMALL - 4096 && m2->length == SMALL &&
	   m1->pd == dp.pd && m2->pd == dp.pd,
	   "ibv_reg_dm_mr of bytes 4096 to 4999 (ending at the last byte asked for) and of all %d, with ZERO_BASED and every right: both succeed, their length and PD as asked",
	   SMALL);
	/*
	 * Remote atomics address 8-byte words from the region's start,
	 * which must then be 8-byte aligned in device memory (orca(7)).
	 */
	errno = 0;
	m3 = ibv_reg_dm_mr(dp.pd, s, 1001, 64, ACC_DM);
	ok(!m3 && expect_errno(errno, EINVAL, "atomic, dm_offset 1001"),
	   "ibv_reg_dm_mr at dm_offset 1001 with REMOTE_ATOMIC: EINVAL");
	if (m3)
		ibv_dereg_mr(m3);
	m3 = ibv_reg_dm_mr(dp.pd, s, 1001, 64, ACC_DM &
			   ~IBV_ACCESS_REMOTE_ATOMIC);
	ok(m3 && !ibv_dereg_mr(m3),
	   "ibv_reg_dm_mr at dm_offset 1001 without REMOTE_ATOMIC: registered and deregistered");

	r1 = ibv_free_dm(s);
	b = model[0] ^ 0xff;
	r2 = r1 ? ibv_memcpy_to_dm(s, 0, &b, 1) : -1;
	if (!r2)
		model[0] = b;
	ok(expect_errno(r1, EBUSY, "free_dm with two MRs") && !r2 &&
	   dm_reads(s, SMALL, model, "after EBUSY"),
	   "ibv_free_dm with both regions on the DM: EBUSY; the DM still works (a byte written to it lands, all of it reads back)");
	if (!r1) {
		/* It went: the regions must not keep the PD. */
		if (m1)
			ibv_dereg_mr(m1);
		if (m2)
			ibv_dereg_mr(m2);
		return;
	}
	r1 = m1 ? ibv_dereg_mr(m1) : -1;
	r2 = ibv_free_dm(s);
	good = !r1 && expect_errno(r2, EBUSY, "free_dm with one MR");
	r1 = m2 ? ibv_dereg_mr(m2) : -1;
	r2 = r2 ? ibv_free_dm(s) : -1;
	ok(good && !r1 && !r2,
	   "with one region deregistered ibv_free_dm is still EBUSY; with both deregistered it frees (0)");
}

/* Another process holds all the device memory, then exits. */
static void t_child(void)
{
	struct cmsg m;
	struct ibv_dm *d;
	int status, good;

	m = child_fill();
	if (m.step)
		diag("the child failed at step %d: %s", m.step,
		     m.step > 0 ? strerror(m.err) : "no answer");
	ok(!m.step && refused(GRAN, 0, 0, ENOMEM, "while the child holds all"),
	   "a child process allocates all the device memory in four DMs, writes a pattern to all of it and registers a region on one; meanwhile the parent's allocation of 4096 bytes: ENOMEM");
	status = child_end();
	d = dm_alloc(dm_max, 0, 0);
	good = d && dm_reads(d, dm_max, NULL, "after the child");
	ok(status == 0 && good && dm_free(&d),
	   "the child exits (status 0) with nothing freed, deregistered or closed; once waitpid returns, an allocation of all %zu bytes succeeds and reads as zeroes",
	   dm_max);
}

/* Set up the data path: big, dmr, ro, host buffers and the pair. */
static int dp_setup(void)
{
	big = dm_alloc(DM_LEN, 0, 0);
	memset(shadow, 0, sizeof(shadow));
	dmr = big ? ibv_reg_dm_mr(dp.pd, big, DOFF, MR_LEN, ACC_DM) : NULL;
	if (big && !dmr)
		diag("ibv_reg_dm_mr(%d, %d): %s", DOFF, MR_LEN, strerror(errno));
	ro = big ? ibv_reg_dm_mr(dp.pd, big, DOFF2, RO_LEN, ACC_RO) : NULL;
	if (big && !ro)
		diag("ibv_reg_dm_mr(%d, %d, read only): %s", DOFF2, RO_LEN,
		     strerror(errno));
	return ok(big && dmr && ro && big_is_shadow("new") &&
		  !dp_buf_alloc(&hsrc, dp.pd, MR_LEN, DP_ACC_ALL) &&
		  !dp_buf_alloc(&hdst, dp.pd, MR_LEN, DP_ACC_ALL) &&
		  !dp_pair_make(&p, &cfg),
		  "a DM of %d bytes reads as zeroes; regions on it: bytes %d to %d with every right and ZERO_BASED, bytes %d to %d with LOCAL_WRITE, REMOTE_READ and ZERO_BASED; host buffers; an RC pair (path MTU %u)",
		  DM_LEN, DOFF, DOFF + MR_LEN - 1, DOFF2, DOFF2 + RO_LEN - 1,
		  dp_mtu_bytes());
}

static void t_data(void)
{
	struct ibv_sge s[3], r[3];
	uint64_t v, got, sw;
	int st, st2, put;

	/* ---- RDMA WRITE and READ ----------------------------------------- */
	dp_fill(hsrc.p, XFER, ++seed);
	st = rdma(IBV_WR_RDMA_WRITE, VA(hsrc.p), XFER, hsrc.mr->lkey, W_OFF,
		  dmr->rkey, "WRITE to the DM");
	memcpy(shadow + DOFF + W_OFF, hsrc.p, XFER);
	ok(st == IBV_WC_SUCCESS && big_is_shadow("after the WRITE"),
	   "RDMA WRITE of %d bytes from host memory through the DM region's rkey to remote_addr 0: completion RDMA_WRITE; the bytes are DM bytes %d to %d, the rest of the DM (byte %d before them too) still zero",
	   XFER, DOFF, DOFF + XFER - 1, DOFF - 1);

	dp_fill(hsrc.p, 7, ++seed);
	st = rdma(IBV_WR_RDMA_WRITE, VA(hsrc.p), 7, hsrc.mr->lkey, MR_LEN - 7,
		  dmr->rkey, "WRITE to the region's end");
	memcpy(shadow + DOFF + MR_LEN - 7, hsrc.p, 7);
	ok(st == IBV_WC_SUCCESS && big_is_shadow("after the WRITE at the end"),
	   "RDMA WRITE of 7 bytes to remote_addr %d (ending at the region's last byte): DM bytes %d to %d, the byte after unchanged",
	   MR_LEN - 7, DOFF + MR_LEN - 7, DOFF + MR_LEN - 1);

	put = big_put(DOFF + R_OFF, XFER, ++seed);
	memset(hdst.p, DP_POISON, XFER + 64);
	st = rdma(IBV_WR_RDMA_READ, VA(hdst.p), XFER, hdst.mr->lkey, R_OFF,
		  dmr->rkey, "READ from the DM");
	ok(put && st == IBV_WC_SUCCESS &&
	   dp_cmp(hdst.p, shadow + DOFF + R_OFF, XFER, "READ") &&
	   untouched(hdst.p + XFER, 64) && big_is_shadow("after the READ"),
	   "RDMA READ of %d bytes from remote_addr %d of the DM region into host memory: completion RDMA_READ, the bytes of DM offset %d (written by ibv_memcpy_to_dm), nothing more; the DM unchanged",
	   XFER, R_OFF, DOFF + R_OFF);

	/* ---- SEND and receive -------------------------------------------- */
	s[0] = (struct ibv_sge){ R_OFF, XFER, dmr->lkey };
	r[0] = (struct ibv_sge){ VA(hdst.p), XFER, hdst.mr->lkey };
	memset(hdst.p, DP_POISON, XFER);
	ok(send_recv(s, 1, r, 1, XFER, "SEND from the DM") &&
	   dp_cmp(hdst.p, shadow + DOFF + R_OFF, XFER, "received from the DM"),
	   "SEND of %d bytes whose SGE is the DM region (addr %d, its lkey) into a host receive: completions SEND and RECV (byte_len %d), the DM's bytes received",
	   XFER, R_OFF, XFER);

	dp_fill(hsrc.p, 3100, ++seed);
	memcpy(pat, hsrc.p, 100);
	memcpy(pat + 100, shadow + DOFF + R_OFF + 333, 10000);
	memcpy(pat + 10100, hsrc.p + 100, 3000);
	s[0] = (struct ibv_sge){ VA(hsrc.p), 100, hsrc.mr->lkey };
	s[1] = (struct ibv_sge){ R_OFF + 333, 10000, dmr->lkey };
	s[2] = (struct ibv_sge){ VA(hsrc.p + 100), 3000, hsrc.mr->lkey };
	memset(hdst.p, DP_POISON, 13100 + 64);
	ok(send_recv(s, 3, r, 1, 13100, "SEND gathered") &&
	   dp_cmp(hdst.p, pat, 13100, "gathered") &&
	   untouched(hdst.p + 13100, 64),
	   "SEND gathered from host (100 bytes), DM (10000 bytes at region offset %d) and host (3000 bytes) SGEs: the 13100 bytes arrive in order",
	   R_OFF + 333);

	dp_fill(hsrc.p, XFER, ++seed);
	s[0] = (struct ibv_sge){ VA(hsrc.p), XFER, hsrc.mr->lkey };
	r[0] = (struct ibv_sge){ V_OFF, XFER, dmr->lkey };
	st = send_recv(s, 1, r, 1, XFER, "SEND into the DM");
	memcpy(shadow + DOFF + V_OFF, hsrc.p, XFER);
	ok(st && big_is_shadow("after the receive"),
	   "SEND of %d bytes from host memory into a receive whose SGE is the DM region (addr %d): completions SEND and RECV (byte_len %d); DM bytes %d to %d hold them, the rest unchanged",
	   XFER, V_OFF, XFER, DOFF + V_OFF, DOFF + V_OFF + XFER - 1);

	dp_fill(hsrc.p, XFER, ++seed);
	memset(hdst.p, DP_POISON, 8480 + 64);
	r[0] = (struct ibv_sge){ VA(hdst.p), 500, hdst.mr->lkey };
	r[1] = (struct ibv_sge){ V_OFF + 4321, 12000, dmr->lkey };
	r[2] = (struct ibv_sge){ VA(hdst.p + 500), 7980, hdst.mr->lkey };
	st = send_recv(s, 1, r, 3, XFER, "SEND scattered");
	memcpy(shadow + DOFF + V_OFF + 4321, hsrc.p + 500, 12000);
	ok(st && dp_cmp(hdst.p, hsrc.p, 500, "first host piece") &&
	   dp_cmp(hdst.p + 500, hsrc.p + 12500, 7980, "second host piece") &&
	   untouched(hdst.p + 8480, 64) && big_is_shadow("after the scatter"),
	   "a receive scattered over host (500 bytes), DM (12000 bytes at region offset %d) and host (7980 bytes) SGEs: each piece of the %d-byte SEND where it belongs, the DM otherwise unchanged",
	   V_OFF + 4321, XFER);

	/* ---- DM to DM, host to DM by READ --------------------------------- */
	st = rdma(IBV_WR_RDMA_WRITE, R_OFF, C_LEN, dmr->lkey, C_OFF, dmr->rkey,
		  "WRITE DM to DM");
	memcpy(shadow + DOFF + C_OFF, shadow + DOFF + R_OFF, C_LEN);
	ok(st == IBV_WC_SUCCESS && big_is_shadow("after DM to DM"),
	   "RDMA WRITE of %d bytes from the DM region (SGE addr %d) to it (remote_addr %d): the bytes copied within the DM",
	   C_LEN, R_OFF, C_OFF);

	dp_fill(hsrc.p, XFER, ++seed);
	st = rdma(IBV_WR_RDMA_READ, W_OFF + 1, XFER - 1, dmr->lkey,
		  VA(hsrc.p + 1), hsrc.mr->rkey, "READ into the DM");
	memcpy(shadow + DOFF + W_OFF + 1, hsrc.p + 1, XFER - 1);
	ok(st == IBV_WC_SUCCESS && big_is_shadow("after READ into the DM"),
	   "RDMA READ of %d bytes of host memory into an SGE of the DM region (addr 1): DM bytes %d to %d hold them, the rest unchanged",
	   XFER - 1, DOFF + 1, DOFF + XFER - 1);

	/* ---- atomics ------------------------------------------------------ */
	v = 0x1122334455667788ULL;
	shadow_set_word(DOFF + A_OFF, v);
	put = big ? !ibv_memcpy_to_dm(big, DOFF + A_OFF, &v, 8) : 0;
	memset(hdst.p, DP_POISON, 8);
	st = atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, VA(hdst.p), hdst.mr->lkey,
		    A_OFF, dmr->rkey, ADD, 0, "FETCH_ADD");
	memcpy(&got, hdst.p, 8);
	shadow_set_word(DOFF + A_OFF, v + ADD);
	ok(put && st == IBV_WC_SUCCESS && got == v &&
	   big_is_shadow("after FETCH_ADD"),
	   "FETCH_ADD of 0x%llx on the word at remote_addr %d of the DM region: completion FETCH_ADD, the old value 0x%llx returned (got 0x%llx), DM word %d now the sum",
	   (unsigned long long)ADD, A_OFF, (unsigned long long)v,
	   (unsigned long long)got, DOFF + A_OFF);

	v = shadow_word(DOFF + A_OFF);
	sw = 0x0f0e0d0c0b0a0908ULL;
	memset(hdst.p, DP_POISON, 8);
	st = atomic(IBV_WR_ATOMIC_CMP_AND_SWP, VA(hdst.p), hdst.mr->lkey,
		    A_OFF, dmr->rkey, v, sw, "CMP_SWP, equal");
	memcpy(&got, hdst.p, 8);
	shadow_set_word(DOFF + A_OFF, sw);
	ok(st == IBV_WC_SUCCESS && got == v && big_is_shadow("after CMP_SWP"),
	   "CMP_SWP on the DM word comparing with its value: completion COMP_SWAP, the old value returned, the word swapped");

	memset(hdst.p, DP_POISON, 8);
	st = atomic(IBV_WR_ATOMIC_CMP_AND_SWP, VA(hdst.p), hdst.mr->lkey,
		    A_OFF, dmr->rkey, ~sw, v, "CMP_SWP, unequal");
	memcpy(&got, hdst.p, 8);
	ok(st == IBV_WC_SUCCESS && got == sw &&
	   big_is_shadow("after a CMP_SWP that did not swap"),
	   "CMP_SWP on it comparing with another value: completion COMP_SWAP, its value returned, the word unchanged");

	st = atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, A_OFF + 8, dmr->lkey, A_OFF,
		    dmr->rkey, ADD, 0, "FETCH_ADD into the DM");
	shadow_set_word(DOFF + A_OFF + 8, sw);
	shadow_set_word(DOFF + A_OFF, sw + ADD);
	ok(st == IBV_WC_SUCCESS && big_is_shadow("after FETCH_ADD into the DM"),
	   "FETCH_ADD on the DM word returning into an SGE of the DM region (the next word): the old value in the next word, the sum in the word");

	/* ---- the whole region, 80 packets --------------------------------- */
	dp_fill(hsrc.p, MR_LEN, ++seed);
	st = rdma(IBV_WR_RDMA_WRITE, VA(hsrc.p), MR_LEN, hsrc.mr->lkey, 0,
		  dmr->rkey, "WRITE of the whole region");
	memcpy(shadow + DOFF, hsrc.p, MR_LEN);
	memset(hdst.p, DP_POISON, MR_LEN);
	st2 = rdma(IBV_WR_RDMA_READ, VA(hdst.p), MR_LEN, hdst.mr->lkey, 0,
		   dmr->rkey, "READ of the whole region");
	ok(st == IBV_WC_SUCCESS && st2 == IBV_WC_SUCCESS &&
	   big_is_shadow("after the whole WRITE") &&
	   dp_cmp(hdst.p, hsrc.p, MR_LEN, "the whole READ"),
	   "RDMA WRITE of all %d bytes of the DM region, then RDMA READ of all of them (%u packets each): DM bytes %d to %d hold them, the rest unchanged, and they read back",
	   MR_LEN, MR_LEN / dp_mtu_bytes(), DOFF, DOFF + MR_LEN - 1);

	/* ---- refused ------------------------------------------------------ */
	put = big_put(DOFF2, RO_LEN, ++seed);
	memset(hdst.p, DP_POISON, RO_LEN);
	st = rdma(IBV_WR_RDMA_READ, VA(hdst.p), RO_LEN, hdst.mr->lkey, 0,
		  ro->rkey, "READ through the read-only region");
	ok(put && st == IBV_WC_SUCCESS &&
	   dp_cmp(hdst.p, shadow + DOFF2, RO_LEN, "read-only READ"),
	   "RDMA READ of %d bytes through the region without REMOTE_WRITE, from remote_addr 0: DM bytes %d on",
	   RO_LEN, DOFF2);

	dp_fill(hsrc.p, 64, ++seed);
	st = rdma(IBV_WR_RDMA_WRITE, VA(hsrc.p), 64, hsrc.mr->lkey, 128,
		  ro->rkey, "WRITE through the read-only region");
	ok(st == IBV_WC_REM_ACCESS_ERR && big_is_shadow("after a refused WRITE"),
	   "RDMA WRITE through the region without REMOTE_WRITE: REM_ACCESS_ERR, nothing written to the DM");
	renew();

	st = rdma(IBV_WR_RDMA_WRITE, VA(hsrc.p), 64, hsrc.mr->lkey,
		  MR_LEN - 32, dmr->rkey, "WRITE past the region's end");
	ok(st == IBV_WC_REM_ACCESS_ERR &&
	   big_is_shadow("after a WRITE past the end"),
	   "RDMA WRITE of 64 bytes to remote_addr %d of the DM region (its last 32 bytes and 32 past its end, inside the DM): REM_ACCESS_ERR, nothing written to the DM",
	   MR_LEN - 32);
	renew();

	memset(hdst.p, DP_POISON, 64);
	st = rdma(IBV_WR_RDMA_WRITE, MR_LEN - 32, 64, dmr->lkey, VA(hdst.p),
		  hdst.mr->rkey, "WRITE from past the region's end");
	ok(st == IBV_WC_LOC_PROT_ERR && untouched(hdst.p, 64),
	   "RDMA WRITE from an SGE of the DM region ending 32 bytes past it: LOC_PROT_ERR, nothing written to the host buffer");
	renew();
}

/* ibv_free_dm of the data path's DM, its two regions on it. */
static void t_data_end(void)
{
	int r1, r2, st, good;

	r1 = ibv_free_dm(big);
	dp_fill(hsrc.p, 64, ++seed);
	st = rdma(IBV_WR_RDMA_WRITE, VA(hsrc.p), 64, hsrc.mr->lkey, 64,
		  dmr->rkey, "WRITE after EBUSY");
	memcpy(shadow + DOFF + 64, hsrc.p, 64);
	ok(expect_errno(r1, EBUSY, "free_dm with regions") &&
	   st == IBV_WC_SUCCESS && big_is_shadow("after EBUSY"),
	   "ibv_free_dm of the data path's DM with its two regions: EBUSY; an RDMA WRITE through the region still lands, the DM reads back");
	if (!r1) {
		big = NULL;
		return;
	}
	r1 = ibv_dereg_mr(ro);
	if (!r1)
		ro = NULL;
	r2 = ibv_free_dm(big);
	if (!r2)
		big = NULL;
	good = !r1 && expect_errno(r2, EBUSY, "free_dm with one region");
	r1 = ibv_dereg_mr(dmr);
	if (!r1)
		dmr = NULL;
	r2 = big ? ibv_free_dm(big) : -1;
	if (!r2)
		big = NULL;
	ok(good && !r1 && !r2,
	   "the read-only region deregistered: ibv_free_dm still EBUSY; the other deregistered too: it frees (0)");
}

/* ---- ibv_import_dm ---------------------------------------------------- */

#define IMP_LEN		9000	/* the imported DM: two granules and a part */
#define IMP_OFF		1000	/* where the region on the import starts */
#define IMP_MR		6000	/* its length */

/* ibv_import_dm(@ctx, @handle) must fail with @want. */
static int import_refused(struct ibv_context *ctx, uint32_t handle, int want,
			  const char *what)
{
	struct ibv_dm *d;

	errno = 0;
	d = ibv_import_dm(ctx, handle);
	if (d) {
		diag("%s: ibv_import_dm succeeded", what);
		ibv_unimport_dm(d);
		return 0;
	}
	return expect_errno(errno, want, what);
}

/*
 * A second context on the same ucontext, from a dup of the cmd_fd; a DM
 * allocated through the first, imported into the second.  The data
 * path runs on the imported context: dp's context and PD are swapped
 * for its own while its pair and host buffers exist, then restored.
 */
static void t_import(void)
{
	struct ibv_context *octx = dp.ctx, *ictx = NULL;
	struct ibv_pd *opd = dp.pd, *ipd = NULL;
	struct ibv_dm *d, *im = NULL;
	struct ibv_mr *imr = NULL, *m;
	uint8_t model[IMP_LEN];
	uint32_t handle = 0;
	int fd, st, st2, r1, r2, good;

	fd = dup(octx->cmd_fd);
	ictx = fd < 0 ? NULL : ibv_import_device(fd);
	if (!ictx)
		diag("ibv_import_device(dup(cmd_fd) = %d): %s", fd,
		     strerror(errno));
	ok(ictx && ictx != octx && ictx->device == octx->device,
	   "ibv_import_device of a dup of the context's cmd_fd: a second context on the device");
	if (!ictx)
		return;

	d = dm_alloc(IMP_LEN, 0, 0);
	dp_fill(model, IMP_LEN, ++seed);
	r1 = d ? ibv_memcpy_to_dm(d, 0, model, IMP_LEN) : -1;
	if (d) {
		handle = d->handle;
		errno = 0;
		im = ibv_import_dm(ictx, handle);
		if (!im)
			diag("ibv_import_dm(%u): %s", handle, strerror(errno));
	}
	ok(!r1 && im && im != d && im->context == ictx &&
	   im->handle == handle && (im->comp_mask & IBV_DM_MASK_HANDLE) &&
	   dm_reads(im, IMP_LEN, model, "read through the import"),
	   "ibv_import_dm in the imported context of the handle of a DM of %d bytes allocated (and written) through the first: a new ibv_dm of that context, the same handle, IBV_DM_MASK_HANDLE; it reads the bytes written through the original",
	   IMP_LEN);
	if (!im)
		goto out_dm;

	dp_fill(pat, 3333, ++seed);
	r1 = ibv_memcpy_to_dm(im, 4097, pat, 3333);
	if (!r1)
		memcpy(model + 4097, pat, 3333);
	ok(!r1 && dm_reads(d, IMP_LEN, model, "read through the original"),
	   "ibv_memcpy_to_dm of 3333 bytes at offset 4097 of the import: the original reads them there, the rest unchanged");
	good = expect_errno(ibv_memcpy_to_dm(im, IMP_LEN - 1, pat, 2), EINVAL,
			    "import: to_dm past the end");
	good &= expect_errno(ibv_memcpy_from_dm(rd, im, IMP_LEN, 1), EINVAL,
			     "import: from_dm past the end");
	good &= expect_errno(ibv_memcpy_to_dm(im, WRAP(1), pat, 2), EINVAL,
			     "import: to_dm wrapping");
	ok(good && dm_reads(d, IMP_LEN, model, "after the import's refusals"),
	   "the import's copies are bounded by the %d bytes asked at allocation, not its granules (offset %d length 2, offset %d length 1, offset 2^64 - 1 length 2: EINVAL), nothing written",
	   IMP_LEN, IMP_LEN - 1, IMP_LEN);

	good = import_refused(ictx, 0x7ffffff0, ENOENT, "no such handle");
	good &= import_refused(octx, 0x7ffffff0, ENOENT,
			       "no such handle, first context");
	ok(good,
	   "ibv_import_dm of a handle that names no object (0x7ffffff0), in either context: NULL, ENOENT");
	ok(import_refused(ictx, opd->handle, EINVAL, "a PD's handle"),
	   "ibv_import_dm of the handle of a PD of the ucontext: NULL, EINVAL");

	/* ---- a region on the import, used by QPs of the imported context */
	ipd = ibv_alloc_pd(ictx);
	errno = 0;
	m = ipd ? ibv_reg_dm_mr(opd, im, 0, IMP_LEN, ACC_DM) : NULL;
	good = !m && expect_errno(errno, EINVAL, "reg_dm_mr, other context");
	if (m)
		ibv_dereg_mr(m);
	imr = ipd ? ibv_reg_dm_mr(ipd, im, IMP_OFF, IMP_MR, ACC_DM) : NULL;
	if (ipd && !imr)
		diag("ibv_reg_dm_mr of the import: %s", strerror(errno));
	ok(good && imr && imr->length == IMP_MR && imr->pd == ipd,
	   "ibv_reg_dm_mr on the import with a PD of the first context: EINVAL; with a PD of the imported context, bytes %d to %d: registered",
	   IMP_OFF, IMP_OFF + IMP_MR - 1);
	if (!imr)
		goto out_pd;

	dp.ctx = ictx;
	dp.pd = ipd;
	st = st2 = -1;
	if (!dp_buf_alloc(&hsrc, ipd, IMP_MR, DP_ACC_ALL) &&
	    !dp_buf_alloc(&hdst, ipd, IMP_MR, DP_ACC_ALL) &&
	    !dp_pair_make(&p, &cfg)) {
		dp_fill(hsrc.p, IMP_MR, ++seed);
		st = rdma(IBV_WR_RDMA_WRITE, VA(hsrc.p), IMP_MR, hsrc.mr->lkey,
			  0, imr->rkey, "WRITE to the import");
		if (st == IBV_WC_SUCCESS)
			memcpy(model + IMP_OFF, hsrc.p, IMP_MR);
		memset(hdst.p, DP_POISON, IMP_MR);
		st2 = rdma(IBV_WR_RDMA_READ, VA(hdst.p), IMP_MR, hdst.mr->lkey,
			   0, imr->rkey, "READ from the import");
	}
	ok(st == IBV_WC_SUCCESS && st2 == IBV_WC_SUCCESS &&
	   dm_reads(d, IMP_LEN, model, "the original after the WRITE") &&
	   dp_cmp(hdst.p, model + IMP_OFF, IMP_MR, "READ from the import"),
	   "between QPs of the imported context, RDMA WRITE of %d bytes through the import's region: the original reads them at offset %d; RDMA READ of them back: the same bytes",
	   IMP_MR, IMP_OFF);

	r1 = ibv_free_dm(d);
	ok(expect_errno(r1, EBUSY, "free_dm, region on the import") &&
	   dm_reads(im, IMP_LEN, model, "the import after EBUSY"),
	   "ibv_free_dm of the original while the import has a region: EBUSY; both still work");
	if (!r1)
		d = NULL;

	dp_pair_destroy(&p);
	dp_buf_free(&hsrc);
	dp_buf_free(&hdst);
	dp.ctx = octx;
	dp.pd = opd;
	r1 = ibv_dereg_mr(imr);
out_pd:
	r2 = ipd ? ibv_dealloc_pd(ipd) : -1;
	ibv_unimport_dm(im);
	dp_fill(pat, 100, ++seed);
	st = d ? ibv_memcpy_to_dm(d, IMP_LEN - 100, pat, 100) : -1;
	if (!st)
		memcpy(model + IMP_LEN - 100, pat, 100);
	ok(imr && !r1 && !r2 && !st &&
	   dm_reads(d, IMP_LEN, model, "the original after unimport"),
	   "the region deregistered, the PD deallocated, ibv_unimport_dm: the original still works (100 bytes written at its end read back with all the rest)");
out_dm:
	r1 = d ? ibv_free_dm(d) : -1;
	ok(!r1 && import_refused(ictx, handle, ENOENT, "a freed DM"),
	   "ibv_free_dm of the original: 0; ibv_import_dm of its handle then: NULL, ENOENT");
	ok(!ibv_close_device(ictx), "ibv_close_device of the imported context");
}

int main(int argc, char **argv)
{
	struct ibv_device_attr_ex ax;
	struct ibv_dm *d;
	int p2c[2], c2p[2], ret, good;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	/* A child gone early must not kill the parent writing to it. */
	signal(SIGPIPE, SIG_IGN);
	if (!pipe(p2c) && !pipe(c2p)) {
		fflush(stdout);
		child_pid = fork();
		if (child_pid == 0) {
			close(p2c[1]);
			close(c2p[0]);
			_exit(child_main(argv[1], p2c[0], c2p[1]));
		}
		close(p2c[0]);
		close(c2p[1]);
		to_child = p2c[1];
		from_child = c2p[0];
		if (child_pid < 0)
			diag("fork: %s", strerror(errno));
	}
	atexit(at_exit);

	dp_open(argc, argv);
	dp_cfg_default(&cfg, IBV_QPT_RC);
	memset(&ax, 0, sizeof(ax));
	ret = ibv_query_device_ex(dp.ctx, NULL, &ax);
	ok(!ret && ax.max_dm_size == DM_MAX,
	   "ibv_query_device_ex: max_dm_size %llu, the documented %d (256 KiB)",
	   (unsigned long long)ax.max_dm_size, DM_MAX);
	dm_max = ax.max_dm_size;
	if (ret || dm_max < 2 * DM_LEN || dm_max > 64 << 20 ||
	    dm_max % (4 * 65536)) {
		diag("max_dm_size %zu (query %d) unusable: testing the documented %d",
		     dm_max, ret, DM_MAX);
		dm_max = DM_MAX;
	}
	zero = calloc(1, dm_max);
	pat = malloc(dm_max);
	rd = malloc(dm_max);
	if (!ok(zero && pat && rd, "%zu-byte host buffers", dm_max))
		return tap_end();

	t_alloc_rules();
	t_fill();
	t_reuse_align();
	t_small();
	t_child();

	if (dp_setup()) {
		t_data();
		t_data_end();
	}
	dp_pair_destroy(&p);
	good = !ro || !ibv_dereg_mr(ro);
	good &= !dmr || !ibv_dereg_mr(dmr);
	good &= !big || dm_free(&big);
	dp_buf_free(&hsrc);
	dp_buf_free(&hdst);
	ok(good, "the data path's QPs, CQs, host MRs, DM regions and DM destroyed");

	t_import();

	d = dm_alloc(dm_max, 0, 0);
	good = d && dm_reads(d, dm_max, NULL, "at the end");
	ok(dm_free(&d) && good,
	   "at the end, all device memory is free: an allocation of all %zu bytes succeeds, reads as zeroes and frees",
	   dm_max);
	free(zero);
	free(pat);
	free(rd);
	return dp_close();
}
