// SPDX-License-Identifier: GPL-2.0-only
/*
 * ibv_create_qp(3) as its man page documents it, one test point per
 * rule and per bad input.  Prints TAP.  Usage: create_qp_rules DEVICE
 */
#include "e2e_tap.h"

/* Not reported by ibv_query_device; the device's documented maximum. */
#define ORCA_MAX_INLINE		960

static struct ibv_device_attr dattr;
static struct ibv_cq *cq;

static struct ibv_qp *make_qp(struct ibv_pd *pd, enum ibv_qp_type type,
			      struct ibv_srq *srq, struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = type,
	};
	struct ibv_qp *qp;

	init.cap = *cap;
	errno = 0;
	qp = ibv_create_qp(pd, &init);
	*cap = init.cap;
	return qp;
}

static const struct ibv_qp_cap small_cap = {
	.max_send_wr = 4, .max_recv_wr = 4,
	.max_send_sge = 1, .max_recv_sge = 1,
};

/* A create that must fail with @want; destroys the QP if it did not. */
static void expect_create_fails(struct ibv_pd *pd, enum ibv_qp_type type,
				struct ibv_srq *srq, struct ibv_qp_cap cap,
				int want, const char *what)
{
	struct ibv_qp *qp = make_qp(pd, type, srq, &cap);
	int err = qp ? 0 : errno;

	if (want)
		ok(expect_errno(err, want, what), "%s fails with %s", what,
		   strerror(want));
	else
		ok(!qp, "%s fails (errno %d: %s)", what, err, strerror(err));
	if (qp)
		ibv_destroy_qp(qp);
}

/* A create that must succeed; returns 1 if it did (and was destroyed). */
static int expect_create_ok(struct ibv_pd *pd, enum ibv_qp_type type,
			    struct ibv_srq *srq, struct ibv_qp_cap cap,
			    const char *what)
{
	struct ibv_qp *qp = make_qp(pd, type, srq, &cap);

	if (!ok(qp != NULL, "%s succeeds", what)) {
		diag("ibv_create_qp: %s", strerror(errno));
		return 0;
	}
	return !ibv_destroy_qp(qp);
}

static void test_limits(struct ibv_pd *pd)
{
	struct ibv_qp_cap cap;

	cap = small_cap;
	cap.max_send_wr = dattr.max_qp_wr + 1;
	expect_create_fails(pd, IBV_QPT_RC, NULL, cap, EINVAL,
			    "max_send_wr = max_qp_wr + 1");
	cap = small_cap;
	cap.max_recv_wr = dattr.max_qp_wr + 1;
	expect_create_fails(pd, IBV_QPT_RC, NULL, cap, EINVAL,
			    "max_recv_wr = max_qp_wr + 1");
	cap = small_cap;
	cap.max_send_sge = dattr.max_sge + 1;
	expect_create_fails(pd, IBV_QPT_RC, NULL, cap, EINVAL,
			    "max_send_sge = max_sge + 1");
	cap = small_cap;
	cap.max_recv_sge = dattr.max_sge + 1;
	expect_create_fails(pd, IBV_QPT_RC, NULL, cap, EINVAL,
			    "max_recv_sge = max_sge + 1");
	cap = small_cap;
	cap.max_inline_data = ORCA_MAX_INLINE + 1;
	expect_create_fails(pd, IBV_QPT_RC, NULL, cap, EINVAL,
			    "max_inline_data = 961 (device maximum + 1)");
	cap = small_cap;
	cap.max_send_wr = 0xffffffffU;
	expect_create_fails(pd, IBV_QPT_UD, NULL, cap, EINVAL,
			    "UD QP with max_send_wr = 2^32 - 1");

	/* Exactly at each limit is allowed. */
	cap = small_cap;
	cap.max_send_wr = dattr.max_qp_wr;
	expect_create_ok(pd, IBV_QPT_RC, NULL, cap, "max_send_wr = max_qp_wr");
	cap = small_cap;
	cap.max_recv_wr = dattr.max_qp_wr;
	expect_create_ok(pd, IBV_QPT_RC, NULL, cap, "max_recv_wr = max_qp_wr");
	cap = small_cap;
	cap.max_send_sge = dattr.max_sge;
	expect_create_ok(pd, IBV_QPT_RC, NULL, cap, "max_send_sge = max_sge");
	cap = small_cap;
	cap.max_recv_sge = dattr.max_sge;
	expect_create_ok(pd, IBV_QPT_RC, NULL, cap, "max_recv_sge = max_sge");
	cap = small_cap;
	cap.max_inline_data = ORCA_MAX_INLINE;
	expect_create_ok(pd, IBV_QPT_RC, NULL, cap, "max_inline_data = 960");
}

