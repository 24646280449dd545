// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `trigrec show FILE`: the first thing to run on a snapshot (show/show.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "show/show.h"
#include "util/log.h"
#include "util/util.h"

static struct show_opts {
	int help;
	int force;
	int nlast;
	int json;
	uint64_t max_recs, span;
	const char *html, *chrome;
} so;

/*
 * A page of 250000 records is ~28 MB and a trace ~53 MB: browsers and the
 * Perfetto UI open those; the 2 M records of 64 CPUs x 4 MiB (237 MB of
 * HTML) they do not.
 */
#define SHOW_MAX_RECORDS 250000

#define SET(fn) static int fn(struct opt_ctx *x, const char *a, char *err, size_t len)

SET(o_last)
{
	uint64_t v;
	int e = parse_u64(a, 0, 100000, &v, err, len);

	so.nlast = v;
	return e;
}

SET(o_max)
{
	return parse_u64(a, 0, UINT32_MAX, &so.max_recs, err, len);
}

SET(o_span)
{
	int e = parse_duration(a, &so.span, err, len);

	if (!e && !so.span) {
		snprintf(err, len,
			 "--span 0: give the time before the trigger to explain (e.g. 50ms)");
		return -EINVAL;
	}
	return e;
}

SET(o_json)
{
	so.json = 1;
	return 0;
}

SET(o_html)
{
	so.html = a;
	return 0;
}

SET(o_chrome)
{
	so.chrome = a;
	return 0;
}

SET(o_force)
{
	so.force = 1;
	return 0;
}

SET(o_help)
{
	x->help = 1;
	return 0;
}

static const struct opt_spec show_opts[] = {
	{ 'n', "last", "N",
	  "how many records of the triggering thread to list\n"
	  "(up to and with the trigger's own; default 10)",
	  o_last, "Options:" },
	{ 0, "span", "DURATION",
	  "the why section's span for a trigger that is not a\n"
	  "latency: this long before the trigger (default 100ms;\n"
	  "a latency's span is its start to its end)",
	  o_span },
	{ 0, "json", NULL,
	  "print the analysis as one JSON object instead of the\n"
	  "report: what fired, the window, the why section's\n"
	  "breakdown, wake-ups and warnings (docs/show.md)",
	  o_json },
	{ 0, "html", "OUT.html",
	  "also write one self-contained page (no network):\n"
	  "a timeline with a lane per CPU, the tasks that ran\n(sched_switch), every record, "
	  "the trigger, the\nlatency span, rate window and post window, and\n"
	  "a lane of the triggering thread's states (why;\nhover a runnable stretch: who ran "
	  "instead);\nwheel zooms, drag pans, hover shows fields",
	  o_html },
	{ 0, "chrome-json", "OUT.json",
	  "also write Trace Event Format JSON for the Perfetto\n"
	  "UI (ui.perfetto.dev) or chrome://tracing: a track\nper CPU (task runs) and per "
	  "thread (records),\nthe trigger as a global instant, a track per state\nof the triggering thread (why)",
	  o_chrome },
	{ 0, "max-records", "N",
	  "at most N records in --html and --chrome-json:\nthose nearest the trigger "
	  "(default 250000;\n0: all). The terminal report counts them all",
	  o_max },
	{ 0, "force", NULL,
	  "replace an existing --html or --chrome-json file\n"
	  "(without it one is refused; a symlink there is\nreplaced, never followed)",
	  o_force },
	{ 'h', "help", NULL, "this text", o_help },
};
#define NR_SHOW_OPTS (int)(sizeof(show_opts) / sizeof(show_opts[0]))

static void usage(FILE *f)
{
	fputs("usage: trigrec show [options] FILE\n"
	      "\n"
	      "Tell what a snapshot holds. FILE is its .data or its .json sidecar (the\n"
	      "other is read from beside it). Prints what fired and why (the trigger's\n"
	      "text and fields; for a latency trigger both ends and the duration, for a\n"
	      "rate trigger the count and the window), the window per CPU, where the\n"
	      "triggering thread's time went over the span (why: running, runnable and\n"
	      "who ran instead, blocked and who woke it, unknown; where recorded, time in\n"
	      "system calls, irqs and softirqs; for a rate trigger who made up its\n"
	      "count, by key and by task; docs/show.md), the\n"
	      "busiest tasks and events, and the last records of the triggering thread\n"
	      "up to the trigger. Reads the perf.data itself (zstd-compressed too): neither\n"
	      "perf nor tracefs is needed, so it works on any machine.\n",
	      f);
	opts__help(f, show_opts, NR_SHOW_OPTS);
	fputs("\n"
	      "Examples (common questions):\n"
	      "  # Why was this snapshot taken, and what was the thread doing?\n"
	      "  trigrec show 20261201-124651.044770-slow_fsync.data\n"
	      "  # The last 30 records of the thread, and a page to look at in a browser:\n"
	      "  trigrec show -n 30 --html /tmp/snap.html /var/lib/trigrec/web/*-crash.data\n"
	      "  # The why section's analysis for a script, 20 ms before an event trigger:\n"
	      "  trigrec show --json --span 20ms F.data\n"
	      "  # Open it in the Perfetto UI (ui.perfetto.dev, Open trace file):\n"
	      "  trigrec show --chrome-json /tmp/snap.json F.data\n"
	      "\n"
	      "--html and --chrome-json files are created mode 0600 (they hold what the\n"
	      "snapshot holds); an existing one is refused unless --force.\n" CLI_MORE_EXAMPLES,
	      f);
}

