// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the pure arithmetic of orca_soft's data path
 * (drivers/orca_soft/orca_soft_dp.h): 24-bit PSN arithmetic, packet
 * counts, the IBTA RNR timer and ACK timeout encodings, the CQ arm
 * decision and the work queue producer check.
 *
 * The expected values come from the specification (IBTA table 45 in
 * milliseconds, Documentation/orca-hw-interface.rst "PSN accounting" and
 * "The CQ arm word"), computed here independently of the header.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "../../drivers/orca_soft/orca_soft_dp.h"

static void orca_dp_test_psn_add(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orca_psn_add(0, 1), 1U);
	KUNIT_EXPECT_EQ(test, orca_psn_add(0x123456, 0x10), 0x123466U);
	/* 24-bit wrap. */
	KUNIT_EXPECT_EQ(test, orca_psn_add(0xffffff, 1), 0U);
	KUNIT_EXPECT_EQ(test, orca_psn_add(0xfffffe, 5), 3U);
	KUNIT_EXPECT_EQ(test, orca_psn_add(0x800000, 0x800000), 0U);
	/* A full lap of 2^24 comes back to the start. */
	KUNIT_EXPECT_EQ(test, orca_psn_add(0xabcdef, 1U << 24), 0xabcdefU);
}

static void orca_dp_test_psn_diff(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orca_psn_diff(5, 5), 0);
	KUNIT_EXPECT_EQ(test, orca_psn_diff(6, 5), 1);
	KUNIT_EXPECT_EQ(test, orca_psn_diff(5, 6), -1);
	/* Across the wrap, in both directions. */
	KUNIT_EXPECT_EQ(test, orca_psn_diff(1, 0xffffff), 2);
	KUNIT_EXPECT_EQ(test, orca_psn_diff(0xffffff, 1), -2);
	/* Half the space: the largest distances either way. */
	KUNIT_EXPECT_EQ(test, orca_psn_diff(0x7fffff, 0), 0x7fffff);
	KUNIT_EXPECT_EQ(test, orca_psn_diff(0x800000, 0), -0x800000);
	/* Bits above 24 do not matter. */
	KUNIT_EXPECT_EQ(test, orca_psn_diff(0xff000010, 0x10), 0);
}

static void orca_dp_test_mtu(struct kunit *test)
{
	static const u32 bytes[] = { 0, 256, 512, 1024, 2048, 4096, 0 };
	u8 m;

	for (m = 0; m < ARRAY_SIZE(bytes); m++)
		KUNIT_EXPECT_EQ_MSG(test, orca_mtu_bytes(m), bytes[m],
				    "path_mtu %u", m);
	KUNIT_EXPECT_EQ(test, orca_mtu_bytes(255), 0U);
}

/* Reference: count packets by filling them one at a time. */
static u32 orca_dp_count_packets(u64 len, u32 mtu)
{
	u32 n = 0;

	do {
		n++;
		len = len > mtu ? len - mtu : 0;
	} while (len);
	return n;
}

static void orca_dp_test_packets(struct kunit *test)
{
	static const u64 lens[] = {
		0, 1, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097,
		65536, 65537, 1048576,
	};
	u8 m;
	u32 i;

	for (m = 1; m <= 5; m++) {
		u32 mtu = orca_mtu_bytes(m);

		for (i = 0; i < ARRAY_SIZE(lens); i++)
			KUNIT_EXPECT_EQ_MSG(test, orca_packets(lens[i], mtu),
					    orca_dp_count_packets(lens[i], mtu),
					    "len %llu mtu %u", lens[i], mtu);
	}
	/* The largest message. */
	KUNIT_EXPECT_EQ(test, orca_packets(1ULL << 31, 256), 1U << 23);
	KUNIT_EXPECT_EQ(test, orca_packets(1ULL << 31, 4096), 1U << 19);
	/* A zero-length message is still one packet. */
	KUNIT_EXPECT_EQ(test, orca_packets(0, 4096), 1U);
}

/* IBTA table 45, in hundredths of a millisecond (10 us units). */
static const u32 orca_dp_rnr_10us[32] = {
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
	12288, 16384, 24576, 32768, 49152,
};

