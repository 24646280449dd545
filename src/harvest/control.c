// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "harvest/control.h"
#include "util/log.h"
#include "util/util.h"

struct control {
	char *path;  /* the socket file, removed by control__free() */
	int fd;	     /* listening */
	int stop_fd; /* eventfd: control__free() wakes the thread */
	uid_t owner;
	control_handler_fn fn;
	void *ctx;
	pthread_t thr;
	int started;
	struct log_limit refused; /* strangers knocking: one line per minute */
};

#define SUN_PATH_MAX (sizeof(((struct sockaddr_un *)0)->sun_path) - 1)

static struct control *control_new(int fd)
{
	struct control *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->fd = fd;
	c->owner = geteuid();
	c->refused = (struct log_limit)LOG_LIMIT_INIT(60 * 1000000000ull);
	c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->stop_fd < 0) {
		free(c);
		return NULL;
	}
	return c;
}

struct control *control__open(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct control *c;
	struct stat st;
	mode_t old;
	int fd, err;

	if (!path[0]) {
		elog("--control: empty path (an unset variable?): give the socket a file path, "
		     "e.g. --control /run/trigrec.sock (an empty path would be an abstract socket "
		     "that any local user can reach)");
		return NULL;
	}
	if (strlen(path) > SUN_PATH_MAX) {
		elog("--control %s: path too long for a UNIX socket (%zu bytes, at most %zu): "
		     "choose a shorter one",
		     path, strlen(path), SUN_PATH_MAX);
		return NULL;
	}
	memcpy(sa.sun_path, path, strlen(path));
	if (!lstat(path, &st)) {
		int probe;

		if (!S_ISSOCK(st.st_mode)) {
			elog("--control %s: exists and is not a socket; remove it or choose another path",
			     path);
			return NULL;
		}
		probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe >= 0 && !connect(probe, (struct sockaddr *)&sa, sizeof(sa))) {
			close(probe);
			elog("--control %s: another trigrec is listening there; choose another path",
			     path);
			return NULL;
		}
		if (probe >= 0)
			close(probe);
		/* Nobody listening: left by a run that was killed. */
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		elog("--control %s: %s", path, strerror(errno));
		return NULL;
	}
	/* 0600 from the start: no window in which others could connect. */
	old = umask(0177);
	err = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(old);
	if (!err && listen(fd, 16))
		err = -errno;
	if (err) {
		elog("--control %s: %s%s", path, strerror(-err),
		     err == -ENOENT ? " (its directory does not exist)" : "");
		close(fd);
		return NULL;
	}
	c = control_new(fd);
	if (c)
		c->path = strdup(path);
	if (!c || !c->path) {
		elog("--control %s: out of memory", path);
		close(fd);
		unlink(path);
		if (c) {
			close(c->stop_fd);
			free(c);
		}
		return NULL;
	}
	return c;
}

static int remaining_ms(uint64_t deadline)
{
	uint64_t now = mono_ns();

	return now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
}

/* One request line within CONTROL_REQUEST_TIMEOUT_MS: its length, or -1. */
static int read_request(int fd, char *line, size_t len)
{
	uint64_t deadline = mono_ns() + CONTROL_REQUEST_TIMEOUT_MS * 1000000ull;
	size_t n = 0;

	while (n < len - 1) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t r;
		int ms = remaining_ms(deadline);

		if (!ms || poll(&pf, 1, ms) <= 0)
			return -1;
		r = recv(fd, line + n, len - 1 - n, MSG_DONTWAIT);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r <= 0)
			break;
		n += r;
		if (memchr(line, '\n', n))
			break;
	}
	line[n] = 0;
	line[strcspn(line, "\r\n")] = 0;
	return n ? (int)strlen(line) : -1;
}

