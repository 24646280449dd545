#!/bin/bash
# trigrec against perf, and in rows 1, 3, 3f and 4 against ftrace's own ring (a
# tracefs instance), side by side, same workloads, same machine, same run.
# Run by `make bench` (as root); prints one markdown table and writes it to
# bench/out/results.md. What each row measures: bench/README.md.
#
# Environment: OUTPUT (build dir, default .output), RUNS (runs per
# measurement, default 5), ROUNDS (rows 3-4, default 2 x RUNS - 1),
# IDLE_SECS (default 30), ROWS (default "1 2 3 3f 4 5 6 7 8 9 10"), MAX_WAIT (seconds
# to wait for other recorders to finish, in all; default 120), PERF
# (default perf), TRACEFS (default /sys/kernel/tracing), QUICK=1 (3 runs,
# 10 s idle: a smoke test, not for publishing), TRIGREC (the binary,
# default ./trigrec), TRIGREC_BEFORE (row 10: another build's binary,
# timed in the same loop as TRIGREC, alternating: a change's before and
# after side by side).
# Benchmarks are not tests: noisy timings never make this script fail.
set -u
export LC_ALL=C

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUTPUT=${OUTPUT:-.output}
case $OUTPUT in /*) ;; *) OUTPUT=$ROOT/$OUTPUT ;; esac
BIN=$OUTPUT/bench
SEQGEN=$OUTPUT/tests/seqgen
TRIGREC=${TRIGREC:-$ROOT/trigrec}
PERF=${PERF:-perf}
RUNS=${RUNS:-5}
IDLE_SECS=${IDLE_SECS:-30}
if [ "${QUICK:-0}" = 1 ]; then
	RUNS=3
	IDLE_SECS=10
fi
ROUNDS=${ROUNDS:-$((2 * RUNS - 1))} # rows 3-4: small differences, more (shorter) rounds
B2B_RUNS=${B2B_RUNS:-$(((RUNS + 1) / 2))} # row 2: two triggers per run
ROWS=${ROWS:-1 2 3 3f 4 5 6 7 8 9 10}  # which rows to run
want() { case " $ROWS " in *" $1 "*) return 0 ;; esac; return 1; }
# One live-kernel suite at a time on this machine (tests take the same lock).
. "$ROOT/tests/trace-lock.sh"
trace_lock
OUT=$ROOT/bench/out
W=$OUT/work
RAW=$OUT/raw.tsv
NCPU=$(nproc)
LASTCPU=$((NCPU - 1))
HZ=$(getconf CLK_TCK)
PAGESIZE=$(getconf PAGESIZE)
AWK=$ROOT/bench/seqcount.awk

# The recorded events and the trigger, identical for both tools.
GETPGID=syscalls:sys_enter_getpgid
GETSID=syscalls:sys_enter_getsid
BASE=1000000
NEVER=syscalls:sys_enter_vhangup   # a trigger that never fires

die() { echo "bench: $*" >&2; exit 1; }
say() {
	printf '[bench %5ss] %s\n' "$SECONDS" "$*" >&2
	others # a row starts when none of ours runs: count the others
}
# Other trigrec or perf sessions disturb the numbers: load, and trigrec's
# freeze gates, which drop records for every perf session on the same
# tracepoints (another trigrec recording getpgid with a getsid trigger, say,
# freezes on our workloads' triggers). Remember the most seen at once and
# the load; before each measurement wait a while for them to go.
OTHERS=0
LOADS=""
DISTURBED=0
WAITED=0
MAX_WAIT=${MAX_WAIT:-120} # seconds of waiting for quiet, in all
nforeign() { echo $(($(pgrep -x trigrec | wc -l) + $(pgrep -x perf | wc -l))); }
others() {
	local n
	n=$(nforeign)
	[ "$n" -gt "$OTHERS" ] && OTHERS=$n
	LOADS="$LOADS $(cut -d' ' -f1 /proc/loadavg)"
}
# Call when none of ours runs.
quiet_wait() {
	local n
	n=$(nforeign)
	while [ "$n" -gt 0 ] && [ $WAITED -lt $((MAX_WAIT * 2)) ]; do
		[ $WAITED = 0 ] && say "waiting for $n other trigrec/perf processes to finish (at most ${MAX_WAIT} s in all)"
		sleep 0.5
		WAITED=$((WAITED + 1))
		n=$(nforeign)
	done
	if [ "$n" -gt 0 ]; then
		DISTURBED=$((DISTURBED + 1))
		[ "$n" -gt "$OTHERS" ] && OTHERS=$n
	fi
}

[ "$(id -u)" = 0 ] || die "run as root (perf and trigrec need it): sudo make bench"
command -v "$PERF" >/dev/null || die "perf not found (apt-get install linux-perf), or set PERF="
[ -x "$TRIGREC" ] || die "$TRIGREC not built: run make"
for b in syscall_loop ctxsw burn trigseq memcpy_bw ringonly dirwatch; do
	[ -x "$BIN/$b" ] || die "$BIN/$b not built: run make bench"
done
[ -x "$SEQGEN" ] || die "$SEQGEN not built: run make bench"
if want 3f; then
	[ -x "$BIN/floor" ] || die "$BIN/floor not built: run make bench"
fi

rm -rf "$W"
mkdir -p "$W"
: > "$RAW"
BG_PIDS=""
# kernel.bpf_stats_enabled times every BPF program run with two clock reads
# (each an expensive kvm-clock read on this project's VM): left on by a
# profiling session, it raised trigrec's and the floor rows' BPF costs but
# not ftrace's or perf's. Off for the run, restored after, and said.
BPF_STATS=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)
[ "$BPF_STATS" = 0 ] || echo 0 > /proc/sys/kernel/bpf_stats_enabled
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	for p in $BG_PIDS; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	declare -F ft_rm > /dev/null && ft_rm
	[ "$BPF_STATS" = 0 ] || echo "$BPF_STATS" > /proc/sys/kernel/bpf_stats_enabled
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- recording and summarising numbers ----

# rec KEY TOOL VALUE: one raw number (non-numeric values are kept, not summarised).
rec() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$RAW"; }

# mmm KEY TOOL [DECIMALS] -> "median (min–max)", or "n/a".
mmm() {
	awk -F'\t' -v k="$1" -v t="$2" '$1 == k && $2 == t && $3 ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ { print $3 }' "$RAW" |
		sort -g | awk -v d="${3:-0}" '
		{ a[NR] = $1 }
		END {
			if (!NR) { print "n/a"; exit }
			m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
			f = "%." d "f"
			printf(f " (" f "–" f ")\n", m, a[1], a[NR])
		}'
}
# med KEY TOOL -> the median alone (for arithmetic), or empty.
med() { mmm "$1" "$2" 6 | awk '$1 != "n/a" { print $1 }'; }
# count KEY TOOL -> how many numbers, and how many equal to VALUE: "k/n"
count_eq() {
	awk -F'\t' -v k="$1" -v t="$2" -v v="$3" '$1 == k && $2 == t { n++; if ($3 + 0 == v + 0) e++ }
		END { printf "%d/%d\n", e, n }' "$RAW"
}
sumv() { awk -F'\t' -v k="$1" -v t="$2" '$1 == k && $2 == t { s += $3; n++ } END { printf "%d/%d\n", s, n * '"${3:-1}"' }' "$RAW"; }
calc() { awk "BEGIN { x = $1; printf \"%.${2:-2}f\n\", x }" 2>/dev/null; }
# kv NAME "a=1 b=2" -> 1
kv() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
# jget FILE KEY -> first integer value of "KEY": N in a sidecar
jget() { grep -o "\"$2\": [0-9]*" "$1" | head -1 | awk '{ print $2 }'; }
# counts FILE [trig] [prev] -> seqcount.awk output for one perf.data
counts() {
	"$PERF" script -i "$1" -F pid,event,trace 2>/dev/null |
		awk -v base=$BASE -v trig="${2:-}" -v prev="${3:-}" -f "$AWK"
}
# first NUMBER after KEY= in a workload's output
outval() { sed -n "s/.*$2=\([0-9.]*\).*/\1/p" "$1" | head -1; }

perf_tp() { # perf record, overwrite mode, same events as trigrec: perf_tp DIR RINGBYTES ARGS...
	local d=$1 pages=$(($2 / PAGESIZE))
	shift 2
	"$PERF" record --overwrite -m "$pages" -k mono --no-bpf-event -o "$d/perf.data" "$@" \
		> "$d.out" 2> "$d.err"
}
trigrec_tp() { # trigrec_tp DIR RINGBYTES ARGS...
	local d=$1 ring=$2
	shift 2
	"$TRIGREC" record -m "$((ring / 1024))K" -o "$d" "$@" > "$d.out" 2> "$d.err"
}

# ftrace's own ring, the third column of rows 1, 3, 3f and 4: a tracefs instance
# of this script's (trigrec-bench-PID), made afresh for each measurement with
# the same events and the same memory per CPU (buffer_size_kb), removed after
# it and by the EXIT trap (ft_rm), also when a measurement fails.
TRACEFS=${TRACEFS:-/sys/kernel/tracing}
FT=$TRACEFS/instances/trigrec-bench-$$
FTRACE=1
FTRACE_WHY=""
if [ ! -d "$TRACEFS/instances" ]; then
	FTRACE=0
	FTRACE_WHY="no $TRACEFS/instances (mount tracefs there: mount -t tracefs nodev $TRACEFS)"
fi
ft_fail() { # MESSAGE: said on stderr, the instance removed
	echo "bench: ftrace: $*" >&2
	ft_rm
	return 1
}
# ft_new KIB EVENT...: a new instance, tracing off, KIB per CPU, EVENT...
# (system:name) enabled.
ft_new() {
	local kib=$1 e
	shift
	ft_rm
	mkdir "$FT" 2> /dev/null || { echo "bench: ftrace: cannot create $FT (instances need root and tracefs)" >&2; return 1; }
	echo 0 > "$FT/tracing_on" || { ft_fail "cannot write $FT/tracing_on"; return 1; }
	echo "$kib" > "$FT/buffer_size_kb" 2> /dev/null || { ft_fail "buffer_size_kb $kib refused: give a smaller ring size"; return 1; }
	for e in "$@"; do
		echo 1 > "$FT/events/${e%%:*}/${e#*:}/enable" 2> /dev/null ||
			{ ft_fail "cannot enable $e in $FT (is it a tracepoint of this kernel?)"; return 1; }
	done
}
# ft_set FILE VALUE: write VALUE to the instance's FILE (events/.../filter,
# .../trigger); the kernel's complaint on failure.
ft_set() {
	if ! printf '%s\n' "$2" > "$FT/$1" 2> /dev/null; then
		ft_fail "'$2' refused by $1: $(grep -v '^#' "$FT/$1" 2> /dev/null | head -3 | tr '\n' ' ')"
		return 1
	fi
}
# shellcheck disable=SC2317 # also run by the EXIT trap
ft_rm() {
	[ -d "$FT" ] || return 0
	echo 0 > "$FT/tracing_on" 2> /dev/null
	rmdir "$FT" 2> /dev/null && return 0
	# Busy: take its triggers and events away first, then again.
	local t
	for t in "$FT"/events/*/*/trigger; do
		grep -v '^#' "$t" 2> /dev/null | while read -r tr _; do
			echo "!${tr%%:*}" > "$t" 2> /dev/null
		done
	done
	echo 0 > "$FT/events/enable" 2> /dev/null
	rmdir "$FT" 2> /dev/null || echo "bench: could not remove $FT: rmdir it by hand" >&2
}
# ft_run ARGS...: run ARGS with the instance's tracing on, off again after.
ft_run() {
	echo 1 > "$FT/tracing_on"
	"$@"
	local rc=$?
	echo 0 > "$FT/tracing_on"
	return $rc
}
# ft_counts FILE [trig]: seqcount.awk on an instance's trace file, its
# "sys_getpgid(pid: 0x000f4240)" lines rewritten into perf script's form.
ft_counts() {
	sed -n 's/.*sys_get\(pgid\|sid\)(pid: \(0x\)\{0,1\}\([0-9a-fA-F]*\)).*/0 syscalls:sys_enter_get\1: pid: 0x\3/p' "$1" |
		awk -v base=$BASE -v trig="${2:-}" -f "$AWK"
}

