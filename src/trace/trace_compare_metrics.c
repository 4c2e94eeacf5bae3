/* trace_compare_metrics.c - the metrics files of `trace compare`
 * (trace_compare.h): parsed and checked, naming the metric and field. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "streamtime/file.h"
#include "streamtime/suggest.h"
#include "streamtime/trace_compare.h"

#include "trace_int.h"

static const char *const value_names[] = { "dur", "bytes", "count", NULL };
static const char *const reduce_names[] = { "max", "min", "sum", "mean",
					    NULL };
static const char *const field_names[] = { "name", "filter", "value", "per",
					   "reduce", "by", "events", "keys",
					   NULL };
static const char *const format_names[] = { "csv", "jsonl", NULL };

const char *st_metric_value_name(enum st_metric_value v)
{
	return value_names[v];
}

const char *st_metric_reduce_name(enum st_metric_reduce r)
{
	return reduce_names[r];
}

void st_metrics_release(st_metrics *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].name);
		st_trace_filter_release(&m->v[i].filter);
	}
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

/* Where a message about metric I is: "FILE: metric 2 ('ckpt')". */
struct at {
	const char *what;
	size_t i;
	const char *name;     /* NULL: not known yet */
};

#define AT_FMT "%s: metric %zu%s%s%s"
#define AT_ARGS(a) (a)->what, (a)->i + 1, (a)->name ? " ('" : "", \
	(a)->name ? (a)->name : "", (a)->name ? "')" : ""

/* One of WORDS (NULL-terminated) for field FIELD of the metric at A,
 * its index into *OUT. */
static int word(const struct at *a, const char *field, json_t *v,
		const char *const *words, int *out, st_error *err)
{
	char list[64] = "";
	const char *s, *near;

	if (!json_is_string(v))
		return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": '%s' must be "
				    "a string", AT_ARGS(a), field);
	s = json_string_value(v);
	for (int k = 0; words[k]; k++) {
		if (strcmp(s, words[k]) == 0) {
			*out = k;
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%s", k ? (words[k + 1] ? ", " : " or ") : "",
			 words[k]);
	}
	near = st_suggest(s, words, (size_t)-1);
	return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": '%s': \"%s\" is not "
			    "%s%s%s%s", AT_ARGS(a), field, s, list,
			    near ? "; did you mean '" : "", near ? near : "",
			    near ? "'?" : "");
}

/* The text of a library error of a field, without its option's name. */
static const char *bare(const st_error *e)
{
	const char *t = e->text;

	if (strncmp(t, "--filter: ", 10) == 0)
		t += 10;
	return t;
}

/* "filter": a string or an array of strings, each ANDed into F. */
static int parse_filter(const struct at *a, json_t *v, st_trace_filter *f,
			st_error *err)
{
	st_error e;
	size_t n = json_is_array(v) ? json_array_size(v) : 1;

	if (!json_is_string(v) && !json_is_array(v))
		return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": 'filter' must "
				    "be a string or an array of strings",
				    AT_ARGS(a));
	for (size_t k = 0; k < n; k++) {
		json_t *t = json_is_array(v) ? json_array_get(v, k) : v;

		if (!json_is_string(t))
			return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": "
					    "'filter'[%zu] must be a string",
					    AT_ARGS(a), k);
		if (st_trace_filter_parse(f, json_string_value(t), &e) < 0)
			return st_error_set(err, e.code == ST_EXIT_IOERR ?
					    e.code : ST_EXIT_CONFIG, AT_FMT
					    ": 'filter': %s", AT_ARGS(a),
					    bare(&e));
	}
	return 0;
}

/* FIELD ("per", "by", "keys"): "KEY,KEY" or an array of keys, into K;
 * EMPTY: none is allowed ("" or []). */
