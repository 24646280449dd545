#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A newcomer's first commands (issue 16): `list -h` is help; `list -v` shows
# each field as the tracefs format file declares it, with what a trigger can
# do with it; with no -e (and no `record` line in a script) the default set is
# recorded and announced, and a snapshot holds it next to the trigger's event.
. "$(dirname "$0")/lib.sh"
need_root

TRACEFS=/sys/kernel/tracing
[ -d $TRACEFS/events ] || TRACEFS=/sys/kernel/debug/tracing
BASE=$(seq_base)
MAGIC=$((BASE + 616))
TRIG="syscalls:sys_enter_getsid if pid == $MAGIC name newcomer"

# The default set as this kernel has it, after the trigger's event.
DEFAULT=(sched:sched_switch sched:sched_wakeup sched:sched_process_fork sched:sched_process_exec
	sched:sched_process_exit signal:signal_deliver)
present=()
for e in "${DEFAULT[@]}"; do
	[ -d "$TRACEFS/events/${e%%:*}/${e#*:}" ] && present+=("$e")
done
joined() { local IFS=,; local s="$*"; echo "${s//,/, }"; }
# wait_log FILE STRING: until FILE holds STRING (the default set is announced just
# after the "recording" line tr_start waits for).
wait_log() {
	local i
	for ((i = 0; i < TIMEOUT * 50; i++)); do _has "$1" "$2" && return 0; _nap 0.02; done
	return 1
}

# ---- list ----

t_begin "newcomer: list -h and --help are help (exit 0), ending with examples"
for h in -h --help; do
	out=$("$TRIGREC" list $h 2>"$TMP/lh.err")
	check_eq "list $h exit code" "$?" 0
	check_match "list $h" "$(head -1 <<<"$out")" "^usage: trigrec list \[-v\] \[GLOB\.\.\.\]$"
	check_match "list $h ends with the examples pointer" "$(tail -2 <<<"$out")" "^More: examples/"
	check_eq "list $h stderr" "$(cat "$TMP/lh.err")" ""
done
t_end

# format_fields SYS NAME: "name<TAB>type<TAB>size<TAB>signed" for each field, from the format file.
format_fields() {
	awk '/^\tfield:/ {
		l = $0; sub(/^\tfield:/, "", l)
		decl = l; sub(/;.*/, "", decl)
		size = l; sub(/.*size:/, "", size); sub(/;.*/, "", size)
		sgn = l; sub(/.*signed:/, "", sgn); sub(/;.*/, "", sgn)
		dims = ""
		if (match(decl, /\[[^]]*\]$/)) {
			dims = substr(decl, RSTART); decl = substr(decl, 1, RSTART - 1); sub(/ +$/, "", decl)
		}
		name = decl; sub(/.*[ *]/, "", name)
		type = substr(decl, 1, length(decl) - length(name)); sub(/ +$/, "", type)
		print name "\t" type dims "\t" size "\t" sgn
	}' "$TRACEFS/events/$1/$2/format"
}

# list_fields SYS:NAME: the same four columns and the class, from `trigrec list -v`.
list_fields() {
	local l re='^    ([^ ]+) +(.*[^ ]) +size:([0-9]+) +signed:([01]) +([a-z]+) +ops: (.*)$' in=0
	"$TRIGREC" list -v "$1" >"$TMP/lv.out" 2>"$TMP/lv.err" || echo "exit $?"
	while IFS= read -r l; do
		if [[ $l == "$1 "*"[tracepoint]" ]]; then in=1; continue; fi
		[[ $l != "    "* ]] && in=0
		((in)) && [[ $l =~ $re ]] &&
			printf '%s\t%s\t%s\t%s\t%s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" \
				"${BASH_REMATCH[3]}" "${BASH_REMATCH[4]}" "${BASH_REMATCH[5]}"
	done <"$TMP/lv.out"
}

# list_line SYS:NAME FIELD: the whole line of one field.
list_line() { "$TRIGREC" list -v "$1" 2>&1 | grep -E "^    $2 " | head -1; }

# check_fields SYS:NAME: every field of the format, in order, with its type, size and signedness.
check_fields() {
	local ev=$1
	want=$(format_fields "${ev%%:*}" "${ev#*:}")
	got=$(list_fields "$ev" | cut -f1-4)
	check_ne "$ev: fields in the format file" "$want" ""
	check_eq "$ev: list -v fields (name, type, size, signed)" "$got" "$want"
}

t_begin "newcomer: list -v, a string field (sched:sched_switch prev_comm) matches its format"
check_fields sched:sched_switch
check_match "prev_comm" "$(list_line sched:sched_switch prev_comm)" \
	'^    prev_comm +char\[16\] +size:16 +signed:0 +string +ops: == != ~  \('
check_nomatch "prev_comm is not a key" "$(list_line sched:sched_switch prev_comm)" '~  key'
t_end

t_begin "newcomer: list -v, an integer field (sched:sched_switch prev_pid) matches its format"
check_match "prev_pid" "$(list_line sched:sched_switch prev_pid)" \
	'^    prev_pid +pid_t +size:4 +signed:1 +integer +ops: == != < <= > >= &  key$'
