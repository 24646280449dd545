// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for src/lang/lexer.c, the lexer of the trigger language and
 * the script, as tables: a text and its mode, then the tokens it gives
 * (each as KIND@LINE:COL:TEXT) or the error it gives (line:col, message).
 */
#include <errno.h>
#include <limits.h>
#include "check.h"
#include "lang/lexer.h"

/*
 * The tokens of text, one per word: W (word), N (number: NUMBER|UNIT), S
 * (string: its decoded value), P (operator), L (end of line), E (end), each
 * with its line:col. Stops at the first error, which it returns.
 */
static int render(const char *text, enum lex_mode mode, int line, int col, char *out, size_t len,
		  struct tl_error *err)
{
	struct lexer lx;
	size_t o = 0;
	int ret = 0;

	out[0] = '\0';
	lexer__init(&lx, text, strlen(text), line, col, mode);
	for (int n = 0; n < 100; n++) {
		struct lex_tok t;
		char k = '?';

		ret = lexer__next(&lx, &t, err);
		if (ret) {
			CHECK_EQ(t.kind, LX_BAD);
			CHECK(!t.val);
			break;
		}
		switch (t.kind) {
		case LX_EOF: k = 'E'; break;
		case LX_EOL: k = 'L'; break;
		case LX_WORD: k = 'W'; break;
		case LX_NUM: k = 'N'; break;
		case LX_STR: k = 'S'; break;
		case LX_PUNCT: k = 'P'; break;
		case LX_BAD: k = 'B'; break;
		}
		o += (size_t)snprintf(out + o, len - o, "%s%c@%d:%d", o ? " " : "", k, t.pos.line,
				      t.pos.col);
		if (t.kind == LX_NUM)
			o += (size_t)snprintf(out + o, len - o, ":%.*s|%.*s", (int)t.num_len, t.s,
					      (int)(t.len - t.num_len), t.s + t.num_len);
		else if (t.kind == LX_STR)
			o += (size_t)snprintf(out + o, len - o, ":%s", t.val);
		else if (t.kind == LX_PUNCT) {
			CHECK_EQ(strlen(lex_punct_text[t.p]), t.len);
			CHECK(!strncmp(lex_punct_text[t.p], t.s, t.len));
			o += (size_t)snprintf(out + o, len - o, ":%s", lex_punct_text[t.p]);
		} else if (t.kind == LX_WORD) {
			o += (size_t)snprintf(out + o, len - o, ":%.*s", (int)t.len, t.s);
			/* Script words carry a copy; trigger words are read in place. */
			if (mode == LEX_TRIGGER)
				CHECK(!t.val);
			else
				CHECK(t.val && strlen(t.val) == t.len &&
				      !strncmp(t.val, t.s, t.len));
		}
		CHECK_EQ(t.s, text + t.off);
		lex_tok_free(&t);
		if (k == 'E' || o >= len)
			break;
	}
	return ret;
}

struct tok_case {
	enum lex_mode mode;
	const char *text;
	const char *toks;
};

#define TR LEX_TRIGGER
#define SC LEX_SCRIPT
#define AV LEX_SCRIPT_ARGV

