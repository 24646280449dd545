// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `trigrec record`: the options table (also used by `run` for overrides) and the command. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "cli/cli.h"
#include "harvest/control.h"
#include "service/hooks.h"
#include "service/retention.h"
#include "session/session.h"
#include "util/log.h"
#include "util/util.h"
#include "util/netaddr.h"

static const char record_head[] =
	"usage: trigrec record [options] [-- command [args]]\n"
	"\n"
	"Record events into overwritable per-CPU rings. When a trigger fires, BPF\n"
	"cuts the history in the kernel at that instant (tracepoints switch to a\n"
	"second ring set and recording goes on; perf-written rings are frozen, see\n"
	"--rings); the side-band thread copies the rings out and writes\n"
	"<YYYYmmdd-HHMMSS.uuuuuu>-<trigger>.data (perf.data, read it with\n"
	"perf script / perf report) and a .json sidecar.\n";

static const char record_tail[] =
	"\n"
	"TRIGGER is\n"
	"  EVENT [if FILTER] [count >= N]\n"
	"  latency EVENT [if F] [by KEY] -> EVENT [if F] [by KEY] > DURATION\n"
	"  rate EVENT [if F] [by KEY] > N/DURATION\n"
	"then any of: post DURATION (at most 1h), cooldown DURATION [per key],\n"
	"limit N/PERIOD | none, max N, name NAME. Without limit, a trigger writes at\n"
	"most 10 snapshots at once, then one a second (limit 10/10s); limit none\n"
	"lifts it. FILTER: ftrace syntax over the event's fields and comm,\n"
	"pid, tid, cpu, cgroup (docs/triggers.md), and !~. cgroup == \"/PATH\" and\n"
	"cgroup ~ \"GLOB\" (!=, !~) test the current task's cgroup v2 path from the\n"
	"cgroup2 root (\"/kubepods.slice/*\": the subtree), resolved at start (a\n"
	"cgroup made later matches only after a reload of a script: trigrec run).\n"
	"With -p or a command, triggers only fire in that process tree.\n"
	"\n"
	"Without -e, the default set is recorded: the triggers' own events, then\n"
	"sched:sched_switch, sched_wakeup, sched_process_fork, sched_process_exec,\n"
	"sched_process_exit and signal:signal_deliver (those this kernel has). It is\n"
	"printed at start (\"recording the default set: ...; give -e to choose\") and\n"
	"written by --dump-script. With neither -e nor --trigger, trigrec records it\n"
	"until you ask for a snapshot.\n"
	"\n"
	"Signals: SIGUSR2 takes a snapshot now; Ctrl-C stops (with a final snapshot);\n"
	"a second Ctrl-C exits at once.\n"
	"\n"
	"Examples (common questions):\n"
	"  # What was the machine doing when I noticed a problem? Snapshot on demand:\n"
	"  trigrec record --control /run/trigrec.sock     # then: trigrec control /run/trigrec.sock snapshot\n"
	"  # Why did my program crash? The last moments before its SIGSEGV:\n"
	"  trigrec record --trigger 'signal:signal_deliver if sig == 11' -- ./app\n"
	"  # Which fsync takes over 100 ms, and what ran meanwhile?\n"
	"  trigrec record --trigger 'latency syscalls:sys_enter_fsync by tid ->\n"
	"      syscalls:sys_exit_fsync by tid > 100ms' -- ./app\n"
	"  # Which system call of my program is slow? (fields: trigrec list -v raw_syscalls)\n"
	"  trigrec record -e 'raw_syscalls:*' -e sched:sched_switch \\\n"
	"      --trigger 'latency raw_syscalls:sys_enter -> raw_syscalls:sys_exit by tid > 20ms' -- ./app\n"
	"  # Who floods the machine with openat?\n"
	"  trigrec record -e 'sched:*' --trigger 'rate syscalls:sys_enter_openat by pid > 5000/1s\n"
	"      cooldown 10s per key limit 3/min' --control /run/trigrec.sock\n"
	"  # Where is a process spending its CPU when it gets a signal?\n"
	"  trigrec record -e cpu-clock -g --trigger signal:signal_deliver --post 20ms -p 1234\n"
	"  # Keep it as a script: trigrec run mine.trig\n"
	"  trigrec record ... --dump-script > mine.trig\n" CLI_MORE_EXAMPLES;

#define SET(fn) static int fn(struct opt_ctx *x, const char *a, char *err, size_t len)
#define CFG (x->cfg)

SET(o_event)
{
	return config__add_event(CFG, a, NULL);
}

