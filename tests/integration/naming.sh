#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A script's `name PREFIX` starts every snapshot file name (retention and the
# start-up clean-up still recognise them), and a script's manual trigger with
# `post` keeps recording for that long after `trigrec control SOCK snapshot
# NAME` before it cuts.
. "$(dirname "$0")/lib.sh"
need_root

BASE=$(seq_base)
D=$TMP/out
SOCK=$TMP/ctl.sock
cat >"$TMP/n.trig" <<TRIG
record syscalls:sys_enter_getpgid if pid >= $BASE && pid < $((BASE + 1000000))
buffer 256K
name web-01
keep 2 files
trigger peek { manual post 300ms }
TRIG
# After the request is sent: getpgid(BASE + 500000 + i) every 10 ms for 0.6 s.
cat >"$TMP/peek.py" <<PY
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("$SOCK")
s.sendall(b"snapshot peek\n")
t0 = time.monotonic()
i = 0
while time.monotonic() - t0 < 0.6:
    try: os.getpgid($BASE + 500000 + i)
    except OSError: pass
    i += 1
    time.sleep(0.01)
print(s.recv(4096).decode().strip())
print("sent", i)
PY

if ! tr_start_ready "$TMP/run.log" run "$TMP/n.trig" -o "$D" --control "$SOCK" --no-final-snapshot; then
	t_blocked "naming: a running script" "trigrec run did not start: $(log_tail "$TMP/run.log")"
	exit 1
fi

t_begin "naming: a manual trigger's post window records on after the request"
out=$(timeout 20 "$PY" "$TMP/peek.py")
f=$(sed -n 's/^ok //p' <<<"$out")
sent=$(sed -n 's/^sent //p' <<<"$out")
check_match "reply" "$out" "^ok $D/web-01-[0-9]{8}-[0-9]{6}\.[0-9]{6}-peek\.data$"
if [ -n "$f" ] && [ -e "$f" ]; then
	n=$(decode "$f" | awk -F'\t' -v lo=$((BASE + 500000)) '$6 >= lo' | wc -l)
	# 300 ms of a 600 ms stream at 10 ms steps: about 30 of ~55 calls.
	check_ge "getpgid calls recorded after the request (of $sent)" "$n" 15
	check_lt "getpgid calls recorded after the request: the cut is at 300 ms (of $sent)" "$n" "$sent"
	json_load "${f%.data}.json"
	check_eq "sidecar trigger.name" "$(j trigger.name)" peek
else
	t_fail "no snapshot file: $(log_tail "$TMP/run.log")"
fi
t_end

t_begin "naming: control snapshot without a name takes the script's manual trigger"
out=$(timeout 20 "$TRIGREC" control "$SOCK" snapshot)
check_match "reply" "$out" "^ok $D/web-01-[0-9]{8}-[0-9]{6}\.[0-9]{6}-peek\.data$"
t_end

t_begin "naming: retention counts prefixed snapshots (keep 2 files)"
for k in 1 2 3; do
	timeout 20 "$TRIGREC" control "$SOCK" snapshot >/dev/null
done
_nap 0.3
check_eq "snapshots kept" "$(nsnaps "$D")" 2
check_eq "all named web-01-..." "$(ls "$D" | grep -vc '^web-01-')" 0
t_end

tr_stop INT
t_begin "naming: a lone prefixed sidecar from a killed run is removed at the next start"
cp "$(ls "$D"/*.json | head -1)" "$D/web-01-20200101-000000.000000-peek.json"
if tr_start "$TMP/again.log" -a -o "$D" -e syscalls:sys_enter_getpgid --filter "$(seq_filter)" --no-final-snapshot; then
	check_eq "lone sidecar left" "$(ls "$D" | grep -c 20200101)" 0
	tr_stop INT
else
	t_fail "did not start: $(log_tail "$TMP/again.log")"
fi
t_end