/*
 * Outputs hold what the 0600 snapshot holds: created 0600, never through a
 * symlink, never over a file unless --force. Without it, O_EXCL; with it, a
 * new file beside the target (mkostemp: 0600, O_EXCL) renamed over it, so a
 * symlink there is replaced, not followed, and a reader never sees half.
 */
static int write_out(const char *path, const char *what, const struct show *s,
		     int (*fn)(const struct show *, FILE *, int), int nlast)
{
	char tmp[4096];
	FILE *f;
	int fd, err;

	if (so.force) {
		if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
			elog("%s %s: path too long", what, path);
			return -ENAMETOOLONG;
		}
		fd = mkostemp(tmp, O_CLOEXEC);
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	}
	if (fd < 0) {
		err = -errno;
		if (err == -EEXIST)
			elog("%s %s: the file exists (or a symlink is there): choose another path, "
			     "or add --force to replace it",
			     what, path);
		else
			elog("%s %s: %s (choose a writable path)", what, path, strerror(-err));
		return err;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		goto fail;
	}
	err = fn(s, f, nlast);
	if (fclose(f) && !err)
		err = -errno;
	if (!err && so.force && rename(tmp, path))
		err = -errno;
	if (!err)
		return 0;
fail:
	elog("%s %s: %s", what, path, strerror(-err));
	if (so.force)
		unlink(tmp);
	else
		unlink(path); /* our own new file: not left half written */
	return err;
}

static struct show_view view;

static int html_fn(const struct show *s, FILE *f, int nlast)
{
	return show__write_html(s, &view, f, nlast);
}

static int chrome_fn(const struct show *s, FILE *f, int nlast)
{
	return show__write_chrome(s, &view, f);
}

int cmd_show(int argc, char **argv)
{
	struct opt_ctx ctx = { 0 };
	const char *file = NULL;
	struct show *s;
	char err[1024];
	int i, ret = 0;

	so = (struct show_opts){ .nlast = 10, .max_recs = SHOW_MAX_RECORDS };
	/* options before and after FILE */
	for (i = 0; i < argc;) {
		int k = opts__parse(show_opts, NR_SHOW_OPTS, "show", argc - i, argv + i, &ctx);

		if (k < 0)
			return 2;
		if (ctx.help) {
			usage(stdout);
			return 0;
		}
		i += k;
		if (i >= argc)
			break;
		if (file) {
			elog("show takes one FILE (got %s and %s)", file, argv[i]);
			return 2;
		}
		file = argv[i];
	}
	if (!file) {
		elog("show: give a snapshot, its .data or its .json");
		usage(stderr);
		return 2;
	}
	s = show__open(file, err, sizeof(err));
	if (!s) {
		char name[4096];

		/* a name from a glob is anyone's: no escapes to the terminal (err is clean) */
		snprintf(name, sizeof(name), "%s", file);
		pdr_clean_text(name);
		elog("cannot read snapshot %s: %s", name, err);
		return 1;
	}
	s->why_span_ns = so.span;
	if (so.json) {
		struct show_why *w = malloc(sizeof(*w));
		int e = w ? show_why(s, so.span, w) : -ENOMEM;

		if (!e)
			show_why_json(s, w, stdout);
		else
			elog("show --json: %s", strerror(-e));
		if (w)
			show_why_free(w);
		free(w);
		if (e)
			ret = 1;
	} else {
		show__print(s, stdout, so.nlast);
	}
	show_view_pick(s, so.max_recs, &view);
	if ((so.html || so.chrome) && view.cut) {
		char a[40], b[40];

		show_fmt_time(view.t0, a, sizeof(a));
		show_fmt_time(view.t1, b, sizeof(b));
		ilog("%s: the %zu records nearest the trigger (%s .. %s) of %zu; --max-records 0 "
		     "for all",
		     so.html && so.chrome ? "--html and --chrome-json" :
		     so.html		  ? "--html" :
					    "--chrome-json",
		     view.hi - view.lo, a, b, s->nr);
	}
	if (so.html && write_out(so.html, "--html", s, html_fn, so.nlast))
		ret = 1;
	if (so.chrome && write_out(so.chrome, "--chrome-json", s, chrome_fn, 0))
		ret = 1;
	if (!ret && so.html)
		ilog("wrote %s", so.html);
	if (!ret && so.chrome)
		ilog("wrote %s", so.chrome);
	show__free(s);
	return ret;
}