SET(o_filter)
{
	struct rec_event_spec *last = CFG->nr_events ? &CFG->events[CFG->nr_events - 1] : NULL;

	if (!last) {
		elog("--filter '%s' must follow the -e it applies to", a);
		return -EINVAL;
	}
	if (last->filter) {
		elog("two --filter for -e %s: combine them with &&", last->spec);
		return -EINVAL;
	}
	last->filter = strdup(a);
	return last->filter ? 0 : -ENOMEM;
}

SET(o_freq)
{
	return parse_u64(a, 1, 1000000, &CFG->freq, err, len);
}

SET(o_period)
{
	return parse_u64(a, 1, UINT64_MAX >> 1, &CFG->period, err, len);
}

SET(o_callgraph)
{
	CFG->callgraph = 1;
	return 0;
}

SET(o_mmap)
{
	return parse_mmap_pages(a, &CFG->mmap_pages, err, len);
}

SET(o_all)
{
	CFG->all_cpus = 1;
	return 0;
}

SET(o_cpu)
{
	int ncpu = cpus_possible();

	if (ncpu <= 0)
		ncpu = 1;
	free(CFG->cpumask);
	CFG->cpumask = calloc(ncpu, 1);
	CFG->nr_cpumask = ncpu;
	if (!CFG->cpumask)
		return -ENOMEM;
	return parse_cpulist(a, CFG->cpumask, ncpu, err, len);
}

SET(o_pid)
{
	uint64_t v;
	int e = parse_u64(a, 1, 1u << 30, &v, err, len);

	CFG->pid = v;
	return e;
}

SET(o_cgroup)
{
	if (*a != '/') {
		snprintf(err, len,
			 "'%s': give the cgroup v2 directory as an absolute path "
			 "(e.g. /sys/fs/cgroup/system.slice/nginx.service)",
			 a);
		return -EINVAL;
	}
	return config__set_str(&CFG->cgroup, a);
}

SET(o_output)
{
	if (!*a) {
		snprintf(err, len, "empty path (give a directory, e.g. -o .)");
		return -EINVAL;
	}
	return config__set_str(&CFG->outdir, a);
}

SET(o_trigger)
{
	struct trig_def t;
	struct tl_error e;
	char msg[2048];
	int ret;

	if (CFG->nr_trigs >= TRIGREC_MAX_TRIGGERS) {
		elog("too many triggers: at most %d in one run", TRIGREC_MAX_TRIGGERS);
		return -E2BIG;
	}
	if (trig_from_text(a, &t, &e)) {
		tl_error_format(&e, "--trigger", a, msg, sizeof(msg));
		elog("%s", msg);
		return -EINVAL;
	}
	ret = config__add_trigger(CFG, &t, NULL);
	return ret;
}

SET(o_post)
{
	int e = parse_duration(a, &CFG->post_ns, err, len);

	if (!e && CFG->post_ns > TL_MAX_POST_NS) {
		snprintf(err, len, "longer than an hour");
		return -EINVAL;
	}
	return e;
}

SET(o_count)
{
	uint64_t v;
	int e = parse_u64(a, 1, 1000000000, &v, err, len);

	CFG->count = v;
	return e;
}

SET(o_count_kill)
{
	CFG->count_kill_set = 1;
	return config__parse_count_kill(a, &CFG->count_kill, err, len);
}

SET(o_no_final)
{
	CFG->no_final = 1;
	return 0;
}

SET(o_no_align)
{
	CFG->no_align = 1;
	return 0;
}

SET(o_instance)
{
	if (!retention_instance_ok(a)) {
		snprintf(err, len,
			 "'%s' is not an instance ID: 1-%d of A-Z a-z 0-9 _ . - (such as the "
			 "unit's name, web)",
			 a, RETENTION_INSTANCE_MAX);
		return -1;
	}
	return config__set_str(&CFG->instance, a);
}

SET(o_no_buildid_cache)
{
	CFG->no_buildid_cache = 1;
	return 0;
}

SET(o_include_self)
{
	CFG->bpf.include_self = 1;
	return 0;
}

SET(o_rings)
{
	return config__parse_rings(a, &CFG->rings, err, len);
}

SET(o_no_gates)
{
	CFG->bpf.no_gates = 1;
	return 0;
}

SET(o_no_fast_paths)
{
	CFG->bpf.no_fast_paths = 1;
	return 0;
}

SET(o_syscall_fast_paths)
{
	CFG->bpf.syscall_fast_paths = 1;
	return 0;
}

SET(o_max_starts)
{
	uint64_t v;
	int e = parse_u64(a, 1024, 1u << 22, &v, err, len);

	CFG->bpf.lat_starts = v;
	return e;
}

