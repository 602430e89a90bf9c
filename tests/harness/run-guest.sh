#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run a command as root inside a QEMU (TCG) guest that boots a kernel over
# the host's root filesystem (9p, read-only, under a tmpfs overlay), and
# fail on any kernel bug report, a hung guest, or a module that will not
# unload.  See usage() below.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$REPO/build}

usage() {
	cat <<'USAGE'
usage: run-guest.sh [options] [--] [COMMAND [ARG...]]
       run-guest.sh [options] --pair --cmd-a STRING --cmd-b STRING

Boots a guest, runs COMMAND (or --cmd STRING, a bash script text) as root
with cwd = --cwd (default: the repository), prints its stdout, and exits
with its status; exits 99 if the harness found a problem: a kernel report
(Oops, BUG, WARNING, KASAN, UBSAN, lockdep, kmemleak, panic, hung task,
...), a timeout (hung guest, QEMU is killed), a guest that died without
reporting, or a module named by --unload that would not unload.  Each
finding is printed to stderr as one line starting with "harness: ".

Options:
  --kernel-image PATH  kernel bzImage (default: the stock Debian kernel
                       unpacked by 'make deps' in build/kernel)
  --modules-dir PATH   tree containing lib/modules/<release> (default:
                       build/kernel); "none" if the kernel has all it
                       needs built in
  --timeout SEC        kill the guest after SEC seconds (default 600)
  --boot-timeout SEC   a single guest that has not started the command
                       after SEC seconds (default 240) is killed and booted
                       once more; a second boot hang is a finding
  --unload "M1 M2"     modules that must be unloaded (rmmod) cleanly at the
                       end; those still loaded are removed in that order
  --append "ARGS"      extra kernel command line
  --out DIR            where to put console logs and artifacts (default:
                       a new directory under build/harness/runs)
  --cwd DIR            working directory of the command (default: repo)
  --cmd STRING         the command as a bash script text
  --pair               boot two guests, a and b, that share an Ethernet
                       segment on eth1 (10.99.0.1/24 and 10.99.0.2/24)
  --cmd-a STRING       guest a's command (with --pair)
  --cmd-b STRING       guest b's command (with --pair)
  --smp N  --mem MB    guest size (default 2 vCPUs, 2048 MiB)
  --verbose            copy the guest console to stderr as it runs
  -h, --help           this text

In the guest: eth0 is QEMU user networking (10.0.2.15/24, restricted: no
route out of QEMU); /proc /sys /dev /sys/kernel/debug are mounted; the
environment has ORCA_GUEST (guest|a|b), ORCA_RESULTS (a read-write
directory whose files appear in the host's --out DIR/<guest>/share), and
with --pair ORCA_SELF_IP and ORCA_PEER_IP.  The guest kernel is given the
host's TSC frequency (tsc_early_khz=, measured by tests/harness/tsc-khz.c):
under TCG the guest's TSC is the host's, and the kernel's own calibration
against the emulated PIT can be far off on a busy host.

Artifacts: DIR/<guest>/console.log, DIR/<guest>/share/{stdout,stderr,
status,dmesg,unload.log,stage2.log}, DIR/findings.
USAGE
}

die() {
	echo "run-guest: $*" >&2
	exit 2
}

KERNEL=
MODULES=
TIMEOUT=600
UNLOAD=
APPEND=
OUT=
CWD=$REPO
CMD=
CMD_A=
CMD_B=
PAIR=0
SMP=2
MEM=2048
VERBOSE=0
BOOT_TIMEOUT=240
HAVE_CMD=0

while [ "$#" -gt 0 ]; do
	case "$1" in
	--kernel-image) KERNEL=$2; shift 2 ;;
	--modules-dir) MODULES=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--unload) UNLOAD=$2; shift 2 ;;
	--append) APPEND=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--cwd) CWD=$2; shift 2 ;;
	--cmd) CMD=$2; HAVE_CMD=1; shift 2 ;;
	--cmd-a) CMD_A=$2; shift 2 ;;
	--cmd-b) CMD_B=$2; shift 2 ;;
	--pair) PAIR=1; shift ;;
	--smp) SMP=$2; shift 2 ;;
	--mem) MEM=$2; shift 2 ;;
	--verbose) VERBOSE=1; shift ;;
	--boot-timeout) BOOT_TIMEOUT=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) usage >&2; die "unknown option $1" ;;
	*) break ;;
	esac
