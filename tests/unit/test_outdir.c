// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * outdir: how snapshot files get their names. Planted files (predictable
 * temporary names, dangling symlinks at the next name, one appearing
 * between the check and the link) never cost a snapshot and are never
 * written through; a pair is never half visible; what a killed run left is
 * removed at start-up, and only that; a directory too deep for snapshot
 * names is refused up front. Both with O_TMPFILE and without.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "check.h"
#include "snapshot/outdir.h"

static char dir[64];

static void touch(const char *name)
{
	char p[1024];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0)
		close(fd);
}

/* Entries of dir, sorted, space-separated. */
static const char *listing(void)
{
	static char out[4096];
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	size_t o = 0;

	out[0] = 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, ".."))
			o += snprintf(out + o, sizeof(out) - o, "%s%s", o ? " " : "",
				      ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return out;
}

static const char *slurp(const char *name)
{
	static char buf[4096];
	char p[256];
	int fd;
	ssize_t n;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

struct render_ctx {
	int calls;
	const char *plant_at_first; /* a name to plant as a dangling symlink during the first call */
};

static int render(void *ctx, const char *datapath, char **buf, size_t *len)
{
	struct render_ctx *c = ctx;

	if (c->calls++ == 0 && c->plant_at_first) {
		char p[256];

		/* Someone takes the name between the check and the link. */
		snprintf(p, sizeof(p), "%s/%s", dir, c->plant_at_first);
		if (symlink("/nonexistent/trigrec-test-target", p))
			return -errno;
	}
	*len = asprintf(buf, "{\"file\": \"%s\"}\n", datapath);
	return *len == (size_t)-1 ? -ENOMEM : 0;
}

/* Write "DATA" to a new file and publish it as base. */
static int publish(struct outdir *d, const char *base, struct render_ctx *rc, char *path,
		   size_t len)
{
	struct out_file f = { .fd = -1 };
	struct render_ctx none = { 0 };
	int err = outdir__create(d, &f);

	if (!err && write(f.fd, "DATA", 4) != 4)
		err = -EIO;
	if (!err)
		err = outdir__publish_pair(d, &f, base, render, rc ? rc : &none, path, len);
	outdir__discard(d, &f);
	return err;
}

static int pair_ok(struct outdir *d, const char *name, int named_tmp)
{
	char path[PATH_MAX], want[PATH_MAX + 32], jname[128];
	struct render_ctx rc = { 0 };
	struct stat st;

	if (named_tmp)
		outdir__force_named_tmp(d);
	CHECK_EQ(publish(d, name, &rc, path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "%s/%s.data", dir, name);
	CHECK_STR(path, want);
	snprintf(jname, sizeof(jname), "%s.json", name);
	snprintf(want, sizeof(want), "{\"file\": \"%s/%s.data\"}\n", dir, name);
	CHECK_STR(slurp(jname), want);
	snprintf(jname, sizeof(jname), "%s.data", name);
	CHECK_STR(slurp(jname), "DATA");
	CHECK(!stat(path, &st) && (st.st_mode & 07777) == 0600);
	return 0;
}

TEST(pair_published_tmpfile)
{
	struct outdir *d;

	check_tmpdir(dir, sizeof(dir), "outdir");
	d = outdir__open(dir);
	CHECK(d != NULL);
	if (d) {
		pair_ok(d, "20261201-000000.000001-t", 0);
		/* Nothing else: no temporary ever had a name. */
		CHECK_STR(listing(), "20261201-000000.000001-t.data 20261201-000000.000001-t.json");
	}
	outdir__free(d);
	check_rmtree(dir);
	return 0;
}

TEST(pair_published_named_tmp)
{
	struct outdir *d;

	check_tmpdir(dir, sizeof(dir), "outdir");
	d = outdir__open(dir);
	CHECK(d != NULL);
	if (d) {
		pair_ok(d, "20261201-000000.000001-t", 1);
		CHECK_STR(listing(), "20261201-000000.000001-t.data 20261201-000000.000001-t.json");
	}
	outdir__free(d);
	check_rmtree(dir);
	return 0;
}

/* Before the fix: .trigrec-PID-{0..99}.tmp made every snapshot fail with EEXIST. */
TEST(planted_temporary_names_do_not_matter)
{
	for (int named = 0; named < 2; named++) {
		struct outdir *d;
		char name[64];

		check_tmpdir(dir, sizeof(dir), "outdir");
		for (int i = 0; i < 100; i++) {
			snprintf(name, sizeof(name), ".trigrec-%d-%d.tmp", (int)getpid(), i);
			touch(name);
		}
		d = outdir__open(dir);
		CHECK(d != NULL);
		if (d)
			pair_ok(d, "20261201-000000.000001-planted", named);
		outdir__free(d);
		check_rmtree(dir);
	}
	return 0;
}

/* Before the fix: a dangling symlink at the next name lost that snapshot ("File exists"). */
TEST(dangling_symlink_takes_the_next_name)
{
	for (int named = 0; named < 2; named++) {
		char path[PATH_MAX], p[256], want[PATH_MAX];
		struct outdir *d;
		struct stat st;

		check_tmpdir(dir, sizeof(dir), "outdir");
		snprintf(p, sizeof(p), "%s/20261201-000000.000001-t.data", dir);
		CHECK_EQ(symlink("/tmp/trigrec-test-outdir-target", p), 0);
		snprintf(p, sizeof(p), "%s/20261201-000000.000001-t-2.json", dir);
		CHECK_EQ(symlink("/tmp/trigrec-test-outdir-target", p), 0);
		d = outdir__open(dir);
		if (named)
			outdir__force_named_tmp(d);
		CHECK_EQ(publish(d, "20261201-000000.000001-t", NULL, path, sizeof(path)), 0);
		snprintf(want, sizeof(want), "%s/20261201-000000.000001-t-3.data", dir);
		CHECK_STR(path, want);
		CHECK_STR(listing(),
			  "20261201-000000.000001-t-2.json 20261201-000000.000001-t-3.data "
			  "20261201-000000.000001-t-3.json 20261201-000000.000001-t.data");
		/* Nothing written through the links. */
		CHECK(lstat("/tmp/trigrec-test-outdir-target", &st) && errno == ENOENT);
		outdir__free(d);
		check_rmtree(dir);
	}
	return 0;
}

/* A name taken between the check and the link: the next name, no half pair left. */
TEST(name_taken_during_publish)
{
	static const char *plant[] = { "20261201-000000.000001-t.data",
				       "20261201-000000.000001-t.json" };

	for (int named = 0; named < 2; named++)
		for (int i = 0; i < 2; i++) {
			struct render_ctx rc = { .plant_at_first = plant[i] };
			char path[PATH_MAX], want[512];
			struct outdir *d;

			check_tmpdir(dir, sizeof(dir), "outdir");
			d = outdir__open(dir);
			if (named)
				outdir__force_named_tmp(d);
			CHECK_EQ(publish(d, "20261201-000000.000001-t", &rc, path, sizeof(path)),
				 0);
			CHECK_EQ(rc.calls, 2);
			snprintf(want, sizeof(want),
				 "20261201-000000.000001-t-2.data "
				 "20261201-000000.000001-t-2.json %s",
				 plant[i]);
			CHECK_STR(listing(), want);
			outdir__free(d);
			check_rmtree(dir);
		}
	return 0;
}

static pid_t dead_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

/* kill -9 mid-write leaves these; start-up removes them, and nothing else. */
TEST(leftovers_of_killed_runs_removed)
{
	char name[512], own[64], p[256];
	pid_t dead = dead_pid();
	struct outdir *d;

	check_tmpdir(dir, sizeof(dir), "outdir");
	snprintf(name, sizeof(name), ".trigrec-%d-0.tmp", (int)dead); /* old format */
	touch(name);
	snprintf(name, sizeof(name), ".trigrec-%d-0123456789abcdef.tmp", (int)dead);
	touch(name);
	snprintf(own, sizeof(own), ".trigrec-%d-0123456789abcdef.tmp",
		 (int)getpid()); /* live run */
	touch(own);
	touch("20261201-000000.000001-orphan.json"); /* its .data never got its name */
	touch("20261201-000000.000002-whole.json");
	touch("20261201-000000.000002-whole.data");
	touch("notes.json"); /* not ours */
	touch(".trigrec-x.tmp");
	snprintf(p, sizeof(p), "%s/.trigrec-%d-1.tmp", dir, (int)dead); /* not a regular file */
	CHECK_EQ(symlink("/etc/passwd", p), 0);
	d = outdir__open(dir);
	CHECK(d != NULL);
	snprintf(name, sizeof(name),
		 "%s .trigrec-%d-1.tmp .trigrec-x.tmp 20261201-000000.000002-whole.data "
		 "20261201-000000.000002-whole.json notes.json",
		 own, (int)dead);
	CHECK_STR(listing(), name);
	outdir__free(d);
	check_rmtree(dir);
	return 0;
}

TEST(leftovers_of_other_users_kept)
{
	char name[128];
	pid_t dead = dead_pid();
	struct outdir *d;
	char p[256];

	if (geteuid())
		SKIP("needs root to make a file owned by another user");
	check_tmpdir(dir, sizeof(dir), "outdir");
	snprintf(name, sizeof(name), ".trigrec-%d-0.tmp", (int)dead);
	touch(name);
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	CHECK_EQ(chown(p, 65534, 65534), 0);
	touch("20261201-000000.000001-orphan.json");
	snprintf(p, sizeof(p), "%s/20261201-000000.000001-orphan.json", dir);
	CHECK_EQ(chown(p, 65534, 65534), 0);
	d = outdir__open(dir);
	snprintf(p, sizeof(p), "%s 20261201-000000.000001-orphan.json", name);
	CHECK_STR(listing(), p);
	outdir__free(d);
	check_rmtree(dir);
	return 0;
}

/* Before the fix: names were cut at PATH_MAX ("...-manual.da") and the run reported success. */
TEST(too_deep_for_snapshot_names_refused)
{
	char path[PATH_MAX + 64];
	size_t o;
	struct outdir *d;

	check_tmpdir(dir, sizeof(dir), "outdir");
	o = snprintf(path, sizeof(path), "%s", dir);
	/* Components of up to 200 bytes until the path is PATH_MAX - 40 bytes long. */
	while (o < PATH_MAX - 40) {
		size_t n = PATH_MAX - 40 - o - 1 < 200 ? PATH_MAX - 40 - o - 1 : 200;

		path[o++] = '/';
		memset(path + o, 'd', n);
		o += n;
		path[o] = 0;
		CHECK_EQ(mkdir(path, 0700), 0);
	}
	CHECK_EQ(strlen(path), PATH_MAX - 40);
	d = outdir__open(path);
	CHECK(d == NULL);
	outdir__free(d);
	/* One that leaves room for every name works. */
	path[strlen(dir) + 1 + 200] = 0;
	d = outdir__open(path);
	CHECK(d != NULL);
	outdir__free(d);
	check_rmtree(dir);
	return 0;
}

TEST(missing_directory_refused)
{
	CHECK(outdir__open("/nonexistent/trigrec-test") == NULL);
	return 0;
}

TEST(stamp_offset_with_and_without_prefix)
{
	CHECK_EQ(outdir_stamp_offset("20261202-071344.271837-slow.data"), 0);
	CHECK_EQ(outdir_stamp_offset("web-01-20261202-071344.271837-slow.data"), 7);
	CHECK_EQ(outdir_stamp_offset("a-20261202-071344.271837-x.json"), 2);
	/* Not a snapshot's: no stamp, a stamp too late, a character no prefix has. */
	CHECK_EQ(outdir_stamp_offset("notes.txt"), -1);
	CHECK_EQ(outdir_stamp_offset("-20261202-071344.271837-slow.data"), -1);
	CHECK_EQ(outdir_stamp_offset("a b-20261202-071344.271837-slow.data"), -1);
	CHECK_EQ(outdir_stamp_offset("x-2026120-071344.271837-slow.data"), -1);
	CHECK_EQ(outdir_stamp_offset(
			 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-"
			 "20261202-071344.271837-slow.data"),
		 -1); /* 64-character prefix */
	return 0;
}

/* Another user's directory: they could delete or replace what root writes there. */
TEST(directory_of_another_user_refused)
{
	int fd = 0;

	if (geteuid())
		SKIP("giving the directory to another user (chown) needs root");
	check_tmpdir(dir, sizeof(dir), "outdir");
	CHECK_EQ(chown(dir, 65534, 65534), 0);
	CHECK_EQ(outdir_check(dir, &fd), -EPERM);
	CHECK_EQ(fd, -1);
	CHECK(outdir__open(dir) == NULL);
	/* root's own, or ours, is fine. */
	CHECK_EQ(chown(dir, 0, 0), 0);
	CHECK_EQ(outdir_check(dir, &fd), 0);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	check_rmtree(dir);
	return 0;
}

/* Writable by all without the sticky bit: anyone could rename ours away or plant files. */
TEST(world_writable_without_sticky_refused)
{
	int fd = 0;

	check_tmpdir(dir, sizeof(dir), "outdir");
	CHECK_EQ(chmod(dir, 0777), 0);
	CHECK_EQ(outdir_check(dir, &fd), -EPERM);
	CHECK_EQ(fd, -1);
	CHECK(outdir__open(dir) == NULL);
	/* With the sticky bit (as /var/tmp) others cannot remove or rename what is ours. */
	CHECK_EQ(chmod(dir, 01777), 0);
	CHECK_EQ(outdir_check(dir, &fd), 0);
	if (fd >= 0)
		close(fd);
	CHECK_EQ(chmod(dir, 0700), 0);
	if (!geteuid()) {
		/* Writable by a group that is neither root's nor ours. */
		CHECK_EQ(chown(dir, 0, 65534), 0);
		CHECK_EQ(chmod(dir, 0770), 0);
		CHECK_EQ(outdir_check(dir, &fd), -EPERM);
		CHECK_EQ(chown(dir, 0, 0), 0);
		CHECK_EQ(outdir_check(dir, &fd), 0);
		if (fd >= 0)
			close(fd);
	}
	check_rmtree(dir);
	return 0;
}

/* -o a symbolic link: refused (whoever can change the link decides where snapshots go). */
TEST(symlink_refused)
{
	char link[128];
	int fd = 0;

	check_tmpdir(dir, sizeof(dir), "outdir");
	snprintf(link, sizeof(link), "%s.link", dir);
	CHECK_EQ(symlink(dir, link), 0);
	CHECK_EQ(outdir_check(link, &fd), -ELOOP);
	CHECK_EQ(fd, -1);
	CHECK(outdir__open(link) == NULL);
	unlink(link);
	check_rmtree(dir);
	return 0;
}

/* The directory swapped for a symlink after the check: snapshots still go where it was checked. */
TEST(symlink_swapped_in_after_check_not_followed)
{
	char moved[128], elsewhere[128], path[PATH_MAX], cmd[512];
	struct outdir *d = NULL;
	int fd = -1;

	check_tmpdir(dir, sizeof(dir), "outdir");
	snprintf(moved, sizeof(moved), "%s.moved", dir);
	snprintf(elsewhere, sizeof(elsewhere), "%s.elsewhere", dir);
	CHECK_EQ(mkdir(elsewhere, 0700), 0);
	CHECK_EQ(outdir_check(dir, &fd), 0);
	CHECK_EQ(rename(dir, moved), 0);
	CHECK_EQ(symlink(elsewhere, dir), 0);
	if (fd >= 0)
		d = outdir__open_at(fd, dir);
	CHECK(d != NULL);
	if (d)
		CHECK_EQ(publish(d, "20261201-000000.000001-t", NULL, path, sizeof(path)), 0);
	outdir__free(d);
	if (fd >= 0)
		close(fd);
	/* The pair is in the directory that was checked; the link's target is empty. */
	snprintf(cmd, sizeof(cmd),
		 "test -f '%s/20261201-000000.000001-t.data' && test -z \"$(ls -A '%s')\"", moved,
		 elsewhere);
	CHECK_EQ(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' '%s'", moved, elsewhere, dir);
	CHECK_EQ(system(cmd), 0);
	return 0;
}

/*
 * -o did not exist when checked; before trigrec creates it, someone else
 * does (a directory of their own, or a symlink): refused, never used.
 */
TEST(directory_appeared_between_check_and_make_refused)
{
	char sub[128], target[128];
	struct stat st;
	int fd = 0;

	check_tmpdir(dir, sizeof(dir), "outdir");
	snprintf(sub, sizeof(sub), "%s/out", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	CHECK_EQ(outdir_check(sub, &fd), 1);
	CHECK_EQ(fd, -1);
	CHECK_EQ(mkdir(sub, 0700), 0); /* the race */
	CHECK_EQ(outdir_make(sub), -EEXIST);
	CHECK_EQ(rmdir(sub), 0);
	CHECK_EQ(mkdir(target, 0700), 0);
	CHECK_EQ(symlink(target, sub), 0); /* a symlink in the window */
	CHECK_EQ(outdir_make(sub), -EEXIST);
	CHECK_EQ(unlink(sub), 0);
	/* Nobody in the window: made 0700 and opened. */
	fd = outdir_make(sub);
	CHECK(fd >= 0);
	CHECK(!stat(sub, &st) && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	if (fd >= 0)
		close(fd);
	check_rmtree(dir);
	return 0;
}

RUN_TESTS(T(stamp_offset_with_and_without_prefix), T(pair_published_tmpfile),
	  T(pair_published_named_tmp), T(planted_temporary_names_do_not_matter),
	  T(dangling_symlink_takes_the_next_name), T(name_taken_during_publish),
	  T(leftovers_of_killed_runs_removed), T(leftovers_of_other_users_kept),
	  T(too_deep_for_snapshot_names_refused), T(missing_directory_refused),
	  T(directory_of_another_user_refused), T(world_writable_without_sticky_refused),
	  T(symlink_refused), T(symlink_swapped_in_after_check_not_followed),
	  T(directory_appeared_between_check_and_make_refused))
