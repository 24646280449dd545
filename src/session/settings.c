// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The settings table (settings.h): one row per setting, and what is made from it.
 *
 * A setting is a value of the run: how big, how often, where, who, what to
 * do with a snapshot. Adding or changing one is its field in config.h and
 * one row here; a new kind of value (a list, a command, a pair of limits) is
 * a type (enum setting_type) and a parser/printer pair beside the others.
 *
 * Not settings, and so not rows: -e/--filter (`record EVENT [if FILTER]`),
 * --trigger (`trigger NAME { ... }`) and the command (`-- CMD`, `command`).
 * They are the script's body, what is recorded and when it is cut, kept in
 * their own lists (events[], trigs[], cmd) with their own syntax, parsed in
 * cli/cmd_record.c and script/script.c, printed by config__dump_script().
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "harvest/control.h"
#include "service/hooks.h"
#include "service/retention.h"
#include "session/settings.h"
#include "util/netaddr.h"
#include "util/util.h"

#define FIELD(c, s, T) (*(T *)((char *)(c) + (s)->off))
#define CFIELD(c, s, T) (*(const T *)((const char *)(c) + (s)->off))
typedef char **argv_t; /* SETT_ARGV's field, for CFIELD() */

/* ------------------------------------------------------------------ */
/* Parsers: a value (NULL for a flag) into the row's field              */

static int p_flag(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		  size_t len)
{
	(void)a, (void)err, (void)len;
	FIELD(c, s, int) = 1;
	return 0;
}

/* A number within [min, max], into whatever width the row stores. */
static int p_range(struct trigrec_config *c, const struct setting *s, const char *a, uint64_t min,
		   uint64_t max, char *err, size_t len)
{
	uint64_t v;
	int e = parse_u64(a, min, max, &v, err, len);

	if (e)
		return e;
	switch (s->type) {
	case SETT_U32: FIELD(c, s, uint32_t) = (uint32_t)v; break;
	case SETT_ULONG: FIELD(c, s, unsigned long) = (unsigned long)v; break;
	case SETT_PID: FIELD(c, s, pid_t) = (pid_t)v; break;
	default: FIELD(c, s, uint64_t) = v;
	}
	return 0;
}

static int p_freq(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		  size_t len)
{
	return p_range(c, s, a, 1, 1000000, err, len);
}

static int p_period(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		    size_t len)
{
	return p_range(c, s, a, 1, UINT64_MAX >> 1, err, len);
}

static int p_pid(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		 size_t len)
{
	return p_range(c, s, a, 1, 1u << 30, err, len);
}

static int p_count(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		   size_t len)
{
	return p_range(c, s, a, 1, 1000000000, err, len);
}

static int p_lru(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		 size_t len)
{
	return p_range(c, s, a, 1024, 1u << 22, err, len);
}

static int p_mmap(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		  size_t len)
{
	return parse_mmap_pages(a, &FIELD(c, s, uint64_t), err, len);
}

static int p_rings(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		   size_t len)
{
	return config__parse_rings(a, &FIELD(c, s, int), err, len);
}

static int p_count_kill(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
			size_t len)
{
	return config__parse_count_kill(a, &FIELD(c, s, int), err, len);
}

static int p_post(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		  size_t len)
{
	uint64_t ns;
	int e = parse_duration(a, &ns, err, len);

	if (e)
		return e;
	if (ns > TL_MAX_POST_NS) {
		snprintf(err, len, "'%s' is longer than an hour, the most it may be", a);
		return -EINVAL;
	}
	FIELD(c, s, uint64_t) = ns;
	return 0;
}

static int p_onsnap_timeout(struct trigrec_config *c, const struct setting *s, const char *a,
			    char *err, size_t len)
{
	return config__parse_on_snapshot_timeout(a, &FIELD(c, s, uint64_t), err, len);
}

static int p_onsnap_jobs(struct trigrec_config *c, const struct setting *s, const char *a,
			 char *err, size_t len)
{
	return config__parse_on_snapshot_jobs(a, &FIELD(c, s, unsigned int), err, len);
}

static int set_str(struct trigrec_config *c, const struct setting *s, const char *a)
{
	return config__set_str(&FIELD(c, s, char *), a);
}

/* A file path: any but the empty one. */
static int p_path(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		  size_t len)
{
	if (!*a) {
		snprintf(err, len, "empty path");
		return -EINVAL;
	}
	return set_str(c, s, a);
}

static int p_cgroup(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		    size_t len)
{
	if (*a != '/') {
		snprintf(err, len,
			 "'%s': give the cgroup v2 directory as an absolute path "
			 "(e.g. /sys/fs/cgroup/system.slice/nginx.service)",
			 a);
		return -EINVAL;
	}
	return set_str(c, s, a);
}

static int p_control(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		     size_t len)
{
	size_t max = sizeof(((struct sockaddr_un *)0)->sun_path) - 1;

	/* An empty path would bind an abstract socket, which has no permissions. */
	if (!*a) {
		snprintf(err, len,
			 "empty path (an abstract socket anyone could reach is refused; "
			 "give a file path such as /run/trigrec.sock)");
		return -EINVAL;
	}
	if (strlen(a) > max) {
		snprintf(err, len, "%s: path too long for a UNIX socket (at most %zu bytes)", a,
			 max);
		return -EINVAL;
	}
	return set_str(c, s, a);
}

static int p_metrics(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		     size_t len)
{
	struct sockaddr_storage ss;
	int e = netaddr_parse(a, &ss, err, len);

	return e ? e : set_str(c, s, a);
}

static int p_onsnap_user(struct trigrec_config *c, const struct setting *s, const char *a,
			 char *err, size_t len)
{
	int e = config__parse_on_snapshot_user(a, err, len);

	return e ? e : set_str(c, s, a);
}

