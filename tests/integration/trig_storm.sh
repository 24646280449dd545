#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Storms: a trigger on an event that fires millions of times a second.
# Without a policy it gets the default limit, a token bucket of 10 refilled
# at one a second (limit 10/10s): at most 10 + seconds snapshots, every
# firing held back counted in the exit summary. `limit N/PERIOD` replaces the
# default; `limit none` removes it, and then the same storm writes many more.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trig_lib.sh"
need_root

SECS=3
# One run: burn calls getpgid(0) in a loop for SECS seconds; the trigger fires
# on every call (scoped to burn by the command). Sets N (snapshots), EL
# (wall-clock seconds of the run, rounded up) and the exit counters (stats_load).
storm() {
	local dir=$1 trig=$2 t0 t1
	t0=$(date +%s%N)
	tr_run "$TMP/$dir.log" -m 64K --post 1ms --no-final-snapshot -e syscalls:sys_enter_getsid \
		--trigger "$trig" -o "$TMP/$dir" -- "$BURN" -j 1 -d $SECS >/dev/null
	RC=$?
	t1=$(date +%s%N)
	EL=$(((t1 - t0 + 999999999) / 1000000000))
	N=$(nsnaps "$TMP/$dir" storm)
	stats_load "$TMP/$dir.log"
}

# The firing times of DIR's snapshots, in ns, one per line, in order.
fire_times() {
	local f
	for f in $(snaps "$1" storm); do
		json_load "${f%.data}.json" && j trigger.time_ns && echo
	done | sort -n
}

t_begin "storm: no policy: at most 10 + seconds snapshots, the rest counted as suppressed"
storm dflt 'syscalls:sys_enter_getpgid name storm'
check_eq "trigrec exit code (log: $(log_tail "$TMP/dflt.log"))" "$RC" 0
check_ge "snapshots (the burst of 10 at least)" "$N" 10
check_le "snapshots (10 + $EL s)" "$N" $((10 + EL))
check_stats storm fired="$N" rbfull=0 cooldown=0
check_gt "storm: suppressed by limit (exit summary)" "$(st storm limit)" 100000
check_accounted storm
check_match "exit summary line" "$(grep '^trigrec: trigger storm:' "$TMP/dflt.log")" \
	'suppressed by cooldown 0, by limit/max [1-9][0-9]{5,}'
# Suppressions are logged as they happen, summed per snapshot (one line at
# most per snapshot taken, never one per firing); what the last snapshot did
# not see is in the exit summary only.
sup=$(grep -E '^trigrec: trigger storm: [0-9]+ firings suppressed since the last report' "$TMP/dflt.log")
check_ge "suppression lines" "$(grep -c . <<<"$sup")" 1
check_le "suppression lines (at most one per snapshot)" "$(grep -c . <<<"$sup")" "$N"
check_eq "suppressed by cooldown/budget in those lines" \
	"$(sed -n 's/.*(cooldown \([0-9]*\), limit\/max [0-9]*, budget \([0-9]*\))$/\1 \2/p' <<<"$sup" | sort -u | tr '\n' ' ')" "0 0 "
lim=$(sed -n 's/.*limit\/max \([0-9]*\),.*/\1/p' <<<"$sup" | awk '{ s += $1 } END { print s + 0 }')
check_gt "suppressed by limit in those lines" "$lim" 0
check_le "... no more than the exit summary's" "$lim" "$(st storm limit)"
# The bucket, exactly: firing k (from 0) comes at least (k - 9) s after the
# first, and with a storm always waiting, the refill is used within 0.5 s.
mapfile -t T < <(fire_times "$TMP/dflt")
check_eq "sidecars" "${#T[@]}" "$N"
bad=
for ((k = 10; k < ${#T[@]}; k++)); do
	d=$((T[k] - T[0] - (k - 9) * 1000000000))
	[ "$d" -ge 0 ] || bad+="firing $k $((-d)) ns early; "
	[ "$d" -le 500000000 ] || bad+="firing $k $d ns late; "
done
check_eq "firings after the burst, one a second" "$bad" ""
check_ge "firings after the burst (a ${SECS}s storm)" "$((${#T[@]} - 10))" $((SECS - 1))
t_end

t_begin "storm: limit 1/1s replaces the default"
storm one 'syscalls:sys_enter_getpgid limit 1/1s name storm'
check_eq "trigrec exit code (log: $(log_tail "$TMP/one.log"))" "$RC" 0
check_ge "snapshots" "$N" $((SECS - 1))
check_le "snapshots (1 + $EL s)" "$N" $((1 + EL))
check_stats storm fired="$N" rbfull=0
check_gt "storm: suppressed by limit" "$(st storm limit)" 100000
check_accounted storm
mapfile -t T < <(fire_times "$TMP/one")
bad=
for ((k = 1; k < ${#T[@]}; k++)); do
	[ $((T[k] - T[k - 1])) -ge 1000000000 ] || bad+="firings $((k - 1)) and $k $((T[k] - T[k - 1])) ns apart; "
done
check_eq "firings at least 1 s apart" "$bad" ""
t_end

t_begin "storm: limit none: many more snapshots, none suppressed"
storm none 'syscalls:sys_enter_getpgid limit none name storm'
check_eq "trigrec exit code (log: $(log_tail "$TMP/none.log"))" "$RC" 0
check_gt "snapshots (more than twice the default's 10 + $EL)" "$N" $((2 * (10 + EL)))
check_stats storm fired="$N" limit=0 cooldown=0 rbfull=0
check_accounted storm
t_end
