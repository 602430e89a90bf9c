#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install Orca's build and test dependencies (Debian packages only) and
# unpack the stock Debian kernel for the guest harness.  Idempotent: work
# that is already done is skipped.
#
#   build/kernel/                 dpkg -x of linux-image-<abi> (never installed)
#   build/kernel-abi              the ABI string, e.g. 6.1.0-56-amd64
#
# Called by 'make deps'.  Needs root for apt-get.

set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}
KDEST=$BUILD_DIR/kernel
export DEBIAN_FRONTEND=noninteractive

log() { echo "install-deps: $*"; }

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
	SUDO=(sudo -n)
fi

APT_UPDATED=0
apt_update() {
	if [ "$APT_UPDATED" -eq 0 ]; then
		log "apt-get update"
		"${SUDO[@]}" apt-get update -q
		APT_UPDATED=1
	fi
}

# Resolve the current stock kernel ABI from the metapackage.
resolve_abi() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\([0-9][^ ]*-amd64\)$/\1/p' | head -n1
}

PKGS_COMMON=(
	qemu-system-x86 busybox-static kmod cpio
	rdma-core ibverbs-utils perftest rdmacm-utils python3-pyverbs strace
	libibverbs-dev librdmacm-dev iproute2 sparse linux-source-6.1
	gcc make bc bison flex libelf-dev libssl-dev dwarves rsync xz-utils
	pkg-config
	shellcheck
	nvme-cli nfs-kernel-server fio
	ucx-utils openmpi-bin libopenmpi-dev libfabric-bin
	strace
	debhelper dh-dkms dkms lintian fakeroot man-db
)

missing_pkgs() { # missing_pkgs PKG...: print those not installed
	local p st
	for p in "$@"; do
		st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
		case "$st" in
		ii*) ;;
		*) echo "$p" ;;
		esac
	done
}

kernel_unpacked() { # kernel_unpacked ABI
	[ -f "$KDEST/.unpacked-$1" ] && [ -f "$KDEST/lib/modules/$1/modules.dep" ] &&
		[ -f "$KDEST/boot/vmlinuz-$1" ]
}

# Nothing to do if the recorded ABI is still the metapackage's, and its
# headers, its unpacked image and every package are there.  Otherwise
# refresh the package lists first: stale lists name stale kernels.
ABI=$(resolve_abi || true)
RECORDED=$(cat "$BUILD_DIR/kernel-abi" 2>/dev/null || true)
if [ -n "$ABI" ] && [ "$ABI" = "$RECORDED" ] && kernel_unpacked "$ABI" &&
	[ -z "$(missing_pkgs "linux-headers-$ABI" "${PKGS_COMMON[@]}")" ]; then
	log "stock kernel ABI $ABI: everything already installed and unpacked"
	exit 0
fi
apt_update
ABI=$(resolve_abi || true)
if [ -z "$ABI" ]; then
	echo "install-deps: cannot resolve linux-image-amd64 -> linux-image-<abi>" >&2
	exit 1
fi
log "stock kernel ABI: $ABI"

mapfile -t missing < <(missing_pkgs "linux-headers-$ABI" "${PKGS_COMMON[@]}")
if [ "${#missing[@]}" -gt 0 ]; then
	log "installing: ${missing[*]}"
	"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
	log "all packages already installed"
fi

# Unpack (never install) the stock kernel image package.
mkdir -p "$KDEST"
if kernel_unpacked "$ABI"; then
	log "kernel $ABI already unpacked in $KDEST"
else
	tmp=$(mktemp -d "$BUILD_DIR/.kernel-dl.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# Downloading as root into our own directory: no _apt sandbox.
	(cd "$tmp" && apt-get download -o APT::Sandbox::User=root "linux-image-$ABI")
	deb=$(find "$tmp" -maxdepth 1 -name "linux-image-${ABI}_*.deb" | head -n1)
	[ -n "$deb" ] || { echo "install-deps: download failed" >&2; exit 1; }
	rm -rf "$KDEST.new"
	mkdir -p "$KDEST.new"
	dpkg -x "$deb" "$KDEST.new"
	depmod -b "$KDEST.new" "$ABI"
	touch "$KDEST.new/.unpacked-$ABI"
	rm -rf "$KDEST"
	mv "$KDEST.new" "$KDEST"
	rm -rf "$tmp"
	trap - EXIT
	log "kernel $ABI unpacked in $KDEST"
fi

if [ ! -f "$KDEST/boot/vmlinuz-$ABI" ]; then
	echo "install-deps: $KDEST/boot/vmlinuz-$ABI missing" >&2
	exit 1
fi

echo "$ABI" >"$BUILD_DIR/kernel-abi.tmp"
mv "$BUILD_DIR/kernel-abi.tmp" "$BUILD_DIR/kernel-abi"
log "wrote $BUILD_DIR/kernel-abi"
