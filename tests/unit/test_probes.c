// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for src/capture/probes.c without the kernel: probe names, field
 * lists into uprobe_events/kprobe_events fetch-args, USDT argument specs and
 * the paren-aware list splitter.
 */
#include <errno.h>
#include <elf.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include "check.h"
#include "capture/probes.h"
#include "trigrec_abi.h"

TEST(parse_kinds)
{
	struct probe_spec s;
	char err[256];

	CHECK_EQ(probe_spec_parse("kprobe:do_sys_openat2", &s, err, sizeof(err)), 0);
	CHECK_EQ(s.kind, PROBE_KPROBE);
	CHECK_STR(s.func, "do_sys_openat2");
	CHECK_EQ(s.offset, 0);
	CHECK_EQ(probe_spec_parse("kprobe:vfs_read+0x10", &s, err, sizeof(err)), 0);
	CHECK_STR(s.func, "vfs_read");
	CHECK_EQ(s.offset, 16);
	CHECK_EQ(probe_spec_parse("kretprobe:vfs_read", &s, err, sizeof(err)), 0);
	CHECK_EQ(s.kind, PROBE_KRETPROBE);
	CHECK_EQ(probe_spec_parse("uprobe:/usr/sbin/nginx:ngx_http_process_request+4", &s, err,
				  sizeof(err)),
		 0);
	CHECK_EQ(s.kind, PROBE_UPROBE);
	CHECK_STR(s.path, "/usr/sbin/nginx");
	CHECK_STR(s.func, "ngx_http_process_request");
	CHECK_EQ(s.offset, 4);
	CHECK_EQ(probe_spec_parse("uretprobe:./app:work(retval:s32)", &s, err, sizeof(err)), 0);
	CHECK_EQ(s.kind, PROBE_URETPROBE);
	CHECK_STR(s.path, "./app");
	CHECK_STR(s.func, "work");
	CHECK_EQ(s.has_args, 1);
	CHECK_STR(s.args, "retval:s32");
	CHECK_EQ(probe_spec_parse("usdt:/usr/bin/python3:python:function__entry", &s, err,
				  sizeof(err)),
		 0);
	CHECK_EQ(s.kind, PROBE_USDT);
	CHECK_STR(s.path, "/usr/bin/python3");
	CHECK_STR(s.provider, "python");
	CHECK_STR(s.func, "function__entry");
	/* usdt:PATH:NAME: any provider */
	CHECK_EQ(probe_spec_parse("usdt:/opt/x/bin/app:tick", &s, err, sizeof(err)), 0);
	CHECK_STR(s.path, "/opt/x/bin/app");
	CHECK_STR(s.provider, "");
	CHECK_STR(s.func, "tick");
	return 0;
}

TEST(parse_errors)
{
	struct probe_spec s;
	char err[256];

	CHECK_EQ(probe_spec_parse("kprobe:", &s, err, sizeof(err)), -EINVAL);
	CHECK_EQ(probe_spec_parse("kretprobe:vfs_read+8", &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "not an offset"));
	CHECK_EQ(probe_spec_parse("uprobe:/bin/true", &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "uprobe:PATH:SYMBOL"));
	CHECK_EQ(probe_spec_parse("uprobe:/bin/x:f+zz", &s, err, sizeof(err)), -EINVAL);
	CHECK_EQ(probe_spec_parse("uprobe:/bin/x:f(arg1)x", &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "must end the name"));
	CHECK_EQ(probe_spec_parse("sched:sched_switch", &s, err, sizeof(err)), -EINVAL);
	CHECK_EQ(probe_kind_of("sched:sched_switch"), PROBE_NONE);
	CHECK_EQ(probe_kind_of("usdt:x:y"), PROBE_USDT);
	return 0;
}

static int fa(const char *name, int btf, char *out, size_t len, char *err)
{
	struct probe_spec s;

	if (probe_spec_parse(name, &s, err, 256))
		return -1;
	return probe_fetchargs(&s, NULL, 0, btf, out, len, err, 256);
}

