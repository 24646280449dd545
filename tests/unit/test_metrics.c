// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests for src/service/metrics.c: exposition text, histograms, addresses. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "check.h"
#include "service/metrics.h"
#include "session/config.h"

static char *render(struct metrics *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	metrics__render(m, f);
	fclose(f);
	return buf;
}

/*
 * What `promtool check metrics` would refuse, found without it: every
 * sample's family has one HELP then one TYPE line before its samples, names
 * and values are well formed, counters end in _total, each family's samples
 * are together. Returns the number of problems (each printed).
 */
static int expo_quiet; /* the checker's own test: its problems are expected */

#define PROBLEM(...) (expo_quiet ? 0 : fprintf(stderr, "    exposition: " __VA_ARGS__), bad++)

static int exposition_problems(const char *out)
{
	char fam[256][128], cur[128] = "", type[32] = "";
	int nfam = 0, bad = 0, help = 0;

	for (const char *l = out; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		char line[1024], name[128], word[32];

		if (!nl || len >= sizeof(line)) {
			PROBLEM("unterminated or overlong line\n");
			return bad;
		}
		memcpy(line, l, len);
		line[len] = 0;
		l = nl + 1;
		if (sscanf(line, "# HELP %127s", name) == 1) {
			for (int i = 0; i < nfam; i++)
				if (!strcmp(fam[i], name))
					PROBLEM("%s described twice\n", name);
			if (nfam < 256)
				snprintf(fam[nfam++], sizeof(fam[0]), "%s", name);
			snprintf(cur, sizeof(cur), "%s", name);
			help = 1;
			type[0] = 0;
		} else if (sscanf(line, "# TYPE %127s %31s", name, word) == 2) {
			if (!help || strcmp(name, cur))
				PROBLEM("TYPE %s without its HELP\n", name);
			if (!strcmp(word, "counter") &&
			    (strlen(name) < 6 || strcmp(name + strlen(name) - 6, "_total")))
				PROBLEM("counter %s lacks _total\n", name);
			snprintf(type, sizeof(type), "%s", word);
			help = 0;
		} else if (line[0] == '#' || !line[0]) {
			PROBLEM("stray line '%s'\n", line);
		} else {
			size_t n = strspn(line,
					  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					  "0123456789_:"),
			       c = strlen(cur);
			const char *v = strrchr(line, ' ');
			char *end = "";
			int ok = n && !(line[0] >= '0' && line[0] <= '9') && c &&
				 !strncmp(line, cur, c);

			/* A histogram's samples: NAME_bucket, NAME_sum, NAME_count. */
			if (ok && n != c)
				ok = !strcmp(type, "histogram") &&
				     ((n == c + 7 && !strncmp(line + c, "_bucket", 7)) ||
				      (n == c + 4 && !strncmp(line + c, "_sum", 4)) ||
				      (n == c + 6 && !strncmp(line + c, "_count", 6)));
			if (ok && line[n] != ' ' && line[n] != '{')
				ok = 0;
			if (ok && line[n] == '{' &&
			    (!strchr(line + n, '}') || strchr(line + n, '}') > v))
				ok = 0;
			if (ok && v)
				strtod(v + 1, &end);
			if (!ok || !type[0] || !v || !v[1] || *end)
				PROBLEM("sample '%s' outside its family (%s) or malformed\n", line,
					cur);
		}
	}
	return bad;
}

