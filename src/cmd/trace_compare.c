/* trace_compare.c - `streamtime trace compare` (SPEC 5.12, issue 16): the
 * DFAnalyzer notebook's table, a row per metric, a column per case. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd.h"
#include "compare_out.h"
#include "trace_inputs.h"
#include "streamtime/atomic.h"
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
	"The table gives dur in seconds, bytes in GiB (2^30) and counts; --json\n"
	"gives {\"cases\": [...], \"metrics\": [{\"name\", \"values\": {CASE: V}}]}\n"
	"with dur in seconds, bytes and counts as numbers.\n",
	.epilogue =
	"Corrupt lines are counted and skipped (the first ten named on stderr).\n"
	"Exit 0; 64 a bad --case; 78 a bad metrics file (naming the metric and\n"
	"the field), 66 one that cannot be read; 65 when an input is not a\n"
	"trace (empty, no event, only corrupt lines) or its gzip stream is\n"
	"damaged; 66 an input missing or unreadable; 74 a read or write error.\n"
	"Whenever the exit is not 0, --out FILE is left as it was.\n",
};

/* A case's inputs: its trace files and system-trace sets. */
struct case_in {
	char *name;              /* borrowed from argv */
	struct st_trace_inputs in;
	struct st_trace_sets ts;
};

static void case_in_release(struct case_in *c)
{
	st_trace_inputs_release(&c->in);
	st_trace_sets_release(&c->ts);
}

/* --case NAME=PATH[,PATH...] (ARG, overwritten) into C: the paths
 * expanded and checked as `trace summary` does, system-trace directories
 * opened with SO.  Returns the exit status. */
static int case_parse(struct case_in *c, char *arg,
		      const struct st_trace_sys_opts *so, size_t max_bad)
{
	char *eq = strchr(arg, '='), *p, *save = NULL;
	int rc = 0;

	if (!eq || eq == arg || !eq[1])
		return st_msg_usage(compare_desc.path, "--case '%s': expected "
				    "NAME=PATH[,PATH...]", arg);
	*eq = 0;
	c->name = arg;
	if (strstr(eq + 1, ",,") || eq[1] == ',' || eq[strlen(eq) - 1] == ',')
		return st_msg_usage(compare_desc.path, "--case %s: an empty "
				    "path in '%s'", arg, eq + 1);
	for (p = strtok_r(eq + 1, ",", &save); p;
	     p = strtok_r(NULL, ",", &save)) {
		int r = st_trace_inputs_collect(&c->in, &p, 1);

		if (r == ST_EXIT_IOERR)
			return r;
		if (r && !rc)
			rc = r;
	}
	if (!rc)
		rc = st_trace_sets_open(&c->ts, c->in.sysdirs, c->in.nsys, so,
					max_bad, &c->in.v, &c->in.n);
	return rc;
}

/* ---- output ---------------------------------------------------------- */

static const char *unit(enum st_metric_value v)
{
	return v == ST_METRIC_DUR ? "s" : v == ST_METRIC_BYTES ? "GiB"
							       : "count";
}

/* R of a metric of value V as the table shows it. */
static void cell_text(char *buf, size_t size, const st_metric_result *r,
		      enum st_metric_reduce red, enum st_metric_value v)
{
	bool mean = red == ST_REDUCE_MEAN;

	if (!r->has)
		snprintf(buf, size, "-");
	else if (v == ST_METRIC_DUR && !mean)
		snprintf(buf, size, "%" PRId64 ".%06" PRId64, r->v / 1000000,
			 r->v % 1000000);
	else if (v == ST_METRIC_DUR)
		snprintf(buf, size, "%.6f", r->mean / 1e6);
	else if (v == ST_METRIC_BYTES)
		snprintf(buf, size, "%.6f", (mean ? r->mean : (double)r->v) /
			 1073741824.0);
	else if (mean)
		snprintf(buf, size, "%.3f", r->mean);
	else
		snprintf(buf, size, "%" PRId64, r->v);
}

