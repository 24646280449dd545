#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rings=bpf: tracepoints recorded by BPF into two ring sets per CPU that
# switch at a trigger instead of freezing.
# - Nobody else is blinded: a perf record of the same tracepoint, running
#   alongside, keeps every one of its events across 100 snapshots and a
#   1 s post window (rings=perf drops them for every perf user while frozen).
# - Recording never stops: two triggers 2 calls apart give two files, each
#   ending exactly at its trigger, the second holding every record between
#   the two and the full history before both.
# - The path is chosen as documented: a --filter the trigger language can
#   compile is tested in BPF, others stay with perf (as -g does), --rings
#   perf keeps everything with perf.
. "$(dirname "$0")/lib.sh"
need_root

if [ "${TRIGREC_RINGS:-auto}" = perf ]; then
	t_begin "rings: ring sets (TRIGREC_RINGS=perf: this file tests the bpf path)"
	t_skip "TRIGREC_RINGS=perf: the ring-set path is not in use"
	t_end
	exit 0
fi

BASE=$(seq_base)

# perf record -a of getpgid, filtered to this file's numbers, in the background.
perf_start() {
	"$PERF" record -q -a -e syscalls:sys_enter_getpgid --filter "$(seq_filter "$1")" \
		-o "$2" >"$2.log" 2>&1 &
	PERF_PID=$!
	# perf says nothing when ready: give it time to open and enable its events.
	_nap 1.5
}
perf_stop() {
	kill -INT "$PERF_PID" 2>/dev/null
	wait "$PERF_PID" 2>/dev/null
}
# perf_twice TSV: TSV.u without the samples perf record wrote twice, said
# when there are any. On this kernel (6.18) perf record -a's file now and then
# holds a few samples twice, byte for byte, right after a FINISHED_ROUND,
# whenever something else also uses the tracepoint. Measured on this workload
# (seqgen -n 40000 -e 400, perf record -a of getpgid, 40-80 runs each): perf
# record alone 0 of 40 runs; beside a minimal libbpf program that returns 1,
# 1 of 60; beside a second, per-task perf record (no BPF at all), 1 of 40;
# beside trigrec, 4 of 80. A duplicate is not a lost event, which is what
# these cases check; a missing or out-of-order sample still fails.
perf_twice() {
	local d
	d=$(dedup_records "$1" "$1.u")
	[ "$d" = 0 ] || echo "  note perf record wrote $d of its samples twice (perf's own; see perf_twice in rings.sh)"
}

t_begin "rings: a perf record alongside loses no event across 100 snapshots"
N=40000 EVERY=400 # triggers at 400, 800, ... 39600: 99, plus the one at -t
D=$TMP/many
perf_start "$BASE" "$TMP/perf1.data"
tr_run "$TMP/many.log" -e syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid \
	--trigger 'syscalls:sys_enter_getsid limit none' -m 256K -o "$D" --no-final -- \
	"$SEQGEN" -n $N -t 200 -e $EVERY -p 20000 -b "$BASE"
rc=$?
perf_stop
check_eq "trigrec exit code (log: $(log_tail "$TMP/many.log"))" "$rc" 0
n=$(nsnaps "$D" sys_enter_getsid)
# Each getsid is a snapshot, or (a slow machine: at most 2 may wait to be
# copied) coalesced and counted: never lost.
fired=$(sed -n 's/.*triggers fired \([0-9]*\), coalesced \([0-9]*\).*/\1 \2/p' "$TMP/many.log" | tail -1)
check_eq "snapshots = firings" "$n" "${fired%% *}"
check_eq "firings + coalesced" "$((${fired%% *} + ${fired##* }))" 100
check_ge "trigger snapshots" "$n" 50
decode "$TMP/perf1.data" >"$TMP/perf1.tsv"
perf_twice "$TMP/perf1.tsv"
check_eq "perf record's getpgid (count first last missing disorder)" \
	"$(seq_check "$TMP/perf1.tsv.u" "$BASE" 100000)" "$N 0 $((N - 1)) 0 0"
t_end

t_begin "rings: a perf record alongside loses no event during a 1 s post window"
N=3000 B2=$((BASE + 200000))
D=$TMP/post
perf_start "$B2" "$TMP/perf2.data"
# After the trigger at 1000, one call per ms: ~2 s of calls, a 1 s window in them.
tr_run "$TMP/post.log" -e syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid \
	--trigger syscalls:sys_enter_getsid --post 1s -o "$D" --no-final -- \
	"$SEQGEN" -n $N -t 1000 -u 1000 -b "$B2"
