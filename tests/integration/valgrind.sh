#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Userspace is valgrind-clean: a recording with a filtered trigger, a
# sampling event with call chains, a control-socket snapshot and the final
# snapshot, run under memcheck (errors and definite/indirect leaks fail),
# with tests/valgrind.supp for libbpf's partly initialised bpf(2) attrs and
# the by-value perf ioctls valgrind reads as pointers.
. "$(dirname "$0")/lib.sh"
need_root

BASE=$(seq_base)
D=$TMP/out
t_begin "valgrind: memcheck finds no error and no leak in a full run"
if ! command -v valgrind >/dev/null; then
	t_skip "valgrind is not installed (apt-get install valgrind)"
elif nm -D "$TRIGREC" 2>/dev/null | grep -q __asan_init || nm "$TRIGREC" 2>/dev/null | grep -q __asan_init; then
	t_skip "$TRIGREC is the ASan build: valgrind cannot run it (the plain build is checked)"
else
	timeout 300 valgrind --suppressions="$ROOT/tests/valgrind.supp" --error-exitcode=99 \
		--leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect -q \
		"$TRIGREC" record -e cpu-clock -g -e syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid \
		--filter "$(seq_filter "$BASE")" \
		--trigger "syscalls:sys_enter_getsid if pid == $((BASE + 500)) && comm ~ \"sq*\"" \
		-m 64K -o "$D" --control "$TMP/ctl" \
		-- sh -c "cp '$SEQGEN' '$TMP/sq' && '$TMP/sq' -n 1000 -t 500 -b $BASE >/dev/null && '$TRIGREC' control '$TMP/ctl' snapshot mid >/dev/null" \
		>"$TMP/vg.log" 2>&1
	rc=$?
	check_eq "exit code under valgrind (log: $(grep -m3 '==[0-9]*==' "$TMP/vg.log" | tr '\n' ' ' | cut -c1-300))" "$rc" 0
	check_eq "valgrind reports" "$(grep -c '==[0-9]*== [A-Z]' "$TMP/vg.log")" 0
	for kind in sys_enter_getsid mid final; do
		f=$(ls "$D"/*-"$kind".data 2>/dev/null | head -1)
		if [ -z "$f" ]; then
			t_fail "no $kind snapshot"
			continue
		fi
		# Under valgrind the freezes are long, so later windows may be empty:
		# each file must still be one perf reads.
		"$PERF" script -i "$f" >/dev/null 2>"$TMP/$kind.err"
		prc=$?
		check_eq "$kind: perf script exit code ($(head -c 200 "$TMP/$kind.err"))" "$prc" 0
		decode "$f" >"$TMP/$kind.tsv"
	done
	check_gt "trigger snapshot: records decoded" "$(wc -l <"$TMP/sys_enter_getsid.tsv")" 1
	last=$(tail -1 "$TMP/sys_enter_getsid.tsv" 2>/dev/null | cut -f5,6)
	check_eq "trigger snapshot ends at the trigger" "$last" "syscalls:sys_enter_getsid	$((BASE + 500))"
fi
t_end
