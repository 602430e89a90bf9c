// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: building and parsing RoCEv2 transport headers, and the ICRC.
 *
 * See orca_soft_wire.h and Documentation/orca-hw-interface.rst, "The
 * RoCEv2 packet format".  Nothing here is called by the engine yet: this
 * is the packet layer the wire will be built on.
 */
#include <linux/bitfield.h>
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/udp.h>
#include <asm/unaligned.h>

#include "orca_soft_wire.h"

/* Shorthands for the opcode table only. */
#define OF_REQ		ORCA_WIRE_F_REQUEST
#define OF_PAY		ORCA_WIRE_F_PAYLOAD
#define OF_FIRST	ORCA_WIRE_F_FIRST
#define OF_MIDDLE	0
#define OF_LAST		ORCA_WIRE_F_LAST
#define OF_ONLY		ORCA_WIRE_F_ONLY
#define OF_ACK		ORCA_WIRE_F_ACK
#define OF_SEND		(OF_REQ | OF_PAY | ORCA_WIRE_F_SEND)
#define OF_WRITE	(OF_REQ | OF_PAY | ORCA_WIRE_F_WRITE)
#define OF_READ		(OF_REQ | ORCA_WIRE_F_READ | OF_ONLY)
#define OF_RRESP	(OF_PAY | ORCA_WIRE_F_READ)
#define OF_ATOMIC	(OF_REQ | ORCA_WIRE_F_ATOMIC | OF_ONLY)
#define OF_AACK		(OF_ACK | ORCA_WIRE_F_ATOMIC | OF_ONLY)

#define H_DETH		ORCA_WIRE_HDR_DETH
#define H_RETH		ORCA_WIRE_HDR_RETH
#define H_ATOM		ORCA_WIRE_HDR_ATOMIC_ETH
#define H_AETH		ORCA_WIRE_HDR_AETH
#define H_AACK		ORCA_WIRE_HDR_ATOMIC_ACK_ETH
#define H_IMM		ORCA_WIRE_HDR_IMMDT
#define H_IETH		ORCA_WIRE_HDR_IETH
#define H_XRC		ORCA_WIRE_HDR_XRCETH

#define OP(code, f, h, l)						\
	[ORCA_OP_##code] = {						\
		.name = #code, .flags = (f), .hdrs = (h), .hdr_len = (l)	\
	}

/*
 * Every supported opcode: what it is, the extension headers it carries
 * after the BTH and the total length of its headers.  The lengths are
 * written out (BTH 12, DETH 8, RETH 16, AtomicETH 28, AETH 4,
 * AtomicAckETH 8, ImmDt 4, IETH 4, XRCETH 4); the KUnit suite checks each against
 * the sum of its headers.  An entry without a name is not supported.
 */
