// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: the Ethernet, IP and UDP headers around a RoCEv2 packet.
 *
 * Pure: these functions look at an skb and at the values they are given,
 * never at a device, so that the KUnit suite
 * tests/kunit/orca_soft_net_test.c can build and parse frames without one
 * (it compiles this file in, as orca_soft_wire_test.c does with
 * orca_soft_wire.c).  orca_soft_net.c is the port that uses them.
 *
 * The format is Documentation/orca-hw-interface.rst, "The RoCEv2 packet
 * format".  One addition to it: over IPv6 the UDP checksum is a real one
 * (see orca_soft_net_finish()).
 */
#include <linux/bitfield.h>
#include <linux/errno.h>
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/udp.h>
#include <asm/unaligned.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/route.h>
#include <rdma/orca-abi.h>

#include "orca_soft_net.h"
#include "orca_soft_wire.h"

/* The first 32-bit word of an IPv6 header, read big-endian. */
#define ORCA_FRAME_IP6_VERSION		GENMASK(31, 28)
#define ORCA_FRAME_IP6_TCLASS		GENMASK(27, 20)
#define ORCA_FRAME_IP6_FLOW		ORCA_WIRE_FLOW_LABEL

/* Where an IPv4 address sits in an IPv4-mapped GID (::ffff:a.b.c.d). */
#define ORCA_FRAME_GID_V4_OFF		12

/* The smallest UDP datagram that can be RoCEv2: UDP, a BTH, the ICRC. */
#define ORCA_FRAME_MIN_UDP_LEN		(ORCA_WIRE_UDP_HDR_LEN + \
					 ORCA_WIRE_BTH_LEN + \
					 ORCA_WIRE_ICRC_LEN)

static bool orca_frame_gid_v4(const u8 *gid)
{
	static const u8 prefix[ORCA_FRAME_GID_V4_OFF] = {
		[10] = 0xff, [11] = 0xff,
	};

	return !memcmp(gid, prefix, sizeof(prefix));
}

static void orca_frame_gid_set_v4(u8 *gid, __be32 addr)
{
	memset(gid, 0, ORCA_FRAME_GID_V4_OFF - 2);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + ORCA_FRAME_GID_V4_OFF, &addr, sizeof(addr));
}

/**
 * orca_soft_net_frame() - build the headers of a RoCEv2 frame
 * @skb: an empty, linear skb with room for an Ethernet header before its
 *	data and for the IP and UDP headers, @len bytes and the ICRC after it
 * @rt: where the packet goes
 * @len: the transport length: BTH, extension headers, payload and pad
 * @src_mac: the source MAC address (the netdev's), 2-byte aligned
 * @transport: set to the first of the @len bytes, which the caller fills
 *
 * Appends an IPv4 header if @rt's destination GID is IPv4-mapped, an IPv6
 * header otherwise, and a UDP header to port 4791; reserves @len bytes and
 * the ICRC after them (neither is written: the caller fills every one of
 * the @len bytes, and orca_soft_net_finish() the ICRC); pushes the
 * Ethernet header.  A VLAN tag goes in skb->vlan_tci (hardware-accelerated
 * form): the stack inserts it in the frame if the netdev cannot.  The IPv4
 * ID is 0: every packet has DF set, so no reassembly needs it (RFC 6864).
 *
 * On return skb->data is the Ethernet header, and the mac, network and
 * transport headers and skb->protocol (the IP one) are set.
 *
 * Return: 0; -EINVAL if the GIDs are not of one family, @len is shorter
 * than a BTH or too long for the IP header's length fields, or the VLAN
 * ID is out of range; -ENOSPC if @skb is not empty or has too little room.
 */
