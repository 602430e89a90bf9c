// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the device's QP state table
 * (drivers/orca_soft/orca_soft_qp_fsm.c).
 *
 * Two independent references:
 *  - orca_fsm_expect[] below, written from the control-path brief (the
 *    IBTA table: legal transitions, required and optional attributes per
 *    QP type), checked for every (current, next, type) triple: legal or
 *    illegal, each required attribute required, each optional one
 *    allowed, every other one refused;
 *  - ib_core's ib_modify_qp_is_ok(), over every triple and a set of masks,
 *    with the ORCA and IB masks translated bit by bit.  (ib_core must be
 *    loaded first: tests/kunit/run-kunit.sh modprobes the dependencies.)
 *
 * Intentional differences from ib_modify_qp_is_ok(): ALT_PATH (no APM)
 * and CAP (no QP resize) complete with UNSUPPORTED, and SQE->RTS is not
 * legal for RC and XRC (such a QP never enters SQE).
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>

/* The state table itself: pure code, compiled into this module. */
#include "../../drivers/orca_soft/orca_soft_qp_fsm.c"

#define A(x)		ORCA_QP_ATTR_##x
#define NTYPES		(ORCA_QPT_XRC_TGT + 1)

static const u8 orca_test_types[] = {
	ORCA_QPT_GSI, ORCA_QPT_RC, ORCA_QPT_UC, ORCA_QPT_UD,
	ORCA_QPT_XRC_INI, ORCA_QPT_XRC_TGT,
};

static const char *const orca_test_state_names[ORCA_QPS_NUM] = {
	"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
};

static const char *const orca_test_type_names[NTYPES] = {
	[ORCA_QPT_GSI] = "GSI", [ORCA_QPT_RC] = "RC",
	[ORCA_QPT_UC] = "UC", [ORCA_QPT_UD] = "UD",
	[ORCA_QPT_XRC_INI] = "XRC_INI", [ORCA_QPT_XRC_TGT] = "XRC_TGT",
};

struct orca_fsm_expect {
	u8 cur;
	u8 next;
	bool legal[NTYPES];
	u32 req[NTYPES];
	u32 opt[NTYPES];
};

#define ALL_TYPES	{ false, true, true, true, true, true, true }
#define RTS_OPT {							\
	[ORCA_QPT_GSI] = A(CUR_STATE) | A(QKEY),			\
	[ORCA_QPT_RC] = A(CUR_STATE) | A(ACCESS_FLAGS) | A(ALT_PATH) |	\
			A(PATH_MIG_STATE) | A(MIN_RNR_TIMER),		\
	[ORCA_QPT_UC] = A(CUR_STATE) | A(ACCESS_FLAGS) | A(ALT_PATH) |	\
			A(PATH_MIG_STATE),				\
	[ORCA_QPT_UD] = A(CUR_STATE) | A(QKEY),				\
	[ORCA_QPT_XRC_INI] = A(CUR_STATE) | A(ACCESS_FLAGS) |		\
			     A(ALT_PATH) | A(PATH_MIG_STATE),		\
	[ORCA_QPT_XRC_TGT] = A(CUR_STATE) | A(ACCESS_FLAGS) |		\
			     A(ALT_PATH) | A(PATH_MIG_STATE) |		\
			     A(MIN_RNR_TIMER),				\
}

#define INIT_ATTRS {							\
	[ORCA_QPT_GSI] = A(PKEY_INDEX) | A(QKEY),			\
	[ORCA_QPT_RC] = A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),	\
	[ORCA_QPT_UC] = A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),	\
	[ORCA_QPT_UD] = A(PKEY_INDEX) | A(PORT) | A(QKEY),		\
	[ORCA_QPT_XRC_INI] = A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),	\
	[ORCA_QPT_XRC_TGT] = A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),	\
}

