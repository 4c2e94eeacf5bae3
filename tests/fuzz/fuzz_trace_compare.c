/* libFuzzer target: trace compare's metrics files (trace_compare.h).  The
 * input is the file's text.  When it is taken, every metric must hold
 * what the parser promises (a non-empty name unique in the file, a value
 * and a reduce of their words, 'reduce' given whenever 'per' is, keys
 * within ST_TRACE_KEYS_MAX, by and per together too; an events metric's
 * name a file name and its derived columns not columns); when it is
 * refused, the error must be a bad configuration (78) or out of memory
 * (74), with a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/trace_compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	st_metrics m;
	st_error err = { 0 };

	if (st_metrics_parse(&m, (const char *)data, size, "fuzz.json",
			     &err) < 0) {
		if ((err.code != ST_EXIT_CONFIG && err.code != ST_EXIT_IOERR) ||
		    !err.text[0])
			abort();
		st_metrics_release(&m);
		return 0;
	}
	if (!m.n)
		abort();
	for (size_t i = 0; i < m.n; i++) {
		const st_metric *x = &m.v[i];

		if (!x->name || !x->name[0] || x->value > ST_METRIC_COUNT ||
		    x->reduce > ST_REDUCE_MEAN ||
		    x->per.n > ST_TRACE_KEYS_MAX ||
		    !st_metric_value_name(x->value) ||
		    !st_metric_reduce_name(x->reduce))
			abort();
		for (size_t j = 0; j < i; j++)
			if (strcmp(m.v[j].name, x->name) == 0)
				abort();
		/* by: within the keys' room with per; events: a name that
		 * names a file, derived columns that are not columns */
		if (x->by.n + x->per.n > ST_TRACE_KEYS_MAX ||
		    (!x->events && x->cols.n) ||
		    (x->events && (strchr(x->name, '/') || x->name[0] == '.')))
			abort();
		for (size_t j = 0; j < x->cols.n; j++)
			if (st_trace_events_key_is_column(&x->cols.v[j]))
				abort();
	}
	st_metrics_release(&m);
	return 0;
}
