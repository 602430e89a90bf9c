#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Smoke test for liborca without a kernel driver: libibverbs is pointed at
# a fake sysfs tree (SYSFS_PATH) describing an Orca device whose parent is
# the auxiliary device orca_soft.hca.0, next to an unrelated device.  In a
# private mount namespace /dev/infiniband/uverbs0 is /dev/null, so opening
# the device reaches liborca's alloc_context, whose ALLOC_UCONTEXT
# "succeeds" with an all-zero response and must be refused for its ABI
# version.
#
# Checks: the provider loads and registers, claims orca0 only, and the
# refusal path is clean (message on stderr, no leak under valgrind).  Then
# fake-uverbs (tests/fake-uverbs.c), which answers the uverbs commands
# itself, checks that liborca validates CQ/QP/SRQ/AH responses before it
# maps anything, and undoes the object when it refuses one; and fake-dp
# (tests/fake-dp.c) plays the device behind the mapped rings to check the
# data path: WQE/CQE formats, posting rules, kicks, CQ arming, and rings
# in the application's memory from a parent domain's allocators.
#
# usage: fake-sysfs.sh <build/userspace dir>

set -eu

OUT=$(cd "${1:?usage: $0 <build/userspace dir>}" && pwd)
LIB="$OUT/liborca"

if [ "${ORCA_FAKE_SYSFS_INNER:-}" != 1 ]; then
	if ! unshare -m true 2>/dev/null && ! unshare -rm true 2>/dev/null; then
		echo "SKIP: fake-sysfs: no mount namespace available"
		exit 0
	fi
	T=$(mktemp -d /tmp/orca-fake-sysfs.XXXXXX)
	trap 'rm -rf "$T"' EXIT
	unshare_opt=-m
	unshare -m true 2>/dev/null || unshare_opt=-rm
	ORCA_FAKE_SYSFS_INNER=1 ORCA_FAKE_SYSFS_TMP="$T" \
		unshare $unshare_opt --propagation private "$0" "$OUT"
	exit $?
fi

T=$ORCA_FAKE_SYSFS_TMP
# The uverbs ABI the provider speaks, from the header both sides build with.
ABI=$(sed -n 's/^#define ORCA_UVERBS_ABI_VERSION \([0-9][0-9]*\)$/\1/p' \
	"$(dirname "$0")/../../uapi/rdma/orca-abi.h")
[ -n "$ABI" ] || { echo "FAIL: fake-sysfs: no ORCA_UVERBS_ABI_VERSION"; exit 1; }
fail() { echo "FAIL: fake-sysfs: $*" >&2; exit 1; }

# --- the fake sysfs tree --------------------------------------------------
S=$T/sys
mkdir -p "$S/class/infiniband_verbs" "$S/class/infiniband"
echo 6 > "$S/class/infiniband_verbs/abi_version"

# fake_dev <uverbs> <ibdev> <cdev major:minor> <uverbs abi> <uevent MODALIAS>
fake_dev() {
	uv=$S/class/infiniband_verbs/$1
	ib=$S/class/infiniband/$2
	mkdir -p "$uv" "$ib/device"
	echo "$2" > "$uv/ibdev"
	echo "$3" > "$uv/dev"
	echo "$4" > "$uv/abi_version"
	echo 1 > "$ib/node_type"
	printf 'DRIVER=fake\nMODALIAS=%s\n' "$5" > "$ib/device/uevent"
}

null_rdev=$(stat -L -c '%t:%T' /dev/null)
null_rdev=$(printf '%d:%d' "0x${null_rdev%:*}" "0x${null_rdev#*:}")
fake_dev uverbs0 orca0 "$null_rdev" "$ABI" auxiliary:orca_soft.hca
fake_dev uverbs1 other0 "$null_rdev" "$ABI" auxiliary:other_drv.hca

# --- a private /dev with /dev/infiniband/uverbs{0,1} = /dev/null ----------
D=$T/dev
mkdir -p "$D/infiniband"
for n in null zero urandom; do
	: > "$D/$n"
	mount --bind "/dev/$n" "$D/$n"
