#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Trigger policies, proven with counts: cooldown, limit N/period, max N,
# cooldown per key; several triggers in one run (each snapshot names its
# trigger); firings while a snapshot is in progress (post 200ms) coalesce.
# Each qualifying call waits for the snapshot it should cause, so a call is
# held back by the policy under test, never by a snapshot in progress.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trig_lib.sh"
need_root
need_trigwork

D=$TMP/out
t_begin "policy: one run with ten triggers"
if ! tw_start "$TMP/log" "$D" --no-final-snapshot \
	-e syscalls:sys_enter_getsid,syscalls:sys_enter_getpgid,syscalls:sys_enter_setpgid \
	--trigger 'syscalls:sys_enter_getsid if pid == 11 cooldown 500ms name cd' \
	--trigger 'syscalls:sys_enter_getsid if pid == 12 limit 2/min name lim' \
	--trigger 'syscalls:sys_enter_setpgid if pgid == 35 limit 1/1s name lim1s' \
	--trigger 'syscalls:sys_enter_getsid if pid == 13 max 1 name mx' \
	--trigger 'rate syscalls:sys_enter_getpgid by pid > 100/1s cooldown 10s per key name pk' \
	--trigger 'syscalls:sys_enter_getsid if pid == 31 name alpha' \
	--trigger 'syscalls:sys_enter_getpgid if pid == 32 name beta' \
	--trigger 'syscalls:sys_enter_setpgid if pgid == 33' \
	--trigger 'syscalls:sys_enter_getsid if pid == 41 post 200ms name coal_a' \
	--trigger 'syscalls:sys_enter_getpgid if pid == 42 name coal_b'; then
	t_fail "trigrec did not start: $(log_tail "$TMP/log")"
	t_end
	exit 1
fi
# cooldown 500ms: 20 calls, 50 ms apart (and more: pause sleeps at least that).
line=
for i in $(seq 20); do line+="getsid 11 pause 50 "; done
# shellcheck disable=SC2086 # the line is a list of trigwork words
tw $line
sleep 0.1
# limit 2/min: 5 calls; each of the first two waits for its snapshot.
tw getsid 12; wait_snaps "$D" lim 1 || t_fail "lim: no 1st snapshot"
tw getsid 12; wait_snaps "$D" lim 2 || t_fail "lim: no 2nd snapshot"
tw getsid 12 pause 50 getsid 12 pause 50 getsid 12
# limit 1/1s: a 2nd call within the period is held back, a 3rd after it fires.
tw setpgid $((0x3fffffff)) 35; wait_snaps "$D" lim1s 1 || t_fail "lim1s: no 1st snapshot"
tw setpgid $((0x3fffffff)) 35 pause 1100 setpgid $((0x3fffffff)) 35
wait_snaps "$D" lim1s 2 || t_fail "lim1s: no snapshot in the next period"
# max 1: 3 calls.
tw getsid 13; wait_snaps "$D" mx 1 || t_fail "mx: no snapshot"
tw pause 50 getsid 13 pause 50 getsid 13
# cooldown 10s per key: keys 21 and 22 (getpgid's argument) fire once each.
tw getpgid 21 300; wait_snaps "$D" pk 1 || t_fail "pk: no snapshot for key 21"
tw getpgid 22 300; wait_snaps "$D" pk 2 || t_fail "pk: no snapshot for key 22"
tw getpgid 21 300 pause 50 getpgid 22 300
# Several triggers: each snapshot says which one fired.
tw getsid 31; wait_snaps "$D" alpha 1 || t_fail "alpha: no snapshot"
tw getpgid 32; wait_snaps "$D" beta 1 || t_fail "beta: no snapshot"
tw setpgid $((0x3fffffff)) 33; wait_snaps "$D" sys_enter_setpgid 1 || t_fail "sys_enter_setpgid: no snapshot"
# Coalescing: coal_a keeps recording 200 ms; two more firings inside that.
tw getsid 41 pause 20 getpgid 42 pause 20 getsid 41
wait_snaps "$D" coal_a 1 || t_fail "coal_a: no snapshot"
sleep 0.3
tw_end
check_eq "trigrec exit code (log: $(log_tail "$TMP/log"))" "$TR_RC" 0
stats_load "$TMP/log"
t_end

