#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The scripts in examples/ catch what they say they catch: each runs with
# `trigrec run examples/X.trig` (its own events and triggers; only -o,
# --count 1 and --no-final-snapshot given on the command line) while
# tests/helpers/exwork provokes exactly that situation for real. Each case
# asserts the snapshot's sidecar (trigger name, kind, the provoking thread,
# the measured value against the example's threshold) and the provoking
# records in stock `perf script` output, with their exact times. Where an
# example names a program ("myapp"), a copy with exwork's name is run:
# the trigger logic stays the example's own.
. "$(dirname "$0")/lib.sh"
need_root
EXWORK=$OUTPUT/tests/exwork
EX=$ROOT/examples

if [ ! -x "$EXWORK" ]; then
	t_blocked "examples: workloads" "$EXWORK is not built (make $OUTPUT/tests/exwork)"
	exit 1
fi

# ex_script NAME: examples/NAME.trig as it is, or with "myapp" renamed
# to exwork (ex_script NAME myapp); prints the path to run.
ex_script() {
	if [ -n "${2-}" ]; then
		sed "s/\"$2\"/\"exwork\"/g" "$EX/$1.trig" >"$TMP/$1.trig"
		grep -q '"exwork"' "$TMP/$1.trig" || { echo "$EX/$1.trig has no \"$2\"" >&2; return 1; }
		printf '%s\n' "$TMP/$1.trig"
	else
		printf '%s\n' "$EX/$1.trig"
	fi
}

# ex_run CASE SCRIPT WORKLOAD...: runs the script until its first snapshot
# (--count 1) while WORKLOAD runs in $TMP/CASE (no core files). Sets D (the
# case's directory), SNAP (the snapshot's .data, or empty), WORK_RC, and
# WHY (what went wrong, for t_blocked). Returns 1 if there is no snapshot.
ex_run() {
	local c=$1 s=$2 i
	shift 2
	D=$TMP/$c SNAP='' WHY=''
	mkdir -p "$D"
	: >"$D/trigrec.log"
	"$TRIGREC" run "$s" -o "$D/out" --count 1 --no-final-snapshot >"$D/trigrec.log" 2>&1 &
	TR_PID=$!
	_bg+=("$TR_PID")
	for ((i = 0; i < TIMEOUT * 50; i++)); do
		_has "$D/trigrec.log" "trigrec: recording " && break
		kill -0 "$TR_PID" 2>/dev/null || break
		_nap 0.02
	done
	if ! _has "$D/trigrec.log" "trigrec: recording "; then
		WHY="trigrec run did not start: $(log_tail "$D/trigrec.log")"
		tr_stop KILL
		return 1
	fi
	# The outer subshell keeps bash's own "Segmentation fault" / "Killed"
	# job notices (the crash and oom-kill workloads die so on purpose) out of
	# the test output; WORK_RC still has the workload's status.
	# ("; exit" keeps bash from exec'ing the inner one in place of the outer.)
	( (cd "$D" && ulimit -c 0 && exec timeout -k 5 "$TIMEOUT" "$@") >"$D/work.out" 2>"$D/work.err"
		exit $?) 2>/dev/null
	WORK_RC=$?
	# --count 1: trigrec stops by itself once the snapshot is written.
	for ((i = 0; i < 15 * 50; i++)); do
		kill -0 "$TR_PID" 2>/dev/null || break
		_nap 0.02
	done
	tr_stop INT
	SNAP=$(snaps "$D/out" | head -1)
	if [ -z "$SNAP" ]; then
		WHY="no snapshot (workload exit $WORK_RC: $(log_tail "$D/work.err" 2); trigrec: $(log_tail "$D/trigrec.log" 4))"
		return 1
	fi
	json_load "${SNAP%.data}.json" || { WHY="sidecar: ${J[error]}"; return 1; }
	decode "$SNAP" text >"$D/d.tsv"
	return 0
}

# mk KEY: KEY=VALUE from the workload's marker line.
mk() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$D/work.out" | head -1; }

# rec TID EVENT [TEXT_ERE]: the decoded records (time cpu pid tid event arg
# comm text) of thread TID and EVENT whose text matches TEXT_ERE.
rec() {
	awk -F '\t' -v tid="$1" -v ev="$2" -v re="${3-}" \
		'$4 == tid && $5 == ev && (re == "" || $8 ~ re)' "$D/d.tsv"
}

# check_at DESC RECORD_NS BPF_NS: a record's perf time against the time the
# BPF program read for it (the sidecar's): the record is stamped just after.
check_at() {
	check_ge "$1: record time >= sidecar time" "$2" "$3"
	_isnum "$2" && _isnum "$3" && check_le "$1: record time - sidecar time" $(($2 - $3)) $((1000000 * SLOW))
}

