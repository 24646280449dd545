// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: a /proc/PID/cgroup file (cg_parse_proc) and the cgroup
 * v2 path in it (cg_classify, cg_label). Paths are names container users
 * and runtimes choose; the sidecar and `trigrec show` carry what comes out.
 *
 * Invariants: a parsed path has no newline and fits; a container id is 64
 * lowercase hex digits (a systemd unit's name ends in .service or .scope);
 * a QoS class only with a pod UID of 36 characters; the label is a
 * terminated string in its buffer.
 *
 *   make fuzz-build && .output/fuzz/fuzz_cgroup tests/fuzz/corpus/cgroup
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/cgroups.h"

#define REQUIRE(cond)                                                                       \
	do {                                                                                \
		if (!(cond)) {                                                              \
			fprintf(stderr, "fuzz_cgroup: %s:%d: %s does not hold\n", __FILE__, \
				__LINE__, #cond);                                           \
			abort();                                                            \
		}                                                                           \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), path[4096], label[320];
	struct cg_info c;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (!cg_parse_proc(text, path, sizeof(path)))
		REQUIRE(!strchr(path, '\n') && strlen(path) < sizeof(path));
	else
		snprintf(path, sizeof(path), "%s", text);
	cg_classify(path, &c);
	if (c.runtime[0] && strcmp(c.runtime, "systemd")) {
		REQUIRE(strlen(c.id) == 64);
		REQUIRE(strspn(c.id, "0123456789abcdef") == 64);
	}
	if (!strcmp(c.runtime, "systemd")) {
		size_t n = strlen(c.id);

		REQUIRE(n > 6 && (!strcmp(c.id + n - 6, ".scope") ||
				  (n > 8 && !strcmp(c.id + n - 8, ".service"))));
	}
	if (c.qos[0])
		REQUIRE(strlen(c.pod_uid) == 36);
	cg_label(&c, label, sizeof(label));
	REQUIRE(strlen(label) < sizeof(label));
	free(text);
	return 0;
}
