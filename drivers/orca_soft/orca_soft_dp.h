/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * orca_soft: pure arithmetic of the data path.
 *
 * Packet Sequence Numbers, packet counts, the IBTA RNR timer and ACK
 * timeout encodings, and the CQ arm decision.  No device state: the
 * KUnit suite (tests/kunit/orca_soft_dp_test.c) tests these directly.
 */
#ifndef ORCA_SOFT_DP_H
#define ORCA_SOFT_DP_H

#include <linux/kernel.h>
#include <linux/types.h>
#include <rdma/orca-abi.h>

#define ORCA_SOFT_PSN_MASK	0x00ffffffU
#define ORCA_SOFT_RNR_INFINITE	7	/* rnr_retry value: retry for ever */

/* PSNs are 24-bit and wrap. */
static inline u32 orca_psn_add(u32 psn, u32 n)
{
	return (psn + n) & ORCA_SOFT_PSN_MASK;
}

/*
 * Signed distance from @b to @a in PSN space: > 0 when @a is after @b,
 * within half the 24-bit space.
 */
static inline s32 orca_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

/* Path MTU in bytes for the IB encoding 1..5 (256..4096); 0 if invalid. */
static inline u32 orca_mtu_bytes(u8 path_mtu)
{
	if (path_mtu < 1 || path_mtu > 5)
		return 0;
	return 128U << path_mtu;
}

/* Packets a message of @len bytes takes at @mtu bytes a packet: at least 1. */
static inline u32 orca_packets(u64 len, u32 mtu)
{
	if (!len || !mtu)
		return 1;
	return (u32)DIV_ROUND_UP_ULL(len, mtu);
}

/*
 * RNR NAK timer (IBTA table 45, the min_rnr_timer encoding), in
 * microseconds.  Encoding 0 is the longest, 655.36 ms.
 */
static inline u32 orca_rnr_timer_us(u8 code)
{
	static const u32 us[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120,
		160, 240, 320, 480, 640, 960, 1280, 1920,
		2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
		40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
	};

	return us[code & 31];
}

/*
 * Local ACK timeout: 4.096 us * 2^timeout, in ns; 0 means no timeout
 * (wait for ever), as the IB "timeout" attribute 0 does.
 */
static inline u64 orca_ack_timeout_ns(u8 timeout)
{
	if (!timeout)
		return 0;
	return 4096ULL << min_t(u8, timeout, 31);
}

/*
 * CQ arm decision: does a CQE with @cqe_flags (ORCA_CQE_FLAG_*) and
 * @status fire the arm word @arm, given that the last arm fired had
 * sequence @fired_seq?  An arm is pending while REQUEST is set and its
 * SEQ differs from the last one fired; a SOLICITED arm fires only for a
 * solicited CQE or an error CQE.
 */
static inline bool orca_arm_pending(u32 arm, u16 fired_seq)
{
	return (arm & ORCA_CQ_ARM_REQUEST) &&
	       (arm & ORCA_CQ_ARM_SEQ_MASK) != fired_seq;
}

static inline bool orca_arm_fires(u32 arm, u16 fired_seq, u32 cqe_flags,
				  u8 status)
{
	if (!orca_arm_pending(arm, fired_seq))
		return false;
	if (!(arm & ORCA_CQ_ARM_SOLICITED))
		return true;
	return (cqe_flags & ORCA_CQE_FLAG_SOLICITED) ||
	       status != ORCA_CQE_ST_SUCCESS;
}

/*
 * The device reads a CQ's arm word some time after it wrote a CQE.  In
 * between, the consumer may have polled that CQE and armed again: that
 * arm asks for a completion after the one it has already seen.  So an
 * arm fires for the CQE just written (index @prod - 1) only if it is
 * still unconsumed by the consumer index @cons read after the arm word:
 * 0 < prod - cons <= depth.  A CQE the consumer has taken leaves the arm
 * pending for the next one.
 */
static inline bool orca_arm_cqe_unconsumed(u32 prod, u32 cons, u8 log2_depth)
{
	u32 used = prod - cons;

	return used && used <= (1U << log2_depth);
}

/*
 * A producer index published by software is hostile: it may not claim
 * more entries than the ring has.
 */
static inline bool orca_wq_prod_ok(u32 prod, u32 cons, u8 log2_depth)
{
	return prod - cons <= (1U << log2_depth);
}

#endif /* ORCA_SOFT_DP_H */
