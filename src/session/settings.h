/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The settings of a run, one row each: the command-line flag, the script
 * statement, the config field, how a value is parsed and printed, the
 * default, whether a reload may change it, and the help line. The record
 * and run option tables and --help (cli/), the script's statements and
 * aliases (script/script.c), config__init()'s defaults, --dump-script, run's
 * override merge and the reload diff (session/session.c) are all made from
 * settings[]. Adding a setting is its field in config.h and one row here.
 *
 * Not rows, and not to be: events and --filter (`record`), triggers
 * (--trigger, `trigger NAME { }`) and the command. They are the script's
 * body, what is recorded and when, not settings of the run (see the top of
 * settings.c).
 */
#ifndef TRIGREC_SETTINGS_H
#define TRIGREC_SETTINGS_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "session/config.h"

/* How the field is stored. */
enum setting_type {
	SETT_INT,     /* int: a flag (1 = given), a mode, a signal */
	SETT_U32,     /* uint32_t / unsigned int */
	SETT_U64,     /* uint64_t */
	SETT_ULONG,   /* unsigned long */
	SETT_PID,     /* pid_t */
	SETT_STR,     /* char *, owned (NULL = not set) */
	SETT_ARGV,    /* char **, owned, NULL-terminated (NULL = not set) */
	SETT_CPUMASK, /* unsigned char * (owned, 1 = record) and its int length at off2 */
	SETT_PAIRS,   /* uint64_t[2] and a second uint64_t[2] at off2 (0 in [0] = not set) */
};

/* How the script writes it. */
enum setting_form {
	SETF_NONE,  /* command line only: no statement */
	SETF_FLAG,  /* the keyword alone (callgraph) */
	SETF_VALUE, /* keyword VALUE (a word) */
	SETF_UNIT,  /* keyword VALUE, a unit may stand apart ("post 10 ms") */
	SETF_PATH,  /* keyword VALUE, a word or a "quoted string" */
	SETF_LINE,  /* keyword, then the rest of the line as written (cpus 0-3,5) */
	SETF_WORDS, /* keyword, then the line's words joined by blanks (budget 10/min, 1/s) */
	SETF_ARGV,  /* keyword, then a program and its arguments (SETT_ARGV) */
	/* Syntaxes of their own, each parsed by its handler in script/script.c: */
	SETF_OUTPUT,   /* output DIR [keep LIMITS] */
	SETF_KEEP,     /* keep N files, SIZE, AGE: the three rows whose in_stmt is "output" */
	SETF_COMPRESS, /* compress zstd [LEVEL] | none */
};

struct setting;
/* Parse a (NULL for a flag) into the field; 0, or -errno with the reason in err. */
typedef int (*setting_parse_fn)(struct trigrec_config *c, const struct setting *s, const char *a,
				char *err, size_t len);
/* Print the statement that sets the field as it is, or nothing when it is at its default. */
typedef void (*setting_print_fn)(const struct trigrec_config *c, const struct setting *s,
				 FILE *out);

struct setting {
	/* The command line: --name (NULL = script only), -short, ARG (NULL = a flag). */
	const char *name;
	char short_name;
	const char *arg;
	const char *help; /* --help and the man page; lines after the first are indented */
	/* A value other than the default, as the flag (or the statement) takes it: the
	 * round-trip test (tests/unit/test_settings.c) runs every row with it. */
	const char *example;
	const char *group; /* --help section */
	int run;	   /* `trigrec run FILE` takes it after FILE, over the script's */

	/* The script (docs/script-language.md). */
	const char *kw; /* statement; NULL = command line only */
	enum setting_form form;
	const char *usage; /* the statement as its errors show it */
	const char *what;  /* its errors start with this ("frequency (Hz): "); NULL = "KW: " */
	/* What the flag's spellings (-F, --freq, freq, call_graph) are told to write. NULL: kw. */
	const char *alias_to;
	const char *aliases;  /* more words answered with kw, blank-separated */
	const char *excludes; /* a statement it cannot go with, and what to do instead */
	const char *excl_why;
	const char *requires; /* a statement it needs (config__finalize() checks), or NULL */
	/* No statement of its own (kw NULL) or not only its own: the statement that
	 * carries its value, whose row prints it (-a: "cpus", --keep-bytes: "output"). */
	const char *in_stmt;
	/* The statement's parser when it differs from the flag's (`cpus all`); NULL: parse. */
	setting_parse_fn stmt_parse;

	/* The config. */
	size_t off;
	size_t off2; /* SETT_CPUMASK, SETT_PAIRS: the second field */
	enum setting_type type;
	uint64_t def;	     /* config__init()'s value (strings: NULL) */
	const char *def_env; /* config__init(): else this environment variable, parsed */
	setting_parse_fn parse;
	setting_print_fn print;
	/* A reload (trigrec control SOCK reload) with it changed says "NAME changed, not
	 * applied until a restart"; NULL: a reload applies it, or it cannot differ. */
	const char *reload;
};

extern const struct setting settings[];
extern const int nr_settings;
#define SETTINGS_MAX 64 /* nr_settings is at most this */

/* The row of statement kw, or of the long flag name; NULL if none. */
const struct setting *settings__by_kw(const char *kw);
const struct setting *settings__by_name(const char *name);

/* Through the row's parser (a NULL: the flag given). */
int settings__set(struct trigrec_config *c, const struct setting *s, const char *a, char *err,
		  size_t len);
/* The field of dst set to src's (strings copied); 0 or -ENOMEM. */
int settings__copy(struct trigrec_config *dst, const struct trigrec_config *src,
		   const struct setting *s);
/* 1 when the field differs between a and b. */
int settings__differ(const struct trigrec_config *a, const struct trigrec_config *b,
		     const struct setting *s);
/* SETT_ARGV: the field takes v (owned from now on; the old one is freed). */
void settings__put_argv(struct trigrec_config *c, const struct setting *s, char **v);
/* The field as a number (pointers: 0 for NULL, else 1; pairs: [0]), for tests and printers. */
uint64_t settings__get(const struct trigrec_config *c, const struct setting *s);

/* config__init()'s part: every row's default. */
void settings__defaults(struct trigrec_config *c);
/* config__fini()'s part: the strings the rows own. */
void settings__free(struct trigrec_config *c);
/* --dump-script's part: each row's statement, in table order. */
void settings__dump(const struct trigrec_config *c, FILE *out);

/*
 * The man page's list of these statements (docs/trigrec.1, SCRIPTS), one
 * .BR line per row: "keyword ARG (flags),". `make man-settings` writes it
 * between the page's "settings: begin/end" comment lines; test_settings
 * checks that the page is current.
 */
void settings__man_statements(FILE *out);
#define SETTINGS_MAN_BEGIN ".\\\" settings: begin (make man-settings writes these lines)"
#define SETTINGS_MAN_END ".\\\" settings: end"

/* A word as the script lexer reads it back; sizes and durations as the script writes them. */
void settings__put_word(FILE *out, const char *w);
void settings__put_size(FILE *out, uint64_t bytes);
void settings__put_duration(FILE *out, uint64_t ns);

#endif
