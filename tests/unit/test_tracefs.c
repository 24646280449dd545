// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for src/capture/tracefs.c. Format parsing runs on embedded copies of real
 * format files, so it is tested without tracefs; the tracefs_* tests use the
 * live tracefs and are skipped (with the reason) when it is unavailable.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "capture/tracefs.h"

/*
 * Real formats (kernel 6.18): the ones tests/fuzz/gen-kernel-formats.sh
 * wrote from tracefs for the fuzz targets, not a copy of them here.
 */
#include "../fuzz/kernel_formats.h"

static const char *kfmt(const char *sys, const char *name)
{
	for (size_t i = 0; i < sizeof(kernel_formats) / sizeof(kernel_formats[0]); i++)
		if (!strcmp(kernel_formats[i].sys, sys) && !strcmp(kernel_formats[i].name, name))
			return kernel_formats[i].text;
	fprintf(stderr, "    %s:%s is not in tests/fuzz/kernel_formats.h\n", sys, name);
	abort();
}

static struct tp_format *parse(const char *sys, const char *name, const char *text)
{
	return tp_format__parse(sys, name, text, strlen(text));
}

/* Check one field's every attribute. */
#define FIELD(f, nm, ty, off, sz, sgn, kd)                                    \
	do {                                                                  \
		const struct tp_field *_fl = tp_format__field(f, nm);         \
		CHECK(_fl != NULL);                                           \
		if (_fl) {                                                    \
			CHECK_STR(_fl->type, ty);                             \
			CHECK_EQ(_fl->offset, off);                           \
			CHECK_EQ(_fl->size, sz);                              \
			CHECK_EQ(_fl->is_signed, sgn);                        \
			CHECK_EQ(_fl->kind, kd);                              \
			CHECK_EQ(_fl->is_common, !strncmp(nm, "common_", 7)); \
		}                                                             \
	} while (0)

static void check_common(const struct tp_format *f)
{
	FIELD(f, "common_type", "unsigned short", 0, 2, 0, TP_FIELD_INT);
	FIELD(f, "common_flags", "unsigned char", 2, 1, 0, TP_FIELD_INT);
	FIELD(f, "common_preempt_count", "unsigned char", 3, 1, 0, TP_FIELD_INT);
	FIELD(f, "common_pid", "int", 4, 4, 1, TP_FIELD_INT);
	for (int i = 0; i < 4 && i < f->nr_fields; i++)
		CHECK(f->fields[i].is_common);
	for (int i = 4; i < f->nr_fields; i++)
		CHECK(!f->fields[i].is_common);
}

TEST(parse_sched_switch)
{
	struct tp_format *f = parse("sched", "sched_switch", kfmt("sched", "sched_switch"));

	CHECK(f != NULL);
	if (!f)
		return 1;
	CHECK_STR(f->sys, "sched");
	CHECK_STR(f->name, "sched_switch");
	CHECK_EQ(f->id, 372);
	CHECK_EQ(f->nr_fields, 11);
	CHECK_EQ(f->fixed_size, 64);
	check_common(f);
	FIELD(f, "prev_comm", "char[16]", 8, 16, 0, TP_FIELD_CHARARRAY);
	FIELD(f, "prev_pid", "pid_t", 24, 4, 1, TP_FIELD_INT);
	FIELD(f, "prev_prio", "int", 28, 4, 1, TP_FIELD_INT);
	FIELD(f, "prev_state", "long", 32, 8, 1, TP_FIELD_INT);
	FIELD(f, "next_comm", "char[16]", 40, 16, 0, TP_FIELD_CHARARRAY);
	FIELD(f, "next_pid", "pid_t", 56, 4, 1, TP_FIELD_INT);
	FIELD(f, "next_prio", "int", 60, 4, 1, TP_FIELD_INT);
	/* Fields stay in file order. */
	CHECK_STR(f->fields[4].name, "prev_comm");
	CHECK_STR(f->fields[10].name, "next_prio");
	/* The text is kept verbatim, NUL-terminated, for perf.data. */
	CHECK_EQ(f->text_len, strlen(kfmt("sched", "sched_switch")));
	CHECK(f->text != kfmt("sched", "sched_switch"));
	CHECK_STR(f->text, kfmt("sched", "sched_switch"));
	CHECK(tp_format__field(f, "prev_comm[16]") == NULL);
	CHECK(tp_format__field(f, "nope") == NULL);
	CHECK(tp_format__field(f, NULL) == NULL);
	CHECK(tp_format__field(NULL, "prev_pid") == NULL);
	tp_format__free(f);
	return 0;
}

