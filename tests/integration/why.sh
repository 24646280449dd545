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
#  - blocked D and its waker (vforkd: a vfork(2) parent waits for its child);
#  - the span's system calls where raw_syscalls are recorded;
#  - softirqs provoked in the thread's context (udpsend: loopback UDP runs
#    NET_RX in the sender), counted and timed as perf script shows them;
#  - the --html lane of the thread's states in headless Chromium, its
#    stretches summing to the --json breakdown;
#  - a ring too small for the span: the warning in show and the sidecar;
#  - a rate trigger's contributors: its key's records in its window are its
#    count;
#  - each sidecar's "why" (made by the writer) is show --json's "why";
#  - on perf's rings (TRIGREC_RINGS=perf) the same answers in command scope:
#    perf's scheduler tracepoints open per CPU for every task there (the
#    sidecar's sched_scope), so the switch-ins and others' wake-ups are in.
. "$(dirname "$0")/lib.sh"
need_root
TRIGWORK=$OUTPUT/tests/trigwork
RINGS_MODE=${TRIGREC_RINGS:-auto}

# mark KEY LINE: the value of KEY= in a trigwork marker line
mark() { sed -E "s/.* $1=([0-9-]+).*/\\1/" <<<"$2"; }

# why_json FILE [ARGS]: `trigrec show --json` of FILE, flattened into J
why_json() {
	local f=$1
	shift
	"$TRIGREC" show --json "$@" "$f" >"$TMP/why.json" 2>"$TMP/why.err" && json_load "$TMP/why.json"
}

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

if [ -n "$F1" ]; then
	decode "$F1" text >"$TMP/scope.tsv"
	t_begin "why: command scope records the scoped tasks' switch-ins and wake-ups"
	if json_load "${F1%.data}.json"; then
		check_eq "sidecar scope" "$(j scope)" tasks
		# only perf's rings need (and say) it: the BPF paths write both sides
		check_eq "sidecar sched_scope" "$(j sched_scope)" "$([ "$RINGS_MODE" = perf ] && echo system)"
	else
		t_fail "no sidecar for $F1"
	fi
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
	busiest=$(sed -n '/^busiest tasks/,/^busiest events/p' "$TMP/scope.show")
	row=$(awk -v t="$WR" 'split($4, a, "/") == 2 && a[2] == t' <<<"$busiest")
	if [ -z "$row" ] && [ "$RINGS_MODE" = perf ]; then
		# perf's rings record every task's switches here (sched_scope): the
		# writer can rank below the listed tasks, each of which ran less
		# than the 120 ms sleep if the writer is not given it
		row=$(awk 'split($4, a, "/") == 2' <<<"$busiest" | tail -1)
	fi
	check_ne "the writer's row (or on perf's rings, the last listed)" "$row" ""
	oncpu=$(awk '{ print $2, $3 }' <<<"$row")
	check_match "its on-CPU time is in us or a few ms, not the 120 ms sleep ($row)" "$oncpu" '^([0-9.]+ (ns|us)|[0-9]\.[0-9]+ ms)$'
	t_end
fi

CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
# why_lane FILE NAME: `show --html` of FILE in headless Chromium (#selftest:
# the page hovers its first runnable stretch); the <body>'s data-* into
# $TMP/NAME.body, one "key=value" a line. Needs the --json of FILE in J.
why_lane() {
	"$TRIGREC" show --html "$TMP/$2.html" "$1" >/dev/null 2>"$TMP/$2.html.err" || return 1
	timeout -k 5 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$TMP/chromium" --window-size=1400,900 \
		--dump-dom "file://$TMP/$2.html#selftest" >"$TMP/$2.dom" 2>"$TMP/$2.dom.err" || return 1
	"$PY" - "$TMP/$2.dom" >"$TMP/$2.body" <<'PYEOF'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def handle_starttag(self, tag, attrs):
        if tag == "body":
            for k, v in attrs:
                if k.startswith("data-"): print("%s=%s" % (k, v))
P().feed(open(sys.argv[1]).read())
PYEOF
}
# lane_checks NAME: the lane's stretches per state (summed in the page from
# the drawn rects) equal the --json breakdown in J
lane_checks() {
	local b=$TMP/$1.body k
	check_eq "the page rendered" "$(sed -n 's/^data-rendered=//p' "$b")" yes
	for k in running:running_ns runnable:runnable_ns blocked-s:blocked_s_ns blocked-d:blocked_d_ns other:other_ns unknown:unknown_ns; do
		check_eq "html lane ${k%%:*} = --json ${k#*:}" "$(sed -n "s/^data-why-${k%%:*}=//p" "$b")" "$(j "why.${k#*:}")"
	done
	check_ge "stretches drawn" "$(sed -n 's/^data-why-segs=//p' "$b")" 1
}

