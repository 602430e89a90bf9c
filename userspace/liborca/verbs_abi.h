/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * liborca: the part of libibverbs' private provider interface that liborca
 * uses, declared for rdma-core 44 (libibverbs 1.14.44, symbol version
 * IBVERBS_PRIVATE_34).
 *
 * Debian does not install rdma-core's internal provider header, so these
 * declarations are written here from the layouts of that release.  This
 * interface has no stability guarantee across rdma-core releases: the
 * build refuses any other libibverbs, and every layout that libibverbs
 * reads or writes on our behalf is pinned by the assertions at the end of
 * this file.  Member names follow rdma-core's where libibverbs gives them
 * a meaning, so the two can be compared side by side.
 */
#ifndef ORCA_VERBS_ABI_H
#define ORCA_VERBS_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>

/* The private ABI generation this header describes. */
#define ORCA_VERBS_PABI_VERSION	34

/* A node of libibverbs' intrusive doubly linked lists. */
struct verbs_list_node {
	struct verbs_list_node *next;
	struct verbs_list_node *prev;
};

/*
 * Device matching.  libibverbs walks a provider's match table until an
 * entry of kind VERBS_MATCH_SENTINEL.  A MODALIAS entry is an fnmatch(3)
 * pattern applied to the parent device's modalias.
 */
enum verbs_match_kind {
	VERBS_MATCH_SENTINEL	= 0,
	VERBS_MATCH_PCI		= 1,
	VERBS_MATCH_MODALIAS	= 2,
	VERBS_MATCH_DRIVER_ID	= 3,
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

/* What libibverbs learnt about one uverbs device from sysfs and netlink. */
struct verbs_sysfs_dev {
	struct verbs_list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];	/* "uverbsN" */
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];	/* "orcaN" */
	char ibdev_path[IBV_SYSFS_PATH_MAX];	/* .../class/infiniband/orcaN */
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;			/* enum rdma_driver_id */
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;			/* the uverbs device's abi_version */
	struct timespec time_created;
};

struct verbs_device;

/* What a provider registers with verbs_register_driver_34(). */
struct verbs_device_ops {
	const char *name;

	/* Inclusive range of sysfs_dev->abi_ver the provider accepts. */
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;

	/*
	 * Called for every candidate device after the table lookup, with
	 * sysfs_dev->match set to the matching entry or NULL.  Returns
	 * whether the provider takes the device.
	 */
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);

	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);

	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

/* A provider's device embeds this; libibverbs fills it after alloc_device. */
struct verbs_device {
	struct ibv_device device;		/* must stay first */
	const struct verbs_device_ops *ops;
	int refcount;				/* atomic_int in libibverbs */
	struct verbs_list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

/*
 * An XRC domain.  libibverbs reads handle through container_of() of
 * every ibv_xrcd a provider hands back or is handed (XRC SRQs, XRC_RECV
 * QPs, ibv_open_qp), so a provider's XRCDs must be these.
 * ibv_cmd_open_xrcd() sets handle, and VERBS_XRCD_HANDLE in comp_mask,
 * when the size it is given covers handle.
 */
enum verbs_xrcd_mask {
	VERBS_XRCD_HANDLE	= 1 << 0,
};

struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;			/* enum verbs_xrcd_mask */
	uint32_t handle;
};

/*
 * The "verbs_" wrappers around the public objects.  libibverbs looks
 * beyond the public struct in some places, so a provider's objects must
 * embed these rather than the bare ibv_ ones: ibv_qp_to_qp_ex() reads
 * verbs_qp.comp_mask of every QP, and ibv_dereg_mr() reads
 * verbs_mr.mr_type and verbs_mr.access, which ibv_cmd_reg_mr() sets.
 */
enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};

enum verbs_qp_mask {
	VERBS_QP_XRCD		= 1 << 0,
	VERBS_QP_EX		= 1 << 1,	/* qp_ex is valid */
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;			/* enum verbs_qp_mask */
	struct verbs_xrcd *xrcd;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

/*
 * Device memory (interface 1.4).  ibv_cmd_free_dm() and
 * ibv_cmd_reg_dm_mr() take the allocation as one of these and read
 * handle and dm.context; the public ibv_dm's own handle and comp_mask
 * (IBV_DM_MASK_HANDLE) are what ibv_cmd_alloc_dm() would set for the
 * application.  liborca fills all of them itself (verbs.c,
 * orca_alloc_dm()).
 */
struct verbs_dm {
	struct ibv_dm dm;
	uint32_t handle;
};

/*
 * The provider's verbs.  verbs_set_ops() copies every non-NULL member;
 * members left NULL keep libibverbs' stubs, which fail with EOPNOTSUPP.
 * The order is rdma-core 44's, which is alphabetical.
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(struct ibv_context *context,
					      struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(struct ibv_context *context,
						struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(struct ibv_context *context,
							  struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(struct ibv_context *context,
							  struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *attr);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *attr);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			  int attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				      uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

/*
 * write() command buffers.  Each is the uverbs command header followed by
 * the core request of the kernel's struct of the same role; the kernel
 * structs themselves end in flexible arrays, so the core fields are
 * spelled out and pinned to the kernel layout below.  A provider appends
 * its udata request directly after one of these and passes the total
 * size; libibverbs fills the header and the response pointer.
 */
struct ibv_get_context {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
};

struct ibv_query_port {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
	__u8 port_num;
	__u8 reserved[7];
};

struct ibv_alloc_pd {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
};

struct ibv_reg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
	__aligned_u64 start;
	__aligned_u64 length;
	__aligned_u64 hca_va;
	__u32 pd_handle;
	__u32 access_flags;
};

