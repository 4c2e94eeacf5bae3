/* trace.c - the threads' gatherings finished into st_trace_summary:
 * sorted stats, quartiles, bins, processes (SPEC 5.10). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "streamtime/text.h"

#include "trace_int.h"

/* ---- the summary ----------------------------------------------------- */

static const char *keep(st_trace_summary *s, const st_strtab *t, uint32_t id)
{
	size_t len;
	const char *str = st_strtab_str(t, id, &len);
	int64_t k = st_strtab_intern(&s->strings, str, len, NULL);

	return k < 0 ? NULL : st_strtab_str(&s->strings, (uint32_t)k, NULL);
}

/* String ID of T as shown: its escaped text (text.h), interned in S. */
static const char *keep_shown(st_trace_summary *s, const st_strtab *t,
			      uint32_t id)
{
	size_t len;
	const char *str = st_strtab_str(t, id, &len);
	char *e = st_text_escape_dup(str, len, 0);
	int64_t k = e ? st_strtab_intern(&s->strings, e, strlen(e), NULL) : -1;

	free(e);
	return k < 0 ? NULL : st_strtab_str(&s->strings, (uint32_t)k, NULL);
}

static int cmp_stat(const void *x, const void *y)
{
	return strcmp(((const st_trace_stat *)x)->key,
		      ((const st_trace_stat *)y)->key);
}

