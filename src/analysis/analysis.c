/* analysis.c - stats queue and stats transfers (SPEC 5.7).
 *
 * Each command computes everything first and writes its files only when all
 * inputs were good, so a bad input leaves no output at all.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/analysis.h"
#include "streamtime/atomic.h"
#include "streamtime/num.h"
#include "streamtime/time.h"

/* Writes one file of OUTDIR through FN into SET: complete on disk, and
 * published with the others of SET by st_atomic_set_commit. */
typedef int (*write_fn)(FILE *f, const void *data);

static int write_file(st_atomic_set *set, const char *outdir, const char *name,
		      write_fn fn, const void *data, st_error *err)
{
	st_atomic_file af;
	char *path = st_path_join(outdir, name);
	int rc;

	if (!path)
		return st_error_set(err, ST_EXIT_CANTCREAT, "out of memory");
	if (st_atomic_open(&af, path, err) < 0) {
		free(path);
		return -1;
	}
	if (fn(af.fp, data) < 0 || ferror(af.fp)) {
		st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s", path,
			     strerror(errno ? errno : EIO));
		st_atomic_abort(&af);
		free(path);
		return -1;
	}
	rc = st_atomic_set_add(set, &af, err);
	free(path);
	return rc;
}

/* V as a CSV cell.  NaN is a statistic the group does not define (every
 * one with no value, std with one): an empty cell, as pandas writes it. */
static const char *fmt(double v, char buf[32])
{
	return st_num_format_cell(v, buf, 32);
}

/* A number of seconds as a CSV cell, rounded to the nanosecond (the
 * inputs' resolution): no noise of the arithmetic. */
static const char *secs(double v, char buf[32])
{
	return st_num_format_seconds(v, buf, 32);
}

/* NS: V derives from time stamps alone (secs); else it mixes in other
 * measurements (the file-transfer times hold the save times' floats)
 * and is written in its shortest exact form (fmt).  An IQR is written by
 * secs always: the difference of two times of one size, in which the
 * size's save-time constant cancels. */
static const char *tcell(double v, bool ns, char buf[32])
{
	return ns ? secs(v, buf) : fmt(v, buf);
}

/* ---- medians and intervals beside the paper's numbers ----------------- */

/* The step of the times in column COL of T: 1 s when most cells have no
 * fraction (one in a million fine-grained times is a whole second, so a
 * majority means the source wrote whole seconds), else the finest fraction
 * written.  Empty and unset cells are not looked at; NaN when none is left
 * or COL is -1. */
static double time_step(const st_table *t, int col)
{
	size_t whole = 0, total = 0;
	int digits = 0;

	for (size_t r = 0; col >= 0 && r < t->nrows; r++) {
		const char *c = st_table_get(t, r, col), *dot;
		int d = 0;

		if (st_time_unset(c))
			continue;
		total++;
		dot = strchr(c, '.');
		if (!dot) {
			whole++;
			continue;
		}
		for (const char *p = dot + 1; *p >= '0' && *p <= '9'; p++)
			if (*p != '0')
				d = (int)(p - dot);
		if (d > digits)
			digits = d;
		if (d == 0)
			whole++;
	}
	if (total == 0)
		return NAN;
	if (whole * 2 > total || digits == 0)
		return 1.0;
	return pow(10.0, -digits);
}

/* The larger of two steps, NaN when either is unknown. */
static double coarser(double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	return a > b ? a : b;
}

/* One row of ST_MEDIANS_HEADER; SIZE 0 leaves the size cell empty. */
static int medians_row(FILE *f, const char *group, int64_t size,
		       const st_robust *r, bool ns)
{
	char b[8][32], sz[24] = "";
	double share = r->n ? (double)r->dropped / (double)r->n : NAN;

	if (size)
		snprintf(sz, sizeof(sz), "%" PRId64, size);
	return fprintf(f, "%s,%s,%zu,%s,%s,%s,%s,order statistics,%s,%s,%s,%zu,"
		       "%s\n", group, sz, r->n, tcell(r->ci.median, ns, b[0]),
		       tcell(r->ci.lo, ns, b[1]), tcell(r->ci.hi, ns, b[2]),
		       fmt(r->ci.level, b[3]), fmt(r->resolution, b[4]),
		       secs(r->clock_bound, b[5]), secs(r->iqr, b[6]), r->dropped,
		       fmt(share, b[7])) < 0 ? -1 : 0;
}

/* "4" or "4.25": a value of an interval or median for a message. */
static const char *short_num(double v, char buf[32])
{
	if (isnan(v))
		snprintf(buf, 32, "n/a");
	else
		snprintf(buf, 32, "%.*f", v == floor(v) ? 0 : 2, v);
	return buf;
}