TEST(parse_openat_pointer)
{
	struct tp_format *f =
		parse("syscalls", "sys_enter_openat", kfmt("syscalls", "sys_enter_openat"));

	CHECK(f != NULL);
	if (!f)
		return 1;
	CHECK_EQ(f->id, 782);
	CHECK_EQ(f->nr_fields, 9);
	CHECK_EQ(f->fixed_size, 48);
	check_common(f);
	FIELD(f, "__syscall_nr", "int", 8, 4, 1, TP_FIELD_INT);
	FIELD(f, "dfd", "int", 16, 8, 0, TP_FIELD_INT);
	FIELD(f, "filename", "const char *", 24, 8, 0, TP_FIELD_PTR);
	FIELD(f, "flags", "int", 32, 8, 0, TP_FIELD_INT);
	FIELD(f, "mode", "umode_t", 40, 8, 0, TP_FIELD_INT);
	tp_format__free(f);
	return 0;
}

TEST(parse_raw_sys_enter_array)
{
	struct tp_format *f = parse("raw_syscalls", "sys_enter", kfmt("raw_syscalls", "sys_enter"));

	CHECK(f != NULL);
	if (!f)
		return 1;
	CHECK_EQ(f->id, 443);
	CHECK_EQ(f->nr_fields, 6);
	CHECK_EQ(f->fixed_size, 64);
	check_common(f);
	FIELD(f, "id", "long", 8, 8, 1, TP_FIELD_INT);
	FIELD(f, "args", "unsigned long[6]", 16, 48, 0, TP_FIELD_ARRAY);
	tp_format__free(f);
	return 0;
}

TEST(parse_exec_dataloc)
{
	struct tp_format *f =
		parse("sched", "sched_process_exec", kfmt("sched", "sched_process_exec"));

	CHECK(f != NULL);
	if (!f)
		return 1;
	CHECK_EQ(f->id, 365);
	CHECK_EQ(f->nr_fields, 7);
	CHECK_EQ(f->fixed_size, 20);
	check_common(f);
	FIELD(f, "filename", "__data_loc char[]", 8, 4, 0, TP_FIELD_DATALOC);
	FIELD(f, "pid", "pid_t", 12, 4, 1, TP_FIELD_INT);
	FIELD(f, "old_pid", "pid_t", 16, 4, 1, TP_FIELD_INT);
	tp_format__free(f);
	return 0;
}

TEST(parse_block_rq_issue)
{
	struct tp_format *f = parse("block", "block_rq_issue", kfmt("block", "block_rq_issue"));

	CHECK(f != NULL);
	if (!f)
		return 1;
	CHECK_EQ(f->id, 2104);
	CHECK_EQ(f->nr_fields, 12);
	CHECK_EQ(f->fixed_size, 64);
	check_common(f);
	FIELD(f, "dev", "dev_t", 8, 4, 0, TP_FIELD_INT);
	FIELD(f, "sector", "sector_t", 16, 8, 0, TP_FIELD_INT);
	FIELD(f, "nr_sector", "unsigned int", 24, 4, 0, TP_FIELD_INT);
	FIELD(f, "bytes", "unsigned int", 28, 4, 0, TP_FIELD_INT);
	FIELD(f, "ioprio", "unsigned short", 32, 2, 0, TP_FIELD_INT);
	FIELD(f, "rwbs", "char[10]", 34, 10, 0, TP_FIELD_CHARARRAY);
	FIELD(f, "comm", "char[16]", 44, 16, 0, TP_FIELD_CHARARRAY);
	FIELD(f, "cmd", "__data_loc char[]", 60, 4, 0, TP_FIELD_DATALOC);
	tp_format__free(f);
	return 0;
}

