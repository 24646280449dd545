// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Dynamic probes as tracefs dynamic events: names into uprobe_events /
 * kprobe_events lines, created in trigrec's group (trigrec_PID), kept in
 * one table, and removed again at exit or after a crash. See probes.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trigrec_abi.h"
#include "capture/probes.h"
#include "capture/probes_int.h"
#include "capture/tracefs.h"
#include "util/log.h"
#include "util/util.h"

#define GROUP_PREFIX "trigrec_"

/* ------------------------------------------------------------------ */
/* The table of created events                                           */

struct probe_ev {
	char *spec;
	enum probe_kind kind;
	int nev;
	struct tp_name *tps;
	char **fetch; /* each event's fetch-args, as written to tracefs */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct probe_ev *table;
static int ntable;
static char group[32];
static char last_err[1024];
static int atexit_done;

/*
 * The binary the last probes__resolve() did not find ("" = none): `trigrec
 * check` on a workstation takes it for a binary of the host the script is
 * for, not for a mistake.
 */
static char absent[PATH_MAX];

const char *probes__group(void)
{
	if (!group[0])
		snprintf(group, sizeof(group), GROUP_PREFIX "%d", (int)getpid());
	return group;
}

const char *probes__error(void)
{
	return last_err[0] ? last_err : "no error";
}

int probes__glob(const char *pattern, struct tp_name **out)
{
	if (pattern && probe_kind_of(pattern))
		return probes__resolve(pattern, out);
	return tracefs_glob(pattern, out);
}

const char *probes__absent(void)
{
	return absent[0] ? absent : NULL;
}

int probes__kernel_has(enum probe_kind k)
{
	const char *root = tracefs_root();
	char path[PATH_MAX];

	if (!root)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", root,
		 k == PROBE_KPROBE || k == PROBE_KRETPROBE ? "kprobe_events" : "uprobe_events");
	return access(path, W_OK) == 0;
}

/* BTF-typed kprobe arguments ($arg*, parameters by name): the README tells. */
static int kernel_btf_args(void)
{
	char *readme = tracefs_read("README", NULL);
	int has = readme && strstr(readme, "<argname>") != NULL;

	free(readme);
	return has;
}

static char *read_all(const char *path);

/* func's address in /proc/kallsyms (text symbols), 0 if unknown or hidden. */
static unsigned long long kallsyms_addr(const char *func)
{
	char line[512], name[256], type;
	unsigned long long addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    (type == 't' || type == 'T') && !strcmp(name, func))
			found = addr;
	fclose(f);
	return found;
}

/*
 * The kernel refused a kprobe on func: say why when the kprobe blacklist
 * knows (NOKPROBE_SYMBOL functions, noinstr and entry code), appended to err.
 */
static void kprobe_refusal_why(const char *func, char *err, size_t errlen)
{
	char *bl = read_all("/sys/kernel/debug/kprobes/blacklist"), entry[256];
	size_t n = err ? strlen(err) : 0;

	if (!err || n + 1 >= errlen)
		goto out;
	if (!bl) {
		snprintf(err + n, errlen - n,
			 " (functions on the kernel's kprobe blacklist, in noinstr or entry code, "
			 "cannot be probed; with debugfs mounted at /sys/kernel/debug trigrec says "
			 "whether %s is one)",
			 func);
	} else if (probe_blacklisted(bl, func, kallsyms_addr(func), entry, sizeof(entry))) {
		snprintf(err + n, errlen - n,
			 " (%s cannot be probed: the kernel's kprobe blacklist covers it, entry "
			 "'%s' in /sys/kernel/debug/kprobes/blacklist; probe a function that calls "
			 "it, or a tracepoint near it)",
			 func, entry);
	}
out:
	free(bl);
}

/* The last error the kernel logged for a dynamic event, for the message. */
static void kernel_error_log(char *out, size_t len)
{
	char *log = tracefs_read("error_log", NULL), *p, *line = NULL;

	out[0] = '\0';
	if (!log)
		return;
	for (p = log; (p = strstr(p, "error: ")); p += 7)
		line = p + 7;
	if (line)
		snprintf(out, len, "%.*s", (int)strcspn(line, "\n"), line);
	free(log);
}

