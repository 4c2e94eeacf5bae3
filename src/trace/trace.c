/* trace.c - summaries and timelines of DFTracer traces (SPEC 5.10).
 *
 * Each thread takes whole files (largest first) and gathers into its own
 * struct agg: ids of its own string tables, counters indexed by them, a
 * few hash maps keyed by pairs of integers, and per process the intervals
 * of its I/O and compute events.  The threads' aggs are then merged by
 * string key into the first one and finished: exact unions per process,
 * quartiles, sorted lists.  Nothing depends on which thread read which
 * file.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "streamtime/trace.h"

#define OOM(err) st_error_set(err, ST_EXIT_IOERR, "out of memory")

/* *A += B for sums of bytes and times (A, B >= 0), stopping at INT64_MAX
 * and setting *SAT instead of wrapping: one event's ts and dur are bounded
 * by the reader (|x| <= 2^53), but its bytes are not, nor is a sum over
 * billions of events of a hostile trace.  Every term is >= 0, so a capped
 * sum is INT64_MAX however the terms were split between threads. */
static inline void sadd(int64_t *a, int64_t b, bool *sat)
{
	if (b > INT64_MAX - *a) {
		*a = INT64_MAX;
		*sat = true;
	} else {
		*a += b;
	}
}

/* The same for the values of the pair maps (A <= INT64_MAX). */
static inline void uadd(uint64_t *a, uint64_t b, bool *sat)
{
	if (b > (uint64_t)INT64_MAX - *a) {
		*a = (uint64_t)INT64_MAX;
		*sat = true;
	} else {
		*a += b;
	}
}

/* ---- intervals ------------------------------------------------------- */

static void iv_swap(st_trace_iv *a, st_trace_iv *b)
{
	st_trace_iv t = *a;

	*a = *b;
	*b = t;
}

static void iv_insertion(st_trace_iv *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		st_trace_iv x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1].s > x.s; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void iv_sift(st_trace_iv *v, size_t root, size_t n)
{
	for (;;) {
		size_t c = 2 * root + 1;

		if (c >= n)
			return;
		if (c + 1 < n && v[c + 1].s > v[c].s)
			c++;
		if (v[root].s >= v[c].s)
			return;
		iv_swap(&v[root], &v[c]);
		root = c;
	}
}

static void iv_heapsort(st_trace_iv *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		iv_sift(v, i, n);
	for (size_t i = n; i-- > 1;) {
		iv_swap(&v[0], &v[i]);
		iv_sift(v, 0, i);
	}
}

/* Introsort by start: quicksort with a median of three, heapsort when it
 * goes too deep, insertion sort for short runs. */
static void iv_sort(st_trace_iv *v, size_t n, int depth)
{
	while (n > 24) {
		int64_t a = v[0].s, b = v[n / 2].s, c = v[n - 1].s, p;
		ptrdiff_t i = -1, j = (ptrdiff_t)n;

		if (depth-- == 0) {
			iv_heapsort(v, n);
			return;
		}
		p = a < b ? (b < c ? b : (a < c ? c : a))
			  : (a < c ? a : (b < c ? c : b));
		for (;;) {
			do
				i++;
			while (v[i].s < p);
			do
				j--;
			while (v[j].s > p);
			if (i >= j)
				break;
			iv_swap(&v[i], &v[j]);
		}
		/* [0, j] and [j + 1, n): recurse into the smaller */
		if ((size_t)j + 1 < n - (size_t)j - 1) {
			iv_sort(v, (size_t)j + 1, depth);
			v += j + 1;
			n -= (size_t)j + 1;
		} else {
			iv_sort(v + j + 1, n - (size_t)j - 1, depth);
			n = (size_t)j + 1;
		}
	}
	iv_insertion(v, n);
}

size_t st_trace_iv_union(st_trace_iv *v, size_t n)
{
	size_t k = 0;
	bool sorted = true;

	for (size_t i = 0; i < n; i++) {
		if (v[i].e <= v[i].s)
			continue;
		if (k && v[i].s < v[k - 1].s)
			sorted = false;
		v[k++] = v[i];
	}
	n = k;
	if (!sorted) {
		int depth = 2;

		for (size_t m = n; m > 1; m >>= 1)
			depth += 2;
		iv_sort(v, n, depth);
	}
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && v[i].s <= v[k - 1].e) {
			if (v[i].e > v[k - 1].e)
				v[k - 1].e = v[i].e;
		} else {
			v[k++] = v[i];
		}
	}
	return k;
}

int64_t st_trace_iv_length(const st_trace_iv *v, size_t n)
{
	int64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += v[i].e - v[i].s;
	return t;
}

int64_t st_trace_iv_overlap(const st_trace_iv *a, size_t na,
			    const st_trace_iv *b, size_t nb)
{
	size_t i = 0, j = 0;
	int64_t t = 0;

	while (i < na && j < nb) {
		int64_t lo = a[i].s > b[j].s ? a[i].s : b[j].s;
		int64_t hi = a[i].e < b[j].e ? a[i].e : b[j].e;

		if (hi > lo)
			t += hi - lo;
		if (a[i].e < b[j].e)
			i++;
		else
			j++;
	}
	return t;
}

/* A growing list of intervals that is folded into its union whenever it
 * has doubled since the last fold, so that overlapping events (threads,
 * nested calls) do not cost memory. */
struct ivec {
	st_trace_iv *v;
	size_t n, cap, fold_at;
};

static int ivec_push(struct ivec *v, int64_t s, int64_t e)
{
	if (v->n == v->cap) {
		if (v->n >= v->fold_at) {
			v->n = st_trace_iv_union(v->v, v->n);
			v->fold_at = v->n * 2 > 4096 ? v->n * 2 : 4096;
		}
		if (v->n == v->cap) {
			size_t cap = v->cap ? v->cap * 2 : 64;
			st_trace_iv *nv = realloc(v->v, cap * sizeof(*nv));

			if (!nv)
				return -1;
			v->v = nv;
			v->cap = cap;
		}
	}
	v->v[v->n++] = (st_trace_iv){ s, e };
	return 0;
}

/* Append B's intervals to A and free B. */
static int ivec_take(struct ivec *a, struct ivec *b)
{
	if (!a->v) {
		*a = *b;
		memset(b, 0, sizeof(*b));
		return 0;
	}
	if (a->n + b->n > a->cap) {
		size_t cap = a->n + b->n;
		st_trace_iv *nv = realloc(a->v, cap * sizeof(*nv));

		if (!nv)
			return -1;
		a->v = nv;
		a->cap = cap;
	}
	if (b->n)
		memcpy(a->v + a->n, b->v, b->n * sizeof(*b->v));
	a->n += b->n;
	free(b->v);
	memset(b, 0, sizeof(*b));
	return 0;
}

/* ---- filters --------------------------------------------------------- */

static const char *const field_names[ST_TRACE_FIELD_N] = {
	"name", "cat", "host", "file", "pid", "tid",
};

void st_trace_filter_release(st_trace_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].value);
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

static int filter_term(st_trace_filter *f, const char *t, size_t len,
		       st_error *err)
{
	st_trace_term term = { 0 };
	size_t k = 0, fl;
	st_trace_term *nv;
	int field;

	while (k < len && t[k] >= 'a' && t[k] <= 'z')
		k++;
	fl = k;
	for (field = 0; field < ST_TRACE_FIELD_N; field++)
		if (strlen(field_names[field]) == fl &&
		    memcmp(field_names[field], t, fl) == 0)
			break;
	if (field == ST_TRACE_FIELD_N)
		return st_error_set(err, ST_EXIT_USAGE, "--filter: '%.*s': the "
				    "field must be name, cat, host, file, pid "
				    "or tid", (int)len, t);
	term.field = (enum st_trace_field)field;
	if (k < len && t[k] == '!') {
		term.neg = true;
		k++;
	}
	if (k >= len || !strchr("=~^", t[k]))
		return st_error_set(err, ST_EXIT_USAGE, "--filter: '%.*s': "
				    "expected FIELD=VALUE, FIELD~VALUE or "
				    "FIELD^VALUE", (int)len, t);
	term.op = t[k] == '=' ? ST_TRACE_EQ : t[k] == '~' ? ST_TRACE_SUB
							  : ST_TRACE_PREFIX;
	k++;
	if (!(term.value = strndup(t + k, len - k)))
		return OOM(err);
	if (term.field == ST_TRACE_PID || term.field == ST_TRACE_TID) {
		char *end;

		errno = 0;
		term.num = strtoll(term.value, &end, 10);
		if (term.op != ST_TRACE_EQ || !*term.value || *end || errno) {
			free(term.value);
			return st_error_set(err, ST_EXIT_USAGE, "--filter: "
					    "'%.*s': %s takes =INTEGER",
					    (int)len, t, field_names[field]);
		}
	}
	if (!(nv = realloc(f->v, (f->n + 1) * sizeof(*nv)))) {
		free(term.value);
		return OOM(err);
	}
	f->v = nv;
	f->v[f->n++] = term;
	return 0;
}

int st_trace_filter_parse(st_trace_filter *f, const char *expr, st_error *err)
{
	const char *p = expr;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == 0)
			return st_error_set(err, ST_EXIT_USAGE, "--filter: an "
					    "empty term in '%s'", expr);
		if (filter_term(f, p, len, err) < 0)
			return -1;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static bool term_match(const st_trace_term *t, const char *s, size_t len)
{
	size_t vl = strlen(t->value);

	if (!s)
		return false;
	switch (t->op) {
	case ST_TRACE_EQ:
		return len == vl && memcmp(s, t->value, vl) == 0;
	case ST_TRACE_SUB:
		return memmem(s, len, t->value, vl) != NULL;
	default:
		return len >= vl && memcmp(s, t->value, vl) == 0;
	}
}