done
if [ "$#" -gt 0 ]; then
	[ "$HAVE_CMD" -eq 0 ] || die "give either --cmd or a COMMAND, not both"
	CMD=$(printf '%q ' "$@")
	HAVE_CMD=1
fi
if [ "$PAIR" -eq 1 ]; then
	if [ -z "$CMD_A" ] || [ -z "$CMD_B" ]; then
		die "--pair needs --cmd-a and --cmd-b"
	fi
	[ "$HAVE_CMD" -eq 0 ] || die "--pair takes --cmd-a and --cmd-b, not a command"
else
	[ "$HAVE_CMD" -eq 1 ] || { usage >&2; die "no command given"; }
fi
[[ "$TIMEOUT" =~ ^[0-9]+$ ]] || die "--timeout wants seconds"
[[ "$BOOT_TIMEOUT" =~ ^[0-9]+$ ]] || die "--boot-timeout wants seconds"
[ -d "$CWD" ] || die "--cwd $CWD: no such directory"
CWD=$(cd "$CWD" && pwd)

# --- the kernel and its modules -------------------------------------------

ABI=${ORCA_KABI:-$(cat "$BUILD_DIR/kernel-abi" 2>/dev/null || true)}
if [ -z "$KERNEL" ]; then
	[ -n "$ABI" ] || die "no build/kernel-abi: run 'make deps' or give --kernel-image"
	KERNEL=$BUILD_DIR/kernel/boot/vmlinuz-$ABI
	: "${MODULES:=$BUILD_DIR/kernel}"
fi
[ -f "$KERNEL" ] || die "kernel image $KERNEL not found (run 'make deps')"

# The release string from the bzImage setup header (kernel_version field).
kernel_release() {
	local off
	off=$(od -An -tu2 -j 526 -N 2 "$1" | tr -d ' ')
	[ -n "$off" ] && [ "$off" -gt 0 ] || return 1
	dd if="$1" bs=1 skip=$((off + 512)) count=256 status=none |
		tr '\0' '\n' | head -n1 | cut -d' ' -f1
}
RELEASE=$(kernel_release "$KERNEL" || true)

if [ -z "$MODULES" ]; then
	MODULES=none
	for d in "$(dirname "$KERNEL")/.." "$(dirname "$KERNEL")"; do
		if [ -n "$RELEASE" ] && [ -d "$d/lib/modules/$RELEASE" ]; then
			MODULES=$(cd "$d" && pwd)
			break
		fi
	done
fi
MODTREE=none
if [ "$MODULES" != none ]; then
	[ -d "$MODULES/lib/modules" ] || die "--modules-dir $MODULES has no lib/modules"
	# Physical path: stage 1 resolves it before switch_root, where an
	# absolute symlink (a worktree's build/kernel) points nowhere.
	MODULES=$(cd "$MODULES" && pwd -P)
	if [ -z "$RELEASE" ]; then
		RELEASE=$(find "$MODULES/lib/modules" -mindepth 1 -maxdepth 1 \
			-printf '%f\n' | head -n1)
	fi
	MODTREE=$MODULES/lib/modules/$RELEASE
	[ -d "$MODTREE" ] || die "no $MODTREE (kernel release $RELEASE)"
	if [ ! -f "$MODTREE/modules.dep" ]; then
		depmod -b "$MODULES" "$RELEASE" || die "depmod failed for $MODTREE"
	fi
fi
[ -n "$RELEASE" ] || die "cannot tell the release of $KERNEL"

