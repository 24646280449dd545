// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for src/service/hooks.c: --on-snapshot splitting, argv building
 * with and without placeholders, and the runner with real children (results,
 * time limit with SIGTERM and SIGKILL, concurrency, drops, the child's fds,
 * output logged by line, stop).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "check.h"
#include "service/hooks.h"
#include "util/util.h"

static int argv_is(char **v, const char *const *want)
{
	int i;

	for (i = 0; want[i]; i++) {
		if (!v || !v[i] || strcmp(v[i], want[i])) {
			fprintf(stderr, "    word %d: got \"%s\", want \"%s\"\n", i,
				v && v[i] ? v[i] : "(end)", want[i]);
			return 0;
		}
	}
	if (v[i]) {
		fprintf(stderr, "    extra word %d: \"%s\"\n", i, v[i]);
		return 0;
	}
	return 1;
}

#define SPLIT_OK(line, ...)                                                     \
	do {                                                                    \
		char **_v = NULL, _e[256] = "";                                 \
		CHECK_EQ(hook_argv_split(line, &_v, _e, sizeof(_e)), 0);        \
		CHECK(argv_is(_v, (const char *const[]){ __VA_ARGS__, NULL })); \
		hook_argv_free(_v);                                             \
	} while (0)
#define SPLIT_ERR(line, msg)                                                         \
	do {                                                                         \
		char **_v = (char **)1, _e[256] = "";                                \
		CHECK_EQ(hook_argv_split(line, &_v, _e, sizeof(_e)), -EINVAL);       \
		CHECK(_v == NULL);                                                   \
		if (!strstr(_e, msg)) {                                              \
			fprintf(stderr, "    error \"%s\" lacks \"%s\"\n", _e, msg); \
			CHECK(0);                                                    \
		}                                                                    \
	} while (0)

TEST(split_like_a_script_argv)
{
	SPLIT_OK("rclone copy {data} remote:snaps", "rclone", "copy", "{data}", "remote:snaps");
	SPLIT_OK("  a\t b  ", "a", "b");
	SPLIT_OK("cp '/srv/trace dumps/x' \"a b\"", "cp", "/srv/trace dumps/x", "a b");
	/* A quote joins the word it is in, as in a shell. */
	SPLIT_OK("x --opt='a b' c\"d\"e", "x", "--opt=a b", "cde");
	SPLIT_OK("x \"say \\\"hi\\\"\" 'it\\'s' \"a\\\\b\" 'c\\d'", "x", "say \"hi\"", "it's",
		 "a\\b", "c\\d");
	/* No shell: these are words like any other. */
	SPLIT_OK("x $HOME ; | > *", "x", "$HOME", ";", "|", ">", "*");
	SPLIT_OK("x ''", "x", "");
	SPLIT_ERR("", "empty command");
	SPLIT_ERR("   ", "empty command");
	SPLIT_ERR("x 'abc", "unterminated single quote");
	SPLIT_ERR("x \"abc\\\"", "unterminated double quote");
	return 0;
}

TEST(build_appends_the_paths_without_placeholders)
{
	char *tmpl[] = { "/usr/bin/rclone", "copy", "--retries=3", NULL };
	struct hook_snap s = { "/var/t/20261201-1.000001-crash.data",
			       "/var/t/20261201-1.000001-crash.json", "crash" };
	char **v = hook_argv_build(tmpl, &s, "h1");

	CHECK(!hook_argv_has_placeholder(tmpl));
	CHECK(argv_is(v, (const char *const[]){ "/usr/bin/rclone", "copy", "--retries=3", s.data,
						s.sidecar, NULL }));
	hook_argv_free(v);
	return 0;
}