TEST(fetchargs)
{
	char out[1024], err[256];

#if defined(__x86_64__)
	CHECK_EQ(fa("uprobe:/x:f", 0, out, sizeof(out), err), 0);
	CHECK_STR(out, "arg1=%di:s64 arg2=%si:s64 arg3=%dx:s64 arg4=%cx:s64 arg5=%r8:s64 "
		       "arg6=%r9:s64");
	CHECK_EQ(
		fa("uprobe:/x:f(id=arg1, tag=+0(arg3):string, arg2:u32)", 0, out, sizeof(out), err),
		0);
	CHECK_STR(out, "id=%di:s64 tag=+0(%dx):string arg2=%si:u32");
#endif
	CHECK_EQ(fa("uretprobe:/x:f", 0, out, sizeof(out), err), 0);
	CHECK_STR(out, "ret=$retval:s64");
	CHECK_EQ(fa("kprobe:f", 0, out, sizeof(out), err), 0);
	CHECK_STR(out, "arg1=$arg1:s64 arg2=$arg2:s64 arg3=$arg3:s64 arg4=$arg4:s64 "
		       "arg5=$arg5:s64 arg6=$arg6:s64");
	CHECK_EQ(fa("kprobe:f", 1, out, sizeof(out), err), 0);
	CHECK_STR(out, "$arg*");
	CHECK_EQ(fa("kprobe:f(file, n=arg2)", 1, out, sizeof(out), err), 0);
	CHECK_STR(out, "file=file n=$arg2");
	CHECK_EQ(fa("kprobe:f(file)", 0, out, sizeof(out), err), -EINVAL);
	CHECK(strstr(err, "BTF"));
	CHECK_EQ(fa("kretprobe:f(retval, comm)", 0, out, sizeof(out), err), 0);
	CHECK_STR(out, "ret=$retval:s64 comm=$comm:string");
	CHECK_EQ(fa("uretprobe:/x:f(arg1)", 0, out, sizeof(out), err), -EINVAL);
	CHECK(strstr(err, "only the return value"));
	CHECK_EQ(fa("uprobe:/x:f(retval)", 0, out, sizeof(out), err), -EINVAL);
	CHECK_EQ(fa("uprobe:/x:f(a=arg1, a=arg2)", 0, out, sizeof(out), err), -EINVAL);
	CHECK(strstr(err, "twice"));
	CHECK_EQ(fa("uprobe:/x:f(a=arg1:s99)", 0, out, sizeof(out), err), -EINVAL);
	CHECK(strstr(err, "unknown type"));
	CHECK_EQ(fa("uprobe:/x:f(common_pid=arg1)", 0, out, sizeof(out), err), -EINVAL);
	CHECK_EQ(fa("uprobe:/x:f(%ax, +8(+0(%sp)):u32)", 0, out, sizeof(out), err), 0);
	CHECK_STR(out, "ax=%ax:s64 sp_deref_deref=+8(+0(%sp)):u32");
	return 0;
}

