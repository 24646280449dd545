// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Trigger scripts -> struct trigrec_config.
 *
 * Line oriented: one statement per line, except that a list goes on after a
 * trailing comma and a trigger block runs to its '}'. An error skips the
 * rest of its statement and parsing goes on, so one pass reports every
 * error of a file. The text is checked first (size, line length, NUL bytes,
 * UTF-8) so the parser only ever sees bounded, well-formed text.
 * Language and errors: docs/script-language.md; keep the two in step.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include "capture/probes.h"
#include "capture/recorder.h"
#include "capture/tracefs.h"
#include "engine/cgsel.h"
#include "lang/lexer.h"
#include "script/events.h"
#include "script/script.h"
#include "session/settings.h"
#include "service/hooks.h"
#include "snapshot/outdir.h"
#include "util/util.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

struct script {
	char *path;
	char *text; /* len bytes + NUL */
	size_t len;
	char *display; /* text with NULs and bad UTF-8 shown as '?', NULL = text */
	struct tl_error *errs;
	int nr_errs, cap_errs;
	int full; /* SCRIPT_MAX_ERRORS reached */
	/* Facts a check states without failing: SCRIPT_MAX_WARNINGS at most. */
	struct tl_error *warns;
	int nr_warns;
	int absent_ok; /* script__absent_binaries_ok(): a probe's absent binary is a warning */
	int nr_absent; /* ... warnings of that kind */
	/* Where host-dependent settings were written (line 0 = not in the script). */
	struct tl_pos outdir_pos, cmd_pos;
	struct tl_pos val_pos[SETTINGS_MAX]; /* settings[i]'s value */
};

/* ------------------------------------------------------------------ */
/* Errors                                                               */

static void add_errv(struct script *s, struct tl_pos pos, const char *fmt, va_list ap)
{
	struct tl_error *e;

	if (s->full)
		return;
	if (s->nr_errs == s->cap_errs) {
		int cap = s->cap_errs ? s->cap_errs * 2 : 8;

		e = realloc(s->errs, (size_t)cap * sizeof(*e));
		if (!e) {
			s->full = 1;
			return;
		}
		s->errs = e;
		s->cap_errs = cap;
	}
	e = &s->errs[s->nr_errs++];
	e->pos = pos;
	if (s->nr_errs == SCRIPT_MAX_ERRORS) {
		snprintf(e->msg, sizeof(e->msg),
			 "too many errors (%d): stopping here; fix these "
			 "and check again",
			 SCRIPT_MAX_ERRORS);
		s->full = 1;
		return;
	}
	vseterr(e->msg, sizeof(e->msg), fmt, ap);
}

static void __attribute__((format(printf, 3, 4)))
add_err(struct script *s, struct tl_pos pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_errv(s, pos, fmt, ap);
	va_end(ap);
}

static void add_tl_err(struct script *s, const struct tl_error *e)
{
	add_err(s, e->pos, "%s", e->msg);
}

#define SCRIPT_MAX_WARNINGS 64

static void __attribute__((format(printf, 3, 4)))
add_warn(struct script *s, struct tl_pos pos, const char *fmt, ...)
{
	va_list ap;

	if (!s->warns && !(s->warns = calloc(SCRIPT_MAX_WARNINGS, sizeof(*s->warns))))
		return;
	if (s->nr_warns == SCRIPT_MAX_WARNINGS)
		return;
	s->warns[s->nr_warns].pos = pos;
	va_start(ap, fmt);
	vseterr(s->warns[s->nr_warns].msg, sizeof(s->warns->msg), fmt, ap);
	va_end(ap);
	s->nr_warns++;
}

void script__absent_binaries_ok(struct script *s)
{
	s->absent_ok = 1;
}

/*
 * A probe that failed because its binary is not on this machine, in a
 * check that allows that (script__absent_binaries_ok): a warning, and 1.
 * The event or trigger is then left out of the checked config.
 */
static int absent_binary(struct script *s, struct tl_pos pos, const char *what, const char *msg)
{
	const char *bin = probes__absent();

	if (!s->absent_ok || !bin || !strstr(msg, bin))
		return 0;
	add_warn(s, pos,
		 "warning: %s is not on this machine: this %s is checked as syntax only "
		 "(check --strict makes it an error)",
		 bin, what);
	s->nr_absent++;
	return 1;
}

const char *script__path(const struct script *s)
{
	return s->path;
}

int script__nr_errors(const struct script *s)
{
	return s->nr_errs;
}

const struct tl_error *script__error(const struct script *s, int i)
{
	return i >= 0 && i < s->nr_errs ? &s->errs[i] : NULL;
}

int script__nr_warnings(const struct script *s)
{
	return s->nr_absent;
}

static void format_at(const struct script *s, const struct tl_error *e, char *buf, size_t len);

void script__print_warnings(const struct script *s, FILE *out)
{
	char buf[SCRIPT_MAX_LINE * 2 + 1024];

	for (int i = 0; i < s->nr_warns; i++) {
		format_at(s, &s->warns[i], buf, sizeof(buf));
		fprintf(out, "%s\n", buf);
	}
}

void script__format_error(const struct script *s, int i, char *buf, size_t len)
{
	format_at(s, script__error(s, i), buf, len);
}

static void format_at(const struct script *s, const struct tl_error *e, char *buf, size_t len)
{
	const char *src = s->display ? s->display : s->text;
	const char *line = src;

	if (!e || !len) {
		if (len)
			buf[0] = '\0';
		return;
	}
	for (int l = 1; l < e->pos.line && line; l++) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	/* Quoting a line longer than a line may be (the error says so) helps nobody. */
	if (!line || e->pos.line < 1 || strcspn(line, "\n") > SCRIPT_MAX_LINE)
		src = NULL;
	tl_error_format(e, s->path, src, buf, len);
}

void script__print_errors(const struct script *s, FILE *out)
{
	char buf[SCRIPT_MAX_LINE * 2 + 1024];

	for (int i = 0; i < s->nr_errs; i++) {
		script__format_error(s, i, buf, sizeof(buf));
		fprintf(out, "%s\n", buf);
	}
}

/* ------------------------------------------------------------------ */
/* Loading                                                              */

struct script *script__from_mem(const char *path, const char *text, size_t len)
{
	struct script *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->path = strdup(path ? path : "-");
	s->text = malloc(len + 1);
	if (!s->path || !s->text) {
		script__free(s);
		return NULL;
	}
	if (len)
		memcpy(s->text, text, len);
	s->text[len] = '\0';
	s->len = len;
	return s;
}

void script__free(struct script *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->text);
	free(s->display);
	free(s->errs);
	free(s->warns);
	free(s);
}

struct script *script__load(const char *path, char *err, size_t errlen)
{
	const char *name = path && strcmp(path, "-") ? path : "-";
	size_t cap = 64 * 1024, len = 0;
	struct script *s = NULL;
	struct stat st;
	char *buf = NULL;
	int fd;

