#!/bin/sh
# `make demo`: one capture on a built-in default, shown through perf script.
# A shell runs a few quick commands, then one syscall that takes 30 ms; the
# latency trigger freezes the history the instant that syscall returns.
set -e
cd "$(dirname "$0")/.."
TRIGREC=${TRIGREC:-./trigrec}
out=${DEMO_OUT:-demo-out}
mkdir -p "$out"
if [ "$(id -u)" != 0 ]; then
	echo "make demo: trigrec needs root (or CAP_BPF + CAP_PERFMON): run it as root" >&2
	exit 1
fi
echo "== trigrec record (any syscall of the demo workload slower than 20 ms triggers a snapshot)"
"$TRIGREC" record -a -e sched:sched_switch,sched:sched_wakeup,raw_syscalls:sys_enter,raw_syscalls:sys_exit \
	--trigger 'latency raw_syscalls:sys_enter -> raw_syscalls:sys_exit by tid > 20ms' \
	--count 1 -o "$out" -- sh -c 'for i in 1 2 3; do ls / >/dev/null; done; sleep 0.03; echo done >/dev/null'
snap=$(ls -t "$out"/*latency*.data 2>/dev/null | head -1)
if [ -z "$snap" ]; then
	echo "make demo: no snapshot was written (see the messages above)" >&2
	exit 1
fi
echo
echo "== the last 25 records of $snap (perf script); the trigger is the final sys_exit"
perf script -i "$snap" -F comm,pid,tid,cpu,time,event,trace 2>/dev/null | tail -25
echo
echo "== what fired ($(basename "${snap%.data}.json"))"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["trigger"]; l=t.get("latency",{}); print("trigger:", t["text"]); print("latency: %.3f ms (threshold %.3f ms), tid %s" % (l.get("duration_ns",0)/1e6, l.get("threshold_ns",0)/1e6, t.get("tid"))); print("window: %.3f ms of history, %d records" % (d["window"]["duration_ns"]/1e6, d["records"]))' "${snap%.data}.json" 2>/dev/null || cat "${snap%.data}.json"
echo
echo "Try: perf report -i $snap --stdio    perf sched timehist -i $snap"
