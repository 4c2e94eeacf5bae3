/* zin.h - an input file's bytes, inflated when it is gzip (SPEC 5.10:
 * .pfw and .pfw.gz read alike).  Not a public interface. */
#ifndef STREAMTIME_TRACE_ZIN_H
#define STREAMTIME_TRACE_ZIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct st_zin st_zin;

/* What one read(2) asks of the file. */
#define ST_ZIN_CHUNK (256u << 10)

/* PATH ("-": a copy of standard input's descriptor) opened for reading,
 * or NULL with errno set (ENOMEM when out of memory). */
st_zin *st_zin_open(const char *path);
void st_zin_close(st_zin *z);

/* Up to N bytes of the content into BUF: their count, 0 at the clean end,
 * or -1 on an error that st_zin_error describes (each later call returns
 * -1 again; the bytes inflated before a damaged spot come first, so the
 * error may be set when a count is returned).  A file that starts with gzip's magic is one or more gzip
 * members, each checked (CRC-32 and length); bytes after a member that do
 * not start another are ignored, as zlib's gzread does.  Any other file
 * is passed through as it is. */
ssize_t st_zin_read(st_zin *z, void *buf, size_t n);

/* What went wrong: 65 (damaged gzip data, *WHAT the reason: "unexpected
 * end of file", "incorrect data check", ...) or 74 (*WHAT "read error:
 * STRERROR" or "out of memory").  0 while nothing has. */
int st_zin_error(const st_zin *z, const char **what);

/* Z's content found damaged by its reader: WHAT (copied) the reason,
 * with 65, unless Z has failed already; each later read fails. */
void st_zin_fail(st_zin *z, const char *what);

/* The bytes read from the file so far (compressed, for gzip). */
uint64_t st_zin_offset(const st_zin *z);

/* Whether the file is gzip (known after the first read). */
bool st_zin_is_gzip(const st_zin *z);

/* An access point into a gzip file (zlib's examples/zran.c): where a
 * deflate block starts, and what inflating from there needs. */
#define ST_ZIN_WINDOW 32768u

typedef struct st_zin_point {
	uint64_t bit;           /* the block's first bit, from the file's
				 * start (bit 0 the low bit of byte 0); where
				 * a member starts (out == member_out), the
				 * member's first byte's, its header read */
	uint64_t out;           /* content bytes before it */
	uint64_t member_out;    /* content bytes before its gzip member */
	uint32_t crc;           /* CRC-32 of the member's bytes before it */
	uint32_t win_len;       /* bytes of WINDOW (ST_ZIN_WINDOW at most):
				 * the content just before the point (where
				 * a member starts, its last byte only, not
				 * used to inflate) */
	const unsigned char *window;   /* borrowed */
} st_zin_point;

/* PATH (a gzip file) read from point P, or from its start when P is
 * NULL, as st_zin_open reads it: the first SKIP bytes of the content
 * after the point dropped, then at most LEN bytes given (UINT64_MAX: to
 * the end).  The member P is in has its CRC-32 and length checked at its
 * end with P's crc and member_out; and with NEXT (a later point of the
 * same file, or NULL) the content up to NEXT has NEXT's crc, checked
 * when it is read (else "incorrect data check"), so that a range that
 * stops before its member's end is checked too; when NEXT is where a
 * member starts and the content stops there, the member before is read
 * to its end, its trailer checked.  NULL with errno set as
 * st_zin_open; an error inflating up to SKIP is st_zin_read's first
 * answer. */
st_zin *st_zin_open_at(const char *path, const st_zin_point *p,
		       uint64_t skip, uint64_t len, const st_zin_point *next);

/* "ISA-L" or "zlib": what inflates. */
const char *st_zin_inflater(void);

#endif
