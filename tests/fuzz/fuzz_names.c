// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: the parsers of what is found in an output directory,
 * which any user who can write there controls: file names
 * (outdir_stamp_offset, outdir_is_sidecar_name, outdir_tmp_name_pid,
 * retention_data_name) and the head of a sidecar (retention_sidecar_instance).
 * The input is one file name (up to its first NUL) and, whole, a sidecar's
 * first bytes.
 *
 * Besides the sanitizers, it checks what callers rely on: a stamp offset is
 * within the name and at most 64 (PREFIX-), a .data name's base is the name
 * without ".data" and fits OUTDIR_NAME_MAX, a temporary's PID is positive,
 * and an instance ID is 1-63 valid characters copied from the input.
 *
 *   make fuzz-build && .output/fuzz/fuzz_names CORPUS_DIR...   (see make help)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "service/retention.h"
#include "snapshot/outdir.h"

#define REQUIRE(cond)                                                                      \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "fuzz_names: %s:%d: %s does not hold\n", __FILE__, \
				__LINE__, #cond);                                          \
			abort();                                                           \
		}                                                                          \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = malloc(size + 1), id[RETENTION_INSTANCE_MAX + 1];
	size_t len, bl;
	int64_t t = 0;
	int off, n;

	if (!name)
		return 0;
	memcpy(name, data, size);
	name[size] = 0;
	len = strlen(name);

	off = outdir_stamp_offset(name);
	REQUIRE(off >= -1 && off <= 64 && (off < 0 || (size_t)off + 23 <= len));
	if (outdir_is_sidecar_name(name))
		REQUIRE(off >= 0 && len > 5 && !strcmp(name + len - 5, ".json"));
	REQUIRE(outdir_tmp_name_pid(name) >= 0);
	if (outdir_tmp_name_pid(name))
		REQUIRE(!strncmp(name, ".trigrec-", 9) && !strcmp(name + len - 4, ".tmp"));
	bl = retention_data_name(name, &t);
	if (bl) {
		REQUIRE(bl + 5 == len && !strcmp(name + bl, ".data") && bl <= OUTDIR_NAME_MAX);
		REQUIRE(off >= 0);
		REQUIRE(t >= -1 || t < -1); /* any time, but computed without UB */
	}

	n = retention_sidecar_instance((const char *)data, size, id);
	REQUIRE(n >= -1 && n <= RETENTION_INSTANCE_MAX);
	if (n > 0) {
		REQUIRE(strlen(id) == (size_t)n && retention_instance_ok(id));
		REQUIRE(memmem(data, size, id, n) != NULL);
	}
	free(name);
	return 0;
}
