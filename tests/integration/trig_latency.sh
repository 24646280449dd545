#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Latency triggers: a nanosleep(2) of 30 ms fires `> 20ms`, ones of 5 and
# 10 ms do not; the sidecar's duration, threads and times agree with what
# trigwork measured around the call, and the snapshot ends with the
# sleeper's sys_exit. Keys: run-queue latency (sched_wakeup by pid ->
# sched_switch by next_pid), keys from differently named fields on the two
# sides, `by` on one side only, and the default key (the thread).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trig_lib.sh"
need_root
need_trigwork

NR_NANOSLEEP=35
[ "$(uname -m)" = aarch64 ] && NR_NANOSLEEP=101

# ---- raw_syscalls: nanosleep longer than 20 ms ----
D=$TMP/sys
# Under emulation (the kernel matrix's TCG guests, SLOW > 1) a 10 ms sleep
# was seen to take over 20 ms: there the threshold and the long sleep are
# ten times as long (200 ms, 300 ms); the short sleeps stay 5 and 10 ms.
F=1
[ "$SLOW" -gt 1 ] && F=10
TH=$((20 * F)) LONG=$((30 * F))
t_begin "latency: nanosleep 30 ms fires > 20ms; 5 and 10 ms do not"
if tw_start "$TMP/log" "$D" -e raw_syscalls:sys_enter,raw_syscalls:sys_exit --no-final-snapshot \
	--trigger "latency raw_syscalls:sys_enter -> raw_syscalls:sys_exit by tid > ${TH}ms if id == $NR_NANOSLEEP name lat"; then
	# In other threads (tsleep) and in the main one; trigwork's own waits
	# (reading its FIFO, pause) are other syscalls, longer than 20 ms.
	tw tsleep 5
	tw nsleep 10
	tw tsleep 10
	tw pause 40
	sleep 0.1
	check_eq "snapshots before the 30 ms sleep" "$(nsnaps "$D" lat)" 0
	tw tsleep "$LONG"
	wait_snaps "$D" lat 1 || t_fail "no snapshot after the 30 ms sleep"
	tw_end
	check_eq "trigrec exit code (log: $(log_tail "$TMP/log"))" "$TR_RC" 0
	stats_load "$TMP/log"
	check_stats lat matched=1 fired=1 coalesced=0 stale=0
else
	t_fail "trigrec did not start: $(log_tail "$TMP/log")"
fi
t_end

t_begin "latency: the sidecar describes the 30 ms sleep"
tid=$(mk nsleep " ms=$LONG " tid) s0=$(mk nsleep " ms=$LONG " start) s1=$(mk nsleep " ms=$LONG " end)
if one_snap "$D" lat; then
	check_ne "sleeper tid is not the main thread" "$tid" "$(mk nsleep " ms=10 " tid | head -1)"
	check_eq "trigger.kind" "$(j trigger.kind)" latency
	check_eq "latency.threshold_ns" "$(j trigger.latency.threshold_ns)" $((TH * 1000000))
	dur=$(j trigger.latency.duration_ns)
	check_gt "duration_ns > threshold" "$dur" $((TH * 1000000))
	check_ge "duration_ns >= the $LONG ms asked for" "$dur" $((LONG * 1000000))
	# trigwork read the clock right before and after the syscall.
	check_le "duration_ns <= trigwork's own measurement ($((s1 - s0)))" "$dur" $((s1 - s0))
	check_eq "duration = end - start" "$dur" \
		$(($(j trigger.latency.end.time_ns) - $(j trigger.latency.start.time_ns)))
	check_ge "start.time_ns >= trigwork's start" "$(j trigger.latency.start.time_ns)" "$s0"
	check_le "end.time_ns <= trigwork's end" "$(j trigger.latency.end.time_ns)" "$s1"
	check_eq "start.tid" "$(j trigger.latency.start.tid)" "$tid"
	check_eq "end.tid" "$(j trigger.latency.end.tid)" "$tid"
	check_eq "start.event" "$(j trigger.latency.start.event)" raw_syscalls:sys_enter
	check_eq "end.event" "$(j trigger.latency.end.event)" raw_syscalls:sys_exit
	check_eq "start.key" "$(j trigger.latency.start.key)" tid
	check_eq "key_values.0 = the sleeper" "$(j trigger.latency.key_values.0)" "$tid"
	check_eq "trigger.fields.id" "$(j trigger.fields.id)" $NR_NANOSLEEP
	check_eq "trigger.time_ns = end.time_ns" "$(j trigger.time_ns)" "$(j trigger.latency.end.time_ns)"
	decode_full "$SNAP" >"$TMP/lat.tsv"
	check_ends_at "$TMP/lat.tsv" raw_syscalls:sys_exit - "$tid"
	check_match "last record" "$(tail -1 "$TMP/lat.tsv" | cut -f8)" "^NR $NR_NANOSLEEP = 0\$"
	# The start is in the snapshot too: the sleeper's sys_enter, just after start.time_ns.
	enter=$(awk -F'\t' -v t="$tid" '$4 == t && $5 == "raw_syscalls:sys_enter" && $8 ~ /^NR '$NR_NANOSLEEP' /' "$TMP/lat.tsv" | tail -1)
	if [ -n "$enter" ]; then
		check_ge "sys_enter record >= start.time_ns" "$(cut -f1 <<<"$enter")" "$(j trigger.latency.start.time_ns)"
		check_le "sys_enter record - start.time_ns" $(($(cut -f1 <<<"$enter") - $(j trigger.latency.start.time_ns))) $((1000000 * SLOW))
	else
		t_fail "no sys_enter NR $NR_NANOSLEEP of tid $tid in the snapshot"
	fi
