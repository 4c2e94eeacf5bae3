/* num.c - strict number parsing and round-trip formatting. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/num.h"

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* True when S holds only blanks. */
static int only_blanks(const char *s)
{
	return *skip_blanks(s) == '\0';
}

int st_num_parse_int(const char *s, int64_t *out)
{
	char *end;
	long long v;

	s = skip_blanks(s);
	if (*s == '\0')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end == '.') {
		/* "3288.0": pandas writes integer columns with NaNs as floats */
		end++;
		while (*end == '0')
			end++;
	}
	if (!only_blanks(end))
		return -1;
	*out = v;
	return 0;
}

int st_num_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	s = skip_blanks(s);
	if (*s == '\0')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE && fabs(v) > 1.0)
		return -1;
	if (end == s || !only_blanks(end) || !isfinite(v))
		return -1;
	if (strpbrk(s, "xXpP"))
		return -1;      /* strtod's hexadecimal floats are not decimal */
	*out = v;
	return 0;
}

/* Python's repr: the shortest digits that round-trip, in fixed notation for
 * exponents -4..15, scientific outside.  snprintf rounds exact ties to even,
 * so for a few powers of two (2^-24, 2^89, ...) the shortest string is missed
 * and one digit more is printed; it still reads back exactly.  Round-tripping is monotonic in the
 * precision, so the shortest one is found by bisection (about four
 * snprintf/strtod pairs instead of up to seventeen); integers, the common
 * case in timing data, take a shortcut. */
size_t st_num_format(double v, char *buf, size_t size)
{
	char tmp[40];
	int lo = 1, hi = 17, exp10, len, decimals;

	if (isnan(v))
		return (size_t)snprintf(buf, size, "nan");
	if (isinf(v))
		return (size_t)snprintf(buf, size, v < 0 ? "-inf" : "inf");
	if (fabs(v) < 1e15 && v == (double)(long long)v) {
		len = snprintf(buf, size, "%lld.0", (long long)v);
		if (v == 0 && signbit(v))
			len = snprintf(buf, size, "-0.0");
		return len < 0 ? 0 : (size_t)len;
	}
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		snprintf(tmp, sizeof(tmp), "%.*e", mid - 1, v);
		if (strtod(tmp, NULL) == v)
			hi = mid;
		else
			lo = mid + 1;
	}
	snprintf(tmp, sizeof(tmp), "%.*e", lo - 1, v);
	exp10 = atoi(strchr(tmp, 'e') + 1);
	if (exp10 < -4 || exp10 > 15)
		return (size_t)snprintf(buf, size, "%s", tmp);
	decimals = lo - 1 - exp10;
	if (decimals < 1)
		decimals = 1;
	len = snprintf(buf, size, "%.*f", decimals, v);
	return len < 0 ? 0 : (size_t)len;
}

const char *st_num_format_seconds(double v, char *buf, size_t size)
{
	/* v * 1e9 below 2^53: llround gives the exact count of ns, and one
	 * division the double nearest to that decimal */
	if (isfinite(v) && fabs(v) < 9e6)
		v = (double)llround(v * 1e9) / 1e9;
	return st_num_format_cell(v, buf, size);
}

const char *st_num_format_cell(double v, char *buf, size_t size)
{
	if (isnan(v)) {
		if (size)
			buf[0] = '\0';
	} else {
		st_num_format(v, buf, size);
	}
	return buf;
}

int st_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int st_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}
