// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the Orca hardware interface formats
 * (drivers/orca/orca_hw.h): register fields, admin commands, admin
 * completions, event queue entries and the query mailboxes.
 *
 * Encodings are checked against byte arrays written out by hand in
 * little-endian order, and decodings start from such byte arrays, so a
 * wrong mask, a wrong field offset or a missing byte swap fails.
 */
#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>

#include "orca_hw.h"

/* Compare @len bytes at @got with @want and report up to 8 mismatches. */
static void orca_expect_bytes(struct kunit *test, const void *got,
			      const u8 *want, size_t len, const char *what)
{
	const u8 *g = got;
	unsigned int bad = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (g[i] == want[i])
			continue;
		if (bad++ < 8)
			KUNIT_FAIL(test, "%s: byte %zu is 0x%02x, expected 0x%02x",
				   what, i, g[i], want[i]);
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0U, "%s: %u bytes differ", what, bad);
}

/* Read little- or big-endian values byte by byte, without the kernel helpers. */
static u32 orca_test_le32(const u8 *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

static u64 orca_test_le64(const u8 *p)
{
	return orca_test_le32(p) | (u64)orca_test_le32(p + 4) << 32;
}

static u64 orca_test_be64(const u8 *p)
{
	u64 v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void orca_test_hdr(struct orca_aq_hdr *hdr, u8 opcode, u16 cmd_id,
			  u32 out_len, u64 out_addr)
{
	hdr->op = cpu_to_le32(FIELD_PREP(ORCA_AQ_HDR_OPCODE, opcode) |
			      FIELD_PREP(ORCA_AQ_HDR_CMD_ID, cmd_id));
	hdr->out_len = cpu_to_le32(out_len);
	hdr->out_addr = cpu_to_le64(out_addr);
}

static void orca_hw_test_sizes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct orca_aq_hdr), 16UL);
	KUNIT_EXPECT_EQ(test, sizeof(struct orca_cmd_query_device), 64UL);
	KUNIT_EXPECT_EQ(test, sizeof(struct orca_cmd_query_port), 64UL);
	KUNIT_EXPECT_EQ(test, sizeof(struct orca_cmd_alloc_pd), 64UL);
	KUNIT_EXPECT_EQ(test, sizeof(struct orca_cmd_dealloc_pd), 64UL);
	KUNIT_EXPECT_EQ(test, sizeof(union orca_aq_cmd), 64UL);
	KUNIT_EXPECT_EQ(test, ORCA_AQ_CMD_SIZE, 64);
	KUNIT_EXPECT_EQ(test, ORCA_AQ_CMD_BODY_SIZE, 48UL);
	KUNIT_EXPECT_EQ(test, sizeof(struct orca_aq_cqe), 16UL);
	KUNIT_EXPECT_EQ(test, ORCA_AQ_CQE_SIZE, 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct orca_eqe), 16UL);
	KUNIT_EXPECT_EQ(test, ORCA_EQE_SIZE, 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct orca_hw_device_attr), 256UL);
	KUNIT_EXPECT_EQ(test, ORCA_HW_DEVICE_ATTR_SIZE, 256);
	KUNIT_EXPECT_EQ(test, sizeof(struct orca_hw_port_attr), 64UL);
	KUNIT_EXPECT_EQ(test, ORCA_HW_PORT_ATTR_SIZE, 64);
}

static void orca_hw_test_offsets(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_aq_hdr, op), 0UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_aq_hdr, out_len), 4UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_aq_hdr, out_addr), 8UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_cmd_query_port, port), 16UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_cmd_dealloc_pd, pdn), 16UL);
	KUNIT_EXPECT_EQ(test, offsetof(union orca_aq_cmd, dealloc_pd.pdn), 16UL);
	KUNIT_EXPECT_EQ(test, sizeof(struct orca_cmd_alloc_mw), 64UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_cmd_alloc_mw, pdn), 16UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_cmd_alloc_mw, type), 20UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_cmd_alloc_mw, key_variant),
			24UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_hw_device_attr, max_mw),
			0x88UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_send_wqe, seg.bind.mr_key),
			0x30UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_send_wqe, seg.bind.info),
			0x38UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_aq_cqe, result), 0UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_aq_cqe, info0), 8UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_aq_cqe, info1), 12UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_eqe, data), 0UL);
	KUNIT_EXPECT_EQ(test, offsetof(struct orca_eqe, info), 12UL);
}