int orca_soft_net_frame(struct sk_buff *skb, const struct orca_soft_route *rt,
			u32 len, const u8 *src_mac, u8 **transport)
{
	bool v4 = orca_frame_gid_v4(rt->dgid);
	u32 ip_len = v4 ? ORCA_WIRE_IPV4_HDR_LEN : ORCA_WIRE_IPV6_HDR_LEN;
	u32 udp_len = ORCA_WIRE_UDP_HDR_LEN + len + ORCA_WIRE_ICRC_LEN;
	struct udphdr *udp;
	struct ethhdr *eth;
	__be16 proto;

	if (v4 != orca_frame_gid_v4(rt->sgid) || len < ORCA_WIRE_BTH_LEN ||
	    len > U16_MAX || ip_len + udp_len > U16_MAX ||
	    (rt->vlan != ORCA_AV_VLAN_NONE && rt->vlan >= VLAN_N_VID))
		return -EINVAL;
	if (skb->len || skb_is_nonlinear(skb) ||
	    skb_headroom(skb) < ETH_HLEN ||
	    skb_tailroom(skb) < ip_len + udp_len)
		return -ENOSPC;

	skb_reset_network_header(skb);
	if (v4) {
		struct iphdr *ip4 = skb_put(skb, sizeof(*ip4));

		ip4->version = 4;
		ip4->ihl = ORCA_WIRE_IPV4_HDR_LEN / 4;
		ip4->tos = rt->traffic_class;
		ip4->tot_len = htons(ip_len + udp_len);
		ip4->id = 0;
		ip4->frag_off = htons(IP_DF);
		ip4->ttl = rt->hop_limit;
		ip4->protocol = IPPROTO_UDP;
		memcpy(&ip4->saddr, rt->sgid + ORCA_FRAME_GID_V4_OFF,
		       sizeof(ip4->saddr));
		memcpy(&ip4->daddr, rt->dgid + ORCA_FRAME_GID_V4_OFF,
		       sizeof(ip4->daddr));
		ip_send_check(ip4);
		proto = htons(ETH_P_IP);
	} else {
		struct ipv6hdr *ip6 = skb_put(skb, sizeof(*ip6));

		put_unaligned_be32(FIELD_PREP(ORCA_FRAME_IP6_VERSION, 6) |
				   FIELD_PREP(ORCA_FRAME_IP6_TCLASS,
					      rt->traffic_class) |
				   FIELD_PREP(ORCA_FRAME_IP6_FLOW,
					      rt->flow_label &
					      ORCA_FRAME_IP6_FLOW), ip6);
		ip6->payload_len = htons(udp_len);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = rt->hop_limit;
		memcpy(&ip6->saddr, rt->sgid, sizeof(ip6->saddr));
		memcpy(&ip6->daddr, rt->dgid, sizeof(ip6->daddr));
		proto = htons(ETH_P_IPV6);
	}

	skb_set_transport_header(skb, skb->len);
	udp = skb_put(skb, sizeof(*udp));
	udp->source = htons(rt->sport);
	udp->dest = htons(ORCA_WIRE_UDP_DPORT);
	udp->len = htons(udp_len);
	udp->check = 0;
	*transport = skb_put(skb, len + ORCA_WIRE_ICRC_LEN);

	eth = skb_push(skb, ETH_HLEN);
	skb_reset_mac_header(skb);
	ether_addr_copy(eth->h_dest, rt->dmac);
	ether_addr_copy(eth->h_source, src_mac);
	eth->h_proto = proto;

	skb->protocol = proto;
	skb->priority = rt_tos2priority(rt->traffic_class);
	if (rt->vlan != ORCA_AV_VLAN_NONE)
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q), rt->vlan);
	return 0;
}

/**
 * orca_soft_net_finish() - complete a frame once its transport is written
 * @skb: a frame built by orca_soft_net_frame()
 *
 * Computes the ICRC over the IP header to the end of the packet.  Over
 * IPv6, also prepares the UDP checksum, which the netdev (or the stack
 * for a netdev that cannot) computes on transmit: IPv6 does not allow a
 * zero UDP checksum (RFC 8200), and Linux's UDP drops one unless the
 * socket opted in (UDP_NO_CHECK6_RX, as rxe's does).  The ICRC does not
 * cover the UDP checksum, so the two do not depend on each other.  Over
 * IPv4 the UDP checksum stays 0.
 *
 * Return: 0, or -EINVAL if @skb is not such a frame.
 */
int orca_soft_net_finish(struct sk_buff *skb)
{
	u8 *nh = skb_network_header(skb);
	unsigned int version;
	int err;

	if (skb_is_nonlinear(skb))
		return -EINVAL;
	if (skb->protocol == htons(ETH_P_IP))
		version = 4;
	else if (skb->protocol == htons(ETH_P_IPV6))
		version = 6;
	else
		return -EINVAL;

	err = orca_soft_icrc_set(nh, skb_tail_pointer(skb) - nh, version);
	if (err)
		return err;

	if (version == 6) {
		struct ipv6hdr *ip6 = ipv6_hdr(skb);
		struct udphdr *udp = udp_hdr(skb);

		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_transport_header(skb) - skb->head;
		skb->csum_offset = offsetof(struct udphdr, check);
		udp->check = ~csum_ipv6_magic(&ip6->saddr, &ip6->daddr,
					      ntohs(udp->len), IPPROTO_UDP, 0);
	}
	return 0;
}

/* IPv4: the header checks; the UDP datagram's length, or 0. */
static u32 orca_frame_parse_ip4(struct sk_buff *skb, struct orca_soft_rx *rx)
{
	const struct iphdr *ip4 = (const struct iphdr *)skb->data;
	u32 tot_len;

	if (skb->len < sizeof(*ip4) || ip4->version != 4 ||
	    ip4->ihl != ORCA_WIRE_IPV4_HDR_LEN / 4 ||
	    ip4->protocol != IPPROTO_UDP || ip_is_fragment(ip4) ||
	    ip_fast_csum(ip4, ip4->ihl))
		return 0;
	tot_len = ntohs(ip4->tot_len);
	if (tot_len > skb->len || tot_len < sizeof(*ip4))
		return 0;

	rx->ip_version = 4;
	orca_frame_gid_set_v4(rx->sgid, ip4->saddr);
	orca_frame_gid_set_v4(rx->dgid, ip4->daddr);
	rx->traffic_class = ip4->tos;
	rx->hop_limit = ip4->ttl;
	rx->flow_label = 0;
	return tot_len - sizeof(*ip4);
}

