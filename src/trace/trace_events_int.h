/* trace_events_int.h - what trace_events.c shares with its part
 * trace_events_cols.c: the one reading loop of `trace events`, each
 * event kept given to a sink (the rows' writer, or the columns). */
#ifndef STREAMTIME_TRACE_EVENTS_INT_H
#define STREAMTIME_TRACE_EVENTS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "streamtime/trace_events.h"

/* Where the events go: READER before the first event of each input (the
 * reader's string ids start afresh), PUT for each event EV of R that the
 * filter keeps (0, -1 out of memory, -2 a write failed), FLUSH (may be
 * NULL) every 8192 rows (0, or -2). */
struct trace_events_sink {
	void (*reader)(void *ctx);
	int (*put)(void *ctx, const st_pfw_reader *r, const st_pfw_event *ev);
	int (*flush)(void *ctx);
	void *ctx;
};

/* Read PATHS[0..N) with O's filter, limit, source and max_bad, in order,
 * each into RES (zeroed, its files_in allocated for N) and each event
 * kept to SINK, until the limit (RES->limited).  0, or -1 with ERR set
 * (74: memory ran out or SINK failed, RES->write_failed for -2). */
int trace_events_read(const char *const *paths, size_t n,
		      const st_trace_events_opts *o,
		      const struct trace_events_sink *sink,
		      st_trace_events_result *res, st_error *err);

/* EV of R as the record its keys are formatted from (*E): its strings,
 * and the phase of SEG_PHASE[0..NSEG) (may be NULL) it starts in. */
void trace_events_rec(const int64_t *seg_us, size_t nseg,
		      const char *const *seg_phase, const st_pfw_reader *r,
		      const st_pfw_event *ev, st_trace_rec *e);

#endif
