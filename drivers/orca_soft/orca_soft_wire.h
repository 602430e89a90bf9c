/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * orca_soft: the RoCEv2 packet format.
 *
 * The InfiniBand transport headers a RoCEv2 packet carries after its UDP
 * header (BTH and the extension headers), the opcodes of the RC, UC and
 * UD transports and the headers each one carries, and the invariant CRC
 * (ICRC) that ends every packet.  Documentation/orca-hw-interface.rst,
 * "The RoCEv2 packet format", is the specification; these formats are
 * private to the device (the driver never sees a packet), which is why
 * they live here and not in orca_hw.h.
 *
 * Everything here is pure: no device state, no allocation, no locks.
 * Packets are built into and parsed from caller-provided linear buffers,
 * and a parsed buffer is treated as hostile: every length is checked
 * before a byte is read.  The KUnit suite tests/kunit/orca_soft_wire_test.c
 * tests these functions directly.
 */
#ifndef ORCA_SOFT_WIRE_H
#define ORCA_SOFT_WIRE_H

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

/* UDP destination port of every RoCEv2 packet (IANA). */
#define ORCA_WIRE_UDP_DPORT		4791
/* Source ports are chosen in 0xc000..0xffff (orca_wire_udp_sport()). */
#define ORCA_WIRE_UDP_SPORT_BASE	0xc000
#define ORCA_WIRE_UDP_SPORT_BITS	GENMASK(13, 0)

/* Sizes in bytes of the headers on the wire. */
#define ORCA_WIRE_BTH_LEN		12
#define ORCA_WIRE_RETH_LEN		16
#define ORCA_WIRE_AETH_LEN		4
#define ORCA_WIRE_ATOMIC_ETH_LEN	28
#define ORCA_WIRE_ATOMIC_ACK_ETH_LEN	8
#define ORCA_WIRE_IMMDT_LEN		4
#define ORCA_WIRE_IETH_LEN		4
#define ORCA_WIRE_DETH_LEN		8
#define ORCA_WIRE_XRCETH_LEN		4
#define ORCA_WIRE_ICRC_LEN		4
#define ORCA_WIRE_UDP_HDR_LEN		8
#define ORCA_WIRE_IPV4_HDR_LEN		20
#define ORCA_WIRE_IPV6_HDR_LEN		40

/*
 * The longest header sequence of any opcode, BTH + XRCETH + AtomicETH;
 * of an opcode with a payload, BTH + XRCETH + RETH + ImmDt.
 */
#define ORCA_WIRE_MAX_HDR_LEN		44
#define ORCA_WIRE_MAX_PAYLOAD_HDR_LEN	36

/* The largest payload of one packet: the largest path MTU, 4096. */
#define ORCA_WIRE_MAX_PAYLOAD		4096

/* An IPv6 flow label (the address vector's FLOW_LABEL). */
#define ORCA_WIRE_FLOW_LABEL		GENMASK(19, 0)

/*
 * Base Transport Header.  Packed because the extension headers that
 * follow it sit at offsets that are only 4-byte aligned.
 */
struct orca_bth {
	u8 opcode;
	u8 flags;		/* ORCA_BTH_SE, _MIG, _PAD, _TVER */
	__be16 pkey;
	__be32 qpn;		/* ORCA_BTH_FECN, _BECN, _QPN */
	__be32 apsn;		/* ORCA_BTH_ACKREQ, _PSN */
} __packed;

/* orca_bth.flags */
#define ORCA_BTH_SE			BIT(7)		/* solicited event */
#define ORCA_BTH_MIG			BIT(6)		/* MigReq */
#define ORCA_BTH_PAD			GENMASK(5, 4)	/* pad count */
#define ORCA_BTH_TVER			GENMASK(3, 0)	/* transport version */

/* be32_to_cpu(orca_bth.qpn) */
#define ORCA_BTH_FECN			BIT(31)
#define ORCA_BTH_BECN			BIT(30)
#define ORCA_BTH_RSVD8A			GENMASK(31, 24)	/* FECN, BECN, reserved */
#define ORCA_BTH_QPN			GENMASK(23, 0)

/* be32_to_cpu(orca_bth.apsn) */
#define ORCA_BTH_ACKREQ			BIT(31)
#define ORCA_BTH_PSN			GENMASK(23, 0)

/* The only transport version defined. */
#define ORCA_BTH_TVER_IBA		0

