#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The exact cut: with a small ring and a numbered syscall stream, the
# trigger snapshot ends exactly at the trigger's own record, the stream
# before it is complete, and the ring's worth of history is all there.
. "$(dirname "$0")/lib.sh"
need_root

N=200000 TRIG=100000 BASE=$(seq_base)
D=$TMP/out
tr_run "$TMP/log" -e syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid \
	--trigger syscalls:sys_enter_getsid -m 64K -o "$D" -- "$SEQGEN" -n $N -t $TRIG -b "$BASE"
rc=$?

t_begin "cut: run ends cleanly with one trigger and one final snapshot"
check_eq "exit code (log: $(log_tail "$TMP/log"))" "$rc" 0
check_eq "trigger snapshots" "$(nsnaps "$D" sys_enter_getsid)" 1
check_eq "final snapshots" "$(nsnaps "$D" final)" 1
check_eq "leftover temporary files" "$(leftovers "$D")" ""
t_end

F=$(snaps "$D" sys_enter_getsid | head -1)
if [ -z "$F" ]; then
	t_blocked "cut: trigger snapshot content" "no trigger snapshot ($(log_tail "$TMP/log"))"
	exit 1
fi
decode "$F" >"$TMP/trig.tsv"
json_load "${F%.data}.json"

t_begin "cut: the last record is the trigger's getsid(BASE+TRIG)"
last=$(tail -1 "$TMP/trig.tsv")
check_eq "last event" "$(cut -f5 <<<"$last")" syscalls:sys_enter_getsid
check_eq "last event's pid field" "$(cut -f6 <<<"$last")" $((BASE + TRIG))
check_eq "getsid records" "$(grep -c $'\tsyscalls:sys_enter_getsid\t' "$TMP/trig.tsv")" 1
check_eq "perf script errors" "$(grep -v 'not valid for' "$TMP/perf-script.err" | head -3)" ""
t_end

t_begin "cut: the last getpgid before it is TRIG-1, nothing after the trigger"
read -r n first lastseq missing disorder < <(seq_check "$TMP/trig.tsv" "$BASE")
check_eq "last getpgid seq" "$lastseq" $((TRIG - 1))
trig_t=$(cut -f1 <<<"$last")
check_eq "records after the trigger's" "$(awk -F'\t' -v t="$trig_t" '$1 > t' "$TMP/trig.tsv" | wc -l)" 0
check_eq "window end = trigger record time" "$(j window.end_ns)" "$trig_t"
t_end

t_begin "cut: getpgid seqs contiguous up to the trigger"
check_eq "missing seqs between first ($first) and last ($lastseq)" "$missing" 0
check_eq "out-of-order seqs" "$disorder" 0
t_end

t_begin "cut: a full ring's worth of history is kept"
read -r mrec mbytes ring_bytes < <(main_rings)
check_eq "samples decoded = sidecar main-ring records" "$(wc -l <"$TMP/trig.tsv")" "$mrec"
if [ "${mrec:-0}" -gt 0 ] && [ "${ring_bytes:-0}" -gt 0 ]; then
	recsz=$((mbytes / mrec))
	if [ "$(j rings)" = compact ]; then
		# Compact records expand at harvest: the samples kept are several
		# times the ring (the point), and at least the ring's worth of them.
		ring_bytes=$(compact_ring_bytes)
		check_ge "expanded bytes kept ($mbytes) over the compact ring (${ring_bytes}B)" \
			$((mbytes * 100)) $((ring_bytes * 80))
		check_le "records kept (at least 8 compact bytes each)" "$n" $((ring_bytes / 8))
	else
		check_ge "getpgid records kept ($n x ${recsz}B, ring ${ring_bytes}B)" $((n * 100)) $((ring_bytes * 80 / recsz))
		check_le "bytes kept" "$mbytes" "$ring_bytes"
	fi
	check_eq "first kept seq = TRIG - kept" "$first" $((TRIG - n))
else
	t_fail "sidecar has no main-ring records/ring size"
fi
t_end

# The final snapshot: from the trigger snapshot's resume to the end of the
# run, and seqgen's stream ends at N-1.
t_begin "cut: final snapshot ends with the last seq, starts after the trigger snapshot"
G=$(snaps "$D" final | head -1)
if [ -n "$G" ]; then
	decode "$G" >"$TMP/final.tsv"
	read -r _ ffirst flast fmissing fdisorder < <(seq_check "$TMP/final.tsv" "$BASE")
	check_eq "final: last seq" "$flast" $((N - 1))
	check_eq "final: missing seqs" "$fmissing" 0
	check_eq "final: out-of-order seqs" "$fdisorder" 0
	check_gt "final: first seq after the trigger" "$ffirst" $((TRIG - 1))
	end1=$(j window.end_ns)
	json_load "${G%.data}.json"
	check_gt "final: window start after the trigger snapshot's end" "$(j window.start_ns)" "$end1"
else
	t_fail "no final snapshot"
fi
t_end