TEST(usdt_args)
{
	struct usdt_arg a;
	struct usdt_arg ua[2];
	struct probe_spec s;
	char out[512], err[256];

#if defined(__x86_64__)
	CHECK_EQ(usdt_arg_parse("-4@%edi", &a), 0);
	CHECK_EQ(a.size, 4);
	CHECK_EQ(a.is_signed, 1);
	CHECK_STR(a.fetch, "%di");
	CHECK_EQ(usdt_arg_parse("8@%r13", &a), 0);
	CHECK_STR(a.fetch, "%r13");
	CHECK_EQ(usdt_arg_parse("4@%r9d", &a), 0);
	CHECK_STR(a.fetch, "%r9");
	CHECK_EQ(usdt_arg_parse("1@%al", &a), 0);
	CHECK_STR(a.fetch, "%ax");
	CHECK_EQ(usdt_arg_parse("-8@-24(%rbp)", &a), 0);
	CHECK_STR(a.fetch, "-24(%bp)");
	CHECK_EQ(usdt_arg_parse("8@16(%rsp)", &a), 0);
	CHECK_STR(a.fetch, "+16(%sp)");
	CHECK_EQ(usdt_arg_parse("-4@$5", &a), 0);
	CHECK_STR(a.fetch, "\\5");
	CHECK_EQ(usdt_arg_parse("8@foo(%rip)", &a), -EINVAL);
#endif
	CHECK_EQ(usdt_arg_parse("nonsense", &a), -EINVAL);
	CHECK_EQ(usdt_arg_parse("16@%rax", &a), -EINVAL);
	/* The note's sizes become the fields' types. */
	memset(ua, 0, sizeof(ua));
	ua[0].size = 4, ua[0].is_signed = 1;
	snprintf(ua[0].fetch, sizeof(ua[0].fetch), "%%di");
	ua[1].size = 8;
	snprintf(ua[1].fetch, sizeof(ua[1].fetch), "%%si");
	CHECK_EQ(probe_spec_parse("usdt:/x:p:n", &s, err, sizeof(err)), 0);
	CHECK_EQ(probe_fetchargs(&s, ua, 2, 0, out, sizeof(out), err, sizeof(err)), 0);
	CHECK_STR(out, "arg1=%di:s32 arg2=%si:u64");
	CHECK_EQ(probe_spec_parse("usdt:/x:p:n(tag=+0(arg2):string)", &s, err, sizeof(err)), 0);
	CHECK_EQ(probe_fetchargs(&s, ua, 2, 0, out, sizeof(out), err, sizeof(err)), 0);
	CHECK_STR(out, "tag=+0(%si):string");
	CHECK_EQ(probe_spec_parse("usdt:/x:p:n(arg3)", &s, err, sizeof(err)), 0);
	CHECK_EQ(probe_fetchargs(&s, ua, 2, 0, out, sizeof(out), err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "has 2 arguments"));
	return 0;
}

TEST(list_split)
{
	const char *p = "sched:sched_switch,uprobe:/x:f(a=arg1,b=+0(arg2):string),,usdt:/x:p:n";
	char item[256];

	CHECK_EQ(probe_list_next(&p, item, sizeof(item)), 1);
	CHECK_STR(item, "sched:sched_switch");
	CHECK_EQ(probe_list_next(&p, item, sizeof(item)), 1);
	CHECK_STR(item, "uprobe:/x:f(a=arg1,b=+0(arg2):string)");
	CHECK_EQ(probe_list_next(&p, item, sizeof(item)), 1);
	CHECK_STR(item, "usdt:/x:p:n");
	CHECK_EQ(probe_list_next(&p, item, sizeof(item)), 0);
	p = "abcdef";
	CHECK_EQ(probe_list_next(&p, item, 4), -E2BIG);
	return 0;
}

/* A kprobe's format as 6.18 writes it, fields after __probe_ip. */
static struct tp_format *kfmt(const char *fields)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "name: f\nID: 9999\nformat:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		 "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n%s\n"
		 "print fmt: \"(%%lx)\", REC->__probe_ip\n",
		 fields);
	return tp_format__parse("trigrec_1", "f", text, strlen(text));
}

