#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stopping is always possible: Ctrl-C during a long post window cuts it
# short and still writes the trigger's snapshot and the final one; a second
# Ctrl-C exits at once; sampling stops before the final write.
. "$(dirname "$0")/lib.sh"
need_root

BASE=$(seq_base)
EV=(-e syscalls:sys_enter_getpgid --filter "$(seq_filter)")
TRIG="syscalls:sys_enter_getsid if pid == $((BASE + 1000))"

# Before the fix the side-band thread slept out the whole hour: SIGINT,
# SIGINT, SIGTERM did nothing, the control socket stopped answering, and
# only SIGKILL ended it, with no snapshot.
for how in "post 1h" "--post 1h"; do
	D=$TMP/post${how%% *}
	L=$D.log # one log per run: tr_start must not find the previous run's "recording" line
	if [ "$how" = "post 1h" ]; then args=(--trigger "$TRIG post 1h"); else args=(--trigger "$TRIG" --post 1h); fi
	t_begin "stop: Ctrl-C during a 1 h window ($how) cuts it short and writes both snapshots"
	if tr_start "$L" -a -o "$D" "${EV[@]}" "${args[@]}"; then
		# getsid(BASE + 1000) comes after getpgid 0..999; 1000 more follow in the window.
		"$SEQGEN" -n 2000 -t 1000 -b "$BASE" >/dev/null
		t0=$(date +%s%N)
		tr_stop INT
		dt=$((($(date +%s%N) - t0) / 1000000))
		check_eq "exit code (log: $(log_tail "$L"))" "$TR_RC" 0
		check_lt "stop took (ms)" "$dt" 5000
		check_match "log" "$(cat "$L")" "post window cut short"
		S=$(snaps "$D" sys_enter_getsid | head -1)
		if [ -n "$S" ] && json_load "${S%.data}.json"; then
			decode "$S" >"$TMP/p.tsv"
			check_eq "window records: all of seqgen's (count first last missing disorder)" \
				"$(seq_check "$TMP/p.tsv" "$BASE" 100000)" "2000 0 1999 0 0"
			check_gt "window.post_ns" "$(j window.post_ns)" 0
			check_lt "window.post_ns (cut short)" "$(j window.post_ns)" 3600000000000
			check_ge "window.end_ns (the stop) >= last record's time" "$(j window.end_ns)" "$(tail -1 "$TMP/p.tsv" | cut -f1)"
		else
			t_fail "no trigger snapshot in $D: $(ls "$D" 2>/dev/null | tr '\n' ' ')"
		fi
		check_eq "final snapshots" "$(nsnaps "$D" final)" 1
	else
		t_fail "recorder did not start: $(log_tail "$L")"
	fi
	t_end
done

# The second signal while the stop is still writing: out at once (130), as
# documented; before the fix the stop ignored every signal until it was done.
D=$TMP/twice
t_begin "stop: a second Ctrl-C while stopping exits at once"
if tr_start "$TMP/t.log" -a -o "$D" -m 32M "${EV[@]}" --trigger "$TRIG post 1h"; then
	"$SEQGEN" -n 300000 -t 1000 -b "$BASE" >/dev/null   # 17 MB to write at the stop
	kill -INT "$TR_PID"
	# Two signals sent at once merge into one: the second comes once the stop is under way.
	for ((i = 0; i < TIMEOUT * 500; i++)); do _has "$TMP/t.log" "trigrec: stopping" && break; _nap 0.002; done
	t0=$(date +%s%N)
	kill -INT "$TR_PID"
	tr_wait
	dt=$((($(date +%s%N) - t0) / 1000000))
	check_eq "exit code (log: $(log_tail "$TMP/t.log"))" "$TR_RC" 130
	check_match "log" "$(cat "$TMP/t.log")" "interrupted twice: exiting without finishing"
	check_lt "exit after the second signal took (ms)" "$dt" 1000
	check_eq "temporary files left" "$(leftovers "$D")" ""
else
	t_fail "recorder did not start: $(log_tail "$TMP/t.log")"
fi
t_end


# Every event is stopped once the final freeze is taken, before the final
# file is queued: before the fix -e cpu-clock -F 100000 sampled on through
# the final write, which then took 106 s here for a 1 MiB ring (0.45 s with
# the events stopped). At that rate the whole machine crawls, so the test
# checks the order at a sane rate: events stopped, then the final written.
D=$TMP/sampling
t_begin "stop: events are stopped once the final freeze is taken, before the final write"
if tr_start "$TMP/s.log" -v -a -o "$D" -e cpu-clock -F 1000 -m 256K; then
	_nap 0.3
	tr_stop INT
	check_eq "exit code (log: $(log_tail "$TMP/s.log"))" "$TR_RC" 0
	stopped=$(grep -n "events stopped: nothing more is recorded" "$TMP/s.log" | cut -d: -f1)
	final=$(grep -n -- "-final\.data (final;" "$TMP/s.log" | cut -d: -f1)
	check_match "line saying the events are stopped" "${stopped:-none}" '^[0-9]+$'
	check_match "line of the final snapshot" "${final:-none}" '^[0-9]+$'
	[ -n "$stopped" ] && [ -n "$final" ] && check_lt "events stopped (line) before the final is written (line)" "$stopped" "$final"
else
	t_fail "recorder did not start: $(log_tail "$TMP/s.log")"
fi
t_end