static const struct orca_wire_opinfo orca_wire_ops[256] = {
	OP(RC_SEND_FIRST,	OF_SEND | OF_FIRST,	0,		12),
	OP(RC_SEND_MIDDLE,	OF_SEND | OF_MIDDLE,	0,		12),
	OP(RC_SEND_LAST,	OF_SEND | OF_LAST,	0,		12),
	OP(RC_SEND_LAST_IMM,	OF_SEND | OF_LAST,	H_IMM,		16),
	OP(RC_SEND_ONLY,	OF_SEND | OF_ONLY,	0,		12),
	OP(RC_SEND_ONLY_IMM,	OF_SEND | OF_ONLY,	H_IMM,		16),
	OP(RC_WRITE_FIRST,	OF_WRITE | OF_FIRST,	H_RETH,		28),
	OP(RC_WRITE_MIDDLE,	OF_WRITE | OF_MIDDLE,	0,		12),
	OP(RC_WRITE_LAST,	OF_WRITE | OF_LAST,	0,		12),
	OP(RC_WRITE_LAST_IMM,	OF_WRITE | OF_LAST,	H_IMM,		16),
	OP(RC_WRITE_ONLY,	OF_WRITE | OF_ONLY,	H_RETH,		28),
	OP(RC_WRITE_ONLY_IMM,	OF_WRITE | OF_ONLY,	H_RETH | H_IMM,	32),
	OP(RC_READ_REQUEST,	OF_READ,		H_RETH,		28),
	OP(RC_READ_RESP_FIRST,	OF_RRESP | OF_FIRST | OF_ACK, H_AETH,	16),
	OP(RC_READ_RESP_MIDDLE,	OF_RRESP | OF_MIDDLE,	0,		12),
	OP(RC_READ_RESP_LAST,	OF_RRESP | OF_LAST | OF_ACK, H_AETH,	16),
	OP(RC_READ_RESP_ONLY,	OF_RRESP | OF_ONLY | OF_ACK, H_AETH,	16),
	OP(RC_ACK,		OF_ONLY | OF_ACK,	H_AETH,		16),
	OP(RC_ATOMIC_ACK,	OF_AACK,		H_AETH | H_AACK, 24),
	OP(RC_CMP_SWAP,		OF_ATOMIC,		H_ATOM,		40),
	OP(RC_FETCH_ADD,	OF_ATOMIC,		H_ATOM,		40),
	OP(RC_SEND_LAST_INV,	OF_SEND | OF_LAST,	H_IETH,		16),
	OP(RC_SEND_ONLY_INV,	OF_SEND | OF_ONLY,	H_IETH,		16),

	OP(UC_SEND_FIRST,	OF_SEND | OF_FIRST,	0,		12),
	OP(UC_SEND_MIDDLE,	OF_SEND | OF_MIDDLE,	0,		12),
	OP(UC_SEND_LAST,	OF_SEND | OF_LAST,	0,		12),
	OP(UC_SEND_LAST_IMM,	OF_SEND | OF_LAST,	H_IMM,		16),
	OP(UC_SEND_ONLY,	OF_SEND | OF_ONLY,	0,		12),
	OP(UC_SEND_ONLY_IMM,	OF_SEND | OF_ONLY,	H_IMM,		16),
	OP(UC_WRITE_FIRST,	OF_WRITE | OF_FIRST,	H_RETH,		28),
	OP(UC_WRITE_MIDDLE,	OF_WRITE | OF_MIDDLE,	0,		12),
	OP(UC_WRITE_LAST,	OF_WRITE | OF_LAST,	0,		12),
	OP(UC_WRITE_LAST_IMM,	OF_WRITE | OF_LAST,	H_IMM,		16),
	OP(UC_WRITE_ONLY,	OF_WRITE | OF_ONLY,	H_RETH,		28),
	OP(UC_WRITE_ONLY_IMM,	OF_WRITE | OF_ONLY,	H_RETH | H_IMM,	32),

	OP(UD_SEND_ONLY,	OF_SEND | OF_ONLY,	H_DETH,		20),
	OP(UD_SEND_ONLY_IMM,	OF_SEND | OF_ONLY,	H_DETH | H_IMM,	24),

	/* XRC: RC's requests with an XRCETH; RC's responses. */
	OP(XRC_SEND_FIRST,	OF_SEND | OF_FIRST,	H_XRC,		16),
	OP(XRC_SEND_MIDDLE,	OF_SEND | OF_MIDDLE,	H_XRC,		16),
	OP(XRC_SEND_LAST,	OF_SEND | OF_LAST,	H_XRC,		16),
	OP(XRC_SEND_LAST_IMM,	OF_SEND | OF_LAST,	H_XRC | H_IMM,	20),
	OP(XRC_SEND_ONLY,	OF_SEND | OF_ONLY,	H_XRC,		16),
	OP(XRC_SEND_ONLY_IMM,	OF_SEND | OF_ONLY,	H_XRC | H_IMM,	20),
	OP(XRC_WRITE_FIRST,	OF_WRITE | OF_FIRST,	H_XRC | H_RETH,	32),
	OP(XRC_WRITE_MIDDLE,	OF_WRITE | OF_MIDDLE,	H_XRC,		16),
	OP(XRC_WRITE_LAST,	OF_WRITE | OF_LAST,	H_XRC,		16),
	OP(XRC_WRITE_LAST_IMM,	OF_WRITE | OF_LAST,	H_XRC | H_IMM,	20),
	OP(XRC_WRITE_ONLY,	OF_WRITE | OF_ONLY,	H_XRC | H_RETH,	32),
	OP(XRC_WRITE_ONLY_IMM,	OF_WRITE | OF_ONLY,
	   H_XRC | H_RETH | H_IMM,					36),
	OP(XRC_READ_REQUEST,	OF_READ,		H_XRC | H_RETH,	32),
	OP(XRC_READ_RESP_FIRST,	OF_RRESP | OF_FIRST | OF_ACK, H_AETH,	16),
	OP(XRC_READ_RESP_MIDDLE, OF_RRESP | OF_MIDDLE,	0,		12),
	OP(XRC_READ_RESP_LAST,	OF_RRESP | OF_LAST | OF_ACK, H_AETH,	16),
	OP(XRC_READ_RESP_ONLY,	OF_RRESP | OF_ONLY | OF_ACK, H_AETH,	16),
	OP(XRC_ACK,		OF_ONLY | OF_ACK,	H_AETH,		16),
	OP(XRC_ATOMIC_ACK,	OF_AACK,		H_AETH | H_AACK, 24),
	OP(XRC_CMP_SWAP,	OF_ATOMIC,		H_XRC | H_ATOM,	44),
	OP(XRC_FETCH_ADD,	OF_ATOMIC,		H_XRC | H_ATOM,	44),
	OP(XRC_SEND_LAST_INV,	OF_SEND | OF_LAST,	H_XRC | H_IETH,	20),
	OP(XRC_SEND_ONLY_INV,	OF_SEND | OF_ONLY,	H_XRC | H_IETH,	20),
};