static int write_events(const char *file, const char *line, char *err, size_t errlen)
{
	const char *root = tracefs_root();
	char path[PATH_MAX], klog[512];
	size_t n = strlen(line);
	int fd, e = 0;

	if (!root) {
		seterr(err, errlen, "tracefs is not available");
		return -ENODEV;
	}
	/* The last guard: one line, ours alone (the callers have said why already). */
	if (probe_text_check(file, line, 1, err, errlen))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s", root, file);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		seterr(err, errlen, "cannot open %s: %s", path, strerror(e));
		return -e;
	}
	if (write(fd, line, n) != (ssize_t)n)
		e = errno ? errno : EIO;
	close(fd);
	if (e) {
		kernel_error_log(klog, sizeof(klog));
		seterr(err, errlen, "the kernel refused '%s' in %s: %s%s%s", line, file,
		       strerror(e), klog[0] ? "; it says: " : "", klog);
		return -e;
	}
	return 0;
}

/* Remove the events pe created so far in file (a failed glob or USDT probe). */
static void unwind_events(struct probe_ev *pe, const char *file)
{
	char line[sizeof(pe->tps->sys) + sizeof(pe->tps->name) + 4];

	for (int i = 0; pe->tps && pe->fetch && i < pe->nev; i++) {
		snprintf(line, sizeof(line), "-:%s/%s", pe->tps[i].sys, pe->tps[i].name);
		write_events(file, line, NULL, 0);
		free(pe->fetch[i]);
	}
	free(pe->fetch);
	free(pe->tps);
	pe->tps = NULL;
	pe->fetch = NULL;
	pe->nev = 0;
}

static void sanitize(char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			*s = '_';
}

/* An event name of our group not used yet: base, base_2, base_3, ... */
static void unique_name(const char *base, const struct probe_ev *cur, char *out, size_t len)
{
	char b[MAX_EVENT_NAME - 4];

	snprintf(b, sizeof(b), "%s", base);
	sanitize(b);
	if (!isalpha((unsigned char)b[0]) && b[0] != '_')
		b[0] = '_';
	for (int k = 1;; k++) {
		int used = 0;

		if (k == 1)
			snprintf(out, len, "%s", b);
		else
			snprintf(out, len, "%s_%d", b, k);
		for (int i = 0; i < ntable && !used; i++)
			for (int j = 0; j < table[i].nev && !used; j++)
				used = !strcmp(table[i].tps[j].name, out);
		/* ... nor by the events of the name being created (globs, USDT sites). */
		for (int j = 0; cur && j < cur->nev && !used; j++)
			used = !strcmp(cur->tps[j].name, out);
		if (!used)
			return;
	}
}

static void remove_at_exit(void)
{
	probes__remove_all();
}

/* The binary a uprobe or USDT names: an absolute path (uprobe_events wants one); bare names from $PATH. */
static int resolve_path(const char *in, char *out, size_t len, char *err, size_t errlen)
{
	char buf[PATH_MAX];

	if (!strchr(in, '/')) {
		const char *pathenv = getenv("PATH");
		char *dup = strdup(pathenv ? pathenv : "/usr/bin:/bin"), *save = NULL, *d;
		int ok = 0;

		for (d = dup ? strtok_r(dup, ":", &save) : NULL; d && !ok;
		     d = strtok_r(NULL, ":", &save)) {
			if (snprintf(buf, sizeof(buf), "%s/%s", d, in) < (int)sizeof(buf))
				ok = !access(buf, X_OK);
		}
		free(dup);
		if (!ok) {
			seterr(err, errlen, "'%s': no such program in $PATH; give its path", in);
			snprintf(absent, sizeof(absent), "%s", in);
			return -ENOENT;
		}
		in = buf;
	}
	if (!realpath(in, out)) {
		seterr(err, errlen, "%s: %s", in, strerror(errno));
		if (errno == ENOENT || errno == ENOTDIR)
			snprintf(absent, sizeof(absent), "%s", in);
		return -ENOENT;
	}
	(void)len;
	return 0;
}

