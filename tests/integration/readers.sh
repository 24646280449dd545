#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Readers no one here wrote, on snapshots of every kind (tracepoints,
# sampling with -g, mixed, a post window, an empty one):
#   perf script, perf report --header-only (the same host lines as perf's own
#   file, no feature missing that perf's own file has), perf data convert
#   --to-json, perf script -g python + -s, perf inject, perf sched
#   latency/map/timehist and perf timechart (scheduler snapshots), and
#   hotspot's perf.data parser.
# Then build-ids: perf buildid-list names the kernel and the DSOs, perf
# archive packs them, and perf report on "another machine" (another HOME,
# the binary gone) still names the test program's functions.
. "$(dirname "$0")/lib.sh"
need_root
if ! command -v "$PERF" >/dev/null; then
	t_begin "readers"; t_skip "no perf"; t_end; exit 0
fi
PERFPARSER=${PERFPARSER:-/usr/lib/$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)/libexec/hotspot-perfparser}
SYMWORK=$OUTPUT/tests/symwork
BASE=$(seq_base)
# trigrec fills perf's build-id cache like perf record: keep it in here.
export HOME=$TMP/home
mkdir -p "$HOME"

# run_perf NAME CMD...: perf CMD in $TMP, output in $TMP/NAME.out/.err; fails
# the case on a non-zero exit or a complaint perf prints without failing.
run_perf() {
	local name=$1 rc
	shift
	(cd "$TMP" && timeout -k 5 "$TIMEOUT" "$PERF" "$@") >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	[ $rc -eq 0 ] || t_fail "perf $*: exit $rc: $(log_tail "$TMP/$name.err")"
	! grep -qiE 'incompatible|failed to process|non matching|bad file|segmentation|Traceback|^Error' "$TMP/$name.err" ||
		t_fail "perf $*: $(grep -iE 'incompatible|failed to process|non matching|bad file|segmentation|Traceback|^Error' "$TMP/$name.err" | head -2 | tr '\n' ' ')"
	[ $rc -eq 0 ]
}

# ---- the snapshots ----

# seqgen's calls fit the 256K rings (2000 x 56 bytes), so a snapshot's window
# reaches back over burn's first 50 ms: perf sched has burn's switches to
# read, on either recording path (a ring flooded by seqgen made the window a
# few ms long, and whether burn switched in it was luck).
WORK="$BURN -d 0.3 -s 20000 -a 7 >/dev/null & $SEQGEN -n 2000 -t 1500 -b $BASE -w 50000 >/dev/null; wait"
cp "$SYMWORK" "$TMP/symwork" # a copy the off-host test can remove
declare -A SNAP KIND_SCHED KIND_TP

# FINAL= (empty): the run's final snapshot instead of its trigger's.
FINAL=no
take() { # KIND SCHED? TP? ARGS... -- WORKLOAD...
	local kind=$1 sched=$2 tp=$3 rc
	shift 3
	tr_run "$TMP/$kind.log" -o "$TMP/$kind" ${FINAL:+--no-final-snapshot} "$@"
	rc=$?
	SNAP[$kind]=$(snaps "$TMP/$kind" | head -1)
	KIND_SCHED[$kind]=$sched
	KIND_TP[$kind]=$tp
	t_begin "readers: $kind snapshot is written"
	check_eq "exit code (log: $(log_tail "$TMP/$kind.log"))" "$rc" 0
	check_ne "snapshot" "${SNAP[$kind]}" ""
	t_end
}
take tracepoints 1 1 -a -m 256K -e sched:sched_switch,sched:sched_wakeup \
	-e syscalls:sys_enter_getpgid --filter "$(seq_filter)" \
	--trigger syscalls:sys_enter_getsid -- bash -c "$WORK"
take sampling 0 0 -e cpu-clock -F 2000 -g --trigger syscalls:sys_enter_getsid \
	-- "$TMP/symwork" -d 0.4
take mixed 1 1 -a -m 256K -e cpu-clock -F 1000 -g -e sched:sched_switch,sched:sched_wakeup \
	-e syscalls:sys_enter_getpgid --filter "$(seq_filter)" \
	--trigger syscalls:sys_enter_getsid -- bash -c "$WORK"
take post 0 1 -m 64K -e syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid \
	--trigger 'syscalls:sys_enter_getsid post 20ms' -- "$SEQGEN" -n 2200 -t 2000 -u 200 -b "$BASE"
# acct(2) is never called: a snapshot with no sample at all. The final
# snapshot: a trigger's keeps its own record even when its event is not
# recorded (issue 34).
FINAL='' take empty 0 1 -e syscalls:sys_enter_acct -- "$SEQGEN" -n 10 -t 5 -b "$BASE"

