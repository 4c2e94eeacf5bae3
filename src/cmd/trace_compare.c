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
#include "streamtime/text.h"
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

/* A case's inputs: its trace files and system-trace sets. */
struct case_in {
	char *name;              /* borrowed from argv */
	struct st_trace_inputs in;
	struct st_trace_sets ts;
	st_atomic_file *events_af;   /* per metric: its events file */
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
		int r = trace_inputs_collect(&c->in, &p, 1);

		if (r == ST_EXIT_IOERR)
			return r;
		if (r && !rc)
			rc = r;
	}
	if (!rc)
		rc = trace_sets_open(&c->ts, c->in.sysdirs, c->in.nsys, so,
				     max_bad, &c->in.v, &c->in.n);
	if (!rc && c->ts.sets.n)
		rc = trace_sets_phases(&c->ts);
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

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int cmp_row_key(const void *key, const void *row)
{
	return strcmp(key, ((const st_metric_row *)row)->key);
}

/* Row KEY of result R (rows sorted by key), or NULL. */
static const st_metric_result *row_of(const st_metric_result *r,
				      const char *key)
{
	const st_metric_row *f = r->n_rows ?
		bsearch(key, r->rows, r->n_rows, sizeof(*r->rows),
			cmp_row_key) : NULL;

	return f ? &f->r : NULL;
}

/* The keys of by metric I over CS[0..N), sorted, each once, into *OUT
 * (NULL-free array of borrowed strings).  Their number, or -1. */
static ssize_t union_keys(const st_compare_case *cs, size_t n, size_t i,
			  const char ***out)
{
	size_t total = 0, k = 0;
	const char **v;

	for (size_t c = 0; c < n; c++)
		total += cs[c].res[i].n_rows;
	if (!(v = malloc((total ? total : 1) * sizeof(*v))))
		return -1;
	for (size_t c = 0; c < n; c++)
		for (size_t r = 0; r < cs[c].res[i].n_rows; r++)
			v[k++] = cs[c].res[i].rows[r].key;
	qsort(v, total, sizeof(*v), cmp_str);
	k = 0;
	for (size_t j = 0; j < total; j++)
		if (!k || strcmp(v[k - 1], v[j]) != 0)
			v[k++] = v[j];
	*out = v;
	return (ssize_t)k;
}

/* A row of the text table: LABEL (WNAME wide), the unit, the cells. */
static void text_row(FILE *f, int wname, const char *label,
		     const st_metric *m, const st_metric_result *const *r,
		     const int *wcell, size_t n)
{
	char buf[64];

	fprintf(f, "%-*s  %-5s", wname, label, unit(m->value));
	for (size_t c = 0; c < n; c++) {
		if (r[c])
			cell_text(buf, sizeof(buf), r[c], m->reduce, m->value);
		else
			snprintf(buf, sizeof(buf), "-");
		fprintf(f, "  %*s", wcell[c], buf);
	}
	fputc('\n', f);
}

/* Call FN for every row of the table: scalar metrics once, by metrics
 * once per key of any case as "NAME[KEY]" (or "NAME" when none has a
 * key).  -1 out of memory. */
static int each_row(const st_metrics *m, const st_compare_case *cs, size_t n,
		    void (*fn)(void *, const char *, size_t,
			       const st_metric_result *const *),
		    void *arg)
{
	const st_metric_result *r[MAX_CASES];

	for (size_t i = 0; i < m->n; i++) {
		const char **keys;
		ssize_t nk;

		/* the name's escaped text (text.h): one line, whatever it
		 * holds (a newline or an ESC would break the table) */
		char *name = st_text_escape_dup(m->v[i].name,
						strlen(m->v[i].name), 0);

		if (!name)
			return -1;
		if (!m->v[i].by.n) {
			for (size_t c = 0; c < n; c++)
				r[c] = &cs[c].res[i];
			fn(arg, name, i, r);
			free(name);
			continue;
		}
		if ((nk = union_keys(cs, n, i, &keys)) < 0) {
			free(name);
			return -1;
		}
		for (size_t c = 0; !nk && c < n; c++)
			r[c] = NULL;
		if (!nk)
			fn(arg, name, i, r);
		for (ssize_t k = 0; k < nk; k++) {
			size_t len = strlen(name) + strlen(keys[k]) + 3;
			char *label = malloc(len);

			if (!label) {
				free(keys);
				free(name);
				return -1;
			}
			snprintf(label, len, "%s[%s]", name, keys[k]);
			for (size_t c = 0; c < n; c++)
				r[c] = row_of(&cs[c].res[i], keys[k]);
			fn(arg, label, i, r);
			free(label);
		}
		free(keys);
		free(name);
	}
	return 0;
}

