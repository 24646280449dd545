#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The control socket (--control, trigrec control): only its owner and root
# may use it, bad paths are refused before recording starts, no client can
# delay a freeze (requests are served on their own thread, not on the
# side-band thread), and `trigrec control` gives up on a recorder that does
# not answer.
. "$(dirname "$0")/lib.sh"
need_root

BASE=$(seq_base)
MAGIC=$((BASE + 777))
EV=(-e syscalls:sys_enter_getpgid --filter "$(seq_filter)")
TRIG="syscalls:sys_enter_getsid if pid == $MAGIC"

# A client in python: CLIENT SOCK [silent SECONDS [GETSID_ARG]] | [LINE]
cat >"$TMP/client.py" <<'PY'
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("connect: " + e.strerror)
    sys.exit(0)
if sys.argv[2] == "silent":
    # Connected, says nothing; meanwhile (optionally) fires the trigger.
    time.sleep(0.1)
    if len(sys.argv) > 4:
        try:
            os.getsid(int(sys.argv[4]))
        except OSError:
            pass
    time.sleep(float(sys.argv[3]))
    sys.exit(0)
s.sendall((sys.argv[2] + "\n").encode())
try:
    print(s.recv(4096).decode().strip())
except OSError as e:
    print("recv: " + (e.strerror or str(e)))
PY

# A server that accepts and never replies.
cat >"$TMP/mute.py" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(4)
print("ready", flush=True)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
PY

# --- bad paths, refused before anything is loaded ---

t_begin "control: --control '' is refused (it would be an abstract socket anyone can reach)"
tr_run "$TMP/empty.log" --control '' -o "$TMP/empty" "${EV[@]}" -- true
rc=$?
check_ne "exit code" "$rc" 0
check_match "message" "$(cat "$TMP/empty.log")" "--control: empty path"
check_nomatch "recording started" "$(cat "$TMP/empty.log")" "trigrec: recording "
t_end

t_begin "control: --control on a regular file is refused before recording"
touch "$TMP/afile"
tr_run "$TMP/file.log" --control "$TMP/afile" -o "$TMP/file" "${EV[@]}" -- true
rc=$?
check_ne "exit code" "$rc" 0
check_match "message" "$(cat "$TMP/file.log")" "--control $TMP/afile: exists and is not a socket"
check_nomatch "recording started" "$(cat "$TMP/file.log")" "trigrec: recording "
check_eq "the file is untouched" "$(stat -c %F "$TMP/afile")" "regular empty file"
t_end

# --- a running recorder ---

CD=$TMP/ctl
mkdir -p "$CD"
SOCK=$CD/sock
D=$TMP/out
if ! tr_start "$TMP/rec.log" -a -o "$D" --control "$SOCK" -m 64K "${EV[@]}" --trigger "$TRIG"; then
	t_blocked "control: a running recorder" "recorder did not start: $(log_tail "$TMP/rec.log")"
	exit 1
fi

t_begin "control: the start-up line names the control socket"
check_match "start-up line" "$(grep 'trigrec: recording ' "$TMP/rec.log")" "; control socket $SOCK$"
t_end

t_begin "control: the socket is mode 0600, owned by the recorder's user"
check_eq "mode and owner" "$(stat -c '%a %u %F' "$SOCK")" "600 0 socket"
t_end

t_begin "control: the owner is served (stats, snapshot)"
check_match "stats" "$("$PY" "$TMP/client.py" "$SOCK" stats)" "^snapshots 0 coalesced 0 gated 0 recursion_misses [0-9]+ generation 0 \(counters since start\); sys_enter_getsid evaluated [0-9]+ matched 0 fired 0 "
out=$("$PY" "$TMP/client.py" "$SOCK" "snapshot mine")
check_match "snapshot" "$out" "^ok $D/.*-mine\.data$"
[ -e "${out#ok }" ] || t_fail "snapshot file ${out#ok } missing"
t_end

# A client that connects and says nothing while a trigger fires: before the
# fix the side-band thread sat in read() on it for 200 ms, recording frozen.
t_begin "control: a silent client does not delay a trigger's freeze"
"$PY" "$TMP/client.py" "$SOCK" silent 0.5 "$MAGIC"
if wait_snaps "$D" sys_enter_getsid 1 && json_load "$(snaps "$D" sys_enter_getsid | head -1 | sed 's/\.data$/.json/')"; then
	check_lt "freeze_to_resume_ns (under 2 ms)" "$(j timing.freeze_to_resume_ns)" 2000000
	check_eq "trigger.fields.pid" "$(j trigger.fields.pid)" "$MAGIC"
