// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>
#include "service/webhook.h"
#include "show/jsonv.h"
#include "snapshot/json.h"
#include "util/util.h"

void webhook_sanitize(char *s)
{
	char *w = s;

	while (*s) {
		int n = utf8_char(s, NULL);

		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' || *s == '.')
			*w++ = *s++;
		else {
			*w++ = '_';
			s += n > 0 ? n : 1;
		}
	}
	*w = '\0';
}

void webhook_req_free(struct webhook_req *r)
{
	for (int i = 0; r->alerts && i < r->nr; i++)
		free(r->alerts[i].json);
	free(r->alerts);
	r->alerts = NULL;
	r->nr = 0;
}

static int bad(char *err, size_t len, const char *fmt, const char *what)
{
	snprintf(err, len, fmt, what);
	return -EINVAL;
}

/* An object whose members are all strings (labels, annotations); NULL v is an empty one. */
static int str_map(FILE *f, const struct jv *v, const char *what, char *err, size_t errlen)
{
	if (v && v->type != JV_OBJ)
		return bad(err, errlen, "\"%s\" must be an object of strings", what);
	fputc('{', f);
	for (int i = 0; v && i < v->n; i++) {
		if (v->kids[i].type != JV_STR)
			return bad(err, errlen, "\"%s\": every value must be a string", what);
		if (i)
			fputs(", ", f);
		json_str(f, v->kids[i].key, 4096);
		fputs(": ", f);
		json_str(f, v->kids[i].str, 16384);
	}
	fputc('}', f);
	return 0;
}

/* An optional string member: NULL when absent, -EINVAL (in *e) when of another type. */
static const char *opt_str(const struct jv *o, const char *key, int *e)
{
	const struct jv *v = jv_get(o, key);

	if (!v || v->type == JV_NULL)
		return NULL;
	if (v->type != JV_STR) {
		*e = -EINVAL;
		return NULL;
	}
	return v->str;
}

static int add_alert(struct webhook_req *r, const char *name, char *json)
{
	if (r->nr >= WEBHOOK_MAX_ALERTS) {
		r->over++;
		free(json);
		return 0;
	}
	snprintf(r->alerts[r->nr].name, sizeof(r->alerts[r->nr].name), "%s", name);
	webhook_sanitize(r->alerts[r->nr].name);
	r->alerts[r->nr++].json = json;
	return 0;
}

static int one_alert(struct webhook_req *r, const struct jv *root, const struct jv *a, int idx,
		     char *err, size_t errlen)
{
	const char *status, *fp, *an, *starts, *gen;
	char *buf = NULL, name[64], where[48];
	size_t len = 0;
	int e = 0;
	FILE *f;

	snprintf(where, sizeof(where), "alerts[%d]", idx);
	if (a->type != JV_OBJ)
		return bad(err, errlen, "%s must be an object", where);
	status = opt_str(a, "status", &e);
	if (e || !status || (strcmp(status, "firing") && strcmp(status, "resolved"))) {
		snprintf(err, errlen, "%s: \"status\" must be \"firing\" or \"resolved\"", where);
		return -EINVAL;
	}
	if (!strcmp(status, "resolved")) {
		r->resolved++;
		return 0;
	}
	fp = opt_str(a, "fingerprint", &e);
	starts = opt_str(a, "startsAt", &e);
	gen = opt_str(a, "generatorURL", &e);
	if (e) {
		snprintf(err, errlen,
			 "%s: \"fingerprint\", \"startsAt\" and \"generatorURL\" must be strings",
			 where);
		return -EINVAL;
	}
	if (!jv_get(a, "labels") || jv_get(a, "labels")->type != JV_OBJ) {
		snprintf(err, errlen, "%s: no \"labels\" object (Alertmanager always sends one)",
			 where);
		return -EINVAL;
	}
	an = jv_str(a, "labels.alertname", NULL);
	if (!an || !an[0])
		an = "alert";
	if (fp && fp[0])
		snprintf(name, sizeof(name), "%.46s-%.16s", an, fp);
	else
		snprintf(name, sizeof(name), "%s", an);
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	fputs("{\"source\": \"alertmanager\", \"name\": ", f);
	json_str(f, an, 4096);
	fputs(", \"status\": \"firing\", \"fingerprint\": ", f);
	json_str(f, fp ? fp : "", 4096);
	fputs(", \"labels\": ", f);
	e = str_map(f, jv_get(a, "labels"), "labels", err, errlen);
	if (!e) {
		fputs(", \"annotations\": ", f);
		e = str_map(f, jv_get(a, "annotations"), "annotations", err, errlen);
	}
	if (!e) {
		fputs(", \"starts_at\": ", f);
		json_str(f, starts ? starts : "", 4096);
		fputs(", \"generator_url\": ", f);
		json_str(f, gen ? gen : "", 4096);
		fputs(", \"receiver\": ", f);
		json_str(f, jv_str(root, "receiver", ""), 4096);
		fputs(", \"group_key\": ", f);
		json_str(f, jv_str(root, "groupKey", ""), 4096);
		fputs(", \"external_url\": ", f);
		json_str(f, jv_str(root, "externalURL", ""), 4096);
		fputc('}', f);
	}
	if (fclose(f) && !e)
		e = -ENOMEM;
	if (e) {
		if (e == -EINVAL && strlen(err) + strlen(where) + 3 < errlen) {
			char tmp[256];

			snprintf(tmp, sizeof(tmp), "%s", err);
			snprintf(err, errlen, "%s: %s", where, tmp);
		}
		free(buf);
		return e;
	}
	return add_alert(r, name, buf);
}

