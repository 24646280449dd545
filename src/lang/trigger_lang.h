/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The trigger language: one grammar for `--trigger` and trigger scripts.
 * lang/lexer.c's tokens -> AST (trigger_parse.c) -> trigrec_trigger_cfg
 * tables (trigger_compile.c) that bpf/trigrec.bpf.c evaluates. Errors carry
 * line:col and print with a caret.
 * Grammar and semantics: docs/triggers.md.
 */
#ifndef TRIGREC_TRIGGER_LANG_H
#define TRIGREC_TRIGGER_LANG_H
#include <stddef.h>
#include <stdint.h>
#include "trigrec_abi.h"
#include "lang/lexer.h" /* struct tl_pos, struct tl_error */

/*
 * Limits that keep hostile or broken input cheap: each is an error naming
 * it, found before anything large is built.
 */
#define TL_MAX_TEXT 65536			 /* bytes of one trigger's text */
#define TL_MAX_NODES 1024			 /* comparisons, &&, || and ! in one trigger */
#define TL_MAX_DEPTH 64				 /* nesting of ! and parentheses */
#define TL_MAX_POST_NS (3600ULL * 1000000000ULL) /* post: at most 1h, as --post */
#define TL_MAX_LIMIT_PERIOD_NS (8760ULL * 3600 * 1000000000ULL) /* limit N/PERIOD: a year */
/*
 * Without `limit`, a trigger may start 10 snapshots at once and then one a
 * second: `limit 10/10s`. `limit none` removes it.
 */
#define TL_DEFAULT_LIMIT 10
#define TL_DEFAULT_LIMIT_PERIOD_NS (10ULL * 1000000000ULL)

/*
 * Learned thresholds (`latency ... > p99.9`): a key fires only after this
 * many spans (`after N samples`), and its counts halve every half-life.
 */
#define TL_DEFAULT_LEARN_AFTER 1000u
#define TL_LEARN_HALFLIFE_NS (60ULL * 1000000000ULL)

/*
 * Rate baselines (`rate EVENT > Nx baseline [per T] [after N windows]`): the
 * window when `per` is not given, the warm-up when `after` is not, and the
 * largest multiplier (in 1/100: 100000 = 1000x).
 */
#define TL_DEFAULT_BASELINE_WINDOW_NS 1000000000ULL
#define TL_DEFAULT_BASELINE_AFTER 10u
#define TL_MAX_BASELINE_MULT 100000u

/*
 * A cgroup path condition: `cgroup == "/system.slice/nginx.service"` (or
 * !=), `cgroup ~ "*kubepods*"` (or !~). The compiler only checks its form;
 * engine/cgsel.h resolves it to cgroup ids against this host's cgroup2
 * tree at start and on reload, and its clause (TRIGREC_SRC_CGSET) holds
 * its index in trig_def.cg[] as offset until bpfctl numbers the run's conditions.
 */
#define TL_MAX_CG_PER_TRIG 4 /* different cgroup path conditions in one trigger */
#define TL_CG_PATH_MAX 256   /* bytes of a cgroup path or pattern, NUL included */
struct trig_cgcond {
	char lit[TL_CG_PATH_MAX];  /* the path, or the glob's literal part (no '*') */
	char text[TL_CG_PATH_MAX]; /* as written, for messages */
	int form;		   /* TRIGREC_OP_STR_EQ (==, !=) or TRIGREC_OP_GLOB_* (~, !~) */
	struct tl_pos pos;	   /* of the quoted string */
};

/* One trigger, compiled, as the recorder runs it. */
struct trig_def {
	char name[64];	/* file-name safe: [A-Za-z0-9_.-] */
	char text[512]; /* as the user wrote it */
	enum trigrec_trigger_kind kind;
	/* Tracepoint of each side as "sys:name" (ROLE_START is empty unless LATENCY). */
	char event[2][200];
	int has_post;  /* post given in the trigger (else the CLI's --post applies) */
	int has_limit; /* `limit` given (N/PERIOD or none); else cfg.limit is the default */
	int manual;    /* `manual`: no kernel part (kind 0); taken by SIGUSR2 or
				    `trigrec control SOCK snapshot NAME` */
	struct trigrec_trigger_cfg cfg;
	/* Human-readable parts for reports: "tid", "dev,sector". */
	char key_desc[2][96];
	struct trig_cgcond cg[TL_MAX_CG_PER_TRIG];
	int nr_cg;
	/* EVENT with a `> N` / `>= N` comparison (cfg.nm_clause1): "ret > 1000000". */
	char nm_desc[96];
};

struct trig_ast; /* opaque */

/*
 * Parse one trigger. `text` may span lines (scripts); positions are reported
 * relative to (first_line, first_col) so a script can point into its file.
 * NULL with *err filled on a syntax error, or when the text breaks a limit
 * above or is not UTF-8. `text` is a C string: a NUL ends it, so a reader of
 * files must refuse NUL bytes itself (it knows the length; we do not).
 */
struct trig_ast *trig_parse(const char *text, int first_line, int first_col, struct tl_error *err);
void trig_ast_free(struct trig_ast *a);

