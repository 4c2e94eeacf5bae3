/* sysplot.c - the overview figure of system-trace sets (sysplot.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/atomic.h"
#include "streamtime/pairmap.h"
#include "streamtime/plot.h"
#include "streamtime/sysplot.h"
#include "streamtime/time.h"
#include "../trace/pass.h"
#include "../trace/trace_int.h"

/* The kinds of call, in the order of a process's rows. */
static const char *const kinds[] = {
	"read", "write", "openat", "close", "mmap", "munmap", "mkdir",
	"rmdir", "unlink", "bio_read", "bio_write", "other",
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static const uint32_t kind_rgb[NKINDS] = {
	0x1f77b4, 0xd62728, 0x2ca02c, 0x7f7f7f, 0x9467bd, 0x9467bd,
	0xe377c2, 0xe377c2, 0xe377c2, 0x8c564b, 0x8c564b, 0x17becf,
};

static size_t kind_of(const char *name)
{
	for (size_t k = 0; k + 1 < NKINDS; k++)
		if (strcmp(name, kinds[k]) == 0)
			return k;
	return NKINDS - 1;
}

void st_sysplot_bin(double *busy, uint32_t *count, size_t n, double t0,
		    double t1, double s, double e)
{
	double w = (t1 - t0) / (double)n;
	size_t c0, c1;

	if (n == 0 || !(t1 > t0) || !(e >= s) || e < t0 || s > t1)
		return;
	c0 = s <= t0 ? 0 : (size_t)floor((s - t0) / (t1 - t0) * (double)n);
	c1 = e >= t1 ? n - 1 : (size_t)floor((e - t0) / (t1 - t0) * (double)n);
	if (c0 >= n)
		c0 = n - 1;
	if (c1 >= n)
		c1 = n - 1;
	/* a call that ends where a column begins does not touch it */
	if (c1 > c0 && e < t1 && t0 + (double)c1 * w >= e)
		c1--;
	for (size_t c = c0; c <= c1; c++) {
		double a = fmax(s, t0 + (double)c * w);
		double b = fmin(e, c + 1 == n ? t1 : t0 + (double)(c + 1) * w);

		if (count)
			count[c]++;
		if (busy && b > a)
			busy[c] += (b - a) / w;
	}
}

void st_sysplot_busy_bars(st_plot_axes *ax, const double *busy,
			  const uint32_t *count, double x0, double x1,
			  double row, st_plot_rgba c)
{
	double span = x1 - x0;

	/* a series per quarter of busy share, bottom-aligned: 0.3 of a
	 * row for any call, up to 0.7 for a busy column */
	for (int q = 1; q <= 4; q++) {
		double a[ST_SYSPLOT_COLS], b[ST_SYSPLOT_COLS],
		       y[ST_SYSPLOT_COLS], h = 0.3 + 0.4 * (q - 1) / 3;
		size_t m = 0;

		for (size_t col = 0; col < ST_SYSPLOT_COLS; col++) {
			double share = fmin(busy[col], 1.0);
			int level = count[col] ? (int)ceil(share * 4) : 0;

			if (count[col] && level < 1)
				level = 1;
			if (level != q)
				continue;
			a[m] = x0 + span * (double)col / ST_SYSPLOT_COLS;
			b[m] = x0 + span * (double)(col + 1) / ST_SYSPLOT_COLS;
			y[m++] = row + 0.35 - h / 2;
		}
		if (m)
			st_plot_hbars(ax, a, b, y, m, h, c, NULL);
	}
}

/* ---- the calls' table ------------------------------------------------- */

struct row {
	size_t set;
	int64_t pid;                 /* -1: other processes */
	size_t kind;
	uint64_t calls;
	size_t slot;                 /* its place among the drawn rows */
	size_t proc;                 /* its process (P->procs) */
	/* pass 2: bars (x0, x1) or the columns */
	double *x0, *x1;
	size_t nbars;
	double *busy;
	uint32_t *count;
};

struct pproc {
	size_t set;
	int64_t pid;
	uint64_t calls;
	int64_t chain[17];           /* root .. pid */
	int depth;
	int shown_depth;             /* ancestors with rows */
	size_t nkinds;               /* its rows */
	bool other;
};

/* The CPU panel's lines: %usr, %nice, %sys, %iowait. */
#define CPU_METRICS 4

struct plot {
	const st_systrace_list *l;
	const st_sysplot_opts *o;
	st_sysplot_result *res;
	struct row *rows;            /* (set, pid, kind) */
	size_t nrows, rows_cap;
	st_pairmap map;              /* (set << 40 | pid, kind) -> row + 1 */
	struct pproc *procs;
	size_t nprocs;
	struct row *drawn;           /* the rows drawn, "other" merged */
	size_t ndrawn;
	int64_t t0_us, t1_us;        /* the axis */
	bool any;
	/* samples by column: CPU usr/nice/sys/iowait per set, GPU sm/mem */
	size_t set_now, ngpu;
	double *cpu;                 /* [set][CPU_METRICS][col] sums */
	double *cpu_t;               /* [set][col] sum of times */
	uint32_t *cpu_n;             /* [set][col] */
	double *gpu;                 /* [gpu][2][col] */
	double *gpu_t;
	uint32_t *gpu_n;
	bool has_cpu, has_gpu;
};

static uint64_t proc_key(size_t set, int64_t pid)
{
	return (uint64_t)set << 40 | ((uint64_t)pid & ((1ull << 40) - 1));
}

static struct row *row_get(struct plot *p, size_t set, int64_t pid,
			   size_t kind)
{
	bool added = false;
	uint64_t *v = st_pairmap_get(&p->map, proc_key(set, pid), kind,
				     &added);

	if (!v)
		return NULL;
	if (added) {
		if (p->nrows == p->rows_cap) {
			size_t cap = p->rows_cap ? 2 * p->rows_cap : 64;
			struct row *r = realloc(p->rows, cap * sizeof(*r));

			if (!r)
				return NULL;
			p->rows = r;
			p->rows_cap = cap;
		}
		memset(&p->rows[p->nrows], 0, sizeof(*p->rows));
		p->rows[p->nrows].set = set;
		p->rows[p->nrows].pid = pid;
		p->rows[p->nrows].kind = kind;
		*v = ++p->nrows;
	}
	return &p->rows[*v - 1];
}

/* Pass 1 (PASS2 false): the axis and the calls per row; pass 2: each
 * kept call into its drawn row. */
static int read_calls(struct plot *p, bool pass2, st_error *err)
{
	size_t fi = 0;

	for (size_t i = 0; i < p->l->n; i++) {
		const st_systrace *s = p->l->v[i];
		const char *const *paths;
		size_t n = st_systrace_event_files(s, &paths);

		for (size_t k = 0; k < n; k++, fi++) {
			st_pfw_reader *r;
			st_pfw_event ev;
			int rc;
			/* the kind of each name id of this reader, + 1 */
			uint8_t kcache[64] = { 0 };
			struct rmap m;

			if (!pass2) {
				char **v = realloc(p->res->paths, (fi + 1) *
						   sizeof(*v));

				if (!v)
					return OOM(err);
				p->res->paths = v;
				if (!(v[fi] = strdup(paths[k])))
					return OOM(err);
				p->res->n_paths = fi + 1;
			}
			if (!(r = st_systrace_open_file(s, paths[k], false, err)))
				return -1;
			trace_rmap_init(&m, p->o->filter);
			while ((rc = st_pfw_next(r, &ev, err)) > 0) {
				size_t kind;
				struct row *row;

				if (rc == ST_PFW_BAD) {
					if (!pass2 && st_trace_bad_keep(
						    &p->res->bad, &p->res->n_bad,
						    &p->res->bad_lines,
						    p->o->max_bad, fi, r) < 0) {
						st_pfw_close(r);
						trace_rmap_release(&m);
						return OOM(err);
					}
					continue;
				}
				if (!pass2)
					p->res->events++;
				if (p->o->filter) {
					int pass = trace_rmap_pass(&m, r,
								   p->o->filter,
								   &ev, err);

					if (pass < 0) {
						rc = -1;
						break;
					}
					if (!pass)
						continue;
				}
				if (ev.name < 64 && kcache[ev.name]) {
					kind = kcache[ev.name] - 1u;
				} else {
					kind = kind_of(st_pfw_str(r, ev.name, NULL));
					if (ev.name < 64)
						kcache[ev.name] = (uint8_t)(kind + 1);
				}
				if (!(row = row_get(p, i, ev.pid, kind))) {
					st_pfw_close(r);
					trace_rmap_release(&m);
					return OOM(err);
				}
				if (!pass2) {
					row->calls++;
					p->res->calls++;
					if (!p->any || ev.ts < p->t0_us)
						p->t0_us = ev.ts;
					if (!p->any || ev.ts + ev.dur > p->t1_us)
						p->t1_us = ev.ts + ev.dur;
					p->any = true;
					continue;
				}
				{
					struct row *d = &p->drawn[row->slot];

					if (d->busy) {
						st_sysplot_bin(d->busy, d->count,
							ST_SYSPLOT_COLS,
							(double)p->t0_us,
							(double)p->t1_us,
							(double)ev.ts,
							(double)(ev.ts + ev.dur));
					} else if (d->nbars < d->calls) {
						d->x0[d->nbars] = (double)ev.ts / 1e6;
						d->x1[d->nbars++] =
							(double)(ev.ts + ev.dur) / 1e6;
					}
				}
			}
			st_pfw_close(r);
			trace_rmap_release(&m);
			if (rc == ST_PFW_ERROR) {
				st_error_prefix(err, "%s", paths[k]);
				return -1;
			}
		}
	}
	return 0;
}

/* ---- samples ------------------------------------------------------------ */

static int range_sample(void *ctx, const st_sys_sample *x, st_error *err)
{
	struct plot *p = ctx;
	int64_t t = x->t_ns / 1000;

	(void)err;
	if (x->gpu >= 0) {
		p->has_gpu = true;
		if ((size_t)x->gpu + 1 > p->ngpu)
			p->ngpu = (size_t)x->gpu + 1;
	} else {
		p->has_cpu = true;
	}
	if (!p->any || t < p->t0_us)
		p->t0_us = t;
	if (!p->any || t > p->t1_us)
		p->t1_us = t;
	p->any = true;
	return 0;
}

static size_t col_of(const struct plot *p, int64_t t_ns)
{
	double f = ((double)t_ns / 1000 - (double)p->t0_us) /
		   (double)(p->t1_us - p->t0_us);
	long c = (long)floor(f * ST_SYSPLOT_COLS);

	return c < 0 ? 0 : c >= ST_SYSPLOT_COLS ? ST_SYSPLOT_COLS - 1
						 : (size_t)c;
}

static int add_sample(void *ctx, const st_sys_sample *x, st_error *err)
{
	struct plot *p = ctx;
	size_t c = col_of(p, x->t_ns);
	double t = (double)x->t_ns / 1e9;

	(void)err;
	if (x->gpu < 0) {
		size_t b = p->set_now * ST_SYSPLOT_COLS;

		double *m = p->cpu + p->set_now * CPU_METRICS * ST_SYSPLOT_COLS;

		m[0 * ST_SYSPLOT_COLS + c] += x->usr;
		m[1 * ST_SYSPLOT_COLS + c] += x->nice;
		m[2 * ST_SYSPLOT_COLS + c] += x->sys;
		m[3 * ST_SYSPLOT_COLS + c] += x->iowait;
		p->cpu_t[b + c] += t;
		p->cpu_n[b + c]++;
	} else if ((size_t)x->gpu < p->ngpu) {
		size_t g = (size_t)x->gpu, b = g * ST_SYSPLOT_COLS;

		p->gpu[(g * 2 + 0) * ST_SYSPLOT_COLS + c] += x->sm;
		p->gpu[(g * 2 + 1) * ST_SYSPLOT_COLS + c] += x->mem;
		p->gpu_t[b + c] += t;
		p->gpu_n[b + c]++;
	}
	return 0;
}

/* ---- rows ---------------------------------------------------------------- */

static int cmp_chain(const void *x, const void *y)
{
	const struct pproc *a = x, *b = y;

	if (a->other != b->other)
		return a->other ? 1 : -1;
	if (a->set != b->set)
		return a->set < b->set ? -1 : 1;
	for (int i = 0; i <= a->depth && i <= b->depth; i++)
		if (a->chain[i] != b->chain[i])
			return a->chain[i] < b->chain[i] ? -1 : 1;
	return a->depth - b->depth;
}

static int cmp_calls(const void *x, const void *y)
{
	const struct pproc *a = x, *b = y;

	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* Each row's process (row->proc) from P->procs' order through a fresh
 * map.  0, or -1 out of memory. */
static int rows_to_procs(struct plot *p)
{
	st_pairmap m = { 0 };

	for (size_t k = 0; k < p->nprocs; k++) {
		uint64_t *v = st_pairmap_get(&m, proc_key(p->procs[k].set,
							  p->procs[k].pid), 0,
					     NULL);

		if (!v) {
			st_pairmap_release(&m);
			return -1;
		}
		*v = k;
	}
	for (size_t i = 0; i < p->nrows; i++) {
		const uint64_t *v = st_pairmap_find(&m, proc_key(p->rows[i].set,
								 p->rows[i].pid),
						    0);

		p->rows[i].proc = v ? *v : 0;
	}
	st_pairmap_release(&m);
	return 0;
}

/* Is there a process of set SET, pid PID, with rows of its own?  Through
 * M (key -> index + 1). */
static bool drawn_proc(const struct plot *p, const st_pairmap *m, size_t set,
		       int64_t pid)
{
	const uint64_t *v = st_pairmap_find(m, proc_key(set, pid), 0);

	return v && !p->procs[*v - 1].other;
}

/* The processes of the rows, in tree order, those beyond the row budget
 * marked other (the busiest keep rows of their own); each row's process
 * set.  0, or -1 out of memory. */
static int order_procs(struct plot *p)
{
	st_pairmap m = { 0 };
	size_t rows_used = 0;
	int rc = -1;

	for (size_t i = 0; i < p->nrows; i++) {
		struct row *r = &p->rows[i];
		bool added = false;
		uint64_t *v = st_pairmap_get(&m, proc_key(r->set, r->pid), 0,
					     &added);

		if (!v)
			goto out;
		if (added) {
			struct pproc *nv = realloc(p->procs, (p->nprocs + 1) *
						   sizeof(*nv));

			if (!nv)
				goto out;
			p->procs = nv;
			memset(&nv[p->nprocs], 0, sizeof(*nv));
			nv[p->nprocs].set = r->set;
			nv[p->nprocs].pid = r->pid;
			*v = ++p->nprocs;
		}
		p->procs[*v - 1].calls += r->calls;
		p->procs[*v - 1].nkinds++;
	}
	if (p->nprocs)          /* qsort must not get NULL, even for none */
		qsort(p->procs, p->nprocs, sizeof(*p->procs), cmp_calls);
	for (size_t k = 0; k < p->nprocs; k++) {
		struct pproc *pr = &p->procs[k];
		uint64_t *v;

		pr->other = k > 0 && rows_used + pr->nkinds >
				     ST_SYSPLOT_ROWS - NKINDS;
		if (pr->other)
			p->res->other_procs++;
		else
			rows_used += pr->nkinds;
		if (!(v = st_pairmap_get(&m, proc_key(pr->set, pr->pid), 0,
					 NULL)))
			goto out;
		*v = k + 1;
	}
	for (size_t k = 0; k < p->nprocs; k++) {
		struct pproc *pr = &p->procs[k];
		const st_systrace *s = p->l->v[pr->set];
		int64_t chain[17], pid = pr->pid;
		int d = 0;

		chain[d++] = pid;
		while (d < 17) {
			const st_sys_proc_name *n = st_systrace_name(s, pid);

			if (!n || n->ppid < 0 || !st_systrace_name(s, n->ppid))
				break;
			pid = n->ppid;
			chain[d++] = pid;
		}
		pr->depth = d - 1;
		for (int i = 0; i < d; i++)
			pr->chain[i] = chain[d - 1 - i];
		/* indented under the ancestors that have rows of their own */
		pr->shown_depth = 0;
		for (int i = 0; i < pr->depth; i++)
			if (drawn_proc(p, &m, pr->set, pr->chain[i]))
				pr->shown_depth++;
	}
	if (p->nprocs)
		qsort(p->procs, p->nprocs, sizeof(*p->procs), cmp_chain);
	rc = rows_to_procs(p);
out:
	st_pairmap_release(&m);
	return rc;
}

/* Rows in drawing order: by process (tree order), then kind; the other
 * processes' rows last, by kind. */
static int cmp_row_order(const void *x, const void *y, void *ctx)
{
	const struct plot *p = ctx;
	const struct row *a = &p->rows[*(const size_t *)x];
	const struct row *b = &p->rows[*(const size_t *)y];
	bool oa = p->procs[a->proc].other, ob = p->procs[b->proc].other;

	if (oa != ob)
		return oa ? 1 : -1;
	if (!oa && a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	return a->kind < b->kind ? -1 : a->kind > b->kind;
}

/* The drawn rows: per process in tree order its kinds, then the other
 * processes' rows per kind; each row's slot set, its bars or columns
 * allocated. */
static int make_rows(struct plot *p)
{
	size_t *idx;

	if (order_procs(p) < 0 ||
	    !(p->drawn = calloc(p->nrows + 1, sizeof(*p->drawn))) ||
	    !(idx = malloc((p->nrows + 1) * sizeof(*idx))))
		return -1;
	for (size_t i = 0; i < p->nrows; i++)
		idx[i] = i;
	qsort_r(idx, p->nrows, sizeof(*idx), cmp_row_order, p);
	for (size_t i = 0; i < p->nrows; i++) {
		struct row *r = &p->rows[idx[i]];
		struct row *d = p->ndrawn ? &p->drawn[p->ndrawn - 1] : NULL;

		if (!d || i == 0 || cmp_row_order(&idx[i - 1], &idx[i], p)) {
			d = &p->drawn[p->ndrawn++];
			d->set = r->set;
			d->pid = p->procs[r->proc].other ? -1 : r->pid;
			d->kind = r->kind;
			d->proc = r->proc;
			d->slot = p->ndrawn - 1;
		}
		d->calls += r->calls;
		r->slot = d->slot;
	}
	free(idx);
	for (size_t i = 0; i < p->ndrawn; i++) {
		struct row *d = &p->drawn[i];

		if (d->calls > ST_SYSPLOT_BARS) {
			d->busy = calloc(ST_SYSPLOT_COLS, sizeof(*d->busy));
			d->count = calloc(ST_SYSPLOT_COLS, sizeof(*d->count));
			if (!d->busy || !d->count)
				return -1;
			p->res->dense_rows++;
		} else {
			d->x0 = malloc((d->calls + 1) * sizeof(*d->x0));
			d->x1 = malloc((d->calls + 1) * sizeof(*d->x1));
			if (!d->x0 || !d->x1)
				return -1;
		}
	}
	p->res->rows = p->ndrawn;
	return 0;
}

/* ---- the figure ------------------------------------------------------------ */

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* The name of drawn row D (the process on its first row only). */
static void row_label(const struct plot *p, const struct row *d, bool first,
		      char *buf, size_t size)
{
	const st_systrace *s = p->l->v[d->set];
	const st_sys_proc_name *n;
	int depth = 0;

	if (!first) {
		snprintf(buf, size, "%s", kinds[d->kind]);
		return;
	}
	if (d->pid < 0) {
		snprintf(buf, size, "other processes (%zu) \xc2\xb7 %s",
			 p->res->other_procs, kinds[d->kind]);
		return;
	}
	depth = p->procs[d->proc].shown_depth;
	n = st_systrace_name(s, d->pid);
	snprintf(buf, size, "%*s%s%.28s %" PRId64 "%s%s%s \xc2\xb7 %s",
		 depth > 4 ? 8 : 2 * depth, "", depth ? "\xe2\x86\xb3 " : "",
		 n ? n->name : "pid", d->pid, p->l->n > 1 ? " [" : "",
		 p->l->n > 1 ? base_of(st_systrace_dir(s)) : "",
		 p->l->n > 1 ? "]" : "", kinds[d->kind]);
}

static void calls_panel(const struct plot *p, st_plot_axes *ax)
{
	char **names = calloc(p->ndrawn + 1, sizeof(*names));
	/* the band above the first row holds the phases' labels */
	double band = 1.6;

	if (!names)
		return;
	for (size_t i = 0; i < p->ndrawn; i++) {
		const struct row *d = &p->drawn[i];
		bool first = i == 0 || d->pid != p->drawn[i - 1].pid ||
			     d->set != p->drawn[i - 1].set || d->pid < 0;
		char buf[160];

		row_label(p, d, first, buf, sizeof(buf));
		names[i] = strdup(buf);
	}
	st_plot_axes_yinvert(ax);
	/* no row: no y range of rows, so no numeric ticks on the empty
	 * panel (they read -2 and -1) */
	if (p->ndrawn)
		st_plot_axes_ylim(ax, -0.5 - band, (double)p->ndrawn - 0.5);
	st_plot_axes_ycategories(ax, (const char *const *)names, p->ndrawn);
	for (size_t i = 0; i < p->ndrawn; i++) {
		const struct row *d = &p->drawn[i];
		st_plot_rgba c = st_plot_hex(kind_rgb[d->kind], 1);

		free(names[i]);
		if (!d->busy) {
			double *y = malloc((d->nbars + 1) * sizeof(*y));

			if (!y)
				continue;
			for (size_t k = 0; k < d->nbars; k++)
				y[k] = (double)i;
			st_plot_hbars(ax, d->x0, d->x1, y, d->nbars, 0.7, c, NULL);
			free(y);
			continue;
		}
		st_sysplot_busy_bars(ax, d->busy, d->count,
				     (double)p->t0_us / 1e6,
				     (double)p->t1_us / 1e6, (double)i, c);
	}
	free(names);
}

/* The phases of every set as shaded spans of AX (labelled: TEXT):
 * epochs first, then evals over them, then init (the labels in that
 * order of precedence). */
static void phase_spans(const struct plot *p, st_plot_axes *ax, bool text)
{
	static const char *const order[] = { "epoch", "eval", "init" };

	for (size_t o = 0; o < 3; o++) {
		size_t epochs = 0;

		for (size_t i = 0; i < p->l->n; i++) {
			const st_sys_phase *ph;
			size_t ng, n = st_systrace_phases(p->l->v[i], &ph, &ng);

			for (size_t k = 0; k < n; k++) {
				double s = (double)ph[k].s_ns / 1e9;
				double e = (double)(ph[k].e_ns >= 0 ? ph[k].e_ns
						    : p->t1_us * 1000) / 1e9;
				st_plot_rgba c;

				if (strncmp(ph[k].name, order[o],
					    strlen(order[o])) != 0)
					continue;
				if (o == 0)
					c = st_plot_hex(epochs++ % 2 ? 0x9ecae1
							: 0xc6dbef, 0.45);
				else if (o == 1)
					c = st_plot_hex(0xfd8d3c, 0.5);
				else
					c = st_plot_hex(0xbdbdbd, 0.4);
				st_plot_vspan(ax, s, e, c, text ? ph[k].name
								: NULL);
			}
		}
	}
}

/* A line through the columns' means: SUM[c] / N[c] at T[c] / N[c], and
 * a dot at each when there are few. */
static void col_line(st_plot_axes *ax, const double *sum, const double *t,
		     const uint32_t *n, st_plot_rgba c, const char *label)
{
	double x[ST_SYSPLOT_COLS], y[ST_SYSPLOT_COLS];
	size_t m = 0;

	for (size_t i = 0; i < ST_SYSPLOT_COLS; i++)
		if (n[i]) {
			x[m] = t[i] / n[i];
			y[m++] = sum[i] / n[i];
		}
	if (m)
		st_plot_line(ax, x, y, m, c, 1.3, label);
	/* few samples: each one shown (a single one makes no line) */
	if (m && m <= 120)
		st_plot_points(ax, x, y, m, c, 1.8, NULL);
}

static const uint32_t gpu_rgb[] = {
	0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b,
	0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf,
};

static void fmt_us(int64_t us, char *buf, size_t size)
{
	char t[48];

	st_time_format_utc(us * 1000, t, sizeof(t));
	snprintf(buf, size, "%s", t);
}

/* The caption: the axis' ends and each set's alignment. */
static void caption(const struct plot *p, char *buf, size_t size)
{
	char a[64], b[64];
	size_t off;

	fmt_us(p->t0_us, a, sizeof(a));
	fmt_us(p->t1_us, b, sizeof(b));
	off = (size_t)snprintf(buf, size, "time axis (UTC): %s to %s", a, b);
	for (size_t i = 0; i < p->l->n && off < size; i++) {
		const st_sys_align *al = st_systrace_align(p->l->v[i]);
		char bound[64];

		if (!al->known)
			snprintf(bound, sizeof(bound), "no clock relation: times "
				 "since boot");
		else if (al->bound_ns >= 0 && al->bound_ns < 1000)
			snprintf(bound, sizeof(bound), "times aligned to UTC "
				 "within %" PRId64 " ns", al->bound_ns);
		else if (al->bound_ns >= 0 && al->bound_ns < 1000000)
			snprintf(bound, sizeof(bound), "times aligned to UTC "
				 "within %.1f us", (double)al->bound_ns / 1e3);
		else if (al->bound_ns >= 0)
			snprintf(bound, sizeof(bound), "times aligned to UTC "
				 "within %.3f ms", (double)al->bound_ns / 1e6);
		else
			snprintf(bound, sizeof(bound), "aligned, bounded on one "
				 "side only");
		off += (size_t)snprintf(buf + off, size - off, "\n%s: %s",
					base_of(st_systrace_dir(p->l->v[i])),
					bound);
	}
	if (p->res->dense_rows && off < size)
		snprintf(buf + off, size - off, "\nrows of over %d calls: busy "
			 "share per 1/%d of the axis", ST_SYSPLOT_BARS,
			 ST_SYSPLOT_COLS);
}

/* Panel ROW of PANELS: TITLE, 0-100 %, the axis LO..HI, the phases. */
static st_plot_axes *percent_panel(const struct plot *p, st_plot_fig *fig,
				   int panels, int row, double lo, double hi,
				   const char *title)
{
	st_plot_axes *ax = st_plot_fig_grid(fig, panels, 1, row, 0);

	st_plot_axes_title(ax, title);
	st_plot_axes_xlim(ax, lo, hi);
	st_plot_axes_ylim(ax, 0, 100);
	st_plot_axes_xclock(ax);
	st_plot_axes_labels(ax, row + 1 == panels ? "time (UTC)" : NULL, "%");
	phase_spans(p, ax, false);
	return ax;
}

static st_plot_fig *build(const struct plot *p)
{
	int panels = 1 + (p->has_cpu ? 1 : 0) + (p->has_gpu ? 2 : 0), row = 0;
	double calls_h = 60 + 15.0 * (double)(p->ndrawn + 1);
	double height = 40 + calls_h + 130.0 * (panels - 1) + 40 +
			(double)p->l->n * 13;
	double weights[4];
	double lo = (double)p->t0_us / 1e6, hi = (double)p->t1_us / 1e6;
	st_plot_fig *fig = st_plot_fig_new(1000, height);
	st_plot_axes *ax;
	char note[1024], title[256];

	if (!fig)
		return NULL;
	if (!(hi > lo))
		hi = lo + 1e-3;
	snprintf(title, sizeof(title), "System trace overview: %s%s",
		 base_of(st_systrace_dir(p->l->v[0])),
		 p->l->n > 1 ? " and more" : "");
	st_plot_fig_title(fig, title);
	weights[0] = calls_h;
	for (int i = 1; i < panels; i++)
		weights[i] = 130;
	st_plot_fig_row_weights(fig, weights, (size_t)panels);
	ax = st_plot_fig_grid(fig, panels, 1, row++, 0);
	/* none: said in the title, where the phases' labels leave room */
	st_plot_axes_title(ax, p->ndrawn ? "calls per process and kind" :
			   "calls per process and kind: none");
	st_plot_axes_xlim(ax, lo, hi);
	st_plot_axes_xclock(ax);
	phase_spans(p, ax, true);
	calls_panel(p, ax);
	if (!p->ndrawn)
		st_plot_axes_empty_text(ax, "");        /* said in the title */
	caption(p, note, sizeof(note));
	if (panels == 1)
		st_plot_axes_labels(ax, "time (UTC)", NULL);
	st_plot_fig_caption(fig, note);
	if (p->has_cpu) {
		/* %nice too: work under nice (shared nodes, cron) is busy */
		static const char *const m[CPU_METRICS] = { "%usr", "%nice",
							    "%sys", "%iowait" };
		static const uint32_t rgb[CPU_METRICS] = { 0x1f77b4, 0x2ca02c,
							   0xd62728, 0xff7f0e };

		ax = percent_panel(p, fig, panels, row++, lo, hi,
				   "CPU, all cores (mpstat)");
		for (size_t s = 0; s < p->l->n; s++)
			for (int k = 0; k < CPU_METRICS; k++) {
				char label[96];

				if (p->l->n > 1)
					snprintf(label, sizeof(label), "%s %s", m[k],
						 base_of(st_systrace_dir(p->l->v[s])));
				else
					snprintf(label, sizeof(label), "%s", m[k]);
				col_line(ax, p->cpu + (s * CPU_METRICS +
						      (size_t)k) *
					 ST_SYSPLOT_COLS, p->cpu_t + s *
					 ST_SYSPLOT_COLS, p->cpu_n + s *
					 ST_SYSPLOT_COLS, st_plot_hex(rgb[k], 1),
					 s == 0 || p->l->n > 1 ? label : NULL);
			}
		st_plot_axes_legend(ax, ST_PLOT_ABOVE);
	}
	for (int k = 0; p->has_gpu && k < 2; k++) {
		ax = percent_panel(p, fig, panels, row++, lo, hi, k == 0
				   ? "GPU sm % (pmon)" : "GPU memory % (pmon)");
		for (size_t g = 0; g < p->ngpu; g++) {
			char label[32];

			snprintf(label, sizeof(label), "gpu%zu", g);
			col_line(ax, p->gpu + (g * 2 + (size_t)k) *
				 ST_SYSPLOT_COLS, p->gpu_t + g * ST_SYSPLOT_COLS,
				 p->gpu_n + g * ST_SYSPLOT_COLS,
				 st_plot_hex(gpu_rgb[g % 10], 1), label);
		}
		st_plot_axes_legend(ax, ST_PLOT_ABOVE);
	}
	return fig;
}

static void plot_release(struct plot *p)
{
	for (size_t i = 0; i < p->ndrawn; i++) {
		free(p->drawn[i].x0);
		free(p->drawn[i].x1);
		free(p->drawn[i].busy);
		free(p->drawn[i].count);
	}
	free(p->drawn);
	free(p->rows);
	free(p->procs);
	st_pairmap_release(&p->map);
	free(p->cpu);
	free(p->cpu_t);
	free(p->cpu_n);
	free(p->gpu);
	free(p->gpu_t);
	free(p->gpu_n);
}

st_plot_fig *st_sysplot_figure(const st_systrace_list *l,
				const st_sysplot_opts *o,
				st_sysplot_result *res, st_error *err)
{
	struct plot p = { .l = l, .o = o, .res = res };
	st_plot_fig *fig = NULL;
	size_t nc = ST_SYSPLOT_COLS;

	memset(res, 0, sizeof(*res));
	if (read_calls(&p, false, err) < 0)
		goto out;
	for (size_t i = 0; i < l->n; i++)
		if (st_systrace_each_sample(l->v[i], range_sample, &p, err) < 0)
			goto out;
	if (!p.any) {
		st_error_set(err, ST_EXIT_DATAERR, "%s: nothing to draw: no "
			     "call%s and no CPU or GPU sample",
			     st_systrace_dir(l->v[0]),
			     o->filter && res->events ? " the filter keeps" : "");
		goto out;
	}
	if (p.t1_us <= p.t0_us)
		p.t1_us = p.t0_us + 1;
	if (make_rows(&p) < 0) {
		OOM(err);
		goto out;
	}
	if (res->calls && read_calls(&p, true, err) < 0)
		goto out;
	p.cpu = calloc(l->n * CPU_METRICS * nc, sizeof(*p.cpu));
	p.cpu_t = calloc(l->n * nc, sizeof(*p.cpu_t));
	p.cpu_n = calloc(l->n * nc, sizeof(*p.cpu_n));
	p.gpu = calloc((p.ngpu + 1) * 2 * nc, sizeof(*p.gpu));
	p.gpu_t = calloc((p.ngpu + 1) * nc, sizeof(*p.gpu_t));
	p.gpu_n = calloc((p.ngpu + 1) * nc, sizeof(*p.gpu_n));
	if (!p.cpu || !p.cpu_t || !p.cpu_n || !p.gpu || !p.gpu_t || !p.gpu_n) {
		OOM(err);
		goto out;
	}
	for (p.set_now = 0; p.set_now < l->n; p.set_now++)
		if (st_systrace_each_sample(l->v[p.set_now], add_sample, &p,
					    err) < 0)
			goto out;
	if (!(fig = build(&p)))
		OOM(err);
out:
	plot_release(&p);
	return fig;
}

int st_sysplot_write(const st_systrace_list *l, const st_sysplot_opts *o,
		     const char *out_dir, st_sysplot_result *res,
		     st_error *err)
{
	st_plot_fig *fig = st_sysplot_figure(l, o, res, err);
	const char *name = "systrace_overview";
	int rc;

	if (!fig)
		return -1;
	rc = st_plot_save_set((const st_plot_fig *const *)&fig, &name, 1,
			      out_dir, o->formats, &res->files, err);
	st_plot_fig_free(fig);
	return rc;
}

void st_sysplot_result_release(st_sysplot_result *res)
{
	if (!res)
		return;
	st_trace_inputs_free(NULL, 0, res->bad, res->n_bad);
	for (size_t i = 0; i < res->n_paths; i++)
		free(res->paths[i]);
	free(res->paths);
	memset(res, 0, sizeof(*res));
}
