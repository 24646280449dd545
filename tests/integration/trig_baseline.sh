#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Rate baselines: `rate syscalls:sys_enter_getpgid by pid > 5x baseline per
# 100ms after 10 windows`, keyed by getpgid's argument. Two keys at steady
# rates 10x apart (10 and 100 calls per 100 ms, interleaved for 2 s: about
# 20 windows each) never fire; in 2 s more at those rates key A fires on a
# burst of 60 calls (below key B's normal 100 per window, which never fires
# B), in another 2 s key B on a burst of 600. The bursts come amid the steady
# streams: a pause between steps would decay the baselines (by 7/8 per idle
# window, as designed) and move the thresholds.
# Exactly two snapshots; each sidecar's baseline is within 25 % of the rate
# its key was driven at (measured from trigwork's own timestamps), its
# threshold is max(baseline, 1) x 5, `trigrec show` says it, and `trigrec
# status` counts the keys and windows.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trig_lib.sh"
need_root
need_trigwork

A=7 B=8 WIN_MS=100 MS=2000
NA=$((MS * 10 / WIN_MS)) NB=$((MS * 100 / WIN_MS)) # 10 and 100 per window
D=$TMP/out
SOCK=$TMP/ctl.sock

t_begin "baseline: each key fires on its own burst, not on the other key's normal rate"
if tw_start "$TMP/log" "$D" -e syscalls:sys_enter_getpgid --no-final-snapshot --control "$SOCK" \
	--trigger "rate syscalls:sys_enter_getpgid by pid > 5x baseline per ${WIN_MS}ms after 10 windows name base"; then
	tw mix $MS $A $NA $B $NB
	check_eq "no snapshot while both keys run at their normal rates" "$(nsnaps "$D" base)" 0
	# Key A: halfway through 2 s more at the normal rates, 60 calls at once:
	# 6x its baseline, and less than key B's normal 100 per window (what is
	# left of the burst after it fires, with the steady calls, stays under 5x).
	tw mix $MS $A $NA $B $NB $A 60
	wait_snaps "$D" base 1 || t_fail "no snapshot after key A's burst"
	# Key B: the same, with 600 calls at once.
	tw mix $MS $A $NA $B $NB $B 600
	wait_snaps "$D" base 2 || t_fail "no snapshot after key B's burst"
	sleep 0.3
	check_eq "snapshots: one per key" "$(nsnaps "$D" base)" 2
	st=$(timeout 10 "$TRIGREC" status "$SOCK" 2>&1)
	check_match "status: the learned line" "$(grep '^trigger base: learns ' <<<"$st")" \
		"^trigger base: learns 5x baseline per 100 ms per key, after 10 windows: 2 keys \(in the rate keys' LRU, --max-keys\), [0-9]+ windows learned from, [0-9]+ while their key was warming up$"
	check_match "status: near misses under the baseline" "$(grep '^trigger base: near misses ' <<<"$st")" \
		"^trigger base: near misses max [0-9]+ events in 100 ms under its key's 5x baseline per 100 ms; "
	tw_end
	check_eq "trigrec exit code (log: $(log_tail "$TMP/log"))" "$TR_RC" 0
	stats_load "$TMP/log"
	check_stats base matched=2 fired=2
else
	t_fail "trigrec did not start: $(log_tail "$TMP/log")"
fi
t_end

# sidecar_of K: load the sidecar of the K-th snapshot (oldest first).
sidecar_of() {
	local f
	f=$(snaps "$D" base | sort | sed -n "${1}p")
	SNAPF=$f
	[ -n "$f" ] && json_load "${f%.data}.json"
}

# check_baseline WHO N FILTER: the sidecar's baseline is within 25 % of the
# rate the mix (the marker line with FILTER) drove the key at: N calls over
# its measured span, per window (the burst not counted).
check_baseline() {
	local who=$1 n=$2 t0 t1 want got
	t0=$(mk mix "$3" t) t1=$(mk mix "$3" t_end)
	# x 1000 to compare in integers: events per window, in thousandths.
	want=$((n * WIN_MS * 1000000 * 1000 / (t1 - t0)))
	got=$("$PY" -c 'import sys; print(round(float(sys.argv[1]) * 1000))' "$(j trigger.rate.learned.baseline)")
	echo "    $who: baseline $(j trigger.rate.learned.baseline) per window, measured $want/1000, threshold $(j trigger.rate.learned.threshold), count $(j trigger.rate.count), windows $(j trigger.rate.learned.windows)"
	check_ge "$who: baseline $(j trigger.rate.learned.baseline) >= 0.75 x measured $want/1000" "$got" $((want * 75 / 100))
	check_le "$who: baseline $(j trigger.rate.learned.baseline) <= 1.25 x measured $want/1000" "$got" $((want * 125 / 100))
	# threshold = floor(max(baseline, 1) x 5), the baseline rounded to 1/1000 in the sidecar.
	check_ge "$who: threshold >= 5 x baseline - 1" "$(j trigger.rate.learned.threshold)" $((got * 5 / 1000 - 1))
	check_le "$who: threshold <= 5 x baseline" "$(j trigger.rate.learned.threshold)" $((got * 5 / 1000))
	check_eq "$who: rate.threshold = the learned one" "$(j trigger.rate.threshold)" "$(j trigger.rate.learned.threshold)"
	check_gt "$who: count > threshold" "$(j trigger.rate.count)" "$(j trigger.rate.threshold)"
	check_ge "$who: windows >= the warm-up" "$(j trigger.rate.learned.windows)" 10
	check_le "$who: windows <= one per window of the run" "$(j trigger.rate.learned.windows)" $((3 * MS / WIN_MS + 10))
	check_eq "$who: per key" "$(j trigger.rate.learned.per_key)" true
	check_eq "$who: after" "$(j trigger.rate.learned.after_windows)" 10
	check_eq "$who: multiplier" "$(j trigger.rate.learned.multiplier)" 5.0
}

t_begin "baseline: the sidecars hold each key's baseline at its firing"
if sidecar_of 1; then
	check_eq "A: key" "$(j trigger.rate.key_values.0)" $A
	check_baseline A $NA " bv=$A "
	check_eq "A: count = threshold + 1 (it fires on the first call over)" "$(j trigger.rate.count)" $(($(j trigger.rate.threshold) + 1))
	show=$("$TRIGREC" show "$SNAPF" 2>&1)
	check_match "A: show" "$show" "rate    [0-9]+/100ms, 5x the baseline of this key \([0-9.]+/100ms over [0-9]+ windows, threshold [0-9]+\)"
else
	t_fail "no first sidecar"
fi
if sidecar_of 2; then
	check_eq "B: key" "$(j trigger.rate.key_values.0)" $B
	check_baseline B $NB " bv=$B "
	check_gt "B: count > key A's burst (its normal rate does not fire B)" "$(j trigger.rate.count)" 100
	check_eq "B: count = threshold + 1" "$(j trigger.rate.count)" $(($(j trigger.rate.threshold) + 1))
else
	t_fail "no second sidecar"
fi
t_end
