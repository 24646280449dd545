/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Dynamic probes (kprobe:, kretprobe:, uprobe:, uretprobe:, usdt:) made into
 * ordinary tracepoints, as `perf probe` does: each becomes a tracefs dynamic
 * event in trigrec's own group "trigrec_<pid>", with a format file, so
 * recording, triggers and perf.data's tracing data treat it as any other
 * tracepoint. Everything created is removed at exit; a crashed run's groups
 * (trigrec_<pid> whose pid is not a live trigrec) at the next start.
 */
#ifndef TRIGREC_PROBES_H
#define TRIGREC_PROBES_H
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include "capture/probe_spec.h"
#include "capture/tracefs.h"

/* A list of names (functions, symbols). */
struct probe_names {
	char **v;
	int n, cap;
};
int probe_names_add(struct probe_names *l, const char *name);
void probe_names_free(struct probe_names *l);

/* The most events one glob may create (checked before any is created). */
#define PROBE_GLOB_MAX_UPROBES 64
#define PROBE_GLOB_MAX_KPROBES 512 /* TRIGREC_MAX_HOOKS */

/*
 * The kernel functions a kprobe glob may match, sorted: the names of
 * tracefs' available_filter_functions ("NAME [MODULE]" a line) or, when that
 * is NULL, the text symbols of kallsyms ("ADDR t NAME"); minus the kprobe
 * blacklist (debugfs kprobes/blacklist, "START-END NAME" a line; NULL =
 * none) and minus names listed more than once (several functions of one
 * name: kprobe_events cannot tell which). Returns the count or -ENOMEM.
 */
/*
 * Does the kernel's kprobe blacklist (debugfs kprobes/blacklist, lines
 * "0xSTART-0xEND\tNAME") cover func, by name or, with addr != 0, by address
 * (sections such as noinstr text are listed as ranges)? 1 and the entry's
 * name in `entry`, else 0.
 */
int probe_blacklisted(const char *blacklist, const char *func, unsigned long long addr, char *entry,
		      size_t len);
int probe_kfuncs(const char *filter_funcs, const char *kallsyms, const char *blacklist,
		 struct probe_names *out);

/*
 * The names of cands that glob pat matches (fnmatch, as tracepoint globs),
 * in cands' order, into out; what names the candidates in errors
 * ("functions of /bin/app"). Returns the count; -ENOENT when none matches
 * (err with did-you-mean), -E2BIG when more than max do (err with the count
 * and how to narrow it).
 */
int probe_glob_expand(const char *pat, const struct probe_names *cands, int max, const char *what,
		      struct probe_names *out, char *err, size_t errlen);

/* One USDT argument as its note gives it ("-4@%edi"): size, signedness, place. */
struct usdt_arg {
	int size; /* bytes */
	int is_signed;
	char fetch[96]; /* as a uprobe_events fetch-arg: "%di", "-4(%bp)", "\\5" */
};

#define PROBE_MAX_USDT_ARGS 12

/* One USDT site of a binary, as its .note.stapsdt describes it. */
struct usdt_site {
	char provider[128];
	char name[128];
	uint64_t off;	   /* file offset of the probe */
	uint64_t sema_off; /* file offset of the semaphore, 0 = none */
	char args[512];	   /* the note's argument text, as written */
};

/*
 * The sites of provider:name (globs; provider "" = any) in an ELF image in
 * memory (the fuzzer's entry; probes read files the same way): their count
 * (at most max in out), or -errno with the reason in err.
 */
int usdt_sites_mem(const void *img, size_t len, const char *provider, const char *name,
		   struct usdt_site *out, int max, char *err, size_t errlen);

/*
 * The fetch-args of one event: "NAME=FETCH:TYPE ..." for uprobe_events /
 * kprobe_events, from the spec's field list or the kind's default fields.
 * usdt: the note's arguments (nargs of them). btf: the kernel resolves
 * kprobe arguments by name and type from BTF ($arg*). 0 or -EINVAL (err).
 */
