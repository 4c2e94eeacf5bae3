/* traceset.h - a session's trace sets summarised for its report
 * (session.h: inputs.traces).
 *
 * reproduce writes OUT/traces/trace_sets.csv, one block of rows per set:
 *
 *   set,label,role,scope,key,events,io_s,bytes,align_bound_s,
 *   cpu_busy_pct,gpu_sm_pct
 *
 * scope "total" (the set as a whole: events, I/O time as trace summary's
 * io_us, bytes), "process" (key host:pid: its events, the union of its
 * I/O calls' times, its bytes), "phase" (a system trace's
 * application phase: key its name; I/O of the events that start in it,
 * CPU busy and GPU SM means over its samples) and "system" (key the
 * directory: the bound of its clock alignment, CPU busy and GPU SM means
 * over the whole trace).  Empty cells where a value does not apply. */
#ifndef STREAMTIME_TRACESET_H
#define STREAMTIME_TRACESET_H

#include <stddef.h>
#include <stdio.h>

#include "streamtime/error.h"
#include "streamtime/systrace.h"
#include "streamtime/trace.h"

#define ST_TRACESET_HEADER "set,label,role,scope,key,events,io_s,bytes," \
	"align_bound_s,cpu_busy_pct,gpu_sm_pct\n"

/* The rows of set INDEX (LABEL, ROLE) to F: S its summary grouped by pid
 * (st_trace_opts.group "pid"; with SETS' phases as segments, SEG and NSEG
 * as st_trace_opts.seg_us, nseg), SETS its system traces (may be empty).
 * 0, or -1 with ERR set (74 writing, or a sample file that cannot be read
 * again). */
int st_traceset_write(FILE *f, size_t index, const char *label,
		      const char *role, const st_trace_summary *s,
		      const st_systrace_list *sets, const int64_t *seg,
		      size_t nseg, st_error *err);

#endif
