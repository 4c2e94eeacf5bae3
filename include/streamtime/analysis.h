/* analysis.h - the statistics of SPEC 5.7 over merged data, written as the
 * paper's output files (atomically) into a directory. */
#ifndef STREAMTIME_ANALYSIS_H
#define STREAMTIME_ANALYSIS_H

#include <stdio.h>

#include "streamtime/csv.h"
#include "streamtime/error.h"
#include "streamtime/stats.h"
#include "streamtime/tz.h"

typedef struct st_queue_result {
	st_summary with_outliers, without_outliers;
	st_robust robust;           /* median, interval, what the rule drops */
	size_t days;
} st_queue_result;

/* stats queue: queue time = Start - Submit of MERGED (naive times in TZ,
 * NULL: UTC).  Writes queue_time_statistics.csv, ranked_days.csv and
 * ranked_days_by_month.csv into OUTDIR (the paper's files), and beside them
 * queue_time_median.csv (ST_MEDIANS_HEADER, one row). */
int st_queue_stats(const st_table *merged, const st_tz *tz,
		   const char *outdir, st_queue_result *res, st_error *err);

/* One row of the paper's comparison table. */
typedef struct st_compare_row {
	int64_t size;
	double data_gb;
	double ft_mean, ft_std;     /* file transfer, outliers removed */
	double st_mean, st_std;     /* streaming, outliers removed */
	double enhancement;         /* ft_mean / st_mean */
	st_robust ft_robust, st_robust; /* medians, intervals, drops */
} st_compare_row;

/* The columns of medians.csv and queue_time_median.csv: per group its
 * median, the distribution-free 95 % interval (st_stats_median_ci; empty
 * cells when n < 6), the interval's exact coverage, the step of its inputs
 * and the largest clock-offset bound (empty: not measured), and what the
 * paper's IQR rule does to it. */
#define ST_MEDIANS_HEADER \
	"group,size,n,median,ci_low,ci_high,ci_level,ci_method," \
	"resolution_s,clock_bound_s,iqr,outliers_dropped,outliers_share\n"

/* The columns of median_ratio.csv: per size the file-transfer and
 * streaming medians (all values, no outlier rule), their ratio with an
 * interval of coverage at least ratio_level (st_median_ratio), the two
 * 97.5 % intervals it is made of, and the paper's ratio of means without
 * outliers (the enhancement of statistics_table.csv). */
#define ST_MEDIAN_RATIO_HEADER \
	"size,file_transfer_median,streaming_median,median_ratio,ratio_low," \
	"ratio_high,ratio_level,file_transfer_ci975_low," \
	"file_transfer_ci975_high,streaming_ci975_low,streaming_ci975_high," \
	"mean_ratio\n"

typedef struct st_median_ratio_t {
	double ratio;           /* file-transfer median / streaming median */
	double lo, hi;          /* NaN when either group is too small */
	double level;           /* a lower bound of the coverage of [lo, hi] */
} st_median_ratio_t;

/* The ratio of FT's median to ST's, with the interval [ft_lo / st_hi,
 * ft_hi / st_lo] of their 97.5 % order-statistic intervals (ci975): it
 * holds the true ratio whenever both intervals hold their medians, so
 * with probability at least 1 - (1 - level_ft) - (1 - level_st) >= 95 %. */
void st_median_ratio(const st_robust *ft, const st_robust *st,
		     st_median_ratio_t *out);

/* A warning through LOG when the IQR rule misleads on R
 * (st_robust_misleads): WHAT names the group ("128x128 streaming"), FILE
 * where its median and interval are written.  Nothing otherwise. */
void st_robust_warn(st_log *log, const char *what, const st_robust *r,
		    const char *file);

typedef struct st_transfers_input {
	const st_table *merged;     /* merged_job_info.csv */
	const st_table *offload;    /* ncem_offload_times.csv */
	const st_table *save_stats; /* save_time_stats.csv */
	const char *streaming_dir;  /* holds streaming_times_{size}.csv */
	const int64_t *sizes;       /* NULL: every size of OFFLOAD, in order */
	size_t nsizes;
} st_transfers_input;

/* stats transfers: writes statistics_transfers_{size}.csv per size and
 * statistics_table.{csv,md,tex} into OUTDIR (the paper's files), and
 * medians.csv (ST_MEDIANS_HEADER: streaming and file_transfer per size).  ROWS (room for one per size,
 * may be NULL) gets the table; *NROWS its length. */
int st_transfers_stats(const st_transfers_input *in, const char *outdir,
		       st_compare_row *rows, size_t *nrows, st_error *err);

/* The file-transfer time (SPEC 5.7) of every job of SIZE in MERGED, in row
 * order: Elapsed + OFFLOAD - 2 x (mean save_time of Type Real - of Type
 * Blank for SIZE in SAVE_STATS).  OUT needs room for MERGED's rows; *N gets
 * how many jobs had SIZE.  The save_time means are looked up only when
 * there is such a job.  Errors 65: a missing column, a bad size or Elapsed
 * cell, no Stat mean row for SIZE. */
int st_transfer_job_times(const st_table *merged, const st_table *save_stats,
			  int64_t size, double offload, double *out, size_t *n,
			  st_error *err);

/* The comparison table as Markdown (what `reproduce` prints). */
int st_compare_write_md(FILE *f, const st_compare_row *rows, size_t n);

#endif
