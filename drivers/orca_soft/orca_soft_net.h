/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * orca_soft: the port on the wire.
 *
 * Transmit: the engine asks for a packet addressed by a route (what an
 * address vector resolves to), writes its transport headers and payload
 * into the space it is given, and sends it.  The Ethernet (and 802.1Q),
 * IP and UDP headers and the ICRC are this file's business.  The device
 * never consults the host's routing or neighbour tables: the destination
 * MAC comes from the address vector, which ib_core resolved.
 *
 * Receive: an rx_handler on the netdev takes every RoCEv2 packet (UDP
 * destination port 4791, IPv4 or IPv6, addressed to this host or to a
 * multicast group) off the host's stack, queues it for the engine thread
 * (bounded) and wakes the engine.  The engine dequeues one at a time;
 * orca_soft_net_rx_next() checks L2 to L4 and the ICRC and hands back the
 * transport part and the network header it came in.
 */
#ifndef ORCA_SOFT_NET_H
#define ORCA_SOFT_NET_H

#include <linux/if_ether.h>
#include <linux/skbuff.h>
#include <linux/types.h>

struct orca_soft_dev;

/* Packets waiting for the engine; more are dropped (rx_drops). */
#define ORCA_SOFT_RXQ_MAX		4096

/* What the rx_handler notes in a queued packet's skb->cb. */
struct orca_soft_rx_cb {
	u64 arrival_ns;			/* ktime_get_ns() when queued */
};

#define ORCA_SOFT_RX_CB(skb)	((struct orca_soft_rx_cb *)(skb)->cb)

/* Where a packet goes, from an address vector. */
struct orca_soft_route {
	u8 sgid[16];			/* IPv4-mapped for RoCEv2 over IPv4 */
	u8 dgid[16];			/* same family as sgid */
	u8 dmac[ETH_ALEN];
	u16 vlan;			/* ORCA_AV_VLAN_NONE: untagged */
	u8 hop_limit;
	u8 traffic_class;
	u32 flow_label;			/* IPv6 only */
	u16 sport;			/* UDP source port */
};

/* A received packet that passed the L2-L4 and ICRC checks. */
struct orca_soft_rx {
	struct sk_buff *skb;		/* owned until orca_soft_net_rx_done() */
	const u8 *transport;		/* BTH onwards, linear */
	u32 len;			/* BTH to the end of the pad, no ICRC */
	const u8 *nethdr;		/* the IP header */
	u8 ip_version;			/* 4 or 6 */
	u8 sgid[16];			/* the source address, as a GID */
	u8 dgid[16];			/* the destination address */
	u8 smac[ETH_ALEN];
	u16 vlan;			/* ORCA_AV_VLAN_NONE: untagged */
	u8 traffic_class;
	u8 hop_limit;
	u32 flow_label;
	u16 sport;
};

int orca_soft_net_attach(struct orca_soft_dev *sdev);
void orca_soft_net_detach(struct orca_soft_dev *sdev);
void orca_soft_net_detach_rtnl(struct orca_soft_dev *sdev);

struct sk_buff *orca_soft_net_alloc(struct orca_soft_dev *sdev,
				    const struct orca_soft_route *rt, u32 len,
				    u8 **transport);
int orca_soft_net_xmit(struct orca_soft_dev *sdev, struct sk_buff *skb);

bool orca_soft_net_rx_next(struct orca_soft_dev *sdev,
			   struct orca_soft_rx *rx);
void orca_soft_net_rx_done(struct orca_soft_rx *rx);
u64 orca_soft_net_rx_oldest(struct orca_soft_dev *sdev);
void orca_soft_net_purge(struct orca_soft_dev *sdev);

/*
 * orca_soft_frame.c: the framing itself, pure (no device; tested by the
 * KUnit suite orca_soft_net).  orca_soft_net_alloc() and _xmit() are
 * _frame() and _finish() on an skb of the netdev; _rx_next() is _parse()
 * on each queued packet.
 */
int orca_soft_net_frame(struct sk_buff *skb, const struct orca_soft_route *rt,
			u32 len, const u8 *src_mac, u8 **transport);
int orca_soft_net_finish(struct sk_buff *skb);
int orca_soft_net_parse(struct sk_buff *skb, struct orca_soft_rx *rx);

#endif /* ORCA_SOFT_NET_H */
