/* buf.h - a test's growing byte buffer, and writing one as a file of the
 * test's temporary directory (tmpdir.h, included before this). */
#ifndef STREAMTIME_TEST_BUF_H
#define STREAMTIME_TEST_BUF_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	unsigned char *p;
	size_t n, cap;
};

static void buf_add(struct buf *b, const void *p, size_t n)
{
	if (!n)
		return;
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

/* B as the file NAME of the temporary directory: its path (static, until
 * the next call). */
static char *put(const char *name, const struct buf *b)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	if (b->n)   /* an empty buf has no bytes, p may be NULL */
		assert_int_equal(fwrite(b->p, 1, b->n, f), b->n);
	assert_int_equal(fclose(f), 0);
	return path;
}

#endif
