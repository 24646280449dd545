#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Snapshots that explain themselves (issue 33), on provoked cases whose
# answer the workload (tests/helpers/trigwork) measures itself:
#  - command scope records what a span needs: the scoped tasks' switch-ins
#    and their wake-ups from any context (pipestall: a read(2) stalled by a
#    helper thread's nanosleep(2));
#  - `trigrec show`'s why section and `show --json`: blocked time and the
#    waker (pipestall), runnable time and who ran instead (rqlat: a waker
#    spinning on the woken thread's CPU);
#  - a ring too small for the span: the warning in show and the sidecar.
. "$(dirname "$0")/lib.sh"
need_root
TRIGWORK=$OUTPUT/tests/trigwork
RINGS_MODE=${TRIGREC_RINGS:-auto}

# mark KEY LINE: the value of KEY= in a trigwork marker line
mark() { sed -E "s/.* $1=([0-9-]+).*/\\1/" <<<"$2"; }

# ---- 1. command scope: the stalled pipe read ----

D1=$TMP/scope
tr_run "$TMP/scope.log" -m 1M --no-final-snapshot -o "$D1" \
	--trigger 'latency syscalls:sys_enter_read by tid -> syscalls:sys_exit_read by tid > 60ms where comm == "trigwork" name stall' \
	-- "$TRIGWORK" -o "$TMP/scope.marks" pipestall 120
rc=$?
F1=$(snaps "$D1" stall | head -1)
ps=$(grep '^pipestall ' "$TMP/scope.marks" 2>/dev/null)
RD=$(mark reader "$ps") WR=$(mark writer "$ps") WRT=$(mark write "$ps")
t_begin "why: command scope: a snapshot of the stalled read"
check_eq "trigrec exit ($(log_tail "$TMP/scope.log"))" "$rc" 0
check_ne "trigwork's marker" "$ps" ""
[ -n "$F1" ] || t_fail "no snapshot 'stall' in $D1: $(ls "$D1" 2>&1 | tr '\n' ' ')"
t_end

if [ "$RINGS_MODE" = perf ]; then
	t_begin "why: command scope records switch-ins and wake-ups (TRIGREC_RINGS=perf)"
	t_skip "TRIGREC_RINGS=perf: perf's per-task events see only the task's own context; the switch-ins and wake-ups of a command's tasks are recorded on the ring sets (rings=bpf)"
	t_end
elif [ -n "$F1" ]; then
	decode "$F1" text >"$TMP/scope.tsv"
	t_begin "why: command scope records the scoped tasks' switch-ins and wake-ups"
	# sched_wakeup of the reader after the writer's write: issued by the writer,
	# or on the reader's CPU from its idle task (a queued remote wake-up)
	wk=$(awk -F'\t' -v r="$RD" '$5 == "sched:sched_wakeup" && $8 ~ ("pid=" r " ")' "$TMP/scope.tsv" | tail -1)
	check_ne "a sched_wakeup of the reader $RD" "$wk" ""
	check_ge "at or after the write mark" "$(cut -f1 <<<"$wk")" "$WRT"
	check_le "before the read returned" "$(cut -f1 <<<"$wk")" "$(mark end "$ps")"
	check_match "issued by the writer or an idle task" "$(cut -f4 <<<"$wk")" "^($WR|0)\$"
	# the writer's own wake-up at the end of its nanosleep: from a timer, not by a scoped task
	ww=$(awk -F'\t' -v w="$WR" '($5 == "sched:sched_wakeup" || $5 == "sched:sched_waking") && $8 ~ ("pid=" w " ")' "$TMP/scope.tsv" | wc -l)
	check_ge "wake-ups of the sleeping writer $WR (from the timer's context)" "$ww" 1
	# switches into the reader and the writer (next_pid), though the task switched out is not scoped
	for t in "$RD" "$WR"; do
		n=$(awk -F'\t' -v t="$t" '$5 == "sched:sched_switch" && $8 ~ ("next_pid=" t "( |$)")' "$TMP/scope.tsv" | wc -l)
		check_ge "switches into $t" "$n" 1
	done
	# the writer is switched in after its sleep, before it writes
	si=$(awk -F'\t' -v t="$WR" '$5 == "sched:sched_switch" && $8 ~ ("next_pid=" t "( |$)") { print $1 }' "$TMP/scope.tsv" | tail -1)
	check_le "the writer's last switch-in is before its write mark" "$si" "$WRT"
	check_ge "and after its nanosleep began (write mark - 110 ms)" "$si" "$((WRT - 110000000))"
	t_end

	t_begin "why: show does not give the sleeping writer its nanosleep on a CPU"
	"$TRIGREC" show "$F1" >"$TMP/scope.show" 2>"$TMP/scope.show.err"
	check_eq "show exit ($(log_tail "$TMP/scope.show.err"))" "$?" 0
	row=$(sed -n '/^busiest tasks/,/^busiest events/p' "$TMP/scope.show" | awk -v t="$WR" 'split($4, a, "/") == 2 && a[2] == t')
	check_ne "the writer's row" "$row" ""
	oncpu=$(awk '{ print $2, $3 }' <<<"$row")
	check_match "its on-CPU time is in us or a few ms, not the 120 ms sleep ($row)" "$oncpu" '^([0-9.]+ (ns|us)|[0-9]\.[0-9]+ ms)$'
	t_end
fi
