#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# No feedback loop: trigrec's own threads never fire a trigger. Writing a
# snapshot fsyncs its files; a trigger on fsync by tasks named trigrec* must
# fire for a workload of that name, not for trigrec's own fsyncs (before,
# each snapshot fired the next). The name keeps other programs' fsyncs out.
. "$(dirname "$0")/lib.sh"
need_root

D=$TMP/out
MARK=$TMP/mark
t_begin "self: writing snapshots does not fire a trigger on what trigrec does to write them"
if tr_start "$TMP/rec.log" -a -o "$D" -m 64K --no-final-snapshot -e syscalls:sys_enter_fsync \
	--trigger 'syscalls:sys_enter_fsync if comm ~ "trigrec*" limit none name fsync'; then
	kill -USR2 "$TR_PID"
	wait_snaps "$D" manual 1 || t_fail "no manual snapshot: $(log_tail "$TMP/rec.log")"
	_nap 1
	check_eq "fsync snapshots after trigrec wrote one (and fsynced it)" "$(nsnaps "$D" fsync)" 0
	cp "$PY" "$TMP/trigrec-fake"
	"$TMP/trigrec-fake" -c "import os
fd = os.open('$MARK', os.O_CREAT | os.O_WRONLY, 0o600)
os.fsync(fd)"
	wait_snaps "$D" fsync 1 || t_fail "the workload's fsync did not fire: $(log_tail "$TMP/rec.log")"
	_nap 1
	check_eq "fsync snapshots" "$(nsnaps "$D" fsync)" 1
	f=$(snaps "$D" fsync | head -1)
	json_load "${f%.data}.json"
	check_eq "the snapshot's trigger comm" "$(j trigger.comm)" trigrec-fake
	tr_stop INT
	check_eq "exit code" "$TR_RC" 0
else
	t_fail "recorder did not start: $(log_tail "$TMP/rec.log")"
fi
t_end

# trigrec's own work (writing a snapshot: openat, read, close of /proc,
# modules, build-ids...) and its on_snapshot commands (and theirs) are left
# out of the recorded history by default, in BPF; --include-self keeps them.
# The second snapshot's history holds the writing of the first and its hook.
cat >"$TMP/hook.sh" <<HOOK
#!/bin/sh
echo \$\$ >>"\$TRIGREC_TEST_PIDS"
cat /etc/passwd /etc/hostname >/dev/null &
echo \$! >>"\$TRIGREC_TEST_PIDS"
wait
echo done >>"\$TRIGREC_TEST_PIDS"
HOOK
chmod +x "$TMP/hook.sh"
for mode in default include; do
	t_begin "self: trigrec's own records and its on_snapshot command's ($mode)"
	D=$TMP/s-$mode
	extra=()
	[ $mode = include ] && extra=(--include-self)
	export TRIGREC_TEST_PIDS=$TMP/pids-$mode
	: >"$TRIGREC_TEST_PIDS"
	if tr_start "$TMP/s-$mode.log" -a -o "$D" -m 1M --no-final-snapshot "${extra[@]}" \
		-e syscalls:sys_enter_openat,syscalls:sys_enter_read,syscalls:sys_enter_close \
		--on-snapshot "$TMP/hook.sh"; then
		kill -USR2 "$TR_PID"
		wait_snaps "$D" manual 1 || t_fail "no first snapshot: $(log_tail "$TMP/s-$mode.log")"
		for ((i = 0; i < TIMEOUT * 50; i++)); do _has "$TRIGREC_TEST_PIDS" "done" && break; _nap 0.02; done
		kill -USR2 "$TR_PID"
		wait_snaps "$D" manual 2 || t_fail "no second snapshot: $(log_tail "$TMP/s-$mode.log")"
		f=$(snaps "$D" manual | tail -1)
		decode "$f" >"$TMP/s-$mode.txt"
		all=$(wc -l <"$TMP/s-$mode.txt")
		own=$(awk -F'\t' -v p="$TR_PID" '$3 == p' "$TMP/s-$mode.txt" | wc -l)
		hook=$(awk -F'\t' 'NR == FNR { if ($1 ~ /^[0-9]+$/) h[$1] = 1; next } ($3 in h)' \
			"$TRIGREC_TEST_PIDS" "$TMP/s-$mode.txt" | wc -l)
		echo "    $mode: $all records, $own of trigrec (pid $TR_PID), $hook of its hook ($(grep -c '^[0-9]' "$TRIGREC_TEST_PIDS") pids)"
		check_gt "records in the snapshot" "$all" 0
		if [ "${TRIGREC_RINGS:-bpf}" = perf ]; then
			# perf writes the records, into rings every perf user shares: the
			# gates cannot drop them for trigrec alone (docs/trigrec.1, --include-self).
			check_gt "perf's rings: records of trigrec's own pid (kept, as documented)" "$own" 0
		elif [ $mode = default ]; then
			check_eq "records of trigrec's own pid" "$own" 0
			check_eq "records of the on_snapshot command and its child" "$hook" 0
		else
			check_gt "records of trigrec's own pid" "$own" 0
			check_gt "records of the on_snapshot command and its child" "$hook" 0
		fi
		tr_stop INT
		check_eq "exit code" "$TR_RC" 0
	else
		t_fail "recorder did not start: $(log_tail "$TMP/s-$mode.log")"
	fi
	t_end
done
