#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The .json sidecar: valid JSON that agrees with the .data beside it (trigger
# decoded with its tracefs format, window, per-CPU rings, file name).
. "$(dirname "$0")/lib.sh"
need_root

N=20000 TRIG=10000 BASE=$(seq_base)
D=$TMP/out
tr_run "$TMP/log" -e syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid \
	--trigger syscalls:sys_enter_getsid -m 64K -o "$D" -- "$SEQGEN" -n $N -t $TRIG -b "$BASE"
rc=$?
F=$(snaps "$D" sys_enter_getsid | head -1)
G=$(snaps "$D" final | head -1)

t_begin "sidecar: trigger and final sidecars are valid JSON"
check_eq "exit code (log: $(log_tail "$TMP/log"))" "$rc" 0
for f in "$F" "$G"; do
	if [ -z "$f" ] || [ ! -e "${f%.data}.json" ]; then
		t_fail "missing snapshot or sidecar in $(ls "$D" | tr '\n' ' ')"
		continue
	fi
	check_cmd "json.tool $(basename "${f%.data}.json")" "$PY" -m json.tool "${f%.data}.json"
done
t_end
if [ -z "$F" ] || ! json_load "${F%.data}.json"; then
	t_blocked "sidecar: content" "no readable trigger sidecar: ${J[error]-}"
	exit 1
fi
decode "$F" >"$TMP/trig.tsv"
trig_rec=$(awk -F'\t' '$5 == "syscalls:sys_enter_getsid"' "$TMP/trig.tsv")

t_begin "sidecar: the trigger's fields are decoded"
check_eq "trigger.fields.pid" "$(j trigger.fields.pid)" $((BASE + TRIG))
[ "$(uname -m)" = x86_64 ] && check_eq "trigger.fields.__syscall_nr (getsid)" "$(j trigger.fields.__syscall_nr)" 124
check_eq "trigger.event" "$(j trigger.event)" syscalls:sys_enter_getsid
check_eq "trigger.name" "$(j trigger.name)" sys_enter_getsid
check_eq "trigger.text" "$(j trigger.text)" syscalls:sys_enter_getsid
check_eq "trigger.id" "$(j trigger.id)" 0
check_eq "trigger.comm" "$(j trigger.comm)" seqgen
check_eq "trigger.pid = the getsid record's pid" "$(j trigger.pid)" "$(cut -f3 <<<"$trig_rec")"
check_eq "trigger.tid = the getsid record's tid" "$(j trigger.tid)" "$(cut -f4 <<<"$trig_rec")"
check_eq "trigger.cpu = the getsid record's cpu" "$(j trigger.cpu)" "$(cut -f2 <<<"$trig_rec")"
check_eq "coalesced_triggers" "$(j coalesced_triggers)" 0
t_end

t_begin "sidecar: the window matches the records"
start=$(j window.start_ns) end=$(j window.end_ns)
check_ge "window end >= start" "$end" "$start"
check_gt "window start" "$start" 0
check_eq "window duration" "$(j window.duration_ns)" $((end - start))
check_eq "window start = first record" "$start" "$(head -1 "$TMP/trig.tsv" | cut -f1)"
check_eq "window end = last record" "$end" "$(tail -1 "$TMP/trig.tsv" | cut -f1)"
check_le "trigger time <= window end" "$(j trigger.time_ns)" "$end"
check_ge "trigger time >= window start" "$(j trigger.time_ns)" "$start"
check_eq "window.post_ns" "$(j window.post_ns)" 0
check_eq "window.aligned" "$(j window.aligned)" true
t_end

