// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one lexer of the trigger language and the script (lang/lexer.h says
 * how their modes differ). Every error says where, with what to write
 * instead; the unit tests (tests/unit/test_lexer.c) pin each one.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/probe_spec.h"
#include "lang/lexer.h"
#include "util/util.h"

const char *const lex_punct_text[] = {
	[P_NONE] = "",	  [P_LPAREN] = "(", [P_RPAREN] = ")", [P_COMMA] = ",",	 [P_SLASH] = "/",
	[P_ARROW] = "->", [P_MINUS] = "-",  [P_NOT] = "!",    [P_AND] = "&&",	 [P_OR] = "||",
	[P_BITAND] = "&", [P_TILDE] = "~",  [P_EQ] = "==",    [P_NE] = "!=",	 [P_LT] = "<",
	[P_LE] = "<=",	  [P_GT] = ">",	    [P_GE] = ">=",    [P_NTILDE] = "!~", [P_LBRACE] = "{",
	[P_RBRACE] = "}",
};

void tl_set_err(struct tl_error *err, struct tl_pos pos, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	err->pos = pos;
	va_start(ap, fmt);
	vseterr(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* Positions saturate: a script may start a trigger at INT_MAX. */
static int sat_inc(int v)
{
	return v < INT_MAX ? v + 1 : v;
}

void tl_pos_advance(struct tl_pos *p, char c)
{
	if (c == '\n') {
		p->line = sat_inc(p->line);
		p->col = 1;
	} else {
		p->col = sat_inc(p->col);
	}
}

void lexer__init(struct lexer *lx, const char *text, size_t len, int first_line, int first_col,
		 enum lex_mode mode)
{
	memset(lx, 0, sizeof(*lx));
	lx->text = text;
	lx->len = len;
	lx->line = first_line > 0 ? first_line : 1;
	lx->col = first_col > 0 ? first_col : 1;
	lx->mode = mode;
}

struct tl_pos lexer__pos(const struct lexer *lx)
{
	return (struct tl_pos){ lx->line, lx->col };
}

char lexer__char(const struct lexer *lx)
{
	return lx->i < lx->len ? lx->text[lx->i] : '\0';
}

/* The byte k after the cursor, 0 past the end. */
static char ahead(const struct lexer *lx, size_t k)
{
	return lx->i + k < lx->len ? lx->text[lx->i + k] : '\0';
}

void lexer__advance(struct lexer *lx)
{
	struct tl_pos p = lexer__pos(lx);

	if (lx->i >= lx->len)
		return;
	tl_pos_advance(&p, lx->text[lx->i]);
	lx->line = p.line;
	lx->col = p.col;
	lx->i++;
}

void lexer__skip_line(struct lexer *lx)
{
	while (lexer__char(lx) && lexer__char(lx) != '\n')
		lexer__advance(lx);
	if (lexer__char(lx))
		lexer__advance(lx);
}

void lex_tok_free(struct lex_tok *t)
{
	free(t->val);
	t->val = NULL;
}

static int is_hspace(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * Blanks and comments. The trigger language's blanks are isspace(), newlines
 * included; a script's are horizontal (a newline ends a statement), and its
 * first bytes may be a UTF-8 BOM.
 */
void lexer__skip_blank(struct lexer *lx)
{
	for (;;) {
		int c = (unsigned char)lexer__char(lx);

		if (lx->mode != LEX_TRIGGER && lx->i == 0 && lx->len >= 3 &&
		    !strncmp(lx->text, "\xef\xbb\xbf", 3)) {
			lexer__advance(lx), lexer__advance(lx), lexer__advance(lx);
		} else if (lx->mode == LEX_TRIGGER ? c && isspace(c) : is_hspace(c)) {
			lexer__advance(lx);
		} else if (c == '#') {
			while (lexer__char(lx) && lexer__char(lx) != '\n')
				lexer__advance(lx);
		} else {
			return;
		}
	}
}

/*
 * Non-ASCII characters that look like syntax: pasted from a word processor,
 * they would otherwise end up inside words and strings and match nothing.
 */
static const char *lookalike(uint32_t cp, const char **fix)
{
	*fix = "use a plain space";
	if (cp == 0xa0 || cp == 0x2007 || cp == 0x202f)
		return "no-break space";
	if ((cp >= 0x2000 && cp <= 0x200b) || cp == 0x3000 || cp == 0xfeff)
		return "Unicode space";
	*fix = "use \" or ' around strings";
	if (cp == 0x2018 || cp == 0x2019 || cp == 0x201a || cp == 0x201c || cp == 0x201d ||
	    cp == 0x201e || cp == 0xab || cp == 0xbb)
		return "typographic quote";
	*fix = "use '-' (and '->' in latency triggers)";
	if (cp == 0x2010 || cp == 0x2011 || cp == 0x2013 || cp == 0x2014 || cp == 0x2212)
		return "dash";
	return NULL;
}

/*
 * Letters of other scripts belong in words (`name été`, `comm == ô`); the
 * punctuation and symbol blocks do not (U+2000-U+2BFF, CJK and full-width
 * punctuation, Latin-1 symbols), so '≠' or '→' is an error, not a name.
 */
static int is_word_cp(uint32_t cp)
{
	return cp >= 0xc0 && cp != 0xd7 && cp != 0xf7 && !(cp >= 0x2000 && cp <= 0x2bff) &&
	       !(cp >= 0x3000 && cp <= 0x303f) && !(cp >= 0xfe00 && cp <= 0xfeff) &&
	       !(cp >= 0xff00 && cp <= 0xff20);
}

/* Bytes of the non-ASCII word character at s, or 0. */
static int word_utf8(const char *s)
{
	uint32_t cp;
	int n = utf8_char(s, &cp);

	return n > 1 && is_word_cp(cp) ? n : 0;
}

/* Bytes of the word-starting character at s, or 0 (trigger mode). */
static int word_start_len(const char *s)
{
	int c = (unsigned char)*s;

	if (c >= 0x80)
		return word_utf8(s);
	return isalpha(c) || c == '_' || c == '*' || c == '?' || c == '[';
}

/*
 * Bytes of the word character at s, or 0 (trigger mode). '-' continues a
 * word ("my-trigger") unless it starts "->".
 */
static int word_char_len(const char *s)
{
	int c = (unsigned char)*s;

	if (c >= 0x80)
		return word_utf8(s);
	return isalnum(c) || c == '_' || c == '*' || c == '?' || c == '[' || c == ']' || c == ':' ||
	       c == '/' || c == '.' ||
	       (c == '-' && s[1] != '>' && s[1] &&
		(isalnum((unsigned char)s[1]) || s[1] == '_' || (unsigned char)s[1] >= 0x80));
}

static void tok_start(struct lexer *lx, struct lex_tok *t)
{
	memset(t, 0, sizeof(*t));
	t->pos = lexer__pos(lx);
	t->off = lx->i;
	t->s = lx->text + lx->i;
}

static void tok_end(struct lexer *lx, struct lex_tok *t, enum lex_kind k)
{
	t->kind = k;
	t->len = lx->i - t->off;
}

/* "..." or '...' with \" \' \\ escapes, on one line: the same in both languages. */
static int lex_string(struct lexer *lx, struct lex_tok *t, struct tl_error *err)
{
	size_t cap = 16, n = 0;
	char q = lexer__char(lx), *buf = malloc(cap), *nb;

	if (!buf)
		goto nomem;
	lexer__advance(lx);
	for (;;) {
		char c = lexer__char(lx);

		if (!c || c == '\n') {
			tl_set_err(err, t->pos, "unterminated string: add the closing %c", q);
			free(buf);
			return -EINVAL;
		}
		if (c == q) {
			lexer__advance(lx);
			break;
		}
		if (c == '\\') {
			char e = ahead(lx, 1);

			if (e != '"' && e != '\'' && e != '\\') {
				tl_set_err(err, lexer__pos(lx),
					   "unsupported escape '\\%c' in string: only \\\", \\' "
					   "and \\\\ are recognized",
					   e && e != '\n' ? e : ' ');
				free(buf);
				return -EINVAL;
			}
			lexer__advance(lx);
			c = e;
		}
		if (n + 2 > cap) {
			cap *= 2;
			nb = realloc(buf, cap);
			if (!nb)
				goto nomem;
			buf = nb;
		}
		buf[n++] = c;
		lexer__advance(lx);
	}
	buf[n] = '\0';
	tok_end(lx, t, LX_STR);
	t->val = buf;
	return 0;
nomem:
	free(buf);
	tl_set_err(err, t->pos, "out of memory");
	return -ENOMEM;
}

/* After a probe's name: "+0x10" and a balanced "(...)" on the same line belong to it. */
static void lex_probe_tail(struct lexer *lx)
{
	int depth = 0;

	while (lexer__char(lx) == '+' && isalnum((unsigned char)ahead(lx, 1))) {
		lexer__advance(lx);
		while (isalnum((unsigned char)lexer__char(lx)))
			lexer__advance(lx);
	}
	if (lexer__char(lx) != '(')
		return;
	do {
		char c = lexer__char(lx);

		if (!c || c == '\n')
			return;
		if (c == '(')
			depth++;
		else if (c == ')')
			depth--;
		lexer__advance(lx);
	} while (depth > 0);
}

/* Numbers and durations: "42", "0x40", "20ms", "1.5s", "2µs". */
static void lex_number(struct lexer *lx, struct lex_tok *t)
{
	if (lexer__char(lx) == '0' && (ahead(lx, 1) == 'x' || ahead(lx, 1) == 'X')) {
		lexer__advance(lx);
		lexer__advance(lx);
		while (isxdigit((unsigned char)lexer__char(lx)))
			lexer__advance(lx);
	} else {
		while (isdigit((unsigned char)lexer__char(lx)) || lexer__char(lx) == '.')
			lexer__advance(lx);
	}
	t->num_len = lx->i - t->off;
	for (;;) {
		const char *q = lx->text + lx->i;
		int k = isalnum((unsigned char)*q) || *q == '.' || *q == '_';

		/* The micro signs of "2µs": U+00B5 and U+03BC. */
		if (!k && (!strncmp(q, "\xc2\xb5", 2) || !strncmp(q, "\xce\xbc", 2)))
			k = 2;
		if (!k || lx->i >= lx->len)
			break;
		while (k--)
			lexer__advance(lx);
	}
	tok_end(lx, t, LX_NUM);
}

/* An operator of the trigger language, or an error saying what to write. */
static int lex_punct(struct lexer *lx, struct lex_tok *t, struct tl_error *err)
{
	const char *s = lx->text + lx->i;
	int c = (unsigned char)*s, plen = 1;
	enum lex_punct p = P_NONE;

	switch (c) {
	case '(': p = P_LPAREN; break;
	case ')': p = P_RPAREN; break;
	case ',': p = P_COMMA; break;
	case '/': p = P_SLASH; break;
	case '~': p = P_TILDE; break;
	case '-':
		if (s[1] == '>')
			p = P_ARROW, plen = 2;
		else
			p = P_MINUS;
		break;
	case '!':
		if (s[1] == '=')
			p = P_NE, plen = 2;
		else if (s[1] == '~')
			p = P_NTILDE, plen = 2;
		else
			p = P_NOT;
		break;
	case '&':
		if (s[1] == '&')
			p = P_AND, plen = 2;
		else
			p = P_BITAND;
		break;
	case '|':
		if (s[1] == '|') {
			p = P_OR, plen = 2;
			break;
		}
		tl_set_err(err, t->pos, "'|' is not an operator: use || for \"or\"");
		return -EINVAL;
	case '=':
		if (s[1] == '=') {
			p = P_EQ, plen = 2;
			break;
		}
		tl_set_err(err, t->pos, "'=' is not an operator: use == to compare");
		return -EINVAL;
	case '<':
		if (s[1] == '=')
			p = P_LE, plen = 2;
		else
			p = P_LT;
		break;
	case '>':
		if (s[1] == '=')
			p = P_GE, plen = 2;
		else
			p = P_GT;
		break;
	default: {
		const char *what, *fix;
		uint32_t cp;
		int k = utf8_char(s, &cp);

		if (isprint(c))
			tl_set_err(err, t->pos, "unexpected character '%c'", c);
		else if (c < 0x80 || !k)
			tl_set_err(err, t->pos, "unexpected byte 0x%02x", c);
		else if ((what = lookalike(cp, &fix)) && strstr(what, "space"))
			tl_set_err(err, t->pos, "%s (U+%04X): %s", what, (unsigned)cp, fix);
		else if (what)
			tl_set_err(err, t->pos, "%s '%.*s' (U+%04X): %s", what, k, s, (unsigned)cp,
				   fix);
		else
			tl_set_err(err, t->pos, "unexpected character '%.*s' (U+%04X)", k, s,
				   (unsigned)cp);
		return -EINVAL;
	}
	}
	while (plen--)
		lexer__advance(lx);
	tok_end(lx, t, LX_PUNCT);
	t->p = p;
	return 0;
}

/* Trigger mode: a word, with a probe's "+OFFSET" and "(field, ...)". */
static void lex_trigger_word(struct lexer *lx, struct lex_tok *t)
{
	int k;

	while (lx->i < lx->len && (k = word_char_len(lx->text + lx->i)))
		while (k--)
			lexer__advance(lx);
	if (probe_kind_of(t->s))
		lex_probe_tail(lx);
	tok_end(lx, t, LX_WORD);
}

/*
 * Script modes: a word runs to a blank, a newline or, in LEX_SCRIPT, ',' '{'
 * '}' or '#'. A probe's "(field, ...)" is part of its name: its commas and
 * blanks do not end the word.
 */
static int lex_script_word(struct lexer *lx, struct lex_tok *t, struct tl_error *err)
{
	int depth = 0;
	char c;

	while ((c = lexer__char(lx)) && c != '\n' && (depth || !is_hspace((unsigned char)c)) &&
	       !(lx->mode == LEX_SCRIPT && !depth &&
		 (c == ',' || c == '{' || c == '}' || c == '#'))) {
		if (c == '(')
			depth++;
		else if (c == ')' && depth)
			depth--;
		lexer__advance(lx);
	}
	tok_end(lx, t, LX_WORD);
	t->val = strndup(t->s, t->len);
	if (!t->val) {
		tl_set_err(err, t->pos, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int lexer__next(struct lexer *lx, struct lex_tok *t, struct tl_error *err)
{
	int c, ret = 0;

	lexer__skip_blank(lx);
	tok_start(lx, t);
	c = (unsigned char)lexer__char(lx);
	if (!c) {
		t->kind = LX_EOF;
		return 0;
	}
	if (c == '"' || c == '\'') {
		ret = lex_string(lx, t, err);
	} else if (lx->mode != LEX_TRIGGER) {
		if (c == '\n') {
			lexer__advance(lx);
			tok_end(lx, t, LX_EOL);
		} else if (lx->mode == LEX_SCRIPT && (c == ',' || c == '{' || c == '}')) {
			lexer__advance(lx);
			tok_end(lx, t, LX_PUNCT);
			t->p = c == ',' ? P_COMMA : c == '{' ? P_LBRACE : P_RBRACE;
		} else {
			ret = lex_script_word(lx, t, err);
		}
	} else if (isdigit(c)) {
		lex_number(lx, t);
	} else if (word_start_len(t->s)) {
		lex_trigger_word(lx, t);
	} else {
		ret = lex_punct(lx, t, err);
	}
	if (ret) {
		lex_tok_free(t);
		t->kind = LX_BAD;
		t->len = lx->i - t->off;
	}
	return ret;
}

enum lex_kind lexer__peek(const struct lexer *lx, struct lex_tok *t)
{
	struct lexer copy = *lx;
	struct lex_tok tok;

	/* An error found while peeking is found again when the token is taken. */
	lexer__next(&copy, &tok, NULL);
	if (t)
		*t = tok;
	else
		lex_tok_free(&tok);
	return tok.kind;
}
