// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Probe names as text, with no I/O: a probe name into its parts
 * (probe_spec_parse), USDT argument specs and field lists into tracefs
 * fetch-args, name lists and globs with their did-you-mean. See probes.h;
 * probes.c creates the events, probe_syms.c reads the symbols.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trigrec_abi.h"
#include "capture/probes.h"
#include "capture/probes_int.h"
#include "util/log.h"
#include "util/util.h"

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

const char *probe_abi_reg(int n)
{
	return n >= 1 && n <= NR_ABI_REGS ? abi_regs[n - 1] : NULL;
}

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
	if (str_append(out, len, o, "%s%s=%s%s%s", *o ? " " : "", name, kf, type[0] ? ":" : "",
		       type)) {
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
				return str_append(out, len, &o, "$arg*") ? -E2BIG : 0;
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

/* Keep the 3 closest names (distance under thr). */
void probe_cand_add(struct cand *c, const char *want, const char *name, int thr)
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

void probe_cand_text(const struct cand *c, const char *pre, char *out, size_t len)
{
	size_t o = 0;

	out[0] = '\0';
	for (int i = 0; i < 3 && c[i].name[0]; i++)
		o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%s%s%s", i ? " or " : "",
				      pre, c[i].name);
}

int probe_typo_threshold(const char *s)
{
	int t = 1 + (int)strlen(s) / 4;

	return t > 4 ? 4 : t;
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
void probe_names_sort(struct probe_names *l, int drop_dups)
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
	probe_names_sort(&bl, 0);
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
	probe_names_sort(&all, 1);
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
	thr = probe_typo_threshold(pre);
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
		thr = probe_typo_threshold(lit);
		for (int i = 0; i < cands->n; i++)
			probe_cand_add(c, lit, cands->v[i], thr);
	}
	probe_cand_text(c, "", out, len);
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