void st_robust_warn(st_log *log, const char *what, const st_robust *r,
		    const char *file)
{
	char m[32], lo[32], hi[32], res[48] = "", ci[96];

	if (!st_robust_misleads(r))
		return;
	if (!isnan(r->resolution))
		snprintf(res, sizeof(res), ", inputs in %s s steps",
			 short_num(r->resolution, m));
	if (r->ci.k)
		snprintf(ci, sizeof(ci), "95 %% interval [%s, %s] s",
			 short_num(r->ci.lo, lo), short_num(r->ci.hi, hi));
	else
		snprintf(ci, sizeof(ci), "too few values (%zu) for a 95 %% "
			 "interval", r->n);
	st_warn(log, "%s: the paper's IQR outlier rule drops %zu of %zu values "
		"(%.1f %%%s%s), so its mean and standard deviation without "
		"outliers understate the spread; median %s s, %s (order "
		"statistics), in %s", what, r->dropped, r->n,
		100.0 * (double)r->dropped / (double)r->n,
		r->iqr == 0 ? ", IQR 0" : "", res, short_num(r->ci.median, m),
		ci, file);
}

static int write_queue_median(FILE *f, const void *data)
{
	const st_robust *r = data;

	if (fputs(ST_MEDIANS_HEADER, f) < 0)
		return -1;
	return medians_row(f, "queue", 0, r, true);
}

/* ---- stats queue ------------------------------------------------------ */

struct day {
	char date[11];     /* YYYY-MM-DD, local to the zone of the times */
	double sum;
	size_t n;
	double mean;
};

struct queue_out {
	st_queue_result res;
	struct day *days;
	size_t ndays;
	bool by_month;          /* write_ranked: with a month column */
};

static int cmp_day_date(const void *a, const void *b)
{
	return strcmp(((const struct day *)a)->date, ((const struct day *)b)->date);
}

/* Mean descending; equal means by date, so the order never depends on qsort. */
static int cmp_day_desc(const void *a, const void *b)
{
	const struct day *x = a, *y = b;

	if (x->mean != y->mean)
		return x->mean < y->mean ? 1 : -1;
	return strcmp(x->date, y->date);
}

/* Month ascending, then mean ascending, then date. */
static int cmp_day_month(const void *a, const void *b)
{
	const struct day *x = a, *y = b;
	int c = strncmp(x->date, y->date, 7);

	if (c)
		return c;
	if (x->mean != y->mean)
		return x->mean < y->mean ? -1 : 1;
	return strcmp(x->date, y->date);
}

static int summary_row(FILE *f, const char *label, const st_summary *s)
{
	char b[8][32];

	return fprintf(f, "%s,%zu,%s,%s,%s,%s,%s,%s,%s\n", label, s->n,
		       secs(s->mean, b[0]), secs(s->median, b[1]),
		       secs(s->std, b[2]), secs(s->min, b[3]), secs(s->max, b[4]),
		       secs(s->q25, b[5]), secs(s->q75, b[6])) < 0 ? -1 : 0;
}

static int write_queue_stats(FILE *f, const void *data)
{
	const struct queue_out *q = data;

	if (fputs("statistics,n,mean,median,std,min,max,q25,q75\n", f) < 0)
		return -1;
	if (summary_row(f, "with_outliers", &q->res.with_outliers) < 0)
		return -1;
	return summary_row(f, "without_outliers", &q->res.without_outliers);
}

/* The days' mean queue times in their order; BY_MONTH puts the month
 * (the date's first 7 characters) in a column of its own first. */
static int write_ranked(FILE *f, const void *data)
{
	const struct queue_out *q = data;
	char b[32];

	if (fputs(q->by_month ? "Submit_month_year,Submit_date,queue_time\n"
			      : "Submit_date,queue_time\n", f) < 0)
		return -1;
	for (size_t i = 0; i < q->ndays; i++)
		if ((q->by_month && fprintf(f, "%.7s,", q->days[i].date) < 0) ||
		    fprintf(f, "%s,%s\n", q->days[i].date,
			    secs(q->days[i].mean, b)) < 0)
			return -1;
	return 0;
}

/* Summaries with and without outliers of the N values V. */
static int summarize_both(double *v, size_t n, st_summary *with,
			  st_summary *without)
{
	double *kept = malloc((n + 1) * sizeof(*kept));
	size_t k;
	int rc = -1;

	if (!kept)
		return -1;
	if (st_stats_summarize(v, n, with) == 0 &&
	    (k = st_stats_remove_outliers(v, n, kept)) != (size_t)-1 &&
	    st_stats_summarize(kept, k, without) == 0)
		rc = 0;
	free(kept);
	return rc;
}

