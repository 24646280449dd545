// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host description features of perf.data, laid out and read from /proc and
 * /sys exactly as perf 6.1 does (tools/perf/util/header.c write_*() and
 * cputopo.c), so both files print the same header. docs/perf-data.md lists
 * the few places where the values may still differ and why.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "snapshot/pdhost.h"
#include "util/util.h"

#define SYS_CPU "/sys/devices/system/cpu"
#define SYS_NODE "/sys/devices/system/node"
#define SYS_PMU "/sys/bus/event_source/devices"
#define MAX_CACHE_LVL 4 /* perf 6.1's MAX_CACHE_LVL */

/* First line of a file without its newline; -1 when unreadable or empty. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* perf's sysfs__read_int(): atoi of the file's start. */
static int read_int(const char *path, int *v)
{
	char buf[64];

	if (read_line(path, buf, sizeof(buf)))
		return -1;
	*v = atoi(buf);
	return 0;
}

/* perf's sysfs__read_str() + strim(): the whole file, blanks trimmed both ends. */
static int read_trimmed(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n, s = 0;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	while (isspace((unsigned char)buf[s]))
		s++;
	memmove(buf, buf + s, n - s + 1);
	return 0;
}

/* Highest CPU in a list file ("0-3,8") + 1, or 0. */
static int list_max(const char *path)
{
	char buf[4096], *p;
	int max = -1;

	if (read_line(path, buf, sizeof(buf)))
		return 0;
	for (p = buf; *p; p++) {
		if (isdigit((unsigned char)*p) && (p == buf || !isdigit((unsigned char)p[-1]))) {
			int v = atoi(p);

			if (v > max)
				max = v;
		}
	}
	return max + 1;
}

/* ---------------------------------------------------------------- strings -- */

int pd_host_cpudesc(char *out, size_t len)
{
#if defined(__powerpc__) || defined(__hppa__) || defined(__sparc__)
	static const char *const keys[] = { "cpu" };
#elif defined(__s390__)
	static const char *const keys[] = { "vendor_id" };
#elif defined(__arm__)
	static const char *const keys[] = { "model name", "Processor" };
#elif defined(__loongarch__)
	static const char *const keys[] = { "Model Name" };
#else
	static const char *const keys[] = { "model name" };
#endif
	char line[1024];

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		FILE *f = fopen("/proc/cpuinfo", "re");
		char *s = NULL, *p, *w;

		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, keys[k], strlen(keys[k]))) {
				s = line;
				break;
			}
		}
		fclose(f);
		if (!s)
			continue;
		p = strchr(s, ':');
		if (p && p[1] == ' ' && p[2])
			s = p + 2;
		s[strcspn(s, "\n")] = 0;
		/* squash each run of blanks into one space (branding strings), as perf */
		for (p = w = s; *p; p++) {
			if (isspace((unsigned char)*p)) {
				if (w > s && w[-1] == ' ' && p > s && isspace((unsigned char)p[-1]))
					continue;
				*w++ = ' ';
			} else {
				*w++ = *p;
			}
		}
		*w = 0;
		snprintf(out, len, "%s", s);
		return 0;
	}
	return -1;
}

int pd_host_cpuid(char *buf, size_t len)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a = 0, b, c, d, lvl;
	int family = -1, model = -1, step = -1;
	char vendor[13];

	/* perf's arch/x86/util/header.c __get_cpuid(), "%s,%u,%u,%u" */
	if (!__get_cpuid(0, &lvl, &b, &c, &d))
		return -1;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	if (lvl >= 1) {
		__get_cpuid(1, &a, &b, &c, &d);
		family = (a >> 8) & 0xf;
		model = (a >> 4) & 0xf;
		step = a & 0xf;
		if (family == 0xf)
			family += (a >> 20) & 0xff;
		if (family >= 0x6)
			model += ((a >> 16) & 0xf) << 4;
	}
	snprintf(buf, len, "%s,%u,%u,%u", vendor, family, model, step);
	return 0;
#elif defined(__aarch64__)
	/* perf's arch/arm64/util/header.c: MIDR_EL1 of the first CPU that has one */
	char path[128], v[64];
	int n = list_max(SYS_CPU "/online");

	for (int cpu = 0; cpu < n; cpu++) {
		snprintf(path, sizeof(path), SYS_CPU "/cpu%d/regs/identification/midr_el1", cpu);
		if (!read_line(path, v, sizeof(v))) {
			snprintf(buf, len, "0x%016llx", strtoull(v, NULL, 16));
			return 0;
		}
	}
	return -1;