# Kernel ring memory per CPU in KiB, counted as docs/benchmarks.md says:
# everything the recorder maps of the kernel's tracing memory while it
# records, from /proc/PID/maps: every anon_inode:[perf_event] mapping (data
# pages and header page) and every anon_inode:bpf-map mapping of 64 KiB or
# more, a BPF ring buffer's data pages (mapped twice) once; divided by the
# CPUs recorded. ringmem_kib MAPS FDINFO -> KiB per CPU.
ringmem_kib() {
	awk -v page="$PAGESIZE" -v ncpu="$NCPU" '
		function hex(s,    n, i) {
			n = 0
			s = tolower(s)
			for (i = 1; i <= length(s); i++)
				n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return n
		}
		{ file = (FILENAME == ARGV[1]) ? 1 : 2 }
		# fdinfo: the data sizes of the BPF ring buffers (map_type 27).
		file == 1 && /^map_type:/ { mt = $2 }
		file == 1 && /^max_entries:/ { if (mt == 27) rb[$2] = 1; mt = "" }
		file == 2 {
			split($1, a, "-")
			sz = hex(a[2]) - hex(a[1])
			if ($0 ~ /anon_inode:\[perf_event\]/) tot += sz
			else if ($0 ~ /anon_inode:bpf-map/ && sz >= 65536) {
				d = (sz - page) / 2
				tot += (d in rb) ? page + d : sz
			}
		}
		END { printf "%.0f\n", tot / 1024 / ncpu }' "$2" "$1" 2> /dev/null
}
# ringmem TOOL RINGBYTES EVENTARGS... -> KiB per CPU of TOOL recording with
# the same options as row 1 (a workload that reads its recorder's maps).
ringmem() {
	local tool=$1 ring=$2 d=$W/ringmem-$1
	shift 2
	mkdir -p "$d"
	# shellcheck disable=SC2016 # expanded by the workload's shell
	local wl=(sh -c 'cat "/proc/$PPID/maps" > "$1.maps"; cat /proc/"$PPID"/fdinfo/* > "$1.fdinfo" 2> /dev/null; true' sh "$d")
	case $tool in
	trigrec) trigrec_tp "$d" "$ring" -q "$@" --no-final-snapshot -- "${wl[@]}" ;;
	perf) perf_tp "$d" "$ring" "$@" -- "${wl[@]}" ;;
	ftrace)
		ft_new $((ring / 1024)) || return
		cat "$FT/buffer_size_kb"
		ft_rm
		return ;;
	esac
	[ -s "$d.maps" ] || { echo "bench: ringmem $tool: no maps read (see $d.err)" >&2; return; }
	ringmem_kib "$d.maps" "$d.fdinfo"
}

MODEL=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
say "trigrec vs $("$PERF" --version) on $NCPU CPUs ($MODEL), kernel $(uname -r); runs per measurement: $RUNS"
[ "$OTHERS" -gt 0 ] && say "warning: $OTHERS other trigrec/perf processes are running: their freezes and load disturb these numbers"

