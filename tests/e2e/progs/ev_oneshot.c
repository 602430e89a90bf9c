// SPDX-License-Identifier: GPL-2.0-only
/*
 * ibv_req_notify_cq(3): "The request for notification is one shot.  Only
 * one completion event will be generated for each call."
 *
 *   - a CQ that was never armed raises no event;
 *   - armed once, two completions raise exactly one event, naming the CQ
 *     and its cq_context;
 *   - without a new arm, a further completion raises nothing;
 *   - re-armed, the next completion raises the next event;
 *   - many arms in a row (enough to wrap a 16-bit arm sequence) still
 *     yield the event of the last one;
 *   - ibv_ack_cq_events(3) acknowledges several events in one call, and
 *     the CQ is then destroyed without waiting.
 *
 * Usage: ev_oneshot -d DEVICE [-w WAIT_MS] [-q QUIET_MS]   (prints TAP)
 */
#include "ev_common.h"

static struct ev_dev d;
static int cq_tag;

/* One send/receive a -> b whose receive completes on cq: polled here. */
static int one_completion(struct ibv_qp *a, struct ibv_qp *b,
			  struct ibv_cq *cq, struct ibv_cq *aux, int n)
{
	struct ibv_wc wc[8];
	int i, got;

	for (i = 0; i < n; i++)
		if (ev_send_recv(&d, a, b, 100 + i, 0))
			return 0;
	got = ev_poll_n(cq, n, wc, ev_wait_ms);
	if (got != n) {
		diag("%d of %d receive completions arrived", got, n);
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS ||
		    wc[i].opcode != IBV_WC_RECV) {
			diag("completion %d: %s, opcode %d", i, ev_wc_str(&wc[i]),
			     wc[i].opcode);
			return 0;
		}
	}
	/* The sender's completions go to aux; collect them too. */
	return ev_poll_n(aux, n, wc, ev_wait_ms) == n;
}

static int event_is(int r, struct ibv_cq *got, void *got_ctx, struct ibv_cq *cq)
{
	if (r == 1)
		diag("no completion event within %d ms", ev_wait_ms);
	else if (r == 0 && (got != cq || got_ctx != &cq_tag))
		diag("event for CQ %p context %p, expected %p / %p",
		     (void *)got, got_ctx, (void *)cq, (void *)&cq_tag);
	return r == 0 && got == cq && got_ctx == &cq_tag;
}

int main(int argc, char **argv)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *aux, *ecq;
	struct ibv_qp *a, *b;
	void *ectx;
	int r;

	ev_parse(argc, argv);
	ev_open(&d);

	ch = ibv_create_comp_channel(d.ctx);
	if (!ok(ch && ch->fd >= 0, "ibv_create_comp_channel"))
		ev_bail("cannot continue without a channel");
	cq = ibv_create_cq(d.ctx, 64, &cq_tag, ch, 0);
	aux = ibv_create_cq(d.ctx, 64, NULL, NULL, 0);
	if (!ok(cq && aux, "a CQ on the channel and an auxiliary CQ without one"))
		ev_bail("cannot continue without CQs");
	if (!ok(!ev_pair(&d, &a, &b, aux, aux, aux, cq, NULL, 16),
		"two RC QPs connected to each other (b receives on the channel's CQ)"))
		ev_bail("cannot continue without QPs");

	if (!ok(one_completion(a, b, cq, aux, 1),
		"a receive completion on the never-armed CQ"))
		ev_bail("no completions: nothing else can be tested");
	ok(ev_silent(ch, ev_quiet_ms),
	   "no event from a CQ that was never armed (%d ms of silence)",
	   ev_quiet_ms);

	ok(ibv_req_notify_cq(cq, 0) == 0, "ibv_req_notify_cq(cq, 0)");
	ok(one_completion(a, b, cq, aux, 2), "two receive completions");
	r = ev_get(ch, ev_wait_ms, &ecq, &ectx);
	ok(event_is(r, ecq, ectx, cq),
	   "one completion event, for that CQ and its cq_context");
	ok(ev_silent(ch, ev_quiet_ms),
	   "exactly one: no second event for the second completion");
	if (r == 0)
		ibv_ack_cq_events(ecq, 1);

	ok(one_completion(a, b, cq, aux, 1),
	   "another completion without re-arming");
	ok(ev_silent(ch, ev_quiet_ms), "no event without a new arm");

	ok(ibv_req_notify_cq(cq, 0) == 0, "re-arm");
	ok(one_completion(a, b, cq, aux, 1), "a completion after the re-arm");
	r = ev_get(ch, ev_wait_ms, &ecq, &ectx);
	ok(event_is(r, ecq, ectx, cq), "the re-arm raises the next event");
	ok(ev_silent(ch, ev_quiet_ms), "and only one");

	/* Keep that event unacknowledged; take one more and ack both at once. */
	ok(ibv_req_notify_cq(cq, 0) == 0, "re-arm with one event still unacknowledged");
	ok(one_completion(a, b, cq, aux, 1), "a completion after that arm");
	{
		struct ibv_cq *ecq2 = NULL;
		void *ectx2;
		int r2 = ev_get(ch, ev_wait_ms, &ecq2, &ectx2);

		ok(event_is(r2, ecq2, ectx2, cq),
		   "its event arrives although the previous one is not acknowledged");
		if (r == 0 && r2 == 0)
			ibv_ack_cq_events(cq, 2);
		else if (r == 0 || r2 == 0)
			ibv_ack_cq_events(cq, 1);
	}

	/*
	 * Every call requests an event: the last of many arms in a row (no
	 * completion in between; 65536 of them, enough to wrap any 16-bit
	 * arm sequence back to the value of the arm that fired last) is
	 * still honoured by the next completion.
	 */
	{
		int i, fails = 0;

		for (i = 0; i < 65536; i++)
			if (ibv_req_notify_cq(cq, 0))
				fails++;
		ok(!fails, "65536 ibv_req_notify_cq calls in a row, no completion in between");
		ok(one_completion(a, b, cq, aux, 1), "then a completion");
		r = ev_get(ch, ev_wait_ms, &ecq, &ectx);
		ok(event_is(r, ecq, ectx, cq), "it raises the event the last arm asked for");
		if (r == 0)
			ibv_ack_cq_events(ecq, 1);
		ok(ev_silent(ch, ev_quiet_ms), "and only one");
	}

	ok(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy the QPs");
	/* Every event was acknowledged: destroy must return, and succeed. */
	ok(!ibv_destroy_cq(cq), "destroy the CQ after a batched ibv_ack_cq_events(cq, 2)");
	ok(!ibv_destroy_cq(aux), "destroy the auxiliary CQ");
	ok(!ibv_destroy_comp_channel(ch), "destroy the channel");
	ev_close(&d);
	return tap_end();
}