# ---- 2. blocked: the stalled read, explained ----

if [ -n "$F1" ] && [ -n "$ps" ]; then
	t_begin "why: the stalled read is blocked (S) time, the rest running (default set, command scope)"
	if ! why_json "$F1"; then
		t_fail "show --json: $(log_tail "$TMP/why.err") $(j error)"
	else
		span=$(j why.span_ns)
		check_eq "the span is the latency" "$span" "$(($(j why.end_ns) - $(j why.start_ns)))"
		check_eq "the reader's thread" "$(j why.tid)" "$RD"
		sum=$(($(j why.running_ns) + $(j why.runnable_ns) + $(j why.blocked_s_ns) + $(j why.blocked_d_ns) + $(j why.other_ns) + $(j why.unknown_ns)))
		check_eq "the parts add up to the span" "$sum" "$span"
		# blocked from just after the read began until the write: the write mark
		# minus the span's start, less a read's entry (tolerance: 1 % of the span)
		tol=$((span / 100))
		bl=$(j why.blocked_s_ns)
		check_ge "blocked S >= write mark - span start - 1 % ($bl)" "$bl" "$((WRT - $(j why.start_ns) - tol))"
		check_le "blocked S <= span" "$bl" "$span"
		check_le "unknown <= 1 % of the span" "$(j why.unknown_ns)" "$tol"
		check_eq "one wake-up" "$(j why.wakeups_total)" 1
		check_ge "woken at or after the write mark" "$(j why.wakeups.0.time_ns)" "$WRT"
		check_match "woken by the writer or from idle" "$(j why.wakeups.0.waker_tid)" "^($WR|0)\$"
		check_eq "the window covers the span" "$(j why.window_covers_span)" true
		"$TRIGREC" show "$F1" >"$TMP/stall.show" 2>&1
		check_match "text: blocked S line" "$(grep -m1 '^  blocked S' "$TMP/stall.show")" '^  blocked S +[0-9.]+ ms +(9[0-9]\.[0-9]|100\.0)%'
		check_match "text: woken line" "$(grep -m1 '^  woken ' "$TMP/stall.show")" "blocked \\(S\\), in the context of .* tid ($WR|0) on CPU"
	fi
	t_end

	t_begin "why: --html draws the reader's lane (headless Chromium): blocked S as --json says"
	if [ -z "$CHROMIUM" ]; then
		t_skip "no chromium (Debian packages chromium, chromium-driver: make check installs them)"
	elif ! why_json "$F1" || ! why_lane "$F1" stall; then
		t_fail "show --json / --html / chromium: $(log_tail "$TMP/why.err") $(log_tail "$TMP/stall.html.err") $(log_tail "$TMP/stall.dom.err")"
	else
		lane_checks stall
		check_eq "one wake-up arrow" "$(sed -n 's/^data-why-wakes=//p' "$TMP/stall.body")" 1
	fi
	t_end
fi

# With sched_waking (recorded in the waker's context) the waker is named, and
# one level back the chain: the writer itself slept in nanosleep, woken by a timer.
D2=$TMP/waking
tr_run "$TMP/waking.log" -m 1M --no-final-snapshot -o "$D2" -e sched:sched_switch,sched:sched_wakeup,sched:sched_waking \
	--trigger 'latency syscalls:sys_enter_read by tid -> syscalls:sys_exit_read by tid > 60ms where comm == "trigwork" name stall' \
	-- "$TRIGWORK" -o "$TMP/waking.marks" pipestall 120
