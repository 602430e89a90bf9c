// SPDX-License-Identifier: GPL-2.0-only
/*
 * ibv_rereg_mr(3): a registered region's translation, access flags and
 * PD changed, each change checked through RDMA traffic between two RC
 * QPs of the device (the region is the responder's memory, or the
 * requester's local buffer), and the errors of the man page: input
 * errors that libibverbs catches (IBV_REREG_MR_ERR_INPUT, the old MR
 * still valid) and command errors (IBV_REREG_MR_ERR_CMD).  Orca also
 * leaves the old MR valid after a command error, which the man page
 * allows ("shouldn't be used"), and liborca.md promises: checked too.
 * Prints TAP.  Usage: mr_rereg DEVICE
 */
#include <stdint.h>
#include <sys/mman.h>

#include "e2e_tap.h"
#include "dp_common.h"

#define LEN		8192	/* each target buffer */
#define XFER		64	/* bytes of each RDMA operation */
#define ACC_RW		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

static struct dp_qp_cfg cfg;
static struct dp_buf src;	/* the requester's buffer, in dp.pd */
static uint8_t *t1, *t2;	/* the region's two translations */
static uint8_t want[XFER];
static uint64_t wr_id;
static uint32_t seed = 1;

/* a in dp.pd, b (the responder) in @pd_b, connected to RTS. */
static int pair_make(struct dp_pair *p, struct ibv_pd *pd_b)
{
	return dp_pair_make_in(p, &cfg, NULL, pd_b);
}

/*
 * One signalled RDMA @op of XFER bytes between (@laddr, @lkey) and
 * (@raddr, @rkey) from p->a: the completion's status, or -1 if none.
 */
static int rdma(struct dp_pair *p, enum ibv_wr_opcode op, void *laddr,
		uint32_t lkey, void *raddr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)laddr, .length = XFER,
			       .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = ++wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)raddr, .rkey = rkey },
	};
	struct ibv_wc wc;

	if (!p->a.qp || dp_post_send(p->a.qp, &wr) ||
	    !dp_poll1(p->a.scq, &wc, "RDMA completion"))
		return -1;
	if (wc.wr_id != wr_id) {
		dp_wc_diag("unexpected completion", &wc);
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS)
		diag("%s: %s", op == IBV_WR_RDMA_WRITE ? "WRITE" : "READ",
		     ibv_wc_status_str(wc.status));
	return wc.status;
}

/* WRITE fresh pattern bytes from src to @dst: 1 if they landed there. */
static int write_lands(struct dp_pair *p, uint8_t *dst, uint32_t rkey)
{
	dp_fill(want, XFER, ++seed);
	memcpy(src.p, want, XFER);
	return rdma(p, IBV_WR_RDMA_WRITE, src.p, src.mr->lkey, dst, rkey) ==
	       IBV_WC_SUCCESS && dp_cmp(dst, want, XFER, "WRITE target");
}

/* After a failed request both QPs are in error: a new pair. */
static int renew(struct dp_pair *p, struct ibv_pd *pd_b)
{
	dp_pair_destroy(p);
	return !pair_make(p, pd_b);
}

static int rereg(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		 size_t len, int access)
{
	errno = 0;
	return ibv_rereg_mr(mr, flags, pd, addr, len, access);
}

/* An error of ibv_rereg_mr: the code and errno wanted. */
static int rereg_fails(int got, int want_code, int want_errno, const char *what)
{
	if (got != want_code || errno != want_errno)
		diag("%s: got %d (errno %s), want %d (errno %s)", what, got,
		     strerror(errno), want_code, strerror(want_errno));
	return got == want_code && errno == want_errno;
}

