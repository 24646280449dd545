/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Shared by the probe files only (probe_spec.c, probe_syms.c, probes.c,
 * probe_recipe.c); everything else uses probes.h.
 */
#ifndef TRIGREC_PROBES_INT_H
#define TRIGREC_PROBES_INT_H
#include <stddef.h>
#include <stdint.h>
#include "capture/probes.h"

#define MAX_EVENT_NAME 64 /* the kernel's MAX_EVENT_NAME_LEN */
#define MAX_USDT_SITES 64

/* Did-you-mean: the 3 closest names, kept in c[4] (c[3] is scratch). */
struct cand {
	char name[128];
	int d;
};
void probe_cand_add(struct cand *c, const char *want, const char *name, int thr);
void probe_cand_text(const struct cand *c, const char *pre, char *out, size_t len);
int probe_typo_threshold(const char *s);
/* Sort a name list; drop_dups: also remove repeats. */
void probe_names_sort(struct probe_names *l, int drop_dups);

/* The register of the n-th (from 1) integer argument as fetch-args name it ("%di"), or NULL. */
const char *probe_abi_reg(int n);

/* probe_syms.c */
/* 1 when FUNC is a text symbol in /proc/kallsyms; else 0 and suggestions in sugg; -errno. */
int probe_kallsyms_has(const char *func, char *sugg, size_t slen);
/*
 * The file offset of SYMBOL(+add) in path (.symtab, else .dynsym): 0, or
 * -ENOENT with suggestions in err, -ENODATA when the file has no symbols.
 */
int probe_elf_symbol_offset(const char *path, const char *sym, uint64_t add, uint64_t *off,
			    char *err, size_t errlen);
/* path's function symbols, sorted and unique: the count (0: stripped), or -ENOENT. */
int probe_elf_func_names(const char *path, struct probe_names *out, char *err, size_t errlen);
/* The USDT sites of provider:name in path, at most max: the count, or -errno with err. */
int probe_usdt_sites(const char *path, const char *provider, const char *name,
		     struct usdt_site *out, int max, char *err, size_t errlen);

#endif
