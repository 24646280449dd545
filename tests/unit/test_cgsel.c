// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for src/engine/cgsel.c: cgroup path conditions resolved
 * against a hand-made tree (a temporary directory laid out as a cgroup2
 * hierarchy with Docker-, containerd/Kubernetes- and systemd-style paths);
 * the ids are the directories' inode numbers, as cgroup2 makes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "check.h"
#include "engine/cgsel.h"
#include "util/util.h"

#define POD "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0d6f.slice"
#define CTR POD "/cri-containerd-9a8b7c6d.scope"

static char root[256];

static const char *const dirs[] = {
	"/system.slice",
	"/system.slice/nginx.service",
	"/system.slice/docker-4f1c2a8e.scope",
	"/init.scope",
	"/kubepods.slice",
	"/kubepods.slice/kubepods-burstable.slice",
	POD,
	/* NOLINTNEXTLINE(bugprone-suspicious-missing-comma): CTR is POD plus a component */
	CTR,
};

static int make_tree(void)
{
	char p[512];

	if (root[0])
		return 0;
	snprintf(root, sizeof(root), "/tmp/trigrec-cgsel-%d", (int)getpid());
	if (mkdir(root, 0755))
		return -1;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", root, dirs[i]);
		if (mkdir_p(p, 0755))
			return -1;
	}
	/* A file is not a cgroup. */
	snprintf(p, sizeof(p), "%s/system.slice/cgroup.procs", root);
	fclose(fopen(p, "w"));
	return 0;
}

static uint64_t ino(const char *path)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", root, strcmp(path, "/") ? path : "");
	return stat(p, &st) ? 0 : (uint64_t)st.st_ino;
}

#define TREE()                                         \
	do {                                           \
		if (make_tree()) {                     \
			CHECK(!"temporary tree made"); \
			return 1;                      \
		}                                      \
	} while (0)

/* A trigger with these conditions ("==/path", "~glob"), as trig_compile() leaves them. */
static void def(struct trig_def *d, const char *const *conds, int n)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "t");
	for (int i = 0; i < n; i++) {
		struct trig_cgcond *c = &d->cg[i];
		const char *s = conds[i] + (conds[i][0] == '=' ? 2 : 1);
		size_t l = strlen(s);
		int lead = s[0] == '*', trail = l > (size_t)lead && s[l - 1] == '*';

		snprintf(c->text, sizeof(c->text), "%s", s);
		if (conds[i][0] == '=') {
			c->form = TRIGREC_OP_STR_EQ;
			snprintf(c->lit, sizeof(c->lit), "%s", s);
		} else {
			c->form = lead && trail ? TRIGREC_OP_GLOB_MIDDLE :
				  lead		? TRIGREC_OP_GLOB_SUFFIX :
				  trail		? TRIGREC_OP_GLOB_PREFIX :
						  TRIGREC_OP_GLOB_FULL;
			snprintf(c->lit, sizeof(c->lit), "%.*s", (int)(l - lead - trail), s + lead);
		}
		c->pos = (struct tl_pos){ 1, 10 + i };
	}
	d->nr_cg = n;
}

struct rep {
	int errs, warns, last_t, last_i;
	char msg[1024];
};

static void report(void *ctx, int is_err, int t, int i, const char *msg)
{
	struct rep *r = ctx;

	if (is_err)
		r->errs++;
	else
		r->warns++;
	r->last_t = t;
	r->last_i = i;
	snprintf(r->msg, sizeof(r->msg), "%s", msg);
}

/* The mask the resolved set holds for a cgroup id (0 = not in it). */
static uint64_t mask_of(const struct cgsel *cs, uint64_t id)
{
	for (int i = 0; i < cs->n; i++)
		if (cs->ent[i].id == id)
			return cs->ent[i].mask;
	return 0;
}