/* The queue times (seconds) of the rows of MERGED whose Submit (column
 * IDX[0]) and Start (IDX[1]) are both set, into V[0..*N), and each one's
 * Submit date (local in TZ) as a day of one job into DAYS.  0, or -1 with
 * ERR set: 65 naming the cell. */
static int queue_times(const st_table *merged, const st_tz *tz,
		       const int idx[2], double *v, struct day *days,
		       size_t *n, st_error *err)
{
	*n = 0;
	for (size_t r = 0; r < merged->nrows; r++) {
		const char *sub = st_table_get(merged, r, idx[0]);
		const char *sta = st_table_get(merged, r, idx[1]);
		st_instant ts, tq;
		st_duration dq;
		st_error e;
		char local[40];
		struct day *d = &days[*n];

		if (st_time_unset(sub) || st_time_unset(sta))
			continue;      /* pandas' dropna: never started */
		if (st_time_parse(sub, tz, &ts, NULL, &e) < 0)
			return st_table_cell_error(merged, r, idx[0], e.text,
						   err);
		if (st_time_parse(sta, tz, &tq, NULL, &e) < 0)
			return st_table_cell_error(merged, r, idx[1], e.text,
						   err);
		if (__builtin_sub_overflow(tq, ts, &dq))
			return st_table_cell_error(merged, r, idx[1], "more "
						   "than 292 years after "
						   "Submit: no queue time",
						   err);
		v[*n] = st_duration_seconds(dq);
		st_time_format_naive(ts, tz, local, sizeof(local));
		memcpy(d->date, local, 10);
		d->date[10] = '\0';
		d->sum = v[*n];
		d->n = 1;
		(*n)++;
	}
	return 0;
}

/* Q's N days of one job each, grouped by date into Q->days[0..ndays) with
 * their mean: sorted, then equal dates folded. */
static void fold_days(struct queue_out *q, size_t n)
{
	qsort(q->days, n, sizeof(*q->days), cmp_day_date);
	for (size_t i = 0; i < n; i++) {
		if (q->ndays &&
		    strcmp(q->days[q->ndays - 1].date, q->days[i].date) == 0) {
			q->days[q->ndays - 1].sum += q->days[i].sum;
			q->days[q->ndays - 1].n++;
		} else {
			q->days[q->ndays++] = q->days[i];
		}
	}
	for (size_t i = 0; i < q->ndays; i++)
		q->days[i].mean = q->days[i].sum / (double)q->days[i].n;
	q->res.days = q->ndays;
}

/* Queue times of the rows of MERGED that have both times (rows whose Submit
 * or Start sacct left unset are dropped, as pandas' dropna does), their
 * statistics with and without outliers, and the mean queue time per
 * Submit date in three orders; all four files are published as one set.
 * Per-job entries are folded into days by sorting on the date. */
int st_queue_stats(const st_table *merged, const st_tz *tz,
		   const char *outdir, st_queue_result *res, st_error *err)
{
	static const char *const need[] = { "Submit", "Start" };
	st_atomic_set set = { 0 };
	struct queue_out q = { 0 };
	double *v = NULL;
	size_t n = 0;
	int idx[2], rc = -1;

	if (st_table_require(merged, need, idx, 2, err) < 0)
		return -1;
	v = malloc((merged->nrows + 1) * sizeof(*v));
	q.days = malloc((merged->nrows + 1) * sizeof(*q.days));
	if (!v || !q.days) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	if (queue_times(merged, tz, idx, v, q.days, &n, err) < 0)
		goto out;
	if (summarize_both(v, n, &q.res.with_outliers,
			   &q.res.without_outliers) < 0 ||
	    st_stats_robust(v, n, &q.res.robust) < 0)
		goto oom;
	/* sacct writes whole seconds; a finer source shows in its cells */
	q.res.robust.resolution = coarser(time_step(merged, idx[0]),
					  time_step(merged, idx[1]));
	if (!st_summary_finite(&q.res.with_outliers) ||
	    !st_summary_finite(&q.res.without_outliers)) {
		st_error_set(err, ST_EXIT_DATAERR, "%s: the queue-time statistics "
			     "are not finite numbers", merged->name);
		goto out;
	}
	fold_days(&q, n);
	if (st_mkdir_p(outdir, err) < 0 ||
	    write_file(&set, outdir, "queue_time_statistics.csv",
		       write_queue_stats, &q, err) < 0)
		goto out;
	qsort(q.days, q.ndays, sizeof(*q.days), cmp_day_desc);
	if (write_file(&set, outdir, "ranked_days.csv", write_ranked, &q,
		       err) < 0)
		goto out;
	qsort(q.days, q.ndays, sizeof(*q.days), cmp_day_month);
	q.by_month = true;
	if (write_file(&set, outdir, "ranked_days_by_month.csv", write_ranked,
		       &q, err) < 0 ||
	    write_file(&set, outdir, "queue_time_median.csv",
		       write_queue_median, &q.res.robust, err) < 0 ||
	    st_atomic_set_commit(&set, err) < 0)
		goto out;
	if (res)
		*res = q.res;
	rc = 0;
	goto out;
oom:
	st_error_set(err, ST_EXIT_IOERR, "out of memory");
out:
	st_atomic_set_abort(&set);
	free(v);
	free(q.days);
	return rc;
}