rc=$?
perf_stop
check_eq "trigrec exit code (log: $(log_tail "$TMP/post.log"))" "$rc" 0
check_eq "trigger snapshots" "$(nsnaps "$D" sys_enter_getsid)" 1
decode "$TMP/perf2.data" >"$TMP/perf2.tsv"
perf_twice "$TMP/perf2.tsv"
check_eq "perf record's getpgid (count first last missing disorder)" \
	"$(seq_check "$TMP/perf2.tsv.u" "$B2" 100000)" "$N 0 $((N - 1)) 0 0"
F=$(snaps "$D" sys_enter_getsid | head -1)
if [ -n "$F" ]; then
	json_load "${F%.data}.json"
	check_eq "records held back by a freeze" "$(j lost_while_frozen)" 0
	want=bpf
	[ "${TRIGREC_RINGS:-auto}" = compact ] && want=compact # the same path, compact rings
	check_eq "ring path" "$(j rings)" "$want"
fi
t_end

t_begin "rings: two triggers 2 calls apart: two files, each exact, the second with all history"
N=20000 T1=5000 T2=5002 B3=$((BASE + 400000))
D=$TMP/two
# trigrec (and its side-band thread) on CPU 0, seqgen on CPU 1: the second
# trigger comes while the first snapshot is still being taken.
PIN0=() PIN1=()
if [ "$(nproc)" -ge 2 ]; then PIN0=(taskset -c 0) PIN1=(taskset -c 1); fi
timeout -k 5 "$TIMEOUT" "${PIN0[@]}" "$TRIGREC" record -e syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid \
	--trigger 'syscalls:sys_enter_getsid limit none' -m 1M -o "$D" --no-final -- \
	"${PIN1[@]}" "$SEQGEN" -n $N -t $T1 -s $T2 -b "$B3" >"$TMP/two.log" 2>&1
