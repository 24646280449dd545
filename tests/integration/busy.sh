#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The exact cut system-wide (-a) with every CPU busy: burn keeps all rings
# wrapping with getpgid(0) while seqgen's numbered stream runs among it. The
# aligned window must still end exactly at the trigger and hold seqgen's
# stream without a gap, whichever CPUs it ran on.
. "$(dirname "$0")/lib.sh"
need_root

N=200000 TRIG=100000 BASE=$(seq_base)
D=$TMP/out
NCPU=$(nproc)

# One run; returns 1 when seqgen's trigger left no snapshot of its own.
run_once() {
	rm -rf "$D"
	if ! tr_start "$TMP/log" -a -m 256K -o "$D" --no-final-snapshot \
		-e syscalls:sys_enter_getpgid \
		-e syscalls:sys_enter_getsid --filter "$(seq_filter)" \
		--trigger syscalls:sys_enter_getsid; then
		t_blocked "busy: recorder starts" "$(log_tail "$TMP/log")"
		exit 1
	fi
	"$BURN" -d 6 >"$TMP/burn.out" 2>&1 &
	BURN_PID=$!
	_bg+=("$BURN_PID")
	sleep 0.3 # let the burners fill every ring once
	timeout "$TIMEOUT" "$SEQGEN" -n $N -t $TRIG -b "$BASE" >"$TMP/seqgen.out"
	seq_rc=$?
	wait_snaps "$D" sys_enter_getsid 1
	{ _kill_tree "$BURN_PID"; wait "$BURN_PID"; } 2>/dev/null
	tr_stop INT
	# The snapshot of seqgen's trigger: -a also sees other tasks' getsid.
	F=
	for f in $(snaps "$D" sys_enter_getsid); do
		json_load "${f%.data}.json" && [ "$(j trigger.fields.pid)" = $((BASE + TRIG)) ] && F=$f && break
	done
	[ -n "$F" ]
}
# Another task's trigger (say a concurrent run of this test) can hold the
# freeze when seqgen's fires: then its trigger is coalesced. Run once more.
if ! run_once && [ "$(nsnaps "$D" sys_enter_getsid)" -gt 0 ]; then
	echo "  (another task's getsid triggered the recorder; running again)"
	run_once
fi

t_begin "busy: seqgen's trigger snapshot written, recorder exits cleanly"
check_eq "seqgen exit code" "$seq_rc" 0
check_eq "trigrec exit code (log: $(log_tail "$TMP/log"))" "$TR_RC" 0
check_ne "snapshot of seqgen's getsid($((BASE + TRIG)))" "$F" ""
check_eq "final snapshots (--no-final-snapshot)" "$(nsnaps "$D" final)" 0
t_end
[ -n "$F" ] || exit 1
decode "$F" >"$TMP/trig.tsv"
json_load "${F%.data}.json"

t_begin "busy: the last record of all CPUs is the trigger"
last=$(tail -1 "$TMP/trig.tsv")
check_eq "last event" "$(cut -f5 <<<"$last")" syscalls:sys_enter_getsid
check_eq "last event's pid field" "$(cut -f6 <<<"$last")" $((BASE + TRIG))
check_eq "last event's comm" "$(cut -f7 <<<"$last")" seqgen
check_eq "window end = trigger record time" "$(j window.end_ns)" "$(cut -f1 <<<"$last")"
t_end

t_begin "busy: seqgen's stream is complete up to TRIG-1"
read -r n first lastseq missing disorder < <(seq_check "$TMP/trig.tsv" "$BASE")
check_ge "seqgen records in the window" "$n" 1
check_eq "last getpgid seq" "$lastseq" $((TRIG - 1))
check_eq "missing seqs between first ($first) and last ($lastseq)" "$missing" 0
check_eq "out-of-order seqs" "$disorder" 0
t_end

t_begin "busy: every CPU's ring wrapped; the window starts where all are complete"
read -r mrec _ ring_bytes < <(main_rings)
check_eq "samples decoded = sidecar main-ring records" "$(wc -l <"$TMP/trig.tsv")" "$mrec"
wrapped=0 whole=
for ((i = 0; i < ${J[cpus#]:-0}; i++)); do
	[ "$(j cpus.$i.ring)" != tracking ] || continue
	[ "$(j cpus.$i.wrapped)" = true ] || continue
	wrapped=$((wrapped + 1))
	check_le "cpu $(j cpus.$i.cpu)'s oldest record vs the window start" "$(j cpus.$i.oldest_ns)" "$(j window.start_ns)"
	[ "$(j cpus.$i.oldest_ns)" = "$(j window.start_ns)" ] && whole=$i
done
check_eq "main rings wrapped" "$wrapped" "$NCPU"
check_eq "window start = oldest kept record" "$(j window.start_ns)" "$(head -1 "$TMP/trig.tsv" | cut -f1)"
if [ -n "$whole" ]; then
	# Aligned: the window starts at the oldest record of the ring that
	# wrapped last, so that ring is kept whole.
	check_ge "bytes of the ring that sets the start (cpu $(j cpus.$whole.cpu), ring ${ring_bytes}B)" \
		$(($(j cpus.$whole.bytes) * 100)) $((ring_bytes * 80))
else
	# Otherwise the start is the previous snapshot's resume: another task's
	# getsid took a snapshot just before (-a sees every task's).
	prev=$(snaps "$D" sys_enter_getsid | grep -B1 -F "$F" | head -1)
	check_ne "a previous snapshot (the window starts at none of the rings' oldest)" "$prev" "$F"
	if [ "$prev" != "$F" ]; then
		start=$(j window.start_ns)
		json_load "${prev%.data}.json"
		check_gt "window start after the previous snapshot's end" "$start" "$(j window.end_ns)"
	fi
fi
t_end

# Every sample named, system-wide, is names.sh's: here other users' tasks
# come and go. seqgen and burn (a thread per CPU) must be named.
t_begin "busy: seqgen and burn are named"
check_eq "seqgen's records not named seqgen" \
	"$(awk -F'\t' -v b="$BASE" '$6 != "-" && $6 >= b && $7 != "seqgen"' "$TMP/trig.tsv" | head -2)" ""
check_eq "burn's pid with another name" \
	"$(awk -F'\t' -v p="$BURN_PID" '$3 == p && $7 != "burn"' "$TMP/trig.tsv" | head -2)" ""
t_end
