/* figures.c - the figures of `streamtime plot` (see figures.h).
 *
 * Every value is computed as `stats` computes it (SPEC 5.7): file-transfer
 * time = Elapsed + offload_time(size) - 2 x (Real - Blank mean save_time)
 * through st_transfer_job_times(), streaming time = time_difference_seconds,
 * queue time = Start - Submit with naive times in slurm_tz, outliers by the
 * 1.5 IQR rule of stats.h.  All inputs are read and all figures built
 * before anything is written.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "streamtime/analysis.h"
#include "streamtime/atomic.h"
#include "streamtime/csv.h"
#include "streamtime/figures.h"
#include "streamtime/num.h"
#include "streamtime/stats.h"
#include "streamtime/time.h"
#include "streamtime/tz.h"

#define RED 0xBB0700u      /* file transfer, as in the paper */
#define BLUE 0x0762CFu     /* streaming */
#define QUEUE_GREY 0x9A9A9Au

/* Sizes are told apart by colour (ColorBrewer Dark2). */
static const uint32_t size_colors[] = {
	0x1B9E77, 0xD95F02, 0x7570B3, 0xE7298A, 0x66A61E, 0xE6AB02,
};

static st_plot_rgba size_color(size_t i)
{
	return st_plot_hex(size_colors[i % (sizeof(size_colors) /
					    sizeof(size_colors[0]))], 1.0);
}

/* ---- the data ----------------------------------------------------------- */

struct size_data {
	int64_t size;
	char name[48];                /* "128×128" */
	double *ft;                   /* file-transfer time of every job */
	size_t nft;
	double *st;                   /* streaming time of every scan */
	st_instant *created, *written;
	size_t nst;
};

struct job {
	size_t order;                 /* index among the sizes, or nsizes */
	st_instant submit, start, end;
	bool has_end;
};

struct data {
	struct size_data *sizes;
	size_t nsizes;
	struct job *jobs;             /* jobs that started, in file order */
	size_t njobs;
	const st_tz *tz;              /* slurm_tz */
	const char *tzname;
	const st_tz *stz;             /* tz: naive streaming times */
	const char *acq, *compute;    /* the sites' names */
};

static void data_release(struct data *d)
{
	for (size_t i = 0; i < d->nsizes; i++) {
		free(d->sizes[i].ft);
		free(d->sizes[i].st);
		free(d->sizes[i].created);
		free(d->sizes[i].written);
	}
	free(d->sizes);
	free(d->jobs);
}

static int oom(st_error *err)
{
	return st_error_set(err, ST_EXIT_IOERR, "out of memory");
}

/* Read DIR/SUB/NAME into T. */
static int read_table(st_table *t, const char *dir, const char *sub,
		      const char *name, st_error *err)
{
	char *d = st_path_join(dir, sub), *p = d ? st_path_join(d, name) : NULL;
	int rc;

	if (!p) {
		free(d);
		return oom(err);
	}
	rc = st_table_read(t, p, err);
	free(d);
	free(p);
	return rc;
}

/* The offload time of SIZE in OFFLOAD into *OUT, NaN when it has none.
 * Returns 0, or -1 with ERR set (a missing column, a bad cell). */
static int offload_time(const st_table *offload, int64_t size, double *out,
			st_error *err)
{
	static const char *const need[] = { "size", "offload_time" };
	int c[2];

	*out = NAN;
	if (st_table_require(offload, need, c, 2, err) < 0)
		return -1;
	for (size_t r = 0; r < offload->nrows; r++) {
		int64_t s;

		if (st_table_get_int(offload, r, c[0], &s, err) < 0)
			return -1;
		if (s == size)
			return st_table_get_double(offload, r, c[1], out, err);
	}
	return 0;
}

/* Streaming times and instants of one size from its streaming_times file. */
static int load_streaming(struct size_data *sd, const st_table *t,
			  const st_tz *stz, st_error *err)
{
	static const char *const need[] = {
		"time_difference_seconds", "ncem_created_time", "nersc_write_time" };
	int c[3];
	size_t n = t->nrows + 1;

	if (st_table_require(t, need, c, 3, err) < 0)
		return -1;
	sd->st = malloc(n * sizeof(*sd->st));
	sd->created = malloc(n * sizeof(*sd->created));
	sd->written = malloc(n * sizeof(*sd->written));
	if (!sd->st || !sd->created || !sd->written)
		return oom(err);
	for (size_t r = 0; r < t->nrows; r++) {
		if (st_table_get_double(t, r, c[0], &sd->st[r], err) < 0 ||
		    st_table_get_time(t, r, c[1], stz, &sd->created[r], err) < 0 ||
		    st_table_get_time(t, r, c[2], stz, &sd->written[r], err) < 0)
			return -1;
	}
	sd->nst = t->nrows;
	return 0;
}

/* The jobs of MERGED that have a Submit and a Start (stats queue's rule). */
static int load_jobs(struct data *d, const st_table *merged, st_error *err)
{
	static const char *const need[] = { "size", "Submit", "Start", "End" };
	int c[4];

	if (st_table_require(merged, need, c, 4, err) < 0)
		return -1;
	d->jobs = malloc((merged->nrows + 1) * sizeof(*d->jobs));
	if (!d->jobs)
		return oom(err);
	for (size_t r = 0; r < merged->nrows; r++) {
		struct job *j = &d->jobs[d->njobs];
		const char *end = st_table_get(merged, r, c[3]);
		int64_t size;

		if (st_table_get_int(merged, r, c[0], &size, err) < 0)
			return -1;
		if (st_time_unset(st_table_get(merged, r, c[1])) ||
		    st_time_unset(st_table_get(merged, r, c[2])))
			continue;
		if (st_table_get_time(merged, r, c[1], d->tz, &j->submit, err) < 0 ||
		    st_table_get_time(merged, r, c[2], d->tz, &j->start, err) < 0)
			return -1;
		j->has_end = !st_time_unset(end);
		if (j->has_end && st_table_get_time(merged, r, c[3], d->tz, &j->end, err) < 0)
			return -1;
		j->order = d->nsizes;
		for (size_t i = 0; i < d->nsizes; i++)
			if (d->sizes[i].size == size)
				j->order = i;
		d->njobs++;
	}
	return 0;
}