bool st_trace_filter_field(const st_trace_filter *f, enum st_trace_field field,
			   const char *s, size_t len)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (f->v[i].field == field &&
		    term_match(&f->v[i], s, len) == f->v[i].neg)
			return false;
	return true;
}

bool st_trace_filter_ids(const st_trace_filter *f, int64_t pid, int64_t tid)
{
	for (size_t i = 0; f && i < f->n; i++) {
		const st_trace_term *t = &f->v[i];

		if ((t->field == ST_TRACE_PID && (t->num == pid) == t->neg) ||
		    (t->field == ST_TRACE_TID && (t->num == tid) == t->neg))
			return false;
	}
	return true;
}

static bool filter_has(const st_trace_filter *f, enum st_trace_field field)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (f->v[i].field == field)
			return true;
	return false;
}

/* ---- grouping -------------------------------------------------------- */

int st_trace_group_parse(const char *s, enum st_trace_group *g, int *depth,
			 st_error *err)
{
	static const struct { const char *name; enum st_trace_group g; } k[] = {
		{ "name", ST_TRACE_GROUP_NAME }, { "cat", ST_TRACE_GROUP_CAT },
		{ "pid", ST_TRACE_GROUP_PID }, { "host", ST_TRACE_GROUP_HOST },
		{ "file", ST_TRACE_GROUP_FILE },
	};

	*depth = 0;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (strcmp(s, k[i].name) == 0) {
			*g = k[i].g;
			return 0;
		}
	if (strncmp(s, "prefix:", 7) == 0) {
		char *end;
		long d;

		errno = 0;
		d = strtol(s + 7, &end, 10);
		if (s[7] >= '0' && s[7] <= '9' && !*end && !errno && d >= 1 &&
		    d <= 64) {
			*g = ST_TRACE_GROUP_PREFIX;
			*depth = (int)d;
			return 0;
		}
	}
	return st_error_set(err, ST_EXIT_USAGE, "--group-by: '%s': expected "
			    "name, cat, pid, host, file or prefix:DEPTH "
			    "(1-64)", s);
}

size_t st_trace_prefix_len(const char *path, size_t len, int depth)
{
	size_t i = 0;
	int c = 0;

	while (i < len) {
		while (i < len && path[i] == '/')
			i++;
		if (i == len)
			break;
		while (i < len && path[i] != '/')
			i++;
		if (++c == depth)
			return i;
	}
	while (len > 1 && path[len - 1] == '/')
		len--;
	return len;
}

/* ---- maps of integer pairs ------------------------------------------- */

struct pent {
	uint64_t a, b, v;
	bool used;
};

struct pmap {
	struct pent *e;
	size_t cap, n;
};

static inline size_t pmap_hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) *
		     0xbf58476d1ce4e5b9ull;

	h ^= h >> 29;
	h *= 0x94d049bb133111ebull;
	return (size_t)(h ^ (h >> 32));
}

static int pmap_grow(struct pmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	struct pent *e = calloc(cap, sizeof(*e));

	if (!e)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->e[i].used)
			continue;
		j = pmap_hash(m->e[i].a, m->e[i].b) & (cap - 1);
		while (e[j].used)
			j = (j + 1) & (cap - 1);
		e[j] = m->e[i];
	}
	free(m->e);
	m->e = e;
	m->cap = cap;
	return 0;
}

/* The value of (A, B), 0 when added (*ADDED may be NULL); NULL when
 * memory runs out.  Valid until the next pmap_get. */
static uint64_t *pmap_get(struct pmap *m, uint64_t a, uint64_t b, bool *added)
{
	size_t j;

	if ((m->n + 1) * 4 > m->cap * 3 && pmap_grow(m) < 0)
		return NULL;
	j = pmap_hash(a, b) & (m->cap - 1);
	for (;; j = (j + 1) & (m->cap - 1)) {
		struct pent *e = &m->e[j];

		if (!e->used) {
			e->used = true;
			e->a = a;
			e->b = b;
			e->v = 0;
			m->n++;
			if (added)
				*added = true;
			return &e->v;
		}
		if (e->a == a && e->b == b) {
			if (added)
				*added = false;
			return &e->v;
		}
	}
}

/* The value of (A, B), or NULL when it has none. */
static const uint64_t *pmap_find(const struct pmap *m, uint64_t a, uint64_t b)
{
	if (!m->cap)
		return NULL;
	for (size_t j = pmap_hash(a, b) & (m->cap - 1);;
	     j = (j + 1) & (m->cap - 1)) {
		const struct pent *e = &m->e[j];

		if (!e->used)
			return NULL;
		if (e->a == a && e->b == b)
			return &e->v;
	}
}

static void pmap_release(struct pmap *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

/* ---- one thread's gatherings ----------------------------------------- */

enum { D_NAME, D_CAT, D_HOST, D_FILE, D_GROUP, D_N };

struct acc {
	uint64_t count;
	int64_t dur, bytes;
	uint32_t group;         /* + 1: the group of this name/cat/host/file */
	uint8_t io, compute;    /* categories */
};

struct proc {
	uint32_t host;
	int64_t pid;
	uint64_t events;
	uint32_t group;         /* + 1: --group-by pid */
	struct ivec io, comp;
};

struct agg {
	const st_trace_opts *o;
	st_strtab tab[D_N];
	struct acc *acc[D_N];
	size_t acc_cap[D_N];
	struct proc *procs;
	size_t nprocs, proc_cap;
	struct pmap procmap;    /* (host, pid) -> proc + 1 */
	struct pmap threads;    /* (proc, tid) */
	struct pmap sizes;      /* (name, bytes) -> events */
	struct pmap gproc;      /* (group, proc) -> dur */
	struct pmap bins;       /* (bin, 0) -> events, (bin, 1) -> bytes */
	uint64_t events;
	int64_t first, end;
	int64_t host_none;      /* the id of "" in tab[D_HOST], -1 */
	bool saturated;         /* a sum stopped at INT64_MAX */
	/* one-entry caches */
	uint32_t last_host, last_proc;
	int64_t last_pid, last_tid;
	bool have_last, have_thread;
};

static void agg_init(struct agg *g, const st_trace_opts *o)
{
	memset(g, 0, sizeof(*g));
	g->o = o;
	for (int d = 0; d < D_N; d++)
		st_strtab_init(&g->tab[d]);
	g->host_none = -1;
}

static void agg_release(struct agg *g)
{
	for (int d = 0; d < D_N; d++) {
		st_strtab_release(&g->tab[d]);
		free(g->acc[d]);
	}
	for (size_t i = 0; i < g->nprocs; i++) {
		free(g->procs[i].io.v);
		free(g->procs[i].comp.v);
	}
	free(g->procs);
	pmap_release(&g->procmap);
	pmap_release(&g->threads);
	pmap_release(&g->sizes);
	pmap_release(&g->gproc);
	pmap_release(&g->bins);
}

static bool in_list(const char *const *v, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(v[i]) == len && memcmp(v[i], s, len) == 0)
			return true;
	return false;
}

static const char *const default_io[] = { "POSIX", "STDIO" };
static const char *const default_compute[] = { "compute" };

/* The id of S in dimension D, its counters zeroed when new; -1 on OOM. */
static int64_t agg_intern(struct agg *g, int d, const char *s, size_t len)
{
	bool added;
	int64_t id = st_strtab_intern(&g->tab[d], s, len, &added);

	if (id < 0 || !added)
		return id;
	if ((size_t)id >= g->acc_cap[d]) {
		size_t cap = g->acc_cap[d] ? g->acc_cap[d] * 2 : 64;
		struct acc *v = realloc(g->acc[d], cap * sizeof(*v));

		if (!v)
			return -1;
		g->acc[d] = v;
		g->acc_cap[d] = cap;
	}
	memset(&g->acc[d][id], 0, sizeof(g->acc[d][id]));
	if (d == D_CAT) {
		const st_trace_opts *o = g->o;

		g->acc[d][id].io = o->io_cats
			? in_list(o->io_cats, o->n_io, s, len)
			: in_list(default_io, 2, s, len);
		g->acc[d][id].compute = o->compute_cats
			? in_list(o->compute_cats, o->n_compute, s, len)
			: in_list(default_compute, 1, s, len);
	}
	return id;
}

