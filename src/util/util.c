// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Parsing of user-facing values (sizes, durations, cpu lists) and name suggestions. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/log.h"
#include "util/util.h"

/* Largest per-CPU ring buffer -m accepts; beyond this is almost surely a typo. */
#define MMAP_MAX_BYTES (1ULL << 30)
/*
 * The smallest ring -m accepts: two of the largest tracepoint records
 * (TRIGREC_MAX_RECORD, 4 KiB, plus their headers) must fit, or a ring
 * holds one record or none and a snapshot shows next to nothing.
 */
#define MMAP_MIN_BYTES (16ULL << 10)
/* Inputs are quoted in messages; cap them so one line stays one line. */
#define QLEN 60
#define UNITLEN(p, e) ((e) - (p) > 16 ? 16 : (int)((e) - (p)))

void vseterr(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
}

void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vseterr(err, errlen, fmt, ap);
	va_end(ap);
}

/* [*b, *e) trimmed of surrounding whitespace. */
static void trim(const char *s, const char **b, const char **e)
{
	const char *p = s, *q = s + strlen(s);

	while (p < q && isspace((unsigned char)*p))
		p++;
	while (q > p && isspace((unsigned char)q[-1]))
		q--;
	*b = p;
	*e = q;
}

/* Decimal digits at *p..e into *v; returns digit count, sets *ovf on overflow. */
static int scan_digits(const char **p, const char *e, uint64_t *v, int *ovf)
{
	int n = 0;

	*v = 0;
	while (*p < e && isdigit((unsigned char)**p)) {
		unsigned d = (unsigned)(**p - '0');

		if (*v > (UINT64_MAX - d) / 10)
			*ovf = 1;
		else
			*v = *v * 10 + d;
		(*p)++;
		n++;
	}
	return n;
}

/* Case-insensitive compare of [p, e) with a NUL-terminated word. */
static int word_is(const char *p, const char *e, const char *w)
{
	size_t n = (size_t)(e - p);

	return strlen(w) == n && !strncasecmp(p, w, n);
}

