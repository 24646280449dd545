// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests for src/util/util.c: value parsers, CPU lists, edit distance, formatting. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdarg.h>
#include "check.h"
#include "util/log.h"
#include "util/util.h"

static char err[256];

/* Parse must succeed with the given value and leave err alone. */
#define SIZE_OK(s, v)                                              \
	do {                                                       \
		uint64_t _v = 0;                                   \
		err[0] = '\0';                                     \
		CHECK_EQ(parse_size(s, &_v, err, sizeof(err)), 0); \
		CHECK_EQ(_v, v);                                   \
		CHECK_STR(err, "");                                \
	} while (0)
/* Parse must fail with exactly this message, and leave the output untouched. */
#define SIZE_BAD(s, msg)                                                 \
	do {                                                             \
		uint64_t _v = 42;                                        \
		err[0] = '\0';                                           \
		CHECK_EQ(parse_size(s, &_v, err, sizeof(err)), -EINVAL); \
		CHECK_STR(err, msg);                                     \
		CHECK_EQ(_v, 42);                                        \
	} while (0)

TEST(size_plain_and_units)
{
	SIZE_OK("65536", 65536);
	SIZE_OK("1", 1);
	SIZE_OK("512K", 512 * 1024);
	SIZE_OK("512k", 512 * 1024);
	SIZE_OK("4M", 4ULL << 20);
	SIZE_OK("4m", 4ULL << 20);
	SIZE_OK("1G", 1ULL << 30);
	SIZE_OK("1g", 1ULL << 30);
	SIZE_OK("100B", 100);
	SIZE_OK("100b", 100);
	SIZE_OK("2KB", 2048);
	SIZE_OK("2KiB", 2048);
	SIZE_OK("2kib", 2048);
	SIZE_OK("2KIB", 2048);
	SIZE_OK("3MiB", 3ULL << 20);
	SIZE_OK("3mb", 3ULL << 20);
	SIZE_OK("5GiB", 5ULL << 30);
	SIZE_OK("16G", 16ULL << 30);
	SIZE_OK(" 8M ", 8ULL << 20);
	SIZE_OK("8 M", 8ULL << 20);
	SIZE_OK("+8K", 8192);
	SIZE_OK("007", 7);
	SIZE_OK("18446744073709551615", UINT64_MAX);
	SIZE_OK("17179869183G", 17179869183ULL << 30);
	return 0;
}

TEST(size_errors)
{
	SIZE_BAD("12Q", "'12Q': unknown unit 'Q' (use K, M or G)");
	SIZE_BAD("4T", "'4T': unknown unit 'T' (use K, M or G)");
	SIZE_BAD("4MX", "'4MX': unknown unit 'MX' (use K, M or G)");
	SIZE_BAD("4kibi", "'4kibi': unknown unit 'kibi' (use K, M or G)");
	SIZE_BAD("0x100", "'0x100': unknown unit 'x100' (use K, M or G)");
	SIZE_BAD("0", "'0': size must be greater than 0");
	SIZE_BAD("0K", "'0K': size must be greater than 0");
	SIZE_BAD("-4M", "'-4M': a size cannot be negative");
	SIZE_BAD(" -1", "' -1': a size cannot be negative");
	SIZE_BAD("", "empty size (expected e.g. 512K, 4M or 1G)");
	SIZE_BAD("   ", "empty size (expected e.g. 512K, 4M or 1G)");
	SIZE_BAD(NULL, "empty size (expected e.g. 512K, 4M or 1G)");
	SIZE_BAD("M",
		 "'M': not a size (expected a number with an optional unit, e.g. 512K, 4M or 1G)");
	SIZE_BAD(
		"abc",
		"'abc': not a size (expected a number with an optional unit, e.g. 512K, 4M or 1G)");
	SIZE_BAD(
		"1.5M",
		"'1.5M': fractional sizes are not supported (use a whole number in a smaller unit, e.g. 1536K rather than 1.5M)");
	/* Overflow: in the digits, and in the unit multiplication. */
	SIZE_BAD("18446744073709551616",
		 "'18446744073709551616': size too large (it does not fit in 64 bits)");
	SIZE_BAD("99999999999999999999999K",
		 "'99999999999999999999999K': size too large (it does not fit in 64 bits)");
	SIZE_BAD("17179869184G", "'17179869184G': size too large (it does not fit in 64 bits)");
	SIZE_BAD("18014398509481984K",
		 "'18014398509481984K': size too large (it does not fit in 64 bits)");
	return 0;
}

TEST(size_err_buffer_edge_cases)
{
	uint64_t v;
	char tiny[8];
	char longin[300];

	/* NULL / zero-length err buffers are allowed. */
	CHECK_EQ(parse_size("1Q", &v, NULL, 0), -EINVAL);
	CHECK_EQ(parse_size("1Q", &v, tiny, 0), -EINVAL);
	/* A small buffer is truncated, still NUL-terminated. */
	CHECK_EQ(parse_size("12Q", &v, tiny, sizeof(tiny)), -EINVAL);
	CHECK_STR(tiny, "'12Q': ");
	/* Very long inputs are cut in the message so it stays one short line. */
	memset(longin, '7', sizeof(longin) - 2);
	longin[sizeof(longin) - 2] = 'Q';
	longin[sizeof(longin) - 1] = '\0';
	CHECK_EQ(parse_size(longin, &v, err, sizeof(err)), -EINVAL);
	CHECK(strlen(err) < 200);
	CHECK(!strchr(err, '\n'));
	return 0;
}

