// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: the QP state table.
 *
 * For every (current state, next state) pair the table says whether the
 * transition is legal and, per QP type, which attributes it requires and
 * which it allows besides ORCA_QP_ATTR_STATE.  The content is the IBTA
 * table as Linux applies it (ib_modify_qp_is_ok()), for the QP types the
 * device has, with one deliberate difference: SQE->RTS is not a legal
 * transition for RC and XRC, since such a QP never enters SQE.
 */
#include <linux/kernel.h>

#include "orca_soft_qp_fsm.h"

#define ORCA_QPT_MAX		(ORCA_QPT_XRC_TGT + 1)

struct orca_qp_fsm_entry {
	bool legal;
	u32 req[ORCA_QPT_MAX];
	u32 opt[ORCA_QPT_MAX];
};

/* Optional in RTR->RTS, RTS->RTS and SQD->RTS. */
#define ORCA_RTS_OPT_RC	(ORCA_QP_ATTR_CUR_STATE | ORCA_QP_ATTR_ALT_PATH | \
			 ORCA_QP_ATTR_ACCESS_FLAGS | \
			 ORCA_QP_ATTR_MIN_RNR_TIMER | \
			 ORCA_QP_ATTR_PATH_MIG_STATE)
#define ORCA_RTS_OPT_UC	(ORCA_QP_ATTR_CUR_STATE | ORCA_QP_ATTR_ALT_PATH | \
			 ORCA_QP_ATTR_ACCESS_FLAGS | \
			 ORCA_QP_ATTR_PATH_MIG_STATE)
#define ORCA_RTS_OPT_UD	(ORCA_QP_ATTR_CUR_STATE | ORCA_QP_ATTR_QKEY)

#define ORCA_RTS_OPT {					\
	[ORCA_QPT_GSI] = ORCA_RTS_OPT_UD,		\
	[ORCA_QPT_RC] = ORCA_RTS_OPT_RC,		\
	[ORCA_QPT_UC] = ORCA_RTS_OPT_UC,		\
	[ORCA_QPT_UD] = ORCA_RTS_OPT_UD,		\
	[ORCA_QPT_XRC_INI] = ORCA_RTS_OPT_UC,		\
	[ORCA_QPT_XRC_TGT] = ORCA_RTS_OPT_RC,		\
}

/* Any state to RESET or ERR, with no attribute. */
#define ORCA_TO_ANY	{ .legal = true }

