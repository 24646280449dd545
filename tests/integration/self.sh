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
