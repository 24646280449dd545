// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests for the trigger language (src/lang/trigger_parse.c,
 * trigger_compile.c, trigger_lang.c).
 *
 * - Synthetic formats (trig_set_formats) make the error, limit and
 *   evaluation tests independent of the running kernel.
 * - A reference evaluator runs compiled filters on synthetic records and is
 *   checked against the same boolean expression evaluated directly in C,
 *   which guards the &&/||/! jump compilation.
 * - The documented examples are compiled against the live tracefs and their
 *   clauses checked against the real formats (skipped when tracefs or a
 *   tracepoint is unavailable).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "capture/tracefs.h"
#include "lang/trigger_lang.h"
#include "util/util.h"

/* ------------------------------------------------------------------ */
/* Synthetic tracepoints                                                */

#include "trig_formats.h"

static struct tp_format *fake[3];

static int fake_on(void)
{
	static int loaded;

	if (!loaded) {
		fake[0] = tp_format__parse("test", "ev", fmt_ev, sizeof(fmt_ev) - 1);
		fake[1] = tp_format__parse("test", "ev2", fmt_ev2, sizeof(fmt_ev2) - 1);
		fake[2] = tp_format__parse("other", "thing", fmt_thing, sizeof(fmt_thing) - 1);
		if (!fake[0] || !fake[1] || !fake[2])
			return -1;
		loaded = 1;
	}
	trig_set_formats((const struct tp_format *const *)fake, 3);
	return 0;
}

static void fake_off(void)
{
	trig_set_formats(NULL, 0);
}

#define FAKE()                                             \
	do {                                               \
		if (fake_on()) {                           \
			CHECK(!"synthetic formats parse"); \
			return 1;                          \
		}                                          \
	} while (0)

/* Compile; on failure print the formatted error (tests then fail on the checks). */
/*
 * Compile text that must compile: an error fails the test, so a caller's
 * `if (!compile(...)) CHECK(...)` cannot pass by skipping its checks.
 */
static int compile(const char *text, struct trig_def *d)
{
	struct tl_error e;
	char buf[2048];
	int r = trig_from_text(text, d, &e);

	if (r) {
		tl_error_format(&e, "test", text, buf, sizeof(buf));
		fprintf(stderr, "    unexpected error:\n%s\n", buf);
		check_failed_in_test = 1;
	}
	return r;
}

/* Expect an error at line:col whose message contains `sub`. */
static int expect_err_at(const char *text, int first_line, int first_col, int line, int col,
			 const char *sub, int lnum)
{
	struct tl_error e;
	struct trig_def d;
	struct trig_ast *a;
	int ok = 1;

	memset(&e, 0, sizeof(e));
	a = trig_parse(text, first_line, first_col, &e);
	const char *at = lnum < 0 ? "row" : "line";

	if (lnum < 0)
		lnum = -lnum;
	if (a) {
		int r = trig_compile(a, text, &d, &e);

		trig_ast_free(a);
		if (!r) {
			fprintf(stderr,
				"    %s %d: '%s' compiled, expected an error containing "
				"\"%s\"\n",
				at, lnum, text, sub);
			return 0;
		}
	}
	if (e.pos.line != line || e.pos.col != col) {
		fprintf(stderr, "    %s %d: '%s': error at %d:%d, expected %d:%d (%s)\n", at, lnum,
			text, e.pos.line, e.pos.col, line, col, e.msg);
		ok = 0;
	}
	if (!strstr(e.msg, sub)) {
		fprintf(stderr, "    %s %d: '%s': message \"%s\" lacks \"%s\"\n", at, lnum, text,
			e.msg, sub);
		ok = 0;
	}
	return ok;
}

/*
 * One run of the compiler as a table row: a trigger text, then either the
 * error it must give (at 1:col, its message containing sub) or, col 0, that
 * it compiles and one value of the definition it gives (got: which; num or
 * str: what). RG_NONE: only that it compiles.
 */
enum run_got {
	RG_NONE,
	RG_NAME,	 /* d.name */
	RG_EVENT,	 /* d.event[0] */
	RG_STR0,	 /* the event side's first string constant */
	RG_POST,	 /* cfg.post_ns */
	RG_THRESHOLD,	 /* cfg.threshold */
	RG_WINDOW,	 /* cfg.window_ns */
	RG_LIMIT,	 /* cfg.limit */
	RG_LIMIT_PERIOD, /* cfg.limit_period_ns */
};

struct run {
	const char *text;
	long col; /* long: the rows' order (text, col, words) and no padding */
	const char *sub;
	unsigned long long num;
	const char *str;
	enum run_got got;
};

/* Every row of a table, each with its assertions; a failing row is named by its number. */
static void runs(const struct run *r, size_t n, const char *table)
{
	for (size_t i = 0; i < n; i++, r++) {
		int was = check_failed_in_test;
		struct trig_def d;

		check_failed_in_test = 0;
		if (r->col) {
			CHECK(expect_err_at(r->text, 1, 1, 1, (int)r->col, r->sub, -(int)(i + 1)));
		} else {
			CHECK_EQ(compile(r->text, &d), 0);
			if (!check_failed_in_test) {
				switch (r->got) {
				case RG_NONE: break;
				case RG_NAME: CHECK_STR(d.name, r->str); break;
				case RG_EVENT: CHECK_STR(d.event[0], r->str); break;
				case RG_STR0:
					CHECK_STR(d.cfg.side[TRIGREC_ROLE_EVENT].filter.str[0],
						  r->str);
					break;
				case RG_POST: CHECK_EQ(d.cfg.post_ns, r->num); break;
				case RG_THRESHOLD: CHECK_EQ(d.cfg.threshold, r->num); break;
				case RG_WINDOW: CHECK_EQ(d.cfg.window_ns, r->num); break;
				case RG_LIMIT: CHECK_EQ(d.cfg.limit, r->num); break;
				case RG_LIMIT_PERIOD:
					CHECK_EQ(d.cfg.limit_period_ns, r->num);
					break;
				}
			}
		}
		if (check_failed_in_test)
			fprintf(stderr, "    row %zu of %s: '%s'\n", i + 1, table, r->text);
		check_failed_in_test |= was;
	}
}

#define RUNS(rows) runs(rows, NELEM(rows), #rows)

#define ERR(text, col, sub) CHECK(expect_err_at(text, 1, 1, 1, col, sub, __LINE__))
#define ERR_AT(text, fl, fc, line, col, sub) \
	CHECK(expect_err_at(text, fl, fc, line, col, sub, __LINE__))

#define CLAUSE(cl, OP, SRC, SIZE, SIGNED, OFF, IMM, JT, JF)     \
	do {                                                    \
		const struct trigrec_clause *_c = (cl);         \
		CHECK_EQ(_c->op, OP);                           \
		CHECK_EQ(_c->src, SRC);                         \
		CHECK_EQ(_c->size, SIZE);                       \
		CHECK_EQ(_c->is_signed, SIGNED);                \
		CHECK_EQ(_c->offset, OFF);                      \
		CHECK_EQ((long long)_c->imm, (long long)(IMM)); \
		CHECK_EQ(_c->jt, JT);                           \
		CHECK_EQ(_c->jf, JF);                           \
	} while (0)

#define KEYPART(kp, SRC, SIZE, OFF)                       \
	do {                                              \
		const struct trigrec_key_part *_k = (kp); \
		CHECK_EQ(_k->src, SRC);                   \
		CHECK_EQ(_k->size, SIZE);                 \
		CHECK_EQ(_k->offset, OFF);                \
	} while (0)

#define A TRIGREC_ACCEPT
#define R TRIGREC_REJECT

/* ------------------------------------------------------------------ */
/* Reference evaluator: what the BPF side must do with a trigrec_filter  */

struct pseudo {
	const char *comm;
	uint32_t pid, tid, cpu;
	uint64_t cgroup;
};

/* The string a clause reads, copied (at most TRIGREC_FIELD_STR_LEN bytes). */
static void ref_string(const struct trigrec_clause *c, const uint8_t *rec, size_t reclen,
		       const struct pseudo *ps, char *out)
{
	size_t off = 0, len = 0;

	out[0] = '\0';
	if (c->src == TRIGREC_SRC_COMM) {
		snprintf(out, TRIGREC_COMM_LEN, "%s", ps->comm);
		return;
	}
	if (c->src == TRIGREC_SRC_CHARS) {
		off = c->offset;
		len = c->size;
	} else if (c->src == TRIGREC_SRC_DATALOC) {
		uint32_t desc;

		if ((size_t)c->offset + 4 > reclen)
			return;
		memcpy(&desc, rec + c->offset, 4);
		off = desc & 0xffff;
		len = desc >> 16;
	}
	if (len > TRIGREC_FIELD_STR_LEN - 1)
		len = TRIGREC_FIELD_STR_LEN - 1;
	if (off + len > reclen)
		return;
	memcpy(out, rec + off, len);
	out[len] = '\0';
}

/* 1/0, or -1 when the filter is malformed (backward jump, bad index). */
static int ref_eval(const struct trigrec_filter *f, const uint8_t *rec, size_t reclen,
		    const struct pseudo *ps)
{
	unsigned pc = 0;

	if (f->n == 0)
		return 1;
	if (f->n > TRIGREC_MAX_CLAUSES)
		return -1;
	for (unsigned steps = 0; steps < TRIGREC_MAX_CLAUSES; steps++) {
		const struct trigrec_clause *c = &f->c[pc];
		uint64_t v = 0;
		int res = 0;
		unsigned next;

		if (c->op >= TRIGREC_OP_STR_EQ && c->op <= TRIGREC_OP_GLOB_MIDDLE) {
			char s[TRIGREC_FIELD_STR_LEN];
			const char *k;
			size_t sl, kl;

			if (c->imm >= TRIGREC_MAX_STRS)
				return -1;
			k = f->str[c->imm];
			ref_string(c, rec, reclen, ps, s);
			sl = strlen(s);
			kl = strlen(k);
			switch (c->op) {
			case TRIGREC_OP_STR_EQ: res = !strcmp(s, k); break;
			case TRIGREC_OP_STR_NE: res = !!strcmp(s, k); break;
			case TRIGREC_OP_GLOB_FULL: res = !strcmp(s, k); break;
			case TRIGREC_OP_GLOB_PREFIX: res = !strncmp(s, k, kl); break;
			case TRIGREC_OP_GLOB_SUFFIX:
				res = sl >= kl && !strcmp(s + sl - kl, k);
				break;
			case TRIGREC_OP_GLOB_MIDDLE: res = strstr(s, k) != NULL; break;
			}
		} else {
			switch (c->src) {
			case TRIGREC_SRC_FIELD:
				if (c->size != 1 && c->size != 2 && c->size != 4 && c->size != 8)
					return -1;
				if ((size_t)c->offset + c->size > reclen)
					return -1;
				memcpy(&v, rec + c->offset, c->size); /* little-endian */
				if (c->is_signed && c->size < 8 && (v >> (c->size * 8 - 1)) & 1)
					v |= ~0ULL << (c->size * 8);
				break;
			case TRIGREC_SRC_PID: v = ps->pid; break;
			case TRIGREC_SRC_TID: v = ps->tid; break;
			case TRIGREC_SRC_CPU: v = ps->cpu; break;
			case TRIGREC_SRC_CGROUP: v = ps->cgroup; break;
			default: return -1;
			}
			switch (c->op) {
			case TRIGREC_OP_EQ: res = v == c->imm; break;
			case TRIGREC_OP_NE: res = v != c->imm; break;
			case TRIGREC_OP_LT:
				res = c->is_signed ? (int64_t)v < (int64_t)c->imm : v < c->imm;
				break;
			case TRIGREC_OP_LE:
				res = c->is_signed ? (int64_t)v <= (int64_t)c->imm : v <= c->imm;
				break;
			case TRIGREC_OP_GT:
				res = c->is_signed ? (int64_t)v > (int64_t)c->imm : v > c->imm;
				break;
			case TRIGREC_OP_GE:
				res = c->is_signed ? (int64_t)v >= (int64_t)c->imm : v >= c->imm;
				break;
			case TRIGREC_OP_BITAND: res = (v & c->imm) != 0; break;
			case TRIGREC_OP_TRUE: res = 1; break;
			default: return -1;
			}
		}
		next = res ? c->jt : c->jf;
		if (next == TRIGREC_ACCEPT)
			return 1;
		if (next == TRIGREC_REJECT)
			return 0;
		if (next <= pc || next >= f->n)
			return -1; /* forward jumps only */
		pc = next;
	}
	return -1;
}

/* Inputs for test:ev. */
struct in {
	int a;
	unsigned char b;
	long c;
	unsigned int d;
	const char *s, *dl;
	struct pseudo ps;
};

static size_t build_rec(const struct in *in, uint8_t *rec, size_t cap)
{
	uint32_t desc, dlen = (uint32_t)strlen(in->dl) + 1;
	size_t sl = strlen(in->s);
	int64_t c = in->c;

	memset(rec, 0xaa, cap);
	memcpy(rec + 8, &in->a, 4);
	memcpy(rec + 12, &in->b, 1);
	memcpy(rec + 16, &c, 8);
	memcpy(rec + 24, &in->d, 4);
	memset(rec + 28, 0, 16);
	memcpy(rec + 28, in->s, sl > 15 ? 15 : sl);
	desc = dlen << 16 | 112;
	memcpy(rec + 44, &desc, 4);
	memcpy(rec + 112, in->dl, dlen);
	return 112 + dlen;
}

/*
 * Integer expressions written so they mean the same in C and in the trigger
 * language (& never mixed with ==; `!` always on a parenthesized operand).
 * Precedence cases without parentheses are deliberate.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wparentheses"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wbool-operation"
#define INT_EXPRS(X)                                                                             \
	X(1, a == 1)                                                                             \
	X(2, a != 1)                                                                             \
	X(3, a < 0)                                                                              \
	X(4, a <= -1)                                                                            \
	X(5, a > 2)                                                                              \
	X(6, a >= 3)                                                                             \
	X(7, b & 1)                                                                              \
	X(8, c & 0x2)                                                                            \
	X(9, a == 1 && b == 2)                                                                   \
	X(10, a == 1 || b == 2)                                                                  \
	X(11, !(a == 1))                                                                         \
	X(12, !(!(a == 1)))                                                                      \
	X(13, a == 1 && b == 2 || c == 3)                                                        \
	X(14, a == 1 || b == 2 && c == 3)                                                        \
	X(15, a == 1 && (b == 2 || c == 3))                                                      \
	X(16, (a == 1 || b == 2) && (c == 3 || d == 4))                                          \
	X(17, (a == 1 && b == 2) || (c == 3 && d == 4))                                          \
	X(18, !(a == 1 && b == 2) || c < 0)                                                      \
	X(19, !(a == 1 || b == 2) && !(c == 3 || d == 4))                                        \
	X(20, !(!(a > 0) || !(b >= 2)))                                                          \
	X(21, a<0 && c <= -2 || d> 3 && b & 1)                                                   \
	X(22, !(a == 1 && !(b == 2 || !(c == 3 && d == 4))))                                     \
	X(23, a == 0xffffffff || a == -100)                                                      \
	X(24, d == 0xffffffff && a & 0x80000000)                                                 \
	X(25, c == 0x8000000000000000 || c > 2)                                                  \
	X(26, (a == 1 || a == 2 || a == 3) && !(b == 0) && (d < 5 || c >= 3))                    \
	X(27, a == 1 && b == 1 && c == 3 && d == 3 || a == 2 && (b == 2 || b == 3) || !(d <= 4)) \
	X(28, !(!(!(a == 1))) && (b != 0 || !(c != 0)))

#define X_DEF(n, e)                                                       \
	static int ie_##n(int a, unsigned char b, long c, unsigned int d) \
	{                                                                 \
		(void)a;                                                  \
		(void)b;                                                  \
		(void)c;                                                  \
		(void)d;                                                  \
		return !!(e);                                             \
	}
INT_EXPRS(X_DEF)
#pragma GCC diagnostic pop

static const struct {
	const char *text;
	int (*fn)(int a, unsigned char b, long c, unsigned int d);
} int_cases[] = {
#define X_REF(n, e) { #e, ie_##n },
	INT_EXPRS(X_REF)
};

/* String (and mixed) cases: the trigger text and the same condition in C. */
static int has_suffix(const char *s, const char *k)
{
	size_t sl = strlen(s), kl = strlen(k);

	return sl >= kl && !strcmp(s + sl - kl, k);
}

static int sc1(const struct in *i)
{
	return !strcmp(i->s, "abc");
}
static int sc2(const struct in *i)
{
	return !!strcmp(i->s, "abc") && i->a > 0;
}
static int sc3(const struct in *i)
{
	return !strncmp(i->dl, "kworker", 7) || !strcmp(i->ps.comm, "bash");
}
static int sc4(const struct in *i)
{
	return has_suffix(i->s, "bc") && !(strstr(i->dl, "/0") != NULL);
}
static int sc5(const struct in *i)
{
	return !strcmp(i->dl, "bash") || (!strcmp(i->s, "") && i->ps.pid == 42);
}
static int sc6(const struct in *i)
{
	return !(!strcmp(i->ps.comm, "sh") || i->ps.cpu == 1) && strstr(i->s, "b") != NULL;
}
static int sc7(const struct in *i)
{
	return i->ps.tid == 7 || i->ps.cgroup == 0x100000000ULL || !strcmp(i->s, "abc");
}
static int sc8(const struct in *i)
{
	return 1;
}
static int sc9(const struct in *i)
{
	return !strcmp(i->s, "abc") || !strcmp(i->s, "abcd") || !strcmp(i->dl, "abc") ||
	       !strncmp(i->ps.comm, "abc", 3);
}