static void test_actual_caps(struct ibv_pd *pd)
{
	const struct ibv_qp_cap want = {
		.max_send_wr = 5, .max_recv_wr = 7,
		.max_send_sge = 3, .max_recv_sge = 2,
		.max_inline_data = 100,
	};
	struct ibv_qp_cap cap = want;
	struct ibv_qp_init_attr qinit;
	struct ibv_qp_attr qattr;
	struct ibv_qp *qp;

	qp = make_qp(pd, IBV_QPT_RC, NULL, &cap);
	if (!ok(qp != NULL, "RC QP with odd caps (5/7 WRs, 3/2 SGEs, 100 inline)"))
		diag("ibv_create_qp: %s", strerror(errno));
	ok(qp && cap.max_send_wr >= want.max_send_wr,
	   "cap.max_send_wr updated to the actual value >= 5 (%u)",
	   cap.max_send_wr);
	ok(qp && cap.max_recv_wr >= want.max_recv_wr,
	   "cap.max_recv_wr updated to the actual value >= 7 (%u)",
	   cap.max_recv_wr);
	ok(qp && cap.max_send_sge >= want.max_send_sge,
	   "cap.max_send_sge updated to the actual value >= 3 (%u)",
	   cap.max_send_sge);
	ok(qp && cap.max_recv_sge >= want.max_recv_sge,
	   "cap.max_recv_sge updated to the actual value >= 2 (%u)",
	   cap.max_recv_sge);
	ok(qp && cap.max_inline_data >= want.max_inline_data,
	   "cap.max_inline_data updated to the actual value >= 100 (%u)",
	   cap.max_inline_data);
	/*
	 * The documented sizing: depths are powers of two; send stride
	 * 256 B (64 + 100 inline -> 256) gives 12 SGEs and 192 inline;
	 * recv stride 64 B (16 + 2 * 16 -> 64) gives 3 SGEs.
	 */
	ok(qp && cap.max_send_wr == 8 && cap.max_recv_wr == 8 &&
	   cap.max_send_sge == 12 && cap.max_recv_sge == 3 &&
	   cap.max_inline_data == 192,
	   "actual caps follow the documented ring sizing (8/8 WRs, 12/3 SGEs, 192 inline; got %u/%u, %u/%u, %u)",
	   cap.max_send_wr, cap.max_recv_wr, cap.max_send_sge,
	   cap.max_recv_sge, cap.max_inline_data);
	memset(&qinit, 0, sizeof(qinit));
	ok(qp && !ibv_query_qp(qp, &qattr, IBV_QP_CAP, &qinit) &&
	   !memcmp(&qinit.cap, &cap, sizeof(cap)),
	   "ibv_query_qp returns the same caps as ibv_create_qp");
	if (qp)
		ok(!ibv_destroy_qp(qp), "destroy it");
	else
		ok(0, "destroy it");

	cap = small_cap;
	cap.max_inline_data = 512;
	qp = make_qp(pd, IBV_QPT_RC, NULL, &cap);
	ok(qp && cap.max_inline_data >= 512,
	   "max_inline_data = 512 works (actual %u)", cap.max_inline_data);
	if (qp)
		ibv_destroy_qp(qp);
	cap = small_cap;
	cap.max_inline_data = 512;
	qp = make_qp(pd, IBV_QPT_UD, NULL, &cap);
	ok(qp && cap.max_inline_data >= 512,
	   "max_inline_data = 512 works on UD too (actual %u)",
	   cap.max_inline_data);
	if (qp)
		ibv_destroy_qp(qp);
}

