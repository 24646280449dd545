// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/options.h"
#include "util/log.h"

#define HELP_COL 26 /* where the help text starts */

/* "-e, --event EVENT" / "    --filter FILTER", as it starts the help line. */
static int opt_title(const struct opt_spec *o, char *buf, size_t len)
{
	return snprintf(buf, len, "%c%c%c --%s%s%s", o->short_name ? '-' : ' ',
			o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ',
			o->long_name, o->arg ? " " : "", o->arg ? o->arg : "");
}

/* An argument written "[N]" in the table is optional. */
static int opt_optional(const struct opt_spec *o)
{
	return o->arg && o->arg[0] == '[';
}

/* A number that follows an option with an optional number: "-z 3", "--compression-level 19". */
static int is_number(const char *s)
{
	return s && *s && s[strspn(s, "0123456789")] == '\0';
}

static const char *opt_name(const struct opt_spec *o, char *buf, size_t len)
{
	if (o->short_name)
		snprintf(buf, len, "-%c/--%s", o->short_name, o->long_name);
	else
		snprintf(buf, len, "--%s", o->long_name);
	return buf;
}

int opts__parse(const struct opt_spec *tab, int n, const char *cmd, int argc, char **argv,
		struct opt_ctx *ctx)
{
	struct option *lo = calloc(n + 1, sizeof(*lo));
	char shorts[3 * 128] = "+", err[1024], name[64];
	int c, idx, ret = -1;

	if (!lo) {
		elog("out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		lo[i].name = tab[i].long_name;
		lo[i].has_arg = opt_optional(&tab[i]) ? optional_argument :
				tab[i].arg	      ? required_argument :
							no_argument;
		/* Long-only options are told apart by their index past the char range. */
		lo[i].val = tab[i].short_name ? tab[i].short_name : 256 + i;
		if (tab[i].short_name) {
			size_t l = strlen(shorts);

			shorts[l++] = tab[i].short_name;
			if (tab[i].arg)
				shorts[l++] = ':';
			if (opt_optional(&tab[i]))
				shorts[l++] = ':';
			shorts[l] = 0;
		}
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (c == '?') {
			int k = optopt >= 256 ? optopt - 256 : -1;

			for (int i = 0; k < 0 && optopt && i < n; i++)
				if (tab[i].short_name == optopt)
					k = i;
			if (k >= 0)
				elog("option %s needs a value",
				     opt_name(&tab[k], name, sizeof(name)));
			else if (optopt)
				elog("unknown option -%c", optopt);
			else
				elog("unknown option %s", argv[optind - 1]);
			fprintf(stderr, "Run 'trigrec %s -h' for the options.\n", cmd);
			goto out;
		}
		for (idx = 0; idx < n; idx++)
			if ((tab[idx].short_name && c == tab[idx].short_name) || c == 256 + idx)
				break;
		if (idx == n)
			goto out;
		err[0] = 0;
		/* getopt only takes an optional value attached (-z3, --x=3): take "-z 3" too */
		if (opt_optional(&tab[idx]) && !optarg && optind < argc && is_number(argv[optind]))
			optarg = argv[optind++];
		if (tab[idx].setting ?
			    settings__set(ctx->cfg, tab[idx].setting, optarg, err, sizeof(err)) :
			    tab[idx].set(ctx, optarg, err, sizeof(err))) {
			if (err[0])
				elog("invalid %s: %s", opt_name(&tab[idx], name, sizeof(name)),
				     err);
			goto out;
		}
		if (tab[idx].setting)
			ctx->given[tab[idx].setting - settings] = 1;
		if (ctx->help)
			break;
	}
	ret = optind;
out:
	free(lo);
	return ret;
}

struct opt_spec opts__of_setting(const struct setting *s)
{
	return (struct opt_spec){ .short_name = s->short_name,
				  .long_name = s->name,
				  .arg = s->arg,
				  .help = s->help,
				  .group = s->group,
				  .setting = s };
}

void opts__help(FILE *f, const struct opt_spec *tab, int n)
{
	char title[128];

	for (int i = 0; i < n; i++) {
		const char *h = tab[i].help, *nl;
		int w;

		if (tab[i].group &&
		    (!i || !tab[i - 1].group || strcmp(tab[i].group, tab[i - 1].group)))
			fprintf(f, "\n%s\n", tab[i].group);
		w = opt_title(&tab[i], title, sizeof(title));
		fprintf(f, "  %s", title);
		if (w + 2 + 1 > HELP_COL)
			fprintf(f, "\n%*s", HELP_COL, "");
		else
			fprintf(f, "%*s", HELP_COL - 2 - w, "");
		while ((nl = strchr(h, '\n'))) {
			fprintf(f, "%.*s\n%*s", (int)(nl - h), h, HELP_COL, "");
			h = nl + 1;
		}
		fprintf(f, "%s\n", h);
	}
}
