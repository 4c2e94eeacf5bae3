/* slurm.h - Slurm accounting rows, whichever source they come from (SPEC
 * 4.3, 5.4): the sacct command, a saved sacct dump, or slurmrestd.
 *
 * Every source fills the same st_slurm_jobs with the 11 values of the
 * paper's slurm_job_info.csv, as sacct prints them:
 *   Job Name, Job ID, Timelimit, Elapsed, Submit, Start, End, ReqNodes, QOS,
 *   User, ExitCode
 * Timelimit/Elapsed "[D-]HH:MM:SS", "UNLIMITED", "Partition_Limit"; Submit,
 * Start, End naive local "YYYY-MM-DDTHH:MM:SS" or "Unknown"/"None";
 * ExitCode "exit:signal".  The filters (st_slurm_filter) then apply alike.
 */
#ifndef STREAMTIME_SLURM_H
#define STREAMTIME_SLURM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "streamtime/error.h"

enum st_slurm_field {
	ST_SLURM_NAME, ST_SLURM_ID, ST_SLURM_TIMELIMIT, ST_SLURM_ELAPSED,
	ST_SLURM_SUBMIT, ST_SLURM_START, ST_SLURM_END, ST_SLURM_REQNODES,
	ST_SLURM_QOS, ST_SLURM_USER, ST_SLURM_EXITCODE, ST_SLURM_NFIELDS
};

/* The output header, exactly the paper's. */
extern const char *const st_slurm_header[ST_SLURM_NFIELDS];

/* sacct --format names of the fields, in st_slurm_field order. */
extern const char *const st_slurm_sacct_names[ST_SLURM_NFIELDS];

typedef struct st_slurm_job {
	char *f[ST_SLURM_NFIELDS];      /* owned */
} st_slurm_job;

typedef struct st_slurm_jobs {
	st_slurm_job *v;
	size_t n, cap;
} st_slurm_jobs;

/* Append a job with copies of the N=ST_SLURM_NFIELDS values F (NULL is
 * taken as "").  Error 74 on allocation failure. */
int st_slurm_jobs_add(st_slurm_jobs *js, const char *const f[ST_SLURM_NFIELDS],
		      st_error *err);

void st_slurm_jobs_release(st_slurm_jobs *js);

/* Check the values F of one row of sacct's output (live or a saved dump)
 * before anything uses them.  Bad data, whatever the filters would do:
 *   Job ID   empty or not starting with a digit (N, N.step, N_T, N+K);
 *   Submit, Start, End   empty or not a timestamp, "Unknown"/"None" aside
 *            (sacct's unset: the Start filter drops such jobs later);
 *   Elapsed  not a duration, or negative.
 * The other fields are text that only the filters look at.  Returns -1
 * when the row is good, else the st_slurm_field of the first bad value,
 * with WHY (SIZE bytes) saying what is wrong. */
int st_slurm_job_check(const char *const f[ST_SLURM_NFIELDS], char *why,
		       size_t size);

/* The paper's filters; a NULL or "" member is not applied. */
typedef struct st_slurm_filter {
	const char *name_contains;   /* default "distiller-count" */
	const char *req_nodes;       /* default "4" */
	const char *qos_contains;    /* default "realtime_" */
	const char *exit_code;       /* default "0:0" */
	const char *user;            /* default none */
	bool need_start;             /* Start not Unknown/None (default true) */
} st_slurm_filter;

/* Keep the jobs that pass F: steps (ids with '.') dropped, a job id kept
 * once (its first occurrence).  Returns how many were dropped. */
size_t st_slurm_filter_apply(st_slurm_jobs *js, const st_slurm_filter *f);

/* Write the header and the jobs as CSV.  Returns 0 or -1 (errno). */
int st_slurm_jobs_write(FILE *out, const st_slurm_jobs *js);

#endif
