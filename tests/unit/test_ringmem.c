// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests for src/capture/ringmem.c: the memory a recording takes, and when it is refused. */
#include <errno.h>
#include <stdlib.h>
#include "check.h"
#include "capture/ringmem.h"

#define KiB 1024ULL
#define MiB (1024ULL * KiB)
#define GiB (1024ULL * MiB)

static char msg[2048];

/* -m SIZE on `cpus` CPUs, 16 tracking pages, 2 harvest sets, 4 KiB pages. */
static struct ringmem_need need(uint64_t main_bytes, int cpus)
{
	return (struct ringmem_need){ .page_size = 4096,
				      .main_pages = main_bytes / 4096,
				      .track_pages = 16,
				      .nr_cpus = cpus,
				      .copies = 2 };
}

/* A root-like machine: plenty of memory, no cgroup limit, no mlock limit. */
static struct ringmem_have have(uint64_t avail)
{
	return (struct ringmem_have){ .mem_available = avail,
				      .cg_headroom = RINGMEM_UNLIMITED,
				      .perf_mlock_kb = 516,
				      .online_cpus = 2,
				      .memlock_rlimit = 8 * MiB };
}

static int has(const char *s)
{
	return strstr(msg, s) != NULL;
}

TEST(totals)
{
	struct ringmem_need n = need(1 * GiB, 2);
	struct ringmem_total t;

	ringmem_total(&n, &t);
	/* Per CPU: 1 GiB + 64 KiB of data, two control pages; copies: 2 sets of the data. */
	CHECK_EQ(t.rings, 2 * (1 * GiB + 64 * KiB + 2 * 4096));
	CHECK_EQ(t.copies, 2 * 2 * (1 * GiB + 64 * KiB));
	CHECK_EQ(t.total, t.rings + t.copies);
	/* The figure: -m 1G on 64 CPUs is about 192 GiB. */
	n = need(1 * GiB, 64);
	ringmem_total(&n, &t);
	CHECK(t.total > 192 * GiB && t.total < 193 * GiB);
	return 0;
}

/*
 * rings=compact: one BPF map per possible CPU with the main ring of -m and
 * a spare of 1/8 (not two full ring sets), not locked memory; the copies
 * are of both, plus the carry kept between harvests.
 */
TEST(compact_totals)
{
	struct ringmem_need n = need(1 * MiB, 2), sets = need(1 * MiB, 2);
	struct ringmem_have h = have(23 * GiB);
	/* 8 segments of 128 KiB and 1 spare: data, 640 bytes of slack and guard, 32 headers */
	uint64_t elem = 128 * KiB + 640 + 32 * 24, map = 9 * elem;
	struct ringmem_compact c;
	struct ringmem_total t, ts;

	ringmem_compact(1 * MiB, &c);
	CHECK_EQ(c.map, map);
	CHECK_EQ(c.carry, 1056 + elem);
	CHECK_EQ(c.copy, 2 * 1056 + map);
	n.compact = 1;
	n.compact_cpus = 2;
	ringmem_total(&n, &t);
	/* Per CPU: the map, the tracking ring and its control page; nothing of perf's main. */
	CHECK_EQ(t.locked, 2 * (64 * KiB + 4096));
	CHECK_EQ(t.rings, t.locked + 2 * map);
	CHECK_EQ(t.copies, 2 * 2 * (64 * KiB + 2 * 1056 + map) + 2 * (1056 + elem));
	/* 1.16x -m per CPU in the kernel, against 2x for the ring sets. */
	sets.main_rings = 2;
	ringmem_total(&sets, &ts);
	CHECK(t.rings < ts.rings * 6 / 10);
	/* The map has every possible CPU, recorded or not (-C 0 of 64). */
	n.nr_cpus = 1;
	n.compact_cpus = 64;
	ringmem_total(&n, &t);
	CHECK_EQ(t.rings, (64 * KiB + 4096) + 64 * map);
	/* Not perf's locked memory: 64 MiB per CPU passes a 516 KiB perf_event_mlock_kb. */
	n = need(64 * MiB, 2);
	n.compact = 1;
	n.compact_cpus = 2;
	h.mlock_limited = 1;
	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), 0);
	sets = need(64 * MiB, 2);
	sets.main_rings = 2;
	CHECK_EQ(ringmem_check(&sets, &h, msg, sizeof(msg)), -ENOMEM);
	/* Refused for MemAvailable, the message names the compact map. */
	h = have(256 * MiB);
	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), -ENOMEM);
	CHECK(has("compact"));
	return 0;
}

TEST(fits)
{
	struct ringmem_need n = need(1 * MiB, 2);
	struct ringmem_have h = have(23 * GiB);

	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), 0);
	CHECK_STR(msg, "");
	/* -m 1G on 2 CPUs (6 GiB) on this 24 GiB VM: accepted without a word. */
	n = need(1 * GiB, 2);
	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), 0);
	/* Unknown MemAvailable (0) never refuses. */
	h.mem_available = 0;
	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), 0);
	return 0;
}

