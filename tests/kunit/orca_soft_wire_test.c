// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for orca_soft's RoCEv2 packet format
 * (drivers/orca_soft/orca_soft_wire.c).
 *
 * The references are independent of the code under test:
 *  - the opcode list below and the byte-exact header encodings are
 *    written by hand from the IBTA layouts that
 *    Documentation/orca-hw-interface.rst ("The RoCEv2 packet format")
 *    specifies;
 *  - the two complete packets and their ICRCs were produced by
 *    tests/kunit/tools/orca_icrc_vectors.py, which assembles the packets
 *    with Python's struct and computes the ICRC with zlib.crc32 over the
 *    masked pseudo-packet (and checks the IPv4 one against scapy's RoCE
 *    layer when scapy is installed).  Run it to regenerate them.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>

/* The packet layer itself: pure code, compiled into this module. */
#include "../../drivers/orca_soft/orca_soft_wire.c"

/* ---- references --------------------------------------------------------- */

/* Header sizes, from the IBTA layouts (not from orca_soft_wire.h). */
enum {
	BTH = 12,
	DETH = 8,
	RETH = 16,
	ATOM = 28,
	AETH = 4,
	AACK = 8,
	IMM = 4,
	IETH = 4,
	XRCETH = 4,
	ICRC = 4,
};

struct orca_wire_ref {
	u8 opcode;
	u8 hdr_len;
	bool payload;
	bool full;		/* a first or middle packet: exactly the MTU */
};

/* Every opcode Orca supports, and the length of its headers. */
static const struct orca_wire_ref orca_wire_refs[] = {
	{ 0x00, BTH, true, true },			/* RC SEND first */
	{ 0x01, BTH, true, true },			/* RC SEND middle */
	{ 0x02, BTH, true, false },			/* RC SEND last */
	{ 0x03, BTH + IMM, true, false },		/* ... last, imm */
	{ 0x04, BTH, true, false },			/* RC SEND only */
	{ 0x05, BTH + IMM, true, false },		/* ... only, imm */
	{ 0x06, BTH + RETH, true, true },		/* RC WRITE first */
	{ 0x07, BTH, true, true },			/* RC WRITE middle */
	{ 0x08, BTH, true, false },			/* RC WRITE last */
	{ 0x09, BTH + IMM, true, false },		/* ... last, imm */
	{ 0x0a, BTH + RETH, true, false },		/* RC WRITE only */
	{ 0x0b, BTH + RETH + IMM, true, false },	/* ... only, imm */
	{ 0x0c, BTH + RETH, false, false },		/* RC READ request */
	{ 0x0d, BTH + AETH, true, true },		/* READ resp first */
	{ 0x0e, BTH, true, true },			/* READ resp middle */
	{ 0x0f, BTH + AETH, true, false },		/* READ resp last */
	{ 0x10, BTH + AETH, true, false },		/* READ resp only */
	{ 0x11, BTH + AETH, false, false },		/* ACK */
	{ 0x12, BTH + AETH + AACK, false, false },	/* ATOMIC ACK */
	{ 0x13, BTH + ATOM, false, false },		/* CMP_SWAP */
	{ 0x14, BTH + ATOM, false, false },		/* FETCH_ADD */
	{ 0x16, BTH + IETH, true, false },		/* SEND last, inv */
	{ 0x17, BTH + IETH, true, false },		/* SEND only, inv */
	{ 0x20, BTH, true, true },			/* UC SEND first */
	{ 0x21, BTH, true, true },
	{ 0x22, BTH, true, false },
	{ 0x23, BTH + IMM, true, false },
	{ 0x24, BTH, true, false },
	{ 0x25, BTH + IMM, true, false },
	{ 0x26, BTH + RETH, true, true },		/* UC WRITE first */
	{ 0x27, BTH, true, true },
	{ 0x28, BTH, true, false },
	{ 0x29, BTH + IMM, true, false },
	{ 0x2a, BTH + RETH, true, false },
	{ 0x2b, BTH + RETH + IMM, true, false },
	{ 0x64, BTH + DETH, true, false },		/* UD SEND only */
	{ 0x65, BTH + DETH + IMM, true, false },	/* ... only, imm */
	/* XRC: an XRCETH in every request, responses as RC's. */
	{ 0xa0, BTH + XRCETH, true, true },		/* XRC SEND first */
	{ 0xa1, BTH + XRCETH, true, true },
	{ 0xa2, BTH + XRCETH, true, false },
	{ 0xa3, BTH + XRCETH + IMM, true, false },
	{ 0xa4, BTH + XRCETH, true, false },
	{ 0xa5, BTH + XRCETH + IMM, true, false },
	{ 0xa6, BTH + XRCETH + RETH, true, true },	/* XRC WRITE first */
	{ 0xa7, BTH + XRCETH, true, true },
	{ 0xa8, BTH + XRCETH, true, false },
	{ 0xa9, BTH + XRCETH + IMM, true, false },
	{ 0xaa, BTH + XRCETH + RETH, true, false },
	{ 0xab, BTH + XRCETH + RETH + IMM, true, false },
	{ 0xac, BTH + XRCETH + RETH, false, false },	/* XRC READ request */
	{ 0xad, BTH + AETH, true, true },		/* READ resp first */
	{ 0xae, BTH, true, true },
	{ 0xaf, BTH + AETH, true, false },
	{ 0xb0, BTH + AETH, true, false },
	{ 0xb1, BTH + AETH, false, false },		/* XRC ACK */
	{ 0xb2, BTH + AETH + AACK, false, false },	/* XRC ATOMIC ACK */
	{ 0xb3, BTH + XRCETH + ATOM, false, false },	/* XRC CMP_SWAP */
	{ 0xb4, BTH + XRCETH + ATOM, false, false },
	{ 0xb6, BTH + XRCETH + IETH, true, false },	/* SEND last, inv */
	{ 0xb7, BTH + XRCETH + IETH, true, false },
};

static const struct orca_wire_ref *orca_wire_ref(u8 opcode)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(orca_wire_refs); i++)
		if (orca_wire_refs[i].opcode == opcode)
			return &orca_wire_refs[i];
	return NULL;
}

/*
 * tests/kunit/tools/orca_icrc_vectors.py, packet 1: IPv4 (TOS 0x02, TTL
 * 64, DF), UDP 0xc123 -> 4791 (checksum 0), RC SEND ONLY with SE and
 * AckReq, BECN set, P_Key 0xffff, dest QP 0x000012, PSN 0x00abcd,
 * payload "Hello, Orca!\n" (13 bytes, pad 3).  ICRC 0xa9fd0653.
 */
