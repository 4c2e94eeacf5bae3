/* outbuf.h - buffered output of many small pieces to a stdio stream, with
 * its own 64 KiB buffer and one sticky failure flag: millions of short
 * writes (trace events) at memcpy speed.  The small writers are inline.
 */
#ifndef STREAMTIME_OUTBUF_H
#define STREAMTIME_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct st_outbuf {
	FILE *f;
	size_t n;
	bool failed;              /* a write to f failed: check at the end */
	char b[1 << 16];
} st_outbuf;

/* Start writing to F (borrowed; not closed). */
void st_outbuf_init(st_outbuf *o, FILE *f);

/* Write out what the buffer holds (no fflush of the stream). */
void st_outbuf_flush(st_outbuf *o);

/* st_outbuf_put when the buffer lacks room for LEN bytes: flush it,
 * then buffer them, or write them straight when they are longer. */
void st_outbuf_put_slow(st_outbuf *o, const char *s, size_t len);

/* S as a JSON string literal: quotes, backslashes and control characters
 * escaped, other bytes as they are; S not UTF-8: its escaped text
 * (text.h), so that the output is valid JSON whatever S holds. */
void st_outbuf_json(st_outbuf *o, const char *s, size_t len);

static inline void st_outbuf_put(st_outbuf *o, const char *s, size_t len)
{
	if (len > sizeof(o->b) - o->n) {
		st_outbuf_put_slow(o, s, len);
		return;
	}
	memcpy(o->b + o->n, s, len);
	o->n += len;
}

static inline void st_outbuf_str(st_outbuf *o, const char *s)
{
	st_outbuf_put(o, s, strlen(s));
}

/* V in decimal. */
static inline void st_outbuf_int(st_outbuf *o, int64_t v)
{
	char t[24], *p = t + sizeof(t);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	st_outbuf_put(o, p, (size_t)(t + sizeof(t) - p));
}

#endif
