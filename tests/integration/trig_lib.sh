# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Helpers for the trigger-engine tests (tests/integration/trig_*.sh), on top
# of lib.sh (sourced first). Not a test itself: run.sh runs only *.sh files
# that print a summary, and this one is sourced.
#
# The workload is tests/helpers/trigwork, driven step by step through a
# FIFO, so a test can wait for a snapshot before it makes the next call:
#     tw_start LOG DIR --trigger '...' -e ...   # trigrec record ... -- trigwork
#     tw getsid 1234567                          # runs, waits for its "ack"
#     tw_end                                     # trigwork exits, trigrec stops
# trigwork's markers (what it called, from which thread, when) are in $TW_MARKS.

# Run by itself (tests/run.sh runs every *.sh here): nothing to test.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	. "$(dirname "$0")/lib.sh"
	exit 0
fi

TRIGWORK=$OUTPUT/tests/trigwork

need_trigwork() {
	[ -x "$TRIGWORK" ] && return 0
	t_begin "$TEST_NAME"
	t_fail "$TRIGWORK is not built (make $OUTPUT/tests/trigwork, or make check)"
	t_end
	exit 1
}

# tw_start LOG DIR ARGS...: trigrec record ARGS -o DIR -- trigwork, which
# reads its steps from a FIFO. Sets TR_PID, TW_MARKS. Returns 1 if trigrec
# did not start recording.
tw_start() {
	local log=$1 dir=$2
	shift 2
	TW_FIFO=$(mktemp -u "$TMP/cmd.XXXXXX")
	TW_MARKS=$(mktemp "$TMP/marks.XXXXXX")
	TW_LOG=$log
	TW_N=0
	mkfifo "$TW_FIFO" || return 1
	# Held open read-write: trigwork's open never blocks, and it sees EOF
	# only when we close it.
	exec {TW_FD}<>"$TW_FIFO"
	# -r: SCHED_FIFO, so other tasks' CPU load does not stretch its timings.
	tr_start "$log" "$@" -o "$dir" -- "$TRIGWORK" -r -o "$TW_MARKS" -i "$TW_FIFO"
}

# tw STEP ARGS...: one step of the workload; waits (bounded) until it is done.
tw() {
	local i
	TW_N=$((TW_N + 1))
	printf '%s\n' "$*" >&"$TW_FD"
	for ((i = 0; i < TIMEOUT * 200; i++)); do
		grep -q "^ack $TW_N\$" "$TW_MARKS" && return 0
		grep -q "^ack $TW_N error" "$TW_MARKS" && { t_fail "trigwork: step '$*' failed"; return 1; }
		kill -0 "$TR_PID" 2>/dev/null || { t_fail "trigrec died during step '$*': $(log_tail "$TW_LOG")"; return 1; }
		sleep 0.005
	done
	t_fail "trigwork: step '$*' not done after ${TIMEOUT}s"
	return 1
}

# tw_end: the workload exits, so trigrec stops; waits for it (TR_RC).
tw_end() {
	TW_N=$((TW_N + 1))
	printf 'exit\n' >&"$TW_FD"
	exec {TW_FD}>&-
	tr_wait
}

# mk STEP FILTER KEY: KEY's value on the last marker line of STEP that
# contains FILTER (" v=5 ", or "" for any).
mk() {
	grep "^$1 " "$TW_MARKS" | sed 's/$/ /' | grep -F -- "$2" | tail -1 |
		sed -n "s/.* $3=\([^ ]*\) .*/\1/p"
}

# stats_load LOG: trigrec's per-trigger exit lines into S[NAME.COUNTER],
# COUNTER one of evaluated matched fired coalesced cooldown limit budget stale
# rbfull strfaults.
declare -gA S
stats_load() {
	local name rest k v
	S=()
	while IFS=$'\t' read -r name rest; do
		S[$name.seen]=1
		for k in evaluated matched fired coalesced cooldown limit budget stale rbfull strfaults; do
			v=${rest%%,*}
			S[$name.$k]=${v##* }
			rest=${rest#*, }
		done
	done < <(sed -n 's/^trigrec: trigger \(.*\): evaluated \(.*\)$/\1\tevaluated \2/p' "$1")
}
st() { printf '%s' "${S[$1.$2]-}"; } # st NAME COUNTER

# check_stats NAME matched=1 fired=1 ...: exact counters of the last stats_load.
check_stats() {
	local name=$1 kv
	shift
	if [ -z "${S[$name.seen]-}" ]; then
		t_fail "no exit counters for trigger $name"
		return
	fi
	for kv in "$@"; do
		check_eq "$name: ${kv%%=*}" "${S[$name.${kv%%=*}]-}" "${kv#*=}"
	done
}

# Every match is accounted for: fired + coalesced + held back by policy
# (+ lost to a full side-band) = matched.
check_accounted() {
	local n=$1
	check_eq "$n: matched = fired + coalesced + cooldown + limit + side-band full" \
		"$(st "$n" matched)" \
		$(($(st "$n" fired) + $(st "$n" coalesced) + $(st "$n" cooldown) + $(st "$n" limit) + $(st "$n" rbfull)))
}

# decode_full FILE: lib.sh's decode (time cpu pid tid event arg comm) plus
# an 8th column, the record's text after the event name.
decode_full() { decode "$1" text; }

# The one snapshot of trigger NAME in DIR, or fail the case (and return 1).
one_snap() {
	local n
	n=$(nsnaps "$1" "$2")
	if [ "$n" -ne 1 ]; then
		t_fail "snapshots of $2: got $n, want 1 (in $1: $(ls "$1" 2>/dev/null | tr '\n' ' '))"
		return 1
	fi
	SNAP=$(snaps "$1" "$2")
	json_load "${SNAP%.data}.json" || { t_fail "sidecar of $SNAP: ${J[error]-}"; return 1; }
	return 0
}

# The snapshot ends exactly at the trigger: its last record is the trigger's
# own (TSV line from decode_full), no record after it, window end = its time.
# check_ends_at TSV EVENT ARGCOL TID
check_ends_at() {
	local last
	last=$(tail -1 "$1")
	check_eq "last record's event" "$(cut -f5 <<<"$last")" "$2"
	[ -n "$3" ] && check_eq "last record's pid field" "$(cut -f6 <<<"$last")" "$3"
	[ -n "$4" ] && check_eq "last record's tid" "$(cut -f4 <<<"$last")" "$4"
	check_eq "window.end_ns = last record's time" "$(j window.end_ns)" "$(cut -f1 <<<"$last")"
	# The record is stamped after the BPF program reads the clock: within 1 ms
	# (times SLOW: an emulated CPU can be descheduled in between).
	check_ge "last record's time >= trigger.time_ns" "$(cut -f1 <<<"$last")" "$(j trigger.time_ns)"
	check_le "last record's time - trigger.time_ns" $(($(cut -f1 <<<"$last") - $(j trigger.time_ns))) $((1000000 * SLOW))
}
