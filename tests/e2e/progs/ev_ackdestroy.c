// SPDX-License-Identifier: GPL-2.0-only
/*
 * ibv_get_cq_event(3): "destroying a CQ will wait for all completion
 * events to be acknowledged".  Two events of a CQ are taken and left
 * unacknowledged; a thread calls ibv_destroy_cq() and must stay blocked
 * while the main thread acknowledges the first (ibv_ack_cq_events(cq, 1))
 * and return, successfully, once the second is acknowledged, within
 * WAIT_MS of it (a destroy that never returns is a failure, not a hang).
 *
 * Usage: ev_ackdestroy -d DEVICE [-w WAIT_MS] [-q QUIET_MS]   (prints TAP)
 */
#include <pthread.h>

#include "ev_common.h"

static struct ev_dev d;
static int cq_tag;
static struct ibv_cq *cq;
static volatile int acked;	/* acknowledgements made so far */
static volatile int returned;	/* ibv_destroy_cq() has returned */
static int destroy_ret = -1, acked_at_return = -1;

static void *destroyer(void *arg)
{
	(void)arg;
	destroy_ret = ibv_destroy_cq(cq);
	acked_at_return = acked;
	__sync_synchronize();
	returned = 1;
	return NULL;
}

/* Wait for the destroyer to return, up to ms. */
static int returns_within(int ms)
{
	long long end = ev_now_us() + ms * 1000LL;

	while (!returned && ev_now_us() < end)
		usleep(1000);
	return returned;
}

int main(int argc, char **argv)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *aux, *ecq;
	struct ibv_qp *a, *b;
	struct ibv_wc wc[2];
	pthread_t thr;
	void *ectx;
	int i, got = 0;

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

	for (i = 0; i < 2; i++) {
		if (ibv_req_notify_cq(cq, 0) || ev_send_recv(&d, a, b, i, 0) ||
		    ev_poll_n(cq, 1, wc, ev_wait_ms) != 1 ||
		    ev_poll_n(aux, 1, wc + 1, ev_wait_ms) != 1)
			break;
		if (ev_get(ch, ev_wait_ms, &ecq, &ectx) || ecq != cq)
			break;
		got++;
	}
	if (!ok(got == 2, "two events taken from the CQ, not acknowledged"))
		ev_bail("cannot continue without the events");
	/* The CQ must be free of QPs before it can be destroyed. */
	ok(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy the QPs");

	if (pthread_create(&thr, NULL, destroyer, NULL))
		ev_bail("start the destroying thread");
	ok(!returns_within(ev_quiet_ms),
	   "ibv_destroy_cq() in another thread blocks while two events are unacknowledged");
	acked = 1;
	__sync_synchronize();
	ibv_ack_cq_events(cq, 1);
	ok(!returns_within(ev_quiet_ms), "and still blocks after the first is acknowledged");
	acked = 2;
	__sync_synchronize();
	ibv_ack_cq_events(cq, 1);
	ok(returns_within(ev_wait_ms),
	   "it returns once the second is acknowledged (no hang)");
	if (returned) {
		pthread_join(thr, NULL);
		ok(destroy_ret == 0, "ibv_destroy_cq() succeeded (%d)", destroy_ret);
		ok(acked_at_return == 2,
		   "it returned after both acknowledgements, not before (%d seen)",
		   acked_at_return);
	} else {
		ok(0, "ibv_destroy_cq() succeeded: it never returned");
		ok(0, "ordering: it never returned");
		/* The thread is stuck in the library: leave without cleanup. */
		exit(tap_end());
	}

	ok(!ibv_destroy_cq(aux), "destroy the auxiliary CQ");
	ok(!ibv_destroy_comp_channel(ch), "destroy the channel");
	ev_close(&d);
	return tap_end();
}
