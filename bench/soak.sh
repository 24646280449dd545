#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Soak: trigrec as the service runs it, under a trigger storm, for a long
# time; prints RSS, fds, threads, snapshots written and failed, firings held
# back (limit, budget, coalesced), records lost and files on disk, every
# STEP seconds. Not a test and not in CI: read the columns for growth.
#
#   sudo bench/soak.sh [SECONDS]          (default 600; STEP=30, RATE=200/s)
#
# The storm: getsid(MAGIC) RATE times a second from one process, a trigger on
# it with `limit none`, a global budget of 600/min, --keep-files 50, metrics
# on (textfile). Every snapshot is a real one (256 KiB rings, sched events).
set -u
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRIGREC=${TRIGREC:-$ROOT/trigrec}
DUR=${1:-600}
STEP=${STEP:-30}
RATE=${RATE:-200}
. "$ROOT/tests/trace-lock.sh"
trace_lock
W=$(mktemp -d /tmp/trigrec-soak.XXXXXX)
trap 'kill $REC $STORM 2>/dev/null; wait 2>/dev/null; rm -rf "$W"' EXIT
MAGIC=987654321
cat >"$W/soak.trig" <<TRIG
record sched:sched_switch, sched:sched_wakeup, syscalls:sys_enter_getsid
buffer 256K
output $W/out keep 50 files
budget 600/min
metrics_file $W/trigrec.prom
trigger storm { syscalls:sys_enter_getsid if pid == $MAGIC  limit none }
TRIG
mkdir -p "$W/out"
"$TRIGREC" run "$W/soak.trig" --log-format logfmt 2>"$W/log" &
REC=$!
for ((i = 0; i < 200; i++)); do grep -q 'event=start' "$W/log" && break; sleep 0.05; done
python3 -c "import os, time
end = time.time() + $DUR
while time.time() < end:
    t = time.time()
    try: os.getsid($MAGIC)
    except OSError: pass
    time.sleep(max(0, 1.0 / $RATE - (time.time() - t)))" &
STORM=$!
m() { awk -v k="$1" 'index($0, k) == 1 { s += $2 } END { print s + 0 }' "$W/trigrec.prom" 2>/dev/null; }
printf '%6s %8s %4s %4s %9s %6s %9s %9s %9s %6s %6s\n' t_s rss_kb fds thr written failed lim_held budget_held coalesced lost files
t0=$(date +%s)
while kill -0 $STORM 2>/dev/null; do
	sleep "$STEP"
	kill -0 $REC 2>/dev/null || { echo "trigrec exited: $(tail -3 "$W/log")"; exit 1; }
	rss=$(awk '/^VmRSS/ { print $2 }' /proc/$REC/status)
	fds=$(ls /proc/$REC/fd | wc -l)
	thr=$(ls /proc/$REC/task | wc -l)
	printf '%6d %8d %4d %4d %9d %6d %9d %9d %9d %6d %6d\n' $(($(date +%s) - t0)) "$rss" "$fds" "$thr" \
		"$(m 'trigrec_snapshots_total{trigger="storm",result="written"}')" \
		"$(m 'trigrec_snapshots_total{trigger="storm",result="failed"}')" \
		"$(m 'trigrec_trigger_suppressed_total{trigger="storm",reason="limit"}')" \
		"$(m 'trigrec_trigger_suppressed_total{trigger="storm",reason="budget"}')" \
		"$(m 'trigrec_trigger_suppressed_total{trigger="storm",reason="coalesced"}')" \
		"$(m 'trigrec_records_lost_total')" "$(ls "$W/out" | grep -c '\.data$')"
done
kill -INT $REC
wait $REC
echo "exit status $?; $(grep -c 'event=snapshot ' "$W/log") snapshot lines logged; last: $(grep 'event=stop ' "$W/log" | tail -1)"
