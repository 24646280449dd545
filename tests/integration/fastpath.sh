#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rings=bpf fast paths: tp_btf programs that build sched_switch,
# sched_wakeup/_new/waking, raw_syscalls and syscalls:* records from the
# tracepoint's arguments (bpf/trigrec.bpf.c, fp_*) instead of copying the
# record the kernel built.
# - Record for record what the kernel writes: a stock perf record -a of the
#   same events runs alongside, and each CPU's records in trigrec's snapshot
#   must be a gapless run of perf's, field for field, decoded by perf script.
# - The numbered getpgid stream through syscalls:sys_enter_getpgid's fast
#   path is complete and in order up to the trigger.
# - Which events take a fast path is as documented: not with a trigger or a
#   --filter on the event, not with --no-fast-paths.
. "$(dirname "$0")/lib.sh"
need_root

if [ "${TRIGREC_RINGS:-auto}" = perf ]; then
	t_begin "fastpath: tp_btf fast paths (TRIGREC_RINGS=perf: this file tests the bpf path)"
	t_skip "TRIGREC_RINGS=perf: fast paths record into ring sets only"
	t_end
	exit 0
fi

BASE=$(seq_base)

# fp_compare PERF_TXT TRIGREC_TXT: both `perf script -F cpu,time,event,trace`.
# Per CPU, trigrec's records must appear in perf's, in the same order, with
# nothing missing or added in between (perf's stream is wider: it ran
# longer). Prints "records missing extra changed". Two things differ by
# design and are left out of both streams: each tool's own wake-ups (perf
# and trigrec each lose the wake-up of their own thread to their recursion
# guards), and a samples perf record wrote twice (see perf_twice in
# rings.sh). prev_state X and Z count as equal: a parent that reaps a child
# while the child switches out for the last time turns its exit_state from
# ZOMBIE to DEAD between the two tools' reads; the kernel's own record races
# the same way.
fp_compare() {
	python3 - "$1" "$2" <<'PY'
import collections, difflib, re, sys

def load(path, dedup):
    per_cpu, seen = collections.defaultdict(list), set()
    for line in open(path):
        f = line.split()
        if len(f) < 3 or not f[0].startswith("["):
            continue
        cpu, t, rest = f[0], float(f[1].rstrip(":")), " ".join(f[2:])
        if "sched_wak" in rest and re.search(r" comm=(perf|trigrec) ", rest):
            continue
        if dedup:
            if (cpu, t, rest) in seen:
                continue
            seen.add((cpu, t, rest))
        rest = re.sub(r"prev_state=[XZ]\b", "prev_state=XZ", rest)
        per_cpu[cpu].append((t, rest))
    return per_cpu

perf, tr = load(sys.argv[1], True), load(sys.argv[2], False)
n = missing = extra = changed = 0
for cpu, recs in tr.items():
    # Both on CLOCK_MONOTONIC (perf record -k mono), but stamped at different
    # moments of one event: a window 50 ms wider, then alignment by content.
    lo, hi = recs[0][0] - 0.05, recs[-1][0] + 0.05
    a = [r[1] for r in perf[cpu] if lo <= r[0] <= hi]
    b = [r[1] for r in recs]
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    while ops and ops[0][0] == "delete":
        ops = ops[1:]
    while ops and ops[-1][0] == "delete":
        ops = ops[:-1]
    n += len(b)
    for op, i1, i2, j1, j2 in ops:
        if op == "delete":
            missing += i2 - i1
        elif op == "insert":
            extra += j2 - j1
        elif op == "replace":
            changed += max(i2 - i1, j2 - j1)
        if op != "equal":
            print("  %s %s perf=%s trigrec=%s" % (cpu, op, a[i1:i1 + 2], b[j1:j1 + 2]),
                  file=sys.stderr)
print(n, missing, extra, changed)
PY
}

