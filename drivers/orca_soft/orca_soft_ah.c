// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: the port's GID table and multicast groups.
 *
 * Address vectors (a QP's, or the one a UD WQE carries: the device has no
 * AH objects) name their source GID by its index in the GID table, which
 * must be populated.  A multicast group exists while
 * at least one UD QP is attached to it.
 */

#include <linux/bitfield.h>
#include <linux/in.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "orca_soft.h"

bool orca_soft_sgid_ok(struct orca_soft_dev *sdev, u32 sgid_index)
{
	return sgid_index < ORCA_SOFT_GID_TBL_LEN &&
	       sdev->gids[sgid_index].valid;
}

/* ---------------------------------------------------------- GID table */

u8 orca_soft_add_gid(struct orca_soft_dev *sdev,
		     const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_gid *c = &cmd->gid;
	const struct in6_addr *gid = (const struct in6_addr *)c->gid;
	u32 index = le32_to_cpu(c->index);
	u32 type = le32_to_cpu(c->type);
	struct orca_soft_gid *e;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)) ||
	    index >= ORCA_SOFT_GID_TBL_LEN ||
	    !orca_soft_vlan_ok(le16_to_cpu(c->vlan)))
		return ORCA_AQ_STS_BAD_PARAM;
	/* An IPv4 GID is IPv4-mapped; an IPv6 one is not. */
	if (type == ORCA_GID_ROCE_V2_IPV4) {
		if (!ipv6_addr_v4mapped(gid))
			return ORCA_AQ_STS_BAD_PARAM;
	} else if (type == ORCA_GID_ROCE_V2_IPV6) {
		if (ipv6_addr_v4mapped(gid) || ipv6_addr_any(gid))
			return ORCA_AQ_STS_BAD_PARAM;
	} else {
		return ORCA_AQ_STS_BAD_PARAM;
	}

	/* Adding over a populated entry replaces it. */
	e = &sdev->gids[index];
	memcpy(e->gid, c->gid, sizeof(e->gid));
	e->type = type;
	ether_addr_copy(e->mac, c->mac);
	e->vlan = le16_to_cpu(c->vlan);
	e->valid = true;
	sdev->gid_gen++;
	return ORCA_AQ_STS_OK;
}

u8 orca_soft_del_gid(struct orca_soft_dev *sdev,
		     const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_gid *c = &cmd->gid;
	u32 index = le32_to_cpu(c->index);

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)) ||
	    index >= ORCA_SOFT_GID_TBL_LEN)
		return ORCA_AQ_STS_BAD_PARAM;
	if (!sdev->gids[index].valid)
		return ORCA_AQ_STS_BAD_HANDLE;
	memset(&sdev->gids[index], 0, sizeof(sdev->gids[index]));
	sdev->gid_gen++;
	return ORCA_AQ_STS_OK;
}

/* ---------------------------------------------------------- multicast */

/* The data path: is @gid one of the port's own (valid) GIDs? */
bool orca_soft_gid_is_local(struct orca_soft_dev *sdev, const u8 *gid)
{
	u32 i;

	for (i = 0; i < ORCA_SOFT_GID_TBL_LEN; i++)
		if (sdev->gids[i].valid &&
		    !memcmp(sdev->gids[i].gid, gid, sizeof(sdev->gids[i].gid)))
			return true;
	return false;
}

bool orca_soft_gid_is_mcast(const u8 *gid)
{
	const struct in6_addr *a = (const struct in6_addr *)gid;

	if (ipv6_addr_v4mapped(a))
		return ipv4_is_multicast(a->s6_addr32[3]);
	return ipv6_addr_is_multicast(a);
}

struct orca_soft_mcg *orca_soft_mcg_find(struct orca_soft_dev *sdev,
					 const u8 *gid)
{
	struct orca_soft_mcg *mcg;

	list_for_each_entry(mcg, &sdev->mcgs, list)
		if (!memcmp(mcg->gid, gid, sizeof(mcg->gid)))
			return mcg;
	return NULL;
}

/* Position of @qpn in @mcg, or -1. */
static int orca_soft_mcg_pos(const struct orca_soft_mcg *mcg, u32 qpn)
{
	u32 i;

	for (i = 0; i < mcg->nr_qps; i++)
		if (mcg->qpn[i] == qpn)
			return i;
	return -1;
}

/* Check the command and find the UD QP it names. */
static u8 orca_soft_mcast_args(struct orca_soft_dev *sdev,
			       const struct orca_cmd_mcast *c,
			       struct orca_soft_qp **qpp)
{
	struct orca_soft_qp *qp;