#undef OP
#undef OF_REQ
#undef OF_PAY
#undef OF_FIRST
#undef OF_MIDDLE
#undef OF_LAST
#undef OF_ONLY
#undef OF_ACK
#undef OF_SEND
#undef OF_WRITE
#undef OF_READ
#undef OF_RRESP
#undef OF_ATOMIC
#undef OF_AACK
#undef H_DETH
#undef H_RETH
#undef H_ATOM
#undef H_AETH
#undef H_AACK
#undef H_IMM
#undef H_IETH
#undef H_XRC

/**
 * orca_wire_opinfo() - what an opcode carries
 * @opcode: a BTH opcode
 *
 * Return: the opcode's table entry, or NULL if Orca does not support it.
 */
const struct orca_wire_opinfo *orca_wire_opinfo(u8 opcode)
{
	const struct orca_wire_opinfo *op = &orca_wire_ops[opcode];

	return op->name ? op : NULL;
}

/*
 * The payload rules both directions share, given the packet's payload
 * length: none for opcodes without one; a first or middle packet is
 * full (exactly @mtu bytes, a multiple of 4, so no pad); nothing is
 * longer than @mtu.  @mtu 0: the path MTU is not known here, only the
 * largest one (ORCA_WIRE_MAX_PAYLOAD) is enforced, and a first or middle
 * packet must merely be non-empty and unpadded.
 */
static bool orca_wire_payload_ok(const struct orca_wire_opinfo *op,
				 u32 payload_len, u32 mtu)
{
	if (!(op->flags & ORCA_WIRE_F_PAYLOAD))
		return payload_len == 0;
	if (payload_len > (mtu ? min_t(u32, mtu, ORCA_WIRE_MAX_PAYLOAD) :
				 ORCA_WIRE_MAX_PAYLOAD))
		return false;
	if (op->flags & ORCA_WIRE_F_LAST)
		return true;
	if (mtu)
		return payload_len == mtu;
	return payload_len && !orca_wire_pad(payload_len);
}

