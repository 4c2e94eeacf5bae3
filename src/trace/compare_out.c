/* compare_out.c - the inputs' notes and the table written out, for
 * `trace compare` and `trace merge` (compare_out.h). */
#include <errno.h>
#include <string.h>

#include "streamtime/atomic.h"
#include "streamtime/compare_out.h"
#include "streamtime/compare_render.h"

int st_compare_out_notes(const st_compare_case *cs, size_t n,
			 const st_systrace_list *const *sets, const char *who,
			 st_trace_notes *nt, st_error *err)
{
	for (size_t c = 0; c < n; c++) {
		if (st_trace_inputs_report(cs[c].files_in, cs[c].n_files,
					   cs[c].bad, cs[c].n_bad,
					   cs[c].bad_lines,
					   sets ? sets[c] : NULL, nt, err) < 0)
			return -1;
		if (cs[c].saturated &&
		    st_trace_notes_add(nt, ST_NOTE_WARN, 0, NULL, err,
				       "%s: case %s: a sum passed 2^63-1 and "
				       "stopped there", who, cs[c].name) < 0)
			return -1;
	}
	return 0;
}

void st_compare_out_calls(st_compare_case *cs, size_t n,
			  const st_systrace_list *const *sets)
{
	for (size_t c = 0; c < n; c++)
		for (size_t i = 0; i < cs[c].n_files; i++)
			if (st_systrace_owner(sets[c], cs[c].files_in[i].path))
				cs[c].files_in[i].not_trace = false;
}

int st_compare_out_save(const st_metrics *m, const st_compare_case *cs,
			size_t n, bool json, const char *partial_of,
			const char *out, st_error *err)
{
	st_atomic_file af = { 0 };
	int bad;

	if (st_atomic_open(&af, out, err) < 0)
		return -1;
	errno = 0;
	if (!partial_of)
		bad = st_compare_render(af.fp, m, cs, n, json ? ST_COMPARE_JSON
					: ST_COMPARE_TEXT, err) < 0;
	else if ((bad = st_compare_partial_write(af.fp, partial_of, m, cs,
						 n) < 0))
		st_error_set(err, ST_EXIT_IOERR, "%s",
			     strerror(errno ? errno : EIO));
	if (bad) {
		st_atomic_abort(&af);
		st_error_prefix(err, "cannot write %s", strcmp(out, "-") ?
				out : "to standard output");
		return -1;
	}
	return st_atomic_commit(&af, err);
}
