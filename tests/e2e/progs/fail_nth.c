// SPDX-License-Identifier: GPL-2.0-only
/*
 * fail_nth DEVICE: every kernel fault point on the paths that make and
 * destroy each verbs object, failed one at a time (the kernel's
 * fault-injection "fail-nth": Documentation/fault-injection/).
 *
 * For each operation and N = 1, 2, ...: /proc/thread-self/fail-nth is set
 * to N, the operation runs, and fail-nth read back says whether the
 * thread reached its N-th fault point (it reads 0 then: that allocation
 * failed).  The operation must then fail with an errno, or succeed all
 * the same (a fallback); an object made is destroyed with nothing armed
 * and must go.  The walk of an operation ends at the first N it does not
 * reach.  Destroying is walked the same way: a destroy that fails under
 * a fault must succeed when retried without one.  77-fail-nth.t compares
 * "rdma resource show" before and after, and the harness reads KASAN,
 * lockdep and kmemleak (a scan follows the test).
 *
 * The process locks its memory first, so that the faults land in the
 * kernel's paths for the verbs calls, not in page faults of its own.
 *
 * Needs a kernel with CONFIG_FAULT_INJECTION, FAILSLAB and
 * FAIL_PAGE_ALLOC, with their ignore-gfp-wait off (77-fail-nth.t sets
 * that up).
 *
 * fail_nth DEVICE admin: the same walks over the device's admin
 * commands instead (75-admin-faults.t): orca_soft's fault_admin_nth
 * fails the N-th command from now on with fault_admin_status and no
 * effect, reads 0 once it did, and fault_admin_fired names the opcode.
 * Each step also checks the device's own object counts (the pds, mrs,
 * cqs, qps and srqs of its hw_counters) against where they were before
 * the walk: a failure must leave nothing half-made on the device either.
 * fail_nth DEVICE admin refuse-twice: fn_refused_twice() for each object
 * instead, which leaves objects on the device.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "e2e_tap.h"

#define FN_MAX_STEPS	4000
#define FN_BUF		(4 * 4096)

static int fn_fd = -1;
static int fn_admin;
static char fn_counters[256];
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static void *buf;

#define FN_PARAMS	"/sys/module/orca_soft/parameters/"

/* One line of a small sysfs file, as a number (-1 if unreadable). */
static long fn_read_num(const char *path)
{
	char s[32] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, s, sizeof(s) - 1);
	close(fd);
	return n > 0 ? strtol(s, NULL, 0) : -1;
}

/*
 * ib_core keeps the hw_counters it read for the port's "lifespan" (10 ms
 * by default) and answers from that copy until a jiffy after it: wait
 * 30 ms, at least two jiffies at any HZ, and the next read asks the
 * device (QUERY_STATS, an admin command: only with nothing armed).
 */
static void fn_counters_fresh(void)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/* The device's object counts, as one string. */
static void fn_dev_objects(char *out, size_t len)
{
	static const char *const names[] = { "pds", "mrs", "cqs", "qps", "srqs" };
	size_t i, used = 0;

	fn_counters_fresh();
	out[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[320];

		snprintf(path, sizeof(path), "%s/ports/1/hw_counters/%s",
			 fn_counters, names[i]);
		used += snprintf(out + used, len - used, "%s%s %ld",
				 i ? " " : "", names[i], fn_read_num(path));
		if (used >= len)
			break;
	}
}

/* One of the device's object counters (-1 if unreadable). */
static long fn_dev_count(const char *name)
{
	char path[320];

	snprintf(path, sizeof(path), "%s/ports/1/hw_counters/%s",
		 fn_counters, name);
	fn_counters_fresh();
	return fn_read_num(path);
}

/* The device's objects are what they were before the walk. */
static int fn_dev_same(const char *before, const char *what, unsigned int n)
{
	char now[128];

	fn_dev_objects(now, sizeof(now));
	if (!strcmp(now, before))
		return 1;
	diag("%s, step %u: the device holds %s, before the walk %s",
	     what, n, now, before);
	return 0;
}