/* Spellings seen in other kernels and event classes. */
TEST(parse_unusual_fields)
{
	static const char text[] =
		"name: odd\n"
		"ID: 7\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:char *glued;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:const char *const * argv;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:char spaced [8];\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:u8 saddr[16];\toffset:32;\tsize:16;\tsigned:0;\n"
		"\tfield:unsigned char mac[6];\toffset:48;\tsize:6;\tsigned:0;\n"
		"\tfield:int old_style;\toffset:56;\tsize:4;\n" /* pre-3.x: no signed: */
		"\tfield:struct foo byval;\toffset:60;\tsize:12;\tsigned:0;\n"
		"\tfield:__data_loc u64[] ips;\toffset:72;\tsize:4;\tsigned:0;\n"
		"\tfield:s8 tiny;\toffset:76;\tsize:1;\tsigned:1;\n"
		"\tfield:char buf[];\toffset:80;\tsize:0;\tsigned:0;\n"
		"\n"
		"print fmt: \"field:int bogus;\toffset:99;\tsize:4;\tsigned:0;\"\n";
	struct tp_format *f = parse("test", "odd", text);

	CHECK(f != NULL);
	if (!f)
		return 1;
	CHECK_EQ(f->id, 7);
	CHECK_EQ(f->nr_fields, 11); /* the "field:" inside print fmt is not one */
	CHECK(tp_format__field(f, "bogus") == NULL);
	FIELD(f, "glued", "char *", 8, 8, 0, TP_FIELD_PTR);
	FIELD(f, "argv", "const char *const *", 16, 8, 0, TP_FIELD_PTR);
	FIELD(f, "spaced", "char[8]", 24, 8, 0, TP_FIELD_CHARARRAY);
	FIELD(f, "saddr", "u8[16]", 32, 16, 0, TP_FIELD_ARRAY);
	FIELD(f, "mac", "unsigned char[6]", 48, 6, 0, TP_FIELD_ARRAY);
	FIELD(f, "old_style", "int", 56, 4, 0, TP_FIELD_INT);
	FIELD(f, "byval", "struct foo", 60, 12, 0, TP_FIELD_ARRAY);
	FIELD(f, "ips", "__data_loc u64[]", 72, 4, 0, TP_FIELD_DATALOC);
	FIELD(f, "tiny", "s8", 76, 1, 1, TP_FIELD_INT);
	FIELD(f, "buf", "char[]", 80, 0, 0, TP_FIELD_CHARARRAY);
	CHECK_EQ(f->fixed_size, 80);
	tp_format__free(f);
	return 0;
}