fi
t_end

# ---- run-queue latency: sched_wakeup by pid -> sched_switch by next_pid ----
D=$TMP/rq
CPU0=$(cut -d, -f1 /sys/devices/system/cpu/online | cut -d- -f1)
t_begin "latency: run-queue wait of 20 ms fires > 5ms, 1 ms does not"
# The start side's comm is the woken task's (a tracepoint field wins over
# the pseudo-field): only rqlat's woken thread W, named trigwork-rq, not
# kworkers or other trigwork threads woken by in-scope tasks.
# The 1 ms case asserts what W itself measured: its wait (wake to its
# first clock read after read(2) returns) includes the kernel's wakeup to
# switch-in, so under 5 ms the trigger must not fire. Under emulation W can
# wait longer than the spin (the 6.1-rt guest under TCG: 3 of 12 boots on
# 2026-12-05 fired here, with W's priority at 5 and at 60, above the
# threaded interrupts); then one firing is right, and is counted below.
early=0
if tw_start "$TMP/log2" "$D" -e sched:sched_switch,sched:sched_wakeup --no-final-snapshot \
	--trigger 'latency sched:sched_wakeup if comm == "trigwork-rq" by pid -> sched:sched_switch by next_pid > 5ms name rq'; then
	tw rqlat 1 "$CPU0"
	sleep 0.1
	err=$(mk rqlat "" error)
	if [ -z "$err" ]; then
		w1=$(($(mk rqlat " busy_ms=1 " run) - $(mk rqlat " busy_ms=1 " wake)))
		if [ "$w1" -lt 5000000 ]; then
			check_eq "snapshots after a 1 ms wait (W measured $w1 ns)" "$(nsnaps "$D" rq)" 0
		else
			echo "  (W waited $w1 ns after a 1 ms spin, over the 5 ms threshold: it may fire)"
			early=unknown
		fi
		tw rqlat 20 "$CPU0"
		err=$(mk rqlat "" error)
	fi
	[ -z "$err" ] && { wait_snaps "$D" rq 1 || t_fail "no snapshot after a 20 ms wait"; }
	tw_end
	check_eq "trigrec exit code (log: $(log_tail "$TMP/log2"))" "$TR_RC" 0
	if [ -z "$err" ] && [ "$early" = unknown ]; then
		# trigrec has exited: every snapshot is written. A firing on the
		# 1 ms spin must be the first, with a duration W's wait allows.
		early=$(($(nsnaps "$D" rq) - 1))
		check_le "snapshots of the 1 ms spin W measured as $w1 ns" "$early" 1
		if [ "$early" = 1 ] && json_load "$(snaps "$D" rq | head -1 | sed 's/\.data$/.json/')"; then
			check_gt "its duration > 5 ms" "$(j trigger.latency.duration_ns)" 5000000
			check_le "its duration <= W's $w1 ns" "$(j trigger.latency.duration_ns)" "$w1"
		fi
	fi
	stats_load "$TMP/log2"
	if [ -n "$err" ]; then
		t_skip "cannot make a thread SCHED_FIFO here ($err): run-queue latency not provoked"
	else
		check_stats rq matched=$((early + 1)) fired=$((early + 1)) coalesced=0
	fi
