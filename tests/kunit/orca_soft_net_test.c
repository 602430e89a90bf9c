// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for orca_soft's framing (drivers/orca_soft/orca_soft_frame.c):
 * the Ethernet, IP and UDP headers built around a RoCEv2 packet on
 * transmit, and the checks a received frame goes through.  No device is
 * involved: frames are built in and parsed from skbs the tests allocate.
 *
 * The references are independent of the code under test: the two frames
 * below were produced by tests/kunit/tools/orca_net_vectors.py, which packs
 * the headers with Python's struct, computes the IPv4 header and IPv6 UDP
 * checksums itself and the ICRCs with zlib.crc32 (the packets are those of
 * orca_icrc_vectors.py, as orca_soft sends them).  Run it to regenerate
 * them.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/gfp.h>
#include <linux/if_vlan.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/ipv6.h>

/* The code under test, pure, compiled into this module. */
#include "../../drivers/orca_soft/orca_soft_wire.c"
#include "../../drivers/orca_soft/orca_soft_frame.c"

/* ---- references ----------------------------------------------------------- */

/*
 * Packet 1 of orca_icrc_vectors.py as orca_soft sends it: IPv4 (TOS 0x02,
 * TTL 64, DF, ID 0) 192.168.10.1 -> 192.168.10.2, UDP 0xc123 -> 4791
 * (checksum 0), RC SEND ONLY, 13 bytes of payload and 3 of pad.  ICRC
 * 0xf01be11f.
 */
static const u8 orca_net_frame_ipv4[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x45, 0x02,
	0x00, 0x3c, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	0xa5, 0x5b, 0xc0, 0xa8, 0x0a, 0x01, 0xc0, 0xa8,
	0x0a, 0x02, 0xc1, 0x23, 0x12, 0xb7, 0x00, 0x28,
	0x00, 0x00, 0x04, 0xb0, 0xff, 0xff, 0x40, 0x00,
	0x00, 0x12, 0x80, 0x00, 0xab, 0xcd, 0x48, 0x65,
	0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x4f, 0x72, 0x63,
	0x61, 0x21, 0x0a, 0x00, 0x00, 0x00, 0x1f, 0xe1,
	0x1b, 0xf0,
};

/*
 * Packet 2: IPv6 (traffic class 0x60, flow label 0x12345, hop limit 64)
 * fe80::211:22ff:fe33:4455 -> fe80::211:22ff:fe33:6677, UDP 0xd00d ->
 * 4791 with its checksum (0xd93d), UD SEND ONLY with immediate, 10 bytes
 * of payload and 2 of pad.  ICRC 0x9ce2e326.
 */
static const u8 orca_net_frame_ipv6[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x86, 0xdd, 0x66, 0x01,
	0x23, 0x45, 0x00, 0x30, 0x11, 0x40, 0xfe, 0x80,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x11,
	0x22, 0xff, 0xfe, 0x33, 0x44, 0x55, 0xfe, 0x80,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x11,
	0x22, 0xff, 0xfe, 0x33, 0x66, 0x77, 0xd0, 0x0d,
	0x12, 0xb7, 0x00, 0x30, 0xd9, 0x3d, 0x65, 0x60,
	0x80, 0x01, 0x00, 0x00, 0x0a, 0xbc, 0x00, 0x12,
	0x34, 0x56, 0x11, 0x22, 0x33, 0x44, 0x00, 0x00,
	0x0d, 0xef, 0xde, 0xad, 0xbe, 0xef, 0xa0, 0xa1,
	0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9,
	0x00, 0x00, 0x26, 0xe3, 0xe2, 0x9c,
};

/* Sizes and offsets, from the layouts (not from the headers under test). */
enum {
	ETH = 14,
	IP4 = 20,
	IP6 = 40,
	UDP = 8,
	BTH = 12,
	ICRC = 4,
};

static const u8 orca_net_smac[ETH_ALEN] __aligned(2) = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
};

struct orca_net_ref {
	const char *name;
	const u8 *frame;
	u32 frame_len;
	u32 ip_len;
	struct orca_soft_route rt;
};

