#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Trigger scripts: `trigrec check` exits 0 for a good script and 2 with every
# error at its exact FILE:LINE:COL for bad ones (from a file and from stdin),
# refuses pathological files at once, agrees with the kernel on which
# recorded-event filters it accepts, and `trigrec run` on a small
# executable script (#! line, options after FILE overriding the script)
# captures a snapshot whose perf script output holds the trigger's records.
. "$(dirname "$0")/lib.sh"
need_root
TRIGWORK=$OUTPUT/tests/trigwork

# chk NAME WANT_RC FILE: trigrec check FILE; sets OUT, ERR, RC, MS.
chk() {
	local t0 t1
	t0=$(date +%s%N)
	timeout -k 5 "$TIMEOUT" "$TRIGREC" check "$3" >"$TMP/c.out" 2>"$TMP/c.log"
	RC=$?
	t1=$(date +%s%N)
	MS=$(((t1 - t0) / 1000000))
	OUT=$(cat "$TMP/c.out")
	ERR=$(cat "$TMP/c.log")
	check_eq "$1: exit code (stderr: $(printf '%s' "$ERR" | head -3 | tr '\n' ' '))" "$RC" "$2"
}

# ---- check: a good script ----

G=$TMP/good.trig
cat >"$G" <<EOF
# Slow syscalls of one program, scheduler context around them.
record sched:sched_switch if prev_state == 2, sched:sched_wakeup
record raw_syscalls:sys_enter, raw_syscalls:sys_exit, cpu-clock
buffer 4M
callgraph
output $TMP/out-good keep 20 files, 1G, 7d

trigger slow_syscall {
    latency raw_syscalls:sys_enter -> raw_syscalls:sys_exit > 50ms
    where comm ~ "nginx*"
    post 5ms
    cooldown 10s
}
trigger crash { on signal:signal_deliver if sig == 11 || sig == 6 }
trigger storm { rate raw_syscalls:sys_enter by pid > 100000/1s limit 3/hour }
trigger now { manual }
EOF

# crash's event is in no record line: only its firing record is kept, and check says so.
NOTE="note: signal:signal_deliver is not recorded: trigger crash's snapshots keep only its firing record of it (record it to keep its history)"
t_begin "check: a good script exits 0"
chk "good" 0 "$G"
check_eq "stdout" "$OUT" "$G: ok: 5 events recorded, 3 triggers, 1 manual
$G: $NOTE"
check_eq "stderr" "$ERR" ""
t_end

t_begin "check -v FILE: -v is the verbose option, as before the command"
timeout -k 5 "$TIMEOUT" "$TRIGREC" check -v "$G" >"$TMP/c.out" 2>"$TMP/c.log"
check_eq "exit code ($(head -2 "$TMP/c.log" | tr '\n' ' '))" "$?" 0
check_eq "stdout" "$(cat "$TMP/c.out")" "$G: ok: 5 events recorded, 3 triggers, 1 manual
$G: $NOTE"
timeout -k 5 "$TIMEOUT" "$TRIGREC" check "$G" -x >"$TMP/c.out" 2>"$TMP/c.log"
check_eq "an unknown option: exit code" "$?" 2
check_match "an unknown option is named" "$(head -1 "$TMP/c.log")" "unknown option -x for check \(options: -v, -q, --strict, -h\)"
t_end

t_begin "check -: the same script from standard input"
timeout -k 5 "$TIMEOUT" "$TRIGREC" check - <"$G" >"$TMP/c.out" 2>&1
check_eq "exit code" "$?" 0
check_eq "stdout" "$(cat "$TMP/c.out")" "-: ok: 5 events recorded, 3 triggers, 1 manual
-: $NOTE"
t_end