t_end

t_begin "newcomer: list -v, a pointer field (syscalls:sys_enter_openat filename) matches its format"
if [ -d $TRACEFS/events/syscalls/sys_enter_openat ]; then
	check_fields syscalls:sys_enter_openat
	check_match "filename" "$(list_line syscalls:sys_enter_openat filename)" \
		'^    filename +const char \* +size:8 +signed:0 +pointer +ops: == != < <= > >= &  key  \(the address \(== 0 tests NULL\); str\(FIELD\) compares the text it points to with == != ~ \(user memory for syscalls:\*'
	# Declared int, stored in 8 bytes with signed:0: compared as signed, and said so.
	check_match "dfd" "$(list_line syscalls:sys_enter_openat dfd)" \
		'^    dfd +int +size:8 +signed:0 +integer .*compared as signed'
else
	t_skip "no syscalls:sys_enter_openat on this kernel (CONFIG_FTRACE_SYSCALLS off)"
fi
t_end

t_begin "newcomer: list -v shows kinds and exactly the synthetic fields triggers accept"
out=$("$TRIGREC" list -v cpu-clock sched:sched_wakeup 2>&1)
check_match "software event" "$out" '^cpu-clock +\[software event\]$'
check_match "tracepoint" "$out" '^sched:sched_wakeup +\[tracepoint\]$'
check_match "an event's own pid and comm" "$out" '^    \(comm, pid: the event.s own field here; write it in upper case'
synth=$(sed -n '/^synthetic fields/,$p' <<<"$out" | sed -nE 's/^    ([a-z]+) .*/\1/p' | tr '\n' ' ')
check_eq "synthetic fields" "$synth" "comm pid tid cpu cgroup "
check_match "cgroup" "$out" '^    cgroup +u64 +size:8 +signed:0 +integer +ops: == != < <= > >= &  key$'
t_end

t_begin "newcomer: list with several globs, and one that matches nothing"
out=$("$TRIGREC" list sched:sched_switch 'signal:*' 2>&1)
check_eq "exit code" "$?" 0
check_match "both" "$(tr '\n' ' ' <<<"$out")" '^sched:sched_switch +\[tracepoint\] signal:signal_deliver'
"$TRIGREC" list sched:sched_switch nosuch_subsys >/dev/null 2>"$TMP/nm.err"
check_eq "exit code with a glob matching nothing" "$?" 1
check_match "message" "$(cat "$TMP/nm.err")" "no tracepoint or software event matches 'nosuch_subsys'"
t_end

# ---- the default set ----

t_begin "newcomer: --dump-script writes the default set as record lines"
out=$("$TRIGREC" record --trigger "$TRIG" --dump-script 2>&1)
check_eq "record lines" "$(sed -n 's/^record //p' <<<"$out" | tr '\n' ' ')" \
	"syscalls:sys_enter_getsid ${present[*]} "
check_match "says why" "$out" '^# no event was chosen: the default set'
t_end

# Forks and execs a copy of true, signals itself, waits (switch, wakeup), then fires.
cp /bin/true "$TMP/newcomer-true"
cat >"$TMP/work.py" <<'PY'
import os, signal, sys
magic, true, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
signal.signal(signal.SIGUSR1, lambda *a: None)
os.kill(os.getpid(), signal.SIGUSR1)
child = os.fork()
if child == 0:
    os.execv(true, [true])
os.waitpid(child, 0)
with open(out, "w") as f:
    f.write("%d %d\n" % (os.getpid(), child))
try:
    os.getsid(magic)
except OSError:
    pass
PY

D=$TMP/trig
t_begin "newcomer: a trigger with no -e announces the default set and its snapshot holds it"
if tr_start "$TMP/trig.log" -a -m 4M -o "$D" --trigger "$TRIG"; then
	wait_log "$TMP/trig.log" "give -e to choose"
	check_match "start message" "$(cat "$TMP/trig.log")" \
		"^trigrec: recording the default set: $(joined syscalls:sys_enter_getsid "${present[@]}"); give -e to choose$"
	"$PY" "$TMP/work.py" "$MAGIC" "$TMP/newcomer-true" "$TMP/work.pids"
	read -r wpid cpid <"$TMP/work.pids"
	if wait_snaps "$D" newcomer 1; then
		decode "$(snaps "$D" newcomer | head -1)" text >"$TMP/trig.tsv"
		got=$(cut -f5 "$TMP/trig.tsv" | sort -u | tr '\n' ' ')
		for e in syscalls:sys_enter_getsid "${present[@]}"; do
			[[ " $got" == *" $e "* ]] || t_fail "no $e in the snapshot (it has: $got)"
		done
		# The workload's own events, not only someone's.
		ev_of() { awk -F '\t' -v e="$1" -v p="$2" '$5 == e && $3 == p' "$TMP/trig.tsv"; }
		check_match "getsid($MAGIC) of the workload" "$(ev_of syscalls:sys_enter_getsid "$wpid" | cut -f6)" "^$MAGIC$"
		check_match "its fork" "$(ev_of sched:sched_process_fork "$wpid" | cut -f8)" "child_pid=$cpid( |$)"
		check_match "the child's exec" "$(ev_of sched:sched_process_exec "$cpid" | cut -f8)" \
			"filename=$TMP/newcomer-true "
		check_match "the child's exit" "$(ev_of sched:sched_process_exit "$cpid" | cut -f8)" "pid=$cpid "
		if [[ " ${present[*]} " == *" signal:signal_deliver "* ]]; then
			check_match "SIGUSR1 delivered" "$(ev_of signal:signal_deliver "$wpid" | cut -f8)" "sig=10 "
		fi
		check_eq "last record is the trigger" "$(tail -1 "$TMP/trig.tsv" | cut -f3,5,6)" \
			"$wpid	syscalls:sys_enter_getsid	$MAGIC"
	else
		t_fail "no snapshot: $(log_tail "$TMP/trig.log")"
	fi
	tr_stop INT
	check_eq "exit code" "$TR_RC" 0