SET(o_max_keys)
{
	uint64_t v;
	int e = parse_u64(a, 1024, 1u << 22, &v, err, len);

	CFG->bpf.keys = v;
	return e;
}

SET(o_control)
{
	size_t max = sizeof(((struct sockaddr_un *)0)->sun_path) - 1;

	/* An empty path would bind an abstract socket, which has no permissions. */
	if (!*a) {
		snprintf(err, len,
			 "empty path (an abstract socket anyone could reach is refused; "
			 "give a file path such as /run/trigrec.sock)");
		return -EINVAL;
	}
	if (strlen(a) > max) {
		snprintf(err, len, "%s: path too long for a UNIX socket (max %zu bytes)", a, max);
		return -EINVAL;
	}
	return config__set_str(&CFG->control, a);
}

/* "0" lifts a limit (for `run`, over the script's `keep`). */
SET(o_keep_files)
{
	return parse_u64(a, 0, 1000000000, &CFG->keep_files, err, len);
}

SET(o_keep_bytes)
{
	if (!strcmp(a, "0"))
		return CFG->keep_bytes = 0, 0;
	return parse_size(a, &CFG->keep_bytes, err, len);
}

SET(o_keep_age)
{
	if (!strcmp(a, "0"))
		return CFG->keep_age_ns = 0, 0;
	return parse_duration(a, &CFG->keep_age_ns, err, len);
}

SET(o_metrics)
{
	struct sockaddr_storage ss;
	int e = netaddr_parse(a, &ss, err, len);

	return e ? e : config__set_str(&CFG->metrics_addr, a);
}

SET(o_http_token_file)
{
	if (!*a) {
		snprintf(err, len, "empty path");
		return -EINVAL;
	}
	return config__set_str(&CFG->http_token_file, a);
}

SET(o_metrics_file)
{
	if (!*a) {
		snprintf(err, len, "empty path");
		return -EINVAL;
	}
	return config__set_str(&CFG->metrics_file, a);
}

SET(o_on_snapshot)
{
	char **v;
	int e = hook_argv_split(a, &v, err, len);

	if (e)
		return e;
	hook_argv_free(CFG->on_snapshot);
	CFG->on_snapshot = v;
	return 0;
}

SET(o_on_snapshot_timeout)
{
	return config__parse_on_snapshot_timeout(a, &CFG->on_snapshot_timeout_ns, err, len);
}

SET(o_on_snapshot_jobs)
{
	return config__parse_on_snapshot_jobs(a, &CFG->on_snapshot_jobs, err, len);
}

SET(o_on_snapshot_user)
{
	int e = config__parse_on_snapshot_user(a, err, len);

	return e ? e : config__set_str(&CFG->on_snapshot_user, a);
}

SET(o_compress)
{
	int level = 1; /* -z alone: perf record's default */

	if (a && config__parse_zstd_level(a, &level, err, len))
		return -EINVAL;
	CFG->zstd_level = level;
	return 0;
}

SET(o_dump_script)
{
	x->dump_script = 1;
	return 0;
}

SET(o_verbose)
{
	log_level++;
	return 0;
}

SET(o_quiet)
{
	log_level = LOG_QUIET;
	return 0;
}

SET(o_budget)
{
	int n = parse_budget(a, CFG->bpf.budget_n, CFG->bpf.budget_period_ns, 2, err, len);

	return n < 0 ? n : 0;
}

SET(o_log_format)
{
	if (log_format_parse(a)) {
		snprintf(err, len, "'%s': give text or logfmt", a);
		return -EINVAL;
	}
	return 0;
}

SET(o_help)
{
	x->help = 1;
	return 0;
}

