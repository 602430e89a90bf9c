// SPDX-License-Identifier: GPL-2.0-only
/*
 * The two catastrophic affiliated async events that verbs alone cannot
 * provoke on a working device: QP fatal (IBV_EVENT_QP_FATAL) and SRQ
 * error (IBV_EVENT_SRQ_ERR).  Orca-specific: the program corrupts the
 * doorbell record that liborca maps into the process, as a buggy or
 * hostile application could, and checks that the device reports the
 * broken queue instead of trusting it.
 *
 * Every Orca queue is one mapping of the uverbs device file: its ring(s),
 * then one page of doorbell records (uapi/rdma/orca-abi.h).  The program
 * finds a new queue's mapping by comparing /proc/self/maps before and
 * after creating it, and chooses a geometry whose rings fill whole pages
 * (an RC QP of 32 send and 128 receive WRs of one SGE, an SRQ of 128),
 * so that the records are the mapping's last page.  Before corrupting a
 * record it posts one receive and checks that the record's prod became
 * 1, so a layout it got wrong fails a test point instead of scribbling
 * elsewhere.
 *
 *   -m qp-fatal   the receiving QP's RQ record gets an impossible prod;
 *                 a message to it must raise QP_FATAL on that QP.
 *   -m srq-err    the SRQ's record gets an impossible prod; a message
 *                 to a QP on it must raise SRQ_ERR on the SRQ.
 *
 * Prints TAP.  Usage: ev_fatal -d DEVICE -m MODE
 */
#include <rdma/orca-abi.h>

#include "ev_common.h"
#include "uverbs_maps.h"

#define FATAL_PAGE	4096UL

static struct ev_dev d;

static volatile uint32_t *record_prod(const struct uv_map *m,
				      unsigned int index)
{
	volatile struct orca_db_record *rec;

	rec = (volatile struct orca_db_record *)(m->end - FATAL_PAGE) + index;
	return (volatile uint32_t *)&rec->prod;
}

static void expect_async(enum ibv_event_type want, void *obj, const char *what)
{
	struct ibv_async_event ev;
	int r = ev_async_wait(d.ctx, want, ev_wait_ms, &ev);

	if (!ok(r == 0, "%s: %s within %d ms", what, ibv_event_type_str(want),
		ev_wait_ms))
		return;
	ok(ev.element.qp == obj, "the event names %s", what);
	ibv_ack_async_event(&ev);
}

static struct ibv_qp *create_rc(struct ibv_cq *cq, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .srq = srq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 32, .max_recv_wr = srq ? 0 : 128,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(d.pd, &init);
}

/* Create the receiving object while watching for its mapping. */
static int watch_begin(struct uv_map *before)
{
	int n = uv_maps(before);

	if (n < 0)
		diag("/proc/self/maps: %s", strerror(errno));
	return n;
}

static const struct uv_map *watch_end(const struct uv_map *before,
					 int nb, struct uv_map *after,
					 unsigned long want_len, const char *what)
{
	int na = uv_maps(after);
	const struct uv_map *m = NULL;

	if (nb >= 0 && na >= 0)
		m = uv_new_map(before, nb, after, na);
	if (!ok(m != NULL, "%s: one new mapping of the uverbs device", what))
		return NULL;
	if (!ok(m->end - m->start == want_len,
		"%s: the mapping is %lu bytes, rings then one page of records (%lu)",
		what, want_len, m->end - m->start))
		return NULL;
	return m;
}

static void drain(struct ibv_cq *cq)
{
	struct ibv_wc wc[8];
	int n = ev_poll_n(cq, 8, wc, ev_quiet_ms);

	diag("%d completion(s) after the fault", n);
}

