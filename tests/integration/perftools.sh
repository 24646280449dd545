#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stock perf reads snapshots: report, evlist, header, trace fields,
# sched timehist on sched_switch + sched_wakeup, and -g call chains with
# kernel symbols resolved.
. "$(dirname "$0")/lib.sh"
need_root
if ! command -v "$PERF" >/dev/null; then
	t_begin "perftools"; t_skip "no perf"; t_end; exit 0
fi

# perf CMD... on the snapshot: output in $TMP/p.out; fails the case on a
# non-zero exit or an "incompatible"/"failed to process" complaint.
perf_ok() {
	local rc
	timeout -k 5 "$TIMEOUT" "$PERF" "$@" >"$TMP/p.out" 2>"$TMP/p.err"
	rc=$?
	[ $rc -eq 0 ] || t_fail "perf $*: exit $rc: $(log_tail "$TMP/p.err")"
	! grep -qiE 'incompatible|failed to process|non matching|bad file' "$TMP/p.err" ||
		t_fail "perf $*: $(grep -iE 'incompatible|failed to process|non matching|bad file' "$TMP/p.err" | head -2 | tr '\n' ' ')"
	[ $rc -eq 0 ]
}

# A scheduler snapshot: burn and a sleeping loop switch and wake all the time.
D=$TMP/sched
if tr_start "$TMP/sched.log" -a -m 512K -o "$D" --no-final-snapshot \
	-e sched:sched_switch,sched:sched_wakeup; then
	"$BURN" -d 0.3 -s 20000 >/dev/null &
	bp=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do "$SEQGEN" -n 10 -t 20 -b 1 -w 10000 >/dev/null; done
	wait $bp
	kill -USR2 "$TR_PID"
	wait_snaps "$D" manual 1
	tr_stop INT
fi
F=$(snaps "$D" manual | head -1)
t_begin "perftools: a sched snapshot is written"
check_ne "manual snapshot" "$F" ""
t_end

if [ -n "$F" ]; then
	t_begin "perftools: perf report --stdio"
	if perf_ok report --stdio -i "$F" --sort comm,pid; then
		check_match "report" "$(cat "$TMP/p.out")" "sched:sched_switch"
		check_match "report" "$(cat "$TMP/p.out")" "burn"
	fi
	t_end

	t_begin "perftools: perf evlist -v"
	if perf_ok evlist -v -i "$F"; then
		check_match "evlist" "$(cat "$TMP/p.out")" "^sched:sched_switch: "
		check_match "evlist" "$(cat "$TMP/p.out")" "^sched:sched_wakeup: "
		check_match "evlist" "$(cat "$TMP/p.out")" "sample_type: .*IDENTIFIER"
	fi
	t_end

	t_begin "perftools: perf evlist --trace-fields"
	if perf_ok evlist -i "$F" --trace-fields; then
		check_match "trace fields" "$(cat "$TMP/p.out")" "prev_comm"
		check_match "trace fields" "$(cat "$TMP/p.out")" "target_cpu"
	fi
	t_end

	t_begin "perftools: perf report --header-only"
	if perf_ok report --header-only -i "$F"; then
		h=$(cat "$TMP/p.out")
		# Fixed strings: a release such as 6.12.118+deb13-amd64 is no regex.
		grep -qxF "# hostname : $(hostname)" "$TMP/p.out" || t_fail "header: no '# hostname : $(hostname)'"
		grep -qxF "# os release : $(uname -r)" "$TMP/p.out" || t_fail "header: no '# os release : $(uname -r)'"
		check_match "header" "$h" "^# nrcpus online : [0-9]+"
		check_match "header" "$h" "^# cmdline : .*trigrec record"
		check_match "header" "$h" "^# event : name = sched:sched_switch"
	fi
	t_end

	t_begin "perftools: perf sched timehist"
	if perf_ok sched timehist -i "$F"; then
		check_ge "timehist lines naming burn" "$(grep -c 'burn\[' "$TMP/p.out")" 1
		check_nomatch "timehist" "$(cat "$TMP/p.err")" "[Ff]ailed|[Ee]rror"
	fi
	t_end
else
	t_blocked "perftools: perf on a sched snapshot" "no snapshot: $(log_tail "$TMP/sched.log")"
fi

# -g with cpu-clock: kernel call chains resolve through the kernel map.
D=$TMP/g
BASE=$(seq_base)
tr_run "$TMP/g.log" -e cpu-clock -F 2000 -g --trigger syscalls:sys_enter_getsid -o "$D" \
	--no-final-snapshot -- "$SEQGEN" -n 300000 -t 250000 -b "$BASE"
rc=$?
F=$(snaps "$D" sys_enter_getsid | head -1)
t_begin "perftools: -g cpu-clock call chains with kernel symbols"
check_eq "exit code (log: $(log_tail "$TMP/g.log"))" "$rc" 0
if [ -n "$F" ] && perf_ok script -i "$F"; then
	s=$TMP/p.out
	check_ge "samples" "$(grep -c 'cpu-clock' "$s")" 10
	check_ge "kernel frames" "$(grep -cE '^\s+ffffffff[0-9a-f]+ \S+ \(\[kernel\.kallsyms\]\)' "$s")" 10
	check_ge "syscall entry frames" "$(grep -cE ' (entry_SYSCALL_64|do_syscall_64)[+ ]' "$s")" 1
	check_eq "unresolved kernel frames ($(unknown_kframes "$s" | head -3 | tr -s ' \t\n' ' '))" "$(unknown_kframes "$s" | grep -c .)" 0
	check_ge "frames in seqgen or libc (user maps)" "$(grep -cE '\((/.*/seqgen|.*/libc\.so[.0-9]*)\)$' "$s")" 1
	check_eq "samples without a name" "$(grep -c '^ *:[0-9]' "$s")" 0
	# BPF programs are named as perf record names them: trigrec's own are always loaded.
	perf script -D -i "$F" >"$TMP/d.out" 2>/dev/null
	check_ge "KSYMBOLs naming trigrec's fp_sys_enter or tp_hook" \
		"$(grep -cE 'PERF_RECORD_KSYMBOL addr ffffffff[0-9a-f]+ len [1-9][0-9]* type 1 .*name bpf_prog_[0-9a-f]{16}_(fp_sys_enter|tp_hook)$' "$TMP/d.out")" 1
else
	t_fail "no snapshot to read: $(log_tail "$TMP/g.log")"
fi
t_end
