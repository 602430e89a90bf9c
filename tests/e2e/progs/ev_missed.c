// SPDX-License-Identifier: GPL-2.0-only
/*
 * No completion is missed between poll and arm.  ibv_get_cq_event(3)'s
 * loop is: wait for the event, ack it, re-arm, then empty the CQ; "an
 * extra event may be triggered without having a corresponding completion
 * entry in the CQ" (a completion that arrives between the re-arm and the
 * poll raises one and is polled already).  What must never happen is a
 * completion that neither the poll after the arm finds nor an event
 * announces.
 *
 *   1. Deterministic: poll an empty CQ, let a completion arrive, then arm:
 *      the poll after the arm finds it (or, on a provider that raises an
 *      event for a completion already queued, an event does too; it is
 *      reported and allowed, the man page's extra event).
 *   2. Race: a thread produces -n completions at irregular instants while
 *      the main thread runs the man page's loop.  Every completion must
 *      be collected, no wait may run out (a lost wakeup), and no event
 *      may come without a completion to justify it: if the poll after an
 *      arm found nothing, the event of that arm must be followed by a
 *      poll that finds something.
 *
 * Usage: ev_missed -d DEVICE [-n COUNT] [-w WAIT_MS] [-q QUIET_MS]
 */
#include <pthread.h>

#include "ev_common.h"

static struct ev_dev d;
static int cq_tag;
static struct ibv_qp *a, *b;
static struct ibv_cq *aux;
static volatile int stop;
static volatile long produced, collected;
static volatile int prod_err;

/* Post one receive + send and wait for the sender's completion. */
static int produce_one(uint64_t id)
{
	struct ibv_wc wc;

	if (ev_send_recv(&d, a, b, id, 0))
		return -1;
	if (ev_poll_n(aux, 1, &wc, ev_wait_ms) != 1) {
		diag("send %llu: no send completion", (unsigned long long)id);
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		diag("send %llu: %s", (unsigned long long)id, ev_wc_str(&wc));
		return -1;
	}
	return 0;
}

static void *producer(void *arg)
{
	unsigned int seed = 12345;
	long i;

	(void)arg;
	for (i = 0; i < ev_count && !stop; i++) {
		if (produce_one(1000 + i)) {
			prod_err = 1;
			break;
		}
		produced++;
		/* Stay within the CQ's size of the consumer. */
		while (produced - collected >= 128 && !stop)
			usleep(100);
		/* Irregular gaps, from none to ~300 us. */
		if (rand_r(&seed) % 4)
			usleep(rand_r(&seed) % 300);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *ecq;
	struct ibv_wc wc[64];
	pthread_t thr;
	void *ectx;
	long events = 0, extra = 0, stray = 0, bad = 0;
	int r, n, prev, lost = 0;

	ev_count = 2000;
	ev_parse(argc, argv);
	ev_open(&d);

	ch = ibv_create_comp_channel(d.ctx);
	cq = ch ? ibv_create_cq(d.ctx, 256, &cq_tag, ch, 0) : NULL;
	aux = ibv_create_cq(d.ctx, 256, NULL, NULL, 0);
	if (!ok(ch && cq && aux, "a channel, a CQ on it, an auxiliary CQ"))
		ev_bail("cannot continue");
	if (!ok(!ev_pair(&d, &a, &b, aux, aux, aux, cq, NULL, 64),
		"two RC QPs connected to each other (b receives on the channel's CQ)"))
		ev_bail("cannot continue without QPs");

	/* 1. poll (empty), completion, arm, poll. */
	ok(ev_drain(cq, wc, 64) == 0, "poll: the CQ is empty");
	if (!ok(!produce_one(1),
		"a message arrives after that poll (sender's completion seen)"))
		ev_bail("no completions: nothing else can be tested");
	ok(ibv_req_notify_cq(cq, 0) == 0, "then arm");
	n = ev_drain(cq, wc, 64);
	if (n == 0) {
		/* Not visible yet: then it must be announced. */
		diag("the poll after the arm found nothing; waiting for the event");
		r = ev_get(ch, ev_wait_ms, &ecq, &ectx);
		if (r == 0)
			ibv_ack_cq_events(ecq, 1);
		n = ev_poll_n(cq, 1, wc, ev_wait_ms);
	}
	ok(n == 1 && wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 1,
	   "the completion that arrived between poll and arm is found (%d)", n);
	r = ev_get(ch, ev_quiet_ms, &ecq, &ectx);
	if (r == 0) {
		diag("the provider also raised an event for the completion that was queued when armed (allowed: the man page's extra event)");
		ibv_ack_cq_events(ecq, 1);
		r = ev_get(ch, ev_quiet_ms, &ecq, &ectx);
		if (r == 0)
			ibv_ack_cq_events(ecq, 1);
	}
	ok(r == 1, "no more than one event for that arm");

	/* 2. The man page's loop against a producer thread. */
	ok(ibv_req_notify_cq(cq, 0) == 0, "arm before the producer starts");
	if (pthread_create(&thr, NULL, producer, NULL))
		ev_bail("start the producer thread");
	prev = 0;	/* nothing can be queued before the producer starts */
	while (collected < ev_count) {
		int i, k;

		r = ev_get(ch, ev_wait_ms, &ecq, &ectx);
		if (r) {
			if (r == 1 && !prod_err) {
				lost = 1;
				diag("no event within %d ms with %ld of %ld completions collected, %ld produced",
				     ev_wait_ms, collected, ev_count, produced);
			}
			break;
		}
		events++;
		if (ecq != cq || ectx != &cq_tag)
			bad++;
		ibv_ack_cq_events(ecq, 1);
		if (ibv_req_notify_cq(cq, 0)) {
			diag("ibv_req_notify_cq failed");
			break;
		}
		/* Empty the CQ: until a poll finds nothing. */
		n = 0;
		do {
			k = ev_drain(cq, wc, 64);
			for (i = 0; i < k; i++)
				if (wc[i].status != IBV_WC_SUCCESS)
					bad++;
			n += k > 0 ? k : 0;
		} while (k == 64);
		if (k < 0)
			break;
		if (!n)
			extra++;
		if (!n && !prev)
			stray++;
		prev = n;
		collected += n;
	}
	stop = 1;
	pthread_join(thr, NULL);
	ok(!prod_err, "the producer thread sent every message");
	ok(!lost, "no lost wakeup: every wait for an event ended with one");
	ok(collected == ev_count && produced == ev_count,
	   "all %ld completions collected (%ld produced, %ld collected)",
	   ev_count, produced, collected);
	ok(!bad, "every event named the CQ and its context, every completion succeeded (%ld bad)",
	   bad);
	/*
	 * The last arm may have one event pending: an extra one if the last
	 * poll found something, a stray one if it did not.
	 */
	r = ev_get(ch, ev_quiet_ms, &ecq, &ectx);
	if (r == 0) {
		ibv_ack_cq_events(ecq, 1);
		events++;
		if (!prev && ev_drain(cq, wc, 64) == 0)
			stray++;
	}
	ok(r != -1, "the channel is in order at the end");
	ok(!stray, "no event without a completion to justify it (%ld stray)",
	   stray);
	diag("%ld events for %ld completions, %ld of them extra (a completion polled after the re-arm)",
	     events, collected, extra);

	ok(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy the QPs");
	ok(!ibv_destroy_cq(cq) && !ibv_destroy_cq(aux), "destroy the CQs");
	ok(!ibv_destroy_comp_channel(ch), "destroy the channel");
	ev_close(&d);
	return tap_end();
}