static const u8 orca_wire_pkt_ipv4_rc_send_only[] = {
	0x45, 0x02, 0x00, 0x3c, 0x12, 0x34, 0x40, 0x00,
	0x40, 0x11, 0x93, 0x27, 0xc0, 0xa8, 0x0a, 0x01,
	0xc0, 0xa8, 0x0a, 0x02, 0xc1, 0x23, 0x12, 0xb7,
	0x00, 0x28, 0x00, 0x00, 0x04, 0xb0, 0xff, 0xff,
	0x40, 0x00, 0x00, 0x12, 0x80, 0x00, 0xab, 0xcd,
	0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x2c, 0x20, 0x4f,
	0x72, 0x63, 0x61, 0x21, 0x0a, 0x00, 0x00, 0x00,
	0x53, 0x06, 0xfd, 0xa9,
};

#define ORCA_WIRE_ICRC_IPV4	0xa9fd0653U

/*
 * Packet 2: IPv6 (traffic class 0x60, flow label 0x12345, hop limit 64),
 * fe80::211:22ff:fe33:4455 -> fe80::211:22ff:fe33:6677, UDP 0xd00d ->
 * 4791, UD SEND ONLY with immediate, MigReq set, P_Key 0x8001, dest QP
 * 0x000abc, PSN 0x123456, DETH Q_Key 0x11223344 source QP 0x000def,
 * ImmDt 0xdeadbeef, payload a0..a9 (10 bytes, pad 2).  ICRC 0x9ce2e326.
 */
static const u8 orca_wire_pkt_ipv6_ud_send_only_imm[] = {
	0x66, 0x01, 0x23, 0x45, 0x00, 0x30, 0x11, 0x40,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55,
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x66, 0x77,
	0xd0, 0x0d, 0x12, 0xb7, 0x00, 0x30, 0x00, 0x00,
	0x65, 0x60, 0x80, 0x01, 0x00, 0x00, 0x0a, 0xbc,
	0x00, 0x12, 0x34, 0x56, 0x11, 0x22, 0x33, 0x44,
	0x00, 0x00, 0x0d, 0xef, 0xde, 0xad, 0xbe, 0xef,
	0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
	0xa8, 0xa9, 0x00, 0x00, 0x26, 0xe3, 0xe2, 0x9c,
};

#define ORCA_WIRE_ICRC_IPV6	0x9ce2e326U

/* Where the BTH starts: after IPv4 + UDP, after IPv6 + UDP. */
#define ORCA_WIRE_BTH_OFF_IPV4	28
#define ORCA_WIRE_BTH_OFF_IPV6	48

static void orca_wire_expect_bytes(struct kunit *test, const u8 *got,
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

/* A packet with every BTH field set to something recognisable. */
static void orca_wire_test_pkt(struct orca_wire_pkt *p, u8 opcode)
{
	memset(p, 0, sizeof(*p));
	p->opcode = opcode;
	p->pkey = 0xffff;
	p->dest_qpn = 7;
}

/* ---- the opcode table ----------------------------------------------------- */

static void orca_wire_test_opcode_table(struct kunit *test)
{
	u32 n = 0, op;

	for (op = 0; op < 256; op++) {
		const struct orca_wire_opinfo *info = orca_wire_opinfo(op);
		const struct orca_wire_ref *ref = orca_wire_ref(op);
		u32 sum = BTH;

		if (!ref) {
			KUNIT_EXPECT_PTR_EQ_MSG(test, info, NULL,
						"opcode 0x%02x", op);
			continue;
		}
		n++;
		KUNIT_ASSERT_NOT_NULL_MSG(test, info, "opcode 0x%02x", op);
		KUNIT_EXPECT_EQ_MSG(test, info->hdr_len, ref->hdr_len,
				    "opcode 0x%02x (%s)", op, info->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(info->flags & ORCA_WIRE_F_PAYLOAD),
				    ref->payload, "opcode 0x%02x", op);
		KUNIT_EXPECT_EQ_MSG(test, !(info->flags & ORCA_WIRE_F_LAST) &&
				    (info->flags & ORCA_WIRE_F_PAYLOAD),
				    ref->full, "opcode 0x%02x", op);

		/* The header mask and the length say the same thing. */
		if (info->hdrs & ORCA_WIRE_HDR_DETH)
			sum += DETH;
		if (info->hdrs & ORCA_WIRE_HDR_RETH)
			sum += RETH;
		if (info->hdrs & ORCA_WIRE_HDR_ATOMIC_ETH)
			sum += ATOM;
		if (info->hdrs & ORCA_WIRE_HDR_AETH)
			sum += AETH;
		if (info->hdrs & ORCA_WIRE_HDR_ATOMIC_ACK_ETH)
			sum += AACK;
		if (info->hdrs & ORCA_WIRE_HDR_IMMDT)
			sum += IMM;
		if (info->hdrs & ORCA_WIRE_HDR_IETH)
			sum += IETH;
		if (info->hdrs & ORCA_WIRE_HDR_XRCETH)
			sum += XRCETH;
		KUNIT_EXPECT_EQ_MSG(test, sum, (u32)info->hdr_len,
				    "opcode 0x%02x", op);
		KUNIT_EXPECT_LE(test, (u32)info->hdr_len,
				(u32)ORCA_WIRE_MAX_HDR_LEN);
		if (info->flags & ORCA_WIRE_F_PAYLOAD)
			KUNIT_EXPECT_LE(test, (u32)info->hdr_len,
					(u32)ORCA_WIRE_MAX_PAYLOAD_HDR_LEN);

		/* The name starts with the transport of bits [7:5]. */
		KUNIT_EXPECT_EQ_MSG(test, strncmp(info->name, op < 0x20 ?
						  "RC_" : op < 0x40 ? "UC_" :
						  op < 0xa0 ? "UD_" : "XRC_",
						  op < 0xa0 ? 3 : 4), 0,
				    "opcode 0x%02x is %s", op, info->name);
	}
	KUNIT_EXPECT_EQ(test, n, (u32)ARRAY_SIZE(orca_wire_refs));
}

/* ---- byte-exact encodings ------------------------------------------------- */

static void orca_wire_test_encode_bth(struct kunit *test)
{
	static const u8 want[] = {
		0x04,			/* RC SEND ONLY */
		0xf0,			/* SE, MigReq, pad 3, TVer 0 */
		0x12, 0x34,		/* P_Key */
		0x80, 0xab, 0xcd, 0xef,	/* FECN, dest QP 0xabcdef */
		0x80, 0x65, 0x43, 0x21,	/* AckReq, PSN 0x654321 */
	};
	struct orca_wire_pkt p;
	u8 buf[64];

	memset(buf, 0xee, sizeof(buf));
	orca_wire_test_pkt(&p, ORCA_OP_RC_SEND_ONLY);
	p.se = true;
	p.mig = true;
	p.fecn = true;
	p.pkey = 0x1234;
	p.dest_qpn = 0xabcdef;
	p.ack_req = true;
	p.psn = 0x654321;
	p.payload_len = 5;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 12);
	orca_wire_expect_bytes(test, buf, want, sizeof(want), "SEND ONLY");
	/* Nothing past the headers is written. */
	KUNIT_EXPECT_EQ(test, buf[12], 0xee);

	/* BECN alone, no flags, pad 0. */
	orca_wire_test_pkt(&p, ORCA_OP_UC_SEND_FIRST);
	p.becn = true;
	p.payload_len = 256;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 12);
	KUNIT_EXPECT_EQ(test, buf[0], 0x20);
	KUNIT_EXPECT_EQ(test, buf[1], 0x00);
	KUNIT_EXPECT_EQ(test, buf[4], 0x40);
	KUNIT_EXPECT_EQ(test, buf[7], 0x07);
}