/* Arm the N-th fault point of this thread (0 disarms). */
static int fn_arm(unsigned int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%u", n);

	return pwrite(fn_fd, s, len, 0) == len ? 0 : -1;
}

/*
 * After an operation: was the armed point reached (and failed)?  In
 * admin mode, the opcode that failed is added to @ops (a bit each).
 */
struct fn_opset {
	uint64_t bits[4];
};

static int fn_fired_ops(struct fn_opset *ops)
{
	char s[16] = "";
	ssize_t n = pread(fn_fd, s, sizeof(s) - 1, 0);
	int fired = n > 0 && atoi(s) == 0;
	long op;

	fn_arm(0);
	if (fired && fn_admin && ops) {
		op = fn_read_num(FN_PARAMS "fault_admin_fired");
		if (op >= 0 && op < 256)
			ops->bits[op / 64] |= 1ULL << (op % 64);
	}
	return fired;
}

/* The opcodes in @ops, as "0x0a 0x0b". */
static const char *fn_opcodes(const struct fn_opset *ops)
{
	static char bufs[2][128];
	static int turn;
	char *s = bufs[turn++ & 1];
	size_t used = 0;
	int i;

	s[0] = 0;
	for (i = 0; i < 256 && used < sizeof(bufs[0]) - 8; i++)
		if (ops->bits[i / 64] & (1ULL << (i % 64)))
			used += snprintf(s + used, sizeof(bufs[0]) - used, "%s0x%02x",
					 used ? " " : "", i);
	return used ? s : "none";
}

struct fn_op {
	const char *name;
	/* Make the object into *obj: 0, or an errno. */
	int (*make)(void **obj);
	/* Destroy it: 0, or an errno. */
	int (*destroy)(void *obj);
	/* The device's counter of such objects (hw_counters), or NULL. */
	const char *counter;
};

static int make_ctx(void **obj)
{
	*obj = open_by_name(ibv_get_device_name(ctx->device));
	return *obj ? 0 : (errno ? errno : EIO);
}

static int destroy_ctx(void *obj)
{
	return ibv_close_device(obj) ? (errno ? errno : EIO) : 0;
}

static int make_pd(void **obj)
{
	*obj = ibv_alloc_pd(ctx);
	return *obj ? 0 : (errno ? errno : EIO);
}

static int destroy_pd(void *obj)
{
	return ibv_dealloc_pd(obj);
}