TEST(parse_errors)
{
	char longname[200];

	/* Nothing that looks like a field. */
	errno = 0;
	CHECK(parse("a", "b", "") == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK(parse("a", "b", "name: b\nID: 1\nformat:\n\nprint fmt: \"\"\n") == NULL);
	CHECK_EQ(errno, EINVAL);
	/* Malformed field lines fail the whole parse rather than yield a wrong layout. */
	CHECK(parse("a", "b", "\tfield:int x;\tsize:4;\tsigned:1;\n") == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK(parse("a", "b", "\tfield:int x;\toffset:4;\tsigned:1;\n") == NULL);
	CHECK(parse("a", "b", "\tfield:int x;\toffset:-4;\tsize:4;\n") == NULL);
	CHECK(parse("a", "b", "\tfield:int x;\toffset:4x;\tsize:4;\n") == NULL);
	CHECK(parse("a", "b", "\tfield:int x;\toffset:99999999999;\tsize:4;\n") == NULL);
	CHECK(parse("a", "b", "\tfield:x;\toffset:0;\tsize:4;\n") == NULL);
	CHECK(parse("a", "b", "\tfield:;\toffset:0;\tsize:4;\n") == NULL);
	CHECK(parse("a", "b", "\tfield:int x\toffset:0\n") == NULL);
	CHECK(parse("a", "b", "\tfield:int *;\toffset:0;\tsize:8;\n") == NULL);
	/* Field name longer than struct tp_field holds. */
	snprintf(longname, sizeof(longname), "\tfield:int %070d;\toffset:0;\tsize:4;\n", 0);
	CHECK(parse("a", "b", longname) == NULL);
	/* sys/name too long for struct tp_format. */
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	errno = 0;
	CHECK(parse("a", longname, kfmt("sched", "sched_process_exec")) == NULL);
	CHECK_EQ(errno, ENAMETOOLONG);
	CHECK(parse(longname, "b", kfmt("sched", "sched_process_exec")) == NULL);
	errno = 0;
	CHECK(tp_format__parse("a", "b", NULL, 0) == NULL);
	CHECK_EQ(errno, EINVAL);
	tp_format__free(NULL);
	return 0;
}

TEST(parse_respects_len)
{
	/* Only the first len bytes count, and the text copy is NUL-terminated. */
	size_t cut = (size_t)(strstr(kfmt("sched", "sched_switch"), "\tfield:pid_t prev_pid") -
			      kfmt("sched", "sched_switch"));
	struct tp_format *f =
		tp_format__parse("sched", "sched_switch", kfmt("sched", "sched_switch"), cut);

	CHECK(f != NULL);
	if (!f)
		return 1;
	CHECK_EQ(f->nr_fields, 5);
	CHECK_EQ(f->fixed_size, 24);
	CHECK_EQ(f->text_len, cut);
	CHECK_EQ(strlen(f->text), cut);
	tp_format__free(f);
	return 0;
}

/* ---- live tracefs ---- */

static const char *live_root(void)
{
	const char *r = tracefs_root();

	/* tracefs_root() already said why (elog); the skip line repeats it briefly. */
	return r;
}

#define NEED_TRACEFS()                                                                            \
	do {                                                                                      \
		if (!live_root())                                                                 \
			SKIP("tracefs unavailable (not mounted and could not mount; need root)"); \
	} while (0)

TEST(live_root_and_read)
{
	const char *r;
	char *t;
	size_t len = 0;

	NEED_TRACEFS();
	r = tracefs_root();
	CHECK(r == tracefs_root()); /* cached */
	CHECK(!strcmp(r, "/sys/kernel/tracing") || !strcmp(r, "/sys/kernel/debug/tracing") ||
	      r[0] == '/');
	t = tracefs_read("events/header_page", &len);
	CHECK(t != NULL);
	if (t) {
		CHECK(len > 0);
		CHECK_EQ(strlen(t), len);
		CHECK(strstr(t, "field:") != NULL);
		free(t);
	}
	/* Larger than one read() buffer: a big format file reads whole. */
	t = tracefs_read("events/sched/sched_switch/format", NULL);
	CHECK(t != NULL);
	if (t) {
		CHECK(strstr(t, "print fmt:") != NULL);
		free(t);
	}
	errno = 0;
	CHECK(tracefs_read("events/no_such_sys/no_such_event/format", &len) == NULL);
	CHECK_EQ(errno, ENOENT);
	return 0;
}

TEST(live_event_id)
{
	char *t;
	int id;

	NEED_TRACEFS();
	id = tracefs_event_id("sched", "sched_switch");
	CHECK(id > 0);
	t = tracefs_read("events/sched/sched_switch/format", NULL);
	CHECK(t != NULL);
	if (t) {
		char want[32];

		snprintf(want, sizeof(want), "\nID: %d\n", id);
		CHECK(strstr(t, want) != NULL);
		free(t);
	}
	CHECK(tracefs_event_id("raw_syscalls", "sys_enter") > 0);
	CHECK(tracefs_event_id("raw_syscalls", "sys_enter") != id);
	CHECK_EQ(tracefs_event_id("sched", "sched_swich"), -ENOENT);
	CHECK_EQ(tracefs_event_id("nosys", "sched_switch"), -ENOENT);
	/* Names are names, not paths. */
	CHECK_EQ(tracefs_event_id("sched", "../sched/sched_switch"), -EINVAL);
	CHECK_EQ(tracefs_event_id("..", "events"), -EINVAL);
	CHECK_EQ(tracefs_event_id("", "x"), -EINVAL);
	CHECK_EQ(tracefs_event_id("sched", NULL), -EINVAL);
	/* "enable" is a file, there is no id below it. */
	CHECK(tracefs_event_id("sched", "enable") < 0);
	return 0;
}

static int has_tp(const struct tp_name *v, int n, const char *sys, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i].sys, sys) && !strcmp(v[i].name, name))
			return 1;
	return 0;
}

static int sorted_unique(const struct tp_name *v, int n)
{
	for (int i = 1; i < n; i++) {
		int c = strcmp(v[i - 1].sys, v[i].sys);

		if (c > 0 || (!c && strcmp(v[i - 1].name, v[i].name) >= 0))
			return 0;
	}
	return 1;
}

