// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Dynamic probes as tracefs dynamic events: names into uprobe_events /
 * kprobe_events lines (symbols and USDT notes read with libelf), created in
 * trigrec's group and removed again. See probes.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trigrec_abi.h"
#include "capture/probes.h"
#include "capture/tracefs.h"
#include "util/log.h"
#include "util/util.h"

#define GROUP_PREFIX "trigrec_"
#define MAX_EVENT_NAME 64 /* the kernel's MAX_EVENT_NAME_LEN */
#define MAX_USDT_SITES 64

static const struct {
	const char *prefix;
	enum probe_kind kind;
} kinds[] = {
	{ "kprobe:", PROBE_KPROBE }, { "kretprobe:", PROBE_KRETPROBE },
	{ "uprobe:", PROBE_UPROBE }, { "uretprobe:", PROBE_URETPROBE },
	{ "usdt:", PROBE_USDT },
};

const char *probe_kind_name(enum probe_kind k)
{
	switch (k) {
	case PROBE_KPROBE: return "kprobe";
	case PROBE_KRETPROBE: return "kretprobe";
	case PROBE_UPROBE: return "uprobe";
	case PROBE_URETPROBE: return "uretprobe";
	case PROBE_USDT: return "usdt";
	default: return "";
	}
}

enum probe_kind probe_kind_of(const char *name)
{
	if (!name)
		return PROBE_NONE;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(name, kinds[i].prefix, strlen(kinds[i].prefix)))
			return kinds[i].kind;
	return PROBE_NONE;
}

int probe_text_check(const char *what, const char *s, int blanks_ok, char *err, size_t errlen)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x20 && *p != 0x7f && (blanks_ok || *p != ' '))
			continue;
		seterr(err, errlen,
		       "%s: byte %zu is %s (0x%02x): refused, because the kernel's "
		       "kprobe_events/uprobe_events take one event per line split on blanks, "
		       "so it would change other events; %s",
		       what, (size_t)(p - (const unsigned char *)s),
		       *p == ' '  ? "a blank" :
		       *p == '\n' ? "a newline" :
		       *p == '\t' ? "a tab" :
				    "a control character",
		       *p,
		       *p == ' ' ? "remove it, or for a path, give the binary one without "
				   "blanks (a hard link or a bind mount)" :
				   "remove it (a binary path or USDT note holding one cannot be "
				   "probed)");
		return -EINVAL;
	}
	return 0;
}

static int copy_part(char *dst, size_t len, const char *s, size_t n)
{
	if (n >= len)
		return -1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* "+OFFS" at the end of a function or symbol: split it off. */
static int split_offset(char *func, uint64_t *off, char *err, size_t errlen)
{
	char *plus = strchr(func, '+'), *end;

	*off = 0;
	if (!plus)
		return 0;
	errno = 0;
	*off = strtoull(plus + 1, &end, 0);
	if (errno || end == plus + 1 || *end) {
		seterr(err, errlen, "'%s': the offset after '+' must be a number (e.g. +0x10)",
		       plus);
		return -EINVAL;
	}
	*plus = '\0';
	return 0;
}

int probe_spec_parse(const char *text, struct probe_spec *s, char *err, size_t errlen)
{
	const char *body, *paren, *end;
	char head[PATH_MAX + 512], *c1, *c2;
	size_t hl;

	memset(s, 0, sizeof(*s));
	if (probe_text_check("the probe name", text, 1, err, errlen))
		return -EINVAL;
	s->kind = probe_kind_of(text);
	if (s->kind == PROBE_NONE) {
		seterr(err, errlen,
		       "'%s' is not a probe (kprobe:, kretprobe:, uprobe:, "
		       "uretprobe:, usdt:)",
		       text);
		return -EINVAL;
	}
	body = strchr(text, ':') + 1;
	paren = strchr(body, '(');
	end = body + strlen(body);
	if (paren) {
		if (end[-1] != ')') {
			seterr(err, errlen,
			       "'%s': the field list must end the name: KIND:...(FIELD, ...)",
			       text);
			return -EINVAL;
		}
		if (copy_part(s->args, sizeof(s->args), paren + 1, (size_t)(end - 1 - paren - 1))) {
			seterr(err, errlen, "'%s': the field list is too long", text);
			return -EINVAL;
		}
		s->has_args = 1;
		end = paren;
	}
	hl = (size_t)(end - body);
	if (!hl || copy_part(head, sizeof(head), body, hl)) {
		seterr(err, errlen, "'%s': nothing after '%s:'", text, probe_kind_name(s->kind));
		return -EINVAL;
	}
	switch (s->kind) {
	case PROBE_KPROBE:
	case PROBE_KRETPROBE:
		if (strchr(head, ':') || strchr(head, '/')) {
			seterr(err, errlen, "'%s': write %s:FUNCTION%s", text,
			       probe_kind_name(s->kind),
			       s->kind == PROBE_KPROBE ? "[+OFFSET]" : "");
			return -EINVAL;
		}
		if (copy_part(s->func, sizeof(s->func), head, strlen(head)))
			goto too_long;
		if (split_offset(s->func, &s->offset, err, errlen))
			return -EINVAL;
		if (s->kind == PROBE_KRETPROBE && s->offset) {
			seterr(err, errlen, "'%s': a kretprobe is on the function, not an offset",
			       text);
			return -EINVAL;
		}
		break;
	case PROBE_UPROBE:
	case PROBE_URETPROBE:
		c1 = strrchr(head, ':');
		if (!c1 || c1 == head || !c1[1]) {
			seterr(err, errlen, "'%s': write %s:PATH:SYMBOL%s", text,
			       probe_kind_name(s->kind),
			       s->kind == PROBE_UPROBE ? "[+OFFSET]" : "");
			return -EINVAL;
		}
		*c1 = '\0';
		if (copy_part(s->path, sizeof(s->path), head, strlen(head)) ||
		    copy_part(s->func, sizeof(s->func), c1 + 1, strlen(c1 + 1)))
			goto too_long;
		if (split_offset(s->func, &s->offset, err, errlen))
			return -EINVAL;
		if (s->kind == PROBE_URETPROBE && s->offset) {
			seterr(err, errlen, "'%s': a uretprobe is on the function, not an offset",
			       text);
			return -EINVAL;
		}
		break;
	case PROBE_USDT:
		c2 = strrchr(head, ':');
		if (!c2 || c2 == head || !c2[1]) {
			seterr(err, errlen, "'%s': write usdt:PATH:PROVIDER:NAME", text);
			return -EINVAL;
		}
		*c2 = '\0';
		if (copy_part(s->func, sizeof(s->func), c2 + 1, strlen(c2 + 1)))
			goto too_long;
		c1 = strrchr(head, ':');
		/* usdt:PATH:NAME (any provider) when what is left has no ':' or looks like a path. */
		if (c1 && !strchr(c1 + 1, '/')) {
			*c1 = '\0';
			if (copy_part(s->provider, sizeof(s->provider), c1 + 1, strlen(c1 + 1)))
				goto too_long;
		}
		if (!head[0]) {
			seterr(err, errlen, "'%s': write usdt:PATH:PROVIDER:NAME", text);
			return -EINVAL;
		}
		if (copy_part(s->path, sizeof(s->path), head, strlen(head)))
			goto too_long;
		break;
	default: break;
	}
	if (!s->func[0]) {
		seterr(err, errlen, "'%s': no function or probe name", text);
		return -EINVAL;
	}
	if (probe_text_check("the path", s->path, 0, err, errlen) ||
	    probe_text_check(s->kind == PROBE_USDT ? "the USDT probe name" : "the function",
			     s->func, 0, err, errlen) ||
	    probe_text_check("the USDT provider", s->provider, 0, err, errlen))
		return -EINVAL;
	if (probe_is_glob(s->path)) {
		seterr(err, errlen,
		       "'%s': the path cannot be a glob (only the function or probe name)", text);
		return -EINVAL;
	}
	if (s->offset && probe_is_glob(s->func)) {
		seterr(err, errlen, "'%s': +OFFSET needs one function, not a glob", text);
		return -EINVAL;
	}
	return 0;
too_long:
	seterr(err, errlen,
	       "'%.80s...': a part of it is too long (a path at most %zu bytes, a function or "
	       "symbol at most %zu)",
	       text, sizeof(s->path) - 1, sizeof(s->func) - 1);
	return -EINVAL;
}

int probe_list_next(const char **p, char *out, size_t len)
{
	const char *s = *p;
	size_t n = 0;
	int depth = 0;

	while (*s == ',')
		s++;
	if (!*s) {
		*p = s;
		return 0;
	}
	while (s[n] && (depth > 0 || s[n] != ',')) {
		if (s[n] == '(')
			depth++;
		else if (s[n] == ')' && depth > 0)
			depth--;
		n++;
	}
	*p = s + n;
	if (n >= len)
		return -E2BIG;
	memcpy(out, s, n);
	out[n] = '\0';
	return 1;
}

/* ------------------------------------------------------------------ */
/* Fetch-args                                                           */

#if defined(__x86_64__)
static const char *const abi_regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };
#elif defined(__aarch64__)
static const char *const abi_regs[] = { "%x0", "%x1", "%x2", "%x3", "%x4", "%x5", "%x6", "%x7" };
#else
static const char *const abi_regs[] = { NULL };
#endif
#define NR_ABI_REGS (int)(sizeof(abi_regs) / sizeof(abi_regs[0]))

/* x86 register as uprobe_events names it: %edi -> %di, %r8d -> %r8, %rax -> %ax. */
static void usdt_reg(const char *r, char *out, size_t len)
{
	char b[16];
	size_t n;

	snprintf(b, sizeof(b), "%s", r);
#if defined(__x86_64__)
	n = strlen(b);
	if (b[0] == 'r' && isdigit((unsigned char)b[1])) {
		/* r8..r15 with a d/w/b suffix */
		while (n && !isdigit((unsigned char)b[n - 1]))
			b[--n] = '\0';
	} else if (n == 3 && (b[0] == 'r' || b[0] == 'e')) {
		memmove(b, b + 1, n);
	} else if (n == 2 && b[1] == 'l') {
		/* al, bl, ... -> ax, bx */
		b[1] = 'x';
	} else if (n == 3 && b[2] == 'l') {
		/* sil, dil, bpl, spl -> si, di, bp, sp */
		b[2] = '\0';
	}
#elif defined(__aarch64__)
	(void)n;
	if (b[0] == 'w')
		b[0] = 'x';
#endif
	snprintf(out, len, "%%%s", b);
}

