/* trace_merge.c - `streamtime trace merge` (SPEC 5.12, issue 16 item 5):
 * the partials of `trace compare --save-partial` into the table one
 * process gives over all their inputs, or those of `trace summary
 * --save-partial` into its summary. */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "trace_inputs.h"
#include "streamtime/compare_out.h"
#include "streamtime/file.h"
#include "streamtime/sum_partial.h"
#include "streamtime/trace.h"
#include "streamtime/trace_compare.h"
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

/* The partials being merged: of trace compare or of trace summary. */
struct merge {
	bool summary;
	st_compare_merge cm;
	st_sum_merge sm;
};

static const char *const kinds[] = { "trace compare", "trace summary" };

/* Partial TEXT[0..LEN), ARGS[I], into M; ARGS[0] the first.  The first
 * partial says which command's partials these are (one that names no
 * command goes to trace compare's merge, which says what is wrong with
 * it).  The exit status. */
static int merge_add(struct merge *m, char **args, int i, const char *text,
		     size_t len)
{
	char buf[32];
	const char *c = st_partial_command(text, len, buf, sizeof(buf));
	int k = -1;
	st_error err;

	for (int j = 0; c && j < 2; j++)
		if (strcmp(c, kinds[j]) == 0)
			k = j;
	if (i == 0)
		m->summary = k == 1;
	else if (k >= 0 && k != m->summary) {
		st_msg_error("trace merge: %s is a partial of %s and %s one of "
			     "%s: they do not merge", args[i], kinds[k],
			     args[0], kinds[m->summary]);
		return ST_EXIT_DATAERR;
	}
	if ((m->summary ? st_sum_merge_add(&m->sm, text, len, args[i], &err)
	     : st_compare_merge_add(&m->cm, text, len, args[i], &err)) < 0)
		return st_msg_fail(&err);
	return 0;
}

/* The merged summary of M to OUT.  The exit status. */
static int emit_summary(struct merge *m, bool json, const char *out)
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
static int emit_compare(struct merge *m, bool json, const char *out)
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
	struct merge m = { 0 };
	int nargs, rc;

	if (!st_opt_go(&merge_desc, opts, argc, argv, &nargs, &rc))
		return rc;
	if (!*out)
		return st_msg_usage(merge_desc.path, "--out needs a file name "
				    "or '-'");
	rc = 0;
	for (int i = 0; i < nargs && !rc; i++) {
		st_error err;
		size_t len;
		char *text = st_file_read(argv[1 + i], &len, &err);

		rc = text ? merge_add(&m, argv + 1, i, text, len)
			  : st_msg_fail(&err);
		free(text);
	}
	if (!rc)
		rc = m.summary ? emit_summary(&m, json, out)
			       : emit_compare(&m, json, out);
	st_compare_merge_release(&m.cm);
	st_sum_merge_release(&m.sm);
	return rc;
}
