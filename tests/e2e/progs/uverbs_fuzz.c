// SPDX-License-Identifier: GPL-2.0-only
/*
 * The uverbs interfaces called with random and boundary input, the way a
 * syscall fuzzer would, reproducibly from a seed:
 *
 *   uverbs_fuzz -d DEVICE -n BATCHES -c CALLS -m SEED [-s FIRST]
 *
 * Batches are numbered from FIRST (default 0) and each has its own
 * stream of random numbers, so one batch can be run again alone.
 * Each batch is a child process.  It opens the device with libibverbs
 * and makes one of each object liborca makes (PD, completion channel,
 * two CQs, an SRQ, an RC and a UD QP, an MR and an AH), so that the
 * fuzzed calls can name real handles; then it makes CALLS calls on the
 * context's command fd, each one of:
 *
 *   write    a legacy or extended write() command: a command number
 *            (known, or random), a request of the core size of that
 *            command (or a random size) whose 32-bit words are each a
 *            real handle, a small number, a boundary value or random
 *            bytes, then a driver request (udata) of random length and
 *            bytes; the response goes to a scratch buffer
 *   ioctl    an RDMA_VERBS_IOCTL: an object and a method (known ranges,
 *            sometimes random), up to eight attributes with random ids
 *            (the driver's UHW_IN and UHW_OUT among them), lengths,
 *            flags and data: inline, a scratch buffer of random bytes,
 *            a real handle, or an address that is not mapped
 *   mmap     the command fd mapped at a random offset and length
 *   replay   a command libibverbs and liborca themselves sent while the
 *            batch made its objects (this program records them: its own
 *            write() and ioctl() stand in front of libc's), sent again
 *            with one to four bytes or words changed: the header, an
 *            attribute, the data it points to, the driver's udata.
 *            This is what reaches past the first checks into the
 *            driver's create, modify, query and destroy paths
 *
 * Every address handed to the kernel is in an arena mapped at a fixed
 * address below everything else of the process (scratch, and the copies
 * a replay sends), or one this process does not map (NULL, a PROT_NONE
 * page, a kernel address), never its own live memory: whatever the
 * kernel writes back lands in the arena, however long a mutated length.
 * No value the fuzzer makes up can be an address of the process either:
 * x86-64 Linux maps a program, its heap, libraries and stack at
 * 0x400000000000 and above, and no 32-bit word the fuzzer writes into
 * the upper half of a 64-bit field falls in [0x4000, 0x8000), nor a byte
 * into bits 40-47 in [0x40, 0x80); a recorded 64-bit field holding an
 * address is only ever replaced whole, by one of the addresses above.
 * The child never calls liborca after the fuzzing starts, and exits
 * without destroying anything: the kernel cleans up the context,
 * whatever the calls made or destroyed.
 *
 * One method is never sent: RDMA_VERBS_IOCTL's GET_CONTEXT (object
 * DEVICE), which Linux 6.1's ib_core gets wrong on its own.  On a file
 * that has its context already, the handler allocates a second one,
 * whose restrack entry takes a reference to the calling task, then frees
 * it when ib_init_ucontext() refuses (EINVAL) without dropping that
 * reference: every such call leaks the task_struct.  This program found
 * it: on the debug kernel kmemleak reported task_structs of 17 of 20
 * batches, narrowed to replays of GET_CONTEXT; against Soft-RoCE (rxe0)
 * the same 20 batches leaked 16.  The legacy GET_CONTEXT write() command
 * releases it properly and is still sent.
 *
 * To narrow a finding down, three variables of the environment: UF_KINDS,
 * a mask of the kinds above that are made (1 write, 2 ioctl, 4 mmap, 8
 * replay; the random numbers are drawn as if all were); UF_REPLAY_KEY,
 * the one recorded command replayed (the keys are in the "recorded"
 * diagnostic); UF_TRACE, each replay and its result on stderr.
 *
 * The parent checks that every batch child made all its calls and exited
 * 0, and, after each batch, that its own QP pair (another context) still
 * carries a SEND byte for byte.  It prints how the calls ended (errno
 * counts).  The .t compares rdma resource show with its baseline; the
 * harness looks for kernel reports (KASAN, UBSAN and lockdep on the debug
 * kernel) and unloads the modules.
 */
#define _GNU_SOURCE	/* strerrorname_np */
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl.h>

#include "dp_common.h"

#define UF_SCRATCH	(2 * 1024 * 1024)
#define UF_ARENA_AT	0x200000000000UL	/* far below the program */
#define UF_PDATA	65536			/* a u16 length's reach */
#define UF_NERRNO	140

