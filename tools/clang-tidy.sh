#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make lint's C half: clang-tidy (checks in .clang-tidy, flags from
# compile_commands.json) on each FILE, JOBS at a time (default 2).
#   tools/clang-tidy.sh FILE...
# Fails (exit 1) on any finding located in the project's own files. Findings
# inside bpftool's generated skeletons ($OUTPUT/*.skel.h, and bench/floor's
# $OUTPUT/bench/floor.skel.h) are counted, not
# failed: that code is not ours to change (its one finding, a leak on an
# error path of __create_skeleton, is the analyzer not seeing libbpf's
# bpf_object__destroy_skeleton free it).
set -u
CLANG_TIDY=${CLANG_TIDY:-clang-tidy}
JOBS=${JOBS:-2}
log=$(mktemp /tmp/trigrec-tidy.XXXXXX) || exit 1
trap 'rm -f "$log"' EXIT

printf '%s\n' "$@" | xargs -P"$JOBS" -n4 "$CLANG_TIDY" -p . --quiet >"$log" 2>&1
# One line per finding: FILE:LINE:COL: warning|error: TEXT [check]
diag='^[^ ]+:[0-9]+:[0-9]+: (warning|error): '
gen='^([^ ]*/)?\.output[^/]*/(bench/)?[^/ ]*\.skel\.h:'
ours=$(grep -E "$diag" "$log" | grep -cvE "$gen")
theirs=$(grep -E "$diag" "$log" | grep -cE "$gen")
if [ "$ours" -gt 0 ]; then
	# The findings with their notes, without the generated header's.
	awk -v gen="$gen" -v diag="$diag" '
		$0 ~ diag { show = $0 !~ gen }
		show && $0 !~ /^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$/' "$log"
	echo "clang-tidy: $ours finding(s) in $# files: fix them (or, for a false positive," \
		"NOLINTNEXTLINE(check) with the reason)"
	exit 1
fi
if grep -qE '^Error while|error: no input files|Could not auto-detect compilation database' "$log"; then
	cat "$log"
	echo "clang-tidy: did not run (see above)"
	exit 1
fi
note=
[ "$theirs" -gt 0 ] && note=" ($theirs finding(s) in bpftool's generated skeleton not counted)"
echo "  clang-tidy: $# files clean$note"
