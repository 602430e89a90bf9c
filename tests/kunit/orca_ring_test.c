// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the Orca ring index arithmetic (drivers/orca/orca_ring.h).
 *
 * The expected values are worked out by hand, or by a reference model
 * that keeps 64-bit positions (which never wrap in these tests) and
 * reduces them with division and modulo instead of masks and shifts.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "orca_ring.h"

static void orca_ring_test_depth(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orca_ring_depth(0), 1U);
	KUNIT_EXPECT_EQ(test, orca_ring_depth(1), 2U);
	KUNIT_EXPECT_EQ(test, orca_ring_depth(6), 64U);
	KUNIT_EXPECT_EQ(test, orca_ring_depth(10), 1024U);
	KUNIT_EXPECT_EQ(test, orca_ring_depth(ORCA_RING_MAX_LOG2_DEPTH), 65536U);
	KUNIT_EXPECT_EQ(test, ORCA_RING_MAX_LOG2_DEPTH, 16);
}

static void orca_ring_test_slot(struct kunit *test)
{
	/* Depth 64. */
	KUNIT_EXPECT_EQ(test, orca_ring_slot(0, 6), 0U);
	KUNIT_EXPECT_EQ(test, orca_ring_slot(1, 6), 1U);
	KUNIT_EXPECT_EQ(test, orca_ring_slot(63, 6), 63U);
	KUNIT_EXPECT_EQ(test, orca_ring_slot(64, 6), 0U);
	KUNIT_EXPECT_EQ(test, orca_ring_slot(65, 6), 1U);
	KUNIT_EXPECT_EQ(test, orca_ring_slot(200, 6), 8U);
	KUNIT_EXPECT_EQ(test, orca_ring_slot(0x12345678, 6), 0x38U);
	KUNIT_EXPECT_EQ(test, orca_ring_slot(0xffffffff, 6), 63U);

	/* Depth 1: every position is slot 0. */
	KUNIT_EXPECT_EQ(test, orca_ring_slot(0, 0), 0U);
	KUNIT_EXPECT_EQ(test, orca_ring_slot(7, 0), 0U);
	KUNIT_EXPECT_EQ(test, orca_ring_slot(0xffffffff, 0), 0U);

	/* Largest ring. */
	KUNIT_EXPECT_EQ(test, orca_ring_slot(0xdeadbeef, 16), 0xbeefU);
	KUNIT_EXPECT_EQ(test, orca_ring_slot(0x10000, 16), 0U);
	KUNIT_EXPECT_EQ(test, orca_ring_slot(0xffff, 16), 0xffffU);
}

/* Every log2 depth: slot agrees with the modulo of the position. */
static void orca_ring_test_slot_modulo(struct kunit *test)
{
	static const u32 pos[] = {
		0, 1, 2, 3, 5, 17, 255, 256, 4097, 65535, 65536, 65537,
		0x7fffffff, 0x80000000, 0x80000001, 0xfffeffff, 0xfffffffe,
		0xffffffff,
	};
	unsigned int i;
	u8 l;

	for (l = 0; l <= ORCA_RING_MAX_LOG2_DEPTH; l++) {
		u64 depth = 1ULL << l;

		for (i = 0; i < ARRAY_SIZE(pos); i++)
			KUNIT_EXPECT_EQ_MSG(test, orca_ring_slot(pos[i], l),
					    (u32)((u64)pos[i] % depth),
					    "pos %#x log2 %u", pos[i], l);
	}
}