int main(int argc, char **argv)
{
	struct ibv_mr *mr;
	struct ibv_pd *pd2;
	struct dp_pair p;
	uint32_t lkey, rkey;
	void *hole;
	int st;

	dp_open(argc, argv);
	dp_cfg_default(&cfg, IBV_QPT_RC);
	if (!ok(!dp_buf_alloc(&src, dp.pd, LEN, ACC_RW) &&
		!posix_memalign((void **)&t1, 4096, LEN) &&
		!posix_memalign((void **)&t2, 4096, LEN) &&
		!pair_make(&p, dp.pd), "buffers and an RC pair"))
		return tap_end();
	memset(t1, DP_POISON, LEN);
	memset(t2, DP_POISON, LEN);
	pd2 = ibv_alloc_pd(dp.ctx);
	ok(pd2 != NULL, "a second PD");

	mr = ibv_reg_mr(dp.pd, t1, LEN, ACC_RW);
	if (!ok(mr != NULL, "reg_mr of the first buffer (local and remote write, remote read)"))
		return tap_end();
	ok(write_lands(&p, t1, mr->rkey), "a WRITE through its rkey lands");
	lkey = mr->lkey;
	rkey = mr->rkey;

	/* ---- input errors: libibverbs refuses, the MR is unchanged ---- */
	ok(rereg_fails(rereg(mr, IBV_REREG_MR_FLAGS_SUPPORTED + 1, NULL, NULL,
			     0, 0), IBV_REREG_MR_ERR_INPUT, EINVAL, "unknown flag"),
	   "an unknown flag: IBV_REREG_MR_ERR_INPUT, EINVAL");
	ok(rereg_fails(rereg(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL,
			     LEN, 0), IBV_REREG_MR_ERR_INPUT, EINVAL, "no addr"),
	   "CHANGE_TRANSLATION with no address: IBV_REREG_MR_ERR_INPUT, EINVAL");
	ok(rereg_fails(rereg(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, t2, 0,
			     0), IBV_REREG_MR_ERR_INPUT, EINVAL, "length 0"),
	   "CHANGE_TRANSLATION with length 0: IBV_REREG_MR_ERR_INPUT, EINVAL");
	ok(rereg_fails(rereg(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0,
			     IBV_ACCESS_LOCAL_WRITE), IBV_REREG_MR_ERR_INPUT,
		       EINVAL, "access without CHANGE_ACCESS"),
	   "access flags without CHANGE_ACCESS: IBV_REREG_MR_ERR_INPUT, EINVAL");
	ok(mr->lkey == lkey && mr->rkey == rkey && mr->addr == t1 &&
	   mr->length == LEN && mr->pd == dp.pd,
	   "after the input errors the MR is unchanged");
	ok(write_lands(&p, t1 + 512, mr->rkey), "and a WRITE through it lands");

	/* ---- command errors: the kernel refuses ------------------------ */
	ok(rereg_fails(rereg(mr, 0, NULL, NULL, 0, 0), IBV_REREG_MR_ERR_CMD,
		       EINVAL, "no flag"),
	   "no flag at all: IBV_REREG_MR_ERR_CMD, EINVAL");
	ok(rereg_fails(rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			     IBV_ACCESS_REMOTE_WRITE), IBV_REREG_MR_ERR_CMD,
		       EINVAL, "REMOTE_WRITE alone"),
	   "CHANGE_ACCESS to REMOTE_WRITE without LOCAL_WRITE: IBV_REREG_MR_ERR_CMD, EINVAL");
	ok(rereg_fails(rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			     IBV_ACCESS_REMOTE_ATOMIC), IBV_REREG_MR_ERR_CMD,
		       EINVAL, "REMOTE_ATOMIC alone"),
	   "CHANGE_ACCESS to REMOTE_ATOMIC without LOCAL_WRITE: IBV_REREG_MR_ERR_CMD, EINVAL");
	hole = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole != MAP_FAILED)
		munmap(hole, LEN);
	ok(hole != MAP_FAILED &&
	   rereg_fails(rereg(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, hole,
			     LEN, 0), IBV_REREG_MR_ERR_CMD, EFAULT, "unmapped"),
	   "CHANGE_TRANSLATION to unmapped memory: IBV_REREG_MR_ERR_CMD, EFAULT");
	ok(mr->lkey == lkey && mr->rkey == rkey && mr->addr == t1 &&
	   mr->length == LEN && mr->pd == dp.pd,
	   "after the command errors the MR is unchanged");
	ok(write_lands(&p, t1 + 1024, mr->rkey),
	   "and still registered: a WRITE through it lands");

	/* ---- translation ----------------------------------------------- */
	st = rereg(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, t2 + 100,
		   LEN - 200, 0);
	if (!ok(st == 0 && mr->addr == t2 + 100 && mr->length == LEN - 200 &&
		mr->pd == dp.pd, "CHANGE_TRANSLATION to 200 bytes less of the second buffer"))
		diag("ibv_rereg_mr: %d (%s)", st, strerror(errno));
	diag("keys before 0x%x/0x%x, after 0x%x/0x%x", lkey, rkey, mr->lkey,
	     mr->rkey);
	ok(write_lands(&p, t2 + 100, mr->rkey),
	   "a WRITE to its new first byte lands in the second buffer");
	ok(t2[99] == DP_POISON, "the byte before it is untouched");
	ok(write_lands(&p, t2 + LEN - 100 - XFER, mr->rkey),
	   "a WRITE ending at its new last byte lands");
	ok(t2[LEN - 100] == DP_POISON, "the byte after it is untouched");
	st = rdma(&p, IBV_WR_RDMA_WRITE, src.p, src.mr->lkey, t1 + 2048,
		  mr->rkey);
	ok(st == IBV_WC_REM_ACCESS_ERR && t1[2048] == DP_POISON,
	   "a WRITE through the new rkey to the old range: REM_ACCESS_ERR");
	ok(renew(&p, dp.pd), "a new pair");
	st = rdma(&p, IBV_WR_RDMA_WRITE, src.p, src.mr->lkey, t1 + 2048, rkey);
	ok(st == IBV_WC_REM_ACCESS_ERR && t1[2048] == DP_POISON,
	   "a WRITE through the old rkey to the old range: REM_ACCESS_ERR");
	ok(renew(&p, dp.pd), "a new pair");

	/* ---- access ---------------------------------------------------- */
	lkey = mr->lkey;
	st = rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	ok(st == 0 && mr->addr == t2 + 100 && mr->length == LEN - 200,
	   "CHANGE_ACCESS to local write and remote read: the range is kept");
	memset(src.p, 0, XFER);
	ok(rdma(&p, IBV_WR_RDMA_READ, src.p, src.mr->lkey, t2 + 100,
		mr->rkey) == IBV_WC_SUCCESS &&
	   dp_cmp(src.p, t2 + 100, XFER, "READ"),
	   "a READ through the new rkey returns the region's bytes");
	memcpy(want, t2 + 200, XFER);
	st = rdma(&p, IBV_WR_RDMA_WRITE, src.p, src.mr->lkey, t2 + 200,
		  mr->rkey);
	ok(st == IBV_WC_REM_ACCESS_ERR && !memcmp(t2 + 200, want, XFER),
	   "a WRITE without remote write access: REM_ACCESS_ERR, nothing written");
	ok(renew(&p, dp.pd), "a new pair");
	st = rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, 0);
	ok(st == 0, "CHANGE_ACCESS to no access at all (local read only)");
	memcpy(want, t2 + 300, XFER);
	st = rdma(&p, IBV_WR_RDMA_READ, t2 + 300, mr->lkey, src.p,
		  src.mr->rkey);
	ok(st == IBV_WC_LOC_PROT_ERR && !memcmp(t2 + 300, want, XFER),
	   "a READ into it (it has no local write): LOC_PROT_ERR, nothing written");
	ok(renew(&p, dp.pd), "a new pair");
	dp_fill(t2 + 400, XFER, ++seed);
	ok(rdma(&p, IBV_WR_RDMA_WRITE, t2 + 400, mr->lkey, src.p + XFER,
		src.mr->rkey) == IBV_WC_SUCCESS &&
	   dp_cmp(src.p + XFER, t2 + 400, XFER, "WRITE from it"),
	   "a WRITE from it (reading it locally needs no flag) carries its bytes");
	st = rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, ACC_RW);
	ok(st == 0 && write_lands(&p, t2 + 500, mr->rkey),
	   "CHANGE_ACCESS back to remote write: a WRITE lands");

	/* ---- PD -------------------------------------------------------- */
	st = rereg(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
	ok(st == 0 && mr->pd == pd2 && mr->addr == t2 + 100,
	   "CHANGE_PD to the second PD: range kept");
	ok(expect_errno(ibv_dealloc_pd(pd2), EBUSY, "dealloc_pd"),
	   "the second PD cannot be deallocated while the MR is in it: EBUSY");
	st = rdma(&p, IBV_WR_RDMA_WRITE, src.p, src.mr->lkey, t2 + 600,
		  mr->rkey);
	ok(st == IBV_WC_REM_ACCESS_ERR,
	   "a WRITE from a QP of the first PD: REM_ACCESS_ERR");
	dp_pair_destroy(&p);
	ok(!pair_make(&p, pd2) && write_lands(&p, t2 + 600, mr->rkey),
	   "a WRITE to a responder QP of the second PD lands");
	dp_pair_destroy(&p);
	ok(!pair_make(&p, dp.pd), "a new pair in the first PD");

	/* ---- all three at once ----------------------------------------- */
	st = rereg(mr, IBV_REREG_MR_CHANGE_TRANSLATION |
		   IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_ACCESS,
		   dp.pd, t1, LEN, ACC_RW);
	ok(st == 0 && mr->pd == dp.pd && mr->addr == t1 && mr->length == LEN,
	   "translation, PD and access changed in one call");
	ok(write_lands(&p, t1 + LEN - XFER, mr->rkey),
	   "a WRITE to the end of the first buffer lands");
	ok(!ibv_dealloc_pd(pd2), "the second PD, now unused, is deallocated");

	/* ---- on-demand paging (the device has it, interface 1.5) ------- */
	st = rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		   ACC_RW | IBV_ACCESS_ON_DEMAND);
	ok(st == 0 && write_lands(&p, t1 + 1024, mr->rkey),
	   "CHANGE_ACCESS to ON_DEMAND: a WRITE lands");
	st = rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, ACC_RW);
	ok(st == 0 && write_lands(&p, t1 + 4096, mr->rkey),
	   "CHANGE_ACCESS back to pinned: a WRITE lands");

	ok(!ibv_dereg_mr(mr), "dereg_mr");
	dp_pair_destroy(&p);
	dp_buf_free(&src);
	free(t1);
	free(t2);
	return dp_close();
}
