// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Test workload for the trigger engine: every syscall a trigger can see is
 * made on purpose, from a known thread, at a known CLOCK_MONOTONIC time
 * (the clock of bpf_ktime_get_ns() and of trigrec's records).
 *
 *   trigwork [-r] [-o OUT] [-i CMDS] [STEP ARGS]...
 * Runs the STEPs given as arguments, then (with -i) one STEP per line read
 * from CMDS (a FIFO the test writes to), answering "ack N" after the Nth
 * line, until "exit" or end of file. A line may hold several steps, run back
 * to back ("getpgid 5 setpgid 99999 5"). Markers go to OUT (default stdout),
 * one line each: "STEP key=value ...", times in ns. -r runs everything at
 * SCHED_FIFO priority 1 (threads and children inherit it), so CPU load from
 * ordinary tasks does not stretch sleeps and gaps.
 *
 * Steps:
 *   getsid V [N]       N (default 1) x getsid(V)        "getsid v= n= tid= t="
 *   getpgid V [N]      N x getpgid(V)                   "getpgid v= n= tid= t= t_end="
 *   setpgid P G        setpgid(P, G) (P: a pid that does not exist, ESRCH)
 *   seq N BASE [US]    getpgid(BASE + i), i < N, US microseconds apart
 *   spread N MS [V]    N x getpgid(V) paced by relative sleeps over about MS ms
 *                      (a delay never causes a catch-up burst)
 *   mix MS V1 N1 V2 N2 [BV BN]
 *                      N1 x getpgid(V1) and N2 x getpgid(V2) interleaved, each
 *                      stream evenly paced over about MS ms (no catch-up
 *                      burst after a delay): two keys at steady rates; with
 *                      BV BN, halfway through, BN x getpgid(BV) back to back
 *                      "mix v1= n1= v2= n2= bv= bn= t= t_burst= t_end="
 *   nsleep MS          nanosleep(2) for MS ms in this thread
 *   tsleep MS          nanosleep(2) for MS ms in a new thread (joined)
 *                      "nsleep tid= ms= start= end="
 *   lsleep N MS LAST   a new thread makes N nanosleep(2)s of MS ms, then one of
 *                      LAST ms (a learned threshold's key: the thread)
 *                      "lsleep tid= n= ms= last= start= end=" (the last sleep)
 *   pause MS           clock_nanosleep(2) for MS ms: not a nanosleep(2)
 *   par K              the next step runs in K child processes released
 *                      together; the parent waits for them ("par pids=a,b")
 *   rqlat BUSY_MS [CPU] run-queue latency of a known length: a thread W
 *                      blocks in read(2); this thread, SCHED_FIFO and on the
 *                      same CPU as W, wakes W through a pipe and spins
 *                      BUSY_MS before it blocks, so W waits BUSY_MS runnable.
 *                      W is SCHED_FIFO too, one priority lower, so it is the
 *                      task switched to when the waker blocks; W's comm is
 *                      "trigwork-rq". W sleeps 5 ms after its read before
 *                      it exits.
 *                      "rqlat waker= wtid= cpu= wake= run="
 *   pipestall MS       this thread blocks in read(2) on a pipe that a new
 *                      thread ("trigwork-wr") writes after a nanosleep(2) of
 *                      MS ms (issue 33's reproducer): the reader is blocked
 *                      MS ms and woken by the writer.
 *                      "pipestall reader= writer= ms= start= write= end="
 *   vforkd MS          this thread vfork(2)s; the child sleeps MS ms and
 *                      exits. The parent waits for the child's exit in the
 *                      kernel (wait_for_vfork_done(): TASK_KILLABLE, which
 *                      sched_switch reports as D) and the exiting child wakes
 *                      it (complete_vfork_done() from mm_release()).
 *                      "vforkd parent= child= ms= start= cstart= cend= end="
 *   udpsend N          N 64-byte UDP datagrams from this thread to a socket of
 *                      its own on 127.0.0.1 (never read: the full ones drop).
 *                      Loopback delivery raises NET_RX and runs it when the
 *                      send re-enables bottom halves: softirqs in this
 *                      thread's context, as many as the kernel chose to run.
 *                      "udpsend tid= n= sent= start= end="
 *   mark NAME          "mark NAME t="
 *   openat MODE PATH   openat(AT_FDCWD, P, O_RDONLY) where P holds PATH in a page
 *                      that is, by MODE: fresh: anonymous, just mapped and
 *                      written (present); unfaulted: a memfd holding PATH,
 *                      mapped but never touched (not present until the kernel
 *                      itself faults it in); protnone: PROT_NONE (PATH unused).
 *                      An fd it opens is closed.
 *                      "openat mode= path= ret= errno= tid= t= t_end="
 *   exit
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static FILE *out;
static int base_policy = SCHED_OTHER; /* -r: SCHED_FIFO */
static struct sched_param base_param;
static int par_next; /* K children for the next step */

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

static void pause_ns(long long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ll, .tv_nsec = ns % 1000000000ll };

	/* clock_nanosleep(2), never nanosleep(2): latency tests filter on the latter. */
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static void nsleep_ms(long ms, long long *start, long long *end)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000l };

	*start = now_ns();
	syscall(SYS_nanosleep, &ts, NULL);
	*end = now_ns();
}

struct sleeper {
	long ms;
	pid_t tid;
	long long start, end;
};

static void *sleeper_main(void *arg)
{
	struct sleeper *s = arg;

	s->tid = gettid_();
	nsleep_ms(s->ms, &s->start, &s->end);
	return NULL;
}

struct lsleeper {
	long n, ms, last;
	pid_t tid;
	long long start, end;
};

static void *lsleeper_main(void *arg)
{
	struct lsleeper *s = arg;
	long long t0, t1;

	s->tid = gettid_();
	for (long i = 0; i < s->n; i++)
		nsleep_ms(s->ms, &t0, &t1);
	nsleep_ms(s->last, &s->start, &s->end);
	return NULL;
}

struct rq {
	int cpu, pfd[2];
	volatile int ready;
	int rt;
	pid_t tid;
	long long run;
};

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void *rq_main(void *arg)
{
	struct rq *r = arg;
	char c;

	struct sched_param sp = { .sched_priority = 5 };

	r->tid = gettid_();
	/* Its own name: a trigger can pick W's wakeups out of all trigwork's. */
	prctl(PR_SET_NAME, "trigwork-rq");
	if (pin(r->cpu))
		perror("trigwork: rqlat: pin W");
	/* RT below the waker: when the waker blocks, W is the next to run, not a kworker. */
	r->rt = sched_setscheduler(0, SCHED_FIFO, &sp) ? -errno : 1;
	__atomic_store_n(&r->ready, 1, __ATOMIC_SEQ_CST);
	if (read(r->pfd[0], &c, 1) != 1)
		perror("trigwork: rqlat: read");
	r->run = now_ns();
	/*
	 * Live on a little: W's next switch-out is then a sleep, not its exit,
	 * whose samples perf stamps with tid -1 (perf sched timehist would lose
	 * the line that holds the read's wait and delay; why_perf.sh).
	 */
	pause_ns(5000000);
	return NULL;
}

/* Is thread tid blocked (state S)? */
static int blocked(pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	int st = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[1] == ' ')
		st = p[2] == 'S';
	fclose(f);
	return st;
}