int probe_fetchargs(const struct probe_spec *s, const struct usdt_arg *uargs, int nargs, int btf,
		    char *out, size_t len, char *err, size_t errlen);

/*
 * Parse one USDT argument spec ("-4@-20(%rbp)"); 0 or -EINVAL. Strict: an
 * immediate is a number, a register letters and digits, so nothing else of
 * the note's text reaches uprobe_events.
 */
int usdt_arg_parse(const char *text, struct usdt_arg *a);

/*
 * A USDT note's whole argument text ("-4@%edi 8@%rsi", blank-separated) into
 * at most max arguments. 0..max arguments, or -EINVAL with the reason in err
 * when the text holds a control character (a newline would end the
 * uprobe_events line and start another). An argument a uprobe cannot read
 * (a global, %rip-relative) reads 0.
 */
int usdt_args_parse(const char *args, struct usdt_arg *ua, int max, char *err, size_t errlen);

/*
 * Text that goes into a line of kprobe_events / uprobe_events: 0, or
 * -EINVAL with what (e.g. "the path /x") and the offending byte in err when
 * s holds a control character, or a blank unless blanks_ok. The kernel
 * reads one event per line and splits it on blanks, so either would add,
 * remove or change other events.
 */
int probe_text_check(const char *what, const char *s, int blanks_ok, char *err, size_t errlen);

/*
 * The next item of a comma-separated event list at *p, commas inside
 * "(...)" kept (a probe's field list); advances *p. 0 at the end, 1 with an
 * item in out, -E2BIG when it does not fit.
 */
int probe_list_next(const char **p, char *out, size_t len);

/*
 * The tracepoint(s) of a probe name: creates its dynamic event(s) on first
 * use (one per USDT site), later calls answer from the table. Returns the
 * count with *out malloc'ed, or -errno with the reason in probes__error().
 */
int probes__resolve(const char *name, struct tp_name **out);
/*
 * What an event pattern names: a probe's dynamic events (probes__resolve(),
 * which creates them), else tracefs_glob()'s tracepoints. tracefs_glob()
 * itself only reads tracefs.
 */
int probes__glob(const char *pattern, struct tp_name **out);

/* Why the last probes__resolve() failed: what to do, with suggestions. */
const char *probes__error(void);
/* The binary the last probes__resolve() failed to find (absent here), or NULL. */
const char *probes__absent(void);

/* The probe name a created event stands for, or NULL when it is not one of ours. */
const char *probes__spec_of(const char *sys, const char *name, enum probe_kind *kind);

/* This run's group ("trigrec_<pid>"). */
const char *probes__group(void);

/* Remove every event this run created (the perf events on them closed first). */
void probes__remove_all(void);

/*
 * Remove the groups of runs that are gone (trigrec_<pid>, the pid not a
 * running trigrec); returns how many events were removed. Never touches
 * other groups.
 */
int probes__remove_stale(void);

struct trigrec_probe_cfg;
/*
 * How probe_hook rebuilds the record of one of our events from registers,
 * with its format's offsets: 1 (pc filled), 0 when sys:name is no probe of
 * ours, -EOPNOTSUPP (why) when a field cannot be rebuilt (a trigger cannot
 * test that probe; recording it still works).
 */
int probes__recipe(const char *sys, const char *name, const struct tp_format *fmt,
		   struct trigrec_probe_cfg *pc, char *why, size_t whylen);

/* The same from an event's fetch-args as written to tracefs (tests call it directly). */
int probe_recipe(const char *fetchargs, enum probe_kind kind, const struct tp_format *fmt,
		 struct trigrec_probe_cfg *pc, char *why, size_t whylen);

/* Whether this kernel has kprobe / uprobe events (tracefs files present). */
int probes__kernel_has(enum probe_kind k);

#endif