# fp_run NAME EVENTS WORKLOAD...: perf record -a and trigrec -a of EVENTS
# while WORKLOAD runs (it ends with seqgen's getsid trigger); leaves
# $TMP/NAME.perf.txt, $TMP/NAME.tr.txt and $TMP/NAME.log.
fp_run() {
	local name=$1 ev=$2
	shift 2
	# -k mono: trigrec's clock, so the two streams' times can be lined up.
	"$PERF" record -q -a -k mono -m 16M -e "$ev" -o "$TMP/$name.perf.data" >"$TMP/$name.perf.log" 2>&1 &
	local pp=$!
	_bg+=("$pp")
	_nap 1.5
	tr_start "$TMP/$name.log" -v -a -e "$ev" --trigger 'syscalls:sys_enter_getsid' --count 1 \
		-m 1M -o "$TMP/$name" --no-final || return 1
	"$@" >/dev/null 2>&1
	tr_wait
	_nap 0.3
	kill -INT "$pp" 2>/dev/null
	wait "$pp" 2>/dev/null
	"$PERF" script -F cpu,time,event,trace -i "$TMP/$name.perf.data" >"$TMP/$name.perf.txt" 2>/dev/null
	# What perf record itself lost (its writer fell behind): no oracle for those spans.
	PERF_LOST=$("$PERF" report -i "$TMP/$name.perf.data" --stats 2>/dev/null |
		awk '/LOST events:/ { n += $3 } END { print n + 0 }')
	"$PERF" script -F cpu,time,event,trace -i "$(snaps "$TMP/$name" | head -1)" \
		>"$TMP/$name.tr.txt" 2>/dev/null
}

# A workload that forks, execs, sleeps (timer wake-ups from interrupts, which
# may nest inside a recording program) and ends with getsid(BASE + 999).
sched_work() {
	local i
	for i in $(seq 60); do /bin/true; done
	"$SEQGEN" -n 1000 -t 999 -b "$1" -e 50 -p 300
}

t_begin "fastpath: sched_switch, sched_wakeup, sched_waking, sched_wakeup_new equal perf record's"
EV=sched:sched_switch,sched:sched_wakeup,sched:sched_waking,sched:sched_wakeup_new
if fp_run sched "$EV" sched_work "$BASE"; then
	check_eq "trigrec exit code (log: $(log_tail "$TMP/sched.log"))" "$TR_RC" 0
	for e in sched_switch sched_wakeup sched_waking sched_wakeup_new; do
		check_match "$e on its fast path" "$(cat "$TMP/sched.log")" \
			"sched:$e: recorded through the tp_btf fast path"
	done
	read -r n missing extra changed < <(fp_compare "$TMP/sched.perf.txt" "$TMP/sched.tr.txt" 2>"$TMP/sched.cmp")
	check_ge "records compared" "${n:-0}" 300
	check_eq "perf record lost nothing (else there is no oracle)" "$PERF_LOST" 0
	check_eq "records missing, added, changed against perf's (diffs: $(log_tail "$TMP/sched.cmp" 4))" \
		"${missing:-x} ${extra:-x} ${changed:-x}" "0 0 0"
	check_match "sched_wakeup_new seen (the fork loop)" "$(cat "$TMP/sched.tr.txt")" "sched_wakeup_new: comm="
else
	t_fail "trigrec did not start: $(log_tail "$TMP/sched.log")"
fi
t_end

