// SPDX-License-Identifier: GPL-2.0-only
/*
 * The completion channel fd works with select(2), poll(2) and epoll(7):
 * not readable while no event is pending, readable once one is, not
 * readable again after ibv_get_cq_event() took it; and a thread blocked
 * in select/poll/epoll_wait is woken by an event that arrives while it
 * waits (a second thread produces the completion).
 *
 * Usage: ev_readiness -d DEVICE [-w WAIT_MS]   (prints TAP)
 */
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/select.h>

#include "ev_common.h"

static struct ev_dev d;
static int cq_tag;
static struct ibv_qp *a, *b;
static struct ibv_cq *cq, *aux;
static struct ibv_comp_channel *ch;
static int ep;
static volatile int posted, post_started;

enum how { BY_SELECT, BY_POLL, BY_EPOLL };
static const char *const how_name[] = { "select", "poll", "epoll_wait" };

/* Readable within ms according to one mechanism: 1, 0, or -1. */
static int ready(enum how how, int ms)
{
	struct epoll_event ee;
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
	fd_set rd;
	int r;

	switch (how) {
	case BY_SELECT:
		FD_ZERO(&rd);
		FD_SET(ch->fd, &rd);
		r = select(ch->fd + 1, &rd, NULL, NULL, &tv);
		return r < 0 ? -1 : (r == 1 && FD_ISSET(ch->fd, &rd));
	case BY_POLL:
		return ev_readable(ch->fd, ms);
	case BY_EPOLL:
		r = epoll_wait(ep, &ee, 1, ms);
		if (r == 1 && (!(ee.events & EPOLLIN) || ee.data.u64 != 0xc0ffee)) {
			diag("epoll_wait: events 0x%x data 0x%llx", ee.events,
			     (unsigned long long)ee.data.u64);
			return -1;
		}
		return r < 0 ? -1 : r;
	}
	return -1;
}

static int completion(void)
{
	struct ibv_wc wc[2];

	return !ev_send_recv(&d, a, b, 7, 0) &&
	       ev_poll_n(cq, 1, wc, ev_wait_ms) == 1 &&
	       ev_poll_n(aux, 1, wc + 1, ev_wait_ms) == 1 &&
	       wc[0].status == IBV_WC_SUCCESS;
}

static void *late_completion(void *arg)
{
	(void)arg;
	usleep(300 * 1000);
	post_started = 1;
	__sync_synchronize();
	posted = completion();
	return NULL;
}

static int take_event(void)
{
	struct ibv_cq *ecq;
	void *ectx;

	if (ibv_get_cq_event(ch, &ecq, &ectx))
		return 0;
	ibv_ack_cq_events(ecq, 1);
	return ecq == cq && ectx == &cq_tag;
}

int main(int argc, char **argv)
{
	struct epoll_event ee = { .events = EPOLLIN, .data.u64 = 0xc0ffee };
	enum how how;

	ev_parse(argc, argv);
	ev_open(&d);

	ch = ibv_create_comp_channel(d.ctx);
	cq = ch ? ibv_create_cq(d.ctx, 16, &cq_tag, ch, 0) : NULL;
	aux = ibv_create_cq(d.ctx, 16, NULL, NULL, 0);
	if (!ok(ch && cq && aux, "a channel, a CQ on it, an auxiliary CQ"))
		ev_bail("cannot continue");
	if (!ok(!ev_pair(&d, &a, &b, aux, aux, aux, cq, NULL, 8),
		"two RC QPs connected to each other"))
		ev_bail("cannot continue without QPs");
	ep = epoll_create1(0);
	if (!ok(ep >= 0 && !epoll_ctl(ep, EPOLL_CTL_ADD, ch->fd, &ee),
		"epoll_create1 + EPOLL_CTL_ADD of the channel fd"))
		ev_bail("cannot continue without epoll");

	for (how = BY_SELECT; how <= BY_EPOLL; how++) {
		const char *hn = how_name[how];
		pthread_t thr;
		long long t0;
		int r, early;

		ok(ready(how, 0) == 0, "%s: not readable with no event pending", hn);
		ok(ibv_req_notify_cq(cq, 0) == 0, "%s: arm", hn);
		if (!ok(completion(), "%s: a completion", hn))
			ev_bail("no completions: nothing else can be tested");
		ok(ready(how, ev_wait_ms) == 1, "%s: readable once its event is pending", hn);
		ok(ready(how, 0) == 1, "%s: still readable until the event is taken", hn);
		ok(take_event(), "%s: ibv_get_cq_event takes it", hn);
		ok(ready(how, 0) == 0, "%s: not readable after that", hn);

		/* Block first, then let the event arrive. */
		ok(ibv_req_notify_cq(cq, 0) == 0, "%s: arm again", hn);
		posted = 0;
		post_started = 0;
		if (pthread_create(&thr, NULL, late_completion, NULL))
			ev_bail("start a thread");
		t0 = ev_now_us();
		r = ready(how, ev_wait_ms);
		early = !post_started;
		pthread_join(thr, NULL);
		if (early)
			diag("%s returned %d before the completion was even posted", hn, r);
		ok(r == 1 && posted && !early,
		   "%s: a blocked wait is woken by an event that arrives while it waits (%lld ms)",
		   hn, (ev_now_us() - t0) / 1000);
		ok(take_event(), "%s: and the event is there", hn);
	}

	close(ep);
	ok(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy the QPs");
	ok(!ibv_destroy_cq(cq) && !ibv_destroy_cq(aux), "destroy the CQs");
	ok(!ibv_destroy_comp_channel(ch), "destroy the channel");
	ev_close(&d);
	return tap_end();
}