static int rqlat(long busy_ms, int cpu)
{
	struct rq r = { .cpu = cpu };
	struct sched_param sp = { .sched_priority = 10 };
	pthread_t th;
	long long wake;

	if (pipe(r.pfd) || pin(cpu)) {
		perror("trigwork: rqlat: setup");
		return 1;
	}
	pthread_create(&th, NULL, rq_main, &r);
	while (!__atomic_load_n(&r.ready, __ATOMIC_SEQ_CST))
		pause_ns(100000);
	for (int i = 0; i < 2000 && !blocked(r.tid); i++)
		pause_ns(100000);
	pause_ns(2000000);
	if (r.rt < 0 || sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(out, "rqlat error=%s\n", strerror(r.rt < 0 ? -r.rt : errno));
		fflush(out);
		if (write(r.pfd[1], "x", 1) != 1)
			return 1;
		pthread_join(th, NULL);
		return 1;
	}
	wake = now_ns();
	if (write(r.pfd[1], "x", 1) != 1)
		perror("trigwork: rqlat: write");
	while (now_ns() < wake + busy_ms * 1000000ll)
		;
	sched_setscheduler(0, base_policy, &base_param);
	pthread_join(th, NULL);
	fprintf(out, "rqlat waker=%d wtid=%d cpu=%d busy_ms=%ld wake=%lld run=%lld\n", gettid_(),
		r.tid, cpu, busy_ms, wake, r.run);
	close(r.pfd[0]);
	close(r.pfd[1]);
	return 0;
}

