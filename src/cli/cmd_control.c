// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `trigrec control SOCKET snapshot [NAME] | stats | stop`: a client of --control. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "cli/cli.h"
#include "util/log.h"

static const char control_usage[] =
"usage: trigrec control SOCKET snapshot [NAME] | stats | stop\n"
"\n"
"Talk to a recorder started with --control SOCKET: take a snapshot now\n"
"(named NAME), print its counters, or stop it (with its final snapshot).\n";

int cmd_control(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char line[512] = "", reply[4200];
	ssize_t n;
	int fd;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(control_usage, stdout);
		return 0;
	}
	if (argc < 3) {
		fputs(control_usage, stderr);
		return 2;
	}
	if (!*argv[1] || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		elog("control socket path %s: %s", argv[1], *argv[1] ? "too long" : "empty");
		return 2;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	for (int i = 2; i < argc; i++) {
		strncat(line, argv[i], sizeof(line) - strlen(line) - 2);
		strncat(line, i + 1 < argc ? " " : "\n", sizeof(line) - strlen(line) - 1);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		elog("cannot connect to %s: %s (is `trigrec record --control %s` running?)", argv[1],
		     strerror(errno), argv[1]);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (write(fd, line, strlen(line)) < 0) {
		elog("cannot send to %s: %s", argv[1], strerror(errno));
		close(fd);
		return 1;
	}
	n = read(fd, reply, sizeof(reply) - 1);
	close(fd);
	if (n <= 0) {
		elog("no reply from %s", argv[1]);
		return 1;
	}
	reply[n] = 0;
	fputs(reply, stdout);
	return strncmp(reply, "error", 5) ? 0 : 1;
}