static const struct orca_qp_fsm_entry orca_qp_fsm[ORCA_QPS_NUM][ORCA_QPS_NUM] = {
	[ORCA_QPS_RESET] = {
		[ORCA_QPS_RESET] = ORCA_TO_ANY,
		[ORCA_QPS_INIT] = {
			.legal = true,
			.req = {
				[ORCA_QPT_GSI] = ORCA_QP_ATTR_PKEY_INDEX |
						 ORCA_QP_ATTR_QKEY,
				[ORCA_QPT_RC] = ORCA_QP_ATTR_PKEY_INDEX |
						ORCA_QP_ATTR_PORT |
						ORCA_QP_ATTR_ACCESS_FLAGS,
				[ORCA_QPT_UC] = ORCA_QP_ATTR_PKEY_INDEX |
						ORCA_QP_ATTR_PORT |
						ORCA_QP_ATTR_ACCESS_FLAGS,
				[ORCA_QPT_UD] = ORCA_QP_ATTR_PKEY_INDEX |
						ORCA_QP_ATTR_PORT |
						ORCA_QP_ATTR_QKEY,
				[ORCA_QPT_XRC_INI] = ORCA_QP_ATTR_PKEY_INDEX |
						     ORCA_QP_ATTR_PORT |
						     ORCA_QP_ATTR_ACCESS_FLAGS,
				[ORCA_QPT_XRC_TGT] = ORCA_QP_ATTR_PKEY_INDEX |
						     ORCA_QP_ATTR_PORT |
						     ORCA_QP_ATTR_ACCESS_FLAGS,
			},
		},
	},
	[ORCA_QPS_INIT] = {
		[ORCA_QPS_RESET] = ORCA_TO_ANY,
		[ORCA_QPS_ERR] = ORCA_TO_ANY,
		[ORCA_QPS_INIT] = {
			.legal = true,
			.opt = {
				[ORCA_QPT_GSI] = ORCA_QP_ATTR_PKEY_INDEX |
						 ORCA_QP_ATTR_QKEY,
				[ORCA_QPT_RC] = ORCA_QP_ATTR_PKEY_INDEX |
						ORCA_QP_ATTR_PORT |
						ORCA_QP_ATTR_ACCESS_FLAGS,
				[ORCA_QPT_UC] = ORCA_QP_ATTR_PKEY_INDEX |
						ORCA_QP_ATTR_PORT |
						ORCA_QP_ATTR_ACCESS_FLAGS,
				[ORCA_QPT_UD] = ORCA_QP_ATTR_PKEY_INDEX |
						ORCA_QP_ATTR_PORT |
						ORCA_QP_ATTR_QKEY,
				[ORCA_QPT_XRC_INI] = ORCA_QP_ATTR_PKEY_INDEX |
						     ORCA_QP_ATTR_PORT |
						     ORCA_QP_ATTR_ACCESS_FLAGS,
				[ORCA_QPT_XRC_TGT] = ORCA_QP_ATTR_PKEY_INDEX |
						     ORCA_QP_ATTR_PORT |
						     ORCA_QP_ATTR_ACCESS_FLAGS,
			},
		},
		[ORCA_QPS_RTR] = {
			.legal = true,
			.req = {
				[ORCA_QPT_RC] = ORCA_QP_ATTR_AV |
						ORCA_QP_ATTR_PATH_MTU |
						ORCA_QP_ATTR_DEST_QPN |
						ORCA_QP_ATTR_RQ_PSN |
						ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC |
						ORCA_QP_ATTR_MIN_RNR_TIMER,
				[ORCA_QPT_UC] = ORCA_QP_ATTR_AV |
						ORCA_QP_ATTR_PATH_MTU |
						ORCA_QP_ATTR_DEST_QPN |
						ORCA_QP_ATTR_RQ_PSN,
				[ORCA_QPT_XRC_INI] = ORCA_QP_ATTR_AV |
						     ORCA_QP_ATTR_PATH_MTU |
						     ORCA_QP_ATTR_DEST_QPN |
						     ORCA_QP_ATTR_RQ_PSN,
				[ORCA_QPT_XRC_TGT] = ORCA_QP_ATTR_AV |
						     ORCA_QP_ATTR_PATH_MTU |
						     ORCA_QP_ATTR_DEST_QPN |
						     ORCA_QP_ATTR_RQ_PSN |
						     ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC |
						     ORCA_QP_ATTR_MIN_RNR_TIMER,
			},
			.opt = {
				[ORCA_QPT_GSI] = ORCA_QP_ATTR_PKEY_INDEX |
						 ORCA_QP_ATTR_QKEY,
				[ORCA_QPT_RC] = ORCA_QP_ATTR_ALT_PATH |
						ORCA_QP_ATTR_ACCESS_FLAGS |
						ORCA_QP_ATTR_PKEY_INDEX,
				[ORCA_QPT_UC] = ORCA_QP_ATTR_ALT_PATH |
						ORCA_QP_ATTR_ACCESS_FLAGS |
						ORCA_QP_ATTR_PKEY_INDEX,
				[ORCA_QPT_UD] = ORCA_QP_ATTR_PKEY_INDEX |
						ORCA_QP_ATTR_QKEY,
				[ORCA_QPT_XRC_INI] = ORCA_QP_ATTR_ALT_PATH |
						     ORCA_QP_ATTR_ACCESS_FLAGS |
						     ORCA_QP_ATTR_PKEY_INDEX,
				[ORCA_QPT_XRC_TGT] = ORCA_QP_ATTR_ALT_PATH |
						     ORCA_QP_ATTR_ACCESS_FLAGS |
						     ORCA_QP_ATTR_PKEY_INDEX,
			},
		},
	},
	[ORCA_QPS_RTR] = {
		[ORCA_QPS_RESET] = ORCA_TO_ANY,
		[ORCA_QPS_ERR] = ORCA_TO_ANY,
		[ORCA_QPS_RTS] = {
			.legal = true,
			.req = {
				[ORCA_QPT_GSI] = ORCA_QP_ATTR_SQ_PSN,
				[ORCA_QPT_RC] = ORCA_QP_ATTR_TIMEOUT |
						ORCA_QP_ATTR_RETRY_CNT |
						ORCA_QP_ATTR_RNR_RETRY |
						ORCA_QP_ATTR_SQ_PSN |
						ORCA_QP_ATTR_MAX_QP_RD_ATOMIC,
				[ORCA_QPT_UC] = ORCA_QP_ATTR_SQ_PSN,
				[ORCA_QPT_UD] = ORCA_QP_ATTR_SQ_PSN,
				[ORCA_QPT_XRC_INI] = ORCA_QP_ATTR_TIMEOUT |
						     ORCA_QP_ATTR_RETRY_CNT |
						     ORCA_QP_ATTR_RNR_RETRY |
						     ORCA_QP_ATTR_SQ_PSN |
						     ORCA_QP_ATTR_MAX_QP_RD_ATOMIC,
				[ORCA_QPT_XRC_TGT] = ORCA_QP_ATTR_TIMEOUT |
						     ORCA_QP_ATTR_SQ_PSN,
			},
			.opt = ORCA_RTS_OPT,
		},
	},
	[ORCA_QPS_RTS] = {
		[ORCA_QPS_RESET] = ORCA_TO_ANY,
		[ORCA_QPS_ERR] = ORCA_TO_ANY,
		[ORCA_QPS_RTS] = {
			.legal = true,
			.opt = ORCA_RTS_OPT,
		},
		[ORCA_QPS_SQD] = {
			.legal = true,
			.opt = {
				[ORCA_QPT_GSI] = ORCA_QP_ATTR_EN_SQD_ASYNC,
				[ORCA_QPT_RC] = ORCA_QP_ATTR_EN_SQD_ASYNC,
				[ORCA_QPT_UC] = ORCA_QP_ATTR_EN_SQD_ASYNC,
				[ORCA_QPT_UD] = ORCA_QP_ATTR_EN_SQD_ASYNC,
				[ORCA_QPT_XRC_INI] = ORCA_QP_ATTR_EN_SQD_ASYNC,
				[ORCA_QPT_XRC_TGT] = ORCA_QP_ATTR_EN_SQD_ASYNC,
			},
		},
	},
	[ORCA_QPS_SQD] = {
		[ORCA_QPS_RESET] = ORCA_TO_ANY,
		[ORCA_QPS_ERR] = ORCA_TO_ANY,
		[ORCA_QPS_RTS] = {
			.legal = true,
			.opt = ORCA_RTS_OPT,
		},
		[ORCA_QPS_SQD] = {
			.legal = true,
			.opt = {
				[ORCA_QPT_GSI] = ORCA_QP_ATTR_PKEY_INDEX |
						 ORCA_QP_ATTR_QKEY,
				[ORCA_QPT_RC] = ORCA_QP_ATTR_PORT |
						ORCA_QP_ATTR_AV |
						ORCA_QP_ATTR_TIMEOUT |
						ORCA_QP_ATTR_RETRY_CNT |
						ORCA_QP_ATTR_RNR_RETRY |
						ORCA_QP_ATTR_MAX_QP_RD_ATOMIC |
						ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC |
						ORCA_QP_ATTR_ALT_PATH |
						ORCA_QP_ATTR_ACCESS_FLAGS |
						ORCA_QP_ATTR_PKEY_INDEX |
						ORCA_QP_ATTR_MIN_RNR_TIMER |
						ORCA_QP_ATTR_PATH_MIG_STATE,
				[ORCA_QPT_UC] = ORCA_QP_ATTR_AV |
						ORCA_QP_ATTR_ALT_PATH |
						ORCA_QP_ATTR_ACCESS_FLAGS |
						ORCA_QP_ATTR_PKEY_INDEX |
						ORCA_QP_ATTR_PATH_MIG_STATE,
				[ORCA_QPT_UD] = ORCA_QP_ATTR_PKEY_INDEX |
						ORCA_QP_ATTR_QKEY,
				[ORCA_QPT_XRC_INI] = ORCA_QP_ATTR_PORT |
						     ORCA_QP_ATTR_AV |
						     ORCA_QP_ATTR_TIMEOUT |
						     ORCA_QP_ATTR_RETRY_CNT |
						     ORCA_QP_ATTR_RNR_RETRY |
						     ORCA_QP_ATTR_MAX_QP_RD_ATOMIC |
						     ORCA_QP_ATTR_ALT_PATH |
						     ORCA_QP_ATTR_ACCESS_FLAGS |
						     ORCA_QP_ATTR_PKEY_INDEX |
						     ORCA_QP_ATTR_PATH_MIG_STATE,
				[ORCA_QPT_XRC_TGT] = ORCA_QP_ATTR_PORT |
						     ORCA_QP_ATTR_AV |
						     ORCA_QP_ATTR_TIMEOUT |
						     ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC |
						     ORCA_QP_ATTR_ALT_PATH |
						     ORCA_QP_ATTR_ACCESS_FLAGS |
						     ORCA_QP_ATTR_PKEY_INDEX |
						     ORCA_QP_ATTR_MIN_RNR_TIMER |
						     ORCA_QP_ATTR_PATH_MIG_STATE,
			},
		},
	},
	[ORCA_QPS_SQE] = {
		[ORCA_QPS_RESET] = ORCA_TO_ANY,
		[ORCA_QPS_ERR] = ORCA_TO_ANY,
		[ORCA_QPS_RTS] = {
			.legal = true,
			.opt = {
				[ORCA_QPT_GSI] = ORCA_QP_ATTR_CUR_STATE |
						 ORCA_QP_ATTR_QKEY,
				[ORCA_QPT_UC] = ORCA_QP_ATTR_CUR_STATE |
						ORCA_QP_ATTR_ACCESS_FLAGS,
				[ORCA_QPT_UD] = ORCA_QP_ATTR_CUR_STATE |
						ORCA_QP_ATTR_QKEY,
			},
		},
	},
	[ORCA_QPS_ERR] = {
		[ORCA_QPS_RESET] = ORCA_TO_ANY,
		[ORCA_QPS_ERR] = ORCA_TO_ANY,
	},
};