/* A register name as notes write them: 1-8 letters and digits. */
static int usdt_reg_ok(const char *r, size_t n)
{
	if (!n || n > 8)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)r[i]))
			return 0;
	return 1;
}

int usdt_arg_parse(const char *text, struct usdt_arg *a)
{
	const char *at = strchr(text, '@'), *p;
	char *end;
	long sz;

	memset(a, 0, sizeof(*a));
	if (!at)
		return -EINVAL;
	sz = strtol(text, &end, 10);
	if (end != at || !sz || labs(sz) > 8)
		return -EINVAL;
	a->size = (int)labs(sz);
	a->is_signed = sz < 0;
	p = at + 1;
	if (*p == '$') {
		/* an immediate: a number, nothing else reaches uprobe_events */
		if (!isdigit((unsigned char)p[1]) &&
		    !((p[1] == '-' || p[1] == '+') && isdigit((unsigned char)p[2])))
			return -EINVAL;
		errno = 0;
		(void)strtoll(p + 1, &end, 0);
		if (end == p + 1 || *end || errno)
			return -EINVAL;
		snprintf(a->fetch, sizeof(a->fetch), "\\%s", p + 1);
		return 0;
	}
	if (*p == '%') {
		if (!usdt_reg_ok(p + 1, strlen(p + 1)))
			return -EINVAL;
		usdt_reg(p + 1, a->fetch, sizeof(a->fetch));
		return 0;
	}
	/* OFFS(%reg) */
	{
		char reg[16], rr[24];
		long off = strtol(p, &end, 0);
		const char *cl;

		if (end[0] != '(' || end[1] != '%')
			return -EINVAL;
		cl = strchr(end, ')');
		if (!cl || cl[1] || (size_t)(cl - end - 2) >= sizeof(reg))
			return -EINVAL;
		if (!usdt_reg_ok(end + 2, (size_t)(cl - end - 2)))
			return -EINVAL;
		memcpy(reg, end + 2, (size_t)(cl - end - 2));
		reg[cl - end - 2] = '\0';
		if (!strcmp(reg, "rip"))
			return -EINVAL; /* a global: needs the load address, not a register */
		usdt_reg(reg, rr, sizeof(rr));
		snprintf(a->fetch, sizeof(a->fetch), "%+ld(%s)", off, rr);
	}
	return 0;
}

int usdt_args_parse(const char *args, struct usdt_arg *ua, int max, char *err, size_t errlen)
{
	char a[512], *save = NULL, *t;
	int n = 0;

	if (probe_text_check("its argument text (in the binary's .note.stapsdt)", args, 1, err,
			     errlen))
		return -EINVAL;
	snprintf(a, sizeof(a), "%s", args);
	for (t = strtok_r(a, " ", &save); t && n < max; t = strtok_r(NULL, " ", &save)) {
		if (usdt_arg_parse(t, &ua[n])) {
			/* Unreadable here (a global's address): leave a placeholder. */
			memset(&ua[n], 0, sizeof(ua[n]));
			ua[n].size = 8;
			snprintf(ua[n].fetch, sizeof(ua[n].fetch), "\\0");
			dlog("usdt argument %d '%s' is not readable by a uprobe; it reads 0", n + 1,
			     t);
		}
		n++;
	}
	return n;
}

