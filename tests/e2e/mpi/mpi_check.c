// SPDX-License-Identifier: GPL-2.0-only
/*
 * A small MPI job whose results are checked by every rank: point-to-point
 * messages of several sizes (eager and rendezvous), MPI_Allreduce,
 * MPI_Bcast and MPI_Alltoall over 1 MiB buffers, with values that depend
 * on the rank and the element so that a lost, duplicated or misplaced
 * block changes the result.  Rank 0 prints one TAP line per check, with
 * the number of ranks that agreed.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NELEM	(1 << 18)	/* 1 MiB of uint32_t */

static int rank, size, npoint, nfail;

/* Every rank contributes @good; rank 0 prints whether all were good. */
static void point(int good, const char *what)
{
	int all = 0;

	MPI_Reduce(&good, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank)
		return;
	npoint++;
	if (all != size)
		nfail++;
	printf("%sok %d - %s (%d of %d ranks)\n", all == size ? "" : "not ",
	       npoint, what, all, size);
}

static uint32_t val(int r, size_t i)
{
	return (uint32_t)(r + 1) * 2654435761U ^ (uint32_t)i * 40503U;
}

static void test_p2p(uint32_t *a, uint32_t *b)
{
	static const size_t sizes[] = { 1, 100, 4096, 65536, NELEM };
	int peer = rank ^ 1;
	size_t s, i;
	char what[96];

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		int good = 1;

		for (i = 0; i < n; i++)
			a[i] = val(rank, i + s);
		memset(b, 0, n * sizeof(*b));
		if (peer < size)
			MPI_Sendrecv(a, n, MPI_UINT32_T, peer, (int)s, b, n,
				     MPI_UINT32_T, peer, (int)s, MPI_COMM_WORLD,
				     MPI_STATUS_IGNORE);
		for (i = 0; peer < size && i < n; i++)
			if (b[i] != val(peer, i + s))
				good = 0;
		snprintf(what, sizeof(what),
			 "MPI_Sendrecv of %zu bytes with the neighbour rank: exact",
			 n * sizeof(*a));
		point(good, what);
	}
}

static void test_collectives(uint32_t *a, uint32_t *b)
{
	size_t i, blk = NELEM / (size_t)size;
	int good = 1, r;

	/* Allreduce: sum over ranks of val(r, i). */
	for (i = 0; i < NELEM; i++)
		a[i] = val(rank, i);
	MPI_Allreduce(a, b, NELEM, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < NELEM && good; i++) {
		uint32_t want = 0;

		for (r = 0; r < size; r++)
			want += val(r, i);
		good = b[i] == want;
	}
	point(good, "MPI_Allreduce (sum) of 1 MiB: every element right");

	/* Bcast from the last rank. */
	for (i = 0; i < NELEM; i++)
		a[i] = rank == size - 1 ? val(size - 1, i + 7) : 0;
	MPI_Bcast(a, NELEM, MPI_UINT32_T, size - 1, MPI_COMM_WORLD);
	good = 1;
	for (i = 0; i < NELEM && good; i++)
		good = a[i] == val(size - 1, i + 7);
	point(good, "MPI_Bcast of 1 MiB from the last rank: every element right");

	/* Alltoall: block j of rank r goes to rank j as its block r. */
	for (r = 0; r < size; r++)
		for (i = 0; i < blk; i++)
			a[r * blk + i] = val(rank, r * 100000 + i);
	MPI_Alltoall(a, blk, MPI_UINT32_T, b, blk, MPI_UINT32_T, MPI_COMM_WORLD);
	good = 1;
	for (r = 0; r < size && good; r++)
		for (i = 0; i < blk && good; i++)
			good = b[r * blk + i] == val(r, rank * 100000 + i);
	point(good, "MPI_Alltoall of 1 MiB: every block from the right rank, exact");
}

int main(int argc, char **argv)
{
	uint32_t *a, *b;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	a = malloc(NELEM * sizeof(*a));
	b = malloc(NELEM * sizeof(*b));
	if (!a || !b)
		MPI_Abort(MPI_COMM_WORLD, 2);
	test_p2p(a, b);
	test_collectives(a, b);
	if (!rank)
		printf("1..%d\n", npoint);
	free(a);
	free(b);
	MPI_Finalize();
	return nfail ? 1 : 0;
}
