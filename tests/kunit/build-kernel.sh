#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the Orca KUnit/debug kernel (x86_64) from Debian's linux-source-6.1.
#
#   tests/kunit/build-kernel.sh [--print-env] [--config-only] [--jobs N]
#
# The source is unpacked once into $ORCA_CACHE/linux-source-6.1 (shared
# with the style checks, never modified: the build is out of tree).  The
# kernel is built in $ORCA_CACHE/kunit-kernel-<srcver>-<hash>/, where
# <hash> covers the config fragment (kunit-kernel.config), this script's
# recipe version and the compiler, so a re-run with nothing changed does
# not rebuild.  The build directory is kept: out-of-tree modules are
# built against it with 'make -C $KUNIT_KDIR M=<dir> modules'.
#
# On success the last lines on stdout are, in shell syntax:
#   KUNIT_KERNEL_IMAGE=<bzImage>  KUNIT_KDIR=<build dir>
#   KUNIT_MODROOT=<dir with lib/modules/<krel>>  KUNIT_KREL=<kernel release>
# With --print-env nothing else is written to stdout; progress goes to
# stderr and the full make output to <build dir>/build.log.
#
# Environment: ORCA_CACHE (default ~/.cache/orca), KUNIT_SRC_TARBALL
# (default /usr/src/linux-source-6.1.tar.xz), KUNIT_JOBS (default nproc).

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FRAG=$HERE/kunit-kernel.config
# Bump when the build recipe below changes in a way that changes the result.
RECIPE=1

ORCA_CACHE=${ORCA_CACHE:-$HOME/.cache/orca}
TARBALL=${KUNIT_SRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
SRC=$ORCA_CACHE/linux-source-6.1
JOBS=${KUNIT_JOBS:-$(nproc)}
PRINT_ENV=0
CONFIG_ONLY=0

log() { echo "build-kernel: $*" >&2; }
die() { echo "build-kernel: error: $*" >&2; exit 1; }

usage() {
	awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--print-env) PRINT_ENV=1 ;;
	--config-only) CONFIG_ONLY=1 ;;
	--jobs|-j) shift; JOBS=${1:?--jobs needs a number} ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument: $1" ;;
	esac
	shift
done

[ -f "$FRAG" ] || die "missing config fragment $FRAG"
mkdir -p "$ORCA_CACHE"

# ---- unpack the source once, atomically --------------------------------
unpack_source() {
	local tmp

	if [ -f "$SRC/Makefile" ]; then
		return 0
	fi
	[ -r "$TARBALL" ] || die "$TARBALL not found (apt-get install linux-source-6.1)"
	if [ -e "$SRC" ] && [ -n "$(ls -A "$SRC" 2>/dev/null)" ]; then
		die "$SRC exists but has no Makefile: remove it and retry"
	fi
	tmp=$(mktemp -d "$ORCA_CACHE/.linux-source-6.1.XXXXXX")
	log "unpacking $TARBALL"
	if ! tar -C "$tmp" -xJf "$TARBALL"; then
		rm -rf "$tmp"
		die "unpacking $TARBALL failed"
	fi
	[ -f "$tmp/linux-source-6.1/Makefile" ] ||
		{ rm -rf "$tmp"; die "$TARBALL has no linux-source-6.1/Makefile"; }
	# rename(2) is atomic; if another process won the race, use its copy.
	if ! mv -T "$tmp/linux-source-6.1" "$SRC" 2>/dev/null; then
		[ -f "$SRC/Makefile" ] || { rm -rf "$tmp"; die "cannot move source to $SRC"; }
		log "another process unpacked $SRC first; using it"
	fi
	rm -rf "$tmp"
}

unpack_source

KVER=$(make -s -C "$SRC" kernelversion 2>/dev/null) || die "cannot read kernel version of $SRC"
DEBVER=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
if [ -n "$DEBVER" ]; then
	case "$DEBVER" in
	"$KVER"-*) ;;
	*) die "$SRC is $KVER but linux-source-6.1 is $DEBVER: remove $SRC to re-unpack" ;;
	esac
	SRCVER=$DEBVER
else
	SRCVER=$KVER
fi

