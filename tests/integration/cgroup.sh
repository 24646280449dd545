#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --cgroup: perf events opened per CPU on the cgroup (PERF_FLAG_PID_CGROUP,
# as perf record -G) and triggers scoped to it in BPF. Two numbered
# workloads, one moved into a cgroup the test makes, one left outside, both
# matching the recording filter and the trigger: only the inside one is in
# the snapshot, and the trigger fires only for it.
. "$(dirname "$0")/lib.sh"
need_root

CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
t_begin "cgroup: set-up"
if ! "$TRIGREC" record --cgroup / --help >/dev/null 2>&1; then
	t_skip "trigrec record has no --cgroup option (the session does not pass recorder_opts.cgroup yet)"
	t_end
	exit 0
elif [ -z "$CG2" ]; then
	t_skip "cgroup v2 is not mounted"
	t_end
	exit 0
elif awk '$1 == "perf_event" && $2 != 0 { f = 1 } END { exit !f }' /proc/cgroups; then
	t_skip "the perf_event controller is on a cgroup v1 hierarchy: perf cannot follow v2 cgroups"
	t_end
	exit 0
fi
CG=$CG2/trigrec-test-$$
if ! mkdir "$CG"; then
	t_skip "cannot create $CG"
	t_end
	exit 0
fi
t_end
trap 'rmdir "$CG" 2>/dev/null; _cleanup; exit $?' EXIT

BASE=$(seq_base)
IN=$BASE OUT=$((BASE + 100000))
D=$TMP/out
# Both streams match the filter and the trigger: only the cgroup separates them.
if ! tr_start "$TMP/log" -a -G "$CG" -o "$D" --no-final-snapshot \
	-e syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid --filter "$(seq_filter)" \
	--trigger "syscalls:sys_enter_getsid if pid >= $BASE && pid < $((BASE + 1000000)) name marker"; then
	t_blocked "cgroup: recording" "trigrec did not start: $(log_tail "$TMP/log")"
	exit 1
fi

# Outside first: 500 getpgid and a getsid at 300 that must not fire.
"$SEQGEN" -n 500 -t 300 -b $OUT >/dev/null
_nap 0.3
t_begin "cgroup: a trigger outside the cgroup does not fire"
check_eq "snapshots" "$(nsnaps "$D")" 0
t_end

# Inside: moved into the cgroup before exec; its getsid at 400 fires.
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -n 500 -t 400 -b "$3"' sh "$CG" "$SEQGEN" "$IN" >/dev/null
wait_snaps "$D" marker 1
tr_stop INT

t_begin "cgroup: the trigger inside the cgroup fires once"
check_eq "exit code" "$TR_RC" 0
check_eq "trigger snapshots" "$(nsnaps "$D" marker)" 1
check_match "stats" "$(cat "$TMP/log")" "trigger marker: evaluated 1, matched 1, fired 1,"
t_end

F=$(snaps "$D" marker | head -1)
if [ -z "$F" ]; then
	t_blocked "cgroup: snapshot content" "no snapshot ($(log_tail "$TMP/log"))"
	exit 1
fi
decode "$F" >"$TMP/snap.tsv"
t_begin "cgroup: the snapshot holds the inside stream, complete up to the trigger"
check_eq "inside getpgid (count first last missing disorder)" "$(seq_check "$TMP/snap.tsv" "$IN" 100000)" "400 0 399 0 0"
check_eq "trigger record" "$(awk -F'\t' '$5 == "syscalls:sys_enter_getsid" { print $6 }' "$TMP/snap.tsv")" $((IN + 400))
check_eq "perf script errors" "$(grep -v 'not valid for' "$TMP/perf-script.err" | head -3)" ""
t_end

t_begin "cgroup: nothing from outside the cgroup"
check_eq "outside getpgid" "$(seq_check "$TMP/snap.tsv" $OUT 100000)" "0 - - - -"
check_eq "outside getsid" "$(awk -F'\t' -v v=$((OUT + 300)) '$6 == v' "$TMP/snap.tsv")" ""
t_end
