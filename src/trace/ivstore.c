/* ivstore.c - the per-process interval unions of a summary in bounded
 * memory (see trace_int.h, struct ivec).
 *
 * Each process keeps its I/O and compute intervals in a growing vector,
 * folded into its union whenever it has doubled.  When the vectors of an
 * agg hold more than its budget of intervals (overlapping events fold and
 * cost nothing; disjoint ones, such as a process's sequential system
 * calls, do), every vector is folded and appended to an unlinked temporary
 * file as a sorted run (a segment) and emptied.  A process's segments are
 * read back in one k-way merge by start, so its union, and the overlap of
 * its I/O and compute unions, stay exact.  Like an LSM tree, K segments of
 * one level are merged into one of the next, so a process has O(K log n)
 * segments and the merge O(K log n) small buffers: memory does not grow
 * with the trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_int.h"

enum {
	FANIN = 16,             /* segments of a level merged into one */
	CUR_BUF = 256,          /* intervals a cursor reads at a time */
};

static size_t budget_of(void)
{
	const char *e = getenv("STREAMTIME_IV_BUDGET");

	if (e && atol(e) > 0)
		return (size_t)atol(e);
	return (size_t)1 << 15;         /* 512 KiB of intervals an agg */
}

void trace_ivs_init(struct ivstore *st)
{
	memset(st, 0, sizeof(*st));
	st->own = -1;
	st->budget = budget_of();
}

void trace_ivs_release(struct ivstore *st)
{
	for (size_t i = 0; i < st->nfd; i++)
		close(st->fd[i]);
	free(st->fd);
	free(st->size);
	memset(st, 0, sizeof(*st));
	st->own = -1;
}

void trace_ivec_release(struct ivec *v)
{
	free(v->v);
	free(v->seg);
	memset(v, 0, sizeof(*v));
}

/* An I/O error of the temporary file: -1 with ST->err set to errno (memory
 * running out is -1 alone). */
static int fail(struct ivstore *st)
{
	st->err = errno ? errno : EIO;
	return -1;
}

/* Room for one more file in ST.  0, -1 out of memory. */
static int grow_files(struct ivstore *st)
{
	uint64_t *ns;

	if (ST_GROW(st->fd, st->nfd, st->fdcap, 4) < 0)
		return -1;
	if (!(ns = realloc(st->size, st->fdcap * sizeof(*ns))))
		return -1;
	st->size = ns;
	return 0;
}

/* The index of ST's own temporary file, created on first use. */
static int own_file(struct ivstore *st)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (st->own >= 0)
		return st->own;
	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(path, sizeof(path), "%s/streamtime-iv-XXXXXX",
			     dir) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return fail(st);
	}
	if (grow_files(st) < 0)
		return -1;
	if ((fd = mkostemp(path, O_CLOEXEC)) < 0)
		return fail(st);
	unlink(path);
	st->fd[st->nfd] = fd;
	st->size[st->nfd] = 0;
	st->own = (int)st->nfd++;
	return st->own;
}

/* Append V[0..N) to ST's own file as segment *SEG. */
static int seg_write(struct ivstore *st, const st_trace_iv *v, size_t n,
		     struct ivseg *seg)
{
	int f = own_file(st);
	const char *p = (const char *)v;
	size_t left = n * sizeof(*v);
	uint64_t off;

	if (f < 0)
		return -1;
	off = st->size[f];
	*seg = (struct ivseg){ .file = (uint32_t)f, .off = off, .n = n };
	while (left) {
		ssize_t w = pwrite(st->fd[f], p, left, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;
			return fail(st);
		}
		p += w;
		off += (uint64_t)w;
		left -= (size_t)w;
	}
	st->size[f] = off;
	return 0;
}

/* The space of SEG is no longer needed: give it back where the file system
 * can (best effort). */
static void seg_drop(struct ivstore *st, const struct ivseg *seg)
{
	if (seg->n)
		(void)fallocate(st->fd[seg->file], FALLOC_FL_PUNCH_HOLE |
				FALLOC_FL_KEEP_SIZE, (off_t)seg->off,
				(off_t)(seg->n * sizeof(st_trace_iv)));
}

/* ---- reading back: a k-way merge by start --------------------------- */

struct cur {
	int fd;                 /* -1: MEM */
	uint64_t off, left;     /* of the file, intervals not yet read */
	const st_trace_iv *mem;
	st_trace_iv buf[CUR_BUF];
	size_t i, n;
	int kind;
};