# perf's own file of the same events on this machine, the reference.
t_begin "readers: perf record writes a reference file"
(cd "$TMP" && timeout -k 5 "$TIMEOUT" "$PERF" record -q -k mono -o "$TMP/ref.data" \
	-e sched:sched_switch -e cpu-clock -g -a -- sleep 0.1) >"$TMP/ref.log" 2>&1 ||
	t_fail "perf record: $(log_tail "$TMP/ref.log")"
t_end
# The header lines that describe the machine: the same in both files.
host_lines() {
	"$PERF" report --header-only -I -i "$1" 2>/dev/null | grep -E \
		'^# (hostname|os release|arch|nrcpus|cpudesc|cpuid|total memory|sibling|CPU [0-9]+:|node[0-9]+ cpu list|pmu mappings|CPU cache info|clockid)|^#  +L[0-9]|^# memory nodes|^#  +[0-9]+ \['
}
missing() { "$PERF" report --header-only -i "$1" 2>/dev/null | sed -n 's/^# missing features: //p' | tr ' ' '\n' | grep . | sort; }
host_lines "$TMP/ref.data" >"$TMP/ref.host"
missing "$TMP/ref.data" >"$TMP/ref.missing"
pp_warnings() { sed -n 's/^feature not properly read PerfHeader::\([A-Z_]*\) .*/\1/p' "$1" | sort -u; }
have_pp=0
if [ -x "$PERFPARSER" ]; then
	have_pp=1
	timeout -k 5 "$TIMEOUT" "$PERFPARSER" --input "$TMP/ref.data" --output /dev/null \
		>/dev/null 2>"$TMP/ref.pp.err"
	pp_warnings "$TMP/ref.pp.err" >"$TMP/ref.pp"
fi

# ---- every reader on every kind ----