/* Read every input into D.  Files are read before any is parsed, so a
 * missing file is reported before a bad one. */
static int load(const st_figures_input *in, const st_tz *tz, struct data *d,
		st_error *err)
{
	st_table merged, offload, save, *stream = NULL;
	const st_experiments *ex = in->ex;
	int rc = -1;

	st_table_init(&merged);
	st_table_init(&offload);
	st_table_init(&save);
	d->tz = tz;
	d->sizes = calloc(ex->n + 1, sizeof(*d->sizes));
	stream = calloc(ex->n + 1, sizeof(*stream));
	if (!d->sizes || !stream) {
		oom(err);
		goto out;
	}
	d->nsizes = ex->n;
	for (size_t i = 0; i < ex->n; i++)
		st_table_init(&stream[i]);
	if (read_table(&merged, in->results, "file_transfer",
		       "merged_job_info.csv", err) < 0 ||
	    read_table(&offload, in->results, "file_transfer",
		       "ncem_offload_times.csv", err) < 0 ||
	    (in->save_stats ? st_table_read(&save, in->save_stats, err) :
	     read_table(&save, in->data, "file_transfer", "save_time_stats.csv",
			err)) < 0)
		goto out;
	for (size_t i = 0; i < ex->n; i++) {
		char name[64];

		snprintf(name, sizeof(name), "streaming_times_%" PRId64 ".csv",
			 ex->v[i].size);
		if (read_table(&stream[i], in->results, "streaming", name, err) < 0)
			goto out;
	}
	for (size_t i = 0; i < ex->n; i++) {
		struct size_data *sd = &d->sizes[i];
		double off;

		sd->size = ex->v[i].size;
		snprintf(sd->name, sizeof(sd->name), "%" PRId64 "\xc3\x97%" PRId64,
			 sd->size, sd->size);
		sd->ft = malloc((merged.nrows + 1) * sizeof(*sd->ft));
		if (!sd->ft) {
			oom(err);
			goto out;
		}
		if (offload_time(&offload, sd->size, &off, err) < 0 ||
		    st_transfer_job_times(&merged, &save, sd->size, off, sd->ft,
					  &sd->nft, err) < 0)
			goto out;
		if (sd->nft && isnan(off)) {
			st_error_set(err, ST_EXIT_DATAERR, "%s: no offload time for "
				     "size %" PRId64, offload.name, sd->size);
			goto out;
		}
		if (load_streaming(sd, &stream[i], d->stz, err) < 0)
			goto out;
	}
	rc = load_jobs(d, &merged, err);
out:
	for (size_t i = 0; stream && i < ex->n; i++)
		st_table_release(&stream[i]);
	free(stream);
	st_table_release(&merged);
	st_table_release(&offload);
	st_table_release(&save);
	return rc;
}

/* ---- helpers ------------------------------------------------------------ */

/* The values of V that are not outliers, in a new array (*K of them). */
static double *without_outliers(const double *v, size_t n, size_t *k)
{
	double *out = malloc((n + 1) * sizeof(*out));

	if (!out)
		return NULL;
	*k = st_stats_remove_outliers(v, n, out);
	if (*k == (size_t)-1) {
		free(out);
		return NULL;
	}
	return out;
}

static bool all_integral(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] != floor(v[i]))
			return false;
	return true;
}

/* "1 job", "2 jobs": ONE or MANY by N. */
static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* V rounded up to a nice step of about a fifth of it. */
static double nice_ceil(double v)
{
	double step = st_plot_nice_step(v, 5);

	return v > 0 ? ceil(v / step - 1e-9) * step : 1.0;
}

#define MAX_BINS 10000

/* Histogram bins covering [LO, HI], about TARGET of them, of a nice width:
 * their outer edges in *ELO and *EHI, their count returned.  INTEGRAL data
 * (whole seconds) whose width would be <= 1 gets 1-wide bins centred on
 * the whole numbers.  A span that is not finite (values near DBL_MAX)
 * gets one bin; one too wide for the step is cut into MAX_BINS bins. */
static size_t bins_for(double lo, double hi, int target, bool integral,
		       double *elo, double *ehi)
{
	double w = st_plot_nice_step(hi - lo, target), n;

	if (!isfinite(lo) || !isfinite(hi) || !isfinite(hi - lo) ||
	    !isfinite(w) || !(w > 0)) {
		*elo = isfinite(lo) ? lo : -1.0;
		*ehi = isfinite(hi) && hi > *elo ? hi : *elo + 1.0;
		return 1;
	}
	if (integral && w <= 1) {
		*elo = floor(lo) - 0.5;
		*ehi = ceil(hi) + 0.5;
	} else {
		*elo = floor(lo / w) * w;
		*ehi = ceil(hi / w) * w;
		if (!(*ehi > *elo))
			*ehi = *elo + w;
	}
	n = integral && w <= 1 ? *ehi - *elo : (*ehi - *elo) / w;
	if (!(n >= 1))
		return 1;
	return n > MAX_BINS ? MAX_BINS : (size_t)lround(n);
}