static void orca_wire_test_encode_reth_imm(struct kunit *test)
{
	static const u8 want[] = {
		0x0b, 0x00, 0xff, 0xff,	/* RC WRITE ONLY IMM, pad 0 */
		0x40, 0x00, 0x01, 0x02,	/* BECN, dest QP 0x000102 */
		0x00, 0xff, 0xff, 0xfe,	/* PSN 0xfffffe */
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, /* VA */
		0xca, 0xfe, 0xf0, 0x0d,	/* R_Key */
		0x00, 0x00, 0x00, 0x08,	/* DMA length */
		0x11, 0x22, 0x33, 0x44,	/* ImmDt */
	};
	struct orca_wire_pkt p;
	u8 buf[64];

	orca_wire_test_pkt(&p, ORCA_OP_RC_WRITE_ONLY_IMM);
	p.becn = true;
	p.dest_qpn = 0x102;
	p.psn = 0xfffffe;
	p.reth_va = 0x0123456789abcdefULL;
	p.reth_rkey = 0xcafef00d;
	p.reth_len = 8;
	p.imm = cpu_to_be32(0x11223344);
	p.payload_len = 8;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 32);
	orca_wire_expect_bytes(test, buf, want, sizeof(want), "WRITE ONLY IMM");

	/* READ request: RETH only, no payload. */
	orca_wire_test_pkt(&p, ORCA_OP_RC_READ_REQUEST);
	p.ack_req = true;
	p.psn = 0x22;
	p.reth_va = 0xffffffff00000000ULL;
	p.reth_rkey = 0x12;
	p.reth_len = 0x10000;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 28);
	{
		static const u8 rd[] = {
			0x0c, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x07,
			0x80, 0x00, 0x00, 0x22,
			0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00, 0x00, 0x12, 0x00, 0x01, 0x00, 0x00,
		};

		orca_wire_expect_bytes(test, buf, rd, sizeof(rd), "READ req");
	}
}

static void orca_wire_test_encode_aeth(struct kunit *test)
{
	static const u8 ack[] = {
		0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x07,
		0x00, 0x00, 0x00, 0x10,
		0x61, 0x12, 0x34, 0x56,	/* NAK invalid request, MSN */
	};
	static const u8 aack[] = {
		0x12, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x07,
		0x00, 0x00, 0x00, 0x11,
		0x1f, 0x00, 0x00, 0x01,	/* ACK, no credits, MSN 1 */
		0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
	};
	struct orca_wire_pkt p;
	u8 buf[64];

	/* The syndrome fields: NAK (3) in [6:5], invalid request (1). */
	KUNIT_EXPECT_EQ(test, FIELD_PREP(ORCA_AETH_SYN_TYPE, ORCA_AETH_NAK) |
			FIELD_PREP(ORCA_AETH_SYN_VALUE, ORCA_AETH_NAK_INV_REQ),
			0x61UL);
	KUNIT_EXPECT_EQ(test, FIELD_PREP(ORCA_AETH_SYN_TYPE,
					 ORCA_AETH_RNR_NAK) |
			FIELD_PREP(ORCA_AETH_SYN_VALUE, 14), 0x2eUL);

	orca_wire_test_pkt(&p, ORCA_OP_RC_ACK);
	p.psn = 0x10;
	p.aeth_syndrome = 0x61;
	p.aeth_msn = 0x123456;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 16);
	orca_wire_expect_bytes(test, buf, ack, sizeof(ack), "ACK");

	orca_wire_test_pkt(&p, ORCA_OP_RC_ATOMIC_ACK);
	p.psn = 0x11;
	p.aeth_syndrome = ORCA_AETH_CREDITS_INVALID;
	p.aeth_msn = 1;
	p.atomic_orig = 0xfedcba9876543210ULL;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 24);
	orca_wire_expect_bytes(test, buf, aack, sizeof(aack), "ATOMIC ACK");
}

static void orca_wire_test_encode_atomic_ieth(struct kunit *test)
{
	static const u8 cas[] = {
		0x13, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x07,
		0x80, 0x00, 0x00, 0x20,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, /* VA */
		0x00, 0x00, 0x01, 0x00,				/* R_Key */
		0xaa, 0xaa, 0xaa, 0xaa, 0xbb, 0xbb, 0xbb, 0xbb, /* swap */
		0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22, /* compare */
	};
	static const u8 inv[] = {
		0x17, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x07,
		0x00, 0x00, 0x00, 0x21,
		0x00, 0xbe, 0xef, 0x01,	/* the R_Key to invalidate */
	};
	struct orca_wire_pkt p;
	u8 buf[64];

	orca_wire_test_pkt(&p, ORCA_OP_RC_CMP_SWAP);
	p.ack_req = true;
	p.psn = 0x20;
	p.atomic_va = 0x1000;
	p.atomic_rkey = 0x100;
	p.atomic_swap_add = 0xaaaaaaaabbbbbbbbULL;
	p.atomic_compare = 0x1111111122222222ULL;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 40);
	orca_wire_expect_bytes(test, buf, cas, sizeof(cas), "CMP_SWAP");

	orca_wire_test_pkt(&p, ORCA_OP_RC_SEND_ONLY_INV);
	p.psn = 0x21;
	p.ieth_rkey = 0x00beef01;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 16);
	orca_wire_expect_bytes(test, buf, inv, sizeof(inv), "SEND ONLY INV");
}

