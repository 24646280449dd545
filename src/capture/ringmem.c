// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "capture/recorder.h"
#include "capture/ringmem.h"
#include "util/util.h"
#include "trigrec_abi.h"

void ringmem_compact(uint64_t main_bytes, struct ringmem_compact *c)
{
	/* compact_layout() in recorder.c: 8 or more segments of at most TRIGREC_CR_MAX_SEG. */
	uint64_t seg = main_bytes / TRIGREC_CR_SPARE_DIV, nseg, spare;

	if (seg > TRIGREC_CR_MAX_SEG)
		seg = TRIGREC_CR_MAX_SEG;
	if (!seg) {
		memset(c, 0, sizeof(*c));
		return;
	}
	nseg = main_bytes / seg;
	spare = nseg / TRIGREC_CR_SPARE_DIV;
	c->map = (nseg + spare) * TRIGREC_CR_ELEM(seg);
	c->copy = 2 * REC_CR_HDR + c->map;
	c->carry = REC_CR_HDR + spare * TRIGREC_CR_ELEM(seg);
}

void ringmem_total(const struct ringmem_need *n, struct ringmem_total *t)
{
	uint64_t cpus = n->nr_cpus > 0 ? (uint64_t)n->nr_cpus : 0;
	uint64_t mains = n->main_rings > 0 ? (uint64_t)n->main_rings : !n->compact;
	struct ringmem_compact c = { 0 };

	if (n->compact)
		ringmem_compact(n->main_pages * n->page_size, &c);
	/* perf maps one control page in front of each ring's data. */
	t->locked = cpus * (mains * (n->main_pages + 1) + n->track_pages + 1) * n->page_size;
	/* The compact map holds every possible CPU's rings, recorded or not. */
	t->rings = t->locked +
		   (uint64_t)(n->compact_cpus > n->nr_cpus ? n->compact_cpus : n->nr_cpus) * c.map;
	t->copies = (uint64_t)n->copies * cpus *
			    ((mains * n->main_pages + n->track_pages) * n->page_size + c.copy) +
		    cpus * c.carry;
	t->total = t->rings + t->copies;
}

static uint64_t mlock_allowed(const struct ringmem_have *h)
{
	if (!h->mlock_limited || h->memlock_rlimit == RINGMEM_UNLIMITED)
		return RINGMEM_UNLIMITED;
	return h->perf_mlock_kb * 1024 * (uint64_t)(h->online_cpus > 0 ? h->online_cpus : 1) +
	       h->memlock_rlimit;
}

/* Which limit does n exceed? 0 none, 1 locked memory, 2 memory cgroup, 3 MemAvailable. */
static int exceeded(const struct ringmem_need *n, const struct ringmem_have *h)
{
	struct ringmem_total t;

	ringmem_total(n, &t);
	if (t.locked > mlock_allowed(h))
		return 1;
	if (h->cg_headroom != RINGMEM_UNLIMITED && t.copies > h->cg_headroom)
		return 2;
	if (h->mem_available && t.total > h->mem_available)
		return 3;
	return 0;
}

/* What would fit: the largest -m on these CPUs, the most CPUs at this -m. */
static void advice(const struct ringmem_need *n, const struct ringmem_have *h, char *out,
		   size_t len)
{
	struct ringmem_need m = *n;
	char sz[32];
	int cpus = 0;

	m.main_pages = 0;
	for (uint64_t p = n->main_pages / 2; p >= 1 && !m.main_pages; p /= 2) {
		struct ringmem_need t = *n;

		t.main_pages = p;
		if (!exceeded(&t, h))
			m.main_pages = p;
	}
	for (int c = n->nr_cpus - 1; c >= 1 && !cpus; c--) {
		struct ringmem_need t = *n;

		t.nr_cpus = c;
		if (!exceeded(&t, h))
			cpus = c;
	}
	if (m.main_pages && cpus)
		snprintf(out, len,
			 "lower -m (-m %s fits on these %d CPUs) or record fewer CPUs "
			 "with -C (at most %d at this -m)",
			 fmt_size(m.main_pages * n->page_size, sz, sizeof(sz)), n->nr_cpus, cpus);
	else if (m.main_pages)
		snprintf(out, len, "lower -m (-m %s fits on these %d CPUs)",
			 fmt_size(m.main_pages * n->page_size, sz, sizeof(sz)), n->nr_cpus);
	else if (cpus)
		snprintf(out, len, "record fewer CPUs with -C (at most %d at this -m)", cpus);
	else
		snprintf(out, len, "even the smallest -m on one CPU does not fit");
}