/* Only the owner and root; everyone else is told so and dropped. */
static int peer_allowed(struct control *c, int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	unsigned long left_out;
	uint64_t span;
	char msg[160];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len)) {
		wlog("control socket: cannot identify a client (%s): refused", strerror(errno));
		return 0;
	}
	if (cr.uid == 0 || cr.uid == c->owner)
		return 1;
	/* Read the request (and ignore it): closing on unread data would reset the reply away. */
	read_request(fd, msg, sizeof(msg));
	snprintf(msg, sizeof(msg),
		 "error permission denied: uid %u may not control this recorder "
		 "(only uid %u and root)\n",
		 (unsigned)cr.uid, (unsigned)c->owner);
	if (send(fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		dlog("control client went away: %s", strerror(errno));
	if (log_limit__hit(&c->refused, mono_ns(), &left_out, &span)) {
		char d[32], more[96] = "";

		if (left_out)
			snprintf(more, sizeof(more), "; %lu more refused in the last %s", left_out,
				 fmt_duration(span, d, sizeof(d)));
		wlog("control socket: refused a client with uid %u (pid %d): only uid %u and root "
		     "may use it%s",
		     (unsigned)cr.uid, (int)cr.pid, (unsigned)c->owner, more);
	}
	return 0;
}

static void serve(struct control *c, int fd)
{
	/* 16 KiB: `status` has a line per trigger (64 of them at most). */
	char line[256], reply[16384];
	size_t n;

	if (!peer_allowed(c, fd))
		return;
	if (read_request(fd, line, sizeof(line)) < 0) {
		dlog("control client sent no request within %d ms", CONTROL_REQUEST_TIMEOUT_MS);
		return;
	}
	reply[0] = 0;
	c->fn(c->ctx, line, reply, sizeof(reply) - 1);
	n = strlen(reply);
	if (!n || reply[n - 1] != '\n') {
		reply[n++] = '\n';
		reply[n] = 0;
	}
	/* A reply fits the socket buffer: a client that does not read cannot hold us. */
	if (send(fd, reply, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		dlog("control client went away: %s", strerror(errno));
}

static void *control_main(void *arg)
{
	struct control *c = arg;

	for (;;) {
		struct pollfd pf[2] = { { .fd = c->fd, .events = POLLIN },
					{ .fd = c->stop_fd, .events = POLLIN } };
		int cfd;

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			elog("control socket: %s; it is no longer served", strerror(errno));
			break;
		}
		if (pf[1].revents)
			break;
		cfd = accept4(c->fd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd < 0)
			continue;
		serve(c, cfd);
		close(cfd);
	}
	return NULL;
}

int control__start(struct control *c, control_handler_fn fn, void *ctx)
{
	sigset_t all, old;
	int err;

	c->fn = fn;
	c->ctx = ctx;
	/* Signals belong to the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&c->thr, NULL, control_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		elog("cannot start the control thread: %s", strerror(err));
		return -err;
	}
	c->started = 1;
	return 0;
}

void control__free(struct control *c)
{
	uint64_t one = 1;

	if (!c)
		return;
	if (c->started) {
		if (write(c->stop_fd, &one, sizeof(one)) < 0)
			elog("cannot stop the control thread: %s", strerror(errno));
		pthread_join(c->thr, NULL);
	}
	if (c->path) {
		close(c->fd);
		unlink(c->path);
		free(c->path);
	}
	close(c->stop_fd);
	free(c);
}

/* all: read until the server closes (a multi-line reply), else up to the first newline. */
static int client_call(const char *path, const char *line, char *reply, size_t len, int timeout_ms,
		       int all)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint64_t deadline = mono_ns() + timeout_ms * 1000000ull;
	struct timeval tv = { .tv_sec = timeout_ms / 1000, .tv_usec = timeout_ms % 1000 * 1000 };
	char req[512];
	size_t n = 0;
	int fd, err = 0;

	if (!path[0] || strlen(path) > SUN_PATH_MAX) {
		elog("control socket path %s: give the --control PATH of the recorder (a file path "
		     "of 1 to %zu bytes)",
		     path[0] ? "too long" : "empty", SUN_PATH_MAX);
		return -EINVAL;
	}
	if ((size_t)snprintf(req, sizeof(req), "%s\n", line) >= sizeof(req)) {
		elog("control request too long (at most %zu bytes)", sizeof(req) - 2);
		return -E2BIG;
	}
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		elog("cannot create a socket: %s", strerror(-err));
		return err;
	}
	/* connect() and send() on a UNIX socket wait at most SO_SNDTIMEO. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		elog("cannot connect to %s: %s (is `trigrec record --control %s` running%s?)", path,
		     strerror(-err), path, err == -EACCES ? ", and are you its user or root" : "");
		goto out;
	}
	/* Refused, the server may have replied and closed already: read what it said. */
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0 && errno != EPIPE && errno != ECONNRESET) {
		err = -errno;
		elog("cannot send to %s: %s", path, strerror(-err));
		goto out;
	}
	while (n < len - 1) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int ms = remaining_ms(deadline);
		ssize_t r;

		if (!ms || (r = poll(&pf, 1, ms)) == 0) {
			err = -ETIMEDOUT;
			elog("no reply from %s within %d.%d s: the recorder may be stuck or busy "
			     "(a large snapshot takes a while to write)",
			     path, timeout_ms / 1000, timeout_ms % 1000 / 100);
			goto out;
		}
		if (r < 0 && errno == EINTR)
			continue;
		r = r < 0 ? -1 : recv(fd, reply + n, len - 1 - n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			elog("reading the reply from %s: %s", path, strerror(-err));
			goto out;
		}
		if (r == 0)
			break;
		n += r;
		if (!all && memchr(reply, '\n', n))
			break;
	}
	reply[n] = 0;
	if (!n) {
		err = -ECONNRESET;
		elog("%s closed the connection without a reply", path);
	}
