/* fcache.h - a filter's answer per string id of a reader, so that a
 * single pass asks the filter once per distinct name, cat, host and file
 * of each input (trace events, trace compare).  Not a public
 * interface. */
#ifndef STREAMTIME_TRACE_FCACHE_H
#define STREAMTIME_TRACE_FCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "streamtime/pfw.h"
#include "streamtime/trace.h"

/* Per reader string id and field (name, cat, host, file): whether the
 * filter's terms on that field hold, 0 unknown, 1, -1.  Zeroed is empty;
 * one per reader (ids are the reader's). */
struct st_trace_fcache {
	int8_t *ok[4];
	size_t cap;
};

void st_trace_fcache_release(struct st_trace_fcache *c);

/* Does F let EV, an event of R, through (F NULL: yes)?  1, 0, or -1 when
 * memory runs out. */
int st_trace_fcache_keep(struct st_trace_fcache *c, const st_trace_filter *f,
			 const st_pfw_reader *r, const st_pfw_event *ev);

#endif
