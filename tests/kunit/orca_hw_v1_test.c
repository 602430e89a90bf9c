// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the command and mailbox formats of the v1 control path
 * (drivers/orca/orca_hw.h, Documentation/orca-hw-interface.rst, "Command
 * set"): the bodies of the commands added after the first four, the
 * REG_MR, CREATE_QP, MODIFY_QP/QUERY_QP, CREATE_SRQ/QUERY_SRQ and
 * QUERY_STATS mailboxes, and the sub-word fields of their words.
 *
 * The expected values come from the specification, not from the header:
 * the sizes, bit ranges and offsets it states (64-byte commands, the
 * mailbox sizes, MODIFY_QP's qpn at 0x1c, the [hi:lo] ranges of the cfg,
 * info, flags and key words).  It names the other fields of each format
 * without giving their offsets; those are the offsets of the fields in the
 * order it names them, naturally aligned, and are pinned here, as are the
 * values it gives no number (the ORCA_WQ_CFG_* bit ranges, the
 * ORCA_QP_ATTR_*, ORCA_SRQ_ATTR_* and ORCA_ACCESS_* bits): the driver and
 * the device must agree on them.  Encodings are compared with byte arrays
 * written out by hand in little-endian order and decodings start from such
 * arrays, so a wrong mask, a wrong offset or a missing byte swap fails.
 */
#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "orca_hw.h"

/* ---------------------------------------------------------------------
 * Helpers
 */

/* Report every differing byte (the first 8 of them), then the count. */
static void orca_v1_expect_bytes(struct kunit *test, const void *buf,
				 const u8 *want, size_t len, const char *what)
{
	const u8 *got = buf;
	unsigned int ndiff = 0;
	size_t off;

	for (off = 0; off < len; off++) {
		if (got[off] == want[off])
			continue;
		ndiff++;
		if (ndiff <= 8)
			KUNIT_FAIL(test, "%s: offset 0x%02zx holds 0x%02x, want 0x%02x",
				   what, off, got[off], want[off]);
	}
	KUNIT_EXPECT_EQ_MSG(test, ndiff, 0U, "%s: %u of %zu bytes differ",
			    what, ndiff, len);
}

/* A little-endian word assembled from its bytes, not with le32_to_cpu(). */
static u32 orca_v1_word(const u8 *p)
{
	return (u32)p[3] << 24 | (u32)p[2] << 16 | (u32)p[1] << 8 | p[0];
}

static void orca_v1_hdr(struct orca_aq_hdr *hdr, u8 opcode, u16 cmd_id,
			u32 out_len, u64 out_addr)
{
	hdr->op = cpu_to_le32(FIELD_PREP(ORCA_AQ_HDR_CMD_ID, cmd_id) |
			      FIELD_PREP(ORCA_AQ_HDR_OPCODE, opcode));
	hdr->out_len = cpu_to_le32(out_len);
	hdr->out_addr = cpu_to_le64(out_addr);
}

/* One size or offset of a format, and the value the spec gives it. */
struct orca_v1_layout {
	const char *what;
	size_t got;
	size_t want;
};

#define ORCA_V1_SIZE(s, n)	{ "sizeof(" #s ")", sizeof(struct s), n }
#define ORCA_V1_OFF(s, f, n)	{ #s "." #f, offsetof(struct s, f), n }
#define ORCA_V1_LEN(s, f, n)	{ "sizeof(" #s "." #f ")", sizeof_field(struct s, f), n }

static void orca_v1_expect_layout(struct kunit *test,
				  const struct orca_v1_layout *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, l[i].got, l[i].want, "%s is %zu (0x%zx), want 0x%zx",
				    l[i].what, l[i].got, l[i].got, l[i].want);
}

/* One sub-word field of a 32-bit word, and its bit range in the spec. */
struct orca_v1_field {
	const char *name;
	unsigned long mask;
	unsigned long want;
};

#define ORCA_V1_FIELD(m, w)	{ #m, m, w }

/*
 * Each mask is the spec's bit range, no two fields of the word overlap,
 * and together they cover exactly @used (the word's other bits are
 * reserved).
 */
static void orca_v1_expect_fields(struct kunit *test, const char *word,
				  const struct orca_v1_field *f, size_t n,
				  unsigned long used)
{
	unsigned long all = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, f[i].mask, f[i].want, "%s: %s is 0x%08lx, want 0x%08lx",
				    word, f[i].name, f[i].mask, f[i].want);
		for (j = i + 1; j < n; j++)
			KUNIT_EXPECT_EQ_MSG(test, f[i].mask & f[j].mask, 0UL,
					    "%s: %s and %s share bits", word,
					    f[i].name, f[j].name);
		all |= f[i].mask;
	}
	KUNIT_EXPECT_EQ_MSG(test, all, used, "%s: bits covered by its fields", word);
}

/* ---------------------------------------------------------------------
 * Sizes and offsets
 */

/* Every command is 64 bytes: the 16-byte header, then the 48-byte body. */
static const struct orca_v1_layout orca_v1_cmd_layout[] = {
	ORCA_V1_SIZE(orca_cmd_mbox_in, 64),
	ORCA_V1_OFF(orca_cmd_mbox_in, hdr, 0x00),
	ORCA_V1_OFF(orca_cmd_mbox_in, in_addr, 0x10),
	ORCA_V1_OFF(orca_cmd_mbox_in, in_len, 0x18),
	ORCA_V1_OFF(orca_cmd_mbox_in, rsvd, 0x1c),
	ORCA_V1_LEN(orca_cmd_mbox_in, rsvd, 36),

	/* "qpn at body offset 12 (command offset 0x1c)" */
	ORCA_V1_SIZE(orca_cmd_modify_qp, 64),
	ORCA_V1_OFF(orca_cmd_modify_qp, hdr, 0x00),
	ORCA_V1_OFF(orca_cmd_modify_qp, in_addr, 0x10),
	ORCA_V1_OFF(orca_cmd_modify_qp, in_len, 0x18),
	ORCA_V1_OFF(orca_cmd_modify_qp, qpn, 0x1c),
	ORCA_V1_OFF(orca_cmd_modify_qp, rsvd, 0x20),
	ORCA_V1_LEN(orca_cmd_modify_qp, rsvd, 32),

	ORCA_V1_SIZE(orca_cmd_handle, 64),
	ORCA_V1_SIZE(orca_cmd_alloc_mw, 64),
	ORCA_V1_OFF(orca_cmd_alloc_mw, pdn, 0x10),
	ORCA_V1_OFF(orca_cmd_alloc_mw, type, 0x14),
	ORCA_V1_OFF(orca_cmd_alloc_mw, key_variant, 0x18),
	ORCA_V1_OFF(orca_cmd_alloc_mw, rsvd, 0x1c),
	ORCA_V1_SIZE(orca_wqe_bind_mw, 32),
	ORCA_V1_OFF(orca_wqe_bind_mw, addr, 0x00),
	ORCA_V1_OFF(orca_wqe_bind_mw, length, 0x08),
	ORCA_V1_OFF(orca_wqe_bind_mw, mr_key, 0x10),
	ORCA_V1_OFF(orca_wqe_bind_mw, new_key, 0x14),
	ORCA_V1_OFF(orca_wqe_bind_mw, info, 0x18),
	ORCA_V1_OFF(orca_wqe_bind_mw, reserved, 0x1c),
	ORCA_V1_OFF(orca_hw_device_attr, max_mw, 0x88),
	ORCA_V1_OFF(orca_hw_device_attr, clock_khz, 0x8c),
	ORCA_V1_OFF(orca_hw_device_attr, max_xrcd, 0x90),
	ORCA_V1_OFF(orca_hw_device_attr, dm_size, 0x94),
	ORCA_V1_OFF(orca_hw_device_attr, rsvd, 0x98),
	ORCA_V1_LEN(orca_hw_device_attr, rsvd, 104),
	/* Device memory (1.4). */
	ORCA_V1_SIZE(orca_cmd_alloc_dm, 64),
	ORCA_V1_OFF(orca_cmd_alloc_dm, length, 0x10),
	ORCA_V1_OFF(orca_cmd_alloc_dm, log_align, 0x18),
	ORCA_V1_OFF(orca_cmd_alloc_dm, rsvd, 0x1c),
	ORCA_V1_LEN(orca_cmd_alloc_dm, rsvd, 36),
	/* On-demand paging (1.5). */
	ORCA_V1_SIZE(orca_cmd_odp_update, 64),
	ORCA_V1_OFF(orca_cmd_odp_update, key, 0x10),
	ORCA_V1_OFF(orca_cmd_odp_update, op, 0x14),
	ORCA_V1_OFF(orca_cmd_odp_update, page, 0x18),
	ORCA_V1_OFF(orca_cmd_odp_update, count, 0x20),
	ORCA_V1_OFF(orca_cmd_odp_update, epoch, 0x24),
	ORCA_V1_OFF(orca_cmd_odp_update, pbl_addr, 0x28),
	ORCA_V1_OFF(orca_cmd_odp_update, rsvd, 0x30),
	ORCA_V1_LEN(orca_cmd_odp_update, rsvd, 16),
	ORCA_V1_OFF(orca_eqe, aux, 0x08),
	/* XRC (1.4): fields carved from reserved bytes. */
	ORCA_V1_SIZE(orca_cmd_alloc_xrcd, 64),
	ORCA_V1_OFF(orca_send_wqe, xrc_srqn, 0x14),
	ORCA_V1_OFF(orca_send_wqe, reserved, 0x18),
	ORCA_V1_LEN(orca_send_wqe, reserved, 8),
	ORCA_V1_SIZE(orca_cqe_ext, 32),
	ORCA_V1_OFF(orca_cqe_ext, timestamp, 0x00),
	ORCA_V1_OFF(orca_cmd_handle, handle, 0x10),
	ORCA_V1_OFF(orca_cmd_handle, rsvd, 0x14),
	ORCA_V1_LEN(orca_cmd_handle, rsvd, 44),

	/* QUERY_STATS: header only, the whole body reserved. */
	ORCA_V1_SIZE(orca_cmd_query_stats, 64),
	ORCA_V1_OFF(orca_cmd_query_stats, rsvd, 0x10),
	ORCA_V1_LEN(orca_cmd_query_stats, rsvd, 48),

	ORCA_V1_SIZE(orca_cmd_create_eq, 64),
	ORCA_V1_OFF(orca_cmd_create_eq, ring_addr, 0x10),
	ORCA_V1_OFF(orca_cmd_create_eq, cfg, 0x18),
	ORCA_V1_OFF(orca_cmd_create_eq, rsvd, 0x1c),
	ORCA_V1_LEN(orca_cmd_create_eq, rsvd, 36),

	ORCA_V1_SIZE(orca_cmd_create_cq, 64),
	ORCA_V1_OFF(orca_cmd_create_cq, ring_addr, 0x10),
	ORCA_V1_OFF(orca_cmd_create_cq, db_addr, 0x18),
	ORCA_V1_OFF(orca_cmd_create_cq, cfg, 0x20),
	ORCA_V1_OFF(orca_cmd_create_cq, eqn, 0x24),
	ORCA_V1_OFF(orca_cmd_create_cq, rsvd, 0x28),
	ORCA_V1_LEN(orca_cmd_create_cq, rsvd, 24),

	ORCA_V1_SIZE(orca_cmd_resize_cq, 64),
	ORCA_V1_OFF(orca_cmd_resize_cq, ring_addr, 0x10),
	ORCA_V1_OFF(orca_cmd_resize_cq, cqn, 0x18),
	ORCA_V1_OFF(orca_cmd_resize_cq, cfg, 0x1c),
	ORCA_V1_OFF(orca_cmd_resize_cq, db_addr, 0x20),
	ORCA_V1_OFF(orca_cmd_resize_cq, rsvd, 0x28),
	ORCA_V1_LEN(orca_cmd_resize_cq, rsvd, 24),

	/* v1.2: the host-memory address vector replaces CREATE_AH. */
	ORCA_V1_SIZE(orca_av, 32),
	ORCA_V1_OFF(orca_av, dgid, 0x00),
	ORCA_V1_LEN(orca_av, dgid, 16),
	ORCA_V1_OFF(orca_av, info, 0x10),
	ORCA_V1_OFF(orca_av, dmac, 0x14),
	ORCA_V1_LEN(orca_av, dmac, 6),
	ORCA_V1_OFF(orca_av, vlan, 0x1a),
	ORCA_V1_OFF(orca_av, hop_limit, 0x1c),
	ORCA_V1_OFF(orca_av, traffic_class, 0x1d),
	ORCA_V1_OFF(orca_av, reserved, 0x1e),
	ORCA_V1_LEN(orca_av, reserved, 2),
	ORCA_V1_OFF(orca_wqe_ud, reserved0, 0x00),
	ORCA_V1_OFF(orca_wqe_ud, remote_qpn, 0x04),
	ORCA_V1_OFF(orca_wqe_ud, remote_qkey, 0x08),

	ORCA_V1_SIZE(orca_cmd_gid, 64),
	ORCA_V1_OFF(orca_cmd_gid, gid, 0x10),
	ORCA_V1_LEN(orca_cmd_gid, gid, 16),
	ORCA_V1_OFF(orca_cmd_gid, index, 0x20),
	ORCA_V1_OFF(orca_cmd_gid, type, 0x24),
	ORCA_V1_OFF(orca_cmd_gid, mac, 0x28),
	ORCA_V1_LEN(orca_cmd_gid, mac, 6),
	ORCA_V1_OFF(orca_cmd_gid, vlan, 0x2e),
	ORCA_V1_OFF(orca_cmd_gid, rsvd, 0x30),
	ORCA_V1_LEN(orca_cmd_gid, rsvd, 16),

	ORCA_V1_SIZE(orca_cmd_mcast, 64),
	ORCA_V1_OFF(orca_cmd_mcast, gid, 0x10),
	ORCA_V1_LEN(orca_cmd_mcast, gid, 16),
	ORCA_V1_OFF(orca_cmd_mcast, qpn, 0x20),
	ORCA_V1_OFF(orca_cmd_mcast, rsvd, 0x24),
	ORCA_V1_LEN(orca_cmd_mcast, rsvd, 28),

	ORCA_V1_SIZE(orca_cmd_modify_srq, 64),
	ORCA_V1_OFF(orca_cmd_modify_srq, srqn, 0x10),
	ORCA_V1_OFF(orca_cmd_modify_srq, attr_mask, 0x14),
	ORCA_V1_OFF(orca_cmd_modify_srq, max_wr, 0x18),
	ORCA_V1_OFF(orca_cmd_modify_srq, limit, 0x1c),
	ORCA_V1_OFF(orca_cmd_modify_srq, rsvd, 0x20),
	ORCA_V1_LEN(orca_cmd_modify_srq, rsvd, 32),

	/* Every member of the command union starts at the entry. */
	{ "union orca_aq_cmd", sizeof(union orca_aq_cmd), ORCA_AQ_CMD_SIZE },
	{ "orca_aq_cmd.mbox_in", offsetof(union orca_aq_cmd, mbox_in), 0 },
	{ "orca_aq_cmd.modify_qp.qpn", offsetof(union orca_aq_cmd, modify_qp.qpn), 0x1c },
	{ "orca_aq_cmd.handle.handle", offsetof(union orca_aq_cmd, handle.handle), 0x10 },
	{ "orca_aq_cmd.query_stats", offsetof(union orca_aq_cmd, query_stats), 0 },
	{ "orca_aq_cmd.create_eq.cfg", offsetof(union orca_aq_cmd, create_eq.cfg), 0x18 },
	{ "orca_aq_cmd.create_cq.eqn", offsetof(union orca_aq_cmd, create_cq.eqn), 0x24 },
	{ "orca_aq_cmd.resize_cq.db_addr", offsetof(union orca_aq_cmd, resize_cq.db_addr), 0x20 },
	{ "orca_aq_cmd.gid.vlan", offsetof(union orca_aq_cmd, gid.vlan), 0x2e },
	{ "orca_aq_cmd.mcast.qpn", offsetof(union orca_aq_cmd, mcast.qpn), 0x20 },
	{ "orca_aq_cmd.modify_srq.limit", offsetof(union orca_aq_cmd, modify_srq.limit), 0x1c },
};

