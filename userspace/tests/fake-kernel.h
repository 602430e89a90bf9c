/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fake uverbs kernel for liborca's host tests (fake-uverbs.c,
 * fake-dp.c), run by fake-sysfs.sh where /dev/infiniband/uverbs0 is
 * /dev/null: ioctl() on it fails, so libibverbs falls back to write()
 * commands.  This file's write(), ioctl() and mmap() interpose
 * libibverbs' and liborca's (the executable's definitions come first in
 * symbol lookup): a write of a uverbs command to /dev/null is handed to
 * the including program's answer(); an RDMA_VERBS_IOCTL to its
 * answer_ioctl(), which plays the ioctl-only methods (device memory)
 * and passes the rest on to /dev/null, so that libibverbs still falls
 * back to write() for them; an mmap of /dev/null gets anonymous memory,
 * which is recorded with its key (the mmap offset) so that a test can
 * play the device behind it.  Also TAP output.
 */
#ifndef ORCA_FAKE_KERNEL_H
#define ORCA_FAKE_KERNEL_H

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

/* Answers one write() command; returns 0 or an errno. */
static int answer(const void *cmd, size_t len);

/*
 * Answers one RDMA_VERBS_IOCTL whose header and attributes the fake
 * kernel has checked as the real one does (see ioctl() below): 0 or an
 * errno, or FAKE_IOCTL_PASS for a method the program does not play.
 * Like the kernel, it writes a new object's id into the data of its
 * IDR attribute, and output through the pointers of the PTR_OUT ones.
 */
#define FAKE_IOCTL_PASS	(-1)
static int answer_ioctl(struct ib_uverbs_ioctl_hdr *hdr);

/*
 * An extended command (IB_USER_VERBS_CMD_FLAG_EXTENDED in command) has
 * a second header, with the response pointer, after the first; its
 * request follows that.  in_words and out_words count 8-byte words of
 * the core request and response, provider_*_words those of the udata.
 */
#define FAKE_EX(cmd)	(IB_USER_VERBS_CMD_FLAG_EXTENDED | (cmd))

static inline const struct ib_uverbs_ex_cmd_hdr *
ex_hdr_of(const struct ib_uverbs_cmd_hdr *hdr)
{
	return (const void *)(hdr + 1);
}

static inline const void *ex_req_of(const struct ib_uverbs_cmd_hdr *hdr)
{
	return ex_hdr_of(hdr) + 1;
}

static inline size_t ex_out_len(const struct ib_uverbs_cmd_hdr *hdr)
{
	return ((size_t)hdr->out_words + ex_hdr_of(hdr)->provider_out_words) *
	       8;
}

struct fake_map {
	uint64_t key;
	void *addr;
	size_t len;
};

#define FAKE_MAPS	64
static struct fake_map maps[FAKE_MAPS];	/* the fake queue mappings */
static int live_maps;
static int mmap_err;		/* the next fake mmap fails with this */

/*
 * A clock of fake kernel events, for checking their order: munmap() of
 * a fake mapping stamps unmap_seq; a program's answers may stamp others.
 */
static unsigned int fake_seq;
static unsigned int unmap_seq;	/* of the last munmap of a fake mapping */

static bool is_fake_uverbs(int fd)
{
	struct stat st, null_st;

	return !fstat(fd, &st) && S_ISCHR(st.st_mode) &&
	       !stat("/dev/null", &null_st) && st.st_rdev == null_st.st_rdev;
}

/* Writes a core response and the Orca udata after it to the caller. */
static void put(uint64_t resp, const void *core, size_t core_len,
		const void *drv, size_t drv_len, size_t out_len)
{
	char buf[256] = {};

	memcpy(buf, core, core_len);
	if (drv)
		memcpy(buf + core_len, drv, drv_len);
	if (out_len > sizeof(buf))
		out_len = sizeof(buf);
	memcpy((void *)(uintptr_t)resp, buf, out_len);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	int err;

	if (len < sizeof(struct ib_uverbs_cmd_hdr) + 4 || !is_fake_uverbs(fd))
		return syscall(SYS_write, fd, buf, len);
	err = answer(buf, len);
	if (err) {
		errno = err;
		return -1;
	}
	return len;
}

