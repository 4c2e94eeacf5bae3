/* gather.c - one thread's gatherings from whole trace files, and their
 * merge (see trace_int.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pass.h"
#include "trace_int.h"


/* ---- one thread's gatherings ----------------------------------------- */


void trace_agg_init(struct agg *g, const st_trace_opts *o)
{
	memset(g, 0, sizeof(*g));
	g->o = o;
	for (int d = 0; d < D_N; d++)
		st_strtab_init(&g->tab[d]);
	st_strtab_init(&g->own_pool);
	st_strtab_compact(&g->own_pool);
	g->host_none = -1;
	trace_ivs_init(&g->ivs);
	g->per = o->per;
	if (!g->per.n)
		g->per = (st_trace_keys){ .v = { { ST_TRACE_KEY_PID, 0 } }, .n = 1 };
	for (size_t j = 0; o->seg_phase && o->nseg && j < o->group.n; j++)
		g->phase |= o->group.v[j].kind == ST_TRACE_KEY_PHASE;
	for (size_t j = 0; o->seg_phase && o->nseg && j < g->per.n; j++)
		g->phase |= g->per.v[j].kind == ST_TRACE_KEY_PHASE;
	if (o->nseg > 1)
		g->segs = calloc(o->nseg - 1, sizeof(*g->segs));
}

st_pfw_reader *trace_open(const st_trace_source *src, const char *path,
			  bool tracks, st_error *err)
{
	if (src && src->open)
		return src->open(src->ctx, path, tracks, err);
	return st_pfw_open(path, err);
}