int ringmem_check(const struct ringmem_need *n, const struct ringmem_have *h, char *msg, size_t len)
{
	struct ringmem_total t;
	char tot[32], rings[32], copies[32], m[32], tr[32], lim[32], lim2[32], fix[160], mp[64];
	int why = exceeded(n, h), mains = n->main_rings > 0 ? n->main_rings : !n->compact;

	ringmem_total(n, &t);
	fmt_size(t.total, tot, sizeof(tot));
	fmt_size(t.rings, rings, sizeof(rings));
	fmt_size(t.copies, copies, sizeof(copies));
	fmt_size(n->main_pages * n->page_size, m, sizeof(m));
	fmt_size(n->track_pages * n->page_size, tr, sizeof(tr));
	/* Each main ring of a CPU (two with ring sets) is -m large and has its control page. */
	if (n->compact) {
		struct ringmem_compact c;
		char cm[32];

		ringmem_compact(n->main_pages * n->page_size, &c);
		snprintf(mp, sizeof(mp), "%s compact%s", fmt_size(c.map, cm, sizeof(cm)),
			 mains ? " + perf's main" : "");
	} else if (mains > 1)
		snprintf(mp, sizeof(mp), "%d x %s main", mains, m);
	else
		snprintf(mp, sizeof(mp), "%s main", m);
	if (why)
		advice(n, h, fix, sizeof(fix));
	switch (why) {
	case 1: {
		uint64_t rl = h->memlock_rlimit, need_kb,
			 cpus = h->online_cpus > 0 ? h->online_cpus : 1;

		if (n->compact) /* the compact map is not locked memory: perf's rings only */
			snprintf(mp, sizeof(mp), "%d x %s main", mains, m);

		need_kb = t.locked > rl ? (t.locked - rl + cpus * 1024 - 1) / (cpus * 1024) : 0;
		fmt_size(t.locked, rings, sizeof(rings));
		snprintf(
			msg, len,
			"-m %s on %d CPU%s needs %s of rings locked in memory (%d x (%s "
			"+ %s tracking + %d control pages)), but without CAP_IPC_LOCK perf lets "
			"this user lock %s (kernel.perf_event_mlock_kb = %llu KiB per CPU x %d online "
			"CPUs, shared by all perf users of the uid, plus RLIMIT_MEMLOCK %s): %s; or "
			"raise the limit (sysctl -w kernel.perf_event_mlock_kb=%llu, or ulimit -l), or "
			"run as root",
			m, n->nr_cpus, n->nr_cpus == 1 ? "" : "s", rings, n->nr_cpus, mp, tr,
			mains + 1, fmt_size(mlock_allowed(h), lim, sizeof(lim)),
			(unsigned long long)h->perf_mlock_kb, (int)cpus,
			fmt_size(rl, lim2, sizeof(lim2)), fix, (unsigned long long)need_kb);
		return -ENOMEM;
	}
	case 2:
		snprintf(msg, len,
			 "-m %s on %d CPU%s needs %s of snapshot copies in trigrec's memory "
			 "(%d sets x %d CPUs x (%s + %s tracking)), but memory cgroup %s lets it "
			 "grow by only %s (limit %s); it would be killed by the OOM killer: %s; or "
			 "raise the cgroup's memory limit",
			 m, n->nr_cpus, n->nr_cpus == 1 ? "" : "s", copies, n->copies, n->nr_cpus,
			 mp, tr, h->cg_path[0] ? h->cg_path : "(ours)",
			 fmt_size(h->cg_headroom, lim, sizeof(lim)),
			 fmt_size(h->cg_limit, lim2, sizeof(lim2)), fix);
		return -ENOMEM;
	case 3:
		snprintf(
			msg, len,
			"-m %s on %d CPU%s needs %s: %s of rings pinned in the kernel "
			"(%d x (%s + %s tracking + %d control pages)) and %s of snapshot copies in "
			"trigrec (%d sets of every ring), but only %s is available (MemAvailable): %s",
			m, n->nr_cpus, n->nr_cpus == 1 ? "" : "s", tot, rings, n->nr_cpus, mp, tr,
			mains + 1, copies, n->copies, fmt_size(h->mem_available, lim, sizeof(lim)),
			fix);
		return -ENOMEM;
	}
	if (h->mem_available && t.total > h->mem_available / 2) {
		snprintf(msg, len,
			 "-m %s on %d CPU%s takes %s (%s of rings pinned in the kernel, %s of "
			 "snapshot copies), more than half of the %s available",
			 m, n->nr_cpus, n->nr_cpus == 1 ? "" : "s", tot, rings, copies,
			 fmt_size(h->mem_available, lim, sizeof(lim)));
		return 1;
	}
	if (len)
		msg[0] = '\0';
	return 0;
}

