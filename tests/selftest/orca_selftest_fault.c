// SPDX-License-Identifier: GPL-2.0-only
/*
 * Orca guest-harness self-test: a module that faults on purpose.
 *
 * THIS MODULE BREAKS THE KERNEL THAT LOADS IT.  It exists only so that
 * 'make check' can show that tests/harness/run-guest.sh notices kernel
 * reports: it is loaded from the build tree (never installed) inside a
 * throw-away QEMU guest, and the harness must then fail and name the kind
 * of report.
 *
 *   mode=oops   dereference a NULL pointer at load (an Oops)
 *   mode=warn   WARN_ON(1) at load (a WARNING), then load normally
 */

#include <linux/compiler.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

static char *mode = "warn";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "fault to trigger at load: oops or warn");

static int __init orca_selftest_fault_init(void)
{
	int *p = NULL;

	if (!strcmp(mode, "oops")) {
		pr_info("orca_selftest_fault: NULL dereference on purpose\n");
		/* Keep the compiler from proving p NULL and dropping the load. */
		OPTIMIZER_HIDE_VAR(p);
		return READ_ONCE(*p);
	}
	if (!strcmp(mode, "warn")) {
		pr_info("orca_selftest_fault: WARN_ON on purpose\n");
		WARN_ON(1);
		return 0;
	}
	pr_err("orca_selftest_fault: unknown mode '%s'\n", mode);
	return -EINVAL;
}

static void __exit orca_selftest_fault_exit(void)
{
}

module_init(orca_selftest_fault_init);
module_exit(orca_selftest_fault_exit);

MODULE_DESCRIPTION("Orca harness self-test: faults on purpose (test guests only)");
MODULE_LICENSE("GPL");