static int64_t agg_proc(struct agg *g, uint32_t host, int64_t pid)
{
	bool added;
	uint64_t *v;

	if (g->have_last && g->last_host == host && g->last_pid == pid)
		return g->last_proc;
	if (!(v = pmap_get(&g->procmap, host, (uint64_t)pid, &added)))
		return -1;
	if (added) {
		if (g->nprocs == g->proc_cap) {
			size_t cap = g->proc_cap ? g->proc_cap * 2 : 64;
			struct proc *p = realloc(g->procs, cap * sizeof(*p));

			if (!p)
				return -1;
			g->procs = p;
			g->proc_cap = cap;
		}
		memset(&g->procs[g->nprocs], 0, sizeof(g->procs[0]));
		g->procs[g->nprocs].host = host;
		g->procs[g->nprocs].pid = pid;
		*v = ++g->nprocs;
	}
	g->have_last = true;
	g->have_thread = false;
	g->last_host = host;
	g->last_pid = pid;
	g->last_proc = (uint32_t)(*v - 1);
	return g->last_proc;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* The key of an event's group in BUF (or the string itself). */
static int group_of(struct agg *g, uint32_t file, uint32_t proc,
		    uint32_t *gid)
{
	const st_trace_opts *o = g->o;
	struct acc *a = NULL;
	const char *s;
	size_t len;
	int64_t id;

	switch (o->group) {
	case ST_TRACE_GROUP_PID:
		if (g->procs[proc].group) {
			*gid = g->procs[proc].group - 1;
			return 0;
		}
		s = st_strtab_str(&g->tab[D_HOST], g->procs[proc].host, &len);
		{
			char *key = malloc(len + 32);

			if (!key)
				return -1;
			len = (size_t)snprintf(key, len + 32, "%s:%" PRId64,
					       len ? s : "?",
					       g->procs[proc].pid);
			id = agg_intern(g, D_GROUP, key, len);
			free(key);
		}
		if (id < 0)
			return -1;
		g->procs[proc].group = (uint32_t)id + 1;
		*gid = (uint32_t)id;
		return 0;
	case ST_TRACE_GROUP_FILE:
	case ST_TRACE_GROUP_PREFIX:
		if (file == ST_PFW_NONE) {
			s = "(none)";
			len = 6;
			break;
		}
		a = &g->acc[D_FILE][file];
		s = st_strtab_str(&g->tab[D_FILE], file, &len);
		if (o->group == ST_TRACE_GROUP_PREFIX)
			len = st_trace_prefix_len(s, len, o->prefix_depth);
		break;
	default:
		return -1;   /* name, cat, host: by the caller */
	}
	if (a && a->group) {
		*gid = a->group - 1;
		return 0;
	}
	if ((id = agg_intern(g, D_GROUP, s, len)) < 0)
		return -1;
	if (a)
		a->group = (uint32_t)id + 1;
	*gid = (uint32_t)id;
	return 0;
}

static int agg_group_dim(struct agg *g, int d, uint32_t id, uint32_t *gid)
{
	struct acc *a = &g->acc[d][id];
	const char *s;
	size_t len;
	int64_t k;

	if (a->group) {
		*gid = a->group - 1;
		return 0;
	}
	s = st_strtab_str(&g->tab[d], id, &len);
	if ((k = agg_intern(g, D_GROUP, s, len)) < 0)
		return -1;
	/* agg_intern may have moved acc[D_GROUP], not acc[d] */
	g->acc[d][id].group = (uint32_t)k + 1;
	*gid = (uint32_t)k;
	return 0;
}

/* One event into G: ids in G's tables (FILE may be ST_PFW_NONE). */
static int agg_event(struct agg *g, uint32_t name, uint32_t cat,
		     uint32_t host, uint32_t file, const st_pfw_event *ev)
{
	const st_trace_opts *o = g->o;
	int64_t p = agg_proc(g, host, ev->pid);
	int64_t end = ev->ts + ev->dur;
	struct acc *a;
	struct proc *pr;
	uint64_t *v;

	if (p < 0)
		return -1;
	pr = &g->procs[p];
	pr->events++;
	if (!g->have_thread || g->last_tid != ev->tid) {
		if (!pmap_get(&g->threads, (uint64_t)p, (uint64_t)ev->tid, NULL))
			return -1;
		g->have_thread = true;
		g->last_tid = ev->tid;
	}
	if (g->events++ == 0 || ev->ts < g->first)
		g->first = ev->ts;
	if (g->events == 1 || end > g->end)
		g->end = end;
	a = &g->acc[D_NAME][name];
	a->count++;
	sadd(&a->dur, ev->dur, &g->saturated);
	if (ev->bytes >= 0) {
		sadd(&a->bytes, ev->bytes, &g->saturated);
		if (!(v = pmap_get(&g->sizes, name, (uint64_t)ev->bytes, NULL)))
			return -1;
		(*v)++;
	}
	a = &g->acc[D_CAT][cat];
	a->count++;
	sadd(&a->dur, ev->dur, &g->saturated);
	if (!o->no_overlap && ev->dur > 0) {
		if (a->io && ivec_push(&pr->io, ev->ts, end) < 0)
			return -1;
		if (a->compute && ivec_push(&pr->comp, ev->ts, end) < 0)
			return -1;
	}
	if (o->group != ST_TRACE_GROUP_NONE) {
		uint32_t gid;
		int rc;

		switch (o->group) {
		case ST_TRACE_GROUP_NAME:
			rc = agg_group_dim(g, D_NAME, name, &gid);
			break;
		case ST_TRACE_GROUP_CAT:
			rc = agg_group_dim(g, D_CAT, cat, &gid);
			break;
		case ST_TRACE_GROUP_HOST:
			rc = agg_group_dim(g, D_HOST, host, &gid);
			break;
		default:
			rc = group_of(g, file, (uint32_t)p, &gid);
			break;
		}
		if (rc < 0)
			return -1;
		a = &g->acc[D_GROUP][gid];
		a->count++;
		sadd(&a->dur, ev->dur, &g->saturated);
		if (ev->bytes > 0)
			sadd(&a->bytes, ev->bytes, &g->saturated);
		if (!(v = pmap_get(&g->gproc, gid, (uint64_t)p, NULL)))
			return -1;
		uadd(v, (uint64_t)ev->dur, &g->saturated);
	}
	if (o->granularity_us > 0) {
		int64_t b = floor_div(ev->ts, o->granularity_us);

		if (!(v = pmap_get(&g->bins, (uint64_t)b, 0, NULL)))
			return -1;
		(*v)++;
		if (ev->bytes > 0) {
			if (!(v = pmap_get(&g->bins, (uint64_t)b, 1, NULL)))
				return -1;
			uadd(v, (uint64_t)ev->bytes, &g->saturated);
		}
	}
	return 0;
}

/* ---- a file's strings against the thread's --------------------------- */

/* Per reader string id: its id in each of the thread's tables (+ 1) and
 * whether the filter's terms on that field hold (0 unknown, 1, -1). */
struct rmap {
	uint32_t *tr[4];
	int8_t *ok[4];
	size_t cap;
	int8_t none_ok[4];       /* for ST_PFW_NONE */
	bool filter_dim[4];
};

static void rmap_init(struct rmap *m, const st_trace_filter *f)
{
	memset(m, 0, sizeof(*m));
	for (int d = 0; d < 4; d++) {
		m->filter_dim[d] = filter_has(f, (enum st_trace_field)d);
		m->none_ok[d] = st_trace_filter_field(f, (enum st_trace_field)d,
						      NULL, 0) ? 1 : -1;
	}
}

static void rmap_release(struct rmap *m)
{
	for (int d = 0; d < 4; d++) {
		free(m->tr[d]);
		free(m->ok[d]);
	}
	memset(m, 0, sizeof(*m));
}

static int rmap_fit(struct rmap *m, uint32_t id)
{
	size_t cap;

	if (id < m->cap)
		return 0;
	cap = m->cap ? m->cap : 256;
	while (cap <= id)
		cap *= 2;
	for (int d = 0; d < 4; d++) {
		uint32_t *t = realloc(m->tr[d], cap * sizeof(*t));
		int8_t *k;

		if (t)
			m->tr[d] = t;
		k = t ? realloc(m->ok[d], cap) : NULL;
		if (!k)
			return -1;
		m->ok[d] = k;
		memset(m->tr[d] + m->cap, 0, (cap - m->cap) * sizeof(*t));
		memset(m->ok[d] + m->cap, 0, cap - m->cap);
	}
	m->cap = cap;
	return 0;
}

/* Does the filter let the event through? */
static int rmap_pass(struct rmap *m, const st_pfw_reader *r,
		     const st_trace_filter *f, const st_pfw_event *ev)
{
	const uint32_t ids[4] = { ev->name, ev->cat, ev->host, ev->file };

	for (int d = 0; d < 4; d++) {
		const char *s;
		size_t len;

		if (!m->filter_dim[d])
			continue;
		if (ids[d] == ST_PFW_NONE) {
			if (m->none_ok[d] < 0)
				return 0;
			continue;
		}
		if (rmap_fit(m, ids[d]) < 0)
			return -1;
		if (!m->ok[d][ids[d]]) {
			s = st_pfw_str(r, ids[d], &len);
			m->ok[d][ids[d]] = st_trace_filter_field(
				f, (enum st_trace_field)d, s, len) ? 1 : -1;
		}
		if (m->ok[d][ids[d]] < 0)
			return 0;
	}
	return st_trace_filter_ids(f, ev->pid, ev->tid);
}

/* The thread's id of reader string ID in dimension D. */
static int64_t rmap_tr(struct rmap *m, struct agg *g, const st_pfw_reader *r,
		       int d, uint32_t id)
{
	const char *s;
	size_t len;
	int64_t k;

	if (rmap_fit(m, id) < 0)
		return -1;
	if (m->tr[d][id])
		return m->tr[d][id] - 1;
	s = st_pfw_str(r, id, &len);
	if ((k = agg_intern(g, d, s, len)) < 0)
		return -1;
	m->tr[d][id] = (uint32_t)k + 1;
	return k;
}

/* ---- reading files in threads ---------------------------------------- */

struct run {
	const char *const *paths;
	size_t n;
	const st_trace_opts *o;
	size_t *order;            /* largest first */
	_Atomic size_t next;
	_Atomic int stop;
	st_trace_file *files;     /* by path index */
	st_trace_bad **bad;       /* by path index: the first max_bad */
	size_t *nbad;
};

struct worker {
	struct run *run;
	struct agg agg;
	st_error err;
	bool failed;
	pthread_t th;
};

static int host_none(struct agg *g)
{
	if (g->host_none < 0)
		g->host_none = agg_intern(g, D_HOST, "", 0);
	return g->host_none < 0 ? -1 : 0;
}

static void progress_add(st_trace_progress *p, uint64_t *seen,
			 const st_pfw_reader *r, uint64_t *events)
{
	uint64_t off = st_pfw_offset(r);

	if (!p)
		return;
	if (off > *seen) {
		atomic_fetch_add(&p->bytes, off - *seen);
		*seen = off;
	}
	atomic_fetch_add(&p->events, *events);
	*events = 0;
}

static int read_file(struct worker *w, size_t fi)
{
	struct run *run = w->run;
	const st_trace_opts *o = run->o;
	st_trace_file *tf = &run->files[fi];
	struct agg *g = &w->agg;
	struct rmap m;
	st_pfw_reader *r;
	st_pfw_event ev;
	st_error err;
	uint64_t seen = 0, pending = 0, tick = 0;
	int rc, ret = 0;

	tf->path = run->paths[fi];
	if (!(r = st_pfw_open(run->paths[fi], &err))) {
		tf->err_code = err.code;
		tf->err_text = strdup(err.text);
		return err.code == ST_EXIT_IOERR && !tf->err_text ? -1 : 0;
	}
	rmap_init(&m, o->filter);
	if (host_none(g) < 0) {
		ret = -1;
		goto out;
	}
	while ((rc = st_pfw_next(r, &ev, &err)) > 0) {
		int64_t name, cat, host, file = ST_PFW_NONE;

		if ((++tick & 8191) == 0) {
			progress_add(o->progress, &seen, r, &pending);
			if (atomic_load(&run->stop))
				break;
		}
		if (rc == ST_PFW_BAD) {
			const char *why;
			uint64_t line = st_pfw_bad_line(r, &why);
			st_trace_bad *b;

			if (run->nbad[fi] >= o->max_bad)
				continue;
			if (!run->bad[fi] &&
			    !(run->bad[fi] = calloc(o->max_bad, sizeof(*b)))) {
				ret = -1;
				break;
			}
			b = &run->bad[fi][run->nbad[fi]];
			b->file = fi;
			b->line = line;
			if (!(b->why = strdup(why))) {
				ret = -1;
				break;
			}
			run->nbad[fi]++;
			continue;
		}
		if (o->filter) {
			int pass = rmap_pass(&m, r, o->filter, &ev);

			if (pass < 0) {
				ret = -1;
				break;
			}
			if (!pass)
				continue;
		}
		pending++;
		if ((name = rmap_tr(&m, g, r, D_NAME, ev.name)) < 0 ||
		    (cat = rmap_tr(&m, g, r, D_CAT, ev.cat)) < 0 ||
		    (host = ev.host == ST_PFW_NONE ? g->host_none
			    : rmap_tr(&m, g, r, D_HOST, ev.host)) < 0 ||
		    (ev.file != ST_PFW_NONE &&
		     (file = rmap_tr(&m, g, r, D_FILE, ev.file)) < 0) ||
		    agg_event(g, (uint32_t)name, (uint32_t)cat, (uint32_t)host,
			      (uint32_t)file, &ev) < 0) {
			ret = -1;
			break;
		}
		if (o->granularity_us > 0 && g->bins.n > 2 * ST_TRACE_MAX_BINS) {
			st_error_set(&w->err, ST_EXIT_USAGE, "--time-granularity "
				     "%" PRId64 " makes more than %d bins",
				     o->granularity_us, ST_TRACE_MAX_BINS);
			w->failed = true;
			break;
		}
	}
	if (rc == ST_PFW_ERROR) {
		tf->err_code = err.code;
		tf->err_text = strdup(err.text);
	}
	progress_add(o->progress, &seen, r, &pending);
	tf->st = *st_pfw_stats_get(r);
	tf->not_trace = tf->st.events == 0 && tf->st.meta == 0 &&
			tf->st.other == 0;
out:
	rmap_release(&m);
	st_pfw_close(r);
	/* a new reader's string ids mean nothing to the caches */
	g->have_last = g->have_thread = false;
	return ret;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct run *run = w->run;

	for (;;) {
		size_t k = atomic_fetch_add(&run->next, 1);

		if (k >= run->n || atomic_load(&run->stop))
			break;
		if (read_file(w, run->order[k]) < 0 && !w->failed) {
			OOM(&w->err);
			w->failed = true;
		}
		if (w->failed) {
			atomic_store(&run->stop, 1);
			break;
		}
	}
	return NULL;
}

/* ---- merging --------------------------------------------------------- */

/* Merge B into A (B is emptied of its intervals). */
static int agg_merge(struct agg *a, struct agg *b)
{
	uint32_t *tr[D_N] = { 0 }, *trp = NULL;
	int rc = -1;

	for (int d = 0; d < D_N; d++) {
		if (!(tr[d] = malloc((b->tab[d].n + 1) * sizeof(uint32_t))))
			goto out;
		for (uint32_t i = 0; i < b->tab[d].n; i++) {
			size_t len;
			const char *s = st_strtab_str(&b->tab[d], i, &len);
			int64_t k = agg_intern(a, d, s, len);
			struct acc *x, *y;

			if (k < 0)
				goto out;
			tr[d][i] = (uint32_t)k;
			x = &a->acc[d][k];
			y = &b->acc[d][i];
			x->count += y->count;
			sadd(&x->dur, y->dur, &a->saturated);
			sadd(&x->bytes, y->bytes, &a->saturated);
		}
	}
	if (!(trp = malloc((b->nprocs + 1) * sizeof(*trp))))
		goto out;
	for (size_t i = 0; i < b->nprocs; i++) {
		struct proc *q = &b->procs[i];
		int64_t p = agg_proc(a, tr[D_HOST][q->host], q->pid);

		if (p < 0 || ivec_take(&a->procs[p].io, &q->io) < 0 ||
		    ivec_take(&a->procs[p].comp, &q->comp) < 0)
			goto out;
		a->procs[p].events += q->events;
		trp[i] = (uint32_t)p;
	}
	for (size_t i = 0; i < b->threads.cap; i++) {
		struct pent *e = &b->threads.e[i];

		if (e->used && !pmap_get(&a->threads, trp[e->a], e->b, NULL))
			goto out;
	}
	for (size_t i = 0; i < b->sizes.cap; i++) {
		struct pent *e = &b->sizes.e[i];
		uint64_t *v;

		if (!e->used)
			continue;
		if (!(v = pmap_get(&a->sizes, tr[D_NAME][e->a], e->b, NULL)))
			goto out;
		*v += e->v;
	}
	for (size_t i = 0; i < b->gproc.cap; i++) {
		struct pent *e = &b->gproc.e[i];
		uint64_t *v;

		if (!e->used)
			continue;
		if (!(v = pmap_get(&a->gproc, tr[D_GROUP][e->a], trp[e->b],
				   NULL)))
			goto out;
		uadd(v, e->v, &a->saturated);
	}
	for (size_t i = 0; i < b->bins.cap; i++) {
		struct pent *e = &b->bins.e[i];
		uint64_t *v;

		if (!e->used)
			continue;
		if (!(v = pmap_get(&a->bins, e->a, e->b, NULL)))
			goto out;
		uadd(v, e->v, &a->saturated);
	}
	if (b->events) {
		if (!a->events || b->first < a->first)
			a->first = b->first;
		if (!a->events || b->end > a->end)
			a->end = b->end;
		a->events += b->events;
	}
	a->saturated |= b->saturated;
	a->have_last = a->have_thread = false;
	rc = 0;
out:
	for (int d = 0; d < D_N; d++)
		free(tr[d]);
	free(trp);
	return rc;
}

/* ---- the summary ----------------------------------------------------- */

static const char *keep(st_trace_summary *s, const st_strtab *t, uint32_t id)
{
	size_t len;
	const char *str = st_strtab_str(t, id, &len);
	int64_t k = st_strtab_intern(&s->strings, str, len, NULL);

	return k < 0 ? NULL : st_strtab_str(&s->strings, (uint32_t)k, NULL);
}

static int cmp_stat(const void *x, const void *y)
{
	return strcmp(((const st_trace_stat *)x)->key,
		      ((const st_trace_stat *)y)->key);
}

static int cmp_u64pair(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Table D as sorted stats. */
static int stats_of(st_trace_summary *s, struct agg *g, int d,
		    st_trace_stat **out, size_t *nout)
{
	uint32_t n = g->tab[d].n;
	st_trace_stat *v = calloc(n + 1, sizeof(*v));

	if (!v)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		v[i].key = keep(s, &g->tab[d], i);
		if (!v[i].key) {
			free(v);
			return -1;
		}
		v[i].count = g->acc[d][i].count;
		v[i].dur_us = g->acc[d][i].dur;
		v[i].bytes = g->acc[d][i].bytes;
	}
	*out = v;
	*nout = n;
	return 0;
}

/* The K-th (0-based) of the values E[I..J) hold, E[x] = (name, value,
 * how many times), ascending. */
static uint64_t nth_value(uint64_t (*e)[3], size_t i, size_t j, uint64_t k)
{
	uint64_t cum = 0;

	for (size_t x = i; x < j; x++) {
		cum += e[x][2];
		if (k < cum)
			return e[x][1];
	}
	return e[j - 1][1];
}

/* Quantile P of the TOTAL values E[I..J) hold: SPEC 5.7's definition, as
 * st_stats_quantile_sorted computes it on the values written out (linear
 * interpolation at position (n-1)p of the sorted values), without writing
 * them out. */
static double quantile_counted(uint64_t (*e)[3], size_t i, size_t j,
			       uint64_t total, double p)
{
	double pos = (double)(total - 1) * p, frac, a, b;
	uint64_t lo = (uint64_t)floor(pos);

	a = (double)nth_value(e, i, j, lo);
	if (lo >= total - 1)
		return a;
	frac = pos - (double)lo;
	b = (double)nth_value(e, i, j, lo + 1);
	return a + (b - a) * frac;
}

/* Quartiles of every name's sizes from the (name, bytes) counts; V is
 * indexed by name id. */
static int quartiles(struct agg *g, st_trace_stat *v)
{
	size_t n = g->sizes.n, k = 0;
	uint64_t (*e)[3] = malloc((n + 1) * sizeof(*e));

	if (!e)
		return -1;
	for (size_t i = 0; i < g->sizes.cap; i++)
		if (g->sizes.e[i].used) {
			e[k][0] = g->sizes.e[i].a;
			e[k][1] = g->sizes.e[i].b;
			e[k][2] = g->sizes.e[i].v;
			k++;
		}
	qsort(e, n, sizeof(*e), cmp_u64pair);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		uint64_t total = 0;
		st_trace_stat *st = &v[e[i][0]];

		while (j < n && e[j][0] == e[i][0])
			total += e[j++][2];
		st->sized = total;
		st->q1 = quantile_counted(e, i, j, total, 0.25);
		st->median = quantile_counted(e, i, j, total, 0.5);
		st->q3 = quantile_counted(e, i, j, total, 0.75);
		i = j;
	}
	free(e);
	return 0;
}

