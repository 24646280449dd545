#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `trigrec status SOCK` (and the control socket's `status` request): what an
# operator asks of a running service. The script, pid and uptime; each
# trigger's counters, exactly, after known firings; the last snapshot; the
# output directory's disk use, against stat(1); the same as JSON.
. "$(dirname "$0")/lib.sh"
need_root

BASE=$(seq_base)
MAGIC=$((BASE + 4242))
SOCK=$TMP/ctl.sock
D=$TMP/out

# Fire the trigger N times (getsid(MAGIC) fails with ESRCH: only the call counts).
fire() {
	"$PY" -c "import os
for _ in range($1):
    try: os.getsid($MAGIC)
    except OSError: pass"
}

# A script as an operator would install it in /etc/trigrec/NAME.trig.
cat >"$TMP/web.trig" <<EOT
record syscalls:sys_enter_getpgid if pid >= $BASE && pid < $((BASE + 1000000))
buffer 64K
output $D
control $SOCK
trigger slowpoke { on syscalls:sys_enter_getsid if pid == $MAGIC  limit 1/hour }
trigger idle { on syscalls:sys_enter_getsid if pid == $((MAGIC + 1)) }
trigger mine { manual }
EOT

# trigrec run in the background, like tr_start does for record.
: >"$TMP/run.log"
"$TRIGREC" run "$TMP/web.trig" >"$TMP/run.log" 2>&1 &
TR_PID=$!
_bg+=("$TR_PID")
for ((i = 0; i < TIMEOUT * 50; i++)); do
	_has "$TMP/run.log" "trigrec: recording " && break
	kill -0 "$TR_PID" 2>/dev/null || break
	_nap 0.02
done
if ! _has "$TMP/run.log" "trigrec: recording "; then
	t_blocked "status: a running script" "trigrec run did not start: $(log_tail "$TMP/run.log")"
	exit 1
fi

# field TEXT KEY: the value after "KEY:" (padding removed).
field() { printf '%s\n' "$1" | sed -n "s/^$2: *//p"; }

t_begin "status: a fresh run: script, pid, uptime, no snapshot yet"
out=$(timeout 10 "$TRIGREC" status "$SOCK" 2>&1)
check_eq "exit code" "$?" 0
check_eq "pid" "$(field "$out" pid)" "$TR_PID"
check_eq "script" "$(field "$out" script)" "$TMP/web.trig"
check_match "started" "$(field "$out" started)" "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"
check_match "uptime" "$(field "$out" uptime)" "^[0-9]+s \([0-9]+ s\)$"
check_eq "last snapshot" "$(field "$out" 'last snapshot')" none
check_eq "snapshots" "$(field "$out" snapshots)" "0 written (0 by triggers, 0 manual, 0 final), 0 failed"
check_eq "output" "$(field "$out" output)" "$D (0 files, 0 snapshots, 0 bytes, 0 B)"
check_eq "triggers" "$(field "$out" triggers)" 2
check_match "trigger slowpoke" "$out" "^trigger slowpoke: fired 0, snapshots 0, coalesced 0, suppressed 0 \(cooldown 0, limit 0, budget 0\), side-band full 0, evaluated [0-9]+, matched 0, str\(\) faults 0$"
check_match "trigger idle" "$out" "^trigger idle: fired 0, snapshots 0, "
t_end

# Three matches under `limit 1/hour`: one snapshot, two held back by the limit.
t_begin "status: counts after a trigger fired once and was limited twice"
fire 1
wait_snaps "$D" slowpoke 1 || t_fail "no slowpoke snapshot: $(log_tail "$TMP/run.log")"
fire 2
_nap 0.3
out=$(timeout 10 "$TRIGREC" status "$SOCK" 2>&1)
check_match "trigger slowpoke" "$out" "^trigger slowpoke: fired 1, snapshots 1, coalesced 0, suppressed 2 \(cooldown 0, limit 2, budget 0\), side-band full 0, evaluated [0-9]+, matched 3, str\(\) faults 0$"
check_match "trigger idle" "$out" "^trigger idle: fired 0, snapshots 0, coalesced 0, suppressed 0 "
snap=$(snaps "$D" slowpoke | head -1)
check_match "last snapshot" "$(field "$out" 'last snapshot')" "^$snap \(trigger slowpoke, [0-9T:-]+Z, [0-9]+s ago\)$"
check_eq "snapshots" "$(field "$out" snapshots)" "1 written (1 by triggers, 0 manual, 0 final), 0 failed"
t_end

t_begin "status: a manual snapshot is the last one; disk use matches stat"
r=$(timeout 30 "$TRIGREC" control "$SOCK" snapshot mine)
check_match "snapshot" "$r" "^ok $D/.*-mine\.data$"
out=$(timeout 10 "$TRIGREC" status "$SOCK" 2>&1)
check_match "last snapshot" "$(field "$out" 'last snapshot')" "^${r#ok } \(trigger mine, "
check_eq "snapshots" "$(field "$out" snapshots)" "2 written (1 by triggers, 1 manual, 0 final), 0 failed"
files=$(find "$D" -maxdepth 1 -type f \( -name '*.data' -o -name '*.json' \) | grep -c .)
bytes=$(find "$D" -maxdepth 1 -type f \( -name '*.data' -o -name '*.json' \) -printf '%s\n' | awk '{s += $1} END {print s + 0}')
check_eq "files on disk" "$files" 4
check_match "output" "$(field "$out" output)" "^$D \($files files, 2 snapshots, $bytes bytes, "
t_end

