// SPDX-License-Identifier: GPL-2.0-only
/*
 * Event-driven ping-pong stress: -n COUNT (default 100000) round trips
 * between two RC QPs of one context, one thread per side.  Each side has
 * its own completion channel and one CQ for its sends and receives, and
 * runs: wait for the event, ack (in batches), empty the CQ, re-arm, empty
 * it again (a completion that lands between the first poll and the arm
 * is the classic lost-wakeup window; ev_missed runs the man page's
 * arm-then-poll loop).  The initiator sends a ping, waits for the pong;
 * the responder waits for a ping, sends the pong.
 *
 * Checked:
 *   - no lost wakeup: every wait for an event ends with one within
 *     WAIT_MS (otherwise the run stops and fails);
 *   - no stray event: an event must have a completion to justify it: if
 *     the poll after an arm found nothing, the first poll after that
 *     arm's event must find something (an event whose completion was
 *     already taken by the poll after the arm, ibv_get_cq_event(3)'s
 *     "extra event", is allowed and counted);
 *   - every event names the side's CQ and context; every completion is
 *     successful and of the expected opcode; COUNT sends and COUNT
 *     receives on each side, payloads carry the round-trip number.
 * The rate is printed as a TAP diagnostic.
 *
 * Usage: ev_stress -d DEVICE [-n COUNT] [-w WAIT_MS] [-q QUIET_MS]
 */
#include <pthread.h>

#include "ev_common.h"

#define RQ_DEPTH 16

struct side {
	const char *name;
	int initiator;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	size_t tx_off, rx_off;		/* send slot, receive slots */
	long sends, recvs, events, extra, stray, bad, unacked;
	int prev_found, lost, failed;
};

static struct ev_dev d;
static struct side sides[2];
static volatile int abort_run;

static int post_recv_slot(struct side *s, int slot)
{
	return ev_post_recv(&d, s->qp, s->rx_off + slot * EV_MSG_SIZE, slot);
}

static int send_msg(struct side *s, long seq)
{
	memcpy(d.buf + s->tx_off, &seq, sizeof(seq));
	return ev_post_send(&d, s->qp, s->tx_off, seq, 0);
}

/* Empty the CQ; account for each completion.  Returns the count, -1 on error. */
static int drain(struct side *s, long *last_seq)
{
	struct ibv_wc wc[32];
	int n, i, total = 0;

	do {
		n = ibv_poll_cq(s->cq, 32, wc);
		if (n < 0)
			return -1;
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				diag("%s: completion %s", s->name, ev_wc_str(&wc[i]));
				s->bad++;
				return -1;
			}
			if (wc[i].opcode == IBV_WC_SEND) {
				s->sends++;
				continue;
			}
			if (wc[i].opcode != IBV_WC_RECV) {
				s->bad++;
				return -1;
			}
			memcpy(last_seq, d.buf + s->rx_off + wc[i].wr_id * EV_MSG_SIZE,
			       sizeof(*last_seq));
			if (*last_seq != s->recvs) {
				diag("%s: received %ld, expected %ld", s->name,
				     *last_seq, s->recvs);
				s->bad++;
			}
			s->recvs++;
			if (post_recv_slot(s, wc[i].wr_id))
				return -1;
		}
		total += n;
	} while (n);
	return total;
}

/*
 * Wait for one event, ack it, empty the CQ, re-arm, empty it again.
 * Returns the number of completions found, -1 to stop.
 */
static int event_round(struct side *s, long *last_seq)
{
	struct ibv_cq *ecq;
	void *ectx;
	int r, before, after;

	r = ev_get(s->ch, ev_wait_ms, &ecq, &ectx);
	if (r) {
		if (r == 1 && !abort_run) {
			s->lost = 1;
			diag("%s: lost wakeup: no event within %d ms (sends %ld, receives %ld)",
			     s->name, ev_wait_ms, s->sends, s->recvs);
		}
		return -1;
	}
	s->events++;
	if (ecq != s->cq || ectx != s) {
		s->bad++;
		return -1;
	}
	/* Batched acknowledgement, as ibv_get_cq_event(3) suggests. */
	if (++s->unacked == 64) {
		ibv_ack_cq_events(s->cq, s->unacked);
		s->unacked = 0;
	}
	before = drain(s, last_seq);
	if (before < 0 || ibv_req_notify_cq(s->cq, 0))
		return -1;
	after = drain(s, last_seq);
	if (after < 0)
		return -1;
	/*
	 * This event's arm was followed by a poll that found nothing: the
	 * completion that raised it came later, and is visible now.
	 */
	if (!s->prev_found && !before) {
		s->stray++;
		diag("%s: stray event: no completion after its arm", s->name);
	}
	if (!before && !after)
		s->extra++;
	s->prev_found = after;
	return before + after;
}