/* The whole of a file outside tracefs (/proc/kallsyms, debugfs), or NULL. */
static char *read_all(const char *path)
{
	char *buf = NULL, *nb;
	size_t cap = 0, n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - n < 2) {
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			close(fd);
			if (r < 0) {
				free(buf);
				return NULL;
			}
			buf[n] = '\0';
			return buf;
		}
		n += (size_t)r;
	}
	close(fd);
	free(buf);
	return NULL;
}

/*
 * kprobe:GLOB / kretprobe:GLOB: one event per matching kernel function.
 * With the default fields a function the kernel refuses is skipped (said at
 * -v); with a field list every match must take it, or nothing is created.
 */
static int create_kglob(const struct probe_spec *s, struct probe_ev *pe, char *err, size_t errlen)
{
	int kret = s->kind == PROBE_KRETPROBE, r, btf, nskip = 0;
	char *aff, *ksyms = NULL, *bl, fa[2048], line[3000], name[MAX_EVENT_NAME], base[320],
		   why[1024] = "";
	struct probe_names all, m;

	aff = tracefs_read("available_filter_functions", NULL);
	if (!aff)
		ksyms = read_all("/proc/kallsyms");
	bl = read_all("/sys/kernel/debug/kprobes/blacklist");
	r = probe_kfuncs(aff, ksyms, bl, &all);
	free(aff);
	free(ksyms);
	free(bl);
	if (r < 0)
		return r;
	r = probe_glob_expand(s->func, &all, PROBE_GLOB_MAX_KPROBES, "kernel functions", &m, err,
			      errlen);
	probe_names_free(&all);
	if (r < 0)
		return r;
	if (!probes__kernel_has(s->kind)) {
		seterr(err, errlen,
		       "%s:%s: this kernel has no kprobe events (%s/kprobe_events is missing: it "
		       "was built without CONFIG_KPROBE_EVENTS); uprobe: and usdt: work without it",
		       probe_kind_name(s->kind), s->func,
		       tracefs_root() ? tracefs_root() : "tracefs");
		probe_names_free(&m);
		return -EOPNOTSUPP;
	}
	btf = kernel_btf_args();
	pe->tps = calloc((size_t)m.n + 1, sizeof(*pe->tps));
	pe->fetch = calloc((size_t)m.n + 1, sizeof(*pe->fetch));
	if (!pe->tps || !pe->fetch) {
		r = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < m.n; i++) {
		int fb = 0;

		if (probe_fetchargs(s, NULL, 0, btf, fa, sizeof(fa), err, errlen)) {
			r = -EINVAL;
			goto fail;
		}
		snprintf(base, sizeof(base), "%s%s", m.v[i], kret ? "__return" : "");
		unique_name(base, pe, name, sizeof(name));
again:
		snprintf(line, sizeof(line), "%c:%s/%s %s %s", kret ? 'r' : 'p', probes__group(),
			 name, m.v[i], fa);
		r = write_events("kprobe_events", line, why, sizeof(why));
		if (r && !s->has_args && btf && !kret && !fb) {
			/* No BTF for this one: arg1..arg6 as on kernels without BTF arguments. */
			fb = 1;
			if (!probe_fetchargs(s, NULL, 0, 0, fa, sizeof(fa), err, errlen))
				goto again;
		}
		if (r && !s->has_args) {
			dlog("%s:%s: skipping %s: %s", probe_kind_name(s->kind), s->func, m.v[i],
			     why);
			nskip++;
			continue;
		}
		if (r) {
			seterr(err, errlen,
			       "%s:%s(%s): the field list applies to every function the glob "
			       "matches, and %s does not take it (%s); narrow the glob or use argN",
			       probe_kind_name(s->kind), s->func, s->args, m.v[i], why);
			goto fail;
		}
		snprintf(pe->tps[pe->nev].sys, sizeof(pe->tps[0].sys), "%s", probes__group());
		snprintf(pe->tps[pe->nev].name, sizeof(pe->tps[0].name), "%s", name);
		pe->fetch[pe->nev] = strdup(fa);
		if (!pe->fetch[pe->nev]) {
			snprintf(line, sizeof(line), "-:%s/%s", probes__group(), name);
			write_events("kprobe_events", line, NULL, 0);
			r = -ENOMEM;
			goto fail;
		}
		pe->nev++;
	}
	if (!pe->nev) {
		seterr(err, errlen, "%s:%s: the kernel refused all %d functions it matches (%s)",
		       probe_kind_name(s->kind), s->func, m.n, why);
		r = -EINVAL;
		goto fail;
	}
	if (nskip)
		ilog("%s:%s: %d of %d matching functions are not probeable and were skipped "
		     "(-vv names them)",
		     probe_kind_name(s->kind), s->func, nskip, m.n);
	probe_names_free(&m);
	return 0;
fail:
	unwind_events(pe, "kprobe_events");
	probe_names_free(&m);
	return r;
}