TEST(counters_and_histograms)
{
	struct trigrec_config c;
	struct trig_def t = { .name = "slow" };
	struct metrics *m;
	struct metrics_snapshot s1 = { .trigger = 0,
				       .ok = 1,
				       .freeze_s = 0.0003,
				       .to_file_s = 0.02,
				       .bytes = 1000,
				       .lost = 2 };
	struct metrics_snapshot s2 = { .trigger = -2, .ok = 0, .freeze_s = 2 };
	char *out;

	config__init(&c);
	config__add_trigger(&c, &t, NULL);
	m = metrics__new(&c);
	metrics__observe(m, &s1);
	metrics__observe(m, &s2);
	out = render(m);
	CHECK(strstr(out, "trigrec_snapshots_total{trigger=\"slow\",result=\"written\"} 1\n"));
	CHECK(strstr(out, "trigrec_snapshots_total{trigger=\"final\",result=\"failed\"} 1\n"));
	CHECK(strstr(out, "trigrec_snapshots_total{trigger=\"manual\",result=\"written\"} 0\n"));
	/* 0.3 ms falls in le=0.0005 and every bucket above; 2 s only in +Inf. */
	CHECK(strstr(out, "trigrec_freeze_seconds_bucket{le=\"0.00025\"} 0\n"));
	CHECK(strstr(out, "trigrec_freeze_seconds_bucket{le=\"0.0005\"} 1\n"));
	CHECK(strstr(out, "trigrec_freeze_seconds_bucket{le=\"1\"} 1\n"));
	CHECK(strstr(out, "trigrec_freeze_seconds_bucket{le=\"+Inf\"} 2\n"));
	CHECK(strstr(out, "trigrec_freeze_seconds_count 2\n"));
	CHECK(strstr(out, "trigrec_trigger_to_file_seconds_count 1\n"));
	CHECK(strstr(out, "trigrec_output_bytes_total 1000\n"));
	CHECK(strstr(out, "trigrec_records_lost_total{reason=\"ring\"} 2\n"));
	CHECK(strstr(out, "# TYPE trigrec_freeze_seconds histogram\n"));
	CHECK(strstr(out, "trigrec_build_info{version=\"" TRIGREC_VERSION "\"} 1\n"));
	CHECK_EQ(exposition_problems(out), 0);
	free(out);
	metrics__free(m);
	config__fini(&c);
	return 0;
}

/* The recursion guard's drops: a counter that a reload's new BPF object does not reset. */
TEST(bpf_recursion_misses)
{
	static const char help[] =
		"# HELP trigrec_bpf_recursion_misses_total Records the kernel's BPF recursion guard "
		"kept from every perf ring: another BPF program was running on that CPU.\n"
		"# TYPE trigrec_bpf_recursion_misses_total counter\n";
	struct trigrec_config c;
	struct metrics *m;
	char *out;

	config__init(&c);
	m = metrics__new(&c);
	out = render(m);
	/* No BPF object yet (or none loaded): 0, and still exposed. */
	CHECK(strstr(out, help));
	CHECK(strstr(out, "\ntrigrec_bpf_recursion_misses_total 0\n"));
	CHECK_EQ(exposition_problems(out), 0);
	free(out);
	/* Two reloads free objects that had counted 3 and 4: their counts stay. */
	metrics__retire_bpf(m, 3);
	metrics__retire_bpf(m, 4);
	out = render(m);
	CHECK(strstr(out, "\ntrigrec_bpf_recursion_misses_total 7\n"));
	CHECK_EQ(exposition_problems(out), 0);
	free(out);
	/* A reload keeps it as the trigger counters' files do: after set_triggers too. */
	CHECK_EQ(metrics__set_triggers(m, &c, NULL), 0);
	out = render(m);
	CHECK(strstr(out, "\ntrigrec_bpf_recursion_misses_total 7\n"));
	CHECK(strstr(out, "trigrec_reloads_total{result=\"ok\"} 1\n"));
	free(out);
	metrics__free(m);
	config__fini(&c);
	return 0;
}

/* The checker itself finds what promtool would refuse. */
TEST(exposition_checker)
{
	expo_quiet = 1;
	CHECK_EQ(exposition_problems("# HELP a_total A.\n# TYPE a_total counter\na_total 1\n"), 0);
	CHECK_EQ(exposition_problems("a_total 1\n"), 1);
	CHECK_EQ(exposition_problems("# HELP a A.\n# TYPE a counter\na 1\n"), 1);
	CHECK_EQ(exposition_problems("# HELP a_total A.\n# TYPE a_total counter\nb_total 1\n"), 1);
	CHECK_EQ(exposition_problems("# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\n"
				     "h_sum 0.5\nh_count 1\n"),
		 0);
	CHECK_EQ(exposition_problems("# HELP g G.\n# TYPE g gauge\ng{x=\"1\"} one\n"), 1);
	expo_quiet = 0;
	return 0;
}