TEST(mem_available)
{
	struct ringmem_need n = need(1 * GiB, 64);
	struct ringmem_have h = have(23 * GiB);

	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), -ENOMEM);
	/* The total, its parts, the limit, and what fits. */
	CHECK(has("-m 1 GiB on 64 CPUs needs 192.0 GiB"));
	CHECK(has(
		"64.0 GiB of rings pinned in the kernel (64 x (1 GiB main + 64 KiB tracking + 2 control pages))"));
	CHECK(has("128.0 GiB of snapshot copies in trigrec (2 sets of every ring)"));
	CHECK(has("only 23 GiB is available (MemAvailable)"));
	/* 64 CPUs x 64 MiB x 3 = 12 GiB fits in 23 GiB; 128 MiB (24 GiB) does not. */
	CHECK(has("-m 64 MiB fits on these 64 CPUs"));
	/* 7 CPUs x 3 GiB = 21 GiB fits, 8 = 24 GiB does not. */
	CHECK(has("at most 7 at this -m"));
	return 0;
}

TEST(warns_above_half)
{
	struct ringmem_need n = need(1 * GiB, 2);
	struct ringmem_have h = have(10 * GiB);

	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), 1);
	CHECK(has("takes 6.0 GiB"));
	CHECK(has("more than half of the 10 GiB available"));
	return 0;
}

TEST(mlock_limit)
{
	struct ringmem_need n = need(8 * MiB, 2);
	struct ringmem_have h = have(23 * GiB);

	/* Root-like (CAP_IPC_LOCK): no limit. */
	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), 0);
	/* Without it: 516 KiB x 2 CPUs + 8 MiB = 9.0 MiB, rings take 16.1 MiB. */
	h.mlock_limited = 1;
	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), -ENOMEM);
	CHECK(has("-m 8 MiB on 2 CPUs needs 16.1 MiB of rings locked in memory"));
	CHECK(has("perf lets this user lock 9.0 MiB"));
	CHECK(has("kernel.perf_event_mlock_kb = 516 KiB per CPU x 2 online CPUs"));
	CHECK(has("RLIMIT_MEMLOCK 8 MiB"));
	/* 4 MiB rings: 2 x (4 MiB + 72 KiB) = 8.1 MiB fits in 9.0. */
	CHECK(has("-m 4 MiB fits on these 2 CPUs"));
	CHECK(has("at most 1 at this -m"));
	/* What the sysctl must be for the whole -m: (16.1 MiB - 8 MiB) / 2 CPUs, in KiB, rounded up. */
	CHECK(has("sysctl -w kernel.perf_event_mlock_kb=4168"));
	/* An unlimited RLIMIT_MEMLOCK lifts the limit. */
	h.memlock_rlimit = RINGMEM_UNLIMITED;
	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), 0);
	/* A larger sysctl too. */
	h.memlock_rlimit = 0;
	h.perf_mlock_kb = 8300;
	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), 0);
	return 0;
}

/* Ring sets: two -m rings per CPU, each with its control page, in the breakdown too. */
TEST(ring_sets_breakdown)
{
	struct ringmem_need n = need(1 * GiB, 64);
	struct ringmem_have h = have(23 * GiB);

	n.main_rings = 2;
	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), -ENOMEM);
	CHECK(has(
		"128.0 GiB of rings pinned in the kernel (64 x (2 x 1 GiB main + 64 KiB tracking + 3 control pages))"));
	CHECK(has("256.0 GiB of snapshot copies in trigrec (2 sets of every ring)"));
	return 0;
}

TEST(memory_cgroup)
{
	struct ringmem_need n = need(64 * MiB, 2);
	struct ringmem_have h = have(23 * GiB);

	h.cg_limit = 128 * MiB;
	h.cg_headroom = 118 * MiB;
	snprintf(h.cg_path, sizeof(h.cg_path), "/sys/fs/cgroup/memory/t");
	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), -ENOMEM);
	/* Only the copies are charged to the cgroup: 2 x 2 x (64 MiB + 64 KiB). */
	CHECK(has(
		"needs 256.2 MiB of snapshot copies in trigrec's memory (2 sets x 2 CPUs x (64 MiB main + 64 KiB tracking))"));
	CHECK(has(
		"memory cgroup /sys/fs/cgroup/memory/t lets it grow by only 118 MiB (limit 128 MiB)"));
	CHECK(has("-m 16 MiB fits on these 2 CPUs"));
	/* 1 CPU: 2 x 64 MiB = 128 MiB > 118 MiB: no CPU count fits at this -m. */
	CHECK(!has("at most"));
	h.cg_headroom = 300 * MiB;
	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), 0);
	return 0;
}

TEST(nothing_fits)
{
	struct ringmem_need n = need(8 * KiB, 1);
	struct ringmem_have h = have(64 * KiB);

	CHECK_EQ(ringmem_check(&n, &h, msg, sizeof(msg)), -ENOMEM);
	CHECK(has("even the smallest -m on one CPU does not fit"));
	return 0;
}

TEST(probe_this_machine)
{
	struct ringmem_have h;

	ringmem_probe(&h);
	CHECK(h.mem_available > 0);
	CHECK(h.online_cpus >= 1);
	CHECK(h.perf_mlock_kb > 0);
	CHECK(h.cg_headroom == RINGMEM_UNLIMITED || h.cg_path[0]);
	return 0;
}

RUN_TESTS(T(totals), T(compact_totals), T(fits), T(mem_available), T(warns_above_half),
	  T(mlock_limit), T(ring_sets_breakdown), T(memory_cgroup), T(nothing_fits),
	  T(probe_this_machine))
