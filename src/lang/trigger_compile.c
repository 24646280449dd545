// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The trigger language's compiler: the AST (lang/trigger_int.h) against
 * the tracepoints' formats -> the trigrec_trigger_cfg tables
 * bpf/trigrec.bpf.c evaluates (filters as decision lists, keys, options).
 *
 * Every limit is checked here with a message that names it and what to do.
 * It only reads: events come from a struct trig_events, and a dynamic
 * probe's only from the caller's resolve_probe, since creating one writes
 * kprobe_events/uprobe_events.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/probe_spec.h"
#include "capture/tracefs.h"
#include "lang/trigger_int.h"
#include "lang/trigger_lang.h"
#include "util/util.h"

/* ------------------------------------------------------------------ */
/* Event lookups: tracefs (read only), or a table of formats            */

static int split_event(const char *pattern, char *sys, size_t syslen, char *name, size_t namelen)
{
	const char *sep = strpbrk(pattern, ":/");

	if (!sep || sep == pattern || !sep[1] || (size_t)(sep - pattern) >= syslen ||
	    strlen(sep + 1) >= namelen)
		return -EINVAL;
	memcpy(sys, pattern, (size_t)(sep - pattern));
	sys[sep - pattern] = '\0';
	strcpy(name, sep + 1);
	return 0;
}