static void qp_fatal(void)
{
	struct uv_map before[UV_MAX_MAPS], after[UV_MAX_MAPS];
	struct ibv_cq *cq = ibv_create_cq(d.ctx, 256, NULL, NULL, 0);
	const struct uv_map *m;
	volatile uint32_t *rq_prod;
	struct ibv_qp *a, *b;
	uint32_t seen;
	int nb, posted;

	if (!ok(cq != NULL, "a CQ"))
		ev_bail("cannot continue");
	a = create_rc(cq, NULL);
	nb = watch_begin(before);
	b = create_rc(cq, NULL);
	if (!ok(a && b, "two RC QPs (32 send, 128 receive WRs, one SGE)"))
		ev_bail("cannot continue");
	/* 32 x 128-byte send WQEs, 128 x 32-byte receive WQEs, records. */
	m = watch_end(before, nb, after, 3 * FATAL_PAGE, "the receiving QP");
	if (!m)
		ev_bail("cannot find the QP's doorbell records");
	if (!ok(!ev_connect(&d, a, b->qp_num) && !ev_connect(&d, b, a->qp_num),
		"connected, in RTS"))
		ev_bail("cannot continue");

	/* The SQ record comes first, the RQ record follows it. */
	rq_prod = record_prod(m, 1);
	posted = !ev_post_recv(&d, b, 4096, 1);
	seen = le32toh(*rq_prod);
	if (!ok(posted && seen == 1,
		"one receive posted: the RQ record's prod is 1 (%u)", seen))
		ev_bail("the RQ record is not where it should be");
	*rq_prod = htole32(0x40000001);
	ok(1, "the RQ record's prod overwritten with an impossible value");
	ok(!ev_post_send(&d, a, 0, 2, 0), "a message to the QP");
	expect_async(IBV_EVENT_QP_FATAL, b, "the receiving QP");
	drain(cq);
	ok(!ibv_destroy_qp(a) && !ibv_destroy_qp(b) && !ibv_destroy_cq(cq),
	   "destroy the QPs and the CQ");
}

static void srq_err(void)
{
	struct uv_map before[UV_MAX_MAPS], after[UV_MAX_MAPS];
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 128, .max_sge = 1 } };
	struct ibv_cq *cq = ibv_create_cq(d.ctx, 256, NULL, NULL, 0);
	const struct uv_map *m;
	volatile uint32_t *prod;
	struct ibv_srq *srq;
	struct ibv_qp *a, *b;
	uint32_t seen;
	int nb, posted;

	if (!ok(cq != NULL, "a CQ"))
		ev_bail("cannot continue");
	nb = watch_begin(before);
	srq = ibv_create_srq(d.pd, &sia);
	if (!ok(srq != NULL, "an SRQ of 128 WRs, one SGE"))
		ev_bail("cannot continue");
	m = watch_end(before, nb, after, 2 * FATAL_PAGE, "the SRQ");
	if (!m)
		ev_bail("cannot find the SRQ's doorbell record");
	a = create_rc(cq, NULL);
	b = create_rc(cq, srq);
	if (!ok(a && b && !ev_connect(&d, a, b->qp_num) &&
		!ev_connect(&d, b, a->qp_num),
		"two RC QPs in RTS, the receiver on the SRQ"))
		ev_bail("cannot continue");

	prod = record_prod(m, 0);
	posted = !ev_post_srq_recv(&d, srq, 4096, 1);
	seen = le32toh(*prod);
	if (!ok(posted && seen == 1,
		"one receive posted: the SRQ record's prod is 1 (%u)", seen))
		ev_bail("the SRQ record is not where it should be");
	*prod = htole32(0x40000001);
	ok(1, "the SRQ record's prod overwritten with an impossible value");
	ok(!ev_post_send(&d, a, 0, 2, 0), "a message to the QP on the SRQ");
	expect_async(IBV_EVENT_SRQ_ERR, srq, "the SRQ");
	drain(cq);
	ok(!ibv_destroy_qp(a) && !ibv_destroy_qp(b) && !ibv_destroy_srq(srq) &&
	   !ibv_destroy_cq(cq), "destroy the QPs, the SRQ and the CQ");
}

int main(int argc, char **argv)
{
	ev_parse(argc, argv);
	if (!ev_mode)
		ev_usage(argv[0]);
	ev_open(&d);
	if (!strcmp(ev_mode, "qp-fatal"))
		qp_fatal();
	else if (!strcmp(ev_mode, "srq-err"))
		srq_err();
	else
		ev_usage(argv[0]);
	ev_close(&d);
	return tap_end();
}