/* The next interval of C into *X; 1, 0 at its end, -1 read error. */
static int cur_next(struct ivstore *st, struct cur *c, st_trace_iv *x)
{
	if (c->i == c->n) {
		size_t want;
		ssize_t r;

		if (!c->left)
			return 0;
		if (c->fd < 0) {
			c->n = c->left;
			c->i = 0;
			c->left = 0;
			*x = c->mem[c->i++];
			return 1;
		}
		want = c->left < CUR_BUF ? (size_t)c->left : CUR_BUF;
		do
			r = pread(c->fd, c->buf, want * sizeof(*c->buf),
				  (off_t)c->off);
		while (r < 0 && errno == EINTR);
		if (r < (ssize_t)sizeof(*c->buf) ||
		    (size_t)r % sizeof(*c->buf)) {
			if (r >= 0)
				errno = EIO;
			return fail(st);
		}
		c->n = (size_t)r / sizeof(*c->buf);
		c->i = 0;
		c->off += c->n * sizeof(*c->buf);
		c->left -= c->n;
	}
	*x = c->fd < 0 ? c->mem[c->i++] : c->buf[c->i++];
	return 1;
}

/* Each interval of the sources SRC[0..N) (each sorted by start) in order
 * of start, with its source's kind, to FN. */
struct src {
	int kind;
	const struct ivseg *seg;        /* or */
	const st_trace_iv *mem;
	size_t n;
};

typedef int (*raw_fn)(void *ctx, int kind, int64_t s, int64_t e);

static int merge(struct ivstore *st, const struct src *src, size_t n,
		 raw_fn fn, void *ctx)
{
	struct cur *c = calloc(n + 1, sizeof(*c));
	st_trace_iv *head = malloc((n + 1) * sizeof(*head));
	st_heap h = { 0 };
	int rc = -1;

	if (!c || !head) {
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		int k;

		c[i].kind = src[i].kind;
		if (src[i].seg) {
			c[i].fd = st->fd[src[i].seg->file];
			c[i].off = src[i].seg->off;
			c[i].left = src[i].seg->n;
		} else {
			c[i].fd = -1;
			c[i].mem = src[i].mem;
			c[i].left = src[i].n;
		}
		if ((k = cur_next(st, &c[i], &head[i])) < 0)
			goto out;
		if (k && st_heap_push(&h, head[i].s, (uint32_t)i) < 0)
			goto out;
	}
	while (h.n) {
		uint32_t i = st_heap_pop(&h).val;
		int k;

		/* a source's run goes out without the heap while it leads */
		do {
			if ((k = fn(ctx, c[i].kind, head[i].s, head[i].e)) != 0) {
				rc = k;
				goto out;
			}
			if ((k = cur_next(st, &c[i], &head[i])) < 0)
				goto out;
		} while (k && (!h.n || head[i].s <= h.v[0].key));
		if (k && st_heap_push(&h, head[i].s, (uint32_t)i) < 0)
			goto out;
	}
	rc = 0;
out:
	st_heap_release(&h);
	free(head);
	free(c);
	return rc;
}

/* A union built from intervals given in order of start. */
struct uacc {
	int64_t s, e;
	bool open;
};

/* Add [S, E) to U; 1 with *OUT the interval it closed, else 0. */
static int uacc_add(struct uacc *u, int64_t s, int64_t e, st_trace_iv *out)
{
	if (e <= s)
		return 0;
	if (u->open && s <= u->e) {
		if (e > u->e)
			u->e = e;
		return 0;
	}
	if (u->open) {
		*out = (st_trace_iv){ u->s, u->e };
		*u = (struct uacc){ s, e, true };
		return 1;
	}
	*u = (struct uacc){ s, e, true };
	return 0;
}

/* ---- compaction -------------------------------------------------------- */

struct wbuf {
	struct ivstore *st;
	struct uacc u;
	st_trace_iv v[1024];
	size_t n;
	struct ivseg seg;       /* what was written so far */
	bool started;
};

static int wbuf_flush(struct wbuf *w)
{
	struct ivseg s;

	if (!w->n)
		return 0;
	if (seg_write(w->st, w->v, w->n, &s) < 0)
		return -1;
	/* the writes of one compaction are consecutive in the own file */
	if (!w->started)
		w->seg = s;
	else
		w->seg.n += s.n;
	w->started = true;
	w->n = 0;
	return 0;
}

static int wbuf_put(struct wbuf *w, const st_trace_iv *x)
{
	w->v[w->n++] = *x;
	return w->n == sizeof(w->v) / sizeof(w->v[0]) ? wbuf_flush(w) : 0;
}

static int compact_raw(void *ctx, int kind, int64_t s, int64_t e)
{
	struct wbuf *w = ctx;
	st_trace_iv x;

	(void)kind;
	if (uacc_add(&w->u, s, e, &x) && wbuf_put(w, &x) < 0)
		return -1;
	return 0;
}