out:
	close(fd);
	return err ? err : (int)n;
}

int control_client__call(const char *path, const char *line, char *reply, size_t len,
			 int timeout_ms)
{
	return client_call(path, line, reply, len, timeout_ms, 0);
}

int control_client__call_all(const char *path, const char *line, char *reply, size_t len,
			     int timeout_ms)
{
	return client_call(path, line, reply, len, timeout_ms, 1);
}

const struct control_verb *control__find(const struct control_verb *v, int n, const char *line)
{
	for (int i = 0; i < n; i++) {
		size_t k = strlen(v[i].name);
		const char *arg = line + k;

		if (strncmp(line, v[i].name, k) || (*arg && *arg != ' '))
			continue;
		if (!*arg)
			return &v[i];
		arg++;
		if (!v[i].arg || (v[i].word && strcmp(arg, v[i].word)))
			return NULL;
		return &v[i];
	}
	return NULL;
}

size_t control__usage(const struct control_verb *v, int n, char *buf, size_t len)
{
	size_t o = 0;

	if (len)
		buf[0] = 0;
	for (int i = 0; i < n && o < len; i++)
		o += snprintf(buf + o, len - o, "%s%s%s%s", i ? " | " : "", v[i].name,
			      v[i].arg ? " " : "", v[i].arg ? v[i].arg : "");
	return o < len ? o : len ? len - 1 : 0;
}

void control__dispatch(void *table, const char *line, char *reply, size_t len)
{
	const struct control_verbs *t = table;
	const struct control_verb *v = control__find(t->v, t->n, line);
	const char *arg;

	if (!v) {
		char usage[256];

		control__usage(t->v, t->n, usage, sizeof(usage));
		snprintf(reply, len, "error unknown command '%.64s' (%s)\n", line, usage);
		return;
	}
	arg = line[strlen(v->name)] ? line + strlen(v->name) + 1 : NULL;
	if (v->locked && t->lock)
		pthread_mutex_lock(t->lock);
	v->fn(t->ctx, arg, reply, len);
	if (v->locked && t->lock)
		pthread_mutex_unlock(t->lock);
}
