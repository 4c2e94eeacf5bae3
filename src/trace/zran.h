/* zran.h - access points into one big .pfw.gz, so that several threads
 * read it at once (issue 27 item 2; zlib's examples/zran.c).  Not a
 * public interface.
 *
 * An index holds access points at deflate block boundaries, about SPAN
 * content bytes apart, each with the 32 KiB of content before it, and
 * the line it leads to: the first line starting at or after it, that
 * line's number, and how many of the file's M events (the hash -> name
 * maps) come before it.  The M events' lines are kept once, in file
 * order: a reader starting at a point reads them first (st_pfw_replay),
 * so its maps are those a sequential read has there, and its answers
 * are the same.  Its content is checked against the CRC-32 the next
 * point holds (zin.h), so a range of an index that is not its file's
 * fails instead of answering. */
#ifndef STREAMTIME_TRACE_ZRAN_H
#define STREAMTIME_TRACE_ZRAN_H

#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/pfw.h"

#include "zin.h"

/* The span between access points when building. */
#define ST_ZRAN_SPAN (UINT64_C(8) << 20)

typedef struct st_zran_ap {
	st_zin_point p;          /* its window owned by the index */
	uint64_t line_out;       /* the first line starting at or after it */
	uint64_t lineno;         /* lines before that one */
	uint64_t nmeta;          /* M lines before that one */
} st_zran_ap;

typedef struct st_zran_meta {
	uint64_t lineno;         /* 1-based */
	size_t off, len;         /* in the index's text */
} st_zran_meta;

typedef struct st_zran {
	st_zran_ap *ap;
	size_t n, cap;
	st_zran_meta *meta;
	size_t nmeta, metacap;
	char *text;              /* the M lines, one after another */
	size_t tlen, tcap;
	uint64_t total;          /* content bytes of the file */
	uint64_t lines;          /* its lines */
} st_zran;

/* The index of the gzip file PATH, access points SPAN content bytes
 * apart at least, built in one pass with zlib's Z_BLOCK.  New, or NULL
 * with ERR set: 65 the file is not gzip or is damaged (no index is kept
 * for it), 66 it cannot be opened, 74 a read error or out of memory. */
st_zran *st_zran_build(const char *path, uint64_t span, st_error *err);

void st_zran_free(st_zran *x);

/* X as bytes into *BUF (new), *LEN of them.  0, or -1 out of memory. */
int st_zran_encode(const st_zran *x, char **buf, size_t *len);

/* The index BUF[0..LEN) holds.  New, or NULL when it is not a whole,
 * well-formed index (or memory runs out). */
st_zran *st_zran_decode(const char *buf, size_t len);

/* X cut into at most PARTS ranges of about equal content: the access
 * points where ranges 1.. start, in CUT (room for PARTS - 1), their
 * number returned (0: one range, the whole file). */
size_t st_zran_cut(const st_zran *x, size_t parts, size_t *cut);

/* A reader of the lines of PATH (indexed as X) from access point FROM's
 * line (SIZE_MAX: the file's start) up to access point TO's line
 * (SIZE_MAX: the end), line numbers as in the whole file.  New, or NULL
 * with ERR set as st_pfw_open. */
st_pfw_reader *st_zran_open(const st_zran *x, const char *path,
			    size_t from, size_t to, st_error *err);

#endif