/* Binary units only: "K" is 1024 here, as in perf -m and buffer_size_kb. */
static int size_unit(const char *p, const char *e, unsigned *shift)
{
	static const struct {
		const char *w;
		unsigned shift;
	} units[] = {
		{ "", 0 },    { "b", 0 },    { "k", 10 }, { "kb", 10 }, { "kib", 10 }, { "m", 20 },
		{ "mb", 20 }, { "mib", 20 }, { "g", 30 }, { "gb", 30 }, { "gib", 30 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (word_is(p, e, units[i].w)) {
			*shift = units[i].shift;
			return 0;
		}
	}
	return -1;
}

/*
 * Common part of parse_size and parse_mmap_pages. *has_unit tells whether a
 * suffix (even just "B") was given, which -m needs to tell pages from bytes.
 */
static int size_parse(const char *s, uint64_t *bytes, int *has_unit, char *err, size_t errlen)
{
	const char *p, *e;
	uint64_t v;
	unsigned shift;
	int ovf = 0;

	if (!s) {
		seterr(err, errlen, "empty size (expected e.g. 512K, 4M or 1G)");
		return -EINVAL;
	}
	trim(s, &p, &e);
	if (p == e) {
		seterr(err, errlen, "empty size (expected e.g. 512K, 4M or 1G)");
		return -EINVAL;
	}
	if (*p == '-') {
		seterr(err, errlen, "'%.*s': a size cannot be negative", QLEN, s);
		return -EINVAL;
	}
	if (*p == '+')
		p++;
	if (!scan_digits(&p, e, &v, &ovf)) {
		seterr(err, errlen,
		       "'%.*s': not a size (expected a number with an optional unit, e.g. 512K, 4M or 1G)",
		       QLEN, s);
		return -EINVAL;
	}
	if (p < e && (*p == '.' || *p == ',')) {
		seterr(err, errlen,
		       "'%.*s': fractional sizes are not supported (use a whole number in a smaller unit, e.g. 1536K rather than 1.5M)",
		       QLEN, s);
		return -EINVAL;
	}
	while (p < e && isspace((unsigned char)*p))
		p++;
	if (size_unit(p, e, &shift)) {
		seterr(err, errlen, "'%.*s': unknown unit '%.*s' (use K, M or G)", QLEN, s,
		       UNITLEN(p, e), p);
		return -EINVAL;
	}
	if (ovf || v > (UINT64_MAX >> shift)) {
		seterr(err, errlen, "'%.*s': size too large (it does not fit in 64 bits)", QLEN, s);
		return -EINVAL;
	}
	if (v == 0) {
		seterr(err, errlen, "'%.*s': size must be greater than 0", QLEN, s);
		return -EINVAL;
	}
	*bytes = v << shift;
	/* "4K" and "4096B" are bytes; only a bare number means pages to -m. */
	*has_unit = p < e;
	return 0;
}

int parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen)
{
	int has_unit;

	return size_parse(s, bytes, &has_unit, err, errlen);
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static uint64_t roundup_pow2(uint64_t v)
{
	uint64_t r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

static uint64_t page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (uint64_t)ps : 4096;
}

int parse_mmap_pages(const char *s, uint64_t *pages, char *err, size_t errlen)
{
	uint64_t ps = page_size(), max_pages = MMAP_MAX_BYTES / ps, v;
	int has_unit, ret;

	ret = size_parse(s, &v, &has_unit, err, errlen);
	if (ret) {
		/* size_parse talks about sizes; "0" as a page count deserves its own words. */
		const char *b, *e;

		if (s) {
			trim(s, &b, &e);
			if (b < e && strspn(b, "0") == (size_t)(e - b))
				seterr(err, errlen,
				       "'%.*s': need at least 1 page (use a power of two such as 1, 2 or 4, or a size such as 512K)",
				       QLEN, s);
		}
		return ret;
	}
	if (!has_unit) {
		if (v > max_pages) {
			seterr(err, errlen,
			       "'%.*s': too many pages (at most %llu pages = 1G per CPU)", QLEN, s,
			       (unsigned long long)max_pages);
			return -EINVAL;
		}
		if (!is_pow2(v)) {
			uint64_t hi = roundup_pow2(v);

			seterr(err, errlen,
			       "'%.*s': the number of pages must be a power of two (e.g. %llu or %llu), or give a size such as 512K",
			       QLEN, s, (unsigned long long)(hi >> 1), (unsigned long long)hi);
			return -EINVAL;
		}
		if (v * ps < MMAP_MIN_BYTES) {
			seterr(err, errlen,
			       "'%.*s': %llu page%s (%llu KiB) is below the smallest ring, %llu KiB "
			       "per CPU (two of the largest records must fit): give at least %llu "
			       "pages or %lluK",
			       QLEN, s, (unsigned long long)v, v == 1 ? "" : "s",
			       (unsigned long long)(v * ps >> 10),
			       (unsigned long long)(MMAP_MIN_BYTES >> 10),
			       (unsigned long long)(MMAP_MIN_BYTES / ps),
			       (unsigned long long)(MMAP_MIN_BYTES >> 10));
			return -EINVAL;
		}
		*pages = v;
		return 0;
	}
	if (v < MMAP_MIN_BYTES) {
		seterr(err, errlen,
		       "'%.*s': below the smallest ring, %lluK per CPU (two of the largest records "
		       "must fit): give at least %lluK",
		       QLEN, s, (unsigned long long)(MMAP_MIN_BYTES >> 10),
		       (unsigned long long)(MMAP_MIN_BYTES >> 10));
		return -EINVAL;
	}
	if (v > MMAP_MAX_BYTES) {
		seterr(err, errlen, "'%.*s': buffer too large (at most 1G per CPU)", QLEN, s);
		return -EINVAL;
	}
	/* Bytes: the kernel wants a power-of-two page count, so round up, never down. */
	*pages = roundup_pow2((v + ps - 1) / ps);
	return 0;
}

/*
 * The units of time, lower-case only and each with one meaning: "m" is
 * neither minutes nor milliseconds here (write min or ms), and "M" is a
 * mebibyte, never a unit of time. The same table reads every duration of
 * the command line, scripts and triggers, and the bare words of a period
 * ("limit 3/min", "budget 10/hour").
 */
static const struct {
	const char *w;
	uint64_t mult;
} dur_units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "\xc2\xb5s", 1000 },
	{ "\xce\xbcs", 1000 }, /* µ: micro sign, Greek mu */
	{ "ms", 1000000 },
	{ "s", 1000000000ULL },
	{ "sec", 1000000000ULL },
	{ "second", 1000000000ULL },
	{ "min", 60000000000ULL },
	{ "minute", 60000000000ULL },
	{ "h", 3600000000000ULL },
	{ "hour", 3600000000000ULL },
	{ "d", 86400000000000ULL },
	{ "day", 86400000000000ULL },
};