else
	t_fail "trigrec did not start: $(log_tail "$TMP/log2")"
fi
t_end

if [ -z "${err-}" ]; then
	t_begin "latency: run-queue sidecar: woken thread, waker, times"
	waker=$(mk rqlat " busy_ms=20 " waker) w=$(mk rqlat " busy_ms=20 " wtid)
	wake=$(mk rqlat " busy_ms=20 " wake) run=$(mk rqlat " busy_ms=20 " run)
	# The 20 ms wait's snapshot: the last one (the first is the 1 ms
	# spin's when W measured that over 5 ms, above).
	SNAP=$(snaps "$D" rq | tail -1)
	if [ "$(nsnaps "$D" rq)" -ne $((early + 1)) ]; then
		t_fail "snapshots of rq: got $(nsnaps "$D" rq), want $((early + 1))"
	elif ! json_load "${SNAP%.data}.json"; then
		t_fail "sidecar of $SNAP: ${J[error]-}"
	else
		dur=$(j trigger.latency.duration_ns)
		check_eq "key_values.0 = the woken thread" "$(j trigger.latency.key_values.0)" "$w"
		check_eq "start.key" "$(j trigger.latency.start.key)" pid
		check_eq "end.key" "$(j trigger.latency.end.key)" next_pid
		check_eq "start.tid = the waker" "$(j trigger.latency.start.tid)" "$waker"
		check_eq "end.tid = the waker, switching out" "$(j trigger.latency.end.tid)" "$waker"
		check_eq "fields.next_pid" "$(j trigger.fields.next_pid)" "$w"
		check_eq "fields.prev_pid" "$(j trigger.fields.prev_pid)" "$waker"
		check_eq "fields.next_comm" "$(j trigger.fields.next_comm)" trigwork-rq
		check_ge "start.time_ns >= trigwork's wake" "$(j trigger.latency.start.time_ns)" "$wake"
		check_ge "end.time_ns >= wake + 20 ms (the waker spun that long)" \
			"$(j trigger.latency.end.time_ns)" $((wake + 20000000))
		check_le "end.time_ns <= W's first clock read" "$(j trigger.latency.end.time_ns)" "$run"
		check_gt "duration > 5 ms" "$dur" 5000000
		check_le "duration <= W's run - wake" "$dur" $((run - wake))
		decode_full "$SNAP" >"$TMP/rq.tsv"
		check_ends_at "$TMP/rq.tsv" sched:sched_switch - "$waker"
		check_match "last record" "$(tail -1 "$TMP/rq.tsv" | cut -f8)" "next_pid=$w "
	fi
	t_end
fi