/* Merge segments V->seg[FROM..) into one of level LEVEL. */
static int compact(struct ivstore *st, struct ivec *v, size_t from,
		   uint32_t level)
{
	size_t n = v->nseg - from;
	struct src *src = calloc(n + 1, sizeof(*src));
	struct wbuf *w = calloc(1, sizeof(*w));
	st_trace_iv x;
	int rc = -1;

	if (!src || !w) {
		goto out;
	}
	w->st = st;
	for (size_t i = 0; i < n; i++)
		src[i].seg = &v->seg[from + i];
	/* the own file must exist before its writes start */
	if (own_file(st) < 0 || merge(st, src, n, compact_raw, w) != 0)
		goto out;
	if (w->u.open) {
		x = (st_trace_iv){ w->u.s, w->u.e };
		if (wbuf_put(w, &x) < 0)
			goto out;
	}
	if (wbuf_flush(w) < 0)
		goto out;
	for (size_t i = from; i < v->nseg; i++)
		seg_drop(st, &v->seg[i]);
	if (!w->started)
		w->seg = (struct ivseg){ .file = (uint32_t)st->own };
	w->seg.level = level;
	v->seg[from] = w->seg;
	v->nseg = from + 1;
	rc = 0;
out:
	free(src);
	free(w);
	return rc;
}

/* Keep V's segments few: K of one level at the tail become one of the
 * next; more than 4 K in all (after merges of aggs) become one. */
static int tidy(struct ivstore *st, struct ivec *v)
{
	while (v->nseg >= FANIN) {
		uint32_t l = v->seg[v->nseg - 1].level;
		size_t i = v->nseg - FANIN;
		bool same = true;

		for (size_t j = i; j < v->nseg; j++)
			same &= v->seg[j].level == l;
		if (!same)
			break;
		if (compact(st, v, i, l + 1) < 0)
			return -1;
	}
	if (v->nseg > 4 * FANIN) {
		uint32_t l = 0;

		for (size_t j = 0; j < v->nseg; j++)
			if (v->seg[j].level > l)
				l = v->seg[j].level;
		return compact(st, v, 0, l + 1);
	}
	return 0;
}

/* Fold V, move it to a new segment of ST's own file and free its room:
 * the processes of the files read before are done, mostly, and a vector
 * kept for each would grow with their number. */
static int spill_one(struct ivstore *st, struct ivec *v)
{
	struct ivseg s;

	v->n = st_interval_union(v->v, v->n);
	if (v->n) {
		if (seg_write(st, v->v, v->n, &s) < 0)
			return -1;
		if (ST_GROW(v->seg, v->nseg, v->segcap, 1) < 0)
			return -1;
		v->seg[v->nseg++] = s;
	}
	free(v->v);
	v->v = NULL;
	v->n = v->cap = 0;
	v->fold_at = 0;
	return v->nseg ? tidy(st, v) : 0;
}

int trace_ivs_spill(struct agg *g)
{
	for (size_t i = 0; i < g->nprocs; i++)
		if (spill_one(&g->ivs, &g->procs[i].io) < 0 ||
		    spill_one(&g->ivs, &g->procs[i].comp) < 0)
			return -1;
	g->ivs.held = 0;
	return 0;
}

/* ---- adding ------------------------------------------------------------ */

/* Room in V for one more interval, within G's budget of intervals
 * allocated (not only held: a vector's room counts).  0, -1. */
static int ivec_room(struct agg *g, struct ivec *v)
{
	size_t cap;

	if (v->n >= v->fold_at) {
		v->n = st_interval_union(v->v, v->n);
		v->fold_at = v->n * 2 > 4096 ? v->n * 2 : 4096;
		if (v->n < v->cap)
			return 0;
	}
	cap = v->cap ? v->cap * 2 : 64;
	/* spilling empties V too */
	if (g->ivs.held + (cap - v->cap) > g->ivs.budget && g->ivs.held &&
	    trace_ivs_spill(g) < 0)
		return -1;
	cap = v->cap;
	if (ST_GROW(v->v, v->n, v->cap, 64) < 0)
		return -1;
	g->ivs.held += v->cap - cap;
	return 0;
}

int trace_ivec_push(struct agg *g, struct ivec *v, int64_t s, int64_t e)
{
	if (v->n == v->cap && ivec_room(g, v) < 0)
		return -1;
	v->v[v->n++] = (st_trace_iv){ s, e };
	return 0;
}

