// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: the port on the wire (see orca_soft_net.h).
 *
 * Transmit builds a frame around the engine's transport bytes
 * (orca_soft_frame.c) and hands it to the netdev with dev_queue_xmit():
 * no route or neighbour lookup, the address vector says everything.
 *
 * Receive is an rx_handler on the netdev, so an instance cannot share its
 * netdev with anything else that needs one (a bridge, a bond, macvlan).
 * The handler runs in softirq for every frame the netdev receives: it
 * only looks far enough to tell RoCEv2 to this host from the rest, which
 * it passes on untouched, and queues the RoCEv2 packets for the engine
 * thread, which checks them (orca_soft_net_rx_next()).
 *
 * Locking: sdev->rx_attached and registering the handler are under RTNL;
 * sdev->rxq's own lock covers the queue.
 */
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ip.h>

#include "orca_soft.h"
#include "orca_soft_net.h"
#include "orca_soft_wire.h"

/* The longest IP and UDP headers orca_soft_net_frame() writes. */
#define ORCA_SOFT_NET_MAX_L3L4	(ORCA_WIRE_IPV6_HDR_LEN + ORCA_WIRE_UDP_HDR_LEN)

/* ------------------------------------------------------------- transmit */

/**
 * orca_soft_net_alloc() - a frame to send on the port
 * @sdev: the device
 * @rt: where it goes
 * @len: the transport length: BTH to the end of the pad, no ICRC
 * @transport: set to the first of the @len bytes, which the caller fills
 *
 * Process context; does not sleep long (no reclaim retries).
 *
 * Return: the skb, to be given to orca_soft_net_xmit() or freed, or NULL
 * if memory is short or @rt or @len is invalid (orca_soft_net_frame()).
 */