# ---- keys: different fields per side, one-sided by, default (thread) ----
D=$TMP/keys
t_begin "latency: keys from different fields, one-sided by, default thread key"
P=$((0x3fffffff)) # setpgid(P, G) on a pid that does not exist: ESRCH, no effect
if tw_start "$TMP/log3" "$D" --no-final-snapshot \
	-e syscalls:sys_enter_getpgid,syscalls:sys_enter_setpgid,syscalls:sys_enter_getsid \
	--trigger 'latency syscalls:sys_enter_getpgid by pid -> syscalls:sys_enter_setpgid by pgid > 20ms name keys' \
	--trigger 'latency syscalls:sys_enter_getpgid if pid == 880 -> syscalls:sys_enter_getsid by pid > 5ms name onekey' \
	--trigger 'latency syscalls:sys_enter_getpgid if pid == 990 -> syscalls:sys_enter_getsid if pid == 990 > 5ms name bytid' \
	--trigger 'latency syscalls:sys_enter_getsid if pid == 63 by PID -> syscalls:sys_enter_getsid if pid == 63 by PID > 25ms name chain'; then
	tw getpgid 777 pause 40 setpgid $P 778          # other key
	tw getpgid 779 setpgid $P 779                  # same key, back to back: < 20 ms
	tw getpgid 990 pause 10 par 1 getsid 990        # other thread (a child)
	sleep 0.1
	check_eq "snapshots before the matching pairs" "$(ls "$D" 2>/dev/null | wc -l)" 0
	tw getpgid 780 pause 40 setpgid $P 780
	wait_snaps "$D" keys 1 || t_fail "keys: no snapshot"
	tw pause 40 setpgid $P 780                      # the start was consumed
	tw getpgid 880 pause 10 getsid 880
	wait_snaps "$D" onekey 1 || t_fail "onekey: no snapshot"
	tw getsid 990                                   # the thread that started it
	wait_snaps "$D" bytid 1 || t_fail "bytid: no snapshot"
	# chain (checked below): one event ends the last span and starts the
	# next; ends go first, so a call never matches the start it just made.
	tw getsid 63 getsid 63 getsid 63 getsid 63
	sleep 0.1
	chain0=$(nsnaps "$D" chain)
	tw pause 40 getsid 63
	wait_snaps "$D" chain 1
	tw pause 40 getsid 63
	TIMEOUT=3 wait_snaps "$D" chain 2
	tw_end
	check_eq "trigrec exit code (log: $(log_tail "$TMP/log3"))" "$TR_RC" 0
	stats_load "$TMP/log3"
	check_stats keys matched=1 fired=1
	check_stats onekey matched=1 fired=1
	check_stats bytid matched=1 fired=1
	check_eq "keys snapshots" "$(nsnaps "$D" keys)" 1
	if one_snap "$D" keys; then
		check_eq "keys: key_values.0" "$(j trigger.latency.key_values.0)" 780
		check_eq "keys: start.key" "$(j trigger.latency.start.key)" pid
		check_eq "keys: end.key" "$(j trigger.latency.end.key)" pgid
		check_eq "keys: fields.pgid" "$(j trigger.fields.pgid)" 780
		check_ge "keys: duration >= 40 ms" "$(j trigger.latency.duration_ns)" 40000000
		decode_full "$SNAP" >"$TMP/keys.tsv"
		check_ends_at "$TMP/keys.tsv" syscalls:sys_enter_setpgid "" "$(mk setpgid " g=780 " tid)"
	fi
	if one_snap "$D" onekey; then
		check_eq "onekey: key_values.0" "$(j trigger.latency.key_values.0)" 880
		check_eq "onekey: end.key" "$(j trigger.latency.end.key)" pid
	fi
	if one_snap "$D" bytid; then
		main=$(mk getpgid " v=990 " tid)
		check_eq "bytid: start.tid" "$(j trigger.latency.start.tid)" "$main"
		check_eq "bytid: end.tid" "$(j trigger.latency.end.tid)" "$main"
		check_eq "bytid: key_values.0 = the thread" "$(j trigger.latency.key_values.0)" "$main"
		check_ge "bytid: duration >= 10 ms + the child's run" "$(j trigger.latency.duration_ns)" 10000000
	fi
else
	t_fail "trigrec did not start: $(log_tail "$TMP/log3")"
fi
t_end

t_begin "latency: an event that ends a span and starts the next, 40 ms apart, fires each time"
# The call that fires also starts the next span, as sched_switch does in
# docs/triggers.md's `latency sched:sched_switch ... -> sched:sched_switch`.
check_eq "chain: snapshots for back-to-back calls" "${chain0-}" 0
check_stats chain matched=2 fired=2
check_eq "chain: snapshots" "$(nsnaps "$D" chain)" 2
if [ "$(nsnaps "$D" chain)" -lt 2 ]; then
	t_fail "chain: the call that fired the 1st snapshot did not store its start (tp_hook stops at the first trigger that fires, START roles included)"
fi
# Firing k ends the span that call k+3 started, in [t, t_end] of each call.
k=0
for f in $(snaps "$D" chain); do
	k=$((k + 1))
	json_load "${f%.data}.json" || continue
	st_t=$(j trigger.latency.start.time_ns) en_t=$(j trigger.latency.end.time_ns)
	read -r a0 a1 < <(grep '^getsid v=63 ' "$TW_MARKS" | sed -n "$((k + 3))p" | sed 's/.* t=\([0-9]*\) t_end=\([0-9]*\).*/\1 \2/')
	read -r b0 b1 < <(grep '^getsid v=63 ' "$TW_MARKS" | sed -n "$((k + 4))p" | sed 's/.* t=\([0-9]*\) t_end=\([0-9]*\).*/\1 \2/')
	check_ge "chain $k: start in call $((k + 3))" "$st_t" "$a0"
	check_le "chain $k: start in call $((k + 3))" "$st_t" "$a1"
	check_ge "chain $k: end in call $((k + 4))" "$en_t" "$b0"
	check_le "chain $k: end in call $((k + 4))" "$en_t" "$b1"
	check_ge "chain $k: duration >= 40 ms" "$(j trigger.latency.duration_ns)" 40000000
done
t_end
