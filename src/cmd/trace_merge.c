/* trace_merge.c - `streamtime trace merge` (SPEC 5.12, issue 16 item 5):
 * the partials of `trace compare --save-partial` into the table one
 * process gives over all their inputs. */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compare_out.h"
#include "streamtime/file.h"
#include "streamtime/trace_compare.h"

static const struct st_cmd_desc merge_desc = {
	.path = "streamtime trace merge",
	ST_DESC_ARGS_ANY("PARTIAL...", "no partial given", ST_COMPLETE_FILE),
	.description =
	"Combine the partials written by `trace compare --save-partial` into\n"
	"exactly the table (or --json) `trace compare` gives over all their\n"
	"inputs: cases are matched by name (a case split across partials is\n"
	"merged), the per-key sums added and then reduced, the inputs'\n"
	"corrupt lines and errors reported as one process would.  Every\n"
	"partial must come from the same metrics file.  This is the reduce\n"
	"step of a Slurm job array (docs/slurm-array.md).\n",
	.epilogue =
	"Exit 0; 65 a partial that is not one (not JSON, truncated, another\n"
	"version, other metrics than the first partial's: naming both), or an\n"
	"input the partials record as not a trace or damaged; 66 a partial\n"
	"missing; 74 a read or write error.  Whenever the exit is not 0, --out\n"
	"FILE is left as it was.\n",
};

int cmd_trace_merge(int argc, char **argv)
{
	const char *out = "-";
	bool json = false;
	const struct st_option opts[] = {
		{ ST_O("json", 0, ST_OPT_FLAG, &json, NULL,
		       "JSON instead of the text table (as trace compare "
		       "--json)", 0) },
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE",
		       "write the table there, whole or not at all (default "
		       "'-': stdout)", 0) },
		ST_OPT_END_ROW,
	};
	st_compare_merge mg = { 0 };
	st_error err;
	int nargs, rc;

	if (!st_opt_go(&merge_desc, opts, argc, argv, &nargs, &rc))
		return rc;
	if (!*out)
		return st_msg_usage(merge_desc.path, "--out needs a file name "
				    "or '-'");
	rc = 0;
	for (int i = 1; i <= nargs && !rc; i++) {
		size_t len;
		char *text = st_file_read(argv[i], &len, &err);

		if (!text || st_compare_merge_add(&mg, text, len, argv[i],
						  &err) < 0)
			rc = st_msg_fail(&err);
		free(text);
	}
	if (!rc && st_compare_merge_finish(&mg, st_verbosity > 0 ? 1000 : 10,
					   &err) < 0)
		rc = st_msg_fail(&err);
	if (!rc && (rc = st_compare_report(mg.cases, mg.n, NULL,
					   "trace merge")) != 0 &&
	    strcmp(out, "-") != 0)
		st_msg_error("trace merge: nothing written (%s is left as it "
			     "was)", out);
	if (!rc)
		rc = st_compare_emit(&mg.m, mg.cases, mg.n, json, NULL, out);
	st_compare_merge_release(&mg);
	return rc;
}
