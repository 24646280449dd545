/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The control socket (`--control PATH`, `trigrec control PATH ...`): a UNIX
 * stream socket served on a thread of its own, so a client (slow, silent or
 * hostile) never delays a harvest. One request line per connection, one
 * reply line back.
 *
 * Only the socket's owner (the uid trigrec runs as) and root may use it: the
 * file is created mode 0600, and every connection's peer is checked with
 * SO_PEERCRED besides (a chmod, or a socket passed on, does not widen it).
 * Abstract sockets (an empty path) have no permissions at all: refused.
 */
#ifndef TRIGREC_CONTROL_H
#define TRIGREC_CONTROL_H
#include <pthread.h>
#include <stddef.h>

struct control;

/*
 * The requests a recorder answers, as every help text, the man page and the
 * README list them (tests/integration/helpdocs.sh checks that they agree).
 * The session's verb table (session__control_verbs()) says the same:
 * tests/unit/test_control.c checks that control__usage() of it is this text.
 */
#define CONTROL_VERBS "snapshot [NAME] | stats | status [json] | reload | stop"

/*
 * One verb of the control socket: a request is "NAME" or "NAME ARG".
 * Answers into reply (NUL-terminated; the newline is added if missing).
 * arg is NULL when the request has none.
 */
typedef void (*control_verb_fn)(void *ctx, const char *arg, char *reply, size_t len);

struct control_verb {
	const char *name; /* the request's first word */
	const char *arg;  /* its optional argument as the usage shows it ("[NAME]"); NULL: none */
	const char *word; /* the one argument accepted ("json"); NULL: any text (when arg is set) */
	int locked;  /* run holding the table's lock (the session's: reload swaps the triggers) */
	int wait_ms; /* how long `trigrec control` waits for the reply */
	int all;     /* a reply of several lines: the client reads until the server closes */
	control_verb_fn fn;
	const char *help; /* one line for `trigrec control -h` */
};

/* A verb table and what its handlers run with. */
struct control_verbs {
	const struct control_verb *v;
	int n;
	pthread_mutex_t *lock; /* taken around the verbs marked locked */
	void *ctx;
};

/*
 * Answer one request line from the table (a control_handler_fn, with the
 * table as ctx): the verb, its argument checked, its lock taken. Anything
 * else gets "error unknown command 'LINE' (USAGE)".
 */
void control__dispatch(void *table, const char *line, char *reply, size_t len);

/* The table's verb of this request line, or NULL. */
const struct control_verb *control__find(const struct control_verb *v, int n, const char *line);

/* "snapshot [NAME] | stats | ..." from the table, into buf; its length. */
size_t control__usage(const struct control_verb *v, int n, char *buf, size_t len);

/*
 * Validate path and bind the socket, mode 0600: refuses "" (an unset
 * variable; it would be an abstract socket anyone can reach), paths too long
 * for a UNIX socket, an existing file that is not a socket, and a socket
 * another recorder is listening on (a stale one is replaced). Call it before
 * anything slow (BPF loading) so a bad path fails at once. NULL after an
 * elog() that says what to do.
 */
struct control *control__open(const char *path);

/*
 * Answers one request line (no newline) into reply (NUL-terminated; the
 * newline is added). Runs on the control thread and may block (a `snapshot`
 * waits for its file); never on the side-band thread.
 */
typedef void (*control_handler_fn)(void *ctx, const char *line, char *reply, size_t len);

/* Serve requests with fn on the control thread. 0 or -errno after an elog(). */
int control__start(struct control *c, control_handler_fn fn, void *ctx);

/* Stop the thread (waits for a request in progress), close, remove the socket file. */
void control__free(struct control *c);

/*
 * Client side (`trigrec control`): connect to path, send line (a newline is
 * added), wait at most timeout_ms in all for one reply line. Returns its
 * length (reply NUL-terminated, newline kept) or -errno after an elog() that
 * names the socket and what to check (-ETIMEDOUT when nothing came back).
 */
int control_client__call(const char *path, const char *line, char *reply, size_t len,
			 int timeout_ms);

/*
 * The same for a reply of several lines (`status`): reads until the server
 * closes the connection (it does after every reply), at most len - 1 bytes.
 */
int control_client__call_all(const char *path, const char *line, char *reply, size_t len,
			     int timeout_ms);

/* How long a connected client may take to send its request line. */
#define CONTROL_REQUEST_TIMEOUT_MS 2000
/* What `trigrec control` waits for a reply: stats, stop ... */
#define CONTROL_CLIENT_TIMEOUT_MS 5000
/* ... and for `snapshot`, whose reply comes once the file is written. */
#define CONTROL_SNAPSHOT_TIMEOUT_MS 60000

#endif