static void orca_hw_v1_test_cmd_layout(struct kunit *test)
{
	orca_v1_expect_layout(test, orca_v1_cmd_layout, ARRAY_SIZE(orca_v1_cmd_layout));
}

static const struct orca_v1_layout orca_v1_mbox_layout[] = {
	/* REG_MR input, 64 bytes. */
	ORCA_V1_SIZE(orca_hw_reg_mr, 64),
	{ "ORCA_HW_REG_MR_SIZE", ORCA_HW_REG_MR_SIZE, 64 },
	ORCA_V1_OFF(orca_hw_reg_mr, iova, 0x00),
	ORCA_V1_OFF(orca_hw_reg_mr, length, 0x08),
	ORCA_V1_OFF(orca_hw_reg_mr, pbl_addr, 0x10),
	ORCA_V1_OFF(orca_hw_reg_mr, pdn, 0x18),
	ORCA_V1_OFF(orca_hw_reg_mr, access, 0x1c),
	ORCA_V1_OFF(orca_hw_reg_mr, num_pages, 0x20),
	ORCA_V1_OFF(orca_hw_reg_mr, flags, 0x24),
	ORCA_V1_OFF(orca_hw_reg_mr, key_variant, 0x28),
	ORCA_V1_OFF(orca_hw_reg_mr, rsvd, 0x2c),
	ORCA_V1_LEN(orca_hw_reg_mr, rsvd, 20),

	/* CREATE_QP input, 96 bytes. */
	ORCA_V1_SIZE(orca_hw_create_qp, 96),
	{ "ORCA_HW_CREATE_QP_SIZE", ORCA_HW_CREATE_QP_SIZE, 96 },
	ORCA_V1_OFF(orca_hw_create_qp, info, 0x00),
	ORCA_V1_OFF(orca_hw_create_qp, pdn, 0x04),
	ORCA_V1_OFF(orca_hw_create_qp, send_cqn, 0x08),
	ORCA_V1_OFF(orca_hw_create_qp, recv_cqn, 0x0c),
	ORCA_V1_OFF(orca_hw_create_qp, srqn, 0x10),
	ORCA_V1_OFF(orca_hw_create_qp, sq_cfg, 0x14),
	ORCA_V1_OFF(orca_hw_create_qp, rq_cfg, 0x18),
	ORCA_V1_OFF(orca_hw_create_qp, max_inline, 0x1c),
	ORCA_V1_OFF(orca_hw_create_qp, sq_addr, 0x20),
	ORCA_V1_OFF(orca_hw_create_qp, rq_addr, 0x28),
	ORCA_V1_OFF(orca_hw_create_qp, sq_db_addr, 0x30),
	ORCA_V1_OFF(orca_hw_create_qp, rq_db_addr, 0x38),
	ORCA_V1_OFF(orca_hw_create_qp, xrcdn, 0x40),
	ORCA_V1_OFF(orca_hw_create_qp, rsvd, 0x44),
	ORCA_V1_LEN(orca_hw_create_qp, rsvd, 28),

	/* MODIFY_QP input and QUERY_QP output, 128 bytes. */
	ORCA_V1_SIZE(orca_hw_qp_attr, 128),
	{ "ORCA_HW_QP_ATTR_SIZE", ORCA_HW_QP_ATTR_SIZE, 128 },
	ORCA_V1_OFF(orca_hw_qp_attr, attr_mask, 0x00),
	ORCA_V1_OFF(orca_hw_qp_attr, qp_state, 0x04),
	ORCA_V1_OFF(orca_hw_qp_attr, cur_qp_state, 0x05),
	ORCA_V1_OFF(orca_hw_qp_attr, path_mtu, 0x06),
	ORCA_V1_OFF(orca_hw_qp_attr, path_mig_state, 0x07),
	ORCA_V1_OFF(orca_hw_qp_attr, qkey, 0x08),
	ORCA_V1_OFF(orca_hw_qp_attr, rq_psn, 0x0c),
	ORCA_V1_OFF(orca_hw_qp_attr, sq_psn, 0x10),
	ORCA_V1_OFF(orca_hw_qp_attr, dest_qpn, 0x14),
	ORCA_V1_OFF(orca_hw_qp_attr, access, 0x18),
	ORCA_V1_OFF(orca_hw_qp_attr, pkey_index, 0x1c),
	ORCA_V1_OFF(orca_hw_qp_attr, port, 0x1e),
	ORCA_V1_OFF(orca_hw_qp_attr, en_sqd_async, 0x1f),
	ORCA_V1_OFF(orca_hw_qp_attr, max_rd_atomic, 0x20),
	ORCA_V1_OFF(orca_hw_qp_attr, max_dest_rd_atomic, 0x21),
	ORCA_V1_OFF(orca_hw_qp_attr, min_rnr_timer, 0x22),
	ORCA_V1_OFF(orca_hw_qp_attr, timeout, 0x23),
	ORCA_V1_OFF(orca_hw_qp_attr, retry_cnt, 0x24),
	ORCA_V1_OFF(orca_hw_qp_attr, rnr_retry, 0x25),
	ORCA_V1_OFF(orca_hw_qp_attr, sq_draining, 0x26),
	ORCA_V1_OFF(orca_hw_qp_attr, rsvd0, 0x27),
	ORCA_V1_OFF(orca_hw_qp_attr, dgid, 0x28),
	ORCA_V1_LEN(orca_hw_qp_attr, dgid, 16),
	ORCA_V1_OFF(orca_hw_qp_attr, av_info, 0x38),
	ORCA_V1_OFF(orca_hw_qp_attr, hop_limit, 0x3c),
	ORCA_V1_OFF(orca_hw_qp_attr, traffic_class, 0x3d),
	ORCA_V1_OFF(orca_hw_qp_attr, dmac, 0x3e),
	ORCA_V1_LEN(orca_hw_qp_attr, dmac, 6),
	ORCA_V1_OFF(orca_hw_qp_attr, vlan, 0x44),
	ORCA_V1_OFF(orca_hw_qp_attr, rsvd1, 0x46),
	ORCA_V1_LEN(orca_hw_qp_attr, rsvd1, 6),
	ORCA_V1_OFF(orca_hw_qp_attr, max_send_wr, 0x4c),
	ORCA_V1_OFF(orca_hw_qp_attr, max_recv_wr, 0x50),
	ORCA_V1_OFF(orca_hw_qp_attr, max_send_sge, 0x54),
	ORCA_V1_OFF(orca_hw_qp_attr, max_recv_sge, 0x58),
	ORCA_V1_OFF(orca_hw_qp_attr, max_inline, 0x5c),
	ORCA_V1_OFF(orca_hw_qp_attr, rsvd2, 0x60),
	ORCA_V1_LEN(orca_hw_qp_attr, rsvd2, 32),

	/* CREATE_SRQ input and QUERY_SRQ output, 64 bytes. */
	ORCA_V1_SIZE(orca_hw_srq, 64),
	{ "ORCA_HW_SRQ_SIZE", ORCA_HW_SRQ_SIZE, 64 },
	ORCA_V1_OFF(orca_hw_srq, pdn, 0x00),
	ORCA_V1_OFF(orca_hw_srq, cfg, 0x04),
	ORCA_V1_OFF(orca_hw_srq, limit, 0x08),
	ORCA_V1_OFF(orca_hw_srq, max_wr, 0x0c),
	ORCA_V1_OFF(orca_hw_srq, ring_addr, 0x10),
	ORCA_V1_OFF(orca_hw_srq, db_addr, 0x18),
	ORCA_V1_OFF(orca_hw_srq, info, 0x20),
	ORCA_V1_OFF(orca_hw_srq, xrcdn, 0x24),
	ORCA_V1_OFF(orca_hw_srq, cqn, 0x28),
	ORCA_V1_OFF(orca_hw_srq, rsvd, 0x2c),
	ORCA_V1_LEN(orca_hw_srq, rsvd, 20),

	/* QUERY_STATS output, 256 bytes of 64-bit counters. */
	ORCA_V1_SIZE(orca_hw_stats, 256),
	{ "ORCA_HW_STATS_SIZE", ORCA_HW_STATS_SIZE, 256 },
	ORCA_V1_OFF(orca_hw_stats, cmds_completed, 0x00),
	ORCA_V1_OFF(orca_hw_stats, cmds_failed, 0x08),
	ORCA_V1_OFF(orca_hw_stats, async_events, 0x10),
	ORCA_V1_OFF(orca_hw_stats, async_events_dropped, 0x18),
	ORCA_V1_OFF(orca_hw_stats, pds, 0x20),
	ORCA_V1_OFF(orca_hw_stats, mrs, 0x28),
	ORCA_V1_OFF(orca_hw_stats, cqs, 0x30),
	ORCA_V1_OFF(orca_hw_stats, qps, 0x38),
	ORCA_V1_OFF(orca_hw_stats, srqs, 0x40),
	ORCA_V1_OFF(orca_hw_stats, ahs, 0x48),
	ORCA_V1_OFF(orca_hw_stats, tx_packets, 0x50),
	ORCA_V1_OFF(orca_hw_stats, tx_bytes, 0x58),
	ORCA_V1_OFF(orca_hw_stats, rx_packets, 0x60),
	ORCA_V1_OFF(orca_hw_stats, rx_bytes, 0x68),
	ORCA_V1_OFF(orca_hw_stats, rx_drops, 0x70),
	ORCA_V1_OFF(orca_hw_stats, rx_icrc_errors, 0x78),
	ORCA_V1_OFF(orca_hw_stats, tx_drops, 0x80),
	ORCA_V1_OFF(orca_hw_stats, retransmits, 0x88),
	ORCA_V1_OFF(orca_hw_stats, ack_timeouts, 0x90),
	ORCA_V1_OFF(orca_hw_stats, rnr_naks_sent, 0x98),
	ORCA_V1_OFF(orca_hw_stats, rnr_naks_rcvd, 0xa0),
	ORCA_V1_OFF(orca_hw_stats, seq_naks_sent, 0xa8),
	ORCA_V1_OFF(orca_hw_stats, seq_naks_rcvd, 0xb0),
	ORCA_V1_OFF(orca_hw_stats, inv_req_naks_sent, 0xb8),
	ORCA_V1_OFF(orca_hw_stats, inv_req_naks_rcvd, 0xc0),
	ORCA_V1_OFF(orca_hw_stats, access_naks_sent, 0xc8),
	ORCA_V1_OFF(orca_hw_stats, access_naks_rcvd, 0xd0),
	ORCA_V1_OFF(orca_hw_stats, op_naks_sent, 0xd8),
	ORCA_V1_OFF(orca_hw_stats, op_naks_rcvd, 0xe0),
	ORCA_V1_OFF(orca_hw_stats, duplicates, 0xe8),
	ORCA_V1_OFF(orca_hw_stats, out_of_sequence, 0xf0),
	ORCA_V1_OFF(orca_hw_stats, ud_drops, 0xf8),
};

