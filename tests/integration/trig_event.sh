#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Event triggers: a condition fires on exactly the calls it names and on no
# other (integer ==, bit test &, ||, ! and parentheses with their precedence,
# comm ==, != and the three glob forms, and look-alikes that must not match),
# and `count >= N` fires on exactly the Nth match, then on every later one.
# trigwork makes each getsid/getpgid(V) call on request; the test waits for
# each snapshot before the next call, so the counters are exact.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trig_lib.sh"
need_root
need_trigwork

D=$TMP/out
# Each value V is matched by the integer part of exactly one trigger, so the
# comm part alone decides, and no trigger hides another (a hook stops at the
# first trigger that fires).
trigs=(
	# syscalls:sys_enter_getsid: eq is first on the hook, so it sees every call.
	'syscalls:sys_enter_getsid if pid == 1234567 name eq'
	'syscalls:sys_enter_getsid if pid & 0x40000000 name bit'
	'syscalls:sys_enter_getsid if (pid == 3001 || pid == 3002) && !(pid == 3002 && comm == "trigwork") name logic'
	# && binds tighter than ||: 3005 alone is enough.
	'syscalls:sys_enter_getsid if pid == 3005 || pid == 3006 && comm == "nomatch" name prec'
	'syscalls:sys_enter_getsid if pid == 4001 && comm == "trigwork" name comm_eq'
	'syscalls:sys_enter_getsid if pid == 4002 && comm ~ "trig*" name glob_pre'
	'syscalls:sys_enter_getsid if pid == 4003 && comm ~ "*work" name glob_suf'
	'syscalls:sys_enter_getsid if pid == 4004 && comm ~ "*igwo*" name glob_mid'
	# syscalls:sys_enter_getpgid: look-alikes that must not match "trigwork".
	'syscalls:sys_enter_getpgid if pid == 5001 && comm == "trigwor" name neg_eq'
	'syscalls:sys_enter_getpgid if pid == 5002 && comm ~ "work*" name neg_pre'
	'syscalls:sys_enter_getpgid if pid == 5003 && comm ~ "*trig" name neg_suf'
	'syscalls:sys_enter_getpgid if pid == 5004 && comm ~ "*igwx*" name neg_mid'
	'syscalls:sys_enter_getpgid if pid == 5005 && comm != "trigwork" name neg_ne'
	'syscalls:sys_enter_getpgid if pid == 5006 && comm == "trigworkx" name neg_long'
	'syscalls:sys_enter_getpgid if pid == 5007 && comm ~ "trigwor" name neg_full'
	'syscalls:sys_enter_getpgid if pid == 5008 && comm != "bash" && !(comm ~ "*x*") name pos_ne'
)
args=()
for t in "${trigs[@]}"; do args+=(--trigger "$t"); done

t_begin "event: conditions fire on exactly the calls they name"
if ! tw_start "$TMP/log" "$D" -e syscalls:sys_enter_getsid,syscalls:sys_enter_getpgid \
	--no-final-snapshot "${args[@]}"; then
	t_fail "trigrec did not start: $(log_tail "$TMP/log")"
	t_end
	exit 1
fi
# step VALUE [SYSCALL] [TRIGGER]: call; if TRIGGER, wait for its snapshot.
n_getsid=0 n_getpgid=0
step() {
	tw "${2:-getsid}" "$1" || return 1
	[ "${2:-getsid}" = getsid ] && n_getsid=$((n_getsid + 1)) || n_getpgid=$((n_getpgid + 1))
	[ -z "${3-}" ] && return 0
	wait_snaps "$D" "$3" 1 || t_fail "no snapshot of $3 after ${2:-getsid}($1)"
}
for v in 1 5 1234566 1234568; do step $v; done
step 1234567 getsid eq
step 1234568
step 0x3fffffff
step 0x40000000 getsid bit
step 3002
step 3003
step 3001 getsid logic
step 3006
step 3005 getsid prec
step 4001 getsid comm_eq
step 4002 getsid glob_pre
step 4003 getsid glob_suf
step 4004 getsid glob_mid
for v in 5001 5002 5003 5004 5005 5006 5007; do step $v getpgid; done
step 5008 getpgid pos_ne
tw_end
check_eq "trigrec exit code (log: $(log_tail "$TMP/log"))" "$TR_RC" 0
stats_load "$TMP/log"
t_end

