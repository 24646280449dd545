// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * trigrec: the command line. `trigrec record` wires the data path together:
 * recorder (perf rings) -> bpfctl (gates, triggers) -> sideband thread ->
 * snapshot writer.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include "engine/bpfctl.h"
#include "util/log.h"
#include "capture/recorder.h"
#include "harvest/sideband.h"
#include "snapshot/procs.h"
#include "snapshot/snapshot.h"
#include "capture/tracefs.h"
#include "lang/trigger_lang.h"
#include "util/util.h"

static const char usage_main[] =
"usage: trigrec [-v] COMMAND [ARGS]\n"
"\n"
"An eBPF-driven flight recorder: perf events kept in overwritable per-CPU\n"
"rings, frozen in the kernel the instant a trigger fires, saved as perf.data.\n"
"\n"
"Commands:\n"
"  record   record until a trigger fires, write snapshots (see trigrec record -h)\n"
"  list     list tracepoints and software events (trigrec list [GLOB])\n"
"  control  talk to a running recorder: trigrec control SOCKET snapshot [NAME]|stats|stop\n"
"  help     this text\n"
"\n"
"Options: -v/--verbose (repeat for more), -q/--quiet, --version\n";

static const char usage_record[] =
"usage: trigrec record [options] [-- command [args]]\n"
"\n"
"Record events into overwritable per-CPU rings. When a trigger fires, BPF\n"
"freezes recording in the kernel at that instant; the side-band thread copies\n"
"the rings out and writes <YYYYmmdd-HHMMSS.uuuuuu>-<trigger>.data (perf.data,\n"
"read it with perf script / perf report) and a .json sidecar.\n"
"\n"
"Events:\n"
"  -e, --event EVENT       tracepoint SYS:NAME (globs: 'sched:*') or software\n"
"                          event (cpu-clock, task-clock, page-faults,\n"
"                          context-switches, cpu-migrations, minor-faults,\n"
"                          major-faults); repeatable, comma lists\n"
"      --filter FILTER     ftrace filter for the preceding -e (in the kernel)\n"
"  -F, --freq HZ           sampling frequency for software events (default 4000)\n"
"  -c, --period N          sample every N events instead of -F\n"
"  -g, --call-graph        record call chains\n"
"  -m, --mmap-pages N|SIZE ring per CPU: pages (power of two) or a size\n"
"                          (512K, 4M); default 1M\n"
"\n"
"Scope (default -a when there is no command and no -p):\n"
"  -a, --all-cpus          every CPU, every task (with a command: system-wide\n"
"                          while it runs; its triggers still only fire in it)\n"
"  -C, --cpu LIST          only these CPUs (0-3,5)\n"
"  -p, --pid PID           only this process (its threads and children)\n"
"  -- command [args]       run the command, record it, stop when it exits\n"
"\n"
"Triggers and snapshots:\n"
"      --trigger TRIGGER   snapshot when TRIGGER holds (repeatable); with -p or\n"
"                          a command, only in that process tree. TRIGGER is\n"
"                            EVENT [if FILTER] [count >= N]\n"
"                            latency EVENT [if F] [by KEY] -> EVENT [if F]\n"
"                                    [by KEY] > DURATION\n"
"                            rate EVENT [if F] [by KEY] > N/DURATION\n"
"                          then any of: post DURATION, cooldown DURATION\n"
"                          [per key], limit N/PERIOD, max N, name NAME.\n"
"                          FILTER: ftrace syntax over the event's fields and\n"
"                          comm, pid, tid, cpu, cgroup (docs/triggers.md)\n"
"      --post DURATION     keep recording this long after the trigger (10ms)\n"
"      --count N           stop after N snapshots\n"
"      --no-final-snapshot do not write a snapshot at the end\n"
"      --control PATH      owner-only UNIX socket for `trigrec control PATH\n"
"                          snapshot [NAME]|stats|stop`\n"
"      --max-starts N      latency starts in flight, LRU (default 65536, max 4M)\n"
"      --max-keys N        rate buckets / per-key cooldowns, LRU (default 16384)\n"
"      --no-gates          no freeze gates: cheaper, but records after a trigger\n"
"                          overwrite history until the harvest (still cut exactly)\n"
"      --no-align          keep every CPU's full history, even where another\n"
"                          CPU's ring has already overwritten the same span\n"
"  -o, --output DIR        where snapshots go (default .; created if missing)\n"
"\n"
"Signals: SIGUSR2 takes a snapshot now; Ctrl-C stops (with a final snapshot);\n"
"a second Ctrl-C exits at once.\n"
"\n"
"Examples:\n"
"  trigrec record -e sched:sched_switch,sched:sched_wakeup --trigger sched:sched_process_exit -a\n"
"  trigrec record -e 'syscalls:sys_enter_*' --filter 'common_pid != 0' -m 4M -- ./app\n"
"  trigrec record -e cpu-clock -g --trigger signal:signal_deliver --post 20ms -p 1234\n"
"  trigrec record -e 'raw_syscalls:*' -e sched:sched_switch \\\n"
"      --trigger 'latency raw_syscalls:sys_enter -> raw_syscalls:sys_exit by tid > 20ms' -- ./app\n"
"  trigrec record -e 'sched:*' --trigger 'rate syscalls:sys_enter_openat by pid > 5000/1s\n"
"      cooldown 10s per key limit 3/min' --control /run/trigrec.sock\n";

