// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The settings table (session/settings.c) round-trips: every row's flag
 * value into a config, that config through --dump-script and the script
 * parser, and back to the same config, compared field by field through the
 * table. A row without a parser, a printer, a statement its printer writes
 * or a parser that sets the wrong field fails here.
 */
#include <errno.h>
#include <stdlib.h>
#include "check.h"
#include "script/script.h"
#include "session/config.h"
#include "session/settings.h"

/* Rows that differ between a and b, named into buf ("" when none). */
static const char *differing(const struct trigrec_config *a, const struct trigrec_config *b,
			     char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (int j = 0; j < nr_settings && o < len; j++)
		if (settings__differ(a, b, &settings[j]))
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "",
					      settings[j].kw   ? settings[j].kw :
					      settings[j].name ? settings[j].name :
								 "(no name)");
	return buf;
}

/* The environment gives two defaults: a round trip must not depend on it. */
static void clean_env(void)
{
	unsetenv("TRIGREC_RINGS");
	unsetenv("TRIGREC_ON_SNAPSHOT_USER");
}

TEST(every_row_is_complete)
{
	for (int i = 0; i < nr_settings; i++) {
		const struct setting *st = &settings[i];
		const char *id = st->kw ? st->kw : st->name ? st->name : "(internal)";

		if (!st->name && !st->kw)
			continue; /* internal (track_pages): a default, nothing to set */
		if (!st->parse)
			fprintf(stderr, "    %s: no parser\n", id);
		CHECK(st->parse);
		if (st->name) {
			if (!st->help || !st->group)
				fprintf(stderr, "    --%s: no help line or help section\n",
					st->name);
			CHECK(st->help && st->group);
			CHECK(settings__by_name(st->name) == st);
		}
		if (st->kw) {
			/* A row whose value another statement's line carries has no printer. */
			if ((!st->print && !st->in_stmt) || !st->usage || st->form == SETF_NONE)
				fprintf(stderr, "    %s: no printer, usage or form\n", st->kw);
			CHECK((st->print || st->in_stmt) && st->usage && st->form != SETF_NONE);
			CHECK(settings__by_kw(st->kw) == st);
		}
		if (st->in_stmt) {
			const struct setting *o = settings__by_kw(st->in_stmt);

			/* keep-age is in keep, which output's line prints. */
			for (int hop = 0; o && !o->print && o->in_stmt && hop < 3; hop++)
				o = settings__by_kw(o->in_stmt);

			if (!o || !o->print)
				fprintf(stderr,
					"    %s: its statement %s has no row or no printer\n", id,
					st->in_stmt);
			CHECK(o && o->print);
		}
		if (st->arg || !st->name) {
			if (!st->example)
				fprintf(stderr, "    %s: no example value\n", id);
			CHECK(st->example);
		}
	}
	return 0;
}

