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
	free(out);
	metrics__free(m);
	config__fini(&c);
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

RUN_TESTS(T(counters_and_histograms), T(addresses))
