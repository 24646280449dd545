// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests for src/service/metrics.c: exposition text, histograms, addresses. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/time.h>
#include <string.h>
#include <sys/socket.h>
#include "check.h"
#include "service/metrics.h"
#include "service/webhook.h"
#include "session/config.h"
#include "util/util.h"
#include "util/netaddr.h"

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
	m = metrics__new(c.trigs, c.nr_trigs, c.on_snapshot != NULL);
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
	m = metrics__new(c.trigs, c.nr_trigs, c.on_snapshot != NULL);
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
	CHECK_EQ(metrics__set_triggers(m, c.trigs, c.nr_trigs, NULL), 0);
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

	CHECK_EQ(netaddr_parse("9464", &ss, err, sizeof(err)), 0);
	CHECK_STR(inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip)), "127.0.0.1");
	CHECK_EQ(ntohs(s4->sin_port), 9464);
	CHECK_EQ(netaddr_parse(":9464", &ss, err, sizeof(err)), 0);
	CHECK_STR(inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip)), "127.0.0.1");
	CHECK_EQ(netaddr_parse("0.0.0.0:80", &ss, err, sizeof(err)), 0);
	CHECK_STR(inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip)), "0.0.0.0");
	CHECK_EQ(netaddr_parse("[::1]:9464", &ss, err, sizeof(err)), 0);
	CHECK_EQ(ss.ss_family, AF_INET6);
	CHECK_EQ(netaddr_parse("", &ss, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "empty address"));
	CHECK_EQ(netaddr_parse("host:99999", &ss, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "bad port"));
	CHECK_EQ(netaddr_parse("example.org:80", &ss, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "not an IPv4 address"));
	CHECK_EQ(netaddr_parse("[::1:80", &ss, err, sizeof(err)), -EINVAL);
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
	CHECK_EQ(netaddr_parse("9464", &ss, err, sizeof(err)), 0);
	CHECK(netaddr_is_loopback(&ss));
	CHECK_EQ(netaddr_parse("127.0.0.2:9464", &ss, err, sizeof(err)), 0);
	CHECK(netaddr_is_loopback(&ss));
	CHECK_EQ(netaddr_parse("[::1]:9464", &ss, err, sizeof(err)), 0);
	CHECK(netaddr_is_loopback(&ss));
	CHECK_EQ(netaddr_parse("0.0.0.0:9464", &ss, err, sizeof(err)), 0);
	CHECK(!netaddr_is_loopback(&ss));
	CHECK_EQ(netaddr_parse("[::]:9464", &ss, err, sizeof(err)), 0);
	CHECK(!netaddr_is_loopback(&ss));
	return 0;
}

