// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The on_snapshot runner (service/hooks.h). One thread owns every child: it
 * starts them with posix_spawn (glibc's vfork-style clone: no copy of our
 * page tables, which with 1G rings would cost more than the command), waits
 * on their pidfds and output pipes with poll, and sleeps without a timeout
 * when nothing runs.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "service/hooks.h"
#include "util/log.h"
#include "util/util.h"

extern char **environ;

const char *const hook_result_names[HOOK_NR_RESULTS] = { "ok", "failed", "timeout", "dropped" };

struct pending {
	char *data, *sidecar, *trigger;
};

struct run {
	pid_t pid; /* 0 = free slot; set and cleared under mu */
	int pidfd, out_fd;
	uint64_t start, term_at, kill_at;
	int term_sent, kill_sent, timed_out;
	char label[96]; /* "rclone[1234]" */
	char snap[256]; /* the .data's file name, for messages */
	char line[HOOKS_LINE_BYTES + 8];
	size_t len;
	int cutting; /* a line longer than HOOKS_LINE_BYTES: skip to its end */
	unsigned int lines;
	unsigned long unlogged;
};

struct hooks {
	char **argv;
	int drop; /* run as cred's user with no capabilities (spawn_as_user) */
	struct hook_cred cred;
	void *stack; /* the child's stack until it execs (runner thread only) */
	char prog[64];
	char host[256];
	uint64_t timeout_ns, grace_ns;
	unsigned int jobs, qmax;
	hook_done_fn done;
	void *ctx;

	pthread_t thr;
	int thr_started;
	int wake_fd, fin_fd;

	pthread_mutex_t mu; /* guards everything below */
	struct pending *q;  /* ring of qmax */
	unsigned int qhead, qlen;
	int stopping, quit;
	uint64_t stop_deadline;
	struct run *runs; /* jobs slots */
	unsigned int nrunning;
	struct hooks_stats st;

	struct log_limit drop_ll; /* the submitting (writer) thread's */
};

static void pending_free(struct pending *p)
{
	free(p->data);
	free(p->sidecar);
	free(p->trigger);
	memset(p, 0, sizeof(*p));
}

/* ------------------------------------------------------------------ */
/* argv                                                                 */

