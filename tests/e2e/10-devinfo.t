#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# orca0 as rdma-core's own tools see it: listed by ibv_devices, attributes
# from QUERY_DEVICE/QUERY_PORT, port ACTIVE, RoCEv2 GIDs populated by
# ib_core from eth0's addresses, bound to liborca through the modalias.

. "$(dirname "$0")/lib.sh"

plan 22

mac=$(cat "/sys/class/net/$ORCA_NETDEV/address")
# EUI-64 from the MAC: flip the U/L bit, insert ff:fe in the middle.
IFS=: read -r m0 m1 m2 m3 m4 m5 <<<"$mac"
guid=$(printf '%02x%s:%sff:fe%s:%s%s' $((0x$m0 ^ 2)) "$m1" "$m2" "$m3" "$m4" "$m5")
ipv4=$(ip -4 -o addr show dev "$ORCA_NETDEV" | awk '{print $4}' | cut -d/ -f1 | head -1)
ll_suffix=$(printf '%x:%x:%x:%x' $(((0x$m0 ^ 2) << 8 | 0x$m1)) $((0x$m2 << 8 | 0xff)) \
	$((0xfe << 8 | 0x$m3)) $((0x$m4 << 8 | 0x$m5)))

ibv_devices >/tmp/devices.out 2>&1
check "ibv_devices lists $ORCA_DEV" grep -qw "$ORCA_DEV" /tmp/devices.out

ibv_devinfo -v -d "$ORCA_DEV" >/tmp/devinfo.out 2>&1
ok $? "ibv_devinfo -v -d $ORCA_DEV succeeds"
sed 's/^/# /' /tmp/devinfo.out | head -12

check "port state is PORT_ACTIVE" grep -Eq 'state:[[:space:]]+PORT_ACTIVE' /tmp/devinfo.out
check "link layer is Ethernet" grep -Eq 'link_layer:[[:space:]]+Ethernet' /tmp/devinfo.out
check "node GUID is the EUI-64 of $ORCA_NETDEV's MAC ($guid)" \
	grep -Eq "node_guid:[[:space:]]+$guid" /tmp/devinfo.out
check "RoCE v2 GID for $ORCA_NETDEV's IPv4 address $ipv4" \
	grep -Eq "GID\[ *[0-9]+\]:[[:space:]]+::ffff:$ipv4, RoCE v2" /tmp/devinfo.out
check "RoCE v2 link-local GID fe80::$ll_suffix" \
	grep -Eq "GID\[ *[0-9]+\]:[[:space:]]+fe80::$ll_suffix, RoCE v2" /tmp/devinfo.out
check "firmware version reported by QUERY_DEVICE" \
	grep -Eq 'fw_ver:[[:space:]]+1\.0\.0' /tmp/devinfo.out

# Exactly the capabilities Orca has: CURR_QP_STATE_MOD (0x80),
# PORT_ACTIVE_EVENT (0x400), SYS_IMAGE_GUID (0x800), RC_RNR_NAK_GEN
# (0x1000), MEM_WINDOW (0x20000), XRC (0x100000), MEM_MGT_EXTENSIONS
# (0x200000, fast registration) and MEM_WINDOW_TYPE_2B (0x1000000).
check "device_cap_flags are exactly 0x01321c80" \
	grep -Eq 'device_cap_flags:[[:space:]]+0x01321c80$' /tmp/devinfo.out
check "ibv_devinfo -v names the XRC capability" \
	grep -Eq '^[[:space:]]+XRC[[:space:]]*$' /tmp/devinfo.out
check "max_mw is 65536" grep -Eq 'max_mw:[[:space:]]+65536$' /tmp/devinfo.out
# Device memory (interface 1.4): max_dm_size, which ibv_devinfo -v prints
# as "maximum available device memory", only when it is not 0.
check "max_dm_size is 262144 (256 KiB of device memory)" \
	grep -Eq 'maximum available device memory:[[:space:]]+262144Bytes$' /tmp/devinfo.out
# Completion timestamps: a 64-bit clock counting nanoseconds.
check "completion timestamp_mask is 64 bits" \
	grep -Eq 'completion timestamp_mask:[[:space:]]+0xffffffffffffffff$' /tmp/devinfo.out
check "hca_core_clock is 1000000 kHz (nanoseconds)" \
	grep -Eq 'hca_core_clock:[[:space:]]+1000000kHZ$' /tmp/devinfo.out

# On-demand paging (interface 1.5; implicit regions 1.6), as ibv_devinfo
# -v lists odp_caps: ODP_SUPPORT and ODP_SUPPORT_IMPLICIT; on RC and XRC every
# operation and SRQ receives, on UD sends, on UC nothing (the values
# progs/odp.c checks through ibv_query_device_ex).
# odp_caps NAME: the words ibv_devinfo lists under "NAME:", each with a ;.
odp_caps() {
	awk -v h="$1:" '$1 == h { on = 1; next }
		on && /^\t[^\t]/ { exit }
		on { sub(/^[ \t]+/, ""); printf "%s;", $0 }' /tmp/devinfo.out
}
odp_is() { # odp_is NAME WANT...: the words under NAME are WANT...
	local got want
	got=$(odp_caps "$1")
	shift
	want=$(printf '%s;' "$@")
	[ "$got" = "$want" ] || { diag "got: $got"; return 1; }
}
ODP_RC=(SUPPORT_SEND SUPPORT_RECV SUPPORT_WRITE SUPPORT_READ SUPPORT_ATOMIC
	SUPPORT_SRQ)
check "general_odp_caps: ODP_SUPPORT and ODP_SUPPORT_IMPLICIT" \
	odp_is general_odp_caps ODP_SUPPORT ODP_SUPPORT_IMPLICIT
check "rc_odp_caps: SEND, RECV, WRITE, READ, ATOMIC and SRQ" \
	odp_is rc_odp_caps "${ODP_RC[@]}"
check "ud_odp_caps: SEND" odp_is ud_odp_caps SUPPORT_SEND
check "uc_odp_caps: none" odp_is uc_odp_caps "NO SUPPORT"
check "xrc_odp_caps: those of RC" odp_is xrc_odp_caps "${ODP_RC[@]}"

rdma link show "$ORCA_DEV/1" >/tmp/link.out 2>&1
check "rdma link shows $ORCA_DEV/1 ACTIVE on $ORCA_NETDEV" \
	grep -Eq "state ACTIVE .*netdev $ORCA_NETDEV" /tmp/link.out

check "ib_device parent is the Orca function on the auxiliary bus" \
	grep -qx 'MODALIAS=auxiliary:orca_soft.hca' "/sys/class/infiniband/$ORCA_DEV/device/uevent"

check "uverbs character device exists for $ORCA_DEV" \
	test -c "/dev/infiniband/$(basename "$(ls -d /sys/class/infiniband/"$ORCA_DEV"/device/infiniband_verbs/uverbs* 2>/dev/null | head -1)")"

done_testing
