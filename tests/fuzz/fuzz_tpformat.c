// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: a tracefs format file (as tracefs and perf.data's
 * TRACING_DATA carry it) through tp_format__parse, then every field decoded
 * by `trigrec show` (pdr_field_str, pdr_field_int, pdr_fields_str) from the
 * input's own bytes as the record, which must stay inside it.
 *
 *   make fuzz-build && .output/fuzz/fuzz_tpformat CORPUS_DIR...   (see make help)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/tracefs.h"
#include "show/pdread.h"

#define REQUIRE(cond)                                                                          \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			fprintf(stderr, "fuzz: %s:%d: %s does not hold\n", __FILE__, __LINE__, \
				#cond);                                                        \
			abort();                                                               \
		}                                                                              \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_format *f = tp_format__parse("sys", "name", (const char *)data, size);
	/* the record: a copy of the input of its own size, so ASan sees any read past it */
	uint32_t rs = size > 512 ? 512 : (uint32_t)size;
	uint8_t *raw = malloc(rs ? rs : 1);
	char buf[1024];

	if (!f) {
		free(raw);
		return 0;
	}
	REQUIRE(f->nr_fields > 0 && f->text_len == size);
	memcpy(raw, data, rs);
	for (int i = 0; i < f->nr_fields; i++) {
		const struct tp_field *fl = &f->fields[i];
		int64_t v;

		REQUIRE(fl->name[0] && memchr(fl->name, 0, sizeof(fl->name)));
		REQUIRE(tp_format__field(f, fl->name) != NULL);
		REQUIRE((uint64_t)fl->offset + fl->size <= f->fixed_size ||
			f->fixed_size == UINT32_MAX);
		pdr_field_str(fl, raw, rs, buf, sizeof(buf));
		REQUIRE(memchr(buf, 0, sizeof(buf)));
		/* by name: the first field of that name (a crafted format may repeat one) */
		if (!pdr_field_int(f, raw, rs, fl->name, &v)) {
			const struct tp_field *g = tp_format__field(f, fl->name);

			REQUIRE((uint64_t)g->offset + g->size <= rs && g->size <= 8);
		}
	}
	pdr_fields_str(f, raw, rs, buf, sizeof(buf));
	for (const char *p = buf; *p; p++)
		REQUIRE((unsigned char)*p >= 0x20 && *p != 0x7f);
	tp_format__free(f);
	free(raw);
	return 0;
}
