// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IBTA QP state machine from userspace: every legal transition of
 * RC, UC and UD with its minimal required mask, every illegal one, each
 * missing required or disallowed attribute, out-of-range values, and
 * ibv_query_qp returning exactly what was set.  Prints TAP.
 * Usage: qp_modify DEVICE
 */
#include <arpa/inet.h>

#include "e2e_tap.h"

enum { S_RESET, S_INIT, S_RTR, S_RTS, S_SQD, S_SQE, S_ERR };

static const char *const st_name[] = {
	[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
	[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS", [IBV_QPS_SQD] = "SQD",
	[IBV_QPS_SQE] = "SQE", [IBV_QPS_ERR] = "ERR",
};

static const char *type_name(enum ibv_qp_type t)
{
	return t == IBV_QPT_RC ? "RC" : t == IBV_QPT_UC ? "UC" : "UD";
}

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static union ibv_gid gid;
static int gid_index = -1;
static int gid_tbl_len;

#define QKEY		0x11111111U
#define DEST_QPN	0x00abcdeU
#define RQ_PSN		0x000111U
#define SQ_PSN		0x000222U

static struct ibv_qp *new_qp(enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (!qp)
		diag("ibv_create_qp(%s): %s", type_name(type), strerror(errno));
	return qp;
}

static void fill_av(struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->grh.dgid = gid;
	ah->grh.sgid_index = gid_index;
	ah->grh.hop_limit = 64;
	ah->port_num = 1;
}

/*
 * The minimal attributes that move a QP of @type into @to along the
 * usual path (RESET->INIT->RTR->RTS->SQD); ERR and RESET need none.
 */
static int min_attrs(enum ibv_qp_type type, enum ibv_qp_state to,
		     struct ibv_qp_attr *a)
{
	int mask = IBV_QP_STATE;

	memset(a, 0, sizeof(*a));
	a->qp_state = to;
	switch (to) {
	case IBV_QPS_INIT:
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		a->port_num = 1;
		if (type == IBV_QPT_UD) {
			mask |= IBV_QP_QKEY;
			a->qkey = QKEY;
		} else {
			mask |= IBV_QP_ACCESS_FLAGS;
			a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		}
		break;
	case IBV_QPS_RTR:
		if (type == IBV_QPT_UD)
			break;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		fill_av(&a->ah_attr);
		a->path_mtu = IBV_MTU_1024;
		a->dest_qp_num = DEST_QPN;
		a->rq_psn = RQ_PSN;
		if (type == IBV_QPT_RC) {
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC |
				IBV_QP_MIN_RNR_TIMER;
			a->max_dest_rd_atomic = 1;
			a->min_rnr_timer = 12;
		}
		break;
	case IBV_QPS_RTS:
		mask |= IBV_QP_SQ_PSN;
		a->sq_psn = SQ_PSN;
		if (type == IBV_QPT_RC) {
			mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
			a->timeout = 14;
			a->retry_cnt = 7;
			a->rnr_retry = 7;
			a->max_rd_atomic = 1;
		}
		break;
	default:
		break;
	}
	return mask;
}

static int cur_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return -1;
	return a.qp_state;
}

/* Walk a fresh QP along RESET->INIT->RTR->RTS->SQD up to @to, or ERR. */
static struct ibv_qp *qp_in(enum ibv_qp_type type, enum ibv_qp_state to)
{
	static const enum ibv_qp_state path[] = {
		IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_SQD,
	};
	struct ibv_qp *qp = new_qp(type);
	struct ibv_qp_attr a;
	unsigned int i;
	int mask, ret;

	if (!qp || to == IBV_QPS_RESET)
		return qp;
	if (to == IBV_QPS_ERR) {
		/* RESET -> ERR is not a transition (IBTA, ib_modify_qp_is_ok). */
		mask = min_attrs(type, IBV_QPS_INIT, &a);
		ret = ibv_modify_qp(qp, &a, mask);
		mask = min_attrs(type, IBV_QPS_ERR, &a);
		ret = ret ? ret : ibv_modify_qp(qp, &a, mask);
		goto out;
	}
	for (i = 0; i < sizeof(path) / sizeof(path[0]); i++) {
		mask = min_attrs(type, path[i], &a);
		ret = ibv_modify_qp(qp, &a, mask);
		if (ret || path[i] == to)
			break;
	}
out:
	if (ret) {
		diag("setup of a %s QP in %s failed: %s", type_name(type),
		     st_name[to], strerror(ret));
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/* One modify on a fresh QP in @from; it must end with @want_err. */
static void one(enum ibv_qp_type type, enum ibv_qp_state from,
		struct ibv_qp_attr *a, int mask, int want_err,
		const char *what)
{
	struct ibv_qp *qp = qp_in(type, from);
	int ret, after;
	int want_state;

	if (!qp) {
		ok(0, "%s %s -> %s: QP setup failed", type_name(type),
		   st_name[from], what);
		return;
	}
	ret = ibv_modify_qp(qp, a, mask);
	after = cur_state(qp);
	if (want_err) {
		want_state = from;
		ok(expect_errno(ret, want_err, what) && after == want_state,
		   "%s %s: %s fails with %s, QP stays %s", type_name(type),
		   st_name[from], what, strerror(want_err), st_name[from]);
	} else {
		want_state = (mask & IBV_QP_STATE) ? (int)a->qp_state :
			     (int)from;
		if (ret)
			diag("%s: %s", what, strerror(ret));
		ok(!ret && after == want_state,
		   "%s %s: %s succeeds, QP now %s (%s)", type_name(type),
		   st_name[from], what, st_name[want_state],
		   after >= 0 ? st_name[after] : "query failed");
	}
	ibv_destroy_qp(qp);
}

/* A legal transition from @from to @to with the minimal mask. */
static void legal(enum ibv_qp_type type, enum ibv_qp_state from,
		  enum ibv_qp_state to)
{
	struct ibv_qp_attr a;
	char what[64];
	int mask = min_attrs(type, to, &a);

	if ((from == to && to != IBV_QPS_RESET && to != IBV_QPS_ERR) ||
	    to == IBV_QPS_SQD || from == IBV_QPS_SQD) {
		/* X->X, ->SQD and SQD->RTS take no required attribute. */
		memset(&a, 0, sizeof(a));
		a.qp_state = to;
		mask = IBV_QP_STATE;
	}
	snprintf(what, sizeof(what), "-> %s with the minimal mask",
		 st_name[to]);
	one(type, from, &a, mask, 0, what);
}

/*
 * An illegal transition: it carries the attributes that the normal way
 * into @to needs, so only the state pair makes it illegal.
 */
static void illegal(enum ibv_qp_type type, enum ibv_qp_state from,
		    enum ibv_qp_state to)
{
	struct ibv_qp_attr a;
	char what[64];
	int mask = min_attrs(type, to, &a);

	snprintf(what, sizeof(what), "illegal -> %s", st_name[to]);
	one(type, from, &a, mask, EINVAL, what);
}

static void test_transitions(enum ibv_qp_type type)
{
	static const enum ibv_qp_state all[] = {
		IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
		IBV_QPS_SQD, IBV_QPS_ERR,
	};
	struct ibv_qp_attr a;
	unsigned int i;

	legal(type, IBV_QPS_RESET, IBV_QPS_INIT);
	legal(type, IBV_QPS_INIT, IBV_QPS_INIT);
	legal(type, IBV_QPS_INIT, IBV_QPS_RTR);
	legal(type, IBV_QPS_RTR, IBV_QPS_RTS);
	legal(type, IBV_QPS_RTS, IBV_QPS_RTS);
	legal(type, IBV_QPS_RTS, IBV_QPS_SQD);
	legal(type, IBV_QPS_SQD, IBV_QPS_SQD);
	legal(type, IBV_QPS_SQD, IBV_QPS_RTS);
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		legal(type, all[i], IBV_QPS_RESET);
		if (all[i] != IBV_QPS_RESET)
			legal(type, all[i], IBV_QPS_ERR);
	}

	/* A mask without STATE keeps the state: INIT->INIT, RTS->RTS. */
	memset(&a, 0, sizeof(a));
	if (type == IBV_QPT_UD) {
		a.qkey = QKEY + 1;
		one(type, IBV_QPS_INIT, &a, IBV_QP_QKEY, 0,
		    "QKEY without STATE (INIT -> INIT)");
		one(type, IBV_QPS_RTS, &a, IBV_QP_QKEY, 0,
		    "QKEY without STATE (RTS -> RTS)");
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		one(type, IBV_QPS_INIT, &a, IBV_QP_ACCESS_FLAGS, 0,
		    "ACCESS_FLAGS without STATE (INIT -> INIT)");
		one(type, IBV_QPS_RTS, &a, IBV_QP_ACCESS_FLAGS, 0,
		    "ACCESS_FLAGS without STATE (RTS -> RTS)");
	}
	if (type == IBV_QPT_RC) {
		a.min_rnr_timer = 20;
		one(type, IBV_QPS_RTS, &a, IBV_QP_MIN_RNR_TIMER, 0,
		    "MIN_RNR_TIMER without STATE (RTS -> RTS)");
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.cur_qp_state = IBV_QPS_RTS;
	one(type, IBV_QPS_RTS, &a, IBV_QP_STATE | IBV_QP_CUR_STATE, 0,
	    "-> RTS with CUR_STATE = RTS");

	illegal(type, IBV_QPS_RESET, IBV_QPS_RTR);
	illegal(type, IBV_QPS_RESET, IBV_QPS_RTS);
	illegal(type, IBV_QPS_RESET, IBV_QPS_SQD);
	illegal(type, IBV_QPS_RESET, IBV_QPS_SQE);
	illegal(type, IBV_QPS_RESET, IBV_QPS_ERR);
	illegal(type, IBV_QPS_INIT, IBV_QPS_RTS);
	illegal(type, IBV_QPS_INIT, IBV_QPS_SQD);
	illegal(type, IBV_QPS_INIT, IBV_QPS_SQE);
	illegal(type, IBV_QPS_RTR, IBV_QPS_INIT);
	illegal(type, IBV_QPS_RTR, IBV_QPS_RTR);
	illegal(type, IBV_QPS_RTR, IBV_QPS_SQD);
	illegal(type, IBV_QPS_RTS, IBV_QPS_INIT);
	illegal(type, IBV_QPS_RTS, IBV_QPS_RTR);
	illegal(type, IBV_QPS_RTS, IBV_QPS_SQE);
	illegal(type, IBV_QPS_SQD, IBV_QPS_INIT);
	illegal(type, IBV_QPS_SQD, IBV_QPS_RTR);
	illegal(type, IBV_QPS_ERR, IBV_QPS_INIT);
	illegal(type, IBV_QPS_ERR, IBV_QPS_RTR);
	illegal(type, IBV_QPS_ERR, IBV_QPS_RTS);
	illegal(type, IBV_QPS_ERR, IBV_QPS_SQD);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.cur_qp_state = IBV_QPS_INIT;
	one(type, IBV_QPS_RTS, &a, IBV_QP_STATE | IBV_QP_CUR_STATE, EINVAL,
	    "CUR_STATE = INIT while the QP is in RTS");
	/* RTR -> RTR: a mask without STATE in RTR. */
	memset(&a, 0, sizeof(a));
	a.pkey_index = 0;
	one(type, IBV_QPS_RTR, &a, IBV_QP_PKEY_INDEX, EINVAL,
	    "PKEY_INDEX without STATE (RTR -> RTR)");
}

/* @from -> @to with the minimal mask except @drop: EINVAL. */
static void missing(enum ibv_qp_type type, enum ibv_qp_state from,
		    enum ibv_qp_state to, int drop, const char *name)
{
	struct ibv_qp_attr a;
	int mask = min_attrs(type, to, &a);
	char what[96];

	snprintf(what, sizeof(what), "-> %s without required %s",
		 st_name[to], name);
	one(type, from, &a, mask & ~drop, EINVAL, what);
}

/* @from -> @to with the minimal mask plus @extra: rejected with @err. */
static void extra(enum ibv_qp_type type, enum ibv_qp_state from,
		  enum ibv_qp_state to, int add, struct ibv_qp_attr *vals,
		  int err, const char *name)
{
	struct ibv_qp_attr a;
	int mask = min_attrs(type, to, &a);
	char what[96];

	if (add & IBV_QP_QKEY)
		a.qkey = vals->qkey;
	if (add & IBV_QP_ACCESS_FLAGS)
		a.qp_access_flags = vals->qp_access_flags;
	if (add & IBV_QP_PATH_MTU)
		a.path_mtu = vals->path_mtu;
	if (add & IBV_QP_AV)
		fill_av(&a.ah_attr);
	if (add & IBV_QP_TIMEOUT)
		a.timeout = vals->timeout;
	if (add & IBV_QP_ALT_PATH) {
		fill_av(&a.alt_ah_attr);
		a.alt_port_num = 1;
		a.alt_timeout = 14;
	}
	snprintf(what, sizeof(what), "-> %s with %s", st_name[to], name);
	one(type, from, &a, mask | add, err, what);
}

static void test_masks(void)
{
	struct ibv_qp_attr v = {
		.qkey = QKEY, .qp_access_flags = IBV_ACCESS_REMOTE_READ,
		.path_mtu = IBV_MTU_1024, .timeout = 10,
	};
	enum ibv_qp_type t;

	for (t = IBV_QPT_RC; t <= IBV_QPT_UC; t++) {
		missing(t, IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_PKEY_INDEX,
			"PKEY_INDEX");
		missing(t, IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_PORT, "PORT");
		missing(t, IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_ACCESS_FLAGS,
			"ACCESS_FLAGS");
		missing(t, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_AV, "AV");
		missing(t, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_PATH_MTU,
			"PATH_MTU");
		missing(t, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_DEST_QPN,
			"DEST_QPN");
		missing(t, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_RQ_PSN, "RQ_PSN");
		missing(t, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_SQ_PSN, "SQ_PSN");
	}
	t = IBV_QPT_RC;
	missing(t, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_MAX_DEST_RD_ATOMIC,
		"MAX_DEST_RD_ATOMIC");
	missing(t, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_MIN_RNR_TIMER,
		"MIN_RNR_TIMER");
	missing(t, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_TIMEOUT, "TIMEOUT");
	missing(t, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_RETRY_CNT, "RETRY_CNT");
	missing(t, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_RNR_RETRY, "RNR_RETRY");
	missing(t, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_MAX_QP_RD_ATOMIC,
		"MAX_QP_RD_ATOMIC");
	t = IBV_QPT_UD;
	missing(t, IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_PKEY_INDEX,
		"PKEY_INDEX");
	missing(t, IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_PORT, "PORT");
	missing(t, IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_QKEY, "QKEY");
	missing(t, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_SQ_PSN, "SQ_PSN");

	/* Attributes a transition does not allow. */
	extra(IBV_QPT_RC, IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_QKEY, &v,
	      EINVAL, "QKEY (RC)");
	extra(IBV_QPT_UD, IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_ACCESS_FLAGS,
	      &v, EINVAL, "ACCESS_FLAGS (UD)");
	extra(IBV_QPT_UD, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_AV, &v, EINVAL,
	      "AV (UD)");
	extra(IBV_QPT_RC, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_PATH_MTU, &v,
	      EINVAL, "PATH_MTU");
	extra(IBV_QPT_UC, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_TIMEOUT, &v,
	      EINVAL, "TIMEOUT (UC)");
	/* ib_core 6.1 itself bans alternate paths on RoCE with EINVAL. */
	extra(IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_ALT_PATH, &v,
	      EINVAL, "ALT_PATH (not on RoCE)");
}

/* INIT->RTR (RC) or RESET->INIT with one attribute out of range. */
static void bad_value(enum ibv_qp_state from, enum ibv_qp_state to,
		      void (*set)(struct ibv_qp_attr *), const char *name)
{
	struct ibv_qp_attr a;
	int mask = min_attrs(IBV_QPT_RC, to, &a);
	char what[96];

	set(&a);
	snprintf(what, sizeof(what), "-> %s with %s", st_name[to], name);
	one(IBV_QPT_RC, from, &a, mask, EINVAL, what);
}

static void v_pkey(struct ibv_qp_attr *a) { a->pkey_index = 1; }
static void v_port(struct ibv_qp_attr *a) { a->port_num = 2; }
static void v_access(struct ibv_qp_attr *a) { a->qp_access_flags = 1U << 20; }
static void v_mtu0(struct ibv_qp_attr *a) { a->path_mtu = 0; }
static void v_mtu6(struct ibv_qp_attr *a) { a->path_mtu = 6; }
static void v_dqpn(struct ibv_qp_attr *a) { a->dest_qp_num = 1U << 24; }
static void v_rnr(struct ibv_qp_attr *a) { a->min_rnr_timer = 32; }
static void v_drd(struct ibv_qp_attr *a) { a->max_dest_rd_atomic = 17; }
static void v_sgid(struct ibv_qp_attr *a)
{
	a->ah_attr.grh.sgid_index = gid_tbl_len;
}
static void v_timeout(struct ibv_qp_attr *a) { a->timeout = 32; }
static void v_retry(struct ibv_qp_attr *a) { a->retry_cnt = 8; }
static void v_rnr_retry(struct ibv_qp_attr *a) { a->rnr_retry = 8; }
static void v_rd(struct ibv_qp_attr *a) { a->max_rd_atomic = 17; }

/*
 * PSNs are 24 bits.  ib_core masks larger values (with a warning) before
 * any driver sees them, on every RoCE device: the modify succeeds and the
 * QP holds the low 24 bits.
 */
static void psn_masked(void)
{
	struct ibv_qp *qp = qp_in(IBV_QPT_RC, IBV_QPS_INIT);
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr a, q;
	int mask, ret;

	if (!qp) {
		ok(0, "RC INIT: QP setup failed");
		ok(0, "RC RTR: QP setup failed");
		return;
	}
	memset(&q, 0, sizeof(q));
	mask = min_attrs(IBV_QPT_RC, IBV_QPS_RTR, &a);
	a.rq_psn = (1U << 24) | 0x123;
	ret = ibv_modify_qp(qp, &a, mask);
	if (!ret)
		ret = ibv_query_qp(qp, &q, IBV_QP_RQ_PSN, &qi);
	ok(!ret && q.rq_psn == 0x123,
	   "RC INIT -> RTR with rq_psn 2^24 + 0x123 keeps 24 bits (0x%x)",
	   q.rq_psn);
	mask = min_attrs(IBV_QPT_RC, IBV_QPS_RTS, &a);
	a.sq_psn = (1U << 24) | 0x456;
	if (!ret)
		ret = ibv_modify_qp(qp, &a, mask);
	if (!ret)
		ret = ibv_query_qp(qp, &q, IBV_QP_SQ_PSN, &qi);
	ok(!ret && q.sq_psn == 0x456,
	   "RC RTR -> RTS with sq_psn 2^24 + 0x456 keeps 24 bits (0x%x)",
	   q.sq_psn);
	ibv_destroy_qp(qp);
}

static void test_values(void)
{
	psn_masked();
	bad_value(IBV_QPS_RESET, IBV_QPS_INIT, v_pkey, "pkey_index 1");
	bad_value(IBV_QPS_RESET, IBV_QPS_INIT, v_port, "port 2");
	bad_value(IBV_QPS_RESET, IBV_QPS_INIT, v_access,
		  "an unknown access flag (1 << 20)");
	bad_value(IBV_QPS_INIT, IBV_QPS_RTR, v_mtu0, "path_mtu 0");
	bad_value(IBV_QPS_INIT, IBV_QPS_RTR, v_mtu6, "path_mtu 6");
	bad_value(IBV_QPS_INIT, IBV_QPS_RTR, v_dqpn, "dest_qp_num 2^24");
	bad_value(IBV_QPS_INIT, IBV_QPS_RTR, v_rnr, "min_rnr_timer 32");
	bad_value(IBV_QPS_INIT, IBV_QPS_RTR, v_drd, "max_dest_rd_atomic 17");
	if (gid_tbl_len < 256)
		bad_value(IBV_QPS_INIT, IBV_QPS_RTR, v_sgid,
			  "sgid_index beyond the GID table");
	bad_value(IBV_QPS_RTR, IBV_QPS_RTS, v_timeout, "timeout 32");
	bad_value(IBV_QPS_RTR, IBV_QPS_RTS, v_retry, "retry_cnt 8");
	bad_value(IBV_QPS_RTR, IBV_QPS_RTS, v_rnr_retry, "rnr_retry 8");
	bad_value(IBV_QPS_RTR, IBV_QPS_RTS, v_rd, "max_rd_atomic 17");
}

#define QUERY_ALL (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | \
		   IBV_QP_ACCESS_FLAGS | IBV_QP_QKEY | IBV_QP_PATH_MTU | \
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_SQ_PSN | \
		   IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | \
		   IBV_QP_MIN_RNR_TIMER | IBV_QP_MAX_QP_RD_ATOMIC | \
		   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_AV | IBV_QP_CAP)

#define FIELD(name, got, want) \
	ok((got) == (want), "RC query: " name " is %u (set %u)", \
	   (unsigned int)(got), (unsigned int)(want))

static void test_query_rc(void)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = 16, .max_recv_wr = 32,
			 .max_send_sge = 2, .max_recv_sge = 3,
			 .max_inline_data = 64 },
	};
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr a, q;
	struct ibv_qp *qp;
	int ret = -1;

	qp = ibv_create_qp(pd, &init);
	if (qp) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	}
	if (!ret) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		fill_av(&a.ah_attr);
		a.ah_attr.grh.hop_limit = 33;
		a.ah_attr.grh.traffic_class = 0x28;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = 0x123456;
		a.rq_psn = 0xabcdef;
		a.max_dest_rd_atomic = 8;
		a.min_rnr_timer = 17;
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
				    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	}
	if (!ret) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = 0x654321;
		a.timeout = 19;
		a.retry_cnt = 5;
		a.rnr_retry = 6;
		a.max_rd_atomic = 4;
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	}
	if (!ok(!ret, "RC QP taken to RTS with distinct values"))
		diag("%s", qp ? strerror(ret) : strerror(errno));
	memset(&q, 0xa5, sizeof(q));
	memset(&qi, 0, sizeof(qi));
	if (!ok(!ret && !ibv_query_qp(qp, &q, QUERY_ALL, &qi),
		"ibv_query_qp on the RC QP")) {
		memset(&q, 0xa5, sizeof(q));
	}
	FIELD("qp_state", q.qp_state, IBV_QPS_RTS);
	FIELD("pkey_index", q.pkey_index, 0);
	FIELD("port_num", q.port_num, 1);
	FIELD("qp_access_flags", q.qp_access_flags,
	      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
	      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	FIELD("path_mtu", q.path_mtu, IBV_MTU_1024);
	FIELD("dest_qp_num", q.dest_qp_num, 0x123456);
	FIELD("rq_psn", q.rq_psn, 0xabcdef);
	FIELD("sq_psn", q.sq_psn, 0x654321);
	FIELD("timeout", q.timeout, 19);
	FIELD("retry_cnt", q.retry_cnt, 5);
	FIELD("rnr_retry", q.rnr_retry, 6);
	FIELD("min_rnr_timer", q.min_rnr_timer, 17);
	FIELD("max_rd_atomic", q.max_rd_atomic, 4);
	FIELD("max_dest_rd_atomic", q.max_dest_rd_atomic, 8);
	FIELD("ah_attr.is_global", q.ah_attr.is_global, 1);
	ok(!memcmp(q.ah_attr.grh.dgid.raw, gid.raw, 16),
	   "RC query: ah_attr.grh.dgid is the GID that was set");
	FIELD("ah_attr.grh.sgid_index", q.ah_attr.grh.sgid_index, gid_index);
	/*
	 * Set 33, but for RoCEv2 ib_core (ib_resolve_eth_dmac ->
	 * rdma_addr_find_l2_eth_by_grh) replaces the hop limit with the
	 * route's before the driver sees it: 64 towards a local address.
	 */
	FIELD("ah_attr.grh.hop_limit (as ib_core resolved it)",
	      q.ah_attr.grh.hop_limit, 64);
	FIELD("ah_attr.grh.traffic_class", q.ah_attr.grh.traffic_class, 0x28);
	FIELD("ah_attr.port_num", q.ah_attr.port_num, 1);
	FIELD("cap.max_send_wr (query = create)", q.cap.max_send_wr,
	      init.cap.max_send_wr);
	FIELD("cap.max_recv_wr (query = create)", q.cap.max_recv_wr,
	      init.cap.max_recv_wr);
	FIELD("cap.max_send_sge (query = create)", q.cap.max_send_sge,
	      init.cap.max_send_sge);
	FIELD("cap.max_recv_sge (query = create)", q.cap.max_recv_sge,
	      init.cap.max_recv_sge);
	FIELD("cap.max_inline_data (query = create)", q.cap.max_inline_data,
	      init.cap.max_inline_data);
	FIELD("init_attr.qp_type", qi.qp_type, IBV_QPT_RC);
	FIELD("init_attr.sq_sig_all", qi.sq_sig_all, 1);
	ok(qi.send_cq == cq && qi.recv_cq == cq && !qi.srq,
	   "RC query: init_attr names the QP's CQs and no SRQ");
	ok(!memcmp(&qi.cap, &init.cap, sizeof(qi.cap)),
	   "RC query: init_attr.cap is what ibv_create_qp reported");

	/* RTS -> RTS changes show up too. */
	memset(&a, 0, sizeof(a));
	a.min_rnr_timer = 3;
	a.qp_access_flags = IBV_ACCESS_REMOTE_READ;
	ret = qp ? ibv_modify_qp(qp, &a, IBV_QP_MIN_RNR_TIMER |
				 IBV_QP_ACCESS_FLAGS) : -1;
	memset(&q, 0, sizeof(q));
	ok(!ret && !ibv_query_qp(qp, &q, QUERY_ALL, &qi) &&
	   q.min_rnr_timer == 3 && q.qp_access_flags == IBV_ACCESS_REMOTE_READ &&
	   q.qp_state == IBV_QPS_RTS && q.sq_psn == 0x654321,
	   "RC query after RTS -> RTS: min_rnr_timer 3, access REMOTE_READ, rest kept");
	if (qp)
		ibv_destroy_qp(qp);
}

