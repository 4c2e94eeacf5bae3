/* sum_partial.c - `trace summary --save-partial` and the merge of its
 * partials (sum_partial.h): the threads' merged gatherings (struct agg)
 * written as JSON before they are finished, read back into a fresh agg
 * per partial, merged with trace_agg_merge and finished as one process
 * finishes them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "streamtime/sum_partial.h"

#include "partial_io.h"
#include "trace_int.h"

#define BAD(...) st_error_set(err, ST_EXIT_DATAERR, __VA_ARGS__)

static const char *const table_names[D_N] = {
	"name", "cat", "host", "file", "group", "per",
};

static const char *const op_names[] = {
	"=", "~", "^", "$", "=~", "<", "<=", ">", ">=",
};

/* ---- the options ----------------------------------------------------- */

/* S[0..LEN) as a JSON string, or {"x": HEX} when it is not UTF-8. */
static json_t *jstr(const char *s, size_t len)
{
	json_t *j = json_stringn(s, len), *o;
	char *h;

	if (j)
		return j;
	if (!(h = malloc(2 * len + 1)))
		return NULL;
	for (size_t i = 0; i < len; i++)
		snprintf(h + 2 * i, 3, "%02x", (unsigned char)s[i]);
	o = json_pack("{s:s#}", "x", h, 2 * len);
	free(h);
	return o;
}

static json_t *jlist(const char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, jstr(v[i], strlen(v[i]))) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* F's terms as "FIELD[!]OP VALUE", sorted, each once (the terms are ANDed:
 * their order and repetition do not change the events kept). */
static json_t *filter_json(const st_trace_filter *f)
{
	size_t n = f ? f->n : 0, k = 0;
	char **t = calloc(n + 1, sizeof(*t));
	json_t *a = t ? json_array() : NULL;

	for (size_t i = 0; a && i < n; i++) {
		const st_trace_term *x = &f->v[i];
		char num[32];
		const char *v = x->value;
		size_t len;

		if (x->field == ST_TRACE_PID || x->field == ST_TRACE_TID ||
		    x->field >= ST_TRACE_DUR) {
			snprintf(num, sizeof(num), "%" PRId64, x->num);
			v = num;
		}
		len = strlen(trace_field_name(x->field)) + strlen(v) + 4;
		if (!(t[k] = malloc(len))) {
			json_decref(a);
			a = NULL;
			break;
		}
		snprintf(t[k++], len, "%s%s%s%s", trace_field_name(x->field),
			 x->neg ? "!" : "", op_names[x->op], v);
	}
	if (a)
		qsort(t, k, sizeof(*t), cmp_str);
	for (size_t i = 0; a && i < k; i++)
		if ((i == 0 || strcmp(t[i], t[i - 1]) != 0) &&
		    json_array_append_new(a, jstr(t[i], strlen(t[i]))) < 0) {
			json_decref(a);
			a = NULL;
		}
	for (size_t i = 0; i < k; i++)
		free(t[i]);
	free(t);
	return a;
}

