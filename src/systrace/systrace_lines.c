/* systrace_lines.c - a system-trace file read line by line, and a
 * bpftrace call file call by call (systrace_int.h): below the set
 * (systrace.c) and the readers that take its calls (systrace_paths.c,
 * systrace_strace.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "systrace_int.h"

int sys_each_line(const char *path, sys_line_fn fn, void *ctx,
		  st_error *err)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	uint64_t no = 0;
	int rc = 0;

	if (!f)
		return st_error_set(err, ST_EXIT_NOINPUT, "cannot read %s: %s",
				    path, strerror(errno));
	while ((n = getline(&line, &cap, f)) >= 0) {
		size_t len = (size_t)n;

		if (len && line[len - 1] == '\n')
			len--;
		if (len && line[len - 1] == '\r')
			len--;
		if ((rc = fn(ctx, line, len, ++no, err)) < 0)
			break;
	}
	if (rc == 0 && ferror(f))
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot read %s: %s",
				  path, strerror(errno));
	free(line);
	fclose(f);
	return rc;
}

struct calls_ctx {
	bool (*pre)(const st_sys_header *h, const char *line, size_t len);
	sys_call_fn fn;
	void *ctx;
	uint64_t bad;
	st_sys_header h;
	bool have_h;
};

static int calls_line(void *ctx, const char *line, size_t len, uint64_t no,
		      st_error *err)
{
	struct calls_ctx *c = ctx;
	st_sys_call k;
	const char *why;

	(void)no;
	if (len >= 9 && memcmp(line, "TIMESTAMP", 9) == 0) {
		c->have_h = st_sys_header_parse(line, len, &c->h) == 1;
		return 0;
	}
	if (!c->have_h || len == 0 || (c->pre && !c->pre(&c->h, line, len)))
		return 0;
	if (st_sys_call_parse(&c->h, line, len, &k, &why) < 0) {
		c->bad++;
		return 0;
	}
	return c->fn(c->ctx, &k, err);
}

int sys_each_call(const char *path,
		  bool (*pre)(const st_sys_header *h, const char *line,
			      size_t len),
		  sys_call_fn fn, void *ctx, uint64_t *bad, st_error *err)
{
	struct calls_ctx c = { .pre = pre, .fn = fn, .ctx = ctx };
	int rc = sys_each_line(path, calls_line, &c, err);

	if (bad)
		*bad = c.bad;
	return rc;
}