for kind in tracepoints sampling mixed post empty; do
	F=${SNAP[$kind]}
	if [ -z "$F" ]; then
		t_blocked "readers: $kind: perf tools" "no $kind snapshot"
		continue
	fi
	n=-1
	t_begin "readers: $kind: perf script"
	if run_perf script script -i "$F" -F time; then
		n=$(grep -c . "$TMP/script.out")
		if [ "$kind" = empty ]; then
			check_eq "samples" "$n" 0
		else
			check_ge "samples" "$n" 10
		fi
	fi
	t_end

	t_begin "readers: $kind: perf report --header-only: perf's host lines, no feature missing that perf's file has"
	if run_perf hdr report --header-only -I -i "$F"; then
		host_lines "$F" >"$TMP/$kind.host"
		check_eq "host lines that differ from perf's own file" \
			"$(diff "$TMP/ref.host" "$TMP/$kind.host" | grep '^[<>]' | tr '\n' ' ')" ""
		check_match "node meminfo" "$(cat "$TMP/hdr.out")" '^# node0 meminfo  : total = [0-9]+ kB, free = [0-9]+ kB$'
		missing "$F" >"$TMP/$kind.missing"
		# TRACING_DATA is for tracepoints: perf leaves it out too without them
		extra=$(comm -23 "$TMP/$kind.missing" "$TMP/ref.missing" |
			{ if [ "${KIND_TP[$kind]}" = 1 ]; then cat; else grep -vx TRACING_DATA; fi; } | tr '\n' ' ')
		check_eq "features missing here but in perf's file" "$extra" ""
		# what that check compares must exist: perf's file has these
		for feat in BUILD_ID CPUDESC CPUID TOTAL_MEM CPU_TOPOLOGY NUMA_TOPOLOGY PMU_MAPPINGS CACHE MEM_TOPOLOGY CLOCKID CLOCK_DATA; do
			! grep -qx "$feat" "$TMP/ref.missing" || t_fail "perf's own file lacks $feat: the check above is void"
		done
	fi
	t_end

	t_begin "readers: $kind: perf data convert --to-json: valid JSON, every sample"
	if run_perf json data convert --to-json "$TMP/$kind.json" --force -i "$F"; then
		got=$("$PY" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["samples"]))' \
			"$TMP/$kind.json" 2>&1)
		check_eq "samples in the JSON (perf script: $n)" "$got" "$n"
	fi
	t_end

	t_begin "readers: $kind: perf script -g python, then perf script -s"
	rm -f "$TMP/perf-script.py"
	if run_perf pygen script -i "$F" -g python && run_perf py script -i "$F" -s perf-script.py; then
		[ "$kind" = empty ] || check_ne "script output" "$(head -c 1 "$TMP/py.out")" ""
		if [ "${KIND_TP[$kind]}" = 1 ] && [ "$kind" != empty ]; then
			# Every tracepoint sample reaches its own handler: the handlers'
			# lines per event (sys__name) equal perf script's samples per
			# event. (Which event comes first depends on the machine: a
			# look at the first lines only was a flake.)
			if run_perf ev script -i "$F" -F event; then
				want=$(sed -n 's/^ *\([a-z_0-9]*\):\([a-z_0-9]*\): *$/\1__\2/p' "$TMP/ev.out" | sort | uniq -c | tr -s ' \n' ' ')
				got=$(grep -oE '^(in trace_begin )?[a-z_0-9]+__[a-z_0-9]+ +[0-9]+ +[0-9]+\.[0-9]{9} ' "$TMP/py.out" |
					sed 's/^in trace_begin //; s/ .*//' | sort | uniq -c | tr -s ' \n' ' ')
				check_ne "tracepoint samples in perf script" "$want" ""
				check_eq "handler calls per tracepoint (perf script: $want)" "$got" "$want"
			fi
		fi
	fi
	t_end

	t_begin "readers: $kind: perf inject, then perf script reads the same"
	if run_perf inject inject -i "$F" -o "$TMP/$kind.inj" && run_perf inj script -i "$TMP/$kind.inj"; then
		run_perf orig script -i "$F" &&
			check_eq "perf script differs after inject" "$(cmp "$TMP/orig.out" "$TMP/inj.out" 2>&1)" ""
	fi
	t_end

	if [ "${KIND_SCHED[$kind]}" = 1 ]; then
		t_begin "readers: $kind: perf sched latency, map, timehist"
		# tasks are named through COMMs for the threads sched_switch and
		# sched_wakeup name (next_pid, pid): none may be left ":TID:TID"
		if run_perf lat sched latency -i "$F"; then
			check_match "latency table" "$(cat "$TMP/lat.out")" '^ +burn:(\([0-9]+\)|[0-9]+) +\| +[0-9.]+ ms'
			check_eq "unnamed tasks" "$(grep -E '^ +:[0-9]+:[0-9]+ ' "$TMP/lat.out" | head -3 | tr '\n' ' ')" ""
		fi
		run_perf map sched map -i "$F" &&
			check_match "sched map" "$(cat "$TMP/map.out")" '=> burn:[0-9]+'
		run_perf th sched timehist -i "$F" &&
			check_ge "timehist lines naming burn" "$(grep -c 'burn\[' "$TMP/th.out")" 1
		t_end

		t_begin "readers: $kind: perf timechart"
		if run_perf tc timechart -i "$F" -o "$TMP/$kind.svg"; then
			check_match "svg" "$(head -c 300 "$TMP/$kind.svg")" '<svg'
			# Which tasks perf draws depends on their run time inside the
			# window (it leaves out short ones; its own chart of burn leaves
			# burn out), so the check is that it read the whole file and
			# wrote a whole chart.
			check_match "svg end" "$(tail -c 100 "$TMP/$kind.svg")" '</svg>'
		fi
		t_end
	fi

	t_begin "readers: $kind: hotspot-perfparser"
	if [ $have_pp = 0 ]; then
		t_skip "$PERFPARSER missing (Debian package hotspot: make check installs it)"
	else
		timeout -k 5 "$TIMEOUT" "$PERFPARSER" --input "$F" --output "$TMP/$kind.pp" \
			>/dev/null 2>"$TMP/pp.err"
		rc=$?
		check_eq "exit code ($(log_tail "$TMP/pp.err"))" "$rc" 0
		check_gt "parsed stream bytes" "$(stat -c %s "$TMP/$kind.pp" 2>/dev/null || echo 0)" 0
		# perfparser 1.3 reads a few header features partly or not at
		# all and says so, for perf's own file too: only those may appear.
		# It does not handle PERF_RECORD_KSYMBOL (the BPF functions' names)
		# either, and says so per record, as it does for perf record's file
		# while any BPF program is loaded (40 such lines beside trigrec).
		# A call chain entry of -1 is "invalid callchain context" to it
		# (it reads any entry >= PERF_CONTEXT_MAX as a context marker).
		# The kernel's frame-pointer walk of user code built without frame
		# pointers stores whatever stack word it finds, -1 included, as in
		# perf's own -g file: allowed in a chain's user part only, which
		# perf script shows (the user part starts at its first non-kernel
		# address, the interrupted user IP, which is never -1).
		check_eq "other messages" "$(grep -vE '^feature not properly read PerfHeader::[A-Z_]+ [0-9]+ [0-9]+$|^FINISHED_ROUND detected|^Linux version .* detected|^unhandled event type 17 +PERF_RECORD_KSYMBOL$|^invalid callchain context ffffffffffffffff ?$' "$TMP/pp.err" | head -3 | tr '\n' ' ')" ""
		if grep -q '^invalid callchain context ffffffffffffffff' "$TMP/pp.err" &&
			run_perf cc script -i "$F" -F ip,sym; then
			check_eq "-1 entries outside a chain's user part (perfparser warned of $(grep -c '^invalid callchain context' "$TMP/pp.err"))" \
				"$(awk '/^[^ \t]/ || /^$/ { user = 0; next }
					$1 == "ffffffffffffffff" { if (!user) bad++; next }
					$1 !~ /^ffff[0-9a-f]+$/ || length($1) != 16 { user = 1 }
					END { print bad + 0 }' "$TMP/cc.out")" 0
		fi
		check_eq "features it warns about that it does not for perf's own file" \
			"$(pp_warnings "$TMP/pp.err" | comm -23 - "$TMP/ref.pp" | tr '\n' ' ')" ""
		timeout -k 5 "$TIMEOUT" "$PERFPARSER" --input "$F" --print-stats >"$TMP/pp.stats" 2>/dev/null
		check_eq "perfparser samples (perf script: $n)" "$(sed -n 's/^samples: //p' "$TMP/pp.stats")" "$n"
		check_eq "perfparser time order violations" "$(sed -n 's/^samples time violations: //p' "$TMP/pp.stats")" 0
	fi
	t_end