rc=$?
F2=$(snaps "$D2" stall | head -1)
ps2=$(grep '^pipestall ' "$TMP/waking.marks" 2>/dev/null)
t_begin "why: with sched_waking the waker is the writer, and it slept in nanosleep"
check_eq "trigrec exit ($(log_tail "$TMP/waking.log"))" "$rc" 0
if [ -z "$F2" ] || ! why_json "$F2"; then
	t_fail "no snapshot or no --json: $(ls "$D2" 2>&1 | tr '\n' ' ') $(log_tail "$TMP/why.err")"
else
	WR2=$(mark writer "$ps2") WRT2=$(mark write "$ps2")
	check_eq "waker" "$(j why.wakeups.0.waker_tid)" "$WR2"
	check_eq "seen in the waker's context" "$(j why.wakeups.0.event)" sched_waking
	check_eq "the waker's own wait" "$(j why.wakeups.0.waker_blocked.state)" S
	# the writer began its 120 ms nanosleep about 120 ms before its write mark
	wb=$(j why.wakeups.0.waker_blocked.at_ns)
	check_ge "it blocked >= 119 ms before its write" "$((WRT2 - wb))" 119000000
	check_le "and <= 140 ms before" "$((WRT2 - wb))" 140000000
	check_le "woken before its write" "$(j why.wakeups.0.waker_blocked.woken_at_ns)" "$WRT2"
	check_ge "woken >= 119 ms after it blocked" "$(($(j why.wakeups.0.waker_blocked.woken_at_ns) - wb))" 119000000
fi
t_end

# ---- 3. runnable: a waker that spins on the woken thread's CPU ----

D3=$TMP/rq
tr_run "$TMP/rq.log" -m 1M --no-final-snapshot -o "$D3" \
	--trigger 'latency syscalls:sys_enter_read by tid -> syscalls:sys_exit_read by tid > 15ms where comm == "trigwork-rq" name rq' \
	-- "$TRIGWORK" -o "$TMP/rq.marks" rqlat 30 0
rc=$?
F3=$(snaps "$D3" rq | head -1)
rq=$(grep '^rqlat ' "$TMP/rq.marks" 2>/dev/null)
t_begin "why: runnable time, and the waker that ran instead on CPU 0"
check_eq "trigrec exit ($(log_tail "$TMP/rq.log"))" "$rc" 0
if [[ $rq == *error=* ]]; then
	t_skip "trigwork rqlat could not run SCHED_FIFO: $rq"
elif [ -z "$F3" ] || ! why_json "$F3"; then
	t_fail "no snapshot or no --json: $(ls "$D3" 2>&1 | tr '\n' ' ') $(log_tail "$TMP/why.err")"
else
	W=$(mark wtid "$rq") WK=$(mark waker "$rq")
	want=$(($(mark run "$rq") - $(mark wake "$rq")))
	span=$(j why.span_ns)
	tol=$((span / 100))
	[ "$tol" -ge 500000 ] || tol=500000
	check_eq "the woken thread" "$(j why.tid)" "$W"
	got=$(j why.runnable_ns)
	check_ge "runnable ($got) >= wake..run ($want) - tolerance" "$got" "$((want - tol))"
	check_le "runnable ($got) <= wake..run ($want) + tolerance" "$got" "$((want + tol))"
	check_eq "who ran instead: the waker" "$(j why.ran_instead.0.tid)" "$WK"
	check_ge "for >= 95 % of the runnable time" "$(($(j why.ran_instead.0.ns) * 100))" "$((got * 95))"
	check_eq "woken by the waker" "$(j why.wakeups.0.waker_tid)" "$WK"
	check_eq "on CPU 0" "$(j why.wakeups.0.cpu)" 0
	check_eq "the runs on CPU 0" "$(j why.running_cpus.0.cpu)" 0
	sum=$(($(j why.running_ns) + $(j why.runnable_ns) + $(j why.blocked_s_ns) + $(j why.blocked_d_ns) + $(j why.other_ns) + $(j why.unknown_ns)))
	check_eq "the parts add up to the span" "$sum" "$span"
	"$TRIGREC" show "$F3" >"$TMP/rq.show" 2>&1
	check_match "text: the waker under ran instead" "$(sed -n '/^  runnable/{n;p}' "$TMP/rq.show")" " trigwork tid $WK\$"
	# --chrome-json: a track per state of the thread, its stretches summing to the parts
	"$TRIGREC" show --chrome-json "$TMP/rq.trace.json" "$F3" >/dev/null 2>&1
	res=$("$PY" - "$TMP/rq.trace.json" "$W" <<'PYEOF'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
tot = {}
for e in ev:
    if e["ph"] == "X" and e.get("cat") == "why":
        st = names[e["tid"]].split(" %s " % sys.argv[2], 1)[1]
        tot[st] = tot.get(st, 0) + round(e["dur"] * 1000)
print(" ".join("%s=%d" % (k.replace(" ", "_"), v) for k, v in sorted(tot.items())))
PYEOF
)
	check_match "a runnable track summing to runnable_ns ($res)" "$res" "(^| )runnable=$got( |\$)"
	check_match "a blocked S track summing to blocked_s_ns" "$res" "(^| )blocked_S=$(j why.blocked_s_ns)( |\$)"
	# --html: the lane in headless Chromium; the hover on the runnable stretch names the waker
	if [ -z "$CHROMIUM" ]; then
		echo "    (no chromium: the --html lane is not checked here)"
	elif ! why_lane "$F3" rq; then
		t_fail "show --html / chromium: $(log_tail "$TMP/rq.html.err") $(log_tail "$TMP/rq.dom.err")"
	else
		lane_checks rq
		check_match "hover on the runnable stretch: who ran instead" \
			"$(sed -n 's/^data-why-tip=//p' "$TMP/rq.body")" "^trigwork-rq $W: runnable on CPU 0 .*ran instead: trigwork $WK "
	fi