/* A histogram of the N values V with bins [LO, HI] / NBINS on AX. */
static void hist(st_plot_axes *ax, const double *v, size_t n, double lo,
		 double hi, size_t nbins, st_plot_rgba color, const char *label,
		 double *max_count)
{
	double *edges = calloc(nbins + 1, sizeof(*edges));
	double *counts = calloc(nbins + 1, sizeof(*counts));

	*max_count = 0;
	if (edges && counts) {
		st_plot_hist_edges(lo, hi, nbins, edges);
		st_plot_hist_count(v, n, lo, hi, nbins, counts);
		for (size_t i = 0; i < nbins; i++)
			*max_count = fmax(*max_count, counts[i]);
		st_plot_hist(ax, edges, counts, nbins, color, label);
	}
	free(edges);
	free(counts);
}

static double dmin(const double *v, size_t n)
{
	double m = INFINITY;

	for (size_t i = 0; i < n; i++)
		m = fmin(m, v[i]);
	return m;
}

static double dmax(const double *v, size_t n)
{
	double m = -INFINITY;

	for (size_t i = 0; i < n; i++)
		m = fmax(m, v[i]);
	return m;
}

/* "2023-10-13 16:45:09 UTC" */
static void format_utc(st_instant t, char buf[40])
{
	st_time_format_utc(t, buf, 40);
	buf[10] = ' ';
	strcpy(buf + 19, " UTC");
}

/* ---- file transfer vs streaming ---------------------------------------- */

/* One size's histogram on AX: file-transfer and streaming times without
 * their outliers on common bins from 0, the y axis cut at about twice the
 * tallest file-transfer bar (streaming piles up in a few bins; the clipped
 * bar says its height), and an inset on the streaming values alone with
 * bins of a second.  COMBINED: the counts go in the panel title, the legend
 * is the figure's. */
static int transfer_panel(st_plot_axes *ax, const struct size_data *sd,
			  bool combined)
{
	const st_plot_rgba red = st_plot_hex(RED, 0.85), blue = st_plot_hex(BLUE, 0.85);
	size_t kft = 0, kst = 0, nb;
	double *ft = without_outliers(sd->ft, sd->nft, &kft);
	double *st = ft ? without_outliers(sd->st, sd->nst, &kst) : NULL;
	double lo, hi, elo, ehi, mft, mst, top;
	char lft[96], lst[96], title[128], xlabel[128];

	if (!ft || !st) {
		free(ft);
		return -1;
	}
	if (combined) {
		snprintf(lft, sizeof(lft), "file transfer (offload + count job)");
		snprintf(lst, sizeof(lst), "streaming");
		snprintf(title, sizeof(title), "%s: %zu %s, %zu streamed %s",
			 sd->name, kft, plural(kft, "job", "jobs"), kst,
			 plural(kst, "scan", "scans"));
		st_plot_axes_title(ax, title);
	} else {
		snprintf(lft, sizeof(lft), "file transfer: offload + count job "
			 "(n = %zu)", kft);
		snprintf(lst, sizeof(lst), "streaming (n = %zu)", kst);
	}
	snprintf(xlabel, sizeof(xlabel), "time per scan (s); outliers left "
		 "out: %zu %s, %zu %s", sd->nft - kft,
		 plural(sd->nft - kft, "job", "jobs"), sd->nst - kst,
		 plural(sd->nst - kst, "scan", "scans"));
	/* the red bars count count jobs, the blue ones streamed scans */
	st_plot_axes_labels(ax, xlabel, combined ? "jobs or scans" :
			    "number of jobs or scans");
	st_plot_axes_yinteger(ax);
	if (kft + kst == 0)
		goto done;

	lo = fmin(0, fmin(dmin(ft, kft), dmin(st, kst)));
	hi = fmax(dmax(ft, kft), dmax(st, kst));
	nb = bins_for(lo, hi, 50, false, &elo, &ehi);
	hist(ax, ft, kft, elo, ehi, nb, red, lft, &mft);
	hist(ax, st, kst, elo, ehi, nb, blue, lst, &mst);
	st_plot_axes_xlim(ax, elo, ehi);
	top = nice_ceil(2.1 * (mft > 0 ? mft : mst));
	st_plot_axes_ylim(ax, 0, top);

	if (kst) {
		double slo = dmin(st, kst), shi = dmax(st, kst);
		double padding = fmax((shi - slo) * 0.2, 2.0), ilo, ihi, m;
		st_plot_axes *in = st_plot_axes_inset(ax, 0.5, 0.03, 0.48,
						      combined ? 0.5 : 0.45);
		size_t inb = bins_for(slo - padding, shi + padding, 25,
				      all_integral(st, kst), &ilo, &ihi);

		st_plot_axes_title(in, "streaming, zoomed in");
		st_plot_axes_yinteger(in);
		hist(in, ft, kft, ilo, ihi, inb, red, NULL, &m);
		hist(in, st, kst, ilo, ihi, inb, blue, NULL, &m);
		st_plot_axes_xlim(in, ilo, ihi);
	}
done:
	free(ft);
	free(st);
	return 0;
}

static st_plot_fig *fig_transfer(const struct size_data *sd)
{
	st_plot_fig *fig = st_plot_fig_new(600, 400);
	st_plot_axes *ax = st_plot_fig_grid(fig, 1, 1, 0, 0);
	char title[128];

	snprintf(title, sizeof(title), "%s scans: file transfer vs streaming "
		 "time", sd->name);
	st_plot_fig_title(fig, title);
	st_plot_fig_legend(fig, ax);
	if (fig && transfer_panel(ax, sd, false) < 0) {
		st_plot_fig_free(fig);
		return NULL;
	}
	return fig;
}