void hook_argv_free(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

static const char *const ph_names[] = { "data", "json", "dir", "name", "trigger", "host" };
#define NR_PH (int)(sizeof(ph_names) / sizeof(ph_names[0]))

/* The placeholder at p ("{data}" ...): its index and length, or -1. */
static int placeholder_at(const char *p, size_t *len)
{
	if (*p != '{')
		return -1;
	for (int i = 0; i < NR_PH; i++) {
		size_t n = strlen(ph_names[i]);

		if (!strncmp(p + 1, ph_names[i], n) && p[1 + n] == '}') {
			*len = n + 2;
			return i;
		}
	}
	return -1;
}

int hook_argv_has_placeholder(char *const *argv)
{
	size_t n;

	for (; argv && *argv; argv++)
		for (const char *p = *argv; *p; p++)
			if (placeholder_at(p, &n) >= 0)
				return 1;
	return 0;
}

/* One word with its placeholders replaced; NULL when out of memory. */
static char *subst(const char *w, const char *const val[NR_PH])
{
	size_t cap = strlen(w) + 1, n = 0, l;
	char *out;

	for (const char *p = w; *p; p++) {
		int k = placeholder_at(p, &l);

		if (k >= 0)
			cap += strlen(val[k]);
	}
	out = malloc(cap);
	if (!out)
		return NULL;
	for (const char *p = w; *p;) {
		int k = placeholder_at(p, &l);

		if (k >= 0) {
			memcpy(out + n, val[k], strlen(val[k]));
			n += strlen(val[k]);
			p += l;
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = 0;
	return out;
}

char **hook_argv_build(char *const *tmpl, const struct hook_snap *s, const char *host)
{
	const char *val[NR_PH];
	char dir[PATH_MAX], name[PATH_MAX], hbuf[256];
	const char *slash = strrchr(s->data, '/'), *base = slash ? slash + 1 : s->data;
	size_t bl = strlen(base);
	int n = 0, ph = hook_argv_has_placeholder(tmpl);
	char **v;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", slash == s->data ? 1 : (int)(slash - s->data),
			 s->data);
	else
		snprintf(dir, sizeof(dir), ".");
	if (bl > 5 && !strcmp(base + bl - 5, ".data"))
		bl -= 5;
	snprintf(name, sizeof(name), "%.*s", (int)bl, base);
	if (!host) {
		if (gethostname(hbuf, sizeof(hbuf)))
			snprintf(hbuf, sizeof(hbuf), "localhost");
		hbuf[sizeof(hbuf) - 1] = 0;
		host = hbuf;
	}
	val[0] = s->data;
	val[1] = s->sidecar;
	val[2] = dir;
	val[3] = name;
	val[4] = s->trigger ? s->trigger : "";
	val[5] = host;
	while (tmpl[n])
		n++;
	v = calloc(n + 3, sizeof(*v));
	if (!v)
		return NULL;
	for (int i = 0; i < n; i++)
		if (!(v[i] = ph ? subst(tmpl[i], val) : strdup(tmpl[i])))
			goto nomem;
	if (!ph && (!(v[n] = strdup(s->data)) || !(v[n + 1] = strdup(s->sidecar))))
		goto nomem;
	return v;
nomem:
	hook_argv_free(v);
	return NULL;
}

int hook_argv_split(const char *line, char ***out, char *err, size_t errlen)
{
	size_t cap = strlen(line) + 1;
	char **v = NULL, *w = NULL;
	int n = 0;
	const char *p = line;

	*out = NULL;
	for (;;) {
		size_t wl = 0;
		char **nv;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		w = malloc(cap);
		if (!w)
			goto nomem;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
			char q = *p;

			if (q != '\'' && q != '"') {
				w[wl++] = *p++;
				continue;
			}
			for (p++; *p && *p != q; p++) {
				if (*p == '\\' && (p[1] == '"' || p[1] == '\'' || p[1] == '\\'))
					p++;
				w[wl++] = *p;
			}
			if (!*p) {
				snprintf(err, errlen,
					 "unterminated %s quote (the command is split on "
					 "blanks with '...' and \"...\" quoting, no shell)",
					 q == '"' ? "double" : "single");
				free(w);
				hook_argv_free(v);
				return -EINVAL;
			}
			p++;
		}
		w[wl] = 0;
		nv = realloc(v, (n + 2) * sizeof(*v));
		if (!nv)
			goto nomem;
		v = nv;
		v[n++] = w;
		v[n] = NULL;
		w = NULL;
	}
	if (!n) {
		snprintf(err, errlen,
			 "empty command (give a program and its arguments, e.g. "
			 "'rclone copy {data} remote:snaps')");
		return -EINVAL;
	}
	*out = v;
	return 0;
nomem:
	free(w);
	hook_argv_free(v);
	return -ENOMEM;
}

/* ------------------------------------------------------------------ */
/* The hook user                                                        */

int hook_user_resolve(const char *user, struct hook_cred *cred, char *err, size_t errlen)
{
	struct passwd pw, *pp = NULL;
	char buf[16384], *end;
	int ng = HOOKS_MAX_GROUPS, e;
	unsigned long id;

	memset(cred, 0, sizeof(*cred));
	if (!user || !*user) {
		snprintf(err, errlen, "empty user (give a user name, e.g. trigrec or nobody)");
		return -EINVAL;
	}
	for (const char *p = user; *p; p++) {
		if (!isalnum((unsigned char)*p) && !strchr("_.-$", *p)) {
			snprintf(err, errlen,
				 "'%.64s': a user name is letters, digits, '_', '.', '-' (and a "
				 "final '$'), or a numeric uid",
				 user);
			return -EINVAL;
		}
	}
	errno = 0;
	id = strtoul(user, &end, 10);
	if (!*end && !errno && id < (unsigned long)(uid_t)-1)
		e = getpwuid_r((uid_t)id, &pw, buf, sizeof(buf), &pp);
	else
		e = getpwnam_r(user, &pw, buf, sizeof(buf), &pp);
	if (e || !pp) {
		snprintf(
			err, errlen,
			"no user '%.64s'%s%s (create it, e.g. 'useradd --system --no-create-home "
			"--shell /usr/sbin/nologin trigrec' as make install does, or name another)",
			user, e ? ": " : "", e ? strerror(e) : "");
		return -EINVAL;
	}
	cred->uid = pw.pw_uid;
	cred->gid = pw.pw_gid;
	snprintf(cred->name, sizeof(cred->name), "%s", pw.pw_name);
	snprintf(cred->home, sizeof(cred->home), "%s", pw.pw_dir && *pw.pw_dir ? pw.pw_dir : "/");
	if (getgrouplist(pw.pw_name, pw.pw_gid, cred->groups, &ng) < 0) {
		snprintf(err, errlen,
			 "user %s is in more than %d groups: give on_snapshot a user of its own",
			 pw.pw_name, HOOKS_MAX_GROUPS);
		return -EINVAL;
	}
	cred->ngroups = ng;
	return 0;
}

static int caps_read(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };

	memset(d, 0, 2 * sizeof(*d));
	return (int)syscall(SYS_capget, &h, d);
}

