#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# trigrec show on snapshots of a known workload (tests/helpers/trigwork):
#  - the terminal report: the trigger's name, text and fields, the latency's
#    two ends, the per-CPU window, the busiest events, and the triggering
#    thread's last records, each checked against the sidecar and against
#    what stock `perf script` decodes from the same .data;
#  - --chrome-json: valid JSON (python3), a track per CPU and per thread, an
#    instant per record, the trigger as a global instant;
#  - --html: loaded in headless Chromium, its DOM after the scripts ran has a
#    lane per CPU, a mark per record, the trigger marker and the spans; with
#    #selftest the page itself hovers the trigger's mark, zooms, drags and
#    resets, and the DOM says what happened; a screenshot is kept in
#    tests/out/show.png;
#  - a rate trigger with a post window, zstd-compressed; and the errors.
. "$(dirname "$0")/lib.sh"
need_root
TRIGWORK=$OUTPUT/tests/trigwork
OUTDIR=$ROOT/tests/out
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
mkdir -p "$OUTDIR"

# fmt_ns NS: as perf script --ns prints a time.
fmt_ns() { printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000)); }

# ---- snapshot 1: a latency trigger on nanosleep, system-wide, default set ----

D1=$TMP/lat
tr_run "$TMP/lat.log" -a -m 1M --no-final-snapshot -o "$D1" \
	--trigger 'latency syscalls:sys_enter_nanosleep by tid -> syscalls:sys_exit_nanosleep by tid > 20ms where comm == "trigwork" name slow' \
	-- "$TRIGWORK" -o "$TMP/marks" getpgid 5 3 nsleep 5 getpgid 7 2 tsleep 30 getpgid 9
rc=$?
F=$(snaps "$D1" slow | head -1)
t_begin "show: a latency snapshot of trigwork"
check_eq "trigrec exit ($(log_tail "$TMP/lat.log"))" "$rc" 0
[ -n "$F" ] || t_fail "no snapshot 'slow' in $D1: $(ls "$D1" 2>&1 | tr '\n' ' ')"
t_end
if [ -z "$F" ] || ! json_load "${F%.data}.json"; then
	t_blocked "show: the rest" "no snapshot or sidecar"
	exit 1
fi
decode "$F" text >"$TMP/lat.tsv"
"$TRIGREC" show -n 6 --html "$TMP/show.html" --chrome-json "$TMP/show.json" "$F" >"$TMP/show.out" 2>"$TMP/show.err"
src=$?
TID=$(j trigger.tid)

t_begin "show: what fired: name, text, where, fields, both ends of the latency"
check_eq "exit ($(log_tail "$TMP/show.err"))" "$src" 0
out=$(cat "$TMP/show.out")
line() { grep -m1 -- "$1" "$TMP/show.out"; }
check_eq "snapshot line" "$(line '^snapshot')" "snapshot  $F"
check_eq "sidecar line" "$(line '^sidecar')" "sidecar   ${F%.data}.json"
check_eq "trigger line" "$(line '^trigger')" "trigger   slow (latency trigger)"
check_eq "text line" "$(line '^  text')" "  text    $(j trigger.text)"
check_eq "fired line" "$(line '^  fired')" \
	"  fired   at $(fmt_ns "$(j trigger.time_ns)") on CPU $(j trigger.cpu) by trigwork pid $(j trigger.pid) tid $TID"
fields=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))["trigger"]["fields"]; print(" ".join("%s=%s" % kv for kv in d.items()))' "${F%.data}.json")
check_eq "event line" "$(line '^  event')" "  event   syscalls:sys_exit_nanosleep: $fields"
check_match "fields have ret=0" "$fields" '(^| )ret=0$'
check_match "latency line" "$(line '^  latency')" '^  latency 3[0-9]\.[0-9]{3} ms, over the threshold of 20\.000 ms$'
check_eq "start line" "$(line '^    start')" \
	"    start syscalls:sys_enter_nanosleep at $(fmt_ns "$(j trigger.latency.start.time_ns)") on CPU $(j trigger.latency.start.cpu), tid $TID (key tid)"
check_eq "end line" "$(line '^    end')" \
	"    end   syscalls:sys_exit_nanosleep at $(fmt_ns "$(j trigger.latency.end.time_ns)") on CPU $(j trigger.latency.end.cpu), tid $TID (key tid)"