/* The union V's time per bin into G->bins as (bin, KIND) (2: I/O, 3:
 * compute); *BUDGET bins may still be touched, -1 when it runs out. */
static int bins_add(struct agg *g, int64_t gran, const st_trace_iv *v,
		    size_t n, uint64_t kind, int64_t *budget)
{
	for (size_t i = 0; i < n; i++) {
		int64_t b = floor_div(v[i].s, gran), e = v[i].e;

		*budget -= floor_div(e - 1, gran) - b + 1;
		if (*budget < 0)
			return -1;
		for (; b * gran < e; b++) {
			int64_t lo = b * gran > v[i].s ? b * gran : v[i].s;
			int64_t hi = (b + 1) * gran < e ? (b + 1) * gran : e;
			uint64_t *x = pmap_get(&g->bins, (uint64_t)b, kind, NULL);

			if (!x)
				return -2;
			uadd(x, (uint64_t)(hi - lo), &g->saturated);
		}
	}
	return 0;
}

/* The bins that hold anything, sorted, from G->bins. */
static int bins_collect(st_trace_summary *s, struct agg *g, int64_t gran,
			st_error *err)
{
	size_t n = g->bins.n, k = 0;
	uint64_t (*e)[3] = malloc((n + 1) * sizeof(*e));

	if (!e)
		return OOM(err);
	for (size_t i = 0; i < g->bins.cap; i++)
		if (g->bins.e[i].used) {
			/* bins are signed: flip the sign bit to sort them */
			e[k][0] = g->bins.e[i].a ^ (UINT64_C(1) << 63);
			e[k][1] = g->bins.e[i].b;
			e[k][2] = g->bins.e[i].v;
			k++;
		}
	qsort(e, n, sizeof(*e), cmp_u64pair);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || e[i][0] != e[i - 1][0])
			s->n_bins++;
	if (s->n_bins > ST_TRACE_MAX_BINS) {
		free(e);
		return st_error_set(err, ST_EXIT_USAGE, "--time-granularity %"
				    PRId64 " makes %zu bins (at most %d)", gran,
				    s->n_bins, ST_TRACE_MAX_BINS);
	}
	if (!(s->bins = calloc(s->n_bins + 1, sizeof(*s->bins)))) {
		free(e);
		return OOM(err);
	}
	k = 0;
	for (size_t i = 0; i < n; i++) {
		st_trace_bin *b;

		if (i && e[i][0] != e[i - 1][0])
			k++;
		b = &s->bins[k];
		b->start_us = (int64_t)(e[i][0] ^ (UINT64_C(1) << 63)) * gran;
		switch (e[i][1]) {
		case 0: b->events = e[i][2]; break;
		case 1: b->bytes = (int64_t)e[i][2]; break;
		case 2: b->io_us = (int64_t)e[i][2]; break;
		default: b->compute_us = (int64_t)e[i][2]; break;
		}
	}
	free(e);
	return 0;
}

