// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The trigger language's public face: text -> trig_def (parse, then
 * compile), and errors printed with their line and a caret.
 *
 * lexer.c (tokens) -> trigger_parse.c (AST) -> trigger_compile.c (tables).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "lang/trigger_int.h"
#include "lang/trigger_lang.h"
#include "util/util.h"

int trig_from_text_with(const char *text, const struct trig_events *ev, struct trig_def *out,
			struct tl_error *err)
{
	struct trig_ast *a = trig_parse(text, 1, 1, err);
	int ret;

	if (!a)
		return -EINVAL;
	ret = trig_compile_with(a, text, ev, out, err);
	trig_ast_free(a);
	return ret;
}

int trig_from_text(const char *text, struct trig_def *out, struct tl_error *err)
{
	return trig_from_text_with(text, NULL, out, err);
}

/*
 * A line longer than TL_ERR_LINE bytes (a 1 MB line, not a long trigger) is
 * shown as a window of TL_ERR_WINDOW bytes around the column.
 */
#define TL_ERR_LINE 1024
#define TL_ERR_WINDOW 240

void tl_error_format(const struct tl_error *e, const char *origin, const char *src, char *buf,
		     size_t len)
{
	const char *line = NULL, *eol, *b, *end, *at;
	size_t used, llen, off;
	int w, cut_l, cut_r;

	if (!buf || !len)
		return;
	w = snprintf(buf, len, "%s:%d:%d: %s", origin && *origin ? origin : "trigger", e->pos.line,
		     e->pos.col, e->msg);
	if (w < 0 || (size_t)w >= len)
		return;
	used = (size_t)w;
	if (src && e->pos.line >= 1) {
		line = src;
		for (int l = 1; l < e->pos.line && line; l++) {
			line = strchr(line, '\n');
			if (line)
				line++;
		}
	}
	if (!line)
		return;
	eol = strchr(line, '\n');
	if (!eol)
		eol = line + strlen(line);
	llen = (size_t)(eol - line);
	/* The caret's byte offset, at most one past the end of the line. */
	off = e->pos.col > 1 ? (size_t)e->pos.col - 1 : 0;
	if (off > llen)
		off = llen;
	b = line;
	end = eol;
	if (llen > TL_ERR_LINE) {
		b = line + (off > TL_ERR_WINDOW / 2 ? off - TL_ERR_WINDOW / 2 : 0);
		end = b + TL_ERR_WINDOW < eol ? b + TL_ERR_WINDOW : eol;
		/* Never split a UTF-8 character. */
		while (b > line && (*b & 0xc0) == 0x80)
			b--;
		while (end > b && end < eol && (*end & 0xc0) == 0x80)
			end--;
	}
	cut_l = b > line;
	cut_r = end < eol;
	w = snprintf(buf + used, len - used, "\n  %s%.*s%s\n  %s", cut_l ? "..." : "",
		     (int)(end - b), b, cut_r ? "..." : "", cut_l ? "   " : "");
	if (w < 0 || (size_t)w >= len - used)
		return;
	used += (size_t)w;
	/* One blank per character; tabs stay tabs so the caret lines up under them. */
	for (at = b; at < line + off && at < end && used + 2 < len; at++) {
		if ((*at & 0xc0) == 0x80)
			continue;
		buf[used++] = *at == '\t' ? '\t' : ' ';
	}
	if (used + 1 < len)
		buf[used++] = '^';
	buf[used] = '\0';
}
