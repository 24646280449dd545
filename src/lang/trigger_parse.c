// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The trigger language's parser: text -> tokens (lang/lexer.c, LEX_TRIGGER)
 * -> AST (lang/trigger_int.h). trigger_compile.c turns the AST into tables.
 *
 * Everything the user can get wrong is reported with the line:col of the
 * offending token and a message saying how to fix it. Grammar and semantics
 * are documented in docs/triggers.md; keep the two in step.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lang/lexer.h"
#include "lang/trigger_int.h"
#include "lang/trigger_lang.h"
#include "util/util.h"

/* ------------------------------------------------------------------ */
/* Tokens (lang/lexer.c, LEX_TRIGGER)                                   */

/* The whole trigger's tokens, ending with LX_EOF: the parser looks ahead freely. */
struct toks {
	struct lex_tok *t;
	int n, cap;
};

static void toks_free(struct lex_tok *t, int n)
{
	for (int i = 0; i < n; i++)
		lex_tok_free(&t[i]);
	free(t);
}

static int lex(const char *text, int first_line, int first_col, struct toks *tk,
	       struct tl_error *err)
{
	struct lexer lx;
	int ret;

	memset(tk, 0, sizeof(*tk));
	lexer__init(&lx, text, strlen(text), first_line, first_col, LEX_TRIGGER);
	for (;;) {
		if (tk->n == tk->cap) {
			int cap = tk->cap ? tk->cap * 2 : 32;
			struct lex_tok *t = realloc(tk->t, (size_t)cap * sizeof(*t));

			if (!t) {
				tl_set_err(err, lexer__pos(&lx), "out of memory");
				return -ENOMEM;
			}
			tk->t = t;
			tk->cap = cap;
		}
		ret = lexer__next(&lx, &tk->t[tk->n], err);
		if (ret)
			return ret;
		if (tk->t[tk->n++].kind == LX_EOF)
			return 0;
	}
}

/* ------------------------------------------------------------------ */
/* AST                                                                  */

static void node_free(struct tl_node *n)
{
	if (!n)
		return;
	node_free(n->l);
	node_free(n->r);
	free(n->sval);
	free(n);
}

void trig_ast_free(struct trig_ast *a)
{
	if (!a)
		return;
	for (int i = 0; i < 2; i++)
		node_free(a->side[i].filter);
	node_free(a->both);
	free(a);
}

/* ------------------------------------------------------------------ */
/* Parser                                                               */

struct parser {
	struct lex_tok *t;
	int n, i;
	struct tl_error *err;
	int depth;
	int nodes; /* allocated so far, against TL_MAX_NODES */
};

static struct lex_tok *cur(struct parser *ps)
{
	return &ps->t[ps->i];
}

static struct lex_tok *peek(struct parser *ps, int k)
{
	int j = ps->i + k;

	return &ps->t[j < ps->n ? j : ps->n - 1];
}

static int is_punct(const struct lex_tok *t, enum lex_punct p)
{
	return t->kind == LX_PUNCT && t->p == p;
}

static int is_word(const struct lex_tok *t, const char *w)
{
	return t->kind == LX_WORD && strlen(w) == t->len && !memcmp(t->s, w, t->len);
}

/* A short quote of a token for messages. */
static const char *tok_desc(const struct lex_tok *t, char *buf, size_t len)
{
	if (t->kind == LX_EOF)
		snprintf(buf, len, "the end of the trigger");
	else
		snprintf(buf, len, "'%.*s'", t->len > 40 ? 40 : (int)t->len, t->s);
	return buf;
}