/* What the batches tell the parent: how the calls ended. */
struct uf_shared {
	unsigned long calls, ok;
	unsigned long by_errno[UF_NERRNO];
	unsigned long kind[4];
	unsigned long recorded;
	char rec_list[1024];	/* what the first batch recorded */
	char why[200];
};

static struct uf_shared *sh;
static uint8_t *scratch, *noaccess;
static struct uf_arena *arena;
static uint32_t handles[16];
static int nhandles;

static uint64_t uf_rand64(void)
{
	return (uint64_t)e2e_rand() << 32 | e2e_rand();
}

/* A 32-bit word as a fuzzer would pick it. */
static uint32_t uf_word(void)
{
	static const uint32_t edge[] = {
		0, 1, 2, 3, 7, 8, 15, 16, 63, 64, 255, 256, 4095, 4096, 65535,
		65536, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
	};

	uint32_t w;

	switch (e2e_rand() % 4) {
	case 0:
		w = nhandles ? handles[e2e_rand() % nhandles] : 0;
		break;
	case 1:
		w = e2e_rand() % 16;
		break;
	case 2:
		w = edge[e2e_rand() % DP_ARRAY_SIZE(edge)];
		break;
	default:
		w = e2e_rand();
	}
	/* As the upper half of a u64, never an address of this process. */
	if (w >= 0x4000 && w < 0x8000)
		w ^= 0x8000;
	return w;
}

/* A u64 from two such words. */
static uint64_t uf_word64(void)
{
	uint64_t lo = uf_word();

	return (uint64_t)uf_word() << 32 | lo;
}

/* An address for the kernel: scratch (mostly), or one not mapped. */
static uint64_t uf_addr(void)
{
	switch (e2e_rand() % 8) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)noaccess;
	case 2:
		return 0xffff888000000000ULL + (e2e_rand() & ~7U);
	default:
		return (uintptr_t)scratch + (e2e_rand() % (UF_SCRATCH / 8) & ~7U);
	}
}

static void uf_fill(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 4 <= len; i += 4) {
		uint32_t w = uf_word();

		memcpy(p + i, &w, 4);
	}
	for (; i < len; i++)
		p[i] = e2e_rand();
}

static void uf_count(int ret, int err)
{
	sh->calls++;
	if (ret >= 0)
		sh->ok++;
	else if (err > 0 && err < UF_NERRNO)
		sh->by_errno[err]++;
}

/* The one ioctl this program never sends (see the top of the file). */
static int uf_core_bug(const struct ib_uverbs_ioctl_hdr *h)
{
	return h->object_id == UVERBS_OBJECT_DEVICE &&
	       h->method_id == UVERBS_METHOD_GET_CONTEXT;
}

/* ---- write() -------------------------------------------------------- */

struct uf_cmd {
	uint32_t op;
	uint16_t core;		/* sizeof the core request */
	uint8_t resp;		/* its first u64 is the response address */
	uint8_t ex;		/* an extended command */
};

#define UF_C(op, s, r) { IB_USER_VERBS_CMD_##op, sizeof(struct s), r, 0 }
#define UF_X(op, s) { IB_USER_VERBS_EX_CMD_##op, sizeof(struct s), 0, 1 }