static int cmp_proc(const void *x, const void *y)
{
	const st_trace_process *a = x, *b = y;
	int c = strcmp(a->host, b->host);

	if (c)
		return c;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

static int finish(st_trace_summary *s, struct agg *g, st_error *err)
{
	const st_trace_opts *o = g->o;
	int64_t budget = 100 * (int64_t)ST_TRACE_MAX_BINS;
	size_t *nt;

	s->events = g->events;
	s->first_us = g->events ? g->first : 0;
	s->end_us = g->events ? g->end : 0;
	s->processes = g->nprocs;
	s->threads = g->threads.n;
	s->files = g->tab[D_FILE].n;
	s->hosts = g->tab[D_HOST].n;
	if (st_strtab_find(&g->tab[D_HOST], "", 0) >= 0)
		s->hosts--;   /* "": events that name no host */
	if (stats_of(s, g, D_CAT, &s->by_cat, &s->n_cat) < 0 ||
	    stats_of(s, g, D_NAME, &s->by_name, &s->n_name) < 0 ||
	    quartiles(g, s->by_name) < 0 ||
	    stats_of(s, g, D_GROUP, &s->groups, &s->n_groups) < 0)
		return OOM(err);
	for (size_t i = 0; i < g->gproc.cap; i++) {
		struct pent *e = &g->gproc.e[i];

		if (e->used && (int64_t)e->v > s->groups[e->a].max_proc_dur_us)
			s->groups[e->a].max_proc_dur_us = (int64_t)e->v;
	}
	if (!(s->procs = calloc(g->nprocs + 1, sizeof(*s->procs))) ||
	    !(nt = calloc(g->nprocs + 1, sizeof(*nt))))
		return OOM(err);
	for (size_t i = 0; i < g->nprocs; i++) {
		struct proc *p = &g->procs[i];
		st_trace_process *sp = &s->procs[i];
		int64_t io, comp, both;

		p->io.n = st_trace_iv_union(p->io.v, p->io.n);
		p->comp.n = st_trace_iv_union(p->comp.v, p->comp.n);
		io = st_trace_iv_length(p->io.v, p->io.n);
		comp = st_trace_iv_length(p->comp.v, p->comp.n);
		both = st_trace_iv_overlap(p->io.v, p->io.n, p->comp.v,
					   p->comp.n);
		sadd(&s->io_us, io, &g->saturated);
		sadd(&s->compute_us, comp, &g->saturated);
		sadd(&s->io_unoverlapped_us, io - both, &g->saturated);
		sadd(&s->compute_unoverlapped_us, comp - both, &g->saturated);
		if (io > s->io_max_us)
			s->io_max_us = io;
		if (comp > s->compute_max_us)
			s->compute_max_us = comp;
		if (o->granularity_us > 0 &&
		    (bins_add(g, o->granularity_us, p->io.v, p->io.n, 2,
			      &budget) < 0 ||
		     bins_add(g, o->granularity_us, p->comp.v, p->comp.n, 3,
			      &budget) < 0)) {
			s->n_procs = i;
			free(nt);
			if (budget >= 0)
				return OOM(err);
			return st_error_set(err, ST_EXIT_USAGE,
					    "--time-granularity %" PRId64
					    " makes more than %d bins",
					    o->granularity_us,
					    ST_TRACE_MAX_BINS);
		}
		sp->host = keep(s, &g->tab[D_HOST], p->host);
		sp->pid = p->pid;
		sp->events = p->events;
		sp->io_us = io;
		sp->compute_us = comp;
		if (!sp->host)
			goto oom;
	}
	for (size_t i = 0; i < g->threads.cap; i++)
		if (g->threads.e[i].used)
			s->procs[g->threads.e[i].a].ntids++;
	for (size_t i = 0; i < g->nprocs; i++)
		if (!(s->procs[i].tids = malloc((s->procs[i].ntids + 1) *
						sizeof(int64_t))))
			goto oom;
	for (size_t i = 0; i < g->threads.cap; i++) {
		struct pent *e = &g->threads.e[i];

		if (e->used)
			s->procs[e->a].tids[nt[e->a]++] = (int64_t)e->b;
	}
	for (size_t i = 0; i < g->nprocs; i++)
		qsort(s->procs[i].tids, s->procs[i].ntids, sizeof(int64_t),
		      cmp_i64);
	free(nt);
	s->n_procs = g->nprocs;
	if (o->granularity_us > 0 && bins_collect(s, g, o->granularity_us,
						  err) < 0)
		return -1;
	s->saturated = g->saturated;
	qsort(s->procs, s->n_procs, sizeof(*s->procs), cmp_proc);
	qsort(s->by_cat, s->n_cat, sizeof(*s->by_cat), cmp_stat);
	qsort(s->by_name, s->n_name, sizeof(*s->by_name), cmp_stat);
	qsort(s->groups, s->n_groups, sizeof(*s->groups), cmp_stat);
	return 0;
oom:
	free(nt);
	s->n_procs = g->nprocs;
	return OOM(err);
}

struct by_size {
	size_t i;
	off_t size;
};

static int cmp_by_size(const void *x, const void *y)
{
	const struct by_size *a = x, *b = y;

	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

int st_trace_summarize(const char *const *paths, size_t n,
		       const st_trace_opts *o, st_trace_summary *s,
		       st_error *err)
{
	struct run run = { 0 };
	struct worker *w = NULL;
	struct by_size *bs = NULL;
	size_t jobs = o->jobs > 1 ? (size_t)o->jobs : 1, started = 0;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	st_strtab_init(&s->strings);
	if (jobs > n)
		jobs = n ? n : 1;
	run.paths = paths;
	run.n = n;
	run.o = o;
	s->n_files = n;
	if (!(s->files_in = calloc(n + 1, sizeof(*s->files_in))) ||
	    !(run.order = calloc(n + 1, sizeof(*run.order))) ||
	    !(run.bad = calloc(n + 1, sizeof(*run.bad))) ||
	    !(run.nbad = calloc(n + 1, sizeof(*run.nbad))) ||
	    !(bs = calloc(n + 1, sizeof(*bs))) ||
	    !(w = calloc(jobs, sizeof(*w)))) {
		OOM(err);
		goto out;
	}
	run.files = s->files_in;
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		s->files_in[i].path = paths[i];
		bs[i].i = i;
		bs[i].size = stat(paths[i], &sb) == 0 ? sb.st_size : 0;
	}
	qsort(bs, n, sizeof(*bs), cmp_by_size);
	for (size_t i = 0; i < n; i++)
		run.order[i] = bs[i].i;
	for (size_t j = 0; j < jobs; j++) {
		w[j].run = &run;
		agg_init(&w[j].agg, o);
	}
	/* jansson seeds its hash tables on first use: do it before the
	 * threads parse lines */
	json_object_seed(0);
	if (jobs == 1) {
		worker_main(&w[0]);
		started = 1;
	} else {
		for (; started < jobs; started++)
			if (pthread_create(&w[started].th, NULL, worker_main,
					   &w[started]) != 0)
				break;
		if (started == 0) {
			/* no thread at all: read them here */
			worker_main(&w[0]);
			started = 0;
		}
		for (size_t j = 0; j < started; j++)
			pthread_join(w[j].th, NULL);
	}
	for (size_t j = 0; j < jobs; j++)
		if (w[j].failed) {
			*err = w[j].err;
			goto out;
		}
	for (size_t j = 1; j < jobs; j++)
		if (agg_merge(&w[0].agg, &w[j].agg) < 0) {
			OOM(err);
			goto out;
		}
	if (finish(s, &w[0].agg, err) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		s->bad_lines += s->files_in[i].st.bad;
	if (!(s->bad = calloc(o->max_bad + 1, sizeof(*s->bad)))) {
		OOM(err);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < run.nbad[i]; k++) {
			if (s->n_bad < o->max_bad) {
				s->bad[s->n_bad++] = run.bad[i][k];
			} else {
				free(run.bad[i][k].why);
			}
		}
	for (size_t i = 0; i < n; i++)
		run.nbad[i] = 0;
	rc = 0;
out:
	for (size_t i = 0; i < n && run.bad; i++) {
		for (size_t k = 0; run.nbad && k < run.nbad[i]; k++)
			free(run.bad[i][k].why);
		free(run.bad[i]);
	}
	for (size_t j = 0; w && j < jobs; j++)
		agg_release(&w[j].agg);
	free(w);
	free(bs);
	free(run.order);
	free(run.bad);
	free(run.nbad);
	return rc;
}

void st_trace_summary_release(st_trace_summary *s)
{
	if (!s)
		return;
	free(s->by_cat);
	free(s->by_name);
	free(s->groups);
	free(s->bins);
	for (size_t i = 0; i < s->n_procs; i++)
		free(s->procs[i].tids);
	free(s->procs);
	for (size_t i = 0; i < s->n_files; i++)
		free(s->files_in[i].err_text);
	free(s->files_in);
	for (size_t i = 0; i < s->n_bad; i++)
		free(s->bad[i].why);
	free(s->bad);
	st_strtab_release(&s->strings);
	memset(s, 0, sizeof(*s));
}

/* ---- lanes ----------------------------------------------------------- */

/* A slice to be given a lane: [s, e) on TRACK, the SEQ-th slice written. */
struct lrec {
	int64_t s, e;
	uint32_t track, seq;
};

/* By track, start, the longer first (so that an equal start nests), then
 * the order of writing. */
static int cmp_lrec(const void *x, const void *y)
{
	const struct lrec *a = x, *b = y;

	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	if (a->e != b->e)
		return a->e > b->e ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* First fit over the lanes of one track.  Each lane is a stack of the
 * ends of its open slices (non-increasing upwards: a slice goes on a lane
 * only when it ends within the top one).  A slice [s, e) fits a lane when,
 * after the slices that ended by s are closed, the lane has none open or
 * the innermost ends at e or later.  A max tree over the lanes of that
 * room (the innermost open end, INT64_MAX when none) finds the first lane
 * that fits in O(log lanes); a min heap of the ends pushed closes slices
 * as the starts advance.  Unused leaves are INT64_MAX, so a slice that
 * fits no lane lands on the next new one. */
struct lstack {
	int64_t *v;
	size_t n, cap;
};

struct hent {
	int64_t e;
	uint32_t lane;
};

struct laner {
	int64_t *tree;            /* [1, 2 * leaves): max of the room */
	size_t leaves;            /* a power of two, > nlanes */
	struct lstack *st;        /* leaves of them */
	size_t nlanes;
	struct hent *heap;
	size_t nheap, heap_cap;
};

static void laner_set(struct laner *L, size_t lane, int64_t room)
{
	size_t i = L->leaves + lane;

	L->tree[i] = room;
	for (i /= 2; i >= 1; i /= 2)
		L->tree[i] = L->tree[2 * i] > L->tree[2 * i + 1]
			     ? L->tree[2 * i] : L->tree[2 * i + 1];
}

/* Room for twice the leaves (or the first 16). */
static int laner_grow(struct laner *L)
{
	size_t leaves = L->leaves ? L->leaves * 2 : 16;
	int64_t *tree = malloc(2 * leaves * sizeof(*tree));
	struct lstack *st = realloc(L->st, leaves * sizeof(*st));

	if (st)
		L->st = st;
	if (!tree || !st) {
		free(tree);
		return -1;
	}
	memset(st + L->leaves, 0, (leaves - L->leaves) * sizeof(*st));
	for (size_t i = 0; i < leaves; i++)
		tree[leaves + i] = i < L->leaves ? L->tree[L->leaves + i]
						 : INT64_MAX;
	for (size_t i = leaves - 1; i >= 1; i--)
		tree[i] = tree[2 * i] > tree[2 * i + 1] ? tree[2 * i]
							: tree[2 * i + 1];
	free(L->tree);
	L->tree = tree;
	L->leaves = leaves;
	return 0;
}

/* A new track: every lane empty. */
static void laner_reset(struct laner *L)
{
	for (size_t l = 0; l < L->nlanes; l++) {
		L->st[l].n = 0;
		laner_set(L, l, INT64_MAX);
	}
	L->nlanes = 0;
	L->nheap = 0;
}

static void laner_release(struct laner *L)
{
	for (size_t l = 0; l < L->leaves; l++)
		free(L->st[l].v);
	free(L->st);
	free(L->tree);
	free(L->heap);
	memset(L, 0, sizeof(*L));
}

static int heap_push(struct laner *L, int64_t e, uint32_t lane)
{
	size_t i;

	if (L->nheap == L->heap_cap) {
		size_t cap = L->heap_cap ? L->heap_cap * 2 : 64;
		struct hent *h = realloc(L->heap, cap * sizeof(*h));

		if (!h)
			return -1;
		L->heap = h;
		L->heap_cap = cap;
	}
	for (i = L->nheap++; i > 0 && L->heap[(i - 1) / 2].e > e;
	     i = (i - 1) / 2)
		L->heap[i] = L->heap[(i - 1) / 2];
	L->heap[i] = (struct hent){ e, lane };
	return 0;
}

static struct hent heap_pop(struct laner *L)
{
	struct hent top = L->heap[0], last = L->heap[--L->nheap];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= L->nheap)
			break;
		if (c + 1 < L->nheap && L->heap[c + 1].e < L->heap[c].e)
			c++;
		if (last.e <= L->heap[c].e)
			break;
		L->heap[i] = L->heap[c];
		i = c;
	}
	if (L->nheap)
		L->heap[i] = last;
	return top;
}

/* The lane of [S, E), the slices coming in cmp_lrec's order; -1 when
 * memory runs out. */
static int64_t laner_place(struct laner *L, int64_t s, int64_t e)
{
	struct lstack *st;
	size_t i;

	/* close what ended by s (a pop closes the innermost slices first:
	 * those above an ended one end no later) */
	while (L->nheap && L->heap[0].e <= s) {
		uint32_t l = heap_pop(L).lane;

		st = &L->st[l];
		if (!st->n || st->v[st->n - 1] > s)
			continue;       /* closed already */
		while (st->n && st->v[st->n - 1] <= s)
			st->n--;
		laner_set(L, l, st->n ? st->v[st->n - 1] : INT64_MAX);
	}
	if (L->nlanes + 1 >= L->leaves && laner_grow(L) < 0)
		return -1;
	for (i = 1; i < L->leaves;)
		i = L->tree[2 * i] >= e ? 2 * i : 2 * i + 1;
	i -= L->leaves;
	if (i == L->nlanes)
		L->nlanes++;
	st = &L->st[i];
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 8;
		int64_t *v = realloc(st->v, cap * sizeof(*v));

		if (!v)
			return -1;
		st->v = v;
		st->cap = cap;
	}
	st->v[st->n++] = e;
	laner_set(L, i, e);
	if (heap_push(L, e, (uint32_t)i) < 0)
		return -1;
	return (int64_t)i;
}