/*
 * The kernel's alloc_mw request ends in a flexible driver_data array;
 * Orca sends no udata with it, so this is the whole command.
 */
struct ibv_alloc_mw {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
	__u32 pd_handle;
	__u8 mw_type;
	__u8 reserved[3];
};

struct ibv_rereg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
	__u32 mr_handle;
	__u32 flags;
	__aligned_u64 start;
	__aligned_u64 length;
	__aligned_u64 hca_va;
	__u32 pd_handle;
	__u32 access_flags;
};

/*
 * The header of the extended write() commands: the ordinary one, then
 * the response pointer and the udata lengths in 8-byte words.
 */
struct ex_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};

/*
 * CREATE_CQ, for every CQ.  The kernel's ex_create_cq request has no
 * flexible array, so it is embedded whole; libibverbs fills it (or the
 * legacy CREATE_CQ request, which it builds in the same room, see
 * ibv_cmd_create_cq_ex() below).
 */
struct ibv_create_cq_ex {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_create_cq core_payload;
};

struct ibv_resize_cq {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
	__u32 cq_handle;
	__u32 cqe;
};

struct ibv_create_qp {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
	__aligned_u64 user_handle;
	__u32 pd_handle;
	__u32 send_cq_handle;
	__u32 recv_cq_handle;
	__u32 srq_handle;
	__u32 max_send_wr;
	__u32 max_recv_wr;
	__u32 max_send_sge;
	__u32 max_recv_sge;
	__u32 max_inline_data;
	__u8 sq_sig_all;
	__u8 qp_type;
	__u8 is_srq;
	__u8 reserved;
};

/*
 * The kernel's modify_qp request ends in a zero-length array, not a
 * flexible one, so it can be embedded whole.  libibverbs fills it.
 */
struct ibv_modify_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_qp core_payload;
};

struct ibv_query_qp {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
	__u32 qp_handle;
	__u32 attr_mask;
};

struct ibv_create_srq {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
	__aligned_u64 user_handle;
	__u32 pd_handle;
	__u32 max_wr;
	__u32 max_sge;
	__u32 srq_limit;
};

struct ibv_modify_srq {
	struct ib_uverbs_cmd_hdr hdr;
	__u32 srq_handle;
	__u32 attr_mask;
	__u32 max_wr;
	__u32 srq_limit;
};

struct ibv_query_srq {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
	__u32 srq_handle;
	__u32 reserved;
};

/*
 * XRC (interface 1.4).  OPEN_XRCD carries no udata; libibverbs fills fd
 * and oflags.  CREATE_XSRQ is the write() command of ibv_cmd_create_srq_ex()
 * for an XRC SRQ on a kernel without the ioctl, which libibverbs builds
 * in this room with the udata after it.  The extended CREATE_QP request
 * has no flexible array, so it is embedded whole.  OPEN_QP carries no
 * udata either.
 */
struct ibv_open_xrcd {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
	__u32 fd;
	__u32 oflags;
};

struct ibv_create_xsrq {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
	__aligned_u64 user_handle;
	__u32 srq_type;
	__u32 pd_handle;
	__u32 max_wr;
	__u32 max_sge;
	__u32 srq_limit;
	__u32 max_num_tags;
	__u32 xrcd_handle;
	__u32 cq_handle;
};

struct ibv_create_qp_ex {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_create_qp core_payload;
};

struct ibv_open_qp {
	struct ib_uverbs_cmd_hdr hdr;
	__aligned_u64 response;
	__aligned_u64 user_handle;
	__u32 pd_handle;
	__u32 qpn;
	__u8 qp_type;
	__u8 reserved[7];
};

/* Provider registration; the suffix is the private ABI generation. */
void verbs_register_driver_34(const struct verbs_device_ops *ops);

/*
 * Allocates alloc_size zeroed bytes and initialises the verbs_context that
 * sits context_offset bytes into them.  Takes ownership of cmd_fd: on
 * failure it closes cmd_fd, sets errno and returns NULL.
 */
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
/* Releases what the above set up, including cmd_fd and async_fd. */
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

/* Logging, enabled with VERBS_LOG_LEVEL and VERBS_LOG_FILE. */
enum verbs_log_level {
	VERBS_LOG_LEVEL_NONE,
	VERBS_LOG_ERR,
	VERBS_LOG_WARN,
	VERBS_LOG_INFO,
	VERBS_LOG_DEBUG,
};

void __verbs_log(struct verbs_context *ctx, uint32_t level,
		 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Reads <ibdev_path>/<fnfmt...> into buf, NUL terminated with one
 * trailing newline removed.  Returns the length or -1.
 */
int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Control path commands.  All return 0 or a positive errno value.
 * cmd_size/resp_size cover the core struct plus the provider's udata
 * appended to it.
 */
int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
/* resp and resp_size may be NULL when the caller needs no raw response. */
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);

