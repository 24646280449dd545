// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The session: config -> recorder (perf rings) -> bpfctl (gates, triggers)
 * -> side-band thread -> snapshot writer, and the main thread's loop that
 * waits for signals, the command's or -p process's exit, and --count.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>
#include "capture/probes.h"
#include "capture/recorder.h"
#include "capture/tracefs.h"
#include "engine/bpfctl.h"
#include "engine/cgsel.h"
#include "harvest/control.h"
#include "harvest/sideband.h"
#include "service/hooks.h"
#include "service/metrics.h"
#include "service/status.h"
#include "service/retention.h"
#include "snapshot/outdir.h"
#include "session/session.h"
#include "session/settings.h"
#include "snapshot/snapshot.h"
#include "util/log.h"
#include "util/util.h"
#include "util/netaddr.h"

struct session {
	struct trigrec_config *c;
	int argc;
	char **argv;
	struct recorder_opts ro;
	struct recorder *r;
	struct bpfctl *b;
	struct cgsel cg; /* the triggers' cgroup path conditions, as b was loaded with */
	struct sideband *sb;
	struct snapshot_ctx sc;
	struct metrics *m;
	struct status *status; /* what `trigrec status` reports */
	struct retention *ret; /* NULL: no limit and no metrics */
	pid_t *tids;
	pid_t child;
	struct control *ctl;
	struct control_verbs verbs; /* what the control thread answers (control__dispatch()) */
	struct hooks *hooks;	    /* on_snapshot runner, NULL = none */
	struct hook_cred hook_user; /* on_snapshot_user, when hook_user_set */
	int hook_user_set;
	int go_fd, sfd, done_fd, pid_fd;
	int create_outdir; /* -o does not exist yet: made once set-up succeeded */
	int made_outdir;   /* ... and trigrec made it (the hook user's group may be given it) */
	int outdir_fd;	   /* -o, opened once (outdir_check()): every file is made in it */
	char instance[RETENTION_INSTANCE_MAX + 1]; /* --instance, else random: in every sidecar */
	int started;
	/* Reloads (session__reload()): serialized, counted by generation. */
	session_reload_fn reload_fn;
	void *reload_ctx;
	pthread_mutex_t reload_mu;
	uint32_t generation;
};

/* Set by SIGINT/SIGTERM while setting up (signals are only blocked once armed). */
static volatile sig_atomic_t setup_cancel;

static void on_setup_signal(int sig)
{
	setup_cancel = sig;
}

/* Do we hold what we need? Say exactly which capability is missing. */
/* recorder_opts.filter_in_bpf: a --filter the ring sets' programs can test. */
static int filter_in_bpf(const char *sys, const char *name, const char *filter)
{
	struct trigrec_filter f;

	/* BPF cannot know these two (record() writes 0): perf tests them. */
	if (strstr(filter, "common_flags") || strstr(filter, "common_preempt_count"))
		return 0;
	return !bpfctl__compile_filter(sys, name, filter, &f);
}

static int check_caps(void)
{
	char msg[2048];

	/* One message for all that is missing: capabilities and tracefs. */
	if (!access_problem(1, msg, sizeof(msg)))
		return 0;
	elog("%s", msg);
	return -EPERM;
}

/* Is cmd something execvp() can run? Say why not before anything is recorded. */
static int check_command(const char *what, const char *cmd)
{
	const char *path = getenv("PATH"), *p;
	char buf[4096];

	if (strchr(cmd, '/')) {
		if (!access(cmd, X_OK))
			return 0;
		elog("%scannot run %s: %s", what, cmd, strerror(errno));
		return -errno;
	}
	for (p = path ? path : "/usr/bin:/bin"; p && *p;) {
		const char *e = strchr(p, ':');
		int n = e ? e - p : (int)strlen(p);

		snprintf(buf, sizeof(buf), "%.*s/%s", n, n ? p : ".", cmd);
		if (!access(buf, X_OK))
			return 0;
		p = e ? e + 1 : NULL;
	}
	elog("%scannot run %s: command not found in PATH", what, cmd);
	return -ENOENT;
}

static int thread_list(pid_t pid, pid_t **out)
{
	char path[64];
	struct dirent *de;
	pid_t *t = NULL;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d) {
		elog("-p %d: no such process", pid);
		return -ESRCH;
	}
	while ((de = readdir(d))) {
		pid_t tid = atoi(de->d_name);
		pid_t *nt;

		if (tid <= 0)
			continue;
		nt = realloc(t, (n + 1) * sizeof(*t));
		if (!nt) {
			free(t);
			closedir(d);
			return -ENOMEM;
		}
		t = nt;
		t[n++] = tid;
	}
	closedir(d);
	*out = t;
	return n;
}

