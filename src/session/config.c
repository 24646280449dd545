// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* One run as data: defaults, builders, cross-checks, and the script it prints as. */
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture/probes.h"
#include "capture/tracefs.h"
#include "session/config.h"
#include "session/settings.h"
#include "util/util.h"

/* Every default is a row's, in session/settings.c: the fields the table does not
 * hold start at zero. */
void config__init(struct trigrec_config *c)
{
	memset(c, 0, sizeof(*c));
	settings__defaults(c);
}

int config__parse_on_snapshot_user(const char *s, char *err, size_t errlen)
{
	size_t n = strlen(s);

	if (!n || n > 32 ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_.-$") != n ||
	    s[0] == '-') {
		snprintf(err, errlen,
			 "'%.40s': give a user name (letters, digits, _ . -; at most 32) or a "
			 "numeric uid, e.g. trigrec or nobody",
			 s);
		return -EINVAL;
	}
	return 0;
}

int config__parse_count_kill(const char *s, int *sig, char *err, size_t errlen)
{
	const char *n = s;
	char *end;
	long v;

	if (!strcasecmp(s, "none")) {
		*sig = 0;
		return 0;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (*s && !*end && !errno && v >= 1 && v < 32) {
		*sig = (int)v;
		return 0;
	}
	if (!strncasecmp(n, "SIG", 3))
		n += 3;
	for (int i = 1; *n && i < 32; i++) {
		const char *a = sigabbrev_np(i);

		if (a && !strcasecmp(a, n)) {
			*sig = i;
			return 0;
		}
	}
	if (err)
		snprintf(err, errlen,
			 "'%s': say a signal (TERM, INT, KILL, HUP, USR1 or a number 1-31) to send "
			 "the command when --count is reached, or none to leave it running",
			 s);
	return -EINVAL;
}

int config__parse_rings(const char *s, int *mode, char *err, size_t errlen)
{
	if (!strcmp(s, "bpf"))
		*mode = REC_RINGS_BPF;
	else if (!strcmp(s, "perf"))
		*mode = REC_RINGS_PERF;
	else if (!strcmp(s, "auto"))
		*mode = REC_RINGS_AUTO;
	else if (!strcmp(s, "compact"))
		*mode = REC_RINGS_COMPACT;
	else {
		if (err)
			snprintf(
				err, errlen,
				"'%s': say auto (the default: compact where it fits, else bpf, else perf), "
				"compact (BPF writes trigrec's own encoding into byte rings), bpf "
				"(BPF writes perf's layout into ring sets that switch at a "
				"trigger) or perf (perf writes them, frozen at a trigger)",
				s);
		return -EINVAL;
	}
	return 0;
}

int config__parse_on_snapshot_timeout(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	int e = parse_duration(s, ns, err, errlen);

	if (!e && (*ns < ON_SNAPSHOT_TIMEOUT_MIN_NS || *ns > ON_SNAPSHOT_TIMEOUT_MAX_NS)) {
		snprintf(err, errlen, "'%s': give 100ms to 24h", s);
		return -EINVAL;
	}
	return e;
}

int config__parse_on_snapshot_jobs(const char *s, unsigned int *jobs, char *err, size_t errlen)
{
	uint64_t v;
	int e = parse_u64(s, 1, ON_SNAPSHOT_JOBS_MAX, &v, err, errlen);

	if (!e)
		*jobs = v;
	return e;
}

static void free_argv(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

void config__fini(struct trigrec_config *c)
{
	for (int i = 0; i < c->nr_events; i++) {
		free((char *)c->events[i].spec);
		free((char *)c->events[i].filter);
	}
	free(c->events);
	free_argv(c->cmd);
	free(c->trigs);
	free(c->trig_origin);
	free(c->manual);
	free(c->script_path);
	free(c->default_missing);
	settings__free(c);
	config__init(c);
}

int config__set_str(char **dst, const char *val)
{
	char *s = NULL;

	if (val && !(s = strdup(val)))
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

int config__parse_zstd_level(const char *s, int *level, char *err, size_t errlen)
{
	char *end;
	long v;

	errno = 0;
	v = s && *s >= '0' && *s <= '9' ? strtol(s, &end, 10) : -1;
	if (v < 0 || errno || *end || v > CONFIG_ZSTD_LEVEL_MAX) {
		snprintf(err, errlen,
			 "'%s': zstd levels are 1 (fastest, the default of perf record "
			 "-z) to %d (smallest); 0 turns compression off",
			 s ? s : "", CONFIG_ZSTD_LEVEL_MAX);
		return -EINVAL;
	}
	*level = (int)v;
	return 0;
}

char **config__argv_dup(char *const *argv, int n)
{
	char **v;

	if (n < 0)
		for (n = 0; argv[n]; n++)
			;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (int i = 0; i < n; i++) {
		if (!(v[i] = strdup(argv[i]))) {
			free_argv(v);
			return NULL;
		}
	}
	return v;
}

int config__add_event(struct trigrec_config *c, const char *spec, const char *filter)
{
	struct rec_event_spec *e = realloc(c->events, (c->nr_events + 1) * sizeof(*e));
	char *s, *f = NULL;

	if (!e)
		return -ENOMEM;
	c->events = e;
	s = strdup(spec);
	if (filter)
		f = strdup(filter);
	if (!s || (filter && !f)) {
		free(s);
		free(f);
		return -ENOMEM;
	}
	c->events[c->nr_events].spec = s;
	c->events[c->nr_events].filter = f;
	c->nr_events++;
	return 0;
}

int config__add_trigger(struct trigrec_config *c, const struct trig_def *t,
			const struct cfg_origin *where)
{
	struct trig_def *nt;
	struct cfg_origin *no;

	if (t->manual) {
		/* No kernel part: only a name, and a post window (0 = the run's --post). */
		struct cfg_manual *m = realloc(c->manual, (c->nr_manual + 1) * sizeof(*m));

		if (!m)
			return -ENOMEM;
		c->manual = m;
		m = &m[c->nr_manual++];
		memset(m, 0, sizeof(*m));
		snprintf(m->name, sizeof(m->name), "%s", t->name);
		m->post_ns = t->has_post ? t->cfg.post_ns : 0;
		return 0;
	}
	if (c->nr_trigs >= TRIGREC_MAX_TRIGGERS)
		return -E2BIG;
	nt = realloc(c->trigs, (c->nr_trigs + 1) * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	c->trigs = nt;
	no = realloc(c->trig_origin, (c->nr_trigs + 1) * sizeof(*no));
	if (!no)
		return -ENOMEM;
	c->trig_origin = no;
	c->trigs[c->nr_trigs] = *t;
	c->trig_origin[c->nr_trigs] = where ? *where : (struct cfg_origin){ 0 };
	c->nr_trigs++;
	return 0;
}

/*
 * Who ran, woke, forked, exec'ed, exited and was signalled: enough to read a
 * snapshot's story around the trigger, and cheap on an idle machine (scheduler
 * events scale with context switches, not with the system call rate).
 */
static const char *const default_events[] = {
	"sched:sched_switch",
	"sched:sched_wakeup",
	"sched:sched_process_fork",
	"sched:sched_process_exec",
	"sched:sched_process_exit",
	"signal:signal_deliver",
	NULL,
};

const char *const *config__default_events(void)
{
	return default_events;
}

static int has_event(const struct trigrec_config *c, const char *spec)
{
	for (int i = 0; i < c->nr_events; i++)
		if (!strcmp(c->events[i].spec, spec))
			return 1;
	return 0;
}

static int append_missing(struct trigrec_config *c, const char *name)
{
	size_t old = c->default_missing ? strlen(c->default_missing) : 0;
	char *s = realloc(c->default_missing, old + strlen(name) + 3);

	if (!s)
		return -ENOMEM;
	sprintf(s + old, "%s%s", old ? ", " : "", name);
	c->default_missing = s;
	return 0;
}

/* Fill events[] with the default set; c has no events yet. */
static int add_default_events(struct trigrec_config *c, char *err, size_t errlen)
{
	/* The triggers' events first, a latency's start before its end. */
	for (int i = 0; i < c->nr_trigs; i++) {
		for (int side = 1; side >= 0; side--) {
			const char *ev = c->trigs[i].event[side];

			if (*ev && !has_event(c, ev) && config__add_event(c, ev, NULL))
				return -ENOMEM;
		}
	}
	for (const char *const *d = default_events; *d; d++) {
		struct tp_name *tps = NULL;
		int n = trig_event_glob(*d, &tps);

		free(tps);
		if (n > 0 ? !has_event(c, *d) && config__add_event(c, *d, NULL) :
			    append_missing(c, *d))
			return -ENOMEM;
	}
	c->default_set = 1;
	if (!c->nr_events) {
		snprintf(err, errlen,
			 "nothing to record: no event was given and none of the default "
			 "set (%s) exists on this kernel; give -e EVENT (trigrec list shows them)",
			 c->default_missing ? c->default_missing : "");
		return -EINVAL;
	}
	return 0;
}

int config__finalize(struct trigrec_config *c, char *err, size_t errlen)
{
	int ret;

	if (c->rings < 0) {
		snprintf(
			err, errlen,
			"TRIGREC_RINGS='%s' in the environment: say bpf, perf, compact or auto, or "
			"unset it",
			getenv("TRIGREC_RINGS") ? getenv("TRIGREC_RINGS") : "");
		return -EINVAL;
	}
	if (c->cmd && c->pid) {
		snprintf(err, errlen,
			 "-p and a command exclude each other: record one or the other");
		return -EINVAL;
	}
	if (c->period && c->freq) {
		snprintf(err, errlen,
			 "-F and -c exclude each other: sample by frequency or by period");
		return -EINVAL;
	}
	if (c->http_token_file && !c->metrics_addr) {
		snprintf(err, errlen,
			 "--http-token-file: POST /snapshot is served on the metrics listener: "
			 "give --metrics ADDR too (e.g. --metrics 127.0.0.1:9464)");
		return -EINVAL;
	}
	if (c->post_ns > TL_MAX_POST_NS) {
		snprintf(err, errlen, "--post: longer than an hour");
		return -EINVAL;
	}
	if (!c->outdir && config__set_str(&c->outdir, "."))
		return -ENOMEM;
	/* --post is the default for triggers that do not say `post`. */
	for (int i = 0; i < c->nr_trigs; i++)
		if (!c->trigs[i].has_post)
			c->trigs[i].cfg.post_ns = c->post_ns;
	if (!c->nr_events && (ret = add_default_events(c, err, errlen)))
		return ret;
	return 0;
}

/* Does one -e argument (a comma list, globs) name ev? Probes' "(a, b)" do not split it. */
static int spec_records(const char *spec, const char *ev)
{
	size_t len = strlen(spec) + 1;
	char *item = malloc(len);
	int rec = 0;

	if (!item)
		return 1; /* not worth a false warning */
	for (const char *p = spec; !rec && probe_list_next(&p, item, len) > 0;)
		rec = !strcmp(item, ev) || !fnmatch(item, ev, 0);
	free(item);
	return rec;
}

int config__unrecorded(const struct trigrec_config *c, int k, char *buf, size_t len)
{
	for (int i = 0; i < c->nr_trigs; i++) {
		for (int side = 0; side < 2; side++) {
			const char *ev = c->trigs[i].event[side];
			int rec = 0;

			for (int e = 0; e < c->nr_events && !rec; e++)
				rec = spec_records(c->events[e].spec, ev);
			if (!*ev || rec || k--)
				continue;
			if (side == TRIGREC_ROLE_EVENT)
				snprintf(buf, len,
					 "%s is not recorded: trigger %s's snapshots keep only its "
					 "firing record of it (record it to keep its history)",
					 ev, c->trigs[i].name);
			else
				snprintf(
					buf, len,
					"%s is not recorded: trigger %s's snapshots keep no record of "
					"it (the start's time and thread are in the sidecar; record it "
					"to keep its history)",
					ev, c->trigs[i].name);
			return 1;
		}
	}
	return 0;
}

#define put_word settings__put_word
#define put_duration settings__put_duration

/* The events, the table's settings (settings__dump()), the command, then the triggers. */
int config__dump_script(const struct trigrec_config *c, FILE *out)
{
	fprintf(out,
		"# trigrec script (trigrec run FILE); written by trigrec record --dump-script\n");
	if (c->default_set)
		fprintf(out,
			"# no event was chosen: the default set (the triggers' events and the "
			"scheduler's)%s%s\n",
			c->default_missing ? "; not on this kernel: " : "",
			c->default_missing ? c->default_missing : "");
	for (int i = 0; i < c->nr_events; i++) {
		fputs("record ", out);
		put_word(out, c->events[i].spec);
		if (c->events[i].filter)
			fprintf(out, " if %s", c->events[i].filter);
		fputc('\n', out);
	}
	settings__dump(c, out);
	if (c->cmd) {
		fputs("command", out);
		for (char **a = c->cmd; *a; a++) {
			fputc(' ', out);
			put_word(out, *a);
		}
		fputc('\n', out);
	}
	for (int i = 0; i < c->nr_manual; i++) {
		fprintf(out, "\ntrigger %s { manual", c->manual[i].name);
		if (c->manual[i].post_ns) {
			fputs(" post ", out);
			put_duration(out, c->manual[i].post_ns);
		}
		fputs(" }\n", out);
	}
	for (int i = 0; i < c->nr_trigs; i++)
		fprintf(out, "\ntrigger %s {\n    %s\n}\n", c->trigs[i].name, c->trigs[i].text);
	return ferror(out) ? -EIO : 0;
}