TEST(live_glob)
{
	struct tp_name *v = NULL;
	int n, all;

	NEED_TRACEFS();
	n = tracefs_glob("sched:sched_switch", &v);
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK_STR(v[0].sys, "sched");
		CHECK_STR(v[0].name, "sched_switch");
	}
	free(v);
	n = tracefs_glob("sched/sched_switch", &v); /* perf's spelling */
	CHECK_EQ(n, 1);
	free(v);
	n = tracefs_glob("sched_switch", &v); /* any system */
	CHECK_EQ(n, 1);
	if (n == 1)
		CHECK_STR(v[0].sys, "sched");
	free(v);

	n = tracefs_glob("sched:sched_sw*", &v);
	CHECK(n >= 1);
	CHECK(has_tp(v, n, "sched", "sched_switch"));
	CHECK(sorted_unique(v, n));
	for (int i = 0; i < n; i++)
		CHECK(!strncmp(v[i].name, "sched_sw", 8));
	free(v);

	n = tracefs_glob("sched:*", &v);
	CHECK(n > 10);
	CHECK(sorted_unique(v, n));
	CHECK(has_tp(v, n, "sched", "sched_process_exec"));
	/* Per-system files are not tracepoints. */
	CHECK(!has_tp(v, n, "sched", "enable"));
	CHECK(!has_tp(v, n, "sched", "filter"));
	free(v);

	n = tracefs_glob("s?hed:sched_switc[gh]", &v);
	CHECK_EQ(n, 1);
	free(v);

	n = tracefs_glob("*:sys_enter", &v);
	CHECK(n >= 1);
	CHECK(has_tp(v, n, "raw_syscalls", "sys_enter"));
	free(v);

	all = tracefs_glob("*:*", &v);
	CHECK(all > 100);
	CHECK(sorted_unique(v, all));
	CHECK(has_tp(v, all, "sched", "sched_switch"));
	/* header_page, header_event, enable: files at the top, not systems. */
	for (int i = 0; i < all; i++) {
		CHECK(strcmp(v[i].sys, "header_page") && strcmp(v[i].sys, "enable"));
		CHECK(strcmp(v[i].name, "enable") && strcmp(v[i].name, "filter"));
	}
	free(v);
	CHECK_EQ(tracefs_glob("*", &v), all);
	free(v);

	/* No match: 0 and NULL, not an error. */
	v = (struct tp_name *)1;
	CHECK_EQ(tracefs_glob("sched:no_such_event_*", &v), 0);
	CHECK(v == NULL);
	CHECK_EQ(tracefs_glob("no_such_sys:*", &v), 0);
	CHECK_EQ(tracefs_glob("sched:sched_swich", &v), 0);
	CHECK_EQ(tracefs_glob("sched:enable", &v), 0);
	/*
	 * A lookup only reads: a probe's name (this binary's main, which a
	 * uprobe could attach to) creates nothing here; probes__glob does.
	 */
	{
		char exe[PATH_MAX], pat[PATH_MAX + 32];
		ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		exe[len > 0 ? len : 0] = '\0';
		snprintf(pat, sizeof(pat), "uprobe:%s:main", exe);
		CHECK(tracefs_glob(pat, &v) <= 0);
		CHECK(v == NULL);
	}
	CHECK(tracefs_glob("uprobe:*", &v) <= 0);
	free(v);
	CHECK_EQ(tracefs_glob("sched:..", &v), 0);
	CHECK_EQ(tracefs_glob("..:sched", &v), 0);
	CHECK_EQ(tracefs_glob("sched:sched_switch/format", &v), 0);
	/* Malformed patterns. */
	CHECK_EQ(tracefs_glob("", &v), -EINVAL);
	CHECK_EQ(tracefs_glob(NULL, &v), -EINVAL);
	CHECK_EQ(tracefs_glob(":sched_switch", &v), -EINVAL);
	CHECK_EQ(tracefs_glob("sched:", &v), -EINVAL);
	CHECK(v == NULL);
	return 0;
}

