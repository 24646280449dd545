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
		if [ "$(j rings)" = bpf ] || [ "$(j rings)" = compact ]; then
			# Ring sets and compact rings never stop recording: the final one holds the whole history.
			check_eq "final: first seqgen's records (the whole history, rings=$(j rings))" \
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

# --count counts snapshots written: on a full tmpfs the first write fails
# and the recorder goes on; the next, once there is room, is the one.
M=$((BASE + 777))
getsid() { "$PY" -c "import os
try: os.getsid($M)
except OSError: pass"; }
t_begin "signals: --count 1: a failed write does not count"
FULL=$TMP/full
mkdir -p "$FULL"
if ! mount -t tmpfs -o size=1m trigrec-test-count "$FULL"; then
	t_skip "cannot mount a tmpfs"
elif tr_start "$TMP/cfail.log" -a -o "$FULL" -m 64K --count 1 "${EV[@]}" \
	--trigger "syscalls:sys_enter_getsid if pid == $M limit none"; then
	track_mount "$FULL"
	dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null
	getsid
	for ((i = 0; i < TIMEOUT * 50; i++)); do _has "$TMP/cfail.log" "failed: No space left" && break; _nap 0.02; done
	_nap 0.5
	alive=0
	kill -0 "$TR_PID" 2>/dev/null && alive=1
	check_eq "recorder still running after the failed write (log: $(log_tail "$TMP/cfail.log"))" "$alive" 1
	rm -f "$FULL/filler"
	getsid
	tr_wait
	check_eq "exit code (one write failed)" "$TR_RC" 1
	check_eq "trigger snapshots" "$(nsnaps "$FULL" sys_enter_getsid)" 1
	check_match "log" "$(cat "$TMP/cfail.log")" "--count 1 reached"
	check_match "summary" "$(cat "$TMP/cfail.log")" "trigrec: 1 snapshot written, 1 failed;"
else
	track_mount "$FULL"
	t_fail "recorder did not start: $(log_tail "$TMP/cfail.log")"
fi
t_end

# --count-kill: what the command gets when --count is reached. The workload
# fires the trigger, then writes the signal it receives (or sleeps on).
cat >"$TMP/victim.py" <<VICTIM
import os, signal, sys, time
def got(sig, frame):
    open(sys.argv[1], "w").write(signal.Signals(sig).name + "\n")
    sys.exit(0)
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1):
    signal.signal(s, got)
try: os.getsid($M)
except OSError: pass
time.sleep(30)
open(sys.argv[1], "w").write("timeout\n")
VICTIM
for k in default INT none; do
	t_begin "signals: --count 1 --count-kill $k: the command gets what was asked"
	D=$TMP/ck-$k
	extra=()
	[ $k = default ] || extra=(--count-kill "$k")
	rm -f "$TMP/got-$k"
	if tr_start "$TMP/ck-$k.log" -o "$D" -m 64K --count 1 "${extra[@]}" "${EV[@]}" \
		--trigger "syscalls:sys_enter_getsid if pid == $M limit none" -- "$PY" "$TMP/victim.py" "$TMP/got-$k"; then
		tr_wait
		check_eq "exit code (log: $(log_tail "$TMP/ck-$k.log"))" "$TR_RC" 0
		check_eq "trigger snapshots" "$(nsnaps "$D" sys_enter_getsid)" 1
		if [ $k = none ]; then
			victim=$(pgrep -f "$TMP/victim.py $TMP/got-$k")
			check_ne "the command still runs after trigrec exited" "$victim" ""
			check_match "log" "$(cat "$TMP/ck-$k.log")" "--count reached: the command \(pid [0-9]+\) is left running \(--count-kill none\)"
			[ -n "$victim" ] && kill -USR1 "$victim"
			for ((i = 0; i < TIMEOUT * 50; i++)); do [ -s "$TMP/got-$k" ] && break; _nap 0.02; done
			check_eq "what the command got (from the test)" "$(cat "$TMP/got-$k" 2>/dev/null)" SIGUSR1
		else
			want=SIGTERM
			[ $k = INT ] && want=SIGINT
			check_eq "what the command got" "$(cat "$TMP/got-$k" 2>/dev/null)" $want
			check_match "log" "$(cat "$TMP/ck-$k.log")" "--count reached: sending the command \(pid [0-9]+\) $want \(--count-kill\)"
		fi
	else
		t_fail "recorder did not start: $(log_tail "$TMP/ck-$k.log")"
	fi
	t_end
done

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