/* The uprobe_events / kprobe_events line(s) of one spec; fills names. */
static int create(const struct probe_spec *s, struct probe_ev *pe, char *err, size_t errlen)
{
	char fa[2048], line[PATH_MAX + 3000], name[MAX_EVENT_NAME], base[512], path[PATH_MAX],
		sugg[512];
	int kret = s->kind == PROBE_KRETPROBE || s->kind == PROBE_URETPROBE, r, nsites = 1;
	struct usdt_site *sites = NULL;
	struct probe_names fns = { 0 };
	uint64_t off = 0, *offs = NULL;

	switch (s->kind) {
	case PROBE_KPROBE:
	case PROBE_KRETPROBE: {
		int btf;

		if (probe_is_glob(s->func))
			return create_kglob(s, pe, err, errlen);
		r = probe_kallsyms_has(s->func, sugg, sizeof(sugg));
		if (r == 0) {
			seterr(err, errlen,
			       "no kernel function '%s'%s%s%s (not in /proc/kallsyms: misspelt, "
			       "inlined, or in a module not loaded)",
			       s->func, sugg[0] ? " (did you mean " : "", sugg,
			       sugg[0] ? "?)" : "");
			return -ENOENT;
		}
		if (!probes__kernel_has(s->kind)) {
			seterr(err, errlen,
			       "%s:%s: this kernel has no kprobe events (%s/kprobe_events is "
			       "missing: it was built without CONFIG_KPROBE_EVENTS); uprobe: and "
			       "usdt: work without it",
			       probe_kind_name(s->kind), s->func,
			       tracefs_root() ? tracefs_root() : "tracefs");
			return -EOPNOTSUPP;
		}
		btf = kernel_btf_args();
		if (probe_fetchargs(s, NULL, 0, btf, fa, sizeof(fa), err, errlen))
			return -EINVAL;
		if (s->offset)
			snprintf(base, sizeof(base), "%s_%llx", s->func,
				 (unsigned long long)s->offset);
		else
			snprintf(base, sizeof(base), "%s%s", s->func, kret ? "__return" : "");
		unique_name(base, pe, name, sizeof(name));
		if (s->offset)
			snprintf(line, sizeof(line), "p:%s/%s %s+%llu %s", probes__group(), name,
				 s->func, (unsigned long long)s->offset, fa);
		else
			snprintf(line, sizeof(line), "%c:%s/%s %s %s", kret ? 'r' : 'p',
				 probes__group(), name, s->func, fa);
		r = write_events("kprobe_events", line, err, errlen);
		if (r) {
			kprobe_refusal_why(s->func, err, errlen);
			return r;
		}
		pe->tps = calloc(1, sizeof(*pe->tps));
		if (!pe->tps)
			goto rm_one;
		pe->fetch = calloc(1, sizeof(*pe->fetch));
		if (!pe->fetch || !(pe->fetch[0] = strdup(fa)))
			goto rm_one;
		snprintf(pe->tps[0].sys, sizeof(pe->tps[0].sys), "%s", probes__group());
		snprintf(pe->tps[0].name, sizeof(pe->tps[0].name), "%s", name);
		pe->nev = 1;
		return 0;
rm_one:
		snprintf(line, sizeof(line), "-:%s/%s", probes__group(), name);
		write_events("kprobe_events", line, NULL, 0);
		return -ENOMEM;
	}
	case PROBE_UPROBE:
	case PROBE_URETPROBE:
	case PROBE_USDT: break;
	default: return -EINVAL;
	}
	if (resolve_path(s->path, path, sizeof(path), err, errlen))
		return -ENOENT;
	{
		char what[1100];

		/* Not printed itself: it holds what the check refuses. */
		snprintf(what, sizeof(what), "the real path of %.1000s", s->path);
		if (probe_text_check(what, path, 0, err, errlen))
			return -EINVAL;
	}
	if (s->kind == PROBE_USDT) {
		sites = calloc(MAX_USDT_SITES, sizeof(*sites));
		if (!sites)
			return -ENOMEM;
		nsites = probe_usdt_sites(path, s->provider, s->func, sites, MAX_USDT_SITES, err,
					  errlen);
		if (nsites < 0) {
			free(sites);
			return nsites;
		}
	} else if (probe_is_glob(s->func)) {
		struct probe_names all;
		char what[PATH_MAX + 32];

		r = probe_elf_func_names(path, &all, err, errlen);
		if (r <= 0)
			return r ? r : -ENODATA;
		snprintf(what, sizeof(what), "functions of %s", path);
		r = probe_glob_expand(s->func, &all, PROBE_GLOB_MAX_UPROBES, what, &fns, err,
				      errlen);
		probe_names_free(&all);
		if (r < 0)
			return r;
		offs = calloc((size_t)fns.n, sizeof(*offs));
		r = 0;
		for (int i = 0; offs && i < fns.n && !r; i++)
			r = probe_elf_symbol_offset(path, fns.v[i], 0, &offs[i], err, errlen);
		if (!offs || r) {
			probe_names_free(&fns);
			free(offs);
			return offs ? r : -ENOMEM;
		}
		nsites = fns.n;
	} else {
		r = probe_elf_symbol_offset(path, s->func, s->offset, &off, err, errlen);
		if (r)
			return r;
	}
	if (!probes__kernel_has(PROBE_UPROBE)) {
		seterr(err, errlen,
		       "%s: this kernel has no uprobe events (uprobe_events is missing: it was "
		       "built without CONFIG_UPROBE_EVENTS)",
		       probe_kind_name(s->kind));
		r = -EOPNOTSUPP;
		goto fail;
	}
	pe->tps = calloc((size_t)nsites, sizeof(*pe->tps));
	pe->fetch = calloc((size_t)nsites, sizeof(*pe->fetch));
	if (!pe->tps || !pe->fetch) {
		r = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < nsites; i++) {
		struct usdt_arg ua[PROBE_MAX_USDT_ARGS];
		int nua = 0;

		if (sites) {
			char why[512];

			nua = usdt_args_parse(sites[i].args, ua, PROBE_MAX_USDT_ARGS, why,
					      sizeof(why));
			if (nua < 0) {
				seterr(err, errlen, "usdt %s:%s in %s: %s", sites[i].provider,
				       sites[i].name, path, why);
				r = -EINVAL;
				goto fail;
			}
			snprintf(base, sizeof(base), "%s__%s", sites[i].provider, sites[i].name);
			off = sites[i].off;
		} else if (offs) {
			snprintf(base, sizeof(base), "%s%s", fns.v[i], kret ? "__return" : "");
			off = offs[i];
		} else if (s->offset) {
			snprintf(base, sizeof(base), "%s_%llx", s->func,
				 (unsigned long long)s->offset);
		} else {
			snprintf(base, sizeof(base), "%s%s", s->func, kret ? "__return" : "");
		}
		if (probe_fetchargs(s, ua, nua, 0, fa, sizeof(fa), err, errlen)) {
			r = -EINVAL;
			goto fail;
		}
		unique_name(base, pe, name, sizeof(name));
		if (sites && sites[i].sema_off)
			snprintf(line, sizeof(line), "p:%s/%s %s:0x%llx(0x%llx) %s",
				 probes__group(), name, path, (unsigned long long)off,
				 (unsigned long long)sites[i].sema_off, fa);
		else
			snprintf(line, sizeof(line), "%c:%s/%s %s:0x%llx %s", kret ? 'r' : 'p',
				 probes__group(), name, path, (unsigned long long)off, fa);
		r = write_events("uprobe_events", line, err, errlen);
		if (r)
			goto fail;
		snprintf(pe->tps[i].sys, sizeof(pe->tps[i].sys), "%s", probes__group());
		snprintf(pe->tps[i].name, sizeof(pe->tps[i].name), "%s", name);
		pe->fetch[i] = strdup(fa);
		pe->nev = i + 1;
	}
	free(sites);
	free(offs);
	probe_names_free(&fns);
	return 0;
fail:
	unwind_events(pe, "uprobe_events");
	free(sites);
	free(offs);
	probe_names_free(&fns);
	return r;
}

