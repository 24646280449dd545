// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "harvest/sideband.h"
#include "lang/trigger_lang.h"
#include "service/status.h"
#include "snapshot/json.h"
#include "util/util.h"

/*
 * Snapshots written per trigger, by name rather than by id: the name is what
 * an operator greps for, and it stays meaningful if the trigger table is
 * ever replaced while running.
 */
struct name_count {
	char name[64];
	unsigned long n;
};

struct status {
	pthread_mutex_t mu; /* observe (writer thread) vs render (control thread) */
	char *script;	    /* NULL: `trigrec record` */
	char *outdir;
	struct timespec started; /* CLOCK_REALTIME, for the operator */
	uint64_t started_mono;	 /* for the uptime: immune to clock steps */
	unsigned long written, failed, manual, final;
	unsigned generation; /* of the trigger table (reloads); counters are since the start */
	struct name_count per[TRIGREC_MAX_TRIGGERS + 16];
	int nr_per;
	/* The last snapshot written, and the last that failed. */
	int has_last;
	char last_path[4096];
	char last_name[64];
	struct timespec last_at;
	uint64_t last_mono;
	int has_fail;
	char fail_name[64];
	int fail_err;
	struct timespec fail_at;
};

struct status *status__new(const char *script_path, const char *outdir)
{
	struct status *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	pthread_mutex_init(&st->mu, NULL);
	st->script = script_path ? strdup(script_path) : NULL;
	st->outdir = strdup(outdir ? outdir : ".");
	clock_gettime(CLOCK_REALTIME, &st->started);
	st->started_mono = mono_ns();
	if ((script_path && !st->script) || !st->outdir) {
		status__free(st);
		return NULL;
	}
	return st;
}

void status__free(struct status *st)
{
	if (!st)
		return;
	pthread_mutex_destroy(&st->mu);
	free(st->script);
	free(st->outdir);
	free(st);
}

static unsigned long *count_for(struct status *st, const char *name)
{
	for (int i = 0; i < st->nr_per; i++)
		if (!strcmp(st->per[i].name, name))
			return &st->per[i].n;
	if (st->nr_per == (int)(sizeof(st->per) / sizeof(st->per[0])))
		return NULL;
	snprintf(st->per[st->nr_per].name, sizeof(st->per[0].name), "%s", name);
	return &st->per[st->nr_per++].n;
}

void status__observe(struct status *st, const struct snap_report *rep)
{
	const char *name = rep->name ? rep->name : "?";

	pthread_mutex_lock(&st->mu);
	if (rep->err) {
		st->failed++;
		st->has_fail = 1;
		snprintf(st->fail_name, sizeof(st->fail_name), "%s", name);
		st->fail_err = rep->err;
		clock_gettime(CLOCK_REALTIME, &st->fail_at);
	} else {
		unsigned long *n;

		st->written++;
		if (rep->trigger == -1)
			st->manual++;
		else if (rep->trigger == -2)
			st->final++;
		else if ((n = count_for(st, name)))
			(*n)++;
		st->has_last = 1;
		snprintf(st->last_path, sizeof(st->last_path), "%s",
			 rep->out ? rep->out->path : "");
		snprintf(st->last_name, sizeof(st->last_name), "%s", name);
		clock_gettime(CLOCK_REALTIME, &st->last_at);
		st->last_mono = mono_ns();
	}
	pthread_mutex_unlock(&st->mu);
}

void status__set_generation(struct status *st, unsigned generation)
{
	pthread_mutex_lock(&st->mu);
	st->generation = generation;
	pthread_mutex_unlock(&st->mu);
}

int status__is_snapshot_file(const char *name)
{
	size_t n = strlen(name);

	/* Dot files are temporaries of a write in progress (outdir.c), not snapshots yet. */
	if (name[0] == '.')
		return 0;
	return (n > 5 && !strcmp(name + n - 5, ".data")) ||
	       (n > 5 && !strcmp(name + n - 5, ".json"));
}