static void orca_hw_test_registers(struct kunit *test)
{
	__be32 magic;
	u32 v;

	/* Register offsets are part of the contract with the device. */
	KUNIT_EXPECT_EQ(test, ORCA_REG_ID, 0x000);
	KUNIT_EXPECT_EQ(test, ORCA_REG_VERSION, 0x004);
	KUNIT_EXPECT_EQ(test, ORCA_REG_CAPS, 0x008);
	KUNIT_EXPECT_EQ(test, ORCA_REG_CTRL, 0x010);
	KUNIT_EXPECT_EQ(test, ORCA_REG_STATUS, 0x014);
	KUNIT_EXPECT_EQ(test, ORCA_REG_AQ_SQ_BASE_LO, 0x020);
	KUNIT_EXPECT_EQ(test, ORCA_REG_AQ_SQ_BASE_HI, 0x024);
	KUNIT_EXPECT_EQ(test, ORCA_REG_AQ_CQ_BASE_LO, 0x028);
	KUNIT_EXPECT_EQ(test, ORCA_REG_AQ_CQ_BASE_HI, 0x02c);
	KUNIT_EXPECT_EQ(test, ORCA_REG_AQ_CFG, 0x030);
	KUNIT_EXPECT_EQ(test, ORCA_REG_AQ_SQ_DB, 0x034);
	KUNIT_EXPECT_EQ(test, ORCA_REG_AEQ_BASE_LO, 0x040);
	KUNIT_EXPECT_EQ(test, ORCA_REG_AEQ_BASE_HI, 0x044);
	KUNIT_EXPECT_EQ(test, ORCA_REG_AEQ_CFG, 0x048);
	KUNIT_EXPECT_EQ(test, ORCA_REG_AEQ_DB, 0x04c);
	KUNIT_EXPECT_EQ(test, ORCA_REG_QP_DB, 0x050);
	KUNIT_EXPECT_EQ(test, ORCA_REG_CQ_DB, 0x054);
	KUNIT_EXPECT_EQ(test, ORCA_REG_EQ_DB, 0x058);
	KUNIT_EXPECT_LE(test, ORCA_REG_EQ_DB + 4, ORCA_REG_BLOCK_SIZE);

	/* The ID register spells "ORCA" when its bytes are read MSB first. */
	magic = cpu_to_be32(ORCA_ID_MAGIC);
	KUNIT_EXPECT_EQ(test, memcmp(&magic, "ORCA", 4), 0);

	/* VERSION 1.8 as the device reports it. */
	v = 0x00010008;
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_VERSION_MAJOR, v), 1U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_VERSION_MINOR, v), 8U);
	KUNIT_EXPECT_EQ(test, FIELD_PREP(ORCA_VERSION_MAJOR, ORCA_IFACE_VERSION_MAJOR) |
			      FIELD_PREP(ORCA_VERSION_MINOR, ORCA_IFACE_VERSION_MINOR), v);
	v = 0x00020003;
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_VERSION_MAJOR, v), 2U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_VERSION_MINOR, v), 3U);

	/* CAPS: 4 vectors, admin queue up to 2^12, event queues up to 2^16. */
	v = 0xff100c04;
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_CAPS_NUM_VECTORS, v), 4U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_CAPS_AQ_MAX_LOG2, v), 12U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_CAPS_EQ_MAX_LOG2, v), 16U);

	KUNIT_EXPECT_EQ(test, ORCA_CTRL_ENABLE, 0x1UL);
	KUNIT_EXPECT_EQ(test, ORCA_STATUS_READY, 0x1UL);
	KUNIT_EXPECT_EQ(test, ORCA_STATUS_FATAL, 0x2UL);

	/* AQ_CFG: depth 2^6 on vector 3 with interrupts enabled. */
	v = FIELD_PREP(ORCA_AQ_CFG_LOG2_DEPTH, 6) |
	    FIELD_PREP(ORCA_AQ_CFG_VECTOR, 3) | ORCA_AQ_CFG_IRQ_EN;
	KUNIT_EXPECT_EQ(test, v, 0x00010306U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_CFG_LOG2_DEPTH, 0x0001ff10U), 16U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_CFG_VECTOR, 0x0001ff10U), 0xffU);

	/* AEQ_CFG: depth 2^16 on vector 0. */
	v = FIELD_PREP(ORCA_AEQ_CFG_LOG2_DEPTH, 16) | FIELD_PREP(ORCA_AEQ_CFG_VECTOR, 0);
	KUNIT_EXPECT_EQ(test, v, 0x00000010U);
	KUNIT_EXPECT_EQ(test, FIELD_PREP(ORCA_AEQ_CFG_VECTOR, 7), 0x00000700UL);
}