static const struct orca_net_ref orca_net_ref_ipv4 = {
	.name = "ipv4",
	.frame = orca_net_frame_ipv4,
	.frame_len = sizeof(orca_net_frame_ipv4),
	.ip_len = IP4,
	.rt = {
		.sgid = { [10] = 0xff, 0xff, 192, 168, 10, 1 },
		.dgid = { [10] = 0xff, 0xff, 192, 168, 10, 2 },
		.dmac = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 },
		.vlan = ORCA_AV_VLAN_NONE,
		.hop_limit = 64,
		.traffic_class = 0x02,
		.sport = 0xc123,
	},
};

static const struct orca_net_ref orca_net_ref_ipv6 = {
	.name = "ipv6",
	.frame = orca_net_frame_ipv6,
	.frame_len = sizeof(orca_net_frame_ipv6),
	.ip_len = IP6,
	.rt = {
		.sgid = { 0xfe, 0x80, [8] = 0x02, 0x11, 0x22, 0xff,
			  0xfe, 0x33, 0x44, 0x55 },
		.dgid = { 0xfe, 0x80, [8] = 0x02, 0x11, 0x22, 0xff,
			  0xfe, 0x33, 0x66, 0x77 },
		.dmac = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 },
		.vlan = ORCA_AV_VLAN_NONE,
		.hop_limit = 64,
		.traffic_class = 0x60,
		.flow_label = 0x12345,
		.sport = 0xd00d,
	},
};

static const struct orca_net_ref *const orca_net_refs[] = {
	&orca_net_ref_ipv4,
	&orca_net_ref_ipv6,
};

/* The transport length of a reference: BTH to the end of the pad. */
static u32 orca_net_ref_len(const struct orca_net_ref *ref)
{
	return ref->frame_len - ETH - ref->ip_len - UDP - ICRC;
}

/* ---- skbs ------------------------------------------------------------------- */

#define ORCA_NET_HEADROOM	64
#define ORCA_NET_TAILROOM	64
#define ORCA_NET_MAX_SKBS	32

/* Every skb a case allocates, freed by orca_net_exit() even if it fails. */
struct orca_net_ctx {
	u32 nskbs;
	struct sk_buff *skbs[ORCA_NET_MAX_SKBS];
};

static int orca_net_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct orca_net_ctx),
				   GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

static void orca_net_exit(struct kunit *test)
{
	struct orca_net_ctx *ctx = test->priv;
	u32 i;

	for (i = 0; i < ctx->nskbs; i++)
		kfree_skb(ctx->skbs[i]);
}

static struct sk_buff *orca_net_alloc(struct kunit *test, u32 size)
{
	struct orca_net_ctx *ctx = test->priv;
	struct sk_buff *skb;

	KUNIT_ASSERT_LT(test, ctx->nskbs, ORCA_NET_MAX_SKBS);
	skb = alloc_skb(ORCA_NET_HEADROOM + size + ORCA_NET_TAILROOM,
			GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	ctx->skbs[ctx->nskbs++] = skb;
	skb_reserve(skb, ORCA_NET_HEADROOM);
	return skb;
}

static void orca_net_expect_bytes(struct kunit *test, const u8 *got,
				  const u8 *want, size_t len,
				  const char *what)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (got[i] != want[i]) {
			KUNIT_FAIL(test, "%s: byte %zu is 0x%02x, expected 0x%02x",
				   what, i, got[i], want[i]);
			return;
		}
	}
}

/*
 * Build a reference's frame on @rt (the reference's route, or one that
 * differs in what the test is about) as orca_soft_net_alloc() and _xmit()
 * do, with the reference's transport bytes, and complete the IPv6 UDP
 * checksum as the netdev or the stack would.
 */
static struct sk_buff *orca_net_build(struct kunit *test,
				      const struct orca_net_ref *ref,
				      const struct orca_soft_route *rt)
{
	u32 len = orca_net_ref_len(ref);
	struct sk_buff *skb = orca_net_alloc(test, ref->frame_len);
	u8 *transport = NULL;

	KUNIT_ASSERT_EQ(test, orca_soft_net_frame(skb, rt, len, orca_net_smac,
						  &transport), 0);
	KUNIT_ASSERT_PTR_EQ(test, transport,
			    skb->data + ETH + ref->ip_len + UDP);
	memcpy(transport, ref->frame + ETH + ref->ip_len + UDP, len);
	KUNIT_ASSERT_EQ(test, orca_soft_net_finish(skb), 0);
	if (skb->ip_summed == CHECKSUM_PARTIAL)
		KUNIT_ASSERT_EQ(test, skb_checksum_help(skb), 0);
	KUNIT_ASSERT_EQ(test, skb->len, ref->frame_len);
	return skb;
}

