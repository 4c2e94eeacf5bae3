/* compare.c - `trace compare`: metrics files and the one pass per case
 * that computes them all (trace_compare.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "streamtime/file.h"
#include "streamtime/suggest.h"
#include "streamtime/text.h"
#include "streamtime/trace_compare.h"

#include "partial_io.h"
#include "pass.h"
#include "trace_int.h"

/* ---- the metrics file ------------------------------------------------ */

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

/* ---- per-key sums ---------------------------------------------------- */

/* A key's component: a string id of the case's table, a pid or a tid;
 * NONE for a value the event lacks. */
#define NONE UINT64_MAX
#define MAX_COMPS (3 * ST_TRACE_KEYS_MAX)

/* Sums by key, the keys W components each: open addressing over
 * entries (index + 1 in SLOT). */
struct sums {
	size_t w;
	uint64_t *keys;       /* W per entry */
	int64_t *sum;
	size_t n, cap;
	uint32_t *slot;
	size_t mask;          /* slots - 1; 0 before the first entry */
	size_t last;          /* the entry of the last event + 1, 0 none */
};

static uint64_t comps_hash(const uint64_t *k, size_t w)
{
	uint64_t h = 0x9e3779b97f4a7c15u;

	for (size_t i = 0; i < w; i++) {
		h ^= k[i] + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
		h *= 0xff51afd7ed558ccdu;
	}
	return h ^ (h >> 29);
}

static void sums_release(struct sums *s)
{
	free(s->keys);
	free(s->sum);
	free(s->slot);
}

static int sums_rehash(struct sums *s, size_t nslots)
{
	uint32_t *slot = calloc(nslots, sizeof(*slot));

	if (!slot)
		return -1;
	for (size_t e = 0; e < s->n; e++) {
		size_t h = comps_hash(s->keys + e * s->w, s->w) & (nslots - 1);

		while (slot[h])
			h = (h + 1) & (nslots - 1);
		slot[h] = (uint32_t)(e + 1);
	}
	free(s->slot);
	s->slot = slot;
	s->mask = nslots - 1;
	return 0;
}