static int __attribute__((format(printf, 3, 4)))
perr(struct parser *ps, struct tl_pos pos, const char *fmt, ...)
{
	va_list ap;

	ps->err->pos = pos;
	va_start(ap, fmt);
	vseterr(ps->err->msg, sizeof(ps->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Copy a WORD token into dst (size len); error if it does not fit. */
static int word_copy(struct parser *ps, const struct lex_tok *t, char *dst, size_t len,
		     const char *what)
{
	if (t->len >= len)
		return perr(ps, t->pos, "%s too long (%zu characters; at most %zu)", what, t->len,
			    len - 1);
	memcpy(dst, t->s, t->len);
	dst[t->len] = '\0';
	return 0;
}

/* INT token: decimal or 0x hex, into *v. Errors name `what`. */
static int parse_int_tok(struct parser *ps, const struct lex_tok *t, uint64_t *v, const char *what)
{
	char buf[64], err[160];

	if (t->kind != LX_NUM) {
		char d[64];

		return perr(ps, t->pos, "expected %s (a number), got %s", what,
			    tok_desc(t, d, sizeof(d)));
	}
	if (t->len >= sizeof(buf))
		return perr(ps, t->pos, "%s: number too long", what);
	memcpy(buf, t->s, t->len);
	buf[t->len] = '\0';
	if (parse_u64(buf, 0, UINT64_MAX, v, err, sizeof(err))) {
		if (strpbrk(buf, "gGhkKlmMnpqrstuvwyzZ.") && !(buf[1] == 'x' || buf[1] == 'X'))
			return perr(ps, t->pos, "%s must be a whole number, not '%s'", what, buf);
		return perr(ps, t->pos, "%s: %s", what, err);
	}
	return 0;
}

/* INT in [min, max]. */
static int parse_int_range(struct parser *ps, uint64_t min, uint64_t max, uint64_t *v,
			   const char *what)
{
	struct lex_tok *t = cur(ps);

	if (is_punct(t, P_MINUS))
		return perr(ps, t->pos, "%s cannot be negative (at least %llu)", what,
			    (unsigned long long)min);
	if (parse_int_tok(ps, t, v, what))
		return -EINVAL;
	if (*v < min || *v > max) {
		if (max == UINT64_MAX)
			return perr(ps, t->pos, "%s %.*s is out of range: it must be at least %llu",
				    what, (int)t->len, t->s, (unsigned long long)min);
		return perr(ps, t->pos, "%s %.*s is out of range: use %llu to %llu", what,
			    (int)t->len, t->s, (unsigned long long)min, (unsigned long long)max);
	}
	ps->i++;
	return 0;
}

/*
 * The number and unit of a duration written with a space ("50 ms"), as one
 * string: the unit is joined only when the next word is one parse_duration
 * knows (or refuses by name, as "M"), so "> 50 post 10ms" still says that
 * 50 lacks a unit.
 */
static int is_unit_word(const struct lex_tok *u)
{
	char one[32];
	uint64_t ns;

	if (u->kind != LX_WORD || u->len > 20)
		return 0;
	if (u->len == 1 && (u->s[0] == 'm' || u->s[0] == 'M'))
		return 1;
	/* Any case of a unit ("MS", "Min") is joined, so its error names it. */
	one[0] = '1';
	for (size_t i = 0; i < u->len; i++)
		one[i + 1] = (char)tolower((unsigned char)u->s[i]);
	one[u->len + 1] = '\0';
	return !parse_duration(one, &ns, NULL, 0);
}

static int dur_text(struct parser *ps, struct lex_tok *t, char *buf, size_t len, int *ntok)
{
	struct lex_tok *u = peek(ps, 1);

	*ntok = 1;
	if (t->len >= len)
		return -1;
	memcpy(buf, t->s, t->len);
	buf[t->len] = '\0';
	if (strspn(buf, "0123456789.") != t->len || !is_unit_word(u))
		return 0;
	if (t->len + 1 + u->len >= len)
		return -1;
	snprintf(buf + t->len, len - t->len, " %.*s", (int)u->len, u->s);
	*ntok = 2;
	return 0;
}

/* DURATION token(s), via parse_duration so units match the command line. */
static int parse_dur(struct parser *ps, uint64_t *ns, const char *what)
{
	struct lex_tok *t = cur(ps);
	char buf[64], err[200], d[64];
	int ntok;

	if (is_punct(t, P_MINUS))
		return perr(ps, t->pos, "%s cannot be negative", what);
	if (t->kind != LX_NUM)
		return perr(ps, t->pos,
			    "expected %s (a duration such as 10ms, 1.5s or 2min), got %s", what,
			    tok_desc(t, d, sizeof(d)));
	if (dur_text(ps, t, buf, sizeof(buf), &ntok))
		return perr(ps, t->pos, "%s: duration too long", what);
	if (parse_duration(buf, ns, err, sizeof(err)))
		return perr(ps, t->pos, "%s: %s", what, err);
	ps->i += ntok;
	return 0;
}

/* PERIOD: a duration, or a unit word meaning one of it ("min", "hour", "s"). */
static int parse_period_tok(struct parser *ps, uint64_t *ns, const char *what)
{
	struct lex_tok *t = cur(ps);
	char buf[32], err[200];

	if (t->kind == LX_WORD) {
		if (t->len >= sizeof(buf))
			return perr(ps, t->pos,
				    "%s: unknown period '%.*s' (use a duration such as "
				    "30s, or s, min, hour)",
				    what, 20, t->s);
		memcpy(buf, t->s, t->len);
		buf[t->len] = '\0';
		if (parse_period(buf, ns, err, sizeof(err)))
			return perr(ps, t->pos,
				    "%s: unknown period '%s' (use a duration such as 30s, "
				    "or s, min, hour)",
				    what, buf);
		ps->i++;
		return 0;
	}
	return parse_dur(ps, ns, what);
}

/*
 * The tree is walked recursively when compiled and freed: its size is
 * bounded here, so no input can exhaust the stack.
 */
static struct tl_node *node_new(struct parser *ps, enum nkind k)
{
	struct tl_node *n;

	if (++ps->nodes > TL_MAX_NODES) {
		perr(ps, cur(ps)->pos,
		     "condition too large: more than %d terms (comparisons, &&, "
		     "||, !) in one trigger (TL_MAX_NODES); a side compiles at most %d comparisons "
		     "(TRIGREC_MAX_CLAUSES)",
		     TL_MAX_NODES, TRIGREC_MAX_CLAUSES);
		return NULL;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		perr(ps, cur(ps)->pos, "out of memory");
	else
		n->kind = k;
	return n;
}

static int is_cmp_op(const struct lex_tok *t)
{
	if (t->kind != LX_PUNCT)
		return 0;
	switch (t->p) {
	case P_EQ:
	case P_NE:
	case P_LT:
	case P_LE:
	case P_GT:
	case P_GE:
	case P_BITAND:
	case P_TILDE:
	case P_NTILDE: return 1;
	default: return 0;
	}
}

static struct tl_node *parse_or(struct parser *ps);

/*
 * `str ( FIELD )` at the cursor: *skip = tokens before FIELD's closing ')'
 * and *field = FIELD. 0 = not a call (skip 0), 1 = str(FIELD), -EINVAL.
 */
static int parse_call(struct parser *ps, struct lex_tok **field, int *skip)
{
	struct lex_tok *fn = cur(ps), *f, *close;
	char d[64];

	*skip = 0;
	if (fn->kind != LX_WORD || !is_punct(peek(ps, 1), P_LPAREN))
		return 0;
	if (!is_word(fn, "str"))
		return perr(ps, fn->pos,
			    "unknown function '%.*s': the one function is str(FIELD), the text a "
			    "char * field points to (e.g. str(filename) ~ \"/etc/*\")",
			    fn->len > 40 ? 40 : (int)fn->len, fn->s);
	f = peek(ps, 2);
	if (f->kind != LX_WORD)
		return perr(ps, f->pos,
			    "expected a field name in str( ), e.g. str(filename), got %s",
			    tok_desc(f, d, sizeof(d)));
	close = peek(ps, 3);
	if (!is_punct(close, P_RPAREN))
		return perr(ps, close->pos,
			    "expected ')' to close str(%.*s, got %s: str() takes one field name",
			    f->len > 40 ? 40 : (int)f->len, f->s, tok_desc(close, d, sizeof(d)));
	*field = f;
	*skip = 3;
	return 1;
}

static struct tl_node *parse_cmp(struct parser *ps)
{
	struct lex_tok *f = cur(ps), *fn = cur(ps), *op, *v;
	struct tl_node *n;
	char d[64];
	int call, skip;

	if (f->kind != LX_WORD) {
		if (f->kind == LX_EOF)
			perr(ps, f->pos,
			     "expected a condition (FIELD OP VALUE, e.g. pid == 42) "
			     "but the trigger ends here");
		else
			perr(ps, f->pos,
			     "expected a field name to compare (e.g. pid == 42), got %s",
			     tok_desc(f, d, sizeof(d)));
		return NULL;
	}
	call = parse_call(ps, &f, &skip);
	if (call < 0)
		return NULL;
	op = peek(ps, 1 + skip);
	if (!is_cmp_op(op)) {
		perr(ps, op->pos,
		     "expected a comparison operator (== != < <= > >= & ~ !~) after '%s%.*s%s', "
		     "got %s",
		     call ? "str(" : "", f->len > 40 ? 40 : (int)f->len, f->s, call ? ")" : "",
		     tok_desc(op, d, sizeof(d)));
		return NULL;
	}
	n = node_new(ps, N_CMP);
	if (!n)
		return NULL;
	if (word_copy(ps, f, n->field, sizeof(n->field), "field name"))
		goto fail;
	n->field_pos = f->pos;
	n->strfn = call;
	n->strfn_pos = fn->pos;
	n->op = op->p;
	n->op_pos = op->pos;
	ps->i += 2 + skip;
	v = cur(ps);
	n->val_pos = v->pos;
	if (is_punct(v, P_MINUS)) {
		struct lex_tok *num = peek(ps, 1);

		if (num->kind != LX_NUM) {
			perr(ps, num->pos, "expected a number after '-'");
			goto fail;
		}
		if (parse_int_tok(ps, num, &n->mag, "the value"))
			goto fail;
		if (n->mag > (1ULL << 63)) {
			perr(ps, v->pos, "-%.*s is out of range (the smallest value is -%llu)",
			     (int)num->len, num->s, 1ULL << 63);
			goto fail;
		}
		n->neg = n->mag != 0;
		n->vk = V_INT;
		ps->i += 2;
	} else if (v->kind == LX_NUM) {
		if (parse_int_tok(ps, v, &n->mag, "the value"))
			goto fail;
		n->hex = v->len > 2 && v->s[0] == '0' && (v->s[1] == 'x' || v->s[1] == 'X');
		n->vk = V_INT;
		ps->i++;
	} else if (v->kind == LX_STR || v->kind == LX_WORD) {
		n->vk = v->kind == LX_STR ? V_STR : V_WORD;
		n->sval = v->kind == LX_STR ? strdup(v->val) : strndup(v->s, v->len);
		if (!n->sval) {
			perr(ps, v->pos, "out of memory");
			goto fail;
		}
		ps->i++;
	} else {
		perr(ps, v->pos, "expected a value after '%s' (a number, or a \"string\"), got %s",
		     lex_punct_text[op->p], tok_desc(v, d, sizeof(d)));
		goto fail;
	}
	if (n->op == P_NTILDE) {
		/* a !~ b is !(a ~ b): one glob clause, its jumps swapped. */
		struct tl_node *neg = node_new(ps, N_NOT);

		if (!neg)
			goto fail;
		n->op = P_TILDE;
		n->ntilde = 1;
		neg->l = n;
		return neg;
	}
	return n;
fail:
	node_free(n);
	return NULL;
}

static struct tl_node *parse_unary(struct parser *ps)
{
	struct lex_tok *t = cur(ps);
	struct tl_node *n;

	if (++ps->depth > TL_MAX_DEPTH) {
		perr(ps, t->pos,
		     "condition nested too deeply (more than %d levels of ! and "
		     "parentheses, TL_MAX_DEPTH)",
		     TL_MAX_DEPTH);
		return NULL;
	}
	if (is_punct(t, P_NOT)) {
		ps->i++;
		n = node_new(ps, N_NOT);
		if (!n)
			return NULL;
		n->l = parse_unary(ps);
		if (!n->l) {
			node_free(n);
			return NULL;
		}
	} else if (is_punct(t, P_LPAREN)) {
		struct lex_tok *close;

		ps->i++;
		n = parse_or(ps);
		if (!n)
			return NULL;
		close = cur(ps);
		if (!is_punct(close, P_RPAREN)) {
			char d[64];

			perr(ps, close->pos, "expected ')' to close the '(' at %d:%d, got %s",
			     t->pos.line, t->pos.col, tok_desc(close, d, sizeof(d)));
			node_free(n);
			return NULL;
		}
		ps->i++;
	} else {
		n = parse_cmp(ps);
	}
	ps->depth--;
	return n;
}

static struct tl_node *parse_binary(struct parser *ps, enum lex_punct op)
{
	struct tl_node *l = op == P_OR ? parse_binary(ps, P_AND) : parse_unary(ps), *r, *n;

	while (l && is_punct(cur(ps), op)) {
		/* Counted at the operator, so a too-large condition is reported where it grows. */
		n = node_new(ps, op == P_OR ? N_OR : N_AND);
		if (!n) {
			node_free(l);
			return NULL;
		}
		ps->i++;
		r = op == P_OR ? parse_binary(ps, P_AND) : parse_unary(ps);
		if (!r) {
			node_free(l);
			node_free(n);
			return NULL;
		}
		n->l = l;
		n->r = r;
		l = n;
	}
	return l;
}

static struct tl_node *parse_or(struct parser *ps)
{
	return parse_binary(ps, P_OR);
}

static int parse_event(struct parser *ps, struct tl_side *s, const char *what)
{
	struct lex_tok *t = cur(ps);
	char d[64];

	if (t->kind != LX_WORD)
		return perr(ps, t->pos, "expected %s as SYS:NAME (e.g. sched:sched_switch), got %s",
			    what, tok_desc(t, d, sizeof(d)));
	if (word_copy(ps, t, s->event, sizeof(s->event), "tracepoint name"))
		return -EINVAL;
	s->event_pos = t->pos;
	ps->i++;
	return 0;
}

static int parse_key(struct parser *ps, struct tl_key *k)
{
	struct lex_tok *by = cur(ps);
	int paren = 0;

	k->given = 1;
	k->by_pos = by->pos;
	ps->i++;
	if (is_punct(cur(ps), P_LPAREN)) {
		paren = 1;
		ps->i++;
	}
	for (;;) {
		struct lex_tok *t = cur(ps);
		char d[64];

		if (t->kind != LX_WORD)
			return perr(ps, t->pos,
				    "expected a key field after '%s' (e.g. by pid, or "
				    "by dev, sector), got %s",
				    k->n  ? "," :
				    paren ? "(" :
					    "by",
				    tok_desc(t, d, sizeof(d)));
		if (k->n == TRIGREC_MAX_KEY_PARTS)
			return perr(ps, t->pos,
				    "too many key fields: a key has at most %d parts "
				    "(TRIGREC_MAX_KEY_PARTS)",
				    TRIGREC_MAX_KEY_PARTS);
		{
			struct lex_tok *f = t;
			int skip, call = parse_call(ps, &f, &skip);

			if (call < 0)
				return -EINVAL;
			if (word_copy(ps, f, k->name[k->n], sizeof(k->name[k->n]),
				      "key field name"))
				return -EINVAL;
			k->strfn[k->n] = call;
			k->pos[k->n++] = f->pos; /* the field, in str(FIELD) too */
			ps->i += 1 + skip;
		}
		if (!is_punct(cur(ps), P_COMMA))
			break;
		ps->i++;
	}
	if (paren) {
		struct lex_tok *t = cur(ps);
		char d[64];

		if (!is_punct(t, P_RPAREN))
			return perr(ps, t->pos, "expected ')' to close the key list, got %s",
				    tok_desc(t, d, sizeof(d)));
		ps->i++;
	}
	return 0;
}

/* `[ 'if' filter ]` */
static int parse_opt_filter(struct parser *ps, struct tl_node **out)
{
	if (!is_word(cur(ps), "if"))
		return 0;
	ps->i++;
	*out = parse_or(ps);
	return *out ? 0 : -EINVAL;
}

/* A clear message for a keyword in the wrong place. */
static int misplaced(struct parser *ps, const struct trig_ast *a, const char *expected)
{
	struct lex_tok *t = cur(ps);
	char d[64];

	if (is_word(t, "count"))
		return perr(ps, t->pos,
			    a->kind == TRIGREC_TRIG_EVENT ?
				    "'count >= N' is misplaced here: it goes right after the event "
				    "and its condition (EVENT [if COND] [count >= N]), before "
				    "'where' and the policies" :
				    "'count >= N' applies to plain event triggers only; for "
				    "a number of events in a time window use 'rate EVENT > "
				    "N/DURATION'");
	if (is_word(t, "by"))
		return perr(ps, t->pos,
			    a->kind == TRIGREC_TRIG_EVENT ?
				    "'by' applies to latency and rate triggers only (a plain event "
				    "trigger has no key)" :
				    "'by' is misplaced here: it goes after the event and its 'if' "
				    "condition (EVENT [if COND] [by KEY])");
	if (is_word(t, "if"))
		return perr(ps, t->pos,
			    "'if' is misplaced here: the condition goes right after "
			    "the event (EVENT if COND ...)");
	if (is_punct(t, P_ARROW))
		return perr(ps, t->pos,
			    "'->' belongs to latency triggers: write "
			    "'latency START -> END > DURATION'");
	return perr(ps, t->pos, "%s, got %s", expected, tok_desc(t, d, sizeof(d)));
}

static const char *const option_words[] = { "post", "cooldown", "limit", "max",
					    "name", "where",	"after", NULL };
static const char *const kind_words[] = { "latency", "rate", "manual", "event", NULL };

/* The word of `words` one or two edits from the token (about one per three letters), or NULL. */
static const char *closest_word(const struct lex_tok *t, const char *const *words)
{
	char w[32];
	const char *best = NULL;
	int bestd;

	if (t->len >= sizeof(w))
		return NULL;
	memcpy(w, t->s, t->len);
	w[t->len] = '\0';
	bestd = 1 + (t->len >= 6);
	for (; *words; words++) {
		int d = edit_distance(w, *words);

		if (d <= bestd && d > 0) {
			bestd = d - 1;
			best = *words;
		}
	}
	return best;
}

static int dup_opt(struct parser *ps, struct trig_ast *a, int *has, int which, struct lex_tok *t,
		   const char *what)
{
	if (*has)
		return perr(ps, t->pos,
			    "duplicate option '%s' (already given at %d:%d): give "
			    "it once",
			    what, a->opt_pos[which].line, a->opt_pos[which].col);
	*has = 1;
	a->opt_pos[which] = t->pos;
	return 0;
}

/*
 * A learned threshold: `pNN[.NNN]` (0.001 % steps, below 100) and an
 * optional `* M` (M > 0, two decimals at most), written `p99 * 2`, `p99*2`
 * or `p99 *2`. The percentile's token is cur(ps).
 */
static int parse_number_x100(struct parser *ps, const struct lex_tok *t, const char *s, size_t len,
			     uint32_t *out)
{
	uint64_t whole = 0, frac = 0;
	size_t i = 0, nf = 0;

	if (!len || !isdigit((unsigned char)s[0]))
		return perr(
			ps, t->pos,
			"expected a multiplier after '*' (a number such as 2 or 1.5), got '%.*s'",
			len ? (int)(len > 20 ? 20 : len) : 1, len ? s : "*");
	for (; i < len && isdigit((unsigned char)s[i]); i++) {
		whole = whole * 10 + (uint64_t)(s[i] - '0');
		if (whole > 1000)
			return perr(ps, t->pos, "multiplier too large: at most 1000");
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && isdigit((unsigned char)s[i]); i++, nf++)
			if (nf < 2)
				frac = frac * 10 + (uint64_t)(s[i] - '0');
		if (nf > 2)
			return perr(ps, t->pos,
				    "multiplier %.*s: at most two decimals (e.g. * 1.25)", (int)len,
				    s);
		if (nf == 1)
			frac *= 10;
	}
	if (i != len)
		return perr(ps, t->pos, "multiplier '%.*s' is not a number (e.g. * 2 or * 1.5)",
			    (int)(len > 20 ? 20 : len), s);
	if (!whole && !frac)
		return perr(ps, t->pos, "multiplier must be more than 0 (e.g. * 2)");
	*out = (uint32_t)(whole * 100 + frac);
	return 0;
}

static int parse_learned(struct parser *ps, struct trig_ast *a)
{
	struct lex_tok *t = cur(ps), *m;
	const char *s = t->s + 1, *star;
	size_t len, i = 0, nf = 0;
	uint64_t whole = 0, frac = 0;
	char d[64];

	star = memchr(t->s, '*', t->len);
	len = (star ? (size_t)(star - t->s) : t->len) - 1;
	for (; i < len && isdigit((unsigned char)s[i]) && i < 3; i++)
		whole = whole * 10 + (uint64_t)(s[i] - '0');
	if (i < len && s[i] == '.') {
		for (i++; i < len && isdigit((unsigned char)s[i]); i++, nf++)
			if (nf < 3)
				frac = frac * 10 + (uint64_t)(s[i] - '0');
	}
	if (!len || i != len || !isdigit((unsigned char)s[0]) || (nf == 0 && s[len - 1] == '.'))
		return perr(ps, t->pos,
			    "learned threshold '%.*s': write a percentile as pNN or pNN.N "
			    "(e.g. > p99, > p99.9, > p99 * 2)",
			    (int)(t->len > 20 ? 20 : t->len), t->s);
	if (nf > 3)
		return perr(ps, t->pos,
			    "percentile %.*s: at most three decimals (p99.999 is the finest)",
			    (int)len + 1, t->s);
	for (; nf < 3; nf++)
		frac *= 10;
	if (whole >= 100 || (!whole && !frac))
		return perr(ps, t->pos,
			    "percentile %.*s is out of range: use p1 to p99.999 (a span over "
			    "p100, the largest ever seen, cannot be learned)",
			    (int)len + 1, t->s);
	a->learn_pct = (uint32_t)(whole * 1000 + frac);
	a->learn_mult = 100;
	ps->i++;
	if (star) {
		/* "p99*2" or "p99*": the multiplier is in this token or the next. */
		const char *ms = star + 1;
		size_t mlen = t->len - (size_t)(star - t->s) - 1;

		if (mlen)
			return parse_number_x100(ps, t, ms, mlen, &a->learn_mult);
		m = cur(ps);
		if (is_punct(m, P_MINUS))
			return perr(ps, m->pos, "multiplier must be more than 0 (e.g. * 2)");
		if (m->kind != LX_NUM)
			return perr(ps, m->pos,
				    "expected a multiplier after '*' (e.g. > p99 * 2), got %s",
				    tok_desc(m, d, sizeof(d)));
		ps->i++;
		return parse_number_x100(ps, m, m->s, m->len, &a->learn_mult);
	}
	m = cur(ps);
	if (m->kind == LX_WORD && m->s[0] == '*') {
		struct lex_tok *n;

		if (m->len > 1)
			return parse_number_x100(ps, m, m->s + 1, m->len - 1, &a->learn_mult) ||
			       (ps->i++, 0);
		ps->i++;
		n = cur(ps);
		if (is_punct(n, P_MINUS))
			return perr(ps, n->pos, "multiplier must be more than 0 (e.g. * 2)");
		if (n->kind != LX_NUM)
			return perr(ps, n->pos,
				    "expected a multiplier after '*' (e.g. > p99 * 2), got %s",
				    tok_desc(n, d, sizeof(d)));
		ps->i++;
		return parse_number_x100(ps, n, n->s, n->len, &a->learn_mult);
	}
	return 0;
}

/* `Nx` (N > 1, two decimals at most) of `> Nx baseline`, from the token t, into x 100. */
static int parse_baseline_mult(struct parser *ps, const struct lex_tok *t, uint32_t *out)
{
	uint64_t whole = 0, frac = 0;
	size_t i = 0, nf = 0, len = t->len;
	const char *s = t->s;

	if (len && (s[len - 1] == 'x' || s[len - 1] == 'X'))
		len--;
	else
		return perr(ps, t->pos,
			    "a baseline's multiplier is written with an x: '%.*sx baseline' "
			    "(e.g. > 5x baseline)",
			    (int)(t->len > 20 ? 20 : t->len), t->s);
	for (; i < len && isdigit((unsigned char)s[i]); i++)
		if (whole <= 1000)
			whole = whole * 10 + (uint64_t)(s[i] - '0');
	if (i < len && s[i] == '.') {
		for (i++; i < len && isdigit((unsigned char)s[i]); i++, nf++)
			if (nf < 2)
				frac = frac * 10 + (uint64_t)(s[i] - '0');
		if (nf == 1)
			frac *= 10;
	}
	if (!len || i != len || (nf == 0 && s[len - 1] == '.'))
		return perr(ps, t->pos,
			    "multiplier '%.*s' is not a number: write Nx with N above 1 "
			    "(e.g. > 5x baseline, > 2.5x baseline)",
			    (int)(t->len > 20 ? 20 : t->len), t->s);
	if (nf > 2)
		return perr(ps, t->pos, "multiplier %.*s: at most two decimals (e.g. 2.25x)",
			    (int)t->len, t->s);
	if (whole * 100 + frac <= 100)
		return perr(ps, t->pos,
			    "multiplier %.*s must be more than 1x: a rate at its baseline is 1x, "
			    "so it would fire on ordinary windows (e.g. > 2x baseline)",
			    (int)t->len, t->s);
	if (whole * 100 + frac > TL_MAX_BASELINE_MULT)
		return perr(ps, t->pos, "multiplier %.*s is too large: at most %ux", (int)t->len,
			    t->s, TL_MAX_BASELINE_MULT / 100);
	*out = (uint32_t)(whole * 100 + frac);
	return 0;
}

/* Is the threshold at cur(ps) a baseline's (`5x baseline`, or a number before `baseline`)? */
static int at_baseline(struct parser *ps)
{
	struct lex_tok *t = cur(ps), *n = peek(ps, 1);

	if (is_punct(t, P_MINUS)) {
		t = n;
		n = peek(ps, 2);
	}
	if (t->kind != LX_NUM)
		return 0;
	return is_word(n, "baseline") ||
	       (t->len >= 2 && (t->s[t->len - 1] == 'x' || t->s[t->len - 1] == 'X'));
}

/* `Nx baseline [per PERIOD]`, after the rate's '>'. */
static int parse_baseline(struct parser *ps, struct trig_ast *a)
{
	struct lex_tok *t = cur(ps), *m = t;
	char d[64];

	if (is_punct(t, P_MINUS))
		return perr(ps, t->pos,
			    "multiplier cannot be negative: write Nx with N above 1 (e.g. > 5x "
			    "baseline)");
	if (parse_baseline_mult(ps, t, &a->learn_mult))
		return -EINVAL;
	ps->i++;
	t = cur(ps);
	if (t->kind == LX_WORD && t->len > 9 && !strncmp(t->s, "baseline/", 9))
		return perr(ps, t->pos,
			    "a baseline's window is written with 'per': > %.*s baseline per %.*s",
			    (int)m->len, m->s, (int)(t->len - 9 > 20 ? 20 : t->len - 9), t->s + 9);
	if (!is_word(t, "baseline"))
		return perr(ps, t->pos,
			    "expected 'baseline' after '%.*s' (rate EVENT > %.*s baseline), got %s",
			    (int)m->len, m->s, (int)m->len, m->s, tok_desc(t, d, sizeof(d)));
	ps->i++;
	a->baseline = 1;
	a->window_ns = TL_DEFAULT_BASELINE_WINDOW_NS;
	t = cur(ps);
	if (is_punct(t, P_SLASH))
		return perr(ps, t->pos,
			    "a baseline's window is written with 'per': > %.*s baseline per 1s",
			    (int)m->len, m->s);
	if (is_word(t, "per")) {
		ps->i++;
		t = cur(ps);
		if (parse_period_tok(ps, &a->window_ns, "baseline window"))
			return -EINVAL;
		if (!a->window_ns)
			return perr(ps, t->pos,
				    "baseline window must be longer than 0 (e.g. per 1s)");
		if (a->window_ns > TL_MAX_LIMIT_PERIOD_NS)
			return perr(ps, t->pos, "baseline window is longer than a year (8760h)");
	}
	return 0;
}

static int parse_options(struct parser *ps, struct trig_ast *a)
{
	for (;;) {
		struct lex_tok *t = cur(ps);
		char d[64];

		if (t->kind == LX_EOF)
			return 0;
		if (a->manual && (is_word(t, "cooldown") || is_word(t, "limit") ||
				  is_word(t, "max") || is_word(t, "where")))
			return perr(ps, t->pos,
				    "a manual trigger takes only post and name: '%.*s' "
				    "applies to triggers the kernel fires",
				    (int)t->len, t->s);
		if (is_word(t, "post")) {
			if (dup_opt(ps, a, &a->has_post, O_POST, t, "post"))
				return -EINVAL;
			ps->i++;
			t = cur(ps);
			if (parse_dur(ps, &a->post_ns, "post"))
				return -EINVAL;
			if (a->post_ns > TL_MAX_POST_NS)
				return perr(ps, t->pos,
					    "post %.*s is longer than the maximum of 1h (as "
					    "for --post)",
					    t->len > 40 ? 40 : (int)t->len, t->s);
		} else if (is_word(t, "cooldown")) {
			uint64_t ns = 0;

			ps->i++;
			if (parse_dur(ps, &ns, "cooldown"))
				return -EINVAL;
			if (is_word(cur(ps), "per")) {
				struct lex_tok *k = peek(ps, 1);

				if (!is_word(k, "key"))
					return perr(ps, k->pos,
						    "expected 'key' after 'per' "
						    "(cooldown DURATION per key), got %s",
						    tok_desc(k, d, sizeof(d)));
				if (dup_opt(ps, a, &a->has_key_cooldown, O_KEY_COOLDOWN, t,
					    "cooldown ... per key"))
					return -EINVAL;
				if (a->kind == TRIGREC_TRIG_EVENT ||
				    (a->kind == TRIGREC_TRIG_RATE &&
				     !a->side[TRIGREC_ROLE_EVENT].key.given))
					return perr(
						ps, cur(ps)->pos,
						"'per key' needs a keyed "
						"trigger: %s",
						a->kind == TRIGREC_TRIG_EVENT ?
							"a plain event trigger has no key (drop 'per key')" :
							"add 'by KEY' to the rate (e.g. rate EVENT by pid > "
							"N/1s), or drop 'per key'");
				a->key_cooldown_ns = ns;
				ps->i += 2;
			} else {
				if (dup_opt(ps, a, &a->has_cooldown, O_COOLDOWN, t, "cooldown"))
					return -EINVAL;
				a->cooldown_ns = ns;
			}
		} else if (is_word(t, "limit")) {
			struct lex_tok *pt;

			if (dup_opt(ps, a, &a->has_limit, O_LIMIT, t, "limit"))
				return -EINVAL;
			ps->i++;
			if (is_word(cur(ps), "none")) {
				a->limit = 0;
				a->limit_period_ns = 0;
				ps->i++;
				continue;
			}
			if (cur(ps)->kind == LX_WORD)
				return perr(ps, cur(ps)->pos,
					    "expected limit N/PERIOD (e.g. limit 3/min) "
					    "or limit none, got %s",
					    tok_desc(cur(ps), d, sizeof(d)));
			if (parse_int_range(ps, 1, 1000000000, &a->limit, "limit"))
				return -EINVAL;
			if (!is_punct(cur(ps), P_SLASH))
				return perr(ps, cur(ps)->pos,
					    "expected '/' and a period after the "
					    "limit count (e.g. limit 3/min, limit 5/30s), got %s",
					    tok_desc(cur(ps), d, sizeof(d)));
			ps->i++;
			pt = cur(ps);
			if (parse_period_tok(ps, &a->limit_period_ns, "limit period"))
				return -EINVAL;
			if (!a->limit_period_ns)
				return perr(ps, pt->pos, "limit period must be longer than 0");
			if (a->limit_period_ns > TL_MAX_LIMIT_PERIOD_NS)
				return perr(ps, pt->pos,
					    "limit period is longer than a year (8760h): "
					    "use max N for a limit over the whole run");
		} else if (is_word(t, "max")) {
			if (dup_opt(ps, a, &a->has_max, O_MAX, t, "max"))
				return -EINVAL;
			ps->i++;
			if (parse_int_range(ps, 1, 1000000000, &a->max_total, "max"))
				return -EINVAL;
		} else if (is_word(t, "where")) {
			struct tl_node *w, **dst = a->kind == TRIGREC_TRIG_LATENCY ?
							   &a->both :
							   &a->side[TRIGREC_ROLE_EVENT].filter;

			/* Sugar for the trigger's condition, on a line of its own in scripts. */
			if (dup_opt(ps, a, &a->has_where, O_WHERE, t, "where"))
				return -EINVAL;
			ps->i++;
			w = parse_or(ps);
			if (!w)
				return -EINVAL;
			if (*dst) {
				struct tl_node *n = node_new(ps, N_AND);

				if (!n) {
					node_free(w);
					return -ENOMEM;
				}
				n->l = *dst;
				n->r = w;
				w = n;
			}
			*dst = w;
		} else if (is_word(t, "after")) {
			struct lex_tok *n;

			if (a->has_after)
				return perr(
					ps, t->pos,
					"duplicate option 'after' (already given at %d:%d): give "
					"it once",
					a->after_pos.line, a->after_pos.col);
			if (!a->learn_pct && !a->baseline)
				return perr(
					ps, t->pos,
					"'after N samples' is the warm-up of a learned threshold: "
					"write it after '> pNN' (e.g. latency A -> B > p99.9 "
					"after 1000 samples, or rate EVENT > 5x baseline after 20 "
					"windows)");
			a->has_after = 1;
			a->after_pos = t->pos;
			ps->i++;
			n = cur(ps);
			if (n->kind == LX_NUM && n->len == 1 && n->s[0] == '0')
				return perr(
					ps, n->pos,
					a->baseline ?
						"after 0 windows: a key must see at least 1 window "
						"before its baseline means anything (the default is %u)" :
						"after 0 samples: a key must see at least 1 span before it "
						"can fire (the default is %u)",
					a->baseline ? TL_DEFAULT_BASELINE_AFTER :
						      TL_DEFAULT_LEARN_AFTER);
			if (parse_int_range(ps, 1, 1000000000, &a->learn_after, "after"))
				return -EINVAL;
			n = cur(ps);
			if (a->baseline) {
				if (!is_word(n, "windows") && !is_word(n, "window"))
					return perr(
						ps, n->pos,
						"expected 'windows' after 'after %llu' (a baseline "
						"warms up over N windows: after N windows), got %s",
						(unsigned long long)a->learn_after,
						tok_desc(n, d, sizeof(d)));
				ps->i++;
				continue;
			}
			if (is_word(n, "windows") || is_word(n, "window"))
				return perr(ps, n->pos,
					    "a learned latency warms up over spans: after %llu "
					    "samples ('windows' are a rate baseline's)",
					    (unsigned long long)a->learn_after);
			if (!is_word(n, "samples") && !is_word(n, "sample"))
				return perr(
					ps, n->pos,
					"expected 'samples' after 'after %llu' (after N samples), "
					"got %s",
					(unsigned long long)a->learn_after,
					tok_desc(n, d, sizeof(d)));
			ps->i++;
		} else if (is_word(t, "name")) {
			struct lex_tok *n;

			if (dup_opt(ps, a, &a->has_name, O_NAME, t, "name"))
				return -EINVAL;
			ps->i++;
			n = cur(ps);
			if (n->kind == LX_STR) {
				if (strlen(n->val) >= sizeof(a->name))
					return perr(ps, n->pos,
						    "name too long (at most %zu "
						    "characters)",
						    sizeof(a->name) - 1);
				strcpy(a->name, n->val);
			} else if (n->kind == LX_WORD || n->kind == LX_NUM) {
				if (word_copy(ps, n, a->name, sizeof(a->name), "name"))
					return -EINVAL;
			} else {
				return perr(ps, n->pos,
					    "expected a name after 'name' (e.g. name "
					    "slow_io), got %s",
					    tok_desc(n, d, sizeof(d)));
			}
			if (!a->name[0])
				return perr(ps, n->pos, "the name cannot be empty");
			ps->i++;
		} else if (t->kind == LX_WORD) {
			const char *hint = "";

			if (is_word(t, "count") || is_word(t, "by") || is_word(t, "if"))
				return misplaced(ps, a, "");
			if (is_word(t, "and") || is_word(t, "or") || is_word(t, "not"))
				hint = " (conditions use &&, || and !)";
			else if ((hint = closest_word(t, option_words)))
				return perr(ps, t->pos,
					    "unknown option '%.*s' (did you mean '%s'?)",
					    t->len > 40 ? 40 : (int)t->len, t->s, hint);
			else
				hint = "";
			return perr(
				ps, t->pos,
				"unknown option '%.*s': options are post DURATION, "
				"cooldown DURATION [per key], limit N/PERIOD, max N, name NAME, "
				"where COND, after N samples%s",
				t->len > 40 ? 40 : (int)t->len, t->s, hint);
		} else {
			return misplaced(ps, a,
					 "expected an option (post, cooldown, limit, max, "
					 "name, where) or the end of the trigger");
		}
	}
}

/* SIDE := EVENT [if FILTER] [by KEY] */
static int parse_side(struct parser *ps, struct tl_side *side, const char *what)
{
	if (parse_event(ps, side, what) || parse_opt_filter(ps, &side->filter))
		return -EINVAL;
	if (is_word(cur(ps), "by") && parse_key(ps, &side->key))
		return -EINVAL;
	return 0;
}

/*
 * The punctuation that must follow a side ('->' or '>'). A clause keyword
 * there is misplaced; anything else gets `missing` and what was found.
 */
static int expect_after_side(struct parser *ps, const struct trig_ast *a, int punct,
			     int arrow_misplaced, const char *missing)
{
	struct lex_tok *t = cur(ps);
	char d[64];

	if (is_punct(t, punct)) {
		ps->i++;
		return 0;
	}
	if (is_word(t, "if") || is_word(t, "by") || is_word(t, "count") ||
	    (arrow_misplaced && is_punct(t, P_ARROW)))
		return misplaced(ps, a, "");
	return perr(ps, t->pos, "%s, got %s", missing, tok_desc(t, d, sizeof(d)));
}

static int parse_trigger(struct parser *ps, struct trig_ast *a)
{
	struct lex_tok *t = cur(ps), *nx = peek(ps, 1);
	struct tl_side *ev = &a->side[TRIGREC_ROLE_EVENT];
	struct tl_side *st = &a->side[TRIGREC_ROLE_START];
	char d[64];

	a->kind_pos = t->pos;
	if (t->kind == LX_EOF)
		return perr(ps, t->pos,
			    "empty trigger: give a tracepoint (e.g. "
			    "sched:sched_process_exit), latency, rate or manual");
	a->kind = TRIGREC_TRIG_EVENT;
	/* A tracepoint is SYS:NAME, so these words at the start are always keywords. */
	if (is_word(t, "manual")) {
		a->manual = 1;
		ps->i++;
		return parse_options(ps, a);
	}
	/* A tracepoint has a ':' or '/': a bare word close to a kind is a misspelled kind. */
	if (t->kind == LX_WORD && !memchr(t->s, ':', t->len) && !memchr(t->s, '/', t->len)) {
		const char *k = closest_word(t, kind_words);

		if (k)
			return perr(ps, t->pos, "unknown trigger kind '%.*s' (did you mean '%s'?)",
				    t->len > 40 ? 40 : (int)t->len, t->s, k);
	}
	if (is_word(t, "latency"))
		a->kind = TRIGREC_TRIG_LATENCY;
	else if (is_word(t, "rate"))
		a->kind = TRIGREC_TRIG_RATE;
	if (a->kind != TRIGREC_TRIG_EVENT || is_word(t, "event") || is_word(t, "on")) {
		ps->i++;
		if (nx->kind == LX_EOF)
			return perr(ps, nx->pos, "expected a tracepoint (SYS:NAME) after '%.*s'",
				    (int)t->len, t->s);
	}

	if (a->kind == TRIGREC_TRIG_LATENCY) {
		if (parse_side(ps, st, "the start tracepoint") ||
		    expect_after_side(ps, a, P_ARROW, 0,
				      "missing '->': a latency trigger is "
				      "'latency START -> END > DURATION'") ||
		    parse_side(ps, ev, "the end tracepoint after '->'") ||
		    expect_after_side(ps, a, P_GT, 0,
				      "missing threshold: add '> DURATION' after "
				      "the end tracepoint (e.g. latency A -> B > 10ms)"))
			return -EINVAL;
		t = cur(ps);
		if (at_baseline(ps))
			return perr(
				ps, t->pos,
				"a baseline is learned by rate triggers (rate EVENT > 5x baseline); "
				"a latency learns a percentile: write > p99 * N (e.g. > p99 * 5)");
		if (t->kind == LX_WORD && t->len >= 1 && t->s[0] == 'p' &&
		    (t->len == 1 || isdigit((unsigned char)t->s[1]) || t->s[1] == '.' ||
		     t->s[1] == '*')) {
			if (parse_learned(ps, a))
				return -EINVAL;
		} else if (parse_dur(ps, &a->threshold, "latency threshold")) {
			return -EINVAL;
		} else if (!a->threshold) {
			return perr(ps, t->pos,
				    "latency threshold must be longer than 0 (e.g. > 1ms)");
		}
		if (parse_opt_filter(ps, &a->both))
			return -EINVAL;
		/* The window ages out starts whose end never came (learned: 10 s). */
		a->window_ns = a->threshold > UINT64_MAX / 10 ? UINT64_MAX : a->threshold * 10;
		if (a->window_ns < 10000000000ULL)
			a->window_ns = 10000000000ULL;
	} else if (a->kind == TRIGREC_TRIG_RATE) {
		if (parse_side(ps, ev, "a tracepoint after 'rate'") ||
		    expect_after_side(ps, a, P_GT, 1,
				      "missing threshold: add '> N/DURATION' (e.g. "
				      "rate EVENT > 1000/1s)"))
			return -EINVAL;
		if (at_baseline(ps)) {
			if (parse_baseline(ps, a))
				return -EINVAL;
		} else {
			if (parse_int_range(ps, 1, 1000000000, &a->threshold, "rate count"))
				return -EINVAL;
			if (!is_punct(cur(ps), P_SLASH))
				return perr(ps, cur(ps)->pos,
					    "expected '/' and a window after the rate count "
					    "(e.g. > 1000/1s), got %s",
					    tok_desc(cur(ps), d, sizeof(d)));
			ps->i++;
			t = cur(ps);
			if (parse_period_tok(ps, &a->window_ns, "rate window"))
				return -EINVAL;
			if (!a->window_ns)
				return perr(ps, t->pos,
					    "rate window must be longer than 0 (e.g. /1s)");
		}
		if (is_word(cur(ps), "by")) {
			if (ev->key.given)
				return perr(ps, cur(ps)->pos,
					    "duplicate 'by': the key was already "
					    "given at %d:%d",
					    ev->key.by_pos.line, ev->key.by_pos.col);
			if (parse_key(ps, &ev->key))
				return -EINVAL;
		}
	} else {
		if (parse_event(ps, ev, "a tracepoint"))
			return -EINVAL;
		if (parse_opt_filter(ps, &ev->filter))
			return -EINVAL;
		if (is_word(cur(ps), "count")) {
			if (!is_punct(peek(ps, 1), P_GE))
				return perr(ps, peek(ps, 1)->pos,
					    "expected '>=' after 'count' "
					    "(count >= N fires on the Nth match)");
			ps->i += 2;
			t = cur(ps);
			if (is_punct(t, P_MINUS) && peek(ps, 1)->kind == LX_NUM)
				return perr(
					ps, t->pos,
					"count cannot be negative: the minimum is 1 "
					"(count >= 1, like no count at all, fires on every match)");
			if (t->kind == LX_NUM && !parse_int_tok(ps, t, &a->threshold, "count") &&
			    !a->threshold)
				return perr(
					ps, t->pos,
					"count %.*s is too small: the minimum is 1 "
					"(count >= 1, like no count at all, fires on every match)",
					t->len > 40 ? 40 : (int)t->len, t->s);
			if (parse_int_range(ps, 1, UINT64_MAX, &a->threshold, "count"))
				return -EINVAL;
		}
	}
	return parse_options(ps, a);
}

/* The whole text, comments and strings included, must be UTF-8: say where it is not. */
static int check_utf8(const char *text, struct tl_pos pos, struct tl_error *err)
{
	for (const char *p = text; *p;) {
		int n = utf8_char(p, NULL);

		if (!n) {
			tl_set_err(err, pos, "invalid UTF-8 (byte 0x%02x): the text must be UTF-8",
				   (unsigned char)*p);
			return -EINVAL;
		}
		while (n--)
			tl_pos_advance(&pos, *p++);
	}
	return 0;
}

struct trig_ast *trig_parse(const char *text, int first_line, int first_col, struct tl_error *err)
{
	struct tl_error dummy;
	struct parser ps = { 0 };
	struct toks tk;
	struct trig_ast *a;

	if (!err)
		err = &dummy;
	memset(err, 0, sizeof(*err));
	if (!text) {
		tl_set_err(err, (struct tl_pos){ 1, 1 }, "no trigger text");
		return NULL;
	}
	if (first_line < 1)
		first_line = 1;
	if (first_col < 1)
		first_col = 1;
	if (strnlen(text, TL_MAX_TEXT + 1) > TL_MAX_TEXT) {
		tl_set_err(err, (struct tl_pos){ first_line, first_col },
			   "trigger text too long: more "
			   "than %d bytes (TL_MAX_TEXT); a trigger is a line or a few",
			   TL_MAX_TEXT);
		return NULL;
	}
	if (check_utf8(text, (struct tl_pos){ first_line, first_col }, err))
		return NULL;
	if (lex(text, first_line, first_col, &tk, err)) {
		toks_free(tk.t, tk.n);
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		toks_free(tk.t, tk.n);
		tl_set_err(err, (struct tl_pos){ 1, 1 }, "out of memory");
		return NULL;
	}
	ps.t = tk.t;
	ps.n = tk.n;
	ps.err = err;
	if (parse_trigger(&ps, a)) {
		trig_ast_free(a);
		a = NULL;
	}
	toks_free(tk.t, tk.n);
	return a;
}

int trig_ast_name_pos(const struct trig_ast *a, struct tl_pos *pos)
{
	if (!a || !a->has_name)
		return 0;
	if (pos)
		*pos = a->opt_pos[O_NAME];
	return 1;
}