else
	t_fail "no trigger snapshot: $(log_tail "$TMP/rec.log")"
fi
t_end

# Another user who can reach the file (the mode is widened on purpose: a
# chmod, a socket dir shared with a group) is still refused, by SO_PEERCRED.
t_begin "control: another user is refused even when the file mode lets it connect"
if ! command -v setpriv >/dev/null; then
	t_skip "setpriv (util-linux) is not installed"
else
	chmod 755 "$TMP" "$CD"
	chmod 666 "$SOCK"
	cp "$TMP/client.py" "$CD/client.py" && chmod 644 "$CD/client.py"
	for req in "snapshot evil" stop stats; do
		out=$(cd / && timeout -k 5 "$TIMEOUT" setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$PY" "$CD/client.py" "$SOCK" "$req" 2>&1)
		check_match "reply to '$req' from uid 65534" "$out" \
			"^error permission denied: uid 65534 may not control this recorder \(only uid 0 and root\)$"
	done
	_nap 0.2
	check_eq "snapshots named evil" "$(nsnaps "$D" evil)" 0
	check_eq "recorder still running after the refused stop" "$(kill -0 "$TR_PID" 2>/dev/null && echo yes)" yes
	check_match "log" "$(cat "$TMP/rec.log")" "refused a client with uid 65534"
	check_eq "refusals logged (one line per minute)" "$(grep -c 'refused a client' "$TMP/rec.log")" 1
	chmod 600 "$SOCK"
	chmod 700 "$TMP" "$CD"
fi
t_end

tr_stop INT
t_begin "control: the socket is removed at exit"
check_eq "exit code (log: $(log_tail "$TMP/rec.log"))" "$TR_RC" 0
check_eq "socket left" "$(ls -A "$CD" | grep -v client.py)" ""
t_end

# A post window of an hour: the control socket still answers (stats at
# once, a snapshot request is coalesced into the trigger's).
D=$TMP/post
t_begin "control: answered during a long post window"
if tr_start "$TMP/post.log" -a -o "$D" --control "$SOCK" "${EV[@]}" --trigger "$TRIG post 1h"; then
	"$PY" -c "import os
try: os.getsid($MAGIC)
except OSError: pass"
	out=$(timeout 5 "$PY" "$TMP/client.py" "$SOCK" stats)
	check_match "stats" "$out" "^snapshots 0 .*; sys_enter_getsid evaluated [0-9]+ matched 1 fired 1 "
	out=$(timeout 5 "$PY" "$TMP/client.py" "$SOCK" snapshot)
	check_eq "snapshot during the window" "$out" coalesced
	tr_stop INT
	check_eq "exit code (log: $(log_tail "$TMP/post.log"))" "$TR_RC" 0
else
	t_fail "recorder did not start: $(log_tail "$TMP/post.log")"
fi
t_end

# `trigrec control` against a server that never replies: before the fix it
# waited forever.
t_begin "control: trigrec control gives up on a server that never replies"
"$PY" "$TMP/mute.py" "$TMP/mute.sock" >"$TMP/mute.out" 2>&1 &
_bg+=($!)
for ((i = 0; i < 250; i++)); do _has "$TMP/mute.out" ready && break; _nap 0.02; done
t0=$(date +%s%N)
timeout -k 2 20 "$TRIGREC" control "$TMP/mute.sock" stats >"$TMP/mc.out" 2>"$TMP/mc.log"
rc=$?
dt=$((($(date +%s%N) - t0) / 1000000))
check_eq "exit code" "$rc" 1
check_le "gave up after (ms)" "$dt" 7000
check_match "message" "$(cat "$TMP/mc.log")" "no reply from $TMP/mute.sock within 5"
t_end

t_begin "control: trigrec control without a recorder says what to check"
timeout -k 2 20 "$TRIGREC" control "$TMP/nosuch.sock" stats >/dev/null 2>"$TMP/nc.log"
check_eq "exit code" "$?" 1
check_match "message" "$(cat "$TMP/nc.log")" "cannot connect to $TMP/nosuch.sock: No such file or directory"
t_end