static int write_text(FILE *f, const st_metrics *m, const st_compare_case *cs,
		      size_t n)
{
	int wname = 6, wcell[MAX_CASES];
	char buf[64];

	for (size_t i = 0; i < m->n; i++)
		if ((int)strlen(m->v[i].name) > wname)
			wname = (int)strlen(m->v[i].name);
	for (size_t c = 0; c < n; c++) {
		wcell[c] = (int)strlen(cs[c].name);
		for (size_t i = 0; i < m->n; i++) {
			cell_text(buf, sizeof(buf), &cs[c].res[i],
				  m->v[i].reduce, m->v[i].value);
			if ((int)strlen(buf) > wcell[c])
				wcell[c] = (int)strlen(buf);
		}
	}
	fprintf(f, "%-*s  %-5s", wname, "metric", "unit");
	for (size_t c = 0; c < n; c++)
		fprintf(f, "  %*s", wcell[c], cs[c].name);
	fputc('\n', f);
	for (size_t i = 0; i < m->n; i++) {
		fprintf(f, "%-*s  %-5s", wname, m->v[i].name,
			unit(m->v[i].value));
		for (size_t c = 0; c < n; c++) {
			cell_text(buf, sizeof(buf), &cs[c].res[i],
				  m->v[i].reduce, m->v[i].value);
			fprintf(f, "  %*s", wcell[c], buf);
		}
		fputc('\n', f);
	}
	fputs("(s: dur in seconds; GiB: bytes / 2^30; '-': no event "
	      "selected)\n", f);
	return ferror(f) ? -1 : 0;
}

static json_t *value_json(const st_metric_result *r, enum st_metric_reduce red,
			  enum st_metric_value v)
{
	if (!r->has)
		return json_null();
	if (v == ST_METRIC_DUR)
		return json_real((red == ST_REDUCE_MEAN ? r->mean :
				  (double)r->v) / 1e6);
	if (red == ST_REDUCE_MEAN)
		return json_real(r->mean);
	return json_integer(r->v);
}

static int write_json(FILE *f, const st_metrics *m, const st_compare_case *cs,
		      size_t n)
{
	json_t *root = json_object(), *cases = json_array(),
	       *metrics = json_array();
	int bad;

	json_object_set_new(root, "cases", cases);
	json_object_set_new(root, "metrics", metrics);
	for (size_t c = 0; c < n; c++)
		json_array_append_new(cases, json_string(cs[c].name));
	for (size_t i = 0; i < m->n; i++) {
		json_t *o = json_object(), *vals = json_object();

		json_object_set_new(o, "name", json_string(m->v[i].name));
		for (size_t c = 0; c < n; c++)
			json_object_set_new(vals, cs[c].name, value_json(
				&cs[c].res[i], m->v[i].reduce, m->v[i].value));
		json_object_set_new(o, "values", vals);
		json_array_append_new(metrics, o);
	}
	bad = !root || !cases || !metrics ||
	      json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15) |
			 JSON_PRESERVE_ORDER) < 0 || fputc('\n', f) == EOF;
	json_decref(root);
	return bad ? -1 : 0;
}

/* Say what became of the inputs of CS[0..N) (system-trace sets SETS[c]
 * or NULL) as WHO.  Returns the exit status, 0 when all were traces. */
int st_compare_report(const st_compare_case *cs, size_t n,
		      const st_systrace_list *const *sets, const char *who)
{
	int rc = 0;

	for (size_t c = 0; c < n; c++) {
		int r = st_trace_inputs_report(cs[c].files_in, cs[c].n_files,
					       cs[c].bad, cs[c].n_bad,
					       cs[c].bad_lines,
					       sets ? sets[c] : NULL);

		if (r && (!rc || r == ST_EXIT_IOERR ||
			  (r == ST_EXIT_NOINPUT && rc == ST_EXIT_DATAERR)))
			rc = r;
		if (cs[c].saturated)
			st_msg_warn("%s: case %s: a sum passed 2^63-1 and "
				    "stopped there", who, cs[c].name);
	}
	return rc;
}

int st_compare_emit(const st_metrics *m, const st_compare_case *cs, size_t n,
		    bool json, const char *partial_of, const char *out)
{
	st_atomic_file af = { 0 };
	st_error err;
	int bad;

	if (st_atomic_open(&af, out, &err) < 0)
		return st_msg_fail(&err);
	if (partial_of)
		bad = st_compare_partial_write(af.fp, partial_of, m, cs, n) < 0;
	else
		bad = (json ? write_json : write_text)(af.fp, m, cs, n) < 0;
	if (bad) {
		st_atomic_abort(&af);
		st_msg_error("cannot write %s: %s", strcmp(out, "-") ?
			     out : "to standard output", strerror(errno ?
								  errno : EIO));
		return ST_EXIT_IOERR;
	}
	if (st_atomic_commit(&af, &err) < 0)
		return st_msg_fail(&err);
	return st_finish_stdout(0);
}

/* Compute CS with O, say what became of the inputs, and write the table
 * (or the partial, METRICS_TEXT given) to OUT unless that went wrong.
 * Returns the exit status. */