const struct opt_spec record_opts[] = {
	{ 'e', "event", "EVENT",
	  "tracepoint SYS:NAME (globs: 'sched:*') or software\n"
	  "event (cpu-clock, task-clock, page-faults,\ncontext-switches, cpu-migrations, minor-faults,\n"
	  "major-faults); repeatable, comma lists; none:\nthe default set (below); trigrec list -v shows them",
	  o_event, "Events:" },
	{ 0, "filter", "FILTER", "ftrace filter for the preceding -e (in the kernel)", o_filter },
	{ 'F', "freq", "HZ", "sampling frequency for software events (default 4000)", o_freq },
	{ 'c', "period", "N", "sample every N events instead of -F", o_period },
	{ 'g', "call-graph", NULL, "record call chains", o_callgraph },
	{ 'm', "mmap-pages", "N|SIZE",
	  "ring per CPU: pages (power of two) or a size\n"
	  "(512K, 4M); default 1M, at least 16K",
	  o_mmap },
	{ 'a', "all-cpus", NULL,
	  "every CPU, every task (with a command: system-wide\n"
	  "while it runs; its triggers still only fire in it)",
	  o_all, "Scope (default -a when there is no command and no -p):" },
	{ 'C', "cpu", "LIST", "only these CPUs (0-3,5)", o_cpu },
	{ 'G', "cgroup", "PATH",
	  "only tasks in this cgroup (v2 directory), as perf\n"
	  "record -G; triggers only fire there",
	  o_cgroup },
	{ 'p', "pid", "PID", "only this process (its threads and children); stop\nwhen it exits",
	  o_pid },
	{ 0, "trigger", "TRIGGER", "snapshot when TRIGGER holds (repeatable; below)", o_trigger,
	  "Triggers and snapshots:" },
	{ 0, "post", "DURATION",
	  "keep recording this long after the trigger\n(e.g. 10ms; default 0: the cut is at the trigger)",
	  o_post },
	{ 0, "count", "N",
	  "stop after N snapshots written (at least 1; a failed\n"
	  "write does not count); the command gets --count-kill",
	  o_count },
	{ 0, "count-kill", "SIGNAL",
	  "what the command gets when --count is reached: a\n"
	  "signal (TERM, the default: it ends with the run, as\n"
	  "at Ctrl-C; INT, KILL, ...) or none (trigrec exits\n"
	  "and leaves it running)",
	  o_count_kill },
	{ 0, "no-final-snapshot", NULL, "do not write a snapshot at the end", o_no_final },
	{ 0, "control", "PATH",
	  "owner-only UNIX socket for `trigrec status PATH`\n"
	  "and `trigrec control PATH VERB`, VERB one of\n" CONTROL_VERBS,
	  o_control },
	{ 0, "budget", "N/PERIOD[,N/PERIOD]",
	  "at most N snapshots per PERIOD across all\n"
	  "triggers (storm control, e.g. 10/min,60/hour);\non top of each trigger's limit",
	  o_budget },
	{ 0, "max-starts", "N", "latency starts in flight, LRU (default 65536, max 4M)",
	  o_max_starts },
	{ 0, "max-keys", "N", "rate buckets / per-key cooldowns, LRU (default 16384)", o_max_keys },
	{ 0, "rings", "bpf|perf|compact|auto",
	  "who writes tracepoint records: bpf (default where\n"
	  "it can: ring sets switch at a trigger, recording\n"
	  "never stops, other perf users lose nothing), perf\n"
	  "(one ring per CPU, frozen at a trigger) or compact\n"
	  "(opt-in: BPF writes trigrec's own encoding into byte\n"
	  "rings plus a 1/8 spare); env TRIGREC_RINGS",
	  o_rings },
	{ 0, "no-gates", NULL,
	  "no freeze gates: cheaper, but records after a trigger\n"
	  "overwrite history until the harvest (still cut exactly)",
	  o_no_gates },
	{ 0, "no-fast-paths", NULL,
	  "record and test every tracepoint through the generic\n"
	  "programs, not the tp_btf fast paths (for measuring them)",
	  o_no_fast_paths },
	{ 0, "syscall-fast-paths", NULL,
	  "syscalls:sys_enter_NAME/sys_exit_NAME through tp_btf even\n"
	  "without raw_syscalls (that program then runs on every\n"
	  "system call of the host: worth it only if the named\n"
	  "calls are most of them)",
	  o_syscall_fast_paths },
	{ 0, "include-self", NULL,
	  "record trigrec's own threads and its on_snapshot\n"
	  "commands too (left out by default: rings=bpf)",
	  o_include_self },
	{ 0, "no-align", NULL,
	  "keep every CPU's full history, even where another\n"
	  "CPU's ring has already overwritten the same span",
	  o_no_align },
	{ 'o', "output", "DIR",
	  "where snapshots go (default .; created if missing,\nits parent must exist; checked by a test file at start)",
	  o_output },
	{ 'z', "compression-level", "[N]",
	  "compress snapshots with zstd, as perf record -z:\n"
	  "level N from 1 (fastest, the default) to 22\n(smallest); 0 = off",
	  o_compress },
	{ 0, "no-buildid-cache", NULL,
	  "do not copy the DSOs of a snapshot into perf's\n"
	  "build-id cache (~/.debug or $PERF_BUILDID_DIR);\nbuild-ids are still written",
	  o_no_buildid_cache },
	{ 0, "keep-files", "N",
	  "retention in -o: keep at most N snapshots (a .data\n"
	  "and its .json each), removing the oldest; 0 = no limit",
	  o_keep_files },
	{ 0, "keep-bytes", "SIZE",
	  "keep at most SIZE of snapshots (2G); a snapshot\n"
	  "bigger than that alone is refused",
	  o_keep_bytes },
	{ 0, "keep-age", "AGE", "remove snapshots older than AGE (7d, 12h)", o_keep_age },
	{ 0, "instance", "ID",
	  "this recorder's name in its sidecars: retention\n"
	  "removes only snapshots of the same ID (default: a\n"
	  "random one per run, so only this run's)",
	  o_instance },
	{ 0, "on-snapshot", "'CMD ARG...'",
	  "run CMD for each snapshot written, with its .data\n"
	  "and .json paths appended, or put where {data},\n"
	  "{json}, {dir}, {name}, {trigger}, {host} appear.\n"
	  "Split on blanks, '...' and \"...\" quote; no shell",
	  o_on_snapshot, "Shipping:" },
	{ 0, "on-snapshot-timeout", "DURATION",
	  "stop a run after this long: SIGTERM, SIGKILL 5s\n"
	  "later (default 60s; 100ms to 24h)",
	  o_on_snapshot_timeout },
	{ 0, "on-snapshot-jobs", "K",
	  "at most K runs at once (default 2, max 64); 16\n"
	  "more wait, the rest are dropped and counted",
	  o_on_snapshot_jobs },
	{ 0, "on-snapshot-user", "USER",
	  "run CMD as USER (name or uid) with no capabilities;\n"
	  "the snapshot pair is made readable by its group\n"
	  "(default: $TRIGREC_ON_SNAPSHOT_USER, which the\n"
	  "systemd units set to trigrec; else as trigrec)",
	  o_on_snapshot_user },
	{ 0, "metrics", "ADDR",
	  "serve Prometheus metrics on http://ADDR/metrics\n"
	  "(PORT or HOST:PORT; loopback unless a host is given)",
	  o_metrics, "Monitoring:" },
	{ 0, "metrics-file", "PATH",
	  "node_exporter textfile, rewritten atomically at\n"
	  "start, after each snapshot and at exit",
	  o_metrics_file },
	{ 0, "http-token-file", "FILE",
	  "serve POST /snapshot (Alertmanager's webhook) on\n"
	  "--metrics's listener to callers that send\n"
	  "\"Authorization: Bearer TOKEN\", TOKEN the first line\n"
	  "of FILE (mode 0600, owned by trigrec's user or root)",
	  o_http_token_file },
	{ 0, "dump-script", NULL, "print these options as a trigger script and exit",
	  o_dump_script },
	{ 'v', "verbose", NULL, "more messages (repeat for more)", o_verbose, "Other:" },
	{ 0, "log-format", "FMT",
	  "text (default) or logfmt (default when stderr is\nthe journal: one key=value line per event)",
	  o_log_format },
	{ 'q', "quiet", NULL, "errors only", o_quiet },
	{ 'h', "help", NULL, "this text", o_help },
};
const int nr_record_opts = sizeof(record_opts) / sizeof(record_opts[0]);