#else
	return -1;
#endif
}

static uint64_t total_mem_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	uint64_t kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "MemTotal:", 9) && sscanf(line, "%*s %" SCNu64, &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* --------------------------------------------------------- CPU_TOPOLOGY -- */

struct strset {
	char **s;
	uint32_t n;
};

static int strset_add(struct strset *set, const char *s)
{
	char **ns;

	for (uint32_t i = 0; i < set->n; i++)
		if (!strcmp(set->s[i], s))
			return 0;
	ns = realloc(set->s, (set->n + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	set->s = ns;
	set->s[set->n] = strdup(s);
	if (!set->s[set->n])
		return -ENOMEM;
	set->n++;
	return 0;
}

static void strset_put(struct pd_buf *b, const struct strset *set)
{
	pd_buf__u32(b, set->n);
	for (uint32_t i = 0; i < set->n; i++)
		pd_buf__str(b, set->s[i]);
}

static void strset_free(struct strset *set)
{
	for (uint32_t i = 0; i < set->n; i++)
		free(set->s[i]);
	free(set->s);
	memset(set, 0, sizeof(*set));
}

/* cputopo.c build_cpu_topology(): a list file, or its older name. */
static int topo_list(int cpu, const char *name, const char *old, char *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/%s", cpu, name);
	if (old && access(path, F_OK)) /* perf switches names on access() only */
		snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/%s", cpu, old);
	return read_line(path, buf, len);
}

static int32_t topo_id(int cpu, const char *name)
{
	char path[256];
	int v;

	snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/%s", cpu, name);
	return read_int(path, &v) ? -1 : v;
}

static void cpu_topology(struct pd_buf *b, uint32_t nr_avail)
{
	struct strset pkg = { 0 }, die = { 0 }, core = { 0 };
	struct utsname uts;
	unsigned char *online = calloc(nr_avail ? nr_avail : 1, 1);
	char buf[4096];
	int has_die, err = 0;

	if (!online || !nr_avail || cpus_online_mask(online, nr_avail) < 0)
		goto out;
	/* perf reads dies only on x86_64 and s390x, when cpu0 has die_cpus_list */
	has_die = !uname(&uts) &&
		  (!strncmp(uts.machine, "x86_64", 6) || !strncmp(uts.machine, "s390x", 5)) &&
		  !access(SYS_CPU "/cpu0/topology/die_cpus_list", F_OK);
	for (uint32_t cpu = 0; cpu < nr_avail && !err; cpu++) {
		if (!online[cpu])
			continue;
		if (!topo_list(cpu, "package_cpus_list", "core_siblings_list", buf, sizeof(buf)))
			err = strset_add(&pkg, buf);
		if (!err && has_die && !topo_list(cpu, "die_cpus_list", NULL, buf, sizeof(buf)))
			err = strset_add(&die, buf);
		if (!err &&
		    !topo_list(cpu, "core_cpus_list", "thread_siblings_list", buf, sizeof(buf)))
			err = strset_add(&core, buf);
	}
	if (err)
		goto out;
	strset_put(b, &pkg);
	strset_put(b, &core);
	for (uint32_t cpu = 0; cpu < nr_avail; cpu++) {
		pd_buf__u32(b, topo_id(cpu, "core_id"));
		pd_buf__u32(b, topo_id(cpu, "physical_package_id"));
	}
	if (die.n) {
		strset_put(b, &die);
		for (uint32_t cpu = 0; cpu < nr_avail; cpu++)
			pd_buf__u32(b, topo_id(cpu, "die_id"));
	}
out:
	if (err || b->err)
		pd_buf__free(b);
	free(online);
	strset_free(&pkg);
	strset_free(&die);
	strset_free(&core);
}

/* -------------------------------------------------------- NUMA_TOPOLOGY -- */

static int numa_node(struct pd_buf *b, int node)
{
	char path[256], line[256], field[32], cpus[4096];
	uint64_t mem, total = 0, free_kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), SYS_NODE "/node%d/meminfo", node);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strchr(line, ':'))
			continue;
		/* "Node 0 MemTotal:       7038712 kB" */
		if (sscanf(line, "%*s %*d %31s %" SCNu64, field, &mem) != 2) {
			fclose(f);
			return -1;
		}
		if (!strcmp(field, "MemTotal:"))
			total = mem;
		if (!strcmp(field, "MemFree:"))
			free_kb = mem;
		if (total && free_kb)
			break;
	}
	fclose(f);
	snprintf(path, sizeof(path), SYS_NODE "/node%d/cpulist", node);
	if (read_line(path, cpus, sizeof(cpus)))
		return -1;
	pd_buf__u32(b, node);
	pd_buf__u64(b, total);
	pd_buf__u64(b, free_kb);
	pd_buf__str(b, cpus);
	return 0;
}