TEST(live_suggest)
{
	char out[256];

	NEED_TRACEFS();
	tracefs_suggest("sched:sched_swich", out, sizeof(out), 3);
	CHECK_STR(out, "sched:sched_switch");
	tracefs_suggest("sched/sched_swich", out, sizeof(out), 3);
	CHECK_STR(out, "sched:sched_switch");
	/* Missing or wrong system: the name alone finds it. */
	tracefs_suggest("sched_switch", out, sizeof(out), 3);
	CHECK_STR(out, "sched:sched_switch");
	tracefs_suggest("sched_swich", out, sizeof(out), 3);
	CHECK_STR(out, "sched:sched_switch");
	tracefs_suggest("shced:sched_switch", out, sizeof(out), 3);
	CHECK_STR(out, "sched:sched_switch");
	tracefs_suggest("SCHED:SCHED_SWITCH", out, sizeof(out), 3);
	CHECK_STR(out, "sched:sched_switch");
	tracefs_suggest("raw_syscalls:sys_entr", out, sizeof(out), 3);
	CHECK_STR(out, "raw_syscalls:sys_enter");
	/* Several equally close names are joined with " or ", up to max. */
	tracefs_suggest("sys_enter", out, sizeof(out), 5);
	CHECK(strstr(out, "raw_syscalls:sys_enter") != NULL);
	tracefs_suggest("sched:sched_wakeup_nw", out, sizeof(out), 3);
	CHECK_STR(out, "sched:sched_wakeup_new");
	if (tracefs_event_id("syscalls", "sys_enter_readv") > 0) { /* CONFIG_FTRACE_SYSCALLS */
		tracefs_suggest("syscalls:sys_enter_readx", out, sizeof(out), 3);
		CHECK_STR(out, "syscalls:sys_enter_read or syscalls:sys_enter_readv");
		tracefs_suggest("syscalls:sys_enter_readx", out, sizeof(out), 1);
		CHECK_STR(out, "syscalls:sys_enter_read");
		/* Room for one whole name only: the second is dropped, not cut. */
		tracefs_suggest("syscalls:sys_enter_readx", out, 30, 3);
		CHECK_STR(out, "syscalls:sys_enter_read");
	}
	/* Nothing close: empty. */
	tracefs_suggest("zzzzzzzzzzzzzzzz:qqqqqqqqqqqqq", out, sizeof(out), 3);
	CHECK_STR(out, "");
	tracefs_suggest("", out, sizeof(out), 3);
	CHECK_STR(out, "");
	tracefs_suggest(NULL, out, sizeof(out), 3);
	CHECK_STR(out, "");
	tracefs_suggest("sched:sched_swich", out, sizeof(out), 0);
	CHECK_STR(out, "");
	/* Too small for a whole name: nothing rather than half a name. */
	tracefs_suggest("sched:sched_swich", out, 10, 3);
	CHECK_STR(out, "");
	tracefs_suggest("sched:sched_swich", NULL, 0, 3);
	return 0;
}

static void check_same(const struct tp_format *a, const struct tp_format *b)
{
	CHECK_EQ(a->id, b->id);
	CHECK_EQ(a->nr_fields, b->nr_fields);
	CHECK_EQ(a->fixed_size, b->fixed_size);
	CHECK_EQ(a->text_len, b->text_len);
	for (int i = 0; i < a->nr_fields && i < b->nr_fields; i++) {
		CHECK_STR(a->fields[i].name, b->fields[i].name);
		CHECK_STR(a->fields[i].type, b->fields[i].type);
		CHECK_EQ(a->fields[i].offset, b->fields[i].offset);
		CHECK_EQ(a->fields[i].size, b->fields[i].size);
		CHECK_EQ(a->fields[i].kind, b->fields[i].kind);
	}
}