/* The event queue doorbell: a 24-bit consumer index and the arm bit. */
static void orca_hw_test_aeq_doorbell(struct kunit *test)
{
	u32 v;

	v = FIELD_PREP(ORCA_AEQ_DB_CONS_IDX, 0x345678) | ORCA_AEQ_DB_ARM;
	KUNIT_EXPECT_EQ(test, v, 0x80345678U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AEQ_DB_CONS_IDX, v), 0x345678U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AEQ_DB_ARM, v), 1U);
	/* Decoding ignores the reserved bits 24..30. */
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AEQ_DB_CONS_IDX, 0x7f000001U), 1U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AEQ_DB_ARM, 0x7f000001U), 0U);

	v = FIELD_PREP(ORCA_AEQ_DB_CONS_IDX, 0xffffff);
	KUNIT_EXPECT_EQ(test, v, 0x00ffffffU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AEQ_DB_ARM, v), 0U);
	/* Bits 24..30 are reserved: neither field covers them. */
	KUNIT_EXPECT_EQ(test, (ORCA_AEQ_DB_CONS_IDX | ORCA_AEQ_DB_ARM) & 0x7f000000UL, 0UL);
}

static void orca_hw_test_hdr_fields(struct kunit *test)
{
	static const u16 ids[] = { 0, 1, 0x00ff, 0x0100, 0x7fff, 0x8000, 0xffff };
	static const u8 ops[] = {
		ORCA_CMD_QUERY_DEVICE, ORCA_CMD_QUERY_PORT, ORCA_CMD_ALLOC_PD,
		ORCA_CMD_DEALLOC_PD, 0x00, 0xff,
	};
	unsigned int i, j;

	KUNIT_EXPECT_EQ(test, ORCA_AQ_HDR_OPCODE, 0x000000ffUL);
	KUNIT_EXPECT_EQ(test, ORCA_AQ_HDR_CMD_ID, 0xffff0000UL);

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		for (j = 0; j < ARRAY_SIZE(ids); j++) {
			u32 w = FIELD_PREP(ORCA_AQ_HDR_OPCODE, ops[i]) |
				FIELD_PREP(ORCA_AQ_HDR_CMD_ID, ids[j]);

			KUNIT_EXPECT_EQ(test, w, (u32)ids[j] << 16 | ops[i]);
			KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_HDR_OPCODE, w), (u32)ops[i]);
			KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_HDR_CMD_ID, w), (u32)ids[j]);
			/* Bits 8..15 are reserved and stay clear. */
			KUNIT_EXPECT_EQ(test, w & 0x0000ff00U, 0U);
		}
	}

	/* Decoding ignores the reserved bits. */
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_HDR_OPCODE, 0x1234ab02U), 0x02U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_HDR_CMD_ID, 0x1234ab02U), 0x1234U);
}