CC_VER=$(${CC:-gcc} --version | head -n1)
HASH=$( { echo "recipe $RECIPE"; echo "cc $CC_VER"; cat "$FRAG"; } |
	sha256sum | cut -c1-12)
OUT=$ORCA_CACHE/kunit-kernel-$SRCVER-$HASH
LOG=$OUT/build.log
DONE=$OUT/.orca-build-complete
MODROOT=$OUT/modroot

kmake() {
	make -C "$SRC" O="$OUT" ARCH=x86_64 "$@"
}

print_env() {
	local krel

	krel=$(cat "$OUT/.orca-krel")
	if [ "$PRINT_ENV" -eq 0 ]; then
		log "kernel release $krel"
		log "image       $OUT/arch/x86/boot/bzImage"
		log "build dir   $OUT  (make -C \$KUNIT_KDIR M=<dir> modules)"
		log "module root $MODROOT"
	fi
	printf 'KUNIT_KERNEL_IMAGE=%q\n' "$OUT/arch/x86/boot/bzImage"
	printf 'KUNIT_KDIR=%q\n' "$OUT"
	printf 'KUNIT_MODROOT=%q\n' "$MODROOT"
	printf 'KUNIT_KREL=%q\n' "$krel"
}

# Every CONFIG_ line of the fragment must survive olddefconfig unchanged.
verify_config() {
	local line sym want got bad=0

	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			sym=${line%%=*}
			want=${line#*=}
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			want=n
			;;
		*) continue ;;
		esac
		got=$(grep -E "^$sym=" "$OUT/.config" | tail -n1 | cut -d= -f2- || true)
		[ -n "$got" ] || got=n
		if [ "$got" != "$want" ]; then
			echo "build-kernel: $sym: wanted $want, got $got" >&2
			bad=1
		fi
	done <"$FRAG"
	[ "$bad" -eq 0 ] || die "config check failed (see $OUT/.config)"
	log "all $(grep -cE '^(CONFIG_|# CONFIG_)' "$FRAG") fragment options verified"
}

mkdir -p "$OUT"
exec 9>"$OUT.lock"
if ! flock -n 9; then
	log "waiting for another build of $OUT"
	flock 9
fi

if [ -f "$DONE" ] && [ "$CONFIG_ONLY" -eq 0 ]; then
	log "using cached kernel $OUT"
	print_env
	exit 0
fi

START=$(date +%s)
log "building $SRCVER in $OUT (log: $LOG, -j$JOBS)"
: >"$LOG"

# Start from an empty config: every option not in the fragment takes
# its Kconfig default (this is what kunit.py does, and it is far
# smaller than x86_64_defconfig).
grep -E '^(CONFIG_|# CONFIG_)' "$FRAG" >"$OUT/.config"
kmake olddefconfig >>"$LOG" 2>&1 || die "olddefconfig failed (see $LOG)"
verify_config
if [ "$CONFIG_ONLY" -eq 1 ]; then
	log "config written to $OUT/.config"
	exit 0
fi

kmake -j"$JOBS" bzImage modules >>"$LOG" 2>&1 ||
	{ tail -n 40 "$LOG" >&2; die "kernel build failed (see $LOG)"; }
KREL=$(kmake -s kernelrelease 2>/dev/null | tail -n1)
[ -n "$KREL" ] || die "cannot determine the kernel release"

rm -rf "$MODROOT"
kmake INSTALL_MOD_PATH="$MODROOT" modules_install >>"$LOG" 2>&1 ||
	die "modules_install failed (see $LOG)"
DEPMOD=$(command -v depmod || echo /sbin/depmod)
"$DEPMOD" -b "$MODROOT" "$KREL" >>"$LOG" 2>&1 || die "depmod failed (see $LOG)"
for m in ib_core ib_uverbs rdma_rxe; do
	find "$MODROOT/lib/modules/$KREL" -name "$m.ko" | grep -q . ||
		die "module $m.ko missing from $MODROOT"
done

echo "$KREL" >"$OUT/.orca-krel"
END=$(date +%s)
log "built $KREL in $((END - START)) s"
echo "$((END - START))" >"$DONE"
print_env
