/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Minimal unit-test harness. Each TEST() is a function; CHECK() records a
 * failure with file:line and continues. main() comes from RUN_TESTS(), which
 * prints one "ok"/"FAIL" line per test and "unit <file>: N passed, N failed".
 * Exit status: 0 all passed, 1 some failed.
 */
#ifndef TRIGREC_CHECK_H
#define TRIGREC_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

static int check_failed_in_test;

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "    %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, \
				#cond);                                                      \
			check_failed_in_test = 1;                                            \
		}                                                                            \
	} while (0)
#define CHECK_EQ(a, b)                                                                          \
	do {                                                                                    \
		long long _a = (long long)(a), _b = (long long)(b);                             \
		if (_a != _b) {                                                                 \
			fprintf(stderr, "    %s:%d: %s == %s failed: %lld != %lld\n", __FILE__, \
				__LINE__, #a, #b, _a, _b);                                      \
			check_failed_in_test = 1;                                               \
		}                                                                               \
	} while (0)
#define CHECK_STR(a, b)                                                                   \
	do {                                                                              \
		const char *_a = (a), *_b = (b);                                          \
		if (!_a || !_b || strcmp(_a, _b)) {                                       \
			fprintf(stderr, "    %s:%d: %s == %s failed: \"%s\" != \"%s\"\n", \
				__FILE__, __LINE__, #a, #b, _a ? _a : "(null)",           \
				_b ? _b : "(null)");                                      \
			check_failed_in_test = 1;                                         \
		}                                                                         \
	} while (0)

/* Skip the current test with a reason (counted neither passed nor failed). */
#define SKIP(...)                              \
	do {                                   \
		fprintf(stderr, "    skip: "); \
		fprintf(stderr, __VA_ARGS__);  \
		fprintf(stderr, "\n");         \
		return 2;                      \
	} while (0)

#define TEST(name) static int name(void)

/*
 * A fresh directory /tmp/trigrec-test-NAME.XXXXXX into dir (len bytes; the
 * test program aborts when it cannot be made), and its removal with all it
 * holds.
 */
static inline void check_tmpdir(char *dir, size_t len, const char *name)
{
	snprintf(dir, len, "/tmp/trigrec-test-%s.XXXXXX", name);
	if (!mkdtemp(dir))
		abort();
}

static inline void check_rmtree(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "    cannot remove %s\n", dir);
}

struct check_case {
	const char *name;
	int (*fn)(void);
};
#define T(name)             \
	{                   \
#name, name \
	}

#define RUN_TESTS(...)                                                                          \
	int main(void)                                                                          \
	{                                                                                       \
		struct check_case cases[] = { __VA_ARGS__ };                                    \
		int passed = 0, failed = 0, skipped = 0;                                        \
		setvbuf(stdout, NULL, _IOLBF, 0);                                               \
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {                 \
			check_failed_in_test = 0;                                               \
			int r = cases[i].fn();                                                  \
			if (r == 2) {                                                           \
				skipped++;                                                      \
				printf("  skip %s\n", cases[i].name);                           \
				continue;                                                       \
			}                                                                       \
			if (r || check_failed_in_test) {                                        \
				failed++;                                                       \
				printf("  FAIL %s\n", cases[i].name);                           \
			} else {                                                                \
				passed++;                                                       \
				printf("  ok   %s\n", cases[i].name);                           \
			}                                                                       \
		}                                                                               \
		printf("unit %s: %d passed, %d failed, %d skipped\n", __FILE__, passed, failed, \
		       skipped);                                                                \
		return failed ? 1 : 0;                                                          \
	}

#endif