/**
 * orca_wire_build() - write a packet's transport headers
 * @pkt: the header fields; @pkt->payload_len is the length of the payload
 *	that will follow, from which the BTH pad count is derived
 *	(@pkt->pad and @pkt->payload_off are ignored)
 * @buf: where the BTH goes
 * @size: bytes available at @buf
 *
 * Writes the BTH and the extension headers of @pkt->opcode, and nothing
 * else: the caller appends the payload, orca_wire_pad() zero bytes and
 * the ICRC.  Reserved fields are written as zero, TVer as 0.
 *
 * Return: the length of the headers written, or -EPROTONOSUPPORT for an
 * opcode Orca does not support, -ENOSPC if they do not fit in @size,
 * -EINVAL for a field that does not fit on the wire (a QPN, PSN or MSN
 * above 24 bits) or a payload the opcode does not allow (see
 * orca_wire_parse() with @mtu 0).
 */
int orca_wire_build(const struct orca_wire_pkt *pkt, void *buf, size_t size)
{
	const struct orca_wire_opinfo *op = orca_wire_opinfo(pkt->opcode);
	struct orca_bth *bth = buf;
	u8 *p = buf;

	if (!op)
		return -EPROTONOSUPPORT;
	if (size < op->hdr_len)
		return -ENOSPC;
	if (pkt->dest_qpn & ~ORCA_BTH_QPN || pkt->psn & ~ORCA_BTH_PSN)
		return -EINVAL;
	if (!orca_wire_payload_ok(op, pkt->payload_len, 0))
		return -EINVAL;
	if ((op->hdrs & ORCA_WIRE_HDR_AETH) && pkt->aeth_msn & ~ORCA_AETH_MSN)
		return -EINVAL;
	if ((op->hdrs & ORCA_WIRE_HDR_DETH) && pkt->deth_sqpn & ~ORCA_DETH_SQPN)
		return -EINVAL;
	if ((op->hdrs & ORCA_WIRE_HDR_XRCETH) &&
	    pkt->xrc_srqn & ~ORCA_XRCETH_SRQN)
		return -EINVAL;

	memset(buf, 0, op->hdr_len);
	bth->opcode = pkt->opcode;
	bth->flags = FIELD_PREP(ORCA_BTH_SE, pkt->se) |
		     FIELD_PREP(ORCA_BTH_MIG, pkt->mig) |
		     FIELD_PREP(ORCA_BTH_PAD, orca_wire_pad(pkt->payload_len)) |
		     FIELD_PREP(ORCA_BTH_TVER, ORCA_BTH_TVER_IBA);
	bth->pkey = cpu_to_be16(pkt->pkey);
	bth->qpn = cpu_to_be32(FIELD_PREP(ORCA_BTH_FECN, pkt->fecn) |
			       FIELD_PREP(ORCA_BTH_BECN, pkt->becn) |
			       FIELD_PREP(ORCA_BTH_QPN, pkt->dest_qpn));
	bth->apsn = cpu_to_be32(FIELD_PREP(ORCA_BTH_ACKREQ, pkt->ack_req) |
				FIELD_PREP(ORCA_BTH_PSN, pkt->psn));
	p += ORCA_WIRE_BTH_LEN;

	/* The extension headers, in wire order. */
	if (op->hdrs & ORCA_WIRE_HDR_XRCETH) {
		struct orca_xrceth *x = (struct orca_xrceth *)p;

		x->srqn = cpu_to_be32(FIELD_PREP(ORCA_XRCETH_SRQN,
						 pkt->xrc_srqn));
		p += ORCA_WIRE_XRCETH_LEN;
	}
	if (op->hdrs & ORCA_WIRE_HDR_DETH) {
		struct orca_deth *deth = (struct orca_deth *)p;

		deth->qkey = cpu_to_be32(pkt->deth_qkey);
		deth->sqpn = cpu_to_be32(FIELD_PREP(ORCA_DETH_SQPN,
						    pkt->deth_sqpn));
		p += ORCA_WIRE_DETH_LEN;
	}
	if (op->hdrs & ORCA_WIRE_HDR_RETH) {
		struct orca_reth *reth = (struct orca_reth *)p;

		reth->va = cpu_to_be64(pkt->reth_va);
		reth->rkey = cpu_to_be32(pkt->reth_rkey);
		reth->dma_len = cpu_to_be32(pkt->reth_len);
		p += ORCA_WIRE_RETH_LEN;
	}
	if (op->hdrs & ORCA_WIRE_HDR_ATOMIC_ETH) {
		struct orca_atomic_eth *ae = (struct orca_atomic_eth *)p;

		ae->va = cpu_to_be64(pkt->atomic_va);
		ae->rkey = cpu_to_be32(pkt->atomic_rkey);
		ae->swap_add = cpu_to_be64(pkt->atomic_swap_add);
		ae->compare = cpu_to_be64(pkt->atomic_compare);
		p += ORCA_WIRE_ATOMIC_ETH_LEN;
	}
	if (op->hdrs & ORCA_WIRE_HDR_AETH) {
		struct orca_aeth *aeth = (struct orca_aeth *)p;

		aeth->smsn = cpu_to_be32(FIELD_PREP(ORCA_AETH_SYNDROME,
						    pkt->aeth_syndrome) |
					 FIELD_PREP(ORCA_AETH_MSN,
						    pkt->aeth_msn));
		p += ORCA_WIRE_AETH_LEN;
	}
	if (op->hdrs & ORCA_WIRE_HDR_ATOMIC_ACK_ETH) {
		struct orca_atomic_ack_eth *aa = (struct orca_atomic_ack_eth *)p;

		aa->orig = cpu_to_be64(pkt->atomic_orig);
		p += ORCA_WIRE_ATOMIC_ACK_ETH_LEN;
	}
	if (op->hdrs & ORCA_WIRE_HDR_IMMDT) {
		memcpy(p, &pkt->imm, ORCA_WIRE_IMMDT_LEN);
		p += ORCA_WIRE_IMMDT_LEN;
	}
	if (op->hdrs & ORCA_WIRE_HDR_IETH) {
		put_unaligned_be32(pkt->ieth_rkey, p);
		p += ORCA_WIRE_IETH_LEN;
	}

	/* The table's length and the headers written must agree. */
	if (WARN_ON_ONCE(p - (u8 *)buf != op->hdr_len))
		return -EINVAL;
	return op->hdr_len;
}