# Boot the uncompressed ELF vmlinux through its PVH entry point when the
# bzImage holds one: an emulated CPU takes seconds to decompress a kernel.
boot_image() {
	local img=$1 key out off magic fmt tmp
	if [ "$(head -c 4 "$img" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
		echo "$img" # already an ELF vmlinux
		return
	fi
	key=$(stat -L -c '%n %s %Y' "$img" | sha256sum | cut -c1-16)
	out=$BUILD_DIR/harness/vmlinux-$key
	if [ -f "$out" ]; then
		echo "$out"
		return
	fi
	tmp=$(mktemp "$out.XXXXXX")
	for fmt in xz gzip zstd; do
		case $fmt in
		xz) magic=$'\xfd7zXZ\x00' ;;
		gzip) magic=$'\x1f\x8b\x08' ;;
		zstd) magic=$'\x28\xb5\x2f\xfd' ;;
		esac
		off=$(LC_ALL=C grep -abo -m1 "$magic" "$img" 2>/dev/null | head -n1 | cut -d: -f1)
		[ -n "$off" ] || continue
		case $fmt in
		xz) tail -c +$((off + 1)) "$img" | xz -dc --single-stream >"$tmp" 2>/dev/null ;;
		gzip) tail -c +$((off + 1)) "$img" | gzip -dc >"$tmp" 2>/dev/null ;;
		zstd) tail -c +$((off + 1)) "$img" | zstd -qdc >"$tmp" 2>/dev/null ;;
		esac
		# Keep it only if it is an ELF with a Xen PVH entry note (type 18).
		if [ "$(head -c 4 "$tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] &&
			readelf -n "$tmp" 2>/dev/null | grep -q 'Xen.*(0x00000012)'; then
			mv "$tmp" "$out"
			echo "$out"
			return
		fi
	done
	rm -f "$tmp"
	echo "$img"
}

# --- initramfs (cached by content) ----------------------------------------

mkdir -p "$BUILD_DIR/harness"
key=$( {
	cat "$HERE/guest-init.sh" "$HERE/guest-stage2.sh" "$HERE/mkinitramfs.sh"
	echo "$MODTREE $RELEASE"
	[ "$MODTREE" = none ] || find "$MODTREE" -maxdepth 1 -name modules.dep -printf '%T@ %s\n'
	stat -L -c '%Y %s' /bin/busybox
} | sha256sum | cut -c1-16)
INITRD=$BUILD_DIR/harness/initramfs-$key.cpio
if [ ! -f "$INITRD" ]; then
	"$HERE/mkinitramfs.sh" "$MODTREE" "$INITRD"
fi
BOOT_IMAGE=$(boot_image "$KERNEL")

# --- output ----------------------------------------------------------------

if [ -z "$OUT" ]; then
	mkdir -p "$BUILD_DIR/harness/runs"
	OUT=$(mktemp -d "$BUILD_DIR/harness/runs/$(date +%Y%m%d-%H%M%S).XXXX")
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
: >"$OUT/findings"

SOCKDIR=
PIDS=()
declare -A STATUS
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	[ -z "$SOCKDIR" ] || rm -rf "$SOCKDIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

finding() {
	echo "harness: $*" | tee -a "$OUT/findings" >&2
}