static inline bool comps_eq(const uint64_t *a, const uint64_t *b, size_t w)
{
	for (size_t i = 0; i < w; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* Add V to the sum of key K (s->w components).  0, -1 out of memory;
 * *SAT set when the sum stopped at INT64_MAX. */
static int sums_add(struct sums *s, const uint64_t *k, int64_t v, bool *sat)
{
	size_t h, e;

	if (s->last && comps_eq(s->keys + (s->last - 1) * s->w, k, s->w)) {
		e = s->last - 1;
		goto add;
	}
	if (!s->slot || (s->n + 1) * 2 > s->mask + 1) {
		if (s->n >= UINT32_MAX - 1 ||
		    sums_rehash(s, s->slot ? (s->mask + 1) * 2 : 64) < 0)
			return -1;
	}
	h = comps_hash(k, s->w) & s->mask;
	while (s->slot[h]) {
		e = s->slot[h] - 1;
		if (comps_eq(s->keys + e * s->w, k, s->w))
			goto found;
		h = (h + 1) & s->mask;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		uint64_t *kv = realloc(s->keys, cap * (s->w ? s->w : 1) *
				       sizeof(*kv));
		int64_t *sv;

		if (!kv)
			return -1;
		s->keys = kv;
		if (!(sv = realloc(s->sum, cap * sizeof(*sv))))
			return -1;
		s->sum = sv;
		s->cap = cap;
	}
	e = s->n++;
	memcpy(s->keys + e * s->w, k, s->w * sizeof(*k));
	s->sum[e] = 0;
	s->slot[h] = (uint32_t)(e + 1);
found:
	s->last = e + 1;
add:
	if (s->sum[e] > INT64_MAX - v) {
		s->sum[e] = INT64_MAX;
		*sat = true;
	} else {
		s->sum[e] += v;
	}
	return 0;
}

/* Reduce S with R into RES. */
static void sums_reduce(const struct sums *s, enum st_metric_reduce r,
			st_metric_result *res, bool *sat)
{
	long double total = 0;
	int64_t v = 0;

	memset(res, 0, sizeof(*res));
	res->keys = s->n;
	if (!s->n)
		return;
	res->has = true;
	v = s->sum[0];
	for (size_t e = 0; e < s->n; e++) {
		int64_t x = s->sum[e];

		total += x;
		if (e == 0)
			continue;
		if (r == ST_REDUCE_MAX && x > v)
			v = x;
		else if (r == ST_REDUCE_MIN && x < v)
			v = x;
		else if (r == ST_REDUCE_SUM || r == ST_REDUCE_MEAN) {
			if (v > INT64_MAX - x) {
				v = INT64_MAX;
				*sat = true;
			} else {
				v += x;
			}
		}
	}
	res->v = v;
	res->mean = (double)(total / (long double)s->n);
}

/* ---- one pass over a case -------------------------------------------- */

struct pass;
static int reduce_metric(struct pass *p, size_t i, st_metric_result *res);

/* A derived key (basename, pattern, prefix:N) the metrics use. */
struct derived {
	st_trace_key key;
	uint32_t *gid;        /* per reader file id: case id + 1, 0 unknown */
};

/* What a case's pass holds. */
struct pass {
	const st_metrics *m;
	st_strtab tab;        /* every string a key takes, case-wide */
	struct sums *sums;    /* per metric */
	/* the metrics' distinct filters, ST_TRACE_FSET_MAX to a set */
	struct st_trace_fset *fs;
	size_t nfs;
	uint32_t *gid;        /* per reader string id: case id + 1 */
	size_t gcap;          /* of gid and every derived gid */
	struct derived der[ST_TRACE_KEYS_MAX * 4];
	size_t nder;
	uint8_t *dslot;       /* per metric and key: its derived + 1 */
	uint32_t *phid;       /* per trace_phase_seg of the case: its phase's
			       * case id + 1, 0 unknown (NULL none yet) */
	char *phases;         /* a merge's: the case's "phases" in its first
			       * partial as compact JSON, NULL none */
	char *kb;             /* a derived value */
	size_t kcap;
	bool sat;
	uint64_t events, bad_lines;
	st_trace_bad *bad;    /* the first max_bad of the files read */
	size_t n_bad;
	/* per metric, per key component: a string id (else a number) */
	bool (*cstr)[MAX_COMPS];
	st_trace_keys *keys;  /* per metric: its by keys, then its per */
	/* the metrics an event goes to, as bits of mw words: those without
	 * a filter, those of each filter, the event's */
	size_t mw;
	uint64_t *m_all, *m_of, *m_ev;
	/* events metrics: per metric a writer (NULL for the others), and
	 * where the rows of the file being read go (NULL: a temporary file
	 * to make, into tmp[metric]) */
	struct st_trace_rows **rows;
	FILE **cur;
	FILE **tmp;           /* rows of files read out of turn, appended */
	uint64_t *tmp_at;     /* where the file being read began in tmp */
	int row_err;          /* -1 out of memory, -2 a write failed */
	size_t row_metric;    /* which */
	int row_errno;
};

/* Make room for reader string id ID in the id maps (new room 0). */
static int pass_room(struct pass *p, uint32_t id)
{
	size_t cap;
	uint32_t *v;

	if (id < p->gcap)
		return 0;
	cap = p->gcap ? p->gcap : 1024;
	while (cap <= id)
		cap *= 2;
	for (size_t d = 0; d <= p->nder; d++) {
		uint32_t **pp = d < p->nder ? &p->der[d].gid : &p->gid;

		if (!(v = realloc(*pp, cap * sizeof(*v))))
			return -1;
		memset(v + p->gcap, 0, (cap - p->gcap) * sizeof(*v));
		*pp = v;
	}
	p->gcap = cap;
	return 0;
}

/* The case-wide id of R's string ID, as a component, into *OUT.  0, -1
 * out of memory. */
static int global_id(struct pass *p, const st_pfw_reader *r, uint32_t id,
		     uint64_t *out)
{
	const char *s;
	size_t len;
	int64_t g;

	if (id == ST_PFW_NONE) {
		*out = NONE;
		return 0;
	}
	if (!p->gid[id]) {
		s = st_pfw_str(r, id, &len);
		if ((g = st_strtab_intern(&p->tab, s, len, NULL)) < 0)
			return -1;
		p->gid[id] = (uint32_t)g + 1;
	}
	*out = p->gid[id] - 1;
	return 0;
}

/* Derived key D of R's string FILE (an event's file), as a component,
 * into *OUT.  0, -1 out of memory. */
static int derived_id(struct pass *p, struct derived *d,
		      const st_pfw_reader *r, uint32_t file, uint64_t *out)
{
	st_trace_rec e = { 0 };
	size_t n;
	int64_t g;

	*out = NONE;
	if (file == ST_PFW_NONE)
		return 0;
	if (d->gid[file]) {
		*out = d->gid[file] - 1;
		return 0;
	}
	e.file = st_pfw_str(r, file, &e.file_len);
	if (st_trace_key_text(&d->key, &e, &p->kb, &p->kcap, &n) < 0)
		return -1;
	if (n == ST_TRACE_KEY_NONE)
		return 0;
	if ((g = st_strtab_intern(&p->tab, p->kb, n, NULL)) < 0)
		return -1;
	d->gid[file] = (uint32_t)g + 1;
	*out = (uint64_t)g;
	return 0;
}

/* The phase key of an event of case C that starts at TS (the innermost
 * phase of C's sets there, trace_phase_seg), as a component, into *OUT.
 * 0, -1 out of memory. */
static int phase_id(struct pass *p, const st_compare_case *c, int64_t ts,
		    uint64_t *out)
{
	uint32_t s;
	const char *name;
	int64_t g;

	*out = NONE;
	if (!c->seg_phase || !c->nseg)
		return 0;
	s = trace_phase_seg(c->seg_us, c->nseg, ts);
	if (!s || !(name = c->seg_phase[s - 1]))
		return 0;
	if (!p->phid && !(p->phid = calloc(c->nseg + 1, sizeof(*p->phid))))
		return -1;
	if (!p->phid[s]) {
		if ((g = st_strtab_intern(&p->tab, name, strlen(name),
					  NULL)) < 0)
			return -1;
		p->phid[s] = (uint32_t)g + 1;
	}
	*out = p->phid[s] - 1;
	return 0;
}

static bool is_derived(enum st_trace_key_kind k)
{
	return k == ST_TRACE_KEY_BASENAME || k == ST_TRACE_KEY_PATTERN ||
	       k == ST_TRACE_KEY_PREFIX;
}

static size_t key_width(const st_trace_keys *k)
{
	size_t w = 0;

	for (size_t i = 0; i < k->n; i++)
		w += k->v[i].kind == ST_TRACE_KEY_THREAD ? 3 :
		     k->v[i].kind == ST_TRACE_KEY_PID ? 2 : 1;
	return w;
}

/* Do filters A and B have the same terms, in the same order? */
static bool filter_same(const st_trace_filter *a, const st_trace_filter *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const st_trace_term *x = &a->v[i], *y = &b->v[i];

		if (x->field != y->field || x->op != y->op ||
		    x->neg != y->neg || x->num != y->num ||
		    !x->value != !y->value ||
		    (x->value && strcmp(x->value, y->value) != 0))
			return false;
	}
	return true;
}

/* The metrics' filters into P's sets, a filter the same as an earlier
 * metric's sharing its number.  0, -1 out of memory. */
static int pass_filters(struct pass *p, const st_metrics *m)
{
	size_t nf = 0;
	/* per metric: its filter's number in the sets, -1 no filter */
	int *fbit = malloc(m->n * sizeof(*fbit));
	int ret = -1;

	if (!fbit)
		return -1;
	for (size_t i = 0; i < m->n; i++) {
		size_t j;

		fbit[i] = -1;
		if (!m->v[i].filter.n)
			continue;
		for (j = 0; j < i; j++)
			if (fbit[j] >= 0 &&
			    filter_same(&m->v[j].filter, &m->v[i].filter))
				break;
		fbit[i] = j < i ? fbit[j] : (int)nf++;
	}
	p->mw = (m->n + 63) / 64;
	if (!(p->m_all = calloc(p->mw, sizeof(uint64_t))) ||
	    !(p->m_ev = calloc(p->mw, sizeof(uint64_t))) ||
	    (nf && !(p->m_of = calloc(nf * p->mw, sizeof(uint64_t)))))
		goto out;
	p->nfs = (nf + ST_TRACE_FSET_MAX - 1) / ST_TRACE_FSET_MAX;
	if (p->nfs && !(p->fs = calloc(p->nfs, sizeof(*p->fs)))) {
		p->nfs = 0;
		goto out;
	}
	for (size_t i = 0; i < m->n; i++) {
		int b = fbit[i];
		uint64_t bit = UINT64_C(1) << (i % 64);

		if (b < 0) {
			p->m_all[i / 64] |= bit;
			continue;
		}
		p->m_of[(size_t)b * p->mw + i / 64] |= bit;
		if ((size_t)b % ST_TRACE_FSET_MAX ==
		    p->fs[b / ST_TRACE_FSET_MAX].n)
			st_trace_fset_add(&p->fs[b / ST_TRACE_FSET_MAX],
					  &m->v[i].filter);
	}
	ret = 0;
out:
	free(fbit);
	return ret;
}

static int pass_init(struct pass *p, const st_metrics *m)
{
	memset(p, 0, sizeof(*p));
	p->m = m;
	st_strtab_init(&p->tab);
	if (!(p->sums = calloc(m->n, sizeof(*p->sums))) ||
	    !(p->dslot = calloc(m->n * ST_TRACE_KEYS_MAX, 1)) ||
	    !(p->cstr = calloc(m->n, sizeof(*p->cstr))) ||
	    !(p->keys = calloc(m->n, sizeof(*p->keys))) ||
	    pass_filters(p, m) < 0)
		return -1;
	for (size_t i = 0; i < m->n; i++) {
		st_trace_keys *k = &p->keys[i];
		size_t w = 0;

		*k = m->v[i].by;
		memcpy(k->v + k->n, m->v[i].per.v,
		       m->v[i].per.n * sizeof(*k->v));
		k->n += m->v[i].per.n;

		p->sums[i].w = key_width(k);
		for (size_t j = 0; j < k->n; j++) {
			enum st_trace_key_kind kind = k->v[j].kind;
			size_t d;

			p->cstr[i][w++] = true;
			if (kind == ST_TRACE_KEY_PID ||
			    kind == ST_TRACE_KEY_THREAD)
				w++;
			if (kind == ST_TRACE_KEY_THREAD)
				w++;

			if (!is_derived(k->v[j].kind))
				continue;
			for (d = 0; d < p->nder; d++)
				if (p->der[d].key.kind == k->v[j].kind &&
				    p->der[d].key.depth == k->v[j].depth)
					break;
			if (d == p->nder)
				p->der[p->nder++].key = k->v[j];
			p->dslot[i * ST_TRACE_KEYS_MAX + j] = (uint8_t)(d + 1);
		}
	}
	for (size_t i = 0; i < m->n; i++) {
		st_error e;

		if (!m->v[i].events)
			continue;
		if ((!p->rows && (!(p->rows = calloc(m->n, sizeof(*p->rows))) ||
				  !(p->cur = calloc(m->n, sizeof(*p->cur))) ||
				  !(p->tmp = calloc(m->n, sizeof(*p->tmp))) ||
				  !(p->tmp_at = calloc(m->n,
						       sizeof(*p->tmp_at))))) ||
		    st_trace_rows_new(&p->rows[i], m->v[i].format,
				      &m->v[i].cols, &e) < 0)
			return -1;
	}
	return 0;
}

static void pass_release(struct pass *p)
{
	for (size_t i = 0; p->m && i < p->m->n; i++) {
		if (p->sums)
			sums_release(&p->sums[i]);
	}
	for (size_t i = 0; i < p->nfs; i++)
		st_trace_fset_release(&p->fs[i]);
	free(p->fs);
	free(p->sums);
	free(p->dslot);
	free(p->phid);
	free(p->phases);
	free(p->cstr);
	free(p->keys);
	free(p->m_all);
	free(p->m_of);
	free(p->m_ev);
	for (size_t i = 0; p->rows && i < p->m->n; i++)
		st_trace_rows_free(p->rows[i]);
	free(p->rows);
	free(p->cur);
	for (size_t i = 0; p->tmp && i < p->m->n; i++)
		if (p->tmp[i])
			fclose(p->tmp[i]);
	free(p->tmp);
	free(p->tmp_at);
	st_trace_inputs_free(NULL, 0, p->bad, p->n_bad);
	free(p->gid);
	for (size_t d = 0; d < p->nder; d++)
		free(p->der[d].gid);
	free(p->kb);
	st_strtab_release(&p->tab);
}

/* Append S[0..LEN) to *B (*N bytes of *CAP) as its escaped text
 * (text.h; FLAGS).  0, -1 out of memory. */
static int show_put(char **b, size_t *n, size_t *cap, const char *s,
		    size_t len, unsigned flags)
{
	if (len > (SIZE_MAX - *n - 1) / ST_TEXT_GROWTH ||
	    st_grow(b, cap, *n + ST_TEXT_GROWTH * len + 1, 1, 64) < 0)
		return -1;
	*n += st_text_escape(*b + *n, s, len, flags);
	(*b)[*n] = 0;
	return 0;
}

/* The by key K (its components) of metric I of P as shown (see
 * trace_compare.h), into *OUT (allocated).  0, -1 out of memory. */
static int show_key(const struct pass *p, size_t i, const uint64_t *k,
		    char **out)
{
	const st_trace_keys *by = &p->m->v[i].by;
	unsigned esc = by->n > 1 ? ST_TEXT_COMMA : 0;
	char *b = NULL, num[48];
	size_t n = 0, cap = 0, c = 0;
	int rc = show_put(&b, &n, &cap, "", 0, 0);

	for (size_t j = 0; rc == 0 && j < by->n; j++) {
		enum st_trace_key_kind kind = by->v[j].kind;
		const char *str = "(none)";
		size_t len = 6;

		if (j)
			rc = show_put(&b, &n, &cap, ",", 1, 0);
		if (kind == ST_TRACE_KEY_PID || kind == ST_TRACE_KEY_THREAD) {
			str = "?";
			len = 1;
		}
		if (k[c] != NONE)
			str = st_strtab_str(&p->tab, (uint32_t)k[c], &len);
		c++;
		if (rc == 0)
			rc = show_put(&b, &n, &cap, str, len, esc);
		if (kind == ST_TRACE_KEY_PID)
			len = (size_t)snprintf(num, sizeof(num), ":%" PRId64,
					       (int64_t)k[c]);
		else if (kind == ST_TRACE_KEY_THREAD)
			len = (size_t)snprintf(num, sizeof(num), ":%" PRId64
					       ":%" PRId64, (int64_t)k[c],
					       (int64_t)k[c + 1]);
		else
			continue;
		c += kind == ST_TRACE_KEY_THREAD ? 2 : 1;
		if (rc == 0)
			rc = show_put(&b, &n, &cap, num, len, 0);
	}
	if (rc < 0) {
		free(b);
		return -1;
	}
	*out = b;
	return 0;
}

static int cmp_row(const void *x, const void *y)
{
	return strcmp(((const st_metric_row *)x)->key,
		      ((const st_metric_row *)y)->key);
}

/* Metric I of P reduced into RES: over all its keys, or, for a by
 * metric, over the keys of each by key into a row of RES.  0, -1 out
 * of memory. */
static int reduce_metric(struct pass *p, size_t i, st_metric_result *res)
{
	const st_metric *m = &p->m->v[i];
	const struct sums *s = &p->sums[i];
	struct sums g = { .w = key_width(&m->by) }, part = { 0 };
	size_t *grp = NULL, *at = NULL;
	int64_t *perm = NULL;
	bool sat = false;
	int ret = -1;

	if (!m->by.n) {
		sums_reduce(s, m->reduce, res, &p->sat);
		return 0;
	}
	memset(res, 0, sizeof(*res));
	res->keys = s->n;
	if (!s->n)
		return 0;
	if (!(grp = malloc(s->n * sizeof(*grp))) ||
	    !(perm = malloc(s->n * sizeof(*perm))))
		goto out;
	for (size_t e = 0; e < s->n; e++) {
		if (sums_add(&g, s->keys + e * s->w, 0, &sat) < 0)
			goto out;
		grp[e] = g.last - 1;
	}
	if (!(at = calloc(g.n + 1, sizeof(*at))) ||
	    !(res->rows = calloc(g.n, sizeof(*res->rows))))
		goto out;
	for (size_t e = 0; e < s->n; e++)
		at[grp[e] + 1]++;
	for (size_t j = 0; j < g.n; j++)
		at[j + 1] += at[j];
	for (size_t e = 0; e < s->n; e++)
		perm[at[grp[e]]++] = s->sum[e];
	for (size_t j = g.n; j > 0; j--)
		at[j] = at[j - 1];
	at[0] = 0;
	for (size_t j = 0; j < g.n; j++) {
		part.n = at[j + 1] - at[j];
		part.sum = perm + at[j];
		sums_reduce(&part, m->reduce, &res->rows[j].r, &p->sat);
		if (show_key(p, i, g.keys + j * g.w, &res->rows[j].key) < 0)
			goto out;
		res->n_rows = j + 1;
	}
	qsort(res->rows, res->n_rows, sizeof(*res->rows), cmp_row);
	res->has = true;
	ret = 0;
out:
	sums_release(&g);
	free(grp);
	free(at);
	free(perm);
	return ret;
}

/* A new reader: forget the old one's ids. */
static void pass_reader(struct pass *p)
{
	if (p->gid)
		memset(p->gid, 0, p->gcap * sizeof(*p->gid));
	for (size_t d = 0; d < p->nder; d++)
		if (p->der[d].gid)
			memset(p->der[d].gid, 0, p->gcap * sizeof(uint32_t));
	for (size_t i = 0; i < p->nfs; i++)
		st_trace_fset_reader(&p->fs[i]);
	for (size_t i = 0; i < p->m->n; i++) {
		p->sums[i].last = 0;
		if (p->rows && p->rows[i])
			st_trace_rows_reader(p->rows[i]);
	}
}

/* EV of R as a row of events metric I, to p->cur[i] or a temporary
 * file made for it.  0, -1 (p->row_err says why). */
static int put_row(struct pass *p, size_t i, const st_pfw_reader *r,
		   const st_pfw_event *ev)
{
	int rc;

	p->row_metric = i;
	if (!p->cur[i]) {
		off_t at;

		if ((!p->tmp[i] && !(p->tmp[i] = tmpfile())) ||
		    (at = ftello(p->tmp[i])) < 0) {
			p->row_err = -2;
			p->row_errno = errno;
			return -1;
		}
		p->tmp_at[i] = (uint64_t)at;
		p->cur[i] = p->tmp[i];
		st_trace_rows_out(p->rows[i], p->cur[i]);
	}
	if ((rc = st_trace_rows_put(p->rows[i], r, ev)) < 0) {
		p->row_err = rc;
		p->row_errno = errno;
		return -1;
	}
	return 0;
}

/* EV of R, an input of case C, into every metric whose filter keeps
 * it.  0, -1 out of memory or (p->row_err) an events row not written. */
static int pass_event(struct pass *p, const st_compare_case *c,
		      const st_pfw_reader *r, const st_pfw_event *ev)
{
	uint32_t top = ev->name;
	uint64_t k[MAX_COMPS];

	if (ev->cat > top)
		top = ev->cat;
	if (ev->host != ST_PFW_NONE && ev->host > top)
		top = ev->host;
	if (ev->file != ST_PFW_NONE && ev->file > top)
		top = ev->file;
	if (pass_room(p, top) < 0)
		return -1;
	memcpy(p->m_ev, p->m_all, p->mw * sizeof(*p->m_ev));
	for (size_t f = 0; f < p->nfs; f++) {
		uint64_t b;

		/* a regular expression's failure stops the pass as
		 * memory running out does (74) */
		if (st_trace_fset_eval(&p->fs[f], r, ev, &b, NULL) < 0)
			return -1;
		for (; b; b &= b - 1) {
			const uint64_t *of = p->m_of + (f * ST_TRACE_FSET_MAX +
				(size_t)__builtin_ctzll(b)) * p->mw;

			for (size_t w = 0; w < p->mw; w++)
				p->m_ev[w] |= of[w];
		}
	}
	for (size_t mi = 0; mi < p->mw * 64; mi += 64)
	for (uint64_t bits = p->m_ev[mi / 64]; bits; bits &= bits - 1) {
		size_t i = mi + (size_t)__builtin_ctzll(bits);
		const st_metric *m = &p->m->v[i];
		size_t w = 0;
		int64_t v;

		if (m->events && put_row(p, i, r, ev) < 0)
			return -1;
		for (size_t j = 0; j < p->keys[i].n; j++) {
			const st_trace_key *key = &p->keys[i].v[j];
			uint8_t d = p->dslot[i * ST_TRACE_KEYS_MAX + j];
			int rc = 0;

			switch (key->kind) {
			case ST_TRACE_KEY_THREAD:
			case ST_TRACE_KEY_PID:
			case ST_TRACE_KEY_HOST:
				rc = global_id(p, r, ev->host, &k[w++]);
				if (key->kind != ST_TRACE_KEY_HOST)
					k[w++] = (uint64_t)ev->pid;
				if (key->kind == ST_TRACE_KEY_THREAD)
					k[w++] = (uint64_t)ev->tid;
				break;
			case ST_TRACE_KEY_NAME:
				rc = global_id(p, r, ev->name, &k[w++]);
				break;
			case ST_TRACE_KEY_CAT:
				rc = global_id(p, r, ev->cat, &k[w++]);
				break;
			case ST_TRACE_KEY_FILE:
				rc = global_id(p, r, ev->file, &k[w++]);
				break;
			case ST_TRACE_KEY_PHASE:
				rc = phase_id(p, c, ev->ts, &k[w++]);
				break;
			default:
				rc = derived_id(p, &p->der[d - 1], r, ev->file,
						&k[w++]);
				break;
			}
			if (rc < 0)
				return -1;
		}
		v = m->value == ST_METRIC_DUR ? ev->dur :
		    m->value == ST_METRIC_COUNT ? 1 :
		    ev->bytes > 0 ? ev->bytes : 0;
		if (sums_add(&p->sums[i], k, v, &p->sat) < 0)
			return -1;
	}
	return 0;
}

/* Read input FI of C to its end into P.  0, or -1 out of memory. */
static int read_one(struct pass *p, st_compare_case *c, size_t fi,
		    const st_compare_opts *o)
{
	st_trace_file *tf = &c->files_in[fi];
	const char *path = c->paths[fi];
	st_pfw_reader *r;
	st_pfw_event ev;
	st_error rerr;
	uint64_t seen = 0, tick = 0;
	int rc, ret = 0;
	bool oom = false;

	if (!(r = st_trace_input_open(tf, path, c->src, &oom)))
		return oom ? -1 : 0;
	pass_reader(p);
	while ((rc = st_pfw_next(r, &ev, &rerr)) > 0) {
		if (rc == ST_PFW_BAD) {
			if ((ret = st_trace_bad_keep(&p->bad, &p->n_bad,
						     &p->bad_lines, o->max_bad,
						     fi, r)) < 0)
				break;
			continue;
		}
		p->events++;
		if ((ret = pass_event(p, c, r, &ev)) < 0)
			break;
		if ((++tick & 8191) == 0)
			trace_progress_add(o->progress, &seen, r, NULL);
	}
	if (st_trace_input_close(tf, r, rc, &rerr, ret == 0, o->progress,
				 seen) < 0)
		ret = -1;
	return ret;
}

/* Add what SRC gathered (another thread's pass over other files of the
 * same case) into DST: its keys' strings re-interned into DST's table.
 * 0, or -1 out of memory. */
static int pass_merge(struct pass *dst, const struct pass *src)
{
	uint64_t k[MAX_COMPS];

	for (size_t i = 0; i < dst->m->n; i++) {
		const struct sums *s = &src->sums[i];

		for (size_t e = 0; e < s->n; e++) {
			memcpy(k, s->keys + e * s->w, s->w * sizeof(*k));
			for (size_t j = 0; j < s->w; j++) {
				const char *str;
				size_t len;
				int64_t g;

				if (!dst->cstr[i][j] || k[j] == NONE)
					continue;
				str = st_strtab_str(&src->tab, (uint32_t)k[j],
						    &len);
				if ((g = st_strtab_intern(&dst->tab, str, len,
							  NULL)) < 0)
					return -1;
				k[j] = (uint64_t)g;
			}
			if (sums_add(&dst->sums[i], k, s->sum[e], &dst->sat) < 0)
				return -1;
		}
	}
	dst->sat |= src->sat;
	dst->events += src->events;
	dst->bad_lines += src->bad_lines;
	return 0;
}

static int cmp_bad(const void *x, const void *y)
{
	const st_trace_bad *a = x, *b = y;

	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* The corrupt lines kept by the passes P[0..N) of case C, in order of
 * the files and lines, the first MAX of them, into C.  0, -1 out of
 * memory. */
static int gather_bad(st_compare_case *c, struct pass **p, size_t n,
		      size_t max)
{
	size_t total = 0;

	for (size_t t = 0; t < n; t++)
		total += p[t] ? p[t]->n_bad : 0;
	if (!total)
		return 0;
	if (!(c->bad = calloc(total, sizeof(*c->bad))))
		return -1;
	for (size_t t = 0; t < n; t++) {
		if (!p[t] || !p[t]->n_bad)
			continue;
		memcpy(c->bad + c->n_bad, p[t]->bad,
		       p[t]->n_bad * sizeof(*c->bad));
		c->n_bad += p[t]->n_bad;
		free(p[t]->bad);
		p[t]->bad = NULL;
		p[t]->n_bad = 0;
	}
	qsort(c->bad, c->n_bad, sizeof(*c->bad), cmp_bad);
	while (c->n_bad > max)
		free(c->bad[--c->n_bad].why);
	return 0;
}

/* Rows of a unit read out of turn: LEN bytes at OFF of F. */
struct kept {
	FILE *f;
	uint64_t off, len;
};

/* The work: every file of every case, taken one at a time by the
 * threads, each thread gathering into a pass of its own per case. */
struct pool {
	st_compare_case *cases;
	size_t n;
	size_t *first;           /* case i's files are units first[i].. */
	size_t units;
	const st_compare_opts *o;
	struct pass **passes;    /* [thread * n + case], NULL: none yet */
	size_t nt;               /* threads */
	_Atomic size_t next;
	_Atomic bool failed;
	/* events metrics (nev of them): their rows go out unit after unit */
	size_t nev;
	pthread_mutex_t mu;      /* over what follows */
	size_t *out_next;        /* per case: its first unit not out */
	uint8_t *done;           /* per unit: read */
	struct kept *kept;       /* per unit and events metric: where its
				  * rows wait (a thread's temporary file) */
	int row_err;             /* the first: -1 out of memory, -2 write */
	size_t err_case, err_metric;
	int err_errno;
};

struct worker_arg {
	struct pool *pl;
	size_t t;
};

/* Note failure RC (-1, -2 with errno E) of metric I of case C, the
 * first one only.  Under PL->mu. */
static void row_fail(struct pool *pl, int rc, size_t c, size_t i, int e)
{
	if (!pl->row_err) {
		pl->row_err = rc;
		pl->err_case = c;
		pl->err_metric = i;
		pl->err_errno = e ? e : EIO;
	}
	atomic_store(&pl->failed, true);
}

/* Unit U of case C begins in P: its rows go straight to the case's
 * streams when every unit before it is out, else to temporary files. */
static void unit_begin(struct pool *pl, struct pass *p, size_t c, size_t u)
{
	const st_metrics *m = pl->o->metrics;
	bool direct;

	pthread_mutex_lock(&pl->mu);
	direct = pl->first[c] + pl->out_next[c] == u;
	pthread_mutex_unlock(&pl->mu);
	for (size_t i = 0; i < m->n; i++)
		if (p->rows[i]) {
			p->cur[i] = direct ? pl->cases[c].events_out[i] : NULL;
			st_trace_rows_out(p->rows[i], p->cur[i]);
		}
}

/* Copy LEN bytes of F at OFF to TO, F's position left alone (its
 * thread may be writing it).  0, -1 (errno). */
static int copy_range(FILE *f, uint64_t off, uint64_t len, FILE *to)
{
	char buf[1 << 16];

	while (len) {
		ssize_t k = pread(fileno(f), buf, len < sizeof(buf) ?
				  (size_t)len : sizeof(buf), (off_t)off);

		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return -1;
		}
		if (fwrite(buf, 1, (size_t)k, to) != (size_t)k)
			return -1;
		off += (uint64_t)k;
		len -= (uint64_t)k;
	}
	return 0;
}

/* The rows of unit U of case C, events metric I (the K-th), written to
 * P's temporary file from p->tmp_at[I] on: copied to the case's stream
 * when U is next, else kept where they are until its turn.  Under
 * PL->mu. */
static void unit_rows(struct pool *pl, struct pass *p, size_t c, size_t u,
		      size_t i, size_t k)
{
	struct kept *kp = &pl->kept[u * pl->nev + k];
	off_t end;

	if (fflush(p->tmp[i]) != 0 || (end = ftello(p->tmp[i])) < 0) {
		row_fail(pl, -2, c, i, errno);
		return;
	}
	*kp = (struct kept){ p->tmp[i], p->tmp_at[i],
			     (uint64_t)end - p->tmp_at[i] };
	if (pl->first[c] + pl->out_next[c] != u)
		return;
	if (copy_range(kp->f, kp->off, kp->len,
		       pl->cases[c].events_out[i]) < 0)
		row_fail(pl, -2, c, i, errno);
	kp->len = 0;
}

/* Unit U of case C is read in P: its rows out or kept, and every unit
 * of C read in turn since the last one out written out. */
static void unit_end(struct pool *pl, struct pass *p, size_t c, size_t u)
{
	const st_metrics *m = pl->o->metrics;
	st_compare_case *cs = &pl->cases[c];
	size_t k = 0;

	pthread_mutex_lock(&pl->mu);
	for (size_t i = 0; i < m->n; i++) {
		if (!p->rows[i])
			continue;
		if (st_trace_rows_flush(p->rows[i]) < 0)
			row_fail(pl, -2, c, i, errno);
		st_trace_rows_out(p->rows[i], NULL);
		if (p->cur[i] && p->cur[i] == p->tmp[i])
			unit_rows(pl, p, c, u, i, k);
		p->cur[i] = NULL;
		k++;
	}
	pl->done[u] = 1;
	while (pl->out_next[c] < cs->n &&
	       pl->done[pl->first[c] + pl->out_next[c]]) {
		size_t v = pl->first[c] + pl->out_next[c];

		k = 0;
		for (size_t i = 0; i < m->n; i++) {
			struct kept *kp = &pl->kept[v * pl->nev + k];

			if (!m->v[i].events)
				continue;
			if (kp->len && copy_range(kp->f, kp->off, kp->len,
						  cs->events_out[i]) < 0)
				row_fail(pl, -2, c, i, errno);
			k++;
		}
		pl->out_next[c]++;
	}
	/* all of C is out: its threads' temporary files can go, so that
	 * open files stay few whatever the number of cases */
	for (size_t t = 0; pl->out_next[c] == cs->n && t < pl->nt; t++) {
		struct pass *q = pl->passes[t * pl->n + c];

		for (size_t i = 0; q && q->tmp && i < m->n; i++)
			if (q->tmp[i]) {
				fclose(q->tmp[i]);
				q->tmp[i] = NULL;
			}
	}
	pthread_mutex_unlock(&pl->mu);
}

static void *worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct pool *pl = wa->pl;
	size_t u;

	while (!atomic_load(&pl->failed) &&
	       (u = atomic_fetch_add(&pl->next, 1)) < pl->units) {
		size_t c = 0;
		struct pass **pp;

		while (c + 1 < pl->n && pl->first[c + 1] <= u)
			c++;
		pp = &pl->passes[wa->t * pl->n + c];
		if (!*pp && (!(*pp = calloc(1, sizeof(**pp))) ||
			     pass_init(*pp, pl->o->metrics) < 0)) {
			atomic_store(&pl->failed, true);
			break;
		}
		if (pl->nev)
			unit_begin(pl, *pp, c, u);
		for (size_t i = 0; (*pp)->rows && i < pl->o->metrics->n; i++)
			if ((*pp)->rows[i])
				st_trace_rows_phases((*pp)->rows[i],
						     pl->cases[c].seg_us,
						     pl->cases[c].nseg,
						     pl->cases[c].seg_phase);
		if (read_one(*pp, &pl->cases[c], u - pl->first[c], pl->o) < 0) {
			pthread_mutex_lock(&pl->mu);
			if ((*pp)->row_err)
				row_fail(pl, (*pp)->row_err, c,
					 (*pp)->row_metric, (*pp)->row_errno);
			else
				atomic_store(&pl->failed, true);
			pthread_mutex_unlock(&pl->mu);
		}
		if (pl->nev)
			unit_end(pl, *pp, c, u);
	}
	return NULL;
}