/* ---- stats transfers -------------------------------------------------- */

struct size_stats {
	int64_t size;
	st_summary s_with, s_without, o_with, o_without;
	st_robust s_rob, o_rob;
};

static const char *const stat_cols =
	"Statistics,Size,Number of Points,Mean time,Median time,"
	"Standard Deviation,Minimum time,Maximum time,25th percentile,"
	"75th percentile\n";

static int stats_row(FILE *f, int64_t size, const char *what,
		     const st_summary *s, bool ns)
{
	char b[8][32];

	return fprintf(f, "Statistics for %" PRId64 "x%" PRId64 " %s,%" PRId64
		       ",%zu,%s,%s,%s,%s,%s,%s,%s\n", size, size, what, size,
		       s->n, tcell(s->mean, ns, b[0]), tcell(s->median, ns, b[1]),
		       tcell(s->std, ns, b[2]), tcell(s->min, ns, b[3]),
		       tcell(s->max, ns, b[4]), tcell(s->q25, ns, b[5]),
		       tcell(s->q75, ns, b[6])) < 0 ? -1 : 0;
}

static int write_medians(FILE *f, const void *data)
{
	const struct size_stats *const *ss = data;

	if (fputs(ST_MEDIANS_HEADER, f) < 0)
		return -1;
	for (const struct size_stats *const *s = ss; *s; s++)
		if (medians_row(f, "streaming", (*s)->size, &(*s)->s_rob,
				true) < 0 ||
		    medians_row(f, "file_transfer", (*s)->size,
				&(*s)->o_rob, false) < 0)
			return -1;
	return 0;
}

/* The ratio of the file-transfer median to the streaming median of one
 * size, with an interval that holds the true ratio with probability at
 * least LEVEL: each median's order-statistic interval at 97.5 %, so that
 * both hold at once with probability >= 1 - 2.5 % - 2.5 % (Bonferroni),
 * and then [ft_lo / st_hi, ft_hi / st_lo].  NaN bounds when a group has
 * too few values (n < 7) or the streaming interval reaches 0. */
void st_median_ratio(const st_robust *ft, const st_robust *st,
		     st_median_ratio_t *out)
{
	const st_median_ci *f = &ft->ci975, *s = &st->ci975;

	out->ratio = ft->ci.median / st->ci.median;
	out->lo = out->hi = out->level = NAN;
	if (!isfinite(out->ratio))
		out->ratio = NAN;
	if (!f->k || !s->k || !(s->lo > 0) || !(f->lo >= 0))
		return;
	out->lo = f->lo / s->hi;
	out->hi = f->hi / s->lo;
	out->level = 1.0 - (1.0 - f->level) - (1.0 - s->level);
}

static int write_median_ratio(FILE *f, const void *data)
{
	const struct size_stats *const *ss = data;

	if (fputs(ST_MEDIAN_RATIO_HEADER, f) < 0)
		return -1;
	for (const struct size_stats *const *s = ss; *s; s++) {
		const st_robust *o = &(*s)->o_rob, *t = &(*s)->s_rob;
		st_median_ratio_t mr;
		char b[12][32];

		st_median_ratio(o, t, &mr);
		if (fprintf(f, "%" PRId64 ",%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
			    (*s)->size, fmt(o->ci.median, b[0]),
			    secs(t->ci.median, b[1]), fmt(mr.ratio, b[2]),
			    fmt(mr.lo, b[3]), fmt(mr.hi, b[4]),
			    fmt(mr.level, b[5]), fmt(o->ci975.lo, b[6]),
			    fmt(o->ci975.hi, b[7]), secs(t->ci975.lo, b[8]),
			    secs(t->ci975.hi, b[9]),
			    fmt((*s)->o_without.mean / (*s)->s_without.mean,
				b[10])) < 0)
			return -1;
	}
	return 0;
}

