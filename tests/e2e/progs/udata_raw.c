// SPDX-License-Identifier: GPL-2.0-only
/*
 * udata violations driven by raw uverbs write() commands, without
 * libibverbs or liborca in the way: for ALLOC_UCONTEXT (GET_CONTEXT),
 * ALLOC_PD, CREATE_CQ, CREATE_QP and CREATE_SRQ, a short driver request,
 * a non-zero reserved field, an unknown comp_mask, non-zero bytes past
 * the known request and a response buffer that is too short are each
 * rejected with EINVAL, and the well-formed command works (for the queue
 * commands, also an older provider's 8-byte request); ALLOC_MW and
 * OPEN_XRCD, which have no driver data, take zeroed input only.  Rings
 * in the process's memory (ORCA_QUEUE_REQ_USER_BUF, when GET_CONTEXT
 * offers ORCA_UCTX_RESP_USER_BUF): a CQ, QP, SRQ and a CQ resize with a
 * well-formed buffer work, with the doorbell page alone to map; the flag
 * in a request shorter than the whole struct, buffer fields without the
 * flag, an unaligned address, a length other than the rings' or 0 are
 * EINVAL; an unmapped or read-only buffer EFAULT.
 * Prints TAP.  Usage: udata_raw DEVICE
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>
#include "../../../uapi/rdma/orca-abi.h"

static int tap_num, tap_failed;

__attribute__((format(printf, 2, 3)))
static int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_num++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		tap_failed++;
	return cond;
}

static char dev_path[300];

/* /dev/infiniband/uverbsN of DEVICE, from sysfs. */
static int find_uverbs(const char *name)
{
	char dir[256];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir),
		 "/sys/class/infiniband/%s/device/infiniband_verbs", name);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "uverbs", 6)) {
			snprintf(dev_path, sizeof(dev_path),
				 "/dev/infiniband/%s", de->d_name);
			break;
		}
	closedir(d);
	return dev_path[0] ? 0 : -1;
}

/*
 * One legacy write() command: header, the core request @core (whose
 * first u64 is set to @resp), then @drv_len bytes of driver request.
 * @out_len is the whole response buffer: core response + driver part.
 * Returns 0 or the errno.
 */
static int cmd(int fd, uint32_t op, void *core, size_t core_len,
	       const void *drv, size_t drv_len, void *resp, size_t out_len)
{
	unsigned char buf[512];
	struct ib_uverbs_cmd_hdr hdr;
	uint64_t rp = (uintptr_t)resp;
	size_t len = sizeof(hdr) + core_len + drv_len;

	if (len > sizeof(buf) || len % 4 || out_len % 4)
		return E2BIG;
	hdr.command = op;
	hdr.in_words = len / 4;
	hdr.out_words = out_len / 4;
	memcpy(core, &rp, sizeof(rp));
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), core, core_len);
	memcpy(buf + sizeof(hdr) + core_len, drv, drv_len);
	if (write(fd, buf, len) != (ssize_t)len)
		return errno ? errno : EIO;
	return 0;
}

/* One extended write() command (ib_uverbs_ex_cmd_hdr). */
static int cmd_ex(int fd, uint32_t op, void *core, size_t core_len,
		  const void *drv, size_t drv_len, void *resp,
		  size_t core_out, size_t drv_out)
{
	unsigned char buf[512];
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex;
	size_t len = sizeof(hdr) + sizeof(ex) + core_len + drv_len;

	if (len > sizeof(buf) || core_len % 8 || drv_len % 8 ||
	    core_out % 8 || drv_out % 8)
		return E2BIG;
	hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | op;
	hdr.in_words = core_len / 8;
	hdr.out_words = core_out / 8;
	memset(&ex, 0, sizeof(ex));
	ex.response = (uintptr_t)resp;
	ex.provider_in_words = drv_len / 8;
	ex.provider_out_words = drv_out / 8;
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), &ex, sizeof(ex));
	memcpy(buf + sizeof(hdr) + sizeof(ex), core, core_len);
	memcpy(buf + sizeof(hdr) + sizeof(ex) + core_len, drv, drv_len);
	if (write(fd, buf, len) != (ssize_t)len)
		return errno ? errno : EIO;
	return 0;
}

static int want(int got, int expected, const char *what)
{
	if (got != expected)
		printf("# %s: got %s (%d), want %s\n", what,
		       got ? strerror(got) : "success", got,
		       expected ? strerror(expected) : "success");
	return got == expected;
}

/* A driver request of up to 32 bytes plus its length. */
struct drv {
	uint32_t w[8];
	size_t len;
};

/* The violations every driver request must be rejected for. */
enum { V_OK, V_OLD, V_SHORT, V_EMPTY, V_RESERVED, V_COMP_MASK,
       V_COMP_MASK_HI, V_TAIL_DIRTY, V_TAIL_ZERO, V_NR };