struct stall {
	long ms;
	int pfd[2];
	pid_t tid;
	long long write;
};

static void *stall_main(void *arg)
{
	struct stall *st = arg;
	long long t0, t1;

	st->tid = gettid_();
	prctl(PR_SET_NAME, "trigwork-wr");
	nsleep_ms(st->ms, &t0, &t1);
	st->write = now_ns();
	if (write(st->pfd[1], "x", 1) != 1)
		perror("trigwork: pipestall: write");
	return NULL;
}

static int pipestall(long ms)
{
	struct stall st = { .ms = ms };
	long long start, end;
	pthread_t th;
	char c;

	if (pipe(st.pfd)) {
		perror("trigwork: pipestall: pipe");
		return 1;
	}
	start = now_ns();
	pthread_create(&th, NULL, stall_main, &st);
	if (read(st.pfd[0], &c, 1) != 1)
		perror("trigwork: pipestall: read");
	end = now_ns();
	pthread_join(th, NULL);
	fprintf(out, "pipestall reader=%d writer=%d ms=%ld start=%lld write=%lld end=%lld\n",
		gettid_(), st.tid, ms, start, st.write, end);
	close(st.pfd[0]);
	close(st.pfd[1]);
	return 0;
}

static int udpsend(long n)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	char buf[64] = { 0 };
	long long start, end;
	long sent = 0;
	int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);

	if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(rx, (struct sockaddr *)&a, &alen)) {
		perror("trigwork: udpsend: socket");
		return 1;
	}
	start = now_ns();
	for (long i = 0; i < n; i++)
		sent += sendto(tx, buf, sizeof(buf), 0, (struct sockaddr *)&a, sizeof(a)) > 0;
	end = now_ns();
	close(tx);
	close(rx);
	fprintf(out, "udpsend tid=%d n=%ld sent=%ld start=%lld end=%lld\n", gettid_(), n, sent,
		start, end);
	return 0;
}

/* Written by the vfork(2) child, which shares this memory until it exits. */
static volatile pid_t vf_child;
static volatile long long vf_cstart, vf_cend;

static int vforkd(long ms)
{
	long long start = now_ns(), end;
	/*
	 * vfork on purpose: the parent waits in wait_for_vfork_done(), the D
	 * state this step provokes; the child only stores, sleeps and exits.
	 */
	// NOLINTNEXTLINE(clang-analyzer-security.insecureAPI.vfork)
	pid_t p = vfork();

	// NOLINTBEGIN(clang-analyzer-unix.Vfork): see above
	if (p == 0) {
		vf_child = gettid_();
		vf_cstart = now_ns();
		pause_ns(ms * 1000000ll);
		vf_cend = now_ns();
		_exit(0);
	}
	// NOLINTEND(clang-analyzer-unix.Vfork)
	end = now_ns();
	if (p < 0) {
		perror("trigwork: vforkd: vfork");
		return 1;
	}
	waitpid(p, NULL, 0);
	fprintf(out, "vforkd parent=%d child=%d ms=%ld start=%lld cstart=%lld cend=%lld end=%lld\n",
		gettid_(), (int)vf_child, ms, start, vf_cstart, vf_cend, end);
	return 0;
}