static int make_mr(void **obj)
{
	*obj = ibv_reg_mr(pd, buf, FN_BUF, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	return *obj ? 0 : (errno ? errno : EIO);
}

static int destroy_mr(void *obj)
{
	return ibv_dereg_mr(obj);
}

/*
 * ibv_reg_mr, then ibv_rereg_mr to the buffer's second half with other
 * access: the fault points of both, in turn.  After a failed rereg the
 * MR is deregistered all the same (ibv_rereg_mr(3)).
 */
static int make_mr_rereg(void **obj)
{
	int ret = make_mr(obj);

	if (ret)
		return ret;
	errno = 0;
	if (ibv_rereg_mr(*obj, IBV_REREG_MR_CHANGE_TRANSLATION |
			 IBV_REREG_MR_CHANGE_ACCESS, NULL,
			 (char *)buf + FN_BUF / 2, FN_BUF / 2,
			 IBV_ACCESS_LOCAL_WRITE)) {
		ret = errno ? errno : EIO;
		if (ibv_dereg_mr(*obj))
			diag("ibv_dereg_mr after a failed rereg: %s",
			     strerror(errno));
		*obj = NULL;
	}
	return ret;
}

static int make_cq(void **obj)
{
	*obj = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	return *obj ? 0 : (errno ? errno : EIO);
}

static int destroy_cq(void *obj)
{
	return ibv_destroy_cq(obj);
}

static int make_srq(void **obj)
{
	struct ibv_srq_init_attr a = {
		.attr = { .max_wr = 64, .max_sge = 1 },
	};

	*obj = ibv_create_srq(pd, &a);
	return *obj ? 0 : (errno ? errno : EIO);
}

static int destroy_srq(void *obj)
{
	return ibv_destroy_srq(obj);
}

static int make_qp(void **obj, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = type,
		.cap = { .max_send_wr = 32, .max_recv_wr = 32,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};

	*obj = ibv_create_qp(pd, &a);
	return *obj ? 0 : (errno ? errno : EIO);
}

static int make_rc_qp(void **obj)
{
	return make_qp(obj, IBV_QPT_RC);
}

static int make_ud_qp(void **obj)
{
	return make_qp(obj, IBV_QPT_UD);
}

static int destroy_qp(void *obj)
{
	return ibv_destroy_qp(obj);
}

/* A UD QP from RESET to RTS: three MODIFY_QPs. */
static int modify_ud_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = 0x11111111,
	};
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY);
	a.qp_state = IBV_QPS_RTR;
	ret = ret ? : ibv_modify_qp(qp, &a, IBV_QP_STATE);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	return ret ? : ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* A CQ made and then resized: CREATE_CQ, then RESIZE_CQ. */
static int make_cq_resized(void **obj)
{
	struct ibv_cq *c = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	int ret;

	if (!c)
		return errno ? errno : EIO;
	ret = ibv_resize_cq(c, 256);
	if (ret) {
		ibv_destroy_cq(c);
		return ret;
	}
	*obj = c;
	return 0;
}

/* An SRQ made, then armed with a limit: CREATE_SRQ, then MODIFY_SRQ. */
static int make_srq_limited(void **obj)
{
	struct ibv_srq_attr lim = { .srq_limit = 8 };
	struct ibv_srq *srq;
	int ret;

	ret = make_srq((void **)&srq);
	if (ret)
		return ret;
	ret = ibv_modify_srq(srq, &lim, IBV_SRQ_LIMIT);
	if (ret) {
		ibv_destroy_srq(srq);
		return ret;
	}
	*obj = srq;
	return 0;
}

static const union ibv_gid fn_mgid = {
	.raw = { 0xff, 0x0e, [15] = 0x42 },
};

struct fn_mcast {
	struct ibv_qp *qp;
	int attached;
};

/* A UD QP attached to a group: CREATE_QP, ATTACH_MCAST. */
static int make_mcast(void **obj)
{
	struct fn_mcast *m = calloc(1, sizeof(*m));
	int ret;

	if (!m)
		return ENOMEM;
	ret = make_ud_qp((void **)&m->qp);
	if (ret) {
		free(m);
		return ret;
	}
	ret = ibv_attach_mcast(m->qp, &fn_mgid, 0);
	if (ret) {
		ibv_destroy_qp(m->qp);
		free(m);
		return ret;
	}
	m->attached = 1;
	*obj = m;
	return 0;
}

/*
 * DETACH_MCAST, then DESTROY_QP.  ib_core forgets an attachment before
 * the driver detaches it, so a detach is never retried: orca.ko lets
 * one the device refused succeed, and the device must drop the
 * attachment with the QP.
 */
static int destroy_mcast(void *obj)
{
	struct fn_mcast *m = obj;
	int ret;

	if (m->attached) {
		m->attached = 0;
		ret = ibv_detach_mcast(m->qp, &fn_mgid, 0);
		if (ret)
			return ret;
	}
	ret = ibv_destroy_qp(m->qp);
	if (ret)
		return ret;
	free(m);
	return 0;
}

