// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `trigrec control SOCKET VERB [ARG]`: a client of --control (verbs: session__control_verbs()). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "harvest/control.h"
#include "session/session.h"

static const char control_usage[] = "usage: trigrec control SOCKET " CONTROL_VERBS "\n"
				    "\n"
				    "Talk to a recorder started with --control SOCKET:\n";

static const char control_examples[] =
	"\n"
	"A script with errors is refused by reload and the old one keeps running.\n"
	"\n"
	"Examples (common questions):\n"
	"  # Something just went wrong: save the last seconds now\n"
	"  trigrec control /run/trigrec.sock snapshot stutter\n"
	"  # Is it recording, and has anything been lost?\n"
	"  trigrec control /run/trigrec.sock stats\n"
	"  # I edited the script: apply it\n"
	"  trigrec control /run/trigrec.sock reload\n" CLI_MORE_EXAMPLES;

/* The usage, each verb's line from the session's table, the examples. */
static void usage(FILE *f)
{
	int n;
	const struct control_verb *v = session__control_verbs(&n);

	fputs(control_usage, f);
	for (int i = 0; i < n; i++) {
		char head[32];

		snprintf(head, sizeof(head), "%s%s%s", v[i].name, v[i].arg ? " " : "",
			 v[i].arg ? v[i].arg : "");
		fprintf(f, "  %-16s %s\n", head, v[i].help);
	}
	fputs(control_examples, f);
}

int cmd_control(int argc, char **argv)
{
	char line[512] = "", reply[16384];
	const struct control_verb *v;
	int n, nv;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 3) {
		usage(stderr);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		strncat(line, argv[i], sizeof(line) - strlen(line) - 2);
		if (i + 1 < argc)
			strncat(line, " ", sizeof(line) - strlen(line) - 1);
	}
	/* The verb's row says how long to wait (a snapshot waits for its file) and how to read. */
	v = session__control_verbs(&nv);
	v = control__find(v, nv, argv[2]);
	if (v && v->all)
		/* Several lines: read until the recorder closes. */
		n = control_client__call_all(argv[1], line, reply, sizeof(reply), v->wait_ms);
	else
		n = control_client__call(argv[1], line, reply, sizeof(reply),
					 v ? v->wait_ms : CONTROL_CLIENT_TIMEOUT_MS);
	if (n < 0)
		return n == -EINVAL || n == -ENAMETOOLONG ? 2 : 1;
	fputs(reply, stdout);
	return strncmp(reply, "error", 5) ? 0 : 1;
}