static void orca_hw_test_abi_values(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ORCA_CMD_QUERY_DEVICE, 0x01);
	KUNIT_EXPECT_EQ(test, ORCA_CMD_QUERY_PORT, 0x02);
	KUNIT_EXPECT_EQ(test, ORCA_CMD_ALLOC_PD, 0x10);
	KUNIT_EXPECT_EQ(test, ORCA_CMD_DEALLOC_PD, 0x11);

	KUNIT_EXPECT_EQ(test, ORCA_AQ_STS_OK, 0x00);
	KUNIT_EXPECT_EQ(test, ORCA_AQ_STS_BAD_OPCODE, 0x01);
	KUNIT_EXPECT_EQ(test, ORCA_AQ_STS_BAD_PARAM, 0x02);
	KUNIT_EXPECT_EQ(test, ORCA_AQ_STS_NO_RESOURCES, 0x03);
	KUNIT_EXPECT_EQ(test, ORCA_AQ_STS_BAD_HANDLE, 0x04);
	KUNIT_EXPECT_EQ(test, ORCA_AQ_STS_BAD_STATE, 0x05);
	KUNIT_EXPECT_EQ(test, ORCA_AQ_STS_BUSY, 0x06);
	KUNIT_EXPECT_EQ(test, ORCA_AQ_STS_UNSUPPORTED, 0x07);
	KUNIT_EXPECT_EQ(test, ORCA_AQ_STS_DMA_ERROR, 0x08);
	KUNIT_EXPECT_EQ(test, ORCA_AQ_STS_INTERNAL, 0x09);

	KUNIT_EXPECT_EQ(test, ORCA_EQE_PORT_CHANGE, 0x01);
	KUNIT_EXPECT_EQ(test, ORCA_PORT_DOWN, 1);
	KUNIT_EXPECT_EQ(test, ORCA_PORT_ACTIVE, 4);
}

static void orca_hw_test_cmd_query_device(struct kunit *test)
{
	static const u8 want[ORCA_AQ_CMD_SIZE] = {
		0x01, 0x00, 0x01, 0x00,			/* opcode 0x01, cmd id 1 */
		0x00, 0x01, 0x00, 0x00,			/* out_len 256 */
		0x00, 0xf0, 0xff, 0xff, 0x01, 0x00, 0x00, 0x00,	/* out_addr */
	};
	union orca_aq_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	orca_test_hdr(&cmd.query_device.hdr, ORCA_CMD_QUERY_DEVICE, 1,
		      sizeof(struct orca_hw_device_attr), 0x1fffff000ULL);
	orca_expect_bytes(test, cmd.raw, want, sizeof(want), "QUERY_DEVICE");
}

static void orca_hw_test_cmd_query_port(struct kunit *test)
{
	static const u8 want[ORCA_AQ_CMD_SIZE] = {
		0x02, 0x00, 0xef, 0xbe,			/* opcode 0x02, cmd id 0xbeef */
		0x40, 0x00, 0x00, 0x00,			/* out_len 64 */
		0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00,	/* out_addr */
		0x01, 0x00, 0x00, 0x00,			/* port 1 */
	};
	union orca_aq_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	orca_test_hdr(&cmd.query_port.hdr, ORCA_CMD_QUERY_PORT, 0xbeef,
		      sizeof(struct orca_hw_port_attr), 0x0011223344556677ULL);
	cmd.query_port.port = cpu_to_le32(1);
	orca_expect_bytes(test, cmd.raw, want, sizeof(want), "QUERY_PORT");
}

static void orca_hw_test_cmd_alloc_pd(struct kunit *test)
{
	static const u8 want[ORCA_AQ_CMD_SIZE] = {
		0x10, 0x00, 0x00, 0x80,			/* opcode 0x10, cmd id 0x8000 */
	};
	union orca_aq_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	orca_test_hdr(&cmd.alloc_pd.hdr, ORCA_CMD_ALLOC_PD, 0x8000, 0, 0);
	orca_expect_bytes(test, cmd.raw, want, sizeof(want), "ALLOC_PD");
}

static void orca_hw_test_cmd_dealloc_pd(struct kunit *test)
{
	static const u8 want[ORCA_AQ_CMD_SIZE] = {
		0x11, 0x00, 0x02, 0x01,			/* opcode 0x11, cmd id 0x0102 */
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xef, 0xcd, 0xab, 0x00,			/* pdn 0xabcdef */
	};
	union orca_aq_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	orca_test_hdr(&cmd.dealloc_pd.hdr, ORCA_CMD_DEALLOC_PD, 0x0102, 0, 0);
	cmd.dealloc_pd.pdn = cpu_to_le32(0xabcdef);
	orca_expect_bytes(test, cmd.raw, want, sizeof(want), "DEALLOC_PD");
}