static const struct {
	const char *text;
	int (*fn)(const struct in *);
} str_cases[] = {
	{ "s == \"abc\"", sc1 },
	{ "s != 'abc' && a > 0", sc2 },
	{ "dl ~ \"kworker*\" || comm == bash", sc3 },
	{ "s ~ \"*bc\" && !(dl ~ '*/0*')", sc4 },
	{ "dl == bash || (s == \"\" && PID == 42)", sc5 },
	{ "!(comm == \"sh\" || cpu == 1) && s ~ \"*b*\"", sc6 },
	{ "tid == 7 || cgroup == 0x100000000 || s ~ abc", sc7 },
	{ "s ~ \"*\"", sc8 },
	{ "s == abc || s == \"abcd\" || dl == 'abc' || comm ~ abc*", sc9 },
};

static const int a_vals[] = { INT_MIN, -100, -1, 0, 1, 2, 3, 4, INT_MAX };
static const unsigned char b_vals[] = { 0, 1, 2, 3, 255 };
static const long c_vals[] = { LONG_MIN, -3, -2, 0, 2, 3, LONG_MAX };
static const unsigned int d_vals[] = { 0, 3, 4, 5, 0xffffffffu };
static const char *const s_vals[] = { "abc", "abcd", "xabc", "", "zzz", "xbcx" };
static const char *const dl_vals[] = { "kworker/0:1", "bash", "", "abc", "kworke" };
static const char *const comm_vals[] = { "bash", "sh", "abcdef", "kworker/1:0" };
#define NELEM(x) (sizeof(x) / sizeof((x)[0]))

TEST(eval_matches_direct_integer)
{
	uint8_t rec[256];
	struct trig_def d;
	long mismatches = 0, evals = 0;

	FAKE();
	for (size_t k = 0; k < NELEM(int_cases); k++) {
		char text[512];

		snprintf(text, sizeof(text), "test:ev if %s", int_cases[k].text);
		if (compile(text, &d)) {
			CHECK(!"compiles");
			continue;
		}
		for (size_t ia = 0; ia < NELEM(a_vals); ia++)
			for (size_t ib = 0; ib < NELEM(b_vals); ib++)
				for (size_t ic = 0; ic < NELEM(c_vals); ic++)
					for (size_t id = 0; id < NELEM(d_vals); id++) {
						struct in in = { a_vals[ia],
								 b_vals[ib],
								 c_vals[ic],
								 d_vals[id],
								 "abc",
								 "x",
								 { "bash", 1, 1, 0, 1 } };
						size_t len = build_rec(&in, rec, sizeof(rec));
						int want = int_cases[k].fn(in.a, in.b, in.c, in.d);
						int got = ref_eval(
							&d.cfg.side[TRIGREC_ROLE_EVENT].filter, rec,
							len, &in.ps);

						evals++;
						if (got != want && mismatches++ < 10)
							fprintf(stderr,
								"    %s: a=%d b=%u c=%ld d=%u: compiled %d, direct %d\n",
								int_cases[k].text, in.a, in.b, in.c,
								in.d, got, want);
					}
	}
	CHECK_EQ(mismatches, 0);
	CHECK(evals > 10000);
	fake_off();
	return 0;
}

TEST(eval_matches_direct_strings)
{
	uint8_t rec[256];
	struct trig_def d;
	long mismatches = 0;

	FAKE();
	for (size_t k = 0; k < NELEM(str_cases); k++) {
		char text[512];

		snprintf(text, sizeof(text), "test:ev if %s", str_cases[k].text);
		if (compile(text, &d)) {
			CHECK(!"compiles");
			continue;
		}
		for (size_t is = 0; is < NELEM(s_vals); is++)
			for (size_t idl = 0; idl < NELEM(dl_vals); idl++)
				for (size_t ic = 0; ic < NELEM(comm_vals); ic++)
					for (int ia = -1; ia <= 1; ia++)
						for (uint32_t pid = 41; pid <= 42; pid++)
							for (uint32_t cpu = 0; cpu <= 1; cpu++)
								for (uint64_t cg = 0; cg <= 1;
								     cg++) {
									struct in in = {
										ia,
										0,
										0,
										0,
										s_vals[is],
										dl_vals[idl],
										{ comm_vals[ic],
										  pid,
										  pid == 42 ? 7 : 8,
										  cpu,
										  cg ? 0x100000000ULL :
										       5 }
									};
									size_t len = build_rec(
										&in, rec,
										sizeof(rec));
									int want =
										!!str_cases[k].fn(
											&in);
									int got = ref_eval(
										&d.cfg.side[TRIGREC_ROLE_EVENT]
											 .filter,
										rec, len, &in.ps);

									if (got != want &&
									    mismatches++ < 10)
										fprintf(stderr,
											"    %s: s=\"%s\" dl=\"%s\" comm=%s a=%d pid=%u cpu=%u: "
											"compiled %d, direct %d\n",
											str_cases[k]
												.text,
											in.s, in.dl,
											in.ps.comm,
											in.a, pid,
											cpu, got,
											want);
								}
	}
	CHECK_EQ(mismatches, 0);
	fake_off();
	return 0;
}

/*
 * Random expression trees (deterministic): printed with as few parentheses as
 * the grammar allows, compiled, and evaluated both ways on random inputs.
 */
struct rnode {
	int kind;      /* 0 leaf, 1 &&, 2 ||, 3 ! */
	int field, op; /* leaf */
	long long k;
	struct rnode *l, *r;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (unsigned)(rng_state % n);
}

static const char *const rfields[] = { "a", "b", "c", "d" };
static const char *const rops[] = { "==", "!=", "<", "<=", ">", ">=", "&" };
static const long long rconst[4][5] = {
	{ -2, 0, 1, 3, 0x40 },
	{ 0, 1, 2, 3, 200 },
	{ -3, -1, 0, 2, 1LL << 40 },
	{ 0, 1, 4, 5, 7 },
};

static struct rnode *rgen(struct rnode *pool, int *used, int depth, int *leaves)
{
	struct rnode *n = &pool[(*used)++];
	unsigned k = depth >= 4 || *leaves >= 14 ? 0 : rnd(4);

	memset(n, 0, sizeof(*n));
	n->kind = (int)k;
	if (k == 0) {
		n->field = (int)rnd(4);
		n->op = (int)rnd(7);
		n->k = rconst[n->field][rnd(5)];
		(*leaves)++;
	} else if (k == 3) {
		n->l = rgen(pool, used, depth + 1, leaves);
	} else {
		n->l = rgen(pool, used, depth + 1, leaves);
		n->r = rgen(pool, used, depth + 1, leaves);
	}
	return n;
}

static size_t rprint(const struct rnode *n, char *buf, size_t len, size_t at)
{
#define P(...) (at += (size_t)snprintf(buf + at, at < len ? len - at : 0, __VA_ARGS__))
	if (n->kind == 0) {
		P("%s %s %lld", rfields[n->field], rops[n->op], n->k);
	} else if (n->kind == 3) {
		int paren = n->l->kind != 0;

		P("!%s", paren ? "(" : "");
		at = rprint(n->l, buf, len, at);
		P("%s", paren ? ")" : "");
	} else {
		/* || under && needs parentheses; the rest only sometimes gets them. */
		for (int side = 0; side < 2; side++) {
			const struct rnode *c = side ? n->r : n->l;
			int paren = (n->kind == 1 && c->kind == 2) || rnd(4) == 0;

			if (side)
				P(" %s ", n->kind == 1 ? "&&" : "||");
			P("%s", paren ? "(" : "");
			at = rprint(c, buf, len, at);
			P("%s", paren ? ")" : "");
		}
	}
	return at;
#undef P
}

static int reval(const struct rnode *n, const long long v[4], const int is_signed[4])
{
	switch (n->kind) {
	case 1: return reval(n->l, v, is_signed) && reval(n->r, v, is_signed);
	case 2: return reval(n->l, v, is_signed) || reval(n->r, v, is_signed);
	case 3: return !reval(n->l, v, is_signed);
	}
	{
		long long x = v[n->field], k = n->k;

		switch (n->op) {
		case 0: return x == k;
		case 1: return x != k;
		case 2: return x < k;
		case 3: return x <= k;
		case 4: return x > k;
		case 5: return x >= k;
		default: return (x & k) != 0;
		}
	}
}

TEST(eval_random_expressions)
{
	static const int is_signed[4] = { 1, 0, 1, 0 };
	struct rnode pool[64];
	struct trig_def d;
	uint8_t rec[256];
	long mismatches = 0, compiled = 0;

	FAKE();
	for (int it = 0; it < 3000; it++) {
		char text[2048];
		int used = 0, leaves = 0;
		struct rnode *root = rgen(pool, &used, 0, &leaves);
		size_t n = (size_t)snprintf(text, sizeof(text), "test:ev if ");

		n = rprint(root, text, sizeof(text), n);
		if (n >= sizeof(text) || compile(text, &d)) {
			CHECK(!"random expression compiles");
			break;
		}
		compiled++;
		for (int j = 0; j < 40; j++) {
			struct in in = { (int)rnd(7) - 3,
					 (unsigned char)rnd(5),
					 (long)rnd(7) - 3,
					 rnd(8),
					 "abc",
					 "x",
					 { "bash", 1, 1, 0, 1 } };
			long long v[4];
			size_t len;
			int want, got;

			if (rnd(5) == 0)
				in.c = 1L << 40;
			v[0] = in.a;
			v[1] = in.b;
			v[2] = in.c;
			v[3] = in.d;
			len = build_rec(&in, rec, sizeof(rec));
			want = reval(root, v, is_signed);
			got = ref_eval(&d.cfg.side[0].filter, rec, len, &in.ps);
			if (got != want && mismatches++ < 5)
				fprintf(stderr,
					"    %s: a=%d b=%u c=%ld d=%u: compiled %d, direct %d\n",
					text, in.a, in.b, in.c, in.d, got, want);
		}
	}
	CHECK_EQ(mismatches, 0);
	CHECK_EQ(compiled, 3000);
	fake_off();
	return 0;
}

/* ------------------------------------------------------------------ */
/* Compilation details on synthetic formats                             */

TEST(jump_layout)
{
	struct trig_def d;
	const struct trigrec_filter *f = &d.cfg.side[TRIGREC_ROLE_EVENT].filter;

	FAKE();
	/* A && B: A first; true -> B, false -> REJECT. */
	if (!compile("test:ev if a == 1 && b == 2", &d)) {
		CHECK_EQ(f->n, 2);
		CLAUSE(&f->c[0], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 4, 1, 8, 1, 1, R);
		CLAUSE(&f->c[1], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 1, 0, 12, 2, A, R);
	}
	/* A || B: true -> ACCEPT, false -> B. */
	if (!compile("test:ev if a == 1 || b == 2", &d)) {
		CLAUSE(&f->c[0], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 4, 1, 8, 1, A, 1);
		CLAUSE(&f->c[1], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 1, 0, 12, 2, A, R);
	}
	/* !A swaps the targets. */
	if (!compile("test:ev if !(a == 1)", &d)) {
		CHECK_EQ(f->n, 1);
		CLAUSE(&f->c[0], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 4, 1, 8, 1, R, A);
	}
	/* `!` binds to the comparison: !a == 1 is !(a == 1). */
	if (!compile("test:ev if !a == 1", &d))
		CLAUSE(&f->c[0], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 4, 1, 8, 1, R, A);
	/* (A || B) && !(C) */
	if (!compile("test:ev if (a == 1 || b == 2) && !(c < -5)", &d)) {
		CHECK_EQ(f->n, 3);
		CLAUSE(&f->c[0], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 4, 1, 8, 1, 2, 1);
		CLAUSE(&f->c[1], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 1, 0, 12, 2, 2, R);
		CLAUSE(&f->c[2], TRIGREC_OP_LT, TRIGREC_SRC_FIELD, 8, 1, 16, -5, R, A);
	}
	/* No filter: n = 0, always true. */
	if (!compile("test:ev", &d)) {
		CHECK_EQ(f->n, 0);
		CHECK_EQ(d.cfg.side[0].key.p[0].src, 0);
	}
	fake_off();
	return 0;
}

TEST(values_and_types)
{
	struct trig_def d;
	const struct trigrec_filter *f = &d.cfg.side[TRIGREC_ROLE_EVENT].filter;

	FAKE();
	/* Hex, negative, bit patterns on signed fields, sign from the declared type. */
	if (!compile(
		    "test:ev if a == 0xffffffff || h == -32768 || b & 0x80 || x == 18446744073709551615",
		    &d)) {
		CHECK_EQ(f->n, 4);
		CLAUSE(&f->c[0], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 4, 1, 8, -1, A, 1);
		CLAUSE(&f->c[1], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 2, 1, 14, -32768, A, 2);
		CLAUSE(&f->c[2], TRIGREC_OP_BITAND, TRIGREC_SRC_FIELD, 1, 0, 12, 0x80, A, 3);
		CLAUSE(&f->c[3], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 8, 0, 64, -1, A, R);
	}
	/* A syscall-style "int" stored as unsigned long: signed, so -100 works. */
	if (!compile("test:ev if sysarg == -100", &d))
		CLAUSE(&f->c[0], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 8, 1, 88, -100, A, R);
	/* A field named like a pseudo-field wins; upper case is always the pseudo-field. */
	if (!compile(
		    "test:ev if pid == 5 && PID == 6 && tid == 7 && CPU == 1 && cgroup == 9 && COMM == x",
		    &d)) {
		CLAUSE(&f->c[0], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 4, 1, 80, 5, 1, R);
		CLAUSE(&f->c[1], TRIGREC_OP_EQ, TRIGREC_SRC_PID, 4, 0, 0, 6, 2, R);
		CLAUSE(&f->c[2], TRIGREC_OP_EQ, TRIGREC_SRC_TID, 4, 0, 0, 7, 3, R);
		CLAUSE(&f->c[3], TRIGREC_OP_EQ, TRIGREC_SRC_CPU, 4, 0, 0, 1, 4, R);
		CLAUSE(&f->c[4], TRIGREC_OP_EQ, TRIGREC_SRC_CGROUP, 8, 0, 0, 9, 5, R);
		CLAUSE(&f->c[5], TRIGREC_OP_STR_EQ, TRIGREC_SRC_COMM, 16, 0, 0, 0, A, R);
		CHECK_STR(f->str[0], "x");
	}
	/* Keywords are field names inside a condition. */
	if (!compile("test:ev if count == 3 && key >= 4 count >= 2", &d)) {
		CLAUSE(&f->c[0], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 4, 1, 72, 3, 1, R);
		CLAUSE(&f->c[1], TRIGREC_OP_GE, TRIGREC_SRC_FIELD, 4, 1, 76, 4, A, R);
		CHECK_EQ(d.cfg.threshold, 2);
	}
	/* Strings: dedupe, glob forms store the pattern without stars. */
	if (!compile(
		    "test:ev if s ~ \"ab*\" || s ~ '*ab' || dl ~ \"*ab*\" || s ~ ab || s == \"ab\" || dl != ab || comm ~ \"x*\"",
		    &d)) {
		CHECK_EQ(f->n, 7);
		CLAUSE(&f->c[0], TRIGREC_OP_GLOB_PREFIX, TRIGREC_SRC_CHARS, 16, 0, 28, 0, A, 1);
		CLAUSE(&f->c[1], TRIGREC_OP_GLOB_SUFFIX, TRIGREC_SRC_CHARS, 16, 0, 28, 0, A, 2);
		CLAUSE(&f->c[2], TRIGREC_OP_GLOB_MIDDLE, TRIGREC_SRC_DATALOC, 4, 0, 44, 0, A, 3);
		CLAUSE(&f->c[3], TRIGREC_OP_GLOB_FULL, TRIGREC_SRC_CHARS, 16, 0, 28, 0, A, 4);
		CLAUSE(&f->c[4], TRIGREC_OP_STR_EQ, TRIGREC_SRC_CHARS, 16, 0, 28, 0, A, 5);
		CLAUSE(&f->c[5], TRIGREC_OP_STR_NE, TRIGREC_SRC_DATALOC, 4, 0, 44, 0, A, 6);
		CLAUSE(&f->c[6], TRIGREC_OP_GLOB_PREFIX, TRIGREC_SRC_COMM, 16, 0, 0, 1, A, R);
		CHECK_STR(f->str[0], "ab");
		CHECK_STR(f->str[1], "x");
		CHECK_EQ(f->str[2][0], 0);
	}
	/* Escapes. */
	if (!compile("test:ev if dl == \"a\\\"b\\\\c\" || dl == 'it\\'s'", &d)) {
		CHECK_STR(f->str[0], "a\"b\\c");
		CHECK_STR(f->str[1], "it's");
	}
	/* Empty string constant. */
	if (!compile("test:ev if s == \"\" && dl != ''", &d)) {
		CHECK_EQ(f->n, 2);
		CHECK_EQ(f->c[0].imm, 0);
		CHECK_EQ(f->c[1].imm, 0);
	}
	fake_off();
	return 0;
}

