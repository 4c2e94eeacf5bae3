/* trace_plot.c - `trace plot`'s figure of DFTracer traces (trace_plot.h):
 * a summary pass for the inputs and the axis, a second with bins for the
 * bandwidth, then one pass of our own for the lanes, the operations and
 * the distributions. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/num.h"
#include "streamtime/pairmap.h"
#include "streamtime/strtab.h"
#include "streamtime/sysplot.h"
#include "streamtime/time.h"
#include "streamtime/trace_plot.h"
#include "trace_int.h"

enum { C_READ, C_WRITE, C_OTHER, C_N };

static const uint32_t class_rgb[C_N] = { 0x1f77b4, 0xd62728, 0x7f7f7f };
static const char *const class_name[C_N] = { "read", "write", "other" };

/* A lane: a process or thread (or, after the pass, the units beyond the
 * row budget), its calls as bars or, past ST_SYSPLOT_BARS, columns. */
struct lane {
	uint32_t host;
	int64_t pid, tid;
	uint64_t calls;
	double *x0, *x1;             /* seconds */
	uint8_t *cls;
	size_t nbars, cap;
	double *busy;                /* ST_SYSPLOT_COLS, or NULL */
	uint32_t *count;
};

/* The values of a function's calls, log10. */
struct vals {
	float *v;
	size_t n, cap;
};

struct func {
	struct vals size, dur;
	uint64_t calls;
};

struct tplot {
	const st_trace_plot_opts *o;
	st_trace_plot_result *res;
	int64_t t0, t1, gran, b0;     /* axis (us); bins from b0 * gran */
	int64_t x0;                   /* the x axis' 0 (us): 0, a clock of
				       * UTC; t0 under RELATIVE_US, seconds
				       * since the first call */
	bool relative;
	size_t nb;
	double *rd, *wr, *ev;         /* per bin: bytes read, written, events */
	double *rops, *wops;          /* per bin: read and write calls */
	uint64_t reads, writes, unsized, zero_dur;
	st_strtab hosts, names;
	st_pairids units;             /* (host, pid) or (proc id, tid) */
	st_pairids procs;
	struct lane *lanes;
	size_t nlanes, lanes_cap;
	struct func *funcs;           /* by names id */
	size_t funcs_cap;
	struct lane other;            /* units beyond the row budget */
};

/* An axis shorter than this is in seconds since its start: a clock's
 * ticks are at least a tenth of a second apart. */
#define RELATIVE_US 2000000

/* The x of the instant US (seconds). */
static double xs(const struct tplot *p, int64_t us)
{
	return (double)(us - p->x0) / 1e6;
}

/* ---- the pass ----------------------------------------------------------- */

static int vals_add(struct vals *v, double x)
{
	if (ST_GROW(v->v, v->n, v->cap, 64) < 0)
		return -1;
	v->v[v->n++] = (float)log10(x);
	return 0;
}

/* L's bars into columns: from here on L counts busy share. */
static int lane_dense(struct tplot *p, struct lane *l)
{
	if (!(l->busy = calloc(ST_SYSPLOT_COLS, sizeof(*l->busy))) ||
	    !(l->count = calloc(ST_SYSPLOT_COLS, sizeof(*l->count))))
		return -1;
	for (size_t i = 0; i < l->nbars; i++)
		st_sysplot_bin(l->busy, l->count, ST_SYSPLOT_COLS,
			       xs(p, p->t0), xs(p, p->t1), l->x0[i], l->x1[i]);
	free(l->x0);
	free(l->x1);
	free(l->cls);
	l->x0 = l->x1 = NULL;
	l->cls = NULL;
	l->nbars = l->cap = 0;
	return 0;
}

/* The call [S, E) of class C into lane L. */
static int lane_add(struct tplot *p, struct lane *l, double s, double e,
		    int c)
{
	l->calls++;
	if (!l->busy && l->calls > ST_SYSPLOT_BARS && lane_dense(p, l) < 0)
		return -1;
	if (l->busy) {
		st_sysplot_bin(l->busy, l->count, ST_SYSPLOT_COLS,
			       xs(p, p->t0), xs(p, p->t1), s, e);
		return 0;
	}
	if (l->nbars == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		double *a = realloc(l->x0, cap * sizeof(*a));
		double *b = a ? realloc(l->x1, cap * sizeof(*b)) : NULL;
		uint8_t *k = b ? realloc(l->cls, cap) : NULL;

		if (a)
			l->x0 = a;
		if (b)
			l->x1 = b;
		if (!k)
			return -1;
		l->cls = k;
		l->cap = cap;
	}
	l->x0[l->nbars] = s;
	l->x1[l->nbars] = e;
	l->cls[l->nbars++] = (uint8_t)c;
	return 0;
}