/*
 * Memory regions.  reg_mr fills vmr->ibv_mr's handle, lkey, rkey and
 * context, and vmr's mr_type and access; ibv_reg_mr() sets the rest.
 */
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
/*
 * rereg_mr sends the handle, flags, range, access and (with
 * IBV_REREG_MR_CHANGE_PD) the new PD's handle, and on success copies the
 * answer's lkey and rkey into vmr->ibv_mr; ibv_rereg_mr() sets pd, addr
 * and length after us.
 */
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
/*
 * advise_mr sends the ADVISE_MR ioctl (object MR) with the PD's handle,
 * the advice, the flags and the SGE array, and returns the kernel's
 * errno; it keeps nothing.
 */
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list,
		      uint32_t num_sge);

/*
 * Memory windows.  alloc_mw sends pd_handle and mw_type (reserved
 * zeroed) and fills mw's context, pd, rkey, handle and type from the
 * answer; ibv_alloc_mw() sets nothing after us.  dealloc_mw sends the
 * handle (ioctl, or DEALLOC_MW when ioctl is not available) and frees
 * nothing.
 */
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size,
		     struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);

/*
 * Completion queues.  create_cq_ex sends CREATE_CQ (ioctl, or write()
 * when the kernel has no ioctl) with cq_attr's cqe, channel and
 * comp_vector; comp_mask may only hold IBV_CQ_INIT_ATTR_MASK_FLAGS and
 * _PD (EOPNOTSUPP otherwise).  Either timestamp bit of wc_flags becomes
 * the command flag IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION (and
 * IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN in flags becomes IGNORE_OVERRUN).
 * With a flag, a kernel without the ioctl gets the extended write()
 * command, unless cmd_flags has CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX and
 * the only flag is the timestamp one: then the legacy command, which
 * drops it.  Without a flag it is the legacy command, whose request and
 * response libibverbs builds right before the udata, in the room of the
 * extended ones.  It fills cq->cq's context, handle and cqe (the kernel's
 * answer); ibv_create_cq{,_ex}() initialise the rest afterwards.
 * resize_cq updates cq->cqe.  destroy_cq waits on cq->mutex/cond until
 * every reported event was acknowledged.
 */
enum {
	CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX = 1 << 0,
};

int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);

/*
 * The data-path commands.  liborca uses them only with no WR, as the
 * "kick" that tells orca.ko to ring a doorbell: post_send/post_recv
 * then send a POST_SEND/POST_RECV with wr_count 0 and leave *bad_wr
 * alone unless the command fails.  req_notify_cq sends REQ_NOTIFY_CQ
 * (solicited_only normalised to 0/1).  All return 0 or an errno.
 */
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/*
 * Queue pairs.  create_qp_ex accepts comp_mask PD, XRCD and
 * SEND_OPS_FLAGS only (EINVAL otherwise); it fills qp->qp completely
 * (context, handle, qp_num, pd, cqs, srq, type, state RESET, mutex, cond),
 * sets qp->comp_mask to 0 (XRCD aside), and writes the actual caps back
 * to attr_ex->cap.  modify_qp and query_qp refuse IBV_QP_RATE_LIMIT and
 * above with EOPNOTSUPP; cmd must be zeroed, only masked fields are set.
 */
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
/*
 * create_qp_ex2 is create_qp_ex with the extended response, and takes
 * the CREATE_FLAGS, MAX_TSO_HEADER, IND_TABLE and RX_HASH masks too
 * (EINVAL for others).  An XRC_RECV QP needs XRCD in comp_mask (EINVAL)
 * and names no PD or CQ: the command carries the XRCD's handle in
 * pd_handle.  An XRC_SEND QP needs PD and send_cq; recv_cq is not sent,
 * the srq is if set, and max_recv_wr/max_recv_sge are set to 0 in
 * attr_ex before the command.  Without create flags a kernel without
 * the ioctl gets the plain CREATE_QP write() command.  On success the
 * ibv_qp is filled as by create_qp_ex, qp->comp_mask VERBS_QP_XRCD and
 * qp->xrcd with the XRCD mask.
 *
 * open_qp (OPEN_QP, write() only) needs XRCD, NUM and TYPE in comp_mask
 * (EINVAL; bits from IBV_QP_OPEN_ATTR_RESERVED on EOPNOTSUPP) and sends
 * the XRCD's handle, qp_num and qp_type.  It sets qp's handle, context,
 * qp_context, qp_num and qp_type, pd, CQs and srq NULL, state
 * IBV_QPS_UNKNOWN, events_completed 0, mutex and cond, and, when vqp_sz
 * covers xrcd, comp_mask VERBS_QP_XRCD and xrcd.
 */
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *attr_ex,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size);
int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr,
		    struct ibv_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);

/*
 * Shared receive queues.  create_srq fills srq->context, handle, mutex
 * and cond, and writes the actual max_wr/max_sge back to attr->attr;
 * ibv_create_srq() sets the rest.
 */
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
/*
 * create_srq_ex: comp_mask bits from IBV_SRQ_INIT_ATTR_RESERVED on are
 * EOPNOTSUPP, no PD EINVAL; an XRC SRQ needs XRCD and CQ (EINVAL).  It
 * fills srq's context, handle, mutex and cond and writes max_wr/max_sge
 * back to attr_ex->attr.  For an XRC SRQ it also sets srq_type, xrcd
 * and srq_num, the last from the kernel's srqn (the core response's on
 * the CREATE_XSRQ write() command, UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM
 * with the ioctl).  A basic SRQ gets the plain CREATE_SRQ command on a
 * kernel without the ioctl, and then nothing of verbs_srq is set.
 * Nothing sets srq_context, pd or events_completed.
 */