int cli_run_session(struct trigrec_config *c, session_reload_fn reload, void *ctx)
{
	/* perf.data records the whole command line, global options included. */
	struct session *s = session__new(c, cli_argc, cli_argv);
	int ret = 1, err;

	if (!s)
		return 1;
	if (reload)
		session__set_reload(s, reload, ctx);
	err = session__start(s);
	if (!err)
		ret = session__run(s);
	else if (err == -EINTR)
		ret = 130; /* interrupted during set-up, as a shell reports Ctrl-C */
	session__free(s);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct trigrec_config c;
	struct opt_ctx x = { .cfg = &c };
	char err[512];
	int first, ret = 2;

	config__init(&c);
	first = opts__parse(record_opts, nr_record_opts, "record", argc, argv, &x);
	if (first < 0)
		goto out;
	if (x.help) {
		fputs(record_head, stdout);
		opts__help(stdout, record_opts, nr_record_opts);
		fputs(record_tail, stdout);
		ret = 0;
		goto out;
	}
	if (first < argc && !(c.cmd = config__argv_dup(argv + first, argc - first))) {
		ret = 1;
		goto out;
	}
	if (config__finalize(&c, err, sizeof(err))) {
		elog("%s", err);
		goto out;
	}
	if (x.dump_script) {
		ret = config__dump_script(&c, stdout) ? 1 : 0;
		goto out;
	}
	ret = cli_run_session(&c, NULL, NULL);
out:
	config__fini(&c);
	return ret;
}
