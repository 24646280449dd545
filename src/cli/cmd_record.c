// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `trigrec record`: the options table (also used by `run` for overrides) and the command. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "script/events.h"
#include "session/session.h"
#include "util/log.h"
#include "util/util.h"

static const char record_head[] =
	"usage: trigrec record [options] [-- command [args]]\n"
	"\n"
	"Record events into overwritable per-CPU rings. When a trigger fires, BPF\n"
	"cuts the history in the kernel at that instant (BPF-written tracepoints\n"
	"switch to a spare ring and recording goes on; perf-written rings are\n"
	"frozen, see --rings); the side-band thread copies the rings out and writes\n"
	"<YYYYmmdd-HHMMSS.uuuuuu>-<trigger>.data (perf.data, read it with\n"
	"perf script / perf report) and a .json sidecar.\n";

static const char record_tail[] =
	"\n"
	"TRIGGER is\n"
	"  EVENT [if FILTER] [count >= N]\n"
	"  latency EVENT [if F] [by KEY] -> EVENT [if F] [by KEY] > DURATION\n"
	"  rate EVENT [if F] [by KEY] > N/DURATION\n"
	"then any of: post DURATION (at most 1h), cooldown DURATION [per key],\n"
	"limit N/PERIOD | none, max N, name NAME. Without limit, a trigger writes at\n"
	"most 10 snapshots at once, then one a second (limit 10/10s); limit none\n"
	"lifts it. FILTER: ftrace syntax over the event's fields and comm,\n"
	"pid, tid, cpu, cgroup (docs/triggers.md), and !~. cgroup == \"/PATH\" and\n"
	"cgroup ~ \"GLOB\" (!=, !~) test the current task's cgroup v2 path from the\n"
	"cgroup2 root (\"/kubepods.slice/*\": the subtree), resolved at start (a\n"
	"cgroup made later matches only after a reload of a script: trigrec run).\n"
	"With -p or a command, triggers only fire in that process tree.\n"
	"\n"
	"Without -e, the default set is recorded: the triggers' own events, then\n"
	"sched:sched_switch, sched_wakeup, sched_process_fork, sched_process_exec,\n"
	"sched_process_exit and signal:signal_deliver (those this kernel has). It is\n"
	"printed at start (\"recording the default set: ...; give -e to choose\") and\n"
	"written by --dump-script. With neither -e nor --trigger, trigrec records it\n"
	"until you ask for a snapshot.\n"
	"\n"
	"Signals: SIGUSR2 takes a snapshot now; Ctrl-C stops (with a final snapshot);\n"
	"a second Ctrl-C exits at once.\n"
	"\n"
	"Examples (common questions):\n"
	"  # What was the machine doing when I noticed a problem? Snapshot on demand:\n"
	"  trigrec record --control /run/trigrec.sock     # then: trigrec control /run/trigrec.sock snapshot\n"
	"  # Why did my program crash? The last moments before its SIGSEGV:\n"
	"  trigrec record --trigger 'signal:signal_deliver if sig == 11' -- ./app\n"
	"  # Which fsync takes over 100 ms, and what ran meanwhile?\n"
	"  trigrec record --trigger 'latency syscalls:sys_enter_fsync by tid ->\n"
	"      syscalls:sys_exit_fsync by tid > 100ms' -- ./app\n"
	"  # Which system call of my program is slow? (fields: trigrec list -v raw_syscalls)\n"
	"  trigrec record -e 'raw_syscalls:*' -e sched:sched_switch \\\n"
	"      --trigger 'latency raw_syscalls:sys_enter -> raw_syscalls:sys_exit by tid > 20ms' -- ./app\n"
	"  # Who floods the machine with openat?\n"
	"  trigrec record -e 'sched:*' --trigger 'rate syscalls:sys_enter_openat by pid > 5000/1s\n"
	"      cooldown 10s per key limit 3/min' --control /run/trigrec.sock\n"
	"  # Where is a process spending its CPU when it gets a signal?\n"
	"  trigrec record -e cpu-clock -g --trigger signal:signal_deliver --post 20ms -p 1234\n"
	"  # Keep it as a script: trigrec run mine.trig\n"
	"  trigrec record ... --dump-script > mine.trig\n" CLI_MORE_EXAMPLES;

#define SET(fn) static int fn(struct opt_ctx *x, const char *a, char *err, size_t len)
#define CFG (x->cfg)

SET(o_event)
{
	return config__add_event(CFG, a, NULL);
}

SET(o_filter)
{
	struct rec_event_spec *last = CFG->nr_events ? &CFG->events[CFG->nr_events - 1] : NULL;

	if (!last) {
		elog("--filter '%s' must follow the -e it applies to", a);
		return -EINVAL;
	}
	if (last->filter) {
		elog("two --filter for -e %s: combine them with &&", last->spec);
		return -EINVAL;
	}
	last->filter = strdup(a);
	return last->filter ? 0 : -ENOMEM;
}