int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct ibv_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size);

/*
 * XRC domains.  open_xrcd needs IBV_XRCD_INIT_ATTR_FD and _OFLAGS in
 * comp_mask (EINVAL; bits from IBV_XRCD_INIT_ATTR_RESERVED on are
 * EOPNOTSUPP), sends OPEN_XRCD (write() only) and sets the context and,
 * when vxrcd_size covers it, the handle.  close_xrcd sends the handle
 * (ioctl, or CLOSE_XRCD) and frees nothing.
 */
int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      struct ibv_open_xrcd *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size);
int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);

/*
 * Address handles.  The request carries no udata; create_ah fills
 * ah->handle and ah->context.
 */
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);

/*
 * Device memory.  Both are ioctl-only (no write() fallback) and return
 * 0 or an errno.  free_dm sends DM_FREE with dm->handle; the kernel
 * refuses it with EBUSY while an MR uses the allocation.  reg_dm_mr
 * fails with EINVAL, nothing sent, unless access has
 * IBV_ACCESS_ZERO_BASED; else it sends DM_MR_REG with the PD's and the
 * DM's handles, offset, length and access, and on success sets vmr's
 * handle, lkey, rkey, context, pd, length, addr (NULL) and mr_type
 * (IBV_MR_TYPE_MR), but not access.  ibv_reg_dm_mr() sets nothing
 * after us.
 *
 * The link is rdma-core's struct ibv_command_buffer, an internal
 * structure with no stable layout: liborca only ever passes NULL, so it
 * stays incomplete here.  ibv_cmd_alloc_dm() is not declared because
 * Orca's mandatory driver attribute could only reach it through such a
 * link (see orca_alloc_dm()).
 */
struct ibv_command_buffer;

int ibv_cmd_free_dm(struct verbs_dm *dm);
int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
		      uint64_t offset, size_t length, unsigned int access,
		      struct verbs_mr *vmr, struct ibv_command_buffer *link);

/*
 * Layout checks.  The values were taken from rdma-core v44.0's own
 * declarations (compiled for x86_64) and cross-checked against Debian's
 * libibverbs.so.1 1.14.44 machine code: verbs_set_ops() reads 76 ops at
 * offsets 0..600, and the matching code reads match entries with a
 * 24-byte stride, sysfs_dev->abi_ver at 968, ops->alloc_device at 56 and
 * verbs_device->ops at 664.  ibv_cmd_alloc_mw() writes the command's
 * pd_handle, mw_type and reserved bytes at 16, 20 and 21..23, hands the
 * kernel a core request of 24 bytes and a core response of 8, and
 * fills struct ibv_mw as pinned below.
 */
#define VERBS_ABI_CHECK(expr) _Static_assert(expr, #expr)

#if defined(__x86_64__)
VERBS_ABI_CHECK(sizeof(struct verbs_match_ent) == 24);
VERBS_ABI_CHECK(offsetof(struct verbs_match_ent, u) == 8);
VERBS_ABI_CHECK(offsetof(struct verbs_match_ent, vendor) == 16);
VERBS_ABI_CHECK(offsetof(struct verbs_match_ent, device) == 18);
VERBS_ABI_CHECK(offsetof(struct verbs_match_ent, kind) == 20);

VERBS_ABI_CHECK(sizeof(struct verbs_sysfs_dev) == 992);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, provider_data) == 16);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, match) == 24);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, flags) == 32);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, sysfs_name) == 36);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, sysfs_cdev) == 104);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, ibdev_name) == 112);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, ibdev_path) == 176);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, modalias) == 432);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, node_guid) == 944);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, driver_id) == 952);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, node_type) == 956);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, ibdev_idx) == 960);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, num_ports) == 964);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, abi_ver) == 968);
VERBS_ABI_CHECK(offsetof(struct verbs_sysfs_dev, time_created) == 976);

VERBS_ABI_CHECK(sizeof(struct verbs_device_ops) == 72);
VERBS_ABI_CHECK(offsetof(struct verbs_device_ops, match_min_abi_version) == 8);
VERBS_ABI_CHECK(offsetof(struct verbs_device_ops, match_max_abi_version) == 12);
VERBS_ABI_CHECK(offsetof(struct verbs_device_ops, match_table) == 16);
VERBS_ABI_CHECK(offsetof(struct verbs_device_ops, static_providers) == 24);
VERBS_ABI_CHECK(offsetof(struct verbs_device_ops, match_device) == 32);
VERBS_ABI_CHECK(offsetof(struct verbs_device_ops, alloc_context) == 40);
VERBS_ABI_CHECK(offsetof(struct verbs_device_ops, import_context) == 48);
VERBS_ABI_CHECK(offsetof(struct verbs_device_ops, alloc_device) == 56);
VERBS_ABI_CHECK(offsetof(struct verbs_device_ops, uninit_device) == 64);

VERBS_ABI_CHECK(sizeof(struct ibv_device) == 664);
VERBS_ABI_CHECK(sizeof(struct verbs_device) == 712);
VERBS_ABI_CHECK(offsetof(struct verbs_device, ops) == 664);
VERBS_ABI_CHECK(offsetof(struct verbs_device, refcount) == 672);
VERBS_ABI_CHECK(offsetof(struct verbs_device, entry) == 680);
VERBS_ABI_CHECK(offsetof(struct verbs_device, sysfs) == 696);
VERBS_ABI_CHECK(offsetof(struct verbs_device, core_support) == 704);

