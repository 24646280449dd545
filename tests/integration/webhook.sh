#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# POST /snapshot (--http-token-file): a real Prometheus (Debian's package)
# evaluates a rule that fires two alerts, a real Alertmanager routes them to
# trigrec's webhook with the bearer token, and exactly one snapshot per
# firing alert appears, with the alert's labels and fingerprint in its
# sidecar. Then every refusal with curl: no or a wrong token, an oversized
# body, a malformed payload, the budget spent, a flood; each gets its status
# and takes nothing, and the recorder keeps recording.
. "$(dirname "$0")/lib.sh"
need_root

free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# jget FILE PATH: a value of a JSON file by a Python subscript ("['alert']['name']")
jget() { "$PY" -c 'import json, sys; print(eval("json.load(open(sys.argv[1]))" + sys.argv[2]))' "$1" "$2" 2>/dev/null; }
# post BODY-FILE [CURL-ARGS...]: POST /snapshot with the token; prints the status, body in $TMP/reply
post() {
	local f=$1
	shift
	curl -s -o "$TMP/reply" -w '%{http_code}' --max-time 20 -H 'Content-Type: application/json' \
		"$@" --data-binary @"$f" "http://127.0.0.1:$PORT/snapshot"
}
AUTH=()
nsnaps() { find "$D" -maxdepth 1 -name '*.data' | wc -l; }

PORT=$(free_port)
D=$TMP/out
TOK=$TMP/token
umask 077
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TOK"
AUTH=(-H "Authorization: Bearer $(cat "$TOK")")
umask 022

t_begin "webhook: a token file others can read, or no --metrics, is refused at start"
cp "$TOK" "$TMP/loose"
chmod 644 "$TMP/loose"
"$TRIGREC" record -a -o "$D" --metrics "127.0.0.1:$PORT" --http-token-file "$TMP/loose" \
	-e syscalls:sys_enter_getpgid >"$TMP/loose.log" 2>&1
check_ne "exit code" "$?" 0
check_match "message" "$(cat "$TMP/loose.log")" "readable or writable by others \(mode 0644\).*chmod 600"
"$TRIGREC" record -a -o "$D" --http-token-file "$TOK" -e syscalls:sys_enter_getpgid >"$TMP/nom.log" 2>&1
check_ne "exit code without --metrics" "$?" 0
check_match "message" "$(cat "$TMP/nom.log")" "give --metrics ADDR too"
t_end

t_begin "webhook: the recorder starts with POST /snapshot on its metrics listener"
if ! tr_start "$TMP/rec.log" -a -o "$D" -m 64K --metrics "127.0.0.1:$PORT" \
	--http-token-file "$TOK" --budget 4/min -e syscalls:sys_enter_getpgid; then
	t_fail "not recording: $(log_tail "$TMP/rec.log")"
	t_end
	exit 1
fi
check_match "listening address" "$(ss -Hltn "sport = :$PORT" | awk '{print $4}')" "^127\.0\.0\.1:$PORT$"
t_end

t_begin "webhook: Prometheus fires two alerts, Alertmanager routes them, two snapshots"
if ! command -v prometheus >/dev/null || ! command -v prometheus-alertmanager >/dev/null; then
	t_skip "prometheus or prometheus-alertmanager is not installed (make check installs Debian's packages)"
else
	PP=$(free_port)
	AP=$(free_port)
	cat >"$TMP/rules.yml" <<'YML'
groups:
  - name: trigrec-test
    interval: 1s
    rules:
      - alert: TrigrecTest
        expr: label_replace(vector(1), "shard", "a", "", "") or label_replace(vector(2), "shard", "b", "", "")
        labels:
          severity: page
        annotations:
          summary: "shard {{ $labels.shard }} is slow"
YML
	cat >"$TMP/prom.yml" <<YML
global:
  evaluation_interval: 1s
rule_files: ['$TMP/rules.yml']
alerting:
  alertmanagers:
    - static_configs:
        - targets: ['127.0.0.1:$AP']
YML
	cat >"$TMP/am.yml" <<YML
route:
  receiver: trigrec
  # A group per alert: each is sent once, group_wait after it reaches
  # Alertmanager, however its dispatcher interleaves them (grouped by name
  # only, a loaded machine once got shard b into the group after the first
  # notification, and it then waited for group_interval: 1 snapshot of 2).
  group_by: [alertname, shard]
  group_wait: 1s
  group_interval: 10m
  repeat_interval: 4h
receivers:
  - name: trigrec
    webhook_configs:
      - url: http://127.0.0.1:$PORT/snapshot
        send_resolved: true
        http_config:
          authorization:
            type: Bearer
            credentials_file: $TOK
