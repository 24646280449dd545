#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# on_snapshot (--on-snapshot): a command per finished snapshot, run with no
# shell on the runner's own thread. It gets the snapshot's paths (appended,
# or where placeholders say), nothing of trigrec's fds, /dev/null on stdin;
# its output is logged line by line; a failure is counted and logged; one
# that hangs is stopped at the time limit; at most K run at once; the stop
# waits for them; --on-snapshot-user runs it as another user with no
# capabilities. And the recipe of docs/operations.md: rclone, as nobody,
# ships each snapshot to an `rclone serve webdav` on loopback,
# byte-identical, and perf reads the shipped copy.
. "$(dirname "$0")/lib.sh"
need_root

BASE=$(seq_base)
EV=(-e syscalls:sys_enter_getpgid --filter "$(seq_filter)")

# A hook that records how it was called: its arguments, its fds' targets,
# its stdin, and copies of the files (to prove they were complete when it ran).
cat >"$TMP/hook.py" <<'PY'
#!/usr/bin/python3
import os, shutil, sys
out = os.path.join(os.path.dirname(sys.argv[0]), "calls")
os.makedirs(out, exist_ok=True)
n = str(os.getpid())
# Our fds before we open anything (listdir's own fd is the directory itself).
fds = []
for fd in sorted(os.listdir("/proc/self/fd"), key=int):
    try:
        t = os.readlink("/proc/self/fd/" + fd)
    except OSError:
        continue
    if not t.endswith("/fd"):
        fds.append(fd + " " + t)
with open(os.path.join(out, n + ".fds"), "w") as f:
    f.write("\n".join(fds) + "\n")
with open(os.path.join(out, n + ".args"), "w") as f:
    f.write("".join(a + "\n" for a in sys.argv[1:]))
for a in sys.argv[1:]:
    if os.path.isfile(a):
        shutil.copyfile(a, os.path.join(out, n + "." + os.path.basename(a)))
print("shipped %d files" % (len(sys.argv) - 1), flush=True)
print("a warning on stderr", file=sys.stderr)
PY
chmod +x "$TMP/hook.py"

# alive PID: running (a zombie nobody has reaped yet is not).
alive() {
	local st
	read -r st 2>/dev/null <"/proc/$1/stat" || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}

# snap_now SOCK: a manual snapshot through the control socket (answers once written).
snap_now() { timeout 20 "$TRIGREC" control "$1" snapshot 2>&1; }

