#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Near misses: a latency trigger `> 50ms` that a 20 ms nanosleep(2) does not
# fire reports that sleep as its near miss, between 20 and 50 ms, in
# `trigrec status` (text and JSON), in the Prometheus gauge (which promtool
# accepts), and in the sidecar of the next snapshot, which a 70 ms sleep
# takes; after that snapshot the "since the last snapshot" list is empty
# again and the one since the start still holds the miss. Then the same per
# key, and an event condition's comparison.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trig_lib.sh"
need_root
need_trigwork

NR_NANOSLEEP=35
[ "$(uname -m)" = aarch64 ] && NR_NANOSLEEP=101
F=1
[ "$SLOW" -gt 1 ] && F=10
TH=$((50 * F)) NEAR=$((20 * F)) LONG=$((70 * F))
SOCK=$TMP/ctl.sock
D=$TMP/out
free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
scrape() { "$PY" -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1" 2>/dev/null; }
metric() { awk -v k="$2" '$1 == k { print $2 }' <<<"$1"; }
# jq-less JSON: the value at a path of the one-line `status json`.
sj() { "$PY" -c 'import json, sys
d = json.load(sys.stdin)
for p in sys.argv[1].split("."):
    d = d[int(p)] if p.isdigit() else d[p]
print(d)' "$1"; }
PORT=$(free_port)

t_begin "near miss: a 20 ms sleep against > 50ms is in status, JSON status and metrics"
if tw_start "$TMP/log" "$D" -e raw_syscalls:sys_enter,raw_syscalls:sys_exit --no-final-snapshot \
	--control "$SOCK" --metrics "127.0.0.1:$PORT" \
	--trigger "latency raw_syscalls:sys_enter -> raw_syscalls:sys_exit by tid > ${TH}ms if id == $NR_NANOSLEEP name nm"; then
	tw tsleep 2
	tw tsleep "$NEAR"
	tw tsleep 5
	out=$(timeout 10 "$TRIGREC" status "$SOCK" 2>&1)
	line=$(grep '^trigger nm: near misses ' <<<"$out" | grep -v '^trigger nm: near misses of key ')
	check_match "status line" "$line" "^trigger nm: near misses max [0-9.]+ ms against a threshold of ${TH} ms; largest since start: [0-9.]+ ms(, [0-9.]+ ms)+; since its last snapshot: "
	json=$(timeout 10 "$TRIGREC" status --json "$SOCK" 2>&1)
	nm=$(sj triggers.0.near_miss.since_start.0 <<<"$json")
	check_ge "status json: largest miss >= ${NEAR} ms" "$nm" $((NEAR * 1000000))
	check_lt "status json: largest miss < ${TH} ms" "$nm" $((TH * 1000000))
	check_eq "status json: since_snapshot = since_start before any snapshot" \
		"$(sj triggers.0.near_miss.since_snapshot <<<"$json")" "$(sj triggers.0.near_miss.since_start <<<"$json")"
	check_eq "status json: unit" "$(sj triggers.0.near_miss.unit <<<"$json")" ns
	check_eq "status json: threshold" "$(sj triggers.0.near_miss.threshold <<<"$json")" $((TH * 1000000))
	# fmt_duration_short's rounding: 3 digits from 10 ms (20.4 ms, 203 ms), the
	# trailing zeros dropped; the slow guests' F=10 puts the miss above 100 ms.
	want=$(awk -v v="$nm" 'BEGIN { v /= 1e6; s = sprintf(v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v)
		if (index(s, ".")) { sub(/0+$/, "", s); sub(/\.$/, "", s) }; print s }')
	check_match "status line shows the same max" "$line" "max ${want//./\\.} ms"
	body=$(scrape "http://127.0.0.1:$PORT/metrics")
	g=$(metric "$body" 'trigrec_trigger_near_miss_seconds{trigger="nm",window="start"}')
	check_eq "gauge (start) = status json's max" "$(awk -v v="$g" 'BEGIN { printf "%.0f", v * 1e9 }')" "$nm"
	check_eq "gauge (snapshot) = the same" "$(metric "$body" 'trigrec_trigger_near_miss_seconds{trigger="nm",window="snapshot"}')" "$g"
	check_eq "threshold gauge" "$(metric "$body" 'trigrec_trigger_threshold_seconds{trigger="nm"}')" "$(awk -v t="$TH" 'BEGIN { printf "%.9g", t / 1000 }')"
	printf '%s\n' "$body" >"$TMP/scrape.txt"
	check_cmd "promtool check metrics" sh -c "promtool check metrics <'$TMP/scrape.txt'"
	check_eq "no snapshot yet" "$(nsnaps "$D" nm)" 0

	tw tsleep "$LONG"
	wait_snaps "$D" nm 1 || t_fail "no snapshot after the $LONG ms sleep"
	json2=$(timeout 10 "$TRIGREC" status --json "$SOCK" 2>&1)
	check_eq "after the snapshot: since_snapshot is empty" "$(sj triggers.0.near_miss.since_snapshot <<<"$json2")" "[]"
	check_eq "after the snapshot: since_start keeps the miss" "$(sj triggers.0.near_miss.since_start.0 <<<"$json2")" "$nm"
	tw_end
	check_eq "trigrec exit code (log: $(log_tail "$TMP/log"))" "$TR_RC" 0
else
	t_fail "trigrec did not start: $(log_tail "$TMP/log")"
	nm=0
fi
t_end

t_begin "near miss: the snapshot's sidecar holds the misses before it"
if one_snap "$D" nm; then
	check_ge "duration_ns > threshold" "$(j trigger.latency.duration_ns)" $((TH * 1000000))
	check_ge "near_miss.since_snapshot.0 >= ${NEAR} ms" "$(j trigger.latency.near_miss.since_snapshot.0)" $((NEAR * 1000000))
	check_eq "near_miss.since_snapshot.0 = status's max" "$(j trigger.latency.near_miss.since_snapshot.0)" "$nm"
	check_eq "near_miss.since_start.0 = the same" "$(j trigger.latency.near_miss.since_start.0)" "$nm"
	check_le "since_snapshot.1 <= since_snapshot.0" "$(j trigger.latency.near_miss.since_snapshot.1)" "$nm"
fi
t_end


# An event trigger's comparison: `if pid >= 1000000 && pid != 999999 &&
# comm == "trigwork"` on getpgid(2). Values that failed the comparison while
# the rest of the condition held are its near misses; getpgid(999999) fails
# the comparison too, but also `pid != 999999`: not a near miss of the
# comparison, and not counted.
D2=$TMP/out2
PORT2=$(free_port)
t_begin "near miss: an event condition's '>= N' keeps the largest values that failed only it"
if tw_start "$TMP/log2" "$D2" -e syscalls:sys_enter_getpgid --no-final-snapshot \
	--control "$SOCK.2" --metrics "127.0.0.1:$PORT2" \
	--trigger 'syscalls:sys_enter_getpgid if pid >= 1000000 && pid != 999999 && comm == "trigwork" name cmp'; then
	tw getpgid 999999 getpgid 999990 getpgid 900000 getpgid 12 getpgid 500000 getpgid 0
	out=$(timeout 10 "$TRIGREC" status "$SOCK.2" 2>&1)
	check_eq "status line" "$(grep '^trigger cmp: near misses ' <<<"$out")" \
		"trigger cmp: near misses max 999990 against pid >= 1000000; largest since start: 999990, 900000, 500000, 12; since its last snapshot: 999990, 900000, 500000, 12"
	json=$(timeout 10 "$TRIGREC" status --json "$SOCK.2" 2>&1)
	check_eq "status json: unit" "$(sj triggers.0.near_miss.unit <<<"$json")" value
	check_eq "status json: comparison" "$(sj triggers.0.near_miss.comparison <<<"$json")" "pid >= 1000000"
	check_eq "status json: threshold" "$(sj triggers.0.near_miss.threshold <<<"$json")" 1000000
	check_eq "status json: since_start" "$(sj triggers.0.near_miss.since_start <<<"$json")" "[999990, 900000, 500000, 12]"
	body=$(scrape "http://127.0.0.1:$PORT2/metrics")
	check_eq "gauge (start)" "$(metric "$body" 'trigrec_trigger_near_miss_value{trigger="cmp",window="start"}')" 999990
	check_eq "threshold gauge" "$(metric "$body" 'trigrec_trigger_threshold_value{trigger="cmp"}')" 1000000
	printf '%s\n' "$body" >"$TMP/scrape2.txt"
	check_cmd "promtool check metrics" sh -c "promtool check metrics <'$TMP/scrape2.txt'"
	check_eq "no snapshot yet" "$(nsnaps "$D2" cmp)" 0
	tw getpgid 1000001
	wait_snaps "$D2" cmp 1 || t_fail "no snapshot after getpgid(1000001)"
	json2=$(timeout 10 "$TRIGREC" status --json "$SOCK.2" 2>&1)
	check_eq "after the snapshot: since_snapshot is empty" "$(sj triggers.0.near_miss.since_snapshot <<<"$json2")" "[]"
	check_eq "after the snapshot: since_start keeps them" "$(sj triggers.0.near_miss.since_start <<<"$json2")" "[999990, 900000, 500000, 12]"
	tw_end
	check_eq "trigrec exit code (log: $(log_tail "$TMP/log2"))" "$TR_RC" 0
	if one_snap "$D2" cmp; then
		check_eq "sidecar: comparison" "$(j trigger.condition.comparison)" "pid >= 1000000"
		check_eq "sidecar: since_snapshot" "$(j trigger.condition.near_miss.since_snapshot.0) $(j trigger.condition.near_miss.since_snapshot.3)" "999990 12"
		check_eq "sidecar: the record that fired" "$(j trigger.fields.pid)" 1000001
	fi
else
	t_fail "trigrec did not start: $(log_tail "$TMP/log2")"
fi
t_end

# Per key: `rate getpgid by pid > 3/1s` (pid: getpgid's argument). Key 111
# counts 2 calls in its window, key 222 3; the next call of each, 1.2 s
# later, closes its window: near misses 2 and 3, each under its own key.
# Key 333's 4 calls fire: not a near miss. Status (JSON), the gauge (a key
# label) and the sidecar list the two keys, largest first, with exact counts;
# after the snapshot their "since the last snapshot" lists are empty.
D3=$TMP/out3
PORT3=$(free_port)
PAUSE=$((1200 * F))
t_begin "near miss per key: two keys' window counts in status, the gauge and the sidecar"
if tw_start "$TMP/log3" "$D3" -e syscalls:sys_enter_getpgid --no-final-snapshot \
	--control "$SOCK.3" --metrics "127.0.0.1:$PORT3" \
	--trigger 'rate syscalls:sys_enter_getpgid if comm == "trigwork" by pid > 3/1s name pk'; then
	tw getpgid 111 2 getpgid 222 3 pause "$PAUSE" getpgid 111 1 getpgid 222 1
	json=$(timeout 10 "$TRIGREC" status --json "$SOCK.3" 2>&1)
	check_eq "status json: keys, largest first" \
		"$(sj triggers.0.near_miss.keys <<<"$json")" \
		"[{'key': '222', 'key_values': [222, 0], 'since_start': [3], 'since_snapshot': [3]}, {'key': '111', 'key_values': [111, 0], 'since_start': [2], 'since_snapshot': [2]}]"
	out=$(timeout 10 "$TRIGREC" status "$SOCK.3" 2>&1)
	check_eq "status text: per key" "$(grep '^trigger pk: near misses of key' <<<"$out")" \
		"trigger pk: near misses of key 222: 3; since its last snapshot: 3
trigger pk: near misses of key 111: 2; since its last snapshot: 2"
	body=$(scrape "http://127.0.0.1:$PORT3/metrics")
	check_eq "gauge: key 222 (start, snapshot)" \
		"$(metric "$body" 'trigrec_trigger_near_miss_events{trigger="pk",key="222",window="start"}') $(metric "$body" 'trigrec_trigger_near_miss_events{trigger="pk",key="222",window="snapshot"}')" "3 3"
	check_eq "gauge: key 111 (start, snapshot)" \
		"$(metric "$body" 'trigrec_trigger_near_miss_events{trigger="pk",key="111",window="start"}') $(metric "$body" 'trigrec_trigger_near_miss_events{trigger="pk",key="111",window="snapshot"}')" "2 2"
	check_eq "gauge: the key series, no more" "$(grep -c '^trigrec_trigger_near_miss_events{trigger="pk",key=' <<<"$body")" 4
	printf '%s\n' "$body" >"$TMP/scrape3.txt"
	check_cmd "promtool check metrics" sh -c "promtool check metrics <'$TMP/scrape3.txt'"
	tw getpgid 333 4
	wait_snaps "$D3" pk 1 || t_fail "no snapshot after 4 getpgid(333)"
	json2=$(timeout 10 "$TRIGREC" status --json "$SOCK.3" 2>&1)
	check_eq "after the snapshot: since_snapshot empty, since_start kept" \
		"$(sj triggers.0.near_miss.keys <<<"$json2")" \
		"[{'key': '222', 'key_values': [222, 0], 'since_start': [3], 'since_snapshot': []}, {'key': '111', 'key_values': [111, 0], 'since_start': [2], 'since_snapshot': []}]"
	tw_end
	check_eq "trigrec exit code (log: $(log_tail "$TMP/log3"))" "$TR_RC" 0
	if one_snap "$D3" pk; then
		check_eq "sidecar: the firing" "$(j trigger.rate.count) $(j trigger.rate.key_values.0)" "4 333"
		check_eq "sidecar: key 222" "$(j trigger.rate.near_miss.keys.0.key) $(j trigger.rate.near_miss.keys.0.since_start.0) $(j trigger.rate.near_miss.keys.0.since_snapshot.0)" "222 3 3"
		check_eq "sidecar: key 111" "$(j trigger.rate.near_miss.keys.1.key) $(j trigger.rate.near_miss.keys.1.since_start.0) $(j trigger.rate.near_miss.keys.1.since_snapshot.0)" "111 2 2"
		check_eq "sidecar: two keys (333 fired: not a near miss)" "$(j 'trigger.rate.near_miss.keys#')" 2
	fi
else
	t_fail "trigrec did not start: $(log_tail "$TMP/log3")"
fi
t_end
