#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# What recording the default set (trigrec record with no -e) costs per second,
# on an idle machine and on a busy one (issue 16):
#   - events per second of each event of the set (perf stat -a, no recorder);
#   - ring bytes per second per CPU and the history a 1 MiB/CPU ring holds
#     (trigrec's own snapshot sidecar after SECS of recording);
#   - CPU cost: the added CPU ns per context switch of a ping-pong workload
#     (bench/ctxsw pinned to one CPU, recorder on and off alternately, ROUNDS
#     each); one hand-off is one sched_switch and one sched_wakeup, so half of
#     it is the cost of one event; times the machine's event rate = the CPU
#     time per second the set costs (an estimate: every event priced as these two).
# Busy = ctxsw ping-pong (unpinned) and a fork+exec loop of /bin/true.
#
#   sudo flock /tmp/trigrec-trace.lock bench/defaultset.sh
# Knobs: SECS (default 10), ROUNDS (default 5), OUTPUT (build dir), PERF.
# Needs `make all` and `make .output/bench/ctxsw`. Prints a markdown table.
set -u
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUTPUT=${OUTPUT:-$ROOT/.output}
case $OUTPUT in /*) ;; *) OUTPUT=$ROOT/$OUTPUT ;; esac
TRIGREC=${TRIGREC:-$ROOT/trigrec}
PERF=${PERF:-perf}
SECS=${SECS:-10}
ROUNDS=${ROUNDS:-5}
CTXSW=$OUTPUT/bench/ctxsw
LASTCPU=$(($(nproc) - 1))
SET=(sched:sched_switch sched:sched_wakeup sched:sched_process_fork sched:sched_process_exec
	sched:sched_process_exit signal:signal_deliver)
[ -x "$CTXSW" ] || { echo "defaultset.sh: $CTXSW missing: make $CTXSW" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "defaultset.sh: needs root" >&2; exit 1; }
W=$(mktemp -d /tmp/trigrec-defaultset.XXXXXX)
BUSY=()
stop_busy() {
	local p
	for p in "${BUSY[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${BUSY[@]}"; do wait "$p" 2>/dev/null; done
	BUSY=()
}
trap 'stop_busy; rm -rf "$W"' EXIT
trap 'exit 130' INT TERM

start_busy() {
	"$CTXSW" -n 1000000000 -c -1 >/dev/null 2>&1 &
	BUSY+=($!)
	(while :; do /bin/true; done) >/dev/null 2>&1 &
	BUSY+=($!)
	sleep 1
}

# rates: "EVENT COUNT_PER_S" lines over SECS, system-wide, no recorder.
rates() {
	local ev
	ev=$(IFS=,; echo "${SET[*]}")
	"$PERF" stat -a -x, -e "$ev" -- sleep "$SECS" 2>"$W/stat.csv" >/dev/null
	awk -F, -v s="$SECS" '$3 ~ /:/ { printf "%s %.0f\n", $3, $1 / s }' "$W/stat.csv"
}

# window: trigrec with the default set for SECS, then a snapshot; prints
# "bytes_per_s history_s bytes_per_record records_per_s" (the first three of the busiest CPU,
# the last summed over CPUs) (history: what its
# 1 MiB ring holds at that rate; more than SECS when it did not wrap).
window() {
	local i j
	rm -rf "$W/snap"
	"$TRIGREC" record -a -o "$W/snap" --no-final-snapshot >"$W/tr.log" 2>&1 &
	local p=$!
	for ((i = 0; i < 500; i++)); do grep -q 'give -e to choose' "$W/tr.log" && break; sleep 0.02; done
	sleep "$SECS"
	kill -USR2 "$p"
	for ((i = 0; i < 500; i++)); do j=$(ls "$W"/snap/*.json 2>/dev/null | head -1); [ -n "$j" ] && break; sleep 0.02; done
	kill -INT "$p"
	wait "$p"
	python3 - "$j" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
end = d["window"]["end_ns"]
rate, hist, per, recs = [], [], [], 0.0
for c in d["cpus"]:
    if c["ring"] != "main" or not c["records"]:
        continue
    span = (end - c["oldest_ns"]) / 1e9
    rate.append(c["bytes"] / span)
    # A ring that has not wrapped holds everything since the start: its history is longer.
    hist.append(c["ring_bytes"] / (c["bytes"] / span))
    per.append(c["bytes"] / c["records"])
    recs += c["records"] / span
# The busiest CPU: its ring wraps first and bounds the snapshot's aligned window.
print("%.0f %.1f %.0f %.0f" % (max(rate), min(hist), statistics.median(per), recs))
PY
}

# switch_cost: median added CPU ns per context switch (recorder on - off), ROUNDS pairs.
switch_cost() {
	local r on off
	: >"$W/cost"
	for ((r = 0; r < ROUNDS; r++)); do
		off=$("$CTXSW" -n 100000 -c "$LASTCPU" | sed -n 's/.*cpu_ns_per_switch=\([0-9.]*\).*/\1/p')
		"$TRIGREC" record -a -o "$W/cost.d" --no-final-snapshot >"$W/c.log" 2>&1 &
		local p=$! i
		for ((i = 0; i < 500; i++)); do grep -q 'give -e to choose' "$W/c.log" && break; sleep 0.02; done
		on=$("$CTXSW" -n 100000 -c "$LASTCPU" | sed -n 's/.*cpu_ns_per_switch=\([0-9.]*\).*/\1/p')
		kill -INT "$p"
		wait "$p"
		echo "$on $off" >>"$W/cost"
	done
	# Medians with sort: mawk has no asort().
	echo "$(awk '{ printf "%.0f\n", $1 - $2 }' "$W/cost" | sort -n | sed -n "$(((ROUNDS + 1) / 2))p")" \
		"$(awk '{ printf "%.0f\n", $2 }' "$W/cost" | sort -n | sed -n "$(((ROUNDS + 1) / 2))p")"
}

echo "| machine | switches+wakeups/s | events/s of each event (perf stat -a, no recorder) | all events/s | records/s in trigrec's snapshot (all CPUs) | ring bytes/s, busiest CPU | history in 1 MiB/CPU | CPU cost (events/s x ns/event) |"
echo "|---|---|---|---|---|---|---|---|"
echo "# default set: $(date -u), $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), SECS=$SECS ROUNDS=$ROUNDS"
read -r cost base < <(switch_cost)
echo "added CPU ns per switch (ctxsw ping-pong, median of $ROUNDS): $cost (without recorder: $base); per event: $((cost / 2))"
for cond in idle busy; do
	[ $cond = busy ] && start_busy
	rates >"$W/rates.$cond"
	read -r bps hist per recs < <(window)
	sw=$(awk '$1 == "sched:sched_switch" || $1 == "sched:sched_wakeup" { n += $2 } END { print n + 0 }' "$W/rates.$cond")
	all=$(awk '{ n += $2 } END { print n + 0 }' "$W/rates.$cond")
	echo "| $cond | $sw switches+wakeups/s | $(awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }' "$W/rates.$cond") | $all | $recs | $bps B/s/CPU ($per B/record) | ${hist} s | $(awk -v n="$all" -v c="$cost" 'BEGIN { printf "%.2f ms/s (%.2f%% of one CPU)", n * c / 2 / 1e6, n * c / 2 / 1e7 }') |"
	[ $cond = busy ] && stop_busy
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