TEST(defaults_and_options)
{
	static const struct run limit_periods[] = {
		{ "test:ev limit 3/min", .got = RG_LIMIT_PERIOD, .num = 60000000000ULL },
		{ "test:ev limit 1/s", .got = RG_LIMIT_PERIOD, .num = 1000000000ULL },
		{ "test:ev limit 7/ms", .got = RG_LIMIT_PERIOD, .num = 1000000ULL },
		{ "test:ev limit 2/sec", .got = RG_LIMIT_PERIOD, .num = 1000000000ULL },
		{ "test:ev limit 2/minute", .got = RG_LIMIT_PERIOD, .num = 60000000000ULL },
	};
	struct trig_def d;

	FAKE();
	if (!compile("test:ev", &d)) {
		CHECK_EQ(d.kind, TRIGREC_TRIG_EVENT);
		CHECK_EQ(d.cfg.kind, TRIGREC_TRIG_EVENT);
		CHECK_STR(d.event[TRIGREC_ROLE_EVENT], "test:ev");
		CHECK_STR(d.event[TRIGREC_ROLE_START], "");
		CHECK_STR(d.name, "ev");
		CHECK_EQ(d.cfg.threshold, 0);
		CHECK_EQ(d.has_post, 0);
		CHECK_EQ(d.cfg.post_ns, 0);
		CHECK_STR(d.key_desc[0], "");
		CHECK_STR(d.text, "test:ev");
	}
	if (!compile(
		    "  event test/ev post 0s cooldown 1.5s limit 5/30s max 3 name \"my trigger!\"\n",
		    &d)) {
		CHECK_STR(d.event[0], "test:ev");
		CHECK_EQ(d.has_post, 1);
		CHECK_EQ(d.cfg.post_ns, 0);
		CHECK_EQ(d.cfg.cooldown_ns, 1500000000ULL);
		CHECK_EQ(d.cfg.key_cooldown_ns, 0);
		CHECK_EQ(d.cfg.limit, 5);
		CHECK_EQ(d.cfg.limit_period_ns, 30000000000ULL);
		CHECK_EQ(d.cfg.max_total, 3);
		CHECK_STR(d.name, "my_trigger_");
		CHECK_STR(
			d.text,
			"event test/ev post 0s cooldown 1.5s limit 5/30s max 3 name \"my trigger!\"");
	}
	if (!compile("test:ev limit 10/hour name my-trig.v2", &d)) {
		CHECK_EQ(d.cfg.limit_period_ns, 3600000000000ULL);
		CHECK_STR(d.name, "my-trig.v2");
	}
	RUNS(limit_periods);
	/* Both cooldowns may be given. */
	if (!compile("rate test:ev by a > 10/1s cooldown 1s cooldown 5s per key", &d)) {
		CHECK_EQ(d.cfg.cooldown_ns, 1000000000ULL);
		CHECK_EQ(d.cfg.key_cooldown_ns, 5000000000ULL);
		CHECK_STR(d.name, "rate-ev");
		CHECK_STR(d.key_desc[0], "a");
	}
	/* Rate key after the window; no key = global. */
	if (!compile("rate test:ev if b == 1 > 3/250ms by (a, tid)", &d)) {
		CHECK_EQ(d.cfg.threshold, 3);
		CHECK_EQ(d.cfg.window_ns, 250000000ULL);
		KEYPART(&d.cfg.side[0].key.p[0], TRIGREC_SRC_FIELD, 4, 8);
		KEYPART(&d.cfg.side[0].key.p[1], TRIGREC_SRC_TID, 4, 0);
		CHECK_STR(d.key_desc[0], "a,tid");
	}
	if (!compile("rate test:ev > 3/1min", &d)) {
		KEYPART(&d.cfg.side[0].key.p[0], 0, 0, 0);
		KEYPART(&d.cfg.side[0].key.p[1], 0, 0, 0);
		CHECK_EQ(d.cfg.window_ns, 60000000000ULL);
	}
	/* Latency defaults: thread key, stale age max(10s, 10 x threshold). */
	if (!compile("latency test:ev -> test:ev2 > 2s", &d)) {
		CHECK_EQ(d.kind, TRIGREC_TRIG_LATENCY);
		CHECK_EQ(d.cfg.threshold, 2000000000ULL);
		CHECK_EQ(d.cfg.window_ns, 20000000000ULL);
		CHECK_STR(d.event[TRIGREC_ROLE_START], "test:ev");
		CHECK_STR(d.event[TRIGREC_ROLE_EVENT], "test:ev2");
		CHECK_STR(d.name, "latency-ev2");
		KEYPART(&d.cfg.side[0].key.p[0], TRIGREC_SRC_TID, 4, 0);
		KEYPART(&d.cfg.side[1].key.p[0], TRIGREC_SRC_TID, 4, 0);
		KEYPART(&d.cfg.side[1].key.p[1], 0, 0, 0);
		CHECK_STR(d.key_desc[0], "tid");
		CHECK_STR(d.key_desc[1], "tid");
		CHECK_EQ(d.cfg.side[0].filter.n, 0);
		CHECK_EQ(d.cfg.side[1].filter.n, 0);
	}
	if (!compile("latency test:ev -> test:ev2 > 1ms cooldown 2s per key", &d)) {
		CHECK_EQ(d.cfg.window_ns, 10000000000ULL);
		CHECK_EQ(d.cfg.key_cooldown_ns, 2000000000ULL);
	}
	/* `by` on the start side only applies to both sides, resolved per side. */
	if (!compile("latency test:ev by a -> test:ev2 > 1ms", &d)) {
		KEYPART(&d.cfg.side[TRIGREC_ROLE_START].key.p[0], TRIGREC_SRC_FIELD, 4, 8);
		KEYPART(&d.cfg.side[TRIGREC_ROLE_EVENT].key.p[0], TRIGREC_SRC_FIELD, 8, 8);
	}
	/* Own filter && shared filter, per side, each with its own offsets. */
	if (!compile("latency test:ev if b == 1 -> test:ev2 if e > 3 > 5ms if a != 0 || comm == x",
		     &d)) {
		const struct trigrec_filter *fs = &d.cfg.side[TRIGREC_ROLE_START].filter;
		const struct trigrec_filter *fe = &d.cfg.side[TRIGREC_ROLE_EVENT].filter;

		CHECK_EQ(fs->n, 3);
		CLAUSE(&fs->c[0], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, 1, 0, 12, 1, 1, R);
		CLAUSE(&fs->c[1], TRIGREC_OP_NE, TRIGREC_SRC_FIELD, 4, 1, 8, 0, A, 2);
		CLAUSE(&fs->c[2], TRIGREC_OP_STR_EQ, TRIGREC_SRC_COMM, 16, 0, 0, 0, A, R);
		CHECK_EQ(fe->n, 3);
		CLAUSE(&fe->c[0], TRIGREC_OP_GT, TRIGREC_SRC_FIELD, 4, 0, 16, 3, 1, R);
		CLAUSE(&fe->c[1], TRIGREC_OP_NE, TRIGREC_SRC_FIELD, 8, 1, 8, 0, A, 2);
		CLAUSE(&fe->c[2], TRIGREC_OP_STR_EQ, TRIGREC_SRC_COMM, 16, 0, 0, 0, A, R);
		CHECK_STR(fe->str[0], "x");
	}
	fake_off();
	return 0;
}

TEST(event_globs)
{
	static const struct run globs[] = {
		{ "*:* if tid == 3", .got = RG_EVENT, .str = "*:*" },
		/* A glob matching one tracepoint may use its fields: that one is stored. */
		{ "test:ev[2] if e == 1", .got = RG_EVENT, .str = "test:ev2" },
		{ "test:* if a == 1", 11,
		  "field 'a' needs a single tracepoint, but test:* matches 2" },
		/* `pid` is a field of test:ev: ambiguous across test:*. */
		{ "test:* if pid == 1", 11, "'pid' is ambiguous" },
		{ "test:* if pid == 1", 11, "write PID" },
		{ "test:nope*", 1, "no tracepoint matches test:nope*" },
		{ "rate test:* by a > 1/1s", 16, "needs a single tracepoint" },
	};
	struct trig_def d;

	FAKE();
	/* A glob with pseudo-fields only: the pattern is stored. */
	if (!compile("test:* if COMM == bash && cpu == 2", &d)) {
		CHECK_STR(d.event[0], "test:*");
		CHECK_STR(d.name, "test");
		CHECK_EQ(d.cfg.side[0].filter.c[1].src, TRIGREC_SRC_CPU);
	}
	if (!compile("test:ev? if comm == bash", &d)) {
		CHECK_STR(d.event[0], "test:ev?");
		CHECK_STR(d.name, "ev");
	}
	RUNS(globs);
	fake_off();
	return 0;
}

/* ------------------------------------------------------------------ */
/* Errors                                                               */

TEST(syntax_errors)
{
	static const struct run syntax[] = {
		{ "", 1, "empty trigger" },
		{ "   # only a comment", 20, "empty trigger" },
		{ "latency", 8, "expected a tracepoint (SYS:NAME) after 'latency'" },
		{ "rate", 5, "after 'rate'" },
		{ "test:ev if", 11, "expected a condition" },
		{ "test:ev if a", 13, "expected a comparison operator" },
		{ "test:ev if a ==", 16, "expected a value after '=='" },
		{ "test:ev if a = 1", 14, "use == to compare" },
		{ "test:ev if a == 1 | b == 2", 19, "use || for" },
		{ "test:ev if (a == 1", 19, "expected ')' to close the '(' at 1:12" },
		{ "test:ev if a == 1)", 18, "expected an option" },
		{ "test:ev if s == \"abc", 17, "unterminated string" },
		{ "test:ev if s == \"a\\nb\"", 19, "unsupported escape" },
		{ "test:ev if a == 1 $", 19, "unexpected character '$'" },
		{ "test:ev if a == -x", 18, "expected a number after '-'" },
		{ "test:ev if a == 12abc", 17, "not a number" },
		{ "test:ev if a == 20ms", 17, "whole number" },
		{ "test:ev if a == 99999999999999999999", 17, "fit in 64 bits" },
		/* latency structure */
		{ "latency test:ev test:ev2 > 1ms", 17, "missing '->'" },
		{ "latency test:ev -> test:ev2", 28, "missing threshold: add '> DURATION'" },
		{ "latency test:ev -> test:ev2 > 20", 31, "missing unit" },
		{ "latency test:ev -> test:ev2 > 0ms", 31,
		  "latency threshold must be longer than 0" },
		{ "latency test:ev -> test:ev2 > -1ms", 31, "cannot be negative" },
		{ "latency test:ev -> test:ev2 count >= 3", 29,
		  "'count >= N' applies to plain event triggers only" },
		{ "latency test:ev by a if b == 1 -> test:ev2 > 1ms", 22, "'if' is misplaced" },
		{ "latency test:ev -> test:ev2 > 1ms by a", 35, "'by' is misplaced" },
		{ "latency -> test:ev2 > 1ms", 9, "expected the start tracepoint" },
		{ "latency test:ev -> > 1ms", 20, "expected the end tracepoint" },
		/* rate structure */
		{ "rate test:ev", 13, "missing threshold: add '> N/DURATION'" },
		{ "rate test:ev > 5", 17, "expected '/' and a window" },
		{ "rate test:ev > 5/0s", 18, "rate window must be longer than 0" },
		{ "rate test:ev > 0/1s", 16, "rate count 0 is out of range" },
		{ "rate test:ev > 5/fortnight", 18, "unknown period 'fortnight'" },
		{ "rate test:ev count >= 3", 14,
		  "'count >= N' applies to plain event triggers only" },
		/* A plain event's count after `where` (a script block's line order): misplaced, not refused. */
		{ "test:ev where a == 1 count >= 3", 22, "'count >= N' is misplaced here" },
		{ "test:ev max 2 count >= 3", 15, "'count >= N' is misplaced here" },
		{ "rate test:ev by a > 5/1s by b", 26, "duplicate 'by'" },
		{ "rate test:ev by a,b,c > 5/1s", 21, "at most 2 parts (TRIGREC_MAX_KEY_PARTS)" },
		{ "rate test:ev by (a, b > 5/1s", 23, "expected ')' to close the key list" },
		{ "rate test:ev > 5/1s cooldown 1s per key", 33,
		  "'per key' needs a keyed trigger" },
		/* plain event */
		{ "test:ev by a", 9, "'by' applies to latency and rate triggers only" },
		{ "test:ev count > 3", 15, "expected '>=' after 'count'" },
		{ "test:ev count >= 0", 18, "count 0 is too small" },
		{ "test:ev count >= -1", 18, "cannot be negative" },
		{ "test:ev cooldown 1s per key", 21, "'per key' needs a keyed trigger" },
		{ "test:ev cooldown 1s per day", 25, "expected 'key' after 'per'" },
		/* options */
		{ "test:ev bogus 3", 9, "unknown option 'bogus'" },
		{ "test:ev and a == 1", 9, "conditions use &&" },
		{ "test:ev post 1ms post 2ms", 18,
		  "duplicate option 'post' (already given at 1:9)" },
		{ "test:ev cooldown 1s cooldown 2s", 21, "duplicate option 'cooldown'" },
		{ "test:ev max 3 max 4", 15, "duplicate option 'max'" },
		{ "test:ev name a name b", 16, "duplicate option 'name'" },
		{ "test:ev limit 3/min limit 1/s", 21, "duplicate option 'limit'" },
		{ "test:ev post", 13, "expected post" },
		{ "test:ev post 5", 14, "missing unit" },
		{ "test:ev post 5parsecs", 14, "unknown unit" },
		{ "test:ev limit 3", 16, "expected '/' and a period" },
		{ "test:ev limit 0/min", 15, "limit 0 is out of range: use 1 to" },
		{ "test:ev limit 3/0s", 17, "limit period must be longer than 0" },
		{ "test:ev max 0", 13, "max 0 is out of range" },
		{ "test:ev max 99999999999", 13, "out of range" },
		{ "test:ev name", 13, "expected a name" },
		{ "test:ev name ''", 14, "the name cannot be empty" },
		{ "test:ev if a == 1 if b == 2", 19, "'if' is misplaced" },
		{ "test:ev -> test:ev2", 9, "'->' belongs to latency triggers" },
	};

	FAKE();
	RUNS(syntax);
	fake_off();
	return 0;
}

/* str(FIELD): the text behind a char * field, user or kernel memory by the event. */
static const char fmt_sysfake[] = "name: sys_enter_fake\nID: 9004\nformat:\n" COMMON
				  "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
				  "\tfield:const char * filename;\toffset:16;\tsize:8;\tsigned:0;\n"
				  "\nprint fmt: \"filename=%lx\", REC->filename\n";
static const char fmt_drv[] = "name: ev\nID: 9005\nformat:\n" COMMON
			      "\tfield:const char __user * up;\toffset:8;\tsize:8;\tsigned:0;\n"
			      "\tfield:char * kp;\toffset:16;\tsize:8;\tsigned:0;\n"
			      "\tfield:void * vp;\toffset:24;\tsize:8;\tsigned:0;\n"
			      "\tfield:const char ** pp;\toffset:32;\tsize:8;\tsigned:0;\n"
			      "\tfield:const char * p32;\toffset:40;\tsize:4;\tsigned:0;\n"
			      "\nprint fmt: \"up=%lx\", REC->up\n";

