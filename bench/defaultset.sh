#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# What recording the default set (trigrec record with no -e) costs per second,
# on an idle machine and on a busy one (issue 16), beside ftrace's own ring and
# perf for the same events (issue 32):
#   - events per second of each event of the set (perf stat -a, no recorder);
#   - ring bytes per second per CPU and the history a 1 MiB/CPU ring holds:
#     trigrec's own snapshot sidecar after SECS of recording, and a tracefs
#     instance's per_cpu/cpuN/stats after SECS (bytes, entries, oldest event);
#   - CPU cost: the added CPU ns per context switch of a ping-pong workload
#     (bench/ctxsw pinned to one CPU, recorder on and off alternately, ROUNDS
#     each, trigrec, ftrace and perf in the same rounds with their order
#     rotated); one hand-off is one sched_switch and one sched_wakeup, so half of
#     it is the cost of one event; times the machine's event rate = the CPU
#     time per second the set costs (an estimate: every event priced as these
#     two), and the same at exactly 300 000 events/s.
# Each recorder: 1 MiB per CPU (trigrec's default ring; KIB): trigrec record -a
# (default path), a tracefs instance with buffer_size_kb KIB (removed on exit,
# also on error), perf record --overwrite -a -m KIB/4 pages.
# Busy = ctxsw ping-pong (unpinned) and a fork+exec loop of /bin/true.
#
#   sudo flock /tmp/trigrec-trace.lock bench/defaultset.sh
# Knobs: SECS (default 10), ROUNDS (default 5), KIB (default 1024), OUTPUT
# (build dir), PERF, TRACEFS (default /sys/kernel/tracing).
# Needs `make all` and `make .output/bench/ctxsw`. Prints markdown tables.
set -u
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUTPUT=${OUTPUT:-$ROOT/.output}
case $OUTPUT in /*) ;; *) OUTPUT=$ROOT/$OUTPUT ;; esac
TRIGREC=${TRIGREC:-$ROOT/trigrec}
PERF=${PERF:-perf}
SECS=${SECS:-10}
ROUNDS=${ROUNDS:-5}
KIB=${KIB:-1024}
CTXSW=$OUTPUT/bench/ctxsw
LASTCPU=$(($(nproc) - 1))
SET=(sched:sched_switch sched:sched_wakeup sched:sched_process_fork sched:sched_process_exec
	sched:sched_process_exit signal:signal_deliver)
[ -x "$CTXSW" ] || { echo "defaultset.sh: $CTXSW missing: make $CTXSW" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "defaultset.sh: needs root" >&2; exit 1; }
BUSY=()
stop_busy() {
	local p
	for p in "${BUSY[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${BUSY[@]}"; do wait "$p" 2>/dev/null; done
	BUSY=()
}

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
# "ring bytes/s (bytes/record)|history|records/s" from its sidecar: the first two of the
# busiest CPU, the last summed over CPUs. A ring that wrapped: its history is measured (the
# trigger's time minus its oldest record), its bytes per record are ring bytes (the compact
# encoding) over the records it held, and it says how many. One that did not: history "> the time recorded", and
# bytes per record "n/a": the sidecar's "bytes" are the expanded samples written, not ring bytes.
window() {
	local i j
	rm -rf "$W/snap"
	"$TRIGREC" record -a -m "${KIB}K" -o "$W/snap" --no-final-snapshot >"$W/tr.log" 2>&1 &
	local p=$!
	for ((i = 0; i < 500; i++)); do grep -q 'give -e to choose' "$W/tr.log" && break; sleep 0.02; done
	sleep "$SECS"
	kill -USR2 "$p"
	for ((i = 0; i < 500; i++)); do j=$(ls "$W"/snap/*.json 2>/dev/null | head -1); [ -n "$j" ] && break; sleep 0.02; done
	kill -INT "$p"
	wait "$p"
	python3 - "$j" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
end = d["window"]["end_ns"]
best, recs = None, 0.0
for c in d["cpus"]:
    # "main": the perf-layout paths; "compact": the default path since issue 32 (its 1/8
    # spare, "carry", holds only what arrives during a harvest).
    if c["ring"] not in ("main", "compact") or not c["records"]:
        continue
    span = (end - c["oldest_ns"]) / 1e9
    recs += c["records"] / span
    if c["wrapped"]:
        row = (span, "%.0f B/s (%.0f B/record)" % (c["ring_bytes"] / span, c["ring_bytes"] / c["records"]),
               "%.3f s, %d records" % (span, c["records"]))
    else:
        row = (1e9 - c["records"] / span, "n/a (did not wrap)", "> %.1f s" % span)
    # The busiest CPU: its ring wraps first and bounds the snapshot's aligned window.
    if best is None or row[0] < best[0]:
        best = row
print("%s|%s|%.0f" % (best[1], best[2], recs))
PY
}

# ftrace's own ring for the same events: a tracefs instance of this script's
# (trigrec-dset-PID), KIB per CPU as trigrec's ring, made afresh for each
# measurement and removed after it and by the EXIT trap, also on error.
TRACEFS=${TRACEFS:-/sys/kernel/tracing}
FT=$TRACEFS/instances/trigrec-dset-$$
ft_new() {
	local e
	ft_rm
	mkdir "$FT" 2>/dev/null || { echo "defaultset.sh: cannot create $FT (tracefs mounted?)" >&2; return 1; }
	if ! { echo 0 >"$FT/tracing_on" && echo "$KIB" >"$FT/buffer_size_kb"; }; then
		echo "defaultset.sh: buffer_size_kb $KIB refused by $FT" >&2
		ft_rm
		return 1
	fi
	for e in "${SET[@]}"; do
		echo 1 >"$FT/events/${e%%:*}/${e#*:}/enable" 2>/dev/null ||
			{ echo "defaultset.sh: cannot enable $e in $FT" >&2; ft_rm; return 1; }
	done
	echo 1 >"$FT/tracing_on"
}
# shellcheck disable=SC2317 # also run by the EXIT trap
ft_rm() {
	[ -d "$FT" ] || return 0
	echo 0 >"$FT/tracing_on" 2>/dev/null
	echo 0 >"$FT/events/enable" 2>/dev/null
	rmdir "$FT" 2>/dev/null || echo "defaultset.sh: could not remove $FT: rmdir it by hand" >&2
}

# rec_on NAME / rec_off: start the recorder NAME (trigrec, ftrace or perf) with
# the default set and 1 MiB per CPU (trigrec's default ring), system-wide, and
# stop it. RECPID: the trigrec or perf process.
RECPID=""
rec_on() {
	local i
	case $1 in
	trigrec)
		"$TRIGREC" record -a -m "${KIB}K" -o "$W/rec.d" --no-final-snapshot >"$W/rec.log" 2>&1 &
		RECPID=$!
		for ((i = 0; i < 500; i++)); do grep -q 'give -e to choose' "$W/rec.log" && break; sleep 0.02; done ;;
	ftrace) ft_new ;;
	perf)
		local ev
		ev=$(IFS=,; echo "${SET[*]}")
		"$PERF" record --overwrite -a -e "$ev" -m $((KIB / 4)) --no-bpf-event -B -o "$W/perf.data" \
			>"$W/rec.log" 2>&1 &
		RECPID=$!
		# perf says nothing when its events are on: give it the time it takes here (< 0.5 s).
		sleep 1 ;;
	esac
}
# shellcheck disable=SC2317 # also run by the EXIT trap
rec_off() {
	ft_rm
	if [ -n "$RECPID" ]; then
		kill -INT "$RECPID" 2>/dev/null
		wait "$RECPID" 2>/dev/null
		RECPID=""
	fi
}

# switch_cost: per recorder, the median added CPU ns per context switch (recorder on - off),
# ROUNDS pairs; the three recorders in the same rounds, their order rotated each round, each
# "on" run right after its own "off" run. Prints "NAME MEDIAN MIN MAX" lines (added ns), then
# "base NS" (the median without a recorder).
RECS=(trigrec ftrace perf)
switch_cost() {
	local r k n on off
	: >"$W/cost"
	for ((r = 0; r < ROUNDS; r++)); do
		for ((k = 0; k < ${#RECS[@]}; k++)); do
			n=${RECS[(r + k) % ${#RECS[@]}]}
			off=$("$CTXSW" -n 100000 -c "$LASTCPU" | sed -n 's/.*cpu_ns_per_switch=\([0-9.]*\).*/\1/p')
			rec_on "$n"
			on=$("$CTXSW" -n 100000 -c "$LASTCPU" | sed -n 's/.*cpu_ns_per_switch=\([0-9.]*\).*/\1/p')
			rec_off
			echo "$n $on $off" >>"$W/cost"
			echo "# round $((r + 1)) $n: on $on off $off" >&2
		done
	done
	# Medians with sort: mawk has no asort().
	for n in "${RECS[@]}"; do
		awk -v n="$n" '$1 == n { printf "%.0f\n", $2 - $3 }' "$W/cost" | sort -n >"$W/d"
		echo "$n $(sed -n "$(((ROUNDS + 1) / 2))p" "$W/d") $(head -1 "$W/d") $(tail -1 "$W/d")"
	done
	echo "base $(awk '{ printf "%.0f\n", $3 }' "$W/cost" | sort -n | sed -n "$(((ROUNDS * ${#RECS[@]} + 1) / 2))p")"
}

# ft_window: ftrace's instance with the default set for SECS; from its
# per_cpu/cpuN/stats prints "ring bytes/s (bytes/record)|history" of the busiest CPU.
# bytes/entries: what the ring holds per record (event header, payload, page padding);
# history: now - oldest event of a ring that has overrun (measured) and the records it holds,
# else "> SECS" and what the ring would hold at this rate.
ft_window() {
	local c
	ft_new || return
	sleep "$SECS"
	# Read with tracing on: "now ts" is then the time of the newest record, give or take a ms.
	for c in "$FT"/per_cpu/cpu*; do
		awk -v kib="$KIB" -F': *' '
			$1 == "entries" { e = $2 } $1 == "overrun" { o = $2 } $1 == "bytes" { b = $2 }
			$1 == "oldest event ts" { t0 = $2 } $1 == "now ts" { t1 = $2 }
			END { if (e > 0 && t1 > t0) printf "%.0f B/s (%.0f B/record)|%s\n", b / (t1 - t0), b / e, (o > 0 ? sprintf("%.3f s, %d records", t1 - t0, e) : sprintf("> %.1f s (%.0f s at this rate)", t1 - t0, kib * 1024 * (t1 - t0) / b)) }' "$c/stats"
	done | sort -t'|' -n | tail -1
	ft_rm
}

# The traps once every function they call is defined: bash can abort on a signal that arrives
# while it is still parsing the script.
W=$(mktemp -d /tmp/trigrec-defaultset.XXXXXX)
trap 'rec_off; stop_busy; rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
echo "# default set: $(date -u), $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), SECS=$SECS ROUNDS=$ROUNDS, ${KIB} KiB/CPU"
switch_cost >"$W/costs"
base=$(awk '$1 == "base" { print $2 }' "$W/costs")
declare -A NS
for n in "${RECS[@]}"; do NS[$n]=$(awk -v n="$n" '$1 == n { print $2 }' "$W/costs"); done
echo "added CPU ns per switch = 2 events (ctxsw ping-pong, median (min-max) of $ROUNDS; without recorder: $base):" \
	"$(for n in "${RECS[@]}"; do printf '%s %s (%s); ' "$n" "${NS[$n]}" "$(awk -v n="$n" '$1 == n { print $3 "-" $4 }' "$W/costs")"; done)" \
	"trigrec/ftrace $(awk -v t="${NS[trigrec]}" -v f="${NS[ftrace]}" 'BEGIN { printf "%.2f", t / f }')"
echo "all rounds (recorder on off): $(awk '{ printf "%s%s %s %s", (NR > 1 ? "; " : ""), $1, $2, $3 }' "$W/cost")"
echo
echo "| machine | switches+wakeups/s | events/s of each event (perf stat -a, no recorder) | all events/s | records/s in trigrec's snapshot (all CPUs) | trigrec ring bytes/s, busiest CPU | trigrec history in 1 MiB/CPU (records held) | ftrace ring bytes/s, busiest CPU | ftrace history in 1 MiB/CPU (records held) | CPU use, trigrec | ftrace | perf | trigrec ÷ ftrace |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
# use N: the CPU time per second N events/s cost at each recorder's ns per event (half a switch).
use() {
	local n
	for n in "${RECS[@]}"; do
		awk -v n="$1" -v c="${NS[$n]}" 'BEGIN { printf "%.1f ms/s (%.2f%% of a CPU) | ", n * c / 2 / 1e6, n * c / 2 / 1e7 }'
	done
	awk -v t="${NS[trigrec]}" -v f="${NS[ftrace]}" 'BEGIN { printf "%.2f", t / f }'
}
for cond in idle busy; do
	[ $cond = busy ] && start_busy
	rates >"$W/rates.$cond"
	IFS='|' read -r bps hist recs < <(window)
	IFS='|' read -r fbps fhist < <(ft_window)
	sw=$(awk '$1 == "sched:sched_switch" || $1 == "sched:sched_wakeup" { n += $2 } END { print n + 0 }' "$W/rates.$cond")
	all=$(awk '{ n += $2 } END { print n + 0 }' "$W/rates.$cond")
	echo "| $cond | $sw | $(awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }' "$W/rates.$cond") | $all | $recs | $bps | $hist | ${fbps:-?} | ${fhist:-?} | $(use "$all") |"
	[ $cond = busy ] && stop_busy
done
# The issue's yardstick: the same ns per event at exactly 300 000 events/s.
echo "| at 300000 events/s | | | 300000 | | | | | | $(use 300000) |"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