/* Fork the workload, held until its events are open (enable_on_exec starts them). */
static pid_t start_workload(char **cmd, int *go_fd)
{
	int go[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		sigset_t none;
		char c;

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		fprintf(stderr, "trigrec: cannot run %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	*go_fd = go[1];
	return pid;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && log_level < LOG_DEBUG)
		return 0;
	if (level == LIBBPF_INFO && log_level < LOG_VERBOSE)
		return 0;
	if (level == LIBBPF_WARN && log_level < LOG_VERBOSE)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

struct session *session__new(struct trigrec_config *c, int argc, char **argv)
{
	struct hook_cred hu;
	struct session *s;
	int out, dfd;

	if (check_caps())
		return NULL;
	if (c->cmd && check_command("", c->cmd[0]))
		return NULL;
	if (c->on_snapshot && check_command("on_snapshot: ", c->on_snapshot[0]))
		return NULL;
	if (c->on_snapshot && c->on_snapshot_user) {
		char why[512];

		if (hook_user_resolve(c->on_snapshot_user, &hu, why, sizeof(why)) ||
		    hook_can_switch_user(why, sizeof(why))) {
			elog("on_snapshot_user %s: %s", c->on_snapshot_user, why);
			return NULL;
		}
	}
	/*
	 * The output directory must be usable before anything is recorded; one
	 * that does not exist yet is created only once set-up succeeded, so a
	 * run that fails leaves nothing behind.
	 */
	out = outdir_check(c->outdir, &dfd);
	/* An existing -o must take a file now, not fail at the first snapshot (-o /sys/kernel). */
	if (out == 0) {
		char why[PATH_MAX + 256];
		int missing;

		if (dir_check_writable(c->outdir, &missing, why, sizeof(why))) {
			elog("output directory: %s (fix it, or choose another with -o)", why);
			close(dfd);
			return NULL;
		}
	}
	if (out < 0)
		return NULL;
	if (!tracefs_root()) {
		if (dfd >= 0)
			close(dfd);
		return NULL;
	}
	/* Probes a killed trigrec left in tracefs (trigrec_<pid> of a pid that is gone). */
	probes__remove_stale();
	s = calloc(1, sizeof(*s));
	if (!s) {
		elog("out of memory");
		if (dfd >= 0)
			close(dfd);
		return NULL;
	}
	s->outdir_fd = dfd;
	s->c = c;
	s->argc = argc;
	s->argv = argv;
	s->create_outdir = out;
	if (c->on_snapshot && c->on_snapshot_user) {
		s->hook_user = hu;
		s->hook_user_set = 1;
	}
	s->go_fd = s->sfd = s->done_fd = s->pid_fd = -1;
	pthread_mutex_init(&s->reload_mu, NULL);
	libbpf_set_print(libbpf_print);
	return s;
}

void session__set_reload(struct session *s, session_reload_fn fn, void *ctx)
{
	s->reload_fn = fn;
	s->reload_ctx = ctx;
}

static int str_differ(const char *a, const char *b)
{
	return (a || b) && (!a || !b || strcmp(a, b));
}

static int argv_differ(char *const *a, char *const *b)
{
	if (!a || !b)
		return a != b;
	for (; *a && *b; a++, b++)
		if (strcmp(*a, *b))
			return 1;
	return *a || *b;
}

/* Adds name to the comma-separated list in out unless it is there (no name is part of another). */
static void add_name(char *out, size_t len, const char *name)
{
	size_t o = strlen(out);

	if (strstr(out, name))
		return;
	if (o < len)
		snprintf(out + o, len - o, "%s%s", o ? ", " : "", name);
}

/*
 * Settings a reload does not apply (they need new rings or a new run): their
 * names, comma-separated. The table's rows say theirs (settings[].reload).
 */
static void not_reloadable(const struct trigrec_config *a, const struct trigrec_config *b,
			   char *out, size_t len)
{
	int ev = a->nr_events != b->nr_events;

	for (int i = 0; !ev && i < a->nr_events; i++)
		ev = str_differ(a->events[i].spec, b->events[i].spec) ||
		     str_differ(a->events[i].filter, b->events[i].filter);
	out[0] = 0;
	if (ev)
		add_name(out, len, "record (events, filters)");
	for (int i = 0; i < nr_settings; i++)
		if (settings[i].reload && settings__differ(a, b, &settings[i]))
			add_name(out, len, settings[i].reload);
	/* The command is not a row (settings.c): it is a part of the scope. */
	if (argv_differ(a->cmd, b->cmd))
		add_name(out, len, "scope (cpus, cgroup, command)");
}

/* Collects resolve_cgroups()'s errors: logged at start, into the reply on reload. */
struct cg_log {
	const struct trigrec_config *c;
	char *err; /* NULL: elog() each */
	size_t len, used;
};

static void cg_report(void *ctx, int is_err, int t, int i, const char *msg)
{
	struct cg_log *l = ctx;
	const struct trigrec_config *c = l->c;
	char where[PATH_MAX + 160] = "cgroup conditions";

	if (t >= 0) {
		const struct cfg_origin *o = c->trig_origin ? &c->trig_origin[t] : NULL;
		const struct tl_pos *p = &c->trigs[t].cg[i].pos;

		snprintf(where, sizeof(where), "%s:%d:%d: trigger %s",
			 o && o->file ? o->file : "--trigger", p->line, p->col, c->trigs[t].name);
	}
	if (!is_err) {
		wlog("%s: %s", where, msg);
	} else if (!l->err) {
		elog("%s: %s", where, msg);
	} else if (l->used < l->len) {
		l->used += (size_t)snprintf(l->err + l->used, l->len - l->used, "%s%s: %s",
					    l->used ? "\n" : "", where, msg);
	}
}

/*
 * The triggers' cgroup paths into cgroup ids: the cgroup2 tree walked once,
 * now. 0, or -EINVAL after the errors were logged (err NULL) or put in err.
 */
static int resolve_cgroups(const struct trigrec_config *c, struct cgsel *cs, char *err, size_t len)
{
	struct cg_log l = { .c = c, .err = err, .len = len };
	char root[PATH_MAX];
	int n;

	if (!cgsel_count(c->trigs, c->nr_trigs))
		return 0;
	cgsel_mount(root, sizeof(root));
	n = cgsel_resolve(c->trigs, c->nr_trigs, root, cs, cg_report, &l);
	if (n == -ENOMEM)
		cg_report(&l, 1, -1, -1, "out of memory");
	if (n)
		return -EINVAL;
	for (int t = 0; t < c->nr_trigs; t++)
		for (int i = 0; i < c->trigs[t].nr_cg; i++)
			ilog("trigger %s: cgroup %s \"%s\" matches %d cgroup%s under %s as of now; "
			     "cgroups made later match after a reload",
			     c->trigs[t].name,
			     c->trigs[t].cg[i].form == TRIGREC_OP_STR_EQ ? "==" : "~",
			     c->trigs[t].cg[i].text, cs->matched[cgsel_bit(c->trigs, t, i)],
			     cs->matched[cgsel_bit(c->trigs, t, i)] == 1 ? "" : "s", root);
	return 0;
}

struct reload_ctx {
	struct session *s;
	struct trigrec_config *nc;
	struct bpfctl *planned; /* the new table, planned (checked) on the caller's thread */
};

#define SWAP(a, b)                        \
	do {                              \
		__typeof__(a) tmp_ = (a); \
		(a) = (b);                \
		(b) = tmp_;               \
	} while (0)

/* The config's triggers, swapped with the new config's (the new config then holds the old ones). */
static void swap_triggers(struct trigrec_config *a, struct trigrec_config *b)
{
	SWAP(a->trigs, b->trigs);
	SWAP(a->nr_trigs, b->nr_trigs);
	SWAP(a->trig_origin, b->trig_origin);
	SWAP(a->manual, b->manual);
	SWAP(a->nr_manual, b->nr_manual);
	SWAP(a->post_ns, b->post_ns);
	SWAP(a->bpf, b->bpf);
}

/*
 * On the side-band thread, with the old object still recording but no
 * longer firing (bpfctl__block()) and no snapshot in flight: load and
 * attach the planned object, then let it take over recording and firing on
 * every CPU at once (bpfctl__take_over()), so a reload loses no record. If
 * it cannot be loaded, the old object goes on as it was. The caller frees
 * the old object once its last messages are read.
 */
static struct bpfctl *swap_bpf(void *ctx, struct bpfctl *old, int *err)
{
	struct reload_ctx *rc = ctx;
	struct session *s = rc->s;
	pid_t scope = s->c->cmd ? s->child : s->c->pid;
	struct bpfctl *nb = rc->planned;
	struct bpfctl_carry *carry;

	rc->planned = NULL;
	/*
	 * Counters and policy state go on in the next object, by trigger name:
	 * taken now, since the old object fires no more (bpfctl__block()), and
	 * written into the new one before anything of it is attached.
	 */
	carry = bpfctl__carry_take(old);
	bpfctl__set_carry(nb, carry);
	*err = bpfctl__attach(nb, s->r, scope);
	if (*err) {
		bpfctl__free(nb);
		bpfctl__carry_free(carry);
		elog("reload: the new triggers could not be loaded; the old ones stay in force");
		bpfctl__thaw(old);
		return old;
	}
	/* Armed before it is live: its first firing needs nothing more from here. */
	bpfctl__thaw(nb);
	bpfctl__take_over(nb, old, s->r);
	/* It must not read the old object from now on; its programs are detached: its count is final. */
	if (s->m)
		metrics__retire_bpf(s->m, bpfctl__recursion_misses(old));
	swap_triggers(s->c, rc->nc);
	nb->carry = NULL;
	bpfctl__carry_free(carry);
	s->generation = nb->opts.generation;
	status__set_generation(s->status, s->generation);
	s->b = nb;
	if (s->m)
		metrics__set_triggers(s->m, s->c->trigs, s->c->nr_trigs, nb);
	return nb;
}

int session__reload(struct session *s, char *msg, size_t len)
{
	struct trigrec_config nc;
	struct reload_ctx rc = { .s = s, .nc = &nc };
	struct bpfctl_opts bo;
	struct cgsel ncg = { 0 };
	char err[4096] = "", skipped[256], d[32], kv[512] = "event=reload";
	uint64_t t0 = mono_ns();
	int ret;

	if (!s->reload_fn) {
		snprintf(msg, len,
			 "this recorder was not started from a script (trigrec run FILE)");
		return -ENOTSUP;
	}
	pthread_mutex_lock(&s->reload_mu);
	config__init(&nc);
	ret = s->reload_fn(s->reload_ctx, &nc, err, sizeof(err));
	if (!ret) {
		bo = nc.bpf;
		bo.generation = s->generation + 1;
		bo.self_kids = s->c->on_snapshot != NULL; /* on_snapshot is not reloaded */
		bo.cg = &ncg;
		/* cgroups are matched again: those made since the last walk join in. */
		ret = resolve_cgroups(&nc, &ncg, err, sizeof(err));
		rc.planned = ret ? NULL : bpfctl__plan(s->r, nc.trigs, nc.nr_trigs, &bo);
		if (!rc.planned && !ret) {
			snprintf(err, sizeof(err),
				 "the new triggers do not fit (see the message above)");
			ret = -EINVAL;
		}
	}
	log_kv_add(kv, sizeof(kv), "script", s->c->script_path);
	if (ret) {
		char *nl = strchr(err, '\n');

		log_kv_add(kv, sizeof(kv), "result", "failed");
		log_event(-2, kv, "reload of %s failed; the running script stays in force:\n%s",
			  s->c->script_path ? s->c->script_path : "the configuration", err);
		/* The reply is one line: the first error, and where to read the rest. */
		if (nl)
			*nl = 0;
		snprintf(msg, len, "%s%s", err, nl ? " (more in the log)" : "");
		if (s->m)
			metrics__reload_failed(s->m);
		goto out;
	}
	not_reloadable(s->c, &nc, skipped, sizeof(skipped));
	ret = sideband__reload(s->sb, swap_bpf, &rc);
	if (ret) {
		snprintf(
			msg, len, "%s",
			ret == -ESHUTDOWN ?
				"stopping: not reloaded" :
				"the new triggers could not be loaded; the old ones stay in force");
		log_kv_add(kv, sizeof(kv), "result", "failed");
		log_event(-2, kv, "reload failed: %s", msg);
		if (s->m)
			metrics__reload_failed(s->m);
		goto out;
	}
	SWAP(s->cg, ncg);
	log_kv_add(kv, sizeof(kv), "result", "ok");
	log_kv_addu(kv, sizeof(kv), "generation", s->generation);
	log_kv_addu(kv, sizeof(kv), "triggers", s->c->nr_trigs);
	log_kv_addu(kv, sizeof(kv), "duration_ns", mono_ns() - t0);
	if (skipped[0])
		log_kv_add(kv, sizeof(kv), "not_applied", skipped);
	snprintf(msg, len, "reloaded: generation %u, %d trigger%s, in %s%s%s%s", s->generation,
		 s->c->nr_trigs, s->c->nr_trigs == 1 ? "" : "s",
		 fmt_duration(mono_ns() - t0, d, sizeof(d)),
		 skipped[0] ? "; not applied until a restart: " : "", skipped,
		 skipped[0] ? " changed" : "");
	log_event(LOG_INFO, kv, "%s", msg);
out:
	bpfctl__free(rc.planned);
	cgsel_free(&ncg);
	config__fini(&nc);
	pthread_mutex_unlock(&s->reload_mu);
	return ret;
}

/* Side-band thread (as reloads are): the post window of a script's manual trigger NAME. */
static uint64_t manual_post(void *ctx, const char *name)
{
	struct session *s = ctx;

	for (int i = 0; i < s->c->nr_manual; i++)
		if (!strcmp(s->c->manual[i].name, name))
			return s->c->manual[i].post_ns ? s->c->manual[i].post_ns : s->c->post_ns;
	return 0;
}

/* Side-band thread: an unnamed manual snapshot takes the script's first manual trigger's name. */
static const char *manual_default(void *ctx)
{
	struct session *s = ctx;

	return s->c->nr_manual ? s->c->manual[0].name : NULL;
}

/* Ctrl-C or SIGTERM arrived while setting up: say so and give up. */
static int cancelled(void)
{
	if (!setup_cancel)
		return 0;
	elog("interrupted during set-up (signal %d): nothing was recorded", (int)setup_cancel);
	return 1;
}

/* POST /snapshot, on an HTTP thread (metrics_snapshot_fn): a manual snapshot that spends the budget. */
static int http_snapshot(void *ctx, const char *name, const char *alert, char *path, size_t len)
{
	struct session *s = ctx;

	if (!__atomic_load_n(&s->started, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	return sideband__snapshot_req(s->sb, name, "POST /snapshot", alert, 1, path, len);
}

/* --metrics ADDR as the URL it is served at ("" without one). */
static void metrics_url(const char *addr, char *url, size_t len)
{
	struct sockaddr_storage ss;
	char host[INET6_ADDRSTRLEN] = "";
	const struct sockaddr_in *in4 = (const struct sockaddr_in *)&ss;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&ss;

	url[0] = '\0';
	if (!addr || netaddr_parse(addr, &ss, NULL, 0))
		return;
	if (ss.ss_family == AF_INET6)
		snprintf(url, len, "http://[%s]:%u/metrics",
			 inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host)),
			 (unsigned)ntohs(in6->sin6_port));
	else
		snprintf(url, len, "http://%s:%u/metrics",
			 inet_ntop(AF_INET, &in4->sin_addr, host, sizeof(host)),
			 (unsigned)ntohs(in4->sin_port));
}

static void announce(struct session *s)
{
	const struct recorder *r = s->r;
	int ntp = 0;

	for (int i = 0; i < r->nr_evs; i++)
		ntp += r->evs[i].kind != REC_EV_TRACKING;
	char kv[1024] = "event=start", url[128];
	/*
	 * -m: each compact ring, each ring set (rings=bpf) and perf's ring have
	 * it; rings[0] may be a tracking ring.
	 */
	uint64_t ring = r->opts.mmap_pages * (uint64_t)sysconf(_SC_PAGESIZE);

	log_kv_add(kv, sizeof(kv), "script", s->c->script_path);
	log_kv_addu(kv, sizeof(kv), "events", ntp);
	log_kv_addu(kv, sizeof(kv), "cpus", r->nr_cpus);
	log_kv_addu(kv, sizeof(kv), "ring_bytes", ring);
	log_kv_add(kv, sizeof(kv), "rings",
		   !r->nr_bpf_evs ? "perf" :
		   r->compact	  ? "compact" :
				    "bpf");
	log_kv_addu(kv, sizeof(kv), "triggers", s->c->nr_trigs);
	log_kv_add(kv, sizeof(kv), "outdir", s->c->outdir);
	if (s->c->control)
		log_kv_add(kv, sizeof(kv), "control", s->c->control);
	metrics_url(s->c->metrics_addr, url, sizeof(url));
	if (url[0])
		log_kv_add(kv, sizeof(kv), "metrics", url);
	log_event(LOG_INFO, kv,
		  "recording %d event%s on %d CPU%s (%llu KiB ring per CPU%s), %d trigger%s%s; "
		  "snapshots go to %s%s%s%s%s",
		  ntp, ntp == 1 ? "" : "s", r->nr_cpus, r->nr_cpus == 1 ? "" : "s",
		  (unsigned long long)ring / 1024,
		  !r->nr_bpf_evs ? "" :
		  r->compact	 ? ", compact, and a 1/8 spare" :
				   " and ring set",
		  s->c->nr_trigs, s->c->nr_trigs == 1 ? "" : "s",
		  s->c->cmd ? "" : "; Ctrl-C to stop", s->c->outdir,
		  s->c->control ? "; control socket " : "", s->c->control ? s->c->control : "",
		  url[0] ? "; metrics on " : "", url);
	/* After "recording ...": that line is what tells a waiting script the rings are live. */
	{
		char note[512];

		for (int k = 0; config__unrecorded(s->c, k, note, sizeof(note)); k++)
			ilog("%s", note);
	}
	if (s->c->default_set) {
		char set[1024] = "";

		for (int i = 0; i < s->c->nr_events; i++)
			snprintf(set + strlen(set), sizeof(set) - strlen(set), "%s%s",
				 i ? ", " : "", s->c->events[i].spec);
		ilog("recording the default set: %s; give -e to choose", set);
		if (s->c->default_missing)
			vlog("default set: %s not on this kernel, skipped", s->c->default_missing);
	}
}

static void write_metrics_file(struct session *s)
{
	int err;

	if (!s->m || !s->c->metrics_file)
		return;
	err = metrics__write_file(s->m, s->c->metrics_file);
	if (err)
		wlog("--metrics-file %s: %s", s->c->metrics_file, strerror(-err));
}

/* The on_snapshot runner's thread, once per run (or the writer's, for a drop). */
static void on_hook_done(void *ctx, enum hook_result r)
{
	struct session *s = ctx;

	if (s->m) {
		metrics__on_snapshot_run(s->m, r);
		write_metrics_file(s);
	}
}

static void retention_to_metrics(struct session *s)
{
	struct retention_stats rs;

	if (!s->ret || !s->m)
		return;
	retention__stats(s->ret, &rs);
	metrics__retention(s->m, rs.removed, rs.files, rs.bytes);
}

/*
 * Writer thread, after each snapshot: the on_snapshot command handed to its
 * runner (which never blocks here), retention, then the metrics: everything
 * that follows a file, off the side-band thread.
 */
static void on_written(void *ctx, const struct snap_report *rep)
{
	struct session *s = ctx;

	if (s->hooks && !rep->err && rep->out) {
		struct hook_snap hs = { rep->out->path, rep->out->sidecar, rep->name };
		char why[PATH_MAX + 128];

		/* Readable by the hook user's group (0640), never by others. */
		if (s->hook_user_set &&
		    (hook_share_file(hs.data, s->hook_user.gid, why, sizeof(why)) ||
		     hook_share_file(hs.sidecar, s->hook_user.gid, why, sizeof(why))))
			wlog("on_snapshot_user %s: %s", s->hook_user.name, why);
		hooks__submit(s->hooks, &hs);
	}

	status__observe(s->status, rep);

	/* Retention first: the metrics then say what the directory holds now. */
	if (s->ret && !rep->err && rep->out)
		retention__enforce(s->ret, rep->out->path,
				   rep->out->data_bytes + rep->out->sidecar_bytes);
	if (s->m) {
		struct metrics_snapshot ms = {
			.trigger = rep->trigger,
			.ok = !rep->err,
			.freeze_s = rep->freeze_ns / 1e9,
			.to_file_s = rep->to_file_ns / 1e9,
			.bytes = rep->out ? rep->out->data_bytes + rep->out->sidecar_bytes : 0,
			.lost = rep->out ? rep->out->lost : 0,
		};

		metrics__observe(s->m, &ms);
		retention_to_metrics(s);
		if (s->c->metrics_file)
			write_metrics_file(s);
	}
}

/*
 * The control socket's verbs, each answered on the control thread from here
 * (control__dispatch()); the side-band thread only harvests.
 */

/* `snapshot [NAME]`: a manual snapshot, the reply once its file is written. */
static void verb_snapshot(void *ctx, const char *arg, char *reply, size_t len)
{
	struct session *s = ctx;
	char name[64] = "", path[4096];
	int r, k = 0;

	for (; arg && *arg && k < (int)sizeof(name) - 1; arg++)
		name[k++] = (*arg == '_' || *arg == '-' || *arg == '.' ||
			     (*arg >= '0' && *arg <= '9') || (*arg >= 'a' && *arg <= 'z') ||
			     (*arg >= 'A' && *arg <= 'Z')) ?
				    *arg :
				    '_';
	r = sideband__snapshot_wait(s->sb, name, "control socket", path, sizeof(path));
	if (r == 1)
		snprintf(reply, len, "ok %s\n", path);
	else if (r == 0)
		snprintf(reply, len, "coalesced\n");
	else if (r == -ESHUTDOWN)
		snprintf(reply, len, "error stopping: no more snapshots\n");
	else
		snprintf(reply, len, "error %s\n", strerror(-r));
}

/* `stats`: the side-band's counters, one line. */
static void verb_stats(void *ctx, const char *arg, char *reply, size_t len)
{
	struct session *s = ctx;

	(void)arg;
	sideband__stats_line(s->sb, reply, len);
}

/* `status [json]`, under reload_mu: a reload swaps s->b (and frees the old names). */
static void verb_status(void *ctx, const char *arg, char *reply, size_t len)
{
	struct session *s = ctx;
	struct status_trigger t[TRIGREC_MAX_TRIGGERS];
	static struct trigrec_learn la_buf; /* 4.6 KiB: the control thread's alone */
	struct trigrec_learn *la = &la_buf;
	int json = arg != NULL, n = 0;
	char *buf = NULL;
	size_t blen = 0;
	FILE *f;

	for (int i = 0; s->b && i < s->b->nr_trigs && n < TRIGREC_MAX_TRIGGERS; i++, n++) {
		t[n].name = s->b->trigs[i].name;
		t[n].have = !bpfctl__stats(s->b, i, &t[n].stats);
		t[n].def = &s->b->trigs[i];
		t[n].have_nm = !bpfctl__near_miss(s->b, i, &t[n].nm);
		t[n].nr_keys = bpfctl__key_near_miss(s->b, i, t[n].keys, 0);
		if (t[n].nr_keys < 0)
			t[n].nr_keys = 0;
		t[n].have_ls = !bpfctl__learn_stat(s->b, i, &t[n].ls);
		t[n].have_la = !bpfctl__learn_all(s->b, i, la);
		t[n].la_pct_ns = la->pct_ns;
		t[n].la_samples = la->samples;
		t[n].la_total = la->total;
	}
	f = open_memstream(&buf, &blen);
	if (!f || status__render(s->status, t, n, json, f)) {
		snprintf(reply, len, "error cannot render the status: %s\n", strerror(errno));
		if (f)
			fclose(f);
		free(buf);
		return;
	}
	fclose(f);
	if (blen >= len) {
		/* Cut at a line end: a half line would mislead a grep. */
		char *nl = memrchr(buf, '\n', len - 1);

		blen = nl ? (size_t)(nl - buf + 1) : len - 1;
	}
	memcpy(reply, buf, blen);
	reply[blen] = 0;
	free(buf);
}

/* `reload` (session__reload() takes reload_mu itself: SIGHUP comes there too). */
static void verb_reload(void *ctx, const char *arg, char *reply, size_t len)
{
	struct session *s = ctx;
	char msg[1024];
	int err;

	(void)arg;
	if (!s->reload_fn) {
		snprintf(reply, len,
			 "error reload: this recorder was not started from a script "
			 "(trigrec run FILE)\n");
		return;
	}
	err = session__reload(s, msg, sizeof(msg));
	snprintf(reply, len, "%s %s\n", err ? "error" : "ok", msg);
}

/* `stop`: as on SIGINT, with the final snapshot. */
static void verb_stop(void *ctx, const char *arg, char *reply, size_t len)
{
	struct session *s = ctx;

	(void)arg;
	snprintf(reply, len, "ok\n");
	sideband__request_done(s->sb);
}

/* The one list of verbs: CONTROL_VERBS, the dispatcher and `trigrec control` follow it. */
static const struct control_verb verbs[] = {
	{ "snapshot", "[NAME]", NULL, 0, CONTROL_SNAPSHOT_TIMEOUT_MS, 0, verb_snapshot,
	  "take a snapshot now (named NAME); replies once it is written" },
	{ "stats", NULL, NULL, 0, CONTROL_CLIENT_TIMEOUT_MS, 0, verb_stats,
	  "print the counters (one line): snapshots, each trigger's" },
	{ "status", "[json]", "json", 1, CONTROL_CLIENT_TIMEOUT_MS, 1, verb_status,
	  "what it is doing, as trigrec status prints it" },
	{ "reload", NULL, NULL, 0, CONTROL_SNAPSHOT_TIMEOUT_MS, 0, verb_reload,
	  "re-read the script (trigrec run only); the history is kept" },
	{ "stop", NULL, NULL, 0, CONTROL_CLIENT_TIMEOUT_MS, 0, verb_stop,
	  "stop it, with its final snapshot" },
};

const struct control_verb *session__control_verbs(int *n)
{
	*n = (int)(sizeof(verbs) / sizeof(verbs[0]));
	return verbs;
}

int session__start(struct session *s)
{
	const struct trigrec_config *c = s->c;
	struct sigaction sa = { .sa_handler = on_setup_signal };
	struct bpfctl_opts bo;
	sigset_t mask;
	int err = -EINVAL;

	/* Until armed, Ctrl-C and SIGTERM end set-up (checked between the slow steps). */
	setup_cancel = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	s->ro.events = c->events;
	s->ro.nr_events = c->nr_events;
	s->ro.mmap_pages = c->mmap_pages;
	s->ro.track_pages = c->track_pages;
	s->ro.freq = c->freq;
	s->ro.period = c->period;
	s->ro.callgraph = c->callgraph;
	s->ro.filter_in_bpf = filter_in_bpf;
	/* --no-gates measures perf's path without its gates. */
	s->ro.rings = c->bpf.no_gates ? REC_RINGS_PERF : c->rings;
	s->ro.cpumask = c->cpumask;
	s->ro.cgroup = c->cgroup;
	s->ro.cancel = &setup_cancel;
	if (c->cmd) {
		s->child = start_workload(c->cmd, &s->go_fd);
		if (s->child < 0) {
			elog("cannot start %s: %s", c->cmd[0], strerror(-s->child));
			s->child = 0;
			return -ECHILD;
		}
		/* -a or -C with a command: record system-wide while it runs (as perf does). */
		if (!c->all_cpus && !c->cpumask) {
			s->ro.tids = &s->child;
			s->ro.nr_tids = 1;
			s->ro.enable_on_exec = 1;
		}
	} else if (c->pid) {
		int n;

		/* Follow the process as perf record -p does: stop when it exits. */
		s->pid_fd = syscall(SYS_pidfd_open, c->pid, 0);
		n = thread_list(c->pid, &s->tids);
		if (n < 0)
			return n;
		if (s->pid_fd < 0) {
			elog("-p %d: cannot watch the process: %s", c->pid, strerror(errno));
			return -errno;
		}
		s->ro.tids = s->tids;
		s->ro.nr_tids = n;
	}
	if (c->metrics_addr || c->metrics_file) {
		s->m = metrics__new(c->trigs, c->nr_trigs, c->on_snapshot != NULL);
		if (!s->m)
			return -ENOMEM;
		if (c->http_token_file &&
		    (err = metrics__enable_snapshot(s->m, c->http_token_file, http_snapshot, s)))
			return err;
		/* Listen first: a port in use is found before anything is loaded. */
		if (c->metrics_addr && (err = metrics__serve(s->m, c->metrics_addr)))
			return err;
	}
	/* A bad control path fails before anything slow. */
	if (c->control && !(s->ctl = control__open(c->control)))
		return -EINVAL;
	bo = c->bpf;
	bo.cancel = &setup_cancel;
	bo.self_kids = c->on_snapshot != NULL; /* on_snapshot's commands are trigrec's too */
	/* Every limit (events, hooks, memory) is checked before anything is opened. */
	s->r = recorder__new(&s->ro);
	if (cancelled())
		return -EINTR;
	if (!s->r)
		return -EINVAL;
	bo.cg = &s->cg;
	if (resolve_cgroups(c, &s->cg, NULL, 0))
		return -EINVAL;
	s->b = bpfctl__plan(s->r, c->trigs, c->nr_trigs, &bo);
	if (cancelled())
		return -EINTR;
	if (!s->b)
		return -EINVAL;
	/*
	 * Names of threads alive now: once before the rings start recording, so a
	 * task that exits while they are opened (slow on an emulated CPU) still
	 * has its name, and once after, for those born in between. Later ones are
	 * named by the tracking ring's COMM and FORK records.
	 */
	procs__scan(&s->sc.procs);
	err = recorder__open(s->r);
	if (cancelled())
		return -EINTR;
	if (err)
		return err;
	procs__scan(&s->sc.procs);
	err = bpfctl__attach(s->b, s->r, c->cmd ? s->child : c->pid);
	if (cancelled())
		return -EINTR;
	if (err)
		return err;
	recorder__rearm_on_exec(s->r);
	if (s->create_outdir) {
		/* Anything at -o by now was put there by someone else: outdir_make() refuses it. */
		s->outdir_fd = outdir_make(c->outdir);
		if (s->outdir_fd < 0)
			return s->outdir_fd;
		s->create_outdir = 0;
		s->made_outdir = 1;
	}
	s->sc.outdir = c->outdir;
	/* Every snapshot, sidecar, temporary and removal is relative to this one fd. */
	s->sc.od = outdir__open_at(s->outdir_fd, c->outdir);
	if (!s->sc.od)
		return -EINVAL;
	s->sc.argc = s->argc;
	s->sc.argv = s->argv;
	s->sc.no_align = c->no_align;
	s->sc.name_prefix = c->name_prefix;
	if (c->instance)
		snprintf(s->instance, sizeof(s->instance), "%s", c->instance);
	else
		retention_instance_random(s->instance);
	s->sc.instance = s->instance;
	vlog("instance %s: retention removes only snapshots whose sidecar names it%s", s->instance,
	     c->instance ? "" : " (random: only this run's; --instance ID keeps them across runs)");
	s->sc.callgraph = c->callgraph;
	_Static_assert(CONFIG_ZSTD_LEVEL_MAX == PD_ZSTD_LEVEL_MAX, "one zstd level range");
	s->sc.zstd_level = c->zstd_level;
	s->sc.no_buildid_cache = c->no_buildid_cache; /* read by snapshot_ctx__init */
	s->sc.max_bytes = c->keep_bytes;
	if (snapshot_ctx__init(&s->sc, s->r))
		return cancelled() ? -EINTR : -EINVAL;
	/* After the clean-up of killed runs (snapshot_ctx__init), before any new file. */
	if (c->keep_files || c->keep_bytes || c->keep_age_ns || s->m) {
		struct retention_limits rl = { c->keep_files, c->keep_bytes, c->keep_age_ns };
		char lims[96];

		s->ret = retention__new(s->outdir_fd, c->outdir, s->instance, &rl);
		if (!s->ret)
			return -EINVAL;
		if (retention__enforce(s->ret, NULL, 0) < 0)
			return -EIO;
		if (c->keep_files || c->keep_bytes || c->keep_age_ns)
			vlog("retention in %s: keep %s", c->outdir,
			     retention_limits_fmt(&rl, lims, sizeof(lims)));
	}

	if (c->on_snapshot) {
		struct hooks_opts ho = { .argv = c->on_snapshot,
					 .user = s->hook_user_set ? &s->hook_user : NULL,
					 .timeout_ns = c->on_snapshot_timeout_ns,
					 .jobs = c->on_snapshot_jobs,
					 .done = on_hook_done,
					 .ctx = s };
		char why[PATH_MAX + 256];

		/* The hook user reads the output directory through its group. */
		if (s->hook_user_set &&
		    hook_share_dir(c->outdir, s->hook_user.gid, s->made_outdir, why, sizeof(why))) {
			elog("on_snapshot_user %s: %s", s->hook_user.name, why);
			return -EPERM;
		}

		s->hooks = hooks__new(&ho);
		if (!s->hooks)
			return -ENOMEM;
	}
	s->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->done_fd < 0) {
		elog("cannot create an eventfd: %s", strerror(errno));
		return -errno;
	}
	{
		struct sideband_opts so = { .max_snapshots = c->count,
					    .final_snapshot = !c->no_final,
					    .done_fd = s->done_fd,
					    .written = on_written,
					    .ctx = s,
					    .manual_post = manual_post,
					    .manual_default = manual_default };

		s->status = status__new(c->script_path, c->outdir);
		if (!s->status) {
			elog("out of memory");
			return -ENOMEM;
		}
		s->sb = sideband__start(s->r, s->b, &s->sc, &so);
		if (!s->sb)
			return cancelled() ? -EINTR : -EINVAL;
		/* Control requests on their own thread: the side-band thread only harvests. */
		s->verbs = (struct control_verbs){ verbs, (int)(sizeof(verbs) / sizeof(verbs[0])),
						   &s->reload_mu, s };
		if (s->ctl && (err = control__start(s->ctl, control__dispatch, &s->verbs)))
			return err;
	}
	/* From here on signals are read from a signalfd; a pending one is not lost.
	 * (Worker threads start with every signal blocked.) */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	if (cancelled())
		return -EINTR;
	s->sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (s->sfd < 0) {
		elog("cannot set up signal handling: %s", strerror(errno));
		return -errno;
	}
	bpfctl__thaw(s->b);				    /* arm the triggers */
	__atomic_store_n(&s->started, 1, __ATOMIC_RELEASE); /* POST /snapshot may go on */
	if (s->m) {
		metrics__attach(s->m, s->b, s->r);
		retention_to_metrics(s);
		write_metrics_file(s);
	}
	announce(s);
	/* systemd Type=notify: ready once recording (a no-op without NOTIFY_SOCKET). */
	sd_notify(0, "READY=1");
	if (s->child > 0) {
		if (write(s->go_fd, "g", 1) != 1)
			elog("cannot release the workload: %s", strerror(errno));
		close(s->go_fd);
		s->go_fd = -1;
	}
	return 0;
}

static void summary(struct session *s)
{
	struct trigrec_stats ts, g = { 0 }, all = { 0 };
	struct sideband_stats ss;

	sideband__stats(s->sb, &ss);
	/* Since the start: triggers a reload removed count too (bpfctl carries them). */
	bpfctl__stats_retired(s->b, &all);
	vlog("side-band: %lu harvests; %lu waited for a free buffer set, %lu for their trigger's "
	     "own record (%lu gave up); %lu post windows cut short by the stop",
	     ss.snapshots, ss.waited_for_writer, ss.trigger_record_waited, ss.trigger_record_late,
	     ss.post_cut_short);

	for (int i = 0; i < s->c->nr_trigs; i++) {
		if (bpfctl__stats(s->b, i, &ts))
			continue;
		all.fired += ts.fired;
		all.coalesced += ts.coalesced;
		all.rb_dropped += ts.rb_dropped;
		/* Every firing that did not become a snapshot is accounted for. */
		char kv[384] = "event=trigger_summary";

		log_kv_add(kv, sizeof(kv), "trigger", s->c->trigs[i].name);
		log_kv_addu(kv, sizeof(kv), "fired", ts.fired);
		log_kv_addu(kv, sizeof(kv), "coalesced", ts.coalesced);
		log_kv_addu(kv, sizeof(kv), "suppressed_cooldown", ts.suppressed_cooldown);
		log_kv_addu(kv, sizeof(kv), "suppressed_limit", ts.suppressed_limit);
		log_kv_addu(kv, sizeof(kv), "suppressed_budget", ts.suppressed_budget);
		log_kv_addu(kv, sizeof(kv), "sideband_full", ts.rb_dropped);
		log_kv_addu(kv, sizeof(kv), "str_faults", ts.str_faults);
		log_event(LOG_INFO, kv,
			  "trigger %s: evaluated %llu, matched %llu, fired %llu, coalesced %llu, "
			  "suppressed by cooldown %llu, by limit/max %llu, by the budget %llu, "
			  "stale starts %llu, side-band full %llu, str() faults %llu",
			  s->c->trigs[i].name, (unsigned long long)ts.evaluated,
			  (unsigned long long)ts.matched, (unsigned long long)ts.fired,
			  (unsigned long long)ts.coalesced,
			  (unsigned long long)ts.suppressed_cooldown,
			  (unsigned long long)ts.suppressed_limit,
			  (unsigned long long)ts.suppressed_budget,
			  (unsigned long long)ts.stale_starts, (unsigned long long)ts.rb_dropped,
			  (unsigned long long)ts.str_faults);
	}
	bpfctl__stats(s->b, TRIGREC_MAX_TRIGGERS, &g);
	if (s->hooks) {
		struct hooks_stats hs;

		hooks__stats(s->hooks, &hs);
		ilog("on_snapshot: %llu run%s: ok %llu, failed %llu, timeout %llu, dropped %llu; "
		     "at most %u at once",
		     (unsigned long long)hs.started, hs.started == 1 ? "" : "s",
		     (unsigned long long)hs.runs[HOOK_OK], (unsigned long long)hs.runs[HOOK_FAILED],
		     (unsigned long long)hs.runs[HOOK_TIMEOUT],
		     (unsigned long long)hs.runs[HOOK_DROPPED], hs.max_running);
	}
	{
		char kv[256] = "event=stop";
		/* Since the start: a reload carries every counter into the next object. */
		uint64_t skipped = bpfctl__recursion_total(s->b);
		char gen[48] = "";

		if (s->generation)
			snprintf(gen, sizeof(gen), ", trigger table generation %u", s->generation);

		log_kv_addu(kv, sizeof(kv), "written", s->sc.written);
		log_kv_addu(kv, sizeof(kv), "failed", s->sc.failed);
		log_kv_addu(kv, sizeof(kv), "fired", all.fired);
		log_kv_addu(kv, sizeof(kv), "coalesced", all.coalesced);
		log_kv_addu(kv, sizeof(kv), "sideband_full", all.rb_dropped);
		log_kv_addu(kv, sizeof(kv), "gated", g.gated);
		log_kv_addu(kv, sizeof(kv), "recursion_misses", skipped);
		log_kv_addu(kv, sizeof(kv), "generation", s->generation);
		log_event(
			LOG_INFO, kv,
			"%lu snapshot%s written, %lu failed; triggers fired %llu, coalesced %llu, "
			"lost (side-band full) %llu; records held back by the freeze %llu, "
			"dropped by the kernel's BPF recursion guard %llu (since start%s)",
			s->sc.written, s->sc.written == 1 ? "" : "s", s->sc.failed,
			(unsigned long long)all.fired, (unsigned long long)all.coalesced,
			(unsigned long long)all.rb_dropped, (unsigned long long)g.gated,
			(unsigned long long)skipped, gen);
	}
	/* Counted in BPF on the ring-set path; rare enough to say only when they happened. */
	if (g.rec_truncated || g.rec_failed)
		wlog("ring sets: %llu records were longer than %d bytes and were cut to their first %d; "
		     "%llu could not be written (bpf_perf_event_output failed)",
		     (unsigned long long)g.rec_truncated, TRIGREC_MAX_RECORD, TRIGREC_MAX_RECORD,
		     (unsigned long long)g.rec_failed);
}

/*
 * While stopping: wait until fd is readable, still reading signals. A second
 * Ctrl-C, or a SIGTERM, calls abort (which exits at once); the workload's
 * exit is noted.
 */
static void wait_stopping(struct session *s, int fd, int *interrupts, int *reaped,
			  int *child_status, void (*abort)(struct session *s))
{
	for (;;) {
		struct pollfd pf[2] = { { .fd = fd, .events = POLLIN },
					{ .fd = s->sfd, .events = POLLIN } };
		struct signalfd_siginfo si;

		if (poll(pf, 2, -1) < 0 && errno != EINTR)
			break;
		if (pf[0].revents)
			break;
		if (!(pf[1].revents & POLLIN) || read(s->sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM) {
			if (++*interrupts > 1 || si.ssi_signo == SIGTERM)
				abort(s);
		} else if (si.ssi_signo == SIGCHLD && s->child > 0 && !*reaped &&
			   waitpid(s->child, child_status, WNOHANG) == s->child) {
			*reaped = 1;
		}
	}
}

static void abort_stop(struct session *s)
{
	elog("interrupted twice: exiting without finishing");
	_exit(130);
}

static void abort_hooks(struct session *s)
{
	hooks__kill_all(s->hooks);
	elog("interrupted twice: on_snapshot runs killed, exiting without waiting for them");
	_exit(130);
}

/*
 * After the last file: let on_snapshot runs finish, at most one time limit
 * from now (then they are stopped), still reading signals: a second Ctrl-C
 * kills them and exits at once.
 */
static void stop_hooks(struct session *s, int *interrupts, int *reaped, int *child_status)
{
	unsigned int n;
	char t[32];

	if (!s->hooks)
		return;
	n = hooks__request_stop(s->hooks);
	if (n) {
		snprintf(t, sizeof(t), "%.1fs", s->c->on_snapshot_timeout_ns / 1e9);
		ilog("waiting up to %s for %u on_snapshot run%s (Ctrl-C again to stop them now)", t,
		     n, n == 1 ? "" : "s");
	}
	wait_stopping(s, hooks__finished_fd(s->hooks), interrupts, reaped, child_status,
		      abort_hooks);
}

int session__run(struct session *s)
{
	int child_status = 0, interrupts = 0, reaped = 0, ret;

	if (!s->started)
		return 1;
	for (;;) {
		struct pollfd pf[3] = { { .fd = s->sfd, .events = POLLIN },
					{ .fd = s->done_fd, .events = POLLIN },
					{ .fd = s->pid_fd, .events = POLLIN } };
		struct signalfd_siginfo si;

		if (poll(pf, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[1].revents)
			break;
		if (pf[2].revents) {
			ilog("process %d exited", s->c->pid);
			break;
		}
		if (read(s->sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGUSR2) {
			sideband__request_snapshot(s->sb);
		} else if (si.ssi_signo == SIGHUP && s->reload_fn) {
			char msg[1024];

			session__reload(s, msg, sizeof(msg)); /* it logs the outcome */
		} else if (si.ssi_signo == SIGCHLD) {
			/* Only our workload: on_snapshot's children are reaped by their runner. */
			pid_t p = s->child > 0 ? waitpid(s->child, &child_status, WNOHANG) : 0;

			if (s->child > 0 && p == s->child) {
				reaped = 1;
				/* exec failed: nothing of the command was recorded. */
				if (WIFEXITED(child_status) && WEXITSTATUS(child_status) == 127)
					sideband__no_final(s->sb);
				break;
			}
		} else {
			interrupts++;
			if (s->child > 0)
				kill(s->child, si.ssi_signo);
			break;
		}
	}
	log_event(LOG_INFO, "event=stopping", "stopping");
	sd_notify(0, "STOPPING=1");
	/*
	 * Stopping cuts a post window short and writes the final snapshot; signals
	 * are still read meanwhile, so a second Ctrl-C or SIGTERM exits at once.
	 */
	sideband__request_stop(s->sb);
	wait_stopping(s, sideband__finished_fd(s->sb), &interrupts, &reaped, &child_status,
		      abort_stop);
	sideband__stop(s->sb);
	stop_hooks(s, &interrupts, &reaped, &child_status);
	summary(s);
	write_metrics_file(s);
	ret = s->sc.failed ? 1 : 0;
	if (s->child > 0 && !reaped && waitpid(s->child, &child_status, WNOHANG) == 0) {
		/* Stopped while the workload ran: end it too, or as --count-kill says. */
		int sig = sideband__count_reached(s->sb) ? s->c->count_kill : SIGTERM;

		if (sig) {
			if (sideband__count_reached(s->sb))
				ilog("--count reached: sending the command (pid %d) SIG%s (--count-kill)",
				     (int)s->child, sigabbrev_np(sig));
			kill(s->child, sig);
			waitpid(s->child, &child_status, 0);
		} else {
			ilog("--count reached: the command (pid %d) is left running (--count-kill none)",
			     (int)s->child);
			s->child = 0;
			return ret;
		}
	}
	if (s->child > 0 && WIFEXITED(child_status) && WEXITSTATUS(child_status) == 127) {
		elog("the command could not be run");
		ret = 1;
	}
	s->child = 0;
	return ret;
}

void session__free(struct session *s)
{
	if (!s)
		return;
	if (s->child > 0) {
		/* Set-up failed: do not leave the workload waiting (or running). */
		if (s->go_fd >= 0)
			close(s->go_fd);
		else
			kill(s->child, SIGTERM);
		waitpid(s->child, NULL, 0);
	}
	control__free(s->ctl);	       /* its thread calls into the side-band: stop it first */
	metrics__stop_snapshots(s->m); /* POST /snapshot calls into it too */
	sideband__free(s->sb);
	retention__free(s->ret); /* after the writer thread: it enforces after each snapshot */
	hooks__free(s->hooks);	 /* after the writer, which hands it jobs */
	metrics__free(s->m);	 /* its HTTP thread reads the BPF counters: stop it first */
	status__free(s->status); /* the control and writer threads, its users, are gone */
	bpfctl__free(s->b);
	cgsel_free(&s->cg);
	recorder__free(s->r);
	/* The probes' perf events and links are closed now, so the kernel lets them go. */
	probes__remove_all();
	snapshot_ctx__fini(&s->sc);
	free(s->tids);
	if (s->sfd >= 0)
		close(s->sfd);
	if (s->done_fd >= 0)
		close(s->done_fd);
	if (s->pid_fd >= 0)
		close(s->pid_fd);
	if (s->outdir_fd >= 0)
		close(s->outdir_fd);
	pthread_mutex_destroy(&s->reload_mu);
	free(s);
}
