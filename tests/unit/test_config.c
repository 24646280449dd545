// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests for src/session/config.c: defaults, builders, cross-checks, --dump-script. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "capture/tracefs.h"
#include "session/config.h"
#include "util/util.h"

TEST(defaults_in_one_place)
{
	struct trigrec_config c;

	config__init(&c);
	CHECK_EQ(c.mmap_pages, 256);
	CHECK_EQ(c.track_pages, 16);
	CHECK(c.outdir == NULL);
	CHECK_EQ(c.nr_events, 0);
	CHECK_EQ(c.on_snapshot_timeout_ns, 60000000000ULL);
	CHECK_EQ(c.on_snapshot_jobs, 2);
	CHECK_EQ(c.count_kill, SIGTERM);
	config__fini(&c);
	CHECK_EQ(c.mmap_pages, 256);
	return 0;
}

TEST(count_kill_names_numbers_none_and_errors)
{
	char err[256] = "";
	int sig = -1;

	CHECK_EQ(config__parse_count_kill("none", &sig, err, sizeof(err)), 0);
	CHECK_EQ(sig, 0);
	CHECK_EQ(config__parse_count_kill("TERM", &sig, err, sizeof(err)), 0);
	CHECK_EQ(sig, SIGTERM);
	CHECK_EQ(config__parse_count_kill("sigint", &sig, err, sizeof(err)), 0);
	CHECK_EQ(sig, SIGINT);
	CHECK_EQ(config__parse_count_kill("SIGKILL", &sig, err, sizeof(err)), 0);
	CHECK_EQ(sig, SIGKILL);
	CHECK_EQ(config__parse_count_kill("10", &sig, err, sizeof(err)), 0);
	CHECK_EQ(sig, 10);
	CHECK_EQ(config__parse_count_kill("SIGFOO", &sig, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "'SIGFOO': say a signal") != NULL);
	CHECK(strstr(err, "or none to leave it running") != NULL);
	CHECK_EQ(config__parse_count_kill("0", &sig, err, sizeof(err)), -EINVAL);
	CHECK_EQ(config__parse_count_kill("64", &sig, err, sizeof(err)), -EINVAL);
	CHECK_EQ(config__parse_count_kill("", &sig, err, sizeof(err)), -EINVAL);
	CHECK_EQ(config__parse_count_kill("SIG", &sig, err, sizeof(err)), -EINVAL);
	return 0;
}

TEST(builders_copy_what_they_are_given)
{
	struct trigrec_config c;
	char spec[] = "sched:sched_switch", filt[] = "prev_pid != 0";
	char *argv[] = { "sleep", "1", NULL };
	struct trig_def t = { .name = "x", .text = "sched:sched_process_exit" };
	struct cfg_origin o = { "f.trig", 3, 5 };

	config__init(&c);
	CHECK_EQ(config__add_event(&c, spec, filt), 0);
	CHECK_EQ(config__add_event(&c, "cpu-clock", NULL), 0);
	spec[0] = filt[0] = 'X';
	CHECK_STR(c.events[0].spec, "sched:sched_switch");
	CHECK_STR(c.events[0].filter, "prev_pid != 0");
	CHECK(c.events[1].filter == NULL);
	c.cmd = config__argv_dup(argv, -1);
	CHECK(c.cmd && c.cmd[1] && !c.cmd[2]);
	CHECK_STR(c.cmd[0], "sleep");
	CHECK_EQ(config__set_str(&c.outdir, "/tmp/a"), 0);
	CHECK_EQ(config__set_str(&c.outdir, "/tmp/b"), 0);
	CHECK_STR(c.outdir, "/tmp/b");
	CHECK_EQ(config__add_trigger(&c, &t, &o), 0);
	CHECK_EQ(c.trig_origin[0].line, 3);
	for (int i = 1; i < TRIGREC_MAX_TRIGGERS; i++)
		CHECK_EQ(config__add_trigger(&c, &t, NULL), 0);
	CHECK_EQ(config__add_trigger(&c, &t, NULL), -E2BIG);
	config__fini(&c);
	CHECK(c.events == NULL && c.cmd == NULL && c.outdir == NULL && c.trigs == NULL);
	return 0;
}