fi
t_end

# ---- 3b. blocked D: a vfork(2) parent waits for its child's exit ----

# kernel_clone() waits in wait_for_vfork_done() with TASK_KILLABLE (that is
# TASK_WAKEKILL | TASK_UNINTERRUPTIBLE: sched_switch's prev_state says D)
# until the child's mm_release() completes vfork_done as it exits; the child
# sleeps 100 ms first, so the parent is in D for the child's life.
D6=$TMP/vfork
tr_run "$TMP/vfork.log" -m 1M --no-final-snapshot -o "$D6" -e sched:sched_switch,sched:sched_wakeup,sched:sched_waking \
	--trigger 'latency syscalls:sys_enter_vfork by tid -> syscalls:sys_exit_vfork by tid > 50ms where comm == "trigwork" name vf' \
	-- "$TRIGWORK" -o "$TMP/vfork.marks" vforkd 100
rc=$?
F6=$(snaps "$D6" vf | head -1)
vf=$(grep '^vforkd ' "$TMP/vfork.marks" 2>/dev/null)
t_begin "why: a vfork parent is blocked (D) for its child's life, woken by the child"
check_eq "trigrec exit ($(log_tail "$TMP/vfork.log"))" "$rc" 0
check_ne "trigwork's marker" "$vf" ""
if [ -z "$F6" ] || ! why_json "$F6"; then
	t_fail "no snapshot or no --json: $(ls "$D6" 2>&1 | tr '\n' ' ') $(log_tail "$TMP/why.err")"