#define PAGES_OK(s, v)                                                   \
	do {                                                             \
		uint64_t _v = 0;                                         \
		err[0] = '\0';                                           \
		CHECK_EQ(parse_mmap_pages(s, &_v, err, sizeof(err)), 0); \
		CHECK_EQ(_v, v);                                         \
		CHECK_STR(err, "");                                      \
	} while (0)
#define PAGES_BAD(s, msg)                                                      \
	do {                                                                   \
		uint64_t _v = 42;                                              \
		err[0] = '\0';                                                 \
		CHECK_EQ(parse_mmap_pages(s, &_v, err, sizeof(err)), -EINVAL); \
		CHECK_STR(err, msg);                                           \
		CHECK_EQ(_v, 42);                                              \
	} while (0)

TEST(mmap_pages)
{
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
	char buf[64];

	/* Plain numbers are pages. */
	PAGES_OK("128", 128);
	PAGES_OK(" 64 ", 64);
	PAGES_OK("1024", 1024);
	/* With a unit: bytes rounded up to a power-of-two number of pages. */
	PAGES_OK("1G", (1ULL << 30) / ps);
	PAGES_OK("16K", 16384 / ps > 1 ? 16384 / ps : 1);
	snprintf(buf, sizeof(buf), "%lluB", (unsigned long long)ps * 4);
	PAGES_OK(buf, 4);
	snprintf(buf, sizeof(buf), "%lluB", (unsigned long long)ps * 4 + 1);
	PAGES_OK(buf, 8);
	snprintf(buf, sizeof(buf), "%lluB", (unsigned long long)ps * 5);
	PAGES_OK(buf, 8);
	if (ps == 4096) {
		PAGES_OK("4", 4);
		PAGES_OK("512K", 128);
		PAGES_OK("4M", 1024);
		PAGES_OK("4m", 1024);
		PAGES_OK("100K", 32); /* 25 pages -> 32 */
		PAGES_OK("3M", 1024); /* 768 pages -> 1024 */
		PAGES_OK("16KiB", 4);
		PAGES_OK("262144", 262144);
		PAGES_BAD("262145", "'262145': too many pages (at most 262144 pages = 1G per CPU)");
		PAGES_BAD("524288", "'524288': too many pages (at most 262144 pages = 1G per CPU)");
	}
	return 0;
}