/* How probe_hook rebuilds records: registers, derefs, strings, BTF's $arg*. */
TEST(recipes)
{
#if defined(__x86_64__)
	struct tp_format *f = kfmt("\tfield:s64 n;\toffset:16;\tsize:8;\tsigned:1;\n"
				   "\tfield:__data_loc char[] s;\toffset:24;\tsize:4;\tsigned:1;\n"
				   "\tfield:u32 c;\toffset:28;\tsize:4;\tsigned:0;");
	struct trigrec_probe_cfg pc;
	char why[256];

	CHECK(f != NULL);
	if (!f)
		return 0;
	CHECK_EQ(probe_recipe("n=$arg1:s64 s=+0($arg2):string c=+8(%dx):u32", PROBE_KPROBE, f, &pc,
			      why, sizeof(why)),
		 1);
	CHECK_EQ(pc.nfetch, 3);
	CHECK_EQ(pc.ip_off, 8);
	CHECK_EQ(pc.ip_reg, 128);
	CHECK_EQ(pc.dyn_off, 32);
	CHECK_EQ(pc.f[0].op, TRIGREC_PF_REG);
	CHECK_EQ(pc.f[0].reg, 112); /* di */
	CHECK_EQ(pc.f[0].rec_off, 16);
	CHECK_EQ(pc.f[0].size, 8);
	CHECK_EQ(pc.f[1].op, TRIGREC_PF_STR);
	CHECK_EQ(pc.f[1].reg, 104); /* si */
	CHECK_EQ(pc.f[1].user, 0);  /* a kprobe's string: kernel memory */
	CHECK_EQ(pc.f[1].rec_off, 24);
	CHECK_EQ(pc.f[2].op, TRIGREC_PF_DEREF);
	CHECK_EQ(pc.f[2].reg, 96); /* dx */
	CHECK_EQ(pc.f[2].arg, 8);
	CHECK_EQ(pc.f[2].size, 4);
	/* The same fields on a uprobe read user memory; ustring on a kprobe too. */
	CHECK_EQ(probe_recipe("n=%di:s64 s=+0(%si):string c=+8(%dx):u32", PROBE_UPROBE, f, &pc, why,
			      sizeof(why)),
		 1);
	CHECK_EQ(pc.f[1].user, 1);
	CHECK_EQ(pc.f[2].user, 1);
	CHECK_EQ(
		probe_recipe("n=$arg1 s=+0($arg2):ustring", PROBE_KPROBE, f, &pc, why, sizeof(why)),
		1);
	CHECK_EQ(pc.f[1].user, 1);
	/* BTF: $arg* is the parameters in order, in the convention's registers. */
	CHECK_EQ(probe_recipe("$arg*", PROBE_KPROBE, f, &pc, why, sizeof(why)), 1);
	CHECK_EQ(pc.nfetch, 3);
	CHECK_EQ(pc.f[0].reg, 112);
	CHECK_EQ(pc.f[1].op, TRIGREC_PF_STR);
	CHECK_EQ(pc.f[1].reg, 104);
	CHECK_EQ(pc.f[2].reg, 96);
	CHECK_EQ(pc.f[2].op, TRIGREC_PF_REG);
	/* Not rebuilt: two levels, a BTF name; a field the format lacks. */
	CHECK_EQ(probe_recipe("n=+8(+0(%sp)):s64", PROBE_UPROBE, f, &pc, why, sizeof(why)),
		 -EOPNOTSUPP);
	CHECK(strstr(why, "cannot be rebuilt"));
	CHECK_EQ(probe_recipe("n=file", PROBE_KPROBE, f, &pc, why, sizeof(why)), -EOPNOTSUPP);
	CHECK_EQ(probe_recipe("x=%di:s64", PROBE_UPROBE, f, &pc, why, sizeof(why)), -EOPNOTSUPP);
	tp_format__free(f);
	/* A return probe: the return value's register; the ip goes to __probe_ret_ip. */
	{
		static const char ret_fmt[] =
			"name: f__return\nID: 9998\nformat:\n"
			"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
			"\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
			"\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
			"\tfield:s64 ret;\toffset:24;\tsize:8;\tsigned:1;\n\n"
			"print fmt: \"\"\n";

		f = tp_format__parse("trigrec_1", "f__return", ret_fmt, strlen(ret_fmt));
	}
	CHECK(f != NULL);
	if (!f)
		return 0;
	CHECK_EQ(probe_recipe("ret=$retval:s64", PROBE_URETPROBE, f, &pc, why, sizeof(why)), 1);
	CHECK_EQ(pc.ip_off, 16);
	CHECK_EQ(pc.f[0].reg, 80); /* ax */
	CHECK_EQ(pc.f[0].rec_off, 24);
	tp_format__free(f);
#endif
	return 0;
}

TEST(glob_parse)
{
	struct probe_spec s;
	char err[256];

	CHECK(probe_is_glob("vfs_*"));
	CHECK(probe_is_glob("f?o"));
	CHECK(probe_is_glob("probework_[ab]"));
	CHECK(!probe_is_glob("vfs_read"));
	CHECK_EQ(probe_spec_parse("kprobe:vfs_*", &s, err, sizeof(err)), 0);
	CHECK_STR(s.func, "vfs_*");
	CHECK_EQ(probe_spec_parse("uretprobe:/bin/app:probework_[ab]", &s, err, sizeof(err)), 0);
	CHECK_STR(s.path, "/bin/app");
	CHECK_STR(s.func, "probework_[ab]");
	CHECK_EQ(probe_spec_parse("uprobe:/bin/app:do_*(a=arg1)", &s, err, sizeof(err)), 0);
	CHECK_STR(s.func, "do_*");
	CHECK_STR(s.args, "a=arg1");
	CHECK_EQ(probe_spec_parse("usdt:/bin/app:py*:func*", &s, err, sizeof(err)), 0);
	CHECK_STR(s.provider, "py*");
	CHECK_STR(s.func, "func*");
	/* An offset needs one function; the path is never a glob. */
	CHECK_EQ(probe_spec_parse("kprobe:vfs_*+0x10", &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "needs one function"));
	CHECK_EQ(probe_spec_parse("uprobe:/bin/a*:main", &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "path cannot be a glob"));
	return 0;
}

