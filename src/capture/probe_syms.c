// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Where a probe goes: text symbols in /proc/kallsyms (with did-you-mean),
 * ELF symbol tables and USDT notes (libelf). Only reads; probes.c creates
 * the events. See probes_int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trigrec_abi.h"
#include "capture/probes.h"
#include "capture/probes_int.h"
#include "util/log.h"
#include "util/util.h"

/* 1 when FUNC is a text symbol in /proc/kallsyms; suggestions otherwise. */
int probe_kallsyms_has(const char *func, char *sugg, size_t slen)
{
	struct cand c[4] = { { { 0 } } };
	char line[512], name[256], type;
	unsigned long long addr;
	int found = 0, thr = probe_typo_threshold(func);
	FILE *f = fopen("/proc/kallsyms", "r");

	sugg[0] = '\0';
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (!strcmp(name, func)) {
			found = 1;
			break;
		}
		probe_cand_add(c, func, name, thr);
	}
	fclose(f);
	if (!found)
		probe_cand_text(c, "", sugg, slen);
	return found;
}

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static void elf_init(void)
{
	elf_version(EV_CURRENT);
}

/* A virtual address of the file into its file offset, through the PT_LOAD that holds it. */
static int vaddr_to_off(Elf *e, uint64_t va, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (va >= ph.p_vaddr && va < ph.p_vaddr + ph.p_memsz) {
			*off = va - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

static Elf *elf_open_path(const char *path, int *fd, char *err, size_t errlen)
{
	Elf *e;

	pthread_once(&elf_once, elf_init);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		seterr(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	e = elf_begin(*fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		seterr(err, errlen, "%s is not an ELF binary or library", path);
		if (e)
			elf_end(e);
		close(*fd);
		*fd = -1;
		return NULL;
	}
	return e;
}

/*
 * The file offset of SYMBOL(+off) in path (.symtab, else .dynsym). -ENOENT
 * with suggestions, -ENODATA when the file has no symbols at all.
 */
int probe_elf_symbol_offset(const char *path, const char *sym, uint64_t add, uint64_t *off,
			    char *err, size_t errlen)
{
	struct cand c[4] = { { { 0 } } };
	int fd, nsym = 0, found = 0, thr = probe_typo_threshold(sym), ret, symtab = 0;
	uint64_t va = 0;
	Elf_Scn *scn = NULL;
	char *end;
	Elf *e;

	e = elf_open_path(path, &fd, err, errlen);
	if (!e)
		return -ENOENT;
	if (sym[0] == '0' && sym[1] == 'x') {
		va = strtoull(sym, &end, 16);
		found = !*end;
	}
	for (int pass = 0; pass < 2 && !found; pass++) {
		while ((scn = elf_nextscn(e, scn)) && !found) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym s;
				const char *n;

				symtab |= !pass;
				if (!gelf_getsym(d, (int)i, &s) ||
				    GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value)
					continue;
				n = elf_strptr(e, sh.sh_link, s.st_name);
				if (!n)
					continue;
				nsym++;
				if (!strcmp(n, sym)) {
					va = s.st_value;
					found = 1;
					break;
				}
				probe_cand_add(c, sym, n, thr);
			}
		}
		scn = NULL;
	}
	if (!found) {
		char sg[512];

		probe_cand_text(c, "", sg, sizeof(sg));
		if (!nsym)
			seterr(err, errlen,
			       "%s has no symbols (stripped): give an address as "
			       "PATH:0xADDRESS, or probe an unstripped build",
			       path);
		else
			seterr(err, errlen, "no function '%s' in %s%s%s%s%s", sym, path,
			       sg[0] ? " (did you mean " : "", sg, sg[0] ? "?)" : "",
			       symtab ? "" :
					" (it has only its exported symbols: stripped; give "
					"PATH:0xADDRESS or probe an unstripped build)");
		ret = nsym ? -ENOENT : -ENODATA;
	} else {
		ret = vaddr_to_off(e, va + add, off);
		if (ret) {
			uint64_t at = va + add;

			seterr(err, errlen, "%s: 0x%" PRIx64 " is in no loaded segment of %s", sym,
			       at, path);
		}
	}
	elf_end(e);
	close(fd);
	return ret;
}

/*
 * The function symbols of path (.symtab and .dynsym, those with an address),
 * sorted and unique, for globs. Returns the count (0: stripped, err says so),
 * or -ENOENT (err) when path is no ELF file.
 */
int probe_elf_func_names(const char *path, struct probe_names *out, char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;
	int fd, r = 0, symtab = 0;
	Elf *e;

	memset(out, 0, sizeof(*out));
	e = elf_open_path(path, &fd, err, errlen);
	if (!e)
		return -ENOENT;
	while ((scn = elf_nextscn(e, scn)) && !r) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize)
			continue;
		symtab |= sh.sh_type == SHT_SYMTAB;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize && !r; i++) {
			GElf_Sym sy;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sy) || GELF_ST_TYPE(sy.st_info) != STT_FUNC ||
			    !sy.st_value)
				continue;
			n = elf_strptr(e, sh.sh_link, sy.st_name);
			if (n && n[0])
				r = probe_names_add(out, n);
		}
	}
	elf_end(e);
	close(fd);
	if (r) {
		probe_names_free(out);
		return r;
	}
	probe_names_sort(out, 0);
	if (!out->n)
		seterr(err, errlen,
		       "%s has no symbols (stripped): a glob needs its symbol table; give an "
		       "address as PATH:0xADDRESS, or probe an unstripped build",
		       path);
	else if (!symtab)
		dlog("%s has only its exported symbols (stripped): globs match only those", path);
	return out->n;
}