static int fmts_glob(void *ctx, const char *pattern, struct tp_name **out)
{
	const struct trig_formats *tab = ctx;
	char sys[64], name[128];
	int n = 0;

	*out = NULL;
	if (split_event(pattern, sys, sizeof(sys), name, sizeof(name)))
		return -EINVAL;
	*out = calloc((size_t)tab->n + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (int i = 0; i < tab->n; i++) {
		const struct tp_format *f = tab->fmts[i];

		if (!fnmatch(sys, f->sys, 0) && !fnmatch(name, f->name, 0)) {
			snprintf((*out)[n].sys, sizeof((*out)[n].sys), "%s", f->sys);
			snprintf((*out)[n].name, sizeof((*out)[n].name), "%s", f->name);
			n++;
		}
	}
	if (!n) {
		free(*out);
		*out = NULL;
	}
	return n;
}

static struct tp_format *fmts_format(void *ctx, const char *sys, const char *name)
{
	const struct trig_formats *tab = ctx;

	for (int i = 0; i < tab->n; i++) {
		const struct tp_format *f = tab->fmts[i];

		if (!strcmp(f->sys, sys) && !strcmp(f->name, name))
			return tp_format__parse(f->sys, f->name, f->text, f->text_len);
	}
	errno = ENOENT;
	return NULL;
}

static void fmts_suggest(void *ctx, const char *bad, char *out, size_t len)
{
	const struct trig_formats *tab = ctx;
	int best = 4;

	out[0] = '\0';
	for (int i = 0; i < tab->n; i++) {
		char full[200];
		int d;

		snprintf(full, sizeof(full), "%s:%s", tab->fmts[i]->sys, tab->fmts[i]->name);
		d = edit_distance(bad, full);
		if (d < best) {
			best = d;
			snprintf(out, len, "%s", full);
		}
	}
}

void trig_events_formats(struct trig_events *ev, const struct trig_formats *tab)
{
	memset(ev, 0, sizeof(*ev));
	ev->glob = fmts_glob;
	ev->format = fmts_format;
	ev->suggest = fmts_suggest;
	ev->ctx = (void *)tab;
}

static int tracefs_glob_ev(void *ctx, const char *pattern, struct tp_name **out)
{
	(void)ctx;
	return tracefs_glob(pattern, out);
}

static struct tp_format *tracefs_format_ev(void *ctx, const char *sys, const char *name)
{
	(void)ctx;
	return tp_format__load(sys, name);
}

static void tracefs_suggest_ev(void *ctx, const char *bad, char *out, size_t len)
{
	(void)ctx;
	tracefs_suggest(bad, out, len, 3);
}

static const char *tracefs_unusable_ev(void *ctx)
{
	(void)ctx;
	return tracefs_root() ? NULL : tracefs_unusable();
}

static const struct trig_events tracefs_events = {
	.glob = tracefs_glob_ev,
	.format = tracefs_format_ev,
	.suggest = tracefs_suggest_ev,
	.unusable = tracefs_unusable_ev,
};

/* trig_set_formats(): the default while a test's or a recording's formats are set. */
static struct trig_formats set_fmts;
static struct trig_events set_events;

void trig_set_formats(const struct tp_format *const *fmts, int n)
{
	set_fmts.fmts = n > 0 ? fmts : NULL;
	set_fmts.n = n > 0 ? n : 0;
	trig_events_formats(&set_events, &set_fmts);
	set_events.probes_as_tracepoints = 1;
}

const struct trig_events *trig_events_default(void)
{
	return set_fmts.fmts ? &set_events : &tracefs_events;
}

/* ------------------------------------------------------------------ */
/* Compiler                                                             */

static int has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static const char *const pseudo_names[] = { "comm", "pid", "tid", "cpu", "cgroup" };
static const enum trigrec_src pseudo_srcs[] = {
	TRIGREC_SRC_COMM, TRIGREC_SRC_PID, TRIGREC_SRC_TID, TRIGREC_SRC_CPU, TRIGREC_SRC_CGROUP,
};

/* 1 + index if name is a pseudo-field in lower case, -(1 + index) in upper case, else 0. */
static int pseudo_index(const char *name)
{
	for (int i = 0; i < 5; i++) {
		if (!strcmp(name, pseudo_names[i]))
			return i + 1;
		if (!strcasecmp(name, pseudo_names[i])) {
			int upper = 1;

			for (const char *p = name; *p; p++)
				upper &= !islower((unsigned char)*p);
			if (upper)
				return -(i + 1);
		}
	}
	return 0;
}

/* One side's tracepoint, resolved. */
struct side_ctx {
	char pattern[200]; /* as written, sys/name normalized to sys:name */
	struct tl_pos pos;
	struct tp_name *matches;
	int nmatch;
	struct tp_format *fmt; /* when nmatch == 1 */
	int uses_fields;       /* a filter or key named a field of the event */
	const struct trig_events *ev;
};

/* A value a clause or key part reads. */
struct src_ref {
	enum trigrec_src src;
	uint8_t size;
	uint8_t is_signed;
	uint16_t offset;
	int is_string;
	const struct tp_field *field; /* NULL for pseudo-fields */
};

/* The type text names a signed integer ("int", "long", "pid_t"...). */
static int type_is_signed(const char *type)
{
	static const char *const signed_types[] = {
		"int",
		"long",
		"short",
		"long long",
		"long int",
		"short int",
		"long long int",
		"signed",
		"signed int",
		"signed long",
		"signed char",
		"signed short",
		"s8",
		"s16",
		"s32",
		"s64",
		"__s8",
		"__s16",
		"__s32",
		"__s64",
		"int8_t",
		"int16_t",
		"int32_t",
		"int64_t",
		"pid_t",
		"ssize_t",
		"loff_t",
		"off_t",
		"time_t",
		"clockid_t",
		"key_serial_t",
		"timer_t",
		"mqd_t",
		"__kernel_old_time_t",
		"ktime_t",
		"rwf_t",
	};
	const char *p = type;

	for (;;) {
		if (!strncmp(p, "const ", 6))
			p += 6;
		else if (!strncmp(p, "volatile ", 9))
			p += 9;
		else
			break;
	}
	for (size_t i = 0; i < sizeof(signed_types) / sizeof(signed_types[0]); i++)
		if (!strcmp(p, signed_types[i]))
			return 1;
	return 0;
}

static int field_ref(const struct side_ctx *sc, const struct tp_field *f, const char *name,
		     struct tl_pos pos, struct src_ref *r, struct tl_error *err)
{
	memset(r, 0, sizeof(*r));
	r->field = f;
	if (f->offset > 0xffff) {
		tl_set_err(err, pos,
			   "field '%s' of %s is at offset %u, beyond the 65535 a filter "
			   "can address",
			   name, sc->pattern, f->offset);
		return -EINVAL;
	}
	r->offset = (uint16_t)f->offset;
	switch (f->kind) {
	case TP_FIELD_INT:
	case TP_FIELD_PTR:
		if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
			goto array;
		r->src = TRIGREC_SRC_FIELD;
		r->size = (uint8_t)f->size;
		/*
		 * Syscall arguments are stored as unsigned long but declared
		 * int/long: follow the declared type so "dfd == -100" works.
		 */
		r->is_signed = f->kind == TP_FIELD_INT && (f->is_signed || type_is_signed(f->type));
		return 0;
	case TP_FIELD_CHARARRAY:
		r->src = TRIGREC_SRC_CHARS;
		r->size = f->size > 255 ? 255 : (uint8_t)f->size;
		r->is_string = 1;
		return 0;
	case TP_FIELD_DATALOC:
		r->src = TRIGREC_SRC_DATALOC;
		r->size = 4;
		r->is_string = 1;
		return 0;
	case TP_FIELD_ARRAY:
	default: break;
	}
array:
	tl_set_err(err, pos,
		   "cannot compare array field %s (%s) of %s: only integers, char arrays "
		   "and strings can be compared",
		   name, f->type, sc->pattern);
	return -EINVAL;
}

/* A pointer to char (one '*'): str() can read the text behind it. */
static int is_char_ptr(const struct tp_field *f)
{
	const char *star = strchr(f->type, '*');

	return f->kind == TP_FIELD_PTR && (f->size == 4 || f->size == 8) && star &&
	       !strchr(star + 1, '*') && strstr(f->type, "char") && strstr(f->type, "char") < star;
}

static void pseudo_ref(int idx, struct src_ref *r);

#define INT_OPS "== != < <= > >= &"
#define STR_OPS "== != ~"

void tl_field_use(const struct tp_field *f, struct tl_field_use *u)
{
	memset(u, 0, sizeof(*u));
	u->note = "";
	switch (f->kind) {
	case TP_FIELD_INT:
	case TP_FIELD_PTR:
		if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
			break;
		u->ops = INT_OPS;
		u->key = 1;
		if (f->kind == TP_FIELD_PTR) {
			u->cls = TL_FIELD_POINTER;
			u->cls_name = "pointer";
			u->note =
				is_char_ptr(f) ?
					"the address (== 0 tests NULL); str(FIELD) compares the text it "
					"points to with == != ~ (user memory for syscalls:*, kernel "
					"memory otherwise), and by str(FIELD) keys by that text" :
					"the address only: what it points to is not in the record "
					"(== 0 tests NULL)";
			return;
		}
		u->cls = TL_FIELD_INTEGER;
		u->cls_name = "integer";
		u->is_signed = f->is_signed || type_is_signed(f->type);
		if (u->is_signed && !f->is_signed)
			u->note =
				"compared as signed: declared so, though the format says signed:0";
		return;
	case TP_FIELD_CHARARRAY:
	case TP_FIELD_DATALOC:
		u->cls = TL_FIELD_STRING;
		u->cls_name = "string";
		u->ops = STR_OPS;
		u->note = f->kind == TP_FIELD_CHARARRAY ?
				  "~ globs: \"abc\", \"abc*\", \"*abc\", \"*abc*\"; "
				  "not a key" :
				  "variable length (__data_loc); ~ globs as for char[N]; not a key";
		return;
	default: break;
	}
	u->cls = TL_FIELD_NONE;
	u->cls_name = "array";
	u->ops = "none";
	u->note = "arrays and odd-sized values cannot be compared: select on another field, "
		  "comm or pid";
}

int tl_synth_field(int i, struct tl_synth_field *out)
{
	static const struct {
		const char *type, *desc;
	} d[] = {
		{ "char[16]", "the current task's name (/proc/PID/comm)" },
		{ "u32", "the current task's process id (tgid), as ps shows it" },
		{ "u32", "the current task's thread id" },
		{ "u32", "the CPU the event happened on" },
		{ "u64", "the current task's cgroup v2 id (the inode of its cgroup directory); "
			 "== != ~ !~ with a quoted path test its path (cgroup == \"/a/b\")" },
	};
	int n = (int)(sizeof(pseudo_names) / sizeof(pseudo_names[0]));
	struct src_ref r;

	if (i < 0 || i >= n)
		return n;
	pseudo_ref(i, &r);
	memset(out, 0, sizeof(*out));
	out->name = pseudo_names[i];
	out->type = d[i].type;
	out->size = r.size;
	out->desc = d[i].desc;
	out->use.note = "";
	if (r.is_string) {
		out->use.cls = TL_FIELD_STRING;
		out->use.cls_name = "string";
		out->use.ops = STR_OPS;
	} else {
		out->use.cls = TL_FIELD_INTEGER;
		out->use.cls_name = "integer";
		out->use.ops = INT_OPS;
		out->use.key = 1;
	}
	return n;
}

static void pseudo_ref(int idx, struct src_ref *r)
{
	memset(r, 0, sizeof(*r));
	r->src = pseudo_srcs[idx];
	switch (r->src) {
	case TRIGREC_SRC_COMM:
		r->size = TRIGREC_COMM_LEN;
		r->is_string = 1;
		break;
	case TRIGREC_SRC_CGROUP: r->size = 8; break;
	default: r->size = 4; break;
	}
}

/* "unknown field" with the closest name and the list of valid ones. */
static void unknown_field(const struct side_ctx *sc, const char *name, struct tl_pos pos,
			  const char *ctx_note, struct tl_error *err)
{
	const struct tp_format *f = sc->fmt;
	char list[300] = "", sugg[100] = "";
	size_t used = 0;
	/* About one typo per three characters counts as close. */
	int best = 1 + ((int)strlen(name) / 3 > 1 ? (int)strlen(name) / 3 : 1);

	for (int i = 0; i < f->nr_fields; i++) {
		const struct tp_field *fl = &f->fields[i];
		int d = edit_distance(name, fl->name), w;

		if (d < best) {
			best = d;
			snprintf(sugg, sizeof(sugg), " (did you mean '%s'?)", fl->name);
		}
		if (fl->is_common)
			continue;
		w = snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "", fl->name);
		if (w < 0 || (size_t)w >= sizeof(list) - used) {
			list[used] = '\0';
			if (used + 5 < sizeof(list))
				strcat(list, ", ...");
			break;
		}
		used += (size_t)w;
	}
	for (int i = 0; i < 5; i++) {
		int d = edit_distance(name, pseudo_names[i]);

		if (d < best) {
			best = d;
			snprintf(sugg, sizeof(sugg), " (did you mean '%s'?)", pseudo_names[i]);
		}
	}
	tl_set_err(err, pos,
		   "unknown field '%s' for %s:%s%s%s; its fields are: %s%s"
		   "common_*; or use comm, pid, tid, cpu, cgroup",
		   name, f->sys, f->name, sugg, ctx_note, list, used ? ", " : "");
}

/* Resolve a name in a filter or key on one side. */
static int resolve(struct side_ctx *sc, const char *name, struct tl_pos pos, const char *ctx_note,
		   struct src_ref *r, struct tl_error *err)
{
	int pi = pseudo_index(name);