/* Groups: by key, then (keys that read the same joined) by the keys. */
static int cmp_group(const void *x, const void *y)
{
	const st_trace_stat *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	for (size_t i = 0; !c && a->keys[i] && b->keys[i]; i++) {
		size_t la = a->key_lens[i], lb = b->key_lens[i];

		c = memcmp(a->keys[i], b->keys[i], la < lb ? la : lb);
		if (!c)
			c = la < lb ? -1 : la > lb;
	}
	return c;
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
		v[i].key = keep_shown(s, &g->tab[d], i);
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

/* The union V's time per bin into G->bins as (bin, KIND) (BIN_IO,
 * BIN_COMPUTE); *BUDGET bins may still be touched.  -1 when it runs out or
 * the bins would pass ST_TRACE_MAX_BINS, -2 out of memory. */
static int bins_add(struct agg *g, int64_t gran, const st_trace_iv *v,
		    size_t n, uint64_t kind, int64_t *budget)
{
	for (size_t i = 0; i < n; i++) {
		int64_t b = st_floor_div(v[i].s, gran), e = v[i].e;
		int64_t span = st_floor_div(e - 1, gran) - b + 1;

		/* more bins than allowed, by one interval or all: say so
		 * before the map holds them */
		*budget -= span;
		if (*budget < 0 || span > ST_TRACE_MAX_BINS ||
		    g->bins.n > 4 * (size_t)ST_TRACE_MAX_BINS)
			return -1;
		for (; b * gran < e; b++) {
			int64_t lo = b * gran > v[i].s ? b * gran : v[i].s;
			int64_t hi = (b + 1) * gran < e ? (b + 1) * gran : e;
			uint64_t *x = st_pairmap_get(&g->bins, (uint64_t)b, kind, NULL);

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
		case BIN_EVENTS: b->events = e[i][2]; break;
		case BIN_BYTES: b->bytes = (int64_t)e[i][2]; break;
		case BIN_READ: b->bytes_read = (int64_t)e[i][2]; break;
		case BIN_WRITTEN: b->bytes_written = (int64_t)e[i][2]; break;
		case BIN_IO: b->io_us = (int64_t)e[i][2]; break;
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

/* The next value of joined key STR[0..LEN) of NK keys from *AT on
 * (trace_key_join), unescaped into *BUF (room for LEN bytes); its
 * length, and *AT past it. */
static size_t key_next(const char *str, size_t len, size_t nk, size_t *at,
		       char *buf)
{
	size_t n = 0, i = *at;

	if (nk <= 1) {
		memcpy(buf, str, len);
		*at = len + 1;
		return len;
	}
	for (; i < len && str[i]; i++)
		buf[n++] = str[i] == 1 && i + 1 < len ? (char)(str[++i] - 1)
						       : str[i];
	*at = i + 1;
	return n;
}

/* Joined key ID of table D (of NK keys) as shown: each value's escaped
 * text (text.h; with several, a ',' inside escaped too), joined by ',';
 * interned in S.  Two groups never show the same key (they name the
 * members of the JSON object "groups"), and it is valid UTF-8 on one
 * line whatever the values' bytes. */
static const char *shown(st_trace_summary *s, struct agg *g, int d,
			 uint32_t id, size_t nk)
{
	size_t len, n = 0, at = 0;
	const char *str = st_strtab_str(&g->tab[d], id, &len);
	char *t = malloc((ST_TEXT_GROWTH + 1) * len + 2), *v = t ?
		  t + ST_TEXT_GROWTH * len + 1 : NULL;
	int64_t k;

	if (!t)
		return NULL;
	for (bool first = true; at <= len; first = false) {
		size_t vn = key_next(str, len, nk, &at, v);

		if (!first)
			t[n++] = ',';
		n += st_text_escape(t + n, v, vn, nk > 1 ? ST_TEXT_COMMA : 0);
		if (nk <= 1)
			break;
	}
	k = st_strtab_intern(&s->strings, t, n, NULL);
	free(t);
	return k < 0 ? NULL : st_strtab_str(&s->strings, (uint32_t)k, NULL);
}

/* Does unit A come before unit B on a tie: the smaller shown key, then
 * the smaller joined key (so that the choice never depends on ids)? */
static bool unit_before(struct agg *g, const char *const *sh, uint32_t a,
			uint32_t b)
{
	int c = strcmp(sh[a], sh[b]);
	size_t la, lb;
	const char *x, *y;

	if (c)
		return c < 0;
	x = st_strtab_str(&g->tab[D_PER], a, &la);
	y = st_strtab_str(&g->tab[D_PER], b, &lb);
	c = memcmp(x, y, la < lb ? la : lb);
	return c ? c < 0 : la < lb;
}

/* The groups of G into S: their stats, keys and per-unit maxima. */
static int groups_of(st_trace_summary *s, struct agg *g)
{
	size_t n = g->tab[D_GROUP].n, nk = g->o->group.n, np = g->tab[D_PER].n;
	const char **sh = calloc(np + 1, sizeof(*sh));
	uint32_t (*best)[2] = calloc(n + 1, sizeof(*best));   /* unit + 1 */
	int rc = -1;

	if (!sh || !best || stats_of(s, g, D_GROUP, &s->groups,
				     &s->n_groups) < 0 ||
	    !(s->group_keys = calloc(n * (nk + 1) + 1,
				     sizeof(*s->group_keys))) ||
	    !(s->group_key_lens = calloc(n * (nk + 1) + 1,
					 sizeof(*s->group_key_lens))))
		goto out;
	for (uint32_t i = 0; i < np; i++)
		if (!(sh[i] = shown(s, g, D_PER, i, g->per.n)))
			goto out;
	for (uint32_t i = 0; i < n; i++) {
		size_t len, k = 0, at = 0;
		const char *str = st_strtab_str(&g->tab[D_GROUP], i, &len);
		st_trace_stat *st = &s->groups[i];
		char *v = malloc(len + 1);

		if (!v || !(st->key = shown(s, g, D_GROUP, i, nk))) {
			free(v);
			goto out;
		}
		while (at <= len && k < nk) {
			size_t vn = key_next(str, len, nk, &at, v);
			int64_t id = st_strtab_intern(&s->strings, v, vn, NULL);

			if (id < 0) {
				free(v);
				goto out;
			}
			s->group_keys[i * (nk + 1) + k] =
				st_strtab_str(&s->strings, (uint32_t)id, NULL);
			s->group_key_lens[i * (nk + 1) + k++] = vn;
		}
		free(v);
		st->keys = s->group_keys + i * (nk + 1);
		st->key_lens = s->group_key_lens + i * (nk + 1);
	}
	for (size_t i = 0; i < g->gper.cap; i++) {
		const st_pairmap_entry *e = &g->gper.e[i];
		st_trace_stat *st;
		uint32_t u, *b;
		int64_t *m;

		if (!e->used)
			continue;
		st = &s->groups[e->a];
		u = (uint32_t)(e->b / 2);
		b = &best[e->a][e->b % 2];
		m = e->b % 2 ? &st->max_per_bytes : &st->max_proc_dur_us;
		if (!*b || (int64_t)e->v > *m ||
		    ((int64_t)e->v == *m && unit_before(g, sh, u, *b - 1))) {
			*m = (int64_t)e->v;
			*b = u + 1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		s->groups[i].max_dur_key = best[i][0] ? sh[best[i][0] - 1] : NULL;
		s->groups[i].max_bytes_key = best[i][1] ? sh[best[i][1] - 1]
							: NULL;
	}
	rc = 0;
out:
	free(sh);
	free(best);
	return rc;
}

/* What finish gathers of a process's unions (trace_ivs_union). */
struct fin {
	struct agg *g;
	int64_t gran, *budget;
	int64_t len[2];         /* by kind */
};

enum { FIN_BUDGET = 2 };

static int fin_iv(void *ctx, int kind, int64_t s, int64_t e)
{
	struct fin *f = ctx;
	st_trace_iv x = { s, e };
	int rc;

	f->len[kind] += e - s;
	if (f->gran <= 0)
		return 0;
	rc = bins_add(f->g, f->gran, &x, 1, kind == TRACE_IV_IO ? BIN_IO
							  : BIN_COMPUTE,
		      f->budget);
	return rc == -1 ? FIN_BUDGET : rc;
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
	s->files = trace_agg_n(g, D_FILE);
	s->hosts = g->tab[D_HOST].n;
	if (st_strtab_find(&g->tab[D_HOST], "", 0) >= 0)
		s->hosts--;   /* "": events that name no host */
	if (stats_of(s, g, D_CAT, &s->by_cat, &s->n_cat) < 0 ||
	    stats_of(s, g, D_NAME, &s->by_name, &s->n_name) < 0 ||
	    quartiles(g, s->by_name) < 0 ||
	    (o->group.n && groups_of(s, g) < 0))
		return OOM(err);
	if (!(s->procs = calloc(g->nprocs + 1, sizeof(*s->procs))) ||
	    !(nt = calloc(g->nprocs + 1, sizeof(*nt))))
		return OOM(err);
	for (size_t i = 0; i < g->nprocs; i++) {
		struct proc *p = &g->procs[i];
		st_trace_process *sp = &s->procs[i];
		struct fin fc = { g, o->granularity_us, &budget, { 0, 0 } };
		int64_t io = 0, comp = 0, both = 0;
		int rc = trace_ivs_union(g, i, 3, fin_iv, &fc, &both);

		if (rc == 0) {
			io = fc.len[TRACE_IV_IO];
			comp = fc.len[TRACE_IV_COMP];
			both = io + comp - both;
		}
		sadd(&s->io_us, io, &g->saturated);
		sadd(&s->compute_us, comp, &g->saturated);
		sadd(&s->io_unoverlapped_us, io - both, &g->saturated);
		sadd(&s->compute_unoverlapped_us, comp - both, &g->saturated);
		if (io > s->io_max_us)
			s->io_max_us = io;
		if (comp > s->compute_max_us)
			s->compute_max_us = comp;
		if (rc) {
			s->n_procs = i;
			free(nt);
			if (rc != FIN_BUDGET)
				return trace_agg_fail(g, err);
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
		st_pairmap_entry *e = &g->threads.e[i];

		if (e->used)
			s->procs[e->a].tids[nt[e->a]++] = (int64_t)e->b;
	}
	for (size_t i = 0; i < g->nprocs; i++)
		qsort(s->procs[i].tids, s->procs[i].ntids, sizeof(int64_t),
		      st_cmp_i64);
	free(nt);
	s->n_procs = g->nprocs;
	if (o->granularity_us > 0 && bins_collect(s, g, o->granularity_us,
						  err) < 0)
		return -1;
	if (g->segs) {
		s->n_segs = o->nseg - 1;
		s->segs = g->segs;
		g->segs = NULL;
	}
	s->saturated = g->saturated;
	qsort(s->procs, s->n_procs, sizeof(*s->procs), cmp_proc);
	qsort(s->by_cat, s->n_cat, sizeof(*s->by_cat), cmp_stat);
	qsort(s->by_name, s->n_name, sizeof(*s->by_name), cmp_stat);
	if (s->n_groups)
		qsort(s->groups, s->n_groups, sizeof(*s->groups), cmp_group);
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
	int c = ST_CMP(b->size, a->size);       /* largest first */

	return c ? c : ST_CMP(a->i, b->i);
}

int trace_agg_finish(st_trace_summary *s, struct agg *g, st_error *err)
{
	return finish(s, g, err);
}

int st_trace_summarize(const char *const *paths, size_t n,
		       const st_trace_opts *o, st_trace_summary *s,
		       st_error *err)
{
	return trace_summarize(paths, n, o, s, NULL, NULL, err);
}

/* RUN's files in the order the threads take them, largest first, in
 * RUN->order (BS: room for RUN->n); each one's path in RUN->files. */
static void order_by_size(struct run *run, struct by_size *bs)
{
	for (size_t i = 0; i < run->n; i++) {
		struct stat sb;

		run->files[i].path = run->paths[i];
		bs[i].i = i;
		bs[i].size = stat(run->paths[i], &sb) == 0 ? sb.st_size : 0;
	}
	qsort(bs, run->n, sizeof(*bs), cmp_by_size);
	for (size_t i = 0; i < run->n; i++)
		run->order[i] = bs[i].i;
}

/* The workers W[0..JOBS) run to their end: in this thread when there is
 * one, or when no thread can be started. */
static void run_workers(struct worker *w, size_t jobs)
{
	size_t started = 0;

	if (jobs == 1) {
		trace_worker_main(&w[0]);
		return;
	}
	for (; started < jobs; started++)
		if (pthread_create(&w[started].th, NULL, trace_worker_main,
				   &w[started]) != 0)
			break;
	if (started == 0)
		trace_worker_main(&w[0]);   /* no thread at all: read here */
	for (size_t j = 0; j < started; j++)
		pthread_join(w[j].th, NULL);
}

int trace_summarize(const char *const *paths, size_t n,
		    const st_trace_opts *o, st_trace_summary *s,
		    trace_agg_done done, void *ctx, st_error *err)
{
	struct run run = { 0 };
	struct worker *w = NULL;
	struct by_size *bs = NULL;
	size_t jobs = o->jobs > 1 ? (size_t)o->jobs : 1;
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
	order_by_size(&run, bs);
	for (size_t j = 0; j < jobs; j++) {
		w[j].run = &run;
		trace_agg_init(&w[j].agg, o);
		/* one copy of the files' names, the first worker's */
		if (j && trace_agg_share_pool(&w[j].agg, &w[0].agg) < 0) {
			OOM(err);
			jobs = j + 1;
			goto out;
		}
		if (o->nseg > 1 && !w[j].agg.segs) {
			OOM(err);
			jobs = j + 1;
			goto out;
		}
	}
	/* jansson seeds its hash tables on first use: do it before the
	 * threads parse lines */
	json_object_seed(0);
	run_workers(w, jobs);
	for (size_t j = 0; j < jobs; j++)
		if (w[j].failed) {
			*err = w[j].err;
			goto out;
		}
	for (size_t j = 1; j < jobs; j++)
		if (trace_agg_merge(&w[0].agg, &w[j].agg) < 0) {
			trace_agg_fail(&w[0].agg, err);
			goto out;
		}
	if (!done && finish(s, &w[0].agg, err) < 0)
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
	if (done && done(ctx, &w[0].agg, s, err) < 0)
		goto out;
	rc = 0;
out:
	for (size_t i = 0; i < n && run.bad; i++) {
		for (size_t k = 0; run.nbad && k < run.nbad[i]; k++)
			free(run.bad[i][k].why);
		free(run.bad[i]);
	}
	for (size_t j = 0; w && j < jobs; j++)
		trace_agg_release(&w[j].agg);
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
	free(s->group_keys);
	free(s->group_key_lens);
	free(s->bins);
	free(s->segs);
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

struct span {
	int64_t first, end;
	size_t file;
};

static int cmp_span(const void *x, const void *y)
{
	return ST_CMP(((const struct span *)x)->first,
		      ((const struct span *)y)->first);
}

int st_trace_span_gap(const st_trace_file *files, size_t n, size_t *before,
		      size_t *after, int64_t *gap_us)
{
	struct span *v = malloc((n ? n : 1) * sizeof(*v));
	size_t m = 0, end_of = 0;
	int64_t end = 0, best = ST_TRACE_SPAN_GAP_US;
	int rc = -1;

	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!files[i].err_code && files[i].st.events)
			v[m++] = (struct span){ files[i].first_us,
						files[i].end_us, i };
	qsort(v, m, sizeof(*v), cmp_span);
	for (size_t k = 0; k < m; k++) {
		if (k && v[k].first - end > best) {
			best = v[k].first - end;
			*before = end_of;
			*after = v[k].file;
			*gap_us = best;
			rc = 0;
		}
		if (!k || v[k].end > end) {
			end = v[k].end;
			end_of = v[k].file;
		}
	}
	free(v);
	return rc;
}

int st_trace_cats_parse(const char *opt, char *list, const char ***v,
			size_t *n, st_error *err)
{
	size_t len = strlen(list), room = 1;
	char *save = NULL;

	if (len && (list[0] == ',' || list[len - 1] == ',' ||
		    strstr(list, ",,")))
		return st_error_set(err, ST_EXIT_USAGE, "--%s '%s': an empty "
				    "category in the list (NAME[,NAME...], or "
				    "'' for none)", opt, list);
	free(*v);
	*n = 0;
	for (const char *c = list; *c; c++)
		room += *c == ',';
	if (!(*v = malloc(room * sizeof(**v))))
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	for (char *t = strtok_r(list, ",", &save); t;
	     t = strtok_r(NULL, ",", &save))
		(*v)[(*n)++] = t;
	return 0;
}

int st_trace_jobs_default(int max)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : max > 0 && n > max ? max : (int)n;
}
