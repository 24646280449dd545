#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Dynamic probes (uprobe:, uretprobe:, usdt:, kprobe:) as recorded events and
# as triggers of every kind, decoded from the snapshot with stock perf
# script: a uprobe -> uretprobe latency fires once for the one slow call and
# never for fast ones; filters on arguments, strings and return values; a
# rate on a uprobe; USDT with its semaphore raised; a kprobe filtered by an
# argument (where the kernel has kprobe events); globs (uprobe and kprobe:
# one event per match, caps, did-you-mean); scripts; the errors; and
# `trigrec test` of a probe's snapshot; cleanup: no trigrec_<pid> group
# left in uprobe_events after exit, and a kill -9's leftovers removed at
# the next start while other groups stay.
# tests/helpers/probework calls probework_call(i, ms, "call-<i>") (returns
# i * 10) for i = 1..N, the USDT probe probework:tick(i, tag) before each;
# with -g probework_a(i) and probework_b(i) after each (globs).
. "$(dirname "$0")/lib.sh"
need_root

PW=$OUTPUT/tests/probework
if [ ! -x "$PW" ]; then
	t_begin "$TEST_NAME"
	t_fail "$PW is not built (make $PW, or make check; needs systemtap-sdt-dev)"
	t_end
	exit 1
fi
TFS=/sys/kernel/tracing
[ -e $TFS/events ] || TFS=/sys/kernel/debug/tracing
CALL="uprobe:$PW:probework_call(id=arg1, ms=arg2, tag=+0(arg3):string)"
RET="uretprobe:$PW:probework_call"
TICK="usdt:$PW:probework:tick"

# Our groups in uprobe_events/kprobe_events (trigrec_<pid>), one event a line.
our_events() { cat $TFS/uprobe_events $TFS/kprobe_events 2>/dev/null | grep -o "trigrec_${1:-[0-9]*}/[^ ]*"; }

# probe_lines FILE: the probes' records as perf script prints them, group and
# addresses left out: "probework_call: id=1 ms=0 tag="call-1"".
probe_lines() {
	"$PERF" script -i "$1" -F event,trace 2>"$TMP/perf-script.err" |
		sed -n 's/^ *trigrec_[0-9]*:\([A-Za-z0-9_]*\): *([^)]*) */\1: /p'
}

# run DIR ARGS...: trigrec record -o DIR ARGS (a command after --), bounded.
run() {
	local d=$1
	shift
	tr_run "$TMP/log" -o "$d" --no-final-snapshot "$@"
}

t_begin "uprobe -> uretprobe latency by tid: one snapshot for the one slow call, with the calls' arguments"
D=$TMP/lat
run "$D" -e "$CALL" -e "$RET" \
	--trigger "latency $CALL -> $RET by tid > 30ms name slow" -- "$PW" -n 6 -s 3 -m 60
check_eq "trigrec exit" "$?" 0
check_eq "snapshots of slow" "$(nsnaps "$D" slow)" 1
S=$(snaps "$D" slow | head -1)
if [ -n "$S" ]; then
	probe_lines "$S" >"$TMP/lat.txt"
	check_eq "probe records up to the trigger" "$(cat "$TMP/lat.txt")" \
		"$(printf '%s\n' 'probework_call: id=1 ms=0 tag="call-1"' 'probework_call__return: ret=10' \
			'probework_call: id=2 ms=0 tag="call-2"' 'probework_call__return: ret=20' \
			'probework_call: id=3 ms=60 tag="call-3"' 'probework_call__return: ret=30')"
	json_load "${S%.data}.json"
	check_eq "sidecar: kind" "$(j trigger.kind)" latency
	check_eq "sidecar: the trigger's ret" "$(j trigger.fields.ret)" 30
	check_ge "sidecar: latency >= 60 ms" "$(j trigger.latency.duration_ns)" 60000000
	check_match "sidecar: start event" "$(j trigger.latency.start.event)" '^trigrec_[0-9]+:probework_call$'
fi
check_eq "uprobe_events after exit" "$(our_events)" ""
t_end

