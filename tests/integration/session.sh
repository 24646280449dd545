#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The front end and the session: usage errors exit 2 before anything is
# loaded, a failed run leaves no output directory behind, -p stops when its
# process exits, --dump-script says the run.
. "$(dirname "$0")/lib.sh"
need_root

EV=(-e syscalls:sys_enter_getpgid)

# usage NAME ERE ARGS...: trigrec ARGS exits 2 at once with a message matching ERE.
usage() {
	local name=$1 re=$2 rc t0 t1
	shift 2
	t_begin "usage: $name"
	t0=$(date +%s%N)
	timeout -k 5 "$TIMEOUT" "$TRIGREC" "$@" >"$TMP/u.out" 2>"$TMP/u.log"
	rc=$?
	t1=$(date +%s%N)
	check_eq "exit code" "$rc" 2
	check_match "message" "$(cat "$TMP/u.log")" "$re"
	check_lt "ms until the error" $(((t1 - t0) / 1000000)) 1000
	t_end
}

usage "unknown command lists every command" \
	"unknown command 'recrd' \(did you mean record\? commands: record, run, check, list, control, status, test, show, help" recrd
usage "unknown option" "unknown option --bogus" record --bogus
usage "option without its value" "option -e/--event needs a value" record -e
usage "bad value names the option" "invalid --count: .*at least 1|invalid --count" record "${EV[@]}" --count 0
usage "--count-kill with a bad signal says what to write" \
	"invalid --count-kill: 'SIGFOO': say a signal \(TERM, INT, KILL, HUP, USR1 or a number 1-31\).* or none" \
	record "${EV[@]}" --count 1 --count-kill SIGFOO -- true
usage "--control '' is refused (abstract socket)" "invalid --control: empty path.*abstract" \
	record "${EV[@]}" --control ''
usage "-o ''" "invalid -o/--output: empty path" record "${EV[@]}" -o ''
usage "-p with a command" "-p and a command exclude each other" record "${EV[@]}" -p 1 -- true
usage "bad trigger points at the column" "--trigger:1:30: unknown field .nosuch." record "${EV[@]}" \
	--trigger 'syscalls:sys_enter_getsid if nosuch == 1'
usage "list ''" "empty GLOB" list ''
usage "list with an unknown option" "unknown option -x for list" list -x

t_begin "help: list -h and help record"
check_match "list -h" "$("$TRIGREC" list -h 2>&1)" "^usage: trigrec list"
check_match "help record" "$("$TRIGREC" help record 2>&1)" "--dump-script"
check_match "record -h ends with examples" "$("$TRIGREC" record -h 2>&1 | tail -3)" "trigrec record"
t_end

t_begin "a failed run does not create its output directory"
"$TRIGREC" record -e sched:nosuch_event -o "$TMP/newdir" -- true >"$TMP/nd.log" 2>&1
check_eq "exit code" "$?" 1
check_eq "directory created" "$(ls -d "$TMP/newdir" 2>/dev/null)" ""
t_end

t_begin "a run that works creates its output directory"
"$TRIGREC" record "${EV[@]}" -o "$TMP/made/sub" -- true >"$TMP/md.log" 2>&1
check_eq "exit code" "$?" 1 # the parent does not exist: refused up front
check_match "message" "$(cat "$TMP/md.log")" "cannot create it in $TMP/made"
"$TRIGREC" record "${EV[@]}" -o "$TMP/made" -- true >"$TMP/md.log" 2>&1
check_eq "exit code" "$?" 0
check_eq "final snapshot in the new directory" "$(nsnaps "$TMP/made" final)" 1
check_eq "mode" "$(stat -c %a "$TMP/made")" 700
t_end

t_begin "-p: recording stops when the process exits"
sleep 2 &
victim=$!
_bg+=("$victim")
tr_start "$TMP/p.log" "${EV[@]}" -p "$victim" -o "$TMP/p" || t_fail "did not start: $(log_tail "$TMP/p.log")"
if t_ok; then
	wait "$victim"
	tr_wait
	check_eq "exit code" "$TR_RC" 0
	check_match "says why it stopped" "$(cat "$TMP/p.log")" "process $victim exited"
	check_eq "final snapshot" "$(nsnaps "$TMP/p" final)" 1
fi
t_end

t_begin "--dump-script prints the run as a script"
out=$("$TRIGREC" record -e sched:sched_switch --filter 'prev_pid != 0' -e 'raw_syscalls:*' -m 4M -g \
	-o /var/tmp/x --post 5ms --trigger 'latency raw_syscalls:sys_enter -> raw_syscalls:sys_exit by tid > 20ms name slow' \
	--dump-script -- ./app arg 2>&1)
check_eq "exit code" "$?" 0
check_match "record with filter" "$out" "record sched:sched_switch if prev_pid != 0"
check_match "glob" "$out" "record raw_syscalls:\*"
check_match "buffer" "$out" "buffer 4M"
check_match "callgraph" "$out" "callgraph"
check_match "command" "$out" "command ./app arg"
check_match "output" "$out" "output /var/tmp/x"
check_match "post" "$out" "post 5ms"
check_match "trigger" "$out" "trigger slow \{"
check_eq "nothing recorded" "$(ls /var/tmp/x 2>/dev/null | head -1)" ""
t_end
