#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Errors in --trigger text: trigrec exits non-zero before recording
# anything, and says `--trigger:LINE:COL: what` with the right column, the
# source line, and a caret under the offending token.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trig_lib.sh"
need_root

# col TEXT SUB [NTH]: 1-based column of the NTH (default 1st) SUB in TEXT.
col() {
	awk -v s="$1" -v sub_="$2" -v nth="${3:-1}" 'BEGIN {
		off = 0
		for (k = 1; k <= nth; k++) {
			i = index(substr(s, off + 1), sub_)
			if (!i) { print 0; exit }
			off += i
			if (k < nth) off += length(sub_) - 1
		}
		print off
	}'
}

# err_case NAME TEXT COL ERE [LINE]: the trigger is rejected at LINE:COL
# (LINE default 1) with a message matching ERE, and the caret points there.
err_case() {
	local name=$1 text=$2 c=$3 ere=$4 line=${5:-1} out rc msg src caret
	t_begin "errors: $name"
	out=$(timeout -k 5 "$TIMEOUT" "$TRIGREC" record -o "$TMP/never" --trigger "$text" -- true 2>&1)
	rc=$?
	check_ne "exit status" "$rc" 0
	check_ne "timed out" "$rc" 124
	msg=$(head -1 <<<"$out")
	check_match "message" "$msg" "^trigrec: --trigger:$line:$c: "
	check_match "message" "$msg" "$ere"
	# The source line, indented by 2, then the caret under column c.
	src=$(sed -n 2p <<<"$out")
	caret=$(sed -n 3p <<<"$out")
	check_eq "source line" "$src" "  $(sed -n "${line}p" <<<"$text")"
	check_eq "caret line" "$caret" "$(printf '%*s^' $((c + 1)) '')"
	check_eq "lines of output" "$(wc -l <<<"$out")" 3
	check_eq "nothing recorded: no output directory" "$(ls -d "$TMP/never" 2>/dev/null)" ""
	t_end
}

t='syscalls:sys_enter_getsid if pidd == 3'
err_case "unknown field (lists the fields, suggests)" "$t" "$(col "$t" pidd)" \
	"unknown field 'pidd' for syscalls:sys_enter_getsid \(did you mean 'pid'\?\); its fields are: __syscall_nr, pid, common_\*; or use comm, pid, tid, cpu, cgroup"
t='sched:sched_switch if prev_comm == "x" && prev_stat == 2'
err_case "unknown field after another condition" "$t" "$(col "$t" prev_stat)" \
	"unknown field 'prev_stat' for sched:sched_switch \(did you mean 'prev_state'\?\); its fields are: prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio"
t=$'syscalls:sys_enter_getsid\n   if pidd == 3'
err_case "unknown field on the second line" "$t" 7 "unknown field 'pidd'" 2

t='syscalls:sys_enter_getsd'
err_case "unknown tracepoint (suggests)" "$t" 1 \
	'unknown tracepoint syscalls:sys_enter_getsd \(did you mean syscalls:sys_enter_getsid\?\)'
t='latency syscalls:sys_enter_getsid -> sched:sched_swich > 5ms'
err_case "unknown tracepoint on a latency's end" "$t" "$(col "$t" sched:)" \
	'unknown tracepoint sched:sched_swich \(did you mean sched:sched_switch\?\)'

t='syscalls:sys_enter_getsid if pid == "x"'
err_case "type mismatch: string for an integer field" "$t" "$(col "$t" '"x"')" \
	'pid is an integer \(pid_t\), but "x" is a string'
t='syscalls:sys_enter_getsid if comm == 3'
err_case "type mismatch: number for a string" "$t" "$(col "$t" 3)" 'comm is a string'
t='syscalls:sys_enter_getsid if pid ~ "a*"'
err_case "type mismatch: glob on an integer" "$t" "$(col "$t" '~')" "'~' matches strings, but pid is an integer"
t='syscalls:sys_enter_getsid if comm & 3'
err_case "type mismatch: bit test on a string" "$t" "$(col "$t" '&')" "'&' compares numbers, but comm is a string"

t='syscalls:sys_enter_getsid if pid == 1'
for i in $(seq 2 17); do t+=" || pid == $i"; done
err_case "17 comparisons (limit 16)" "$t" "$(col "$t" pid 17)" \
	'has 17 comparisons; at most 16 are supported \(TRIGREC_MAX_CLAUSES\)'
t='latency syscalls:sys_enter_getsid if pid == 1 && pid == 2 && pid == 3 && pid == 4 -> syscalls:sys_enter_getpgid > 5ms if pid == 5'
for i in $(seq 6 17); do t+=" && pid == $i"; done
err_case "17 comparisons on a latency side (own + shared)" "$t" "$(col "$t" pid 17)" \
	'has 17 comparisons; at most 16'

t='latency syscalls:sys_enter_getsid syscalls:sys_enter_getpgid > 5ms'
err_case "missing '->'" "$t" "$(col "$t" syscalls:sys_enter_getpgid)" "missing '->'"
t='latency syscalls:sys_enter_getsid by pid > 5ms'
err_case "missing '->' before the threshold" "$t" "$(col "$t" '>')" "missing '->'"

t_begin "errors: the second of two --trigger options is the one reported"
out=$(timeout -k 5 "$TIMEOUT" "$TRIGREC" record -o "$TMP/never" --trigger syscalls:sys_enter_getsid \
	--trigger 'syscalls:sys_enter_getpgid if pid = 3' -- true 2>&1)
check_ne "exit status" "$?" 0
check_match "message" "$(head -1 <<<"$out")" '^trigrec: --trigger:1:35: '
check_match "source line" "$(sed -n 2p <<<"$out")" '^  syscalls:sys_enter_getpgid if pid = 3$'
t_end