t_begin "uprobe -> uretprobe latency: fast calls never fire"
D=$TMP/fast
run "$D" -e "$CALL" --trigger "latency $CALL -> $RET by tid > 30ms name slow" -- "$PW" -n 50
check_eq "trigrec exit" "$?" 0
check_eq "snapshots" "$(nsnaps "$D")" 0
check_match "stats" "$(cat "$TMP/log")" 'trigger slow: evaluated 100, matched 0, fired 0'
t_end

t_begin "uprobe trigger filtered on an argument and a string field"
D=$TMP/arg
run "$D" -e "$CALL" --trigger "$CALL if id == 4 && tag == \"call-4\" name four" -- "$PW" -n 6
check_eq "snapshots of four" "$(nsnaps "$D" four)" 1
S=$(snaps "$D" four | head -1)
[ -n "$S" ] && check_eq "last record" "$(probe_lines "$S" | tail -1)" 'probework_call: id=4 ms=0 tag="call-4"'
[ -n "$S" ] && check_eq "records" "$(probe_lines "$S" | grep -c .)" 4
t_end

t_begin "trigrec test on a probe's snapshot: the probe names are the recorded events"
# $S: the snapshot of "four" above (probework_call records id=1..4).
if [ -n "$S" ]; then
	printf 'record %s\ntrigger two {\n  %s if id == 2 && tag == "call-2"\n}\n' "$CALL" "$CALL" >"$TMP/t.trig"
	"$TRIGREC" test "$TMP/t.trig" "$S" >"$TMP/test.out" 2>"$TMP/test.err"
	check_eq "exit ($(log_tail "$TMP/test.err"))" "$?" 0
	check_match "the firing, on the recorded event" "$(cat "$TMP/test.out")" \
		': [0-9.]+ cpu=[0-9]+ probework/[0-9]+ trigrec_[0-9]+:probework_call: trigger two fired'
	check_match "counts" "$(cat "$TMP/test.out")" 'trigger two: fired 1; evaluated 4, matched 1'
	printf 'trigger t {\n  %s\n}\n' "$TICK" >"$TMP/u.trig"
	"$TRIGREC" test "$TMP/u.trig" "$S" >"$TMP/test.out" 2>"$TMP/test.err"
	check_eq "not recorded: exit" "$?" 2
	check_match "not recorded: named, with the event it would be" "$(cat "$TMP/test.err")" \
		"u\.trig:2:3: $TICK has no event in this recording \(trigrec records it as trigrec_PID:probework__tick\): record it too \(-e $TICK\)"
fi
t_end

t_begin "uretprobe trigger on the return value"
D=$TMP/ret
run "$D" -e "$RET" --trigger "$RET if ret == 50 name ret50" -- "$PW" -n 6
check_eq "snapshots of ret50" "$(nsnaps "$D" ret50)" 1
S=$(snaps "$D" ret50 | head -1)
[ -n "$S" ] && check_eq "records" "$(probe_lines "$S" | tr '\n' ' ')" \
	'probework_call__return: ret=10 probework_call__return: ret=20 probework_call__return: ret=30 probework_call__return: ret=40 probework_call__return: ret=50 '
t_end

t_begin "rate on a uprobe: fires on the 4th call of a burst"
D=$TMP/rate
run "$D" -e "$CALL" --trigger "rate $CALL > 3/10s name burst" -- "$PW" -n 6
check_eq "snapshots of burst" "$(nsnaps "$D" burst)" 1
S=$(snaps "$D" burst | head -1)
[ -n "$S" ] && check_eq "last record" "$(probe_lines "$S" | tail -1)" 'probework_call: id=4 ms=0 tag="call-4"'
t_end

