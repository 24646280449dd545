/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Probe names as text (probe_spec.c): what kind a name asks for and its
 * parts, with no I/O. Split from probes.h so that code which only reads a
 * name (the trigger language's lexer and compiler) does not reach the code
 * that creates kernel probes.
 */
#ifndef TRIGREC_PROBE_SPEC_H
#define TRIGREC_PROBE_SPEC_H
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

enum probe_kind {
	PROBE_NONE = 0,
	PROBE_KPROBE,
	PROBE_KRETPROBE,
	PROBE_UPROBE,
	PROBE_URETPROBE,
	PROBE_USDT,
};

/* "kprobe" etc.; "" for PROBE_NONE. */
const char *probe_kind_name(enum probe_kind k);

/* The kind an event name asks for from its prefix ("uprobe:..."), or PROBE_NONE. */
enum probe_kind probe_kind_of(const char *name);

/* One parsed probe name, before anything is looked up. */
struct probe_spec {
	enum probe_kind kind;
	char path[PATH_MAX]; /* the binary or library (uprobes, USDT) as written */
	char func[256];	     /* kernel function, symbol (or 0xADDR), USDT probe name */
	char provider[128];  /* USDT provider ("" = any) */
	uint64_t offset;     /* +OFFS */
	char args[1024];     /* inside "(...)", as written; "" = the default fields */
	int has_args;
};

/*
 * Parse KIND:... (kprobe:FUNC[+OFFS], kretprobe:FUNC, uprobe:PATH:SYMBOL[+OFFS],
 * uretprobe:PATH:SYMBOL, usdt:PATH:[PROVIDER:]NAME), each optionally followed
 * by "(FIELD,...)". 0, or -EINVAL with the reason in err.
 */
int probe_spec_parse(const char *text, struct probe_spec *s, char *err, size_t errlen);

/* Whether s has glob characters (*, ?, [...]): one name standing for several. */
int probe_is_glob(const char *s);

#endif