/*
 * The .note.stapsdt sites of path matching provider (or any, "") and name.
 * Returns the count (up to max), -ENOENT (err with suggestions) when none.
 */
static int usdt_sites_elf(Elf *e, const char *path, const char *provider, const char *name,
			  struct usdt_site *out, int max, char *err, size_t errlen)
{
	struct cand c[4] = { { { 0 } } };
	uint64_t base_addr = 0;
	int n = 0, nnotes = 0, is64, over = 0;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	char want[400];

	is64 = gelf_getclass(e) == ELFCLASS64;
	snprintf(want, sizeof(want), "%s:%s", provider[0] ? provider : "", name);
	if (elf_getshdrstrndx(e, &shstrndx))
		shstrndx = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *sn;

		if (gelf_getshdr(scn, &sh) && (sn = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    !strcmp(sn, ".stapsdt.base"))
			base_addr = sh.sh_addr;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, no, dof;
		const char *sn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(sn = elf_strptr(e, shstrndx, sh.sh_name)) || strcmp(sn, ".note.stapsdt"))
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &no, &dof)) > 0) {
			const char *desc = (const char *)d->d_buf + dof, *pv, *nm, *ar;
			size_t as = is64 ? 8 : 4;
			uint64_t pc = 0, base = 0, sema = 0;

			if (nh.n_type != 3 || nh.n_descsz < 3 * as + 3 ||
			    strcmp((const char *)d->d_buf + no, "stapsdt"))
				continue;
			if (is64) {
				memcpy(&pc, desc, 8);
				memcpy(&base, desc + 8, 8);
				memcpy(&sema, desc + 16, 8);
			} else {
				uint32_t v[3];

				memcpy(v, desc, sizeof(v));
				pc = v[0], base = v[1], sema = v[2];
			}
			/* Three strings, each ending inside the note (a crafted one may not). */
			pv = desc + 3 * as;
			nm = pv + strnlen(pv, (size_t)(desc + nh.n_descsz - pv)) + 1;
			if (nm >= desc + nh.n_descsz)
				continue;
			ar = nm + strnlen(nm, (size_t)(desc + nh.n_descsz - nm)) + 1;
			if (ar >= desc + nh.n_descsz ||
			    strnlen(ar, (size_t)(desc + nh.n_descsz - ar)) ==
				    (size_t)(desc + nh.n_descsz - ar))
				continue;
			nnotes++;
			/* Literal names or globs (fnmatch of a literal is strcmp). */
			if (fnmatch(name, nm, 0) || (provider[0] && fnmatch(provider, pv, 0))) {
				char full[260];

				snprintf(full, sizeof(full), "%s:%s", pv, nm);
				probe_cand_add(c, want, full, probe_typo_threshold(want) + 2);
				continue;
			}
			if (n >= max) {
				over++;
				continue;
			}
			/* Prelinked: move by how far .stapsdt.base moved. */
			if (base_addr && base) {
				pc += base_addr - base;
				if (sema)
					sema += base_addr - base;
			}
			memset(&out[n], 0, sizeof(out[n]));
			snprintf(out[n].provider, sizeof(out[n].provider), "%s", pv);
			snprintf(out[n].name, sizeof(out[n].name), "%s", nm);
			snprintf(out[n].args, sizeof(out[n].args), "%s", ar);
			if (vaddr_to_off(e, pc, &out[n].off) ||
			    (sema && vaddr_to_off(e, sema, &out[n].sema_off)))
				continue;
			n++;
		}
	}
	if (over) {
		seterr(err, errlen,
		       "usdt %s%s%s in %s has %d sites, more than the %d trigrec probes at once: "
		       "narrow the glob (or name the provider)",
		       provider[0] ? provider : "", provider[0] ? ":" : "", name, path, n + over,
		       max);
		return -E2BIG;
	}
	if (!n) {
		char sg[512];

		probe_cand_text(c, "", sg, sizeof(sg));
		if (!nnotes)
			seterr(err, errlen, "%s has no USDT probes (no .note.stapsdt section)",
			       path);
		else
			seterr(err, errlen, "no USDT probe %s%s%s in %s%s%s%s",
			       provider[0] ? provider : "", provider[0] ? ":" : "", name, path,
			       sg[0] ? " (did you mean " : "", sg, sg[0] ? "?)" : "");
		return -ENOENT;
	}
	return n;
}

int probe_usdt_sites(const char *path, const char *provider, const char *name,
		     struct usdt_site *out, int max, char *err, size_t errlen)
{
	int fd, n;
	Elf *e = elf_open_path(path, &fd, err, errlen);

	if (!e)
		return -ENOENT;
	n = usdt_sites_elf(e, path, provider, name, out, max, err, errlen);
	elf_end(e);
	close(fd);
	return n;
}

int usdt_sites_mem(const void *img, size_t len, const char *provider, const char *name,
		   struct usdt_site *out, int max, char *err, size_t errlen)
{
	Elf *e;
	int n;

	pthread_once(&elf_once, elf_init);
	e = elf_memory((char *)img, len);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		seterr(err, errlen, "(memory): not an ELF file");
		return -ENOENT;
	}
	n = usdt_sites_elf(e, "(memory)", provider, name, out, max, err, errlen);
	elf_end(e);
	return n;
}
