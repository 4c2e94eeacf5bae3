/* trace_merge.c - the partials of `trace merge` read (trace_merge.h). */
#include <stdlib.h>
#include <string.h>

#include "streamtime/file.h"
#include "streamtime/trace_merge.h"

static const char *const kinds[] = { "trace compare", "trace summary" };

/* Partial TEXT[0..LEN), PATHS[I], into M; PATHS[0] the first.  0, or -1
 * with ERR set. */
static int merge_add(st_trace_merge *m, char *const *paths, size_t i,
		     const char *text, size_t len, st_error *err)
{
	char buf[32];
	const char *c = st_partial_command(text, len, buf, sizeof(buf));
	int k = -1;

	for (int j = 0; c && j < 2; j++)
		if (strcmp(c, kinds[j]) == 0)
			k = j;
	if (i == 0)
		m->summary = k == 1;
	else if (k >= 0 && k != m->summary)
		return st_error_set(err, ST_EXIT_DATAERR, "trace merge: %s is "
				    "a partial of %s and %s one of %s: they "
				    "do not merge", paths[i], kinds[k],
				    paths[0], kinds[m->summary]);
	return m->summary ? st_sum_merge_add(&m->sm, text, len, paths[i], err)
			  : st_compare_merge_add(&m->cm, text, len, paths[i],
						 err);
}

int st_trace_merge_read(st_trace_merge *m, char *const *paths, size_t n,
			st_error *err)
{
	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < n; i++) {
		size_t len;
		char *text = st_file_read(paths[i], &len, err);
		int rc = text ? merge_add(m, paths, i, text, len, err) : -1;

		free(text);
		if (rc < 0)
			return -1;
	}
	return 0;
}

void st_trace_merge_release(st_trace_merge *m)
{
	st_compare_merge_release(&m->cm);
	st_sum_merge_release(&m->sm);
}