TEST(build_replaces_placeholders)
{
	char *tmpl[] = { "rclone",	   "copy",   "--include",
			 "{name}.*",	   "{dir}",  "ship:{host}/{trigger}",
			 "{data,json}",	   "{nope}", "{data",
			 "x{json}y{data}", NULL };
	struct hook_snap s = { "out/20261201-1.000001-slow-2.data",
			       "out/20261201-1.000001-slow-2.json", "slow" };
	char **v = hook_argv_build(tmpl, &s, "web1");

	CHECK(hook_argv_has_placeholder(tmpl));
	/* Only the names it knows; rclone's own {a,b} globs pass through. */
	CHECK(argv_is(
		v, (const char *const[]){
			   "rclone", "copy", "--include", "20261201-1.000001-slow-2.*", "out",
			   "ship:web1/slow", "{data,json}", "{nope}", "{data",
			   "xout/20261201-1.000001-slow-2.jsonyout/20261201-1.000001-slow-2.data",
			   NULL }));
	hook_argv_free(v);
	/* A file in the current directory, and one in /. */
	{
		char *t2[] = { "x", "{dir}", "{name}", NULL };
		struct hook_snap a = { "a.data", "a.json", "t" }, b = { "/b.data", "/b.json", "t" };

		v = hook_argv_build(t2, &a, "h");
		CHECK(argv_is(v, (const char *const[]){ "x", ".", "a", NULL }));
		hook_argv_free(v);
		v = hook_argv_build(t2, &b, "h");
		CHECK(argv_is(v, (const char *const[]){ "x", "/", "b", NULL }));
		hook_argv_free(v);
	}
	return 0;
}

/* ---- the runner, with real children ---- */

static uint64_t results[HOOK_NR_RESULTS];

static void count(void *ctx, enum hook_result r)
{
	__atomic_fetch_add(&results[r], 1, __ATOMIC_SEQ_CST);
}

static struct hooks *runner(char **argv, uint64_t timeout_ns, unsigned int jobs, unsigned int queue,
			    uint64_t grace_ns)
{
	struct hooks_opts o = { .argv = argv,
				.timeout_ns = timeout_ns,
				.jobs = jobs,
				.queue = queue,
				.kill_grace_ns = grace_ns,
				.done = count };

	memset(results, 0, sizeof(results));
	return hooks__new(&o);
}

/* Stop and wait for the end (at most max_ms); the time it took in ms, -1 on timeout. */
static long stop_wait(struct hooks *h, int max_ms)
{
	struct pollfd pf = { .fd = hooks__finished_fd(h), .events = POLLIN };
	uint64_t t0 = mono_ns();

	hooks__request_stop(h);
	if (poll(&pf, 1, max_ms) != 1)
		return -1;
	return (mono_ns() - t0) / 1000000;
}

static void submit(struct hooks *h, const char *trigger)
{
	struct hook_snap s = { "/nonexistent/x.data", "/nonexistent/x.json", trigger };

	CHECK_EQ(hooks__submit(h, &s), 0);
}

TEST(results_are_counted)
{
	char *argv[] = { "/bin/sh", "-c", "test \"$0\" = ok", "{trigger}", NULL };
	struct hooks *h = runner(argv, 5000000000ull, 2, 0, 0);
	struct hooks_stats st;

	CHECK(h);
	if (!h)
		return 1;
	submit(h, "ok");
	submit(h, "bad");
	submit(h, "ok");
	CHECK(stop_wait(h, 5000) >= 0);
	hooks__stats(h, &st);
	CHECK_EQ(st.started, 3);
	CHECK_EQ(st.runs[HOOK_OK], 2);
	CHECK_EQ(st.runs[HOOK_FAILED], 1);
	CHECK_EQ(results[HOOK_OK], 2);
	CHECK_EQ(results[HOOK_FAILED], 1);
	CHECK_EQ(results[HOOK_TIMEOUT] + results[HOOK_DROPPED], 0);
	hooks__free(h);
	return 0;
}

TEST(a_program_that_cannot_run_fails)
{
	char *argv[] = { "/nonexistent/shipper", NULL };
	struct hooks *h = runner(argv, 5000000000ull, 1, 0, 0);

	if (!h)
		return 1;
	submit(h, "x");
	CHECK(stop_wait(h, 5000) >= 0);
	CHECK_EQ(results[HOOK_FAILED], 1);
	hooks__free(h);
	return 0;
}

TEST(time_limit_sigterm)
{
	char *argv[] = { "/bin/sh", "-c", "sleep 30", "{trigger}", NULL };
	struct hooks *h = runner(argv, 300000000ull, 1, 0, 0);
	uint64_t t0 = mono_ns();
	long ms;

	if (!h)
		return 1;
	submit(h, "x");
	/* Let the limit, not the stop, end it. */
	while (!results[HOOK_TIMEOUT] && mono_ns() - t0 < 5000000000ull)
		usleep(10000);
	ms = (mono_ns() - t0) / 1000000;
	CHECK_EQ(results[HOOK_TIMEOUT], 1);
	CHECK(ms >= 300 && ms < 2000);
	CHECK(stop_wait(h, 5000) >= 0);
	hooks__free(h);
	return 0;
}