t_begin "USDT with a semaphore: raised while recorded, arguments from the note"
D=$TMP/usdt
# Without a tracer the semaphore stays 0 and the probe is skipped.
check_eq "semaphore without trigrec" "$("$PW" -n 1 -u | tail -1)" "semaphore=0"
run "$D" -e "$TICK" --trigger "$TICK if arg1 == 3 name tick3" -- "$PW" -n 5 -u -w 10
check_eq "trigrec exit" "$?" 0
check_match "the workload saw the semaphore raised" "$(cat "$TMP/log")" '^semaphore=[1-9]'
check_eq "snapshots of tick3" "$(nsnaps "$D" tick3)" 1
S=$(snaps "$D" tick3 | head -1)
[ -n "$S" ] && check_eq "tick records" "$(probe_lines "$S" | sed 's/ arg2=[0-9]*//' | tr '\n' ' ')" \
	'probework__tick: arg1=1 probework__tick: arg1=2 probework__tick: arg1=3 '
check_eq "uprobe_events after exit" "$(our_events)" ""
t_end

t_begin "scripts: probes in record lines and trigger blocks"
D=$TMP/script
cat >"$TMP/p.trig" <<EOF
record $CALL, $RET
record $TICK
output $D
trigger two { on $CALL if id == 2 && ms == 0 }
command $PW -n 3 -u -w 10
EOF
check_cmd "trigrec check" "$TRIGREC" check "$TMP/p.trig"
timeout -k 5 "$TIMEOUT" "$TRIGREC" run "$TMP/p.trig" --no-final-snapshot >"$TMP/log" 2>&1
check_eq "trigrec run exit" "$?" 0
check_eq "snapshots of two" "$(nsnaps "$D" two)" 1
S=$(snaps "$D" two | head -1)
[ -n "$S" ] && check_eq "records" "$(probe_lines "$S" | sed 's/ arg2=[0-9]*//' | tr '\n' '|')" \
	'probework__tick: arg1=1|probework_call: id=1 ms=0 tag="call-1"|probework_call__return: ret=10|probework__tick: arg1=2|probework_call: id=2 ms=0 tag="call-2"|'
check_eq "uprobe_events after check and run" "$(our_events)" ""
t_end

t_begin "kprobe trigger filtered by an argument"
if [ ! -e $TFS/kprobe_events ]; then
	# The message names the missing kernel option instead.
	"$TRIGREC" record -o "$TMP/kp" -e kprobe:do_sys_openat2 -- true >"$TMP/log" 2>&1
	check_match "error without kprobe events" "$(cat "$TMP/log")" 'no kprobe events .*CONFIG_KPROBE_EVENTS'
	t_skip "this kernel has no kprobe events (CONFIG_KPROBE_EVENTS): checked the error only"
elif [ "$(uname -m)" != x86_64 ]; then
	t_skip "the getsid case reads x86_64's pt_regs"
else
	D=$TMP/kp
	# __x64_sys_getsid(regs): getsid's argument is regs->di (offset 112).
	KP="kprobe:__x64_sys_getsid(sid=+112(arg1):s32)"
	run "$D" -e "$KP" --trigger "$KP if sid == 424242 name kp" -- \
		"$PY" -c 'import os
for p in (424241, 424242, 424243):
    try: os.getsid(p)
    except OSError: pass'
	check_eq "snapshots of kp" "$(nsnaps "$D" kp)" 1
	S=$(snaps "$D" kp | head -1)
	[ -n "$S" ] && check_eq "records" "$(probe_lines "$S" | grep -E 'sid=42424[0-9]' | tr '\n' ' ')" \
		'__x64_sys_getsid: sid=424241 __x64_sys_getsid: sid=424242 '
	check_eq "kprobe_events after exit" "$(our_events)" ""
fi
t_end

t_begin "kprobe on a function the kernel refuses (its kprobe blacklist): the error says why"
BL=/sys/kernel/debug/kprobes/blacklist
if [ ! -e $TFS/kprobe_events ]; then
	t_skip "this kernel has no kprobe events (CONFIG_KPROBE_EVENTS)"
elif [ ! -r $BL ]; then
	t_skip "no $BL (debugfs not mounted): the reason cannot be read here"