/*
 * Where the compiler looks events up. The language layer only reads: its
 * own lookups read tracefs (or a test's formats) and create nothing. A
 * dynamic probe (kprobe:, kretprobe:, uprobe:, uretprobe:, usdt:) has no
 * tracepoint until someone creates its event, which writes
 * kprobe_events/uprobe_events; that is the caller's step, taken explicitly
 * through resolve_probe (script/events.c gives the one trigrec uses).
 *
 * glob: "sys:name" or "sys/name" (globs) -> count (0 = none) with *out
 *	malloc'ed, or -errno.
 * format: one tracepoint's format, or NULL with errno.
 * suggest: the closest existing name to a mistyped one ("" = none).
 * unusable: why the lookup cannot answer at all (tracefs not mounted), or
 *	NULL; may itself be NULL.
 * resolve_probe: a probe name -> its events, as glob; on failure, <= 0 with
 *	*why saying what to do. NULL: a probe name is an error that says the
 *	caller must resolve it.
 * probes_as_tracepoints: look a probe name up as SYS:NAME like any other
 *	(formats from a recording: no kernel to create probes on).
 */
struct tp_name;
struct tp_format;
struct trig_events {
	int (*glob)(void *ctx, const char *pattern, struct tp_name **out);
	struct tp_format *(*format)(void *ctx, const char *sys, const char *name);
	void (*suggest)(void *ctx, const char *bad, char *out, size_t len);
	const char *(*unusable)(void *ctx);
	int (*resolve_probe)(void *ctx, const char *name, struct tp_name **out, const char **why);
	int probes_as_tracepoints;
	void *ctx;
};

/*
 * A recording's formats: the events the recorder made for probe name probe
 * (kprobe:FUNC, uretprobe:PATH:SYM, usdt:PATH:PROV:NAME...), as a glob
 * "trigrec_*:NAME" in out, named as capture/probes.c names them. 0, or
 * -EINVAL with why.
 */
int trig_probe_event_name(const char *probe, char *out, size_t len, char *why, size_t whylen);

/* The error for a probe whose events (pattern) a recording lacks; a static buffer. */
const char *trig_probe_unrecorded(const char *probe, const char *pattern);

/*
 * The lookup trig_compile() uses: tracefs, read only, no resolve_probe; or
 * the formats of trig_set_formats() while they are set.
 */
const struct trig_events *trig_events_default(void);

/*
 * Tracepoints from a table of formats (matched by sys and name, globs with
 * fnmatch), no resolve_probe: fills *ev with tab as its ctx. tab and the
 * formats must outlive *ev.
 */
struct trig_formats {
	const struct tp_format *const *fmts;
	int n;
};
void trig_events_formats(struct trig_events *ev, const struct trig_formats *tab);

/*
 * Resolve events and fields with ev's lookups (NULL: trig_events_default())
 * and fill *out. 0, or -EINVAL with *err filled (unknown event with
 * suggestions, unknown field listing the valid ones, type mismatch, limit
 * exceeded naming the limit, a probe with no resolve_probe).
 */
int trig_compile_with(const struct trig_ast *a, const char *text, const struct trig_events *ev,
		      struct trig_def *out, struct tl_error *err);
int trig_compile(const struct trig_ast *a, const char *text, struct trig_def *out,
		 struct tl_error *err);

/*
 * Tests and `trigrec test`: make the default lookup these formats (as
 * trig_events_formats(), with probes_as_tracepoints) instead of tracefs, for
 * the callers that compile through layers which take no trig_events. The
 * array and the formats must stay valid until trig_set_formats(NULL, 0)
 * restores tracefs. Not thread-safe.
 */
void trig_set_formats(const struct tp_format *const *fmts, int n);

/* 1 if the trigger text gave `name NAME` (and where, in *pos). */
int trig_ast_name_pos(const struct trig_ast *a, struct tl_pos *pos);

/*
 * trig_events_default()'s lookups, for front ends that check other events
 * the same way: glob ("sys:name", "sys/name"; count, 0 = none, or -errno),
 * one format (NULL with errno), the closest existing name to a mistyped one.
 * They read only: a probe name is not resolved (see struct trig_events).
 */
int trig_event_glob(const char *pattern, struct tp_name **out);
struct tp_format *trig_event_format(const char *sys, const char *name);
void trig_event_suggest(const char *bad, char *out, size_t len);

/*
 * How a trigger can use a tracepoint field or a synthetic field, as
 * trig_compile() decides it (for `trigrec list -v`; a unit test holds the two
 * together): the class, the operators it accepts, whether it can be a
 * latency/rate key, and what to do when it cannot be compared as wished.
 */
enum tl_field_class { TL_FIELD_STRING, TL_FIELD_INTEGER, TL_FIELD_POINTER, TL_FIELD_NONE };
struct tl_field_use {
	enum tl_field_class cls;
	const char *cls_name; /* "string", "integer", "pointer", "array" */
	const char *ops;      /* "== != ~", "== != < <= > >= &", or "none" */
	int is_signed;	      /* compared as signed (the declared type, not only signed:) */
	int key;	      /* accepted in `by KEY` */
	const char *note;     /* "" or advice: what it holds, what to use instead */
};
struct tp_field;
void tl_field_use(const struct tp_field *f, struct tl_field_use *out);

/* The synthetic fields every trigger accepts, i = 0 .. n-1; n is returned for any i. */
struct tl_synth_field {
	const char *name; /* "comm"; written upper case (COMM) where an event has its own */
	const char *type; /* "char[16]", "u32", "u64" */
	unsigned int size;
	const char *desc;
	struct tl_field_use use;
};
int tl_synth_field(int i, struct tl_synth_field *out);

/* Both steps (trig_from_text: with the default lookup). */
int trig_from_text_with(const char *text, const struct trig_events *ev, struct trig_def *out,
			struct tl_error *err);
int trig_from_text(const char *text, struct trig_def *out, struct tl_error *err);

/*
 * "origin:line:col: message" followed by the source line and a caret under
 * the column. `src` is the whole text the positions refer to.
 */
void tl_error_format(const struct tl_error *e, const char *origin, const char *src, char *buf,
		     size_t len);

#endif