/* The device side: decode a command from the bytes in the ring. */
static void orca_hw_test_cmd_decode(struct kunit *test)
{
	static const u8 raw[ORCA_AQ_CMD_SIZE] = {
		0x02, 0x5a, 0x34, 0x12,			/* reserved bits 8..15 set */
		0x40, 0x00, 0x00, 0x00,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x81,
		0x03, 0x00, 0x00, 0x00,
	};
	union orca_aq_cmd cmd;
	u32 op;

	memcpy(cmd.raw, raw, sizeof(raw));
	op = le32_to_cpu(cmd.hdr.op);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_HDR_OPCODE, op), (u32)ORCA_CMD_QUERY_PORT);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_HDR_CMD_ID, op), 0x1234U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cmd.hdr.out_len), 64U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(cmd.hdr.out_addr), 0x8102030405060708ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cmd.query_port.port), 3U);
}

static void orca_hw_test_cqe_decode(struct kunit *test)
{
	static const u8 raw[ORCA_AQ_CQE_SIZE] = {
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,	/* result */
		0x34, 0x12, 0x56, 0x00,			/* cmd id 0x1234, sq head 0x56 */
		0x02, 0xcd, 0xab, 0x80,			/* BAD_PARAM, 0xabcd, phase 1 */
	};
	struct orca_aq_cqe cqe;
	u32 info0, info1;

	memcpy(&cqe, raw, sizeof(cqe));
	info0 = le32_to_cpu(cqe.info0);
	info1 = le32_to_cpu(cqe.info1);

	KUNIT_EXPECT_EQ(test, le64_to_cpu(cqe.result), 0x0102030405060708ULL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_CQE_CMD_ID, info0), 0x1234U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_CQE_SQ_HEAD, info0), 0x56U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_CQE_STATUS, info1), (u32)ORCA_AQ_STS_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_CQE_SYNDROME, info1), 0xabcdU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_CQE_PHASE, info1), 1U);
}

/* Reserved bits 24..30 of info1 must not leak into any field. */
static void orca_hw_test_cqe_decode_reserved(struct kunit *test)
{
	static const u8 raw[ORCA_AQ_CQE_SIZE] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff,			/* cmd id 0xffff, sq head 0xffff */
		0x00, 0x00, 0x00, 0x7f,			/* OK, no syndrome, phase 0 */
	};
	struct orca_aq_cqe cqe;
	u32 info0, info1;

	memcpy(&cqe, raw, sizeof(cqe));
	info0 = le32_to_cpu(cqe.info0);
	info1 = le32_to_cpu(cqe.info1);

	KUNIT_EXPECT_EQ(test, le64_to_cpu(cqe.result), ~0ULL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_CQE_CMD_ID, info0), 0xffffU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_CQE_SQ_HEAD, info0), 0xffffU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_CQE_STATUS, info1), (u32)ORCA_AQ_STS_OK);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_CQE_SYNDROME, info1), 0U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AQ_CQE_PHASE, info1), 0U);

	KUNIT_EXPECT_EQ(test, ORCA_AQ_CQE_CMD_ID | ORCA_AQ_CQE_SQ_HEAD, 0xffffffffUL);
	KUNIT_EXPECT_EQ(test, ORCA_AQ_CQE_STATUS | ORCA_AQ_CQE_SYNDROME | ORCA_AQ_CQE_PHASE,
			0x80ffffffUL);
}