static const struct uf_cmd uf_cmds[] = {
	UF_C(QUERY_DEVICE, ib_uverbs_query_device, 1),
	UF_C(QUERY_PORT, ib_uverbs_query_port, 1),
	UF_C(ALLOC_PD, ib_uverbs_alloc_pd, 1),
	UF_C(DEALLOC_PD, ib_uverbs_dealloc_pd, 0),
	UF_C(CREATE_AH, ib_uverbs_create_ah, 1),
	UF_C(DESTROY_AH, ib_uverbs_destroy_ah, 0),
	UF_C(REG_MR, ib_uverbs_reg_mr, 1),
	UF_C(REREG_MR, ib_uverbs_rereg_mr, 1),
	UF_C(DEREG_MR, ib_uverbs_dereg_mr, 0),
	UF_C(ALLOC_MW, ib_uverbs_alloc_mw, 1),
	UF_C(DEALLOC_MW, ib_uverbs_dealloc_mw, 0),
	UF_C(CREATE_COMP_CHANNEL, ib_uverbs_create_comp_channel, 1),
	UF_C(CREATE_CQ, ib_uverbs_create_cq, 1),
	UF_C(RESIZE_CQ, ib_uverbs_resize_cq, 1),
	UF_C(DESTROY_CQ, ib_uverbs_destroy_cq, 1),
	UF_C(POLL_CQ, ib_uverbs_poll_cq, 1),
	UF_C(REQ_NOTIFY_CQ, ib_uverbs_req_notify_cq, 0),
	UF_C(CREATE_QP, ib_uverbs_create_qp, 1),
	UF_C(QUERY_QP, ib_uverbs_query_qp, 1),
	UF_C(MODIFY_QP, ib_uverbs_modify_qp, 0),
	UF_C(DESTROY_QP, ib_uverbs_destroy_qp, 1),
	UF_C(POST_SEND, ib_uverbs_post_send, 1),
	UF_C(POST_RECV, ib_uverbs_post_recv, 1),
	UF_C(ATTACH_MCAST, ib_uverbs_attach_mcast, 0),
	UF_C(DETACH_MCAST, ib_uverbs_detach_mcast, 0),
	UF_C(CREATE_SRQ, ib_uverbs_create_srq, 1),
	UF_C(MODIFY_SRQ, ib_uverbs_modify_srq, 0),
	UF_C(QUERY_SRQ, ib_uverbs_query_srq, 1),
	UF_C(DESTROY_SRQ, ib_uverbs_destroy_srq, 1),
	UF_C(POST_SRQ_RECV, ib_uverbs_post_srq_recv, 1),
	UF_C(OPEN_XRCD, ib_uverbs_open_xrcd, 1),
	UF_C(CLOSE_XRCD, ib_uverbs_close_xrcd, 0),
	UF_C(CREATE_XSRQ, ib_uverbs_create_xsrq, 1),
	UF_C(OPEN_QP, ib_uverbs_open_qp, 1),
	UF_X(QUERY_DEVICE, ib_uverbs_ex_query_device),
	UF_X(CREATE_CQ, ib_uverbs_ex_create_cq),
	UF_X(CREATE_QP, ib_uverbs_ex_create_qp),
	UF_X(MODIFY_QP, ib_uverbs_ex_modify_qp),
	UF_X(CREATE_WQ, ib_uverbs_ex_create_wq),
	UF_X(MODIFY_WQ, ib_uverbs_ex_modify_wq),
	UF_X(DESTROY_WQ, ib_uverbs_ex_destroy_wq),
	UF_X(CREATE_RWQ_IND_TBL, ib_uverbs_ex_create_rwq_ind_table),
	UF_X(DESTROY_RWQ_IND_TBL, ib_uverbs_ex_destroy_rwq_ind_table),
	UF_X(MODIFY_CQ, ib_uverbs_ex_modify_cq),
};

static void uf_write(int fd)
{
	static uint8_t buf[1024];
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex = { 0 };
	struct uf_cmd c;
	size_t core, drv, off = 0, len;
	ssize_t ret;

	if (e2e_rand() % 16) {
		c = uf_cmds[e2e_rand() % DP_ARRAY_SIZE(uf_cmds)];
	} else {
		c.op = e2e_rand() % 64;
		c.core = e2e_rand() % 256;
		c.resp = e2e_rand() % 2;
		c.ex = e2e_rand() % 2;
	}
	core = e2e_rand() % 8 ? c.core : e2e_rand() % 512;
	drv = e2e_rand() % 4 ? e2e_rand() % 64 : e2e_rand() % 256;
	if (c.ex) {
		core &= ~7UL;
		drv &= ~7UL;
	} else {
		core &= ~3UL;
		drv &= ~3UL;
	}
	len = sizeof(hdr) + (c.ex ? sizeof(ex) : 0) + core + drv;
	if (len > sizeof(buf))
		return;

	hdr.command = c.op | (c.ex ? IB_USER_VERBS_CMD_FLAG_EXTENDED : 0);
	if (c.ex) {
		hdr.in_words = core / 8;
		hdr.out_words = e2e_rand() % 64;
		ex.response = uf_addr();
		ex.provider_in_words = drv / 8;
		ex.provider_out_words = e2e_rand() % 16;
	} else {
		hdr.in_words = len / 4;
		hdr.out_words = e2e_rand() % 128;
	}
	/* Now and then a header that disagrees with what follows. */
	if (!(e2e_rand() % 16))
		hdr.in_words = e2e_rand() % 256;
	memcpy(buf, &hdr, sizeof(hdr));
	off = sizeof(hdr);
	if (c.ex) {
		memcpy(buf + off, &ex, sizeof(ex));
		off += sizeof(ex);
	}
	uf_fill(buf + off, core + drv);
	if (c.resp && core >= 8) {
		uint64_t r = uf_addr();

		memcpy(buf + off, &r, 8);
	}
	ret = write(fd, buf, len);
	uf_count(ret < 0 ? -1 : 0, errno);
}

/* ---- ioctl ------------------------------------------------------------ */

