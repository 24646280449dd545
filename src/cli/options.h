/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Command-line options declared once, in a table that both parses argv
 * (getopt_long underneath) and prints --help, as perf's `struct option`
 * tables do. Options only fill a struct trigrec_config.
 */
#ifndef TRIGREC_OPTIONS_H
#define TRIGREC_OPTIONS_H
#include <stdio.h>
#include "session/config.h"
#include "session/settings.h"

struct opt_ctx {
	struct trigrec_config *cfg;
	int help;			   /* -h given */
	int dump_script;		   /* --dump-script given */
	unsigned char given[SETTINGS_MAX]; /* settings[i] given (run: it overrides the script) */
};

struct opt_spec {
	char short_name; /* 'e', or 0 for long-only */
	const char *long_name;
	const char *arg;  /* argument name in the help ("EVENT"); NULL: a flag;
	                        * "[N]": optional (-z, -z3, -z 3, --x=3, --x 3) */
	const char *help; /* lines after the first are indented under it */
	/* 0, or -errno after writing the reason to err (the caller names the option). */
	int (*set)(struct opt_ctx *ctx, const char *arg, char *err, size_t errlen);
	const char *group; /* its help section: a heading where it changes */
	/* A setting's row (set is then NULL): settings__set(), and given[] marked. */
	const struct setting *setting;
};

/* The option of a setting's row (its --name, help and group). */
struct opt_spec opts__of_setting(const struct setting *s);

/*
 * Parse argv[1..] (argv[0] is the command name) until the first non-option,
 * or "--". Returns the index of the first operand, or -1 after an error
 * message (a usage error: exit 2).
 */
int opts__parse(const struct opt_spec *tab, int n, const char *cmd, int argc, char **argv,
		struct opt_ctx *ctx);
/* The option lines of --help, grouped, aligned. */
void opts__help(FILE *f, const struct opt_spec *tab, int n);

#endif
