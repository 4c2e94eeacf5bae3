/* timeline.h - every scan's journey as a Chrome trace (SPEC 5.9).
 *
 * Chrome's Trace Event format, object form ({"traceEvents": [...],
 * "displayTimeUnit": "ms", ...}), which Perfetto UI and chrome://tracing
 * load.  One process per stage, in this order:
 *   1 receivers      each receiver's status time per scan (zero-length
 *                    slice), a track per receiver
 *   2 NCEM offload   earliest receiver time to the last data write
 *                    (file-transfer scans, write_times.csv)
 *   3 Slurm queue    Submit to Start (merged_job_info.csv)
 *   4 Slurm run      Start to End
 *   5 NERSC write    the counted HDF5 file's mtime (zero-length slice)
 *   6 streaming      NCEM created time to the NERSC write
 * and, past the receivers, a track per scan size.  Slices on one track
 * never overlap: where two would (jobs queued together), the second goes to
 * another lane of the same size, "256x256 (2)".  ts and dur are integer
 * microseconds since the epoch (UTC).  args carry distiller_id, scan,
 * job_id, size and the stage's duration in seconds; where the merged file
 * carried a clock correction (clock_correction_seconds), args say so.
 * In Perfetto's protobuf form (IN->format) the same events, through the
 * same writer (ctrace.h).
 */
#ifndef STREAMTIME_TIMELINE_H
#define STREAMTIME_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "streamtime/ctrace.h"
#include "streamtime/error.h"
#include "streamtime/experiments.h"
#include "streamtime/time.h"

enum st_stage {
	ST_STAGE_RECEIVERS,
	ST_STAGE_OFFLOAD,
	ST_STAGE_QUEUE,
	ST_STAGE_RUN,
	ST_STAGE_NERSC_WRITE,
	ST_STAGE_STREAMING,
	ST_STAGE_N
};

/* The inputs; any path may be NULL (that stage stays empty). */
typedef struct st_timeline_input {
	const char *merged;        /* merged_job_info.csv (merge transfer) */
	const char *write_times;   /* the dataset's write_times.csv */
	const char *created;       /* the dataset's ncem_file_created_times.csv */
	const char *streaming_dir; /* holds streaming_times_{size}.csv (merge
				    * streaming); a size's missing file is
				    * an empty size */
	const st_experiments *ex;  /* sizes, offload ranges, slurm_tz */
	const char *acq, *compute; /* the sites' names for the offload and
				    * write processes; NULL: NCEM, NERSC */
	const struct st_clock_fix *fix; /* NULL, or the receivers' and the
				    * data host's clocks, corrected as the
				    * merges do (the streaming files are
				    * corrected already) */
	st_ctrace_format format;   /* the output's: JSON (0) or Perfetto's
				    * protobuf (st_timeline_write) */
	bool gzip;                 /* the file gzipped (_write_file) */
} st_timeline_input;

typedef struct st_timeline_counts {
	size_t slices[ST_STAGE_N];
	size_t transfer_jobs;      /* rows of merged_job_info.csv */
	size_t streaming_scans;    /* rows of the streaming_times files */
	size_t offload_scans;      /* write_times rows in an offload range */
	size_t events;             /* X and M events written */
} st_timeline_counts;

/* Read IN and write the trace to OUT.  Returns 0, or -1 with ERR set: 66 an
 * input missing, 65 a bad row (file, line, column), 74 a write error.
 * Warnings (a slice ending before it starts, kept as zero-length) go to
 * LOG.  COUNTS may be NULL. */
int st_timeline_write(const st_timeline_input *in, FILE *out,
		      st_timeline_counts *counts, st_log *log, st_error *err);

/* The same events appended to the traceEvents array that W is writing
 * (another trace's, say), processes PID_BASE + 1 .. +6.  A write error
 * shows in st_ctrace_finish. */
int st_timeline_append(const st_timeline_input *in, st_ctrace *w,
		       int pid_base, st_timeline_counts *counts, st_log *log,
		       st_error *err);

/* st_timeline_write into the file at PATH ('-': stdout), written
 * atomically, gzipped when IN->gzip. */
int st_timeline_write_file(const st_timeline_input *in, const char *path,
			   st_timeline_counts *counts, st_log *log,
			   st_error *err);

/* The stage's process name, e.g. "Slurm queue". */
const char *st_stage_name(enum st_stage s);

#endif
