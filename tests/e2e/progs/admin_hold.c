// SPDX-License-Identifier: GPL-2.0-only
/*
 * admin_hold DEVICE busy|check: the two halves of 75-admin-faults.t's
 * late completion.
 *
 * busy: an RC pair on one port with RDMA WRITEs of 64 KiB always in
 * flight (the send queue kept full, completions polled as they come),
 * forever; "ready" is printed once the traffic runs.  The .t kills it
 * while orca_soft holds the first admin command of its teardown, so the
 * device keeps executing those WRITEs, reading the source MR and
 * writing the destination MR and the CQs, after the driver has given
 * up on that command and declared its admin queue dead.
 *
 * check: after the driver is loaded again, one SEND of 4 KiB arrives
 * byte for byte and every object goes.
 */
#include "dp_common.h"

#define AH_LEN		(1024 * 1024)
#define AH_MSG		(64 * 1024)

static int ah_busy(void)
{
	struct dp_qp_cfg cfg;
	struct dp_pair pair;
	struct dp_buf src, dst;
	struct ibv_wc wc[16];
	unsigned int inflight = 0, posted = 0, done = 0;
	int printed = 0, n, i;

	dp_cfg_default(&cfg, IBV_QPT_RC);
	if (!ok(!dp_pair_make(&pair, &cfg), "an RC pair on one port") ||
	    !ok(!dp_buf_alloc(&src, dp.pd, AH_LEN, DP_ACC_ALL) &&
		!dp_buf_alloc(&dst, dp.pd, AH_LEN, DP_ACC_ALL),
		"two registered MiB"))
		return tap_end();
	fflush(stdout);
	for (;;) {
		while (inflight < cfg.max_send_wr) {
			size_t off = (size_t)(posted % (AH_LEN / AH_MSG)) * AH_MSG;
			struct ibv_sge s = {
				(uintptr_t)src.p + off, AH_MSG, src.mr->lkey,
			};
			struct ibv_send_wr wr = {
				.wr_id = posted, .sg_list = &s, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.rdma = { (uintptr_t)dst.p + off,
					     dst.mr->rkey },
			}, *bad;

			if (ibv_post_send(pair.a.qp, &wr, &bad)) {
				diag("post: %s", strerror(errno));
				return 1;
			}
			inflight++;
			posted++;
		}
		n = ibv_poll_cq(pair.a.scq, 16, wc);
		if (n < 0)
			return 1;
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				dp_wc_diag("busy WRITE", &wc[i]);
				return 1;
			}
		}
		inflight -= n;
		done += n;
		if (!printed && done >= 2 * cfg.max_send_wr) {
			printf("ready\n");
			fflush(stdout);
			printed = 1;
		}
	}
}

static int ah_check(void)
{
	struct dp_bystander b;
	int ret;

	if (!ok(!dp_bystander_make(&b), "an RC pair and two buffers"))
		return tap_end();
	ret = dp_bystander_send(&b, 75);
	ok(ret, "a SEND of 4 KiB arrives byte for byte");
	dp_bystander_destroy(&b);
	return dp_close();
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s DEVICE busy|check\n", argv[0]);
		return 2;
	}
	dp_open(argc, argv);
	if (!strcmp(argv[2], "busy"))
		return ah_busy();
	return ah_check();
}
