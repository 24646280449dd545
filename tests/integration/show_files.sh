#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# trigrec show and the files it reads and writes, on the snapshots the unit
# tests write (tests/fuzz/corpus/perfdata/fixture-*, test_show.c's fixture):
#  - --html and --chrome-json are created 0600, never over an existing file
#    or through a symlink unless --force, which replaces the name (a
#    symlink there too) without following it;
#  - names with terminal escapes (in the file, in the sidecar, in the file
#    name itself) reach the terminal as '?';
#  - a crafted file is refused with the file, the offset and the record
#    type, and a FIFO in the snapshot's place is not waited on.
# Reads and writes files only (no BPF, no perf events):
# trigrec-test: no-root
. "$(dirname "$0")/lib.sh"

SEEDS=$ROOT/tests/fuzz/corpus
F=$TMP/snap.data
cp "$SEEDS/perfdata/fixture-plain" "$F"
cp "$SEEDS/sidecar/fixture-rate.json" "$TMP/snap.json"

# ctl FILE: the control bytes in FILE but newlines (0 for a clean report)
ctl() { LC_ALL=C tr -d '\n' <"$1" | LC_ALL=C tr -dc '\000-\037\177' | wc -c; }

t_begin "show_files: --html and --chrome-json are 0600 and never clobber or follow a symlink"
"$TRIGREC" show --html "$TMP/o.html" --chrome-json "$TMP/o.json" "$F" >/dev/null 2>"$TMP/e1"
check_eq "exit ($(log_tail "$TMP/e1"))" "$?" 0
check_eq "mode 0600 (umask $(umask))" "$(stat -c %a "$TMP/o.html") $(stat -c %a "$TMP/o.json")" "600 600"
echo keep >"$TMP/exists.html"
"$TRIGREC" show --html "$TMP/exists.html" "$F" >/dev/null 2>"$TMP/e2"
check_eq "existing file: exit" "$?" 1
check_match "existing file: says what to do" "$(cat "$TMP/e2")" \
	"--html $TMP/exists.html: the file exists \\(or a symlink is there\\): choose another path, or add --force to replace it"
check_eq "existing file: left alone" "$(cat "$TMP/exists.html")" keep
echo secret >"$TMP/target"
ln -s "$TMP/target" "$TMP/link.json"
"$TRIGREC" show --chrome-json "$TMP/link.json" "$F" >/dev/null 2>"$TMP/e3"
check_eq "symlink: exit" "$?" 1
check_eq "symlink: its target untouched" "$(cat "$TMP/target")" secret
ln -s "$TMP/dangling" "$TMP/dlink.html"
"$TRIGREC" show --html "$TMP/dlink.html" "$F" >/dev/null 2>"$TMP/e4"
check_eq "dangling symlink: exit" "$?" 1
check_eq "dangling symlink: nothing created through it" "$(test -e "$TMP/dangling" && echo created)" ""
"$TRIGREC" show --force --html "$TMP/exists.html" --chrome-json "$TMP/link.json" "$F" >/dev/null 2>"$TMP/e5"
check_eq "--force: exit ($(log_tail "$TMP/e5"))" "$?" 0
check_match "--force: the file replaced" "$(head -c 15 "$TMP/exists.html")" '^<!DOCTYPE html>'
check_eq "--force: the symlink replaced by a 0600 file, its target untouched" \
	"$(test -L "$TMP/link.json" || echo file) $(stat -c %a "$TMP/link.json" "$TMP/exists.html" | tr '\n' ' ')$(cat "$TMP/target")" \
	"file 600 600 secret"
check_cmd "--force: the trace is JSON" "$PY" -m json.tool "$TMP/link.json"
check_eq "--force: no temporary left" "$(find "$TMP" -maxdepth 1 \( -name 'exists.html.*' -o -name 'link.json.*' \) | wc -l)" 0
mkdir "$TMP/adir"
"$TRIGREC" show --force --html "$TMP/adir" "$F" >/dev/null 2>"$TMP/e6"
check_eq "--force onto a directory: exit" "$?" 1
check_match "--force onto a directory: says why" "$(cat "$TMP/e6")" "--html $TMP/adir: Is a directory"
check_eq "--force onto a directory: no temporary left" "$(find "$TMP" -maxdepth 1 -name 'adir.*' | wc -l)" 0
t_end

t_begin "show_files: terminal escapes in the file, the sidecar and the file name are '?'"
E=$TMP/esc$'\e'"]0;t"$'\a'.data
cp "$SEEDS/perfdata/fixture-escapes" "$E"
cp "$SEEDS/sidecar/fixture-escapes.json" "${E%.data}.json"
check_match "the sidecar has them (JSON-escaped)" "$(cat "${E%.data}.json")" '\\u001b\]2;root\\u0007'
"$TRIGREC" show "$E" >"$TMP/esc.out" 2>"$TMP/esc.err"
check_eq "exit ($(log_tail "$TMP/esc.err"))" "$?" 0
check_eq "control bytes in the report" "$(ctl "$TMP/esc.out")" 0
check_eq "snapshot line" "$(grep -m1 '^snapshot' "$TMP/esc.out")" "snapshot  $TMP/esc?]0;t?.data"
check_match "the trigger's comm" "$(grep -m1 '^  fired' "$TMP/esc.out")" ' by \?\]2;root\? pid 200 '
check_match "a COMM record's name" "$(cat "$TMP/esc.out")" 're\?\[31mnamed'
check_match "the host name" "$(grep -m1 '^host' "$TMP/esc.out")" '^host      h\?\]0;owned\?, Linux 6\.0$'
head -c 200 /dev/zero >"$TMP/z"$'\e'"[2J.data"
"$TRIGREC" show "$TMP/z"$'\e'"[2J.data" >/dev/null 2>"$TMP/esc2.err"
check_eq "unreadable file: exit" "$?" 1
check_eq "unreadable file: control bytes in the error" "$(ctl "$TMP/esc2.err")" 0
check_match "unreadable file: its name" "$(cat "$TMP/esc2.err")" "cannot read snapshot $TMP/z\\?\\[2J\\.data"
t_end

t_begin "show_files: a crafted file is refused with the offset and record type; a FIFO is not waited on"
# the fixture's first sample says CPU 0xffffffff (issue 28: written out of bounds before)
off=$("$PY" - "$F" "$TMP/cpu.data" <<'PYEOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
doff, dsize = struct.unpack_from("<QQ", b, 40)
o = doff
while o < doff + dsize:
    typ, misc, size = struct.unpack_from("<IHH", b, o)
    if typ == 9:  # PERF_RECORD_SAMPLE: IDENTIFIER TID TIME CPU RAW
        struct.pack_into("<I", b, o + 8 + 24, 0xffffffff)
        break
    o += size
open(sys.argv[2], "wb").write(b)
print(o)
PYEOF
)
"$TRIGREC" show "$TMP/cpu.data" >/dev/null 2>"$TMP/c.err"
check_eq "CPU 0xffffffff: exit" "$?" 1
check_match "CPU 0xffffffff: says where and what" "$(cat "$TMP/c.err")" \
	"$TMP/cpu.data: file offset $off: PERF_RECORD_SAMPLE of sched:sched_switch says CPU 4294967295, not below 8192"
mkfifo "$TMP/fifo.data"
timeout 10 "$TRIGREC" show "$TMP/fifo.data" >/dev/null 2>"$TMP/f.err"
check_eq "FIFO: exit (124: it hung)" "$?" 1
check_match "FIFO: says why" "$(cat "$TMP/f.err")" "fifo.data: not a regular file"
t_end
