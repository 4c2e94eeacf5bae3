/* reproduce_traces.h - the trace sets of a session in reproduce's
 * output set (reproduce_traces.c). */
#ifndef STREAMTIME_CMD_REPRODUCE_TRACES_H
#define STREAMTIME_CMD_REPRODUCE_TRACES_H

#include "streamtime/clockfix.h"
#include "streamtime/session.h"
#include "streamtime/timeline.h"
#include "streamtime/trace.h"
#include "streamtime/trace_timeline.h"

/* Every trace set of S summarised into PATH (traceset.h's rows),
 * atomically.  A set that cannot be read (missing, damaged, not a trace)
 * is said on stderr, and -1 comes back with ERR set to its exit status. */
int st_reproduce_trace_rows(const st_session *s, const char *path,
			    st_error *err);

/* One Chrome trace OUT of every trace set of S, with the experiment's
 * stages TIN after them, on one UTC axis; OFFSETS (may be NULL) move each
 * host's events to the reference clock.  0, or -1 with ERR set. */
int st_reproduce_trace_timeline(const st_session *s, const char *out,
				const st_timeline_input *tin,
				const st_clock_offsets *offsets,
				st_trace_timeline_counts *c, st_log *log,
				st_error *err);

#endif