static int plain(struct webhook_req *r, const struct jv *root, char *err, size_t errlen)
{
	const struct jv *n = jv_get(root, "name");
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	for (int i = 0; i < root->n; i++)
		if (strcmp(root->kids[i].key, "name"))
			return bad(err, errlen,
				   "unknown key \"%.64s\": send Alertmanager's webhook payload "
				   "(with \"alerts\") or {\"name\": \"NAME\"}",
				   root->kids[i].key);
	if (!n || n->type != JV_STR || !n->str[0])
		return bad(err, errlen, "%s",
			   "send Alertmanager's webhook payload (with \"alerts\") or "
			   "{\"name\": \"NAME\"} with a non-empty string NAME");
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	fputs("{\"source\": \"http\", \"name\": ", f);
	json_str(f, n->str, 4096);
	fputc('}', f);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	{
		char name[64];

		snprintf(name, sizeof(name), "%s", n->str);
		return add_alert(r, name, buf);
	}
}

int webhook_parse(const char *body, size_t len, struct webhook_req *out, char *err, size_t errlen)
{
	char jerr[160] = "";
	struct jv *root;
	const struct jv *alerts;
	int e = 0;

	memset(out, 0, sizeof(*out));
	err[0] = 0;
	if (len > WEBHOOK_MAX_BODY)
		return bad(err, errlen, "%s", "body too large");
	root = jv_parse(body, len, jerr, sizeof(jerr));
	if (!root)
		return bad(err, errlen, "not JSON: %s", jerr);
	if (root->type != JV_OBJ) {
		jv_free(root);
		return bad(err, errlen, "%s",
			   "the body must be a JSON object: Alertmanager's webhook payload or "
			   "{\"name\": \"NAME\"}");
	}
	out->alerts = calloc(WEBHOOK_MAX_ALERTS, sizeof(*out->alerts));
	if (!out->alerts) {
		jv_free(root);
		return -ENOMEM;
	}
	alerts = jv_get(root, "alerts");
	if (!alerts) {
		e = plain(out, root, err, errlen);
	} else {
		const char *v = jv_str(root, "version", NULL);

		out->alertmanager = 1;
		if (!v || strcmp(v, "4"))
			e = bad(err, errlen,
				"webhook payload version %s: trigrec reads Alertmanager's version "
				"\"4\" (Alertmanager 0.x sends it; check the receiver is a "
				"webhook_config)",
				v ? v : "missing");
		else if (alerts->type != JV_ARR)
			e = bad(err, errlen, "%s", "\"alerts\" must be an array");
		for (int i = 0; !e && i < alerts->n; i++)
			e = one_alert(out, root, &alerts->kids[i], i, err, errlen);
	}
	jv_free(root);
	if (e)
		webhook_req_free(out);
	return e;
}

int webhook_token_load(const char *path, char **token, char *err, size_t errlen)
{
	char buf[WEBHOOK_TOKEN_MAX + 2];
	struct stat st;
	ssize_t n;
	size_t k;
	int fd;

	*token = NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s%s", path, strerror(e),
			 e == ELOOP ? " (a symbolic link: give the file itself)" : "");
		return -e;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		snprintf(err, errlen,
			 "%s is owned by uid %u, not by trigrec's user (uid %u) or root: its "
			 "owner could change the token; chown it",
			 path, (unsigned)st.st_uid, (unsigned)geteuid());
		close(fd);
		return -EPERM;
	}
	if (st.st_mode & 077) {
		snprintf(err, errlen,
			 "%s is readable or writable by others (mode %04o): anyone who can read "
			 "it can ask for snapshots; chmod 600 %s",
			 path, (unsigned)(st.st_mode & 07777), path);
		close(fd);
		return -EPERM;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	buf[n] = 0;
	k = strcspn(buf, "\r\n");
	if (k > WEBHOOK_TOKEN_MAX || (size_t)n > WEBHOOK_TOKEN_MAX + 1) {
		snprintf(err, errlen, "%s: the token is longer than %d bytes", path,
			 WEBHOOK_TOKEN_MAX);
		return -EINVAL;
	}
	buf[k] = 0;
	for (size_t i = 0; i < k; i++)
		if (buf[i] <= ' ' || buf[i] > '~') {
			snprintf(err, errlen,
				 "%s: the token's first line must be printable ASCII without "
				 "spaces (character %zu is not; e.g. make one with "
				 "`openssl rand -hex 32`)",
				 path, i + 1);
			return -EINVAL;
		}
	if (k < WEBHOOK_TOKEN_MIN) {
		snprintf(err, errlen,
			 "%s: the token is %zu characters, fewer than %d (make one with "
			 "`openssl rand -hex 32`)",
			 path, k, WEBHOOK_TOKEN_MIN);
		return -EINVAL;
	}
	*token = strdup(buf);
	explicit_bzero(buf, sizeof(buf));
	return *token ? 0 : -ENOMEM;
}

int webhook_auth_ok(const char *header, const char *token)
{
	size_t hl, tl = strlen(token);
	unsigned char d = 0;

	if (!header || strncasecmp(header, "Bearer ", 7))
		return 0;
	header += 7;
	while (*header == ' ')
		header++;
	hl = strlen(header);
	/* Every byte of the token is compared, whatever the header holds. */
	for (size_t i = 0; i < tl; i++)
		d |= (unsigned char)token[i] ^ (unsigned char)(i < hl ? header[i] : 0);
	d |= hl != tl;
	return d == 0;
}
