/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The uverbs device mappings of this process (/proc/self/maps), for the
 * programs that reach into the queues liborca maps: each Orca CQ, QP and
 * SRQ is one mapping, its ring(s) then one page of doorbell records
 * (uapi/rdma/orca-abi.h).  A new queue's mapping is the one that its
 * creation added.  Header-only, like e2e_tap.h.
 */
#ifndef ORCA_E2E_UVERBS_MAPS_H
#define ORCA_E2E_UVERBS_MAPS_H

#include <stdio.h>
#include <string.h>

#define UV_MAX_MAPS	256

struct uv_map {
	unsigned long start, end;
	unsigned long offset;	/* the mmap offset in bytes: the mmap key */
};

/* The mappings of /dev/infiniband/uverbs* into m[UV_MAX_MAPS], or -1. */
static int __attribute__((unused)) uv_maps(struct uv_map *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (n < UV_MAX_MAPS && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs"))
			continue;
		if (sscanf(line, "%lx-%lx %*s %lx", &m[n].start, &m[n].end,
			   &m[n].offset) == 3)
			n++;
	}
	fclose(f);
	return n;
}

/* The one mapping in after[] that is not in before[], or NULL. */
static const struct uv_map * __attribute__((unused))
uv_new_map(const struct uv_map *before, int nb, const struct uv_map *after,
	   int na)
{
	const struct uv_map *found = NULL;
	int i, j;

	for (i = 0; i < na; i++) {
		for (j = 0; j < nb; j++)
			if (after[i].start == before[j].start &&
			    after[i].end == before[j].end)
				break;
		if (j < nb)
			continue;
		if (found)
			return NULL;	/* more than one: ambiguous */
		found = &after[i];
	}
	return found;
}

#endif /* ORCA_E2E_UVERBS_MAPS_H */
