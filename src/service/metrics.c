// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <microhttpd.h>
#include "capture/recorder.h"
#include "engine/bpfctl.h"
#include "service/hooks.h"
#include "service/metrics.h"
#include "service/webhook.h"
#include "snapshot/json.h"
#include "util/log.h"
#include "util/netaddr.h"

/* Buckets: the freeze is normally sub-millisecond; a file takes ms to seconds. */
static const double freeze_le[] = { 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
				    0.005,  0.01,    0.025,  0.1,   1 };
static const double file_le[] = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10 };
#define NB 10

struct hist {
	uint64_t bucket[NB]; /* cumulative on output, per bucket here */
	uint64_t count;
	double sum;
};

/* Per trigger slot: [0, nr_trigs) triggers, then manual, then final. */
struct trig_counts {
	uint64_t written, failed;
};

struct metrics {
	char **names; /* trigger names (copies: a reload replaces the config's) */
	int nr_trigs;
	struct bpfctl *b;
	struct recorder *r;
	pthread_mutex_t mu;
	struct trig_counts *tc; /* nr_trigs + 2 */
	struct hist freeze, to_file;
	uint64_t bytes_written;
	uint64_t records_lost;			    /* PERF_RECORD_LOST in written snapshots */
	uint64_t ret_removed, dir_files, dir_bytes; /* metrics__retention() */
	uint64_t reloads, reload_failures;
	uint64_t recursion_retired; /* recursion_misses of the BPF objects reloads freed */
	double start_time;
	int on_snapshot; /* an on_snapshot command is configured (not reloadable) */
	int host_check;	 /* bound to loopback: Host must name loopback (metrics_host_ok) */
	uint64_t hook_runs[HOOK_NR_RESULTS]; /* on_snapshot runs by result */
	struct MHD_Daemon *httpd;
	/* POST /snapshot (metrics__enable_snapshot()): NULL token = no endpoint. */
	char *token;
	metrics_snapshot_fn snap_fn;
	void *snap_ctx;
	pthread_mutex_t snap_mu; /* one request's snapshots at a time */
	uint64_t rate_tat;	 /* WEBHOOK_RATE_PER_MIN's bucket (monotonic ns), under mu */
	uint64_t http_req[HTTP_SNAP_NR];
	uint64_t http_snaps[4]; /* taken, budget, coalesced, failed */
};

static const char *const http_req_names[HTTP_SNAP_NR] = {
	[HTTP_SNAP_OK] = "ok",
	[HTTP_SNAP_UNAUTHORIZED] = "unauthorized",
	[HTTP_SNAP_TOO_LARGE] = "too_large",
	[HTTP_SNAP_BAD_REQUEST] = "bad_request",
	[HTTP_SNAP_RATE_LIMITED] = "rate_limited",
	[HTTP_SNAP_UNAVAILABLE] = "unavailable",
};
static const char *const http_snap_names[4] = { "taken", "budget", "coalesced", "failed" };