/* XRC: the XRCETH sits between the BTH and the RETH or AtomicETH. */
static void orca_wire_test_encode_xrc(struct kunit *test)
{
	static const u8 wr[] = {
		0xaa, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x07,
		0x80, 0x00, 0x00, 0x30,
		0x00, 0x12, 0x34, 0x56,				/* XRC SRQ */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, /* VA */
		0x00, 0x00, 0x02, 0x00,				/* R_Key */
		0x00, 0x00, 0x00, 0x00,				/* length */
	};
	static const u8 fa[] = {
		0xb4, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x07,
		0x80, 0x00, 0x00, 0x31,
		0x00, 0x00, 0x00, 0x09,				/* XRC SRQ */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, /* VA */
		0x00, 0x00, 0x01, 0x00,				/* R_Key */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, /* add */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct orca_wire_pkt p, got;
	u8 buf[64];

	orca_wire_test_pkt(&p, ORCA_OP_XRC_WRITE_ONLY);
	p.ack_req = true;
	p.psn = 0x30;
	p.xrc_srqn = 0x123456;
	p.reth_va = 0x2000;
	p.reth_rkey = 0x200;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 32);
	orca_wire_expect_bytes(test, buf, wr, sizeof(wr), "XRC WRITE ONLY");

	orca_wire_test_pkt(&p, ORCA_OP_XRC_FETCH_ADD);
	p.ack_req = true;
	p.psn = 0x31;
	p.xrc_srqn = 9;
	p.atomic_va = 0x1000;
	p.atomic_rkey = 0x100;
	p.atomic_swap_add = 5;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 44);
	orca_wire_expect_bytes(test, buf, fa, sizeof(fa), "XRC FETCH_ADD");

	/* The reserved byte of a received XRCETH is ignored. */
	buf[12] = 0xff;
	put_unaligned_le32(0, buf + 44);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, 48, 0, &got), 0);
	KUNIT_EXPECT_EQ(test, got.xrc_srqn, 9U);

	/* An SRQ number beyond 24 bits does not fit the XRCETH. */
	p.xrc_srqn = BIT(24);
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), -EINVAL);
}

/* The reference packets' transport headers, built from their fields. */
static void orca_wire_test_encode_reference(struct kunit *test)
{
	struct orca_wire_pkt p;
	u8 buf[64];

	orca_wire_test_pkt(&p, ORCA_OP_RC_SEND_ONLY);
	p.se = true;
	p.becn = true;
	p.dest_qpn = 0x12;
	p.ack_req = true;
	p.psn = 0xabcd;
	p.payload_len = 13;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 12);
	orca_wire_expect_bytes(test, buf, orca_wire_pkt_ipv4_rc_send_only +
			       ORCA_WIRE_BTH_OFF_IPV4, 12, "IPv4 BTH");

	orca_wire_test_pkt(&p, ORCA_OP_UD_SEND_ONLY_IMM);
	p.mig = true;
	p.pkey = 0x8001;
	p.dest_qpn = 0xabc;
	p.psn = 0x123456;
	p.deth_qkey = 0x11223344;
	p.deth_sqpn = 0xdef;
	p.imm = cpu_to_be32(0xdeadbeef);
	p.payload_len = 10;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 24);
	orca_wire_expect_bytes(test, buf, orca_wire_pkt_ipv6_ud_send_only_imm +
			       ORCA_WIRE_BTH_OFF_IPV6, 24, "IPv6 BTH+DETH+ImmDt");
}

/* ---- parse(build(x)) == x ------------------------------------------------- */

static void orca_wire_fill(struct orca_wire_pkt *p, u8 op, u32 variant,
			   const struct orca_wire_opinfo *info)
{
	bool v = variant & 1;

	memset(p, 0, sizeof(*p));
	p->opcode = op;
	p->se = v;
	p->mig = !v;
	p->fecn = v;
	p->becn = !v;
	p->ack_req = v;
	p->pkey = v ? 0xa5c3 : 0x7fff;
	p->dest_qpn = v ? 0xffffff : 0x000001;
	p->psn = v ? 0x800001 : 0xffffff;
	if (info->hdrs & ORCA_WIRE_HDR_DETH) {
		p->deth_qkey = v ? 0x80000000 : 0x0badcafe;
		p->deth_sqpn = v ? 0xfedcba : 1;
	}
	if (info->hdrs & ORCA_WIRE_HDR_RETH) {
		p->reth_va = v ? 0x8000000000000001ULL : 0x00007f0012345678ULL;
		p->reth_rkey = v ? 0xffffffff : 0x01020304;
		p->reth_len = v ? 0x80000000 : 4096;
	}
	if (info->hdrs & ORCA_WIRE_HDR_ATOMIC_ETH) {
		p->atomic_va = v ? 0xfffffffffffffff8ULL : 0x10;
		p->atomic_rkey = v ? 0x55aa55aa : 0xaa55aa55;
		p->atomic_swap_add = v ? 0x0102030405060708ULL : ~0ULL;
		p->atomic_compare = v ? 0x1122334455667788ULL : 0;
	}
	if (info->hdrs & ORCA_WIRE_HDR_AETH) {
		p->aeth_syndrome = v ? 0x7f : 0x20;
		p->aeth_msn = v ? 0xffffff : 0x000100;
	}
	if (info->hdrs & ORCA_WIRE_HDR_ATOMIC_ACK_ETH)
		p->atomic_orig = v ? 0xdeadbeefcafef00dULL : 1;
	if (info->hdrs & ORCA_WIRE_HDR_IMMDT)
		p->imm = cpu_to_be32(v ? 0x01020304 : 0xfffffffe);
	if (info->hdrs & ORCA_WIRE_HDR_IETH)
		p->ieth_rkey = v ? 0x00000001 : 0x87654321;
	if (info->hdrs & ORCA_WIRE_HDR_XRCETH)
		p->xrc_srqn = v ? 0xffffff : 0x000123;
	if (!(info->flags & ORCA_WIRE_F_PAYLOAD))
		p->payload_len = 0;
	else if (!(info->flags & ORCA_WIRE_F_LAST))
		p->payload_len = 256;		/* full: the MTU */
	else
		p->payload_len = v ? 1 : 255;	/* pad 3, pad 1 */
}

static void orca_wire_expect_field(struct kunit *test, const char *op,
				   const char *field, u64 got, u64 want)
{
	KUNIT_EXPECT_EQ_MSG(test, got, want, "%s: %s", op, field);
}

