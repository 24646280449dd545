// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Build-ids (ELF files, the kernel, the vdso) against readelf and perf, and
 * perf's build-id cache as bid_set fills it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "snapshot/buildid.h"

static char *run(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	char *out = calloc(1, 4096);

	if (!f || !out) {
		if (f)
			pclose(f);
		free(out);
		return NULL;
	}
	if (!fgets(out, 4096, f))
		out[0] = 0;
	out[strcspn(out, "\n")] = 0;
	pclose(f);
	return out;
}

static char self[4096];

static const char *self_path(void)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	self[n > 0 ? n : 0] = 0;
	return self;
}

TEST(elf_build_id_is_readelfs)
{
	struct build_id bid;
	char hex[64], cmd[4200], *exp;
	int fd;

	if (access("/usr/bin/readelf", X_OK))
		SKIP("no readelf");
	fd = open(self_path(), O_RDONLY);
	CHECK(fd >= 0);
	CHECK_EQ(build_id__from_fd(fd, &bid), 0);
	close(fd);
	build_id__hex(&bid, hex);
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n 's/^ *Build ID: //p'", self);
	exp = run(cmd);
	CHECK(exp && strlen(exp) >= 32);
	CHECK_STR(hex, exp);
	free(exp);

	/* not ELF, no build-id */
	fd = open("/proc/self/status", O_RDONLY);
	CHECK_EQ(build_id__from_fd(fd, &bid), -ENOEXEC);
	close(fd);
	return 0;
}

TEST(note_stream)
{
	/* one foreign note, then GNU build-id 0xaabbcc (3 bytes, padded to 4) */
	unsigned char n[] = {
		4, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 'X', 'Y', 'Z', 0, 1,    2,	  3,	4,
		4, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 0xaa, 0xbb, 0xcc, 0,
	};
	struct build_id bid;
	char hex[64];

	CHECK_EQ(build_id__from_notes(n, sizeof(n), 4, &bid), 0);
	CHECK_EQ(bid.size, 3);
	build_id__hex(&bid, hex);
	CHECK_STR(hex, "aabbcc");
	/* cut inside the second note: not found, no overread */
	CHECK_EQ(build_id__from_notes(n, sizeof(n) - 2, 4, &bid), -ENOENT);
	return 0;
}

TEST(kernel_and_vdso)
{
	struct build_id bid;
	const void *img;
	size_t len;
	char hex[64], *exp;

	if (build_id__kernel(&bid))
		SKIP("no /sys/kernel/notes");
	build_id__hex(&bid, hex);
	if (!access("/usr/bin/perf", X_OK)) {
		exp = run("perf buildid-list -k 2>/dev/null");
		CHECK_STR(hex, exp);
		free(exp);
	}
	CHECK_EQ(build_id__vdso(&bid, &img, &len), 0);
	CHECK(bid.size == 20 && img && len >= 4096 && !memcmp(img, "\177ELF", 4));
	return 0;
}

/* A set fills perf's cache once per file; names are listed once; replaced files are not trusted. */
TEST(set_and_cache)
{
	char dir[] = "/tmp/trigrec-bid-XXXXXX", path[4400], hex[64], cmd[9000], copy[64];
	const struct pd_build_id *e;
	struct bid_cache *c;
	struct bid_set *s;
	struct build_id bid;
	struct stat st;
	int nr, fd;

	CHECK(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/prog", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", self_path(), copy);
	CHECK_EQ(system(cmd), 0);
	fd = open(copy, O_RDONLY);
	CHECK_EQ(build_id__from_fd(fd, &bid), 0);
	fstat(fd, &st);
	close(fd);
	build_id__hex(&bid, hex);

	snprintf(path, sizeof(path), "%s/debug", dir);
	c = bid_cache__new(path);
	s = bid_set__new(c);
	CHECK(c && s);
	CHECK_EQ(bid_set__kernel(s), 0);
	/* pid 0: no map_files, read by path (inode checked) */
	CHECK_EQ(bid_set__map(s, 0, 0x1000, 0x1000, st.st_ino, copy), 0);
	CHECK_EQ(bid_set__map(s, 0, 0x5000, 0x1000, st.st_ino, copy), 0); /* same name: once */
	CHECK_EQ(bid_set__map(s, 0, 0x1000, 0x1000, 0, "[heap]"), 0);	  /* not a file */
	CHECK_EQ(bid_set__map(s, 0, 0x1000, 0x1000, 0, "[vdso]"), 0);
	e = bid_set__entries(s, &nr);
	CHECK_EQ(nr, 3);
	if (nr == 3) {
		CHECK_STR(e[0].name, "[kernel.kallsyms]");
		CHECK_EQ(e[0].misc, PERF_RECORD_MISC_KERNEL);
		CHECK_STR(e[1].name, copy);
		CHECK_EQ(e[1].misc, PERF_RECORD_MISC_USER);
		CHECK(!memcmp(e[1].data, bid.data, 20) && e[1].size == bid.size);
		CHECK_STR(e[2].name, "[vdso]");
	}
	/* perf's layout: .build-id/xx/rest -> ../../<path>/<hex>, with elf inside */
	snprintf(path, sizeof(path), "%s/debug/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
	CHECK_EQ(access(path, R_OK), 0);
	snprintf(path, sizeof(path), "%s/debug/.build-id/%.2s/%s", dir, hex, hex + 2);
	{
		char target[4400], exp[4400];
		ssize_t n = readlink(path, target, sizeof(target) - 1);

		target[n > 0 ? n : 0] = 0;
		snprintf(exp, sizeof(exp), "../../%s/%s", copy + 1, hex);
		CHECK_STR(target, exp);
	}
	snprintf(path, sizeof(path), "%s/debug/[vdso]", dir);
	CHECK_EQ(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/debug/[kernel.kallsyms]", dir);
	CHECK_EQ(access(path, F_OK), 0);
	CHECK_EQ(bid_cache__stored(c), 3);
	bid_set__free(s);

	/* a second snapshot: cached, nothing stored again */
	s = bid_set__new(c);
	CHECK_EQ(bid_set__map(s, 0, 0x1000, 0x1000, st.st_ino, copy), 0);
	bid_set__entries(s, &nr);
	CHECK_EQ(nr, 1);
	CHECK_EQ(bid_cache__stored(c), 3);
	bid_set__free(s);

	/* replaced since it was mapped (another inode): not listed */
	s = bid_set__new(c);
	CHECK_EQ(bid_set__map(s, 0, 0x1000, 0x1000, st.st_ino + 12345, copy), 0);
	bid_set__entries(s, &nr);
	CHECK_EQ(nr, 0);
	bid_set__free(s);
	bid_cache__free(c);

	/* no cache directory: build-ids still found, nothing written */
	c = bid_cache__new(NULL);
	s = bid_set__new(c);
	CHECK_EQ(bid_set__map(s, 0, 0x1000, 0x1000, st.st_ino, copy), 0);
	bid_set__entries(s, &nr);
	CHECK_EQ(nr, 1);
	CHECK_EQ(bid_cache__stored(c), 0);
	bid_set__free(s);
	bid_cache__free(c);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_EQ(system(cmd), 0);
	return 0;
}

RUN_TESTS(T(elf_build_id_is_readelfs), T(note_stream), T(kernel_and_vdso), T(set_and_cache))
