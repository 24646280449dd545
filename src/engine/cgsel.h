/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cgroup path conditions (`cgroup == "/system.slice/nginx.service"`,
 * `cgroup ~ "*kubepods*"`, != and !~) into the cgroup ids BPF tests. The
 * cgroup2 tree is walked once per start or reload (the root is a parameter,
 * so the unit tests walk a directory that looks like one); a cgroup made
 * after that walk matches only after the next reload.
 *
 *   cgsel_mount(root, sizeof(root));                  the cgroup2 mount
 *   nerr = cgsel_resolve(trigs, n, root, &cs, report, ctx);
 *   bpfctl_opts.cg = &cs;                              bpfctl fills `cg_sets`
 *   cgsel_free(&cs);
 *
 * A condition's bit in the run: its index in trig_def.cg[], plus the
 * conditions of the triggers before it (cgsel_bit()).
 */
#ifndef TRIGREC_CGSEL_H
#define TRIGREC_CGSEL_H
#include <stddef.h>
#include <stdint.h>
#include "lang/trigger_lang.h"

/* Cgroups one condition may match: more is an error that says how to narrow it. */
#define CGSEL_MAX_MATCH 4096
/* Directories walked at most (a bigger tree is an error naming the bound). */
#define CGSEL_MAX_WALK 262144
/* Depth walked below the root. */
#define CGSEL_MAX_DEPTH 64

/* One cgroup of the walk: its id (the directory's inode) and its path from the root ("/a/b"). */
struct cgsel_node {
	uint64_t id;
	char *path;
};

struct cgsel_tree {
	struct cgsel_node *v; /* sorted by path */
	int n;
};

/* The resolved run: each matched cgroup id with the bits of the conditions it matched. */
struct cgsel_ent {
	uint64_t id;
	uint64_t mask;
};
struct cgsel {
	struct cgsel_ent *ent; /* sorted by id */
	int n;
	int nr_conds;			   /* bits used */
	int matched[TRIGREC_MAX_CG_CONDS]; /* cgroups each condition matched */
};

/* Where cgroup v2 is mounted (from /proc/mounts); "/sys/fs/cgroup" if nowhere. */
void cgsel_mount(char *out, size_t len);
/* Tests: cgsel_mount() answers root instead (NULL: /proc/mounts again). Not thread-safe. */
void cgsel_set_root(const char *root);

/* Walk the tree under root once. 0, or -errno with the reason in err. */
int cgsel_walk(const char *root, struct cgsel_tree *t, char *err, size_t errlen);
void cgsel_tree_free(struct cgsel_tree *t);

/* Does a cgroup path match a condition (form: TRIGREC_OP_STR_EQ or TRIGREC_OP_GLOB_*)? */
int cgsel_match(const char *path, const char *lit, int form);

/* The bit (0 .. TRIGREC_MAX_CG_CONDS-1) of trigger t's condition i. */
int cgsel_bit(const struct trig_def *trigs, int t, int i);

/*
 * A message about trigger t's condition i (i = -1: about the run): is_err
 * 1 for an error, 0 for a warning (a glob that matches nothing).
 */
typedef void (*cgsel_report_fn)(void *ctx, int is_err, int t, int i, const char *msg);

/*
 * Resolve every trigger's conditions against the tree under root, walked
 * once (not at all when no trigger has one). Errors: no cgroup2 tree at
 * root, a == path that does not exist (with the closest paths), a
 * condition that matches more than CGSEL_MAX_MATCH cgroups, more than
 * TRIGREC_MAX_CG_CONDS conditions or TRIGREC_MAX_CG_IDS cgroups in all.
 * Returns the number of errors (out is filled only when there are none;
 * cgsel_free() it either way) or -ENOMEM.
 */
int cgsel_resolve(const struct trig_def *trigs, int n, const char *root, struct cgsel *out,
		  cgsel_report_fn report, void *ctx);
void cgsel_free(struct cgsel *cs);

/* How many conditions the triggers hold in all. */
int cgsel_count(const struct trig_def *trigs, int n);

#endif
