// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests for src/service/webhook.c: Alertmanager payloads, plain names, token files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "check.h"
#include "service/webhook.h"
#include "show/jsonv.h"

/* Shaped as Alertmanager 0.25 sends it (corpus/webhook/am-*.json are real ones): firing, resolved, firing. */
static const char am_payload[] =
	"{\"receiver\":\"trigrec\",\"status\":\"firing\",\"alerts\":["
	"{\"status\":\"firing\",\"labels\":{\"alertname\":\"HighLatency\",\"instance\":"
	"\"web-1:9100\",\"severity\":\"page\"},\"annotations\":{\"summary\":\"p99 \\u003e 1s\"},"
	"\"startsAt\":\"2026-12-06T10:20:00.000Z\",\"endsAt\":\"0001-01-01T00:00:00Z\","
	"\"generatorURL\":\"http://prom:9090/graph?g0.expr=up\",\"fingerprint\":\"1a30ba71cca2921f\"},"
	"{\"status\":\"resolved\",\"labels\":{\"alertname\":\"Old\"},\"annotations\":{},"
	"\"startsAt\":\"2026-12-06T10:00:00Z\",\"endsAt\":\"2026-12-06T10:10:00Z\","
	"\"generatorURL\":\"\",\"fingerprint\":\"00000000000000aa\"},"
	"{\"status\":\"firing\",\"labels\":{\"alertname\":\"Disk full/\\u00e9\",\"x\":\"y\"},"
	"\"annotations\":{},\"startsAt\":\"2026-12-06T10:20:00Z\",\"endsAt\":\"0001-01-01T00:00:00Z\","
	"\"generatorURL\":\"\",\"fingerprint\":\"b2\"}],"
	"\"groupLabels\":{\"alertname\":\"HighLatency\"},\"commonLabels\":{},"
	"\"commonAnnotations\":{},\"externalURL\":\"http://am:9093\",\"version\":\"4\","
	"\"groupKey\":\"{}:{alertname=\\\"HighLatency\\\"}\",\"truncatedAlerts\":0}";

TEST(alertmanager_payload)
{
	struct webhook_req r;
	char err[256];
	struct jv *a;

	CHECK_EQ(webhook_parse(am_payload, strlen(am_payload), &r, err, sizeof(err)), 0);
	CHECK_EQ(r.alertmanager, 1);
	CHECK_EQ(r.nr, 2);
	CHECK_EQ(r.resolved, 1);
	CHECK_EQ(r.over, 0);
	CHECK_STR(r.alerts[0].name, "HighLatency-1a30ba71cca2921f");
	/* ' ', '/' and é are one '_' each, as trigger names are. */
	CHECK_STR(r.alerts[1].name, "Disk_full__-b2");
	/* The sidecar's object is valid JSON with the alert's labels, annotations, fingerprint. */
	a = jv_parse(r.alerts[0].json, strlen(r.alerts[0].json), err, sizeof(err));
	CHECK(a != NULL);
	CHECK_STR(jv_str(a, "source", ""), "alertmanager");
	CHECK_STR(jv_str(a, "name", ""), "HighLatency");
	CHECK_STR(jv_str(a, "fingerprint", ""), "1a30ba71cca2921f");
	CHECK_STR(jv_str(a, "labels.instance", ""), "web-1:9100");
	CHECK_STR(jv_str(a, "labels.severity", ""), "page");
	CHECK_STR(jv_str(a, "annotations.summary", ""), "p99 > 1s");
	CHECK_STR(jv_str(a, "starts_at", ""), "2026-12-06T10:20:00.000Z");
	CHECK_STR(jv_str(a, "receiver", ""), "trigrec");
	CHECK_STR(jv_str(a, "external_url", ""), "http://am:9093");
	CHECK_STR(jv_str(a, "group_key", ""), "{}:{alertname=\"HighLatency\"}");
	jv_free(a);
	webhook_req_free(&r);
	return 0;
}

TEST(plain_name)
{
	struct webhook_req r;
	char err[256];
	const char *b = "{\"name\": \"canary failed!\"}";

	if (webhook_parse(b, strlen(b), &r, err, sizeof(err)) || !r.alerts || r.nr != 1)
		return 1;
	CHECK_EQ(r.alertmanager, 0);
	CHECK_STR(r.alerts[0].name, "canary_failed_");
	CHECK_STR(r.alerts[0].json, "{\"source\": \"http\", \"name\": \"canary failed!\"}");
	webhook_req_free(&r);
	return 0;
}

/* Nine firing alerts: eight are taken, one is answered "not taken". */
TEST(at_most_eight)
{
	char body[4096];
	size_t o = 0;
	struct webhook_req r;
	char err[256];

	o += snprintf(body + o, sizeof(body) - o, "{\"version\":\"4\",\"alerts\":[");
	for (int i = 0; i < 9; i++)
		o += snprintf(body + o, sizeof(body) - o,
			      "%s{\"status\":\"firing\",\"labels\":{\"alertname\":\"A%d\"}}",
			      i ? "," : "", i);
	snprintf(body + o, sizeof(body) - o, "]}");
	CHECK_EQ(webhook_parse(body, strlen(body), &r, err, sizeof(err)), 0);
	CHECK_EQ(r.nr, WEBHOOK_MAX_ALERTS);
	CHECK_EQ(r.over, 1);
	CHECK_STR(r.alerts[7].name, "A7");
	webhook_req_free(&r);
	return 0;
}

static int refused(const char *body, const char *want)
{
	struct webhook_req r;
	char err[512];
	int e = webhook_parse(body, strlen(body), &r, err, sizeof(err));

	if (e != -EINVAL || !strstr(err, want)) {
		fprintf(stderr, "    %s: %d \"%s\", wanted -EINVAL \"%s\"\n", body, e, err, want);
		if (!e)
			webhook_req_free(&r);
		return 0;
	}
	return 1;
}

