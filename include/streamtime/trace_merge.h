/* trace_merge.h - the partials of `trace merge` (SPEC 5.12;
 * docs/slurm-array.md) read in turn: those of `trace compare
 * --save-partial` (trace_compare.h) or those of `trace summary
 * --save-partial` (sum_partial.h), the first saying which. */
#ifndef STREAMTIME_TRACE_MERGE_H
#define STREAMTIME_TRACE_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "streamtime/error.h"
#include "streamtime/sum_partial.h"
#include "streamtime/trace_compare.h"

/* The partials being merged: of trace compare or of trace summary. */
typedef struct st_trace_merge {
	bool summary;          /* trace summary's; else trace compare's */
	st_compare_merge cm;
	st_sum_merge sm;
} st_trace_merge;

/* Read the partials PATHS[0..N) into M (zeroed first), in turn.  The
 * first says which command's partials these are (one that names no
 * command goes to trace compare's merge, which says what is wrong with
 * it); one of the other command is an error (65) naming both.  0, or -1
 * with ERR set (66 a partial missing, 74, or the merge's error).
 * Release M in every case. */
int st_trace_merge_read(st_trace_merge *m, char *const *paths, size_t n,
			st_error *err);

void st_trace_merge_release(st_trace_merge *m);

#endif
