#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The units' capabilities, each shown necessary: `trigrec record` run as
# the service runs it (root, NoNewPrivileges, the units' CapabilityBoundingSet
# read from contrib/trigrec@.service) works, and without each capability
# fails or degrades as the unit's comment says. Also why LimitMEMLOCK:
# rings past kernel.perf_event_mlock_kb are bounded by RLIMIT_MEMLOCK. And
# the unit's SystemCallFilter=: every system call of a run (strace -f: the
# recorder, its metrics thread, a workload and an on_snapshot command run as
# another user) is in the set.
. "$(dirname "$0")/lib.sh"
need_root
if ! command -v setpriv >/dev/null || ! command -v prlimit >/dev/null; then
	t_begin "caps"; t_skip "setpriv and prlimit (util-linux) are needed"; t_end
	exit 0
fi

UNIT=$ROOT/contrib/trigrec@.service
CAPS=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")
t_begin "caps: the unit's set"
check_eq "CapabilityBoundingSet" "$CAPS" "CAP_BPF CAP_PERFMON CAP_SYS_NICE CAP_SYSLOG CAP_SETUID CAP_SETGID"
check_eq "AmbientCapabilities" "$(sed -n 's/^AmbientCapabilities=//p' "$UNIT")" "$CAPS"
t_end