VERBS_ABI_CHECK(sizeof(struct verbs_context) == 648);

VERBS_ABI_CHECK(sizeof(struct verbs_context_ops) == 76 * sizeof(void *));
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, advise_mr) == 0);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, alloc_mw) == 16);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, alloc_pd) == 40);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, bind_mw) == 80);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, create_cq) == 120);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, create_qp) == 152);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, dealloc_mw) == 200);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, dealloc_pd) == 208);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, dereg_mr) == 224);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, free_context) == 312);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, modify_qp) == 376);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, poll_cq) == 424);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, post_send) == 440);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, query_device_ex) == 464);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, query_port) == 480);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, query_rt_values) == 504);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, reg_mr) == 544);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, req_notify_cq) == 552);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, unimport_pd) == 600);
/* Device memory: alloc_dm, free_dm, import_dm, reg_dm_mr, unimport_dm. */
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, alloc_dm) == 8);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, free_dm) == 320);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, import_dm) == 336);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, reg_dm_mr) == 528);
VERBS_ABI_CHECK(offsetof(struct verbs_context_ops, unimport_dm) == 584);

/*
 * The object wrappers (rdma-core v44.0's driver.h, compiled for x86_64).
 * libibverbs reads verbs_qp.comp_mask at 352 in ibv_qp_to_qp_ex() and
 * writes verbs_mr.mr_type/access at 48/52 in ibv_cmd_reg_mr().
 */
VERBS_ABI_CHECK(sizeof(struct ibv_mr) == 48);
VERBS_ABI_CHECK(sizeof(struct verbs_mr) == 56);
VERBS_ABI_CHECK(offsetof(struct verbs_mr, mr_type) == 48);
VERBS_ABI_CHECK(offsetof(struct verbs_mr, access) == 52);
VERBS_ABI_CHECK(IBV_MR_TYPE_MR == 0 && IBV_MR_TYPE_DMABUF_MR == 3);

/*
 * ibv_cmd_alloc_mw() stores the window's context and pd at 0 and 8,
 * rkey and handle at 16 and 20 (from the response's rkey at 4 and
 * mw_handle at 0) and type at 24.
 */
VERBS_ABI_CHECK(sizeof(struct ibv_mw) == 32);
VERBS_ABI_CHECK(offsetof(struct ibv_mw, context) == 0);
VERBS_ABI_CHECK(offsetof(struct ibv_mw, pd) == 8);
VERBS_ABI_CHECK(offsetof(struct ibv_mw, rkey) == 16);
VERBS_ABI_CHECK(offsetof(struct ibv_mw, handle) == 20);
VERBS_ABI_CHECK(offsetof(struct ibv_mw, type) == 24);

VERBS_ABI_CHECK(sizeof(struct ibv_qp) == 160);
VERBS_ABI_CHECK(sizeof(struct ibv_qp_ex) == 352);
VERBS_ABI_CHECK(offsetof(struct ibv_qp_ex, qp_base) == 0);
VERBS_ABI_CHECK(sizeof(struct verbs_qp) == 368);
VERBS_ABI_CHECK(offsetof(struct verbs_qp, qp) == 0);
VERBS_ABI_CHECK(offsetof(struct verbs_qp, qp_ex) == 0);
VERBS_ABI_CHECK(offsetof(struct verbs_qp, comp_mask) == 352);
VERBS_ABI_CHECK(offsetof(struct verbs_qp, xrcd) == 360);

VERBS_ABI_CHECK(sizeof(struct ibv_cq) == 128);
VERBS_ABI_CHECK(sizeof(struct ibv_cq_ex) == 288);
VERBS_ABI_CHECK(sizeof(struct verbs_cq) == 288);
VERBS_ABI_CHECK(offsetof(struct verbs_cq, cq) == 0);
VERBS_ABI_CHECK(offsetof(struct verbs_cq, cq_ex) == 0);

VERBS_ABI_CHECK(sizeof(struct ibv_xrcd) == 8);
VERBS_ABI_CHECK(sizeof(struct verbs_xrcd) == 16);
VERBS_ABI_CHECK(offsetof(struct verbs_xrcd, comp_mask) == 8);
VERBS_ABI_CHECK(offsetof(struct verbs_xrcd, handle) == 12);

/*
 * Device memory.  ibv_cmd_free_dm() and ibv_cmd_reg_dm_mr() read the
 * DM's context at 0 and handle at 32 (libibverbs 1.14.44's code);
 * reg_dm_mr tests access against 0x20 and stores the MR's context, pd,
 * addr, length, handle, lkey, rkey and mr_type at 0, 8, 16, 24, 32, 36,
 * 40 and 48, nothing at 52 (access).
 */