done
for n in uverbs0 uverbs1; do
	: > "$D/infiniband/$n"
	mount --bind /dev/null "$D/infiniband/$n"
done
mount --rbind "$D" /dev

export SYSFS_PATH="$S"
export RDMAV_DRIVERS="$LIB"
export VERBS_LOG_LEVEL=4
export VERBS_LOG_FILE="$T/verbs.log"
unset IBV_DRIVERS

# --- 1: the provider loads and claims orca0, and only orca0 -----------------
ibv_devices > "$T/devices.out" 2> "$T/devices.err" || true
cat "$T/devices.out"
grep -q 'provider registered' "$T/verbs.log" ||
	fail "liborca was not loaded (log: $(cat "$T/verbs.log"))"
grep -q 'orca0 matches' "$T/verbs.log" || fail "orca0 not matched"
grep -qw orca0 "$T/devices.out" || fail "ibv_devices does not list orca0"
! grep -qw other0 "$T/devices.out" || fail "liborca claimed other0"
! grep -q 'couldn.t load driver' "$T/devices.err" ||
	fail "libibverbs could not load liborca: $(cat "$T/devices.err")"
echo "ok 1 - provider loaded, orca0 matched by uevent MODALIAS, other0 ignored"

# --- 2: a context with the wrong Orca ABI is refused, without leaks ---------
run="ibv_devinfo -d orca0"
if command -v valgrind > /dev/null; then
	run="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --show-possibly-lost=no \
	     --error-exitcode=99 $run"
fi
rc=0
$run > "$T/devinfo.out" 2> "$T/devinfo.err" < /dev/null || rc=$?
cat "$T/devinfo.err"
[ "$rc" != 99 ] || fail "valgrind reports errors or leaks"
grep -q "speaks Orca ABI 0, this library speaks $ABI; refusing" \
	"$T/devinfo.err" || fail "ABI mismatch was not reported"
[ "$rc" != 0 ] || fail "ibv_devinfo opened a device with a bad ABI"
echo "ok 2 - ALLOC_UCONTEXT with a foreign ABI version refused cleanly"

# --- 3: CQ/QP/SRQ/AH responses are checked before anything is mapped -------
# fake-uverbs answers the uverbs commands itself (uverbs0 is /dev/null),
# giving each CREATE_* response one defect in turn.
fake="$OUT/tests/fake-uverbs"
[ -x "$fake" ] || fail "$fake is missing"
run=$fake
if command -v valgrind > /dev/null; then
	run="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --show-possibly-lost=no \
	     --error-exitcode=99 $fake"
fi
rc=0
$run > "$T/fake-uverbs.out" 2> "$T/fake-uverbs.err" < /dev/null || rc=$?
sed 's/^/# /' "$T/fake-uverbs.out"
[ "$rc" != 99 ] || fail "fake-uverbs: valgrind reports errors or leaks: $(cat "$T/fake-uverbs.err")"
[ "$rc" = 0 ] || fail "fake-uverbs: $(grep -c '^not ok' "$T/fake-uverbs.out") failed checks: $(cat "$T/fake-uverbs.err")"
echo "ok 3 - control path responses validated before mapping ($(grep -c '^ok' "$T/fake-uverbs.out") checks)"

# --- 4: the data path against a fake device in memory -----------------------
fake="$OUT/tests/fake-dp"
[ -x "$fake" ] || fail "$fake is missing"
run=$fake
if command -v valgrind > /dev/null; then
	run="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --show-possibly-lost=no \
	     --error-exitcode=99 $fake"
fi
rc=0
$run > "$T/fake-dp.out" 2> "$T/fake-dp.err" < /dev/null || rc=$?
sed 's/^/# /' "$T/fake-dp.out"
[ "$rc" != 99 ] || fail "fake-dp: valgrind reports errors or leaks: $(cat "$T/fake-dp.err")"
[ "$rc" = 0 ] || fail "fake-dp: $(grep -c '^not ok' "$T/fake-dp.out") failed checks: $(cat "$T/fake-dp.err")"
echo "ok 4 - data path against a fake device ($(grep -c '^ok' "$T/fake-dp.out") checks)"