/* The lane of EV (host string H), new when first seen; NULL on OOM. */
static struct lane *lane_of(struct tplot *p, const char *h, size_t hlen,
			    const st_pfw_event *ev)
{
	bool added;
	int64_t host = st_strtab_intern(&p->hosts, h, hlen, &added);
	int64_t proc, id;

	if (host < 0 || (proc = st_pairids_get(&p->procs, (uint64_t)host,
					       (uint64_t)ev->pid, &added)) < 0 ||
	    (id = st_pairids_get(&p->units, (uint64_t)proc, p->o->per_thread ?
				 (uint64_t)ev->tid : 0, &added)) < 0)
		return NULL;
	if (added) {
		if (ST_GROW(p->lanes, p->nlanes, p->lanes_cap, 16) < 0)
			return NULL;
		memset(&p->lanes[p->nlanes], 0, sizeof(*p->lanes));
		p->lanes[p->nlanes].host = (uint32_t)host;
		p->lanes[p->nlanes].pid = ev->pid;
		p->lanes[p->nlanes++].tid = p->o->per_thread ? ev->tid : 0;
	}
	return &p->lanes[id];
}

/* The function of name N (new, zeroed, when first seen); NULL on OOM. */
static struct func *func_of(struct tplot *p, const char *n, size_t len)
{
	bool added;
	int64_t id = st_strtab_intern(&p->names, n, len, &added);

	if (id < 0)
		return NULL;
	if (added) {
		if (ST_GROW(p->funcs, (size_t)id, p->funcs_cap, 64) < 0)
			return NULL;
		memset(&p->funcs[id], 0, sizeof(*p->funcs));
	}
	return &p->funcs[id];
}

/* One kept event of R into P.  0, or -1 out of memory. */
static int take(struct tplot *p, const st_pfw_reader *r,
		const st_pfw_event *ev)
{
	size_t nlen, hlen = 0;
	const char *name = st_pfw_str(r, ev->name, &nlen);
	const char *h = ev->host == ST_PFW_NONE ? ""
			: st_pfw_str(r, ev->host, &hlen);
	int rw = trace_name_rw(name, nlen);
	int c = rw == 1 ? C_READ : rw == 2 ? C_WRITE : C_OTHER;
	struct lane *l = lane_of(p, h, hlen, ev);
	struct func *f = func_of(p, name, nlen);
	int64_t b = st_floor_div(ev->ts, p->gran) - p->b0;

	if (!l || !f || lane_add(p, l, xs(p, ev->ts), xs(p, ev->ts + ev->dur),
				 c) < 0)
		return -1;
	f->calls++;
	if (ev->bytes <= 0)
		p->unsized++;
	else if (vals_add(&f->size, (double)ev->bytes) < 0)
		return -1;
	if (ev->dur <= 0)
		p->zero_dur++;
	else if (vals_add(&f->dur, (double)ev->dur) < 0)
		return -1;
	if (b >= 0 && (size_t)b < p->nb && c != C_OTHER) {
		(c == C_READ ? p->rops : p->wops)[b] += 1;
		(*(c == C_READ ? &p->reads : &p->writes))++;
	}
	return 0;
}

static int read_file(struct tplot *p, const char *path, st_error *err)
{
	st_pfw_reader *r = trace_open(p->o->src, path, false, err);
	st_pfw_event ev;
	struct rmap m;
	int rc;

	if (!r)
		return -1;
	trace_rmap_init(&m, p->o->filter);
	while ((rc = st_pfw_next(r, &ev, err)) > 0) {
		int pass = 1;

		if (rc == ST_PFW_BAD)
			continue;
		if (p->o->filter &&
		    (pass = trace_rmap_pass(&m, r, p->o->filter, &ev, err)) < 0)
			break;
		if (pass && take(p, r, &ev) < 0) {
			rc = OOM(err);
			break;
		}
	}
	trace_rmap_release(&m);
	st_pfw_close(r);
	if (rc < 0) {
		st_error_prefix(err, "%s", path);
		return -1;
	}
	return 0;
}