TEST(time_limit_sigkill_when_sigterm_is_ignored)
{
	/* The shell and its sleep both ignore SIGTERM; the group gets SIGKILL 200 ms later. */
	char *argv[] = { "/bin/sh", "-c", "trap '' TERM; sleep 30; exit 0", "{trigger}", NULL };
	struct hooks *h = runner(argv, 300000000ull, 1, 0, 200000000ull);
	uint64_t t0 = mono_ns();
	long ms;

	if (!h)
		return 1;
	submit(h, "x");
	while (!results[HOOK_TIMEOUT] && mono_ns() - t0 < 5000000000ull)
		usleep(10000);
	ms = (mono_ns() - t0) / 1000000;
	CHECK_EQ(results[HOOK_TIMEOUT], 1);
	CHECK(ms >= 500 && ms < 2500);
	CHECK(stop_wait(h, 5000) >= 0);
	hooks__free(h);
	return 0;
}

TEST(at_most_k_at_once_then_queued_then_dropped)
{
	char *argv[] = { "/bin/sh", "-c", "sleep 0.3", "{trigger}", NULL };
	struct hooks *h = runner(argv, 5000000000ull, 2, 3, 0);
	struct hook_snap s = { "/x/y.data", "/x/y.json", "t" };
	struct hooks_stats st;
	uint64_t t0 = mono_ns();
	int dropped = 0;

	if (!h)
		return 1;
	submit(h, "a");
	submit(h, "b");
	do {
		usleep(5000);
		hooks__stats(h, &st);
	} while (st.started < 2 && mono_ns() - t0 < 5000000000ull);
	CHECK_EQ(st.started, 2);
	/* Both jobs busy: three wait, the next two are dropped. */
	for (int i = 0; i < 5; i++)
		dropped += hooks__submit(h, &s) == -EBUSY;
	CHECK_EQ(dropped, 2);
	CHECK(stop_wait(h, 5000) >= 0);
	hooks__stats(h, &st);
	CHECK_EQ(st.started, 5);
	CHECK_EQ(st.max_running, 2);
	CHECK_EQ(st.runs[HOOK_OK], 5);
	CHECK_EQ(st.runs[HOOK_DROPPED], 2);
	CHECK_EQ(results[HOOK_DROPPED], 2);
	/* 5 runs of 0.3 s, 2 at a time: 3 rounds. */
	CHECK((mono_ns() - t0) / 1000000 >= 850);
	/* Stopped: nothing more is taken. */
	CHECK_EQ(hooks__submit(h, &s), -EBUSY);
	hooks__free(h);
	return 0;
}

/*
 * The stop waits for runs at most one time limit from the stop, then ends
 * them; what has not started by then is dropped. Here the running one ignores
 * SIGTERM, so it holds its slot past the stop's wait and the queued one never
 * starts.
 */
TEST(stop_is_bounded_by_the_time_limit)
{
	char *argv[] = { "/bin/sh", "-c", "trap '' TERM; sleep 30", "{trigger}", NULL };
	struct hooks *h = runner(argv, 400000000ull, 1, 0, 300000000ull);
	struct hooks_stats st;
	long ms;

	if (!h)
		return 1;
	submit(h, "a");
	usleep(100000);
	submit(h, "b");
	ms = stop_wait(h, 5000);
	CHECK(ms >= 400 && ms < 1500);
	hooks__stats(h, &st);
	CHECK_EQ(st.started, 1);
	CHECK_EQ(st.runs[HOOK_TIMEOUT], 1);
	CHECK_EQ(st.runs[HOOK_DROPPED], 1);
	hooks__free(h);
	return 0;
}

/* Read a whole small file into buf. */
static void slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;

	buf[n > 0 ? n : 0] = 0;
	if (fd >= 0)
		close(fd);
}

/*
 * The child sees /dev/null on 0, our pipe on 1 and 2, and nothing else (not
 * even an fd we leaked without O_CLOEXEC); what it writes is logged line by
 * line, prefixed with the program and its pid, long lines cut, at most
 * HOOKS_MAX_LINES per run.
 */
