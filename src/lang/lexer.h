/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one lexer of both languages: the trigger language (`--trigger`, a
 * script's trigger bodies) and the script's statements. A cursor over
 * NUL-terminated text with 1-based line:col positions, and one token at a
 * time (lexer__next(), lexer__peek()).
 *
 * The two languages share positions, comments ('#' to the end of the
 * line), strings ("..." or '...' with \" \' \\ escapes, on one line) and
 * their error messages. They differ in what a word is, so the lexer has a
 * mode:
 *   LEX_TRIGGER      newlines are blanks; words, numbers (with their unit:
 *                    "20ms"), strings and operators ("->", "&&", "!~", ...);
 *                    any other character is an error.
 *   LEX_SCRIPT       a statement line: newlines are tokens (LX_EOL), a word
 *                    is anything up to a blank, ',', '{', '}' or '#' (a
 *                    probe's "(field, ...)" stays in it), and ',' '{' '}'
 *                    are punctuation; a UTF-8 BOM at the start is a blank.
 *   LEX_SCRIPT_ARGV  as LEX_SCRIPT, but only blanks end a word (a command
 *                    line: "a,b" and "x{y}" are words).
 */
#ifndef TRIGREC_LEXER_H
#define TRIGREC_LEXER_H
#include <stddef.h>
#include <stdint.h>

struct tl_pos {
	int line; /* 1-based; saturates at INT_MAX */
	int col;  /* 1-based, in bytes; saturates at INT_MAX */
};

struct tl_error {
	struct tl_pos pos;
	char msg[512];
};

enum lex_mode { LEX_TRIGGER, LEX_SCRIPT, LEX_SCRIPT_ARGV };

enum lex_kind {
	LX_EOF,
	LX_EOL,	  /* script modes only */
	LX_WORD,  /* a name, a keyword, an event, a probe with its tail */
	LX_NUM,	  /* trigger mode only: "42", "0x40", "20ms", "1.5s", "2µs" */
	LX_STR,	  /* "..." or '...': val is the decoded text */
	LX_PUNCT, /* p says which */
	LX_BAD,	  /* lexer__next() failed: the error says why */
};

enum lex_punct {
	P_NONE,
	P_LPAREN,
	P_RPAREN,
	P_COMMA,
	P_SLASH,
	P_ARROW,
	P_MINUS,
	P_NOT,
	P_AND,
	P_OR,
	P_BITAND,
	P_TILDE,
	P_EQ,
	P_NE,
	P_LT,
	P_LE,
	P_GT,
	P_GE,
	P_NTILDE, /* !~: not matching the glob */
	P_LBRACE, /* script modes: a trigger block's braces */
	P_RBRACE,
};

extern const char *const lex_punct_text[];

struct lex_tok {
	enum lex_kind kind;
	enum lex_punct p; /* LX_PUNCT */
	struct tl_pos pos;
	const char *s; /* the token's source text */
	size_t off;    /* s - the lexer's text */
	size_t len;
	size_t num_len; /* LX_NUM: bytes of the number; its unit is s + num_len */
	char *val;	/* LX_STR: the decoded string; LX_WORD in script modes: a copy */
};

struct lexer {
	const char *text; /* NUL-terminated at len (or before) */
	size_t len;
	size_t i;      /* the cursor: text[i] */
	int line, col; /* of text[i] */
	enum lex_mode mode;
};

/* A lexer at the start of text, whose first byte is at first_line:first_col (< 1: 1). */
void lexer__init(struct lexer *lx, const char *text, size_t len, int first_line, int first_col,
		 enum lex_mode mode);

/*
 * The next token into *t (free its val with lex_tok_free()). On an error:
 * -EINVAL (-ENOMEM), the token LX_BAD and *err (may be NULL) says what and
 * where; the cursor is where the error is, or at the end of the bad string.
 */
int lexer__next(struct lexer *lx, struct lex_tok *t, struct tl_error *err);

/* The next token's kind, without taking it (*t, if not NULL: the token). */
enum lex_kind lexer__peek(const struct lexer *lx, struct lex_tok *t);

/* The cursor, for parsers that read raw text (a kernel filter, a trigger body). */
struct tl_pos lexer__pos(const struct lexer *lx);
char lexer__char(const struct lexer *lx); /* text[i], 0 at the end */
void lexer__advance(struct lexer *lx);	  /* one byte */
void lexer__skip_blank(struct lexer *lx); /* blanks and comments; in script modes never a newline */
void lexer__skip_line(struct lexer *lx);  /* past the next newline */

void lex_tok_free(struct lex_tok *t);

/* pos advanced over byte c: a newline starts the next line. */
/* err (may be NULL) := pos and the message: the lexer's errors and both parsers'. */
void __attribute__((format(printf, 3, 4)))
tl_set_err(struct tl_error *err, struct tl_pos pos, const char *fmt, ...);
void tl_pos_advance(struct tl_pos *p, char c);

#endif /* TRIGREC_LEXER_H */