#define DUR_UNITS_HINT "use ns, us, ms, s, min, h or d"

/* Exact, case-sensitive: "MS" is not "ms". */
static int duration_unit(const char *p, const char *e, uint64_t *mult)
{
	size_t n = (size_t)(e - p);

	for (size_t i = 0; i < sizeof(dur_units) / sizeof(dur_units[0]); i++) {
		if (strlen(dur_units[i].w) == n && !strncmp(p, dur_units[i].w, n)) {
			*mult = dur_units[i].mult;
			return 0;
		}
	}
	return -1;
}

/*
 * Why [p, e) is not a unit of time, with what to write instead; num is the
 * number as given, for the suggestion.
 */
static void duration_unit_err(const char *s, const char *num, int numlen, const char *p,
			      const char *e, char *err, size_t errlen)
{
	uint64_t mult;
	char low[17];
	int n = UNITLEN(p, e);

	if (n == 1 && *p == 'm') {
		seterr(err, errlen,
		       "'%.*s': 'm' is ambiguous in a duration: write %.*smin for minutes or %.*sms "
		       "for milliseconds",
		       QLEN, s, numlen, num, numlen, num);
		return;
	}
	if (n == 1 && *p == 'M') {
		seterr(err, errlen,
		       "'%.*s': 'M' is not a unit of time (it is a mebibyte in sizes): did you mean "
		       "%.*sms or %.*smin?",
		       QLEN, s, numlen, num, numlen, num);
		return;
	}
	for (int i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)p[i]);
	low[n] = '\0';
	if (p + n == e && !duration_unit(low, low + n, &mult)) {
		seterr(err, errlen, "'%.*s': units are lower-case: write %.*s%s", QLEN, s, numlen,
		       num, low);
		return;
	}
	seterr(err, errlen, "'%.*s': unknown unit '%.*s' (" DUR_UNITS_HINT ")", QLEN, s, n, p);
}

int parse_period(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	const char *p, *e;

	if (s) {
		trim(s, &p, &e);
		/* A unit alone is one of it: "3/min", "10/hour". */
		if (p < e && !isdigit((unsigned char)*p) && *p != '.' && *p != '+' && *p != '-' &&
		    !duration_unit(p, e, ns))
			return 0;
	}
	return parse_duration(s, ns, err, errlen);
}

int parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	const char *p, *e, *num, *num_end;
	uint64_t ip = 0, fp = 0, den = 1, mult;
	unsigned __int128 total, frac;
	int ovf = 0, nd;

	if (!s) {
		seterr(err, errlen, "empty duration (expected e.g. 10ms, 1.5s or 2min)");
		return -EINVAL;
	}
	trim(s, &p, &e);
	if (p == e) {
		seterr(err, errlen, "empty duration (expected e.g. 10ms, 1.5s or 2min)");
		return -EINVAL;
	}
	if (*p == '-') {
		seterr(err, errlen, "'%.*s': a duration cannot be negative", QLEN, s);
		return -EINVAL;
	}
	if (*p == '+')
		p++;
	num = p;
	nd = scan_digits(&p, e, &ip, &ovf);
	if (p < e && *p == '.') {
		p++;
		while (p < e && isdigit((unsigned char)*p)) {
			/* 18 places is below a nanosecond even in hours; more is noise. */
			if (den >= 1000000000000000000ULL) {
				seterr(err, errlen, "'%.*s': too many decimal places", QLEN, s);
				return -EINVAL;
			}
			fp = fp * 10 + (uint64_t)(*p - '0');
			den *= 10;
			p++;
			nd++;
		}
	}
	num_end = p;
	if (!nd) {
		seterr(err, errlen,
		       "'%.*s': not a duration (expected a number and a unit, e.g. 10ms, 1.5s or 2min)",
		       QLEN, s);
		return -EINVAL;
	}
	while (p < e && isspace((unsigned char)*p))
		p++;
	if (p == e) {
		seterr(err, errlen, "'%.*s': missing unit (add a unit, e.g. %.*sms)", QLEN, s,
		       (int)(num_end - num), num);
		return -EINVAL;
	}
	if (duration_unit(p, e, &mult)) {
		duration_unit_err(s, num, (int)(num_end - num), p, e, err, errlen);
		return -EINVAL;
	}
	/*
	 * Exact integer arithmetic: "0.1s" must be 100000000ns, which a
	 * double does not promise; 128 bits cannot overflow here.
	 */
	frac = (unsigned __int128)fp * mult;
	if (frac % den) {
		seterr(err, errlen, "'%.*s': finer than the 1ns resolution", QLEN, s);
		return -EINVAL;
	}
	total = (unsigned __int128)ip * mult + frac / den;
	if (ovf || total > UINT64_MAX) {
		seterr(err, errlen, "'%.*s': duration too large (must be under 584 years)", QLEN,
		       s);
		return -EINVAL;
	}
	*ns = (uint64_t)total;
	return 0;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err, size_t errlen)
{
	const char *p, *e;
	uint64_t v = 0;
	int ovf = 0, n = 0;

	if (!s) {
		seterr(err, errlen, "empty value (expected a number)");
		return -EINVAL;
	}
	trim(s, &p, &e);
	if (p == e) {
		seterr(err, errlen, "empty value (expected a number)");
		return -EINVAL;
	}
	if (*p == '-') {
		seterr(err, errlen, "'%.*s': must not be negative", QLEN, s);
		return -EINVAL;
	}
	if (*p == '+')
		p++;
	/* Decimal unless 0x: "010" is ten, not an octal eight. */
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		for (p += 2; p < e && isxdigit((unsigned char)*p); p++, n++) {
			unsigned d = isdigit((unsigned char)*p) ?
					     (unsigned)(*p - '0') :
					     (unsigned)(tolower((unsigned char)*p) - 'a' + 10);

			if (v >> 60)
				ovf = 1;
			else
				v = v << 4 | d;
		}
	} else {
		n = scan_digits(&p, e, &v, &ovf);
	}
	if (!n || p != e) {
		seterr(err, errlen, "'%.*s': not a number (expected decimal, or hex with 0x)", QLEN,
		       s);
		return -EINVAL;
	}
	if (ovf || v > max || v < min) {
		if (max == UINT64_MAX)
			seterr(err, errlen, "'%.*s': must be at least %llu%s", QLEN, s,
			       (unsigned long long)min, ovf ? " and fit in 64 bits" : "");
		else
			seterr(err, errlen, "'%.*s': must be between %llu and %llu", QLEN, s,
			       (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/*
 * Walk a CPU list. strict: user input, reject out-of-range CPUs (else they are
 * ignored, for sysfs files). *highest gets the largest CPU named.
 */
static int cpulist_parse(const char *s, unsigned char *mask, int max_cpus, int strict, int *highest,
			 char *err, size_t errlen)
{
	const char *p, *e;
	int hi_seen = -1;

	if (mask && max_cpus > 0)
		memset(mask, 0, (size_t)max_cpus);
	if (!s) {
		seterr(err, errlen, "empty CPU list (expected e.g. 0-3,5)");
		return -EINVAL;
	}
	trim(s, &p, &e);
	if (p == e) {
		seterr(err, errlen, "empty CPU list (expected e.g. 0-3,5)");
		return -EINVAL;
	}
	for (;;) {
		uint64_t lo, hi;
		int ovf = 0;

		while (p < e && isspace((unsigned char)*p))
			p++;
		if (p == e || *p == ',') {
			seterr(err, errlen, "'%.*s': empty entry in CPU list (expected e.g. 0-3,5)",
			       QLEN, s);
			return -EINVAL;
		}
		if (!scan_digits(&p, e, &lo, &ovf))
			goto bad;
		hi = lo;
		while (p < e && isspace((unsigned char)*p))
			p++;
		if (p < e && *p == '-') {
			p++;
			while (p < e && isspace((unsigned char)*p))
				p++;
			if (!scan_digits(&p, e, &hi, &ovf))
				goto bad;
			while (p < e && isspace((unsigned char)*p))
				p++;
		}
		/* Absurd numbers fail the range check below, with its clearer message. */
		if (ovf)
			lo = hi = UINT64_MAX;
		if (hi < lo) {
			seterr(err, errlen, "'%.*s': reversed range %llu-%llu (write %llu-%llu)",
			       QLEN, s, (unsigned long long)lo, (unsigned long long)hi,
			       (unsigned long long)hi, (unsigned long long)lo);
			return -EINVAL;
		}
		if (strict && hi >= (uint64_t)max_cpus) {
			uint64_t bad = lo >= (uint64_t)max_cpus ? lo : (uint64_t)max_cpus;
			char range[32];

			if (max_cpus == 1)
				snprintf(range, sizeof(range), "CPU 0");
			else
				snprintf(range, sizeof(range), "CPUs 0-%d", max_cpus - 1);
			if (ovf)
				seterr(err, errlen,
				       "'%.*s': CPU number too large (this system has %d possible %s)",
				       QLEN, s, max_cpus, range);
			else
				seterr(err, errlen,
				       "'%.*s': CPU %llu does not exist (this system has %d possible %s)",
				       QLEN, s, (unsigned long long)bad, max_cpus, range);
			return -EINVAL;
		}
		if (hi < (uint64_t)INT_MAX && (int)hi > hi_seen)
			hi_seen = (int)hi;
		for (uint64_t c = lo; mask && c <= hi && c < (uint64_t)max_cpus; c++)
			mask[c] = 1;
		if (p == e)
			break;
		if (*p != ',')
			goto bad;
		p++;
	}
	if (highest)
		*highest = hi_seen;
	return 0;
bad:
	seterr(err, errlen, "'%.*s': bad CPU list at '%.*s' (expected e.g. 0-3,5)", QLEN, s,
	       (int)(e - p > 20 ? 20 : e - p), p);
	return -EINVAL;
}

int parse_cpulist(const char *s, unsigned char *mask, int max_cpus, char *err, size_t errlen)
{
	if (max_cpus <= 0) {
		seterr(err, errlen, "internal error: no CPUs to choose from (max_cpus=%d)",
		       max_cpus);
		return -EINVAL;
	}
	return cpulist_parse(s, mask, max_cpus, 1, NULL, err, errlen);
}

void format_cpulist(const unsigned char *mask, int n, char *buf, size_t len)
{
	size_t off = 0;

	if (len)
		buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		int j = i;

		if (!mask[i])
			continue;
		while (j + 1 < n && mask[j + 1])
			j++;
		if (off < len)
			off += snprintf(buf + off, len - off, j > i ? "%s%d-%d" : "%s%d",
					off ? "," : "", i, j);
		i = j;
	}
}

/* Read a small sysfs file into buf (NUL-terminated); -errno on failure. */
static int read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	buf[n] = '\0';
	return 0;
}

int cpus_possible(void)
{
	/* Cache: the possible set is fixed at boot, and this is asked often. */
	static int cached;
	char buf[4096];
	int hi = -1, n = __atomic_load_n(&cached, __ATOMIC_RELAXED);

	if (n > 0)
		return n;
	/* "0-3" or "0,2-5": possible CPUs may have holes, the count is the highest + 1. */
	if (!read_small("/sys/devices/system/cpu/possible", buf, sizeof(buf)) &&
	    !cpulist_parse(buf, NULL, 0, 0, &hi, NULL, 0) && hi >= 0) {
		n = hi + 1;
	} else {
		long c = sysconf(_SC_NPROCESSORS_CONF);

		dlog("cannot read /sys/devices/system/cpu/possible; using sysconf (%ld)", c);
		n = c > 0 && c < INT_MAX ? (int)c : 1;
	}
	__atomic_store_n(&cached, n, __ATOMIC_RELAXED);
	return n;
}

int cpus_online_mask(unsigned char *mask, int max_cpus)
{
	char buf[4096];
	int ret, n = 0;

	if (!mask || max_cpus <= 0)
		return -EINVAL;
	memset(mask, 0, (size_t)max_cpus);
	/* Not cached, unlike cpus_possible(): CPUs go on- and offline. */
	ret = read_small("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (ret)
		return ret;
	if (cpulist_parse(buf, mask, max_cpus, 0, NULL, NULL, 0))
		return -EINVAL;
	for (int i = 0; i < max_cpus; i++)
		n += mask[i];
	return n;
}

int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	/* Tracepoint names fit the stack row; only long strings need the heap. */
	int stack_row[128], *row = stack_row, d;

	if (lb + 1 > sizeof(stack_row) / sizeof(stack_row[0])) {
		row = malloc((lb + 1) * sizeof(*row));
		/* No memory: "very far", so no suggestion rather than a wrong one. */
		if (!row)
			return INT_MAX / 2;
	}
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	/* One row of the DP matrix; diag holds the previous row's [j-1]. */
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];

		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	d = row[lb];
	if (row != stack_row)
		free(row);
	return d;
}

