// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Names of the JITed BPF functions loaded now, for PERF_RECORD_KSYMBOL.
 *
 * perf record learns them from perf_event__synthesize_bpf_events() at its
 * start and from the kernel's KSYMBOL side-band records afterwards; a
 * snapshot is a file of its own, so it carries them itself. The naming is
 * perf's (util/bpf-event.c, synthesize_bpf_prog_name()): "bpf_prog_",
 * the program's tag in hex, then "_" and the function's BTF name, or the
 * program's name for a program without subprograms, or "F".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <unistd.h>

#include "snapshot/bpfsyms.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * A program's BTF, read into a zeroed buffer. btf__load_from_kernel_by_id()
 * does the same into malloc()ed memory, which valgrind cannot see the
 * kernel fill: every name read from it would be "uninitialised".
 */
static struct btf *prog_btf(uint32_t id)
{
	struct bpf_btf_info bi = {};
	uint32_t len = sizeof(bi), size;
	struct btf *btf = NULL;
	void *buf = NULL;
	int fd = bpf_btf_get_fd_by_id(id);

	if (fd < 0)
		return NULL;
	if (bpf_obj_get_info_by_fd(fd, &bi, &len) || !bi.btf_size)
		goto out;
	size = bi.btf_size;
	buf = calloc(1, size);
	if (!buf)
		goto out;
	memset(&bi, 0, sizeof(bi));
	bi.btf = (uintptr_t)buf;
	bi.btf_size = size;
	len = sizeof(bi);
	/* a BTF object never changes size; a larger one would have been cut short */
	if (bpf_obj_get_info_by_fd(fd, &bi, &len) || bi.btf_size != size)
		goto out;
	btf = btf__new(buf, size);
	if (libbpf_get_error(btf))
		btf = NULL;
out:
	free(buf);
	close(fd);
	return btf;
}

/*
 * The last BTF loaded. The programs of one object share one BTF object and
 * have consecutive ids (ids are walked in order), so trigrec's two dozen
 * programs parse their BTF once, not once each.
 */
struct btf_last {
	uint32_t id;	 /* 0: none yet */
	struct btf *btf; /* NULL if that id could not be read */
};