struct record_args {
	struct rec_event_spec *evs;
	int nr_evs;
	struct trig_def *trigs;
	int nr_trigs;
	struct recorder_opts ro;
	unsigned char *cpumask;
	pid_t pid;
	uint64_t post_ns;
	unsigned long count;
	struct bpfctl_opts bpf;
	int no_final, no_align, all_cpus;
	const char *outdir;
	const char *control;
	char **cmd;
};

static int bad_value(const char *opt, const char *err)
{
	elog("invalid %s: %s", opt, err);
	return -EINVAL;
}

/* Do we hold what we need? Say exactly which capability is missing. */
static int check_caps(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long eff = 0;
	char line[256];
	int miss_bpf, miss_perf;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	/* CAP_SYS_ADMIN (21) covers both on every kernel. */
	if (eff & (1ull << 21))
		return 0;
	miss_perf = !(eff & (1ull << 38));
	miss_bpf = !(eff & (1ull << 39));
	if (!miss_perf && !miss_bpf)
		return 0;
	elog("missing %s%s%s: run as root, or grant them with "
	     "`setcap cap_perfmon,cap_bpf+ep trigrec`",
	     miss_perf ? "CAP_PERFMON" : "", miss_perf && miss_bpf ? " and " : "",
	     miss_bpf ? "CAP_BPF" : "");
	return -EPERM;
}

static int add_trigger(struct record_args *a, const char *text)
{
	struct trig_def *t = realloc(a->trigs, (a->nr_trigs + 1) * sizeof(*t));
	struct tl_error e;
	char msg[2048];

	if (!t)
		return -ENOMEM;
	a->trigs = t;
	t = &t[a->nr_trigs];
	if (a->nr_trigs >= TRIGREC_MAX_TRIGGERS) {
		elog("too many triggers: at most %d in one run", TRIGREC_MAX_TRIGGERS);
		return -E2BIG;
	}
	if (trig_from_text(text, t, &e)) {
		tl_error_format(&e, "--trigger", text, msg, sizeof(msg));
		elog("%s", msg);
		return -EINVAL;
	}
	a->nr_trigs++;
	return 0;
}

enum { OPT_FILTER = 256, OPT_TRIGGER, OPT_POST, OPT_COUNT, OPT_NO_FINAL, OPT_NO_ALIGN,
       OPT_CONTROL, OPT_MAX_STARTS, OPT_MAX_KEYS, OPT_NO_GATES };

