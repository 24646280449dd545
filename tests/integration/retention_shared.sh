#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Retention in a directory shared by two recorders (and the leftovers of a
# third): each counts and removes only the pairs whose sidecar names its
# instance ID (--instance, or a random one per run), never another's.
# (A file of its own: retention.sh is near the runner's 150 s per file.)
. "$(dirname "$0")/lib.sh"
need_root

BASE=$(seq_base)
MAGIC=$((BASE + 555))
EV=(-e syscalls:sys_enter_getpgid --filter "$(seq_filter)")
STORM="syscalls:sys_enter_getsid if pid == $MAGIC limit none"

# getsid(MAGIC) once: every recorder's trigger.
fire() { "$PY" -c 'import os, sys
try:
    os.getsid(int(sys.argv[1]))
except OSError:
    pass' "$MAGIC"; }
# The snapshot pairs in DIR (.data with its .json), base names, sorted.
pairs() {
	local f
	for f in "$1"/*.data; do
		[[ ${f##*/} =~ ^[0-9]{8}-[0-9]{6}\.[0-9]{6}-.+\.data$ ]] && [ -f "$f" ] && [ ! -L "$f" ] &&
			[ -O "$f" ] && [ -e "${f%.data}.json" ] && basename "${f%.data}"
	done | sort
}
bases() { local p; for p in "$@"; do basename "${p%.data}"; done | sort; }
# A stamp as the writer makes it, for `date -d` TIME.
stamp_at() { date -d "$1" +%Y%m%d-%H%M%S.000000; }
# fake DIR BASE DATA_BYTES INSTANCE: a pair as trigrec writes them, of INSTANCE.
fake() {
	head -c "$3" /dev/zero >"$1/$2.data"
	printf '{\n  "instance": "%s",\n  "file": "%s"\n}\n' "$4" "$1/$2.data" >"$1/$2.json"
}

# One recorder with --instance ra, one with a random ID. Before the
# instance ID each removed the other's snapshots as its own.
t_begin "retention: two recorders in one directory, keep 2 files each: neither removes the other's snapshots"
D=$TMP/shared
mkdir -p "$D"
fake "$D" "$(stamp_at "2020-01-01 00:00:01")-olda" 100 ra
fake "$D" "$(stamp_at "2020-01-01 00:00:02")-oldz" 100 zz
if tr_start "$TMP/ra.log" -a -v --instance ra -o "$D" --no-final-snapshot --keep-files 2 "${EV[@]}" --trigger "$STORM"; then
	PA=$TR_PID
	if tr_start "$TMP/rb.log" -a -v -o "$D" --no-final-snapshot --keep-files 2 "${EV[@]}" --trigger "$STORM"; then
		PB=$TR_PID
		for k in 1 2 3 4; do
			fire
			wait_lines "$TMP/ra.log" $k '^trigrec: snapshot /' || t_fail "ra: snapshot $k not written: $(log_tail "$TMP/ra.log")"
			wait_lines "$TMP/rb.log" $k '^trigrec: snapshot /' || t_fail "rb: snapshot $k not written: $(log_tail "$TMP/rb.log")"
		done
		tr_stop INT "$PB"
		check_eq "rb exit code (log: $(log_tail "$TMP/rb.log"))" "$TR_RC" 0
	else
		t_fail "second recorder did not start: $(log_tail "$TMP/rb.log")"
	fi
	tr_stop INT "$PA"
	check_eq "ra exit code (log: $(log_tail "$TMP/ra.log"))" "$TR_RC" 0
	mapfile -t WA < <(written "$TMP/ra.log")
	mapfile -t WB < <(written "$TMP/rb.log")
	check_eq "snapshots written by ra" "${#WA[@]}" 4
	check_eq "snapshots written by rb" "${#WB[@]}" 4
	check_match "rb's random instance" "$(cat "$TMP/rb.log")" "instance [0-9a-f]{16}: retention removes only"
	check_eq "snapshots left: 2 newest of each, and the third instance's" "$(pairs "$D")" \
		"$( (bases "${WA[@]:2}" "${WB[@]:2}"; echo "$(stamp_at "2020-01-01 00:00:02")-oldz") | sort)"
	check_eq "ra removed its old one and 2 of its own" \
		"$(grep -c '^trigrec: retention: removed [^ ]*\.data and \.json' "$TMP/ra.log")" 3
	check_eq "rb removed 2 of its own" \
		"$(grep -c '^trigrec: retention: removed [^ ]*\.data and \.json' "$TMP/rb.log")" 2
	check_eq "sidecars of ra name it" "$(for f in "${WA[@]:2}"; do sed -n 2p "${f%.data}.json"; done | sort -u)" '  "instance": "ra",'
else
	t_fail "recorder did not start: $(log_tail "$TMP/ra.log")"
fi
t_end
