#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Compression (-z, --compression-level N, script `compress zstd N`): the
# same numbered stream recorded plain, at level 1 and at level 19 decodes
# to the same perf script output; the compressed files hold only
# PERF_RECORD_COMPRESSED records (data size = what the sidecar says zstd
# wrote) and perf report --header-only shows the level and the ratio, as
# for perf record -z; perf report --stdio counts the same; a script's level
# and run's override reach the file; a bad level is refused before anything
# is loaded, naming the range.
. "$(dirname "$0")/lib.sh"
need_root
if ! command -v "$PERF" >/dev/null; then
	t_begin "compress"; t_skip "no perf"; t_end; exit 0
fi

BASE=$(seq_base)
N=40000 T=39990 # getpgid(BASE + i) for i < N, getsid(BASE + T) just before i == T

# take NAME ARGS...: record seqgen's stream with ARGS; sets SNAP (the .data).
take() {
	local name=$1 rc
	shift
	tr_run "$TMP/$name.log" -o "$TMP/$name" --no-final-snapshot -m 8M "$@" \
		-e syscalls:sys_enter_getpgid --filter "$(seq_filter)" \
		--trigger syscalls:sys_enter_getsid -- "$SEQGEN" -n $N -t $T -b "$BASE"
	rc=$?
	SNAP=$(snaps "$TMP/$name" sys_enter_getsid | head -1)
	check_eq "exit code (log: $(log_tail "$TMP/$name.log"))" "$rc" 0
	check_ne "snapshot" "$SNAP" ""
}

# The lines perf script prints for tracepoints, without what differs between
# two runs of the same stream (pid, time, cpu).
fields() { "$PERF" script -i "$1" -F trace:comm,event,trace 2>"$TMP/fields.err"; }

# rec_types FILE: "COUNT TYPE" per record type in the data section, by type.
rec_types() {
	"$PY" - "$1" <<'PY'
import struct, sys, collections
d = open(sys.argv[1], "rb").read()
off, size = struct.unpack_from("<QQ", d, 40)
n, end = collections.Counter(), off + size
while off < end:
    t, misc, sz = struct.unpack_from("<IHH", d, off)
    if sz < 8:
        print("bad record at", off); break
    n[t] += 1; off += sz
print(" ".join("%d %d" % (n[t], t) for t in sorted(n)))
PY
}

declare -A FILE
t_begin "compress: plain snapshot of the stream (the reference)"
take plain
FILE[plain]=$SNAP
if [ -n "$SNAP" ]; then
	decode "$SNAP" >"$TMP/plain.tsv"
	check_eq "stream (count first last missing disorder)" "$(seq_check "$TMP/plain.tsv" "$BASE")" "$T 0 $((T - 1)) 0 0"
	fields "$SNAP" >"$TMP/plain.fields"
	check_eq "compressed lines in its header" \
		"$("$PERF" report --header-only -i "$SNAP" 2>&1 | grep -c compressed)" 0
fi
t_end

for lv in 1 19; do
	if [ $lv = 1 ]; then opt=(-z); else opt=(--compression-level "$lv"); fi
	t_begin "compress: ${opt[*]} gives the same perf script output as the plain file"
	take z$lv "${opt[@]}"
	FILE[z$lv]=$SNAP
	if [ -n "$SNAP" ] && [ -n "${FILE[plain]}" ]; then
		decode "$SNAP" >"$TMP/z$lv.tsv"
		check_eq "stream (count first last missing disorder)" "$(seq_check "$TMP/z$lv.tsv" "$BASE")" "$T 0 $((T - 1)) 0 0"
		fields "$SNAP" >"$TMP/z$lv.fields"
		check_eq "perf script -F trace:comm,event,trace differs from the plain file's in" \
			"$(diff "$TMP/plain.fields" "$TMP/z$lv.fields" | grep -c '^[<>]')" 0
		check_eq "perf script lines" "$(grep -c . "$TMP/z$lv.fields")" "$(grep -c . "$TMP/plain.fields")"
		check_eq "perf script stderr" "$(head -c 300 "$TMP/fields.err")" ""
	fi
	t_end

	t_begin "compress: ${opt[*]} file is PERF_RECORD_COMPRESSED records, the header says level $lv"
	if [ -n "$SNAP" ] && json_load "${SNAP%.data}.json"; then
		hdr=$("$PERF" report --header-only -i "$SNAP" 2>&1)
		ratio=$(j compression.ratio)
		check_eq "sidecar level" "$(j compression.level)" $lv
		check_eq "sidecar method" "$(j compression.method)" zstd
		# every byte of the data section is a COMPRESSED record zstd wrote
		check_match "header data size" "$hdr" "^# data size +: $(j compression.bytes_out)\$"
		check_match "header compressed line" "$hdr" \
			"^# compressed : Zstd, level = $lv, ratio = $(printf '%.0f' "$ratio")\$"
		check_ge "COMPRESSED records" "$(j compression.records)" 2
		# the stream is 40000 near-identical records: zstd must do well on it
		check_gt "ratio x10" "$(awk -v r="$ratio" 'BEGIN { printf "%.0f", r * 10 }')" 50
		# the data section, walked: nothing but COMPRESSED (81) records
		check_eq "record types in the data section (count type)" "$(rec_types "$SNAP")" \
			"$(j compression.records) 81"
	else
		t_fail "no snapshot or sidecar: ${J[error]-}"
	fi
	t_end
done