/**
 * orca_wire_parse() - check and decode a received packet's headers
 * @buf: the UDP payload: the BTH first, the ICRC last
 * @len: its length in bytes (the UDP length less the UDP header)
 * @mtu: the path MTU in bytes to hold the payload to, or 0 (see below)
 * @pkt: the decoded fields (all zero on error)
 *
 * Reads nothing outside @buf[0..@len).  A packet is rejected when its
 * opcode is not supported or its TVer is not 0 (-EPROTONOSUPPORT), or
 * when it is malformed (-EBADMSG): @len not a multiple of 4, shorter
 * than the opcode's headers and the ICRC, a pad count larger than what
 * follows the headers, a payload on an opcode that has none, a first or
 * middle packet that is not full (@mtu bytes; with @mtu 0, empty or
 * padded), or a payload above @mtu (with @mtu 0: above
 * ORCA_WIRE_MAX_PAYLOAD).  The ICRC itself is not checked here
 * (orca_soft_icrc_verify()), nor is anything that needs the QP: P_Key,
 * destination QP, PSN, or the RETH DMA length against the message.
 *
 * On success @pkt->payload_off is the offset of the payload in @buf and
 * @pkt->payload_len its length without the pad.
 *
 * Return: 0, -EPROTONOSUPPORT or -EBADMSG.
 */
int orca_wire_parse(const void *buf, size_t len, u32 mtu,
		    struct orca_wire_pkt *pkt)
{
	const struct orca_wire_opinfo *op;
	const struct orca_bth *bth = buf;
	const u8 *p = buf;
	u32 qpn, apsn;
	size_t room;
	u8 pad;