t_begin "policy: cooldown 500ms over 20 calls 50 ms apart"
check_stats cd matched=20 coalesced=0 limit=0
check_accounted cd
f=$(st cd fired)
# 20 calls span at least 950 ms: the first fires, and the first call 500 ms
# or more later fires too (>= 2). Each firing needs 500 ms since the last,
# and the calls span well under 1.5 s (<= 3).
check_ge "cd: fired" "$f" 2
check_le "cd: fired" "$f" 3
check_eq "cd: suppressed by cooldown" "$(st cd cooldown)" $((20 - f))
check_eq "cd: snapshots" "$(nsnaps "$D" cd)" "$f"
# Exactly: a call fires iff 500 ms have passed since the last firing. The
# BPF clock read lies within trigwork's [t, t_end] around each call.
fires=$(for s in $(snaps "$D" cd); do json_load "${s%.data}.json"; j trigger.time_ns; echo; done)
bad=$(grep '^getsid v=11 ' "$TW_MARKS" | sed 's/.* t=\([0-9]*\) t_end=\([0-9]*\).*/\1 \2/' |
	awk -v fires="$(tr '\n' ' ' <<<"$fires")" '
	BEGIN { nf = split(fires, F, " "); k = 1; last = -1 }
	{
		fired = (k <= nf && F[k] >= $1 && F[k] <= $2)
		if (fired) {
			if (last >= 0 && F[k] - last < 500000000) printf "call %d fired %d ns after the last; ", NR, F[k] - last
			last = F[k]; k++
		} else if (last < 0 || $1 - last >= 500000000) {
			printf "call %d at +%d ns did not fire; ", NR, $1 - last
		}
	}
	END { if (k <= nf) printf "%d firings match no call; ", nf - k + 1 }')
check_eq "cd: firings vs. call times" "$bad" ""
t_end

t_begin "policy: limit 2/min: 5 calls, exactly 2 snapshots"
check_stats lim matched=5 fired=2 limit=3 cooldown=0 coalesced=0
check_eq "lim: snapshots" "$(nsnaps "$D" lim)" 2
t_end

t_begin "policy: limit 1/1s: the period ends, the limit starts over"
check_stats lim1s matched=3 fired=2 limit=1 cooldown=0 coalesced=0
check_eq "lim1s: snapshots" "$(nsnaps "$D" lim1s)" 2
t_end

t_begin "policy: max 1: 3 calls, exactly 1 snapshot"
check_stats mx matched=3 fired=1 limit=2 cooldown=0 coalesced=0
check_eq "mx: snapshots" "$(nsnaps "$D" mx)" 1
t_end

t_begin "policy: cooldown per key: keys 21 and 22 fire once each"
check_stats pk fired=2 coalesced=0 limit=0
check_gt "pk: suppressed by cooldown" "$(st pk cooldown)" 0
check_accounted pk
keys=$(for s in $(snaps "$D" pk); do json_load "${s%.data}.json"; echo "$(j trigger.rate.key_values.0)/$(j trigger.rate.count)"; done | tr '\n' ' ')
check_eq "pk: snapshots' key/count" "$keys" "21/101 22/101 "
t_end

t_begin "policy: several triggers: each snapshot names the one that fired"
for n in 'alpha|5|syscalls:sys_enter_getsid if pid == 31 name alpha|syscalls:sys_enter_getsid|31' \
	'beta|6|syscalls:sys_enter_getpgid if pid == 32 name beta|syscalls:sys_enter_getpgid|32' \
	'sys_enter_setpgid|7|syscalls:sys_enter_setpgid if pgid == 33|syscalls:sys_enter_setpgid|-'; do
	IFS='|' read -r name id text ev arg <<<"$n"
	if one_snap "$D" "$name"; then
		check_eq "$name: trigger.name" "$(j trigger.name)" "$name"
		check_eq "$name: trigger.id" "$(j trigger.id)" "$id"
		check_eq "$name: trigger.text" "$(j trigger.text)" "$text"
		check_eq "$name: trigger.event" "$(j trigger.event)" "$ev"
		check_eq "$name: file name" "$(basename "$SNAP")" "$(basename "$SNAP" "-$name.data")-$name.data"
		decode_full "$SNAP" >"$TMP/$name.tsv"
		check_ends_at "$TMP/$name.tsv" "$ev" "$([ "$arg" = - ] || echo "$arg")" ""
	fi
	check_stats "$name" matched=1 fired=1
done
check_eq "setpgid: trigger.fields.pgid" "$(json_load "$(snaps "$D" sys_enter_setpgid | sed 's/data$/json/')"; j trigger.fields.pgid)" 33
t_end

t_begin "policy: two firings during a snapshot's post 200ms coalesce into it"
check_stats coal_a matched=2 fired=1 coalesced=1
check_stats coal_b matched=1 fired=0 coalesced=1
check_eq "coal_b snapshots" "$(nsnaps "$D" coal_b)" 0
if one_snap "$D" coal_a; then
	check_eq "coalesced_triggers" "$(j coalesced_triggers)" 2
	check_eq "window.post_ns" "$(j window.post_ns)" 200000000
	decode_full "$SNAP" >"$TMP/coal.tsv"
	# What coalesced is inside the snapshot: the calls after the trigger.
	t0=$(j trigger.time_ns)
	check_eq "trigger and coalesced calls, in the snapshot" \
		"$(awk -F'\t' -v t="$t0" '$1 >= t && ($6 == 41 || $6 == 42) { printf "%s ", $6 }' "$TMP/coal.tsv")" "41 42 41 "
	check_le "last record <= trigger + 200 ms" "$(tail -1 "$TMP/coal.tsv" | cut -f1)" $((t0 + 200000000))
fi
check_match "log: the coalesced firings are reported" "$(cat "$TMP/log")" \
	'2 more trigger firings coalesced into it'
t_end