TEST(malformed)
{
	CHECK(refused("", "not JSON"));
	CHECK(refused("{\"name\":", "not JSON"));
	CHECK(refused("[1]", "must be a JSON object"));
	CHECK(refused("{}", "{\"name\": \"NAME\"}"));
	CHECK(refused("{\"name\": 3}", "non-empty string"));
	CHECK(refused("{\"name\": \"\"}", "non-empty string"));
	CHECK(refused("{\"name\": \"x\", \"labels\": {}}", "unknown key \"labels\""));
	CHECK(refused("{\"alerts\": []}", "version missing"));
	CHECK(refused("{\"version\": \"3\", \"alerts\": []}", "version 3"));
	CHECK(refused("{\"version\": \"4\", \"alerts\": {}}", "\"alerts\" must be an array"));
	CHECK(refused("{\"version\": \"4\", \"alerts\": [1]}", "alerts[0] must be an object"));
	CHECK(refused("{\"version\": \"4\", \"alerts\": [{\"labels\": {}}]}",
		      "alerts[0]: \"status\" must be"));
	CHECK(refused("{\"version\": \"4\", \"alerts\": [{\"status\": \"firing\"}]}",
		      "alerts[0]: no \"labels\""));
	CHECK(refused("{\"version\": \"4\", \"alerts\": [{\"status\": \"firing\", "
		      "\"labels\": {\"a\": 1}}]}",
		      "alerts[0]: \"labels\": every value must be a string"));
	CHECK(refused("{\"version\": \"4\", \"alerts\": [{\"status\": \"firing\", "
		      "\"labels\": {}, \"fingerprint\": 7}]}",
		      "\"fingerprint\""));
	return 0;
}

TEST(no_alertname)
{
	const char *b = "{\"version\":\"4\",\"alerts\":[{\"status\":\"firing\",\"labels\":{}}]}";
	struct webhook_req r;
	char err[256];

	CHECK_EQ(webhook_parse(b, strlen(b), &r, err, sizeof(err)), 0);
	CHECK_EQ(r.nr, 1);
	CHECK_STR(r.alerts[0].name, "alert");
	webhook_req_free(&r);
	return 0;
}

static int write_token(const char *path, const char *text, mode_t mode)
{
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return -1;
	fchmod(fd, mode);
	return close(fd);
}

TEST(token_file)
{
	char dir[] = "/tmp/trigrec-webhook-XXXXXX", path[64], link[64], err[512];
	char *tok = NULL;

	if (!mkdtemp(dir))
		SKIP("no temporary directory");
	snprintf(path, sizeof(path), "%s/token", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	CHECK_EQ(write_token(path, "0123456789abcdef0123\n", 0600), 0);
	CHECK_EQ(webhook_token_load(path, &tok, err, sizeof(err)), 0);
	CHECK_STR(tok, "0123456789abcdef0123");
	free(tok);
	/* Group- or world-readable: refused, with the fix. */
	CHECK_EQ(write_token(path, "0123456789abcdef0123\n", 0640), 0);
	CHECK_EQ(webhook_token_load(path, &tok, err, sizeof(err)), -EPERM);
	CHECK(strstr(err, "chmod 600") != NULL);
	CHECK_EQ(write_token(path, "0123456789abcdef0123\n", 0604), 0);
	CHECK_EQ(webhook_token_load(path, &tok, err, sizeof(err)), -EPERM);
	/* Too short, spaces, empty. */
	CHECK_EQ(write_token(path, "short\n", 0600), 0);
	CHECK_EQ(webhook_token_load(path, &tok, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "fewer than 16") != NULL);
	CHECK_EQ(write_token(path, "0123456789 abcdef0123\n", 0600), 0);
	CHECK_EQ(webhook_token_load(path, &tok, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "character 11") != NULL);
	CHECK_EQ(write_token(path, "", 0600), 0);
	CHECK_EQ(webhook_token_load(path, &tok, err, sizeof(err)), -EINVAL);
	/* A symbolic link, a directory, a missing file. */
	CHECK_EQ(write_token(path, "0123456789abcdef0123\n", 0600), 0);
	CHECK_EQ(symlink(path, link), 0);
	CHECK_EQ(webhook_token_load(link, &tok, err, sizeof(err)), -ELOOP);
	CHECK(strstr(err, "symbolic link") != NULL);
	CHECK_EQ(webhook_token_load(dir, &tok, err, sizeof(err)), -EINVAL);
	unlink(link);
	unlink(path);
	CHECK_EQ(webhook_token_load(path, &tok, err, sizeof(err)), -ENOENT);
	rmdir(dir);
	return 0;
}

TEST(bearer)
{
	const char *t = "0123456789abcdef0123";

	CHECK(webhook_auth_ok("Bearer 0123456789abcdef0123", t));
	CHECK(webhook_auth_ok("bearer 0123456789abcdef0123", t));
	CHECK(!webhook_auth_ok(NULL, t));
	CHECK(!webhook_auth_ok("", t));
	CHECK(!webhook_auth_ok("Basic 0123456789abcdef0123", t));
	CHECK(!webhook_auth_ok("Bearer 0123456789abcdef012", t));
	CHECK(!webhook_auth_ok("Bearer 0123456789abcdef01234", t));
	CHECK(!webhook_auth_ok("Bearer 0123456789abcdef0124", t));
	CHECK(!webhook_auth_ok("Bearer ", t));
	return 0;
}

RUN_TESTS(T(alertmanager_payload), T(plain_name), T(at_most_eight), T(malformed), T(no_alertname),
	  T(token_file), T(bearer))