/* RDMA Extended Transport Header: WRITE first/only, READ request. */
struct orca_reth {
	__be64 va;
	__be32 rkey;
	__be32 dma_len;
} __packed;

/* ACK Extended Transport Header. */
struct orca_aeth {
	__be32 smsn;			/* ORCA_AETH_SYNDROME, _MSN */
} __packed;

#define ORCA_AETH_SYNDROME		GENMASK(31, 24)
#define ORCA_AETH_MSN			GENMASK(23, 0)

/* Fields of the AETH syndrome (an 8-bit value). */
#define ORCA_AETH_SYN_TYPE		GENMASK(6, 5)
#define ORCA_AETH_SYN_VALUE		GENMASK(4, 0)

enum orca_aeth_type {
	ORCA_AETH_ACK			= 0,	/* value: credit count */
	ORCA_AETH_RNR_NAK		= 1,	/* value: RNR timer code */
	ORCA_AETH_NAK			= 3,	/* value: enum orca_aeth_nak */
};

enum orca_aeth_nak {
	ORCA_AETH_NAK_PSN_SEQ		= 0,
	ORCA_AETH_NAK_INV_REQ		= 1,
	ORCA_AETH_NAK_REM_ACCESS	= 2,
	ORCA_AETH_NAK_REM_OP		= 3,
	ORCA_AETH_NAK_INV_RD_REQ	= 4,
};

/* Credit count meaning "no end-to-end flow control credits advertised". */
#define ORCA_AETH_CREDITS_INVALID	0x1f

/* Atomic Extended Transport Header: CMP_SWAP and FETCH_ADD requests. */
struct orca_atomic_eth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;		/* swap value, or the addend */
	__be64 compare;			/* compare value (CMP_SWAP only) */
} __packed;

/* Atomic ACK Extended Transport Header. */
struct orca_atomic_ack_eth {
	__be64 orig;			/* the original remote value */
} __packed;

/* Datagram Extended Transport Header: UD. */
struct orca_deth {
	__be32 qkey;
	__be32 sqpn;			/* ORCA_DETH_SQPN */
} __packed;

#define ORCA_DETH_SQPN			GENMASK(23, 0)

/* XRC Extended Transport Header: every XRC request, right after the BTH. */
struct orca_xrceth {
	__be32 srqn;			/* ORCA_XRCETH_SRQN; bits 31:24 reserved */
} __packed;

#define ORCA_XRCETH_SRQN		GENMASK(23, 0)

static_assert(sizeof(struct orca_bth) == ORCA_WIRE_BTH_LEN);
static_assert(sizeof(struct orca_reth) == ORCA_WIRE_RETH_LEN);
static_assert(sizeof(struct orca_aeth) == ORCA_WIRE_AETH_LEN);
static_assert(sizeof(struct orca_atomic_eth) == ORCA_WIRE_ATOMIC_ETH_LEN);
static_assert(sizeof(struct orca_atomic_ack_eth) ==
	      ORCA_WIRE_ATOMIC_ACK_ETH_LEN);
static_assert(sizeof(struct orca_deth) == ORCA_WIRE_DETH_LEN);
static_assert(sizeof(struct orca_xrceth) == ORCA_WIRE_XRCETH_LEN);

/*
 * BTH opcodes: the transport in bits [7:5], the operation in [4:0].
 * Only the opcodes listed here are supported; every other one (RD, CNP,
 * the reserved and vendor ranges) is rejected by orca_wire_parse().  An
 * XRC opcode is its RC twin with the XRC transport: ORCA_WIRE_XRC_OP().
 */
#define ORCA_WIRE_OP_TRANSPORT		GENMASK(7, 5)
#define ORCA_WIRE_OP_CODE		GENMASK(4, 0)

enum orca_wire_transport {
	ORCA_WIRE_RC			= 0,
	ORCA_WIRE_UC			= 1,
	ORCA_WIRE_UD			= 3,
	ORCA_WIRE_XRC			= 5,
};

#define ORCA_WIRE_XRC_OP(rc_op)		(FIELD_PREP(ORCA_WIRE_OP_TRANSPORT, \
						    ORCA_WIRE_XRC) | (rc_op))