	memset(pkt, 0, sizeof(*pkt));
	if (len < ORCA_WIRE_BTH_LEN + ORCA_WIRE_ICRC_LEN)
		return -EBADMSG;
	op = orca_wire_opinfo(bth->opcode);
	if (!op || FIELD_GET(ORCA_BTH_TVER, bth->flags) != ORCA_BTH_TVER_IBA)
		return -EPROTONOSUPPORT;
	if (len % 4 || len < op->hdr_len + ORCA_WIRE_ICRC_LEN)
		return -EBADMSG;
	/*
	 * Headers and ICRC are multiples of 4 and so is @len: what is left,
	 * payload and pad, is too, and the pad count is the right one for
	 * the payload as soon as it is not larger than what is left.
	 */
	room = len - op->hdr_len - ORCA_WIRE_ICRC_LEN;
	pad = FIELD_GET(ORCA_BTH_PAD, bth->flags);
	if (pad > room)
		return -EBADMSG;
	/* Bounded before it is narrowed to the u32 the payload rules take. */
	if (room - pad > ORCA_WIRE_MAX_PAYLOAD ||
	    !orca_wire_payload_ok(op, room - pad, mtu))
		return -EBADMSG;

	qpn = be32_to_cpu(bth->qpn);
	apsn = be32_to_cpu(bth->apsn);
	pkt->opcode = bth->opcode;
	pkt->se = FIELD_GET(ORCA_BTH_SE, bth->flags);
	pkt->mig = FIELD_GET(ORCA_BTH_MIG, bth->flags);
	pkt->pad = pad;
	pkt->pkey = be16_to_cpu(bth->pkey);
	pkt->fecn = FIELD_GET(ORCA_BTH_FECN, qpn);
	pkt->becn = FIELD_GET(ORCA_BTH_BECN, qpn);
	pkt->dest_qpn = FIELD_GET(ORCA_BTH_QPN, qpn);
	pkt->ack_req = FIELD_GET(ORCA_BTH_ACKREQ, apsn);
	pkt->psn = FIELD_GET(ORCA_BTH_PSN, apsn);
	p += ORCA_WIRE_BTH_LEN;

	/* The XRCETH's reserved bits are ignored, as the BTH's are. */
	if (op->hdrs & ORCA_WIRE_HDR_XRCETH) {
		const struct orca_xrceth *x = (const struct orca_xrceth *)p;

		pkt->xrc_srqn = FIELD_GET(ORCA_XRCETH_SRQN,
					  be32_to_cpu(x->srqn));
		p += ORCA_WIRE_XRCETH_LEN;
	}
	if (op->hdrs & ORCA_WIRE_HDR_DETH) {
		const struct orca_deth *deth = (const struct orca_deth *)p;

		pkt->deth_qkey = be32_to_cpu(deth->qkey);
		pkt->deth_sqpn = FIELD_GET(ORCA_DETH_SQPN,
					   be32_to_cpu(deth->sqpn));
		p += ORCA_WIRE_DETH_LEN;
	}
	if (op->hdrs & ORCA_WIRE_HDR_RETH) {
		const struct orca_reth *reth = (const struct orca_reth *)p;

		pkt->reth_va = be64_to_cpu(reth->va);
		pkt->reth_rkey = be32_to_cpu(reth->rkey);
		pkt->reth_len = be32_to_cpu(reth->dma_len);
		p += ORCA_WIRE_RETH_LEN;
	}
	if (op->hdrs & ORCA_WIRE_HDR_ATOMIC_ETH) {
		const struct orca_atomic_eth *ae =
			(const struct orca_atomic_eth *)p;

		pkt->atomic_va = be64_to_cpu(ae->va);
		pkt->atomic_rkey = be32_to_cpu(ae->rkey);
		pkt->atomic_swap_add = be64_to_cpu(ae->swap_add);
		pkt->atomic_compare = be64_to_cpu(ae->compare);
		p += ORCA_WIRE_ATOMIC_ETH_LEN;
	}
	if (op->hdrs & ORCA_WIRE_HDR_AETH) {
		const struct orca_aeth *aeth = (const struct orca_aeth *)p;
		u32 smsn = be32_to_cpu(aeth->smsn);

		pkt->aeth_syndrome = FIELD_GET(ORCA_AETH_SYNDROME, smsn);
		pkt->aeth_msn = FIELD_GET(ORCA_AETH_MSN, smsn);
		p += ORCA_WIRE_AETH_LEN;
	}
	if (op->hdrs & ORCA_WIRE_HDR_ATOMIC_ACK_ETH) {
		const struct orca_atomic_ack_eth *aa =
			(const struct orca_atomic_ack_eth *)p;

		pkt->atomic_orig = be64_to_cpu(aa->orig);
		p += ORCA_WIRE_ATOMIC_ACK_ETH_LEN;
	}
	if (op->hdrs & ORCA_WIRE_HDR_IMMDT) {
		memcpy(&pkt->imm, p, ORCA_WIRE_IMMDT_LEN);
		p += ORCA_WIRE_IMMDT_LEN;
	}
	if (op->hdrs & ORCA_WIRE_HDR_IETH) {
		pkt->ieth_rkey = get_unaligned_be32(p);
		p += ORCA_WIRE_IETH_LEN;
	}

