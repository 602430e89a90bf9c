#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The middleware HPC and storage users run, from Debian's packages, on
# orca0 in this guest:
#
#   UCX          ucx_info -d lists orca0's rc_verbs and ud_verbs
#                transports; ucx_perftest runs tag-matching latency over
#                ud_verbs and tag bandwidth and put bandwidth over
#                rc_verbs (ud_verbs for wire-up), each for its full count;
#   Open MPI     a two-rank job over UCX on orca0 (shared memory and TCP
#                excluded) checks point-to-point messages up to 1 MiB,
#                Allreduce, Bcast and Alltoall, element by element
#                (mpi/mpi_check.c);
#   libfabric    fi_info -p verbs lists orca0; fi_pingpong -p verbs with
#                its data integrity checks (-c).
#
# UCX 1.13 (Debian 12) ud_verbs drops RoCE UD packets whose destination
# GID it cannot parse from the GRH area unless wc.sl says "IPv4" the way
# mlx5 encodes it; Soft-RoCE (rxe) fails the same way.  UCX 1.19 reads
# the GRH itself (openucx/ucx PR #10209).  Until then the documented
# switch UCX_UD_VERBS_ETH_DGID_CHECK=n turns that filter off.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-prog.sh"
. "$(dirname "$0")/lib-tools.sh"

before=$(res_summary)
ip=$(ip -4 -o addr show dev "$ORCA_NETDEV" | awk '{ print $4 }' | cut -d/ -f1 | head -n1)
export UCX_NET_DEVICES=$ORCA_DEV:1 UCX_UD_VERBS_ETH_DGID_CHECK=n

tools_ucx_transports

# ucx_perftest PORT TLS TEST SIZE COUNT: server and client, both exit 0,
# and the client's "Final:" line reports COUNT iterations.
ucx_run() {
	local port=$1 tls=$2 test=$3 size=$4 count=$5 final
	UCX_TLS=$tls tools_pair "ucx_perftest $test" "$port" \
		ucx_perftest -p "$port" -- \
		ucx_perftest -p "$port" "$ip" -t "$test" -s "$size" -n "$count"
	final=$(grep -E '^Final:' "$TP_CLI_OUT" | tail -n1)
	[ "$TP_SRV_RC" -eq 0 ] && [ "$TP_CLI_RC" -eq 0 ] &&
		[ "$(awk '{ print $2 }' <<<"$final")" = "$count" ]
	ok $? "ucx_perftest -t $test -s $size over $tls: $count iterations (server $TP_SRV_RC, client $TP_CLI_RC)"
	diag "$test: ${final:-no Final line}"
	[ -n "$final" ] || tail -n 5 "$TP_CLI_OUT" "$TP_SRV_OUT" | sed 's/^/# /'
}
ucx_run 13371 ud_verbs,self tag_lat 64 2000
ucx_run 13372 rc_verbs,ud_verbs,self tag_bw 65536 2000
ucx_run 13373 rc_verbs,ud_verbs,self ucp_put_bw 4096 2000

tx0=$(orca_stat tx_bytes)
timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 \
	--mca pml ucx --mca btl self \
	-x UCX_NET_DEVICES -x UCX_UD_VERBS_ETH_DGID_CHECK \
	-x UCX_TLS=rc_verbs,ud_verbs,self -x RDMAV_DRIVERS \
	"$E2E_BIN/mpi_check" >/tmp/e2e-mpi.out 2>&1
fold_tap /tmp/e2e-mpi.out $? "mpirun -np 2 mpi_check over UCX on $ORCA_DEV"
tx1=$(orca_stat tx_bytes)
[ -n "$tx0" ] && [ -n "$tx1" ] && [ $((tx1 - tx0)) -ge $((4 << 20)) ]
ok $? "the MPI job's traffic crossed $ORCA_DEV (tx_bytes grew $((${tx1:-0} - ${tx0:-0})), >= 4 MiB)"

timeout 120 fi_info -p verbs >/tmp/e2e-fi.out 2>&1 &&
	grep -q "domain: $ORCA_DEV\$" /tmp/e2e-fi.out
ok $? "fi_info -p verbs lists $ORCA_DEV"

tools_pair fi_pingpong 47592 fi_pingpong -p verbs -e msg -d "$ORCA_DEV" -c -I 100 -- \
	fi_pingpong -p verbs -e msg -d "$ORCA_DEV" -c -I 100 "$ip"
[ "$TP_SRV_RC" -eq 0 ] && [ "$TP_CLI_RC" -eq 0 ] &&
	grep -qE '^1m +100 ' "$TP_CLI_OUT"
ok $? "fi_pingpong -p verbs -c: every size up to 1 MiB, 100 verified iterations each (server $TP_SRV_RC, client $TP_CLI_RC)"
grep -E '^(bytes|1m) ' "$TP_CLI_OUT" | sed 's/^/# /'

leak_check "$before"
plan "$_tap_n"
done_testing