TEST(glob_expand)
{
	struct probe_names c = { 0 }, m = { 0 };
	const char *syms[] = { "main", "probework_a", "probework_b", "probework_call", "_start" };
	char err[512];

	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		CHECK_EQ(probe_names_add(&c, syms[i]), 0);
	CHECK_EQ(probe_glob_expand("probework_[ab]", &c, 64, "functions of /x", &m, err,
				   sizeof(err)),
		 2);
	CHECK_STR(m.v[0], "probework_a");
	CHECK_STR(m.v[1], "probework_b");
	probe_names_free(&m);
	CHECK_EQ(probe_glob_expand("probework_*", &c, 64, "functions of /x", &m, err, sizeof(err)),
		 3);
	probe_names_free(&m);
	CHECK_EQ(probe_glob_expand("probework_?", &c, 64, "functions of /x", &m, err, sizeof(err)),
		 2);
	probe_names_free(&m);
	/* The cap: refused with the count and how to narrow it. */
	CHECK_EQ(probe_glob_expand("probework_*", &c, 2, "functions of /x", &m, err, sizeof(err)),
		 -E2BIG);
	CHECK(strstr(err, "matches 3 functions of /x, more than the 2"));
	CHECK(strstr(err, "narrow it"));
	CHECK(strstr(err, "probework_a, probework_b, probework_call"));
	CHECK_EQ(m.n, 0);
	/* Nothing matches: did-you-mean as a glob that does. */
	CHECK_EQ(probe_glob_expand("probwork_*", &c, 64, "functions of /x", &m, err, sizeof(err)),
		 -ENOENT);
	CHECK(strstr(err, "'probwork_*' matches no functions of /x (did you mean probework_*"));
	CHECK_EQ(probe_glob_expand("probework_[xy]", &c, 64, "functions of /x", &m, err,
				   sizeof(err)),
		 -ENOENT);
	CHECK(strstr(err, "did you mean probework_"));
	CHECK_EQ(probe_glob_expand("*mian*", &c, 64, "functions of /x", &m, err, sizeof(err)),
		 -ENOENT);
	CHECK(strstr(err, "did you mean main"));
	CHECK_EQ(probe_glob_expand("zzz*", &c, 64, "functions of /x", &m, err, sizeof(err)),
		 -ENOENT);
	CHECK(!strstr(err, "did you mean"));
	probe_names_free(&c);
	return 0;
}

TEST(kfuncs)
{
	static const char aff[] = "vfs_read\nvfs_write\nvfs_open\ndup_name\ndup_name\n"
				  "kmod_fn [mymod]\nvfs_bl\n";
	static const char ksyms[] = "ffffffff81000000 T vfs_read\n"
				    "ffffffff81000010 t vfs_local\n"
				    "ffffffff81000020 D vfs_data\n"
				    "ffffffff81000030 t mod_fn\t[mymod]\n";
	static const char bl[] = "0xffffffff81000000-0xffffffff81000010\tvfs_bl\n";
	struct probe_names k = { 0 }, m = { 0 };
	char err[512];

	/* available_filter_functions, minus the blacklist and names listed twice. */
	CHECK_EQ(probe_kfuncs(aff, NULL, bl, &k), 4);
	CHECK_STR(k.v[0], "kmod_fn");
	CHECK_STR(k.v[1], "vfs_open");
	CHECK_STR(k.v[3], "vfs_write");
	CHECK_EQ(probe_glob_expand("vfs_*", &k, 512, "kernel functions", &m, err, sizeof(err)), 3);
	probe_names_free(&m);
	CHECK_EQ(probe_glob_expand("dup_*", &k, 512, "kernel functions", &m, err, sizeof(err)),
		 -ENOENT);
	CHECK_EQ(probe_glob_expand("vfs_bl*", &k, 512, "kernel functions", &m, err, sizeof(err)),
		 -ENOENT);
	CHECK_EQ(probe_glob_expand("vsf_*", &k, 512, "kernel functions", &m, err, sizeof(err)),
		 -ENOENT);
	CHECK(strstr(err, "did you mean vfs_*"));
	probe_names_free(&k);
	/* Without it: kallsyms' text symbols. */
	CHECK_EQ(probe_kfuncs(NULL, ksyms, NULL, &k), 3);
	CHECK_STR(k.v[0], "mod_fn");
	CHECK_STR(k.v[1], "vfs_local");
	CHECK_STR(k.v[2], "vfs_read");
	probe_names_free(&k);
	return 0;
}

