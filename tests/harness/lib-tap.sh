# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# TAP helpers for the host-side runners that boot a guest and fold its
# TAP into their own (run-e2e.sh, tests/packaging/run-install.sh).

# tap_renumber FILE: print the TAP in FILE with its points numbered on
# from $n, its plan line dropped and every other line as it is; advances
# the caller's n, and ran (the guest's points), for each point.
tap_renumber() {
	local line
	while IFS= read -r line; do
		if [[ "$line" =~ ^(not\ )?ok\ [0-9]+(.*)$ ]]; then
			n=$((n + 1))
			ran=$((ran + 1))
			echo "${BASH_REMATCH[1]}ok $n${BASH_REMATCH[2]}"
		elif [[ "$line" =~ ^1\.\. ]]; then
			:
		else
			echo "$line"
		fi
	done <"$1"
}