# ======================================================================
# 1. Cut precision: seqgen's numbered getpgid stream, getsid(BASE+CUT_T)
#    as the trigger; 1 MiB ring per CPU for both tools. CUT_T calls before
#    the trigger, more than any tool's 1 MiB holds (rings=compact held all
#    of 100 000 in some runs: its history was capped by the stream, not
#    by its ring), and 100 000 after it.
# ======================================================================
CUT_T=${CUT_T:-300000}
CUT_N=$((CUT_T + 100000))
cut_one() { # cond run tool
	quiet_wait
	local d=$W/cut-$1-$2-$3 f="" c=""
	mkdir -p "$d"
	local burn_pid=""
	if [ "$1" = busy ]; then # every CPU busy while the tool records (not while we decode)
		"$BIN/burn" -j "$NCPU" -t 60 &
		burn_pid=$!
		BG_PIDS="$BG_PIDS $burn_pid"
		sleep 0.2
	fi
	local fired=""
	if [ "$3" = trigrec ]; then
		trigrec_tp "$d" $((1 << 20)) -q -e $GETPGID -e $GETSID --trigger $GETSID --count 1 \
			-- "$SEQGEN" -n "$CUT_N" -t "$CUT_T"
	elif [ "$3" = ftrace ]; then
		# The trigger: a traceoff trigger on getsid. The workload's tree only, as
		# the others record it (set_event_pid, event-fork); its shell turns
		# tracing on right before it execs seqgen.
		if ft_new 1024 $GETPGID $GETSID && ft_set options/event-fork 1 &&
			ft_set events/syscalls/sys_enter_getsid/trigger traceoff; then
			# shellcheck disable=SC2016 # expanded by the workload's shell
			sh -c 'echo $$ > "$1/set_event_pid" && echo 1 > "$1/tracing_on" && shift && exec "$@"' \
				sh "$FT" "$SEQGEN" -n "$CUT_N" -t "$CUT_T" > "$d.out" 2> "$d.err"
			fired=$(cat "$FT/tracing_on") # 0: the trigger turned tracing off
			echo 0 > "$FT/tracing_on"
			cp "$FT/trace" "$d/trace"
			ft_rm
		fi
	else
		perf_tp "$d" $((1 << 20)) --switch-output-event $GETSID -e $GETPGID -e $GETSID \
			-- "$SEQGEN" -n "$CUT_N" -t "$CUT_T"
	fi
	if [ -n "$burn_pid" ]; then
		kill "$burn_pid" 2> /dev/null
		wait "$burn_pid" 2> /dev/null
	fi
	if [ "$3" = trigrec ]; then
		f=$(ls "$d"/*.data 2>/dev/null | head -1)
	elif [ "$3" = ftrace ]; then
		[ "$fired" = 0 ] && [ -s "$d/trace" ] && f=$d/trace
		[ "$fired" = 1 ] && echo "bench: ftrace: the traceoff trigger did not fire (cut-$1-$2)" >&2
	else
		# The trigger's dump: the first holding the trigger's record, else the
		# first dump (the record was overwritten); the last is perf's exit dump.
		f=""
		local all g
		all=$(ls "$d"/perf.data.* 2>/dev/null | sed '$d')
		for g in $all; do
			c=$(counts "$g" "$CUT_T")
			if [ "$(kv newest "$c")" = "$CUT_T" ]; then
				f=$g
				break
			fi
		done
		if [ -z "$f" ]; then
			# shellcheck disable=SC2086 # $all: one file name per word
			f=$(printf '%s\n' $all | head -1)
			c=""
		fi
	fi
	if [ -z "$f" ]; then
		rec "cut.$1.snap" "$3" 0
		return
	fi
	rec "cut.$1.snap" "$3" 1
	if [ "$3" = ftrace ]; then
		c=$(ft_counts "$f" "$CUT_T")
	else
		[ -n "$c" ] && [ "$3" = perf ] || c=$(counts "$f" "$CUT_T")
	fi
	rec "cut.$1.post" "$3" "$(kv post "$c")"
	rec "cut.$1.kept" "$3" "$(kv contig "$c")"
	rec "cut.$1.gaps" "$3" $(($(kv pre "$c") - $(kv contig "$c")))
	rec "cut.$1.holes" "$3" "$(kv holes "$c")"
	rec "cut.$1.missing" "$3" "$(kv missing "$c")"
	LAST_KEPT[$3]=$(kv contig "$c")
}
declare -A LAST_KEPT=() # row 1: each tool's unbroken history in this run
CUT_TOOLS="ftrace perf trigrec"
[ $FTRACE = 1 ] || CUT_TOOLS="perf trigrec"
if want 1; then
	[ $FTRACE = 1 ] || say "1. no ftrace column: $FTRACE_WHY"
	# Kernel ring memory per CPU of each tool with row 1's options (KiB).
	for tool in $CUT_TOOLS; do
		quiet_wait
		kib=$(ringmem "$tool" $((1 << 20)) -e $GETPGID -e $GETSID \
			"$([ "$tool" = trigrec ] && echo --trigger || echo --switch-output-event)" $GETSID)
		[ -n "$kib" ] && rec cut.ringkib "$tool" "$kib"
	done
	for cond in idle busy; do
		say "1. cut precision, $cond CPUs: $RUNS runs x ($CUT_TOOLS)"
		for r in $(seq "$RUNS"); do
			LAST_KEPT=()
			# Rotate the order of the tools from run to run.
			# shellcheck disable=SC2086 # the tools are a word list
			set -- $CUT_TOOLS
			for _ in $(seq $(((r - 1) % $#))); do set -- "$@" "$1"; shift; done
			for tool in "$@"; do
				cut_one "$cond" "$r" "$tool"
			done
			[ -n "${LAST_KEPT[trigrec]:-}" ] || continue
			for tool in perf ftrace; do
				k=${LAST_KEPT[$tool]:-0}
				[ "$k" -gt 0 ] && rec "cut.$cond.kept" "vs$tool" "$(calc "${LAST_KEPT[trigrec]} / $k" 3)"
			done
		done
	done
	# Records kept per MiB of kernel ring memory per CPU, per run, and
	# trigrec's against each other's (the per-run ratios times the memory's).
	ktr=$(med cut.ringkib trigrec)
	for cond in idle busy; do
		for tool in $CUT_TOOLS; do
			kib=$(med cut.ringkib "$tool")
			[ -n "$kib" ] || continue
			awk -F'\t' -v c="$cond" -v t="$tool" -v kib="$kib" -v ktr="$ktr" '
				$1 == "cut." c ".kept" && $2 == t {
					printf "cut.%s.permib\t%s\t%.0f\n", c, t, $3 * 1024 / kib }
				$1 == "cut." c ".kept" && $2 == "vs" t && ktr > 0 {
					printf "cut.%s.permib\tvs%s\t%.3f\n", c, t, $3 * kib / ktr }' \
				"$RAW" > "$W/permib.tsv"
			cat "$W/permib.tsv" >> "$RAW"
		done
	done
fi

# ======================================================================
# 2. Back-to-back triggers: bench/trigseq fires two triggers GAP apart.
# ======================================================================
b2b_one() { # gap_ms run tool
	quiet_wait
	local d=$W/b2b-$1-$2-$3 files f s1 s2 c newest own1=0 own2=0 after=0 hist=""
	mkdir -p "$d"
	local wl=("$BIN/trigseq" -p 50000 -k 2 -g $(($1 * 1000)) -a 30000)
	if [ "$3" = trigrec ]; then
		trigrec_tp "$d" $((1 << 20)) -q -e $GETPGID -e $GETSID --trigger $GETSID \
			--no-final-snapshot -- "${wl[@]}"
		files=$(ls "$d"/*.data 2>/dev/null)
	else
		perf_tp "$d" $((1 << 20)) --switch-output-event $GETSID -e $GETPGID -e $GETSID -- "${wl[@]}"
		files=$(ls "$d"/perf.data.* 2>/dev/null | sed '$d') # all but the exit dump
		rec "b2b.$1.dumps" "$3" "$(grep -c 'Dump ' "$d.err")"
	fi
	s1=$(sed -n 's/^trigger=1 seq=\([0-9]*\).*/\1/p' "$d.out")
	s2=$(sed -n 's/^trigger=2 seq=\([0-9]*\).*/\1/p' "$d.out")
	[ -n "$s1" ] && [ -n "$s2" ] || return
	rec "b2b.$1.between" "$3" $((s2 - s1))
	# shellcheck disable=SC2086 # $files: one file name per word
	rec "b2b.$1.snaps" "$3" "$(printf '%s\n' $files | grep -c .)"
	for f in $files; do
		c=$(counts "$f")
		newest=$(kv newest "$c")
		if [ "$newest" = "$s1" ] && [ $own1 = 0 ]; then
			own1=1
			after=$((after + $(kv post "$c")))
		elif [ "$newest" = "$s2" ] && [ $own2 = 0 ]; then
			own2=1
			c=$(counts "$f" "$s2" "$s1")
			after=$((after + $(kv post "$c")))
			hist=$(kv contig "$c")
		fi
	done
	rec "b2b.$1.own" "$3" $((own1 + own2))
	rec "b2b.$1.after" "$3" "$after"
	rec "b2b.$1.hist2" "$3" "${hist:-0}"
}
if want 2; then
	for gap in 2 20 200; do
		say "2. back-to-back triggers ${gap} ms apart: $B2B_RUNS runs x (trigrec, perf)"
		for r in $(seq "$B2B_RUNS"); do
			if [ $((r % 2)) = 1 ]; then order="trigrec perf"; else order="perf trigrec"; fi
			for tool in $order; do
				b2b_one "$gap" "$r" "$tool"
			done
		done
	done
fi

# ======================================================================
# 3. Recording overhead: CPU time per operation of two workloads, alone
#    and under each recorder (same events, 1 MiB ring per CPU, a trigger
#    that never fires). "trigrec" = the default (tracepoints written by BPF
#    into ring sets), "tgperf" = trigrec --rings perf (perf writes, gates
#    freeze), "nogate" = trigrec's perf events without BPF, "nofp" =
#    trigrec --no-fast-paths (ring sets, every record copied by tp_rec).
# ======================================================================
# shellcheck disable=SC2317 # called through measure_round
ovh_one() { # workload variant run -> CPU ns/op
	local work=$1 v=$2 d=$W/ovh-$1-$2-$3 ev cmd key
	mkdir -p "$d"
	if [ "$work" = syscall ]; then
		ev="$GETPGID syscalls:sys_exit_getpgid"
		cmd=("$BIN/syscall_loop" -n 200000 -c "$LASTCPU")
		key=cpu_ns_per_op
	else
		ev="sched:sched_switch sched:sched_wakeup"
		cmd=("$BIN/ctxsw" -n 40000 -c "$LASTCPU")
		key=cpu_ns_per_switch
	fi
	local eargs=() e
	for e in $ev; do eargs+=(-e "$e"); done
	case $v in
	base) "${cmd[@]}" > "$d.out" 2> "$d.err" ;;
	# ftrace's own instance, as docs/benchmarks.md measures it: the same events
	# for the whole system, 1 MiB per CPU, and a traceoff trigger that never
	# fires (the others' idle trigger).
	ftrace)
		# shellcheck disable=SC2086 # $ev: a word list
		ft_new 1024 $ev && ft_set events/syscalls/sys_enter_vhangup/trigger traceoff || return
		ft_run "${cmd[@]}" > "$d.out" 2> "$d.err"
		ft_rm ;;
	perf) perf_tp "$d" $((1 << 20)) --switch-output-event "$NEVER" "${eargs[@]}" -- "${cmd[@]}" ;;
	trigrec) trigrec_tp "$d" $((1 << 20)) -q "${eargs[@]}" --trigger "$NEVER" --no-final-snapshot \
		-- "${cmd[@]}" ;;
	tgperf) TRIGREC_RINGS=perf trigrec_tp "$d" $((1 << 20)) -q "${eargs[@]}" --trigger "$NEVER" \
		--no-final-snapshot -- "${cmd[@]}" ;;
	nofp) trigrec_tp "$d" $((1 << 20)) -q "${eargs[@]}" --trigger "$NEVER" --no-final-snapshot \
		--no-fast-paths -- "${cmd[@]}" ;;
	nogate)
		if [ "$HAVE_NO_GATES" = 1 ]; then
			trigrec_tp "$d" $((1 << 20)) -q "${eargs[@]}" --trigger "$NEVER" --no-final-snapshot \
				--no-gates -- "${cmd[@]}"
		else
			"$BIN/ringonly" "${eargs[@]}" -m $((1 << 20)) -- "${cmd[@]}" > "$d.out" 2> "$d.err"
		fi ;;
	esac
	outval "$d.out" "$key"
}
OVH_VARIANTS="base ftrace perf trigrec tgperf nogate"
[ $FTRACE = 1 ] || OVH_VARIANTS="base perf trigrec tgperf nogate"
# trigrec --no-fast-paths: every tracepoint through tp_rec's copy (the fast
# paths' saving is trigrec's figure against this one).
"$TRIGREC" record -h 2> /dev/null | grep -q -- --no-fast-paths && OVH_VARIANTS="$OVH_VARIANTS nofp"
# Without the gates: trigrec --no-gates where it exists, else bench/ringonly
# (trigrec's perf events and rings, no BPF at all).
HAVE_NO_GATES=0
"$TRIGREC" record -h 2> /dev/null | grep -q -- --no-gates && HAVE_NO_GATES=1
# measure_round ROUND KEY "VARIANTS" CMD...: one round of a cost row. Runs
# `CMD... VARIANT ROUND` for each variant, on a quiet machine, in an order
# rotated by ROUND so that drift in the machine's load spreads evenly;
# each figure goes into the caller's ns[VARIANT] and the raw file as KEY.
measure_round() {
	local r=$1 key=$2 v k
	local -a rot
	read -r -a rot <<<"$3"
	shift 3
	k=$(((r - 1) % ${#rot[@]}))
	rot=("${rot[@]:k}" "${rot[@]:0:k}")
	for v in "${rot[@]}"; do
		quiet_wait
		ns[$v]=$("$@" "$v" "$r")
		[ -n "${ns[$v]}" ] && rec "$key" "$v" "${ns[$v]}"
	done
}
if want 3; then
	for wl in syscall ctxsw; do
		say "3. recording overhead, $wl workload: $ROUNDS rounds x ($OVH_VARIANTS)"
		for r in $(seq "$ROUNDS"); do
			declare -A ns=()
			measure_round "$r" "ovh.$wl.ns" "$OVH_VARIANTS" ovh_one "$wl"
			if [ -n "${ns[base]}" ] && [ -n "${ns[perf]}" ]; then
				for v in perf trigrec tgperf nogate nofp; do
					[ -n "${ns[$v]}" ] || continue
					rec "ovh.$wl.slow" $v "$(calc "${ns[$v]} / ${ns[base]}" 4)"
					rec "ovh.$wl.added" $v "$(calc "${ns[$v]} - ${ns[base]}" 1)"
				done
				added_perf=$(calc "${ns[perf]} - ${ns[base]}" 3)
				if awk "BEGIN { exit !($added_perf > 0) }"; then
					for v in trigrec tgperf nogate nofp; do
						[ -n "${ns[$v]}" ] &&
							rec "ovh.$wl.vsperf" $v "$(calc "(${ns[$v]} - ${ns[base]}) / $added_perf" 3)"
					done
				fi
				[ -n "${ns[trigrec]}" ] && [ -n "${ns[nogate]}" ] &&
					rec "ovh.$wl.gate" trigrec "$(calc "${ns[trigrec]} - ${ns[nogate]}" 1)"
			fi
			if [ -n "${ns[base]}" ] && [ -n "${ns[ftrace]:-}" ]; then
				rec "ovh.$wl.added" ftrace "$(calc "${ns[ftrace]} - ${ns[base]}" 1)"
				added_ft=$(calc "${ns[ftrace]} - ${ns[base]}" 3)
				if awk "BEGIN { exit !($added_ft > 0) }"; then
					for v in trigrec tgperf nogate nofp perf; do
						[ -n "${ns[$v]:-}" ] &&
							rec "ovh.$wl.vsft" $v "$(calc "(${ns[$v]} - ${ns[base]}) / $added_ft" 3)"
					done
				fi
			fi
			unset ns
		done
	done
fi

# ======================================================================
# 3f. The floor: row 3's getpgid loop under base, ftrace and trigrec (as
#     row 3 runs them) and under bench/floor's programs: cnop/crec, a
#     classic sys_enter/exit_getpgid pair doing nothing / writing a
#     24-byte record into a BPF-written array ring; bnop/brec, the same
#     from tp_btf/sys_enter+sys_exit (syscall number tested first);
#     bother, brec recording getppid while the loop calls getpgid. What
#     the kernel's dispatch into BPF costs beside ftrace's whole record.
#     In the default ROWS: about 5 s a round (23 s at RUNS=3); ROWS=3f
#     runs it alone.
# ======================================================================
FLOOR_VARIANTS="base ftrace trigrec cnop crec bnop brec bother"
[ $FTRACE = 1 ] || FLOOR_VARIANTS=${FLOOR_VARIANTS/ ftrace/}
FLOOR_N=200000
# syscall_loop warms up with N/20 calls first: two records for each call.
FLOOR_RECS=$((2 * (FLOOR_N + FLOOR_N / 20)))
# The programs record system-wide, as ftrace and trigrec do: other
# processes' getpgid (bash calls it at start) or getppid add a few.
FLOOR_SLACK=${FLOOR_SLACK:-200}
FLOOR_BAD=""
# shellcheck disable=SC2317 # called through measure_round
floor_one() { # variant run -> CPU ns/op, nothing if its record count is wrong
	local v=$1 d=$W/floor-$1-$2 n runs want=$FLOOR_RECS
	local cmd=("$BIN/syscall_loop" -n "$FLOOR_N" -c "$LASTCPU")
	case $v in
	base | ftrace | trigrec) ovh_one syscall "$v" "f$2"; return ;;
	esac
	"$BIN/floor" "$v" -- "${cmd[@]}" > "$d.out" 2> "$d.err"
	n=$(outval "$d.out" records)
	runs=$(outval "$d.out" check_runs)
	case $v in cnop | bnop | bother) want=0 ;; esac
	if [ -z "$n" ] || [ "$n" -lt "$want" ] || [ "$n" -gt $((want + FLOOR_SLACK)) ] ||
		[ -z "$runs" ] || [ "$runs" -lt 1000 ]; then
		echo "bench: row 3f: $v wrote ${n:-no} records (want $want, at most $FLOOR_SLACK more from other processes) and ran ${runs:-no} times over 1000 getpgid (want >= 1000): $(tail -1 "$d.err")" >&2
		return
	fi
	rec floor.extra "$v" $((n - want))
	outval "$d.out" cpu_ns_per_op
}
if want 3f; then
	say "3f. the floor, getpgid: $ROUNDS rounds x ($FLOOR_VARIANTS)"
	for r in $(seq "$ROUNDS"); do
		declare -A ns=()
		measure_round "$r" floor.ns "$FLOOR_VARIANTS" floor_one
		# shellcheck disable=SC2086 # the variants are a word list
		set -- $FLOOR_VARIANTS
		# floor_one ran in a subshell: its verdict is in the log.
		for v in "$@"; do
			[ -n "${ns[$v]}" ] || FLOOR_BAD="$FLOOR_BAD $v"
		done
		[ -n "${ns[base]}" ] || { unset ns; continue; }
		for v in "$@"; do
			[ "$v" != base ] && [ -n "${ns[$v]}" ] && rec floor.added "$v" "$(calc "${ns[$v]} - ${ns[base]}" 1)"
		done
		[ -n "${ns[trigrec]:-}" ] && [ -n "${ns[crec]:-}" ] &&
			rec floor.own trigrec "$(calc "${ns[trigrec]} - ${ns[crec]}" 1)"
		if [ -n "${ns[ftrace]:-}" ]; then
			added_ft=$(calc "${ns[ftrace]} - ${ns[base]}" 3)
			if awk "BEGIN { exit !($added_ft > 0) }"; then
				for v in "$@"; do
					case $v in base | ftrace) continue ;; esac
					[ -n "${ns[$v]}" ] && rec floor.vsft "$v" "$(calc "(${ns[$v]} - ${ns[base]}) / $added_ft" 3)"
				done
			fi
		fi
		unset ns
	done
fi