static const char *const v_name[] = {
	[V_OK] = "a well-formed request",
	[V_OLD] = "an 8-byte request { comp_mask, reserved } (an older provider's)",
	[V_SHORT] = "a short driver request (4 of 8 bytes)",
	[V_EMPTY] = "no driver request at all",
	[V_RESERVED] = "a non-zero reserved field",
	[V_COMP_MASK] = "an unknown comp_mask bit (0x2)",
	[V_COMP_MASK_HI] = "an unknown comp_mask bit (0x80000000)",
	[V_TAIL_DIRTY] = "non-zero bytes past the known request",
	[V_TAIL_ZERO] = "zeroed bytes past the known request",
};

static int v_accepted(int v)
{
	return v == V_OK || v == V_OLD || v == V_TAIL_ZERO;
}

/*
 * ALLOC_UCONTEXT's request is { comp_mask; reserved; }; the queue
 * commands' (@queue) add buf_addr and buf_len, 24 bytes.
 */
static struct drv make_req_of(int v, int queue)
{
	size_t whole = queue ? sizeof(struct orca_create_cq_req) : 8;
	struct drv d;

	memset(&d, 0, sizeof(d));
	d.len = whole;
	switch (v) {
	case V_OLD:
		d.len = 8;
		break;
	case V_SHORT:
		d.len = 4;
		break;
	case V_EMPTY:
		d.len = 0;
		break;
	case V_RESERVED:
		d.w[1] = 1;
		break;
	case V_COMP_MASK:
		d.w[0] = 2;
		break;
	case V_COMP_MASK_HI:
		d.w[0] = 0x80000000U;
		break;
	case V_TAIL_DIRTY:
		d.len = whole + 8;
		d.w[whole / 4 + 1] = 0x1000;
		break;
	case V_TAIL_ZERO:
		d.len = whole + 8;
		break;
	}
	return d;
}

static struct drv make_req(int v)
{
	return make_req_of(v, 0);
}

static struct drv make_qreq(int v)
{
	return make_req_of(v, 1);
}

/*
 * A queue request naming a ring buffer: comp_mask @mask, @addr, @len,
 * in the first @bytes bytes of the struct.
 */
static struct drv ubuf_req(uint32_t mask, const void *addr, uint64_t len,
			   size_t bytes)
{
	struct orca_create_cq_req r = {
		.comp_mask = mask,
		.buf_addr = (uintptr_t)addr,
		.buf_len = len,
	};
	struct drv d;

	memset(&d, 0, sizeof(d));
	memcpy(d.w, &r, sizeof(r));
	d.len = bytes;
	return d;
}

static int open_dev(void)
{
	int fd = open(dev_path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		printf("# open %s: %s\n", dev_path, strerror(errno));
	return fd;
}

/* GET_CONTEXT with a driver request and a driver response of @drv_out. */
static int get_context(int fd, const struct drv *d, size_t drv_out,
		       struct orca_alloc_ucontext_resp *out)
{
	struct {
		struct ib_uverbs_get_context_resp core;
		struct orca_alloc_ucontext_resp drv;
	} resp;
	struct ib_uverbs_get_context c;
	int ret;

	memset(&resp, 0, sizeof(resp));
	memset(&c, 0, sizeof(c));
	ret = cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &c, sizeof(c), d->w,
		  d->len, &resp, sizeof(resp.core) + drv_out);
	if (!ret) {
		close(resp.core.async_fd);
		if (out)
			*out = resp.drv;
	}
	return ret;
}