TEST(str_pointer_text)
{
	static struct tp_format *more[2];
	const struct tp_format *all[5];
	struct trig_def d;
	const struct trigrec_filter *f = &d.cfg.side[TRIGREC_ROLE_EVENT].filter;
	struct tl_field_use u;

	FAKE();
	if (!more[0]) {
		more[0] = tp_format__parse("syscalls", "sys_enter_fake", fmt_sysfake,
					   sizeof(fmt_sysfake) - 1);
		more[1] = tp_format__parse("drv", "ev", fmt_drv, sizeof(fmt_drv) - 1);
	}
	CHECK(more[0] && more[1]);
	if (!more[0] || !more[1])
		return 1;
	all[0] = fake[0];
	all[1] = fake[1];
	all[2] = fake[2];
	all[3] = more[0];
	all[4] = more[1];
	trig_set_formats(all, 5);

	/* syscalls:* pointer arguments are user memory. */
	if (!compile("syscalls:sys_enter_fake if str(filename) ~ \"/tmp/trigrec-test-*\"", &d)) {
		CHECK_EQ(f->n, 1);
		CLAUSE(&f->c[0], TRIGREC_OP_GLOB_PREFIX, TRIGREC_SRC_USTR, 8, 0, 16, 0, A, R);
		CHECK_STR(f->str[0], "/tmp/trigrec-test-");
		CHECK_STR(d.event[0], "syscalls:sys_enter_fake");
	}
	/* Blanks inside str( ), ==, !=, suffix and middle globs, with && || !. */
	if (!compile("syscalls:sys_enter_fake if str ( filename ) == \"/etc/passwd\" || "
		     "!(str(filename) != \"/x\") && str(filename) ~ \"*.so\" && "
		     "str(filename) ~ \"*lib*\"",
		     &d)) {
		CHECK_EQ(f->n, 4);
		CLAUSE(&f->c[0], TRIGREC_OP_STR_EQ, TRIGREC_SRC_USTR, 8, 0, 16, 0, A, 1);
		CLAUSE(&f->c[1], TRIGREC_OP_STR_NE, TRIGREC_SRC_USTR, 8, 0, 16, 1, R, 2);
		CLAUSE(&f->c[2], TRIGREC_OP_GLOB_SUFFIX, TRIGREC_SRC_USTR, 8, 0, 16, 2, 3, R);
		CLAUSE(&f->c[3], TRIGREC_OP_GLOB_MIDDLE, TRIGREC_SRC_USTR, 8, 0, 16, 3, A, R);
	}
	/* Other events: kernel memory, unless the type says __user; 4-byte pointers too. */
	if (!compile("drv:ev if str(kp) == \"a\" && str(up) == \"b\" && str(p32) == \"c\"", &d)) {
		CLAUSE(&f->c[0], TRIGREC_OP_STR_EQ, TRIGREC_SRC_KSTR, 8, 0, 16, 0, 1, R);
		CLAUSE(&f->c[1], TRIGREC_OP_STR_EQ, TRIGREC_SRC_USTR, 8, 0, 8, 1, 2, R);
		CLAUSE(&f->c[2], TRIGREC_OP_STR_EQ, TRIGREC_SRC_KSTR, 4, 0, 40, 2, A, R);
	}
	if (!compile("test:ev if str(fname) ~ \"/etc/*\" && fname != 0", &d)) {
		CLAUSE(&f->c[0], TRIGREC_OP_GLOB_PREFIX, TRIGREC_SRC_KSTR, 8, 0, 96, 0, 1, R);
		/* Without str() the field is still the address. */
		CLAUSE(&f->c[1], TRIGREC_OP_NE, TRIGREC_SRC_FIELD, 8, 0, 96, 0, A, R);
	}
	/* A latency side and the shared condition may use it too. */
	CHECK(!compile("latency syscalls:sys_enter_fake if str(filename) ~ \"/a*\" by tid -> "
		       "test:ev if str(fname) == \"x\" by tid > 1ms",
		       &d));

	/* Misuse: line:col and what to write instead. */
	ERR("test:ev if str(a) == \"x\"", 16, "str(a): a is int, not a pointer to text");
	ERR("test:ev if str(pid) == \"x\"", 16, "pid is int, not a pointer to text");
	ERR("test:ev if str(PID) == \"x\"", 16, "str(PID): PID is an integer, not a pointer");
	ERR("test:ev if str(s) == \"x\"", 16, "s (char[16]) is already text in the record");
	ERR("test:ev if str(dl) ~ \"x*\"", 16, "is already text");
	ERR("test:ev if str(comm) == \"x\"", 16, "comm is already text: compare it without str()");
	ERR("drv:ev if str(vp) == \"x\"", 15, "vp is void *, not a pointer to text");
	ERR("drv:ev if str(pp) == \"x\"", 15, "pp is const char **, not a pointer to text");
	ERR("test:ev if str(args) == \"x\"", 16, "cannot compare array field args");
	ERR("test:ev if str(nope) == \"x\"", 16, "unknown field 'nope' for test:ev");
	ERR("test:* if str(fname) == \"x\"", 15, "needs a single tracepoint");
	ERR("test:ev if str(fname) < 3", 23, "'<' compares numbers, but str(fname) is a string");
	ERR("test:ev if str(fname) & 1", 23, "without str() the field is the address");
	ERR("test:ev if str(fname) == 3", 26, "quote the value, e.g. str(fname) == \"3\"");
	ERR("test:ev if str(fname) ~ \"a*b\"", 25, "'*' only at the start and/or end");
	ERR("test:ev if fname ~ \"/etc*\"", 18,
	    "fname is a pointer (const char *): the record holds the address, not the text; "
	    "write str(fname) ~ \"/etc*\"");
	ERR("test:ev if fname == \"/etc\"", 21, "write str(fname) == \"/etc\"");
	ERR("test:ev if strx(fname) == 1", 12,
	    "unknown function 'strx': the one function is str(FIELD)");
	ERR("test:ev if str() == 1", 16, "expected a field name in str( ), e.g. str(filename)");
	ERR("test:ev if str(\"x\") == 1", 16, "expected a field name in str( )");
	ERR("test:ev if str(fname == 1", 22, "expected ')' to close str(fname");
	ERR("test:ev if str(fname, a) == 1", 21, "str() takes one field name");
	ERR("test:ev if str(fname)", 22,
	    "comparison operator (== != < <= > >= & ~ !~) after 'str(fname)'");
	ERR("test:ev if str(fname", 21, "expected ')' to close str(fname, got the end");
	/* Keys: the text's hash, the text itself in the message (one str() part per key). */
	if (!compile("rate syscalls:sys_enter_fake by str(filename), pid > 3/1s", &d)) {
		KEYPART(&d.cfg.side[TRIGREC_ROLE_EVENT].key.p[0], TRIGREC_SRC_USTR, 8, 16);
		KEYPART(&d.cfg.side[TRIGREC_ROLE_EVENT].key.p[1], TRIGREC_SRC_PID, 4, 0);
		CHECK_STR(d.key_desc[TRIGREC_ROLE_EVENT], "str(filename),pid");
	}
	if (!compile("latency drv:ev by str(kp) -> test:ev by str(fname) > 1ms", &d)) {
		KEYPART(&d.cfg.side[TRIGREC_ROLE_START].key.p[0], TRIGREC_SRC_KSTR, 8, 16);
		KEYPART(&d.cfg.side[TRIGREC_ROLE_EVENT].key.p[0], TRIGREC_SRC_KSTR, 8, 96);
		CHECK_STR(d.key_desc[TRIGREC_ROLE_START], "str(kp)");
		CHECK_EQ(d.cfg.flags & TRIGREC_TF_TASK_KEY, 0);
	}
	ERR("latency test:ev by pid, str(fname) -> test:ev2 by a, e > 1ms", 54,
	    "key part 2 is str() on one side only: a text's hash never equals a number");
	ERR("rate drv:ev by str(kp), str(up) > 3/1s", 29, "a key has at most one str() part");
	ERR("rate test:ev by str(a) > 3/1s", 21, "str(a): a is int, not a pointer to text");
	ERR("rate test:ev by str(comm) > 3/1s", 21, "comm is already text");
	ERR("rate test:ev by strx(fname) > 3/1s", 17, "unknown function 'strx'");

	/* What `list -v` says about a char pointer. */
	tl_field_use(tp_format__field(more[0], "filename"), &u);
	CHECK_EQ(u.cls, TL_FIELD_POINTER);
	CHECK(strstr(u.note, "str(FIELD) compares the text") != NULL);
	tl_field_use(tp_format__field(more[1], "vp"), &u);
	CHECK(strstr(u.note, "str(") == NULL);
	fake_off();
	return 0;
}

TEST(semantic_errors)
{
	static const struct run semantic[] = {
		/* events */
		{ "test:evv", 1, "unknown tracepoint test:evv (did you mean test:ev?)" },
		{ "ev", 1, "'ev' is not a tracepoint: give it as SYS:NAME" },
		{ "test:ev:x", 1, "with one ':'" },
		{ "latency test:ev -> test:nope > 1ms", 20, "unknown tracepoint test:nope" },
		{ "latency test:nope -> test:ev > 1ms", 9, "unknown tracepoint test:nope" },
		/* fields */
		{ "test:ev if aa == 1", 12, "unknown field 'aa' for test:ev (did you mean 'a'?)" },
		{ "test:ev if zzzzz == 1", 12, "its fields are: a, b, h, c, d, s, dl, args" },
		{ "test:ev if args == 1", 12,
		  "cannot compare array field args (unsigned long[2])" },
		{ "test:ev if Pid == 1", 12, "unknown field 'Pid'" },
		/* types */
		{ "test:ev if s < 3", 14, "'<' compares numbers, but s is a string (char[16])" },
		{ "test:ev if dl & 3", 15, "but dl is a string" },
		{ "test:ev if comm >= 3", 17, "but comm is a string" },
		{ "test:ev if s == 3", 17, "quote the value" },
		{ "test:ev if a == \"x\"", 17, "a is an integer (int), but \"x\" is a string" },
		{ "test:ev if a == bash", 17, "'bash' is not a number" },
		{ "test:ev if a ~ 3", 14, "'~' matches strings, but a is an integer" },
		{ "test:ev if fname ~ \"/etc*\"", 18, "a pointer" },
		{ "test:ev if pid ~ x", 16, "'~' matches strings" },
		/* globs */
		{ "test:ev if s ~ \"a*b\"", 16,
		  "~ supports \"abc\", \"abc*\", \"*abc\" and \"*abc*\"" },
		{ "test:ev if s ~ \"a?\"", 16, "'?' is not supported" },
		{ "test:ev if dl ~ \"[ab]*\"", 17, "'[' is not supported" },
		{ "test:ev if s ~ \"**a*\"", 16, "'*' is not supported" },
		/* ranges */
		{ "test:ev if b == 300", 17,
		  "300 does not fit b (unsigned char, 1 byte: at most 255)" },
		{ "test:ev if b == -1", 17, "b is unsigned" },
		{ "test:ev if d == -1", 17, "d is unsigned (unsigned int)" },
		{ "test:ev if a == 2147483648", 17, "at most 2147483647, or a 0x bit pattern" },
		{ "test:ev if a == -2147483649", 17, "does not fit a" },
		{ "test:ev if a == 0x1ffffffff", 17, "does not fit a" },
		{ "test:ev if h == 0x10000", 17, "does not fit h" },
		{ "test:ev if c == -9223372036854775809", 17, "out of range" },
		{ "test:ev if PID == -1", 19, "PID is unsigned" },
		/* strings */
		{ "test:ev if s == \"0123456789abcdef\"", 17,
		  "can never match: s (char[16]) holds at most 15" },
		{ "test:ev if comm ~ \"0123456789abcdef*\"", 19, "comm (string) holds at most 15" },
		/* keys */
		{ "rate test:ev by s > 1/1s", 17, "s is a string: a key must be an integer" },
		{ "rate test:ev by comm > 1/1s", 17, "comm is a string" },
		{ "rate test:ev by args > 1/1s", 17, "cannot compare array field args" },
		{ "rate test:ev by nokey > 1/1s", 17, "unknown field 'nokey'" },
		{ "latency test:ev by a, b -> test:ev2 by a > 1ms", 37,
		  "the end key has 1 part but the start key has 2" },
		/* A shared latency filter must hold on both sides. */
		{ "latency test:ev -> test:ev2 > 1ms if b == 1", 38,
		  "unknown field 'b' for test:ev2 (did you mean 'a'?) (the condition after the latency threshold applies to both events)" },
		{ "latency test:ev by b -> test:ev2 > 1ms", 20, "unknown field 'b' for test:ev2" },
	};

	FAKE();
	RUNS(semantic);
	fake_off();
	return 0;
}

TEST(limits)
{
	char text[2048];
	struct trig_def d;
	size_t n;

	FAKE();
	/* 16 comparisons compile, 17 do not; the error points at the 17th. */
	n = (size_t)snprintf(text, sizeof(text), "test:ev if a == 0");
	for (int i = 1; i < 16; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, " || a == %d", i);
	if (!compile(text, &d)) {
		const struct trigrec_filter *f = &d.cfg.side[0].filter;

		CHECK_EQ(f->n, 16);
		for (int i = 0; i < 16; i++) {
			CHECK_EQ(f->c[i].imm, i);
			CHECK_EQ(f->c[i].jt, A);
			CHECK_EQ(f->c[i].jf, i == 15 ? R : i + 1);
		}
	}
	snprintf(text + n, sizeof(text) - n, " || b == 1");
	ERR(text, (int)n + 5, "filter of test:ev has 17 comparisons; at most 16 are supported");
	/* Latency: own and shared comparisons count together, per side. */
	n = (size_t)snprintf(text, sizeof(text), "latency test:ev if a == 0");
	for (int i = 1; i < 9; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, " && a != %d", i);
	n += (size_t)snprintf(text + n, sizeof(text) - n, " -> test:ev2 > 1ms if a > 1");
	for (int i = 1; i < 7; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, " || a > %d", i);
	if (!compile(text, &d)) {
		CHECK_EQ(d.cfg.side[TRIGREC_ROLE_START].filter.n, 16);
		CHECK_EQ(d.cfg.side[TRIGREC_ROLE_EVENT].filter.n, 7);
	}
	snprintf(text + n, sizeof(text) - n, " || a > 99");
	ERR(text, (int)n + 5, "has 17 comparisons");

	/* Four different strings, repeated: fine. A fifth: error at it. */
	if (!compile("test:ev if s == a || s == b || dl == c || comm == d || s == a || dl ~ b*",
		     &d)) {
		CHECK_STR(d.cfg.side[0].filter.str[0], "a");
		CHECK_STR(d.cfg.side[0].filter.str[3], "d");
		CHECK_EQ(d.cfg.side[0].filter.c[4].imm, 0);
		CHECK_EQ(d.cfg.side[0].filter.c[5].imm, 1);
	}
	ERR("test:ev if s == a || s == b || dl == c || comm == d || s == e", 61,
	    "too many different strings in one filter: at most 4 are supported (TRIGREC_MAX_STRS)");
	/* 31 bytes fit TRIGREC_STR_LEN (32 with the NUL), 32 do not. */
	if (!compile("test:ev if dl == \"0123456789012345678901234567890\"", &d))
		CHECK_EQ(strlen(d.cfg.side[0].filter.str[0]), 31);
	ERR("test:ev if dl == \"01234567890123456789012345678901\"", 18,
	    "is 32 bytes long; at most 31 are supported (TRIGREC_STR_LEN 32");
	if (!compile("test:ev if dl ~ \"*0123456789012345678901234567890*\"", &d))
		CHECK_EQ(d.cfg.side[0].filter.c[0].op, TRIGREC_OP_GLOB_MIDDLE);
	/* Three key parts. */
	ERR("latency test:ev by (a, b, c) -> test:ev2 > 1ms", 27, "a key has at most 2 parts");
	/* Nesting depth. */
	{
		char deep[400];

		n = (size_t)snprintf(deep, sizeof(deep), "test:ev if ");
		for (int i = 0; i < 70; i++)
			deep[n++] = '!';
		snprintf(deep + n, sizeof(deep) - n, "a == 1");
		ERR(deep, 12 + 64, "nested too deeply");
		deep[11 + 60] = '\0';
		strcat(deep, "a == 1");
		if (!compile(deep, &d)) {
			CHECK_EQ(d.cfg.side[0].filter.n, 1);
			CHECK_EQ(d.cfg.side[0].filter.c[0].jt, A); /* 60 negations: even */
		}
	}
	/* Long names. */
	{
		char nm[200];

		memset(nm, 'x', 100);
		nm[100] = '\0';
		snprintf(text, sizeof(text), "test:ev name %s", nm);
		ERR(text, 14, "name too long");
	}
	fake_off();
	return 0;
}

TEST(multiline_and_positions)
{
	/* A script: 9 lines before the trigger, which starts on line 10. */
	static const char file[] = "# trigrec script\n"			     /* 1 */
				   "\n"					     /* 2 */
				   "# comment\n"			     /* 3 */
				   "\n\n\n\n\n\n"			     /* 4-9 */
				   "latency test:ev   # start: any thread\n" /* 10 */
				   "\t-> test:ev2 # end\n"		     /* 11 */
				   "  > 20ms if a == 1 # both\n"	     /* 12 */
				   "  post 5ms  # keep 5ms more\n";	     /* 13 */
	static const char bad[] = "# trigrec script\n\n# comment\n\n\n\n\n\n\n"
				  "latency test:ev   # start\n"
				  "\t-> test:ev2 # end\n"
				  "  > 20ms if nosuch == 1 # both\n";
	const char *trig = strstr(file, "latency"), *btrig = strstr(bad, "latency");
	struct trig_ast *a;
	struct tl_error e;
	struct trig_def d;
	char buf[1024];

	FAKE();
	a = trig_parse(trig, 10, 1, &e);
	CHECK(a != NULL);
	if (a) {
		CHECK_EQ(trig_compile(a, trig, &d, &e), 0);
		CHECK_EQ(d.cfg.threshold, 20000000);
		CHECK_EQ(d.cfg.post_ns, 5000000);
		CHECK_EQ(d.cfg.side[0].filter.n, 1);
		CHECK_EQ(d.cfg.side[1].filter.n, 1);
		CHECK(strstr(d.text, "latency test:ev") == d.text);
		CHECK(d.text[strlen(d.text) - 1] != '\n');
		trig_ast_free(a);
	}
	/* Positions count lines from first_line; a tab is one column. */
	a = trig_parse(btrig, 10, 1, &e);
	CHECK(a != NULL);
	if (a) {
		CHECK_EQ(trig_compile(a, btrig, &d, &e), -EINVAL);
		CHECK_EQ(e.pos.line, 12);
		CHECK_EQ(e.pos.col, 13);
		trig_ast_free(a);
		tl_error_format(&e, "slow.trig", bad, buf, sizeof(buf));
		CHECK(!strncmp(buf, "slow.trig:12:13: unknown field 'nosuch' for test:ev (", 52));
		CHECK(strstr(buf, "\n    > 20ms if nosuch == 1 # both\n              ^") != NULL);
		CHECK(buf[strlen(buf) - 1] == '^');
	}
	ERR_AT("latency test:ev\n\t-> test:ev2\n\t> 5", 10, 1, 12, 4, "missing unit");
	ERR_AT("latency test:ev # -> in a comment\n  test:ev2 > 5ms", 10, 1, 11, 3, "missing '->'");
	ERR_AT("test:ev\n\n  if s == \"abc\n\"", 3, 1, 5, 11, "unterminated string");
	/* first_col shifts the first line only. */
	ERR_AT("test:ev if q == 1\n  || a == 1", 1, 20, 1, 31, "unknown field 'q'");
	ERR_AT("test:ev if a == 1\n  || q == 1", 1, 20, 2, 6, "unknown field 'q'");
	fake_off();
	return 0;
}

