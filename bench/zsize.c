// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * zsize FILE...: what compression did to a perf.data file's data section,
 * read the way perf reads it, for any writer (trigrec or perf record -z).
 * Prints, per file:
 *   data=BYTES comp_records=N comp_bytes=BYTES orig_bytes=BYTES plain_bytes=BYTES
 * comp_bytes counts whole PERF_RECORD_COMPRESSED records (headers included,
 * as perf's own ratio does), orig_bytes what they decompress to (one zstd
 * stream through the file), plain_bytes the records written uncompressed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static int one(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint64_t off, size, comp = 0, orig = 0, plain = 0, n = 0;
	unsigned char *d = NULL, out[1 << 16];
	ZSTD_DStream *ds = ZSTD_createDStream();
	long len;
	int ret = 1;

	if (!f || !ds) {
		perror(path);
		goto out;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	d = malloc(len);
	if (!d || fread(d, 1, len, f) != (size_t)len || len < 104) {
		fprintf(stderr, "%s: cannot read\n", path);
		goto out;
	}
	memcpy(&off, d + 40, 8);
	memcpy(&size, d + 48, 8);
	if (off + size > (uint64_t)len) {
		fprintf(stderr, "%s: data section past the end\n", path);
		goto out;
	}
	ZSTD_initDStream(ds);
	for (uint64_t p = off; p < off + size;) {
		uint32_t type;
		uint16_t sz;

		memcpy(&type, d + p, 4);
		memcpy(&sz, d + p + 6, 2);
		if (sz < 8 || p + sz > off + size) {
			fprintf(stderr, "%s: bad record at %llu\n", path, (unsigned long long)p);
			goto out;
		}
		if (type == 81) {
			ZSTD_inBuffer in = { d + p + 8, sz - 8u, 0 };

			while (in.pos < in.size) {
				ZSTD_outBuffer o = { out, sizeof(out), 0 };
				size_t r = ZSTD_decompressStream(ds, &o, &in);

				if (ZSTD_isError(r)) {
					fprintf(stderr, "%s: %s\n", path, ZSTD_getErrorName(r));
					goto out;
				}
				orig += o.pos;
			}
			comp += sz;
			n++;
		} else {
			plain += sz;
		}
		p += sz;
	}
	printf("data=%llu comp_records=%llu comp_bytes=%llu orig_bytes=%llu plain_bytes=%llu\n",
	       (unsigned long long)size, (unsigned long long)n, (unsigned long long)comp,
	       (unsigned long long)orig, (unsigned long long)plain);
	ret = 0;
out:
	ZSTD_freeDStream(ds);
	free(d);
	if (f)
		fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	int ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: zsize PERF.DATA...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		ret |= one(argv[i]);
	return ret;
}