static int parse_record(int argc, char **argv, struct record_args *a)
{
	static const struct option lo[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "freq", required_argument, NULL, 'F' },
		{ "period", required_argument, NULL, 'c' },
		{ "call-graph", no_argument, NULL, 'g' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "trigger", required_argument, NULL, OPT_TRIGGER },
		{ "post", required_argument, NULL, OPT_POST },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "no-final-snapshot", no_argument, NULL, OPT_NO_FINAL },
		{ "no-align", no_argument, NULL, OPT_NO_ALIGN },
		{ "control", required_argument, NULL, OPT_CONTROL },
		{ "max-starts", required_argument, NULL, OPT_MAX_STARTS },
		{ "max-keys", required_argument, NULL, OPT_MAX_KEYS },
		{ "no-gates", no_argument, NULL, OPT_NO_GATES },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char err[256];
	uint64_t v;
	int c, ncpu = cpus_possible();

	a->ro.mmap_pages = 256;   /* 1 MiB per CPU */
	a->ro.track_pages = 16;
	a->outdir = ".";
	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:F:c:gm:aC:p:o:vqh", lo, NULL)) != -1) {
		switch (c) {
		case 'e': {
			struct rec_event_spec *e = realloc(a->evs, (a->nr_evs + 1) * sizeof(*e));

			if (!e)
				return -ENOMEM;
			a->evs = e;
			a->evs[a->nr_evs].spec = optarg;
			a->evs[a->nr_evs].filter = NULL;
			a->nr_evs++;
			break;
		}
		case OPT_FILTER:
			if (!a->nr_evs) {
				elog("--filter '%s' must follow the -e it applies to", optarg);
				return -EINVAL;
			}
			if (a->evs[a->nr_evs - 1].filter) {
				elog("two --filter for -e %s: combine them with &&",
				     a->evs[a->nr_evs - 1].spec);
				return -EINVAL;
			}
			a->evs[a->nr_evs - 1].filter = optarg;
			break;
		case 'F':
			if (parse_u64(optarg, 1, 1000000, &v, err, sizeof(err)))
				return bad_value("-F/--freq", err);
			a->ro.freq = v;
			break;
		case 'c':
			if (parse_u64(optarg, 1, UINT64_MAX >> 1, &v, err, sizeof(err)))
				return bad_value("-c/--period", err);
			a->ro.period = v;
			break;
		case 'g':
			a->ro.callgraph = 1;
			break;
		case 'm':
			if (parse_mmap_pages(optarg, &v, err, sizeof(err)))
				return bad_value("-m/--mmap-pages", err);
			a->ro.mmap_pages = v;
			break;
		case 'a':
			a->all_cpus = 1;
			break;
		case 'C':
			if (ncpu <= 0)
				ncpu = 1;
			free(a->cpumask);
			a->cpumask = calloc(ncpu, 1);
			if (!a->cpumask)
				return -ENOMEM;
			if (parse_cpulist(optarg, a->cpumask, ncpu, err, sizeof(err)))
				return bad_value("-C/--cpu", err);
			break;
		case 'p':
			if (parse_u64(optarg, 1, 1u << 30, &v, err, sizeof(err)))
				return bad_value("-p/--pid", err);
			a->pid = v;
			break;
		case 'o':
			a->outdir = optarg;
			break;
		case OPT_TRIGGER:
			if (add_trigger(a, optarg))
				return -EINVAL;
			break;
		case OPT_POST:
			if (parse_duration(optarg, &v, err, sizeof(err)))
				return bad_value("--post", err);
			if (v > 3600ull * 1000000000ull)
				return bad_value("--post", "longer than an hour");
			a->post_ns = v;
			break;
		case OPT_COUNT:
			if (parse_u64(optarg, 1, 1000000000, &v, err, sizeof(err)))
				return bad_value("--count", err);
			a->count = v;
			break;
		case OPT_NO_FINAL:
			a->no_final = 1;
			break;
		case OPT_NO_ALIGN:
			a->no_align = 1;
			break;
		case OPT_NO_GATES:
			a->bpf.no_gates = 1;
			break;
		case OPT_MAX_STARTS:
			if (parse_u64(optarg, 1024, 1u << 22, &v, err, sizeof(err)))
				return bad_value("--max-starts", err);
			a->bpf.lat_starts = v;
			break;
		case OPT_MAX_KEYS:
			if (parse_u64(optarg, 1024, 1u << 22, &v, err, sizeof(err)))
				return bad_value("--max-keys", err);
			a->bpf.keys = v;
			break;
		case OPT_CONTROL:
			if (strlen(optarg) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
				elog("--control %s: path too long for a UNIX socket (max %zu bytes)",
				     optarg, sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
				return -EINVAL;
			}
			a->control = optarg;
			break;
		case 'v':
			log_level++;
			break;
		case 'q':
			log_level = LOG_QUIET;
			break;
		case 'h':
			fputs(usage_record, stdout);
			exit(0);
		default:
			fprintf(stderr, "Run 'trigrec record -h' for the options.\n");
			return -EINVAL;
		}
	}
	if (optind < argc)
		a->cmd = &argv[optind];
	if (a->cmd && a->pid) {
		elog("-p and a command exclude each other: record one or the other");
		return -EINVAL;
	}
	if (a->ro.period && a->ro.freq) {
		elog("-F and -c exclude each other: sample by frequency or by period");
		return -EINVAL;
	}
	/* --post is the default for triggers that do not say `post`. */
	for (int i = 0; i < a->nr_trigs; i++)
		if (!a->trigs[i].has_post)
			a->trigs[i].cfg.post_ns = a->post_ns;
	return 0;
}