int64_t st_trace_lanes(const st_trace_iv *v, size_t n, uint32_t *lane)
{
	struct lrec *r;
	struct laner L = { 0 };
	int64_t nl = 0;

	if (n == 0)
		return 0;
	if (n > UINT32_MAX || !(r = malloc(n * sizeof(*r))))
		return -1;
	for (size_t i = 0; i < n; i++)
		r[i] = (struct lrec){ v[i].s, v[i].e, 0, (uint32_t)i };
	qsort(r, n, sizeof(*r), cmp_lrec);
	for (size_t i = 0; i < n; i++) {
		int64_t l = laner_place(&L, r[i].s, r[i].e);

		if (l < 0) {
			nl = -1;
			break;
		}
		lane[r[i].seq] = (uint32_t)l;
	}
	if (nl == 0)
		nl = (int64_t)L.nlanes;
	laner_release(&L);
	free(r);
	return nl;
}

/* ---- timeline -------------------------------------------------------- */

/* Output through a buffer of our own: millions of small writes. */
struct obuf {
	FILE *f;
	char b[1 << 16];
	size_t n;
	bool failed;
};

static void ob_flush(struct obuf *o)
{
	if (o->n && fwrite(o->b, 1, o->n, o->f) != o->n)
		o->failed = true;
	o->n = 0;
}

static void ob_put(struct obuf *o, const char *s, size_t len)
{
	if (o->n + len > sizeof(o->b)) {
		ob_flush(o);
		if (len > sizeof(o->b)) {
			if (fwrite(s, 1, len, o->f) != len)
				o->failed = true;
			return;
		}
	}
	memcpy(o->b + o->n, s, len);
	o->n += len;
}

static void ob_str(struct obuf *o, const char *s)
{
	ob_put(o, s, strlen(s));
}