static int read_u64_file(const char *path, uint64_t *v, int *is_max)
{
	char buf[64];
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	*is_max = !strncmp(buf, "max", 3);
	*v = *is_max ? RINGMEM_UNLIMITED : strtoull(buf, NULL, 10);
	return 0;
}

/*
 * Our memory cgroup's headroom: the smallest limit - usage over it and its
 * ancestors (each level's limit applies). v1 when the memory controller is
 * mounted there, else v2.
 */
static void probe_memcg(struct ringmem_have *h)
{
	char line[4096], rel[PATH_MAX] = "", mnt[PATH_MAX], dir[PATH_MAX * 2];
	FILE *f = fopen("/proc/self/cgroup", "r");
	int v1 = 0, have = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (!strcmp(c1 + 1, "") && !v1) {
			snprintf(rel, sizeof(rel), "%s", c2 + 1);
			have = 1;
		}
		for (char *s = c1 + 1, *tok; (tok = strsep(&s, ","));) {
			if (!strcmp(tok, "memory")) {
				snprintf(rel, sizeof(rel), "%s", c2 + 1);
				v1 = have = 1;
			}
		}
	}
	if (f)
		fclose(f);
	if (!have || !cgroup_mount(!v1, "memory", mnt, sizeof(mnt)))
		return;
	for (;;) {
		char lp[sizeof(dir) + 32], up[sizeof(dir) + 32], *slash;
		uint64_t limit = 0, usage = 0;
		int lmax = 0, umax = 0;

		snprintf(dir, sizeof(dir), "%s%s", mnt, rel);
		snprintf(lp, sizeof(lp), "%s/%s", dir, v1 ? "memory.limit_in_bytes" : "memory.max");
		snprintf(up, sizeof(up), "%s/%s", dir,
			 v1 ? "memory.usage_in_bytes" : "memory.current");
		/* v1 says "no limit" with a huge number, near LLONG_MAX. */
		if (!read_u64_file(lp, &limit, &lmax) && !lmax && limit < (1ULL << 62) &&
		    !read_u64_file(up, &usage, &umax)) {
			uint64_t room = limit > usage ? limit - usage : 0;

			if (room < h->cg_headroom) {
				h->cg_headroom = room;
				h->cg_limit = limit;
				size_t l = strnlen(dir, sizeof(h->cg_path) - 1);

				memcpy(h->cg_path, dir, l);
				h->cg_path[l] = '\0';
			}
		}
		slash = strrchr(rel, '/');
		if (!slash || !rel[0] || !strcmp(rel, "/"))
			break;
		/* The parent; "/a" -> "" (the mount point itself) on the next round. */
		if (slash == rel && rel[1])
			rel[1] = '\0';
		else
			*slash = '\0';
		if (!strcmp(rel, "/"))
			rel[0] = '\0';
	}
}

void ringmem_probe(struct ringmem_have *h)
{
	struct rlimit rl;
	char line[256];
	FILE *f;
	long v;

	memset(h, 0, sizeof(*h));
	h->cg_headroom = RINGMEM_UNLIMITED;
	h->memlock_rlimit = RINGMEM_UNLIMITED;
	f = fopen("/proc/meminfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long kb;

		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
			h->mem_available = kb * 1024;
			break;
		}
	}
	if (f)
		fclose(f);
	probe_memcg(h);
	v = -1;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 2;
		fclose(f);
	}
	h->mlock_limited = !(caps_effective() & CAP_BIT(CAP_NR_IPC_LOCK)) && v > -1;
	h->perf_mlock_kb = 516;
	f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "r");
	if (f) {
		unsigned long long kb;

		if (fscanf(f, "%llu", &kb) == 1)
			h->perf_mlock_kb = kb;
		fclose(f);
	}
	v = sysconf(_SC_NPROCESSORS_ONLN);
	h->online_cpus = v > 0 ? (int)v : 1;
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY)
		h->memlock_rlimit = rl.rlim_cur;
}
