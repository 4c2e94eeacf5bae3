/* compare_out.h - what `trace compare` and `trace merge` share: the
 * report on the inputs and the table written out (rendered by
 * compare_render.h, published whole or not at all). */
#ifndef STREAMTIME_CMD_COMPARE_OUT_H
#define STREAMTIME_CMD_COMPARE_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "streamtime/systrace.h"
#include "streamtime/trace_compare.h"

/* Say what became of the inputs of CS[0..N) (SETS[c] the system-trace
 * sets of case c; SETS may be NULL) as WHO, as `trace compare` does.
 * Returns the exit status, 0 when every input was a trace. */
int st_compare_report(const st_compare_case *cs, size_t n,
		      const st_systrace_list *const *sets, const char *who);

/* Write the table of metrics M over CS[0..N) (text, or JSON) to OUT
 * whole or not at all; with PARTIAL_OF (the metrics file's text) the
 * partial instead.  Returns the exit status. */
int st_compare_emit(const st_metrics *m, const st_compare_case *cs, size_t n,
		    bool json, const char *partial_of, const char *out);

#endif