/* A fresh fd with a user context, or -1. */
static int open_ctx(void)
{
	struct drv d = make_req(V_OK);
	int fd = open_dev();

	if (fd >= 0 && get_context(fd, &d, sizeof(struct orca_alloc_ucontext_resp),
				   NULL)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void test_get_context(void)
{
	struct orca_alloc_ucontext_resp r;
	struct drv d;
	int v, fd, ret;

	for (v = 0; v < V_NR; v++) {
		fd = open_dev();
		d = make_req(v);
		memset(&r, 0xff, sizeof(r));
		ret = get_context(fd, &d, sizeof(r), &r);
		if (v_accepted(v))
			ok(want(ret, 0, v_name[v]) &&
			   !(r.comp_mask & ~(ORCA_UCTX_RESP_USER_BUF |
					     ORCA_UCTX_RESP_QP_KICK)) &&
			   (r.comp_mask & ORCA_UCTX_RESP_QP_KICK) &&
			   r.abi_version == ORCA_UVERBS_ABI_VERSION &&
			   r.reserved == 0,
			   "GET_CONTEXT with %s: accepted, abi_version %u, comp_mask 0x%x (defined bits only, QP_KICK among them)",
			   v_name[v], r.abi_version, r.comp_mask);
		else
			ok(want(ret, EINVAL, v_name[v]),
			   "GET_CONTEXT with %s fails with EINVAL", v_name[v]);
		if (v == V_RESERVED) {
			/* A failed GET_CONTEXT leaves the fd usable. */
			d = make_req(V_OK);
			ret = get_context(fd, &d, sizeof(r), &r);
			ok(want(ret, 0, "retry"),
			   "GET_CONTEXT retried well-formed on the same fd succeeds");
		}
		close(fd);
	}

	fd = open_dev();
	d = make_req(V_OK);
	ret = get_context(fd, &d, sizeof(r) - 8, NULL);
	ok(want(ret, EINVAL, "short response"),
	   "GET_CONTEXT with a driver response buffer of 8 of 16 bytes fails with EINVAL");
	ret = get_context(fd, &d, 0, NULL);
	ok(want(ret, EINVAL, "no response"),
	   "GET_CONTEXT with no room for the driver response fails with EINVAL");
	close(fd);
}

static int alloc_pd(int fd, const void *drv, size_t drv_len, size_t drv_out,
		    uint32_t *handle, uint32_t *pdn)
{
	struct {
		struct ib_uverbs_alloc_pd_resp core;
		struct orca_alloc_pd_resp drv;
	} __attribute__((packed)) resp;
	struct ib_uverbs_alloc_pd c;
	int ret;

	memset(&resp, 0, sizeof(resp));
	memset(&c, 0, sizeof(c));
	ret = cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &c, sizeof(c), drv, drv_len,
		  &resp, sizeof(resp.core) + drv_out);
	if (!ret) {
		if (handle)
			*handle = resp.core.pd_handle;
		if (pdn)
			*pdn = resp.drv.pdn;
	}
	return ret;
}

static void test_alloc_pd(int fd)
{
	uint32_t junk[4] = { 0, 0, 0, 0 };
	uint32_t pdn = 0;
	int ret;

	ret = alloc_pd(fd, NULL, 0, sizeof(struct orca_alloc_pd_resp), NULL,
		       &pdn);
	ok(want(ret, 0, "alloc_pd") && pdn != 0,
	   "ALLOC_PD without driver input: accepted, pdn %u", pdn);
	ret = alloc_pd(fd, junk, sizeof(junk), sizeof(struct orca_alloc_pd_resp),
		       NULL, NULL);
	ok(want(ret, 0, "alloc_pd zeroed input"),
	   "ALLOC_PD with 16 zeroed bytes of driver input: accepted");
	junk[2] = 7;
	ret = alloc_pd(fd, junk, sizeof(junk), sizeof(struct orca_alloc_pd_resp),
		       NULL, NULL);
	ok(want(ret, EINVAL, "alloc_pd junk input"),
	   "ALLOC_PD with non-zero driver input fails with EINVAL");
	ret = alloc_pd(fd, NULL, 0, 4, NULL, NULL);
	ok(want(ret, EINVAL, "alloc_pd short resp"),
	   "ALLOC_PD with a driver response buffer of 4 of 8 bytes fails with EINVAL");
}

/* CREATE_CQ (legacy) of @cqe entries; the response goes to @r. */
/* mw_type of ALLOC_MW: the kernel's IB_MW_TYPE_1 and _2. */
#define UR_MW_TYPE_1	1
#define UR_MW_TYPE_2	2

/* ALLOC_MW: no driver data either way. */
static int alloc_mw(int fd, uint32_t pd, uint32_t type, const void *drv,
		    size_t drv_len, uint32_t *handle, uint32_t *rkey)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ib_uverbs_alloc_mw c;
	int ret;

	memset(&resp, 0, sizeof(resp));
	memset(&c, 0, sizeof(c));
	c.pd_handle = pd;
	c.mw_type = type;
	ret = cmd(fd, IB_USER_VERBS_CMD_ALLOC_MW, &c, sizeof(c), drv, drv_len,
		  &resp, sizeof(resp));
	if (!ret) {
		if (handle)
			*handle = resp.mw_handle;
		if (rkey)
			*rkey = resp.rkey;
	}
	return ret;
}

static int dealloc_mw(int fd, uint32_t handle)
{
	struct ib_uverbs_dealloc_mw c = { .mw_handle = handle };
	unsigned char buf[sizeof(struct ib_uverbs_cmd_hdr) + sizeof(c)];
	struct ib_uverbs_cmd_hdr hdr = {
		.command = IB_USER_VERBS_CMD_DEALLOC_MW,
		.in_words = sizeof(buf) / 4,
	};

	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), &c, sizeof(c));
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		return errno ? errno : EIO;
	return 0;
}

static void test_alloc_mw(int fd, uint32_t pd)
{
	uint32_t junk[4] = { 0, 0, 0, 0 };
	uint32_t h = 0, rkey = 0;
	int ret;

	ret = alloc_mw(fd, pd, UR_MW_TYPE_2, NULL, 0, &h, &rkey);
	ok(want(ret, 0, "alloc_mw") && rkey != 0 &&
	   want(dealloc_mw(fd, h), 0, "dealloc_mw"),
	   "ALLOC_MW (type 2) without driver input: accepted, rkey 0x%x; DEALLOC_MW",
	   rkey);
	ret = alloc_mw(fd, pd, UR_MW_TYPE_1, junk, sizeof(junk), &h, NULL);
	ok(want(ret, 0, "alloc_mw zeroed input") &&
	   want(dealloc_mw(fd, h), 0, "dealloc_mw"),
	   "ALLOC_MW (type 1) with 16 zeroed bytes of driver input: accepted; DEALLOC_MW");
	junk[1] = 3;
	ret = alloc_mw(fd, pd, UR_MW_TYPE_2, junk, sizeof(junk), NULL, NULL);
	ok(want(ret, EINVAL, "alloc_mw junk input"),
	   "ALLOC_MW with non-zero driver input fails with EINVAL");
	ret = alloc_mw(fd, pd, 3, NULL, 0, NULL, NULL);
	ok(want(ret, EINVAL, "alloc_mw type 3"),
	   "ALLOC_MW of type 3 fails with EINVAL");
}