static long num(char **a, int n, int i, long def)
{
	return i < n ? strtol(a[i], NULL, 0) : def;
}

/* Run one step (words a[0..n-1]). 0 = ok, 1 = bad step, 2 = exit. */
static int step(char **a, int n)
{
	const char *s = a[0];
	long long t, t2;

	if (par_next) {
		int k = par_next, go[2];
		pid_t pids[64];

		par_next = 0;
		if (k > 64 || pipe(go))
			return 1;
		fflush(out);
		for (int i = 0; i < k; i++) {
			pids[i] = fork();
			if (pids[i] == 0) {
				char c;

				close(go[1]);
				if (read(go[0], &c, 1) < 0)
					_exit(1);
				_exit(step(a, n) == 1);
			}
		}
		close(go[0]);
		close(go[1]); /* EOF: every child starts now */
		fprintf(out, "par pids=");
		for (int i = 0; i < k; i++) {
			waitpid(pids[i], NULL, 0);
			fprintf(out, "%s%d", i ? "," : "", pids[i]);
		}
		fprintf(out, "\n");
		return 0;
	}
	if (!strcmp(s, "getsid") || !strcmp(s, "getpgid")) {
		long v = num(a, n, 1, 0), cnt = num(a, n, 2, 1);
		int nr = s[3] == 's' ? SYS_getsid : SYS_getpgid;

		t = now_ns();
		for (long i = 0; i < cnt; i++)
			syscall(nr, v);
		t2 = now_ns();
		fprintf(out, "%s v=%ld n=%ld pid=%d tid=%d t=%lld t_end=%lld\n", s, v, cnt,
			getpid(), gettid_(), t, t2);
	} else if (!strcmp(s, "setpgid")) {
		t = now_ns();
		syscall(SYS_setpgid, num(a, n, 1, 0x3fffffff), num(a, n, 2, 0));
		fprintf(out, "setpgid p=%ld g=%ld tid=%d t=%lld\n", num(a, n, 1, 0x3fffffff),
			num(a, n, 2, 0), gettid_(), t);
	} else if (!strcmp(s, "seq")) {
		long cnt = num(a, n, 1, 0), base = num(a, n, 2, 0), us = num(a, n, 3, 0);

		t = now_ns();
		for (long i = 0; i < cnt; i++) {
			syscall(SYS_getpgid, base + i);
			if (us)
				pause_ns(us * 1000ll);
		}
		fprintf(out, "seq n=%ld base=%ld pid=%d t=%lld t_end=%lld\n", cnt, base, getpid(),
			t, now_ns());
	} else if (!strcmp(s, "spread")) {
		long cnt = num(a, n, 1, 0), ms = num(a, n, 2, 1000), v = num(a, n, 3, 0);
		long long gap = cnt ? ms * 1000000ll / cnt : 0;

		t = now_ns();
		for (long i = 0; i < cnt; i++) {
			syscall(SYS_getpgid, v);
			pause_ns(gap);
		}
		fprintf(out, "spread n=%ld v=%ld t=%lld t_end=%lld\n", cnt, v, t, now_ns());
	} else if (!strcmp(s, "mix")) {
		long ms = num(a, n, 1, 1000), v[2] = { num(a, n, 2, 0), num(a, n, 4, 0) };
		long cnt[2] = { num(a, n, 3, 0), num(a, n, 5, 0) }, done[2] = { 0, 0 };
		long bv = num(a, n, 6, 0), bn = num(a, n, 7, 0);
		long long gap[2], next[2], end, tb = 0;

		t = now_ns();
		for (int k = 0; k < 2; k++) {
			gap[k] = cnt[k] ? ms * 1000000ll / cnt[k] : 0;
			next[k] = t;
		}
		for (;;) {
			int k = done[0] < cnt[0] && (done[1] >= cnt[1] || next[0] <= next[1]) ? 0 :
												1;
			long long now;

			if (done[k] >= cnt[k])
				break;
			now = now_ns();
			if (next[k] > now)
				pause_ns(next[k] - now);
			if (bn && !tb && now_ns() - t >= ms * 500000ll) {
				tb = now_ns();
				for (long i = 0; i < bn; i++)
					syscall(SYS_getpgid, bv);
			}
			syscall(SYS_getpgid, v[k]);
			done[k]++;
			/* Late: the next call one gap from now, never a catch-up burst. */
			now = now_ns();
			next[k] = next[k] + gap[k] > now ? next[k] + gap[k] : now + gap[k];
		}
		end = now_ns();
		fprintf(out,
			"mix v1=%ld n1=%ld v2=%ld n2=%ld bv=%ld bn=%ld t=%lld t_burst=%lld t_end=%lld\n",
			v[0], cnt[0], v[1], cnt[1], bv, bn, t, tb, end);
	} else if (!strcmp(s, "nsleep")) {
		long ms = num(a, n, 1, 1);

		nsleep_ms(ms, &t, &t2);
		fprintf(out, "nsleep tid=%d ms=%ld start=%lld end=%lld\n", gettid_(), ms, t, t2);
	} else if (!strcmp(s, "tsleep")) {
		struct sleeper sl = { .ms = num(a, n, 1, 1) };
		pthread_t th;

		pthread_create(&th, NULL, sleeper_main, &sl);
		pthread_join(th, NULL);
		fprintf(out, "nsleep tid=%d ms=%ld start=%lld end=%lld\n", sl.tid, sl.ms, sl.start,
			sl.end);
	} else if (!strcmp(s, "lsleep")) {
		struct lsleeper ls = { .n = num(a, n, 1, 1),
				       .ms = num(a, n, 2, 1),
				       .last = num(a, n, 3, 1) };
		pthread_t th;

		pthread_create(&th, NULL, lsleeper_main, &ls);
		pthread_join(th, NULL);
		fprintf(out, "lsleep tid=%d n=%ld ms=%ld last=%ld start=%lld end=%lld\n", ls.tid,
			ls.n, ls.ms, ls.last, ls.start, ls.end);
	} else if (!strcmp(s, "pause")) {
		pause_ns(num(a, n, 1, 1) * 1000000ll);
	} else if (!strcmp(s, "par")) {
		par_next = num(a, n, 1, 2);
	} else if (!strcmp(s, "rqlat")) {
		rqlat(num(a, n, 1, 20), num(a, n, 2, 0));
	} else if (!strcmp(s, "pipestall")) {
		pipestall(num(a, n, 1, 100));
	} else if (!strcmp(s, "vforkd")) {
		vforkd(num(a, n, 1, 50));
	} else if (!strcmp(s, "udpsend")) {
		udpsend(num(a, n, 1, 1000));
	} else if (!strcmp(s, "openat")) {
		const char *mode = n > 1 ? a[1] : "fresh", *path = n > 2 ? a[2] : "/";
		size_t len = strlen(path) + 1, pg = (size_t)sysconf(_SC_PAGESIZE);
		char *m = MAP_FAILED;
		long ret;
		int e = 0, mfd = -1;

		if (len > pg)
			return 1;
		if (!strcmp(mode, "fresh")) {
			m = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
				 0);
			if (m != MAP_FAILED)
				memcpy(m, path, len); /* the write faults the page in */
		} else if (!strcmp(mode, "unfaulted")) {
			/* write(2) fills the page cache; the new mapping has no page table entry. */
			mfd = (int)syscall(SYS_memfd_create, "trigwork-path", 0);
			if (mfd >= 0 && write(mfd, path, len) == (ssize_t)len)
				m = mmap(NULL, pg, PROT_READ, MAP_SHARED, mfd, 0);
		} else if (!strcmp(mode, "protnone")) {
			m = mmap(NULL, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		} else {
			return 1;
		}
		if (m == MAP_FAILED) {
			if (mfd >= 0)
				close(mfd);
			return 1;
		}
		t = now_ns();
		ret = syscall(SYS_openat, AT_FDCWD, m, O_RDONLY);
		t2 = now_ns();
		e = ret < 0 ? errno : 0;
		if (ret >= 0)
			close((int)ret);
		munmap(m, pg);
		if (mfd >= 0)
			close(mfd);
		fprintf(out, "openat mode=%s path=%s ret=%ld errno=%d tid=%d t=%lld t_end=%lld\n",
			mode, path, ret, e, gettid_(), t, t2);
	} else if (!strcmp(s, "mark")) {
		fprintf(out, "mark %s t=%lld\n", n > 1 ? a[1] : "-", now_ns());
	} else if (!strcmp(s, "exit")) {
		return 2;
	} else {
		fprintf(stderr, "trigwork: unknown step '%s'\n", s);
		return 1;
	}
	return 0;
}