static int parse_keys(const struct at *a, const char *field, json_t *v,
		      st_trace_keys *k, bool empty, st_error *err)
{
	char list[1024] = "";
	size_t n = 0;
	st_error e;

	if (json_is_string(v)) {
		n = (size_t)snprintf(list, sizeof(list), "%s",
				     json_string_value(v));
	} else if (json_is_array(v) && (empty || json_array_size(v))) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			json_t *t = json_array_get(v, i);

			if (!json_is_string(t))
				return st_error_set(err, ST_EXIT_CONFIG, AT_FMT
						    ": '%s'[%zu] must be a "
						    "string", AT_ARGS(a), field,
						    i);
			if (strchr(json_string_value(t), ','))
				return st_error_set(err, ST_EXIT_CONFIG, AT_FMT
						    ": '%s'[%zu]: one key "
						    "per string", AT_ARGS(a),
						    field, i);
			n += (size_t)snprintf(list + (n < sizeof(list) ? n :
						      sizeof(list)),
					      n < sizeof(list) ?
					      sizeof(list) - n : 0, "%s%s",
					      i ? "," : "",
					      json_string_value(t));
		}
	} else {
		return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": '%s' must be "
				    "a string or a%s array of strings",
				    AT_ARGS(a), field, empty ? "n" :
				    " non-empty");
	}
	if (n >= sizeof(list))
		return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": '%s': too "
				    "long", AT_ARGS(a), field);
	if (st_trace_keys_parse(k, list, &e) < 0)
		return st_error_set(err, e.code == ST_EXIT_IOERR ? e.code :
				    ST_EXIT_CONFIG, AT_FMT ": '%s': %s",
				    AT_ARGS(a), field, e.text);
	if (!k->n && !empty)
		return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": '%s': no key "
				    "(leave '%s' out for %s)", AT_ARGS(a),
				    field, field, strcmp(field, "by") ?
				    "the total" : "one value");
	return 0;
}

/* "events" and "keys" of the metric (object O) at A into M. */
static int parse_events(const struct at *a, json_t *o, st_metric *m,
			st_error *err)
{
	json_t *v = json_object_get(o, "events"),
	       *keys = json_object_get(o, "keys");
	int k;

	if (!v) {
		if (keys)
			return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": 'keys' "
					    "goes with 'events' (the derived "
					    "columns of the events written)",
					    AT_ARGS(a));
		return 0;
	}
	if (word(a, "events", v, format_names, &k, err) < 0)
		return -1;
	m->events = true;
	m->format = k ? ST_TRACE_EVENTS_JSONL : ST_TRACE_EVENTS_CSV;
	if (strchr(m->name, '/') || m->name[0] == '.')
		return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": 'name' names "
				    "the file of its events: no '/' in it, "
				    "and no '.' first", AT_ARGS(a));
	if (!keys)
		return st_trace_keys_parse(&m->cols, "basename,pattern",
					   NULL) < 0 ? OOM(err) : 0;
	if (parse_keys(a, "keys", keys, &m->cols, true, err) < 0)
		return -1;
	for (size_t i = 0; i < m->cols.n; i++) {
		char name[16];

		if (st_trace_events_key_is_column(&m->cols.v[i]))
			return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": "
					    "'keys': '%s' is a column already "
					    "(host, pid, tid, name, cat and "
					    "file always are)", AT_ARGS(a),
					    st_trace_key_name(&m->cols.v[i],
							      name,
							      sizeof(name)));
	}
	return 0;
}