static void orca_dp_test_rnr_timer(struct kunit *test)
{
	u8 c;

	for (c = 0; c < 32; c++)
		KUNIT_EXPECT_EQ_MSG(test, orca_rnr_timer_us(c),
				    orca_dp_rnr_10us[c] * 10, "code %u", c);
	/* Codes 1..31 grow; 0 is the longest of all. */
	for (c = 2; c < 32; c++)
		KUNIT_EXPECT_GT(test, orca_rnr_timer_us(c),
				orca_rnr_timer_us(c - 1));
	KUNIT_EXPECT_GT(test, orca_rnr_timer_us(0), orca_rnr_timer_us(31));
	/* Only 5 bits are used. */
	KUNIT_EXPECT_EQ(test, orca_rnr_timer_us(32 + 14), orca_rnr_timer_us(14));
}

static void orca_dp_test_ack_timeout(struct kunit *test)
{
	u8 t;

	/* 0: no timeout. */
	KUNIT_EXPECT_EQ(test, orca_ack_timeout_ns(0), 0ULL);
	/* 4.096 us * 2^t */
	for (t = 1; t <= 31; t++)
		KUNIT_EXPECT_EQ_MSG(test, orca_ack_timeout_ns(t),
				    4096ULL * (1ULL << t), "timeout %u", t);
	/* 14: about 67 ms, the usual default. */
	KUNIT_EXPECT_EQ(test, orca_ack_timeout_ns(14), 67108864ULL);
}

#define REQ	ORCA_CQ_ARM_REQUEST
#define SOL	ORCA_CQ_ARM_SOLICITED

static void orca_dp_test_arm_pending(struct kunit *test)
{
	/* Fresh CQ: record 0, fired_seq 0. */
	KUNIT_EXPECT_FALSE(test, orca_arm_pending(0, 0));
	/* First arm uses SEQ 1. */
	KUNIT_EXPECT_TRUE(test, orca_arm_pending(REQ | 1, 0));
	/* Fired: the same arm is no longer pending. */
	KUNIT_EXPECT_FALSE(test, orca_arm_pending(REQ | 1, 1));
	/* A SEQ without REQUEST is not an arm. */
	KUNIT_EXPECT_FALSE(test, orca_arm_pending(2, 1));
	/* Wrap of the 16-bit SEQ. */
	KUNIT_EXPECT_TRUE(test, orca_arm_pending(REQ | 0, 0xffff));
	KUNIT_EXPECT_FALSE(test, orca_arm_pending(REQ | 0xffff, 0xffff));
	/* SOLICITED does not change pending-ness. */
	KUNIT_EXPECT_TRUE(test, orca_arm_pending(REQ | SOL | 7, 6));
}

static void orca_dp_test_arm_fires(struct kunit *test)
{
	const u32 fs = ORCA_CQE_FLAG_SOLICITED;

	/* Any completion fires an arm for the next completion. */
	KUNIT_EXPECT_TRUE(test, orca_arm_fires(REQ | 1, 0, 0,
					       ORCA_CQE_ST_SUCCESS));
	KUNIT_EXPECT_TRUE(test, orca_arm_fires(REQ | 1, 0, fs,
					       ORCA_CQE_ST_SUCCESS));
	/* Solicited-only: a plain success does not fire... */
	KUNIT_EXPECT_FALSE(test, orca_arm_fires(REQ | SOL | 1, 0,
						ORCA_CQE_FLAG_IMM,
						ORCA_CQE_ST_SUCCESS));
	/* ...a solicited one does, and so does any error. */
	KUNIT_EXPECT_TRUE(test, orca_arm_fires(REQ | SOL | 1, 0, fs,
					       ORCA_CQE_ST_SUCCESS));
	KUNIT_EXPECT_TRUE(test, orca_arm_fires(REQ | SOL | 1, 0, 0,
					       ORCA_CQE_ST_WR_FLUSH_ERR));
	KUNIT_EXPECT_TRUE(test, orca_arm_fires(REQ | SOL | 1, 0, 0,
					       ORCA_CQE_ST_REM_ACCESS_ERR));
	/* Nothing fires without a pending arm. */
	KUNIT_EXPECT_FALSE(test, orca_arm_fires(REQ | 1, 1, fs,
						ORCA_CQE_ST_LOC_LEN_ERR));
	KUNIT_EXPECT_FALSE(test, orca_arm_fires(0, 0, fs,
						ORCA_CQE_ST_LOC_LEN_ERR));
}

