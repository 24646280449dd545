// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for src/capture/probes.c without the kernel: probe names, field
 * lists into uprobe_events/kprobe_events fetch-args, USDT argument specs and
 * the paren-aware list splitter.
 */
#include <errno.h>
#include <stdlib.h>
#include "check.h"
#include "capture/probes.h"

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

RUN_TESTS(T(parse_kinds), T(parse_errors), T(fetchargs), T(usdt_args), T(list_split))