static const struct tok_case tok_cases[] = {
	/* Every operator of the trigger language. */
	{ TR, "( ) , / -> - ! && || & ~ == != < <= > >= !~",
	  "P@1:1:( P@1:3:) P@1:5:, P@1:7:/ P@1:9:-> P@1:12:- P@1:14:! P@1:16:&& P@1:19:|| "
	  "P@1:22:& P@1:24:~ P@1:26:== P@1:29:!= P@1:32:< P@1:34:<= P@1:37:> P@1:39:>= "
	  "P@1:42:!~ E@1:44" },
	/* Operators need no blanks; '-' joins a word only before a letter, digit or '_'. */
	{ TR, "a->b a-b a- b x>=1&&!y",
	  "W@1:1:a P@1:2:-> W@1:4:b W@1:6:a-b W@1:10:a P@1:11:- "
	  "W@1:13:b W@1:15:x P@1:16:>= N@1:18:1| P@1:19:&& "
	  "P@1:21:! W@1:22:y E@1:23" },
	/* Words: globs, events, dots, non-ASCII letters. */
	{ TR, "sched:sched_switch sys_*/[ab]? prev.comm _x été",
	  "W@1:1:sched:sched_switch W@1:20:sys_*/[ab]? W@1:32:prev.comm W@1:42:_x W@1:45:été "
	  "E@1:50" },
	/* A probe's name goes on through +OFFSET and a balanced (fields, ...). */
	{ TR, "kprobe:do_sys_open+0x10(dfd, fn) > 1",
	  "W@1:1:kprobe:do_sys_open+0x10(dfd, fn) P@1:34:> N@1:36:1| E@1:37" },
	/* Numbers and their units: the number, then the unit as written. */
	{ TR, "42 0x40 20ms 1.5s 10ns 3us 2\xc2\xb5s 4KiB 0x4KiB 7_",
	  "N@1:1:42| N@1:4:0x40| N@1:9:20|ms N@1:14:1.5|s N@1:19:10|ns N@1:24:3|us "
	  "N@1:28:2|\xc2\xb5s N@1:33:4|KiB N@1:38:0x4|KiB N@1:45:7|_ E@1:47" },
	{ TR, "5min 1h 2\xce\xbcs 9.",
	  "N@1:1:5|min N@1:6:1|h N@1:9:2|\xce\xbcs N@1:14:9.| E@1:16" },
	/* Strings, both quotes, each escape; newlines are blanks; comments. */
	{ TR, "\"a b\" 'c\"d' \"\\\"\\'\\\\\"\n  # all this\nx # end",
	  "S@1:1:a b S@1:7:c\"d S@1:13:\"'\\ W@3:1:x E@3:8" },
	{ TR, "\"\" ''", "S@1:1: S@1:4: E@1:6" },
	/* Positions start where the caller says and saturate. */
	{ TR, "a\n b", "W@1:1:a W@2:2:b E@2:3" },
	{ TR, "", "E@1:1" },
	/* Script statements: newlines are tokens, words run to a blank , { } or #. */
	{ SC, "output /tmp/x,keep 3 # c\n\ntrigger t {\n}",
	  "W@1:1:output W@1:8:/tmp/x P@1:14:, W@1:15:keep W@1:20:3 L@1:25 L@2:1 W@3:1:trigger "
	  "W@3:9:t P@3:11:{ L@3:12 P@4:1:} E@4:2" },
	/* A probe's "(field, ...)" stays in its word; strings as in triggers. */
	{ SC, "record uprobe:/bin/x:f(a, b) 'q\\'s'",
	  "W@1:1:record W@1:8:uprobe:/bin/x:f(a, b) S@1:30:q's E@1:36" },
	/* Operators are words in a script; a BOM at the start is a blank. */
	{ SC,
	  "\xef\xbb\xbf"
	  "a->b x==1\tc\r\n",
	  "W@1:4:a->b W@1:9:x==1 W@1:14:c L@1:16 E@2:1" },
	/* A command line: only blanks end a word, '#' starts a comment only at a word's start. */
	{ AV, "sh -c a,b{c}#d #x\ny", "W@1:1:sh W@1:4:-c W@1:7:a,b{c}#d L@1:18 W@2:1:y E@2:2" },
};

TEST(tokens)
{
	for (size_t i = 0; i < sizeof(tok_cases) / sizeof(tok_cases[0]); i++) {
		const struct tok_case *c = &tok_cases[i];
		struct tl_error err = { 0 };
		char out[1024];

		if (render(c->text, c->mode, 1, 1, out, sizeof(out), &err)) {
			fprintf(stderr, "    case %zu: %d:%d: %s\n", i, err.pos.line, err.pos.col,
				err.msg);
			CHECK(0);
			continue;
		}
		if (strcmp(out, c->toks))
			fprintf(stderr, "    case %zu: %s\n", i, c->text);
		CHECK_STR(out, c->toks);
	}
	return 0;
}

