#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# post with a trigger: the snapshot ends at trigger + post, with the calls
# made after the trigger in it and nothing later. A trigger's own `post`
# overrides --post; a trigger without one uses --post.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trig_lib.sh"
need_root
need_trigwork

BASE=$(seq_base)
D=$TMP/out
t_begin "post: trigger post 30ms and --post 60ms"
if tw_start "$TMP/log" "$D" --no-final-snapshot --post 60ms \
	-e syscalls:sys_enter_getsid,syscalls:sys_enter_getpgid \
	--trigger 'syscalls:sys_enter_getsid if pid == 51 post 30ms name p30' \
	--trigger 'syscalls:sys_enter_getsid if pid == 52 name pcli'; then
	# After each trigger, getpgid(BASE + i) every ~1 ms for well past the post window.
	tw getsid 51 seq 120 "$BASE" 1000
	wait_snaps "$D" p30 1 || t_fail "p30: no snapshot"
	tw getsid 52 seq 150 $((BASE + 1000)) 1000
	wait_snaps "$D" pcli 1 || t_fail "pcli: no snapshot"
	tw_end
	check_eq "trigrec exit code (log: $(log_tail "$TMP/log"))" "$TR_RC" 0
else
	t_fail "trigrec did not start: $(log_tail "$TMP/log")"
fi
t_end

# check_post NAME ARG POST_NS SEQBASE
check_post() {
	local t0 trig_t last_t after
	t_begin "post: $1 ends at trigger + $(($3 / 1000000)) ms"
	one_snap "$D" "$1" || { t_end; return; }
	decode_full "$SNAP" >"$TMP/$1.tsv"
	t0=$(j trigger.time_ns)
	check_eq "window.post_ns" "$(j window.post_ns)" "$3"
	check_eq "trigger.fields.pid" "$(j trigger.fields.pid)" "$2"
	trig_t=$(awk -F'\t' -v a="$2" '$5 == "syscalls:sys_enter_getsid" && $6 == a { print $1 }' "$TMP/$1.tsv")
	check_ne "the trigger's record is in the snapshot" "$trig_t" ""
	last_t=$(tail -1 "$TMP/$1.tsv" | cut -f1)
	check_le "last record <= trigger + post" "$last_t" $((t0 + $3))
	check_le "window end <= trigger + post" "$(j window.end_ns)" $((t0 + $3))
	check_eq "records later than trigger + post" \
		"$(awk -F'\t' -v t=$((t0 + $3)) '$1 > t' "$TMP/$1.tsv" | wc -l)" 0
	after=$(awk -F'\t' -v t="${trig_t:-0}" '$1 > t' "$TMP/$1.tsv" | wc -l)
	check_gt "records after the trigger" "$after" 10
	# Calls ~1 ms apart go on past the cut: the last kept one is close to it
	# (10 ms: room for a scheduling delay on a loaded machine).
	check_ge "last record >= trigger + post - 10 ms" "$last_t" $((t0 + $3 - 10000000))
	read -r n first _ missing disorder < <(seq_check "$TMP/$1.tsv" "$4" 1000)
	check_eq "first seq after the trigger" "$first" 0
	check_eq "records after the trigger = seqs kept" "$after" "$n"
	check_eq "missing seqs" "$missing" 0
	check_eq "out-of-order seqs" "$disorder" 0
	t_end
}
check_post p30 51 30000000 "$BASE"
check_post pcli 52 60000000 $((BASE + 1000))
