#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Kernel features: trigrec probes what its BPF side needs before loading it.
# On a kernel that has everything (Linux 5.17+) every probe says yes and a
# recording runs; on an older one (tests/kernels boots Debian 11's 5.10)
# trigrec refuses before loading anything, naming each missing feature with
# the first Linux release that has it.
. "$(dirname "$0")/lib.sh"
need_root

# What trigrec needs, with the first mainline release of each (the table in
# src/engine/features.c, written down again here so that the test checks it).
FEATURES=(
	"5.4|kernel BTF"
	"5.8|BPF ring buffer"
	"5.11|bpf_get_current_task_btf() in tracepoint programs"
	"5.12|task storage (bpf_task_storage_get) in tracepoint programs"
	"5.15|BPF cookies on tracepoints"
	"5.17|bpf_loop()"
)
vnum() { local IFS=.- a; read -r -a a <<<"$1"; echo $((a[0] * 1000 + a[1])); }
rel=$(uname -r)
kv=$(vnum "$rel")

tr_run "$TMP/log" -v -e syscalls:sys_enter_getsid -o "$TMP/out" -- true
rc=$?
log=$(cat "$TMP/log")
echo "  (on $rel: $(grep -c 'kernel feature: .*: yes$' "$TMP/log") features present," \
	"$(grep -c 'kernel feature: .*: missing$' "$TMP/log") missing)"

t_begin "features: each probe reports what this kernel ($rel) has"
for f in "${FEATURES[@]}"; do
	since=${f%%|*} name=${f#*|}
	want=yes
	[ "$kv" -lt "$(vnum "$since")" ] && want=missing
	got=$(grep -F "kernel feature: $name" "$TMP/log" | sed 's/.*: //' | head -1)
	check_eq "$name (Linux $since+)" "$got" "$want"
done
t_end

if [ "$kv" -ge "$(vnum 5.17)" ]; then
	t_begin "features: a kernel with everything records"
	check_eq "exit code (log: $(log_tail "$TMP/log"))" "$rc" 0
	check_nomatch "log" "$log" "lacks what trigrec needs"
	check_eq "final snapshots" "$(nsnaps "$TMP/out" final)" 1
	t_end
else
	sed -n '/lacks what trigrec needs/,/run it on a newer kernel/s/^/    | /p' "$TMP/log"
	t_begin "features: an old kernel is refused with what it lacks"
	check_eq "exit code (log: $(log_tail "$TMP/log"))" "$rc" 1
	check_match "log" "$log" "^trigrec: this kernel \\($rel\\) lacks what trigrec needs:"
	for f in "${FEATURES[@]}"; do
		since=${f%%|*} name=${f#*|}
		if [ "$kv" -lt "$(vnum "$since")" ]; then
			{ grep -qF -- "  - $name" "$TMP/log" && grep -F -- "  - $name" "$TMP/log" | grep -qF "(Linux $since+;"; } ||
				t_fail "the refusal does not name '$name (Linux $since+)'"
		else
			grep -qF -- "  - $name" "$TMP/log" && t_fail "the refusal names '$name', which this kernel has"
		fi
	done
	check_match "log" "$log" "trigrec needs Linux 5.17 or later with BTF; run it on a newer kernel"
	# Refused before anything was loaded or written.
	check_nomatch "log" "$log" "libbpf:|cannot load BPF programs|recording "
	check_eq "snapshots" "$(nsnaps "$TMP/out")" 0
	t_end
fi