else
	P=$(mark parent "$vf") C=$(mark child "$vf")
	life=$(($(mark cend "$vf") - $(mark cstart "$vf")))
	tol=$((life / 20))
	span=$(j why.span_ns)
	check_eq "the parent's thread" "$(j why.tid)" "$P"
	d=$(j why.blocked_d_ns)
	check_ge "blocked D ($d) >= the child's life ($life) - 5 %" "$d" "$((life - tol))"
	# At most from the parent's vfork to its wake-up: the child's exit after
	# its last mark (mm_release) can be preempted on a busy host (9 ms once
	# in a run beside compilers), so the child's life + 5 % is no bound.
	woke=$(j why.wakeups.0.time_ns)
	check_le "blocked D ($d) <= from the parent's vfork to its wake-up" "$d" "$((woke - $(mark start "$vf")))"
	# (Not "the child's life + 5 % + its exit" either: the child's start, from
	# the vfork to its first mark, can wait behind a busy CPU too: 5.2 ms
	# over that bound once, beside a CI run's fuzzers.)
	check_le "blocked S is not where it went ($(j why.blocked_s_ns))" "$(j why.blocked_s_ns)" "$tol"
	check_eq "one wake-up" "$(j why.wakeups_total)" 1
	check_eq "of a D wait" "$(j why.wakeups.0.state)" D
	check_eq "woken by the child" "$(j why.wakeups.0.waker_tid)" "$C"
	check_eq "seen in its context" "$(j why.wakeups.0.event)" sched_waking
	check_ge "woken after the child's last mark" "$(j why.wakeups.0.time_ns)" "$(mark cend "$vf")"
	sum=$(($(j why.running_ns) + $(j why.runnable_ns) + $(j why.blocked_s_ns) + $(j why.blocked_d_ns) + $(j why.other_ns) + $(j why.unknown_ns)))
	check_eq "the parts add up to the span" "$sum" "$span"
	"$TRIGREC" show "$F6" >"$TMP/vfork.show" 2>&1
	check_match "text: blocked D line" "$(grep -m1 '^  blocked D' "$TMP/vfork.show")" '^  blocked D +[0-9.]+ ms +(9[0-9]\.[0-9]|100\.0)%'
	check_match "text: woken line" "$(grep -m1 '^  woken ' "$TMP/vfork.show")" "blocked \\(D\\), in the context of trigwork tid $C on CPU"
	if [ -n "$CHROMIUM" ] && why_lane "$F6" vfork; then
		lane_checks vfork
	elif [ -n "$CHROMIUM" ]; then
		t_fail "show --html / chromium: $(log_tail "$TMP/vfork.html.err") $(log_tail "$TMP/vfork.dom.err")"
	fi
fi
t_end

# ---- 3c. system calls in the span (raw_syscalls recorded) ----

D7=$TMP/sys
tr_run "$TMP/sys.log" -m 2M --no-final-snapshot -o "$D7" \
	-e sched:sched_switch,sched:sched_wakeup,raw_syscalls:sys_enter,raw_syscalls:sys_exit,irq:irq_handler_entry,irq:irq_handler_exit,irq:softirq_entry,irq:softirq_exit \
	--trigger 'latency syscalls:sys_enter_read by tid -> syscalls:sys_exit_read by tid > 60ms where comm == "trigwork" name stall' \
	-- "$TRIGWORK" -o "$TMP/sys.marks" pipestall 80
rc=$?
F7=$(snaps "$D7" stall | head -1)
t_begin "why: the span's system calls: the stalled read(2) is the span, running only its edges"
check_eq "trigrec exit ($(log_tail "$TMP/sys.log"))" "$rc" 0
if [ -z "$F7" ] || ! why_json "$F7"; then
	t_fail "no snapshot or no --json: $(ls "$D7" 2>&1 | tr '\n' ' ') $(log_tail "$TMP/why.err")"
else
	span=$(j why.span_ns)
	tol=$((span / 100))
	check_eq "the top system call" "$(j why.syscalls.top.0.name)" read
	check_eq "one read" "$(j why.syscalls.top.0.count)" 1
	rd=$(j why.syscalls.top.0.ns)
	check_ge "read's time ($rd) >= span ($span) - 1 %" "$rd" "$((span - tol))"
	check_le "read's time <= span" "$rd" "$span"
	# inside the read the thread ran only before it blocked and after it was woken
	check_le "read's running time <= the span's running time" "$(j why.syscalls.top.0.running_ns)" "$(j why.running_ns)"
	check_le "and is under 10 % of the read" "$(($(j why.syscalls.top.0.running_ns) * 10))" "$rd"
	check_match "irq and softirq objects are there (the events are recorded)" "$(j why.irq.ns),$(j why.softirq.ns)" '^[0-9]+,[0-9]+$'
	"$TRIGREC" show "$F7" >"$TMP/sys.show" 2>&1
	check_match "text: the syscalls line" "$(grep -m1 '^  syscalls' "$TMP/sys.show")" '^  syscalls +[0-9.]+ ms +(99\.[0-9]|100\.0)%  [0-9]+ calls?, .* of it running; by time:$'
	check_match "text: read first" "$(sed -n '/^  syscalls/{n;p}' "$TMP/sys.show")" ' read x1 \(running [0-9.]+ (ns|us|ms)\)$'
fi
t_end

# ---- 3d. softirqs provoked in the thread's context ----