static void orca_wire_test_roundtrip(struct kunit *test)
{
	static u8 buf[ORCA_WIRE_MAX_HDR_LEN + 256 + 4];
	struct orca_wire_pkt want, got;
	u32 op, variant, len;
	int hl;

	for (op = 0; op < 256; op++) {
		const struct orca_wire_opinfo *info = orca_wire_opinfo(op);

		if (!info)
			continue;
		for (variant = 0; variant < 2; variant++) {
			orca_wire_fill(&want, op, variant, info);
			memset(buf, 0x5a, sizeof(buf));
			hl = orca_wire_build(&want, buf, sizeof(buf));
			KUNIT_ASSERT_EQ_MSG(test, hl, (int)info->hdr_len,
					    "%s", info->name);
			len = hl + want.payload_len +
			      orca_wire_pad(want.payload_len) + ICRC;
			KUNIT_ASSERT_EQ(test, orca_wire_parse(buf, len, 256,
							      &got), 0);
			orca_wire_expect_field(test, info->name, "opcode",
					       got.opcode, want.opcode);
			orca_wire_expect_field(test, info->name, "se",
					       got.se, want.se);
			orca_wire_expect_field(test, info->name, "mig",
					       got.mig, want.mig);
			orca_wire_expect_field(test, info->name, "fecn",
					       got.fecn, want.fecn);
			orca_wire_expect_field(test, info->name, "becn",
					       got.becn, want.becn);
			orca_wire_expect_field(test, info->name, "ack_req",
					       got.ack_req, want.ack_req);
			orca_wire_expect_field(test, info->name, "pkey",
					       got.pkey, want.pkey);
			orca_wire_expect_field(test, info->name, "dest_qpn",
					       got.dest_qpn, want.dest_qpn);
			orca_wire_expect_field(test, info->name, "psn",
					       got.psn, want.psn);
			orca_wire_expect_field(test, info->name, "reth_va",
					       got.reth_va, want.reth_va);
			orca_wire_expect_field(test, info->name, "reth_rkey",
					       got.reth_rkey, want.reth_rkey);
			orca_wire_expect_field(test, info->name, "reth_len",
					       got.reth_len, want.reth_len);
			orca_wire_expect_field(test, info->name, "aeth_syndrome",
					       got.aeth_syndrome, want.aeth_syndrome);
			orca_wire_expect_field(test, info->name, "aeth_msn",
					       got.aeth_msn, want.aeth_msn);
			orca_wire_expect_field(test, info->name, "atomic_va",
					       got.atomic_va, want.atomic_va);
			orca_wire_expect_field(test, info->name, "atomic_rkey",
					       got.atomic_rkey, want.atomic_rkey);
			orca_wire_expect_field(test, info->name, "atomic_swap_add",
					       got.atomic_swap_add, want.atomic_swap_add);
			orca_wire_expect_field(test, info->name, "atomic_compare",
					       got.atomic_compare, want.atomic_compare);
			orca_wire_expect_field(test, info->name, "atomic_orig",
					       got.atomic_orig, want.atomic_orig);
			KUNIT_EXPECT_EQ_MSG(test, be32_to_cpu(got.imm),
					    be32_to_cpu(want.imm), "%s: imm",
					    info->name);
			orca_wire_expect_field(test, info->name, "ieth_rkey",
					       got.ieth_rkey, want.ieth_rkey);
			orca_wire_expect_field(test, info->name, "deth_qkey",
					       got.deth_qkey, want.deth_qkey);
			orca_wire_expect_field(test, info->name, "deth_sqpn",
					       got.deth_sqpn, want.deth_sqpn);
			orca_wire_expect_field(test, info->name, "xrc_srqn",
					       got.xrc_srqn, want.xrc_srqn);
			orca_wire_expect_field(test, info->name, "payload_len",
					       got.payload_len, want.payload_len);
			KUNIT_EXPECT_EQ(test, got.pad,
					(u8)((4 - want.payload_len % 4) % 4));
			KUNIT_EXPECT_EQ(test, got.payload_off, (u32)hl);
		}
	}
}

/* ---- the reference packets, parsed ---------------------------------------- */

static void orca_wire_test_parse_reference(struct kunit *test)
{
	const u8 *v4 = orca_wire_pkt_ipv4_rc_send_only + ORCA_WIRE_BTH_OFF_IPV4;
	const u8 *v6 = orca_wire_pkt_ipv6_ud_send_only_imm +
		       ORCA_WIRE_BTH_OFF_IPV6;
	size_t l4 = sizeof(orca_wire_pkt_ipv4_rc_send_only) -
		    ORCA_WIRE_BTH_OFF_IPV4;
	size_t l6 = sizeof(orca_wire_pkt_ipv6_ud_send_only_imm) -
		    ORCA_WIRE_BTH_OFF_IPV6;
	struct orca_wire_pkt p;

	KUNIT_ASSERT_EQ(test, orca_wire_parse(v4, l4, 1024, &p), 0);
	KUNIT_EXPECT_EQ(test, p.opcode, 0x04);
	KUNIT_EXPECT_TRUE(test, p.se);
	KUNIT_EXPECT_FALSE(test, p.mig);
	KUNIT_EXPECT_FALSE(test, p.fecn);
	KUNIT_EXPECT_TRUE(test, p.becn);
	KUNIT_EXPECT_TRUE(test, p.ack_req);
	KUNIT_EXPECT_EQ(test, p.pad, 3);
	KUNIT_EXPECT_EQ(test, p.pkey, 0xffff);
	KUNIT_EXPECT_EQ(test, p.dest_qpn, 0x12U);
	KUNIT_EXPECT_EQ(test, p.psn, 0xabcdU);
	KUNIT_EXPECT_EQ(test, p.payload_off, 12U);
	KUNIT_ASSERT_EQ(test, p.payload_len, 13U);
	KUNIT_EXPECT_EQ(test, memcmp(v4 + p.payload_off, "Hello, Orca!\n", 13),
			0);

	KUNIT_ASSERT_EQ(test, orca_wire_parse(v6, l6, 256, &p), 0);
	KUNIT_EXPECT_EQ(test, p.opcode, 0x65);
	KUNIT_EXPECT_FALSE(test, p.se);
	KUNIT_EXPECT_TRUE(test, p.mig);
	KUNIT_EXPECT_FALSE(test, p.becn);
	KUNIT_EXPECT_FALSE(test, p.ack_req);
	KUNIT_EXPECT_EQ(test, p.pad, 2);
	KUNIT_EXPECT_EQ(test, p.pkey, 0x8001);
	KUNIT_EXPECT_EQ(test, p.dest_qpn, 0xabcU);
	KUNIT_EXPECT_EQ(test, p.psn, 0x123456U);
	KUNIT_EXPECT_EQ(test, p.deth_qkey, 0x11223344U);
	KUNIT_EXPECT_EQ(test, p.deth_sqpn, 0xdefU);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p.imm), 0xdeadbeefU);
	KUNIT_EXPECT_EQ(test, p.payload_off, 24U);
	KUNIT_ASSERT_EQ(test, p.payload_len, 10U);
	KUNIT_EXPECT_EQ(test, v6[p.payload_off], 0xa0);
	KUNIT_EXPECT_EQ(test, v6[p.payload_off + 9], 0xa9);
}

