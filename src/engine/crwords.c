// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rings=compact: the words of a format's records the BPF side leaves out
 * or writes zigzagged (engine/crwords.h).
 */
#include <stddef.h>
#include <string.h>
#include "capture/tracefs.h"
#include "engine/crwords.h"
#include "trigrec_abi.h"

uint16_t cr_skip_words(const struct tp_format *f)
{
	static const char *const names[] = { "prev_comm", "next_comm" };
	uint16_t skip = 0;

	if (!f || strcmp(f->sys, "sched") || strcmp(f->name, "sched_switch"))
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct tp_field *c = tp_format__field(f, names[i]);

		/* Two whole words, inside the words the encoding has. */
		if (!c || c->size != 16 || c->offset < 8 || (c->offset - 8) % 8 ||
		    c->offset + 16 > 8 + 8 * TRIGREC_CR_WORDS)
			return 0;
		skip |= (uint16_t)(3u << ((c->offset - 8) / 8));
	}
	return skip;
}

uint8_t cr_zz_words(const struct tp_format *f)
{
	uint8_t zz = 0;

	for (int i = 0; f && i < f->nr_fields; i++) {
		const struct tp_field *c = &f->fields[i];

		if (!c->is_common && c->is_signed && c->size == 8 && c->kind == TP_FIELD_INT &&
		    c->offset >= 8 && !((c->offset - 8) % 8) && c->offset + 8 <= 8 + 8 * 8)
			zz |= (uint8_t)(1u << ((c->offset - 8) / 8));
	}
	return zz;
}