/* OPEN_XRCD of a domain no file names (fd -1): no driver data either. */
static int open_xrcd(int fd, const void *drv, size_t drv_len,
		     uint32_t *handle)
{
	struct ib_uverbs_open_xrcd_resp resp;
	struct ib_uverbs_open_xrcd c;
	int ret;

	memset(&resp, 0, sizeof(resp));
	memset(&c, 0, sizeof(c));
	c.fd = (uint32_t)-1;
	ret = cmd(fd, IB_USER_VERBS_CMD_OPEN_XRCD, &c, sizeof(c), drv, drv_len,
		  &resp, sizeof(resp));
	if (!ret && handle)
		*handle = resp.xrcd_handle;
	return ret;
}

static int close_xrcd(int fd, uint32_t handle)
{
	struct ib_uverbs_close_xrcd c = { .xrcd_handle = handle };
	unsigned char buf[sizeof(struct ib_uverbs_cmd_hdr) + sizeof(c)];
	struct ib_uverbs_cmd_hdr hdr = {
		.command = IB_USER_VERBS_CMD_CLOSE_XRCD,
		.in_words = sizeof(buf) / 4,
	};

	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), &c, sizeof(c));
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		return errno ? errno : EIO;
	return 0;
}

static void test_open_xrcd(int fd)
{
	uint32_t junk[4] = { 0, 0, 0, 0 };
	uint32_t h = 0;
	int ret;

	ret = open_xrcd(fd, NULL, 0, &h);
	ok(want(ret, 0, "open_xrcd") &&
	   want(close_xrcd(fd, h), 0, "close_xrcd"),
	   "OPEN_XRCD without driver input: accepted; CLOSE_XRCD");
	ret = open_xrcd(fd, junk, sizeof(junk), &h);
	ok(want(ret, 0, "open_xrcd zeroed input") &&
	   want(close_xrcd(fd, h), 0, "close_xrcd"),
	   "OPEN_XRCD with 16 zeroed bytes of driver input: accepted; CLOSE_XRCD");
	junk[3] = 1;
	ret = open_xrcd(fd, junk, sizeof(junk), NULL);
	ok(want(ret, EINVAL, "open_xrcd junk input"),
	   "OPEN_XRCD with non-zero driver input fails with EINVAL");
}

static int create_cq(int fd, const struct drv *d, size_t drv_out,
		     uint32_t cqe, uint32_t *handle,
		     struct orca_create_cq_resp *r)
{
	struct {
		struct ib_uverbs_create_cq_resp core;
		struct orca_create_cq_resp drv;
	} resp;
	struct ib_uverbs_create_cq c;
	int ret;

	memset(&resp, 0, sizeof(resp));
	memset(&c, 0, sizeof(c));
	c.cqe = cqe;
	c.comp_channel = -1;
	ret = cmd(fd, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c), d->w, d->len,
		  &resp, sizeof(resp.core) + drv_out);
	if (!ret) {
		if (handle)
			*handle = resp.core.cq_handle;
		if (r)
			*r = resp.drv;
	}
	return ret;
}