# Not "quiet": when a guest hangs during boot, the console log is all
# there is to tell where.
CMDLINE="console=ttyS0,115200 printk.time=1 panic=-1 oops=panic"
CMDLINE+=" random.trust_cpu=on mitigations=off tsc=reliable"
# PCI interrupt routing from the BIOS table, not ACPI _PRT: a slow (debug)
# kernel can take 30 s per device there (AE_AML_LOOP_TIMEOUT).
CMDLINE+=" pci=noacpi"
# 4-level paging: QEMU's "-cpu max" offers LA57, and with 5-level paging
# Linux 6.1 has a window at boot where KASAN reports a "wild-memory-access"
# that is not one: start_kernel() enables interrupts before
# arch_cpu_finalize_init(), whose identify_cpu() clears and re-reads
# boot_cpu_data's feature bits, so an interrupt taken meanwhile sees
# cpu_feature_enabled(X86_FEATURE_LA57) false, KASAN's shadow bounds
# computed for 4-level paging, and the 5-level address of its irq_desc
# outside them (seen once, 0.003 s into a debug boot, in
# handle_edge_irq(), before any module).  KASAN stays on.
CMDLINE+=" no5lvl"
# A periodic tick.  Under TCG the guest has no TSC-deadline timer, so each
# CPU's clock events come from its local APIC timer, in one-shot mode by
# default (NO_HZ idle, high-resolution timers).  On an overloaded host
# (2026-11-28: a 2-vCPU guest beside a 2-vCPU debug guest, on 2 CPUs) one
# such interrupt was lost: CPU 0 halted in idle and never took a timer
# interrupt again ("rcu_preempt kthread timer wakeup didn't happen",
# "Possible timer handling issue on cpu=0"), because Linux 6.1 reprograms
# a one-shot clock event only for an earlier expiry than the one it
# thinks is pending.  With both of these the local APIC timer runs in
# periodic mode, which QEMU re-arms by itself, so one lost interrupt
# costs one tick.  Measured beside the default on 310-wire-lossy.t,
# 86-odp.t and 300-wire-veth.t: no slower.
CMDLINE+=" nohz=off highres=off"
# The TSC's frequency, measured here: under TCG the guest's TSC is the
# host's, and the guest's own calibration against the emulated PIT goes
# wrong on a busy host (2026-11-26: "PIT calibration deviates from HPET:
# 979521 2594582", and Linux then trusts the PIT), so that the guest's
# clock, timers and every timeout in it ran 2.65 times too fast.
TSC_KHZ_BIN=$BUILD_DIR/harness/tsc-khz
if [ ! -x "$TSC_KHZ_BIN" ] || [ "$TSC_KHZ_BIN" -ot "$HERE/tsc-khz.c" ]; then
	mkdir -p "$BUILD_DIR/harness"
	# Guests of one make check start side by side: each builds its
	# own copy and renames it into place (rename is atomic).
	${CC:-cc} -O2 -o "$TSC_KHZ_BIN.$$" "$HERE/tsc-khz.c" &&
		mv "$TSC_KHZ_BIN.$$" "$TSC_KHZ_BIN"
fi
if TSC_KHZ=$("$TSC_KHZ_BIN") && [ "$TSC_KHZ" -gt 0 ]; then
	CMDLINE+=" tsc_early_khz=$TSC_KHZ"
else
	echo "harness: note: cannot measure the host's TSC; the guests calibrate their own" >&2
fi
[ -z "$APPEND" ] || CMDLINE+=" $APPEND"

# prepare_guest NAME HOSTNAME CMD ETH1_ADDR SELF_IP PEER_IP
prepare_guest() {
	local d=$OUT/$1
	rm -rf "$d"
	mkdir -p "$d/share"
	chmod 0777 "$d/share"
	{
		printf 'ORCA_MODDIR=%q\n' "$([ "$MODTREE" = none ] || echo "$MODTREE")"
		printf 'ORCA_RELEASE=%q\n' "$RELEASE"
		printf 'ORCA_CWD=%q\n' "$CWD"
		printf 'ORCA_HOSTNAME=%q\n' "$2"
		printf 'ORCA_UNLOAD=%q\n' "$UNLOAD"
		printf 'ORCA_ETH1_ADDR=%q\n' "$4"
		printf 'export ORCA_GUEST=%q ORCA_RESULTS=/orca-results\n' "$1"
		printf 'export ORCA_SELF_IP=%q ORCA_PEER_IP=%q\n' "$5" "$6"
	} >"$d/share/guest.conf"
	printf '#!/bin/bash\n%s\n' "$3" >"$d/share/cmd.sh"
}

# start_guest NAME MAC_INDEX [extra qemu args...]
start_guest() {
	local name=$1 idx=$2
	shift 2
	local d=$OUT/$name
	# shellcheck disable=SC2054 # the commas are QEMU's
	local args=(
		-accel tcg,thread=multi -cpu max -smp "$SMP" -m "$MEM"
		-nographic -no-reboot
		-kernel "$BOOT_IMAGE" -initrd "$INITRD" -append "$CMDLINE"
		-netdev user,id=n0,restrict=on
		-device "virtio-net-pci,netdev=n0,romfile=,mac=52:54:00:12:34:5$idx"
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
		-virtfs "local,path=$d/share,mount_tag=results,security_model=none"
		"$@"
	)
	printf '%q ' qemu-system-x86_64 "${args[@]}" >"$d/qemu-cmdline"
	date +%s.%N >"$d/start-time"
	timeout --kill-after=10 "$TIMEOUT" \
		qemu-system-x86_64 "${args[@]}" </dev/null >"$d/console.log" 2>"$d/qemu.err" &
	PIDS+=("$!")
	if [ "$VERBOSE" -eq 1 ]; then
		tail -n +1 -F "$d/console.log" 2>/dev/null | sed -u "s/^/[$name] /" >&2 &
		PIDS+=("$!")
	fi
}