/* What of O (and the --group-by and --per texts) changes the summary. */
static json_t *options_json(const st_trace_opts *o, const char *group,
			    const char *per)
{
	json_t *j = json_object();

	per = per ? per : "pid";
	if (!j || json_object_set_new(j, "filter", filter_json(o->filter)) ||
	    json_object_set_new(j, "io_cats", o->io_cats ?
				jlist(o->io_cats, o->n_io) : json_null()) ||
	    json_object_set_new(j, "compute_cats", o->compute_cats ?
				jlist(o->compute_cats, o->n_compute)
				: json_null()) ||
	    json_object_set_new(j, "group_by", group ?
				jstr(group, strlen(group)) : json_null()) ||
	    json_object_set_new(j, "per", group ? jstr(per, strlen(per))
				: json_null()) ||
	    json_object_set_new(j, "time_granularity_us",
				json_integer(o->granularity_us > 0 ?
					     o->granularity_us : 0))) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* The options read back: what finishing and showing the summary need. */
struct sopts {
	json_t *j;                  /* as written */
	st_trace_opts o;
	char **io, **comp;          /* owned lists */
	char *group, *per;
};

static void sopts_release(struct sopts *s)
{
	for (size_t i = 0; s->io && i < s->o.n_io; i++)
		free(s->io[i]);
	for (size_t i = 0; s->comp && i < s->o.n_compute; i++)
		free(s->comp[i]);
	free(s->io);
	free(s->comp);
	free(s->group);
	free(s->per);
	json_decref(s->j);
	memset(s, 0, sizeof(*s));
}

/* V (null, or a string without NUL) into *OUT (a copy, NULL for null).
 * 0, 1 malformed, -1 out of memory. */
static int get_text(json_t *v, char **out)
{
	const char *s;
	char *buf = NULL;
	size_t len;

	*out = NULL;
	if (json_is_null(v))
		return 0;
	if (!st_partial_get_str(v, &s, &len, &buf))
		return 1;
	if (memchr(s, '\0', len)) {
		free(buf);
		return 1;
	}
	*out = strndup(s, len);
	free(buf);
	return *out ? 0 : -1;
}

/* V (null or an array of strings) into *LIST (NULL for null), *N. */
static int get_list(json_t *v, char ***list, size_t *n)
{
	*list = NULL;
	*n = 0;
	if (json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return 1;
	if (!(*list = calloc(json_array_size(v) + 1, sizeof(**list))))
		return -1;
	for (size_t i = 0; i < json_array_size(v); i++) {
		int rc = get_text(json_array_get(v, i), &(*list)[i]);

		if (!rc && !(*list)[i])
			rc = 1;
		if (rc)
			return rc;
		(*n)++;
	}
	return 0;
}

/* The options object J into S (J's reference taken).  0, 1 malformed,
 * -1 out of memory. */
static int get_options(json_t *j, struct sopts *s)
{
	json_t *f = json_object_get(j, "filter"),
	       *g = json_object_get(j, "time_granularity_us");
	st_error e = { 0 };
	int rc;

	memset(s, 0, sizeof(*s));
	if (!json_is_object(j) || json_object_size(j) != 6 ||
	    !json_is_array(f) || !st_partial_is_count(g))
		return 1;
	s->j = json_incref(j);
	for (size_t i = 0; i < json_array_size(f); i++)
		if (!json_is_string(json_array_get(f, i)) &&
		    !json_is_object(json_array_get(f, i)))
			return 1;
	if ((rc = get_list(json_object_get(j, "io_cats"), &s->io,
			   &s->o.n_io)) ||
	    (rc = get_list(json_object_get(j, "compute_cats"), &s->comp,
			   &s->o.n_compute)) ||
	    (rc = get_text(json_object_get(j, "group_by"), &s->group)) ||
	    (rc = get_text(json_object_get(j, "per"), &s->per)))
		return rc;
	s->o.io_cats = (const char *const *)s->io;
	s->o.compute_cats = (const char *const *)s->comp;
	s->o.granularity_us = json_integer_value(g);
	if (!s->group != !s->per)
		return 1;
	if (s->group && (st_trace_keys_parse(&s->o.group, s->group, &e) < 0 ||
			 !s->o.group.n ||
			 st_trace_keys_parse(&s->o.per, s->per, &e) < 0 ||
			 !s->o.per.n))
		return e.code == ST_EXIT_IOERR ? -1 : 1;
	return 0;
}

/* ---- writing --------------------------------------------------------- */

struct ivw {
	FILE *f;
	int kind;
	bool first;
};

static int put_iv(void *ctx, int kind, int64_t s, int64_t e)
{
	struct ivw *w = ctx;

	for (; w->kind < kind; w->kind++) {
		fputs("],[", w->f);
		w->first = true;
	}
	fprintf(w->f, "%s%" PRId64 ",%" PRId64, w->first ? "" : ",", s, e);
	w->first = false;
	return 0;
}

/* The used entries of M as "[A,B,V]" (A and B signed when SA, SB). */
static void put_map(FILE *f, const char *name, const st_pairmap *m, bool sa,
		    bool sb)
{
	bool first = true;

	fprintf(f, ",\n\"%s\":[", name);
	for (size_t i = 0; i < m->cap; i++) {
		const st_pairmap_entry *e = &m->e[i];

		if (!e->used)
			continue;
		fputs(first ? "\n[" : ",\n[", f);
		if (sa)
			fprintf(f, "%" PRId64, (int64_t)e->a);
		else
			fprintf(f, "%" PRIu64, e->a);
		if (sb)
			fprintf(f, ",%" PRId64, (int64_t)e->b);
		else
			fprintf(f, ",%" PRIu64, e->b);
		fprintf(f, ",%" PRIu64 "]", e->v);
		first = false;
	}
	fputc(']', f);
}

/* The partial of G (its options OPTS, as options_json gives them) and
 * S's input records to F.  0, -1 on a write error. */
static int write_partial(FILE *f, struct agg *g, const st_trace_summary *s,
			 json_t *opts)
{
	fprintf(f, "{\"streamtime_partial\":%d,\"command\":\"trace summary\","
		"\n\"options\":", ST_SUM_PARTIAL_VERSION);
	if (json_dumpf(opts, f, JSON_COMPACT | JSON_SORT_KEYS) < 0)
		return -1;
	fprintf(f, ",\n\"events\":%" PRIu64 ",\"first_us\":%" PRId64
		",\"end_us\":%" PRId64 ",\"saturated\":%s,\"bad_lines\":%"
		PRIu64 ",\n\"files\":[", g->events, g->events ? g->first : 0,
		g->events ? g->end : 0, g->saturated ? "true" : "false",
		s->bad_lines);
	for (size_t i = 0; i < s->n_files; i++) {
		fputs(i ? ",\n" : "\n", f);
		st_partial_put_file(f, &s->files_in[i]);
	}
	fputs("],\n\"bad\":[", f);
	for (size_t i = 0; i < s->n_bad; i++) {
		fprintf(f, "%s{\"file\":%zu,\"line\":%" PRIu64 ",\"why\":",
			i ? ",\n" : "\n", s->bad[i].file, s->bad[i].line);
		st_partial_put_cstr(f, s->bad[i].why);
		fputc('}', f);
	}
	fputs("],\n\"tables\":{", f);
	for (int d = 0; d < D_N; d++) {
		fprintf(f, "%s\"%s\":[", d ? ",\n" : "\n", table_names[d]);
		for (uint32_t i = 0; i < trace_agg_n(g, d); i++) {
			const struct acc *a = trace_acc(g, d, i);
			size_t len;
			const char *str = trace_agg_str(g, d, i, &len);

			if (!str)
				return -1;
			fputs(i ? ",\n[" : "\n[", f);
			st_partial_put_str(f, str, len);
			fprintf(f, ",%" PRIu64 ",%" PRId64 ",%" PRId64 "]",
				a->count, a->dur, a->bytes);
		}
		fputc(']', f);
	}
	fputs("},\n\"procs\":[", f);
	for (size_t i = 0; i < g->nprocs; i++) {
		const struct proc *p = &g->procs[i];
		struct ivw w = { f, TRACE_IV_IO, true };

		fprintf(f, "%s[%" PRIu32 ",%" PRId64 ",%" PRIu64 ",[",
			i ? ",\n" : "\n", p->host, p->pid, p->events);
		trace_agg_each_iv(g, i, put_iv, &w);
		for (; w.kind < TRACE_IV_COMP; w.kind++)
			fputs("],[", f);
		fputs("]]", f);
	}
	fputc(']', f);
	put_map(f, "threads", &g->threads, false, true);
	put_map(f, "sizes", &g->sizes, false, false);
	put_map(f, "gper", &g->gper, false, false);
	put_map(f, "bins", &g->bins, true, false);
	fputs("}\n", f);
	return ferror(f) ? -1 : 0;
}

/* ---- trace summary --save-partial ------------------------------------ */

/* What a partial is written from: the threads' gatherings merged, and the
 * options as written. */
struct st_sum_partial {
	struct agg g;
	json_t *opts;
};

/* trace_summarize's end: G moved into the partial at CTX. */
static int keep_agg(void *ctx, struct agg *g, st_trace_summary *s,
		    st_error *err)
{
	st_sum_partial *p = ctx;

	(void)err;
	trace_agg_release(&p->g);
	p->g = *g;
	memset(g, 0, sizeof(*g));
	trace_agg_init(g, p->g.o);
	s->saturated = p->g.saturated;
	return 0;
}

st_sum_partial *st_sum_partial_new(const char *const *paths, size_t n,
				   const st_trace_opts *so, const char *group,
				   const char *per, st_trace_summary *s,
				   st_error *err)
{
	st_sum_partial *p;

	memset(s, 0, sizeof(*s));
	if (so->src || so->nseg) {
		st_error_set(err, ST_EXIT_USAGE, "--save-partial does not take "
			     "system-trace directories");
		return NULL;
	}
	if (so->no_overlap) {
		st_error_set(err, ST_EXIT_USAGE, "--save-partial needs the "
			     "interval unions");
		return NULL;
	}
	if (!(p = calloc(1, sizeof(*p))) ||
	    !(p->opts = options_json(so, group, per))) {
		free(p);
		OOM(err);
		return NULL;
	}
	trace_agg_init(&p->g, so);
	if (trace_summarize(paths, n, so, s, keep_agg, p, err) < 0) {
		st_sum_partial_free(p);
		return NULL;
	}
	return p;
}

int st_sum_partial_write(FILE *f, st_sum_partial *p,
			 const st_trace_summary *s, st_error *err)
{
	if (write_partial(f, &p->g, s, p->opts) < 0)
		return st_error_set(err, ST_EXIT_IOERR, "cannot write the "
				    "partial");
	return 0;
}

void st_sum_partial_free(st_sum_partial *p)
{
	if (!p)
		return;
	trace_agg_release(&p->g);
	json_decref(p->opts);
	free(p);
}

/* ---- reading a partial ----------------------------------------------- */

const char *st_partial_command(const char *text, size_t len, char *buf,
			       size_t size)
{
	static const char head[] = "{\"streamtime_partial\":";
	static const char cmd[] = ",\"command\":\"";
	size_t i = sizeof(head) - 1;
	json_t *root, *c;
	const char *r = NULL;

	/* as both partials are written: no need to read them whole */
	if (len > i && memcmp(text, head, i) == 0) {
		while (i < len && text[i] >= '0' && text[i] <= '9')
			i++;
		if (len - i > sizeof(cmd) - 1 &&
		    memcmp(text + i, cmd, sizeof(cmd) - 1) == 0) {
			size_t a = i + sizeof(cmd) - 1, e = a;

			while (e < len && text[e] != '"' && text[e] != '\\')
				e++;
			if (e < len && text[e] == '"' && e - a < size) {
				memcpy(buf, text + a, e - a);
				buf[e - a] = '\0';
				return buf;
			}
		}
	}
	if (!(root = json_loadb(text, len, JSON_ALLOW_NUL, NULL)))
		return NULL;
	c = json_object_get(root, "command");
	if (json_is_string(c) && strlen(json_string_value(c)) < size) {
		strcpy(buf, json_string_value(c));
		r = buf;
	}
	json_decref(root);
	return r;
}

struct st_sum_merge_state {
	struct sopts opts;
	char *first;
	struct agg agg;
	st_trace_file *files;
	size_t n_files;
	char **paths;           /* the inputs' paths */
	size_t n_paths;
	st_trace_bad *bad;
	size_t n_bad;
	uint64_t bad_lines;
};

/* Integer V within [LO, HI] into *X. */
static bool get_int(json_t *v, int64_t lo, int64_t hi, int64_t *x)
{
	if (!json_is_integer(v) || json_integer_value(v) < lo ||
	    json_integer_value(v) > hi)
		return false;
	*x = json_integer_value(v);
	return true;
}

/* Array V of W members: its members. */
static bool tuple(json_t *v, size_t w)
{
	return json_is_array(v) && json_array_size(v) == w;
}

/* The tables of J into G.  0, 1 malformed, -1 out of memory. */
static int get_tables(json_t *j, struct agg *g)
{
	if (!json_is_object(j) || json_object_size(j) != D_N)
		return 1;
	for (int d = 0; d < D_N; d++) {
		json_t *t = json_object_get(j, table_names[d]);

		if (!json_is_array(t) || json_array_size(t) > UINT32_MAX / 2)
			return 1;
		for (size_t i = 0; i < json_array_size(t); i++) {
			json_t *e = json_array_get(t, i);
			const char *s;
			char *buf = NULL;
			size_t len;
			int64_t id, c, du, by;

			if (!tuple(e, 4) ||
			    !get_int(json_array_get(e, 1), 0, INT64_MAX, &c) ||
			    !get_int(json_array_get(e, 2), 0, INT64_MAX, &du) ||
			    !get_int(json_array_get(e, 3), 0, INT64_MAX, &by) ||
			    !st_partial_get_str(json_array_get(e, 0), &s, &len,
						&buf))
				return 1;
			id = trace_agg_intern(g, d, s, len);
			free(buf);
			if (id < 0)
				return -1;
			if ((size_t)id != i)
				return 1;       /* twice */
			if (!trace_dim_counts(d))
				continue;
			g->acc[d][id].count = (uint64_t)c;
			g->acc[d][id].dur = du;
			g->acc[d][id].bytes = by;
		}
	}
	if (!g->o->group.n && (g->tab[D_GROUP].n || g->tab[D_PER].n))
		return 1;
	return 0;
}

/* The intervals V (s, e, s, e, ...) of KIND into process P of G. */
static int get_ivs(json_t *v, struct agg *g, size_t p, int kind)
{
	if (!json_is_array(v) || json_array_size(v) % 2)
		return 1;
	for (size_t i = 0; i < json_array_size(v); i += 2) {
		int64_t s, e;

		if (!get_int(json_array_get(v, i), -ST_PARTIAL_TIME_MAX,
			     ST_PARTIAL_TIME_MAX, &s) ||
		    !get_int(json_array_get(v, i + 1), s + 1,
			     ST_PARTIAL_TIME_MAX, &e))
			return 1;
		if (trace_agg_add_iv(g, p, kind, s, e) < 0)
			return -1;
	}
	return 0;
}

static int get_procs(json_t *v, struct agg *g)
{
	if (!json_is_array(v))
		return 1;
	for (size_t i = 0; i < json_array_size(v); i++) {
		json_t *e = json_array_get(v, i);
		int64_t h, pid, ev, p;
		int rc;

		if (!tuple(e, 5) ||
		    !get_int(json_array_get(e, 0), 0,
			     (int64_t)g->tab[D_HOST].n - 1, &h) ||
		    !get_int(json_array_get(e, 1), INT64_MIN, INT64_MAX,
			     &pid) ||
		    !get_int(json_array_get(e, 2), 0, INT64_MAX, &ev))
			return 1;
		if ((p = trace_agg_proc(g, (uint32_t)h, pid)) < 0)
			return -1;
		if ((size_t)p != i)
			return 1;
		g->procs[p].events = (uint64_t)ev;
		if ((rc = get_ivs(json_array_get(e, 3), g, (size_t)p,
				  TRACE_IV_IO)) ||
		    (rc = get_ivs(json_array_get(e, 4), g, (size_t)p,
				  TRACE_IV_COMP)))
			return rc;
	}
	return 0;
}

/* Pair map V ([A, B, V]...) into M, A within [0, AMAX] (or any signed
 * value within +-BMAX when AMAX < 0), B within [BLO, BHI], V within
 * [VMIN, INT64_MAX].  0, 1 malformed, -1 out of memory. */
static int get_map(json_t *v, st_pairmap *m, int64_t amin, int64_t amax,
		   int64_t blo, int64_t bhi, int64_t vmin, bool *sat)
{
	if (!json_is_array(v))
		return 1;
	for (size_t i = 0; i < json_array_size(v); i++) {
		json_t *e = json_array_get(v, i);
		int64_t a, b, x;
		uint64_t *p;

		if (!tuple(e, 3) ||
		    !get_int(json_array_get(e, 0), amin, amax, &a) ||
		    !get_int(json_array_get(e, 1), blo, bhi, &b) ||
		    !get_int(json_array_get(e, 2), vmin, INT64_MAX, &x))
			return 1;
		if (!(p = st_pairmap_get(m, (uint64_t)a, (uint64_t)b, NULL)))
			return -1;
		uadd(p, (uint64_t)x, sat);
	}
	return 0;
}

/* Do G's sizes count, for each name, no more calls than its table does?
 * (Each call with bytes is counted in both; a tampered count would wrap
 * the quartiles' total.)  False also when memory runs out: malformed is
 * the safe answer. */
static bool sizes_fit(const struct agg *g)
{
	size_t n = g->tab[D_NAME].n;
	uint64_t *sum = calloc(n + 1, sizeof(*sum));
	bool ok = sum != NULL;

	for (size_t i = 0; ok && i < g->sizes.cap; i++) {
		const st_pairmap_entry *e = &g->sizes.e[i];

		if (e->used &&
		    (e->a >= n || __builtin_add_overflow(sum[e->a], e->v,
							 &sum[e->a]) ||
		     sum[e->a] > g->acc[D_NAME][e->a].count))
			ok = false;
	}
	free(sum);
	return ok;
}

/* The gatherings of partial ROOT into G (initialised with the partial's
 * options).  0, 1 malformed (*WHY says what), -1 out of memory. */
static int get_agg(json_t *root, struct agg *g, const char **why)
{
	int64_t ev, first, end, ng = g->tab[D_GROUP].n, np;
	int64_t gran = g->o->granularity_us, bmax;
	json_t *sat = json_object_get(root, "saturated");
	int rc;

	*why = "its totals are malformed";
	if (!get_int(json_object_get(root, "events"), 0, INT64_MAX, &ev) ||
	    !st_partial_is_time(json_object_get(root, "first_us")) ||
	    !st_partial_is_time(json_object_get(root, "end_us")) ||
	    !json_is_boolean(sat))
		return 1;
	first = json_integer_value(json_object_get(root, "first_us"));
	end = json_integer_value(json_object_get(root, "end_us"));
	if (first > end) {
		*why = "its first_us is after its end_us";
		return 1;
	}
	g->events = (uint64_t)ev;
	g->first = first;
	g->end = end;
	g->saturated = json_is_true(sat);
	*why = "its tables are malformed";
	if ((rc = get_tables(json_object_get(root, "tables"), g)))
		return rc;
	*why = "its processes are malformed";
	if ((rc = get_procs(json_object_get(root, "procs"), g)))
		return rc;
	ng = g->tab[D_GROUP].n;
	np = g->tab[D_PER].n;
	bmax = gran > 0 ? ST_PARTIAL_TIME_MAX / gran : -1;
	*why = "its threads, sizes, groups or bins are malformed";
	if ((rc = get_map(json_object_get(root, "threads"), &g->threads, 0,
			  (int64_t)g->nprocs - 1, INT64_MIN, INT64_MAX, 0,
			  &g->saturated)) ||
	    (rc = get_map(json_object_get(root, "sizes"), &g->sizes, 0,
			  (int64_t)g->tab[D_NAME].n - 1, 0, INT64_MAX, 1,
			  &g->saturated)) ||
	    (rc = get_map(json_object_get(root, "gper"), &g->gper, 0, ng - 1,
			  0, 2 * np - 1, 0, &g->saturated)) ||
	    (rc = get_map(json_object_get(root, "bins"), &g->bins, -bmax,
			  bmax, 0, gran > 0 ? BIN_WRITTEN : -1, 0,
			  &g->saturated)))
		return rc;
	*why = "its sizes count more calls than its tables";
	return sizes_fit(g) ? 0 : 1;
}

/* The input records of ROOT appended to ST.  0, 1 malformed, -1 OOM. */
static int get_inputs(json_t *root, struct st_sum_merge_state *st,
		      const char **why)
{
	json_t *files = json_object_get(root, "files"),
	       *bad = json_object_get(root, "bad");
	size_t nf, base = st->n_files, nb;
	st_trace_file *tf;
	st_trace_bad *bv;
	char **pp;

	*why = "its inputs are malformed";
	if (!json_is_array(files) || !json_is_array(bad) ||
	    !st_partial_is_count(json_object_get(root, "bad_lines")))
		return 1;
	nf = json_array_size(files);
	nb = json_array_size(bad);
	for (size_t k = 0; k < nf; k++)
		if (st_partial_get_file(json_array_get(files, k), NULL, NULL))
			return 1;
	for (size_t k = 0; k < nb; k++) {
		json_t *b = json_array_get(bad, k);
		json_t *fi = json_object_get(b, "file");

		if (!st_partial_is_count(fi) ||
		    (size_t)json_integer_value(fi) >= nf ||
		    !st_partial_is_count(json_object_get(b, "line")) ||
		    !st_partial_is_str(json_object_get(b, "why")))
			return 1;
	}
	if (!(tf = realloc(st->files, (base + nf + 1) * sizeof(*tf))))
		return -1;
	st->files = tf;
	if (!(pp = realloc(st->paths, (st->n_paths + nf + 1) * sizeof(*pp))))
		return -1;
	st->paths = pp;
	if (!(bv = realloc(st->bad, (st->n_bad + nb + 1) * sizeof(*bv))))
		return -1;
	st->bad = bv;
	for (size_t k = 0; k < nf; k++) {
		char **path = &pp[st->n_paths];

		memset(&tf[base + k], 0, sizeof(*tf));
		*path = NULL;
		if (st_partial_get_file(json_array_get(files, k), &tf[base + k],
					path) < 0) {
			free(tf[base + k].err_text);
			free(*path);
			return -1;
		}
		st->n_files++;
		st->n_paths++;
	}
	for (size_t k = 0; k < nb; k++) {
		json_t *b = json_array_get(bad, k);
		st_trace_bad *x = &bv[st->n_bad];

		x->file = base + (size_t)json_integer_value(json_object_get(
			b, "file"));
		x->line = (uint64_t)json_integer_value(json_object_get(b,
								       "line"));
		if (st_partial_get_dup(json_object_get(b, "why"), &x->why))
			return -1;
		st->n_bad++;
	}
	st->bad_lines += (uint64_t)json_integer_value(json_object_get(
		root, "bad_lines"));
	return 0;
}

/* The first member of options A that B holds otherwise. */
static const char *differs(json_t *a, json_t *b)
{
	const char *k;
	json_t *v;

	json_object_foreach(a, k, v)
		if (!json_equal(v, json_object_get(b, k)))
			return k;
	return "?";
}

static void state_release(struct st_sum_merge_state *st)
{
	if (!st)
		return;
	if (st->opts.j)
		trace_agg_release(&st->agg);
	for (size_t i = 0; i < st->n_files; i++)
		free(st->files[i].err_text);
	for (size_t i = 0; i < st->n_paths; i++)
		free(st->paths[i]);
	free(st->files);
	free(st->paths);
	for (size_t i = 0; i < st->n_bad; i++)
		free(st->bad[i].why);
	free(st->bad);
	sopts_release(&st->opts);
	free(st->first);
	free(st);
}

/* ST's inputs cut back to NF0 files, NB0 corrupt lines, BL0 of them. */
static void inputs_cut(struct st_sum_merge_state *st, size_t nf0,
		       size_t nb0, uint64_t bl0)
{
	while (st->n_files > nf0) {
		st->n_files--;
		free(st->files[st->n_files].err_text);
		free(st->paths[--st->n_paths]);
	}
	while (st->n_bad > nb0)
		free(st->bad[--st->n_bad].why);
	st->bad_lines = bl0;
}

int st_sum_merge_add(st_sum_merge *mg, const char *text, size_t len,
		     const char *what, st_error *err)
{
	struct st_sum_merge_state *st = mg->state;
	json_t *root, *opts;
	struct sopts so = { 0 };
	const struct sopts *use;
	struct agg g;
	const char *why = NULL;
	size_t nf0, nb0;
	uint64_t bl0;
	int rc = 0, r;
	bool have_g = false;

	if (!(root = st_partial_load(text, len, what, "trace summary",
				     ST_SUM_PARTIAL_OLDEST,
				     ST_SUM_PARTIAL_VERSION, JSON_ALLOW_NUL,
				     err)))
		return -1;
	if (!json_is_object(opts = json_object_get(root, "options"))) {
		rc = BAD("%s: not a partial of trace summary (no options)",
			 what);
		goto out;
	}
	if (json_integer_value(json_object_get(root, "streamtime_partial")) <
	    2 && json_integer_value(json_object_get(
		    opts, "time_granularity_us")) != 0) {
		rc = BAD("%s: a partial of version 1 has time bins without "
			 "their bytes read and written: save it again with "
			 "this streamtime", what);
		goto out;
	}
	if (st && !json_equal(st->opts.j, opts)) {
		rc = BAD("%s: computed with other options than %s (%s differs)",
			 what, st->first, differs(st->opts.j, opts));
		goto out;
	}
	if (!st) {
		if ((r = get_options(opts, &so)) != 0) {
			rc = r < 0 ? OOM(err) : BAD("%s: its options are "
						    "malformed", what);
			goto out;
		}
		if (!(st = calloc(1, sizeof(*st))) ||
		    !(st->first = strdup(what))) {
			free(st);
			st = NULL;
			rc = OOM(err);
			goto out;
		}
	}
	use = mg->state ? &st->opts : &so;
	trace_agg_init(&g, &use->o);
	have_g = true;
	nf0 = st->n_files;
	nb0 = st->n_bad;
	bl0 = st->bad_lines;
	if ((r = get_agg(root, &g, &why)) == 0)
		r = get_inputs(root, st, &why);
	if (r == 0 && !mg->state) {
		st->opts = so;
		memset(&so, 0, sizeof(so));
		trace_agg_init(&st->agg, &st->opts.o);
	}
	if (r == 0 && trace_agg_merge(&st->agg, &g) < 0)
		r = -1;
	if (r) {
		rc = r < 0 ? OOM(err) : BAD("%s: %s", what, why);
		inputs_cut(st, nf0, nb0, bl0);
		if (!mg->state)
			state_release(st);
		goto out;
	}
	if (!mg->state) {
		mg->state = st;
		mg->o = &st->opts.o;
		mg->group = st->opts.group;
		mg->per = st->opts.per;
	}
out:
	if (have_g)
		trace_agg_release(&g);
	sopts_release(&so);
	json_decref(root);
	return rc;
}

static int cmp_bad(const void *x, const void *y)
{
	const st_trace_bad *a = x, *b = y;

	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

int st_sum_merge_finish(st_sum_merge *mg, size_t max_bad,
			st_trace_summary *s, st_error *err)
{
	struct st_sum_merge_state *st = mg->state;

	memset(s, 0, sizeof(*s));
	st_strtab_init(&s->strings);
	if (!st)
		return st_error_set(err, ST_EXIT_USAGE, "no partial given");
	s->files_in = st->files;
	s->n_files = st->n_files;
	st->files = NULL;
	st->n_files = 0;
	if (st->n_bad)
		qsort(st->bad, st->n_bad, sizeof(*st->bad), cmp_bad);
	while (st->n_bad > max_bad)
		free(st->bad[--st->n_bad].why);
	s->bad = st->bad;
	s->n_bad = st->n_bad;
	st->bad = NULL;
	st->n_bad = 0;
	s->bad_lines = st->bad_lines;
	return trace_agg_finish(s, &st->agg, err);
}

void st_sum_merge_release(st_sum_merge *mg)
{
	if (!mg)
		return;
	state_release(mg->state);
	memset(mg, 0, sizeof(*mg));
}

/* ---- for the result cache (trace_cache.c) ---------------------------- */

char *st_sum_partial_options(const st_trace_opts *so, const char *group,
			     const char *per)
{
	json_t *j = options_json(so, group, per);
	char *t = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	json_decref(j);
	return t;
}

/* S's input records (one run's: paths borrowed, err_text and why
 * copied) appended to ST.  0, -1 out of memory (ST as it was). */
static int put_inputs(struct st_sum_merge_state *st,
		      const st_trace_summary *s)
{
	size_t base = st->n_files, nb0 = st->n_bad;
	st_trace_file *tf = realloc(st->files, (base + s->n_files + 1) *
				    sizeof(*tf));
	st_trace_bad *bv;
	char **pp;

	if (!tf)
		return -1;
	st->files = tf;
	if (!(pp = realloc(st->paths, (st->n_paths + s->n_files + 1) *
			   sizeof(*pp))))
		return -1;
	st->paths = pp;
	for (size_t k = 0; k < s->n_files; k++) {
		pp[st->n_paths + k] = NULL;
		tf[base + k].err_text = NULL;
	}
	if (!(bv = realloc(st->bad, (st->n_bad + s->n_bad + 1) *
			   sizeof(*bv))))
		return -1;
	st->bad = bv;
	for (size_t k = 0; k < s->n_files; k++) {
		st_trace_file *t = &tf[base + k];

		*t = s->files_in[k];
		t->err_text = NULL;
		pp[st->n_paths + k] = strdup(s->files_in[k].path ?
					     s->files_in[k].path : "");
		if (!pp[st->n_paths + k] || (s->files_in[k].err_text &&
		    !(t->err_text = strdup(s->files_in[k].err_text))))
			goto oom;
		t->path = pp[st->n_paths + k];
	}
	for (size_t k = 0; k < s->n_bad; k++) {
		bv[st->n_bad] = s->bad[k];
		bv[st->n_bad].file += base;
		if (!(bv[st->n_bad].why = strdup(s->bad[k].why ? s->bad[k].why
						  : "")))
			goto oom;
		st->n_bad++;
	}
	st->n_files += s->n_files;
	st->n_paths += s->n_files;
	st->bad_lines += s->bad_lines;
	return 0;
oom:
	for (size_t k = 0; k < s->n_files; k++) {
		free(tf[base + k].err_text);
		free(pp[st->n_paths + k]);
		pp[st->n_paths + k] = NULL;
		tf[base + k].err_text = NULL;
	}
	while (st->n_bad > nb0)
		free(st->bad[--st->n_bad].why);
	return -1;
}

/* The state of MG for a partial of options OPTS named WHAT: MG's own
 * (its options must be OPTS) or a new one set up from OPTS, into *OUT.
 * 0, or -1 with ERR set (65, 74). */
static int state_for(st_sum_merge *mg, json_t *opts, const char *what,
		     struct st_sum_merge_state **out, st_error *err)
{
	struct st_sum_merge_state *st = mg->state;
	struct sopts so = { 0 };
	int r;

	*out = st;
	if (st)
		return json_equal(st->opts.j, opts) ? 0 :
		       BAD("%s: computed with other options than %s (%s "
			   "differs)", what, st->first,
			   differs(st->opts.j, opts));
	if ((r = get_options(opts, &so)) != 0 ||
	    !(st = calloc(1, sizeof(*st))) || !(st->first = strdup(what))) {
		free(st);
		sopts_release(&so);
		return r > 0 ? BAD("%s: its options are malformed", what)
			     : OOM(err);
	}
	st->opts = so;
	trace_agg_init(&st->agg, &st->opts.o);
	*out = st;
	return 0;
}

/* ST (from state_for) kept by MG when it is new. */
static void state_keep(st_sum_merge *mg, struct st_sum_merge_state *st)
{
	if (mg->state)
		return;
	mg->state = st;
	mg->o = &st->opts.o;
	mg->group = st->opts.group;
	mg->per = st->opts.per;
}

int st_sum_merge_add_partial(st_sum_merge *mg, st_sum_partial *p,
			     const st_trace_summary *s, const char *what,
			     st_error *err)
{
	struct st_sum_merge_state *st;

	if (state_for(mg, p->opts, what, &st, err) < 0)
		return -1;
	if (put_inputs(st, s) < 0 || trace_agg_merge(&st->agg, &p->g) < 0) {
		if (!mg->state)
			state_release(st);
		return OOM(err);
	}
	state_keep(mg, st);
	return 0;
}

/* ---- the binary form (for the result cache) ---------------------------
 *
 * The same content as the JSON partial, little-endian 64-bit words and
 * length-prefixed strings: "STSB", a version, the options as compact
 * JSON, the totals, the inputs' records, the corrupt lines, the tables,
 * the processes with their intervals (kind, s, e ... then ~0), the four
 * maps.  Read back under the checks of the JSON form. */

#define BIN_MAGIC "STSB"
#define BIN_VERSION 1
#define BIN_STOP UINT64_MAX

static void w64(FILE *f, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	fwrite_unlocked(b, 1, 8, f);
}

static void wstr(FILE *f, const char *s, size_t len)
{
	w64(f, len);
	fwrite(s, 1, len, f);
}

/* S or NULL: a flag, then the string. */
static void wcstr(FILE *f, const char *s)
{
	w64(f, s != NULL);
	if (s)
		wstr(f, s, strlen(s));
}

static int put_iv_bin(void *ctx, int kind, int64_t s, int64_t e)
{
	FILE *f = ctx;

	w64(f, (uint64_t)kind);
	w64(f, (uint64_t)s);
	w64(f, (uint64_t)e);
	return 0;
}

static void put_map_bin(FILE *f, const st_pairmap *m)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->cap; i++)
		n += m->e[i].used;
	w64(f, n);
	for (size_t i = 0; i < m->cap; i++)
		if (m->e[i].used) {
			w64(f, m->e[i].a);
			w64(f, m->e[i].b);
			w64(f, m->e[i].v);
		}
}

/* The binary partial of G with the records of S and the options OPTS to
 * F.  0, -1 a write error or out of memory. */
static int write_bin(FILE *f, struct agg *g, const st_trace_summary *s,
		     json_t *opts)
{
	char *o = json_dumps(opts, JSON_COMPACT | JSON_SORT_KEYS);

	if (!o)
		return -1;
	fputs(BIN_MAGIC, f);
	w64(f, BIN_VERSION);
	wstr(f, o, strlen(o));
	free(o);
	w64(f, g->events);
	w64(f, (uint64_t)(g->events ? g->first : 0));
	w64(f, (uint64_t)(g->events ? g->end : 0));
	w64(f, g->saturated);
	w64(f, s->bad_lines);
	w64(f, s->n_files);
	for (size_t i = 0; i < s->n_files; i++) {
		const st_trace_file *t = &s->files_in[i];

		wcstr(f, t->path ? t->path : "");
		w64(f, t->st.lines);
		w64(f, t->st.events);
		w64(f, t->st.meta);
		w64(f, t->st.other);
		w64(f, t->st.bad);
		w64(f, t->st.fast);
		w64(f, (uint64_t)(int64_t)t->err_code);
		wcstr(f, t->err_text);
		w64(f, t->not_trace);
		w64(f, (uint64_t)t->first_us);
		w64(f, (uint64_t)t->end_us);
	}
	w64(f, s->n_bad);
	for (size_t i = 0; i < s->n_bad; i++) {
		w64(f, s->bad[i].file);
		w64(f, s->bad[i].line);
		wcstr(f, s->bad[i].why ? s->bad[i].why : "");
	}
	for (int d = 0; d < D_N; d++) {
		w64(f, trace_agg_n(g, d));
		for (uint32_t i = 0; i < trace_agg_n(g, d); i++) {
			const struct acc *a = trace_acc(g, d, i);
			size_t len;
			const char *str = trace_agg_str(g, d, i, &len);

			if (!str)
				return -1;
			wstr(f, str, len);
			w64(f, a->count);
			w64(f, (uint64_t)a->dur);
			w64(f, (uint64_t)a->bytes);
		}
	}
	w64(f, g->nprocs);
	for (size_t i = 0; i < g->nprocs; i++) {
		w64(f, g->procs[i].host);
		w64(f, (uint64_t)g->procs[i].pid);
		w64(f, g->procs[i].events);
		trace_agg_each_iv(g, i, put_iv_bin, f);
		w64(f, BIN_STOP);
	}
	put_map_bin(f, &g->threads);
	put_map_bin(f, &g->sizes);
	put_map_bin(f, &g->gper);
	put_map_bin(f, &g->bins);
	return ferror(f) ? -1 : 0;
}

int st_sum_partial_write_bin(FILE *f, st_sum_partial *p,
			     const st_trace_summary *s)
{
	return write_bin(f, &p->g, s, p->opts);
}

int st_sum_merge_write_bin(FILE *f, const st_sum_merge *mg)
{
	struct st_sum_merge_state *st = mg->state;
	st_trace_summary s = { 0 };

	if (!st)
		return -1;
	s.files_in = st->files;
	s.n_files = st->n_files;
	s.bad = st->bad;
	s.n_bad = st->n_bad;
	s.bad_lines = st->bad_lines;
	return write_bin(f, &st->agg, &s, st->opts.j);
}

/* A binary partial being read: a short or malformed one sets BAD. */
struct br {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t r64(struct br *b)
{
	uint64_t v = 0;

	if (b->bad || b->end - b->p < 8) {
		b->bad = true;
		return 0;
	}
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)b->p[i] << (8 * i);
	b->p += 8;
	return v;
}

/* A signed word within [LO, HI]. */
static int64_t rword(struct br *b, int64_t lo, int64_t hi)
{
	int64_t v = (int64_t)r64(b);

	if (v < lo || v > hi)
		b->bad = true;
	return v;
}

/* A string (pointing into the partial) into *S, *LEN. */
static void rstr(struct br *b, const char **s, size_t *len)
{
	uint64_t n = r64(b);

	*s = "";
	*len = 0;
	if (b->bad || n > (uint64_t)(b->end - b->p)) {
		b->bad = true;
		return;
	}
	*s = (const char *)b->p;
	*len = (size_t)n;
	b->p += n;
}

/* A string or NULL (its flag) as a new NUL-terminated copy; a NUL inside
 * is malformed.  0, -1 out of memory. */
static int rdup(struct br *b, char **out)
{
	uint64_t has = r64(b);
	const char *s;
	size_t len;

	*out = NULL;
	if (has > 1)
		b->bad = true;
	if (b->bad || !has)
		return 0;
	rstr(b, &s, &len);
	if (b->bad || memchr(s, '\0', len)) {
		b->bad = true;
		return 0;
	}
	return (*out = strndup(s, len)) ? 0 : -1;
}

/* A map into M as get_map reads one. */
static int rmap(struct br *b, st_pairmap *m, int64_t amin, int64_t amax,
		int64_t blo, int64_t bhi, int64_t vmin, bool *sat)
{
	uint64_t n = r64(b);

	if (n > (uint64_t)(b->end - b->p) / 24)
		b->bad = true;
	for (uint64_t i = 0; !b->bad && i < n; i++) {
		int64_t a = rword(b, amin, amax), x = rword(b, blo, bhi),
			v = rword(b, vmin, INT64_MAX);
		uint64_t *p;

		if (b->bad)
			break;
		if (!(p = st_pairmap_get(m, (uint64_t)a, (uint64_t)x, NULL)))
			return -1;
		uadd(p, (uint64_t)v, sat);
	}
	return 0;
}

/* The gatherings of a binary partial (at its totals) into G, as get_agg.
 * 0, 1 malformed, -1 out of memory. */
static int get_agg_bin(struct br *b, struct agg *g)
{
	int64_t gran = g->o->granularity_us, bmax, ng, np;

	for (int d = 0; d < D_N; d++) {
		uint64_t n = r64(b);

		if (n > UINT32_MAX / 2)
			return 1;
		for (uint64_t i = 0; !b->bad && i < n; i++) {
			const char *s;
			size_t len;
			int64_t id, c, du, by;

			rstr(b, &s, &len);
			c = rword(b, 0, INT64_MAX);
			du = rword(b, 0, INT64_MAX);
			by = rword(b, 0, INT64_MAX);
			if (b->bad)
				return 1;
			if ((id = trace_agg_intern(g, d, s, len)) < 0)
				return -1;
			if ((uint64_t)id != i)
				return 1;
			if (!trace_dim_counts(d))
				continue;      /* a table that keeps no counters */
			g->acc[d][id].count = (uint64_t)c;
			g->acc[d][id].dur = du;
			g->acc[d][id].bytes = by;
		}
	}
	if (b->bad || (!g->o->group.n && (g->tab[D_GROUP].n ||
					  g->tab[D_PER].n)))
		return 1;
	for (uint64_t i = 0, n = r64(b); !b->bad && i < n; i++) {
		int64_t h = rword(b, 0, (int64_t)g->tab[D_HOST].n - 1),
			pid = (int64_t)r64(b), ev = rword(b, 0, INT64_MAX), p;

		if (b->bad)
			return 1;
		if ((p = trace_agg_proc(g, (uint32_t)h, pid)) < 0)
			return -1;
		if ((uint64_t)p != i)
			return 1;
		g->procs[p].events = (uint64_t)ev;
		for (;;) {
			uint64_t kind = r64(b);
			int64_t s, e;

			if (b->bad || kind == BIN_STOP)
				break;
			s = rword(b, -ST_PARTIAL_TIME_MAX, ST_PARTIAL_TIME_MAX);
			e = rword(b, s + 1, ST_PARTIAL_TIME_MAX);
			if (b->bad || kind > TRACE_IV_COMP)
				return 1;
			if (trace_agg_add_iv(g, (size_t)p, (int)kind, s, e) < 0)
				return -1;
		}
	}
	ng = g->tab[D_GROUP].n;
	np = g->tab[D_PER].n;
	bmax = gran > 0 ? ST_PARTIAL_TIME_MAX / gran : -1;
	if (rmap(b, &g->threads, 0, (int64_t)g->nprocs - 1, INT64_MIN,
		 INT64_MAX, 0, &g->saturated) < 0 ||
	    rmap(b, &g->sizes, 0, (int64_t)g->tab[D_NAME].n - 1, 0,
		 INT64_MAX, 1, &g->saturated) < 0 ||
	    rmap(b, &g->gper, 0, ng - 1, 0, 2 * np - 1, 0,
		 &g->saturated) < 0 ||
	    rmap(b, &g->bins, -bmax, bmax, 0, gran > 0 ? BIN_WRITTEN : -1, 0,
		 &g->saturated) < 0)
		return -1;
	if (b->bad || b->p != b->end)
		return 1;
	return sizes_fit(g) ? 0 : 1;
}

/* The inputs' records of a binary partial (after its totals) appended to
 * ST.  0, 1 malformed, -1 out of memory. */
static int get_inputs_bin(struct br *b, struct st_sum_merge_state *st,
			  uint64_t bad_lines)
{
	st_trace_summary s = { 0 };
	int rc = 0;
	uint64_t nf = r64(b), nb;

	if (nf > (uint64_t)(b->end - b->p) / 64)
		return 1;
	if (!(s.files_in = calloc(nf + 1, sizeof(*s.files_in))))
		return -1;
	for (uint64_t i = 0; rc == 0 && !b->bad && i < nf; i++) {
		st_trace_file *t = &s.files_in[i];
		char *path = NULL;

		if (rdup(b, &path) < 0) {
			rc = -1;
			break;
		}
		t->path = path;
		s.n_files++;
		t->st.lines = (uint64_t)rword(b, 0, INT64_MAX);
		t->st.events = (uint64_t)rword(b, 0, INT64_MAX);
		t->st.meta = (uint64_t)rword(b, 0, INT64_MAX);
		t->st.other = (uint64_t)rword(b, 0, INT64_MAX);
		t->st.bad = (uint64_t)rword(b, 0, INT64_MAX);
		t->st.fast = (uint64_t)rword(b, 0, INT64_MAX);
		t->err_code = (int)rword(b, INT32_MIN, INT32_MAX);
		if (rdup(b, &t->err_text) < 0)
			rc = -1;
		t->not_trace = rword(b, 0, 1);
		t->first_us = rword(b, -ST_PARTIAL_TIME_MAX, ST_PARTIAL_TIME_MAX);
		t->end_us = rword(b, t->first_us, ST_PARTIAL_TIME_MAX);
		if (!path)
			b->bad = true;
	}
	nb = r64(b);
	if (!b->bad && nb > (uint64_t)(b->end - b->p) / 24)
		b->bad = true;
	if (rc == 0 && !b->bad &&
	    !(s.bad = calloc(nb + 1, sizeof(*s.bad))))
		rc = -1;
	for (uint64_t i = 0; rc == 0 && !b->bad && i < nb; i++) {
		s.bad[i].file = (size_t)rword(b, 0, (int64_t)nf - 1);
		s.bad[i].line = (uint64_t)rword(b, 0, INT64_MAX);
		if (rdup(b, &s.bad[i].why) < 0)
			rc = -1;
		s.n_bad++;
		if (!s.bad[i].why)
			b->bad = true;
	}
	s.bad_lines = bad_lines;
	if (rc == 0 && !b->bad)
		rc = put_inputs(st, &s);
	else if (rc == 0)
		rc = 1;
	for (size_t i = 0; i < s.n_files; i++) {
		free((char *)s.files_in[i].path);
		free(s.files_in[i].err_text);
	}
	for (size_t i = 0; i < s.n_bad; i++)
		free(s.bad[i].why);
	free(s.files_in);
	free(s.bad);
	return rc;
}


/* The head of binary partial B (after the magic): its options into
 * *OPTS (new) and totals into G0's fields.  0, 1 malformed. */
static int get_head_bin(struct br *b, json_t **opts, struct agg *g0,
			uint64_t *bad_lines)
{
	const char *os;
	size_t olen;

	*opts = NULL;
	if (r64(b) != BIN_VERSION)
		return 1;
	rstr(b, &os, &olen);
	if (b->bad || !(*opts = json_loadb(os, olen, JSON_REJECT_DUPLICATES,
					   NULL)) || !json_is_object(*opts))
		return 1;
	g0->events = (uint64_t)rword(b, 0, INT64_MAX);
	g0->first = rword(b, -ST_PARTIAL_TIME_MAX, ST_PARTIAL_TIME_MAX);
	g0->end = rword(b, g0->first, ST_PARTIAL_TIME_MAX);
	g0->saturated = rword(b, 0, 1);
	*bad_lines = (uint64_t)rword(b, 0, INT64_MAX);
	return b->bad ? 1 : 0;
}

int st_sum_merge_add_bin(st_sum_merge *mg, const char *text, size_t len,
			 const char *what, st_error *err)
{
	struct st_sum_merge_state *st;
	struct br b = { (const unsigned char *)text,
			(const unsigned char *)text + len, false };
	struct agg g0 = { 0 }, g;
	json_t *opts = NULL;
	uint64_t bl, bl0;
	size_t nf0, nb0;
	int r, rc;

	if (len < 4 || memcmp(text, BIN_MAGIC, 4) != 0)
		return BAD("%s: not a binary partial of trace summary", what);
	b.p += 4;
	if (get_head_bin(&b, &opts, &g0, &bl)) {
		json_decref(opts);
		return BAD("%s: its head is malformed", what);
	}
	rc = state_for(mg, opts, what, &st, err);
	json_decref(opts);
	if (rc < 0)
		return -1;
	nf0 = st->n_files;
	nb0 = st->n_bad;
	bl0 = st->bad_lines;
	trace_agg_init(&g, &st->opts.o);
	if ((r = get_inputs_bin(&b, st, bl)) == 0 &&
	    (r = get_agg_bin(&b, &g)) == 0) {
		g.events = g0.events;
		g.first = g0.first;
		g.end = g0.end;
		g.saturated |= g0.saturated;
		if (trace_agg_merge(&st->agg, &g) < 0)
			r = -1;
	}
	trace_agg_release(&g);
	if (r) {
		rc = r < 0 ? OOM(err) : BAD("%s: malformed", what);
		inputs_cut(st, nf0, nb0, bl0);
		if (!mg->state)
			state_release(st);
		return rc;
	}
	state_keep(mg, st);
	return 0;
}
