#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# docs/CONTRIBUTING.md stays true: every path its map names exists, every
# source file (src/**/*.[ch], bpf/*.[ch], include/*.h) and src/ folder is named
# in the map, and every function it cites as `name()` is defined in the tree.
# Reads the tree only:
# trigrec-test: no-root
. "$(dirname "$0")/lib.sh"

DOC=$ROOT/docs/CONTRIBUTING.md
cd "$ROOT" || exit 1

# The map: list items "- `PATH` — ..." between "## The map" and the next "## ".
map_paths() {
	# shellcheck disable=SC2016 # the backquotes are markdown's
	awk '/^## The map/ { on = 1; next } /^## / { on = 0 } on' "$DOC" |
		sed -n 's/^- `\([^`]*\)`.*/\1/p'
}

t_begin "contributing: the map exists and names paths"
[ -f "$DOC" ] || t_fail "$DOC is missing"
check_ge "paths in the map" "$(map_paths | wc -l)" 50
t_end

t_begin "contributing: every path in the map exists"
missing=$(map_paths | while IFS= read -r p; do [ -e "$p" ] || echo "$p"; done | tr '\n' ' ')
check_eq "named in the map but not in the tree" "$missing" ""
t_end

t_begin "contributing: every source file is in the map"
unnamed=$(find src -name '*.[ch]'; ls bpf/*.c bpf/*.h include/*.h)
unnamed=$(for f in $unnamed; do map_paths | grep -qxF "$f" || echo "$f"; done | sort | tr '\n' ' ')
check_eq "source files the map does not name (add a line: what it owns, what it must not do)" \
	"$unnamed" ""
t_end

t_begin "contributing: every src/ folder is in the map"
unnamed=$(for d in src/*/; do map_paths | grep -qxF "$d" || echo "$d"; done | tr '\n' ' ')
check_eq "folders the map does not name" "$unnamed" ""
t_end

t_begin "contributing: every function it cites is defined"
# `name()` anywhere in the file; defined = a line starting with its C
# declaration ("static int name(") or a shell function ("name() {").
# shellcheck disable=SC2016 # the backquotes are markdown's
gone=$(grep -o '`[a-z_][a-z0-9_]*()`' "$DOC" | tr -d '`()' | sort -u | while IFS= read -r fn; do
	grep -rqE "^([a-z_][a-z0-9_ ]*[ *])?$fn\(|^$fn\(\) *\{" src bpf tests tools || echo "$fn"
done | tr '\n' ' ')
check_eq "functions cited but not defined" "$gone" ""
t_end