static const struct fn_op ops[] = {
	{ "ibv_open_device", make_ctx, destroy_ctx, NULL },
	{ "ibv_alloc_pd", make_pd, destroy_pd, "pds" },
	{ "ibv_reg_mr", make_mr, destroy_mr, "mrs" },
	{ "ibv_create_cq", make_cq, destroy_cq, "cqs" },
	{ "ibv_create_srq", make_srq, destroy_srq, "srqs" },
	{ "ibv_create_qp (RC)", make_rc_qp, destroy_qp, "qps" },
	{ "ibv_create_qp (UD)", make_ud_qp, destroy_qp, "qps" },
	/* Admin mode only: their kernel allocations are the ones above. */
	{ "ibv_resize_cq", make_cq_resized, destroy_cq, "cqs" },
	{ "ibv_modify_srq (limit)", make_srq_limited, destroy_srq, "srqs" },
	{ "ibv_attach_mcast (UD)", make_mcast, destroy_mcast, "qps" },
};

#define FN_ALLOC_OPS	7

/*
 * Kernel allocations only: in admin mode a refused DEREG_MR of the old
 * MR leaves it to ib_core, which keeps it until the context closes.
 */
static const struct fn_op rereg_op = {
	"ibv_rereg_mr", make_mr_rereg, destroy_mr, "mrs"
};

static int make_mw(void **obj)
{
	*obj = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	return *obj ? 0 : (errno ? errno : EIO);
}

static int destroy_mw(void *obj)
{
	return ibv_dealloc_mw(obj);
}

/*
 * Both modes.  The device counts no windows: one left on it would keep
 * the PD from being deallocated, which main() checks last.
 */
static const struct fn_op mw_op = {
	"ibv_alloc_mw (type 2)", make_mw, destroy_mw, NULL
};

/*
 * XRC: a domain of no file, an XRC SRQ in it, an XRC_RECV QP of it and an
 * XRC_SEND QP.  Destroyed in reverse, each part once: a retry after a
 * refused destroy goes on where the last attempt stopped.
 *
 * Kernel allocations leave the XRC_RECV QP out: Linux 6.1's
 * create_xrc_qp_user() (drivers/infiniband/core/verbs.c) takes a use of
 * the domain before __ib_open_qp() allocates, and gives it back on no
 * failure path, so a fault there leaves a domain that can never be
 * closed (EBUSY, then a WARNING when the file closes).  That is
 * ib_core's, not Orca's; the admin-command walk still makes the QP.
 */
struct fn_xrc {
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	struct ibv_qp *tgt;
	struct ibv_qp *ini;
};

static int destroy_xrc(void *obj)
{
	struct fn_xrc *x = obj;
	int ret;

	if (x->ini) {
		ret = ibv_destroy_qp(x->ini);
		if (ret)
			return ret;
		x->ini = NULL;
	}
	if (x->tgt) {
		ret = ibv_destroy_qp(x->tgt);
		if (ret)
			return ret;
		x->tgt = NULL;
	}
	if (x->srq) {
		ret = ibv_destroy_srq(x->srq);
		if (ret)
			return ret;
		x->srq = NULL;
	}
	if (x->xrcd) {
		ret = ibv_close_xrcd(x->xrcd);
		if (ret)
			return ret;
		x->xrcd = NULL;
	}
	free(x);
	return 0;
}