/* Below the smallest ring (16K): refused with the minimum, never rounded up to it. */
TEST(mmap_pages_minimum)
{
	static const struct {
		const char *in, *err;
	} cases[] = {
		{ "1K",
		  "'1K': below the smallest ring, 16K per CPU (two of the largest records must fit): give at least 16K" },
		{ "1B",
		  "'1B': below the smallest ring, 16K per CPU (two of the largest records must fit): give at least 16K" },
		{ "15K",
		  "'15K': below the smallest ring, 16K per CPU (two of the largest records must fit): give at least 16K" },
		{ "4096B",
		  "'4096B': below the smallest ring, 16K per CPU (two of the largest records must fit): give at least 16K" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		PAGES_BAD(cases[i].in, cases[i].err);
	if (sysconf(_SC_PAGESIZE) == 4096) {
		PAGES_BAD(
			"1",
			"'1': 1 page (4 KiB) is below the smallest ring, 16 KiB per CPU (two of the largest records must fit): give at least 4 pages or 16K");
		PAGES_BAD(
			"2",
			"'2': 2 pages (8 KiB) is below the smallest ring, 16 KiB per CPU (two of the largest records must fit): give at least 4 pages or 16K");
	}
	return 0;
}

/* Writable is found by writing; a missing directory as mkdir -p would make it. */
TEST(dir_writable_and_mkdir_p)
{
	char dir[] = "/tmp/trigrec-test-dir.XXXXXX", p[512], f[256];
	int missing = -1, fd;

	CHECK(mkdtemp(dir) != NULL);
	CHECK_EQ(dir_check_writable(dir, &missing, err, sizeof(err)), 0);
	CHECK_EQ(missing, 0);
	snprintf(p, sizeof(p), "%s/a/b/c", dir);
	CHECK_EQ(dir_check_writable(p, &missing, err, sizeof(err)), 0);
	CHECK_EQ(missing, 1);
	/* The test entries are gone: only what mkdir_p makes is there. */
	snprintf(f, sizeof(f), "ls -A %s | grep -q .", dir);
	CHECK(system(f) != 0);
	CHECK_EQ(mkdir_p(p, 0700), 0);
	CHECK_EQ(mkdir_p(p, 0700), 0); /* exists: fine */
	CHECK_EQ(dir_check_writable(p, &missing, err, sizeof(err)), 0);
	CHECK_EQ(missing, 0);
	/* A file on the way. */
	snprintf(f, sizeof(f), "%s/file", dir);
	fd = open(f, O_CREAT | O_WRONLY, 0600);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(dir_check_writable(f, &missing, err, sizeof(err)), -ENOTDIR);
	snprintf(p, sizeof(p), "%s is not a directory", f);
	CHECK_STR(err, p);
	snprintf(p, sizeof(p), "%s/x/y", f);
	CHECK_EQ(dir_check_writable(p, &missing, err, sizeof(err)), -ENOTDIR);
	CHECK(strstr(err, "is not a directory") != NULL);
	CHECK(strstr(err, f) != NULL);
	CHECK(mkdir_p(p, 0700) < 0);
	/* /proc/self passes access(W_OK) for root, but takes no file: named. */
	CHECK(dir_check_writable("/proc/self", &missing, err, sizeof(err)) < 0);
	CHECK(strstr(err,
		     "/proc/self is not writable: cannot create /proc/self/.trigrec-write-test.") ==
	      err);
	unlink(f);
	snprintf(f, sizeof(f), "rm -r %s", dir);
	CHECK_EQ(system(f), 0);
	return 0;
}

TEST(mmap_pages_errors)
{
	PAGES_BAD(
		"3",
		"'3': the number of pages must be a power of two (e.g. 2 or 4), or give a size such as 512K");
	PAGES_BAD(
		"100",
		"'100': the number of pages must be a power of two (e.g. 64 or 128), or give a size such as 512K");
	PAGES_BAD(
		"0",
		"'0': need at least 1 page (use a power of two such as 1, 2 or 4, or a size such as 512K)");
	PAGES_BAD(
		"00",
		"'00': need at least 1 page (use a power of two such as 1, 2 or 4, or a size such as 512K)");
	PAGES_BAD("0K", "'0K': size must be greater than 0");
	PAGES_BAD("-8", "'-8': a size cannot be negative");
	PAGES_BAD("", "empty size (expected e.g. 512K, 4M or 1G)");
	PAGES_BAD("2G", "'2G': buffer too large (at most 1G per CPU)");
	PAGES_BAD("1025M", "'1025M': buffer too large (at most 1G per CPU)");
	PAGES_BAD("4Z", "'4Z': unknown unit 'Z' (use K, M or G)");
	PAGES_BAD("99999999999999999999",
		  "'99999999999999999999': size too large (it does not fit in 64 bits)");
	return 0;
}

#define DUR_OK(s, v)                                                   \
	do {                                                           \
		uint64_t _v = 0;                                       \
		err[0] = '\0';                                         \
		CHECK_EQ(parse_duration(s, &_v, err, sizeof(err)), 0); \
		CHECK_EQ(_v, v);                                       \
		CHECK_STR(err, "");                                    \
	} while (0)
#define DUR_BAD(s, msg)                                                      \
	do {                                                                 \
		uint64_t _v = 42;                                            \
		err[0] = '\0';                                               \
		CHECK_EQ(parse_duration(s, &_v, err, sizeof(err)), -EINVAL); \
		CHECK_STR(err, msg);                                         \
		CHECK_EQ(_v, 42);                                            \
	} while (0)

TEST(duration_units)
{
	DUR_OK("100ns", 100);
	DUR_OK("250us", 250000);
	DUR_OK("250\xc2\xb5s", 250000);
	DUR_OK("250\xce\xbcs", 250000);
	DUR_OK("10ms", 10000000);
	DUR_OK("1s", 1000000000ULL);
	DUR_OK("2min", 120000000000ULL);
	DUR_OK("1h", 3600000000000ULL);
	DUR_OK("7d", 7 * 86400000000000ULL);
	DUR_OK("0s", 0);
	DUR_OK("0ns", 0);
	DUR_OK(" 5 ms ", 5000000);
	DUR_OK("+5ms", 5000000);
	/* Decimals are exact, no floating point rounding. */
	DUR_OK("1.5ms", 1500000);
	DUR_OK("1.5s", 1500000000ULL);
	DUR_OK("0.1s", 100000000ULL);
	DUR_OK(".5s", 500000000ULL);
	DUR_OK("5.s", 5000000000ULL);
	DUR_OK("0.001ms", 1000);
	DUR_OK("1.000000001s", 1000000001ULL);
	DUR_OK("2.5h", 9000000000000ULL);
	DUR_OK("0.25min", 15000000000ULL);
	DUR_OK("1.000ns", 1);
	DUR_OK("18446744073709551615ns", UINT64_MAX);
	DUR_OK("18446744073s", 18446744073000000000ULL);
	return 0;
}

/*
 * One table for every duration trigrec reads (command line, scripts,
 * triggers, budgets): units are lower-case and each means one thing.
 */
TEST(duration_unit_table)
{
	static const struct {
		const char *in;
		uint64_t ns; /* when err is NULL */
		const char *err;
	} cases[] = {
		{ "1min", 60000000000ULL, NULL },
		{ "1 min", 60000000000ULL, NULL },
		{ "2minute", 120000000000ULL, NULL },
		{ "50 ms", 50000000, NULL },
		{ "10 ms", 10000000, NULL },
		{ "3sec", 3000000000ULL, NULL },
		{ "1hour", 3600000000000ULL, NULL },
		{ "1day", 86400000000000ULL, NULL },
		{ "1.5 h", 5400000000000ULL, NULL },
		{ "1m", 0,
		  "'1m': 'm' is ambiguous in a duration: write 1min for minutes or 1ms for milliseconds" },
		{ "1.5 m", 0,
		  "'1.5 m': 'm' is ambiguous in a duration: write 1.5min for minutes or 1.5ms for milliseconds" },
		{ "1M", 0,
		  "'1M': 'M' is not a unit of time (it is a mebibyte in sizes): did you mean 1ms or 1min?" },
		{ "50mS", 0, "'50mS': units are lower-case: write 50ms" },
		{ "50MS", 0, "'50MS': units are lower-case: write 50ms" },
		{ "3S", 0, "'3S': units are lower-case: write 3s" },
		{ "2Min", 0, "'2Min': units are lower-case: write 2min" },
		{ "1H", 0, "'1H': units are lower-case: write 1h" },
		{ "7D", 0, "'7D': units are lower-case: write 7d" },
		{ "5US", 0, "'5US': units are lower-case: write 5us" },
		{ "5 mins", 0, "'5 mins': unknown unit 'mins' (use ns, us, ms, s, min, h or d)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].err)
			DUR_BAD(cases[i].in, cases[i].err);
		else
			DUR_OK(cases[i].in, cases[i].ns);
	}
	return 0;
}

/* A period is a duration, or a unit alone meaning one of it. */
TEST(period_words)
{
	static const struct {
		const char *in;
		uint64_t ns; /* when err is NULL */
		const char *err;
	} cases[] = {
		{ "min", 60000000000ULL, NULL },
		{ "minute", 60000000000ULL, NULL },
		{ "s", 1000000000ULL, NULL },
		{ "sec", 1000000000ULL, NULL },
		{ "hour", 3600000000000ULL, NULL },
		{ "h", 3600000000000ULL, NULL },
		{ "day", 86400000000000ULL, NULL },
		{ "30s", 30000000000ULL, NULL },
		{ "1min", 60000000000ULL, NULL },
		{ "m", 0,
		  "'m': not a duration (expected a number and a unit, e.g. 10ms, 1.5s or 2min)" },
		{ "5m", 0,
		  "'5m': 'm' is ambiguous in a duration: write 5min for minutes or 5ms for milliseconds" },
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 42;
		err[0] = '\0';
		if (cases[i].err) {
			CHECK_EQ(parse_period(cases[i].in, &v, err, sizeof(err)), -EINVAL);
			CHECK_STR(err, cases[i].err);
			CHECK_EQ(v, 42);
		} else {
			CHECK_EQ(parse_period(cases[i].in, &v, err, sizeof(err)), 0);
			CHECK_EQ(v, cases[i].ns);
		}
	}
	return 0;
}

TEST(duration_errors)
{
	DUR_BAD("10", "'10': missing unit (add a unit, e.g. 10ms)");
	DUR_BAD("1.5", "'1.5': missing unit (add a unit, e.g. 1.5ms)");
	DUR_BAD(" 7 ", "' 7 ': missing unit (add a unit, e.g. 7ms)");
	DUR_BAD("10x", "'10x': unknown unit 'x' (use ns, us, ms, s, min, h or d)");
	DUR_BAD("10secs", "'10secs': unknown unit 'secs' (use ns, us, ms, s, min, h or d)");
	DUR_BAD("10 w", "'10 w': unknown unit 'w' (use ns, us, ms, s, min, h or d)");
	DUR_BAD("-5ms", "'-5ms': a duration cannot be negative");
	DUR_BAD("", "empty duration (expected e.g. 10ms, 1.5s or 2min)");
	DUR_BAD(NULL, "empty duration (expected e.g. 10ms, 1.5s or 2min)");
	DUR_BAD("ms",
		"'ms': not a duration (expected a number and a unit, e.g. 10ms, 1.5s or 2min)");
	DUR_BAD(".s",
		"'.s': not a duration (expected a number and a unit, e.g. 10ms, 1.5s or 2min)");
	DUR_BAD("1.2.3s", "'1.2.3s': unknown unit '.3s' (use ns, us, ms, s, min, h or d)");
	DUR_BAD("0.5ns", "'0.5ns': finer than the 1ns resolution");
	DUR_BAD("1.0000000001s", "'1.0000000001s': finer than the 1ns resolution");
	DUR_BAD("0.0000000000000000001s", "'0.0000000000000000001s': too many decimal places");
	DUR_BAD("18446744073709551616ns",
		"'18446744073709551616ns': duration too large (must be under 584 years)");
	DUR_BAD("18446744074s", "'18446744074s': duration too large (must be under 584 years)");
	DUR_BAD("99999999999h", "'99999999999h': duration too large (must be under 584 years)");
	return 0;
}

#define U64_OK(s, lo, hi, v)                                              \
	do {                                                              \
		uint64_t _v = 0;                                          \
		err[0] = '\0';                                            \
		CHECK_EQ(parse_u64(s, lo, hi, &_v, err, sizeof(err)), 0); \
		CHECK_EQ(_v, v);                                          \
		CHECK_STR(err, "");                                       \
	} while (0)
#define U64_BAD(s, lo, hi, msg)                                                 \
	do {                                                                    \
		uint64_t _v = 42;                                               \
		err[0] = '\0';                                                  \
		CHECK_EQ(parse_u64(s, lo, hi, &_v, err, sizeof(err)), -EINVAL); \
		CHECK_STR(err, msg);                                            \
		CHECK_EQ(_v, 42);                                               \
	} while (0)

TEST(u64_parse)
{
	U64_OK("0", 0, 10, 0);
	U64_OK("10", 0, 10, 10);
	U64_OK("010", 0, 100, 10); /* decimal, not octal */
	U64_OK("0x10", 0, 100, 16);
	U64_OK("0XfF", 0, 1000, 255);
	U64_OK(" 42 ", 0, 100, 42);
	U64_OK("18446744073709551615", 0, UINT64_MAX, UINT64_MAX);
	U64_OK("0xffffffffffffffff", 0, UINT64_MAX, UINT64_MAX);
	U64_OK("5", 5, 5, 5);
	return 0;
}

TEST(u64_errors)
{
	U64_BAD("", 0, 10, "empty value (expected a number)");
	U64_BAD(NULL, 0, 10, "empty value (expected a number)");
	U64_BAD("-1", 0, 10, "'-1': must not be negative");
	U64_BAD("abc", 0, 10, "'abc': not a number (expected decimal, or hex with 0x)");
	U64_BAD("12abc", 0, 100, "'12abc': not a number (expected decimal, or hex with 0x)");
	U64_BAD("0x", 0, 100, "'0x': not a number (expected decimal, or hex with 0x)");
	U64_BAD("0xg", 0, 100, "'0xg': not a number (expected decimal, or hex with 0x)");
	U64_BAD("1.5", 0, 100, "'1.5': not a number (expected decimal, or hex with 0x)");
	U64_BAD("11", 0, 10, "'11': must be between 0 and 10");
	U64_BAD("4", 5, 10, "'4': must be between 5 and 10");
	U64_BAD("0", 1, UINT64_MAX, "'0': must be at least 1");
	U64_BAD("18446744073709551616", 0, UINT64_MAX,
		"'18446744073709551616': must be at least 0 and fit in 64 bits");
	U64_BAD("0x10000000000000000", 0, UINT64_MAX,
		"'0x10000000000000000': must be at least 0 and fit in 64 bits");
	U64_BAD("99999999999999999999", 0, 1000,
		"'99999999999999999999': must be between 0 and 1000");
	return 0;
}

static int mask_is(const unsigned char *m, int n, const char *want)
{
	for (int i = 0; i < n; i++)
		if (m[i] != (want[i] == '1'))
			return 0;
	return 1;
}

#define CPUS_OK(s, n, want)                                             \
	do {                                                            \
		unsigned char _m[64];                                   \
		memset(_m, 7, sizeof(_m));                              \
		err[0] = '\0';                                          \
		CHECK_EQ(parse_cpulist(s, _m, n, err, sizeof(err)), 0); \
		CHECK(mask_is(_m, n, want));                            \
		CHECK_STR(err, "");                                     \
	} while (0)
#define CPUS_BAD(s, n, msg)                                                   \
	do {                                                                  \
		unsigned char _m[64];                                         \
		err[0] = '\0';                                                \
		CHECK_EQ(parse_cpulist(s, _m, n, err, sizeof(err)), -EINVAL); \
		CHECK_STR(err, msg);                                          \
	} while (0)

TEST(cpulist_parse)
{
	CPUS_OK("0", 8, "10000000");
	CPUS_OK("7", 8, "00000001");
	CPUS_OK("0-3", 8, "11110000");
	CPUS_OK("0-3,5", 8, "11110100");
	CPUS_OK("0-3,5,7-7", 8, "11110101");
	CPUS_OK("1,1,1-2", 8, "01100000");
	CPUS_OK(" 2 - 3 , 6 ", 8, "00110010");
	CPUS_OK("5,0", 8, "10000100");
	CPUS_OK("0-63", 64, "1111111111111111111111111111111111111111111111111111111111111111");
	/* Entries past max_cpus are left alone (the test poisons them with 7). */
	{
		unsigned char m[4] = { 7, 7, 7, 7 };

		CHECK_EQ(parse_cpulist("1", m, 2, err, sizeof(err)), 0);
		CHECK_EQ(m[0], 0);
		CHECK_EQ(m[1], 1);
		CHECK_EQ(m[2], 7);
	}
	return 0;
}

TEST(cpulist_errors)
{
	CPUS_BAD("3-1", 8, "'3-1': reversed range 3-1 (write 1-3)");
	CPUS_BAD("0,5-2", 8, "'0,5-2': reversed range 5-2 (write 2-5)");
	CPUS_BAD("8", 8, "'8': CPU 8 does not exist (this system has 8 possible CPUs 0-7)");
	CPUS_BAD("0-9", 8, "'0-9': CPU 8 does not exist (this system has 8 possible CPUs 0-7)");
	CPUS_BAD("0-3,12-15", 8,
		 "'0-3,12-15': CPU 12 does not exist (this system has 8 possible CPUs 0-7)");
	CPUS_BAD("1", 1, "'1': CPU 1 does not exist (this system has 1 possible CPU 0)");
	CPUS_BAD(
		"99999999999999999999", 8,
		"'99999999999999999999': CPU number too large (this system has 8 possible CPUs 0-7)");
	CPUS_BAD("", 8, "empty CPU list (expected e.g. 0-3,5)");
	CPUS_BAD(NULL, 8, "empty CPU list (expected e.g. 0-3,5)");
	CPUS_BAD("0,", 8, "'0,': empty entry in CPU list (expected e.g. 0-3,5)");
	CPUS_BAD(",1", 8, "',1': empty entry in CPU list (expected e.g. 0-3,5)");
	CPUS_BAD("0,,1", 8, "'0,,1': empty entry in CPU list (expected e.g. 0-3,5)");
	CPUS_BAD("0-", 8, "'0-': bad CPU list at '' (expected e.g. 0-3,5)");
	CPUS_BAD("-1", 8, "'-1': bad CPU list at '-1' (expected e.g. 0-3,5)");
	CPUS_BAD("a", 8, "'a': bad CPU list at 'a' (expected e.g. 0-3,5)");
	CPUS_BAD("0-3x", 8, "'0-3x': bad CPU list at 'x' (expected e.g. 0-3,5)");
	CPUS_BAD("1 2", 8, "'1 2': bad CPU list at '2' (expected e.g. 0-3,5)");
	CPUS_BAD("0;1", 8, "'0;1': bad CPU list at ';1' (expected e.g. 0-3,5)");
	CPUS_BAD("0", 0, "internal error: no CPUs to choose from (max_cpus=0)");
	return 0;
}

TEST(cpus_possible_and_online)
{
	int n = cpus_possible(), on;
	long conf = sysconf(_SC_NPROCESSORS_CONF), onl = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned char *mask;

	CHECK(n >= 1);
	/* possible >= configured >= online */
	CHECK(n >= conf);
	CHECK_EQ(cpus_possible(), n); /* cached, stable */
	mask = calloc((size_t)n + 1, 1);
	CHECK(mask != NULL);
	if (!mask)
		return 1;
	mask[n] = 9;
	on = cpus_online_mask(mask, n);
	CHECK(on >= 1);
	CHECK_EQ(on, onl);
	CHECK_EQ(mask[n], 9); /* writes stay within max_cpus */
	{
		int c = 0;

		for (int i = 0; i < n; i++)
			c += mask[i];
		CHECK_EQ(c, on);
	}
	/* A too-small mask truncates rather than overflowing. */
	CHECK(cpus_online_mask(mask, 1) <= 1);
	CHECK_EQ(cpus_online_mask(mask, 0), -EINVAL);
	CHECK_EQ(cpus_online_mask(NULL, 4), -EINVAL);
	/* The calling CPU must be online. */
	{
		int cpu = sched_getcpu();

		if (cpu >= 0 && cpu < n) {
			CHECK_EQ(cpus_online_mask(mask, n), on);
			CHECK_EQ(mask[cpu], 1);
		}
	}
	free(mask);
	return 0;
}

TEST(edit_distance_cases)
{
	char a[400], b[400];

	CHECK_EQ(edit_distance("", ""), 0);
	CHECK_EQ(edit_distance("abc", ""), 3);
	CHECK_EQ(edit_distance("", "abc"), 3);
	CHECK_EQ(edit_distance("abc", "abc"), 0);
	CHECK_EQ(edit_distance("kitten", "sitting"), 3);
	CHECK_EQ(edit_distance("sitting", "kitten"), 3);
	CHECK_EQ(edit_distance("sched_swich", "sched_switch"), 1);
	CHECK_EQ(edit_distance("sched:sched_switch", "sched:sched_swich"), 1);
	CHECK_EQ(edit_distance("ab", "ba"), 2); /* plain Levenshtein: no transposition */
	CHECK_EQ(edit_distance("flaw", "lawn"), 2);
	CHECK_EQ(edit_distance("a", "b"), 1);
	/* Long strings take the heap path. */
	memset(a, 'x', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(b));
	b[100] = 'y';
	b[300] = 'z';
	CHECK_EQ(edit_distance(a, b), 2);
	CHECK_EQ(edit_distance(a, "x"), (int)sizeof(a) - 2);
	CHECK_EQ(edit_distance("x", a), (int)sizeof(a) - 2);
	return 0;
}

TEST(fmt_duration_cases)
{
	char buf[32];

	CHECK_STR(fmt_duration(0, buf, sizeof(buf)), "0 ns");
	CHECK_STR(fmt_duration(999, buf, sizeof(buf)), "999 ns");
	CHECK_STR(fmt_duration(1000, buf, sizeof(buf)), "1.000 us");
	CHECK_STR(fmt_duration(1234, buf, sizeof(buf)), "1.234 us");
	CHECK_STR(fmt_duration(999999, buf, sizeof(buf)), "999.999 us");
	CHECK_STR(fmt_duration(1234567, buf, sizeof(buf)), "1.234 ms");
	CHECK_STR(fmt_duration(999999999, buf, sizeof(buf)), "999.999 ms");
	CHECK_STR(fmt_duration(1000000000, buf, sizeof(buf)), "1.000 s");
	CHECK_STR(fmt_duration(1500000000, buf, sizeof(buf)), "1.500 s");
	CHECK_STR(fmt_duration(3600000000000ULL, buf, sizeof(buf)), "3600.000 s");
	CHECK_STR(fmt_duration(UINT64_MAX, buf, sizeof(buf)), "18446744073.709 s");
	/* The returned pointer is the buffer; tiny buffers truncate safely. */
	CHECK(fmt_duration(5, buf, sizeof(buf)) == buf);
	{
		char small[4];

		CHECK_STR(fmt_duration(1234567, small, sizeof(small)), "1.2");
	}
	CHECK_STR(fmt_duration(1, NULL, 0), "");
	return 0;
}

TEST(fmt_size_cases)
{
	char buf[32];

	CHECK_STR(fmt_size(0, buf, sizeof(buf)), "0 B");
	CHECK_STR(fmt_size(1023, buf, sizeof(buf)), "1023 B");
	CHECK_STR(fmt_size(1024, buf, sizeof(buf)), "1 KiB");
	CHECK_STR(fmt_size(1536, buf, sizeof(buf)), "1.5 KiB");
	CHECK_STR(fmt_size(4ULL << 20, buf, sizeof(buf)), "4 MiB");
	/* Truncated, never rounded up: 1 GiB - 1 byte is not "1.0 GiB". */
	CHECK_STR(fmt_size((1ULL << 30) - 1, buf, sizeof(buf)), "1023.9 MiB");
	CHECK_STR(fmt_size(6ULL << 30, buf, sizeof(buf)), "6 GiB");
	CHECK_STR(fmt_size(UINT64_MAX, buf, sizeof(buf)), "15.9 EiB");
	return 0;
}

TEST(log_short_cases)
{
	char buf[40], big[10001];

	CHECK_STR(log_short("sched:sched_switch", buf, sizeof(buf)), "sched:sched_switch");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	log_short(big, buf, sizeof(buf));
	CHECK(strlen(buf) < sizeof(buf));
	CHECK(!strncmp(buf, "xxxxxxxx", 8));
	CHECK(strstr(buf, "...(10000 bytes)") != NULL);
	/* The macro form, as messages use it. */
	CHECK(strlen(SHORT(big)) < LOG_SHORT_LEN);
	CHECK_STR(SHORT("short"), "short");
	return 0;
}

/* What log_msg printed, via a temporary stderr. */
static char *capture_log(const char *arg)
{
	char path[] = "/tmp/trigrec-test-log.XXXXXX", *out;
	int fd = mkstemp(path), saved = dup(2);
	long n;
	FILE *f;

	if (fd < 0 || saved < 0)
		return NULL;
	fflush(stderr);
	dup2(fd, 2);
	elog("unknown event '%s': this explanation must survive", arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fdopen(fd, "r");
	unlink(path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	out = calloc(1, n + 1);
	if (fread(out, 1, n, f) != (size_t)n)
		out[0] = '\0';
	fclose(f);
	return out;
}

TEST(log_long_messages_keep_their_end)
{
	char *big = malloc(20001), *out;

	memset(big, 'y', 20000);
	big[20000] = '\0';
	/* Before: a 4 KiB buffer cut this message in the middle of the argument. */
	out = capture_log(big);
	CHECK(out && strstr(out, "this explanation must survive\n"));
	CHECK(out && strlen(out) > 20000);
	free(out);
	out = capture_log(SHORT(big));
	CHECK(out && strstr(out, "...(20000 bytes)': this explanation must survive\n"));
	CHECK(out && strlen(out) < 300);
	free(out);
	free(big);
	return 0;
}

TEST(explain_denied_text)
{
	char why[1024];
	uint64_t eff = caps_effective();

	explain_denied(0, why, sizeof(why));
	CHECK(why[0]);
	if (eff & (CAP_BIT(CAP_NR_SYS_ADMIN) | CAP_BIT(CAP_NR_PERFMON))) {
		/* Privileged: telling the user to become root would be wrong. */
		CHECK(!strstr(why, "run as root"));
		CHECK(strstr(why, "something else refuses") || strstr(why, "user namespace"));
	} else {
		CHECK(strstr(why, "run as root") || strstr(why, "user namespace"));
	}
	return 0;
}

/* Durations as a user writes them, and read back to the same value. */
TEST(fmt_duration_short_cases)
{
	static const struct {
		uint64_t ns;
		const char *want;
	} cases[] = {
		{ 19600000ULL, "19.6 ms" }, { 20000000ULL, "20 ms" },
		{ 19640000ULL, "19.6 ms" }, { 1250000000ULL, "1.25 s" },
		{ 1500000000ULL, "1.5 s" }, { 123456789ULL, "123 ms" },
		{ 8100000ULL, "8.1 ms" },   { 850, "850 ns" },
		{ 2000, "2 us" },	    { 0, "0 ns" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(fmt_duration_short(cases[i].ns, buf, sizeof(buf)), cases[i].want);
	return 0;
}

TEST(fmt_duration_as_written_cases)
{
	static const struct {
		uint64_t ns;
		const char *want;
	} cases[] = {
		{ 86400000000000ULL, "1d" },
		{ 7 * 86400000000000ULL, "7d" },
		{ 3600000000000ULL, "1h" },
		{ 5400000000000ULL, "90min" },
		{ 60000000000ULL, "1min" },
		{ 1500000000ULL, "1500ms" },
		{ 1000000000ULL, "1s" },
		{ 250000ULL, "250us" },
		{ 7, "7ns" },
		{ 0, "0ns" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t back = 1;

		CHECK_STR(fmt_duration_as_written(cases[i].ns, buf, sizeof(buf)), cases[i].want);
		CHECK_EQ(parse_duration(buf, &back, err, sizeof(err)), 0);
		CHECK_EQ(back, cases[i].ns);
	}
	return 0;
}

TEST(roundtrip_fmt_parse)
{
	/* What fmt_duration prints (minus the space) parses back to the same value. */
	static const uint64_t vals[] = {
		1, 999, 1000, 1500, 2000000, 1500000000ULL, 42000000000ULL
	};
	char buf[32], nospace[32];

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint64_t back = 0;
		size_t j = 0;

		fmt_duration(vals[i], buf, sizeof(buf));
		for (const char *p = buf; *p; p++)
			if (*p != ' ')
				nospace[j++] = *p;
		nospace[j] = '\0';
		CHECK_EQ(parse_duration(nospace, &back, err, sizeof(err)), 0);
		CHECK_EQ(back, vals[i]);
	}
	return 0;
}

TEST(utf8_chars)
{
	static const struct {
		const char *s;
		int len;
		uint32_t cp;
	} cases[] = {
		{ "a", 1, 'a' },
		{ "", 1, 0 },
		{ "\xc3\xa9t\xc3\xa9", 2, 0xe9 },
		{ "\xc2\xb5s", 2, 0xb5 },
		{ "\xe2\x80\x9c", 3, 0x201c },
		{ "\xf0\x9f\x98\x80", 4, 0x1f600 },
		{ "\xf4\x8f\xbf\xbf", 4, 0x10ffff },
		/* invalid: stray continuation, overlong, surrogate, too large, cut short */
		{ "\x80", 0, 0 },
		{ "\xbf", 0, 0 },
		{ "\xc0\xaf", 0, 0 },
		{ "\xc1\xbf", 0, 0 },
		{ "\xe0\x80\xaf", 0, 0 },
		{ "\xed\xa0\x80", 0, 0 },
		{ "\xf4\x90\x80\x80", 0, 0 },
		{ "\xf5\x80\x80\x80", 0, 0 },
		{ "\xff", 0, 0 },
		{ "\xc3", 0, 0 },
		{ "\xe2\x80", 0, 0 },
		{ "\xc3(", 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t cp = 0xdead;
		int n = utf8_char(cases[i].s, &cp);

		if (n != cases[i].len)
			fprintf(stderr, "    case %zu\n", i);
		CHECK_EQ(n, cases[i].len);
		if (n)
			CHECK_EQ(cp, cases[i].cp);
	}
	CHECK_EQ(utf8_char("\xc3\xa9", NULL), 2);
	return 0;
}

/* The one privilege test of access_problem() and explain_denied(). */
TEST(caps_privileged_cases)
{
	static const struct {
		uint64_t eff;
		int perf, bpf;
	} cases[] = {
		{ 0, 0, 0 },
		{ CAP_BIT(CAP_NR_SYS_ADMIN), 1, 1 },
		{ CAP_BIT(CAP_NR_PERFMON), 1, 0 },
		{ CAP_BIT(CAP_NR_BPF), 0, 1 },
		{ CAP_BIT(CAP_NR_PERFMON) | CAP_BIT(CAP_NR_BPF), 1, 1 },
		{ CAP_BIT(CAP_NR_IPC_LOCK), 0, 0 },
		{ ~(CAP_BIT(CAP_NR_SYS_ADMIN) | CAP_BIT(CAP_NR_PERFMON) | CAP_BIT(CAP_NR_BPF)), 0,
		  0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_EQ(caps_privileged(cases[i].eff, 0), cases[i].perf);
		CHECK_EQ(caps_privileged(cases[i].eff, 1), cases[i].bpf);
	}
	return 0;
}

static void vset(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void vset(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vseterr(err, len, fmt, ap);
	va_end(ap);
}

/* seterr()/vseterr(): the one error formatter; NULL or no room writes nothing, a long text is cut. */
TEST(seterr_and_str_append)
{
	char b[8] = "xxxxxxx", out[8];
	size_t o = 0;

	seterr(NULL, 10, "%s", "nothing");
	vset(NULL, 10, "%s", "nothing");
	seterr(b, 0, "%s", "nothing");
	CHECK_STR(b, "xxxxxxx");
	vset(b, sizeof(b), "bad %d", 42);
	CHECK_STR(b, "bad 42");
	seterr(b, sizeof(b), "%s", "far too long");
	CHECK_STR(b, "far too");
	/* str_append: 0 while it fits; -E2BIG once cut, *o at the end, and after. */
	CHECK_EQ(str_append(out, sizeof(out), &o, "%s", "abc"), 0);
	CHECK_EQ(o, 3);
	CHECK_EQ(str_append(out, sizeof(out), &o, "%s", "defg"), 0);
	CHECK_EQ(o, 7);
	CHECK_STR(out, "abcdefg");
	CHECK_EQ(str_append(out, sizeof(out), &o, "%s", ""), 0);
	CHECK_EQ(str_append(out, sizeof(out), &o, "%s", "h"), -E2BIG);
	CHECK_EQ(o, 7);
	CHECK_STR(out, "abcdefg");
	o = 5;
	CHECK_EQ(str_append(out, sizeof(out), &o, "%s", "XYZ"), -E2BIG);
	CHECK_EQ(o, 7);
	CHECK_STR(out, "abcdeXY");
	o = sizeof(out);
	CHECK_EQ(str_append(out, sizeof(out), &o, "%s", ""), -E2BIG);
	return 0;
}

RUN_TESTS(T(size_plain_and_units), T(size_errors), T(size_err_buffer_edge_cases), T(mmap_pages),
	  T(mmap_pages_minimum), T(dir_writable_and_mkdir_p), T(mmap_pages_errors),
	  T(duration_units), T(duration_unit_table), T(period_words), T(duration_errors),
	  T(u64_parse), T(u64_errors), T(cpulist_parse), T(cpulist_errors),
	  T(cpus_possible_and_online), T(edit_distance_cases), T(fmt_duration_cases),
	  T(fmt_duration_as_written_cases), T(fmt_duration_short_cases), T(roundtrip_fmt_parse),
	  T(utf8_chars), T(fmt_size_cases), T(log_short_cases), T(log_long_messages_keep_their_end),
	  T(explain_denied_text), T(caps_privileged_cases), T(seterr_and_str_append))