rc=$?
check_eq "exit code (log: $(log_tail "$TMP/two.log"))" "$rc" 0
mapfile -t S < <(snaps "$D" sys_enter_getsid)
check_eq "trigger snapshots" "${#S[@]}" 2
check_nomatch "log" "$(cat "$TMP/two.log")" "coalesced [1-9]"
if [ ${#S[@]} -eq 2 ]; then
	json_load "${S[0]%.data}.json"
	ta=$(j trigger.time_ns)
	json_load "${S[1]%.data}.json"
	tb=$(j trigger.time_ns)
	json_load "${S[0]%.data}.json"
	echo "    the two triggers were $(((tb - ta) / 1000)) us apart; the first snapshot's copy ended $(($(j timing.freeze_to_resume_ns) / 1000)) us after its trigger"
	decode "${S[0]}" >"$TMP/s1.tsv"
	decode "${S[1]}" >"$TMP/s2.tsv"
	check_eq "file 1 ends at trigger 1" "$(tail -1 "$TMP/s1.tsv" | cut -f5,6)" \
		"syscalls:sys_enter_getsid	$((B3 + T1))"
	check_eq "file 1: getpgid (count first last missing disorder)" \
		"$(seq_check "$TMP/s1.tsv" "$B3" 100000)" "$T1 0 $((T1 - 1)) 0 0"
	check_eq "file 2 ends at trigger 2" "$(tail -1 "$TMP/s2.tsv" | cut -f5,6)" \
		"syscalls:sys_enter_getsid	$((B3 + T2))"
	check_eq "file 2: getpgid (count first last missing disorder)" \
		"$(seq_check "$TMP/s2.tsv" "$B3" 100000)" "$T2 0 $((T2 - 1)) 0 0"
	check_eq "file 2 holds trigger 1's record" \
		"$(awk -F'\t' -v v=$((B3 + T1)) '$5 ~ /getsid/ && $6 == v' "$TMP/s2.tsv" | wc -l)" 1
fi
t_end

t_begin "rings: triggers 20000 calls apart: the last file holds every call before it, in order"
# Each trigger moves the records right after it into the spare
# (rings=compact) or the other set; the last file must join all of them,
# four cuts' worth, with every number once and in time order.
N=100000 T=90000 B4=$((BASE + 500000))
D=$TMP/many2
tr_run "$TMP/many2.log" -e syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid \
	--trigger 'syscalls:sys_enter_getsid limit none' -m 4M -o "$D" --no-final -- \
	"$SEQGEN" -n $N -t $T -e 20000 -b "$B4"
check_eq "exit code (log: $(log_tail "$TMP/many2.log"))" "$?" 0
F=$(snaps "$D" sys_enter_getsid | tail -1)
if [ -n "$F" ]; then
	decode "$F" >"$TMP/many2.tsv"
	check_eq "last file ends at the last trigger" "$(tail -1 "$TMP/many2.tsv" | cut -f5,6)" \
		"syscalls:sys_enter_getsid	$((B4 + T))"
	check_eq "last file: getpgid (count first last missing disorder)" \
		"$(seq_check "$TMP/many2.tsv" "$B4" 100000)" "$T 0 $((T - 1)) 0 0"
else
	t_fail "no trigger snapshot ($(log_tail "$TMP/many2.log"))"
fi
t_end

t_begin "rings: --filter is tested in BPF where trigrec can; otherwise (and -g) perf writes"
D=$TMP/filt
# Two streams, one inside the filter's range and one outside it.
tr_run "$TMP/filt.log" -v -e syscalls:sys_enter_getpgid --filter "$(seq_filter "$BASE")" \
	-e syscalls:sys_enter_getsid --trigger "syscalls:sys_enter_getsid if pid == $((BASE + 500))" \
	-m 256K -o "$D" --no-final -- \
	sh -c "'$SEQGEN' -n 1000 -t 999999 -b $((BASE + 2000000)); '$SEQGEN' -n 1000 -t 500 -b $BASE"
check_match "log" "$(cat "$TMP/filt.log")" "rings: 2 tracepoints written by BPF"
F=$(snaps "$D" sys_enter_getsid | head -1)
if [ -n "$F" ]; then
	decode "$F" >"$TMP/f.tsv"
	check_eq "filtered: ends at the trigger" "$(tail -1 "$TMP/f.tsv" | cut -f5,6)" \
		"syscalls:sys_enter_getsid	$((BASE + 500))"
	check_eq "filtered: getpgid in range (count first last missing disorder)" \
		"$(seq_check "$TMP/f.tsv" "$BASE" 100000)" "500 0 499 0 0"
	check_eq "filtered: getpgid outside the filter's range" \
		"$(awk -F'\t' -v b=$((BASE + 2000000)) '$5 ~ /getpgid/ && $6 >= b' "$TMP/f.tsv" | wc -l)" 0
else
	t_fail "filtered: no snapshot ($(log_tail "$TMP/filt.log"))"
fi
# BPF cannot know common_preempt_count: perf applies that filter.
D=$TMP/mixed
tr_run "$TMP/mixed.log" -v -e syscalls:sys_enter_getpgid \
	--filter "common_preempt_count < 255 && pid >= $BASE && pid < $((BASE + 1000000))" \
	-e syscalls:sys_enter_getsid --trigger syscalls:sys_enter_getsid -m 64K -o "$D" --no-final -- \
	"$SEQGEN" -n 1000 -t 500 -b "$BASE"
check_match "log" "$(cat "$TMP/mixed.log")" "sys_enter_getpgid is written by perf \(--filter"
check_match "log" "$(cat "$TMP/mixed.log")" "rings: 1 tracepoint written by BPF"
F=$(snaps "$D" sys_enter_getsid | head -1)
if [ -n "$F" ]; then
	decode "$F" >"$TMP/m.tsv"
	check_eq "mixed: ends at the trigger" "$(tail -1 "$TMP/m.tsv" | cut -f5,6)" \
		"syscalls:sys_enter_getsid	$((BASE + 500))"
	check_eq "mixed: getpgid (count first last missing disorder)" \
		"$(seq_check "$TMP/m.tsv" "$BASE" 100000)" "500 0 499 0 0"
else
	t_fail "mixed: no snapshot"
fi
tr_run "$TMP/perfmode.log" -v --rings perf -e syscalls:sys_enter_getsid \
	--trigger syscalls:sys_enter_getsid -o "$TMP/pm" --no-final -- "$SEQGEN" -n 10 -t 5 -b "$BASE"
check_match "log" "$(cat "$TMP/perfmode.log")" "rings: 0 tracepoints written by BPF"
F=$(snaps "$TMP/pm" sys_enter_getsid | head -1)
[ -n "$F" ] && json_load "${F%.data}.json" && check_eq "--rings perf: sidecar" "$(j rings)" perf
check_cmd "--rings bogus is refused" sh -c "! '$TRIGREC' record --rings bogus -e sched:sched_switch -- true 2>'$TMP/bogus.err'"
check_match "--rings bogus: message" "$(cat "$TMP/bogus.err")" "say auto .* compact .* bpf .* or perf"
t_end

t_begin "rings: auto falls back to perf's rings where ring sets cannot open; --rings bpf refuses"
# TRIGREC_TEST_NO_RING_SETS stands for a kernel that refuses BPF-output
# rings written backward (every kernel in the matrix takes them); --rings
# auto as given on the command line (TRIGREC_RINGS=bpf from run.sh is only
# the default).
N=2000 B5=$((BASE + 600000))
TRIGREC_TEST_NO_RING_SETS=1 tr_run "$TMP/fb.log" --rings auto -e syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid \
	--trigger syscalls:sys_enter_getsid -o "$TMP/fb" --no-final -- "$SEQGEN" -n $N -t 1000 -b "$B5"
rc=$?
check_eq "auto without ring sets: exit code (log: $(log_tail "$TMP/fb.log"))" "$rc" 0
check_match "auto says it falls back, and why" "$(cat "$TMP/fb.log")" \
	"recording through perf's rings: TRIGREC_TEST_NO_RING_SETS is set \(--rings perf"
F=$(snaps "$TMP/fb" sys_enter_getsid | head -1)
if [ -n "$F" ]; then
	json_load "${F%.data}.json"
	check_eq "fallback: sidecar rings" "$(j rings)" perf
	decode "$F" >"$TMP/fb.tsv"
	# seqgen calls getpgid(B5 + i) for i < N and getsid at i = 1000: the
	# snapshot ends at the trigger with its history unbroken.
	c=$(seq_check "$TMP/fb.tsv" "$B5")
	check_eq "fallback: last getpgid before the trigger, nothing missing or out of order" \
		"$(cut -d' ' -f3-5 <<<"$c")" "999 0 0"
else
	t_fail "fallback: no snapshot"
fi
TRIGREC_TEST_NO_RING_SETS=1 "$TRIGREC" record --rings bpf -e sched:sched_switch -o "$TMP/fb2" -- true >"$TMP/fb2.log" 2>&1
check_ne "--rings bpf without ring sets: exit code" "$?" 0
check_match "--rings bpf without ring sets: message" "$(cat "$TMP/fb2.log")" \
	"--rings bpf: TRIGREC_TEST_NO_RING_SETS is set: use --rings perf"
t_end

t_begin "rings: auto takes the compact rings where they fit, else the ring sets, and says why"
# auto (the default) picks the compact rings; a ring too small for them
# (-m 4: 16 KiB, they need 32 KiB) or TRIGREC_TEST_NO_COMPACT (a machine
# where they do not fit) falls back to the ring sets, said under -v, and
# the snapshot is as exact; --rings compact refuses the same -m with the
# reason and the way out.
B8=$((BASE + 900000))
for c in "compact::compact byte rings \\(8 x 128 KiB per CPU, spare 1 x 128 KiB\\)" \
	"bpf:-m 4:not the compact rings: -m 4 pages is 16384 bytes per CPU; the compact rings need a power of two of at least 32 KiB \\(-m 8 or more\\); the ring sets instead" \
	"bpf:nocompact:not the compact rings: TRIGREC_TEST_NO_COMPACT is set; the ring sets instead"; do
	want=${c%%:*} rest=${c#*:} opt=${rest%%:*} msg=${rest#*:}
	case $opt in
	nocompact) env=(TRIGREC_TEST_NO_COMPACT=1) args=() ;;
	"") env=() args=() ;;
	*) env=() read -r -a args <<<"$opt" ;;
	esac
	rm -rf "$TMP/au"
	env "${env[@]}" TRIGREC_RINGS=auto "$TRIGREC" record -v "${args[@]}" \
		-e syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid \
		--trigger syscalls:sys_enter_getsid -o "$TMP/au" --no-final -- \
		"$SEQGEN" -n 300 -t 200 -b "$B8" >"$TMP/au.log" 2>&1
	check_eq "auto ${opt:-default}: exit code (log: $(log_tail "$TMP/au.log"))" "$?" 0
	check_match "auto ${opt:-default}: -v says which rings and why" "$(cat "$TMP/au.log")" "$msg"
	F=$(snaps "$TMP/au" sys_enter_getsid | head -1)
	if [ -n "$F" ]; then
		json_load "${F%.data}.json"
		check_eq "auto ${opt:-default}: sidecar rings" "$(j rings)" "$want"
		decode "$F" >"$TMP/au.tsv"
		c=$(seq_check "$TMP/au.tsv" "$B8")
		check_eq "auto ${opt:-default}: every getpgid before the trigger, in order" \
			"$(cut -d' ' -f2-5 <<<"$c")" "0 199 0 0"
	else
		t_fail "auto ${opt:-default}: no snapshot"
	fi
