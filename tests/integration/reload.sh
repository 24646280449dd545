#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Reload (SIGHUP, `trigrec control SOCK reload`): the script is re-read; new
# triggers take over from the old ones without losing the recorded history
# (the records from before the reload are in the next snapshot); a script
# with errors is refused with FILE:LINE:COL and the old one keeps running;
# counters follow triggers by name; a reload during a storm of firings never
# decodes a message against the wrong trigger table. reload_stream.sh:
# recording goes on through a reload.
. "$(dirname "$0")/lib.sh"
need_root

BASE=$(seq_base)
M1=$((BASE + 901)) M2=$((BASE + 902))
D=$TMP/out
SOCK=$TMP/ctl.sock
PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
scrape() { "$PY" -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1" 2>/dev/null; }
metric() { awk -v k="$2" '$1 == k { print $2 }' <<<"$1"; }
getsid() { "$PY" -c "import os
for v in [$1]:
    try: os.getsid(v)
    except OSError: pass"; }
# getpgid_seq FROM N: getpgid(BASE+FROM .. BASE+FROM+N-1), the recorded history
getpgid_seq() { "$PY" -c "import os
for v in range($BASE + $1, $BASE + $1 + $2):
    try: os.getpgid(v)
    except OSError: pass"; }

script() { # NAME PID: a script whose one trigger is NAME on getsid(PID)
	cat <<TRIG
# reload test
record syscalls:sys_enter_getpgid if pid >= $BASE && pid < $((BASE + 1000000))
buffer 1M
metrics 127.0.0.1:$PORT
trigger $1 { syscalls:sys_enter_getsid if pid == $2  limit none }
TRIG
}
S=$TMP/watch.trig
script alpha $M1 >"$S"

if ! tr_start_ready "$TMP/run.log" run "$S" -o "$D" --control "$SOCK"; then
	t_blocked "reload: a running script" "trigrec run did not start: $(log_tail "$TMP/run.log")"
	exit 1
fi

t_begin "reload: before, the script's trigger fires"
getpgid_seq 0 100
getsid $M1
if wait_snaps "$D" alpha 1; then
	check_eq "snapshots of alpha" "$(nsnaps "$D" alpha)" 1
else
	t_fail "no alpha snapshot: $(log_tail "$TMP/run.log")"
fi
t_end

t_begin "reload: SIGHUP swaps the trigger; the old one no longer fires, the new one does"
getpgid_seq 1000 100 # history recorded before the reload
script beta $M2 >"$S"
kill -HUP "$TR_PID"
for ((i = 0; i < TIMEOUT * 50; i++)); do _has "$TMP/run.log" "reloaded: generation 1" && break; _nap 0.02; done
check_match "log" "$(cat "$TMP/run.log")" "trigrec: reloaded: generation 1, 1 trigger, in [0-9.]+ ?[mu]?s"
getsid $M1
getsid $M2
if wait_snaps "$D" beta 1; then
	_nap 0.3
	check_eq "snapshots of alpha (still only the one from before)" "$(nsnaps "$D" alpha)" 1
	f=$(snaps "$D" beta | head -1)
	json_load "${f%.data}.json"
	check_eq "sidecar trigger.name" "$(j trigger.name)" beta
	check_eq "sidecar trigger.fields.pid" "$(j trigger.fields.pid)" $M2
	# The history from before the reload is in the snapshot taken after it.
	n=$(decode "$f" | awk -F'\t' -v lo=$((BASE + 1000)) -v hi=$((BASE + 1099)) \
		'$5 == "syscalls:sys_enter_getpgid" && $6 >= lo && $6 <= hi' | wc -l)
	check_eq "getpgid records from before the reload in the new snapshot" "$n" 100
else
	t_fail "no beta snapshot after the reload: $(log_tail "$TMP/run.log" 5)"
fi
t_end

t_begin "reload: trigrec control SOCK reload answers with the outcome"
script gamma $M1 >"$S"
out=$(timeout 30 "$TRIGREC" control "$SOCK" reload)
check_match "reply" "$out" "^ok reloaded: generation 2, 1 trigger, in "
getsid $M1
wait_snaps "$D" gamma 1 || t_fail "no gamma snapshot: $(log_tail "$TMP/run.log")"
t_end

t_begin "reload: a script with errors is refused with FILE:LINE:COL; the old one keeps running"
cp "$S" "$TMP/good.trig"
printf 'trigger delta { syscalls:sys_enter_getsidd if pid == %d }\n' $M2 >>"$S"
out=$(timeout 30 "$TRIGREC" control "$SOCK" reload)
rc=$?
check_eq "exit status of trigrec control" "$rc" 1
check_match "reply" "$out" "^error $S:6:[0-9]+: .*sys_enter_getsidd"
check_match "log (the caret line too)" "$(cat "$TMP/run.log")" "reload of $S failed; the running script stays in force"
kill -HUP "$TR_PID"
_nap 0.5
check_eq "reload failures logged (control + SIGHUP)" "$(grep -c 'reload of .* failed' "$TMP/run.log")" 2
n0=$(nsnaps "$D" gamma)
getsid $M1
wait_snaps "$D" gamma $((n0 + 1)) || t_fail "the old trigger (gamma) stopped firing: $(log_tail "$TMP/run.log")"
body=$(scrape "http://127.0.0.1:$PORT/metrics")
check_eq "trigrec_reloads_total ok" "$(metric "$body" 'trigrec_reloads_total{result="ok"}')" 2
check_eq "trigrec_reloads_total failed" "$(metric "$body" 'trigrec_reloads_total{result="failed"}')" 2
check_eq "gamma's written counter" "$(metric "$body" 'trigrec_snapshots_total{trigger="gamma",result="written"}')" $((n0 + 1))
t_end

t_begin "reload: changed settings other than triggers are named as not applied"
cp "$TMP/good.trig" "$S"
sed -i 's/^buffer 1M/buffer 2M/' "$S"
out=$(timeout 30 "$TRIGREC" control "$SOCK" reload)
check_match "reply" "$out" "^ok reloaded: generation 3, .*not applied until a restart: buffer changed"
t_end

# A storm: the trigger fires continuously (every getsid of M1) while reloads
# alternate between two tables whose trigger ids mean different things.
t_begin "reload: 10 reloads during a storm of firings; every snapshot names a trigger of its own table"
script one $M1 >"$TMP/one.trig"
printf 'trigger two { syscalls:sys_enter_getsid if pid == %d  limit none }\n' $M2 >>"$TMP/one.trig"
script two $M2 >"$TMP/two.trig"
printf 'trigger one { syscalls:sys_enter_getsid if pid == %d  limit none }\n' $M1 >>"$TMP/two.trig"
"$PY" -c "import os, time
end = time.time() + 8
while time.time() < end:
    for v in ($M1, $M2):
        try: os.getsid(v)
        except OSError: pass
    time.sleep(0.01)" &
storm=$!
_bg+=("$storm")
ok=0
for ((k = 0; k < 10; k++)); do
	if ((k % 2)); then cp "$TMP/two.trig" "$S"; else cp "$TMP/one.trig" "$S"; fi
	out=$(timeout 30 "$TRIGREC" control "$SOCK" reload)
	[[ $out == "ok reloaded"* ]] && ok=$((ok + 1))
	_nap 0.3
done
wait $storm
_nap 1
check_eq "reloads that succeeded" "$ok" 10
echo "    reload times: $(grep -o 'generation [0-9]*, [0-9]* triggers\?, in [0-9.]* \?[mu]\?s' "$TMP/run.log" | sed 's/.*in //' | tr '\n' ' ')"
bad=0 n=0
for f in $(snaps "$D" one) $(snaps "$D" two); do
	json_load "${f%.data}.json"
	n=$((n + 1))
	case $(j trigger.name) in
	one) [ "$(j trigger.fields.pid)" = $M1 ] || bad=$((bad + 1)) ;;
	two) [ "$(j trigger.fields.pid)" = $M2 ] || bad=$((bad + 1)) ;;
	*) bad=$((bad + 1)) ;;
	esac
done
check_gt "snapshots during the storm" "$n" 2
check_eq "snapshots whose trigger does not match its record" "$bad" 0
check_nomatch "log" "$(cat "$TMP/run.log")" "side-band message of trigger table generation"
t_end

tr_stop INT
t_begin "reload: stops cleanly after reloads"
check_eq "exit code (log: $(log_tail "$TMP/run.log"))" "$TR_RC" 0
t_end