/* ---- malformed input ------------------------------------------------------ */

/* A valid packet of @op with @payload bytes, or the build's error. */
static int orca_wire_make(u8 *buf, size_t size, u8 op, u32 payload)
{
	struct orca_wire_pkt p;
	int hl;

	orca_wire_test_pkt(&p, op);
	p.payload_len = payload;
	hl = orca_wire_build(&p, buf, size);
	if (hl < 0)
		return hl;
	memset(buf + hl, 0x33, payload);
	memset(buf + hl + payload, 0, orca_wire_pad(payload) + ICRC);
	return hl + payload + orca_wire_pad(payload) + ICRC;
}

static void orca_wire_test_parse_short(struct kunit *test)
{
	static u8 buf[ORCA_WIRE_MAX_HDR_LEN + 256 + 4];
	struct orca_wire_pkt p;
	u32 i, len, full;

	for (i = 0; i < ARRAY_SIZE(orca_wire_refs); i++) {
		const struct orca_wire_ref *ref = &orca_wire_refs[i];
		u32 payload = ref->full ? 256 : 0;
		int n = orca_wire_make(buf, sizeof(buf), ref->opcode, payload);

		KUNIT_ASSERT_GT(test, n, 0);
		full = n;
		KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, full, 256, &p), 0);
		/* Every truncation is refused, and leaves @p zeroed. */
		for (len = 0; len < full; len++) {
			p.opcode = 0xff;
			KUNIT_EXPECT_EQ_MSG(test,
					    orca_wire_parse(buf, len, 256, &p),
					    -EBADMSG, "opcode 0x%02x, %u of %u",
					    ref->opcode, len, full);
			KUNIT_EXPECT_EQ(test, p.opcode, 0);
		}
	}
}

static void orca_wire_test_parse_bad_header(struct kunit *test)
{
	static const u8 unsupported[] = {
		0x15, 0x18, 0x19, 0x1f, 0x2c, 0x2d, 0x36, 0x37, 0x40, 0x44,
		0x60, 0x63, 0x66, 0x80, 0x81, 0xb5, 0xb8, 0xc0, 0xff,
	};
	struct orca_wire_pkt p;
	u8 buf[64];
	u32 i, tver;
	int n;

	n = orca_wire_make(buf, sizeof(buf), ORCA_OP_RC_SEND_ONLY, 8);
	KUNIT_ASSERT_EQ(test, n, 24);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 0, &p), 0);
	for (i = 0; i < ARRAY_SIZE(unsupported); i++) {
		buf[0] = unsupported[i];
		KUNIT_EXPECT_EQ_MSG(test, orca_wire_parse(buf, n, 0, &p),
				    -EPROTONOSUPPORT, "opcode 0x%02x",
				    unsupported[i]);
	}
	buf[0] = ORCA_OP_RC_SEND_ONLY;
	for (tver = 1; tver < 16; tver++) {
		buf[1] = tver;
		KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 0, &p),
				-EPROTONOSUPPORT);
	}
	buf[1] = 0;
	/* Reserved bits are ignored on receive. */
	buf[4] |= 0x3f;
	buf[8] |= 0x7f;
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 0, &p), 0);
	KUNIT_EXPECT_EQ(test, p.dest_qpn, 7U);
	KUNIT_EXPECT_EQ(test, p.psn, 0U);
	KUNIT_EXPECT_FALSE(test, p.fecn);
	KUNIT_EXPECT_FALSE(test, p.becn);
	KUNIT_EXPECT_FALSE(test, p.ack_req);
}

static void orca_wire_test_parse_lengths(struct kunit *test)
{
	static u8 buf[ORCA_WIRE_MAX_HDR_LEN + ORCA_WIRE_MAX_PAYLOAD + 8];
	struct orca_wire_pkt p;
	int n;

	/* Not a multiple of 4. */
	n = orca_wire_make(buf, sizeof(buf), ORCA_OP_RC_SEND_ONLY, 8);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n + 1, 0, &p), -EBADMSG);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n + 3, 0, &p), -EBADMSG);
	/* A pad count larger than what follows the headers. */
	n = orca_wire_make(buf, sizeof(buf), ORCA_OP_RC_SEND_ONLY, 0);
	KUNIT_ASSERT_EQ(test, n, 16);
	buf[1] = 0x10;
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 0, &p), -EBADMSG);
	/* ... and taking it from a 4-byte payload leaves 3 bytes. */
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n + 4, 0, &p), 0);
	KUNIT_EXPECT_EQ(test, p.payload_len, 3U);
	KUNIT_EXPECT_EQ(test, p.pad, 1);

	/* Opcodes without a payload carry neither payload nor pad. */
	n = orca_wire_make(buf, sizeof(buf), ORCA_OP_RC_ACK, 0);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 0, &p), 0);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n + 4, 0, &p), -EBADMSG);
	buf[1] = 0x30;
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n + 4, 0, &p), -EBADMSG);
	n = orca_wire_make(buf, sizeof(buf), ORCA_OP_RC_READ_REQUEST, 0);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n + 4, 0, &p), -EBADMSG);
	n = orca_wire_make(buf, sizeof(buf), ORCA_OP_RC_FETCH_ADD, 0);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n + 8, 0, &p), -EBADMSG);

	/* First and middle packets are full: exactly the MTU, no pad. */
	n = orca_wire_make(buf, sizeof(buf), ORCA_OP_RC_SEND_FIRST, 256);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 256, &p), 0);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 0, &p), 0);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 512, &p), -EBADMSG);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n - 4, 256, &p), -EBADMSG);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n + 4, 256, &p), -EBADMSG);
	buf[1] = 0x10;		/* 255 bytes and a pad byte */
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 0, &p), -EBADMSG);
	n = orca_wire_make(buf, sizeof(buf), ORCA_OP_UC_WRITE_MIDDLE, 256);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 256, &p), 0);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 1024, &p), -EBADMSG);
	/* An empty middle packet, with no MTU to hold it to. */
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, 12 + ICRC, 0, &p),
			-EBADMSG);

	/* Last and only packets: up to the MTU. */
	n = orca_wire_make(buf, sizeof(buf), ORCA_OP_RC_READ_RESP_LAST, 256);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 256, &p), 0);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n + 4, 256, &p), -EBADMSG);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n + 4, 512, &p), 0);
	n = orca_wire_make(buf, sizeof(buf), ORCA_OP_UD_SEND_ONLY, 1025);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 1024, &p), -EBADMSG);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 2048, &p), 0);
	KUNIT_EXPECT_EQ(test, p.payload_len, 1025U);

	/* Never more than 4096 bytes, whatever the MTU. */
	n = orca_wire_make(buf, sizeof(buf), ORCA_OP_RC_SEND_ONLY, 4096);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 0, &p), 0);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n, 4096, &p), 0);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n + 4, 0, &p), -EBADMSG);
	KUNIT_EXPECT_EQ(test, orca_wire_parse(buf, n + 4, 8192, &p),
			-EBADMSG);

	/*
	 * A length whose low 32 bits describe a valid packet: refused
	 * without reading past the headers (only they are in @buf here).
	 */
	n = orca_wire_make(buf, sizeof(buf), ORCA_OP_RC_SEND_ONLY, 0);
	KUNIT_ASSERT_EQ(test, n, 16);
	if (sizeof(size_t) > sizeof(u32))
		KUNIT_EXPECT_EQ(test, orca_wire_parse(buf,
						      (size_t)(BIT_ULL(32) + 16),
						      0, &p), -EBADMSG);
}

