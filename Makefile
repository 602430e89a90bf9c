# SPDX-License-Identifier: GPL-2.0-only
#
# Orca: top-level entry points.
#
#   make deps    install build and test dependencies (Debian packages only)
#   make         build orca.ko, orca_soft.ko and liborca-rdmav34.so
#   make check   build, style checks, KUnit suites and guest end-to-end tests
#   make demo    boot two guests, bring up orca0 on eth1 in each, show it
#                with ibv_devinfo and run ibv_rc_pingpong, ib_write_bw and
#                rping between them (make demo-one: one guest, loopback)
#   make bench   perftest on orca0 and rxe0 in one guest: ratio table in
#                build/bench/results.txt; then across two guests, Orca
#                against Orca and rxe against rxe: build/bench-pair/
#                results.txt (targets are goals, not checks)
#   make soak    the long runs kept out of make check (hours): 240-ev-stress
#                50 times on the stock and on the debug kernel
#
# KDIR selects the kernel build tree.  By default it is the headers package
# of the Debian stock kernel ABI recorded by 'make deps' in build/kernel-abi.

BUILD_DIR	:= $(CURDIR)/build
KABI_FILE	:= $(BUILD_DIR)/kernel-abi
ORCA_KABI	?= $(shell cat $(KABI_FILE) 2>/dev/null)
KDIR		?= /usr/src/linux-headers-$(ORCA_KABI)

export BUILD_DIR ORCA_KABI KDIR

.PHONY: all modules userspace e2e-progs deps check demo demo-one bench soak kunit-kernel style clean

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

style:
	tests/style/run-style.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userspace clean
	$(MAKE) -C tests/e2e clean