static int valid_ident(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

static const char *const known_types[] = { "s8",   "s16",    "s32",	"s64",	  "u8",	   "u16",
					   "u32",  "u64",    "x8",	"x16",	  "x32",   "x64",
					   "char", "string", "ustring", "symbol", "symstr" };

static int valid_type(const char *t)
{
	for (size_t i = 0; i < sizeof(known_types) / sizeof(known_types[0]); i++)
		if (!strcmp(t, known_types[i]))
			return 1;
	/* bitfields and arrays: the kernel checks them */
	return t[0] == 'b' || strchr(t, '[') != NULL;
}

struct fa_ctx {
	const struct probe_spec *s;
	const struct usdt_arg *uargs;
	int nargs;
	int btf;
	char *err;
	size_t errlen;
};

/* argN / retval / comm / %reg / +OFFS(FETCH) into the kernel's syntax; *deftype when known. */
static int translate_fetch(const struct fa_ctx *c, const char *in, char *out, size_t len,
			   const char **deftype, char *defname, size_t nlen)
{
	enum probe_kind k = c->s->kind;
	int ret_kind = k == PROBE_KRETPROBE || k == PROBE_URETPROBE;

	if (!strncmp(in, "arg", 3) && isdigit((unsigned char)in[3])) {
		char *end;
		long n = strtol(in + 3, &end, 10);

		if (*end || n < 1) {
			seterr(c->err, c->errlen, "'%s': arguments are arg1, arg2, ...", in);
			return -EINVAL;
		}
		snprintf(defname, nlen, "arg%ld", n);
		switch (k) {
		case PROBE_KPROBE:
		case PROBE_KRETPROBE:
			snprintf(out, len, "$arg%ld", n);
			*deftype = c->btf ? NULL : "s64";
			return 0;
		case PROBE_UPROBE:
			if (n > NR_ABI_REGS || !abi_regs[0]) {
				seterr(c->err, c->errlen,
				       "'%s': a uprobe reads arg1..arg%d (the registers of the "
				       "calling convention); use +OFFS(%%sp) for the stack",
				       in, NR_ABI_REGS);
				return -EINVAL;
			}
			snprintf(out, len, "%s", abi_regs[n - 1]);
			*deftype = "s64";
			return 0;
		case PROBE_USDT:
			if (n > c->nargs) {
				seterr(c->err, c->errlen, "'%s': this USDT probe has %d argument%s",
				       in, c->nargs, c->nargs == 1 ? "" : "s");
				return -EINVAL;
			}
			snprintf(out, len, "%s", c->uargs[n - 1].fetch);
			*deftype = NULL;
			return 0;
		default:
			seterr(c->err, c->errlen,
			       "'%s': a uretprobe sees only the return value (retval); record "
			       "the arguments with a uprobe on the same function",
			       in);
			return -EINVAL;
		}
	}
	if (!strcmp(in, "retval") || !strcmp(in, "$retval")) {
		if (!ret_kind) {
			seterr(c->err, c->errlen,
			       "'%s': only a kretprobe or uretprobe sees the return value", in);
			return -EINVAL;
		}
		snprintf(out, len, "$retval");
		snprintf(defname, nlen, "ret");
		*deftype = k == PROBE_KRETPROBE && c->btf ? NULL : "s64";
		return 0;
	}
	if (!strcmp(in, "comm") || !strcmp(in, "$comm")) {
		snprintf(out, len, "$comm");
		snprintf(defname, nlen, "comm");
		*deftype = "string";
		return 0;
	}
	if (in[0] == '%' || in[0] == '$' || in[0] == '@' || in[0] == '\\') {
		snprintf(out, len, "%s", in);
		defname[0] = '\0';
		if (in[0] == '%' && valid_ident(in + 1))
			snprintf(defname, nlen, "%s", in + 1);
		*deftype = in[0] == '%' ? "s64" : NULL;
		return 0;
	}
	if ((in[0] == '+' || in[0] == '-') && strchr(in, '(')) {
		const char *lp = strchr(in, '('), *t;
		char inner[256], tin[256], dn[64];
		size_t il = strlen(in);

		if (in[il - 1] != ')' || (size_t)(il - (size_t)(lp - in) - 2) >= sizeof(inner)) {
			seterr(c->err, c->errlen, "'%s': write +OFFSET(FETCH), e.g. +0(arg1)", in);
			return -EINVAL;
		}
		memcpy(inner, lp + 1, il - (size_t)(lp - in) - 2);
		inner[il - (size_t)(lp - in) - 2] = '\0';
		if (translate_fetch(c, inner, tin, sizeof(tin), &t, dn, sizeof(dn)))
			return -EINVAL;
		if ((size_t)snprintf(out, len, "%.*s(%s)", (int)(lp - in), in, tin) >= len) {
			seterr(c->err, c->errlen, "'%s': too long", in);
			return -EINVAL;
		}
		snprintf(defname, nlen, "%.50s%s", dn, dn[0] ? "_deref" : "");
		*deftype = "s64";
		return 0;
	}
	if ((k == PROBE_KPROBE || k == PROBE_KRETPROBE) &&
	    (isalpha((unsigned char)in[0]) || in[0] == '_')) {
		/* A parameter by name (BTF), possibly ->field: the kernel resolves it. */
		if (!c->btf) {
			seterr(c->err, c->errlen,
			       "'%s': arguments by name need the kernel's BTF argument support "
			       "(CONFIG_PROBE_EVENTS_BTF_ARGS, Linux 6.6); use arg1, arg2, ...",
			       in);
			return -EINVAL;
		}
		snprintf(out, len, "%s", in);
		snprintf(defname, nlen, "%.*s", (int)strcspn(in, "-."), in);
		*deftype = NULL;
		return 0;
	}
	seterr(c->err, c->errlen,
	       "'%s' is not a field of a probe: write arg1.., retval, comm, %%REG, "
	       "+OFFSET(FETCH)%s",
	       in, k == PROBE_KPROBE || k == PROBE_KRETPROBE ? " or a parameter's name" : "");
	return -EINVAL;
}

static int append(char *out, size_t len, size_t *o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int append(char *out, size_t len, size_t *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out + *o, len - *o, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *o)
		return -E2BIG;
	*o += (size_t)n;
	return 0;
}

/* One "NAME=FETCH:TYPE" item of a field list. */
static int one_field(const struct fa_ctx *c, const char *item, int idx, char *out, size_t len,
		     size_t *o, char names[][MAX_EVENT_NAME], int *nnames)
{
	char name[MAX_EVENT_NAME] = "", fetch[256], kf[320], dn[64] = "", type[32] = "";
	const char *eq = NULL, *colon, *deftype = NULL, *f = item;
	int depth = 0;

	/* NAME= only when '=' comes before any '(' */
	for (const char *q = item; *q && *q != '('; q++)
		if (*q == '=') {
			eq = q;
			break;
		}
	if (eq) {
		if ((size_t)(eq - item) >= sizeof(name)) {
			seterr(c->err, c->errlen, "'%s': the field name is too long", item);
			return -EINVAL;
		}
		memcpy(name, item, (size_t)(eq - item));
		name[eq - item] = '\0';
		if (!valid_ident(name) || !strncmp(name, "common_", 7)) {
			seterr(c->err, c->errlen,
			       "'%s': a field name is letters, digits and _ (not common_*)", name);
			return -EINVAL;
		}
		f = eq + 1;
	}
	/* :TYPE is after the last ')' */
	colon = NULL;
	for (const char *q = f; *q; q++) {
		if (*q == '(')
			depth++;
		else if (*q == ')')
			depth--;
		else if (*q == ':' && !depth)
			colon = q;
	}
	if (colon) {
		if (strlen(colon + 1) >= sizeof(type) || !valid_type(colon + 1)) {
			seterr(c->err, c->errlen,
			       "'%s': unknown type '%s' (s8..s64, u8..u64, x8..x64, string, "
			       "ustring, char, symbol)",
			       item, colon + 1);
			return -EINVAL;
		}
		strcpy(type, colon + 1);
	}
	if (copy_part(fetch, sizeof(fetch), f, colon ? (size_t)(colon - f) : strlen(f))) {
		seterr(c->err, c->errlen, "'%s': too long", item);
		return -EINVAL;
	}
	if (!fetch[0]) {
		seterr(c->err, c->errlen, "an empty field in the field list");
		return -EINVAL;
	}
	if (probe_text_check("a field", item, 0, c->err, c->errlen))
		return -EINVAL;
	if (translate_fetch(c, fetch, kf, sizeof(kf), &deftype, dn, sizeof(dn)))
		return -EINVAL;
	if (!name[0])
		snprintf(name, sizeof(name), "%s", valid_ident(dn) ? dn : "");
	if (!name[0])
		snprintf(name, sizeof(name), "f%d", idx + 1);
	if (!type[0] && c->s->kind == PROBE_USDT && !strncmp(fetch, "arg", 3) && c->uargs &&
	    atoi(fetch + 3) >= 1 && atoi(fetch + 3) <= c->nargs) {
		const struct usdt_arg *u = &c->uargs[atoi(fetch + 3) - 1];

		snprintf(type, sizeof(type), "%c%d", u->is_signed ? 's' : 'u', u->size * 8);
	}
	if (!type[0] && deftype)
		snprintf(type, sizeof(type), "%s", deftype);
	/* A string from user memory: the kernel's "string" on a uprobe reads user memory. */
	for (int i = 0; i < *nnames; i++)
		if (!strcmp(names[i], name)) {
			seterr(c->err, c->errlen, "the field name '%s' is given twice", name);
			return -EINVAL;
		}
	if (*nnames < 32)
		snprintf(names[(*nnames)++], MAX_EVENT_NAME, "%s", name);
	if (append(out, len, o, "%s%s=%s%s%s", *o ? " " : "", name, kf, type[0] ? ":" : "", type)) {
		seterr(c->err, c->errlen, "the field list is too long");
		return -E2BIG;
	}
	return 0;
}

int probe_fetchargs(const struct probe_spec *s, const struct usdt_arg *uargs, int nargs, int btf,
		    char *out, size_t len, char *err, size_t errlen)
{
	struct fa_ctx c = { s, uargs, nargs, btf, err, errlen };
	char names[32][MAX_EVENT_NAME], item[512], list[1100];
	const char *p;
	size_t o = 0;
	int nn = 0, idx = 0, r;

	out[0] = '\0';
	if (s->has_args) {
		snprintf(list, sizeof(list), "%s", s->args);
	} else {
		/* The default fields of each kind. */
		switch (s->kind) {
		case PROBE_KPROBE:
			if (btf && !s->offset)
				return append(out, len, &o, "$arg*") ? -E2BIG : 0;
			snprintf(list, sizeof(list), "%s",
				 s->offset ? "" : "arg1,arg2,arg3,arg4,arg5,arg6");
			break;
		case PROBE_UPROBE:
			snprintf(list, sizeof(list), "%s",
				 s->offset ? "" : "arg1,arg2,arg3,arg4,arg5,arg6");
			break;
		case PROBE_KRETPROBE:
		case PROBE_URETPROBE: snprintf(list, sizeof(list), "retval"); break;
		case PROBE_USDT: {
			size_t lo = 0;

			list[0] = '\0';
			for (int i = 0; i < nargs; i++)
				lo += (size_t)snprintf(list + lo, sizeof(list) - lo, "%sarg%d",
						       i ? "," : "", i + 1);
			break;
		}
		default: list[0] = '\0';
		}
	}
	p = list;
	while ((r = probe_list_next(&p, item, sizeof(item))) > 0) {
		char *a = item, *e;

		while (isspace((unsigned char)*a))
			a++;
		e = a + strlen(a);
		while (e > a && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (one_field(&c, a, idx++, out, len, &o, names, &nn))
			return -EINVAL;
	}
	if (r < 0) {
		seterr(err, errlen, "a field of the list is too long");
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Symbols: kallsyms, ELF symbol tables, USDT notes                      */

struct cand {
	char name[128];
	int d;
};

/* Keep the 3 closest names (distance under thr). */
static void cand_add(struct cand *c, const char *want, const char *name, int thr)
{
	int d;

	if (strlen(name) >= sizeof(c[0].name) ||
	    labs((long)strlen(name) - (long)strlen(want)) > thr)
		return;
	d = edit_distance(want, name);
	if (d > thr)
		return;
	for (int i = 0; i < 3; i++) {
		if (c[i].name[0] && !strcmp(c[i].name, name))
			return;
		if (!c[i].name[0] || d < c[i].d) {
			memmove(&c[i + 1], &c[i], (size_t)(2 - i) * sizeof(c[0]));
			snprintf(c[i].name, sizeof(c[i].name), "%s", name);
			c[i].d = d;
			return;
		}
	}
}

static void cand_text(const struct cand *c, const char *pre, char *out, size_t len)
{
	size_t o = 0;

	out[0] = '\0';
	for (int i = 0; i < 3 && c[i].name[0]; i++)
		o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%s%s%s", i ? " or " : "",
				      pre, c[i].name);
}

static int typo_threshold(const char *s)
{
	int t = 1 + (int)strlen(s) / 4;

	return t > 4 ? 4 : t;
}

/* 1 when FUNC is a text symbol in /proc/kallsyms; suggestions otherwise. */
static int kallsyms_has(const char *func, char *sugg, size_t slen)
{
	struct cand c[4] = { { { 0 } } };
	char line[512], name[256], type;
	unsigned long long addr;
	int found = 0, thr = typo_threshold(func);
	FILE *f = fopen("/proc/kallsyms", "r");

	sugg[0] = '\0';
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (!strcmp(name, func)) {
			found = 1;
			break;
		}
		cand_add(c, func, name, thr);
	}
	fclose(f);
	if (!found)
		cand_text(c, "", sugg, slen);
	return found;
}

/* ------------------------------------------------------------------ */
/* Globs: one name standing for several functions or USDT probes         */

int probe_is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

int probe_names_add(struct probe_names *l, const char *name)
{
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 256;
		char **v = realloc(l->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = strdup(name);
	if (!l->v[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

void probe_names_free(struct probe_names *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int names_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort; drop repeats, or (drop_dups) every name listed more than once. */
static void names_sort(struct probe_names *l, int drop_dups)
{
	int w = 0;

	if (l->n > 1)
		qsort(l->v, (size_t)l->n, sizeof(*l->v), names_cmp);
	for (int i = 0; i < l->n;) {
		int j = i + 1;

		while (j < l->n && !strcmp(l->v[i], l->v[j]))
			j++;
		if (drop_dups && j - i > 1) {
			for (int k = i; k < j; k++)
				free(l->v[k]);
		} else {
			l->v[w++] = l->v[i];
			for (int k = i + 1; k < j; k++)
				free(l->v[k]);
		}
		i = j;
	}
	l->n = w;
}

static int names_has(const struct probe_names *l, const char *name)
{
	return l->n && bsearch(&name, l->v, (size_t)l->n, sizeof(*l->v), names_cmp) != NULL;
}

int probe_blacklisted(const char *blacklist, const char *func, unsigned long long addr, char *entry,
		      size_t len)
{
	const char *p;

	for (p = blacklist; p && *p; p += strcspn(p, "\n"), p += *p == '\n') {
		unsigned long long lo, hi;
		char name[256];

		if (sscanf(p, "0x%llx-0x%llx %255s", &lo, &hi, name) != 3)
			continue;
		if (!strcmp(name, func) || (addr && addr >= lo && addr < hi)) {
			snprintf(entry, len, "%s", name);
			return 1;
		}
	}
	return 0;
}

int probe_kfuncs(const char *filter_funcs, const char *kallsyms, const char *blacklist,
		 struct probe_names *out)
{
	struct probe_names bl = { 0 }, all = { 0 };
	const char *text = filter_funcs ? filter_funcs : kallsyms, *p;
	char name[256];
	int r = 0;

	memset(out, 0, sizeof(*out));
	for (p = blacklist; p && *p && !r; p += strcspn(p, "\n"), p += *p == '\n') {
		/* "0xSTART-0xEND\tNAME" */
		if (sscanf(p, "%*s %255s", name) == 1)
			r = probe_names_add(&bl, name);
	}
	names_sort(&bl, 0);
	for (p = text; p && *p && !r; p += strcspn(p, "\n"), p += *p == '\n') {
		char type;

		if (filter_funcs) {
			/* "NAME" or "NAME [MODULE]" */
			if (sscanf(p, "%255s", name) != 1)
				continue;
		} else {
			/* "ADDR TYPE NAME [MODULE]": text symbols only */
			if (sscanf(p, "%*s %c %255s", &type, name) != 2 ||
			    (type != 't' && type != 'T'))
				continue;
		}
		r = probe_names_add(&all, name);
	}
	if (r) {
		probe_names_free(&bl);
		probe_names_free(&all);
		return r;
	}
	/* A name listed twice is two functions: kprobe_events cannot tell which. */
	names_sort(&all, 1);
	for (int i = 0; i < all.n && !r; i++)
		if (!names_has(&bl, all.v[i]))
			r = probe_names_add(out, all.v[i]);
	probe_names_free(&bl);
	probe_names_free(&all);
	if (r)
		probe_names_free(out);
	return r ? r : out->n;
}

/* Globs with the literal start (pl bytes of pat) replaced by close starts of candidates. */
static void glob_suggest_start(const char *pat, size_t pl, const struct probe_names *cands,
			       struct cand *c)
{
	char pre[128];
	int thr;

	memcpy(pre, pat, pl);
	pre[pl] = '\0';
	thr = typo_threshold(pre);
	for (int i = 0; i < cands->n; i++) {
		const char *n = cands->v[i];
		size_t nl = strlen(n);
		int best = thr + 1;
		size_t bestl = 0;

		/* Lengths nearest the start's first: pl, pl-1, pl+1, pl-2, pl+2. */
		for (int k = 0; k < 5; k++) {
			long l = (long)pl + (k & 1 ? -(k + 1) / 2 : k / 2);
			char np[128];
			int d;

			if (l < 1 || (size_t)l > nl || (size_t)l >= sizeof(np))
				continue;
			memcpy(np, n, (size_t)l);
			np[l] = '\0';
			d = edit_distance(pre, np);
			if (d && d < best) {
				best = d;
				bestl = (size_t)l;
			}
		}
		if (best <= thr) {
			char sg[sizeof(c[0].name)];

			if (snprintf(sg, sizeof(sg), "%.*s%s", (int)bestl, n, pat + pl) >=
				    (int)sizeof(sg) ||
			    fnmatch(sg, n, 0))
				continue;
			/* Closest first: the distance of the start. */
			for (int k = 0; k < 3; k++) {
				if (c[k].name[0] && !strcmp(c[k].name, sg))
					break;
				if (!c[k].name[0] || best < c[k].d) {
					memmove(&c[k + 1], &c[k], (size_t)(2 - k) * sizeof(c[0]));
					snprintf(c[k].name, sizeof(c[k].name), "%s", sg);
					c[k].d = best;
					break;
				}
			}
		}
	}
}

/*
 * Did-you-mean for a glob matching nothing: the glob with its literal start
 * (before the first glob character) replaced by the closest start of a
 * candidate, when that glob matches it ("probwork_*" -> "probework_*").
 * Without a literal start, the closest names to the glob's letters.
 */
static void glob_suggest(const char *pat, const struct probe_names *cands, char *out, size_t len)
{
	struct cand c[4] = { { { 0 } } };
	size_t pl = strcspn(pat, "*?[");
	char lit[256];
	int thr;

	out[0] = '\0';
	if (pl >= 128)
		return;
	if (pl)
		glob_suggest_start(pat, pl, cands, c);
	if (!c[0].name[0]) {
		size_t o = 0;

		for (const char *q = pat; *q && o < sizeof(lit) - 1; q++)
			if (!strchr("*?[]", *q))
				lit[o++] = *q;
		lit[o] = '\0';
		if (o < 3)
			return;
		thr = typo_threshold(lit);
		for (int i = 0; i < cands->n; i++)
			cand_add(c, lit, cands->v[i], thr);
	}
	cand_text(c, "", out, len);
}

int probe_glob_expand(const char *pat, const struct probe_names *cands, int max, const char *what,
		      struct probe_names *out, char *err, size_t errlen)
{
	int n = 0, r = 0;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < cands->n; i++)
		n += !fnmatch(pat, cands->v[i], 0);
	if (!n) {
		char sg[512];

		glob_suggest(pat, cands, sg, sizeof(sg));
		seterr(err, errlen, "'%s' matches no %s%s%s%s", pat, what,
		       sg[0] ? " (did you mean " : "", sg, sg[0] ? "?)" : "");
		return -ENOENT;
	}
	if (n > max) {
		char first[256] = "";
		size_t o = 0;
		int k = 0;

		for (int i = 0; i < cands->n && k < 3; i++)
			if (!fnmatch(pat, cands->v[i], 0)) {
				o += (size_t)snprintf(first + o,
						      o < sizeof(first) ? sizeof(first) - o : 0,
						      "%s%s", k ? ", " : "", cands->v[i]);
				k++;
			}
		seterr(err, errlen,
		       "'%s' matches %d %s, more than the %d one glob may probe: narrow it (a "
		       "longer start, fewer '*'; it matches %s, ...), or write the functions "
		       "out",
		       pat, n, what, max, first);
		return -E2BIG;
	}
	for (int i = 0; i < cands->n && !r; i++)
		if (!fnmatch(pat, cands->v[i], 0))
			r = probe_names_add(out, cands->v[i]);
	if (r) {
		probe_names_free(out);
		return r;
	}
	return out->n;
}

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static void elf_init(void)
{
	elf_version(EV_CURRENT);
}

/* A virtual address of the file into its file offset, through the PT_LOAD that holds it. */
static int vaddr_to_off(Elf *e, uint64_t va, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (va >= ph.p_vaddr && va < ph.p_vaddr + ph.p_memsz) {
			*off = va - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

static Elf *elf_open_path(const char *path, int *fd, char *err, size_t errlen)
{
	Elf *e;

	pthread_once(&elf_once, elf_init);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		seterr(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	e = elf_begin(*fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		seterr(err, errlen, "%s is not an ELF binary or library", path);
		if (e)
			elf_end(e);
		close(*fd);
		*fd = -1;
		return NULL;
	}
	return e;
}

/*
 * The file offset of SYMBOL(+off) in path (.symtab, else .dynsym). -ENOENT
 * with suggestions, -ENODATA when the file has no symbols at all.
 */
static int elf_symbol_offset(const char *path, const char *sym, uint64_t add, uint64_t *off,
			     char *err, size_t errlen)
{
	struct cand c[4] = { { { 0 } } };
	int fd, nsym = 0, found = 0, thr = typo_threshold(sym), ret, symtab = 0;
	uint64_t va = 0;
	Elf_Scn *scn = NULL;
	char *end;
	Elf *e;

	e = elf_open_path(path, &fd, err, errlen);
	if (!e)
		return -ENOENT;
	if (sym[0] == '0' && sym[1] == 'x') {
		va = strtoull(sym, &end, 16);
		found = !*end;
	}
	for (int pass = 0; pass < 2 && !found; pass++) {
		while ((scn = elf_nextscn(e, scn)) && !found) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym s;
				const char *n;

				symtab |= !pass;
				if (!gelf_getsym(d, (int)i, &s) ||
				    GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value)
					continue;
				n = elf_strptr(e, sh.sh_link, s.st_name);
				if (!n)
					continue;
				nsym++;
				if (!strcmp(n, sym)) {
					va = s.st_value;
					found = 1;
					break;
				}
				cand_add(c, sym, n, thr);
			}
		}
		scn = NULL;
	}
	if (!found) {
		char sg[512];

		cand_text(c, "", sg, sizeof(sg));
		if (!nsym)
			seterr(err, errlen,
			       "%s has no symbols (stripped): give an address as "
			       "PATH:0xADDRESS, or probe an unstripped build",
			       path);
		else
			seterr(err, errlen, "no function '%s' in %s%s%s%s%s", sym, path,
			       sg[0] ? " (did you mean " : "", sg, sg[0] ? "?)" : "",
			       symtab ? "" :
					" (it has only its exported symbols: stripped; give "
					"PATH:0xADDRESS or probe an unstripped build)");
		ret = nsym ? -ENOENT : -ENODATA;
	} else {
		ret = vaddr_to_off(e, va + add, off);
		if (ret) {
			uint64_t at = va + add;

			seterr(err, errlen, "%s: 0x%" PRIx64 " is in no loaded segment of %s", sym,
			       at, path);
		}
	}
	elf_end(e);
	close(fd);
	return ret;
}

/*
 * The function symbols of path (.symtab and .dynsym, those with an address),
 * sorted and unique, for globs. Returns the count (0: stripped, err says so),
 * or -ENOENT (err) when path is no ELF file.
 */
static int elf_func_names(const char *path, struct probe_names *out, char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;
	int fd, r = 0, symtab = 0;
	Elf *e;

	memset(out, 0, sizeof(*out));
	e = elf_open_path(path, &fd, err, errlen);
	if (!e)
		return -ENOENT;
	while ((scn = elf_nextscn(e, scn)) && !r) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize)
			continue;
		symtab |= sh.sh_type == SHT_SYMTAB;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize && !r; i++) {
			GElf_Sym sy;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sy) || GELF_ST_TYPE(sy.st_info) != STT_FUNC ||
			    !sy.st_value)
				continue;
			n = elf_strptr(e, sh.sh_link, sy.st_name);
			if (n && n[0])
				r = probe_names_add(out, n);
		}
	}
	elf_end(e);
	close(fd);
	if (r) {
		probe_names_free(out);
		return r;
	}
	names_sort(out, 0);
	if (!out->n)
		seterr(err, errlen,
		       "%s has no symbols (stripped): a glob needs its symbol table; give an "
		       "address as PATH:0xADDRESS, or probe an unstripped build",
		       path);
	else if (!symtab)
		dlog("%s has only its exported symbols (stripped): globs match only those", path);
	return out->n;
}

/*
 * The .note.stapsdt sites of path matching provider (or any, "") and name.
 * Returns the count (up to max), -ENOENT (err with suggestions) when none.
 */
static int usdt_sites_elf(Elf *e, const char *path, const char *provider, const char *name,
			  struct usdt_site *out, int max, char *err, size_t errlen)
{
	struct cand c[4] = { { { 0 } } };
	uint64_t base_addr = 0;
	int n = 0, nnotes = 0, is64, over = 0;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	char want[400];

	is64 = gelf_getclass(e) == ELFCLASS64;
	snprintf(want, sizeof(want), "%s:%s", provider[0] ? provider : "", name);
	if (elf_getshdrstrndx(e, &shstrndx))
		shstrndx = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *sn;

		if (gelf_getshdr(scn, &sh) && (sn = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    !strcmp(sn, ".stapsdt.base"))
			base_addr = sh.sh_addr;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, no, dof;
		const char *sn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(sn = elf_strptr(e, shstrndx, sh.sh_name)) || strcmp(sn, ".note.stapsdt"))
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &no, &dof)) > 0) {
			const char *desc = (const char *)d->d_buf + dof, *pv, *nm, *ar;
			size_t as = is64 ? 8 : 4;
			uint64_t pc = 0, base = 0, sema = 0;

			if (nh.n_type != 3 || nh.n_descsz < 3 * as + 3 ||
			    strcmp((const char *)d->d_buf + no, "stapsdt"))
				continue;
			if (is64) {
				memcpy(&pc, desc, 8);
				memcpy(&base, desc + 8, 8);
				memcpy(&sema, desc + 16, 8);
			} else {
				uint32_t v[3];

				memcpy(v, desc, sizeof(v));
				pc = v[0], base = v[1], sema = v[2];
			}
			/* Three strings, each ending inside the note (a crafted one may not). */
			pv = desc + 3 * as;
			nm = pv + strnlen(pv, (size_t)(desc + nh.n_descsz - pv)) + 1;
			if (nm >= desc + nh.n_descsz)
				continue;
			ar = nm + strnlen(nm, (size_t)(desc + nh.n_descsz - nm)) + 1;
			if (ar >= desc + nh.n_descsz ||
			    strnlen(ar, (size_t)(desc + nh.n_descsz - ar)) ==
				    (size_t)(desc + nh.n_descsz - ar))
				continue;
			nnotes++;
			/* Literal names or globs (fnmatch of a literal is strcmp). */
			if (fnmatch(name, nm, 0) || (provider[0] && fnmatch(provider, pv, 0))) {
				char full[260];

				snprintf(full, sizeof(full), "%s:%s", pv, nm);
				cand_add(c, want, full, typo_threshold(want) + 2);
				continue;
			}
			if (n >= max) {
				over++;
				continue;
			}
			/* Prelinked: move by how far .stapsdt.base moved. */
			if (base_addr && base) {
				pc += base_addr - base;
				if (sema)
					sema += base_addr - base;
			}
			memset(&out[n], 0, sizeof(out[n]));
			snprintf(out[n].provider, sizeof(out[n].provider), "%s", pv);
			snprintf(out[n].name, sizeof(out[n].name), "%s", nm);
			snprintf(out[n].args, sizeof(out[n].args), "%s", ar);
			if (vaddr_to_off(e, pc, &out[n].off) ||
			    (sema && vaddr_to_off(e, sema, &out[n].sema_off)))
				continue;
			n++;
		}
	}
	if (over) {
		seterr(err, errlen,
		       "usdt %s%s%s in %s has %d sites, more than the %d trigrec probes at once: "
		       "narrow the glob (or name the provider)",
		       provider[0] ? provider : "", provider[0] ? ":" : "", name, path, n + over,
		       max);
		return -E2BIG;
	}
	if (!n) {
		char sg[512];

		cand_text(c, "", sg, sizeof(sg));
		if (!nnotes)
			seterr(err, errlen, "%s has no USDT probes (no .note.stapsdt section)",
			       path);
		else
			seterr(err, errlen, "no USDT probe %s%s%s in %s%s%s%s",
			       provider[0] ? provider : "", provider[0] ? ":" : "", name, path,
			       sg[0] ? " (did you mean " : "", sg, sg[0] ? "?)" : "");
		return -ENOENT;
	}
	return n;
}

