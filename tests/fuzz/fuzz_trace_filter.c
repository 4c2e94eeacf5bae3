/* libFuzzer target: --filter expressions (trace.h), which also come from
 * outside in `trace compare`'s metrics files.  The input is
 * "EXPR\nVALUE": when EXPR parses, every field's check on VALUE and the
 * numbers' check must answer without reading outside VALUE, and a
 * negated copy of a one-term filter must answer the opposite (an event
 * with the field). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
		bool a = st_trace_filter_field(&f, (enum st_trace_field)k, val,
					       vl);

		if (f.n == 1 && f.v[0].field == (enum st_trace_field)k) {
			f.v[0].neg = !f.v[0].neg;
			if (st_trace_filter_field(&f, (enum st_trace_field)k,
						  val, vl) == a)
				abort();
			f.v[0].neg = !f.v[0].neg;
		}
	}
	(void)st_trace_filter_nums(&f, (int64_t)vl, 1, INT64_MIN, INT64_MAX,
				   vl ? (int64_t)val[0] : -1);
out:
	st_trace_filter_release(&f);
	free(expr);
	free(val);
	return 0;
}
