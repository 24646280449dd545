#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Set-up: every limit that can be known is checked before anything is
# opened (tracepoints per run, memory, locked memory, -F), so a bad
# configuration is refused in well under a second with a message that names
# the numbers; Ctrl-C ends a slow set-up at once; permission and tracefs
# errors name the real cause; long user input never cuts the explanation.
. "$(dirname "$0")/lib.sh"
need_root

TRACEFS=/sys/kernel/tracing
[ -d $TRACEFS/events ] || TRACEFS=/sys/kernel/debug/tracing
NCPU=$(grep -c ^processor /proc/cpuinfo)

# refused NAME MAXSEC ERE [RC] -- CMD...: a case where CMD fails (with exit
# code RC if given) within MAXSEC seconds, stderr matches ERE, no snapshot
# is written. Leaves the message in $MSG and the case open for more checks:
# the caller ends it with t_end.
n_ref=0
refused() {
	local name=$1 max=$2 re=$3 want_rc='' rc t0 t1 ms log out
	shift 3
	if [ "$1" != -- ]; then want_rc=$1; shift; fi
	shift
	n_ref=$((n_ref + 1))
	# Under ASan/UBSan (make check SAN=1) reading ~700 format files takes ~20x longer.
	case $TRIGREC in *.output-san/*) max=$((max * 3)) ;; esac
	log=$TMP/ref$n_ref.log out=$TMP/ref$n_ref
	t_begin "setup: $name"
	t0=$(date +%s%N)
	(cd "$TMP" && timeout -k 5 "$TIMEOUT" "$@") >"$log" 2>&1
	rc=$?
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	MSG=$(cat "$log")
	check_ne "exit code" "$rc" 0
	check_ne "exit code (timed out)" "$rc" 124
	[ -n "$want_rc" ] && check_eq "exit code" "$rc" "$want_rc"
	check_le "milliseconds to the refusal" "$ms" $((max * 1000))
	check_match "message" "$MSG" "$re"
	check_eq "snapshots written" "$(find "$TMP" -name '*.data' 2>/dev/null | head -3)" ""
}

skip_case() { t_begin "setup: $1"; t_skip "$2"; t_end; }

# ---- tracepoints per run (TRIGREC_MAX_HOOKS = 512) ----

nsys=$(find $TRACEFS/events/syscalls -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l)
nenter=$(find $TRACEFS/events/syscalls -mindepth 1 -maxdepth 1 -type d -name 'sys_enter_*' 2>/dev/null | wc -l)
if [ "$nsys" -le 512 ]; then
	skip_case "too many tracepoints" "only $nsys syscall tracepoints here (need > 512)"
else
	# Before: 720 tracepoints opened on every CPU (and closed again, ~25 ms
	# each) for 19-27 s before "at most 512". The compact rings number at
	# most 128 events: auto (the default) goes on to the ring sets, where
	# the limit of 512 refuses; --rings compact refuses itself (below).
	renv=${TRIGREC_RINGS:-auto}
	[ "$renv" = compact ] && renv=auto
	refused "-e 'syscalls:*' is refused before anything is opened" 2 \
		"too many tracepoints: $nsys would carry trigrec's BPF program \\($nsys recorded.*at most 512.*-e 'syscalls:\\*' matches $nsys" \
		-- env TRIGREC_RINGS="$renv" "$TRIGREC" record -e 'syscalls:*' -o "$TMP/o" -- true
	check_match "how to narrow it" "$MSG" "trigrec list GLOB.*--no-gates"
	t_end
	# Trigger-only tracepoints count too, and are counted before any is opened.
	refused "recorded + trigger tracepoints over the limit" 2 \
		"too many tracepoints: $nsys would carry .*\\($nenter recorded, each with its freeze gate, and $((nsys - nenter)) only for triggers\\), at most 512" \
		-- env TRIGREC_RINGS="$renv" "$TRIGREC" record -e 'syscalls:sys_enter_*' --trigger 'syscalls:sys_exit_*' -o "$TMP/o" -- true
	t_end
	refused "--rings compact: more than 128 BPF-written tracepoints" 2 \
		"--rings compact: $nenter tracepoints written by BPF, the compact encoding numbers at most 128 \\(narrow the -e globs\\): use --rings bpf" \
		-- "$TRIGREC" record --rings compact -e 'syscalls:sys_enter_*' -o "$TMP/o" -- true
	t_end
fi

# ---- -F above kernel.perf_event_max_sample_rate ----

maxrate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
if [ "$maxrate" -ge 1000000 ]; then
	skip_case "-F above the kernel's limit" "perf_event_max_sample_rate is $maxrate (-F takes at most 1000000)"
else
	# Before: "the kernel rejected cpu-clock on CPU 0 (EINVAL): it may lack write_backward".
	refused "-F above kernel.perf_event_max_sample_rate names the limit and the sysctl" 2 \
		"-F $((maxrate + 1)) is above kernel.perf_event_max_sample_rate \\($maxrate\\).*lower -F to $maxrate.*sysctl -w kernel.perf_event_max_sample_rate=$((maxrate + 1))" \
		-- "$TRIGREC" record -e cpu-clock -F $((maxrate + 1)) -o "$TMP/o" -- true
	check_nomatch "blames an old kernel" "$MSG" "write_backward|use_clockid"
	t_end
fi

# ---- memory ----

# A memory cgroup too small for the snapshot copies (2 sets of every ring, in
# trigrec's memory). Before: trigrec faulted them in and was OOM-killed.
memcg_dir() { # a new memory cgroup below ours, v1 or v2; prints its path
	local mnt rel
	mnt=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
	if [ -n "$mnt" ]; then
		rel=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3; exit }' /proc/self/cgroup)
	else
		mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
		rel=$(awk -F: '$1 == "0" { print $3; exit }' /proc/self/cgroup)
		grep -qw memory "$mnt/cgroup.controllers" 2>/dev/null || return 1
		# A v2 child only gets memory.max if its parent delegates it.
		grep -qw memory "$mnt$rel/cgroup.subtree_control" 2>/dev/null || return 1
	fi
	[ -n "$mnt" ] || return 1
	mkdir "$mnt${rel%/}/trigrec-test-$$" 2>/dev/null || return 1
	echo "$mnt${rel%/}/trigrec-test-$$"
}
if ! CG=$(memcg_dir); then
	skip_case "memory cgroup smaller than the copies" "cannot make a memory cgroup here (no memory controller we may use)"
else
	_cg_cleanup() { rmdir "$CG" 2>/dev/null; }
	trap '_cg_cleanup; _cleanup; exit $?' EXIT
	# -m 64M: copies are 2 x NCPU x 64 MiB; the cgroup gets half of that.
	lim=$((NCPU * 64))M
	if [ -e "$CG/memory.limit_in_bytes" ]; then echo $lim >"$CG/memory.limit_in_bytes"; else echo $lim >"$CG/memory.max"; fi
	# shellcheck disable=SC2016 # $$ and $1 are the inner sh's
	refused "a memory cgroup smaller than the snapshot copies is refused up front" 5 \
		"-m 64 MiB on $NCPU CPUs? needs [0-9.]+ MiB of snapshot copies .*\\(2 sets x $NCPU CPUs x \\(((2 x )?64 MiB main|72.4 MiB compact) \\+ 64 KiB tracking\\)\\), but memory cgroup $CG lets it grow by only .*\\(limit $((NCPU * 64)) MiB\\).*-m [0-9]+ MiB fits" 1 \
		-- sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" \
		"$TRIGREC" record -e syscalls:sys_enter_getpgid -m 64M -a -o "$TMP/o"
	check_nomatch "OOM-killed" "$MSG" "Killed"
	t_end
fi

# Without CAP_IPC_LOCK, perf lets a user lock kernel.perf_event_mlock_kb per
# CPU plus RLIMIT_MEMLOCK. Before: the ring's mmap failed with EPERM after
# every event was opened, with no numbers.
mlock_kb=$(cat /proc/sys/kernel/perf_event_mlock_kb)
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if ! command -v setpriv >/dev/null; then
	skip_case "rings over the locked-memory limit" "setpriv (util-linux) is not installed"
elif [ "$paranoid" -le -1 ]; then
	skip_case "rings over the locked-memory limit" "kernel.perf_event_paranoid is $paranoid: perf applies no mlock limit"
elif [ "$(ulimit -l)" = unlimited ]; then
	skip_case "rings over the locked-memory limit" "RLIMIT_MEMLOCK is unlimited: perf applies no mlock limit"
elif [ "${TRIGREC_RINGS:-auto}" = compact ] || [ "${TRIGREC_RINGS:-auto}" = auto ]; then
	skip_case "rings over the locked-memory limit" "the compact rings are a BPF map, charged to the memory cgroup, not perf's locked memory: nothing over the limit to refuse"
else
	allow_kb=$((mlock_kb * NCPU + $(ulimit -l)))
	m=64
	while [ $((m * 1024 * NCPU)) -le "$allow_kb" ]; do m=$((m * 2)); done
	refused "rings over the locked-memory limit are refused up front, with the numbers" 2 \
		"-m $m MiB on $NCPU CPUs? needs [0-9.]+ MiB of rings locked in memory.*without CAP_IPC_LOCK perf lets this user lock .*kernel.perf_event_mlock_kb = $mlock_kb KiB per CPU x $NCPU online CPUs.*RLIMIT_MEMLOCK.*fits.*sysctl -w kernel.perf_event_mlock_kb=[0-9]+" 1 \
		-- setpriv --bounding-set=-ipc_lock --inh-caps=-ipc_lock \
		"$TRIGREC" record -e syscalls:sys_enter_getpgid -m ${m}M -a -o "$TMP/o"
	t_end
fi

# ---- Ctrl-C during set-up ----

# The largest -m up to 1G that takes at most a third of the available memory
# (rings + 2 copies = 3 x -m per CPU), so the memory check lets it through.
avail_mb=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
m=1024
while [ $((m * 3 * NCPU * 3)) -gt "$avail_mb" ] && [ $m -gt 64 ]; do m=$((m / 2)); done
for sig in INT TERM; do
	t_begin "setup: SIG$sig during set-up (-m ${m}M on $NCPU CPUs) ends it within 5 s"
	log=$TMP/int-$sig.log
	"$TRIGREC" record -e syscalls:sys_enter_getpgid -m ${m}M -a -o "$TMP/int-$sig" >"$log" 2>&1 &
	pid=$!
	_bg+=("$pid")
	_nap 1
	if _has "$log" "trigrec: recording "; then
		t_skip "set-up of -m ${m}M finished within 1 s here: nothing left to interrupt"
		tr_stop INT "$pid"
	else
		t0=$(date +%s%N)
		kill -$sig "$pid"
		tr_wait "$pid"
		t1=$(date +%s%N)
		# Before: ignored until set-up ended (6-30 s), then a final snapshot.
		# Now the loops stop within milliseconds; unmapping and freeing
		# gigabytes of rings and copy buffers then takes 0.5-3 s on this VM.
		check_le "milliseconds from SIG$sig to exit" $(((t1 - t0) / 1000000)) 5000
		check_eq "exit code" "$TR_RC" 130
		check_match "message" "$(cat "$log")" "interrupted during set-up.*nothing was recorded"
		check_nomatch "message" "$(cat "$log")" "trigrec: recording "
		check_eq "snapshots written" "$(find "$TMP/int-$sig" -name '*.data' 2>/dev/null)" ""
	fi
	t_end
done

# ---- permissions ----

# Root in a user namespace: every capability, and yet perf_event_open says
# EACCES. Before: "run as root".
if ! unshare --user --map-root-user true 2>/dev/null; then
	skip_case "EACCES as root does not say 'run as root'" "cannot create a user namespace here"
else
	refused "EACCES as root (in a user namespace) names the namespace, not root" 5 \
		"permission denied opening (sched:sched_switch|dummy:u) on CPU [0-9]+ although trigrec runs as root: trigrec runs in a user namespace" \
		-- unshare --user --map-root-user "$TRIGREC" record -e sched:sched_switch -a -o "$TMP/o"
	check_nomatch "advice" "$MSG" "run as root"
	t_end
fi

# A non-root user whose tracefs is mode 0700: it is mounted, just closed.
# Before: "tracefs is not mounted and mounting it failed"; then advice to
# open it to everyone (mode=0755). Now the one permission message: what is
# missing and the least change (caps.sh has the rest of it).
mode=$(stat -c %a $TRACEFS)
if ! command -v setpriv >/dev/null; then
	skip_case "unreadable tracefs for a non-root user" "setpriv (util-linux) is not installed"
elif setpriv --reuid=65534 --regid=65534 --clear-groups test -r $TRACEFS/events; then
	skip_case "unreadable tracefs for a non-root user" "$TRACEFS (mode $mode) is readable by user 65534"
else
	refused "a tracefs closed to the user says so, not 'not mounted'" 2 \
		"uid 65534 is missing CAP_PERFMON and CAP_BPF and cannot read tracefs at $TRACEFS \\(mode 0?$mode.*run it as root.*mount -o remount,gid=GID,mode=0750 $TRACEFS" \
		-- setpriv --reuid=65534 --regid=65534 --clear-groups "$TRIGREC" list 'sched:*'
	check_nomatch "wrong diagnosis" "$MSG" "not mounted|not available"
	check_nomatch "opens tracefs to everyone" "$MSG" "0755"
	t_end
fi

# ---- long input keeps the explanation ----

long=$(head -c 10000 /dev/zero | tr '\0' x)
refused "a 10 KB -e name: the input is shortened, the reason kept" 2 \
	"no tracepoint matches 'sched:x{100,}\\.\\.\\.\\(10006 bytes\\)': .*\\(see \`trigrec list\`\\)$" \
	-- "$TRIGREC" record -e "sched:$long" -o "$TMP/o" -- true
check_le "message length" "${#MSG}" 600
t_end

# A filter the kernel rejects, long but under its 4 KiB limit: before, the
# echoed filter filled the 4 KiB log buffer and the field list was cut off.
filter="nosuchfield == 1"
while [ ${#filter} -lt 4050 ]; do filter="$filter || nosuchfield == 1"; done
refused "a long bad --filter: the field list survives" 5 \
	"bad --filter 'nosuchfield == 1 .*\\.\\.\\.\\([0-9]+ bytes\\)' for syscalls:sys_enter_getpgid.*fields: __syscall_nr, pid" \
	-- "$TRIGREC" record -e syscalls:sys_enter_getpgid --filter "$filter" -o "$TMP/o" -- true
t_end
while [ ${#filter} -lt 10000 ]; do filter="$filter || nosuchfield == 1"; done
refused "a --filter over the kernel's 4 KiB is refused before opening, with the limit" 2 \
	"--filter for -e syscalls:sys_enter_getpgid is ${#filter} bytes: the kernel takes at most $(($(getconf PAGESIZE) - 1))" \
	-- "$TRIGREC" record -e syscalls:sys_enter_getpgid --filter "$filter" -o "$TMP/o" -- true
t_end