static void test_query_ud_uc(void)
{
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr a, q;
	struct ibv_qp *qp;
	int ret;

	qp = qp_in(IBV_QPT_UD, IBV_QPS_RTS);
	memset(&q, 0, sizeof(q));
	ret = qp ? ibv_query_qp(qp, &q, IBV_QP_STATE | IBV_QP_QKEY |
				IBV_QP_SQ_PSN | IBV_QP_PORT |
				IBV_QP_PKEY_INDEX, &qi) : -1;
	ok(!ret && q.qp_state == IBV_QPS_RTS && q.qkey == QKEY &&
	   q.sq_psn == SQ_PSN && q.port_num == 1 && q.pkey_index == 0 &&
	   qi.qp_type == IBV_QPT_UD,
	   "UD query: state RTS, qkey 0x%x, sq_psn 0x%x, port 1, pkey_index 0",
	   q.qkey, q.sq_psn);
	memset(&a, 0, sizeof(a));
	a.qkey = 0x2222;
	ret = qp ? ibv_modify_qp(qp, &a, IBV_QP_QKEY) : -1;
	if (!ret)
		ret = ibv_query_qp(qp, &q, IBV_QP_QKEY, &qi);
	ok(!ret && q.qkey == 0x2222,
	   "UD query after RTS -> RTS: qkey 0x2222 (0x%x)", q.qkey);
	if (qp)
		ibv_destroy_qp(qp);

	qp = qp_in(IBV_QPT_UC, IBV_QPS_RTS);
	memset(&q, 0, sizeof(q));
	ok(qp && !ibv_query_qp(qp, &q, IBV_QP_STATE | IBV_QP_PATH_MTU |
			       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			       IBV_QP_SQ_PSN | IBV_QP_ACCESS_FLAGS |
			       IBV_QP_AV, &qi) &&
	   q.qp_state == IBV_QPS_RTS && q.path_mtu == IBV_MTU_1024 &&
	   q.dest_qp_num == DEST_QPN && q.rq_psn == RQ_PSN &&
	   q.sq_psn == SQ_PSN &&
	   q.qp_access_flags == IBV_ACCESS_REMOTE_WRITE &&
	   q.ah_attr.grh.hop_limit == 64 && qi.qp_type == IBV_QPT_UC,
	   "UC query: state, path_mtu, dest_qpn, rq_psn, sq_psn, access, hop_limit as set");
	if (qp)
		ibv_destroy_qp(qp);
}