t_begin "event: pid == 1234567 fires once, only for that value"
# eq is first on the getsid hook: it is evaluated on every getsid call.
check_stats eq evaluated=$n_getsid matched=1 fired=1 coalesced=0
check_gt "eq: evaluated > matched" "$(st eq evaluated)" "$(st eq matched)"
if one_snap "$D" eq; then
	check_eq "trigger.kind" "$(j trigger.kind)" event
	check_eq "trigger.fields.pid" "$(j trigger.fields.pid)" 1234567
	check_eq "trigger.event" "$(j trigger.event)" syscalls:sys_enter_getsid
	check_eq "trigger.comm" "$(j trigger.comm)" trigwork
	check_eq "trigger.tid = trigwork's thread" "$(j trigger.tid)" "$(mk getsid " v=1234567 " tid)"
	check_eq "trigger.matches" "$(j trigger.matches)" 1
	decode_full "$SNAP" >"$TMP/eq.tsv"
	check_ends_at "$TMP/eq.tsv" syscalls:sys_enter_getsid 1234567 "$(mk getsid " v=1234567 " tid)"
	# The calls before it are in the snapshot and did not fire.
	check_eq "getsid records before it (1 5 1234566 1234568 1234567)" \
		"$(awk -F'\t' '$5 == "syscalls:sys_enter_getsid" { printf "%s ", $6 }' "$TMP/eq.tsv")" \
		"1 5 1234566 1234568 1234567 "
fi
t_end

# pos NAME VALUE MATCHED: one snapshot, ending at the call that fired it.
pos() {
	t_begin "event: $1 fires on $2 only"
	check_stats "$1" matched=1 fired=1 coalesced=0 cooldown=0 limit=0
	check_gt "$1: evaluated > matched" "$(st "$1" evaluated)" "$(st "$1" matched)"
	if one_snap "$D" "$1"; then
		check_eq "trigger.name" "$(j trigger.name)" "$1"
		check_eq "trigger.fields.pid" "$(j trigger.fields.pid)" "$2"
		decode_full "$SNAP" >"$TMP/$1.tsv"
		check_ends_at "$TMP/$1.tsv" "$3" "$2" ""
	fi
	t_end
}
pos bit $((0x40000000)) syscalls:sys_enter_getsid
pos logic 3001 syscalls:sys_enter_getsid
pos prec 3005 syscalls:sys_enter_getsid
pos comm_eq 4001 syscalls:sys_enter_getsid
pos glob_pre 4002 syscalls:sys_enter_getsid
pos glob_suf 4003 syscalls:sys_enter_getsid
pos glob_mid 4004 syscalls:sys_enter_getsid
pos pos_ne 5008 syscalls:sys_enter_getpgid

t_begin "event: look-alike comm conditions never match"
for n in neg_eq neg_pre neg_suf neg_mid neg_ne neg_long neg_full; do
	# Before pos_ne on the hook, so each saw every getpgid call.
	check_stats $n evaluated=$n_getpgid matched=0 fired=0
	check_eq "$n snapshots" "$(nsnaps "$D" $n)" 0
done
check_eq "all snapshots (one per positive trigger)" "$(ls "$D"/*.data 2>/dev/null | wc -l)" 9
t_end

# ---- count >= N ----
BASE=$(seq_base)
D2=$TMP/count
t_begin "event: count >= 5 fires on the 5th match, then on each later one"
if tw_start "$TMP/log2" "$D2" -e syscalls:sys_enter_getsid,syscalls:sys_enter_getpgid \
	--no-final-snapshot --trigger 'syscalls:sys_enter_getsid if pid == 77 count >= 5 name cnt'; then
	for i in 1 2 3 4 5 6 7; do
		# getpgid(BASE + i) numbers the i-th getsid(77); getsid(78) never counts.
		if ! tw getpgid $((BASE + i)) || ! tw getsid 78 || ! tw getsid 77; then break; fi
		if [ $i -ge 5 ]; then
			wait_snaps "$D2" cnt $((i - 4)) || t_fail "no snapshot $((i - 4)) after match $i"
		else
			sleep 0.05 # a wrong early firing would show up now
			check_eq "snapshots after $i matches" "$(nsnaps "$D2" cnt)" 0
		fi
	done
	tw_end
	check_eq "trigrec exit code" "$TR_RC" 0
	stats_load "$TMP/log2"
	check_stats cnt evaluated=14 matched=3 fired=3 coalesced=0
	check_eq "snapshots" "$(nsnaps "$D2" cnt)" 3