/* One event per arm: a model of the device over a stream of CQEs. */
static void orca_dp_test_arm_one_shot(struct kunit *test)
{
	u16 fired = 0;
	u32 arm = REQ | SOL | 1;
	int i, events = 0;

	/* Ten unsolicited successes, then two solicited ones. */
	for (i = 0; i < 12; i++) {
		u32 flags = i >= 10 ? ORCA_CQE_FLAG_SOLICITED : 0;

		if (orca_arm_fires(arm, fired, flags, ORCA_CQE_ST_SUCCESS)) {
			fired = arm & ORCA_CQ_ARM_SEQ_MASK;
			events++;
		}
	}
	KUNIT_EXPECT_EQ(test, events, 1);
	KUNIT_EXPECT_EQ(test, fired, 1);
	/* Re-arm: the next CQE fires again. */
	arm = REQ | 2;
	KUNIT_EXPECT_TRUE(test, orca_arm_fires(arm, fired, 0,
					       ORCA_CQE_ST_SUCCESS));
}

/*
 * The race 240-ev-stress once hit: the device writes CQE 0 (prod 1); the
 * consumer polls it (cons 1), arms with SEQ 1 and polls the CQ empty;
 * only then does the device read the arm.  That arm is for a later
 * completion: it must stay pending, and fire on CQE 1.
 */
static void orca_dp_test_arm_after_consumed(struct kunit *test)
{
	u16 fired = 0;
	u32 arm = REQ | 1;
	u32 prod = 1, cons = 1;

	KUNIT_EXPECT_TRUE(test, orca_arm_fires(arm, fired, 0,
					       ORCA_CQE_ST_SUCCESS));
	KUNIT_EXPECT_FALSE(test, orca_arm_cqe_unconsumed(prod, cons, 4));
	/* CQE 1 arrives, unpolled: now the arm fires. */
	prod = 2;
	KUNIT_EXPECT_TRUE(test, orca_arm_cqe_unconsumed(prod, cons, 4));
	/* Several CQEs unconsumed, across the 2^32 wrap of the indices. */
	KUNIT_EXPECT_TRUE(test, orca_arm_cqe_unconsumed(3, 0xfffffffe, 4));
	KUNIT_EXPECT_FALSE(test, orca_arm_cqe_unconsumed(0, 0, 4));
	/* Exactly a full ring is still unconsumed; more is impossible. */
	KUNIT_EXPECT_TRUE(test, orca_arm_cqe_unconsumed(16, 0, 4));
	KUNIT_EXPECT_FALSE(test, orca_arm_cqe_unconsumed(17, 0, 4));
	/* A consumer index ahead of the producer is impossible too. */
	KUNIT_EXPECT_FALSE(test, orca_arm_cqe_unconsumed(5, 6, 4));
}

static void orca_dp_test_wq_prod(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, orca_wq_prod_ok(0, 0, 4));
	KUNIT_EXPECT_TRUE(test, orca_wq_prod_ok(16, 0, 4));
	KUNIT_EXPECT_FALSE(test, orca_wq_prod_ok(17, 0, 4));
	/* Behind cons: a hostile index. */
	KUNIT_EXPECT_FALSE(test, orca_wq_prod_ok(9, 10, 4));
	/* Across the 32-bit wrap. */
	KUNIT_EXPECT_TRUE(test, orca_wq_prod_ok(8, 0xfffffff8, 4));
	KUNIT_EXPECT_FALSE(test, orca_wq_prod_ok(9, 0xfffffff8, 4));
	/* Depth 1. */
	KUNIT_EXPECT_TRUE(test, orca_wq_prod_ok(6, 5, 0));
	KUNIT_EXPECT_FALSE(test, orca_wq_prod_ok(7, 5, 0));
}

static struct kunit_case orca_dp_test_cases[] = {
	KUNIT_CASE(orca_dp_test_psn_add),
	KUNIT_CASE(orca_dp_test_psn_diff),
	KUNIT_CASE(orca_dp_test_mtu),
	KUNIT_CASE(orca_dp_test_packets),
	KUNIT_CASE(orca_dp_test_rnr_timer),
	KUNIT_CASE(orca_dp_test_ack_timeout),
	KUNIT_CASE(orca_dp_test_arm_pending),
	KUNIT_CASE(orca_dp_test_arm_fires),
	KUNIT_CASE(orca_dp_test_arm_one_shot),
	KUNIT_CASE(orca_dp_test_arm_after_consumed),
	KUNIT_CASE(orca_dp_test_wq_prod),
	{}
};

static struct kunit_suite orca_dp_test_suite = {
	.name = "orca_soft_dp",
	.test_cases = orca_dp_test_cases,
};

kunit_test_suite(orca_dp_test_suite);

MODULE_DESCRIPTION("KUnit tests for orca_soft's data-path arithmetic");
MODULE_LICENSE("GPL");