/* Every legal transition; anything not listed is illegal. */
static const struct orca_fsm_expect orca_fsm_expect[] = {
	{ ORCA_QPS_RESET, ORCA_QPS_RESET, ALL_TYPES },
	{ ORCA_QPS_INIT, ORCA_QPS_RESET, ALL_TYPES },
	{ ORCA_QPS_RTR, ORCA_QPS_RESET, ALL_TYPES },
	{ ORCA_QPS_RTS, ORCA_QPS_RESET, ALL_TYPES },
	{ ORCA_QPS_SQD, ORCA_QPS_RESET, ALL_TYPES },
	{ ORCA_QPS_SQE, ORCA_QPS_RESET, ALL_TYPES },
	{ ORCA_QPS_ERR, ORCA_QPS_RESET, ALL_TYPES },
	/* As Linux (mlx5, rxe): RESET->ERR is not a transition. */
	{ ORCA_QPS_INIT, ORCA_QPS_ERR, ALL_TYPES },
	{ ORCA_QPS_RTR, ORCA_QPS_ERR, ALL_TYPES },
	{ ORCA_QPS_RTS, ORCA_QPS_ERR, ALL_TYPES },
	{ ORCA_QPS_SQD, ORCA_QPS_ERR, ALL_TYPES },
	{ ORCA_QPS_SQE, ORCA_QPS_ERR, ALL_TYPES },
	{ ORCA_QPS_ERR, ORCA_QPS_ERR, ALL_TYPES },
	{ ORCA_QPS_RESET, ORCA_QPS_INIT, ALL_TYPES, .req = INIT_ATTRS },
	{ ORCA_QPS_INIT, ORCA_QPS_INIT, ALL_TYPES, .opt = INIT_ATTRS },
	{
		ORCA_QPS_INIT, ORCA_QPS_RTR, ALL_TYPES,
		.req = {
			[ORCA_QPT_RC] = A(AV) | A(PATH_MTU) | A(DEST_QPN) |
					A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) |
					A(MIN_RNR_TIMER),
			[ORCA_QPT_UC] = A(AV) | A(PATH_MTU) | A(DEST_QPN) |
					A(RQ_PSN),
			[ORCA_QPT_XRC_INI] = A(AV) | A(PATH_MTU) |
					     A(DEST_QPN) | A(RQ_PSN),
			[ORCA_QPT_XRC_TGT] = A(AV) | A(PATH_MTU) |
					     A(DEST_QPN) | A(RQ_PSN) |
					     A(MAX_DEST_RD_ATOMIC) |
					     A(MIN_RNR_TIMER),
		},
		.opt = {
			[ORCA_QPT_GSI] = A(PKEY_INDEX) | A(QKEY),
			[ORCA_QPT_RC] = A(PKEY_INDEX) | A(ACCESS_FLAGS) |
					A(ALT_PATH),
			[ORCA_QPT_UC] = A(PKEY_INDEX) | A(ACCESS_FLAGS) |
					A(ALT_PATH),
			[ORCA_QPT_UD] = A(PKEY_INDEX) | A(QKEY),
			[ORCA_QPT_XRC_INI] = A(PKEY_INDEX) | A(ACCESS_FLAGS) |
					     A(ALT_PATH),
			[ORCA_QPT_XRC_TGT] = A(PKEY_INDEX) | A(ACCESS_FLAGS) |
					     A(ALT_PATH),
		},
	},
	{
		ORCA_QPS_RTR, ORCA_QPS_RTS, ALL_TYPES,
		.req = {
			[ORCA_QPT_GSI] = A(SQ_PSN),
			[ORCA_QPT_RC] = A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) |
					A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC),
			[ORCA_QPT_UC] = A(SQ_PSN),
			[ORCA_QPT_UD] = A(SQ_PSN),
			[ORCA_QPT_XRC_INI] = A(SQ_PSN) | A(TIMEOUT) |
					     A(RETRY_CNT) | A(RNR_RETRY) |
					     A(MAX_QP_RD_ATOMIC),
			[ORCA_QPT_XRC_TGT] = A(SQ_PSN) | A(TIMEOUT),
		},
		.opt = RTS_OPT,
	},
	{ ORCA_QPS_RTS, ORCA_QPS_RTS, ALL_TYPES, .opt = RTS_OPT },
	{
		ORCA_QPS_RTS, ORCA_QPS_SQD, ALL_TYPES,
		.opt = {
			[ORCA_QPT_GSI] = A(EN_SQD_ASYNC),
			[ORCA_QPT_RC] = A(EN_SQD_ASYNC),
			[ORCA_QPT_UC] = A(EN_SQD_ASYNC),
			[ORCA_QPT_UD] = A(EN_SQD_ASYNC),
			[ORCA_QPT_XRC_INI] = A(EN_SQD_ASYNC),
			[ORCA_QPT_XRC_TGT] = A(EN_SQD_ASYNC),
		},
	},
	{ ORCA_QPS_SQD, ORCA_QPS_RTS, ALL_TYPES, .opt = RTS_OPT },
	{
		ORCA_QPS_SQD, ORCA_QPS_SQD, ALL_TYPES,
		.opt = {
			[ORCA_QPT_GSI] = A(PKEY_INDEX) | A(QKEY),
			[ORCA_QPT_RC] = A(PORT) | A(AV) | A(TIMEOUT) |
					A(RETRY_CNT) | A(RNR_RETRY) |
					A(MAX_QP_RD_ATOMIC) |
					A(MAX_DEST_RD_ATOMIC) | A(ALT_PATH) |
					A(ACCESS_FLAGS) | A(PKEY_INDEX) |
					A(MIN_RNR_TIMER) | A(PATH_MIG_STATE),
			[ORCA_QPT_UC] = A(AV) | A(ALT_PATH) | A(ACCESS_FLAGS) |
					A(PKEY_INDEX) | A(PATH_MIG_STATE),
			[ORCA_QPT_UD] = A(PKEY_INDEX) | A(QKEY),
			[ORCA_QPT_XRC_INI] = A(PORT) | A(AV) | A(TIMEOUT) |
					     A(RETRY_CNT) | A(RNR_RETRY) |
					     A(MAX_QP_RD_ATOMIC) |
					     A(ALT_PATH) | A(ACCESS_FLAGS) |
					     A(PKEY_INDEX) |
					     A(PATH_MIG_STATE),
			[ORCA_QPT_XRC_TGT] = A(PORT) | A(AV) | A(TIMEOUT) |
					     A(MAX_DEST_RD_ATOMIC) |
					     A(ALT_PATH) | A(ACCESS_FLAGS) |
					     A(PKEY_INDEX) |
					     A(MIN_RNR_TIMER) |
					     A(PATH_MIG_STATE),
		},
	},
	{
		/* No SQE for RC and XRC. */
		ORCA_QPS_SQE, ORCA_QPS_RTS,
		{ false, true, false, true, true, false, false },
		.opt = {
			[ORCA_QPT_GSI] = A(CUR_STATE) | A(QKEY),
			[ORCA_QPT_UC] = A(CUR_STATE) | A(ACCESS_FLAGS),
			[ORCA_QPT_UD] = A(CUR_STATE) | A(QKEY),
		},
	},
};