static int make_xrc(void **obj)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct fn_xrc *x = calloc(1, sizeof(*x));
	int ret;

	if (!x)
		return ENOMEM;
	errno = 0;
	x->xrcd = ibv_open_xrcd(ctx, &xa);
	if (x->xrcd) {
		struct ibv_srq_init_attr_ex sa = {
			.attr = { .max_wr = 64, .max_sge = 1 },
			.comp_mask = IBV_SRQ_INIT_ATTR_TYPE |
				     IBV_SRQ_INIT_ATTR_PD |
				     IBV_SRQ_INIT_ATTR_XRCD |
				     IBV_SRQ_INIT_ATTR_CQ,
			.srq_type = IBV_SRQT_XRC,
			.pd = pd,
			.xrcd = x->xrcd,
			.cq = cq,
		};

		x->srq = ibv_create_srq_ex(ctx, &sa);
	}
	if (x->srq && fn_admin) {
		struct ibv_qp_init_attr_ex ta = {
			.qp_type = IBV_QPT_XRC_RECV,
			.comp_mask = IBV_QP_INIT_ATTR_XRCD,
			.xrcd = x->xrcd,
		};

		x->tgt = ibv_create_qp_ex(ctx, &ta);
	}
	if (fn_admin ? !!x->tgt : !!x->srq) {
		struct ibv_qp_init_attr_ex ia = {
			.qp_type = IBV_QPT_XRC_SEND,
			.comp_mask = IBV_QP_INIT_ATTR_PD,
			.pd = pd,
			.send_cq = cq,
			.cap = { .max_send_wr = 32, .max_send_sge = 2 },
		};

		x->ini = ibv_create_qp_ex(ctx, &ia);
	}
	if (x->ini) {
		*obj = x;
		return 0;
	}
	ret = errno ? errno : EIO;
	/* The fault fired once: undoing what was made meets none. */
	if (destroy_xrc(x))
		diag("xrc: cleaning up after a failed make: %s",
		     strerror(errno));
	return ret;
}

/* Both modes: every XRC object, kernel allocations and commands alike. */
static const struct fn_op xrc_op = {
	"ibv_open_xrcd, XRC SRQ, XRC_SEND QP (and XRC_RECV QP: admin mode)",
	make_xrc,
	destroy_xrc, "qps"
};

/* Device memory with a region on it; freed in reverse, each part once. */
struct fn_dm {
	struct ibv_dm *dm;
	struct ibv_mr *mr;
};

static int destroy_dm(void *obj)
{
	struct fn_dm *d = obj;
	int ret;

	if (d->mr) {
		ret = ibv_dereg_mr(d->mr);
		if (ret)
			return ret;
		d->mr = NULL;
	}
	if (d->dm) {
		ret = ibv_free_dm(d->dm);
		if (ret)
			return ret;
		d->dm = NULL;
	}
	free(d);
	return 0;
}

static int make_dm(void **obj)
{
	struct ibv_alloc_dm_attr da = { .length = 8192 };
	struct fn_dm *d = calloc(1, sizeof(*d));
	int ret;

	if (!d)
		return ENOMEM;
	errno = 0;
	d->dm = ibv_alloc_dm(ctx, &da);
	if (d->dm)
		d->mr = ibv_reg_dm_mr(pd, d->dm, 0, 4096,
				      IBV_ACCESS_ZERO_BASED |
				      IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_WRITE);
	if (d->mr) {
		*obj = d;
		return 0;
	}
	ret = errno ? errno : EIO;
	if (destroy_dm(d))
		diag("dm: cleaning up after a failed make: %s",
		     strerror(errno));
	return ret;
}

/* Both modes: the allocation, its mapping and the region on it. */
static const struct fn_op dm_op = {
	"ibv_alloc_dm, ibv_reg_dm_mr", make_dm, destroy_dm, "mrs"
};

/*
 * Walk the fault points of making one object, then of destroying one.
 * Returns 0 if every step ended cleanly.
 */