/* Case C's answers from the threads' passes P[0..NT) (released here). */
static int finish_case(st_compare_case *c, struct pass **p, size_t nt,
		       const st_compare_opts *o)
{
	const st_metrics *m = o->metrics;
	struct pass *dst = NULL, empty;
	int ret = 0;

	for (size_t t = 0; t < nt; t++) {
		if (!p[t])
			continue;
		if (!dst)
			dst = p[t];
		else if (pass_merge(dst, p[t]) < 0)
			ret = -1;
	}
	if (!dst) {
		dst = &empty;
		if (pass_init(dst, m) < 0)
			ret = -1;
	}
	if (ret == 0 && gather_bad(c, p, nt, o->max_bad) < 0)
		ret = -1;
	c->n_files = c->n;
	c->events = dst->events;
	c->bad_lines = dst->bad_lines;
	for (size_t i = 0; ret == 0 && i < m->n; i++)
		if (reduce_metric(dst, i, &c->res[i]) < 0)
			ret = -1;
	c->saturated = dst->sat;
	if (ret == 0 && o->keep) {
		struct pass *k = dst;

		if (dst == &empty && !(k = malloc(sizeof(*k))))
			ret = -1;
		else if (dst == &empty)
			*k = empty;
		for (size_t t = 0; t < nt; t++)
			if (p[t] == k)
				p[t] = NULL;
		if (ret == 0) {
			c->state = (struct st_compare_state *)k;
			return 0;
		}
	}
	if (dst == &empty)
		pass_release(&empty);
	return ret;
}

