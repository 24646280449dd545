#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# trigrec's test runner (make check / make check-unit).
#
#   tests/run.sh [--unit] [PATTERN...]
# Runs every unit-test binary $OUTPUT/tests/test_* (from tests/unit/test_*.c)
# and, unless --unit, every tests/integration/*.sh (root only; otherwise each
# is skipped with the reason; a file with the line "# trigrec-test: no-root"
# needs neither root nor the trace lock). PATTERNs (substrings of file names)
# select tests. Prints each case as ok/FAIL/skip and ends with one line
# "N passed, N failed[, N skipped]". Exit status 1 if anything failed.
# OUTPUT (default .output) is the build directory; V=1 prints each command.
# RINGS (default "compact bpf perf"): the integration files run once per
# recording path (TRIGREC_RINGS=compact, the default's choice here, then the
# ring sets, then perf's rings; files that need no root run once); the
# later paths' names carry "[bpf]" and "[perf]".
set -u
export LC_ALL=C

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUTPUT=${OUTPUT:-.output}
case $OUTPUT in /*) ;; *) OUTPUT=$ROOT/$OUTPUT ;; esac
export OUTPUT
UNIT_TIMEOUT=${UNIT_TIMEOUT:-120}     # seconds per unit-test binary
INTEG_TIMEOUT=${INTEG_TIMEOUT:-150}   # seconds per integration-test file

unit_only=0
pats=()
for a in "$@"; do
	case $a in
	--unit) unit_only=1 ;;
	-h | --help) sed -n '4,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run.sh: unknown option $a" >&2; exit 2 ;;
	*) pats+=("$a") ;;
	esac
done

passed=0 failed=0 skipped=0
work=$(mktemp -d /tmp/trigrec-run.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
trap 'echo "interrupted"; exit 130' INT TERM

# V=1 (make check V=1): each command as it is run.
show_cmd() { [ "${V:-0}" = 1 ] && echo "+ $*"; return 0; }

selected() {
	local p
	[ ${#pats[@]} -eq 0 ] && return 0
	for p in "${pats[@]}"; do [[ $1 == *"$p"* ]] && return 0; done
	return 1
}

# count NAME KIND STATUS LOG: add up one test file's results. Its summary line
# "(unit|integ) FILE: N passed, N failed, N skipped" is authoritative; without
# one (crash, timeout) the cases it printed are counted and the file fails.
count() {
	local name=$1 kind=$2 st=$3 log=$4 line p f s
	line=$(grep -E "^$kind [^ ]+: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$" "$log" | tail -1)
	if [ -n "$line" ]; then
		read -r p f s <<<"$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/' <<<"$line")"
	else
		p=$(grep -cE '^  ok ' "$log")
		f=$(grep -cE '^  FAIL ' "$log")
		s=$(grep -cE '^  skip ' "$log")
	fi
	grep -E '^  FAIL ' "$log" | sed "s|^  FAIL |$name: |" >>"$work/failures"
	if [ -z "$line" ] || { [ "$st" -ne 0 ] && [ "$f" -eq 0 ]; }; then
		local why="exited with status $st and no summary line"
		[ "$st" -eq 124 ] && why="timed out"
		[ "$st" -gt 128 ] && [ "$st" -ne 124 ] && why="killed by signal $((st - 128))"
		[ -n "$line" ] && why="exited with status $st although no case failed"
		echo "  FAIL $name: $why"
		echo "$name: $why" >>"$work/failures"
		f=$((f + 1))
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
}

# Tracepoints live in tracefs; trigrec mounts it too, but perf and the tests
# read it directly.
if [ ! -d /sys/kernel/tracing/events ] && [ "$(id -u)" -eq 0 ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		echo "note: tracefs is not mounted and mounting it failed"
fi

start=$(date +%s)

# ---- unit tests ----
echo "unit tests ($OUTPUT/tests/test_*)"
for src in "$ROOT"/tests/unit/test_*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	selected "$name" || continue
	bin=$OUTPUT/tests/$name
	echo "$name"
	if [ ! -x "$bin" ]; then
		echo "  FAIL $name: not built ($bin missing: run make check)"
		echo "$name: not built" >>"$work/failures"
		failed=$((failed + 1))
		continue
	fi
	log=$work/$name.log
	show_cmd "(cd $ROOT && timeout -k 5 $UNIT_TIMEOUT $bin)"
	(cd "$ROOT" && timeout -k 5 "$UNIT_TIMEOUT" "$bin") >"$log" 2>&1
	st=$?
	grep -vE '^unit [^ ]+: [0-9]+ passed' "$log"
	count "$name" unit "$st" "$log"
done

# ---- integration tests ----
if [ "$unit_only" -eq 0 ]; then
	echo "integration tests (tests/integration/*.sh)"
	# Live-kernel suites disturb each other (a frozen gate drops records for
	# every perf user): one at a time on this machine, whoever runs them. The
	# lock is taken before the first one that traces, so a run of no-root
	# files only (tests/run.sh contributing) never waits for it.
	. "$ROOT/tests/trace-lock.sh"
	locked=0
	read -r -a modes <<<"${RINGS:-compact bpf perf}"
	for mode in "${modes[@]}"; do
		for t in "$ROOT"/tests/integration/*.sh; do
			[ -e "$t" ] || continue
			name=$(basename "$t" .sh)
			case $name in lib|*_lib) continue ;; esac # sourced helpers, not tests
			selected "$name" || continue
			if [ "$mode" != "${modes[0]}" ]; then
				grep -qx '# trigrec-test: no-root' "$t" && continue # no recording path
				name="${name}[$mode]"
			fi
			export TRIGREC_RINGS=$mode
			echo "$name"
			if grep -qx '# trigrec-test: no-root' "$t"; then
				: # reads the tree only: no root, no trace lock
			elif [ "$(id -u)" -ne 0 ]; then
				echo "  skip $name: needs root (BPF programs and perf events system-wide)"
				skipped=$((skipped + 1))
				continue
			elif [ "$locked" = 0 ]; then
				trace_lock
				locked=1
			fi
			log=$work/$name.log
			t0=$(date +%s)
			# Live output: these take seconds each. On timeout, timeout(1)
			# signals its whole process group: trigrec and workloads too. The
			# output goes to a file (followed until the test ends), not a pipe
			# that a stray background process could hold open.
			show_cmd "timeout -k 10 $INTEG_TIMEOUT bash $t"
			# The file exists before tail opens it (the job's own redirection
			# may come later: tail -f then gave up, and the live output was lost).
			: >"$log"
			timeout -k 10 "$INTEG_TIMEOUT" bash "$t" >>"$log" 2>&1 </dev/null &
			tpid=$!
			tail -n +1 -s 0.1 --pid=$tpid -f "$log" | grep -vE '^integ [^ ]+: [0-9]+ passed'
			wait $tpid
			st=$?
			count "$name" integ "$st" "$log"
			echo "  ($(($(date +%s) - t0))s)"
		done
	done
fi

echo
if [ -s "$work/failures" ]; then
	echo "failed:"
	sed 's/^/  /' "$work/failures"
fi
echo "($(($(date +%s) - start))s)"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