t_begin "check -: record --dump-script output checks, and says the same run"
"$TRIGREC" record -e sched:sched_switch --filter 'prev_state == 2 && prev_comm ~ "kw*"' \
	-e 'raw_syscalls:*' -e cpu-clock -F 99 -m 2M -g -C 0 -o "$TMP/out-dump" --post 5ms \
	--control "$TMP/ctl.sock" --max-keys 4096 \
	--trigger 'latency raw_syscalls:sys_enter -> raw_syscalls:sys_exit by tid > 20ms name slow' \
	--trigger 'rate sched:sched_switch by prev_pid > 100/1s cooldown 1s per key limit 3/min' \
	--trigger 'manual post 1s name now' --dump-script >"$TMP/dump.trig" 2>"$TMP/dump.log"
rc=$?
check_eq "dump exit code ($(log_tail "$TMP/dump.log"))" "$rc" 0
timeout -k 5 "$TIMEOUT" "$TRIGREC" check - <"$TMP/dump.trig" >"$TMP/c.out" 2>"$TMP/c.log"
rc=$?
check_eq "check exit code ($(head -3 "$TMP/c.log" | tr '\n' ' '))" "$rc" 0
check_eq "check says" "$(cat "$TMP/c.out")" "-: ok: 3 events recorded, 2 triggers, 1 manual"
t_end