static void orca_hw_v1_test_mbox_layout(struct kunit *test)
{
	orca_v1_expect_layout(test, orca_v1_mbox_layout, ARRAY_SIZE(orca_v1_mbox_layout));
}

/* Opcodes from the spec's table; type and state numbers from its text. */
static void orca_hw_v1_test_abi_values(struct kunit *test)
{
	static const struct {
		const char *name;
		unsigned int got;
		unsigned int want;
	} v[] = {
		{ "QUERY_STATS", ORCA_CMD_QUERY_STATS, 0x03 },
		{ "CREATE_EQ", ORCA_CMD_CREATE_EQ, 0x04 },
		{ "DESTROY_EQ", ORCA_CMD_DESTROY_EQ, 0x05 },
		{ "REG_MR", ORCA_CMD_REG_MR, 0x12 },
		{ "DEREG_MR", ORCA_CMD_DEREG_MR, 0x13 },
		{ "ALLOC_MW", ORCA_CMD_ALLOC_MW, 0x14 },
		{ "DEALLOC_MW", ORCA_CMD_DEALLOC_MW, 0x15 },
		{ "MW_TYPE_1", ORCA_MW_TYPE_1, 1 },
		{ "MW_TYPE_2", ORCA_MW_TYPE_2, 2 },
		{ "DEV_CAP_MW", ORCA_HW_DEV_CAP_MW, 0x100 },
		{ "DEV_CAP_TIMESTAMP", ORCA_HW_DEV_CAP_TIMESTAMP, 0x200 },
		{ "DEV_CAP_ODP", ORCA_HW_DEV_CAP_ODP, 0x1000 },
		{ "DEV_CAP_ODP_IMPLICIT", ORCA_HW_DEV_CAP_ODP_IMPLICIT, 0x2000 },
		{ "DEV_CAP_RING_PBL", ORCA_HW_DEV_CAP_RING_PBL, 0x4000 },
		{ "DEV_CAP_ODP_EPOCH", ORCA_HW_DEV_CAP_ODP_EPOCH, 0x8000 },
		{ "ODP_FAIL", ORCA_ODP_FAIL, 3 },
		{ "ODP_FAIL_FAULT", ORCA_ODP_FAIL_FAULT, 4 },
		{ "EQE_ODP_EPOCH", ORCA_EQE_ODP_EPOCH, 0x00ffff00 },
		{ "ODP_EPOCH", ORCA_ODP_EPOCH, 0xffff },
		{ "RING_PAGE_SIZE", ORCA_RING_PAGE_SIZE, 4096 },
		{ "CQ_CFG_CQE64", ORCA_CQ_CFG_CQE64, 0x100 },
		{ "CQE64_SIZE", ORCA_CQE64_SIZE, 64 },
		{ "WQE_OP_BIND_MW", ORCA_WQE_OP_BIND_MW, 10 },
		{ "CQE_OP_BIND_MW", ORCA_CQE_OP_BIND_MW, 0x07 },
		{ "WQE_BIND_ACCESS", ORCA_WQE_BIND_ACCESS, 0xff },
		{ "WQE_BIND_ZERO_BASED", ORCA_WQE_BIND_ZERO_BASED, 0x100 },
		{ "CREATE_CQ", ORCA_CMD_CREATE_CQ, 0x20 },
		{ "RESIZE_CQ", ORCA_CMD_RESIZE_CQ, 0x21 },
		{ "DESTROY_CQ", ORCA_CMD_DESTROY_CQ, 0x22 },
		{ "CREATE_QP", ORCA_CMD_CREATE_QP, 0x30 },
		{ "MODIFY_QP", ORCA_CMD_MODIFY_QP, 0x31 },
		{ "QUERY_QP", ORCA_CMD_QUERY_QP, 0x32 },
		{ "DESTROY_QP", ORCA_CMD_DESTROY_QP, 0x33 },
		{ "CREATE_SRQ", ORCA_CMD_CREATE_SRQ, 0x38 },
		{ "MODIFY_SRQ", ORCA_CMD_MODIFY_SRQ, 0x39 },
		{ "QUERY_SRQ", ORCA_CMD_QUERY_SRQ, 0x3a },
		{ "DESTROY_SRQ", ORCA_CMD_DESTROY_SRQ, 0x3b },
		{ "UD_SEND_WQE_HDR_SIZE", ORCA_UD_SEND_WQE_HDR_SIZE, 96 },
		{ "AV_SIZE", ORCA_AV_SIZE, 32 },
		{ "ADD_GID", ORCA_CMD_ADD_GID, 0x48 },
		{ "DEL_GID", ORCA_CMD_DEL_GID, 0x49 },
		{ "ATTACH_MCAST", ORCA_CMD_ATTACH_MCAST, 0x50 },
		{ "DETACH_MCAST", ORCA_CMD_DETACH_MCAST, 0x51 },
		{ "GID_ROCE_V2_IPV4", ORCA_GID_ROCE_V2_IPV4, 1 },
		{ "GID_ROCE_V2_IPV6", ORCA_GID_ROCE_V2_IPV6, 2 },
		{ "QPT_GSI", ORCA_QPT_GSI, 1 },
		{ "QPT_RC", ORCA_QPT_RC, 2 },
		{ "QPT_UC", ORCA_QPT_UC, 3 },
		{ "QPT_UD", ORCA_QPT_UD, 4 },
		{ "QPS_RESET", ORCA_QPS_RESET, 0 },
		{ "QPS_ERR", ORCA_QPS_ERR, 6 },
		{ "AH_VLAN_NONE", ORCA_AH_VLAN_NONE, 0xffff },
		{ "EQE_QP_SQ_DRAINED", ORCA_EQE_QP_SQ_DRAINED, 0x14 },
		/* Not numbered by the spec: the v1.0 values. */
		{ "SRQ_ATTR_MAX_WR", ORCA_SRQ_ATTR_MAX_WR, 0x1 },
		{ "SRQ_ATTR_LIMIT", ORCA_SRQ_ATTR_LIMIT, 0x2 },
		{ "ACCESS_LOCAL_WRITE", ORCA_ACCESS_LOCAL_WRITE, 0x1 },
		{ "ACCESS_REMOTE_WRITE", ORCA_ACCESS_REMOTE_WRITE, 0x2 },
		{ "ACCESS_REMOTE_READ", ORCA_ACCESS_REMOTE_READ, 0x4 },
		{ "ACCESS_REMOTE_ATOMIC", ORCA_ACCESS_REMOTE_ATOMIC, 0x8 },
		{ "ACCESS_ALL", ORCA_ACCESS_ALL, 0xf },
		{ "ACCESS_MW_BIND", ORCA_ACCESS_MW_BIND, 0x10 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		KUNIT_EXPECT_EQ_MSG(test, v[i].got, v[i].want, "%s is 0x%x, want 0x%x",
				    v[i].name, v[i].got, v[i].want);

	/* An implicit ODP region has 2^52 pages of 4 KiB: 2^64 bytes. */
	KUNIT_EXPECT_EQ(test, ORCA_ODP_IMPLICIT_PAGES, 0x0010000000000000ULL);
	KUNIT_EXPECT_EQ(test, (ORCA_ODP_IMPLICIT_PAGES - 1) * 4096 + 4095, ~0ULL);
	/* Its last page fits ODP_FAULT's PAGE [51:0]. */
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQE_ODP_PAGE, ORCA_ODP_IMPLICIT_PAGES - 1),
			ORCA_ODP_IMPLICIT_PAGES - 1);
	/* ODP_FAULT's epoch sits between TYPE [7:0] and PHASE [31] (1.8). */
	KUNIT_EXPECT_EQ(test, ORCA_EQE_ODP_EPOCH &
			(ORCA_EQE_TYPE | ORCA_EQE_PHASE), 0U);

	/*
	 * Paged rings: a table page holds 512 page addresses, so level 1
	 * covers 2 MiB; the largest SQ (2^14 WQEs of 1024 bytes, 16 MiB) is
	 * 4096 pages, 8 table pages at level 2.
	 */
	KUNIT_EXPECT_EQ(test, ORCA_RING_PAGE_SIZE / sizeof(__le64), 512UL);
	KUNIT_EXPECT_EQ(test, (1UL << 24) / ORCA_RING_PAGE_SIZE, 4096UL);
}

/* ---------------------------------------------------------------------
 * Command encodings
 */