/* ---- the bins ------------------------------------------------------------ */

/* A round width (1, 2 or 5 times a power of ten microseconds) that cuts
 * SPAN_US into about ST_TRACE_PLOT_BINS bins. */
static int64_t round_width(int64_t span_us)
{
	double w = st_plot_nice_step((double)span_us, ST_TRACE_PLOT_BINS);

	return w < 1 ? 1 : (int64_t)llround(w);
}

/* The bins of S (the summary with bins of P->gran) into P's arrays. */
static int take_bins(struct tplot *p, const st_trace_summary *s)
{
	p->b0 = st_floor_div(p->t0, p->gran);
	p->nb = (size_t)(st_floor_div(p->t1 - 1 > p->t0 ? p->t1 - 1 : p->t0,
				      p->gran) - p->b0 + 1);
	if (!(p->rd = calloc(p->nb, sizeof(double))) ||
	    !(p->wr = calloc(p->nb, sizeof(double))) ||
	    !(p->ev = calloc(p->nb, sizeof(double))) ||
	    !(p->rops = calloc(p->nb, sizeof(double))) ||
	    !(p->wops = calloc(p->nb, sizeof(double))))
		return -1;
	for (size_t i = 0; i < s->n_bins; i++) {
		int64_t b = s->bins[i].start_us / p->gran - p->b0;

		if (b < 0 || (size_t)b >= p->nb)
			continue;
		p->rd[b] += (double)s->bins[i].bytes_read;
		p->wr[b] += (double)s->bins[i].bytes_written;
		p->ev[b] += (double)s->bins[i].events;
		p->res->bytes_read += s->bins[i].bytes_read;
		p->res->bytes_written += s->bins[i].bytes_written;
	}
	return 0;
}

/* ---- the lanes' rows ------------------------------------------------------ */

