/* simulate.h - a synthetic dataset in the paper's layout (issue 9).
 *
 * st_sim_write() draws, from one seed, everything the pipeline reads:
 *
 *   DIR/experiments.json
 *   DIR/file_transfer/slurm_job_info.csv        sacct rows, with noise rows
 *   DIR/file_transfer/distiller_db/{N}_{N}.csv  id,slurm_id,elapsed
 *   DIR/file_transfer/write_times.csv           offload scans
 *   DIR/file_transfer/save_time_stats.csv       HDF5 save-time overhead
 *   DIR/streaming/ncem_file_created_times.csv   receiver times
 *   DIR/streaming/scan_times_{first}_{last}.csv NERSC mtimes, naive Pacific
 *
 * and, on request, the raw directories the collectors read: an acquisition
 * directory (status JSON and empty data files with mtimes, the scans of
 * write_times.csv) and a directory of empty counted HDF5 files with mtimes
 * (the scans of the scan_times files).  The magnitudes are the paper's
 * (st_sim_calibration); the output depends on the seed and the scale only,
 * never on the clock, the locale or the machine's time zone.
 *
 * The random numbers come from xoshiro256** seeded through splitmix64, each
 * part of the dataset from its own stream, so that a change in one part
 * leaves the others as they were.
 */
#ifndef STREAMTIME_SIMULATE_H
#define STREAMTIME_SIMULATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/experiments.h"
#include "streamtime/time.h"

struct st_tz;

/* ---------------------------------------------------------------- PRNG */

typedef struct st_rng {
	uint64_t s[4];
} st_rng;

/* splitmix64: advance *STATE and return the next output. */
uint64_t st_splitmix64(uint64_t *state);

/* Seed R from SEED and STREAM (a part of the dataset): the four words of
 * state are splitmix64 outputs of SEED mixed with STREAM. */
void st_rng_seed(st_rng *r, uint64_t seed, uint64_t stream);

/* xoshiro256**: the next 64 random bits. */
uint64_t st_rng_next(st_rng *r);

/* Uniform in [0, 1), 53 bits. */
double st_rng_uniform(st_rng *r);

/* Uniform integer in [LO, HI] (LO <= HI), without modulo bias. */
int64_t st_rng_int(st_rng *r, int64_t lo, int64_t hi);

/* Standard normal (Box-Muller, two uniforms per value). */
double st_rng_normal(st_rng *r);

/* Exponential with mean MEAN. */
double st_rng_exponential(st_rng *r, double mean);

/* Fisher-Yates shuffle of N elements of SIZE bytes at BASE. */
void st_rng_shuffle(st_rng *r, void *base, size_t n, size_t size);

/* ---------------------------------------------------------------- model */

#define ST_SIM_NSIZES 4

/* What the simulation aims at, per scan size: the paper's published
 * values (its Table 1 and figures; SPEC 4.5). */
typedef struct st_sim_target {
	int64_t size;
	double offload_mean, offload_sd;        /* s, time_last_written - created */
	double latency_mean, latency_sd;        /* s, streaming, as listed */
	double interval;                        /* s between streamed scans */
	double offload_interval;                /* s between offloaded scans */
	double transfer_mean, transfer_sd;      /* s, file transfer w/o outliers */
	double save_real, save_blank;           /* s, mean HDF5 save_time */
	double count_real, count_blank;         /* s, mean count_time */
	int files;                              /* data files per scan */
} st_sim_target;

/* The targets of size index I (0..3: 128, 256, 512, 1024), borrowed. */
const st_sim_target *st_sim_calibration(int i);

/* One draw of each modelled quantity for size index I, in seconds:
 *   elapsed:  a count job's run time (sacct Elapsed), whole seconds; a
 *             log-normal body and a few slow jobs (IQR outliers)
 *   queue:    Start - Submit, whole seconds, size-independent: most 0-30 s,
 *             a heavy tail of minutes to hours
 *   offload:  time_last_written - earliest receiver time, microseconds
 *   latency:  NERSC mtime - earliest receiver time, before listing (the
 *             listing floors it to whole seconds); OUTLIER adds a delay. */
