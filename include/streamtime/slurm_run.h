/* slurm_run.h - `slurm jobs` at file level: accounting rows from sacct,
 * slurmrestd or a saved dump, filtered, written atomically as CSV. */
#ifndef STREAMTIME_SLURM_RUN_H
#define STREAMTIME_SLURM_RUN_H

#include "streamtime/sacct.h"
#include "streamtime/slurm.h"
#include "streamtime/slurmrest.h"

struct st_tz;

typedef struct st_slurm_jobs_opts {
	const char *out;        /* the CSV; "-": stdout */
	const char *input;      /* a saved dump instead of a live query */
	const char *delim;      /* the dump's delimiter, NULL: from its header */
	const char *zone;       /* zone of the naive times, by name */
	const struct st_tz *tz; /* the same, loaded */
	const char *since, *until; /* ISO date/time, naive in ZONE, or NULL
				   * (UNTIL: now; SINCE: 30 days before) */
	st_slurm_filter filter;
	st_sacct_opts sacct;    /* user, all_users, window (seconds), notes;
				 * the rest is filled in (the binary:
				 * $STREAMTIME_SACCT, else sacct) */
	st_slurmrest_opts rest; /* REST.url set: slurmrestd instead of sacct;
				 * REST.tz is set to TZ */
} st_slurm_jobs_opts;

typedef struct st_slurm_jobs_result {
	size_t fetched;         /* rows read */
	size_t kept;            /* rows written */
} st_slurm_jobs_result;

/* Fetch, filter and write O's rows.  Returns 0, or -1 with ERR set: 64 a
 * bad --since/--until or range (the message names the option), the
 * fetch's and the dump parser's codes, 73/74 for the output.  LOG gets
 * what sacct or slurmrestd said although they succeeded. */
int st_slurm_jobs_run(const st_slurm_jobs_opts *o, st_slurm_jobs_result *res,
		      st_log *log, st_error *err);

#endif