static int usdt_sites(const char *path, const char *provider, const char *name,
		      struct usdt_site *out, int max, char *err, size_t errlen)
{
	int fd, n;
	Elf *e = elf_open_path(path, &fd, err, errlen);

	if (!e)
		return -ENOENT;
	n = usdt_sites_elf(e, path, provider, name, out, max, err, errlen);
	elf_end(e);
	close(fd);
	return n;
}

int usdt_sites_mem(const void *img, size_t len, const char *provider, const char *name,
		   struct usdt_site *out, int max, char *err, size_t errlen)
{
	Elf *e;
	int n;

	pthread_once(&elf_once, elf_init);
	e = elf_memory((char *)img, len);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		seterr(err, errlen, "(memory): not an ELF file");
		return -ENOENT;
	}
	n = usdt_sites_elf(e, "(memory)", provider, name, out, max, err, errlen);
	elf_end(e);
	return n;
}

/* ------------------------------------------------------------------ */
/* The table of created events                                           */

struct probe_ev {
	char *spec;
	enum probe_kind kind;
	int nev;
	struct tp_name *tps;
	char **fetch; /* each event's fetch-args, as written to tracefs */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct probe_ev *table;
static int ntable;
static char group[32];
static char last_err[1024];
static int atexit_done;

/*
 * The binary the last probes__resolve() did not find ("" = none): `trigrec
 * check` on a workstation takes it for a binary of the host the script is
 * for, not for a mistake.
 */
static char absent[PATH_MAX];

const char *probes__group(void)
{
	if (!group[0])
		snprintf(group, sizeof(group), GROUP_PREFIX "%d", (int)getpid());
	return group;
}

const char *probes__error(void)
{
	return last_err[0] ? last_err : "no error";
}

int probes__glob(const char *pattern, struct tp_name **out)
{
	if (pattern && probe_kind_of(pattern))
		return probes__resolve(pattern, out);
	return tracefs_glob(pattern, out);
}

const char *probes__absent(void)
{
	return absent[0] ? absent : NULL;
}

int probes__kernel_has(enum probe_kind k)
{
	const char *root = tracefs_root();
	char path[PATH_MAX];

	if (!root)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", root,
		 k == PROBE_KPROBE || k == PROBE_KRETPROBE ? "kprobe_events" : "uprobe_events");
	return access(path, W_OK) == 0;
}

