#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Device memory (interface 1.4) on the local path: max_dm_size, what
# ibv_alloc_dm allocates (4 KiB granules, aligned as asked, zeroed, also
# when given again) and refuses, the bounds of ibv_memcpy_to_dm and
# ibv_memcpy_from_dm, regions on device memory (zero based, inside the
# DM, keeping it from ibv_free_dm), RDMA WRITE, READ, SEND, receives and
# atomics into and out of it with every byte of the DM checked, the
# rights a region grants, the memory of a process that exits without
# freeing it given back, ibv_import_dm in a context imported from a dup
# of the cmd_fd (copies both ways, a region on the import used by RDMA
# WRITE and READ, ENOENT and EINVAL for bad handles, ibv_unimport_dm
# leaving the DM to its owner), and nothing leaked (progs/dm.c).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"

before=$(res_summary)
run_prog dm "$ORCA_DEV"
leak_check "$before"
plan "$_tap_n"
done_testing