int utf8_char(const char *s, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t c = u[0], min;
	int n;

	if (c < 0x80)
		n = 1, min = 0;
	else if (c >= 0xc2 && c <= 0xdf)
		n = 2, c &= 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		c = c << 6 | (u[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	if (cp)
		*cp = c;
	return n;
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

const char *fmt_duration(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		uint64_t div;
		const char *unit;
	} units[] = {
		{ 1000000000ULL, "s" },
		{ 1000000, "ms" },
		{ 1000, "us" },
	};

	if (!buf || !len)
		return "";
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t div = units[i].div;

		if (ns >= div) {
			/* Truncate rather than round so 999999ns never shows as "1000.000 us". */
			snprintf(buf, len, "%llu.%03llu %s", (unsigned long long)(ns / div),
				 (unsigned long long)(ns % div / (div / 1000)), units[i].unit);
			return buf;
		}
	}
	snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	return buf;
}

const char *fmt_duration_short(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		double div;
		const char *unit;
	} u[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" } };
	char *dot;

	if (!buf || !len)
		return "";
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if ((double)ns >= u[i].div) {
			double v = (double)ns / u[i].div;

			snprintf(buf, len, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
			/* "20.0" -> "20", "1.50" -> "1.5" */
			dot = strchr(buf, '.');
			if (dot) {
				char *e = buf + strlen(buf);

				while (e > dot + 1 && e[-1] == '0')
					*--e = 0;
				if (e == dot + 1)
					*dot = 0;
			}
			snprintf(buf + strlen(buf), len - strlen(buf), " %s", u[i].unit);
			return buf;
		}
	}
	snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	return buf;
}

const char *fmt_duration_as_written(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		uint64_t ns;
		const char *unit;
	} u[] = {
		{ 86400000000000ULL, "d" }, { 3600000000000ULL, "h" }, { 60000000000ULL, "min" },
		{ 1000000000ULL, "s" },	    { 1000000ULL, "ms" },      { 1000ULL, "us" },
	};

	if (!buf || !len)
		return "";
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (ns && !(ns % u[i].ns)) {
			snprintf(buf, len, "%llu%s", (unsigned long long)(ns / u[i].ns), u[i].unit);
			return buf;
		}
	}
	snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return buf;
}