# sidecar TRIGGER KIND: the sidecar's trigger name and kind.
sidecar() {
	check_eq "sidecar trigger.name" "$(j trigger.name)" "$1"
	check_eq "sidecar trigger.kind" "$(j trigger.kind)" "$2"
}

# ---- slow-syscalls.trig: a system call of "myapp" slower than 100 ms ----

# exwork lockwait 300: a child holds an flock(2) for 300 ms; exwork waits
# for it in flock(2) (x86_64 NR 73), a call the example does not exclude.
t_begin "slow-syscalls: a 300 ms flock(2) of exwork fires slow_syscall"
if [ "$(uname -m)" != x86_64 ]; then
	t_skip "the example's syscall numbers are x86_64's, this is $(uname -m)"
elif S=$(ex_script slow-syscalls myapp) && ex_run slow "$S" "$EXWORK" lockwait 300; then
	tid=$(mk tid) t0=$(mk start) t1=$(mk end)
	sidecar slow_syscall latency
	check_eq "trigger.tid" "$(j trigger.tid)" "$tid"
	check_eq "trigger.comm" "$(j trigger.comm)" exwork
	check_eq "trigger.fields.id (flock)" "$(j trigger.fields.id)" 73
	check_eq "trigger.fields.ret" "$(j trigger.fields.ret)" 0
	dur=$(j trigger.latency.duration_ns)
	check_gt "latency.duration_ns > the example's 100 ms" "$dur" 100000000
	check_le "latency.duration_ns <= flock as timed by exwork" "$dur" $((t1 - t0))
	# The pair in perf script: exwork's flock enter and exit, at the times
	# the sidecar gives, and nothing of that thread in between but its
	# sleep (a switch-out in S) and the wakeup by the child's unlock.
	enter=$(rec "$tid" raw_syscalls:sys_enter '^NR 73 ')
	exit_=$(rec "$tid" raw_syscalls:sys_exit '^NR 73 = 0$')
	check_eq "one flock sys_enter" "$(printf '%s' "$enter" | grep -c .)" 1
	check_eq "one flock sys_exit" "$(printf '%s' "$exit_" | grep -c .)" 1
	check_at "flock sys_enter at latency.start.time_ns" "$(cut -f1 <<<"$enter")" "$(j trigger.latency.start.time_ns)"
	check_at "flock sys_exit at latency.end.time_ns" "$(cut -f1 <<<"$exit_")" "$(j trigger.latency.end.time_ns)"
	check_eq "comm of the pair" "$(printf '%s\n%s\n' "$enter" "$exit_" | cut -f7 | sort -u)" exwork
	a=$(cut -f1 <<<"$enter") b=$(cut -f1 <<<"$exit_")
	check_match "switch-out in S while in flock" \
		"$(awk -F '\t' -v a="$a" -v b="$b" -v t="$tid" '$1 > a && $1 < b && $5 == "sched:sched_switch" && $8 ~ "prev_pid=" t " " { print $8 }' "$D/d.tsv")" \
		"prev_comm=exwork prev_pid=$tid .*prev_state=S "
	# The wakeup by the child's unlock. When the waiter was woken on an
	# idle CPU the wakeup runs in that CPU's idle task (the remote wakeup
	# list): on perf's path a kernel that drops every idle-task record of
	# that CPU (perf_idle_blind, plain perf record shows the same) has
	# neither it nor the waiter's switch-in; the ring sets record both.
	wk=$(awk -F '\t' -v a="$a" -v b="$b" '$1 > a && $1 < b && $5 == "sched:sched_wakeup" { print $8 }' "$D/d.tsv")
	wcpu=$(cut -f2 <<<"$exit_")
	if ! grep -Eq "comm=exwork pid=$tid " <<<"$wk" && [ "$(j rings)" = perf ] &&
		[ -z "$(awk -F '\t' -v a="$a" -v b="$b" -v t="$tid" '$1 > a && $1 < b && $5 == "sched:sched_switch" && $8 ~ "next_pid=" t " "' "$D/d.tsv")" ] &&
		perf_idle_blind "$wcpu"; then
		echo "  note: its wakeup and switch-in ran in CPU $wcpu's idle task, whose records this kernel's perf drops (plain perf record -a too): not checked on perf's path"
	else
		check_match "its wakeup" "$wk" "comm=exwork pid=$tid "
	fi
	# The example's kernel filter: only exwork's system calls are recorded.
	check_eq "comms of raw_syscalls records" \
		"$(awk -F '\t' '$5 ~ /^raw_syscalls:/ { print $7 }' "$D/d.tsv" | sort -u | tr '\n' ' ')" "exwork "
else
	t_fail "$WHY"