done

# ---- build-ids, perf archive, and symbols on another machine ----

F=${SNAP[sampling]}
if [ -z "$F" ]; then
	t_blocked "readers: build-ids" "no sampling snapshot"
	exit 1
fi
elf_bid() { readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: //p' | head -1; }
libc=$(awk '$NF ~ /\/libc\.so/ { print $NF; exit }' /proc/self/maps)

t_begin "readers: perf buildid-list names the kernel, the program, libc, the vdso"
if run_perf bids buildid-list -i "$F"; then
	b=$(cat "$TMP/bids.out")
	check_match "kernel" "$b" "^$("$PERF" buildid-list -k) \[kernel\.kallsyms\]$"
	check_match "test program" "$b" "^$(elf_bid "$TMP/symwork") $TMP/symwork$"
	[ -n "$libc" ] && check_match "libc" "$b" "^$(elf_bid "$libc") $(readlink -f "$libc")$"
	check_match "vdso" "$b" '^[0-9a-f]{40} \[vdso\]$'
	check_eq "lines that are not build-id and name" "$(grep -cvE '^[0-9a-f]{40} ' "$TMP/bids.out")" 0
fi
t_end

t_begin "readers: perf archive packs the build-id cache entries"
cp "$F" "$TMP/s.data"
if run_perf archive archive "$TMP/s.data"; then
	tar tjf "$TMP/s.data.tar.bz2" >"$TMP/tar.list" 2>&1 || t_fail "tar: $(log_tail "$TMP/tar.list")"
	bid=$(elf_bid "$TMP/symwork")
	check_match "program's link" "$(cat "$TMP/tar.list")" "^\.build-id/${bid:0:2}/${bid:2}$"
	check_match "program's elf" "$(cat "$TMP/tar.list")" "^${TMP#/}/symwork/$bid/elf$"
	# perf archive packs only what samples hit (buildid-list --with-hits): the
	# kernel is in it when a kept sample landed in the kernel, which a
	# user-space spinner does not always do.
	if "$PERF" buildid-list -i "$TMP/s.data" --with-hits 2>/dev/null | grep -q '\[kernel\.kallsyms\]'; then
		check_match "kernel's kallsyms" "$(cat "$TMP/tar.list")" '^\[kernel\.kallsyms\]/[0-9a-f]{40}/kallsyms$'
	fi
fi
t_end

t_begin "readers: off-host: the archive alone resolves the program's functions"
rm -f "$TMP/symwork"
mkdir -p "$TMP/other/.debug" "$TMP/bare"
tar xjf "$TMP/s.data.tar.bz2" -C "$TMP/other/.debug" 2>"$TMP/untar.err" || t_fail "untar: $(log_tail "$TMP/untar.err")"
HOME=$TMP/other "$PERF" report -i "$TMP/s.data" --stdio --sort sym 2>"$TMP/rep.err" >"$TMP/rep.out"
check_match "symwork_spin_a resolved" "$(cat "$TMP/rep.out")" ' symwork_spin_a$'
check_match "symwork_spin_b resolved" "$(cat "$TMP/rep.out")" ' symwork_spin_b$'
# the control: without the archive, nothing names them (the binary is gone)
HOME=$TMP/bare "$PERF" report -i "$TMP/s.data" --stdio --sort sym 2>/dev/null >"$TMP/bare.out"
check_eq "resolved without the archive" "$(grep -c 'symwork_spin' "$TMP/bare.out")" 0
t_end
