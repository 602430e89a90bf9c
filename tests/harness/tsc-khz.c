// SPDX-License-Identifier: GPL-2.0-only
/*
 * tsc-khz: print the host's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW over a quarter of a second (three tries, the
 * median).  Under TCG a guest's TSC is the host's, so run-guest.sh hands
 * this to the guest kernel (tsc_early_khz=): its own calibration against
 * the emulated PIT is unreliable on a busy host (979 MHz was seen for a
 * 2596 MHz TSC), and a guest that believes it runs every clock, timer
 * and timeout that many times too fast.  x86 only; exits 1 elsewhere.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

static uint64_t ns_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * A TSC reading and the time it was taken, bracketed by two clock reads
 * no more than 20 us apart (a preemption in between would skew it).
 */
static int sample(uint64_t *ns, uint64_t *tsc)
{
	uint64_t a, b, c;
	int i;

	for (i = 0; i < 1000; i++) {
		a = ns_now();
		c = __rdtsc();
		b = ns_now();
		if (b >= a && b - a <= 20000) {
			*ns = a + (b - a) / 2;
			*tsc = c;
			return 0;
		}
	}
	return -1;
}

static uint64_t measure(void)
{
	struct timespec nap = { .tv_nsec = 250000000L };
	uint64_t t0, c0, t1, c1;

	if (sample(&t0, &c0))
		return 0;
	nanosleep(&nap, NULL);
	if (sample(&t1, &c1) || t1 <= t0 || c1 <= c0)
		return 0;
	return (c1 - c0) * 1000000ULL / (t1 - t0);
}

int main(void)
{
	uint64_t k[3], t;
	int i, j;

	for (i = 0; i < 3; i++)
		k[i] = measure();
	for (i = 0; i < 3; i++)
		for (j = i + 1; j < 3; j++)
			if (k[j] < k[i]) {
				t = k[i];
				k[i] = k[j];
				k[j] = t;
			}
	if (!k[1])
		return 1;
	printf("%llu\n", (unsigned long long)k[1]);
	return 0;
}
#else
int main(void)
{
	return 1;
}
#endif
