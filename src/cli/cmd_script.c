// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `trigrec check FILE` and `trigrec run FILE`: a trigger script
 * (script/script.h, docs/script-language.md) into a config, checked, or run
 * through the same session as `record`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "capture/tracefs.h"
#include "cli/cli.h"
#include "script/script.h"
#include "service/hooks.h"
#include "service/status.h"
#include "util/log.h"

static const char check_usage[] =
	"usage: trigrec check [-v|-q] [--strict] FILE|-\n"
	"\n"
	"Parse a trigger script and check it against the running kernel and this host:\n"
	"events and fields exist with compatible types, kernel filters, the run's\n"
	"limits, the output directory, cgroup, command and on_snapshot program. Nothing\n"
	"is loaded into the kernel. Every error is printed as FILE:LINE:COL: message,\n"
	"with the line and a caret. Exit status 0 when the script is valid, 2 when not.\n"
	"'-' reads the script from standard input. Language: docs/script-language.md.\n"
	"A uprobe or USDT probe on a binary that is not on this machine is a warning\n"
	"(the script is checked here before it goes to the hosts that have it): its\n"
	"event or trigger is checked as syntax only. --strict makes it an error.\n"
	"A trigger's cgroup path is resolved against this host's cgroup2 tree: a\n"
	"`cgroup == PATH` that does not exist is an error, a `cgroup ~ GLOB` that\n"
	"matches nothing a warning (--strict: an error).\n"
	"\n"
	"Examples (common questions):\n"
	"  # Will my script run on this machine?\n"
	"  trigrec check web.trig\n"
	"  # Is my command line right, and what does it mean as a script?\n"
	"  trigrec record -e sched:sched_switch --trigger sched:sched_process_exit \\\n"
	"      --dump-script | trigrec check -\n"
	"  # Which fields can my trigger test?\n"
	"  trigrec list -v sched:sched_switch\n" CLI_MORE_EXAMPLES;

static const char run_head[] =
	"usage: trigrec run FILE [options] [--] [command [args]]\n"
	"\n"
	"Run a trigger script in the foreground until Ctrl-C, its command ends or\n"
	"--count snapshots, printing each snapshot as it is written (as `trigrec\n"
	"record` does). An invalid script prints every error and exits with 2.\n"
	"Options given after FILE override the script's, and a command after them\n"
	"replaces the script's `command`.\n";

static const char run_tail[] =
	"\n"
	"A script without a `record` line records the default set, as trigrec record\n"
	"does without -e (trigrec record -h).\n"
	"\n"
	"Examples (common questions):\n"
	"  # Catch crashes with a ready-made script:\n"
	"  trigrec run examples/crash.trig\n"
	"  # Try a script with its snapshots elsewhere, and more messages:\n"
	"  trigrec run web.trig -o /tmp/snaps -m 4M -v\n"
	"  # Apply an edited script without losing the recorded history:\n"
	"  trigrec run web.trig --control /run/web.sock   # then: trigrec control /run/web.sock reload\n"
	"  #!/usr/local/bin/trigrec run     (first line of an executable script)\n" CLI_MORE_EXAMPLES;

/*
 * run's options: the settings rows marked run (session/settings.c), and these
 * of record's own, each declared once, there.
 */
static const char *const run_own[] = { "verbose", "quiet", "log-format", "help" };
#define NR_RUN_OWN (int)(sizeof(run_own) / sizeof(run_own[0]))
static struct opt_spec run_opts[NR_RUN_OWN + SETTINGS_MAX];
static int nr_run_opts;

static void run_opts_init(void)
{
	int n;
	const struct opt_spec *rec = record_opts(&n);

	nr_run_opts = 0;
	for (int k = 0; k < n; k++) {
		int take = rec[k].setting && rec[k].setting->run;

		for (int i = 0; !take && i < NR_RUN_OWN; i++)
			take = !rec[k].setting && !strcmp(rec[k].long_name, run_own[i]);
		if (!take)
			continue;
		run_opts[nr_run_opts] = rec[k];
		run_opts[nr_run_opts++].group = "Options (after FILE, they override the script):";
	}
}

/* Read and parse; NULL after printing why. *status: 2 for a bad script, 1 otherwise. */
static struct script *load_parse(const char *path, struct trigrec_config *c, int *status,
				 int absent_ok)
{
	struct script *s;
	char err[512];

	*status = 1;
	/* Events and fields are resolved against tracefs: say so once if it is missing. */
	if (!tracefs_root())
		return NULL;
	s = script__load(path, err, sizeof(err));
	if (!s) {
		elog("%s", err);
		*status = 2;
		return NULL;
	}
	if (absent_ok)
		script__absent_binaries_ok(s);
	script__parse(s, c);
	return s;
}