/* The ordering of PL's events rows set up, and each case's events
 * streams given their CSV header.  0, -1 with ERR. */
static int rows_begin(struct pool *pl, st_error *err)
{
	const st_metrics *m = pl->o->metrics;

	pthread_mutex_init(&pl->mu, NULL);
	if (!(pl->out_next = calloc(pl->n ? pl->n : 1,
				    sizeof(*pl->out_next))) ||
	    !(pl->done = calloc(pl->units ? pl->units : 1, 1)) ||
	    !(pl->kept = calloc((pl->units ? pl->units : 1) * pl->nev,
				sizeof(*pl->kept))))
		return OOM(err);
	for (size_t c = 0; c < pl->n; c++)
		for (size_t i = 0; i < m->n; i++) {
			struct st_trace_rows *w;
			FILE *f;
			int rc;

			if (!m->v[i].events)
				continue;
			if (!pl->cases[c].events_out ||
			    !(f = pl->cases[c].events_out[i]))
				return st_error_set(err, ST_EXIT_USAGE, "case %s: "
						    "metric '%s' writes events "
						    "and has nowhere to",
						    pl->cases[c].name,
						    m->v[i].name);
			if (st_trace_rows_new(&w, m->v[i].format,
					      &m->v[i].cols, err) < 0)
				return -1;
			st_trace_rows_out(w, f);
			rc = st_trace_rows_header(w) < 0 ||
			     st_trace_rows_flush(w) < 0;
			st_trace_rows_free(w);
			if (rc)
				return st_error_set(err, ST_EXIT_IOERR, "case %s: "
						    "metric '%s': cannot write "
						    "its events: %s",
						    pl->cases[c].name,
						    m->v[i].name,
						    strerror(errno ? errno :
							     EIO));
		}
	return 0;
}

