/* csv.h - RFC 4180 tables read through libcsv, columns found by header name.
 *
 * A st_table holds a whole file in memory: the header, then every record as
 * ncols strings.  Each record remembers its line, so errors can name
 * "file:line".  Quoted fields may hold commas, quotes and newlines.
 */
#ifndef STREAMTIME_CSV_H
#define STREAMTIME_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/error.h"
#include "streamtime/file.h"

typedef struct st_table {
	char *name;        /* file name used in messages (owned) */
	size_t ncols;
	char **header;     /* ncols names (owned, in the arena) */
	size_t nrows;
	char **cells;      /* nrows * ncols pointers, row-major (owned) */
	size_t *lines;     /* line where each record ends (its line, unless a
			      quoted field spans lines) */
	/* private */
	char **block;      /* header followed by cells, one allocation */
	char *arena;
	size_t arena_len, arena_cap;
	size_t cells_cap;
} st_table;

/* Set T to an empty table (no allocation). */
void st_table_init(st_table *t);

/* Free what T holds and reset it.  NULL is accepted. */
void st_table_release(st_table *t);

/* Read the CSV file PATH ("-" is stdin) into T (which must be initialised).
 * The first record is the header.  Errors (ERR set, -1 returned):
 *   66  the file is missing or unreadable,
 *   65  the file is empty (no header), a record has a different number of
 *       fields than the header (named by line), the CSV is malformed, or
 *       it holds a NUL byte (named by line). */
int st_table_read(st_table *t, const char *path, st_error *err);

/* Text input holds no NUL byte: C strings would end there and silently cut
 * a value short.  Returns 0, or -1 with error 65 "NAME:LINE: a NUL byte"
 * (LINE of the first one). */
int st_text_check_nul(const char *name, const char *buf, size_t len,
		      st_error *err);

/* Like st_table_read, from memory; NAME is used in messages.  A NUL byte
 * anywhere is error 65 naming the line (st_text_check_nul). */
int st_table_parse(st_table *t, const char *name, const char *buf, size_t len,
		   st_error *err);

/* Flags of st_table_parse_ex. */
enum {
	/* Send every line through libcsv.  By default a line without quotes
	 * or stray CRs is split by hand with libcsv's rules (blanks around
	 * fields trimmed, blank lines skipped), which is several times
	 * faster; the tests parse with and without this flag and compare. */
	ST_CSV_LIBCSV_ONLY = 1,
};

int st_table_parse_ex(st_table *t, const char *name, const char *buf,
		      size_t len, unsigned flags, st_error *err);

/* Index of column NAME, or -1. */
int st_table_col(const st_table *t, const char *name);

/* Find the N columns NAMES; fill IDX.  A missing column is error 65 naming
 * the file and the column. */
int st_table_require(const st_table *t, const char *const names[], int idx[],
		     size_t n, st_error *err);

/* Cell (ROW, COL), borrowed from T. */
static inline const char *st_table_get(const st_table *t, size_t row, int col)
{
	return t->cells[row * t->ncols + (size_t)col];
}

/* Set ERR to "FILE:LINE: column 'NAME': WHAT" (code 65) for cell (ROW,
 * COL), so every message about a bad value says where it is.  Returns -1. */
int st_table_cell_error(const st_table *t, size_t row, int col,
			const char *what, st_error *err);

/* Cell (ROW, COL) as an integer (st_num_parse_int) or a finite decimal
 * number; anything else is st_table_cell_error. */
int st_table_get_int(const st_table *t, size_t row, int col, int64_t *out,
		     st_error *err);
int st_table_get_double(const st_table *t, size_t row, int col, double *out,
			st_error *err);

struct st_tz;

/* Cell (ROW, COL) as an instant (st_time_parse; naive times in TZ, NULL:
 * UTC); anything else is st_table_cell_error. */
int st_table_get_time(const st_table *t, size_t row, int col,
		      const struct st_tz *tz, int64_t *out, st_error *err);

/* Is S a time sacct leaves unset: empty, "Unknown" or "None"? */
bool st_time_unset(const char *s);

/* Write one CSV record of N fields to F, quoting a field only when it holds a
 * comma, quote, CR or LF, or starts or ends with a blank (which the reader
 * would trim); quotes are doubled; terminated by "\n".  A NULL field is
 * written empty.  Returns 0 or -1 (errno set) on a write error. */
int st_csv_write_row(FILE *f, size_t n, const char *const fields[]);

/* Does st_csv_write_row quote the field S[0..LEN) (a comma, quote, CR or
 * LF in it, or a blank at either end)? */
bool st_csv_quote_needed(const char *s, size_t len);

#endif