struct err_case {
	enum lex_mode mode;
	const char *text;
	int line, col;
	const char *msg;
};

static const struct err_case err_cases[] = {
	{ TR, "comm == \"abc", 1, 9, "unterminated string: add the closing \"" },
	{ TR, "x\n'ab\ncd'", 2, 1, "unterminated string: add the closing '" },
	{ TR, "comm == \"a\\nb\"", 1, 11,
	  "unsupported escape '\\n' in string: only \\\", \\' and \\\\ are recognized" },
	{ TR, "\"a\\", 1, 3,
	  "unsupported escape '\\ ' in string: only \\\", \\' and \\\\ are recognized" },
	{ TR, "a | b", 1, 3, "'|' is not an operator: use || for \"or\"" },
	{ TR, "pid = 1", 1, 5, "'=' is not an operator: use == to compare" },
	{ TR, "x {", 1, 3, "unexpected character '{'" },
	{ TR, "x\n  $", 2, 3, "unexpected character '$'" },
	{ TR, "x \x01", 1, 3, "unexpected byte 0x01" },
	{ TR, "x \xff", 1, 3, "unexpected byte 0xff" },
	{ TR,
	  "a\xc2\xa0"
	  "b",
	  1, 2, "no-break space (U+00A0): use a plain space" },
	{ TR, "a \xe2\x80\x83", 1, 3, "Unicode space (U+2003): use a plain space" },
	{ TR,
	  "comm == \xe2\x80\x9c"
	  "x",
	  1, 9, "typographic quote '\xe2\x80\x9c' (U+201C): use \" or ' around strings" },
	{ TR, "a \xe2\x80\x93> b", 1, 3,
	  "dash '\xe2\x80\x93' (U+2013): use '-' (and '->' in latency triggers)" },
	{ TR, "pid \xe2\x89\xa0 1", 1, 5, "unexpected character '\xe2\x89\xa0' (U+2260)" },
	/* A script's statements share the string rules and their messages. */
	{ SC, "output \"/tmp/x\n", 1, 8, "unterminated string: add the closing \"" },
	{ SC, "a\n  command 'x\\ty'", 2, 13,
	  "unsupported escape '\\t' in string: only \\\", \\' and \\\\ are recognized" },
	{ AV, "sh -c 'echo", 1, 7, "unterminated string: add the closing '" },
};

TEST(errors)
{
	for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		const struct err_case *c = &err_cases[i];
		struct tl_error err = { 0 };
		char out[1024];

		if (render(c->text, c->mode, 1, 1, out, sizeof(out), &err) != -EINVAL) {
			fprintf(stderr, "    case %zu: no error, tokens %s\n", i, out);
			CHECK(0);
			continue;
		}
		if (err.pos.line != c->line || err.pos.col != c->col || strcmp(err.msg, c->msg))
			fprintf(stderr, "    case %zu: %s\n", i, c->text);
		CHECK_EQ(err.pos.line, c->line);
		CHECK_EQ(err.pos.col, c->col);
		CHECK_STR(err.msg, c->msg);
	}
	return 0;
}

