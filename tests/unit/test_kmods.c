// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kmods: the module maps a snapshot carries, read from a /proc/modules and a
 * modules.dep of the test's own (this VM's kernel has no modules; the kernel
 * matrix's guests load brd and check the maps with perf, kmod.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "snapshot/kmods.h"

static char dir[64];

static void put(const char *name, const char *text)
{
	char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
}

static const struct kmod *find(const struct kmods *m, const char *name)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].name, name))
			return &m->v[i];
	return NULL;
}

TEST(maps_and_files)
{
	struct kmods m = { 0 };
	char proc[128], want[256], nb[80];
	const struct kmod *k;

	strcpy(dir, "/tmp/trigrec-kmods-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	put("modules", "brd 20480 0 - Live 0xffffffffc0a0e000 (E)\n"
		       "snd_hda_intel 61440 2 - Live 0xffffffffc0b00000\n"
		       "dying 4096 0 - Unloading 0xffffffffc0c00000\n"
		       "nodep 8192 0 - Live 0xffffffffc0d00000\n"
		       "garbage line\n");
	put("modules.dep", "kernel/drivers/block/brd.ko:\n"
			   "kernel/sound/pci/hda/snd-hda-intel.ko.xz: kernel/sound/x.ko\n");
	snprintf(proc, sizeof(proc), "%s/modules", dir);
	CHECK_EQ(kmods__refresh_from(&m, proc, dir), 0);
	CHECK_EQ(m.n, 3); /* not the one unloading, not the garbage */
	k = find(&m, "brd");
	CHECK(k != NULL);
	CHECK_EQ(k->start, 0xffffffffc0a0e000ull);
	CHECK_EQ(k->len, 20480);
	snprintf(want, sizeof(want), "%s/kernel/drivers/block/brd.ko", dir);
	CHECK_STR(kmods__filename(k, nb, sizeof(nb)), want);
	/* '-' in the file name, '_' in the module's */
	snprintf(want, sizeof(want), "%s/kernel/sound/pci/hda/snd-hda-intel.ko.xz", dir);
	CHECK_STR(kmods__filename(find(&m, "snd_hda_intel"), nb, sizeof(nb)), want);
	CHECK_STR(kmods__filename(find(&m, "nodep"), nb, sizeof(nb)), "[nodep]");

	/* A second read keeps the files found, and a module gone is gone. */
	put("modules", "brd 20480 0 - Live 0xffffffffc0a0e000\n");
	CHECK_EQ(kmods__refresh_from(&m, proc, dir), 0);
	CHECK_EQ(m.n, 1);
	snprintf(want, sizeof(want), "%s/kernel/drivers/block/brd.ko", dir);
	CHECK_STR(kmods__filename(&m.v[0], nb, sizeof(nb)), want);

	/* Addresses hidden (kptr_restrict): counted, no map. */
	put("modules", "brd 20480 0 - Live 0x0000000000000000\n");
	CHECK_EQ(kmods__refresh_from(&m, proc, dir), 0);
	CHECK_EQ(m.n, 0);
	CHECK_EQ(m.hidden, 1);
	kmods__free(&m);

	snprintf(want, sizeof(want), "rm -rf %s", dir);
	CHECK_EQ(system(want), 0);
	return 0;
}

TEST(no_modules)
{
	struct kmods m = { 0 };

	/* A kernel without CONFIG_MODULES has no /proc/modules: no maps, no error. */
	CHECK_EQ(kmods__refresh_from(&m, "/nonexistent/modules", "/nonexistent"), 0);
	CHECK_EQ(m.n, 0);
	kmods__free(&m);
	return 0;
}

RUN_TESTS(T(maps_and_files), T(no_modules))