/* REG_MR names its 64-byte input mailbox. */
static void orca_hw_v1_test_cmd_mbox_in(struct kunit *test)
{
	static const u8 want[ORCA_AQ_CMD_SIZE] = {
		0x12, 0x00, 0x0b, 0x0a,		/* REG_MR, cmd id 0x0a0b */
		0x00, 0x00, 0x00, 0x00,		/* no output mailbox */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x80, 0x67, 0x45, 0x23, 0x01, 0x00, 0x00, 0x00,	/* in_addr */
		0x40, 0x00, 0x00, 0x00,		/* in_len 64 */
	};
	union orca_aq_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	orca_v1_hdr(&cmd.hdr, ORCA_CMD_REG_MR, 0x0a0b, 0, 0);
	cmd.mbox_in.in_addr = cpu_to_le64(0x0000000123456780ULL);
	cmd.mbox_in.in_len = cpu_to_le32(sizeof(struct orca_hw_reg_mr));
	orca_v1_expect_bytes(test, cmd.raw, want, sizeof(want), "REG_MR command");
}

static void orca_hw_v1_test_cmd_modify_qp(struct kunit *test)
{
	static const u8 want[ORCA_AQ_CMD_SIZE] = {
		0x31, 0x00, 0x57, 0x13,		/* MODIFY_QP, cmd id 0x1357 */
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0xce, 0x8a, 0x46, 0x02, 0x00, 0x00, 0x00,	/* in_addr */
		0x80, 0x00, 0x00, 0x00,		/* in_len 128 */
		0xef, 0xcd, 0xab, 0x00,		/* qpn 0xabcdef */
	};
	union orca_aq_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	orca_v1_hdr(&cmd.hdr, ORCA_CMD_MODIFY_QP, 0x1357, 0, 0);
	cmd.modify_qp.in_addr = cpu_to_le64(0x00000002468ace00ULL);
	cmd.modify_qp.in_len = cpu_to_le32(sizeof(struct orca_hw_qp_attr));
	cmd.modify_qp.qpn = cpu_to_le32(0xabcdef);
	orca_v1_expect_bytes(test, cmd.raw, want, sizeof(want), "MODIFY_QP command");
}

/* DEREG_MR of a key, and QUERY_QP of the GSI QP with its output mailbox. */
static void orca_hw_v1_test_cmd_handle(struct kunit *test)
{
	static const u8 want_dereg[ORCA_AQ_CMD_SIZE] = {
		0x13, 0x00, 0xff, 0x00,		/* DEREG_MR, cmd id 0x00ff */
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xa7, 0x45, 0x23, 0x01,		/* key: index 0x12345, variant 0xa7 */
	};
	static const u8 want_query[ORCA_AQ_CMD_SIZE] = {
		0x32, 0x00, 0x68, 0x24,		/* QUERY_QP, cmd id 0x2468 */
		0x80, 0x00, 0x00, 0x00,		/* out_len 128 */
		0x00, 0x01, 0xdc, 0xfe, 0x01, 0x00, 0x00, 0x00,	/* out_addr */
		0x01, 0x00, 0x00, 0x00,		/* qpn 1 */
	};
	union orca_aq_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	orca_v1_hdr(&cmd.hdr, ORCA_CMD_DEREG_MR, 0x00ff, 0, 0);
	cmd.handle.handle = cpu_to_le32(FIELD_PREP(ORCA_MR_KEY_INDEX, 0x012345) |
					FIELD_PREP(ORCA_MR_KEY_VARIANT, 0xa7));
	orca_v1_expect_bytes(test, cmd.raw, want_dereg, sizeof(want_dereg), "DEREG_MR command");

	memset(&cmd, 0, sizeof(cmd));
	orca_v1_hdr(&cmd.hdr, ORCA_CMD_QUERY_QP, 0x2468,
		    sizeof(struct orca_hw_qp_attr), 0x00000001fedc0100ULL);
	cmd.handle.handle = cpu_to_le32(1);
	orca_v1_expect_bytes(test, cmd.raw, want_query, sizeof(want_query), "QUERY_QP command");
}

static void orca_hw_v1_test_cmd_query_stats(struct kunit *test)
{
	static const u8 want[ORCA_AQ_CMD_SIZE] = {
		0x03, 0x00, 0xfe, 0xff,		/* QUERY_STATS, cmd id 0xfffe */
		0x00, 0x01, 0x00, 0x00,		/* out_len 256 */
		0x00, 0xb0, 0xdc, 0xfe, 0xff, 0x00, 0x00, 0x00,	/* out_addr */
	};
	union orca_aq_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	orca_v1_hdr(&cmd.query_stats.hdr, ORCA_CMD_QUERY_STATS, 0xfffe,
		    sizeof(struct orca_hw_stats), 0x000000fffedcb000ULL);
	orca_v1_expect_bytes(test, cmd.raw, want, sizeof(want), "QUERY_STATS command");
}

static void orca_hw_v1_test_cmd_create_eq(struct kunit *test)
{
	static const u8 want[ORCA_AQ_CMD_SIZE] = {
		0x04, 0x00, 0x04, 0x00,		/* CREATE_EQ, cmd id 4 */
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x40, 0xee, 0xff, 0xc0, 0x03, 0x00, 0x00, 0x00,	/* ring_addr */
		0x0c, 0x03, 0x00, 0x00,		/* 2^12 entries, vector 3 */
	};
	union orca_aq_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	orca_v1_hdr(&cmd.hdr, ORCA_CMD_CREATE_EQ, 4, 0, 0);
	cmd.create_eq.ring_addr = cpu_to_le64(0x00000003c0ffee40ULL);
	cmd.create_eq.cfg = cpu_to_le32(FIELD_PREP(ORCA_EQ_CFG_LOG2_DEPTH, 12) |
					FIELD_PREP(ORCA_EQ_CFG_VECTOR, 3));
	orca_v1_expect_bytes(test, cmd.raw, want, sizeof(want), "CREATE_EQ command");
}

static void orca_hw_v1_test_cmd_create_cq(struct kunit *test)
{
	static const u8 want[ORCA_AQ_CMD_SIZE] = {
		0x20, 0x00, 0x0d, 0x0c,		/* CREATE_CQ, cmd id 0x0c0d */
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0xf0, 0xde, 0xbc, 0x0a, 0x00, 0x00, 0x00,	/* ring_addr */
		0xc0, 0x0f, 0xde, 0xbc, 0x0a, 0x00, 0x00, 0x00,	/* db_addr */
		0x10, 0x00, 0x00, 0x00,		/* 2^16 entries */
		0x2a, 0x00, 0x00, 0x00,		/* eqn 42 */
	};
	union orca_aq_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	orca_v1_hdr(&cmd.hdr, ORCA_CMD_CREATE_CQ, 0x0c0d, 0, 0);
	cmd.create_cq.ring_addr = cpu_to_le64(0x0000000abcdef000ULL);
	cmd.create_cq.db_addr = cpu_to_le64(0x0000000abcde0fc0ULL);
	cmd.create_cq.cfg = cpu_to_le32(FIELD_PREP(ORCA_CQ_CFG_LOG2_DEPTH, 16));
	cmd.create_cq.eqn = cpu_to_le32(42);
	orca_v1_expect_bytes(test, cmd.raw, want, sizeof(want), "CREATE_CQ command");
}

static void orca_hw_v1_test_cmd_resize_cq(struct kunit *test)
{
	static const u8 want[ORCA_AQ_CMD_SIZE] = {
		0x21, 0x00, 0x21, 0x43,		/* RESIZE_CQ, cmd id 0x4321 */
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x77, 0x77, 0x77, 0x07, 0x00, 0x00, 0x00,	/* ring_addr */
		0xff, 0x0f, 0x00, 0x00,		/* cqn 0xfff */
		0x0b, 0x00, 0x00, 0x00,		/* 2^11 entries */
		0x40, 0x88, 0x88, 0x88, 0x07, 0x00, 0x00, 0x00,	/* db_addr */
	};
	union orca_aq_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	orca_v1_hdr(&cmd.hdr, ORCA_CMD_RESIZE_CQ, 0x4321, 0, 0);
	cmd.resize_cq.ring_addr = cpu_to_le64(0x0000000777777700ULL);
	cmd.resize_cq.cqn = cpu_to_le32(0xfff);
	cmd.resize_cq.cfg = cpu_to_le32(FIELD_PREP(ORCA_CQ_CFG_LOG2_DEPTH, 11));
	cmd.resize_cq.db_addr = cpu_to_le64(0x0000000788888840ULL);
	orca_v1_expect_bytes(test, cmd.raw, want, sizeof(want), "RESIZE_CQ command");
}

/* v1.2: a UD send WQE with its address vector, byte for byte. */
static void orca_hw_v1_test_ud_wqe_av(struct kunit *test)
{
	/* fe80::211:22ff:fe33:4455, in network byte order */
	static const u8 dgid[16] = {
		0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55,
	};
	static const u8 dmac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	static const u8 want[ORCA_UD_SEND_WQE_HDR_SIZE + 16] = {
		0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* wr_id 7 */
		0x00, 0x01, 0x01, 0x00,		/* SEND, SIGNALED, 1 SGE */
		0x00, 0x00, 0x00, 0x00,		/* imm_inv */
		0x00, 0x00, 0x00, 0x00,		/* inline_len */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00,		/* reserved[3] */
		0x00, 0x00, 0x00, 0x00,		/* ud.reserved0 */
		0x56, 0x34, 0x12, 0x00,		/* ud.remote_qpn */
		0x11, 0x11, 0x11, 0x11,		/* ud.remote_qkey */
		0x00, 0x00, 0x00, 0x00,		/* ud.reserved */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		/* 0x40: the address vector */
		0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* dgid */
		0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55,
		0xde, 0xbc, 0xfa, 0x97,		/* SL 9, SGID 0x7f, flow 0xabcde */
		0x02, 0x11, 0x22, 0x33, 0x44, 0x55,	/* dmac */
		0x23, 0x01,			/* vlan 0x123 */
		0x40, 0x2e,			/* hop limit 64, traffic class 0x2e */
		0x00, 0x00,			/* reserved */
		/* 0x60: the first SGE */
		0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* addr 0x1000 */
		0x00, 0x01, 0x00, 0x00,		/* length 256 */
		0x33, 0x22, 0x00, 0x00,		/* lkey 0x2233 */
	};
	u8 buf[sizeof(want)];
	struct orca_send_wqe *wqe = (void *)buf;
	struct orca_av *av = (void *)(buf + ORCA_SEND_WQE_HDR_SIZE);
	struct orca_sge *sge = (void *)(buf + ORCA_UD_SEND_WQE_HDR_SIZE);

	memset(buf, 0, sizeof(buf));
	wqe->wr_id = cpu_to_le64(7);
	wqe->ctrl = cpu_to_le32(ORCA_WQE_OP_SEND |
				(ORCA_WQE_FLAG_SIGNALED <<
				 ORCA_WQE_CTRL_FLAGS_SHIFT) |
				(1 << ORCA_WQE_CTRL_NUM_SGE_SHIFT));
	wqe->seg.ud.remote_qpn = cpu_to_le32(0x123456);
	wqe->seg.ud.remote_qkey = cpu_to_le32(0x11111111);
	memcpy(av->dgid, dgid, sizeof(dgid));
	av->info = cpu_to_le32(FIELD_PREP(ORCA_AH_FLOW_LABEL, 0xabcde) |
			       FIELD_PREP(ORCA_AH_SGID_INDEX, 0x7f) |
			       FIELD_PREP(ORCA_AH_SL, 9));
	memcpy(av->dmac, dmac, sizeof(dmac));
	av->vlan = cpu_to_le16(0x123);
	av->hop_limit = 64;
	av->traffic_class = 0x2e;
	sge->addr = cpu_to_le64(0x1000);
	sge->length = cpu_to_le32(256);
	sge->lkey = cpu_to_le32(0x2233);
	orca_v1_expect_bytes(test, buf, want, sizeof(want), "UD WQE with AV");
}