const char *fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	uint64_t scale = 1;
	int u = -1;

	if (!buf || !len)
		return "";
	while (u < 5 && bytes / scale >= 1024) {
		scale *= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else if (bytes % scale == 0)
		snprintf(buf, len, "%llu %ciB", (unsigned long long)(bytes / scale), units[u]);
	else
		/* One decimal, truncated: never claim more than there is. */
		snprintf(buf, len, "%llu.%llu %ciB", (unsigned long long)(bytes / scale),
			 (unsigned long long)(bytes % scale * 10 / scale), units[u]);
	return buf;
}

uint64_t caps_effective(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long eff = 0;
	char line[256];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return eff;
}

int caps_privileged(uint64_t eff, int bpf)
{
	return (eff & CAP_BIT(CAP_NR_SYS_ADMIN)) ||
	       (eff & CAP_BIT(bpf ? CAP_NR_BPF : CAP_NR_PERFMON));
}

/* The number in a one-line file (a sysctl); LONG_MIN when unreadable. */
static long read_long(const char *path)
{
	char buf[64];

	if (read_small(path, buf, sizeof(buf)))
		return LONG_MIN;
	return strtol(buf, NULL, 10);
}

int str_append(char *out, size_t len, size_t *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*o >= len)
		return -E2BIG;
	va_start(ap, fmt);
	n = vsnprintf(out + *o, len - *o, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -E2BIG;
	if ((size_t)n >= len - *o) {
		*o = len - 1;
		return -E2BIG;
	}
	*o += (size_t)n;
	return 0;
}