static void orca_wire_test_build_errors(struct kunit *test)
{
	struct orca_wire_pkt p;
	u8 buf[64];

	orca_wire_test_pkt(&p, 0x15);
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)),
			-EPROTONOSUPPORT);
	orca_wire_test_pkt(&p, ORCA_OP_RC_WRITE_ONLY_IMM);
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, 31), -ENOSPC);
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, 32), 32);

	p.dest_qpn = 0x1000000;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), -EINVAL);
	orca_wire_test_pkt(&p, ORCA_OP_RC_SEND_ONLY);
	p.psn = 0x1000000;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), -EINVAL);
	orca_wire_test_pkt(&p, ORCA_OP_RC_ACK);
	p.aeth_msn = 0x1000000;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), -EINVAL);
	p.aeth_msn = 0xffffff;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 16);
	orca_wire_test_pkt(&p, ORCA_OP_UD_SEND_ONLY);
	p.deth_sqpn = 0x1000000;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), -EINVAL);

	/* Payloads the opcode does not allow. */
	orca_wire_test_pkt(&p, ORCA_OP_RC_ACK);
	p.payload_len = 1;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), -EINVAL);
	orca_wire_test_pkt(&p, ORCA_OP_RC_SEND_MIDDLE);
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), -EINVAL);
	p.payload_len = 254;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), -EINVAL);
	p.payload_len = 256;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 12);
	orca_wire_test_pkt(&p, ORCA_OP_RC_SEND_ONLY);
	p.payload_len = 4097;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), -EINVAL);
	p.payload_len = 0;
	KUNIT_EXPECT_EQ(test, orca_wire_build(&p, buf, sizeof(buf)), 12);
}

/* ---- ICRC ------------------------------------------------------------------ */

static void orca_wire_test_icrc_reference(struct kunit *test)
{
	static u8 pkt[sizeof(orca_wire_pkt_ipv6_ud_send_only_imm)];
	const u8 *ref4 = orca_wire_pkt_ipv4_rc_send_only;
	const u8 *ref6 = orca_wire_pkt_ipv6_ud_send_only_imm;
	const size_t l4 = sizeof(orca_wire_pkt_ipv4_rc_send_only);
	const size_t l6 = sizeof(orca_wire_pkt_ipv6_ud_send_only_imm);
	u32 icrc = 0;

	KUNIT_EXPECT_EQ(test, orca_soft_icrc(ref4, l4, 4, &icrc), 0);
	KUNIT_EXPECT_EQ(test, icrc, ORCA_WIRE_ICRC_IPV4);
	KUNIT_EXPECT_EQ(test, orca_soft_icrc(ref6, l6, 6, &icrc), 0);
	KUNIT_EXPECT_EQ(test, icrc, ORCA_WIRE_ICRC_IPV6);

	KUNIT_EXPECT_EQ(test, orca_soft_icrc_verify(ref4, l4, 4), 0);
	KUNIT_EXPECT_EQ(test, orca_soft_icrc_verify(ref6, l6, 6), 0);

	/* Set writes the reference bytes: least significant byte first. */
	memcpy(pkt, ref4, l4);
	memset(pkt + l4 - 4, 0, 4);
	KUNIT_EXPECT_EQ(test, orca_soft_icrc_set(pkt, l4, 4), 0);
	orca_wire_expect_bytes(test, pkt, ref4, l4,
			       "IPv4 packet with its ICRC set");
	KUNIT_EXPECT_EQ(test, pkt[l4 - 4], ORCA_WIRE_ICRC_IPV4 & 0xff);
	memcpy(pkt, ref6, l6);
	memset(pkt + l6 - 4, 0xff, 4);
	KUNIT_EXPECT_EQ(test, orca_soft_icrc_set(pkt, l6, 6), 0);
	orca_wire_expect_bytes(test, pkt, ref6, l6,
			       "IPv6 packet with its ICRC set");

	/* The wrong IP version for the bytes. */
	KUNIT_EXPECT_EQ(test, orca_soft_icrc_verify(ref4, l4, 6), -EINVAL);
	KUNIT_EXPECT_EQ(test, orca_soft_icrc_verify(ref6, l6, 4), -EINVAL);
}

/*
 * Flip each bit of a reference packet in turn: a bit the ICRC masks
 * (@masked[i] has it) leaves the packet valid, every other one makes
 * the check fail.
 */
static void orca_wire_flip_all(struct kunit *test, const u8 *ref, size_t len,
			       unsigned int ipver, const u8 *masked)
{
	static u8 pkt[sizeof(orca_wire_pkt_ipv6_ud_send_only_imm)];
	size_t i;
	u32 bit;

	for (i = 0; i < len; i++) {
		for (bit = 0; bit < 8; bit++) {
			int ret;

			memcpy(pkt, ref, len);
			pkt[i] ^= BIT(bit);
			ret = orca_soft_icrc_verify(pkt, len, ipver);
			if (masked[i] & BIT(bit))
				KUNIT_EXPECT_EQ_MSG(test, ret, 0,
						    "IPv%u byte %zu bit %u",
						    ipver, i, bit);
			else
				KUNIT_EXPECT_NE_MSG(test, ret, 0,
						    "IPv%u byte %zu bit %u",
						    ipver, i, bit);
		}
	}
}

