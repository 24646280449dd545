#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tools/layers.sh (`make lint`): the tree keeps its layers, and the check
# fails, naming file and line, on copies of the tree with an include
# against the order, a cycle of headers, a folder the order does not name,
# or no order at all. Reads the tree only:
# trigrec-test: no-root
. "$(dirname "$0")/lib.sh"

LAYERS=$ROOT/tools/layers.sh

# A copy of what the check reads (the map, src/) in $TMP/NAME.
copy_tree() {
	mkdir -p "$TMP/$1/docs" &&
		cp "$ROOT/docs/CONTRIBUTING.md" "$TMP/$1/docs/" &&
		cp -r "$ROOT/src" "$TMP/$1/"
}

# added_include NAME FILE HEADER: the check on a copy of the tree in which
# src/FILE ends with an include of HEADER; sets out, rc and line (FILE's
# line of the include).
added_include() {
	copy_tree "$1" || t_fail "cannot copy the tree into $TMP/$1"
	printf '#include "%s"\n' "$3" >>"$TMP/$1/src/$2"
	line=$(wc -l <"$TMP/$1/src/$2")
	out=$("$LAYERS" "$TMP/$1" 2>&1)
	rc=$?
}

t_begin "layers: the tree includes only downward, with no cycle"
out=$("$LAYERS" "$ROOT" 2>&1)
rc=$?
check_eq "exit status (output: $out)" "$rc" 0
check_match "says what it checked" "$out" '^layers: ok: [0-9]+ includes across folders, all downward in cli .* util$'
t_end

t_begin "layers: an include of a higher folder fails, naming file and line"
# util/ is the bottom layer: a header of cli/ (the top) is against the order.
added_include up util/log.h cli/cli.h
check_eq "exit status" "$rc" 1
check_match "names the file, the line and the folders" "$out" \
	"^src/util/log.h:$line: includes cli/cli.h, but cli/ is above util/ in the layer order"
check_match "names the cycle it makes" "$out" '^cycle of folders: .*cli.*util|^cycle of folders: .*util.*cli'
check_match "says it failed, with the order" "$out" '^layers: FAILED: the order is cli .* util'
t_end

t_begin "layers: a cycle of headers in one folder fails"
copy_tree cyc || t_fail "cannot copy the tree into $TMP/cyc"
printf '#include "util/a_cyc.h"\n' >"$TMP/cyc/src/util/b_cyc.h"
printf '#include "util/b_cyc.h"\n' >"$TMP/cyc/src/util/a_cyc.h"
out=$("$LAYERS" "$TMP/cyc" 2>&1)
rc=$?
check_eq "exit status" "$rc" 1
check_match "names both headers" "$out" \
	'^cycle of headers: (src/util/a_cyc.h, src/util/b_cyc.h|src/util/b_cyc.h, src/util/a_cyc.h) include each other'
check_nomatch "no include against the order" "$out" ': includes .* but '
t_end

t_begin "layers: lang/ including the code that creates probes fails, naming file and line"
# capture/ is below lang/: the order allows it, the purity rule does not.
added_include lang lang/trigger_compile.c capture/probes.h
check_eq "exit status" "$rc" 1
check_match "names the file, the line and the way" "$out" \
	"^src/lang/trigger_compile.c:$line: includes capture/probes.h, but lang/ reads only capture/tracefs.h and capture/probe_spec.h"
check_nomatch "no include against the order" "$out" ', but [a-z_]*/ is above '
t_end

t_begin "layers: a folder missing from the order fails, saying where to add it"
copy_tree new || t_fail "cannot copy the tree into $TMP/new"
mkdir -p "$TMP/new/src/newdir"
printf '#include "util/log.h"\n' >"$TMP/new/src/newdir/x.c"
out=$("$LAYERS" "$TMP/new" 2>&1)
rc=$?
check_eq "exit status" "$rc" 1
check_match "names the folder and the fix" "$out" '^src/newdir/: not in the layer order: add its line to the folder list of docs/CONTRIBUTING.md'
t_end

t_begin "layers: a map without the folder list is refused, saying what it looks for"
copy_tree nomap || t_fail "cannot copy the tree into $TMP/nomap"
sed -i 's/^### Userspace.*/### Something else/' "$TMP/nomap/docs/CONTRIBUTING.md"
out=$("$LAYERS" "$TMP/nomap" 2>&1)
rc=$?
check_eq "exit status" "$rc" 2
check_match "says what it looks for" "$out" 'no folder list under "### Userspace"'
t_end
