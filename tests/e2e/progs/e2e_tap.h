/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small TAP and libibverbs helpers shared by the e2e test programs.
 * Header-only: each program is built from one .c file.
 */
#ifndef ORCA_E2E_TAP_H
#define ORCA_E2E_TAP_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

/*
 * xorshift64*, the PRNG of the seeded programs (ring_fuzz, kill_storm,
 * uverbs_fuzz): the same seed gives the same run on any libc.  Each
 * program seeds e2e_rng (never with 0) before its first e2e_rand().
 */
static uint64_t e2e_rng = 1;

static uint32_t __attribute__((unused)) e2e_rand(void)
{
	e2e_rng ^= e2e_rng >> 12;
	e2e_rng ^= e2e_rng << 25;
	e2e_rng ^= e2e_rng >> 27;
	return (uint32_t)((e2e_rng * 0x2545f4914f6cdd1dULL) >> 32);
}

static int tap_num;
static int tap_failed;

/* One test point; returns cond so callers can chain diagnostics. */
__attribute__((format(printf, 2, 3)))
static int __attribute__((unused)) ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_num++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

__attribute__((format(printf, 1, 2)))
static void __attribute__((unused)) diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/*
 * A call that must fail with a given errno.  libibverbs returns errors
 * either as NULL + errno (create calls) or as a positive return value
 * (modify/query calls); callers pass what they got.
 */
static int __attribute__((unused)) expect_errno(int got, int want, const char *what)
{
	if (got != want)
		diag("%s: got %s (%d), want %s (%d)", what,
		     got ? strerror(got) : "success", got, strerror(want), want);
	return got == want;
}

static struct ibv_context * __attribute__((unused)) open_by_name(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		return NULL;
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

/*
 * The plan is printed at the end (TAP allows it): a program that dies
 * half-way prints none, and the runner counts that as a failure.
 */
static int __attribute__((unused)) tap_end(void)
{
	diag("%d of %d test points failed", tap_failed, tap_num);
	printf("1..%d\n", tap_num);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

/* Open the device named by argv[1], or fail the one point and stop. */
static struct ibv_context * __attribute__((unused)) tap_start(int argc, char **argv)
{
	struct ibv_context *ctx;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		exit(2);
	}
	ctx = open_by_name(argv[1]);
	if (!ok(ctx != NULL, "open %s", argv[1])) {
		diag("ibv_open_device: %s", strerror(errno));
		exit(tap_end());
	}
	return ctx;
}

#endif /* ORCA_E2E_TAP_H */
