/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* tracefs: finding/mounting it, listing tracepoints, reading event formats. */
#ifndef TRIGREC_TRACEFS_H
#define TRIGREC_TRACEFS_H
#include <stddef.h>
#include <stdint.h>

/*
 * Path of the mounted tracefs ("/sys/kernel/tracing" or
 * "/sys/kernel/debug/tracing"); mounts it at /sys/kernel/tracing when absent
 * and permitted. NULL (with an elog() explaining what to do) on failure.
 * The result is cached.
 */
const char *tracefs_root(void);
/*
 * Why tracefs_root() is NULL, for a message of one's own (NULL when it is
 * not): the user cannot read it (tracefs_root() said so with
 * access_problem()), it is not mounted, or the kernel lacks it.
 */
const char *tracefs_unusable(void);
/*
 * The one permission message: what this user lacks to record (root, or
 * CAP_PERFMON and CAP_BPF when need_caps, and read access to tracefs) and
 * the least change that gives it. 1 with the message in out, 0 when
 * nothing is missing. Never suggests opening tracefs to everyone.
 */
int access_problem(int need_caps, char *out, size_t len);

/* Read a file below the tracefs root ("events/header_page"). malloc'ed, NUL-terminated. */
char *tracefs_read(const char *relpath, size_t *len);

/* Tracepoint id from events/SYS/NAME/id, or -errno (-ENOENT: no such tracepoint). */
int tracefs_event_id(const char *sys, const char *name);

/* One tracepoint name. */
struct tp_name {
	char sys[64];
	char name[128];
};

/*
 * Expand "sys:name" where either part may be a glob (fnmatch) into the list of
 * existing tracepoints, sorted. *out is malloc'ed. Returns the count (0 = no match),
 * or -errno. "sys/name" is accepted too, as perf does.
 */
int tracefs_glob(const char *pattern, struct tp_name **out);

/*
 * Up to `max` existing "sys:name" strings closest to a mistyped one, joined with
 * " or " into out (empty string when nothing is close).
 */
void tracefs_suggest(const char *bad, char *out, size_t outlen, int max);

/* One field of a tracepoint format. */
enum tp_field_kind {
	TP_FIELD_INT,	    /* integer of size 1/2/4/8 */
	TP_FIELD_CHARARRAY, /* char name[N] */
	TP_FIELD_DATALOC,   /* __data_loc: u32 (len << 16 | offset) */
	TP_FIELD_ARRAY,	    /* other fixed arrays */
	TP_FIELD_PTR,	    /* pointers (treated as unsigned long) */
};

struct tp_field {
	char name[64];
	char type[96]; /* type text as in the format ("unsigned short", "char[16]", ...) */
	uint32_t offset;
	uint32_t size;
	int is_signed;
	int is_common; /* common_* fields */
	enum tp_field_kind kind;
};

struct tp_format {
	char sys[64];
	char name[128];
	int id;
	int nr_fields;
	struct tp_field *fields;
	uint32_t fixed_size; /* end of the last field: the record's fixed part */
	char *text;	     /* the whole format file, as read */
	size_t text_len;
};

/* Parse events/SYS/NAME/format. NULL and errno set on failure. */
struct tp_format *tp_format__load(const char *sys, const char *name);
/* Parse format text (for tests). */
struct tp_format *tp_format__parse(const char *sys, const char *name, const char *text, size_t len);
const struct tp_field *tp_format__field(const struct tp_format *f, const char *name);
void tp_format__free(struct tp_format *f);

#endif