static int is_step(const char *s)
{
	static const char *names[] = { "getsid",  "getpgid", "setpgid", "seq",	     "spread",
				       "mix",	  "nsleep",  "tsleep",	"pause",     "par",
				       "rqlat",	  "mark",    "openat",	"pipestall", "vforkd",
				       "udpsend", "exit" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return 1;
	return 0;
}

/* Several steps: a step name starts a new step. 0 = ok, 1 = bad step, 2 = exit. */
static int steps(char **w, int n)
{
	int r = 0;

	for (int i = 0; i < n && r == 0;) {
		int j = i + 1;

		while (j < n && !is_step(w[j]))
			j++;
		r = step(&w[i], j - i);
		i = j;
	}
	return r;
}

int main(int argc, char **argv)
{
	const char *cmds = NULL;
	int c, r = 0;

	out = stdout;
	while ((c = getopt(argc, argv, "+o:i:r")) != -1) {
		switch (c) {
		case 'o':
			out = fopen(optarg, "a");
			if (!out) {
				perror(optarg);
				return 2;
			}
			break;
		case 'i': cmds = optarg; break;
		case 'r':
			base_param.sched_priority = 1;
			if (sched_setscheduler(0, SCHED_FIFO, &base_param)) {
				fprintf(stderr,
					"trigwork: -r: SCHED_FIFO: %s (timing steps may be "
					"delayed by CPU load)\n",
					strerror(errno));
				base_param.sched_priority = 0;
			} else {
				base_policy = SCHED_FIFO;
			}
			break;
		default:
			fprintf(stderr, "usage: trigwork [-r] [-o OUT] [-i CMDS] [STEP ARGS]...\n");
			return 2;
		}
	}
	setvbuf(out, NULL, _IOLBF, 0);
	r = steps(&argv[optind], argc - optind);
	if (r == 1)
		return 2;
	if (cmds && r != 2) {
		FILE *f = fopen(cmds, "r");
		char line[4096];
		long nline = 0;

		if (!f) {
			perror(cmds);
			return 2;
		}
		while (fgets(line, sizeof(line), f)) {
			char *w[256];
			int n = 0;

			nline++;
			for (char *p = strtok(line, " \t\r\n"); p && n < 256;
			     p = strtok(NULL, " \t\r\n"))
				w[n++] = p;
			r = steps(w, n);
			fprintf(out, "ack %ld%s\n", nline, r == 1 ? " error" : "");
			if (r == 2)
				break;
		}
		fclose(f);
	}
	return 0;
}
