#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# How fast `trigrec test` replays a snapshot (issue 29's target: >= 5 M
# records/s on the scale bench's 64-CPU x 4 MiB snapshot, which
# `bench/scale -c 64 -m 4 -s -k -o DIR` keeps). CPU only: reads a file,
# traces nothing, needs no trace lock.
#
# usage: bench/ttest.sh FILE.data [RUNS]     (TRIGREC=path, default ./trigrec)
#
# The script has four triggers on the scale bench's events (sched_switch,
# sched_wakeup, raw_syscalls:sys_enter): a run-queue latency by pid, the
# same with a learned p99.9, a rate by pid and a count, so every record is
# evaluated by at least one. Prints, per run and as the median: wall time,
# records evaluated, records/s (evaluated / wall, the file's reading,
# decompression and merge included), and trigrec's own split (-v): the
# open (headers, formats) and the replay (the records read once, merged and
# evaluated), wall and CPU; then records/s of CPU time (the open and the
# replay), the figure a machine shared with other work still tells.
set -euo pipefail
F=${1:?usage: bench/ttest.sh FILE.data [RUNS]}
RUNS=${2:-3}
TRIGREC=${TRIGREC:-./trigrec}
S=$(mktemp --suffix=.trig)
trap 'rm -f "$S" "$S.err"' EXIT
cat >"$S" <<'T'
trigger runq {
  latency sched:sched_wakeup by pid -> sched:sched_switch by next_pid > 10ms
}
trigger runq_learned {
  latency sched:sched_wakeup by pid -> sched:sched_switch by next_pid > p99.9
}
trigger busy {
  rate raw_syscalls:sys_enter by common_pid > 5000/10ms
}
trigger switches {
  sched:sched_switch if prev_state == 2 count >= 1000000
}
T
rates=()
cpurates=()
for ((i = 1; i <= RUNS; i++)); do
	t0=$(date +%s%N)
	out=$("$TRIGREC" test -v -q "$S" "$F" 2>"$S.err") || [ $? -eq 1 ] # 1: nothing fired
	t1=$(date +%s%N)
	n=$(sed -n 's/.*: \([0-9]*\) records of .*/\1/p' <<<"$out")
	ns=$((t1 - t0))
	r=$((n * 1000000000 / ns))
	rates+=("$r")
	printf 'run %d: %d.%03d s, %d records evaluated, %d.%02d M records/s\n' "$i" \
		$((ns / 1000000000)) $((ns / 1000000 % 1000)) "$n" $((r / 1000000)) $((r / 10000 % 100))
	sed -n 's/^trigrec: \(opened .* ms)\).*/  \1/p' "$S.err"
	cpu=$(sed -n 's/^trigrec: opened .*(CPU \([0-9]*\) ms).*(CPU \([0-9]*\) ms).*/\1 \2/p' "$S.err")
	read -r c1 c2 <<<"${cpu:-0 0}"
	cr=$((n * 1000 / (c1 + c2 > 0 ? c1 + c2 : 1)))
	cpurates+=("$cr")
	printf '  CPU: %d ms, %d.%02d M records/s of CPU time\n' $((c1 + c2)) $((cr / 1000000)) $((cr / 10000 % 100))
done
med=$(printf '%s\n' "${rates[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")
cmed=$(printf '%s\n' "${cpurates[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")
printf 'median: %d.%02d M records/s (%s); of CPU time %d.%02d M records/s\n' \
	$((med / 1000000)) $((med / 10000 % 100)) "$F" $((cmed / 1000000)) $((cmed / 10000 % 100))
echo "$out" | tail -n +2