enum orca_wire_opcode {
	/* Reliable Connection */
	ORCA_OP_RC_SEND_FIRST			= 0x00,
	ORCA_OP_RC_SEND_MIDDLE			= 0x01,
	ORCA_OP_RC_SEND_LAST			= 0x02,
	ORCA_OP_RC_SEND_LAST_IMM		= 0x03,
	ORCA_OP_RC_SEND_ONLY			= 0x04,
	ORCA_OP_RC_SEND_ONLY_IMM		= 0x05,
	ORCA_OP_RC_WRITE_FIRST			= 0x06,
	ORCA_OP_RC_WRITE_MIDDLE			= 0x07,
	ORCA_OP_RC_WRITE_LAST			= 0x08,
	ORCA_OP_RC_WRITE_LAST_IMM		= 0x09,
	ORCA_OP_RC_WRITE_ONLY			= 0x0a,
	ORCA_OP_RC_WRITE_ONLY_IMM		= 0x0b,
	ORCA_OP_RC_READ_REQUEST			= 0x0c,
	ORCA_OP_RC_READ_RESP_FIRST		= 0x0d,
	ORCA_OP_RC_READ_RESP_MIDDLE		= 0x0e,
	ORCA_OP_RC_READ_RESP_LAST		= 0x0f,
	ORCA_OP_RC_READ_RESP_ONLY		= 0x10,
	ORCA_OP_RC_ACK				= 0x11,
	ORCA_OP_RC_ATOMIC_ACK			= 0x12,
	ORCA_OP_RC_CMP_SWAP			= 0x13,
	ORCA_OP_RC_FETCH_ADD			= 0x14,
	ORCA_OP_RC_SEND_LAST_INV		= 0x16,
	ORCA_OP_RC_SEND_ONLY_INV		= 0x17,

	/* Unreliable Connection */
	ORCA_OP_UC_SEND_FIRST			= 0x20,
	ORCA_OP_UC_SEND_MIDDLE			= 0x21,
	ORCA_OP_UC_SEND_LAST			= 0x22,
	ORCA_OP_UC_SEND_LAST_IMM		= 0x23,
	ORCA_OP_UC_SEND_ONLY			= 0x24,
	ORCA_OP_UC_SEND_ONLY_IMM		= 0x25,
	ORCA_OP_UC_WRITE_FIRST			= 0x26,
	ORCA_OP_UC_WRITE_MIDDLE			= 0x27,
	ORCA_OP_UC_WRITE_LAST			= 0x28,
	ORCA_OP_UC_WRITE_LAST_IMM		= 0x29,
	ORCA_OP_UC_WRITE_ONLY			= 0x2a,
	ORCA_OP_UC_WRITE_ONLY_IMM		= 0x2b,

	/* Unreliable Datagram */
	ORCA_OP_UD_SEND_ONLY			= 0x64,
	ORCA_OP_UD_SEND_ONLY_IMM		= 0x65,

	/* Extended Reliable Connection: 0xa0 + the RC code */
	ORCA_OP_XRC_SEND_FIRST			= 0xa0,
	ORCA_OP_XRC_SEND_MIDDLE			= 0xa1,
	ORCA_OP_XRC_SEND_LAST			= 0xa2,
	ORCA_OP_XRC_SEND_LAST_IMM		= 0xa3,
	ORCA_OP_XRC_SEND_ONLY			= 0xa4,
	ORCA_OP_XRC_SEND_ONLY_IMM		= 0xa5,
	ORCA_OP_XRC_WRITE_FIRST			= 0xa6,
	ORCA_OP_XRC_WRITE_MIDDLE		= 0xa7,
	ORCA_OP_XRC_WRITE_LAST			= 0xa8,
	ORCA_OP_XRC_WRITE_LAST_IMM		= 0xa9,
	ORCA_OP_XRC_WRITE_ONLY			= 0xaa,
	ORCA_OP_XRC_WRITE_ONLY_IMM		= 0xab,
	ORCA_OP_XRC_READ_REQUEST		= 0xac,
	ORCA_OP_XRC_READ_RESP_FIRST		= 0xad,
	ORCA_OP_XRC_READ_RESP_MIDDLE		= 0xae,
	ORCA_OP_XRC_READ_RESP_LAST		= 0xaf,
	ORCA_OP_XRC_READ_RESP_ONLY		= 0xb0,
	ORCA_OP_XRC_ACK				= 0xb1,
	ORCA_OP_XRC_ATOMIC_ACK			= 0xb2,
	ORCA_OP_XRC_CMP_SWAP			= 0xb3,
	ORCA_OP_XRC_FETCH_ADD			= 0xb4,
	ORCA_OP_XRC_SEND_LAST_INV		= 0xb6,
	ORCA_OP_XRC_SEND_ONLY_INV		= 0xb7,
};

