// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `trigrec control SOCKET snapshot [NAME] | stats | reload | stop`: a client of --control. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "harvest/control.h"
#include "util/log.h"

static const char control_usage[] =
	"usage: trigrec control SOCKET " CONTROL_VERBS "\n"
	"\n"
	"Talk to a recorder started with --control SOCKET: take a snapshot now\n"
	"(named NAME), print its counters (stats: one line), what it is doing\n"
	"(status: as trigrec status), re-read its script (trigrec run only:\n"
	"the triggers change, the recorded history is kept; a script with errors\n"
	"is refused and the old one keeps running), or stop it (with its final\n"
	"snapshot).\n"
	"\n"
	"Examples (common questions):\n"
	"  # Something just went wrong: save the last seconds now\n"
	"  trigrec control /run/trigrec.sock snapshot stutter\n"
	"  # Is it recording, and has anything been lost?\n"
	"  trigrec control /run/trigrec.sock stats\n"
	"  # I edited the script: apply it\n"
	"  trigrec control /run/trigrec.sock reload\n" CLI_MORE_EXAMPLES;

int cmd_control(int argc, char **argv)
{
	char line[512] = "", reply[16384];
	int n;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(control_usage, stdout);
		return 0;
	}
	if (argc < 3) {
		fputs(control_usage, stderr);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		strncat(line, argv[i], sizeof(line) - strlen(line) - 2);
		if (i + 1 < argc)
			strncat(line, " ", sizeof(line) - strlen(line) - 1);
	}
	/* A snapshot waits for its file; anything else answers at once or not at all. */
	if (!strcmp(argv[2], "status"))
		/* Several lines: read until the recorder closes. */
		n = control_client__call_all(argv[1], line, reply, sizeof(reply),
					     CONTROL_CLIENT_TIMEOUT_MS);
	else
		n = control_client__call(argv[1], line, reply, sizeof(reply),
					 !strcmp(argv[2], "snapshot") ||
							 !strcmp(argv[2], "reload") ?
						 CONTROL_SNAPSHOT_TIMEOUT_MS :
						 CONTROL_CLIENT_TIMEOUT_MS);
	if (n < 0)
		return n == -EINVAL || n == -ENAMETOOLONG ? 2 : 1;
	fputs(reply, stdout);
	return strncmp(reply, "error", 5) ? 0 : 1;
}