done
"$TRIGREC" record --rings compact -m 4 -e sched:sched_switch -o "$TMP/au2" -- true >"$TMP/au2.log" 2>&1
check_ne "--rings compact -m 4: exit code" "$?" 0
check_match "--rings compact -m 4: message" "$(cat "$TMP/au2.log")" \
	"--rings compact: -m 4 pages is 16384 bytes per CPU; the compact rings need a power of two of at least 32 KiB \\(-m 8 or more\\): use --rings bpf"
t_end

t_begin "rings: -a with a command records every task, as perf does; its triggers stay the command's"
# Outside the command: getpgid(B6 + i) every 5 ms for 2 s, and a getsid that
# must not fire (triggers are scoped to the command). The command:
# getpgid(B7 + i), its getsid at 99.
B6=$((BASE + 700000)) B7=$((BASE + 800000))
"$SEQGEN" -n 400 -t 0 -u 5000 -b "$B6" >/dev/null 2>&1 &
OUT_PID=$!
_bg+=("$OUT_PID")
tr_run "$TMP/all.log" -a -e syscalls:sys_enter_getpgid --trigger syscalls:sys_enter_getsid \
	-o "$TMP/all" --no-final -- sh -c "sleep 0.5; exec $SEQGEN -n 100 -t 99 -b $B7"
