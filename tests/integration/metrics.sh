#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Metrics for the monitoring people already run: the Prometheus endpoint
# (--metrics) and the node_exporter textfile (--metrics-file) count what
# happened exactly, pass `promtool check metrics`, are scraped by a real
# Prometheus server (Debian's package, started here on loopback) and read back
# through its HTTP API; and a recorder with metrics on wakes no thread while
# nothing happens (no polling timers).
. "$(dirname "$0")/lib.sh"
need_root

BASE=$(seq_base)
MAGIC=$((BASE + 4242))
EV=(-e syscalls:sys_enter_getpgid --filter "$(seq_filter)")
TRIG="syscalls:sys_enter_getsid if pid == $MAGIC limit none name probe"
N=3

free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# scrape URL: the body, or nothing
scrape() { "$PY" -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1" 2>/dev/null; }
# metric TEXT 'NAME{LABELS}': its value in an exposition
metric() { awk -v k="$2" '$1 == k { print $2 }' <<<"$1"; }
fire() { "$PY" -c "import os
try: os.getsid($MAGIC)
except OSError: pass"; }

PORT=$(free_port)
D=$TMP/out
TF=$TMP/textfile/trigrec.prom
mkdir -p "$TMP/textfile"

t_begin "metrics: the recorder says READY=1 to systemd once recording"
if ! tr_start_ready "$TMP/rec.log" record -a -o "$D" -m 64K --metrics "127.0.0.1:$PORT" \
	--metrics-file "$TF" "${EV[@]}" --trigger "$TRIG"; then
	t_fail "not ready: $(log_tail "$TMP/rec.log")"
	t_end
	exit 1
fi
check_match "notifications" "$(cat "$TMP/notify.out")" "^READY=1"
check_match "log" "$(cat "$TMP/rec.log")" "trigrec: recording "
# The start-up line says where to scrape.
check_match "start-up line names the metrics address" "$(grep 'trigrec: recording ' "$TMP/rec.log")" "; metrics on http://127\.0\.0\.1:$PORT/metrics$"
t_end

t_begin "metrics: the endpoint serves before any snapshot, on loopback only"
body=$(scrape "http://127.0.0.1:$PORT/metrics")
check_eq "snapshots written so far" "$(metric "$body" 'trigrec_snapshots_total{trigger="probe",result="written"}')" 0
check_match "build info" "$body" 'trigrec_build_info\{version="[^"]+"\} 1'
check_match "listening address" "$(ss -Hltn "sport = :$PORT" | awk '{print $4}')" "^127\.0\.0\.1:$PORT$"
t_end

# Idle: nothing fires, nobody scrapes. Every thread of the recorder (main,
# side-band, writer, HTTP) must sleep through it.
t_begin "metrics: no wake-ups while idle for 10 s (metrics on, no scrapes)"
_nap 0.5
c0=$(ctxsw "$TR_PID")
_nap 10
c1=$(ctxsw "$TR_PID")
echo "    idle context switches over 10 s, all threads: $((c1 - c0))"
check_le "context switches in 10 s idle" "$((c1 - c0))" 2
t_end

t_begin "metrics: $N snapshots are counted exactly, with their histograms and bytes"
for ((i = 0; i < N; i++)); do fire; _nap 0.3; done
if wait_snaps "$D" probe $N; then
	_nap 0.3 # the writer publishes the file, then counts it
	body=$(scrape "http://127.0.0.1:$PORT/metrics")
	check_eq "snapshots_total written" "$(metric "$body" 'trigrec_snapshots_total{trigger="probe",result="written"}')" $N
	check_eq "snapshots_total failed" "$(metric "$body" 'trigrec_snapshots_total{trigger="probe",result="failed"}')" 0
	check_eq "trigger_firings_total" "$(metric "$body" 'trigrec_trigger_firings_total{trigger="probe"}')" $N
	check_eq "freeze_seconds_count" "$(metric "$body" trigrec_freeze_seconds_count)" $N
	check_eq "trigger_to_file_seconds_count" "$(metric "$body" trigrec_trigger_to_file_seconds_count)" $N
	check_eq "freeze under 0.1 s (le=0.1 bucket)" "$(metric "$body" 'trigrec_freeze_seconds_bucket{le="0.1"}')" $N
	bytes=$(cat "$D"/*-probe*.data "$D"/*-probe*.json | wc -c)
	check_eq "output_bytes_total = size of the files" "$(metric "$body" trigrec_output_bytes_total)" "$bytes"
	# perf's one main ring per CPU, the two ring sets of rings=bpf, or the
	# compact map: per possible CPU 8 segments of 8 KiB and a spare of one,
	# each 8 KiB + 512 slack + 128 guard + 2 block headers of 24 bytes,
	# rounded up to a page.
	if [ "${TRIGREC_RINGS:-auto}" = perf ]; then
		check_eq "ring_bytes main = 64K x CPUs" "$(metric "$body" 'trigrec_ring_bytes{ring="main"}')" $((65536 * $(nproc)))
		check_eq "ring_bytes sets" "$(metric "$body" 'trigrec_ring_bytes{ring="sets"}')" 0
		check_eq "ring_bytes compact" "$(metric "$body" 'trigrec_ring_bytes{ring="compact"}')" 0
	elif [ "${TRIGREC_RINGS:-auto}" = compact ] || [ "${TRIGREC_RINGS:-auto}" = auto ]; then
		possible=$(($(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1))
		check_eq "ring_bytes main" "$(metric "$body" 'trigrec_ring_bytes{ring="main"}')" 0
		check_eq "ring_bytes sets" "$(metric "$body" 'trigrec_ring_bytes{ring="sets"}')" 0
		check_eq "ring_bytes compact = 9 x 8880 x possible CPUs, in pages" \
			"$(metric "$body" 'trigrec_ring_bytes{ring="compact"}')" \
			$(((9 * 8880 * possible + 4095) / 4096 * 4096))
	else
		check_eq "ring_bytes main" "$(metric "$body" 'trigrec_ring_bytes{ring="main"}')" 0
		check_eq "ring_bytes sets = 2 x 64K x CPUs" "$(metric "$body" 'trigrec_ring_bytes{ring="sets"}')" $((2 * 65536 * $(nproc)))
	fi
	printf '%s\n' "$body" >"$TMP/scrape.txt"
	check_cmd "promtool check metrics (endpoint)" sh -c "promtool check metrics <'$TMP/scrape.txt'"
else
	t_fail "no $N snapshots: $(log_tail "$TMP/rec.log")"
fi
t_end

t_begin "metrics: the textfile is rewritten after each snapshot, atomically, and passes promtool"
tf=$(cat "$TF" 2>/dev/null)
check_eq "textfile snapshots written" "$(metric "$tf" 'trigrec_snapshots_total{trigger="probe",result="written"}')" $N
check_cmd "promtool check metrics (textfile)" sh -c "promtool check metrics <'$TF'"
check_eq "no temporaries left beside it" "$(ls -A "$TMP/textfile")" "trigrec.prom"
t_end

# DNS rebinding: a browser sent to 127.0.0.1 by a name the attacker owns
# sends that name as Host. On a loopback bind only loopback names are answered.
t_begin "metrics: on loopback, a request whose Host is not a loopback name gets 421"
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@"; }
check_eq "Host: evil.example:$PORT" "$(code -H "Host: evil.example:$PORT" "http://127.0.0.1:$PORT/metrics")" 421
check_eq "Host: localhost.evil.example" "$(code -H "Host: localhost.evil.example" "http://127.0.0.1:$PORT/metrics")" 421
check_match "what the 421 says" "$(curl -s --max-time 5 -H "Host: evil.example" "http://127.0.0.1:$PORT/metrics")" "answer only Host: localhost"
check_eq "Host: localhost:$PORT" "$(code -H "Host: localhost:$PORT" "http://127.0.0.1:$PORT/metrics")" 200
check_eq "Host: [::1]:$PORT" "$(code -H "Host: [::1]:$PORT" "http://127.0.0.1:$PORT/metrics")" 200
check_eq "curl's own Host: 127.0.0.1:$PORT" "$(code "http://127.0.0.1:$PORT/metrics")" 200
t_end

# One client holding idle connections: at most 4 from one address, another
# address is still answered, and the idle ones are closed within seconds.
t_begin "metrics: one client gets at most 4 connections, others are served, idle ones close in ~3 s"
out=$("$PY" - "$PORT" <<'PYEOF'
import socket, sys, time
port = int(sys.argv[1])
def conn(src):
    s = socket.socket()
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    s.setblocking(False)
    return s
def closed(s):
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True
held = [conn("127.0.0.1") for _ in range(7)]
t0 = time.monotonic()
time.sleep(0.5)
print("refused", sum(closed(s) for s in held))
o = socket.socket()
o.bind(("127.0.0.2", 0))
o.settimeout(5)
o.connect(("127.0.0.1", port))
o.sendall(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
print("other", o.recv(64).split(b"\r\n")[0].decode())
o.close()
left = [s for s in held if not closed(s)]
while left and time.monotonic() - t0 < 20:
    time.sleep(0.1)
    left = [s for s in left if not closed(s)]
print("idle_closed_after %.1f" % (time.monotonic() - t0), "open", len(left))
PYEOF
)
echo "    $(tr '\n' ' ' <<<"$out")"
check_eq "connections of one client closed at once (7 opened, 4 allowed)" "$(awk '$1 == "refused" { print $2 }' <<<"$out")" 3
check_match "a second client address (127.0.0.2) is answered" "$(awk '$1 == "other" { print $2, $3 }' <<<"$out")" "^HTTP/1.1 200"
check_eq "idle connections left open after 20 s" "$(awk '$1 == "idle_closed_after" { print $4 }' <<<"$out")" 0
check_le "seconds until the idle connections were closed (x10)" "$(awk '$1 == "idle_closed_after" { printf "%d", $2 * 10 }' <<<"$out")" 55
check_eq "a scrape afterwards" "$(code "http://127.0.0.1:$PORT/metrics")" 200
t_end

t_begin "metrics: a real Prometheus server scrapes it and answers queries"
if ! command -v prometheus >/dev/null; then
	t_skip "prometheus is not installed (make check installs Debian's package)"
else
	PP=$(free_port)
	cat >"$TMP/prom.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: trigrec
    static_configs:
      - targets: ['127.0.0.1:$PORT']
YML
	prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/prom" \
		--web.listen-address="127.0.0.1:$PP" >"$TMP/prometheus.log" 2>&1 &
	_bg+=($!)
	q="http://127.0.0.1:$PP/api/v1/query?query="
	val=
	for ((i = 0; i < 60 * 5; i++)); do
		r=$(scrape "${q}trigrec_snapshots_total%7Btrigger%3D%22probe%22%2Cresult%3D%22written%22%7D")
		val=$("$PY" -c 'import json, sys
try:
    d = json.loads(sys.stdin.read())
    print(d["data"]["result"][0]["value"][1])
except Exception:
    pass' <<<"$r")
		[ -n "$val" ] && break
		_nap 0.2
	done
	check_eq "Prometheus query trigrec_snapshots_total{trigger=probe,result=written}" "$val" $N
	up=$(scrape "${q}up%7Bjob%3D%22trigrec%22%7D" | "$PY" -c 'import json, sys
try: print(json.load(sys.stdin)["data"]["result"][0]["value"][1])
except Exception: pass')
	check_eq "Prometheus up{job=trigrec}" "$up" 1
	[ -n "$val" ] || t_fail "prometheus log: $(log_tail "$TMP/prometheus.log")"
fi
t_end

tr_stop INT
t_begin "metrics: stops cleanly, says STOPPING=1, the final snapshot is counted in the textfile"
check_eq "exit code (log: $(log_tail "$TMP/rec.log"))" "$TR_RC" 0
check_match "notifications" "$(cat "$TMP/notify.out")" "STOPPING=1"
tf=$(cat "$TF" 2>/dev/null)
check_eq "final snapshot in the textfile" "$(metric "$tf" 'trigrec_snapshots_total{trigger="final",result="written"}')" 1
check_eq "port closed" "$(ss -Hltn "sport = :$PORT" | wc -l)" 0
t_end
