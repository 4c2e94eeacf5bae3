/* compare_render.c - the table of `trace compare` and `trace merge` as
 * text or JSON (compare_render.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <jansson.h>

#include "streamtime/compare_render.h"
#include "streamtime/text.h"

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

typedef void row_fn(void *arg, const char *label, size_t i,
		    const st_metric_result *const *r);

/* Call FN for the rows of metric I, named NAME (as shown), with R (N
 * cells) for the results: once for a scalar metric, once per key of any
 * case as "NAME[KEY]" for a by metric (or "NAME" when none has a key).
 * -1 out of memory. */
static int metric_rows(const st_metrics *m, const st_compare_case *cs,
		       size_t n, size_t i, const char *name,
		       const st_metric_result **r, row_fn *fn, void *arg)
{
	const char **keys;
	ssize_t nk;

	if (!m->v[i].by.n) {
		for (size_t c = 0; c < n; c++)
			r[c] = &cs[c].res[i];
		fn(arg, name, i, r);
		return 0;
	}
	if ((nk = union_keys(cs, n, i, &keys)) < 0)
		return -1;
	for (size_t c = 0; !nk && c < n; c++)
		r[c] = NULL;
	if (!nk)
		fn(arg, name, i, r);
	for (ssize_t k = 0; k < nk; k++) {
		size_t len = strlen(name) + strlen(keys[k]) + 3;
		char *label = malloc(len);

		if (!label) {
			free(keys);
			return -1;
		}
		snprintf(label, len, "%s[%s]", name, keys[k]);
		for (size_t c = 0; c < n; c++)
			r[c] = row_of(&cs[c].res[i], keys[k]);
		fn(arg, label, i, r);
		free(label);
	}
	free(keys);
	return 0;
}

/* Call FN for every row of the table (metric_rows), each metric's name
 * as its escaped text (text.h): one line, whatever it holds (a newline
 * or an ESC would break the table).  -1 out of memory. */
static int each_row(const st_metrics *m, const st_compare_case *cs, size_t n,
		    row_fn *fn, void *arg)
{
	const st_metric_result **r = calloc(n ? n : 1, sizeof(*r));
	int rc = r ? 0 : -1;

	for (size_t i = 0; rc == 0 && i < m->n; i++) {
		char *name = st_text_escape_dup(m->v[i].name,
						strlen(m->v[i].name), 0);

		rc = name ? metric_rows(m, cs, n, i, name, r, fn, arg) : -1;
		free(name);
	}
	free(r);
	return rc;
}

struct text_pass {
	FILE *f;
	const st_metrics *m;
	size_t n;
	int wname, *wcell;       /* N */
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

/* The text table (compare_render.h): measured in a first pass over the
 * rows, written in a second.  0, -1 (errno). */
static int write_text(FILE *f, const st_metrics *m, const st_compare_case *cs,
		      size_t n)
{
	struct text_pass t = { .f = f, .m = m, .n = n, .wname = 6,
			       .measure = true };
	char **name = case_names(cs, n);
	int rc = -1;

	if (!name || !(t.wcell = calloc(n ? n : 1, sizeof(*t.wcell))))
		goto out;
	for (size_t c = 0; c < n; c++)
		t.wcell[c] = (int)strlen(name[c]);
	if (each_row(m, cs, n, text_each, &t) < 0)
		goto out;
	fprintf(f, "%-*s  %-5s", t.wname, "metric", "unit");
	for (size_t c = 0; c < n; c++)
		fprintf(f, "  %*s", t.wcell[c], name[c]);
	fputc('\n', f);
	t.measure = false;
	if (each_row(m, cs, n, text_each, &t) < 0)
		goto out;
	fputs("(s: dur in seconds; GiB: bytes / 2^30; '-': no event "
	      "selected)\n", f);
	rc = ferror(f) ? -1 : 0;
out:
	case_names_free(name, n);
	free(t.wcell);
	return rc;
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

json_t *st_compare_json(const st_metrics *m, const st_compare_case *cs,
			size_t n)
{
	json_t *root = json_object(), *cases = json_array(),
	       *metrics = json_array();
	char **name = case_names(cs, n);
	bool bad = !root || !cases || !metrics || !name;

	json_object_set_new(root, "cases", cases);
	json_object_set_new(root, "metrics", metrics);
	for (size_t c = 0; !bad && c < n; c++)
		bad = json_array_append_new(cases, json_string(name[c])) < 0;
	for (size_t i = 0; !bad && i < m->n; i++) {
		json_t *o = json_object(), *vals = json_object();

		bad = !o || !vals ||
		      json_object_set_new(o, "name",
					  json_string(m->v[i].name)) < 0;
		if (!bad && m->v[i].by.n)
			bad = json_object_set_new(o, "by",
						  keys_json(&m->v[i].by)) < 0;
		for (size_t c = 0; !bad && c < n; c++)
			bad = json_object_set_new(vals, name[c], m->v[i].by.n ?
					    rows_json(&cs[c].res[i], &m->v[i]) :
					    value_json(&cs[c].res[i],
						       m->v[i].reduce,
						       m->v[i].value)) < 0;
		bad = bad || json_object_set(o, "values", vals) < 0 ||
		      json_array_append(metrics, o) < 0;
		json_decref(vals);
		json_decref(o);
	}
	case_names_free(name, n);
	if (bad) {
		json_decref(root);
		return NULL;
	}
	return root;
}

static int write_json(FILE *f, const st_metrics *m, const st_compare_case *cs,
		      size_t n)
{
	json_t *root = st_compare_json(m, cs, n);
	int bad = !root ||
		  json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15) |
			     JSON_PRESERVE_ORDER) < 0 || fputc('\n', f) == EOF;

	if (!root)
		errno = ENOMEM;
	json_decref(root);
	return bad ? -1 : 0;
}

int st_compare_render(FILE *f, const st_metrics *m, const st_compare_case *cs,
		      size_t n, enum st_compare_format fmt, st_error *err)
{
	errno = 0;
	if ((fmt == ST_COMPARE_JSON ? write_json : write_text)(f, m, cs, n) < 0)
		return st_error_set(err, ST_EXIT_IOERR, "%s",
				    strerror(errno ? errno : EIO));
	return 0;
}