static int write_size_stats(FILE *f, const void *data)
{
	const struct size_stats *s = data;

	if (fputs(stat_cols, f) < 0 ||
	    stats_row(f, s->size, "Streaming with Outliers", &s->s_with,
		      true) < 0 ||
	    stats_row(f, s->size, "Streaming without Outliers", &s->s_without,
		      true) < 0 ||
	    stats_row(f, s->size, "Original with Outliers", &s->o_with,
		      false) < 0 ||
	    stats_row(f, s->size, "Original without Outliers", &s->o_without,
		      false) < 0)
		return -1;
	return 0;
}

struct table_out {
	const st_compare_row *rows;
	size_t n;
};

static int write_table_csv(FILE *f, const void *data)
{
	const struct table_out *t = data;

	if (fputs("size,data_gb,file_transfer_mean_s,file_transfer_std_s,"
		  "streaming_mean_s,streaming_std_s,enhancement\n", f) < 0)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		const st_compare_row *r = &t->rows[i];
		char b[6][32];

		if (fprintf(f, "%" PRId64 ",%s,%s,%s,%s,%s,%s\n", r->size,
			    fmt(r->data_gb, b[0]), fmt(r->ft_mean, b[1]),
			    fmt(r->ft_std, b[2]), secs(r->st_mean, b[3]),
			    secs(r->st_std, b[4]), fmt(r->enhancement, b[5])) < 0)
			return -1;
	}
	return 0;
}

/* "MEAN PM STD" with one decimal, the numbers inside MATH ("$" in TeX, ""
 * in Markdown).  A group without values is "no data" and the standard
 * deviation of one value "n/a", never "nan". */
static const char *mean_pm(double mean, double std, const char *pm,
			   const char *math, char *buf, size_t size)
{
	if (isnan(mean))
		snprintf(buf, size, "no data");
	else if (isnan(std))
		snprintf(buf, size, "%s%.1f%s %s n/a", math, mean, math, pm);
	else
		snprintf(buf, size, "%s%.1f %s %.1f%s", math, mean, pm, std, math);
	return buf;
}

static const char *ratio(double v, char *buf, size_t size)
{
	if (isnan(v))
		snprintf(buf, size, "no data");
	else
		snprintf(buf, size, "%.1f", v);
	return buf;
}

int st_compare_write_md(FILE *f, const st_compare_row *rows, size_t n)
{
	if (fputs("| size | file transfer (s) | streaming (s) | enhancement |\n"
		  "|---|---|---|---|\n", f) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char ft[64], st[64], en[32];

		if (fprintf(f, "| %" PRId64 " | %s | %s | %s |\n", rows[i].size,
			    mean_pm(rows[i].ft_mean, rows[i].ft_std, "±", "", ft,
				    sizeof(ft)),
			    mean_pm(rows[i].st_mean, rows[i].st_std, "±", "", st,
				    sizeof(st)),
			    ratio(rows[i].enhancement, en, sizeof(en))) < 0)
			return -1;
	}
	return 0;
}

static int write_table_md(FILE *f, const void *data)
{
	const struct table_out *t = data;

	return st_compare_write_md(f, t->rows, t->n);
}

static int write_table_tex(FILE *f, const void *data)
{
	const struct table_out *t = data;

	if (fputs("% needs \\usepackage{booktabs} (\\toprule), "
		  "\\usepackage{makecell} and \\usepackage{float} ([H])\n"
		  "\\begin{table}[H]\n"
		  "\\caption{Comparison of file transfer and streaming times for "
		  "various data dimensions.}\n"
		  "\\centering\n"
		  "\\renewcommand{\\arraystretch}{2.5}\n"
		  "\\begin{tabular}{ccccc}\n"
		  "\\toprule\n"
		  "Data Dimension & Data Size (GB) & \\makecell{File Transfer (s) "
		  "\\\\ ($\\mu_{ft} \\pm \\sigma_{ft}$)} & \\makecell{Streaming (s) "
		  "\\\\ ($\\mu_{s} \\pm \\sigma_{s}$)} & \\makecell{Enhancement "
		  "\\\\ ($\\mu_{ft}/\\mu_{s}$)} \\\\\n"
		  "\\midrule\n", f) < 0)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		const st_compare_row *r = &t->rows[i];
		char ft[64], st[64], en[32];

		if (fprintf(f, "%" PRId64 " x %" PRId64 " x 576 x 576 & %.1f GB & "
			    "%s & %s & %s \\\\\n", r->size, r->size,
			    r->data_gb,
			    mean_pm(r->ft_mean, r->ft_std, "\\pm", "$", ft,
				    sizeof(ft)),
			    mean_pm(r->st_mean, r->st_std, "\\pm", "$", st,
				    sizeof(st)),
			    ratio(r->enhancement, en, sizeof(en))) < 0)
			return -1;
	}
	return fputs("\\bottomrule\n\\end{tabular}\n"
		     "\\label{tab:transfer_count_comparison}\n\\end{table}\n",
		     f) < 0 ? -1 : 0;
}