static void uf_ioctl(int fd)
{
	static uint64_t words[(sizeof(struct ib_uverbs_ioctl_hdr) +
			       8 * sizeof(struct ib_uverbs_attr)) / 8 + 1];
	struct ib_uverbs_ioctl_hdr *h = (void *)words;
	int i, n = e2e_rand() % 9, ret;

	memset(words, 0, sizeof(words));
	h->length = sizeof(*h) + n * sizeof(struct ib_uverbs_attr);
	if (!(e2e_rand() % 16))
		h->length = e2e_rand() % sizeof(words);
	h->object_id = e2e_rand() % 8 ? e2e_rand() % (UVERBS_OBJECT_ASYNC_EVENT + 2) :
		       (uint16_t)e2e_rand();
	h->method_id = e2e_rand() % 8 ? e2e_rand() % 12 : (uint16_t)e2e_rand();
	if (!(e2e_rand() % 8)) {
		h->object_id |= UVERBS_UDATA_DRIVER_DATA_FLAG;
		h->method_id |= UVERBS_UDATA_DRIVER_DATA_FLAG;
	}
	h->num_attrs = n;
	if (!(e2e_rand() % 32))
		h->reserved1 = e2e_rand();
	if (!(e2e_rand() % 32))
		h->driver_id = e2e_rand() % 32;
	for (i = 0; i < n; i++) {
		struct ib_uverbs_attr *a = &h->attrs[i];

		switch (e2e_rand() % 4) {
		case 0:
			a->attr_id = UVERBS_ATTR_UHW_IN + e2e_rand() % 2;
			break;
		case 3:
			a->attr_id = e2e_rand();
			break;
		default:
			a->attr_id = e2e_rand() % 12;
		}
		a->len = e2e_rand() % 4 ? e2e_rand() % 64 : e2e_rand() % 4096;
		a->flags = e2e_rand() % 4 ? e2e_rand() % 4 : (uint16_t)e2e_rand();
		if (e2e_rand() % 8 == 0)
			a->attr_data.reserved = e2e_rand();
		switch (e2e_rand() % 4) {
		case 0:
			a->data = uf_word();	/* inline, a handle, an fd */
			break;
		case 1:
			a->data = uf_word64();
			break;
		default:
			a->data = uf_addr();
			if (a->data >= (uintptr_t)scratch &&
			    a->data < (uintptr_t)scratch + UF_SCRATCH)
				uf_fill((uint8_t *)(uintptr_t)a->data,
					a->len < 4096 ? a->len : 4096);
		}
	}
	if (uf_core_bug(h))
		h->method_id = UVERBS_METHOD_QUERY_CONTEXT;
	ret = ioctl(fd, RDMA_VERBS_IOCTL, h);
	uf_count(ret, errno);
}

/* ---- mmap ------------------------------------------------------------- */

static void uf_mmap(int fd)
{
	size_t len = (1 + e2e_rand() % 64) * 4096UL;
	off_t off = (off_t)(e2e_rand() % 256) * 4096;
	void *p;

	if (!(e2e_rand() % 4))
		off = (off_t)(uf_rand64() & 0x7ffffffffffff000ULL);
	p = mmap(NULL, len, PROT_READ | (e2e_rand() % 2 ? PROT_WRITE : 0),
		 MAP_SHARED, fd, off);
	uf_count(p == MAP_FAILED ? -1 : 0, errno);
	if (p != MAP_FAILED)
		munmap(p, len);
}

/* ---- recorded commands, replayed with mutations ---------------------- */

#define UF_MAX_REC	128
#define UF_SAME_MAX	2	/* recordings of one command kept */
/* Recording keys: a write()'s command; ioctls and INVOKE_WRITEs marked. */
#define UF_KEY_IOCTL	0x40000000U
#define UF_KEY_INVOKE	0x20000000U
#define UF_REC_BYTES	4096
#define UF_REC_ATTRS	16	/* attributes of a recorded ioctl */

/*
 * A recorded command: the bytes of a write(), or an ioctl header with its
 * attributes, and for each pointer attribute a private copy of what it
 * pointed to (rec.data).  Response pointers are moved to scratch: the
 * originals were liborca's stack.
 */
struct uf_rec {
	int is_ioctl;
	size_t len;			/* of buf */
	uint8_t buf[1024];
	uint16_t ptr_len[UF_REC_ATTRS];	/* per attribute: bytes in data[] */
	uint8_t data[UF_REC_ATTRS][UF_REC_BYTES / 8] __attribute__((aligned(8)));
};

/*
 * At UF_ARENA_AT: scratch, then what a replay sends: the command and, for
 * each pointer attribute, its data with 64 KiB of room.
 */
struct uf_arena {
	uint8_t scratch[UF_SCRATCH];
	struct uf_rec m;
	uint8_t pdata[UF_REC_ATTRS][UF_PDATA];
};

