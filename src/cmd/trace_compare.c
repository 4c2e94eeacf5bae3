/* trace_compare.c - `streamtime trace compare` (SPEC 5.12, issue 16): the
 * DFAnalyzer notebook's table, a row per metric, a column per case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "trace_inputs.h"
#include "streamtime/atomic.h"
#include "streamtime/compare_cases.h"
#include "streamtime/compare_events.h"
#include "streamtime/compare_out.h"
#include "streamtime/compare_render.h"
#include "streamtime/file.h"
#include "streamtime/systrace.h"
#include "streamtime/trace_compare.h"

#define MAX_CASES 256

static const struct st_cmd_desc compare_desc = {
	.path = "streamtime trace compare",
	.description =
	"The DFAnalyzer notebook's final table: the metrics of FILE (a JSON\n"
	"array) computed for each case, a row per metric and a column per case,\n"
	"all metrics of a case in one pass over its traces.  A case is\n"
	"NAME=PATH[,PATH...], each PATH a DFTracer trace (.pfw, .pfw.gz), a\n"
	"directory of them or a system-trace directory, as `trace summary`\n"
	"takes them.  A metric:\n"
	"  {\"name\": \"checkpoint\", \"filter\": \"name~checkpoint\",\n"
	"   \"value\": \"dur\", \"per\": \"thread\", \"reduce\": \"max\"}\n"
	"selects the events its filter keeps (the --filter syntax of `trace\n"
	"summary`, a string or a list of them, all ANDed; none: every event),\n"
	"adds up their value (dur, bytes or count) per distinct key of 'per'\n"
	"(host, pid, thread, name, cat, file, basename, pattern, prefix:N,\n"
	"phase; several as \"pattern,pid\" or a list) and reduces over the keys\n"
	"with 'reduce' (max, min, sum, mean; without 'per' there is one key,\n"
	"the total, and 'reduce' may be left out).  A metric that selects no\n"
	"event has no value: '-' in the table, null in JSON.\n"
	"With \"by\": KEYS (as 'per') a metric is a table: a value per distinct\n"
	"by key, as above over that key's events (e.g. per file the writes'\n"
	"count, dur or bytes); its rows are NAME[KEY] in the table, and\n"
	"{KEY: V} per case in JSON, KEY shown as `trace summary --group-by`\n"
	"shows a group.  With \"events\": \"csv\" or \"jsonl\" a metric also writes\n"
	"the events it selects, exactly as `trace events --format F` would\n"
	"(\"keys\": its derived columns, default basename,pattern), to\n"
	"--events-dir DIR as DIR/CASE.METRIC.csv or .jsonl; so a whole\n"
	"notebook takes one pass.  Such metrics cannot go in a --save-partial.\n"
	"The table gives dur in seconds, bytes in GiB (2^30) and counts; --json\n"
	"gives {\"cases\": [...], \"metrics\": [{\"name\", \"values\": {CASE: V}}]}\n"
	"with dur in seconds, bytes and counts as numbers.\n",
	.epilogue =
	"Corrupt lines are counted and skipped (the first ten named on stderr).\n"
	"Exit 0; 64 a bad --case, --events-dir missing or not wanted, or a\n"
	"metric with events and --save-partial; 78 a bad metrics file (naming\n"
	"the metric and the field), 66 one that cannot be read; 65 when an\n"
	"input is not a trace (empty, no event, only corrupt lines) or its\n"
	"gzip stream is damaged; 66 an input missing or unreadable; 73 an\n"
	"events file that cannot be created; 74 a read or write error.\n"
	"Whenever the exit is not 0, --out FILE and the events files are left\n"
	"as they were.\n",
};

/* Compute CS with O (through CACHE when not NULL, MTEXT the
 * metrics file's text), say what became of the inputs, and write the table
 * (or the partial, METRICS_TEXT given) to OUT unless that went wrong.
 * Returns the exit status. */