/* `--trigger manual` and a script's `trigger NAME { manual }` both land in manual[]. */
TEST(manual_triggers_have_no_kernel_part)
{
	struct trigrec_config c;
	struct trig_def t;
	struct tl_error e;

	config__init(&c);
	CHECK_EQ(trig_from_text("manual post 20ms name now", &t, &e), 0);
	CHECK_EQ(t.manual, 1);
	CHECK_EQ(config__add_trigger(&c, &t, NULL), 0);
	CHECK_EQ(trig_from_text("manual", &t, &e), 0);
	CHECK_EQ(config__add_trigger(&c, &t, NULL), 0);
	CHECK_EQ(c.nr_trigs, 0);
	CHECK_EQ(c.nr_manual, 2);
	if (c.nr_manual == 2) {
		CHECK_STR(c.manual[0].name, "now");
		CHECK_EQ(c.manual[0].post_ns, 20000000);
		CHECK_STR(c.manual[1].name, "manual");
		CHECK_EQ(c.manual[1].post_ns, 0);
	}
	config__fini(&c);
	return 0;
}

TEST(finalize_cross_checks_and_post_default)
{
	struct trigrec_config c;
	struct trig_def a = { .name = "a" }, b = { .name = "b", .has_post = 1 };
	char *argv[] = { "true", NULL };
	char err[256];

	config__init(&c);
	config__add_event(&c, "cpu-clock", NULL); /* no default set: nothing read from tracefs */
	b.cfg.post_ns = 7;
	config__add_trigger(&c, &a, NULL);
	config__add_trigger(&c, &b, NULL);
	c.post_ns = 5000000;
	CHECK_EQ(config__finalize(&c, err, sizeof(err)), 0);
	CHECK_STR(c.outdir, ".");
	CHECK_EQ(c.trigs[0].cfg.post_ns, 5000000);
	CHECK_EQ(c.trigs[1].cfg.post_ns, 7);
	c.pid = 1;
	c.cmd = config__argv_dup(argv, -1);
	CHECK_EQ(config__finalize(&c, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "-p and a command") != NULL);
	c.pid = 0;
	c.freq = 10;
	c.period = 10;
	CHECK_EQ(config__finalize(&c, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "-F and -c") != NULL);
	config__fini(&c);
	return 0;
}