static int run_compare(st_compare_case *cs, const struct case_in *ci,
		       size_t n, const st_compare_opts *o, bool json,
		       const char *metrics_text, const char *out)
{
	const st_systrace_list *sets[MAX_CASES];
	st_error err;
	int rc;

	if (st_trace_compare(cs, n, o, &err) < 0)
		return st_msg_fail(&err);
	for (size_t c = 0; c < n; c++)
		sets[c] = &ci[c].ts.sets;
	rc = st_compare_report(cs, n, sets, "trace compare");
	if (rc) {
		if (strcmp(out, "-") != 0)
			st_msg_error("trace compare: nothing written (%s is "
				     "left as it was)", out);
		return rc;
	}
	/* a partial does not know the sets: their call files are traces */
	for (size_t c = 0; metrics_text && c < n; c++)
		for (size_t i = 0; i < cs[c].n_files; i++)
			if (st_systrace_owner(&ci[c].ts.sets,
					      cs[c].files_in[i].path))
				cs[c].files_in[i].not_trace = false;
	return st_compare_emit(o->metrics, cs, n, json, metrics_text, out);
}

int cmd_trace_compare(int argc, char **argv)
{
	const char *metrics_path = NULL, *out = "-", *partial = NULL;
	struct st_strlist case_args = { 0 };
	bool json = false;
	int64_t jobs = 0;
	struct st_trace_sys_opts so = { 0 };
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
		ST_TRACE_SYS_OPT_ROWS(so),
		{ ST_O("jobs", 'j', ST_OPT_INT, &jobs, "N",
		       "files read at once, of one case or several (default: "
		       "the cores)", 0), .min = 1, .max = 64 },
		ST_OPT_END_ROW,
	};
	st_metrics m = { 0 };
	char *mtext = NULL;
	size_t mlen;
	struct case_in *ci = NULL;
	st_compare_case *cs = NULL;
	st_compare_opts o = { 0 };
	size_t n = 0;
	st_error err;
	int nargs, rc;

	if (!st_opt_go(&compare_desc, opts, argc, argv, &nargs, &rc))
		goto out;
	rc = ST_EXIT_OK;
	if (nargs > 0) {
		rc = st_msg_usage(compare_desc.path, "unexpected argument '%s' "
				  "(traces go in --case NAME=PATH)", argv[1]);
		goto out;
	}
	if (!*out) {
		rc = st_msg_usage(compare_desc.path, "--out needs a file name "
				  "or '-'");
		goto out;
	}
	n = case_args.n;
	if (n > MAX_CASES) {
		rc = st_msg_usage(compare_desc.path, "at most %d cases",
				  MAX_CASES);
		goto out;
	}
	o.max_bad = st_verbosity > 0 ? 1000 : 10;
	if (!(ci = calloc(n, sizeof(*ci))) || !(cs = calloc(n, sizeof(*cs)))) {
		st_msg_error("out of memory");
		rc = ST_EXIT_IOERR;
		goto out;
	}
	if (partial && (json || strcmp(out, "-") != 0)) {
		rc = st_msg_usage(compare_desc.path, "--save-partial writes "
				  "the partial, not the table: no --json or "
				  "--out with it");
		goto out;
	}
	if (!(mtext = st_file_read(metrics_path, &mlen, &err)) ||
	    st_metrics_parse(&m, mtext, mlen, metrics_path, &err) < 0) {
		rc = st_msg_fail(&err);
		goto out;
	}
	for (size_t c = 0; c < n; c++) {
		int r = case_parse(&ci[c], (char *)case_args.v[c], &so,
				   o.max_bad);

		for (size_t k = 0; !r && k < c; k++)
			if (strcmp(ci[k].name, ci[c].name) == 0)
				r = st_msg_usage(compare_desc.path, "--case %s "
						 "given twice", ci[c].name);
		if (r && (!rc || r == ST_EXIT_USAGE || r == ST_EXIT_IOERR))
			rc = r;
		cs[c].name = ci[c].name;
		cs[c].paths = (const char *const *)ci[c].in.v;
		cs[c].n = ci[c].in.n;
		cs[c].src = ci[c].ts.sets.n ? &ci[c].ts.src : NULL;
	}
	if (rc)
		goto out;
	o.metrics = &m;
	if (!jobs) {
		long nc = sysconf(_SC_NPROCESSORS_ONLN);

		jobs = nc < 1 ? 1 : nc;
	}
	o.jobs = (int)jobs;
	o.keep = partial != NULL;
	rc = run_compare(cs, ci, n, &o, json, partial ? mtext : NULL,
			 partial ? partial : out);
out:
	for (size_t c = 0; cs && c < n; c++)
		st_compare_case_release(&cs[c]);
	for (size_t c = 0; ci && c < n; c++)
		case_in_release(&ci[c]);
	free(cs);
	free(ci);
	free(case_args.v);
	st_metrics_release(&m);
	free(mtext);
	return rc;
}