/* BTF-typed kprobe arguments ($arg*, parameters by name): the README tells. */
static int kernel_btf_args(void)
{
	char *readme = tracefs_read("README", NULL);
	int has = readme && strstr(readme, "<argname>") != NULL;

	free(readme);
	return has;
}

static char *read_all(const char *path);

/* func's address in /proc/kallsyms (text symbols), 0 if unknown or hidden. */
static unsigned long long kallsyms_addr(const char *func)
{
	char line[512], name[256], type;
	unsigned long long addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    (type == 't' || type == 'T') && !strcmp(name, func))
			found = addr;
	fclose(f);
	return found;
}

/*
 * The kernel refused a kprobe on func: say why when the kprobe blacklist
 * knows (NOKPROBE_SYMBOL functions, noinstr and entry code), appended to err.
 */
static void kprobe_refusal_why(const char *func, char *err, size_t errlen)
{
	char *bl = read_all("/sys/kernel/debug/kprobes/blacklist"), entry[256];
	size_t n = err ? strlen(err) : 0;

	if (!err || n + 1 >= errlen)
		goto out;
	if (!bl) {
		snprintf(err + n, errlen - n,
			 " (functions on the kernel's kprobe blacklist, in noinstr or entry code, "
			 "cannot be probed; with debugfs mounted at /sys/kernel/debug trigrec says "
			 "whether %s is one)",
			 func);
	} else if (probe_blacklisted(bl, func, kallsyms_addr(func), entry, sizeof(entry))) {
		snprintf(err + n, errlen - n,
			 " (%s cannot be probed: the kernel's kprobe blacklist covers it, entry "
			 "'%s' in /sys/kernel/debug/kprobes/blacklist; probe a function that calls "
			 "it, or a tracepoint near it)",
			 func, entry);
	}
out:
	free(bl);
}

/* The last error the kernel logged for a dynamic event, for the message. */
static void kernel_error_log(char *out, size_t len)
{
	char *log = tracefs_read("error_log", NULL), *p, *line = NULL;

	out[0] = '\0';
	if (!log)
		return;
	for (p = log; (p = strstr(p, "error: ")); p += 7)
		line = p + 7;
	if (line)
		snprintf(out, len, "%.*s", (int)strcspn(line, "\n"), line);
	free(log);
}

static int write_events(const char *file, const char *line, char *err, size_t errlen)
{
	const char *root = tracefs_root();
	char path[PATH_MAX], klog[512];
	size_t n = strlen(line);
	int fd, e = 0;

	if (!root) {
		seterr(err, errlen, "tracefs is not available");
		return -ENODEV;
	}
	/* The last guard: one line, ours alone (the callers have said why already). */
	if (probe_text_check(file, line, 1, err, errlen))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s", root, file);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		seterr(err, errlen, "cannot open %s: %s", path, strerror(e));
		return -e;
	}
	if (write(fd, line, n) != (ssize_t)n)
		e = errno ? errno : EIO;
	close(fd);
	if (e) {
		kernel_error_log(klog, sizeof(klog));
		seterr(err, errlen, "the kernel refused '%s' in %s: %s%s%s", line, file,
		       strerror(e), klog[0] ? "; it says: " : "", klog);
		return -e;
	}
	return 0;
}

/* Remove the events pe created so far in file (a failed glob or USDT probe). */
static void unwind_events(struct probe_ev *pe, const char *file)
{
	char line[sizeof(pe->tps->sys) + sizeof(pe->tps->name) + 4];

	for (int i = 0; pe->tps && pe->fetch && i < pe->nev; i++) {
		snprintf(line, sizeof(line), "-:%s/%s", pe->tps[i].sys, pe->tps[i].name);
		write_events(file, line, NULL, 0);
		free(pe->fetch[i]);
	}
	free(pe->fetch);
	free(pe->tps);
	pe->tps = NULL;
	pe->fetch = NULL;
	pe->nev = 0;
}

static void sanitize(char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			*s = '_';
}

/* An event name of our group not used yet: base, base_2, base_3, ... */
static void unique_name(const char *base, const struct probe_ev *cur, char *out, size_t len)
{
	char b[MAX_EVENT_NAME - 4];

	snprintf(b, sizeof(b), "%s", base);
	sanitize(b);
	if (!isalpha((unsigned char)b[0]) && b[0] != '_')
		b[0] = '_';
	for (int k = 1;; k++) {
		int used = 0;

		if (k == 1)
			snprintf(out, len, "%s", b);
		else
			snprintf(out, len, "%s_%d", b, k);
		for (int i = 0; i < ntable && !used; i++)
			for (int j = 0; j < table[i].nev && !used; j++)
				used = !strcmp(table[i].tps[j].name, out);
		/* ... nor by the events of the name being created (globs, USDT sites). */
		for (int j = 0; cur && j < cur->nev && !used; j++)
			used = !strcmp(cur->tps[j].name, out);
		if (!used)
			return;
	}
}