static st_plot_fig *fig_transfer_combined(const struct data *d)
{
	size_t rows = d->nsizes > 1 ? (d->nsizes + 1) / 2 : 1;
	int cols = d->nsizes > 1 ? 2 : 1;
	st_plot_fig *fig = st_plot_fig_new(cols == 2 ? 860 : 600,
					   60 + 300 * (double)rows);

	st_plot_fig_title(fig, "File transfer vs streaming time per scan size "
			  "(IQR outliers left out)");
	for (size_t i = 0; i < d->nsizes; i++) {
		st_plot_axes *ax = st_plot_fig_grid(fig, (int)rows, cols,
						    (int)(i / 2), (int)(i % 2));

		if (i == 0)
			st_plot_fig_legend(fig, ax);
		if (fig && transfer_panel(ax, &d->sizes[i], true) < 0) {
			st_plot_fig_free(fig);
			return NULL;
		}
	}
	if (d->nsizes == 0)
		st_plot_fig_grid(fig, 1, 1, 0, 0);
	return fig;
}

/* ---- queue time --------------------------------------------------------- */

/* Queue times (s) of the jobs, in file order; NULL when memory runs out. */
static double *queue_times(const struct data *d)
{
	double *q = malloc((d->njobs + 1) * sizeof(*q));

	for (size_t i = 0; q && i < d->njobs; i++)
		q[i] = st_duration_seconds(d->jobs[i].start - d->jobs[i].submit);
	return q;
}

/* The 0..P quantile of the N values Q (sorted copy), NaN when N is 0. */
static double quantile(const double *q, size_t n, double p)
{
	double *s = malloc((n + 1) * sizeof(*s)), r;

	if (!s)
		return NAN;
	memcpy(s, q, n * sizeof(*s));
	qsort(s, n, sizeof(*s), st_cmp_double);
	r = st_stats_quantile_sorted(s, n, p);
	free(s);
	return r;
}

/* The queue-time histogram: every job up to the 99th percentile (the tail
 * runs to hours and would squash the rest; the x label says how many jobs
 * are beyond), and an inset on the jobs that are not outliers, in 1 s
 * bins. */
static st_plot_fig *fig_queue_hist(const struct data *d)
{
	st_plot_fig *fig = st_plot_fig_new(600, 400);
	st_plot_axes *ax = st_plot_fig_grid(fig, 1, 1, 0, 0);
	double *q = queue_times(d), *kept = NULL;
	size_t n = d->njobs, k = 0, beyond = 0, nb;
	char title[128], xlabel[192];

	if (!fig || !q)
		goto fail;
	snprintf(title, sizeof(title), "Slurm queue time of the count jobs "
		 "(n = %zu)", n);
	st_plot_fig_title(fig, title);
	st_plot_axes_yinteger(ax);
	st_plot_axes_labels(ax, "queue time: Start \xe2\x88\x92 Submit (s)",
			    "number of jobs");
	if (n) {
		double lo = fmin(0, dmin(q, n)), p99 = quantile(q, n, 0.99);
		double elo, ehi, m, max = dmax(q, n), hi = lo;

		/* the largest value at or below the 99th percentile: with few
		 * jobs the percentile interpolates far into the gap before the
		 * tail, and the axis would run on past the last bar shown */
		for (size_t i = 0; i < n; i++)
			if (q[i] <= p99 && q[i] > hi)
				hi = q[i];
		if (!(hi > lo))
			hi = max > lo ? max : lo + 1;
		nb = bins_for(lo, hi, 60, all_integral(q, n), &elo, &ehi);
		for (size_t i = 0; i < n; i++)
			beyond += q[i] > ehi;
		if (beyond) {
			snprintf(xlabel, sizeof(xlabel), "queue time: Start \xe2\x88\x92 "
				 "Submit (s); %zu job%s above %.0f s (up to %.0f s) "
				 "not shown", beyond, beyond == 1 ? "" : "s", ehi, max);
			st_plot_axes_labels(ax, xlabel, "number of jobs");
		}
		hist(ax, q, n, elo, ehi, nb, st_plot_hex(RED, 0.85), NULL, &m);
		st_plot_axes_xlim(ax, elo, ehi);

		kept = without_outliers(q, n, &k);
		if (!kept)
			goto fail;
		if (k) {
			st_plot_axes *in = st_plot_axes_inset(ax, 0.42, 0.04, 0.56, 0.5);
			double klo = dmin(kept, k), khi = dmax(kept, k), ilo, ihi;
			size_t inb = bins_for(klo, khi, 30, all_integral(kept, k),
					      &ilo, &ihi);
			char it[96];

			snprintf(it, sizeof(it), "without outliers: %zu %s, "
				 "%.0f\xe2\x80\x93%.0f s", k, plural(k, "job", "jobs"),
				 klo, khi);
			st_plot_axes_title(in, it);
			st_plot_axes_yinteger(in);
			hist(in, kept, k, ilo, ihi, inb, st_plot_hex(RED, 0.85), NULL, &m);
			st_plot_axes_xlim(in, ilo, ihi);
		}
	}
	free(q);
	free(kept);
	return fig;
fail:
	free(q);
	free(kept);
	st_plot_fig_free(fig);
	return NULL;
}

/* Queue time against X (job index or submit date): y up to the 95th
 * percentile, jobs above it drawn as triangles on the top edge. */