/* Mean save_time of TYPE for SIZE from the Stat == "mean" rows. */
static int save_mean(const st_table *t, const int *c, int64_t size,
		     const char *type, double *out, st_error *err)
{
	for (size_t r = 0; r < t->nrows; r++) {
		int64_t s;

		if (st_num_parse_int(st_table_get(t, r, c[0]), &s) < 0 || s != size ||
		    strcmp(st_table_get(t, r, c[1]), type) != 0 ||
		    strcmp(st_table_get(t, r, c[2]), "mean") != 0)
			continue;
		if (st_table_get_double(t, r, c[3], out, err) < 0)
			return -1;
		return 0;
	}
	return st_error_set(err, ST_EXIT_DATAERR,
			    "%s: no row with Size %" PRId64 ", Type %s, Stat mean",
			    t->name, size, type);
}

int st_transfer_job_times(const st_table *merged, const st_table *save_stats,
			  int64_t size, double offload, double *out, size_t *n,
			  st_error *err)
{
	static const char *const mneed[] = { "size", "Elapsed" };
	static const char *const sneed[] = { "Size", "Type", "Stat", "save_time" };
	int mc[2], sc[4];
	double real = NAN, blank = NAN;
	bool looked_up = false;

	*n = 0;
	if (st_table_require(merged, mneed, mc, 2, err) < 0)
		return -1;
	for (size_t r = 0; r < merged->nrows; r++) {
		int64_t s;
		st_duration d;
		st_error e;

		if (st_table_get_int(merged, r, mc[0], &s, err) < 0)
			return -1;
		if (s != size)
			continue;
		if (st_duration_parse(st_table_get(merged, r, mc[1]), &d, &e) < 0)
			return st_table_cell_error(merged, r, mc[1], e.text, err);
		if (!looked_up) {
			if (st_table_require(save_stats, sneed, sc, 4, err) < 0 ||
			    save_mean(save_stats, sc, size, "Real", &real, err) < 0 ||
			    save_mean(save_stats, sc, size, "Blank", &blank, err) < 0)
				return -1;
			looked_up = true;
		}
		/* SPEC 5.7: job run time + offload - 2 x the HDF5 save overhead */
		out[*n] = st_duration_seconds(d) + offload - 2.0 * (real - blank);
		if (!isfinite(out[*n]))
			return st_error_set(err, ST_EXIT_DATAERR, "%s:%zu: the "
					    "file-transfer time of size %" PRId64
					    " is not a finite number (Elapsed + "
					    "offload_time - 2 x save_time of %s "
					    "overflows)", merged->name,
					    merged->lines[r], size, save_stats->name);
		(*n)++;
	}
	return 0;
}

/* The index of the value of V (N > 0) farthest from zero: where a sum that
 * overflowed most likely went wrong. */
static size_t largest(const double *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 1; i < n; i++)
		if (fabs(v[i]) > fabs(v[k]))
			k = i;
	return k;
}

/* Line of the K-th row (0-based) of MERGED whose column SC holds SIZE. */
static size_t size_row_line(const st_table *merged, int sc, int64_t size,
			    size_t k)
{
	for (size_t r = 0; r < merged->nrows; r++) {
		int64_t s;

		if (st_num_parse_int(st_table_get(merged, r, sc), &s) == 0 &&
		    s == size && k-- == 0)
			return merged->lines[r];
	}
	return 0;
}

/* Error 65 for a group of SIZE whose statistics are not finite: the values
 * are finite, so they are too large for their sum or spread.  FILE:LINE
 * names the largest, VALUE; HOW (may be "") says where it comes from. */
static int not_finite(const char *file, size_t line, const char *group,
		      int64_t size, double value, const char *how,
		      st_error *err)
{
	char b[32];

	st_num_format(value, b, sizeof(b));
	return st_error_set(err, ST_EXIT_DATAERR, "%s:%zu: the %s statistics of "
			    "size %" PRId64 " are not finite numbers: values "
			    "like %s%s are too large to add up", file, line,
			    group, size, b, how);
}

