# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
# Sourced by tests/run.sh and bench/run.sh: take /tmp/trigrec-trace.lock so
# that live-kernel suites (which disturb each other: a frozen gate drops
# records for every perf user) never run at once on this machine. Callers
# that already hold it (`flock /tmp/trigrec-trace.lock make check`) are
# recognized by walking up the process tree, so nesting never deadlocks.
TRACE_LOCK=${TRACE_LOCK:-/tmp/trigrec-trace.lock}

_trace_lock_held_by_ancestor() {
	local ino holders p
	ino=$(stat -c %i "$TRACE_LOCK" 2>/dev/null) || return 1
	holders=$(awk -v ino="$ino" '$2 == "FLOCK" && $0 !~ /->/ { split($6, a, ":"); if (a[3] == ino) print $5 }' /proc/locks 2>/dev/null)
	[ -n "$holders" ] || return 1
	p=$$
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		case " $holders " in *" $p "*) return 0 ;; esac
		p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
	done
	return 1
}

trace_lock() {
	[ "$(id -u)" -eq 0 ] || return 0
	_trace_lock_held_by_ancestor && return 0
	exec {_trace_lock_fd}>>"$TRACE_LOCK"
	if ! flock -n "$_trace_lock_fd"; then
		echo "waiting for $TRACE_LOCK (another live-kernel suite is running)" >&2
		flock -w 3600 "$_trace_lock_fd" || echo "note: could not take $TRACE_LOCK" >&2
	fi
}
