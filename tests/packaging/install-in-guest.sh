#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# In a guest booted by run-install.sh, on the stock kernel, with no
# module of Orca loaded and no environment variable pointing at a build
# tree: install the packages in DEB_DIR as a user would, use orca0, and
# remove them.  Prints TAP, and the transcript of each step as comments.
# The guest's root is an overlay of the host's: what dpkg and DKMS write
# is gone at power-off.
#
#   install-in-guest.sh DEB_DIR

DEB_DIR=$1
REL=$(uname -r)
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
# shellcheck source=tests/e2e/lib-tools.sh
. "$(dirname "$0")/../e2e/lib-tools.sh"
# lib.sh points libibverbs at the build tree: an installed system has no
# such variable.
unset RDMAV_DRIVERS IBV_DRIVERS

show() { sed -u 's/^/# /'; }
run() { # run CMD...: the command and its output as a transcript, each
	# line as it comes, with the seconds since the command started
	local t0=$SECONDS line
	echo "# \$ $*"
	"$@" 2>&1 | while IFS= read -r line; do
		printf '# [%4d s] %s\n' $((SECONDS - t0)) "$line"
	done
	return "${PIPESTATUS[0]}"
}

# What a user's system would have of Orca before: nothing.
left=$(
	[ -e /etc/libibverbs.d/orca.driver ] && echo /etc/libibverbs.d/orca.driver
	modinfo -F filename orca orca_soft 2>/dev/null
	ls -d /usr/src/orca-* /var/lib/dkms/orca 2>/dev/null
	dpkg-query -W orca-dkms liborca 2>/dev/null
	lsmod | awk '$1 == "orca" || $1 == "orca_soft" { print "loaded: " $1 }'
)
[ -z "$left" ]
ok $? "the guest has nothing of Orca before the install${left:+: $left}"

# DKMS builds against /lib/modules/<release>/build, which the headers
# package provides; the harness mounts the stock image's module tree
# there, without the headers' link.
if [ ! -e "/lib/modules/$REL/build" ] && [ -d "/usr/src/linux-headers-$REL" ]; then
	ln -s "/usr/src/linux-headers-$REL" "/lib/modules/$REL/build"
	echo "# linked /lib/modules/$REL/build to /usr/src/linux-headers-$REL (installed headers)"
fi

# man-db's trigger would rebuild the whole manual index under emulation
# for minutes; man finds pages without it.
rm -f /var/lib/man-db/auto-update

cp "$DEB_DIR"/orca-dkms_*_all.deb "$DEB_DIR"/liborca_*_amd64.deb \
	"$DEB_DIR"/liborca-dev_*_all.deb /tmp/
t0=$(date +%s)
run env DEBIAN_FRONTEND=noninteractive apt-get install -y \
	/tmp/orca-dkms_*_all.deb /tmp/liborca_*_amd64.deb /tmp/liborca-dev_*_all.deb
ok $? "apt-get install ./orca-dkms_*.deb ./liborca_*.deb ./liborca-dev_*.deb ($(($(date +%s) - t0)) s, DKMS build included)"

printf '#include <infiniband/orcadv.h>\nunsigned long long t = ORCADV_RES_TYPE_QP;\n' |
	cc -x c -fsyntax-only - 2>&1 | show
ok "${PIPESTATUS[1]}" "liborca-dev: infiniband/orcadv.h compiles from the installed path"

run dkms status
dkms status 2>/dev/null | grep -q "^orca/.*, $REL, .*: installed"
ok $? "dkms status: orca installed for $REL"

mods=$(modinfo -F filename orca orca_soft 2>/dev/null | tr '\n' ' ')
[[ "$mods" == *"/lib/modules/$REL/updates/dkms/orca.ko"* ]] &&
	[[ "$mods" == *"/lib/modules/$REL/updates/dkms/orca_soft.ko"* ]]
