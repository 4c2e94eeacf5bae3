/* num.h - strict number parsing and round-trip formatting. */
#ifndef STREAMTIME_NUM_H
#define STREAMTIME_NUM_H

#include <stddef.h>
#include <stdint.h>

/* Parse a whole decimal integer S (surrounding blanks allowed).  A float
 * spelling of an integer ("3288.0", pandas' artefact) is accepted.  Returns 0
 * or -1 for anything else (empty, junk, fraction, overflow). */
int st_num_parse_int(const char *s, int64_t *out);

/* Parse a finite decimal floating-point number S.  Returns 0 or -1. */
int st_num_parse_double(const char *s, double *out);

/* Format V with the fewest significant digits that read back to exactly V,
 * always with a decimal point or exponent ("5.0", "2.7333333333333334"), as
 * Python's repr does; "nan" and "inf" as such.  Exception: for a few exact
 * powers of two in exponent form (2^-24) one digit more than Python's is
 * written, because snprintf rounds the tie to even; the value still reads
 * back exactly.  BUF needs 32 bytes. */
size_t st_num_format(double v, char *buf, size_t size);

/* V as a CSV cell: st_num_format's text, or the empty cell for NaN (a
 * statistic a group does not define, as pandas writes it).  Returns BUF,
 * which needs 32 bytes. */
const char *st_num_format_cell(double v, char *buf, size_t size);

/* As st_num_format_cell for a number of seconds derived from nanosecond
 * stamps (a duration, a mean, a quantile, a difference of them): rounded
 * to the nanosecond first, so that no floating-point noise of the
 * arithmetic is written ("46.5", not "46.50000000000001"; at most 9
 * decimals).  Beyond 9e6 s (where a double holds no nanoseconds) as
 * st_num_format_cell.  Returns BUF (32 bytes). */
const char *st_num_format_seconds(double v, char *buf, size_t size);

/* A / B rounded toward minus infinity (B != 0): -7 / 2 is -4, not C's -3;
 * what bucketing signed times and calendar eras need. */
static inline int64_t st_floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* qsort/bsearch comparators for int64_t and double: -1, 0 or 1.  For
 * doubles a NaN compares equal to everything (callers sort finite values). */
int st_cmp_i64(const void *a, const void *b);
int st_cmp_double(const void *a, const void *b);

/* Three-way comparison of two numbers of the same type: -1, 0 or 1. */
#define ST_CMP(x, y) (((x) > (y)) - ((x) < (y)))

#endif
