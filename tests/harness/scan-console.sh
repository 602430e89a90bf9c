#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Scan kernel logs (serial console log, dmesg) for reports of kernel bugs.
# Only kernel log lines count: those carrying a printk timestamp, which the
# harness turns on with printk.time=1, so that a program that prints
# "WARNING:" itself is not mistaken for the kernel.
#
#   scan-console.sh LOG...
#
# Prints one line per finding,
#   harness: kernel reported <KIND>: <first line of the report>
# with KIND one of Oops, BUG, WARNING, KASAN, UBSAN, KFENCE, lockdep,
# kmemleak, panic, hung task, RCU stall, soft lockup.  Exits 1 if it found
# anything, 0 if not, 2 on usage error.

set -euo pipefail

if [ "$#" -eq 0 ]; then
	echo "usage: scan-console.sh LOG..." >&2
	exit 2
fi

files=()
for f in "$@"; do
	[ -f "$f" ] && files+=("$f")
done
[ "${#files[@]}" -gt 0 ] || exit 0

# Strip the console's carriage returns, keep kernel lines (timestamp first,
# possibly after other output on the same line), drop duplicates between
# the console and dmesg while keeping the order.
tr -d '\r' <<<"$(cat "${files[@]}")" |
	{ grep -aoE '\[ *[0-9]+\.[0-9]{6}\] .*' || true; } |
	awk '!seen[$0]++' |
	awk '
	function report(kind, msg) {
		key = kind ": " msg
		if (key in done)
			return
		done[key] = 1
		n++
		if (index(msg, kind ": ") == 1)
			msg = substr(msg, length(kind) + 3)
		if (n <= 50)
			printf "harness: kernel reported %s: %s\n", kind, msg
	}
	{
		msg = $0
		sub(/^\[ *[0-9]+\.[0-9]+\] /, "", msg)
		sub(/^\[ *[CT][0-9]+\] /, "", msg)	# CONFIG_PRINTK_CALLER
		sub(/[ \t]+$/, "", msg)
	}
	msg ~ /BUG: KASAN:/ || msg ~ /^KASAN:/ { report("KASAN", msg); next }
	msg ~ /BUG: KFENCE:/ { report("KFENCE", msg); next }
	msg ~ /UBSAN:/ { report("UBSAN", msg); next }
	msg ~ /sleeping function called from invalid context/ ||
	msg ~ /possible circular locking dependency/ ||
	msg ~ /inconsistent lock state/ ||
	msg ~ /possible recursive locking detected/ ||
	msg ~ /possible irq lock inversion dependency/ ||
	msg ~ /-safe -> .*-unsafe lock order detected/ ||
	msg ~ /suspicious RCU usage/ ||
	msg ~ /bad unlock balance detected/ ||
	msg ~ /held lock freed/ ||
	msg ~ /lock held when returning to user space/ ||
	msg ~ /Nested lock was not taken/ ||
	msg ~ /trying to register non-static key/ ||
	msg ~ /^BUG: (MAX_LOCKDEP|looking up invalid subclass)/ ||
	msg ~ /^DEBUG_LOCKS_WARN_ON/ { report("lockdep", msg); next }
	msg ~ /watchdog: BUG: soft lockup/ { report("soft lockup", msg); next }
	msg ~ /Watchdog detected hard LOCKUP/ { report("hard lockup", msg); next }
	msg ~ /kmemleak: [0-9]+ new suspected memory leak/ ||
	msg ~ /^unreferenced object 0x/ { report("kmemleak", msg); next }
	msg ~ /^Oops[: ]/ || msg ~ /: [0-9a-f]{4} \[#[0-9]+\]/ ||
	msg ~ /^general protection fault/ { report("Oops", msg); next }
	msg ~ /^BUG[: ]/ || msg ~ /kernel BUG at/ || msg ~ /^BUG: / { report("BUG", msg); next }
	msg ~ /^WARNING: / || msg ~ /^WARNING at / { report("WARNING", msg); next }
	msg ~ /^Kernel panic - not syncing/ { report("panic", msg); next }
	msg ~ /INFO: task .* blocked for more than/ { report("hung task", msg); next }
	msg ~ /rcu: INFO: .*detected stall/ || msg ~ /rcu: INFO: .*self-detected stall/ {
		report("RCU stall", msg); next
	}
	msg ~ /list_(add|del) corruption/ { report("BUG", msg); next }
	msg ~ /refcount_t: / { report("WARNING", msg); next }
	END {
		if (n > 50)
			printf "harness: ... and %d more kernel reports\n", n - 50
		exit(n > 0)
	}'
