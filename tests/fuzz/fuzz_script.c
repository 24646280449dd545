// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: trigger scripts through script__from_mem +
 * script__parse, and script__format_error on every error, against copies of
 * real kernel formats (trig_set_formats: no tracefs needed). Host checks
 * (script__check_host) are left out: they only stat paths.
 *
 * Besides the sanitizers, it checks what callers rely on: the error count
 * is bounded, every error has a message and a position inside the file, and
 * a script without errors gives a complete config (events, output, valid
 * unique trigger names) that `--dump-script` writes back as a script which
 * parses to the same config.
 *
 *   make fuzz-build && .output/fuzz/fuzz_script CORPUS_DIR...   (see make help)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/tracefs.h"
#include "script/script.h"
#include "lang/trigger_lang.h"
#include "session/config.h"
#include "kernel_formats.h"

#define NELEM(x) (sizeof(x) / sizeof((x)[0]))

static struct tp_format *fmts[NELEM(kernel_formats)];

#define REQUIRE(cond)                                                                       \
	do {                                                                                \
		if (!(cond)) {                                                              \
			fprintf(stderr, "fuzz_script: %s:%d: %s does not hold\n", __FILE__, \
				__LINE__, #cond);                                           \
			abort();                                                            \
		}                                                                           \
	} while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	for (size_t i = 0; i < NELEM(kernel_formats); i++) {
		fmts[i] = tp_format__parse(kernel_formats[i].sys, kernel_formats[i].name,
					   kernel_formats[i].text, strlen(kernel_formats[i].text));
		REQUIRE(fmts[i] != NULL);
	}
	trig_set_formats((const struct tp_format *const *)fmts, (int)NELEM(fmts));
	return 0;
}

static int valid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' || *s == '-'))
			return 0;
	return 1;
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int same_argv(char **a, char **b)
{
	if (!a || !b)
		return !a && !b;
	for (; *a && *b; a++, b++)
		if (strcmp(*a, *b))
			return 0;
	return !*a && !*b;
}

static void check_config(const struct trigrec_config *c)
{
	REQUIRE(c->nr_events >= 1);
	REQUIRE(c->outdir != NULL);
	REQUIRE(c->nr_trigs <= TRIGREC_MAX_TRIGGERS);
	for (int i = 0; i < c->nr_trigs; i++) {
		const struct trig_def *d = &c->trigs[i];

		REQUIRE(valid_name(d->name));
		REQUIRE(!d->manual);
		REQUIRE(d->kind >= TRIGREC_TRIG_EVENT && d->kind <= TRIGREC_TRIG_RATE);
		REQUIRE(d->event[TRIGREC_ROLE_EVENT][0]);
		REQUIRE(memchr(d->text, '\0', sizeof(d->text)) != NULL);
		REQUIRE(!strchr(d->text, '\n'));
		for (int k = 0; k < i; k++)
			REQUIRE(strcmp(c->trigs[k].name, d->name));
	}
	for (int i = 0; i < c->nr_manual; i++) {
		REQUIRE(valid_name(c->manual[i].name));
		for (int k = 0; k < c->nr_trigs; k++)
			REQUIRE(strcmp(c->trigs[k].name, c->manual[i].name));
	}
}

/* The config as --dump-script writes it parses back to itself. */
static void round_trip(const struct trigrec_config *c)
{
	struct trigrec_config d;
	struct script *s;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	/* Trigger text is kept in 511 bytes; a longer body cannot be written back. */
	for (int i = 0; i < c->nr_trigs; i++)
		if (strlen(c->trigs[i].text) >= sizeof(c->trigs[i].text) - 1)
			return;
	f = open_memstream(&out, &len);
	REQUIRE(f != NULL);
	REQUIRE(config__dump_script(c, f) == 0);
	fclose(f);
	s = script__from_mem("dump.trig", out, len);
	REQUIRE(s != NULL);
	config__init(&d);
	if (script__parse(s, &d)) {
		fprintf(stderr, "fuzz_script: --dump-script output does not parse:\n%s\n", out);
		script__print_errors(s, stderr);
		abort();
	}
	REQUIRE(d.nr_events == c->nr_events);
	for (int i = 0; i < c->nr_events; i++) {
		REQUIRE(same_str(d.events[i].spec, c->events[i].spec));
		REQUIRE(same_str(d.events[i].filter, c->events[i].filter));
	}
	REQUIRE(d.mmap_pages == c->mmap_pages);
	REQUIRE(d.freq == c->freq && d.period == c->period && d.callgraph == c->callgraph);
	REQUIRE(d.all_cpus == (c->all_cpus && !c->cpumask));
	REQUIRE(!d.cpumask == !c->cpumask);
	if (c->cpumask)
		REQUIRE(d.nr_cpumask == c->nr_cpumask &&
			!memcmp(d.cpumask, c->cpumask, (size_t)c->nr_cpumask));
	REQUIRE(d.pid == c->pid);
	REQUIRE(same_argv(d.cmd, c->cmd) && same_argv(d.on_snapshot, c->on_snapshot));
	REQUIRE(same_str(d.cgroup, c->cgroup) && same_str(d.outdir, c->outdir));
	REQUIRE(same_str(d.name_prefix, c->name_prefix) && same_str(d.control, c->control));
	REQUIRE(same_str(d.metrics_addr, c->metrics_addr));
	REQUIRE(same_str(d.metrics_file, c->metrics_file));
	REQUIRE(d.keep_files == c->keep_files && d.keep_bytes == c->keep_bytes &&
		d.keep_age_ns == c->keep_age_ns);
	REQUIRE(d.post_ns == c->post_ns);
	REQUIRE(d.bpf.lat_starts == c->bpf.lat_starts && d.bpf.keys == c->bpf.keys);
	REQUIRE(d.nr_manual == c->nr_manual && d.nr_trigs == c->nr_trigs);
	for (int i = 0; i < c->nr_manual; i++) {
		REQUIRE(!strcmp(d.manual[i].name, c->manual[i].name));
		REQUIRE(d.manual[i].post_ns == c->manual[i].post_ns);
	}
	for (int i = 0; i < c->nr_trigs; i++) {
		REQUIRE(!strcmp(d.trigs[i].name, c->trigs[i].name));
		REQUIRE(!strcmp(d.trigs[i].text, c->trigs[i].text));
		REQUIRE(!memcmp(&d.trigs[i].cfg, &c->trigs[i].cfg, sizeof(d.trigs[i].cfg)));
	}
	config__fini(&d);
	script__free(s);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trigrec_config c;
	struct script *s = script__from_mem("fuzz.trig", (const char *)data, size);
	char buf[SCRIPT_MAX_LINE * 2 + 1024];
	int n, lines = 1;

	if (!s)
		return 0;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	config__init(&c);
	n = script__parse(s, &c);
	REQUIRE(n == script__nr_errors(s));
	REQUIRE(n >= 0 && n <= SCRIPT_MAX_ERRORS);
	for (int i = 0; i < n; i++) {
		const struct tl_error *e = script__error(s, i);

		REQUIRE(e && e->msg[0]);
		REQUIRE(e->pos.line >= 1 && e->pos.line <= lines);
		REQUIRE(e->pos.col >= 1 && (size_t)e->pos.col <= size + 1);
		script__format_error(s, i, buf, sizeof(buf));
		REQUIRE(strlen(buf) < sizeof(buf) - 1);
		REQUIRE(!strncmp(buf, "fuzz.trig:", 10));
	}
	if (!n) {
		check_config(&c);
		round_trip(&c);
	}
	config__fini(&c);
	script__free(s);
	return 0;
}