	if (!path || !*path) {
		seterr(err, errlen, "no script given: give a file, or - for standard input");
		return NULL;
	}
	fd = strcmp(name, "-") ? open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY) : STDIN_FILENO;
	if (fd < 0) {
		seterr(err, errlen, "%s: cannot open: %s", name, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		seterr(err, errlen, "%s: %s", name, strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		seterr(err, errlen, "%s is a directory: give a script file", name);
		goto out;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > SCRIPT_MAX_BYTES) {
		seterr(err, errlen,
		       "%s is %llu bytes: a script is at most %u bytes (1 MiB); is "
		       "this the right file?",
		       name, (unsigned long long)st.st_size, SCRIPT_MAX_BYTES);
		goto out;
	}
	/* Pipes, /dev/zero and files that grow: read at most one byte past the cap. */
	for (;;) {
		ssize_t n;

		if (len == cap || !buf) {
			char *nb;

			if (buf)
				cap *= 2;
			if (cap > SCRIPT_MAX_BYTES + 1)
				cap = SCRIPT_MAX_BYTES + 1;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				seterr(err, errlen, "%s: out of memory", name);
				goto out;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			seterr(err, errlen, "%s: cannot read: %s", name, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > SCRIPT_MAX_BYTES) {
			seterr(err, errlen,
			       "%s: more than %u bytes (1 MiB), the most a script may "
			       "have; stopped reading there (is this the right file?)",
			       name, SCRIPT_MAX_BYTES);
			goto out;
		}
	}
	s = script__from_mem(name, buf ? buf : "", len);
	if (!s)
		seterr(err, errlen, "%s: out of memory", name);
out:
	free(buf);
	if (fd != STDIN_FILENO)
		close(fd);
	return s;
}

/* Bytes of a valid UTF-8 sequence at p (1 for ASCII), or 0 when it is not one. */
static int utf8_len(const unsigned char *p, size_t left)
{
	unsigned c = p[0];
	int n;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if ((size_t)n > left)
		return 0;
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates, beyond U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * The text as a whole: NUL bytes, invalid UTF-8 and over-long lines are
 * reported (the first of each kind, with a count) and stop the parse.
 */
static int check_text(struct script *s)
{
	const unsigned char *t = (const unsigned char *)s->text;
	struct tl_pos nul_pos = { 0 }, bad_pos = { 0 };
	size_t nuls = 0, bads = 0, longs = 0;
	int line = 1;
	size_t line_start = 0;

	for (size_t i = 0; i <= s->len;) {
		int n;

		if (i == s->len || t[i] == '\n') {
			size_t ll = i - line_start;

			if (ll > SCRIPT_MAX_LINE && longs++ < 3)
				add_err(s, (struct tl_pos){ line, SCRIPT_MAX_LINE + 1 },
					"line %d is %zu bytes long: a line holds at most %d bytes "
					"(split the statement, or is this the right file?)",
					line, ll, SCRIPT_MAX_LINE);
			if (i == s->len)
				break;
			line++;
			line_start = ++i;
			continue;
		}
		if (!t[i]) {
			if (!nuls++)
				nul_pos = (struct tl_pos){ line, (int)(i - line_start) + 1 };
			i++;
			continue;
		}
		n = utf8_len(t + i, s->len - i);
		if (!n) {
			if (!bads++)
				bad_pos = (struct tl_pos){ line, (int)(i - line_start) + 1 };
			i++;
			continue;
		}
		i += (size_t)n;
	}
	if (nuls)
		add_err(s, nul_pos,
			"NUL byte%s (%zu in the file): a script is text; is this the "
			"right file?",
			nuls > 1 ? "s" : "", nuls);
	if (bads)
		add_err(s, bad_pos,
			"invalid UTF-8 (%zu byte%s in the file): save the script as "
			"UTF-8",
			bads, bads > 1 ? "s" : "");
	if (nuls || bads) {
		/* Show the lines with '?' for the bytes a terminal cannot show. */
		s->display = malloc(s->len + 1);
		if (s->display) {
			for (size_t i = 0; i < s->len;) {
				int n = t[i] ? utf8_len(t + i, s->len - i) : 0;

				if (!n) {
					s->display[i++] = '?';
					continue;
				}
				memcpy(s->display + i, t + i, (size_t)n);
				i += (size_t)n;
			}
			s->display[s->len] = '\0';
		}
	}
	return s->nr_errs;
}

/* ------------------------------------------------------------------ */
/* Tokens (lang/lexer.c, LEX_SCRIPT; LEX_SCRIPT_ARGV: only blanks separate words) */

/*
 * The script's body, not settings: record and trigger (repeatable) and
 * command (once). Every other statement is a row of the settings table
 * (session/settings.h), statement NR_STMT + its index.
 */
enum stmt_id { ST_RECORD, ST_COMMAND, ST_TRIGGER, NR_STMT };

struct hook_use {
	char tp[192]; /* "sys:name" */
	int ntrig;
	struct tl_pos rec_pos; /* first `record` of it (line 0 = not recorded) */
	const char *filter;    /* its kernel filter (config-owned), NULL = none */
};

struct sp {
	struct script *s;
	struct trigrec_config *c;
	struct lexer lx; /* the cursor: statements read tokens, filters and bodies raw text */
	struct tl_pos seen[NR_STMT + SETTINGS_MAX];
	struct {
		char name[64];
		struct tl_pos pos;
	} * names;
	int nr_names;
	struct hook_use *hooks;
	int nr_hooks;
	int kernel_trigs;
	struct tl_pos keep_pos[3]; /* files, bytes, age */
};

/* The next token; LX_BAD after an error was recorded. */
static void next(struct sp *p, enum lex_mode mode, struct lex_tok *t)
{
	struct tl_error e;

	p->lx.mode = mode;
	if (lexer__next(&p->lx, t, &e))
		add_tl_err(p->s, &e);
}

/* Look at the next token without taking it. */
static enum lex_kind peek(struct sp *p, enum lex_mode mode, struct lex_tok *out)
{
	p->lx.mode = mode;
	return lexer__peek(&p->lx, out);
}

static int is_hspace(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int is_punct(const struct lex_tok *t, enum lex_punct c)
{
	return t->kind == LX_PUNCT && t->p == c;
}

/* A token quoted for a message. */
static const char *desc(const struct lex_tok *t, const struct sp *p, char *buf, size_t len)
{
	switch (t->kind) {
	case LX_EOF: return "the end of the file";
	case LX_EOL: return "the end of the line";
	default:
		snprintf(buf, len, "'%.*s'", t->len > 40 ? 40 : (int)t->len, t->s);
		if (t->len > 40)
			snprintf(buf + strlen(buf) - 1, len - (strlen(buf) - 1), "...'");
		return buf;
	}
}

/* The statement is over: nothing but a comment may follow. */
static int expect_eol(struct sp *p, const char *usage)
{
	struct lex_tok t;
	char d[64];

	next(p, LEX_SCRIPT, &t);
	if (t.kind == LX_EOL || t.kind == LX_EOF) {
		lex_tok_free(&t);
		return 0;
	}
	if (t.kind != LX_BAD)
		add_err(p->s, t.pos, "unexpected %s: the statement is '%s'",
			desc(&t, p, d, sizeof(d)), usage);
	lex_tok_free(&t);
	lexer__skip_line(&p->lx);
	return -EINVAL;
}

/* One value: a word or a string. */
static int arg(struct sp *p, int mode, struct lex_tok *t, const char *kw, const char *usage)
{
	char d[64];

	next(p, mode, t);
	if (t->kind == LX_WORD || t->kind == LX_STR)
		return 0;
	if (t->kind != LX_BAD)
		add_err(p->s, t->pos, "expected a value after '%s', got %s: the statement is '%s'",
			kw, desc(t, p, d, sizeof(d)), usage);
	lex_tok_free(t);
	if (t->kind != LX_EOL)
		lexer__skip_line(&p->lx);
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* Kernel filters of recorded events (ftrace syntax)                    */

/*
 * The kernel checks a filter when it is set; this finds what it would
 * reject that can be known from the format (fields, types, operators, quotes)
 * and says where, so `trigrec check` need not set anything.
 */
struct ff {
	struct sp *p;
	const struct tp_format *fmt;
	const char *f; /* the filter */
	size_t i;
	struct tl_pos pos; /* of f[0]; a filter is on one line */
	int depth;
	int err;
};

static struct tl_pos ff_pos(const struct ff *ff, size_t at)
{
	return (struct tl_pos){ ff->pos.line, ff->pos.col + (int)at };
}

static void __attribute__((format(printf, 3, 4)))
ff_err(struct ff *ff, size_t at, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (ff->err)
		return;
	ff->err = 1;
	va_start(ap, fmt);
	vseterr(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	add_err(ff->p->s, ff_pos(ff, at), "%s (kernel filter of %s:%s)", msg, ff->fmt->sys,
		ff->fmt->name);
}

static void ff_blank(struct ff *ff)
{
	while (isspace((unsigned char)ff->f[ff->i]))
		ff->i++;
}

enum ffkind { FF_NUM, FF_STR, FF_ANY };

/* Fields the kernel adds to every event (trace_define_generic_fields). */
static const struct {
	const char *name;
	enum ffkind k;
} ff_generic[] = {
	{ "CPU", FF_NUM },  { "cpu", FF_NUM },	      { "common_cpu", FF_NUM }, { "COMM", FF_STR },
	{ "comm", FF_STR }, { "STACKTRACE", FF_ANY }, { "stacktrace", FF_ANY },
};

static int ff_field(struct ff *ff, const char *name, size_t at, enum ffkind *k)
{
	const struct tp_field *fl = tp_format__field(ff->fmt, name);
	char sugg[100] = "", list[300] = "";
	int best = 1 + ((int)strlen(name) / 3 > 1 ? (int)strlen(name) / 3 : 1);
	size_t used = 0;

	if (fl) {
		switch (fl->kind) {
		case TP_FIELD_CHARARRAY:
		case TP_FIELD_DATALOC: *k = FF_STR; break;
		case TP_FIELD_PTR:
			/* "char *" is a string to the kernel except in syscall events. */
			*k = FF_ANY;
			break;
		case TP_FIELD_ARRAY:
			ff_err(ff, at, "cannot filter on array field %s (%s)", name, fl->type);
			return -EINVAL;
		default: *k = FF_NUM;
		}
		return 0;
	}
	for (size_t i = 0; i < sizeof(ff_generic) / sizeof(ff_generic[0]); i++) {
		if (!strcmp(name, ff_generic[i].name)) {
			*k = ff_generic[i].k;
			return 0;
		}
	}
	for (int i = 0; i < ff->fmt->nr_fields; i++) {
		const struct tp_field *f = &ff->fmt->fields[i];
		int d = edit_distance(name, f->name), w;

		if (d < best) {
			best = d;
			snprintf(sugg, sizeof(sugg), " (did you mean '%s'?)", f->name);
		}
		if (f->is_common)
			continue;
		w = snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "", f->name);
		if (w < 0 || (size_t)w >= sizeof(list) - used) {
			list[used] = '\0';
			break;
		}
		used += (size_t)w;
	}
	for (size_t i = 0; i < sizeof(ff_generic) / sizeof(ff_generic[0]); i++) {
		int d = edit_distance(name, ff_generic[i].name);

		if (d < best) {
			best = d;
			snprintf(sugg, sizeof(sugg), " (did you mean '%s'?)", ff_generic[i].name);
		}
	}
	ff_err(ff, at, "unknown field '%s'%s; the fields are: %s%scommon_*, comm, cpu", name, sugg,
	       list, used ? ", " : "");
	return -EINVAL;
}

static void ff_or(struct ff *ff);

static void ff_pred(struct ff *ff)
{
	static const char *const ops[] = { "==", "!=", "<=", ">=", "<", ">", "&", "~" };
	const char *f = ff->f;
	size_t fs = ff->i, os, vs;
	const char *op = NULL;
	char name[64];
	enum ffkind k;

	if (!(isalpha((unsigned char)f[ff->i]) || f[ff->i] == '_')) {
		if (!f[ff->i])
			ff_err(ff, ff->i, "expected FIELD OP VALUE, but the filter ends here");
		else
			ff_err(ff, ff->i, "expected a field name, got '%c'", f[ff->i]);
		return;
	}
	while (isalnum((unsigned char)f[ff->i]) || f[ff->i] == '_')
		ff->i++;
	if (ff->i - fs >= sizeof(name)) {
		ff_err(ff, fs, "field name too long");
		return;
	}
	memcpy(name, f + fs, ff->i - fs);
	name[ff->i - fs] = '\0';
	ff_blank(ff);
	os = ff->i;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (!strncmp(f + ff->i, ops[i], strlen(ops[i]))) {
			op = ops[i];
			break;
		}
	}
	/* "&&" after a field is a missing operator, not a bit test. */
	if (!op || !strncmp(f + ff->i, "&&", 2)) {
		ff_err(ff, os, "expected an operator (== != < <= > >= & ~) after '%s'", name);
		return;
	}
	if (ff_field(ff, name, fs, &k))
		return;
	ff->i += strlen(op);
	ff_blank(ff);
	vs = ff->i;
	if (f[ff->i] == '"' || f[ff->i] == '\'') {
		char q = f[ff->i++];

		while (f[ff->i] && f[ff->i] != q)
			ff->i++;
		if (!f[ff->i]) {
			ff_err(ff, vs, "unterminated string: add the closing %c", q);
			return;
		}
		ff->i++;
		if (k == FF_NUM) {
			ff_err(ff, vs, "%s is a number: compare it with a number, not a string",
			       name);
			return;
		}
		if (strcmp(op, "==") && strcmp(op, "!=") && strcmp(op, "~")) {
			ff_err(ff, os, "'%s' does not apply to strings: %s takes ==, != or ~", op,
			       name);
			return;
		}
	} else if (isdigit((unsigned char)f[ff->i]) || f[ff->i] == '-') {
		char num[64], *end;
		size_t n;

		while (f[ff->i] && !isspace((unsigned char)f[ff->i]) && f[ff->i] != ')' &&
		       f[ff->i] != '&' && f[ff->i] != '|')
			ff->i++;
		n = ff->i - vs;
		if (n >= sizeof(num))
			n = sizeof(num) - 1;
		memcpy(num, f + vs, n);
		num[n] = '\0';
		errno = 0;
		if (num[0] == '-')
			(void)strtoll(num, &end, 0);
		else
			(void)strtoull(num, &end, 0);
		if (errno || *end || end == num) {
			ff_err(ff, vs,
			       "'%s' is not a number (decimal, 0x hex or 0 octal, as the "
			       "kernel reads it)",
			       num);
			return;
		}
		if (k == FF_STR) {
			ff_err(ff, vs, "%s is a string: quote the value (%s %s \"%s\")", name, name,
			       op, num);
			return;
		}
		if (!strcmp(op, "~")) {
			ff_err(ff, os,
			       "'~' matches strings, but %s is a number: use == != < <= > >= or &",
			       name);
			return;
		}
	} else {
		ff_err(ff, vs,
		       "expected a value after '%s': a number, or a \"quoted string\" "
		       "(the kernel needs the quotes)",
		       op);
	}
}

static void ff_unary(struct ff *ff)
{
	ff_blank(ff);
	if (++ff->depth > 64) {
		ff_err(ff, ff->i, "filter nested too deeply (more than 64 levels)");
		return;
	}
	if (ff->f[ff->i] == '!' && ff->f[ff->i + 1] != '=') {
		ff->i++;
		ff_unary(ff);
	} else if (ff->f[ff->i] == '(') {
		size_t open = ff->i++;

		ff_or(ff);
		ff_blank(ff);
		if (ff->f[ff->i] == ')')
			ff->i++;
		else
			ff_err(ff, ff->i, "expected ')' to close the '(' at column %d",
			       ff_pos(ff, open).col);
	} else {
		ff_pred(ff);
	}
	ff->depth--;
}

static void ff_or(struct ff *ff)
{
	for (;;) {
		ff_unary(ff);
		if (ff->err)
			return;
		ff_blank(ff);
		if (strncmp(ff->f + ff->i, "&&", 2) && strncmp(ff->f + ff->i, "||", 2))
			return;
		ff->i += 2;
	}
}

static int ffilter_check(struct sp *p, const struct tp_format *fmt, const char *filter,
			 struct tl_pos pos)
{
	struct ff ff = { .p = p, .fmt = fmt, .f = filter, .pos = pos };

	ff_or(&ff);
	if (!ff.err) {
		ff_blank(&ff);
		if (filter[ff.i])
			ff_err(&ff, ff.i, "unexpected '%c': join conditions with && or ||",
			       filter[ff.i]);
	}
	return ff.err ? -EINVAL : 0;
}

/* ------------------------------------------------------------------ */
/* Tracepoints used, for the per-run limits                             */

static struct hook_use *hook_use(struct sp *p, const char *sys, const char *name)
{
	char tp[sizeof(p->hooks[0].tp)];
	struct hook_use *h;

	snprintf(tp, sizeof(tp), "%s:%s", sys, name);
	for (int i = 0; i < p->nr_hooks; i++)
		if (!strcmp(p->hooks[i].tp, tp))
			return &p->hooks[i];
	h = realloc(p->hooks, (size_t)(p->nr_hooks + 1) * sizeof(*h));
	if (!h)
		return NULL;
	p->hooks = h;
	h = &h[p->nr_hooks++];
	memset(h, 0, sizeof(*h));
	snprintf(h->tp, sizeof(h->tp), "%s", tp);
	return h;
}

/* An event pattern's tracepoints; a probe's are created (script/events.h). */
static int script_glob(const char *pattern, struct tp_name **out)
{
	const struct trig_events *ev = script_events();
	char name[512], why[512];

	/* A recording's formats (trigrec test): a probe is the events its recorder made. */
	if (ev->probes_as_tracepoints && probe_kind_of(pattern) &&
	    !trig_probe_event_name(pattern, name, sizeof(name), why, sizeof(why)))
		pattern = name;
	return ev->glob(ev->ctx, pattern, out);
}

/*
 * Count the tracepoints `pattern` attaches to; error at pos past the run's
 * limits. rec: a `record` item with this filter (the recorder records a
 * tracepoint once, with the first filter given, so a second that differs is
 * an error rather than silently dropped).
 */
static int count_hooks(struct sp *p, const char *pattern, int trig, int rec, const char *filter,
		       struct tl_pos pos, const char *what)
{
	struct tp_name *tps = NULL;
	int n = script_glob(pattern, &tps), ret = 0;

	for (int i = 0; i < n && !ret; i++) {
		int before = p->nr_hooks;
		struct hook_use *h = hook_use(p, tps[i].sys, tps[i].name);

		if (!h) {
			add_err(p->s, pos, "out of memory");
			ret = -ENOMEM;
		} else if (p->nr_hooks > TRIGREC_MAX_HOOKS && before == TRIGREC_MAX_HOOKS) {
			add_err(p->s, pos,
				"%s brings the tracepoints recorded or triggering to more "
				"than %d, the most one run can hook (TRIGREC_MAX_HOOKS): record "
				"narrower globs",
				what, TRIGREC_MAX_HOOKS);
			ret = -E2BIG;
		} else if (trig && ++h->ntrig == TRIGREC_MAX_HOOK_TRIGGERS + 1) {
			add_err(p->s, pos,
				"more than %d triggers on %s (TRIGREC_MAX_HOOK_TRIGGERS): "
				"merge some of them",
				TRIGREC_MAX_HOOK_TRIGGERS, h->tp);
			ret = -E2BIG;
		} else if (rec && h->rec_pos.line && (filter || h->filter) &&
			   !(filter && h->filter && !strcmp(filter, h->filter))) {
			add_err(p->s, pos,
				"%s is already recorded at %d:%d %s: a tracepoint is "
				"recorded once, with one filter; combine the conditions with || or &&",
				h->tp, h->rec_pos.line, h->rec_pos.col,
				h->filter ? "with another filter" : "without a filter");
			ret = -EINVAL;
		} else if (rec && !h->rec_pos.line) {
			h->rec_pos = pos;
			h->filter = filter;
		}
	}
	free(tps);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Statements                                                           */

/* Positions of statements that may be given once. */
static int once(struct sp *p, int id, const struct lex_tok *kw)
{
	char d[64];

	if (p->seen[id].line) {
		add_err(p->s, kw->pos, "%s given twice (first at %d:%d): give it once",
			desc(kw, p, d, sizeof(d)), p->seen[id].line, p->seen[id].col);
		lexer__skip_line(&p->lx);
		return -EINVAL;
	}
	p->seen[id] = kw->pos;
	return 0;
}

static int nomem(struct sp *p, struct tl_pos pos)
{
	add_err(p->s, pos, "out of memory");
	return -ENOMEM;
}

/* One record item: EVENT [if FILTER]. */
static int record_item(struct sp *p, const struct lex_tok *ev)
{
	struct tl_pos fpos = { 0 };
	struct tp_name *tps = NULL;
	char *filter = NULL, sugg[400] = "";
	const char *name = ev->val;
	struct lex_tok t;
	int n = 0, ret = 0;

	if (peek(p, LEX_SCRIPT, &t) == LX_WORD && !strcmp(t.val, "if")) {
		size_t fs, fe;
		char q = 0;

		lex_tok_free(&t);
		next(p, LEX_SCRIPT, &t);
		lex_tok_free(&t);
		lexer__skip_blank(&p->lx);
		/* The filter runs to a ',' or the end of the line, outside quotes. */
		fpos = lexer__pos(&p->lx);
		fs = p->lx.i;
		while (p->lx.text[p->lx.i] && p->lx.text[p->lx.i] != '\n' &&
		       (q || (p->lx.text[p->lx.i] != ',' && p->lx.text[p->lx.i] != '#'))) {
			if (q && p->lx.text[p->lx.i] == q)
				q = 0;
			else if (!q && (p->lx.text[p->lx.i] == '"' || p->lx.text[p->lx.i] == '\''))
				q = p->lx.text[p->lx.i];
			lexer__advance(&p->lx);
		}
		fe = p->lx.i;
		while (fe > fs && is_hspace((unsigned char)p->lx.text[fe - 1]))
			fe--;
		if (fe == fs) {
			add_err(p->s, fpos,
				"expected a filter after 'if' (ftrace syntax, e.g. "
				"prev_state == 2)");
			ret = -EINVAL;
			goto out;
		}
		filter = strndup(p->lx.text + fs, fe - fs);
		if (!filter) {
			ret = nomem(p, fpos);
			goto out;
		}
	}
	lex_tok_free(&t);

	if (rec_sw_event_find(name) >= 0) {
		if (filter) {
			add_err(p->s, fpos,
				"%s is a software event: kernel filters apply to "
				"tracepoints only",
				name);
			ret = -EINVAL;
		}
		goto add;
	}
	if (!strpbrk(name, ":/")) {
		const char *sw = rec_sw_event_suggest(name);
		char any[300];

		/* A tracepoint's name without its system: name the system. */
		snprintf(any, sizeof(any), "*:%s", name);
		if (!sw && !strpbrk(name, "*?[") && trig_event_glob(any, &tps) > 0)
			snprintf(sugg, sizeof(sugg), "%s:%s", tps[0].sys, tps[0].name);
		else if (!sw)
			trig_event_suggest(name, sugg, sizeof(sugg));
		if (sw || sugg[0])
			add_err(p->s, ev->pos, "unknown event '%s' (did you mean %s?)", name,
				sw ? sw : sugg);
		else
			add_err(p->s, ev->pos,
				"unknown event '%s': give a tracepoint as SYS:NAME "
				"(see `trigrec list`) or a software event (cpu-clock, task-clock, "
				"page-faults, context-switches, cpu-migrations, minor-faults, "
				"major-faults)",
				name);
		ret = -EINVAL;
		goto out;
	}
	n = script_glob(name, &tps);
	if (n < 0 && probe_kind_of(name) &&
	    absent_binary(p->s, ev->pos, "event", probes__error())) {
		/* Counted as recorded: the script has a record line (no default set). */
		n = 0;
		goto add;
	}
	if (n < 0 && probe_kind_of(name)) {
		add_err(p->s, ev->pos, "%s", probes__error());
		ret = n;
		goto out;
	}
	if (n < 0) {
		add_err(p->s, ev->pos, "cannot list tracepoints for '%s': %s", name, strerror(-n));
		ret = n;
		goto out;
	}
	if (n == 0) {
		char pat[512], why[512];

		if (!strpbrk(name, "*?[") && !probe_kind_of(name))
			trig_event_suggest(name, sugg, sizeof(sugg));
		if (probe_kind_of(name) && script_events()->probes_as_tracepoints &&
		    !trig_probe_event_name(name, pat, sizeof(pat), why, sizeof(why)))
			add_err(p->s, ev->pos, "%s", trig_probe_unrecorded(name, pat));
		else if (sugg[0])
			add_err(p->s, ev->pos, "unknown tracepoint %s (did you mean %s?)", name,
				sugg);
		else if (!strpbrk(name, "*?["))
			add_err(p->s, ev->pos, "unknown tracepoint %s (see `trigrec list`)", name);
		else
			add_err(p->s, ev->pos, "no tracepoint matches '%s' (see `trigrec list`)",
				name);
		ret = -EINVAL;
		goto out;
	}
	for (int i = 0; i < n && filter && !ret; i++) {
		struct tp_format *f = trig_event_format(tps[i].sys, tps[i].name);

		if (!f) {
			add_err(p->s, ev->pos, "cannot read the format of %s:%s: %s", tps[i].sys,
				tps[i].name, strerror(errno));
			ret = -EINVAL;
			break;
		}
		ret = ffilter_check(p, f, filter, fpos);
		tp_format__free(f);
	}
add:
	if (!ret && config__add_event(p->c, name, filter))
		ret = nomem(p, ev->pos);
	/* The config's copy outlives this function. */
	if (!ret && n > 0)
		ret = count_hooks(p, name, 0, 1, p->c->events[p->c->nr_events - 1].filter, ev->pos,
				  name);
out:
	free(tps);
	free(filter);
	return ret;
}

static int st_record(struct sp *p, const struct lex_tok *kw)
{
	static const char usage[] = "record EVENT [if FILTER], ...";
	char d[64];

	if (!p->seen[ST_RECORD].line)
		p->seen[ST_RECORD] = kw->pos;
	for (;;) {
		struct lex_tok ev, t;
		int r;

		next(p, LEX_SCRIPT, &ev);
		if (ev.kind != LX_WORD && ev.kind != LX_STR) {
			if (ev.kind != LX_BAD)
				add_err(p->s, ev.pos,
					"expected an event (SYS:NAME, a glob such as "
					"sched:*, or a software event such as cpu-clock), got %s",
					desc(&ev, p, d, sizeof(d)));
			if (ev.kind != LX_EOL)
				lexer__skip_line(&p->lx);
			lex_tok_free(&ev);
			return -EINVAL;
		}
		r = record_item(p, &ev);
		lex_tok_free(&ev);
		if (r == -ENOMEM)
			return r;
		/* After an error in one item, the next items are still checked. */
		next(p, LEX_SCRIPT, &t);
		if (is_punct(&t, P_COMMA)) {
			/* A trailing comma continues the list on the next line. */
			while (peek(p, LEX_SCRIPT, NULL) == LX_EOL)
				lexer__skip_line(&p->lx);
			continue;
		}
		if (t.kind == LX_EOL || t.kind == LX_EOF)
			return r;
		if (t.kind != LX_BAD)
			add_err(p->s, t.pos,
				"expected ',' or the end of the line after the event, "
				"got %s: separate events with commas (%s)",
				desc(&t, p, d, sizeof(d)), usage);
		lex_tok_free(&t);
		lexer__skip_line(&p->lx);
		return -EINVAL;
	}
}

/*
 * A number and its unit written apart ("post 10 ms", "buffer 8 M"): the next
 * word of the line joins v, as the command line's "--post '10 ms'" is one
 * value. Returns 1 when it joined one.
 */
static int join_unit(struct sp *p, struct lex_tok *v)
{
	struct lex_tok u;
	char *j;

	if (v->kind != LX_WORD || !v->val[0] || v->val[strspn(v->val, "0123456789.")] ||
	    peek(p, LEX_SCRIPT, NULL) != LX_WORD)
		return 0;
	next(p, LEX_SCRIPT, &u);
	j = malloc(strlen(v->val) + strlen(u.val) + 2);
	if (j) {
		sprintf(j, "%s %s", v->val, u.val);
		free(v->val);
		v->val = j;
		v->len = u.off + u.len - v->off;
	}
	lex_tok_free(&u);
	return 1;
}

static int valid_name(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n > max)
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

/* Where statement kw (a row's or one of stmts[]) was first given; line 0 = not yet. */
static struct tl_pos stmt_seen(const struct sp *p, const char *kw);

/* The statements of the rows whose syntax is their own (settings.h: SETF_LINE and after). */
static int form_line(struct sp *p, const struct lex_tok *kw, const struct setting *st);
static int form_words(struct sp *p, const struct lex_tok *kw, const struct setting *st);
static int form_argv(struct sp *p, const struct lex_tok *kw, const struct setting *st);
static int form_output(struct sp *p, const struct lex_tok *kw, const struct setting *st);
static int form_compress(struct sp *p, const struct lex_tok *kw, const struct setting *st);
static int keep_list(struct sp *p);

/* A statement of the settings table: its keyword, then its value as the row's form says. */
static int st_setting(struct sp *p, const struct lex_tok *kw, const struct setting *st)
{
	int i = (int)(st - settings), r;
	struct tl_pos other;
	struct lex_tok v;
	char err[256];

	if (once(p, NR_STMT + i, kw))
		return -EINVAL;
	switch (st->form) {
	case SETF_LINE: return form_line(p, kw, st);
	case SETF_WORDS: return form_words(p, kw, st);
	case SETF_ARGV: return form_argv(p, kw, st);
	case SETF_OUTPUT: return form_output(p, kw, st);
	case SETF_KEEP: return keep_list(p);
	case SETF_COMPRESS: return form_compress(p, kw, st);
	default: break;
	}
	if (st->form == SETF_FLAG) {
		settings__set(p->c, st, NULL, err, sizeof(err));
		return expect_eol(p, st->usage);
	}
	if (arg(p, st->form == SETF_PATH ? LEX_SCRIPT_ARGV : LEX_SCRIPT, &v, kw->val, st->usage))
		return -EINVAL;
	/* Sizes and durations take their unit as the command line does. */
	if (st->form == SETF_UNIT)
		join_unit(p, &v);
	other = st->excludes ? stmt_seen(p, st->excludes) : (struct tl_pos){ 0 };
	err[0] = 0;
	if (other.line) {
		add_err(p->s, v.pos, "%s and %s (at %d:%d) exclude each other: %s", st->kw,
			st->excludes, other.line, other.col, st->excl_why);
		r = -EINVAL;
	} else if ((r = settings__set(p->c, st, v.val, err, sizeof(err))) == -ENOMEM) {
		nomem(p, v.pos);
	} else if (r) {
		if (st->what)
			add_err(p->s, v.pos, "%s%s", st->what, err);
		else
			add_err(p->s, v.pos, "%s: %s", st->kw, err);
	} else {
		p->s->val_pos[i] = v.pos;
	}
	lex_tok_free(&v);
	if (r) {
		lexer__skip_line(&p->lx);
		return r;
	}
	return expect_eol(p, st->usage);
}

/* compress zstd [LEVEL] | compress none */
static int form_compress(struct sp *p, const struct lex_tok *kw, const struct setting *st)
{
	struct lex_tok m, v;
	char err[256], lv[16];
	int level = 1, r = 0;

	if (arg(p, LEX_SCRIPT, &m, kw->val, st->usage))
		return -EINVAL;
	if (!strcmp(m.val, "none") || !strcmp(m.val, "off")) {
		level = 0;
	} else if (strcmp(m.val, "zstd")) {
		add_err(p->s, m.pos, "compress %s: perf.data compresses only with zstd (%s)", m.val,
			st->usage);
		r = -EINVAL;
	} else if (peek(p, LEX_SCRIPT, NULL) == LX_WORD) {
		next(p, LEX_SCRIPT, &v);
		if (config__parse_zstd_level(v.val, &level, err, sizeof(err))) {
			add_err(p->s, v.pos, "compress zstd %s", err);
			r = -EINVAL;
		}
		lex_tok_free(&v);
	}
	if (!r) {
		p->s->val_pos[st - settings] = m.pos;
		snprintf(lv, sizeof(lv), "%d", level);
		r = settings__set(p->c, st, lv, err, sizeof(err));
	}
	lex_tok_free(&m);
	if (r) {
		lexer__skip_line(&p->lx);
		return r;
	}
	return expect_eol(p, st->usage);
}

/* The rest of the line as written, up to a comment, into the row's statement parser. */
static int form_line(struct sp *p, const struct lex_tok *kw, const struct setting *st)
{
	setting_parse_fn parse = st->stmt_parse ? st->stmt_parse : st->parse;
	struct tl_pos pos;
	size_t s, e;
	char err[256], *list;
	int r;

	lexer__skip_blank(&p->lx);
	pos = lexer__pos(&p->lx);
	s = p->lx.i;
	while (p->lx.text[p->lx.i] && p->lx.text[p->lx.i] != '\n' && p->lx.text[p->lx.i] != '#')
		lexer__advance(&p->lx);
	e = p->lx.i;
	while (e > s && is_hspace((unsigned char)p->lx.text[e - 1]))
		e--;
	lexer__skip_line(&p->lx);
	list = strndup(p->lx.text + s, e - s);
	if (!list)
		return nomem(p, pos);
	err[0] = 0;
	r = parse(p->c, st, list, err, sizeof(err));
	if (r == -ENOMEM)
		nomem(p, pos);
	else if (r && e == s)
		add_err(p->s, pos, "%s", err); /* says what to write after the keyword */
	else if (r)
		add_err(p->s, pos, "%s%s%s", st->what ? st->what : kw->val, st->what ? "" : ": ",
			err);
	else
		p->s->val_pos[st - settings] = pos;
	free(list);
	return r;
}

/* The rest of the line as argv (words and strings, whitespace separated). */
static int argv_line(struct sp *p, const struct lex_tok *kw, char ***out, struct tl_pos *pos)
{
	struct tl_pos end = { 0 };
	char **v = NULL;
	int n = 0, r = 0;

	for (;;) {
		struct lex_tok t;
		char **nv;

		next(p, LEX_SCRIPT_ARGV, &t);
		if (t.kind == LX_EOL || t.kind == LX_EOF) {
			end = t.pos;
			break;
		}
		if (t.kind == LX_BAD) {
			lexer__skip_line(&p->lx);
			r = -EINVAL;
			break;
		}
		if (!n)
			*pos = t.pos;
		nv = realloc(v, (size_t)(n + 2) * sizeof(*v));
		if (!nv) {
			lex_tok_free(&t);
			r = nomem(p, t.pos);
			break;
		}
		v = nv;
		v[n++] = t.val;
		v[n] = NULL;
	}
	if (!r && !n) {
		add_err(p->s, end, "expected a program and its arguments after '%s'", kw->val);
		r = -EINVAL;
	}
	if (!r) {
		*out = config__argv_dup(v, n);
		if (!*out)
			r = nomem(p, *pos);
	}
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return r;
}

static int st_command(struct sp *p, const struct lex_tok *kw)
{
	struct tl_pos pos;

	if (once(p, ST_COMMAND, kw))
		return -EINVAL;
	if (stmt_seen(p, "pid").line) {
		add_err(p->s, kw->pos,
			"command and pid (at %d:%d) exclude each other: record one "
			"or the other",
			stmt_seen(p, "pid").line, stmt_seen(p, "pid").col);
		lexer__skip_line(&p->lx);
		return -EINVAL;
	}
	if (argv_line(p, kw, &p->c->cmd, &pos))
		return -EINVAL;
	p->s->cmd_pos = pos;
	return 0;
}

/* A program and its arguments, into a SETT_ARGV row. */
static int form_argv(struct sp *p, const struct lex_tok *kw, const struct setting *st)
{
	struct tl_pos pos;
	char **v = NULL;

	if (argv_line(p, kw, &v, &pos))
		return -EINVAL;
	settings__put_argv(p->c, st, v);
	p->s->val_pos[st - settings] = pos;
	return 0;
}

/* keep LIMIT {, LIMIT}: "50 files", "2G", "7d". */
static int keep_list(struct sp *p)
{
	static const char usage[] = "keep N files, SIZE, AGE (e.g. keep 50 files, 2G, 7d)";
	static const char *const kinds[] = { "a file count", "a size", "an age" };
	char d[64];

	for (;;) {
		struct lex_tok v, u = { 0 };
		char err[256], word[40];
		uint64_t x;
		int kind, r = 0;
		size_t n;

		if (arg(p, LEX_SCRIPT, &v, "keep", usage))
			return -EINVAL;
		n = strlen(v.val);
		word[0] = '\0';
		if (v.val[strspn(v.val, "0123456789")] == '\0' &&
		    peek(p, LEX_SCRIPT, &u) == LX_WORD && strcmp(u.val, "files") &&
		    strcmp(u.val, "file")) {
			/* "500 M", "7 d": a unit apart; "5 fils" is named if it is none. */
			snprintf(word, sizeof(word), "%s", u.val);
			lex_tok_free(&u);
			join_unit(p, &v);
			n = strlen(v.val);
		} else {
			lex_tok_free(&u);
		}
		if (v.val[strspn(v.val, "0123456789")] == '\0') {
			/* A bare number must say what it counts. */
			if (peek(p, LEX_SCRIPT, &u) != LX_WORD ||
			    (strcmp(u.val, "files") && strcmp(u.val, "file"))) {
				add_err(p->s, v.pos,
					"'%s' alone: say what to keep: %s files, a size "
					"(%sM, %sG) or an age (%sh, %sd)",
					v.val, v.val, v.val, v.val, v.val, v.val);
				lex_tok_free(&u);
				lex_tok_free(&v);
				lexer__skip_line(&p->lx);
				return -EINVAL;
			}
			lex_tok_free(&u);
			next(p, LEX_SCRIPT, &u);
			lex_tok_free(&u);
			kind = 0;
			if (parse_u64(v.val, 1, 1000000000, &x, err, sizeof(err))) {
				add_err(p->s, v.pos, "keep files: %s", err);
				r = -EINVAL;
			} else {
				p->c->keep_files = x;
			}
		} else if (n > 1 && v.val[n - 1] == 'm' && isdigit((unsigned char)v.val[n - 2])) {
			add_err(p->s, v.pos,
				"'%s' is ambiguous in keep: write %.*sM for MiB, or an age "
				"in min, h or d (%.*smin)",
				v.val, (int)n - 1, v.val, (int)n - 1, v.val);
			kind = -1;
			r = -EINVAL;
		} else if (!parse_size(v.val, &x, err, sizeof(err))) {
			kind = 1;
			p->c->keep_bytes = x;
		} else if (!parse_duration(v.val, &x, err, sizeof(err))) {
			kind = 2;
			p->c->keep_age_ns = x;
		} else if (word[0]) {
			char num[32];

			snprintf(num, sizeof(num), "%.*s", (int)strspn(v.val, "0123456789"), v.val);
			add_err(p->s, v.pos,
				"keep '%s': '%s' is not 'files', a unit of size (K, M, G) or of "
				"time (min, h, d)%s%s%s",
				v.val, word,
				edit_distance(word, "files") <= 2 ? ": did you mean '" : "",
				edit_distance(word, "files") <= 2 ? num : "",
				edit_distance(word, "files") <= 2 ? " files'?" : "");
			kind = -1;
			r = -EINVAL;
		} else {
			add_err(p->s, v.pos, "keep '%s': not a file count, a size or an age (%s)",
				v.val, usage);
			kind = -1;
			r = -EINVAL;
		}
		if (kind >= 0 && !r) {
			if (p->keep_pos[kind].line) {
				add_err(p->s, v.pos, "keep gives %s twice (first at %d:%d)",
					kinds[kind], p->keep_pos[kind].line, p->keep_pos[kind].col);
				r = -EINVAL;
			} else {
				p->keep_pos[kind] = v.pos;
			}
		}
		lex_tok_free(&v);
		if (r) {
			lexer__skip_line(&p->lx);
			return r;
		}
		next(p, LEX_SCRIPT, &u);
		if (is_punct(&u, P_COMMA)) {
			while (peek(p, LEX_SCRIPT, NULL) == LX_EOL)
				lexer__skip_line(&p->lx);
			continue;
		}
		if (u.kind == LX_EOL || u.kind == LX_EOF)
			return 0;
		if (u.kind != LX_BAD)
			add_err(p->s, u.pos,
				"expected ',' or the end of the line in keep, got %s (%s)",
				desc(&u, p, d, sizeof(d)), usage);
		lex_tok_free(&u);
		lexer__skip_line(&p->lx);
		return -EINVAL;
	}
}

static int form_output(struct sp *p, const struct lex_tok *kw, const struct setting *st)
{
	const struct setting *keep = settings__by_kw("keep");
	struct tl_pos *keep_seen = &p->seen[NR_STMT + (keep - settings)];
	struct lex_tok v, t;
	char d[64], err[256];
	int r = 0;

	if (arg(p, LEX_SCRIPT_ARGV, &v, kw->val, st->usage))
		return -EINVAL;
	p->s->outdir_pos = v.pos;
	p->s->val_pos[st - settings] = v.pos;
	err[0] = 0;
	r = settings__set(p->c, st, v.val, err, sizeof(err));
	if (r == -ENOMEM)
		nomem(p, v.pos);
	else if (r)
		add_err(p->s, v.pos, "%s: %s", kw->val, err);
	lex_tok_free(&v);
	if (r) {
		lexer__skip_line(&p->lx);
		return r;
	}
	next(p, LEX_SCRIPT, &t);
	if (t.kind == LX_EOL || t.kind == LX_EOF)
		return 0;
	if (t.kind == LX_WORD && !strcmp(t.val, "keep")) {
		if (keep_seen->line) {
			add_err(p->s, t.pos, "keep given twice (first at %d:%d): give it once",
				keep_seen->line, keep_seen->col);
			lex_tok_free(&t);
			lexer__skip_line(&p->lx);
			return -EINVAL;
		}
		*keep_seen = t.pos;
		lex_tok_free(&t);
		return keep_list(p);
	}
	if (t.kind != LX_BAD)
		add_err(p->s, t.pos,
			"unexpected %s after the output directory: the statement is "
			"'%s' (quote a directory with spaces)",
			desc(&t, p, d, sizeof(d)), st->usage);
	lex_tok_free(&t);
	lexer__skip_line(&p->lx);
	return -EINVAL;
}

/* The line's words (and strings) joined by blanks, into the row's parser: budget 10/min, 60/hour. */
static int form_words(struct sp *p, const struct lex_tok *kw, const struct setting *st)
{
	char joined[256] = "", err[256];
	struct lex_tok v;
	struct tl_pos at;
	int r;

	if (arg(p, LEX_SCRIPT_ARGV, &v, kw->val, st->usage))
		return -EINVAL;
	at = v.pos;
	for (;;) {
		if (strlen(joined) + strlen(v.val) + 2 < sizeof(joined)) {
			strcat(joined, v.val);
			strcat(joined, " ");
		}
		lex_tok_free(&v);
		if (peek(p, LEX_SCRIPT_ARGV, NULL) == LX_EOL ||
		    peek(p, LEX_SCRIPT_ARGV, NULL) == LX_EOF)
			break;
		if (arg(p, LEX_SCRIPT_ARGV, &v, kw->val, st->usage))
			return -EINVAL;
	}
	err[0] = 0;
	r = settings__set(p->c, st, joined, err, sizeof(err));
	if (r == -ENOMEM)
		nomem(p, at);
	else if (r)
		add_err(p->s, at, "%s%s%s", st->what ? st->what : kw->val, st->what ? "" : ": ",
			err);
	if (r) {
		lexer__skip_line(&p->lx);
		return r;
	}
	p->s->val_pos[st - settings] = at;
	return expect_eol(p, st->usage);
}

/* A trigger body for reports: one line, comments dropped, blanks squeezed. */
static char *flatten(const char *b)
{
	char *out = malloc(strlen(b) + 1), q = 0;
	size_t n = 0;

	if (!out)
		return NULL;
	for (; *b; b++) {
		if (q) {
			out[n++] = *b;
			if (*b == '\\' && b[1] && b[1] != '\n')
				out[n++] = *++b;
			else if (*b == q || *b == '\n')
				q = 0;
			continue;
		}
		if (*b == '#') {
			while (b[1] && b[1] != '\n')
				b++;
			continue;
		}
		if (isspace((unsigned char)*b)) {
			if (n && out[n - 1] != ' ')
				out[n++] = ' ';
			continue;
		}
		if (*b == '"' || *b == '\'')
			q = *b;
		out[n++] = *b;
	}
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	return out;
}

/*
 * From just after '{' to the matching '}', skipping strings (which end at
 * a newline, as the trigger lexer's do) and comments. -1 if never closed.
 */
static int find_close(struct sp *p, const struct tl_pos *open, const char *name)
{
	char q = 0;
	int depth = 0, nested = 0;

	for (;;) {
		char c = p->lx.text[p->lx.i];

		if (!c)
			return -1;
		if (q) {
			if (c == '\\' && p->lx.text[p->lx.i + 1] && p->lx.text[p->lx.i + 1] != '\n')
				lexer__advance(&p->lx);
			else if (c == q || c == '\n')
				q = 0;
			lexer__advance(&p->lx);
			continue;
		}
		if (c == '#') {
			while (p->lx.text[p->lx.i] && p->lx.text[p->lx.i] != '\n')
				lexer__advance(&p->lx);
			continue;
		}
		if (c == '"' || c == '\'')
			q = c;
		else if (c == '}' && !depth)
			return nested;
		else if (c == '}')
			depth--;
		else if (c == '{' && !nested++ && ++depth)
			add_err(p->s, lexer__pos(&p->lx),
				"'{' inside trigger '%s' (opened at %d:%d): triggers do "
				"not nest, and a trigger has no braces of its own",
				name, open->line, open->col);
		else if (c == '{')
			depth++;
		lexer__advance(&p->lx);
	}
}

static int trigger_name_seen(struct sp *p, const char *name, struct tl_pos pos)
{
	void *nn;

	for (int i = 0; i < p->nr_names; i++) {
		if (!strcmp(p->names[i].name, name)) {
			add_err(p->s, pos,
				"a trigger named '%s' is already defined at %d:%d: trigger "
				"names must differ (they name the snapshot files)",
				name, p->names[i].pos.line, p->names[i].pos.col);
			return -EINVAL;
		}
	}
	nn = realloc(p->names, (size_t)(p->nr_names + 1) * sizeof(*p->names));
	if (!nn)
		return nomem(p, pos);
	p->names = nn;
	snprintf(p->names[p->nr_names].name, sizeof(p->names[0].name), "%s", name);
	p->names[p->nr_names++].pos = pos;
	return 0;
}

/* The compiled trigger into the config, with the run's limits. */
static int add_trigger(struct sp *p, struct trig_def *d, const struct lex_tok *nm)
{
	struct cfg_origin o = { .file = p->c->script_path,
				.line = nm->pos.line,
				.col = nm->pos.col };

	if (d->manual)
		return config__add_trigger(p->c, d, &o) ? nomem(p, nm->pos) : 0;
	if (++p->kernel_trigs > TRIGREC_MAX_TRIGGERS) {
		add_err(p->s, nm->pos,
			"trigger '%s' is one too many: a run has at most %d "
			"triggers (TRIGREC_MAX_TRIGGERS); manual ones do not count",
			d->name, TRIGREC_MAX_TRIGGERS);
		return -E2BIG;
	}
	for (int role = 0; role < 2; role++)
		if (d->event[role][0] &&
		    count_hooks(p, d->event[role], 1, 0, NULL, nm->pos, d->name))
			return -E2BIG;
	return config__add_trigger(p->c, d, &o) ? nomem(p, nm->pos) : 0;
}

static int st_trigger(struct sp *p, const struct lex_tok *kw)
{
	static const char usage[] = "trigger NAME { TRIGGER }";
	struct lex_tok nm, br;
	struct tl_pos open, body_pos, npos;
	struct tl_error e;
	struct trig_ast *a = NULL;
	struct trig_def def;
	char d[64], *body = NULL, *flat = NULL;
	size_t bs, be;
	int r = -EINVAL, closed;

	next(p, LEX_SCRIPT, &nm);
	if (nm.kind != LX_WORD && nm.kind != LX_STR) {
		if (nm.kind != LX_BAD)
			add_err(p->s, nm.pos,
				"expected the trigger's name after 'trigger', got %s: "
				"%s",
				desc(&nm, p, d, sizeof(d)),
				is_punct(&nm, P_LBRACE) ?
					"a trigger needs a name (it names the snapshot files)" :
					usage);
		if (!is_punct(&nm, P_LBRACE)) {
			lex_tok_free(&nm);
			if (nm.kind != LX_EOL)
				lexer__skip_line(&p->lx);
			return -EINVAL;
		}
		br = nm;
		nm.val = NULL;
		goto body;
	}
	if (!valid_name(nm.val, 63))
		add_err(p->s, nm.pos,
			"trigger name '%.*s': 1 to 63 characters from A-Z a-z 0-9 _ . - "
			"(it names the snapshot files)",
			64, nm.val);
	else
		trigger_name_seen(p, nm.val, nm.pos);
	next(p, LEX_SCRIPT, &br);
	/* The '{' may start the next line. */
	while (br.kind == LX_EOL) {
		struct lex_tok nx;
		int brace = peek(p, LEX_SCRIPT, &nx) == LX_PUNCT && nx.p == P_LBRACE;

		lex_tok_free(&nx);
		if (!brace)
			break;
		next(p, LEX_SCRIPT, &br);
	}
body:
	if (!is_punct(&br, P_LBRACE)) {
		if (br.kind != LX_BAD)
			add_err(p->s, br.pos,
				"expected '{' after 'trigger %s', got %s: the statement "
				"is '%s'",
				nm.val ? nm.val : "", desc(&br, p, d, sizeof(d)), usage);
		if (br.kind != LX_EOL)
			lexer__skip_line(&p->lx);
		goto out;
	}
	open = br.pos;
	body_pos = lexer__pos(&p->lx);
	bs = p->lx.i;
	closed = find_close(p, &open, nm.val ? nm.val : "");
	be = p->lx.i;
	if (closed < 0) {
		add_err(p->s, open,
			"the '{' of trigger '%s' is never closed: add '}' after its "
			"body",
			nm.val ? nm.val : "");
		goto out;
	}
	lexer__advance(&p->lx); /* '}' */
	{
		struct lex_tok t;

		next(p, LEX_SCRIPT, &t);
		if (t.kind != LX_EOL && t.kind != LX_EOF) {
			if (t.kind != LX_BAD)
				add_err(p->s, t.pos,
					"unexpected %s after the '}' of trigger '%s': start "
					"the next statement on a new line",
					desc(&t, p, d, sizeof(d)), nm.val ? nm.val : "");
			lexer__skip_line(&p->lx);
		}
		lex_tok_free(&t);
	}
	if (closed || !nm.val)
		goto out;
	if (be - bs > SCRIPT_MAX_TRIGGER) {
		add_err(p->s, open, "the body of trigger '%s' is %zu bytes: at most %d", nm.val,
			be - bs, SCRIPT_MAX_TRIGGER);
		goto out;
	}
	body = strndup(p->lx.text + bs, be - bs);
	flat = body ? flatten(body) : NULL;
	if (!flat) {
		r = nomem(p, open);
		goto out;
	}
	a = trig_parse(body, body_pos.line, body_pos.col, &e);
	if (!a) {
		add_tl_err(p->s, &e);
		goto out;
	}
	if (trig_compile_with(a, flat, script_events(), &def, &e)) {
		if (!absent_binary(p->s, e.pos, "trigger", e.msg))
			add_tl_err(p->s, &e);
		goto out;
	}
	/* `name` in the body may only repeat the block's (as --dump-script writes it). */
	if (trig_ast_name_pos(a, &npos) && strcmp(def.name, nm.val)) {
		add_err(p->s, npos,
			"'name %s' inside trigger '%s': the block already names it; "
			"drop this option",
			def.name, nm.val);
		goto out;
	}
	snprintf(def.name, sizeof(def.name), "%s", nm.val);
	r = add_trigger(p, &def, &nm);
out:
	trig_ast_free(a);
	free(body);
	free(flat);
	lex_tok_free(&nm);
	lex_tok_free(&br);
	return r;
}

/* The script's body (not settings); the settings table's rows are the other statements. */
static const struct stmt {
	const char *kw;
	enum stmt_id id;
	int (*fn)(struct sp *p, const struct lex_tok *kw);
} stmts[] = {
	{ "record", ST_RECORD, st_record },
	{ "command", ST_COMMAND, st_command },
	{ "trigger", ST_TRIGGER, st_trigger },
};
#define NR_STMTS (sizeof(stmts) / sizeof(stmts[0]))

static struct tl_pos stmt_seen(const struct sp *p, const char *kw)
{
	const struct setting *st = settings__by_kw(kw);

	if (st)
		return p->seen[NR_STMT + (st - settings)];
	for (size_t i = 0; i < NR_STMTS; i++)
		if (!strcmp(stmts[i].kw, kw))
			return p->seen[stmts[i].id];
	return (struct tl_pos){ 0 };
}

/*
 * The k-th statement keyword in the order the language lists them: record,
 * the table's rows, then the others; NULL past the last.
 */
static const char *stmt_kw(int k)
{
	if (k == 0)
		return stmts[0].kw;
	k--;
	for (int i = 0; i < nr_settings; i++)
		if (settings[i].kw && !k--)
			return settings[i].kw;
	return k + 1 < (int)NR_STMTS ? stmts[k + 1].kw : NULL;
}

/* Words people bring from the command line or other tools. */
static const struct {
	const char *w;
	const char *kw;
} aliases[] = {
	{ "-e", "record" },
	{ "--event", "record" },
	{ "event", "record" },
	{ "events", "record" },
	{ "--trigger", "trigger NAME { ... }" },
	{ "--compression-level", "compress zstd LEVEL" },
	{ "compression", "compress zstd" },
	{ "zstd", "compress zstd" },
};

/*
 * What a row tells a word brought from the command line to write instead:
 * its flag's spellings (-F, --freq, freq; mmap-pages, mmap_pages) the row's
 * alias_to or keyword, its more aliases the keyword. NULL when w is none.
 */
static const char *setting_alias(const struct setting *st, const char *w)
{
	const char *to = st->alias_to ? st->alias_to : st->kw ? st->kw : st->in_stmt;
	size_t n = strlen(w), k = 0;

	if (!to)
		return NULL;
	if (st->short_name && w[0] == '-' && w[1] == st->short_name && !w[2])
		return to;
	if (st->name && !strncmp(w, "--", 2) && !strcmp(w + 2, st->name))
		return to;
	/* The long name without its dashes, '-' or '_' between words. */
	while (st->name && st->name[k] &&
	       (w[k] == st->name[k] || (w[k] == '_' && st->name[k] == '-')))
		k++;
	if (st->name && !st->name[k] && !w[k])
		return to;
	for (const char *a = st->aliases; a && *a; a += strspn(a, " ")) {
		size_t l = strcspn(a, " ");

		if (l == n && !strncmp(a, w, n))
			return st->kw;
		a += l;
	}
	return NULL;
}

static void unknown_statement(struct sp *p, const struct lex_tok *t)
{
	const char *best = NULL;
	int bestd = 1 + ((int)strlen(t->val) / 3 > 1 ? (int)strlen(t->val) / 3 : 1);
	char d[64];

	if (strpbrk(t->val, ":/") || rec_sw_event_find(t->val) >= 0) {
		add_err(p->s, t->pos,
			"an event at the start of a line: record it with 'record %s', "
			"or trigger on it with 'trigger NAME { on %s }'",
			t->val, t->val);
		return;
	}
	if (!strcmp(t->val, "on") || !strcmp(t->val, "latency") || !strcmp(t->val, "rate") ||
	    !strcmp(t->val, "manual")) {
		add_err(p->s, t->pos,
			"'%s' at the start of a line: a trigger goes in a block, "
			"'trigger NAME { %s ... }'",
			t->val, t->val);
		return;
	}
	if (!strcmp(t->val, "filter") || !strcmp(t->val, "--filter")) {
		add_err(p->s, t->pos,
			"a kernel filter follows its event: 'record EVENT if FILTER'");
		return;
	}
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		if (!strcmp(t->val, aliases[i].w)) {
			add_err(p->s, t->pos, "unknown statement '%s': in a script, write '%s'",
				t->val, aliases[i].kw);
			return;
		}
	}
	for (int i = 0; i < nr_settings; i++) {
		const struct setting *st = &settings[i];
		const char *to = setting_alias(st, t->val);

		if (!st->kw && !st->in_stmt && st->name &&
		    !strcmp(t->val + (strncmp(t->val, "--", 2) ? 0 : 2), st->name)) {
			if (st->run)
				add_err(p->s, t->pos,
					"'%s' has no statement: give it on the command line, "
					"trigrec run FILE --%s%s%s",
					t->val, st->name, st->arg ? " " : "",
					st->arg ? st->arg : "");
			else
				add_err(p->s, t->pos,
					"'%s' has no statement: it is an option of trigrec record "
					"only (--%s)",
					t->val, st->name);
			return;
		}
		if (to) {
			add_err(p->s, t->pos, "unknown statement '%s': in a script, write '%s'",
				t->val, to);
			return;
		}
	}
	for (int k = 0; stmt_kw(k); k++) {
		int dd = edit_distance(t->val, stmt_kw(k));

		if (dd < bestd) {
			bestd = dd;
			best = stmt_kw(k);
		}
	}
	if (best) {
		add_err(p->s, t->pos, "unknown statement %s (did you mean '%s'?)",
			desc(t, p, d, sizeof(d)), best);
	} else {
		char list[1024] = "";
		size_t o = 0;

		for (int k = 0; stmt_kw(k) && o < sizeof(list); k++)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s",
					      !k	     ? "" :
					      stmt_kw(k + 1) ? ", " :
							       " and ",
					      stmt_kw(k));
		add_err(p->s, t->pos, "unknown statement %s: statements are %s",
			desc(t, p, d, sizeof(d)), list);
	}
}

int script__parse(struct script *s, struct trigrec_config *c)
{
	struct sp p = { .s = s, .c = c };
	char err[512];

	lexer__init(&p.lx, s->text, s->len, 1, 1, LEX_SCRIPT);
	if (check_text(s))
		return s->nr_errs;
	if (config__set_str(&c->script_path, s->path)) {
		add_err(s, (struct tl_pos){ 1, 1 }, "out of memory");
		return s->nr_errs;
	}
	while (!s->full) {
		const struct stmt *st = NULL;
		const struct setting *row;
		struct lex_tok t;
		char d[64];

		next(&p, LEX_SCRIPT, &t);
		if (t.kind == LX_EOF)
			break;
		if (t.kind == LX_EOL || t.kind == LX_BAD) {
			if (t.kind == LX_BAD)
				lexer__skip_line(&p.lx);
			continue;
		}
		if (t.kind != LX_WORD) {
			add_err(s, t.pos,
				"expected a statement (record, trigger, output, ...), got %s",
				desc(&t, &p, d, sizeof(d)));
			lex_tok_free(&t);
			lexer__skip_line(&p.lx);
			continue;
		}
		for (size_t i = 0; i < NR_STMTS; i++)
			if (!strcmp(t.val, stmts[i].kw))
				st = &stmts[i];
		row = st ? NULL : settings__by_kw(t.val);
		if (!st && !row) {
			unknown_statement(&p, &t);
			lexer__skip_line(&p.lx);
		} else if ((st ? st->fn(&p, &t) : st_setting(&p, &t, row)) == -ENOMEM) {
			lex_tok_free(&t);
			break;
		}
		lex_tok_free(&t);
	}
	/* Without a `record` line, config__finalize() records the default set. */
	if (!s->nr_errs && config__finalize(c, err, sizeof(err)))
		add_err(s, (struct tl_pos){ 1, 1 }, "%s", err);
	free(p.names);
	free(p.hooks);
	return s->nr_errs;
}

/* ------------------------------------------------------------------ */
/* This host                                                            */

/* Can execvp() run it? "" when yes, else why not. */
static const char *runnable(const char *cmd, char *why, size_t len)
{
	const char *path = getenv("PATH"), *p;
	char buf[PATH_MAX];

	if (strchr(cmd, '/')) {
		struct stat st;

		if (stat(cmd, &st))
			/* NOLINTNEXTLINE(bugprone-branch-clone): each failing call, its own errno */
			snprintf(why, len, "%s", strerror(errno));
		else if (S_ISDIR(st.st_mode))
			snprintf(why, len, "it is a directory");
		else if (access(cmd, X_OK))
			snprintf(why, len, "%s", strerror(errno));
		else
			why[0] = '\0';
		return why;
	}
	for (p = path ? path : "/usr/bin:/bin"; p && *p;) {
		const char *e = strchr(p, ':');
		int n = e ? (int)(e - p) : (int)strlen(p);
		struct stat st;

		snprintf(buf, sizeof(buf), "%.*s/%s", n, n ? p : ".", cmd);
		if (!stat(buf, &st) && !S_ISDIR(st.st_mode) && !access(buf, X_OK)) {
			why[0] = '\0';
			return why;
		}
		p = e ? e + 1 : NULL;
	}
	snprintf(why, len, "not found in PATH");
	return why;
}

/* Where the value of the settings row of statement kw was written (line 0: not in the script). */
static struct tl_pos row_pos(const struct script *s, const char *kw)
{
	const struct setting *st = settings__by_kw(kw);

	return st ? s->val_pos[st - settings] : (struct tl_pos){ 0 };
}

static struct tl_pos pos_or_top(struct tl_pos p)
{
	return p.line > 0 ? p : (struct tl_pos){ 1, 1 };
}

/* The directory a file will be created in exists. */
static void dir_exists(struct script *s, const char *path, struct tl_pos pos, const char *what)
{
	char *dir = strdup(path), *sl;
	struct stat st;

	if (!dir)
		return;
	sl = strrchr(dir, '/');
	if (sl) {
		if (sl == dir)
			sl[1] = '\0';
		else
			*sl = '\0';
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			add_err(s, pos_or_top(pos), "%s %s: directory %s does not exist", what,
				path, dir);
	}
	free(dir);
}

struct cg_check {
	struct script *s;
	const struct trigrec_config *c;
};

/* Where a cgroup message points: the condition's string, else the first one's. */
static void cg_check_report(void *ctx, int is_err, int t, int i, const char *msg)
{
	struct cg_check *cc = ctx;
	struct tl_pos pos = { 0, 0 };

	if (t < 0) {
		for (int k = 0; k < cc->c->nr_trigs && !pos.line; k++)
			if (cc->c->trigs[k].nr_cg)
				pos = cc->c->trigs[k].cg[0].pos;
	} else {
		pos = cc->c->trigs[t].cg[i].pos;
	}
	pos = pos_or_top(pos);
	if (is_err || !cc->s->absent_ok)
		add_err(cc->s, pos, "%s", msg);
	else
		add_warn(cc->s, pos, "warning: %s (check --strict makes it an error)", msg);
}

/* The triggers' cgroup paths against this host's cgroup2 tree, as `run` resolves them. */
static void check_cgroup_paths(struct script *s, const struct trigrec_config *c)
{
	struct cg_check cc = { s, c };
	struct cgsel cs;
	char root[4096];

	if (!cgsel_count(c->trigs, c->nr_trigs))
		return;
	cgsel_mount(root, sizeof(root));
	if (cgsel_resolve(c->trigs, c->nr_trigs, root, &cs, cg_check_report, &cc) < 0)
		add_err(s, pos_or_top((struct tl_pos){ 0, 0 }), "out of memory resolving cgroups");
	cgsel_free(&cs);
}

int script__check_host(struct script *s, const struct trigrec_config *c)
{
	int before = s->nr_errs;
	struct stat st;
	char why[256];

	if (c->outdir && s->outdir_pos.line) {
		char ow[PATH_MAX + 256];
		int missing;

		if (!stat(c->outdir, &st)) {
			/* As `run` finds it: a test file must be made and removed there. */
			if (dir_check_writable(c->outdir, &missing, ow, sizeof(ow)))
				add_err(s, s->outdir_pos, "output directory: %s", ow);
		} else if (errno != ENOENT) {
			add_err(s, s->outdir_pos, "output directory %s: %s", c->outdir,
				strerror(errno));
		} else {
			/* trigrec creates the last component only. */
			char *parent = strdup(c->outdir), *sl;

			if (parent) {
				while (strlen(parent) > 1 && parent[strlen(parent) - 1] == '/')
					parent[strlen(parent) - 1] = '\0';
				sl = strrchr(parent, '/');
				if (!sl)
					strcpy(parent, ".");
				else if (sl == parent)
					sl[1] = '\0';
				else
					*sl = '\0';
				/* trigrec makes its state directory too (snapshot/outdir.h). */
				if (!strcmp(parent, OUTDIR_STATE_DIR) && stat(parent, &st) &&
				    errno == ENOENT)
					strcpy(parent, "/var/lib");
				if (stat(parent, &st) || !S_ISDIR(st.st_mode))
					add_err(s, s->outdir_pos,
						"output directory %s does not exist, and "
						"neither does its parent %s: trigrec creates only the last "
						"directory (mkdir -p %s first)",
						c->outdir, parent, parent);
				else if (access(parent, W_OK | X_OK))
					add_err(s, s->outdir_pos,
						"output directory %s does not exist and "
						"cannot be created in %s: %s",
						c->outdir, parent, strerror(errno));
				free(parent);
			}
		}
	}
	if (c->cgroup) {
		struct statfs sf;

		if (stat(c->cgroup, &st) || !S_ISDIR(st.st_mode))
			add_err(s, pos_or_top(row_pos(s, "cgroup")), "cgroup %s: %s", c->cgroup,
				errno && !S_ISDIR(st.st_mode) ? "not a directory" :
								strerror(errno));
		else if (statfs(c->cgroup, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC)
			add_err(s, pos_or_top(row_pos(s, "cgroup")),
				"cgroup %s is not in a cgroup v2 "
				"hierarchy (cgroup2 is usually mounted at /sys/fs/cgroup)",
				c->cgroup);
	}
	if (c->cmd && c->cmd[0] && runnable(c->cmd[0], why, sizeof(why))[0])
		add_err(s, pos_or_top(s->cmd_pos), "cannot run %s: %s", c->cmd[0], why);
	if (c->on_snapshot && c->on_snapshot[0] && runnable(c->on_snapshot[0], why, sizeof(why))[0])
		add_err(s, pos_or_top(row_pos(s, "on_snapshot")), "on_snapshot: cannot run %s: %s",
			c->on_snapshot[0], why);
	if (c->on_snapshot && c->on_snapshot_user) {
		struct hook_cred hc;

		if (hook_user_resolve(c->on_snapshot_user, &hc, why, sizeof(why)))
			add_err(s, pos_or_top(row_pos(s, "on_snapshot_user")),
				"on_snapshot_user: %s", why);
	}
	if (c->pid) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d", (int)c->pid);
		if (access(path, F_OK))
			add_err(s, pos_or_top(row_pos(s, "pid")), "pid %d: no such process",
				(int)c->pid);
	}
	if (c->control)
		dir_exists(s, c->control, row_pos(s, "control"), "control socket");
	if (c->metrics_file)
		dir_exists(s, c->metrics_file, row_pos(s, "metrics_file"), "metrics_file");
	check_cgroup_paths(s, c);
	return s->nr_errs - before;
}