TEST(child_fds_and_output_logged)
{
	char *argv[] = { "/bin/sh", "-c",
			 "readlink /proc/self/fd/0; echo to-stderr >&2; exec ls /proc/self/fd",
			 "{data}", NULL };
	char *argv2[] = {
		"/bin/sh", "-c",
		/* NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one script, two lines */
		"i=0; while [ $i -lt 60 ]; do echo line$i; i=$((i+1)); done; "
		"head -c 3000 /dev/zero | tr '\\0' x; echo; printf 'no-newline'",
		"{data}", NULL
	};
	char log[] = "/tmp/test_hooks.XXXXXX", buf[65536], want[64];
	int leak = open("/dev/null", O_RDONLY); /* no O_CLOEXEC on purpose */
	int lfd = mkstemp(log), saved = dup(2);
	struct hooks *h;
	char *p;

	CHECK(lfd >= 0 && saved >= 0 && leak >= 0);
	dup2(lfd, 2);
	h = runner(argv, 5000000000ull, 1, 0, 0);
	if (h) {
		submit(h, "x");
		CHECK(stop_wait(h, 5000) >= 0);
		hooks__free(h);
	}
	h = runner(argv2, 5000000000ull, 1, 0, 0);
	if (h) {
		submit(h, "x");
		CHECK(stop_wait(h, 5000) >= 0);
		hooks__free(h);
	}
	dup2(saved, 2);
	close(saved);
	close(leak);
	slurp(log, buf, sizeof(buf));
	unlink(log);
	close(lfd);
	CHECK(strstr(buf, ": /dev/null\n"));
	CHECK(strstr(buf, ": to-stderr\n"));
	/* ls has its directory open as 3: 0 1 2 3, nothing else. */
	p = strstr(buf, ": 0\n");
	CHECK(p && strstr(p, ": 1\n") && strstr(p, ": 2\n") && strstr(p, ": 3\n"));
	CHECK(!strstr(buf, ": 4\n") && !strstr(buf, ": 5\n"));
	CHECK(strstr(buf, "on_snapshot sh["));
	/* 50 lines logged, then one line for the rest (10 + the long one + the last). */
	CHECK(strstr(buf, ": line49\n"));
	CHECK(!strstr(buf, ": line50\n"));
	CHECK(strstr(buf, ": 12 more lines of output not logged"));
	if (!strstr(buf, "not logged"))
		fprintf(stderr, "    log was:\n%s\n", buf);
	snprintf(want, sizeof(want), "line%d", 0);
	CHECK(strstr(buf, want));
	return 0;
}

/* The lines of a run, cut at HOOKS_LINE_BYTES, and a last line without its newline. */
TEST(long_lines_are_cut)
{
	char *argv[] = { "/bin/sh", "-c",
			 "head -c 3000 /dev/zero | tr '\\0' x; echo; echo after; printf 'tail'",
			 "{data}", NULL };
	char log[] = "/tmp/test_hooks.XXXXXX", buf[16384], cut[HOOKS_LINE_BYTES + 16];
	int lfd = mkstemp(log), saved = dup(2);
	struct hooks *h;

	dup2(lfd, 2);
	h = runner(argv, 5000000000ull, 1, 0, 0);
	if (h) {
		submit(h, "x");
		CHECK(stop_wait(h, 5000) >= 0);
		hooks__free(h);
	}
	dup2(saved, 2);
	close(saved);
	slurp(log, buf, sizeof(buf));
	unlink(log);
	close(lfd);
	memset(cut, 'x', HOOKS_LINE_BYTES);
	strcpy(cut + HOOKS_LINE_BYTES, " ...(cut)\n");
	CHECK(strstr(buf, cut));
	CHECK(strstr(buf, ": after\n"));
	CHECK(strstr(buf, ": tail\n"));
	/* The rest of the long line is skipped, not logged as lines of its own. */
	{
		int n = 0;

		for (char *p = buf; (p = strstr(p, ": xxxxxxxx")); p++)
			n++;
		CHECK_EQ(n, 1);
	}
	CHECK_EQ(results[HOOK_OK], 1);
	return 0;
}

/* ---- on_snapshot_user ---- */