static const struct orca_fsm_expect *orca_test_expect(u8 type, u8 cur,
						      u8 next)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(orca_fsm_expect); i++) {
		const struct orca_fsm_expect *e = &orca_fsm_expect[i];

		if (e->cur == cur && e->next == next && e->legal[type])
			return e;
	}
	return NULL;
}

/* The mask a modify to @next carries: STATE unless it stays in @cur. */
static u32 orca_test_state_bit(u8 cur, u8 next)
{
	return cur == next ? 0 : A(STATE);
}

/* Every (cur, next, type): legal exactly as listed; illegal -> BAD_STATE. */
static void orca_fsm_legality(struct kunit *test)
{
	unsigned int legal = 0, illegal = 0;
	u8 cur, next;
	size_t t;

	for (t = 0; t < ARRAY_SIZE(orca_test_types); t++) {
		u8 type = orca_test_types[t];

		for (cur = 0; cur < ORCA_QPS_NUM; cur++) {
			for (next = 0; next < ORCA_QPS_NUM; next++) {
				bool want = orca_test_expect(type, cur, next);
				u32 m;

				KUNIT_EXPECT_EQ_MSG(test,
						    orca_qp_transition_legal(type, cur, next),
						    want, "%s %s->%s",
						    orca_test_type_names[type],
						    orca_test_state_names[cur],
						    orca_test_state_names[next]);
				if (want) {
					legal++;
					continue;
				}
				illegal++;
				/* Whatever the mask, an illegal transition is BAD_STATE. */
				for (m = 0; m <= ORCA_QP_ATTR_ALL; m += 0x1111) {
					KUNIT_EXPECT_EQ_MSG(test,
							    orca_qp_modify_check(type, cur, next,
										 m | A(STATE)),
							    ORCA_AQ_STS_BAD_STATE,
							    "%s %s->%s mask %#x",
							    orca_test_type_names[type],
							    orca_test_state_names[cur],
							    orca_test_state_names[next], m);
				}
				KUNIT_EXPECT_EQ(test, orca_qp_required_attrs(type, cur, next), 0U);
				KUNIT_EXPECT_EQ(test, orca_qp_optional_attrs(type, cur, next), 0U);
			}
		}
	}
	/*
	 * 6 types x 49 pairs.  Legal: 7 to RESET, 6 to ERR and 9 others for
	 * GSI, UC and UD; RC, XRC_INI and XRC_TGT lack SQE->RTS.
	 */
	KUNIT_EXPECT_EQ(test, legal, 22U * 3 + 21 * 3);
	KUNIT_EXPECT_EQ(test, illegal, 6U * 49 - (22U * 3 + 21 * 3));
}