static int prepare_outdir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st)) {
		if (errno != ENOENT || mkdir(dir, 0700)) {
			elog("output directory %s: %s (create it, or choose another with -o)", dir,
			     strerror(errno));
			return -errno;
		}
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		elog("output %s is not a directory: -o takes a directory", dir);
		return -ENOTDIR;
	}
	if (access(dir, W_OK | X_OK)) {
		elog("output directory %s is not writable: %s (fix its permissions or use -o)", dir,
		     strerror(errno));
		return -EACCES;
	}
	return 0;
}

/* Owner-only control socket; a stale one left by a dead run is replaced. */
static int open_control(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int fd, err;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (!lstat(path, &st)) {
		int probe;

		if (!S_ISSOCK(st.st_mode)) {
			elog("--control %s: exists and is not a socket; choose another path", path);
			return -EEXIST;
		}
		probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe >= 0 && !connect(probe, (struct sockaddr *)&sa, sizeof(sa))) {
			close(probe);
			elog("--control %s: another trigrec is listening there", path);
			return -EADDRINUSE;
		}
		if (probe >= 0)
			close(probe);
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	old = umask(077);
	err = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	umask(old);
	if (!err && listen(fd, 8))
		err = -errno;
	if (err) {
		elog("--control %s: %s", path, strerror(-err));
		close(fd);
		return err;
	}
	return fd;
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

/* Is cmd something execvp() can run? Say why not before anything is recorded. */
static int check_command(const char *cmd)
{
	const char *path = getenv("PATH"), *p;
	char buf[4096];

	if (strchr(cmd, '/')) {
		if (!access(cmd, X_OK))
			return 0;
		elog("cannot run %s: %s", cmd, strerror(errno));
		return -errno;
	}
	for (p = path ? path : "/usr/bin:/bin"; p && *p; ) {
		const char *e = strchr(p, ':');
		int n = e ? e - p : (int)strlen(p);

		snprintf(buf, sizeof(buf), "%.*s/%s", n, n ? p : ".", cmd);
		if (!access(buf, X_OK))
			return 0;
		p = e ? e + 1 : NULL;
	}
	elog("cannot run %s: command not found in PATH", cmd);
	return -ENOENT;
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

static int cmd_record(int argc, char **argv, int gargc, char **gargv)
{
	struct record_args a = { 0 };
	struct recorder *r = NULL;
	struct bpfctl *b = NULL;
	struct sideband *sb = NULL;
	struct snapshot_ctx sc = { 0 };
	pid_t *tids = NULL, child = 0;
	int go_fd = -1, sfd = -1, done_fd = -1, ctl_fd = -1, ret = 1, child_status = 0, interrupts = 0, reaped = 0;
	sigset_t mask;

	if (parse_record(argc, argv, &a))
		goto out;
	if (check_caps())
		goto out;
	if (a.cmd && check_command(a.cmd[0]))
		goto out;
	if (prepare_outdir(a.outdir))
		goto out;
	if (!tracefs_root())
		goto out;
	libbpf_set_print(libbpf_print);

	/* Signals go to a signalfd; children get them back unblocked. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (sfd < 0 || done_fd < 0) {
		elog("cannot set up signal handling: %s", strerror(errno));
		goto out;
	}

	a.ro.events = a.evs;
	a.ro.nr_events = a.nr_evs;
	a.ro.cpumask = a.cpumask;
	if (a.cmd) {
		child = start_workload(a.cmd, &go_fd);
		if (child < 0) {
			elog("cannot start %s: %s", a.cmd[0], strerror(-child));
			goto out;
		}
		/* -a or -C with a command: record system-wide while it runs (as perf does). */
		if (!a.all_cpus && !a.cpumask) {
			a.ro.tids = &child;
			a.ro.nr_tids = 1;
			a.ro.enable_on_exec = 1;
		}
	} else if (a.pid) {
		int n = thread_list(a.pid, &tids);

		if (n < 0)
			goto out;
		a.ro.tids = tids;
		a.ro.nr_tids = n;
	}
	r = recorder__new(&a.ro);
	if (!r || recorder__open(r))
		goto out;
	/* Names of threads alive now, before any can exit unseen (BPF loading takes a while). */
	procs__scan(&sc.procs);
	b = bpfctl__new(r, a.trigs, a.nr_trigs, a.cmd ? child : a.pid, &a.bpf);
	if (!b)
		goto out;
	recorder__rearm_on_exec(r);
	sc.outdir = a.outdir;
	sc.argc = gargc;
	sc.argv = gargv;
	sc.no_align = a.no_align;
	sc.callgraph = a.ro.callgraph;
	if (snapshot_ctx__init(&sc, r))
		goto out;
	{
		struct sideband_opts so = { .max_snapshots = a.count, .final_snapshot = !a.no_final,
					    .done_fd = done_fd, .control_fd = -1 };

		if (a.control) {
			ctl_fd = open_control(a.control);
			if (ctl_fd < 0)
				goto out;
			so.control_fd = ctl_fd;
		}
		sb = sideband__start(r, b, &sc, &so);
		if (!sb)
			goto out;
	}
	bpfctl__thaw(b); /* arm the triggers */
	{
		char sz[32];
		int ntp = 0;

		for (int i = 0; i < r->nr_evs; i++)
			ntp += r->evs[i].kind != REC_EV_TRACKING;
		snprintf(sz, sizeof(sz), "%llu KiB",
			 (unsigned long long)r->rings[0].size / 1024);
		ilog("recording %d event%s on %d CPU%s (%s ring per CPU), %d trigger%s%s; "
		     "snapshots go to %s", ntp, ntp == 1 ? "" : "s", r->nr_cpus,
		     r->nr_cpus == 1 ? "" : "s", sz, a.nr_trigs, a.nr_trigs == 1 ? "" : "s",
		     a.cmd ? "" : "; Ctrl-C to stop", a.outdir);
	}
	if (child > 0) {
		if (write(go_fd, "g", 1) != 1)
			elog("cannot release the workload: %s", strerror(errno));
		close(go_fd);
		go_fd = -1;
	}

	for (;;) {
		struct pollfd pf[2] = { { .fd = sfd, .events = POLLIN }, { .fd = done_fd, .events = POLLIN } };
		struct signalfd_siginfo si;

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[1].revents)
			break;
		if (read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGUSR2) {
			sideband__request_snapshot(sb);
		} else if (si.ssi_signo == SIGCHLD) {
			pid_t p = waitpid(child > 0 ? child : -1, &child_status, WNOHANG);

			if (child > 0 && p == child) {
				reaped = 1;
				/* exec failed: nothing of the command was recorded. */
				if (WIFEXITED(child_status) && WEXITSTATUS(child_status) == 127)
					sideband__no_final(sb);
				break;
			}
		} else {
			if (++interrupts > 1) {
				elog("interrupted twice: exiting without finishing");
				_exit(130);
			}
			if (child > 0)
				kill(child, si.ssi_signo);
			break;
		}
	}
	ilog("stopping");
	sideband__stop(sb);
	{
		struct sideband_stats st;
		struct trigrec_stats ts = { 0 }, g = { 0 }, all = { 0 };

		sideband__stats(sb, &st);
		for (int i = 0; i < a.nr_trigs; i++) {
			if (bpfctl__stats(b, i, &ts))
				continue;
			all.fired += ts.fired;
			all.coalesced += ts.coalesced;
			all.rb_dropped += ts.rb_dropped;
			/* Every firing that did not become a snapshot is accounted for. */
			ilog("trigger %s: evaluated %llu, matched %llu, fired %llu, coalesced %llu, "
			     "suppressed by cooldown %llu, by limit/max %llu, stale starts %llu, "
			     "side-band full %llu", a.trigs[i].name,
			     (unsigned long long)ts.evaluated, (unsigned long long)ts.matched,
			     (unsigned long long)ts.fired, (unsigned long long)ts.coalesced,
			     (unsigned long long)ts.suppressed_cooldown,
			     (unsigned long long)ts.suppressed_limit,
			     (unsigned long long)ts.stale_starts, (unsigned long long)ts.rb_dropped);
		}
		bpfctl__stats(b, TRIGREC_MAX_TRIGGERS, &g);
		ilog("%lu snapshot%s written%s%lu failed; triggers fired %llu, coalesced %llu, "
		     "lost (side-band full) %llu; records held back by the freeze %llu",
		     sc.written, sc.written == 1 ? "" : "s", ", ", sc.failed,
		     (unsigned long long)all.fired, (unsigned long long)all.coalesced,
		     (unsigned long long)all.rb_dropped, (unsigned long long)g.gated);
	}
	ret = sc.failed ? 1 : 0;
	if (child > 0 && !reaped && waitpid(child, &child_status, WNOHANG) == 0) {
		/* Stopped by a signal while the workload ran: end it too. */
		kill(child, SIGTERM);
		waitpid(child, &child_status, 0);
	}
	if (child > 0 && WIFEXITED(child_status) && WEXITSTATUS(child_status) == 127) {
		elog("the command could not be run");
		ret = 1;
	}
out:
	if (child > 0 && go_fd >= 0) {
		/* Setup failed before the workload ran: do not leave it waiting. */
		close(go_fd);
		waitpid(child, NULL, 0);
	}
	sideband__free(sb);
	bpfctl__free(b);
	recorder__free(r);
	snapshot_ctx__fini(&sc);
	free(a.evs);
	free(a.trigs);
	free(a.cpumask);
	free(tids);
	if (sfd >= 0)
		close(sfd);
	if (done_fd >= 0)
		close(done_fd);
	if (ctl_fd >= 0) {
		close(ctl_fd);
		unlink(a.control);
	}
	return ret;
}

