// SPDX-License-Identifier: GPL-2.0-only
/*
 * Several CQs on one completion channel (ibv_create_comp_channel(3),
 * ibv_get_cq_event(3)): each event names the CQ that got it and that CQ's
 * cq_context; a CQ on another channel delivers there and not here; events
 * are acknowledged per CQ; a channel with a CQ on it cannot be destroyed
 * (ibv_create_comp_channel(3)).
 *
 * Three CQs on channel 1 (contexts tag[0..2]), a fourth on channel 2; each
 * is the receive CQ of its own QP pair.
 *
 * Usage: ev_multicq -d DEVICE [-w WAIT_MS] [-q QUIET_MS]   (prints TAP)
 */
#include "ev_common.h"

#define NCQ 4

static struct ev_dev d;
static int tag[NCQ];
static struct ibv_cq *cq[NCQ], *aux;
static struct ibv_qp *qa[NCQ], *qb[NCQ];

static int completion_on(int i)
{
	struct ibv_wc wc[2];

	return !ev_send_recv(&d, qa[i], qb[i], i, 0) &&
	       ev_poll_n(cq[i], 1, wc, ev_wait_ms) == 1 &&
	       ev_poll_n(aux, 1, wc + 1, ev_wait_ms) == 1 &&
	       wc[0].status == IBV_WC_SUCCESS && wc[1].status == IBV_WC_SUCCESS;
}

/* Take one event from ch: the index of its CQ, -1 if none or unknown. */
static int event_index(struct ibv_comp_channel *ch)
{
	struct ibv_cq *ecq;
	void *ectx;
	int i, r = ev_get(ch, ev_wait_ms, &ecq, &ectx);

	if (r) {
		diag("no event within %d ms", ev_wait_ms);
		return -1;
	}
	ibv_ack_cq_events(ecq, 1);
	for (i = 0; i < NCQ; i++)
		if (ecq == cq[i])
			break;
	if (i == NCQ || ectx != &tag[i]) {
		diag("event for CQ %p context %p: not a CQ of ours, or the wrong context",
		     (void *)ecq, ectx);
		return -1;
	}
	return i;
}

int main(int argc, char **argv)
{
	struct ibv_comp_channel *ch1, *ch2;
	int i, e1, e2, good = 1;

	ev_parse(argc, argv);
	ev_open(&d);

	ch1 = ibv_create_comp_channel(d.ctx);
	ch2 = ibv_create_comp_channel(d.ctx);
	if (!ok(ch1 && ch2, "two completion channels"))
		ev_bail("cannot continue");
	for (i = 0; i < NCQ; i++) {
		cq[i] = ibv_create_cq(d.ctx, 16, &tag[i], i < 3 ? ch1 : ch2, 0);
		if (!cq[i])
			good = 0;
	}
	aux = ibv_create_cq(d.ctx, 64, NULL, NULL, 0);
	if (!ok(good && aux, "three CQs on channel 1, one on channel 2, an auxiliary CQ"))
		ev_bail("cannot continue");
	for (i = 0; i < NCQ; i++)
		if (ev_pair(&d, &qa[i], &qb[i], aux, aux, aux, cq[i], NULL, 8))
			good = 0;
	if (!ok(good, "a connected QP pair receiving on each CQ"))
		ev_bail("cannot continue without QPs");

	for (i = 0; i < NCQ; i++)
		if (ibv_req_notify_cq(cq[i], 0))
			good = 0;
	ok(good, "arm all four CQs");

	if (!ok(completion_on(1), "a completion on CQ 1 only"))
		ev_bail("no completions: nothing else can be tested");
	ok(event_index(ch1) == 1, "channel 1 delivers an event naming CQ 1 and its context");
	ok(ev_silent(ch1, ev_quiet_ms) && ev_silent(ch2, 0),
	   "nothing else on either channel");

	ok(completion_on(0) && completion_on(2), "completions on CQ 0 and CQ 2");
	e1 = event_index(ch1);
	e2 = event_index(ch1);
	ok((e1 == 0 && e2 == 2) || (e1 == 2 && e2 == 0),
	   "two events on channel 1, one for CQ 0 and one for CQ 2 (got %d, %d)", e1, e2);
	ok(ev_silent(ch1, ev_quiet_ms), "no third event");

	ok(completion_on(3), "a completion on CQ 3 (channel 2)");
	ok(event_index(ch2) == 3, "channel 2 delivers it, naming CQ 3");
	ok(ev_silent(ch1, ev_quiet_ms), "channel 1 stays silent");

	ok(ibv_req_notify_cq(cq[1], 0) == 0 && completion_on(1) &&
	   completion_on(0), "re-arm CQ 1 only; completions on CQ 1 and CQ 0");
	ok(event_index(ch1) == 1 && ev_silent(ch1, ev_quiet_ms),
	   "one event, for CQ 1 (CQ 0 was not re-armed)");

	for (i = 0; i < NCQ; i++)
		if (ibv_destroy_qp(qa[i]) || ibv_destroy_qp(qb[i]))
			good = 0;
	ok(good, "destroy the QPs");
	i = ibv_destroy_comp_channel(ch2);
	ok(i != 0, "ibv_destroy_comp_channel fails while a CQ still uses the channel (%s)",
	   i ? strerror(i) : "it succeeded");
	if (!i)
		ev_bail("the channel is gone under its CQ");
	for (i = 0; i < NCQ; i++)
		if (ibv_destroy_cq(cq[i]))
			good = 0;
	ok(good && !ibv_destroy_cq(aux), "destroy the CQs (every event acknowledged)");
	ok(!ibv_destroy_comp_channel(ch1) && !ibv_destroy_comp_channel(ch2),
	   "destroy the channels");
	ev_close(&d);
	return tap_end();
}