int probes__resolve(const char *given, struct tp_name **out)
{
	struct probe_spec *s;
	struct probe_ev pe = { 0 }, *nt;
	char name[PATH_MAX + 1536];
	size_t o = 0;
	int r;

	/* "f(a, b)" and "f(a,b)" are one probe: blanks go. */
	for (const char *c = given; *c && o < sizeof(name) - 1; c++)
		if (!isspace((unsigned char)*c))
			name[o++] = *c;
	name[o] = '\0';
	*out = NULL;
	pthread_mutex_lock(&lock);
	last_err[0] = '\0';
	absent[0] = '\0';
	for (int i = 0; i < ntable; i++) {
		if (strcmp(table[i].spec, name))
			continue;
		*out = malloc((size_t)table[i].nev * sizeof(**out));
		r = *out ? table[i].nev : -ENOMEM;
		if (*out)
			memcpy(*out, table[i].tps, (size_t)table[i].nev * sizeof(**out));
		pthread_mutex_unlock(&lock);
		return r;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		pthread_mutex_unlock(&lock);
		return -ENOMEM;
	}
	r = probe_spec_parse(name, s, last_err, sizeof(last_err));
	if (!r && !tracefs_root()) {
		snprintf(last_err, sizeof(last_err),
			 "%.200s needs tracefs (mount -t tracefs nodev /sys/kernel/tracing)", name);
		r = -ENODEV;
	}
	if (!r)
		r = create(s, &pe, last_err, sizeof(last_err));
	free(s);
	if (r > 0 || (!r && !pe.nev)) /* never a count without its events */
		r = -EINVAL;
	if (r) {
		pthread_mutex_unlock(&lock);
		return r;
	}
	pe.spec = strdup(name);
	pe.kind = probe_kind_of(name);
	nt = realloc(table, (size_t)(ntable + 1) * sizeof(*table));
	if (!pe.spec || !nt) {
		free(pe.spec);
		if (nt)
			table = nt;
		pthread_mutex_unlock(&lock);
		return -ENOMEM;
	}
	table = nt;
	table[ntable++] = pe;
	if (!atexit_done) {
		atexit(remove_at_exit);
		atexit_done = 1;
	}
	for (int i = 0; i < pe.nev; i++)
		dlog("probe %s is %s:%s", name, pe.tps[i].sys, pe.tps[i].name);
	*out = malloc((size_t)pe.nev * sizeof(**out));
	r = *out ? pe.nev : -ENOMEM;
	if (*out)
		memcpy(*out, pe.tps, (size_t)pe.nev * sizeof(**out));
	pthread_mutex_unlock(&lock);
	return r;
}

