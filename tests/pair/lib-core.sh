# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# What the two-guest runner (pair-in-guest.sh) and the .t files (through
# lib-pair.sh) share: the mailbox through which the two guests meet,
# waits that start no process, and the device's object counts.
#
# An emulated guest on a busy host pays a large fraction of a second for
# every program it starts; a polling loop that starts 'sleep' and 'date'
# would take the single vCPU away from the tools under test.  So: nap
# is bash's own read with a timeout, the clock is $EPOCHSECONDS, and
# the mailbox listener is one long-lived process.
#
# The mailbox: each guest runs pair-mailbox.pl on eth1, which files a
# message "KEY VALUE" as $PAIR_INBOX/KEY (written under a temporary name,
# then renamed) and answers "ack KEY".  pair_send_raw retries until the
# ack comes back (the peer may not listen yet), within a bound;
# pair_recv_raw polls the inbox for the key, within a bound.  Keys are
# never reused (they carry the pairing, the .t and the case), so a
# message is never taken for a later one.  Needs ORCA_PEER_IP
# (run-guest.sh --pair).

PAIR_MAILBOX_PORT=${PAIR_MAILBOX_PORT:-18999}
PAIR_INBOX=${PAIR_INBOX:-/tmp/pair-inbox}
PAIR_WAIT=${PAIR_WAIT:-180}
PAIR_NAP_FIFO=${PAIR_NAP_FIFO:-/tmp/pair-nap.fifo}
export PAIR_MAILBOX_PORT PAIR_INBOX PAIR_NAP_FIFO

# nap SECONDS: sleep without starting a process (a read that times out
# on a FIFO this shell holds open for reading and writing: nothing ever
# arrives).
[ -p "$PAIR_NAP_FIFO" ] || mkfifo "$PAIR_NAP_FIFO" 2>/dev/null || [ -p "$PAIR_NAP_FIFO" ]
exec {PAIR_NAP_FD}<>"$PAIR_NAP_FIFO"
nap() { read -r -t "$1" -u "$PAIR_NAP_FD" _ || :; }

# poll_until BOUND COMMAND...: run COMMAND every 0.1 s until it succeeds;
# fails after BOUND seconds.
poll_until() {
	local t deadline
	t=$EPOCHSECONDS
	deadline=$((t + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		t=$EPOCHSECONDS
		[ "$t" -lt "$deadline" ] || return 1
		nap 0.1
	done
}

# pair_mailbox_start: the listener, in the background, ready within 120 s
# (perl takes over 10 s to start in a TCG guest on a loaded host).
pair_mailbox_start() {
	mkdir -p "$PAIR_INBOX"
	perl "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/pair-mailbox.pl" \
		"$PAIR_MAILBOX_PORT" "$PAIR_INBOX" </dev/null >/dev/null 2>"$PAIR_INBOX.err" &
	PAIR_MAILBOX_PID=$!
	poll_until 120 mailbox_listening
}

mailbox_listening() {
	kill -0 "$PAIR_MAILBOX_PID" 2>/dev/null &&
		[ -n "$(ss -Hltn "sport = :$PAIR_MAILBOX_PORT" 2>/dev/null)" ]
}

# pair_send_raw KEY VALUE [BOUND]: deliver to the peer's mailbox.  The
# peer is on eth1's subnet: a connection is refused at once while it does
# not listen, and fails within seconds (ARP) if the peer is gone.
pair_send_raw() {
	local key=$1 val=$2 t deadline fd reply
	t=$EPOCHSECONDS
	deadline=$((t + ${3:-60}))
	while :; do
		reply=
		if { exec {fd}<>"/dev/tcp/$ORCA_PEER_IP/$PAIR_MAILBOX_PORT"; } 2>/dev/null; then
			printf '%s\n%s\n' "$key" "$val" 2>/dev/null 1>&"$fd" &&
				IFS= read -r -t 10 -u "$fd" reply
			exec {fd}>&-
		fi
		[ "$reply" = "ack $key" ] && return 0
		t=$EPOCHSECONDS
		[ "$t" -lt "$deadline" ] || break
		nap 0.2
	done
	echo "pair: could not deliver $key to $ORCA_PEER_IP:$PAIR_MAILBOX_PORT" >&2
	return 1
}

# pair_recv_raw KEY [BOUND]: print the value the peer sent under KEY.
pair_recv_raw() {
	local f=$PAIR_INBOX/$1 t deadline val
	t=$EPOCHSECONDS
	deadline=$((t + ${2:-$PAIR_WAIT}))
	until [ -f "$f" ]; do
		t=$EPOCHSECONDS
		if [ "$t" -ge "$deadline" ]; then
			echo "pair: nothing from the peer under $1 after ${2:-$PAIR_WAIT} s" >&2
			return 1
		fi
		nap 0.1
	done
	IFS= read -r val <"$f"
	printf '%s\n' "$val"
}

# pair_res_summary DEV: what lib-prog.sh's res_summary says, with fewer
# programs started: ib_core's per-device counts ("pd 1 cq 1 qp 1 cm_id 0
# mr 0 ctx 0 srq 0", 'rdma resource show') and, for orca0, the device's
# own (QUERY_STATS in 'rdma statistic show': "device: pds 1 ..."); the
# CQs of ib_core's shared CQ pool (users 0, comm [ib_core]: nvmet-rdma
# and svcrdma take them, the pool keeps them until the device goes) are
# counted in neither.
pair_res_summary() {
	local dev=$1 pool=0 line res='' stats='' w i out=()
	while IFS= read -r line; do
		[[ "$line" =~ ^(dev|link)\ $dev(/[0-9-]+)?\  ]] &&
			[[ "$line" == *" users 0 "*"comm [ib_core]"* ]] && pool=$((pool + 1))
	done < <(rdma resource show cq 2>/dev/null)
	while IFS= read -r line; do
		[[ "$line" =~ ^[0-9]+:\ $dev:\ (.*)$ ]] || continue
		read -r -a w <<<"${BASH_REMATCH[1]}"
		for ((i = 0; i + 1 < ${#w[@]}; i += 2)); do
			[ "${w[i]}" != cq ] || w[i + 1]=$((w[i + 1] - pool))
			out+=("${w[i]}" "${w[i + 1]}")
		done
		res=${out[*]}
	done < <(rdma resource show 2>/dev/null)
	if [[ "$dev" == orca* ]]; then
		read -r -d "" -a w < <(rdma statistic show link "$dev/1" 2>/dev/null)
		for ((i = 0; i + 1 < ${#w[@]}; i++)); do
			case "${w[i]}" in
			cqs) stats+=" cqs $((w[i + 1] - pool))" ;;
			pds | mrs | qps | srqs | ahs) stats+=" ${w[i]} ${w[i + 1]}" ;;
			esac
		done
	fi
	[ -n "$res" ] && echo "$res; device:$stats"
}
