#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Storm control across all triggers: `--budget N/PERIOD[,N/PERIOD]` (script
# `budget ...`) caps snapshots of every trigger together, in the kernel,
# on top of each trigger's own limit; what it holds back is counted per
# trigger with reason "budget", in the summary and the metrics.
. "$(dirname "$0")/lib.sh"
need_root

BASE=$(seq_base)
M1=$((BASE + 301)) M2=$((BASE + 302))
EV=(-e syscalls:sys_enter_getpgid --filter "$(seq_filter)")
T1="syscalls:sys_enter_getsid if pid == $M1 limit none name one"
T2="syscalls:sys_enter_getsid if pid == $M2 limit none name two"
getsid() { "$PY" -c "import os
try: os.getsid($1)
except OSError: pass"; }

t_begin "budget: bad values are refused with what to write"
tr_run "$TMP/bad1.log" --budget 10 -o "$TMP/bad" "${EV[@]}" -- true
check_eq "exit code" "$?" 2
check_match "message" "$(cat "$TMP/bad1.log")" "--budget.*'10': give N/PERIOD \(e\.g\. 10/min, 60/hour\)"
tr_run "$TMP/bad2.log" --budget 5/fortnight -o "$TMP/bad" "${EV[@]}" -- true
check_match "message" "$(cat "$TMP/bad2.log")" "'5/fortnight': period: .*\(or s, min, hour, day\)"
printf 'record syscalls:sys_enter_getpgid\nbudget 10/min, 0/hour\n' >"$TMP/bad.trig"
out=$(timeout 20 "$TRIGREC" check "$TMP/bad.trig" 2>&1)
check_eq "check exit status" "$?" 2
check_match "check message" "$out" "bad.trig:2:8: budget: '0/hour': snapshot count"
t_end

t_begin "budget: --dump-script writes it back as a script statement that checks"
out=$(timeout 20 "$TRIGREC" record --budget 10/min,60/hour "${EV[@]}" --trigger "$T1" --dump-script 2>&1)
check_match "dump" "$out" "^budget 10/min, 60/hour$"
printf '%s\n' "$out" >"$TMP/dump.trig"
check_cmd "trigrec check of the dump" timeout 20 "$TRIGREC" check "$TMP/dump.trig"
t_end

t_begin "budget: 3/min across two triggers: 6 firings give exactly 3 snapshots"
D=$TMP/b1
if tr_start "$TMP/b1.log" -a -o "$D" -m 64K --budget 3/min --no-final-snapshot "${EV[@]}" \
	--control "$TMP/b1.sock" --trigger "$T1" --trigger "$T2"; then
	for k in 1 2 3; do getsid $M1; _nap 0.25; getsid $M2; _nap 0.25; done
	_nap 0.5
	# control stats counts the budget's suppressions as the exit summary does.
	st=$(timeout 10 "$TRIGREC" control "$TMP/b1.sock" stats)
	check_match "stats of one" "$st" "; one .* fired 2 .* limit 0 budget 1 "
	check_match "stats of two" "$st" "; two .* fired 1 .* limit 0 budget 2 "
	tr_stop INT
	check_eq "exit code" "$TR_RC" 0
	check_eq "snapshots" "$(nsnaps "$D")" 3
	check_eq "one, two, one (time order)" "$(snaps "$D" | sed 's/.*-\([a-z]*\)\.data$/\1/' | tr '\n' ' ')" "one two one "
	check_match "summary of one" "$(cat "$TMP/b1.log")" "trigger one: .* fired 2, .* by the budget 1,"
	check_match "summary of two" "$(cat "$TMP/b1.log")" "trigger two: .* fired 1, .* by the budget 2,"
else
	t_fail "recorder did not start: $(log_tail "$TMP/b1.log")"
fi
t_end

t_begin "budget: a bucket refills: 2/s allows two at once, then one more a second later"
D=$TMP/b2
if tr_start "$TMP/b2.log" -a -o "$D" -m 64K --budget 2/s --no-final-snapshot "${EV[@]}" --trigger "$T1"; then
	# Three calls 0.1 s apart from one process: three python start-ups on a
	# busy VM took longer than the 0.5 s a token takes to come back.
	"$PY" -c "import os, time
for k in range(3):
    if k: time.sleep(0.1)
    try: os.getsid($M1)
    except OSError: pass"
	wait_snaps "$D" one 2
	_nap 0.2
	check_eq "snapshots at once" "$(nsnaps "$D")" 2
	_nap 1.2
	getsid $M1
	wait_snaps "$D" one 3 || t_fail "no third snapshot after the refill"
	tr_stop INT
	check_match "summary" "$(cat "$TMP/b2.log")" "trigger one: .* fired 3, .* by the budget 1,"
else
	t_fail "recorder did not start: $(log_tail "$TMP/b2.log")"
fi
t_end

# A reload keeps what storm control has spent (issue 34): the budget, each
# trigger's `limit` bucket, `max` count and `cooldown`, and the counters,
# which status, `control stats` and the exit summary report alike, since
# the start. Each trigger fires once before the reload (4 snapshots: the
# budget is spent) and once after: no snapshot, each held back by its own
# policy (one, which has none, by the budget).
M3=$((BASE + 303)) M4=$((BASE + 304))
t_begin "budget: a reload keeps the budget, limit, max and cooldown spent, and the counters"
D=$TMP/b3
SOCK=$TMP/b3.sock
rscript() {
	cat <<TRIG
# reload generation $1
record syscalls:sys_enter_getpgid if pid >= $BASE && pid < $((BASE + 1000000))
buffer 64K
budget 4/min
trigger one { syscalls:sys_enter_getsid if pid == $M1  limit none }
trigger two { syscalls:sys_enter_getsid if pid == $M2  limit 1/min }
trigger three { syscalls:sys_enter_getsid if pid == $M3  limit none max 1 }
trigger four { syscalls:sys_enter_getsid if pid == $M4  limit none cooldown 1h }
TRIG
}
rscript 0 >"$TMP/b3.trig"
if tr_start_ready "$TMP/b3.log" run "$TMP/b3.trig" -o "$D" --control "$SOCK" --no-final-snapshot; then
	n=0
	for m in $M2 $M3 $M4 $M1; do
		getsid "$m"
		n=$((n + 1))
		for ((i = 0; i < TIMEOUT * 50; i++)); do
			[ "$(find "$D" -name '*.json' 2>/dev/null | wc -l)" -ge $n ] && break
			_nap 0.02
		done
		[ "$(nsnaps "$D")" -ge $n ] || t_fail "no snapshot $n before the reload: $(log_tail "$TMP/b3.log")"
	done
	rscript 1 >"$TMP/b3.trig"
	check_match "reload" "$(timeout 30 "$TRIGREC" control "$SOCK" reload)" "^ok reloaded: generation 1, 4 triggers"
	for m in $M2 $M3 $M4 $M1; do getsid "$m"; _nap 0.2; done
	_nap 0.5
	check_eq "snapshots (4 before the reload, none after)" "$(nsnaps "$D")" 4
	for t in one two three four; do check_eq "snapshots of $t" "$(nsnaps "$D" $t)" 1; done
	st=$(timeout 10 "$TRIGREC" status "$SOCK" 2>&1)
	check_match "status: since start" "$st" "^counters: +since start \(trigger table generation 1\)$"
	check_match "status one" "$st" "^trigger one: fired 1, snapshots 1, coalesced 0, suppressed 1 \(cooldown 0, limit 0, budget 1\), .* matched 2,"
	check_match "status two" "$st" "^trigger two: fired 1, snapshots 1, coalesced 0, suppressed 1 \(cooldown 0, limit 1, budget 0\), .* matched 2,"
	check_match "status three" "$st" "^trigger three: fired 1, snapshots 1, coalesced 0, suppressed 1 \(cooldown 0, limit 1, budget 0\), .* matched 2,"
	check_match "status four" "$st" "^trigger four: fired 1, snapshots 1, coalesced 0, suppressed 1 \(cooldown 1, limit 0, budget 0\), .* matched 2,"
	cs=$(timeout 10 "$TRIGREC" control "$SOCK" stats 2>&1)
	check_match "control stats: since start" "$cs" "^snapshots 4 .* generation 1 \(counters since start\);"
	check_match "control stats one" "$cs" "; one evaluated [0-9]+ matched 2 fired 1 coalesced 0 cooldown 0 limit 0 "
	check_match "control stats two" "$cs" "; two evaluated [0-9]+ matched 2 fired 1 coalesced 0 cooldown 0 limit 1 "
	check_match "control stats four" "$cs" "; four evaluated [0-9]+ matched 2 fired 1 coalesced 0 cooldown 1 limit 0 "
	tr_stop INT
	check_eq "exit code" "$TR_RC" 0
	check_match "summary of one" "$(cat "$TMP/b3.log")" "trigger one: .* matched 2, fired 1, .* by limit/max 0, by the budget 1,"
	check_match "summary of three" "$(cat "$TMP/b3.log")" "trigger three: .* matched 2, fired 1, .* by limit/max 1, by the budget 0,"
	check_match "summary totals" "$(cat "$TMP/b3.log")" "trigrec: 4 snapshots written, 0 failed; triggers fired 4, .*\(since start, trigger table generation 1\)$"
else
	t_fail "recorder did not start: $(log_tail "$TMP/b3.log")"
fi
t_end
