#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Limits: 64 triggers (8 per tracepoint, latency starts and ends included)
# load, with the LRU maps at their maximum sizes, and the last of them fires; a 65th, or a 9th on one tracepoint, is
# refused with a message naming the limit; a filter of 16 comparisons with
# globs and 4 strings loads and decides correctly; a 5th string is refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trig_lib.sh"
need_root
need_trigwork

# 64 triggers: 8 latencies getuid -> getgid (8 starts + 8 ends), then 8 each
# on seven more tracepoints, event and rate kinds; getsid's are the last 8
# (ids 56..63), getpgid's 48..55.
trigs=()
for i in 0 1 2 3 4 5 6 7; do
	trigs+=("latency syscalls:sys_enter_getuid if pid == $((8000 + i)) -> syscalls:sys_enter_getgid > $((i + 1))ms name t$i")
done
k=8
for tp in gettid geteuid getegid getppid setpgid getpgid getsid; do
	for i in 0 1 2 3 4 5 6 7; do
		case $tp in
		getppid) trigs+=("rate syscalls:sys_enter_getppid by PID > $((100 + i))/1s name t$k") ;;
		setpgid) trigs+=("syscalls:sys_enter_setpgid if pgid == $((6000 + k)) && comm ~ \"trig*\" name t$k") ;;
		getpgid | getsid) trigs+=("syscalls:sys_enter_$tp if pid == $((6000 + k)) name t$k") ;;
		*) trigs+=("syscalls:sys_enter_$tp if comm == \"nomatch$i\" name t$k") ;;
		esac
		k=$((k + 1))
	done
done
args=()
for t in "${trigs[@]}"; do args+=(--trigger "$t"); done

D=$TMP/max
t_begin "limits: 64 triggers load, and the last ones fire"
check_eq "triggers built" "${#trigs[@]}" 64
# The maps at their largest sizes too: the verifier and the loader take both.
if tw_start "$TMP/log" "$D" --no-final-snapshot --max-starts 4194304 --max-keys 4194304 \
	-e syscalls:sys_enter_getsid,syscalls:sys_enter_getpgid "${args[@]}"; then
	check_match "recording line" "$(grep '^trigrec: recording' "$TMP/log")" ', 64 triggers;'
	tw getsid 6000 3                        # matches nothing
	tw getsid 6063; wait_snaps "$D" t63 1 || t_fail "t63: no snapshot"
	tw getsid 6056; wait_snaps "$D" t56 1 || t_fail "t56: no snapshot"
	tw getpgid 6055; wait_snaps "$D" t55 1 || t_fail "t55: no snapshot"
	tw_end
	check_eq "trigrec exit code (log: $(log_tail "$TMP/log"))" "$TR_RC" 0
	stats_load "$TMP/log"
	check_eq "per-trigger exit lines" "$(grep -c '^trigrec: trigger t[0-9]*: evaluated' "$TMP/log")" 64
	# t56, first on getsid's hook, saw all 5 getsid calls. The others saw at
	# least the 4 that t56 did not fire on (getsid(6056) is hidden from them
	# while tp_hook stops at the first trigger that fires: see trig_event.sh).
	check_stats t56 matched=1 fired=1 evaluated=5
	check_stats t63 matched=1 fired=1
	check_stats t55 matched=1 fired=1 evaluated=1
	for i in 57 58 59 60 61 62 63; do
		check_ge "t$i: evaluated" "$(st t$i evaluated)" 4
		check_le "t$i: evaluated" "$(st t$i evaluated)" 5
	done
	for i in 57 58 59 60 61 62; do check_stats t$i matched=0; done
	if one_snap "$D" t63; then
		check_eq "t63: trigger.id" "$(j trigger.id)" 63
		check_eq "t63: trigger.fields.pid" "$(j trigger.fields.pid)" 6063
		decode_full "$SNAP" >"$TMP/t63.tsv"
		check_ends_at "$TMP/t63.tsv" syscalls:sys_enter_getsid 6063 ""
	fi