/* A frame as an rx_handler gets it: data at the IP header. */
static void orca_net_to_rx(struct sk_buff *skb)
{
	skb_reset_mac_header(skb);
	skb->protocol = eth_hdr(skb)->h_proto;
	skb_pull(skb, ETH);
	skb_reset_network_header(skb);
	skb->pkt_type = PACKET_HOST;
}

/* A reference frame, received: copied into a new skb. */
static struct sk_buff *orca_net_rx_copy(struct kunit *test,
					const struct orca_net_ref *ref)
{
	struct sk_buff *skb = orca_net_alloc(test, ref->frame_len);

	skb_put_data(skb, ref->frame, ref->frame_len);
	orca_net_to_rx(skb);
	return skb;
}

/* Check @rx against what the reference frame holds. */
static void orca_net_expect_rx(struct kunit *test,
			       const struct orca_net_ref *ref,
			       const struct sk_buff *skb,
			       const struct orca_soft_rx *rx, u16 vlan)
{
	u32 len = orca_net_ref_len(ref);

	KUNIT_EXPECT_PTR_EQ(test, rx->skb, skb);
	KUNIT_EXPECT_PTR_EQ(test, rx->nethdr, (const u8 *)skb->data);
	KUNIT_EXPECT_PTR_EQ(test, rx->transport,
			    (const u8 *)skb->data + ref->ip_len + UDP);
	KUNIT_EXPECT_EQ(test, rx->len, len);
	orca_net_expect_bytes(test, rx->transport,
			      ref->frame + ETH + ref->ip_len + UDP, len,
			      "transport");
	KUNIT_EXPECT_EQ(test, rx->ip_version, ref->ip_len == IP4 ? 4 : 6);
	orca_net_expect_bytes(test, rx->sgid, ref->rt.sgid, 16, "sgid");
	orca_net_expect_bytes(test, rx->dgid, ref->rt.dgid, 16, "dgid");
	orca_net_expect_bytes(test, rx->smac, orca_net_smac, ETH_ALEN, "smac");
	KUNIT_EXPECT_EQ(test, rx->vlan, vlan);
	KUNIT_EXPECT_EQ(test, rx->traffic_class, ref->rt.traffic_class);
	KUNIT_EXPECT_EQ(test, rx->hop_limit, ref->rt.hop_limit);
	KUNIT_EXPECT_EQ(test, rx->flow_label, ref->rt.flow_label);
	KUNIT_EXPECT_EQ(test, rx->sport, ref->rt.sport);
}

/* Recompute an IPv4 header checksum after a test changed the header. */
static void orca_net_ip4_fix(struct sk_buff *skb)
{
	struct iphdr *ip4 = (struct iphdr *)skb->data;

	ip4->check = 0;
	ip4->check = ip_fast_csum(ip4, ip4->ihl);
}

/* ---- transmit and receive ---------------------------------------------------- */

/* Built byte for byte as the references, parsed back field for field. */
static void orca_net_test_roundtrip(struct kunit *test)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(orca_net_refs); i++) {
		const struct orca_net_ref *ref = orca_net_refs[i];
		struct orca_soft_rx rx = {};
		struct sk_buff *skb;

		skb = orca_net_build(test, ref, &ref->rt);
		orca_net_expect_bytes(test, skb->data, ref->frame,
				      ref->frame_len, ref->name);
		KUNIT_EXPECT_EQ(test, ntohs(skb->protocol),
				ref->ip_len == IP4 ? ETH_P_IP : ETH_P_IPV6);
		KUNIT_EXPECT_EQ(test, (int)skb->ip_summed, CHECKSUM_NONE);
		KUNIT_EXPECT_FALSE(test, skb_vlan_tag_present(skb));
		KUNIT_EXPECT_EQ(test, skb_mac_offset(skb), 0);
		KUNIT_EXPECT_EQ(test, skb_network_offset(skb), ETH);
		KUNIT_EXPECT_EQ(test, skb_transport_offset(skb),
				ETH + ref->ip_len);

		orca_net_to_rx(skb);
		KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), 0);
		orca_net_expect_rx(test, ref, skb, &rx, ORCA_AV_VLAN_NONE);
		KUNIT_EXPECT_EQ(test, skb->len, ref->frame_len - ETH);
	}
}

