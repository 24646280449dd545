// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: a control socket's request line through
 * control__dispatch() and control__find(), on the session's own verb table
 * (session__control_verbs(): names, arguments, locks) with handlers that
 * only record what they were given, and control__usage() into buffers of
 * every size.
 *
 * Invariants: a request reaches a verb only as "NAME" or "NAME ARG" with an
 * argument the verb takes (its one word, when it has one), the handler gets
 * NULL or exactly ARG, under the lock when the verb is marked locked; any
 * other request is answered "error unknown command '...' (CONTROL_VERBS)"
 * with at most 64 bytes of it quoted; the usage is a prefix of CONTROL_VERBS
 * that fits its buffer.
 *
 *   make fuzz-build && .output/fuzz/fuzz_control tests/fuzz/corpus/control
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harvest/control.h"
#include "session/session.h"

#define REQUIRE(cond)                                                                        \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "fuzz_control: %s:%d: %s does not hold\n", __FILE__, \
				__LINE__, #cond);                                            \
			abort();                                                             \
		}                                                                            \
	} while (0)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static const struct control_verb *called;
static const char *called_arg;
static int called_locked, calls;
static struct control_verb table[16];

/* Every row's handler: which row (by its fn's slot), its argument, the lock. */
#define HANDLER(i)                                                            \
	static void h##i(void *ctx, const char *arg, char *reply, size_t len) \
	{                                                                     \
		int busy = pthread_mutex_trylock(&mu) == EBUSY;               \
		if (!busy)                                                    \
			pthread_mutex_unlock(&mu);                            \
		(void)ctx;                                                    \
		called = &table[i];                                           \
		called_arg = arg;                                             \
		called_locked = busy;                                         \
		calls++;                                                      \
		snprintf(reply, len, "ok %d\n", i);                           \
	}
HANDLER(0)
HANDLER(1)
HANDLER(2)
HANDLER(3)
HANDLER(4)
HANDLER(5)
HANDLER(6)
HANDLER(7)
static const control_verb_fn handlers[] = { h0, h1, h2, h3, h4, h5, h6, h7 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* As the control thread reads it: one line, at most 255 bytes. */
	char line[256], reply[512], usage[256], want[512];
	struct control_verbs t = { table, 0, &mu, NULL };
	const struct control_verb *real, *v;
	size_t n = 0, ul;
	int nr;

	real = session__control_verbs(&nr);
	REQUIRE(nr > 0 && nr <= (int)(sizeof(handlers) / sizeof(handlers[0])));
	for (int i = 0; i < nr; i++) {
		table[i] = real[i];
		table[i].fn = handlers[i];
	}
	t.n = nr;
	while (n < size && n < sizeof(line) - 1 && data[n] != '\n' && data[n])
		n++;
	memcpy(line, data, n);
	line[n] = 0;

	called = NULL;
	calls = 0;
	v = control__find(table, nr, line);
	control__dispatch(&t, line, reply, sizeof(reply));
	REQUIRE(memchr(reply, 0, sizeof(reply)));
	if (v) {
		size_t k = strlen(v->name);

		REQUIRE(calls == 1 && called == v);
		REQUIRE(!strncmp(line, v->name, k));
		if (!line[k]) {
			REQUIRE(called_arg == NULL);
		} else {
			REQUIRE(line[k] == ' ' && v->arg);
			REQUIRE(called_arg == line + k + 1);
			REQUIRE(!v->word || !strcmp(called_arg, v->word));
		}
		REQUIRE(called_locked == !!v->locked);
		snprintf(want, sizeof(want), "ok %d\n", (int)(v - table));
		REQUIRE(!strcmp(reply, want));
	} else {
		REQUIRE(calls == 0);
		snprintf(want, sizeof(want), "error unknown command '%.64s' (" CONTROL_VERBS ")\n",
			 line);
		REQUIRE(!strcmp(reply, want));
	}
	/* The usage in a buffer of the input's size: a cut prefix, always terminated. */
	ul = size % sizeof(usage);
	n = control__usage(table, nr, usage, ul);
	if (ul) {
		REQUIRE(n < ul && strlen(usage) == n);
		REQUIRE(!strncmp(usage, CONTROL_VERBS, n));
	} else {
		REQUIRE(n == 0);
	}
	return 0;
}
