// SPDX-License-Identifier: GPL-2.0-only
/*
 * memcpy bandwidth, the ceiling for a device that moves data by copying
 * it on the same CPUs ('make bench').
 *
 *   memcpy_bw [BLOCK_BYTES [RING_BYTES [SECONDS]]]
 *
 * Copies BLOCK_BYTES (default 65536, perftest's message size) at a
 * time from one RING_BYTES buffer (default 16 MiB) to another, block
 * after block, wrapping around, for at least SECONDS (default 2), and
 * prints "memcpy_bw block=B ring=R bytes=N seconds=S MiB/s=X" where
 * MiB is 2^20 bytes, the unit of perftest's "MB/sec".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t block = argc > 1 ? strtoul(argv[1], NULL, 0) : 65536;
	size_t ring = argc > 2 ? strtoul(argv[2], NULL, 0) : 16u << 20;
	double secs = argc > 3 ? strtod(argv[3], NULL) : 2.0;
	unsigned long long bytes = 0;
	unsigned char *src, *dst;
	size_t off = 0, i;
	unsigned int sum = 0;
	double t0, t;

	if (!block || ring < block || secs <= 0) {
		fprintf(stderr, "usage: %s [BLOCK_BYTES [RING_BYTES [SECONDS]]]\n", argv[0]);
		return 2;
	}
	ring -= ring % block;
	src = aligned_alloc(4096, ring);
	dst = aligned_alloc(4096, ring);
	if (!src || !dst) {
		perror("aligned_alloc");
		return 1;
	}
	/* Touch every page first, so page faults are not measured. */
	for (i = 0; i < ring; i++)
		src[i] = (unsigned char)(i * 7);
	memset(dst, 0, ring);

	t0 = now();
	do {
		/* Check the clock every 64 blocks only. */
		for (i = 0; i < 64; i++) {
			memcpy(dst + off, src + off, block);
			bytes += block;
			off += block;
			if (off == ring)
				off = 0;
		}
		t = now() - t0;
	} while (t < secs);

	/* Use the destination, so the copies cannot be optimised away. */
	for (i = 0; i < ring; i += 4096)
		sum += dst[i];
	printf("memcpy_bw block=%zu ring=%zu bytes=%llu seconds=%.3f MiB/s=%.1f check=%u\n",
	       block, ring, bytes, t, bytes / t / (1 << 20), sum & 0xff);
	free(src);
	free(dst);
	return 0;
}