static void orca_hw_v1_test_cmd_gid(struct kunit *test)
{
	/* ::ffff:192.168.1.10 */
	static const u8 gid[16] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0xff, 0xff, 0xc0, 0xa8, 0x01, 0x0a,
	};
	static const u8 mac[6] = { 0x52, 0x54, 0x00, 0xab, 0xcd, 0xef };
	static const u8 want[ORCA_AQ_CMD_SIZE] = {
		0x48, 0x00, 0x7e, 0x7e,		/* ADD_GID, cmd id 0x7e7e */
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* gid */
		0x00, 0x00, 0xff, 0xff, 0xc0, 0xa8, 0x01, 0x0a,
		0x7f, 0x00, 0x00, 0x00,		/* index 127 */
		0x01, 0x00, 0x00, 0x00,		/* ROCE_V2_IPV4 */
		0x52, 0x54, 0x00, 0xab, 0xcd, 0xef,	/* mac */
		0xff, 0xff,			/* untagged */
	};
	union orca_aq_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	orca_v1_hdr(&cmd.hdr, ORCA_CMD_ADD_GID, 0x7e7e, 0, 0);
	memcpy(cmd.gid.gid, gid, sizeof(gid));
	cmd.gid.index = cpu_to_le32(127);
	cmd.gid.type = cpu_to_le32(ORCA_GID_ROCE_V2_IPV4);
	memcpy(cmd.gid.mac, mac, sizeof(mac));
	cmd.gid.vlan = cpu_to_le16(ORCA_AH_VLAN_NONE);
	orca_v1_expect_bytes(test, cmd.raw, want, sizeof(want), "ADD_GID command");
}

static void orca_hw_v1_test_cmd_mcast(struct kunit *test)
{
	/* ff0e::db8:1 */
	static const u8 gid[16] = {
		0xff, 0x0e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x0d, 0xb8, 0x00, 0x01,
	};
	static const u8 want[ORCA_AQ_CMD_SIZE] = {
		0x50, 0x00, 0x50, 0x01,		/* ATTACH_MCAST, cmd id 0x0150 */
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xff, 0x0e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* gid */
		0x00, 0x00, 0x00, 0x00, 0x0d, 0xb8, 0x00, 0x01,
		0xba, 0xdc, 0xfe, 0x00,		/* qpn 0xfedcba */
	};
	union orca_aq_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	orca_v1_hdr(&cmd.hdr, ORCA_CMD_ATTACH_MCAST, 0x0150, 0, 0);
	memcpy(cmd.mcast.gid, gid, sizeof(gid));
	cmd.mcast.qpn = cpu_to_le32(0xfedcba);
	orca_v1_expect_bytes(test, cmd.raw, want, sizeof(want), "ATTACH_MCAST command");
}

static void orca_hw_v1_test_cmd_modify_srq(struct kunit *test)
{
	static const u8 want[ORCA_AQ_CMD_SIZE] = {
		0x39, 0x00, 0x39, 0x93,		/* MODIFY_SRQ, cmd id 0x9339 */
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xff, 0x03, 0x00, 0x00,		/* srqn 0x3ff */
		0x02, 0x00, 0x00, 0x00,		/* attr_mask LIMIT */
		0x00, 0x40, 0x00, 0x00,		/* max_wr 0x4000 */
		0x34, 0x12, 0x00, 0x00,		/* limit 0x1234 */
	};
	union orca_aq_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	orca_v1_hdr(&cmd.hdr, ORCA_CMD_MODIFY_SRQ, 0x9339, 0, 0);
	cmd.modify_srq.srqn = cpu_to_le32(0x3ff);
	cmd.modify_srq.attr_mask = cpu_to_le32(ORCA_SRQ_ATTR_LIMIT);
	cmd.modify_srq.max_wr = cpu_to_le32(0x4000);
	cmd.modify_srq.limit = cpu_to_le32(0x1234);
	orca_v1_expect_bytes(test, cmd.raw, want, sizeof(want), "MODIFY_SRQ command");
}

/* ---------------------------------------------------------------------
 * Mailbox encodings
 */

static void orca_hw_v1_test_reg_mr(struct kunit *test)
{
	static const u8 want[ORCA_HW_REG_MR_SIZE] = {
		0x90, 0x78, 0x56, 0x34, 0x12, 0x7f, 0x00, 0x00,	/* iova */
		0x00, 0x10, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00,	/* length */
		0x00, 0xe0, 0xfe, 0x0f, 0x0c, 0x00, 0x00, 0x00,	/* pbl_addr */
		0x34, 0x12, 0x00, 0x00,		/* pdn */
		0x0d, 0x00, 0x00, 0x00,		/* LOCAL_WRITE, REMOTE_READ, _ATOMIC */
		0x01, 0x01, 0x00, 0x00,		/* num_pages 257 */
		0x15, 0x02, 0x00, 0x00,		/* 2 MiB pages, PBL level 2 */
		0xa7, 0x00, 0x00, 0x00,		/* key_variant */
	};
	/* The flags word of a fast-register and of a physical region. */
	static const u8 want_fast_reg[4] = { 0x0c, 0x00, 0x02, 0x00 };
	static const u8 want_physical[4] = { 0x00, 0x00, 0x01, 0x00 };
	struct orca_hw_reg_mr mr;

	memset(&mr, 0, sizeof(mr));
	mr.iova = cpu_to_le64(0x00007f1234567890ULL);
	mr.length = cpu_to_le64(0x201000);
	mr.pbl_addr = cpu_to_le64(0x0000000c0ffee000ULL);
	mr.pdn = cpu_to_le32(0x1234);
	mr.access = cpu_to_le32(ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_READ |
				ORCA_ACCESS_REMOTE_ATOMIC);
	mr.num_pages = cpu_to_le32(257);
	mr.flags = cpu_to_le32(FIELD_PREP(ORCA_MR_PAGE_SHIFT, 21) |
			       FIELD_PREP(ORCA_MR_PBL_LEVELS, 2));
	mr.key_variant = cpu_to_le32(0xa7);
	orca_v1_expect_bytes(test, &mr, want, sizeof(want), "REG_MR mailbox");

	mr.flags = cpu_to_le32(FIELD_PREP(ORCA_MR_PAGE_SHIFT, 12) | ORCA_MR_FLAG_FAST_REG);
	orca_v1_expect_bytes(test, &mr.flags, want_fast_reg, sizeof(want_fast_reg),
			     "REG_MR flags, FAST_REG");
	mr.flags = cpu_to_le32(ORCA_MR_FLAG_PHYSICAL);
	orca_v1_expect_bytes(test, &mr.flags, want_physical, sizeof(want_physical),
			     "REG_MR flags, PHYSICAL");
}

static void orca_hw_v1_test_create_qp(struct kunit *test)
{
	static const u8 want[ORCA_HW_CREATE_QP_SIZE] = {
		0x02, 0x03, 0x00, 0x00,		/* RC, SQ_SIG_ALL, USE_SRQ */
		0x11, 0x00, 0x00, 0x00,		/* pdn */
		0x22, 0x02, 0x00, 0x00,		/* send_cqn */
		0x33, 0x03, 0x00, 0x00,		/* recv_cqn */
		0x44, 0x00, 0x00, 0x00,		/* srqn */
		0x0e, 0x0a, 0x20, 0x00,		/* SQ: 2^14 x 1024 bytes, 32 SGEs */
		0x09, 0x05, 0x01, 0x00,		/* RQ: 2^9 x 32 bytes, 1 SGE */
		0xc0, 0x03, 0x00, 0x00,		/* max_inline 960 */
		0x00, 0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x00,	/* sq_addr */
		0x00, 0x22, 0x22, 0x22, 0x22, 0x00, 0x00, 0x00,	/* rq_addr */
		0x40, 0x33, 0x33, 0x33, 0x33, 0x00, 0x00, 0x00,	/* sq_db_addr */
		0x80, 0x44, 0x44, 0x44, 0x44, 0x00, 0x00, 0x00,	/* rq_db_addr */
	};
	struct orca_hw_create_qp qp;

	memset(&qp, 0, sizeof(qp));
	qp.info = cpu_to_le32(FIELD_PREP(ORCA_QP_INFO_TYPE, ORCA_QPT_RC) |
			      ORCA_QP_INFO_SQ_SIG_ALL | ORCA_QP_INFO_USE_SRQ);
	qp.pdn = cpu_to_le32(0x11);
	qp.send_cqn = cpu_to_le32(0x222);
	qp.recv_cqn = cpu_to_le32(0x333);
	qp.srqn = cpu_to_le32(0x44);
	qp.sq_cfg = cpu_to_le32(FIELD_PREP(ORCA_WQ_CFG_LOG2_DEPTH, 14) |
				FIELD_PREP(ORCA_WQ_CFG_LOG2_STRIDE, 10) |
				FIELD_PREP(ORCA_WQ_CFG_MAX_SGE, 32));
	qp.rq_cfg = cpu_to_le32(FIELD_PREP(ORCA_WQ_CFG_LOG2_DEPTH, 9) |
				FIELD_PREP(ORCA_WQ_CFG_LOG2_STRIDE, 5) |
				FIELD_PREP(ORCA_WQ_CFG_MAX_SGE, 1));
	qp.max_inline = cpu_to_le32(960);
	qp.sq_addr = cpu_to_le64(0x0000001111111100ULL);
	qp.rq_addr = cpu_to_le64(0x0000002222222200ULL);
	qp.sq_db_addr = cpu_to_le64(0x0000003333333340ULL);
	qp.rq_db_addr = cpu_to_le64(0x0000004444444480ULL);
	orca_v1_expect_bytes(test, &qp, want, sizeof(want), "CREATE_QP mailbox");
}

/* Every field of a QUERY_QP output (and MODIFY_QP input) set. */
static const u8 orca_v1_qp_attr_bytes[ORCA_HW_QP_ATTR_SIZE] = {
	0xff, 0xff, 0x1f, 0x00,		/* attr_mask: ORCA_QP_ATTR_ALL */
	0x03, 0x02, 0x05, 0x02,		/* RTS, cur RTR, MTU 4096, MIGRATED */
	0x00, 0x00, 0x01, 0x80,		/* qkey 0x80010000 */
	0xef, 0xcd, 0xab, 0x00,		/* rq_psn */
	0x56, 0x34, 0x12, 0x00,		/* sq_psn */
	0xba, 0xdc, 0xfe, 0x00,		/* dest_qpn */
	0x0f, 0x00, 0x00, 0x00,		/* access: all */
	0x0b, 0x0a, 0x01, 0x01,		/* pkey_index 0xa0b, port 1, en_sqd_async */
	0x10, 0x0f, 0x1f, 0x1e,		/* rd_atomic 16, dest 15, rnr 31, timeout 30 */
	0x07, 0x06, 0x01, 0x00,		/* retry 7, rnr_retry 6, sq_draining */
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,	/* dgid 2001:db8::42 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x42,
	0x45, 0x23, 0x31, 0x50,		/* av_info: SL 5, SGID 3, flow 0x12345 */
	0x40, 0xb8,			/* hop_limit 64, traffic_class 0xb8 */
	0x52, 0x54, 0x00, 0xfe, 0xdc, 0xba,	/* dmac */
	0xff, 0x0f,			/* vlan 4095 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* rsvd1 */
	0x00, 0x40, 0x00, 0x00,		/* max_send_wr 0x4000 */
	0x00, 0x20, 0x00, 0x00,		/* max_recv_wr 0x2000 */
	0x20, 0x00, 0x00, 0x00,		/* max_send_sge 32 */
	0x10, 0x00, 0x00, 0x00,		/* max_recv_sge 16 */
	0xc0, 0x03, 0x00, 0x00,		/* max_inline 960 */
};

static const u8 orca_v1_dgid[16] = {
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x42,
};

static const u8 orca_v1_dmac[6] = { 0x52, 0x54, 0x00, 0xfe, 0xdc, 0xba };

