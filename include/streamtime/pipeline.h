/* pipeline.h - the steps of the analysis at file level: load the inputs,
 * run a merge or a statistic, write the outputs atomically.  The merge and
 * stats commands and `reproduce` all go through these, so a step behaves the
 * same whichever way it is run. */
#ifndef STREAMTIME_PIPELINE_H
#define STREAMTIME_PIPELINE_H

#include "streamtime/analysis.h"
#include "streamtime/merge.h"

/* DB entries are files or directories; a directory contributes its
 * {N}_{N}.csv files.  Files are taken in size order (files with a `size`
 * column last, in the order given). */
int st_run_merge_transfer(const char *jobs, const char *const db[], size_t ndb,
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

int st_run_merge_offload(const char *write_times, const st_size_range *ranges,
			 size_t nranges, const st_clock_options *clock,
			 const char *out, const char *per_scan, st_error *err);

typedef struct st_sized_path {
	int64_t size;
	const char *path;
} st_sized_path;

/* Writes OUTDIR/streaming_times_{size}.csv for each H5 file; all of them or
 * none.  RANGES (may be empty) restrict the scans of a size; when any range
 * is given, every size needs one (error 64).  RES gets the sums over sizes. */
int st_run_merge_streaming(const char *created, const st_sized_path *h5,
			   size_t nh5, const st_size_range *ranges,
			   size_t nranges, const char *tz,
			   const st_clock_options *clock, const char *outdir,
			   st_streaming_result *res, st_log *log, st_error *err);

int st_run_stats_queue(const char *merged, const char *tz, const char *outdir,
		       st_queue_result *res, st_error *err);

/* ROWS needs room for one row per size (NSIZES, or the offload file's rows
 * when SIZES is NULL; st_run_stats_transfers allocates: free *ROWS). */
int st_run_stats_transfers(const char *merged, const char *offload,
			   const char *save_stats, const char *streaming_dir,
			   const int64_t *sizes, size_t nsizes,
			   const char *outdir, st_compare_row **rows,
			   size_t *nrows, st_error *err);

#endif
