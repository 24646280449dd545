// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Build-ids (ELF files, the kernel, the vdso) against readelf and perf, and
 * perf's build-id cache as bid_set fills it.
 */
#include <elf.h>
#include <errno.h>
#include <time.h>
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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * A crafted ELF: 65535 program headers, every one a PT_NOTE of 64 KiB of
 * empty 12-byte notes (no build-id), and as many SHT_NOTE sections.
 * Before the caps, reading its build-id read 8 GiB of notes (a stalled
 * snapshot: measured 25 s); now the notes scanned per file are capped.
 */
TEST(crafted_notes_do_not_stall)
{
	char path[] = "/tmp/trigrec-bid-notes-XXXXXX";
	const size_t nsz = 65536, nph = 65535;
	Elf64_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
				       EV_CURRENT },
			  .e_type = ET_DYN,
			  .e_machine = EM_X86_64,
			  .e_version = EV_CURRENT,
			  .e_phoff = sizeof(Elf64_Ehdr),
			  .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr),
			  .e_phnum = nph,
			  .e_shentsize = sizeof(Elf64_Shdr),
			  .e_shnum = nph };
	uint64_t notes_off = sizeof(eh) + nph * sizeof(Elf64_Phdr), t0;
	unsigned char *notes = calloc(1, nsz);
	struct build_id bid;
	int fd = mkstemp(path);

	CHECK(fd >= 0 && notes);
	if (fd < 0 || !notes) {
		free(notes);
		return 0;
	}
	eh.e_shoff = notes_off + nsz;
	CHECK(pwrite(fd, &eh, sizeof(eh), 0) == sizeof(eh));
	for (size_t i = 0; i < nph; i++) {
		Elf64_Phdr ph = {
			.p_type = PT_NOTE, .p_offset = notes_off, .p_filesz = nsz, .p_align = 4
		};
		Elf64_Shdr sh = { .sh_type = SHT_NOTE,
				  .sh_offset = notes_off,
				  .sh_size = nsz,
				  .sh_addralign = 4 };

		CHECK(pwrite(fd, &ph, sizeof(ph), sizeof(eh) + i * sizeof(ph)) == sizeof(ph));
		CHECK(pwrite(fd, &sh, sizeof(sh), eh.e_shoff + i * sizeof(sh)) == sizeof(sh));
	}
	/* empty notes (namesz 0, descsz 0, type 1) fill the segment */
	for (size_t o = 0; o + 12 <= nsz; o += 12)
		notes[o + 8] = 1;
	CHECK(pwrite(fd, notes, nsz, notes_off) == (ssize_t)nsz);
	t0 = now_ns();
	CHECK_EQ(build_id__from_fd(fd, &bid), -ENOENT);
	t0 = now_ns() - t0;
	printf("    crafted notes: %.3f s\n", t0 / 1e9);
	CHECK(t0 < 500000000ull);
	/* One stream of 64 KiB of notes: capped too (5461 notes without the cap). */
	CHECK_EQ(build_id__from_notes(notes, nsz, 4, &bid), -ENOENT);
	close(fd);
	unlink(path);
	free(notes);
	return 0;
}