double st_sim_draw_elapsed(st_rng *r, int i);
double st_sim_draw_queue(st_rng *r);
double st_sim_draw_offload(st_rng *r, int i);
double st_sim_draw_latency(st_rng *r, int i, bool outlier);

/* The experiments of scale K (>= 1): K x 12 streamed scans of 256, 512
 * and 1024 from scan 2101 on, K x 14 of 128 from the next hundred + 201,
 * then K x 8 offloaded scans of each size (1024 first) from the next
 * hundred + 1.  Scale 1 gives the shipped sample's ranges (128: offload
 * 2525-2532, streaming 2401-2414, ...).  EX is filled in size order 128,
 * 256, 512, 1024 with tz and slurm_tz "America/Los_Angeles" and
 * max_elapsed 29:00; release it.  Error only when out of memory (74). */
int st_sim_experiments(unsigned scale, st_experiments *ex, st_error *err);

/* ---------------------------------------------------------------- names */

/* "4dstem_rec_status_{r}_scan_{n}.json" (SPEC 4.1). */
size_t st_sim_status_name(char *buf, size_t size, int receiver, int64_t scan);

/* The INDEX-th data file of a scan: receiver r = INDEX % 4 holds modules
 * 4r..4r+3; j = INDEX / 4 is spread over 6 dst threads, then file numbers:
 * "data_scan{n:010d}_module{4r}to{4r+3}_dst{j%6}_file{j/6}.data". */
size_t st_sim_data_name(char *buf, size_t size, int64_t scan, int index);

/* "FOURD_{yymmdd}_{HHMM}_{id:05}_{scan:05}{suffix}.h5" with the date and
 * time of CREATED in PACIFIC (SPEC 4.2).  SUFFIX may be NULL. */
size_t st_sim_h5_name(char *buf, size_t size, st_instant created,
		      const struct st_tz *pacific, int64_t distiller_id,
		      int64_t scan, const char *suffix);

/* ---------------------------------------------------------------- output */

typedef struct st_sim_opts {
	uint64_t seed;
	unsigned scale;            /* row counts x SCALE, 1..ST_SIM_SCALE_MAX */
	int files_per_scan;        /* acquisition data files; 0: by size */
	const char *acquisition;   /* raw receiver directory, or NULL */
	const char *counted;       /* counted HDF5 directory, or NULL */
	bool force;                /* write into non-empty directories */
} st_sim_opts;

#define ST_SIM_SCALE_MAX 10000
#define ST_SIM_FILES_MAX 10000

typedef struct st_sim_summary {
	size_t jobs;               /* count jobs (sacct rows that pass the filters) */
	size_t noise;              /* sacct rows the filters drop (steps, others) */
	size_t db_rows;            /* Distiller rows, all sizes */
	size_t offload_scans;      /* write_times.csv rows */
	size_t streaming_scans;    /* rows of the scan_times files */
	size_t created_rows;       /* ncem_file_created_times.csv rows */
	size_t acquisition_files;  /* files written in o->acquisition */
	size_t counted_files;      /* files written in o->counted */
} st_sim_summary;

/* Is PATH a directory with entries, or something other than a directory?
 * Returns 0 when it is missing or an empty directory, else -1 with ERR
 * (73): "PATH is not empty" or "PATH is not a directory". */
int st_sim_check_empty(const char *path, st_error *err);

/* Write the dataset into DIR (created with its parents), and the raw
 * directories O asks for.  Unless O->force, DIR and the raw directories
 * must be missing or empty (73).  The dataset's files are all complete
 * on disk before the first is renamed into place; the raw directories are
 * written after that, each status file through a temporary "*.tmp" name
 * that the collectors ignore.  Errors: 73 cannot create, 74 I/O, 78 the
 * zone database lacks America/Los_Angeles.  SUM may be NULL. */
int st_sim_write(const char *dir, const st_sim_opts *o, st_sim_summary *sum,
		 st_error *err);

#endif