/* ---- the endpoint itself, on a loopback port (no kernel needed) ---- */

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &l))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* A connection to 127.0.0.1:port from src (127.0.0.x); -1 on failure. */
static int dial(const char *src, int port)
{
	struct sockaddr_in s = { .sin_family = AF_INET }, d = { .sin_family = AF_INET };
	struct timeval tv = { 5, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, src, &s.sin_addr);
	inet_pton(AF_INET, "127.0.0.1", &d.sin_addr);
	d.sin_port = htons(port);
	if (fd < 0 || bind(fd, (struct sockaddr *)&s, sizeof(s)) ||
	    connect(fd, (struct sockaddr *)&d, sizeof(d))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* The status code of GET /metrics with this Host (NULL: none, HTTP/1.0), from src. */
static int status_of(const char *src, int port, const char *host)
{
	char req[256], buf[64] = "";
	int fd = dial(src, port), code = -1;
	ssize_t n;

	if (fd < 0)
		return -1;
	if (host)
		snprintf(req, sizeof(req),
			 "GET /metrics HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host);
	else
		snprintf(req, sizeof(req), "GET /metrics HTTP/1.0\r\n\r\n");
	if (write(fd, req, strlen(req)) == (ssize_t)strlen(req) &&
	    (n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		sscanf(buf, "HTTP/1.%*d %d", &code);
	}
	close(fd);
	return code;
}

/* Closed by the server (EOF or reset) within ms? */
static int closed_within(int fd, int ms)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	char c;

	return poll(&pf, 1, ms) == 1 && read(fd, &c, 1) <= 0;
}

/*
 * DNS rebinding and one greedy client (issue 28): on a loopback bind a Host
 * that is not loopback gets 421; one client address gets 4 connections, the
 * rest are closed at once while another address is still served; an idle
 * connection is closed after METRICS_TIMEOUT_S.
 */
TEST(serve_host_and_limits)
{
	struct trigrec_config c;
	struct metrics *m;
	char addr[32], host[64];
	int port = free_port(), fds[7], refused = 0, open_after = 0;
	uint64_t t0;

	if (port < 0)
		SKIP("no free loopback port");
	config__init(&c);
	m = metrics__new(c.trigs, c.nr_trigs, c.on_snapshot != NULL);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	CHECK_EQ(metrics__serve(m, addr), 0);
	snprintf(host, sizeof(host), "localhost:%d", port);
	CHECK_EQ(status_of("127.0.0.1", port, host), 200);
	snprintf(host, sizeof(host), "127.0.0.1:%d", port);
	CHECK_EQ(status_of("127.0.0.1", port, host), 200);
	CHECK_EQ(status_of("127.0.0.1", port, "[::1]"), 200);
	CHECK_EQ(status_of("127.0.0.1", port, NULL), 200);
	snprintf(host, sizeof(host), "evil.example:%d", port);
	CHECK_EQ(status_of("127.0.0.1", port, host), 421);
	CHECK_EQ(status_of("127.0.0.1", port, "localhost.evil.example"), 421);
	/* 7 idle connections from one address: 4 stay, 3 are closed at once. */
	usleep(200000); /* the requests above are gone */
	for (int i = 0; i < 7; i++)
		fds[i] = dial("127.0.0.1", port);
	t0 = mono_ns();
	for (int i = 0; i < 7; i++)
		if (fds[i] < 0 || closed_within(fds[i], i ? 50 : 300))
			refused++;
	CHECK_EQ(refused, 3);
	CHECK_EQ(status_of("127.0.0.2", port, "localhost"), 200);
	/* The 4 idle ones are closed after the timeout, not 10 s. */
	for (int i = 0; i < 7; i++)
		if (fds[i] >= 0 && !closed_within(fds[i], (int)(METRICS_TIMEOUT_S * 1000 + 2000 -
								(mono_ns() - t0) / 1000000)))
			open_after++;
	CHECK_EQ(open_after, 0);
	fprintf(stderr, "    idle connections closed %.1f s after they opened\n",
		(mono_ns() - t0) / 1e9);
	for (int i = 0; i < 7; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	metrics__free(m);
	config__fini(&c);
	return 0;
}

/* ---- POST /snapshot, with a stand-in for the session's snapshot function ---- */

static int fake_calls;
static char fake_last_alert[1024];

static int fake_snapshot(void *ctx, const char *name, const char *alert, char *path, size_t len)
{
	(void)ctx;
	fake_calls++;
	snprintf(fake_last_alert, sizeof(fake_last_alert), "%s", alert);
	if (!strcmp(name, "budget"))
		return -EDQUOT;
	if (!strcmp(name, "coalesced"))
		return 0;
	snprintf(path, len, "/out/20261206-102000.000001-%s.data", name);
	return 1;
}

/* One request; its status, and its body in out. extra: more header lines ("" = none). */
static int http(int port, const char *method, const char *path, const char *extra, const char *body,
		size_t blen, char *out, size_t outlen)
{
	char req[1024];
	int fd = dial("127.0.0.1", port), code = -1;
	size_t got = 0;
	ssize_t n;

	out[0] = 0;
	if (fd < 0)
		return -1;
	snprintf(req, sizeof(req),
		 "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n%s"
		 "Content-Length: %zu\r\n\r\n",
		 method, path, extra, blen);
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		goto out;
	/* The server may answer (and close) before it has read the body: that is a refusal. */
	for (size_t o = 0; o < blen;) {
		n = write(fd, body + o, blen - o > 65536 ? 65536 : blen - o);
		if (n <= 0)
			break;
		o += n;
	}
	while (got + 1 < outlen && (n = read(fd, out + got, outlen - got - 1)) > 0)
		got += n;
	out[got] = 0;
	sscanf(out, "HTTP/1.%*d %d", &code);
out:
	close(fd);
	return code;
}

#define TOKEN "0123456789abcdef0123456789abcdef"
#define AUTH "Authorization: Bearer " TOKEN "\r\n"

TEST(post_snapshot)
{
	struct trigrec_config c;
	struct metrics *m;
	char addr[32], tokf[] = "/tmp/trigrec-token-XXXXXX", out[8192], *big;
	int port = free_port(), fd, n429 = 0, code;
	const char *plain = "{\"name\": \"canary\"}";

	if (port < 0)
		SKIP("no free loopback port");
	signal(SIGPIPE, SIG_IGN); /* a refusal may close before the body is sent */
	fd = mkstemp(tokf);
	CHECK(fd >= 0 && write(fd, TOKEN "\n", strlen(TOKEN) + 1) > 0);
	close(fd);
	config__init(&c);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);

	/* No token file, no endpoint. */
	m = metrics__new(c.trigs, c.nr_trigs, c.on_snapshot != NULL);
	CHECK_EQ(metrics__serve(m, addr), 0);
	CHECK_EQ(http(port, "POST", "/snapshot", AUTH, plain, strlen(plain), out, sizeof(out)),
		 404);
	CHECK(strstr(out, "--http-token-file") != NULL);
	metrics__free(m);

	m = metrics__new(c.trigs, c.nr_trigs, c.on_snapshot != NULL);
	CHECK_EQ(metrics__enable_snapshot(m, tokf, fake_snapshot, NULL), 0);
	CHECK_EQ(metrics__serve(m, addr), 0);
	fake_calls = 0;
	/* Refusals: none of them takes a snapshot. */
	CHECK_EQ(http(port, "POST", "/snapshot", "", plain, strlen(plain), out, sizeof(out)), 401);
	CHECK(strstr(out, "WWW-Authenticate: Bearer") != NULL);
	CHECK_EQ(http(port, "POST", "/snapshot", "Authorization: Bearer " TOKEN "x\r\n", plain,
		      strlen(plain), out, sizeof(out)),
		 401);
	CHECK_EQ(http(port, "GET", "/snapshot", AUTH, "", 0, out, sizeof(out)), 405);
	big = calloc(1, WEBHOOK_MAX_BODY + 2);
	memset(big, ' ', WEBHOOK_MAX_BODY + 1);
	CHECK_EQ(http(port, "POST", "/snapshot", AUTH, big, WEBHOOK_MAX_BODY + 1, out, sizeof(out)),
		 413);
	/* Without a Content-Length (chunked), the limit holds while reading. */
	{
		char req[512], chunk[16];
		int cfd = dial("127.0.0.1", port);
		size_t got = 0;
		ssize_t k;

		snprintf(req, sizeof(req),
			 "POST /snapshot HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" AUTH
			 "Transfer-Encoding: chunked\r\n\r\n");
		CHECK(cfd >= 0 && write(cfd, req, strlen(req)) > 0);
		for (int i = 0; i < 5; i++) {
			snprintf(chunk, sizeof(chunk), "%x\r\n", 20000);
			if (write(cfd, chunk, strlen(chunk)) < 0 || write(cfd, big, 20000) < 0 ||
			    write(cfd, "\r\n", 2) < 0)
				break;
		}
		if (write(cfd, "0\r\n\r\n", 5) < 0)
			fprintf(stderr, "    (closed early)\n");
		while (got + 1 < sizeof(out) &&
		       (k = read(cfd, out + got, sizeof(out) - got - 1)) > 0)
			got += k;
		out[got] = 0;
		code = -1;
		sscanf(out, "HTTP/1.%*d %d", &code);
		CHECK_EQ(code, 413);
		close(cfd);
	}
	free(big);
	CHECK_EQ(http(port, "POST", "/snapshot", AUTH, "{\"name\":", 8, out, sizeof(out)), 400);
	CHECK(strstr(out, "not JSON") != NULL);
	CHECK_EQ(fake_calls, 0);

	/* Taken, held back by the budget, coalesced: the reply says which. */
	CHECK_EQ(http(port, "POST", "/snapshot", AUTH, plain, strlen(plain), out, sizeof(out)),
		 200);
	CHECK(strstr(out, "\"taken\": [\n  {\"name\": \"canary\", \"file\": "
			  "\"/out/20261206-102000.000001-canary.data\"}") != NULL);
	CHECK_EQ(fake_calls, 1);
	CHECK_STR(fake_last_alert, "{\"source\": \"http\", \"name\": \"canary\"}");
	{
		const char *b = "{\"version\":\"4\",\"alerts\":["
				"{\"status\":\"firing\",\"labels\":{\"alertname\":\"budget\"}},"
				"{\"status\":\"firing\",\"labels\":{\"alertname\":\"coalesced\"}},"
				"{\"status\":\"resolved\",\"labels\":{\"alertname\":\"old\"}}]}";

		CHECK_EQ(http(port, "POST", "/snapshot", AUTH, b, strlen(b), out, sizeof(out)),
			 200);
		CHECK(strstr(out, "{\"name\": \"budget\", \"reason\": \"budget\"}") != NULL);
		CHECK(strstr(out, "{\"name\": \"coalesced\", \"reason\": \"coalesced\"}") != NULL);
		CHECK(strstr(out, "\"resolved_ignored\": 1") != NULL);
		CHECK_EQ(fake_calls, 3);
	}
	/* A flood: past WEBHOOK_RATE_PER_MIN authenticated requests a minute, 429 and nothing taken. */
	fake_calls = 0;
	for (int i = 0; i < WEBHOOK_RATE_PER_MIN; i++)
		if (http(port, "POST", "/snapshot", AUTH, "{}", 2, out, sizeof(out)) == 429)
			n429++;
	CHECK(n429 >= 1);
	CHECK(strstr(out, "Retry-After: 60") != NULL);
	CHECK_EQ(fake_calls, 0);
	{
		char *txt = render(m);

		CHECK(strstr(txt,
			     "trigrec_http_snapshot_requests_total{result=\"unauthorized\"} 2") !=
		      NULL);
		CHECK(strstr(txt, "trigrec_http_snapshot_requests_total{result=\"too_large\"} 2") !=
		      NULL);
		CHECK(strstr(txt, "trigrec_http_snapshots_total{result=\"taken\"} 1") != NULL);
		CHECK(strstr(txt, "trigrec_http_snapshots_total{result=\"budget\"} 1") != NULL);
		CHECK(exposition_problems(txt) == 0);
		free(txt);
	}
	metrics__free(m);
	unlink(tokf);
	config__fini(&c);
	return 0;
}

RUN_TESTS(T(counters_and_histograms), T(bpf_recursion_misses), T(exposition_checker), T(addresses),
	  T(loopback_host), T(serve_host_and_limits), T(post_snapshot))