last_console_line() {
	tr -d '\r' <"$1/console.log" | grep -a . | tail -n 1 | cut -c1-200
}

# check_guest NAME QEMU_STATUS: report findings, set STATUS_<name>.
check_guest() {
	local name=$1 qst=$2 d=$OUT/$1 s line
	if [ "$qst" -eq 124 ] || [ "$qst" -eq 137 ]; then
		finding "guest $name hung: timed out after $TIMEOUT s, QEMU killed; last console line: $(last_console_line "$d")"
	elif [ "$qst" -ne 0 ]; then
		finding "guest $name: QEMU exited with status $qst: $(head -n1 "$d/qemu.err")"
	fi
	if [ -f "$d/share/stage1-error" ]; then
		finding "guest $name: $(cat "$d/share/stage1-error")"
	fi
	"$HERE/scan-console.sh" "$d/console.log" "$d/share/dmesg" |
		sed "s/^harness: /harness: [$name] /" >"$d/scan" || true
	if [ -s "$d/scan" ]; then
		sed 's/^harness: \[[a-z]*\] /harness: /' "$d/scan" |
			if [ "$PAIR" -eq 1 ]; then cat "$d/scan"; else cat; fi |
			tee -a "$OUT/findings" >&2
	fi
	if [ -s "$d/share/kmemleak" ]; then
		line=$(grep -m1 . "$d/share/kmemleak")
		finding "kernel reported kmemleak: $line"
	fi
	if [ -f "$d/share/unload.log" ]; then
		while read -r line; do
			case "$line" in
			FAIL*) finding "module will not unload: ${line#FAIL }" ;;
			esac
		done <"$d/share/unload.log"
	elif [ -n "$UNLOAD" ]; then
		finding "guest $name: unload of '$UNLOAD' was not checked (guest did not get that far)"
	fi
	s=
	if [ -f "$d/share/status" ]; then
		s=$(cat "$d/share/status")
	fi
	if [ -z "$s" ]; then
		finding "guest $name ended without reporting the command's exit status"
		s=255
	fi
	STATUS[$name]=$s
	if [ -f "$d/share/started" ]; then
		local t0 t1
		t0=$(cat "$d/start-time")
		t1=$(stat -c '%.3Y' "$d/share/started" 2>/dev/null || stat -c '%Y' "$d/share/started")
		echo "harness: timing: guest $name: boot to command $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}') s (guest uptime $(cut -d' ' -f1 "$d/share/started") s); command status $s" >&2
	fi
}

# --- run ---------------------------------------------------------------------

T0=$(date +%s)
if [ "$PAIR" -eq 0 ]; then
	# A guest that hangs before it starts the command (an emulated boot
	# on a loaded machine can lose a timer) is booted once more.  It is
	# said on stderr; a second such hang is a finding like any hang.
	for attempt in 1 2; do
		prepare_guest guest orca-guest "$CMD" "" "" ""
		start_guest guest 6
		pid=${PIDS[-1]}
		[ "$VERBOSE" -eq 0 ] || pid=${PIDS[-2]}
		boot_deadline=$(($(date +%s) + BOOT_TIMEOUT))
		boot_hung=0
		while kill -0 "$pid" 2>/dev/null; do
			[ ! -f "$OUT/guest/share/started" ] || break
			if [ "$attempt" -eq 1 ] && [ "$BOOT_TIMEOUT" -lt "$TIMEOUT" ] &&
				[ "$(date +%s)" -ge "$boot_deadline" ]; then
				boot_hung=1
				break
			fi
			sleep 0.5
		done
		if [ "$boot_hung" -eq 1 ]; then
			echo "harness: retry: guest hung during boot (no command after $BOOT_TIMEOUT s; last console line: $(last_console_line "$OUT/guest")); booting it again" >&2
			pkill -P "$pid" 2>/dev/null || true
			kill "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
			rm -rf "$OUT/guest-boot-hang"
			mv "$OUT/guest" "$OUT/guest-boot-hang"
			continue
		fi
		break
	done
	qst=0
	wait "$pid" || qst=$?
	check_guest guest "$qst"
	status=${STATUS[guest]}
	[ ! -f "$OUT/guest/share/stdout" ] || cat "$OUT/guest/share/stdout"