static void names_free(char **names, int n)
{
	for (int i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* Copies of the triggers' names (a reload frees the config's); NULL when out of memory. */
static char **names_dup(const struct trig_def *trigs, int nr_trigs)
{
	char **names = calloc(nr_trigs + 1, sizeof(*names));

	for (int i = 0; names && i < nr_trigs; i++) {
		if (!(names[i] = strdup(trigs[i].name))) {
			names_free(names, i);
			return NULL;
		}
	}
	return names;
}

struct metrics *metrics__new(const struct trig_def *trigs, int nr_trigs, int on_snapshot)
{
	struct metrics *m = calloc(1, sizeof(*m));
	struct timespec ts;

	if (!m)
		return NULL;
	m->nr_trigs = nr_trigs;
	m->on_snapshot = on_snapshot;
	m->tc = calloc(nr_trigs + 2, sizeof(*m->tc));
	m->names = names_dup(trigs, nr_trigs);
	if (!m->tc || !m->names) {
		names_free(m->names, m->nr_trigs);
		free(m->tc);
		free(m);
		return NULL;
	}
	pthread_mutex_init(&m->mu, NULL);
	pthread_mutex_init(&m->snap_mu, NULL);
	clock_gettime(CLOCK_REALTIME, &ts);
	m->start_time = ts.tv_sec + ts.tv_nsec / 1e9;
	return m;
}

void metrics__reload_failed(struct metrics *m)
{
	pthread_mutex_lock(&m->mu);
	m->reload_failures++;
	pthread_mutex_unlock(&m->mu);
}

void metrics__attach(struct metrics *m, struct bpfctl *b, struct recorder *r)
{
	pthread_mutex_lock(&m->mu);
	m->b = b;
	m->r = r;
	pthread_mutex_unlock(&m->mu);
}

void metrics__retire_bpf(struct metrics *m, uint64_t recursion_misses)
{
	pthread_mutex_lock(&m->mu);
	m->recursion_retired += recursion_misses;
	m->b = NULL;
	pthread_mutex_unlock(&m->mu);
}

static void hist_add(struct hist *h, const double *le, double v)
{
	int i = 0;

	while (i < NB && v > le[i])
		i++;
	if (i < NB)
		h->bucket[i]++;
	h->count++;
	h->sum += v;
}

int metrics__set_triggers(struct metrics *m, const struct trig_def *trigs, int nr_trigs,
			  struct bpfctl *b)
{
	struct trig_counts *tc = calloc(nr_trigs + 2, sizeof(*tc));
	char **names = names_dup(trigs, nr_trigs);

	if (!tc || !names) {
		names_free(names, nr_trigs);
		free(tc);
		return -ENOMEM;
	}
	pthread_mutex_lock(&m->mu);
	/* Counters follow a trigger by name; manual and final carry over. */
	for (int i = 0; i < nr_trigs; i++)
		for (int k = 0; k < m->nr_trigs; k++)
			if (!strcmp(names[i], m->names[k]))
				tc[i] = m->tc[k];
	tc[nr_trigs] = m->tc[m->nr_trigs];
	tc[nr_trigs + 1] = m->tc[m->nr_trigs + 1];
	names_free(m->names, m->nr_trigs);
	free(m->tc);
	m->names = names;
	m->tc = tc;
	m->nr_trigs = nr_trigs;
	m->b = b;
	m->reloads++;
	pthread_mutex_unlock(&m->mu);
	return 0;
}

void metrics__observe(struct metrics *m, const struct metrics_snapshot *s)
{
	int slot = s->trigger >= 0 ? s->trigger : m->nr_trigs + (s->trigger == -1 ? 0 : 1);

	if (slot > m->nr_trigs + 1)
		return;
	pthread_mutex_lock(&m->mu);
	if (s->ok) {
		m->tc[slot].written++;
		m->bytes_written += s->bytes;
		hist_add(&m->to_file, file_le, s->to_file_s);
	} else {
		m->tc[slot].failed++;
	}
	hist_add(&m->freeze, freeze_le, s->freeze_s);
	m->records_lost += s->lost;
	pthread_mutex_unlock(&m->mu);
}

void metrics__on_snapshot_run(struct metrics *m, int result)
{
	if (result < 0 || result >= HOOK_NR_RESULTS)
		return;
	pthread_mutex_lock(&m->mu);
	m->hook_runs[result]++;
	pthread_mutex_unlock(&m->mu);
}

void metrics__retention(struct metrics *m, uint64_t removed, uint64_t files, uint64_t bytes)
{
	pthread_mutex_lock(&m->mu);
	m->ret_removed = removed;
	m->dir_files = files;
	m->dir_bytes = bytes;
	pthread_mutex_unlock(&m->mu);
}

static const char *slot_name(const struct metrics *m, int i)
{
	if (i < m->nr_trigs)
		return m->names[i];
	return i == m->nr_trigs ? "manual" : "final";
}

static void hist_out(FILE *f, const char *name, const char *help, const struct hist *h,
		     const double *le)
{
	uint64_t cum = 0;

	fprintf(f, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	for (int i = 0; i < NB; i++) {
		cum += h->bucket[i];
		fprintf(f, "%s_bucket{le=\"%g\"} %llu\n", name, le[i], (unsigned long long)cum);
	}
	fprintf(f, "%s_bucket{le=\"+Inf\"} %llu\n", name, (unsigned long long)h->count);
	fprintf(f, "%s_sum %.9f\n%s_count %llu\n", name, h->sum, name,
		(unsigned long long)h->count);
}

#define U(x) ((unsigned long long)(x))

/*
 * Near misses: the largest value of each latency (seconds) or rate (events
 * in a window) trigger that did not fire, since the start and since the
 * trigger's last snapshot, with the threshold it missed.
 */
/*
 * A keyed trigger's largest near miss of each of its BPF_NM_KEYS keys with
 * the largest ones, with a key label: at most 2 x 4 series per trigger.
 */
static void keys_out(struct metrics *m, FILE *f, int i, const char *name, double div)
{
	struct bpfctl_key_nm top[BPF_NM_KEYS];
	int nk = bpfctl__key_near_miss(m->b, (uint32_t)i, top, 0);

	for (int k = 0; k < nk; k++) {
		char kt[64];

		bpfctl__key_nm_text(&m->b->trigs[i].cfg, top[k].key, kt, sizeof(kt));
		fprintf(f, "%s{trigger=\"%s\",key=\"%s\",window=\"start\"} %.9g\n", name,
			slot_name(m, i), kt, (double)top[k].all[0] / div);
		fprintf(f, "%s{trigger=\"%s\",key=\"%s\",window=\"snapshot\"} %.9g\n", name,
			slot_name(m, i), kt, (double)top[k].last[0] / div);
	}
}

static void near_miss_out(struct metrics *m, FILE *f, int n)
{
	struct trigrec_near_miss nm[TRIGREC_MAX_TRIGGERS];
	int kind[TRIGREC_MAX_TRIGGERS];

	for (int i = 0; i < n && i < TRIGREC_MAX_TRIGGERS; i++) {
		kind[i] = 0;
		if (i < m->b->nr_trigs && !bpfctl__near_miss(m->b, i, &nm[i]))
			kind[i] = m->b->trigs[i].kind;
	}
	/* An event trigger's comparison (`if ret > N`): only when it has one. */
	for (int i = 0; i < n && i < TRIGREC_MAX_TRIGGERS; i++)
		if (kind[i] == TRIGREC_TRIG_EVENT && !m->b->trigs[i].cfg.nm_clause1)
			kind[i] = 0;
	for (int u = 0; u < 3; u++) {
		static const int wants[] = { TRIGREC_TRIG_LATENCY, TRIGREC_TRIG_RATE,
					     TRIGREC_TRIG_EVENT };
		static const char *const names[] = { "trigrec_trigger_near_miss_seconds",
						     "trigrec_trigger_near_miss_events",
						     "trigrec_trigger_near_miss_value" };
		static const char *const ths[] = { "trigrec_trigger_threshold_seconds",
						   "trigrec_trigger_threshold_events",
						   "trigrec_trigger_threshold_value" };
		static const char *const what[] = {
			"latency of a latency trigger", "window count of a rate trigger",
			"value of an event trigger's compared field (if FIELD > N)"
		};
		int want = wants[u];
		const char *name = names[u], *th = ths[u];
		double div = u ? 1.0 : 1e9;
		int any = 0;

		for (int i = 0; i < n && i < TRIGREC_MAX_TRIGGERS; i++)
			any |= kind[i] == want;
		if (!any)
			continue;
		fprintf(f,
			"# HELP %s The largest %s that did not fire, since the start or since the trigger's last snapshot (0: none); with key, of one of the 4 keys with the largest.\n"
			"# TYPE %s gauge\n",
			name, what[u], name);
		for (int i = 0; i < n && i < TRIGREC_MAX_TRIGGERS; i++) {
			if (kind[i] != want)
				continue;
			fprintf(f, "%s{trigger=\"%s\",window=\"start\"} %.9g\n", name,
				slot_name(m, i), (double)nm[i].all[0] / div);
			fprintf(f, "%s{trigger=\"%s\",window=\"snapshot\"} %.9g\n", name,
				slot_name(m, i), (double)nm[i].last[0] / div);
			keys_out(m, f, i, name, div);
		}
		fprintf(f,
			"# HELP %s The threshold a near miss is measured against.\n"
			"# TYPE %s gauge\n",
			th, th);
		/*
		 * A learned latency threshold and a rate baseline's are per key (the
		 * sidecars have each firing's): none here, rather than a 0.
		 */
		for (int i = 0; i < n && i < TRIGREC_MAX_TRIGGERS; i++) {
			const struct trigrec_trigger_cfg *c = &m->b->trigs[i].cfg;
			double v = (double)c->threshold / div;

			if (kind[i] != want || (c->flags & TRIGREC_TF_RATE_BASELINE) ||
			    (want == TRIGREC_TRIG_LATENCY && c->learn_pct))
				continue;
			if (want == TRIGREC_TRIG_EVENT) {
				const struct trigrec_clause *cl =
					&c->side[TRIGREC_ROLE_EVENT].filter.c[c->nm_clause1 - 1];

				v = cl->is_signed ? (double)(int64_t)cl->imm : (double)cl->imm;
			}
			fprintf(f, "%s{trigger=\"%s\"} %.9g\n", th, slot_name(m, i), v);
		}
	}
}

/*
 * A learned latency trigger's threshold over all its keys (percentile x
 * multiplier of learn_all; without `by`, the trigger's own): the per-key
 * thresholds are in the sidecars, this one is one number per trigger.
 */
static void all_keys_out(struct metrics *m, FILE *f, int n)
{
	static struct trigrec_learn la; /* 4.6 KiB; under m->mu */
	int any = 0;

	for (int i = 0; i < n && i < m->b->nr_trigs; i++) {
		const struct trigrec_trigger_cfg *c = &m->b->trigs[i].cfg;
		uint64_t th;

		if (m->b->trigs[i].kind != TRIGREC_TRIG_LATENCY || !c->learn_pct ||
		    bpfctl__learn_all(m->b, (uint32_t)i, &la))
			continue;
		if (!any)
			fprintf(f,
				"# HELP trigrec_trigger_learned_all_keys_threshold_seconds A learned latency trigger's percentile x multiplier over all its keys' spans (0: not learned yet).\n"
				"# TYPE trigrec_trigger_learned_all_keys_threshold_seconds gauge\n");
		any = 1;
		/* In whole ns, as BPF computes it (and status and the sidecar say it). */
		th = la.pct_ns * c->learn_mult / 100;
		fprintf(f,
			"trigrec_trigger_learned_all_keys_threshold_seconds{trigger=\"%s\"} %.9g\n",
			slot_name(m, i), (double)th / 1e9);
	}
}

int metrics__render(struct metrics *m, FILE *f)
{
	int n = m->nr_trigs;
	struct trigrec_stats *st = NULL, g = { 0 };
	uint64_t ring_bytes[4] = { 0 }; /* main, tracking, ring sets, compact */
	uint64_t recursion;

	pthread_mutex_lock(&m->mu);
	/* Cumulative per object: what reloads freed, plus the live object's. */
	recursion = m->recursion_retired;
	if (m->b) {
		recursion += bpfctl__recursion_misses(m->b);
		st = calloc(n ? n : 1, sizeof(*st));
		for (int i = 0; st && i < n; i++)
			bpfctl__stats(m->b, i, &st[i]);
		bpfctl__stats(m->b, TRIGREC_MAX_TRIGGERS, &g);
	}
	if (m->r) {
		for (int i = 0; i < m->r->nr_rings; i++)
			if (!m->r->rings[i].compact) /* a carry is ours, not the kernel's */
				ring_bytes[m->r->rings[i].tracking ? 1 :
					   m->r->rings[i].set >= 0 ? 2 :
								     0] += m->r->rings[i].size;
		/* The compact map: every possible CPU's ring and spare, as mapped. */
		ring_bytes[3] = m->r->cr_len;
	}

	fprintf(f,
		"# HELP trigrec_build_info trigrec's version (always 1).\n"
		"# TYPE trigrec_build_info gauge\n"
		"trigrec_build_info{version=\"%s\"} 1\n",
		TRIGREC_VERSION);
	fprintf(f,
		"# HELP trigrec_start_time_seconds When this recorder started (Unix time).\n"
		"# TYPE trigrec_start_time_seconds gauge\n"
		"trigrec_start_time_seconds %.3f\n",
		m->start_time);
	fprintf(f, "# HELP trigrec_snapshots_total Snapshots by trigger and result.\n"
		   "# TYPE trigrec_snapshots_total counter\n");
	for (int i = 0; i < n + 2; i++) {
		fprintf(f, "trigrec_snapshots_total{trigger=\"%s\",result=\"written\"} %llu\n",
			slot_name(m, i), U(m->tc[i].written));
		fprintf(f, "trigrec_snapshots_total{trigger=\"%s\",result=\"failed\"} %llu\n",
			slot_name(m, i), U(m->tc[i].failed));
	}
	if (st) {
		fprintf(f,
			"# HELP trigrec_trigger_evaluations_total Times a trigger's condition was evaluated.\n"
			"# TYPE trigrec_trigger_evaluations_total counter\n");
		for (int i = 0; i < n; i++)
			fprintf(f, "trigrec_trigger_evaluations_total{trigger=\"%s\"} %llu\n",
				slot_name(m, i), U(st[i].evaluated));
		fprintf(f,
			"# HELP trigrec_trigger_matches_total Times a trigger's condition held, before its policy.\n"
			"# TYPE trigrec_trigger_matches_total counter\n");
		for (int i = 0; i < n; i++)
			fprintf(f, "trigrec_trigger_matches_total{trigger=\"%s\"} %llu\n",
				slot_name(m, i), U(st[i].matched));
		fprintf(f,
			"# HELP trigrec_trigger_str_faults_total Evaluations whose str(FIELD) text could not be read (counted as no match).\n"
			"# TYPE trigrec_trigger_str_faults_total counter\n");
		for (int i = 0; i < n; i++)
			fprintf(f, "trigrec_trigger_str_faults_total{trigger=\"%s\"} %llu\n",
				slot_name(m, i), U(st[i].str_faults));
		fprintf(f, "# HELP trigrec_trigger_firings_total Firings that started a snapshot.\n"
			   "# TYPE trigrec_trigger_firings_total counter\n");
		for (int i = 0; i < n; i++)
			fprintf(f, "trigrec_trigger_firings_total{trigger=\"%s\"} %llu\n",
				slot_name(m, i), U(st[i].fired));
		fprintf(f,
			"# HELP trigrec_trigger_suppressed_total Firings that did not become a snapshot, by reason.\n"
			"# TYPE trigrec_trigger_suppressed_total counter\n");
		for (int i = 0; i < n; i++) {
			static const char *why[] = { "cooldown", "limit", "budget", "coalesced",
						     "sideband_full" };
			uint64_t v[] = { st[i].suppressed_cooldown, st[i].suppressed_limit,
					 st[i].suppressed_budget, st[i].coalesced,
					 st[i].rb_dropped };

			for (int k = 0; k < 5; k++)
				fprintf(f,
					"trigrec_trigger_suppressed_total{trigger=\"%s\",reason=\"%s\"} %llu\n",
					slot_name(m, i), why[k], U(v[k]));
		}
		near_miss_out(m, f, n);
		all_keys_out(m, f, n);
	}
	fprintf(f,
		"# HELP trigrec_records_lost_total Records lost: dropped while frozen, or reported lost by the kernel in written snapshots.\n"
		"# TYPE trigrec_records_lost_total counter\n"
		"trigrec_records_lost_total{reason=\"frozen\"} %llu\n"
		"trigrec_records_lost_total{reason=\"ring\"} %llu\n",
		U(g.gated), U(m->records_lost));
	fprintf(f,
		"# HELP trigrec_bpf_recursion_misses_total Records the kernel's BPF recursion guard kept from every perf ring: another BPF program was running on that CPU.\n"
		"# TYPE trigrec_bpf_recursion_misses_total counter\n"
		"trigrec_bpf_recursion_misses_total %llu\n",
		U(recursion));
	fprintf(f,
		"# HELP trigrec_ring_bytes Kernel ring memory, all CPUs.\n"
		"# TYPE trigrec_ring_bytes gauge\n"
		"trigrec_ring_bytes{ring=\"main\"} %llu\n"
		"trigrec_ring_bytes{ring=\"tracking\"} %llu\n"
		"trigrec_ring_bytes{ring=\"sets\"} %llu\n"
		"trigrec_ring_bytes{ring=\"compact\"} %llu\n",
		U(ring_bytes[0]), U(ring_bytes[1]), U(ring_bytes[2]), U(ring_bytes[3]));
	fprintf(f,
		"# HELP trigrec_output_bytes_total Bytes of snapshot files written.\n"
		"# TYPE trigrec_output_bytes_total counter\n"
		"trigrec_output_bytes_total %llu\n",
		U(m->bytes_written));
	fprintf(f,
		"# HELP trigrec_output_bytes Bytes of snapshots (.data + .json) in the output directory now.\n"
		"# TYPE trigrec_output_bytes gauge\n"
		"trigrec_output_bytes %llu\n"
		"# HELP trigrec_output_snapshots Snapshots (.data + .json pairs) in the output directory now.\n"
		"# TYPE trigrec_output_snapshots gauge\n"
		"trigrec_output_snapshots %llu\n"
		"# HELP trigrec_retention_deleted_total Snapshots removed by retention (keep files, bytes, age).\n"
		"# TYPE trigrec_retention_deleted_total counter\n"
		"trigrec_retention_deleted_total %llu\n",
		U(m->dir_bytes), U(m->dir_files), U(m->ret_removed));
	if (m->on_snapshot) {
		fprintf(f, "# HELP trigrec_on_snapshot_runs_total on_snapshot commands by result "
			   "(timeout: stopped at the time limit; dropped: never started).\n"
			   "# TYPE trigrec_on_snapshot_runs_total counter\n");
		for (int i = 0; i < HOOK_NR_RESULTS; i++)
			fprintf(f, "trigrec_on_snapshot_runs_total{result=\"%s\"} %llu\n",
				hook_result_names[i], U(m->hook_runs[i]));
	}
	fprintf(f,
		"# HELP trigrec_reloads_total Script reloads (SIGHUP, control reload), by result.\n"
		"# TYPE trigrec_reloads_total counter\n"
		"trigrec_reloads_total{result=\"ok\"} %llu\n"
		"trigrec_reloads_total{result=\"failed\"} %llu\n",
		U(m->reloads), U(m->reload_failures));
	if (m->token) {
		fprintf(f,
			"# HELP trigrec_http_snapshot_requests_total POST /snapshot requests, by "
			"outcome.\n# TYPE trigrec_http_snapshot_requests_total counter\n");
		for (int i = 0; i < HTTP_SNAP_NR; i++)
			fprintf(f, "trigrec_http_snapshot_requests_total{result=\"%s\"} %llu\n",
				http_req_names[i], U(m->http_req[i]));
		fprintf(f, "# HELP trigrec_http_snapshots_total Snapshots POST /snapshot asked "
			   "for, by result.\n# TYPE trigrec_http_snapshots_total counter\n");
		for (int i = 0; i < 4; i++)
			fprintf(f, "trigrec_http_snapshots_total{result=\"%s\"} %llu\n",
				http_snap_names[i], U(m->http_snaps[i]));
	}
	hist_out(f, "trigrec_freeze_seconds",
		 "Time recording was frozen per snapshot (freeze to resume).", &m->freeze,
		 freeze_le);
	hist_out(f, "trigrec_trigger_to_file_seconds",
		 "Time from the trigger to the published file.", &m->to_file, file_le);
	pthread_mutex_unlock(&m->mu);
	free(st);
	return ferror(f) ? -EIO : 0;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int code, const char *ctype,
			     char *buf, size_t len)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", ctype);
	if (code == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, "WWW-Authenticate", "Bearer realm=\"trigrec\"");
	if (code == MHD_HTTP_TOO_MANY_REQUESTS)
		MHD_add_response_header(resp, "Retry-After", "60");
	ret = MHD_queue_response(conn, code, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* A refusal of POST /snapshot: {"error": MSG} with its status, counted by kind. */
static enum MHD_Result refuse(struct metrics *m, struct MHD_Connection *conn, unsigned int code,
			      int kind, const char *msg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return MHD_NO;
	fputs("{\"error\": ", f);
	json_str(f, msg, 4096);
	fputs("}\n", f);
	fclose(f);
	pthread_mutex_lock(&m->mu);
	m->http_req[kind]++;
	pthread_mutex_unlock(&m->mu);
	return reply(conn, code, "application/json", buf, len);
}

/* WEBHOOK_RATE_PER_MIN requests a minute, a burst of as many: 1 = this one may go on. */
static int rate_ok(struct metrics *m)
{
	const uint64_t per = 60000000000ull, interval = per / WEBHOOK_RATE_PER_MIN;
	struct timespec ts;
	uint64_t now;
	int ok;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	pthread_mutex_lock(&m->mu);
	ok = !(m->rate_tat > now && m->rate_tat - now > per - interval);
	if (ok)
		m->rate_tat = (m->rate_tat > now ? m->rate_tat : now) + interval;
	pthread_mutex_unlock(&m->mu);
	return ok;
}

/* A POST /snapshot body being read. */
struct post_body {
	char *buf;
	size_t len;
	int too_big;
};

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct post_body *pb = *con_cls;

	(void)cls, (void)conn, (void)toe;
	if (pb) {
		free(pb->buf);
		free(pb);
		*con_cls = NULL;
	}
}

/* The body is in: take what it asks for, one snapshot after the other. */
static enum MHD_Result take_snapshots(struct metrics *m, struct MHD_Connection *conn,
				      struct post_body *pb)
{
	struct webhook_req wr;
	char err[512], path[4096], *buf = NULL;
	size_t len = 0;
	int e, first = 1;
	FILE *f;

	e = webhook_parse(pb->buf ? pb->buf : "", pb->len, &wr, err, sizeof(err));
	if (e == -ENOMEM)
		return refuse(m, conn, MHD_HTTP_SERVICE_UNAVAILABLE, HTTP_SNAP_UNAVAILABLE,
			      "out of memory");
	if (e)
		return refuse(m, conn, MHD_HTTP_BAD_REQUEST, HTTP_SNAP_BAD_REQUEST, err);
	f = open_memstream(&buf, &len);
	if (!f) {
		webhook_req_free(&wr);
		return MHD_NO;
	}
	fputs("{\"taken\": [", f);
	pthread_mutex_lock(&m->snap_mu);
	{
		int r[WEBHOOK_MAX_ALERTS];

		for (int i = 0; i < wr.nr; i++) {
			path[0] = 0;
			r[i] = m->snap_fn ? m->snap_fn(m->snap_ctx, wr.alerts[i].name,
						       wr.alerts[i].json, path, sizeof(path)) :
					    -ESHUTDOWN;
			pthread_mutex_lock(&m->mu);
			m->http_snaps[r[i] == 1 ? 0 : r[i] == -EDQUOT ? 1 : r[i] == 0 ? 2 : 3]++;
			pthread_mutex_unlock(&m->mu);
			if (r[i] != 1)
				continue;
			fputs(first ? "\n  {\"name\": " : ",\n  {\"name\": ", f);
			json_str(f, wr.alerts[i].name, sizeof(wr.alerts[i].name));
			fputs(", \"file\": ", f);
			json_str(f, path, sizeof(path));
			fputc('}', f);
			first = 0;
		}
		pthread_mutex_unlock(&m->snap_mu);
		fputs(first ? "],\n \"not_taken\": [" : "\n ],\n \"not_taken\": [", f);
		first = 1;
		for (int i = 0; i < wr.nr; i++) {
			const char *why = r[i] == 0	     ? "coalesced" :
					  r[i] == -EDQUOT    ? "budget" :
					  r[i] == -ESHUTDOWN ? "stopping" :
					  r[i] == -EAGAIN    ? "not recording yet" :
							       strerror(-r[i]);

			if (r[i] == 1)
				continue;
			fputs(first ? "\n  {\"name\": " : ",\n  {\"name\": ", f);
			json_str(f, wr.alerts[i].name, sizeof(wr.alerts[i].name));
			fputs(", \"reason\": ", f);
			json_str(f, why, 256);
			fputc('}', f);
			first = 0;
		}
	}
	if (wr.over) {
		fprintf(f,
			"%s  {\"alerts\": %d, \"reason\": \"limit: at most %d snapshots a request\"}",
			first ? "\n" : ",\n", wr.over, WEBHOOK_MAX_ALERTS);
		first = 0;
	}
	fprintf(f, "%s],\n \"resolved_ignored\": %d}\n", first ? "" : "\n ", wr.resolved);
	webhook_req_free(&wr);
	if (fclose(f))
		return MHD_NO;
	pthread_mutex_lock(&m->mu);
	m->http_req[HTTP_SNAP_OK]++;
	pthread_mutex_unlock(&m->mu);
	return reply(conn, MHD_HTTP_OK, "application/json", buf, len);
}

static enum MHD_Result on_post(struct metrics *m, struct MHD_Connection *conn, const char *upload,
			       size_t *upload_len, void **con_cls)
{
	struct post_body *pb = *con_cls;

	if (!pb) {
		/* Headers only: every refusal that needs no body is made now, unread. */
		const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							     MHD_HTTP_HEADER_CONTENT_LENGTH);

		if (!webhook_auth_ok(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
								 MHD_HTTP_HEADER_AUTHORIZATION),
				     m->token))
			return refuse(
				m, conn, MHD_HTTP_UNAUTHORIZED, HTTP_SNAP_UNAUTHORIZED,
				"POST /snapshot needs \"Authorization: Bearer TOKEN\" with the "
				"token of --http-token-file");
		if (cl && strtoull(cl, NULL, 10) > WEBHOOK_MAX_BODY)
			return refuse(m, conn, MHD_HTTP_CONTENT_TOO_LARGE, HTTP_SNAP_TOO_LARGE,
				      "body over 64 KiB");
		if (!rate_ok(m))
			return refuse(m, conn, MHD_HTTP_TOO_MANY_REQUESTS, HTTP_SNAP_RATE_LIMITED,
				      "more than 30 requests a minute: try again later");
		pb = calloc(1, sizeof(*pb));
		if (!pb)
			return MHD_NO;
		*con_cls = pb;
		/* Snapshots take a while to write: this connection, now trusted, may wait. */
		MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, 60u);
		return MHD_YES;
	}
	if (*upload_len) {
		size_t n = *upload_len;

		*upload_len = 0;
		if (pb->too_big || pb->len + n > WEBHOOK_MAX_BODY) {
			pb->too_big = 1; /* read on, keep nothing: then 413 */
			return MHD_YES;
		}
		{
			char *nb = realloc(pb->buf, pb->len + n + 1);

			if (!nb)
				return MHD_NO;
			pb->buf = nb;
		}
		memcpy(pb->buf + pb->len, upload, n);
		pb->len += n;
		pb->buf[pb->len] = 0;
		return MHD_YES;
	}
	if (pb->too_big)
		return refuse(m, conn, MHD_HTTP_CONTENT_TOO_LARGE, HTTP_SNAP_TOO_LARGE,
			      "body over 64 KiB");
	return take_snapshots(m, conn, pb);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_len, void **con_cls)
{
	struct metrics *m = cls;
	char *buf = NULL;
	size_t len = 0;
	unsigned int code = MHD_HTTP_OK;
	FILE *f;

	(void)version;
	if (m->host_check &&
	    !metrics_host_ok(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host")))
		code = MHD_HTTP_MISDIRECTED_REQUEST;
	else if (m->token && !strcmp(url, "/snapshot")) {
		if (!strcmp(method, "POST"))
			return on_post(m, conn, upload, upload_len, con_cls);
		code = MHD_HTTP_METHOD_NOT_ALLOWED;
	} else if (!strcmp(url, "/snapshot") || (strcmp(url, "/metrics") && strcmp(url, "/")))
		code = MHD_HTTP_NOT_FOUND; /* /snapshot without a token: no endpoint */
	else if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		code = MHD_HTTP_METHOD_NOT_ALLOWED;
	f = open_memstream(&buf, &len);
	if (!f)
		return MHD_NO;
	if (code == MHD_HTTP_OK)
		metrics__render(m, f);
	else if (code == MHD_HTTP_MISDIRECTED_REQUEST)
		fprintf(f, "trigrec's metrics on a loopback address answer only Host: localhost, "
			   "127.0.0.1 or [::1] (a defence against DNS rebinding)\n");
	else if (m->token)
		fprintf(f, "trigrec serves GET /metrics and POST /snapshot\n");
	else if (!strcmp(url, "/snapshot"))
		fprintf(f, "POST /snapshot is off: start trigrec with --http-token-file FILE\n");
	else
		fprintf(f, "trigrec serves GET /metrics\n");
	fclose(f);
	return reply(conn, code, "text/plain; version=0.0.4; charset=utf-8", buf, len);
}

void metrics__stop_snapshots(struct metrics *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->snap_mu);
	m->snap_fn = NULL;
	pthread_mutex_unlock(&m->snap_mu);
}

int metrics__enable_snapshot(struct metrics *m, const char *token_file, metrics_snapshot_fn fn,
			     void *ctx)
{
	char err[512];
	int e = webhook_token_load(token_file, &m->token, err, sizeof(err));

	if (e) {
		elog("--http-token-file %s", err);
		return e;
	}
	m->snap_fn = fn;
	m->snap_ctx = ctx;
	return 0;
}

int metrics_host_ok(const char *host)
{
	char h[64];
	const char *end;
	size_t n;

	if (!host)
		return 1;
	if (host[0] == '[') {
		end = strchr(host, ']');
		if (!end)
			return 0;
		n = (size_t)(end - host - 1);
		if (n >= sizeof(h))
			return 0;
		memcpy(h, host + 1, n);
		h[n] = 0;
		end++;
	} else {
		end = strchr(host, ':');
		n = end ? (size_t)(end - host) : strlen(host);
		if (n >= sizeof(h))
			return 0;
		memcpy(h, host, n);
		h[n] = 0;
		if (!end)
			end = host + n;
	}
	/* Nothing but :DIGITS after the name. */
	if (*end) {
		if (*end != ':' || !end[1] || strlen(end + 1) > 5)
			return 0;
		for (const char *p = end + 1; *p; p++)
			if (*p < '0' || *p > '9')
				return 0;
	}
	if (host[0] == '[') {
		struct in6_addr a6;

		return inet_pton(AF_INET6, h, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
	}
	if (!strcasecmp(h, "localhost") || !strcasecmp(h, "localhost."))
		return 1;
	{
		struct in_addr a4;

		return inet_pton(AF_INET, h, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127;
	}
}

int metrics__serve(struct metrics *m, const char *addr)
{
	struct sockaddr_storage ss;
	char err[256];
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
	sigset_t all, old;

	/* Snapshots are written while a POST waits: a thread per connection, so scrapes never wait. */
	if (m->token)
		flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			MHD_USE_POLL;

	if (netaddr_parse(addr, &ss, err, sizeof(err))) {
		elog("--metrics %s", err);
		return -EINVAL;
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* Any local user can reach a loopback port, and so can a browser through DNS
	 * rebinding: there the Host header must name loopback. */
	m->host_check = netaddr_is_loopback(&ss);
	/* A scraper needs one connection, answered at once: a few per client
	 * address, a few in all, and an idle one is closed after a few seconds,
	 * so one client cannot hold the endpoint from the others for long. */
	/* Its thread must not take the process's signals (they go to the session's signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	m->httpd = MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, m, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)METRICS_MAX_CONNS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)METRICS_MAX_PER_CLIENT,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_TIMEOUT_S,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!m->httpd) {
		elog("--metrics %s: cannot listen there (%s): is the port in use?", addr,
		     strerror(errno ? errno : EADDRINUSE));
		return -EADDRINUSE;
	}
	return 0;
}

int metrics__write_file(struct metrics *m, const char *path)
{
	char tmp[PATH_MAX];
	FILE *f;
	int fd, err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -errno;
	}
	fchmod(fd, 0644); /* node_exporter reads it as another user */
	err = metrics__render(m, f);
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

void metrics__free(struct metrics *m)
{
	if (!m)
		return;
	if (m->httpd)
		MHD_stop_daemon(m->httpd);
	pthread_mutex_destroy(&m->mu);
	pthread_mutex_destroy(&m->snap_mu);
	if (m->token) {
		explicit_bzero(m->token, strlen(m->token));
		free(m->token);
	}
	names_free(m->names, m->nr_trigs);
	free(m->tc);
	free(m);
}