fi
t_end

# ---- crash.trig: a fatal SIGSEGV ----

t_begin "crash: a SIGSEGV with the default action fires crash"
if ex_run crash "$EX/crash.trig" "$EXWORK" crash; then
	pid=$(mk pid)
	check_eq "workload killed by SIGSEGV" "$WORK_RC" 139
	sidecar crash event
	check_eq "trigger.pid" "$(j trigger.pid)" "$pid"
	check_eq "trigger.comm" "$(j trigger.comm)" exwork
	check_eq "trigger.event" "$(j trigger.event)" signal:signal_deliver
	check_eq "trigger.fields.sig" "$(j trigger.fields.sig)" 11
	check_eq "trigger.fields.code (SEGV_MAPERR)" "$(j trigger.fields.code)" 1
	check_eq "trigger.fields.sa_handler" "$(j trigger.fields.sa_handler)" 0
	# perf script: the fault on 0x10 (a user write to an unmapped page),
	# the kernel's SIGSEGV to exwork, its delivery at the trigger's time,
	# then exwork's exit in the post window, in that order.
	f=$(rec "$pid" exceptions:page_fault_user '^address=0x10 .*error_code=0x6$' | cut -f1)
	g=$(rec "$pid" signal:signal_generate "^sig=11 errno=0 code=1 comm=exwork pid=$pid " | cut -f1)
	d=$(rec "$pid" signal:signal_deliver '^sig=11 errno=0 code=1 sa_handler=0 ' | cut -f1)
	x=$(rec "$pid" sched:sched_process_exit "^comm=exwork pid=$pid " | cut -f1)
	check_eq "page_fault_user address=0x10" "$(grep -c . <<<"$f")" 1
	check_eq "signal_generate sig=11" "$(grep -c . <<<"$g")" 1
	check_eq "signal_deliver sig=11" "$(grep -c . <<<"$d")" 1
	check_eq "sched_process_exit" "$(grep -c . <<<"$x")" 1
	check_at "signal_deliver at trigger.time_ns" "$d" "$(j trigger.time_ns)"
	check_eq "order fault < generate < deliver < exit" \
		"$(printf '%s\n' "$f" "$g" "$d" "$x" | sort -n | tr '\n' ' ')" "$f $g $d $x "
	check_le "exit within the example's post 20ms" "$((x - d))" 20000000
else
	t_fail "$WHY"
fi
t_end

# ---- dstate-stall.trig: off CPU in D state for more than 500 ms ----

# exwork dstall 700: vfork(2); the parent waits for the child in D state
# (wait_for_vfork_done, TASK_KILLABLE) while the child sleeps 700 ms.
t_begin "dstate-stall: 700 ms in D state behind vfork(2) fires dstate"
if ex_run dstate "$EX/dstate-stall.trig" "$EXWORK" dstall 700; then
	tid=$(mk tid) child=$(mk child) t0=$(mk start) t1=$(mk end)
	sidecar dstate latency
	check_eq "latency.key_values[0]" "$(j trigger.latency.key_values.0)" "$tid"
	check_eq "trigger.fields.next_pid" "$(j trigger.fields.next_pid)" "$tid"
	check_eq "trigger.fields.next_comm" "$(j trigger.fields.next_comm)" exwork
	dur=$(j trigger.latency.duration_ns)
	check_gt "latency.duration_ns > the example's 500 ms" "$dur" 500000000
	check_le "latency.duration_ns <= the vfork as timed by exwork" "$dur" $((t1 - t0))
	out=$(awk -F '\t' -v t="$tid" '$5 == "sched:sched_switch" && $8 ~ "prev_pid=" t " .*prev_state=D " { print $1 }' "$D/d.tsv")
	in=$(awk -F '\t' -v t="$tid" -v s="$out" '$1 > s && $5 == "sched:sched_switch" && $8 ~ "next_pid=" t " " { print $1; exit }' "$D/d.tsv")
	check_eq "one switch-out in D" "$(grep -c . <<<"$out")" 1
	check_at "switch-out in D at latency.start.time_ns" "$out" "$(j trigger.latency.start.time_ns)"
	check_at "next switch-in at latency.end.time_ns" "$in" "$(j trigger.latency.end.time_ns)"
	# The wakeup comes from the vfork child as it exits (the record's
	# pid is the waker's), or, when the kernel queues it to exwork's
	# idle CPU (ttwu_queue_wakelist: seen on every run since the VM moved
	# to an Intel host on 2026-12-05, also at 83f3266), from that CPU's
	# idle task, pid 0, which runs the queued wakeup.
	waker=$(awk -F '\t' -v a="$out" -v b="$in" -v t="$tid" '$1 > a && $1 < b && $5 == "sched:sched_wakeup" && $8 ~ "^comm=exwork pid=" t " " { print $3 }' "$D/d.tsv")
	[ "$waker" = 0 ] && waker=$child
	check_eq "one sched_wakeup of exwork, by the vfork child or queued to its idle CPU" "$waker" "$child"
	# The switch-out's call chain says where it slept.
	perf script -i "$SNAP" --ns --tid "$tid" -F time,event,trace,ip,sym 2>/dev/null |
		awk '/^ *[0-9]+\.[0-9]+: +sched:sched_switch: .*prev_state=D / { c = 1; next } c && NF == 0 { exit } c' \
		>"$D/chain"
	check_match "call chain of the D switch-out: the vfork" "$(cat "$D/chain")" " __x64_sys_vfork$"
	check_match "call chain of the D switch-out: waiting for the child" "$(cat "$D/chain")" \
		" (wait_for_vfork_done|wait_for_completion_state)$"
