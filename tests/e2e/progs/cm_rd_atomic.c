// SPDX-License-Identifier: GPL-2.0-only
/*
 * cm_rd_atomic ADDR PORT: the RDMA READ and atomic depths that rdma_cm
 * negotiates reach the device.  A client and a server in one process (a
 * thread each, one address): the client connects with initiator_depth 2
 * and responder_resources 3, the server accepts with responder_resources
 * 2 and initiator_depth 3.  By the IBTA CM rules each QP then holds, as
 * the device reports it (ibv_query_qp): max_rd_atomic = its initiator
 * depth (limited by the peer's responder resources), max_dest_rd_atomic
 * = its responder resources; client 2 and 3, server 3 and 2.  Then the
 * client posts 8 RDMA READs at once, four times its depth: the requester
 * keeps to its depth by itself and every READ returns the right bytes.
 *
 * Plain librdmacm and libibverbs: passes on any correct RoCE device.
 * Prints TAP.
 */
#include <netdb.h>
#include <pthread.h>
#include <semaphore.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "e2e_tap.h"

#define NREADS	8
#define RDLEN	4096

static const char *addr, *port;
static sem_t srv_ready, srv_accepted, cli_done;
static uint8_t srv_buf[NREADS * RDLEN], cli_buf[NREADS * RDLEN];
static struct ibv_mr *srv_mr;
static struct ibv_qp_attr srv_qa;
static int srv_ok;

static struct ibv_qp_init_attr qp_attr(void)
{
	struct ibv_qp_init_attr a = {
		.cap = { .max_send_wr = NREADS, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};

	return a;
}

static int query_depths(struct rdma_cm_id *id, struct ibv_qp_attr *qa)
{
	struct ibv_qp_init_attr init;

	memset(qa, 0, sizeof(*qa));
	return ibv_query_qp(id->qp, qa, IBV_QP_MAX_QP_RD_ATOMIC |
			    IBV_QP_MAX_DEST_RD_ATOMIC, &init);
}

static void *server(void *arg)
{
	struct rdma_addrinfo hints = {
		.ai_flags = RAI_PASSIVE,
		.ai_port_space = RDMA_PS_TCP,
	}, *res = NULL;
	struct ibv_qp_init_attr init = qp_attr();
	struct rdma_conn_param param = {
		.responder_resources = 2,
		.initiator_depth = 3,
	};
	struct rdma_cm_id *listen_id = NULL, *id = NULL;
	size_t i;

	(void)arg;
	for (i = 0; i < sizeof(srv_buf); i++)
		srv_buf[i] = (uint8_t)(i * 7 + i / RDLEN);
	if (rdma_getaddrinfo(addr, port, &hints, &res) ||
	    rdma_create_ep(&listen_id, res, NULL, &init) ||
	    rdma_listen(listen_id, 1)) {
		diag("server: listen on %s:%s: %s", addr, port, strerror(errno));
		sem_post(&srv_ready);
		goto out;
	}
	/* The client connects once the server listens. */
	sem_post(&srv_ready);
	if (rdma_get_request(listen_id, &id)) {
		diag("server: rdma_get_request: %s", strerror(errno));
		goto out;
	}
	srv_mr = ibv_reg_mr(id->pd, srv_buf, sizeof(srv_buf),
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!srv_mr || rdma_accept(id, &param)) {
		diag("server: register or accept: %s", strerror(errno));
		sem_post(&srv_accepted);
		goto out;
	}
	srv_ok = !query_depths(id, &srv_qa);
	sem_post(&srv_accepted);
	sem_wait(&cli_done);
	rdma_disconnect(id);
out:
	if (srv_mr)
		ibv_dereg_mr(srv_mr);
	if (id)
		rdma_destroy_ep(id);
	if (listen_id)
		rdma_destroy_ep(listen_id);
	if (res)
		rdma_freeaddrinfo(res);
	return NULL;
}

/* Post NREADS READs of RDLEN bytes at once; 0 when all came back right. */
static int reads(struct rdma_cm_id *id, struct ibv_mr *mr)
{
	struct ibv_wc wc;
	int i, bad = 0;

	for (i = 0; i < NREADS; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)cli_buf + i * RDLEN,
			.length = RDLEN,
			.lkey = mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_READ,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma.remote_addr = (uintptr_t)srv_buf + i * RDLEN,
			.wr.rdma.rkey = srv_mr->rkey,
		}, *badwr;