/* The attribute with this id of an ioctl, or NULL. */
static inline struct ib_uverbs_attr *
ioctl_attr(struct ib_uverbs_ioctl_hdr *hdr, uint16_t id)
{
	for (unsigned int i = 0; i < hdr->num_attrs; i++) {
		if (hdr->attrs[i].attr_id == id)
			return &hdr->attrs[i];
	}
	return NULL;
}

/*
 * What ib_uverbs_ioctl() checks of every command before it looks for
 * the method: the length, the reserved words, orca.ko's driver_id
 * (RDMA_DRIVER_UNKNOWN), and of each attribute the reserved word and
 * duplicates.
 */
static int check_ioctl(const struct ib_uverbs_ioctl_hdr *hdr)
{
	if (hdr->length != sizeof(*hdr) +
			   (size_t)hdr->num_attrs * sizeof(hdr->attrs[0]))
		return EINVAL;
	if (hdr->reserved1 || hdr->reserved2)
		return EPROTONOSUPPORT;
	if (hdr->driver_id != 0)
		return EINVAL;
	for (unsigned int i = 0; i < hdr->num_attrs; i++) {
		if (hdr->attrs[i].attr_data.reserved)
			return EINVAL;
		for (unsigned int j = 0; j < i; j++) {
			if (hdr->attrs[j].attr_id == hdr->attrs[i].attr_id)
				return EINVAL;
		}
	}
	return 0;
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	int err;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (request == RDMA_VERBS_IOCTL && fd >= 0 && is_fake_uverbs(fd)) {
		err = check_ioctl(arg);
		if (!err)
			err = answer_ioctl(arg);
		if (err != FAKE_IOCTL_PASS) {
			errno = err;
			return err ? -1 : 0;
		}
	}
	return syscall(SYS_ioctl, fd, request, arg);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real_mmap)(void *, size_t, int, int, int, off_t);

	if (!real_mmap)
		real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))
			dlsym(RTLD_NEXT, "mmap");
	if (fd >= 0 && is_fake_uverbs(fd) && mmap_err) {
		errno = mmap_err;
		mmap_err = 0;
		return MAP_FAILED;
	}
	if (fd >= 0 && is_fake_uverbs(fd)) {
		void *p = real_mmap(addr, len, prot, MAP_PRIVATE | MAP_ANONYMOUS,
				    -1, 0);

		for (unsigned int i = 0; p != MAP_FAILED && i < FAKE_MAPS; i++) {
			if (!maps[i].addr) {
				maps[i] = (struct fake_map){ off, p, len };
				live_maps++;
				break;
			}
		}
		return p;
	}
	return real_mmap(addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
	for (unsigned int i = 0; addr && i < FAKE_MAPS; i++) {
		if (maps[i].addr == addr) {
			maps[i].addr = NULL;
			live_maps--;
			unmap_seq = ++fake_seq;
		}
	}
	return syscall(SYS_munmap, addr, len);
}

/* The live mapping made with this key, or NULL. */
static inline char *map_of(uint64_t key)
{
	for (unsigned int i = 0; i < FAKE_MAPS; i++) {
		if (maps[i].addr && maps[i].key == key)
			return maps[i].addr;
	}
	return NULL;
}

/* The length of the live mapping made with this key, or 0. */
static inline size_t map_len_of(uint64_t key)
{
	for (unsigned int i = 0; i < FAKE_MAPS; i++) {
		if (maps[i].addr && maps[i].key == key)
			return maps[i].len;
	}
	return 0;
}

static int n_test, n_fail;

static void ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++n_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		n_fail++;
}

#endif /* ORCA_FAKE_KERNEL_H */