static bool orca_qp_fsm_args_ok(u8 type, u8 cur, u8 next)
{
	return type >= ORCA_QPT_GSI && type <= ORCA_QPT_XRC_TGT &&
	       cur < ORCA_QPS_NUM && next < ORCA_QPS_NUM;
}

/**
 * orca_qp_transition_legal - is @cur -> @next a transition of the table
 * @type: enum orca_qp_type
 * @cur: current state, enum orca_qp_state
 * @next: requested state
 */
bool orca_qp_transition_legal(u8 type, u8 cur, u8 next)
{
	if (!orca_qp_fsm_args_ok(type, cur, next))
		return false;
	/* An RC or XRC QP never enters SQE, so never leaves it for RTS. */
	if ((type == ORCA_QPT_RC || type == ORCA_QPT_XRC_INI ||
	     type == ORCA_QPT_XRC_TGT) &&
	    cur == ORCA_QPS_SQE && next == ORCA_QPS_RTS)
		return false;
	return orca_qp_fsm[cur][next].legal;
}

/* Attributes a legal transition requires; 0 for an illegal one. */
u32 orca_qp_required_attrs(u8 type, u8 cur, u8 next)
{
	if (!orca_qp_transition_legal(type, cur, next))
		return 0;
	return orca_qp_fsm[cur][next].req[type];
}