static void test_create_cq(int fd)
{
	struct orca_create_cq_resp r;
	struct drv d;
	void *map;
	int v, ret;

	for (v = 0; v < V_NR; v++) {
		d = make_qreq(v);
		memset(&r, 0, sizeof(r));
		ret = create_cq(fd, &d, sizeof(r), 10, NULL, &r);
		if (v_accepted(v))
			ok(want(ret, 0, v_name[v]) && r.cqn && r.comp_mask == 0 &&
			   r.cqe_count >= 10 && r.cqe_size == ORCA_CQE_SIZE &&
			   r.mmap_len && r.db_offset + ORCA_DB_RECORD_SIZE <= r.mmap_len,
			   "CREATE_CQ with %s: accepted, cqn %u, %u entries of %u B, mmap %u B, doorbell at %u",
			   v_name[v], r.cqn, r.cqe_count, r.cqe_size, r.mmap_len,
			   r.db_offset);
		else
			ok(want(ret, EINVAL, v_name[v]),
			   "CREATE_CQ with %s fails with EINVAL", v_name[v]);
		if (v != V_OK)
			continue;

		/* The rings come only through the mmap key of the response. */
		map = mmap(NULL, r.mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, r.mmap_key);
		ok(map != MAP_FAILED, "mmap of the CQ with its mmap_key (0x%llx)",
		   (unsigned long long)r.mmap_key);
		if (map != MAP_FAILED)
			munmap(map, r.mmap_len);
		map = mmap(NULL, r.mmap_len + 4096, PROT_READ | PROT_WRITE,
			   MAP_SHARED, fd, r.mmap_key);
		ok(map == MAP_FAILED, "mmap one page longer than mmap_len fails");
		if (map != MAP_FAILED)
			munmap(map, r.mmap_len + 4096);
		map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			   r.mmap_key + (1ULL << 32));
		ok(map == MAP_FAILED, "mmap with a key that was never handed out fails");
		if (map != MAP_FAILED)
			munmap(map, 4096);
	}
	d = make_qreq(V_OK);
	ret = create_cq(fd, &d, sizeof(r) - 8, 10, NULL, NULL);
	ok(want(ret, EINVAL, "cq short resp"),
	   "CREATE_CQ with a driver response buffer 8 bytes short fails with EINVAL");
	ret = create_cq(fd, &d, 0, 10, NULL, NULL);
	ok(want(ret, EINVAL, "cq no resp"),
	   "CREATE_CQ with no room for the driver response fails with EINVAL");

	/* The extended command carries the same driver request. */
	{
		struct {
			struct ib_uverbs_ex_create_cq_resp core;
			struct orca_create_cq_resp drv;
		} resp;
		struct ib_uverbs_ex_create_cq c;

		memset(&c, 0, sizeof(c));
		c.cqe = 10;
		c.comp_channel = -1;
		d = make_qreq(V_OK);
		ret = cmd_ex(fd, IB_USER_VERBS_EX_CMD_CREATE_CQ, &c, sizeof(c),
			     d.w, d.len, &resp, sizeof(resp.core),
			     sizeof(resp.drv));
		ok(want(ret, 0, "ex create_cq"),
		   "EX_CREATE_CQ with a well-formed driver request: accepted");
		d = make_qreq(V_OLD);
		ret = cmd_ex(fd, IB_USER_VERBS_EX_CMD_CREATE_CQ, &c, sizeof(c),
			     d.w, d.len, &resp, sizeof(resp.core),
			     sizeof(resp.drv));
		ok(want(ret, 0, "ex create_cq 8 bytes"),
		   "EX_CREATE_CQ with an older provider's 8-byte request: accepted");
		d = make_qreq(V_COMP_MASK);
		ret = cmd_ex(fd, IB_USER_VERBS_EX_CMD_CREATE_CQ, &c, sizeof(c),
			     d.w, d.len, &resp, sizeof(resp.core),
			     sizeof(resp.drv));
		ok(want(ret, EINVAL, "ex create_cq comp_mask"),
		   "EX_CREATE_CQ with an unknown comp_mask fails with EINVAL");
		d = make_qreq(V_RESERVED);
		ret = cmd_ex(fd, IB_USER_VERBS_EX_CMD_CREATE_CQ, &c, sizeof(c),
			     d.w, d.len, &resp, sizeof(resp.core),
			     sizeof(resp.drv));
		ok(want(ret, EINVAL, "ex create_cq reserved"),
		   "EX_CREATE_CQ with a non-zero reserved field fails with EINVAL");
		d = make_qreq(V_OK);
		ret = cmd_ex(fd, IB_USER_VERBS_EX_CMD_CREATE_CQ, &c, sizeof(c),
			     d.w, d.len, &resp, sizeof(resp.core), 0);
		ok(want(ret, EINVAL, "ex create_cq no resp"),
		   "EX_CREATE_CQ with no room for the driver response fails with EINVAL");
	}
}

static int create_qp(int fd, const struct drv *d, size_t drv_out,
		     uint32_t pd, uint32_t cq, int srq, uint32_t srq_handle,
		     struct orca_create_qp_resp *r)
{
	struct {
		struct ib_uverbs_create_qp_resp core;
		struct orca_create_qp_resp drv;
	} resp;
	struct ib_uverbs_create_qp c;
	int ret;

	memset(&resp, 0, sizeof(resp));
	memset(&c, 0, sizeof(c));
	c.pd_handle = pd;
	c.send_cq_handle = cq;
	c.recv_cq_handle = cq;
	c.srq_handle = srq_handle;
	c.is_srq = srq;
	c.max_send_wr = 8;
	c.max_recv_wr = srq ? 0 : 8;
	c.max_send_sge = 1;
	c.max_recv_sge = srq ? 0 : 1;
	c.qp_type = 2;	/* IB_QPT_RC */
	ret = cmd(fd, IB_USER_VERBS_CMD_CREATE_QP, &c, sizeof(c), d->w, d->len,
		  &resp, sizeof(resp.core) + drv_out);
	if (!ret && r)
		*r = resp.drv;
	return ret;
}

static int pow2(uint32_t x)
{
	return x && !(x & (x - 1));
}