/* Release what rows_begin set up (temporary files left by a failure
 * closed). */
static void rows_end(struct pool *pl)
{
	free(pl->kept);
	free(pl->done);
	free(pl->out_next);
	pthread_mutex_destroy(&pl->mu);
}

int st_trace_compare(st_compare_case *cases, size_t n,
		     const st_compare_opts *o, st_error *err)
{
	struct pool pl = { .cases = cases, .n = n, .o = o };
	struct worker_arg wa[64];
	size_t nt = o->jobs < 1 ? 1 : (size_t)o->jobs, started = 0;
	pthread_t th[64];
	int ret = 0;

	if (!(pl.first = calloc(n ? n : 1, sizeof(*pl.first))))
		return OOM(err);
	for (size_t c = 0; c < n; c++) {
		pl.first[c] = pl.units;
		pl.units += cases[c].n;
		cases[c].n_res = o->metrics->n;
		if (!(cases[c].res = calloc(o->metrics->n ? o->metrics->n : 1,
					    sizeof(*cases[c].res))) ||
		    !(cases[c].files_in = calloc(cases[c].n ? cases[c].n : 1,
						 sizeof(*cases[c].files_in))))
			ret = -1;
	}
	for (size_t i = 0; i < o->metrics->n; i++)
		pl.nev += o->metrics->v[i].events;
	if (ret == 0 && pl.nev && rows_begin(&pl, err) < 0) {
		rows_end(&pl);
		free(pl.first);
		return -1;
	}
	if (nt > pl.units)
		nt = pl.units ? pl.units : 1;
	if (nt > 64)
		nt = 64;
	if (ret == 0 && !(pl.passes = calloc(nt * (n ? n : 1),
					     sizeof(*pl.passes))))
		ret = -1;
	pl.nt = nt;
	if (ret == 0) {
		for (size_t t = 0; t < nt; t++)
			wa[t] = (struct worker_arg){ &pl, t };
		for (size_t t = 1; t < nt; t++) {
			if (pthread_create(&th[started], NULL, worker,
					   &wa[t]) != 0)
				break;
			started++;
		}
		worker(&wa[0]);
		for (size_t i = 0; i < started; i++)
			pthread_join(th[i], NULL);
		if (atomic_load(&pl.failed))
			ret = -1;
	}
	for (size_t c = 0; pl.passes && c < n; c++) {
		struct pass *p[64];

		for (size_t t = 0; t < nt; t++)
			p[t] = pl.passes[t * n + c];
		if (ret == 0 && finish_case(&cases[c], p, nt, o) < 0)
			ret = -1;
		for (size_t t = 0; t < nt; t++)
			pl.passes[t * n + c] = p[t];
		for (size_t t = 0; t < nt; t++)
			if (p[t]) {
				pass_release(p[t]);
				free(p[t]);
			}
	}
	for (size_t c = 0; ret < 0 && c < n; c++)
		cases[c].n_files = cases[c].files_in ? cases[c].n : 0;
	free(pl.passes);
	free(pl.first);
	if (pl.row_err == -2)
		st_error_set(err, ST_EXIT_IOERR, "case %s: metric '%s': cannot "
			     "write its events: %s", cases[pl.err_case].name,
			     o->metrics->v[pl.err_metric].name,
			     strerror(pl.err_errno));
	else if (ret < 0)
		OOM(err);
	if (pl.nev)
		rows_end(&pl);
	return ret < 0 ? -1 : 0;
}