/* Attributes a legal transition allows besides STATE and the required ones. */
u32 orca_qp_optional_attrs(u8 type, u8 cur, u8 next)
{
	if (!orca_qp_transition_legal(type, cur, next))
		return 0;
	return orca_qp_fsm[cur][next].opt[type];
}

/**
 * orca_qp_modify_check - check a MODIFY_QP attribute mask against the table
 * @type: enum orca_qp_type
 * @cur: the QP's current state
 * @next: the requested state (@cur when @mask has no ORCA_QP_ATTR_STATE)
 * @mask: ORCA_QP_ATTR_* bits of the command
 *
 * Return: ORCA_AQ_STS_OK; BAD_STATE for an illegal transition (or a type
 * or state out of range); UNSUPPORTED for CAP, or for ALT_PATH where the
 * transition would allow it; BAD_PARAM for an unknown bit, a missing
 * required attribute or an attribute the transition does not allow.
 */
u8 orca_qp_modify_check(u8 type, u8 cur, u8 next, u32 mask)
{
	u32 req, opt;

	if (mask & ~ORCA_QP_ATTR_ALL)
		return ORCA_AQ_STS_BAD_PARAM;
	if (!orca_qp_transition_legal(type, cur, next))
		return ORCA_AQ_STS_BAD_STATE;
	if (mask & ORCA_QP_ATTR_CAP)
		return ORCA_AQ_STS_UNSUPPORTED;

	req = orca_qp_fsm[cur][next].req[type];
	opt = orca_qp_fsm[cur][next].opt[type];
	if ((mask & req) != req)
		return ORCA_AQ_STS_BAD_PARAM;
	if (mask & ~(req | opt | ORCA_QP_ATTR_STATE))
		return ORCA_AQ_STS_BAD_PARAM;
	if (mask & ORCA_QP_ATTR_ALT_PATH)
		return ORCA_AQ_STS_UNSUPPORTED;
	return ORCA_AQ_STS_OK;
}
