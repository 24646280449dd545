#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Snapshot files against a hostile or broken output directory: planted
# temporary names and symlinks never cost a snapshot, kill -9 never leaves a
# partial or half pair (and what it leaves is cleaned at the next start), an
# -o too deep for PATH_MAX is refused at start-up, a full disk logs one line
# per period rather than one per snapshot, and the sidecar keeps UTF-8.
. "$(dirname "$0")/lib.sh"
need_root

BASE=$(seq_base)
MAGIC=$((BASE + 555))
EV=(-e syscalls:sys_enter_getpgid --filter "$(seq_filter)")
TRIG="syscalls:sys_enter_getsid if pid == $MAGIC"
STORM="$TRIG limit none"  # no default rate limit: a real storm

# getsid(MAGIC) N times, US microseconds apart, as a process named COMM.
cat >"$TMP/fire.py" <<'PY'
import os, sys, time
magic, n, us = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
if len(sys.argv) > 4:
    with open("/proc/self/comm", "wb") as f:
        f.write(sys.argv[4].encode())
for i in range(n):
    try:
        os.getsid(magic)
    except OSError:
        pass
    if us:
        time.sleep(us / 1e6)
PY
fire() { "$PY" "$TMP/fire.py" "$MAGIC" "$@"; }

# Every .data has its .json and the reverse, perf reads every .data, and no
# temporary is left: prints what is wrong, nothing when all is well.
check_pairs() {
	local f
	for f in "$1"/*.data; do
		[ -e "$f" ] || continue
		[ -e "${f%.data}.json" ] || echo "no sidecar: $(basename "$f")"
		"$PERF" script -i "$f" >/dev/null 2>&1 || echo "perf cannot read $(basename "$f")"
	done
	for f in "$1"/*.json; do
		[ -e "$f" ] || continue
		[ -e "${f%.json}.data" ] || echo "sidecar without its data: $(basename "$f")"
	done
	leftovers "$1"
}

# Before the fix the temporary names were .trigrec-PID-N.tmp, N < 100: a
# user who can write the directory made every snapshot fail.
D=$TMP/planted
t_begin "output: planted temporary names do not make snapshots fail"
if tr_start "$TMP/planted.log" -a -o "$D" "${EV[@]}"; then
	for i in $(seq 0 99); do touch "$D/.trigrec-$TR_PID-$i.tmp"; done
	"$SEQGEN" -n 100 -t 1000 -b "$BASE" >/dev/null
	kill -USR2 "$TR_PID"
	if wait_snaps "$D" manual 1; then
		decode "$(snaps "$D" manual | head -1)" >"$TMP/p.tsv"
		check_eq "records (count first last missing disorder)" "$(seq_check "$TMP/p.tsv" "$BASE" 100000)" "100 0 99 0 0"
	else
		t_fail "no manual snapshot: $(log_tail "$TMP/planted.log")"
	fi
	tr_stop INT
	check_eq "exit code (log: $(log_tail "$TMP/planted.log"))" "$TR_RC" 0
else
	t_fail "recorder did not start: $(log_tail "$TMP/planted.log")"
fi
t_end

# What a killed run leaves (0-byte temporaries, a sidecar whose .data never
# got its name) is removed at the next start; nothing else is.
t_begin "output: leftovers of a killed run are removed at start-up, and only those"
sleep 0 & dead=$!; wait $dead
touch "$D/.trigrec-$dead-0.tmp" "$D/20261201-000000.000001-x.json" "$D/notes.tmp" "$D/notes.json"
ln -s /nonexistent "$D/.trigrec-$dead-1.tmp"
if tr_start "$TMP/clean.log" -a -o "$D" --no-final-snapshot "${EV[@]}"; then
	tr_stop INT
	check_match "log" "$(cat "$TMP/clean.log")" "removed what a killed run left in $D: 101 temporary files, 1 sidecar without its .data"
	check_eq "temporaries left" "$(cd "$D" && ls -A | grep -c '^\.trigrec-')" 1
	check_eq "the symlink is kept" "$(readlink "$D/.trigrec-$dead-1.tmp")" /nonexistent
	check_eq "other files kept" "$(cd "$D" && ls notes.*)" "notes.json
notes.tmp"
else
	t_fail "recorder did not start: $(log_tail "$TMP/clean.log")"
fi
t_end

# kill -9 in the middle of a snapshot storm, at a different moment each
# round: no partial file, never a .data without its sidecar. The sidecar is
# named first and the .data is the commit point (docs/operations.md), so a
# kill between the two renames leaves one .json alone; the next start on
# that directory removes it, and that is checked too.
D=$TMP/kill9
t_begin "output: kill -9 during a snapshot storm leaves no partial file or half pair"
total=0 orphaned=()
for round in 1 2 3 4 5 6; do
	if ! tr_start "$TMP/k$round.log" -a -o "$D$round" -m 1M "${EV[@]}" --trigger "$STORM"; then
		t_fail "round $round: recorder did not start: $(log_tail "$TMP/k$round.log")"
		break
	fi
	# Full rings at every trigger, so the writer is busy all the time.
	"$BURN" -j 2 -d 3 -s 200 -a "$BASE" >/dev/null &
	bp=$!
	"$PY" "$TMP/fire.py" "$MAGIC" 100000 1000 >/dev/null 2>&1 &
	fp=$!
	_bg+=("$bp" "$fp")
	_nap "0.$((RANDOM % 4 + 3))$((RANDOM % 10))"
	kill -KILL "$TR_PID"
	wait "$TR_PID" 2>/dev/null
	kill "$fp" "$bp" 2>/dev/null
	wait "$fp" "$bp" 2>/dev/null
	bad=$(check_pairs "$D$round")
	# At most the one sidecar of the pair being named when the kill came.
	if [ "$(grep -c . <<<"$bad")" = 1 ] && grep -q '^sidecar without its data: ' <<<"$bad"; then
		orphaned+=("$round:${bad#sidecar without its data: }")
		bad=
	fi
	check_eq "round $round ($(nsnaps "$D$round") snapshots)" "$bad" ""
	total=$((total + $(nsnaps "$D$round")))
done
check_gt "snapshots written in all rounds" "$total" 5
# Whichever rounds left a sidecar alone: a new run there removes it and says so.
for o in "${orphaned[@]}"; do
	round=${o%%:*}
	tr_run "$TMP/k$round-next.log" -o "$D$round" "${EV[@]}" --no-final-snapshot -- true
	check_eq "round $round: the next start removed the lone ${o#*:}" \
		"$([ -e "$D$round/${o#*:}" ] && echo kept)$(check_pairs "$D$round")" ""
	check_match "round $round: the next start says so" "$(cat "$TMP/k$round-next.log")" \
		"removed what a killed run left in .*: 0 temporary files, 1 sidecar without its .data"
done
echo "  (${#orphaned[@]} of 6 kills came between a pair's two renames)"
t_end

# A dangling symlink named like the next snapshot: the snapshot takes the
# next free name, nothing is written through the link. The name has the
# trigger's wall time to the microsecond, so every name of a 20 ms window is
# planted, and the trigger fires in its middle.
D=$TMP/links
mkdir -p "$D"
cat >"$TMP/plant.py" <<'PY'
import os, sys, time
d, magic, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
# Fire 2 s from now; on a loaded machine planting 20000 links can take
# longer: then plant a window further ahead (the earlier links stay, in the past).
for lead in (2, 5, 12):
    target = int(time.time() * 1e6) + lead * 1000000
    for u in range(target - 10000, target + 10000):
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(u // 1000000)) + ".%06d" % (u % 1000000)
        try:
            os.symlink("/nonexistent/trigrec-planted-target", "%s/%s-%s.data" % (d, stamp, name))
        except FileExistsError:
            pass
    if time.time() * 1e6 < target - 5000:
        break
else:
    sys.exit("planting took too long: the trigger would miss the planted window")
while time.time() * 1e6 < target:
    pass
try:
    os.getsid(magic)
except OSError:
    pass
PY
t_begin "output: a dangling symlink at the snapshot's name: the next free name is used"
if tr_start "$TMP/links.log" -a -o "$D" --no-final-snapshot "${EV[@]}" --trigger "$TRIG"; then
	"$PY" "$TMP/plant.py" "$D" "$MAGIC" sys_enter_getsid 2>"$TMP/plant.err" ||
		t_fail "planting: $(cat "$TMP/plant.err")"
	wait_snaps "$D" sys_enter_getsid 1
	tr_stop INT
	check_eq "exit code (log: $(log_tail "$TMP/links.log"))" "$TR_RC" 0
	S=$(snaps "$D" sys_enter_getsid)
	check_match "snapshot" "$S" "-sys_enter_getsid-2\.data$"
	if [ -n "$S" ]; then
		stem=${S%-2.data}
		[ -L "$stem.data" ] || t_fail "$stem.data is no longer the planted symlink"
		[ -e "$stem.json" ] && t_fail "a sidecar $stem.json without its data"
		json_load "${S%.data}.json" && check_eq "sidecar's file" "$(j file)" "$S"
	fi
	check_eq "the links' target" "$(ls /nonexistent 2>&1 | grep -c trigrec-planted-target)" 0
else
	t_fail "recorder did not start: $(log_tail "$TMP/links.log")"
fi
t_end

# An -o so deep that snapshot names would pass PATH_MAX: before the fix the
# names were cut ("...-final.da") and the run reported success.
t_begin "output: -o too deep for snapshot names is refused at start-up"
long=$TMP/deep
while [ ${#long} -lt 4000 ]; do long=$long/$(printf 'd%.0s' $(seq 1 200)); done
long=${long:0:4050}
mkdir -p "$long"
tr_run "$TMP/deep.log" -o "$long" "${EV[@]}" -- true
rc=$?
check_ne "exit code" "$rc" 0
check_match "message" "$(cat "$TMP/deep.log")" "output directory .*(path is 4050 bytes long: .* exceeds PATH_MAX \(4096\); choose a shorter -o|path too long \(4050 bytes; at most [0-9]+\))"
check_nomatch "recording started" "$(cat "$TMP/deep.log")" "trigrec: recording "
check_eq "files written" "$(ls -A "$long")" ""
t_end

# A full disk and a trigger storm: one failure line, then a count, not a
# line per snapshot (a failing disk once logged 26 594 lines). One page of
# tmpfs: even a snapshot of nothing does not fit.
FULL=$TMP/full
mkdir -p "$FULL"
t_begin "output: a full disk during a trigger storm logs one line per 10 s, with counts"
if ! mount -t tmpfs -o size=4k trigrec-test-full "$FULL"; then
	t_skip "cannot mount a tmpfs"
else
	track_mount "$FULL"
	if tr_start "$TMP/full.log" -a -o "$FULL" --no-final-snapshot "${EV[@]}" --trigger "$STORM"; then
		fire 200 2000
		tr_stop INT
		failed=$(sed -n 's/.*snapshots\{0,1\} written, \([0-9]*\) failed.*/\1/p' "$TMP/full.log")
		check_gt "failed snapshots" "${failed:-0}" 20
		check_eq "lines for single failures" "$(grep -c 'failed: No space left on device' "$TMP/full.log")" 1
		check_match "summary of the rest" "$(cat "$TMP/full.log")" \
			"trigrec: $((failed - 1)) more snapshot failures \(ENOSPC $((failed - 1))\) in the last "
		check_eq "files left in the full directory" "$(ls -A "$FULL")" ""
	else
		t_fail "recorder did not start: $(log_tail "$TMP/full.log")"
	fi
fi
t_end

# Kernel strings are bytes; valid UTF-8 reaches the sidecar as it is
# (before the fix each byte was escaped as \u00XX: "Ã©tÃ©").
D=$TMP/utf8
t_begin "output: the sidecar keeps a UTF-8 comm readable"
if tr_start "$TMP/utf8.log" -a -o "$D" --no-final-snapshot "${EV[@]}" --trigger "$TRIG"; then
	fire 1 0 "été-ok"
	wait_snaps "$D" sys_enter_getsid 1
	tr_stop INT
	S=$(snaps "$D" sys_enter_getsid | head -1)
	if [ -n "$S" ] && json_load "${S%.data}.json"; then
		check_eq "trigger.comm" "$(j trigger.comm)" "été-ok"
		check_cmd "raw UTF-8 in the file" grep -q "\"comm\": \"été-ok\"" "${S%.data}.json"
	else
		t_fail "no snapshot: $(log_tail "$TMP/utf8.log")"
	fi
else
	t_fail "recorder did not start: $(log_tail "$TMP/utf8.log")"
fi
t_end