	pkt->payload_off = op->hdr_len;
	pkt->payload_len = room - pad;
	return 0;
}

/**
 * orca_wire_udp_sport() - the UDP source port of a flow
 * @flow_label: the address vector's 20-bit flow label, 0 if none
 * @lqpn: the sending QP
 * @rqpn: the destination QP
 *
 * RoCEv2 leaves the source port to the sender, as entropy for ECMP.  Orca
 * folds the flow label into 14 bits above 0xc000; without a flow label it
 * first derives one from the product of the two QPNs, which both ends of
 * a connection compute alike.  This is the convention of Linux's RoCE
 * drivers, so that a flow hashes the same whichever end is Orca.
 *
 * Return: the source port, 0xc000..0xffff.
 */
u16 orca_wire_udp_sport(u32 flow_label, u32 lqpn, u32 rqpn)
{
	u32 fl = flow_label & ORCA_WIRE_FLOW_LABEL;

	if (!fl) {
		u64 v = (u64)lqpn * rqpn;

		v ^= v >> 20;
		v ^= v >> 40;
		fl = v & ORCA_WIRE_FLOW_LABEL;
	}
	return ORCA_WIRE_UDP_SPORT_BASE |
	       ((fl ^ (fl >> 14)) & ORCA_WIRE_UDP_SPORT_BITS);
}

/*
 * Length of the IP header at @pkt, or 0 if it is not one the ICRC can
 * be computed over: version @ip_version, IPv4 without options, IPv6
 * without extension headers, UDP next, and room for the UDP header, a
 * BTH and the ICRC.
 */
static size_t orca_icrc_ip_len(const void *pkt, size_t len,
			       unsigned int ip_version)
{
	size_t ip_len;

	if (ip_version == 4) {
		const struct iphdr *ip4 = pkt;

		ip_len = ORCA_WIRE_IPV4_HDR_LEN;
		if (len < ip_len || ip4->version != 4 || ip4->ihl != 5 ||
		    ip4->protocol != IPPROTO_UDP)
			return 0;
	} else if (ip_version == 6) {
		const struct ipv6hdr *ip6 = pkt;

		ip_len = ORCA_WIRE_IPV6_HDR_LEN;
		if (len < ip_len || ip6->version != 6 ||
		    ip6->nexthdr != IPPROTO_UDP)
			return 0;
	} else {
		return 0;
	}
	if (len < ip_len + ORCA_WIRE_UDP_HDR_LEN + ORCA_WIRE_BTH_LEN +
		  ORCA_WIRE_ICRC_LEN)
		return 0;
	return ip_len;
}