void st_compare_case_release(st_compare_case *c)
{
	if (!c)
		return;
	st_trace_inputs_free(c->files_in, c->n_files, c->bad, c->n_bad);
	if (c->state) {
		pass_release((struct pass *)c->state);
		free(c->state);
		c->state = NULL;
	}
	for (size_t i = 0; c->res && i < c->n_res; i++) {
		for (size_t r = 0; r < c->res[i].n_rows; r++)
			free(c->res[i].rows[r].key);
		free(c->res[i].rows);
	}
	free(c->res);
	c->res = NULL;
	c->n_res = 0;
	c->files_in = NULL;
	c->bad = NULL;
	c->n_files = c->n_bad = 0;
}

/* ---- partials -------------------------------------------------------- */

/* The sums of metric I of pass P: a line per key. */
static void put_sums(FILE *f, const struct pass *p, size_t i)
{
	const struct sums *s = &p->sums[i];

	fputs("{\"name\":", f);
	st_partial_put_cstr(f, p->m->v[i].name);
	fputs(",\"keys\":[", f);
	for (size_t e = 0; e < s->n; e++) {
		fputs(e ? ",\n[" : "\n[", f);
		for (size_t j = 0; j < s->w; j++) {
			uint64_t c = s->keys[e * s->w + j];
			const char *str;
			size_t len;

			if (j)
				fputc(',', f);
			if (!p->cstr[i][j] || c == NONE) {
				if (p->cstr[i][j])
					fputs("null", f);
				else
					fprintf(f, "%" PRId64, (int64_t)c);
				continue;
			}
			str = st_strtab_str(&p->tab, (uint32_t)c, &len);
			st_partial_put_str(f, str, len);
		}
		fputc(']', f);
	}
	fputs("],\"sums\":[", f);
	for (size_t e = 0; e < s->n; e++)
		fprintf(f, "%s%" PRId64, e ? "," : "", s->sum[e]);
	fputs("]}", f);
}

