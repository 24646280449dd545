/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Parsing of user-facing values (sizes, durations, cpu lists) and name suggestions. */
#ifndef TRIGREC_UTIL_H
#define TRIGREC_UTIL_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Each parser returns 0 on success, or -EINVAL and writes a one-line reason
 * into err (e.g. "'12Q': unknown unit 'Q' (use K, M or G)").
 */

/* Sizes: "512K", "4M", "1G", "65536" (bytes; suffixes K/M/G, optional B, KiB). */
int parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen);
/*
 * -m argument as perf takes it: a plain number is pages (must be a power of two),
 * a number with a unit is bytes (rounded up to a power-of-two number of pages).
 * Result in pages.
 */
int parse_mmap_pages(const char *s, uint64_t *pages, char *err, size_t errlen);
/*
 * Durations: "10ms", "1s", "250us", "100ns", "2min", "1h", "7d", "1.5s", "10 ms".
 * Units are lower-case and mean one thing: "m" (ambiguous), "M" (a size) and
 * "MS" are refused with what to write; a bare number is an error. The one
 * parser of durations for the command line, scripts and triggers.
 */
int parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen);
/* A period: a duration, or a unit alone meaning one of it ("min", "hour", "s"). */
int parse_period(const char *s, uint64_t *ns, char *err, size_t errlen);
/*
 * A snapshot budget: "N/PERIOD", up to max of them separated by ',' or
 * spaces ("10/min, 60/hour"); PERIOD is as parse_period() reads it
 * ("30s"). Fills n[] and period_ns[] (unused slots 0); returns how many.
 */
int parse_budget(const char *s, uint64_t *n, uint64_t *period_ns, int max, char *err,
		 size_t errlen);
/* Unsigned integers with range check, decimal or 0x hex. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err, size_t errlen);
/* "0-3,5,7-8" into a bitmap of up to max_cpus entries (1 = selected); checks against max_cpus. */
int parse_cpulist(const char *s, unsigned char *mask, int max_cpus, char *err, size_t errlen);
/* The inverse: "0-3,5" for a bitmap of n entries ("" when none is set). */
void format_cpulist(const unsigned char *mask, int n, char *buf, size_t len);
/* Number of possible CPUs (from /sys/devices/system/cpu/possible), and online mask. */
int cpus_possible(void);
int cpus_online_mask(unsigned char *mask, int max_cpus);

/*
 * Whether trigrec can write in directory dir, found by doing it: a test file
 * is created and removed there. When dir does not exist (*missing = 1), a
 * test directory is made and removed in its deepest existing ancestor, as
 * mkdir_p() would need. 0, or -errno with a reason naming the path in err.
 */
int dir_check_writable(const char *dir, int *missing, char *err, size_t errlen);
/* mkdir -p: dir and each missing parent, with mode; 0 or -errno. */
int mkdir_p(const char *dir, unsigned mode);

/* Levenshtein distance, for "did you mean ...?" */
int edit_distance(const char *a, const char *b);

/*
 * The UTF-8 character at s: its length in bytes (1-4) and, when cp is not
 * NULL, its code point; 0 when s does not start a valid one (stray
 * continuation byte, overlong form, surrogate, above U+10FFFF, cut short).
 * s is NUL-terminated, so reading stops at the end of the string.
 */
int utf8_char(const char *s, uint32_t *cp);

/* CLOCK_MONOTONIC in nanoseconds (the clock of every recorded timestamp). */
uint64_t mono_ns(void);

/* Format a nanosecond duration as "1.234 ms" etc. */
const char *fmt_duration(uint64_t ns, char *buf, size_t len);
/*
 * A duration as a user writes it, in the largest unit that holds it exactly:
 * "1d", "90min", "1500ms", "7ns"; parse_duration() reads it back.
 */
const char *fmt_duration_as_written(uint64_t ns, char *buf, size_t len);
/* For prose: 3 significant-ish digits, "19.6 ms", "20 ms", "1.25 s", "850 ns". */
const char *fmt_duration_short(uint64_t ns, char *buf, size_t len);
/* Format a byte count as "512 B", "4 MiB", "1.5 GiB" (one decimal, truncated). */
const char *fmt_size(uint64_t bytes, char *buf, size_t len);

/*
 * An error message into err (len bytes; nothing when err is NULL or len 0):
 * the one helper every error-message writer formats with (script.c's and
 * the trigger language's add a position, or a list, around it).
 */
void seterr(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void vseterr(char *err, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* Capabilities by number (linux/capability.h), for caps_effective(). */
#define CAP_NR_IPC_LOCK 14
#define CAP_NR_SYS_ADMIN 21
#define CAP_NR_PERFMON 38
#define CAP_NR_BPF 39
#define CAP_BIT(n) (1ULL << (n))
/* Our effective capability set (CapEff of /proc/self/status); 0 if unreadable. */
uint64_t caps_effective(void);
/*
 * Does the capability set eff allow perf_event_open (bpf = 0) or bpf()
 * (bpf = 1) as root would: CAP_SYS_ADMIN, or CAP_PERFMON / CAP_BPF.
 */
int caps_privileged(uint64_t eff, int bpf);
/*
 * Why the kernel may have refused perf_event_open (bpf = 0) or bpf() (bpf = 1)
 * with EACCES/EPERM, as the end of an error message. Without the privilege:
 * "run as root, or grant ...". With it (root, or the capability), "run as
 * root" would be wrong: names what else refuses and is visible from here
 * (a user namespace, lockdown, seccomp, security modules).
 */
void explain_denied(int bpf, char *out, size_t len);
/*
 * printf to out at *o and move *o on, never past len (the text is cut
 * there). 0, or -E2BIG when the text was cut (or there was no room).
 */
int str_append(char *out, size_t len, size_t *o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Where a cgroup hierarchy is mounted: v2 (cgroup2), or the v1 one holding
 * controller. 1 with its directory in out (getmntent's unescaping: a space
 * is a space), else 0 with out "".
 */
int cgroup_mount(int v2, const char *controller, char *out, size_t len);

#endif