static void remove_at_exit(void)
{
	probes__remove_all();
}

/* The binary a uprobe or USDT names: an absolute path (uprobe_events wants one); bare names from $PATH. */
static int resolve_path(const char *in, char *out, size_t len, char *err, size_t errlen)
{
	char buf[PATH_MAX];

	if (!strchr(in, '/')) {
		const char *pathenv = getenv("PATH");
		char *dup = strdup(pathenv ? pathenv : "/usr/bin:/bin"), *save = NULL, *d;
		int ok = 0;

		for (d = dup ? strtok_r(dup, ":", &save) : NULL; d && !ok;
		     d = strtok_r(NULL, ":", &save)) {
			if (snprintf(buf, sizeof(buf), "%s/%s", d, in) < (int)sizeof(buf))
				ok = !access(buf, X_OK);
		}
		free(dup);
		if (!ok) {
			seterr(err, errlen, "'%s': no such program in $PATH; give its path", in);
			snprintf(absent, sizeof(absent), "%s", in);
			return -ENOENT;
		}
		in = buf;
	}
	if (!realpath(in, out)) {
		seterr(err, errlen, "%s: %s", in, strerror(errno));
		if (errno == ENOENT || errno == ENOTDIR)
			snprintf(absent, sizeof(absent), "%s", in);
		return -ENOENT;
	}
	(void)len;
	return 0;
}

/* The whole of a file outside tracefs (/proc/kallsyms, debugfs), or NULL. */
static char *read_all(const char *path)
{
	char *buf = NULL, *nb;
	size_t cap = 0, n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - n < 2) {
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			close(fd);
			if (r < 0) {
				free(buf);
				return NULL;
			}
			buf[n] = '\0';
			return buf;
		}
		n += (size_t)r;
	}
	close(fd);
	free(buf);
	return NULL;
}

/*
 * kprobe:GLOB / kretprobe:GLOB: one event per matching kernel function.
 * With the default fields a function the kernel refuses is skipped (said at
 * -v); with a field list every match must take it, or nothing is created.
 */
static int create_kglob(const struct probe_spec *s, struct probe_ev *pe, char *err, size_t errlen)
{
	int kret = s->kind == PROBE_KRETPROBE, r, btf, nskip = 0;
	char *aff, *ksyms = NULL, *bl, fa[2048], line[3000], name[MAX_EVENT_NAME], base[320],
		   why[1024] = "";
	struct probe_names all, m;

	aff = tracefs_read("available_filter_functions", NULL);
	if (!aff)
		ksyms = read_all("/proc/kallsyms");
	bl = read_all("/sys/kernel/debug/kprobes/blacklist");
	r = probe_kfuncs(aff, ksyms, bl, &all);
	free(aff);
	free(ksyms);
	free(bl);
	if (r < 0)
		return r;
	r = probe_glob_expand(s->func, &all, PROBE_GLOB_MAX_KPROBES, "kernel functions", &m, err,
			      errlen);
	probe_names_free(&all);
	if (r < 0)
		return r;
	if (!probes__kernel_has(s->kind)) {
		seterr(err, errlen,
		       "%s:%s: this kernel has no kprobe events (%s/kprobe_events is missing: it "
		       "was built without CONFIG_KPROBE_EVENTS); uprobe: and usdt: work without it",
		       probe_kind_name(s->kind), s->func,
		       tracefs_root() ? tracefs_root() : "tracefs");
		probe_names_free(&m);
		return -EOPNOTSUPP;
	}
	btf = kernel_btf_args();
	pe->tps = calloc((size_t)m.n + 1, sizeof(*pe->tps));
	pe->fetch = calloc((size_t)m.n + 1, sizeof(*pe->fetch));
	if (!pe->tps || !pe->fetch) {
		r = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < m.n; i++) {
		int fb = 0;

		if (probe_fetchargs(s, NULL, 0, btf, fa, sizeof(fa), err, errlen)) {
			r = -EINVAL;
			goto fail;
		}
		snprintf(base, sizeof(base), "%s%s", m.v[i], kret ? "__return" : "");
		unique_name(base, pe, name, sizeof(name));
again:
		snprintf(line, sizeof(line), "%c:%s/%s %s %s", kret ? 'r' : 'p', probes__group(),
			 name, m.v[i], fa);
		r = write_events("kprobe_events", line, why, sizeof(why));
		if (r && !s->has_args && btf && !kret && !fb) {
			/* No BTF for this one: arg1..arg6 as on kernels without BTF arguments. */
			fb = 1;
			if (!probe_fetchargs(s, NULL, 0, 0, fa, sizeof(fa), err, errlen))
				goto again;
		}
		if (r && !s->has_args) {
			dlog("%s:%s: skipping %s: %s", probe_kind_name(s->kind), s->func, m.v[i],
			     why);
			nskip++;
			continue;
		}
		if (r) {
			seterr(err, errlen,
			       "%s:%s(%s): the field list applies to every function the glob "
			       "matches, and %s does not take it (%s); narrow the glob or use argN",
			       probe_kind_name(s->kind), s->func, s->args, m.v[i], why);
			goto fail;
		}
		snprintf(pe->tps[pe->nev].sys, sizeof(pe->tps[0].sys), "%s", probes__group());
		snprintf(pe->tps[pe->nev].name, sizeof(pe->tps[0].name), "%s", name);
		pe->fetch[pe->nev] = strdup(fa);
		if (!pe->fetch[pe->nev]) {
			snprintf(line, sizeof(line), "-:%s/%s", probes__group(), name);
			write_events("kprobe_events", line, NULL, 0);
			r = -ENOMEM;
			goto fail;
		}
		pe->nev++;
	}
	if (!pe->nev) {
		seterr(err, errlen, "%s:%s: the kernel refused all %d functions it matches (%s)",
		       probe_kind_name(s->kind), s->func, m.n, why);
		r = -EINVAL;
		goto fail;
	}
	if (nskip)
		ilog("%s:%s: %d of %d matching functions are not probeable and were skipped "
		     "(-vv names them)",
		     probe_kind_name(s->kind), s->func, nskip, m.n);
	probe_names_free(&m);
	return 0;
fail:
	unwind_events(pe, "kprobe_events");
	probe_names_free(&m);
	return r;
}

