#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Open MPI's remote-start agent (plm_rsh_agent) for the two-guest tests,
# in place of ssh: "mpi-rsh-agent.sh HOST COMMAND..." hands COMMAND (the
# orted command line, quoted for a remote shell as ssh would pass it) to
# the peer guest through the mailbox, under $PAIR_MPI_KEY.cmd; the
# peer's 80-middleware.t runs it and answers its exit status under
# $PAIR_MPI_KEY.rc, which is this agent's.  The agent lives as long as
# the remote daemon does, as an ssh session would.  HOST must be the
# peer: there is no other.

set -u
# shellcheck source=tests/pair/lib-core.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib-core.sh"

key=${PAIR_MPI_KEY:?set by 80-middleware.t}
host=${1:?usage: mpi-rsh-agent.sh HOST COMMAND...}
shift
if [ "$host" != "$ORCA_PEER_IP" ]; then
	echo "mpi-rsh-agent: $host is not the peer ($ORCA_PEER_IP)" >&2
	exit 255
fi
pair_send_raw "$key.cmd" "$*" || exit 255
# The job's whole run: 80-middleware.t bounds mpirun itself.
rc=$(pair_recv_raw "$key.rc" 600) || exit 255
exit "$rc"