static st_plot_fig *fig_queue_scatter(const struct data *d, bool by_date)
{
	st_plot_fig *fig = st_plot_fig_new(600, 400);
	st_plot_axes *ax = st_plot_fig_grid(fig, 1, 1, 0, 0);
	double *q = queue_times(d), *x = malloc((d->njobs + 1) * sizeof(*x));
	size_t n = d->njobs;
	char title[128], xlabel[192];

	if (!fig || !q || !x) {
		free(q);
		free(x);
		st_plot_fig_free(fig);
		return NULL;
	}
	snprintf(title, sizeof(title), "Slurm queue time by %s (n = %zu %s)",
		 by_date ? "submit date" : "job", n, plural(n, "job", "jobs"));
	st_plot_fig_title(fig, title);
	if (by_date)
		snprintf(xlabel, sizeof(xlabel), "submit date (%s)", d->tzname);
	else
		snprintf(xlabel, sizeof(xlabel), "job (order of "
			 "merged_job_info.csv)");
	st_plot_axes_labels(ax, xlabel, "queue time (s)");
	for (size_t i = 0; i < n; i++) {
		st_instant t = d->jobs[i].submit;
		int64_t sec = t / ST_NS_PER_SEC;

		/* dates on the wall clock of slurm_tz */
		x[i] = by_date ? (double)(sec + st_tz_offset_at(d->tz, sec))
			       : (double)i;
	}
	if (n) {
		double top = nice_ceil(quantile(q, n, 0.95) * 1.05), max = dmax(q, n);
		size_t above = 0;

		if (!(top > 0))
			top = max > 0 ? nice_ceil(max) : 1;
		for (size_t i = 0; i < n; i++)
			above += q[i] > top;
		st_plot_axes_ylim(ax, -top * 0.03, top);
		if (above) {
			size_t len = strlen(xlabel);

			snprintf(xlabel + len, sizeof(xlabel) - len, "; "
				 "\xe2\x96\xb2 %zu job%s above %.0f s (up to %.0f s)",
				 above, above == 1 ? "" : "s", top, max);
			st_plot_axes_labels(ax, xlabel, "queue time (s)");
		}
		/* queue time is the file transfer's (its Slurm jobs): red,
		 * as in the queue histogram, never the streaming blue */
		st_plot_points(ax, x, q, n, st_plot_hex(RED, 0.75), 2.0, NULL);
	}
	if (by_date)
		st_plot_axes_xdates(ax);
	free(q);
	free(x);
	return fig;
}

/* ---- streaming latency box plot ---------------------------------------- */

/* One panel per size (their latencies differ 25-fold, one axis would
 * flatten the small ones), every scan included: the box, and right of it
 * every scan as a dot, spread sideways, so that a box of no height (an
 * IQR of 0: whole-second latencies that mostly tie) still shows its data
 * (a dark pile at the tied value).
 * The panel title is the median only: a 200-point panel holds no more. */
static st_plot_fig *fig_streaming_box(const struct data *d)
{
	int cols = d->nsizes ? (int)d->nsizes : 1;
	st_plot_fig *fig = st_plot_fig_new(fmax(600, 200 * cols), 420);

	char title[256];

	snprintf(title, sizeof(title), "Streaming latency per scan size: |%s "
		 "write \xe2\x88\x92 %s created| (whiskers at 1.5 IQR)",
		 d->compute, d->acq);
	st_plot_fig_title(fig, title);
	for (size_t i = 0; i < d->nsizes; i++) {
		const struct size_data *sd = &d->sizes[i];
		st_plot_axes *ax = st_plot_fig_grid(fig, 1, cols, 0, (int)i);
		const char *cat[1] = { sd->name };
		char note[128];

		st_plot_axes_xcategories(ax, cat, 1);
		st_plot_axes_labels(ax, NULL, i == 0 ? "latency (s)" : NULL);
		if (sd->nst) {
			st_plot_box_stats b;
			double *x = malloc(sd->nst * sizeof(*x));

			if (!x || st_plot_box_stats_compute(sd->st, sd->nst, &b) < 0) {
				free(x);
				st_plot_fig_free(fig);
				return NULL;
			}
			/* a low-discrepancy spread in a strip right of the box */
			for (size_t k = 0; k < sd->nst; k++)
				x[k] = 0.31 + 0.14 * fmod((double)k *
							  0.6180339887498949, 1.0);
			st_plot_points(ax, x, sd->st, sd->nst,
				       st_plot_hex(0x555555, 0.4), 1.8, NULL);
			free(x);
			snprintf(note, sizeof(note), "median %g s", b.median);
			st_plot_axes_title(ax, note);
			snprintf(note, sizeof(note), "n = %zu, %zu %s%s", sd->nst,
				 b.outliers, plural(b.outliers, "outlier",
						    "outliers"),
				 b.q3 == b.q1 ? "; IQR 0" : "");
			st_plot_axes_labels(ax, note, i == 0 ? "latency (s)" : NULL);
			st_plot_box(ax, 0, sd->st, sd->nst, 0.5, st_plot_hex(BLUE, 1.0),
				    NULL);
		}
	}
	if (d->nsizes == 0)
		st_plot_fig_grid(fig, 1, 1, 0, 0);
	return fig;
}

/* ---- experiment timeline ------------------------------------------------ */

struct scan_ref {
	st_instant created, written;
	size_t size;
};

/* By size, then creation. */
static int cmp_scan(const void *a, const void *b)
{
	const struct scan_ref *x = a, *y = b;
	int c = ST_CMP(x->size, y->size);

	return c ? c : ST_CMP(x->created, y->created);
}

/* By size, then Submit -> End (Start for a job still running), then queue
 * time, then submit time. */
static int cmp_job(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	st_duration tx = (x->has_end ? x->end : x->start) - x->submit;
	st_duration ty = (y->has_end ? y->end : y->start) - y->submit;
	st_duration qx = x->start - x->submit, qy = y->start - y->submit;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (qx != qy)
		return qx < qy ? -1 : 1;
	return (x->submit > y->submit) - (x->submit < y->submit);
}

/* The first and last of the N (> 0) instants found OFF bytes into each
 * STRIDE-byte element of BASE: the dates a timeline panel covers. */