ok $? "modinfo finds orca and orca_soft under updates/dkms ($mods)"
modinfo -p orca_soft 2>/dev/null | show
modinfo -p orca 2>/dev/null | show
[ -n "$(modinfo -p orca_soft 2>/dev/null)" ] && [ -n "$(modinfo -p orca 2>/dev/null)" ]
ok $? "modinfo documents the modules' parameters"

# No modprobe: the RDMA core loads orca_soft for the link type, and
# orca_soft's softdep brings orca.
run rdma link add "$ORCA_DEV" type orca netdev "$ORCA_NETDEV"
ok $? "rdma link add $ORCA_DEV type orca netdev $ORCA_NETDEV, with no module loaded by hand"
lsmod | grep -E '^orca(_soft)? ' | show
[ "$(lsmod | grep -cE '^orca(_soft)? ')" -eq 2 ]
ok $? "orca_soft and orca were loaded by the kernel"

run ibv_devices
ibv_devices 2>/dev/null | grep -qw "$ORCA_DEV"
ok $? "ibv_devices lists $ORCA_DEV (no RDMAV_DRIVERS: found through /etc/libibverbs.d/orca.driver)"

gidx=
for _ in $(seq 150); do
	gidx=$(tools_gid_index "$ORCA_DEV" "$ORCA_NETDEV") && break
	sleep 0.2
done
port=$((TOOLS_PORT + 7))
ibv_rc_pingpong -d "$ORCA_DEV" -g "${gidx:-0}" -p "$port" -n 100 -c >/tmp/pp-s.out 2>&1 &
spid=$!
for _ in $(seq 150); do
	tools_listening "$port" && break
	sleep 0.2
done
timeout 120 ibv_rc_pingpong -d "$ORCA_DEV" -g "${gidx:-0}" -p "$port" -n 100 -c 127.0.0.1 \
	>/tmp/pp-c.out 2>&1
crc=$?
timeout 30 tail --pid="$spid" -f /dev/null
wait "$spid"
src=$?
show </tmp/pp-c.out
[ "$crc" -eq 0 ] && [ "$src" -eq 0 ] && grep -q 'iters in' /tmp/pp-c.out
ok $? "ibv_rc_pingpong -g ${gidx:-none} -c: 100 round trips, server and client exit 0 ($src, $crc)"

man -w orca 2>&1 | show
man -w orca_soft 2>&1 | show
MANWIDTH=80 man 7 orca 2>/dev/null | grep -q 'rdma link add orca0 type orca netdev eth0' &&
	MANWIDTH=80 man 4 orca_soft 2>/dev/null | grep -q 'inline_kicks'
ok $? "man 7 orca and man 4 orca_soft read"

run rdma link delete "$ORCA_DEV"
modprobe -r orca orca_soft
ok $? "rdma link delete $ORCA_DEV; modprobe -r orca orca_soft"

t0=$(date +%s)
run env DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y orca-dkms liborca liborca-dev
ok $? "apt-get remove --purge orca-dkms liborca liborca-dev ($(($(date +%s) - t0)) s)"

left=$(
	ls /etc/libibverbs.d/orca.driver /usr/lib/*/libibverbs/liborca-rdmav34.so \
		"/lib/modules/$REL/updates/dkms/orca.ko" "/lib/modules/$REL/updates/dkms/orca_soft.ko" \
		/usr/share/man/man7/orca.7.gz /usr/share/man/man4/orca_soft.4.gz \
		/usr/include/infiniband/orcadv.h 2>/dev/null
	ls -d /usr/src/orca-* /var/lib/dkms/orca /usr/share/doc/orca-dkms /usr/share/doc/liborca \
		/usr/share/doc/liborca-dev 2>/dev/null
	modinfo -F filename orca orca_soft 2>/dev/null
	dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' orca-dkms liborca liborca-dev 2>/dev/null |
		grep -v ' un'
)
[ -z "$left" ]
ok $? "nothing is left behind${left:+: $left}"
ibv_devices 2>&1 | show

plan "$_tap_n"
done_testing