/* Why the kernel refused a kprobe: the blacklist by name, or by a section range. */
TEST(blacklisted)
{
	static const char bl[] = "0xffffffff81000000-0xffffffff81000010\tdo_int3\n"
				 "0xffffffff82000000-0xffffffff82100000\t__noinstr_text_start\n"
				 "garbage line\n";
	char e[64];

	CHECK_EQ(probe_blacklisted(bl, "do_int3", 0, e, sizeof(e)), 1);
	CHECK_STR(e, "do_int3");
	/* A noinstr function: listed only through its section's range. */
	CHECK_EQ(probe_blacklisted(bl, "exc_int3", 0xffffffff82000400ull, e, sizeof(e)), 1);
	CHECK_STR(e, "__noinstr_text_start");
	CHECK_EQ(probe_blacklisted(bl, "exc_int3", 0, e, sizeof(e)), 0);
	CHECK_EQ(probe_blacklisted(bl, "vfs_read", 0xffffffff82100000ull, e, sizeof(e)), 0);
	CHECK_EQ(probe_blacklisted(NULL, "do_int3", 0, e, sizeof(e)), 0);
	return 0;
}

/*
 * Nothing with a control character or a blank where the kernel splits reaches
 * kprobe_events/uprobe_events: a newline there would add or remove other
 * tools' probes (issue 28).
 */