t_begin "sidecar: per CPU one main ring (or two ring sets) and one tracking ring, sums add up"
ncpu=${J[cpus#]:-0}
recs=0 bytes=0 mains="" tracks="" set0="" set1=""
RINGS=$(j rings)
check_match "rings" "$RINGS" '^(bpf|perf|compact)$'
# ring_sets.records counts every record converted, also those the window
# then leaves out (after the cut: many more on a slow machine, e.g. under
# ASan), so it is at least what the set rings kept (docs/sidecar.md).
check_ge "ring_sets.records >= set records kept" "$(j ring_sets.records)" \
	"$(for ((i = 0; i < ncpu; i++)); do case $(j cpus.$i.ring) in set*) j cpus.$i.records; echo ;; esac; done | awk '{ s += $1 } END { print s + 0 }')"
for ((i = 0; i < ncpu; i++)); do
	recs=$((recs + $(j cpus.$i.records)))
	bytes=$((bytes + $(j cpus.$i.bytes)))
	case $(j cpus.$i.ring) in
	main)
		mains+="$(j cpus.$i.cpu) "
		check_eq "cpu $(j cpus.$i.cpu) main ring_bytes (-m 64K)" "$(j cpus.$i.ring_bytes)" 65536
		check_le "cpu $(j cpus.$i.cpu) bytes <= ring" "$(j cpus.$i.bytes)" 65536 ;;
	set0 | set1)
		[ "$(j cpus.$i.ring)" = set0 ] && set0+="$(j cpus.$i.cpu) " || set1+="$(j cpus.$i.cpu) "
		check_eq "cpu $(j cpus.$i.cpu) $(j cpus.$i.ring) ring_bytes (-m 64K)" "$(j cpus.$i.ring_bytes)" 65536 ;;
	compact | carry) # rings=compact: the byte ring (-m) and its spare's carry (1/8)
		[ "$(j cpus.$i.ring)" = compact ] && set0+="$(j cpus.$i.cpu) " || set1+="$(j cpus.$i.cpu) "
		check_eq "cpu $(j cpus.$i.cpu) $(j cpus.$i.ring) ring_bytes (-m 64K)" "$(j cpus.$i.ring_bytes)" \
			"$([ "$(j cpus.$i.ring)" = compact ] && echo 65536 || echo 8192)" ;;
	tracking) tracks+="$(j cpus.$i.cpu) " ;;
	*) t_fail "cpus.$i.ring: '$(j cpus.$i.ring)'" ;;
	esac
	check_match "cpus.$i.wrapped" "$(j cpus.$i.wrapped)" '^(true|false)$'
done
online=$(seq 0 $(($(nproc --all) - 1)) | tr '\n' ' ')
[ -r /sys/devices/system/cpu/online ] &&
	online=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); for (c = r[1]; c <= r[n]; c++) printf "%d ", c } }' /sys/devices/system/cpu/online)
if [ "$RINGS" = bpf ] || [ "$RINGS" = compact ]; then
	# Every recorded event here is a tracepoint without --filter: BPF writes them all.
	check_eq "CPUs with a main ring (rings=bpf: none)" "$mains" ""
	check_eq "CPUs with ring set 0" "$set0" "$online"
	check_eq "CPUs with ring set 1" "$set1" "$online"
else
	check_eq "CPUs with a main ring" "$mains" "$online"
fi
check_eq "CPUs with a tracking ring" "$tracks" "$online"
check_eq "sum of per-ring records" "$recs" "$(j records)"
check_eq "sum of per-ring bytes" "$bytes" "$(j bytes)"
read -r mrec _ _ < <(main_rings)
check_eq "main-ring records = samples in the .data" "$mrec" "$(wc -l <"$TMP/trig.tsv")"
t_end

t_begin "sidecar: names its .data, whose name is the trigger's wall time"
check_eq "file" "$(j file)" "$F"
w=$(j trigger.wall_time_ns)
if _isnum "$w"; then
	stamp=$(date -d "@$((w / 1000000000))" +%Y%m%d-%H%M%S).$(printf %06d $((w % 1000000000 / 1000)))
	check_eq "file name" "$(basename "$F")" "$stamp-sys_enter_getsid.data"
else
	t_fail "trigger.wall_time_ns: '$w'"
fi
t_end

t_begin "sidecar: final snapshot's sidecar"
if [ -n "$G" ] && json_load "${G%.data}.json"; then
	check_eq "trigger.name" "$(j trigger.name)" final
	check_eq "trigger.id" "$(j trigger.id)" -1
	check_ge "window end >= start" "$(j window.end_ns)" "$(j window.start_ns)"
	check_gt "window start after the trigger snapshot's end" "$(j window.start_ns)" "$end"
else
	t_fail "no final sidecar"
fi
t_end

t_begin "sidecar: --no-align is recorded as aligned: false"
tr_run "$TMP/log2" -e syscalls:sys_enter_getpgid,syscalls:sys_enter_getsid --no-align \
	--trigger syscalls:sys_enter_getsid -m 64K -o "$TMP/na" --no-final-snapshot \
	-- "$SEQGEN" -n 3000 -t 2000 -b "$BASE"
check_eq "exit code" "$?" 0
H=$(snaps "$TMP/na" sys_enter_getsid | head -1)
if [ -n "$H" ] && json_load "${H%.data}.json"; then
	check_eq "window.aligned" "$(j window.aligned)" false
else
	t_fail "no snapshot: $(log_tail "$TMP/log2")"
fi
t_end