static int fn_walk(const struct fn_op *op)
{
	unsigned int n, made_ok = 0, failed = 0, dn, dfail = 0;
	struct fn_opset mops = {}, dops = {};
	char dev0[128];
	int bad = 0;

	fn_dev_objects(dev0, sizeof(dev0));

	for (n = 1; n <= FN_MAX_STEPS; n++) {
		void *obj = NULL;
		int ret, fired;

		errno = 0;
		if (fn_arm(n)) {
			diag("%s: cannot arm fail-nth %u", op->name, n);
			return -1;
		}
		ret = op->make(&obj);
		fired = fn_fired_ops(&mops);
		if (ret) {
			if (!fired) {
				diag("%s: failed with %s, and not at fault point %u",
				     op->name, strerror(ret), n);
				bad = 1;
				break;
			}
			failed++;
			if (!fn_dev_same(dev0, op->name, n))
				bad = 1;
			continue;
		}
		if (fired)
			made_ok++;
		ret = op->destroy(obj);
		if (ret) {
			diag("%s: the object made at step %u would not go: %s",
			     op->name, n, strerror(ret));
			bad = 1;
		}
		if (!fn_dev_same(dev0, op->name, n))
			bad = 1;
		if (!fired)
			break;
	}
	if (n > FN_MAX_STEPS) {
		diag("%s: more than %u fault points", op->name, FN_MAX_STEPS);
		bad = 1;
	}

	/* The destroy path: make with nothing armed, destroy under a fault. */
	for (dn = 1; dn <= FN_MAX_STEPS; dn++) {
		void *obj = NULL;
		int ret, fired;

		if (op->make(&obj)) {
			diag("%s: cannot make one with no fault armed", op->name);
			return -1;
		}
		fn_arm(dn);
		ret = op->destroy(obj);
		fired = fn_fired_ops(&dops);
		if (ret) {
			dfail++;
			if (!fired) {
				diag("%s: destroy failed with %s and no fault armed",
				     op->name, strerror(ret));
				bad = 1;
			}
			ret = op->destroy(obj);
			if (ret) {
				diag("%s: destroy failed under fault %u, and again without: %s",
				     op->name, dn, strerror(ret));
				bad = 1;
				break;
			}
		}
		if (!fn_dev_same(dev0, op->name, dn))
			bad = 1;
		if (!fired)
			break;
	}
	if (fn_admin)
		ok(!bad,
		   "%s: %u admin commands (opcodes %s) failed in turn: %u made it fail with an errno, %u were survived; destroying: %u commands (%s), %u failed and the retry succeeded; nothing left on the host or the device",
		   op->name, n - 1, fn_opcodes(&mops), failed, made_ok,
		   dn - 1, fn_opcodes(&dops), dfail);
	else
		ok(!bad,
		   "%s: %u fault points made it fail with an errno, %u were survived; destroying: %u fault points, %u failed and the retry succeeded; nothing left",
		   op->name, failed, made_ok, dn - 1, dfail);
	return bad ? -1 : 0;
}

/*
 * Admin mode, last: a device that refuses an object's destroy twice.
 * The first refusal fails the call with the device's errno; the second
 * succeeds toward ib_core (orca.ko must not let ib_core give up on an
 * object it still tracks), and the object stays on the device, counted,
 * until the driver disables it (75-admin-faults.t reloads orca.ko
 * before its last leak check).
 */
static void fn_refused_twice(const struct fn_op *op)
{
	long before, after;
	void *obj = NULL;
	int r1, r2, f1, f2;

	before = fn_dev_count(op->counter);
	if (op->make(&obj)) {
		ok(0, "%s: refused twice: cannot make one", op->name);
		return;
	}
	fn_arm(1);
	r1 = op->destroy(obj);
	f1 = fn_fired_ops(NULL);
	fn_arm(1);
	r2 = f1 && r1 ? op->destroy(obj) : -1;
	f2 = fn_fired_ops(NULL);
	after = fn_dev_count(op->counter);
	if (!r1)
		diag("%s: the first refused destroy succeeded", op->name);
	ok(f1 && r1 && f2 && !r2 && after == before + 1,
	   "%s: the device refuses its destroy twice: the first fails with %s, the second succeeds, and the device keeps the object (%s %ld, was %ld)",
	   op->name, r1 ? strerror(r1) : "no error", op->counter, after,
	   before);
}