else
	t_fail "recorder did not start: $(log_tail "$TMP/trig.log")"
fi
t_end

# default_in FILE: the default set's scheduler events are there (what an idle
# machine certainly has within a snapshot: its own switches and wakeups).
default_in() {
	local got
	got=$("$PERF" script -i "$1" -F event 2>/dev/null | sed 's/: *$//; s/^ *//' | sort -u | tr '\n' ' ')
	[[ " $got" == *" sched:sched_switch "* ]] || echo "no sched:sched_switch in $(basename "$1") (has: $got)"
}

D=$TMP/none
S=$TMP/none.sock
t_begin "newcomer: neither -e nor --trigger: the default set, snapshots on SIGUSR2, control and Ctrl-C"
if tr_start "$TMP/none.log" -a -o "$D" --control "$S"; then
	wait_log "$TMP/none.log" "give -e to choose"
	check_match "start message" "$(cat "$TMP/none.log")" \
		"^trigrec: recording the default set: $(joined "${present[@]}"); give -e to choose$"
	check_match "no triggers" "$(cat "$TMP/none.log")" "^trigrec: recording ${#present[@]} events on .*, 0 triggers"
	"$PY" "$TMP/work.py" 1 "$TMP/newcomer-true" "$TMP/work.pids"
	kill -USR2 "$TR_PID"
	wait_snaps "$D" manual 1 || t_fail "no snapshot after SIGUSR2: $(log_tail "$TMP/none.log")"
	timeout -k 5 "$TIMEOUT" "$TRIGREC" control "$S" snapshot asked >"$TMP/ctl.out" 2>&1 ||
		t_fail "control snapshot: $(cat "$TMP/ctl.out")"
	wait_snaps "$D" asked 1 || t_fail "no snapshot after control: $(log_tail "$TMP/none.log")"
	tr_stop INT
	check_eq "exit code" "$TR_RC" 0
	wait_snaps "$D" final 1 || t_fail "no final snapshot after Ctrl-C: $(log_tail "$TMP/none.log")"
	for n in manual asked final; do
		f=$(snaps "$D" "$n" | head -1)
		[ -n "$f" ] && { w=$(default_in "$f"); [ -z "$w" ] || t_fail "$w"; }
	done
else
	t_fail "recorder did not start: $(log_tail "$TMP/none.log")"
fi
t_end

D=$TMP/script
t_begin "newcomer: a script without a record line records the default set"
printf 'trigger newcomer { on syscalls:sys_enter_getsid if pid == %s }\noutput %s\n' "$MAGIC" "$D" >"$TMP/s.trig"
out=$("$TRIGREC" check "$TMP/s.trig" 2>&1)
check_eq "check" "$out" "$TMP/s.trig: ok: $((${#present[@]} + 1)) events recorded (the default set: no record line), 1 trigger, 0 manual"
: >"$TMP/script.log"
"$TRIGREC" run "$TMP/s.trig" --count 1 >"$TMP/script.log" 2>&1 &
TR_PID=$!
_bg+=("$TR_PID")
wait_log "$TMP/script.log" "give -e to choose"
check_match "start message" "$(cat "$TMP/script.log")" \
	"^trigrec: recording the default set: $(joined syscalls:sys_enter_getsid "${present[@]}"); give -e to choose$"
"$PY" "$TMP/work.py" "$MAGIC" "$TMP/newcomer-true" "$TMP/work.pids"
tr_wait
check_eq "exit code (--count 1)" "$TR_RC" 0
if wait_snaps "$D" newcomer 1; then
	f=$(snaps "$D" newcomer | head -1)
	w=$(default_in "$f")
	[ -z "$w" ] || t_fail "$w"
	check_eq "last record" "$(decode "$f" | tail -1 | cut -f5,6)" "syscalls:sys_enter_getsid	$MAGIC"
else
	t_fail "no snapshot: $(log_tail "$TMP/script.log")"
fi
t_end