else
	# A blacklisted function that is a text symbol of its own (not a section
	# range), as the kernel lists them.
	fn=$(awk 'NR == FNR { if ($2 == "t" || $2 == "T") ks[$3] = 1; next }
		$2 in ks && $2 !~ /^__/ { print $2; exit }' /proc/kallsyms "$BL")
	if [ -z "$fn" ]; then
		t_skip "no blacklisted text symbol found in $BL"
	else
		out=$("$TRIGREC" record -o "$TMP/bl" -e "kprobe:$fn" -- true 2>&1)
		check_ne "kprobe:$fn: exit code" "$?" 0
		check_match "kprobe:$fn: the message" "$out" \
			"kernel refused .*$fn.* cannot be probed: the kernel's kprobe blacklist covers it, entry '$fn'"
		check_eq "kprobe_events after the refusal" "$(our_events)" ""
	fi
fi
t_end

t_begin "uprobe glob: one event per matching function, the field list on each, a trigger on the glob"
D=$TMP/uglob
AB="uprobe:$PW:probework_[ab](id=arg1)"
run "$D" -e "$AB" -e "uretprobe:$PW:probework_?" \
	--trigger "$AB if tid > 0 count >= 3 max 1" -- "$PW" -n 3 -g
check_eq "trigrec exit" "$?" 0
# Unnamed: the glob's function part without its glob characters.
check_eq "snapshots of probework_ab" "$(nsnaps "$D" probework_ab)" 1
S=$(snaps "$D" probework_ab | head -1)
[ -n "$S" ] && check_eq "records up to the 3rd hit" "$(probe_lines "$S" | tr '\n' '|')" \
	'probework_a: id=1|probework_a__return: ret=2|probework_b: id=1|probework_b__return: ret=3|probework_a: id=2|'
check_eq "uprobe_events after exit" "$(our_events)" ""
t_end

t_begin "usdt glob: provider and name globs over the notes"
D=$TMP/uglobt
UG="usdt:$PW:probe*:ti?k"
run "$D" -e "$UG" --trigger "$UG if arg1 == 2 name utick" -- "$PW" -n 3 -u -w 10
check_eq "snapshots of utick" "$(nsnaps "$D" utick)" 1
S=$(snaps "$D" utick | head -1)
[ -n "$S" ] && check_eq "tick records" "$(probe_lines "$S" | sed 's/ arg2=[0-9]*//' | tr '\n' ' ')" \
	'probework__tick: arg1=1 probework__tick: arg1=2 '
t_end

t_begin "uprobe glob errors: no match (did you mean), over the cap, fields on several"
err() { "$TRIGREC" record -o "$TMP/e" -e "$1" -- true >"$TMP/log" 2>&1; cat "$TMP/log"; }
check_match "no match" "$(err "uprobe:$PW:probwork_*")" \
	"'probwork_\*' matches no functions of .*probework \(did you mean probework_\*"
check_match "over the cap" "$(err "uprobe:$TRIGREC:*")" \
	"'\*' matches [0-9]+ functions of .*trigrec, more than the 64 one glob may probe: narrow it"
check_match "offset on a glob" "$(err "uprobe:$PW:probework_*+4")" '\+OFFSET needs one function'
check_match "a field needs one event" \
	"$("$TRIGREC" record -o "$TMP/e" --trigger "uprobe:$PW:probework_[ab](id=arg1) if id == 2" -- true 2>&1)" \
	"field 'id' needs a single tracepoint, but uprobe:.* matches 2"
check_eq "nothing left in uprobe_events" "$(our_events)" ""
t_end

t_begin "kprobe glob: one event per matching kernel function"
if [ ! -e $TFS/kprobe_events ]; then
	check_match "no match says so" "$(err "kprobe:do_sys_opn*")" \
		"'do_sys_opn\*' matches no kernel functions \(did you mean do_sys_ope"
	check_match "error without kprobe events" "$(err "kprobe:do_sys_open*")" 'no kprobe events .*CONFIG_KPROBE_EVENTS'
	t_skip "this kernel has no kprobe events (CONFIG_KPROBE_EVENTS): checked the errors only"
elif [ "$(uname -m)" != x86_64 ]; then
	t_skip "the glob names x86_64's syscall functions"
else
	D=$TMP/kglob
	check_match "over the cap" "$(err "kprobe:*")" \
		"'\*' matches [0-9]+ kernel functions, more than the 512 one glob may probe"
	# The glob matches getsid, getpgid (and getpid, getppid); the workload calls the first two.
	KG="kprobe:__x64_sys_get[sp]*id"
	AFF=$(grep -oE '^__x64_sys_get(s|p|pp|pg)id$' $TFS/available_filter_functions | sort -u | tr '\n' ' ')
	run "$D" -e "$KG" --trigger "$KG if tid > 0 count >= 3 max 1 name kglob" -- \
		"$PY" -c 'import os
for p in (424241, 424242):
    for f in (os.getsid, os.getpgid):
        try: f(p)
        except OSError: pass'
	check_eq "trigrec exit" "$?" 0
	check_eq "snapshots of kglob" "$(nsnaps "$D" kglob)" 1
	S=$(snaps "$D" kglob | head -1)
	[ -n "$S" ] && check_eq "records up to the 3rd hit (available_filter_functions has: $AFF)" \
		"$(probe_lines "$S" | sed 's/:.*//' | tail -3 | tr '\n' ' ')" '__x64_sys_getsid __x64_sys_getpgid __x64_sys_getsid '
	check_eq "kprobe_events after exit" "$(our_events)" ""
fi
t_end

t_begin "errors: did-you-mean, stripped binaries, absent USDT probes, unknown kernel functions"
check_match "uprobe symbol" "$(err "uprobe:$PW:probework_cal")" "no function 'probework_cal' in .* \(did you mean probework_call[ ?]"
check_match "usdt probe" "$(err "usdt:$PW:probework:tock")" 'no USDT probe probework:tock .*did you mean probework:tick\?'
check_match "no USDT notes" "$(err "usdt:$TRIGREC:a:b")" 'has no USDT probes'
check_cmd "strip a copy of probework" sh -c "cp '$PW' '$TMP/stripped' && strip '$TMP/stripped'"
check_match "stripped" "$(err "uprobe:$TMP/stripped:probework_call")" 'no symbols \(stripped\)|only its exported symbols'
check_match "kprobe function" "$(err kprobe:do_sys_opena)" "no kernel function 'do_sys_opena' \(did you mean [^)]*do_sys_open"
check_match "uretprobe argument" "$(err "uretprobe:$PW:probework_call(arg1)")" 'a uretprobe sees only the return value'
check_match "trigger error at its column" \
	"$("$TRIGREC" record -o "$TMP/e" --trigger "latency uprobe:$PW:nope -> $RET by tid > 1ms" -- true 2>&1)" \
	"1:9: .*no function 'nope'"
check_eq "nothing left in uprobe_events" "$(our_events)" ""
t_end

t_begin "cleanup after kill -9: the next start removes the dead run's group, never another's"
OFF=0x$(nm "$PW" | awk '$3 == "probework_call" { print $1 }' | sed 's/^0*//')
# A group trigrec did not create, on the same function (as perf probe would name it).
echo "p:probe_probework/foreign $PW:$OFF" >>$TFS/uprobe_events || t_fail "cannot add the foreign event"
if tr_start "$TMP/log9" -o "$TMP/k9" -e "$CALL"; then
	dead=$TR_PID
	check_eq "while running" "$(our_events "$dead")" "trigrec_$dead/probework_call"
	kill -9 "$dead"
	tr_wait "$dead"
	check_eq "after kill -9" "$(our_events "$dead")" "trigrec_$dead/probework_call"
	tr_run "$TMP/log" -o "$TMP/k9b" -e sched:sched_process_exit -- true
	check_eq "after the next start" "$(our_events "$dead")" ""
	check_match "it says so" "$(cat "$TMP/log")" 'removed 1 probe left by a trigrec that did not exit cleanly'
else
	t_fail "trigrec did not start: $(log_tail "$TMP/log9")"
fi
check_match "the foreign event stays" "$(cat $TFS/uprobe_events)" 'probe_probework/foreign '
echo "-:probe_probework/foreign" >>$TFS/uprobe_events
t_end

