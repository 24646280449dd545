// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * When does a snapshot file appear? File mtimes have the kernel tick's
 * granularity (4 ms here), too coarse for snapshots written in a few ms, so
 * the benchmark watches the output directory instead.
 *
 *   dirwatch DIR
 * Prints "<CLOCK_REALTIME ns> <name>" for every file renamed into DIR (both
 * trigrec and perf publish a finished snapshot by renaming it), line-buffered,
 * until killed. Prints "ready" once the watch is in place.
 */
#include <limits.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/inotify.h>

int main(int argc, char **argv)
{
	char buf[16 * (sizeof(struct inotify_event) + NAME_MAX + 1)];
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: dirwatch DIR\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0 || inotify_add_watch(fd, argv[1], IN_MOVED_TO | IN_CREATE) < 0) {
		perror("dirwatch");
		return 1;
	}
	printf("ready\n");
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		struct timespec ts;

		if (n <= 0)
			return n < 0;
		clock_gettime(CLOCK_REALTIME, &ts);
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *e = (struct inotify_event *)p;

			if (e->len)
				printf("%lld %s\n", ts.tv_sec * 1000000000ll + ts.tv_nsec, e->name);
			p += sizeof(*e) + e->len;
		}
	}
}