/* The phases of case C (its segments and their names), if it has any:
 * "phases":{"bounds":[US...],"names":[NAME|null...]}, then ','. */
static void put_phases(FILE *f, const st_compare_case *c)
{
	if (!c->nseg || !c->seg_phase)
		return;
	fputs("\n\"phases\":{\"bounds\":[", f);
	for (size_t k = 0; k < c->nseg; k++)
		fprintf(f, "%s%" PRId64, k ? "," : "", c->seg_us[k]);
	fputs("],\"names\":[", f);
	for (size_t k = 0; k < c->nseg; k++) {
		if (k)
			fputc(',', f);
		if (c->seg_phase[k])
			st_partial_put_cstr(f, c->seg_phase[k]);
		else
			fputs("null", f);
	}
	fputs("]},", f);
}

int st_compare_partial_write(FILE *f, const char *metrics_text,
			     const st_metrics *m, const st_compare_case *cs,
			     size_t n)
{
	fprintf(f, "{\"streamtime_partial\":%d,\"command\":\"trace compare\","
		"\n\"metrics\":", ST_COMPARE_PARTIAL_VERSION);
	st_partial_put_cstr(f, metrics_text);
	fputs(",\n\"cases\":[", f);
	for (size_t c = 0; c < n; c++) {
		const struct pass *p = (const struct pass *)cs[c].state;

		if (!p)
			return -1;
		fputs(c ? ",\n{\"name\":" : "\n{\"name\":", f);
		st_partial_put_cstr(f, cs[c].name);
		fprintf(f, ",\"events\":%" PRIu64 ",\"bad_lines\":%" PRIu64
			",\"saturated\":%s,", cs[c].events,
			cs[c].bad_lines, cs[c].saturated ? "true" : "false");
		put_phases(f, &cs[c]);
		fputs("\n\"files\":[", f);
		for (size_t i = 0; i < cs[c].n_files; i++) {
			fputs(i ? ",\n" : "\n", f);
			st_partial_put_file(f, &cs[c].files_in[i]);
		}
		fputs("],\n\"bad\":[", f);
		for (size_t i = 0; i < cs[c].n_bad; i++) {
			fprintf(f, "%s{\"file\":%zu,\"line\":%" PRIu64
				",\"why\":", i ? ",\n" : "\n",
				cs[c].bad[i].file, cs[c].bad[i].line);
			st_partial_put_cstr(f, cs[c].bad[i].why);
			fputc('}', f);
		}
		fputs("],\n\"metrics\":[", f);
		for (size_t i = 0; i < m->n; i++) {
			fputs(i ? ",\n" : "\n", f);
			put_sums(f, p, i);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	return ferror(f) ? -1 : 0;
}

#define BAD(...) st_error_set(err, ST_EXIT_DATAERR, __VA_ARGS__)

/* The file record V (checked) into T, its path owned by MG. */
static int get_file(st_compare_merge *mg, json_t *v, st_trace_file *t,
		    bool dry)
{
	char **pp;
	int rc;

	if (dry)
		return st_partial_get_file(v, NULL, NULL);
	if (!(pp = realloc(mg->paths, (mg->n_paths + 1) * sizeof(*pp))))
		return -1;
	mg->paths = pp;
	pp[mg->n_paths] = NULL;
	rc = st_partial_get_file(v, t, &pp[mg->n_paths]);
	if (pp[mg->n_paths])
		mg->n_paths++;
	return rc;
}

/* The key of entry E of metric sums V into K (width W of pass P's
 * metric I).  1 malformed, -1 out of memory. */
static int get_key(struct pass *p, size_t i, json_t *v, uint64_t *k,
		   bool dry)
{
	size_t w = p->sums[i].w;

	if (!json_is_array(v) || json_array_size(v) != w)
		return 1;
	for (size_t j = 0; j < w; j++) {
		json_t *c = json_array_get(v, j);
		const char *s;
		char *buf = NULL;
		size_t len;
		int64_t g;

		if (!p->cstr[i][j]) {
			if (!json_is_integer(c))
				return 1;
			k[j] = (uint64_t)json_integer_value(c);
			continue;
		}
		if (json_is_null(c)) {
			k[j] = NONE;
			continue;
		}
		if (!st_partial_get_str(c, &s, &len, &buf))
			return 1;
		g = dry ? 0 : st_strtab_intern(&p->tab, s, len, NULL);
		free(buf);
		if (g < 0)
			return -1;
		k[j] = (uint64_t)g;
	}
	return 0;
}

/* Does a metric of M have the key phase? */
static bool uses_phase(const st_metrics *m)
{
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < m->v[i].by.n + m->v[i].per.n; j++)
			if ((j < m->v[i].by.n ? m->v[i].by.v[j] :
			     m->v[i].per.v[j - m->v[i].by.n]).kind ==
			    ST_TRACE_KEY_PHASE)
				return true;
	return false;
}

/* A case of a partial (object V) into MG: checked only when DRY.  0, 1
 * malformed (*WHY says what), -1 out of memory. */
static int get_case(st_compare_merge *mg, json_t *v, bool dry,
		    const char **why)
{
	json_t *name = json_object_get(v, "name"),
	       *files = json_object_get(v, "files"),
	       *bad = json_object_get(v, "bad"),
	       *mets = json_object_get(v, "metrics"),
	       *ph = json_object_get(v, "phases");
	st_compare_case *c = NULL;
	struct pass *p, scratch;
	size_t base, nf;
	char *phases = NULL;
	int rc = 0;

	*why = "a case is malformed";
	if (!json_is_object(v) || !json_is_string(name) ||
	    !st_partial_is_count(json_object_get(v, "events")) ||
	    !st_partial_is_count(json_object_get(v, "bad_lines")) ||
	    !json_is_boolean(json_object_get(v, "saturated")) ||
	    !json_is_array(files) || !json_is_array(bad) ||
	    !json_is_array(mets) || json_array_size(mets) != mg->m.n ||
	    (ph && (!json_is_object(ph) ||
		    !json_is_array(json_object_get(ph, "bounds")) ||
		    !json_is_array(json_object_get(ph, "names")))))
		return 1;
	nf = json_array_size(files);
	for (size_t k = 0; k < mg->n; k++)
		if (strcmp(mg->cases[k].name, json_string_value(name)) == 0)
			c = &mg->cases[k];
	if (dry && c && uses_phase(&mg->m)) {
		const char *had = ((struct pass *)c->state)->phases;
		bool same;

		if (ph && !(phases = json_dumps(ph, JSON_COMPACT |
						JSON_SORT_KEYS)))
			return -1;
		same = !phases == !had && (!had || !strcmp(phases, had));
		free(phases);
		if (!same) {
			*why = "its phases (of its system-trace sets) are not "
			       "those of the case in an earlier partial, so a "
			       "phase key's merge would not be one process's: "
			       "give all the system-trace sets of a case, and "
			       "its inputs that fall in their phases, to one "
			       "share";
			return 1;
		}
	}
	if (dry) {
		p = &scratch;
		if (pass_init(p, &mg->m) < 0) {
			pass_release(p);
			return -1;
		}
	} else if (c) {
		p = (struct pass *)c->state;
	} else {
		st_compare_case *v2 = realloc(mg->cases, (mg->n + 1) *
					      sizeof(*v2));
		char *nm;

		if (!v2)
			return -1;
		mg->cases = v2;
		c = &mg->cases[mg->n];
		memset(c, 0, sizeof(*c));
		if (!(nm = strdup(json_string_value(name))) ||
		    !(c->res = calloc(mg->m.n ? mg->m.n : 1,
				      sizeof(*c->res))) ||
		    !(p = calloc(1, sizeof(*p)))) {
			free(nm);
			free(c->res);
			c->res = NULL;
			return -1;
		}
		c->n_res = mg->m.n;
		c->name = nm;
		c->state = (struct st_compare_state *)p;
		mg->n++;
		if (pass_init(p, &mg->m) < 0 ||
		    (ph && !(p->phases = json_dumps(ph, JSON_COMPACT |
						    JSON_SORT_KEYS))))
			return -1;
	}
	base = c ? c->n_files : 0;
	if (!dry) {
		st_trace_file *tf = realloc(c->files_in, (base + nf ? base + nf
							  : 1) * sizeof(*tf));

		if (!tf)
			return -1;
		c->files_in = tf;
		memset(tf + base, 0, nf * sizeof(*tf));
	}
	for (size_t k = 0; rc == 0 && k < nf; k++) {
		*why = "a file record is malformed";
		rc = get_file(mg, json_array_get(files, k),
			      dry ? NULL : &c->files_in[base + k], dry);
		if (!dry && rc == 0)
			c->n_files++;
	}
	for (size_t k = 0; rc == 0 && k < json_array_size(bad); k++) {
		json_t *b = json_array_get(bad, k);
		json_t *fi = json_object_get(b, "file");
		st_trace_bad *bv;

		*why = "a corrupt-line record is malformed";
		if (!st_partial_is_count(fi) ||
		    (size_t)json_integer_value(fi) >= nf ||
		    !st_partial_is_count(json_object_get(b, "line")) ||
		    !st_partial_is_str(json_object_get(b, "why"))) {
			rc = 1;
			break;
		}
		if (dry)
			continue;
		if (!(bv = realloc(c->bad, (c->n_bad + 1) * sizeof(*bv)))) {
			rc = -1;
			break;
		}
		c->bad = bv;
		bv[c->n_bad].file = base + (size_t)json_integer_value(fi);
		bv[c->n_bad].line = (uint64_t)json_integer_value(
			json_object_get(b, "line"));
		if (st_partial_get_dup(json_object_get(b, "why"),
				       &bv[c->n_bad].why)) {
			rc = -1;
			break;
		}
		c->n_bad++;
	}
	for (size_t i = 0; rc == 0 && i < mg->m.n; i++) {
		json_t *mo = json_array_get(mets, i),
		       *keys = json_object_get(mo, "keys"),
		       *sums = json_object_get(mo, "sums"),
		       *mn = json_object_get(mo, "name");
		uint64_t k[MAX_COMPS];

		*why = "the sums of a metric are malformed";
		if (!json_is_string(mn) || strcmp(json_string_value(mn),
						  mg->m.v[i].name) != 0 ||
		    !json_is_array(keys) || !json_is_array(sums) ||
		    json_array_size(keys) != json_array_size(sums)) {
			rc = 1;
			break;
		}
		for (size_t e = 0; rc == 0 && e < json_array_size(keys); e++) {
			json_t *sv = json_array_get(sums, e);

			if (!st_partial_is_count(sv) ||
			    (rc = get_key(p, i, json_array_get(keys, e), k,
					  dry)) != 0) {
				rc = rc ? rc : 1;
				break;
			}
			if (!dry && sums_add(&p->sums[i], k,
					     json_integer_value(sv),
					     &p->sat) < 0)
				rc = -1;
		}
	}
	if (dry) {
		pass_release(p);
		return rc;
	}
	if (rc == 0) {
		c->events += (uint64_t)json_integer_value(json_object_get(
			v, "events"));
		c->bad_lines += (uint64_t)json_integer_value(json_object_get(
			v, "bad_lines"));
		p->sat |= json_is_true(json_object_get(v, "saturated"));
	}
	return rc;
}

int st_compare_merge_add(st_compare_merge *mg, const char *text, size_t len,
			 const char *what, st_error *err)
{
	json_t *root, *mt, *cases;
	const char *why = NULL;
	st_metrics m = { 0 };
	st_error e;
	int rc = 0;

	if (!(root = st_partial_load(text, len, what, "trace compare",
				     ST_COMPARE_PARTIAL_VERSION, 0, err)))
		return -1;
	mt = json_object_get(root, "metrics");
	cases = json_object_get(root, "cases");
	if (!json_is_string(mt) || !json_is_array(cases)) {
		rc = BAD("%s: not a partial of trace compare", what);
		goto out;
	}
	if (mg->metrics_text && strcmp(mg->metrics_text,
				       json_string_value(mt)) != 0) {
		rc = BAD("%s: computed with other metrics than %s", what,
			 mg->first);
		goto out;
	}
	if (!mg->metrics_text) {
		if (st_metrics_parse(&m, json_string_value(mt),
				     json_string_length(mt), what, &e) < 0) {
			rc = e.code == ST_EXIT_IOERR ? st_error_set(err, e.code,
				"%s", e.text) : BAD("%s: its metrics: %s", what,
						     e.text);
			st_metrics_release(&m);
			goto out;
		}
		for (size_t i = 0; i < m.n; i++)
			if (m.v[i].events) {
				rc = BAD("%s: its metric '%s' writes events, "
					 "which no partial holds", what,
					 m.v[i].name);
				st_metrics_release(&m);
				goto out;
			}
		if (!(mg->metrics_text = strdup(json_string_value(mt))) ||
		    !(mg->first = strdup(what))) {
			st_metrics_release(&m);
			rc = OOM(err);
			goto out;
		}
		mg->m = m;
	}
	for (int dry = 1; dry >= 0 && rc == 0; dry--)
		for (size_t k = 0; k < json_array_size(cases); k++) {
			int r = get_case(mg, json_array_get(cases, k), dry,
					 &why);

			if (r) {
				rc = r < 0 ? OOM(err) : BAD("%s: case %zu: %s",
							    what, k + 1, why);
				break;
			}
		}
out:
	json_decref(root);
	return rc;
}

int st_compare_merge_finish(st_compare_merge *mg, size_t max_bad,
			    st_error *err)
{
	for (size_t c = 0; c < mg->n; c++) {
		st_compare_case *cs = &mg->cases[c];
		struct pass *p = (struct pass *)cs->state;

		if (cs->n_bad)
			qsort(cs->bad, cs->n_bad, sizeof(*cs->bad), cmp_bad);
		while (cs->n_bad > max_bad)
			free(cs->bad[--cs->n_bad].why);
		for (size_t i = 0; i < mg->m.n; i++)
			if (reduce_metric(p, i, &cs->res[i]) < 0)
				return OOM(err);
		cs->saturated = p->sat;
	}
	return 0;
}

void st_compare_merge_release(st_compare_merge *mg)
{
	if (!mg)
		return;
	for (size_t c = 0; c < mg->n; c++) {
		free((char *)mg->cases[c].name);
		st_compare_case_release(&mg->cases[c]);
	}
	free(mg->cases);
	for (size_t k = 0; k < mg->n_paths; k++)
		free(mg->paths[k]);
	free(mg->paths);
	free(mg->metrics_text);
	free(mg->first);
	st_metrics_release(&mg->m);
	memset(mg, 0, sizeof(*mg));
}
