// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `trigrec list [-v] [GLOB...]`: what can be recorded and triggered on, and with which fields. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/probes.h"
#include "capture/tracefs.h"
#include "cli/cli.h"
#include "lang/trigger_lang.h"
#include "util/log.h"

static const char list_usage[] =
	"usage: trigrec list [-v] [GLOB...]\n"
	"\n"
	"List tracepoints (SYS:NAME, from tracefs) and software events, one a line with\n"
	"its kind: [tracepoint] or [software event]. A GLOB selects tracepoints:\n"
	"'sched:*', '*:*switch*'; a bare word is a subsystem ('sched'), or a software\n"
	"event ('cpu-*'). Without GLOB, everything, then the dynamic probe kinds\n"
	"(kprobe:, kretprobe:, uprobe:, uretprobe:, usdt:) and whether this kernel has them.\n"
	"A probe name (uprobe:/bin/bash:readline) is listed with the fields it records.\n"
	"\n"
	"  -v, --verbose   also each event's fields, one a line, from its tracefs format:\n"
	"                      NAME  TYPE  size:N  signed:0|1  CLASS  ops: OPERATORS  [key]  (advice)\n"
	"                  CLASS is what a trigger or filter can do with it: string\n"
	"                  (== != ~), integer (== != < <= > >= &), pointer (the address\n"
	"                  only: the memory it points to is not in the record) or array\n"
	"                  (not comparable); key: allowed in `by KEY`. Then the synthetic\n"
	"                  fields every trigger accepts (comm, pid, tid, cpu, cgroup).\n"
	"  -h, --help      this text\n"
	"\n"
	"Examples (common questions):\n"
	"  trigrec list sched                          # which scheduler events exist?\n"
	"  trigrec list 'syscalls:sys_enter_open*'     # is there a tracepoint for openat?\n"
	"  trigrec list -v sched:sched_switch          # which fields can a trigger test?\n"
	"  trigrec list -v block:block_rq_issue | grep ' integer '   # what can be a key?\n"
	"  trigrec list cpu-clock                      # is it a software event?\n"
	"  trigrec list -v uretprobe:/bin/bash:readline  # what does a probe record?\n"
	"  trigrec list -v usdt:/usr/bin/python3:python:function__entry\n" CLI_MORE_EXAMPLES;

static const char *sw_names[] = { "cpu-clock",	      "task-clock",	"page-faults",
				  "context-switches", "cpu-migrations", "minor-faults",
				  "major-faults" };
#define NR_SW (int)(sizeof(sw_names) / sizeof(sw_names[0]))

static void print_kind(const char *name, const char *kind)
{
	int pad = 48 - (int)strlen(name);

	printf("%s%*s [%s]\n", name, pad > 0 ? pad : 1, "", kind);
}

static void print_use(const char *name, const char *type, unsigned int size, int is_signed,
		      const struct tl_field_use *u)
{
	printf("    %-24s %-28s size:%-3u signed:%d  %-8s ops: %s%s%s%s%s\n", name, type, size,
	       is_signed, u->cls_name, u->ops, u->key ? "  key" : "", *u->note ? "  (" : "",
	       u->note, *u->note ? ")" : "");
}

/* The fields of one tracepoint; 0, or -errno after saying why. */
static int print_fields(const struct tp_name *tp)
{
	struct tp_format *f = tp_format__load(tp->sys, tp->name);
	char shadow[64] = "";
	struct tl_synth_field s;
	int nsynth = tl_synth_field(0, &s);

	if (!f) {
		int err = errno;

		elog("%s:%s: cannot read its format: %s", tp->sys, tp->name, strerror(err));
		return -err;
	}
	for (int i = 0; i < f->nr_fields; i++) {
		const struct tp_field *fl = &f->fields[i];
		struct tl_field_use u;

		tl_field_use(fl, &u);
		print_use(fl->name, fl->type, fl->size, fl->is_signed, &u);
		for (int k = 0; k < nsynth; k++)
			if (tl_synth_field(k, &s) == nsynth && !strcmp(s.name, fl->name))
				snprintf(shadow + strlen(shadow), sizeof(shadow) - strlen(shadow),
					 "%s%s", *shadow ? ", " : "", s.name);
	}
	/* Say it where it bites: here `pid` is the event's field, not the current task's. */
	if (*shadow)
		printf("    (%s: the event's own field here; write it in upper case for the "
		       "current task's)\n",
		       shadow);
	tp_format__free(f);
	return 0;
}

static void print_synthetic(void)
{
	struct tl_synth_field s;
	int n = tl_synth_field(0, &s);

	printf("synthetic fields (every tracepoint, in triggers; upper case where the event "
	       "has a field of that name):\n");
	for (int i = 0; i < n; i++) {
		tl_synth_field(i, &s);
		print_use(s.name, s.type, s.size, 0, &s.use);
		printf("        %s\n", s.desc);
	}
}