static void test_create_qp(int fd, uint32_t pd, uint32_t cq, uint32_t srq)
{
	struct orca_create_qp_resp r;
	struct drv d;
	int v, ret;

	for (v = 0; v < V_NR; v++) {
		d = make_qreq(v);
		memset(&r, 0, sizeof(r));
		ret = create_qp(fd, &d, sizeof(r), pd, cq, 0, 0, &r);
		if (v_accepted(v))
			ok(want(ret, 0, v_name[v]) && r.qpn >= 2 &&
			   r.comp_mask == 0 && r.reserved == 0 &&
			   r.sq_depth >= 8 && pow2(r.sq_depth) &&
			   pow2(r.sq_stride) && r.rq_depth >= 8 &&
			   pow2(r.rq_depth) && pow2(r.rq_stride) &&
			   r.mmap_len && r.db_offset + 128 <= r.mmap_len,
			   "CREATE_QP with %s: accepted, qpn %u, SQ %u x %u B, RQ %u x %u B, mmap %u B",
			   v_name[v], r.qpn, r.sq_depth, r.sq_stride, r.rq_depth,
			   r.rq_stride, r.mmap_len);
		else
			ok(want(ret, EINVAL, v_name[v]),
			   "CREATE_QP with %s fails with EINVAL", v_name[v]);
	}
	d = make_qreq(V_OK);
	ret = create_qp(fd, &d, sizeof(r) - 8, pd, cq, 0, 0, NULL);
	ok(want(ret, EINVAL, "qp short resp"),
	   "CREATE_QP with a driver response buffer 8 bytes short fails with EINVAL");
	ret = create_qp(fd, &d, 0, pd, cq, 0, 0, NULL);
	ok(want(ret, EINVAL, "qp no resp"),
	   "CREATE_QP with no room for the driver response fails with EINVAL");
	memset(&r, 0xff, sizeof(r));
	ret = create_qp(fd, &d, sizeof(r), pd, cq, 1, srq, &r);
	ok(want(ret, 0, "qp with srq") && r.rq_depth == 0,
	   "CREATE_QP with an SRQ: accepted, rq_depth 0 (%u)", r.rq_depth);
}

static int create_srq(int fd, const struct drv *d, size_t drv_out,
		      uint32_t pd, uint32_t *handle,
		      struct orca_create_srq_resp *r)
{
	struct {
		struct ib_uverbs_create_srq_resp core;
		struct orca_create_srq_resp drv;
	} resp;
	struct ib_uverbs_create_srq c;
	int ret;

	memset(&resp, 0, sizeof(resp));
	memset(&c, 0, sizeof(c));
	c.pd_handle = pd;
	c.max_wr = 16;
	c.max_sge = 1;
	ret = cmd(fd, IB_USER_VERBS_CMD_CREATE_SRQ, &c, sizeof(c), d->w, d->len,
		  &resp, sizeof(resp.core) + drv_out);
	if (!ret) {
		if (handle)
			*handle = resp.core.srq_handle;
		if (r)
			*r = resp.drv;
	}
	return ret;
}

static void test_create_srq(int fd, uint32_t pd)
{
	struct orca_create_srq_resp r;
	struct drv d;
	int v, ret;

	for (v = 0; v < V_NR; v++) {
		d = make_qreq(v);
		memset(&r, 0, sizeof(r));
		ret = create_srq(fd, &d, sizeof(r), pd, NULL, &r);
		if (v_accepted(v))
			ok(want(ret, 0, v_name[v]) && r.srqn && r.comp_mask == 0 &&
			   r.depth >= 16 && pow2(r.depth) && pow2(r.stride) &&
			   r.mmap_len && r.db_offset + ORCA_DB_RECORD_SIZE <= r.mmap_len,
			   "CREATE_SRQ with %s: accepted, srqn %u, %u x %u B, mmap %u B",
			   v_name[v], r.srqn, r.depth, r.stride, r.mmap_len);
		else
			ok(want(ret, EINVAL, v_name[v]),
			   "CREATE_SRQ with %s fails with EINVAL", v_name[v]);
	}
	d = make_qreq(V_OK);
	ret = create_srq(fd, &d, sizeof(r) - 8, pd, NULL, NULL);
	ok(want(ret, EINVAL, "srq short resp"),
	   "CREATE_SRQ with a driver response buffer 8 bytes short fails with EINVAL");
	ret = create_srq(fd, &d, 0, pd, NULL, NULL);
	ok(want(ret, EINVAL, "srq no resp"),
	   "CREATE_SRQ with no room for the driver response fails with EINVAL");
}

/* RESIZE_CQ of @handle to @cqe entries; the response goes to @r. */
static int resize_cq(int fd, const struct drv *d, uint32_t handle,
		     uint32_t cqe, struct orca_resize_cq_resp *r)
{
	struct {
		struct ib_uverbs_resize_cq_resp core;
		struct orca_resize_cq_resp drv;
	} resp;
	struct ib_uverbs_resize_cq c;
	int ret;

	memset(&resp, 0, sizeof(resp));
	memset(&c, 0, sizeof(c));
	c.cq_handle = handle;
	c.cqe = cqe;
	ret = cmd(fd, IB_USER_VERBS_CMD_RESIZE_CQ, &c, sizeof(c), d->w, d->len,
		  &resp, sizeof(resp));
	if (!ret && r)
		*r = resp.drv;
	return ret;
}

