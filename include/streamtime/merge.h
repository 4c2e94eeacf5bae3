/* merge.h - the three merges of SPEC 5.6.  Each reads tables already loaded
 * with st_table_read() and writes CSV to a FILE (the command layer makes it
 * atomic). */
#ifndef STREAMTIME_MERGE_H
#define STREAMTIME_MERGE_H

#include <stdio.h>

#include "streamtime/csv.h"
#include "streamtime/error.h"
#include "streamtime/experiments.h"
#include "streamtime/time.h"
#include "streamtime/tz.h"

struct st_clock_fix;

/* A Distiller export: SIZE from its {N}_{N}.csv name, or 0 when the table has
 * a `size` column instead. */
typedef struct st_db_table {
	int64_t size;
	const st_table *t;
} st_db_table;

/* The size N of a file named like "DIR/{N}_{N}.csv", or 0 when the name has
 * another form. */
int64_t st_db_size_from_name(const char *path);

/* merge transfer: the 11 columns of JOBS left-joined on `Job ID` = `slurm_id`
 * with the DB tables (taken in the given order), jobs without a match dropped,
 * every match kept, rows kept whose `elapsed` is set and <= MAX_ELAPSED.
 * Writes the header and rows to OUT; *ROWS gets the row count. */
int st_merge_transfer(const st_table *jobs, const st_db_table *db, size_t ndb,
		      st_duration max_elapsed, FILE *out, size_t *rows,
		      st_error *err);

typedef struct st_size_range {
	int64_t size;
	st_range range;
} st_size_range;

/* Columns `time0`, `time1`, ... of T (the receivers), in receiver order.
 * Fills IDX (room for MAX) and returns how many, or -1 with error 65 when T
 * has none or they are not numbered 0..R-1. */
int st_receiver_columns(const st_table *t, int idx[], size_t max,
			st_error *err);

/* merge offload: offload(scan) = time_last_written - min(time_r), written as
 * `size,offload_time` (mean over the scans of each range present in WT; a
 * range with no scan is error 65).  PER_SCAN (may be NULL) gets
 * `size,scan_number,offload_time` for every scan used.  With FIX (NULL:
 * none) every time is corrected for its host's clock (clockfix.h), and the
 * outputs say so: a `clock_correction_seconds` column (corrected minus
 * uncorrected offload; a mean in OUT) and, per scan, `clock_bound_seconds`
 * (the measurements' bounds added up). */
int st_merge_offload(const st_table *wt, const st_size_range *ranges,
		     size_t nranges, const struct st_clock_fix *fix, FILE *out,
		     FILE *per_scan, st_log *log, st_error *err);

/* An offload time longer than this (a day) or negative cannot be one:
 * st_merge_offload warns through LOG, counting them and naming up to
 * ST_IMPLAUSIBLE_NAMED scans (a copied or checked-out acquisition directory
 * has the mtimes of the copy: about 87,000,000 s on the 2023 sample). */
#define ST_OFFLOAD_MAX_S 86400.0
#define ST_IMPLAUSIBLE_NAMED 5

typedef struct st_streaming_result {
	size_t rows;          /* rows written */
	size_t negative;      /* rows with latency < 0 (clock skew) */
	size_t unmatched;     /* H5 rows without a created time */
	size_t gaps;          /* naive H5 times in a DST gap or overlap */
	size_t hourish;       /* of NEGATIVE, within ST_HOURISH_S of a
			       * non-zero whole number of hours */
	int hours;            /* the first of those, rounded to hours */
} st_streaming_result;

/* How close to a whole number of hours a negative latency is to count as
 * a time-zone shift: 10 minutes, more than the streaming latencies of the
 * paper (4 s to 2 min) and less than any zone's offset step (15 min). */
#define ST_HOURISH_S 600.0

/* The warning about R's negative latencies (none: nothing): when most are
 * negative by about a whole number of hours, or all are negative, the time
 * zone is the likelier cause, and ZONE_FIX says how to give the zone
 * ("give --tz ZONE ..."); otherwise the clocks disagree. */
void st_streaming_warn_negative(st_log *log, const st_streaming_result *r,
				const char *zone_fix);

/* merge streaming for one size: inner join of H5 (`distiller_id,
 * scan_number,datetime`) with CREATED (`scan_number,time0..`) on scan_number,
 * in H5 order, optionally restricted to RANGE.  Naive H5 times are local to TZ
 * (NULL: UTC).  Writes `distiller_id,scan_number,nersc_write_time,
 * ncem_created_time,time_difference_seconds,latency_seconds`; with FIX the
 * times are corrected to the reference clock and two columns follow:
 * `clock_correction_seconds` (corrected minus uncorrected latency) and
 * `clock_bound_seconds`. */
int st_merge_streaming(const st_table *created, const st_table *h5,
		       const st_tz *tz, const st_range *range,
		       const struct st_clock_fix *fix, FILE *out,
		       st_streaming_result *res, st_log *log, st_error *err);

#endif
