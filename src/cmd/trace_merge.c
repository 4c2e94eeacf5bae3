/* trace_merge.c - `streamtime trace merge` (SPEC 5.12, issue 16 item 5):
 * the partials of `trace compare --save-partial` into the table one
 * process gives over all their inputs, or those of `trace summary
 * --save-partial` into its summary. */
#include <string.h>

#include "cmd.h"
#include "trace_inputs.h"
#include "streamtime/compare_out.h"
#include "streamtime/sum_partial.h"
#include "streamtime/trace.h"
#include "streamtime/trace_compare.h"
#include "streamtime/trace_merge.h"
#include "streamtime/trace_render.h"

static const struct st_cmd_desc merge_desc = {
	.path = "streamtime trace merge",
	ST_DESC_ARGS_ANY("PARTIAL...", "no partial given", ST_COMPLETE_FILE),
	.description =
	"Combine the partials written by `trace compare --save-partial` into\n"
	"exactly the table (or --json) `trace compare` gives over all their\n"
	"inputs: cases are matched by name (a case split across partials is\n"
	"merged), the per-key sums added and then reduced.  Partials of\n"
	"`trace summary --save-partial` give exactly the summary (text or\n"
	"--json) one `trace summary` gives over all their inputs: counts,\n"
	"sums, maxima, each process's interval unions, exact quartiles,\n"
	"groups, bins.  The inputs' corrupt lines and errors are reported as\n"
	"one process would.  Every partial must come from the same command\n"
	"and the same metrics file or summary options.  This is the reduce\n"
	"step of a Slurm job array (docs/slurm-array.md).\n",
	.epilogue =
	"Exit 0; 65 a partial that is not one (not JSON, truncated, another\n"
	"version, other metrics or summary options than the first partial's,\n"
	"or a partial of the other command: naming both), or an input the\n"
	"partials record as not a trace or damaged; 66 a partial missing; 64\n"
	"too many time bins; 74 a read or write error.  Whenever the exit is\n"
	"not 0, --out FILE is left as it was.\n",
};

/* The merged summary of M to OUT.  The exit status. */
static int emit_summary(st_trace_merge *m, bool json, const char *out)
{
	st_trace_summary s = { 0 };
	st_error err;
	int rc;

	if (st_sum_merge_finish(&m->sm, st_verbosity > 0 ? 1000 : 10, &s,
				&err) < 0)
		rc = st_msg_fail(&err);
	else
		rc = trace_summary_emit("trace merge", &s, &(st_trace_render){
			m->sm.o, m->sm.group, m->sm.per }, json, NULL, NULL,
			out);
	st_trace_summary_release(&s);
	return rc;
}

/* The merged table of M to OUT.  The exit status. */
static int emit_compare(st_trace_merge *m, bool json, const char *out)
{
	st_trace_notes nt = { 0 };
	st_error err;
	int rc;

	if (st_compare_merge_finish(&m->cm, st_verbosity > 0 ? 1000 : 10,
				    &err) < 0)
		return st_msg_fail(&err);
	if ((rc = trace_notes_said(&nt, st_compare_out_notes(m->cm.cases,
			m->cm.n, NULL, "trace merge", &nt, &err), &err))) {
		if (strcmp(out, "-") != 0)
			st_msg_error("trace merge: nothing written (%s is "
				     "left as it was)", out);
		return rc;
	}
	if (st_compare_out_save(&m->cm.m, m->cm.cases, m->cm.n, json, NULL, out,
				&err) < 0)
		return st_msg_fail(&err);
	return st_finish_stdout(0);
}

int cmd_trace_merge(int argc, char **argv)
{
	const char *out = "-";
	bool json = false;
	const struct st_option opts[] = {
		{ ST_O("json", 0, ST_OPT_FLAG, &json, NULL,
		       "JSON instead of the text (as trace compare --json or "
		       "trace summary --json)", 0) },
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE",
		       "write the table or summary there, whole or not at all "
		       "(default '-': stdout)", 0) },
		ST_OPT_END_ROW,
	};
	st_trace_merge m;
	st_error err;
	int nargs, rc;

	if (!st_opt_go(&merge_desc, opts, argc, argv, &nargs, &rc))
		return rc;
	if (!*out)
		return st_msg_usage(merge_desc.path, "--out needs a file name "
				    "or '-'");
	if (st_trace_merge_read(&m, argv + 1, (size_t)nargs, &err) < 0)
		rc = st_msg_fail(&err);
	else
		rc = m.summary ? emit_summary(&m, json, out)
			       : emit_compare(&m, json, out);
	st_trace_merge_release(&m);
	return rc;
}