else
	SOCKDIR=$(mktemp -d /tmp/orca-seg.XXXXXX)
	prepare_guest a guest-a "$CMD_A" 10.99.0.1/24 10.99.0.1 10.99.0.2
	prepare_guest b guest-b "$CMD_B" 10.99.0.2/24 10.99.0.2 10.99.0.1
	seg() { # seg LOCAL REMOTE MAC
		echo -netdev "dgram,id=seg,local.type=unix,local.path=$SOCKDIR/$1,remote.type=unix,remote.path=$SOCKDIR/$2"
		echo -device "virtio-net-pci,netdev=seg,romfile=,mac=$3"
	}
	mapfile -t seg_a < <(seg a b 52:54:00:99:00:01 | tr ' ' '\n')
	mapfile -t seg_b < <(seg b a 52:54:00:99:00:02 | tr ' ' '\n')
	start_guest a 1 "${seg_a[@]}"
	pid_a=${PIDS[-1]}
	[ "$VERBOSE" -eq 0 ] || pid_a=${PIDS[-2]}
	start_guest b 2 "${seg_b[@]}"
	pid_b=${PIDS[-1]}
	[ "$VERBOSE" -eq 0 ] || pid_b=${PIDS[-2]}
	# The segment's sockets when a guest's eth1 stops transmitting
	# ("NETDEV WATCHDOG"): whose socket holds unread datagrams (Recv-Q)
	# and how busy each QEMU is say which side stopped (see README).
	seg_watch() {
		local g qemu_a qemu_b f=$OUT/segment-stall.txt
		while kill -0 "$pid_a" 2>/dev/null || kill -0 "$pid_b" 2>/dev/null; do
			for g in a b; do
				grep -qa 'NETDEV WATCHDOG' "$OUT/$g/console.log" 2>/dev/null || continue
				# The QEMUs: the children of the timeout processes.
				qemu_a=$(pgrep -P "$pid_a" | head -n 1)
				qemu_b=$(pgrep -P "$pid_b" | head -n 1)
				{
					echo "guest $g: eth1's transmit queue timed out; the segment's sockets:"
					ss -xamnp 2>&1 | grep -A1 -F "$SOCKDIR" || true
					echo "the QEMUs' CPU over 2 s (a's pid $qemu_a, b's $qemu_b):"
					top -b -n 2 -d 2 -p "$qemu_a" -p "$qemu_b" 2>&1 | grep qemu | tail -n 2 || true
				} >"$f"
				return 0
			done
			sleep 10
		done
	}
	seg_watch &
	watch_pid=$!
	qa=0
	qb=0
	wait "$pid_a" || qa=$?
	wait "$pid_b" || qb=$?
	kill "$watch_pid" 2>/dev/null || true
	wait "$watch_pid" 2>/dev/null || true
	if [ -s "$OUT/segment-stall.txt" ]; then
		sed 's/^/harness: /' "$OUT/segment-stall.txt" >&2
	fi
	check_guest a "$qa"
	check_guest b "$qb"
	status=${STATUS[a]}
	[ "$status" -ne 0 ] || status=${STATUS[b]}
	for g in a b; do
		echo "# --- guest $g stdout ---"
		[ ! -f "$OUT/$g/share/stdout" ] || cat "$OUT/$g/share/stdout"
	done
fi
echo "harness: done: artifacts in $OUT ($(($(date +%s) - T0)) s)" >&2

if [ -s "$OUT/findings" ]; then
	exit 99
fi
exit "$status"