static void numa_topology(struct pd_buf *b)
{
	enum { MAX_NODES = 4096 };
	unsigned char *mask = calloc(MAX_NODES, 1);
	char list[4096], err[128];
	uint32_t nr = 0;

	if (!mask || read_line(SYS_NODE "/online", list, sizeof(list)) ||
	    parse_cpulist(list, mask, MAX_NODES, err, sizeof(err)))
		goto out;
	for (int n = 0; n < MAX_NODES; n++)
		nr += mask[n];
	pd_buf__u32(b, nr);
	for (int n = 0; n < MAX_NODES; n++) {
		if (mask[n] && numa_node(b, n)) {
			pd_buf__free(b); /* perf writes nothing when a node cannot be read */
			break;
		}
	}
out:
	free(mask);
}

/* ----------------------------------------------------- PMU_MAPPINGS, CAPS -- */

/* PMUs in directory order, as perf 6.1's perf_pmu__scan() lists them; each with a type. */
struct pmu {
	char name[256];
	uint32_t type;
};

static int pmus_read(struct pmu **out)
{
	DIR *d = opendir(SYS_PMU);
	struct dirent *de;
	struct pmu *v = NULL, *nv;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[512];
		int type;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), SYS_PMU "/%s/type", de->d_name);
		if (read_int(path, &type))
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			n = -1;
			break;
		}
		v = nv;
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		v[n].type = type;
		n++;
	}
	closedir(d);
	if (n < 0) {
		free(v);
		v = NULL;
	}
	*out = v;
	return n;
}

/* A PMU's caps/ files as name/value pairs (perf_pmu__caps_parse()); returns their count. */
static int pmu_caps(const char *pmu, struct pd_buf *b)
{
	char dir[512], path[1024], val[256];
	DIR *d;
	struct dirent *de;
	int n = 0;

	snprintf(dir, sizeof(dir), SYS_PMU "/%s/caps", pmu);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (read_line(path, val, sizeof(val)))
			continue;
		if (b) {
			pd_buf__str(b, de->d_name);
			pd_buf__str(b, val);
		}
		n++;
	}
	closedir(d);
	return n;
}

static void pmu_features(struct pd_host *h)
{
	struct pd_buf *map = &h->feat[PD_HOST_PMU_MAPPINGS], *caps = &h->feat[PD_HOST_PMU_CAPS];
	struct pmu *p = NULL;
	int n = pmus_read(&p), with_caps = 0;

	if (n < 0)
		return;
	pd_buf__u32(map, n);
	for (int i = 0; i < n; i++) {
		pd_buf__u32(map, p[i].type);
		pd_buf__str(map, p[i].name);
	}
	/* CPU_PMU_CAPS: the "cpu" PMU's caps, when there is such a PMU */
	for (int i = 0; i < n; i++) {
		if (strcmp(p[i].name, "cpu"))
			continue;
		pd_buf__u32(&h->feat[PD_HOST_CPU_PMU_CAPS], pmu_caps("cpu", NULL));
		pmu_caps("cpu", &h->feat[PD_HOST_CPU_PMU_CAPS]);
	}
	/* PMU_CAPS: every other PMU that has caps: count, pairs, then its name */
	for (int i = 0; i < n; i++)
		with_caps += strcmp(p[i].name, "cpu") && pmu_caps(p[i].name, NULL) > 0;
	pd_buf__u32(caps, with_caps);
	for (int i = 0; i < n; i++) {
		int nc = strcmp(p[i].name, "cpu") ? pmu_caps(p[i].name, NULL) : 0;

		if (nc <= 0)
			continue;
		pd_buf__u32(caps, nc);
		pmu_caps(p[i].name, caps);
		pd_buf__str(caps, p[i].name);
	}
	free(p);
}