static volatile unsigned long uf_call_no;
static volatile unsigned int uf_call_kind;
/* The knobs that narrow a finding down (see the top), read once. */
static const char *uf_only_key, *uf_trace;
static unsigned long uf_kinds = ~0UL;

static struct uf_rec *recs;
static int nrecs, recording, uverbs_fd = -1;

static int uf_is_uverbs(int fd)
{
	char path[64], target[128];
	ssize_t n;

	if (fd == uverbs_fd)
		return 1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = 0;
	return !strncmp(target, "/dev/infiniband/uverbs", 22);
}

/* Keep at most UF_SAME_MAX recordings of each command (by its key). */
static uint32_t rec_key[UF_MAX_REC];

static int uf_keep(uint32_t key)
{
	int i, same = 0;

	if (nrecs >= UF_MAX_REC)
		return 0;
	for (i = 0; i < nrecs; i++)
		same += rec_key[i] == key;
	if (same >= UF_SAME_MAX)
		return 0;
	rec_key[nrecs] = key;
	return 1;
}

/*
 * Every 8-aligned u64 of a recorded request that holds an address of
 * this process (a response buffer, a user_handle, an MR's start) now
 * names scratch instead: the first 64 KiB of it are registered as the
 * batch's MR, so a replayed REG_MR still has memory to pin.
 */
static void uf_sanitize(uint8_t *p, size_t len)
{
	uint64_t s = (uintptr_t)scratch;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t v;

		memcpy(&v, p + i, 8);
		if (v >= 4096 && v < 0x800000000000ULL)
			memcpy(p + i, &s, 8);
	}
}

static void uf_record_write(const void *buf, size_t len)
{
	const struct ib_uverbs_cmd_hdr *h = buf;
	struct uf_rec *r;

	if (len > sizeof(r->buf) || len < sizeof(*h) ||
	    !uf_keep(h->command & (IB_USER_VERBS_CMD_FLAG_EXTENDED | 0xffff)))
		return;
	r = &recs[nrecs++];
	memset(r, 0, sizeof(*r));
	memcpy(r->buf, buf, len);
	r->len = len;
	/* The response address too: a legacy request's first u64, ex_hdr's. */
	uf_sanitize(r->buf + sizeof(*h), len - sizeof(*h));
}

static void uf_record_ioctl(const struct ib_uverbs_ioctl_hdr *h)
{
	struct ib_uverbs_ioctl_hdr *c;
	struct uf_rec *r;
	uint32_t key;
	int i;

	if (h->length > sizeof(r->buf) || h->num_attrs > UF_REC_ATTRS ||
	    h->length < sizeof(*h) + h->num_attrs * sizeof(h->attrs[0]))
		return;
	/* A write command sent through INVOKE_WRITE is keyed by its number. */
	key = UF_KEY_IOCTL | (h->object_id & 0x3fff) << 16 | h->method_id;
	if (h->object_id == UVERBS_OBJECT_DEVICE &&
	    h->method_id == UVERBS_METHOD_INVOKE_WRITE)
		for (i = 0; i < h->num_attrs; i++)
			if (h->attrs[i].attr_id == UVERBS_ATTR_WRITE_CMD)
				key = UF_KEY_INVOKE | (h->attrs[i].data & 0xffff);
	if (!uf_keep(key))
		return;
	r = &recs[nrecs++];
	memset(r, 0, sizeof(*r));
	r->is_ioctl = 1;
	memcpy(r->buf, h, h->length);
	r->len = h->length;
	c = (void *)r->buf;
	for (i = 0; i < c->num_attrs; i++) {
		struct ib_uverbs_attr *a = &c->attrs[i];

		/*
		 * Up to 8 bytes are inline for input, but an output's data is
		 * always an address: whatever looks like one of this process
		 * goes to scratch (an inline user_handle just changes value).
		 */
		if (a->len <= 8) {
			if (a->data >= 4096 && a->data < 0x800000000000ULL)
				a->data = (uintptr_t)scratch + UF_SCRATCH / 2;
			continue;
		}
		if (a->len > sizeof(r->data[i])) {
			a->data = (uintptr_t)scratch + UF_SCRATCH / 2;
			continue;
		}
		memcpy(r->data[i], (void *)(uintptr_t)a->data, a->len);
		uf_sanitize(r->data[i], a->len);
		a->data = (uintptr_t)r->data[i];
		r->ptr_len[i] = a->len;
	}
}

/* libibverbs' and liborca's calls go through these while recording. */
static void intercept_write(int fd, const void *buf, size_t len)
{
	if (recording && uf_is_uverbs(fd))
		uf_record_write(buf, len);
}