else
	t_fail "$WHY"
fi
t_end

# ---- runq-latency.trig: a thread of "myapp" runnable for more than 10 ms ----

# exwork runq 60 0: on CPU 0, thread W blocks in read(2); the main thread,
# SCHED_FIFO, writes to W's pipe (W's wakeup) and spins 60 ms: W waits for
# the CPU that long.
t_begin "runq-latency: 60 ms behind a SCHED_FIFO spinner fires runq_wakeup"
if S=$(ex_script runq-latency myapp) && ex_run runq "$S" "$EXWORK" runq 60 0; then
	waker=$(mk waker) wtid=$(mk wtid) wake=$(mk wake) run=$(mk run)
	sidecar runq_wakeup latency
	check_eq "latency.key_values[0]" "$(j trigger.latency.key_values.0)" "$wtid"
	check_eq "trigger.cpu" "$(j trigger.cpu)" 0
	check_eq "trigger.fields.next_pid" "$(j trigger.fields.next_pid)" "$wtid"
	dur=$(j trigger.latency.duration_ns)
	check_gt "latency.duration_ns > the example's 10 ms" "$dur" 10000000
	check_ge "latency.duration_ns >= the 60 ms spin" "$dur" 59000000
	check_le "latency.duration_ns <= wake to run as timed by exwork" "$dur" $((run - wake))
	w=$(awk -F '\t' -v t="$wtid" '$5 == "sched:sched_wakeup" && $8 ~ "^comm=exwork pid=" t " " { print $1 "\t" $4 }' "$D/d.tsv")
	check_eq "one sched_wakeup of W" "$(grep -c . <<<"$w")" 1
	check_eq "W woken by the waker" "$(cut -f2 <<<"$w")" "$waker"
	check_at "W's wakeup at latency.start.time_ns" "$(cut -f1 <<<"$w")" "$(j trigger.latency.start.time_ns)"
	check_at "W's switch-in at latency.end.time_ns" \
		"$(awk -F '\t' -v t="$wtid" -v s="$(cut -f1 <<<"$w")" '$1 > s && $5 == "sched:sched_switch" && $8 ~ "next_pid=" t " " { print $1; exit }' "$D/d.tsv")" \
		"$(j trigger.latency.end.time_ns)"
	# Who had CPU 0 meanwhile: the spinning waker (cpu-clock at 999 Hz:
	# about 60 samples; at least half of them).
	a=$(j trigger.latency.start.time_ns) b=$(j trigger.latency.end.time_ns)
	n=$(perf script -i "$SNAP" --ns -F tid,cpu,time,event 2>/dev/null |
		awk -v a="$a" -v b="$b" -v t="$waker" '/cpu-clock/ {
			split($3, x, "."); ns = (x[1] substr(x[2] "000000000", 1, 9)) + 0
			if ($1 == t && $2 == "[000]" && ns > a && ns < b) n++ } END { print n + 0 }')
	check_ge "cpu-clock samples of the waker on CPU 0 while W waited" "$n" 30
else
	t_fail "$WHY"
fi
t_end

# ---- syscall-storm.trig: more than 100000 system calls in one second ----