		if (ibv_post_send(id->qp, &wr, &badwr)) {
			diag("READ %d: ibv_post_send failed", i);
			return -1;
		}
	}
	for (i = 0; i < NREADS; i++) {
		if (rdma_get_send_comp(id, &wc) != 1) {
			diag("READ completion %d: %s", i, strerror(errno));
			return -1;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)i) {
			diag("READ completion %d: wr_id %llu, %s", i,
			     (unsigned long long)wc.wr_id,
			     ibv_wc_status_str(wc.status));
			bad++;
		}
	}
	if (memcmp(cli_buf, srv_buf, sizeof(cli_buf))) {
		diag("the READs brought other bytes than the server's");
		bad++;
	}
	return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP };
	struct rdma_addrinfo *res = NULL;
	struct ibv_qp_init_attr init = qp_attr();
	struct rdma_conn_param param = {
		.responder_resources = 3,
		.initiator_depth = 2,
		.retry_count = 7,
	};
	struct rdma_cm_id *id = NULL;
	struct ibv_qp_attr qa;
	struct ibv_mr *mr = NULL;
	pthread_t srv;
	int connected = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ADDR PORT\n", argv[0]);
		return 2;
	}
	addr = argv[1];
	port = argv[2];
	sem_init(&srv_ready, 0, 0);
	sem_init(&srv_accepted, 0, 0);
	sem_init(&cli_done, 0, 0);
	pthread_create(&srv, NULL, server, NULL);
	sem_wait(&srv_ready);

	if (!rdma_getaddrinfo(addr, port, &hints, &res) &&
	    !rdma_create_ep(&id, res, NULL, &init)) {
		mr = ibv_reg_mr(id->pd, cli_buf, sizeof(cli_buf),
				IBV_ACCESS_LOCAL_WRITE);
		connected = mr && !rdma_connect(id, &param);
	}
	if (!connected)
		diag("client: connect to %s:%s: %s", addr, port, strerror(errno));
	ok(connected, "rdma_connect (initiator_depth 2, responder_resources 3) to a server accepting with responder_resources 2, initiator_depth 3");
	if (!connected)
		/* The server may still wait for a request: leave it. */
		return tap_end();
	sem_wait(&srv_accepted);
	connected = !query_depths(id, &qa);
	ok(connected && qa.max_rd_atomic == 2 && qa.max_dest_rd_atomic == 3,
	   "client QP: max_rd_atomic %u (want 2), max_dest_rd_atomic %u (want 3)",
	   qa.max_rd_atomic, qa.max_dest_rd_atomic);
	ok(srv_ok && srv_qa.max_rd_atomic == 3 && srv_qa.max_dest_rd_atomic == 2,
	   "server QP: max_rd_atomic %u (want 3), max_dest_rd_atomic %u (want 2)",
	   srv_qa.max_rd_atomic, srv_qa.max_dest_rd_atomic);
	ok(!reads(id, mr),
	   "%d RDMA READs of %d bytes posted at once (depth 2) all complete with the server's bytes",
	   NREADS, RDLEN);
	rdma_disconnect(id);
	sem_post(&cli_done);
	pthread_join(srv, NULL);
	if (mr)
		ibv_dereg_mr(mr);
	if (id)
		rdma_destroy_ep(id);
	if (res)
		rdma_freeaddrinfo(res);
	/* The one-device opener of e2e_tap.h is not needed here. */
	(void)tap_start;
	return tap_end();
}