else
	t_fail "trigrec did not start: $(log_tail "$TMP/log2")"
fi
t_end

t_begin "event: the 5th match's snapshot ends with the 5th getsid(77)"
F=$(snaps "$D2" cnt | head -1)
if [ -n "$F" ] && json_load "${F%.data}.json"; then
	check_eq "trigger.matches" "$(j trigger.matches)" 5
	check_eq "trigger.fields.pid" "$(j trigger.fields.pid)" 77
	decode_full "$F" >"$TMP/cnt.tsv"
	check_ends_at "$TMP/cnt.tsv" syscalls:sys_enter_getsid 77 ""
	check_eq "getsid(77) records" "$(awk -F'\t' '$6 == 77' "$TMP/cnt.tsv" | wc -l)" 5
	check_eq "getsid(78) records" "$(awk -F'\t' '$6 == 78' "$TMP/cnt.tsv" | wc -l)" 5
	check_eq "last numbered getpgid" \
		"$(awk -F'\t' '$5 == "syscalls:sys_enter_getpgid"' "$TMP/cnt.tsv" | tail -1 | cut -f6)" \
		$((BASE + 5))
	# Later firings carry their own match number.
	i=6
	for G in $(snaps "$D2" cnt | tail -n +2); do
		json_load "${G%.data}.json"
		check_eq "snapshot $((i - 4)): trigger.matches" "$(j trigger.matches)" $i
		decode_full "$G" >"$TMP/cnt$i.tsv"
		check_ends_at "$TMP/cnt$i.tsv" syscalls:sys_enter_getsid 77 ""
		i=$((i + 1))
	done
else
	t_fail "no count snapshot"
fi
t_end

# ---- a __data_loc string field: sched_process_exec's filename ----
D3=$TMP/exec
t_begin "event: globs on a __data_loc string (the exec of trigwork)"
# trigrec execs trigwork once recording: that exec is the only one in scope.
# The look-alikes come first on the hook, so each is evaluated.
if tw_start "$TMP/log3" "$D3" -e sched:sched_process_exec --no-final-snapshot \
	--trigger 'sched:sched_process_exec if filename == "/nonexistent/trigwork" name x_eq' \
	--trigger 'sched:sched_process_exec if filename ~ "*/bin/trigwork" name x_suf' \
	--trigger 'sched:sched_process_exec if filename ~ "trigwork*" name x_pre' \
	--trigger 'sched:sched_process_exec if filename ~ "*/tests/trigwork" && filename ~ "/*" && filename ~ "*/tests/*" name exec'; then
	wait_snaps "$D3" exec 1 || t_fail "no exec snapshot"
	tw_end
	check_eq "trigrec exit code (log: $(log_tail "$TMP/log3"))" "$TR_RC" 0
	stats_load "$TMP/log3"
	for n in x_eq x_suf x_pre; do check_stats $n evaluated=1 matched=0 fired=0; done
	check_stats exec evaluated=1 matched=1 fired=1
	if one_snap "$D3" exec; then
		check_eq "trigger.fields.filename" "$(j trigger.fields.filename)" "$TRIGWORK"
		check_eq "trigger.pid = the exec'd process" "$(j trigger.fields.pid)" "$(j trigger.pid)"
	fi
else
	t_fail "trigrec did not start: $(log_tail "$TMP/log3")"
fi
t_end