struct sk_buff *orca_soft_net_alloc(struct orca_soft_dev *sdev,
				    const struct orca_soft_route *rt, u32 len,
				    u8 **transport)
{
	struct net_device *ndev = sdev->netdev;
	unsigned int head = LL_RESERVED_SPACE(ndev);
	struct sk_buff *skb;

	if (len > U16_MAX)
		return NULL;
	/* Room for the stack to insert the tag if the netdev cannot. */
	if (rt->vlan != ORCA_AV_VLAN_NONE)
		head += VLAN_HLEN;
	skb = alloc_skb(head + ORCA_SOFT_NET_MAX_L3L4 + len +
			ORCA_WIRE_ICRC_LEN + ndev->needed_tailroom,
			ORCA_SOFT_GFP | __GFP_NOWARN);
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	skb->dev = ndev;
	if (orca_soft_net_frame(skb, rt, len, ndev->dev_addr, transport)) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/**
 * orca_soft_net_xmit() - send a frame from orca_soft_net_alloc()
 * @sdev: the device
 * @skb: the frame, its transport bytes written; always consumed
 *
 * Sets the ICRC (and over IPv6 the UDP checksum) and queues the frame on
 * the netdev.  A frame the netdev refuses counts in tx_drops; one a qdisc
 * marks as congested (NET_XMIT_CN) counts as sent, as everywhere in the
 * stack.
 *
 * Return: 0, or a negative errno if the frame was not sent.
 */
int orca_soft_net_xmit(struct orca_soft_dev *sdev, struct sk_buff *skb)
{
	int err;

	err = orca_soft_net_finish(skb);
	if (err) {
		kfree_skb(skb);
		goto drop;
	}
	skb->dev = sdev->netdev;
	err = dev_queue_xmit(skb);
	if (!net_xmit_eval(err))
		return 0;
	if (err > 0)
		err = -ENOBUFS;
drop:
	orca_soft_count(sdev, ORCA_SOFT_CNT_TX_DROPS, 1);
	return err;
}

/* -------------------------------------------------------------- receive */

/*
 * Whether a frame is IPv4 or IPv6 UDP to port 4791, not a fragment.
 * IPv4 options are skipped here, to be refused by the engine's checks.
 */
static bool orca_soft_net_is_roce(struct sk_buff *skb)
{
	const struct udphdr *udp;
	unsigned int hl;

	if (skb->protocol == htons(ETH_P_IP)) {
		const struct iphdr *ip4;

		if (!pskb_may_pull(skb, sizeof(*ip4)))
			return false;
		ip4 = (const struct iphdr *)skb->data;
		if (ip4->version != 4 || ip4->ihl < 5 ||
		    ip4->protocol != IPPROTO_UDP || ip_is_fragment(ip4))
			return false;
		hl = ip4->ihl * 4;
	} else {
		const struct ipv6hdr *ip6;

		if (!pskb_may_pull(skb, sizeof(*ip6)))
			return false;
		ip6 = (const struct ipv6hdr *)skb->data;
		if (ip6->version != 6 || ip6->nexthdr != IPPROTO_UDP)
			return false;
		hl = sizeof(*ip6);
	}
	if (!pskb_may_pull(skb, hl + sizeof(*udp)))
		return false;
	udp = (const struct udphdr *)(skb->data + hl);
	return udp->dest == htons(ORCA_WIRE_UDP_DPORT);
}

static rx_handler_result_t orca_soft_net_rx_handler(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct orca_soft_dev *sdev;
	unsigned long flags;
	bool queued = false;

	if (skb->protocol != htons(ETH_P_IP) &&
	    skb->protocol != htons(ETH_P_IPV6))
		return RX_HANDLER_PASS;
	if (skb->pkt_type != PACKET_HOST &&
	    skb->pkt_type != PACKET_MULTICAST &&
	    skb->pkt_type != PACKET_BROADCAST)
		return RX_HANDLER_PASS;

	/*
	 * pskb_may_pull() may reallocate the head, which a shared skb (a
	 * packet socket holds a reference) must not see: clone it first.
	 */
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return RX_HANDLER_CONSUMED;
	*pskb = skb;
	if (!orca_soft_net_is_roce(skb))
		return RX_HANDLER_PASS;

	sdev = rcu_dereference(skb->dev->rx_handler_data);
	BUILD_BUG_ON(sizeof(struct orca_soft_rx_cb) > sizeof(skb->cb));
	ORCA_SOFT_RX_CB(skb)->arrival_ns = ktime_get_ns();
	spin_lock_irqsave(&sdev->rxq.lock, flags);
	if (READ_ONCE(sdev->enabled) &&
	    skb_queue_len(&sdev->rxq) < ORCA_SOFT_RXQ_MAX) {
		__skb_queue_tail(&sdev->rxq, skb);
		queued = true;
	} else {
		orca_soft_count(sdev, ORCA_SOFT_CNT_RX_DROPS, 1);
	}
	spin_unlock_irqrestore(&sdev->rxq.lock, flags);

	if (queued)
		orca_soft_engine_wake(sdev);
	else
		kfree_skb(skb);
	return RX_HANDLER_CONSUMED;
}

/**
 * orca_soft_net_attach() - start taking RoCEv2 packets off the netdev
 * @sdev: the device
 *
 * Takes RTNL.
 *
 * Return: 0; -EBUSY if the netdev already has an rx_handler (it is a
 * bridge port, a bond slave, a macvlan's lower device...); -ENODEV if it
 * is being unregistered.
 */
int orca_soft_net_attach(struct orca_soft_dev *sdev)
{
	struct net_device *ndev = sdev->netdev;
	int err;

	rtnl_lock();
	if (ndev->reg_state != NETREG_REGISTERED) {
		err = -ENODEV;
		goto out;
	}
	err = netdev_rx_handler_register(ndev, orca_soft_net_rx_handler, sdev);
	if (err == -EBUSY)
		pr_err("orca_soft: %s already has a receive handler (is it a bridge port, a bond slave, a macvlan's lower device?)\n",
		       netdev_name(ndev));
	else if (err)
		pr_err("orca_soft: cannot register a receive handler on %s: %d\n",
		       netdev_name(ndev), err);
	else
		sdev->rx_attached = true;
out:
	rtnl_unlock();
	return err;
}

/**
 * orca_soft_net_detach_rtnl() - stop taking packets; drop those queued
 * @sdev: the device
 *
 * The caller holds RTNL (the NETDEV_UNREGISTER notifier does).  Waits for
 * handlers running on other CPUs to return.  Idempotent.
 */
void orca_soft_net_detach_rtnl(struct orca_soft_dev *sdev)
{
	ASSERT_RTNL();
	if (sdev->rx_attached) {
		netdev_rx_handler_unregister(sdev->netdev);
		sdev->rx_attached = false;
	}
	/* Not the engine's packet in hand: it may still be running. */
	skb_queue_purge(&sdev->rxq);
}

/**
 * orca_soft_net_detach() - orca_soft_net_detach_rtnl(), taking RTNL
 * @sdev: the device
 */
void orca_soft_net_detach(struct orca_soft_dev *sdev)
{
	rtnl_lock();
	orca_soft_net_detach_rtnl(sdev);
	rtnl_unlock();
}

/**
 * orca_soft_net_rx_next() - the next received packet that is RoCEv2
 * @sdev: the device
 * @rx: filled in with the packet, which the caller owns until
 *	orca_soft_net_rx_done()
 *
 * The engine thread (rxq's only consumer), under eng_rwsem held for
 * writing or, in the shared lane, for reading.  Packets that fail the checks of
 * orca_soft_net_parse() are freed on the way: a bad ICRC counts in
 * rx_icrc_errors, any other fault in rx_drops.
 *
 * Return: true if @rx holds a packet, false if the queue is empty.
 */
bool orca_soft_net_rx_next(struct orca_soft_dev *sdev,
			   struct orca_soft_rx *rx)
{
	struct sk_buff *skb;
	int err;

	lockdep_assert_held(&sdev->eng_rwsem);
	while ((skb = skb_dequeue(&sdev->rxq))) {
		err = orca_soft_net_parse(skb, rx);
		if (!err)
			return true;
		if (err == -EBADMSG)
			orca_soft_count(sdev, ORCA_SOFT_CNT_RX_ICRC_ERRORS, 1);
		else
			orca_soft_count(sdev, ORCA_SOFT_CNT_RX_DROPS, 1);
		kfree_skb(skb);
	}
	rx->skb = NULL;
	return false;
}

/**
 * orca_soft_net_rx_done() - free a packet from orca_soft_net_rx_next()
 * @rx: the packet; its pointers are invalid afterwards
 */
void orca_soft_net_rx_done(struct orca_soft_rx *rx)
{
	consume_skb(rx->skb);
	rx->skb = NULL;
	rx->transport = NULL;
	rx->nethdr = NULL;
}

/**
 * orca_soft_net_rx_oldest() - when the oldest waiting packet arrived
 * @sdev: the device
 *
 * Return: the ktime_get_ns() at which the packet at the head of the
 * engine's receive queue was queued, or U64_MAX if the queue is empty.
 */
u64 orca_soft_net_rx_oldest(struct orca_soft_dev *sdev)
{
	struct sk_buff *skb;
	unsigned long flags;
	u64 t = U64_MAX;

	spin_lock_irqsave(&sdev->rxq.lock, flags);
	skb = skb_peek(&sdev->rxq);
	if (skb)
		t = ORCA_SOFT_RX_CB(skb)->arrival_ns;
	spin_unlock_irqrestore(&sdev->rxq.lock, flags);
	return t;
}

/**
 * orca_soft_net_purge() - free every packet waiting for the engine
 * @sdev: the device, its engine stopped
 */
void orca_soft_net_purge(struct orca_soft_dev *sdev)
{
	if (sdev->rx_held.skb)
		orca_soft_net_rx_done(&sdev->rx_held);
	skb_queue_purge(&sdev->rxq);
}