/* The device side: encode a completion for ALLOC_PD that returned PD 7. */
static void orca_hw_test_cqe_encode(struct kunit *test)
{
	static const u8 want[ORCA_AQ_CQE_SIZE] = {
		0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* result: pdn 7 */
		0x00, 0x80, 0x3f, 0x00,			/* cmd id 0x8000, sq head 0x3f */
		0x00, 0x00, 0x00, 0x80,			/* OK, phase 1 */
	};
	static const u8 want_err[ORCA_AQ_CQE_SIZE] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x01, 0x00, 0x00, 0x01,			/* cmd id 1, sq head 0x100 */
		0x03, 0x01, 0x00, 0x00,			/* NO_RESOURCES, 0x0001, phase 0 */
	};
	struct orca_aq_cqe cqe;

	cqe.result = cpu_to_le64(7);
	cqe.info0 = cpu_to_le32(FIELD_PREP(ORCA_AQ_CQE_CMD_ID, 0x8000) |
				FIELD_PREP(ORCA_AQ_CQE_SQ_HEAD, 0x3f));
	cqe.info1 = cpu_to_le32(FIELD_PREP(ORCA_AQ_CQE_STATUS, ORCA_AQ_STS_OK) |
				FIELD_PREP(ORCA_AQ_CQE_PHASE, 1));
	orca_expect_bytes(test, &cqe, want, sizeof(want), "CQE ok");

	cqe.result = 0;
	cqe.info0 = cpu_to_le32(FIELD_PREP(ORCA_AQ_CQE_CMD_ID, 1) |
				FIELD_PREP(ORCA_AQ_CQE_SQ_HEAD, 0x100));
	cqe.info1 = cpu_to_le32(FIELD_PREP(ORCA_AQ_CQE_STATUS, ORCA_AQ_STS_NO_RESOURCES) |
				FIELD_PREP(ORCA_AQ_CQE_SYNDROME, 1) |
				FIELD_PREP(ORCA_AQ_CQE_PHASE, 0));
	orca_expect_bytes(test, &cqe, want_err, sizeof(want_err), "CQE error");
}

static void orca_hw_test_eqe(struct kunit *test)
{
	static const u8 raw[ORCA_EQE_SIZE] = {
		0x01, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* port 1 ACTIVE */
		0x00, 0x00, 0x00, 0x00,			/* rsvd */
		0x01, 0x00, 0x00, 0x80,			/* PORT_CHANGE, phase 1 */
	};
	static const u8 raw_other[ORCA_EQE_SIZE] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
		0x00, 0x00, 0x00, 0x00,
		0xfe, 0xff, 0xff, 0x7f,			/* type 0xfe, phase 0 */
	};
	struct orca_eqe eqe;
	u32 info;

	memcpy(&eqe, raw, sizeof(eqe));
	info = le32_to_cpu(eqe.info);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQE_TYPE, info), (u32)ORCA_EQE_PORT_CHANGE);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQE_PHASE, info), 1U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQE_PORT_NUM, le64_to_cpu(eqe.data)), 1ULL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQE_PORT_STATE, le64_to_cpu(eqe.data)),
			(u64)ORCA_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(eqe.data) & ORCA_EQE_PORT_RSVD, 0ULL);

	memcpy(&eqe, raw_other, sizeof(eqe));
	info = le32_to_cpu(eqe.info);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQE_TYPE, info), 0xfeU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQE_PHASE, info), 0U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(eqe.data), 0x0200000000000000ULL);

	/* Encoding gives back the first entry. */
	memset(&eqe, 0xaa, sizeof(eqe));
	eqe.data = cpu_to_le64(FIELD_PREP(ORCA_EQE_PORT_NUM, 1) |
			       FIELD_PREP(ORCA_EQE_PORT_STATE, ORCA_PORT_ACTIVE));
	eqe.aux = 0;
	eqe.info = cpu_to_le32(FIELD_PREP(ORCA_EQE_TYPE, ORCA_EQE_PORT_CHANGE) |
			       FIELD_PREP(ORCA_EQE_PHASE, 1));
	orca_expect_bytes(test, &eqe, raw, sizeof(raw), "EQE");
}

