// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: `--trigger` text through trig_parse + trig_compile, and
 * tl_error_format on every error, against the unit tests' synthetic formats
 * and copies of real kernel formats (trig_set_formats: no tracefs needed).
 *
 * Besides the sanitizers, it checks what every caller relies on: an error
 * has a message and a position inside the text; a compiled trigger has a
 * file-name-safe name and filters the BPF evaluator can run (forward jumps
 * only, indexes in range, NUL-terminated strings).
 *
 *   make fuzz-build && .output/fuzz/fuzz_trigger CORPUS_DIR...   (see make help)
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/tracefs.h"
#include "lang/trigger_lang.h"
#include "../unit/trig_formats.h"
#include "kernel_formats.h"

#define NELEM(x) (sizeof(x) / sizeof((x)[0]))

static struct tp_format *fmts[3 + NELEM(kernel_formats)];

#define REQUIRE(cond)                                                                        \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "fuzz_trigger: %s:%d: %s does not hold\n", __FILE__, \
				__LINE__, #cond);                                            \
			abort();                                                             \
		}                                                                            \
	} while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int n = 0;

	fmts[n++] = tp_format__parse("test", "ev", fmt_ev, sizeof(fmt_ev) - 1);
	fmts[n++] = tp_format__parse("test", "ev2", fmt_ev2, sizeof(fmt_ev2) - 1);
	fmts[n++] = tp_format__parse("other", "thing", fmt_thing, sizeof(fmt_thing) - 1);
	for (size_t i = 0; i < NELEM(kernel_formats); i++)
		fmts[n++] =
			tp_format__parse(kernel_formats[i].sys, kernel_formats[i].name,
					 kernel_formats[i].text, strlen(kernel_formats[i].text));
	for (int i = 0; i < n; i++)
		REQUIRE(fmts[i] != NULL);
	trig_set_formats((const struct tp_format *const *)fmts, n);
	return 0;
}

/* true1: clause true1 - 1 is TRIGREC_OP_TRUE (an event condition's relaxed copy), 0: none is. */
static void check_filter(const struct trigrec_filter *f, int nr_cg, uint32_t true1)
{
	REQUIRE(f->n <= TRIGREC_MAX_CLAUSES);
	for (uint32_t i = 0; i < f->n; i++) {
		const struct trigrec_clause *c = &f->c[i];
		uint8_t j[2] = { c->jt, c->jf };

		if (true1 && i == true1 - 1)
			REQUIRE(c->op == TRIGREC_OP_TRUE);
		else
			REQUIRE(c->op >= TRIGREC_OP_EQ && c->op < TRIGREC_OP_TRUE);
		REQUIRE(c->src >= TRIGREC_SRC_FIELD && c->src <= TRIGREC_SRC_CGSET);
		/* A cgroup path: == 1 or != 1 on one of the trigger's conditions. */
		if (c->src == TRIGREC_SRC_CGSET)
			REQUIRE((c->op == TRIGREC_OP_EQ || c->op == TRIGREC_OP_NE) && c->imm == 1 &&
				c->offset < nr_cg);
		/* str(FIELD): a string op on a 4- or 8-byte pointer. */
		if (c->src == TRIGREC_SRC_USTR || c->src == TRIGREC_SRC_KSTR)
			REQUIRE(c->op >= TRIGREC_OP_STR_EQ && c->op <= TRIGREC_OP_GLOB_MIDDLE &&
				(c->size == 4 || c->size == 8));
		for (int k = 0; k < 2; k++)
			REQUIRE(j[k] == TRIGREC_ACCEPT || j[k] == TRIGREC_REJECT ||
				(j[k] > i && j[k] < f->n));
		if (c->op >= TRIGREC_OP_STR_EQ && c->op <= TRIGREC_OP_GLOB_MIDDLE)
			REQUIRE(c->imm < TRIGREC_MAX_STRS);
	}
	for (int i = 0; i < TRIGREC_MAX_STRS; i++)
		REQUIRE(memchr(f->str[i], '\0', TRIGREC_STR_LEN) != NULL);
}

