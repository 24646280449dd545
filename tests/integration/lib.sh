# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Shared helpers for tests/integration/*.sh (sourced, not run).
#
# A test file is a series of cases:
#     t_begin "cut: last record is the trigger"
#     check_eq "last event" "$ev" "syscalls:sys_enter_getsid"
#     t_end
# Each case prints "  ok   NAME", "  FAIL NAME: why; why" or
# "  skip NAME: why"; at exit the file prints
# "integ FILE: N passed, N failed, N skipped" (what tests/run.sh adds up).
# Every wait has a timeout; background processes, mounts and the
# temporary directory are cleaned up on exit, whatever happens (KEEP_TMP=1
# keeps the directory, KEEP_FAILED=1 only when a case failed).

set -u
export LC_ALL=C

LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$LIB_DIR/../.." && pwd)
OUTPUT=${OUTPUT:-.output}
case $OUTPUT in /*) ;; *) OUTPUT=$ROOT/$OUTPUT ;; esac
TRIGREC=${TRIGREC:-$ROOT/trigrec}
# shellcheck disable=SC2034 # SEQGEN, BURN and SLOW are for the tests that source this file
SEQGEN=$OUTPUT/tests/seqgen
# shellcheck disable=SC2034
BURN=$OUTPUT/tests/burn
TEST_FILE=$(basename "$0")
TEST_NAME=${TEST_FILE%.sh}
TIMEOUT=${TRIGREC_TEST_TIMEOUT:-30}    # seconds, for any single wait
# How much slower than real hardware this machine is (tests/kernels sets it
# under emulation): multiplies the bounds that are about speed, such as how
# soon after the BPF program a record is stamped, never what is recorded.
# shellcheck disable=SC2034
SLOW=${TRIGREC_TEST_SLOW:-1}
PERF=${PERF:-perf}
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=python3; fi

T_PASS=0 T_FAIL=0 T_SKIP=0
_case='' _skip='' _errs=()
_bg=() _mounts=()
TMP=$(mktemp -d "/tmp/trigrec-$TEST_NAME.XXXXXX") || exit 1
# Waits poll without starting processes (no sleep(1), grep, $(...)): a test
# that checks names must not have its own short-lived tasks racing a
# snapshot. _nap SECONDS: read(1) on a FIFO nobody writes, with a timeout.
mkfifo "$TMP/.nap" && exec {_NAP_FD}<>"$TMP/.nap"
_nap() { read -r -t "$1" -u "$_NAP_FD" _; return 0; }
# _has FILE STRING: does FILE contain STRING? (builtins only)
_has() {
	local l
	[ -r "$1" ] || return 1
	while IFS= read -r l; do [[ $l == *"$2"* ]] && return 0; done <"$1"
	return 1
}

# ---- cleanup ----

_kill_tree() { # PID: the process and everything below it, children first
	local c
	for c in $(pgrep -P "$1" 2>/dev/null); do _kill_tree "$c"; done
	kill -KILL "$1" 2>/dev/null
}

_cleanup() {
	local p m f
	[ -n "$_case" ] && { t_fail "the test ended inside this case"; t_end; }
	# A sanitizer report in any log (trigrec's stderr goes to $TMP/*.log)
	# fails the file, even where the test expected trigrec to fail.
	while IFS= read -r f; do
		t_begin "sanitizer report in ${f#"$TMP"/}"
		t_fail "$(grep -m1 -E 'ERROR: [A-Za-z]+Sanitizer|runtime error:' "$f" | cut -c1-300)"
		t_end
	done < <(grep -rlE --include='*.log' 'ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:' "$TMP" 2>/dev/null)
	{
		for p in "${_bg[@]}"; do _kill_tree "$p"; done
		for p in "${_bg[@]}"; do wait "$p"; done
	} 2>/dev/null
	for m in "${_mounts[@]}"; do umount -l "$m" 2>/dev/null; done
	if [ -n "${KEEP_TMP:-}" ] || { [ "$T_FAIL" -gt 0 ] && [ -n "${KEEP_FAILED:-}" ]; }; then
		echo "  (kept $TMP)"
	else
		rm -rf "$TMP"
	fi
	echo "integ $TEST_FILE: $T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	[ "$T_FAIL" -eq 0 ]
}
trap '_cleanup; exit $?' EXIT
trap 'exit 130' INT TERM

# Remember a mount to undo at exit.
track_mount() { _mounts+=("$1"); }

# ---- cases and assertions ----

t_begin() { _case=$1; _skip=; _errs=(); }
t_fail() { _errs+=("$*"); return 1; }
t_skip() { _skip=$*; }
t_end() {
	if [ -n "$_skip" ] && [ ${#_errs[@]} -eq 0 ]; then
		echo "  skip $_case: $_skip"
		T_SKIP=$((T_SKIP + 1))
	elif [ ${#_errs[@]} -eq 0 ]; then
		echo "  ok   $_case"
		T_PASS=$((T_PASS + 1))
	else
		local IFS=';'
		echo "  FAIL $_case: $(printf '%s' "${_errs[*]}" | tr '\n' ' ')"
		T_FAIL=$((T_FAIL + 1))
	fi
	_case=
}
# A case that can't run because an earlier step failed: fail it, say why.
t_blocked() { t_begin "$1"; t_fail "not checked: $2"; t_end; }
t_ok() { [ ${#_errs[@]} -eq 0 ]; } # no failure in the current case yet

check_eq() { [ "$2" = "$3" ] || t_fail "$1: got '$2', want '$3'"; }
check_ne() { [ "$2" != "$3" ] || t_fail "$1: got '$2', want anything else"; }
_isnum() { [[ $1 =~ ^-?[0-9]+$ ]]; }
_numcmp() { # DESC A OP B
	if ! _isnum "$2" || ! _isnum "$4"; then
		t_fail "$1: not a number: '$2' $3 '$4'"
	elif ! test "$2" "-$3" "$4"; then
		t_fail "$1: got $2, want $3 $4"
	fi
}
check_ge() { _numcmp "$1" "$2" ge "$3"; }
check_gt() { _numcmp "$1" "$2" gt "$3"; }
check_le() { _numcmp "$1" "$2" le "$3"; }
check_lt() { _numcmp "$1" "$2" lt "$3"; }
check_match() { # DESC TEXT ERE
	printf '%s\n' "$2" | grep -Eq -- "$3" ||
		t_fail "$1: '$(printf '%s' "$2" | tr '\n' ' ' | cut -c1-300)' does not match /$3/"
}
check_nomatch() {
	printf '%s\n' "$2" | grep -Eq -- "$3" &&
		t_fail "$1: '$(printf '%s' "$2" | grep -E -- "$3" | head -3 | tr '\n' ' ' | cut -c1-300)' matches /$3/"
	return 0
}
check_cmd() { # DESC CMD...: the command must succeed
	local d=$1 out rc
	shift
	out=$(timeout -k 5 "$TIMEOUT" "$@" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 0 ] || t_fail "$d: '$*' exited $rc: $(printf '%s' "$out" | tail -3 | tr '\n' ' ' | cut -c1-300)"
}
# The tail of a log, on one line, for failure reasons.
log_tail() { tail -n "${2:-3}" "$1" 2>/dev/null | tr '\n' ' ' | cut -c1-400; }

# unknown_kframes PERF_SCRIPT_OUTPUT: frames perf script could not resolve
# among each sample's kernel frames, printed one per line. A call chain is
# its kernel frames, then its user frames: from the first user address on
# the rest is user stack, where frame-pointer unwinding of code built
# without frame pointers can read any value, fffffffffefd4800 included (seen
# in trigrec's own chain, kmod.sh on 6.12, 2026-12-06), so it is not counted.
unknown_kframes() {
	awk '/^[^ \t]/ || /^$/ { user = 0; next }
		{ if ($1 !~ /^ffff[0-9a-f]+$/ || length($1) != 16) user = 1
		  else if (!user && $2 == "[unknown]") print }' "$1"
}

need_root() {
	[ "$(id -u)" -eq 0 ] && return 0
	t_begin "$TEST_NAME"; t_skip "needs root"; t_end
	exit 0
}

# ---- running trigrec ----

# tr_run LOG ARGS...: trigrec record in the foreground, bounded by $TIMEOUT
# (then SIGTERM, which trigrec treats like Ctrl-C). Returns its exit code.
tr_run() {
	local log=$1
	shift
	timeout -k 5 "$TIMEOUT" "$TRIGREC" record "$@" >"$log" 2>&1
}

# tr_start LOG ARGS...: trigrec record in the background; waits until it says
# it is recording. Sets TR_PID. Returns 1 (and logs why) if it died or hung.
tr_start() {
	local log=$1 i
	shift
	# Empty it first: the background redirect may come after the first look,
	# and a log reused from an earlier case would say "recording" already.
	: >"$log"
	"$TRIGREC" record "$@" >"$log" 2>&1 &
	TR_PID=$!
	_bg+=("$TR_PID")
	_tr_until "$log" "$log" "trigrec: recording " "trigrec not recording after ${TIMEOUT}s"
}

# _tr_until LOG FILE TEXT WHY: until FILE holds TEXT (0); 1 when trigrec
# ($TR_PID) died first (TR_RC set) or after $TIMEOUT (WHY appended to LOG).
_tr_until() {
	local i
	for ((i = 0; i < TIMEOUT * 50; i++)); do
		_has "$2" "$3" && return 0
		kill -0 "$TR_PID" 2>/dev/null || { wait "$TR_PID"; TR_RC=$?; return 1; }
		_nap 0.02
	done
	echo "test: $4" >>"$1"
	return 1
}

# tr_start_ready LOG CMD ARGS...: `trigrec CMD ARGS` (record or run) in the
# background as systemd would run a Type=notify service: NOTIFY_SOCKET points
# at a datagram socket of the test's, and the wait is for READY=1 (not for a
# log line). Sets TR_PID; every notification is appended to $TMP/notify.out.
# Returns 1 (and logs why) if it died or never became ready.
tr_start_ready() {
	local log=$1 i
	shift
	: >"$log"
	: >"$TMP/notify.out"
	rm -f "$TMP/notify.sock"
	"$PY" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("bound", flush=True)
while True:
    d = s.recv(4096).decode(errors="replace")
    with open(sys.argv[2], "a") as f:
        f.write(d.replace("\n", " ") + "\n")
' "$TMP/notify.sock" "$TMP/notify.out" >"$TMP/notify.py.out" 2>&1 &
	_bg+=($!)
	for ((i = 0; i < 500; i++)); do _has "$TMP/notify.py.out" bound && break; _nap 0.01; done
	NOTIFY_SOCKET=$TMP/notify.sock "$TRIGREC" "$@" >"$log" 2>&1 &
	TR_PID=$!
	_bg+=("$TR_PID")
	_tr_until "$log" "$TMP/notify.out" "READY=1" "trigrec sent no READY=1 within ${TIMEOUT}s"
}

# ctxsw PID: voluntary + involuntary context switches of all its threads.
ctxsw() {
	local f n=0 k v
	for f in /proc/"$1"/task/*/status; do
		while read -r k v; do
			case $k in voluntary_ctxt_switches: | nonvoluntary_ctxt_switches:) n=$((n + v)) ;; esac
		done <"$f" 2>/dev/null
	done
	echo "$n"
}

