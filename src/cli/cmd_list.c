// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `trigrec list [GLOB]`: what can be recorded and triggered on. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/tracefs.h"
#include "cli/cli.h"
#include "util/log.h"

static const char list_usage[] =
"usage: trigrec list [GLOB]\n"
"\n"
"List tracepoints (SYS:NAME, from tracefs) and software events. GLOB selects\n"
"tracepoints: 'sched:*', '*:*switch*'; a bare word is a subsystem ('sched').\n"
"\n"
"Examples:\n"
"  trigrec list sched\n"
"  trigrec list 'syscalls:sys_enter_open*'\n";

static const char *sw_names[] = { "cpu-clock", "task-clock", "page-faults", "context-switches",
				  "cpu-migrations", "minor-faults", "major-faults" };

int cmd_list(int argc, char **argv)
{
	const char *pat = "*:*";
	struct tp_name *tps = NULL;
	char buf[256];
	int n;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(list_usage, stdout);
		return 0;
	}
	if (argc > 1 && argv[1][0] == '-') {
		elog("unknown option %s for list", argv[1]);
		fputs(list_usage, stderr);
		return 2;
	}
	if (argc > 2) {
		elog("list takes one GLOB, got %d arguments (quote globs: 'sched:*')", argc - 1);
		return 2;
	}
	if (argc > 1) {
		pat = argv[1];
		if (!*pat) {
			elog("empty GLOB: give a pattern such as 'sched:*', or none to list everything");
			return 2;
		}
		if (strlen(pat) > 200) {
			elog("GLOB too long (%zu bytes; tracepoint names are at most 200)", strlen(pat));
			return 2;
		}
	}
	if (argc <= 1)
		for (size_t i = 0; i < sizeof(sw_names) / sizeof(sw_names[0]); i++)
			printf("%-48s [software event]\n", sw_names[i]);
	if (!strchr(pat, ':') && !strchr(pat, '/')) {
		snprintf(buf, sizeof(buf), "%s:*", pat);
		pat = buf;
	}
	if (!tracefs_root())
		return 1;
	n = tracefs_glob(pat, &tps);
	if (n < 0) {
		elog("cannot list tracepoints: %s", strerror(-n));
		return 1;
	}
	for (int i = 0; i < n; i++) {
		int pad = 47 - (int)strlen(tps[i].sys) - (int)strlen(tps[i].name);

		printf("%s:%s%*s [tracepoint]\n", tps[i].sys, tps[i].name, pad > 0 ? pad : 1, "");
	}
	free(tps);
	if (!n) {
		elog("no tracepoint matches '%s' (trigrec list shows them all)", pat);
		return 1;
	}
	return 0;
}