static void check_def(const struct trig_def *d)
{
	REQUIRE(d->name[0]);
	for (const char *p = d->name; *p; p++)
		REQUIRE((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-');
	REQUIRE(memchr(d->text, '\0', sizeof(d->text)) != NULL);
	REQUIRE(d->cfg.post_ns <= TL_MAX_POST_NS);
	if (d->manual) {
		/* No kernel part: nothing else may be set. */
		REQUIRE(!d->kind && !d->cfg.kind && !d->cfg.limit && !d->event[0][0]);
		return;
	}
	REQUIRE(d->kind >= TRIGREC_TRIG_EVENT && d->kind <= TRIGREC_TRIG_RATE);
	REQUIRE(d->cfg.kind == (uint32_t)d->kind);
	REQUIRE(d->event[TRIGREC_ROLE_EVENT][0]);
	REQUIRE(!d->event[TRIGREC_ROLE_START][0] == (d->kind != TRIGREC_TRIG_LATENCY));
	REQUIRE(d->cfg.limit <= 1000000000);
	REQUIRE(!d->cfg.limit == !d->cfg.limit_period_ns);
	REQUIRE(d->cfg.limit_period_ns <= TL_MAX_LIMIT_PERIOD_NS);
	REQUIRE(d->has_limit || d->cfg.limit == TL_DEFAULT_LIMIT);
	REQUIRE(d->nr_cg >= 0 && d->nr_cg <= TL_MAX_CG_PER_TRIG);
	for (int i = 0; i < d->nr_cg; i++) {
		const struct trig_cgcond *c = &d->cg[i];

		REQUIRE(memchr(c->lit, '\0', sizeof(c->lit)) &&
			memchr(c->text, '\0', sizeof(c->text)));
		REQUIRE(c->form == TRIGREC_OP_STR_EQ ||
			(c->form >= TRIGREC_OP_GLOB_FULL && c->form <= TRIGREC_OP_GLOB_MIDDLE));
		/* Exact paths and prefixes start at the root. */
		if (c->form == TRIGREC_OP_STR_EQ || c->form == TRIGREC_OP_GLOB_FULL ||
		    c->form == TRIGREC_OP_GLOB_PREFIX)
			REQUIRE(c->lit[0] == '/');
		REQUIRE(c->pos.line >= 1 && c->pos.col >= 1);
	}
	check_filter(&d->cfg.side[TRIGREC_ROLE_EVENT].filter, d->nr_cg, 0);
	check_filter(&d->cfg.side[TRIGREC_ROLE_START].filter, d->nr_cg, d->cfg.nm_clause1);
	/*
	 * An event condition's near misses: clause nm_clause1 - 1 is an integer
	 * field's > or >=, and the start side is the same list with it true.
	 */
	if (d->cfg.nm_clause1) {
		const struct trigrec_filter *e = &d->cfg.side[TRIGREC_ROLE_EVENT].filter;
		const struct trigrec_filter *r = &d->cfg.side[TRIGREC_ROLE_START].filter;
		uint32_t k = d->cfg.nm_clause1 - 1;

		REQUIRE(d->kind == TRIGREC_TRIG_EVENT && k < e->n && r->n == e->n);
		REQUIRE((e->c[k].op == TRIGREC_OP_GT || e->c[k].op == TRIGREC_OP_GE) &&
			e->c[k].src == TRIGREC_SRC_FIELD);
		REQUIRE(d->nm_desc[0] && memchr(d->nm_desc, '\0', sizeof(d->nm_desc)));
		for (uint32_t i = 0; i < e->n; i++)
			REQUIRE(i == k || !memcmp(&e->c[i], &r->c[i], sizeof(e->c[i])));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), buf[2048];
	struct trig_def d;
	struct tl_error e;
	struct trig_ast *a;
	int ret = -1;

	if (!text)
		return 0;
	/* The API takes C strings: a NUL in the input ends the text there. */
	memcpy(text, data, size);
	text[size] = '\0';
	a = trig_parse(text, 1, 1, &e);
	if (a) {
		ret = trig_compile(a, text, &d, &e);
		trig_ast_free(a);
	}
	if (ret) {
		size_t len = strlen(text);

		REQUIRE(e.msg[0]);
		REQUIRE(e.pos.line >= 1 && e.pos.col >= 1);
		/* A position at most one past the end of the text's last line. */
		if (len <= TL_MAX_TEXT) {
			int lines = 1;

			for (const char *p = text; *p; p++)
				lines += *p == '\n';
			REQUIRE(e.pos.line <= lines);
			REQUIRE((size_t)e.pos.col <= len + 1);
		}
		tl_error_format(&e, "--trigger", text, buf, sizeof(buf));
		REQUIRE(strlen(buf) < sizeof(buf));
	} else {
		check_def(&d);
	}
	/* A script may start a trigger anywhere: same verdict, positions saturate. */
	a = trig_parse(text, INT_MAX - 1, INT_MAX - 100, &e);
	if (a) {
		REQUIRE(!trig_compile(a, text, &d, &e) == !ret);
		trig_ast_free(a);
	} else {
		REQUIRE(ret);
	}
	if (ret)
		REQUIRE(e.pos.line >= INT_MAX - 1 && e.pos.col >= 1);
	free(text);
	return 0;
}