void explain_denied(int bpf, char *out, size_t len)
{
	uint64_t eff = caps_effective();
	int priv = caps_privileged(eff, bpf);
	char ns[64] = "", buf[256] = "", *p;
	ssize_t n;
	long v;
	size_t o = 0;
	int any = 0;

	if (!out || !len)
		return;
	out[0] = '\0';
	n = readlink("/proc/self/ns/user", ns, sizeof(ns) - 1);
	ns[n > 0 ? n : 0] = '\0';
	/* 4026531837 (PROC_USER_INIT_INO) is the initial user namespace on every kernel. */
	if (n > 0 && strcmp(ns, "user:[4026531837]")) {
		str_append(out, len, &o,
			   "trigrec runs in a user namespace (%s, e.g. a rootless container), "
			   "where %s count for nothing in perf_event_open and bpf(): run it in the "
			   "host's initial namespace",
			   ns, priv ? "its capabilities" : "capabilities");
		any = 1;
	}
	if (!priv && !any) {
		str_append(out, len, &o,
			   "%s: run as root, or grant CAP_PERFMON and CAP_BPF "
			   "(setcap cap_perfmon,cap_bpf+ep trigrec)",
			   bpf ? "loading BPF programs needs "
				 "CAP_BPF (or CAP_SYS_ADMIN)" :
				 "system-wide perf events need CAP_PERFMON "
				 "(or CAP_SYS_ADMIN)");
		v = read_long(bpf ? "/proc/sys/kernel/unprivileged_bpf_disabled" :
				    "/proc/sys/kernel/perf_event_paranoid");
		if (v != LONG_MIN)
			str_append(out, len, &o, "; kernel.%s is %ld",
				   bpf ? "unprivileged_bpf_disabled" : "perf_event_paranoid", v);
		return;
	}
	if (any)
		return;
	/* We hold the privilege: something else refuses. Name what we can see. */
	str_append(out, len, &o, "trigrec has %s, so something else refuses:",
		   geteuid() == 0 ? "root's capabilities" :
		   bpf		  ? "CAP_BPF" :
				    "CAP_PERFMON");
	if (!read_small("/sys/kernel/security/lockdown", buf, sizeof(buf)) &&
	    (p = strchr(buf, '[')) && strncmp(p, "[none]", 6)) {
		char *e = strchr(p, ']');

		if (e)
			*e = '\0';
		str_append(out, len, &o,
			   " kernel lockdown is in %s mode (booted with lockdown= or "
			   "Secure Boot; it cannot be lifted at run time);",
			   p + 1);
	}
	{
		FILE *f = fopen("/proc/self/status", "r");
		char line[128];

		while (f && fgets(line, sizeof(line), f)) {
			if (sscanf(line, "Seccomp: %ld", &v) == 1) {
				if (v > 0)
					str_append(
						out, len, &o,
						" a seccomp filter is active (Seccomp: %ld, "
						"as in containers): allow perf_event_open and bpf in its "
						"profile;",
						v);
				break;
			}
		}
		if (f)
			fclose(f);
	}
	if (!read_small("/sys/kernel/security/lsm", buf, sizeof(buf))) {
		static const char *const policy_lsms[] = { "selinux", "apparmor", "smack", "tomoyo",
							   "bpf" };
		char found[128] = "";
		size_t fo = 0;

		for (char *s = buf, *tok; (tok = strsep(&s, ",\n"));)
			for (size_t i = 0; i < sizeof(policy_lsms) / sizeof(policy_lsms[0]); i++)
				if (!strcmp(tok, policy_lsms[i]))
					str_append(found, sizeof(found), &fo, "%s%s",
						   fo ? ", " : "", tok);
		if (found[0])
			str_append(out, len, &o,
				   " a security module may deny it (active: %s): look for "
				   "a denial in the audit log or dmesg;",
				   found);
	}
	str_append(out, len, &o, " check dmesg for the kernel's reason");
}

int parse_budget(const char *s, uint64_t *n, uint64_t *period_ns, int max, char *err, size_t errlen)
{
	const char *p = s;
	int k = 0;

	for (int i = 0; i < max; i++)
		n[i] = period_ns[i] = 0;
	for (;;) {
		char item[64], *slash, e[160];
		size_t len;

		p += strspn(p, ", \t");
		if (!*p)
			break;
		len = strcspn(p, ", \t");
		if (k == max) {
			snprintf(err, errlen, "'%s': at most %d budgets (e.g. 10/min, 60/hour)", s,
				 max);
			return -EINVAL;
		}
		if (len >= sizeof(item)) {
			snprintf(err, errlen, "'%.20s...': too long (N/PERIOD, e.g. 10/min)", p);
			return -EINVAL;
		}
		memcpy(item, p, len);
		item[len] = 0;
		p += len;
		slash = strchr(item, '/');
		if (!slash) {
			snprintf(err, errlen, "'%s': give N/PERIOD (e.g. 10/min, 60/hour)", item);
			return -EINVAL;
		}
		*slash = 0;
		if (parse_u64(item, 1, 1000000, &n[k], e, sizeof(e))) {
			snprintf(err, errlen, "'%s/%s': snapshot count %s", item, slash + 1, e);
			return -EINVAL;
		}
		if (parse_period(slash + 1, &period_ns[k], e, sizeof(e))) {
			snprintf(err, errlen, "'%s/%s': period: %s (or s, min, hour, day)", item,
				 slash + 1, e);
			return -EINVAL;
		}
		if (period_ns[k] < 1000000000ULL || period_ns[k] > 7 * 86400000000000ULL) {
			snprintf(err, errlen, "'%s/%s': the period must be between 1s and 7d", item,
				 slash + 1);
			return -EINVAL;
		}
		k++;
	}
	if (!k) {
		snprintf(err, errlen, "empty budget: give N/PERIOD (e.g. 10/min, 60/hour)");
		return -EINVAL;
	}
	return k;
}

