/* compare_out.h - what `trace compare` and `trace merge` share once the
 * cases are computed: what became of their inputs, as notes
 * (trace_inputs.h) that the command says, and the table (rendered by
 * compare_render.h) or the partial written to a file whole or not at all
 * (atomic.h). */
#ifndef STREAMTIME_COMPARE_OUT_H
#define STREAMTIME_COMPARE_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "streamtime/error.h"
#include "streamtime/systrace.h"
#include "streamtime/trace_compare.h"
#include "streamtime/trace_inputs.h"

/* What became of the inputs of CS[0..N) (SETS[c] the system-trace sets
 * of case c; SETS may be NULL) into NT, case by case: the notes of
 * st_trace_inputs_report, then a warning "WHO: case NAME: a sum passed
 * 2^63-1 and stopped there" when the case's sums saturated.  Their
 * status (st_trace_notes_status) is the command's.  0, or -1 with ERR
 * set (74) when memory runs out. */
int st_compare_out_notes(const st_compare_case *cs, size_t n,
			 const st_systrace_list *const *sets, const char *who,
			 st_trace_notes *nt, st_error *err);

/* The call files of each case's system-trace sets SETS[c] are traces to
 * a partial (which does not know the sets): their files_in in CS[0..N)
 * no longer say "not a trace" (an empty call file has no calls). */
void st_compare_out_calls(st_compare_case *cs, size_t n,
			  const st_systrace_list *const *sets);

/* Write the table of metrics M over CS[0..N) (text, or JSON) to OUT
 * ("-": stdout) whole or not at all; with PARTIAL_OF (the metrics file's
 * text) the partial instead.  0, or -1 with ERR set ("cannot write OUT:
 * REASON", or atomic.h's error) and nothing left behind. */
int st_compare_out_save(const st_metrics *m, const st_compare_case *cs,
			size_t n, bool json, const char *partial_of,
			const char *out, st_error *err);

#endif
