#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Help, man page and README tell the same story: the control socket's verbs
# (as `trigrec control -h` lists them, from CONTROL_VERBS in
# src/harvest/control.h) are in the top-level help, `record -h`, `run -h`,
# `control -h`, docs/trigrec.1 and the README; an option's default is the same
# in `record -h`, `run -h` and the man page, and, where --dump-script shows
# it, is the value a run really uses.
# Runs the binary for its help only:
# trigrec-test: no-root
. "$(dirname "$0")/lib.sh"

MAN=$ROOT/docs/trigrec.1
README=$ROOT/README.md
"$TRIGREC" -h >"$TMP/top.txt" 2>&1
"$TRIGREC" record -h >"$TMP/record.txt" 2>&1
"$TRIGREC" run -h >"$TMP/run.txt" 2>&1
"$TRIGREC" control -h >"$TMP/control.txt" 2>&1
"$TRIGREC" record --dump-script >"$TMP/dump.trig" 2>/dev/null

# The verbs: the words of control -h's usage line after SOCKET.
VERBS=$(head -1 "$TMP/control.txt" | sed 's/.*SOCKET //' | grep -o '[a-z]\+' | grep -vx 'json' | tr '\n' ' ')

# help_block FILE OPT: an option's rows in a help text (its line, then the
# indented continuation lines).
help_block() {
	awk -v o="--$2" '
		f && (/^  -/ || /^      --/ || /^$/ || /^[^ ]/) { exit }
		f { print }
		!f && index($0, o " ") && (/^  -/ || /^      --/) { f = 1; print }' "$1"
}

# man_block OPT: the option's paragraph in the man page (.B[IR] line to the next .TP).
man_block() {
	local o=${1//-/\\\\-}
	awk -v o="\\\\-\\\\-$o" '
		f && /^\.(TP|SH|PP)/ { exit }
		f { print }
		!f && /^\.B[IR]? / && index($0, o) { f = 1; print }' "$MAN" | sed 's/\\f[BIRP]//g; s/\\-/-/g'
}

# opts_of FILE: the long options a help text lists, one per line, sorted.
opts_of() { sed -nE 's/^(  -[A-Za-z0-9], |      )--([a-z][a-z0-9-]*).*/\2/p' "$1" | sort -u; }

t_begin "helpdocs: every option of record -h and run -h has its paragraph in the man page"
# record's options are the settings table's rows (src/session/settings.c) and
# record's own; -v, -q and -h are the global options the man page describes once.
man_opts=$(awk '/^\.SH OPTIONS/ {f = 1; next} /^\.SH/ {f = 0} f && /^\.B[IR]? /' "$MAN" |
	sed 's/\\-/-/g' | grep -o -- '--[a-z][a-z0-9-]*' | sed 's/^--//' | sort -u)
missing=$(cat "$TMP/record.txt" "$TMP/run.txt" >"$TMP/both.txt" && opts_of "$TMP/both.txt" |
	grep -vxE 'verbose|quiet|help' | comm -23 - <(printf '%s\n' "$man_opts") | tr '\n' ' ')
check_eq "options of record -h / run -h without a man page paragraph" "$missing" ""
t_end

t_begin "helpdocs: control -h names the verbs"
check_eq "verbs" "$VERBS" "snapshot stats status reload stop "
t_end

# every_verb NAME TEXT: each verb is in TEXT.
every_verb() {
	local v missing=
	for v in $VERBS; do
		grep -qw -- "$v" <<<"$2" || missing+="$v "
	done
	check_eq "$1: verbs missing" "$missing" ""
}

t_begin "helpdocs: every place that lists the control verbs lists them all"
every_verb "trigrec -h (control)" "$(grep '^  control ' "$TMP/top.txt")"
every_verb "record -h --control" "$(help_block "$TMP/record.txt" control)"
every_verb "run -h --control" "$(help_block "$TMP/run.txt" control)"
every_verb "man page --control" "$(man_block control)"
every_verb "man page, trigrec control" "$(awk '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/' "$MAN" | grep -A2 'trigrec control' | sed 's/\\f[BIRP]//g')"
every_verb "man page DESCRIPTION, trigrec control" "$(awk '/^\.B trigrec control$/ && d {f = 1} f && /^\.PP/ {exit} f {print} /^\.SH DESCRIPTION/ {d = 1}' "$MAN" | sed 's/\\f[BIRP]//g')"
every_verb "README (trigrec control PATH)" "$(grep 'trigrec control PATH' "$README")"
t_end

# default_of TEXT: the value after "default" ("default 1M", "(default 60s;").
default_of() { grep -io 'default[:]* [^ ;,)]*' <<<"$1" | head -1 | sed 's/^default[:]* //I; s/[.:]$//'; }

t_begin "helpdocs: record -h, run -h and the man page give each option the same default"
for o in freq mmap-pages post on-snapshot-timeout on-snapshot-jobs max-starts max-keys; do
	rec=$(default_of "$(help_block "$TMP/record.txt" "$o")")
	man=$(default_of "$(man_block "$o")")
	check_ne "record -h --$o states its default" "$rec" ""
	check_eq "--$o: default in the man page" "$man" "$rec"
	if grep -q -- "--$o " "$TMP/run.txt"; then
		check_eq "--$o: default in run -h" "$(default_of "$(help_block "$TMP/run.txt" "$o")")" "$rec"
	fi
done
t_end

t_begin "helpdocs: the defaults -h shows are the ones a run uses (--dump-script)"
check_eq "-m default vs buffer" "$(default_of "$(help_block "$TMP/record.txt" mmap-pages)")" \
	"$(sed -n 's/^buffer //p' "$TMP/dump.trig")"
# No post line: a trigger is cut at once (post 0).
post=$(sed -n 's/^post //p' "$TMP/dump.trig")
check_eq "--post default vs the run's" "$(default_of "$(help_block "$TMP/record.txt" post)")" "${post:-0}"
t_end