VERBS_ABI_CHECK(sizeof(struct ibv_dm) == 32);
VERBS_ABI_CHECK(offsetof(struct ibv_dm, context) == 0);
VERBS_ABI_CHECK(offsetof(struct ibv_dm, memcpy_to_dm) == 8);
VERBS_ABI_CHECK(offsetof(struct ibv_dm, memcpy_from_dm) == 16);
VERBS_ABI_CHECK(offsetof(struct ibv_dm, comp_mask) == 24);
VERBS_ABI_CHECK(offsetof(struct ibv_dm, handle) == 28);
VERBS_ABI_CHECK(sizeof(struct verbs_dm) == 40);
VERBS_ABI_CHECK(offsetof(struct verbs_dm, dm) == 0);
VERBS_ABI_CHECK(offsetof(struct verbs_dm, handle) == 32);
VERBS_ABI_CHECK(IBV_ACCESS_ZERO_BASED == 0x20);
VERBS_ABI_CHECK(offsetof(struct ibv_mr, handle) == 32);
VERBS_ABI_CHECK(offsetof(struct ibv_mr, lkey) == 36);
VERBS_ABI_CHECK(offsetof(struct ibv_mr, rkey) == 40);

VERBS_ABI_CHECK(sizeof(struct ibv_srq) == 128);
VERBS_ABI_CHECK(sizeof(struct verbs_srq) == 160);
VERBS_ABI_CHECK(offsetof(struct verbs_srq, srq_type) == 128);
VERBS_ABI_CHECK(offsetof(struct verbs_srq, xrcd) == 136);
VERBS_ABI_CHECK(offsetof(struct verbs_srq, cq) == 144);
VERBS_ABI_CHECK(offsetof(struct verbs_srq, srq_num) == 152);
#else
#error "liborca: the rdma-core 44 layouts are only verified for x86_64"
#endif

/* The command buffers must match header + kernel core request exactly. */
VERBS_ABI_CHECK(sizeof(struct ib_uverbs_cmd_hdr) == 8);
VERBS_ABI_CHECK(sizeof(struct ibv_get_context) ==
		sizeof(struct ib_uverbs_cmd_hdr) +
		sizeof(struct ib_uverbs_get_context));
VERBS_ABI_CHECK(sizeof(struct ibv_get_context) == 16);
VERBS_ABI_CHECK(sizeof(struct ibv_query_port) ==
		sizeof(struct ib_uverbs_cmd_hdr) +
		sizeof(struct ib_uverbs_query_port));
VERBS_ABI_CHECK(sizeof(struct ibv_query_port) == 24);
VERBS_ABI_CHECK(offsetof(struct ibv_query_port, port_num) ==
		sizeof(struct ib_uverbs_cmd_hdr) +
		offsetof(struct ib_uverbs_query_port, port_num));
VERBS_ABI_CHECK(sizeof(struct ibv_alloc_pd) ==
		sizeof(struct ib_uverbs_cmd_hdr) +
		sizeof(struct ib_uverbs_alloc_pd));
VERBS_ABI_CHECK(sizeof(struct ibv_alloc_pd) == 16);

#define VERBS_CMD_CHECK(cmd, kcmd, size)					\
	VERBS_ABI_CHECK(sizeof(struct cmd) ==					\
			sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct kcmd)); \
	VERBS_ABI_CHECK(sizeof(struct cmd) == (size))
#define VERBS_CMD_FIELD(cmd, kcmd, field)					\
	VERBS_ABI_CHECK(offsetof(struct cmd, field) ==				\
			sizeof(struct ib_uverbs_cmd_hdr) +			\
			offsetof(struct kcmd, field))

VERBS_CMD_CHECK(ibv_reg_mr, ib_uverbs_reg_mr, 48);
VERBS_CMD_FIELD(ibv_reg_mr, ib_uverbs_reg_mr, start);
VERBS_CMD_FIELD(ibv_reg_mr, ib_uverbs_reg_mr, length);
VERBS_CMD_FIELD(ibv_reg_mr, ib_uverbs_reg_mr, hca_va);
VERBS_CMD_FIELD(ibv_reg_mr, ib_uverbs_reg_mr, pd_handle);
VERBS_CMD_FIELD(ibv_reg_mr, ib_uverbs_reg_mr, access_flags);

VERBS_CMD_CHECK(ibv_rereg_mr, ib_uverbs_rereg_mr, 56);
VERBS_CMD_FIELD(ibv_rereg_mr, ib_uverbs_rereg_mr, mr_handle);
VERBS_CMD_FIELD(ibv_rereg_mr, ib_uverbs_rereg_mr, flags);
VERBS_CMD_FIELD(ibv_rereg_mr, ib_uverbs_rereg_mr, start);
VERBS_CMD_FIELD(ibv_rereg_mr, ib_uverbs_rereg_mr, length);
VERBS_CMD_FIELD(ibv_rereg_mr, ib_uverbs_rereg_mr, hca_va);
VERBS_CMD_FIELD(ibv_rereg_mr, ib_uverbs_rereg_mr, pd_handle);
VERBS_CMD_FIELD(ibv_rereg_mr, ib_uverbs_rereg_mr, access_flags);

VERBS_CMD_CHECK(ibv_alloc_mw, ib_uverbs_alloc_mw, 24);
VERBS_CMD_FIELD(ibv_alloc_mw, ib_uverbs_alloc_mw, response);
VERBS_CMD_FIELD(ibv_alloc_mw, ib_uverbs_alloc_mw, pd_handle);
VERBS_CMD_FIELD(ibv_alloc_mw, ib_uverbs_alloc_mw, mw_type);
VERBS_CMD_FIELD(ibv_alloc_mw, ib_uverbs_alloc_mw, reserved);
/* Where ibv_cmd_alloc_mw() writes them (libibverbs 1.14.44's code). */
VERBS_ABI_CHECK(offsetof(struct ibv_alloc_mw, pd_handle) == 16);
VERBS_ABI_CHECK(offsetof(struct ibv_alloc_mw, mw_type) == 20);

