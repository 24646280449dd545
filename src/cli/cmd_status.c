// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `trigrec status [--json] SOCKET|NAME`: what a running recorder is doing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "harvest/control.h"
#include "util/log.h"

/* Where the units put their sockets (contrib/trigrec@.service: --control /run/trigrec/%i.sock). */
#define RUN_DIR "/run/trigrec"

static const char status_usage[] =
	"usage: trigrec status [--json] SOCKET|NAME\n"
	"\n"
	"Ask a recorder started with --control SOCKET what it is doing: its script,\n"
	"pid and uptime, each trigger's counters (fired, snapshots, coalesced,\n"
	"suppressed), the last snapshot, and the output directory's disk use.\n"
	"One \"key: value\" line each, stable for grep. NAME (no '/', not a file here)\n"
	"stands for " RUN_DIR "/NAME.sock, the socket of the unit trigrec@NAME\n"
	"(trigrec.service: NAME is trigrec).\n"
	"\n"
	"Options:\n"
	"      --json              the same as one JSON object on one line\n"
	"  -h, --help              this text\n"
	"\n"
	"Examples (common questions):\n"
	"  # Is the recorder of trigrec@web.service running, and has it fired?\n"
	"  trigrec status web\n"
	"  # When was the last snapshot?\n"
	"  trigrec status /run/trigrec/web.sock | grep '^last snapshot:'\n"
	"  # Each trigger's counters, for a script:\n"
	"  trigrec status --json web | jq .triggers\n" CLI_MORE_EXAMPLES;

int cmd_status(int argc, char **argv)
{
	char path[256], reply[16384];
	const char *sock = NULL;
	int json = 0, n;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(status_usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			elog("unknown option %s for status", argv[i]);
			fputs(status_usage, stderr);
			return 2;
		} else if (sock) {
			elog("status takes one SOCKET or NAME (got %s and %s)", sock, argv[i]);
			return 2;
		} else {
			sock = argv[i];
		}
	}
	if (!sock) {
		fputs(status_usage, stderr);
		return 2;
	}
	if (!strchr(sock, '/') && access(sock, F_OK)) {
		if ((size_t)snprintf(path, sizeof(path), RUN_DIR "/%s.sock", sock) >=
		    sizeof(path)) {
			elog("status: name %s too long", sock);
			return 2;
		}
		sock = path;
	}
	n = control_client__call_all(sock, json ? "status json" : "status", reply, sizeof(reply),
				     CONTROL_CLIENT_TIMEOUT_MS);
	if (n < 0)
		return n == -EINVAL || n == -ENAMETOOLONG ? 2 : 1;
	fputs(reply, stdout);
	if (n && reply[n - 1] != '\n')
		putchar('\n');
	return strncmp(reply, "error", 5) ? 0 : 1;
}