/*
 * Every legal transition: required attributes are required, optional ones
 * allowed (ALT_PATH: UNSUPPORTED), every other attribute refused.
 */
static void orca_fsm_attributes(struct kunit *test)
{
	size_t t, i;

	for (t = 0; t < ARRAY_SIZE(orca_test_types); t++) {
		u8 type = orca_test_types[t];

		for (i = 0; i < ARRAY_SIZE(orca_fsm_expect); i++) {
			const struct orca_fsm_expect *e = &orca_fsm_expect[i];
			u32 req = e->req[type], opt = e->opt[type];
			u32 st = orca_test_state_bit(e->cur, e->next);
			const char *tn = orca_test_type_names[type];
			const char *cn = orca_test_state_names[e->cur];
			const char *nn = orca_test_state_names[e->next];
			unsigned int b;

			if (!e->legal[type])
				continue;
			KUNIT_EXPECT_EQ_MSG(test, orca_qp_required_attrs(type, e->cur, e->next),
					    req, "%s %s->%s", tn, cn, nn);
			KUNIT_EXPECT_EQ_MSG(test, orca_qp_optional_attrs(type, e->cur, e->next),
					    opt, "%s %s->%s", tn, cn, nn);
			/* Exactly the required ones; with STATE given explicitly too. */
			KUNIT_EXPECT_EQ_MSG(test,
					    orca_qp_modify_check(type, e->cur, e->next, req | st),
					    ORCA_AQ_STS_OK, "%s %s->%s", tn, cn, nn);
			KUNIT_EXPECT_EQ_MSG(test,
					    orca_qp_modify_check(type, e->cur, e->next,
								 req | A(STATE)),
					    ORCA_AQ_STS_OK, "%s %s->%s +STATE", tn, cn, nn);
			/* Every optional one at once, but ALT_PATH. */
			KUNIT_EXPECT_EQ_MSG(test,
					    orca_qp_modify_check(type, e->cur, e->next,
								 req | st | (opt & ~A(ALT_PATH))),
					    ORCA_AQ_STS_OK, "%s %s->%s all optional", tn, cn, nn);

			for (b = 0; b <= 20; b++) {
				u32 bit = BIT(b);
				u8 got;

				if (bit == A(STATE))
					continue;
				if (req & bit) {
					got = orca_qp_modify_check(type, e->cur, e->next,
								   (req & ~bit) | st);
					KUNIT_EXPECT_EQ_MSG(test, got, ORCA_AQ_STS_BAD_PARAM,
							    "%s %s->%s without required bit %u",
							    tn, cn, nn, b);
					continue;
				}
				got = orca_qp_modify_check(type, e->cur, e->next,
							   req | st | bit);
				if (bit == A(CAP) || ((opt & bit) && bit == A(ALT_PATH)))
					KUNIT_EXPECT_EQ_MSG(test, got, ORCA_AQ_STS_UNSUPPORTED,
							    "%s %s->%s with bit %u",
							    tn, cn, nn, b);
				else if (opt & bit)
					KUNIT_EXPECT_EQ_MSG(test, got, ORCA_AQ_STS_OK,
							    "%s %s->%s with optional bit %u",
							    tn, cn, nn, b);
				else
					KUNIT_EXPECT_EQ_MSG(test, got, ORCA_AQ_STS_BAD_PARAM,
							    "%s %s->%s with disallowed bit %u",
							    tn, cn, nn, b);
			}
		}
	}
}