# (On this stream, 40000 near-identical records, level 19 is no smaller than
# level 1: zstd's fast matcher already finds everything.)
t_begin "compress: levels 1 and 19 are both under a fifth of the plain file"
if [ -n "${FILE[plain]}" ] && [ -n "${FILE[z1]}" ] && [ -n "${FILE[z19]}" ]; then
	p=$(stat -c %s "${FILE[plain]}")
	check_lt "level 1 file vs plain/5" "$(stat -c %s "${FILE[z1]}")" $((p / 5))
	check_lt "level 19 file vs plain/5" "$(stat -c %s "${FILE[z19]}")" $((p / 5))
else
	t_fail "missing snapshots"
fi
t_end

t_begin "compress: perf report --stdio counts the same as for the plain file"
if [ -n "${FILE[plain]}" ] && [ -n "${FILE[z1]}" ]; then
	for k in plain z1; do
		timeout -k 5 "$TIMEOUT" "$PERF" report --stdio -i "${FILE[$k]}" --sort comm,dso -F overhead,sample,comm \
			>"$TMP/$k.report" 2>"$TMP/$k.report.err"
		check_eq "perf report ($k) exit" "$?" 0
	done
	check_match "samples line" "$(cat "$TMP/z1.report")" "^# Samples: "
	check_match "seqgen line" "$(cat "$TMP/z1.report")" "100\.00% +$T +seqgen"
	# perf report ends with a random "# (Tip: ...)" line: not part of the counts
	d=$(diff <(grep -v '^# \(Total Lost\|Samples\|Event count\|(Tip:\)' "$TMP/plain.report" | grep -v '^#$') \
		<(grep -v '^# \(Total Lost\|Samples\|Event count\|(Tip:\)' "$TMP/z1.report" | grep -v '^#$') | grep '^[<>]')
	check_eq "report body differs from the plain file's in ($(printf '%s' "$d" | tr '\n' '|' | cut -c1-300))" \
		"$(printf '%s' "$d" | grep -c .)" 0
else
	t_fail "missing snapshots"
fi
t_end

t_begin "compress: a script's 'compress zstd 3' reaches the file; run --compression-level overrides it"
cat >"$TMP/c.trig" <<EOF
record syscalls:sys_enter_getpgid if $(seq_filter)
buffer 1M
compress zstd 3
command $SEQGEN -n 2000 -t 1990 -b $BASE
trigger getsid { on syscalls:sys_enter_getsid }
EOF
check_match "dump of record -z 7" "$("$TRIGREC" record -z 7 -e sched:sched_switch --trigger sched:sched_process_exit --dump-script 2>&1)" "^compress zstd 7\$"
for ov in "" 5; do
	args=(); [ -n "$ov" ] && args=(--compression-level "$ov")
	timeout -k 5 "$TIMEOUT" "$TRIGREC" run "$TMP/c.trig" -o "$TMP/run$ov" --no-final-snapshot "${args[@]}" >"$TMP/run$ov.log" 2>&1
	check_eq "run ${args[*]} exit (log: $(log_tail "$TMP/run$ov.log"))" "$?" 0
	f=$(snaps "$TMP/run$ov" getsid | head -1)
	check_match "run ${args[*]}: header" "$("$PERF" report --header-only -i "$f" 2>&1)" \
		"^# compressed : Zstd, level = ${ov:-3}, "
	check_eq "run ${args[*]}: samples" "$("$PERF" script -i "$f" -F trace:event 2>/dev/null | grep -c getpgid)" 1990
done
t_end

t_begin "compress: a bad level is refused before anything is loaded, naming the range"
# (the value is optional: a word after it that is not a number is the command, so --x=abc)
for bad in " 23" =abc " 999999999999" =-1; do
	# shellcheck disable=SC2086 # " 23" splits on purpose: the level as its own word
	out=$(timeout -k 5 "$TIMEOUT" "$TRIGREC" record --compression-level$bad -e sched:sched_switch \
		--trigger sched:sched_process_exit -o "$TMP/bad" 2>&1)
	check_eq "record --compression-level$bad exit" "$?" 2
	bad=${bad#=}
	bad=${bad# }
	check_match "record --compression-level $bad" "$out" \
		"^trigrec: invalid -z/--compression-level: '$bad': zstd levels are 1 \(fastest, the default of perf record -z\) to 22 \(smallest\); 0 turns compression off\$"
done
out=$(timeout -k 5 "$TIMEOUT" "$TRIGREC" record -z23 -e sched:sched_switch --trigger sched:sched_process_exit 2>&1)
check_eq "record -z23 exit" "$?" 2
printf 'record sched:sched_switch\ncompress zstd 40\ntrigger t { on sched:sched_process_exit }\n' >"$TMP/bad.trig"
out=$("$TRIGREC" check "$TMP/bad.trig" 2>&1)
check_eq "check exit" "$?" 2
check_match "check" "$out" "bad.trig:2:15: compress zstd '40': zstd levels are 1 .* to 22 \(smallest\)"
printf 'record sched:sched_switch\ncompress gzip\ntrigger t { on sched:sched_process_exit }\n' >"$TMP/gz.trig"
check_match "check gzip" "$("$TRIGREC" check "$TMP/gz.trig" 2>&1)" "gz.trig:2:10: compress gzip: perf.data compresses only with zstd"
check_eq "nothing written" "$(ls -A "$TMP/bad" 2>/dev/null | wc -l)" 0
t_end