static int run_compare(st_compare_case *cs, st_compare_input *ci,
		       size_t n, const st_compare_opts *o, bool json,
		       const char *metrics_text, const char *out,
		       const char *events_dir, st_trace_cache *cache,
		       const char *mtext)
{
	const st_systrace_list *sets[MAX_CASES];
	st_compare_events ev;
	st_atomic_set evset = { 0 };
	st_trace_notes nt = { 0 };
	st_error err;
	int rc;

	if (st_compare_events_open(&ev, cs, n, o->metrics, events_dir,
				   &err) < 0)
		return st_msg_fail(&err);
	if ((cache ? st_trace_cache_compare(cache, cs, n, o, mtext, &err)
	       : st_trace_compare(cs, n, o, &err)) < 0) {
		rc = st_msg_fail(&err);
		st_compare_events_close(&ev, cs, n, o->metrics, NULL, &err);
		return rc;
	}
	for (size_t c = 0; c < n; c++)
		sets[c] = &ci[c].ts.sets;
	rc = trace_notes_said(&nt, st_compare_out_notes(cs, n, sets,
			      "trace compare", &nt, &err), &err);
	if (st_compare_events_close(&ev, cs, n, o->metrics, rc ? NULL : &evset,
				    &err) < 0)
		rc = st_msg_fail(&err);
	if (rc) {
		st_atomic_set_abort(&evset);
		if (strcmp(out, "-") != 0)
			st_msg_error("trace compare: nothing written (%s is "
				     "left as it was)", out);
		if (events_dir)
			st_msg_error("trace compare: no events written (%s is "
				     "left as it was)", events_dir);
		return rc;
	}
	if (metrics_text)
		st_compare_out_calls(cs, n, sets);
	if (st_compare_out_save(o->metrics, cs, n, json, metrics_text, out,
				&err) < 0)
		rc = st_msg_fail(&err);
	else
		rc = st_finish_stdout(0);
	if (rc == 0 && events_dir && st_atomic_set_commit(&evset, &err) < 0)
		return st_msg_fail(&err);
	st_atomic_set_abort(&evset);
	return rc;
}

/* The arguments besides the options (NARGS of them, the first ARG),
 * --out OUT, the N cases and --save-partial PARTIAL with --json JSON
 * checked.  Returns the exit status. */
static int args_check(int nargs, const char *arg, const char *out, size_t n,
		      const char *partial, bool json)
{
	if (nargs > 0)
		return st_msg_usage(compare_desc.path, "unexpected argument "
				    "'%s' (traces go in --case NAME=PATH)", arg);
	if (!*out)
		return st_msg_usage(compare_desc.path, "--out needs a file name "
				    "or '-'");
	if (n > MAX_CASES)
		return st_msg_usage(compare_desc.path, "at most %d cases",
				    MAX_CASES);
	if (partial && (json || strcmp(out, "-") != 0))
		return st_msg_usage(compare_desc.path, "--save-partial writes "
				    "the partial, not the table: no --json or "
				    "--out with it");
	return 0;
}

/* The cases ARGS[0..N) (--case) into CI and CS (compare_cases.h), what
 * became of each said in turn.  Returns the exit status (a usage error
 * or 74 before the others). */
static int cases_open(st_compare_input *ci, st_compare_case *cs, size_t n,
		      const char *const *args,
		      const struct st_trace_sys_opts *so, size_t max_bad,
		      const char *events_dir)
{
	int rc = 0;

	for (size_t c = 0; c < n; c++) {
		st_trace_notes nt = { 0 };
		st_error err;
		int r = st_compare_case_open(ci, cs, c, (char *)args[c], so,
					     max_bad, events_dir, &nt, &err);
		int said = trace_notes_say(&nt);

		if (r < 0)
			r = st_msg_fail(&err);
		else if (r)
			r = st_msg_usage(compare_desc.path, "%s", err.text);
		else
			r = said;
		if (r && (!rc || r == ST_EXIT_USAGE || r == ST_EXIT_IOERR))
			rc = r;
	}
	return rc;
}