/* Over IPv6 the UDP checksum is left to the netdev: prepared, not done. */
static void orca_net_test_ipv6_csum_offload(struct kunit *test)
{
	const struct orca_net_ref *ref = &orca_net_ref_ipv6;
	u32 len = orca_net_ref_len(ref);
	struct sk_buff *skb = orca_net_alloc(test, ref->frame_len);
	u8 *transport;

	KUNIT_ASSERT_EQ(test, orca_soft_net_frame(skb, &ref->rt, len,
						  orca_net_smac, &transport),
			0);
	memcpy(transport, ref->frame + ETH + IP6 + UDP, len);
	KUNIT_ASSERT_EQ(test, orca_soft_net_finish(skb), 0);
	KUNIT_EXPECT_EQ(test, (int)skb->ip_summed, CHECKSUM_PARTIAL);
	KUNIT_EXPECT_EQ(test, skb_checksum_start_offset(skb), ETH + IP6);
	KUNIT_EXPECT_EQ(test, skb->csum_offset, 6);
	/* The ICRC is already there: it does not cover the checksum. */
	orca_net_expect_bytes(test, skb->data + ref->frame_len - ICRC,
			      ref->frame + ref->frame_len - ICRC, ICRC,
			      "ICRC");
}

static void orca_net_test_vlan(struct kunit *test)
{
	static const u16 vlans[] = { 0, 1, 100, 4095 };
	u32 i, j;

	for (i = 0; i < ARRAY_SIZE(orca_net_refs); i++) {
		for (j = 0; j < ARRAY_SIZE(vlans); j++) {
			const struct orca_net_ref *ref = orca_net_refs[i];
			struct orca_soft_route rt = ref->rt;
			struct orca_soft_rx rx = {};
			struct sk_buff *skb;

			rt.vlan = vlans[j];
			skb = orca_net_build(test, ref, &rt);
			KUNIT_EXPECT_TRUE(test, skb_vlan_tag_present(skb));
			KUNIT_EXPECT_EQ(test, ntohs(skb->vlan_proto),
					ETH_P_8021Q);
			KUNIT_EXPECT_EQ(test, skb->vlan_tci, vlans[j]);
			/* The tag is the netdev's to insert. */
			orca_net_expect_bytes(test, skb->data, ref->frame,
					      ref->frame_len, ref->name);

			orca_net_to_rx(skb);
			KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), 0);
			orca_net_expect_rx(test, ref, skb, &rx, vlans[j]);
		}
		/* A received tag's priority bits are not the VLAN ID. */
		{
			const struct orca_net_ref *ref = orca_net_refs[i];
			struct sk_buff *skb = orca_net_rx_copy(test, ref);
			struct orca_soft_rx rx = {};

			__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q),
					       0xa000 | 42);
			KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), 0);
			KUNIT_EXPECT_EQ(test, rx.vlan, 42);
		}
	}
}

