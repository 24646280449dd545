#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Compare the verifier's work per BPF program with the committed budget.
#   tools/verifier-budget.sh STATS_BIN BUDGET_FILE [--update]
# STATS_BIN is tools/verifier-stats built against the skeleton; it prints
# "NAME verified insns N states S" per program. Fails (exit 1) when a program
# processes more than its budget plus VERIFIER_SLACK percent (default 10), or
# has no budget line; --update rewrites BUDGET_FILE's figures instead.
# Needs root: without it the check is skipped and says why.
set -eu
stats_bin=$1 budget=$2 update=${3:-}
slack=${VERIFIER_SLACK:-10}

if [ "$(id -u)" -ne 0 ]; then
	echo "  skip verifier budget: loading BPF programs needs root"
	exit 0
fi
stats=$("$stats_bin") || { echo "verifier budget: $stats_bin failed" >&2; exit 1; }

if [ "$update" = --update ]; then
	tmp=$budget.tmp
	grep '^#' "$budget" >"$tmp" || true
	echo "$stats" | awk '{ printf "%-10s %s\n", $1, $4 }' >>"$tmp"
	mv "$tmp" "$budget"
	echo "  wrote $budget:"
	grep -v '^#' "$budget" | sed 's/^/    /'
	exit 0
fi

echo "$stats" | awk -v slack="$slack" -v file="$budget" '
	BEGIN {
		while ((getline line < file) > 0) {
			if (line ~ /^#/ || line ~ /^[ \t]*$/)
				continue
			split(line, f)
			want[f[1]] = f[2]
		}
	}
	{
		name = $1; got = $4
		if (!(name in want)) {
			printf "  FAIL %s: %d insns verified and no budget in %s (add a line \"%s %d\")\n", name, got, file, name, got
			bad = 1
			next
		}
		limit = want[name] * (100 + slack) / 100
		pct = want[name] ? (got - want[name]) * 100 / want[name] : 0
		if (got > limit) {
			printf "  FAIL %s: %d insns verified, budget %d (+%.1f%%, more than %d%% over): make the program easier to verify or raise %s (make verifier-budget)\n", name, got, want[name], pct, slack, file
			bad = 1
		} else {
			printf "  ok   %s: %d insns verified, budget %d (%+.1f%%)\n", name, got, want[name], pct
		}
	}
	END { exit bad }'
