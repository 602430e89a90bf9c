// SPDX-License-Identifier: GPL-2.0-only
/*
 * Protection domains from userspace through liborca and the admin queue.
 * Prints TAP.  Usage: pd_test DEVICE
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#define NUM_PDS		64
#define CYCLES		1000

static int test_num;
static int failed;

static void ok(int cond, const char *fmt, const char *arg)
{
	test_num++;
	printf("%s %d - ", cond ? "ok" : "not ok", test_num);
	printf(fmt, arg);
	printf("\n");
	if (!cond)
		failed++;
}

static struct ibv_context *open_by_name(const char *name)
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

int main(int argc, char **argv)
{
	struct ibv_pd *pds[NUM_PDS];
	struct ibv_device_attr_ex attr;
	struct ibv_port_attr port;
	struct ibv_context *ctx;
	int i, n, bad;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	printf("1..7\n");

	ctx = open_by_name(argv[1]);
	ok(ctx != NULL, "open %s through liborca", argv[1]);
	if (!ctx) {
		printf("# errno %d (%s)\n", errno, strerror(errno));
		return 1;
	}

	memset(&attr, 0, sizeof(attr));
	ok(!ibv_query_device_ex(ctx, NULL, &attr) &&
	   attr.orig_attr.max_pd >= NUM_PDS,
	   "ibv_query_device_ex on %s reports max_pd >= 64", argv[1]);

	ok(!ibv_query_port(ctx, 1, &port) && port.state == IBV_PORT_ACTIVE &&
	   port.link_layer == IBV_LINK_LAYER_ETHERNET,
	   "ibv_query_port on %s: ACTIVE, Ethernet", argv[1]);

	for (n = 0; n < NUM_PDS; n++) {
		pds[n] = ibv_alloc_pd(ctx);
		if (!pds[n])
			break;
	}
	ok(n == NUM_PDS, "%s: 64 PDs allocated at once", argv[1]);

	bad = 0;
	for (i = 0; i < n; i++)
		bad += ibv_dealloc_pd(pds[i]) != 0;
	ok(!bad, "%s: all of them deallocated", argv[1]);

	bad = 0;
	for (i = 0; i < CYCLES && !bad; i++) {
		struct ibv_pd *pd = ibv_alloc_pd(ctx);

		if (!pd || ibv_dealloc_pd(pd))
			bad = 1;
	}
	ok(!bad, "%s: 1000 alloc/dealloc cycles", argv[1]);

	ok(!ibv_close_device(ctx), "close %s", argv[1]);
	return failed ? 1 : 0;
}
