/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Trigger scripts: a file that says what `trigrec record` options say, plus
 * named triggers, retention and a command per snapshot, parsed into one
 * struct trigrec_config. Trigger bodies are trigger-language text
 * (trig_parse with their file position), so a script and --trigger share
 * one grammar and one set of errors. Language: docs/script-language.md.
 *
 *   s = script__load(path, err, sizeof(err));     file or "-" (stdin), size-capped
 *   n = script__parse(s, &cfg);                    every error of the file, one pass
 *   n += script__check_host(s, &cfg);              `trigrec check`: this host, no kernel objects
 *   script__print_errors(s, stderr);               FILE:LINE:COL: message, line, caret
 *   script__free(s);
 */
#ifndef TRIGREC_SCRIPT_H
#define TRIGREC_SCRIPT_H
#include <stddef.h>
#include <stdio.h>
#include "lang/trigger_lang.h"
#include "session/config.h"

#define SCRIPT_MAX_BYTES (1u << 20) /* a script is at most 1 MiB */
#define SCRIPT_MAX_LINE 4096	    /* bytes per line */
#define SCRIPT_MAX_TRIGGER 8192	    /* bytes of one trigger block's body */
#define SCRIPT_MAX_ERRORS 50	    /* errors collected before giving up */

struct script;

/*
 * Read a script: a regular file, a pipe or "-" for standard input, at most
 * SCRIPT_MAX_BYTES. NULL with a one-line reason in err ("FILE: ...") when it
 * cannot be read, is a directory, or is too big.
 */
struct script *script__load(const char *path, char *err, size_t errlen);
/* A script from memory (tests, fuzzing); `len` bytes, NULs included. NULL: no memory. */
struct script *script__from_mem(const char *path, const char *text, size_t len);
void script__free(struct script *s);

/*
 * Parse into c, which the caller has config__init()ed; events and triggers
 * are resolved against tracefs (or the formats given to trig_set_formats),
 * and the dynamic probes they name are created (script/events.h).
 * Returns the number of errors: 0 means c is complete and finalized.
 * With errors, c holds what parsed and must only be config__fini()ed.
 */
int script__parse(struct script *s, struct trigrec_config *c);
/*
 * Before script__parse(), for `trigrec check`: a probe on a binary that is
 * not on this machine is a warning (script__print_warnings), not an error,
 * and its event or trigger is left out: scripts are checked on a
 * workstation before they go to the hosts that have the binary.
 */
void script__absent_binaries_ok(struct script *s);
/* How many probes were checked as syntax only (their binaries are not here). */
int script__nr_warnings(const struct script *s);
/* FILE:LINE:COL: message, line, caret: one per warning. */
void script__print_warnings(const struct script *s, FILE *out);

/*
 * What `trigrec check` adds, against this host, creating and loading
 * nothing: the output directory is usable, the cgroup exists, the command,
 * the on_snapshot program and the pid exist, the control socket's directory
 * exists, the triggers' cgroup paths resolve (engine/cgsel.h: a `==` path
 * that does not exist is an error; a glob that matches nothing a warning,
 * an error unless script__absent_binaries_ok(), i.e. under --strict).
 * Returns the number of errors added.
 */
int script__check_host(struct script *s, const struct trigrec_config *c);

const char *script__path(const struct script *s);
int script__nr_errors(const struct script *s);
const struct tl_error *script__error(const struct script *s, int i);
/* One error as "FILE:LINE:COL: message", the line and a caret under the column. */
void script__format_error(const struct script *s, int i, char *buf, size_t len);
/* Every error, each followed by a newline. */
void script__print_errors(const struct script *s, FILE *out);

#endif
