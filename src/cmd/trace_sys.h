/* trace_sys.h - the system-trace parts of `trace summary`'s output. */
#ifndef STREAMTIME_CMD_TRACE_SYS_H
#define STREAMTIME_CMD_TRACE_SYS_H

#include <stdio.h>

#include <jansson.h>

#include "streamtime/systrace.h"
#include "streamtime/trace.h"

/* What the summary of the sets L says besides the events: per set the
 * alignment, the files' line counts, the processes (children under their
 * parents) and the phases with their I/O (from S's segments, bounds SEG,
 * N) and CPU/GPU figures. */
/* Member KEY of O, name S (NULL: null) as st_trace_name_json gives it, and
 * KEY_hex with its bytes when it is not UTF-8. */
void trace_name_set(json_t *o, const char *key, const char *s);

json_t *trace_sys_json(const st_systrace_list *l, const st_trace_summary *s,
		       const int64_t *seg, size_t n);
void trace_sys_text(FILE *f, const st_systrace_list *l,
		    const st_trace_summary *s, const int64_t *seg, size_t n);

/* Say the sets' bad lines (the first ten, FILE:LINE) on stderr. */
void trace_sys_report(const st_systrace_list *l);

#endif