	if (!orca_soft_rsvd_clear(c->rsvd, sizeof(c->rsvd)) ||
	    !orca_soft_gid_is_mcast(c->gid))
		return ORCA_AQ_STS_BAD_PARAM;
	qp = orca_soft_qp_find(sdev, le32_to_cpu(c->qpn));
	if (!qp)
		return ORCA_AQ_STS_BAD_HANDLE;
	if (qp->type != ORCA_QPT_UD)
		return ORCA_AQ_STS_BAD_PARAM;
	*qpp = qp;
	return ORCA_AQ_STS_OK;
}

u8 orca_soft_attach_mcast(struct orca_soft_dev *sdev,
			  const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_mcast *c = &cmd->mcast;
	struct orca_soft_mcg *mcg;
	struct orca_soft_qp *qp;
	u8 sts;

	sts = orca_soft_mcast_args(sdev, c, &qp);
	if (sts)
		return sts;
	mcg = orca_soft_mcg_find(sdev, c->gid);
	if (!mcg) {
		if (sdev->nr_mcgs >= ORCA_SOFT_MAX_MCAST_GRP)
			return ORCA_AQ_STS_NO_RESOURCES;
		mcg = kzalloc(sizeof(*mcg), ORCA_SOFT_GFP);
		if (!mcg)
			return ORCA_AQ_STS_NO_RESOURCES;
		memcpy(mcg->gid, c->gid, sizeof(mcg->gid));
		list_add_tail(&mcg->list, &sdev->mcgs);
		sdev->nr_mcgs++;
	} else if (orca_soft_mcg_pos(mcg, qp->qpn) >= 0) {
		/* Already attached: nothing to do. */
		return ORCA_AQ_STS_OK;
	} else if (mcg->nr_qps >= ORCA_SOFT_MAX_MCAST_QP) {
		return ORCA_AQ_STS_NO_RESOURCES;
	}
	mcg->qpn[mcg->nr_qps++] = qp->qpn;
	qp->mcast_attached++;
	return ORCA_AQ_STS_OK;
}

static void orca_soft_mcg_free(struct orca_soft_dev *sdev,
			       struct orca_soft_mcg *mcg)
{
	list_del(&mcg->list);
	sdev->nr_mcgs--;
	kfree(mcg);
}

/* Take @qp, at @pos in @mcg, out of it; an empty group goes. */
static void orca_soft_mcg_remove(struct orca_soft_dev *sdev,
				 struct orca_soft_mcg *mcg, u32 pos,
				 struct orca_soft_qp *qp)
{
	mcg->qpn[pos] = mcg->qpn[--mcg->nr_qps];
	qp->mcast_attached--;
	if (!mcg->nr_qps)
		orca_soft_mcg_free(sdev, mcg);
}

u8 orca_soft_detach_mcast(struct orca_soft_dev *sdev,
			  const union orca_aq_cmd *cmd)
{
	const struct orca_cmd_mcast *c = &cmd->mcast;
	struct orca_soft_mcg *mcg;
	struct orca_soft_qp *qp;
	int pos;
	u8 sts;

	sts = orca_soft_mcast_args(sdev, c, &qp);
	if (sts)
		return sts;
	mcg = orca_soft_mcg_find(sdev, c->gid);
	pos = mcg ? orca_soft_mcg_pos(mcg, qp->qpn) : -1;
	if (pos < 0)
		return ORCA_AQ_STS_BAD_PARAM;
	orca_soft_mcg_remove(sdev, mcg, pos, qp);
	return ORCA_AQ_STS_OK;
}

/* Detach @qp from every group it is still attached to. */
void orca_soft_mcast_detach_qp(struct orca_soft_dev *sdev,
			       struct orca_soft_qp *qp)
{
	struct orca_soft_mcg *mcg, *tmp;
	int pos;

	list_for_each_entry_safe(mcg, tmp, &sdev->mcgs, list) {
		if (!qp->mcast_attached)
			break;
		pos = orca_soft_mcg_pos(mcg, qp->qpn);
		if (pos >= 0)
			orca_soft_mcg_remove(sdev, mcg, pos, qp);
	}
}

/* Reset: multicast groups (their QPs are already gone), GIDs. */
void orca_soft_ah_reset(struct orca_soft_dev *sdev)
{
	struct orca_soft_mcg *mcg, *tmp;

	list_for_each_entry_safe(mcg, tmp, &sdev->mcgs, list)
		orca_soft_mcg_free(sdev, mcg);
	memset(sdev->gids, 0, sizeof(sdev->gids));
	sdev->gid_gen++;
}
