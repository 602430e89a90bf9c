/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared helpers of the wire programs (progs/wire_*.c): the byte pattern
 * their payloads carry and a monotonic clock in milliseconds.
 */
#ifndef ORCA_E2E_WIRE_COMMON_H
#define ORCA_E2E_WIRE_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Byte @i of the payload pattern @seed. */
static inline uint8_t wire_pat(uint32_t seed, size_t i)
{
	uint32_t x = seed * 2654435761U + (uint32_t)i * 40503U;

	return (uint8_t)(x ^ (x >> 13) ^ (x >> 24));
}

static inline long wire_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

#endif /* ORCA_E2E_WIRE_COMMON_H */