static void instant_span(const void *base, size_t n, size_t stride,
			 size_t off, st_instant *first, st_instant *last)
{
	const char *p = base;

	memcpy(first, p + off, sizeof(*first));
	*last = *first;
	for (size_t i = 0; i < n; i++) {
		st_instant t;

		memcpy(&t, p + i * stride + off, sizeof(t));
		*first = t < *first ? t : *first;
		*last = t > *last ? t : *last;
	}
}

static double minutes(st_duration d)
{
	return st_duration_seconds(d) / 60;
}

/* A timeline panel: rows from the top, x from LEFT to RIGHT minutes. */
static void timeline_axes(st_plot_axes *ax, const char *title,
			  const char *xlabel, const char *ylabel, double left,
			  double right)
{
	st_plot_axes_title(ax, title);
	st_plot_axes_labels(ax, xlabel, ylabel);
	st_plot_axes_yinvert(ax);
	st_plot_axes_yinteger(ax);
	st_plot_axes_xlim(ax, left, right);
}

/* Top panel: every streamed scan, one bar from NCEM created to NERSC
 * write, grouped by size, in order of creation, in seconds from LEFT to
 * RIGHT: a scale of its own, since the scans take seconds where the jobs
 * below take minutes. */
static int timeline_streaming(st_plot_axes *ax, const struct data *d,
			      double left, double right)
{
	size_t n = 0, k = 0;
	struct scan_ref *s;
	double *x0, *x1, *y;
	char label[200], xlab[160], a[40], b[40];

	for (size_t i = 0; i < d->nsizes; i++)
		n += d->sizes[i].nst;
	s = malloc((n + 1) * sizeof(*s));
	x0 = malloc((n + 1) * sizeof(*x0));
	x1 = malloc((n + 1) * sizeof(*x1));
	y = malloc((n + 1) * sizeof(*y));
	if (!s || !x0 || !x1 || !y) {
		free(s);
		free(x0);
		free(x1);
		free(y);
		return -1;
	}
	for (size_t i = 0; i < d->nsizes; i++)
		for (size_t j = 0; j < d->sizes[i].nst; j++)
			s[k++] = (struct scan_ref){ d->sizes[i].created[j],
						    d->sizes[i].written[j], i };
	qsort(s, n, sizeof(*s), cmp_scan);
	snprintf(label, sizeof(label), "Streaming: one bar per scan, %s "
		 "created \xe2\x86\x92 %s write (%zu %s; note the scale: "
		 "seconds)", d->acq, d->compute, n, plural(n, "scan", "scans"));
	snprintf(xlab, sizeof(xlab), "seconds since the scan was created at %s",
		 d->acq);
	timeline_axes(ax, label, xlab, "scan (by size, then creation)", left,
		      right);
	if (n) {
		st_instant first, last;

		instant_span(s, n, sizeof(*s), offsetof(struct scan_ref, created),
			     &first, &last);
		format_utc(first, a);
		format_utc(last, b);
		snprintf(label, sizeof(label), "seconds since the scan was created "
			 "at %s (scans of %.16s to %.16s UTC)", d->acq, a, b);
		st_plot_axes_labels(ax, label, "scan (by size, then creation)");
		for (size_t i = 0; i < d->nsizes; i++) {
			size_t m = 0;

			for (size_t j = 0; j < n; j++) {
				if (s[j].size != i)
					continue;
				x0[m] = 0;
				x1[m] = st_duration_seconds(s[j].written -
							    s[j].created);
				y[m++] = (double)j;
			}
			if (m)
				st_plot_hbars(ax, x0, x1, y, m, 1.0, size_color(i),
					      d->sizes[i].name);
		}
		st_plot_axes_legend(ax, ST_PLOT_UPPER_RIGHT);
	}
	free(s);
	free(x0);
	free(x1);
	free(y);
	return 0;
}

/* Bottom panel: every count job, a grey queue bar (Submit -> Start) then a
 * run bar (Start -> End) in its size's colour, grouped by size and ranked
 * by Submit -> End: 2,000 rows a fraction of a point tall in submit order
 * would be noise, ranked they read as distributions. */
static int timeline_jobs(st_plot_axes *ax, const struct data *d, double left,
			 double right)
{
	size_t n = d->njobs, beyond = 0;
	struct job *j = malloc((n + 1) * sizeof(*j));
	double *x0 = malloc((n + 1) * sizeof(*x0)), *x1 = malloc((n + 1) * sizeof(*x1));
	double *y = malloc((n + 1) * sizeof(*y));
	char label[200], a[40], b[40];
	int rc = -1;

	if (!j || !x0 || !x1 || !y)
		goto out;
	memcpy(j, d->jobs, n * sizeof(*j));
	qsort(j, n, sizeof(*j), cmp_job);
	snprintf(label, sizeof(label), "File transfer: one row per count job, "
		 "queue then run (%zu jobs)", n);
	timeline_axes(ax, label, "minutes since the job was submitted",
		      "job (by size, then Submit \xe2\x86\x92 End)", left, right);
	if (n) {
		st_instant first, last;
		size_t len;

		instant_span(j, n, sizeof(*j), offsetof(struct job, submit),
			     &first, &last);
		for (size_t i = 0; i < n; i++)
			beyond += minutes((j[i].has_end ? j[i].end : j[i].start) -
					  j[i].submit) > right;
		/* dates on slurm_tz's wall clock, as the zone name says */
		st_time_format_naive(first, d->tz, a, sizeof(a));
		st_time_format_naive(last, d->tz, b, sizeof(b));
		snprintf(label, sizeof(label), "minutes since the job was submitted "
			 "(jobs of %.10s to %.10s, %s)", a, b, d->tzname);
		len = strlen(label);
		if (beyond)
			snprintf(label + len, sizeof(label) - len, "; %zu %s past "
				 "the edge", beyond, beyond == 1 ? "job runs" : "jobs run");
		st_plot_axes_labels(ax, label, "job (by size, then Submit \xe2\x86\x92 End)");
		for (size_t i = 0; i < n; i++) {
			x0[i] = 0;
			x1[i] = minutes(j[i].start - j[i].submit);
			y[i] = (double)i;
		}
		st_plot_hbars(ax, x0, x1, y, n, 1.0, st_plot_hex(QUEUE_GREY, 1.0),
			      "queue (Submit \xe2\x86\x92 Start)");
		for (size_t s = 0; s <= d->nsizes; s++) {
			size_t m = 0;

			for (size_t i = 0; i < n; i++) {
				if (j[i].order != s || !j[i].has_end)
					continue;
				x0[m] = minutes(j[i].start - j[i].submit);
				x1[m] = minutes(j[i].end - j[i].submit);
				y[m++] = (double)i;
			}
			if (!m)
				continue;
			if (s < d->nsizes)
				snprintf(label, sizeof(label), "run (Start \xe2\x86\x92 "
					 "End), %s", d->sizes[s].name);
			else
				snprintf(label, sizeof(label), "run (Start \xe2\x86\x92 "
					 "End), other sizes");
			st_plot_hbars(ax, x0, x1, y, m, 1.0, s < d->nsizes ?
				      size_color(s) : st_plot_hex(0x333333, 1.0), label);
		}
		st_plot_axes_legend(ax, ST_PLOT_UPPER_RIGHT);
	}
	rc = 0;
out:
	free(j);
	free(x0);
	free(x1);
	free(y);
	return rc;
}