static void test_srq(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct ibv_srq_init_attr sinit = {
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ibv_srq *srq, *other_srq = NULL;
	struct ibv_pd *other_pd;
	struct ibv_qp_cap cap;
	struct ibv_qp *qp;

	srq = ibv_create_srq(pd, &sinit);
	if (!ok(srq != NULL, "create an SRQ"))
		diag("ibv_create_srq: %s", strerror(errno));
	if (!srq) {
		ok(0, "RC QP with an SRQ (no SRQ)");
		ok(0, "UD QP with an SRQ (no SRQ)");
		ok(0, "UC QP with an SRQ (no SRQ)");
		ok(0, "absurd max_recv_wr/max_recv_sge ignored (no SRQ)");
		ok(0, "receive caps reported as 0 with an SRQ (no SRQ)");
		ok(0, "SRQ of another PD (no SRQ)");
		return;
	}
	cap = small_cap;
	expect_create_ok(pd, IBV_QPT_RC, srq, cap, "RC QP with an SRQ");
	cap = small_cap;
	expect_create_ok(pd, IBV_QPT_UD, srq, cap, "UD QP with an SRQ");
	cap = small_cap;
	expect_create_fails(pd, IBV_QPT_UC, srq, cap, EINVAL,
			    "UC QP with an SRQ");

	cap = small_cap;
	cap.max_recv_wr = dattr.max_qp_wr * 16 + 1;
	cap.max_recv_sge = 1000;
	qp = make_qp(pd, IBV_QPT_RC, srq, &cap);
	if (!ok(qp != NULL,
		"with an SRQ, max_recv_wr = %u and max_recv_sge = 1000 are ignored",
		dattr.max_qp_wr * 16 + 1))
		diag("ibv_create_qp: %s", strerror(errno));
	ok(qp && cap.max_recv_wr == 0 && cap.max_recv_sge == 0,
	   "with an SRQ the QP has no receive queue: caps reported as 0 (%u, %u)",
	   cap.max_recv_wr, cap.max_recv_sge);
	if (qp)
		ibv_destroy_qp(qp);

	other_pd = ibv_alloc_pd(ctx);
	if (other_pd)
		other_srq = ibv_create_srq(other_pd, &sinit);
	if (other_srq) {
		cap = small_cap;
		expect_create_fails(pd, IBV_QPT_RC, other_srq, cap, EINVAL,
				    "RC QP with an SRQ of another PD");
		ibv_destroy_srq(other_srq);
	} else {
		ok(0, "RC QP with an SRQ of another PD (setup failed: %s)",
		   strerror(errno));
	}
	if (other_pd)
		ibv_dealloc_pd(other_pd);
	ibv_destroy_srq(srq);
}

static void test_mcast(struct ibv_pd *pd)
{
	union ibv_gid mgid = { .raw = { 0xff, 0x0e, [14] = 0x12, [15] = 0x34 } };
	struct ibv_qp_cap cap = small_cap;
	struct ibv_qp *qp, *rc;
	int ret;

	qp = make_qp(pd, IBV_QPT_UD, NULL, &cap);
	if (!ok(qp != NULL, "UD QP for multicast")) {
		diag("ibv_create_qp: %s", strerror(errno));
		ok(0, "attach (no QP)");
		ok(0, "destroy while attached (no QP)");
		ok(0, "detach (no QP)");
		ok(0, "destroy after detach (no QP)");
		return;
	}
	ret = ibv_attach_mcast(qp, &mgid, 0);
	ok(!ret, "ibv_attach_mcast ff0e::1234 (%s)", strerror(ret));
	ret = ibv_destroy_qp(qp);
	ok(expect_errno(ret, EBUSY, "destroy attached QP"),
	   "ibv_destroy_qp while attached to a multicast group fails with EBUSY");
	if (!ret) {
		ok(0, "detach (QP already destroyed)");
		ok(0, "destroy after detach (QP already destroyed)");
	} else {
		ret = ibv_detach_mcast(qp, &mgid, 0);
		ok(!ret, "ibv_detach_mcast (%s)", strerror(ret));
		ret = ibv_destroy_qp(qp);
		ok(!ret, "ibv_destroy_qp succeeds after detach (%s)",
		   strerror(ret));
	}

	cap = small_cap;
	rc = make_qp(pd, IBV_QPT_RC, NULL, &cap);
	ret = rc ? ibv_attach_mcast(rc, &mgid, 0) : -1;
	ok(rc && expect_errno(ret, EINVAL, "attach RC"),
	   "ibv_attach_mcast on an RC QP fails with EINVAL");
	if (rc && !ret)
		ibv_detach_mcast(rc, &mgid, 0);
	if (rc)
		ibv_destroy_qp(rc);
}

static void test_types(struct ibv_pd *pd)
{
	static const struct {
		enum ibv_qp_type type;
		const char *name;
	} types[] = {
		{ IBV_QPT_RC, "RC" }, { IBV_QPT_UC, "UC" }, { IBV_QPT_UD, "UD" },
	};
	struct ibv_qp_cap cap;
	struct ibv_qp *qp;
	unsigned int i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		cap = small_cap;
		qp = make_qp(pd, types[i].type, NULL, &cap);
		if (!ok(qp != NULL && qp->qp_type == types[i].type &&
			qp->qp_num >= 2 && qp->qp_num < (1U << 24) &&
			qp->state == IBV_QPS_RESET,
			"%s QP created (qpn %u, in RESET)", types[i].name,
			qp ? qp->qp_num : 0))
			diag("ibv_create_qp: %s", strerror(errno));
		ok(qp && !ibv_destroy_qp(qp), "%s QP destroyed",
		   types[i].name);
	}

	cap = small_cap;
	expect_create_fails(pd, IBV_QPT_RAW_PACKET, NULL, cap, 0,
			    "IBV_QPT_RAW_PACKET (unsupported)");
	cap = small_cap;
	expect_create_fails(pd, IBV_QPT_XRC_RECV, NULL, cap, 0,
			    "IBV_QPT_XRC_RECV through ibv_create_qp (no XRC domain)");
	cap = small_cap;
	expect_create_fails(pd, IBV_QPT_DRIVER, NULL, cap, 0,
			    "IBV_QPT_DRIVER (unsupported)");
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx = tap_start(argc, argv);
	struct ibv_pd *pd;

	ok(!ibv_query_device(ctx, &dattr) && dattr.max_qp_wr > 0 &&
	   dattr.max_sge > 0,
	   "ibv_query_device: max_qp_wr %d, max_sge %d, max_srq_wr %d",
	   dattr.max_qp_wr, dattr.max_sge, dattr.max_srq_wr);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!ok(pd && cq, "allocate a PD and a CQ")) {
		diag("%s", strerror(errno));
		return tap_end();
	}

	test_limits(pd);
	test_actual_caps(pd);
	test_srq(ctx, pd);
	test_mcast(pd);
	test_types(pd);

	ok(!ibv_destroy_cq(cq), "destroy the CQ");
	ok(!ibv_dealloc_pd(pd), "deallocate the PD");
	ok(!ibv_close_device(ctx), "close the device");
	return tap_end();
}