/* Out-of-range arguments. */
static void orca_fsm_bad_args(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, orca_qp_transition_legal(0, ORCA_QPS_RESET,
							  ORCA_QPS_INIT));
	KUNIT_EXPECT_FALSE(test, orca_qp_transition_legal(ORCA_QPT_XRC_TGT + 1,
							  ORCA_QPS_RESET,
							  ORCA_QPS_RESET));
	KUNIT_EXPECT_FALSE(test, orca_qp_transition_legal(ORCA_QPT_RC,
							  ORCA_QPS_NUM,
							  ORCA_QPS_RESET));
	KUNIT_EXPECT_FALSE(test, orca_qp_transition_legal(ORCA_QPT_RC,
							  ORCA_QPS_RESET,
							  ORCA_QPS_NUM));
	KUNIT_EXPECT_EQ(test, orca_qp_modify_check(ORCA_QPT_RC, ORCA_QPS_RESET,
						   ORCA_QPS_NUM, A(STATE)),
			ORCA_AQ_STS_BAD_STATE);
	/* A bit beyond ORCA_QP_ATTR_ALL is a bad parameter, even in RESET. */
	KUNIT_EXPECT_EQ(test, orca_qp_modify_check(ORCA_QPT_RC, ORCA_QPS_RESET,
						   ORCA_QPS_RESET, BIT(21)),
			ORCA_AQ_STS_BAD_PARAM);
	/* A modify with nothing in RESET is a legal no-op. */
	KUNIT_EXPECT_EQ(test, orca_qp_modify_check(ORCA_QPT_UD, ORCA_QPS_RESET,
						   ORCA_QPS_RESET, 0),
			ORCA_AQ_STS_OK);
	/* RTR->RTR does not exist: a modify in RTR without STATE. */
	KUNIT_EXPECT_EQ(test, orca_qp_modify_check(ORCA_QPT_RC, ORCA_QPS_RTR,
						   ORCA_QPS_RTR, A(QKEY)),
			ORCA_AQ_STS_BAD_STATE);
}

/* --------------------------------------------------- the ib_core oracle */

