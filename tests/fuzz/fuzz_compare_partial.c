/* libFuzzer target: the partials of `trace compare --save-partial` as
 * `trace merge` reads them (st_compare_merge_add).  The input is a
 * partial's text.  When it is refused, the error must be bad input data
 * (65) or out of memory (74), with a message, and nothing of it kept.
 * When it is taken, taking it a second time must be taken too, with every
 * case's files doubled, the same keys per metric, the same max and min,
 * and the sums doubled (unless a sum stopped at INT64_MAX). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/trace_compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	st_compare_merge one = { 0 }, two = { 0 };
	st_error err = { 0 };
	const char *t = (const char *)data;

	if (st_compare_merge_add(&one, t, size, "p.json", &err) < 0) {
		if ((err.code != ST_EXIT_DATAERR &&
		     err.code != ST_EXIT_IOERR) || !err.text[0] || one.n)
			abort();
		st_compare_merge_release(&one);
		return 0;
	}
	if (st_compare_merge_add(&two, t, size, "p.json", &err) < 0 ||
	    st_compare_merge_add(&two, t, size, "q.json", &err) < 0 ||
	    st_compare_merge_finish(&one, 10, &err) < 0 ||
	    st_compare_merge_finish(&two, 10, &err) < 0 || one.n != two.n)
		abort();
	for (size_t c = 0; c < one.n; c++) {
		const st_compare_case *a = &one.cases[c], *b = &two.cases[c];

		if (strcmp(a->name, b->name) != 0 ||
		    b->n_files != 2 * a->n_files || b->n_bad > 10)
			abort();
		for (size_t i = 0; i < one.m.n; i++) {
			const st_metric_result *x = &a->res[i], *y = &b->res[i];
			enum st_metric_reduce r = one.m.v[i].reduce;

			if (x->has != y->has || x->keys != y->keys)
				abort();
			if (x->has && (r == ST_REDUCE_MAX || r == ST_REDUCE_MIN) &&
			    !b->saturated && x->v * 2 != y->v)
				abort();
			if (x->has && r == ST_REDUCE_SUM && !b->saturated &&
			    x->v < INT64_MAX / 4 && x->v > INT64_MIN / 4 &&
			    2 * x->v != y->v)
				abort();
		}
	}
	st_compare_merge_release(&one);
	st_compare_merge_release(&two);
	return 0;
}
