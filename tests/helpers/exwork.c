// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Workloads that provoke the situations the scripts in examples/ watch for, for
 * tests/integration/examples.sh. Each does one thing for real (a real
 * SIGSEGV, a real wait in flock(2), a real OOM kill...) and prints one
 * marker line first or last: "STEP key=value ...", times in CLOCK_MONOTONIC
 * ns (the clock of trigrec's records).
 *
 *   exwork crash            SIGSEGV on a write to address 0x10, default action
 *   exwork lockwait MS      a child holds an flock(2) for MS ms; this thread
 *                           waits for it in flock(2)
 *                           "lockwait pid= tid= start= end="
 *   exwork runq MS [CPU]    a thread of this process waits MS ms runnable: the
 *                           main thread (SCHED_FIFO, same CPU) wakes it, then
 *                           spins MS ms
 *                           "runq waker= wtid= cpu= wake= run="
 *   exwork dstall MS        vfork(2): this thread waits in D state while the
 *                           child sleeps MS ms
 *                           "dstall pid= tid= child= start= end="
 *   exwork faults MB [N]    N times: map MB of anonymous memory (no huge
 *                           pages), write one byte per 4 KiB page, unmap
 *                           "faults pid= pages= start= end="
 *   exwork syscalls N       N x getppid(2)  "syscalls pid= n= start= end="
 *   exwork alloc MB         map and touch MB, 1 MiB at a time (the OOM killer
 *                           ends it when a memory limit is lower)
 *                           "alloc pid=" first, "alloc done mb=" if it survives
 *   exwork tcpreset         a loopback TCP connection; the accepting side
 *                           closes it with SO_LINGER 0 (an RST); the client's
 *                           read gets ECONNRESET
 *                           "tcpreset pid= tid= sport= cport= err="
 *   exwork emfile           closes fds >= 3, RLIMIT_NOFILE 16, then opens
 *                           /dev/null until EMFILE (fds 3..15, then EMFILE)
 *                           "emfile pid= tid= fds= errno="
 *   exwork nap MS           nanosleep(2) MS ms  "nap pid= tid= start= end="
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static pid_t tid(void)
{
	return syscall(SYS_gettid);
}

static void nsleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000l };

	syscall(SYS_nanosleep, &ts, NULL);
}

static int die(const char *what)
{
	fprintf(stderr, "exwork: %s: %s\n", what, strerror(errno));
	return 1;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* An address nothing maps: the compiler cannot see it is constant. */
static volatile uintptr_t bad_addr = 0x10;

static int crash(void)
{
	/* ASan/UBSan builds install their own SIGSEGV handler: restore the
	 * default action, as an ordinary program has. */
	signal(SIGSEGV, SIG_DFL);
	printf("crash pid=%d tid=%d addr=0x%lx\n", getpid(), tid(), (unsigned long)bad_addr);
	fflush(stdout);
	*(volatile int *)bad_addr = 1;
	return 0;
}

static int lockwait(long ms)
{
	char path[] = "/tmp/exwork-lock.XXXXXX";
	int fd = mkstemp(path), p[2];
	long long t0, t1;
	pid_t c;
	char ch;

	if (fd < 0 || pipe(p))
		return die("lockwait: setup");
	c = fork();
	if (c == 0) {
		/* An flock belongs to an open file description: open the file anew. */
		int cfd = open(path, O_RDWR);

		if (cfd < 0 || flock(cfd, LOCK_EX))
			_exit(die("lockwait: child flock"));
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		nsleep_ms(ms);
		_exit(0);
	}
	if (c < 0)
		return die("fork");
	if (read(p[0], &ch, 1) != 1)
		return die("lockwait: read");
	t0 = now_ns();
	if (flock(fd, LOCK_EX))
		return die("lockwait: flock");
	t1 = now_ns();
	waitpid(c, NULL, 0);
	unlink(path);
	printf("lockwait pid=%d tid=%d ms=%ld start=%lld end=%lld\n", getpid(), tid(), ms, t0, t1);
	return 0;
}

struct rq {
	int pfd[2];
	volatile int ready;
	pid_t tid;
	long long run;
};

static void *rq_main(void *arg)
{
	struct rq *r = arg;
	char c;

	r->tid = tid();
	__atomic_store_n(&r->ready, 1, __ATOMIC_SEQ_CST);
	if (read(r->pfd[0], &c, 1) != 1)
		perror("exwork: runq: read");
	r->run = now_ns();
	return NULL;
}

/* Is thread t of this process blocked (state S)? */
static int blocked(pid_t t)
{
	char path[64], buf[256], *p;
	FILE *f;
	int st = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", t);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[1] == ' ')
		st = p[2] == 'S';
	fclose(f);
	return st;
}

static int runq(long ms, int cpu)
{
	struct rq r = { 0 };
	struct sched_param fifo = { .sched_priority = 10 }, other = { 0 };
	pthread_t th;
	long long wake;

	if (pipe(r.pfd) || pin(cpu))
		return die("runq: setup");
	/* W inherits the CPU: it can only run where the waker spins. */
	pthread_create(&th, NULL, rq_main, &r);
	while (!__atomic_load_n(&r.ready, __ATOMIC_SEQ_CST))
		nsleep_ms(1);
	for (int i = 0; i < 2000 && !blocked(r.tid); i++)
		nsleep_ms(1);
	if (sched_setscheduler(0, SCHED_FIFO, &fifo))
		return die("runq: SCHED_FIFO");
	wake = now_ns();
	if (write(r.pfd[1], "x", 1) != 1)
		return die("runq: write");
	while (now_ns() < wake + ms * 1000000ll)
		;
	sched_setscheduler(0, SCHED_OTHER, &other);
	pthread_join(th, NULL);
	printf("runq waker=%d wtid=%d cpu=%d ms=%ld wake=%lld run=%lld\n", tid(), r.tid, cpu, ms,
	       wake, r.run);
	return 0;
}

static int dstall(long ms)
{
	/* Set up before vfork: the child may only make raw system calls (it shares our memory). */
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000l };
	long long t0 = now_ns(), t1;
	/* NOLINTNEXTLINE(clang-analyzer-security.insecureAPI.vfork): the parent's wait is the stall */
	pid_t c = vfork();

	if (c == 0) {
		/* NOLINTNEXTLINE(clang-analyzer-unix.Vfork): one raw syscall, then _exit */
		syscall(SYS_nanosleep, &ts, NULL);
		_exit(0);
	}
	t1 = now_ns();
	if (c < 0)
		return die("vfork");
	waitpid(c, NULL, 0);
	printf("dstall pid=%d tid=%d child=%d ms=%ld start=%lld end=%lld\n", getpid(), tid(), c, ms,
	       t0, t1);
	return 0;
}

