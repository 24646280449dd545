/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What fuzz_perfdata and fuzz_sidecar do with a snapshot they could open:
 * everything `trigrec show` does (the report, --html, --chrome-json, with
 * and without a cut view), checking that the report a terminal would get
 * has no control character but the newline.
 */
#ifndef TRIGREC_FUZZ_SHOW_COMMON_H
#define TRIGREC_FUZZ_SHOW_COMMON_H
#include <stdio.h>
#include <stdlib.h>
#include "show/show.h"

#define REQUIRE(cond)                                                                          \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			fprintf(stderr, "fuzz: %s:%d: %s does not hold\n", __FILE__, __LINE__, \
				#cond);                                                        \
			abort();                                                               \
		}                                                                              \
	} while (0)

static FILE *fuzz_null(void)
{
	static FILE *null;

	if (!null)
		null = fopen("/dev/null", "we");
	REQUIRE(null != NULL);
	return null;
}

static void fuzz_show(const struct show *s)
{
	struct show_view v;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	REQUIRE(m != NULL);
	show__print(s, m, 5);
	fclose(m);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = out[i];

		/* what a terminal acts on: C0 but the newline, DEL, C1 as UTF-8 */
		REQUIRE((c >= 0x20 || c == '\n') && c != 0x7f);
		REQUIRE(!(c == 0xc2 && i + 1 < len && (unsigned char)out[i + 1] >= 0x80 &&
			  (unsigned char)out[i + 1] < 0xa0));
	}
	free(out);
	{
		/* show --json, with the default span and a short one */
		struct show_why *w = malloc(sizeof(*w));

		REQUIRE(w != NULL);
		REQUIRE(show_why(s, 0, w) == 0);
		show_why_json(s, w, fuzz_null());
		show_why_free(w);
		REQUIRE(show_why(s, 1000, w) == 0);
		REQUIRE(!w->done || w->running + w->runnable + w->sleep_s + w->sleep_d + w->other +
						    w->unknown ==
					    w->end - w->start);
		show_why_json(s, w, fuzz_null());
		if (w->done && !w->segs_cut) {
			uint64_t sum = 0;

			for (size_t i = 0; i < w->nr_segs; i++)
				sum += w->segs[i].b - w->segs[i].a;
			REQUIRE(sum == w->end - w->start);
		}
		show_why_free(w);
		free(w);
	}
	show_view_pick(s, 0, &v);
	REQUIRE(v.lo <= v.hi && v.hi <= s->nr);
	REQUIRE(show__write_html(s, &v, fuzz_null(), 3) == 0);
	REQUIRE(show__write_chrome(s, &v, fuzz_null()) == 0);
	show_view_pick(s, 4, &v);
	REQUIRE(v.lo <= v.hi && v.hi <= s->nr && v.hi - v.lo <= 4);
	REQUIRE(show__write_html(s, &v, fuzz_null(), 0) == 0);
	REQUIRE(show__write_chrome(s, &v, fuzz_null()) == 0);
}

#endif
