// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "show/jsonv.h"

struct jp {
	const char *s, *end, *p;
	char *err;
	size_t errlen;
	int depth;
};

static int fail(struct jp *j, const char *what)
{
	int line = 1, col = 1;

	for (const char *q = j->s; q < j->p && q < j->end; q++, col++)
		if (*q == '\n')
			line++, col = 0;
	if (j->err && !j->err[0])
		snprintf(j->err, j->errlen, "line %d col %d: %s", line, col, what);
	return -EINVAL;
}

static void ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static void put_utf8(char **o, unsigned c)
{
	unsigned char *u = (unsigned char *)*o;

	if (c < 0x80) {
		*u++ = c;
	} else if (c < 0x800) {
		*u++ = 0xc0 | c >> 6;
		*u++ = 0x80 | (c & 0x3f);
	} else if (c < 0x10000) {
		*u++ = 0xe0 | c >> 12;
		*u++ = 0x80 | (c >> 6 & 0x3f);
		*u++ = 0x80 | (c & 0x3f);
	} else {
		*u++ = 0xf0 | c >> 18;
		*u++ = 0x80 | (c >> 12 & 0x3f);
		*u++ = 0x80 | (c >> 6 & 0x3f);
		*u++ = 0x80 | (c & 0x3f);
	}
	*o = (char *)u;
}

static int hex4(struct jp *j, unsigned *v)
{
	*v = 0;
	if (j->end - j->p < 4)
		return fail(j, "short \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = *j->p++;

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*v |= c - 'A' + 10;
		else
			return fail(j, "bad \\u escape");
	}
	return 0;
}

/* At the opening quote; the decoded string (malloc'ed) in *out. */
static int string(struct jp *j, char **out)
{
	const char *q;
	char *o;

	j->p++;
	for (q = j->p; q < j->end && *q != '"'; q++)
		if (*q == '\\')
			q++;
	if (q >= j->end)
		return fail(j, "unterminated string");
	/* Decoding never grows: an escape is at least as long as its UTF-8. */
	*out = o = malloc(q - j->p + 1);
	if (!o)
		return -ENOMEM;
	while (*j->p != '"') {
		unsigned char c = *j->p++;

		if (c < 0x20)
			return fail(j, "control character in string");
		if (c != '\\') {
			*o++ = c;
			continue;
		}
		c = *j->p++;
		switch (c) {
		case '"':
		case '\\':
		case '/': *o++ = c; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			unsigned v, lo;

			if (hex4(j, &v))
				return -EINVAL;
			if (v >= 0xd800 && v < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' &&
			    j->p[1] == 'u') {
				j->p += 2;
				if (hex4(j, &lo))
					return -EINVAL;
				if (lo < 0xdc00 || lo > 0xdfff)
					return fail(j, "bad surrogate pair");
				v = 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
			} else if (v >= 0xd800 && v < 0xe000) {
				v = 0xfffd;
			}
			put_utf8(&o, v);
			break;
		}
		default: return fail(j, "bad escape");
		}
	}
	*o = 0;
	j->p++;
	return 0;
}

static int value(struct jp *j, struct jv *v);

static int add_kid(struct jv *v, struct jv **kid, int *cap)
{
	if (v->n == *cap) {
		int nc = *cap ? *cap * 2 : 8;
		struct jv *k = realloc(v->kids, nc * sizeof(*k));

		if (!k)
			return -ENOMEM;
		v->kids = k;
		*cap = nc;
	}
	*kid = &v->kids[v->n++];
	memset(*kid, 0, sizeof(**kid));
	return 0;
}

