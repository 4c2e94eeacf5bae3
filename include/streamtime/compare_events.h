/* compare_events.h - the events files of `trace compare` (SPEC 5.12):
 * each metric with "events" writes the events it selects in each case to
 * DIR/CASE.METRIC.csv (or .jsonl), each file whole or not at all,
 * published with the table. */
#ifndef STREAMTIME_COMPARE_EVENTS_H
#define STREAMTIME_COMPARE_EVENTS_H

#include <stddef.h>

#include "streamtime/atomic.h"
#include "streamtime/error.h"
#include "streamtime/trace_compare.h"

/* The events files open: AF[case * metrics + metric] (owned), the
 * others' entries unused. */
typedef struct st_compare_events {
	st_atomic_file *af;
} st_compare_events;

/* Open the events files of CS[0..N) for the events metrics of M in DIR
 * (NULL: none, then 0 and nothing done) for atomic writing, each case's
 * events_out (new) pointing at their streams.  0, or -1 with ERR (74 out
 * of memory, or st_atomic_open's error), then none is left open. */
int st_compare_events_open(st_compare_events *ev, st_compare_case *cs,
			   size_t n, const st_metrics *m, const char *dir,
			   st_error *err);

/* Close the events files EV of CS[0..N) (of metrics M), releasing the
 * cases' events_out: into SET (prepared, to commit with the table) or,
 * SET NULL, dropped.  0, or -1 with ERR (74; all then dropped and SET
 * aborted). */
int st_compare_events_close(st_compare_events *ev, st_compare_case *cs,
			    size_t n, const st_metrics *m, st_atomic_set *set,
			    st_error *err);

#endif
