/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A small JSON reader for the sidecar (`trigrec show`): the whole text
 * parsed into a tree of values, looked up by dotted paths
 * ("trigger.latency.start.time_ns", "cpus.3.records"). Strict RFC 8259;
 * numbers keep their text, so 64-bit nanoseconds lose no digit.
 */
#ifndef TRIGREC_JSONV_H
#define TRIGREC_JSONV_H
#include <stddef.h>
#include <stdint.h>

enum jv_type { JV_NULL, JV_FALSE, JV_TRUE, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type type;
	char *str;	 /* JV_STR: the decoded string; JV_NUM: the number's text */
	char *key;	 /* the member name, when the parent is an object */
	struct jv *kids; /* JV_ARR, JV_OBJ: n children */
	int n;
};

/*
 * Parse text (len bytes). NULL on error, with "line L col C: what" in err.
 * Nesting is limited to 64 levels.
 */
struct jv *jv_parse(const char *text, size_t len, char *err, size_t errlen);
void jv_free(struct jv *v);

/* The value at a dotted path below v (array elements by index), or NULL. */
const struct jv *jv_get(const struct jv *v, const char *path);
/* Scalars at path, with a default when absent or of another type. */
const char *jv_str(const struct jv *v, const char *path, const char *def);
uint64_t jv_u64(const struct jv *v, const char *path, uint64_t def);
int64_t jv_i64(const struct jv *v, const char *path, int64_t def);
int jv_bool(const struct jv *v, const char *path, int def);

#endif