/* FILE, with -v/-q (as before the command) and --strict anywhere; or -h. */
static int one_file(int argc, char **argv, const char *usage, const char **file, int *strict)
{
	const char *extra = NULL;

	*file = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		}
		if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			log_level++;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			log_level = LOG_QUIET;
		} else if (!strcmp(a, "--strict")) {
			*strict = 1;
		} else if (a[0] == '-' && a[1]) {
			elog("unknown option %s for %s (options: -v, -q, --strict, -h)", a,
			     argv[0]);
			fputs(usage, stderr);
			return 2;
		} else if (*file) {
			extra = extra ? extra : a;
		} else {
			*file = a;
		}
	}
	if (!*file || extra) {
		if (!*file)
			elog("%s: give a script file, or - for standard input", argv[0]);
		else
			elog("%s: one script at a time (got '%s' after %s)", argv[0], extra, *file);
		fputs(usage, stderr);
		return 2;
	}
	return -1;
}

int cmd_check(int argc, char **argv)
{
	struct trigrec_config c;
	struct script *s;
	const char *file = NULL;
	char note[512];
	int strict = 0, ret = one_file(argc, argv, check_usage, &file, &strict), n;

	if (ret >= 0)
		return ret;
	config__init(&c);
	s = load_parse(file, &c, &ret, !strict);
	if (!s)
		goto out;
	/* A script that does not parse cannot be checked against the host meaningfully. */
	n = script__nr_errors(s);
	if (!n)
		n += script__check_host(s, &c);
	script__print_warnings(s, stderr);
	if (n) {
		script__print_errors(s, stderr);
		elog("%s: %d error%s", script__path(s), n, n == 1 ? "" : "s");
		ret = 2;
	} else {
		int w = script__nr_warnings(s);

		printf("%s: ok: %d event%s recorded%s, %d trigger%s, %d manual", script__path(s),
		       c.nr_events, c.nr_events == 1 ? "" : "s",
		       c.default_set ? " (the default set: no record line)" : "", c.nr_trigs,
		       c.nr_trigs == 1 ? "" : "s", c.nr_manual);
		if (w)
			printf(" (%d checked as syntax only: their binaries are not here)", w);
		putchar('\n');
		for (int k = 0; config__unrecorded(&c, k, note, sizeof(note)); k++)
			printf("%s: note: %s\n", script__path(s), note);
		/* A learned threshold as the kernel will run it: what a key learns, when it may fire. */
		for (int k = 0; k < c.nr_trigs; k++) {
			const struct trig_def *d = &c.trigs[k];
			char pct[48];

			if (d->cfg.nm_clause1)
				printf("%s: trigger %s: near misses: the largest values of %s that "
				       "fail only that comparison\n",
				       script__path(s), d->name, d->nm_desc);
			if (d->cfg.flags & TRIGREC_TF_RATE_BASELINE) {
				char bl[64];

				printf("%s: trigger %s: rate baseline: fires on a window whose count "
				       "is above %s of %s (an EWMA of its count per window, alpha "
				       "1/8; a baseline under 1 event counts as 1), once the key "
				       "has seen %llu windows\n",
				       script__path(s), d->name,
				       status__baseline_text(d, bl, sizeof(bl)),
				       d->cfg.side[TRIGREC_ROLE_EVENT].key.p[0].src ?
					       "its key" :
					       "all its events together (no by)",
				       (unsigned long long)d->cfg.learn_after);
				continue;
			}
			if (!d->cfg.learn_pct)
				continue;
			printf("%s: trigger %s: learned threshold: fires on a span above %s of the spans of %s%s%s, "
			       "once the key has seen %llu of them; counts halve every %llu s\n",
			       script__path(s), d->name, status__learned_text(d, pct, sizeof(pct)),
			       d->cfg.flags & TRIGREC_TF_LEARN_ALL ? "every key together (no by)" :
								     "its key (",
			       d->cfg.flags & TRIGREC_TF_LEARN_ALL ?
				       "" :
				       d->key_desc[TRIGREC_ROLE_EVENT],
			       d->cfg.flags & TRIGREC_TF_LEARN_ALL ? "" : ")",
			       (unsigned long long)d->cfg.learn_after,
			       (unsigned long long)(d->cfg.learn_halflife_ns / 1000000000ull));
		}
		ret = 0;
	}
	script__free(s);
out:
	config__fini(&c);
	return ret;
}