TEST(walk_finds_every_cgroup_once)
{
	struct cgsel_tree t;
	char err[256];
	int found = 0;

	TREE();
	CHECK_EQ(cgsel_walk(root, &t, err, sizeof(err)), 0);
	/* The root and every directory, files left out, sorted by path. */
	CHECK_EQ(t.n, (int)(sizeof(dirs) / sizeof(dirs[0])) + 1);
	CHECK_STR(t.v[0].path, "/");
	CHECK_EQ(t.v[0].id, ino("/"));
	for (int i = 1; i < t.n; i++)
		CHECK(strcmp(t.v[i - 1].path, t.v[i].path) < 0);
	for (size_t k = 0; k < sizeof(dirs) / sizeof(dirs[0]); k++)
		for (int i = 0; i < t.n; i++)
			if (!strcmp(t.v[i].path, dirs[k])) {
				CHECK_EQ(t.v[i].id, ino(dirs[k]));
				found++;
			}
	CHECK_EQ(found, (int)(sizeof(dirs) / sizeof(dirs[0])));
	cgsel_tree_free(&t);
	return 0;
}

TEST(exact_paths_and_the_four_globs)
{
	static const char *const c[] = { "==/system.slice/nginx.service", "~/kubepods.slice/*",
					 "~*kubepods*", "~*.scope" };
	struct trig_def d;
	struct cgsel cs;
	struct rep r = { 0 };

	TREE();
	def(&d, c, 4);
	CHECK_EQ(cgsel_resolve(&d, 1, root, &cs, report, &r), 0);
	CHECK_EQ(r.errs + r.warns, 0);
	CHECK_EQ(cs.nr_conds, 4);
	/* ==: that cgroup alone, not its parent nor its siblings. */
	CHECK_EQ(cs.matched[0], 1);
	CHECK_EQ(mask_of(&cs, ino("/system.slice/nginx.service")), 1);
	CHECK_EQ(mask_of(&cs, ino("/system.slice")), 0);
	/* A prefix glob is the subtree below: children and grandchildren, not the slice itself. */
	CHECK_EQ(cs.matched[1], 3);
	CHECK_EQ(mask_of(&cs, ino("/kubepods.slice")), 4);
	CHECK_EQ(mask_of(&cs, ino(POD)), 2 | 4);
	CHECK_EQ(mask_of(&cs, ino(CTR)), 2 | 4 | 8);
	/* A middle glob anywhere in the path: the slice too. */
	CHECK_EQ(cs.matched[2], 4);
	/* Suffix: the three scopes. */
	CHECK_EQ(cs.matched[3], 3);
	CHECK_EQ(mask_of(&cs, ino("/init.scope")), 8);
	CHECK_EQ(mask_of(&cs, ino("/system.slice/docker-4f1c2a8e.scope")), 8);
	CHECK_EQ(mask_of(&cs, ino("/")), 0);
	CHECK_EQ(cs.n, 7); /* nginx, 3 scopes, the slice and the two below it */
	for (int i = 1; i < cs.n; i++)
		CHECK(cs.ent[i - 1].id < cs.ent[i].id);
	cgsel_free(&cs);
	return 0;
}

TEST(bits_count_across_triggers)
{
	static const char *const c0[] = { "~/system.slice/*", "==/init.scope" };
	static const char *const c1[] = { "==/system.slice/nginx.service" };
	struct trig_def d[3];
	struct cgsel cs;
	struct rep r = { 0 };

	TREE();
	def(&d[0], c0, 2);
	def(&d[1], NULL, 0);
	def(&d[2], c1, 1);
	CHECK_EQ(cgsel_count(d, 3), 3);
	CHECK_EQ(cgsel_bit(d, 2, 0), 2);
	CHECK_EQ(cgsel_resolve(d, 3, root, &cs, report, &r), 0);
	CHECK_EQ(mask_of(&cs, ino("/system.slice/nginx.service")), 1 | 4);
	CHECK_EQ(mask_of(&cs, ino("/init.scope")), 2);
	cgsel_free(&cs);
	/* No condition: nothing is walked, nothing is reported. */
	CHECK_EQ(cgsel_resolve(&d[1], 1, "/nonexistent", &cs, report, &r), 0);
	CHECK_EQ(r.errs + r.warns, 0);
	CHECK_EQ(cs.n, 0);
	return 0;
}

