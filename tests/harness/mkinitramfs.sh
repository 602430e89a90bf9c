#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the Orca guest initramfs: busybox-static, guest-init.sh as /init,
# guest-stage2.sh, and the virtio/9p/overlay (and virtio_net) modules from
# the kernel's module tree, those not present there being built in;
# /modules/order lists the ones included, in load order.
#
#   mkinitramfs.sh MODTREE OUTPUT.cpio
#
# MODTREE is lib/modules/<release> of the guest kernel, or "none" for a
# kernel with everything needed built in.  The archive is uncompressed: an
# emulated CPU unpacks it faster than it decompresses it.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MODTREE=$1
OUT=$2
BUSYBOX=${BUSYBOX:-/bin/busybox}

# Load order.  virtio_net is loaded here too, only to save the time that
# modprobe would take from 9p later.
MODS=(virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev
	virtio_pci netfs fscache 9pnet 9pnet_virtio 9p overlay
	failover net_failover virtio_net)

if ldd "$BUSYBOX" >/dev/null 2>&1; then
	echo "mkinitramfs: $BUSYBOX is not statically linked (install busybox-static)" >&2
	exit 1
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/orca-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,modules,results,lower,ovl,newroot}
cp "$BUSYBOX" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
install -m 0755 "$HERE/guest-init.sh" "$root/init"
install -m 0755 "$HERE/guest-stage2.sh" "$root/stage2.sh"

if [ "$MODTREE" != none ]; then
	for m in "${MODS[@]}"; do
		f=$(find "$MODTREE" -name "$m.ko" -o -name "$m.ko.xz" \
			-o -name "$m.ko.zst" -o -name "$m.ko.gz" | head -n1)
		if [ -z "$f" ]; then
			if ! grep -q "/$m\.ko$" "$MODTREE/modules.builtin" 2>/dev/null; then
				echo "mkinitramfs: note: $m neither a module nor listed as built in" >&2
			fi
			continue
		fi
		case "$f" in
		*.xz) xz -dc "$f" >"$root/modules/$m.ko" ;;
		*.zst) zstd -qdc "$f" >"$root/modules/$m.ko" ;;
		*.gz) gzip -dc "$f" >"$root/modules/$m.ko" ;;
		*) cp "$f" "$root/modules/$m.ko" ;;
		esac
		echo "$m" >>"$root/modules/order"
	done
fi

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --quiet) >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