/* IPv6: the header checks; the UDP datagram's length, or 0. */
static u32 orca_frame_parse_ip6(struct sk_buff *skb, struct orca_soft_rx *rx)
{
	const struct ipv6hdr *ip6 = (const struct ipv6hdr *)skb->data;
	u32 word, payload_len;

	if (skb->len < sizeof(*ip6))
		return 0;
	word = get_unaligned_be32(ip6);
	if (FIELD_GET(ORCA_FRAME_IP6_VERSION, word) != 6 ||
	    ip6->nexthdr != IPPROTO_UDP)
		return 0;
	/* 0 is a jumbogram's, which would need a hop-by-hop header. */
	payload_len = ntohs(ip6->payload_len);
	if (payload_len > skb->len - sizeof(*ip6))
		return 0;

	rx->ip_version = 6;
	memcpy(rx->sgid, &ip6->saddr, sizeof(rx->sgid));
	memcpy(rx->dgid, &ip6->daddr, sizeof(rx->dgid));
	rx->traffic_class = FIELD_GET(ORCA_FRAME_IP6_TCLASS, word);
	rx->hop_limit = ip6->hop_limit;
	rx->flow_label = FIELD_GET(ORCA_FRAME_IP6_FLOW, word);
	return payload_len;
}

/**
 * orca_soft_net_parse() - check a received RoCEv2 frame and describe it
 * @skb: the frame as an rx_handler gets it: skb->data at the IP header,
 *	skb->protocol the IP one, the Ethernet header at the mac header and
 *	a VLAN tag, if any, in skb->vlan_tci
 * @rx: filled in on success, @rx->skb included
 *
 * Everything is treated as hostile.  Makes @skb linear, checks the IP
 * header (IPv4: version 4, no options, a valid header checksum, not a
 * fragment; IPv6: version 6, UDP as the next header) and that the IP
 * length fits in @skb, trims what follows the IP packet (Ethernet
 * padding), checks the UDP header (port 4791, the length the IP header
 * gives, room for a BTH and an ICRC) and then the ICRC.  The UDP checksum
 * is not looked at: the ICRC protects the packet.
 *
 * Return: 0; -EBADMSG if only the ICRC is wrong; -ENOMEM if @skb could
 * not be made linear; -EPROTONOSUPPORT if it is not IP; -EINVAL for
 * every other fault.
 */
int orca_soft_net_parse(struct sk_buff *skb, struct orca_soft_rx *rx)
{
	const struct udphdr *udp;
	const struct ethhdr *eth;
	u32 ip_len, udp_len;
	int err;

	if (skb->protocol == htons(ETH_P_IP))
		ip_len = ORCA_WIRE_IPV4_HDR_LEN;
	else if (skb->protocol == htons(ETH_P_IPV6))
		ip_len = ORCA_WIRE_IPV6_HDR_LEN;
	else
		return -EPROTONOSUPPORT;
	if (!skb_mac_header_was_set(skb) || skb_mac_offset(skb) > -ETH_HLEN)
		return -EINVAL;
	if (skb_linearize(skb))
		return -ENOMEM;

	if (ip_len == ORCA_WIRE_IPV4_HDR_LEN)
		udp_len = orca_frame_parse_ip4(skb, rx);
	else
		udp_len = orca_frame_parse_ip6(skb, rx);
	if (udp_len < ORCA_FRAME_MIN_UDP_LEN)
		return -EINVAL;
	/* What is left after the IP packet is the Ethernet padding. */
	if (pskb_trim_rcsum(skb, ip_len + udp_len))
		return -ENOMEM;
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, ip_len);

	udp = (const struct udphdr *)(skb->data + ip_len);
	if (udp->dest != htons(ORCA_WIRE_UDP_DPORT) ||
	    ntohs(udp->len) != udp_len)
		return -EINVAL;

	err = orca_soft_icrc_verify(skb->data, skb->len, rx->ip_version);
	if (err)
		return err;

	eth = (const struct ethhdr *)skb_mac_header(skb);
	rx->skb = skb;
	rx->nethdr = skb->data;
	rx->transport = skb->data + ip_len + ORCA_WIRE_UDP_HDR_LEN;
	rx->len = udp_len - ORCA_WIRE_UDP_HDR_LEN - ORCA_WIRE_ICRC_LEN;
	ether_addr_copy(rx->smac, eth->h_source);
	rx->vlan = skb_vlan_tag_present(skb) ? skb_vlan_tag_get_id(skb) :
		   ORCA_AV_VLAN_NONE;
	rx->sport = ntohs(udp->source);
	return 0;
}