static const struct {
	u32 orca;
	enum ib_qp_attr_mask ib;
} orca_test_bits[] = {
	{ A(STATE), IB_QP_STATE },
	{ A(CUR_STATE), IB_QP_CUR_STATE },
	{ A(EN_SQD_ASYNC), IB_QP_EN_SQD_ASYNC_NOTIFY },
	{ A(ACCESS_FLAGS), IB_QP_ACCESS_FLAGS },
	{ A(PKEY_INDEX), IB_QP_PKEY_INDEX },
	{ A(PORT), IB_QP_PORT },
	{ A(QKEY), IB_QP_QKEY },
	{ A(AV), IB_QP_AV },
	{ A(PATH_MTU), IB_QP_PATH_MTU },
	{ A(TIMEOUT), IB_QP_TIMEOUT },
	{ A(RETRY_CNT), IB_QP_RETRY_CNT },
	{ A(RNR_RETRY), IB_QP_RNR_RETRY },
	{ A(RQ_PSN), IB_QP_RQ_PSN },
	{ A(MAX_QP_RD_ATOMIC), IB_QP_MAX_QP_RD_ATOMIC },
	{ A(ALT_PATH), IB_QP_ALT_PATH },
	{ A(MIN_RNR_TIMER), IB_QP_MIN_RNR_TIMER },
	{ A(SQ_PSN), IB_QP_SQ_PSN },
	{ A(MAX_DEST_RD_ATOMIC), IB_QP_MAX_DEST_RD_ATOMIC },
	{ A(PATH_MIG_STATE), IB_QP_PATH_MIG_STATE },
	{ A(CAP), IB_QP_CAP },
	{ A(DEST_QPN), IB_QP_DEST_QPN },
};

static enum ib_qp_attr_mask orca_test_to_ib_mask(u32 mask)
{
	enum ib_qp_attr_mask ib = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(orca_test_bits); i++)
		if (mask & orca_test_bits[i].orca)
			ib |= orca_test_bits[i].ib;
	return ib;
}

static enum ib_qp_type orca_test_to_ib_type(u8 type)
{
	switch (type) {
	case ORCA_QPT_GSI:
		return IB_QPT_GSI;
	case ORCA_QPT_RC:
		return IB_QPT_RC;
	case ORCA_QPT_UC:
		return IB_QPT_UC;
	case ORCA_QPT_XRC_INI:
		return IB_QPT_XRC_INI;
	case ORCA_QPT_XRC_TGT:
		return IB_QPT_XRC_TGT;
	default:
		return IB_QPT_UD;
	}
}

static const enum ib_qp_state orca_test_ib_state[ORCA_QPS_NUM] = {
	[ORCA_QPS_RESET] = IB_QPS_RESET, [ORCA_QPS_INIT] = IB_QPS_INIT,
	[ORCA_QPS_RTR] = IB_QPS_RTR, [ORCA_QPS_RTS] = IB_QPS_RTS,
	[ORCA_QPS_SQD] = IB_QPS_SQD, [ORCA_QPS_SQE] = IB_QPS_SQE,
	[ORCA_QPS_ERR] = IB_QPS_ERR,
};

struct orca_oracle_stats {
	unsigned int checked;
	unsigned int ib_ok;
	unsigned int alt_path;		/* IB accepts, ORCA: UNSUPPORTED */
	unsigned int rc_sqe;		/* IB accepts RC SQE->RTS, ORCA: BAD_STATE */
	unsigned int bad;
};

static void orca_oracle_one(struct kunit *test, struct orca_oracle_stats *s,
			    u8 type, u8 cur, u8 next, u32 mask)
{
	bool ib = ib_modify_qp_is_ok(orca_test_ib_state[cur],
				     orca_test_ib_state[next],
				     orca_test_to_ib_type(type),
				     orca_test_to_ib_mask(mask));
	u8 got = orca_qp_modify_check(type, cur, next, mask);
	u8 want;

	s->checked++;
	if (ib)
		s->ib_ok++;
	if ((type == ORCA_QPT_RC || type == ORCA_QPT_XRC_INI ||
	     type == ORCA_QPT_XRC_TGT) &&
	    cur == ORCA_QPS_SQE && next == ORCA_QPS_RTS) {
		want = ORCA_AQ_STS_BAD_STATE;
		if (ib)
			s->rc_sqe++;
	} else if (ib && (mask & A(ALT_PATH))) {
		want = ORCA_AQ_STS_UNSUPPORTED;
		s->alt_path++;
	} else if (ib) {
		want = ORCA_AQ_STS_OK;
	} else {
		/* IB refuses: so must we, with a reason other than OK. */
		if (got == ORCA_AQ_STS_OK ||
		    (got == ORCA_AQ_STS_UNSUPPORTED &&
		     !(mask & (A(CAP) | A(ALT_PATH))))) {
			if (s->bad++ < 8)
				KUNIT_FAIL(test, "%s %s->%s mask %#x: IB refuses, ORCA status %u",
					   orca_test_type_names[type],
					   orca_test_state_names[cur],
					   orca_test_state_names[next], mask, got);
		}
		return;
	}
	if (got != want && s->bad++ < 8)
		KUNIT_FAIL(test, "%s %s->%s mask %#x: IB %s, ORCA status %u, expected %u",
			   orca_test_type_names[type], orca_test_state_names[cur],
			   orca_test_state_names[next], mask,
			   ib ? "accepts" : "refuses", got, want);
}