	if (pi < 0) {
		pseudo_ref(-pi - 1, r);
		return 0;
	}
	if (sc->fmt) {
		const struct tp_field *f = tp_format__field(sc->fmt, name);

		if (f) {
			sc->uses_fields = 1;
			return field_ref(sc, f, name, pos, r, err);
		}
		if (pi > 0) {
			pseudo_ref(pi - 1, r);
			return 0;
		}
		unknown_field(sc, name, pos, ctx_note, err);
		return -EINVAL;
	}
	/* A glob matching several tracepoints: only pseudo-fields mean the same on all. */
	if (pi > 0) {
		for (int i = 0; i < sc->nmatch; i++) {
			struct tp_format *f = sc->ev->format(sc->ev->ctx, sc->matches[i].sys,
							     sc->matches[i].name);
			int has = f && tp_format__field(f, name);

			tp_format__free(f);
			if (has) {
				char up[8];

				for (size_t k = 0; k <= strlen(name) && k < sizeof(up); k++)
					up[k] = (char)toupper((unsigned char)name[k]);
				up[sizeof(up) - 1] = '\0';
				tl_set_err(
					err, pos,
					"'%s' is ambiguous: %s matches %d tracepoints and "
					"%s:%s has a field '%s'; write %s for the current task's "
					"value, or name one tracepoint to use its field",
					name, sc->pattern, sc->nmatch, sc->matches[i].sys,
					sc->matches[i].name, name, up);
				return -EINVAL;
			}
		}
		pseudo_ref(pi - 1, r);
		return 0;
	}
	tl_set_err(err, pos,
		   "field '%s' needs a single tracepoint, but %s matches %d (%s:%s, %s:%s%s); "
		   "name one tracepoint, or use only comm, pid, tid, cpu, cgroup",
		   name, sc->pattern, sc->nmatch, sc->matches[0].sys, sc->matches[0].name,
		   sc->matches[1].sys, sc->matches[1].name, sc->nmatch > 2 ? ", ..." : "");
	return -EINVAL;
}

/*
 * A dynamic probe's event(s), from the caller's resolve_probe: the compiler
 * never creates one itself (it would write kprobe_events/uprobe_events).
 */
static int probe_open(struct side_ctx *sc, const struct tl_side *s, struct tl_error *err)
{
	struct tp_name *tps = NULL;
	const char *why = NULL;
	int n;

	if (!sc->ev->resolve_probe) {
		tl_set_err(err, sc->pos,
			   "%s is a dynamic probe, and nothing here creates its event: the "
			   "caller must resolve probes (trig_compile_with() with a resolve_probe)",
			   s->event);
		return -EINVAL;
	}
	n = sc->ev->resolve_probe(sc->ev->ctx, sc->pattern, &tps, &why);
	if (n <= 0) {
		tl_set_err(err, sc->pos, "%s", n ? (why ? why : strerror(-n)) : "no such probe");
		free(tps);
		return -EINVAL;
	}
	if (n == 1) {
		/* Looked up below as the tracepoint it now is. */
		snprintf(sc->pattern, sizeof(sc->pattern), "%s:%s", tps[0].sys, tps[0].name);
		free(tps);
		return 1;
	}
	/*
	 * A glob, or USDT with several sites: like a tracepoint glob, and
	 * stored as written (bpfctl resolves it to the same events).
	 */
	if (strlen(s->event) >= sizeof(sc->pattern)) {
		tl_set_err(err, sc->pos,
			   "%s matches %d events and is too long for a trigger "
			   "(at most %zu bytes): shorten the path",
			   s->event, n, sizeof(sc->pattern) - 1);
		free(tps);
		return -EINVAL;
	}
	sc->matches = tps;
	sc->nmatch = n;
	return 0;
}