# ---- a firing trigger does not hide the event from the others ----
D4=$TMP/others
t_begin "event: the call that fires one trigger still counts for the next on the hook"
# docs/triggers.md: `count >= N` fires once the condition has held N times.
# getsid(1) fires `first` and is cnt2's 1st match; getsid(5) is its 2nd.
if tw_start "$TMP/log4" "$D4" -e syscalls:sys_enter_getsid --no-final-snapshot \
	--trigger 'syscalls:sys_enter_getsid if pid == 1 name first' \
	--trigger 'syscalls:sys_enter_getsid count >= 2 name cnt2'; then
	tw getsid 1
	wait_snaps "$D4" first 1 || t_fail "first: no snapshot"
	tw getsid 5
	TIMEOUT=3 wait_snaps "$D4" cnt2 1 ||
		t_fail "cnt2: no snapshot on its 2nd match: the getsid(1) that fired 'first' was not counted (tp_hook stops at the first trigger that fires)"
	tw_end
	stats_load "$TMP/log4"
	check_stats first matched=1 fired=1
	check_stats cnt2 evaluated=2 matched=1 fired=1
else
	t_fail "trigrec did not start: $(log_tail "$TMP/log4")"
fi
t_end

# ---- a trigger on an event nothing records (issue 34) ----
# -e leaves the trigger's event out: its firing record is still in its
# snapshot (rebuilt from the side-band message: the last record, at the
# trigger's time, with its fields, thread and CPU), the event's other calls
# are not recorded, and the start-up log and `trigrec check` say so.
D5=$TMP/lone
t_begin "event: a trigger on an unrecorded event keeps exactly its firing record"
if tw_start "$TMP/log5" "$D5" -e syscalls:sys_enter_getpgid --no-final-snapshot \
	--trigger 'syscalls:sys_enter_getsid if pid == 4242 name lone'; then
	tw getsid 4241 2
	tw getpgid 4243
	tw getsid 4242
	wait_snaps "$D5" lone 1 || t_fail "no snapshot of lone: $(log_tail "$TMP/log5")"
	tw getsid 4244
	tw_end
	check_eq "trigrec exit code (log: $(log_tail "$TMP/log5"))" "$TR_RC" 0
	check_eq "log lines that say so" "$(grep -c "syscalls:sys_enter_getsid is not recorded: trigger lone's snapshots keep only its firing record of it (record it to keep its history)$" "$TMP/log5")" 1
	if one_snap "$D5" lone; then
		decode_full "$SNAP" >"$TMP/lone.tsv"
		tid=$(mk getsid " v=4242 " tid)
		check_eq "getsid records: only the firing one" \
			"$(awk -F'\t' '$5 == "syscalls:sys_enter_getsid"' "$TMP/lone.tsv" | cut -f6 | tr '\n' ' ')" "4242 "
		check_eq "the recorded getpgid(4243) is there" \
			"$(awk -F'\t' '$5 == "syscalls:sys_enter_getpgid" && $6 == 4243' "$TMP/lone.tsv" | wc -l)" 1
		last=$(tail -1 "$TMP/lone.tsv")
		check_eq "last record's event" "$(cut -f5 <<<"$last")" syscalls:sys_enter_getsid
		check_eq "its time = trigger.time_ns" "$(cut -f1 <<<"$last")" "$(j trigger.time_ns)"
		check_eq "its CPU = trigger.cpu" "$(cut -f2 <<<"$last")" "$(j trigger.cpu)"
		check_eq "its pid = trigwork's" "$(cut -f3 <<<"$last")" "$(j trigger.pid)"
		check_eq "its tid = the caller's" "$(cut -f4 <<<"$last")" "$tid"
		check_eq "its comm" "$(cut -f7 <<<"$last")" trigwork
		check_match "its fields as perf prints them" "$(cut -f8 <<<"$last")" "^pid: 0x0*1092$"
		check_eq "window.end_ns = its time" "$(j window.end_ns)" "$(j trigger.time_ns)"
		check_eq "sidecar: trigger.record" "$(j trigger.record)" from_message
	fi
else
	t_fail "trigrec did not start: $(log_tail "$TMP/log5")"
fi
printf 'record syscalls:sys_enter_getpgid\ntrigger lone { syscalls:sys_enter_getsid if pid == 5 }\n' >"$TMP/lone.trig"
out=$(timeout 20 "$TRIGREC" check "$TMP/lone.trig" 2>&1)
check_eq "check exit status" "$?" 0
check_eq "check says so" "$out" "$TMP/lone.trig: ok: 1 event recorded, 1 trigger, 0 manual
$TMP/lone.trig: note: syscalls:sys_enter_getsid is not recorded: trigger lone's snapshots keep only its firing record of it (record it to keep its history)"
t_end