/* What orca_soft_net_frame() refuses. */
static void orca_net_test_frame_errors(struct kunit *test)
{
	const struct orca_net_ref *ref = &orca_net_ref_ipv4;
	struct orca_soft_route rt;
	struct sk_buff *skb;
	u8 *transport;

	/* GIDs of two families. */
	rt = orca_net_ref_ipv4.rt;
	memcpy(rt.sgid, orca_net_ref_ipv6.rt.sgid, sizeof(rt.sgid));
	skb = orca_net_alloc(test, 128);
	KUNIT_EXPECT_EQ(test, orca_soft_net_frame(skb, &rt, BTH, orca_net_smac,
						  &transport), -EINVAL);
	rt = orca_net_ref_ipv6.rt;
	memcpy(rt.sgid, orca_net_ref_ipv4.rt.sgid, sizeof(rt.sgid));
	KUNIT_EXPECT_EQ(test, orca_soft_net_frame(skb, &rt, BTH, orca_net_smac,
						  &transport), -EINVAL);

	/* No room for a BTH, or more than IPv4's total length can say. */
	rt = ref->rt;
	KUNIT_EXPECT_EQ(test, orca_soft_net_frame(skb, &rt, BTH - 1,
						  orca_net_smac, &transport),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, orca_soft_net_frame(skb, &rt,
						  65536 - IP4 - UDP - ICRC,
						  orca_net_smac, &transport),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, orca_soft_net_frame(skb, &rt, U32_MAX,
						  orca_net_smac, &transport),
			-EINVAL);

	/* A VLAN ID out of range. */
	rt.vlan = VLAN_N_VID;
	KUNIT_EXPECT_EQ(test, orca_soft_net_frame(skb, &rt, BTH, orca_net_smac,
						  &transport), -EINVAL);
	KUNIT_EXPECT_EQ(test, skb->len, 0);

	/* Too little room, before or after. */
	rt = ref->rt;
	KUNIT_EXPECT_EQ(test, orca_soft_net_frame(skb, &rt,
						  skb_tailroom(skb) - IP4 -
						  UDP - ICRC + 1,
						  orca_net_smac, &transport),
			-ENOSPC);
	skb = orca_net_alloc(test, 128);
	skb_reserve(skb, -(int)skb_headroom(skb) + ETH - 1);
	KUNIT_EXPECT_EQ(test, orca_soft_net_frame(skb, &rt, BTH, orca_net_smac,
						  &transport), -ENOSPC);

	/* Not an empty skb. */
	skb = orca_net_alloc(test, 128);
	skb_put_zero(skb, 1);
	KUNIT_EXPECT_EQ(test, orca_soft_net_frame(skb, &rt, BTH, orca_net_smac,
						  &transport), -ENOSPC);

	/* orca_soft_net_finish() on what is not a frame of IP. */
	skb = orca_net_alloc(test, 128);
	skb_reset_network_header(skb);
	skb_put_zero(skb, 64);
	skb->protocol = htons(ETH_P_ARP);
	KUNIT_EXPECT_EQ(test, orca_soft_net_finish(skb), -EINVAL);
	skb->protocol = htons(ETH_P_IP);
	KUNIT_EXPECT_EQ(test, orca_soft_net_finish(skb), -EINVAL);
}

/* ---- the receive checks ---------------------------------------------------------- */

/* A bad ICRC, and the fields the ICRC leaves out. */
static void orca_net_test_icrc(struct kunit *test)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(orca_net_refs); i++) {
		const struct orca_net_ref *ref = orca_net_refs[i];
		u32 bth = ref->ip_len + UDP;
		u32 end = ref->frame_len - ETH;
		struct orca_soft_rx rx = {};
		struct sk_buff *skb;

		/* Payload, ICRC, BTH opcode. */
		skb = orca_net_rx_copy(test, ref);
		skb->data[end - ICRC - 5] ^= 0x01;
		KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), -EBADMSG);
		skb = orca_net_rx_copy(test, ref);
		skb->data[end - 1] ^= 0x80;
		KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), -EBADMSG);
		skb = orca_net_rx_copy(test, ref);
		skb->data[bth] ^= 0x01;
		KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), -EBADMSG);

		/* FECN and BECN may change on the way. */
		skb = orca_net_rx_copy(test, ref);
		skb->data[bth + 4] ^= 0xc0;
		KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), 0);

		if (ref->ip_len == IP4) {
			/* The source address is covered. */
			skb = orca_net_rx_copy(test, ref);
			skb->data[15] ^= 0x01;
			orca_net_ip4_fix(skb);
			KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx),
					-EBADMSG);
			/* TTL, TOS and the UDP checksum are not. */
			skb = orca_net_rx_copy(test, ref);
			skb->data[8] = 3;
			skb->data[1] = 0xb8;
			skb->data[IP4 + 6] = 0x12;
			orca_net_ip4_fix(skb);
			KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), 0);
			KUNIT_EXPECT_EQ(test, rx.hop_limit, 3);
			KUNIT_EXPECT_EQ(test, rx.traffic_class, 0xb8);
		} else {
			/* The source address is covered. */
			skb = orca_net_rx_copy(test, ref);
			skb->data[23] ^= 0x01;
			KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx),
					-EBADMSG);
			/* Class, flow label, hop limit, UDP checksum are not. */
			skb = orca_net_rx_copy(test, ref);
			skb->data[0] = 0x6a;
			skb->data[1] = 0xbf;
			skb->data[2] = 0xed;
			skb->data[3] = 0xcb;
			skb->data[7] = 1;
			skb->data[IP6 + 6] = 0;
			skb->data[IP6 + 7] = 0;
			KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), 0);
			KUNIT_EXPECT_EQ(test, rx.traffic_class, 0xab);
			KUNIT_EXPECT_EQ(test, rx.flow_label, 0xfedcb);
			KUNIT_EXPECT_EQ(test, rx.hop_limit, 1);
		}
	}
}