int hook_can_switch_user(char *err, size_t errlen)
{
	struct __user_cap_data_struct d[2];

	if (caps_read(d)) {
		snprintf(err, errlen, "cannot read this process's capabilities: %s",
			 strerror(errno));
		return -EPERM;
	}
	if ((d[0].permitted & (1u << CAP_SETUID)) && (d[0].permitted & (1u << CAP_SETGID)))
		return 0;
	snprintf(err, errlen,
		 "running commands as another user needs CAP_SETUID and CAP_SETGID, which "
		 "trigrec does not have: run it as root (under systemd, the unit's "
		 "CapabilityBoundingSet= and AmbientCapabilities= name both), or leave "
		 "on_snapshot_user out");
	return -EPERM;
}

int hook_share_file(const char *path, gid_t gid, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), e = 0;
	struct stat st;

	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: not a regular file of trigrec's own: left alone", path);
		close(fd);
		return -EPERM;
	}
	if ((st.st_gid != gid && fchown(fd, (uid_t)-1, gid)) || fchmod(fd, 0640)) {
		e = errno;
		snprintf(err, errlen, "%s: cannot give it to group %u: %s", path, (unsigned)gid,
			 strerror(e));
	}
	close(fd);
	return -e;
}

int hook_share_dir(const char *dir, gid_t gid, int may_chgrp, char *err, size_t errlen)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), e = 0;
	struct stat st;
	mode_t mode;

	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(e));
		return -e;
	}
	if (fstat(fd, &st)) {
		e = errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(e));
		close(fd);
		return -e;
	}
	if ((st.st_mode & 0005) == 0005) { /* everyone may search and read it */
		close(fd);
		return 0;
	}
	if (st.st_uid != geteuid() || (st.st_gid != gid && !may_chgrp)) {
		snprintf(err, errlen,
			 "%s: on_snapshot_user's group (gid %u) cannot read it, and trigrec "
			 "does not regroup a directory it did not create: run 'chgrp %u %s; "
			 "chmod g+rx,g-w %s', or give -o a directory trigrec creates",
			 dir, (unsigned)gid, (unsigned)gid, dir, dir);
		close(fd);
		return -EPERM;
	}
	/* The group reads and searches it; nobody but the owner writes there. */
	mode = (st.st_mode & 07707 & ~(mode_t)0002) | 0050;
	if ((st.st_gid != gid && fchown(fd, (uid_t)-1, gid)) ||
	    ((st.st_mode & 07777) != mode && fchmod(fd, mode))) {
		e = errno;
		snprintf(err, errlen, "%s: cannot give it to group %u: %s", dir, (unsigned)gid,
			 strerror(e));
	}
	close(fd);
	return -e;
}

/* The program's path, as execvp would find it (searched by trigrec, before the clone). */
static int find_program(const char *prog, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p, *c;

	if (strchr(prog, '/'))
		return snprintf(out, len, "%s", prog) < (int)len ? 0 : -ENAMETOOLONG;
	for (p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; *p; p = c + !!*c) {
		struct stat st;

		c = strchrnul(p, ':');
		if (snprintf(out, len, "%.*s%s%s", (int)(c - p), p, c == p ? "" : "/", prog) <
			    (int)len &&
		    !stat(out, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0111))
			return 0;
	}
	return -ENOENT;
}

/* The environment of a run as cred's user: ours, with its HOME, USER and LOGNAME. */
static char **user_env(const struct hook_cred *cred)
{
	static const char *const keys[] = { "HOME=", "USER=", "LOGNAME=" };
	size_t n = 0, k = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = calloc(n + 4, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int skip = 0;

		for (size_t j = 0; j < 3; j++)
			skip |= !strncmp(environ[i], keys[j], strlen(keys[j]));
		if (!skip)
			env[k++] = environ[i];
	}
	if (asprintf(&env[k], "HOME=%s", cred->home) < 0 ||
	    asprintf(&env[k + 1], "USER=%s", cred->name) < 0 ||
	    asprintf(&env[k + 2], "LOGNAME=%s", cred->name) < 0) {
		free(env);
		return NULL;
	}
	return env;
}

static void user_env_free(char **env)
{
	size_t n = 0;

	if (!env)
		return;
	while (env[n])
		n++;
	for (size_t i = n >= 3 ? n - 3 : 0; i < n; i++)
		free(env[i]);
	free(env);
}