TEST(live_load_examples)
{
	static const struct {
		const char *sys, *name, *field;
		enum tp_field_kind kind;
	} ex[] = {
		{ "sched", "sched_switch", "prev_comm", TP_FIELD_CHARARRAY },
		{ "syscalls", "sys_enter_openat", "filename", TP_FIELD_PTR },
		{ "raw_syscalls", "sys_enter", "args", TP_FIELD_ARRAY },
		{ "sched", "sched_process_exec", "filename", TP_FIELD_DATALOC },
		{ "block", "block_rq_issue", "rwbs", TP_FIELD_CHARARRAY },
	};
	int tested = 0;

	NEED_TRACEFS();
	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		struct tp_format *f = tp_format__load(ex[i].sys, ex[i].name), *g;
		const struct tp_field *fl;
		char *text;
		size_t len;

		if (!f && errno == ENOENT) {
			fprintf(stderr, "    note: %s:%s not in this kernel\n", ex[i].sys,
				ex[i].name);
			continue;
		}
		CHECK(f != NULL);
		if (!f)
			continue;
		tested++;
		CHECK_STR(f->sys, ex[i].sys);
		CHECK_STR(f->name, ex[i].name);
		CHECK_EQ(f->id, tracefs_event_id(ex[i].sys, ex[i].name));
		fl = tp_format__field(f, ex[i].field);
		CHECK(fl != NULL);
		if (fl)
			CHECK_EQ(fl->kind, ex[i].kind);
		check_common(f);
		/* Loading equals parsing the file's text. */
		{
			char rel[256];

			snprintf(rel, sizeof(rel), "events/%s/%s/format", ex[i].sys, ex[i].name);
			text = tracefs_read(rel, &len);
			CHECK(text != NULL);
			if (text) {
				CHECK_EQ(len, f->text_len);
				CHECK(!memcmp(text, f->text, len));
				g = tp_format__parse(ex[i].sys, ex[i].name, text, len);
				CHECK(g != NULL);
				if (g)
					check_same(f, g);
				tp_format__free(g);
				free(text);
			}
		}
		tp_format__free(f);
	}
	CHECK(tested >= 1);
	errno = 0;
	CHECK(tp_format__load("sched", "sched_swich") == NULL);
	CHECK_EQ(errno, ENOENT);
	errno = 0;
	CHECK(tp_format__load("sched", "../sched/sched_switch") == NULL);
	CHECK_EQ(errno, EINVAL);
	return 0;
}

/* Every tracepoint on this kernel parses, with a sane layout. */
TEST(live_load_all)
{
	struct tp_name *v = NULL;
	int n, ok = 0, gone = 0;

	NEED_TRACEFS();
	n = tracefs_glob("*:*", &v);
	CHECK(n > 0);
	for (int i = 0; i < n; i++) {
		struct tp_format *f = tp_format__load(v[i].sys, v[i].name);
		uint32_t end = 0;

		if (!f) {
			/* Module unloaded meanwhile, or a file root cannot read. */
			if (errno == ENOENT || errno == EACCES || errno == EPERM) {
				gone++;
				continue;
			}
			fprintf(stderr, "    %s:%s: %s\n", v[i].sys, v[i].name, strerror(errno));
			CHECK(f != NULL);
			continue;
		}
		ok++;
		CHECK(f->id > 0);
		CHECK(f->nr_fields >= 1);
		for (int j = 0; j < f->nr_fields; j++) {
			const struct tp_field *fl = &f->fields[j];

			CHECK(fl->name[0] && fl->type[0]);
			if (fl->offset + fl->size > end)
				end = fl->offset + fl->size;
			if (fl->kind == TP_FIELD_DATALOC)
				CHECK_EQ(fl->size, 4);
			if (fl->kind == TP_FIELD_INT)
				CHECK(fl->size == 1 || fl->size == 2 || fl->size == 4 ||
				      fl->size == 8);
			if (fl->kind == TP_FIELD_PTR)
				CHECK_EQ(fl->size, sizeof(void *));
			if (check_failed_in_test) {
				fprintf(stderr, "    at %s:%s field %s\n", v[i].sys, v[i].name,
					fl->name);
				break;
			}
		}
		CHECK_EQ(f->fixed_size, end);
		tp_format__free(f);
		if (check_failed_in_test)
			break;
	}
	printf("    loaded %d of %d tracepoint formats (%d unreadable)\n", ok, n, gone);
	CHECK(ok > 0);
	free(v);
	return 0;
}

RUN_TESTS(T(parse_sched_switch), T(parse_openat_pointer), T(parse_raw_sys_enter_array),
	  T(parse_exec_dataloc), T(parse_block_rq_issue), T(parse_unusual_fields), T(parse_errors),
	  T(parse_respects_len), T(live_root_and_read), T(live_event_id), T(live_glob),
	  T(live_suggest), T(live_load_examples), T(live_load_all))