TEST(user_resolve_and_its_errors)
{
	struct hook_cred c;
	char err[512];

	CHECK_EQ(hook_user_resolve("root", &c, err, sizeof(err)), 0);
	CHECK_EQ(c.uid, 0);
	CHECK_EQ(c.gid, 0);
	CHECK_STR(c.name, "root");
	CHECK(c.ngroups >= 1);
	CHECK_EQ(hook_user_resolve("0", &c, err, sizeof(err)), 0);
	CHECK_STR(c.name, "root");
	CHECK_EQ(hook_user_resolve("no-such-user-trigrec", &c, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "no user 'no-such-user-trigrec'"));
	CHECK(strstr(err, "useradd --system"));
	CHECK_EQ(hook_user_resolve("a b", &c, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "a user name is letters"));
	CHECK_EQ(hook_user_resolve("", &c, err, sizeof(err)), -EINVAL);
	return 0;
}

/* The pair is shared with the hook's group only, never through a symlink. */
TEST(share_file_and_dir)
{
	char dir[] = "/tmp/test_hooks_share.XXXXXX", f[128], l[128], err[512];
	struct stat st;
	int fd;

	if (!mkdtemp(dir))
		return 1;
	snprintf(f, sizeof(f), "%s/x.data", dir);
	snprintf(l, sizeof(l), "%s/link.data", dir);
	fd = open(f, O_CREAT | O_WRONLY, 0600);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(symlink(f, l), 0);
	CHECK_EQ(hook_share_file(f, getegid(), err, sizeof(err)), 0);
	CHECK(!stat(f, &st) && (st.st_mode & 07777) == 0640);
	chmod(f, 0600);
	CHECK(hook_share_file(l, getegid(), err, sizeof(err)) < 0);
	CHECK(!stat(f, &st) && (st.st_mode & 07777) == 0600);
	/* The group gets r-x; nobody but the owner keeps write. */
	chmod(dir, 0700);
	CHECK_EQ(hook_share_dir(dir, getegid(), 0, err, sizeof(err)), 0);
	CHECK(!stat(dir, &st) && (st.st_mode & 07777) == 0750);
	chmod(dir, 0773);
	CHECK_EQ(hook_share_dir(dir, getegid(), 0, err, sizeof(err)), 0);
	CHECK(!stat(dir, &st) && (st.st_mode & 07777) == 0751);
	/* Readable by everyone: left as it is. */
	chmod(dir, 0755);
	CHECK_EQ(hook_share_dir(dir, getegid() + 1, 0, err, sizeof(err)), 0);
	CHECK(!stat(dir, &st) && (st.st_mode & 07777) == 0755 && st.st_gid == getegid());
	/* Another group: only for a directory trigrec created (may_chgrp). */
	chmod(dir, 0700);
	CHECK_EQ(hook_share_dir(dir, getegid() + 1, 0, err, sizeof(err)), -EPERM);
	CHECK(strstr(err, "does not regroup a directory it did not create: run 'chgrp"));
	CHECK(!stat(dir, &st) && (st.st_mode & 07777) == 0700 && st.st_gid == getegid());
	CHECK(hook_share_dir(l, getegid(), 1, err, sizeof(err)) < 0);
	unlink(l);
	unlink(f);
	rmdir(dir);
	return 0;
}

/*
 * A hook as nobody: its uid, groups and every capability set in
 * /proc/self/status, NoNewPrivs, its environment, its fds, and the snapshot
 * it reads through its group.
 */