/* The uprobe_events / kprobe_events line(s) of one spec; fills names. */
static int create(const struct probe_spec *s, struct probe_ev *pe, char *err, size_t errlen)
{
	char fa[2048], line[PATH_MAX + 3000], name[MAX_EVENT_NAME], base[512], path[PATH_MAX],
		sugg[512];
	int kret = s->kind == PROBE_KRETPROBE || s->kind == PROBE_URETPROBE, r, nsites = 1;
	struct usdt_site *sites = NULL;
	struct probe_names fns = { 0 };
	uint64_t off = 0, *offs = NULL;

	switch (s->kind) {
	case PROBE_KPROBE:
	case PROBE_KRETPROBE: {
		int btf;

		if (probe_is_glob(s->func))
			return create_kglob(s, pe, err, errlen);
		r = kallsyms_has(s->func, sugg, sizeof(sugg));
		if (r == 0) {
			seterr(err, errlen,
			       "no kernel function '%s'%s%s%s (not in /proc/kallsyms: misspelt, "
			       "inlined, or in a module not loaded)",
			       s->func, sugg[0] ? " (did you mean " : "", sugg,
			       sugg[0] ? "?)" : "");
			return -ENOENT;
		}
		if (!probes__kernel_has(s->kind)) {
			seterr(err, errlen,
			       "%s:%s: this kernel has no kprobe events (%s/kprobe_events is "
			       "missing: it was built without CONFIG_KPROBE_EVENTS); uprobe: and "
			       "usdt: work without it",
			       probe_kind_name(s->kind), s->func,
			       tracefs_root() ? tracefs_root() : "tracefs");
			return -EOPNOTSUPP;
		}
		btf = kernel_btf_args();
		if (probe_fetchargs(s, NULL, 0, btf, fa, sizeof(fa), err, errlen))
			return -EINVAL;
		if (s->offset)
			snprintf(base, sizeof(base), "%s_%llx", s->func,
				 (unsigned long long)s->offset);
		else
			snprintf(base, sizeof(base), "%s%s", s->func, kret ? "__return" : "");
		unique_name(base, pe, name, sizeof(name));
		if (s->offset)
			snprintf(line, sizeof(line), "p:%s/%s %s+%llu %s", probes__group(), name,
				 s->func, (unsigned long long)s->offset, fa);
		else
			snprintf(line, sizeof(line), "%c:%s/%s %s %s", kret ? 'r' : 'p',
				 probes__group(), name, s->func, fa);
		r = write_events("kprobe_events", line, err, errlen);
		if (r) {
			kprobe_refusal_why(s->func, err, errlen);
			return r;
		}
		pe->tps = calloc(1, sizeof(*pe->tps));
		if (!pe->tps)
			goto rm_one;
		pe->fetch = calloc(1, sizeof(*pe->fetch));
		if (!pe->fetch || !(pe->fetch[0] = strdup(fa)))
			goto rm_one;
		snprintf(pe->tps[0].sys, sizeof(pe->tps[0].sys), "%s", probes__group());
		snprintf(pe->tps[0].name, sizeof(pe->tps[0].name), "%s", name);
		pe->nev = 1;
		return 0;
rm_one:
		snprintf(line, sizeof(line), "-:%s/%s", probes__group(), name);
		write_events("kprobe_events", line, NULL, 0);
		return -ENOMEM;
	}
	case PROBE_UPROBE:
	case PROBE_URETPROBE:
	case PROBE_USDT: break;
	default: return -EINVAL;
	}
	if (resolve_path(s->path, path, sizeof(path), err, errlen))
		return -ENOENT;
	{
		char what[1100];

		/* Not printed itself: it holds what the check refuses. */
		snprintf(what, sizeof(what), "the real path of %.1000s", s->path);
		if (probe_text_check(what, path, 0, err, errlen))
			return -EINVAL;
	}
	if (s->kind == PROBE_USDT) {
		sites = calloc(MAX_USDT_SITES, sizeof(*sites));
		if (!sites)
			return -ENOMEM;
		nsites = usdt_sites(path, s->provider, s->func, sites, MAX_USDT_SITES, err, errlen);
		if (nsites < 0) {
			free(sites);
			return nsites;
		}
	} else if (probe_is_glob(s->func)) {
		struct probe_names all;
		char what[PATH_MAX + 32];

		r = elf_func_names(path, &all, err, errlen);
		if (r <= 0)
			return r ? r : -ENODATA;
		snprintf(what, sizeof(what), "functions of %s", path);
		r = probe_glob_expand(s->func, &all, PROBE_GLOB_MAX_UPROBES, what, &fns, err,
				      errlen);
		probe_names_free(&all);
		if (r < 0)
			return r;
		offs = calloc((size_t)fns.n, sizeof(*offs));
		r = 0;
		for (int i = 0; offs && i < fns.n && !r; i++)
			r = elf_symbol_offset(path, fns.v[i], 0, &offs[i], err, errlen);
		if (!offs || r) {
			probe_names_free(&fns);
			free(offs);
			return offs ? r : -ENOMEM;
		}
		nsites = fns.n;
	} else {
		r = elf_symbol_offset(path, s->func, s->offset, &off, err, errlen);
		if (r)
			return r;
	}
	if (!probes__kernel_has(PROBE_UPROBE)) {
		seterr(err, errlen,
		       "%s: this kernel has no uprobe events (uprobe_events is missing: it was "
		       "built without CONFIG_UPROBE_EVENTS)",
		       probe_kind_name(s->kind));
		r = -EOPNOTSUPP;
		goto fail;
	}
	pe->tps = calloc((size_t)nsites, sizeof(*pe->tps));
	pe->fetch = calloc((size_t)nsites, sizeof(*pe->fetch));
	if (!pe->tps || !pe->fetch) {
		r = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < nsites; i++) {
		struct usdt_arg ua[PROBE_MAX_USDT_ARGS];
		int nua = 0;

		if (sites) {
			char why[512];

			nua = usdt_args_parse(sites[i].args, ua, PROBE_MAX_USDT_ARGS, why,
					      sizeof(why));
			if (nua < 0) {
				seterr(err, errlen, "usdt %s:%s in %s: %s", sites[i].provider,
				       sites[i].name, path, why);
				r = -EINVAL;
				goto fail;
			}
			snprintf(base, sizeof(base), "%s__%s", sites[i].provider, sites[i].name);
			off = sites[i].off;
		} else if (offs) {
			snprintf(base, sizeof(base), "%s%s", fns.v[i], kret ? "__return" : "");
			off = offs[i];
		} else if (s->offset) {
			snprintf(base, sizeof(base), "%s_%llx", s->func,
				 (unsigned long long)s->offset);
		} else {
			snprintf(base, sizeof(base), "%s%s", s->func, kret ? "__return" : "");
		}
		if (probe_fetchargs(s, ua, nua, 0, fa, sizeof(fa), err, errlen)) {
			r = -EINVAL;
			goto fail;
		}
		unique_name(base, pe, name, sizeof(name));
		if (sites && sites[i].sema_off)
			snprintf(line, sizeof(line), "p:%s/%s %s:0x%llx(0x%llx) %s",
				 probes__group(), name, path, (unsigned long long)off,
				 (unsigned long long)sites[i].sema_off, fa);
		else
			snprintf(line, sizeof(line), "%c:%s/%s %s:0x%llx %s", kret ? 'r' : 'p',
				 probes__group(), name, path, (unsigned long long)off, fa);
		r = write_events("uprobe_events", line, err, errlen);
		if (r)
			goto fail;
		snprintf(pe->tps[i].sys, sizeof(pe->tps[i].sys), "%s", probes__group());
		snprintf(pe->tps[i].name, sizeof(pe->tps[i].name), "%s", name);
		pe->fetch[i] = strdup(fa);
		pe->nev = i + 1;
	}
	free(sites);
	free(offs);
	probe_names_free(&fns);
	return 0;
fail:
	unwind_events(pe, "uprobe_events");
	free(sites);
	free(offs);
	probe_names_free(&fns);
	return r;
}

int probes__resolve(const char *given, struct tp_name **out)
{
	struct probe_spec *s;
	struct probe_ev pe = { 0 }, *nt;
	char name[PATH_MAX + 1536];
	size_t o = 0;
	int r;

	/* "f(a, b)" and "f(a,b)" are one probe: blanks go. */
	for (const char *c = given; *c && o < sizeof(name) - 1; c++)
		if (!isspace((unsigned char)*c))
			name[o++] = *c;
	name[o] = '\0';
	*out = NULL;
	pthread_mutex_lock(&lock);
	last_err[0] = '\0';
	absent[0] = '\0';
	for (int i = 0; i < ntable; i++) {
		if (strcmp(table[i].spec, name))
			continue;
		*out = malloc((size_t)table[i].nev * sizeof(**out));
		r = *out ? table[i].nev : -ENOMEM;
		if (*out)
			memcpy(*out, table[i].tps, (size_t)table[i].nev * sizeof(**out));
		pthread_mutex_unlock(&lock);
		return r;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		pthread_mutex_unlock(&lock);
		return -ENOMEM;
	}
	r = probe_spec_parse(name, s, last_err, sizeof(last_err));
	if (!r && !tracefs_root()) {
		snprintf(last_err, sizeof(last_err),
			 "%.200s needs tracefs (mount -t tracefs nodev /sys/kernel/tracing)", name);
		r = -ENODEV;
	}
	if (!r)
		r = create(s, &pe, last_err, sizeof(last_err));
	free(s);
	if (r > 0 || (!r && !pe.nev)) /* never a count without its events */
		r = -EINVAL;
	if (r) {
		pthread_mutex_unlock(&lock);
		return r;
	}
	pe.spec = strdup(name);
	pe.kind = probe_kind_of(name);
	nt = realloc(table, (size_t)(ntable + 1) * sizeof(*table));
	if (!pe.spec || !nt) {
		free(pe.spec);
		if (nt)
			table = nt;
		pthread_mutex_unlock(&lock);
		return -ENOMEM;
	}
	table = nt;
	table[ntable++] = pe;
	if (!atexit_done) {
		atexit(remove_at_exit);
		atexit_done = 1;
	}
	for (int i = 0; i < pe.nev; i++)
		dlog("probe %s is %s:%s", name, pe.tps[i].sys, pe.tps[i].name);
	*out = malloc((size_t)pe.nev * sizeof(**out));
	r = *out ? pe.nev : -ENOMEM;
	if (*out)
		memcpy(*out, pe.tps, (size_t)pe.nev * sizeof(**out));
	pthread_mutex_unlock(&lock);
	return r;
}

const char *probes__spec_of(const char *sys, const char *name, enum probe_kind *kind)
{
	const char *r = NULL;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < ntable && !r; i++)
		for (int j = 0; j < table[i].nev && !r; j++)
			if (!strcmp(table[i].tps[j].sys, sys) &&
			    !strcmp(table[i].tps[j].name, name)) {
				r = table[i].spec;
				if (kind)
					*kind = table[i].kind;
			}
	pthread_mutex_unlock(&lock);
	return r;
}

void probes__remove_all(void)
{
	char line[256], err[512];

	pthread_mutex_lock(&lock);
	for (int i = 0; i < ntable; i++) {
		const char *file =
			table[i].kind == PROBE_KPROBE || table[i].kind == PROBE_KRETPROBE ?
				"kprobe_events" :
				"uprobe_events";

		for (int j = 0; j < table[i].nev; j++) {
			snprintf(line, sizeof(line), "-:%s/%s", table[i].tps[j].sys,
				 table[i].tps[j].name);
			if (write_events(file, line, err, sizeof(err)))
				wlog("cannot remove probe %s:%s (%s); the next trigrec start removes "
				     "it",
				     table[i].tps[j].sys, table[i].tps[j].name, err);
		}
		for (int j = 0; j < table[i].nev; j++)
			free(table[i].fetch ? table[i].fetch[j] : NULL);
		free(table[i].fetch);
		free(table[i].tps);
		free(table[i].spec);
	}
	free(table);
	table = NULL;
	ntable = 0;
	pthread_mutex_unlock(&lock);
}

/* A pid that is a running trigrec (its events are not leftovers). */
static int live_trigrec(int pid)
{
	char path[64], comm[64] = "";
	FILE *f;

	if (pid == (int)getpid())
		return 1;
	if (kill(pid, 0) && errno == ESRCH)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return errno != ENOENT;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strncmp(comm, "trigrec", 7);
}

int probes__remove_stale(void)
{
	static const char *const files[] = { "kprobe_events", "uprobe_events" };
	int removed = 0;

	if (!tracefs_root())
		return 0;
	for (int fi = 0; fi < 2; fi++) {
		char *text = tracefs_read(files[fi], NULL), *save = NULL, *l;

		if (!text)
			continue;
		for (l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char grp[64], ev[MAX_EVENT_NAME + 1], line[160], err[512], *end;
			long pid;

			/* "p:GROUP/EVENT PLACE ..." or "r16:GROUP/EVENT ..." */
			if (sscanf(l, "%*[^:]:%63[^/]/%64s", grp, ev) != 2 ||
			    strncmp(grp, GROUP_PREFIX, strlen(GROUP_PREFIX)))
				continue;
			pid = strtol(grp + strlen(GROUP_PREFIX), &end, 10);
			if (*end || pid <= 0 || live_trigrec((int)pid))
				continue;
			snprintf(line, sizeof(line), "-:%s/%s", grp, ev);
			if (write_events(files[fi], line, err, sizeof(err)))
				wlog("cannot remove %s:%s left by an earlier trigrec (pid %ld): %s",
				     grp, ev, pid, err);
			else
				removed++;
		}
		free(text);
	}
	if (removed)
		ilog("removed %d probe%s left by a trigrec that did not exit cleanly", removed,
		     removed == 1 ? "" : "s");
	return removed;
}