static int p_instance(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		      size_t len)
{
	if (!retention_instance_ok(a)) {
		snprintf(err, len,
			 "'%s' is not an instance ID: 1-%d of A-Z a-z 0-9 _ . - (such as the "
			 "unit's name, web)",
			 a, RETENTION_INSTANCE_MAX);
		return -EINVAL;
	}
	return set_str(c, s, a);
}

static int p_name(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		  size_t len)
{
	size_t n = strlen(a);

	if (!n || n > 63 ||
	    strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n) {
		snprintf(err, len,
			 "'%.*s': a file name prefix of 1 to 63 characters from A-Z a-z 0-9 _ . -",
			 64, a);
		return -EINVAL;
	}
	return set_str(c, s, a);
}

/* --no-buildid-cache (a flag), `buildid_cache on|off`. */
static int p_buildid(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		     size_t len)
{
	if (!a || !strcmp(a, "off") || !strcmp(a, "none")) {
		FIELD(c, s, int) = 1;
	} else if (!strcmp(a, "on")) {
		FIELD(c, s, int) = 0;
	} else {
		snprintf(err, len, "%s: say on or off (%s)", a, s->usage);
		return -EINVAL;
	}
	return 0;
}

/* -C LIST: a fresh mask of the possible CPUs. */
static int p_cpulist(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		     size_t len)
{
	int ncpu = cpus_possible();
	unsigned char **mask = &FIELD(c, s, unsigned char *);

	if (ncpu <= 0)
		ncpu = 1;
	free(*mask);
	*mask = calloc((size_t)ncpu, 1);
	*(int *)((char *)c + s->off2) = ncpu;
	if (!*mask)
		return -ENOMEM;
	return parse_cpulist(a, *mask, ncpu, err, len);
}

/* `cpus all` (as -a) or `cpus LIST` (as -C); "" says what to write. */
static int p_cpus_stmt(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		       size_t len)
{
	if (!*a) {
		snprintf(err, len,
			 "expected a CPU list after 'cpus' (e.g. cpus 0-3,5, or cpus all)");
		return -EINVAL;
	}
	if (!strcmp(a, "all")) {
		c->all_cpus = 1;
		return 0;
	}
	return p_cpulist(c, s, a, err, len);
}

static int p_output(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		    size_t len)
{
	if (!*a) {
		snprintf(err, len, "empty path (give a directory, e.g. -o .)");
		return -EINVAL;
	}
	return set_str(c, s, a);
}

/* --keep-*: "0" lifts a limit (for `run`, over the script's `keep`). */
static int p_keep_files(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
			size_t len)
{
	return parse_u64(a, 0, 1000000000, &FIELD(c, s, uint64_t), err, len);
}

static int p_keep_bytes(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
			size_t len)
{
	if (!strcmp(a, "0"))
		return FIELD(c, s, uint64_t) = 0, 0;
	return parse_size(a, &FIELD(c, s, uint64_t), err, len);
}

static int p_keep_age(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		      size_t len)
{
	if (!strcmp(a, "0"))
		return FIELD(c, s, uint64_t) = 0, 0;
	return parse_duration(a, &FIELD(c, s, uint64_t), err, len);
}

/* -z [N]: alone, level 1 (perf record's default). */
static int p_zstd(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		  size_t len)
{
	int level = 1;

	if (a && config__parse_zstd_level(a, &level, err, len))
		return -EINVAL;
	FIELD(c, s, int) = level;
	return 0;
}

/* N/PERIOD[,N/PERIOD] into the pair of arrays. */
static int p_budget(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		    size_t len)
{
	int n = parse_budget(a, &FIELD(c, s, uint64_t), (uint64_t *)((char *)c + s->off2), 2, err,
			     len);

	return n < 0 ? n : 0;
}