/* The doorbell page of a queue whose rings are in the process's memory. */
static int db_page_ok(int fd, uint64_t key, uint32_t mmap_len,
		      uint32_t db_offset, long page)
{
	void *map;

	if (mmap_len != page || db_offset)
		return 0;
	map = mmap(NULL, mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, key);
	if (map == MAP_FAILED)
		return 0;
	munmap(map, mmap_len);
	return 1;
}

/*
 * ORCA_QUEUE_REQ_USER_BUF.  A CQ of 10 entries takes 16 x 32 bytes: one
 * page; a QP of 8 WRs of one SGE each way one page per ring; an SRQ of
 * 16 x 1 SGE one page.  Each accepted queue gets pages of its own in
 * @arena (32 pages), which stay pinned until the fd is closed.
 */
static void test_user_buf(int fd, uint32_t pd, uint32_t cq, char *arena,
			  long page)
{
	const size_t whole = sizeof(struct orca_create_cq_req);
	struct orca_create_srq_resp sr;
	struct orca_resize_cq_resp rr;
	struct orca_create_qp_resp qr;
	struct orca_create_cq_resp r;
	uint32_t handle = 0;
	char *gone, *ro;
	struct drv d;
	int ret;

	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, arena, page, whole);
	memset(&r, 0, sizeof(r));
	ret = create_cq(fd, &d, sizeof(r), 10, &handle, &r);
	ok(want(ret, 0, "user_buf cq") && r.cqe_count == 16 &&
	   db_page_ok(fd, r.mmap_key, r.mmap_len, r.db_offset, page),
	   "USER_BUF: CREATE_CQ with a page-aligned buffer of its ring's %ld bytes: accepted, %u entries, the mapping is the doorbell page alone (%u bytes, record at %u)",
	   page, r.cqe_count, r.mmap_len, r.db_offset);

	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, arena + page, page, 8);
	ok(want(create_cq(fd, &d, sizeof(r), 10, NULL, NULL), EINVAL, "8 bytes"),
	   "USER_BUF in an 8-byte request (no room for the buffer) fails with EINVAL");
	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, arena + page, page, 16);
	ok(want(create_cq(fd, &d, sizeof(r), 10, NULL, NULL), EINVAL, "16 bytes"),
	   "USER_BUF in a 16-byte request (without buf_len) fails with EINVAL");
	d = ubuf_req(0, arena + page, page, whole);
	ok(want(create_cq(fd, &d, sizeof(r), 10, NULL, NULL), EINVAL, "no flag"),
	   "buf_addr and buf_len without USER_BUF fail with EINVAL");
	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF | 2, arena + page, page, whole);
	ok(want(create_cq(fd, &d, sizeof(r), 10, NULL, NULL), EINVAL, "bit 0x2"),
	   "USER_BUF with an unknown comp_mask bit (0x2) fails with EINVAL");
	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, arena + page + 64, page, whole);
	ok(want(create_cq(fd, &d, sizeof(r), 10, NULL, NULL), EINVAL, "unaligned"),
	   "USER_BUF with an address 64 bytes past a page boundary fails with EINVAL");
	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, arena + page, 2 * page, whole);
	ok(want(create_cq(fd, &d, sizeof(r), 10, NULL, NULL), EINVAL, "2 pages"),
	   "USER_BUF with a length of 2 pages for a 1-page ring fails with EINVAL");
	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, arena + page, 0, whole);
	ok(want(create_cq(fd, &d, sizeof(r), 10, NULL, NULL), EINVAL, "0 bytes"),
	   "USER_BUF with a length of 0 fails with EINVAL");

	gone = mmap(NULL, page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (gone != MAP_FAILED)
		munmap(gone, page);
	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, gone, page, whole);
	ok(gone != MAP_FAILED &&
	   want(create_cq(fd, &d, sizeof(r), 10, NULL, NULL), EFAULT, "unmapped"),
	   "USER_BUF with an unmapped buffer fails with EFAULT");
	ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, ro, page, whole);
	ok(ro != MAP_FAILED &&
	   want(create_cq(fd, &d, sizeof(r), 10, NULL, NULL), EFAULT, "read-only"),
	   "USER_BUF with a read-only buffer (the kernel pins it writable) fails with EFAULT");
	if (ro != MAP_FAILED)
		munmap(ro, page);

	/* RESIZE_CQ: the CQ's new ring, 64 x 32 bytes. */
	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, arena + page, page, 8);
	ok(want(resize_cq(fd, &d, handle, 40, NULL), EINVAL, "resize 8 bytes"),
	   "RESIZE_CQ with USER_BUF in an 8-byte request fails with EINVAL");
	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, arena + page, 2 * page, whole);
	ok(want(resize_cq(fd, &d, handle, 40, NULL), EINVAL, "resize 2 pages"),
	   "RESIZE_CQ with a length other than the new ring's fails with EINVAL");
	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, arena + page, page, whole);
	memset(&rr, 0, sizeof(rr));
	ret = resize_cq(fd, &d, handle, 40, &rr);
	ok(want(ret, 0, "resize") && rr.cqe_count == 64 &&
	   db_page_ok(fd, rr.mmap_key, rr.mmap_len, rr.db_offset, page),
	   "RESIZE_CQ to 40 with a buffer of the new ring: accepted, %u entries, a new doorbell page",
	   rr.cqe_count);

	/* A QP: the SQ ring, then the RQ ring. */
	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, arena + 2 * page, page, whole);
	ok(want(create_qp(fd, &d, sizeof(qr), pd, cq, 0, 0, NULL), EINVAL,
		"qp 1 page"),
	   "CREATE_QP with a buffer of the send ring alone (1 of 2 pages) fails with EINVAL");
	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, arena + 2 * page, 2 * page, whole);
	memset(&qr, 0, sizeof(qr));
	ret = create_qp(fd, &d, sizeof(qr), pd, cq, 0, 0, &qr);
	ok(want(ret, 0, "user_buf qp") && qr.sq_offset == 0 &&
	   qr.rq_offset == page && qr.sq_depth == 8 && qr.rq_depth == 8 &&
	   db_page_ok(fd, qr.mmap_key, qr.mmap_len, qr.db_offset, page),
	   "CREATE_QP with a buffer of both rings: accepted, SQ at 0, RQ at %u (its offsets in the buffer), the doorbell page mapped alone",
	   qr.rq_offset);

	/* An SRQ. */
	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, arena + 4 * page, 4 * page, whole);
	ok(want(create_srq(fd, &d, sizeof(sr), pd, NULL, NULL), EINVAL,
		"srq 4 pages"),
	   "CREATE_SRQ with a length of 4 pages for a 1-page ring fails with EINVAL");
	d = ubuf_req(ORCA_QUEUE_REQ_USER_BUF, arena + 4 * page, page, whole);
	memset(&sr, 0, sizeof(sr));
	ret = create_srq(fd, &d, sizeof(sr), pd, NULL, &sr);
	ok(want(ret, 0, "user_buf srq") && sr.depth == 16 &&
	   db_page_ok(fd, sr.mmap_key, sr.mmap_len, sr.db_offset, page),
	   "CREATE_SRQ with a buffer of its ring: accepted, the doorbell page mapped alone");
}