/* What the child needs; it writes err/step before _exit(127) if it cannot exec. */
struct child_arg {
	const char *path;
	char *const *argv;
	char *const *envp;
	int out_fd;
	const struct hook_cred *cred;
	int err;
	const char *step;
};

#define HOOKS_CHILD_STACK (256 * 1024)

/*
 * The child, sharing our memory until it execs (CLONE_VM | CLONE_VFORK, as
 * posix_spawn does): only system calls, raw where glibc would involve other
 * threads (setuid and friends signal every thread of the process).
 */
static int child_main(void *p)
{
	struct child_arg *a = p;
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct __user_cap_header_struct ch = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct cd[2] = { { 0 } };
	const struct hook_cred *c = a->cred;
	sigset_t none;
	int nul;

	for (int sig = 1; sig < _NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL); /* glibc's own two say EINVAL: fine */
	a->step = "setpgid";
	if (setpgid(0, 0))
		goto fail;
	a->step = "open /dev/null";
	nul = open("/dev/null", O_RDONLY);
	if (nul < 0 || (nul != 0 && dup2(nul, 0) < 0))
		goto fail;
	a->step = "dup2";
	if (dup2(a->out_fd, 1) < 0 || dup2(a->out_fd, 2) < 0)
		goto fail;
	/* Nothing of ours past 0-2 (close_range: Linux 5.9; one by one before). */
	if (syscall(SYS_close_range, 3, ~0u, 0))
		for (int fd = 3; fd < 65536; fd++)
			close(fd);
	a->step = "clear the ambient capabilities";
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		goto fail;
	/* The bounding set needs CAP_SETPCAP: dropped where we have it. */
	for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
		prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	a->step = "setgroups";
	if (syscall(SYS_setgroups, (size_t)c->ngroups, c->groups))
		goto fail;
	a->step = "setresgid";
	if (syscall(SYS_setresgid, c->gid, c->gid, c->gid))
		goto fail;
	a->step = "setresuid";
	if (syscall(SYS_setresuid, c->uid, c->uid, c->uid))
		goto fail;
	a->step = "clear the capabilities";
	if (syscall(SYS_capset, &ch, cd))
		goto fail;
	a->step = "set NoNewPrivs";
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		goto fail;
	a->step = "check the switch";
	if (syscall(SYS_getuid) != c->uid || syscall(SYS_geteuid) != c->uid ||
	    syscall(SYS_getgid) != c->gid || syscall(SYS_getegid) != c->gid) {
		errno = EPERM;
		goto fail;
	}
	a->step = "exec";
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(a->path, a->argv, a->envp);
fail:
	a->err = errno;
	_exit(127);
}

