#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The why section against perf sched timehist (issue 33): the same workload
# recorded by trigrec and by `perf sched record`, the triggering thread's
# run / sch delay / wait from timehist over the snapshot's span against
# show --json's running / runnable / blocked time.
. "$(dirname "$0")/lib.sh"
need_root
TRIGWORK=$OUTPUT/tests/trigwork

# mark KEY LINE: the value of KEY= in a trigwork marker line
mark() { sed -E "s/.* $1=([0-9-]+).*/\\1/" <<<"$2"; }
# why_json FILE [ARGS]: `trigrec show --json` of FILE, flattened into J
why_json() {
	local f=$1
	shift
	"$TRIGREC" show --json "$@" "$f" >"$TMP/why.json" 2>"$TMP/why.err" && json_load "$TMP/why.json"
}

# The run-queue case again, recorded by trigrec (command scope, the default
# set) and by `perf sched record` (system-wide, CLOCK_MONOTONIC, the clock
# of trigrec's records) at once; perf sched timehist's per-switch run, sch
# delay and wait times of the woken thread, laid over the same span, must
# agree with show --json's running, runnable and blocked time within 1 % of
# the span. timehist's wait time is all of a stretch off the CPU (its sch
# delay included): blocked is wait minus delay. Systematic differences:
# perf records sched_waking and starts a delay there, trigrec's default set
# has sched_wakeup only, a few us later per wake-up; timehist prints us, so
# each edge may be 1 us off; and perf stamps an exiting task's samples with
# tid -1, so timehist loses the line of a thread's last switch-out (trigwork
# rqlat's woken thread sleeps 5 ms before it exits for that).
t_begin "why: the breakdown agrees with perf sched timehist over the same span"
if ! "$PERF" version >/dev/null 2>&1; then
	t_skip "no perf with sched timehist (Debian package linux-perf)"
else
	PD=$TMP/sched.data
	"$PERF" sched record -k CLOCK_MONOTONIC -o "$PD" -- sleep 5 >"$TMP/psr.log" 2>&1 &
	PSR=$!
	_bg+=("$PSR")
	# perf is recording once its file has a header written
	for _ in $(seq 50); do [ -s "$PD" ] && break; sleep 0.1; done
	sleep 0.5
	D8=$TMP/vsperf
	# post 20ms: on perf's rings the freeze's gate drops every perf user's
	# events of the tracepoints trigrec records through perf (docs/design.md),
	# perf sched record's too; after the post window the woken thread has
	# switched out (it sleeps 5 ms), so timehist has the line that ends its span.
	tr_run "$TMP/vsperf.log" -m 1M --no-final-snapshot -o "$D8" \
		--trigger 'latency syscalls:sys_enter_read by tid -> syscalls:sys_exit_read by tid > 15ms where comm == "trigwork-rq" name rq post 20ms' \
		-- "$TRIGWORK" -o "$TMP/vsperf.marks" rqlat 30 0
	rc=$?
	wait "$PSR"
	prc=$?
	F8=$(snaps "$D8" rq | head -1)
	rq8=$(grep '^rqlat ' "$TMP/vsperf.marks" 2>/dev/null)
	check_eq "trigrec exit ($(log_tail "$TMP/vsperf.log"))" "$rc" 0
	check_eq "perf sched record exit ($(log_tail "$TMP/psr.log"))" "$prc" 0
	if [[ $rq8 == *error=* ]]; then
		t_skip "trigwork rqlat could not run SCHED_FIFO: $rq8"
	elif [ -z "$F8" ] || ! why_json "$F8"; then
		t_fail "no snapshot or no --json: $(ls "$D8" 2>&1 | tr '\n' ' ') $(log_tail "$TMP/why.err")"
	else
		W8=$(mark wtid "$rq8")
		"$PERF" sched timehist -i "$PD" -t "$W8" >"$TMP/th.txt" 2>"$TMP/th.err"
		check_eq "perf sched timehist exit ($(log_tail "$TMP/th.err"))" "$?" 0
		th=$("$PY" - "$TMP/th.txt" "$W8" "$(j why.start_ns)" "$(j why.end_ns)" <<'PYEOF'
import re, sys
path, tid, S, E = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def t_ns(t):
    a, _, b = t.partition(".")
    return int(a) * 1000000000 + int((b + "000000000")[:9])
def ms_ns(t):
    a, _, b = t.partition(".")
    return int(a) * 1000000 + int((b + "000000")[:6])
def clip(a, b):
    a, b = max(a, S), min(b, E)
    return b - a if b > a else 0
run = delay = wait = n = 0
line = re.compile(r"^\s*(\d+\.\d+)\s+\[\d+\]\s+.*\[(\d+)(?:/\d+)?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")
for l in open(path):
    m = line.match(l)
    if not m or m.group(2) != tid:
        continue
    T, w, d, r = t_ns(m.group(1)), ms_ns(m.group(3)), ms_ns(m.group(4)), ms_ns(m.group(5))
    n += 1
    # timehist's wait time is all the time off the CPU (sched-in minus the
    # last sched-out), its sch delay the last part of it (from the wake-up)
    run += clip(T - r, T)
    delay += clip(T - r - d, T - r)
    wait += clip(T - r - w, T - r - d)
print("lines=%d run=%d delay=%d wait=%d" % (n, run, delay, wait))
PYEOF
)
		echo "    perf sched timehist over the span: $th"
		echo "    show --json: running=$(j why.running_ns) runnable=$(j why.runnable_ns) blocked=$(($(j why.blocked_s_ns) + $(j why.blocked_d_ns))) other=$(j why.other_ns) unknown=$(j why.unknown_ns)"
		span=$(j why.span_ns)
		tol=$((span / 100))
		val() { sed -E "s/.*$1=([0-9]+).*/\\1/" <<<"$th"; }
		check_ge "timehist lines of thread $W8" "$(val lines)" 1
		for p in run:running_ns delay:runnable_ns; do
			a=$(val "${p%%:*}") b=$(j "why.${p#*:}")
			d=$((a > b ? a - b : b - a))
			check_le "timehist ${p%%:*} ($a) vs ${p#*:} ($b): |diff| $d <= 1 % of the span ($tol)" "$d" "$tol"
		done
		a=$(val wait) b=$(($(j why.blocked_s_ns) + $(j why.blocked_d_ns) + $(j why.other_ns) + $(j why.unknown_ns)))
		d=$((a > b ? a - b : b - a))
		check_le "timehist wait ($a) vs blocked + other + unknown ($b): |diff| $d <= 1 % of the span ($tol)" "$d" "$tol"
	fi
fi
t_end