/* Compute the statistics of one size; no output is written here. */
static int size_statistics(const st_transfers_input *in, int64_t size,
			   double offload, struct size_stats *out, st_error *err)
{
	static const char *const mneed[] = { "size", "Elapsed" };
	static const char *const sneed[] = { "Size", "Type", "Stat", "save_time" };
	static const char *const tneed[] = { "time_difference_seconds" };
	int mc[2], sc[4], tc, bc;
	double real, blank, *v = NULL;
	size_t n = 0, cap;
	st_table st;
	char name[64], *path;
	int rc = -1;

	st_table_init(&st);
	out->size = size;
	if (st_table_require(in->merged, mneed, mc, 2, err) < 0 ||
	    st_table_require(in->save_stats, sneed, sc, 4, err) < 0 ||
	    save_mean(in->save_stats, sc, size, "Real", &real, err) < 0 ||
	    save_mean(in->save_stats, sc, size, "Blank", &blank, err) < 0)
		return -1;

	snprintf(name, sizeof(name), "streaming_times_%" PRId64 ".csv", size);
	path = st_path_join(in->streaming_dir, name);
	if (!path)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	if (st_table_read(&st, path, err) < 0 ||
	    st_table_require(&st, tneed, &tc, 1, err) < 0)
		goto out;
	cap = (st.nrows > in->merged->nrows ? st.nrows : in->merged->nrows) + 1;
	v = malloc(cap * sizeof(*v));
	if (!v) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	for (size_t r = 0; r < st.nrows; r++) {
		if (st_table_get_double(&st, r, tc, &v[n++], err) < 0)
			goto out;
	}
	if (summarize_both(v, n, &out->s_with, &out->s_without) < 0 ||
	    st_stats_robust(v, n, &out->s_rob) < 0)
		goto oom;
	/* a latency is as fine as the coarser of its two times */
	out->s_rob.resolution = coarser(
		time_step(&st, st_table_col(&st, "nersc_write_time")),
		time_step(&st, st_table_col(&st, "ncem_created_time")));
	bc = st_table_col(&st, "clock_bound_seconds");
	for (size_t r = 0; bc >= 0 && r < st.nrows; r++) {
		double b;

		if (st_num_parse_double(st_table_get(&st, r, bc), &b) == 0 &&
		    (isnan(out->s_rob.clock_bound) || b > out->s_rob.clock_bound))
			out->s_rob.clock_bound = b;
	}
	if (!st_summary_finite(&out->s_with) || !st_summary_finite(&out->s_without)) {
		size_t k = largest(v, n);

		not_finite(path, st.lines[k], "streaming", size, v[k], "", err);
		goto out;
	}

	if (st_transfer_job_times(in->merged, in->save_stats, size, offload, v,
				  &n, err) < 0)
		goto out;
	if (summarize_both(v, n, &out->o_with, &out->o_without) < 0 ||
	    st_stats_robust(v, n, &out->o_rob) < 0)
		goto oom;
	/* sacct's Elapsed is whole seconds; the offload and save terms are one
	 * constant per size */
	out->o_rob.resolution = 1.0;
	if (!st_summary_finite(&out->o_with) || !st_summary_finite(&out->o_without)) {
		size_t k = largest(v, n);
		char how[512];

		snprintf(how, sizeof(how), " (Elapsed + offload_time of %s - 2 x "
			 "save_time of %s)", in->offload->name,
			 in->save_stats->name);
		not_finite(in->merged->name, size_row_line(in->merged, mc[0], size, k),
			   "file-transfer", size, v[k], how, err);
		goto out;
	}
	rc = 0;
	goto out;
oom:
	st_error_set(err, ST_EXIT_IOERR, "out of memory");
out:
	free(v);
	free(path);
	st_table_release(&st);
	return rc;
}

/* The offload time of SIZE in O (its columns size, offload_time: OC) into
 * *OFFLOAD, and the clock bound of the corrected offloads (column OB, -1:
 * none) into *OBOUND (NaN: none).  0, or -1 with ERR set: 65. */
