// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: POST /snapshot's body (webhook_parse: Alertmanager's
 * webhook payload or {"name": ...}) and its Authorization header
 * (webhook_auth_ok), both from any caller that reaches the listener.
 *
 * Invariants: a parsed request asks for at most WEBHOOK_MAX_ALERTS
 * snapshots, each with a non-empty file-name-safe name and an "alert"
 * object that is valid JSON (the sidecar embeds it as it is) naming its
 * source; a refused one says why; a header is accepted only when it is
 * "Bearer " and exactly the token.
 *
 *   make fuzz-build && .output/fuzz/fuzz_webhook tests/fuzz/corpus/webhook
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "service/webhook.h"
#include "show/jsonv.h"

#define REQUIRE(cond)                                                                        \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "fuzz_webhook: %s:%d: %s does not hold\n", __FILE__, \
				__LINE__, #cond);                                            \
			abort();                                                             \
		}                                                                            \
	} while (0)

static const char token[] = "0123456789abcdef0123456789abcdef";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct webhook_req r;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (!webhook_parse(text, size, &r, err, sizeof(err))) {
		REQUIRE(r.nr <= WEBHOOK_MAX_ALERTS);
		REQUIRE(r.alertmanager || r.nr == 1);
		for (int i = 0; i < r.nr; i++) {
			const char *n = r.alerts[i].name;
			struct jv *a;

			REQUIRE(n[0]);
			REQUIRE(strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					  "0123456789_.-") == strlen(n));
			a = jv_parse(r.alerts[i].json, strlen(r.alerts[i].json), err, sizeof(err));
			REQUIRE(a && a->type == JV_OBJ);
			REQUIRE(jv_str(a, "source", NULL));
			jv_free(a);
		}
		webhook_req_free(&r);
	} else {
		REQUIRE(err[0]);
	}
	/* The input as an Authorization header. */
	if (webhook_auth_ok(text, token)) {
		const char *t = text + 7;

		while (*t == ' ')
			t++;
		REQUIRE(!strncasecmp(text, "Bearer ", 7) && !strcmp(t, token));
	}
	free(text);
	return 0;
}