/*
 * ibv_cmd_create_cq_ex() hands the kernel (cmd + 56, cmd_size - 56) and
 * (resp + 16, resp_size - 16) as udata: libibverbs 1.14.44's code passes
 * these core sizes, tests wc_flags against 0x880 (the two timestamp
 * bits) and refuses comp_mask above 3 with EOPNOTSUPP.  Its legacy
 * fallback writes the CREATE_CQ header and core request (40 bytes) and
 * expects the core response (8) right before the udata, which must fit.
 */
VERBS_ABI_CHECK(sizeof(struct ex_hdr) == 24);
VERBS_ABI_CHECK(sizeof(struct ibv_create_cq_ex) == 56);
VERBS_ABI_CHECK(sizeof(struct ibv_create_cq_ex) ==
		sizeof(struct ex_hdr) + sizeof(struct ib_uverbs_ex_create_cq));
VERBS_ABI_CHECK(offsetof(struct ibv_create_cq_ex, core_payload) == 24);
VERBS_ABI_CHECK(sizeof(struct ibv_create_cq_ex) >=
		sizeof(struct ib_uverbs_cmd_hdr) +
		sizeof(struct ib_uverbs_create_cq));
VERBS_ABI_CHECK(sizeof(struct ib_uverbs_ex_create_cq_resp) == 16);
VERBS_ABI_CHECK(sizeof(struct ib_uverbs_ex_create_cq_resp) >=
		sizeof(struct ib_uverbs_create_cq_resp));
VERBS_ABI_CHECK(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP == 0x80 &&
		IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK == 0x800);
VERBS_ABI_CHECK(IBV_CQ_INIT_ATTR_MASK_FLAGS == 1 &&
		IBV_CQ_INIT_ATTR_MASK_PD == 2);
/* Where it reads them in the caller's attributes. */
VERBS_ABI_CHECK(offsetof(struct ibv_cq_init_attr_ex, wc_flags) == 32);
VERBS_ABI_CHECK(offsetof(struct ibv_cq_init_attr_ex, comp_mask) == 40);

VERBS_CMD_CHECK(ibv_resize_cq, ib_uverbs_resize_cq, 24);
VERBS_CMD_FIELD(ibv_resize_cq, ib_uverbs_resize_cq, cq_handle);
VERBS_CMD_FIELD(ibv_resize_cq, ib_uverbs_resize_cq, cqe);

VERBS_CMD_CHECK(ibv_create_qp, ib_uverbs_create_qp, 64);
VERBS_CMD_FIELD(ibv_create_qp, ib_uverbs_create_qp, user_handle);
VERBS_CMD_FIELD(ibv_create_qp, ib_uverbs_create_qp, pd_handle);
VERBS_CMD_FIELD(ibv_create_qp, ib_uverbs_create_qp, send_cq_handle);
VERBS_CMD_FIELD(ibv_create_qp, ib_uverbs_create_qp, recv_cq_handle);
VERBS_CMD_FIELD(ibv_create_qp, ib_uverbs_create_qp, srq_handle);
VERBS_CMD_FIELD(ibv_create_qp, ib_uverbs_create_qp, max_send_wr);
VERBS_CMD_FIELD(ibv_create_qp, ib_uverbs_create_qp, max_recv_wr);
VERBS_CMD_FIELD(ibv_create_qp, ib_uverbs_create_qp, max_send_sge);
VERBS_CMD_FIELD(ibv_create_qp, ib_uverbs_create_qp, max_recv_sge);
VERBS_CMD_FIELD(ibv_create_qp, ib_uverbs_create_qp, max_inline_data);
VERBS_CMD_FIELD(ibv_create_qp, ib_uverbs_create_qp, sq_sig_all);
VERBS_CMD_FIELD(ibv_create_qp, ib_uverbs_create_qp, qp_type);
VERBS_CMD_FIELD(ibv_create_qp, ib_uverbs_create_qp, is_srq);
VERBS_CMD_FIELD(ibv_create_qp, ib_uverbs_create_qp, reserved);

VERBS_CMD_CHECK(ibv_modify_qp, ib_uverbs_modify_qp, 120);
VERBS_ABI_CHECK(offsetof(struct ibv_modify_qp, core_payload) == 8);

VERBS_CMD_CHECK(ibv_query_qp, ib_uverbs_query_qp, 24);
VERBS_CMD_FIELD(ibv_query_qp, ib_uverbs_query_qp, qp_handle);
VERBS_CMD_FIELD(ibv_query_qp, ib_uverbs_query_qp, attr_mask);

VERBS_CMD_CHECK(ibv_create_srq, ib_uverbs_create_srq, 40);
VERBS_CMD_FIELD(ibv_create_srq, ib_uverbs_create_srq, user_handle);
VERBS_CMD_FIELD(ibv_create_srq, ib_uverbs_create_srq, pd_handle);
VERBS_CMD_FIELD(ibv_create_srq, ib_uverbs_create_srq, max_wr);
VERBS_CMD_FIELD(ibv_create_srq, ib_uverbs_create_srq, max_sge);
VERBS_CMD_FIELD(ibv_create_srq, ib_uverbs_create_srq, srq_limit);