static void orca_ring_test_counts(struct kunit *test)
{
	/* Empty ring of 64 entries. */
	KUNIT_EXPECT_EQ(test, orca_ring_used(0, 0), 0U);
	KUNIT_EXPECT_EQ(test, orca_ring_free(0, 0, 6), 64U);
	KUNIT_EXPECT_TRUE(test, orca_ring_empty(0, 0));
	KUNIT_EXPECT_FALSE(test, orca_ring_full(0, 0, 6));

	/* Partly used. */
	KUNIT_EXPECT_EQ(test, orca_ring_used(10, 3), 7U);
	KUNIT_EXPECT_EQ(test, orca_ring_free(10, 3, 6), 57U);
	KUNIT_EXPECT_FALSE(test, orca_ring_empty(10, 3));
	KUNIT_EXPECT_FALSE(test, orca_ring_full(10, 3, 6));

	/* One short of full, then full. */
	KUNIT_EXPECT_EQ(test, orca_ring_free(163, 100, 6), 1U);
	KUNIT_EXPECT_FALSE(test, orca_ring_full(163, 100, 6));
	KUNIT_EXPECT_EQ(test, orca_ring_used(164, 100), 64U);
	KUNIT_EXPECT_EQ(test, orca_ring_free(164, 100, 6), 0U);
	KUNIT_EXPECT_TRUE(test, orca_ring_full(164, 100, 6));
	KUNIT_EXPECT_FALSE(test, orca_ring_empty(164, 100));

	/* Same positions, but a ring of 128: not full. */
	KUNIT_EXPECT_EQ(test, orca_ring_free(164, 100, 7), 64U);
	KUNIT_EXPECT_FALSE(test, orca_ring_full(164, 100, 7));

	/* Depth 1: one entry makes it full. */
	KUNIT_EXPECT_TRUE(test, orca_ring_full(1, 0, 0));
	KUNIT_EXPECT_FALSE(test, orca_ring_full(5, 5, 0));
	KUNIT_EXPECT_EQ(test, orca_ring_free(5, 5, 0), 1U);

	/* Empty at any equal position, not only at zero. */
	KUNIT_EXPECT_TRUE(test, orca_ring_empty(0x80000000, 0x80000000));
	KUNIT_EXPECT_TRUE(test, orca_ring_empty(0xffffffff, 0xffffffff));
	/* Same slot, but a full lap apart: not empty. */
	KUNIT_EXPECT_FALSE(test, orca_ring_empty(64, 0));
}

/* The producer has wrapped past 2^32, the consumer has not yet. */
static void orca_ring_test_counts_wrap(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orca_ring_used(0, 0xffffffff), 1U);
	KUNIT_EXPECT_EQ(test, orca_ring_free(0, 0xffffffff, 6), 63U);
	KUNIT_EXPECT_FALSE(test, orca_ring_empty(0, 0xffffffff));

	/* 16 entries before the wrap and 16 after. */
	KUNIT_EXPECT_EQ(test, orca_ring_used(0x10, 0xfffffff0), 32U);
	KUNIT_EXPECT_EQ(test, orca_ring_free(0x10, 0xfffffff0, 6), 32U);
	KUNIT_EXPECT_FALSE(test, orca_ring_full(0x10, 0xfffffff0, 6));
	KUNIT_EXPECT_FALSE(test, orca_ring_empty(0x10, 0xfffffff0));

	/* 0xfffffff0 .. 0x2f: 64 entries, a full ring of 64. */
	KUNIT_EXPECT_EQ(test, orca_ring_used(0x30, 0xfffffff0), 64U);
	KUNIT_EXPECT_EQ(test, orca_ring_free(0x30, 0xfffffff0, 6), 0U);
	KUNIT_EXPECT_TRUE(test, orca_ring_full(0x30, 0xfffffff0, 6));

	/* Largest ring, full across the wrap. */
	KUNIT_EXPECT_EQ(test, orca_ring_used(0x8000, 0xffff8000), 65536U);
	KUNIT_EXPECT_TRUE(test, orca_ring_full(0x8000, 0xffff8000, 16));
	KUNIT_EXPECT_FALSE(test, orca_ring_full(0x7fff, 0xffff8000, 16));
	KUNIT_EXPECT_EQ(test, orca_ring_free(0x7fff, 0xffff8000, 16), 1U);
}

/*
 * Run a producer and a consumer across the 2^32 wrap of the free-running
 * counters and compare every count with 64-bit positions.
 */
static void orca_ring_test_model_wrap(struct kunit *test)
{
	const u8 l = 3;
	const u64 depth = 8;
	u64 prod64 = 0xffffffffULL - 37, cons64 = prod64;
	unsigned int step;

	for (step = 0; step < 64; step++) {
		/* A fixed, irregular pattern of batch sizes. */
		u64 want_prod = (step * 5 + 3) % (depth + 1);
		u64 want_cons = (step * 3 + 1) % (depth + 1);
		u32 prod, cons;

		want_prod = min(want_prod, depth - (prod64 - cons64));
		prod64 += want_prod;
		prod = (u32)prod64;
		cons = (u32)cons64;

		KUNIT_EXPECT_EQ_MSG(test, orca_ring_used(prod, cons),
				    (u32)(prod64 - cons64), "step %u", step);
		KUNIT_EXPECT_EQ_MSG(test, orca_ring_free(prod, cons, l),
				    (u32)(depth - (prod64 - cons64)),
				    "step %u", step);
		KUNIT_EXPECT_EQ_MSG(test, orca_ring_full(prod, cons, l),
				    prod64 - cons64 == depth, "step %u", step);
		KUNIT_EXPECT_EQ_MSG(test, orca_ring_empty(prod, cons),
				    prod64 == cons64, "step %u", step);
		KUNIT_EXPECT_TRUE_MSG(test, orca_ring_prod_valid(prod, cons, l),
				      "step %u", step);
		KUNIT_EXPECT_EQ_MSG(test, orca_ring_slot(prod, l),
				    (u32)(prod64 % depth), "step %u", step);

		want_cons = min(want_cons, prod64 - cons64);
		cons64 += want_cons;
	}
	/* The run really crossed the wrap. */
	KUNIT_EXPECT_GT(test, cons64, 0xffffffffULL);
}