# setpriv's list: CAP_SYS_NICE -> +sys_nice
set_of() { local c s=-all; for c in "$@"; do c=${c#CAP_}; s+=",+${c,,}"; done; echo "$s"; }

# rec NAME MEMLOCK RING CAPS...: record -g as the unit would, 0.3 s of sleep
# (or the command in WORK); log in $TMP/NAME.log. EXTRA: more options; WRAP:
# a command to run trigrec under (strace).
EXTRA=()
WRAP=()
WORK=(sleep 0.3)
rec() {
	local n=$1 ml=$2 ring=$3
	shift 3
	mkdir -p "$TMP/$n"
	timeout -k 5 "$TIMEOUT" prlimit --memlock="$ml:$ml" \
		setpriv --bounding-set="$(set_of "$@")" --inh-caps=-all --no-new-privs -- \
		"${WRAP[@]}" "$TRIGREC" -v record -g -m "$ring" -e cpu-clock -e syscalls:sys_enter_getpgid \
		-o "$TMP/$n" "${EXTRA[@]}" -- "${WORK[@]}" >"$TMP/$n.log" 2>&1
}
# The kernel's map in a snapshot: its start address, 0 when kallsyms hid it.
kmap() {
	"$PERF" script -i "$(snaps "$TMP/$1" final | head -1)" --show-mmap-events 2>/dev/null |
		sed -n 's/.*PERF_RECORD_MMAP -1\/0: \[\(0x[0-9a-f]*\|0\)(.*kernel.kallsyms.*/\1/p' | head -1
}
ML=$((8 << 20)) # systemd's and the kernel's default RLIMIT_MEMLOCK

t_begin "caps: with the unit's set it records, SCHED_FIFO, kernel symbols"
# shellcheck disable=SC2086 # CAPS is a word list: one argument per capability
rec all "$ML" 1M $CAPS
check_eq "exit code (log: $(log_tail "$TMP/all.log"))" "$?" 0
check_eq "final snapshot" "$(nsnaps "$TMP/all" final)" 1
check_nomatch "side-band thread" "$(cat "$TMP/all.log")" "stays SCHED_OTHER"
check_match "kernel map" "$(kmap all)" "^0xffff[0-9a-f]+$"
t_end

t_begin "caps: without CAP_BPF it is refused"
# shellcheck disable=SC2086 # CAPS is a word list: one argument per capability
rec no_bpf "$ML" 1M ${CAPS/CAP_BPF/}
check_eq "exit code" "$?" 1
check_match "message" "$(cat "$TMP/no_bpf.log")" "missing CAP_BPF"
t_end

t_begin "caps: without CAP_PERFMON it is refused"
# shellcheck disable=SC2086 # CAPS is a word list: one argument per capability
rec no_perfmon "$ML" 1M ${CAPS/CAP_PERFMON/}
check_eq "exit code" "$?" 1
check_match "message" "$(cat "$TMP/no_perfmon.log")" "missing CAP_PERFMON"
t_end

t_begin "caps: without CAP_SYS_NICE the side-band thread is not real-time"
# shellcheck disable=SC2086 # CAPS is a word list: one argument per capability
rec no_nice "$ML" 1M ${CAPS/CAP_SYS_NICE/}
check_eq "exit code" "$?" 0
check_match "message" "$(cat "$TMP/no_nice.log")" "side-band thread stays SCHED_OTHER \(Operation not permitted\)"
t_end

if [ "$(cat /proc/sys/kernel/kptr_restrict)" = 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ]; then
	t_begin "caps: without CAP_SYSLOG"; t_skip "kallsyms is open to all here (kptr_restrict 0, perf_event_paranoid <= 1)"; t_end
else
	t_begin "caps: without CAP_SYSLOG the snapshot's kernel map is empty"
	# shellcheck disable=SC2086 # CAPS is a word list: one argument per capability
	rec no_syslog "$ML" 1M ${CAPS/CAP_SYSLOG/}
	check_eq "exit code" "$?" 0
	check_eq "kernel map" "$(kmap no_syslog)" 0
	t_end
fi

# An unprivileged user: one message says all that is missing (root, or
# CAP_PERFMON + CAP_BPF, and tracefs access) and the least change; nothing
# says tracefs is "not available" when it is only closed, nothing advises
# opening it to everyone (mode 0755); software events list without tracefs.
nobody() {
	(cd / && timeout -k 5 "$TIMEOUT" setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all "$TRIGREC" "$@")
}
TRACEFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
t_begin "caps: unprivileged: one message names what is missing and the least change"
if ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$TRIGREC"; then
	t_skip "user 65534 cannot execute $TRIGREC"
elif [ -z "$TRACEFS" ] || setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$TRACEFS/events"; then
	t_skip "tracefs is not mounted, or user 65534 can read it (${TRACEFS:-none})"
else
	nobody record -e sched:sched_switch -o "$TMP/np" -- true >"$TMP/np.log" 2>&1
	check_eq "record: exit code" "$?" 1
	out=$(cat "$TMP/np.log")
	check_match "record: what is needed" "$out" "needs root, or CAP_PERFMON and CAP_BPF and read access to tracefs"
	check_match "record: what is missing" "$out" "uid 65534 is missing CAP_PERFMON and CAP_BPF and cannot read tracefs at $TRACEFS \(mode 0[0-7]+"
	check_match "record: the least change" "$out" "run it as root.*setcap cap_perfmon,cap_bpf\+ep .*mount -o remount,gid=GID,mode=0750 $TRACEFS"
	check_eq "record: one line" "$(wc -l <"$TMP/np.log")" 1
	nobody record --trigger sched:sched_switch -o "$TMP/np" -- true >"$TMP/np2.log" 2>&1
	check_ne "record --trigger: exit code" "$?" 0
	out=$(cat "$TMP/np2.log")
	check_match "record --trigger: the message" "$out" "uid 65534 is missing CAP_PERFMON and CAP_BPF and cannot read tracefs"
	check_match "record --trigger: the trigger refers to it" "$out" "cannot look up sched:sched_switch: this user cannot read tracefs \(see the message above\)"
	for f in np np2; do
		check_nomatch "$f: no contradiction" "$(cat "$TMP/$f.log")" "not available|mount it|mount -t tracefs"
		check_nomatch "$f: never opens tracefs to all" "$(cat "$TMP/$f.log")" "0755"
	done
	check_eq "no output directory made" "$(ls -d "$TMP/np" 2>/dev/null)" ""
fi
t_end

t_begin "caps: unprivileged: trigrec list of software events works without tracefs"
if ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$TRIGREC"; then
	t_skip "user 65534 cannot execute $TRIGREC"
else
	out=$(nobody list cpu-clock 2>&1)
	check_eq "list cpu-clock: exit code" "$?" 0
	check_match "list cpu-clock" "$out" "^cpu-clock +\[software event\]$"
	out=$(nobody list -v page-faults 2>&1)
	check_eq "list -v page-faults: exit code" "$?" 0
	check_match "list -v page-faults" "$out" "^page-faults +\[software event\]"
	check_nomatch "list -v page-faults: no tracefs message" "$out" "tracefs"
fi
t_end

# on_snapshot as the unit runs it: as another user (nobody here, trigrec
# there), which takes CAP_SETUID and CAP_SETGID; the command itself has no
# capability left (the bounding set stays the unit's: dropping it would take
# CAP_SETPCAP, which the unit does not give).
chmod 0711 "$TMP" # nobody reaches the output directories through it
mkdir -m 0755 "$TMP/hook" "$TMP/filter" # and reads them
cat >"$TMP/hook.sh" <<'SH'
#!/bin/sh
echo "uid=$(id -u)"
grep -E '^(Cap(Inh|Prm|Eff|Amb)|NoNewPrivs):' /proc/self/status | tr -d '\t' | tr '\n' ' '
echo
echo "read $(wc -c <"$1")"
SH
chmod 0755 "$TMP/hook.sh"
EXTRA=(--on-snapshot "$TMP/hook.sh" --on-snapshot-user nobody)
# The unit's Group=trigrec: trigrec's group is the hook user's, so the
# snapshots are that group's without CAP_CHOWN (which the unit does not give).
AS_GROUP=(setpriv --regid="$(id -g nobody)" --clear-groups --)
WRAP=("${AS_GROUP[@]}")
t_begin "caps: with the unit's set, on_snapshot runs as its user with no capabilities"
# shellcheck disable=SC2086 # CAPS is a word list: one argument per capability
rec hook "$ML" 1M $CAPS
check_eq "exit code (log: $(log_tail "$TMP/hook.log"))" "$?" 0
log=$(cat "$TMP/hook.log")
check_match "uid" "$log" "hook\.sh\[[0-9]+\]: uid=$(id -u nobody)$"
check_match "capabilities" "$log" "hook\.sh\[[0-9]+\]: CapInh:0{16} CapPrm:0{16} CapEff:0{16} CapAmb:0{16} NoNewPrivs:1 ?$"
f=$(snaps "$TMP/hook" final | head -1)
check_match "it read the snapshot" "$log" "hook\.sh\[[0-9]+\]: read $(stat -c %s "$f" 2>/dev/null)$"
check_eq "the snapshot: group, mode" "$(stat -c '%g %a' "$f" 2>/dev/null)" "$(id -g nobody) 640"
t_end
WRAP=()

for c in CAP_SETUID CAP_SETGID; do
	t_begin "caps: without $c on_snapshot_user is refused at start"
	# shellcheck disable=SC2086 # CAPS is a word list: one argument per capability
	rec "no_${c,,}" "$ML" 1M ${CAPS/$c/}
	check_eq "exit code" "$?" 1
	check_match "message" "$(cat "$TMP/no_${c,,}.log")" "on_snapshot_user nobody: running commands as another user needs CAP_SETUID and CAP_SETGID"
	t_end
done

# The unit's SystemCallFilter=, expanded by systemd-analyze, against every
# system call a run makes: the recorder (BPF, perf events, SCHED_FIFO), its
# metrics server answering a scrape, the workload and the hook as nobody.
# A call outside the set would fail with EPERM (SystemCallErrorNumber=).
t_begin "caps: every system call of a run is in the unit's SystemCallFilter="
if ! command -v strace >/dev/null || ! command -v systemd-analyze >/dev/null; then
	t_skip "strace and systemd-analyze are needed"
else
	declare -A _seen=()
	expand() {
		local s items
		for s in "$@"; do
			[ -n "${_seen[$s]+x}" ] && continue
			_seen[$s]=1
			if [[ $s == @* ]]; then
				mapfile -t items < <(systemd-analyze syscall-filter "$s" | sed -n '2,$p' | sed 's/#.*//; s/^ *//; /^$/d')
				expand "${items[@]}"
			else
				echo "$s"
			fi
		done
	}
	read -ra FILTER <<<"$(sed -n 's/^SystemCallFilter=//p' "$UNIT")"
	expand "${FILTER[@]}" | sort -u >"$TMP/allowed"
	check_ge "system calls in the set" "$(wc -l <"$TMP/allowed")" 300
	MPORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	EXTRA=(--on-snapshot "$TMP/hook.sh" --on-snapshot-user nobody --metrics "127.0.0.1:$MPORT")
	WORK=(sh -c "sleep 0.5; curl -s -o /dev/null http://127.0.0.1:$MPORT/metrics; sleep 0.2")
	WRAP=("${AS_GROUP[@]}" strace -f -qq -o "$TMP/strace.out")
	# shellcheck disable=SC2086 # CAPS is a word list: one argument per capability
	rec filter "$ML" 1M $CAPS
	check_eq "exit code (log: $(log_tail "$TMP/filter.log"))" "$?" 0
	check_match "the hook ran" "$(cat "$TMP/filter.log")" "hook\.sh\[[0-9]+\]: uid="
	sed -n 's/^[0-9]\+ \+\([a-z_0-9]\+\)(.*/\1/p' "$TMP/strace.out" | sort -u >"$TMP/used"
	echo "    $(wc -l <"$TMP/used") distinct system calls made"
	check_ge "system calls seen" "$(wc -l <"$TMP/used")" 40
	check_match "bpf and perf_event_open seen" "$(tr '\n' ' ' <"$TMP/used")" "bpf .*perf_event_open "
	check_eq "system calls outside the filter" "$(comm -23 "$TMP/used" "$TMP/allowed" | tr '\n' ' ')" ""
	WRAP=()
	WORK=(sleep 0.3)
fi
t_end
EXTRA=()

# 2 MiB rings on every CPU: more than perf_event_mlock_kb, charged to RLIMIT_MEMLOCK.
NCPU=$(nproc)
NEED=$((NCPU * (2048 + 64 + 8) * 1024))
t_begin "caps: LimitMEMLOCK: rings past perf_event_mlock_kb need RLIMIT_MEMLOCK (or CAP_IPC_LOCK)"
# shellcheck disable=SC2086 # CAPS is a word list: one argument per capability
rec ml_small $((1 << 20)) 2M $CAPS
check_eq "1 MiB limit: exit code" "$?" 1
check_match "1 MiB limit: message" "$(cat "$TMP/ml_small.log")" "without CAP_IPC_LOCK"
big=$(prlimit --memlock --output HARD --noheadings | tr -d ' ')
if [ "$big" = unlimited ] || [ "$big" -ge $((NEED * 2)) ]; then
	# shellcheck disable=SC2086 # CAPS is a word list: one argument per capability
	rec ml_big $((NEED * 2)) 2M $CAPS
	check_eq "$((NEED * 2 >> 20)) MiB limit: exit code (log: $(log_tail "$TMP/ml_big.log"))" "$?" 0
fi
t_end