VERBS_CMD_CHECK(ibv_modify_srq, ib_uverbs_modify_srq, 24);
VERBS_CMD_FIELD(ibv_modify_srq, ib_uverbs_modify_srq, srq_handle);
VERBS_CMD_FIELD(ibv_modify_srq, ib_uverbs_modify_srq, attr_mask);
VERBS_CMD_FIELD(ibv_modify_srq, ib_uverbs_modify_srq, max_wr);
VERBS_CMD_FIELD(ibv_modify_srq, ib_uverbs_modify_srq, srq_limit);

VERBS_CMD_CHECK(ibv_query_srq, ib_uverbs_query_srq, 24);
VERBS_CMD_FIELD(ibv_query_srq, ib_uverbs_query_srq, srq_handle);
VERBS_CMD_FIELD(ibv_query_srq, ib_uverbs_query_srq, reserved);

VERBS_CMD_CHECK(ibv_open_xrcd, ib_uverbs_open_xrcd, 24);
VERBS_CMD_FIELD(ibv_open_xrcd, ib_uverbs_open_xrcd, fd);
VERBS_CMD_FIELD(ibv_open_xrcd, ib_uverbs_open_xrcd, oflags);

VERBS_CMD_CHECK(ibv_create_xsrq, ib_uverbs_create_xsrq, 56);
VERBS_CMD_FIELD(ibv_create_xsrq, ib_uverbs_create_xsrq, user_handle);
VERBS_CMD_FIELD(ibv_create_xsrq, ib_uverbs_create_xsrq, srq_type);
VERBS_CMD_FIELD(ibv_create_xsrq, ib_uverbs_create_xsrq, pd_handle);
VERBS_CMD_FIELD(ibv_create_xsrq, ib_uverbs_create_xsrq, max_wr);
VERBS_CMD_FIELD(ibv_create_xsrq, ib_uverbs_create_xsrq, max_sge);
VERBS_CMD_FIELD(ibv_create_xsrq, ib_uverbs_create_xsrq, srq_limit);
VERBS_CMD_FIELD(ibv_create_xsrq, ib_uverbs_create_xsrq, max_num_tags);
VERBS_CMD_FIELD(ibv_create_xsrq, ib_uverbs_create_xsrq, xrcd_handle);
VERBS_CMD_FIELD(ibv_create_xsrq, ib_uverbs_create_xsrq, cq_handle);

VERBS_ABI_CHECK(sizeof(struct ib_uverbs_ex_create_qp) == 64);
VERBS_ABI_CHECK(sizeof(struct ibv_create_qp_ex) == 88);
VERBS_ABI_CHECK(sizeof(struct ibv_create_qp_ex) ==
		sizeof(struct ex_hdr) + sizeof(struct ib_uverbs_ex_create_qp));
VERBS_ABI_CHECK(offsetof(struct ibv_create_qp_ex, core_payload) == 24);

VERBS_CMD_CHECK(ibv_open_qp, ib_uverbs_open_qp, 40);
VERBS_CMD_FIELD(ibv_open_qp, ib_uverbs_open_qp, user_handle);
VERBS_CMD_FIELD(ibv_open_qp, ib_uverbs_open_qp, pd_handle);
VERBS_CMD_FIELD(ibv_open_qp, ib_uverbs_open_qp, qpn);
VERBS_CMD_FIELD(ibv_open_qp, ib_uverbs_open_qp, qp_type);
VERBS_CMD_FIELD(ibv_open_qp, ib_uverbs_open_qp, reserved);

/*
 * The core responses that provider udata is appended to.  libibverbs
 * hands the kernel (resp + sizeof(core), resp_size - sizeof(core)) as
 * the udata out buffer, so these sizes are where Orca's structs start.
 */
VERBS_ABI_CHECK(sizeof(struct ib_uverbs_get_context_resp) == 8);
VERBS_ABI_CHECK(sizeof(struct ib_uverbs_alloc_pd_resp) == 4);
VERBS_ABI_CHECK(sizeof(struct ib_uverbs_reg_mr_resp) == 12);
VERBS_ABI_CHECK(sizeof(struct ib_uverbs_alloc_mw_resp) == 8);
VERBS_ABI_CHECK(offsetof(struct ib_uverbs_alloc_mw_resp, mw_handle) == 0);
VERBS_ABI_CHECK(offsetof(struct ib_uverbs_alloc_mw_resp, rkey) == 4);
VERBS_ABI_CHECK(sizeof(struct ib_uverbs_create_cq_resp) == 8);
VERBS_ABI_CHECK(sizeof(struct ib_uverbs_resize_cq_resp) == 8);
VERBS_ABI_CHECK(sizeof(struct ib_uverbs_create_qp_resp) == 32);
VERBS_ABI_CHECK(sizeof(struct ib_uverbs_create_srq_resp) == 16);
VERBS_ABI_CHECK(sizeof(struct ib_uverbs_create_ah_resp) == 4);
VERBS_ABI_CHECK(sizeof(struct ib_uverbs_ex_create_qp_resp) == 40);
VERBS_ABI_CHECK(sizeof(struct ib_uverbs_open_xrcd_resp) == 4);
VERBS_ABI_CHECK(offsetof(struct ib_uverbs_create_srq_resp, srqn) == 12);

#endif /* ORCA_VERBS_ABI_H */
