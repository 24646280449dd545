#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# trigrec test SCRIPT FILE.data... on a snapshot the unit tests wrote
# (tests/fuzz/corpus/perfdata/fixture-why-ins: 8 tracepoints, 15 records):
#  - the firings, each with its exact record (time, CPU, thread, event),
#    for an event trigger with a condition and a latency by tid;
#  - exit 0 when one fired, 1 when none, 2 on errors: a bad script with
#    FILE:LINE:COL, an event the file did not record (named, with its -e),
#    an unreadable or cut file (str() on a pointer: test_engine.c); a record
#    damaged mid-file: the firings before it, once, then where it is;
#  - the same file given twice: every record evaluated once.
# Reads files only (no BPF, no perf events):
# trigrec-test: no-root
. "$(dirname "$0")/lib.sh"

F=$ROOT/tests/fuzz/corpus/perfdata/fixture-why-ins

t_begin "replay: each firing with its record, then the summary; exit 0"
cat >"$TMP/a.trig" <<'T'
trigger slow {
  latency raw_syscalls:sys_enter by tid -> raw_syscalls:sys_exit by tid > 4us
}
trigger sw {
  sched:sched_switch if next_pid == 100 limit none
}
T
"$TRIGREC" test "$TMP/a.trig" "$F" >"$TMP/o" 2>"$TMP/e"
check_eq "exit ($(log_tail "$TMP/e"))" "$?" 0
check_eq "firings" "$(grep -c ': trigger .* fired' "$TMP/o")" 3
check_match "the switches to 100" "$(cat "$TMP/o")" \
	"fixture-why-ins: 7000\\.000000500 cpu=0 \\?/0 sched:sched_switch: trigger sw fired
.*fixture-why-ins: 7000\\.000005500 cpu=0 \\?/0 sched:sched_switch: trigger sw fired"
check_match "the 5 us system call" "$(cat "$TMP/o")" \
	"fixture-why-ins: 7000\\.000006000 cpu=0 \\?/100 raw_syscalls:sys_exit: trigger slow fired latency=0\\.005000 ms start_tid=100"
check_match "summary" "$(cat "$TMP/o")" "a\\.trig: 8 records of 1 file evaluated"
check_match "per trigger" "$(cat "$TMP/o")" "trigger slow: fired 1; evaluated 5, matched 1"
t_end

t_begin "replay: nothing fires: exit 1; -q prints the summary only"
printf 'trigger x {\n  sched:sched_switch if prev_pid == 99999\n}\n' >"$TMP/b.trig"
"$TRIGREC" test "$TMP/b.trig" "$F" >"$TMP/o" 2>"$TMP/e"
check_eq "exit" "$?" 1
check_match "fired 0" "$(cat "$TMP/o")" "trigger x: fired 0; evaluated 3, matched 0"
"$TRIGREC" test -q "$TMP/a.trig" "$F" >"$TMP/o" 2>"$TMP/e"
check_eq "-q: exit" "$?" 0
check_eq "-q: no firing lines" "$(grep -c ': trigger .* fired' "$TMP/o")" 0
check_match "-q: the counts" "$(cat "$TMP/o")" "trigger sw: fired 2; evaluated 3, matched 2"
t_end

t_begin "replay: the same file twice: each record once"
"$TRIGREC" test "$TMP/a.trig" "$F" "$F" >"$TMP/o" 2>"$TMP/e"
check_eq "exit ($(log_tail "$TMP/e"))" "$?" 0
check_match "duplicates" "$(cat "$TMP/o")" "8 records of 2 files evaluated \\(8 held by two snapshots, counted once\\)"
check_eq "firings" "$(grep -c ': trigger .* fired' "$TMP/o")" 3
t_end

t_begin "replay: errors exit 2 and say what to do"
printf 'trigger x {\n  sched:sched_switch if prev_pidd == 3\n}\n' >"$TMP/c.trig"
"$TRIGREC" test "$TMP/c.trig" "$F" >"$TMP/o" 2>"$TMP/e"
check_eq "bad field: exit" "$?" 2
check_match "bad field: line:col" "$(cat "$TMP/e")" "c\\.trig:2:25: unknown field 'prev_pidd' for sched:sched_switch \\(did you mean 'prev_pid'\\?\\)"
printf 'trigger x {\n  sched:sched_switch if str(prev_comm) == "a"\n}\n' >"$TMP/d.trig"
"$TRIGREC" test "$TMP/d.trig" "$F" >"$TMP/o" 2>"$TMP/e"
# prev_comm is a char array: the language refuses str() of it
check_eq "str() of an array: exit" "$?" 2
"$TRIGREC" test "$TMP/a.trig" "$TMP/missing.data" >"$TMP/o" 2>"$TMP/e"
check_eq "missing file: exit" "$?" 2
check_match "missing file: named" "$(cat "$TMP/e")" "missing\\.data: No such file or directory"
head -c 100 "$F" >"$TMP/cut.data"
"$TRIGREC" test "$TMP/a.trig" "$TMP/cut.data" >"$TMP/o" 2>"$TMP/e"
check_eq "cut file: exit" "$?" 2
"$TRIGREC" test "$TMP/a.trig" >"$TMP/o" 2>"$TMP/e"
check_eq "no file: exit" "$?" 2
check_match "no file: usage" "$(cat "$TMP/e")" "give a trigger script and at least one snapshot"
t_end

t_begin "replay: a record damaged mid-file: the firings before it once, then where; exit 2"
# test_engine.c's replay_stops_at_a_damaged_record wrote it: the fixture with
# its third sched_switch record's size set to 4 (at file offset 2432)
"$TRIGREC" test "$TMP/a.trig" "$ROOT/tests/fuzz/corpus/replay/damaged-third-switch" >"$TMP/o" 2>"$TMP/e"
check_eq "exit" "$?" 2
check_eq "the firing before it" "$(grep -c ': trigger .* fired' "$TMP/o")" 1
check_match "its record" "$(cat "$TMP/o")" "damaged-third-switch: 7000\\.000000500 cpu=0 \\?/0 sched:sched_switch: trigger sw fired"
check_eq "each line once" "$(sort "$TMP/o" | uniq -d | wc -l)" 0
check_eq "no summary" "$(grep -c 'records of 1 file evaluated' "$TMP/o")" 0
check_match "where and what" "$(cat "$TMP/e")" \
	"damaged-third-switch: record at file offset 2432 has size 4 but 560 bytes are left: the file is cut short or corrupt; the replay stopped there: any firing printed came from the 3 records evaluated before it"
t_end

t_begin "replay: an event the file did not record is named with its -e"
if [ -r /sys/kernel/tracing/events/sched/sched_process_exit/format ] ||
	[ -r /sys/kernel/debug/tracing/events/sched/sched_process_exit/format ]; then
	printf '# x\ntrigger x {\n  sched:sched_process_exit\n}\n' >"$TMP/f.trig"
	"$TRIGREC" test "$TMP/f.trig" "$F" >"$TMP/o" 2>"$TMP/e"
	check_eq "exit" "$?" 2
	check_match "named, with -e" "$(cat "$TMP/e")" \
		"trigger x \\(.*f\\.trig:2\\) needs sched:sched_process_exit, which .*fixture-why-ins did not record: record it too \\(-e sched:sched_process_exit"
else
	t_skip "tracefs is not readable here: the event cannot be told from a typo, only the parse error is printed"
fi
t_end
