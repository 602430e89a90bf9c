// SPDX-License-Identifier: GPL-2.0-only
/*
 * Wait for async events on a device, optionally while holding a PD.
 *
 * Usage: async_wait [-p] [-t SECONDS] DEVICE EVENT...
 *   -p   allocate a PD first and keep it until the end
 *   -t   give up after SECONDS (default 30)
 * Prints "ready" once set up, then one line per event received.  Exits 0
 * once every EVENT named (e.g. PORT_ERR PORT_ACTIVE DEVICE_FATAL) has
 * been seen in that order, 1 on timeout or error.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static const struct {
	const char *name;
	enum ibv_event_type type;
} event_names[] = {
	{ "PORT_ACTIVE", IBV_EVENT_PORT_ACTIVE },
	{ "PORT_ERR", IBV_EVENT_PORT_ERR },
	{ "GID_CHANGE", IBV_EVENT_GID_CHANGE },
	{ "DEVICE_FATAL", IBV_EVENT_DEVICE_FATAL },
};

static int event_by_name(const char *name, enum ibv_event_type *type)
{
	size_t i;

	for (i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++) {
		if (!strcmp(event_names[i].name, name)) {
			*type = event_names[i].type;
			return 0;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd = NULL;
	enum ibv_event_type want[8];
	int nwant, seen = 0, hold_pd = 0, opt, i;
	time_t deadline;
	int timeout = 30;

	while ((opt = getopt(argc, argv, "pt:")) != -1) {
		if (opt == 'p')
			hold_pd = 1;
		else if (opt == 't')
			timeout = atoi(optarg);
		else
			return 2;
	}
	nwant = argc - optind - 1;
	if (nwant < 1 || nwant > 8) {
		fprintf(stderr, "usage: %s [-p] [-t S] DEVICE EVENT...\n",
			argv[0]);
		return 2;
	}
	for (i = 0; i < nwant; i++) {
		if (event_by_name(argv[optind + 1 + i], &want[i])) {
			fprintf(stderr, "unknown event %s\n",
				argv[optind + 1 + i]);
			return 2;
		}
	}

	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[optind]))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx) {
		fprintf(stderr, "cannot open %s\n", argv[optind]);
		return 1;
	}
	if (hold_pd) {
		pd = ibv_alloc_pd(ctx);
		if (!pd) {
			fprintf(stderr, "ibv_alloc_pd: %s\n", strerror(errno));
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);

	deadline = time(NULL) + timeout;
	while (seen < nwant && time(NULL) < deadline) {
		struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
		struct ibv_async_event ev;

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		if (ibv_get_async_event(ctx, &ev))
			break;
		printf("event %s\n", ibv_event_type_str(ev.event_type));
		fflush(stdout);
		if (ev.event_type == want[seen])
			seen++;
		ibv_ack_async_event(&ev);
	}

	/* After DEVICE_FATAL the kernel objects are gone; this must not hang. */
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return seen == nwant ? 0 : 1;
}