/* flag -> config -> --dump-script -> script -> the same config, row by row. */
TEST(every_row_round_trips)
{
	struct trigrec_config def;
	char err[512], diff[1024];

	clean_env();
	config__init(&def);
	for (int i = 0; i < nr_settings; i++) {
		const struct setting *st = &settings[i];
		const char *val = st->arg || !st->name ? st->example : NULL;
		const char *id = st->kw ? st->kw : st->name;
		struct trigrec_config a, b;
		struct script *s;
		char *text = NULL;
		size_t len = 0;
		FILE *f;

		if ((!st->name && !st->kw) || !st->parse)
			continue; /* every_row_is_complete says what is missing */
		config__init(&a);
		/* A software event: the script needs no tracefs format for it. */
		CHECK_EQ(config__add_event(&a, "cpu-clock", NULL), 0);
		err[0] = 0;
		if (settings__set(&a, st, val, err, sizeof(err))) {
			fprintf(stderr, "    %s %s: %s\n", st->name ? st->name : st->kw,
				val ? val : "", err);
			CHECK(!"the example value parses");
		}
		if (st->requires) {
			const struct setting *r = settings__by_kw(st->requires);

			CHECK(r);
			if (r)
				CHECK_EQ(settings__set(&a, r, r->example, err, sizeof(err)), 0);
		}
		if (!settings__differ(&a, &def, st)) {
			fprintf(stderr, "    %s %s: the field is still at its default\n",
				st->name ? st->name : st->kw, val ? val : "");
			CHECK(!"the example value sets the row's field");
		}
		if (!st->in_stmt && (!st->kw || !st->print)) {
			config__fini(&a);
			continue; /* command line only */
		}
		/* As record does before --dump-script (-o's "." is made here). */
		CHECK_EQ(config__finalize(&a, err, sizeof(err)), 0);
		f = open_memstream(&text, &len);
		CHECK(f);
		if (!f) {
			config__fini(&a);
			continue;
		}
		CHECK_EQ(config__dump_script(&a, f), 0);
		fclose(f);
		s = script__from_mem("rt.trig", text, len);
		CHECK(s);
		config__init(&b);
		if (s && script__parse(s, &b)) {
			fprintf(stderr, "    %s: the dumped script does not parse:\n%s", id, text);
			script__print_errors(s, stderr);
			CHECK(!"the dumped script parses");
		}
		if (*differing(&a, &b, diff, sizeof(diff))) {
			fprintf(stderr, "    %s: after the round trip, differ: %s\n%s", id, diff,
				text);
			CHECK(!"the round trip gives the same config");
		}
		/* run's override merge copies exactly the row. */
		config__fini(&b);
		config__init(&b);
		CHECK_EQ(settings__copy(&b, &a, st), 0);
		CHECK(!settings__differ(&a, &b, st));
		script__free(s);
		free(text);
		config__fini(&b);
		config__fini(&a);
	}
	config__fini(&def);
	return 0;
}

/* Every row at once: nothing a row prints is read back by another. */
TEST(all_rows_together)
{
	struct trigrec_config a, b;
	char err[512], diff[1024], *text = NULL;
	size_t len = 0;
	struct script *s;
	FILE *f;

	clean_env();
	config__init(&a);
	CHECK_EQ(config__add_event(&a, "cpu-clock", NULL), 0);
	for (int i = 0; i < nr_settings; i++) {
		const struct setting *st = &settings[i];

		/* frequency and period exclude each other in a script; -C already
		 * records every task, as -a does, so `cpus 0` says both. */
		if ((!st->kw && !st->in_stmt) || !st->parse ||
		    (st->kw && st->excludes && !strcmp(st->kw, "period")) ||
		    (st->name && !strcmp(st->name, "all-cpus")))
			continue;
		CHECK_EQ(settings__set(&a, st, st->arg || !st->name ? st->example : NULL, err,
				       sizeof(err)),
			 0);
	}
	CHECK_EQ(config__finalize(&a, err, sizeof(err)), 0);
	f = open_memstream(&text, &len);
	if (!f)
		return 1;
	CHECK_EQ(config__dump_script(&a, f), 0);
	fclose(f);
	s = script__from_mem("all.trig", text, len);
	config__init(&b);
	CHECK(s && !script__parse(s, &b));
	CHECK_STR(differing(&a, &b, diff, sizeof(diff)), "");
	script__free(s);
	free(text);
	config__fini(&a);
	config__fini(&b);
	return 0;
}

/*
 * Every setting is a row (issue 30): these had a syntax of their own and were
 * parsed, printed, merged and compared outside the table. The script's body
 * (-e/--filter, --trigger, the command) is not a setting and stays outside.
 */
