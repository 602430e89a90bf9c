/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Orca HCA: ring index arithmetic shared by the driver and the device model.
 *
 * Every Orca ring (admin command and completion rings, event queues, and
 * later the work and completion queues) has a power-of-two number of
 * fixed-size entries.  Producer and consumer positions are free-running
 * 32-bit counters: they are never masked when stored, only when used to
 * address a slot, so "used = prod - cons" holds across the 2^32 wrap.
 *
 * Rings written by the device carry an owner (phase) bit in every entry.
 * Ring memory starts zeroed.  On its first pass the producer writes
 * entries with the phase bit set, on the second pass clear, and so on: an
 * entry is valid for the consumer at position @idx when its phase bit
 * equals orca_ring_phase(idx, log2_depth).
 */
#ifndef ORCA_RING_H
#define ORCA_RING_H

#include <linux/types.h>

/* Largest ring the interface allows: 2^16 entries. */
#define ORCA_RING_MAX_LOG2_DEPTH	16

static inline u32 orca_ring_depth(u8 log2_depth)
{
	return 1U << log2_depth;
}

/* Slot addressed by free-running position @idx. */
static inline u32 orca_ring_slot(u32 idx, u8 log2_depth)
{
	return idx & (orca_ring_depth(log2_depth) - 1);
}

/* Number of entries produced but not yet consumed. */
static inline u32 orca_ring_used(u32 prod, u32 cons)
{
	return prod - cons;
}

/* Number of entries the producer may still write. */
static inline u32 orca_ring_free(u32 prod, u32 cons, u8 log2_depth)
{
	return orca_ring_depth(log2_depth) - orca_ring_used(prod, cons);
}

static inline bool orca_ring_full(u32 prod, u32 cons, u8 log2_depth)
{
	return orca_ring_used(prod, cons) >= orca_ring_depth(log2_depth);
}

static inline bool orca_ring_empty(u32 prod, u32 cons)
{
	return prod == cons;
}

/* Phase (owner) bit value that marks a valid entry at position @idx. */
static inline u32 orca_ring_phase(u32 idx, u8 log2_depth)
{
	return ((idx >> log2_depth) & 1) ^ 1;
}

/*
 * A producer index published by an untrusted or buggy party is acceptable
 * only if it does not claim more entries than the ring holds.
 */
static inline bool orca_ring_prod_valid(u32 prod, u32 cons, u8 log2_depth)
{
	return orca_ring_used(prod, cons) <= orca_ring_depth(log2_depth);
}

#endif /* ORCA_RING_H */