TEST(missing_path_says_what_exists)
{
	static const char *const typo[] = { "==/system.slice/nginxx.service" };
	const char *mnt[1];
	char with_mount[512];
	struct trig_def d;
	struct cgsel cs;
	struct rep r = { 0 };

	TREE();
	def(&d, typo, 1);
	CHECK_EQ(cgsel_resolve(&d, 1, root, &cs, report, &r), 1);
	CHECK_EQ(r.errs, 1);
	CHECK_EQ(r.last_t, 0);
	CHECK_EQ(r.last_i, 0);
	CHECK(strstr(r.msg, "no cgroup /system.slice/nginxx.service") != NULL);
	CHECK(strstr(r.msg, root) != NULL);
	CHECK(strstr(r.msg, "did you mean /system.slice/nginx.service") != NULL);
	CHECK_EQ(cs.n, 0);
	cgsel_free(&cs);

	/* Written with the mount in front: the path to write instead. */
	snprintf(with_mount, sizeof(with_mount), "==%s/init.scope", root);
	mnt[0] = with_mount;
	def(&d, mnt, 1);
	memset(&r, 0, sizeof(r));
	CHECK_EQ(cgsel_resolve(&d, 1, root, &cs, report, &r), 1);
	CHECK(strstr(r.msg, "did you mean /init.scope?") != NULL);
	cgsel_free(&cs);
	return 0;
}

TEST(glob_matching_nothing_warns)
{
	static const char *const c[] = { "~*nosuch*", "==/init.scope" };
	struct trig_def d;
	struct cgsel cs;
	struct rep r = { 0 };

	TREE();
	def(&d, c, 2);
	CHECK_EQ(cgsel_resolve(&d, 1, root, &cs, report, &r), 0);
	CHECK_EQ(r.errs, 0);
	CHECK_EQ(r.warns, 1);
	CHECK_EQ(r.last_i, 0);
	CHECK(strstr(r.msg, "matches no cgroup") != NULL);
	CHECK(strstr(r.msg, "after a reload") != NULL);
	CHECK_EQ(cs.matched[0], 0);
	CHECK_EQ(cs.n, 1);
	cgsel_free(&cs);
	return 0;
}

TEST(a_cgroup_made_later_matches_after_the_next_walk)
{
	static const char *const c[] = { "~/kubepods.slice/*" };
	struct trig_def d;
	struct cgsel cs;
	struct rep r = { 0 };
	char p[512];
	uint64_t id;

	TREE();
	def(&d, c, 1);
	CHECK_EQ(cgsel_resolve(&d, 1, root, &cs, report, &r), 0);
	CHECK_EQ(cs.matched[0], 3);
	cgsel_free(&cs);
	snprintf(p, sizeof(p), "%s" POD "/cri-containerd-late.scope", root);
	CHECK_EQ(mkdir(p, 0755), 0);
	id = ino(POD "/cri-containerd-late.scope");
	CHECK_EQ(cgsel_resolve(&d, 1, root, &cs, report, &r), 0);
	CHECK_EQ(cs.matched[0], 4);
	CHECK_EQ(mask_of(&cs, id), 1);
	cgsel_free(&cs);
	rmdir(p);
	return 0;
}