/* 'CMD ARG...': split as hooks split it (blanks, '...' and "..." quote; no shell). */
static int p_argv(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		  size_t len)
{
	char **v;
	int e = hook_argv_split(a, &v, err, len);

	if (e)
		return e;
	settings__put_argv(c, s, v);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Printers: the statement, or nothing at the default                   */

void settings__put_word(FILE *out, const char *w)
{
	int bare = *w != 0;

	for (const char *p = w; *p && bare; p++)
		bare = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		       (*p >= '0' && *p <= '9') || strchr("_-./:*+,=@%", *p);
	if (bare) {
		fputs(w, out);
		return;
	}
	fputc('"', out);
	for (const char *p = w; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

void settings__put_size(FILE *out, uint64_t bytes)
{
	if (bytes && !(bytes % (1ull << 30)))
		fprintf(out, "%lluG", (unsigned long long)(bytes >> 30));
	else if (bytes && !(bytes % (1ull << 20)))
		fprintf(out, "%lluM", (unsigned long long)(bytes >> 20));
	else if (bytes && !(bytes % 1024))
		fprintf(out, "%lluK", (unsigned long long)(bytes >> 10));
	else
		fprintf(out, "%lluB",
			(unsigned long long)bytes); /* a bare number is pages to `buffer` */
}

void settings__put_duration(FILE *out, uint64_t ns)
{
	char buf[32];

	fputs(fmt_duration_as_written(ns, buf, sizeof(buf)), out);
}

static void pr_flag(const struct trigrec_config *c, const struct setting *s, FILE *out)
{
	if (CFIELD(c, s, int))
		fprintf(out, "%s\n", s->kw);
}

static void pr_num(const struct trigrec_config *c, const struct setting *s, FILE *out)
{
	uint64_t v = settings__get(c, s);

	if (v != s->def)
		fprintf(out, "%s %llu\n", s->kw, (unsigned long long)v);
}

static void pr_duration(const struct trigrec_config *c, const struct setting *s, FILE *out)
{
	if (CFIELD(c, s, uint64_t) == s->def)
		return;
	fprintf(out, "%s ", s->kw);
	settings__put_duration(out, CFIELD(c, s, uint64_t));
	fputc('\n', out);
}

static void pr_word(const struct trigrec_config *c, const struct setting *s, FILE *out)
{
	if (!CFIELD(c, s, char *))
		return;
	fprintf(out, "%s ", s->kw);
	settings__put_word(out, CFIELD(c, s, char *));
	fputc('\n', out);
}

/* Always: the run's ring size, in bytes (pages differ between machines). */
static void pr_buffer(const struct trigrec_config *c, const struct setting *s, FILE *out)
{
	long page = sysconf(_SC_PAGESIZE);

	fprintf(out, "%s ", s->kw);
	settings__put_size(out, CFIELD(c, s, uint64_t) * (uint64_t)(page > 0 ? page : 4096));
	fputc('\n', out);
}

static void pr_rings(const struct trigrec_config *c, const struct setting *s, FILE *out)
{
	if (CFIELD(c, s, int))
		fprintf(out, "%s %s\n", s->kw, rec_rings_name(CFIELD(c, s, int)));
}

/* -C's row prints -a's value too: `cpus all`, or the list (-C with a command
 * already records system-wide, as -a does). */
static void pr_cpus(const struct trigrec_config *c, const struct setting *s, FILE *out)
{
	const unsigned char *mask = CFIELD(c, s, unsigned char *);
	char buf[4096];

	if (!mask) {
		if (c->all_cpus)
			fprintf(out, "%s all\n", s->kw);
		return;
	}
	format_cpulist(mask, *(const int *)((const char *)c + s->off2), buf, sizeof(buf));
	fprintf(out, "%s %s\n", s->kw, buf);
}

/* output DIR, and on the same line the keep rows' limits (their in_stmt). */
static void pr_output(const struct trigrec_config *c, const struct setting *s, FILE *out)
{
	const char *sep = " keep ";

	if (!CFIELD(c, s, char *))
		return; /* config__finalize() makes it "." */
	fprintf(out, "%s ", s->kw);
	settings__put_word(out, CFIELD(c, s, char *));
	if (c->keep_files) {
		fprintf(out, "%s%llu files", sep, (unsigned long long)c->keep_files);
		sep = ", ";
	}
	if (c->keep_bytes) {
		fputs(sep, out);
		settings__put_size(out, c->keep_bytes);
		sep = ", ";
	}
	if (c->keep_age_ns) {
		fputs(sep, out);
		settings__put_duration(out, c->keep_age_ns);
	}
	fputc('\n', out);
}

static void pr_compress(const struct trigrec_config *c, const struct setting *s, FILE *out)
{
	if (CFIELD(c, s, int))
		fprintf(out, "%s zstd %d\n", s->kw, CFIELD(c, s, int));
}

static void pr_budget(const struct trigrec_config *c, const struct setting *s, FILE *out)
{
	const uint64_t *n = &CFIELD(c, s, uint64_t);
	const uint64_t *per = (const uint64_t *)((const char *)c + s->off2);

	if (!n[0])
		return;
	fprintf(out, "%s ", s->kw);
	for (int i = 0; i < 2 && n[i]; i++) {
		uint64_t p = per[i];
		char d[32];

		fprintf(out, "%s%llu/%s", i ? ", " : "", (unsigned long long)n[i],
			p == 86400000000000ULL ? "day" :
			p == 3600000000000ULL  ? "hour" :
			p == 60000000000ULL    ? "min" :
			p == 1000000000ULL     ? "s" :
						 fmt_duration(p, d, sizeof(d)));
	}
	fputc('\n', out);
}

static void pr_argv(const struct trigrec_config *c, const struct setting *s, FILE *out)
{
	char *const *v = CFIELD(c, s, argv_t);

	if (!v)
		return;
	fputs(s->kw, out);
	for (; *v; v++) {
		fputc(' ', out);
		settings__put_word(out, *v);
	}
	fputc('\n', out);
}

static void pr_buildid(const struct trigrec_config *c, const struct setting *s, FILE *out)
{
	if (CFIELD(c, s, int))
		fprintf(out, "%s off\n", s->kw);
}

/* ------------------------------------------------------------------ */
/* The table                                                            */

#define OFF(f) offsetof(struct trigrec_config, f)
#define G_EVENTS "Events:"
#define G_SCOPE "Scope (default -a when there is no command and no -p):"
#define G_TRIG "Triggers and snapshots:"
#define G_SHIP "Shipping:"
#define G_MON "Monitoring:"

const struct setting settings[] = {
	{
		.name = "mmap-pages",
		.example = "4M",
		.short_name = 'm',
		.arg = "N|SIZE",
		.group = G_EVENTS,
		.run = 1,
		.help = "ring per CPU: pages (power of two) or a size\n"
			"(512K, 4M); default 1M, at least 16K",
		.kw = "buffer",
		.form = SETF_UNIT,
		.what = "buffer: ",
		.usage = "buffer SIZE (e.g. buffer 8M), per CPU",
		.off = OFF(mmap_pages),
		.type = SETT_U64,
		.def = 256, /* 1 MiB with 4 KiB pages */
		.parse = p_mmap,
		.print = pr_buffer,
		.reload = "buffer",
	},
	{
		/* The tracking ring (COMM/FORK/EXIT): small, and rarely wraps. No flag. */
		.off = OFF(track_pages),
		.type = SETT_U64,
		.def = 16,
		.reload = "buffer",
	},
	{
		.name = "freq",
		.example = "99",
		.short_name = 'F',
		.arg = "HZ",
		.group = G_EVENTS,
		.help = "sampling frequency for software events (default 4000)",
		.kw = "frequency",
		.form = SETF_VALUE,
		.what = "frequency (Hz): ",
		.usage = "frequency HZ (e.g. frequency 99)",
		.excludes = "period",
		.excl_why = "sample by frequency or by period",
		.off = OFF(freq),
		.type = SETT_U64,
		.parse = p_freq,
		.print = pr_num,
		.reload = "sampling (-F, -c, -g)",
	},
	{
		.name = "period",
		.example = "10007",
		.short_name = 'c',
		.arg = "N",
		.group = G_EVENTS,
		.help = "sample every N events instead of -F",
		.kw = "period",
		.form = SETF_VALUE,
		.what = "period (events per sample): ",
		.usage = "period N (sample every N events)",
		.excludes = "frequency",
		.excl_why = "sample by frequency or by period",
		.off = OFF(period),
		.type = SETT_U64,
		.parse = p_period,
		.print = pr_num,
		.reload = "sampling (-F, -c, -g)",
	},
	{
		.name = "call-graph",
		.short_name = 'g',
		.group = G_EVENTS,
		.help = "record call chains",
		.kw = "callgraph",
		.form = SETF_FLAG,
		.usage = "callgraph",
		.off = OFF(callgraph),
		.type = SETT_INT,
		.parse = p_flag,
		.print = pr_flag,
		.reload = "sampling (-F, -c, -g)",
	},
	{
		.name = "all-cpus",
		.short_name = 'a',
		.group = G_SCOPE,
		.help = "every CPU, every task (with a command: system-wide\n"
			"while it runs; its triggers still only fire in it)",
		.alias_to = "cpus all",
		.in_stmt = "cpus",
		.off = OFF(all_cpus),
		.type = SETT_INT,
		.parse = p_flag,
		.reload = "scope (cpus, cgroup, command)",
	},
	{
		.name = "cpu",
		.example = "0",
		.short_name = 'C',
		.arg = "LIST",
		.group = G_SCOPE,
		.help = "only these CPUs (0-3,5)",
		.kw = "cpus",
		.form = SETF_LINE,
		.usage = "cpus LIST|all (e.g. cpus 0-3,5)",
		.off = OFF(cpumask),
		.off2 = OFF(nr_cpumask),
		.type = SETT_CPUMASK,
		.parse = p_cpulist,
		.stmt_parse = p_cpus_stmt,
		.print = pr_cpus,
		.reload = "scope (cpus, cgroup, command)",
	},
	{
		.name = "cgroup",
		.example = "/sys/fs/cgroup/web.slice",
		.short_name = 'G',
		.arg = "PATH",
		.group = G_SCOPE,
		.help = "only tasks in this cgroup (v2 directory), as perf\n"
			"record -G; triggers only fire there",
		.kw = "cgroup",
		.form = SETF_PATH,
		.what = "cgroup ",
		.usage = "cgroup PATH",
		.off = OFF(cgroup),
		.type = SETT_STR,
		.parse = p_cgroup,
		.print = pr_word,
		.reload = "scope (cpus, cgroup, command)",
	},
	{
		.name = "pid",
		.example = "4242",
		.short_name = 'p',
		.arg = "PID",
		.group = G_SCOPE,
		.help = "only this process (its threads and children); stop\nwhen it exits",
		.kw = "pid",
		.form = SETF_VALUE,
		.usage = "pid PID",
		.excludes = "command",
		.excl_why = "record one or the other",
		.off = OFF(pid),
		.type = SETT_PID,
		.parse = p_pid,
		.print = pr_num,
		.reload = "scope (cpus, cgroup, command)",
	},
	{
		.name = "budget",
		.example = "10/min,60/hour",
		.arg = "N/PERIOD[,N/PERIOD]",
		.group = G_TRIG,
		.run = 1,
		.help = "at most N snapshots per PERIOD across all\n"
			"triggers (storm control, e.g. 10/min,60/hour);\non top of each trigger's limit",
		.kw = "budget",
		.form = SETF_WORDS,
		.usage = "budget N/PERIOD[, N/PERIOD] (e.g. budget 10/min, 60/hour)",
		/* A reload applies it: the new BPF object gets the new buckets. */
		.off = OFF(bpf.budget_n),
		.off2 = OFF(bpf.budget_period_ns),
		.type = SETT_PAIRS,
		.parse = p_budget,
		.print = pr_budget,
	},
	{
		.name = "output",
		.example = "/tmp/snaps",
		.short_name = 'o',
		.arg = "DIR",
		.group = G_TRIG,
		.run = 1,
		.help = "where snapshots go (default .; created if missing,\nits parent must exist; checked by a test file at start)",
		.kw = "output",
		.form = SETF_OUTPUT,
		.usage = "output DIR [keep N files, SIZE, AGE]",
		/* NULL until config__finalize() makes it ".". */
		.off = OFF(outdir),
		.type = SETT_STR,
		.parse = p_output,
		.print = pr_output,
		.reload = "output",
	},
	{
		.name = "compression-level",
		.example = "7",
		.short_name = 'z',
		.arg = "[N]",
		.group = G_TRIG,
		.run = 1,
		.help = "compress snapshots with zstd, as perf record -z:\n"
			"level N from 1 (fastest, the default) to 22\n(smallest); 0 = off",
		.kw = "compress",
		.form = SETF_COMPRESS,
		.usage = "compress zstd [LEVEL] (1 fastest to 22 smallest; or none)",
		.alias_to = "compress zstd",
		.off = OFF(zstd_level),
		.type = SETT_INT,
		.parse = p_zstd,
		.print = pr_compress,
		.reload = "compress",
	},
	{
		.name = "keep-files",
		.example = "5",
		.arg = "N",
		.group = G_TRIG,
		.run = 1,
		.help = "retention in -o: keep at most N snapshots (a .data\n"
			"and its .json each), removing the oldest; 0 = no limit",
		/* `keep` sets the three keep rows; `output DIR keep ...` prints them. */
		.kw = "keep",
		.form = SETF_KEEP,
		.usage = "keep N files, SIZE, AGE (e.g. keep 50 files, 2G, 7d)",
		.in_stmt = "output",
		.off = OFF(keep_files),
		.type = SETT_U64,
		.parse = p_keep_files,
		.reload = "keep",
	},
	{
		.name = "keep-bytes",
		.example = "1G",
		.arg = "SIZE",
		.group = G_TRIG,
		.run = 1,
		.help = "keep at most SIZE of snapshots (2G); a snapshot\n"
			"bigger than that alone is refused",
		.alias_to = "keep",
		.in_stmt = "keep",
		.off = OFF(keep_bytes),
		.type = SETT_U64,
		.parse = p_keep_bytes,
		.reload = "keep",
	},
	{
		.name = "keep-age",
		.example = "2d",
		.arg = "AGE",
		.group = G_TRIG,
		.run = 1,
		.help = "remove snapshots older than AGE (7d, 12h)",
		.alias_to = "keep",
		.in_stmt = "keep",
		.off = OFF(keep_age_ns),
		.type = SETT_U64,
		.parse = p_keep_age,
		.reload = "keep",
	},
	{
		.name = "post",
		.example = "10ms",
		.arg = "DURATION",
		.group = G_TRIG,
		.help = "keep recording this long after the trigger\n"
			"(e.g. 10ms; default 0: the cut is at the trigger)",
		.kw = "post",
		.form = SETF_UNIT,
		.usage = "post DURATION (e.g. post 10ms)",
		/* Swapped with the triggers on reload (they take it as their default). */
		.off = OFF(post_ns),
		.type = SETT_U64,
		.parse = p_post,
		.print = pr_duration,
	},
	{
		.name = "count",
		.example = "3",
		.arg = "N",
		.group = G_TRIG,
		.run = 1,
		.help = "stop after N snapshots written (at least 1; a failed\n"
			"write does not count); the command gets --count-kill",
		.off = OFF(count),
		.type = SETT_ULONG,
		.parse = p_count,
		.reload = "run options",
	},
	{
		.name = "count-kill",
		.example = "INT",
		.arg = "SIGNAL",
		.group = G_TRIG,
		.run = 1,
		.help = "what the command gets when --count is reached: a\n"
			"signal (TERM, the default: it ends with the run, as\n"
			"at Ctrl-C; INT, KILL, ...) or none (trigrec exits\n"
			"and leaves it running)",
		/* --count ends the run; the command trigrec started ends with it, as at Ctrl-C. */
		.off = OFF(count_kill),
		.type = SETT_INT,
		.def = SIGTERM,
		.parse = p_count_kill,
	},
	{
		.name = "no-final-snapshot",
		.group = G_TRIG,
		.run = 1,
		.help = "do not write a snapshot at the end",
		.off = OFF(no_final),
		.type = SETT_INT,
		.parse = p_flag,
		.reload = "run options",
	},
	{
		.name = "control",
		.example = "/run/trigrec.sock",
		.arg = "PATH",
		.group = G_TRIG,
		.run = 1,
		.help = "owner-only UNIX socket for `trigrec status PATH`\n"
			"and `trigrec control PATH VERB`, VERB one of\n" CONTROL_VERBS,
		.kw = "control",
		.form = SETF_PATH,
		.what = "control ",
		.usage = "control SOCKET-PATH",
		.off = OFF(control),
		.type = SETT_STR,
		.parse = p_control,
		.print = pr_word,
		.reload = "run options",
	},
	{
		.name = "max-starts",
		.example = "100000",
		.arg = "N",
		.group = G_TRIG,
		.help = "latency starts in flight, LRU (default 65536, max 4M)",
		.kw = "max_starts",
		.form = SETF_VALUE,
		.what = "max_starts (latency starts in flight): ",
		.usage = "max_starts N",
		.off = OFF(bpf.lat_starts),
		.type = SETT_U32,
		.parse = p_lru,
		.print = pr_num,
	},
	{
		.name = "max-keys",
		.example = "2048",
		.arg = "N",
		.group = G_TRIG,
		.help = "rate buckets / per-key cooldowns, LRU (default 16384)",
		.kw = "max_keys",
		.form = SETF_VALUE,
		.what = "max_keys (rate buckets and per-key cooldowns): ",
		.usage = "max_keys N",
		.off = OFF(bpf.keys),
		.type = SETT_U32,
		.parse = p_lru,
		.print = pr_num,
	},
	{
		.name = "rings",
		.example = "perf",
		.arg = "auto|compact|bpf|perf",
		.group = G_TRIG,
		.help = "who writes tracepoint records: auto (the default):\n"
			"compact where it fits, else bpf, else perf; compact\n"
			"(BPF writes trigrec's own encoding into byte rings\n"
			"plus a 1/8 spare: about 5.5x the history of bpf\n"
			"per MiB), bpf (BPF writes perf's layout into two ring\n"
			"sets per CPU), perf (one ring per CPU, frozen at a\n"
			"trigger); env TRIGREC_RINGS",
		.kw = "rings",
		.form = SETF_VALUE,
		.what = "rings ",
		.usage = "rings auto|compact|bpf|perf",
		/* The default of --rings from the environment, so a whole test suite can
		 * run on either path; a bad one is reported by config__finalize(). */
		.off = OFF(rings),
		.type = SETT_INT,
		.def = REC_RINGS_AUTO,
		.def_env = "TRIGREC_RINGS",
		.parse = p_rings,
		.print = pr_rings,
		.reload = "rings",
	},
	{
		.name = "no-gates",
		.group = G_TRIG,
		.help = "no freeze gates: cheaper, but records after a trigger\n"
			"overwrite history until the harvest (still cut exactly)",
		.off = OFF(bpf.no_gates),
		.type = SETT_INT,
		.parse = p_flag,
	},
	{
		.name = "no-fast-paths",
		.group = G_TRIG,
		.help = "record and test every tracepoint through the generic\n"
			"programs, not the tp_btf fast paths (for measuring them)",
		.off = OFF(bpf.no_fast_paths),
		.type = SETT_INT,
		.parse = p_flag,
	},
	{
		.name = "syscall-fast-paths",
		.group = G_TRIG,
		.help = "syscalls:sys_enter_NAME/sys_exit_NAME through tp_btf even\n"
			"without raw_syscalls (that program then runs on every\n"
			"system call of the host: worth it only if the named\n"
			"calls are most of them)",
		.off = OFF(bpf.syscall_fast_paths),
		.type = SETT_INT,
		.parse = p_flag,
	},
	{
		.name = "include-self",
		.group = G_TRIG,
		.run = 1,
		.help = "record trigrec's own threads and its on_snapshot\n"
			"commands too (left out by default on the BPF-written\n"
			"rings)",
		.kw = "include_self",
		.form = SETF_FLAG,
		.usage = "include_self (no value: trigrec's own records are kept)",
		.off = OFF(bpf.include_self),
		.type = SETT_INT,
		.parse = p_flag,
		.print = pr_flag,
	},
	{
		.name = "no-align",
		.group = G_TRIG,
		.help = "keep every CPU's full history, even where another\n"
			"CPU's ring has already overwritten the same span",
		.off = OFF(no_align),
		.type = SETT_INT,
		.parse = p_flag,
		.reload = "run options",
	},
	{
		.kw = "name",
		.example = "web",
		.form = SETF_VALUE,
		.what = "name ",
		.usage = "name PREFIX",
		.off = OFF(name_prefix),
		.type = SETT_STR,
		.parse = p_name,
		.print = pr_word,
		.reload = "output",
	},
	{
		.name = "no-buildid-cache",
		.group = G_TRIG,
		.run = 1,
		.help = "do not copy the DSOs of a snapshot into perf's\n"
			"build-id cache (~/.debug or $PERF_BUILDID_DIR);\nbuild-ids are still written",
		.kw = "buildid_cache",
		.form = SETF_VALUE,
		.what = "buildid_cache ",
		.usage = "buildid_cache on|off (off: leave perf's ~/.debug alone)",
		.alias_to = "buildid_cache off",
		.aliases = "buildid-cache",
		.off = OFF(no_buildid_cache),
		.type = SETT_INT,
		.parse = p_buildid,
		.print = pr_buildid,
		.reload = "buildid_cache",
	},
	{
		.name = "instance",
		.example = "web",
		.arg = "ID",
		.group = G_TRIG,
		.help = "this recorder's name in its sidecars: retention\n"
			"removes only snapshots of the same ID (default: a\n"
			"random one per run, so only this run's)",
		/* Read once at start (session__new()); a reload does not re-read it. */
		.off = OFF(instance),
		.type = SETT_STR,
		.parse = p_instance,
	},
	{
		.name = "on-snapshot",
		.example = "/bin/echo hi {data} 'a b'",
		.arg = "'CMD ARG...'",
		.group = G_SHIP,
		.run = 1,
		.help = "run CMD for each snapshot written, with its .data\n"
			"and .json paths appended, or put where {data},\n"
			"{json}, {dir}, {name}, {trigger}, {host} appear.\n"
			"Split on blanks, '...' and \"...\" quote; no shell",
		.kw = "on_snapshot",
		.form = SETF_ARGV,
		.usage = "on_snapshot PROGRAM [ARG...]",
		.off = OFF(on_snapshot),
		.type = SETT_ARGV,
		.parse = p_argv,
		.print = pr_argv,
		.reload = "on_snapshot",
	},
	{
		.name = "on-snapshot-timeout",
		.example = "2min",
		.arg = "DURATION",
		.group = G_SHIP,
		.run = 1,
		.help = "stop a run after this long: SIGTERM, SIGKILL 5s\n"
			"later (default 60s; 100ms to 24h)",
		.kw = "on_snapshot_timeout",
		.form = SETF_UNIT,
		.usage = "on_snapshot_timeout DURATION (e.g. 60s)",
		.off = OFF(on_snapshot_timeout_ns),
		.type = SETT_U64,
		.def = ON_SNAPSHOT_TIMEOUT_DEFAULT_NS,
		.parse = p_onsnap_timeout,
		.print = pr_duration,
		.reload = "on_snapshot",
	},
	{
		.name = "on-snapshot-jobs",
		.example = "4",
		.arg = "K",
		.group = G_SHIP,
		.run = 1,
		.help = "at most K runs at once (default 2, max 64); 16\n"
			"more wait, the rest are dropped and counted",
		.kw = "on_snapshot_jobs",
		.form = SETF_VALUE,
		.what = "on_snapshot_jobs (commands running at once): ",
		.usage = "on_snapshot_jobs N (e.g. 2)",
		.off = OFF(on_snapshot_jobs),
		.type = SETT_U32,
		.def = ON_SNAPSHOT_JOBS_DEFAULT,
		.parse = p_onsnap_jobs,
		.print = pr_num,
		.reload = "on_snapshot",
	},
	{
		.name = "on-snapshot-user",
		.example = "nobody",
		.arg = "USER",
		.group = G_SHIP,
		.run = 1,
		.help = "run CMD as USER (name or uid) with no capabilities;\n"
			"the snapshot pair is made readable by its group\n"
			"(default: $TRIGREC_ON_SNAPSHOT_USER, which the\n"
			"systemd units set to trigrec; else as trigrec)",
		.kw = "on_snapshot_user",
		.form = SETF_VALUE,
		.usage = "on_snapshot_user USER (e.g. on_snapshot_user trigrec)",
		/* The hooks' user under the systemd units (contrib/trigrec*.service). */
		.off = OFF(on_snapshot_user),
		.type = SETT_STR,
		.def_env = "TRIGREC_ON_SNAPSHOT_USER",
		.parse = p_onsnap_user,
		.print = pr_word,
		.reload = "on_snapshot",
	},
	{
		.name = "metrics",
		.example = "127.0.0.1:9464",
		.arg = "ADDR",
		.group = G_MON,
		.help = "serve Prometheus metrics on http://ADDR/metrics\n"
			"(PORT or HOST:PORT; loopback unless a host is given)",
		.kw = "metrics",
		.form = SETF_PATH,
		.usage = "metrics [HOST:]PORT",
		.off = OFF(metrics_addr),
		.type = SETT_STR,
		.parse = p_metrics,
		.print = pr_word,
		.reload = "metrics",
	},
	{
		.name = "metrics-file",
		.example = "/var/lib/node_exporter/trigrec.prom",
		.arg = "PATH",
		.group = G_MON,
		.help = "node_exporter textfile, rewritten atomically at\n"
			"start, after each snapshot and at exit",
		.kw = "metrics_file",
		.form = SETF_PATH,
		.usage = "metrics_file PATH",
		.off = OFF(metrics_file),
		.type = SETT_STR,
		.parse = p_path,
		.print = pr_word,
		.reload = "metrics",
	},
	{
		.name = "http-token-file",
		.example = "/etc/trigrec/token",
		.arg = "FILE",
		.group = G_MON,
		.help = "serve POST /snapshot (Alertmanager's webhook) on\n"
			"--metrics's listener to callers that send\n"
			"\"Authorization: Bearer TOKEN\", TOKEN the first line\n"
			"of FILE (mode 0600, owned by trigrec's user or root)",
		.kw = "http_token_file",
		.requires = "metrics",
		.form = SETF_PATH,
		.usage = "http_token_file PATH",
		.off = OFF(http_token_file),
		.type = SETT_STR,
		.parse = p_path,
		.print = pr_word,
		.reload = "metrics",
	},
};
const int nr_settings = sizeof(settings) / sizeof(settings[0]);
_Static_assert(sizeof(settings) / sizeof(settings[0]) <= SETTINGS_MAX, "raise SETTINGS_MAX");

/* ------------------------------------------------------------------ */
/* What is made from it                                                 */

const struct setting *settings__by_kw(const char *kw)
{
	for (int i = 0; i < nr_settings; i++)
		if (settings[i].kw && !strcmp(settings[i].kw, kw))
			return &settings[i];
	return NULL;
}

const struct setting *settings__by_name(const char *name)
{
	for (int i = 0; i < nr_settings; i++)
		if (settings[i].name && !strcmp(settings[i].name, name))
			return &settings[i];
	return NULL;
}

int settings__set(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		  size_t len)
{
	if (!s->parse) {
		snprintf(err, len, "this setting has no parser");
		return -EINVAL;
	}
	/* "[N]": the value may be left out (-z alone). */
	if (!a && s->arg && s->arg[0] != '[') {
		snprintf(err, len, "give a value (%s)", s->arg);
		return -EINVAL;
	}
	return s->parse(c, s, a, err, len);
}

uint64_t settings__get(const struct trigrec_config *c, const struct setting *s)
{
	switch (s->type) {
	case SETT_INT: return (uint64_t)(int64_t)CFIELD(c, s, int);
	case SETT_U32: return CFIELD(c, s, uint32_t);
	case SETT_ULONG: return CFIELD(c, s, unsigned long);
	case SETT_PID: return (uint64_t)(int64_t)CFIELD(c, s, pid_t);
	case SETT_STR: return CFIELD(c, s, char *) != NULL;
	case SETT_ARGV: return CFIELD(c, s, argv_t) != NULL;
	case SETT_CPUMASK: return CFIELD(c, s, unsigned char *) != NULL;
	default: return CFIELD(c, s, uint64_t); /* SETT_PAIRS: [0] */
	}
}

static void free_argv(char **v)
{
	for (char **a = v; a && *a; a++)
		free(*a);
	free(v);
}

void settings__put_argv(struct trigrec_config *c, const struct setting *s, char **v)
{
	free_argv(FIELD(c, s, char **));
	FIELD(c, s, char **) = v;
}

#define FIELD2(c, s, T) (*(T *)((char *)(c) + (s)->off2))
#define CFIELD2(c, s, T) (*(const T *)((const char *)(c) + (s)->off2))
#define PAIRS_SIZE (2 * sizeof(uint64_t))

static int copy_cpumask(struct trigrec_config *dst, const struct trigrec_config *src,
			const struct setting *s)
{
	const unsigned char *m = CFIELD(src, s, unsigned char *);
	int n = CFIELD2(src, s, int);
	unsigned char *cp = NULL;

	if (m && !(cp = malloc(n > 0 ? (size_t)n : 1)))
		return -ENOMEM;
	if (m && n > 0)
		memcpy(cp, m, (size_t)n);
	free(FIELD(dst, s, unsigned char *));
	FIELD(dst, s, unsigned char *) = cp;
	FIELD2(dst, s, int) = m ? n : 0;
	return 0;
}

int settings__copy(struct trigrec_config *dst, const struct trigrec_config *src,
		   const struct setting *s)
{
	switch (s->type) {
	case SETT_INT: FIELD(dst, s, int) = CFIELD(src, s, int); return 0;
	case SETT_U32: FIELD(dst, s, uint32_t) = CFIELD(src, s, uint32_t); return 0;
	case SETT_ULONG: FIELD(dst, s, unsigned long) = CFIELD(src, s, unsigned long); return 0;
	case SETT_PID: FIELD(dst, s, pid_t) = CFIELD(src, s, pid_t); return 0;
	case SETT_STR: return config__set_str(&FIELD(dst, s, char *), CFIELD(src, s, char *));
	case SETT_ARGV: {
		char **v = NULL;

		if (CFIELD(src, s, argv_t) && !(v = config__argv_dup(CFIELD(src, s, argv_t), -1)))
			return -ENOMEM;
		settings__put_argv(dst, s, v);
		return 0;
	}
	case SETT_CPUMASK: return copy_cpumask(dst, src, s);
	case SETT_PAIRS:
		memcpy(&FIELD(dst, s, uint64_t), &CFIELD(src, s, uint64_t), PAIRS_SIZE);
		memcpy(&FIELD2(dst, s, uint64_t), &CFIELD2(src, s, uint64_t), PAIRS_SIZE);
		return 0;
	default: FIELD(dst, s, uint64_t) = CFIELD(src, s, uint64_t); return 0;
	}
}

int settings__differ(const struct trigrec_config *a, const struct trigrec_config *b,
		     const struct setting *s)
{
	if (s->type == SETT_STR) {
		const char *x = CFIELD(a, s, char *), *y = CFIELD(b, s, char *);

		return (!x || !y) ? x != y : strcmp(x, y) != 0;
	}
	if (s->type == SETT_ARGV) {
		char *const *x = CFIELD(a, s, argv_t), *const *y = CFIELD(b, s, argv_t);

		if (!x || !y)
			return x != y;
		for (; *x && *y; x++, y++)
			if (strcmp(*x, *y))
				return 1;
		return *x || *y;
	}
	if (s->type == SETT_CPUMASK) {
		const unsigned char *x = CFIELD(a, s, unsigned char *),
				    *y = CFIELD(b, s, unsigned char *);
		int n = CFIELD2(a, s, int);

		if (!x || !y)
			return x != y;
		return n != CFIELD2(b, s, int) || (n > 0 && memcmp(x, y, (size_t)n));
	}
	if (s->type == SETT_PAIRS)
		return memcmp(&CFIELD(a, s, uint64_t), &CFIELD(b, s, uint64_t), PAIRS_SIZE) ||
		       memcmp(&CFIELD2(a, s, uint64_t), &CFIELD2(b, s, uint64_t), PAIRS_SIZE);
	return settings__get(a, s) != settings__get(b, s);
}

void settings__defaults(struct trigrec_config *c)
{
	for (int i = 0; i < nr_settings; i++) {
		const struct setting *s = &settings[i];
		const char *env = s->def_env ? getenv(s->def_env) : NULL;
		char err[256];

		switch (s->type) {
		case SETT_INT: FIELD(c, s, int) = (int)s->def; break;
		case SETT_U32: FIELD(c, s, uint32_t) = (uint32_t)s->def; break;
		case SETT_ULONG: FIELD(c, s, unsigned long) = (unsigned long)s->def; break;
		case SETT_PID: FIELD(c, s, pid_t) = (pid_t)s->def; break;
		case SETT_STR: FIELD(c, s, char *) = NULL; break;
		case SETT_ARGV: FIELD(c, s, char **) = NULL; break;
		case SETT_CPUMASK:
			FIELD(c, s, unsigned char *) = NULL;
			FIELD2(c, s, int) = 0;
			break;
		case SETT_PAIRS:
			memset(&FIELD(c, s, uint64_t), 0, PAIRS_SIZE);
			memset(&FIELD2(c, s, uint64_t), 0, PAIRS_SIZE);
			break;
		default: FIELD(c, s, uint64_t) = s->def;
		}
		if (!env)
			continue;
		if (s->type == SETT_STR) {
			/* NULL when out of memory: as if unset. Its spelling is checked at use. */
			if (*env)
				FIELD(c, s, char *) = strdup(env);
		} else if (s->parse(c, s, env, err, sizeof(err)) && s->type == SETT_INT) {
			FIELD(c, s, int) = -1; /* config__finalize() says what is wrong */
		}
	}
}

void settings__free(struct trigrec_config *c)
{
	for (int i = 0; i < nr_settings; i++) {
		const struct setting *s = &settings[i];

		if (s->type == SETT_STR || s->type == SETT_CPUMASK) {
			free(FIELD(c, s, char *));
			FIELD(c, s, char *) = NULL;
		} else if (s->type == SETT_ARGV) {
			settings__put_argv(c, s, NULL);
		}
	}
}

void settings__dump(const struct trigrec_config *c, FILE *out)
{
	for (int i = 0; i < nr_settings; i++)
		if (settings[i].kw && settings[i].print)
			settings[i].print(c, &settings[i], out);
}

/* s with '-' as roff's minus (\-), as flags and arguments are written in the page. */
static void man_put(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		if (s[i] == '-')
			fputc('\\', out);
		fputc(s[i], out);
	}
}

/* "-a", "--all-cpus" as the page writes them. */
static void man_flags(FILE *out, const struct setting *st)
{
	if (st->short_name)
		fprintf(out, "\\-%c%s", st->short_name, st->name ? " \", \" " : "");
	if (st->name) {
		fputs("\\-\\-", out);
		man_put(out, st->name, strlen(st->name));
	}
}

void settings__man_statements(FILE *out)
{
	for (int i = 0; i < nr_settings; i++) {
		const struct setting *st = &settings[i];
		const char *arg, *end;
		const char *kw = st->kw;
		int flags = st->short_name || st->name; /* in_stmt rows have a flag */

		if (!kw || !st->usage)
			continue;
		arg = st->usage + strlen(st->kw);
		/* The usage's argument: after the keyword, up to a " (" that explains it. */
		arg += strspn(arg, " ");
		end = arg[0] == '(' ? arg : strstr(arg, " (");
		end = end ? end : arg + strlen(arg);
		fprintf(out, ".BR %s \"", st->kw);
		if (end > arg) {
			fputc(' ', out);
			man_put(out, arg, (size_t)(end - arg));
		}
		if (!flags) {
			fputs(",\"\n", out);
			continue;
		}
		fputs(" (\" ", out);
		man_flags(out, st);
		/* The rows this statement carries that have none of their own (-a, --keep-age). */
		for (int j = 0; j < nr_settings; j++) {
			const char *in = settings[j].in_stmt;

			if (!settings[j].kw && in && !strcmp(in, kw)) {
				fputs(" \", \" ", out);
				man_flags(out, &settings[j]);
			}
		}
		fputs(" ),\n", out);
	}
}