/* Metric I of the file (object O) into M. */
static int parse_metric(const char *what, size_t i, json_t *o, st_metric *m,
			const st_metrics *prev, st_error *err)
{
	struct at a = { what, i, NULL };
	const char *key;
	json_t *v;
	int k;

	if (!json_is_object(o))
		return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": must be an "
				    "object", AT_ARGS(&a));
	v = json_object_get(o, "name");
	if (json_is_string(v) && *json_string_value(v))
		a.name = json_string_value(v);
	json_object_foreach(o, key, v) {
		const char *near;

		for (k = 0; field_names[k]; k++)
			if (strcmp(key, field_names[k]) == 0)
				break;
		if (field_names[k])
			continue;
		near = st_suggest(key, field_names, (size_t)-1);
		return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": unknown field "
				    "'%s'%s%s%s (the fields are name, filter, "
				    "value, per, reduce, by, events, keys)", AT_ARGS(&a), key,
				    near ? "; did you mean '" : "",
				    near ? near : "", near ? "'?" : "");
	}
	if (!a.name)
		return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": 'name' must be "
				    "a non-empty string", AT_ARGS(&a));
	for (size_t p = 0; p < i; p++)
		if (strcmp(prev->v[p].name, a.name) == 0)
			return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": 'name' "
					    "given to metric %zu already",
					    AT_ARGS(&a), p + 1);
	if (!(m->name = strdup(a.name)))
		return OOM(err);
	if ((v = json_object_get(o, "filter")) &&
	    parse_filter(&a, v, &m->filter, err) < 0)
		return -1;
	if (!(v = json_object_get(o, "value")))
		return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": 'value' is "
				    "missing (dur, bytes or count)",
				    AT_ARGS(&a));
	if (word(&a, "value", v, value_names, &k, err) < 0)
		return -1;
	m->value = (enum st_metric_value)k;
	if ((v = json_object_get(o, "per")) &&
	    parse_keys(&a, "per", v, &m->per, false, err) < 0)
		return -1;
	if ((v = json_object_get(o, "by")) &&
	    parse_keys(&a, "by", v, &m->by, false, err) < 0)
		return -1;
	if (m->by.n + m->per.n > ST_TRACE_KEYS_MAX)
		return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": 'by' and "
				    "'per': more than %d keys together",
				    AT_ARGS(&a), ST_TRACE_KEYS_MAX);
	if (parse_events(&a, o, m, err) < 0)
		return -1;
	m->reduce = ST_REDUCE_SUM;
	if ((v = json_object_get(o, "reduce"))) {
		if (word(&a, "reduce", v, reduce_names, &k, err) < 0)
			return -1;
		m->reduce = (enum st_metric_reduce)k;
	} else if (m->per.n) {
		return st_error_set(err, ST_EXIT_CONFIG, AT_FMT ": 'reduce' is "
				    "missing (max, min, sum or mean over the "
				    "'per' keys)", AT_ARGS(&a));
	}
	return 0;
}

int st_metrics_parse(st_metrics *m, const char *text, size_t len,
		     const char *what, st_error *err)
{
	json_error_t je;
	json_t *root;
	size_t n;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	if (!(root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je)))
		return st_error_set(err, ST_EXIT_CONFIG, "%s:%d:%d: %s", what,
				    je.line, je.column, je.text);
	if (!json_is_array(root)) {
		ret = st_error_set(err, ST_EXIT_CONFIG, "%s: expected a JSON "
				   "array of metrics", what);
		goto out;
	}
	if (!(n = json_array_size(root))) {
		ret = st_error_set(err, ST_EXIT_CONFIG, "%s: no metric in it",
				   what);
		goto out;
	}
	if (!(m->v = calloc(n, sizeof(*m->v)))) {
		ret = OOM(err);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		m->n = i + 1;
		if ((ret = parse_metric(what, i, json_array_get(root, i),
					&m->v[i], m, err)) < 0)
			break;
	}
out:
	json_decref(root);
	return ret;
}

int st_metrics_load(st_metrics *m, const char *path, st_error *err)
{
	char *text;
	size_t len;
	int ret;

	memset(m, 0, sizeof(*m));
	if (!(text = st_file_read(path, &len, err)))
		return -1;
	ret = st_metrics_parse(m, text, len, path, err);
	free(text);
	return ret;
}

int st_metrics_events_check(const st_metrics *m, const char *dir,
			    bool partial, st_error *err)
{
	const st_metric *ev = NULL;

	for (size_t i = 0; !ev && i < m->n; i++)
		if (m->v[i].events)
			ev = &m->v[i];
	if (ev && partial)
		return st_error_set(err, ST_EXIT_USAGE, "--save-partial: "
				    "metric '%s' writes events, which a "
				    "partial cannot hold (run the metrics "
				    "with 'events' in one process)", ev->name);
	if (ev && !dir)
		return st_error_set(err, ST_EXIT_USAGE, "metric '%s' writes "
				    "events: give --events-dir DIR", ev->name);
	if (!ev && dir)
		return st_error_set(err, ST_EXIT_USAGE, "--events-dir: no "
				    "metric writes events (give one "
				    "\"events\": \"csv\")");
	if (dir && !*dir)
		return st_error_set(err, ST_EXIT_USAGE, "--events-dir needs a "
				    "directory");
	return 0;
}
