#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The layers of src/ (`make lint`): the folders in the order the map of
# docs/CONTRIBUTING.md lists them ("Userspace", top first), and every
# `#include` of another folder's header goes to a folder below its own. No
# header may include itself through others, and no folder another through
# its headers (a cycle). Prints each include against the order as FILE:LINE
# and each cycle's members, and any header of capture/ but tracefs.h and
# probe_spec.h that lang/ includes; exits 1 if there is any, 2 if it cannot read the
# order.
#
# Usage: tools/layers.sh [ROOT]   (ROOT: the tree to check; default, this one)
set -u

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
doc=docs/CONTRIBUTING.md
cd "$root" || exit 2
if [ ! -f "$doc" ]; then
	echo "layers: $root/$doc is missing: the layer order is its map's list of src/ folders" >&2
	exit 2
fi

# The order: "- `src/NAME/` — ..." lines under "### Userspace", top first.
# shellcheck disable=SC2016 # the backquotes are markdown's
mapfile -t order < <(awk '/^### Userspace/ { on = 1; next } /^##/ { on = 0 } on' "$doc" |
	sed -n 's/^- `src\/\([a-z_0-9]*\)\/`.*/\1/p')
if [ "${#order[@]}" -lt 2 ]; then
	echo "layers: no folder list under \"### Userspace\" in $doc (lines \"- \`src/NAME/\` — ...\", top layer first)" >&2
	exit 2
fi
declare -A rank=()
for i in "${!order[@]}"; do
	rank[${order[$i]}]=$i
done

bad=0
for d in src/*/; do
	d=${d#src/}
	d=${d%/}
	if [ -z "${rank[$d]+set}" ]; then
		echo "src/$d/: not in the layer order: add its line to the folder list of $doc, below every folder that includes it and above every folder it includes"
		bad=1
	fi
done

edges=$(mktemp)
dedges=$(mktemp)
trap 'rm -f "$edges" "$dedges"' EXIT
for f in src/*/*.[ch]; do
	[ -e "$f" ] || continue
	fd=${f#src/}
	fd=${fd%%/*}
	while IFS= read -r l; do
		line=${l%%:*}
		inc=${l#*\"}
		inc=${inc%%\"*}
		# What it names: a file of src/ (else include/, bpf/ or generated).
		case $inc in
		../*) tp=$(realpath -m --relative-to=. "$(dirname "$f")/$inc") ;;
		*/*) tp=src/$inc ;;
		*) tp=$(dirname "$f")/$inc ;;
		esac
		if [ ! -e "$tp" ] || [ "${tp#src/*/}" = "$tp" ]; then
			continue
		fi
		td=${tp#src/}
		td=${td%%/*}
		echo "$f $tp" >>"$edges"
		[ "$td" = "$fd" ] && continue
		echo "$fd $td" >>"$dedges"
		if [ -z "${rank[$fd]+set}" ] || [ -z "${rank[$td]+set}" ]; then
			continue
		fi
		if [ "${rank[$td]}" -lt "${rank[$fd]}" ]; then
			echo "$f:$line: includes $inc, but $td/ is above $fd/ in the layer order ($doc): move what it needs to $fd/ or below, or the code that needs it up"
			bad=1
		fi
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
done

# lang/ is text to tables: of capture/ it may read tracefs and probe names
# (tracefs.h, probe_spec.h), never reach the code that creates probes or
# opens events. A caller creates a probe's event and hands it in
# (struct trig_events in lang/trigger_lang.h).
while IFS= read -r l; do
	f=${l%%:*}
	line=${l#*:}
	line=${line%%:*}
	inc=${l#*\"}
	inc=${inc%%\"*}
	echo "$f:$line: includes $inc, but lang/ reads only capture/tracefs.h and capture/probe_spec.h: take what it needs through struct trig_events (lang/trigger_lang.h), which the caller fills"
	bad=1
done < <(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"capture/' src/lang/*.[ch] 2>/dev/null |
	grep -v '"capture/\(tracefs\|probe_spec\)\.h"')

# Cycles: tsort names the members of each loop it finds, one loop after
# "input contains a loop".
for g in "$edges:headers" "$dedges:folders"; do
	loops=$(sort -u "${g%%:*}" | tsort 2>&1 >/dev/null |
		awk '/input contains a loop/ { if (l != "") print l; l = ""; next }
		     /^tsort: / { sub(/^tsort: /, ""); l = l (l == "" ? "" : ", ") $0 }
		     END { if (l != "") print l }')
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		echo "cycle of ${g#*:}: $l include each other, directly or through others: move what they share into the lowest of them"
		bad=1
	done <<<"$loops"
done

if [ "$bad" -ne 0 ]; then
	echo "layers: FAILED: the order is ${order[*]} (top first); see \"The map\" in $doc"
	exit 1
fi
echo "layers: ok: $(wc -l <"$dedges") includes across folders, all downward in ${order[*]}"