struct text_pass {
	FILE *f;
	const st_metrics *m;
	size_t n;
	int wname, wcell[MAX_CASES];
	bool measure;
};

static void text_each(void *arg, const char *label, size_t i,
		      const st_metric_result *const *r)
{
	struct text_pass *t = arg;
	char buf[64];

	if (!t->measure) {
		text_row(t->f, t->wname, label, &t->m->v[i], r, t->wcell,
			 t->n);
		return;
	}
	if ((int)strlen(label) > t->wname)
		t->wname = (int)strlen(label);
	for (size_t c = 0; c < t->n; c++) {
		if (!r[c])
			continue;
		cell_text(buf, sizeof(buf), r[c], t->m->v[i].reduce,
			  t->m->v[i].value);
		if ((int)strlen(buf) > t->wcell[c])
			t->wcell[c] = (int)strlen(buf);
	}
}

/* The names of CS[0..N) as shown (text.h: escaped text), a new array
 * of new strings (case_names_free); NULL out of memory. */
static char **case_names(const st_compare_case *cs, size_t n)
{
	char **v = calloc(n + 1, sizeof(*v));

	for (size_t c = 0; v && c < n; c++)
		if (!(v[c] = st_text_escape_dup(cs[c].name,
						strlen(cs[c].name), 0))) {
			while (c--)
				free(v[c]);
			free(v);
			return NULL;
		}
	return v;
}

static void case_names_free(char **v, size_t n)
{
	for (size_t c = 0; v && c < n; c++)
		free(v[c]);
	free(v);
}

static int write_text(FILE *f, const st_metrics *m, const st_compare_case *cs,
		      size_t n)
{
	struct text_pass t = { .f = f, .m = m, .n = n, .wname = 6,
			       .measure = true };
	char **name = case_names(cs, n);

	if (!name)
		return -1;
	for (size_t c = 0; c < n; c++)
		t.wcell[c] = (int)strlen(name[c]);
	if (each_row(m, cs, n, text_each, &t) < 0) {
		case_names_free(name, n);
		return -1;
	}
	fprintf(f, "%-*s  %-5s", t.wname, "metric", "unit");
	for (size_t c = 0; c < n; c++)
		fprintf(f, "  %*s", t.wcell[c], name[c]);
	fputc('\n', f);
	case_names_free(name, n);
	t.measure = false;
	if (each_row(m, cs, n, text_each, &t) < 0)
		return -1;
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

/* The names of keys K, an array. */
static json_t *keys_json(const st_trace_keys *k)
{
	json_t *a = json_array();
	char name[16];

	for (size_t j = 0; a && j < k->n; j++)
		json_array_append_new(a, json_string(st_trace_key_name(
			&k->v[j], name, sizeof(name))));
	return a;
}

/* A by metric's rows of R: {KEY: value}. */
static json_t *rows_json(const st_metric_result *r, const st_metric *m)
{
	json_t *o = json_object();

	for (size_t k = 0; o && k < r->n_rows; k++)
		json_object_set_new(o, r->rows[k].key, value_json(
			&r->rows[k].r, m->reduce, m->value));
	return o;
}

static int write_json(FILE *f, const st_metrics *m, const st_compare_case *cs,
		      size_t n)
{
	json_t *root = json_object(), *cases = json_array(),
	       *metrics = json_array();
	char **name = case_names(cs, n);
	int bad;

	json_object_set_new(root, "cases", cases);
	json_object_set_new(root, "metrics", metrics);
	for (size_t c = 0; name && c < n; c++)
		json_array_append_new(cases, json_string(name[c]));
	for (size_t i = 0; i < m->n; i++) {
		json_t *o = json_object(), *vals = json_object();

		json_object_set_new(o, "name", json_string(m->v[i].name));
		if (m->v[i].by.n)
			json_object_set_new(o, "by", keys_json(&m->v[i].by));
		for (size_t c = 0; name && c < n; c++)
			json_object_set_new(vals, name[c], m->v[i].by.n ?
					    rows_json(&cs[c].res[i], &m->v[i]) :
					    value_json(&cs[c].res[i],
						       m->v[i].reduce,
						       m->v[i].value));
		json_object_set_new(o, "values", vals);
		json_array_append_new(metrics, o);
	}
	bad = !root || !cases || !metrics || !name ||
	      json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15) |
			 JSON_PRESERVE_ORDER) < 0 || fputc('\n', f) == EOF;
	json_decref(root);
	case_names_free(name, n);
	return bad ? -1 : 0;
}

