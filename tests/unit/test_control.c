// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The control socket: bad paths refused before anything runs (the empty
 * path was an abstract socket any user could reach), mode 0600, the peer
 * checked on every connection (a stranger gets an error line even when the
 * file mode lets it connect), requests served on the control thread, a
 * silent client dropped, and a client that never gets a reply times out.
 * The verb table: one dispatcher routes each request to its verb, checks
 * its argument and takes the lock for the verbs that need it; the
 * session's table is the list CONTROL_VERBS prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include "check.h"
#include "harvest/control.h"
#include "session/session.h"
#include "util/util.h"

static char dir[64], sock[80];
static int calls;

static void setup(void)
{
	check_tmpdir(dir, sizeof(dir), "control");
	snprintf(sock, sizeof(sock), "%s/ctl", dir);
	calls = 0;
}

static void teardown(void)
{
	check_rmtree(dir);
}

static void echo(void *ctx, const char *line, char *reply, size_t len)
{
	__atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST);
	snprintf(reply, len, "%s %s", (const char *)ctx, line);
}

/* Bound and listening, but nobody ever answers. */
static int mute_server(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 4))
		return -1;
	return fd;
}

TEST(bad_paths_refused)
{
	char longp[200];
	struct control *c;
	int fd;

	setup();
	/* Before the fix: "" bound an abstract socket with no permissions at all. */
	CHECK(control__open("") == NULL);
	memset(longp, 'x', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = 0;
	CHECK(control__open(longp) == NULL);
	fd = open(sock, O_WRONLY | O_CREAT, 0600);
	close(fd);
	CHECK(control__open(sock) == NULL); /* a regular file */
	unlink(sock);
	CHECK_EQ(symlink("/tmp", sock), 0);
	CHECK(control__open(sock) == NULL); /* a symlink */
	unlink(sock);
	fd = mute_server(sock);
	CHECK(fd >= 0);
	CHECK(control__open(sock) == NULL); /* someone is listening */
	close(fd);			    /* stale now: replaced */
	c = control__open(sock);
	CHECK(c != NULL);
	control__free(c);
	CHECK(control__open("/nonexistent-dir/ctl") == NULL);
	teardown();
	return 0;
}

TEST(serves_owner_and_cleans_up)
{
	struct control *c;
	struct stat st;
	char reply[256];

	setup();
	c = control__open(sock);
	CHECK(c != NULL);
	if (!c)
		return teardown(), 1;
	CHECK(!stat(sock, &st) && S_ISSOCK(st.st_mode));
	CHECK_EQ(st.st_mode & 0777, 0600);
	CHECK_EQ(control__start(c, echo, "echo"), 0);
	CHECK_EQ(control_client__call(sock, "stats", reply, sizeof(reply), 2000), 11);
	CHECK_STR(reply, "echo stats\n");
	CHECK_EQ(control_client__call(sock, "snapshot x", reply, sizeof(reply), 2000), 16);
	CHECK_STR(reply, "echo snapshot x\n");
	control__free(c);
	CHECK(stat(sock, &st) && errno == ENOENT);
	CHECK_EQ(control_client__call(sock, "stats", reply, sizeof(reply), 500), -ENOENT);
	CHECK_EQ(control_client__call("", "stats", reply, sizeof(reply), 500), -EINVAL);
	teardown();
	return 0;
}

/* A user who can reach the file (chmod 0666 here) is still refused, by SO_PEERCRED. */
TEST(stranger_refused)
{
	struct control *c;
	int pfd[2], st;
	char reply[512] = "";
	pid_t p;
	ssize_t n;

	if (geteuid())
		SKIP("needs root to run a client as another user");
	setup();
	c = control__open(sock);
	CHECK(c != NULL);
	if (!c)
		return teardown(), 1;
	CHECK_EQ(control__start(c, echo, "echo"), 0);
	CHECK_EQ(chmod(dir, 0755), 0);
	CHECK_EQ(chmod(sock, 0666), 0);
	if (pipe(pfd))
		return 1;
	p = fork();
	if (p == 0) {
		char r[512] = "";
		int k;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(3);
		k = control_client__call(sock, "stop", r, sizeof(r), 2000);
		if (write(pfd[1], r, strlen(r)) < 0)
			_exit(4);
		_exit(k > 0 ? 0 : 1);
	}
	close(pfd[1]);
	n = read(pfd[0], reply, sizeof(reply) - 1);
	reply[n > 0 ? n : 0] = 0;
	close(pfd[0]);
	waitpid(p, &st, 0);
	CHECK_EQ(WEXITSTATUS(st), 0);
	CHECK_STR(reply, "error permission denied: uid 65534 may not control this recorder "
			 "(only uid 0 and root)\n");
	CHECK_EQ(calls, 0);
	/* The owner still is served. */
	CHECK_EQ(control_client__call(sock, "stats", reply, sizeof(reply), 2000), 11);
	CHECK_EQ(calls, 1);
	control__free(c);
	teardown();
	return 0;
}

/* A client that connects and sends nothing is dropped; others are served after it. */
TEST(silent_client_dropped)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct control *c;
	char reply[256];
	uint64_t t0, dt;
	int fd;

	setup();
	c = control__open(sock);
	CHECK(c != NULL);
	if (!c)
		return teardown(), 1;
	CHECK_EQ(control__start(c, echo, "echo"), 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_EQ(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	t0 = mono_ns();
	CHECK_EQ(control_client__call(sock, "stats", reply, sizeof(reply), 4000), 11);
	dt = (mono_ns() - t0) / 1000000;
	CHECK(dt <= CONTROL_REQUEST_TIMEOUT_MS + 500);
	/* The silent one got nothing but the end of its connection. */
	CHECK_EQ(recv(fd, reply, sizeof(reply), MSG_DONTWAIT), 0);
	close(fd);
	control__free(c);
	teardown();
	return 0;
}

/* Before the fix, `trigrec control SOCK stats` against a server that never replies hung forever. */
TEST(client_times_out)
{
	char reply[256];
	uint64_t t0, dt;
	int fd;

	setup();
	fd = mute_server(sock);
	CHECK(fd >= 0);
	t0 = mono_ns();
	CHECK_EQ(control_client__call(sock, "stats", reply, sizeof(reply), 300), -ETIMEDOUT);
	dt = (mono_ns() - t0) / 1000000;
	CHECK(dt >= 290 && dt < 1000);
	close(fd);
	teardown();
	return 0;
}

/* A verb table of the dispatcher's own: each handler says what it got and whether mu was held. */
static pthread_mutex_t vmu = PTHREAD_MUTEX_INITIALIZER;

static void say(const char *who, const char *arg, char *reply, size_t len)
{
	int held = pthread_mutex_trylock(&vmu) == EBUSY;

	if (!held)
		pthread_mutex_unlock(&vmu);
	snprintf(reply, len, "%s arg=%s held=%d", who, arg ? arg : "(none)", held);
}
static void v_snap(void *ctx, const char *arg, char *reply, size_t len)
{
	CHECK_STR((const char *)ctx, "ctx");
	say("snap", arg, reply, len);
}
static void v_status(void *ctx, const char *arg, char *reply, size_t len)
{
	(void)ctx;
	say("status", arg, reply, len);
}
static void v_stop(void *ctx, const char *arg, char *reply, size_t len)
{
	(void)ctx;
	say("stop", arg, reply, len);
}

static const struct control_verb tverbs[] = {
	{ "snapshot", "[NAME]", NULL, 0, 1, 0, v_snap, "take one" },
	{ "status", "[json]", "json", 1, 1, 1, v_status, "say what" },
	{ "stop", NULL, NULL, 0, 1, 0, v_stop, "stop it" },
};

TEST(dispatch_routes_by_table)
{
	struct control_verbs t = { tverbs, 3, &vmu, "ctx" };
	char r[256];
	struct {
		const char *line, *reply;
	} cases[] = {
		{ "snapshot", "snap arg=(none) held=0" },
		{ "snapshot stutter now", "snap arg=stutter now held=0" },
		{ "snapshot ", "snap arg= held=0" },
		{ "status", "status arg=(none) held=1" },
		{ "status json", "status arg=json held=1" },
		{ "stop", "stop arg=(none) held=0" },
		/* Arguments a verb does not take, prefixes, case: unknown, with the usage. */
		{ "status yaml", NULL },
		{ "status ", NULL },
		{ "stop now", NULL },
		{ "stop ", NULL },
		{ "snapshots", NULL },
		{ "sto", NULL },
		{ "STOP", NULL },
		{ "", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char want[256];

		if (cases[i].reply)
			snprintf(want, sizeof(want), "%s", cases[i].reply);
		else
			snprintf(want, sizeof(want),
				 "error unknown command '%s' (snapshot [NAME] | status [json] | "
				 "stop)\n",
				 cases[i].line);
		control__dispatch(&t, cases[i].line, r, sizeof(r));
		CHECK_STR(r, want);
	}
	/* An over-long line is quoted cut at 64 characters. */
	{
		char line[200], want[256];

		memset(line, 'x', sizeof(line) - 1);
		line[sizeof(line) - 1] = 0;
		snprintf(want, sizeof(want), "error unknown command '%.64s' (%s)\n", line,
			 "snapshot [NAME] | status [json] | stop");
		control__dispatch(&t, line, r, sizeof(r));
		CHECK_STR(r, want);
	}
	CHECK(control__find(tverbs, 3, "status json") == &tverbs[1]);
	CHECK(control__find(tverbs, 3, "status xml") == NULL);
	return 0;
}

/* The session's table is the list every help text prints (CONTROL_VERBS). */
TEST(session_verbs_are_control_verbs)
{
	int n;
	const struct control_verb *v = session__control_verbs(&n);
	char usage[256];

	CHECK_EQ(n, 5);
	CHECK_EQ(control__usage(v, n, usage, sizeof(usage)), strlen(CONTROL_VERBS));
	CHECK_STR(usage, CONTROL_VERBS);
	for (int i = 0; i < n; i++) {
		CHECK(v[i].fn != NULL);
		CHECK(v[i].help && v[i].help[0]);
		CHECK(v[i].wait_ms >= CONTROL_CLIENT_TIMEOUT_MS);
		/* Each verb is found by its own name, and only by it. */
		CHECK(control__find(v, n, v[i].name) == &v[i]);
	}
	/* A snapshot and a reload wait for their work; status is read to the end. */
	CHECK_EQ(control__find(v, n, "snapshot")->wait_ms, CONTROL_SNAPSHOT_TIMEOUT_MS);
	CHECK_EQ(control__find(v, n, "reload")->wait_ms, CONTROL_SNAPSHOT_TIMEOUT_MS);
	CHECK_EQ(control__find(v, n, "status")->all, 1);
	/* status reads the triggers a reload swaps: under the session's lock. */
	CHECK_EQ(control__find(v, n, "status")->locked, 1);
	/* snapshot waits for a file: holding the lock would hold a reload that long. */
	CHECK_EQ(control__find(v, n, "snapshot")->locked, 0);
	/* A small buffer is cut, not overrun. */
	CHECK_EQ(control__usage(v, n, usage, 9), 8);
	CHECK_STR(usage, "snapshot");
	return 0;
}

RUN_TESTS(T(bad_paths_refused), T(serves_owner_and_cleans_up), T(stranger_refused),
	  T(silent_client_dropped), T(client_times_out), T(dispatch_routes_by_table),
	  T(session_verbs_are_control_verbs))
