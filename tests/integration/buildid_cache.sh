#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# --no-buildid-cache (record and run) and the script's `buildid_cache off`:
# snapshots still carry build-ids (perf buildid-list names the kernel), but
# perf's build-id cache ($HOME/.debug) stays empty. Without it the cache is
# filled, as perf record fills it; a cache directory of another user is
# left alone, with a warning.
. "$(dirname "$0")/lib.sh"
need_root
BASE=$(seq_base)
unset PERF_BUILDID_DIR
KBID=$("$PERF" buildid-list -k 2>/dev/null)

# rec NAME ARGS...: one getsid-triggered snapshot with HOME=$TMP/NAME.home.
rec() {
	local n=$1
	shift
	mkdir -p "$TMP/$n.home"
	HOME=$TMP/$n.home timeout -k 5 "$TIMEOUT" "$TRIGREC" "$@" >"$TMP/$n.log" 2>&1
}

# run_bg NAME SCRIPT [OPTIONS]: trigrec run with HOME=$TMP/NAME.home until its
# first snapshot (--count 1), seqgen's getsid being the trigger. Sets TR_RC.
run_bg() {
	local n=$1 i
	shift
	mkdir -p "$TMP/$n.home"
	: >"$TMP/$n.log"
	HOME=$TMP/$n.home "$TRIGREC" run "$@" --count 1 --no-final-snapshot >"$TMP/$n.log" 2>&1 &
	TR_PID=$!
	_bg+=("$TR_PID")
	for ((i = 0; i < TIMEOUT * 50; i++)); do
		_has "$TMP/$n.log" "trigrec: recording " && break
		_nap 0.02
	done
	"$SEQGEN" -n 100 -t 50 -b "$BASE" >/dev/null
	tr_wait "$TR_PID"
}

# cache_files DIR: regular files below it (0 when it does not exist).
cache_files() { find "$1" -type f 2>/dev/null | wc -l; }

# check_bids NAME: the snapshot lists the kernel's build-id all the same.
check_bids() {
	local f
	f=$(snaps "$TMP/$1.out" sys_enter_getsid | head -1)
	if [ -z "$f" ]; then
		t_fail "no snapshot: $(log_tail "$TMP/$1.log")"
		return
	fi
	[ -n "$KBID" ] && check_match "perf buildid-list names the kernel" \
		"$("$PERF" buildid-list -i "$f" 2>&1)" "^$KBID \[kernel\.kallsyms\]$"
}

t_begin "buildid_cache: without the option, perf's cache is filled (the kernel at least)"
rec on record -e syscalls:sys_enter_getsid --trigger syscalls:sys_enter_getsid -m 64K \
	--no-final-snapshot -o "$TMP/on.out" -- "$SEQGEN" -n 100 -t 50 -b "$BASE"
check_eq "exit code ($(log_tail "$TMP/on.log"))" "$?" 0
check_bids on
check_gt "files in \$HOME/.debug" "$(cache_files "$TMP/on.home/.debug")" 0
[ -n "$KBID" ] && check_eq "kernel's kallsyms in the cache" \
	"$(ls "$TMP/on.home/.debug/[kernel.kallsyms]/$KBID/" 2>&1)" kallsyms
t_end

# \$HOME/.debug of another user (sudo keeping the caller's HOME, say): root
# must not fill it, following whatever links its owner put there.
t_begin "buildid_cache: a cache directory of another user is left alone, with a warning"
mkdir -p "$TMP/other.home/.debug" "$TMP/other.away"
ln -s "$TMP/other.away" "$TMP/other.home/.debug/.build-id"
chown -R 65534:65534 "$TMP/other.home/.debug"
rec other record -e syscalls:sys_enter_getsid --trigger syscalls:sys_enter_getsid -m 64K \
	--no-final-snapshot -o "$TMP/other.out" -- "$SEQGEN" -n 100 -t 50 -b "$BASE"
check_eq "exit code ($(log_tail "$TMP/other.log"))" "$?" 0
check_bids other
check_match "warning" "$(cat "$TMP/other.log")" \
	"build-id cache $TMP/other.home/.debug is owned by uid 65534, not by trigrec's user \(uid 0\): not filling it.*PERF_BUILDID_DIR"
check_eq "files in it" "$(cache_files "$TMP/other.home/.debug")" 0
check_eq "files where its link points" "$(cache_files "$TMP/other.away")" 0
t_end

t_begin "buildid_cache: record --no-buildid-cache leaves \$HOME/.debug empty, build-ids still written"
rec off record --no-buildid-cache -e syscalls:sys_enter_getsid --trigger syscalls:sys_enter_getsid \
	-m 64K --no-final-snapshot -o "$TMP/off.out" -- "$SEQGEN" -n 100 -t 50 -b "$BASE"
check_eq "exit code ($(log_tail "$TMP/off.log"))" "$?" 0
check_bids off
check_eq "files in \$HOME/.debug" "$(cache_files "$TMP/off.home/.debug")" 0
t_end

t_begin "buildid_cache: --dump-script says buildid_cache off; the script statement does the same"
"$TRIGREC" record --no-buildid-cache -e syscalls:sys_enter_getsid \
	--trigger syscalls:sys_enter_getsid --dump-script >"$TMP/dump.trig" 2>"$TMP/dump.err"
check_eq "dump exit" "$?" 0
check_eq "buildid_cache line" "$(grep -c '^buildid_cache off$' "$TMP/dump.trig")" 1
sed -i "s|^output .*|output $TMP/script.out|" "$TMP/dump.trig"
# `run` takes no command: the workload runs beside it (the trigger is system-wide)
run_bg script "$TMP/dump.trig"
check_eq "run exit ($(log_tail "$TMP/script.log"))" "$TR_RC" 0
check_bids script
check_eq "files in \$HOME/.debug" "$(cache_files "$TMP/script.home/.debug")" 0
t_end

t_begin "buildid_cache: run FILE --no-buildid-cache overrides a script that says nothing"
grep -v '^buildid_cache' "$TMP/dump.trig" | sed "s|^output .*|output $TMP/ovr.out|" >"$TMP/plain.trig"
run_bg ovr "$TMP/plain.trig" --no-buildid-cache
check_eq "run exit ($(log_tail "$TMP/ovr.log"))" "$TR_RC" 0
check_bids ovr
check_eq "files in \$HOME/.debug" "$(cache_files "$TMP/ovr.home/.debug")" 0
t_end

t_begin "buildid_cache: the script statement's errors"
printf 'buildid_cache maybe\n' >"$TMP/bad.trig"
out=$("$TRIGREC" check "$TMP/bad.trig" 2>&1)
check_eq "exit" "$?" 2
check_match "message" "$out" "buildid_cache maybe: say on or off"
t_end