rc=$?
wait "$OUT_PID" 2>/dev/null
check_eq "exit code (log: $(log_tail "$TMP/all.log"))" "$rc" 0
check_eq "snapshots: the command's trigger alone" "$(nsnaps "$TMP/all")" 1
F=$(snaps "$TMP/all" | head -1)
if [ -n "$F" ]; then
	decode "$F" >"$TMP/all.tsv"
	check_eq "the command's getpgid (count first last missing disorder)" \
		"$(seq_check "$TMP/all.tsv" "$B7" 100000)" "99 0 98 0 0"
	read -r n _ < <(seq_check "$TMP/all.tsv" "$B6" 100000)
	check_ge "getpgid of a process outside the command (one every 5 ms for 0.5 s and more)" "$n" 50
else
	t_fail "no snapshot"
fi
t_end

t_begin "rings: the per-CPU record numbers (rec_cpu) take one entry per possible CPU"
# Mapped kernel memory that counts against history per MiB: it held
# TRIGREC_MAX_CPUS (1024) entries of 64 bytes on every machine.
POSSIBLE=$(awk -F'[-,]' '{ print $NF + 1 }' /sys/devices/system/cpu/possible)
# shellcheck disable=SC2016 # expanded by the workload's shell
tr_run "$TMP/rc.log" -e syscalls:sys_enter_getpgid -o "$TMP/rc" --no-final -- \
	sh -c 'cat /proc/"$PPID"/fdinfo/* > "$1.fdinfo" 2>/dev/null; bpftool -j map show > "$1"' \
	sh "$TMP/rc.maps"
check_eq "exit code (log: $(log_tail "$TMP/rc.log"))" "$?" 0
if ! command -v bpftool >/dev/null || ! command -v jq >/dev/null; then
	t_skip "needs bpftool and jq to read the map's size"
elif [ -s "$TMP/rc.maps" ] && [ -s "$TMP/rc.maps.fdinfo" ]; then
	# trigrec's own map: the ids its fds hold.
	ids=$(sed -n 's/^map_id:[[:space:]]*//p' "$TMP/rc.maps.fdinfo" | sort -un | jq -s -c .)
	me=$(jq -r --argjson ids "$ids" '[.[] | select(.name == "rec_cpu" and (.id as $i | $ids | index($i)) != null)
		| .max_entries] | join(" ")' "$TMP/rc.maps")
	check_eq "trigrec's rec_cpu: max_entries = possible CPUs" "$me" "$POSSIBLE"
else
	t_skip "bpftool -j map show or trigrec's fdinfo gave nothing: cannot read the map's size"
fi
t_end