# tr_wait [PID]: wait for a background trigrec to exit by itself; sets TR_RC
# (124 and kills it after $TIMEOUT).
tr_wait() {
	local p=${1:-$TR_PID} i
	for ((i = 0; i < TIMEOUT * 50; i++)); do
		if ! kill -0 "$p" 2>/dev/null; then
			wait "$p"
			TR_RC=$?
			return 0
		fi
		_nap 0.02
	done
	_kill_tree "$p"
	wait "$p" 2>/dev/null
	# shellcheck disable=SC2034 # read by the tests after tr_wait
	TR_RC=124
	return 1
}

# tr_stop [SIG] [PID]: signal it (default INT: Ctrl-C) and wait for it.
tr_stop() {
	kill -"${1:-INT}" "${2:-$TR_PID}" 2>/dev/null
	tr_wait "${2:-$TR_PID}"
}

# snaps DIR [NAME]: snapshot .data files in time order (NAME: trigger name,
# manual, final; default all), one per line.
snaps() {
	local f
	if [ -n "${2-}" ]; then
		for f in "$1"/*-"$2".data "$1"/*-"$2"-[0-9]*.data; do
			[ -e "$f" ] && printf '%s\n' "$f"
		done
	else
		for f in "$1"/*.data; do
			[ -e "$f" ] && printf '%s\n' "$f"
		done
	fi | sort -u
}
nsnaps() { snaps "$@" | grep -c .; }

# wait_snaps DIR NAME COUNT: until COUNT snapshots NAME (with their sidecars)
# exist. Returns 1 on timeout.
wait_snaps() {
	local i f n had=0
	shopt -q nullglob && had=1
	shopt -s nullglob
	for ((i = 0; i < TIMEOUT * 50; i++)); do
		n=0
		for f in "$1"/*-"$2".data "$1"/*-"$2"-[0-9]*.data; do
			[ -e "${f%.data}.json" ] && n=$((n + 1))
		done
		if [ "$n" -ge "$3" ]; then
			[ $had = 1 ] || shopt -u nullglob
			return 0
		fi
		_nap 0.02
	done
	[ $had = 1 ] || shopt -u nullglob
	return 1
}

# Files a failed or finished write must not leave behind.
leftovers() { find "$1" -maxdepth 1 \( -name '.trigrec-*' -o -name '*.tmp' \) 2>/dev/null; }

# perf_idle_blind CPU: true when this kernel's perf hands no tracepoint
# record of CPU's idle task to any perf ring (seen on the 6.18 VM kernel:
# CPU 1's switches out of idle and the wakeups it runs from idle never reach
# perf, not even a plain `perf record -a`; BPF programs on the same
# tracepoints see them). Measured once per test file with plain perf: 1 s
# of sched_switch on every CPU, blind where switches into swapper/CPU were
# recorded and not one record came from it.
perf_idle_blind() {
	if [ -z "${_IDLE_BLIND+set}" ]; then
		"$PERF" record -q -e sched:sched_switch -a -o "$TMP/idle-probe.data" -- sleep 1 >/dev/null 2>&1
		_IDLE_BLIND=$("$PERF" script -i "$TMP/idle-probe.data" -F tid,cpu,trace 2>/dev/null |
			awk '{ c = $2; gsub(/[^0-9]/, "", c); c += 0 }
			     $1 == 0 { idle[c]++ }
			     match($0, /next_comm=swapper\/[0-9]+/) { n = substr($0, RSTART + 18, RLENGTH - 18); into[n]++ }
			     END { for (c in into) if (into[c] > 2 && !idle[c]) printf "%s ", c }')
	fi
	[[ " $_IDLE_BLIND" == *" $1 "* ]]
}

# ---- reading snapshots ----

# decode FILE [text]: one line per sample, in time order, tab-separated:
#   time_ns cpu pid tid event arg comm [text]
# arg is the decimal value of the first "pid: 0x..." field (getpgid, getsid:
# seqgen's sequence numbers), or - when there is none; with "text", an 8th
# column holds the record's text after the event name.
decode() {
	"$PERF" script -i "$1" --ns -F trace:comm,pid,tid,cpu,time,event,trace 2>"$TMP/perf-script.err" |
		awk -v with_text="${2:-}" '
		function hex(s,   i, v, c) {
			v = 0; s = tolower(s)
			for (i = 1; i <= length(s); i++) {
				c = index("0123456789abcdef", substr(s, i, 1)) - 1
				if (c < 0) break
				v = v * 16 + c
			}
			return v
		}
		{
			if (!match($0, /[0-9]+\/[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9]+: /)) next
			comm = substr($0, 1, RSTART - 1); sub(/^ +/, "", comm); sub(/ +$/, "", comm)
			n = split(substr($0, RSTART, RLENGTH), f, /[ \/\[\]:]+/)
			split(f[4], t, ".")
			ns = t[1] substr(t[2] "000000000", 1, 9); sub(/^0+/, "", ns)
			rest = substr($0, RSTART + RLENGTH); sub(/^ +/, "", rest)
			ev = rest; sub(/: .*$/, "", ev); sub(/:$/, "", ev)
			arg = "-"
			if (match(rest, /pid: 0x[0-9a-fA-F]+/))
				arg = sprintf("%.0f", hex(substr(rest, RSTART + 7, RLENGTH - 7)))
			printf "%s\t%d\t%d\t%d\t%s\t%s\t%s", ns, f[3], f[1], f[2], ev, arg, comm
			if (with_text != "") {
				txt = rest; sub(/^[^ ]+:( |$)/, "", txt)
				printf "\t%s", txt
			}
			printf "\n"
		}'
}

# seq_check TSV BASE [RANGE]: seqgen's getpgid(BASE + i) records in TSV, i in
# [0, RANGE) (default 1000000). Prints "count first last missing disorder": missing = seqs
# absent between first and last, disorder = times a seq did not follow the
# previous one in time order (both 0 when the stream is complete).
seq_check() {
	awk -F '\t' -v base="$2" -v range="${3:-1000000}" '
		$5 == "syscalls:sys_enter_getpgid" && $6 != "-" && $6 >= base && $6 < base + range {
			s = $6 - base
			if (n && s != prev + 1) dis++
			if (!n) first = s
			if (!n || s > max) max = s
			prev = s; n++
		}
		END {
			if (!n) { print "0 - - - -"; exit }
			printf "%d %d %d %d %d\n", n, first, prev, max - first + 1 - n, dis + 0
		}' "$1"
}

# dedup_records TSV OUT: TSV (decode's) without records that repeat an earlier
# one exactly (same time, CPU, event and argument); prints how many were
# dropped. For another tool's stream only (perf record on this kernel writes
# an occasional sample twice when the tracepoint has a second user, trigrec
# or not: see perf_twice in rings.sh). trigrec's own files are never
# deduplicated.
dedup_records() {
	: >"$2"
	awk -F '\t' -v out="$2" '{ k = $1 FS $2 FS $5 FS $6 } seen[k]++ { d++; next } { print > out } END { print d + 0 }' "$1"
}

# json_load FILE: the sidecar, flattened into the associative array J
# (J[trigger.fields.pid], J[cpus.0.ring_bytes], J[cpus#] = length, ...).
# Returns 1 if it is not valid JSON.
declare -gA J
json_load() {
	local k v out
	J=()
	out=$("$PY" -c '
import json, sys
def walk(p, v):
    if isinstance(v, dict):
        for k, x in v.items(): walk(p + [str(k)], x)
    elif isinstance(v, list):
        print(".".join(p) + "#\t" + str(len(v)))
        for i, x in enumerate(v): walk(p + [str(i)], x)
    else:
        s = "true" if v is True else "false" if v is False else "null" if v is None else str(v)
        print(".".join(p) + "\t" + s.replace("\n", " "))
walk([], json.load(open(sys.argv[1])))' "$1" 2>&1) || { J[error]=$out; return 1; }
	while IFS=$'\t' read -r k v; do J[$k]=$v; done <<<"$out"
	return 0
}
j() { printf '%s' "${J[$1]-}"; } # j KEY: a field of the last json_load

# main_rings: sum of "records"/"bytes" over the main (non-tracking) rings of
# the last json_load (perf's "main" ring, rings=bpf's "set0"/"set1", or
# rings=compact's "compact" and its "carry"), and the ring size (-m's: not a
# carry's, 1/8 of it). Prints "records bytes ring_bytes".
main_rings() {
	local i n=${J[cpus#]:-0} rec=0 by=0 rb=0
	for ((i = 0; i < n; i++)); do
		[ "${J[cpus.$i.ring]}" != tracking ] || continue
		rec=$((rec + ${J[cpus.$i.records]:-0}))
		by=$((by + ${J[cpus.$i.bytes]:-0}))
		[ "${J[cpus.$i.ring]}" = carry ] || rb=${J[cpus.$i.ring_bytes]}
	done
	echo "$rec $by $rb"
}

# rings=compact: the data bytes of one CPU's compact ring (the sidecar in J).
compact_ring_bytes() {
	local i n=${J[cpus#]:-0}
	for ((i = 0; i < n; i++)); do
		[ "${J[cpus.$i.ring]}" = compact ] && { echo "${J[cpus.$i.ring_bytes]}"; return; }
	done
	echo 0
}

# A base for seqgen's numbers (the same for the whole test file), and a
# filter for them: seqgen's calls are getpgid(BASE + i), i < 1000000. -a
# recordings filter on it so that other runs' workloads (other bases) do
# not fill the rings.
_SEQ_BASE=$(((10 + (RANDOM * 32768 + RANDOM + $$) % 2000) * 1000000)) # not seqgen's default
seq_base() { echo $_SEQ_BASE; }

# The snapshots LOG says were written, in order (paths).
written() { sed -n 's/^trigrec: snapshot \(\/[^ ]*\.data\) (.*/\1/p' "$1"; }
# wait_lines LOG N ERE: until N lines of LOG match ERE.
wait_lines() {
	local i
	for ((i = 0; i < TIMEOUT * 50; i++)); do
		[ "$(grep -cE -- "$3" "$1")" -ge "$2" ] && return 0
		_nap 0.02
	done
	return 1
}
seq_filter() { echo "pid >= ${1:-$_SEQ_BASE} && pid < $((${1:-$_SEQ_BASE} + 1000000))"; }
