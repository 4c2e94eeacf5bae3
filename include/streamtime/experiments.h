/* experiments.h - which scans belong to which experiment.
 *
 * The paper hard-coded its scan ranges (SPEC 4.5).  Here they are data: the
 * built-in default is the paper's table, and an experiments.json replaces it:
 *
 *   { "tz": "America/Los_Angeles",          zone of naive NERSC (H5) times
 *     "slurm_tz": "UTC",                    zone of sacct's naive times
 *     "max_elapsed": "29:00",               merge transfer's elapsed limit (>= 0)
 *     "experiments": [
 *       { "size": 128, "offload": [4858, 4887], "streaming": [2709, 3688],
 *         "h5": "scan_times_2709_3688.csv" }, ... ] }
 *
 * Every experiment needs size, offload, streaming and h5; the top-level keys
 * are optional.  Unknown keys are an error, so a typo cannot be ignored.
 */
#ifndef STREAMTIME_EXPERIMENTS_H
#define STREAMTIME_EXPERIMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/time.h"

typedef struct st_range {
	int64_t first, last;    /* inclusive scan numbers */
} st_range;

typedef struct st_experiment {
	int64_t size;           /* scan is size x size probe positions */
	st_range offload;       /* file-transfer scans (write_times.csv) */
	st_range streaming;     /* streaming scans */
	char *h5;               /* H5 mtimes file, relative to streaming/ */
} st_experiment;

typedef struct st_experiments {
	st_experiment *v;
	size_t n;
	char *tz;
	char *slurm_tz;
	st_duration max_elapsed;
} st_experiments;

/* Empty EX, then room for N zeroed experiments (EX->n 0) and copies of the
 * zones TZ and SLURM_TZ.  Returns 0, or -1 when memory runs out with EX
 * released (the caller sets the error: its exit code is its own). */
int st_experiments_alloc(st_experiments *ex, size_t n, const char *tz,
			 const char *slurm_tz);

/* Fill EX with the paper's experiments.  Returns 0 or -1 (out of memory). */
int st_experiments_default(st_experiments *ex, st_error *err);

struct json_t;

/* EX from the JSON object ROOT of the file PATH (for messages): "tz",
 * "slurm_tz", "max_elapsed" and "experiments"; other keys are the
 * caller's to check.  H5_OPTIONAL: an experiment may leave out "h5".
 * Errors 78. */
int st_experiments_from_json(st_experiments *ex, struct json_t *root,
			     const char *path, bool h5_optional,
			     st_error *err);

/* 78 naming PATH and WHERE when OBJ has a key not among the NKEYS KEYS. */
int st_experiments_check_keys(struct json_t *obj, const char *const keys[],
			      size_t nkeys, const char *path,
			      const char *where, st_error *err);

/* The experiment of SIZE, borrowed, or NULL. */
const st_experiment *st_experiments_find(const st_experiments *ex, int64_t size);

void st_experiments_release(st_experiments *ex);

#endif
