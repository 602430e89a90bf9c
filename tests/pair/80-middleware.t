#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The middleware of tests/e2e/188-middleware.t across the two guests,
# from Debian's packages, results checked:
#
#   UCX          ucx_info -d lists the device's rc_verbs and ud_verbs;
#                ucx_perftest, server b, client a: tag-matching latency
#                over ud_verbs, tag bandwidth and put bandwidth over
#                rc_verbs, each for its full count
#   libfabric    fi_info -p verbs lists the device; fi_pingpong -p verbs
#                -c (every size up to 1 MiB, data integrity checked), server b
#   Open MPI     mpirun in a starts one rank here and one in b (its
#                daemon started through the mailbox by mpi-rsh-agent.sh,
#                in place of ssh); the ranks talk over UCX on the RDMA
#                devices only (no shared memory, no TCP BTL) and check
#                point-to-point messages up to 1 MiB, Allreduce, Bcast
#                and Alltoall element by element (tests/e2e/mpi/mpi_check.c)
#
# UCX 1.13's ud_verbs needs UCX_UD_VERBS_ETH_DGID_CHECK=n on RoCE devices
# other than mlx5 (rxe too): see 188-middleware.t.

# pair-timeout: 900

. "$(dirname "$0")/lib-pair.sh"

export UCX_NET_DEVICES=$ORCA_DEV:1 UCX_UD_VERBS_ETH_DGID_CHECK=n

tools_ucx_transports

# ucx_run NAME TLS TEST SIZE COUNT: ucx_perftest server on b, client on
# a; both exit 0 and the client's "Final:" line counts COUNT iterations.
ucx_run() {
	local name=$1 tls=$2 test=$3 size=$4 count=$5 port=$TOOLS_PORT final before
	TOOLS_PORT=$((TOOLS_PORT + 1))
	before=$(res_summary)
	UCX_TLS=$tls pair_tool "$name" b tools_listening "$port" \
		ucx_perftest -p "$port" -- \
		ucx_perftest -p "$port" "$ORCA_PEER_IP" -t "$test" -s "$size" -n "$count"
	pair_status_point "$name"
	if [ "$TP_SIDE" = client ]; then
		final=$(grep -E '^Final:' "$TP_OUT" | tail -n 1)
		[ "$(awk '{ print $2 }' <<<"$final")" = "$count" ]
		ok $? "$name: ucx_perftest -t $test -s $size over $tls: $count iterations"
		diag "$name: ${final:-no Final line}"
	fi
	pair_leak_point "$name" "$before"
}
ucx_run ucx-tag-lat ud_verbs,self tag_lat 64 300
ucx_run ucx-tag-bw rc_verbs,ud_verbs,self tag_bw 65536 1000
ucx_run ucx-put-bw rc_verbs,ud_verbs,self ucp_put_bw 4096 1000

timeout 120 fi_info -p verbs >/tmp/pair-fi.out 2>&1 &&
	grep -q "domain: $ORCA_DEV\$" /tmp/pair-fi.out
ok $? "fi_info -p verbs lists $ORCA_DEV"

# fi_pingpong's out-of-band exchange is a TCP socket on its port.
before=$(res_summary)
port=$TOOLS_PORT
TOOLS_PORT=$((TOOLS_PORT + 1))
pair_tool fi-pingpong b tools_listening "$port" \
	fi_pingpong -p verbs -e msg -d "$ORCA_DEV" -B "$port" -c -I 20 -- \
	fi_pingpong -p verbs -e msg -d "$ORCA_DEV" -P "$port" -c -I 20 "$ORCA_PEER_IP"
pair_status_point fi-pingpong
if [ "$TP_SIDE" = client ]; then
	grep -qE '^1m +20 ' "$TP_OUT"
	ok $? "fi_pingpong -p verbs -c: every size up to 1 MiB, 20 checked iterations each"
	grep -E '^(bytes|1m) ' "$TP_OUT" | sed 's/^/# /'
fi
pair_leak_point fi-pingpong "$before"

# Open MPI: mpirun in a; its daemon in b arrives through the mailbox.
before=$(res_summary)
export PAIR_MPI_KEY
PAIR_MPI_KEY=$(pair_keyname mpi)
if is_role a; then
	eth1_tx tx0
	eth1_rx rx0
	timeout 300 mpirun --allow-run-as-root -np 2 \
		--host "$ORCA_SELF_IP:1,$ORCA_PEER_IP:1" \
		--mca plm_rsh_agent "$PAIR_DIR/mpi-rsh-agent.sh" \
		--mca oob_tcp_if_include eth1 \
		--mca pml ucx --mca btl self --mca osc ucx \
		-x UCX_TLS=rc_verbs,ud_verbs,self \
		"$E2E_BIN/mpi_check" >/tmp/pair-mpi.out 2>&1
	fold_tap /tmp/pair-mpi.out $? "mpirun -np 2, one rank in each guest, mpi_check over UCX"
	eth1_tx tx1
	eth1_rx rx1
	[ $((tx1 - tx0 + rx1 - rx0)) -ge $((4 << 20)) ]
	ok $? "the MPI job's traffic crossed eth1 (tx_bytes grew $((tx1 - tx0)), rx_bytes $((rx1 - rx0)): >= 4 MiB in all)"
	pair_sync mpi-done >/dev/null
else
	# The rank here gets this guest's device (UCX_NET_DEVICES above):
	# mpirun's -x sets only what is the same on both.
	if cmd=$(pair_get mpi.cmd 300); then
		bash -c "$cmd" </dev/null >/tmp/pair-orted.out 2>&1
		rc=$?
		pair_put mpi.rc "$rc"
		[ "$rc" -eq 0 ]
		ok $? "the peer's mpirun started its daemon and rank here; they exited 0 (status $rc)"
		[ "$rc" -eq 0 ] || tail -n 20 /tmp/pair-orted.out | sed 's/^/# /'
	else
		ok 1 "the peer's mpirun never asked for its daemon here"
	fi
	pair_sync mpi-done >/dev/null
fi
pair_leak_point mpi "$before"

plan "$_tap_n"
done_testing