/*
 * The command-line overrides (o; given[i]: settings[i] was given) over a
 * parsed script's config (c). 0 or -ENOMEM.
 */
static int apply_overrides(struct trigrec_config *c, const struct trigrec_config *o,
			   const unsigned char *given)
{
	for (int i = 0; i < nr_settings; i++)
		if (given[i] && settings__copy(c, o, &settings[i]))
			return -ENOMEM;
	/* The command is not a setting: given, it replaces the script's. */
	if (o->cmd) {
		char **cmd = config__argv_dup(o->cmd, -1);

		if (!cmd)
			return -ENOMEM;
		hook_argv_free(c->cmd);
		c->cmd = cmd;
	}
	return 0;
}

/* What a reload re-reads: the script as `run` read it at start, with the same overrides. */
struct run_reload {
	const char *file;
	const struct trigrec_config *overrides;
	const unsigned char *given;
};

static int reload_script(void *ctx, struct trigrec_config *c, char *err, size_t len)
{
	struct run_reload *rr = ctx;
	struct script *s;
	char e[512];
	int ret = 0;

	if (!strcmp(rr->file, "-")) {
		snprintf(err, len,
			 "the script was read from standard input: it cannot be read again "
			 "(run a file to be able to reload)");
		return -ENOTSUP;
	}
	s = script__load(rr->file, e, sizeof(e));
	if (!s) {
		snprintf(err, len, "%s", e);
		return -EINVAL;
	}
	script__parse(s, c);
	if (script__nr_errors(s)) {
		char *buf = NULL;
		size_t n = 0;
		FILE *f = open_memstream(&buf, &n);

		if (f) {
			script__print_errors(s, f);
			fclose(f);
		}
		snprintf(err, len, "%s", buf ? buf : "errors in the script");
		if (n && err[strlen(err) - 1] == '\n')
			err[strlen(err) - 1] = 0;
		free(buf);
		ret = -EINVAL;
	} else if (apply_overrides(c, rr->overrides, rr->given)) {
		snprintf(err, len, "out of memory");
		ret = -ENOMEM;
	} else if (config__finalize(c, err, len)) {
		ret = -EINVAL;
	}
	script__free(s);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	struct run_reload rr;
	struct trigrec_config c, o;
	struct opt_ctx x = { .cfg = &o };
	struct script *s = NULL;
	const char *file;
	char err[512];
	int first, more, ret = 2;

	run_opts_init();
	config__init(&c);
	config__init(&o);
	/* Options may come before FILE (e.g. -h) and after it (overrides). */
	first = opts__parse(run_opts, nr_run_opts, "run", argc, argv, &x);
	if (first < 0)
		goto out;
	if (!x.help && first < argc) {
		more = opts__parse(run_opts, nr_run_opts, "run", argc - first, argv + first, &x);
		if (more < 0)
			goto out;
		/* What follows the options is the command, as for record: it
		 * replaces the script's `command`. */
		if (!x.help && first + more < argc &&
		    !(o.cmd = config__argv_dup(argv + first + more, argc - first - more)))
			goto nomem;
	}
	if (x.help) {
		fputs(run_head, stdout);
		opts__help(stdout, run_opts, nr_run_opts);
		fputs(run_tail, stdout);
		ret = 0;
		goto out;
	}
	if (first >= argc) {
		elog("run: give a script file, or - for standard input");
		fputs(run_head, stderr);
		goto out;
	}
	file = argv[first];
	s = load_parse(file, &c, &ret, 0);
	if (!s)
		goto out;
	if (script__nr_errors(s)) {
		script__print_errors(s, stderr);
		elog("%s: %d error%s: nothing was started", script__path(s), script__nr_errors(s),
		     script__nr_errors(s) == 1 ? "" : "s");
		ret = 2;
		goto out;
	}
	if (apply_overrides(&c, &o, x.given))
		goto nomem;
	if (config__finalize(&c, err, sizeof(err))) {
		elog("%s", err);
		goto out;
	}
	rr.file = file;
	rr.overrides = &o;
	rr.given = x.given;
	ret = cli_run_session(&c, reload_script, &rr);
	goto out;
nomem:
	elog("out of memory");
	ret = 1;
out:
	script__free(s);
	config__fini(&o);
	config__fini(&c);
	return ret;
}