TEST(every_setting_is_a_row)
{
	static const char *const rows[] = { "all-cpus",	  "cpu",	 "output",
					    "keep-files", "keep-bytes",	 "keep-age",
					    "budget",	  "on-snapshot", "compression-level" };
	static const char *const body[] = { "event", "filter", "trigger" };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct setting *st = settings__by_name(rows[i]);

		if (!st)
			fprintf(stderr, "    --%s: not a row of the settings table\n", rows[i]);
		CHECK(st && st->parse && (st->kw || st->in_stmt));
	}
	for (size_t i = 0; i < sizeof(body) / sizeof(body[0]); i++)
		CHECK(!settings__by_name(body[i]));
	CHECK(settings__by_kw("cpus") && settings__by_kw("keep") && settings__by_kw("compress") &&
	      settings__by_kw("on_snapshot"));
	CHECK(!settings__by_kw("record") && !settings__by_kw("trigger") &&
	      !settings__by_kw("command"));
	return 0;
}

/* A value written "[N]" may be left out: -z alone is level 1, as perf record -z. */
TEST(optional_value_may_be_left_out)
{
	const struct setting *z = settings__by_name("compression-level");
	struct trigrec_config c;
	char err[256] = "";

	CHECK(z);
	if (!z)
		return 1;
	config__init(&c);
	if (settings__set(&c, z, NULL, err, sizeof(err)))
		fprintf(stderr, "    -z alone: %s\n", err);
	CHECK_EQ(c.zstd_level, 1);
	CHECK_EQ(settings__set(&c, z, "19", err, sizeof(err)), 0);
	CHECK_EQ(c.zstd_level, 19);
	/* A value that is not optional is still asked for. */
	CHECK(settings__set(&c, settings__by_name("output"), NULL, err, sizeof(err)) == -EINVAL);
	config__fini(&c);
	return 0;
}

/* config__init()'s defaults are the table's. */
TEST(defaults_come_from_the_table)
{
	struct trigrec_config c;

	clean_env();
	config__init(&c);
	for (int i = 0; i < nr_settings; i++)
		if (settings[i].type != SETT_STR)
			CHECK_EQ(settings__get(&c, &settings[i]), settings[i].def);
	setenv("TRIGREC_RINGS", "perf", 1);
	config__fini(&c);
	CHECK_EQ(c.rings, REC_RINGS_PERF);
	setenv("TRIGREC_RINGS", "bogus", 1);
	config__fini(&c);
	CHECK_EQ(c.rings, -1);
	clean_env();
	config__fini(&c);
	return 0;
}

/* docs/trigrec.1's statement lines are the table's (make man-settings writes them). */
TEST(man_page_is_current)
{
	FILE *f = fopen("docs/trigrec.1", "r"), *g;
	char *page = NULL, *gen = NULL, *b, *e;
	size_t n = 0, glen = 0;

	if (!f)
		SKIP("docs/trigrec.1 not found: run from the source tree (make check-unit does)");
	page = calloc(1, 1 << 20);
	if (page)
		n = fread(page, 1, (1 << 20) - 1, f);
	fclose(f);
	if (!page)
		return 1;
	page[n] = 0;
	b = strstr(page, SETTINGS_MAN_BEGIN "\n");
	e = b ? strstr(b, SETTINGS_MAN_END "\n") : NULL;
	CHECK(b && e);
	g = open_memstream(&gen, &glen);
	if (b && e && g) {
		settings__man_statements(g);
		fclose(g);
		b += strlen(SETTINGS_MAN_BEGIN "\n");
		if ((size_t)(e - b) != glen || memcmp(b, gen, glen)) {
			fprintf(stderr,
				"    docs/trigrec.1 is not current: run make man-settings. The "
				"table says:\n%s",
				gen);
			CHECK(!"docs/trigrec.1's statement lines are the table's");
		}
	} else if (g) {
		fclose(g);
	}
	free(gen);
	free(page);
	return 0;
}

RUN_TESTS(T(every_row_is_complete), T(every_setting_is_a_row), T(every_row_round_trips),
	  T(all_rows_together), T(optional_value_may_be_left_out), T(defaults_come_from_the_table),
	  T(man_page_is_current))
