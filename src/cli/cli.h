/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The commands of `trigrec COMMAND`: each takes argv with argv[0] = its name. */
#ifndef TRIGREC_CLI_H
#define TRIGREC_CLI_H
#include "cli/options.h"
#include "session/session.h"

int cmd_record(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_control(int argc, char **argv);
int cmd_status(int argc, char **argv); /* cmd_status.c */
int cmd_run(int argc, char **argv);    /* cmd_script.c */
int cmd_check(int argc, char **argv);
int cmd_show(int argc, char **argv); /* cmd_show.c */
int cmd_test(int argc, char **argv); /* cmd_test.c */

/* The last line of every command's --help: where the worked examples are. */
#define CLI_MORE_EXAMPLES                                                                      \
	"More: examples/*.trig in trigrec's source, one commented script per common problem\n" \
	"(crash, oom-kill, slow-syscalls, runq-latency, ...): trigrec run examples/crash.trig\n"

/*
 * record's options: its own (events, triggers, ...) and the settings table's
 * rows (session/settings.h), merged by help section; *n their number. `run`
 * takes its overrides from them.
 */
const struct opt_spec *record_opts(int *n);

/* Run a filled config through a session; the process exit status. */
int cli_run_session(struct trigrec_config *c, session_reload_fn reload, void *ctx);

/* The whole command line (for perf.data's cmdline feature). */
extern int cli_argc;
extern char **cli_argv;

#endif
