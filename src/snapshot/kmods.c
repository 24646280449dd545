// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "snapshot/kmods.h"

/* Module names treat '-' and '_' alike (the file is often "foo-bar.ko" for foo_bar). */
static int name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return 0;
	return *a == *b;
}

static struct kmod_path *path_of(struct kmods *m, const char *name)
{
	for (int i = 0; i < m->npaths; i++)
		if (name_eq(m->paths[i].name, name))
			return &m->paths[i];
	return NULL;
}

static int add_path(struct kmods *m, const char *name, const char *path)
{
	struct kmod_path *p;

	if (m->npaths == m->cappaths) {
		int ncap = m->cappaths ? 2 * m->cappaths : 64;
		struct kmod_path *np = realloc(m->paths, ncap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		m->paths = np;
		m->cappaths = ncap;
	}
	p = &m->paths[m->npaths];
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->path = path ? strdup(path) : NULL;
	if (path && !p->path)
		return -ENOMEM;
	m->npaths++;
	return 0;
}

/*
 * Resolve the names not looked up yet in one pass over modules.dep in dir,
 * whose lines start "kernel/drivers/block/brd.ko[.xz]:". A name it lacks is
 * remembered without a file, so the file is not read again for it.
 */
static int resolve(struct kmods *m, const char *dir)
{
	char dep[1024], line[4096], base[64];
	int missing = 0, err = 0;
	FILE *f = NULL;

	for (int i = 0; i < m->n; i++)
		missing += !path_of(m, m->v[i].name);
	if (!missing)
		return 0;
	if ((size_t)snprintf(dep, sizeof(dep), "%s/modules.dep", dir) < sizeof(dep))
		f = fopen(dep, "re");
	while (f && fgets(line, sizeof(line), f) && !err) {
		char *colon = strchr(line, ':'), *slash, *dot;
		size_t n;

		if (!colon)
			continue;
		*colon = 0;
		slash = strrchr(line, '/');
		slash = slash ? slash + 1 : line;
		dot = strstr(slash, ".ko");
		n = dot ? (size_t)(dot - slash) : strlen(slash);
		if (n >= sizeof(base))
			continue;
		memcpy(base, slash, n);
		base[n] = 0;
		for (int i = 0; i < m->n; i++) {
			if (!name_eq(m->v[i].name, base) || path_of(m, m->v[i].name))
				continue;
			if ((size_t)snprintf(dep, sizeof(dep), "%s/%s", dir, line) < sizeof(dep))
				err = add_path(m, m->v[i].name, dep);
			break;
		}
	}
	if (f)
		fclose(f);
	for (int i = 0; i < m->n && !err; i++)
		if (!path_of(m, m->v[i].name))
			err = add_path(m, m->v[i].name, NULL);
	return err;
}

int kmods__refresh_from(struct kmods *m, const char *proc_modules, const char *moddir)
{
	char line[1024];
	FILE *f = fopen(proc_modules, "re");

	m->n = 0;
	m->hidden = 0;
	if (!f)
		return 0; /* CONFIG_MODULES off: nothing to map */
	while (fgets(line, sizeof(line), f)) {
		char name[64], state[16];
		unsigned long long size, addr;
		struct kmod *k;

		/* "brd 16384 0 - Live 0xffffffffc0a0e000 (E)" */
		if (sscanf(line, "%63s %llu %*s %*s %15s %llx", name, &size, state, &addr) != 4 ||
		    strcmp(state, "Live"))
			continue;
		if (!addr) {
			m->hidden++;
			continue;
		}
		if (m->n == m->cap) {
			int ncap = m->cap ? 2 * m->cap : 64;
			struct kmod *nv = realloc(m->v, ncap * sizeof(*nv));

			if (!nv) {
				fclose(f);
				return -ENOMEM;
			}
			m->v = nv;
			m->cap = ncap;
		}
		k = &m->v[m->n++];
		memset(k, 0, sizeof(*k));
		snprintf(k->name, sizeof(k->name), "%s", name);
		k->start = addr;
		k->len = size;
	}
	fclose(f);
	if (resolve(m, moddir))
		return -ENOMEM;
	for (int i = 0; i < m->n; i++) {
		struct kmod_path *p = path_of(m, m->v[i].name);

		m->v[i].path = p ? p->path : NULL;
	}
	return 0;
}

int kmods__refresh(struct kmods *m)
{
	char dir[512] = "/lib/modules/";
	struct utsname u;

	if (!uname(&u))
		snprintf(dir, sizeof(dir), "/lib/modules/%s", u.release);
	return kmods__refresh_from(m, "/proc/modules", dir);
}

const char *kmods__filename(const struct kmod *k, char *buf, size_t len)
{
	if (k->path)
		return k->path;
	snprintf(buf, len, "[%s]", k->name);
	return buf;
}

void kmods__free(struct kmods *m)
{
	for (int i = 0; i < m->npaths; i++)
		free(m->paths[i].path);
	free(m->paths);
	free(m->v);
	memset(m, 0, sizeof(*m));
}