/* trigrec's files in dir: count, bytes (their sizes) and .data files. -errno when unreadable. */
static int disk_use(const char *dir, unsigned long *files, uint64_t *bytes, unsigned long *datas)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	*files = *datas = 0;
	*bytes = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat sb;

		if (!status__is_snapshot_file(de->d_name))
			continue;
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode))
			continue;
		(*files)++;
		*bytes += sb.st_size;
		*datas += de->d_name[strlen(de->d_name) - 1] == 'a';
	}
	closedir(d);
	return 0;
}

/* 2026-12-01T12:46:51Z: UTC, so that hosts in different zones compare. */
static const char *fmt_when(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;

	gmtime_r(&ts->tv_sec, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

/* 3723 s -> "1h02m03s"; days too, since the service runs for weeks. */
static const char *fmt_age(uint64_t s, char *buf, size_t len)
{
	if (s >= 86400)
		snprintf(buf, len, "%llud%02lluh%02llum%02llus", (unsigned long long)s / 86400,
			 (unsigned long long)s % 86400 / 3600, (unsigned long long)s % 3600 / 60,
			 (unsigned long long)s % 60);
	else if (s >= 3600)
		snprintf(buf, len, "%lluh%02llum%02llus", (unsigned long long)s / 3600,
			 (unsigned long long)s % 3600 / 60, (unsigned long long)s % 60);
	else if (s >= 60)
		snprintf(buf, len, "%llum%02llus", (unsigned long long)s / 60,
			 (unsigned long long)s % 60);
	else
		snprintf(buf, len, "%llus", (unsigned long long)s);
	return buf;
}

static unsigned long written_by(struct status *st, const char *name)
{
	for (int i = 0; i < st->nr_per; i++)
		if (!strcmp(st->per[i].name, name))
			return st->per[i].n;
	return 0;
}

#define ULL(x) ((unsigned long long)(x))

/* Every reason a match did not become a snapshot, except coalescing (counted apart). */
static uint64_t suppressed(const struct trigrec_stats *s)
{
	return s->suppressed_cooldown + s->suppressed_limit + s->suppressed_budget;
}

const char *status__near_miss_text(const struct trig_def *d, const __u64 *top, char *out,
				   size_t len)
{
	char v[32], th[32];

	out[0] = 0;
	if (d && d->kind == TRIGREC_TRIG_EVENT && d->cfg.nm_clause1) {
		if (!top[0])
			snprintf(out, len, "none against %s", d->nm_desc);
		else
			snprintf(out, len, "max %llu against %s", (unsigned long long)top[0],
				 d->nm_desc);
		return out;
	}
	if (!d || (d->kind != TRIGREC_TRIG_LATENCY && d->kind != TRIGREC_TRIG_RATE))
		return out;
	if (d->kind == TRIGREC_TRIG_LATENCY && d->cfg.learn_pct) {
		char pct[48];

		status__learned_text(d, pct, sizeof(pct));
		if (!top[0])
			snprintf(out, len, "none under its key's learned %s", pct);
		else
			snprintf(out, len, "max %s under its key's learned %s",
				 fmt_duration_short(top[0], v, sizeof(v)), pct);
	} else if (d->kind == TRIGREC_TRIG_LATENCY) {
		if (!top[0])
			snprintf(out, len, "none against a threshold of %s",
				 fmt_duration_short(d->cfg.threshold, th, sizeof(th)));
		else
			snprintf(out, len, "max %s against a threshold of %s",
				 fmt_duration_short(top[0], v, sizeof(v)),
				 fmt_duration_short(d->cfg.threshold, th, sizeof(th)));
	} else if (d->cfg.flags & TRIGREC_TF_RATE_BASELINE) {
		char bl[64];

		status__baseline_text(d, bl, sizeof(bl));
		if (!top[0])
			snprintf(out, len, "none under its key's %s", bl);
		else
			snprintf(out, len, "max %llu events in %s under its key's %s",
				 (unsigned long long)top[0],
				 fmt_duration_short(d->cfg.window_ns, v, sizeof(v)), bl);
	} else {
		snprintf(out, len, "max %llu events in %s against a threshold of %llu",
			 (unsigned long long)top[0],
			 fmt_duration_short(d->cfg.window_ns, v, sizeof(v)),
			 (unsigned long long)d->cfg.threshold);
	}
	return out;
}

const char *status__baseline_text(const struct trig_def *d, char *out, size_t len)
{
	unsigned m = d->cfg.learn_mult;
	char w[32];

	fmt_duration_short(d->cfg.window_ns, w, sizeof(w));
	/* 5x, 2.5x, 2.25x */
	if (m % 100 == 0)
		snprintf(out, len, "%ux baseline per %s", m / 100, w);
	else if (m % 10 == 0)
		snprintf(out, len, "%u.%ux baseline per %s", m / 100, m % 100 / 10, w);
	else
		snprintf(out, len, "%u.%02ux baseline per %s", m / 100, m % 100, w);
	return out;
}

const char *status__all_keys_text(const struct status_trigger *t, char *out, size_t len)
{
	char pct[48], th[32], p[32];
	const struct trig_def *d = t->def;

	status__learned_text(d, pct, sizeof(pct));
	if (!t->la_pct_ns) {
		snprintf(out, len, "%s of all %s: not learned yet (%llu spans)", pct,
			 d->cfg.flags & TRIGREC_TF_LEARN_ALL ? "spans" : "keys",
			 (unsigned long long)t->la_samples);
		return out;
	}
	fmt_duration_short(t->la_pct_ns * d->cfg.learn_mult / 100, th, sizeof(th));
	fmt_duration_short(t->la_pct_ns, p, sizeof(p));
	if (d->cfg.learn_mult == 100)
		snprintf(out, len, "%s of all %s: %s over %llu spans", pct,
			 d->cfg.flags & TRIGREC_TF_LEARN_ALL ? "spans" : "keys", th,
			 (unsigned long long)t->la_samples);
	else
		snprintf(out, len, "%s of all %s: %s (p%g %s over %llu spans)", pct,
			 d->cfg.flags & TRIGREC_TF_LEARN_ALL ? "spans" : "keys", th,
			 d->cfg.learn_pct / 1000.0, p, (unsigned long long)t->la_samples);
	return out;
}

const char *status__learned_text(const struct trig_def *d, char *out, size_t len)
{
	unsigned p = d->cfg.learn_pct, m = d->cfg.learn_mult;
	char ps[24], ms[24] = "";

	/* p99.9, not p99.900; x 2, x 1.5 */
	snprintf(ps, sizeof(ps), "p%u.%03u", p / 1000, p % 1000);
	for (char *e = ps + strlen(ps); e[-1] == '0' || e[-1] == '.';) {
		int dot = e[-1] == '.';

		*--e = 0;
		if (dot)
			break;
	}
	if (m != 100) {
		snprintf(ms, sizeof(ms), " x %u.%02u", m / 100, m % 100);
		for (char *e = ms + strlen(ms); e[-1] == '0' || e[-1] == '.';) {
			int dot = e[-1] == '.';

			*--e = 0;
			if (dot)
				break;
		}
	}
	snprintf(out, len, "%s%s", ps, ms);
	return out;
}

/* Values of a near-miss list, in the trigger's unit: "19.6 ms, 18.1 ms" or "19, 17". */
static void nm_list(FILE *out, const struct trig_def *d, const __u64 *a)
{
	char b[32];

	for (int i = 0; i < TRIGREC_NEAR_MISS && a[i]; i++) {
		if (d->kind == TRIGREC_TRIG_LATENCY)
			fprintf(out, "%s%s", i ? ", " : "", fmt_duration_short(a[i], b, sizeof(b)));
		else
			fprintf(out, "%s%llu", i ? ", " : "", ULL(a[i]));
	}
	if (!a[0])
		fputs("none", out);
}

/* "trigger NAME: near misses max 19.6 ms against ...; since start: ...; since last snapshot: ..." */
static void near_miss_line(FILE *out, const struct status_trigger *t)
{
	char txt[160];

	if (!t->have_nm || !t->def || !*status__near_miss_text(t->def, t->nm.all, txt, sizeof(txt)))
		return;
	fprintf(out, "trigger %s: near misses %s; largest since start: ", t->name, txt);
	nm_list(out, t->def, t->nm.all);
	fputs("; since its last snapshot: ", out);
	nm_list(out, t->def, t->nm.last);
	fputc('\n', out);
	/* "trigger NAME: near misses of key 42: 19.6 ms, 3 ms; since its last snapshot: none" */
	for (int i = 0; i < t->nr_keys && i < BPF_NM_KEYS; i++) {
		char k[64];

		fprintf(out, "trigger %s: near misses of key %s: ", t->name,
			bpfctl__key_nm_text(&t->def->cfg, t->keys[i].key, k, sizeof(k)));
		nm_list(out, t->def, t->keys[i].all);
		fputs("; since its last snapshot: ", out);
		nm_list(out, t->def, t->keys[i].last);
		fputc('\n', out);
	}
}

/* "since_start":[..],"since_snapshot":[..]: a trigger's near misses, or one key's. */
static void nm_lists_json(FILE *out, const __u64 *all, const __u64 *last)
{
	for (int w = 0; w < 2; w++) {
		const __u64 *a = w ? last : all;

		fputs(w ? ",\"since_snapshot\":[" : "\"since_start\":[", out);
		for (int j = 0; j < TRIGREC_NEAR_MISS && a[j]; j++)
			fprintf(out, "%s%llu", j ? "," : "", ULL(a[j]));
		fputc(']', out);
	}
}

/* ,"keys":[{"key":"42","key_values":[42,0],"since_start":[..],"since_snapshot":[..]}] */
static void keys_json(FILE *out, const struct status_trigger *t)
{
	fputs(",\"keys\":[", out);
	for (int i = 0; i < t->nr_keys && i < BPF_NM_KEYS; i++) {
		const struct bpfctl_key_nm *e = &t->keys[i];
		char k[64];

		fprintf(out, "%s{\"key\":", i ? "," : "");
		bpfctl__key_nm_text(&t->def->cfg, e->key, k, sizeof(k));
		json_str(out, k, sizeof(k));
		fprintf(out, ",\"key_values\":[%llu,%llu],", ULL(e->key[0]), ULL(e->key[1]));
		nm_lists_json(out, e->all, e->last);
		fputc('}', out);
	}
	fputc(']', out);
}

static void render_text(struct status *st, const struct status_trigger *trigs, int nr_trigs,
			FILE *out, uint64_t now, int du_err, unsigned long files, uint64_t bytes,
			unsigned long datas)
{
	uint64_t up = (now - st->started_mono) / 1000000000ull;
	char t1[32], t2[32], sz[32];

	fprintf(out, "%-15s %d\n", "pid:", (int)getpid());
	fprintf(out, "%-15s %s\n", "version:", TRIGREC_VERSION);
	fprintf(out, "%-15s %s\n", "script:", st->script ? st->script : "none (trigrec record)");
	fprintf(out, "%-15s %s\n", "started:", fmt_when(&st->started, t1, sizeof(t1)));
	fprintf(out, "%-15s %s (%llu s)\n", "uptime:", fmt_age(up, t2, sizeof(t2)), ULL(up));
	if (du_err)
		fprintf(out, "%-15s %s (unreadable: %s)\n", "output:", st->outdir,
			strerror(-du_err));
	else
		fprintf(out, "%-15s %s (%lu files, %lu snapshots, %llu bytes, %s)\n",
			"output:", st->outdir, files, datas, ULL(bytes),
			fmt_size(bytes, sz, sizeof(sz)));
	fprintf(out, "%-15s %lu written (%lu by triggers, %lu manual, %lu final), %lu failed\n",
		"snapshots:", st->written, st->written - st->manual - st->final, st->manual,
		st->final, st->failed);
	if (st->has_last)
		fprintf(out, "%-15s %s (trigger %s, %s, %s ago)\n", "last snapshot:", st->last_path,
			st->last_name, fmt_when(&st->last_at, t1, sizeof(t1)),
			fmt_age((now - st->last_mono) / 1000000000ull, t2, sizeof(t2)));
	else
		fprintf(out, "%-15s none\n", "last snapshot:");
	if (st->has_fail)
		fprintf(out, "%-15s trigger %s, %s: %s\n", "last failure:", st->fail_name,
			fmt_when(&st->fail_at, t1, sizeof(t1)), strerror(-st->fail_err));
	fprintf(out, "%-15s %d\n", "triggers:", nr_trigs);
	fprintf(out, "%-15s since start (trigger table generation %u)\n",
		"counters:", st->generation);
	for (int i = 0; i < nr_trigs; i++) {
		const struct trigrec_stats *s = &trigs[i].stats;

		if (!trigs[i].have) {
			fprintf(out, "trigger %s: counters unreadable\n", trigs[i].name);
			continue;
		}
		fprintf(out,
			"trigger %s: fired %llu, snapshots %lu, coalesced %llu, suppressed %llu "
			"(cooldown %llu, limit %llu, budget %llu), side-band full %llu, evaluated %llu, "
			"matched %llu, str() faults %llu\n",
			trigs[i].name, ULL(s->fired), written_by(st, trigs[i].name),
			ULL(s->coalesced), ULL(suppressed(s)), ULL(s->suppressed_cooldown),
			ULL(s->suppressed_limit), ULL(s->suppressed_budget), ULL(s->rb_dropped),
			ULL(s->evaluated), ULL(s->matched), ULL(s->str_faults));
		near_miss_line(out, &trigs[i]);
		if (trigs[i].have_ls && trigs[i].def &&
		    (trigs[i].def->cfg.flags & TRIGREC_TF_RATE_BASELINE)) {
			char bl[64];

			fprintf(out,
				"trigger %s: learns %s %s, after %llu windows: %llu keys (in the "
				"rate keys' LRU, --max-keys), %llu windows learned from, %llu "
				"while their key was warming up\n",
				trigs[i].name, status__baseline_text(trigs[i].def, bl, sizeof(bl)),
				trigs[i].def->cfg.side[TRIGREC_ROLE_EVENT].key.p[0].src ?
					"per key" :
					"of all events",
				ULL(trigs[i].def->cfg.learn_after), ULL(trigs[i].ls.keys),
				ULL(trigs[i].ls.samples), ULL(trigs[i].ls.warming));
		}
		if (trigs[i].have_ls && trigs[i].def && trigs[i].def->cfg.learn_pct) {
			char pct[48];

			fprintf(out,
				"trigger %s: learns %s %s, after %llu samples: %llu keys (of the "
				"%u all learned triggers share), %llu spans learned from, %llu "
				"while their key was warming up\n",
				trigs[i].name, status__learned_text(trigs[i].def, pct, sizeof(pct)),
				trigs[i].def->cfg.flags & TRIGREC_TF_LEARN_ALL ? "of all spans" :
										 "per key",
				ULL(trigs[i].def->cfg.learn_after), ULL(trigs[i].ls.keys),
				TRIGREC_LEARN_KEYS, ULL(trigs[i].ls.samples),
				ULL(trigs[i].ls.warming));
		}
		if (trigs[i].have_la && trigs[i].def && trigs[i].def->cfg.learn_pct) {
			char al[160];

			fprintf(out, "trigger %s: %s%s\n", trigs[i].name,
				status__all_keys_text(&trigs[i], al, sizeof(al)),
				trigs[i].def->cfg.flags & TRIGREC_TF_LEARN_ALL ?
					"" :
					" (reported only: a key fires on its own threshold)");
		}
	}
}

static void render_json(struct status *st, const struct status_trigger *trigs, int nr_trigs,
			FILE *out, uint64_t now, int du_err, unsigned long files, uint64_t bytes,
			unsigned long datas)
{
	char t1[32];

	fprintf(out, "{\"pid\":%d,\"version\":", (int)getpid());
	json_str(out, TRIGREC_VERSION, 64);
	fputs(",\"script\":", out);
	if (st->script)
		json_str(out, st->script, 4096);
	else
		fputs("null", out);
	fputs(",\"started\":", out);
	json_str(out, fmt_when(&st->started, t1, sizeof(t1)), sizeof(t1));
	fprintf(out, ",\"uptime_s\":%llu,\"output\":{\"dir\":",
		ULL((now - st->started_mono) / 1000000000ull));
	json_str(out, st->outdir, 4096);
	if (du_err) {
		fputs(",\"error\":", out);
		json_str(out, strerror(-du_err), 256);
	} else {
		fprintf(out, ",\"files\":%lu,\"snapshots\":%lu,\"bytes\":%llu", files, datas,
			ULL(bytes));
	}
	fprintf(out,
		"},\"snapshots\":{\"written\":%lu,\"by_triggers\":%lu,\"manual\":%lu,"
		"\"final\":%lu,\"failed\":%lu}",
		st->written, st->written - st->manual - st->final, st->manual, st->final,
		st->failed);
	fprintf(out, ",\"generation\":%u,\"counters\":\"since_start\",\"last_snapshot\":",
		st->generation);
	if (st->has_last) {
		fputs("{\"path\":", out);
		json_str(out, st->last_path, sizeof(st->last_path));
		fputs(",\"trigger\":", out);
		json_str(out, st->last_name, sizeof(st->last_name));
		fputs(",\"time\":", out);
		json_str(out, fmt_when(&st->last_at, t1, sizeof(t1)), sizeof(t1));
		fprintf(out, ",\"age_s\":%llu}", ULL((now - st->last_mono) / 1000000000ull));
	} else {
		fputs("null", out);
	}
	fputs(",\"triggers\":[", out);
	for (int i = 0; i < nr_trigs; i++) {
		const struct trigrec_stats *s = &trigs[i].stats;

		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		json_str(out, trigs[i].name, 64);
		if (!trigs[i].have) {
			fputs("}", out);
			continue;
		}
		fprintf(out,
			",\"fired\":%llu,\"snapshots\":%lu,\"coalesced\":%llu,\"suppressed\":%llu,"
			"\"suppressed_cooldown\":%llu,\"suppressed_limit\":%llu,"
			"\"suppressed_budget\":%llu,\"sideband_full\":%llu,"
			"\"evaluated\":%llu,\"matched\":%llu,\"str_faults\":%llu",
			ULL(s->fired), written_by(st, trigs[i].name), ULL(s->coalesced),
			ULL(suppressed(s)), ULL(s->suppressed_cooldown), ULL(s->suppressed_limit),
			ULL(s->suppressed_budget), ULL(s->rb_dropped), ULL(s->evaluated),
			ULL(s->matched), ULL(s->str_faults));
		if (trigs[i].have_nm && trigs[i].def &&
		    (trigs[i].def->kind == TRIGREC_TRIG_LATENCY ||
		     trigs[i].def->kind == TRIGREC_TRIG_RATE ||
		     (trigs[i].def->kind == TRIGREC_TRIG_EVENT && trigs[i].def->cfg.nm_clause1))) {
			const struct trigrec_near_miss *nm = &trigs[i].nm;
			const struct trig_def *d = trigs[i].def;

			if (d->kind == TRIGREC_TRIG_EVENT) {
				/* The comparison's value as compiled (a signed field's imm as such). */
				const struct trigrec_clause *c =
					&d->cfg.side[TRIGREC_ROLE_EVENT]
						 .filter.c[d->cfg.nm_clause1 - 1];

				fputs(",\"near_miss\":{\"unit\":\"value\",\"comparison\":", out);
				json_str(out, d->nm_desc, sizeof(d->nm_desc));
				if (c->is_signed)
					fprintf(out, ",\"threshold\":%lld,", (long long)c->imm);
				else
					fprintf(out, ",\"threshold\":%llu,", ULL(c->imm));
			} else {
				fprintf(out, ",\"near_miss\":{\"unit\":\"%s\",\"threshold\":%llu,",
					d->kind == TRIGREC_TRIG_LATENCY ? "ns" : "events",
					ULL(d->cfg.threshold));
			}
			nm_lists_json(out, nm->all, nm->last);
			if (bpfctl__keyed_nm(&d->cfg))
				keys_json(out, &trigs[i]);
			fputc('}', out);
		}
		if (trigs[i].have_ls && trigs[i].def &&
		    (trigs[i].def->cfg.flags & TRIGREC_TF_RATE_BASELINE)) {
			char bl[64];

			fputs(",\"learned\":{\"threshold\":", out);
			json_str(out, status__baseline_text(trigs[i].def, bl, sizeof(bl)),
				 sizeof(bl));
			fprintf(out,
				",\"per_key\":%s,\"after_windows\":%llu,\"keys\":%llu,"
				"\"windows\":%llu,\"warming\":%llu}",
				trigs[i].def->cfg.side[TRIGREC_ROLE_EVENT].key.p[0].src ? "true" :
											  "false",
				ULL(trigs[i].def->cfg.learn_after), ULL(trigs[i].ls.keys),
				ULL(trigs[i].ls.samples), ULL(trigs[i].ls.warming));
		}
		if (trigs[i].have_ls && trigs[i].def && trigs[i].def->cfg.learn_pct) {
			char pct[48];

			fputs(",\"learned\":{\"threshold\":", out);
			json_str(out, status__learned_text(trigs[i].def, pct, sizeof(pct)),
				 sizeof(pct));
			fprintf(out,
				",\"per_key\":%s,\"after\":%llu,\"keys\":%llu,\"max_keys\":%u,"
				"\"samples\":%llu,\"warming\":%llu",
				trigs[i].def->cfg.flags & TRIGREC_TF_LEARN_ALL ? "false" : "true",
				ULL(trigs[i].def->cfg.learn_after), ULL(trigs[i].ls.keys),
				TRIGREC_LEARN_KEYS, ULL(trigs[i].ls.samples),
				ULL(trigs[i].ls.warming));
			/* All keys' histogram (without `by`, the one that judges). */
			if (trigs[i].have_la)
				fprintf(out,
					",\"all_keys\":{\"percentile_ns\":%llu,"
					"\"threshold_ns\":%llu,\"samples\":%llu,"
					"\"histogram_total\":%llu}",
					ULL(trigs[i].la_pct_ns),
					ULL(trigs[i].la_pct_ns * trigs[i].def->cfg.learn_mult /
					    100),
					ULL(trigs[i].la_samples), ULL(trigs[i].la_total));
			fputc('}', out);
		}
		fputc('}', out);
	}
	fputs("]}\n", out);
}

int status__render(struct status *st, const struct status_trigger *trigs, int nr_trigs, int json,
		   FILE *out)
{
	unsigned long files, datas;
	uint64_t bytes, now = mono_ns();
	/* The directory is read outside the lock: a slow disk must not hold the writer. */
	int du_err = disk_use(st->outdir, &files, &bytes, &datas);

	pthread_mutex_lock(&st->mu);
	if (json)
		render_json(st, trigs, nr_trigs, out, now, du_err, files, bytes, datas);
	else
		render_text(st, trigs, nr_trigs, out, now, du_err, files, bytes, datas);
	pthread_mutex_unlock(&st->mu);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
