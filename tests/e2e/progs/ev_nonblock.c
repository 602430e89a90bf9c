// SPDX-License-Identifier: GPL-2.0-only
/*
 * Non-blocking channels, ibv_get_cq_event(3) and ibv_get_async_event(3)
 * examples: with the fd set O_NONBLOCK, ibv_get_cq_event() returns -1 with
 * errno EAGAIN when no event is pending (armed or not), returns the event
 * once one is pending, and EAGAIN again after it was taken.  The same for
 * the context's async fd with ibv_get_async_event().
 *
 * Usage: ev_nonblock -d DEVICE [-w WAIT_MS]   (prints TAP)
 */
#include "ev_common.h"

static struct ev_dev d;
static int cq_tag;

/* ibv_get_cq_event on a non-blocking channel: -1/EAGAIN expected. */
static int cq_eagain(struct ibv_comp_channel *ch)
{
	struct ibv_cq *ecq;
	void *ectx;
	int r;

	errno = 0;
	r = ibv_get_cq_event(ch, &ecq, &ectx);
	if (r == 0) {
		diag("ibv_get_cq_event returned an event");
		ibv_ack_cq_events(ecq, 1);
		return 0;
	}
	if (errno != EAGAIN)
		diag("ibv_get_cq_event: %d, errno %s", r, strerror(errno));
	return r == -1 && errno == EAGAIN;
}

int main(int argc, char **argv)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *aux, *ecq = NULL;
	struct ibv_async_event aev;
	struct ibv_qp *a, *b;
	struct ibv_wc wc[2];
	void *ectx = NULL;
	int r;

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

	ok(ev_set_nonblock(ch->fd) == 0, "fcntl(channel fd, F_SETFL, O_NONBLOCK)");
	ok(cq_eagain(ch), "unarmed CQ, nothing pending: ibv_get_cq_event returns -1, errno EAGAIN");
	ok(ibv_req_notify_cq(cq, 0) == 0, "arm");
	ok(cq_eagain(ch), "armed CQ, no completion yet: -1, EAGAIN");

	ok(!ev_send_recv(&d, a, b, 1, 0) && ev_poll_n(cq, 1, wc, ev_wait_ms) == 1 &&
	   ev_poll_n(aux, 1, wc + 1, ev_wait_ms) == 1, "a completion on the CQ");
	ok(ev_readable(ch->fd, ev_wait_ms) == 1, "poll() reports the channel readable");
	errno = 0;
	r = ibv_get_cq_event(ch, &ecq, &ectx);
	if (r)
		diag("ibv_get_cq_event: %s", strerror(errno));
	ok(r == 0 && ecq == cq && ectx == &cq_tag,
	   "non-blocking ibv_get_cq_event returns the pending event (CQ and context)");
	if (r == 0)
		ibv_ack_cq_events(ecq, 1);
	ok(cq_eagain(ch), "the event was taken: -1, EAGAIN again");

	ok(ev_set_nonblock(d.ctx->async_fd) == 0, "fcntl(async fd, F_SETFL, O_NONBLOCK)");
	errno = 0;
	r = ibv_get_async_event(d.ctx, &aev);
	if (r == 0) {
		diag("unexpected async event %s", ibv_event_type_str(aev.event_type));
		ibv_ack_async_event(&aev);
	} else if (errno != EAGAIN) {
		diag("ibv_get_async_event: %s", strerror(errno));
	}
	ok(r == -1 && errno == EAGAIN,
	   "no async event pending: ibv_get_async_event returns -1, errno EAGAIN");

	ok(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy the QPs");
	ok(!ibv_destroy_cq(cq) && !ibv_destroy_cq(aux), "destroy the CQs");
	ok(!ibv_destroy_comp_channel(ch), "destroy the channel");
	ev_close(&d);
	return tap_end();
}