static void intercept_ioctl(int fd, unsigned long req, void *arg)
{
	if (recording && req == RDMA_VERBS_IOCTL && uf_is_uverbs(fd))
		uf_record_ioctl(arg);
}

#include "uverbs_intercept.h"

/* Is the u64 at @p (8-aligned) an address in this process's half? */
static int uf_is_addr(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v >= 4096 && v < 0x800000000000ULL;
}

/*
 * Change a word or a byte at a random place of @p[0, len) (8-aligned):
 * a field that holds an address is replaced whole by a safe one.
 */
static void uf_poke(uint8_t *p, size_t len)
{
	size_t at = e2e_rand() % len, q = at & ~7UL;
	uint32_t w = uf_word();
	uint8_t b = e2e_rand();

	if (q + 8 <= len && uf_is_addr(p + q)) {
		uint64_t a = uf_addr();

		memcpy(p + q, &a, 8);
		return;
	}
	if (e2e_rand() % 2 && (at & ~3UL) + 4 <= len) {
		memcpy(p + (at & ~3UL), &w, 4);
		return;
	}
	if (at % 8 == 5 && b >= 0x40 && b < 0x80)
		b ^= 0x80;
	p[at] = b;
}

/* Change one to four things in the replay copy arena->m (mostly one). */
static void uf_mutate(void)
{
	struct uf_rec *r = &arena->m;
	struct ib_uverbs_ioctl_hdr *h = (void *)r->buf;
	/* As recorded: a mutation may change num_attrs itself. */
	int i, nattrs = r->is_ioctl ? h->num_attrs : 0;
	/* Mostly one change, so that most of a command stays valid. */
	int n = e2e_rand() % 4 ? 1 : 2 + e2e_rand() % 3;

	for (i = 0; i < n; i++) {
		unsigned int where = e2e_rand() % 4;
		int a = nattrs ? (int)(e2e_rand() % nattrs) : -1;

		if (a >= 0 && where == 1 && r->ptr_len[a]) {
			/* What an attribute points to. */
			uf_poke(arena->pdata[a], r->ptr_len[a]);
			continue;
		}
		if (a >= 0 && where == 2) {
			/* An attribute's id, length, flags or data. */
			struct ib_uverbs_attr *at = &h->attrs[a];
			uint32_t w = uf_word();

			switch (e2e_rand() % 4) {
			case 0: at->attr_id = w; break;
			case 1: at->len = w; break;
			case 2: at->flags = w; break;
			default: at->data = e2e_rand() % 2 ? w : uf_addr();
			}
			continue;
		}
		/* Anywhere in the command's own bytes. */
		uf_poke(r->buf, r->len);
	}
}

static void uf_replay(int fd)
{
	struct uf_rec *m = &arena->m;
	int i, ret;

	int pick;

	if (!nrecs) {
		uf_write(fd);
		return;
	}
	pick = e2e_rand() % nrecs;
	/* To narrow a finding down: UF_REPLAY_KEY, the one command replayed. */
	if (uf_only_key && rec_key[pick] != strtoul(uf_only_key, NULL, 0))
		return;
	*m = recs[pick];
	if (m->is_ioctl) {
		struct ib_uverbs_ioctl_hdr *h = (void *)m->buf;

		/* The pointed-to data goes to the arena, with room after it. */
		for (i = 0; i < h->num_attrs && i < UF_REC_ATTRS; i++) {
			if (!m->ptr_len[i])
				continue;
			memcpy(arena->pdata[i], m->data[i], m->ptr_len[i]);
			h->attrs[i].data = (uintptr_t)arena->pdata[i];
		}
	}
	uf_mutate();
	if (m->is_ioctl && uf_core_bug((void *)m->buf))
		((struct ib_uverbs_ioctl_hdr *)m->buf)->method_id =
			UVERBS_METHOD_QUERY_CONTEXT;
	if (m->is_ioctl)
		ret = syscall(SYS_ioctl, fd, RDMA_VERBS_IOCTL, m->buf);
	else
		ret = syscall(SYS_write, fd, m->buf, m->len);
	uf_count(ret < 0 ? -1 : 0, errno);
	/* To narrow a finding down: UF_TRACE prints each replay. */
	if (uf_trace) {
		struct ib_uverbs_ioctl_hdr *h = (void *)m->buf;
		int e = errno;

		fprintf(stderr, "replay %lu: %s", uf_call_no,
			m->is_ioctl ? "ioctl" : "write");
		if (m->is_ioctl) {
			fprintf(stderr, " obj %u method %u attrs", h->object_id,
				h->method_id);
			for (i = 0; i < h->num_attrs && i < UF_REC_ATTRS; i++)
				fprintf(stderr, " %#x/%u/%#x", h->attrs[i].attr_id,
					h->attrs[i].len, h->attrs[i].flags);
		}
		fprintf(stderr, ": %d %s\n", ret, ret < 0 ? strerror(e) : "");
	}
}