/* Scan (or job) against time, one horizontal bar per stage.  The two
 * paths cannot share a wall clock (streaming ran in one 13-hour session,
 * the count jobs over 14 months), so each scan is drawn on its own clock,
 * from the start of its first stage, in two panels: streaming (created ->
 * NERSC write) above, in seconds up to its slowest scan, and file transfer
 * (queue, run) below, in minutes up to the 98th percentile of the jobs'
 * Submit -> End; sizes colour-coded.  One axis for both left the streaming
 * bars in the first tenth of the panel. */
static st_plot_fig *fig_timeline(const struct data *d)
{
	st_plot_fig *fig = st_plot_fig_new(900, 860);
	double *tot = malloc((d->njobs + 1) * sizeof(*tot));
	double left = 0, right = 0, sleft = 0, sright = 0;

	if (!fig || !tot)
		goto fail;
	for (size_t i = 0; i < d->njobs; i++) {
		const struct job *j = &d->jobs[i];

		tot[i] = minutes((j->has_end ? j->end : j->start) - j->submit);
		left = fmin(left, tot[i]);
	}
	if (d->njobs)
		right = quantile(tot, d->njobs, 0.98);
	for (size_t i = 0; i < d->nsizes; i++)
		for (size_t k = 0; k < d->sizes[i].nst; k++) {
			double sec = st_duration_seconds(d->sizes[i].written[k] -
							 d->sizes[i].created[k]);

			sleft = fmin(sleft, sec);
			sright = fmax(sright, sec);
		}
	right = nice_ceil(right);
	left = left < 0 ? -nice_ceil(-left) : 0;
	sright = nice_ceil(sright);
	sleft = sleft < 0 ? -nice_ceil(-sleft) : 0;
	st_plot_fig_title(fig, "Experiment timeline: each scan's stages, on "
			  "its own clock");
	if (timeline_streaming(st_plot_fig_grid(fig, 2, 1, 0, 0), d, sleft,
			       sright) < 0 ||
	    timeline_jobs(st_plot_fig_grid(fig, 2, 1, 1, 0), d, left, right) < 0)
		goto fail;
	free(tot);
	return fig;
fail:
	free(tot);
	st_plot_fig_free(fig);
	return NULL;
}

/* ---- the set ------------------------------------------------------------ */

struct st_figures {
	size_t n;
	char **names;
	st_plot_fig **figs;
};

void st_figures_free(st_figures *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++) {
		free(set->names[i]);
		st_plot_fig_free(set->figs[i]);
	}
	free(set->names);
	free(set->figs);
	free(set);
}

/* Take FIG (may be NULL: out of memory) under NAME. */
static int add(st_figures *set, const char *name, st_plot_fig *fig)
{
	if (!fig || !(set->names[set->n] = strdup(name))) {
		st_plot_fig_free(fig);
		return -1;
	}
	set->figs[set->n++] = fig;
	return 0;
}

st_figures *st_figures_build(const st_figures_input *in, st_error *err)
{
	const char *tzname = in->ex->slurm_tz ? in->ex->slurm_tz : "UTC";
	st_tz *tz = st_tz_load(tzname, err), *stz = NULL;
	struct data d = { 0 };
	st_figures *set = NULL;
	size_t max;

	if (!tz)
		return NULL;
	if (!(stz = st_tz_load(in->ex->tz ? in->ex->tz : "UTC", err))) {
		st_tz_free(tz);
		return NULL;
	}
	d.tzname = tzname;
	d.stz = stz;
	d.acq = in->acq ? in->acq : "NCEM";
	d.compute = in->compute ? in->compute : "NERSC";
	if (load(in, tz, &d, err) < 0)
		goto out;
	max = d.nsizes + 6;
	set = calloc(1, sizeof(*set));
	if (!set || !(set->names = calloc(max, sizeof(char *))) ||
	    !(set->figs = calloc(max, sizeof(st_plot_fig *))))
		goto fail;
	for (size_t i = 0; i < d.nsizes; i++) {
		char name[64];

		snprintf(name, sizeof(name), "transfer_hist_%" PRId64,
			 d.sizes[i].size);
		if (add(set, name, fig_transfer(&d.sizes[i])) < 0)
			goto fail;
	}
	if (add(set, "transfer_hist_combined", fig_transfer_combined(&d)) < 0 ||
	    add(set, "queue_hist", fig_queue_hist(&d)) < 0 ||
	    add(set, "queue_by_index", fig_queue_scatter(&d, false)) < 0 ||
	    add(set, "queue_by_date", fig_queue_scatter(&d, true)) < 0 ||
	    add(set, "streaming_box", fig_streaming_box(&d)) < 0 ||
	    add(set, "experiment_timeline", fig_timeline(&d)) < 0)
		goto fail;
	goto out;
fail:
	oom(err);
	st_figures_free(set);
	set = NULL;
out:
	data_release(&d);
	st_tz_free(tz);
	st_tz_free(stz);
	return set;
}

