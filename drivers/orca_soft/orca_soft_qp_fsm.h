/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * orca_soft: the QP state table (IBTA, as Linux's ib_modify_qp_is_ok()).
 *
 * Pure functions of (QP type, current state, next state, attribute mask):
 * no device state, so the KUnit suite tests them directly.
 */
#ifndef ORCA_SOFT_QP_FSM_H
#define ORCA_SOFT_QP_FSM_H

#include <linux/types.h>

#include "orca_hw.h"

/* Attributes the device does not implement (ALT_PATH: no APM; CAP: resize). */
#define ORCA_QP_ATTR_UNSUPPORTED	(ORCA_QP_ATTR_ALT_PATH | ORCA_QP_ATTR_CAP)

bool orca_qp_transition_legal(u8 type, u8 cur, u8 next);
u32 orca_qp_required_attrs(u8 type, u8 cur, u8 next);
u32 orca_qp_optional_attrs(u8 type, u8 cur, u8 next);
u8 orca_qp_modify_check(u8 type, u8 cur, u8 next, u32 mask);

#endif /* ORCA_SOFT_QP_FSM_H */