static const struct {
	const char *form;
	enum probe_kind kind;
} probe_forms[] = {
	{ "kprobe:FUNCTION[+OFFSET]", PROBE_KPROBE },
	{ "kretprobe:FUNCTION", PROBE_KRETPROBE },
	{ "uprobe:PATH:SYMBOL[+OFFSET]", PROBE_UPROBE },
	{ "uretprobe:PATH:SYMBOL", PROBE_URETPROBE },
	{ "usdt:PATH:PROVIDER:NAME", PROBE_USDT },
};

/* The probe kinds, after everything else: each a form to fill in, and whether it works here. */
static void list_probe_kinds(int verbose)
{
	for (size_t i = 0; i < sizeof(probe_forms) / sizeof(probe_forms[0]); i++) {
		char kind[96];

		snprintf(kind, sizeof(kind), "%s%s", probe_kind_name(probe_forms[i].kind),
			 probes__kernel_has(probe_forms[i].kind) ? "" :
			 tracefs_unusable() ? "] [unknown: tracefs cannot be read" :
			 probe_forms[i].kind == PROBE_KPROBE ||
					 probe_forms[i].kind == PROBE_KRETPROBE ?
					      "] [not in this kernel: no kprobe_events" :
					      "] [not in this kernel: no uprobe_events");
		print_kind(probe_forms[i].form, kind);
		if (verbose)
			printf("    (fields: see `trigrec list -v %s...`, or choose them: "
			       "NAME(FIELD, ...), docs/triggers.md)\n",
			       probe_kind_name(probe_forms[i].kind));
	}
}

/* A probe name: its dynamic event(s), with the probe's name and kind. */
static int list_probe(const char *name, int verbose)
{
	struct tp_name *tps = NULL;
	int n = probes__glob(name, &tps);

	if (n <= 0) {
		elog("%s: %s", name, n ? probes__error() : "no such probe");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char kind[320];

		snprintf(kind, sizeof(kind), "%s] [as %s:%s while trigrec runs",
			 probe_kind_name(probe_kind_of(name)), tps[i].sys, tps[i].name);
		print_kind(name, kind);
		if (verbose && print_fields(&tps[i])) {
			free(tps);
			return -1;
		}
	}
	free(tps);
	return n;
}

/* One GLOB (or NULL: everything); returns how many events it matched, or -1. */
static int list_one(const char *glob, int verbose)
{
	const char *pat = glob ? glob : "*:*";
	struct tp_name *tps = NULL;
	char buf[256];
	int n, sw = 0;

	if (glob && probe_kind_of(glob))
		return list_probe(glob, verbose);

	for (int i = 0; i < NR_SW; i++) {
		if (glob && fnmatch(glob, sw_names[i], 0))
			continue;
		print_kind(sw_names[i], "software event");
		if (verbose)
			printf("    (no fields: sampled every -c N events or -F HZ; not a trigger)\n");
		sw++;
	}
	if (!strchr(pat, ':') && !strchr(pat, '/')) {
		snprintf(buf, sizeof(buf), "%s:*", pat);
		pat = buf;
	}
	/* A software event by its name needs no tracefs. */
	if (sw && glob && !strpbrk(glob, "*?[:"))
		return sw;
	/* Without tracefs (tracefs_root() said why), the software events stand alone. */
	if (!tracefs_root())
		return sw && glob ? sw : -1;
	n = probes__glob(pat, &tps);
	if (n < 0) {
		elog("cannot list tracepoints: %s", strerror(-n));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		/* Other trigrec runs' probes come and go with them: not this kernel's events. */
		if (!strncmp(tps[i].sys, "trigrec_", 8))
			continue;
		snprintf(buf, sizeof(buf), "%s:%s", tps[i].sys, tps[i].name);
		print_kind(buf, "tracepoint");
		if (verbose && print_fields(&tps[i])) {
			free(tps);
			return -1;
		}
	}
	free(tps);
	if (!n && !sw)
		elog("no tracepoint or software event matches '%s' (trigrec list shows them all)",
		     glob);
	return n + sw;
}

int cmd_list(int argc, char **argv)
{
	int verbose = 0, first = 1, ret = 0;

	for (; first < argc && argv[first][0] == '-' && argv[first][1]; first++) {
		const char *a = argv[first];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(list_usage, stdout);
			return 0;
		}
		if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			verbose = 1;
		} else if (!strcmp(a, "--")) {
			first++;
			break;
		} else {
			elog("unknown option %s for list (options: -v, -h)", a);
			fputs(list_usage, stderr);
			return 2;
		}
	}
	for (int i = first; i < argc; i++) {
		if (!*argv[i]) {
			elog("empty GLOB: give a pattern such as 'sched:*', or none to list everything");
			return 2;
		}
		if (strlen(argv[i]) > 200) {
			elog("GLOB too long (%zu bytes; tracepoint names are at most 200)",
			     strlen(argv[i]));
			return 2;
		}
	}
	if (first >= argc) {
		ret = list_one(NULL, verbose) <= 0;
		list_probe_kinds(verbose);
	}
	for (int i = first; i < argc; i++)
		if (list_one(argv[i], verbose) <= 0)
			ret = 1;
	if (verbose && !ret)
		print_synthetic();
	return ret;
}
