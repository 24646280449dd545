// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "snapshot/procs.h"

static uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352d;
	x ^= x >> 15;
	return x;
}

static int grow(struct procs *p)
{
	uint32_t ncap = p->cap ? p->cap * 2 : 1024;
	struct proc_ent *nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->cap; i++) {
		struct proc_ent *e = &p->tab[i];
		uint32_t h;

		if (!e->tid)
			continue;
		for (h = hash32(e->tid) & (ncap - 1); nt[h].tid; h = (h + 1) & (ncap - 1))
			;
		nt[h] = *e;
	}
	free(p->tab);
	p->tab = nt;
	p->cap = ncap;
	return 0;
}

static struct proc_ent *slot(struct procs *p, uint32_t tid, int create)
{
	uint32_t h;

	if (!p->cap || (create && (p->n + 1) * 2 > p->cap)) {
		if (!create && !p->cap)
			return NULL;
		if (grow(p))
			return NULL;
	}
	for (h = hash32(tid) & (p->cap - 1); p->tab[h].tid; h = (h + 1) & (p->cap - 1))
		if (p->tab[h].tid == tid)
			return &p->tab[h];
	if (!create)
		return NULL;
	p->tab[h].tid = tid;
	p->n++;
	return &p->tab[h];
}

int procs__read_comm(uint32_t pid, uint32_t tid, char *comm)
{
	char path[64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fread(comm, 1, 15, f);
	fclose(f);
	comm[n] = 0;
	if (n && comm[n - 1] == '\n')
		comm[n - 1] = 0;
	return 0;
}

static void put(struct procs *p, uint32_t pid, uint32_t tid, const char *comm)
{
	struct proc_ent *e = slot(p, tid, 1);

	if (!e)
		return;
	e->pid = pid;
	memcpy(e->comm, comm, sizeof(e->comm));
}

int procs__scan(struct procs *p)
{
	DIR *d = opendir("/proc"), *td;
	struct dirent *de, *te;
	char path[64], comm[16];

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		uint32_t pid = strtoul(de->d_name, NULL, 10);

		if (!pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task", pid);
		td = opendir(path);
		if (!td)
			continue;
		while ((te = readdir(td))) {
			uint32_t tid = strtoul(te->d_name, NULL, 10);

			if (tid && !procs__read_comm(pid, tid, comm))
				put(p, pid, tid, comm);
		}
		closedir(td);
	}
	closedir(d);
	return 0;
}

struct proc_ent *procs__get(struct procs *p, uint32_t tid)
{
	struct proc_ent *e = slot(p, tid, 0);
	char path[64], line[256], comm[16];
	uint32_t pid = 0;
	FILE *f;

	if (e)
		return e->pid ? e : NULL;
	/* Not seen by a scan: born since. Read it now if it still lives. */
	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	f = fopen(path, "r");
	if (!f) {
		/* Gone: remember that, or every record of it would retry /proc. */
		e = slot(p, tid, 1);
		if (e)
			e->pid = 0;
		return NULL;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &pid) == 1)
			break;
	fclose(f);
	if (!pid || procs__read_comm(pid, tid, comm)) {
		e = slot(p, tid, 1);
		if (e)
			e->pid = 0;
		return NULL;
	}
	put(p, pid, tid, comm);
	return slot(p, tid, 0);
}

void procs__note(struct procs *p, uint32_t pid, uint32_t tid)
{
	struct proc_ent *e;

	if (!tid || !pid)
		return;
	e = slot(p, tid, 0);
	if (e && e->pid)
		return;
	e = slot(p, tid, 1);
	if (e) {
		e->pid = pid;
		e->comm[0] = 0;
	}
}

void procs__clear_used(struct procs *p)
{
	for (uint32_t i = 0; i < p->cap; i++)
		p->tab[i].used = 0;
}

void procs__free(struct procs *p)
{
	free(p->tab);
	p->tab = NULL;
	p->cap = p->n = 0;
}