static void ob_int(struct obuf *o, int64_t v)
{
	char t[24], *p = t + sizeof(t);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	ob_put(o, p, (size_t)(t + sizeof(t) - p));
}

/* S as a JSON string: quotes, backslashes and control characters escaped,
 * the rest (valid UTF-8 from either scanner) as it is. */
static void ob_json(struct obuf *o, const char *s, size_t len)
{
	size_t i = 0, run = 0;

	ob_put(o, "\"", 1);
	for (; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		ob_put(o, s + run, i - run);
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			ob_put(o, esc, 2);
		} else {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			ob_put(o, esc, 6);
		}
		run = i + 1;
	}
	ob_put(o, s + run, len - run);
	ob_put(o, "\"", 1);
}

static void ob_meta(struct obuf *o, bool *first, const char *what, int64_t pid,
		    int64_t tid, const char *key, const char *text, int64_t num)
{
	ob_str(o, *first ? "\n" : ",\n");
	*first = false;
	ob_str(o, "{\"name\":\"");
	ob_str(o, what);
	ob_str(o, "\",\"ph\":\"M\",\"pid\":");
	ob_int(o, pid);
	ob_str(o, ",\"tid\":");
	ob_int(o, tid);
	ob_str(o, ",\"args\":{\"");
	ob_str(o, key);
	ob_str(o, "\":");
	if (text)
		ob_json(o, text, strlen(text));
	else
		ob_int(o, num);
	ob_str(o, "}}");
}

/* Per host of the trace: its clock correction state. */
struct hostfix {
	bool known, warned;
};

struct tl {
	const st_trace_timeline_opts *o;
	const st_trace_summary *s;
	st_strtab hosts;          /* host -> index into fix */
	struct hostfix *fix;
	struct pmap pids;         /* (host, pid) -> trace pid */
	struct obuf ob;
	uint64_t k;               /* events seen, for sampling */
	bool first;
	bool writing;             /* pass 3; pass 2 only gathers lrecs */
	st_log *log;
	/* pass 2: the slices to be written, and their tracks */
	struct lrec *rec;
	size_t nrec, rec_cap;
	struct pmap tracks;       /* (trace pid, tid) -> track + 1 */
	struct track {
		int64_t tid;
		uint32_t nlanes;
		size_t first;     /* its lanes in lane_tid */
	} *trk;
	size_t ntrk, trk_cap;
	uint64_t last_pid;        /* one-entry cache of tracks */
	int64_t last_tid;
	uint32_t last_trk;
	bool have_last;
	/* pass 3 */
	uint32_t *slot;           /* by slice: its track's first + lane */
	int64_t *lane_tid;        /* by slot: the tid written */
	uint64_t seq;             /* slices so far */
	uint64_t nmeta;           /* M events written */
};

/* The track of (PID, TID), added when new; -1 when memory runs out. */
static int64_t tl_track(struct tl *t, uint64_t pid, int64_t tid)
{
	bool added;
	uint64_t *v;

	if (t->have_last && t->last_pid == pid && t->last_tid == tid)
		return t->last_trk;
	if (!(v = pmap_get(&t->tracks, pid, (uint64_t)tid, &added)))
		return -1;
	if (added) {
		if (t->ntrk == t->trk_cap) {
			size_t cap = t->trk_cap ? t->trk_cap * 2 : 64;
			struct track *k = realloc(t->trk, cap * sizeof(*k));

			if (!k)
				return -1;
			t->trk = k;
			t->trk_cap = cap;
		}
		t->trk[t->ntrk] = (struct track){ tid, 1, 0 };
		*v = ++t->ntrk;
	}
	t->have_last = true;
	t->last_pid = pid;
	t->last_tid = tid;
	t->last_trk = (uint32_t)(*v - 1);
	return t->last_trk;
}

/* Pass 2 keeps the slice [TS, TS + DUR) of track TRK. */
static int tl_gather(struct tl *t, uint32_t trk, int64_t ts, int64_t dur,
		     st_error *err)
{
	if (t->nrec == UINT32_MAX)
		return st_error_set(err, ST_EXIT_USAGE, "more than %" PRIu32
				    " slices: lower --max-events", UINT32_MAX);
	if (t->nrec == t->rec_cap) {
		size_t cap = t->rec_cap ? t->rec_cap * 2 : 4096;
		struct lrec *r = realloc(t->rec, cap * sizeof(*r));

		if (!r)
			return OOM(err);
		t->rec = r;
		t->rec_cap = cap;
	}
	t->rec[t->nrec] = (struct lrec){ ts, ts + dur, trk,
					 (uint32_t)t->nrec };
	t->nrec++;
	return 0;
}

static int64_t correct(struct tl *t, uint32_t host, const char *name,
		       int64_t ts, st_trace_timeline_counts *c)
{
	const st_clock_offset *m;
	struct hostfix *f = &t->fix[host];

	if (!t->o->offsets || !*name || (f->warned && !f->known))
		return ts;
	m = st_clock_offsets_at(t->o->offsets, name, ts * 1000, NULL);
	if (!m) {
		if (!f->warned)
			st_warn(t->log, "--clock-offsets: no measurement of "
				"host '%s': its times are left as they are",
				name);
		f->warned = true;
		return ts;
	}
	if (!f->known) {
		f->known = f->warned = true;
		c->corrected_hosts++;
	}
	return ts - (int64_t)llround((double)m->offset / 1000.0);
}

__extension__ typedef unsigned __int128 u128;

/* floor(K * M / N) without overflow. */
static uint64_t scaled(uint64_t k, uint64_t m, uint64_t n)
{
	return (uint64_t)((u128)k * m / n);
}

static int tl_file(struct tl *t, const char *path, st_trace_timeline_counts *c,
		   st_error *err)
{
	const st_trace_timeline_opts *o = t->o;
	const st_trace_summary *s = t->s;
	st_pfw_reader *r;
	st_pfw_event ev;
	struct rmap m;
	uint32_t *hmap = NULL;
	size_t hcap = 0;
	uint64_t seen = 0, pending = 0, tick = 0;
	int rc, ret = 0;

	if (!(r = st_pfw_open(path, NULL)))
		return 0;     /* said by the first pass */
	rmap_init(&m, o->filter);
	while ((rc = st_pfw_next(r, &ev, NULL)) > 0) {
		const char *host = "", *str;
		size_t hlen = 0, len;
		uint32_t hid;
		uint64_t *pid;
		int64_t ts;
		bool keep = true;

		if ((++tick & 8191) == 0)
			progress_add(o->progress, &seen, r, &pending);
		if (rc != ST_PFW_EVENT)
			continue;
		if (o->filter) {
			int pass = rmap_pass(&m, r, o->filter, &ev);

			if (pass < 0) {
				ret = OOM(err);
				break;
			}
			if (!pass)
				continue;
		}
		pending++;
		if (o->max_events && s->events > o->max_events) {
			/* keep event k when floor(k * M / N) steps */
			keep = scaled(t->k + 1, o->max_events, s->events) >
			       scaled(t->k, o->max_events, s->events);
		}
		t->k++;
		if (t->writing)
			c->events++;
		if (!keep)
			continue;
		/* the host's index, through a per-reader cache */
		if (ev.host != ST_PFW_NONE) {
			if (ev.host >= hcap) {
				size_t cap = hcap ? hcap : 256;
				uint32_t *h;

				while (cap <= ev.host)
					cap *= 2;
				if (!(h = realloc(hmap, cap * sizeof(*h)))) {
					ret = OOM(err);
					break;
				}
				memset(h + hcap, 0, (cap - hcap) * sizeof(*h));
				hmap = h;
				hcap = cap;
			}
			host = st_pfw_str(r, ev.host, &hlen);
			if (!hmap[ev.host]) {
				int64_t k = st_strtab_find(&t->hosts, host,
							   hlen);

				if (k < 0)
					continue;   /* not in pass 1: cut */
				hmap[ev.host] = (uint32_t)k + 1;
			}
			hid = hmap[ev.host] - 1;
		} else {
			int64_t k = st_strtab_find(&t->hosts, "", 0);

			if (k < 0)
				continue;
			hid = (uint32_t)k;
		}
		pid = pmap_get(&t->pids, hid, (uint64_t)ev.pid, NULL);
		if (!pid || !*pid)
			continue;   /* appeared after a damaged stream */
		ts = correct(t, hid, host, ev.ts, c);
		if (!t->writing) {
			int64_t trk = tl_track(t, *pid, ev.tid);

			if (trk < 0) {
				ret = OOM(err);
				break;
			}
			if (tl_gather(t, (uint32_t)trk, ts, ev.dur, err) < 0) {
				ret = -1;
				break;
			}
			continue;
		}
		if (t->seq >= t->nrec)
			continue;   /* cannot be: the same events as pass 2 */
		ob_str(&t->ob, t->first ? "\n" : ",\n");
		t->first = false;
		ob_str(&t->ob, "{\"name\":");
		str = st_pfw_str(r, ev.name, &len);
		ob_json(&t->ob, str, len);
		ob_str(&t->ob, ",\"cat\":");
		str = st_pfw_str(r, ev.cat, &len);
		ob_json(&t->ob, str, len);
		ob_str(&t->ob, ",\"ph\":\"X\",\"pid\":");
		ob_int(&t->ob, (int64_t)*pid);
		ob_str(&t->ob, ",\"tid\":");
		ob_int(&t->ob, t->lane_tid[t->slot[t->seq++]]);
		ob_str(&t->ob, ",\"ts\":");
		ob_int(&t->ob, ts);
		ob_str(&t->ob, ",\"dur\":");
		ob_int(&t->ob, ev.dur);
		ob_str(&t->ob, ",\"args\":{");
		if (ev.file != ST_PFW_NONE) {
			ob_str(&t->ob, "\"file\":");
			str = st_pfw_str(r, ev.file, &len);
			ob_json(&t->ob, str, len);
			if (ev.bytes >= 0)
				ob_str(&t->ob, ",");
		}
		if (ev.bytes >= 0) {
			ob_str(&t->ob, "\"bytes\":");
			ob_int(&t->ob, ev.bytes);
		}
		ob_str(&t->ob, "}}");
		c->written++;
	}
	progress_add(o->progress, &seen, r, &pending);
	free(hmap);
	rmap_release(&m);
	st_pfw_close(r);
	return ret;
}