const char *probes__spec_of(const char *sys, const char *name, enum probe_kind *kind)
{
	const char *r = NULL;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < ntable && !r; i++)
		for (int j = 0; j < table[i].nev && !r; j++)
			if (!strcmp(table[i].tps[j].sys, sys) &&
			    !strcmp(table[i].tps[j].name, name)) {
				r = table[i].spec;
				if (kind)
					*kind = table[i].kind;
			}
	pthread_mutex_unlock(&lock);
	return r;
}

void probes__remove_all(void)
{
	char line[256], err[512];

	pthread_mutex_lock(&lock);
	for (int i = 0; i < ntable; i++) {
		const char *file =
			table[i].kind == PROBE_KPROBE || table[i].kind == PROBE_KRETPROBE ?
				"kprobe_events" :
				"uprobe_events";

		for (int j = 0; j < table[i].nev; j++) {
			snprintf(line, sizeof(line), "-:%s/%s", table[i].tps[j].sys,
				 table[i].tps[j].name);
			if (write_events(file, line, err, sizeof(err)))
				wlog("cannot remove probe %s:%s (%s); the next trigrec start removes "
				     "it",
				     table[i].tps[j].sys, table[i].tps[j].name, err);
		}
		for (int j = 0; j < table[i].nev; j++)
			free(table[i].fetch ? table[i].fetch[j] : NULL);
		free(table[i].fetch);
		free(table[i].tps);
		free(table[i].spec);
	}
	free(table);
	table = NULL;
	ntable = 0;
	pthread_mutex_unlock(&lock);
}