/* ------------------------------------------------------------------ */
/* Recipes: how probe_hook rebuilds a record from registers               */

#if defined(__x86_64__)
static const struct {
	const char *name;
	uint16_t off;
} pt_regs_off[] = {
	{ "r15", 0 },	    { "r14", 8 },  { "r13", 16 }, { "r12", 24 },    { "bp", 32 },
	{ "bx", 40 },	    { "r11", 48 }, { "r10", 56 }, { "r9", 64 },	    { "r8", 72 },
	{ "ax", 80 },	    { "cx", 88 },  { "dx", 96 },  { "si", 104 },    { "di", 112 },
	{ "orig_ax", 120 }, { "ip", 128 }, { "cs", 136 }, { "flags", 144 }, { "sp", 152 },
	{ "ss", 160 },
};
#define RET_REG "ax"
#define IP_REG "ip"
#elif defined(__aarch64__)
static const struct {
	const char *name;
	uint16_t off;
} pt_regs_off[] = {
	{ "x0", 0 },	{ "x1", 8 },	{ "x2", 16 },	{ "x3", 24 },	{ "x4", 32 },
	{ "x5", 40 },	{ "x6", 48 },	{ "x7", 56 },	{ "x8", 64 },	{ "x9", 72 },
	{ "x10", 80 },	{ "x11", 88 },	{ "x12", 96 },	{ "x13", 104 }, { "x14", 112 },
	{ "x15", 120 }, { "x16", 128 }, { "x17", 136 }, { "x18", 144 }, { "x19", 152 },
	{ "x20", 160 }, { "x21", 168 }, { "x22", 176 }, { "x23", 184 }, { "x24", 192 },
	{ "x25", 200 }, { "x26", 208 }, { "x27", 216 }, { "x28", 224 }, { "x29", 232 },
	{ "x30", 240 }, { "sp", 248 },	{ "pc", 256 },
};
#define RET_REG "x0"
#define IP_REG "pc"
#else
static const struct {
	const char *name;
	uint16_t off;
} pt_regs_off[] = { { "", 0 } };
#define RET_REG ""
#define IP_REG ""
#endif

static int reg_off(const char *name)
{
	for (size_t i = 0; i < sizeof(pt_regs_off) / sizeof(pt_regs_off[0]); i++)
		if (pt_regs_off[i].name[0] && !strcmp(pt_regs_off[i].name, name))
			return pt_regs_off[i].off;
	return -1;
}

/* A register as a fetch-arg names it ("%di", "$retval", "$arg2"): its pt_regs offset, or -1. */
static int fetch_reg(const char *in)
{
	if (in[0] == '%')
		return reg_off(in + 1);
	if (!strcmp(in, "$retval"))
		return reg_off(RET_REG);
	if (!strncmp(in, "$arg", 4) && isdigit((unsigned char)in[4])) {
		int n = atoi(in + 4);

		if (n < 1 || n > NR_ABI_REGS || !abi_regs[0])
			return -1;
		return reg_off(abi_regs[n - 1] + 1);
	}
	return -1;
}

/* One kernel fetch-arg ("%di", "+8(%si)", "$retval") into a fetch; 0 or -1. */
static int fetch_recipe(const char *in, int is_str, enum probe_kind k,
			struct trigrec_probe_fetch *f)
{
	int o;

	if (!strcmp(in, "$comm")) {
		f->op = TRIGREC_PF_COMM;
		return 0;
	}
	if (in[0] == '\\') {
		char *end;
		long long v = strtoll(in + 1, &end, 0);

		if (*end)
			return -1;
		f->op = TRIGREC_PF_IMM;
		f->arg = v;
		return 0;
	}
	if (in[0] == '+' || in[0] == '-') {
		/* One level: +OFFS(REGISTER) */
		char inner[32], *end;
		long long v = strtoll(in, &end, 0);
		size_t il;

		if (*end != '(' || strchr(end + 1, '(') || in[strlen(in) - 1] != ')')
			return -1;
		il = strlen(end + 1) - 1;
		if (il >= sizeof(inner))
			return -1;
		memcpy(inner, end + 1, il);
		inner[il] = '\0';
		o = fetch_reg(inner);
		f->op = is_str ? TRIGREC_PF_STR : TRIGREC_PF_DEREF;
		f->arg = v;
		f->user = k == PROBE_UPROBE || k == PROBE_URETPROBE || k == PROBE_USDT;
	} else {
		/* A string field from a register: the text it points to (BTF's char *). */
		o = fetch_reg(in);
		f->op = is_str ? TRIGREC_PF_STR : TRIGREC_PF_REG;
		f->user = is_str && (k == PROBE_UPROBE || k == PROBE_URETPROBE || k == PROBE_USDT);
	}
	if (o < 0)
		return -1;
	f->reg = (uint16_t)o;
	return 0;
}

/*
 * "$arg*" (a BTF kernel's default kprobe fields): the parameters in order,
 * each a field of the format after __probe_ip, each in the calling
 * convention's next register.
 */
static char *expand_btf_args(const char *fa, const struct tp_format *fmt)
{
	size_t len = strlen(fa) + 64 * (size_t)fmt->nr_fields + 1, o = 0;
	char *out = malloc(len);
	int n = 0;

	if (!out)
		return NULL;
	out[0] = '\0';
	for (int i = 0; i < fmt->nr_fields; i++) {
		const struct tp_field *fl = &fmt->fields[i];

		if (fl->is_common || !strncmp(fl->name, "__probe_", 8))
			continue;
		n++;
		o += (size_t)snprintf(out + o, len - o, "%s%s=$arg%d%s", o ? " " : "", fl->name, n,
				      fl->kind == TP_FIELD_DATALOC ? ":string" : "");
	}
	/* Anything given after $arg* stays as it was. */
	if (strncmp(fa, "$arg*", 5) == 0 && fa[5] == ' ')
		snprintf(out + o, len - o, "%s%s", o ? " " : "", fa + 6);
	return out;
}

int probes__recipe(const char *sys, const char *name, const struct tp_format *fmt,
		   struct trigrec_probe_cfg *pc, char *why, size_t whylen)
{
	const char *fa = NULL;
	enum probe_kind kind = PROBE_NONE;
	char *dup;
	int r;

	memset(pc, 0, sizeof(*pc));
	pthread_mutex_lock(&lock);
	for (int i = 0; i < ntable && !fa; i++)
		for (int j = 0; j < table[i].nev && !fa; j++)
			if (!strcmp(table[i].tps[j].sys, sys) &&
			    !strcmp(table[i].tps[j].name, name)) {
				fa = table[i].fetch[j];
				kind = table[i].kind;
			}
	dup = fa ? strdup(fa) : NULL;
	pthread_mutex_unlock(&lock);
	if (!fa)
		return 0;
	if (!dup)
		return -ENOMEM;
	r = probe_recipe(dup, kind, fmt, pc, why, whylen);
	free(dup);
	return r;
}

int probe_recipe(const char *fetchargs, enum probe_kind kind, const struct tp_format *fmt,
		 struct trigrec_probe_cfg *pc, char *why, size_t whylen)
{
	char *dup, *save = NULL, *item;
	uint32_t dyn;
	int ret = 1, nstr = 0;

	memset(pc, 0, sizeof(*pc));
	dup = !strncmp(fetchargs, "$arg*", 5) ? expand_btf_args(fetchargs, fmt) : strdup(fetchargs);
	if (!dup)
		return -ENOMEM;
	if (reg_off(IP_REG) < 0) {
		seterr(why, whylen, "this architecture's registers are not known to trigrec");
		free(dup);
		return -EOPNOTSUPP;
	}
	pc->ip_reg = (uint16_t)reg_off(IP_REG);
	pc->ip_off = kind == PROBE_KRETPROBE || kind == PROBE_URETPROBE ? 16 : 8;
	dyn = (fmt->fixed_size + 7) & ~7u;
	for (item = strtok_r(dup, " ", &save); item && ret > 0; item = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(item, '='), *colon;
		const struct tp_field *fl;
		struct trigrec_probe_fetch *f;
		int is_str;

		if (!eq) {
			seterr(why, whylen,
			       "its field '%s' has no name=: name it (kprobe:FUNC(n=arg1)) for a "
			       "trigger to test it",
			       item);
			ret = -EOPNOTSUPP;
			break;
		}
		*eq = '\0';
		colon = strrchr(eq + 1, ':');
		if (colon && strchr(colon, ')'))
			colon = NULL;
		is_str = colon && (!strcmp(colon + 1, "string") || !strcmp(colon + 1, "ustring"));
		if (colon)
			*colon = '\0';
		fl = tp_format__field(fmt, item);
		if (!fl || pc->nfetch >= TRIGREC_MAX_PROBE_FETCH) {
			seterr(why, whylen, "%s",
			       fl ? "more than "
				    "8"
				    " fields (TRIGREC_MAX_PROBE_FETCH)" :
				    "a field is missing from its format");
			ret = -EOPNOTSUPP;
			break;
		}
		f = &pc->f[pc->nfetch];
		if (fetch_recipe(eq + 1, is_str, kind, f)) {
			seterr(why, whylen,
			       "its field %s (%s) cannot be rebuilt for a trigger: use registers, "
			       "argN, retval, comm or one +OFFSET(...) level",
			       item, eq + 1);
			ret = -EOPNOTSUPP;
			break;
		}
		/* ustring: a kprobe reading a string from user memory */
		if (colon && !strcmp(colon + 1, "ustring"))
			f->user = 1;
		if (f->op == TRIGREC_PF_STR || f->op == TRIGREC_PF_COMM)
			nstr++;
		f->rec_off = (uint16_t)fl->offset;
		f->size = (uint8_t)(fl->size > 8 ? 8 : fl->size);
		pc->nfetch++;
	}
	free(dup);
	if (ret < 0)
		return ret;
	/* Strings after the fixed part; probe_hook needs room for each. */
	if (dyn + (uint32_t)nstr * TRIGREC_PROBE_STR_LEN > 512) {
		seterr(why, whylen, "too many string fields for a trigger");
		return -E2BIG;
	}
	pc->dyn_off = (uint16_t)dyn;
	return 1;
}