TEST(bounds_and_errors)
{
	static const char *const all[] = { "~/*" };
	struct trig_def d, many[TRIGREC_MAX_CG_CONDS / TL_MAX_CG_PER_TRIG + 1];
	struct cgsel cs;
	struct rep r = { 0 };
	char p[512];
	int k;

	TREE();
	/* No cgroup2 tree at the root. */
	def(&d, all, 1);
	CHECK_EQ(cgsel_resolve(&d, 1, "/nonexistent/cgroup", &cs, report, &r), 1);
	CHECK(strstr(r.msg, "cannot read the cgroup2 tree at /nonexistent/cgroup") != NULL);
	CHECK(strstr(r.msg, "mount -t cgroup2") != NULL);
	CHECK_EQ(r.last_t, -1);

	/* More conditions in the run than bits. */
	for (k = 0; k < (int)(sizeof(many) / sizeof(many[0])); k++) {
		static const char *const four[] = { "~*a*", "~*b*", "~*c*", "~*d*" };

		def(&many[k], four, 4);
	}
	memset(&r, 0, sizeof(r));
	CHECK_EQ(cgsel_resolve(many, k, root, &cs, report, &r), 1);
	CHECK(strstr(r.msg, "68 cgroup path conditions") != NULL);
	CHECK(strstr(r.msg, "at most 64") != NULL);

	/* One condition matching more than CGSEL_MAX_MATCH cgroups: narrow it. */
	snprintf(p, sizeof(p), "%s/big.slice", root);
	CHECK_EQ(mkdir(p, 0755), 0);
	for (k = 0; k < CGSEL_MAX_MATCH; k++) {
		snprintf(p, sizeof(p), "%s/big.slice/u%d", root, k);
		if (mkdir(p, 0755))
			break;
	}
	CHECK_EQ(k, CGSEL_MAX_MATCH);
	memset(&r, 0, sizeof(r));
	CHECK_EQ(cgsel_resolve(&d, 1, root, &cs, report, &r), 1);
	CHECK(strstr(r.msg, "matches 4106 cgroups; at most 4096") != NULL);
	CHECK(strstr(r.msg, "narrow it") != NULL);
	CHECK_EQ(cs.n, 0);
	cgsel_free(&cs);
	for (k = 0; k < CGSEL_MAX_MATCH; k++) {
		snprintf(p, sizeof(p), "%s/big.slice/u%d", root, k);
		rmdir(p);
	}
	snprintf(p, sizeof(p), "%s/big.slice", root);
	rmdir(p);
	return 0;
}

TEST(match_semantics)
{
	CHECK(cgsel_match("/a/b", "/a/b", TRIGREC_OP_STR_EQ));
	CHECK(!cgsel_match("/a/b/c", "/a/b", TRIGREC_OP_STR_EQ));
	CHECK(cgsel_match("/a/b/c", "/a/", TRIGREC_OP_GLOB_PREFIX));
	CHECK(!cgsel_match("/a", "/a/", TRIGREC_OP_GLOB_PREFIX));
	CHECK(cgsel_match("/x/y.scope", ".scope", TRIGREC_OP_GLOB_SUFFIX));
	CHECK(!cgsel_match("/x", "/x/y", TRIGREC_OP_GLOB_SUFFIX));
	CHECK(cgsel_match("/x", "", TRIGREC_OP_GLOB_MIDDLE));
	CHECK(!cgsel_match("/x", "x", 99));
	return 0;
}

TEST(mount_override)
{
	char m[256];

	cgsel_set_root("/tmp/x");
	cgsel_mount(m, sizeof(m));
	CHECK_STR(m, "/tmp/x");
	cgsel_set_root(NULL);
	cgsel_mount(m, sizeof(m));
	CHECK(m[0] == '/');
	return 0;
}

TEST(zz_cleanup)
{
	for (int i = (int)(sizeof(dirs) / sizeof(dirs[0])) - 1; root[0] && i >= 0; i--) {
		char p[512];

		snprintf(p, sizeof(p), "%s%s", root, dirs[i]);
		rmdir(p);
	}
	if (root[0]) {
		char p[512];

		snprintf(p, sizeof(p), "%s/system.slice/cgroup.procs", root);
		unlink(p);
		snprintf(p, sizeof(p), "%s/system.slice", root);
		rmdir(p);
		snprintf(p, sizeof(p), "%s/kubepods.slice", root);
		rmdir(p);
		CHECK_EQ(rmdir(root), 0);
	}
	return 0;
}

RUN_TESTS(T(walk_finds_every_cgroup_once), T(exact_paths_and_the_four_globs),
	  T(bits_count_across_triggers), T(missing_path_says_what_exists),
	  T(glob_matching_nothing_warns), T(a_cgroup_made_later_matches_after_the_next_walk),
	  T(bounds_and_errors), T(match_semantics), T(mount_override), T(zz_cleanup), )