static int faults(long mb, long rounds)
{
	size_t len = (size_t)mb << 20;
	long pages = 0;
	long long t0 = now_ns();

	for (long r = 0; r < rounds; r++) {
		char *p =
			mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return die("faults: mmap");
		/* 4 KiB pages: one fault each, not one per 2 MiB. */
		madvise(p, len, MADV_NOHUGEPAGE);
		for (size_t o = 0; o < len; o += 4096, pages++)
			((volatile char *)p)[o] = 1;
		munmap(p, len);
	}
	printf("faults pid=%d pages=%ld start=%lld end=%lld\n", getpid(), pages, t0, now_ns());
	return 0;
}

static int syscalls(long n)
{
	long long t0 = now_ns();

	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("syscalls pid=%d n=%ld start=%lld end=%lld\n", getpid(), n, t0, now_ns());
	return 0;
}

static int alloc(long mb)
{
	printf("alloc pid=%d mb=%ld\n", getpid(), mb);
	fflush(stdout);
	for (long i = 0; i < mb; i++) {
		char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED)
			return die("alloc: mmap");
		memset(p, 1, 1 << 20);
	}
	printf("alloc done mb=%ld\n", mb);
	return 0;
}

static int port_of(int fd)
{
	struct sockaddr_in a = { 0 };
	socklen_t l = sizeof(a);

	if (getsockname(fd, (struct sockaddr *)&a, &l))
		return -1;
	return ntohs(a.sin_port);
}

static int tcpreset(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	socklen_t l = sizeof(a);
	int srv = socket(AF_INET, SOCK_STREAM, 0), cli = socket(AF_INET, SOCK_STREAM, 0), acc;
	char buf[16];
	ssize_t n;

	if (srv < 0 || cli < 0 || bind(srv, (struct sockaddr *)&a, sizeof(a)) || listen(srv, 1) ||
	    getsockname(srv, (struct sockaddr *)&a, &l) ||
	    connect(cli, (struct sockaddr *)&a, sizeof(a)))
		return die("tcpreset: connect");
	acc = accept(srv, NULL, NULL);
	if (acc < 0 || setsockopt(acc, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
		return die("tcpreset: accept");
	close(acc); /* SO_LINGER 0: an RST, not a FIN */
	n = read(cli, buf, sizeof(buf));
	printf("tcpreset pid=%d tid=%d sport=%d cport=%d read=%zd err=%s\n", getpid(), tid(),
	       port_of(srv), port_of(cli), n, n < 0 ? strerrorname_np(errno) : "none");
	close(cli);
	close(srv);
	return 0;
}

static int emfile(void)
{
	struct rlimit rl = { 16, 16 };
	int fds = 0, err = 0;

	/* Descriptors inherited from the test leave holes: close them, so the
	 * calls return 3, 4, ... 15 and the sixteenth fails. */
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return die("emfile: setrlimit");
	for (int i = 0; i < 64; i++) {
		if (open("/dev/null", O_RDONLY) < 0) {
			err = errno;
			break;
		}
		fds++;
	}
	printf("emfile pid=%d tid=%d fds=%d errno=%d\n", getpid(), tid(), fds, err);
	return 0;
}

static int nap(long ms)
{
	long long t0 = now_ns();

	nsleep_ms(ms);
	printf("nap pid=%d tid=%d ms=%ld start=%lld end=%lld\n", getpid(), tid(), ms, t0, now_ns());
	return 0;
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "";
	long a = argc > 2 ? strtol(argv[2], NULL, 0) : 0,
	     b = argc > 3 ? strtol(argv[3], NULL, 0) : -1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(s, "crash"))
		return crash();
	if (!strcmp(s, "lockwait"))
		return lockwait(a);
	if (!strcmp(s, "runq"))
		return runq(a, b < 0 ? 0 : b);
	if (!strcmp(s, "dstall"))
		return dstall(a);
	if (!strcmp(s, "faults"))
		return faults(a, b < 1 ? 1 : b);
	if (!strcmp(s, "syscalls"))
		return syscalls(a);
	if (!strcmp(s, "alloc"))
		return alloc(a);
	if (!strcmp(s, "tcpreset"))
		return tcpreset();
	if (!strcmp(s, "emfile"))
		return emfile();
	if (!strcmp(s, "nap"))
		return nap(a);
	fprintf(stderr,
		"usage: exwork crash | lockwait MS | runq MS [CPU] | dstall MS | faults MB [N]"
		" | syscalls N | alloc MB | tcpreset | emfile | nap MS\n");
	return 2;
}