int trace_agg_add_iv(struct agg *g, size_t p, int kind, int64_t s, int64_t e)
{
	struct proc *pr = &g->procs[p];

	return trace_ivec_push(g, kind == TRACE_IV_IO ? &pr->io : &pr->comp,
			       s, e);
}

int trace_ivs_adopt(struct ivstore *a, struct ivstore *b, size_t *base)
{
	*base = a->nfd;
	for (size_t i = 0; i < b->nfd; i++) {
		if (grow_files(a) < 0)
			return -1;
		a->fd[a->nfd] = b->fd[i];
		a->size[a->nfd++] = b->size[i];
	}
	b->nfd = 0;
	b->own = -1;
	return 0;
}

int trace_ivec_take(struct agg *ga, struct ivec *a, struct ivec *b,
		    size_t base)
{
	if (b->nseg) {
		if (a->nseg + b->nseg > a->segcap) {
			size_t cap = a->nseg + b->nseg;
			struct ivseg *ns = realloc(a->seg, cap * sizeof(*ns));

			if (!ns)
				return -1;
			a->seg = ns;
			a->segcap = cap;
		}
		for (size_t i = 0; i < b->nseg; i++) {
			a->seg[a->nseg] = b->seg[i];
			a->seg[a->nseg++].file += (uint32_t)base;
		}
	}
	if (b->n) {
		if (a->n + b->n > a->cap) {
			size_t cap = a->n + b->n;
			st_trace_iv *nv = realloc(a->v, cap * sizeof(*nv));

			if (!nv)
				return -1;
			a->v = nv;
			ga->ivs.held += cap - a->cap;
			a->cap = cap;
		}
		memcpy(a->v + a->n, b->v, b->n * sizeof(*b->v));
		a->n += b->n;
	}
	trace_ivec_release(b);
	return tidy(&ga->ivs, a);
}

/* ---- the unions ---------------------------------------------------------- */

struct uctx {
	struct uacc u[3];       /* I/O, compute, both */
	trace_iv_fn fn;
	void *ctx;
	int64_t both;
};

static int union_raw(void *ctx, int kind, int64_t s, int64_t e)
{
	struct uctx *c = ctx;
	st_trace_iv x;
	int rc;

	if (uacc_add(&c->u[kind], s, e, &x) &&
	    (rc = c->fn(c->ctx, kind, x.s, x.e)) != 0)
		return rc;
	if (uacc_add(&c->u[2], s, e, &x))
		c->both += x.e - x.s;
	return 0;
}

int trace_ivs_union(struct agg *g, size_t p, unsigned kinds,
		    trace_iv_fn fn, void *ctx, int64_t *both)
{
	struct proc *pr = &g->procs[p];
	struct ivec *k[2] = { &pr->io, &pr->comp };
	struct src *src;
	struct uctx c = { .fn = fn, .ctx = ctx };
	size_t n = 0;
	int rc;

	for (int kind = 0; kind < 2; kind++)
		if (kinds & (1u << kind))
			n += k[kind]->nseg + 1;
	if (!(src = calloc(n + 1, sizeof(*src))))
		return -1;
	n = 0;
	for (int kind = 0; kind < 2; kind++) {
		struct ivec *v = k[kind];

		if (!(kinds & (1u << kind)))
			continue;
		v->n = st_interval_union(v->v, v->n);
		for (size_t i = 0; i < v->nseg; i++)
			src[n++] = (struct src){ kind, &v->seg[i], NULL, 0 };
		src[n++] = (struct src){ kind, NULL, v->v, v->n };
	}
	rc = merge(&g->ivs, src, n, union_raw, &c);
	free(src);
	if (rc)
		return rc;
	for (int kind = 0; kind < 2; kind++)
		if (c.u[kind].open &&
		    (rc = fn(ctx, kind, c.u[kind].s, c.u[kind].e)) != 0)
			return rc;
	if (c.u[2].open)
		c.both += c.u[2].e - c.u[2].s;
	if (both)
		*both = c.both;
	return 0;
}

int trace_agg_each_iv(struct agg *g, size_t p, trace_iv_fn fn, void *ctx)
{
	int rc = trace_ivs_union(g, p, 1u << TRACE_IV_IO, fn, ctx, NULL);

	return rc ? rc : trace_ivs_union(g, p, 1u << TRACE_IV_COMP, fn, ctx,
					 NULL);
}

int trace_agg_fail(const struct agg *g, st_error *err)
{
	if (g->ivs.err)
		return st_error_set(err, ST_EXIT_IOERR, "temporary file of "
				    "the I/O-time unions (in $TMPDIR or /tmp): "
				    "%s", strerror(g->ivs.err));
	return OOM(err);
}