SET(o_trigger)
{
	struct trig_def t;
	struct tl_error e;
	char msg[2048];
	int ret;

	if (CFG->nr_trigs >= TRIGREC_MAX_TRIGGERS) {
		elog("too many triggers: at most %d in one run", TRIGREC_MAX_TRIGGERS);
		return -E2BIG;
	}
	if (trig_from_text_with(a, script_events(), &t, &e)) {
		tl_error_format(&e, "--trigger", a, msg, sizeof(msg));
		elog("%s", msg);
		return -EINVAL;
	}
	ret = config__add_trigger(CFG, &t, NULL);
	return ret;
}

SET(o_dump_script)
{
	x->dump_script = 1;
	return 0;
}

SET(o_verbose)
{
	log_level++;
	return 0;
}

SET(o_quiet)
{
	log_level = LOG_QUIET;
	return 0;
}

SET(o_log_format)
{
	if (log_format_parse(a)) {
		snprintf(err, len, "'%s': give text or logfmt", a);
		return -EINVAL;
	}
	return 0;
}

SET(o_help)
{
	x->help = 1;
	return 0;
}

#define G_EVENTS "Events:"
#define G_SCOPE "Scope (default -a when there is no command and no -p):"
#define G_TRIG "Triggers and snapshots:"
#define G_SHIP "Shipping:"
#define G_MON "Monitoring:"
#define G_OTHER "Other:"

/* The options that are not a row of the settings table (session/settings.c). */
static const struct opt_spec own_opts[] = {
	{ 'e', "event", "EVENT",
	  "tracepoint SYS:NAME (globs: 'sched:*') or software\n"
	  "event (cpu-clock, task-clock, page-faults,\ncontext-switches, cpu-migrations, minor-faults,\n"
	  "major-faults); repeatable, comma lists; none:\nthe default set (below); trigrec list -v shows them",
	  o_event, G_EVENTS },
	{ 0, "filter", "FILTER", "ftrace filter for the preceding -e (in the kernel)", o_filter,
	  G_EVENTS },
	{ 0, "trigger", "TRIGGER", "snapshot when TRIGGER holds (repeatable; below)", o_trigger,
	  G_TRIG },
	{ 0, "dump-script", NULL, "print these options as a trigger script and exit", o_dump_script,
	  G_OTHER },
	{ 'v', "verbose", NULL, "more messages (repeat for more)", o_verbose, G_OTHER },
	{ 0, "log-format", "FMT",
	  "text (default) or logfmt (default when stderr is\nthe journal: one key=value line per event)",
	  o_log_format, G_OTHER },
	{ 'q', "quiet", NULL, "errors only", o_quiet, G_OTHER },
	{ 'h', "help", NULL, "this text", o_help, G_OTHER },
};
#define NR_OWN (int)(sizeof(own_opts) / sizeof(own_opts[0]))

/* Appends record's own options of section g, then the settings rows of it. */
static int merge_group(const char *g, struct opt_spec *tab, int k)
{
	for (int i = 0; i < NR_OWN; i++)
		if (!strcmp(own_opts[i].group, g))
			tab[k++] = own_opts[i];
	for (int i = 0; i < nr_settings; i++)
		if (settings[i].name && !strcmp(settings[i].group, g))
			tab[k++] = opts__of_setting(&settings[i]);
	return k;
}

const struct opt_spec *record_opts(int *n)
{
	static const char *const groups[] = { G_EVENTS, G_SCOPE, G_TRIG, G_SHIP, G_MON, G_OTHER };
	static struct opt_spec tab[NR_OWN + SETTINGS_MAX];
	static int nr;

	if (!nr)
		for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
			nr = merge_group(groups[g], tab, nr);
	*n = nr;
	return tab;
}

int cli_run_session(struct trigrec_config *c, session_reload_fn reload, void *ctx)
{
	/* perf.data records the whole command line, global options included. */
	struct session *s = session__new(c, cli_argc, cli_argv);
	int ret = 1, err;

	if (!s)
		return 1;
	if (reload)
		session__set_reload(s, reload, ctx);
	err = session__start(s);
	if (!err)
		ret = session__run(s);
	else if (err == -EINTR)
		ret = 130; /* interrupted during set-up, as a shell reports Ctrl-C */
	session__free(s);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct trigrec_config c;
	struct opt_ctx x = { .cfg = &c };
	char err[512];
	int first, ret = 2, n;
	const struct opt_spec *opts = record_opts(&n);

	config__init(&c);
	first = opts__parse(opts, n, "record", argc, argv, &x);
	if (first < 0)
		goto out;
	if (x.help) {
		fputs(record_head, stdout);
		opts__help(stdout, opts, n);
		fputs(record_tail, stdout);
		ret = 0;
		goto out;
	}
	if (first < argc && !(c.cmd = config__argv_dup(argv + first, argc - first))) {
		ret = 1;
		goto out;
	}
	if (config__finalize(&c, err, sizeof(err))) {
		elog("%s", err);
		goto out;
	}
	if (x.dump_script) {
		ret = config__dump_script(&c, stdout) ? 1 : 0;
		goto out;
	}
	ret = cli_run_session(&c, NULL, NULL);
out:
	config__fini(&c);
	return ret;
}
