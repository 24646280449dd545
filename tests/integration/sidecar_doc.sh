#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# docs/sidecar.md stays complete: every key render_json(), key_text(),
# near_miss_json() and learned_json() in src/snapshot/snapshot.c write has a
# `key` in the page.
# Reads the tree only:
# trigrec-test: no-root
. "$(dirname "$0")/lib.sh"

DOC=$ROOT/docs/sidecar.md
SRC=$ROOT/src/snapshot/snapshot.c

# Keys as the C source spells them: \"name\": inside the sidecar's writers.
sidecar_keys() {
	sed -n '/^static void key_text(/,/^}/p;/^static void near_miss_json(/,/^}/p;/^static void learned_json(/,/^}/p;/^static int render_json(/,/^}/p' "$SRC" |
		grep -o '\\"[a-z_]*\\": ' | tr -d '\\": ' | sort -u
}

t_begin "sidecar_doc: the writers' keys are found"
check_ge "keys found in render_json()" "$(sidecar_keys | wc -l)" 40
t_end

t_begin "sidecar_doc: every key the sidecar can hold is in docs/sidecar.md"
missing=$(sidecar_keys | while IFS= read -r k; do grep -qF "\`$k\`" "$DOC" || echo "$k"; done | tr '\n' ' ')
check_eq "keys written but not documented (add a row: type, unit, when, meaning)" "$missing" ""
t_end