t_begin "status: --json is one JSON object with the same facts"
js=$(timeout 10 "$TRIGREC" status --json "$SOCK" 2>&1)
check_eq "lines" "$(printf '%s\n' "$js" | grep -c .)" 1
printf '%s\n' "$js" >"$TMP/status.json"
if json_load "$TMP/status.json"; then
	check_eq "pid" "$(j pid)" "$TR_PID"
	check_eq "script" "$(j script)" "$TMP/web.trig"
	check_eq "output.files" "$(j output.files)" "$files"
	check_eq "output.bytes" "$(j output.bytes)" "$bytes"
	check_eq "snapshots.written" "$(j snapshots.written)" 2
	check_eq "snapshots.manual" "$(j snapshots.manual)" 1
	check_eq "last_snapshot.path" "$(j last_snapshot.path)" "${r#ok }"
	check_eq "last_snapshot.trigger" "$(j last_snapshot.trigger)" mine
	check_eq "triggers" "$(j 'triggers#')" 2
	check_eq "triggers.0" "$(j triggers.0.name) fired $(j triggers.0.fired) snapshots $(j triggers.0.snapshots) suppressed $(j triggers.0.suppressed) limit $(j triggers.0.suppressed_limit) matched $(j triggers.0.matched)" \
		"slowpoke fired 1 snapshots 1 suppressed 2 limit 2 matched 3"
	check_match "uptime_s" "$(j uptime_s)" "^[0-9]+$"
else
	t_fail "not JSON: $(j error | cut -c1-200): $js"
fi
t_end

t_begin "status: trigrec control SOCK status says the same; unknown requests list it"
a=$(timeout 10 "$TRIGREC" control "$SOCK" status | grep -v -e '^uptime:' -e '^last snapshot:')
b=$(timeout 10 "$TRIGREC" status "$SOCK" | grep -v -e '^uptime:' -e '^last snapshot:')
check_eq "same text" "$a" "$b"
check_match "unknown" "$(timeout 10 "$TRIGREC" control "$SOCK" frobnicate)" "^error unknown command 'frobnicate' \\(snapshot \\[NAME\\] \\| stats \\| status \\[json\\] \\| reload \\| stop\\)$"
t_end

# Another user reaching the socket is refused, as for every request.
t_begin "status: another user is refused"
if ! command -v setpriv >/dev/null; then
	t_skip "setpriv (util-linux) is not installed"
else
	chmod 755 "$TMP"
	chmod 666 "$SOCK"
	out=$(cd / && timeout -k 5 "$TIMEOUT" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TRIGREC" status "$SOCK" 2>&1)
	check_eq "exit code" "$?" 1
	check_match "reply" "$out" "^error permission denied: uid 65534 may not control this recorder"
	chmod 600 "$SOCK"
	chmod 700 "$TMP"
fi
t_end

tr_stop INT
t_begin "status: the run ends normally"
check_eq "exit code (log: $(log_tail "$TMP/run.log"))" "$TR_RC" 0
t_end

t_begin "status: trigrec record has no script"
if tr_start "$TMP/rec.log" -o "$TMP/rec" --control "$SOCK" -m 64K -e syscalls:sys_enter_getpgid \
	--filter "$(seq_filter)" --trigger "syscalls:sys_enter_getsid if pid == $MAGIC"; then
	out=$(timeout 10 "$TRIGREC" status "$SOCK" 2>&1)
	check_eq "script" "$(field "$out" script)" "none (trigrec record)"
	check_match "trigger" "$out" "^trigger sys_enter_getsid: fired 0, snapshots 0, "
	tr_stop INT
	check_eq "exit code" "$TR_RC" 0
else
	t_fail "recorder did not start: $(log_tail "$TMP/rec.log")"
fi
t_end

t_begin "status: usage and a missing recorder"
timeout 10 "$TRIGREC" status >/dev/null 2>"$TMP/u.log"
check_eq "no socket: exit code" "$?" 2
check_match "no socket: usage" "$(cat "$TMP/u.log")" "^usage: trigrec status"
timeout 10 "$TRIGREC" status --bogus x >/dev/null 2>"$TMP/u.log"
check_eq "unknown option: exit code" "$?" 2
# A bare NAME is the unit's socket in /run/trigrec.
timeout 10 "$TRIGREC" status "nosuch-$$" >/dev/null 2>"$TMP/u.log"
check_eq "no recorder: exit code" "$?" 1
check_match "NAME is /run/trigrec/NAME.sock" "$(cat "$TMP/u.log")" "cannot connect to /run/trigrec/nosuch-$$\.sock"
t_end
