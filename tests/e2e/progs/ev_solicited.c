// SPDX-License-Identifier: GPL-2.0-only
/*
 * ibv_req_notify_cq(cq, solicited_only = 1), ibv_req_notify_cq(3): "an
 * event is only generated for a new CQE that is considered solicited.  A
 * CQE is solicited if it is a receive completion for a message with the
 * Solicited Event header bit set, or if the status is not successful.
 * All other successful receive completions, or any successful send
 * completion is unsolicited."
 *
 * One CQ (on a channel) takes the sender's send completions and the
 * receiver's receive completions:
 *   - a SEND without IBV_SEND_SOLICITED: a successful send and receive
 *     completion, no event;
 *   - then, on the same arm, a SEND with IBV_SEND_SOLICITED: one event;
 *   - a send with an invalid lkey completes in error: event;
 *   - a receive flushed by moving its QP to ERR (WR_FLUSH_ERR): event.
 *
 * Usage: ev_solicited -d DEVICE [-w WAIT_MS] [-q QUIET_MS]   (prints TAP)
 */
#include "ev_common.h"

static struct ev_dev d;
static int cq_tag;

static int got_event(struct ibv_comp_channel *ch, struct ibv_cq *cq)
{
	struct ibv_cq *ecq = NULL;
	void *ectx = NULL;
	int r = ev_get(ch, ev_wait_ms, &ecq, &ectx);

	if (r == 1)
		diag("no completion event within %d ms", ev_wait_ms);
	if (r == 0) {
		ibv_ack_cq_events(ecq, 1);
		if (ecq != cq || ectx != &cq_tag)
			diag("event for CQ %p context %p, expected %p / %p",
			     (void *)ecq, ectx, (void *)cq, (void *)&cq_tag);
	}
	return r == 0 && ecq == cq && ectx == &cq_tag;
}

/* Stands for "any status but success" in completions(). */
#define ANY_ERROR IBV_WC_GENERAL_ERR

/* n completions on cq, all with status st (or ANY_ERROR). */
static int completions(struct ibv_cq *cq, int n, enum ibv_wc_status st)
{
	struct ibv_wc wc[4];
	int i, got = ev_poll_n(cq, n, wc, ev_wait_ms);

	if (got != n) {
		diag("%d of %d completions arrived", got, n);
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (st == ANY_ERROR ? wc[i].status == IBV_WC_SUCCESS :
		    wc[i].status != st) {
			diag("completion %d (wr_id %llu, opcode %d): %s", i,
			     (unsigned long long)wc[i].wr_id, wc[i].opcode,
			     ev_wc_str(&wc[i]));
			return 0;
		}
		if (st != IBV_WC_SUCCESS)
			diag("error completion: %s (vendor_err 0x%x)",
			     ev_wc_str(&wc[i]), wc[i].vendor_err);
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *aux;
	struct ibv_qp *a, *b;
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_mr *gone;
	uint32_t stale_lkey;
	int ret;

	ev_parse(argc, argv);
	ev_open(&d);

	ch = ibv_create_comp_channel(d.ctx);
	cq = ch ? ibv_create_cq(d.ctx, 64, &cq_tag, ch, 0) : NULL;
	aux = ibv_create_cq(d.ctx, 64, NULL, NULL, 0);
	if (!ok(ch && cq && aux, "a channel, a CQ on it, an auxiliary CQ"))
		ev_bail("cannot continue");
	/* a's send completions and b's receive completions go to cq. */
	if (!ok(!ev_pair(&d, &a, &b, cq, aux, aux, cq, NULL, 16),
		"two RC QPs connected to each other"))
		ev_bail("cannot continue without QPs");

	ok(ibv_req_notify_cq(cq, 1) == 0, "ibv_req_notify_cq(cq, 1)");
	if (!ok(!ev_send_recv(&d, a, b, 1, 0) &&
		completions(cq, 2, IBV_WC_SUCCESS),
		"SEND without the solicited flag: successful send and receive completions"))
		ev_bail("no completions: nothing else can be tested");
	ok(ev_silent(ch, ev_quiet_ms),
	   "no event for them (unsolicited receive, successful send)");

	ok(!ev_send_recv(&d, a, b, 2, IBV_SEND_SOLICITED) &&
	   completions(cq, 2, IBV_WC_SUCCESS),
	   "SEND with IBV_SEND_SOLICITED: send and receive completions");
	ok(got_event(ch, cq), "the same arm raises an event for the solicited receive");
	ok(ev_silent(ch, ev_quiet_ms), "exactly one event");

	/* An lkey that was valid once and is not any more. */
	gone = ibv_reg_mr(d.pd, d.buf + 8192, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!ok(gone != NULL, "register, then deregister, a second MR"))
		ev_bail("cannot make a stale lkey");
	stale_lkey = gone->lkey;
	ibv_dereg_mr(gone);

	ok(ibv_req_notify_cq(cq, 1) == 0, "ibv_req_notify_cq(cq, 1) again");
	sge.addr = (uintptr_t)d.buf + 8192;
	sge.length = EV_MSG_SIZE;
	sge.lkey = stale_lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 3;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	ret = ibv_post_send(a, &wr, &bad);
	if (ret)
		diag("ibv_post_send: %s", strerror(ret));
	ok(!ret && completions(cq, 1, ANY_ERROR),
	   "a SEND with a deregistered MR's lkey completes in error");
	ok(got_event(ch, cq), "the error completion raises an event");

	ok(!ev_post_recv(&d, b, 4096, 4), "post a receive on the receiving QP");
	ok(ibv_req_notify_cq(cq, 1) == 0, "ibv_req_notify_cq(cq, 1) again");
	ret = ibv_modify_qp(b, &qa, IBV_QP_STATE);
	ok(ret == 0, "move the receiving QP to ERR (%s)", strerror(ret));
	ok(completions(cq, 1, IBV_WC_WR_FLUSH_ERR),
	   "its receive completes with IBV_WC_WR_FLUSH_ERR");
	ok(got_event(ch, cq), "the flush completion raises an event");
	ok(ev_silent(ch, ev_quiet_ms), "exactly one");

	ok(!ibv_destroy_qp(a) && !ibv_destroy_qp(b), "destroy the QPs");
	ok(!ibv_destroy_cq(cq) && !ibv_destroy_cq(aux), "destroy the CQs");
	ok(!ibv_destroy_comp_channel(ch), "destroy the channel");
	ev_close(&d);
	return tap_end();
}
