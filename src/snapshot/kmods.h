/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel's loaded modules, as perf record maps them: one kernel MMAP
 * per module, [address, address + size) from /proc/modules, named by the
 * module's file under /lib/modules/RELEASE (modules.dep), or "[name]" when
 * there is none. Without these maps a sample or a call-chain frame inside a
 * module (a driver, a file system, kvm) is [unknown]: the kernel's own map
 * ends at _etext.
 */
#ifndef TRIGREC_KMODS_H
#define TRIGREC_KMODS_H
#include <stddef.h>
#include <stdint.h>

struct kmod {
	uint64_t start, len;
	char name[64];	  /* as /proc/modules has it */
	const char *path; /* "/lib/modules/.../x.ko", or NULL: "[name]" (in kmods.paths) */
};

struct kmods {
	struct kmod *v;
	int n, cap;
	/* Module name -> file, from modules.dep: looked up again only for new names. */
	struct kmod_path {
		char name[64];
		char *path;
	} * paths;
	int npaths, cappaths;
	int hidden; /* addresses read as 0 (kptr_restrict): no map can be made */
};

/*
 * Read /proc/modules again (modules come and go over a long run). 0, also
 * on a kernel without modules (n = 0); -ENOMEM.
 */
int kmods__refresh(struct kmods *m);
/* The same from other files (tests): a /proc/modules and a directory with modules.dep. */
int kmods__refresh_from(struct kmods *m, const char *proc_modules, const char *moddir);
/* The file name a module's MMAP carries. */
const char *kmods__filename(const struct kmod *k, char *buf, size_t len);
void kmods__free(struct kmods *m);

#endif