YML
	prometheus-alertmanager --config.file="$TMP/am.yml" --storage.path="$TMP/am" \
		--web.listen-address="127.0.0.1:$AP" --cluster.listen-address= >"$TMP/am.log" 2>&1 &
	_bg+=($!)
	prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/prom" \
		--web.listen-address="127.0.0.1:$PP" >"$TMP/prometheus.log" 2>&1 &
	_bg+=($!)
	for ((i = 0; i < 60 * 5; i++)); do
		[ "$(nsnaps)" -ge 2 ] && break
		_nap 0.2
	done
	_nap 2 # nothing more may come
	check_eq "snapshots (requests by outcome: $(curl -s "http://127.0.0.1:$PORT/metrics" | grep -E '^trigrec_http_snapshot' | tr '\n' ' '); Alertmanager: $(grep -iE 'notif|webhook|error' "$TMP/am.log" | tail -3 | tr '\n' ' '))" "$(nsnaps)" 2
	# The fingerprints Alertmanager gives the two alerts, by shard.
	curl -s "http://127.0.0.1:$AP/api/v2/alerts" >"$TMP/am-alerts.json"
	for shard in a b; do
		fp=$("$PY" -c 'import json, sys
for a in json.load(open(sys.argv[1])):
    if a["labels"].get("shard") == sys.argv[2]: print(a["fingerprint"])' "$TMP/am-alerts.json" "$shard")
		data=$(ls "$D"/*-TrigrecTest-"$fp".data 2>/dev/null)
		check_ne "shard $shard: a snapshot named TrigrecTest-$fp" "$data" ""
		js=${data%.data}.json
		check_eq "shard $shard: sidecar alert.labels.shard" "$(jget "$js" "['alert']['labels']['shard']")" "$shard"
		check_eq "shard $shard: sidecar alert.labels.severity" "$(jget "$js" "['alert']['labels']['severity']")" page
		check_eq "shard $shard: sidecar alert.annotations.summary" "$(jget "$js" "['alert']['annotations']['summary']")" "shard $shard is slow"
		check_eq "shard $shard: sidecar alert.fingerprint" "$(jget "$js" "['alert']['fingerprint']")" "$fp"
		check_eq "shard $shard: sidecar alert.source" "$(jget "$js" "['alert']['source']")" alertmanager
		check_eq "shard $shard: sidecar trigger.text" "$(jget "$js" "['trigger']['text']")" "POST /snapshot"
		check_cmd "shard $shard: perf reads it" perf script -i "$data" --header-only
	done
	[ "$(nsnaps)" = 2 ] || t_fail "logs: $(log_tail "$TMP/rec.log") / $(log_tail "$TMP/am.log")"
fi
t_end

n0=$(nsnaps)
echo '{"name": "by hand"}' >"$TMP/plain.json"

t_begin "webhook: no token, a wrong token: 401 and nothing taken"
check_eq "no token" "$(post "$TMP/plain.json")" 401
check_match "reply" "$(cat "$TMP/reply")" "Authorization: Bearer TOKEN"
check_eq "wrong token" "$(post "$TMP/plain.json" -H "Authorization: Bearer $(cat "$TOK")0")" 401
check_eq "snapshots" "$(nsnaps)" "$n0"
t_end

t_begin "webhook: an oversized body: 413; a malformed one: 400; nothing taken"
head -c 70000 /dev/zero | tr '\0' ' ' >"$TMP/big.json"
check_eq "70000-byte body" "$(post "$TMP/big.json" "${AUTH[@]}")" 413
echo '{"version": "4", "alerts": [{"status": "firing"}]}' >"$TMP/bad.json"
check_eq "alert without labels" "$(post "$TMP/bad.json" "${AUTH[@]}")" 400
check_match "reply" "$(cat "$TMP/reply")" 'alerts\[0\]: no \\"labels\\"'
echo '{"version": "4", "alerts": [' >"$TMP/bad2.json"
check_eq "cut short" "$(post "$TMP/bad2.json" "${AUTH[@]}")" 400
check_eq "snapshots" "$(nsnaps)" "$n0"
t_end

t_begin "webhook: a plain name is taken; the budget (4/min) holds back the rest"
check_eq "plain name" "$(post "$TMP/plain.json" "${AUTH[@]}")" 200
check_match "reply names the file" "$(cat "$TMP/reply")" '"name": "by_hand", "file": ".*-by_hand\.data"'
check_eq "snapshots" "$(nsnaps)" $((n0 + 1))
cat >"$TMP/two.json" <<'JSON'
{"version": "4", "status": "firing", "receiver": "x", "alerts": [
 {"status": "firing", "labels": {"alertname": "One"}, "fingerprint": "0000000000000001"},
 {"status": "firing", "labels": {"alertname": "Two"}, "fingerprint": "0000000000000002"},
 {"status": "resolved", "labels": {"alertname": "Gone"}, "fingerprint": "0000000000000003"}]}
JSON
check_eq "two firing, one resolved" "$(post "$TMP/two.json" "${AUTH[@]}")" 200
check_match "One taken" "$(cat "$TMP/reply")" '"name": "One-0000000000000001", "file"'
check_match "Two held back" "$(cat "$TMP/reply")" '"name": "Two-0000000000000002", "reason": "budget"'
check_match "resolved ignored" "$(cat "$TMP/reply")" '"resolved_ignored": 1'
check_eq "snapshots" "$(nsnaps)" $((n0 + 2))
t_end

t_begin "webhook: a flood gets 429 and takes nothing; the recorder keeps recording"
n1=$(nsnaps)
c429=0
for ((i = 0; i < 40; i++)); do
	[ "$(post "$TMP/plain.json" "${AUTH[@]}")" = 429 ] && c429=$((c429 + 1))
done
check_ge "429 answers of 40" "$c429" 10
check_eq "snapshots" "$(nsnaps)" "$n1"
check_cmd "still running" kill -0 "$TR_PID"
m=$(curl -s "http://127.0.0.1:$PORT/metrics")
check_match "metrics: rate_limited counted" "$m" 'trigrec_http_snapshot_requests_total\{result="rate_limited"\} [1-9]'
check_match "metrics: budget counted" "$m" 'trigrec_http_snapshots_total\{result="budget"\} [1-9]'
kill -USR2 "$TR_PID"
for ((i = 0; i < TIMEOUT * 5; i++)); do
	[ "$(nsnaps)" -gt "$n1" ] && break
	_nap 0.2
done
check_eq "a SIGUSR2 snapshot after all that" "$(nsnaps)" $((n1 + 1))
t_end

tr_stop INT
t_begin "webhook: stops cleanly"
check_eq "exit code (log: $(log_tail "$TMP/rec.log"))" "$TR_RC" 0
t_end