/* ----------------------------------------------------------------- CACHE -- */

struct cache_level {
	int level, line_size, sets, ways;
	char type[64], size[64], map[4096];
};

/* 1 = no such index, 0 = read, -1 = broken (perf then writes no CACHE at all). */
static int cache_read(struct cache_level *c, int cpu, int idx)
{
	char dir[128], path[192];
	struct stat st;

	snprintf(dir, sizeof(dir), SYS_CPU "/cpu%d/cache/index%d", cpu, idx);
	if (stat(dir, &st))
		return 1;
#define RD_INT(f, v)                                \
	snprintf(path, sizeof(path), "%s/" f, dir); \
	if (read_int(path, &c->v))                  \
	return -1
#define RD_STR(f, v)                                \
	snprintf(path, sizeof(path), "%s/" f, dir); \
	if (read_trimmed(path, c->v, sizeof(c->v))) \
	return -1
	RD_INT("level", level);
	RD_INT("coherency_line_size", line_size);
	RD_INT("number_of_sets", sets);
	RD_INT("ways_of_associativity", ways);
	RD_STR("type", type);
	RD_STR("size", size);
	RD_STR("shared_cpu_list", map);
#undef RD_INT
#undef RD_STR
	return 0;
}

static void cache_feature(struct pd_buf *b)
{
	int max = list_max(SYS_CPU "/possible"), cnt = 0, r = 0;
	struct cache_level *v = calloc((max ? max : 1) * MAX_CACHE_LVL, sizeof(*v)), c;

	if (!v)
		return;
	for (int cpu = 0; cpu < max && r >= 0; cpu++) {
		for (int idx = 0; idx < MAX_CACHE_LVL; idx++) {
			int i;

			r = cache_read(&c, cpu, idx);
			if (r)
				break;
			for (i = 0; i < cnt; i++)
				if (v[i].level == c.level && v[i].line_size == c.line_size &&
				    v[i].sets == c.sets && v[i].ways == c.ways &&
				    !strcmp(v[i].type, c.type) && !strcmp(v[i].size, c.size) &&
				    !strcmp(v[i].map, c.map))
					break;
			if (i == cnt)
				v[cnt++] = c;
		}
	}
	if (r < 0)
		goto out;
	/* by level, first-seen order kept within a level (glibc's qsort is a merge sort) */
	for (int i = 1; i < cnt; i++) {
		struct cache_level t = v[i];
		int j = i;

		for (; j > 0 && v[j - 1].level > t.level; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
	pd_buf__u32(b, 1); /* version */
	pd_buf__u32(b, cnt);
	for (int i = 0; i < cnt; i++) {
		pd_buf__u32(b, v[i].level);
		pd_buf__u32(b, v[i].line_size);
		pd_buf__u32(b, v[i].sets);
		pd_buf__u32(b, v[i].ways);
		pd_buf__str(b, v[i].type);
		pd_buf__str(b, v[i].size);
		pd_buf__str(b, v[i].map);
	}
out:
	free(v);
}

/* ---------------------------------------------------------- MEM_TOPOLOGY -- */

struct mem_node {
	uint64_t node, size; /* size: bits in set (highest memory block + 1) */
	uint64_t *set;
};

static int mem_node_read(struct mem_node *n, unsigned int node)
{
	char path[128];
	struct dirent *de;
	unsigned int mem, size = 0;
	DIR *d;

	snprintf(path, sizeof(path), SYS_NODE "/node%u", node);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "memory%u", &mem) == 1 && mem > size)
			size = mem;
	size++;
	n->node = node;
	n->size = size;
	n->set = calloc((size + 63) / 64, 8);
	if (!n->set) {
		closedir(d);
		return -ENOMEM;
	}
	rewinddir(d);
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "memory%u", &mem) == 1)
			n->set[mem / 64] |= 1ull << (mem % 64);
	closedir(d);
	return 0;
}