/* MODIFY_QP RESET -> RTS under each fault point; the QP always goes. */
static void fn_walk_modify(void)
{
	unsigned int n, failed = 0;
	struct fn_opset mops = {};
	char dev0[128];
	int bad = 0;

	fn_dev_objects(dev0, sizeof(dev0));

	for (n = 1; n <= FN_MAX_STEPS; n++) {
		void *obj;
		int ret, fired;

		if (make_ud_qp(&obj)) {
			diag("modify: cannot create a UD QP");
			bad = 1;
			break;
		}
		fn_arm(n);
		ret = modify_ud_rts(obj);
		fired = fn_fired_ops(&mops);
		if (ret) {
			failed++;
			if (!fired) {
				diag("modify: failed with %s and no fault armed",
				     strerror(ret));
				bad = 1;
			}
		}
		if (destroy_qp(obj)) {
			diag("modify: the QP would not go after step %u", n);
			bad = 1;
		}
		if (!fn_dev_same(dev0, "modify", n))
			bad = 1;
		if (!fired || bad)
			break;
	}
	if (fn_admin)
		ok(!bad, "ibv_modify_qp (UD, RESET to RTS): %u of %u admin commands (opcodes %s) made it fail with an errno; the QP always destroyed",
		   failed, n - 1, fn_opcodes(&mops));
	else
		ok(!bad, "ibv_modify_qp (UD, RESET to RTS): %u of %u fault points made it fail with an errno; the QP always destroyed",
		   failed, n - 1);
}

/*
 * Grow the stack before mlockall(): a later page fault to grow it could
 * meet an armed fault point and fail the process instead of a call.
 */
static void __attribute__((noinline)) fn_grow_stack(void)
{
	volatile char pad[256 * 1024];

	memset((char *)pad, 0, sizeof(pad));
}

int main(int argc, char **argv)
{
	size_t i;

	ctx = tap_start(argc, argv);
	fn_admin = argc > 2 && !strcmp(argv[2], "admin");
	snprintf(fn_counters, sizeof(fn_counters), "/sys/class/infiniband/%s",
		 argv[1]);
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	buf = aligned_alloc(4096, FN_BUF);
	if (!ok(pd && cq && buf, "a PD, a CQ and a buffer for the objects"))
		return tap_end();
	memset(buf, 0, FN_BUF);
	if (fn_admin) {
		fn_fd = open(FN_PARAMS "fault_admin_nth", O_RDWR);
		if (!ok(fn_fd >= 0, "orca_soft's fault_admin_nth opens"))
			return tap_end();
	} else {
		fn_grow_stack();
		if (!ok(!mlockall(MCL_CURRENT | MCL_FUTURE),
			"mlockall: no page fault of the process meets a fault point"))
			return tap_end();
		fn_fd = open("/proc/thread-self/fail-nth", O_RDWR);
		if (!ok(fn_fd >= 0, "/proc/thread-self/fail-nth opens (a kernel with fault injection)"))
			return tap_end();
	}

	if (fn_admin && argc > 3 && !strcmp(argv[3], "refuse-twice")) {
		/* Leaves objects on the device: on its own. */
		for (i = 1; i < FN_ALLOC_OPS; i++)
			fn_refused_twice(&ops[i]);
	} else {
		for (i = 0; i < (fn_admin ? sizeof(ops) / sizeof(ops[0]) :
				 FN_ALLOC_OPS); i++)
			fn_walk(&ops[i]);
		if (!fn_admin)
			fn_walk(&rereg_op);
		fn_walk(&mw_op);
		fn_walk(&xrc_op);
		fn_walk(&dm_op);
		fn_walk_modify();
	}

	close(fn_fd);
	ibv_destroy_cq(cq);
	if (!(fn_admin && argc > 3 && !strcmp(argv[3], "refuse-twice")))
		ok(!ibv_dealloc_pd(pd),
		   "the PD deallocates: no window or other object of it is left on the device");
	else
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	return tap_end();
}
