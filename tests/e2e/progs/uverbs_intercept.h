/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A program's own write() and ioctl(), in front of the C library's: a
 * definition in the executable takes precedence for every caller in the
 * process, libibverbs and liborca included.  Each passes the call to
 * the program's intercept_write() or intercept_ioctl() (which the
 * program defines before including this), then makes the system call
 * itself.  For programs that watch what the libraries send.
 */
#ifndef ORCA_E2E_UVERBS_INTERCEPT_H
#define ORCA_E2E_UVERBS_INTERCEPT_H

#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

ssize_t write(int fd, const void *buf, size_t len)
{
	intercept_write(fd, buf, len);
	return syscall(SYS_write, fd, buf, len);
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	intercept_ioctl(fd, req, arg);
	return syscall(SYS_ioctl, fd, req, arg);
}

#endif /* ORCA_E2E_UVERBS_INTERCEPT_H */