static void mem_topology(struct pd_buf *b)
{
	char buf[64];
	unsigned long long bsize;
	struct mem_node *v = NULL, *nv;
	struct dirent *de;
	uint64_t nr = 0;
	unsigned int node;
	DIR *d;
	int err = 0;

	if (read_line("/sys/devices/system/memory/block_size_bytes", buf, sizeof(buf)))
		return;
	bsize = strtoull(buf, NULL, 16);
	d = opendir(SYS_NODE);
	if (!d)
		return;
	while (!err && (de = readdir(d))) {
		if (sscanf(de->d_name, "node%u", &node) != 1)
			continue;
		nv = realloc(v, (nr + 1) * sizeof(*v));
		if (!nv) {
			err = -ENOMEM;
			break;
		}
		v = nv;
		err = mem_node_read(&v[nr], node);
		if (!err)
			nr++;
	}
	closedir(d);
	if (!err) {
		for (uint64_t i = 1; i < nr; i++) { /* by node */
			struct mem_node t = v[i];
			uint64_t j = i;

			for (; j > 0 && v[j - 1].node > t.node; j--)
				v[j] = v[j - 1];
			v[j] = t;
		}
		pd_buf__u64(b, 1); /* version */
		pd_buf__u64(b, bsize);
		pd_buf__u64(b, nr);
		for (uint64_t i = 0; i < nr; i++) {
			pd_buf__u64(b, v[i].node);
			pd_buf__u64(b, v[i].size);
			pd_buf__u64(b,
				    v[i].size); /* the bitmap: its size in bits, then u64 words */
			pd_buf__put(b, v[i].set, (v[i].size + 63) / 64 * 8);
		}
	}
	for (uint64_t i = 0; i < nr; i++)
		free(v[i].set);
	free(v);
}

/* ------------------------------------------------------------------ host -- */

int pd_host__init(struct pd_host *h)
{
	struct utsname uts;
	long n;

	memset(h, 0, sizeof(*h));
	if (!uname(&uts)) {
		snprintf(h->hostname, sizeof(h->hostname), "%s", uts.nodename);
		snprintf(h->osrelease, sizeof(h->osrelease), "%s", uts.release);
		snprintf(h->arch, sizeof(h->arch), "%s", uts.machine);
	}
	pd_host_cpudesc(h->cpudesc, sizeof(h->cpudesc));
	pd_host_cpuid(h->cpuid, sizeof(h->cpuid));
	h->nr_cpus_avail = list_max(SYS_CPU "/present");
	n = sysconf(_SC_NPROCESSORS_ONLN);
	h->nr_cpus_online = n > 0 ? n : 0;
	if (!h->nr_cpus_avail)
		h->nr_cpus_avail = h->nr_cpus_online;
	h->total_mem_kb = total_mem_kb();
	cpu_topology(&h->feat[PD_HOST_CPU_TOPOLOGY], h->nr_cpus_avail);
	numa_topology(&h->feat[PD_HOST_NUMA_TOPOLOGY]);
	pmu_features(h);
	cache_feature(&h->feat[PD_HOST_CACHE]);
	mem_topology(&h->feat[PD_HOST_MEM_TOPOLOGY]);
	/*
	 * No BPF programs described (count 0), as a perf built without libbpf
	 * writes them (Debian's perf 6.1 does): perf record would list the BPF
	 * programs it saw load, to symbolize JIT frames.
	 */
	pd_buf__u32(&h->feat[PD_HOST_BPF_PROG_INFO], 0);
	pd_buf__u32(&h->feat[PD_HOST_BPF_BTF], 0);
	for (int i = 0; i < PD_HOST_NR; i++) {
		if (h->feat[i].err == -ENOMEM) {
			pd_host__fini(h);
			return -ENOMEM;
		}
		if (h->feat[i].err)
			pd_buf__free(&h->feat[i]);
	}
	return 0;
}

void pd_host__fini(struct pd_host *h)
{
	for (int i = 0; i < PD_HOST_NR; i++)
		pd_buf__free(&h->feat[i]);
}

void pd_host__meta(const struct pd_host *h, struct pd_meta *m)
{
	m->hostname = h->hostname;
	m->osrelease = h->osrelease;
	m->arch = h->arch;
	m->cpudesc = h->cpudesc;
	m->cpuid = h->cpuid;
	m->nr_cpus_avail = h->nr_cpus_avail;
	m->nr_cpus_online = h->nr_cpus_online;
	m->total_mem_kb = h->total_mem_kb;
	for (int i = 0; i < PD_HOST_NR; i++)
		m->host[i] = &h->feat[i];
}
