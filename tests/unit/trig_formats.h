/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Synthetic tracepoint formats for the trigger-language unit tests and the
 * fuzz target (tests/fuzz/fuzz_trigger.c), loaded with tp_format__parse()
 * and handed to trig_set_formats(), so neither needs tracefs.
 */
#ifndef TRIGREC_TEST_TRIG_FORMATS_H
#define TRIGREC_TEST_TRIG_FORMATS_H

#define COMMON                                                                         \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"         \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"         \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* test:ev: one field of every kind; `count` and `key` are field names. */
static const char fmt_ev[] =
	"name: ev\nID: 9001\nformat:\n" COMMON "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned char b;\toffset:12;\tsize:1;\tsigned:0;\n"
	"\tfield:short h;\toffset:14;\tsize:2;\tsigned:1;\n"
	"\tfield:long c;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned int d;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:char s[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] dl;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long args[2];\toffset:48;\tsize:16;\tsigned:0;\n"
	"\tfield:u64 x;\toffset:64;\tsize:8;\tsigned:0;\n"
	"\tfield:int count;\toffset:72;\tsize:4;\tsigned:1;\n"
	"\tfield:int key;\toffset:76;\tsize:4;\tsigned:1;\n"
	"\tfield:int pid;\toffset:80;\tsize:4;\tsigned:1;\n"
	"\tfield:int sysarg;\toffset:88;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * fname;\toffset:96;\tsize:8;\tsigned:0;\n"
	"\nprint fmt: \"a=%d\", REC->a\n";

/* test:ev2: shares `a` with test:ev, lacks `b`. */
static const char fmt_ev2[] =
	"name: ev2\nID: 9002\nformat:\n" COMMON "\tfield:long a;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned int e;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:char name[8];\toffset:20;\tsize:8;\tsigned:0;\n"
	"\nprint fmt: \"a=%ld\", REC->a\n";

/* other:thing: for multi-system globs. */
static const char fmt_thing[] =
	"name: thing\nID: 9003\nformat:\n" COMMON "\tfield:int v;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\nprint fmt: \"v=%d\", REC->v\n";

#endif