/* A copy of this test binary in dir (its build-id in hex): a file a snapshot maps. */
static int prog_copy(const char *dir, char *copy, size_t len, char *hex, ino_t *ino)
{
	char cmd[9000];
	struct build_id bid;
	struct stat st;
	int fd;

	snprintf(copy, len, "%s/prog", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", self_path(), copy);
	if (system(cmd))
		return -1;
	fd = open(copy, O_RDONLY);
	if (fd < 0 || build_id__from_fd(fd, &bid) || fstat(fd, &st))
		return -1;
	close(fd);
	build_id__hex(&bid, hex);
	*ino = st.st_ino;
	return 0;
}

/* Entries below path (find | wc -l): what the cache holds. */
static int entries(const char *path)
{
	char cmd[4400], *out;
	int n;

	snprintf(cmd, sizeof(cmd), "find '%s' -mindepth 1 2>/dev/null | wc -l", path);
	out = run(cmd);
	n = out ? atoi(out) : -1;
	free(out);
	return n;
}

/* One snapshot's worth: the kernel, the vdso and prog into cache dir cdir. */
static unsigned long fill(const char *cdir, const char *copy, ino_t ino, uint64_t cap)
{
	struct bid_cache *c = bid_cache__new(cdir);
	struct bid_set *s = bid_set__new(c);
	unsigned long n;

	CHECK(c && s);
	if (cap)
		bid_cache__set_copy_cap(c, cap);
	CHECK_EQ(bid_set__kernel(s), 0);
	CHECK_EQ(bid_set__map(s, 0, 0x1000, 0x1000, ino, copy), 0);
	CHECK_EQ(bid_set__map(s, 0, 0x1000, 0x1000, 0, "[vdso]"), 0);
	bid_set__free(s);
	n = bid_cache__stored(c);
	bid_cache__free(c);
	return n;
}

/*
 * A cache directory of another user, or one others may write: left alone
 * (before the fix, root wrote into it following whatever links its owner
 * made). The snapshot's build-ids are still found.
 */
TEST(cache_dir_not_ours_refused)
{
	char dir[] = "/tmp/trigrec-bid-XXXXXX", cdir[128], copy[128], hex[64], cmd[256];
	ino_t ino = 0;

	CHECK(mkdtemp(dir));
	CHECK_EQ(prog_copy(dir, copy, sizeof(copy), hex, &ino), 0);
	snprintf(cdir, sizeof(cdir), "%s/debug", dir);
	CHECK_EQ(mkdir(cdir, 0777), 0);
	CHECK_EQ(chmod(cdir, 0777), 0);
	CHECK_EQ(fill(cdir, copy, ino, 0), 0);
	CHECK_EQ(entries(cdir), 0);
	CHECK_EQ(chmod(cdir, 0755), 0);
	if (!geteuid()) {
		CHECK_EQ(chown(cdir, 65534, 65534), 0);
		CHECK_EQ(fill(cdir, copy, ino, 0), 0);
		CHECK_EQ(entries(cdir), 0);
		CHECK_EQ(chown(cdir, 0, 0), 0);
	}
	/* ours: filled */
	CHECK_EQ(fill(cdir, copy, ino, 0), 3);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_EQ(system(cmd), 0);
	return 0;
}

/*
 * Symlinks planted below the cache directory (.build-id, and a component of
 * an object's path) are never followed: nothing lands where they point.
 */
TEST(cache_symlinks_below_not_followed)
{
	char dir[] = "/tmp/trigrec-bid-XXXXXX", cdir[128], copy[128], hex[64], p[512], away[128],
	     cmd[512];
	ino_t ino = 0;

	CHECK(mkdtemp(dir));
	CHECK_EQ(prog_copy(dir, copy, sizeof(copy), hex, &ino), 0);
	snprintf(cdir, sizeof(cdir), "%s/debug", dir);
	snprintf(away, sizeof(away), "%s/away", dir);
	CHECK_EQ(mkdir(cdir, 0755), 0);
	CHECK_EQ(mkdir(away, 0755), 0);
	snprintf(p, sizeof(p), "%s/.build-id", cdir);
	CHECK_EQ(symlink(away, p), 0);
	/* prog is /tmp/trigrec-bid-X/prog: its object goes under debug/tmp/... */
	snprintf(p, sizeof(p), "%s/tmp", cdir);
	CHECK_EQ(symlink(away, p), 0);
	snprintf(p, sizeof(p), "%s/[vdso]", cdir);
	CHECK_EQ(symlink(away, p), 0);
	CHECK_EQ(fill(cdir, copy, ino, 0), 0);
	CHECK_EQ(entries(away), 0);
	/* without the .build-id link: the kernel's entry is made, the others still not */
	snprintf(p, sizeof(p), "%s/.build-id", cdir);
	CHECK_EQ(unlink(p), 0);
	CHECK_EQ(fill(cdir, copy, ino, 0), 1);
	CHECK_EQ(entries(away), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_EQ(system(cmd), 0);
	return 0;
}

/*
 * The bytes copied per snapshot are capped: past the cap the kallsyms and
 * vdso copies are left out (a hard link, prog here, costs nothing); the next
 * snapshot has a cap of its own.
 */
TEST(cache_copy_capped_per_snapshot)
{
	char dir[] = "/tmp/trigrec-bid-XXXXXX", cdir[128], copy[128], hex[64], p[512], cmd[256];
	ino_t ino = 0;

	CHECK(mkdtemp(dir));
	CHECK_EQ(prog_copy(dir, copy, sizeof(copy), hex, &ino), 0);
	snprintf(cdir, sizeof(cdir), "%s/debug", dir);
	CHECK_EQ(fill(cdir, copy, ino, 1024), 1);
	snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s/elf", cdir, hex, hex + 2);
	CHECK_EQ(access(p, R_OK), 0);
	snprintf(p, sizeof(p), "find '%s' -name kallsyms -o -name vdso -o -name '.*trigrec*'",
		 cdir);
	{
		char *out = run(p);

		CHECK_STR(out, "");
		free(out);
	}
	/* a cap that holds them: both stored */
	CHECK_EQ(fill(cdir, copy, ino, 64ull << 20), 2);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_EQ(system(cmd), 0);
	return 0;
}

RUN_TESTS(T(elf_build_id_is_readelfs), T(note_stream), T(kernel_and_vdso), T(set_and_cache),
	  T(crafted_notes_do_not_stall), T(cache_dir_not_ours_refused),
	  T(cache_symlinks_below_not_followed), T(cache_copy_capped_per_snapshot))
