#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# str(FIELD): the text behind a syscall's char * argument (user memory),
# compared in the trigger engine. openat(2) calls made by trigwork with the
# path in a page it has just written fire exactly the conditions they match
# (glob prefix, ==, suffix with a negation); the same path in a page that is
# mapped but not yet faulted in (the kernel faults it in itself, after the
# tracepoint) and in a PROT_NONE page cannot be read by BPF: no match, no
# snapshot, and each trigger's str_faults counter goes up by exactly one
# (read from `trigrec control SOCK stats` around the step).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/trig_lib.sh"
need_root
need_trigwork

D=$TMP/out
SOCK=$TMP/ctl.sock
# A directory the glob matches, made by the test; everything else lives in
# $TMP (/tmp/trigrec-trig_str.XXXXXX), which it does not match.
MD=/tmp/trigrec-test-$$
mkdir -p "$MD" && : >"$MD/a" && : >"$MD/b" && : >"$MD/c" || exit 1
trap 'rm -rf "$MD"; _cleanup; exit $?' EXIT
: >"$TMP/other" && : >"$TMP/e" && : >"$TMP/x-sfx" && : >"$TMP/nope-sfx" || exit 1
: >"$TMP/rr1" && : >"$TMP/rr2" || exit 1
EQ=$TMP/e
if [ ${#EQ} -gt 31 ]; then
	t_begin "str: setup"
	t_fail "$EQ is longer than a string constant (31 bytes)"
	t_end
	exit 1
fi

# sf NAME: NAME's str_faults from a fresh `control stats`.
sf() {
	timeout -k 2 10 "$TRIGREC" control "$SOCK" stats 2>/dev/null |
		sed -n "s/.*; $1 evaluated [^;]* str_faults \([0-9]*\).*/\1/p"
}
faults() { echo "$(sf sglob) $(sf seq) $(sf ssuf)"; }
add1() { local a b c; read -r a b c <<<"$1"; echo "$((a + 1)) $((b + 1)) $((c + 1))"; }

t_begin "str: trigrec starts with str() filters"
if ! tw_start "$TMP/log" "$D" -e syscalls:sys_enter_openat --control "$SOCK" --no-final-snapshot \
	--metrics-file "$TMP/metrics.prom" \
	--trigger 'syscalls:sys_enter_openat if str(filename) ~ "/tmp/trigrec-test-*" name sglob' \
	--trigger "syscalls:sys_enter_openat if str(filename) == \"$EQ\" name seq" \
	--trigger 'syscalls:sys_enter_openat if str(filename) ~ "*-sfx" && !(str(filename) ~ "*nope*") name ssuf' \
	--trigger 'rate syscalls:sys_enter_openat if str(filename) ~ "*/rr*" by str(filename) > 2/10s name srate'; then
	t_fail "trigrec did not start: $(log_tail "$TMP/log")"
	t_end
	exit 1
fi
t_end

t_begin "str: paths that match no condition fire nothing and fault nothing"
f0=$(faults)
check_match "counters readable" "$f0" '^[0-9]+ [0-9]+ [0-9]+$'
tw openat fresh "$TMP/other"
tw openat fresh "$TMP/nope-sfx"
tw openat fresh "$MD"x # /tmp/trigrec-test-PIDx: matches the glob, but does not exist
check_eq "str_faults (sglob seq ssuf)" "$(faults)" "$f0"
t_end
# The last step matched sglob (ENOENT does not matter: the tracepoint is at entry).
t_begin "str: a path in a just-written page fires the glob"
wait_snaps "$D" sglob 1 || t_fail "no sglob snapshot after openat of ${MD}x"
tw openat fresh "$MD/a"
wait_snaps "$D" sglob 2 || t_fail "no second sglob snapshot after openat of $MD/a"
if [ "$(nsnaps "$D" sglob)" = 2 ]; then
	json_load "$(snaps "$D" sglob | tail -1 | sed 's/\.data$/.json/')"
	check_eq "trigger.event" "$(j trigger.event)" syscalls:sys_enter_openat
	check_ge "trigger.time_ns >= the openat's start" "$(j trigger.time_ns)" "$(mk openat "path=$MD/a " t)"
	check_le "trigger.time_ns <= the openat's end" "$(j trigger.time_ns)" "$(mk openat "path=$MD/a " t_end)"
fi
t_end

t_begin "str: == and a suffix glob with a negation fire on their paths only"
tw openat fresh "$EQ"
wait_snaps "$D" seq 1 || t_fail "no seq snapshot after openat of $EQ"
tw openat fresh "$TMP/x-sfx"
wait_snaps "$D" ssuf 1 || t_fail "no ssuf snapshot after openat of $TMP/x-sfx"
t_end

t_begin "str: rate by str(filename) counts each text apart; the sidecar and show name it"
tw openat fresh "$TMP/rr1"
tw openat fresh "$TMP/rr2"
tw openat fresh "$TMP/rr1"
tw openat fresh "$TMP/rr2"
check_eq "srate snapshots after two opens of each path (not > 2 for either key)" "$(nsnaps "$D" srate)" 0
tw openat fresh "$TMP/rr1"
if wait_snaps "$D" srate 1 && one_snap "$D" srate; then
	check_eq "trigger.rate.count" "$(j trigger.rate.count)" 3
	check_eq "trigger.rate.key" "$(j trigger.rate.key)" "str(filename)"
	check_eq "trigger.rate.key_text" "$(j trigger.rate.key_text)" "$TMP/rr1"
	check_match "trigrec show" "$("$TRIGREC" show "$SNAP" 2>&1 | grep '^  key ')" \
		"^  key     \"$TMP/rr1\" \(the text of the str\(\) key part\)$"
else
	t_fail "no srate snapshot after the third open of $TMP/rr1"
fi
t_end

t_begin "str: a path in a page not yet faulted in is no match, counted as a fault"
f1=$(faults)
tw openat unfaulted "$MD/b"
check_eq "the kernel opened it (it faults the page in itself)" "$(mk openat "mode=unfaulted path=$MD/b " errno)" 0
check_eq "str_faults (sglob seq ssuf) +1 each" "$(faults)" "$(add1 "$f1")"
t_end

t_begin "str: a PROT_NONE pointer is no match, counted as a fault"
f2=$(faults)
tw openat protnone "$MD/b"
check_eq "openat failed with EFAULT" "$(mk openat "mode=protnone" errno)" 14
check_eq "str_faults (sglob seq ssuf) +1 each" "$(faults)" "$(add1 "$f2")"
t_end

t_begin "str: trigrec status shows each trigger's str() faults (text and JSON)"
n=$(sf sglob)
check_match "status" "$(timeout 10 "$TRIGREC" status "$SOCK" 2>&1 | grep '^trigger sglob:')" \
	"^trigger sglob: fired 2, .*, str\(\) faults $n$"
check_match "status --json" "$(timeout 10 "$TRIGREC" status --json "$SOCK" 2>&1)" \
	"\{\"name\":\"sglob\",[^}]*\"str_faults\":$n\}"
t_end

t_begin "str: no snapshot fired for the faults; the next readable path fires again"
tw openat fresh "$MD/c"
wait_snaps "$D" sglob 3 || t_fail "no sglob snapshot after openat of $MD/c"
check_eq "sglob snapshots" "$(nsnaps "$D" sglob)" 3
check_eq "seq snapshots" "$(nsnaps "$D" seq)" 1
check_eq "ssuf snapshots" "$(nsnaps "$D" ssuf)" 1
json_load "$(snaps "$D" sglob | tail -1 | sed 's/\.data$/.json/')"
check_ge "3rd sglob snapshot is the openat of $MD/c (after the faulting steps)" \
	"$(j trigger.time_ns)" "$(mk openat "path=$MD/c " t)"
tw_end
check_eq "trigrec exit code (log: $(log_tail "$TMP/log"))" "$TR_RC" 0
stats_load "$TMP/log"
check_stats sglob fired=3 coalesced=0
check_stats seq fired=1
check_stats ssuf fired=1
check_stats srate fired=1 matched=1
# Exit totals include whatever trigwork's loader opened before it ran (not
# necessarily faulted in), so at least the two faults made on purpose.
check_ge "sglob: str() faults in the exit summary" "$(st sglob strfaults)" 2
# The metrics file is written at stop: the same totals.
for n in sglob seq ssuf; do
	check_eq "metric trigrec_trigger_str_faults_total{trigger=\"$n\"}" \
		"$(sed -n "s/^trigrec_trigger_str_faults_total{trigger=\"$n\"} //p" "$TMP/metrics.prom")" \
		"$(st $n strfaults)"
done
t_end