/* Say what became of the inputs of CS[0..N) (system-trace sets SETS[c]
 * or NULL) as WHO.  Returns the exit status, 0 when all were traces. */
int st_compare_report(const st_compare_case *cs, size_t n,
		      const st_systrace_list *const *sets, const char *who)
{
	int rc = 0;

	for (size_t c = 0; c < n; c++) {
		int r = trace_inputs_report(cs[c].files_in, cs[c].n_files,
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

static int events_close(st_compare_case *cs, struct case_in *ci, size_t n,
			const st_metrics *m, st_atomic_set *set,
			st_error *err);

/* The events streams of CS[0..N) for the events metrics of M: the
 * files DIR/CASE.METRIC.csv (or .jsonl), opened for atomic writing.
 * Returns the exit status (then none is left open). */
static int events_open(st_compare_case *cs, struct case_in *ci, size_t n,
		       const st_metrics *m, const char *dir)
{
	st_error err;

	if (!dir)
		return 0;
	for (size_t c = 0; c < n; c++) {
		if (!(cs[c].events_out = calloc(m->n, sizeof(FILE *))) ||
		    !(ci[c].events_af = calloc(m->n,
					       sizeof(*ci[c].events_af)))) {
			st_msg_error("out of memory");
			events_close(cs, ci, n, m, NULL, &err);
			return ST_EXIT_IOERR;
		}
		for (size_t i = 0; i < m->n; i++) {
			char *path;
			size_t len;

			if (!m->v[i].events)
				continue;
			len = strlen(dir) + strlen(cs[c].name) +
			      strlen(m->v[i].name) + 10;
			if (!(path = malloc(len))) {
				st_msg_error("out of memory");
				events_close(cs, ci, n, m, NULL, &err);
				return ST_EXIT_IOERR;
			}
			snprintf(path, len, "%s/%s.%s.%s", dir, cs[c].name,
				 m->v[i].name, m->v[i].format ==
				 ST_TRACE_EVENTS_JSONL ? "jsonl" : "csv");
			if (st_atomic_open(&ci[c].events_af[i], path,
					   &err) < 0) {
				free(path);
				events_close(cs, ci, n, m, NULL, &err);
				return st_msg_fail(&err);
			}
			free(path);
			cs[c].events_out[i] = ci[c].events_af[i].fp;
		}
	}
	return 0;
}

/* Close the events streams of CS[0..N): into SET (prepared, to commit
 * with the table), or, SET NULL, dropped.  0, -1 with ERR (74; all then
 * dropped). */
static int events_close(st_compare_case *cs, struct case_in *ci, size_t n,
			const st_metrics *m, st_atomic_set *set,
			st_error *err)
{
	int rc = 0;

	for (size_t c = 0; c < n; c++) {
		for (size_t i = 0; ci[c].events_af && i < m->n; i++) {
			if (!cs[c].events_out || !cs[c].events_out[i])
				continue;
			if (set && rc == 0 &&
			    st_atomic_set_add(set, &ci[c].events_af[i],
					      err) < 0)
				rc = -1;
			else if (!set || rc < 0)
				st_atomic_abort(&ci[c].events_af[i]);
			cs[c].events_out[i] = NULL;
		}
		free(cs[c].events_out);
		free(ci[c].events_af);
		cs[c].events_out = NULL;
		ci[c].events_af = NULL;
	}
	if (rc < 0)
		st_atomic_set_abort(set);
	return rc;
}

/* Compute CS with O, say what became of the inputs, and write the table
 * (or the partial, METRICS_TEXT given) to OUT unless that went wrong.
 * Returns the exit status. */
static int run_compare(st_compare_case *cs, struct case_in *ci,
		       size_t n, const st_compare_opts *o, bool json,
		       const char *metrics_text, const char *out,
		       const char *events_dir)
{
	const st_systrace_list *sets[MAX_CASES];
	st_atomic_set evset = { 0 };
	st_error err;
	int rc;

	if ((rc = events_open(cs, ci, n, o->metrics, events_dir)))
		return rc;
	if (st_trace_compare(cs, n, o, &err) < 0) {
		rc = st_msg_fail(&err);
		events_close(cs, ci, n, o->metrics, NULL, &err);
		return rc;
	}
	for (size_t c = 0; c < n; c++)
		sets[c] = &ci[c].ts.sets;
	rc = st_compare_report(cs, n, sets, "trace compare");
	if (events_dir && !rc &&
	    events_close(cs, ci, n, o->metrics, &evset, &err) < 0)
		rc = st_msg_fail(&err);
	else if (events_dir && rc)
		events_close(cs, ci, n, o->metrics, NULL, &err);
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
	/* a partial does not know the sets: their call files are traces */
	for (size_t c = 0; metrics_text && c < n; c++)
		for (size_t i = 0; i < cs[c].n_files; i++)
			if (st_systrace_owner(&ci[c].ts.sets,
					      cs[c].files_in[i].path))
				cs[c].files_in[i].not_trace = false;
	rc = st_compare_emit(o->metrics, cs, n, json, metrics_text, out);
	if (rc == 0 && events_dir && st_atomic_set_commit(&evset, &err) < 0)
		return st_msg_fail(&err);
	st_atomic_set_abort(&evset);
	return rc;
}

/* --events-dir DIR against the metrics M and --save-partial PARTIAL:
 * given exactly when a metric writes events, and no partial then.
 * Returns the exit status. */
static int events_check(const st_metrics *m, const char *dir,
			const char *partial)
{
	const st_metric *ev = NULL;

	for (size_t i = 0; !ev && i < m->n; i++)
		if (m->v[i].events)
			ev = &m->v[i];
	if (ev && partial)
		return st_msg_usage(compare_desc.path, "--save-partial: metric "
				    "'%s' writes events, which a partial "
				    "cannot hold (run the metrics with "
				    "'events' in one process)", ev->name);
	if (ev && !dir)
		return st_msg_usage(compare_desc.path, "metric '%s' writes "
				    "events: give --events-dir DIR", ev->name);
	if (!ev && dir)
		return st_msg_usage(compare_desc.path, "--events-dir: no "
				    "metric writes events (give one "
				    "\"events\": \"csv\")");
	if (dir && !*dir)
		return st_msg_usage(compare_desc.path, "--events-dir needs a "
				    "directory");
	return 0;
}

int cmd_trace_compare(int argc, char **argv)
{
	const char *metrics_path = NULL, *out = "-", *partial = NULL,
		   *events_dir = NULL;
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
		{ ST_O("events-dir", 0, ST_OPT_PATH, &events_dir, "DIR",
		       "where the metrics with 'events' write the events they "
		       "select: DIR/CASE.METRIC.csv (or .jsonl), each whole "
		       "or not at all", 0) },
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
	if ((rc = events_check(&m, events_dir, partial)))
		goto out;
	for (size_t c = 0; c < n; c++) {
		int r = case_parse(&ci[c], (char *)case_args.v[c], &so,
				   o.max_bad);

		if (!r && events_dir && (strchr(ci[c].name, '/') ||
					 ci[c].name[0] == '.'))
			r = st_msg_usage(compare_desc.path, "--case %s: the "
					 "name of a case names its events "
					 "files: no '/' in it, and no '.' "
					 "first", ci[c].name);
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
		cs[c].seg_us = ci[c].ts.seg;
		cs[c].nseg = ci[c].ts.nseg;
		cs[c].seg_phase = ci[c].ts.phase;
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
			 partial ? partial : out, events_dir);
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
