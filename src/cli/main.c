// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * trigrec: global options and the command table. Each command fills a
 * struct trigrec_config (session/config.h) and, to record, hands it to a
 * session (session/session.h): config -> recorder -> bpfctl -> side-band
 * thread -> snapshot writer.
 */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "harvest/control.h"
#include "util/log.h"
#include "util/util.h"

int cli_argc;
char **cli_argv;

static int cmd_help(int argc, char **argv);

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "record", cmd_record, "record until a trigger fires, write snapshots" },
	{ "run", cmd_run, "run a trigger script (trigrec run FILE [options])" },
	{ "check", cmd_check, "check a trigger script against this kernel (FILE or -)" },
	{ "list", cmd_list, "list events, -v with their fields (trigrec list [-v] [GLOB...])" },
	{ "control", cmd_control, "talk to a running recorder: SOCKET " CONTROL_VERBS },
	{ "status", cmd_status, "what a running recorder is doing (trigrec status SOCKET|NAME)" },
	{ "test", cmd_test,
	  "where a script's triggers fire on recorded snapshots (SCRIPT FILE.data...)" },
	{ "show", cmd_show, "what a snapshot holds, why it fired; --html page, --chrome-json" },
	{ "help", cmd_help, "this text, or trigrec help COMMAND" },
};
#define NR_COMMANDS (int)(sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fputs("usage: trigrec [-v] COMMAND [ARGS]\n"
	      "\n"
	      "An eBPF-driven flight recorder: perf events kept in overwritable per-CPU\n"
	      "rings, frozen in the kernel the instant a trigger fires, saved as perf.data.\n"
	      "\n"
	      "Commands:\n",
	      f);
	for (int i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fputs("\nOptions: -v/--verbose (repeat for more), -q/--quiet, --version, -h/--help\n"
	      "Each command has its own help: trigrec COMMAND -h\n"
	      "\n"
	      "Examples (common questions):\n"
	      "  # Record the default set (scheduler, forks, execs, exits, signals); snapshot\n"
	      "  # with Ctrl-C, kill -USR2 or trigrec control:\n"
	      "  trigrec record --control /run/trigrec.sock\n"
	      "  # What happened just before my program crashed?\n"
	      "  trigrec record --trigger 'signal:signal_deliver if sig == 11' -- ./app\n"
	      "  # Which events and fields are there?\n"
	      "  trigrec list -v sched:sched_switch\n"
	      "  # Why was this snapshot taken? (and a page with its timeline)\n"
	      "  trigrec show --html snap.html 20261201-124651.044770-sys_enter_getsid.data\n" CLI_MORE_EXAMPLES,
	      f);
}

static const struct command *find_command(const char *name)
{
	for (int i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c = argc > 1 ? find_command(argv[1]) : NULL;
	char *help[] = { argc > 1 ? argv[1] : "help", "-h", NULL };

	if (c && c->fn != cmd_help)
		return c->fn(2, help);
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		argc = 1;
	if (argc > 1) {
		elog("no command '%s'", argv[1]);
		usage(stderr);
		return 2;
	}
	usage(stdout);
	return 0;
}

static void unknown_command(const char *name)
{
	const char *best = NULL;
	int bestd = 3;
	char list[256] = "";

	for (int i = 0; i < NR_COMMANDS; i++) {
		int d = edit_distance(name, commands[i].name);

		if (d < bestd) {
			bestd = d;
			best = commands[i].name;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 commands[i].name);
	}
	if (best)
		elog("unknown command '%s' (did you mean %s? commands: %s)", name, best, list);
	else
		elog("unknown command '%s' (commands: %s)", name, list);
}

int main(int argc, char **argv)
{
	const struct command *c;
	int i = 1;

	cli_argc = argc;
	cli_argv = argv;
	setvbuf(stdout, NULL, _IOLBF, 0);
	log_format_auto();
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
			log_level++;
		else if (!strcmp(argv[i], "-vv"))
			log_level += 2;
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			log_level = LOG_QUIET;
		else if (!strcmp(argv[i], "--version")) {
			printf("trigrec %s\n", TRIGREC_VERSION);
			return 0;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			elog("unknown option %s", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	c = find_command(argv[i]);
	if (!c) {
		unknown_command(argv[i]);
		return 2;
	}
	return c->fn(argc - i, argv + i);
}
