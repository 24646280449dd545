#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --post 20ms: after the trigger the recorder keeps recording for 20 ms,
# then cuts. seqgen sleeps 1 ms between calls after its trigger, so the
# snapshot holds the stream before the trigger, the trigger, a few calls
# after it, and nothing later than trigger + 20 ms.
. "$(dirname "$0")/lib.sh"
need_root

TRIG=20000 N=20200 BASE=$(seq_base) POST_NS=20000000
D=$TMP/out
tr_run "$TMP/log" -e syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid \
	--trigger syscalls:sys_enter_getsid --post 20ms -m 64K -o "$D" --no-final-snapshot \
	-- "$SEQGEN" -n $N -t $TRIG -u 1000 -b "$BASE"
rc=$?
F=$(snaps "$D" sys_enter_getsid | head -1)

t_begin "post: one trigger snapshot"
check_eq "exit code (log: $(log_tail "$TMP/log"))" "$rc" 0
check_eq "trigger snapshots" "$(nsnaps "$D" sys_enter_getsid)" 1
t_end
if [ -z "$F" ]; then
	t_blocked "post: snapshot content" "no snapshot"
	exit 1
fi
decode "$F" >"$TMP/trig.tsv"
json_load "${F%.data}.json"
t0=$(j trigger.time_ns)
trig_rec=$(awk -F'\t' '$5 == "syscalls:sys_enter_getsid"' "$TMP/trig.tsv")
trig_t=$(cut -f1 <<<"$trig_rec")
last_t=$(tail -1 "$TMP/trig.tsv" | cut -f1)

t_begin "post: the window ends trigger + 20 ms, as the sidecar says"
check_eq "sidecar post_ns" "$(j window.post_ns)" $POST_NS
check_eq "window end - trigger time" $(($(j window.end_ns) - t0)) $POST_NS
t_end

t_begin "post: nothing later than trigger + 20 ms"
check_eq "trigger record's pid field" "$(cut -f6 <<<"$trig_rec")" $((BASE + TRIG))
# The trigger's record is stamped a few microseconds after the BPF program's
# time: 1 ms of slack (times SLOW).
check_le "last record - trigger record (ns)" $((last_t - trig_t)) $((POST_NS + 1000000 * SLOW))
check_le "last record vs window end" "$last_t" "$(j window.end_ns)"
t_end

t_begin "post: records after the trigger are kept, the stream has no gap"
read -r n first lastseq missing disorder < <(seq_check "$TMP/trig.tsv" "$BASE")
after=$(awk -F'\t' -v t="$trig_t" '$1 > t' "$TMP/trig.tsv" | wc -l)
check_ge "records after the trigger" "$after" 1
check_ge "last seq" "$lastseq" "$TRIG"
# 1 ms sleeps: at most ~20 calls fit in 20 ms.
check_le "last seq" "$lastseq" $((TRIG + 21))
check_eq "missing seqs between first ($first) and last ($lastseq)" "$missing" 0
check_eq "out-of-order seqs" "$disorder" 0
check_eq "records after the trigger = seqs after it" "$after" $((lastseq - TRIG + 1))
t_end