# 3000 UDP datagrams to a socket of its own on 127.0.0.1, between a
# getsid(778) and a getpgid(778) that open and close the span: loopback
# delivery runs NET_RX when each send re-enables bottom halves, in the
# sender's context. The span's softirqs must be exactly the softirq_entry
# records `perf script` shows in that thread within the span, and their time
# entry to exit on the same CPU.
D8=$TMP/softirq
tr_run "$TMP/softirq.log" -m 4M --no-final-snapshot -o "$D8" \
	-e sched:sched_switch,sched:sched_wakeup,irq:softirq_entry,irq:softirq_exit \
	--trigger 'latency syscalls:sys_enter_getsid if pid == 778 by tid -> syscalls:sys_enter_getpgid if pid == 778 by tid > 1ms name udp' \
	-- "$TRIGWORK" -o "$TMP/softirq.marks" getsid 778 udpsend 3000 getpgid 778
rc=$?
F8=$(snaps "$D8" udp | head -1)
t_begin "why: softirqs provoked in the thread's context (loopback UDP: NET_RX), as perf script counts them"
check_eq "trigrec exit ($(log_tail "$TMP/softirq.log"))" "$rc" 0
UTID=$(sed -n 's/^udpsend tid=\([0-9]*\) .*/\1/p' "$TMP/softirq.marks")
check_match "the workload sent its datagrams" "$(grep '^udpsend ' "$TMP/softirq.marks")" ' n=3000 sent=3000 '
if [ -z "$F8" ] || ! why_json "$F8"; then
	t_fail "no snapshot or no --json: $(ls "$D8" 2>&1 | tr '\n' ' ') $(log_tail "$TMP/why.err")"
elif ! "$PERF" script -i "$F8" --ns -F tid,cpu,time,event,trace >"$TMP/softirq.script" 2>"$TMP/softirq.script.err"; then
	t_fail "perf script: $(log_tail "$TMP/softirq.script.err")"