t_begin "fastpath: raw_syscalls and syscalls:* records equal perf record's; getpgid complete to the trigger"
B2=$((BASE + 100000))
EV=raw_syscalls:sys_exit,syscalls:sys_enter_getpgid,syscalls:sys_exit_getpgid,syscalls:sys_enter_openat,syscalls:sys_exit_openat,syscalls:sys_enter_getppid
if fp_run sys "$EV" "$SEQGEN" -n 3000 -t 2999 -b "$B2"; then
	check_eq "trigrec exit code (log: $(log_tail "$TMP/sys.log"))" "$TR_RC" 0
	for e in raw_syscalls:sys_exit syscalls:sys_enter_getpgid syscalls:sys_exit_getpgid \
		syscalls:sys_enter_openat syscalls:sys_exit_openat syscalls:sys_enter_getppid; do
		check_match "$e on its fast path" "$(cat "$TMP/sys.log")" \
			"$e: recorded through the tp_btf fast path"
	done
	read -r n missing extra changed < <(fp_compare "$TMP/sys.perf.txt" "$TMP/sys.tr.txt" 2>"$TMP/sys.cmp")
	check_ge "records compared" "${n:-0}" 1000
	if [ "$PERF_LOST" = 0 ]; then
		check_eq "records missing, added, changed against perf's (diffs: $(log_tail "$TMP/sys.cmp" 4))" \
			"${missing:-x} ${extra:-x} ${changed:-x}" "0 0 0"
	else
		# Only what perf kept can be compared; trigrec's own stream is checked below.
		echo "  note perf record lost $PERF_LOST events of its own (a busy machine): records compared, extras not counted"
		check_eq "records missing or changed against perf's (diffs: $(log_tail "$TMP/sys.cmp" 4))" \
			"${missing:-x} ${changed:-x}" "0 0"
	fi
	decode "$(snaps "$TMP/sys" | head -1)" >"$TMP/sys.tsv"
	read -r cnt _ last miss dis < <(seq_check "$TMP/sys.tsv" "$B2")
	check_eq "getpgid: the last before the trigger, none missing, none out of order" \
		"$last $miss $dis" "2998 0 0"
	check_ge "getpgid records kept" "${cnt:-0}" 100
	check_match "sys_exit_getpgid's ret decoded" "$(cat "$TMP/sys.tr.txt")" "sys_exit_getpgid: 0x"
	check_match "raw_syscalls:sys_exit's id and ret decoded" "$(cat "$TMP/sys.tr.txt")" \
		"raw_syscalls:sys_exit: NR [0-9]+ = "
else
	t_fail "trigrec did not start: $(log_tail "$TMP/sys.log")"
fi
t_end

t_begin "fastpath: not for an event with a trigger or a --filter, nor with --no-fast-paths"
B3=$((BASE + 200000))
tr_run "$TMP/which.log" -v -e syscalls:sys_enter_getpgid --filter "pid >= $B3" \
	-e syscalls:sys_exit_getpgid,sched:sched_switch --trigger "syscalls:sys_enter_getsid" \
	--trigger "syscalls:sys_exit_getpgid if ret == -1 name never" -m 256K -o "$TMP/which" \
	--no-final -- "$SEQGEN" -n 500 -t 499 -b "$B3"
rc=$?
check_eq "trigrec exit code (log: $(log_tail "$TMP/which.log"))" "$rc" 0
LOG=$(cat "$TMP/which.log")
check_nomatch "getpgid enter (a --filter) stays on tp_rec" "$LOG" "sys_enter_getpgid: recorded through the tp_btf"
check_nomatch "getpgid exit (a trigger) stays on tp_hook" "$LOG" "sys_exit_getpgid: recorded through the tp_btf"
check_match "sched_switch (neither) takes it" "$LOG" "sched:sched_switch: recorded through the tp_btf fast path"
decode "$(snaps "$TMP/which" | head -1)" >"$TMP/which.tsv"
check_eq "getpgid through tp_rec (count first last missing disorder)" \
	"$(seq_check "$TMP/which.tsv" "$B3")" "499 0 498 0 0"
tr_run "$TMP/nofp.log" -v --no-fast-paths -e syscalls:sys_enter_getpgid,sched:sched_switch \
	--trigger "syscalls:sys_enter_getsid" -m 256K -o "$TMP/nofp" --no-final -- \
	"$SEQGEN" -n 500 -t 499 -b "$B3"
rc=$?
check_eq "--no-fast-paths: exit code (log: $(log_tail "$TMP/nofp.log"))" "$rc" 0
check_nomatch "--no-fast-paths: no fast path" "$(cat "$TMP/nofp.log")" "recorded through the tp_btf"
decode "$(snaps "$TMP/nofp" | head -1)" >"$TMP/nofp.tsv"
check_eq "--no-fast-paths: getpgid (count first last missing disorder)" \
	"$(seq_check "$TMP/nofp.tsv" "$B3")" "499 0 498 0 0"
t_end