TEST(addresses)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	char err[256], ip[64];

	CHECK_EQ(metrics_parse_addr("9464", &ss, err, sizeof(err)), 0);
	CHECK_STR(inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip)), "127.0.0.1");
	CHECK_EQ(ntohs(s4->sin_port), 9464);
	CHECK_EQ(metrics_parse_addr(":9464", &ss, err, sizeof(err)), 0);
	CHECK_STR(inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip)), "127.0.0.1");
	CHECK_EQ(metrics_parse_addr("0.0.0.0:80", &ss, err, sizeof(err)), 0);
	CHECK_STR(inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip)), "0.0.0.0");
	CHECK_EQ(metrics_parse_addr("[::1]:9464", &ss, err, sizeof(err)), 0);
	CHECK_EQ(ss.ss_family, AF_INET6);
	CHECK_EQ(metrics_parse_addr("", &ss, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "empty address"));
	CHECK_EQ(metrics_parse_addr("host:99999", &ss, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "bad port"));
	CHECK_EQ(metrics_parse_addr("example.org:80", &ss, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "not an IPv4 address"));
	CHECK_EQ(metrics_parse_addr("[::1:80", &ss, err, sizeof(err)), -EINVAL);
	return 0;
}

/* The Host header a loopback bind answers (DNS rebinding defence, issue 28). */
TEST(loopback_host)
{
	struct sockaddr_storage ss;
	char err[256];

	CHECK(metrics_host_ok("localhost"));
	CHECK(metrics_host_ok("LocalHost:9464"));
	CHECK(metrics_host_ok("localhost.:9464"));
	CHECK(metrics_host_ok("127.0.0.1:9464"));
	CHECK(metrics_host_ok("127.1.2.3"));
	CHECK(metrics_host_ok("[::1]:9464"));
	CHECK(metrics_host_ok("[::1]"));
	CHECK(metrics_host_ok(NULL));
	CHECK(!metrics_host_ok("evil.example"));
	CHECK(!metrics_host_ok("evil.example:9464"));
	CHECK(!metrics_host_ok("localhost.evil.example"));
	CHECK(!metrics_host_ok("127.0.0.1.evil.example:9464"));
	CHECK(!metrics_host_ok("10.0.0.1:9464"));
	CHECK(!metrics_host_ok("[::2]:9464"));
	CHECK(!metrics_host_ok("[::1"));
	CHECK(!metrics_host_ok("localhost:"));
	CHECK(!metrics_host_ok("localhost:94x"));
	CHECK(!metrics_host_ok("localhost:123456"));
	CHECK(!metrics_host_ok(""));
	CHECK_EQ(metrics_parse_addr("9464", &ss, err, sizeof(err)), 0);
	CHECK(metrics_addr_is_loopback(&ss));
	CHECK_EQ(metrics_parse_addr("127.0.0.2:9464", &ss, err, sizeof(err)), 0);
	CHECK(metrics_addr_is_loopback(&ss));
	CHECK_EQ(metrics_parse_addr("[::1]:9464", &ss, err, sizeof(err)), 0);
	CHECK(metrics_addr_is_loopback(&ss));
	CHECK_EQ(metrics_parse_addr("0.0.0.0:9464", &ss, err, sizeof(err)), 0);
	CHECK(!metrics_addr_is_loopback(&ss));
	CHECK_EQ(metrics_parse_addr("[::]:9464", &ss, err, sizeof(err)), 0);
	CHECK(!metrics_addr_is_loopback(&ss));
	return 0;
}

RUN_TESTS(T(counters_and_histograms), T(bpf_recursion_misses), T(exposition_checker), T(addresses),
	  T(loopback_host))