static int cmp_calls(const void *x, const void *y)
{
	const struct lane *a = x, *b = y;

	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid ? 1
	       : a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int cmp_unit(const void *x, const void *y, void *ctx)
{
	const struct lane *a = x, *b = y;
	const st_strtab *h = ctx;
	int c = strcmp(st_strtab_str(h, a->host, NULL),
		       st_strtab_str(h, b->host, NULL));

	if (c)
		return c;
	return a->pid < b->pid ? -1 : a->pid > b->pid ? 1
	       : a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* At most ST_SYSPLOT_ROWS rows: the busiest units keep theirs, the rest
 * go into P->other; the kept ones in order of host, pid, tid. */
static int bound_lanes(struct tplot *p)
{
	size_t keep = p->nlanes;

	if (p->nlanes > ST_SYSPLOT_ROWS) {
		keep = ST_SYSPLOT_ROWS - 1;
		qsort(p->lanes, p->nlanes, sizeof(*p->lanes), cmp_calls);
		for (size_t i = keep; i < p->nlanes; i++) {
			struct lane *l = &p->lanes[i];

			for (size_t k = 0; k < l->nbars; k++)
				if (lane_add(p, &p->other, l->x0[k], l->x1[k],
					     l->cls[k]) < 0)
					return -1;
			if (l->busy && !p->other.busy &&
			    lane_dense(p, &p->other) < 0)
				return -1;
			for (size_t c = 0; l->busy && c < ST_SYSPLOT_COLS; c++) {
				p->other.busy[c] += l->busy[c];
				p->other.count[c] += l->count[c];
			}
			if (l->busy)
				p->other.calls += l->calls;
			p->res->other_units++;
		}
	}
	qsort_r(p->lanes, keep, sizeof(*p->lanes), cmp_unit, &p->hosts);
	p->res->lanes = keep + (p->res->other_units ? 1 : 0);
	return 0;
}

/* ---- the figure ------------------------------------------------------------ */

static void lane_label(const struct tplot *p, const struct lane *l,
		       char *buf, size_t size)
{
	const char *h = st_strtab_str(&p->hosts, l->host, NULL);

	if (l == &p->other)
		snprintf(buf, size, "other %s (%zu)", p->o->per_thread ?
			 "threads" : "processes", p->res->other_units);
	else if (p->o->per_thread)
		snprintf(buf, size, "%.24s%s%" PRId64 ":%" PRId64, h,
			 *h ? " " : "", l->pid, l->tid);
	else
		snprintf(buf, size, "%.24s%spid %" PRId64, h, *h ? " " : "",
			 l->pid);
}

/* The lane of row I: the units kept, then the others' row. */
static const struct lane *row_lane(const struct tplot *p, size_t i)
{
	return p->res->other_units && i + 1 == p->res->lanes ? &p->other
							    : &p->lanes[i];
}

/* The bars of class C of every row as one series. */
static void class_bars(const struct tplot *p, st_plot_axes *ax, int c)
{
	size_t all = 0, m = 0;
	double *x0, *x1, *y;

	for (size_t i = 0; i < p->res->lanes; i++)
		all += row_lane(p, i)->nbars;
	x0 = malloc((all + 1) * sizeof(*x0));
	x1 = malloc((all + 1) * sizeof(*x1));
	y = malloc((all + 1) * sizeof(*y));
	for (size_t i = 0; x0 && x1 && y && i < p->res->lanes; i++) {
		const struct lane *l = row_lane(p, i);

		for (size_t k = 0; k < l->nbars; k++)
			if (l->cls[k] == c) {
				x0[m] = l->x0[k];
				x1[m] = l->x1[k];
				y[m++] = (double)i;
			}
	}
	if (x0 && x1 && y)
		st_plot_hbars(ax, x0, x1, y, m, 0.7,
			      st_plot_hex(class_rgb[c], 1), class_name[c]);
	free(x0);
	free(x1);
	free(y);
}

static void lanes_panel(struct tplot *p, st_plot_axes *ax)
{
	size_t n = p->res->lanes;
	char **names = calloc(n + 1, sizeof(*names));

	if (!names)
		return;
	st_plot_axes_yinvert(ax);
	st_plot_axes_ylim(ax, -0.5, (double)n - 0.5);
	for (int c = 0; c < C_N; c++)
		class_bars(p, ax, c);
	for (size_t i = 0; i < n; i++) {
		const struct lane *l = row_lane(p, i);
		char buf[96];

		lane_label(p, l, buf, sizeof(buf));
		names[i] = strdup(buf);
		if (l->busy) {
			st_sysplot_busy_bars(ax, l->busy, l->count,
					     xs(p, p->t0), xs(p, p->t1),
					     (double)i, st_plot_hex(0x4c566a, 1));
			p->res->dense_lanes++;
		}
	}
	st_plot_axes_ycategories(ax, (const char *const *)names, n);
	st_plot_axes_legend(ax, ST_PLOT_ABOVE);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int cmp_func(const void *x, const void *y, void *ctx)
{
	const struct func *f = ctx;
	const size_t a = *(const size_t *)x, b = *(const size_t *)y;

	if (f[a].calls != f[b].calls)
		return f[a].calls > f[b].calls ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* A box per function of ORDER (the most calls first) that has values of
 * KIND (0 sizes, 1 durations), at most ST_TRACE_PLOT_FUNCS; how many
 * functions with values are left out. */
static size_t dist_panel(const struct tplot *p, st_plot_axes *ax,
			 const size_t *order, int kind)
{
	const char *names[ST_TRACE_PLOT_FUNCS] = { NULL };
	char bufs[ST_TRACE_PLOT_FUNCS][40];
	size_t shown = 0, left = 0;

	for (size_t k = 0; k < p->names.n; k++) {
		const struct func *f = &p->funcs[order[k]];
		const struct vals *v = kind ? &f->dur : &f->size;
		double *d;

		if (!v->n)
			continue;
		if (shown == ST_TRACE_PLOT_FUNCS) {
			left++;
			continue;
		}
		if (!(d = malloc(v->n * sizeof(*d))))
			continue;
		for (size_t i = 0; i < v->n; i++)
			d[i] = v->v[i];
		st_plot_box(ax, (double)shown, d, v->n, 0.6,
			    st_plot_hex(kind ? 0x2ca02c : 0x9467bd, 1), NULL);
		free(d);
		snprintf(bufs[shown], sizeof(bufs[shown]), "%.16s (%zu)",
			 st_strtab_str(&p->names, (uint32_t)order[k], NULL),
			 v->n);
		names[shown] = bufs[shown];
		shown++;
	}
	st_plot_axes_xcategories(ax, names, shown);
	st_plot_axes_ylog10(ax);
	if (!shown)
		st_plot_axes_empty_text(ax, kind ? "no call of more than 0 us"
					: "no call with bytes");
	return left;
}

/* The peak of V[0..N) over W seconds, and its bin. */
static double peak(const double *v, size_t n, double w)
{
	double m = 0;

	for (size_t i = 0; i < n; i++)
		m = fmax(m, v[i] / w);
	return m;
}

static void rate_panel(const struct tplot *p, st_plot_axes *ax,
		       const double *const *v, const char *const *label,
		       const uint32_t *rgb, size_t nv, double scale)
{
	double w = (double)p->gran / 1e6;
	double *x = malloc((p->nb + 1) * sizeof(*x));
	double *y = malloc((p->nb + 1) * sizeof(*y));

	for (size_t k = 0; x && y && k < nv; k++) {
		for (size_t i = 0; i < p->nb; i++) {
			x[i] = xs(p, (p->b0 + (int64_t)i) * p->gran) + w / 2;
			y[i] = v[k][i] / w / scale;
		}
		st_plot_line(ax, x, y, p->nb, st_plot_hex(rgb[k], 1), 1.3,
			     label[k]);
		if (p->nb <= 120)
			st_plot_points(ax, x, y, p->nb, st_plot_hex(rgb[k], 1),
				       1.8, NULL);
	}
	free(x);
	free(y);
	st_plot_axes_legend(ax, ST_PLOT_ABOVE);
}

static void caption(const struct tplot *p, size_t sizes_left,
		    size_t durs_left, char *buf, size_t size)
{
	char a[48], b[48];
	double w = (double)p->gran / 1e6;
	size_t off;

	st_time_format_utc(p->t0 * 1000, a, sizeof(a));
	st_time_format_utc(p->t1 * 1000, b, sizeof(b));
	off = (size_t)snprintf(buf, size, "time axis (UTC): %s to %s; bins of "
			       "%" PRId64 " us, by each call's start\n"
			       "read: %" PRId64 " bytes in %" PRIu64 " calls, "
			       "peak %.6g B/s; write: %" PRId64 " bytes in %"
			       PRIu64 " calls, peak %.6g B/s\n", a, b, p->gran,
			       p->res->bytes_read, p->reads,
			       peak(p->rd, p->nb, w), p->res->bytes_written,
			       p->writes, peak(p->wr, p->nb, w));
	if (off < size)
		off += (size_t)snprintf(buf + off, size - off, "lanes: %zu %s"
					"%s; rows of over %d calls: busy share "
					"per 1/%d of the axis\n",
					p->nlanes, p->o->per_thread ?
					(p->nlanes == 1 ? "thread" : "threads") :
					(p->nlanes == 1 ? "process" :
					 "processes"),
					p->res->other_units ? ", the least busy "
					"sharing the last row" : "",
					ST_SYSPLOT_BARS, ST_SYSPLOT_COLS);
	if (off < size)
		snprintf(buf + off, size - off, "sizes and durations: box plots "
			 "of log10 (box: quartiles, whiskers: 1.5 IQR); %" PRIu64
			 " calls without bytes, %" PRIu64 " of 0 us left out; "
			 "functions not shown: %zu of sizes, %zu of "
			 "durations", p->unsized,
			 p->zero_dur, sizes_left, durs_left);
}

/* AX's x axis from LO to HI: a UTC clock, or seconds since the start. */
static void time_axis(const struct tplot *p, st_plot_axes *ax, double lo,
		      double hi)
{
	st_plot_axes_xlim(ax, lo, hi);
	if (!p->relative)
		st_plot_axes_xclock(ax);
}

static st_plot_fig *build(struct tplot *p)
{
	double lanes_h = 60 + 15.0 * (double)(p->res->lanes + 1);
	double wts[5] = { 170, 150, lanes_h, 200, 200 };
	double height = 40 + 170 + 150 + lanes_h + 400 + 70;
	double lo = xs(p, p->t0), hi = xs(p, p->t1);
	st_plot_fig *fig = st_plot_fig_new(1000, height);
	size_t *order = calloc(p->names.n + 1, sizeof(*order));
	double peak_b;
	double scale = 1;
	const char *unit = "B/s";
	char title[80], ylab[32], xlab[80], cap[1024];
	st_plot_axes *ax;
	size_t sl, dl;

	if (!fig || !order) {
		st_plot_fig_free(fig);
		free(order);
		return NULL;
	}
	if (!(hi > lo))
		hi = lo + 1e-3;
	st_plot_fig_title(fig, "DFTracer trace overview");
	st_plot_fig_row_weights(fig, wts, 5);
	peak_b = fmax(peak(p->rd, p->nb, (double)p->gran / 1e6),
		      peak(p->wr, p->nb, (double)p->gran / 1e6));
	for (const char *u = "KiB/s\0MiB/s\0GiB/s\0TiB/s\0"; *u &&
	     peak_b >= 1024 * scale; u += strlen(u) + 1) {
		scale *= 1024;
		unit = u;
	}
	ax = st_plot_fig_grid(fig, 5, 1, 0, 0);
	st_plot_axes_title(ax, "read and write bandwidth");
	snprintf(ylab, sizeof(ylab), "%s", unit);
	st_plot_axes_labels(ax, NULL, ylab);
	time_axis(p, ax, lo, hi);
	rate_panel(p, ax, (const double *const[]){ p->rd, p->wr },
		   (const char *const[]){ "read", "write" },
		   (const uint32_t[]){ class_rgb[0], class_rgb[1] }, 2, scale);
	ax = st_plot_fig_grid(fig, 5, 1, 1, 0);
	st_plot_axes_title(ax, "operations per second");
	st_plot_axes_labels(ax, NULL, "calls/s");
	time_axis(p, ax, lo, hi);
	rate_panel(p, ax, (const double *const[]){ p->rops, p->wops, p->ev },
		   (const char *const[]){ "read", "write", "all calls" },
		   (const uint32_t[]){ class_rgb[0], class_rgb[1], 0x2f2f2f },
		   3, 1);
	ax = st_plot_fig_grid(fig, 5, 1, 2, 0);
	snprintf(title, sizeof(title), "busy lanes per %s",
		 p->o->per_thread ? "thread" : "process");
	st_plot_axes_title(ax, title);
	if (p->relative) {
		char t[48];

		st_time_format_utc(p->x0 * 1000, t, sizeof(t));
		snprintf(xlab, sizeof(xlab), "seconds since %s", t);
	}
	st_plot_axes_labels(ax, p->relative ? xlab : "time (UTC)", NULL);
	time_axis(p, ax, lo, hi);
	lanes_panel(p, ax);
	for (size_t i = 0; i < p->names.n; i++)
		order[i] = i;
	qsort_r(order, p->names.n, sizeof(*order), cmp_func, p->funcs);
	ax = st_plot_fig_grid(fig, 5, 1, 3, 0);
	st_plot_axes_title(ax, "call size per function (calls with bytes)");
	st_plot_axes_labels(ax, NULL, "bytes");
	sl = dist_panel(p, ax, order, 0);
	ax = st_plot_fig_grid(fig, 5, 1, 4, 0);
	st_plot_axes_title(ax, "call duration per function");
	st_plot_axes_labels(ax, NULL, "us");
	dl = dist_panel(p, ax, order, 1);
	p->res->funcs_left = sl > dl ? sl : dl;
	caption(p, sl, dl, cap, sizeof(cap));
	st_plot_fig_caption(fig, cap);
	free(order);
	return fig;
}

/* ---- entry points ------------------------------------------------------------ */

static void opts_of(const st_trace_plot_opts *o, st_trace_opts *so)
{
	memset(so, 0, sizeof(*so));
	so->filter = o->filter;
	so->src = o->src;
	so->no_overlap = true;
	so->jobs = o->jobs;
	so->max_bad = o->max_bad;
}

int st_trace_plot_scan(const char *const *paths, size_t n,
		       const st_trace_plot_opts *o, st_trace_plot_result *res,
		       st_error *err)
{
	st_trace_opts so;

	memset(res, 0, sizeof(*res));
	opts_of(o, &so);
	return st_trace_summarize(paths, n, &so, &res->s, err);
}

static void tplot_release(struct tplot *p)
{
	struct lane *all[2] = { p->lanes, &p->other };

	for (size_t i = 0; i < p->nlanes + 1; i++) {
		struct lane *l = i < p->nlanes ? &all[0][i] : all[1];

		free(l->x0);
		free(l->x1);
		free(l->cls);
		free(l->busy);
		free(l->count);
	}
	free(p->lanes);
	for (size_t i = 0; i < p->names.n; i++) {
		free(p->funcs[i].size.v);
		free(p->funcs[i].dur.v);
	}
	free(p->funcs);
	st_strtab_release(&p->hosts);
	st_strtab_release(&p->names);
	st_pairids_release(&p->units);
	st_pairids_release(&p->procs);
	free(p->rd);
	free(p->wr);
	free(p->ev);
	free(p->rops);
	free(p->wops);
}

st_plot_fig *st_trace_plot_figure(const char *const *paths, size_t n,
				  const st_trace_plot_opts *o,
				  st_trace_plot_result *res, st_error *err)
{
	struct tplot p = { .o = o, .res = res };
	st_trace_summary bs = { 0 };
	st_trace_opts so;
	st_plot_fig *fig = NULL;

	if (!res->s.events) {
		st_error_set(err, ST_EXIT_DATAERR, "nothing to draw: no event%s",
			     o->filter ? " the filter keeps" : "");
		return NULL;
	}
	st_strtab_init(&p.hosts);
	st_strtab_init(&p.names);
	p.t0 = res->s.first_us;
	p.t1 = res->s.end_us > p.t0 ? res->s.end_us : p.t0 + 1;
	p.relative = p.t1 - p.t0 < RELATIVE_US;
	p.x0 = p.relative ? p.t0 : 0;
	p.gran = res->granularity_us = o->granularity_us > 0 ? o->granularity_us
				       : round_width(p.t1 - p.t0);
	if ((p.t1 - 1 - p.t0) / p.gran >= ST_TRACE_MAX_BINS) {
		st_error_set(err, ST_EXIT_USAGE, "--time-granularity %" PRId64
			     " makes more than %d bins across the axis", p.gran,
			     ST_TRACE_MAX_BINS);
		goto out;
	}
	opts_of(o, &so);
	so.granularity_us = p.gran;
	if (st_trace_summarize(paths, n, &so, &bs, err) < 0)
		goto out;
	if (take_bins(&p, &bs) < 0) {
		OOM(err);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (read_file(&p, paths[i], err) < 0)
			goto out;
	if (bound_lanes(&p) < 0 || !(fig = build(&p)))
		OOM(err);
out:
	st_trace_summary_release(&bs);
	tplot_release(&p);
	return fig;
}

int st_trace_plot_write(const char *const *paths, size_t n,
			const st_trace_plot_opts *o,
			const st_systrace_list *sets,
			const st_sysplot_opts *so, const char *out_dir,
			unsigned formats, st_trace_plot_result *res,
			st_sysplot_result *sres, size_t *files, st_error *err)
{
	st_plot_fig *figs[2] = { NULL, NULL };
	const char *names[2] = { "trace_overview", "systrace_overview" };
	size_t nf = 1;
	int rc = -1;

	if (!(figs[0] = st_trace_plot_figure(paths, n, o, res, err)))
		return -1;
	if (sets && sets->n && !(figs[nf++] = st_sysplot_figure(sets, so, sres,
							       err)))
		goto out;
	rc = st_plot_save_set((const st_plot_fig *const *)figs, names, nf,
			      out_dir, formats, files, err);
out:
	st_plot_fig_free(figs[0]);
	st_plot_fig_free(figs[1]);
	return rc;
}

void st_trace_plot_result_release(st_trace_plot_result *res)
{
	if (!res)
		return;
	st_trace_summary_release(&res->s);
	memset(res, 0, sizeof(*res));
}
