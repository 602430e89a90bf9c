# SPDX-License-Identifier: GPL-2.0-only
#
# Orca: top-level entry points.
#
#   make deps    install build and test dependencies (Debian packages only)
#   make         build orca.ko, orca_soft.ko and liborca-rdmav34.so
#   make check   build, style checks, KUnit suites and guest end-to-end tests
#   make demo    boot two guests, bring up orca0 on eth1 in each, show it
#                with ibv_devinfo and run ibv_rc_pingpong, ib_write_bw,
#                rping and ibv_xsrq_pingpong between them (make demo-one:
#                one guest, loopback)
#   make bench   perftest, idle CPU and NVMe-oF fio on orca0 and rxe0 in
#                one guest: ratio table in build/bench/results.txt;
#                then across two guests, Orca
#                against Orca and rxe against rxe: build/bench-pair/
#                results.txt (targets are goals, not checks)
#   make soak    the long runs kept out of make check (hours): 240-ev-stress
#                50 times on the stock and on the debug kernel
#   make install the modules (updates/orca under /lib/modules, depmod),
#                liborca with its /etc/libibverbs.d/orca.driver, the man
#                pages and the docs; DESTDIR and PREFIX are honoured (with
#                DESTDIR, depmod is left to the packager); make uninstall
#                removes exactly those files
#   make deb     the Debian packages orca-dkms and liborca in build/deb,
#                checked with lintian
#
# KDIR selects the kernel build tree.  By default it is the headers package
# of the Debian stock kernel ABI recorded by 'make deps' in build/kernel-abi.

BUILD_DIR	:= $(CURDIR)/build
KABI_FILE	:= $(BUILD_DIR)/kernel-abi
ORCA_KABI	?= $(shell cat $(KABI_FILE) 2>/dev/null)
KDIR		?= /usr/src/linux-headers-$(ORCA_KABI)

export BUILD_DIR ORCA_KABI KDIR

# Installation layout.  libibverbs (rdma-core 44) loads providers named by
# the *.driver files of /etc/libibverbs.d, whatever PREFIX is: a bare name
# from its own provider directory, else an absolute path.
DESTDIR		?=
PREFIX		?= /usr
MULTIARCH	:= $(shell $(CC) -print-multiarch 2>/dev/null)
LIBDIR		?= $(PREFIX)/lib/$(MULTIARCH)
PROVIDERDIR	?= $(LIBDIR)/libibverbs
SYSCONFDIR	?= /etc
MANDIR		?= $(PREFIX)/share/man
DOCDIR		?= $(PREFIX)/share/doc/orca
INCLUDEDIR	?= $(PREFIX)/include
VERBS_PROVIDERDIR := $(shell pkg-config --variable=libdir libibverbs 2>/dev/null)/libibverbs
# The release modules are built for (Debian's headers carry the upstream
# version in include/config/kernel.release, the ABI name in UTS_RELEASE).
KREL		= $(shell awk -F'"' '/UTS_RELEASE/ { print $$2 }' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
MODDIR		= /lib/modules/$(KREL)/updates/orca

INSTALL_MODS	:= drivers/orca/orca.ko drivers/orca_soft/orca_soft.ko
INSTALL_DOCS	:= README Documentation/orca-hw-interface.rst \
		   Documentation/liborca.md Documentation/index.rst
PROVIDER	:= liborca-rdmav34.so

.PHONY: all modules userspace e2e-progs deps check demo demo-one bench soak kunit-kernel style clean install uninstall deb

all: modules userspace e2e-progs

modules:
	@test -d "$(KDIR)" || { echo "KDIR=$(KDIR) not found: run 'make deps' first" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

userspace:
	$(MAKE) -C userspace

e2e-progs:
	$(MAKE) -C tests/e2e

deps:
	tests/harness/install-deps.sh

check:
	tests/run-check.sh

demo:
	tests/demo.sh

demo-one:
	tests/demo.sh --one

bench:
	tests/bench/run-bench.sh; rc=$$?; tests/bench/run-bench-pair.sh && exit $$rc

soak:
	tests/soak/run-soak.sh

kunit-kernel:
	tests/kunit/build-kernel.sh

install: modules userspace
	@test -n "$(KREL)" || { echo "no kernel release in $(KDIR)" >&2; exit 1; }
	install -d $(DESTDIR)$(MODDIR)
	install -m 644 $(INSTALL_MODS) $(DESTDIR)$(MODDIR)/
	install -D -m 644 $(BUILD_DIR)/userspace/$(PROVIDER) $(DESTDIR)$(PROVIDERDIR)/$(PROVIDER)
	install -d $(DESTDIR)$(SYSCONFDIR)/libibverbs.d
	if [ "$(PROVIDERDIR)" = "$(VERBS_PROVIDERDIR)" ]; then \
		echo "driver orca"; \
	else \
		echo "driver $(PROVIDERDIR)/liborca"; \
	fi >$(DESTDIR)$(SYSCONFDIR)/libibverbs.d/orca.driver
	install -D -m 644 Documentation/man/orca.7 $(DESTDIR)$(MANDIR)/man7/orca.7
	install -D -m 644 Documentation/man/orca_soft.4 $(DESTDIR)$(MANDIR)/man4/orca_soft.4
	install -D -m 644 userspace/liborca/orcadv.h $(DESTDIR)$(INCLUDEDIR)/infiniband/orcadv.h
	install -d $(DESTDIR)$(DOCDIR)
	install -m 644 $(INSTALL_DOCS) $(DESTDIR)$(DOCDIR)/
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KREL); fi

uninstall:
	rm -f $(addprefix $(DESTDIR)$(MODDIR)/,$(notdir $(INSTALL_MODS)))
	-rmdir $(DESTDIR)$(MODDIR)
	rm -f $(DESTDIR)$(PROVIDERDIR)/$(PROVIDER)
	rm -f $(DESTDIR)$(SYSCONFDIR)/libibverbs.d/orca.driver
	rm -f $(DESTDIR)$(MANDIR)/man7/orca.7 $(DESTDIR)$(MANDIR)/man4/orca_soft.4
	rm -f $(DESTDIR)$(INCLUDEDIR)/infiniband/orcadv.h
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(INSTALL_DOCS)))
	-rmdir $(DESTDIR)$(DOCDIR)
	if [ -z "$(DESTDIR)" ] && [ -n "$(KREL)" ]; then depmod -a $(KREL); fi

deb:
	scripts/build-deb.sh

style:
	tests/style/run-style.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userspace clean
	$(MAKE) -C tests/e2e clean
