// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Recipes: how probe_hook rebuilds a probe's record from the registers it
 * sees (a field's fetch-arg into a register offset, a dereference or a
 * string), so triggers on probes need no record from perf. See probes.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trigrec_abi.h"
#include "capture/probes.h"
#include "capture/probes_int.h"
#include "capture/tracefs.h"
#include "util/log.h"
#include "util/util.h"

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
		const char *reg = probe_abi_reg(atoi(in + 4));

		return reg ? reg_off(reg + 1) : -1;
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