/* Every truncation of a frame is refused, none is read past. */
static void orca_net_test_truncated(struct kunit *test)
{
	u32 i, cut;

	for (i = 0; i < ARRAY_SIZE(orca_net_refs); i++) {
		const struct orca_net_ref *ref = orca_net_refs[i];
		u32 len = ref->frame_len - ETH;
		struct orca_net_ctx *ctx = test->priv;

		for (cut = 1; cut <= len; cut++) {
			struct orca_soft_rx rx = {};
			struct sk_buff *skb;

			/* Reuse the slot: a truncation takes one skb each. */
			skb = orca_net_rx_copy(test, ref);
			skb_trim(skb, len - cut);
			KUNIT_EXPECT_EQ_MSG(test, orca_soft_net_parse(skb, &rx),
					    -EINVAL, "%s cut by %u",
					    ref->name, cut);
			kfree_skb(skb);
			ctx->nskbs--;
		}
	}
}

/* Lengths that agree with each other, but leave no room for BTH + ICRC. */
static void orca_net_test_short_udp(struct kunit *test)
{
	struct orca_soft_rx rx = {};
	struct sk_buff *skb;
	struct udphdr *udp;

	skb = orca_net_rx_copy(test, &orca_net_ref_ipv4);
	((struct iphdr *)skb->data)->tot_len = htons(IP4 + UDP + BTH);
	orca_net_ip4_fix(skb);
	udp = (struct udphdr *)(skb->data + IP4);
	udp->len = htons(UDP + BTH);
	skb_trim(skb, IP4 + UDP + BTH);
	KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), -EINVAL);

	skb = orca_net_rx_copy(test, &orca_net_ref_ipv6);
	((struct ipv6hdr *)skb->data)->payload_len = htons(UDP + BTH);
	udp = (struct udphdr *)(skb->data + IP6);
	udp->len = htons(UDP + BTH);
	skb_trim(skb, IP6 + UDP + BTH);
	KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), -EINVAL);
}

/* An IPv4 header with 4 bytes of options (NOPs), otherwise valid. */
static void orca_net_test_ipv4_options(struct kunit *test)
{
	const struct orca_net_ref *ref = &orca_net_ref_ipv4;
	struct sk_buff *skb = orca_net_alloc(test, ref->frame_len + 4);
	struct orca_soft_rx rx = {};
	struct iphdr *ip4;

	skb_put_data(skb, ref->frame, ETH + IP4);
	skb_put_data(skb, "\x01\x01\x01\x01", 4);
	skb_put_data(skb, ref->frame + ETH + IP4, ref->frame_len - ETH - IP4);
	orca_net_to_rx(skb);
	ip4 = (struct iphdr *)skb->data;
	ip4->ihl = 6;
	ip4->tot_len = htons(ntohs(ip4->tot_len) + 4);
	orca_net_ip4_fix(skb);
	KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), -EINVAL);
}