int trig_probe_event_name(const char *probe, char *out, size_t len, char *why, size_t whylen)
{
	struct probe_spec ps;
	char base[sizeof(ps.func) + sizeof(ps.provider) + 24];
	int ret;

	if (probe_spec_parse(probe, &ps, why, whylen))
		return -EINVAL;
	ret = ps.kind == PROBE_KRETPROBE || ps.kind == PROBE_URETPROBE;
	if (ps.kind == PROBE_USDT)
		snprintf(base, sizeof(base), "%s__%s", ps.provider[0] ? ps.provider : "*", ps.func);
	else if (ps.offset)
		snprintf(base, sizeof(base), "%s_%llx", ps.func, (unsigned long long)ps.offset);
	else
		snprintf(base, sizeof(base), "%s%s", ps.func, ret ? "__return" : "");
	for (char *c = base; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_*?[]", *c))
			*c = '_';
	if (isdigit((unsigned char)base[0]))
		base[0] = '_';
	snprintf(out, len, "trigrec_*:%s", base);
	return 0;
}

/*
 * A recording's formats (trigrec test): the probe's events, as
 * trig_probe_event_name() names them, looked up below as any tracepoint.
 * 0, or -EINVAL with the error set when the recording has none.
 */
static int probe_recorded(struct side_ctx *sc, const struct tl_side *s, struct tl_error *err)
{
	struct tp_name *tps = NULL;
	char why[512];
	int n;

	if (trig_probe_event_name(s->event, sc->pattern, sizeof(sc->pattern), why, sizeof(why))) {
		tl_set_err(err, sc->pos, "%s", why);
		return -EINVAL;
	}
	n = sc->ev->glob(sc->ev->ctx, sc->pattern, &tps);
	free(tps);
	if (n > 0)
		return 0;
	tl_set_err(err, sc->pos, "%s", trig_probe_unrecorded(s->event, sc->pattern));
	return -EINVAL;
}

const char *trig_probe_unrecorded(const char *probe, const char *pattern)
{
	static char msg[1024];

	snprintf(msg, sizeof(msg),
		 "%s has no event in this recording (trigrec records it as trigrec_PID:%s): "
		 "record it too (-e %s) and test a snapshot of that run; "
		 "`perf script -F event -i FILE` lists what a file has",
		 probe, strchr(pattern, ':') ? strchr(pattern, ':') + 1 : pattern, probe);
	return msg;
}

static int side_open(struct side_ctx *sc, const struct tl_side *s, const struct trig_events *ev,
		     struct tl_error *err)
{
	char sugg[400], *sep;
	const char *why;

	memset(sc, 0, sizeof(*sc));
	sc->ev = ev;
	sc->pos = s->event_pos;
	snprintf(sc->pattern, sizeof(sc->pattern), "%s", s->event);
	if (probe_kind_of(sc->pattern) && !ev->probes_as_tracepoints) {
		/* kprobe:, uprobe:, usdt:...: its dynamic event(s) stand in for it. */
		int r = probe_open(sc, s, err);

		if (r <= 0)
			return r;
	} else if (probe_kind_of(sc->pattern) && probe_recorded(sc, s, err)) {
		return -EINVAL;
	}
	sep = strpbrk(sc->pattern, ":/");
	if (!sep || sep == sc->pattern || !sep[1]) {
		sugg[0] = '\0';
		if (!has_glob(sc->pattern))
			ev->suggest(ev->ctx, sc->pattern, sugg, sizeof(sugg));
		tl_set_err(err, sc->pos, "'%s' is not a tracepoint: give it as SYS:NAME%s%s%s",
			   sc->pattern,
			   sugg[0] ? " (did you mean " :
				     " (e.g. sched:sched_switch; see "
				     "`trigrec list`)",
			   sugg, sugg[0] ? "?)" : "");
		return -EINVAL;
	}
	*sep = ':';
	if (strchr(sep + 1, ':') || strchr(sep + 1, '/')) {
		tl_set_err(err, sc->pos,
			   "'%s' is not a tracepoint: give it as SYS:NAME with one ':'", s->event);
		return -EINVAL;
	}
	why = ev->unusable ? ev->unusable(ev->ctx) : NULL;
	if (why) {
		tl_set_err(err, sc->pos, "cannot look up %s: %s", sc->pattern, why);
		return -ENODEV;
	}
	sc->nmatch = ev->glob(ev->ctx, sc->pattern, &sc->matches);
	if (sc->nmatch < 0) {
		tl_set_err(err, sc->pos, "cannot look up %s: %s", sc->pattern,
			   strerror(-sc->nmatch));
		sc->nmatch = 0;
		return -EINVAL;
	}
	if (!sc->nmatch) {
		if (has_glob(sc->pattern)) {
			tl_set_err(err, sc->pos, "no tracepoint matches %s (see `trigrec list`)",
				   sc->pattern);
			return -EINVAL;
		}
		ev->suggest(ev->ctx, sc->pattern, sugg, sizeof(sugg));
		if (sugg[0])
			tl_set_err(err, sc->pos, "unknown tracepoint %s (did you mean %s?)",
				   sc->pattern, sugg);
		else
			tl_set_err(err, sc->pos,
				   "unknown tracepoint %s (see `trigrec list` for the "
				   "tracepoints of this kernel)",
				   sc->pattern);
		return -EINVAL;
	}
	if (sc->nmatch == 1) {
		sc->fmt = ev->format(ev->ctx, sc->matches[0].sys, sc->matches[0].name);
		if (!sc->fmt) {
			tl_set_err(err, sc->pos, "cannot read the format of %s:%s: %s",
				   sc->matches[0].sys, sc->matches[0].name, strerror(errno));
			return -EINVAL;
		}
	}
	return 0;
}

static void side_close(struct side_ctx *sc)
{
	tp_format__free(sc->fmt);
	free(sc->matches);
	sc->fmt = NULL;
	sc->matches = NULL;
}

/* The name to store: the pattern, or the one tracepoint when fields pinned it. */
static void side_event_name(const struct side_ctx *sc, char *out, size_t len)
{
	if (sc->uses_fields && sc->nmatch == 1)
		snprintf(out, len, "%s:%s", sc->matches[0].sys, sc->matches[0].name);
	else
		snprintf(out, len, "%s", sc->pattern);
}

/* Filter compilation. */
struct fbuild {
	struct side_ctx *sc;
	struct trigrec_filter *f;
	struct trig_def *def; /* cgroup path conditions go to def->cg[] */
	struct trigrec_clause tmp[TRIGREC_MAX_CLAUSES];
	int m;	  /* clauses emitted, in reverse order */
	int nstr; /* str[] slots used */
	/* Pass 1: each comparison's clause, in source order (strings and errors too). */
	const struct tl_node *leaf[TRIGREC_MAX_CLAUSES];
	struct trigrec_clause leaf_c[TRIGREC_MAX_CLAUSES];
	int nleaf;
	const char *note; /* context for errors in the shared latency filter */
	struct tl_error *err;
};

static int count_leaves(const struct tl_node *n)
{
	if (!n)
		return 0;
	if (n->kind == N_CMP)
		return 1;
	return count_leaves(n->l) + count_leaves(n->r);
}

/* The k-th (0-based) comparison, left to right. */
static const struct tl_node *nth_leaf(const struct tl_node *n, int *k)
{
	const struct tl_node *r;

	if (!n)
		return NULL;
	if (n->kind == N_CMP)
		return (*k)-- == 0 ? n : NULL;
	r = nth_leaf(n->l, k);
	return r ? r : nth_leaf(n->r, k);
}

static int add_str(struct fbuild *fb, const char *s, struct tl_pos pos, __u64 *idx)
{
	size_t len = strlen(s);
	int i;

	if (len >= TRIGREC_STR_LEN) {
		tl_set_err(
			fb->err, pos,
			"string \"%.40s%s\" is %zu bytes long; at most %d are supported "
			"(TRIGREC_STR_LEN %d, NUL included): compare a shorter prefix with ~ \"...*\"",
			s, len > 40 ? "..." : "", len, TRIGREC_STR_LEN - 1, TRIGREC_STR_LEN);
		return -EINVAL;
	}
	for (i = 0; i < fb->nstr; i++) {
		if (!strcmp(fb->f->str[i], s)) {
			*idx = (__u64)i;
			return 0;
		}
	}
	if (fb->nstr == TRIGREC_MAX_STRS) {
		tl_set_err(fb->err, pos,
			   "too many different strings in one filter: at most %d are "
			   "supported (TRIGREC_MAX_STRS)",
			   TRIGREC_MAX_STRS);
		return -EINVAL;
	}
	memcpy(fb->f->str[fb->nstr], s, len + 1);
	*idx = (__u64)fb->nstr++;
	return 0;
}

/* ~ pattern into op and its literal part (malloc'ed); only ftrace's four forms. */
static int glob_form(struct fbuild *fb, const struct tl_node *n, char **lit, int *op)
{
	const char *s = n->sval;
	size_t l = strlen(s);
	int lead = l > 0 && s[0] == '*', trail = l > (size_t)lead && s[l - 1] == '*';
	const char *b = s + lead;
	size_t bl = l - (size_t)lead - (size_t)trail;

	for (size_t i = 0; i < bl; i++) {
		if (b[i] == '*' || b[i] == '?' || b[i] == '[') {
			tl_set_err(fb->err, n->val_pos,
				   "unsupported pattern \"%s\": '%c' is not "
				   "supported there; ~ supports \"abc\", \"abc*\", \"*abc\" and "
				   "\"*abc*\" ('*' only at the start and/or end)",
				   s, b[i]);
			return -EINVAL;
		}
	}
	*lit = strndup(b, bl);
	if (!*lit) {
		tl_set_err(fb->err, n->val_pos, "out of memory");
		return -ENOMEM;
	}
	*op = lead && trail ? TRIGREC_OP_GLOB_MIDDLE :
	      lead	    ? TRIGREC_OP_GLOB_SUFFIX :
	      trail	    ? TRIGREC_OP_GLOB_PREFIX :
			      TRIGREC_OP_GLOB_FULL;
	return 0;
}

static const char *src_type_desc(const struct src_ref *r, char *buf, size_t len)
{
	if (r->src == TRIGREC_SRC_USTR || r->src == TRIGREC_SRC_KSTR)
		snprintf(buf, len, "the text behind %s %s, read from %s memory", r->field->type,
			 r->field->name, r->src == TRIGREC_SRC_USTR ? "user" : "kernel");
	else if (r->field && is_char_ptr(r->field))
		snprintf(buf, len,
			 "%s, a pointer: the record holds the address, not the text; "
			 "str(%s) compares the text it points to",
			 r->field->type, r->field->name);
	else if (r->field)
		snprintf(buf, len, "%s", r->field->type);
	else
		snprintf(buf, len, "%s", r->is_string ? "string" : r->size == 8 ? "u64" : "u32");
	return buf;
}

/*
 * str(name): r (resolved) becomes the text behind a char * field. User
 * memory for syscalls:* (their pointer arguments come from the caller) and
 * for types marked __user; kernel memory for every other event.
 */
static int str_ref(const struct side_ctx *sc, const char *name, struct tl_pos pos,
		   struct src_ref *r, struct tl_error *err)
{
	const struct tp_field *f = r->field;

	if (!f) {
		if (r->is_string)
			tl_set_err(
				err, pos,
				"%s is already text: compare it without str(), e.g. %s ~ \"bash*\"",
				name, name);
		else
			tl_set_err(
				err, pos,
				"str(%s): %s is an integer, not a pointer to text; str() reads the "
				"text behind a char * field of the event (see `trigrec list -v %s`)",
				name, name, sc->pattern);
		return -EINVAL;
	}
	if (f->kind == TP_FIELD_CHARARRAY || f->kind == TP_FIELD_DATALOC) {
		tl_set_err(err, pos,
			   "%s (%s) is already text in the record: compare it without str(), "
			   "e.g. %s ~ \"abc*\"",
			   name, f->type, name);
		return -EINVAL;
	}
	if (!is_char_ptr(f)) {
		tl_set_err(
			err, pos,
			"str(%s): %s is %s, not a pointer to text; str() reads the text behind a "
			"char * field (see `trigrec list -v %s:%s`)",
			name, name, f->type, sc->fmt->sys, sc->fmt->name);
		return -EINVAL;
	}
	r->src = !strcmp(sc->fmt->sys, "syscalls") || strstr(f->type, "__user") ? TRIGREC_SRC_USTR :
										  TRIGREC_SRC_KSTR;
	r->is_string = 1;
	r->is_signed = 0;
	return 0;
}

/*
 * cgroup == "/path" (!=), cgroup ~ "glob" (!~): a set of cgroup ids that
 * engine/cgsel.c resolves on the host; here only the form is checked. The
 * clause (TRIGREC_SRC_CGSET == 1, or != 1) tests the current task's cgroup;
 * its offset is the index in def->cg[] until bpfctl makes it the run's bit.
 */
static int cg_clause(struct fbuild *fb, const struct tl_node *n, struct trigrec_clause *c)
{
	struct trig_def *d = fb->def;
	const char *op = n->ntilde ? "!~" : lex_punct_text[n->op];
	char *lit = NULL;
	int form, i, ret = -EINVAL;
	size_t len;

	if (n->op != P_EQ && n->op != P_NE && n->op != P_TILDE) {
		tl_set_err(
			fb->err, n->op_pos,
			"'%s' compares numbers, but \"%s\" is a cgroup path: a path takes ==, !=, "
			"~ or !~ (e.g. %s ~ \"/kubepods.slice/*\"); a number compares the cgroup id",
			op, n->sval, n->field);
		return -EINVAL;
	}
	if (n->vk != V_STR) {
		if (n->vk == V_INT)
			tl_set_err(
				fb->err, n->val_pos,
				"%s %s takes a quoted cgroup path glob, e.g. %s %s \"*kubepods*\"; "
				"compare the cgroup id with == or !=",
				n->field, op, n->field, op);
		else
			tl_set_err(fb->err, n->val_pos,
				   "%s is compared with a number (its cgroup id) or a quoted path: "
				   "quote it, e.g. %s %s \"/%s\"",
				   n->field, n->field, op, n->sval);
		return -EINVAL;
	}
	if (!d) {
		tl_set_err(fb->err, n->val_pos,
			   "a cgroup path works in triggers only; here compare the cgroup id (a "
			   "number), or record one cgroup with --cgroup");
		return -EINVAL;
	}
	if (n->op == P_TILDE) {
		if (glob_form(fb, n, &lit, &form))
			return -EINVAL;
	} else {
		form = TRIGREC_OP_STR_EQ;
		lit = strdup(n->sval);
		if (!lit) {
			tl_set_err(fb->err, n->val_pos, "out of memory");
			return -ENOMEM;
		}
	}
	len = strlen(n->sval);
	if (len >= TL_CG_PATH_MAX) {
		tl_set_err(fb->err, n->val_pos,
			   "cgroup path \"%.40s...\" is %zu bytes long; at most %d are supported "
			   "(TL_CG_PATH_MAX): match a shorter part with ~ \"...*\" or \"*...*\"",
			   n->sval, len, TL_CG_PATH_MAX - 1);
		goto out;
	}
	if ((form == TRIGREC_OP_STR_EQ || form == TRIGREC_OP_GLOB_FULL ||
	     form == TRIGREC_OP_GLOB_PREFIX) &&
	    lit[0] != '/') {
		tl_set_err(
			fb->err, n->val_pos,
			"cgroup paths start with '/' at the cgroup2 root (as in /proc/PID/cgroup): "
			"write \"/%s\"%s",
			n->sval,
			form == TRIGREC_OP_GLOB_PREFIX ? "" : ", or \"*...*\" to match a part");
		goto out;
	}
	if (form == TRIGREC_OP_STR_EQ && strlen(lit) > 1 && lit[strlen(lit) - 1] == '/') {
		tl_set_err(fb->err, n->val_pos,
			   "cgroup path \"%s\" ends in '/': write it without (\"%.*s\")", lit,
			   (int)strlen(lit) - 1, lit);
		goto out;
	}
	for (i = 0; i < d->nr_cg; i++)
		if (d->cg[i].form == form && !strcmp(d->cg[i].lit, lit))
			break;
	if (i == d->nr_cg) {
		if (d->nr_cg == TL_MAX_CG_PER_TRIG) {
			tl_set_err(fb->err, n->val_pos,
				   "too many different cgroup paths in one trigger: at most %d are "
				   "supported (TL_MAX_CG_PER_TRIG); one glob can match several",
				   TL_MAX_CG_PER_TRIG);
			goto out;
		}
		snprintf(d->cg[i].lit, sizeof(d->cg[i].lit), "%s", lit);
		snprintf(d->cg[i].text, sizeof(d->cg[i].text), "%s", n->sval);
		d->cg[i].form = form;
		d->cg[i].pos = n->val_pos;
		d->nr_cg++;
	}
	c->src = TRIGREC_SRC_CGSET;
	c->size = 1;
	c->is_signed = 0;
	c->offset = (uint16_t)i;
	c->op = n->op == P_NE ? TRIGREC_OP_NE : TRIGREC_OP_EQ;
	c->imm = 1;
	ret = 0;
out:
	free(lit);
	return ret;
}

static int leaf_clause(struct fbuild *fb, const struct tl_node *n, struct trigrec_clause *c)
{
	struct src_ref r;
	char ty[320], disp[80];

	if (resolve(fb->sc, n->field, n->field_pos, fb->note, &r, fb->err))
		return -EINVAL;
	if (n->strfn && str_ref(fb->sc, n->field, n->field_pos, &r, fb->err))
		return -EINVAL;
	snprintf(disp, sizeof(disp), n->strfn ? "str(%s)" : "%s", n->field);
	memset(c, 0, sizeof(*c));
	c->src = (uint8_t)r.src;
	c->size = r.size;
	c->is_signed = r.is_signed;
	c->offset = r.offset;

	/* The current task's cgroup against a path: `cgroup == "/a/b"`, `cgroup ~ "*b*"`. */
	if (r.src == TRIGREC_SRC_CGROUP && (n->vk != V_INT || n->op == P_TILDE))
		return cg_clause(fb, n, c);
	if (r.is_string) {
		char *lit = NULL;
		const char *cmp = n->sval;
		int op, ret;

		if (n->op != P_EQ && n->op != P_NE && n->op != P_TILDE) {
			tl_set_err(fb->err, n->op_pos,
				   "'%s' compares numbers, but %s is a string (%s): "
				   "use ==, != or ~ (glob)%s",
				   lex_punct_text[n->op], disp, src_type_desc(&r, ty, sizeof(ty)),
				   n->strfn ? "; without str() the field is the address" : "");
			return -EINVAL;
		}
		if (n->vk == V_INT) {
			tl_set_err(fb->err, n->val_pos,
				   "%s is a string (%s): quote the value, e.g. "
				   "%s %s \"%s%llu\"",
				   disp, src_type_desc(&r, ty, sizeof(ty)), disp,
				   lex_punct_text[n->op], n->neg ? "-" : "",
				   (unsigned long long)n->mag);
			return -EINVAL;
		}
		if (n->op == P_TILDE) {
			if (glob_form(fb, n, &lit, &op))
				return -EINVAL;
			cmp = lit;
		} else {
			op = n->op == P_EQ ? TRIGREC_OP_STR_EQ : TRIGREC_OP_STR_NE;
		}
		/* char[N] holds at most N-1 characters: a longer constant can never match. */
		if ((r.src == TRIGREC_SRC_CHARS || r.src == TRIGREC_SRC_COMM) &&
		    strlen(cmp) >= r.size) {
			tl_set_err(fb->err, n->val_pos,
				   "\"%s\" can never match: %s (%s) holds at most "
				   "%d characters; compare a prefix with %s ~ \"%.*s*\"",
				   cmp, n->field, src_type_desc(&r, ty, sizeof(ty)), r.size - 1,
				   n->field, r.size > 1 ? r.size - 1 : 1, cmp);
			free(lit);
			return -EINVAL;
		}
		c->op = (uint8_t)op;
		ret = add_str(fb, cmp, n->val_pos, &c->imm);
		free(lit);
		return ret;
	}

	/* Integer. A char * compared with text: the user meant str(). */
	if (r.field && is_char_ptr(r.field) && (n->op == P_TILDE || n->vk == V_STR)) {
		tl_set_err(fb->err, n->op == P_TILDE ? n->op_pos : n->val_pos,
			   "%s is a pointer (%s): the record holds the address, not the text; "
			   "write str(%s) %s \"%s\" to compare the text it points to",
			   n->field, r.field->type, n->field, lex_punct_text[n->op],
			   n->vk == V_STR ? n->sval : "...");
		return -EINVAL;
	}
	if (n->op == P_TILDE) {
		tl_set_err(fb->err, n->op_pos,
			   "'~' matches strings, but %s is an integer (%s): use ==, "
			   "!=, <, <=, >, >= or & (bit test)",
			   n->field, src_type_desc(&r, ty, sizeof(ty)));
		return -EINVAL;
	}
	if (n->vk != V_INT) {
		if (n->vk == V_WORD)
			tl_set_err(fb->err, n->val_pos,
				   "%s is an integer (%s): '%s' is not a number "
				   "(use decimal, 0x hex or a negative number)",
				   n->field, src_type_desc(&r, ty, sizeof(ty)), n->sval);
		else
			tl_set_err(fb->err, n->val_pos,
				   "%s is an integer (%s), but \"%s\" is a string: "
				   "compare it with a number",
				   n->field, src_type_desc(&r, ty, sizeof(ty)), n->sval);
		return -EINVAL;
	}
	{
		unsigned bits = r.size * 8u;
		uint64_t umax = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
		uint64_t v;

		if (n->neg) {
			uint64_t lim = 1ULL << (bits - 1); /* magnitude of the most negative */

			if (!r.is_signed) {
				tl_set_err(fb->err, n->val_pos,
					   "%s is unsigned (%s): it cannot be -%llu", n->field,
					   src_type_desc(&r, ty, sizeof(ty)),
					   (unsigned long long)n->mag);
				return -EINVAL;
			}
			if (n->mag > lim) {
				tl_set_err(fb->err, n->val_pos,
					   "-%llu does not fit %s (%s, %u bytes: "
					   "at least -%llu)",
					   (unsigned long long)n->mag, n->field,
					   src_type_desc(&r, ty, sizeof(ty)), r.size,
					   (unsigned long long)lim);
				return -EINVAL;
			}
			v = (uint64_t)0 - n->mag;
		} else {
			/* Signed fields take hex bit patterns up to the unsigned maximum. */
			uint64_t max = r.is_signed && !n->hex ? umax >> 1 : umax;

			if (n->mag > max) {
				tl_set_err(fb->err, n->val_pos,
					   "%llu does not fit %s (%s, %u byte%s: at "
					   "most %llu%s)",
					   (unsigned long long)n->mag, n->field,
					   src_type_desc(&r, ty, sizeof(ty)), r.size,
					   r.size > 1 ? "s" : "", (unsigned long long)max,
					   max < umax ? ", or a 0x bit pattern" : "");
				return -EINVAL;
			}
			v = n->mag;
			/* A bit pattern for a signed field: 0xffffffff is -1 in an int. */
			if (r.is_signed && bits < 64 && (v >> (bits - 1)) & 1)
				v |= ~umax;
		}
		c->imm = v;
	}
	switch (n->op) {
	case P_EQ: c->op = TRIGREC_OP_EQ; break;
	case P_NE: c->op = TRIGREC_OP_NE; break;
	case P_LT: c->op = TRIGREC_OP_LT; break;
	case P_LE: c->op = TRIGREC_OP_LE; break;
	case P_GT: c->op = TRIGREC_OP_GT; break;
	case P_GE: c->op = TRIGREC_OP_GE; break;
	case P_BITAND: c->op = TRIGREC_OP_BITAND; break;
	default: break;
	}
	return 0;
}

/*
 * compile(E, T, F): emits E so that it continues at T when true and F when
 * false; returns E's entry. Clauses are emitted end first (reverse index
 * fb->m), so every jump target already exists and lies after its source
 * once the order is reversed. Targets are reverse indices or ACCEPT/REJECT.
 */
static int emit(struct fbuild *fb, const struct tl_node *n, int t, int f)
{
	int b;

	switch (n->kind) {
	case N_CMP:
		if (fb->m >= TRIGREC_MAX_CLAUSES)
			return -1; /* counted before: cannot happen */
		for (b = 0; b < fb->nleaf && fb->leaf[b] != n; b++)
			;
		if (b == fb->nleaf)
			return -1;
		fb->tmp[fb->m] = fb->leaf_c[b];
		fb->tmp[fb->m].jt = (uint8_t)t;
		fb->tmp[fb->m].jf = (uint8_t)f;
		return fb->m++;
	case N_AND: b = emit(fb, n->r, t, f); return b < 0 ? b : emit(fb, n->l, b, f);
	case N_OR: b = emit(fb, n->r, t, f); return b < 0 ? b : emit(fb, n->l, t, b);
	case N_NOT: return emit(fb, n->l, f, t);
	}
	return -1;
}

/* Pass 1: resolve every comparison left to right. */
static int resolve_leaves(struct fbuild *fb, const struct tl_node *n)
{
	if (!n)
		return 0;
	if (n->kind != N_CMP)
		return resolve_leaves(fb, n->l) || resolve_leaves(fb, n->r) ? -1 : 0;
	if (fb->nleaf >= TRIGREC_MAX_CLAUSES)
		return -1; /* counted before: cannot happen */
	fb->leaf[fb->nleaf] = n;
	if (leaf_clause(fb, n, &fb->leaf_c[fb->nleaf]))
		return -1;
	fb->nleaf++;
	return 0;
}

static uint8_t renumber(int m, uint8_t target)
{
	if (target == TRIGREC_ACCEPT || target == TRIGREC_REJECT)
		return target;
	return (uint8_t)(m - 1 - target);
}

/* The side's filter: own && shared (latency). */
static int compile_filter(struct side_ctx *sc, const struct tl_node *own,
			  const struct tl_node *shared, struct trigrec_filter *out,
			  struct trig_def *def, struct tl_error *err)
{
	struct fbuild fb = { .sc = sc, .f = out, .def = def, .err = err };
	int nl = count_leaves(own) + count_leaves(shared), entry = TRIGREC_ACCEPT;

	memset(out, 0, sizeof(*out));
	if (nl > TRIGREC_MAX_CLAUSES) {
		int k = TRIGREC_MAX_CLAUSES, ko;
		const struct tl_node *x = nth_leaf(own, &k);

		ko = k;
		if (!x)
			x = nth_leaf(shared, &ko);
		tl_set_err(err, x ? x->field_pos : sc->pos,
			   "filter of %s has %d comparisons; at "
			   "most %d are supported (TRIGREC_MAX_CLAUSES): simplify the condition",
			   sc->pattern, nl, TRIGREC_MAX_CLAUSES);
		return -EINVAL;
	}
	fb.note = "";
	if (resolve_leaves(&fb, own))
		return -EINVAL;
	fb.note = " (the condition after the latency threshold applies to both events)";
	if (resolve_leaves(&fb, shared))
		return -EINVAL;
	if (shared) {
		entry = emit(&fb, shared, TRIGREC_ACCEPT, TRIGREC_REJECT);
		if (entry < 0)
			return -EINVAL;
	}
	if (own) {
		entry = emit(&fb, own, entry, TRIGREC_REJECT);
		if (entry < 0)
			return -EINVAL;
	}
	if (fb.m && entry != fb.m - 1) {
		tl_set_err(err, sc->pos, "internal error: filter entry is not the first clause");
		return -EINVAL;
	}
	out->pad = 0;
	out->n = (uint32_t)fb.m;
	for (int i = 0; i < fb.m; i++) {
		struct trigrec_clause c = fb.tmp[fb.m - 1 - i];

		c.jt = renumber(fb.m, c.jt);
		c.jf = renumber(fb.m, c.jf);
		out->c[i] = c;
	}
	return 0;
}

static int compile_key(struct side_ctx *sc, const struct tl_key *k, struct trigrec_keyspec *out,
		       char *desc, size_t desclen, struct tl_error *err)
{
	size_t used = 0;

	memset(out, 0, sizeof(*out));
	desc[0] = '\0';
	for (int i = 0; i < k->n; i++) {
		struct src_ref r;

		if (resolve(sc, k->name[i], k->pos[i], "", &r, err))
			return -EINVAL;
		if (k->strfn[i]) {
			/* The text's hash is the part; the message carries one text. */
			if (str_ref(sc, k->name[i], k->pos[i], &r, err))
				return -EINVAL;
			for (int j = 0; j < i; j++) {
				if (k->strfn[j]) {
					tl_set_err(
						err, k->pos[i],
						"a key has at most one str() part; key by str(%s) "
						"and an integer field",
						k->name[j]);
					return -EINVAL;
				}
			}
			out->p[i].src = (uint8_t)r.src;
			out->p[i].size = r.size;
			out->p[i].offset = r.offset;
			used += (size_t)snprintf(desc + used, desclen - used, "%sstr(%s)",
						 i ? "," : "", k->name[i]);
			if (used >= desclen)
				used = desclen - 1;
			continue;
		}
		if (r.is_string || r.size > 8 || r.src == TRIGREC_SRC_CHARS ||
		    r.src == TRIGREC_SRC_DATALOC || r.src == TRIGREC_SRC_COMM) {
			tl_set_err(err, k->pos[i],
				   "%s is a string: a key must be an integer (pid, tid, "
				   "cpu, cgroup or an integer field of %s)",
				   k->name[i], sc->pattern);
			return -EINVAL;
		}
		out->p[i].src = (uint8_t)r.src;
		out->p[i].size = r.size;
		out->p[i].offset = r.offset;
		used += (size_t)snprintf(desc + used, desclen - used, "%s%s", i ? "," : "",
					 k->name[i]);
		if (used >= desclen)
			used = desclen - 1;
	}
	return 0;
}

/* File-name safe, in place: one '_' per other character (UTF-8), or per invalid byte. */
static void sanitize_name(char *s)
{
	char *w = s;

	while (*s) {
		int n = utf8_char(s, NULL);

		if (isalnum((unsigned char)*s) || *s == '_' || *s == '-' || *s == '.')
			*w++ = *s++;
		else {
			*w++ = '_';
			s += n > 0 ? n : 1;
		}
	}
	*w = '\0';
}

/*
 * An EVENT condition's near misses (cfg.nm_clause1): the first comparison,
 * left to right, of an integer field with > or >= and a number. Clause k of
 * the compiled list is the k-th comparison (compile_filter keeps the source
 * order); side[ROLE_START].filter gets the condition with it always true.
 */
static void event_near_miss_setup(const struct tl_node *filter, struct trig_def *out)
{
	struct trigrec_filter *f = &out->cfg.side[TRIGREC_ROLE_EVENT].filter;

	for (int k = 0; k < (int)f->n && k < TRIGREC_MAX_CLAUSES; k++) {
		int kk = k;
		const struct tl_node *n = nth_leaf(filter, &kk);
		const struct trigrec_clause *c = &f->c[k];

		if (!n || n->strfn || n->vk != V_INT || (n->op != P_GT && n->op != P_GE))
			continue;
		if ((c->op != TRIGREC_OP_GT && c->op != TRIGREC_OP_GE) ||
		    c->src != TRIGREC_SRC_FIELD)
			continue;
		out->cfg.nm_clause1 = (uint32_t)k + 1;
		out->cfg.side[TRIGREC_ROLE_START].filter = *f;
		out->cfg.side[TRIGREC_ROLE_START].filter.c[k].op = TRIGREC_OP_TRUE;
		if (n->hex)
			snprintf(out->nm_desc, sizeof(out->nm_desc), "%s %s 0x%llx", n->field,
				 lex_punct_text[n->op], (unsigned long long)n->mag);
		else
			snprintf(out->nm_desc, sizeof(out->nm_desc), "%s %s %s%llu", n->field,
				 lex_punct_text[n->op], n->neg ? "-" : "",
				 (unsigned long long)n->mag);
		return;
	}
}

/* The text as written, trimmed, cut with "..." when it does not fit. */
static void keep_text(struct trig_def *out, const char *text)
{
	const char *b = text, *e = text + strlen(text);

	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	if ((size_t)(e - b) < sizeof(out->text)) {
		memcpy(out->text, b, (size_t)(e - b));
		out->text[e - b] = '\0';
	} else {
		memcpy(out->text, b, sizeof(out->text) - 4);
		strcpy(out->text + sizeof(out->text) - 4, "...");
	}
}

int trig_compile(const struct trig_ast *a, const char *text, struct trig_def *out,
		 struct tl_error *err)
{
	return trig_compile_with(a, text, NULL, out, err);
}

int trig_compile_with(const struct trig_ast *a, const char *text, const struct trig_events *ev,
		      struct trig_def *out, struct tl_error *err)
{
	static const struct tl_key tid_key = { .given = 1, .n = 1, .name = { "TID" } };
	struct side_ctx sc[2];
	struct tl_error dummy;
	const char *part;
	int ret = -EINVAL;

	if (!err)
		err = &dummy;
	memset(err, 0, sizeof(*err));
	memset(sc, 0, sizeof(sc));
	if (!a || !out) {
		tl_set_err(err, (struct tl_pos){ 1, 1 }, "no trigger");
		return -EINVAL;
	}
	if (!ev)
		ev = trig_events_default();
	memset(out, 0, sizeof(*out));
	if (a->manual) {
		/* No kernel part: kind 0, only a name and a post window. */
		out->manual = 1;
		out->has_post = a->has_post;
		out->cfg.post_ns = a->post_ns;
		snprintf(out->name, sizeof(out->name), "%s", a->has_name ? a->name : "manual");
		sanitize_name(out->name);
		if (text)
			keep_text(out, text);
		return 0;
	}
	out->kind = a->kind;
	out->cfg.kind = a->kind;

	/* Left to right: a latency's START first. */
	if (a->kind == TRIGREC_TRIG_LATENCY &&
	    side_open(&sc[TRIGREC_ROLE_START], &a->side[TRIGREC_ROLE_START], ev, err))
		goto out;
	if (side_open(&sc[TRIGREC_ROLE_EVENT], &a->side[TRIGREC_ROLE_EVENT], ev, err))
		goto out;

	if (a->kind == TRIGREC_TRIG_LATENCY) {
		const struct tl_key *ks = &a->side[TRIGREC_ROLE_START].key;
		const struct tl_key *ke = &a->side[TRIGREC_ROLE_EVENT].key;

		/* By on one side applies to both; none keys by thread. */
		if (!ks->given && !ke->given)
			ks = ke = &tid_key;
		else if (!ks->given)
			ks = ke;
		else if (!ke->given)
			ke = ks;
		if (ks->n != ke->n) {
			tl_set_err(err, ke->by_pos,
				   "the end key has %d part%s but the start key has %d: "
				   "both sides need the same number of key fields",
				   ke->n, ke->n == 1 ? "" : "s", ks->n);
			goto out;
		}
		if (compile_filter(&sc[TRIGREC_ROLE_START], a->side[TRIGREC_ROLE_START].filter,
				   a->both, &out->cfg.side[TRIGREC_ROLE_START].filter, out, err) ||
		    compile_filter(&sc[TRIGREC_ROLE_EVENT], a->side[TRIGREC_ROLE_EVENT].filter,
				   a->both, &out->cfg.side[TRIGREC_ROLE_EVENT].filter, out, err) ||
		    compile_key(&sc[TRIGREC_ROLE_START], ks, &out->cfg.side[TRIGREC_ROLE_START].key,
				out->key_desc[TRIGREC_ROLE_START],
				sizeof(out->key_desc[TRIGREC_ROLE_START]), err) ||
		    compile_key(&sc[TRIGREC_ROLE_EVENT], ke, &out->cfg.side[TRIGREC_ROLE_EVENT].key,
				out->key_desc[TRIGREC_ROLE_EVENT],
				sizeof(out->key_desc[TRIGREC_ROLE_EVENT]), err))
			goto out;
		/* A text's hash only ever equals another text's hash. */
		for (int i = 0; i < ks->n; i++) {
			if (ks->strfn[i] != ke->strfn[i]) {
				tl_set_err(
					err, ks->strfn[i] ? ke->pos[i] : ks->pos[i],
					"key part %d is str() on one side only: a text's hash never "
					"equals a number; use str() on both sides or on neither",
					i + 1);
				goto out;
			}
		}
		/* The default key reads as "tid" in reports. */
		for (int i = 0; i < 2; i++)
			if (!strcmp(out->key_desc[i], "TID") && ks == &tid_key)
				strcpy(out->key_desc[i], "tid");
	} else {
		const struct tl_side *s = &a->side[TRIGREC_ROLE_EVENT];

		if (compile_filter(&sc[TRIGREC_ROLE_EVENT], s->filter, NULL,
				   &out->cfg.side[TRIGREC_ROLE_EVENT].filter, out, err))
			goto out;
		if (s->key.given && compile_key(&sc[TRIGREC_ROLE_EVENT], &s->key,
						&out->cfg.side[TRIGREC_ROLE_EVENT].key,
						out->key_desc[TRIGREC_ROLE_EVENT],
						sizeof(out->key_desc[TRIGREC_ROLE_EVENT]), err))
			goto out;
		if (a->kind == TRIGREC_TRIG_EVENT)
			event_near_miss_setup(s->filter, out);
	}
	side_event_name(&sc[TRIGREC_ROLE_EVENT], out->event[TRIGREC_ROLE_EVENT],
			sizeof(out->event[TRIGREC_ROLE_EVENT]));
	if (a->kind == TRIGREC_TRIG_LATENCY)
		side_event_name(&sc[TRIGREC_ROLE_START], out->event[TRIGREC_ROLE_START],
				sizeof(out->event[TRIGREC_ROLE_START]));

	out->cfg.threshold = a->threshold;
	out->cfg.window_ns = a->window_ns;
	if (a->baseline) {
		out->cfg.flags |= TRIGREC_TF_RATE_BASELINE;
		out->cfg.learn_mult = a->learn_mult;
		out->cfg.learn_after = a->has_after ? a->learn_after : TL_DEFAULT_BASELINE_AFTER;
	}
	if (a->learn_pct) {
		out->cfg.learn_pct = a->learn_pct;
		out->cfg.learn_mult = a->learn_mult;
		out->cfg.learn_after = a->has_after ? a->learn_after : TL_DEFAULT_LEARN_AFTER;
		out->cfg.learn_halflife_ns = TL_LEARN_HALFLIFE_NS;
		/* Without `by`, one histogram learns from every span. */
		if (!a->side[TRIGREC_ROLE_EVENT].key.given &&
		    !a->side[TRIGREC_ROLE_START].key.given)
			out->cfg.flags |= TRIGREC_TF_LEARN_ALL;
	}
	out->has_post = a->has_post;
	out->cfg.post_ns = a->post_ns;
	out->cfg.cooldown_ns = a->cooldown_ns;
	out->cfg.key_cooldown_ns = a->key_cooldown_ns;
	out->has_limit = a->has_limit;
	out->cfg.limit = a->has_limit ? a->limit : TL_DEFAULT_LIMIT;
	out->cfg.limit_period_ns = a->has_limit ? a->limit_period_ns : TL_DEFAULT_LIMIT_PERIOD_NS;
	out->cfg.max_total = a->max_total;

	if (a->has_name) {
		snprintf(out->name, sizeof(out->name), "%s", a->name);
	} else {
		char ev[sizeof(out->event[0])], *q;

		/* "sys:name"; globs drop out: "sched:*" is "sched", "sys:a*" is "a". */
		snprintf(ev, sizeof(ev), "%s", out->event[TRIGREC_ROLE_EVENT]);
		/* A probe glob ("uprobe:/bin/app:do_*(a=arg1)"): its function part ("do_"). */
		if (probe_kind_of(ev)) {
			ev[strcspn(ev, "(")] = '\0';
			q = strrchr(ev, ':') + 1;
			memmove(ev, q, strlen(q) + 1);
		}
		q = strchr(ev, ':');
		if (q && q[1] && strspn(q + 1, "*?[]") < strlen(q + 1))
			memmove(ev, q + 1, strlen(q + 1) + 1);
		else if (q)
			*q = '\0';
		for (char *r = ev, *w = ev;; r++) {
			if (!strchr("*?[]", *r) || !*r)
				*w++ = *r;
			if (!*r)
				break;
		}
		/* Only globs ("*:*", "???:*"): a name that still says what it watches. */
		part = ev[0] ? ev : "any";
		char nm[sizeof(out->event[0]) + 16];

		snprintf(nm, sizeof(nm), "%s%s",
			 a->kind == TRIGREC_TRIG_LATENCY ? "latency-" :
			 a->kind == TRIGREC_TRIG_RATE	 ? "rate-" :
							   "",
			 part);
		nm[sizeof(out->name) - 1] = '\0';
		strcpy(out->name, nm);
	}
	sanitize_name(out->name);

	if (text)
		keep_text(out, text);
	ret = 0;
out:
	side_close(&sc[0]);
	side_close(&sc[1]);
	return ret;
}

int trig_event_glob(const char *pattern, struct tp_name **out)
{
	const struct trig_events *ev = trig_events_default();

	return ev->glob(ev->ctx, pattern, out);
}

struct tp_format *trig_event_format(const char *sys, const char *name)
{
	const struct trig_events *ev = trig_events_default();

	return ev->format(ev->ctx, sys, name);
}

void trig_event_suggest(const char *bad, char *out, size_t len)
{
	const struct trig_events *ev = trig_events_default();

	ev->suggest(ev->ctx, bad, out, len);
}
