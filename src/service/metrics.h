/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Prometheus metrics: an HTTP endpoint (libmicrohttpd, its own thread, never
 * the side-band thread) and a node_exporter textfile. Counters that live in
 * the kernel (firings, suppressions) are read when rendered, so nothing
 * polls while nothing happens: an idle recorder wakes no thread for metrics.
 */
#ifndef TRIGREC_METRICS_H
#define TRIGREC_METRICS_H
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

struct metrics;
struct bpfctl;
struct recorder;
struct trig_def;

/* What a snapshot came to, for the counters and histograms. */
struct metrics_snapshot {
	int trigger;	  /* trigger id; -1 manual, -2 final */
	int ok;		  /* written (1) or failed (0) */
	double freeze_s;  /* recording frozen: freeze to resume */
	double to_file_s; /* trigger to file published */
	uint64_t bytes;	  /* perf.data + sidecar bytes written */
	uint64_t lost;	  /* PERF_RECORD_LOST counts in the window */
};

/*
 * The run's triggers (names copied: a reload frees them) and whether an
 * on_snapshot command is configured.
 */
struct metrics *metrics__new(const struct trig_def *trigs, int nr_trigs, int on_snapshot);
/* The live sources, once the session has them (either may be NULL before). */
void metrics__attach(struct metrics *m, struct bpfctl *b, struct recorder *r);
/*
 * A reload is about to free the BPF object: stop reading it, and keep its
 * final bpfctl__recursion_misses() (read after its programs were detached)
 * so that trigrec_bpf_recursion_misses_total never goes back.
 */
void metrics__retire_bpf(struct metrics *m, uint64_t recursion_misses);
void metrics__observe(struct metrics *m, const struct metrics_snapshot *s);
/* One on_snapshot run ended: result is an enum hook_result (service/hooks.h). */
void metrics__on_snapshot_run(struct metrics *m, int result);
/* Retention (service/retention.h): snapshots removed so far, what the output directory holds. */
void metrics__retention(struct metrics *m, uint64_t removed, uint64_t files, uint64_t bytes);
/*
 * After a reload: the new trigger table and BPF object. Counters follow
 * triggers by name (a renamed trigger starts from 0). 0 or -ENOMEM (then
 * nothing changed).
 */
int metrics__set_triggers(struct metrics *m, const struct trig_def *trigs, int nr_trigs,
			  struct bpfctl *b);
void metrics__reload_failed(struct metrics *m);
/* Prometheus text exposition format 0.0.4. */
int metrics__render(struct metrics *m, FILE *out);
/*
 * Serve GET /metrics on ADDR: "PORT" or ":PORT" (loopback), "HOST:PORT",
 * "[V6]:PORT". 0, or -errno after an elog().
 */
int metrics__serve(struct metrics *m, const char *addr);
/*
 * POST /snapshot (call before metrics__serve()): the token from token_file
 * (service/webhook.h: webhook_token_load()), and fn to take one snapshot,
 * called on the HTTP thread with the request's name and the sidecar's
 * "alert" object; it returns as sideband__snapshot_req() does (1 taken,
 * path set; 0 coalesced; -EDQUOT budget; -EAGAIN not recording yet;
 * -ESHUTDOWN; other -errno). 0, or -errno after an elog().
 */
typedef int (*metrics_snapshot_fn)(void *ctx, const char *name, const char *alert, char *path,
				   size_t pathlen);
int metrics__enable_snapshot(struct metrics *m, const char *token_file, metrics_snapshot_fn fn,
			     void *ctx);
/* No more POST /snapshot snapshots (before the side-band is freed); waits for one in progress. */
void metrics__stop_snapshots(struct metrics *m);
/* POST /snapshot requests by outcome (trigrec_http_snapshot_requests_total{result}). */
enum {
	HTTP_SNAP_OK,
	HTTP_SNAP_UNAUTHORIZED,
	HTTP_SNAP_TOO_LARGE,
	HTTP_SNAP_BAD_REQUEST,
	HTTP_SNAP_RATE_LIMITED,
	HTTP_SNAP_UNAVAILABLE,
	HTTP_SNAP_NR
};

/* Rewrite PATH atomically now (temp file + rename in its directory). */
int metrics__write_file(struct metrics *m, const char *path);
void metrics__free(struct metrics *m);

/*
 * On a loopback bind, may a request with this Host header be answered?
 * localhost (any case, a final dot allowed), 127.0.0.0/8 or [::1], each with
 * an optional :PORT; NULL (HTTP/1.0 without Host) too. Any other name is a
 * browser sent to us by DNS rebinding: 421 Misdirected Request.
 */
int metrics_host_ok(const char *host);

/*
 * The endpoint's limits: connections in all, from one client address, and
 * seconds a connection may sit idle (a scrape takes milliseconds).
 */
#define METRICS_MAX_CONNS 8
#define METRICS_MAX_PER_CLIENT 4
#define METRICS_TIMEOUT_S 3

#endif