TEST(dump_script_says_every_setting)
{
	struct trigrec_config c;
	struct trig_def t = { .name = "slow", .text = "latency a:b -> a:c by tid > 5ms" };
	char *argv[] = { "./app", "two words", NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	config__init(&c);
	config__add_event(&c, "sched:sched_switch", "prev_pid != 0");
	config__add_event(&c, "raw_syscalls:*", NULL);
	c.mmap_pages = 1024;
	c.callgraph = 1;
	c.nr_cpumask = 8;
	c.cpumask = calloc(8, 1);
	c.cpumask[0] = c.cpumask[1] = c.cpumask[2] = c.cpumask[5] = 1;
	c.cmd = config__argv_dup(argv, -1);
	config__set_str(&c.outdir, "/var/tmp/x");
	c.keep_files = 50;
	c.keep_bytes = 2ull << 30;
	c.keep_age_ns = 7 * 86400ull * 1000000000ull;
	c.post_ns = 10000000;
	config__add_trigger(&c, &t, NULL);
	CHECK_EQ(config__dump_script(&c, f), 0);
	fclose(f);
	CHECK(strstr(buf, "record sched:sched_switch if prev_pid != 0\n") != NULL);
	CHECK(strstr(buf, "record raw_syscalls:*\n") != NULL);
	CHECK(strstr(buf, "buffer 4M\n") != NULL);
	CHECK(strstr(buf, "callgraph\n") != NULL);
	CHECK(strstr(buf, "cpus 0-2,5\n") != NULL);
	CHECK(strstr(buf, "command ./app \"two words\"\n") != NULL);
	CHECK(strstr(buf, "output /var/tmp/x keep 50 files, 2G, 7d\n") != NULL);
	CHECK(strstr(buf, "post 10ms\n") != NULL);
	CHECK(strstr(buf, "trigger slow {\n    latency a:b -> a:c by tid > 5ms\n}\n") != NULL);
	free(buf);
	config__fini(&c);
	return 0;
}

/* A format with no own fields: enough for trig_event_glob() to know the event exists. */
static struct tp_format *fmt(const char *sys, const char *name)
{
	char text[256];

	snprintf(text, sizeof(text),
		 "name: %s\nID: 1\nformat:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
		 "print fmt: \"\"\n",
		 name);
	return tp_format__parse(sys, name, text, strlen(text));
}

/* Neither -e nor `record`: the triggers' events, then the default list, minus what is missing. */
TEST(default_set_when_no_event_is_chosen)
{
	struct tp_format *f[] = {
		fmt("syscalls", "sys_enter_fsync"), fmt("syscalls", "sys_exit_fsync"),
		fmt("sched", "sched_switch"),	    fmt("sched", "sched_wakeup"),
		fmt("signal", "signal_deliver"),
	};
	struct trig_def lat = { .name = "lat", .text = "latency ..." }, ev = { .name = "sw" };
	struct trigrec_config c;
	char err[512], *buf = NULL;
	size_t len = 0;
	FILE *out;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		CHECK(f[i] != NULL);
	trig_set_formats((const struct tp_format *const *)f, 5);
	/* A latency's start (side 1) comes before its end; an event already in the list is not repeated. */
	snprintf(lat.event[1], sizeof(lat.event[1]), "syscalls:sys_enter_fsync");
	snprintf(lat.event[0], sizeof(lat.event[0]), "syscalls:sys_exit_fsync");
	snprintf(ev.event[0], sizeof(ev.event[0]), "sched:sched_switch");
	config__init(&c);
	config__add_trigger(&c, &lat, NULL);
	config__add_trigger(&c, &ev, NULL);
	CHECK_EQ(config__finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.default_set, 1);
	CHECK_EQ(c.nr_events, 5);
	if (c.nr_events == 5) {
		CHECK_STR(c.events[0].spec, "syscalls:sys_enter_fsync");
		CHECK_STR(c.events[1].spec, "syscalls:sys_exit_fsync");
		CHECK_STR(c.events[2].spec, "sched:sched_switch");
		CHECK_STR(c.events[3].spec, "sched:sched_wakeup");
		CHECK_STR(c.events[4].spec, "signal:signal_deliver");
		CHECK(c.events[4].filter == NULL);
	}
	CHECK_STR(c.default_missing, "sched:sched_process_fork, sched:sched_process_exec, "
				     "sched:sched_process_exit");
	/* A second finalize (run's overrides) leaves the set alone. */
	CHECK_EQ(config__finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.nr_events, 5);
	/* --dump-script writes the set as record lines: the script says the same without a default. */
	out = open_memstream(&buf, &len);
	CHECK_EQ(config__dump_script(&c, out), 0);
	fclose(out);
	CHECK(strstr(buf, "\nrecord syscalls:sys_enter_fsync\nrecord syscalls:sys_exit_fsync\n"
			  "record sched:sched_switch\nrecord sched:sched_wakeup\n"
			  "record signal:signal_deliver\n") != NULL);
	CHECK(strstr(buf, "# no event was chosen: the default set") != NULL);
	CHECK(strstr(buf, "not on this kernel: sched:sched_process_fork") != NULL);
	free(buf);
	config__fini(&c);
	CHECK(c.default_missing == NULL && c.default_set == 0);

	/* -e chooses: no default. */
	config__init(&c);
	config__add_event(&c, "cpu-clock", NULL);
	CHECK_EQ(config__finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.nr_events, 1);
	CHECK_EQ(c.default_set, 0);
	config__fini(&c);

	/* No trigger, and only sched_switch exists: that alone, the rest noted as missing. */
	trig_set_formats((const struct tp_format *const *)&f[2], 1);
	config__init(&c);
	CHECK_EQ(config__finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.nr_events, 1);
	CHECK_STR(c.events[0].spec, "sched:sched_switch");
	config__fini(&c);

	/* Still refused: nothing given and nothing of the default exists. */
	trig_set_formats((const struct tp_format *const *)&f[0], 1); /* only sys_enter_fsync */
	config__init(&c);
	CHECK_EQ(config__finalize(&c, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "nothing to record: no event was given and none of the default set "
			  "(sched:sched_switch, ") != NULL);
	CHECK(strstr(err, "give -e EVENT") != NULL);
	config__fini(&c);

	trig_set_formats(NULL, 0);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		tp_format__free(f[i]);
	return 0;
}

TEST(cpulist_round_trip)
{
	unsigned char m[16] = { 0 };
	char buf[64], err[128];

	format_cpulist(m, 16, buf, sizeof(buf));
	CHECK_STR(buf, "");
	CHECK_EQ(parse_cpulist("0-3,5,7-8,15", m, 16, err, sizeof(err)), 0);
	format_cpulist(m, 16, buf, sizeof(buf));
	CHECK_STR(buf, "0-3,5,7-8,15");
	return 0;
}

RUN_TESTS(T(defaults_in_one_place), T(count_kill_names_numbers_none_and_errors),
	  T(builders_copy_what_they_are_given), T(manual_triggers_have_no_kernel_part),
	  T(finalize_cross_checks_and_post_default), T(dump_script_says_every_setting),
	  T(default_set_when_no_event_is_chosen), T(cpulist_round_trip))