static void orca_ring_test_phase(struct kunit *test)
{
	/* Depth 4: passes of 4 positions alternate 1, 0, 1, 0, ... */
	static const u32 want[] = { 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, orca_ring_phase(i, 2), want[i], "idx %u", i);

	/* Depth 1: the phase flips at every position. */
	KUNIT_EXPECT_EQ(test, orca_ring_phase(0, 0), 1U);
	KUNIT_EXPECT_EQ(test, orca_ring_phase(1, 0), 0U);
	KUNIT_EXPECT_EQ(test, orca_ring_phase(2, 0), 1U);

	/* Depth 64: first pass set, second clear, third set. */
	KUNIT_EXPECT_EQ(test, orca_ring_phase(63, 6), 1U);
	KUNIT_EXPECT_EQ(test, orca_ring_phase(64, 6), 0U);
	KUNIT_EXPECT_EQ(test, orca_ring_phase(127, 6), 0U);
	KUNIT_EXPECT_EQ(test, orca_ring_phase(128, 6), 1U);

	/* Largest ring. */
	KUNIT_EXPECT_EQ(test, orca_ring_phase(0xffff, 16), 1U);
	KUNIT_EXPECT_EQ(test, orca_ring_phase(0x10000, 16), 0U);
	KUNIT_EXPECT_EQ(test, orca_ring_phase(0x20000, 16), 1U);
}

/*
 * 2^32 is an even number of passes for every depth, so the phase keeps
 * alternating across the wrap of the counter: the last pass before the
 * wrap is a "clear" pass and position 0 starts a "set" pass again.
 */
static void orca_ring_test_phase_wrap(struct kunit *test)
{
	u8 l;

	for (l = 0; l <= ORCA_RING_MAX_LOG2_DEPTH; l++) {
		u64 depth = 1ULL << l;
		u64 start = 0x100000000ULL - 3 * depth;
		u64 i;

		KUNIT_EXPECT_EQ_MSG(test, orca_ring_phase(0xffffffff, l), 0U, "log2 %u", l);
		KUNIT_EXPECT_EQ_MSG(test, orca_ring_phase(0, l), 1U, "log2 %u", l);

		/* Three passes before the wrap and three after, sampled. */
		for (i = start; i < start + 6 * depth; i += depth > 8 ? depth / 8 : 1) {
			u32 want = (i / depth) % 2 == 0 ? 1 : 0;

			KUNIT_EXPECT_EQ_MSG(test, orca_ring_phase((u32)i, l), want,
					    "pos %#llx log2 %u", i, l);
		}
	}
}

/*
 * A device-written ring in memory: the producer stores a sequence
 * number and the phase bit into each slot, the consumer accepts an entry
 * only if its phase bit is the one expected at its position.  Ring
 * memory starts zeroed.  The consumer must see every entry exactly once,
 * in order, and must never take a stale entry from a previous pass, also
 * across the 2^32 wrap of the counters.
 */
struct orca_test_entry {
	u32 seq;
	u32 phase;
};

static void orca_ring_run_phase_model(struct kunit *test, u8 l, u32 start,
				      unsigned int passes)
{
	u32 depth = orca_ring_depth(l);
	struct orca_test_entry *ring;
	u32 prod = start, cons = start;
	u32 next_seq = 1, want_seq = 1;
	u32 total = depth * passes;
	unsigned int step = 0;

	ring = kunit_kcalloc(test, depth, sizeof(*ring), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ring);

	while (want_seq <= total) {
		u32 batch = (step * 7 + 2) % (depth + 1);
		u32 seen = 0;

		/* Produce up to @batch entries, never overwriting unconsumed ones. */
		while (batch-- && !orca_ring_full(prod, cons, l) && next_seq <= total) {
			struct orca_test_entry *e = &ring[orca_ring_slot(prod, l)];

			e->seq = next_seq++;
			e->phase = orca_ring_phase(prod, l);
			prod++;
		}

		/* Consume everything whose phase bit says it is valid. */
		for (;;) {
			struct orca_test_entry *e = &ring[orca_ring_slot(cons, l)];

			if (e->phase != orca_ring_phase(cons, l))
				break;
			KUNIT_ASSERT_EQ_MSG(test, e->seq, want_seq,
					    "log2 %u cons %#x", l, cons);
			want_seq++;
			cons++;
			seen++;
			KUNIT_ASSERT_LE_MSG(test, seen, depth, "log2 %u: ran past the producer", l);
		}

		/* The phase bit alone told the consumer where to stop. */
		KUNIT_ASSERT_EQ_MSG(test, cons, prod, "log2 %u step %u", l, step);
		KUNIT_ASSERT_LT(test, ++step, 100000U);
	}
	KUNIT_EXPECT_EQ(test, want_seq, total + 1);
	KUNIT_EXPECT_EQ(test, prod - start, total);
}

