#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Snapshots on request and at the end: SIGUSR2 takes a "-manual" snapshot,
# Ctrl-C (SIGINT) and SIGTERM stop with a "-final" one (none with
# --no-final-snapshot), --count N stops after N trigger snapshots.
. "$(dirname "$0")/lib.sh"
need_root

BASE=$(seq_base) BASE2=$(($(seq_base) + 100000))
EV=(-e syscalls:sys_enter_getpgid --filter "$(seq_filter)")

# -a, SIGUSR2, then Ctrl-C. The ring does not wrap, so each snapshot holds
# exactly what ran since the previous one.
D=$TMP/a
if tr_start "$TMP/a.log" -a -o "$D" "${EV[@]}"; then
	"$SEQGEN" -n 1000 -t 2000 -b "$BASE" >/dev/null
	kill -USR2 "$TR_PID"
	wait_snaps "$D" manual 1
	alive=0
	kill -0 "$TR_PID" 2>/dev/null && alive=1
	"$SEQGEN" -n 500 -t 2000 -b "$BASE2" >/dev/null
	tr_stop INT
	M=$(snaps "$D" manual | head -1)
	G=$(snaps "$D" final | head -1)

	t_begin "signals: SIGUSR2 writes a -manual snapshot, recording goes on"
	check_eq "manual snapshots" "$(nsnaps "$D" manual)" 1
	check_eq "recorder alive after the snapshot" "$alive" 1
	if [ -n "$M" ]; then
		decode "$M" >"$TMP/m.tsv"
		check_eq "manual: seqgen records (count first last missing disorder)" \
			"$(seq_check "$TMP/m.tsv" "$BASE" 100000)" "1000 0 999 0 0"
		json_load "${M%.data}.json"
		check_eq "manual: sidecar trigger name" "$(j trigger.name)" manual
		check_eq "manual: sidecar trigger text" "$(j trigger.text)" SIGUSR2
	fi
	t_end

	t_begin "signals: SIGINT stops with a -final snapshot of what followed"
	check_eq "exit code (log: $(log_tail "$TMP/a.log"))" "$TR_RC" 0
	check_eq "final snapshots" "$(nsnaps "$D" final)" 1
	if [ -n "$G" ]; then
		decode "$G" >"$TMP/g.tsv"
		check_eq "final: second seqgen's records" "$(seq_check "$TMP/g.tsv" "$BASE2" 100000)" "500 0 499 0 0"
		json_load "${G%.data}.json"
		if [ "$(j rings)" = bpf ]; then
			# Ring sets never stop recording: the final one holds the whole history.
			check_eq "final: first seqgen's records (the whole history, rings=bpf)" \
				"$(seq_check "$TMP/g.tsv" "$BASE" 100000 | cut -d' ' -f1,4,5)" "1000 0 0"
		else
			check_eq "final: first seqgen's records (taken by the manual snapshot)" \
				"$(seq_check "$TMP/g.tsv" "$BASE" 100000 | cut -d' ' -f1)" 0
		fi
	fi
	check_eq "leftover temporary files" "$(leftovers "$D")" ""
	t_end
else
	t_blocked "signals: SIGUSR2 / SIGINT" "recorder did not start: $(log_tail "$TMP/a.log")"
fi

# SIGTERM: like Ctrl-C.
D=$TMP/term
t_begin "signals: SIGTERM stops with a -final snapshot"
if tr_start "$TMP/term.log" -a -o "$D" "${EV[@]}"; then
	tr_stop TERM
	check_eq "exit code (log: $(log_tail "$TMP/term.log"))" "$TR_RC" 0
	check_eq "final snapshots" "$(nsnaps "$D" final)" 1
else
	t_fail "recorder did not start: $(log_tail "$TMP/term.log")"
fi
t_end

# --no-final-snapshot: Ctrl-C writes nothing.
D=$TMP/nofinal
t_begin "signals: --no-final-snapshot: Ctrl-C writes no snapshot"
if tr_start "$TMP/nofinal.log" -a -o "$D" --no-final-snapshot "${EV[@]}"; then
	"$SEQGEN" -n 100 -t 2000 -b "$BASE" >/dev/null
	tr_stop INT
	check_eq "exit code (log: $(log_tail "$TMP/nofinal.log"))" "$TR_RC" 0
	check_eq "files in the output directory" "$(ls -A "$D" 2>/dev/null)" ""
else
	t_fail "recorder did not start: $(log_tail "$TMP/nofinal.log")"
fi
t_end

# --count 1: the workload would run for ~30 s after its trigger; the recorder
# stops after the first snapshot and ends the workload.
D=$TMP/count
t_begin "signals: --count 1 stops after one trigger snapshot"
if tr_start "$TMP/count.log" -o "$D" --count 1 --trigger syscalls:sys_enter_getsid \
	"${EV[@]}" -e syscalls:sys_enter_getsid -- "$SEQGEN" -n 30000 -t 1000 -u 1000 -b "$BASE"; then
	tr_wait
	check_eq "exit code (log: $(log_tail "$TMP/count.log"))" "$TR_RC" 0
	check_eq "trigger snapshots" "$(nsnaps "$D" sys_enter_getsid)" 1
	check_eq "final snapshots" "$(nsnaps "$D" final)" 0
	check_match "log" "$(cat "$TMP/count.log")" "--count 1 reached"
	check_nomatch "log announces a final snapshot it does not take" \
		"$(cat "$TMP/count.log")" "taking the final snapshot"
	check_eq "workload left running" "$(pgrep -f "$SEQGEN -n 30000 -t 1000 -u 1000 -b $BASE")" ""
else
	t_fail "recorder did not start: $(log_tail "$TMP/count.log")"
fi
t_end

# A snapshot of nothing (-p of a task that only sleeps: not even a COMM or
# FORK record): still a valid file.
D=$TMP/empty
sleep 60 >/dev/null 2>&1 &
sleeper=$!
_bg+=("$sleeper")
t_begin "signals: an empty manual snapshot is a valid, empty perf.data"
if tr_start "$TMP/empty.log" -p $sleeper -o "$D" --no-final-snapshot -e syscalls:sys_enter_getpgid; then
	kill -USR2 "$TR_PID"
	wait_snaps "$D" manual 1
	tr_stop INT
	check_eq "exit code (log: $(log_tail "$TMP/empty.log"))" "$TR_RC" 0
	M=$(snaps "$D" manual | head -1)
	check_ne "manual snapshot" "$M" ""
	if [ -n "$M" ]; then
		check_cmd "perf script" "$PERF" script -i "$M"
		check_eq "samples" "$("$PERF" script -i "$M" 2>/dev/null | grep -c .)" 0
		json_load "${M%.data}.json"
		check_eq "sidecar records" "$(j records)" 0
		check_eq "sidecar window" "$(j window.start_ns) $(j window.duration_ns)" "0 0"
	fi
else
	t_fail "recorder did not start: $(log_tail "$TMP/empty.log")"
fi
t_end