static void orca_hw_v1_test_qp_attr(struct kunit *test)
{
	struct orca_hw_qp_attr *a;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);

	a->attr_mask = cpu_to_le32(ORCA_QP_ATTR_ALL);
	a->qp_state = ORCA_QPS_RTS;
	a->cur_qp_state = ORCA_QPS_RTR;
	a->path_mtu = 5;
	a->path_mig_state = 2;
	a->qkey = cpu_to_le32(0x80010000);
	a->rq_psn = cpu_to_le32(0xabcdef);
	a->sq_psn = cpu_to_le32(0x123456);
	a->dest_qpn = cpu_to_le32(0xfedcba);
	a->access = cpu_to_le32(ORCA_ACCESS_ALL);
	a->pkey_index = cpu_to_le16(0x0a0b);
	a->port = 1;
	a->en_sqd_async = 1;
	a->max_rd_atomic = 16;
	a->max_dest_rd_atomic = 15;
	a->min_rnr_timer = 31;
	a->timeout = 30;
	a->retry_cnt = 7;
	a->rnr_retry = 6;
	a->sq_draining = 1;
	memcpy(a->dgid, orca_v1_dgid, sizeof(orca_v1_dgid));
	a->av_info = cpu_to_le32(FIELD_PREP(ORCA_AH_FLOW_LABEL, 0x12345) |
				 FIELD_PREP(ORCA_AH_SGID_INDEX, 3) |
				 FIELD_PREP(ORCA_AH_SL, 5));
	a->hop_limit = 64;
	a->traffic_class = 0xb8;
	memcpy(a->dmac, orca_v1_dmac, sizeof(orca_v1_dmac));
	a->vlan = cpu_to_le16(0x0fff);
	a->max_send_wr = cpu_to_le32(0x4000);
	a->max_recv_wr = cpu_to_le32(0x2000);
	a->max_send_sge = cpu_to_le32(32);
	a->max_recv_sge = cpu_to_le32(16);
	a->max_inline = cpu_to_le32(960);
	orca_v1_expect_bytes(test, a, orca_v1_qp_attr_bytes,
			     sizeof(orca_v1_qp_attr_bytes), "qp_attr mailbox");
}

/* The driver's side of QUERY_QP: decode the output the device wrote. */
static void orca_hw_v1_test_qp_attr_decode(struct kunit *test)
{
	struct orca_hw_qp_attr *a;
	u32 av;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	memcpy(a, orca_v1_qp_attr_bytes, sizeof(*a));

	KUNIT_EXPECT_EQ(test, le32_to_cpu(a->attr_mask), 0x001fffffU);
	KUNIT_EXPECT_EQ(test, a->qp_state, ORCA_QPS_RTS);
	KUNIT_EXPECT_EQ(test, a->cur_qp_state, ORCA_QPS_RTR);
	KUNIT_EXPECT_EQ(test, a->path_mtu, 5);
	KUNIT_EXPECT_EQ(test, a->path_mig_state, 2);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(a->qkey), 0x80010000U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(a->rq_psn), 0x00abcdefU);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(a->sq_psn), 0x00123456U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(a->dest_qpn), 0x00fedcbaU);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(a->access), 0xfU);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(a->pkey_index), 0x0a0b);
	KUNIT_EXPECT_EQ(test, a->port, 1);
	KUNIT_EXPECT_EQ(test, a->en_sqd_async, 1);
	KUNIT_EXPECT_EQ(test, a->max_rd_atomic, 16);
	KUNIT_EXPECT_EQ(test, a->max_dest_rd_atomic, 15);
	KUNIT_EXPECT_EQ(test, a->min_rnr_timer, 31);
	KUNIT_EXPECT_EQ(test, a->timeout, 30);
	KUNIT_EXPECT_EQ(test, a->retry_cnt, 7);
	KUNIT_EXPECT_EQ(test, a->rnr_retry, 6);
	KUNIT_EXPECT_EQ(test, a->sq_draining, 1);
	KUNIT_EXPECT_EQ(test, memcmp(a->dgid, orca_v1_dgid, sizeof(orca_v1_dgid)), 0);
	av = le32_to_cpu(a->av_info);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_FLOW_LABEL, av), 0x12345UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_SGID_INDEX, av), 3UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_SL, av), 5UL);
	KUNIT_EXPECT_EQ(test, a->hop_limit, 64);
	KUNIT_EXPECT_EQ(test, a->traffic_class, 0xb8);
	KUNIT_EXPECT_EQ(test, memcmp(a->dmac, orca_v1_dmac, sizeof(orca_v1_dmac)), 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(a->vlan), 0x0fff);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(a->max_send_wr), 0x4000U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(a->max_recv_wr), 0x2000U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(a->max_send_sge), 32U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(a->max_recv_sge), 16U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(a->max_inline), 960U);
}

/* CREATE_SRQ input; QUERY_SRQ returns the same layout. */
static void orca_hw_v1_test_srq(struct kunit *test)
{
	static const u8 want[ORCA_HW_SRQ_SIZE] = {
		0x99, 0x00, 0x00, 0x00,		/* pdn */
		0x0a, 0x06, 0x03, 0x00,		/* 2^10 x 64 bytes, 3 SGEs */
		0x00, 0x01, 0x00, 0x00,		/* limit 256 */
		0x00, 0x04, 0x00, 0x00,		/* max_wr 1024 */
		0x00, 0x55, 0x55, 0x55, 0x05, 0x00, 0x00, 0x00,	/* ring_addr */
		0x40, 0x66, 0x66, 0x66, 0x06, 0x00, 0x00, 0x00,	/* db_addr */
	};
	struct orca_hw_srq srq;
	u32 cfg;

	memset(&srq, 0, sizeof(srq));
	srq.pdn = cpu_to_le32(0x99);
	srq.cfg = cpu_to_le32(FIELD_PREP(ORCA_WQ_CFG_LOG2_DEPTH, 10) |
			      FIELD_PREP(ORCA_WQ_CFG_LOG2_STRIDE, 6) |
			      FIELD_PREP(ORCA_WQ_CFG_MAX_SGE, 3));
	srq.limit = cpu_to_le32(256);
	srq.max_wr = cpu_to_le32(1024);
	srq.ring_addr = cpu_to_le64(0x0000000555555500ULL);
	srq.db_addr = cpu_to_le64(0x0000000666666640ULL);
	orca_v1_expect_bytes(test, &srq, want, sizeof(want), "SRQ mailbox");

	/* Decoding a QUERY_SRQ output. */
	memcpy(&srq, want, sizeof(srq));
	cfg = le32_to_cpu(srq.cfg);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(srq.pdn), 0x99U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_LOG2_DEPTH, cfg), 10UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_LOG2_STRIDE, cfg), 6UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_MAX_SGE, cfg), 3UL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(srq.limit), 256U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(srq.max_wr), 1024U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(srq.ring_addr), 0x0000000555555500ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(srq.db_addr), 0x0000000666666640ULL);
}

/* Counter n holds the bytes 8n .. 8n + 7, so each byte names its offset. */
static const u8 orca_v1_stats_bytes[ORCA_HW_STATS_SIZE] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,	/* cmds_completed */
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,	/* cmds_failed */
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,	/* async_events */
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,	/* async_events_dropped */
	0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27,	/* pds */
	0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f,	/* mrs */
	0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37,	/* cqs */
	0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f,	/* qps */
	0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,	/* srqs */
	0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f,	/* ahs */
	0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57,	/* tx_packets */
	0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f,	/* tx_bytes */
	0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67,	/* rx_packets */
	0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f,	/* rx_bytes */
	0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77,	/* rx_drops */
	0x78, 0x79, 0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x7f,	/* rx_icrc_errors */
	0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,	/* tx_drops */
	0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f,	/* retransmits */
	0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97,	/* ack_timeouts */
	0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f,	/* rnr_naks_sent */
	0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,	/* rnr_naks_rcvd */
	0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,	/* seq_naks_sent */
	0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7,	/* seq_naks_rcvd */
	0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf,	/* inv_req_naks_sent */
	0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,	/* inv_req_naks_rcvd */
	0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf,	/* access_naks_sent */
	0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7,	/* access_naks_rcvd */
	0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf,	/* op_naks_sent */
	0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7,	/* op_naks_rcvd */
	0xe8, 0xe9, 0xea, 0xeb, 0xec, 0xed, 0xee, 0xef,	/* duplicates */
	0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,	/* out_of_sequence */
	0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,	/* ud_drops */
};

static void orca_hw_v1_test_stats(struct kunit *test)
{
	struct orca_hw_stats *s;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);

	/* The device's side of QUERY_STATS. */
	s->cmds_completed = cpu_to_le64(0x0706050403020100ULL);
	s->cmds_failed = cpu_to_le64(0x0f0e0d0c0b0a0908ULL);
	s->async_events = cpu_to_le64(0x1716151413121110ULL);
	s->async_events_dropped = cpu_to_le64(0x1f1e1d1c1b1a1918ULL);
	s->pds = cpu_to_le64(0x2726252423222120ULL);
	s->mrs = cpu_to_le64(0x2f2e2d2c2b2a2928ULL);
	s->cqs = cpu_to_le64(0x3736353433323130ULL);
	s->qps = cpu_to_le64(0x3f3e3d3c3b3a3938ULL);
	s->srqs = cpu_to_le64(0x4746454443424140ULL);
	s->ahs = cpu_to_le64(0x4f4e4d4c4b4a4948ULL);
	s->tx_packets = cpu_to_le64(0x5756555453525150ULL);
	s->tx_bytes = cpu_to_le64(0x5f5e5d5c5b5a5958ULL);
	s->rx_packets = cpu_to_le64(0x6766656463626160ULL);
	s->rx_bytes = cpu_to_le64(0x6f6e6d6c6b6a6968ULL);
	s->rx_drops = cpu_to_le64(0x7776757473727170ULL);
	s->rx_icrc_errors = cpu_to_le64(0x7f7e7d7c7b7a7978ULL);
	s->tx_drops = cpu_to_le64(0x8786858483828180ULL);
	s->retransmits = cpu_to_le64(0x8f8e8d8c8b8a8988ULL);
	s->ack_timeouts = cpu_to_le64(0x9796959493929190ULL);
	s->rnr_naks_sent = cpu_to_le64(0x9f9e9d9c9b9a9998ULL);
	s->rnr_naks_rcvd = cpu_to_le64(0xa7a6a5a4a3a2a1a0ULL);
	s->seq_naks_sent = cpu_to_le64(0xafaeadacabaaa9a8ULL);
	s->seq_naks_rcvd = cpu_to_le64(0xb7b6b5b4b3b2b1b0ULL);
	s->inv_req_naks_sent = cpu_to_le64(0xbfbebdbcbbbab9b8ULL);
	s->inv_req_naks_rcvd = cpu_to_le64(0xc7c6c5c4c3c2c1c0ULL);
	s->access_naks_sent = cpu_to_le64(0xcfcecdcccbcac9c8ULL);
	s->access_naks_rcvd = cpu_to_le64(0xd7d6d5d4d3d2d1d0ULL);
	s->op_naks_sent = cpu_to_le64(0xdfdedddcdbdad9d8ULL);
	s->op_naks_rcvd = cpu_to_le64(0xe7e6e5e4e3e2e1e0ULL);
	s->duplicates = cpu_to_le64(0xefeeedecebeae9e8ULL);
	s->out_of_sequence = cpu_to_le64(0xf7f6f5f4f3f2f1f0ULL);
	s->ud_drops = cpu_to_le64(0xfffefdfcfbfaf9f8ULL);
	orca_v1_expect_bytes(test, s, orca_v1_stats_bytes,
			     sizeof(orca_v1_stats_bytes), "stats mailbox");

	/* The driver's side. */
	memcpy(s, orca_v1_stats_bytes, sizeof(*s));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->cmds_completed), 0x0706050403020100ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->async_events_dropped), 0x1f1e1d1c1b1a1918ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->ahs), 0x4f4e4d4c4b4a4948ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->rx_bytes), 0x6f6e6d6c6b6a6968ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->rx_drops), 0x7776757473727170ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->rx_icrc_errors), 0x7f7e7d7c7b7a7978ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->tx_drops), 0x8786858483828180ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->retransmits), 0x8f8e8d8c8b8a8988ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->ack_timeouts), 0x9796959493929190ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->rnr_naks_sent), 0x9f9e9d9c9b9a9998ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->rnr_naks_rcvd), 0xa7a6a5a4a3a2a1a0ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->seq_naks_sent), 0xafaeadacabaaa9a8ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->seq_naks_rcvd), 0xb7b6b5b4b3b2b1b0ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->inv_req_naks_sent), 0xbfbebdbcbbbab9b8ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->inv_req_naks_rcvd), 0xc7c6c5c4c3c2c1c0ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->access_naks_sent), 0xcfcecdcccbcac9c8ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->access_naks_rcvd), 0xd7d6d5d4d3d2d1d0ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->op_naks_sent), 0xdfdedddcdbdad9d8ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->op_naks_rcvd), 0xe7e6e5e4e3e2e1e0ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->duplicates), 0xefeeedecebeae9e8ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->out_of_sequence), 0xf7f6f5f4f3f2f1f0ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->ud_drops), 0xfffefdfcfbfaf9f8ULL);
}

