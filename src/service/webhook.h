/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * POST /snapshot on the metrics listener: the request body (Alertmanager's
 * webhook payload, version 4, or a plain {"name": NAME}) into the snapshots
 * it asks for, and the bearer token that guards it. Parsing only: the HTTP
 * side is in metrics.c, taking the snapshots in session.c.
 */
#ifndef TRIGREC_WEBHOOK_H
#define TRIGREC_WEBHOOK_H
#include <stddef.h>

/* Bodies past this are refused (413) before they are read to the end. */
#define WEBHOOK_MAX_BODY (64 * 1024)
/* Snapshots one request may ask for; firing alerts past it are answered "not taken". */
#define WEBHOOK_MAX_ALERTS 8
/* Requests with a valid token per minute; past it 429 (a flood takes nothing). */
#define WEBHOOK_RATE_PER_MIN 30
/* Token files: at most this many bytes, at least WEBHOOK_TOKEN_MIN characters. */
#define WEBHOOK_TOKEN_MAX 4096
#define WEBHOOK_TOKEN_MIN 16

struct webhook_alert {
	char name[64]; /* the snapshot's name: alertname[-fingerprint], file-name safe */
	char *json;    /* the sidecar's "alert" object, rendered by us (never the input's text) */
};

struct webhook_req {
	int alertmanager;	      /* 1: Alertmanager's payload; 0: {"name": ...} */
	int nr;			      /* firing alerts kept (at most WEBHOOK_MAX_ALERTS) */
	int over;		      /* firing alerts past WEBHOOK_MAX_ALERTS, not taken */
	int resolved;		      /* resolved alerts, ignored */
	struct webhook_alert *alerts; /* nr of them */
};

/*
 * Parse a request body. 0 and *out filled (free with webhook_req_free()),
 * or -EINVAL with what was wrong and what to send instead in err,
 * -ENOMEM.
 */
int webhook_parse(const char *body, size_t len, struct webhook_req *out, char *err, size_t errlen);
void webhook_req_free(struct webhook_req *r);

/* File-name safe in place, as trigger names are: [A-Za-z0-9_.-], one '_' per other character. */
void webhook_sanitize(char *s);

/*
 * Read the bearer token from path: a regular file (no symbolic link),
 * owned by trigrec's user or root, readable by nobody else (mode 0600 or
 * 0400), its first line WEBHOOK_TOKEN_MIN..WEBHOOK_TOKEN_MAX printable
 * characters with no spaces. 0 and a malloc'ed *token, or -errno with
 * the reason and the fix in err.
 */
int webhook_token_load(const char *path, char **token, char *err, size_t errlen);

/*
 * Does an Authorization header carry this token ("Bearer TOKEN")? Compares
 * in time independent of where the two differ.
 */
int webhook_auth_ok(const char *header, const char *token);

#endif