/* A trigger of a script starts where the script says; positions saturate at INT_MAX. */
TEST(first_position_and_saturation)
{
	struct tl_error err = { 0 };
	char out[256];

	CHECK_EQ(render("a\n b", TR, 7, 3, out, sizeof(out), &err), 0);
	CHECK_STR(out, "W@7:3:a W@8:2:b E@8:3");
	CHECK_EQ(render("a b", TR, 0, -4, out, sizeof(out), &err), 0);
	CHECK_STR(out, "W@1:1:a W@1:3:b E@1:4");
	CHECK_EQ(render("a bc\nd", TR, INT_MAX, INT_MAX - 1, out, sizeof(out), &err), 0);
	CHECK_STR(out, "W@2147483647:2147483646:a W@2147483647:2147483647:bc "
		       "W@2147483647:1:d E@2147483647:2");
	CHECK_EQ(render("x '", TR, INT_MAX, INT_MAX, out, sizeof(out), &err), -EINVAL);
	CHECK_EQ(err.pos.line, INT_MAX);
	CHECK_EQ(err.pos.col, INT_MAX);
	return 0;
}

/* peek takes nothing and reports nothing; next then finds the same token or error. */
TEST(peek_then_next)
{
	struct lexer lx;
	struct lex_tok t, u;
	struct tl_error err = { 0 };
	const char *text = "abc 'x";

	lexer__init(&lx, text, strlen(text), 1, 1, LEX_SCRIPT);
	CHECK_EQ(lexer__peek(&lx, NULL), LX_WORD);
	CHECK_EQ(lexer__peek(&lx, &t), LX_WORD);
	CHECK(t.val && !strcmp(t.val, "abc"));
	lex_tok_free(&t);
	CHECK_EQ(lx.i, 0);
	CHECK_EQ(lexer__next(&lx, &u, &err), 0);
	CHECK_EQ(u.kind, LX_WORD);
	CHECK_EQ(u.len, 3);
	lex_tok_free(&u);
	CHECK_EQ(lexer__peek(&lx, &t), LX_BAD);
	CHECK(!t.val);
	CHECK_EQ(err.msg[0], '\0');
	CHECK_EQ(lx.col, 4);
	CHECK_EQ(lexer__next(&lx, &u, &err), -EINVAL);
	CHECK_EQ(u.kind, LX_BAD);
	CHECK_EQ(err.pos.col, 5);
	CHECK_STR(err.msg, "unterminated string: add the closing '");
	/* The cursor stops at the end of the line, for the caller to skip it. */
	CHECK_EQ(lx.i, strlen(text));
	CHECK_EQ(lexer__next(&lx, &u, NULL), 0);
	CHECK_EQ(u.kind, LX_EOF);
	return 0;
}

/* The length bounds the text, as the first NUL does: a script's NUL ends its parse. */
TEST(length_and_nul_end_the_text)
{
	struct lexer lx;
	struct lex_tok t;

	lexer__init(&lx, "ab cd", 2, 1, 1, LEX_TRIGGER);
	CHECK_EQ(lexer__next(&lx, &t, NULL), 0);
	CHECK_EQ(t.kind, LX_WORD);
	CHECK_EQ(t.len, 2);
	CHECK_EQ(lexer__next(&lx, &t, NULL), 0);
	CHECK_EQ(t.kind, LX_EOF);
	lexer__init(&lx, "ab\0cd", 5, 1, 1, LEX_SCRIPT);
	CHECK_EQ(lexer__next(&lx, &t, NULL), 0);
	CHECK_EQ(t.kind, LX_WORD);
	lex_tok_free(&t);
	CHECK_EQ(lexer__next(&lx, &t, NULL), 0);
	CHECK_EQ(t.kind, LX_EOF);
	/* skip_line stops at the end. */
	lexer__init(&lx, "ab\ncd", 5, 1, 1, LEX_SCRIPT);
	lexer__skip_line(&lx);
	CHECK_EQ(lx.line, 2);
	CHECK_EQ(lexer__char(&lx), 'c');
	lexer__skip_line(&lx);
	CHECK_EQ(lexer__char(&lx), '\0');
	lexer__advance(&lx);
	CHECK_EQ(lx.i, 5);
	return 0;
}

RUN_TESTS(T(tokens), T(errors), T(first_position_and_saturation), T(peek_then_next),
	  T(length_and_nul_end_the_text))