/* ---- a batch ------------------------------------------------------------ */


/* A fault of the batch's own: say where, for the parent's diagnostic. */
static void uf_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	snprintf(sh->why, sizeof(sh->why), "signal %d at %p in call %lu (kind %u)",
		 sig, si->si_addr, uf_call_no, uf_call_kind);
	signal(sig, SIG_DFL);
	raise(sig);
}

__attribute__((noreturn))
static void uf_batch(const char *dev, unsigned long calls)
{
	struct sigaction sa_f = { .sa_sigaction = uf_fault, .sa_flags = SA_SIGINFO };
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq1, *cq2;
	struct ibv_srq *srq;
	struct ibv_qp *rc, *ud;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	unsigned long i;
	int fd;

	recs = mmap(NULL, UF_MAX_REC * sizeof(*recs), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (recs == MAP_FAILED) {
		snprintf(sh->why, sizeof(sh->why), "mmap: %s", strerror(errno));
		_exit(1);
	}
	recording = 1;
	dp.ctx = open_by_name(dev);
	if (!dp.ctx || ibv_query_device(dp.ctx, &dp.attr) ||
	    ibv_query_port(dp.ctx, 1, &dp.port) || dp_find_gid()) {
		snprintf(sh->why, sizeof(sh->why), "open %s: %s", dev,
			 strerror(errno));
		_exit(1);
	}
	dp.pd = ibv_alloc_pd(dp.ctx);
	ch = ibv_create_comp_channel(dp.ctx);
	cq1 = ibv_create_cq(dp.ctx, 16, NULL, ch, 0);
	cq2 = ibv_create_cq(dp.ctx, 16, NULL, NULL, 0);
	srq = dp.pd ? ibv_create_srq(dp.pd, &sa) : NULL;
	qa.send_cq = cq1;
	qa.recv_cq = cq2;
	rc = dp.pd && cq1 && cq2 ? ibv_create_qp(dp.pd, &qa) : NULL;
	qa.qp_type = IBV_QPT_UD;
	ud = dp.pd && cq1 && cq2 ? ibv_create_qp(dp.pd, &qa) : NULL;
	mr = dp.pd ? ibv_reg_mr(dp.pd, scratch, 65536, DP_ACC_ALL) : NULL;
	ah = dp.pd ? dp_make_ah(dp.pd) : NULL;
	if (rc) {
		struct dp_qp_cfg c;

		dp.mtu = IBV_MTU_1024;
		dp_cfg_default(&c, IBV_QPT_RC);
		dp_end_connect(&(struct dp_end){ .qp = rc }, &c, rc->qp_num,
			       IBV_QPS_RTS);
		ibv_req_notify_cq(cq1, 0);
	}
	recording = 0;
	if (!ch || !cq1 || !cq2 || !srq || !rc || !ud || !mr || !ah) {
		snprintf(sh->why, sizeof(sh->why), "the batch's objects: %s",
			 strerror(errno));
		_exit(1);
	}
	handles[nhandles++] = dp.pd->handle;
	handles[nhandles++] = cq1->handle;
	handles[nhandles++] = cq2->handle;
	handles[nhandles++] = srq->handle;
	handles[nhandles++] = rc->handle;
	handles[nhandles++] = ud->handle;
	handles[nhandles++] = mr->handle;
	handles[nhandles++] = ah->handle;
	handles[nhandles++] = ch->fd;
	handles[nhandles++] = rc->qp_num;
	handles[nhandles++] = mr->lkey;
	fd = dp.ctx->cmd_fd;
	sh->recorded += nrecs;
	if (!sh->rec_list[0]) {
		size_t len = 0;

		for (i = 0; i < (unsigned long)nrecs; i++)
		{
			uint32_t k = rec_key[i];
			char *o = sh->rec_list + len;
			size_t room = sizeof(sh->rec_list) - len;

			if (k & UF_KEY_IOCTL)
				len += snprintf(o, room, " ioctl %u/%u",
						(k >> 16) & 0x3fff, k & 0xffff);
			else if (k & UF_KEY_INVOKE)
				len += snprintf(o, room, " write %u (ioctl)",
						k & 0xffff);
			else
				len += snprintf(o, room, " write %u%s", k & 0xffff,
						k & IB_USER_VERBS_CMD_FLAG_EXTENDED ?
						" (ex)" : "");
			len += snprintf(sh->rec_list + len,
					sizeof(sh->rec_list) - len, " [%#x]", k);
		}
	}
	uf_only_key = getenv("UF_REPLAY_KEY");
	uf_trace = getenv("UF_TRACE");
	if (getenv("UF_KINDS"))
		uf_kinds = strtoul(getenv("UF_KINDS"), NULL, 0);
	sigaction(SIGSEGV, &sa_f, NULL);
	sigaction(SIGBUS, &sa_f, NULL);

	for (i = 0; i < calls; i++) {
		unsigned int k = e2e_rand() % 16;

		k = k < 4 ? 0 : k < 7 ? 1 : k < 8 ? 2 : 3;
		sh->kind[k]++;
		uf_call_no = i;
		uf_call_kind = k;
		if (!(uf_kinds & (1U << k))) {
			sh->calls++;
			continue;
		}
		if (k == 0)
			uf_write(fd);
		else if (k == 1)
			uf_ioctl(fd);
		else if (k == 2)
			uf_mmap(fd);
		else
			uf_replay(fd);
	}
	/* No liborca call from here: the kernel cleans up at exit. */
	_exit(0);
}

static struct dp_bystander by;

int main(int argc, char **argv)
{
	unsigned long batches = 20, calls = 500, good = 0, b, first = 0;
	unsigned long long seed = 20261126;
	const char *dev = NULL;
	char *dargv[2], line[1024];
	size_t len = 0;
	int opt, e, by_ok = 1;

	while ((opt = getopt(argc, argv, "d:n:c:m:s:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'n': batches = strtoul(optarg, NULL, 0); break;
		case 'c': calls = strtoul(optarg, NULL, 0); break;
		case 'm': seed = strtoull(optarg, NULL, 0); break;
		case 's': first = strtoul(optarg, NULL, 0); break;
		default: dev = NULL; optind = argc; break;
		}
	}
	if (!dev || !batches || !calls) {
		fprintf(stderr, "usage: %s -d DEVICE [-n BATCHES] [-c CALLS] [-m SEED] [-s FIRST]\n",
			argv[0]);
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	arena = mmap((void *)UF_ARENA_AT, sizeof(*arena), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (arena != (void *)UF_ARENA_AT) {
		perror("mmap the arena");
		return 2;
	}
	scratch = arena->scratch;
	noaccess = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || noaccess == MAP_FAILED) {
		perror("mmap");
		return 2;
	}

	dargv[0] = argv[0];
	dargv[1] = (char *)dev;
	dp_open(2, dargv);
	if (!ok(!dp_bystander_make(&by),
		"the bystander: an RC QP pair and two buffers"))
		return tap_end();
	diag("%lu batches of %lu calls, seed %llu", batches, calls, seed);

	for (b = first; b < first + batches; b++) {
		unsigned long before = sh->calls;
		int status = -1;
		pid_t pid;

		/* Each batch its own stream, reproducible on its own. */
		e2e_rng = (seed ? seed : 1) * 0x9e3779b97f4a7c15ULL + b + 1;
		sh->why[0] = 0;
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			break;
		if (!pid) {
			dp.ctx = NULL;	/* the parent's: not ours to use */
			uf_batch(dev, calls);
		}
		waitpid(pid, &status, 0);
		if (WIFEXITED(status) && !WEXITSTATUS(status) &&
		    sh->calls - before == calls) {
			good++;
		} else {
			diag("batch %lu: status 0x%x after %lu calls%s%s", b,
			     status, sh->calls - before,
			     sh->why[0] ? ": " : "", sh->why);
		}
		if (!dp_bystander_send(&by, 500 + b - first)) {
			by_ok = 0;
			diag("after batch %lu the bystander's SEND failed", b);
		}
	}
	ok(good == batches, "%lu of %lu batches made all their %lu calls and "
	   "exited 0", good, batches, calls);
	ok(by_ok, "after every batch the bystander's SEND arrived byte for byte");
	diag("%lu calls: %lu write, %lu ioctl, %lu mmap, %lu replayed with "
	     "changes (from %lu recorded); %lu succeeded", sh->calls,
	     sh->kind[0], sh->kind[1], sh->kind[2], sh->kind[3], sh->recorded,
	     sh->ok);
	for (e = 1; e < UF_NERRNO; e++)
		if (sh->by_errno[e])
			len += snprintf(line + len, sizeof(line) - len, " %s %lu",
					strerrorname_np(e) ? strerrorname_np(e) : "?",
					sh->by_errno[e]);
	diag("failed with:%s", line);
	diag("recorded (object/method, command):%s", sh->rec_list);

	dp_bystander_destroy(&by);
	return dp_close();
}