/* trigrec control SOCKET snapshot [NAME] | stats | stop */
static int cmd_control(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char line[512] = "", reply[4200];
	ssize_t n;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: trigrec control SOCKET snapshot [NAME] | stats | stop\n");
		return 2;
	}
	if (strlen(argv[1]) >= sizeof(sa.sun_path)) {
		elog("control socket path too long: %s", argv[1]);
		return 2;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	for (int i = 2; i < argc; i++) {
		strncat(line, argv[i], sizeof(line) - strlen(line) - 2);
		strncat(line, i + 1 < argc ? " " : "\n", sizeof(line) - strlen(line) - 1);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		elog("cannot connect to %s: %s (is `trigrec record --control %s` running?)", argv[1],
		     strerror(errno), argv[1]);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (write(fd, line, strlen(line)) < 0) {
		elog("cannot send to %s: %s", argv[1], strerror(errno));
		close(fd);
		return 1;
	}
	n = read(fd, reply, sizeof(reply) - 1);
	close(fd);
	if (n <= 0) {
		elog("no reply from %s", argv[1]);
		return 1;
	}
	reply[n] = 0;
	fputs(reply, stdout);
	return strncmp(reply, "error", 5) ? 0 : 1;
}

static const char *sw_names[] = { "cpu-clock", "task-clock", "page-faults", "context-switches",
				  "cpu-migrations", "minor-faults", "major-faults" };

static int cmd_list(int argc, char **argv)
{
	const char *pat = argc > 1 ? argv[1] : "*:*";
	struct tp_name *tps = NULL;
	char buf[256];
	int n;

	if (argc <= 1)
		for (size_t i = 0; i < sizeof(sw_names) / sizeof(sw_names[0]); i++)
			printf("%-48s [software event]\n", sw_names[i]);
	if (!strchr(pat, ':') && !strchr(pat, '/')) {
		snprintf(buf, sizeof(buf), "%s:*", pat);
		pat = buf;
	}
	if (!tracefs_root())
		return 1;
	n = tracefs_glob(pat, &tps);
	if (n < 0) {
		elog("cannot list tracepoints: %s", strerror(-n));
		return 1;
	}
	for (int i = 0; i < n; i++)
		printf("%s:%s%*s [tracepoint]\n", tps[i].sys, tps[i].name,
		       (int)(47 - strlen(tps[i].sys) - strlen(tps[i].name)) > 0 ?
		       (int)(47 - strlen(tps[i].sys) - strlen(tps[i].name)) : 1, "");
	free(tps);
	if (!n) {
		elog("no tracepoint matches '%s'", pat);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
			log_level++;
		else if (!strcmp(argv[i], "-vv"))
			log_level += 2;
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			log_level = LOG_QUIET;
		else if (!strcmp(argv[i], "--version")) {
			printf("trigrec %s\n", TRIGREC_VERSION);
			return 0;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_main, stdout);
			return 0;
		} else {
			elog("unknown option %s", argv[i]);
			fputs(usage_main, stderr);
			return 2;
		}
	}
	if (i >= argc) {
		fputs(usage_main, stderr);
		return 2;
	}
	if (!strcmp(argv[i], "record"))
		return cmd_record(argc - i, argv + i, argc, argv);
	if (!strcmp(argv[i], "list"))
		return cmd_list(argc - i, argv + i);
	if (!strcmp(argv[i], "control"))
		return cmd_control(argc - i, argv + i);
	if (!strcmp(argv[i], "help")) {
		if (i + 1 < argc && !strcmp(argv[i + 1], "record"))
			fputs(usage_record, stdout);
		else
			fputs(usage_main, stdout);
		return 0;
	}
	elog("unknown command '%s' (commands: record, list, help)", argv[i]);
	return 2;
}