/* One program's functions appended to *syms; 0, or -errno. Programs without a JIT image add none. */
static int prog_syms(int fd, struct btf_last *bl, struct bpf_ksym **syms, size_t *nsyms,
		     size_t *cap)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);
	uint64_t *addrs = NULL;
	uint32_t *lens = NULL;
	uint8_t(*tags)[BPF_TAG_SIZE] = NULL;
	struct bpf_func_info *finfo = NULL;
	struct btf *btf = NULL;
	uint32_t n, nf, frec;
	int err;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	n = info.nr_jited_ksyms;
	if (!n || info.nr_jited_func_lens != n)
		return 0;
	nf = info.nr_func_info == n ? n : 0;
	frec = info.func_info_rec_size;
	addrs = calloc(n, sizeof(*addrs));
	lens = calloc(n, sizeof(*lens));
	tags = calloc(n, sizeof(*tags));
	finfo = nf ? calloc(nf, frec) : NULL;
	if (!addrs || !lens || !tags || (nf && !finfo)) {
		err = -ENOMEM;
		goto out;
	}
	/* Second pass: only the arrays (the kernel fills what it is given room for). */
	uint32_t btf_id = info.btf_id;
	uint8_t name[BPF_OBJ_NAME_LEN];

	memcpy(name, info.name, sizeof(name));
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = n;
	info.jited_ksyms = (uintptr_t)addrs;
	info.nr_jited_func_lens = n;
	info.jited_func_lens = (uintptr_t)lens;
	info.nr_prog_tags = n;
	info.prog_tags = (uintptr_t)tags;
	if (nf) {
		info.nr_func_info = nf;
		info.func_info_rec_size = frec;
		info.func_info = (uintptr_t)finfo;
	}
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		goto out;
	}
	/* The program changed in between (it cannot, but a short array would be read past). */
	if (info.nr_jited_ksyms < n || info.nr_jited_func_lens < n || info.nr_prog_tags < n) {
		err = 0;
		goto out;
	}
	if (nf && btf_id) {
		if (bl->id != btf_id) {
			btf__free(bl->btf);
			bl->btf = prog_btf(btf_id);
			bl->id = btf_id;
		}
		btf = bl->btf;
		if (!btf)
			nf = 0; /* unnamed functions rather than none */
	} else {
		nf = 0;
	}
	if (*nsyms + n > *cap) {
		size_t nc = (*cap ? *cap * 2 : 64) + n;
		struct bpf_ksym *ns = realloc(*syms, nc * sizeof(*ns));

		if (!ns) {
			err = -ENOMEM;
			goto out;
		}
		*syms = ns;
		*cap = nc;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct bpf_ksym *k = &(*syms)[(*nsyms)++];
		const char *fn = NULL;
		int o;

		k->addr = addrs[i];
		k->len = lens[i];
		o = snprintf(k->name, sizeof(k->name), "bpf_prog_");
		for (int b = 0; b < BPF_TAG_SIZE; b++)
			o += snprintf(k->name + o, sizeof(k->name) - o, "%02x", tags[i][b]);
		if (nf) {
			const struct bpf_func_info *fi =
				(const void *)((const char *)finfo + (size_t)i * frec);
			const struct btf_type *t = btf__type_by_id(btf, fi->type_id);

			fn = t ? btf__name_by_offset(btf, t->name_off) : NULL;
		} else if (n == 1) {
			fn = name[0] ? (const char *)name : NULL;
		} else {
			fn = "F";
		}
		if (fn)
			snprintf(k->name + o, sizeof(k->name) - o, "_%.*s", BPF_OBJ_NAME_LEN, fn);
	}
	err = 0;
out:
	free(addrs);
	free(lens);
	free(tags);
	free(finfo);
	return err;
}

int bpf_syms__refresh(struct bpf_syms *bs)
{
	uint32_t *ids = NULL, id = 0;
	size_t nids = 0, icap = 0, nsyms = 0, scap = 0;
	struct bpf_ksym *syms = NULL;
	struct btf_last bl = {};
	int err = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		if (nids == icap) {
			size_t nc = icap ? icap * 2 : 64;
			uint32_t *ni = realloc(ids, nc * sizeof(*ni));

			if (!ni) {
				free(ids);
				return -ENOMEM;
			}
			ids = ni;
			icap = nc;
		}
		ids[nids++] = id;
	}
	if (errno != ENOENT) {
		err = -errno;
		free(ids);
		return err;
	}
	/* Ids are never reused while the kernel runs: the same list means the same functions. */
	if (nids)
		qsort(ids, nids, sizeof(*ids), cmp_u32);
	if (bs->syms && nids == bs->nids && (!nids || !memcmp(ids, bs->ids, nids * sizeof(*ids)))) {
		free(ids);
		return 0;
	}
	for (size_t i = 0; i < nids; i++) {
		int fd = bpf_prog_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue; /* unloaded since it was listed */
		err = prog_syms(fd, &bl, &syms, &nsyms, &scap);
		close(fd);
		if (err == -ENOMEM)
			break;
		err = 0;
	}
	btf__free(bl.btf);
	if (err) {
		free(ids);
		free(syms);
		return err;
	}
	free(bs->ids);
	free(bs->syms);
	bs->ids = ids;
	bs->nids = nids;
	/* an empty list still counts as known: no allocation, but syms must be non-NULL */
	bs->syms = syms ? syms : calloc(1, sizeof(*syms));
	bs->nsyms = nsyms;
	return bs->syms ? 0 : -ENOMEM;
}

void bpf_syms__fini(struct bpf_syms *bs)
{
	free(bs->ids);
	free(bs->syms);
	memset(bs, 0, sizeof(*bs));
}