TEST(error_format)
{
	struct tl_error e = { { 1, 12 }, "unknown field 'x'" };
	char buf[256];

	tl_error_format(&e, "--trigger", "test:ev if x == 1", buf, sizeof(buf));
	CHECK_STR(buf, "--trigger:1:12: unknown field 'x'\n  test:ev if x == 1\n             ^");
	/* Tabs in the source line keep the caret aligned. */
	e.pos = (struct tl_pos){ 2, 4 };
	tl_error_format(&e, "f", "a\n\t\tb c", buf, sizeof(buf));
	CHECK_STR(buf, "f:2:4: unknown field 'x'\n  \t\tb c\n  \t\t ^");
	/* A position past the text: message only. */
	e.pos = (struct tl_pos){ 5, 1 };
	tl_error_format(&e, NULL, "one line", buf, sizeof(buf));
	CHECK_STR(buf, "trigger:5:1: unknown field 'x'");
	/* Caret at the end of the line (col one past). */
	e.pos = (struct tl_pos){ 1, 4 };
	tl_error_format(&e, "o", "abc", buf, sizeof(buf));
	CHECK_STR(buf, "o:1:4: unknown field 'x'\n  abc\n     ^");
	/* Truncation keeps a terminated string. */
	tl_error_format(&e, "o", "abc", buf, 10);
	CHECK_EQ(strlen(buf), 9);
	return 0;
}

TEST(parse_free_paths)
{
	/* Every error path must free what it built (run under ASan/valgrind). */
	static const char *const texts[] = {
		"test:ev if (a == 1 && (b == 2 || !(c == 3)) && ",
		"test:ev if a == 1 && s == \"x\" || dl ~ \"a*b\"",
		"latency test:ev if a == 1 -> test:ev2 if e == 2 > 1ms if a == 1 bogus",
		"latency test:ev if a == 1 -> test:ev2 if b == 2 > 1ms",
		"rate test:ev if s == \"x\" by a > 5/1s by b",
		"test:ev if s == \"x\" s",
	};
	struct trig_def d;
	struct tl_error e;

	FAKE();
	for (size_t i = 0; i < NELEM(texts); i++)
		CHECK(trig_from_text(texts[i], &d, &e) != 0);
	CHECK(trig_parse(NULL, 1, 1, &e) == NULL);
	CHECK(trig_compile(NULL, "x", &d, &e) != 0);
	trig_ast_free(NULL);
	fake_off();
	return 0;
}

/* ------------------------------------------------------------------ */
/* Hardening (issues 7 and 8)                                           */

/* [A-Za-z0-9_.-]+: what a snapshot file name may carry. */
static int name_is_safe(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '-'))
			return 0;
	return 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

TEST(default_rate_limit)
{
	static const struct run limits[] = {
		{ "latency test:ev -> test:ev2 > 1ms", .got = RG_LIMIT, .num = 10 },
		{ "test:ev limit none limit 3/s", 20, "duplicate option 'limit'" },
		{ "test:ev limit nonee", 15, "limit N/PERIOD (e.g. limit 3/min) or limit none" },
		{ "test:ev limit none/s", 15, "or limit none, got 'none/s'" },
		/* A period longer than a year is a typo for `max`. */
		{ "test:ev limit 1/8760h", .got = RG_LIMIT_PERIOD,
		  .num = 8760ULL * 3600 * 1000000000ULL },
		{ "test:ev limit 1/8761h", 17, "longer than a year" },
		{ "test:ev limit 1/500000h", 17, "use max N" },
	};
	struct trig_def d;

	FAKE();
	/* No limit given: a token bucket of 10 snapshots, one more per second. */
	if (!compile("test:ev", &d)) {
		CHECK_EQ(d.has_limit, 0);
		CHECK_EQ(d.cfg.limit, TL_DEFAULT_LIMIT);
		CHECK_EQ(d.cfg.limit_period_ns, TL_DEFAULT_LIMIT_PERIOD_NS);
		CHECK_EQ(d.cfg.limit, 10);
		CHECK_EQ(d.cfg.limit_period_ns, 10000000000ULL);
	}
	/* Every kind gets it; other policies do not remove it. */
	if (!compile("rate test:ev > 5/1s cooldown 1s max 3", &d)) {
		CHECK_EQ(d.cfg.limit, 10);
		CHECK_EQ(d.cfg.limit_period_ns, 10000000000ULL);
	}
	/* An explicit limit replaces it. */
	if (!compile("test:ev limit 3/min", &d)) {
		CHECK_EQ(d.has_limit, 1);
		CHECK_EQ(d.cfg.limit, 3);
		CHECK_EQ(d.cfg.limit_period_ns, 60000000000ULL);
	}
	/* `limit none` removes every rate limit. */
	if (!compile("test:ev limit none", &d)) {
		CHECK_EQ(d.has_limit, 1);
		CHECK_EQ(d.cfg.limit, 0);
		CHECK_EQ(d.cfg.limit_period_ns, 0);
	}
	if (!compile("rate test:ev by a > 5/1s limit none cooldown 1s per key", &d)) {
		CHECK_EQ(d.cfg.limit, 0);
		CHECK_EQ(d.cfg.key_cooldown_ns, 1000000000ULL);
	}
	RUNS(limits);
	fake_off();
	return 0;
}

/*
 * Durations read by the one parser the command line uses: the same units,
 * the same errors, and a unit written apart from its number ("> 50 ms") as
 * "--post '10 ms'" is read.
 */
TEST(duration_units_as_on_the_command_line)
{
	static const struct {
		const char *text;
		uint64_t post_ns; /* when sub is NULL */
		int col;
		const char *sub;
	} cases[] = {
		{ "test:ev post 10 ms", 10000000, 0, NULL },
		{ "test:ev post 10ms name x", 10000000, 0, NULL },
		{ "test:ev post 1min", 60000000000ULL, 0, NULL },
		{ "test:ev post 1 min", 60000000000ULL, 0, NULL },
		{ "test:ev post 2.5 s cooldown 1s", 2500000000ULL, 0, NULL },
		{ "test:ev post 1m", 0, 14, "'1m': 'm' is ambiguous in a duration: write 1min" },
		{ "test:ev post 1 m", 0, 14, "'1 m': 'm' is ambiguous" },
		{ "test:ev post 1M", 0, 14,
		  "'M' is not a unit of time (it is a mebibyte in sizes): did you mean 1ms or 1min?" },
		{ "test:ev post 50mS", 0, 14, "'50mS': units are lower-case: write 50ms" },
		{ "test:ev post 50 MS", 0, 14, "'50 MS': units are lower-case: write 50ms" },
		{ "test:ev post 50", 0, 14, "'50': missing unit (add a unit, e.g. 50ms)" },
		{ "test:ev post 50 name x", 0, 14, "'50': missing unit" },
	};
	static const struct run others[] = {
		{ "latency test:ev -> test:ev2 > 50 ms", .got = RG_THRESHOLD, .num = 50000000 },
		{ "latency test:ev -> test:ev2 > 1M", 31, "did you mean 1ms or 1min?" },
		{ "test:ev limit 3/min", .got = RG_LIMIT_PERIOD, .num = 60000000000ULL },
		{ "test:ev limit 3/1min", .got = RG_LIMIT_PERIOD, .num = 60000000000ULL },
		{ "rate test:ev > 3/2 min", .got = RG_WINDOW, .num = 120000000000ULL },
		{ "test:ev limit 3/m", 17, "unknown period 'm'" },
	};
	struct trig_def d;

	FAKE();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].sub) {
			ERR(cases[i].text, cases[i].col, cases[i].sub);
			continue;
		}
		CHECK_EQ(compile(cases[i].text, &d), 0);
		CHECK_EQ(d.cfg.post_ns, cases[i].post_ns);
	}
	/* The latency threshold and the limit's period read the same way. */
	RUNS(others);
	fake_off();
	return 0;
}

TEST(post_capped_at_one_hour)
{
	static const struct run post[] = {
		{ "test:ev post 1h", .got = RG_POST, .num = TL_MAX_POST_NS },
		{ "test:ev post 60min", .got = RG_POST, .num = 3600000000000ULL },
		/* Both micro signs: U+00B5 and Greek mu U+03BC look the same. */
		{ "test:ev post 250\xc2\xb5s", .got = RG_POST, .num = 250000 },
		{ "test:ev post 250\xce\xbcs", .got = RG_POST, .num = 250000 },
		{ "test:ev post 250\xc2\xb5s\xc2\xa0name x", 20, "no-break space" },
		{ "test:ev post 2h", 14,
		  "post 2h is longer than the maximum of 1h (as for --post)" },
		{ "test:ev post 3600.000000001s", 14, "longer than the maximum of 1h" },
		{ "latency test:ev -> test:ev2 > 1ms post 1000000h", 40,
		  "longer than the maximum of 1h" },
	};

	FAKE();
	RUNS(post);
	fake_off();
	return 0;
}

TEST(count_minimum_is_one)
{
	static const struct run count[] = {
		{ "test:ev count >= 0", 18, "the minimum is 1" },
		{ "test:ev count >= 0", 18,
		  "count >= 1, like no count at all, fires on every match" },
		{ "test:ev count >= 00", 18, "the minimum is 1" },
		{ "test:ev count >= 0x0", 18, "the minimum is 1" },
		{ "test:ev count >= -1", 18, "the minimum is 1" },
		{ "test:ev count >= 1", .got = RG_THRESHOLD, .num = 1 },
	};

	FAKE();
	RUNS(count);
	fake_off();
	return 0;
}

TEST(names_utf8)
{
	static const struct run utf8[] = {
		/* One `_` per character, not per byte. */
		{ "test:ev name \xc3\xa9t\xc3\xa9", .got = RG_NAME, .str = "_t_" },
		{ "test:ev name \"na\xc3\xafve \xe2\x80\x93 v2\"", .got = RG_NAME,
		  .str = "na_ve___v2" },
		{ "test:ev name \xe6\x97\xa5\xe6\x9c\xac\xf0\x9f\x98\x80x", .got = RG_NAME,
		  .str = "___x" },
		/* Non-ASCII words are values too: a comm is bytes. */
		{ "test:ev if comm == \xc3\xa9t\xc3\xa9", .got = RG_STR0,
		  .str = "\xc3\xa9t\xc3\xa9" },
		{ "test:ev if comm == \"\xc3\xa9t\xc3\xa9\"", .got = RG_STR0,
		  .str = "\xc3\xa9t\xc3\xa9" },
	};
	static const struct run bad_utf8[] = {
		/* Invalid UTF-8 anywhere: an error at the byte. */
		{ "test:ev name \xff", 14, "invalid UTF-8 (byte 0xff)" },
		{ "test:ev name ab\xc3", 16, "invalid UTF-8 (byte 0xc3)" },
		{ "test:ev if comm == \"a\xc0\xaf\"", 22, "invalid UTF-8 (byte 0xc0)" },
		{ "test:ev # \xed\xa0\x80 a surrogate\n", 11, "invalid UTF-8 (byte 0xed)" },
		/* Look-alikes pasted from a word processor. */
		{ "test:ev if comm == \xe2\x80\x9c"
		  "bash\xe2\x80\x9d",
		  20, "typographic quote" },
		{ "test:ev if comm == \xe2\x80\x9c"
		  "bash\xe2\x80\x9d",
		  20, "use \" or '" },
		{ "test:ev\xc2\xa0if a == 1", 8, "no-break space (U+00A0): use a plain space" },
		{ "test:ev if a \xe2\x89\xa0 1", 14,
		  "unexpected character '\xe2\x89\xa0' (U+2260)" },
	};
	struct trig_def d;

	FAKE();
	RUNS(utf8);
	/* A name limit counts bytes: 21 three-byte characters fit, 22 do not. */
	{
		char t[200] = "test:ev name ";

		for (int i = 0; i < 21; i++)
			strcat(t, "\xe3\x82\xa2");
		if (!compile(t, &d))
			CHECK_EQ(strlen(d.name), 21);
		strcat(t, "\xe3\x82\xa2");
		ERR(t, 14, "name too long");
	}
	RUNS(bad_utf8);
	ERR_AT("test:ev\n  name \x80x", 1, 1, 2, 8, "the text must be UTF-8");
	fake_off();
	return 0;
}

TEST(default_names_from_globs)
{
	static const struct {
		const char *text, *name;
	} cases[] = {
		{ "*:*", "any" },
		{ "*:* if tid == 3", "any" },
		{ "rate *:* > 5/1s", "rate-any" },
		{ "latency *:* -> *:* > 1ms", "latency-any" },
		{ "*/*", "any" },
		{ "????:*", "any" },
		{ "[a-z]*:[a-z]*", "a-z" },
		{ "test:*", "test" },
		{ "*:ev", "ev" },
		{ "*:ev?", "ev" },
		{ "test:ev*", "ev" },
	};
	struct trig_def d;

	FAKE();
	for (size_t i = 0; i < NELEM(cases); i++) {
		if (compile(cases[i].text, &d)) {
			CHECK(!"compiles");
			continue;
		}
		if (strcmp(d.name, cases[i].name))
			fprintf(stderr, "    '%s': name '%s', want '%s'\n", cases[i].text, d.name,
				cases[i].name);
		CHECK_STR(d.name, cases[i].name);
		CHECK(name_is_safe(d.name));
	}
	fake_off();
	return 0;
}

TEST(pathological_input)
{
	struct trig_def d;
	struct tl_error e;
	struct trig_ast *a;
	size_t big = 11 * 1000000 + 64, n;
	char *t;
	double t0;

	FAKE();
	t = malloc(big);
	CHECK(t != NULL);
	if (!t)
		return 1;
	/* A million && clauses through the API: an error, not a stack overflow. */
	t0 = now_s();
	n = (size_t)snprintf(t, big, "test:ev if a == 1");
	for (int i = 0; i < 1000000; i++) {
		memcpy(t + n, " && a == 1", 10);
		n += 10;
	}
	t[n] = '\0';
	CHECK(trig_from_text(t, &d, &e) != 0);
	CHECK(strstr(e.msg, "trigger text too long: more than 65536 bytes (TL_MAX_TEXT)") != NULL);
	CHECK_EQ(e.pos.line, 1);
	CHECK_EQ(e.pos.col, 1);
	/* Under the text limit, the tree limit: 3000 comparisons. */
	t[17 + 3000 * 10] = '\0';
	CHECK(trig_from_text(t, &d, &e) != 0);
	CHECK(strstr(e.msg, "condition too large: more than 1024 terms") != NULL);
	CHECK(strstr(e.msg, "(TL_MAX_NODES)") != NULL);
	CHECK(strstr(e.msg, "at most 16 comparisons") != NULL);
	/* 1 MB of blanks, and a 1 MB word. */
	memset(t, ' ', 1 << 20);
	strcpy(t + (1 << 20), "test:ev");
	CHECK(trig_from_text(t, &d, &e) != 0);
	CHECK(strstr(e.msg, "more than 65536 bytes") != NULL);
	memset(t, 'x', 1 << 20);
	t[1 << 20] = '\0';
	CHECK(trig_from_text(t, &d, &e) != 0);
	CHECK(strstr(e.msg, "more than 65536 bytes") != NULL);
	/* Just under the limit: blanks then a trigger compile. */
	memset(t, ' ', TL_MAX_TEXT - 7);
	strcpy(t + TL_MAX_TEXT - 7, "test:ev");
	CHECK_EQ(compile(t, &d), 0);
	/* Deep parentheses: the nesting limit, not the stack. */
	n = (size_t)snprintf(t, big, "test:ev if ");
	for (int i = 0; i < 20000; i++)
		t[n++] = '(';
	strcpy(t + n, "a == 1");
	n += 6;
	for (int i = 0; i < 20000; i++)
		t[n++] = ')';
	t[n] = '\0';
	CHECK(trig_from_text(t, &d, &e) != 0);
	CHECK(strstr(e.msg, "nested too deeply (more than 64 levels") != NULL);
	CHECK_EQ(e.pos.col, 12 + 64);
	/* Huge numbers. */
	n = (size_t)snprintf(t, big, "test:ev if a == ");
	memset(t + n, '9', 60000);
	t[n + 60000] = '\0';
	CHECK(trig_from_text(t, &d, &e) != 0);
	CHECK(strstr(e.msg, "number too long") != NULL);
	ERR("test:ev count >= 99999999999999999999", 18, "fit in 64 bits");
	ERR("test:ev post 99999999999999999999h", 14, "too large");
	ERR("test:ev cooldown 999999999999999h", 18, "too large");
	ERR("rate test:ev > 1/99999999999999999999s", 18, "too large");
	ERR("test:ev if c == -99999999999999999999", 18, "fit in 64 bits");
	CHECK(now_s() - t0 < 5);
	free(t);

	/* Positions saturate instead of overflowing an int. */
	a = trig_parse("test:ev\n\n if a == 1 &&\n zz == 1", INT_MAX, INT_MAX, &e);
	CHECK(a != NULL);
	if (a) {
		CHECK(trig_compile(a, NULL, &d, &e) != 0);
		CHECK_EQ(e.pos.line, INT_MAX);
		CHECK_EQ(e.pos.col, 2);
		trig_ast_free(a);
	}
	a = trig_parse("test:ev if zz == 1", INT_MAX - 1, INT_MAX - 5, &e);
	CHECK(a != NULL);
	if (a) {
		CHECK(trig_compile(a, NULL, &d, &e) != 0);
		CHECK_EQ(e.pos.line, INT_MAX - 1);
		CHECK_EQ(e.pos.col, INT_MAX);
		trig_ast_free(a);
	}
	ERR_AT("test:ev\n\n bogus", INT_MAX - 1, 1, INT_MAX, 2, "unknown option 'bogus'");
	ERR_AT("test:ev bogus", -5, INT_MIN, 1, 9, "unknown option");
	/* No text at all. */
	CHECK(trig_from_text(NULL, &d, &e) != 0);
	CHECK(strstr(e.msg, "no trigger text") != NULL);
	fake_off();
	return 0;
}