size_t st_figures_count(const st_figures *set)
{
	return set->n;
}

const char *st_figures_name(const st_figures *set, size_t i)
{
	return set->names[i];
}

const st_plot_fig *st_figures_get(const st_figures *set, size_t i)
{
	return set->figs[i];
}

/* One file to write. */
struct write_job {
	const st_plot_fig *fig;
	enum st_plot_format fmt;
	char *path;
	st_atomic_file af;       /* prepared, published when all are */
	st_error err;
	int rc;
	bool done;
};

struct write_pool {
	struct write_job *jobs;
	size_t n;
	size_t next;             /* next job to take, under LOCK */
	pthread_mutex_t lock;
};

static void *write_worker(void *arg)
{
	struct write_pool *p = arg;

	for (;;) {
		struct write_job *j;

		pthread_mutex_lock(&p->lock);
		j = p->next < p->n ? &p->jobs[p->next++] : NULL;
		pthread_mutex_unlock(&p->lock);
		if (!j)
			return NULL;
		st_error_clear(&j->err);
		j->rc = st_plot_save_prepared(j->fig, j->fmt, j->path, &j->af,
					      &j->err);
		j->done = true;
	}
}

/* The files are rendered by a few threads: cairo draws into separate
 * surfaces independently, and rendering plus encoding is nearly all of the
 * time of `plot`.  The first file is done alone, so that fontconfig and
 * cairo's font caches are set up before the threads share them. */
int st_figures_write(const st_figures *set, const char *outdir,
		     unsigned formats, size_t *files, st_error *err)
{
	struct write_pool pool = { 0 };
	st_atomic_set out_set = { 0 };
	pthread_t tid[4];
	size_t nthreads = 0, written = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int rc = 0;

	if (files)
		*files = 0;
	if (st_mkdir_p(outdir, err) < 0)
		return -1;
	pool.jobs = calloc(ST_PLOT_NFORMATS * set->n + 1, sizeof(*pool.jobs));
	if (!pool.jobs)
		return oom(err);
	for (size_t i = 0; i < set->n; i++) {
		for (unsigned k = 0; k < ST_PLOT_NFORMATS; k++) {
			struct write_job *j = &pool.jobs[pool.n];
			enum st_plot_format fmt = 1u << k;
			char name[128];

			if (!(formats & fmt))
				continue;
			snprintf(name, sizeof(name), "%s%s", set->names[i],
				 st_plot_format_ext(fmt));
			j->fig = set->figs[i];
			j->fmt = fmt;
			j->path = st_path_join(outdir, name);
			pool.n++;
			if (!j->path) {
				rc = oom(err);
				goto out;
			}
		}
	}
	pthread_mutex_init(&pool.lock, NULL);
	if (pool.n) {
		struct write_job *j = &pool.jobs[0];

		pool.next = 1;
		j->rc = st_plot_save_prepared(j->fig, j->fmt, j->path, &j->af,
					      &j->err);
		j->done = true;
	}
	if (pool.jobs[0].rc == 0) {
		while (cpus > 1 && nthreads < sizeof(tid) / sizeof(tid[0]) &&
		       (long)nthreads + 1 < cpus && nthreads + 1 < pool.n &&
		       pthread_create(&tid[nthreads], NULL, write_worker, &pool) == 0)
			nthreads++;
		write_worker(&pool);
		for (size_t i = 0; i < nthreads; i++)
			pthread_join(tid[i], NULL);
	}
	pthread_mutex_destroy(&pool.lock);
	/* the first failure in file order is the one reported */
	for (size_t i = 0; i < pool.n; i++) {
		if (!pool.jobs[i].done)
			rc = rc ? rc : -2;      /* not drawn: an earlier failure */
		else if (pool.jobs[i].rc != 0 && rc >= 0) {
			if (err)
				*err = pool.jobs[i].err;
			rc = -1;
		}
	}
	if (rc == -2)
		rc = -1;
	/* all or nothing: every file complete on disk before the first is
	 * renamed, the renames back to back */
	for (size_t i = 0; i < pool.n; i++) {
		struct write_job *j = &pool.jobs[i];

		if (!j->done || j->rc != 0)
			continue;
		if (rc == 0 && st_atomic_set_add(&out_set, &j->af, err) < 0)
			rc = -1;
		else
			st_atomic_abort(&j->af);
	}
	if (rc == 0) {
		written = out_set.n;
		if (st_atomic_set_commit(&out_set, err) < 0) {
			rc = -1;
			written = 0;
		}
	}
out:
	st_atomic_set_abort(&out_set);
	for (size_t i = 0; i < pool.n; i++)
		free(pool.jobs[i].path);
	free(pool.jobs);
	if (files)
		*files = written;
	return rc;
}

int st_figures_run(const st_figures_input *in, const char *outdir,
		   unsigned formats, size_t *figures, st_error *err)
{
	st_figures *set = st_figures_build(in, err);
	int rc;

	if (!set)
		return -1;
	rc = st_figures_write(set, outdir, formats, NULL, err);
	if (figures)
		*figures = set->n;
	st_figures_free(set);
	return rc;
}
