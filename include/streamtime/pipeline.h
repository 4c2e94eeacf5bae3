/* pipeline.h - the steps of the analysis at file level: load the inputs,
 * run a merge or a statistic, write the outputs atomically.  The merge and
 * stats commands and `reproduce` all go through these, so a step behaves the
 * same whichever way it is run. */
#ifndef STREAMTIME_PIPELINE_H
#define STREAMTIME_PIPELINE_H

#include "streamtime/analysis.h"
#include "streamtime/merge.h"
#include "streamtime/experiments.h"
#include "streamtime/savetimes.h"
#include "streamtime/clockfix.h"

/* DB entries are files or directories; a directory contributes its
 * {N}_{N}.csv files.  Files are taken in size order (files with a `size`
 * column last, in the order given). */
int st_merge_transfer_run(const char *jobs, const char *const db[], size_t ndb,
			  st_duration max_elapsed, const char *out,
			  size_t *rows, st_error *err);

/* Clock corrections of a merge (clockfix.h): the `clock probe` file and the
 * hosts whose clocks stamped the times.  A NULL st_clock_options, or one
 * without OFFSETS, means no correction: outputs as without the options. */
typedef struct st_clock_options {
	const char *offsets;          /* path of the offsets CSV */
	const char *receiver_hosts;   /* "h0,h1,...": time0, time1, ... */
	const char *data_host;        /* time_last_written; NULL: reference */
	const char *nersc_host;       /* H5 datetime; NULL: reference */
} st_clock_options;

/* What st_clock_options turn into: the offsets read, the fix that applies
 * them, and what it found far from its measurements.  ON: a correction is
 * asked (OFFSETS given); else the rest is empty. */
typedef struct st_clock_setup {
	st_table t;
	st_clock_offsets o;
	st_clock_fix fix;
	st_clock_far far;
	char *hosts;            /* owned: FIX.receiver points into it */
	bool on;
} st_clock_setup;

/* Load OPT (may be NULL: C->on false) into C, which must be released
 * either way.  Errors: 64 offsets without receiver_hosts, the offsets
 * file's (66, 65), 74. */
int st_clock_setup_load(st_clock_setup *c, const st_clock_options *opt,
			st_error *err);
void st_clock_setup_release(st_clock_setup *c);

/* LOG gets st_merge_offload's warnings, and one when the clock offsets
 * were measured more than a day from the times they correct. */
int st_merge_offload_run(const char *write_times, const st_size_range *ranges,
			 size_t nranges, const st_clock_options *clock,
			 const char *out, const char *per_scan, st_log *log,
			 st_error *err);

typedef struct st_sized_path {
	int64_t size;
	const char *path;
} st_sized_path;

typedef struct st_merge_streaming_opts {
	const char *created;            /* ncem_file_created_times.csv */
	const st_sized_path *h5;        /* one H5 times file per size */
	size_t nh5;
	const st_size_range *ranges;    /* may be empty */
	size_t nranges;
	const char *tz;                 /* zone of naive H5 times; NULL: UTC */
	const st_clock_options *clock;  /* may be NULL */
	const char *outdir;
} st_merge_streaming_opts;

/* Writes OUTDIR/streaming_times_{size}.csv for each H5 file; all of them or
 * none.  RANGES (may be empty) restrict the scans of a size; when any range
 * is given, every size needs one (error 64).  RES gets the sums over sizes. */
int st_merge_streaming_run(const st_merge_streaming_opts *o,
			   st_streaming_result *res, st_log *log, st_error *err);

int st_stats_queue_run(const char *merged, const char *tz, const char *outdir,
		       st_queue_result *res, st_error *err);

typedef struct st_stats_transfers_opts {
	const char *merged;             /* merged_job_info.csv */
	const char *offload;            /* ncem_offload_times.csv */
	const char *save_stats;         /* save_time_stats.csv */
	const char *streaming_dir;      /* holds streaming_times_{size}.csv */
	const int64_t *sizes;           /* NULL: every size of OFFLOAD */
	size_t nsizes;
	const char *outdir;
} st_stats_transfers_opts;

/* One row per size (NSIZES, or the offload file's rows when SIZES is
 * NULL) into *ROWS, allocated here: free it. */
int st_stats_transfers_run(const st_stats_transfers_opts *o,
			   st_compare_row **rows, size_t *nrows,
			   st_error *err);

/* The warnings of st_robust_warn for the queue times and for each size's
 * streaming and file-transfer times, naming the file under OUTDIR that
 * holds the medians and intervals. */
void st_robust_warns_queue(st_log *log, const st_queue_result *q,
			   const char *outdir);
void st_robust_warns_transfers(st_log *log, const st_compare_row *rows,
			       size_t n, const char *outdir);

/* ---- the analysis of `reproduce` ---- */

/* The inputs of a session (session.h) and where the analysis writes
 * (directories created). */
typedef struct st_analysis_paths {
	const char *jobs;               /* slurm_job_info.csv */
	const char *db;                 /* distiller_db */
	const char *write_times, *created;
	const char *save_stats;         /* save_time_stats.csv; NULL: made
					 * from SAVE_TIMES into OUT_SAVE_STATS */
	const char *save_times;         /* save_times.json */
	const st_save_rule *save_rules; /* its scans' sizes and types */
	size_t nsave_rules;
	const char *out_save_stats;
	const char *const *h5;          /* the experiments' H5 files; NULL:
					 * STREAMING/ex->v[i].h5 */
	const char *streaming;
	const st_clock_options *clock;  /* NULL: no correction */
	const char *out_ft, *out_st, *out_stats;
	const char *merged, *offload, *per_scan;
} st_analysis_paths;

typedef struct st_analysis_result {
	size_t merged;                  /* rows of merge transfer */
	st_streaming_result streaming;
	st_compare_row *rows;           /* stats transfers' table: free it */
	size_t nrows;
	bool step_failed;               /* on -1: a step (not the set-up)
					 * failed */
	st_save_stats_info save;        /* when made from the records */
	size_t left_out;                /* sizes without scans */
	const char *save_stats;         /* the statistics used (borrowed) */
} st_analysis_result;

/* Merge transfer, offload and streaming, stats queue and transfers over
 * the experiments EX, in that order.  A size whose offload or streaming
 * range selects no scan is left out first: removed from EX, with a
 * warning through LOG, and listed in OUT_STATS/sizes_left_out.csv (65
 * when none is left).  NOTES (may be NULL) gets a line per step with its
 * time; LOG the steps' warnings.  Returns 0, or -1 with ERR set;
 * RES->rows is NULL then. */
int st_analysis_run(const st_analysis_paths *p, st_experiments *ex,
		    st_analysis_result *res, st_log *log, st_log *notes,
		    st_error *err);

#endif
