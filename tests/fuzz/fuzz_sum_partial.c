/* libFuzzer target: the partials of `trace summary --save-partial` as
 * `trace merge` reads them (st_sum_merge_add, then st_sum_merge_finish).
 * The input is a partial's text.  When it is refused, the error must be
 * bad input data (65) or out of memory (74), with a message, and nothing
 * of it kept.  When it is taken, taking it twice must be taken too and
 * finish as once does (or fail as it does): the same processes, threads,
 * names, span and interval unions (a union with itself is itself), the
 * events and the inputs doubled.  With time bins the partials are only
 * taken, not finished: finishing bins may visit up to 10^8 of them (a
 * budget of time: seconds an input); the bins they may hold are bounded
 * (test_trace.c test_bins_long_event_refused_before_held). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/sum_partial.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	st_sum_merge one = { 0 }, two = { 0 };
	st_trace_summary a, b;
	st_error err = { 0 };
	const char *t = (const char *)data;
	int ra, rb;

	if (st_sum_merge_add(&one, t, size, "p.json", &err) < 0) {
		if ((err.code != ST_EXIT_DATAERR &&
		     err.code != ST_EXIT_IOERR) || !err.text[0] || one.o ||
		    one.state)
			abort();
		st_sum_merge_release(&one);
		return 0;
	}
	if (st_sum_merge_add(&two, t, size, "p.json", &err) < 0 ||
	    st_sum_merge_add(&two, t, size, "q.json", &err) < 0)
		abort();
	if (one.o->granularity_us > 0) {
		st_sum_merge_release(&one);
		st_sum_merge_release(&two);
		return 0;
	}
	ra = st_sum_merge_finish(&one, 10, &a, &err);
	rb = st_sum_merge_finish(&two, 10, &b, &err);
	if (ra != rb)
		abort();
	if (ra == 0 &&
	    (a.processes != b.processes || a.threads != b.threads ||
	     a.n_name != b.n_name || a.n_cat != b.n_cat ||
	     a.n_groups != b.n_groups || a.first_us != b.first_us ||
	     a.end_us != b.end_us || a.io_us != b.io_us ||
	     a.compute_us != b.compute_us ||
	     a.io_unoverlapped_us != b.io_unoverlapped_us ||
	     b.n_files != 2 * a.n_files || b.n_bad > 10 ||
	     (a.events < (UINT64_C(1) << 62) && b.events != 2 * a.events)))
		abort();
	st_trace_summary_release(&a);
	st_trace_summary_release(&b);
	st_sum_merge_release(&one);
	st_sum_merge_release(&two);
	return 0;
}