/* The extension headers an opcode carries: orca_wire_opinfo.hdrs. */
#define ORCA_WIRE_HDR_DETH		BIT(0)
#define ORCA_WIRE_HDR_RETH		BIT(1)
#define ORCA_WIRE_HDR_ATOMIC_ETH	BIT(2)
#define ORCA_WIRE_HDR_AETH		BIT(3)
#define ORCA_WIRE_HDR_ATOMIC_ACK_ETH	BIT(4)
#define ORCA_WIRE_HDR_IMMDT		BIT(5)
#define ORCA_WIRE_HDR_IETH		BIT(6)
#define ORCA_WIRE_HDR_XRCETH		BIT(7)

/* What an opcode is: orca_wire_opinfo.flags. */
#define ORCA_WIRE_F_REQUEST		BIT(0)	/* requester to responder */
#define ORCA_WIRE_F_PAYLOAD		BIT(1)	/* may carry a payload */
#define ORCA_WIRE_F_FIRST		BIT(2)	/* starts a message */
#define ORCA_WIRE_F_LAST		BIT(3)	/* ends a message */
#define ORCA_WIRE_F_SEND		BIT(4)
#define ORCA_WIRE_F_WRITE		BIT(5)
#define ORCA_WIRE_F_READ		BIT(6)	/* READ request or response */
#define ORCA_WIRE_F_ATOMIC		BIT(7)	/* atomic request or ACK */
#define ORCA_WIRE_F_ACK			BIT(8)	/* carries an AETH */

/* A message that is one packet is both FIRST and LAST ("only"). */
#define ORCA_WIRE_F_ONLY		(ORCA_WIRE_F_FIRST | ORCA_WIRE_F_LAST)

struct orca_wire_opinfo {
	const char *name;
	u16 flags;			/* ORCA_WIRE_F_* */
	u8 hdrs;			/* ORCA_WIRE_HDR_* */
	u8 hdr_len;			/* BTH and every extension header */
};

/*
 * A packet's headers in host order.  Only the extension headers that the
 * opcode carries (orca_wire_opinfo()->hdrs) are meaningful; the others
 * are ignored by orca_wire_build() and zeroed by orca_wire_parse().
 */
struct orca_wire_pkt {
	/* BTH */
	u8 opcode;
	bool se;
	bool mig;
	bool fecn;
	bool becn;
	bool ack_req;
	u8 pad;				/* parse only: the BTH pad count */
	u16 pkey;
	u32 dest_qpn;
	u32 psn;

	/* RETH */
	u64 reth_va;
	u32 reth_rkey;
	u32 reth_len;

	/* AETH */
	u8 aeth_syndrome;
	u32 aeth_msn;

	/* AtomicETH */
	u64 atomic_va;
	u32 atomic_rkey;
	u64 atomic_swap_add;
	u64 atomic_compare;

	/* AtomicAckETH */
	u64 atomic_orig;

	/* ImmDt: opaque bytes, kept in wire order */
	__be32 imm;

	/* IETH */
	u32 ieth_rkey;

	/* DETH */
	u32 deth_qkey;
	u32 deth_sqpn;

	/* XRCETH */
	u32 xrc_srqn;

	/* Build: the payload that follows.  Parse: where it is and its size. */
	u32 payload_len;
	u32 payload_off;
};

const struct orca_wire_opinfo *orca_wire_opinfo(u8 opcode);

/* Pad bytes after a payload of @len bytes: to a multiple of 4. */
static inline u32 orca_wire_pad(u32 len)
{
	return -len & 3;
}

int orca_wire_build(const struct orca_wire_pkt *pkt, void *buf, size_t size);
int orca_wire_parse(const void *buf, size_t len, u32 mtu,
		    struct orca_wire_pkt *pkt);

u16 orca_wire_udp_sport(u32 flow_label, u32 lqpn, u32 rqpn);

int orca_soft_icrc(const void *pkt, size_t len, unsigned int ip_version,
		   u32 *icrc);
int orca_soft_icrc_set(void *pkt, size_t len, unsigned int ip_version);
int orca_soft_icrc_verify(const void *pkt, size_t len,
			  unsigned int ip_version);

#endif /* ORCA_SOFT_WIRE_H */