static int container(struct jp *j, struct jv *v, char close)
{
	int cap = 0, err;

	if (++j->depth > 64)
		return fail(j, "nested too deeply");
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		struct jv *k;
		char *key = NULL;

		ws(j);
		if (close == '}') {
			if (j->p >= j->end || *j->p != '"')
				return fail(j, "expected a member name");
			if ((err = string(j, &key))) {
				free(key); /* a bad escape fails after the allocation */
				return err;
			}
			ws(j);
			if (j->p >= j->end || *j->p != ':') {
				free(key);
				return fail(j, "expected ':'");
			}
			j->p++;
		}
		if ((err = add_kid(v, &k, &cap))) {
			free(key);
			return err;
		}
		k->key = key;
		if ((err = value(j, k)))
			return err;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			j->depth--;
			return 0;
		}
		return fail(j, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int number(struct jp *j, struct jv *v)
{
	const char *b = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return fail(j, "bad number");
	if (*j->p == '0')
		j->p++;
	else
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return fail(j, "bad number");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return fail(j, "bad number");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	v->type = JV_NUM;
	v->str = strndup(b, j->p - b);
	return v->str ? 0 : -ENOMEM;
}

static int word(struct jp *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return fail(j, "unexpected character");
	j->p += n;
	return 0;
}

static int value(struct jp *j, struct jv *v)
{
	ws(j);
	if (j->p >= j->end)
		return fail(j, "unexpected end");
	switch (*j->p) {
	case '{': v->type = JV_OBJ; return container(j, v, '}');
	case '[': v->type = JV_ARR; return container(j, v, ']');
	case '"': v->type = JV_STR; return string(j, &v->str);
	case 't': v->type = JV_TRUE; return word(j, "true");
	case 'f': v->type = JV_FALSE; return word(j, "false");
	case 'n': v->type = JV_NULL; return word(j, "null");
	default: return number(j, v);
	}
}

static void jv_fini(struct jv *v)
{
	for (int i = 0; i < v->n; i++)
		jv_fini(&v->kids[i]);
	free(v->kids);
	free(v->str);
	free(v->key);
}

void jv_free(struct jv *v)
{
	if (!v)
		return;
	jv_fini(v);
	free(v);
}

struct jv *jv_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct jp j = { .s = text, .end = text + len, .p = text, .err = err, .errlen = errlen };
	struct jv *v = calloc(1, sizeof(*v));

	if (err && errlen)
		err[0] = 0;
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (value(&j, v) || (ws(&j), j.p != j.end && fail(&j, "text after the value"))) {
		if (err && !err[0])
			snprintf(err, errlen, "out of memory");
		jv_free(v);
		return NULL;
	}
	return v;
}

const struct jv *jv_get(const struct jv *v, const char *path)
{
	while (v && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);
		const struct jv *next = NULL;

		if (v->type == JV_OBJ) {
			for (int i = 0; i < v->n && !next; i++)
				if (strlen(v->kids[i].key) == n && !memcmp(v->kids[i].key, path, n))
					next = &v->kids[i];
		} else if (v->type == JV_ARR) {
			char *e;
			long i = strtol(path, &e, 10);

			if (e == path + n && i >= 0 && i < v->n)
				next = &v->kids[i];
		}
		v = next;
		path += n + (dot ? 1 : 0);
	}
	return v;
}

const char *jv_str(const struct jv *v, const char *path, const char *def)
{
	v = jv_get(v, path);
	return v && (v->type == JV_STR || v->type == JV_NUM) ? v->str : def;
}

uint64_t jv_u64(const struct jv *v, const char *path, uint64_t def)
{
	v = jv_get(v, path);
	return v && v->type == JV_NUM && v->str[0] != '-' ? strtoull(v->str, NULL, 10) : def;
}

int64_t jv_i64(const struct jv *v, const char *path, int64_t def)
{
	v = jv_get(v, path);
	return v && v->type == JV_NUM ? strtoll(v->str, NULL, 10) : def;
}

int jv_bool(const struct jv *v, const char *path, int def)
{
	v = jv_get(v, path);
	return v && (v->type == JV_TRUE || v->type == JV_FALSE) ? v->type == JV_TRUE : def;
}
