/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the trigger language's parser (trigger_parse.c) hands its compiler
 * (trigger_compile.c): the AST. Only those two and trigger_lang.c include
 * this; everything else uses lang/trigger_lang.h.
 */
#ifndef TRIGREC_TRIGGER_INT_H
#define TRIGREC_TRIGGER_INT_H
#include <stdint.h>
#include "lang/lexer.h"
#include "lang/trigger_lang.h"

enum nkind { N_CMP = 1, N_AND, N_OR, N_NOT };
enum vkind { V_INT = 1, V_STR, V_WORD };

struct tl_node {
	enum nkind kind;
	struct tl_node *l, *r; /* N_AND, N_OR: both; N_NOT: l */
	/* N_CMP */
	char field[64];
	struct tl_pos field_pos;
	int strfn;		 /* str(field): the text behind a pointer field */
	struct tl_pos strfn_pos; /* of the word `str` */
	enum lex_punct op;
	struct tl_pos op_pos;
	int ntilde; /* written !~ (op is P_TILDE under an N_NOT) */
	enum vkind vk;
	uint64_t mag; /* V_INT: magnitude */
	int neg;      /* V_INT: negative */
	int hex;      /* V_INT: written in 0x hex */
	char *sval;   /* V_STR, V_WORD */
	struct tl_pos val_pos;
};

struct tl_key {
	int given;
	int n;
	char name[TRIGREC_MAX_KEY_PARTS][64];
	struct tl_pos pos[TRIGREC_MAX_KEY_PARTS];
	int strfn[TRIGREC_MAX_KEY_PARTS]; /* written str(name): refused by compile_key */
	struct tl_pos by_pos;
};

struct tl_side {
	char event[200];
	struct tl_pos event_pos;
	struct tl_node *filter;
	struct tl_key key;
};

struct trig_ast {
	enum trigrec_trigger_kind kind;
	struct tl_pos kind_pos;
	struct tl_side side[2]; /* [TRIGREC_ROLE_EVENT], [TRIGREC_ROLE_START] */
	struct tl_node *both;	/* LATENCY: the filter after the threshold */
	uint64_t threshold;	/* count N, latency ns, rate N */
	uint64_t window_ns;	/* RATE */
	/* LATENCY `> pNN[.N] [* M] [after N samples]`: a learned threshold (learn_pct != 0). */
	uint32_t learn_pct, learn_mult;
	uint64_t learn_after;
	int has_after;
	struct tl_pos after_pos;
	/* RATE `> Nx baseline [per T] [after N windows]`: learn_mult is N x 100. */
	int baseline;
	int has_post, has_cooldown, has_key_cooldown, has_limit, has_max, has_name, has_where;
	struct tl_pos opt_pos[7];
	int manual; /* `manual`: no event, taken on request */
	uint64_t post_ns, cooldown_ns, key_cooldown_ns, limit, limit_period_ns, max_total;
	char name[64];
};

/* Options, in the order of trig_ast.opt_pos[]. */
enum { O_POST, O_COOLDOWN, O_KEY_COOLDOWN, O_LIMIT, O_MAX, O_NAME, O_WHERE };

#endif /* TRIGREC_TRIGGER_INT_H */