static void orca_ring_test_phase_model(struct kunit *test)
{
	u8 l;

	/* From position 0 over several passes. */
	for (l = 0; l <= 6; l++)
		orca_ring_run_phase_model(test, l, 0, 5);
	orca_ring_run_phase_model(test, 10, 0, 3);
}

static void orca_ring_test_phase_model_wrap(struct kunit *test)
{
	u8 l;

	/*
	 * Start four passes before the wrap: the pass starting there is a
	 * "set" pass, as it must be for a zeroed ring, and the run crosses
	 * 2^32 half way.
	 */
	for (l = 0; l <= 6; l++)
		orca_ring_run_phase_model(test, l, 0U - 4 * orca_ring_depth(l), 8);
	orca_ring_run_phase_model(test, 16, 0U - 2 * orca_ring_depth(16), 4);
}

static void orca_ring_test_prod_valid(struct kunit *test)
{
	u8 l;

	/* Depth 8. */
	KUNIT_EXPECT_TRUE(test, orca_ring_prod_valid(0, 0, 3));
	KUNIT_EXPECT_TRUE(test, orca_ring_prod_valid(5, 0, 3));
	KUNIT_EXPECT_TRUE(test, orca_ring_prod_valid(8, 0, 3));
	KUNIT_EXPECT_FALSE(test, orca_ring_prod_valid(9, 0, 3));
	KUNIT_EXPECT_FALSE(test, orca_ring_prod_valid(1000, 0, 3));
	/* A producer behind the consumer claims 2^32 - 1 entries. */
	KUNIT_EXPECT_FALSE(test, orca_ring_prod_valid(99, 100, 3));
	KUNIT_EXPECT_FALSE(test, orca_ring_prod_valid(0, 1, 3));
	/* Across the wrap. */
	KUNIT_EXPECT_TRUE(test, orca_ring_prod_valid(6, 0xfffffffe, 3));
	KUNIT_EXPECT_FALSE(test, orca_ring_prod_valid(7, 0xfffffffe, 3));
	KUNIT_EXPECT_FALSE(test, orca_ring_prod_valid(0xfffffffd, 0xfffffffe, 3));

	/* The boundary for every depth, at a position near the wrap. */
	for (l = 0; l <= ORCA_RING_MAX_LOG2_DEPTH; l++) {
		u32 cons = 0xfffffff0;
		u32 depth = 1U << l;

		KUNIT_EXPECT_TRUE_MSG(test, orca_ring_prod_valid(cons + depth, cons, l),
				      "log2 %u", l);
		KUNIT_EXPECT_FALSE_MSG(test, orca_ring_prod_valid(cons + depth + 1, cons, l),
				       "log2 %u", l);
		KUNIT_EXPECT_FALSE_MSG(test, orca_ring_prod_valid(cons - 1, cons, l),
				       "log2 %u", l);
	}
}

static struct kunit_case orca_ring_test_cases[] = {
	KUNIT_CASE(orca_ring_test_depth),
	KUNIT_CASE(orca_ring_test_slot),
	KUNIT_CASE(orca_ring_test_slot_modulo),
	KUNIT_CASE(orca_ring_test_counts),
	KUNIT_CASE(orca_ring_test_counts_wrap),
	KUNIT_CASE(orca_ring_test_model_wrap),
	KUNIT_CASE(orca_ring_test_phase),
	KUNIT_CASE(orca_ring_test_phase_wrap),
	KUNIT_CASE(orca_ring_test_phase_model),
	KUNIT_CASE(orca_ring_test_phase_model_wrap),
	KUNIT_CASE(orca_ring_test_prod_valid),
	{}
};

static struct kunit_suite orca_ring_test_suite = {
	.name = "orca_ring",
	.test_cases = orca_ring_test_cases,
};

kunit_test_suite(orca_ring_test_suite);

MODULE_DESCRIPTION("KUnit tests for the Orca ring index arithmetic");
MODULE_LICENSE("GPL");