/* Make and remove a test entry (a file, or with dir set a directory) in d. */
static int try_create(const char *d, int dir, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s%s.trigrec-write-test.%d", d, d[strlen(d) - 1] == '/' ? "" : "/",
		 (int)getpid());
	if (dir) {
		if (mkdir(path, 0700))
			return -errno;
		rmdir(path);
		return 0;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	unlink(path);
	return 0;
}

int dir_check_writable(const char *dir, int *missing, char *err, size_t errlen)
{
	char anc[PATH_MAX], test[PATH_MAX + 64];
	struct stat st;
	int r;

	*missing = 0;
	if (!dir || !*dir || strlen(dir) >= sizeof(anc)) {
		seterr(err, errlen, "'%.*s': not a usable directory path", QLEN, dir ? dir : "");
		return -EINVAL;
	}
	if (!stat(dir, &st)) {
		if (!S_ISDIR(st.st_mode)) {
			seterr(err, errlen, "%s is not a directory", dir);
			return -ENOTDIR;
		}
		r = try_create(dir, 0, test, sizeof(test));
		if (r)
			seterr(err, errlen, "%s is not writable: cannot create %s: %s", dir, test,
			       strerror(-r));
		return r;
	}
	if (errno != ENOENT && errno != ENOTDIR) {
		r = -errno;
		seterr(err, errlen, "%s: %s", dir, strerror(-r));
		return r;
	}
	/* Missing: the deepest ancestor that exists must take a new directory. */
	*missing = 1;
	snprintf(anc, sizeof(anc), "%s", dir);
	for (;;) {
		char *sl;
		size_t n = strlen(anc);

		while (n > 1 && anc[n - 1] == '/')
			anc[--n] = '\0';
		sl = strrchr(anc, '/');
		if (!sl)
			snprintf(anc, sizeof(anc), ".");
		else if (sl == anc)
			sl[1] = '\0';
		else
			*sl = '\0';
		if (!stat(anc, &st))
			break;
		if ((errno != ENOENT && errno != ENOTDIR) || !strcmp(anc, ".") ||
		    !strcmp(anc, "/")) {
			r = -errno;
			seterr(err, errlen, "cannot create %s: %s: %s", dir, anc, strerror(-r));
			return r;
		}
	}
	if (!S_ISDIR(st.st_mode)) {
		seterr(err, errlen, "cannot create %s: %s is not a directory", dir, anc);
		return -ENOTDIR;
	}
	r = try_create(anc, 1, test, sizeof(test));
	if (r)
		seterr(err, errlen, "cannot create %s: cannot create a directory in %s (%s: %s)",
		       dir, anc, test, strerror(-r));
	return r;
}

int mkdir_p(const char *dir, unsigned mode)
{
	char p[PATH_MAX];

	if (strlen(dir) >= sizeof(p))
		return -ENAMETOOLONG;
	snprintf(p, sizeof(p), "%s", dir);
	for (char *q = p + 1;; q++) {
		if (*q != '/' && *q)
			continue;
		if (q[-1] != '/') {
			char c = *q;

			*q = '\0';
			if (mkdir(p, mode) && errno != EEXIST)
				return -errno;
			*q = c;
		}
		if (!*q)
			return 0;
	}
}

int cgroup_mount(int v2, const char *controller, char *out, size_t len)
{
	struct mntent ent, *m;
	char buf[4096];
	FILE *f = setmntent("/proc/mounts", "re");
	int found = 0;

	if (len)
		out[0] = '\0';
	while (f && !found && (m = getmntent_r(f, &ent, buf, sizeof(buf)))) {
		if (v2 ? !strcmp(m->mnt_type, "cgroup2") :
			 !strcmp(m->mnt_type, "cgroup") && hasmntopt(m, controller))
			found = snprintf(out, len, "%s", m->mnt_dir) < (int)len;
	}
	if (f)
		endmntent(f);
	if (!found && len)
		out[0] = '\0';
	return found;
}