int cmd_trace_compare(int argc, char **argv)
{
	const char *metrics_path = NULL, *out = "-", *partial = NULL,
		   *events_dir = NULL;
	struct st_strlist case_args = { 0 };
	bool json = false;
	int64_t jobs = st_trace_jobs_default(0);
	struct st_trace_sys_opts so = { 0 };
	struct trace_cache_opt co = { 0 };
	const struct st_option opts[] = {
		{ ST_O("metrics", 0, ST_OPT_PATH, &metrics_path, "FILE",
		       "the metrics, a JSON array (see above)",
		       ST_OPT_REQUIRED) },
		{ ST_O("case", 0, ST_OPT_LIST, &case_args, "NAME=PATH[,PATH...]",
		       "a column: its name and its traces (repeat for each "
		       "case, in the order of the columns)",
		       ST_OPT_REQUIRED | ST_OPT_FILES) },
		{ ST_O("json", 0, ST_OPT_FLAG, &json, NULL,
		       "JSON instead of the text table", 0) },
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE",
		       "write the table there, whole or not at all (default "
		       "'-': stdout)", 0) },
		{ ST_O("save-partial", 0, ST_OPT_PATH, &partial, "FILE",
		       "write the mergeable state there instead of the table, "
		       "for `trace merge` (a share of a Slurm job array)", 0) },
		{ ST_O("events-dir", 0, ST_OPT_PATH, &events_dir, "DIR",
		       "where the metrics with 'events' write the events they "
		       "select: DIR/CASE.METRIC.csv (or .jsonl), each whole "
		       "or not at all", 0) },
		ST_TRACE_SYS_OPT_ROWS(so),
		{ ST_O("jobs", 'j', ST_OPT_INT, &jobs, "N",
		       "files read at once, of one case or several (default: "
		       "the cores)", 0), .min = 1, .max = 64 },
		ST_TRACE_CACHE_OPT_ROWS(co),
		ST_OPT_END_ROW,
	};
	st_trace_cache cache;
	int on = 0;
	st_metrics m = { 0 };
	char *mtext = NULL;
	size_t mlen, n = 0;
	st_compare_input *ci = NULL;
	st_compare_case *cs = NULL;
	st_compare_opts o = { .metrics = &m,
			      .max_bad = st_verbosity > 0 ? 1000 : 10 };
	st_error err;
	int nargs, rc;

	if (!st_opt_go(&compare_desc, opts, argc, argv, &nargs, &rc))
		goto out;
	n = case_args.n;
	if ((rc = args_check(nargs, argv[1], out, n, partial, json)))
		goto out;
	if (!(ci = calloc(n, sizeof(*ci))) || !(cs = calloc(n, sizeof(*cs)))) {
		st_msg_error("out of memory");
		rc = ST_EXIT_IOERR;
		goto out;
	}
	if (!(mtext = st_file_read(metrics_path, &mlen, &err)) ||
	    st_metrics_parse(&m, mtext, mlen, metrics_path, &err) < 0) {
		rc = st_msg_fail(&err);
		goto out;
	}
	if (st_metrics_events_check(&m, events_dir, partial != NULL,
				    &err) < 0) {
		rc = st_msg_fail_usage(compare_desc.path, &err);
		goto out;
	}
	if ((rc = cases_open(ci, cs, n, case_args.v, &so, o.max_bad,
			     events_dir)))
		goto out;
	o.jobs = (int)jobs;
	o.keep = partial != NULL;
	on = !partial && trace_cache_begin(&cache, &co, "trace compare");
	rc = run_compare(cs, ci, n, &o, json, partial ? mtext : NULL,
			 partial ? partial : out, events_dir,
			 on ? &cache : NULL, mtext);
	trace_cache_end(&cache, on, "trace compare");
out:
	for (size_t c = 0; cs && c < n; c++)
		st_compare_case_release(&cs[c]);
	for (size_t c = 0; ci && c < n; c++)
		st_compare_input_release(&ci[c]);
	free(cs);
	free(ci);
	free(case_args.v);
	st_metrics_release(&m);
	free(mtext);
	return rc;
}