# ======================================================================
# 4. Trigger evaluation cost: getppid in a loop, a condition evaluated on
#    every sys_enter_getppid that never holds.
# ======================================================================
PF='__syscall_nr == 110 && common_pid > 0 && common_type > 0 && common_pid == 1'
TF="syscalls:sys_enter_getppid if $PF"
TL='latency syscalls:sys_enter_getppid -> syscalls:sys_exit_getppid > 10s'
TRIG_ENGINE=1
if want 4; then
	for t in "$TF" "$TL"; do
		if ! "$TRIGREC" -q record -e $GETSID --trigger "$t" --no-final-snapshot -o "$W" -- true \
			> /dev/null 2> "$W/trigger-probe.err"; then
			TRIG_ENGINE=0
		fi
	done
	eval_one() { # variant run -> CPU ns/op
		local v=$1 d=$W/eval-$1-$2
		local cmd=("$BIN/syscall_loop" -s getppid -n 200000 -c "$LASTCPU")
		mkdir -p "$d"
		# obase/other/otherfp: getpgid, a call the trigger does not name (with
		# --syscall-fast-paths tp_btf/sys_enter runs for every system call).
		local ocmd=("$BIN/syscall_loop" -s getpgid -n 200000 -c "$LASTCPU")
		case $v in
		base) "${cmd[@]}" > "$d.out" 2> "$d.err" ;;
		obase) "${ocmd[@]}" > "$d.out" 2> "$d.err" ;;
		perf) perf_tp "$d" $((1 << 20)) -e syscalls:sys_enter_getppid --filter "$PF" -- "${cmd[@]}" ;;
		# ftrace's filter, the same clauses, on sys_enter_getppid enabled in its
		# own instance (1 MiB per CPU, getsid recorded as by the others): the
		# filter never holds, so nothing is written.
		ftrace)
			ft_new 1024 $GETSID syscalls:sys_enter_getppid &&
				ft_set events/syscalls/sys_enter_getppid/filter "$PF" || return
			ft_run "${cmd[@]}" > "$d.out" 2> "$d.err"
			grep -q 'sys_getppid' "$FT/trace" &&
				echo "bench: ftrace: the filter '$PF' let records through" >&2
			ft_rm ;;
		filter) trigrec_tp "$d" $((1 << 20)) -q -e $GETSID --trigger "$TF" --no-final-snapshot -- "${cmd[@]}" ;;
		# fp/otherfp: --syscall-fast-paths, the same trigger tested from
		# tp_btf/sys_enter, which then runs on every system call.
		fp) trigrec_tp "$d" $((1 << 20)) -q -e $GETSID --trigger "$TF" --syscall-fast-paths --no-final-snapshot -- "${cmd[@]}" ;;
		other) trigrec_tp "$d" $((1 << 20)) -q -e $GETSID --trigger "$TF" --no-final-snapshot -- "${ocmd[@]}" ;;
		otherfp) trigrec_tp "$d" $((1 << 20)) -q -e $GETSID --trigger "$TF" --syscall-fast-paths --no-final-snapshot -- "${ocmd[@]}" ;;
		latency) trigrec_tp "$d" $((1 << 20)) -q -e $GETSID --trigger "$TL" --no-final-snapshot -- "${cmd[@]}" ;;
		# The same triggers on events that are recorded anyway: the hook then
		# replaces the gate, and its extra cost is set against recording's.
		rec) trigrec_tp "$d" $((1 << 20)) -q -e $GETSID -e syscalls:sys_enter_getppid \
			--trigger syscalls:sys_enter_vhangup --no-final-snapshot -- "${cmd[@]}" ;;
		recfilter) trigrec_tp "$d" $((1 << 20)) -q -e $GETSID -e syscalls:sys_enter_getppid \
			--trigger "$TF" --no-final-snapshot -- "${cmd[@]}" ;;
		rec2) trigrec_tp "$d" $((1 << 20)) -q -e $GETSID \
			-e syscalls:sys_enter_getppid,syscalls:sys_exit_getppid \
			--trigger syscalls:sys_enter_vhangup --no-final-snapshot -- "${cmd[@]}" ;;
		reclat) trigrec_tp "$d" $((1 << 20)) -q -e $GETSID \
			-e syscalls:sys_enter_getppid,syscalls:sys_exit_getppid \
			--trigger "$TL" --no-final-snapshot -- "${cmd[@]}" ;;
		esac
		outval "$d.out" cpu_ns_per_op
	}
	if [ $TRIG_ENGINE = 1 ]; then
		say "4. trigger evaluation cost: $ROUNDS rounds x (base, ftrace filter, perf filter, trigrec filter, the same --syscall-fast-paths, latency, recorded variants, a call the trigger does not name)"
		for r in $(seq "$ROUNDS"); do
			set -- base ftrace perf filter fp latency rec recfilter rec2 reclat obase other otherfp
			if [ $FTRACE != 1 ]; then shift 2; set -- base "$@"; fi # no ftrace column
			for _ in $(seq $(((r - 1) % $#))); do set -- "$@" "$1"; shift; done
			declare -A ns=()
			for v in "$@"; do
				quiet_wait
				ns[$v]=$(eval_one "$v" "$r")
				[ -n "${ns[$v]}" ] && rec eval.ns "$v" "${ns[$v]}"
			done
			[ -n "${ns[base]}" ] || continue
			[ -n "${ns[perf]}" ] && rec eval.filter perf "$(calc "${ns[perf]} - ${ns[base]}" 1)"
			if [ -n "${ns[ftrace]:-}" ]; then
				rec eval.filter ftrace "$(calc "${ns[ftrace]} - ${ns[base]}" 1)"
				if awk "BEGIN { exit !(${ns[ftrace]} - ${ns[base]} > 0) }"; then
					for v in filter fp perf; do
						[ -n "${ns[$v]}" ] && rec eval.vsft "$v" \
							"$(calc "(${ns[$v]} - ${ns[base]}) / (${ns[ftrace]} - ${ns[base]})" 3)"
					done
				fi
			fi
			[ -n "${ns[filter]}" ] && rec eval.filter trigrec "$(calc "${ns[filter]} - ${ns[base]}" 1)"
			[ -n "${ns[fp]}" ] && rec eval.filter fp "$(calc "${ns[fp]} - ${ns[base]}" 1)"
			if [ -n "${ns[perf]}" ] && [ -n "${ns[fp]}" ] &&
				awk "BEGIN { exit !(${ns[perf]} - ${ns[base]} > 0) }"; then
				rec eval.filter fpratio "$(calc "(${ns[fp]} - ${ns[base]}) / (${ns[perf]} - ${ns[base]})" 3)"
			fi
			if [ -n "${ns[obase]}" ]; then
				[ -n "${ns[other]}" ] && rec eval.other trigrec "$(calc "${ns[other]} - ${ns[obase]}" 1)"
				[ -n "${ns[otherfp]}" ] && rec eval.other fp "$(calc "${ns[otherfp]} - ${ns[obase]}" 1)"
			fi
			# Two evaluated events per getppid: the start (enter) and the end (exit).
			[ -n "${ns[latency]}" ] && rec eval.latency trigrec "$(calc "(${ns[latency]} - ${ns[base]}) / 2" 1)"
			if [ -n "${ns[perf]}" ] && [ -n "${ns[filter]}" ] &&
				awk "BEGIN { exit !(${ns[perf]} - ${ns[base]} > 0) }"; then
				rec eval.filter ratio "$(calc "(${ns[filter]} - ${ns[base]}) / (${ns[perf]} - ${ns[base]})" 3)"
			fi
			if [ -n "${ns[rec]}" ] && [ -n "${ns[recfilter]}" ] &&
				awk "BEGIN { exit !(${ns[rec]} - ${ns[base]} > 0) }"; then
				rec eval.recfilter added "$(calc "${ns[recfilter]} - ${ns[rec]}" 1)"
				rec eval.recfilter record "$(calc "${ns[rec]} - ${ns[base]}" 1)"
				rec eval.recfilter ratio "$(calc "(${ns[recfilter]} - ${ns[rec]}) / (${ns[rec]} - ${ns[base]})" 3)"
			fi
			if [ -n "${ns[rec2]}" ] && [ -n "${ns[reclat]}" ] &&
				awk "BEGIN { exit !(${ns[rec2]} - ${ns[base]} > 0) }"; then
				rec eval.reclat added "$(calc "(${ns[reclat]} - ${ns[rec2]}) / 2" 1)"
				rec eval.reclat record "$(calc "(${ns[rec2]} - ${ns[base]}) / 2" 1)"
				rec eval.reclat ratio "$(calc "(${ns[reclat]} - ${ns[rec2]}) / (${ns[rec2]} - ${ns[base]})" 3)"
			fi
			unset ns
		done
	else
		say "4. trigger evaluation cost: skipped, this trigrec does not accept filter/latency triggers"
	fi
fi

# ======================================================================
# 4l. Learned against fixed latency thresholds (issue 29): getppid in a
#     loop, enter -> exit by tid, never firing: a fixed `> 10s` (task
#     storage), the same `> p99.9 * 1000` learned per key (`by tid`: the
#     key's histogram in the learn_hist LRU and all keys' in the learn_all
#     array, both updated on every span) and without `by` (one histogram,
#     learn_all's). ROWS=4l runs it alone (row 4 runs it too).
# ======================================================================
TLF='latency syscalls:sys_enter_getppid by tid -> syscalls:sys_exit_getppid by tid > 10s'
TLK='latency syscalls:sys_enter_getppid by tid -> syscalls:sys_exit_getppid by tid > p99.9 * 1000'
TLA='latency syscalls:sys_enter_getppid -> syscalls:sys_exit_getppid > p99.9 * 1000'
if want 4 || want 4l; then
	LEARN_ENGINE=1
	"$TRIGREC" -q record -e $GETSID --trigger "$TLK" --no-final-snapshot -o "$W" -- true \
		> /dev/null 2> "$W/learn-probe.err" || LEARN_ENGINE=0
	learn_one() { # variant round -> CPU ns/op
		local d=$W/learn-$1-$2 t
		local cmd=("$BIN/syscall_loop" -s getppid -n 200000 -c "$LASTCPU")
		mkdir -p "$d"
		case $1 in
		base) "${cmd[@]}" > "$d.out" 2> "$d.err"; outval "$d.out" cpu_ns_per_op; return ;;
		fixed) t=$TLF ;;
		learned) t=$TLK ;;
		learnall) t=$TLA ;;
		esac
		trigrec_tp "$d" $((1 << 20)) -q -e $GETSID --trigger "$t" --no-final-snapshot -- "${cmd[@]}"
		outval "$d.out" cpu_ns_per_op
	}
	if [ "$LEARN_ENGINE" = 1 ]; then
		say "4l. learned vs fixed latency threshold: $ROUNDS rounds x (base, fixed, learned by tid, learned for all)"
		for r in $(seq "$ROUNDS"); do
			set -- base fixed learned learnall
			for _ in $(seq $(((r - 1) % $#))); do set -- "$@" "$1"; shift; done
			declare -A ln=()
			for v in "$@"; do
				quiet_wait
				ln[$v]=$(learn_one "$v" "$r")
				[ -n "${ln[$v]}" ] && rec learn.ns "$v" "${ln[$v]}"
			done
			if [ -z "${ln[base]}" ] || [ -z "${ln[fixed]}" ]; then
				unset ln
				continue
			fi
			# Two evaluated events per getppid: the start (enter) and the end (exit).
			rec learn.eval fixed "$(calc "(${ln[fixed]} - ${ln[base]}) / 2" 1)"
			for v in learned learnall; do
				[ -n "${ln[$v]}" ] || continue
				rec learn.eval "$v" "$(calc "(${ln[$v]} - ${ln[base]}) / 2" 1)"
				awk "BEGIN { exit !(${ln[fixed]} - ${ln[base]} > 0) }" &&
					rec learn.ratio "$v" "$(calc "(${ln[$v]} - ${ln[base]}) / (${ln[fixed]} - ${ln[base]})" 3)"
			done
			unset ln
		done
	else
		say "4l. learned thresholds: skipped, this trigrec does not accept '> p99.9'"
	fi
fi

# ======================================================================
# 4b. Rate baseline against a fixed rate (issue 29): getppid in a loop,
#     `rate sys_enter_getppid by pid` never firing, 10 ms windows (about 30
#     close in a run, so the baseline is learned from and its threshold
#     recomputed): a fixed `> 1000000000/10ms` and a learned `> 1000x
#     baseline per 10ms`. One evaluated event per getppid. ROWS=4b runs it
#     alone (row 4 runs it too).
# ======================================================================
TRF='rate syscalls:sys_enter_getppid by pid > 1000000000/10ms'
TRB='rate syscalls:sys_enter_getppid by pid > 1000x baseline per 10ms'
if want 4 || want 4b; then
	BASE_ENGINE=1
	"$TRIGREC" -q record -e $GETSID --trigger "$TRB" --no-final-snapshot -o "$W" -- true \
		> /dev/null 2> "$W/baseline-probe.err" || BASE_ENGINE=0
	rbase_one() { # variant round -> CPU ns/op
		local d=$W/rbase-$1-$2 t
		local cmd=("$BIN/syscall_loop" -s getppid -n 200000 -c "$LASTCPU")
		mkdir -p "$d"
		case $1 in
		base) "${cmd[@]}" > "$d.out" 2> "$d.err"; outval "$d.out" cpu_ns_per_op; return ;;
		fixed) t=$TRF ;;
		learned) t=$TRB ;;
		esac
		trigrec_tp "$d" $((1 << 20)) -q -e $GETSID --trigger "$t" --no-final-snapshot -- "${cmd[@]}"
		outval "$d.out" cpu_ns_per_op
	}
	if [ "$BASE_ENGINE" = 1 ]; then
		say "4b. rate baseline vs fixed rate: $ROUNDS rounds x (base, fixed, baseline)"
		for r in $(seq "$ROUNDS"); do
			set -- base fixed learned
			for _ in $(seq $(((r - 1) % $#))); do set -- "$@" "$1"; shift; done
			declare -A rb=()
			for v in "$@"; do
				quiet_wait
				rb[$v]=$(rbase_one "$v" "$r")
				[ -n "${rb[$v]}" ] && rec rbase.ns "$v" "${rb[$v]}"
			done
			if [ -z "${rb[base]}" ] || [ -z "${rb[fixed]}" ] || [ -z "${rb[learned]}" ]; then
				unset rb
				continue
			fi
			rec rbase.eval fixed "$(calc "${rb[fixed]} - ${rb[base]}" 1)"
			rec rbase.eval learned "$(calc "${rb[learned]} - ${rb[base]}" 1)"
			awk "BEGIN { exit !(${rb[fixed]} - ${rb[base]} > 0) }" &&
				rec rbase.ratio learned "$(calc "(${rb[learned]} - ${rb[base]}) / (${rb[fixed]} - ${rb[base]})" 3)"
			unset rb
		done
	else
		say "4b. rate baselines: skipped, this trigrec does not accept '> Nx baseline'"
	fi
fi

# ======================================================================
# 4s. str() evaluation cost: faccessat(AT_FDCWD, 40-byte path) in a loop,
#     a condition on sys_enter_faccessat that never holds: one integer
#     clause (the baseline of a trigger on the event), str(filename) with a
#     prefix glob (the user-memory read plus a short compare), and with a
#     middle glob (the read plus the longest compare). ROWS=4s runs it alone;
#     STR_N syscalls per run (default 200000).
# ======================================================================
TSI='syscalls:sys_enter_faccessat if dfd == 1'
TSP='syscalls:sys_enter_faccessat if str(filename) ~ "/tmp/nomatch*"'
TSM='syscalls:sys_enter_faccessat if str(filename) ~ "*nomatch*"'
# Keys: a rate that never fires, keyed by an integer or by the text.
TKI='rate syscalls:sys_enter_faccessat by pid > 1000000000/1s'
TKS='rate syscalls:sys_enter_faccessat by str(filename) > 1000000000/1s'
STR_ENGINE=1
if want 4 || want 4s; then
	"$TRIGREC" -q record -e $GETSID --trigger "$TSP" --no-final-snapshot -o "$W" -- true \
		> /dev/null 2> "$W/str-probe.err" || STR_ENGINE=0
	str_one() { # variant run -> CPU ns/op
		local v=$1 d=$W/str-$1-$2 t
		local cmd=("$BIN/syscall_loop" -s faccessat -n "${STR_N:-200000}" -c "$LASTCPU")
		mkdir -p "$d"
		case $v in
		base) "${cmd[@]}" > "$d.out" 2> "$d.err" ;;
		int | pre | mid | kint | kstr)
			case $v in int) t=$TSI ;; pre) t=$TSP ;; mid) t=$TSM ;; kint) t=$TKI ;; kstr) t=$TKS ;; esac
			trigrec_tp "$d" $((1 << 20)) -q -e $GETSID --trigger "$t" --no-final-snapshot -- "${cmd[@]}" ;;
		esac
		outval "$d.out" cpu_ns_per_op
	}
	if [ $STR_ENGINE = 1 ]; then
		say "4s. str() evaluation cost: $ROUNDS rounds x (base, integer filter, str() prefix, str() middle, rate by pid, rate by str())"
		for r in $(seq "$ROUNDS"); do
			set -- base int pre mid kint kstr
			for _ in $(seq $(((r - 1) % 6))); do set -- "$@" "$1"; shift; done
			declare -A ns=()
			for v in "$@"; do
				quiet_wait
				ns[$v]=$(str_one "$v" "$r")
				[ -n "${ns[$v]}" ] && rec str.ns "$v" "${ns[$v]}"
			done
			if [ -n "${ns[int]}" ]; then
				[ -n "${ns[pre]}" ] && rec str.added pre "$(calc "${ns[pre]} - ${ns[int]}" 1)"
				[ -n "${ns[mid]}" ] && rec str.added mid "$(calc "${ns[mid]} - ${ns[int]}" 1)"
			fi
			[ -n "${ns[kint]}" ] && [ -n "${ns[kstr]}" ] &&
				rec str.added key "$(calc "${ns[kstr]} - ${ns[kint]}" 1)"
			[ -n "${ns[base]}" ] && [ -n "${ns[pre]}" ] &&
				rec str.whole pre "$(calc "${ns[pre]} - ${ns[base]}" 1)"
			[ -n "${ns[base]}" ] && [ -n "${ns[int]}" ] &&
				rec str.whole int "$(calc "${ns[int]} - ${ns[base]}" 1)"
			unset ns
		done
	else
		say "4s. str() evaluation cost: skipped, this trigrec does not accept str() ($(head -c 200 "$W/str-probe.err"))"
	fi
