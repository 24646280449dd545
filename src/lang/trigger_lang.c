// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The trigger language: lexer -> parser (AST) -> compiler into the
 * trigrec_trigger_cfg tables bpf/trigrec.bpf.c evaluates.
 *
 * Everything the user can get wrong is reported with the line:col of the
 * offending token and a message saying how to fix it. Grammar and semantics
 * are documented in docs/triggers.md; keep the two in step.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/probes.h"
#include "capture/tracefs.h"
#include "lang/lexer.h"
#include "lang/trigger_lang.h"
#include "util/util.h"

/* ------------------------------------------------------------------ */
/* Errors                                                               */

static void __attribute__((format(printf, 3, 4)))
set_err(struct tl_error *err, struct tl_pos pos, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	err->pos = pos;
	va_start(ap, fmt);
	vseterr(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

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
				set_err(err, lexer__pos(&lx), "out of memory");
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

enum nkind { N_CMP = 1, N_AND, N_OR, N_NOT };
enum vkind { V_INT = 1, V_STR, V_WORD };

struct tl_node {
	enum nkind kind;
	struct tl_node *l, *r; /* N_AND, N_OR: both; N_NOT: l */
	/* N_CMP */
	char field[64];
	struct tl_pos field_pos;
	int strfn;		 /* str(field): the text behind a pointer field */
	struct tl_pos strfn_pos; /* of the word `str` */
	enum lex_punct op;
	struct tl_pos op_pos;
	int ntilde; /* written !~ (op is P_TILDE under an N_NOT) */
	enum vkind vk;
	uint64_t mag; /* V_INT: magnitude */
	int neg;      /* V_INT: negative */
	int hex;      /* V_INT: written in 0x hex */
	char *sval;   /* V_STR, V_WORD */
	struct tl_pos val_pos;
};

struct tl_key {
	int given;
	int n;
	char name[TRIGREC_MAX_KEY_PARTS][64];
	struct tl_pos pos[TRIGREC_MAX_KEY_PARTS];
	int strfn[TRIGREC_MAX_KEY_PARTS]; /* written str(name): refused by compile_key */
	struct tl_pos by_pos;
};

struct tl_side {
	char event[200];
	struct tl_pos event_pos;
	struct tl_node *filter;
	struct tl_key key;
};

struct trig_ast {
	enum trigrec_trigger_kind kind;
	struct tl_pos kind_pos;
	struct tl_side side[2]; /* [TRIGREC_ROLE_EVENT], [TRIGREC_ROLE_START] */
	struct tl_node *both;	/* LATENCY: the filter after the threshold */
	uint64_t threshold;	/* count N, latency ns, rate N */
	uint64_t window_ns;	/* RATE */
	/* LATENCY `> pNN[.N] [* M] [after N samples]`: a learned threshold (learn_pct != 0). */
	uint32_t learn_pct, learn_mult;
	uint64_t learn_after;
	int has_after;
	struct tl_pos after_pos;
	/* RATE `> Nx baseline [per T] [after N windows]`: learn_mult is N x 100. */
	int baseline;
	int has_post, has_cooldown, has_key_cooldown, has_limit, has_max, has_name, has_where;
	struct tl_pos opt_pos[7];
	int manual; /* `manual`: no event, taken on request */
	uint64_t post_ns, cooldown_ns, key_cooldown_ns, limit, limit_period_ns, max_total;
	char name[64];
};

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

enum { O_POST, O_COOLDOWN, O_KEY_COOLDOWN, O_LIMIT, O_MAX, O_NAME, O_WHERE };

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
			set_err(err, pos, "invalid UTF-8 (byte 0x%02x): the text must be UTF-8",
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
		set_err(err, (struct tl_pos){ 1, 1 }, "no trigger text");
		return NULL;
	}
	if (first_line < 1)
		first_line = 1;
	if (first_col < 1)
		first_col = 1;
	if (strnlen(text, TL_MAX_TEXT + 1) > TL_MAX_TEXT) {
		set_err(err, (struct tl_pos){ first_line, first_col },
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
		set_err(err, (struct tl_pos){ 1, 1 }, "out of memory");
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

/* ------------------------------------------------------------------ */
/* Tracepoint lookup (tracefs, or formats injected by tests)            */

static const struct tp_format *const *fake_fmts;
static int nr_fake_fmts;

void trig_set_formats(const struct tp_format *const *fmts, int n)
{
	fake_fmts = n > 0 ? fmts : NULL;
	nr_fake_fmts = n > 0 ? n : 0;
}

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

static int tp_glob(const char *pattern, struct tp_name **out)
{
	char sys[64], name[128];
	int n = 0;

	if (!fake_fmts)
		return probes__glob(pattern, out);
	*out = NULL;
	if (split_event(pattern, sys, sizeof(sys), name, sizeof(name)))
		return -EINVAL;
	*out = calloc((size_t)nr_fake_fmts + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (int i = 0; i < nr_fake_fmts; i++) {
		const struct tp_format *f = fake_fmts[i];

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

static struct tp_format *tp_load(const char *sys, const char *name)
{
	if (!fake_fmts)
		return tp_format__load(sys, name);
	for (int i = 0; i < nr_fake_fmts; i++) {
		const struct tp_format *f = fake_fmts[i];

		if (!strcmp(f->sys, sys) && !strcmp(f->name, name))
			return tp_format__parse(f->sys, f->name, f->text, f->text_len);
	}
	errno = ENOENT;
	return NULL;
}

static void tp_suggest(const char *bad, char *out, size_t len)
{
	int best = 4;

	if (!fake_fmts) {
		tracefs_suggest(bad, out, len, 3);
		return;
	}
	out[0] = '\0';
	for (int i = 0; i < nr_fake_fmts; i++) {
		char full[200];
		int d;

		snprintf(full, sizeof(full), "%s:%s", fake_fmts[i]->sys, fake_fmts[i]->name);
		d = edit_distance(bad, full);
		if (d < best) {
			best = d;
			snprintf(out, len, "%s", full);
		}
	}
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
		set_err(err, pos,
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
	set_err(err, pos,
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
	set_err(err, pos,
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
			struct tp_format *f = tp_load(sc->matches[i].sys, sc->matches[i].name);
			int has = f && tp_format__field(f, name);

			tp_format__free(f);
			if (has) {
				char up[8];

				for (size_t k = 0; k <= strlen(name) && k < sizeof(up); k++)
					up[k] = (char)toupper((unsigned char)name[k]);
				up[sizeof(up) - 1] = '\0';
				set_err(err, pos,
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
	set_err(err, pos,
		"field '%s' needs a single tracepoint, but %s matches %d (%s:%s, %s:%s%s); "
		"name one tracepoint, or use only comm, pid, tid, cpu, cgroup",
		name, sc->pattern, sc->nmatch, sc->matches[0].sys, sc->matches[0].name,
		sc->matches[1].sys, sc->matches[1].name, sc->nmatch > 2 ? ", ..." : "");
	return -EINVAL;
}

static int side_open(struct side_ctx *sc, const struct tl_side *s, struct tl_error *err)
{
	char sugg[400], *sep;

	memset(sc, 0, sizeof(*sc));
	sc->pos = s->event_pos;
	snprintf(sc->pattern, sizeof(sc->pattern), "%s", s->event);
	if (probe_kind_of(sc->pattern) && !fake_fmts) {
		/* kprobe:, uprobe:, usdt:...: its dynamic event(s) stand in for it. */
		struct tp_name *tps = NULL;
		int n = probes__resolve(sc->pattern, &tps);

		if (n <= 0) {
			set_err(err, sc->pos, "%s", n ? probes__error() : "no such probe");
			free(tps);
			return -EINVAL;
		}
		if (n == 1) {
			snprintf(sc->pattern, sizeof(sc->pattern), "%s:%s", tps[0].sys,
				 tps[0].name);
			free(tps);
		} else {
			/*
			 * A glob, or USDT with several sites: like a tracepoint glob, and
			 * stored as written (bpfctl resolves it to the same events).
			 */
			if (strlen(s->event) >= sizeof(sc->pattern)) {
				set_err(err, sc->pos,
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
	}
	sep = strpbrk(sc->pattern, ":/");
	if (!sep || sep == sc->pattern || !sep[1]) {
		sugg[0] = '\0';
		if (!has_glob(sc->pattern))
			tp_suggest(sc->pattern, sugg, sizeof(sugg));
		set_err(err, sc->pos, "'%s' is not a tracepoint: give it as SYS:NAME%s%s%s",
			sc->pattern,
			sugg[0] ? " (did you mean " :
				  " (e.g. sched:sched_switch; see "
				  "`trigrec list`)",
			sugg, sugg[0] ? "?)" : "");
		return -EINVAL;
	}
	*sep = ':';
	if (strchr(sep + 1, ':') || strchr(sep + 1, '/')) {
		set_err(err, sc->pos, "'%s' is not a tracepoint: give it as SYS:NAME with one ':'",
			s->event);
		return -EINVAL;
	}
	if (!fake_fmts && !tracefs_root()) {
		set_err(err, sc->pos, "cannot look up %s: %s", sc->pattern, tracefs_unusable());
		return -ENODEV;
	}
	sc->nmatch = tp_glob(sc->pattern, &sc->matches);
	if (sc->nmatch < 0) {
		set_err(err, sc->pos, "cannot look up %s: %s", sc->pattern, strerror(-sc->nmatch));
		sc->nmatch = 0;
		return -EINVAL;
	}
	if (!sc->nmatch) {
		if (has_glob(sc->pattern)) {
			set_err(err, sc->pos, "no tracepoint matches %s (see `trigrec list`)",
				sc->pattern);
			return -EINVAL;
		}
		tp_suggest(sc->pattern, sugg, sizeof(sugg));
		if (sugg[0])
			set_err(err, sc->pos, "unknown tracepoint %s (did you mean %s?)",
				sc->pattern, sugg);
		else
			set_err(err, sc->pos,
				"unknown tracepoint %s (see `trigrec list` for the "
				"tracepoints of this kernel)",
				sc->pattern);
		return -EINVAL;
	}
	if (sc->nmatch == 1) {
		sc->fmt = tp_load(sc->matches[0].sys, sc->matches[0].name);
		if (!sc->fmt) {
			set_err(err, sc->pos, "cannot read the format of %s:%s: %s",
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
		set_err(fb->err, pos,
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
		set_err(fb->err, pos,
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
			set_err(fb->err, n->val_pos,
				"unsupported pattern \"%s\": '%c' is not "
				"supported there; ~ supports \"abc\", \"abc*\", \"*abc\" and "
				"\"*abc*\" ('*' only at the start and/or end)",
				s, b[i]);
			return -EINVAL;
		}
	}
	*lit = strndup(b, bl);
	if (!*lit) {
		set_err(fb->err, n->val_pos, "out of memory");
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
			set_err(err, pos,
				"%s is already text: compare it without str(), e.g. %s ~ \"bash*\"",
				name, name);
		else
			set_err(err, pos,
				"str(%s): %s is an integer, not a pointer to text; str() reads the "
				"text behind a char * field of the event (see `trigrec list -v %s`)",
				name, name, sc->pattern);
		return -EINVAL;
	}
	if (f->kind == TP_FIELD_CHARARRAY || f->kind == TP_FIELD_DATALOC) {
		set_err(err, pos,
			"%s (%s) is already text in the record: compare it without str(), "
			"e.g. %s ~ \"abc*\"",
			name, f->type, name);
		return -EINVAL;
	}
	if (!is_char_ptr(f)) {
		set_err(err, pos,
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
		set_err(fb->err, n->op_pos,
			"'%s' compares numbers, but \"%s\" is a cgroup path: a path takes ==, !=, "
			"~ or !~ (e.g. %s ~ \"/kubepods.slice/*\"); a number compares the cgroup id",
			op, n->sval, n->field);
		return -EINVAL;
	}
	if (n->vk != V_STR) {
		if (n->vk == V_INT)
			set_err(fb->err, n->val_pos,
				"%s %s takes a quoted cgroup path glob, e.g. %s %s \"*kubepods*\"; "
				"compare the cgroup id with == or !=",
				n->field, op, n->field, op);
		else
			set_err(fb->err, n->val_pos,
				"%s is compared with a number (its cgroup id) or a quoted path: "
				"quote it, e.g. %s %s \"/%s\"",
				n->field, n->field, op, n->sval);
		return -EINVAL;
	}
	if (!d) {
		set_err(fb->err, n->val_pos,
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
			set_err(fb->err, n->val_pos, "out of memory");
			return -ENOMEM;
		}
	}
	len = strlen(n->sval);
	if (len >= TL_CG_PATH_MAX) {
		set_err(fb->err, n->val_pos,
			"cgroup path \"%.40s...\" is %zu bytes long; at most %d are supported "
			"(TL_CG_PATH_MAX): match a shorter part with ~ \"...*\" or \"*...*\"",
			n->sval, len, TL_CG_PATH_MAX - 1);
		goto out;
	}
	if ((form == TRIGREC_OP_STR_EQ || form == TRIGREC_OP_GLOB_FULL ||
	     form == TRIGREC_OP_GLOB_PREFIX) &&
	    lit[0] != '/') {
		set_err(fb->err, n->val_pos,
			"cgroup paths start with '/' at the cgroup2 root (as in /proc/PID/cgroup): "
			"write \"/%s\"%s",
			n->sval,
			form == TRIGREC_OP_GLOB_PREFIX ? "" : ", or \"*...*\" to match a part");
		goto out;
	}
	if (form == TRIGREC_OP_STR_EQ && strlen(lit) > 1 && lit[strlen(lit) - 1] == '/') {
		set_err(fb->err, n->val_pos,
			"cgroup path \"%s\" ends in '/': write it without (\"%.*s\")", lit,
			(int)strlen(lit) - 1, lit);
		goto out;
	}
	for (i = 0; i < d->nr_cg; i++)
		if (d->cg[i].form == form && !strcmp(d->cg[i].lit, lit))
			break;
	if (i == d->nr_cg) {
		if (d->nr_cg == TL_MAX_CG_PER_TRIG) {
			set_err(fb->err, n->val_pos,
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
			set_err(fb->err, n->op_pos,
				"'%s' compares numbers, but %s is a string (%s): "
				"use ==, != or ~ (glob)%s",
				lex_punct_text[n->op], disp, src_type_desc(&r, ty, sizeof(ty)),
				n->strfn ? "; without str() the field is the address" : "");
			return -EINVAL;
		}
		if (n->vk == V_INT) {
			set_err(fb->err, n->val_pos,
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
			set_err(fb->err, n->val_pos,
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
		set_err(fb->err, n->op == P_TILDE ? n->op_pos : n->val_pos,
			"%s is a pointer (%s): the record holds the address, not the text; "
			"write str(%s) %s \"%s\" to compare the text it points to",
			n->field, r.field->type, n->field, lex_punct_text[n->op],
			n->vk == V_STR ? n->sval : "...");
		return -EINVAL;
	}
	if (n->op == P_TILDE) {
		set_err(fb->err, n->op_pos,
			"'~' matches strings, but %s is an integer (%s): use ==, "
			"!=, <, <=, >, >= or & (bit test)",
			n->field, src_type_desc(&r, ty, sizeof(ty)));
		return -EINVAL;
	}
	if (n->vk != V_INT) {
		if (n->vk == V_WORD)
			set_err(fb->err, n->val_pos,
				"%s is an integer (%s): '%s' is not a number "
				"(use decimal, 0x hex or a negative number)",
				n->field, src_type_desc(&r, ty, sizeof(ty)), n->sval);
		else
			set_err(fb->err, n->val_pos,
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
				set_err(fb->err, n->val_pos,
					"%s is unsigned (%s): it cannot be -%llu", n->field,
					src_type_desc(&r, ty, sizeof(ty)),
					(unsigned long long)n->mag);
				return -EINVAL;
			}
			if (n->mag > lim) {
				set_err(fb->err, n->val_pos,
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
				set_err(fb->err, n->val_pos,
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
		set_err(err, x ? x->field_pos : sc->pos,
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
		set_err(err, sc->pos, "internal error: filter entry is not the first clause");
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
					set_err(err, k->pos[i],
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
			set_err(err, k->pos[i],
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
		set_err(err, (struct tl_pos){ 1, 1 }, "no trigger");
		return -EINVAL;
	}
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
	    side_open(&sc[TRIGREC_ROLE_START], &a->side[TRIGREC_ROLE_START], err))
		goto out;
	if (side_open(&sc[TRIGREC_ROLE_EVENT], &a->side[TRIGREC_ROLE_EVENT], err))
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
			set_err(err, ke->by_pos,
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
				set_err(err, ks->strfn[i] ? ke->pos[i] : ks->pos[i],
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

int trig_from_text(const char *text, struct trig_def *out, struct tl_error *err)
{
	struct trig_ast *a = trig_parse(text, 1, 1, err);
	int ret;

	if (!a)
		return -EINVAL;
	ret = trig_compile(a, text, out, err);
	trig_ast_free(a);
	return ret;
}

/*
 * A line longer than TL_ERR_LINE bytes (a 1 MB line, not a long trigger) is
 * shown as a window of TL_ERR_WINDOW bytes around the column.
 */
#define TL_ERR_LINE 1024
#define TL_ERR_WINDOW 240

void tl_error_format(const struct tl_error *e, const char *origin, const char *src, char *buf,
		     size_t len)
{
	const char *line = NULL, *eol, *b, *end, *at;
	size_t used, llen, off;
	int w, cut_l, cut_r;

	if (!buf || !len)
		return;
	w = snprintf(buf, len, "%s:%d:%d: %s", origin && *origin ? origin : "trigger", e->pos.line,
		     e->pos.col, e->msg);
	if (w < 0 || (size_t)w >= len)
		return;
	used = (size_t)w;
	if (src && e->pos.line >= 1) {
		line = src;
		for (int l = 1; l < e->pos.line && line; l++) {
			line = strchr(line, '\n');
			if (line)
				line++;
		}
	}
	if (!line)
		return;
	eol = strchr(line, '\n');
	if (!eol)
		eol = line + strlen(line);
	llen = (size_t)(eol - line);
	/* The caret's byte offset, at most one past the end of the line. */
	off = e->pos.col > 1 ? (size_t)e->pos.col - 1 : 0;
	if (off > llen)
		off = llen;
	b = line;
	end = eol;
	if (llen > TL_ERR_LINE) {
		b = line + (off > TL_ERR_WINDOW / 2 ? off - TL_ERR_WINDOW / 2 : 0);
		end = b + TL_ERR_WINDOW < eol ? b + TL_ERR_WINDOW : eol;
		/* Never split a UTF-8 character. */
		while (b > line && (*b & 0xc0) == 0x80)
			b--;
		while (end > b && end < eol && (*end & 0xc0) == 0x80)
			end--;
	}
	cut_l = b > line;
	cut_r = end < eol;
	w = snprintf(buf + used, len - used, "\n  %s%.*s%s\n  %s", cut_l ? "..." : "",
		     (int)(end - b), b, cut_r ? "..." : "", cut_l ? "   " : "");
	if (w < 0 || (size_t)w >= len - used)
		return;
	used += (size_t)w;
	/* One blank per character; tabs stay tabs so the caret lines up under them. */
	for (at = b; at < line + off && at < end && used + 2 < len; at++) {
		if ((*at & 0xc0) == 0x80)
			continue;
		buf[used++] = *at == '\t' ? '\t' : ' ';
	}
	if (used + 1 < len)
		buf[used++] = '^';
	buf[used] = '\0';
}

int trig_ast_name_pos(const struct trig_ast *a, struct tl_pos *pos)
{
	if (!a || !a->has_name)
		return 0;
	if (pos)
		*pos = a->opt_pos[O_NAME];
	return 1;
}

int trig_event_glob(const char *pattern, struct tp_name **out)
{
	return tp_glob(pattern, out);
}

struct tp_format *trig_event_format(const char *sys, const char *name)
{
	return tp_load(sys, name);
}

void trig_event_suggest(const char *bad, char *out, size_t len)
{
	tp_suggest(bad, out, len);
}