/* ---------------------------------------------------------------------
 * Sub-word fields
 */

/* CREATE_EQ cfg: LOG2_DEPTH [4:0], VECTOR [15:8]. */
static void orca_hw_v1_test_eq_cfg(struct kunit *test)
{
	static const struct orca_v1_field f[] = {
		ORCA_V1_FIELD(ORCA_EQ_CFG_LOG2_DEPTH, 0x0000001f),
		ORCA_V1_FIELD(ORCA_EQ_CFG_VECTOR, 0x0000ff00),
	};
	/* Depth 2^12 on vector 7, every reserved bit set. */
	static const u8 raw[4] = { 0xec, 0x07, 0xff, 0xff };
	u32 w = orca_v1_word(raw);

	orca_v1_expect_fields(test, "EQ cfg", f, ARRAY_SIZE(f), 0x0000ff1f);

	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQ_CFG_LOG2_DEPTH, w), 12UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQ_CFG_VECTOR, w), 7UL);

	w = FIELD_PREP(ORCA_EQ_CFG_LOG2_DEPTH, 16) | FIELD_PREP(ORCA_EQ_CFG_VECTOR, 0xa5);
	KUNIT_EXPECT_EQ(test, w, 0x0000a510U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQ_CFG_LOG2_DEPTH, w), 16UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQ_CFG_VECTOR, w), 0xa5UL);

	/* The largest values round-trip without touching the other field. */
	w = FIELD_PREP(ORCA_EQ_CFG_LOG2_DEPTH, 31);
	KUNIT_EXPECT_EQ(test, w, 0x0000001fU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQ_CFG_LOG2_DEPTH, w), 31UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQ_CFG_VECTOR, w), 0UL);
	w = FIELD_PREP(ORCA_EQ_CFG_VECTOR, 255);
	KUNIT_EXPECT_EQ(test, w, 0x0000ff00U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQ_CFG_VECTOR, w), 255UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_EQ_CFG_LOG2_DEPTH, w), 0UL);
}

/*
 * CREATE_CQ and RESIZE_CQ cfg: LOG2_DEPTH [4:0], since 1.7 PBL_LEVELS
 * [29:28] (CREATE_CQ's CQE64 [8] is among the ABI values).
 */
static void orca_hw_v1_test_cq_cfg(struct kunit *test)
{
	static const struct orca_v1_field f[] = {
		ORCA_V1_FIELD(ORCA_CQ_CFG_LOG2_DEPTH, 0x0000001f),
		ORCA_V1_FIELD(ORCA_CQ_CFG_PBL_LEVELS, 0x30000000),
	};
	static const u8 raw[4] = { 0xf0, 0xff, 0xff, 0xff };	/* 2^16, all else set */
	static const u8 raw_rsvd[4] = { 0xe0, 0xff, 0xff, 0xcf };	/* rsvd only */
	static const u8 raw_pbl2[4] = { 0x0a, 0x00, 0x00, 0x20 };	/* 2^10, level 2 */
	u32 w;

	orca_v1_expect_fields(test, "CQ cfg", f, ARRAY_SIZE(f), 0x3000001f);

	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_CQ_CFG_LOG2_DEPTH, orca_v1_word(raw)), 16UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_CQ_CFG_PBL_LEVELS, orca_v1_word(raw)), 3UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_CQ_CFG_LOG2_DEPTH, orca_v1_word(raw_rsvd)), 0UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_CQ_CFG_PBL_LEVELS, orca_v1_word(raw_rsvd)), 0UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_CQ_CFG_LOG2_DEPTH, orca_v1_word(raw_pbl2)), 10UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_CQ_CFG_PBL_LEVELS, orca_v1_word(raw_pbl2)), 2UL);
	w = FIELD_PREP(ORCA_CQ_CFG_LOG2_DEPTH, 10) | FIELD_PREP(ORCA_CQ_CFG_PBL_LEVELS, 2);
	KUNIT_EXPECT_EQ(test, w, orca_v1_word(raw_pbl2));

	w = FIELD_PREP(ORCA_CQ_CFG_LOG2_DEPTH, 1);
	KUNIT_EXPECT_EQ(test, w, 0x00000001U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_CQ_CFG_LOG2_DEPTH, w), 1UL);
	w = FIELD_PREP(ORCA_CQ_CFG_LOG2_DEPTH, 31);
	KUNIT_EXPECT_EQ(test, w, 0x0000001fU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_CQ_CFG_LOG2_DEPTH, w), 31UL);
}

/* CREATE_AH info and qp_attr av_info: FLOW_LABEL, SGID_INDEX, SL. */
static void orca_hw_v1_test_ah_info(struct kunit *test)
{
	static const struct orca_v1_field f[] = {
		ORCA_V1_FIELD(ORCA_AH_FLOW_LABEL, 0x000fffff),
		ORCA_V1_FIELD(ORCA_AH_SGID_INDEX, 0x0ff00000),
		ORCA_V1_FIELD(ORCA_AH_SL, 0xf0000000),
	};
	static const u8 raw[4] = { 0xde, 0xbc, 0xfa, 0x97 };
	static const u8 raw_sgid[4] = { 0x00, 0x00, 0x10, 0x08 };	/* SGID 0x81 */
	u32 w = orca_v1_word(raw);

	orca_v1_expect_fields(test, "AH info", f, ARRAY_SIZE(f), 0xffffffff);

	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_FLOW_LABEL, w), 0xabcdeUL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_SGID_INDEX, w), 0x7fUL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_SL, w), 9UL);

	w = orca_v1_word(raw_sgid);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_FLOW_LABEL, w), 0UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_SGID_INDEX, w), 0x81UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_SL, w), 0UL);

	/* Each field at its largest value, alone. */
	w = FIELD_PREP(ORCA_AH_FLOW_LABEL, 0xfffff);
	KUNIT_EXPECT_EQ(test, w, 0x000fffffU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_FLOW_LABEL, w), 0xfffffUL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_SGID_INDEX, w), 0UL);
	w = FIELD_PREP(ORCA_AH_SGID_INDEX, 0xff);
	KUNIT_EXPECT_EQ(test, w, 0x0ff00000U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_SGID_INDEX, w), 0xffUL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_FLOW_LABEL, w) | FIELD_GET(ORCA_AH_SL, w), 0UL);
	w = FIELD_PREP(ORCA_AH_SL, 0xf);
	KUNIT_EXPECT_EQ(test, w, 0xf0000000U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_SL, w), 0xfUL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_AH_SGID_INDEX, w), 0UL);
}

/*
 * REG_MR flags: PAGE_SHIFT [7:0], PBL_LEVELS [9:8], PHYSICAL [16],
 * FAST_REG [17], DM [18] (1.4), ODP [19] (1.5), ODP_IMPLICIT [20] (1.6).
 */
static void orca_hw_v1_test_mr_flags(struct kunit *test)
{
	static const struct orca_v1_field f[] = {
		ORCA_V1_FIELD(ORCA_MR_PAGE_SHIFT, 0x000000ff),
		ORCA_V1_FIELD(ORCA_MR_PBL_LEVELS, 0x00000300),
		ORCA_V1_FIELD(ORCA_MR_FLAG_PHYSICAL, 0x00010000),
		ORCA_V1_FIELD(ORCA_MR_FLAG_FAST_REG, 0x00020000),
		ORCA_V1_FIELD(ORCA_MR_FLAG_DM, 0x00040000),
		ORCA_V1_FIELD(ORCA_MR_FLAG_ODP, 0x00080000),
		ORCA_V1_FIELD(ORCA_MR_FLAG_ODP_IMPLICIT, 0x00100000),
	};
	/* Shift 21, levels 2, FAST_REG; bits 15:10 and 31:18 set too. */
	static const u8 raw[4] = { 0x15, 0xfe, 0xfe, 0xff };
	/* PHYSICAL only. */
	static const u8 raw_phys[4] = { 0x00, 0x00, 0x01, 0x00 };
	/* An implicit ODP region: shift 12, ODP and ODP_IMPLICIT. */
	static const u8 raw_implicit[4] = { 0x0c, 0x00, 0x18, 0x00 };
	u32 w = orca_v1_word(raw);

	orca_v1_expect_fields(test, "MR flags", f, ARRAY_SIZE(f), 0x001f03ff);

	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_PAGE_SHIFT, w), 21UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_PBL_LEVELS, w), 2UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_FLAG_PHYSICAL, w), 0UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_FLAG_FAST_REG, w), 1UL);

	w = orca_v1_word(raw_phys);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_PAGE_SHIFT, w), 0UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_PBL_LEVELS, w), 0UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_FLAG_PHYSICAL, w), 1UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_FLAG_FAST_REG, w), 0UL);

	w = orca_v1_word(raw_implicit);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_PAGE_SHIFT, w), 12UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_PBL_LEVELS, w), 0UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_FLAG_DM, w), 0UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_FLAG_ODP, w), 1UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_FLAG_ODP_IMPLICIT, w), 1UL);
	KUNIT_EXPECT_EQ(test, FIELD_PREP(ORCA_MR_PAGE_SHIFT, 12) | ORCA_MR_FLAG_ODP |
			      ORCA_MR_FLAG_ODP_IMPLICIT, 0x0018000cUL);

	w = FIELD_PREP(ORCA_MR_PAGE_SHIFT, 30) | FIELD_PREP(ORCA_MR_PBL_LEVELS, 1);
	KUNIT_EXPECT_EQ(test, w, 0x0000011eU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_PAGE_SHIFT, w), 30UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_PBL_LEVELS, w), 1UL);

	/* The largest values stay in their own bits. */
	w = FIELD_PREP(ORCA_MR_PAGE_SHIFT, 0xff);
	KUNIT_EXPECT_EQ(test, w, 0x000000ffU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_PBL_LEVELS, w), 0UL);
	w = FIELD_PREP(ORCA_MR_PBL_LEVELS, 3);
	KUNIT_EXPECT_EQ(test, w, 0x00000300U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_PBL_LEVELS, w), 3UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_PAGE_SHIFT, w), 0UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_FLAG_PHYSICAL, w), 0UL);
}

/* The MR key: VARIANT [7:0] (key_variant < 256), INDEX [31:8]. */
static void orca_hw_v1_test_mr_key(struct kunit *test)
{
	static const struct orca_v1_field f[] = {
		ORCA_V1_FIELD(ORCA_MR_KEY_VARIANT, 0x000000ff),
		ORCA_V1_FIELD(ORCA_MR_KEY_INDEX, 0xffffff00),
	};
	static const u8 raw[4] = { 0xa7, 0x45, 0x23, 0x01 };
	u32 key = orca_v1_word(raw);

	orca_v1_expect_fields(test, "MR key", f, ARRAY_SIZE(f), 0xffffffff);

	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_KEY_INDEX, key), 0x012345UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_KEY_VARIANT, key), 0xa7UL);

	/* "FIELD_PREP(ORCA_MR_KEY_INDEX, index) | key_variant", at the top index. */
	key = FIELD_PREP(ORCA_MR_KEY_INDEX, 65536) | 0x5a;
	KUNIT_EXPECT_EQ(test, key, 0x0100005aU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_KEY_INDEX, key), 65536UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_KEY_VARIANT, key), 0x5aUL);
	KUNIT_EXPECT_EQ(test, FIELD_PREP(ORCA_MR_KEY_VARIANT, 0x5a), 0x5aUL);

	key = FIELD_PREP(ORCA_MR_KEY_INDEX, 1) | FIELD_PREP(ORCA_MR_KEY_VARIANT, 0xff);
	KUNIT_EXPECT_EQ(test, key, 0x000001ffU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_KEY_INDEX, key), 1UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_KEY_VARIANT, key), 0xffUL);

	key = FIELD_PREP(ORCA_MR_KEY_INDEX, 0xffffff);
	KUNIT_EXPECT_EQ(test, key, 0xffffff00U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_KEY_INDEX, key), 0xffffffUL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_MR_KEY_VARIANT, key), 0UL);
}