fi

# ======================================================================
# 5. Freeze-to-resume and trigger-to-file against the memory-copy bound:
#    every CPU fills its ring (trigseq -j NCPU), then two triggers 300 ms
#    apart (the first snapshot of a run and a later one).
# ======================================================================
SIZES="256K 1M 4M"
bytes_of() { case $1 in *K) echo $((${1%K} * 1024)) ;; *M) echo $((${1%M} * 1048576)) ;; esac; }
watch_start() { # DIR -> WPID; lines "<realtime ns> <name>" in DIR.watch
	"$BIN/dirwatch" "$1" > "$1.watch" 2> /dev/null &
	WPID=$!
	for _ in $(seq 100); do
		grep -q ready "$1.watch" 2> /dev/null && return
		sleep 0.01
	done
}
watch_stop() { kill "$WPID" 2> /dev/null; wait "$WPID" 2> /dev/null; }
# t2f DIR REAL_NS PATTERN [SKIPLAST] -> ns from REAL_NS to the first file
# matching PATTERN published after it (SKIPLAST=1: never the last one, perf's exit dump)
t2f() {
	awk -v t="$2" -v pat="$3" -v skip="${4:-0}" '
		$2 ~ pat { n++; tm[n] = $1 }
		END { if (skip) n--; for (i = 1; i <= n; i++) if (tm[i] > t) { print tm[i] - t; exit } }' "$1.watch"
}
size_one() { # size run tool
	quiet_wait
	local d=$W/size-$1-$2-$3 ring j k real which v
	ring=$(bytes_of "$1")
	mkdir -p "$d"
	local wl=("$BIN/trigseq" -j "$NCPU" -p 200000 -k 2 -g 300000 -a 50000)
	watch_start "$d"
	if [ "$3" = trigrec ]; then
		trigrec_tp "$d" "$ring" -q -e $GETPGID -e $GETSID --trigger $GETSID --no-final-snapshot \
			-- "${wl[@]}"
	else
		perf_tp "$d" "$ring" --switch-output-event $GETSID -e $GETPGID -e $GETSID -- "${wl[@]}"
	fi
	watch_stop
	for k in 1 2; do
		which=first
		[ $k = 2 ] && which=later
		real=$(sed -n "s/^trigger=$k seq=.* real_ns=\([0-9]*\).*/\1/p" "$d.out")
		if [ -n "$real" ]; then
			if [ "$3" = trigrec ]; then v=$(t2f "$d" "$real" '\.data$'); else v=$(t2f "$d" "$real" '^perf\.data\.' 1); fi
			[ -n "$v" ] && rec "size.$1.t2f.$which" "$3" "$v"
		fi
	done
	[ "$3" = trigrec ] || return
	k=0
	for j in "$d"/*.json; do # sorted: trigger order
		[ -e "$j" ] || continue
		k=$((k + 1))
		[ $k -le 2 ] || break
		which=first
		[ $k = 2 ] && which=later
		rec "size.$1.f2r.$which" trigrec "$(jget "$j" freeze_to_resume_ns)"
		rec "size.$1.p2r.$which" trigrec "$(jget "$j" pause_to_resume_ns)"
		rec "size.$1.wake.$which" trigrec "$(jget "$j" trigger_to_wake_ns)"
		rec "size.$1.r2f.$which" trigrec "$(jget "$j" resume_to_file_ns)"
	done
}
if want 5; then
	say "5. memory-copy bound: $RUNS runs of memcpy_bw (all rings of a snapshot: NCPU x (ring + 64 KiB))"
	for r in $(seq "$RUNS"); do
		args=""
		for sz in $SIZES; do args="$args $((($(bytes_of "$sz") + 65536) * NCPU))"; done
		# shellcheck disable=SC2086 # $args: one size per word
		"$BIN/memcpy_bw" $args > "$W/memcpy-$r.out"
		for sz in $SIZES; do
			line=$(grep "^size=$((($(bytes_of "$sz") + 65536) * NCPU)) " "$W/memcpy-$r.out")
			rec "size.$sz.memhot" bound "$(kv hot_ns "$line")"
			rec "size.$sz.memcold" bound "$(kv cold_ns "$line")"
		done
	done
	for sz in $SIZES; do
		say "5. snapshot timing, $sz ring per CPU: $RUNS runs x (trigrec, perf)"
		for r in $(seq "$RUNS"); do
			if [ $((r % 2)) = 1 ]; then order="trigrec perf"; else order="perf trigrec"; fi
			for tool in $order; do
				size_one "$sz" "$r" "$tool"
			done
		done
		rm -rf "$W"/size-"$sz"-* # up to 8 MiB per snapshot: do not keep them
	done
fi

# ======================================================================
# 6. Idle cost: both recorders system-wide on the same events for
#    IDLE_SECS; wake-ups (context switches of all threads) and CPU time.
# 7. Memory: RSS with rings of each size, before and after a snapshot.
# ======================================================================
proc_cs() { # all threads' voluntary + nonvoluntary context switches
	cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ { s += $2 } END { print s + 0 }'
}
proc_ticks() { awk '{ print $14 + $15 }' /proc/"$1"/stat 2>/dev/null; }
proc_kb() { awk -v k="$2:" '$1 == k { print $2 }' /proc/"$1"/status 2>/dev/null; }
IDLE_EV=(-e sched:sched_switch -e sched:sched_wakeup)
start_pair() { # ring_bytes dir -> sets TPID PPID_
	local ring=$1 d=$2
	mkdir -p "$d/t" "$d/p"
	"$TRIGREC" -q record -a "${IDLE_EV[@]}" --trigger "$NEVER" -m "$((ring / 1024))K" --no-final-snapshot \
		-o "$d/t" > "$d/t.out" 2> "$d/t.err" &
	TPID=$!
	"$PERF" record --overwrite -a "${IDLE_EV[@]}" --switch-output-event "$NEVER" -m $((ring / 4096)) -k mono \
		--no-bpf-event -o "$d/p/perf.data" > "$d/p.out" 2> "$d/p.err" &
	PPID_=$!
	BG_PIDS="$BG_PIDS $TPID $PPID_"
}
stop_pair() {
	kill -INT "$TPID" "$PPID_" 2>/dev/null
	wait "$TPID" "$PPID_" 2>/dev/null
}
if want 6; then
	say "6. idle cost: trigrec and perf side by side, system-wide, ${IDLE_SECS} s"
	quiet_wait
	start_pair $((1 << 20)) "$W/idle"
	sleep 3
	for p in $TPID $PPID_; do
		eval "cs0_$p=$(proc_cs "$p") tk0_$p=$(proc_ticks "$p")"
	done
	sleep "$IDLE_SECS"
	for tool in trigrec perf; do
		if [ $tool = trigrec ]; then p=$TPID; else p=$PPID_; fi
		eval "cs0=\$cs0_$p tk0=\$tk0_$p"
		cs1=$(proc_cs $p)
		tk1=$(proc_ticks $p)
		if [ -n "$cs1" ] && [ -n "$tk1" ]; then
			# shellcheck disable=SC2154 # cs0 and tk0 are set by the eval above
			rec idle.wakeups $tool "$(calc "($cs1 - $cs0) / $IDLE_SECS" 2)"
			# shellcheck disable=SC2154
			rec idle.cpu_ms $tool "$(calc "($tk1 - $tk0) * 1000 / $HZ" 0)"
		fi
	done
	stop_pair
fi

if want 7; then
	for sz in $SIZES; do
		say "7. memory, $sz ring per CPU: RSS before and after a snapshot"
		d=$W/mem-$sz
		quiet_wait
		start_pair "$(bytes_of "$sz")" "$d"
		sleep 2
		for tool in trigrec perf; do
			if [ $tool = trigrec ]; then p=$TPID; else p=$PPID_; fi
			rec "mem.$sz.rss0" $tool "$(proc_kb $p VmRSS)"
		done
		# Fill every ring (context switches on every CPU), then snapshot: SIGUSR2
		# is a manual snapshot for trigrec and an output switch for perf.
		"$BIN/ctxsw" -n 100000 -c -1 > /dev/null
		kill -USR2 "$TPID" "$PPID_" 2>/dev/null
		sleep 2
		for tool in trigrec perf; do
			if [ $tool = trigrec ]; then p=$TPID; else p=$PPID_; fi
			rec "mem.$sz.rss1" $tool "$(proc_kb $p VmRSS)"
		done
		stop_pair
		rm -rf "$d"
	done
fi

# ======================================================================
# 8. Compression: trigrec -z against perf record -z, on the same data.
#    Four recorders side by side, system-wide, same events and ring size:
#    trigrec and perf, each plain and with -z (zstd level 1). The same
#    context-switch workload fills every ring, then SIGUSR2 makes each one
#    write. Ratio: what the COMPRESSED records decompress to over their
#    size, headers included (perf's own definition; bench/zsize reads both
#    files the same way). Cost: CPU time of all the recorder's threads
#    (/proc/PID/task/*/schedstat) from the signal to the written file, with
#    -z minus without, per MiB compressed; for trigrec also the time inside
#    zstd alone (the sidecar's compression.time_ns).
# ======================================================================
proc_cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
ZRING=${ZRING:-$((4 << 20))}
ZSIZE=$BIN/zsize
if want 8 && [ ! -x "$ZSIZE" ]; then
	echo "bench: $ZSIZE not built (make bench): row 8 left out" >&2
