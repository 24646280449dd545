// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: build-ids from the ELF files a snapshot maps, which any
 * user who can run a program controls: build_id__from_notes on the input as
 * a note stream (4- and 8-aligned) and build_id__from_fd on the input as a
 * whole file (a memfd), headers and notes as crafted.
 *
 * Besides the sanitizers, it checks what callers rely on: a build-id found
 * has 1-PD_BUILD_ID_MAX bytes, taken from the input; and the caps of
 * buildid.h hold (libFuzzer's -timeout catches a file that stalls).
 *
 *   make fuzz-build && .output/fuzz/fuzz_buildid CORPUS_DIR...   (see make help)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "snapshot/buildid.h"

#define REQUIRE(cond)                                                                        \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "fuzz_buildid: %s:%d: %s does not hold\n", __FILE__, \
				__LINE__, #cond);                                            \
			abort();                                                             \
		}                                                                            \
	} while (0)

static void found(const struct build_id *bid, const uint8_t *data, size_t size)
{
	REQUIRE(bid->size >= 1 && bid->size <= PD_BUILD_ID_MAX);
	REQUIRE(memmem(data, size, bid->data, bid->size) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct build_id bid;

	for (size_t align = 4; align <= 8; align += 4) {
		memset(&bid, 0, sizeof(bid));
		if (!build_id__from_notes(data, size, align, &bid))
			found(&bid, data, size);
	}
	if (fd < 0)
		fd = memfd_create("fuzz_buildid", MFD_CLOEXEC);
	REQUIRE(fd >= 0);
	REQUIRE(ftruncate(fd, 0) == 0);
	REQUIRE(pwrite(fd, data, size, 0) == (ssize_t)size);
	memset(&bid, 0, sizeof(bid));
	if (!build_id__from_fd(fd, &bid))
		found(&bid, data, size);
	return 0;
}