/* IPv4 headers refused, each otherwise valid (checksum included). */
static void orca_net_test_ipv4_bad(struct kunit *test)
{
	enum {
		BAD_VERSION,
		BAD_PROTOCOL,
		MORE_FRAGMENTS,
		FRAGMENT_OFFSET,
		BAD_CHECKSUM,
		TOT_LEN_LONG,
		TOT_LEN_LONG_UDP_TOO,
		TOT_LEN_SHORT,
		UDP_LEN_LONG,
		UDP_LEN_SHORT,
		BAD_PORT,
		BAD_ETHERTYPE,
		NR_BAD,
	};
	u32 bad;

	for (bad = 0; bad < NR_BAD; bad++) {
		struct sk_buff *skb = orca_net_rx_copy(test, &orca_net_ref_ipv4);
		struct iphdr *ip4 = (struct iphdr *)skb->data;
		struct udphdr *udp = (struct udphdr *)(skb->data + IP4);
		struct orca_soft_rx rx = {};
		int want = -EINVAL;

		switch (bad) {
		case BAD_VERSION:
			ip4->version = 6;
			break;
		case BAD_PROTOCOL:
			ip4->protocol = IPPROTO_TCP;
			break;
		case MORE_FRAGMENTS:
			ip4->frag_off |= htons(IP_MF);
			break;
		case FRAGMENT_OFFSET:
			ip4->frag_off |= htons(1);
			break;
		case BAD_CHECKSUM:
			break;
		case TOT_LEN_LONG:
			ip4->tot_len = htons(skb->len + 1);
			break;
		case TOT_LEN_LONG_UDP_TOO:
			ip4->tot_len = htons(skb->len + 4);
			udp->len = htons(ntohs(udp->len) + 4);
			break;
		case TOT_LEN_SHORT:
			ip4->tot_len = htons(skb->len - 4);
			break;
		case UDP_LEN_LONG:
			udp->len = htons(ntohs(udp->len) + 4);
			break;
		case UDP_LEN_SHORT:
			udp->len = htons(ntohs(udp->len) - 4);
			break;
		case BAD_PORT:
			udp->dest = htons(4792);
			break;
		case BAD_ETHERTYPE:
			skb->protocol = htons(ETH_P_ARP);
			want = -EPROTONOSUPPORT;
			break;
		}
		orca_net_ip4_fix(skb);
		if (bad == BAD_CHECKSUM)
			ip4->check ^= htons(0x0100);
		KUNIT_EXPECT_EQ_MSG(test, orca_soft_net_parse(skb, &rx), want,
				    "case %u", bad);
	}
}

/* IPv6 headers refused. */
static void orca_net_test_ipv6_bad(struct kunit *test)
{
	enum {
		BAD_VERSION,
		HOP_BY_HOP,
		FRAGMENT_HEADER,
		PAYLOAD_LEN_ZERO,
		PAYLOAD_LEN_LONG,
		PAYLOAD_LEN_LONG_UDP_TOO,
		UDP_LEN_LONG,
		UDP_LEN_SHORT,
		BAD_PORT,
		IPV4_ETHERTYPE,
		NR_BAD,
	};
	u32 bad;

	for (bad = 0; bad < NR_BAD; bad++) {
		struct sk_buff *skb = orca_net_rx_copy(test, &orca_net_ref_ipv6);
		struct ipv6hdr *ip6 = (struct ipv6hdr *)skb->data;
		struct udphdr *udp = (struct udphdr *)(skb->data + IP6);
		u16 plen = ntohs(ip6->payload_len);
		struct orca_soft_rx rx = {};

		switch (bad) {
		case BAD_VERSION:
			skb->data[0] = (skb->data[0] & 0x0f) | 0x40;
			break;
		case HOP_BY_HOP:
			ip6->nexthdr = NEXTHDR_HOP;
			break;
		case FRAGMENT_HEADER:
			ip6->nexthdr = NEXTHDR_FRAGMENT;
			break;
		case PAYLOAD_LEN_ZERO:
			ip6->payload_len = 0;
			break;
		case PAYLOAD_LEN_LONG:
			ip6->payload_len = htons(plen + 1);
			break;
		case PAYLOAD_LEN_LONG_UDP_TOO:
			ip6->payload_len = htons(plen + 4);
			udp->len = htons(plen + 4);
			break;
		case UDP_LEN_LONG:
			udp->len = htons(plen + 4);
			break;
		case UDP_LEN_SHORT:
			udp->len = htons(plen - 4);
			break;
		case BAD_PORT:
			udp->dest = htons(4790);
			break;
		case IPV4_ETHERTYPE:
			skb->protocol = htons(ETH_P_IP);
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, orca_soft_net_parse(skb, &rx), -EINVAL,
				    "case %u", bad);
	}
}