int main(int argc, char **argv)
{
	struct orca_alloc_ucontext_resp uctx;
	uint32_t pd = 0, cq = 0, srq = 0;
	struct drv d = make_qreq(V_OK);
	long page = sysconf(_SC_PAGESIZE);
	char *arena;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	if (!ok(!find_uverbs(argv[1]), "uverbs device of %s: %s", argv[1],
		dev_path))
		goto out;

	test_get_context();

	fd = open_ctx();
	if (!ok(fd >= 0, "a user context on a fresh fd"))
		goto out;
	test_alloc_pd(fd);
	ok(!alloc_pd(fd, NULL, 0, sizeof(struct orca_alloc_pd_resp), &pd, NULL) &&
	   !create_cq(fd, &d, sizeof(struct orca_create_cq_resp), 16, &cq, NULL) &&
	   !create_srq(fd, &d, sizeof(struct orca_create_srq_resp), pd, &srq,
		       NULL),
	   "a PD, a CQ and an SRQ for the QP tests");
	test_alloc_mw(fd, pd);
	test_open_xrcd(fd);
	test_create_cq(fd);
	test_create_qp(fd, pd, cq, srq);
	test_create_srq(fd, pd);
	ok(!close(fd), "close the fd: uverbs destroys everything created on it");

	/* Rings in the process's memory, on a fresh context. */
	d = make_req(V_OK);
	fd = open_dev();
	memset(&uctx, 0, sizeof(uctx));
	if (!ok(fd >= 0 && !get_context(fd, &d, sizeof(uctx), &uctx),
		"a user context for the USER_BUF tests"))
		goto out;
	if (!(uctx.comp_mask & ORCA_UCTX_RESP_USER_BUF)) {
		printf("# the device offers no rings in process memory (no ORCA_UCTX_RESP_USER_BUF): skipped\n");
		close(fd);
		goto out;
	}
	arena = mmap(NULL, 32 * page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	d = make_qreq(V_OK);
	if (ok(arena != MAP_FAILED &&
	       !alloc_pd(fd, NULL, 0, sizeof(struct orca_alloc_pd_resp), &pd,
			 NULL) &&
	       !create_cq(fd, &d, sizeof(struct orca_create_cq_resp), 16, &cq,
			  NULL),
	       "ORCA_UCTX_RESP_USER_BUF offered; a PD, a CQ and 32 pages of memory for the USER_BUF tests"))
		test_user_buf(fd, pd, cq, arena, page);
	ok(!close(fd), "close the fd: the buffers are unpinned with their queues");
	if (arena != MAP_FAILED)
		munmap(arena, 32 * page);
out:
	printf("1..%d\n", tap_num);
	return tap_failed ? 1 : 0;
}