TEST(error_format_long_lines)
{
	struct tl_error e = { { 1, 0 }, "bad" };
	char *src = malloc(TL_MAX_TEXT + 1), buf[4096];
	const char *l2, *l3;

	if (!src)
		return 1;
	memset(src, 'a', TL_MAX_TEXT);
	src[TL_MAX_TEXT] = '\0';
	memcpy(src + 30000, "XYZ", 3);
	e.pos.col = 30001;
	tl_error_format(&e, "o", src, buf, sizeof(buf));
	/* The line is cut to a window around the column, the caret under X. */
	l2 = strchr(buf, '\n');
	l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
	CHECK(l2 && l3);
	if (l2 && l3) {
		const char *x = strstr(l2, "XYZ");

		CHECK(x != NULL && x < l3);
		CHECK(l3 - l2 < 300);
		CHECK(strstr(l2, "...") == l2 + 3);
		CHECK_EQ(strlen(l3 + 1), (size_t)(x - (l2 + 1)) + 1);
		CHECK_EQ(l3[strlen(l3) - 1], '^');
	}
	/* A long trigger (1024 bytes or less) is shown whole. */
	memset(src, 'b', 1024);
	src[1024] = '\0';
	e.pos.col = 1000;
	tl_error_format(&e, "o", src, buf, sizeof(buf));
	CHECK(strstr(buf, "...") == NULL);
	CHECK(strstr(buf, src) != NULL);
	/* A column far past the line: message, line, no caret run-away. */
	e.pos.col = INT_MAX;
	tl_error_format(&e, "o", "abc", buf, sizeof(buf));
	CHECK(!strncmp(buf, "o:1:2147483647: bad\n  abc", 25));
	CHECK(strlen(buf) < 40);
	/* A window never splits a UTF-8 character. */
	memset(src, 'a', 2000);
	for (int i = 0; i < 2000; i += 2)
		memcpy(src + i, "\xc3\xa9", 2);
	src[2000] = '\0';
	e.pos.col = 1002; /* inside a character: the window backs off to its start */
	tl_error_format(&e, "o", src, buf, sizeof(buf));
	for (const char *p = buf; *p;) {
		int k = utf8_char(p, NULL);

		CHECK(k > 0);
		if (k <= 0)
			break;
		p += k;
	}
	free(src);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Live tracefs: the documented examples                                */

static int live_ok(char *why, size_t len)
{
	if (!tracefs_root()) {
		snprintf(why, len,
			 "tracefs not available (mount -t tracefs nodev /sys/kernel/tracing)");
		return 0;
	}
	return 1;
}

/* Field of a live tracepoint; NULL (and a reason) if missing. */
static struct tp_format *live_fmts[16];
static int nr_live_fmts;

static const struct tp_field *LF(const char *sys, const char *name, const char *field)
{
	struct tp_format *f = NULL;

	for (int i = 0; i < nr_live_fmts; i++)
		if (!strcmp(live_fmts[i]->sys, sys) && !strcmp(live_fmts[i]->name, name))
			f = live_fmts[i];
	if (!f && nr_live_fmts < 16) {
		f = tp_format__load(sys, name);
		if (f)
			live_fmts[nr_live_fmts++] = f;
	}
	return f ? tp_format__field(f, field) : NULL;
}

#define NEED(sys, name, field)                                    \
	const struct tp_field *field##_f = LF(sys, name, #field); \
	if (!field##_f)                                           \
	SKIP("%s:%s has no field %s on this kernel", sys, name, #field)

TEST(live_plain_event)
{
	char why[200];
	struct trig_def d;

	if (!live_ok(why, sizeof(why)))
		SKIP("%s", why);
	if (tracefs_event_id("syscalls", "sys_enter_getsid") < 0)
		SKIP("no syscalls:sys_enter_getsid (CONFIG_FTRACE_SYSCALLS off)");
	if (compile("syscalls:sys_enter_getsid", &d))
		return 1;
	CHECK_EQ(d.kind, TRIGREC_TRIG_EVENT);
	CHECK_EQ(d.cfg.kind, TRIGREC_TRIG_EVENT);
	CHECK_STR(d.event[TRIGREC_ROLE_EVENT], "syscalls:sys_enter_getsid");
	CHECK_EQ(d.cfg.side[0].filter.n, 0);
	CHECK_EQ(d.cfg.threshold, 0);
	CHECK_STR(d.name, "sys_enter_getsid");
	CHECK_STR(d.text, "syscalls:sys_enter_getsid");
	/* sys/name as perf writes it. */
	if (!compile("syscalls/sys_enter_getsid", &d))
		CHECK_STR(d.event[TRIGREC_ROLE_EVENT], "syscalls:sys_enter_getsid");
	return 0;
}

TEST(live_sched_switch_filter)
{
	char why[200];
	struct trig_def d;
	const struct trigrec_filter *f = &d.cfg.side[0].filter;

	if (!live_ok(why, sizeof(why)))
		SKIP("%s", why);
	NEED("sched", "sched_switch", prev_state);
	NEED("sched", "sched_switch", next_comm);
	if (compile("sched:sched_switch if prev_state == 2 && next_comm ~ \"kworker*\"", &d))
		return 1;
	CHECK_EQ(f->n, 2);
	CLAUSE(&f->c[0], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, prev_state_f->size,
	       prev_state_f->is_signed, prev_state_f->offset, 2, 1, R);
	CLAUSE(&f->c[1], TRIGREC_OP_GLOB_PREFIX, TRIGREC_SRC_CHARS, next_comm_f->size, 0,
	       next_comm_f->offset, 0, A, R);
	CHECK_STR(f->str[0], "kworker");
	CHECK_STR(d.name, "sched_switch");
	return 0;
}

TEST(live_openat_count)
{
	char why[200];
	struct trig_def d;
	const struct trigrec_filter *f = &d.cfg.side[0].filter;

	if (!live_ok(why, sizeof(why)))
		SKIP("%s", why);
	NEED("syscalls", "sys_enter_openat", flags);
	NEED("syscalls", "sys_enter_openat", dfd);
	if (compile("syscalls:sys_enter_openat if comm == \"bash\" || (flags & 0x40 && !(dfd == -100)) count >= 3",
		    &d))
		return 1;
	CHECK_EQ(f->n, 3);
	/* comm is not a field of sys_enter_openat: the task's comm. */
	CLAUSE(&f->c[0], TRIGREC_OP_STR_EQ, TRIGREC_SRC_COMM, 16, 0, 0, 0, A, 1);
	/* Declared int, stored as 8 unsigned bytes: compared signed. */
	CLAUSE(&f->c[1], TRIGREC_OP_BITAND, TRIGREC_SRC_FIELD, flags_f->size, 1, flags_f->offset,
	       0x40, 2, R);
	CLAUSE(&f->c[2], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD, dfd_f->size, 1, dfd_f->offset, -100, R,
	       A);
	CHECK_STR(f->str[0], "bash");
	CHECK_EQ(d.cfg.threshold, 3);
	CHECK_STR(d.name, "sys_enter_openat");
	return 0;
}

TEST(live_openat_str)
{
	char why[200];
	struct trig_def d;
	const struct trigrec_filter *f = &d.cfg.side[0].filter;

	if (!live_ok(why, sizeof(why)))
		SKIP("%s", why);
	NEED("syscalls", "sys_enter_openat", filename);
	if (compile("syscalls:sys_enter_openat if str(filename) ~ \"/etc/*\"", &d))
		return 1;
	CHECK_EQ(f->n, 1);
	/* A syscall argument: user memory. */
	CLAUSE(&f->c[0], TRIGREC_OP_GLOB_PREFIX, TRIGREC_SRC_USTR, filename_f->size, 0,
	       filename_f->offset, 0, A, R);
	CHECK_STR(f->str[0], "/etc/");
	return 0;
}

TEST(live_latency_syscall)
{
	char why[200];
	struct trig_def d;

	if (!live_ok(why, sizeof(why)))
		SKIP("%s", why);
	NEED("raw_syscalls", "sys_enter", id);
	const struct tp_field *xid = LF("raw_syscalls", "sys_exit", "id");

	if (!xid)
		SKIP("raw_syscalls:sys_exit has no id field");
	if (compile("latency raw_syscalls:sys_enter -> raw_syscalls:sys_exit by tid > 20ms if id == 0",
		    &d))
		return 1;
	CHECK_EQ(d.kind, TRIGREC_TRIG_LATENCY);
	CHECK_EQ(d.cfg.kind, TRIGREC_TRIG_LATENCY);
	CHECK_STR(d.event[TRIGREC_ROLE_START], "raw_syscalls:sys_enter");
	CHECK_STR(d.event[TRIGREC_ROLE_EVENT], "raw_syscalls:sys_exit");
	CHECK_EQ(d.cfg.threshold, 20000000ULL);
	CHECK_EQ(d.cfg.window_ns, 10000000000ULL);
	CHECK_EQ(d.cfg.side[TRIGREC_ROLE_START].filter.n, 1);
	CLAUSE(&d.cfg.side[TRIGREC_ROLE_START].filter.c[0], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD,
	       id_f->size, id_f->is_signed, id_f->offset, 0, A, R);
	CHECK_EQ(d.cfg.side[TRIGREC_ROLE_EVENT].filter.n, 1);
	CLAUSE(&d.cfg.side[TRIGREC_ROLE_EVENT].filter.c[0], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD,
	       xid->size, xid->is_signed, xid->offset, 0, A, R);
	for (int r = 0; r < 2; r++) {
		KEYPART(&d.cfg.side[r].key.p[0], TRIGREC_SRC_TID, 4, 0);
		KEYPART(&d.cfg.side[r].key.p[1], 0, 0, 0);
		CHECK_STR(d.key_desc[r], "tid");
	}
	CHECK_STR(d.name, "latency-sys_exit");
	/* The shared condition names a field the end event lacks. */
	if (LF("sched", "sched_switch", "prev_pid"))
		ERR("latency raw_syscalls:sys_enter -> sched:sched_switch > 20ms if id == 0", 64,
		    "unknown field 'id' for sched:sched_switch");
	return 0;
}

TEST(live_latency_runqueue)
{
	char why[200];
	struct trig_def d;

	if (!live_ok(why, sizeof(why)))
		SKIP("%s", why);
	NEED("sched", "sched_wakeup", pid);
	NEED("sched", "sched_switch", next_pid);
	if (compile("latency sched:sched_wakeup by pid -> sched:sched_switch by next_pid > 5ms",
		    &d))
		return 1;
	KEYPART(&d.cfg.side[TRIGREC_ROLE_START].key.p[0], TRIGREC_SRC_FIELD, pid_f->size,
		pid_f->offset);
	KEYPART(&d.cfg.side[TRIGREC_ROLE_EVENT].key.p[0], TRIGREC_SRC_FIELD, next_pid_f->size,
		next_pid_f->offset);
	CHECK_STR(d.key_desc[TRIGREC_ROLE_START], "pid");
	CHECK_STR(d.key_desc[TRIGREC_ROLE_EVENT], "next_pid");
	CHECK_EQ(d.cfg.threshold, 5000000ULL);
	CHECK_EQ(d.cfg.side[0].filter.n, 0);
	CHECK_EQ(d.cfg.side[1].filter.n, 0);
	CHECK_STR(d.name, "latency-sched_switch");
	return 0;
}

TEST(live_latency_block)
{
	char why[200];
	struct trig_def d;

	if (!live_ok(why, sizeof(why)))
		SKIP("%s", why);
	NEED("block", "block_rq_issue", dev);
	NEED("block", "block_rq_issue", sector);
	const struct tp_field *cdev = LF("block", "block_rq_complete", "dev");
	const struct tp_field *csec = LF("block", "block_rq_complete", "sector");

	if (!cdev || !csec)
		SKIP("block:block_rq_complete lacks dev/sector");
	if (compile("latency block:block_rq_issue by dev, sector -> block:block_rq_complete by (dev, sector) > 50ms",
		    &d))
		return 1;
	KEYPART(&d.cfg.side[TRIGREC_ROLE_START].key.p[0], TRIGREC_SRC_FIELD, dev_f->size,
		dev_f->offset);
	KEYPART(&d.cfg.side[TRIGREC_ROLE_START].key.p[1], TRIGREC_SRC_FIELD, sector_f->size,
		sector_f->offset);
	KEYPART(&d.cfg.side[TRIGREC_ROLE_EVENT].key.p[0], TRIGREC_SRC_FIELD, cdev->size,
		cdev->offset);
	KEYPART(&d.cfg.side[TRIGREC_ROLE_EVENT].key.p[1], TRIGREC_SRC_FIELD, csec->size,
		csec->offset);
	CHECK_STR(d.key_desc[0], "dev,sector");
	CHECK_STR(d.key_desc[1], "dev,sector");
	CHECK_EQ(d.cfg.threshold, 50000000ULL);
	CHECK_EQ(d.cfg.window_ns, 10000000000ULL);
	/* The string field `cmd` is a __data_loc: the descriptor's offset. */
	{
		const struct tp_field *cmd = LF("block", "block_rq_issue", "cmd");

		if (cmd && cmd->kind == TP_FIELD_DATALOC &&
		    !compile("block:block_rq_issue if cmd ~ \"*x*\"", &d))
			CLAUSE(&d.cfg.side[0].filter.c[0], TRIGREC_OP_GLOB_MIDDLE,
			       TRIGREC_SRC_DATALOC, 4, 0, cmd->offset, 0, A, R);
	}
	return 0;
}

TEST(live_latency_offcpu)
{
	char why[200];
	struct trig_def d;

	if (!live_ok(why, sizeof(why)))
		SKIP("%s", why);
	NEED("sched", "sched_switch", prev_state);
	NEED("sched", "sched_switch", prev_pid);
	NEED("sched", "sched_switch", next_pid);
	if (compile("latency sched:sched_switch if prev_state == 2 by prev_pid -> sched:sched_switch by next_pid > 10ms",
		    &d))
		return 1;
	CHECK_STR(d.event[0], "sched:sched_switch");
	CHECK_STR(d.event[1], "sched:sched_switch");
	CHECK_EQ(d.cfg.side[TRIGREC_ROLE_START].filter.n, 1);
	CLAUSE(&d.cfg.side[TRIGREC_ROLE_START].filter.c[0], TRIGREC_OP_EQ, TRIGREC_SRC_FIELD,
	       prev_state_f->size, prev_state_f->is_signed, prev_state_f->offset, 2, A, R);
	CHECK_EQ(d.cfg.side[TRIGREC_ROLE_EVENT].filter.n, 0);
	KEYPART(&d.cfg.side[TRIGREC_ROLE_START].key.p[0], TRIGREC_SRC_FIELD, prev_pid_f->size,
		prev_pid_f->offset);
	KEYPART(&d.cfg.side[TRIGREC_ROLE_EVENT].key.p[0], TRIGREC_SRC_FIELD, next_pid_f->size,
		next_pid_f->offset);
	CHECK_EQ(d.cfg.threshold, 10000000ULL);
	return 0;
}

TEST(live_rate)
{
	char why[200];
	struct trig_def d;

	if (!live_ok(why, sizeof(why)))
		SKIP("%s", why);
	if (tracefs_event_id("syscalls", "sys_enter_openat") < 0 ||
	    tracefs_event_id("raw_syscalls", "sys_enter") < 0)
		SKIP("no syscall tracepoints");
	if (!compile("rate syscalls:sys_enter_openat > 5000/1s", &d)) {
		CHECK_EQ(d.kind, TRIGREC_TRIG_RATE);
		CHECK_EQ(d.cfg.kind, TRIGREC_TRIG_RATE);
		CHECK_EQ(d.cfg.threshold, 5000);
		CHECK_EQ(d.cfg.window_ns, 1000000000ULL);
		KEYPART(&d.cfg.side[0].key.p[0], 0, 0, 0);
		KEYPART(&d.cfg.side[0].key.p[1], 0, 0, 0);
		CHECK_EQ(d.cfg.side[0].filter.n, 0);
		CHECK_STR(d.name, "rate-sys_enter_openat");
		CHECK_STR(d.key_desc[0], "");
	}
	if (!compile(
		    "rate raw_syscalls:sys_enter by pid > 10000/1s cooldown 10s per key limit 3/min max 10 post 5ms name burst",
		    &d)) {
		CHECK_EQ(d.cfg.threshold, 10000);
		CHECK_EQ(d.cfg.window_ns, 1000000000ULL);
		/* raw_syscalls:sys_enter has no pid field: the process id. */
		KEYPART(&d.cfg.side[0].key.p[0], TRIGREC_SRC_PID, 4, 0);
		CHECK_STR(d.key_desc[0], "pid");
		CHECK_EQ(d.cfg.cooldown_ns, 0);
		CHECK_EQ(d.cfg.key_cooldown_ns, 10000000000ULL);
		CHECK_EQ(d.cfg.limit, 3);
		CHECK_EQ(d.cfg.limit_period_ns, 60000000000ULL);
		CHECK_EQ(d.cfg.max_total, 10);
		CHECK_EQ(d.has_post, 1);
		CHECK_EQ(d.cfg.post_ns, 5000000ULL);
		CHECK_STR(d.name, "burst");
	}
	return 0;
}

TEST(live_errors)
{
	char why[200];

	if (!live_ok(why, sizeof(why)))
		SKIP("%s", why);
	if (!LF("sched", "sched_switch", "prev_state"))
		SKIP("no sched:sched_switch");
	ERR("sched:sched_swich", 1,
	    "unknown tracepoint sched:sched_swich (did you mean sched:sched_switch?)");
	ERR("sched_switch", 1, "give it as SYS:NAME (did you mean sched:sched_switch?)");
	ERR("sched:sched_switch if prev_stat == 2", 23,
	    "unknown field 'prev_stat' for sched:sched_switch (did you mean 'prev_state'?)");
	ERR("sched:sched_switch if prev_comm < 3", 33,
	    "'<' compares numbers, but prev_comm is a string");
	ERR("sched:sched_switch if next_comm ~ \"k?w\"", 35, "~ supports");
	return 0;
}

static void live_cleanup(void)
{
	for (int i = 0; i < nr_live_fmts; i++)
		tp_format__free(live_fmts[i]);
	nr_live_fmts = 0;
	for (int i = 0; i < 3; i++) {
		tp_format__free(fake[i]);
		fake[i] = NULL;
	}
}

TEST(zz_cleanup)
{
	live_cleanup();
	return 0;
}

/* Is op one of the space-separated words of list? */
static int op_listed(const char *list, const char *op)
{
	size_t n = strlen(op);

	for (const char *p = list; (p = strstr(p, op)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/* What `trigrec list -v` says a field accepts is what trig_compile accepts. */
static int use_matches_compile(const char *ev, const char *field, const struct tl_field_use *u)
{
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=", "&", "~" };
	struct tl_error e;
	struct trig_def d;
	char text[256];
	int ok = 1;

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		int str = u->cls == TL_FIELD_STRING || !strcmp(ops[i], "~");
		int got, want = op_listed(u->ops, ops[i]);

		snprintf(text, sizeof(text), "%s if %s %s %s", ev, field, ops[i],
			 str ? "\"x*\"" : "1");
		got = !trig_from_text(text, &d, &e);
		if (got != want) {
			fprintf(stderr, "    %s: list says %s, compile %s\n", text,
				want ? "yes" : "no", got ? "accepts" : e.msg);
			ok = 0;
		}
	}
	snprintf(text, sizeof(text), "rate %s by %s > 10/1s", ev, field);
	if ((trig_from_text(text, &d, &e) == 0) != u->key) {
		fprintf(stderr, "    %s: list says key %d, compile disagrees\n", text, u->key);
		ok = 0;
	}
	return ok;
}

TEST(list_field_use_matches_the_compiler)
{
	struct tl_synth_field sy;
	int n;

	FAKE();
	for (int k = 0; k < 2; k++) {
		const struct tp_format *f = fake[k];
		char ev[200];

		snprintf(ev, sizeof(ev), "%s:%s", f->sys, f->name);
		for (int i = 0; i < f->nr_fields; i++) {
			struct tl_field_use u;

			tl_field_use(&f->fields[i], &u);
			CHECK(use_matches_compile(ev, f->fields[i].name, &u));
		}
	}
	/* The kinds the issue names, as `list -v` prints them. */
	{
		struct tl_field_use u;

		tl_field_use(tp_format__field(fake[0], "s"), &u);
		CHECK_EQ(u.cls, TL_FIELD_STRING);
		CHECK_STR(u.ops, "== != ~");
		CHECK_EQ(u.key, 0);
		tl_field_use(tp_format__field(fake[0], "a"), &u);
		CHECK_EQ(u.cls, TL_FIELD_INTEGER);
		CHECK_STR(u.ops, "== != < <= > >= &");
		CHECK_EQ(u.is_signed, 1);
		tl_field_use(tp_format__field(fake[0], "sysarg"), &u);
		CHECK_EQ(u.is_signed, 1); /* declared int, stored as unsigned long */
		CHECK(strstr(u.note, "compared as signed") != NULL);
		tl_field_use(tp_format__field(fake[0], "fname"), &u);
		CHECK_EQ(u.cls, TL_FIELD_POINTER);
		CHECK_STR(u.cls_name, "pointer");
		CHECK(strstr(u.note, "str(FIELD) compares the text it points to") != NULL);
		tl_field_use(tp_format__field(fake[0], "args"), &u);
		CHECK_EQ(u.cls, TL_FIELD_NONE);
		CHECK_STR(u.ops, "none");
		CHECK_EQ(u.key, 0);
		tl_field_use(tp_format__field(fake[0], "dl"), &u);
		CHECK_EQ(u.cls, TL_FIELD_STRING);
	}
	/* Synthetic fields: on an event without fields of those names. */
	n = tl_synth_field(0, &sy);
	CHECK_EQ(n, 5);
	for (int i = 0; i < n; i++) {
		CHECK_EQ(tl_synth_field(i, &sy), n);
		CHECK(use_matches_compile("other:thing", sy.name, &sy.use));
	}
	tl_synth_field(0, &sy);
	CHECK_STR(sy.name, "comm");
	CHECK_EQ(sy.size, 16);
	tl_synth_field(4, &sy);
	CHECK_STR(sy.name, "cgroup");
	CHECK_EQ(sy.size, 8);
	CHECK_EQ(tl_synth_field(5, &sy), n);
	fake_off();
	return 0;
}

/* cgroup == / != "/path", cgroup ~ / !~ "glob": a condition per path, resolved later (cgsel). */
TEST(cgroup_paths)
{
	struct trig_def d;
	const struct trigrec_filter *f = &d.cfg.side[TRIGREC_ROLE_EVENT].filter;
	char big[400];

	FAKE();
	if (!compile("test:ev if cgroup == \"/system.slice/nginx.service\"", &d)) {
		CHECK_EQ(d.nr_cg, 1);
		CHECK_STR(d.cg[0].lit, "/system.slice/nginx.service");
		CHECK_STR(d.cg[0].text, "/system.slice/nginx.service");
		CHECK_EQ(d.cg[0].form, TRIGREC_OP_STR_EQ);
		CHECK_EQ(d.cg[0].pos.line, 1);
		CHECK_EQ(d.cg[0].pos.col, 22);
		CHECK_EQ(f->n, 1);
		CLAUSE(&f->c[0], TRIGREC_OP_EQ, TRIGREC_SRC_CGSET, 1, 0, 0, 1, A, R);
	}
	if (!compile("test:ev if CGROUP != \"/init.scope\"", &d)) {
		CHECK_EQ(d.nr_cg, 1);
		CLAUSE(&f->c[0], TRIGREC_OP_NE, TRIGREC_SRC_CGSET, 1, 0, 0, 1, A, R);
	}
	/* The four glob forms; !~ is the same clause with its jumps swapped. */
	if (!compile("test:ev where cgroup ~ \"*kubepods*\" && cgroup !~ \"/kubepods.slice/*\" "
		     "&& cgroup ~ \"*.scope\" && cgroup ~ \"/init.scope\"",
		     &d)) {
		CHECK_EQ(d.nr_cg, 4);
		CHECK_STR(d.cg[0].lit, "kubepods");
		CHECK_STR(d.cg[0].text, "*kubepods*");
		CHECK_EQ(d.cg[0].form, TRIGREC_OP_GLOB_MIDDLE);
		CHECK_STR(d.cg[1].lit, "/kubepods.slice/");
		CHECK_EQ(d.cg[1].form, TRIGREC_OP_GLOB_PREFIX);
		CHECK_STR(d.cg[2].lit, ".scope");
		CHECK_EQ(d.cg[2].form, TRIGREC_OP_GLOB_SUFFIX);
		CHECK_STR(d.cg[3].lit, "/init.scope");
		CHECK_EQ(d.cg[3].form, TRIGREC_OP_GLOB_FULL);
		CHECK_EQ(f->n, 4);
		CLAUSE(&f->c[0], TRIGREC_OP_EQ, TRIGREC_SRC_CGSET, 1, 0, 0, 1, 1, R);
		CLAUSE(&f->c[1], TRIGREC_OP_EQ, TRIGREC_SRC_CGSET, 1, 0, 1, 1, R, 2);
		CLAUSE(&f->c[2], TRIGREC_OP_EQ, TRIGREC_SRC_CGSET, 1, 0, 2, 1, 3, R);
		CLAUSE(&f->c[3], TRIGREC_OP_EQ, TRIGREC_SRC_CGSET, 1, 0, 3, 1, A, R);
	}
	/* The same path twice is one condition; a number still compares the id. */
	if (!compile("test:ev if cgroup ~ \"*pod*\" || (cgroup !~ \"*pod*\" && cgroup == 42)",
		     &d)) {
		CHECK_EQ(d.nr_cg, 1);
		CHECK_EQ(f->n, 3);
		CLAUSE(&f->c[0], TRIGREC_OP_EQ, TRIGREC_SRC_CGSET, 1, 0, 0, 1, A, 1);
		CLAUSE(&f->c[1], TRIGREC_OP_EQ, TRIGREC_SRC_CGSET, 1, 0, 0, 1, R, 2);
		CLAUSE(&f->c[2], TRIGREC_OP_EQ, TRIGREC_SRC_CGROUP, 8, 0, 0, 42, A, R);
	}
	/* Latency: the shared condition's path is one condition for both sides. */
	if (!compile("latency test:ev -> test:ev2 > 1ms if cgroup ~ \"/a/*\"", &d)) {
		CHECK_EQ(d.nr_cg, 1);
		CHECK_EQ(d.cfg.side[TRIGREC_ROLE_START].filter.c[0].src, TRIGREC_SRC_CGSET);
		CHECK_EQ(d.cfg.side[TRIGREC_ROLE_EVENT].filter.c[0].src, TRIGREC_SRC_CGSET);
	}
	/* !~ works on every string: comm !~ "ba*" is comm ~ "ba*" with the jumps swapped. */
	if (!compile("test:ev if comm !~ \"ba*\"", &d)) {
		CHECK_EQ(d.nr_cg, 0);
		CLAUSE(&f->c[0], TRIGREC_OP_GLOB_PREFIX, TRIGREC_SRC_COMM, 16, 0, 0, 0, R, A);
		CHECK_STR(f->str[0], "ba");
	}

	/* Errors, each at its line:col. */
	ERR("test:ev if cgroup < \"/a\"", 19, "a path takes ==, !=, ~ or !~");
	ERR("test:ev if cgroup ~ 5", 21, "takes a quoted cgroup path glob");
	ERR("test:ev if cgroup !~ 5", 22, "cgroup !~ takes a quoted");
	ERR("test:ev if cgroup == web.service", 22, "quote it, e.g. cgroup == \"/web.service\"");
	ERR("test:ev if cgroup == \"system.slice/x\"", 22, "start with '/'");
	ERR("test:ev if cgroup ~ \"kubepods*\"", 21, "write \"/kubepods*\"");
	ERR("test:ev if cgroup ~ \"/a/*/b\"", 21, "'*' only at the start and/or end");
	ERR("test:ev if cgroup == \"/a/\"", 22, "ends in '/'");
	ERR("test:ev if str(cgroup) == \"/a\"", 16, "cgroup is an integer");
	ERR("test:ev if cgroup ~ \"*a*\" || cgroup ~ \"*b*\" || cgroup ~ \"*c*\" || "
	    "cgroup ~ \"*d*\" || cgroup ~ \"*e*\"",
	    93, "at most 4 are supported (TL_MAX_CG_PER_TRIG)");
	ERR("test:ev if a ! ~ \"x\"", 14, "expected a comparison operator");
	memset(big, 'x', sizeof(big));
	memcpy(big, "test:ev if cgroup == \"/", 23);
	big[sizeof(big) - 2] = '"';
	big[sizeof(big) - 1] = '\0';
	ERR(big, 22, "at most 255 are supported (TL_CG_PATH_MAX)");
	/* In a script, positions are the file's. */
	ERR_AT("test:ev\n  where cgroup == \"x\"", 4, 3, 5, 19, "start with '/'");
	fake_off();
	return 0;
}

/* A probe's name is one token through "+OFFSET" and its "(field, ...)", blanks included. */
TEST(probe_names_lex)
{
	static const char *const ok[] = {
		"latency uprobe:/x/app:f(a=arg1, b=+0(arg2):string) -> uretprobe:/x/app:f by tid > 1ms",
		"kprobe:vfs_read+0x10 if arg1 == 3 name k",
		"rate usdt:/x/app:prov:tick(n=arg1) > 3/1s",
		"kretprobe:do_sys_openat2 if ret < 0 post 1ms",
	};
	struct tl_error e;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct trig_ast *a = trig_parse(ok[i], 1, 1, &e);

		if (!a)
			fprintf(stderr, "    '%s': %s\n", ok[i], e.msg);
		CHECK(a != NULL);
		trig_ast_free(a);
	}
	/* An unclosed field list ends at the line's end: then the arrow is missing. */
	CHECK(trig_parse("latency uprobe:/x:f(a=arg1 > 1ms", 1, 1, &e) == NULL);
	return 0;
}

/* Learned thresholds: `> pNN[.N] [* M] [after N samples]`, and their errors with line:col. */
TEST(learned_thresholds)
{
	struct trig_def d;

	FAKE();
	if (!compile("latency test:ev -> test:ev2 > p99.9", &d)) {
		CHECK_EQ(d.cfg.learn_pct, 99900);
		CHECK_EQ(d.cfg.learn_mult, 100);
		CHECK_EQ(d.cfg.learn_after, TL_DEFAULT_LEARN_AFTER);
		CHECK_EQ(d.cfg.learn_halflife_ns, TL_LEARN_HALFLIFE_NS);
		CHECK_EQ(d.cfg.threshold, 0);
		CHECK(d.cfg.flags & TRIGREC_TF_LEARN_ALL); /* no `by`: one histogram */
		CHECK_EQ(d.cfg.window_ns, 10000000000ULL);
	}
	if (!compile("latency test:ev by a -> test:ev2 > p99 * 2 after 200 samples", &d)) {
		CHECK_EQ(d.cfg.learn_pct, 99000);
		CHECK_EQ(d.cfg.learn_mult, 200);
		CHECK_EQ(d.cfg.learn_after, 200);
		CHECK(!(d.cfg.flags & TRIGREC_TF_LEARN_ALL));
	}
	if (!compile("latency test:ev -> test:ev2 by tid > p50*1.5 after 1 sample name x", &d)) {
		CHECK_EQ(d.cfg.learn_pct, 50000);
		CHECK_EQ(d.cfg.learn_mult, 150);
		CHECK_EQ(d.cfg.learn_after, 1);
	}
	if (!compile("latency test:ev -> test:ev2 > p99.999 *3 if a != 0", &d)) {
		CHECK_EQ(d.cfg.learn_pct, 99999);
		CHECK_EQ(d.cfg.learn_mult, 300);
	}
	if (!compile("latency test:ev -> test:ev2 > 5ms", &d))
		CHECK_EQ(d.cfg.learn_pct, 0);
	ERR("latency test:ev -> test:ev2 > p100", 31, "out of range: use p1 to p99.999");
	ERR("latency test:ev -> test:ev2 > p0", 31, "out of range");
	ERR("latency test:ev -> test:ev2 > p99.9999", 31, "at most three decimals");
	ERR("latency test:ev -> test:ev2 > p99 * -1", 37, "multiplier must be more than 0");
	ERR("latency test:ev -> test:ev2 > p99 * 0", 37, "multiplier must be more than 0");
	ERR("latency test:ev -> test:ev2 > p99*0", 31, "multiplier must be more than 0");
	ERR("latency test:ev -> test:ev2 > p99 *", 36, "expected a multiplier after '*'");
	ERR("latency test:ev -> test:ev2 > p99 * x", 37, "expected a multiplier after '*'");
	ERR("latency test:ev -> test:ev2 > p", 31, "write a percentile as pNN");
	ERR("latency test:ev -> test:ev2 > p9x", 31, "write a percentile as pNN");
	ERR("latency test:ev -> test:ev2 > p99 after 0 samples", 41, "after 0 samples");
	ERR("latency test:ev -> test:ev2 > p99 after 10", 43, "expected 'samples'");
	ERR("latency test:ev -> test:ev2 > p99 after 5 samples after 5 samples", 51,
	    "duplicate option 'after'");
	ERR("latency test:ev -> test:ev2 > 5ms after 10 samples", 35,
	    "warm-up of a learned threshold");
	ERR("test:ev after 10 samples", 9, "warm-up of a learned threshold");
	ERR_AT("latency test:ev ->\n  test:ev2 > p100", 3, 1, 4, 14, "out of range");
	return 0;
}

/*
 * Rate baselines: `rate EVENT [by KEY] > Nx baseline [per PERIOD] [after N
 * windows]`, and every bad form with its line:col.
 */
TEST(rate_baselines)
{
	struct trig_def d;

	FAKE();
	if (!compile("rate test:ev > 5x baseline", &d)) {
		CHECK_EQ(d.kind, TRIGREC_TRIG_RATE);
		CHECK(d.cfg.flags & TRIGREC_TF_RATE_BASELINE);
		CHECK_EQ(d.cfg.learn_mult, 500);
		CHECK_EQ(d.cfg.learn_after, TL_DEFAULT_BASELINE_AFTER);
		CHECK_EQ(d.cfg.window_ns, TL_DEFAULT_BASELINE_WINDOW_NS);
		CHECK_EQ(d.cfg.learn_pct, 0); /* not a learned latency */
		CHECK_EQ(d.cfg.threshold, 0);
		CHECK_EQ(d.cfg.side[TRIGREC_ROLE_EVENT].key.p[0].src, 0);
		CHECK_STR(d.name, "rate-ev");
	}
	if (!compile("rate test:ev if a > 3 by a > 2.5x baseline per 200ms after 20 windows", &d)) {
		CHECK_EQ(d.cfg.learn_mult, 250);
		CHECK_EQ(d.cfg.learn_after, 20);
		CHECK_EQ(d.cfg.window_ns, 200000000ULL);
		CHECK_EQ(d.cfg.side[TRIGREC_ROLE_EVENT].key.p[0].src, TRIGREC_SRC_FIELD);
		CHECK_EQ(d.cfg.side[TRIGREC_ROLE_EVENT].filter.n, 1);
	}
	/* `by` after the threshold, as for a fixed rate; a period word; 1 window; 1000x. */
	if (!compile("rate test:ev > 1.01X baseline per min by a after 1 window limit 1/min", &d)) {
		CHECK_EQ(d.cfg.learn_mult, 101);
		CHECK_EQ(d.cfg.window_ns, 60000000000ULL);
		CHECK_EQ(d.cfg.learn_after, 1);
		CHECK_EQ(d.cfg.side[TRIGREC_ROLE_EVENT].key.p[0].src, TRIGREC_SRC_FIELD);
		CHECK_EQ(d.cfg.limit, 1);
	}
	if (!compile("rate test:ev > 1000x baseline", &d))
		CHECK_EQ(d.cfg.learn_mult, 100000);
	/* A fixed rate is untouched. */
	if (!compile("rate test:ev > 100/1s", &d)) {
		CHECK(!(d.cfg.flags & TRIGREC_TF_RATE_BASELINE));
		CHECK_EQ(d.cfg.threshold, 100);
		CHECK_EQ(d.cfg.learn_mult, 0);
	}
	ERR("rate test:ev > 0x baseline", 16, "multiplier 0x must be more than 1x");
	ERR("rate test:ev > 0x", 16, "multiplier 0x must be more than 1x");
	ERR("rate test:ev > 1x baseline", 16, "multiplier 1x must be more than 1x");
	ERR("rate test:ev > 1.00x baseline", 16, "must be more than 1x");
	ERR("rate test:ev > -2x baseline", 16, "multiplier cannot be negative");
	ERR("rate test:ev > 2.125x baseline", 16, "at most two decimals");
	ERR("rate test:ev > 1001x baseline", 16, "too large: at most 1000x");
	ERR("rate test:ev > 5 baseline", 16, "written with an x: '5x baseline'");
	ERR("rate test:ev > 5.x baseline", 16, "is not a number");
	ERR("rate test:ev > 5y2x baseline", 16, "is not a number");
	ERR("rate test:ev > 5x", 18, "expected 'baseline' after '5x'");
	ERR("rate test:ev > 5x basline", 19, "expected 'baseline' after '5x'");
	ERR("rate test:ev > 5x baseline/1s", 19, "written with 'per': > 5x baseline per 1s");
	ERR("rate test:ev > 5x baseline / 1s", 28, "written with 'per'");
	ERR("rate test:ev > 5x baseline per 0s", 32, "longer than 0");
	ERR("rate test:ev > 5x baseline per", 31, "baseline window");
	ERR("rate test:ev > 5x baseline after 0 windows", 34, "after 0 windows");
	ERR("rate test:ev > 5x baseline after 10", 36, "expected 'windows'");
	ERR("rate test:ev > 5x baseline after 10 samples", 37, "expected 'windows'");
	ERR("rate test:ev > 5x baseline after 5 windows after 5 windows", 44,
	    "duplicate option 'after'");
	ERR("rate test:ev > 100/1s after 10 windows", 23, "warm-up of a learned threshold");
	ERR("latency test:ev -> test:ev2 > 5x baseline", 31,
	    "a baseline is learned by rate triggers");
	ERR("latency test:ev -> test:ev2 > 5 baseline", 31,
	    "a baseline is learned by rate triggers");
	ERR("latency test:ev -> test:ev2 > p99 after 10 windows", 44,
	    "a learned latency warms up over spans");
	ERR_AT("rate test:ev >\n  0x baseline", 3, 1, 4, 3, "must be more than 1x");
	return 0;
}

/*
 * Near misses of an event condition: the first `FIELD > N` / `>= N`
 * comparison, left to right, is the one whose values are kept; the relaxed
 * condition (side[ROLE_START]) is the same list with that clause true.
 */
TEST(event_condition_near_miss)
{
	struct trig_def d;

	FAKE();
	if (!compile("test:ev if a > 3", &d)) {
		CHECK_EQ(d.cfg.nm_clause1, 1);
		CHECK_STR(d.nm_desc, "a > 3");
		CHECK_EQ(d.cfg.side[TRIGREC_ROLE_START].filter.n, 1);
		CHECK_EQ(d.cfg.side[TRIGREC_ROLE_START].filter.c[0].op, TRIGREC_OP_TRUE);
		CHECK_EQ(d.cfg.side[TRIGREC_ROLE_EVENT].filter.c[0].op, TRIGREC_OP_GT);
	}
	if (!compile("test:ev if b == 1 && (c < 5 || d >= 0x10) && a > 7", &d)) {
		const struct trigrec_filter *f = &d.cfg.side[TRIGREC_ROLE_EVENT].filter;
		const struct trigrec_filter *r = &d.cfg.side[TRIGREC_ROLE_START].filter;

		CHECK_EQ(d.cfg.nm_clause1, 3); /* d >= 0x10: the third comparison */
		CHECK_STR(d.nm_desc, "d >= 0x10");
		CHECK_EQ(f->c[2].op, TRIGREC_OP_GE);
		CHECK_EQ(f->c[2].imm, 0x10);
		CHECK_EQ(r->n, f->n);
		for (uint32_t k = 0; k < f->n; k++) {
			CHECK_EQ(r->c[k].op, k == 2 ? TRIGREC_OP_TRUE : f->c[k].op);
			CHECK_EQ(r->c[k].jt, f->c[k].jt);
			CHECK_EQ(r->c[k].jf, f->c[k].jf);
		}
	}
	if (!compile("test:ev if c >= -5", &d)) {
		CHECK_EQ(d.cfg.nm_clause1, 1);
		CHECK_STR(d.nm_desc, "c >= -5");
	}
	/* where COND is the condition too. */
	if (!compile("test:ev where a >= 100", &d))
		CHECK_EQ(d.cfg.nm_clause1, 1);
	/* None: <, ==, a string, no condition, latency and rate triggers. */
	if (!compile("test:ev if a < 3 || a == 9", &d)) {
		CHECK_EQ(d.cfg.nm_clause1, 0);
		CHECK_EQ(d.cfg.side[TRIGREC_ROLE_START].filter.n, 0);
		CHECK_STR(d.nm_desc, "");
	}
	if (!compile("test:ev if s == \"x\"", &d))
		CHECK_EQ(d.cfg.nm_clause1, 0);
	if (!compile("test:ev", &d))
		CHECK_EQ(d.cfg.nm_clause1, 0);
	if (!compile("rate test:ev if a > 3 > 10/1s", &d))
		CHECK_EQ(d.cfg.nm_clause1, 0);
	if (!compile("latency test:ev if a > 3 -> test:ev2 > 1ms", &d))
		CHECK_EQ(d.cfg.nm_clause1, 0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Dynamic probes: only the caller's resolve_probe creates their events */

/* A kprobe's event as probes.c creates it: the group trigrec_<pid>, one fetch-arg. */
static const char fmt_kprobe[] =
	"name: p_vfs_read_0\nID: 9100\nformat:\n" COMMON
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\nprint fmt: \"(%lx) fd=0x%Lx\", REC->__probe_ip, REC->fd\n";

/*
 * A resolver that records its calls and answers nev events (0: fails,
 * with why), over a table of formats: the lookups delegate to it.
 */
struct fake_world {
	struct trig_events fmts;
	int calls;
	char name[256];
	int nev;
};

static int world_glob(void *ctx, const char *pattern, struct tp_name **out)
{
	struct fake_world *w = ctx;

	return w->fmts.glob(w->fmts.ctx, pattern, out);
}

static struct tp_format *world_format(void *ctx, const char *sys, const char *name)
{
	struct fake_world *w = ctx;

	return w->fmts.format(w->fmts.ctx, sys, name);
}

static void world_suggest(void *ctx, const char *bad, char *out, size_t len)
{
	struct fake_world *w = ctx;

	w->fmts.suggest(w->fmts.ctx, bad, out, len);
}

static int fake_resolve(void *ctx, const char *name, struct tp_name **out, const char **why)
{
	struct fake_world *w = ctx;

	w->calls++;
	snprintf(w->name, sizeof(w->name), "%s", name);
	*out = NULL;
	if (!w->nev) {
		*why = "no kernel function vfs_raed (did you mean vfs_read?)";
		return -ENOENT;
	}
	*out = calloc((size_t)w->nev, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (int i = 0; i < w->nev; i++) {
		snprintf((*out)[i].sys, sizeof((*out)[i].sys), "trigrec_1");
		snprintf((*out)[i].name, sizeof((*out)[i].name), "p_vfs_read_%d", i);
	}
	return w->nev;
}

/* Compile text with ev; the error (or "") in msg and its position in *pos. */
static int compile_ev(const char *text, const struct trig_events *ev, struct trig_def *d, char *msg,
		      size_t len, struct tl_pos *pos)
{
	struct tl_error e;
	int r;

	memset(&e, 0, sizeof(e));
	r = trig_from_text_with(text, ev, d, &e);
	snprintf(msg, len, "%s", r ? e.msg : "");
	*pos = e.pos;
	return r;
}

/*
 * The compiler creates no probe: a probe name reaches an event only
 * through the resolve_probe its caller gives, and without one (the default
 * lookup, tracefs read only) it is an error that says so, before tracefs
 * is read at all.
 */
TEST(probes_resolved_by_the_caller)
{
	struct tp_format *f[2] = {
		tp_format__parse("trigrec_1", "p_vfs_read_0", fmt_kprobe, sizeof(fmt_kprobe) - 1),
		tp_format__parse("trigrec_1", "p_vfs_read_1", fmt_kprobe, sizeof(fmt_kprobe) - 1),
	};
	struct trig_formats tab = { (const struct tp_format *const *)f, 2 };
	struct fake_world w = { 0 };
	struct trig_events ev;
	struct trig_def d;
	struct tl_pos pos;
	char msg[512];

	CHECK(f[0] && f[1]);
	if (!f[0] || !f[1])
		goto out;
	fake_off();
	CHECK(trig_events_default()->resolve_probe == NULL);
	CHECK_EQ(
		compile_ev("kprobe:vfs_read(fd=arg1) if fd == 3", NULL, &d, msg, sizeof(msg), &pos),
		-EINVAL);
	CHECK_STR(msg, "kprobe:vfs_read(fd=arg1) is a dynamic probe, and nothing here creates "
		       "its event: the caller must resolve probes (trig_compile_with() with a "
		       "resolve_probe)");
	CHECK_EQ(pos.line, 1);
	CHECK_EQ(pos.col, 1);
	/* Latency: the start side is looked at first, and it is the probe here. */
	trig_events_formats(&ev, &tab);
	CHECK_EQ(compile_ev("latency uprobe:/x/app:f -> trigrec_1:p_vfs_read_0 > 1ms", &ev, &d, msg,
			    sizeof(msg), &pos),
		 -EINVAL);
	CHECK(strstr(msg, "uprobe:/x/app:f is a dynamic probe") != NULL);
	CHECK_EQ(pos.col, 9);

	/* One event: the trigger reads its format, as any tracepoint's. */
	w.fmts = ev;
	ev = (struct trig_events){ .glob = world_glob,
				   .format = world_format,
				   .suggest = world_suggest,
				   .resolve_probe = fake_resolve,
				   .ctx = &w };
	w.nev = 1;
	CHECK_EQ(compile_ev("kprobe:vfs_read(fd=arg1) if fd == 3", &ev, &d, msg, sizeof(msg), &pos),
		 0);
	CHECK_STR(msg, "");
	CHECK_EQ(w.calls, 1);
	CHECK_STR(w.name, "kprobe:vfs_read(fd=arg1)");
	CHECK_STR(d.event[TRIGREC_ROLE_EVENT], "trigrec_1:p_vfs_read_0");
	CHECK_EQ(d.cfg.side[TRIGREC_ROLE_EVENT].filter.n, 1);
	CHECK_EQ(d.cfg.side[TRIGREC_ROLE_EVENT].filter.c[0].src, TRIGREC_SRC_FIELD);
	CHECK_EQ(d.cfg.side[TRIGREC_ROLE_EVENT].filter.c[0].offset, 16);
	CHECK_EQ(d.cfg.side[TRIGREC_ROLE_EVENT].filter.c[0].imm, 3);
	/* A field the probe's event lacks: the format's fields are listed, as for a tracepoint. */
	CHECK_EQ(compile_ev("kprobe:vfs_read(fd=arg1) if count == 3", &ev, &d, msg, sizeof(msg),
			    &pos),
		 -EINVAL);
	CHECK(strstr(msg, "unknown field 'count' for trigrec_1:p_vfs_read_0") != NULL);
	CHECK_EQ(pos.col, 29);
	/* Several events (a glob): stored as written, only pseudo-fields apply. */
	w.nev = 2;
	if (!compile_ev("kprobe:vfs_r* if pid == 7", &ev, &d, msg, sizeof(msg), &pos))
		CHECK_STR(d.event[TRIGREC_ROLE_EVENT], "kprobe:vfs_r*");
	else
		CHECK_STR(msg, "");
	CHECK_EQ(w.calls, 3);
	/* The resolver's failure is the error, at the probe's name. */
	w.nev = 0;
	CHECK_EQ(compile_ev("latency trigrec_1:p_vfs_read_0 -> kprobe:vfs_raed > 1ms", &ev, &d, msg,
			    sizeof(msg), &pos),
		 -EINVAL);
	CHECK_STR(msg, "no kernel function vfs_raed (did you mean vfs_read?)");
	CHECK_EQ(pos.col, 35);
	CHECK_EQ(w.calls, 4);
	/*
	 * A recording's formats (trigrec test): nothing resolved; a probe name
	 * is the events its recorder made, trigrec_PID:NAME as probes.c names
	 * them. The table has p_vfs_read_0 and _1: a kprobe on p_vfs_read_0
	 * compiles against its format, a return probe on it (…__return) and a
	 * USDT are not in the recording, and say so at the name.
	 */
	ev = (struct trig_events){ 0 };
	trig_events_formats(&ev, &tab);
	ev.probes_as_tracepoints = 1;
	if (!compile_ev("kprobe:p_vfs_read_0 if fd == 3", &ev, &d, msg, sizeof(msg), &pos))
		CHECK_STR(d.event[TRIGREC_ROLE_EVENT], "trigrec_1:p_vfs_read_0");
	else
		CHECK_STR(msg, "");
	CHECK_EQ(compile_ev("latency kprobe:p_vfs_read_0 -> kretprobe:p_vfs_read_0 > 1ms", &ev, &d,
			    msg, sizeof(msg), &pos),
		 -EINVAL);
	CHECK_STR(msg, "kretprobe:p_vfs_read_0 has no event in this recording (trigrec records it "
		       "as trigrec_PID:p_vfs_read_0__return): record it too (-e "
		       "kretprobe:p_vfs_read_0) and test a snapshot of that run; `perf script -F "
		       "event -i FILE` lists what a file has");
	CHECK_EQ(pos.col, 32);
	CHECK_EQ(compile_ev("usdt:/x/app:prov:tick", &ev, &d, msg, sizeof(msg), &pos), -EINVAL);
	CHECK(strstr(msg, "as trigrec_PID:prov__tick)") != NULL);
	CHECK_EQ(w.calls, 4);
out:
	for (int i = 0; i < 2; i++)
		tp_format__free(f[i]);
	return 0;
}

RUN_TESTS(T(list_field_use_matches_the_compiler), T(eval_matches_direct_integer),
	  T(eval_matches_direct_strings), T(eval_random_expressions), T(jump_layout),
	  T(values_and_types), T(defaults_and_options), T(event_globs), T(syntax_errors),
	  T(duration_units_as_on_the_command_line), T(semantic_errors), T(str_pointer_text),
	  T(limits), T(multiline_and_positions), T(error_format), T(parse_free_paths),
	  T(default_rate_limit), T(post_capped_at_one_hour), T(count_minimum_is_one), T(names_utf8),
	  T(default_names_from_globs), T(pathological_input), T(error_format_long_lines),
	  T(live_plain_event), T(live_sched_switch_filter), T(live_openat_count),
	  T(live_openat_str), T(live_latency_syscall), T(live_latency_runqueue),
	  T(live_latency_block), T(live_latency_offcpu), T(live_rate), T(live_errors),
	  T(cgroup_paths), T(learned_thresholds), T(probe_names_lex), T(rate_baselines),
	  T(event_condition_near_miss), T(probes_resolved_by_the_caller), T(zz_cleanup), )