TEST(runs_as_the_user_with_no_capabilities)
{
	char *argv[] = {
		"/bin/sh", "-c",
		/* NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one script, three lines */
		"echo uid=$(id -u) gid=$(id -g) groups=$(id -G); "
		"grep -E '^(Cap|NoNewPrivs)' /proc/self/status; "
		"echo bytes=$(wc -c <\"$0\") home=$HOME user=$USER; exec ls /proc/self/fd",
		"{data}", NULL
	};
	char dir[] = "/tmp/test_hooks_user.XXXXXX", data[128], log[] = "/tmp/test_hooks.XXXXXX",
	     buf[65536], err[512], want[512];
	struct hook_cred nobody;
	struct hooks_opts o = {
		.argv = argv, .user = &nobody, .timeout_ns = 5000000000ull, .jobs = 1, .done = count
	};
	struct hook_snap snap = { data, data, "x" };
	int lfd, saved, fd;
	struct hooks *h;

	if (hook_can_switch_user(err, sizeof(err)))
		SKIP("not root: %s", err);
	if (hook_user_resolve("nobody", &nobody, err, sizeof(err)))
		SKIP("%s", err);
	if (!mkdtemp(dir))
		return 1;
	snprintf(data, sizeof(data), "%s/x.data", dir);
	fd = open(data, O_CREAT | O_WRONLY, 0600);
	CHECK(fd >= 0 && write(fd, "0123456789", 10) == 10);
	close(fd);
	CHECK_EQ(hook_share_dir(dir, nobody.gid, 1, err, sizeof(err)), 0);
	CHECK_EQ(hook_share_file(data, nobody.gid, err, sizeof(err)), 0);
	lfd = mkstemp(log);
	saved = dup(2);
	dup2(lfd, 2);
	memset(results, 0, sizeof(results));
	h = hooks__new(&o);
	if (h) {
		CHECK_EQ(hooks__submit(h, &snap), 0);
		CHECK(stop_wait(h, 5000) >= 0);
		hooks__free(h);
	}
	dup2(saved, 2);
	close(saved);
	slurp(log, buf, sizeof(buf));
	unlink(log);
	close(lfd);
	CHECK(h);
	CHECK_EQ(results[HOOK_OK], 1);
	snprintf(want, sizeof(want), ": uid=%u gid=%u groups=%u\n", (unsigned)nobody.uid,
		 (unsigned)nobody.gid, (unsigned)nobody.gid);
	CHECK(strstr(buf, want));
	CHECK(strstr(buf, ": CapInh:\t0000000000000000\n"));
	CHECK(strstr(buf, ": CapPrm:\t0000000000000000\n"));
	CHECK(strstr(buf, ": CapEff:\t0000000000000000\n"));
	CHECK(strstr(buf, ": CapBnd:\t0000000000000000\n"));
	CHECK(strstr(buf, ": CapAmb:\t0000000000000000\n"));
	CHECK(strstr(buf, ": NoNewPrivs:\t1\n"));
	snprintf(want, sizeof(want), ": bytes=10 home=%s user=%s\n", nobody.home, nobody.name);
	CHECK(strstr(buf, want));
	/* ls has its directory open as 3: 0 1 2 3, nothing else. */
	CHECK(strstr(buf, ": 3\n") && !strstr(buf, ": 4\n"));
	if (check_failed_in_test)
		fprintf(stderr, "    log was:\n%s\n", buf);
	unlink(data);
	rmdir(dir);
	return 0;
}

/* A program the user cannot run fails clearly, and trigrec goes on. */
TEST(user_cannot_exec)
{
	char *argv[] = { "/root/not-there", NULL };
	struct hook_cred nobody;
	struct hooks_opts o = {
		.argv = argv, .user = &nobody, .timeout_ns = 5000000000ull, .jobs = 1, .done = count
	};
	struct hook_snap snap = { "/nonexistent/x.data", "/nonexistent/x.json", "x" };
	struct hooks *h;
	char err[512];

	if (hook_can_switch_user(err, sizeof(err)))
		SKIP("not root: %s", err);
	if (hook_user_resolve("nobody", &nobody, err, sizeof(err)))
		SKIP("%s", err);
	memset(results, 0, sizeof(results));
	h = hooks__new(&o);
	CHECK(h);
	if (!h)
		return 1;
	CHECK_EQ(hooks__submit(h, &snap), 0);
	CHECK(stop_wait(h, 5000) >= 0);
	hooks__free(h);
	CHECK_EQ(results[HOOK_FAILED], 1);
	return 0;
}

RUN_TESTS(T(split_like_a_script_argv), T(build_appends_the_paths_without_placeholders),
	  T(build_replaces_placeholders), T(results_are_counted),
	  T(a_program_that_cannot_run_fails), T(time_limit_sigterm),
	  T(time_limit_sigkill_when_sigterm_is_ignored),
	  T(at_most_k_at_once_then_queued_then_dropped), T(stop_is_bounded_by_the_time_limit),
	  T(child_fds_and_output_logged), T(long_lines_are_cut), T(user_resolve_and_its_errors),
	  T(share_file_and_dir), T(runs_as_the_user_with_no_capabilities), T(user_cannot_exec))
