// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `make man-settings`: writes the settings table's statement lines
 * (settings__man_statements()) into docs/trigrec.1, between its
 * "settings: begin" and "settings: end" comment lines.
 *   man-settings PAGE            rewrite PAGE's lines in place
 *   man-settings --check PAGE    exit 1 when PAGE's lines are not current
 * test_settings makes the same comparison, so `make check-unit` and CI fail
 * on a page that was not regenerated.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "session/settings.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len + 4096 + 1 > cap) {
			char *b = realloc(buf, cap = (cap + 4096) * 2);

			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		n = fread(buf + *len, 1, cap - *len - 1, f);
		*len += n;
		if (!n)
			break;
	}
	buf[*len] = 0;
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	int check = argc == 3 && !strcmp(argv[1], "--check");
	const char *path = argv[argc - 1];
	char *page, *gen = NULL, *b, *e;
	size_t len, glen = 0;
	FILE *f;

	if (argc != 2 + check) {
		fprintf(stderr, "usage: man-settings [--check] docs/trigrec.1\n");
		return 2;
	}
	page = slurp(path, &len);
	if (!page) {
		fprintf(stderr, "man-settings: %s: %s\n", path, strerror(errno));
		return 2;
	}
	b = strstr(page, SETTINGS_MAN_BEGIN "\n");
	e = b ? strstr(b, SETTINGS_MAN_END "\n") : NULL;
	if (!b || !e) {
		fprintf(stderr,
			"man-settings: %s has no '%s' and '%s' lines: put them where the "
			"statement list goes (SCRIPTS)\n",
			path, SETTINGS_MAN_BEGIN, SETTINGS_MAN_END);
		free(page);
		return 2;
	}
	b += strlen(SETTINGS_MAN_BEGIN "\n");
	f = open_memstream(&gen, &glen);
	if (!f) {
		free(page);
		return 2;
	}
	settings__man_statements(f);
	fclose(f);
	if ((size_t)(e - b) == glen && !memcmp(b, gen, glen)) {
		free(gen);
		free(page);
		return 0;
	}
	if (check) {
		fprintf(stderr,
			"man-settings: %s: the settings statements are not those of "
			"src/session/settings.c: run make man-settings\n",
			path);
		free(gen);
		free(page);
		return 1;
	}
	f = fopen(path, "w");
	if (!f || fwrite(page, 1, (size_t)(b - page), f) != (size_t)(b - page) ||
	    fwrite(gen, 1, glen, f) != glen || fputs(e, f) < 0 || fclose(f)) {
		fprintf(stderr, "man-settings: cannot write %s: %s\n", path, strerror(errno));
		free(gen);
		free(page);
		return 1;
	}
	printf("man-settings: %s: statement lines rewritten\n", path);
	free(gen);
	free(page);
	return 0;
}