static void orca_fsm_ib_oracle(struct kunit *test)
{
	struct orca_oracle_stats s = {};
	u32 seed = 0x0c0ffee1;
	u8 cur, next;
	size_t t;

	for (t = 0; t < ARRAY_SIZE(orca_test_types); t++) {
		u8 type = orca_test_types[t];

		for (cur = 0; cur < ORCA_QPS_NUM; cur++) {
			for (next = 0; next < ORCA_QPS_NUM; next++) {
				u32 st = cur == next ? 0 : A(STATE);
				/* Masks around the device's own sets, plus random ones. */
				u32 req = orca_qp_required_attrs(type, cur, next);
				u32 opt = orca_qp_optional_attrs(type, cur, next);
				unsigned int b, r;

				orca_oracle_one(test, &s, type, cur, next, st);
				orca_oracle_one(test, &s, type, cur, next, A(STATE));
				orca_oracle_one(test, &s, type, cur, next, req | st);
				orca_oracle_one(test, &s, type, cur, next, req | opt | st);
				for (b = 0; b <= 20; b++) {
					orca_oracle_one(test, &s, type, cur, next,
							st | BIT(b));
					orca_oracle_one(test, &s, type, cur, next,
							req | st | BIT(b));
					orca_oracle_one(test, &s, type, cur, next,
							(req & ~BIT(b)) | st);
					orca_oracle_one(test, &s, type, cur, next,
							req | opt | st | BIT(b));
				}
				for (r = 0; r < 256; r++) {
					seed = seed * 1103515245 + 12345;
					/* Random subsets of all bits and of the allowed ones. */
					orca_oracle_one(test, &s, type, cur, next,
							((seed >> 3) & ORCA_QP_ATTR_ALL &
							 ~A(STATE)) | st);
					orca_oracle_one(test, &s, type, cur, next,
							req | (opt & (seed >> 7)) | st);
				}
			}
		}
	}
	kunit_info(test, "oracle: %u masks checked, IB accepts %u; intentional: ALT_PATH unsupported in %u, RC SQE->RTS illegal in %u",
		   s.checked, s.ib_ok, s.alt_path, s.rc_sqe);
	KUNIT_EXPECT_EQ(test, s.bad, 0U);
	/* The oracle must have exercised both sides. */
	KUNIT_EXPECT_GT(test, s.ib_ok, 1000U);
	KUNIT_EXPECT_GT(test, s.alt_path, 0U);
	KUNIT_EXPECT_GT(test, s.rc_sqe, 0U);
}

static struct kunit_case orca_qp_fsm_cases[] = {
	KUNIT_CASE(orca_fsm_legality),
	KUNIT_CASE(orca_fsm_attributes),
	KUNIT_CASE(orca_fsm_bad_args),
	KUNIT_CASE(orca_fsm_ib_oracle),
	{}
};

static struct kunit_suite orca_qp_fsm_suite = {
	.name = "orca_qp_fsm",
	.test_cases = orca_qp_fsm_cases,
};

kunit_test_suite(orca_qp_fsm_suite);

MODULE_DESCRIPTION("KUnit tests for the Orca QP state table");
MODULE_LICENSE("GPL");