# trigwork's own clock readings bracket the sleep: the thread is the sleeper (tsleep: a new thread)
sl=$(grep '^nsleep .* ms=30 ' "$TMP/marks")
check_eq "the sleeping thread" "$TID" "$(sed -E 's/.* tid=([0-9]+) .*/\1/' <<<"$sl")"
check_ge "start after trigwork's start mark" "$(j trigger.latency.start.time_ns)" "$(sed -E 's/.* start=([0-9]+).*/\1/' <<<"$sl")"
check_le "end before trigwork's end mark" "$(j trigger.latency.end.time_ns)" "$(sed -E 's/.* end=([0-9]+).*/\1/' <<<"$sl")"
t_end

t_begin "show: the window per CPU and the busiest events agree with perf script"
nrec=$(wc -l <"$TMP/lat.tsv")
check_match "window line" "$(line '^window')" \
	"^window    $(fmt_ns "$(j window.start_ns)") \.\. $(fmt_ns "$(j window.end_ns)") \(.*\), aligned, $nrec records \(samples\)$"
ncpu=0
# A row per CPU: perf's one main ring, rings=bpf's two sets, or a compact ring and its carry (any wrapped, lost summed).
declare -A wrap=() lostc=()
for ((i = 0; i < ${J[cpus#]}; i++)); do
	[ "$(j cpus.$i.ring)" != tracking ] || continue
	c=$(j cpus.$i.cpu)
	[ "$(j cpus.$i.wrapped)" = true ] && wrap[$c]=yes
	lostc[$c]=$((${lostc[$c]:-0} + $(j cpus.$i.lost)))
done
for ((i = 0; i < ${J[cpus#]}; i++)); do
	[ "$(j cpus.$i.ring)" = main ] || [ "$(j cpus.$i.ring)" = set0 ] || [ "$(j cpus.$i.ring)" = compact ] || continue
	c=$(j cpus.$i.cpu)
	ncpu=$((ncpu + 1))
	n=$(awk -F'\t' -v c="$c" '$2 == c' "$TMP/lat.tsv" | wc -l)
	first=$(awk -F'\t' -v c="$c" '$2 == c { print $1; exit }' "$TMP/lat.tsv")
	last=$(awk -F'\t' -v c="$c" '$2 == c { l = $1 } END { print l }' "$TMP/lat.tsv")
	w=${wrap[$c]:-no}
	if [ "$n" -gt 0 ]; then first=$(fmt_ns "$first") last=$(fmt_ns "$last"); else first=- last=-; fi
	exp=$(printf '  %-4d %8d  %-21s %-21s %-8s %s' "$c" "$n" "$first" "$last" "$w" "${lostc[$c]}")
	check_eq "cpu $c row" "$(grep -m1 -E "^  $c +[0-9]+  " "$TMP/show.out")" "$exp"
done
check_gt "CPUs" "$ncpu" 0
awk -F'\t' '{ n[$5]++ } END { for (e in n) printf "%8d  %s\n", n[e], e }' "$TMP/lat.tsv" | sort >"$TMP/ev.want"
sed -n '/^busiest events:/,/^last /p' "$TMP/show.out" | grep -E '^ +[0-9]+  ' | sed 's/^  //' | sort >"$TMP/ev.got"
check_eq "busiest events (every event, counts as perf script's)" "$(cat "$TMP/ev.got")" "$(cat "$TMP/ev.want")"
top=$(awk -F'\t' '{ n[$4]++ } END { for (t in n) if (n[t] > m) m = n[t]; print m }' "$TMP/lat.tsv")
check_eq "the busiest task's records: the most any thread has in perf script" \
	"$(sed -n '/^busiest tasks/,/^busiest events/p' "$TMP/show.out" | sed -n 3p | awk '{ print $1 }')" "$top"
t_end

t_begin "show: the triggering thread's last records are perf script's, ending at the trigger"
# perf script's records of that thread up to its exit-nanosleep (the trigger's own record)
trig_line=$(awk -F'\t' -v t="$TID" '$4 == t && $5 == "syscalls:sys_exit_nanosleep"' "$TMP/lat.tsv" | tail -1)
check_ne "trigger record in perf script" "$trig_line" ""
tt=$(cut -f1 <<<"$trig_line")
awk -F'\t' -v t="$TID" -v end="$tt" '$4 == t && $1 <= end { printf "%s %s %s\n", $1, $2, $5 }' "$TMP/lat.tsv" |
	tail -6 | while read -r ns cpu ev; do printf '%s %s %s\n' "$(fmt_ns "$ns")" "$cpu" "$ev"; done >"$TMP/last.want"
sed -n '/^last [0-9]* records\? of /,$p' "$TMP/show.out" | tail -n +3 | awk '{ print $1, $2, $3 }' >"$TMP/last.got"
check_eq "header" "$(grep '^last ' "$TMP/show.out")" \
	"last $(wc -l <"$TMP/last.want") records of trigwork $(j trigger.pid)/$TID up to the trigger:"
check_eq "records (time cpu event)" "$(cat "$TMP/last.got")" "$(cat "$TMP/last.want")"
check_match "the last is marked" "$(tail -1 "$TMP/show.out")" ' ret=0  <- trigger$'
check_eq "the trigger's record time" "$(tail -1 "$TMP/show.out" | awk '{ print $1 }')" "$(fmt_ns "$tt")"
t_end

t_begin "show: --chrome-json is Trace Event Format with CPU and thread tracks"
check_cmd "json.tool" "$PY" -m json.tool "$TMP/show.json"
res=$("$PY" - "$TMP/show.json" "$TID" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); tid = int(sys.argv[2])
ev = d["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
cpus = sorted(n for n in names.values() if n.startswith("CPU "))
inst = [e for e in ev if e["ph"] == "i" and e.get("s") == "t"]
trig = [e for e in ev if e["ph"] == "i" and e.get("s") == "g"]
runs = [e for e in ev if e["ph"] == "X" and e.get("cat") == "sched"]
lat = [e for e in ev if e["ph"] == "X" and e.get("cat") == "latency"]
thr = [n for (p, t), n in names.items() if t == tid]
print("cpus=%s" % ",".join(c[4:] for c in cpus))
print("instants=%d" % len(inst))
print("trigger=%s %.3f" % (trig[0]["name"], trig[0]["ts"]) if len(trig) == 1 else "trigger=%d" % len(trig))
print("runs>0=%s" % (len(runs) > 0 and all(r["dur"] >= 0 for r in runs)))
print("latency=%d" % len(lat))
print("thread=%s" % (thr[0] if thr else "none"))
print("sane=%s" % all(isinstance(e["ts"], (int, float)) for e in ev if e["ph"] != "M"))
PYEOF
)
cpus_json=$(for ((i = 0; i < ${J[cpus#]}; i++)); do [ "$(j cpus.$i.ring)" != tracking ] && printf '%s\n' "$(j cpus.$i.cpu)"; done | sort -nu | paste -sd,)
check_eq "CPU tracks" "$(grep '^cpus=' <<<"$res")" "cpus=$cpus_json"
check_eq "one instant per record" "$(grep '^instants=' <<<"$res")" "instants=$nrec"
check_eq "the trigger instant" "$(grep '^trigger=' <<<"$res")" "trigger=trigger slow $((tt / 1000)).$(printf %03d $((tt % 1000)))"
check_eq "task runs from sched_switch" "$(grep '^runs>0=' <<<"$res")" "runs>0=True"
check_eq "the latency span" "$(grep '^latency=' <<<"$res")" "latency=1"
check_eq "the thread's track" "$(grep '^thread=' <<<"$res")" "thread=trigwork $TID"
check_eq "timestamps" "$(grep '^sane=' <<<"$res")" "sane=True"
t_end

# chromium_dom HTML OUT [#FRAGMENT]: the DOM after the page's scripts ran.
chromium_dom() {
	timeout -k 5 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$TMP/chromium" --window-size=1400,900 --dump-dom "file://$1${3-}" \
		>"$2" 2>"$2.err"
}
# dom_counts FILE: what the checks need, one "key=value" a line.
dom_counts() {
	"$PY" - "$1" <<'PYEOF'
import sys
from html.parser import HTMLParser
c = {"lane": 0, "mark": 0, "run": 0, "trigger": 0, "latency": 0, "rate": 0, "post": 0, "ext": 0}
body = {}
class P(HTMLParser):
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "g" and "lane" in cls: c["lane"] += 1
        if tag == "line" and "mark" in cls: c["mark"] += 1
        if tag == "rect" and "run" in cls: c["run"] += 1
        if tag == "rect" and "span" in cls:
            for k in ("latency", "rate", "post"):
                if k in cls: c[k] += 1
        if a.get("id") == "trigger": c["trigger"] += 1
        if tag == "body": body.update(a)
        for k in ("src", "href"):
            if (a.get(k) or "").startswith(("http:", "https:", "//")): c["ext"] += 1
P().feed(open(sys.argv[1]).read())
for k, v in c.items(): print("%s=%d" % (k, v))
print("rendered=%s" % body.get("data-rendered", "no"))
for k, v in body.items():
    if k.startswith("data-"): print("%s=%s" % (k, v))
PYEOF
}

t_begin "show: --html in headless Chromium: a lane per CPU, a mark per record, the trigger"
if [ -z "$CHROMIUM" ]; then
	t_skip "no chromium (Debian packages chromium, chromium-driver: make check installs them)"
else
	check_match "self-contained: no external script, style or link" \
		"$(grep -ciE '<script[^>]+src=|<link|@import|url\(http' "$TMP/show.html")" '^0$'
	if chromium_dom "$TMP/show.html" "$TMP/dom.html"; then
		d=$(dom_counts "$TMP/dom.html")
		check_eq "scripts ran" "$(grep '^rendered=' <<<"$d")" "rendered=yes"
		check_eq "lanes (one per CPU)" "$(grep '^lane=' <<<"$d")" "lane=$ncpu"
		check_eq "marks (one per record)" "$(grep '^mark=' <<<"$d")" "mark=$nrec"
		check_eq "the page's own count" "$(grep '^data-marks=' <<<"$d")" "data-marks=$nrec"
		check_eq "trigger marker" "$(grep '^trigger=' <<<"$d")" "trigger=1"
		check_eq "latency span" "$(grep '^latency=' <<<"$d")" "latency=1"
		check_match "task runs drawn" "$(grep '^run=' <<<"$d")" '^run=[1-9][0-9]*$'
		check_eq "no external resource" "$(grep '^ext=' <<<"$d")" "ext=0"
	else
		t_fail "chromium --dump-dom failed: $(log_tail "$TMP/dom.html.err")"
	fi
	# #selftest: the page hovers the trigger's mark, zooms with the wheel there, drags, resets
	if chromium_dom "$TMP/show.html" "$TMP/dom2.html" "#selftest"; then
		d=$(dom_counts "$TMP/dom2.html")
		check_match "hover on the trigger's mark shows its event and fields" "$(grep '^data-tip=' <<<"$d")" \
			"^data-tip=syscalls:sys_exit_nanosleep 0 ns from the trigger$(fmt_ns "$tt") CPU $(j trigger.cpu)trigwork $(j trigger.pid)/$TID.*ret=0$"
		check_match "wheel zooms in" "$(grep '^data-zoom=' <<<"$d")" '^data-zoom=([2-9]|[1-9][0-9]+)\.[0-9]+$'
		check_eq "around the cursor: the trigger stays in view" "$(grep '^data-trig-in-view=' <<<"$d")" "data-trig-in-view=yes"
		check_eq "dragging right shows earlier times" "$(grep '^data-pan=' <<<"$d")" "data-pan=left"
		check_eq "double-click shows the whole window" "$(grep '^data-reset=' <<<"$d")" "data-reset=yes"
	else
		t_fail "chromium --dump-dom #selftest failed: $(log_tail "$TMP/dom2.html.err")"
	fi
	rm -f "$OUTDIR/show.png"
	timeout -k 5 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$TMP/chromium" --hide-scrollbars --window-size=1400,1000 \
		--screenshot="$OUTDIR/show.png" "file://$TMP/show.html" >"$TMP/shot.log" 2>&1
	check_match "screenshot tests/out/show.png is a PNG" "$(head -c 8 "$OUTDIR/show.png" 2>/dev/null | od -An -c | tr -d ' ')" '^211PNG'
	cp "$TMP/show.html" "$OUTDIR/show.html" 2>/dev/null
fi
t_end

# ---- snapshot 2: a rate trigger with a post window, zstd ----

D2=$TMP/rate
tr_run "$TMP/rate.log" -z 3 -m 1M --no-final-snapshot -o "$D2" \
	-e syscalls:sys_enter_getpgid,sched:sched_switch \
	--trigger 'rate syscalls:sys_enter_getpgid by tid > 50/50ms post 5ms name burst' \
	-- "$TRIGWORK" -o "$TMP/marks2" getpgid 3 20 nsleep 2 getpgid 4 100 nsleep 20
rc=$?
G=$(snaps "$D2" burst | head -1)
t_begin "show: a rate trigger's count and window, the post window, zstd"
check_eq "trigrec exit ($(log_tail "$TMP/rate.log"))" "$rc" 0
if [ -n "$G" ] && json_load "${G%.data}.json"; then
	"$TRIGREC" show --html "$TMP/rate.html" --chrome-json "$TMP/rate.json" "${G%.data}.json" >"$TMP/rate.out" 2>"$TMP/rate.err"
	check_eq "exit ($(log_tail "$TMP/rate.err"))" "$?" 0
	decode "$G" >"$TMP/rate.tsv"
	tg=$(j trigger.time_ns) ws=$(j trigger.rate.window_start_ns)
	check_eq "trigger line" "$(grep -m1 '^trigger' "$TMP/rate.out")" "trigger   burst (rate trigger)"
	check_match "rate line" "$(grep -m1 '^  rate' "$TMP/rate.out")" \
		"^  rate    $(j trigger.rate.count) events in .*, over the threshold of 50 \(key tid\), from $(fmt_ns "$ws") to $(fmt_ns "$tg")$"
	check_eq "count over the threshold" "$(j trigger.rate.count)" 51
	check_eq "post line" "$(grep -m1 '^  post' "$TMP/rate.out")" "  post    5.000 ms after the trigger, to $(fmt_ns $((tg + 5000000)))"
	check_match "window line" "$(grep -m1 '^window' "$TMP/rate.out")" ", $(wc -l <"$TMP/rate.tsv") records \(samples\), zstd-compressed$"
	check_match "last record of the thread: the trigger (pid=4)" \
		"$(grep -- '<- trigger$' "$TMP/rate.out")" 'syscalls:sys_enter_getpgid +__syscall_nr=[0-9]+ pid=4  <- trigger$'
	check_cmd "chrome json" "$PY" -m json.tool "$TMP/rate.json"
	if [ -n "$CHROMIUM" ] && chromium_dom "$TMP/rate.html" "$TMP/rdom.html"; then
		d=$(dom_counts "$TMP/rdom.html")
		check_eq "marks" "$(grep '^mark=' <<<"$d")" "mark=$(wc -l <"$TMP/rate.tsv")"
		check_eq "rate span" "$(grep '^rate=' <<<"$d")" "rate=1"
		check_eq "post span" "$(grep '^post=' <<<"$d")" "post=1"
	fi
else
	t_fail "no snapshot 'burst': $(log_tail "$TMP/rate.log")"
fi
t_end

t_begin "show: --max-records: the page and the trace hold the records nearest the trigger"
if [ -n "$G" ] && json_load "${G%.data}.json"; then
	"$TRIGREC" show --max-records 20 --html "$TMP/cut.html" --chrome-json "$TMP/cut.json" "$G" \
		>/dev/null 2>"$TMP/cut.err"
	check_eq "exit ($(log_tail "$TMP/cut.err"))" "$?" 0
	tg=$(j trigger.time_ns) n=$(wc -l <"$TMP/rate.tsv")
	check_match "said on stderr" "$(cat "$TMP/cut.err")" \
		"--html and --chrome-json: the 20 records nearest the trigger \\(.*\\) of $n; --max-records 0 for all"
	# perf script's records: k up to and with the trigger's own, then the post window;
	# three quarters of the room (15) before, the rest after
	k=$(awk -v tg="$tg" '$1 < tg' "$TMP/rate.tsv" | wc -l)
	k=$((k + 1)) after=$((n - k))
	ka=$((after < 5 ? after : 5))
	kb=$((k < 20 - ka ? k : 20 - ka))
	ka=$((after < 20 - kb ? after : 20 - kb))
	first=$(sed -n "$((k - kb + 1))p" "$TMP/rate.tsv" | cut -f1)
	last=$(sed -n "$((k + ka))p" "$TMP/rate.tsv" | cut -f1)
	res=$("$PY" - "$TMP/cut.json" <<'PYEOF'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
inst = sorted(e["ts"] for e in ev if e["ph"] == "i" and e.get("s") == "t")
print("%d %.3f %.3f" % (len(inst), inst[0], inst[-1]))
PYEOF
)
	check_eq "trace: 20 instants, from perf script's record $((k - kb + 1)) to $((k + ka))" "$res" \
		"20 $((first / 1000)).$(printf %03d $((first % 1000))) $((last / 1000)).$(printf %03d $((last % 1000)))"
	check_match "the page says it is cut" "$(cat "$TMP/cut.html")" "This page holds the 20 records nearest the trigger, of $n "
	if [ -n "$CHROMIUM" ] && chromium_dom "$TMP/cut.html" "$TMP/cdom.html"; then
		d=$(dom_counts "$TMP/cdom.html")
		check_eq "page: marks" "$(grep '^mark=' <<<"$d")" "mark=20"
		check_eq "page: the trigger" "$(grep '^trigger=' <<<"$d")" "trigger=1"
	fi
	"$TRIGREC" show --max-records 0 --chrome-json "$TMP/all.json" "$G" >/dev/null 2>"$TMP/all.err"
	check_eq "--max-records 0: exit" "$?" 0
	check_eq "--max-records 0: every record, nothing said" \
		"$("$PY" -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "i" and e.get("s") == "t"))' "$TMP/all.json") $(grep -c nearest "$TMP/all.err")" "$n 0"
	"$TRIGREC" show --max-records 12k "$G" >/dev/null 2>"$TMP/cut.bad"
	check_eq "--max-records 12k: exit" "$?" 2
	check_match "--max-records 12k: says why" "$(cat "$TMP/cut.bad")" "max-records"
else
	t_fail "no snapshot 'burst' to cut"
fi
t_end

# ---- snapshot 3: a process named with terminal escapes opens a path with them ----

D3=$TMP/esc
tr_run "$TMP/esc.log" -m 1M --no-final-snapshot -o "$D3" \
	--trigger 'rate syscalls:sys_enter_openat by str(filename) > 5/1s name esc' \
	-- "$PY" -c '
import os, time
with open("/proc/self/comm", "w") as f:
    f.write("\x1b]2;pwn\x07x")
for i in range(20):
    try:
        os.close(os.open("/nonexistent-\x1b[2J", os.O_RDONLY))
    except OSError:
        pass
time.sleep(0.2)
'
rc=$?
E=$(snaps "$D3" esc | head -1)
t_begin "show: a comm and a str() key with terminal escapes are printed with '?' for them"
check_eq "trigrec exit ($(log_tail "$TMP/esc.log"))" "$rc" 0
if [ -n "$E" ]; then
	# the sidecar keeps them (escaped as JSON): show must not give them back raw
	check_match "the sidecar has the ESC" "$(cat "${E%.data}.json")" '\\u001b\]2;pwn\\u0007x'
	"$TRIGREC" show "$E" >"$TMP/esc.out" 2>"$TMP/esc.err"
	check_eq "exit ($(log_tail "$TMP/esc.err"))" "$?" 0
	check_eq "control characters in the report (but newlines)" \
		"$(LC_ALL=C tr -d '\n' <"$TMP/esc.out" | LC_ALL=C tr -dc '\000-\037\177' | wc -c)" 0
	check_match "fired by" "$(grep -m1 '^  fired' "$TMP/esc.out")" ' by \?\]2;pwn\?x pid '
	check_eq "key line" "$(grep -m1 '^  key' "$TMP/esc.out")" \
		'  key     "/nonexistent-?[2J" (the text of the str() key part)'
	check_match "the thread's name in its records" "$(grep -m1 '^last ' "$TMP/esc.out")" \
		'^last [0-9]+ records? of \?\]2;pwn\?x '
else
	t_fail "no snapshot 'esc': $(log_tail "$TMP/esc.log")"
fi
t_end

t_begin "show: errors say what is wrong"
"$TRIGREC" show "$TMP/nope.data" >/dev/null 2>"$TMP/e1"
check_eq "missing file: exit" "$?" 1
check_match "missing file: message" "$(cat "$TMP/e1")" "cannot read snapshot $TMP/nope.data: .*No such file"
head -c 300 /dev/zero >"$TMP/zero.data"
"$TRIGREC" show "$TMP/zero.data" >/dev/null 2>"$TMP/e2"
check_eq "unfinished file: exit" "$?" 1
check_match "unfinished file: message" "$(cat "$TMP/e2")" "not a perf.data file .*a write that never finished"
"$TRIGREC" show >/dev/null 2>"$TMP/e3"
check_eq "no FILE: exit" "$?" 2
"$TRIGREC" show "$F" "$F" >/dev/null 2>"$TMP/e4"
check_eq "two FILEs: exit" "$?" 2
# a .data without its sidecar is still told (what the perf.data has)
cp "$F" "$TMP/alone.data"
"$TRIGREC" show "$TMP/alone.data" >"$TMP/alone.out" 2>&1
check_eq "without a sidecar: exit" "$?" 0
check_match "without a sidecar: said" "$(cat "$TMP/alone.out")" "sidecar   none: $TMP/alone.json: No such file"
check_match "without a sidecar: records" "$(cat "$TMP/alone.out")" ", $nrec records \(samples\)"
t_end