static void orca_wire_test_icrc_masking(struct kunit *test)
{
	static const u8 mask4[sizeof(orca_wire_pkt_ipv4_rc_send_only)] = {
		[1] = 0xff,			/* TOS */
		[8] = 0xff,			/* TTL */
		[10] = 0xff, [11] = 0xff,	/* header checksum */
		[26] = 0xff, [27] = 0xff,	/* UDP checksum */
		[32] = 0xff,			/* BTH: FECN, BECN, reserved */
	};
	static const u8 mask6[sizeof(orca_wire_pkt_ipv6_ud_send_only_imm)] = {
		[0] = 0x0f,			/* traffic class */
		[1] = 0xff, [2] = 0xff, [3] = 0xff, /* class, flow label */
		[7] = 0xff,			/* hop limit */
		[46] = 0xff, [47] = 0xff,	/* UDP checksum */
		[52] = 0xff,			/* BTH: FECN, BECN, reserved */
	};

	orca_wire_flip_all(test, orca_wire_pkt_ipv4_rc_send_only,
			   sizeof(orca_wire_pkt_ipv4_rc_send_only), 4, mask4);
	orca_wire_flip_all(test, orca_wire_pkt_ipv6_ud_send_only_imm,
			   sizeof(orca_wire_pkt_ipv6_ud_send_only_imm), 6,
			   mask6);
}

static void orca_wire_test_icrc_bad_ip(struct kunit *test)
{
	static u8 pkt[sizeof(orca_wire_pkt_ipv6_ud_send_only_imm)];
	const size_t l4 = sizeof(orca_wire_pkt_ipv4_rc_send_only);
	const size_t l6 = sizeof(orca_wire_pkt_ipv6_ud_send_only_imm);
	u32 icrc;

	memcpy(pkt, orca_wire_pkt_ipv4_rc_send_only, l4);
	KUNIT_EXPECT_EQ(test, orca_soft_icrc(pkt, l4, 5, &icrc), -EINVAL);
	KUNIT_EXPECT_EQ(test, orca_soft_icrc(pkt, l4, 0, &icrc), -EINVAL);
	/* Too short for IP + UDP + BTH + ICRC (44 bytes for IPv4). */
	KUNIT_EXPECT_EQ(test, orca_soft_icrc(pkt, 43, 4, &icrc), -EINVAL);
	KUNIT_EXPECT_EQ(test, orca_soft_icrc(pkt, 44, 4, &icrc), 0);
	KUNIT_EXPECT_EQ(test, orca_soft_icrc(pkt, 0, 4, &icrc), -EINVAL);
	pkt[0] = 0x46;				/* IPv4 options */
	KUNIT_EXPECT_EQ(test, orca_soft_icrc(pkt, l4, 4, &icrc), -EINVAL);
	pkt[0] = 0x45;
	pkt[9] = 6;				/* TCP */
	KUNIT_EXPECT_EQ(test, orca_soft_icrc(pkt, l4, 4, &icrc), -EINVAL);

	memcpy(pkt, orca_wire_pkt_ipv6_ud_send_only_imm, l6);
	KUNIT_EXPECT_EQ(test, orca_soft_icrc(pkt, 63, 6, &icrc), -EINVAL);
	KUNIT_EXPECT_EQ(test, orca_soft_icrc(pkt, 64, 6, &icrc), 0);
	pkt[6] = 0;				/* hop-by-hop options */
	KUNIT_EXPECT_EQ(test, orca_soft_icrc(pkt, l6, 6, &icrc), -EINVAL);
}

/* ---- UDP source port ---------------------------------------------------- */

static void orca_wire_test_udp_sport(struct kunit *test)
{
	u32 a, b;

	/* 0x12345: 0x2345 ^ (0x12345 >> 14 = 4) = 0x2341. */
	KUNIT_EXPECT_EQ(test, orca_wire_udp_sport(0x12345, 1, 2), 0xe341);
	/* Bits above the 20-bit flow label are ignored. */
	KUNIT_EXPECT_EQ(test, orca_wire_udp_sport(0xfff12345, 1, 2), 0xe341);
	KUNIT_EXPECT_EQ(test, orca_wire_udp_sport(0xfffff, 0, 0), 0xffc0);
	/* No flow label: from the QPNs' product, 0x11 * 0x22 = 0x242. */
	KUNIT_EXPECT_EQ(test, orca_wire_udp_sport(0, 0x11, 0x22), 0xc242);
	KUNIT_EXPECT_EQ(test, orca_wire_udp_sport(0, 0xffffff, 0xffffff),
			0xff21);
	KUNIT_EXPECT_EQ(test, orca_wire_udp_sport(0, 0x123456, 0xabcdef),
			0xc3c8);
	KUNIT_EXPECT_EQ(test, orca_wire_udp_sport(0, 0, 5), 0xc000);

	/* Both ends of a connection agree; every port is >= 0xc000. */
	for (a = 1; a < 0x1000000; a = a * 3 + 1) {
		for (b = 1; b < 0x1000000; b = b * 5 + 2) {
			u16 s = orca_wire_udp_sport(0, a, b);

			KUNIT_EXPECT_EQ(test, s, orca_wire_udp_sport(0, b, a));
			KUNIT_EXPECT_GE(test, s, 0xc000);
		}
	}
}

static struct kunit_case orca_soft_wire_cases[] = {
	KUNIT_CASE(orca_wire_test_opcode_table),
	KUNIT_CASE(orca_wire_test_encode_bth),
	KUNIT_CASE(orca_wire_test_encode_reth_imm),
	KUNIT_CASE(orca_wire_test_encode_aeth),
	KUNIT_CASE(orca_wire_test_encode_atomic_ieth),
	KUNIT_CASE(orca_wire_test_encode_xrc),
	KUNIT_CASE(orca_wire_test_encode_reference),
	KUNIT_CASE(orca_wire_test_roundtrip),
	KUNIT_CASE(orca_wire_test_parse_reference),
	KUNIT_CASE(orca_wire_test_parse_short),
	KUNIT_CASE(orca_wire_test_parse_bad_header),
	KUNIT_CASE(orca_wire_test_parse_lengths),
	KUNIT_CASE(orca_wire_test_build_errors),
	KUNIT_CASE(orca_wire_test_icrc_reference),
	KUNIT_CASE(orca_wire_test_icrc_masking),
	KUNIT_CASE(orca_wire_test_icrc_bad_ip),
	KUNIT_CASE(orca_wire_test_udp_sport),
	{}
};

static struct kunit_suite orca_soft_wire_suite = {
	.name = "orca_soft_wire",
	.test_cases = orca_soft_wire_cases,
};

kunit_test_suite(orca_soft_wire_suite);

MODULE_DESCRIPTION("KUnit tests for orca_soft's RoCEv2 packet format");
MODULE_LICENSE("GPL");
