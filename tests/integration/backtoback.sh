#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Back-to-back triggers: two seqgens in one recorded command, the second's
# trigger ~20 ms after the first's. Both snapshots are written.
# rings=perf: the second starts after the first ended (the freeze left a
# hole after it, so nothing is reported twice), although the rings never
# wrapped and still hold the first one's history.
# rings=bpf (and compact): recording never stopped, so the second holds the full history
# up to its own trigger: both seqgens from their first call, none missing,
# the first trigger's record included.
. "$(dirname "$0")/lib.sh"
need_root

B1=$(seq_base) B2=$(($(seq_base) + 100000))
N=3000 T1=1000 T2=1000
run_once() {
	D=$TMP/out$1
	tr_run "$TMP/log" -e syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid \
		--trigger syscalls:sys_enter_getsid -o "$D" -- \
		sh -c "'$SEQGEN' -n $N -t $T1 -b $B1 & '$SEQGEN' -n $N -t $T2 -b $B2 -w 20000; wait"
	rc=$?
	mapfile -t S < <(snaps "$D" sys_enter_getsid)
}
run_once 1
# A trigger that fires while the previous snapshot still holds the freeze is
# coalesced into it, by design: if the machine was that slow, try once more.
if [ ${#S[@]} -eq 1 ] && grep -q 'coalesced [1-9]' "$TMP/log"; then
	echo "  (second trigger coalesced: the first freeze lasted > 20 ms; running again)"
	run_once 2
fi

t_begin "backtoback: two trigger snapshots"
check_eq "exit code (log: $(log_tail "$TMP/log"))" "$rc" 0
check_eq "trigger snapshots" "${#S[@]}" 2
check_nomatch "log" "$(cat "$TMP/log")" "coalesced [1-9]"
t_end
[ ${#S[@]} -eq 2 ] || exit 1

json_load "${S[0]%.data}.json"
p1=$(j trigger.fields.pid) e1=$(j window.end_ns) t1=$(j trigger.time_ns)
json_load "${S[1]%.data}.json"
p2=$(j trigger.fields.pid) s2=$(j window.start_ns) e2=$(j window.end_ns) t2=$(j trigger.time_ns)
RINGS=$(j rings)
decode "${S[0]}" >"$TMP/s1.tsv"
decode "${S[1]}" >"$TMP/s2.tsv"
# Which seqgen fired first: usually seqgen 1, but a loaded machine can hold
# it back for 20 ms. a = the first trigger's seqgen, b = the second's.
if [ "$p1" = $((B1 + T1)) ]; then
	Ba=$B1 Ta=$T1 Bb=$B2 Tb=$T2
else
	Ba=$B2 Ta=$T2 Bb=$B1 Tb=$T1
fi

t_begin "backtoback: one snapshot per trigger, in order"
check_eq "the two triggers' pid fields" "$(printf '%s\n' "$p1" "$p2" | sort | tr '\n' ' ')" \
	"$(printf '%s\n' $((B1 + T1)) $((B2 + T2)) | sort | tr '\n' ' ')"
check_gt "second trigger after the first" "$t2" "$t1"
t_end

if [ "$RINGS" = bpf ] || [ "$RINGS" = compact ]; then
	t_begin "backtoback: rings=bpf: the second window reaches back over the first one"
	check_le "second start <= first end" "$s2" "$e1"
	check_ge "second end >= start" "$e2" "$s2"
	t_end
else
	t_begin "backtoback: the second window starts after the first one's end"
	check_gt "second start > first end" "$s2" "$e1"
	check_ge "second end >= start" "$e2" "$s2"
	check_eq "records of snapshot 2 at or before snapshot 1's end" \
		"$(awk -F'\t' -v e="$e1" '$1 <= e' "$TMP/s2.tsv" | wc -l)" 0
	t_end
fi

t_begin "backtoback: snapshot 1 holds its seqgen from the start up to the trigger"
check_eq "first seqgen (count first last missing disorder)" "$(seq_check "$TMP/s1.tsv" "$Ba" 100000)" "$Ta 0 $((Ta - 1)) 0 0"
check_eq "last record" "$(tail -1 "$TMP/s1.tsv" | cut -f5,6)" "syscalls:sys_enter_getsid	$((Ba + Ta))"
read -r nb1 fb1 lb1 mb1 _ < <(seq_check "$TMP/s1.tsv" "$Bb" 100000)
if [ "$nb1" -gt 0 ]; then
	check_eq "other seqgen in snapshot 1: first seq" "$fb1" 0
	check_eq "other seqgen in snapshot 1: missing" "$mb1" 0
fi
t_end

if [ "$RINGS" = bpf ] || [ "$RINGS" = compact ]; then
	t_begin "backtoback: rings=bpf: snapshot 2 holds both seqgens whole, up to its trigger"
	check_eq "second seqgen (count first last missing disorder)" "$(seq_check "$TMP/s2.tsv" "$Bb" 100000)" "$Tb 0 $((Tb - 1)) 0 0"
	check_eq "last record" "$(tail -1 "$TMP/s2.tsv" | cut -f5,6)" "syscalls:sys_enter_getsid	$((Bb + Tb))"
	read -r na2 fa2 la2 ma2 da2 < <(seq_check "$TMP/s2.tsv" "$Ba" 100000)
	check_eq "first seqgen in snapshot 2: first seq" "$fa2" 0
	check_ge "first seqgen in snapshot 2: last seq" "$la2" $((Ta - 1))
	check_eq "first seqgen in snapshot 2: missing, out of order" "$ma2 $da2" "0 0"
	check_eq "first trigger's getsid in snapshot 2" "$(awk -F'\t' -v v=$((Ba + Ta)) '$5 ~ /getsid/ && $6 == v' "$TMP/s2.tsv" | wc -l)" 1
	t_end
	exit 0
fi
t_begin "backtoback: snapshot 2 holds the rest, nothing twice"
read -r _ fb2 lb2 mb2 db2 < <(seq_check "$TMP/s2.tsv" "$Bb" 100000)
check_eq "second seqgen: last seq" "$lb2" $((Tb - 1))
check_eq "second seqgen: missing" "$mb2" 0
check_eq "second seqgen: out of order" "$db2" 0
[ "$nb1" -gt 0 ] && check_gt "second seqgen: first seq in snapshot 2 after its last in snapshot 1" "$fb2" "$lb1"
check_eq "last record" "$(tail -1 "$TMP/s2.tsv" | cut -f5,6)" "syscalls:sys_enter_getsid	$((Bb + Tb))"
read -r na2 fa2 _ ma2 _ < <(seq_check "$TMP/s2.tsv" "$Ba" 100000)
if [ "$na2" -gt 0 ]; then
	check_ge "first seqgen's first seq in snapshot 2 (after its trigger)" "$fa2" "$Ta"
	check_eq "first seqgen's seqs in snapshot 2: missing" "$ma2" 0
fi
check_eq "first trigger's getsid in snapshot 2" "$(awk -F'\t' -v v=$((Ba + Ta)) '$5 ~ /getsid/ && $6 == v' "$TMP/s2.tsv" | wc -l)" 0
t_end