t_begin "check: every example in examples/ checks against this kernel"
n=0
for f in "$ROOT"/examples/*.trig; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	# Probes of the placeholder program: checked on tests/helpers/probework instead.
	if grep -q /usr/local/bin/myapp "$f"; then
		sed -e "s|/usr/local/bin/myapp|$OUTPUT/tests/probework|g" \
			-e 's/handle_request/probework_call/g; s/myapp:request__done/probework:tick/g' \
			"$f" >"$TMP/ex.trig"
		f=$TMP/ex.trig
	fi
	timeout -k 5 "$TIMEOUT" "$TRIGREC" check "$f" >"$TMP/c.out" 2>"$TMP/c.log"
	rc=$?
	[ $rc = 0 ] || t_fail "${f#"$ROOT"/} exits $rc: $(head -3 "$TMP/c.log" | tr '\n' ' ')"
done
check_ge "examples" "$n" 10
t_end

t_begin "check: a learned threshold is said as the kernel will run it"
"$TRIGREC" check "$ROOT/examples/learned-syscall-latency.trig" >"$TMP/c.out" 2>"$TMP/c.log"
check_eq "check exit code" "$?" 0
check_eq "the learned line" "$(sed -n 2p "$TMP/c.out")" \
	"$ROOT/examples/learned-syscall-latency.trig: trigger unusual_syscall: learned threshold: fires on a span above p99.9 x 2 of the spans of its key (tid,id), once the key has seen 500 of them; counts halve every 60 s"
printf 'trigger t {\n  latency raw_syscalls:sys_enter -> raw_syscalls:sys_exit > p99\n}\n' >"$TMP/all.trig"
"$TRIGREC" check "$TMP/all.trig" >"$TMP/c.out" 2>"$TMP/c.log"
check_match "without by: one histogram" "$(sed -n 2p "$TMP/c.out")" "fires on a span above p99 of the spans of every key together \(no by\), once the key has seen 1000 of them"
printf 'trigger t {\n  latency raw_syscalls:sys_enter -> raw_syscalls:sys_exit\n    > p100\n}\n' >"$TMP/bad.trig"
"$TRIGREC" check "$TMP/bad.trig" >"$TMP/c.out" 2>"$TMP/c.log"
check_eq "> p100: exit code 2" "$?" 2
check_match "> p100: FILE:LINE:COL" "$(cat "$TMP/c.log")" "bad\.trig:3:7: .*percentile p100 is out of range: use p1 to p99\.999"
t_end

t_begin "check: a rate baseline is said as the kernel will run it, and --dump-script keeps it"
"$TRIGREC" check "$ROOT/examples/syscall-burst.trig" >"$TMP/c.out" 2>"$TMP/c.log"
check_eq "check exit code" "$?" 0
check_eq "the baseline line" "$(sed -n 2p "$TMP/c.out")" \
	"$ROOT/examples/syscall-burst.trig: trigger syscall_burst: rate baseline: fires on a window whose count is above 5x baseline per 1 s of its key (an EWMA of its count per window, alpha 1/8; a baseline under 1 event counts as 1), once the key has seen 30 windows"
tb='rate raw_syscalls:sys_enter > 2.5x baseline per 500ms after 20 windows name b'
"$TRIGREC" record --trigger "$tb" --dump-script >"$TMP/dump.trig" 2>"$TMP/c.log"
check_eq "--dump-script exit code" "$?" 0
check_eq "--dump-script: the trigger as written" "$(grep -F -x "    $tb" "$TMP/dump.trig")" "    $tb"
"$TRIGREC" check "$TMP/dump.trig" >"$TMP/c.out" 2>"$TMP/c.log"
check_eq "the dumped script checks" "$?" 0
check_match "without by: one baseline" "$(sed -n 2p "$TMP/c.out")" \
	"trigger b: rate baseline: fires on a window whose count is above 2\.5x baseline per 500 ms of all its events together \(no by\) \(an EWMA .*\), once the key has seen 20 windows$"
printf 'trigger t {\n  rate raw_syscalls:sys_enter by pid\n    > 1x baseline\n}\n' >"$TMP/bad.trig"
"$TRIGREC" check "$TMP/bad.trig" >"$TMP/c.out" 2>"$TMP/c.log"
check_eq "> 1x baseline: exit code 2" "$?" 2
check_match "> 1x baseline: FILE:LINE:COL" "$(cat "$TMP/c.log")" "bad\.trig:3:7: .*multiplier 1x must be more than 1x"
t_end

t_begin "check: a probe on a binary that is not here is a warning; --strict, run: errors"
# A script written for hosts that have /opt/nope/app, checked on one that
# does not: its syntax is checked, the rest is said to be unchecked.
cat >"$TMP/absent.trig" <<'EOF'
record sched:sched_switch,
       uprobe:/opt/nope/app:handle(id=arg1)
trigger slow {
    latency uprobe:/opt/nope/app:handle(id=arg1) -> uretprobe:/opt/nope/app:handle by tid > 10ms
}
EOF
timeout -k 5 "$TIMEOUT" "$TRIGREC" check "$TMP/absent.trig" >"$TMP/a.out" 2>"$TMP/a.log"
rc=$?
check_eq "exit code (log: $(log_tail "$TMP/a.log"))" "$rc" 0
check_eq "the summary" "$(cat "$TMP/a.out")" \
	"$TMP/absent.trig: ok: 2 events recorded, 0 triggers, 0 manual (2 checked as syntax only: their binaries are not here)"
check_eq "warnings at the event and the trigger" "$(grep -oE '^[^ ]+:[0-9]+:[0-9]+: warning: [^:]+' "$TMP/a.log" | tr '\n' ',')" \
	"$TMP/absent.trig:2:8: warning: /opt/nope/app is not on this machine,$TMP/absent.trig:4:13: warning: /opt/nope/app is not on this machine,"
check_match "what it means" "$(head -1 "$TMP/a.log")" "this event is checked as syntax only \(check --strict makes it an error\)"
timeout -k 5 "$TIMEOUT" "$TRIGREC" check --strict "$TMP/absent.trig" >/dev/null 2>"$TMP/as.log"
check_eq "--strict: exit code" "$?" 2
check_match "--strict: the error" "$(cat "$TMP/as.log")" "absent.trig:2:8: /opt/nope/app: No such file or directory"
# A syntax error beside it is still one.
sed 's/> 10ms/> 10/' "$TMP/absent.trig" >"$TMP/absent2.trig"
timeout -k 5 "$TIMEOUT" "$TRIGREC" check "$TMP/absent2.trig" >/dev/null 2>"$TMP/a2.log"
rc=$?
check_eq "a syntax error still fails (log: $(log_tail "$TMP/a2.log"))" "$rc" 2
# run is not a check: it cannot record what is not there.
timeout -k 5 "$TIMEOUT" "$TRIGREC" run "$TMP/absent.trig" -o "$TMP/out-absent" >/dev/null 2>"$TMP/ar.log"
check_eq "run: exit code" "$?" 2
check_match "run: the error" "$(cat "$TMP/ar.log")" "absent.trig:2:8: /opt/nope/app: No such file or directory"
t_end

# ---- check: every error of a bad script, each at its FILE:LINE:COL ----

B=$TMP/bad.trig
cat >"$B" <<'EOF'
record sched:sched_switch, sched:sched_wakup
bufer 8M
record raw_syscalls:sys_enter if idd == 0
output /tmp keep 5 files, 3x
trigger slow {
    latency sched:sched_wakeup -> sched:sched_switch > 5
}
trigger bad { on signal:signal_deliver if sgi == 9 }
frequency 99
period 3
trigger slow { manual }
EOF

t_begin "check: a bad script exits 2 with every error at its FILE:LINE:COL"
chk "bad" 2 "$B"
want=(
	"$B:1:28: unknown tracepoint sched:sched_wakup (did you mean sched:sched_wakeup?)"
	"$B:2:1: unknown statement 'bufer' (did you mean 'buffer'?)"
	"$B:3:34: unknown field 'idd' (did you mean 'id'?)"
	"$B:4:27: keep '3x': not a file count, a size or an age"
	"$B:6:56: latency threshold: '5': missing unit"
	"$B:8:43: unknown field 'sgi' for signal:signal_deliver"
	"$B:10:8: period and frequency (at 9:1) exclude each other"
	"$B:11:9: a trigger named 'slow' is already defined at 5:9"
)
got=$(grep -E "^$B:[0-9]+:[0-9]+: " "$TMP/c.log")
check_eq "number of errors" "$(printf '%s\n' "$got" | grep -c .)" "${#want[@]}"
i=0
while IFS= read -r line; do
	w=${want[$i]-}
	[[ $line == "$w"* ]] || t_fail "error $((i + 1)): got '$line', want '$w...'"
	i=$((i + 1))
done <<<"$got"
# Each error quotes its line and puts a caret under the column.
check_match "quoted line and caret" "$(grep -A2 "^$B:8:43:" "$TMP/c.log" | tail -2 | tr '\n' '|')" \
	"^  trigger bad \{ on signal:signal_deliver if sgi == 9 \}\| {44}\^\|$"
check_match "summary" "$ERR" "trigrec: $B: 8 errors"
check_lt "ms" "$MS" 2000
t_end

t_begin "check: errors from standard input are reported as -:LINE:COL"
printf 'record sched:sched_switch\ntrigger t {\n  on sched:sched_switch if prev_stat == 2\n}\n' |
	timeout -k 5 "$TIMEOUT" "$TRIGREC" check - >"$TMP/c.out" 2>"$TMP/c.log"
check_eq "exit code" "$?" 2
check_match "error" "$(head -1 "$TMP/c.log")" \
	"^-:3:28: unknown field 'prev_stat' for sched:sched_switch \(did you mean 'prev_state'\?\)"
t_end

t_begin "check: host checks (output parent, command, on_snapshot, pid)"
touch "$TMP/afile"
cat >"$TMP/host.trig" <<EOF
record sched:sched_switch
output $TMP/afile/dir
command /nonexistent/app
on_snapshot no-such-shipper
EOF
chk "host" 2 "$TMP/host.trig"
check_match "output" "$ERR" "host.trig:2:8: output directory $TMP/afile/dir: Not a directory"
check_match "command" "$ERR" "host.trig:3:9: cannot run /nonexistent/app: No such file or directory"
check_match "on_snapshot" "$ERR" "host.trig:4:13: on_snapshot: cannot run no-such-shipper: not found in PATH"
check_eq "nothing created" "$(find "$TMP" -name '.trigrec-write-test*')" ""
t_end

# ---- check: pathological files get a clear error, quickly ----

t_begin "check: a directory, /dev/zero, a 100 MB file, NUL bytes, a 1 MB line"
chk "directory" 2 "$TMP"
check_match "directory" "$ERR" "$TMP is a directory: give a script file"
chk "/dev/zero" 2 /dev/zero
check_match "/dev/zero" "$ERR" "/dev/zero: more than 1048576 bytes \(1 MiB\)"
check_lt "/dev/zero ms" "$MS" 2000
truncate -s 100M "$TMP/huge.trig"
chk "100 MB" 2 "$TMP/huge.trig"
check_match "100 MB" "$ERR" "huge.trig is 104857600 bytes: a script is at most 1048576 bytes"
check_lt "100 MB ms" "$MS" 1000
printf 'record sched:sched_switch\nbuf\0fer 8M\n' >"$TMP/nul.trig"
chk "NUL" 2 "$TMP/nul.trig"
check_match "NUL" "$ERR" "nul.trig:2:4: NUL byte \(1 in the file\)"
{ printf 'record sched:sched_switch\n# '; head -c 1000000 /dev/zero | tr '\0' x; echo; } >"$TMP/long.trig"
chk "1 MB line" 2 "$TMP/long.trig"
check_match "1 MB line" "$ERR" "long.trig:2:4097: line 2 is 1000002 bytes long"
check_lt "1 MB line ms" "$MS" 2000
t_end

# ---- check agrees with the kernel on recorded-event filters ----

# kernel_accepts FILTER: does the kernel's ftrace parser take it for
# sched:sched_switch? (a private instance; its filter file, never enabled)
INST=/sys/kernel/tracing/instances/trigrec-test-script-$$
kernel_accepts() {
	echo "$1" >"$INST/events/sched/sched_switch/filter" 2>/dev/null || return 1
	echo 0 >"$INST/events/sched/sched_switch/filter"
	return 0
}

t_begin "check: kernel filters are accepted and refused as the kernel does"
if ! mkdir "$INST" 2>/dev/null; then
	t_skip "cannot create a tracefs instance at $INST"
else
	filters=(
		"prev_state == 2" "prev_comm == 'bash'" "prev_comm == bash" 'prev_pid == "5"'
		'prev_comm < "a"' "prev_pid ~ 5" "CPU == 1" "common_cpu == 1" 'comm == "x"'
		'COMM ~ "x*"' "!(prev_pid == 1)" "prev_pid == 010" "prev_pid == 12abc"
		"prev_comm == 5" "prev_pid = 5" "prev_pid == 1 prev_prio == 2" 'prev_comm ~ "*a*b*"'
		"cpu & 1" "prev_pid == -1" "prev_state & 2 && prev_pid > 0" "prev_stat == 2"
		"(prev_pid == 1" "prev_pid == 1 || (next_pid == 2 && next_prio < 120)"
		"prev_pid > 0x10" 'next_comm != "a b"' "common_pid != 0"
	)
	for f in "${filters[@]}"; do
		printf 'record sched:sched_switch if %s\n' "$f" >"$TMP/f.trig"
		"$TRIGREC" check "$TMP/f.trig" >/dev/null 2>&1
		mine=$?
		kernel_accepts "$f" && k=0 || k=2
		[ "$mine" = "$k" ] || t_fail "'$f': check exits $mine, the kernel $([ "$k" = 0 ] && echo accepts || echo refuses) it"
	done
	rmdir "$INST"
fi
t_end

# ---- run ----

t_begin "run: an invalid script exits 2 and starts nothing"
printf 'record sched:sched_switch\noutput %s\nbufer 8M\n' "$TMP/out-bad" >"$TMP/bad2.trig"
timeout -k 5 "$TIMEOUT" "$TRIGREC" run "$TMP/bad2.trig" >"$TMP/r.out" 2>"$TMP/r.log"
check_eq "exit code" "$?" 2
check_match "error" "$(cat "$TMP/r.log")" "bad2.trig:3:1: unknown statement 'bufer' \(did you mean 'buffer'\?\)"
check_match "nothing started" "$(cat "$TMP/r.log")" "1 error: nothing was started"
check_eq "no output directory" "$(ls -d "$TMP/out-bad" 2>/dev/null)" ""
t_end

if [ ! -x "$TRIGWORK" ]; then
	t_blocked "run: an executable script captures the trigger's records" \
		"$TRIGWORK is not built (make $OUTPUT/tests/trigwork)"
	exit 1
fi

# The script runs trigwork, which makes five getpgid(777) calls and then
# getsid(1234567): the trigger. Its output and buffer are overridden on the
# command line (the #! line passes them to trigrec run after the file).
R=$TMP/run.trig
cat >"$R" <<EOF
#!$TRIGREC run
# Five getpgid calls, then the getsid that fires the trigger.
record syscalls:sys_enter_getpgid, syscalls:sys_enter_getsid
buffer 64K
output $TMP/not-here
post 0ms
command $TRIGWORK getpgid 777 5 getsid 1234567
trigger sid {
    on syscalls:sys_enter_getsid
    where pid == 1234567
}
EOF
chmod +x "$R"

t_begin "run: an executable script captures the trigger's records"
timeout -k 5 "$TIMEOUT" "$R" -o "$TMP/out-run" -m 1M --no-final-snapshot >"$TMP/run.out" 2>"$TMP/run.log"
rc=$?
check_eq "exit code (log: $(log_tail "$TMP/run.log"))" "$rc" 0
check_eq "snapshots of sid" "$(nsnaps "$TMP/out-run" sid)" 1
check_eq "no final snapshot (--no-final-snapshot)" "$(nsnaps "$TMP/out-run" final)" 0
check_eq "the script's output was overridden" "$(ls -d "$TMP/not-here" 2>/dev/null)" ""
F=$(snaps "$TMP/out-run" sid | head -1)
if [ -n "$F" ]; then
	decode "$F" >"$TMP/run.tsv"
	# The records, in order: five getpgid(777), then getsid(1234567) last (post 0ms).
	got=$(awk -F '\t' '{ print $5 " " $6 }' "$TMP/run.tsv" | sed 's/^syscalls://' | tr '\n' ',')
	check_eq "records" "$got" "$(printf 'sys_enter_getpgid 777,%.0s' 1 2 3 4 5)sys_enter_getsid 1234567,"
	check_eq "comm" "$(cut -f7 "$TMP/run.tsv" | sort -u)" "trigwork"
	json_load "${F%.data}.json" || t_fail "sidecar: ${J[error]}"
	check_eq "sidecar trigger" "$(j trigger.name)" "sid"
	check_eq "sidecar trigger pid field" "$(j trigger.fields.pid)" 1234567
	# -m 1M on the command line, not the script's buffer 64K.
	read -r _ _ rb <<<"$(main_rings)"
	check_eq "ring bytes (-m 1M overrides buffer 64K)" "$rb" 1048576
	check_match "announced as record does" "$(cat "$TMP/run.log")" "snapshot .*-sid\.data"
else
	t_fail "no snapshot (log: $(log_tail "$TMP/run.log" 5))"
fi
t_end

t_begin "run FILE -- cmd: the command replaces the script's, as for record"
# Three getpgid(778) this time: the records say whose command ran.
timeout -k 5 "$TIMEOUT" "$R" -o "$TMP/out-runcmd" --no-final-snapshot -- \
	"$TRIGWORK" getpgid 778 3 getsid 1234567 >"$TMP/runcmd.out" 2>"$TMP/runcmd.log"
rc=$?
check_eq "exit code (log: $(log_tail "$TMP/runcmd.log"))" "$rc" 0
F=$(snaps "$TMP/out-runcmd" sid | head -1)
if [ -n "$F" ]; then
	got=$(decode "$F" | awk -F '\t' '{ print $5 " " $6 }' | sed 's/^syscalls://' | tr '\n' ',')
	check_eq "records" "$got" "$(printf 'sys_enter_getpgid 778,%.0s' 1 2 3)sys_enter_getsid 1234567,"
else
	t_fail "no snapshot (log: $(log_tail "$TMP/runcmd.log" 5))"
fi
t_end
