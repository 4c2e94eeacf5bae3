/* compare_cases.h - the cases of `trace compare` (SPEC 5.12) as given,
 * --case NAME=PATH[,PATH...]: each path expanded and checked as `trace
 * summary` does (trace_inputs.h), the system-trace directories among
 * them opened as sets with their phases (trace_sets.h), the case's name
 * checked, and the st_compare_case that st_trace_compare computes set
 * from them. */
#ifndef STREAMTIME_COMPARE_CASES_H
#define STREAMTIME_COMPARE_CASES_H

#include <stdbool.h>
#include <stddef.h>

#include "streamtime/error.h"
#include "streamtime/trace_compare.h"
#include "streamtime/trace_inputs.h"
#include "streamtime/trace_sets.h"

/* A case's inputs: its name, its trace files and its system-trace sets. */
typedef struct st_compare_input {
	char *name;                  /* in the argument given (cut there) */
	struct st_trace_inputs in;
	struct st_trace_sets ts;
} st_compare_input;

/* The case ARG (NAME=PATH[,PATH...], cut in place) into CI[I], the sets
 * opened with SO and MAX_BAD, and CS[I] set from it (whatever happens):
 * name, paths, source, the phases' segments.  What the inputs are is in
 * NT (st_trace_inputs_collect; an error note there: the sets are not
 * opened and the name not checked).  The name must differ from those of
 * CI[0..I) and, with EVENTS (it names events files), have no '/' and no
 * '.' first.  Returns 0; ST_EXIT_USAGE with ERR set when ARG is not a
 * case (no '=', no name, no path, an empty path) or its name is refused;
 * -1 with ERR set when memory runs out or a set fails to open.  Release
 * CI[I] in every case. */
int st_compare_case_open(st_compare_input *ci, st_compare_case *cs, size_t i,
			 char *arg, const struct st_trace_sys_opts *so,
			 size_t max_bad, bool events, st_trace_notes *nt,
			 st_error *err);

/* The case NAME (borrowed) of the paths PATHS[0..N) into CI[I] and
 * CS[I], as st_compare_case_open (its name not a file's): a binding's
 * cases, whose paths may hold ','.  Returns 0; ST_EXIT_USAGE with ERR
 * set when NAME is empty, N is 0 or the name is given twice; -1 as
 * st_compare_case_open.  Release CI[I] in every case. */
int st_compare_case_paths(st_compare_input *ci, st_compare_case *cs,
			  size_t i, char *name, char *const *paths, size_t n,
			  const struct st_trace_sys_opts *so, size_t max_bad,
			  st_trace_notes *nt, st_error *err);

void st_compare_input_release(st_compare_input *c);

#endif
