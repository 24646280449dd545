#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Recording goes on through a reload: the new BPF object is attached while
# the old one records, and recording is handed over CPU by CPU
# (bpfctl__take_over()), so a numbered stream of getpgid calls that runs
# before, during and after `trigrec control SOCK reload` is whole in the
# next snapshot. Until 2026-12 the old programs were detached while the new
# object was loaded, and a reload left 0.1-0.3 s without records (6400 of
# 60 000 such calls missing) that nothing reported. rings=compact: until
# 2026-12 a reload was refused there; the new object now writes the first
# one's byte rings (one cr_rings map) and goes on with its cut and spare.
. "$(dirname "$0")/lib.sh"
need_root

BASE=$(seq_base)
M1=$((BASE + 901))
getsid() { "$PY" -c "import os
for v in [$1]:
    try: os.getsid(v)
    except OSError: pass"; }

D=$TMP/out
SOCK=$TMP/ctl.sock

t_begin "reload: a numbered stream across a reload has no hole in the next snapshot"
cat >"$TMP/cont.trig" <<TRIG
record syscalls:sys_enter_getpgid if pid >= $BASE && pid < $((BASE + 1000000))
buffer 8M
trigger cont { syscalls:sys_enter_getsid if pid == $M1  limit none }
TRIG
if tr_start_ready "$TMP/run.log" run "$TMP/cont.trig" -o "$D" --control "$SOCK"; then
	# 100 calls per 2 ms until the reload is done and 0.3 s more (at most
	# 100 000: 7.2 MB of records, within the 8 MiB buffer). Under
	# emulation (SLOW) a reload takes seconds: 100 calls per 20 ms, so the
	# stream still outlasts it.
	nap=0.002
	[ "$SLOW" -gt 1 ] && nap=0.02
	"$PY" -c "import os, sys, time
base, stop, out = $BASE + 100000, sys.argv[1], sys.argv[2]
i = 0
while i < 100000 and not os.path.exists(stop):
    for v in range(base + i, base + i + 100):
        try: os.getpgid(v)
        except OSError: pass
    i += 100
    time.sleep(float(sys.argv[3]))
open(out, 'w').write('%d %d\\n' % (i, os.path.exists(stop)))" "$TMP/stop" "$TMP/stream.out" "$nap" &
	stream=$!
	_bg+=("$stream")
	_nap 0.3
	out=$(timeout 60 "$TRIGREC" control "$SOCK" reload)
	check_match "reload reply" "$out" "^ok reloaded: generation 1"
	_nap 0.3
	: >"$TMP/stop"
	wait "$stream"
	read -r total stopped <"$TMP/stream.out"
	check_eq "the stream ran until after the reload (calls made: $total)" "$stopped" 1
	getsid $M1
	if wait_snaps "$D" cont 1; then
		f=$(snaps "$D" cont | head -1)
		decode "$f" >"$TMP/cont.tsv"
		read -r n first last missing dis <<<"$(seq_check "$TMP/cont.tsv" $((BASE + 100000)) 100000)"
		check_eq "numbered calls in the snapshot (first $first, last $last, missing $missing)" "$n" "$total"
		check_eq "numbers missing between the first and the last" "$missing" 0
		# Times and pids decoded right across the hand-over (rings=compact:
		# the new object goes on with the old one's time deltas and pid
		# elision): in time order the numbers follow each other, and every
		# record is the stream's own thread.
		check_eq "numbers out of order in time order" "$dis" 0
		tids=$(awk -F '\t' -v lo=$((BASE + 100000)) -v hi=$((BASE + 199999)) \
			'$5 == "syscalls:sys_enter_getpgid" && $6 >= lo && $6 <= hi { print $3 "/" $4 }' \
			"$TMP/cont.tsv" | sort -u | tr '\n' ' ')
		check_eq "pid/tid of the stream's records" "$tids" "$stream/$stream "
		# Nothing lost and nothing left out, by the file's own account.
		if json_load "${f%.data}.json"; then
			lost=0
			for ((i = 0; i < ${J[cpus#]:-0}; i++)); do lost=$((lost + ${J[cpus.$i.lost]:-0})); done
			check_eq "sidecar: records lost (cpus[].lost)" "$lost" 0
			check_eq "sidecar: ring_sets.older_than_a_gap" "$(j ring_sets.older_than_a_gap)" 0
			check_eq "sidecar: lost_while_frozen" "$(j lost_while_frozen)" 0
		else
			t_fail "the sidecar is not JSON: $(j error)"
		fi
	else
		t_fail "no snapshot after the reload: $(log_tail "$TMP/run.log" 5)"
	fi
	tr_stop INT
	check_eq "exit code (log: $(log_tail "$TMP/run.log"))" "$TR_RC" 0
else
	t_fail "trigrec run did not start: $(log_tail "$TMP/run.log")"
fi
t_end