static void *run_side(void *arg)
{
	struct side *s = arg;
	long i, seq = -1;

	for (i = 0; i < ev_count && !abort_run; i++) {
		if (s->initiator && send_msg(s, i))
			break;
		while (s->recvs < i + 1 && !abort_run)
			if (event_round(s, &seq) < 0)
				goto out;
		if (!s->initiator && send_msg(s, i))
			break;
	}
	while (s->sends < ev_count && !abort_run)
		if (event_round(s, &seq) < 0)
			break;
out:
	if (s->sends != ev_count || s->recvs != ev_count) {
		s->failed = 1;
		abort_run = 1;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t thr[2];
	long long t0, t1;
	int i, j, good = 1;
	double secs;

	ev_count = 100000;
	ev_parse(argc, argv);
	ev_open(&d);

	for (i = 0; i < 2; i++) {
		struct side *s = &sides[i];

		s->name = i ? "responder" : "initiator";
		s->initiator = !i;
		s->tx_off = 65536 + i * 8192;
		s->rx_off = s->tx_off + EV_MSG_SIZE;
		s->ch = ibv_create_comp_channel(d.ctx);
		s->cq = s->ch ? ibv_create_cq(d.ctx, 2 * RQ_DEPTH + 8, s, s->ch, 0) : NULL;
		if (!s->cq)
			good = 0;
	}
	if (!ok(good, "two channels, a CQ on each"))
		ev_bail("cannot continue");
	if (!ok(!ev_pair(&d, &sides[0].qp, &sides[1].qp, sides[0].cq,
			 sides[0].cq, sides[1].cq, sides[1].cq, NULL, RQ_DEPTH),
		"two RC QPs connected to each other"))
		ev_bail("cannot continue without QPs");
	for (i = 0; i < 2; i++) {
		for (j = 0; j < RQ_DEPTH; j++)
			if (post_recv_slot(&sides[i], j))
				good = 0;
		if (ibv_req_notify_cq(sides[i].cq, 0))
			good = 0;
		sides[i].prev_found = 0;
	}
	if (!ok(good, "receives posted, both CQs armed"))
		ev_bail("cannot continue");

	t0 = ev_now_us();
	for (i = 0; i < 2; i++)
		if (pthread_create(&thr[i], NULL, run_side, &sides[i]))
			ev_bail("start the threads");
	for (i = 0; i < 2; i++)
		pthread_join(thr[i], NULL);
	t1 = ev_now_us();
	secs = (t1 - t0) / 1e6;

	for (i = 0; i < 2; i++) {
		struct side *s = &sides[i];
		struct ibv_cq *ecq;
		void *ectx;
		int r;

		ok(!s->lost, "%s: no lost wakeup (every wait ended with an event)", s->name);
		ok(s->sends == ev_count && s->recvs == ev_count,
		   "%s: %ld sends and %ld receives completed (%ld each expected)",
		   s->name, s->sends, s->recvs, ev_count);
		ok(!s->bad, "%s: every event named its CQ and context, every completion succeeded in order (%ld bad)",
		   s->name, s->bad);
		/* The last arm: at most one event may still come, and it needs a reason. */
		r = ev_get(s->ch, ev_quiet_ms, &ecq, &ectx);
		if (r == 0) {
			long seq;

			s->events++;
			s->unacked++;
			if (drain(s, &seq) == 0 && !s->prev_found) {
				s->stray++;
				diag("%s: stray event after the run", s->name);
			}
		}
		ok(!s->stray, "%s: no stray event (%ld)", s->name, s->stray);
		diag("%s: %ld events for %ld completions, %ld extra (completion already polled)",
		     s->name, s->events, s->sends + s->recvs, s->extra);
		if (s->unacked)
			ibv_ack_cq_events(s->cq, s->unacked);
	}
	diag("%ld event-driven round trips in %.2f s: %.0f round trips/s, %.0f events/s",
	     ev_count, secs, ev_count / secs,
	     (sides[0].events + sides[1].events) / secs);

	good = !ibv_destroy_qp(sides[0].qp) && !ibv_destroy_qp(sides[1].qp);
	for (i = 0; i < 2; i++)
		good = good && !ibv_destroy_cq(sides[i].cq) &&
		       !ibv_destroy_comp_channel(sides[i].ch);
	ok(good, "destroy the QPs, CQs and channels (every event acknowledged)");
	ev_close(&d);
	return tap_end();
}
