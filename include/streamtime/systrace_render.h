/* systrace_render.h - what `trace summary` says of system-trace sets
 * (SPEC 5.11; docs/systrace.md) besides the events, as text and as JSON:
 * per set its directory and host, the alignment of its clock to UTC, its
 * files' line counts (bad lines, latencies wrapped, paths cut at 63
 * characters, errors), its processes (children under their parents) and
 * its phases with their I/O (from a summary's segments) and CPU/GPU
 * figures.  Names are written by text.h's rule. */
#ifndef STREAMTIME_SYSTRACE_RENDER_H
#define STREAMTIME_SYSTRACE_RENDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/error.h"
#include "streamtime/sum_partial.h"
#include "streamtime/systrace.h"
#include "streamtime/trace.h"
#include "streamtime/trace_render.h"

struct json_t;

/* The sets L as the array "system" of `trace summary --json`: per set
 * {"dir", "host", "alignment", "files", "processes", "phases",
 * "instants"}, a phase's I/O from S's segments SEG[0..N).  New
 * reference; NULL when memory runs out. */
struct json_t *st_systrace_json(const st_systrace_list *l,
				const st_trace_summary *s, const int64_t *seg,
				size_t n);

/* The sets L as text to F, after the summary of `trace summary`: per
 * set a blank line, "system traces DIR on HOST", the alignment, the
 * files' table, the process tree and the phases' table (I/O from S's
 * segments SEG[0..N)).  0, or -1 with ERR set (74: out of memory; a
 * write error shows in F). */
int st_systrace_text(FILE *f, const st_systrace_list *l,
		     const st_trace_summary *s, const int64_t *seg, size_t n,
		     st_error *err);

/* The output of `trace summary` and `trace merge`: S as text or (JSON)
 * as JSON (trace_render.h, with R), the part of the sets L (may be NULL)
 * after it (the text's tables, the JSON's "system"), with R->o's
 * segments; or, P given, the partial (st_sum_partial_write) instead.
 * Written to the file OUT ("-": stdout) whole or not at all (atomic.h).
 * 0, or -1 with ERR set and nothing left behind. */
int st_systrace_render_save(const char *out, const st_trace_summary *s,
			    const st_trace_render *r, bool json,
			    const st_systrace_list *l, st_sum_partial *p,
			    st_error *err);

#endif
