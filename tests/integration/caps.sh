#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The units' capabilities, each shown necessary: `trigrec record` run as
# the service runs it (root, NoNewPrivileges, the units' CapabilityBoundingSet
# read from contrib/trigrec@.service) works, and without each capability
# fails or degrades as the unit's comment says. Also why LimitMEMLOCK:
# rings past kernel.perf_event_mlock_kb are bounded by RLIMIT_MEMLOCK.
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

# rec NAME MEMLOCK RING CAPS...: record -g as the unit would, 0.3 s of sleep; log in $TMP/NAME.log
rec() {
	local n=$1 ml=$2 ring=$3
	shift 3
	mkdir -p "$TMP/$n"
	timeout -k 5 "$TIMEOUT" prlimit --memlock="$ml:$ml" \
		setpriv --bounding-set="$(set_of "$@")" --inh-caps=-all --no-new-privs -- \
		"$TRIGREC" -v record -g -m "$ring" -e cpu-clock -e syscalls:sys_enter_getpgid \
		-o "$TMP/$n" -- sleep 0.3 >"$TMP/$n.log" 2>&1
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