static void orca_hw_test_device_attr(struct kunit *test)
{
	/* Offsets and values of the 32-bit fields, in declaration order. */
	static const struct {
		unsigned int off;
		u32 val;
	} le32_fields[] = {
		{ 40, 0x00001234 },	/* vendor_id */
		{ 44, 0x00005678 },	/* vendor_part_id */
		{ 48, 0x00000003 },	/* hw_ver */
		{ 52, 0x0000001f },	/* cap_flags */
		{ 56, 0x00000001 },	/* num_ports */
		{ 60, 0x00010000 },	/* max_qp */
		{ 64, 0x00004000 },	/* max_qp_wr */
		{ 68, 0x00000020 },	/* max_sge */
		{ 72, 0x0000001e },	/* max_sge_rd */
		{ 76, 0x00020000 },	/* max_cq */
		{ 80, 0x00400000 },	/* max_cqe */
		{ 84, 0x00080000 },	/* max_mr */
		{ 88, 0x00008000 },	/* max_pd */
		{ 92, 0x00000080 },	/* max_qp_rd_atom */
		{ 96, 0x00000081 },	/* max_qp_init_rd_atom */
		{ 100, 0x00000400 },	/* max_srq */
		{ 104, 0x00008001 },	/* max_srq_wr */
		{ 108, 0x00000021 },	/* max_srq_sge */
		{ 112, 0x00000800 },	/* max_ah */
		{ 116, 0x00002000 },	/* max_mcast_grp */
		{ 120, 0x00000038 },	/* max_mcast_qp_attach */
		{ 124, 0x00000100 },	/* max_inline_data */
		{ 128, 0x00000200 },	/* max_fast_reg_page_list_len */
		{ 132, 0x00000001 },	/* max_pkeys */
	};
	struct orca_hw_device_attr *a;
	const u8 *b;
	unsigned int i;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	b = (const u8 *)a;

	a->fw_version = cpu_to_le64(0x0001000200030004ULL);
	a->node_guid = cpu_to_be64(0x0211223344556677ULL);
	a->sys_image_guid = cpu_to_be64(0x02aabbccddeeff00ULL);
	a->max_mr_size = cpu_to_le64(0xffffffffffffffffULL);
	a->page_size_cap = cpu_to_le64(0x00000000fffff000ULL);
	a->vendor_id = cpu_to_le32(le32_fields[0].val);
	a->vendor_part_id = cpu_to_le32(le32_fields[1].val);
	a->hw_ver = cpu_to_le32(le32_fields[2].val);
	a->cap_flags = cpu_to_le32(ORCA_HW_DEV_CAP_RC | ORCA_HW_DEV_CAP_UC |
				   ORCA_HW_DEV_CAP_UD | ORCA_HW_DEV_CAP_SRQ |
				   ORCA_HW_DEV_CAP_ATOMIC);
	a->num_ports = cpu_to_le32(le32_fields[4].val);
	a->max_qp = cpu_to_le32(le32_fields[5].val);
	a->max_qp_wr = cpu_to_le32(le32_fields[6].val);
	a->max_sge = cpu_to_le32(le32_fields[7].val);
	a->max_sge_rd = cpu_to_le32(le32_fields[8].val);
	a->max_cq = cpu_to_le32(le32_fields[9].val);
	a->max_cqe = cpu_to_le32(le32_fields[10].val);
	a->max_mr = cpu_to_le32(le32_fields[11].val);
	a->max_pd = cpu_to_le32(le32_fields[12].val);
	a->max_qp_rd_atom = cpu_to_le32(le32_fields[13].val);
	a->max_qp_init_rd_atom = cpu_to_le32(le32_fields[14].val);
	a->max_srq = cpu_to_le32(le32_fields[15].val);
	a->max_srq_wr = cpu_to_le32(le32_fields[16].val);
	a->max_srq_sge = cpu_to_le32(le32_fields[17].val);
	a->max_ah = cpu_to_le32(le32_fields[18].val);
	a->max_mcast_grp = cpu_to_le32(le32_fields[19].val);
	a->max_mcast_qp_attach = cpu_to_le32(le32_fields[20].val);
	a->max_inline_data = cpu_to_le32(le32_fields[21].val);
	a->max_fast_reg_page_list_len = cpu_to_le32(le32_fields[22].val);
	a->max_pkeys = cpu_to_le32(le32_fields[23].val);

	KUNIT_EXPECT_EQ(test, orca_test_le64(b + 0), 0x0001000200030004ULL);
	/* GUIDs are in network byte order: the OUI comes first. */
	KUNIT_EXPECT_EQ(test, b[8], 0x02);
	KUNIT_EXPECT_EQ(test, b[15], 0x77);
	KUNIT_EXPECT_EQ(test, orca_test_be64(b + 8), 0x0211223344556677ULL);
	KUNIT_EXPECT_EQ(test, orca_test_be64(b + 16), 0x02aabbccddeeff00ULL);
	KUNIT_EXPECT_EQ(test, orca_test_le64(b + 24), 0xffffffffffffffffULL);
	KUNIT_EXPECT_EQ(test, orca_test_le64(b + 32), 0x00000000fffff000ULL);
	KUNIT_EXPECT_EQ(test, b[33], 0xf0);

	for (i = 0; i < ARRAY_SIZE(le32_fields); i++)
		KUNIT_EXPECT_EQ_MSG(test, orca_test_le32(b + le32_fields[i].off),
				    le32_fields[i].val, "field at offset %u",
				    le32_fields[i].off);

	/* Nothing was written past the last field. */
	for (i = 136; i < ORCA_HW_DEVICE_ATTR_SIZE; i++)
		KUNIT_EXPECT_EQ_MSG(test, b[i], 0, "reserved byte %u", i);
}

