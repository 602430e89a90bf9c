// SPDX-License-Identifier: GPL-2.0-only
/*
 * Completion vectors, ibv_create_cq(3): "The CQ will use the completion
 * vector comp_vector for signaling completion events; it must be at least
 * zero and less than context->num_comp_vectors."
 *
 *   - num_comp_vectors >= 1;
 *   - a CQ on each vector 0 .. n-1 (all on one channel) delivers its
 *     event, and each event names the right CQ;
 *   - comp_vector = n, and a negative one, are refused with EINVAL.
 *
 * Usage: ev_compvec -d DEVICE [-w WAIT_MS] [-q QUIET_MS]   (prints TAP)
 */
#include "ev_common.h"

#define MAXVEC 64

static struct ev_dev d;
static int tag[MAXVEC];
static struct ibv_cq *cq[MAXVEC];
static struct ibv_qp *qa[MAXVEC], *qb[MAXVEC];

int main(int argc, char **argv)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *aux, *bad;
	int seen[MAXVEC] = { 0 };
	int i, n, nv, good = 1, events = 0;

	ev_parse(argc, argv);
	ev_open(&d);
	nv = d.ctx->num_comp_vectors;
	ok(nv >= 1, "num_comp_vectors = %d (>= 1)", nv);
	n = nv < MAXVEC ? nv : MAXVEC;
	if (nv > MAXVEC)
		diag("testing the first %d vectors of %d", MAXVEC, nv);

	ch = ibv_create_comp_channel(d.ctx);
	aux = ibv_create_cq(d.ctx, 2 * n + 2, NULL, NULL, 0);
	if (!ok(ch && aux, "a channel and an auxiliary CQ"))
		ev_bail("cannot continue");
	for (i = 0; i < n; i++) {
		cq[i] = ibv_create_cq(d.ctx, 4, &tag[i], ch, i);
		if (!cq[i]) {
			diag("ibv_create_cq(comp_vector %d): %s", i, strerror(errno));
			good = 0;
		}
	}
	if (!ok(good, "a CQ on each comp_vector 0 .. %d", n - 1))
		ev_bail("cannot continue");
	for (i = 0; i < n; i++)
		if (ev_pair(&d, &qa[i], &qb[i], aux, aux, aux, cq[i], NULL, 4))
			good = 0;
	if (!ok(good, "a QP pair receiving on each of them"))
		ev_bail("cannot continue without QPs");

	for (i = 0; i < n; i++)
		if (ibv_req_notify_cq(cq[i], 0) || ev_send_recv(&d, qa[i], qb[i], i, 0))
			good = 0;
	ok(good, "arm each CQ and send one message to each");
	for (i = 0; i < n; i++) {
		struct ibv_cq *ecq;
		void *ectx;
		int k;

		if (ev_get(ch, ev_wait_ms, &ecq, &ectx)) {
			diag("event %d of %d did not come", i + 1, n);
			break;
		}
		ibv_ack_cq_events(ecq, 1);
		events++;
		for (k = 0; k < n; k++)
			if (ecq == cq[k] && ectx == &tag[k])
				seen[k]++;
	}
	for (i = 0; i < n; i++) {
		ok(seen[i] == 1, "comp_vector %d: exactly one event, naming its CQ (%d)",
		   i, seen[i]);
	}
	ok(events == n && ev_silent(ch, ev_quiet_ms), "%d events, no more", n);
	for (i = 0; i < n; i++) {
		struct ibv_wc wc;

		/* Once the events came, the completions are there. */
		if (ev_poll_n(cq[i], 1, &wc, events == n ? ev_wait_ms : 0) != 1 ||
		    wc.status != IBV_WC_SUCCESS)
			good = 0;
	}
	ok(good, "each CQ holds its successful receive completion");

	errno = 0;
	bad = ibv_create_cq(d.ctx, 4, NULL, ch, nv);
	ok(!bad && expect_errno(errno, EINVAL, "comp_vector = num_comp_vectors"),
	   "comp_vector = num_comp_vectors (%d) is refused with EINVAL", nv);
	if (bad)
		ibv_destroy_cq(bad);
	errno = 0;
	bad = ibv_create_cq(d.ctx, 4, NULL, ch, -1);
	ok(!bad && expect_errno(errno, EINVAL, "comp_vector = -1"),
	   "comp_vector = -1 is refused with EINVAL");
	if (bad)
		ibv_destroy_cq(bad);

	good = 1;
	for (i = 0; i < n; i++)
		if (ibv_destroy_qp(qa[i]) || ibv_destroy_qp(qb[i]) ||
		    ibv_destroy_cq(cq[i]))
			good = 0;
	ok(good && !ibv_destroy_cq(aux), "destroy the QPs and CQs");
	ok(!ibv_destroy_comp_channel(ch), "destroy the channel");
	ev_close(&d);
	return tap_end();
}