void trace_agg_release(struct agg *g)
{
	for (int d = 0; d < D_N; d++) {
		st_strtab_release(&g->tab[d]);
		free(g->acc[d]);
	}
	st_strtab_release(&g->own_pool);
	free(g->fmap);
	free(g->files);
	free(g->fbuf);
	for (size_t i = 0; i < g->nprocs; i++) {
		trace_ivec_release(&g->procs[i].io);
		trace_ivec_release(&g->procs[i].comp);
	}
	free(g->procs);
	st_pairids_release(&g->procids);
	st_pairmap_release(&g->threads);
	st_pairmap_release(&g->sizes);
	st_pairmap_release(&g->gper);
	st_pairids_release(&g->gfold);
	st_pairids_release(&g->pfold);
	st_pairmap_release(&g->gcache);
	st_pairmap_release(&g->pcache);
	trace_ivs_release(&g->ivs);
	free(g->kb);
	free(g->ib);
	st_pairmap_release(&g->bins);
	free(g->segs);
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

int trace_name_rw(const char *name, size_t len)
{
	if ((len >= 3 && memcmp(name, "bio", 3) == 0) ||
	    memmem(name, len, "readdir", 7) || memmem(name, len, "readlink", 8))
		return 0;
	return memmem(name, len, "write", 5) ? 2
	       : memmem(name, len, "read", 4) ? 1 : 0;
}

int trace_agg_share_pool(struct agg *g, struct agg *owner)
{
	if (!owner->own_pool.lock && st_strtab_share(&owner->own_pool) < 0)
		return -1;
	g->fpool = &owner->own_pool;
	return 0;
}

/* Room for index ID in the array *V of ids + 1 (*CAP of them), the new
 * room zeroed.  0, or -1 when memory runs out. */
static int id_room(uint32_t **v, size_t *cap, uint32_t id)
{
	size_t old = *cap;

	if (id < old)
		return 0;
	if (st_grow(v, cap, id, sizeof(**v), 256) < 0)
		return -1;
	memset(*v + old, 0, (*cap - old) * sizeof(**v));
	return 0;
}

/* G's files from their ids being the pool's to the maps: 0, -1 out of
 * memory. */
static int files_map(struct agg *g)
{
	size_t n = g->nfiles;

	if ((n && id_room(&g->fmap, &g->fcap, (uint32_t)n - 1) < 0) ||
	    st_grow(&g->files, &g->files_cap, n, sizeof(*g->files), 256) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		g->files[i] = (uint32_t)i;
		g->fmap[i] = (uint32_t)i + 1;
	}
	g->fmapped = true;
	return 0;
}

/* The file id in G of string ID of its pool, a new one when the file is
 * counted for the first time.  -1 when memory runs out. */
static int64_t pool_file(struct agg *g, uint32_t id)
{
	if (!g->fmapped) {
		if (id < g->nfiles)
			return id;
		if (id == g->nfiles && g->nfiles < UINT32_MAX - 1)
			return (int64_t)g->nfiles++;
		if (files_map(g) < 0)
			return -1;
	}
	if (id < g->fcap && g->fmap[id])
		return g->fmap[id] - 1;
	if (g->nfiles == UINT32_MAX - 1 || id_room(&g->fmap, &g->fcap, id) < 0 ||
	    ST_GROW(g->files, g->nfiles, g->files_cap, 256) < 0)
		return -1;
	g->files[g->nfiles] = id;
	g->fmap[id] = (uint32_t)++g->nfiles;
	return (int64_t)g->nfiles - 1;
}

/* The id of S in dimension D, its counters zeroed when new; -1 on OOM. */
int64_t trace_agg_intern(struct agg *g, int d, const char *s, size_t len)
{
	bool added;
	int64_t id;

	if (d == D_FILE) {
		/* the text in the pool (the readers' file names are there
		 * already), counted by its pool id */
		if ((id = st_strtab_intern(trace_agg_pool(g), s, len, NULL)) < 0)
			return -1;
		return pool_file(g, (uint32_t)id);
	}
	id = st_strtab_intern(&g->tab[d], s, len, &added);

	if (id < 0 || !added || !trace_dim_counts(d))
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
	if (d == D_NAME)
		g->acc[d][id].rw = (uint8_t)trace_name_rw(s, len);
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

/* A new process, the NPROCS-th: 0, or -1 when memory runs out. */
static int proc_add(struct agg *g, uint32_t host, int64_t pid)
{
	if (ST_GROW(g->procs, g->nprocs, g->proc_cap, 64) < 0)
		return -1;
	g->procs[g->nprocs++] = (struct proc){ .host = host, .pid = pid };
	return 0;
}

int64_t trace_agg_proc(struct agg *g, uint32_t host, int64_t pid)
{
	bool added;
	int64_t id = st_pairids_get(&g->procids, host, (uint64_t)pid, &added);

	if (id < 0 || (added && proc_add(g, host, pid) < 0))
		return -1;
	if (id != g->last_proc)
		g->have_thread = false;
	g->last_proc = (uint32_t)id;
	return id;
}


/* Append S[0..LEN) to the joined key *POS of G->ib.  0, -1 OOM. */
static int ib_put(struct agg *g, size_t *pos, const char *s, size_t len)
{
	if (*pos + len + 1 > g->icap) {
		size_t cap = g->icap ? g->icap : 256;
		char *nb;

		while (cap < *pos + len + 1)
			cap *= 2;
		if (!(nb = realloc(g->ib, cap)))
			return -1;
		g->ib = nb;
		g->icap = cap;
	}
	memcpy(g->ib + *pos, s, len);
	*pos += len;
	return 0;
}

/* Value S[0..LEN) of a key of several appended to the joined key *POS
 * of G->ib, its NULs (the separator) and 0x01s escaped as 0x01 0x01 and
 * 0x01 0x02 (trace.c key_next undoes it).  0, -1 OOM. */
static int ib_put_value(struct agg *g, size_t *pos, const char *s,
			size_t len)
{
	size_t run = 0;

	for (size_t i = 0; i < len; i++) {
		char e[2] = { 1, (char)(s[i] + 1) };

		if (s[i] != 0 && s[i] != 1)
			continue;
		if (ib_put(g, pos, s + run, i - run) < 0 ||
		    ib_put(g, pos, e, 2) < 0)
			return -1;
		run = i + 1;
	}
	return ib_put(g, pos, s + run, len - run);
}

/* The keys K of event X joined by NUL into G->ib, interned in table D.
 * A key the event has no value of is "(none)", host "". */
static int64_t key_intern(struct agg *g, const st_trace_keys *k, int d,
			  const struct kev *x)
{
	st_trace_rec e = { 0 };
	size_t pos = 0;

	e.name = st_strtab_str(&g->tab[D_NAME], x->name, &e.name_len);
	e.cat = st_strtab_str(&g->tab[D_CAT], x->cat, &e.cat_len);
	if ((int64_t)x->host != g->host_none)
		e.host = st_strtab_str(&g->tab[D_HOST], x->host, &e.host_len);
	if (x->file != ST_PFW_NONE &&
	    !(e.file = trace_agg_str(g, D_FILE, x->file, &e.file_len)))
		return -1;
	e.pid = g->procs[x->proc].pid;
	e.tid = x->tid;
	if (x->seg && g->o->seg_phase[x->seg - 1]) {
		e.phase = g->o->seg_phase[x->seg - 1];
		e.phase_len = strlen(e.phase);
	}
	for (size_t j = 0; j < k->n; j++) {
		size_t n;

		if ((j && ib_put(g, &pos, "", 1) < 0) ||
		    st_trace_key_text(&k->v[j], &e, &g->kb, &g->kcap, &n) < 0)
			return -1;
		if (n == ST_TRACE_KEY_NONE) {
			if (k->v[j].kind != ST_TRACE_KEY_HOST &&
			    ib_put(g, &pos, "(none)", 6) < 0)
				return -1;
		} else if ((k->n > 1 ? ib_put_value(g, &pos, g->kb, n)
				     : ib_put(g, &pos, g->kb, n)) < 0) {
			return -1;
		}
	}
	return trace_agg_intern(g, d, g->ib ? g->ib : "", pos);
}

/* The id in table D (D_GROUP or D_PER) of keys K's value for X, through
 * FOLD and CACHE (see struct agg).  -1 out of memory. */
static int64_t key_id(struct agg *g, const st_trace_keys *k, int d,
		      st_pairids *fold, st_pairmap *cache, const struct kev *x)
{
	uint64_t t = 0, c[2];
	uint64_t *v;
	bool first = true, added;

	for (size_t j = 0; j < k->n; j++) {
		size_t n = 1;

		switch (k->v[j].kind) {
		case ST_TRACE_KEY_HOST: c[0] = x->host; break;
		case ST_TRACE_KEY_PID: c[0] = x->proc; break;
		case ST_TRACE_KEY_THREAD:
			c[0] = x->proc;
			c[1] = (uint64_t)x->tid;
			n = 2;
			break;
		case ST_TRACE_KEY_NAME: c[0] = x->name; break;
		case ST_TRACE_KEY_CAT: c[0] = x->cat; break;
		case ST_TRACE_KEY_PHASE:
			c[0] = x->seg;
			n = g->phase;
			break;
		default: c[0] = x->file; break;   /* file and what derives */
		}
		for (size_t i = 0; i < n; i++) {
			int64_t f;

			if (first) {
				t = c[i];
				first = false;
				continue;
			}
			if ((f = st_pairids_get(fold, t, c[i], &added)) < 0)
				return -1;
			t = (uint64_t)f;
		}
	}
	if (!(v = st_pairmap_get(cache, t, 0, NULL)))
		return -1;
	if (!*v) {
		int64_t id = key_intern(g, k, d, x);

		if (id < 0)
			return -1;
		/* key_intern does not touch CACHE: V is still good */
		*v = (uint64_t)id + 1;
	}
	return (int64_t)*v - 1;
}

uint32_t trace_phase_seg(const int64_t *seg, size_t nseg, int64_t ts)
{
	size_t lo = 0, hi = nseg;

	while (lo < hi) {           /* the first bound above ts */
		size_t mid = (lo + hi) / 2;

		if (seg[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

/* EV (ids X) into its group: count, dur, bytes and its unit's sums. */
static int agg_group(struct agg *g, const struct kev *x,
		     const st_pfw_event *ev)
{
	const struct kev *l = &g->klast;
	struct acc *a;
	uint64_t *v;

	if (!g->have_key || l->name != x->name || l->cat != x->cat ||
	    l->host != x->host || l->file != x->file || l->proc != x->proc ||
	    l->tid != x->tid || l->seg != x->seg) {
		int64_t gi = key_id(g, &g->o->group, D_GROUP, &g->gfold,
				    &g->gcache, x);
		int64_t pi = gi < 0 ? -1 : key_id(g, &g->per, D_PER, &g->pfold,
						  &g->pcache, x);

		if (pi < 0)
			return -1;
		g->kgroup = (uint32_t)gi;
		g->kper = (uint32_t)pi;
		g->klast = *x;
		g->have_key = true;
	}
	a = &g->acc[D_GROUP][g->kgroup];
	a->count++;
	sadd(&a->dur, ev->dur, &g->saturated);
	if (!(v = st_pairmap_get(&g->gper, g->kgroup, 2 * (uint64_t)g->kper,
				 NULL)))
		return -1;
	uadd(v, (uint64_t)ev->dur, &g->saturated);
	if (ev->bytes > 0) {
		sadd(&a->bytes, ev->bytes, &g->saturated);
		if (!(v = st_pairmap_get(&g->gper, g->kgroup,
					 2 * (uint64_t)g->kper + 1, NULL)))
			return -1;
		uadd(v, (uint64_t)ev->bytes, &g->saturated);
	}
	return 0;
}

/* EV into its segment of O->seg_us (none when it starts outside). */
static void agg_seg(struct agg *g, const st_trace_opts *o, uint8_t rw,
		    bool io, const st_pfw_event *ev)
{
	size_t lo = trace_phase_seg(o->seg_us, o->nseg, ev->ts);
	st_trace_seg *q;

	if (lo == 0 || lo == o->nseg)
		return;
	q = &g->segs[lo - 1];
	q->events++;
	if (io)
		sadd(&q->io_us, ev->dur, &g->saturated);
	if (rw == 1) {
		q->reads++;
		if (ev->bytes > 0)
			sadd(&q->read_bytes, ev->bytes, &g->saturated);
	} else if (rw == 2) {
		q->writes++;
		if (ev->bytes > 0)
			sadd(&q->write_bytes, ev->bytes, &g->saturated);
	}
}

/* One event into G: ids in G's tables (FILE may be ST_PFW_NONE). */
static int agg_event(struct agg *g, uint32_t name, uint32_t cat,
		     uint32_t host, uint32_t file, const st_pfw_event *ev)
{
	const st_trace_opts *o = g->o;
	int64_t p = trace_agg_proc(g, host, ev->pid);
	int64_t end = ev->ts + ev->dur;
	struct acc *a;
	struct proc *pr;
	uint64_t *v;

	if (p < 0)
		return -1;
	pr = &g->procs[p];
	pr->events++;
	if (!g->have_thread || g->last_tid != ev->tid) {
		if (!st_pairmap_get(&g->threads, (uint64_t)p, (uint64_t)ev->tid, NULL))
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
		if (!(v = st_pairmap_get(&g->sizes, name, (uint64_t)ev->bytes, NULL)))
			return -1;
		(*v)++;
	}
	if (g->segs)
		agg_seg(g, o, g->acc[D_NAME][name].rw,
			g->acc[D_CAT][cat].io, ev);
	a = &g->acc[D_CAT][cat];
	a->count++;
	sadd(&a->dur, ev->dur, &g->saturated);
	if (!o->no_overlap && ev->dur > 0) {
		if (a->io && trace_ivec_push(g, &pr->io, ev->ts, end) < 0)
			return -1;
		if (a->compute && trace_ivec_push(g, &pr->comp, ev->ts, end) < 0)
			return -1;
	}
	if (o->group.n) {
		struct kev x = { name, cat, host, file, (uint32_t)p,
				 g->phase ? trace_phase_seg(o->seg_us, o->nseg,
							    ev->ts) : 0,
				 ev->tid };

		if (agg_group(g, &x, ev) < 0)
			return -1;
	}
	if (o->granularity_us > 0) {
		int64_t b = st_floor_div(ev->ts, o->granularity_us);

		uint8_t rw = g->acc[D_NAME][name].rw;

		if (!(v = st_pairmap_get(&g->bins, (uint64_t)b, BIN_EVENTS,
					 NULL)))
			return -1;
		(*v)++;
		if (ev->bytes > 0) {
			if (!(v = st_pairmap_get(&g->bins, (uint64_t)b,
						 BIN_BYTES, NULL)))
				return -1;
			uadd(v, (uint64_t)ev->bytes, &g->saturated);
		}
		if (ev->bytes > 0 && rw) {
			if (!(v = st_pairmap_get(&g->bins, (uint64_t)b, rw == 1 ?
						 BIN_READ : BIN_WRITTEN, NULL)))
				return -1;
			uadd(v, (uint64_t)ev->bytes, &g->saturated);
		}
	}
	return 0;
}

/* ---- a file's strings against the thread's --------------------------- */


void trace_rmap_init(struct rmap *m, const st_trace_filter *f)
{
	memset(m, 0, sizeof(*m));
	if (f)
		st_trace_fset_add(&m->fs, f);
}

void trace_rmap_release(struct rmap *m)
{
	for (int d = 0; d < 4; d++)
		free(m->tr[d]);
	st_trace_fset_release(&m->fs);
	memset(m, 0, sizeof(*m));
}

/* Room for reader string id ID in dimension D's ids (new room: 0, not yet
 * interned); each dimension's grows alone, the reader's ids being those
 * of every dimension and of its hash maps.  0, or -1 when memory runs
 * out. */
static int rmap_fit(struct rmap *m, int d, uint32_t id)
{
	return id_room(&m->tr[d], &m->cap[d], id);
}

int trace_rmap_pass(struct rmap *m, const st_pfw_reader *r,
		    const st_trace_filter *f, const st_pfw_event *ev,
		    st_error *err)
{
	uint64_t mask;

	if (!f || !m->fs.n)
		return 1;
	if (st_trace_fset_eval(&m->fs, r, ev, &mask, err) < 0)
		return -1;
	return mask != 0;
}

/* The thread's id of reader string ID in dimension D. */
static int64_t rmap_tr(struct rmap *m, struct agg *g, const st_pfw_reader *r,
		       int d, uint32_t id)
{
	const char *s;
	size_t len;
	int64_t k;

	if (rmap_fit(m, d, id) < 0)
		return -1;
	if (m->tr[d][id])
		return m->tr[d][id] - 1;
	s = st_pfw_str(r, id, &len);
	if ((k = trace_agg_intern(g, d, s, len)) < 0)
		return -1;
	m->tr[d][id] = (uint32_t)k + 1;
	return k;
}

/* ---- reading files in threads ---------------------------------------- */


static int host_none(struct agg *g)
{
	if (g->host_none < 0)
		g->host_none = trace_agg_intern(g, D_HOST, "", 0);
	return g->host_none < 0 ? -1 : 0;
}

void trace_progress_add(st_trace_progress *p, uint64_t *seen,
			 const st_pfw_reader *r, uint64_t *events)
{
	uint64_t off = st_pfw_offset(r);

	if (!p)
		return;
	if (off > *seen) {
		atomic_fetch_add(&p->bytes, off - *seen);
		*seen = off;
	}
	if (events) {
		atomic_fetch_add(&p->events, *events);
		*events = 0;
	}
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
	bool any = false, pooled;

	tf->path = run->paths[fi];
	if (!(r = o->open_at ? o->open_at(o->open_ctx, fi, &err)
			     : trace_open(o->src, run->paths[fi], o->tracks,
					  &err))) {
		tf->err_code = err.code;
		tf->err_text = strdup(err.text);
		return err.code == ST_EXIT_IOERR && !tf->err_text ? -1 : 0;
	}
	trace_rmap_init(&m, o->filter);
	/* the files' names straight into G's pool: one copy of each */
	pooled = st_pfw_use_file_table(r, trace_agg_pool(g));
	if (host_none(g) < 0) {
		ret = -1;
		goto out;
	}
	while ((rc = st_pfw_next(r, &ev, &err)) > 0) {
		int64_t name, cat, host, file = ST_PFW_NONE;

		if ((++tick & 8191) == 0) {
			trace_progress_add(o->progress, &seen, r, &pending);
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
		if (!any || ev.ts < tf->first_us)
			tf->first_us = ev.ts;
		if (!any || ev.ts + ev.dur > tf->end_us)
			tf->end_us = ev.ts + ev.dur;
		any = true;
		if (o->filter) {
			int pass = trace_rmap_pass(&m, r, o->filter, &ev,
						   &w->err);

			if (pass < 0) {
				w->failed = true;
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
		     (file = pooled ? pool_file(g, ev.file)
				    : rmap_tr(&m, g, r, D_FILE, ev.file)) < 0) ||
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
	trace_progress_add(o->progress, &seen, r, &pending);
	tf->st = *st_pfw_stats_get(r);
	tf->not_trace = tf->st.events == 0 && tf->st.meta == 0 &&
			tf->st.other == 0;
out:
	trace_rmap_release(&m);
	st_pfw_close(r);
	/* a new reader's string ids mean nothing to the caches */
	st_pairids_forget(&g->procids);
	g->have_thread = false;
	return ret;
}

void *trace_worker_main(void *arg)
{
	struct worker *w = arg;
	struct run *run = w->run;

	for (;;) {
		size_t k = atomic_fetch_add(&run->next, 1);

		if (k >= run->n || atomic_load(&run->stop))
			break;
		if (read_file(w, run->order[k]) < 0 && !w->failed) {
			trace_agg_fail(&w->agg, &w->err);
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

/* Add map B's entries to A, their keys (a, b) translated to (TA[a],
 * TB[b]) (NULL: as they are), the values summed (stopping at INT64_MAX
 * and setting *SAT, unless SAT is NULL).  0, or -1 out of memory. */
static int map_merge(st_pairmap *a, const st_pairmap *b, const uint32_t *ta,
		     const uint32_t *tb, bool *sat)
{
	for (size_t i = 0; i < b->cap; i++) {
		const st_pairmap_entry *e = &b->e[i];
		uint64_t *v;

		if (!e->used)
			continue;
		if (!(v = st_pairmap_get(a, ta ? ta[e->a] : e->a,
					 tb ? tb[e->b] : e->b, NULL)))
			return -1;
		if (sat)
			uadd(v, e->v, sat);
		else
			*v += e->v;
	}
	return 0;
}

/* Add B's per-unit sums to A's, B's groups and units translated by TG
 * and TP. */
static int gper_merge(struct agg *a, const struct agg *b, const uint32_t *tg,
		      const uint32_t *tp)
{
	for (size_t i = 0; i < b->gper.cap; i++) {
		const st_pairmap_entry *e = &b->gper.e[i];
		uint64_t *v;

		if (!e->used)
			continue;
		if (!(v = st_pairmap_get(&a->gper, tg[e->a],
					 2 * (uint64_t)tp[e->b / 2] + e->b % 2,
					 NULL)))
			return -1;
		uadd(v, e->v, &a->saturated);
	}
	return 0;
}

/* Merge B into A (B is emptied of its intervals). */
int trace_agg_merge(struct agg *a, struct agg *b)
{
	uint32_t *tr[D_N] = { 0 }, *trp = NULL;
	size_t base;
	int rc = -1;

	for (int d = 0; d < D_N; d++) {
		uint32_t n = trace_agg_n(b, d);

		if (!(tr[d] = malloc((n + 1) * sizeof(uint32_t))))
			goto out;
		for (uint32_t i = 0; i < n; i++) {
			size_t len;
			const char *s;
			int64_t k;
			struct acc *x, *y;

			if (d == D_FILE && trace_agg_pool(a) == trace_agg_pool(b)) {
				k = pool_file(a, trace_agg_file_pid(b, i));
			} else {
				s = trace_agg_str(b, d, i, &len);
				k = s ? trace_agg_intern(a, d, s, len) : -1;
			}

			if (k < 0)
				goto out;
			tr[d][i] = (uint32_t)k;
			if (!trace_dim_counts(d))
				continue;
			x = &a->acc[d][k];
			y = &b->acc[d][i];
			x->count += y->count;
			sadd(&x->dur, y->dur, &a->saturated);
			sadd(&x->bytes, y->bytes, &a->saturated);
		}
	}
	if (!(trp = malloc((b->nprocs + 1) * sizeof(*trp))) ||
	    trace_ivs_adopt(&a->ivs, &b->ivs, &base) < 0)
		goto out;
	for (size_t i = 0; i < b->nprocs; i++) {
		struct proc *q = &b->procs[i];
		int64_t p = trace_agg_proc(a, tr[D_HOST][q->host], q->pid);

		if (p < 0 ||
		    trace_ivec_take(a, &a->procs[p].io, &q->io, base) < 0 ||
		    trace_ivec_take(a, &a->procs[p].comp, &q->comp, base) < 0)
			goto out;
		a->procs[p].events += q->events;
		trp[i] = (uint32_t)p;
	}
	for (size_t i = 0; a->segs && b->segs && i + 1 < a->o->nseg; i++) {
		st_trace_seg *x = &a->segs[i], *y = &b->segs[i];

		x->events += y->events;
		x->reads += y->reads;
		x->writes += y->writes;
		sadd(&x->io_us, y->io_us, &a->saturated);
		sadd(&x->read_bytes, y->read_bytes, &a->saturated);
		sadd(&x->write_bytes, y->write_bytes, &a->saturated);
	}
	if (map_merge(&a->threads, &b->threads, trp, NULL, NULL) < 0 ||
	    map_merge(&a->sizes, &b->sizes, tr[D_NAME], NULL, NULL) < 0 ||
	    gper_merge(a, b, tr[D_GROUP], tr[D_PER]) < 0 ||
	    map_merge(&a->bins, &b->bins, NULL, NULL, &a->saturated) < 0)
		goto out;
	if (b->events) {
		if (!a->events || b->first < a->first)
			a->first = b->first;
		if (!a->events || b->end > a->end)
			a->end = b->end;
		a->events += b->events;
	}
	a->saturated |= b->saturated;
	if (a->ivs.held > a->ivs.budget && trace_ivs_spill(a) < 0)
		goto out;
	st_pairids_forget(&a->procids);
	a->have_thread = false;
	a->have_key = false;
	rc = 0;
out:
	for (int d = 0; d < D_N; d++)
		free(tr[d]);
	free(trp);
	return rc;
}