static void orca_hw_test_port_attr(struct kunit *test)
{
	static const u8 want[ORCA_HW_PORT_ATTR_SIZE] = {
		0x04, 0x01, 0x00, 0x00,			/* ACTIVE, link up */
		0x00, 0x10, 0x00, 0x00,			/* max_mtu 4096 */
		0x00, 0x04, 0x00, 0x00,			/* active_mtu 1024 */
		0x10, 0x00, 0x00, 0x00,			/* gid_tbl_len 16 */
		0x01, 0x00, 0x00, 0x00,			/* pkey_tbl_len 1 */
		0x00, 0x00, 0x00, 0x80,			/* max_msg_sz 2 GiB */
		0xdc, 0x05, 0x00, 0x00,			/* netdev_mtu 1500 */
		0x00, 0x00, 0x00, 0x00,			/* rsvd0 */
		0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x00, 0x00,	/* mac */
	};
	static const u8 mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	struct orca_hw_port_attr p;
	u32 info;

	memset(&p, 0, sizeof(p));
	p.info = cpu_to_le32(FIELD_PREP(ORCA_PORT_INFO_STATE, ORCA_PORT_ACTIVE) |
			     ORCA_PORT_INFO_LINK_UP);
	p.max_mtu = cpu_to_le32(4096);
	p.active_mtu = cpu_to_le32(1024);
	p.gid_tbl_len = cpu_to_le32(16);
	p.pkey_tbl_len = cpu_to_le32(1);
	p.max_msg_sz = cpu_to_le32(0x80000000);
	p.netdev_mtu = cpu_to_le32(1500);
	memcpy(p.mac, mac, sizeof(mac));
	orca_expect_bytes(test, &p, want, sizeof(want), "port attr");

	/* Decode a port that is down with the link down, reserved bits set. */
	info = 0xfffffef1;
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_PORT_INFO_STATE, info), (u32)ORCA_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_PORT_INFO_LINK_UP, info), 0U);
	info = orca_test_le32(want);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_PORT_INFO_STATE, info), (u32)ORCA_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_PORT_INFO_LINK_UP, info), 1U);
}

static struct kunit_case orca_hw_test_cases[] = {
	KUNIT_CASE(orca_hw_test_sizes),
	KUNIT_CASE(orca_hw_test_offsets),
	KUNIT_CASE(orca_hw_test_registers),
	KUNIT_CASE(orca_hw_test_aeq_doorbell),
	KUNIT_CASE(orca_hw_test_hdr_fields),
	KUNIT_CASE(orca_hw_test_abi_values),
	KUNIT_CASE(orca_hw_test_cmd_query_device),
	KUNIT_CASE(orca_hw_test_cmd_query_port),
	KUNIT_CASE(orca_hw_test_cmd_alloc_pd),
	KUNIT_CASE(orca_hw_test_cmd_dealloc_pd),
	KUNIT_CASE(orca_hw_test_cmd_decode),
	KUNIT_CASE(orca_hw_test_cqe_decode),
	KUNIT_CASE(orca_hw_test_cqe_decode_reserved),
	KUNIT_CASE(orca_hw_test_cqe_encode),
	KUNIT_CASE(orca_hw_test_eqe),
	KUNIT_CASE(orca_hw_test_device_attr),
	KUNIT_CASE(orca_hw_test_port_attr),
	{}
};

static struct kunit_suite orca_hw_test_suite = {
	.name = "orca_hw",
	.test_cases = orca_hw_test_cases,
};

kunit_test_suite(orca_hw_test_suite);

MODULE_DESCRIPTION("KUnit tests for the Orca hardware interface formats");
MODULE_LICENSE("GPL");