t_begin "syscall-storm: 400000 getppid(2) fire syscall_storm"
if ex_run storm "$EX/syscall-storm.trig" "$EXWORK" syscalls 400000; then
	pid=$(mk pid)
	sidecar syscall_storm rate
	check_eq "rate.key_values[0]" "$(j trigger.rate.key_values.0)" "$pid"
	check_eq "rate.count (the example's 100000, plus the one that fired)" "$(j trigger.rate.count)" 100001
	check_eq "rate.window_ns" "$(j trigger.rate.window_ns)" 1000000000
	check_eq "trigger.comm" "$(j trigger.comm)" exwork
	# No post window: exwork's last record is the sys_enter that fired,
	# and before it, back to the oldest record kept, nothing but
	# getppid (x86_64 NR 110) enters and exits in turn.
	awk -F '\t' -v p="$pid" '$3 == p && $5 ~ /^raw_syscalls:/ { print $1 "\t" $5 "\t" $8 }' "$D/d.tsv" >"$D/p.tsv"
	check_eq "last record: a sys_enter" "$(tail -1 "$D/p.tsv" | cut -f2)" raw_syscalls:sys_enter
	check_at "last record at trigger.time_ns" "$(tail -1 "$D/p.tsv" | cut -f1)" "$(j trigger.time_ns)"
	if [ "$(uname -m)" = x86_64 ]; then
		check_match "its NR" "$(tail -1 "$D/p.tsv" | cut -f3)" "^NR 110 "
		n=$(awk -F '\t' '$2 == "raw_syscalls:sys_enter" && $3 ~ /^NR 110 / { n++ } END { print n + 0 }' "$D/p.tsv")
		check_ge "getppid enters in the snapshot" "$n" 1000
		# From the first getppid on: enter, exit = PPID, enter...
		bad=$(awk -F '\t' '
			!on && $3 ~ /^NR 110 / && $2 ~ /enter/ { on = 1; want = "enter" }
			on { if ($2 !~ want || $3 !~ /^NR 110 /) { print NR ": " $0; exit }
			     want = (want == "enter") ? "exit" : "enter" }' "$D/p.tsv")
		check_eq "getppid calls alternate enter/exit to the end" "$bad" ""
	fi
else
	t_fail "$WHY"
fi
t_end

# ---- pagefault-storm.trig: more than 20000 user page faults in one second ----

# exwork faults 256: maps 256 MiB (no huge pages) and writes one byte per
# 4 KiB page: 65536 faults.
t_begin "pagefault-storm: 65536 first-touch faults fire fault_storm"
if ex_run faults "$EX/pagefault-storm.trig" "$EXWORK" faults 256; then
	pid=$(mk pid)
	sidecar fault_storm rate
	check_eq "rate.key_values[0]" "$(j trigger.rate.key_values.0)" "$pid"
	check_eq "rate.count" "$(j trigger.rate.count)" 20001
	check_eq "rate.window_ns" "$(j trigger.rate.window_ns)" 1000000000
	check_eq "trigger.event" "$(j trigger.event)" exceptions:page_fault_user
	check_eq "trigger.comm" "$(j trigger.comm)" exwork
	# The mapping: mmap of 256 MiB, madvise(MADV_NOHUGEPAGE = 15).
	check_eq "sys_enter_mmap len=0x10000000" \
		"$(awk -F '\t' -v p="$pid" '$3 == p && $5 == "syscalls:sys_enter_mmap" && $8 ~ /len: 0x0*10000000,/' "$D/d.tsv" | grep -c .)" 1
	m=$(awk -F '\t' -v p="$pid" '$3 == p && $5 == "syscalls:sys_enter_madvise" && $8 ~ /len_in: 0x0*10000000, behavior: 0x0*f$/ { print $1 "\t" $8 }' "$D/d.tsv")
	check_eq "sys_enter_madvise MADV_NOHUGEPAGE" "$(grep -c . <<<"$m")" 1
	# After it: write faults (error_code 0x6) on consecutive pages from
	# the start of the mapping, the last one the trigger's.
	start=$(sed -n 's/.*start: \(0x[0-9a-f]*\),.*/\1/p' <<<"$m")
	m=$(cut -f1 <<<"$m")
	awk -F '\t' -v p="$pid" -v m="${m:-0}" '$3 == p && $1 > m && $5 == "exceptions:page_fault_user" { print $1 "\t" $8 }' "$D/d.tsv" >"$D/f.tsv"
	check_at "last fault at trigger.time_ns" "$(tail -1 "$D/f.tsv" | cut -f1)" "$(j trigger.time_ns)"
	check_eq "first fault at the start of the mapping" \
		"$(head -1 "$D/f.tsv" | sed -n 's/.*address=0x0*\([0-9a-f]*\) .*/\1/p')" "${start#0x}"
	# POSIX awk (mawk, Debian's default) has no strtonum: convert the hex
	# address by hand (user addresses fit a double's 53 bits exactly).
	bad=$(awk -F '\t' 'function hex(s,  i, n) { s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return n }
		{ split($2, a, /[ =]/); addr = hex(a[2])
		if (addr == 0) { print NR ": no address: " $2; exit }
		if (NR > 1 && addr != prev + 4096) { print NR ": " $2; exit }
		if ($2 !~ /error_code=0x6$/) { print NR ": " $2; exit }
		prev = addr }' "$D/f.tsv")
	check_eq "faults on consecutive pages, each a write to a missing page" "$bad" ""
	# The window opened at the pid's first fault: if that is within the
	# second before the trigger and no ring wrapped, the snapshot holds
	# every fault counted.
	first=$(awk -F '\t' -v p="$pid" '$3 == p && $5 == "exceptions:page_fault_user" { print $1; exit }' "$D/d.tsv")
	wrapped=$(for ((i = 0; i < ${J[cpus#]}; i++)); do j "cpus.$i.wrapped"; echo; done | sort -u | tr '\n' ' ')
	if [ "$wrapped" = "false " ] && [ $(($(j trigger.time_ns) - first)) -lt 1000000000 ]; then
		check_eq "faults of exwork in the snapshot = rate.count" \
			"$(rec "$pid" exceptions:page_fault_user | grep -c .)" "$(j trigger.rate.count)"
	else
		check_ge "faults after the madvise" "$(grep -c . "$D/f.tsv")" 1000
	fi
else
	t_fail "$WHY"
fi
t_end

# ---- out-of-resources.trig: a system call fails with EMFILE ----

# exwork emfile: RLIMIT_NOFILE 16, then openat(2) of /dev/null until EMFILE.
t_begin "out-of-resources: openat(2) failing with EMFILE fires out_of_fds"
if ex_run emfile "$EX/out-of-resources.trig" "$EXWORK" emfile; then
	pid=$(mk pid) tid=$(mk tid) fds=$(mk fds)
	check_eq "exwork saw EMFILE" "$(mk errno)" 24
	check_eq "descriptors opened (3..15)" "$fds" 13
	sidecar out_of_fds event
	check_eq "trigger.tid" "$(j trigger.tid)" "$tid"
	check_eq "trigger.comm" "$(j trigger.comm)" exwork
	check_eq "trigger.event" "$(j trigger.event)" raw_syscalls:sys_exit
	check_eq "trigger.fields.ret (EMFILE)" "$(j trigger.fields.ret)" -24
	# perf script: the failing exit last (no post window), and before it
	# exwork's successful openat(2) calls (x86_64 NR 257) up to fd 15, the
	# last one RLIMIT_NOFILE 16 allows.
	awk -F '\t' -v t="$tid" '$4 == t && $5 == "raw_syscalls:sys_exit" { print $1 "\t" $8 }' "$D/d.tsv" >"$D/x.tsv"
	check_eq "last exit: the failure" "$(tail -1 "$D/x.tsv" | cut -f2 | sed 's/^NR [0-9]* = //')" -24
	check_at "the failure at trigger.time_ns" "$(tail -1 "$D/x.tsv" | cut -f1)" "$(j trigger.time_ns)"
	if [ "$(uname -m)" = x86_64 ]; then
		check_eq "trigger.fields.id (openat)" "$(j trigger.fields.id)" 257
		check_eq "the $fds openat(2) exits before it" \
			"$(tail -n $((fds + 1)) "$D/x.tsv" | head -n "$fds" | cut -f2 | tr '\n' ' ')" \
			"$(for ((i = 16 - fds; i < 16; i++)); do printf 'NR 257 = %d ' $i; done)"
	fi
else
	t_fail "$WHY"
fi
t_end

# ---- tcp-resets.trig: a reset received on a connection ----

# exwork tcpreset: a loopback connection whose accepting side closes with
# SO_LINGER 0; the client's read(2) gets ECONNRESET.
t_begin "tcp-resets: an RST on a loopback connection fires reset_received"
if ex_run tcp "$EX/tcp-resets.trig" "$EXWORK" tcpreset; then
	pid=$(mk pid) sport=$(mk sport) cport=$(mk cport)
	check_eq "exwork's read got" "$(mk err)" ECONNRESET
	sidecar reset_received event
	check_eq "trigger.event" "$(j trigger.event)" tcp:tcp_receive_reset
	check_eq "trigger.pid" "$(j trigger.pid)" "$pid"
	check_eq "trigger.fields.sport (the client's)" "$(j trigger.fields.sport)" "$cport"
	check_eq "trigger.fields.dport (the server's)" "$(j trigger.fields.dport)" "$sport"
	# perf script: the client's connection established, the reset it
	# received at the trigger's time, the server's reset sent to it
	# (within the example's post 10ms), and both sockets destroyed.
	c=127.0.0.1
	est=$(awk -F '\t' -v x="sport=$cport dport=$sport " '$5 == "sock:inet_sock_set_state" && index($8, x) && $8 ~ /oldstate=TCP_SYN_SENT newstate=TCP_ESTABLISHED$/ { print $1 }' "$D/d.tsv")
	rr=$(awk -F '\t' -v x="sport=$cport dport=$sport " '$5 == "tcp:tcp_receive_reset" && index($8, x) { print $1 }' "$D/d.tsv")
	rs=$(awk -F '\t' -v x="src=$c:$sport dest=$c:$cport " '$5 == "tcp:tcp_send_reset" && index($8, x) { print $1 }' "$D/d.tsv")
	check_eq "client ESTABLISHED" "$(grep -c . <<<"$est")" 1
	check_eq "tcp_receive_reset" "$(grep -c . <<<"$rr")" 1
	check_eq "tcp_send_reset from the server" "$(grep -c . <<<"$rs")" 1
	check_at "tcp_receive_reset at trigger.time_ns" "$rr" "$(j trigger.time_ns)"
	check_eq "order established < reset received" "$(printf '%s\n' "$est" "$rr" | sort -n | head -1)" "$est"
	check_le "reset sent within the post window" "$((rs - rr))" 10000000
	check_eq "tcp_destroy_sock of the client" \
		"$(awk -F '\t' -v x="sport=$cport dport=$sport " '$5 == "tcp:tcp_destroy_sock" && index($8, x)' "$D/d.tsv" | grep -c .)" 1
else
	t_fail "$WHY"
fi
t_end

# ---- oom-kill.trig: the OOM killer, in a memory cgroup of 64 MiB ----

# exwork alloc 256 in a cgroup limited to 64 MiB (no swap use): the memcg
# OOM killer kills it, and nothing outside the cgroup.
t_begin "oom-kill: exwork over a 64 MiB memory cgroup fires oom_kill"
CGM=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
CG='' lim=''
if [ -n "$CGM" ] && [ -w "$CGM" ]; then
	CG=$CGM/trigrec-examples-$$ lim=memory.limit_in_bytes
elif [ -n "$CG2" ] && grep -qw memory "$CG2/cgroup.subtree_control" 2>/dev/null; then
	CG=$CG2/trigrec-examples-$$ lim=memory.max
fi
if [ -z "$CG" ]; then
	t_skip "no memory cgroup controller to limit the workload with (v1 memory or v2 with memory enabled)"
elif ! mkdir "$CG" 2>/dev/null; then
	t_skip "cannot create the memory cgroup $CG"
else
	trap 'rmdir "'"$CG"'" 2>/dev/null; _cleanup; exit $?' EXIT
	echo $((64 << 20)) >"$CG/$lim"
	[ -e "$CG/memory.swappiness" ] && echo 0 >"$CG/memory.swappiness" 2>/dev/null
	[ -e "$CG/memory.swap.max" ] && echo 0 >"$CG/memory.swap.max"
	# shellcheck disable=SC2016 # $$ and $1 are the inner sh's
	if ex_run oom "$EX/oom-kill.trig" sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" alloc 256' sh "$CG" "$EXWORK"; then
		pid=$(mk pid)
		check_eq "workload killed by SIGKILL" "$WORK_RC" 137
		check_eq "workload did not finish" "$(grep -c 'alloc done' "$D/work.out")" 0
		sidecar oom_kill event
		check_eq "trigger.event" "$(j trigger.event)" oom:mark_victim
		check_eq "trigger.fields.pid (victim)" "$(j trigger.fields.pid)" "$pid"
		check_eq "trigger.fields.comm (victim)" "$(j trigger.fields.comm)" exwork
		check_eq "trigger.pid (the task that ran out)" "$(j trigger.pid)" "$pid"
		rss=$(j trigger.fields.anon_rss)
		check_ge "victim anon_rss (kB) near the 64 MiB limit" "$rss" 50000
		check_le "victim anon_rss (kB) at most the limit" "$rss" 65536
		v=$(rec "$pid" oom:mark_victim "^pid=$pid " | cut -f1)
		k=$(awk -F '\t' -v p="$pid" '$5 == "signal:signal_generate" && $8 ~ "^sig=9 .* comm=exwork pid=" p " " { print $1 }' "$D/d.tsv")
		x=$(rec "$pid" sched:sched_process_exit "^comm=exwork pid=$pid " | cut -f1)
		r=$(awk -F '\t' -v p="$pid" -v v="${v:-0}" '$3 == p && $1 < v && $5 == "vmscan:mm_vmscan_memcg_reclaim_begin" { n++ } END { print n + 0 }' "$D/d.tsv")
		check_at "mark_victim at trigger.time_ns" "$v" "$(j trigger.time_ns)"
		check_eq "signal_generate sig=9 to exwork" "$(grep -c . <<<"$k")" 1
		check_eq "sched_process_exit of exwork" "$(grep -c . <<<"$x")" 1
		# The killer sends SIGKILL, then marks the victim (__oom_kill_process).
		check_eq "order SIGKILL < mark_victim < exit" \
			"$(printf '%s\n' "$k" "$v" "$x" | sort -n | tr '\n' ' ')" "$k $v $x "
		check_le "exit within the example's post 100ms" "$((x - v))" 100000000
		check_ge "memcg reclaim by exwork before the kill" "$r" 1
	else
		t_fail "$WHY"
	fi
	rmdir "$CG" 2>/dev/null
fi
t_end

# ---- slow-function.trig and usdt-marker.trig: dynamic probes ----

# The examples name a placeholder program: run on tests/helpers/probework,
# whose probework_call(i, ms, "call-<i>") returns i * 10 and whose USDT probe
# probework:tick(i, tag) has a semaphore.
PW=$OUTPUT/tests/probework
pw_script() {
	sed -e "s|/usr/local/bin/myapp|$PW|g" \
		-e 's/handle_request/probework_call/g; s/myapp:request__done/probework:tick/g' \
		"$EX/$1.trig" >"$TMP/$1.trig"
	printf '%s\n' "$TMP/$1.trig"
}

t_begin "slow-function: a 300 ms call of probework_call fires slow_call, with its arguments"
if [ ! -x "$PW" ]; then
	t_fail "$PW is not built"
elif ex_run slowfn "$(pw_script slow-function)" "$PW" -n 5 -s 3 -m 300; then
	sidecar slow_call latency
	check_eq "trigger.comm" "$(j trigger.comm)" probework
	check_eq "trigger.fields.ret (3 * 10)" "$(j trigger.fields.ret)" 30
	check_gt "latency.duration_ns > the example's 100 ms" "$(j trigger.latency.duration_ns)" 300000000
	check_match "start event" "$(j trigger.latency.start.event)" '^trigrec_[0-9]+:probework_call$'
	tid=$(j trigger.tid)
	# Up to the trigger (the post window adds the calls after it).
	calls=$(awk -F '\t' -v t="$tid" '$4 == t && $5 ~ /^trigrec_[0-9]+:probework_call(__return)?$/ { sub(/^\([^)]*\) */, "", $8); print $8; if ($8 == "ret=30") exit }' "$D/d.tsv")
	check_eq "the calls in perf script, up to the trigger" "$(tr '\n' '|' <<<"$calls")" \
		'id=1 len=0 path="call-1"|ret=10|id=2 len=0 path="call-2"|ret=20|id=3 len=300 path="call-3"|ret=30|'
	s=$(awk -F '\t' -v t="$tid" '$4 == t && $8 ~ /path="call-3"/ { print $1 }' "$D/d.tsv")
	e=$(awk -F '\t' -v t="$tid" '$4 == t && $8 ~ /ret=30$/ { print $1 }' "$D/d.tsv")
	check_at "entry at latency.start.time_ns" "$s" "$(j trigger.latency.start.time_ns)"
	check_at "return at latency.end.time_ns" "$e" "$(j trigger.latency.end.time_ns)"
	check_match "switch-out while sleeping in the call" \
		"$(awk -F '\t' -v a="$s" -v b="$e" -v t="$tid" '$1 > a && $1 < b && $5 == "sched:sched_switch" && $8 ~ "prev_pid=" t " " { print $8 }' "$D/d.tsv")" \
		"prev_comm=probework prev_pid=$tid .*prev_state=S "
else
	t_fail "$WHY"
fi
t_end

t_begin "usdt-marker: the 500th probework:tick fires failed_request, its semaphore raised"
if [ ! -x "$PW" ]; then
	t_fail "$PW is not built"
elif ex_run usdt "$(pw_script usdt-marker)" "$PW" -n 600 -u -w 10; then
	sidecar failed_request event
	check_eq "trigger.fields.arg1" "$(j trigger.fields.arg1)" 500
	check_match "the workload saw its semaphore raised" "$(cat "$D/work.out")" '^semaphore=[1-9]'
	ticks=$(awk -F '\t' '$5 ~ /^trigrec_[0-9]+:probework__tick$/ { sub(/^\([^)]*\) */, "", $8); sub(/ arg2=.*/, "", $8); print $8; if ($8 == "arg1=500") exit }' "$D/d.tsv")
	check_eq "ticks recorded up to the trigger" "$(grep -c . <<<"$ticks")" 500
	check_eq "first and last tick" "$(head -1 <<<"$ticks") $(tail -1 <<<"$ticks")" "arg1=1 arg1=500"
	check_at "the last tick at trigger.time_ns" \
		"$(awk -F '\t' '$5 ~ /probework__tick$/ && $8 ~ /arg1=500 / { print $1 }' "$D/d.tsv")" "$(j trigger.time_ns)"
else
	t_fail "$WHY"
fi
t_end
