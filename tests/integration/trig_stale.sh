#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Latency starts that are too old, and keyed state that overflows its maps.
#  - stale: a start is kept max(10 s, 10 x threshold). With `> 1ms` (10 s),
#    an end 10.2 s later is a stale start, counted, and does not fire; with
#    `> 1100ms` (11 s) the same 10.2 s fires. The language has no shorter
#    window, so this run takes ~11 s; it runs beside the next one.
#  - map exhaustion: 100000 distinct keys (getpgid's argument) overflow the
#    latency-start (65536) and rate (16384) LRU maps; the recorder goes on,
#    and fresh keys still fire afterwards.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trig_lib.sh"
need_root
need_trigwork

# ---- stale starts, in the background ----
DS=$TMP/stale
MS=$TMP/stale.marks
"$TRIGREC" record -o "$DS" --no-final-snapshot -e syscalls:sys_enter_getsid \
	--trigger 'latency syscalls:sys_enter_getpgid if pid >= 554 && pid <= 555 by pid -> syscalls:sys_enter_getsid by pid > 1ms name short' \
	--trigger 'latency syscalls:sys_enter_getpgid if pid == 556 by pid -> syscalls:sys_enter_getsid by pid > 1100ms name long' \
	-- "$TRIGWORK" -r -o "$MS" getpgid 554 pause 5 getsid 554 getpgid 555 getpgid 556 \
	pause 10200 getsid 555 getsid 556 >"$TMP/stale.log" 2>&1 &
STALE_PID=$!
_bg+=("$STALE_PID")

# ---- map exhaustion ----
BASE=$(seq_base)
D=$TMP/full
t_begin "map exhaustion: 100000 distinct keys, then fresh keys still fire"
if tw_start "$TMP/log" "$D" --no-final-snapshot -e syscalls:sys_enter_getsid,syscalls:sys_enter_getpgid \
	--trigger 'latency syscalls:sys_enter_getpgid by pid -> syscalls:sys_enter_getsid by pid > 5ms name lat' \
	--trigger 'rate syscalls:sys_enter_getpgid by pid > 5/1s name rate'; then
	tw seq 100000 "$BASE" pause 10
	# The newest start survives the eviction (LRU): it fires.
	tw getsid $((BASE + 99999))
	wait_snaps "$D" lat 1 || t_fail "lat: the newest of 100000 starts did not fire"
	tw getsid "$BASE" 2   # the oldest start: evicted or not, no harm either way
	sleep 0.1
	n0=$(nsnaps "$D" lat)
	tw getpgid 42 pause 10 getsid 42
	wait_snaps "$D" lat $((n0 + 1)) || t_fail "lat: no snapshot for a fresh key after the maps overflowed"
	tw getpgid 43 6
	wait_snaps "$D" rate 1 || t_fail "rate: no snapshot after the maps overflowed"
	tw_end
	check_eq "trigrec exit code (log: $(log_tail "$TMP/log"))" "$TR_RC" 0
	stats_load "$TMP/log"
	check_stats rate fired=1 rbfull=0
	check_stats lat rbfull=0
	# Each getpgid call is evaluated once per trigger (start role for lat).
	check_ge "lat: evaluated" "$(st lat evaluated)" 100000
	check_ge "rate: evaluated" "$(st rate evaluated)" 100000
	check_nomatch "log: no errors or warnings" "$(grep -v '^trigrec: trigger \|snapshots\? written' "$TMP/log")" \
		'cannot|error|fail|warn|lost'
	F=$(snaps "$D" lat | head -1)
	if [ -n "$F" ] && json_load "${F%.data}.json"; then
		check_eq "lat: 1st firing: key_values.0 (the newest start)" "$(j trigger.latency.key_values.0)" $((BASE + 99999))
	fi
	F=$(snaps "$D" lat | tail -1)
	if [ -n "$F" ] && json_load "${F%.data}.json"; then
		check_eq "lat: last firing: key_values.0" "$(j trigger.latency.key_values.0)" 42
		check_ge "lat: duration >= 10 ms" "$(j trigger.latency.duration_ns)" 10000000
		decode_full "$F" >"$TMP/lat.tsv"
		check_ends_at "$TMP/lat.tsv" syscalls:sys_enter_getsid 42 ""
	else
		t_fail "no lat snapshot"
	fi
	if one_snap "$D" rate; then
		check_eq "rate: key_values.0" "$(j trigger.rate.key_values.0)" 43
		check_eq "rate: count" "$(j trigger.rate.count)" 6
	fi
	# getsid(BASE) may end a start that survived eviction (one more firing)
	# or not; both are fine, but every firing is accounted for.
	check_accounted lat
	check_ge "lat: fired" "$(st lat fired)" 2
	check_le "lat: fired" "$(st lat fired)" 3
	check_eq "lat: snapshots" "$(nsnaps "$D" lat)" "$(st lat fired)"
else
	t_fail "trigrec did not start: $(log_tail "$TMP/log")"
fi
t_end

# ---- stale starts: the results ----
t_begin "stale: an end 10.2 s after its start is stale with > 1ms, fires with > 1100ms"
tr_wait "$STALE_PID"
check_eq "trigrec exit code (log: $(log_tail "$TMP/stale.log"))" "$TR_RC" 0
stats_load "$TMP/stale.log"
# short: 554 fired 5 ms after its start; 555 came 10.2 s late.
check_stats short matched=1 fired=1 stale=1
check_stats long matched=1 fired=1 stale=0
TW_MARKS=$MS
gap=$(($(mk getsid " v=555 " t) - $(mk getpgid " v=555 " t_end)))
check_gt "gap between start and end of 555 > 10 s" "$gap" 10000000000
if one_snap "$DS" short; then
	check_eq "short: key_values.0" "$(j trigger.latency.key_values.0)" 554
fi
if one_snap "$DS" long; then
	d=$(j trigger.latency.duration_ns)
	check_eq "long: key_values.0" "$(j trigger.latency.key_values.0)" 556
	check_gt "long: duration > 10 s" "$d" 10000000000
	check_lt "long: duration < its 11 s window" "$d" 11000000000
fi
t_end