TEST(tracefs_injection)
{
	struct usdt_arg a, ua[PROBE_MAX_USDT_ARGS];
	struct probe_spec s;
	char err[512], out[512];

	/* In the name: the path, the function, the provider, a field. */
	CHECK_EQ(probe_spec_parse("uprobe:/bin/a\nb:main", &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "the probe name: byte 13 is a newline (0x0a)"));
	CHECK_EQ(probe_spec_parse("uprobe:/bin/a\x1b[2Jb:main", &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "a control character (0x1b)"));
	CHECK_EQ(probe_spec_parse("uprobe:/opt/my app/bin:main", &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "the path: byte 7 is a blank"));
	CHECK(strstr(err, "hard link"));
	CHECK_EQ(probe_spec_parse("kprobe:vfs_read -r", &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "the function: byte 8 is a blank"));
	CHECK_EQ(probe_spec_parse("usdt:/bin/x:p v:n", &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "the USDT provider"));
	CHECK_EQ(probe_spec_parse("kprobe:vfs_read\t", &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "a tab"));
	/* A field: blanks around items are fine, inside one they are not. */
	CHECK_EQ(probe_spec_parse("uprobe:/bin/x:f(a=arg1, b=%si -p)", &s, err, sizeof(err)), 0);
	CHECK_EQ(probe_fetchargs(&s, NULL, 0, 0, out, sizeof(out), err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "a field: byte 5 is a blank"));
	CHECK_EQ(probe_spec_parse("uprobe:/bin/x:f(a=arg1, b=%si)", &s, err, sizeof(err)), 0);
	CHECK_EQ(probe_fetchargs(&s, NULL, 0, 0, out, sizeof(out), err, sizeof(err)), 0);
	/* The ELF note's argument text: a newline, a tab, ESC refused; blanks separate. */
	CHECK_EQ(usdt_args_parse("-4@%edi\n-:trigrec_1/x", ua, PROBE_MAX_USDT_ARGS, err,
				 sizeof(err)),
		 -EINVAL);
	CHECK(strstr(err, "argument text (in the binary's .note.stapsdt): byte 7 is a newline"));
	CHECK_EQ(usdt_args_parse("8@%rsi\t8@%rdi", ua, PROBE_MAX_USDT_ARGS, err, sizeof(err)),
		 -EINVAL);
	CHECK_EQ(usdt_args_parse("8@$1\x7f", ua, PROBE_MAX_USDT_ARGS, err, sizeof(err)), -EINVAL);
	CHECK_EQ(usdt_args_parse("-4@%edi 8@%rsi", ua, PROBE_MAX_USDT_ARGS, err, sizeof(err)), 2);
	CHECK_EQ(usdt_args_parse("", ua, PROBE_MAX_USDT_ARGS, err, sizeof(err)), 0);
	/* One argument: an immediate is a number, a register letters and digits. */
	CHECK_EQ(usdt_arg_parse("8@$1;x", &a), -EINVAL);
	CHECK_EQ(usdt_arg_parse("8@$", &a), -EINVAL);
	CHECK_EQ(usdt_arg_parse("8@%r(x)", &a), -EINVAL);
	CHECK_EQ(usdt_arg_parse("8@8(%r:x)", &a), -EINVAL);
	CHECK_EQ(usdt_arg_parse("2@$ 4", &a), -EINVAL); /* fuzz_usdt_args: strtoll skips blanks */
	CHECK_EQ(usdt_arg_parse("8@$-3", &a), 0);
	CHECK_STR(a.fetch, "\\-3");
	/* An unreadable argument reads 0, the others still count. */
	CHECK_EQ(usdt_args_parse("8@foo(%rip) 4@$7", ua, PROBE_MAX_USDT_ARGS, err, sizeof(err)), 2);
	CHECK_STR(ua[0].fetch, "\\0");
	CHECK_STR(ua[1].fetch, "\\7");
	/* fuzz_probe_spec: a part too long for its field is an error with a message. */
	{
		char longf[400];

		memset(longf, 'f', sizeof(longf));
		memcpy(longf, "kprobe:", 7);
		longf[sizeof(longf) - 1] = 0;
		err[0] = 0;
		CHECK_EQ(probe_spec_parse(longf, &s, err, sizeof(err)), -EINVAL);
		CHECK(strstr(err, "is too long (a path at most 4095 bytes, a function or symbol at "
				  "most 255)"));
		memcpy(longf, "usdt:/x:", 8);
		err[0] = 0;
		CHECK_EQ(probe_spec_parse(longf, &s, err, sizeof(err)), -EINVAL);
		CHECK(strstr(err, "is too long"));
	}
	/* The checker itself. */
	CHECK_EQ(probe_text_check("x", "p:g/n /bin/a:0x10 a=%di", 1, err, sizeof(err)), 0);
	CHECK_EQ(probe_text_check("x", "p:g/n /bin/a:0x10\n-:g/m", 1, err, sizeof(err)), -EINVAL);
	CHECK_EQ(probe_text_check("x", "a b", 0, err, sizeof(err)), -EINVAL);
	return 0;
}

/*
 * A minimal ELF64 image with one .note.stapsdt note (desc as given), laid
 * out so that the note's end is the end of the image, which ends where a
 * PROT_NONE page begins: a read past the note faults. *img points into the
 * mapping (unmap base, 2 pages).
 */