/* posix_spawnp's work, as cred's user with no capabilities: the pid, or -errno with err. */
static pid_t spawn_as_user(struct hooks *h, char *const *argv, int out_fd, char *err, size_t errlen)
{
	char path[PATH_MAX], **env;
	struct child_arg a = { .argv = argv, .out_fd = out_fd, .cred = &h->cred };
	pid_t pid;
	int e;

	if (find_program(argv[0], path, sizeof(path))) {
		snprintf(err, errlen, "%s", strerror(ENOENT));
		return -ENOENT;
	}
	env = user_env(&h->cred);
	if (!env) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	a.path = path;
	a.envp = env;
	pid = clone(child_main, (char *)h->stack + HOOKS_CHILD_STACK,
		    CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	e = errno;
	user_env_free(env);
	if (pid < 0) {
		snprintf(err, errlen, "clone: %s", strerror(e));
		return -e;
	}
	if (a.err) {
		/* It never ran the program: reap it here. */
		waitpid(pid, NULL, 0);
		if (!strcmp(a.step, "exec"))
			snprintf(err, errlen, "%s", strerror(a.err));
		else
			snprintf(err, errlen, "as user %s: %s: %s", h->cred.name, a.step,
				 strerror(a.err));
		return -a.err;
	}
	return pid;
}

/* ------------------------------------------------------------------ */
/* The runner                                                           */

static void wake(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		wlog("on_snapshot: cannot wake the runner: %s", strerror(errno));
}

static void report(struct hooks *h, enum hook_result r)
{
	pthread_mutex_lock(&h->mu);
	h->st.runs[r]++;
	pthread_mutex_unlock(&h->mu);
	if (h->done)
		h->done(h->ctx, r);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* One line of a run's output, as a log line of its own (bounded per run). */
static void emit_line(struct run *r)
{
	r->line[r->len] = 0;
	if (r->lines < HOOKS_MAX_LINES) {
		ilog("on_snapshot %s: %s%s", r->label, r->line, r->cutting ? " ...(cut)" : "");
		r->lines++;
	} else {
		r->unlogged++;
	}
	r->len = 0;
}

static void take_output(struct run *r, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = buf[i];

		if (c == '\n') {
			if (!r->cutting || r->len)
				emit_line(r);
			r->cutting = 0;
			r->len = 0;
			continue;
		}
		if (r->cutting)
			continue;
		if (c == '\r')
			continue;
		/* Control characters would garble the log (and a terminal): shown as '?'. */
		r->line[r->len++] = (c < 0x20 && c != '\t') || c == 0x7f ? '?' : c;
		if (r->len == HOOKS_LINE_BYTES) {
			r->cutting = 1;
			emit_line(r);
		}
	}
}

/* Read what the pipe holds; close it at EOF. */
static void drain(struct run *r)
{
	char buf[4096];
	ssize_t n;

	while (r->out_fd >= 0) {
		n = read(r->out_fd, buf, sizeof(buf));
		if (n > 0) {
			take_output(r, buf, n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		close(r->out_fd);
		r->out_fd = -1;
	}
}

static void secs(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%.1fs", ns / 1e9);
}

/* Start one run in slot r; the pending job is consumed. */
static void start_run(struct hooks *h, struct run *r, struct pending *p)
{
	struct hook_snap s = { p->data, p->sidecar, p->trigger };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t all, none;
	char **argv = hook_argv_build(h->argv, &s, h->host), why[512];
	int pipefd[2] = { -1, -1 }, err;
	pid_t pid;

	snprintf(r->snap, sizeof(r->snap), "%s", base_name(p->data));
	if (!argv) {
		elog("on_snapshot: out of memory: %s not run (snapshot %s)", h->prog, r->snap);
		goto fail;
	}
	if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK)) {
		elog("on_snapshot: cannot create a pipe for %s: %s (snapshot %s)", h->prog,
		     strerror(errno), r->snap);
		goto fail;
	}
	/* Keep the pipe off fds 0-2 even if we were started with them closed. */
	for (int i = 0; i < 2; i++) {
		if (pipefd[i] < 3) {
			int fd = fcntl(pipefd[i], F_DUPFD_CLOEXEC, 3);

			close(pipefd[i]);
			pipefd[i] = fd;
		}
	}
	/* The child side must block like an ordinary stdout. */
	fcntl(pipefd[1], F_SETFL, 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	/* Nothing of ours past 0-2, even an fd another thread opened without O_CLOEXEC. */
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_init(&at);
	sigfillset(&all);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setsigmask(&at, &none);
	/* Its own process group: the time limit kills what it started too, and a
	 * terminal's Ctrl-C goes to trigrec, which decides when hooks end. */
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETPGROUP);
	if (h->drop) {
		pid = spawn_as_user(h, argv, pipefd[1], why, sizeof(why));
		err = pid < 0 ? -pid : 0;
	} else {
		err = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
		if (err)
			snprintf(why, sizeof(why), "%s", strerror(err));
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(pipefd[1]);
	if (err) {
		elog("on_snapshot: cannot run %s: %s (snapshot %s)", argv[0], why, r->snap);
		close(pipefd[0]);
		goto fail;
	}
	/* Only this thread reaps it, so the pid cannot be reused before the pidfd exists. */
	r->pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (r->pidfd < 0) {
		/* Without it we could not wait for its end and a deadline together. */
		elog("on_snapshot: pidfd_open(%d): %s: %s stopped (snapshot %s)", (int)pid,
		     strerror(errno), argv[0], r->snap);
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(pipefd[0]);
		goto fail;
	}
	r->out_fd = pipefd[0];
	r->start = mono_ns();
	r->term_at = r->start + h->timeout_ns;
	r->kill_at = 0;
	r->term_sent = r->kill_sent = r->timed_out = 0;
	r->len = r->cutting = r->lines = 0;
	r->unlogged = 0;
	snprintf(r->label, sizeof(r->label), "%s[%d]", h->prog, (int)pid);
	vlog("on_snapshot %s: started for %s", r->label, r->snap);
	pthread_mutex_lock(&h->mu);
	r->pid = pid;
	h->nrunning++;
	h->st.started++;
	if (h->nrunning > h->st.max_running)
		h->st.max_running = h->nrunning;
	pthread_mutex_unlock(&h->mu);
	hook_argv_free(argv);
	pending_free(p);
	return;
fail:
	hook_argv_free(argv);
	pending_free(p);
	report(h, HOOK_FAILED);
}

/* Has r exited? Then reap it, log how it ended and free the slot. */
static int try_reap(struct hooks *h, struct run *r, int block)
{
	char t[32];
	int status;
	pid_t p;
	enum hook_result res;

	pthread_mutex_lock(&h->mu);
	p = waitpid(r->pid, &status, block ? 0 : WNOHANG);
	if (p == r->pid || (p < 0 && errno == ECHILD)) {
		if (p < 0)
			status = -1; /* reaped by someone else: the status is lost */
		r->pid = 0;
		h->nrunning--;
	}
	pthread_mutex_unlock(&h->mu);
	if (r->pid)
		return 0;
	/* Everything it wrote is in the pipe now; what it left running may still write: cut. */
	drain(r);
	if (r->out_fd >= 0) {
		close(r->out_fd);
		r->out_fd = -1;
	}
	if (r->len)
		emit_line(r);
	if (r->unlogged)
		ilog("on_snapshot %s: %lu more line%s of output not logged", r->label, r->unlogged,
		     r->unlogged == 1 ? "" : "s");
	if (r->pidfd >= 0)
		close(r->pidfd);
	r->pidfd = -1;
	secs(t, sizeof(t), mono_ns() - r->start);
	if (r->timed_out) {
		res = HOOK_TIMEOUT;
		wlog("on_snapshot %s: ended by the time limit after %s (%s)", r->label, t, r->snap);
	} else if (status == -1) {
		res = HOOK_FAILED;
		wlog("on_snapshot %s: its exit status was taken by another waitpid() (%s)",
		     r->label, r->snap);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		res = HOOK_OK;
		vlog("on_snapshot %s: done in %s (%s)", r->label, t, r->snap);
	} else if (WIFEXITED(status)) {
		res = HOOK_FAILED;
		wlog("on_snapshot %s: exited with status %d after %s (%s)", r->label,
		     WEXITSTATUS(status), t, r->snap);
	} else {
		res = HOOK_FAILED;
		wlog("on_snapshot %s: killed by signal %d (%s) after %s (%s)", r->label,
		     WTERMSIG(status), strsignal(WTERMSIG(status)), t, r->snap);
	}
	report(h, res);
	return 1;
}

/* SIGTERM at the limit, SIGKILL a grace period later; the next deadline, or UINT64_MAX. */
static uint64_t enforce(struct hooks *h, struct run *r, uint64_t now, int stopping,
			uint64_t stop_deadline)
{
	uint64_t term_at = r->term_at;
	char t[32];

	if (stopping && stop_deadline < term_at)
		term_at = stop_deadline;
	if (!r->term_sent) {
		if (now < term_at)
			return term_at;
		secs(t, sizeof(t), now - r->start);
		if (stopping && term_at == stop_deadline && stop_deadline < r->term_at)
			wlog("on_snapshot %s: still running when the stop's wait ended (%s after "
			     "it started): sending SIGTERM (%s)",
			     r->label, t, r->snap);
		else
			wlog("on_snapshot %s: still running after %s, its time limit "
			     "(on_snapshot_timeout): sending SIGTERM (%s)",
			     r->label, t, r->snap);
		kill(-r->pid, SIGTERM);
		r->term_sent = r->timed_out = 1;
		r->kill_at = now + h->grace_ns;
		return r->kill_at;
	}
	if (!r->kill_sent) {
		if (now < r->kill_at)
			return r->kill_at;
		secs(t, sizeof(t), h->grace_ns);
		wlog("on_snapshot %s: still running %s after SIGTERM: sending SIGKILL", r->label,
		     t);
		kill(-r->pid, SIGKILL);
		r->kill_sent = 1;
	}
	return UINT64_MAX;
}

static void *runner(void *arg)
{
	struct hooks *h = arg;
	struct pollfd *pf = calloc(1 + 2 * h->jobs, sizeof(*pf));
	struct pending *start = calloc(h->jobs, sizeof(*start));

	if (!pf || !start) {
		elog("on_snapshot: out of memory: the runner stops");
		free(pf);
		free(start);
		wake(h->fin_fd);
		return NULL;
	}
	for (;;) {
		unsigned int nstart = 0, ndrop = 0, free_slots;
		uint64_t now = mono_ns(), next = UINT64_MAX, stop_deadline;
		int stopping, quit, fin, n = 0, timeout;

		pthread_mutex_lock(&h->mu);
		stopping = h->stopping;
		stop_deadline = h->stop_deadline;
		quit = h->quit;
		/* The stop's wait is over: what has not started will not. */
		if (quit || (stopping && now >= stop_deadline)) {
			while (h->qlen) {
				pending_free(&h->q[h->qhead]);
				h->qhead = (h->qhead + 1) % h->qmax;
				h->qlen--;
				ndrop++;
			}
		}
		free_slots = h->jobs - h->nrunning;
		while (free_slots-- && h->qlen) {
			start[nstart++] = h->q[h->qhead];
			memset(&h->q[h->qhead], 0, sizeof(h->q[0]));
			h->qhead = (h->qhead + 1) % h->qmax;
			h->qlen--;
		}
		fin = stopping && !h->qlen && !h->nrunning && !nstart;
		pthread_mutex_unlock(&h->mu);
		if (ndrop)
			wlog("on_snapshot: %u queued run%s dropped: %s", ndrop,
			     ndrop == 1 ? "" : "s",
			     quit ? "exiting now" : "not started within the stop's wait");
		for (unsigned int i = 0; i < ndrop; i++)
			report(h, HOOK_DROPPED);
		for (unsigned int i = 0, k = 0; i < nstart; i++) {
			while (h->runs[k].pid)
				k++;
			start_run(h, &h->runs[k], &start[i]);
		}
		if (quit) {
			for (unsigned int i = 0; i < h->jobs; i++) {
				if (!h->runs[i].pid)
					continue;
				kill(-h->runs[i].pid, SIGKILL);
				h->runs[i].timed_out = 1;
				try_reap(h, &h->runs[i], 1);
			}
			break;
		}
		if (fin) {
			wake(h->fin_fd);
			break;
		}
		/*
		 * fin was judged before these starts: one that failed to spawn
		 * leaves nothing running, and a stop requested meanwhile would
		 * wait in poll() for a wake-up that never comes. Judge again.
		 */
		if (nstart)
			continue;

		pf[n++] = (struct pollfd){ .fd = h->wake_fd, .events = POLLIN };
		for (unsigned int i = 0; i < h->jobs; i++) {
			struct run *r = &h->runs[i];
			uint64_t d;

			if (!r->pid)
				continue;
			d = enforce(h, r, now, stopping, stop_deadline);
			if (d < next)
				next = d;
			pf[n++] = (struct pollfd){ .fd = r->pidfd, .events = POLLIN };
			if (r->out_fd >= 0)
				pf[n++] = (struct pollfd){ .fd = r->out_fd, .events = POLLIN };
		}
		if (stopping && h->qlen && stop_deadline < next)
			next = stop_deadline;
		/* No deadline: sleep until something happens (no wake-ups while idle). */
		timeout = next == UINT64_MAX ? -1 :
			  next <= now	     ? 0 :
					       (int)((next - now + 999999) / 1000000);
		if (poll(pf, n, timeout) < 0 && errno != EINTR) {
			elog("on_snapshot: poll: %s", strerror(errno));
			break;
		}
		if (pf[0].revents) {
			uint64_t v;

			if (read(h->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				break;
		}
		for (unsigned int i = 0; i < h->jobs; i++) {
			struct run *r = &h->runs[i];

			if (!r->pid)
				continue;
			drain(r);
			try_reap(h, r, 0);
		}
	}
	free(pf);
	free(start);
	return NULL;
}

struct hooks *hooks__new(const struct hooks_opts *o)
{
	struct hooks *h = calloc(1, sizeof(*h));
	sigset_t all, old;
	int err;

	if (!h) {
		elog("on_snapshot: out of memory");
		return NULL;
	}
	h->wake_fd = h->fin_fd = -1;
	pthread_mutex_init(&h->mu, NULL);
	h->timeout_ns = o->timeout_ns;
	h->grace_ns = o->kill_grace_ns ? o->kill_grace_ns : HOOKS_KILL_GRACE_NS;
	h->jobs = o->jobs ? o->jobs : 1;
	h->qmax = o->queue ? o->queue : HOOKS_QUEUE;
	h->done = o->done;
	h->ctx = o->ctx;
	h->drop_ll = (struct log_limit)LOG_LIMIT_INIT(10ull * 1000000000ull);
	snprintf(h->prog, sizeof(h->prog), "%s", base_name(o->argv[0]));
	if (gethostname(h->host, sizeof(h->host)))
		snprintf(h->host, sizeof(h->host), "localhost");
	h->host[sizeof(h->host) - 1] = 0;
	h->argv = NULL;
	{
		int n = 0;

		while (o->argv[n])
			n++;
		h->argv = calloc(n + 1, sizeof(*h->argv));
		for (int i = 0; h->argv && i < n; i++)
			if (!(h->argv[i] = strdup(o->argv[i])))
				goto nomem;
	}
	if (o->user) {
		h->drop = 1;
		h->cred = *o->user;
		h->stack = mmap(NULL, HOOKS_CHILD_STACK, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (h->stack == MAP_FAILED) {
			h->stack = NULL;
			goto nomem;
		}
	}
	h->q = calloc(h->qmax, sizeof(*h->q));
	h->runs = calloc(h->jobs, sizeof(*h->runs));
	if (!h->argv || !h->q || !h->runs)
		goto nomem;
	for (unsigned int i = 0; i < h->jobs; i++)
		h->runs[i].pidfd = h->runs[i].out_fd = -1;
	h->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	h->fin_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (h->wake_fd < 0 || h->fin_fd < 0) {
		elog("on_snapshot: cannot create an eventfd: %s", strerror(errno));
		goto fail;
	}
	/* The session reads signals from a signalfd: this thread must take none. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&h->thr, NULL, runner, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		elog("on_snapshot: cannot start its thread: %s", strerror(err));
		goto fail;
	}
	h->thr_started = 1;
	return h;
nomem:
	elog("on_snapshot: out of memory");
fail:
	hooks__free(h);
	return NULL;
}

int hooks__submit(struct hooks *h, const struct hook_snap *s)
{
	struct pending p = { strdup(s->data), strdup(s->sidecar),
			     strdup(s->trigger ? s->trigger : "") };
	unsigned long sup;
	uint64_t span;
	int stopping = 0, dropped = 0;

	if (!p.data || !p.sidecar || !p.trigger) {
		pending_free(&p);
		dropped = 1;
	} else {
		pthread_mutex_lock(&h->mu);
		stopping = h->stopping;
		if (stopping || h->qlen == h->qmax) {
			dropped = 1;
		} else {
			h->q[(h->qhead + h->qlen) % h->qmax] = p;
			h->qlen++;
		}
		pthread_mutex_unlock(&h->mu);
	}
	if (!dropped) {
		wake(h->wake_fd);
		return 0;
	}
	if (log_limit__hit(&h->drop_ll, mono_ns(), &sup, &span)) {
		char more[96] = "";

		if (sup)
			snprintf(more, sizeof(more), " (and %lu more in the last %.0fs)", sup,
				 span / 1e9);
		wlog("on_snapshot: %s not run for %s: %s%s", h->prog, base_name(s->data),
		     stopping ? "stopping" :
		     !p.data  ? "out of memory" :
				"every job is busy and the queue is full (on_snapshot_jobs)",
		     more);
	}
	pending_free(&p);
	report(h, HOOK_DROPPED);
	return -EBUSY;
}

unsigned int hooks__request_stop(struct hooks *h)
{
	unsigned int n;

	pthread_mutex_lock(&h->mu);
	if (!h->stopping) {
		h->stopping = 1;
		h->stop_deadline = mono_ns() + h->timeout_ns;
	}
	n = h->nrunning + h->qlen;
	pthread_mutex_unlock(&h->mu);
	wake(h->wake_fd);
	return n;
}

int hooks__finished_fd(struct hooks *h)
{
	return h->fin_fd;
}

void hooks__kill_all(struct hooks *h)
{
	pthread_mutex_lock(&h->mu);
	/* Under mu: a pid here is not reaped yet, so it is still ours. */
	for (unsigned int i = 0; i < h->jobs; i++)
		if (h->runs[i].pid)
			kill(-h->runs[i].pid, SIGKILL);
	pthread_mutex_unlock(&h->mu);
}

void hooks__stats(struct hooks *h, struct hooks_stats *out)
{
	pthread_mutex_lock(&h->mu);
	*out = h->st;
	pthread_mutex_unlock(&h->mu);
}

void hooks__free(struct hooks *h)
{
	unsigned long sup;
	uint64_t span;

	if (!h)
		return;
	if (h->thr_started) {
		pthread_mutex_lock(&h->mu);
		h->stopping = h->quit = 1;
		pthread_mutex_unlock(&h->mu);
		wake(h->wake_fd);
		pthread_join(h->thr, NULL);
	}
	sup = log_limit__flush(&h->drop_ll, mono_ns(), &span);
	if (sup)
		wlog("on_snapshot: %lu more run%s dropped in the last %.0fs", sup,
		     sup == 1 ? "" : "s", span / 1e9);
	for (unsigned int i = 0; h->q && i < h->qmax; i++)
		pending_free(&h->q[i]);
	free(h->q);
	free(h->runs);
	if (h->stack)
		munmap(h->stack, HOOKS_CHILD_STACK);
	hook_argv_free(h->argv);
	if (h->wake_fd >= 0)
		close(h->wake_fd);
	if (h->fin_fd >= 0)
		close(h->fin_fd);
	pthread_mutex_destroy(&h->mu);
	free(h);
}