else
	check_eq "the thread" "$(j why.tid)" "$UTID"
	# perf's count and time of NET_RX (vec 3) entered in the thread's context
	# within the span, each closed by the next softirq_exit of vec 3 on its CPU.
	want=$(awk -v tid="$UTID" -v s="$(j why.start_ns)" -v e="$(j why.end_ns)" '
		{ t = $3; sub(/:$/, "", t); split(t, p, "."); ns = p[1] * 1000000000 + p[2] }
		$4 == "irq:softirq_entry:" && $5 == "vec=3" && $1 == tid && ns >= s && ns <= e { open[$2] = ns; n++ }
		$4 == "irq:softirq_exit:" && $5 == "vec=3" && ($2 in open) { sum += ns - open[$2]; delete open[$2] }
		END { printf "%d %d\n", n, sum }' "$TMP/softirq.script")
	check_ge "perf script shows NET_RX entered in the thread's context ($want)" "${want%% *}" 1
	check_eq "the top softirq" "$(j why.softirq.top.0.name)" NET_RX
	check_eq "its vector" "$(j why.softirq.top.0.vec)" 3
	check_eq "NET_RX runs = perf script's count" "$(j why.softirq.top.0.count)" "${want%% *}"
	got=$(j why.softirq.top.0.ns)
	check_ge "NET_RX time ($got ns) >= perf script's ($want) - 1 %" "$((got * 100))" "$((${want#* } * 99))"
	check_le "NET_RX time <= perf script's + 1 %" "$((got * 100))" "$((${want#* } * 101))"
	check_le "softirq time <= the running time" "$(j why.softirq.ns)" "$(j why.running_ns)"
	"$TRIGREC" show "$F8" >"$TMP/softirq.show" 2>&1
	check_match "text: the softirq line" "$(grep -m1 '^  in softirq' "$TMP/softirq.show")" \
		"of the running time, [0-9]+ softirq run\\(s\\); by time:$"
	check_match "text: NET_RX first" "$(sed -n '/^  in softirq/{n;p}' "$TMP/softirq.show")" \
		" NET_RX x$(j why.softirq.top.0.count)$"
fi
t_end

# ---- 4. a ring too small for the span ----

# System-wide with a 16 KiB ring (32 KiB on compact) while another trigwork makes a getpgid(2) storm:
# the ring wraps many times within the 60 ms sleep.
"$TRIGWORK" getpgid 5 3000000 >/dev/null 2>&1 &
STORM=$!
_bg+=("$STORM")
D4=$TMP/small
# The compact rings' smallest is 32 KiB (about 3000 getpgid records): the
# storm still wraps it many times over.
SMALL_M=16K
[ "$RINGS_MODE" = compact ] && SMALL_M=32K
tr_run "$TMP/small.log" -a -m "$SMALL_M" --no-final-snapshot -o "$D4" \
	-e sched:sched_switch,sched:sched_wakeup,syscalls:sys_enter_getpgid \
	--trigger 'latency syscalls:sys_enter_nanosleep by tid -> syscalls:sys_exit_nanosleep by tid > 40ms where comm == "trigwork" name small' \
	-- "$TRIGWORK" -o "$TMP/small.marks" tsleep 60
rc=$?
kill "$STORM" 2>/dev/null
F4=$(snaps "$D4" small | head -1)
t_begin "why: a window short of the latency's start is said in the log, the sidecar and show"
check_eq "trigrec exit ($(log_tail "$TMP/small.log"))" "$rc" 0
if [ -z "$F4" ] || ! json_load "${F4%.data}.json"; then
	t_fail "no snapshot or sidecar: $(ls "$D4" 2>&1 | tr '\n' ' ')"
else
	st=$(j trigger.latency.start.time_ns) ws=$(j window.start_ns)
	check_gt "the window starts after the latency's start" "$ws" "$st"
	check_eq "sidecar coverage.covers_span" "$(j coverage.covers_span)" false
	check_eq "sidecar coverage.span_start_ns" "$(j coverage.span_start_ns)" "$st"
	check_eq "sidecar coverage.missing_ns" "$(j coverage.missing_ns)" "$((ws - st))"
	check_match "sidecar advice" "$(j coverage.advice)" '-m'
	check_match "record's log" "$(grep -m1 'window starts' "$TMP/small.log")" "after the latency's start .* bigger ring \\(-m\\)"
	"$TRIGREC" show "$F4" >"$TMP/small.show" 2>&1
	check_match "show's warning" "$(grep -m1 '^  warning: the window starts' "$TMP/small.show")" \
		"after the latency's start .* explain only its last .*-m"
	why_json "$F4" || t_fail "show --json: $(log_tail "$TMP/why.err")"
	check_eq "--json window_covers_span" "$(j why.window_covers_span)" false
	check_eq "--json explained_from_ns is the window's start" "$(j why.explained_from_ns)" "$ws"
fi
t_end

# ---- 5. without sched_switch ----

t_begin "why: without sched_switch the section says what to record"
D5=$TMP/nosw
tr_run "$TMP/nosw.log" -m 1M --no-final-snapshot -o "$D5" -e syscalls:sys_enter_getpgid \
	--trigger 'latency syscalls:sys_enter_nanosleep by tid -> syscalls:sys_exit_nanosleep by tid > 20ms where comm == "trigwork" name nosw' \
	-- "$TRIGWORK" -o "$TMP/nosw.marks" nsleep 30
F5=$(snaps "$D5" nosw | head -1)
if [ -z "$F5" ]; then
	t_fail "no snapshot: $(log_tail "$TMP/nosw.log")"
else
	"$TRIGREC" show "$F5" >"$TMP/nosw.show" 2>&1
	check_match "show" "$(sed -n '/^why:/{n;p}' "$TMP/nosw.show")" "no sched:sched_switch in this snapshot: .*-e sched:sched_switch"
	why_json "$F5" || t_fail "show --json: $(log_tail "$TMP/why.err")"
	check_match "--json reason" "$(j why.reason)" "no sched:sched_switch"
fi
t_end

# ---- 7. a rate trigger's contributors ----

# Two processes (trigwork par 2) each make 60 getpgid(7) calls at once; the
# rate is per thread, so the count the trigger took is its thread's records
# in its window, and the other process shows among the tasks.
D9=$TMP/rate
tr_run "$TMP/rate.log" -m 1M --no-final-snapshot -o "$D9" -e sched:sched_switch,sched:sched_wakeup,syscalls:sys_enter_getpgid \
	--trigger 'rate syscalls:sys_enter_getpgid by tid > 40/200ms where comm == "trigwork" name burst' \
	-- "$TRIGWORK" -o "$TMP/rate.marks" par 2 getpgid 7 60
rc=$?
F9=$(snaps "$D9" burst | head -1)
t_begin "why: a rate trigger's contributors: its key's records are its count"
check_eq "trigrec exit ($(log_tail "$TMP/rate.log"))" "$rc" 0
if [ -z "$F9" ] || ! json_load "${F9%.data}.json"; then
	t_fail "no snapshot 'burst': $(ls "$D9" 2>&1 | tr '\n' ' ')"
else
	cnt=$(j trigger.rate.count) ttid=$(j trigger.tid) ws=$(j trigger.rate.window_start_ns)
	if ! why_json "$F9"; then
		t_fail "show --json: $(log_tail "$TMP/why.err")"
	else
		check_eq "told" "$(j why.rate.told)" true
		check_eq "the event" "$(j why.rate.event)" syscalls:sys_enter_getpgid
		check_eq "the window's start" "$(j why.rate.start_ns)" "$ws"
		check_eq "by key tid" "$(j why.rate.key)" tid
		# the trigger's own key: first or second of at most two
		k=0
		[ "$(j why.rate.top_keys.0.key)" = "$ttid" ] || k=1
		check_eq "the triggering thread's key is listed" "$(j "why.rate.top_keys.$k.key")" "$ttid"
		if [ "$RINGS_MODE" = perf ]; then
			# perf stamps its samples after the BPF program read the clock: the
			# trigger's own record can fall just after the trigger's time
			check_ge "its records in the window ($(j "why.rate.top_keys.$k.count")) >= the count - 1" "$(j "why.rate.top_keys.$k.count")" "$((cnt - 1))"
			check_le "and <= the count ($cnt)" "$(j "why.rate.top_keys.$k.count")" "$cnt"
		else
			check_eq "its records in the window are the trigger's count" "$(j "why.rate.top_keys.$k.count")" "$cnt"
		fi
		check_le "one or two tasks" "$(j why.rate.tasks_total)" 2
		t1=$(j why.rate.top_tasks.1.count)
		sum=$(($(j why.rate.top_tasks.0.count) + ${t1:-0}))
		check_eq "the tasks' records add up to the window's" "$sum" "$(j why.rate.records)"
		"$TRIGREC" show "$F9" >"$TMP/rate.show" 2>&1
		check_match "text: the rate line" "$(sed -n '/^why:/{n;p}' "$TMP/rate.show")" \
			"^  rate     $(j why.rate.records) records of syscalls:sys_enter_getpgid in the rate window "
		check_match "text: by key" "$(grep -m1 '^           by key' "$TMP/rate.show")" '^           by key tid \([12] values?\):$'
	fi
fi
t_end

# ---- 8. the sidecar's why: the analysis stored at write time ----

# Each snapshot's sidecar holds "why", made by the writer from the file it
# just wrote (src/show/why.c): what `show --json` prints as "why" for the
# same pair, member for member, on every case above (both ring paths).
t_begin "why: each sidecar's why equals show --json's why on the same file"
n=0
for f in "$F1" "$F2" "$F3" "$F4" "$F5" "$F6" "$F7" "$F9"; do
	[ -n "$f" ] || continue
	n=$((n + 1))
	"$TRIGREC" show --json "$f" >"$TMP/eq.json" 2>"$TMP/eq.err" || t_fail "show --json $f: $(log_tail "$TMP/eq.err")"
	res=$("$PY" - "${f%.data}.json" "$TMP/eq.json" <<'PYEOF'
import json, sys
side = json.load(open(sys.argv[1]))
show = json.load(open(sys.argv[2]))
if "why" not in side:
    print("no why in the sidecar: " + side.get("why_skipped", "(nor why_skipped)"))
elif side["why"] != show["why"]:
    d = [k for k in sorted(set(side["why"]) | set(show["why"])) if side["why"].get(k) != show["why"].get(k)]
    print("they differ in " + " ".join(d))
elif not isinstance(side["timing"].get("why_ns"), int) or side["timing"]["why_ns"] <= 0:
    print("timing.why_ns is not a positive integer: %r" % side["timing"].get("why_ns"))
else:
    print("equal")
PYEOF
)
	check_eq "$(basename "$f")" "$res" equal
done
check_ge "snapshots compared" "$n" 6
t_end