static size_t usdt_image(const void *desc, uint32_t dlen, char **img, void **base)
{
	static const char shstr[] = "\0.shstrtab\0.note.stapsdt";
	size_t dpad = (dlen + 3) & ~3u, note = sizeof(Elf64_Nhdr) + 8 + dpad;
	size_t len = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr) + 3 * sizeof(Elf64_Shdr) +
		     sizeof(shstr) + note;
	size_t pad = (8 - len % 8) % 8; /* before the note: the headers stay 8-aligned */
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	Elf64_Shdr *sh;
	Elf64_Nhdr *nh;
	char *p;

	len += pad;
	if (m == MAP_FAILED || len > (size_t)pg)
		return 0;
	mprotect(m + pg, pg, PROT_NONE);
	p = m + pg - len;
	memset(p, 0, len);
	eh = (Elf64_Ehdr *)p;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phoff = sizeof(*eh);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = 1;
	eh->e_shoff = sizeof(*eh) + sizeof(*ph);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 3;
	eh->e_shstrndx = 1;
	/* One PT_LOAD: address A is file offset A - 0x400000. */
	ph = (Elf64_Phdr *)(p + sizeof(*eh));
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | PF_X;
	ph->p_vaddr = 0x400000;
	ph->p_filesz = ph->p_memsz = len;
	ph->p_align = 0x1000;
	sh = (Elf64_Shdr *)(p + eh->e_shoff);
	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_STRTAB;
	sh[1].sh_offset = eh->e_shoff + 3 * sizeof(*sh);
	sh[1].sh_size = sizeof(shstr);
	sh[1].sh_addralign = 1;
	memcpy(p + sh[1].sh_offset, shstr, sizeof(shstr));
	sh[2].sh_name = 11;
	sh[2].sh_type = SHT_NOTE;
	sh[2].sh_offset = sh[1].sh_offset + sizeof(shstr) + pad;
	sh[2].sh_size = note;
	sh[2].sh_addralign = 4;
	nh = (Elf64_Nhdr *)(p + sh[2].sh_offset);
	nh->n_namesz = 8;
	nh->n_descsz = dlen;
	nh->n_type = 3;
	memcpy((char *)(nh + 1), "stapsdt", 8);
	memcpy((char *)(nh + 1) + 8, desc, dlen);
	*img = p;
	*base = m;
	return len;
}

/*
 * A note whose strings do not end inside it (a crafted binary): skipped, never
 * read past. Before the bound, the name's strlen() ran off the note (here into
 * a PROT_NONE page: SIGSEGV).
 */
TEST(usdt_note_bounds)
{
	char desc[64], err[512], *img;
	struct usdt_site site[2];
	long pg = sysconf(_SC_PAGESIZE);
	void *base;
	size_t len;

	/* pc 0x400010, base, semaphore, then "p\0" and a name with no NUL up to the end. */
	memset(desc, 0, 24);
	desc[0] = 0x10;
	desc[2] = 0x40;
	/* NOLINTNEXTLINE(bugprone-not-null-terminated-result): note bytes, NULs as written */
	memcpy(desc + 24, "p\0nameXY", 8); /* 32 bytes: no padding after it either */
	len = usdt_image(desc, 32, &img, &base);
	CHECK(len > 0);
	if (!len)
		return 1;
	CHECK_EQ(usdt_sites_mem(img, len, "", "*", site, 2, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "no USDT probes") || strstr(err, "no USDT probe"));
	munmap(base, 2 * pg);
	/* The same note, well formed: one site, its strings as written. */
	/* NOLINTNEXTLINE(bugprone-not-null-terminated-result): note bytes, NULs as written */
	memcpy(desc + 24, "p\0name\0-4@%edi\0", 15);
	len = usdt_image(desc, 39, &img, &base);
	if (!len)
		return 1;
	CHECK_EQ(usdt_sites_mem(img, len, "", "*", site, 2, err, sizeof(err)), 1);
	CHECK_STR(site[0].provider, "p");
	CHECK_STR(site[0].name, "name");
	CHECK_STR(site[0].args, "-4@%edi");
	CHECK_EQ(site[0].off, 0x10);
	munmap(base, 2 * pg);
	/* Its strings, but no NUL after the arguments. */
	/* NOLINTNEXTLINE(bugprone-not-null-terminated-result): note bytes, NULs as written */
	memcpy(desc + 24, "p\0name\0-4@%edi", 14);
	len = usdt_image(desc, 38, &img, &base);
	if (!len)
		return 1;
	CHECK(usdt_sites_mem(img, len, "", "*", site, 2, err, sizeof(err)) < 0);
	munmap(base, 2 * pg);
	return 0;
}

RUN_TESTS(T(parse_kinds), T(parse_errors), T(fetchargs), T(usdt_args), T(list_split), T(recipes),
	  T(glob_parse), T(glob_expand), T(kfuncs), T(blacklisted), T(tracefs_injection),
	  T(usdt_note_bounds))