/* CREATE_QP info: TYPE [3:0], SQ_SIG_ALL [8], USE_SRQ [9]. */
static void orca_hw_v1_test_qp_info(struct kunit *test)
{
	static const struct orca_v1_field f[] = {
		ORCA_V1_FIELD(ORCA_QP_INFO_TYPE, 0x0000000f),
		ORCA_V1_FIELD(ORCA_QP_INFO_SQ_SIG_ALL, 0x00000100),
		ORCA_V1_FIELD(ORCA_QP_INFO_USE_SRQ, 0x00000200),
	};
	/* UC with SQ_SIG_ALL, every reserved bit set. */
	static const u8 raw[4] = { 0xf3, 0xfd, 0xff, 0xff };
	/* UD with USE_SRQ. */
	static const u8 raw_srq[4] = { 0x04, 0x02, 0x00, 0x00 };
	u32 w = orca_v1_word(raw);

	orca_v1_expect_fields(test, "QP info", f, ARRAY_SIZE(f), 0x0000030f);

	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_QP_INFO_TYPE, w), (unsigned long)ORCA_QPT_UC);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_QP_INFO_SQ_SIG_ALL, w), 1UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_QP_INFO_USE_SRQ, w), 0UL);

	w = orca_v1_word(raw_srq);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_QP_INFO_TYPE, w), (unsigned long)ORCA_QPT_UD);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_QP_INFO_SQ_SIG_ALL, w), 0UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_QP_INFO_USE_SRQ, w), 1UL);

	w = FIELD_PREP(ORCA_QP_INFO_TYPE, ORCA_QPT_GSI) | ORCA_QP_INFO_SQ_SIG_ALL;
	KUNIT_EXPECT_EQ(test, w, 0x00000101U);
	w = FIELD_PREP(ORCA_QP_INFO_TYPE, 0xf);
	KUNIT_EXPECT_EQ(test, w, 0x0000000fU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_QP_INFO_TYPE, w), 0xfUL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_QP_INFO_SQ_SIG_ALL, w), 0UL);
}

/*
 * SQ, RQ and SRQ cfg.  The spec gives the fields' ranges (LOG2_DEPTH up
 * to 14, LOG2_STRIDE 5 .. 10, MAX_SGE up to 32) but no bit ranges; the
 * masks are pinned to their v1.0 values: [4:0], [11:8], [23:16].  Since
 * 1.7 it gives PBL_LEVELS's: [29:28].
 */
static void orca_hw_v1_test_wq_cfg(struct kunit *test)
{
	static const struct orca_v1_field f[] = {
		ORCA_V1_FIELD(ORCA_WQ_CFG_LOG2_DEPTH, 0x0000001f),
		ORCA_V1_FIELD(ORCA_WQ_CFG_LOG2_STRIDE, 0x00000f00),
		ORCA_V1_FIELD(ORCA_WQ_CFG_MAX_SGE, 0x00ff0000),
		ORCA_V1_FIELD(ORCA_WQ_CFG_PBL_LEVELS, 0x30000000),
	};
	/* 2^9 entries of 32 bytes, 1 SGE; every reserved bit set. */
	static const u8 raw[4] = { 0xe9, 0xf5, 0x01, 0xcf };
	/* 2^14 entries of 1024 bytes, 32 SGEs, a level 2 page list. */
	static const u8 raw_pbl2[4] = { 0x0e, 0x0a, 0x20, 0x20 };
	u32 w = orca_v1_word(raw);

	orca_v1_expect_fields(test, "WQ cfg", f, ARRAY_SIZE(f), 0x30ff0f1f);

	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_LOG2_DEPTH, w), 9UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_LOG2_STRIDE, w), 5UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_MAX_SGE, w), 1UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_PBL_LEVELS, w), 0UL);

	w = orca_v1_word(raw_pbl2);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_PBL_LEVELS, w), 2UL);
	KUNIT_EXPECT_EQ(test, FIELD_PREP(ORCA_WQ_CFG_LOG2_DEPTH, 14) |
			      FIELD_PREP(ORCA_WQ_CFG_LOG2_STRIDE, 10) |
			      FIELD_PREP(ORCA_WQ_CFG_MAX_SGE, 32) |
			      FIELD_PREP(ORCA_WQ_CFG_PBL_LEVELS, 2), w);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_PBL_LEVELS, 0xffffffffU), 3UL);

	/* The largest values the spec allows fit. */
	KUNIT_EXPECT_TRUE(test, FIELD_FIT(ORCA_WQ_CFG_LOG2_DEPTH, 14));
	KUNIT_EXPECT_TRUE(test, FIELD_FIT(ORCA_WQ_CFG_LOG2_STRIDE, 10));
	KUNIT_EXPECT_TRUE(test, FIELD_FIT(ORCA_WQ_CFG_MAX_SGE, 32));

	w = FIELD_PREP(ORCA_WQ_CFG_LOG2_DEPTH, 14) | FIELD_PREP(ORCA_WQ_CFG_LOG2_STRIDE, 10) |
	    FIELD_PREP(ORCA_WQ_CFG_MAX_SGE, 32);
	KUNIT_EXPECT_EQ(test, w, 0x00200a0eU);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_LOG2_DEPTH, w), 14UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_LOG2_STRIDE, w), 10UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_MAX_SGE, w), 32UL);

	/* Each field at its mask's largest value, alone. */
	w = FIELD_PREP(ORCA_WQ_CFG_LOG2_STRIDE, 0xf);
	KUNIT_EXPECT_EQ(test, w, 0x00000f00U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_LOG2_DEPTH, w), 0UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_MAX_SGE, w), 0UL);
	w = FIELD_PREP(ORCA_WQ_CFG_MAX_SGE, 0xff);
	KUNIT_EXPECT_EQ(test, w, 0x00ff0000U);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_MAX_SGE, w), 0xffUL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_WQ_CFG_LOG2_STRIDE, w), 0UL);
}

/*
 * MODIFY_QP / QUERY_QP attr_mask: one bit per attribute, and "only
 * ORCA_QP_ATTR_ALL bits".  The spec does not number the bits; these are
 * the v1.0 values (those of enum ib_qp_attr_mask).
 */
static void orca_hw_v1_test_qp_attr_bits(struct kunit *test)
{
	static const struct orca_v1_field f[] = {
		ORCA_V1_FIELD(ORCA_QP_ATTR_STATE, BIT(0)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_CUR_STATE, BIT(1)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_EN_SQD_ASYNC, BIT(2)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_ACCESS_FLAGS, BIT(3)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_PKEY_INDEX, BIT(4)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_PORT, BIT(5)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_QKEY, BIT(6)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_AV, BIT(7)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_PATH_MTU, BIT(8)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_TIMEOUT, BIT(9)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_RETRY_CNT, BIT(10)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_RNR_RETRY, BIT(11)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_RQ_PSN, BIT(12)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_MAX_QP_RD_ATOMIC, BIT(13)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_ALT_PATH, BIT(14)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_MIN_RNR_TIMER, BIT(15)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_SQ_PSN, BIT(16)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC, BIT(17)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_PATH_MIG_STATE, BIT(18)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_CAP, BIT(19)),
		ORCA_V1_FIELD(ORCA_QP_ATTR_DEST_QPN, BIT(20)),
	};
	/* RTR -> RTS of an RC QP, as a driver sends it; bits 21..31 set. */
	static const u8 raw[4] = { 0x01, 0x2e, 0xe1, 0xff };
	size_t i;
	u32 w;

	orca_v1_expect_fields(test, "QP attr_mask", f, ARRAY_SIZE(f), 0x001fffff);
	KUNIT_EXPECT_EQ(test, ORCA_QP_ATTR_ALL, 0x001fffffUL);
	for (i = 0; i < ARRAY_SIZE(f); i++)
		KUNIT_EXPECT_EQ_MSG(test, hweight_long(f[i].mask), 1UL, "%s is not one bit",
				    f[i].name);

	w = orca_v1_word(raw);
	KUNIT_EXPECT_EQ(test, w & ORCA_QP_ATTR_ALL,
			ORCA_QP_ATTR_STATE | ORCA_QP_ATTR_SQ_PSN | ORCA_QP_ATTR_TIMEOUT |
			ORCA_QP_ATTR_RETRY_CNT | ORCA_QP_ATTR_RNR_RETRY |
			ORCA_QP_ATTR_MAX_QP_RD_ATOMIC);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_QP_ATTR_SQ_PSN, w), 1UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_QP_ATTR_RQ_PSN, w), 0UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_QP_ATTR_DEST_QPN, w), 0UL);
	KUNIT_EXPECT_EQ(test, FIELD_GET(ORCA_QP_ATTR_CAP, w), 0UL);
	KUNIT_EXPECT_EQ(test, w & ~ORCA_QP_ATTR_ALL, 0xffe00000UL);
}

static struct kunit_case orca_hw_v1_test_cases[] = {
	KUNIT_CASE(orca_hw_v1_test_cmd_layout),
	KUNIT_CASE(orca_hw_v1_test_mbox_layout),
	KUNIT_CASE(orca_hw_v1_test_abi_values),
	KUNIT_CASE(orca_hw_v1_test_cmd_mbox_in),
	KUNIT_CASE(orca_hw_v1_test_cmd_modify_qp),
	KUNIT_CASE(orca_hw_v1_test_cmd_handle),
	KUNIT_CASE(orca_hw_v1_test_cmd_query_stats),
	KUNIT_CASE(orca_hw_v1_test_cmd_create_eq),
	KUNIT_CASE(orca_hw_v1_test_cmd_create_cq),
	KUNIT_CASE(orca_hw_v1_test_cmd_resize_cq),
	KUNIT_CASE(orca_hw_v1_test_ud_wqe_av),
	KUNIT_CASE(orca_hw_v1_test_cmd_gid),
	KUNIT_CASE(orca_hw_v1_test_cmd_mcast),
	KUNIT_CASE(orca_hw_v1_test_cmd_modify_srq),
	KUNIT_CASE(orca_hw_v1_test_reg_mr),
	KUNIT_CASE(orca_hw_v1_test_create_qp),
	KUNIT_CASE(orca_hw_v1_test_qp_attr),
	KUNIT_CASE(orca_hw_v1_test_qp_attr_decode),
	KUNIT_CASE(orca_hw_v1_test_srq),
	KUNIT_CASE(orca_hw_v1_test_stats),
	KUNIT_CASE(orca_hw_v1_test_eq_cfg),
	KUNIT_CASE(orca_hw_v1_test_cq_cfg),
	KUNIT_CASE(orca_hw_v1_test_ah_info),
	KUNIT_CASE(orca_hw_v1_test_mr_flags),
	KUNIT_CASE(orca_hw_v1_test_mr_key),
	KUNIT_CASE(orca_hw_v1_test_qp_info),
	KUNIT_CASE(orca_hw_v1_test_wq_cfg),
	KUNIT_CASE(orca_hw_v1_test_qp_attr_bits),
	{}
};

static struct kunit_suite orca_hw_v1_test_suite = {
	.name = "orca_hw_v1",
	.test_cases = orca_hw_v1_test_cases,
};

kunit_test_suite(orca_hw_v1_test_suite);

MODULE_DESCRIPTION("KUnit tests for the Orca v1 control-path command and mailbox formats");
MODULE_LICENSE("GPL");