static int offload_of(const st_table *o, const int oc[2], int ob,
		      int64_t size, double *offload, double *obound,
		      st_error *err)
{
	for (size_t r = 0; r < o->nrows; r++) {
		int64_t s;

		if (st_num_parse_int(st_table_get(o, r, oc[0]), &s) == 0 &&
		    s == size) {
			if (st_table_get_double(o, r, oc[1], offload, err) < 0)
				return -1;
			/* the clock bound of the corrected offloads */
			if (ob >= 0 && st_num_parse_double(
				    st_table_get(o, r, ob), obound) < 0)
				*obound = NAN;
			break;
		}
	}
	if (isnan(*offload))
		return st_error_set(err, ST_EXIT_DATAERR, "%s: no offload time "
				    "for size %" PRId64, o->name, size);
	return 0;
}

/* The statistics table's row CR of one size's statistics SS.  0, or -1
 * with ERR set: 65 when the enhancement is infinite. */
static int compare_row(const st_transfers_input *in,
		       const struct size_stats *ss, st_compare_row *cr,
		       st_error *err)
{
	int64_t size = ss->size;

	cr->size = size;
	/* bytes, then one division: the nearest double to the decimal
	 * (10.871635968, not 10.871635968000001) */
	cr->data_gb = (double)size * (double)size * 576.0 * 576.0 * 2.0 / 1e9;
	cr->ft_mean = ss->o_without.mean;
	cr->ft_std = ss->o_without.std;
	cr->st_mean = ss->s_without.mean;
	cr->st_std = ss->s_without.std;
	cr->enhancement = cr->ft_mean / cr->st_mean;
	cr->ft_robust = ss->o_rob;
	cr->st_robust = ss->s_rob;
	/* NaN is "no data" (a group without values); inf is not */
	if (isinf(cr->enhancement)) {
		char b[32];

		st_num_format(cr->st_mean, b, sizeof(b));
		return st_error_set(err, ST_EXIT_DATAERR, "streaming_times_%"
				    PRId64 ".csv in %s: the mean streaming "
				    "time of size %" PRId64 " is %s s, so the "
				    "enhancement (file transfer / streaming) is "
				    "not a finite number", size,
				    in->streaming_dir, size, b);
	}
	return 0;
}

int st_transfers_stats(const st_transfers_input *in, const char *outdir,
		       st_compare_row *rows, size_t *nrows, st_error *err)
{
	static const char *const oneed[] = { "size", "offload_time" };
	st_atomic_set set = { 0 };
	int oc[2];
	size_t n = in->sizes ? in->nsizes : in->offload->nrows;
	struct size_stats *ss = calloc(n + 1, sizeof(*ss));
	const struct size_stats **ssp = calloc(n + 1, sizeof(*ssp));
	st_compare_row *cr = calloc(n + 1, sizeof(*cr));
	struct table_out tout = { cr, n };
	int rc = -1;

	if (!ss || !cr || !ssp) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	if (st_table_require(in->offload, oneed, oc, 2, err) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		int64_t size = 0;
		double offload = NAN, obound = NAN;
		const st_table *o = in->offload;
		int ob = st_table_col(o, "clock_bound_seconds");

		if (!in->sizes && st_table_get_int(o, i, oc[0], &size, err) < 0)
			goto out;
		if (in->sizes)
			size = in->sizes[i];
		if (offload_of(o, oc, ob, size, &offload, &obound, err) < 0 ||
		    size_statistics(in, size, offload, &ss[i], err) < 0)
			goto out;
		ss[i].o_rob.clock_bound = obound;
		if (compare_row(in, &ss[i], &cr[i], err) < 0)
			goto out;
	}
	if (st_mkdir_p(outdir, err) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		char name[64];

		snprintf(name, sizeof(name), "statistics_transfers_%" PRId64 ".csv",
			 ss[i].size);
		if (write_file(&set, outdir, name, write_size_stats, &ss[i],
			       err) < 0)
			goto out;
	}
	if (write_file(&set, outdir, "statistics_table.csv", write_table_csv,
		       &tout, err) < 0 ||
	    write_file(&set, outdir, "statistics_table.md", write_table_md,
		       &tout, err) < 0 ||
	    write_file(&set, outdir, "statistics_table.tex", write_table_tex,
		       &tout, err) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		ssp[i] = &ss[i];
	if (write_file(&set, outdir, "medians.csv", write_medians, ssp,
		       err) < 0 ||
	    write_file(&set, outdir, "median_ratio.csv", write_median_ratio,
		       ssp, err) < 0 ||
	    st_atomic_set_commit(&set, err) < 0)
		goto out;
	if (rows)
		memcpy(rows, cr, n * sizeof(*cr));
	if (nrows)
		*nrows = n;
	rc = 0;
out:
	st_atomic_set_abort(&set);
	free(ssp);
	free(ss);
	free(cr);
	return rc;
}