static int find_gid(void)
{
	struct ibv_port_attr port;
	union ibv_gid g;
	int i;

	if (ibv_query_port(ctx, 1, &port))
		return -1;
	gid_tbl_len = port.gid_tbl_len;
	for (i = 0; i < gid_tbl_len; i++) {
		if (ibv_query_gid(ctx, 1, i, &g))
			continue;
		/* The link-local GID: its MAC comes from the GID itself. */
		if (g.raw[0] == 0xfe && g.raw[1] == 0x80) {
			gid = g;
			gid_index = i;
			return 0;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	ctx = tap_start(argc, argv);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!ok(pd && cq, "allocate a PD and a CQ"))
		return tap_end();
	if (!ok(!find_gid(), "port 1 has a link-local RoCE GID (index %d of %d)",
		gid_index, gid_tbl_len))
		return tap_end();

	test_transitions(IBV_QPT_RC);
	test_transitions(IBV_QPT_UC);
	test_transitions(IBV_QPT_UD);
	test_masks();
	test_values();
	test_query_rc();
	test_query_ud_uc();

	ok(!ibv_destroy_cq(cq), "destroy the CQ");
	ok(!ibv_dealloc_pd(pd), "deallocate the PD");
	ok(!ibv_close_device(ctx), "close the device");
	return tap_end();
}