elif want 8; then
	say "8. compression: trigrec -z and perf record -z side by side, $((ZRING >> 20)) MiB/CPU, $RUNS runs"
	for r in $(seq "$RUNS"); do
		d=$W/z-$r
		quiet_wait
		declare -A ZP=() ZC0=() ZC1=()
		for v in t tz p pz; do
			mkdir -p "$d/$v"
			z=""
			case $v in *z) z=-z ;; esac
			case $v in
			t*) "$TRIGREC" -q record -a "${IDLE_EV[@]}" --trigger "$NEVER" -m "$((ZRING / 1024))K" \
				--no-final-snapshot $z -o "$d/$v" > "$d/$v.out" 2> "$d/$v.err" & ;;
			p*) "$PERF" record --overwrite -a "${IDLE_EV[@]}" --switch-output-event "$NEVER" \
				-m $((ZRING / PAGESIZE)) -k mono --no-bpf-event $z -o "$d/$v/perf.data" \
				> "$d/$v.out" 2> "$d/$v.err" & ;;
			esac
			ZP[$v]=$!
			BG_PIDS="$BG_PIDS $!"
		done
		sleep 3
		"$BIN/ctxsw" -n 300000 -c -1 > /dev/null
		for v in t tz p pz; do ZC0[$v]=$(proc_cpu_ns "${ZP[$v]}"); done
		kill -USR2 "${ZP[t]}" "${ZP[tz]}" "${ZP[p]}" "${ZP[pz]}" 2>/dev/null
		for _ in $(seq 100); do
			n=0
			for v in t tz; do ls "$d/$v"/*.json > /dev/null 2>&1 && n=$((n + 1)); done
			for v in p pz; do ls "$d/$v"/perf.data.[0-9]* > /dev/null 2>&1 && n=$((n + 1)); done
			[ $n = 4 ] && break
			sleep 0.1
		done
		sleep 0.5
		for v in t tz p pz; do ZC1[$v]=$(proc_cpu_ns "${ZP[$v]}"); done
		kill -INT "${ZP[t]}" "${ZP[tz]}" "${ZP[p]}" "${ZP[pz]}" 2>/dev/null
		wait "${ZP[t]}" "${ZP[tz]}" "${ZP[p]}" "${ZP[pz]}" 2>/dev/null
		for tool in trigrec perf; do
			if [ $tool = trigrec ]; then
				zf=$(ls "$d/tz"/*.data 2>/dev/null | head -1)
				v=t
			else
				zf=$(ls "$d/pz"/perf.data.[0-9]* 2>/dev/null | head -1)
				v=p
			fi
			[ -n "$zf" ] || continue
			line=$("$ZSIZE" "$zf") || continue
			comp=$(kv comp_bytes "$line")
			orig=$(kv orig_bytes "$line")
			[ "${comp:-0}" -gt 0 ] || continue
			rec z.ratio $tool "$(calc "$orig / $comp" 3)"
			# the two tools lay samples out differently (perf adds IP, PERIOD...): per event too
			nev=$("$PERF" script -i "$zf" 2>/dev/null | grep -c .)
			[ "${nev:-0}" -gt 0 ] && rec z.bytes_per_event $tool "$(calc "$comp / $nev" 2)" &&
				rec z.events $tool "$nev"
			rec z.mib $tool "$(calc "$orig / 1048576" 1)"
			# -z minus plain: the CPU time compression added, per MiB
			a1=${ZC1[${v}z]} a0=${ZC0[${v}z]} b1=${ZC1[$v]} b0=${ZC0[$v]}
			added=$(( (a1 - a0) - (b1 - b0) ))
			rec z.ms_per_mib $tool "$(calc "$added / 1e6 / ($orig / 1048576)" 2)"
			if [ $tool = trigrec ]; then
				zns=$(grep -o '"time_ns": [0-9]*' "${zf%.data}.json" | tail -1 | awk '{ print $2 }')
				zin=$(grep -o '"bytes_in": [0-9]*' "${zf%.data}.json" | head -1 | awk '{ print $2 }')
				[ -n "$zns" ] && [ -n "$zin" ] && [ "$zns" -gt 0 ] &&
					rec z.zstd_mibs trigrec "$(calc "($zin / 1048576) / ($zns / 1e9)" 0)"
			fi
		done
		rm -rf "$d"
	done
fi

# ======================================================================
# 9. Dynamic probes: CPU time per uprobe hit, trigrec's uprobe:PATH:SYMBOL
#    against `perf probe -x PATH` + perf record --overwrite on the same
#    function with the same field (i=%di:s64), 1 MiB ring per CPU; and
#    trigrec with a trigger on the probe that never fires (probe_hook
#    rebuilds the record from registers on every hit).
# ======================================================================
PLOOP=$BIN/probe_loop
PROBE_N=${PROBE_N:-200000}
if want 9 && [ ! -x "$PLOOP" ]; then
	echo "bench: $PLOOP not built (make bench): row 9 left out" >&2
elif want 9; then
	PSPEC="uprobe:$PLOOP:probe_loop_fn(i=arg1)"
	probe_one() { # variant run -> CPU ns/call
		local v=$1 d=$W/probe-$1-$2
		local cmd=("$PLOOP" -n "$PROBE_N" -c "$LASTCPU")
		mkdir -p "$d"
		case $v in
		base) "${cmd[@]}" > "$d.out" 2> "$d.err" ;;
		perf)
			"$PERF" probe -q -d 'probe_probe_loop:*' > /dev/null 2>&1
			"$PERF" probe -q -x "$PLOOP" -a 'probe_loop_fn i=%di:s64' > "$d.probe" 2>&1 &&
				perf_tp "$d" $((1 << 20)) -e probe_probe_loop:probe_loop_fn \
					--switch-output-event "$NEVER" -- "${cmd[@]}"
			"$PERF" probe -q -d 'probe_probe_loop:*' > /dev/null 2>&1 ;;
		trigrec) trigrec_tp "$d" $((1 << 20)) -q -e "$PSPEC" --trigger "$NEVER" \
			--no-final-snapshot -- "${cmd[@]}" ;;
		trigger) trigrec_tp "$d" $((1 << 20)) -q -e "$PSPEC" --trigger "$PSPEC if i < 0" \
			--no-final-snapshot -- "${cmd[@]}" ;;
		esac
		outval "$d.out" cpu_ns_per_op
	}
	say "9. dynamic probes: $ROUNDS rounds x (base, perf probe + perf record, trigrec, trigrec with a trigger on the probe)"
	for r in $(seq "$ROUNDS"); do
		set -- base perf trigrec trigger
		for _ in $(seq $(((r - 1) % 4))); do set -- "$@" "$1"; shift; done
		declare -A ns=()
		for v in "$@"; do
			quiet_wait
			ns[$v]=$(probe_one "$v" "$r")
			[ -n "${ns[$v]}" ] && rec probe.ns "$v" "${ns[$v]}"
		done
		if [ -n "${ns[base]}" ]; then
			for v in perf trigrec trigger; do
				[ -n "${ns[$v]}" ] && rec probe.hit "$v" "$(calc "${ns[$v]} - ${ns[base]}" 1)"
			done
			[ -n "${ns[perf]}" ] && [ -n "${ns[trigrec]}" ] &&
				awk "BEGIN { exit !(${ns[perf]} - ${ns[base]} > 0) }" &&
				rec probe.ratio trigrec "$(calc "(${ns[trigrec]} - ${ns[base]}) / (${ns[perf]} - ${ns[base]})" 3)"
		fi
		unset ns
	done
fi

# ======================================================================
# 10. The write path at scale (bench/scale.c): records captured here,
#     replayed into ring copies of simulated 2-64 CPUs (SCALE_CPUS,
#     SCALE_MIBS), written by the real snapshot code. No perf column: perf
#     has no comparable step (it dumps its rings unsorted). Its own table,
#     after the main one. `make bench-scale` runs the long version.
# ======================================================================
SCALE=$BIN/scale
if want 10 && [ ! -x "$SCALE" ]; then
	echo "bench: $SCALE not built (make bench): row 10 left out" >&2
elif want 10; then
	say "10. the snapshot write path at scale: ${SCALE_CPUS:-2,16,64} CPUs x ${SCALE_MIBS:-1,4} MiB, $RUNS runs"
	quiet_wait
	others
	for mode in compact sets perf; do
		sflag=()
		[ $mode = sets ] && sflag=(-s)
		[ $mode = compact ] && sflag=(-C)
		"$SCALE" -c "${SCALE_CPUS:-2,16,64}" -m "${SCALE_MIBS:-1,4}" -r "$RUNS" \
			"${sflag[@]}" > "$W/scale-$mode.md" 2> "$W/scale-$mode.err" ||
			echo "bench: row 10 ($mode) failed: $(tail -1 "$W/scale-$mode.err")" >&2
	done
	# The why analysis at 64 CPUs x 4 MiB (issue 33): the writer's sidecar why
	# (scale -w: a trigger snapshot's, unbounded; its CPU time) and `trigrec
	# show --json` against `perf report --sort comm` on the same kept file, in
	# CPU seconds (user + sys: the VM's other work only adds wall time).
	rm -rf "$W/scale-why"
	if "$SCALE" -s -w -k -c 64 -m 4 -r 1 -o "$W/scale-why" > "$W/scale-why.md" 2> "$W/scale-why.err"; then
		wf=$(sed -n 's/^scale: kept //p' "$W/scale-why.err" | tail -1)
		rec why.records trigrec "$(grep -m1 '^| 64 | 4 |' "$W/scale-why.md" | awk -F'|' '{ print $5 + 0 }')"
		rec why.sidecar_s trigrec "$(grep -m1 '^| 64 | 4 |' "$W/scale-why.md" | awk -F'|' '{ split($13, a, /[()]/); print a[2] / 1000 }')"
		for _ in $(seq "$RUNS"); do
			if [ -n "${TRIGREC_BEFORE:-}" ]; then
				/usr/bin/time -f '%U %S' -o "$W/why.t" "$TRIGREC_BEFORE" show --json "$wf" > /dev/null 2>&1 &&
					rec why.cpu_s before "$(awk '{ print $1 + $2 }' "$W/why.t")"
			fi
			/usr/bin/time -f '%U %S' -o "$W/why.t" "$TRIGREC" show --json "$wf" > /dev/null 2>&1 &&
				rec why.cpu_s trigrec "$(awk '{ print $1 + $2 }' "$W/why.t")"
			/usr/bin/time -f '%U %S' -o "$W/why.t" "$PERF" report -i "$wf" --sort comm --stdio > /dev/null 2>&1 &&
				rec why.cpu_s perf "$(awk '{ print $1 + $2 }' "$W/why.t")"
		done
		rm -rf "$W/scale-why"
	else
		echo "bench: row 10 (why) failed: $(tail -1 "$W/scale-why.err")" >&2
	fi
fi

# ======================================================================
# The table.
# ======================================================================
# best KEY VARIANT BASEVARIANT REF -> (min(V) - min(BASE)) / (min(REF) - min(BASE)):
# the ratio of the least disturbed runs (noise only ever adds time)
# mindiff KEY A B: fastest run of A minus fastest run of B (noise only adds time).
mindiff() {
	awk -F'\t' -v k="$1" -v a="$2" -v b="$3" '
		$1 == k && $3 ~ /^[0-9.]+$/ { if (!($2 in m) || $3 < m[$2]) m[$2] = $3 }
		END { if (!(a in m) || !(b in m)) print "n/a"; else printf "%.0f\n", m[a] - m[b] }' "$RAW"
}
best() {
	awk -F'\t' -v k="$1" -v v="$2" -v b="$3" -v r="$4" '
		$1 == k && $3 ~ /^[0-9.]+$/ { if (!($2 in m) || $3 < m[$2]) m[$2] = $3 }
		END {
			if (!(v in m) || !(b in m) || !(r in m) || m[r] <= m[b]) { print "n/a"; exit }
			printf "%.2f\n", (m[v] - m[b]) / (m[r] - m[b])
		}' "$RAW"
}
ratio_of_medians() { # KEY -> trigrec median / perf median
	local t p
	t=$(med "$1" trigrec)
	p=$(med "$1" perf)
	[ -n "$t" ] && [ -n "$p" ] && awk "BEGIN { exit !($p > 0) }" && calc "$t / $p" 2 || echo "n/a"
}
us() { # KEY TOOL -> "median (min–max)" in µs from ns
	awk -F'\t' -v k="$1" -v t="$2" '$1 == k && $2 == t && $3 ~ /^[0-9]+$/ { print $3 / 1000 }' "$RAW" |
		sort -g | awk '{ a[NR] = $1 } END {
			if (!NR) { print "n/a"; exit }
			m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
			f = (m >= 100) ? "%.0f" : "%.1f"
			printf(f " (" f "–" f ") µs\n", m, a[1], a[NR]) }'
}
{
	echo "## trigrec vs ftrace and perf: \`make bench\`"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $NCPU CPUs, $MODEL; kernel $(uname -r);" \
		"$("$PERF" --version); trigrec $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')."
	echo "Cells: median (min–max) of $RUNS runs ($ROUNDS rounds for rows 3-4) unless said otherwise; the tools ran in the same run, alternating. ftrace: its own tracefs instance, same events, same memory per CPU (rows 1, 3, 4$([ $FTRACE = 1 ] || echo "; not run: $FTRACE_WHY"))."
	echo "1-min load average at the start of each row:$LOADS; other trigrec/perf processes seen at once: $OTHERS; measurements started while one ran: $DISTURBED$([ $DISTURBED -gt 0 ] && echo ' (disturbed: rerun on a quiet machine)')$([ "$BPF_STATS" = 0 ] || echo '; kernel.bpf_stats_enabled was on: off for this run, restored after')."
	echo
	echo "| # | Measurement | trigrec | ftrace | perf | trigrec ÷ ftrace | trigrec ÷ perf | Target |"
	echo "|---|---|---|---|---|---|---|---|"
	if want 1; then
		for cond in idle busy; do
			c="idle CPUs"
			[ $cond = busy ] && c="every CPU busy"
			echo "| 1 | Records after the trigger, $c (runs with 0) | $(mmm cut.$cond.post trigrec) ($(count_eq cut.$cond.post trigrec 0)) | $(mmm cut.$cond.post ftrace) ($(count_eq cut.$cond.post ftrace 0)) | $(mmm cut.$cond.post perf) ($(count_eq cut.$cond.post perf 0)) | | | 0 in every run |"
			echo "| 1 | Holes before the trigger, $c: runs of missing numbers between the oldest record kept and the trigger (runs with 0) | $(mmm cut.$cond.holes trigrec) ($(count_eq cut.$cond.holes trigrec 0)) | $(mmm cut.$cond.holes ftrace) ($(count_eq cut.$cond.holes ftrace 0)) | $(mmm cut.$cond.holes perf) ($(count_eq cut.$cond.holes perf 0)) | | | 0 in every run |"
			echo "| 1 | Pre-trigger records kept, unbroken, 1 MiB/CPU asked, $c | $(mmm cut.$cond.kept trigrec) | $(mmm cut.$cond.kept ftrace) | $(mmm cut.$cond.kept perf) | $(mmm cut.$cond.kept vsftrace 2) | $(mmm cut.$cond.kept vsperf 2) | ≥ 1.00 × perf |"
			echo "| 1 | … per MiB of kernel ring memory per CPU (trigrec $(med cut.ringkib trigrec | cut -d. -f1) KiB, ftrace $(med cut.ringkib ftrace | cut -d. -f1) KiB, perf $(med cut.ringkib perf | cut -d. -f1) KiB: maps / buffer_size_kb), $c | $(mmm cut.$cond.permib trigrec) | $(mmm cut.$cond.permib ftrace) | $(mmm cut.$cond.permib perf) | $(mmm cut.$cond.permib vsftrace 2) | $(mmm cut.$cond.permib vsperf 2) | ≥ 2.0 × ftrace (issue 32) |"
		done
	fi
	if want 2; then
		for gap in 2 20 200; do
			between=$(med b2b.$gap.between trigrec)
			echo "| 2 | Triggers $gap ms apart: snapshots of their own (all runs) · records after the triggers · 2nd trigger's history (records between the triggers, of $(printf '%.0f' "${between:-0}")) | $(sumv b2b.$gap.own trigrec 2) · $(mmm b2b.$gap.after trigrec) · $(mmm b2b.$gap.hist2 trigrec) | $(sumv b2b.$gap.own perf 2) · $(mmm b2b.$gap.after perf) · $(mmm b2b.$gap.hist2 perf) | | each its own, 0 after |"
		done
	fi
	if want 3; then
		NOGATE_HOW="trigrec --no-gates"
		[ $HAVE_NO_GATES = 1 ] || NOGATE_HOW="bench/ringonly: trigrec's perf events, no BPF"
		for wl in syscall ctxsw; do
			u="ns/syscall"
			[ $wl = ctxsw ] && u="ns/switch"
			what="syscall-heavy (getpgid, enter+exit recorded)"
			[ $wl = ctxsw ] && what="context-switch-heavy (pipe ping-pong, sched_switch+sched_wakeup recorded)"
			# Which programs write the records by default (design.md "Fast paths").
			path="per-call tracepoint programs (tp_rec)"
			[ $wl = ctxsw ] && path="tp_btf fast paths"
			echo "| 3 | Overhead, $what: CPU $u (no recorder: $(mmm ovh.$wl.ns base 0)); trigrec: ${TRIGREC_RINGS:-the default rings (compact on x86)} written by BPF, $path | $(mmm ovh.$wl.ns trigrec 0) | $(mmm ovh.$wl.ns ftrace 0) | $(mmm ovh.$wl.ns perf 0) | added cost $(mmm ovh.$wl.vsft trigrec 2); best runs: $(best ovh.$wl.ns trigrec base ftrace) | added cost $(mmm ovh.$wl.vsperf trigrec 2); best runs: $(best ovh.$wl.ns trigrec base perf) | ≤ 1.0 × ftrace (issue 32); ≤ 0.6 × perf |"
			echo "| 3 | … added ns per op over no recorder (perf's ÷ ftrace's, per round: $(mmm ovh.$wl.vsft perf 2)) | $(mmm ovh.$wl.added trigrec 0) | $(mmm ovh.$wl.added ftrace 0) | $(mmm ovh.$wl.added perf 0) | | | |"
			case " $OVH_VARIANTS " in *" nofp "*)
				echo "| 3 | … same, trigrec --no-fast-paths (tp_rec copies every record) | $(mmm ovh.$wl.ns nofp 0) | | | added cost $(mmm ovh.$wl.vsft nofp 2); best runs: $(best ovh.$wl.ns nofp base ftrace) | added cost $(mmm ovh.$wl.vsperf nofp 2); best runs: $(best ovh.$wl.ns nofp base perf) | ≤ 0.9 × perf |" ;;
			esac
			echo "| 3 | … same, trigrec --rings perf (perf writes, gates freeze) | $(mmm ovh.$wl.ns tgperf 0) | | | added cost $(mmm ovh.$wl.vsft tgperf 2); best runs: $(best ovh.$wl.ns tgperf base ftrace) | added cost $(mmm ovh.$wl.vsperf tgperf 2); best runs: $(best ovh.$wl.ns tgperf base perf) | ≤ 1.15 × perf |"
			echo "| 3 | … same, without the freeze gates ($NOGATE_HOW); gate cost per op: $(mmm ovh.$wl.gate trigrec 0) ns | $(mmm ovh.$wl.ns nogate 0) | | | added cost $(mmm ovh.$wl.vsft nogate 2); best runs: $(best ovh.$wl.ns nogate base ftrace) | added cost $(mmm ovh.$wl.vsperf nogate 2); best runs: $(best ovh.$wl.ns nogate base perf) | |"
		done
	fi
	if want 3f; then
		echo "| 3f | The floor, getpgid (enter+exit), CPU ns per call with no recorder: $(mmm floor.ns base 0); added ns per call, ftrace · trigrec (default rings, tp_rec) | $(mmm floor.added trigrec 0) | $(mmm floor.added ftrace 0) | | $(mmm floor.vsft trigrec 2); best runs: $(best floor.ns trigrec base ftrace) | | ≤ 1.0 × ftrace (issue 32) |"
		for v in cnop crec bnop brec bother; do
			case $v in
			cnop) what="classic sys_enter/exit_getpgid programs that return 1 (the classic dispatch floor)" ;;
			crec) what="the same writing a 24-byte record (clock, plain stores, per-CPU array ring: the least classic-tp recorder)" ;;
			bnop) what="tp_btf/sys_enter+sys_exit testing the syscall number only (the raw-tracepoint floor)" ;;
			brec) what="the same writing crec's record" ;;
			bother) what="brec recording getppid: its cost to a call it does not record" ;;
			esac
			echo "| 3f | … $v: $what; added ns per getpgid | $(mmm floor.added $v 0); fastest runs: $(mindiff floor.ns $v base) | | | $(mmm floor.vsft $v 2); best runs: $(best floor.ns $v base ftrace) | | |"
		done
		echo "| 3f | … trigrec above crec: its own program's cost per getpgid (ns, per round) | $(mmm floor.own trigrec 0); fastest runs: $(mindiff floor.ns trigrec crec) | | | | | |"
		[ -z "$FLOOR_BAD" ] || echo "| 3f | FAILED: wrong record count or no figure from:$FLOOR_BAD (see the log) | | | | | | |"
	fi
	if want 4; then
		if [ $TRIG_ENGINE = 1 ]; then
			echo "| 4 | Trigger evaluation, 4-clause filter, never true: ns per evaluated event (ftrace: the filter on the event enabled in its instance; perf: the same filter on a recorded event); tp_hook on the per-call tracepoint | $(mmm eval.filter trigrec 0) | $(mmm eval.filter ftrace 0) | $(mmm eval.filter perf 0) | $(mmm eval.vsft filter 2); best runs: $(best eval.ns filter base ftrace) | $(mmm eval.filter ratio 2); best runs: $(best eval.ns filter base perf) | ≤ 1.0 × ftrace (issue 32) |"
			echo "| 4 | The same, \`--syscall-fast-paths\` (tested from tp_btf/sys_enter) | $(mmm eval.filter fp 0) | $(mmm eval.filter ftrace 0) | $(mmm eval.filter perf 0) | $(mmm eval.vsft fp 2); best runs: $(best eval.ns fp base ftrace) | $(mmm eval.filter fpratio 2) | ≤ 1.0 × ftrace |"
			echo "| 4 | … perf's filter ÷ ftrace's, per round: $(mmm eval.vsft perf 2) | | | | | | |"
			echo "| 4 | A system call the trigger does not name (getpgid; the trigger on getppid): added ns per call, default · \`--syscall-fast-paths\` | $(mmm eval.other trigrec 0) · $(mmm eval.other fp 0) | | | |"
			echo "| 4 | Trigger evaluation, latency pair (enter→exit by tid): ns per evaluated event | $(mmm eval.latency trigrec 0) | no equivalent | | |"
			echo "| 4 | 4-clause filter on an event that is recorded anyway: added ns per event · recording it costs | $(mmm eval.recfilter added 0) · $(mmm eval.recfilter record 0) | | added ÷ recording: $(mmm eval.recfilter ratio 2) | < 0.5 |"
			echo "| 4 | Latency pair on events that are recorded anyway: added ns per event · recording one costs | $(mmm eval.reclat added 0) · $(mmm eval.reclat record 0) | | added ÷ recording: $(mmm eval.reclat ratio 2) | < 0.5 |"
		else
			echo "| 4 | Trigger evaluation cost (4-clause filter, latency pair) | pending trigger engine | | | |"
		fi
	fi
	if want 4 || want 4l; then
		if [ "$LEARN_ENGINE" = 1 ]; then
			echo "| 4l | Latency pair (enter→exit by tid, never fires), ns per evaluated event: fixed \`> 10s\` · learned \`by tid > p99.9 * 1000\` · learned, no \`by\` | $(mmm learn.eval fixed 0) · $(mmm learn.eval learned 0) · $(mmm learn.eval learnall 0) | no equivalent | learned ÷ fixed: $(mmm learn.ratio learned 2) · $(mmm learn.ratio learnall 2); best runs: $(best learn.ns learned base fixed) · $(best learn.ns learnall base fixed) | ≤ 1.2 × fixed (issue 29) |"
		else
			echo "| 4l | Learned latency thresholds | pending learned thresholds | | | |"
		fi
	fi
	if want 4 || want 4b; then
		if [ "$BASE_ENGINE" = 1 ]; then
			echo "| 4b | Rate by pid (getppid, 10 ms windows, never fires), ns per evaluated event: fixed \`> 1000000000/10ms\` · baseline \`> 1000x baseline per 10ms\` | $(mmm rbase.eval fixed 0) · $(mmm rbase.eval learned 0) | no equivalent | baseline ÷ fixed: $(mmm rbase.ratio learned 2); best runs: $(best rbase.ns learned base fixed) | ≤ 1.2 × fixed (issue 29) |"
		else
			echo "| 4b | Rate baselines | pending rate baselines | | | |"
		fi
	fi
	if want 4 || want 4s; then
		if [ $STR_ENGINE = 1 ]; then
			echo "| 4s | str(filename) on sys_enter_faccessat (40-byte user path), never true: ns per evaluation added to a 1-clause integer filter, prefix glob · middle glob | $(mmm str.added pre 0) · $(mmm str.added mid 0); fastest runs: $(mindiff str.ns pre int) · $(mindiff str.ns mid int) | not run | whole trigger (prefix) $(mmm str.whole pre 0) vs integer filter $(mmm str.whole int 0) over no recorder; fastest runs: $(mindiff str.ns pre base) vs $(mindiff str.ns int base) | |"
			echo "| 4s | rate by str(filename) against rate by pid (never fires): ns per evaluation added by the text key (read + FNV-1a hash) | $(mmm str.added key 0); fastest runs: $(mindiff str.ns kstr kint) | not run | | |"
		else
			echo "| 4s | str() evaluation cost | pending str() | | | |"
		fi
	fi
	if want 5; then
		for sz in $SIZES; do
			b=$(med "size.$sz.memcold" bound)
			f1=$(med "size.$sz.p2r.first" trigrec)
			f2=$(med "size.$sz.p2r.later" trigrec)
			r1="n/a" r2="n/a"
			[ -n "$b" ] && [ -n "$f1" ] && r1=$(calc "$f1 / $b" 1)
			[ -n "$b" ] && [ -n "$f2" ] && r2=$(calc "$f2 / $b" 1)
			echo "| 5 | $sz/CPU: freeze-to-resume, 1st snapshot / later ones (of which the copy: $(us "size.$sz.p2r.first" trigrec) / $(us "size.$sz.p2r.later" trigrec); memcpy of the $(( ($(bytes_of "$sz") + 65536) * NCPU / 1024 )) KiB: $(us "size.$sz.memcold" bound) from memory, $(us "size.$sz.memhot" bound) in cache) | $(us "size.$sz.f2r.first" trigrec) / $(us "size.$sz.f2r.later" trigrec) | no freeze (perf pauses its rings while it writes) | copy ÷ memcpy from memory: ${r1}x / ${r2}x | |"
			echo "| 5 | $sz/CPU: trigger-to-file (trigger to the file renamed into place), 1st snapshot / later ones | $(us "size.$sz.t2f.first" trigrec) / $(us "size.$sz.t2f.later" trigrec) | $(us "size.$sz.t2f.first" perf) / $(us "size.$sz.t2f.later" perf) | $(ratio_of_medians "size.$sz.t2f.first") / $(ratio_of_medians "size.$sz.t2f.later") | |"
		done
	fi
	if want 6; then
		echo "| 6 | Idle, ${IDLE_SECS} s, system-wide sched_switch+sched_wakeup, 1 MiB/CPU: wake-ups per second (one run, both side by side) | $(calc "$(med idle.wakeups trigrec)" 2) | $(calc "$(med idle.wakeups perf)" 2) | $(ratio_of_medians idle.wakeups) | |"
		echo "| 6 | Idle: CPU time over ${IDLE_SECS} s, ms (one run) | $(med idle.cpu_ms trigrec | cut -d. -f1) | $(med idle.cpu_ms perf | cut -d. -f1) | $(ratio_of_medians idle.cpu_ms) | |"
	fi
	if want 7; then
		for sz in $SIZES; do
			ring=$(( $(bytes_of "$sz") * NCPU / 1024 ))
			echo "| 7 | RSS, KiB, $sz/CPU ($ring KiB of rings in the kernel for each tool): started / after a full-ring snapshot (one run) | $(med "mem.$sz.rss0" trigrec | cut -d. -f1) / $(med "mem.$sz.rss1" trigrec | cut -d. -f1) | $(med "mem.$sz.rss0" perf | cut -d. -f1) / $(med "mem.$sz.rss1" perf | cut -d. -f1) | $(ratio_of_medians "mem.$sz.rss0") / $(ratio_of_medians "mem.$sz.rss1") | |"
		done
	fi
	if want 8; then
		echo "| 8 | Compression, zstd level 1 (-z), system-wide sched_switch+sched_wakeup, $((ZRING >> 20)) MiB/CPU filled by ctxsw: ratio (uncompressed ÷ COMPRESSED records) | $(mmm z.ratio trigrec 2) | $(mmm z.ratio perf 2) | $(ratio_of_medians z.ratio) | ≥ perf's |"
		echo "| 8 | … events per snapshot (perf script lines) · compressed bytes per event | $(mmm z.events trigrec 0) · $(mmm z.bytes_per_event trigrec 2) | $(mmm z.events perf 0) · $(mmm z.bytes_per_event perf 2) | $(ratio_of_medians z.bytes_per_event) | ≤ perf's |"
		echo "| 8 | … MiB compressed per snapshot · CPU ms per MiB that -z adds (with minus without, all threads) | $(mmm z.mib trigrec 1) · $(mmm z.ms_per_mib trigrec 2) | $(mmm z.mib perf 1) · $(mmm z.ms_per_mib perf 2) | $(ratio_of_medians z.ms_per_mib) | ≤ perf's |"
		echo "| 8 | … trigrec's time inside zstd alone (sidecar compression.time_ns): MiB/s | $(mmm z.zstd_mibs trigrec 0) | | | |"
	fi
	if want 9; then
		echo "| 9 | Dynamic probes: CPU ns per uprobe hit, one s64 field, recorded (perf: perf probe -x + perf record --overwrite; no probe: $(mmm probe.ns base 1) ns per call) | $(mmm probe.hit trigrec 0) | $(mmm probe.hit perf 0) | $(mmm probe.ratio trigrec 2); best runs: $(best probe.ns trigrec base perf) | ≤ 1.15 |"
		echo "| 9 | … with a trigger on the probe that never fires (probe_hook rebuilds the record from registers on each hit) | $(mmm probe.hit trigger 0) | no equivalent | | |"
	fi
	if want 10 && [ -s "$W/scale-why.md" ]; then
		echo "| 10 | The why analysis of the 64 CPU x 4 MiB ring-set snapshot ($(mmm why.records trigrec 0) records): CPU s, \`trigrec show --json\` (perf: \`perf report --sort comm\`) | $(mmm why.cpu_s trigrec 2) | $(mmm why.cpu_s perf 2) | $(ratio_of_medians why.cpu_s) | ≤ 1.5 |"
		echo "| 10 | … the same analysis by the writer, into the sidecar's why (scale -w, its thread's CPU s) | $(mmm why.sidecar_s trigrec 2) | no equivalent | | |"
		if [ -n "${TRIGREC_BEFORE:-}" ]; then
			b=$(med why.cpu_s before)
			p=$(med why.cpu_s perf)
			echo "| 10 | … \`trigrec show --json\` of TRIGREC_BEFORE ($TRIGREC_BEFORE), in the same loop | $(mmm why.cpu_s before 2) | $(mmm why.cpu_s perf 2) | $([ -n "$b" ] && [ -n "$p" ] && calc "$b / $p" 2 || echo n/a) | |"
		fi
	fi
	for mode in compact sets perf; do
		if ! want 10 || [ ! -s "$W/scale-$mode.md" ]; then continue; fi
		case $mode in
		compact) what="compact rings (the default path)" flag=" -C" ;;
		sets) what="ring sets (rings=bpf)" flag=" -s" ;;
		*) what="perf-written rings" flag="" ;;
		esac
		echo
		echo "### 10. The snapshot write path at scale, $what (bench/scale.c$flag; median of $RUNS runs after a warm-up)"
		echo
		cat "$W/scale-$mode.md"
	done
} | awk -F'|' '
	# Rows without an ftrace column (6 cells) get empty ftrace cells.
	NF == 8 { $0 = "|" $2 "|" $3 "|" $4 "| |" $5 "| |" $6 "|" $7 "|" }
	{ print }' > "$OUT/results.md"
echo
cat "$OUT/results.md"
say "done in ${SECONDS} s; table in bench/out/results.md, raw numbers in bench/out/raw.tsv"
# Not a noisy number: a floor program that did not record what it should
# makes every figure of row 3f meaningless.
[ -z "$FLOOR_BAD" ] || die "row 3f failed:$FLOOR_BAD"
exit 0