/* Pass 2's slices sorted and given lanes: T->slot and T->lane_tid (lane
 * 0 of each track filled in; the others by tl_meta_threads). */
static int tl_lanes(struct tl *t, st_error *err)
{
	struct laner L = { 0 };
	size_t first = 0, start = 0;
	int rc = -1;

	if (t->nrec)
		qsort(t->rec, t->nrec, sizeof(*t->rec), cmp_lrec);
	if (!(t->slot = malloc((t->nrec + 1) * sizeof(*t->slot))))
		return OOM(err);
	/* the tracks are numbered densely in the order they appeared and
	 * each has a slice: the runs come in track order */
	for (size_t i = 0; i <= t->nrec; i++) {
		int64_t l;

		if (i == t->nrec || (i && t->rec[i].track !=
				     t->rec[i - 1].track)) {
			/* the run rec[start..i); none when there is no
			 * slice at all (an empty timeline) */
			if (i > start) {
				struct track *k = &t->trk[t->rec[start].track];

				k->nlanes = (uint32_t)L.nlanes;
				k->first = first;
				first += L.nlanes;
			}
			laner_reset(&L);
			start = i;
			if (i == t->nrec)
				break;
		}
		if ((l = laner_place(&L, t->rec[i].s, t->rec[i].e)) < 0) {
			OOM(err);
			goto out;
		}
		t->slot[t->rec[i].seq] = (uint32_t)(first + (size_t)l);
	}
	if (!(t->lane_tid = calloc(first + 1, sizeof(*t->lane_tid)))) {
		OOM(err);
		goto out;
	}
	for (size_t k = 0; k < t->ntrk; k++)
		t->lane_tid[t->trk[k].first] = t->trk[k].tid;
	rc = 0;
out:
	laner_release(&L);
	free(t->rec);
	t->rec = NULL;
	t->rec_cap = 0;
	return rc;
}

static void tl_meta(struct tl *t, const char *what, int64_t pid, int64_t tid,
		    const char *key, const char *text, int64_t num)
{
	ob_meta(&t->ob, &t->first, what, pid, tid, key, text, num);
	t->nmeta++;
}

/* The next tid for a lane of a process whose threads are TIDS[0..N)
 * (sorted): *C upwards, skipping them (*J: where the skipping is). */
static int64_t free_tid(const int64_t *tids, size_t n, int64_t *c, size_t *j)
{
	for (;;) {
		while (*j < n && tids[*j] < *c)
			(*j)++;
		if (*j < n && tids[*j] == *c) {
			(*c)++;
			continue;
		}
		return (*c)++;
	}
}

/* Process I's (trace pid I + 1) names and its threads' and lanes', each
 * extra lane given a tid above the process's largest (from 0 upwards
 * between them if that would overflow). */
static void tl_meta_threads(struct tl *t, size_t i)
{
	const st_trace_process *p = &t->s->procs[i];
	int64_t pid = (int64_t)i + 1, c = 0, sort = 0;
	uint64_t extra = 0;
	size_t j = 0;
	char name[512];

	snprintf(name, sizeof(name), "%s pid %" PRId64,
		 *p->host ? p->host : "(unknown host)", p->pid);
	tl_meta(t, "process_name", pid, 0, "name", name, 0);
	tl_meta(t, "process_sort_index", pid, 0, "sort_index", NULL, pid);
	for (size_t k = 0; k < p->ntids; k++) {
		const uint64_t *v = pmap_find(&t->tracks, (uint64_t)pid,
					      (uint64_t)p->tids[k]);

		if (v)
			extra += t->trk[*v - 1].nlanes - 1;
	}
	if (extra && p->ntids) {
		int64_t mx = p->tids[p->ntids - 1];

		if (mx < 0 || (uint64_t)(INT64_MAX - mx) > extra)
			c = mx + 1;
	}
	for (size_t k = 0; k < p->ntids; k++) {
		int64_t tid = p->tids[k];
		const uint64_t *v = pmap_find(&t->tracks, (uint64_t)pid,
					      (uint64_t)tid);
		const struct track *tr = v ? &t->trk[*v - 1] : NULL;

		snprintf(name, sizeof(name), "tid %" PRId64, tid);
		tl_meta(t, "thread_name", pid, tid, "name", name, 0);
		tl_meta(t, "thread_sort_index", pid, tid, "sort_index", NULL,
			sort++);
		for (uint32_t l = 1; tr && l < tr->nlanes; l++) {
			int64_t lt = free_tid(p->tids, p->ntids, &c, &j);

			t->lane_tid[tr->first + l] = lt;
			snprintf(name, sizeof(name), "tid %" PRId64 " (%" PRIu32
				 ")", tid, l + 1);
			tl_meta(t, "thread_name", pid, lt, "name", name, 0);
			tl_meta(t, "thread_sort_index", pid, lt, "sort_index",
				NULL, sort++);
		}
	}
}

int st_trace_timeline_scan(const char *const *paths, size_t n,
			   const st_trace_timeline_opts *o,
			   st_trace_summary *s, st_error *err)
{
	st_trace_opts so = { 0 };

	so.filter = o->filter;
	so.no_overlap = true;
	so.jobs = o->jobs;
	so.max_bad = o->max_bad;
	so.progress = o->progress;
	if (st_trace_summarize(paths, n, &so, s, err) < 0)
		return -1;
	if (o->progress) {
		/* passes 2 and 3 read it all again; the meter reads this
		 * from its thread */
		atomic_store(&o->progress->total_bytes,
			     3 * atomic_load(&o->progress->total_bytes));
	}
	return 0;
}

int st_trace_timeline_write(const char *const *paths, size_t n,
			    const st_trace_timeline_opts *o,
			    const st_trace_summary *s, FILE *out,
			    st_trace_timeline_counts *c, st_log *log,
			    st_error *err)
{
	struct tl *t;
	size_t ne;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	if (!(t = calloc(1, sizeof(*t))))
		return OOM(err);
	t->o = o;
	t->s = s;
	t->log = log;
	t->ob.f = out;
	t->first = true;
	st_strtab_init(&t->hosts);
	if (!(t->fix = calloc(s->n_procs + 1, sizeof(*t->fix)))) {
		OOM(err);
		goto out;
	}
	for (size_t i = 0; i < s->n_procs; i++) {
		const st_trace_process *p = &s->procs[i];
		int64_t h = st_strtab_intern(&t->hosts, p->host,
					     strlen(p->host), NULL);
		uint64_t *v;

		if (h < 0 || !(v = pmap_get(&t->pids, (uint64_t)h,
					    (uint64_t)p->pid, NULL))) {
			OOM(err);
			goto out;
		}
		*v = i + 1;
	}
	/* pass 2: the slices' tracks and times, for the lanes */
	for (size_t i = 0; i < n; i++)
		if (tl_file(t, paths[i], c, err) < 0)
			goto out;
	if (tl_lanes(t, err) < 0)
		goto out;
	ob_str(&t->ob, "{\"traceEvents\":[");
	for (size_t i = 0; i < s->n_procs; i++)
		tl_meta_threads(t, i);
	/* pass 3: the same events again, written */
	t->writing = true;
	t->k = 0;
	for (size_t i = 0; i < n; i++)
		if (tl_file(t, paths[i], c, err) < 0)
			goto out;
	c->processes = s->n_procs;
	c->sampled = o->max_events && s->events > o->max_events;
	for (size_t k = 0; k < t->ntrk; k++)
		c->extra_lanes += t->trk[k].nlanes - 1;
	ob_flush(&t->ob);
	ne = t->first ? 0 : 1;   /* st_timeline_append only needs "any" */
	if (o->experiment) {
		st_timeline_counts tc = { 0 };
		size_t before;

		ne = (size_t)(c->written + t->nmeta);
		before = ne;
		if (fflush(out) != 0 ||
		    st_timeline_append(o->experiment, out, (int)s->n_procs, &ne,
				       &tc, log, err) < 0)
			goto out;
		c->experiment_events = ne - before;
	}
	ob_str(&t->ob, "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{"
	       "\"generator\":\"streamtime trace timeline\",\"events\":");
	ob_int(&t->ob, (int64_t)c->events);
	ob_str(&t->ob, ",\"written\":");
	ob_int(&t->ob, (int64_t)c->written);
	if (c->sampled) {
		char note[160];

		snprintf(note, sizeof(note), "%" PRIu64 " of %" PRIu64 " events "
			 "kept, evenly spaced (--max-events)", c->written,
			 c->events);
		ob_str(&t->ob, ",\"sampled\":");
		ob_json(&t->ob, note, strlen(note));
	}
	ob_str(&t->ob, ",\"clock_corrected_hosts\":");
	ob_int(&t->ob, (int64_t)c->corrected_hosts);
	ob_str(&t->ob, ",\"overlap_lanes\":");
	ob_int(&t->ob, (int64_t)c->extra_lanes);
	ob_str(&t->ob, "}}\n");
	ob_flush(&t->ob);
	if (t->ob.failed || ferror(out)) {
		st_error_set(err, ST_EXIT_IOERR, "cannot write the trace: %s",
			     strerror(errno));
		goto out;
	}
	rc = 0;
out:
	st_strtab_release(&t->hosts);
	pmap_release(&t->pids);
	pmap_release(&t->tracks);
	free(t->fix);
	free(t->rec);
	free(t->trk);
	free(t->slot);
	free(t->lane_tid);
	free(t);
	return rc;
}