else
	t_fail "64 triggers did not load: $(log_tail "$TMP/log" 5)"
fi
t_end

t_begin "limits: a 65th trigger is refused, naming the limit"
out=$(timeout -k 5 "$TIMEOUT" "$TRIGREC" record -o "$TMP/never" -e syscalls:sys_enter_getsid "${args[@]}" \
	--trigger 'syscalls:sys_enter_gettid name t64' -- true 2>&1)
check_ne "exit status" "$?" 0
check_match "message" "$out" 'too many triggers: at most 64'
check_eq "nothing recorded: no output directory" "$(ls -d "$TMP/never" 2>/dev/null)" ""
t_end

t_begin "limits: a 9th trigger on one tracepoint is refused, naming the limit"
nine=()
for i in 1 2 3 4 5 6 7 8 9; do nine+=(--trigger "syscalls:sys_enter_getsid if pid == $i name n$i"); done
out=$(timeout -k 5 "$TIMEOUT" "$TRIGREC" record -o "$TMP/nine" -e syscalls:sys_enter_getsid "${nine[@]}" -- true 2>&1)
check_ne "exit status" "$?" 0
check_match "message" "$out" 'more than 8 triggers on syscalls:sys_enter_getsid'
check_eq "snapshots" "$(ls "$TMP/nine" 2>/dev/null | wc -l)" 0
t_end

# 16 comparisons: 3 integer alternatives, 4 globs/equalities on comm over 3
# distinct strings + 1 repeat, negations, ranges, a bit test, a pseudo-field.
F16='(pid == 7001 || pid == 7002 || pid == 7003) && comm ~ "trig*" && comm ~ "*work"'
F16+=' && comm ~ "*igwo*" && comm == "trigwork" && !(comm != "trigwork") && !(pid == 7002)'
F16+=' && pid != 1 && pid > 7000 && pid < 7100 && pid >= 7001 && pid <= 7099'
F16+=' && !(pid & 0x40000000) && tid > 0'
D=$TMP/f16
t_begin "limits: a filter of 16 comparisons with globs loads and works"
check_eq "comparisons in the filter" "$(tr ' ' '\n' <<<"$F16" | grep -cxE '==|!=|<|<=|>|>=|~|&')" 16
if tw_start "$TMP/log2" "$D" --no-final-snapshot -e syscalls:sys_enter_getsid \
	--trigger "syscalls:sys_enter_getsid if $F16 name f16"; then
	tw getsid 6999; tw getsid 7002; tw getsid 7004
	tw getsid 7001; wait_snaps "$D" f16 1 || t_fail "no snapshot for 7001"
	tw getsid 7003; wait_snaps "$D" f16 2 || t_fail "no snapshot for 7003"
	tw_end
	check_eq "trigrec exit code (log: $(log_tail "$TMP/log2"))" "$TR_RC" 0
	stats_load "$TMP/log2"
	check_stats f16 evaluated=5 matched=2 fired=2
	check_eq "fired on" "$(for s in $(snaps "$D" f16); do json_load "${s%.data}.json"; printf '%s ' "$(j trigger.fields.pid)"; done)" "7001 7003 "
else
	t_fail "16-comparison filter did not load: $(log_tail "$TMP/log2" 5)"
fi
t_end

t_begin "limits: a 5th distinct string in one filter is refused, naming the limit"
t='syscalls:sys_enter_getsid if comm == "a" || comm == "b" || comm ~ "c*" || comm ~ "*d" || comm == "e"'
out=$(timeout -k 5 "$TIMEOUT" "$TRIGREC" record -o "$TMP/never" -e syscalls:sys_enter_getsid --trigger "$t" -- true 2>&1)
check_ne "exit status" "$?" 0
check_match "message" "$out" "^trigrec: --trigger:1:$((${#t} - 2)): too many different strings in one filter: at most 4"
t_end