/* What follows the IP packet (Ethernet padding) is trimmed off. */
static void orca_net_test_padding(struct kunit *test)
{
	const struct orca_net_ref *ref = &orca_net_ref_ipv4;
	struct orca_soft_route rt = ref->rt;
	u32 i, pad;

	for (i = 0; i < ARRAY_SIZE(orca_net_refs); i++) {
		for (pad = 1; pad <= 8; pad += 7) {
			struct orca_soft_rx rx = {};
			struct sk_buff *skb;

			ref = orca_net_refs[i];
			skb = orca_net_rx_copy(test, ref);
			memset(skb_put(skb, pad), 0xa5, pad);
			KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), 0);
			KUNIT_EXPECT_EQ(test, skb->len, ref->frame_len - ETH);
			orca_net_expect_rx(test, ref, skb, &rx,
					   ORCA_AV_VLAN_NONE);
		}
	}

	/* The shortest packet, an ACK over IPv4: 58 bytes, padded to 60. */
	{
		struct orca_soft_rx rx = {};
		struct sk_buff *skb;
		u8 *transport;

		ref = &orca_net_ref_ipv4;
		rt = ref->rt;
		skb = orca_net_alloc(test, ETH_ZLEN);
		KUNIT_ASSERT_EQ(test, orca_soft_net_frame(skb, &rt, BTH,
							  orca_net_smac,
							  &transport), 0);
		memcpy(transport, ref->frame + ETH + IP4 + UDP, BTH);
		KUNIT_ASSERT_EQ(test, orca_soft_net_finish(skb), 0);
		KUNIT_EXPECT_EQ(test, skb->len, ETH + IP4 + UDP + BTH + ICRC);
		skb_put_zero(skb, ETH_ZLEN - skb->len);
		orca_net_to_rx(skb);
		KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), 0);
		KUNIT_EXPECT_EQ(test, rx.len, BTH);
		KUNIT_EXPECT_EQ(test, skb->len, IP4 + UDP + BTH + ICRC);
	}
}

/* A frame whose payload is in a page fragment is made linear. */
static void orca_net_test_nonlinear(struct kunit *test)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(orca_net_refs); i++) {
		const struct orca_net_ref *ref = orca_net_refs[i];
		u32 head = ETH + ref->ip_len + UDP;
		u32 rest = ref->frame_len - head;
		struct orca_soft_rx rx = {};
		struct sk_buff *skb;
		struct page *page;

		skb = orca_net_alloc(test, head);
		skb_put_data(skb, ref->frame, head);
		page = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, page);
		memcpy(page_address(page), ref->frame + head, rest);
		skb_add_rx_frag(skb, 0, page, 0, rest, PAGE_SIZE);
		KUNIT_EXPECT_TRUE(test, skb_is_nonlinear(skb));
		orca_net_to_rx(skb);

		KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), 0);
		KUNIT_EXPECT_FALSE(test, skb_is_nonlinear(skb));
		orca_net_expect_rx(test, ref, skb, &rx, ORCA_AV_VLAN_NONE);
	}
}

/* No Ethernet header before the IP one: nothing to take smac from. */
static void orca_net_test_no_mac_header(struct kunit *test)
{
	struct sk_buff *skb = orca_net_rx_copy(test, &orca_net_ref_ipv4);
	struct orca_soft_rx rx = {};

	skb_unset_mac_header(skb);
	KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), -EINVAL);
	skb = orca_net_rx_copy(test, &orca_net_ref_ipv4);
	skb->mac_header += 1;
	KUNIT_EXPECT_EQ(test, orca_soft_net_parse(skb, &rx), -EINVAL);
}

static struct kunit_case orca_soft_net_cases[] = {
	KUNIT_CASE(orca_net_test_roundtrip),
	KUNIT_CASE(orca_net_test_ipv6_csum_offload),
	KUNIT_CASE(orca_net_test_vlan),
	KUNIT_CASE(orca_net_test_frame_errors),
	KUNIT_CASE(orca_net_test_icrc),
	KUNIT_CASE(orca_net_test_truncated),
	KUNIT_CASE(orca_net_test_short_udp),
	KUNIT_CASE(orca_net_test_ipv4_options),
	KUNIT_CASE(orca_net_test_ipv4_bad),
	KUNIT_CASE(orca_net_test_ipv6_bad),
	KUNIT_CASE(orca_net_test_padding),
	KUNIT_CASE(orca_net_test_nonlinear),
	KUNIT_CASE(orca_net_test_no_mac_header),
	{}
};

static struct kunit_suite orca_soft_net_suite = {
	.name = "orca_soft_net",
	.init = orca_net_init,
	.exit = orca_net_exit,
	.test_cases = orca_soft_net_cases,
};

kunit_test_suite(orca_soft_net_suite);

MODULE_DESCRIPTION("KUnit tests for orca_soft's Ethernet/IP/UDP framing");
MODULE_LICENSE("GPL");
