/* libFuzzer target: --filter expressions (trace.h), which also come from
 * outside in `trace compare`'s metrics files.  The input is
 * "EXPR\nVALUE": when EXPR parses, every field's check on VALUE and the
 * numbers' check must answer without reading outside VALUE, and a
 * negated copy of a one-term filter must answer the opposite (an event
 * with the field).
 *
 * Each regular-expression term (=~) is also asked of names made from
 * VALUE and from the expression's own bytes, and its answer compared with
 * glibc's regexec of the expression as written, unanchored (the filter
 * searches an anchored rewrite of it, filter.c regex_anchored): the two
 * must agree on every name up to SHORT bytes.  A long name (VALUE
 * repeated to LONG bytes) must be answered too, within libFuzzer's
 * -timeout: the filter's search is linear in the name.  A regular
 * expression may fail only for memory (74), never silently. */
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/trace.h"

#define SHORT 96
#define LONG (16u << 10)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The answer of one-term filter T (an =~ term on name, cat, host or file)
 * for S[0..N) against regexec of the expression as written. */
static void check_regex(st_trace_term *t, const char *s, size_t n)
{
	st_trace_filter one = { .v = t, .n = 1 };
	st_error err;
	regex_t raw;
	char *z;
	int m, want;

	m = st_trace_filter_field(&one, t->field, s, n, &err);
	if (m < 0) {
		if (err.code != ST_EXIT_IOERR)
			abort();
		return;
	}
	if (n > SHORT || regcomp(&raw, t->value, REG_EXTENDED | REG_NOSUB))
		return;
	if ((z = malloc(n + 1))) {
		memcpy(z, s, n);
		z[n] = '\0';
		want = regexec(&raw, z, 0, NULL, 0) == 0;
		if ((m == 1) != (want != (int)t->neg))
			abort();
		free(z);
	}
	regfree(&raw);
}

/* Names for T from VAL[0..VL): VAL, VAL twice, the expression's bytes,
 * and VAL repeated to LONG bytes. */
static void regex_names(st_trace_term *t, const char *val, size_t vl)
{
	size_t el = strlen(t->value);
	char *b = malloc(LONG);

	check_regex(t, val, vl);
	check_regex(t, t->value, el);
	if (!b)
		return;
	if (vl && vl <= SHORT / 2) {
		memcpy(b, val, vl);
		memcpy(b + vl, val, vl);
		check_regex(t, b, 2 * vl);
	}
	if (vl) {
		for (size_t k = 0; k < LONG; k += vl)
			memcpy(b + k, val, LONG - k < vl ? LONG - k : vl);
		check_regex(t, b, LONG);
	}
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	size_t el = nl ? (size_t)(nl - (const char *)data) : size;
	size_t vl = nl ? size - el - 1 : 0;
	char *expr = malloc(el + 1), *val = malloc(vl ? vl : 1);
	st_trace_filter f = { 0 };

	if (!expr || !val)
		goto out;
	memcpy(expr, data, el);
	expr[el] = '\0';
	memcpy(val, nl ? nl + 1 : "", vl);
	if (strlen(expr) != el || st_trace_filter_parse(&f, expr, NULL) < 0)
		goto out;
	for (int k = ST_TRACE_NAME; k <= ST_TRACE_FILE; k++) {
		int a = st_trace_filter_field(&f, (enum st_trace_field)k, val,
					      vl, NULL);

		if (a >= 0 && f.n == 1 &&
		    f.v[0].field == (enum st_trace_field)k) {
			f.v[0].neg = !f.v[0].neg;
			if (st_trace_filter_field(&f, (enum st_trace_field)k,
						  val, vl, NULL) == a)
				abort();
			f.v[0].neg = !f.v[0].neg;
		}
	}
	for (size_t i = 0; i < f.n; i++)
		if (f.v[i].op == ST_TRACE_REGEX &&
		    f.v[i].field <= ST_TRACE_FILE)
			regex_names(&f.v[i], val, vl);
	(void)st_trace_filter_nums(&f, (int64_t)vl, 1, INT64_MIN, INT64_MAX,
				   vl ? (int64_t)val[0] : -1);
out:
	st_trace_filter_release(&f);
	free(expr);
	free(val);
	return 0;
}