/**
 * orca_soft_icrc() - compute a RoCEv2 packet's invariant CRC
 * @pkt: the packet from its IP header to its ICRC
 * @len: its length, the 4 ICRC bytes included
 * @ip_version: 4 or 6: which IP header @pkt starts with
 * @icrc: the result
 *
 * The CRC-32 of IEEE 802.3 (reflected polynomial 0xedb88320, initial
 * value ~0, result complemented, as zlib's crc32()) over: 8 bytes of
 * 0xff standing for an InfiniBand LRH; the IP header with the fields a
 * router may change masked to ones (IPv4: TOS, TTL, header checksum;
 * IPv6: traffic class, flow label, hop limit); the UDP header with its
 * checksum masked to ones; the BTH with its byte 4 (FECN, BECN and
 * reserved bits) masked to ones; and everything after the BTH up to the
 * ICRC (extension headers, payload, pad).  @pkt is not modified.
 *
 * The ICRC goes on the wire least significant byte first
 * (orca_soft_icrc_set()).
 *
 * Return: 0, or -EINVAL if @pkt is not an IPv4 (20-byte header) or IPv6
 * (no extension header) UDP packet long enough for a BTH and an ICRC.
 */
int orca_soft_icrc(const void *pkt, size_t len, unsigned int ip_version,
		   u32 *icrc)
{
	static const u8 lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	u8 hdr[ORCA_WIRE_IPV6_HDR_LEN + ORCA_WIRE_UDP_HDR_LEN +
	       ORCA_WIRE_BTH_LEN];
	size_t ip_len = orca_icrc_ip_len(pkt, len, ip_version);
	size_t hdr_len = ip_len + ORCA_WIRE_UDP_HDR_LEN + ORCA_WIRE_BTH_LEN;
	struct udphdr *udp;
	u32 crc;

	if (!ip_len)
		return -EINVAL;

	/* The variant fields, masked in a copy of the headers. */
	memcpy(hdr, pkt, hdr_len);
	if (ip_version == 4) {
		struct iphdr *ip4 = (struct iphdr *)hdr;

		ip4->tos = 0xff;
		ip4->ttl = 0xff;
		ip4->check = (__force __sum16)0xffff;
	} else {
		/* Bytes 0-3: version [31:28], class [27:20], label [19:0]. */
		put_unaligned_be32(get_unaligned_be32(hdr) | GENMASK(27, 0),
				   hdr);
		((struct ipv6hdr *)hdr)->hop_limit = 0xff;
	}
	udp = (struct udphdr *)(hdr + ip_len);
	udp->check = (__force __sum16)0xffff;
	hdr[ip_len + ORCA_WIRE_UDP_HDR_LEN + offsetof(struct orca_bth, qpn)] =
		0xff;

	crc = crc32_le(~0U, lrh, sizeof(lrh));
	crc = crc32_le(crc, hdr, hdr_len);
	crc = crc32_le(crc, (const u8 *)pkt + hdr_len,
		       len - hdr_len - ORCA_WIRE_ICRC_LEN);
	*icrc = ~crc;
	return 0;
}

/**
 * orca_soft_icrc_set() - fill in a RoCEv2 packet's ICRC
 * @pkt: the packet from its IP header on, ICRC bytes last
 * @len: its length, the ICRC included
 * @ip_version: 4 or 6
 *
 * Return: 0, or -EINVAL as orca_soft_icrc().
 */
int orca_soft_icrc_set(void *pkt, size_t len, unsigned int ip_version)
{
	u32 icrc;
	int err;

	err = orca_soft_icrc(pkt, len, ip_version, &icrc);
	if (err)
		return err;
	put_unaligned_le32(icrc, (u8 *)pkt + len - ORCA_WIRE_ICRC_LEN);
	return 0;
}

/**
 * orca_soft_icrc_verify() - check a received RoCEv2 packet's ICRC
 * @pkt: the packet from its IP header on, ICRC bytes last
 * @len: its length, the ICRC included
 * @ip_version: 4 or 6
 *
 * Return: 0 if the ICRC is right, -EBADMSG if it is not, -EINVAL as
 * orca_soft_icrc().
 */
int orca_soft_icrc_verify(const void *pkt, size_t len,
			  unsigned int ip_version)
{
	u32 icrc;
	int err;

	err = orca_soft_icrc(pkt, len, ip_version, &icrc);
	if (err)
		return err;
	if (get_unaligned_le32((const u8 *)pkt + len - ORCA_WIRE_ICRC_LEN) !=
	    icrc)
		return -EBADMSG;
	return 0;
}