/* A pid that is a running trigrec (its events are not leftovers). */
static int live_trigrec(int pid)
{
	char path[64], comm[64] = "";
	FILE *f;

	if (pid == (int)getpid())
		return 1;
	if (kill(pid, 0) && errno == ESRCH)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return errno != ENOENT;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strncmp(comm, "trigrec", 7);
}

int probes__remove_stale(void)
{
	static const char *const files[] = { "kprobe_events", "uprobe_events" };
	int removed = 0;

	if (!tracefs_root())
		return 0;
	for (int fi = 0; fi < 2; fi++) {
		char *text = tracefs_read(files[fi], NULL), *save = NULL, *l;

		if (!text)
			continue;
		for (l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char grp[64], ev[MAX_EVENT_NAME + 1], line[160], err[512], *end;
			long pid;

			/* "p:GROUP/EVENT PLACE ..." or "r16:GROUP/EVENT ..." */
			if (sscanf(l, "%*[^:]:%63[^/]/%64s", grp, ev) != 2 ||
			    strncmp(grp, GROUP_PREFIX, strlen(GROUP_PREFIX)))
				continue;
			pid = strtol(grp + strlen(GROUP_PREFIX), &end, 10);
			if (*end || pid <= 0 || live_trigrec((int)pid))
				continue;
			snprintf(line, sizeof(line), "-:%s/%s", grp, ev);
			if (write_events(files[fi], line, err, sizeof(err)))
				wlog("cannot remove %s:%s left by an earlier trigrec (pid %ld): %s",
				     grp, ev, pid, err);
			else
				removed++;
		}
		free(text);
	}
	if (removed)
		ilog("removed %d probe%s left by a trigrec that did not exit cleanly", removed,
		     removed == 1 ? "" : "s");
	return removed;
}

/* The recipe of one of the events created here (see probe_recipe()). */
int probes__recipe(const char *sys, const char *name, const struct tp_format *fmt,
		   struct trigrec_probe_cfg *pc, char *why, size_t whylen)
{
	const char *fa = NULL;
	enum probe_kind kind = PROBE_NONE;
	char *dup;
	int r;

	memset(pc, 0, sizeof(*pc));
	pthread_mutex_lock(&lock);
	for (int i = 0; i < ntable && !fa; i++)
		for (int j = 0; j < table[i].nev && !fa; j++)
			if (!strcmp(table[i].tps[j].sys, sys) &&
			    !strcmp(table[i].tps[j].name, name)) {
				fa = table[i].fetch[j];
				kind = table[i].kind;
			}
	dup = fa ? strdup(fa) : NULL;
	pthread_mutex_unlock(&lock);
	if (!fa)
		return 0;
	if (!dup)
		return -ENOMEM;
	r = probe_recipe(dup, kind, fmt, pc, why, whylen);
	free(dup);
	return r;
}