t_begin "ship: the hook runs once per snapshot with its .data and .json, complete, and nothing of trigrec's fds"
D=$TMP/one
if tr_start "$TMP/one.log" -a -o "$D" "${EV[@]}" --control "$TMP/one.sock" \
	--on-snapshot "$TMP/hook.py --from trigrec"; then
	"$SEQGEN" -n 100 -b "$BASE" >/dev/null
	check_match "control snapshot" "$(snap_now "$TMP/one.sock")" "^ok "
	tr_stop INT
	check_eq "exit code (log: $(log_tail "$TMP/one.log"))" "$TR_RC" 0
	mapfile -t DATA < <(snaps "$D")
	check_eq "snapshots (manual + final)" "${#DATA[@]}" 2
	mapfile -t CALLS < <(ls "$TMP/calls"/*.args 2>/dev/null)
	check_eq "hook runs" "${#CALLS[@]}" 2
	for f in "${DATA[@]}"; do
		c=$(grep -lxF "$f" "$TMP"/calls/*.args 2>/dev/null | head -1)
		if [ -z "$c" ]; then
			t_fail "no run for $f"
			continue
		fi
		n=$(basename "$c" .args)
		check_eq "argv of run $n" "$(tr '\n' ' ' <"$c")" "--from trigrec $f ${f%.data}.json "
		cmp -s "$f" "$TMP/calls/$n.$(basename "$f")" || t_fail "$f: the hook's copy differs"
		cmp -s "${f%.data}.json" "$TMP/calls/$n.$(basename "${f%.data}").json" ||
			t_fail "${f%.data}.json: the hook's copy differs"
		# 0 /dev/null, 1 and 2 the same pipe, and nothing of trigrec's.
		fds=$(tr '\n' ' ' <"$TMP/calls/$n.fds")
		check_match "fds of run $n" "$fds" '^0 /dev/null 1 (pipe:\[[0-9]+\]) 2 \1 $'
	done
	log=$(cat "$TMP/one.log")
	check_match "stdout logged" "$log" "^trigrec: on_snapshot hook\.py\[[0-9]+\]: shipped 4 files$"
	check_match "stderr logged" "$log" "^trigrec: on_snapshot hook\.py\[[0-9]+\]: a warning on stderr$"
	check_match "summary" "$log" "^trigrec: on_snapshot: 2 runs: ok 2, failed 0, timeout 0, dropped 0"
else
	t_fail "recorder did not start: $(log_tail "$TMP/one.log")"
fi
t_end

t_begin "ship: placeholders put the names where the command wants them (no paths appended)"
D=$TMP/ph
rm -rf "$TMP/calls"
if tr_start "$TMP/ph.log" -a -o "$D" "${EV[@]}" --no-final-snapshot --control "$TMP/ph.sock" \
	--on-snapshot "$TMP/hook.py 'to {host}' {trigger} {name} {dir} {json} {data,json}"; then
	check_match "control snapshot" "$(snap_now "$TMP/ph.sock")" "^ok "
	tr_stop INT
	f=$(snaps "$D" | head -1)
	name=$(basename "$f" .data)
	c=$(ls "$TMP"/calls/*.args 2>/dev/null)
	check_eq "argv" "$(tr '\n' '|' <"$c")" "to $(uname -n)|manual|$name|$D|${f%.data}.json|{data,json}|"
else
	t_fail "recorder did not start: $(log_tail "$TMP/ph.log")"
fi
t_end

t_begin "ship: a failing hook is counted (metrics, summary) and logged with its output; recording goes on"
cat >"$TMP/fail.sh" <<'SH'
#!/bin/sh
echo "boom: remote refused $1" >&2
exit 3
SH
chmod +x "$TMP/fail.sh"
D=$TMP/fail
if tr_start "$TMP/fail.log" -a -o "$D" "${EV[@]}" --no-final-snapshot --control "$TMP/fail.sock" \
	--metrics-file "$TMP/fail.prom" --on-snapshot "$TMP/fail.sh"; then
	check_match "first snapshot" "$(snap_now "$TMP/fail.sock")" "^ok "
	check_match "second snapshot" "$(snap_now "$TMP/fail.sock")" "^ok "
	tr_stop INT
	check_eq "exit code: a hook's failure is not the run's (log: $(log_tail "$TMP/fail.log"))" "$TR_RC" 0
	check_eq "snapshots" "$(nsnaps "$D")" 2
	log=$(cat "$TMP/fail.log")
	check_eq "output lines" "$(grep -cE '^trigrec: on_snapshot fail\.sh\[[0-9]+\]: boom: remote refused '"$D"'/.*\.data$' "$TMP/fail.log")" 2
	check_eq "failures logged" "$(grep -cE '^trigrec: warning: on_snapshot fail\.sh\[[0-9]+\]: exited with status 3 after [0-9.]+s \(.*-manual\.data\)$' "$TMP/fail.log")" 2
	check_match "summary" "$log" "^trigrec: on_snapshot: 2 runs: ok 0, failed 2, timeout 0, dropped 0"
	prom=$(cat "$TMP/fail.prom" 2>/dev/null)
	check_match "metrics: failed" "$prom" '^trigrec_on_snapshot_runs_total\{result="failed"\} 2$'
	check_match "metrics: ok" "$prom" '^trigrec_on_snapshot_runs_total\{result="ok"\} 0$'
	check_match "metrics: type" "$prom" '^# TYPE trigrec_on_snapshot_runs_total counter$'
else
	t_fail "recorder did not start: $(log_tail "$TMP/fail.log")"
fi
t_end

t_begin "ship: a hook that hangs is stopped at the time limit (its whole process group), and counted"
cat >"$TMP/hang.sh" <<'SH'
#!/bin/sh
# A child of its own that would outlive it, unless the group is killed.
sleep 60 &
echo "$$ $! $(date +%s%N)" >"$(dirname "$0")/hang.pids"
echo "uploading"
wait
SH
chmod +x "$TMP/hang.sh"
D=$TMP/hang
rm -f "$TMP/hang.pids"
if tr_start "$TMP/hang.log" -a -o "$D" "${EV[@]}" --no-final-snapshot --control "$TMP/hang.sock" \
	--metrics-file "$TMP/hang.prom" --on-snapshot "$TMP/hang.sh" --on-snapshot-timeout 1s; then
	check_match "snapshot" "$(snap_now "$TMP/hang.sock")" "^ok "
	for ((i = 0; i < 250; i++)); do [ -s "$TMP/hang.pids" ] && break; _nap 0.02; done
	read -r sh_pid sleep_pid t0 <"$TMP/hang.pids"
	for ((i = 0; i < 500; i++)); do
		alive "$sh_pid" || alive "$sleep_pid" || break
		_nap 0.01
	done
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	check_ge "ms until the hook and its child were gone" "$ms" 950
	check_le "ms until the hook and its child were gone" "$ms" $((2000 * SLOW))
	tr_stop INT
	check_eq "exit code (log: $(log_tail "$TMP/hang.log"))" "$TR_RC" 0
	log=$(cat "$TMP/hang.log")
	check_match "logged" "$log" "^trigrec: warning: on_snapshot hang\.sh\[$sh_pid\]: still running after 1\.[0-9]s, its time limit \(on_snapshot_timeout\): sending SIGTERM"
	check_match "its output" "$log" "^trigrec: on_snapshot hang\.sh\[$sh_pid\]: uploading$"
	check_match "summary" "$log" "^trigrec: on_snapshot: 1 run: ok 0, failed 0, timeout 1, dropped 0"
	check_match "metrics" "$(cat "$TMP/hang.prom")" '^trigrec_on_snapshot_runs_total\{result="timeout"\} 1$'
else
	t_fail "recorder did not start: $(log_tail "$TMP/hang.log")"
fi
t_end

t_begin "ship: at most --on-snapshot-jobs run at once; the others wait their turn"
cat >"$TMP/slow.sh" <<'SH'
#!/bin/sh
d=$(dirname "$0")
echo "S $(date +%s%N)" >>"$d/slow.events"
sleep 0.6
echo "E $(date +%s%N)" >>"$d/slow.events"
SH
chmod +x "$TMP/slow.sh"
D=$TMP/jobs
rm -f "$TMP/slow.events"
if tr_start "$TMP/jobs.log" -a -o "$D" "${EV[@]}" --no-final-snapshot --control "$TMP/jobs.sock" \
	--on-snapshot "$TMP/slow.sh" --on-snapshot-jobs 2; then
	t0=$(date +%s%N)
	for i in 1 2 3 4 5; do
		check_match "snapshot $i" "$(snap_now "$TMP/jobs.sock")" "^ok "
	done
	t1=$(date +%s%N)
	# The snapshots did not wait for the hooks.
	check_le "ms for 5 snapshots" $(((t1 - t0) / 1000000)) $((2500 * SLOW))
	tr_stop INT
	check_eq "exit code (log: $(log_tail "$TMP/jobs.log"))" "$TR_RC" 0
	peak=$(sort -k2,2n -k1,1 "$TMP/slow.events" |
		awk '$1 == "S" { n++; if (n > m) m = n } $1 == "E" { n-- } END { print m + 0 }')
	check_eq "runs at once (peak)" "$peak" 2
	check_eq "runs" "$(grep -c '^S' "$TMP/slow.events")" 5
	check_eq "runs finished (the stop waited for them)" "$(grep -c '^E' "$TMP/slow.events")" 5
	check_match "summary" "$(cat "$TMP/jobs.log")" "^trigrec: on_snapshot: 5 runs: ok 5, failed 0, timeout 0, dropped 0; at most 2 at once"
else
	t_fail "recorder did not start: $(log_tail "$TMP/jobs.log")"
fi
t_end

t_begin "ship: an on_snapshot program that does not exist is refused at start-up"
tr_run "$TMP/nope.log" -a -o "$TMP/nope" "${EV[@]}" --on-snapshot "no-such-shipper x"
check_eq "exit code" "$?" 1
check_match "message" "$(cat "$TMP/nope.log")" "on_snapshot: cannot run no-such-shipper: command not found in PATH"
t_end

# --on-snapshot-user: the hook runs as that user (nobody here; the units use
# trigrec) with every capability set empty and NoNewPrivs, and reads the
# snapshot pair through its group (0640) in an output directory its group
# may search (0750). What it prints is logged by trigrec.
t_begin "ship: --on-snapshot-user nobody: the hook runs as nobody with no capabilities and reads the pair"
NOBODY_UID=$(id -u nobody 2>/dev/null)
NOBODY_GID=$(id -g nobody 2>/dev/null)
if [ -z "$NOBODY_UID" ]; then
	t_skip "this host has no user nobody"
else
	# nobody must reach the output directory through $TMP, and run the hook.
	chmod 0711 "$TMP"
	cat >"$TMP/as-user.sh" <<'SH'
#!/bin/sh
echo "uid=$(id -u) gid=$(id -g) groups=$(id -G) home=$HOME user=$USER"
grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status | tr -d '\t' | tr '\n' ' '
echo
echo "read $(wc -c <"$1") $(wc -c <"$2")"
SH
	chmod 0755 "$TMP/as-user.sh"
	D=$TMP/user
	if tr_start "$TMP/user.log" -a -o "$D" "${EV[@]}" --control "$TMP/user.sock" \
		--on-snapshot "$TMP/as-user.sh" --on-snapshot-user nobody; then
		"$SEQGEN" -n 100 -b "$BASE" >/dev/null
		check_match "control snapshot" "$(snap_now "$TMP/user.sock")" "^ok "
		tr_stop INT
		check_eq "exit code (log: $(log_tail "$TMP/user.log"))" "$TR_RC" 0
		log=$(cat "$TMP/user.log")
		check_match "who it ran as" "$log" "as-user\.sh\[[0-9]+\]: uid=$NOBODY_UID gid=$NOBODY_GID groups=$NOBODY_GID home=[^ ]+ user=nobody$"
		check_match "no capabilities, NoNewPrivs" "$log" "as-user\.sh\[[0-9]+\]: CapInh:0{16} CapPrm:0{16} CapEff:0{16} CapBnd:0{16} CapAmb:0{16} NoNewPrivs:1 ?$"
		mapfile -t DATA < <(snaps "$D")
		check_eq "snapshots (manual + final)" "${#DATA[@]}" 2
		for f in "${DATA[@]}"; do
			j=${f%.data}.json
			check_match "the hook read $(basename "$f") and its .json whole" "$log" "as-user\.sh\[[0-9]+\]: read $(stat -c %s "$f") $(stat -c %s "$j")$"
			check_eq "$(basename "$f"): owner, group, mode" "$(stat -c '%u %g %a' "$f")" "0 $NOBODY_GID 640"
			check_eq "$(basename "$j"): owner, group, mode" "$(stat -c '%u %g %a' "$j")" "0 $NOBODY_GID 640"
		done
		check_eq "output directory: owner, group, mode" "$(stat -c '%u %g %a' "$D")" "0 $NOBODY_GID 750"
		check_match "summary" "$log" "on_snapshot: 2 runs: ok 2, failed 0"
	else
		t_fail "recorder did not start: $(log_tail "$TMP/user.log")"
	fi
fi
t_end

t_begin "ship: --on-snapshot-user with a user this host lacks is refused at start-up"
tr_run "$TMP/nouser.log" -a -o "$TMP/nouser" "${EV[@]}" --on-snapshot /bin/true \
	--on-snapshot-user no-such-user-trigrec
check_eq "exit code" "$?" 1
check_match "message" "$(cat "$TMP/nouser.log")" "on_snapshot_user no-such-user-trigrec: no user 'no-such-user-trigrec'.*useradd --system"
t_end

t_begin "ship: an output directory the hook user cannot read, not made by trigrec, is refused and left alone"
mkdir -m 0700 "$TMP/closed"
tr_run "$TMP/closed.log" -a -o "$TMP/closed" "${EV[@]}" --on-snapshot /bin/true --on-snapshot-user nobody
check_eq "exit code" "$?" 1
check_match "message" "$(cat "$TMP/closed.log")" "on_snapshot_user nobody: $TMP/closed: on_snapshot_user's group \\(gid [0-9]+\\) cannot read it, and trigrec does not regroup a directory it did not create: run 'chgrp"
check_eq "directory unchanged" "$(stat -c '%g %a' "$TMP/closed")" "0 700"
t_end

# ---- the recipe: rclone to a remote (here `rclone serve webdav` on loopback) ----

t_begin "ship: recipe: examples/ship-rclone.trig's rclone line, run as nobody, ships .data and .json byte-identical, perf reads the copy"
if ! command -v rclone >/dev/null; then
	t_skip "rclone is not installed (make check installs it: apt-get install rclone)"
else
	mkdir -p "$TMP/remote"
	: >"$TMP/rclone.conf" # a throwaway config: the remote comes from the environment
	RCLONE_CONFIG=$TMP/rclone.conf rclone serve webdav "$TMP/remote" --addr 127.0.0.1:0 \
		>"$TMP/serve.log" 2>&1 &
	_bg+=("$!")
	port=
	for ((i = 0; i < 500; i++)); do
		port=$(grep -o 'started on http://127\.0\.0\.1:[0-9]*' "$TMP/serve.log" | sed 's/.*://')
		[ -n "$port" ] && break
		_nap 0.02
	done
	line=$(grep '^on_snapshot ' "$ROOT/examples/ship-rclone.trig")
	check_match "the example's recipe" "$line" "^on_snapshot rclone copy .*\{name\}.* \{dir\} ship:trigrec/\{host\}$"
	if [ -z "$port" ]; then
		t_fail "rclone serve webdav did not start: $(log_tail "$TMP/serve.log")"
	else
		cat >"$TMP/ship.trig" <<EOF
record syscalls:sys_enter_getpgid if $(seq_filter)
buffer 256K
output $TMP/rec
$line
on_snapshot_timeout 30s
on_snapshot_user nobody
control $TMP/ship.sock
EOF
		# As under the unit, rclone runs as another user (nobody here, trigrec
		# there): it reaches the snapshot through $TMP and reads its config.
		chmod 0711 "$TMP"
		chmod 0644 "$TMP/rclone.conf"
		: >"$TMP/ship.log"
		RCLONE_CONFIG=$TMP/rclone.conf RCLONE_CONFIG_SHIP_TYPE=webdav \
			RCLONE_CONFIG_SHIP_URL=http://127.0.0.1:$port/ RCLONE_CONFIG_SHIP_VENDOR=other \
			"$TRIGREC" run "$TMP/ship.trig" >"$TMP/ship.log" 2>&1 &
		TR_PID=$!
		_bg+=("$TR_PID")
		for ((i = 0; i < TIMEOUT * 50; i++)); do
			_has "$TMP/ship.log" "trigrec: recording " && break
			_nap 0.02
		done
		"$SEQGEN" -n 1000 -b "$BASE" >/dev/null
		check_match "snapshot" "$(snap_now "$TMP/ship.sock")" "^ok "
		tr_stop INT
		check_eq "exit code (log: $(log_tail "$TMP/ship.log"))" "$TR_RC" 0
		check_match "summary" "$(cat "$TMP/ship.log")" "^trigrec: on_snapshot: 2 runs: ok 2, failed 0"
		far=$TMP/remote/trigrec/$(uname -n)
		mapfile -t DATA < <(snaps "$TMP/rec")
		check_eq "snapshots" "${#DATA[@]}" 2
		check_eq "files at the far side" "$(ls "$far" 2>/dev/null | grep -c .)" 4
		for f in "${DATA[@]}"; do
			b=$(basename "$f" .data)
			cmp -s "$f" "$far/$b.data" || t_fail "$b.data differs at the far side (or is missing)"
			cmp -s "${f%.data}.json" "$far/$b.json" || t_fail "$b.json differs at the far side (or is missing)"
		done
		# The manual snapshot holds seqgen's 1000 calls: perf reads them from the shipped copy.
		m=$(snaps "$far" manual | head -1)
		if [ -n "$m" ]; then
			decode "$m" >"$TMP/far.tsv"
			check_eq "perf script on the shipped copy (count first last missing disorder)" \
				"$(seq_check "$TMP/far.tsv" "$BASE")" "1000 0 999 0 0"
		else
			t_fail "no manual snapshot at the far side"
		fi
	fi
fi
t_end
