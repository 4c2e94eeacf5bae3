/* slurmrest.h - Slurm accounting from slurmrestd (SPEC 4.3, 5.4): the
 * `--rest URL` source of `streamtime slurm jobs`.
 *
 * GET {url}/slurmdb/{version}/jobs?start_time=..&end_time=..[&users=..] per
 * window, with X-SLURM-USER-NAME / X-SLURM-USER-TOKEN, and every allocation
 * of jobs[] (the nested steps[] are not rows) turned into the 11 sacct-form
 * values of slurm.h, so that the filters apply as to sacct's output:
 *   Job ID     array task "J_T" (J the array's master id), pending array
 *              "J_[1-3]", het component "N+K", else "N"
 *   Timelimit  minutes as "[D-]HH:MM:SS", "UNLIMITED", "Partition_Limit",
 *              "" for 0 (as sacct)
 *   Elapsed    seconds as "[D-]HH:MM:SS"
 *   Submit, Start, End   naive "%FT%T" in the caller's zone; 0 "Unknown"
 *   ReqNodes   the count of tres.requested[] with type "node", else ""
 *   ExitCode   "rc:signal" (rc >= 128 less 128, as sacct); "" while pending;
 *              ST_SLURMREST_FAILED_EXIT for a failed job up to v0.0.39
 * The schemas differ by version (int or {set,infinite,number}, string or
 * array states); the parser takes either form wherever one occurs.  In
 * v0.0.38 and v0.0.39 exit_code.return_code reads 0 for every normal exit,
 * failed ones included: there a job that reads 0:0 but whose state.current
 * is FAILED, TIMEOUT, CANCELLED, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL,
 * DEADLINE or PREEMPTED gets ST_SLURMREST_FAILED_EXIT instead (what sacct
 * shows for a script's `exit 1`), so that the paper's exit-code filter 0:0
 * drops it as it would drop it from sacct's rows; one warning per fetch
 * counts those jobs.
 */
#ifndef STREAMTIME_SLURMREST_H
#define STREAMTIME_SLURMREST_H

#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/slurm.h"

struct st_tz;

/* The ExitCode of a failed job whose slurmrestd (v0.0.38, v0.0.39) says
 * 0:0: its true code is lost. */
#define ST_SLURMREST_FAILED_EXIT "1:0"

typedef struct st_slurmrest_opts {
	const char *url;        /* base, e.g. http://127.0.0.1:6820 */
	const char *user;       /* X-SLURM-USER-NAME (NULL: $USER, getpwuid) */
	const char *token;      /* X-SLURM-USER-TOKEN, NULL: send no auth
				 * headers (rest_auth/local); never logged or
				 * put in a message */
	const char *version;    /* "v0.0.38".."v0.0.41", NULL: auto-detect */
	const char *cacert;     /* CA bundle for https, may be NULL */
	long timeout_s;         /* per request, its retries included, <= 0:
				 * none */
	int retries;            /* extra attempts on connection errors, 5xx */
	size_t max_body;        /* bytes per response, 0: the default of
				 * http.h */
	const struct st_tz *tz; /* zone of the printed times and of the query's
				 * start_time/end_time (NULL: UTC); must be
				 * slurmrestd's zone, as for sacct -S/-E */
} st_slurmrest_opts;

/* Append to OUT the allocations that slurmrestd reports for [SINCE, UNTIL)
 * (UTC seconds since the epoch), one request per WINDOW_S seconds (<= 0: one
 * window), USERS (comma-separated names, NULL or "": everyone) passed on as
 * the users query (v0.0.38 has none: there the rows are kept by their User
 * here).  Version O->version, or the first of v0.0.41, .40, .39,
 * .38 whose jobs endpoint does not answer 404.  A job running across a
 * window boundary comes once per window; st_slurm_filter_apply keeps the
 * first.  Connection errors and 5xx are retried O->retries times with
 * exponential backoff (0.25 s, 0.5 s, ...) while O->timeout_s lasts: each
 * request, retries included, ends within it.
 * Returns 0, or -1 with ERR set and OUT as it was: 64 bad options, 69
 * slurmrestd unreachable or HTTP error (status and errors[].description),
 * 65 a malformed response, 74 allocation failure.  Warnings go to LOG. */
int st_slurmrest_fetch(const st_slurmrest_opts *o, int64_t since,
		       int64_t until, int64_t window_s, const char *users,
		       st_slurm_jobs *out, st_log *log, st_error *err);

/* Convert one /slurmdb/VERSION/jobs response body (LEN bytes) and append its
 * jobs to OUT, times in TZ (NULL: UTC).  VERSION ("v0.0.38".."v0.0.41";
 * NULL or another: the newest schema) names the schema in messages and
 * decides the failed jobs' ExitCode (v0.0.38/39: see above) and the warning
 * that counts them, given once per call.  "Nothing found" (errors[] holding error_number 9003) is an
 * empty result.  Returns 0, or -1 with ERR set and OUT as it was: 65 not
 * JSON, no jobs[], a field of the wrong type; 69 slurmrestd reported
 * another error; 74 allocation failure. */
int st_slurmrest_parse(const char *body, size_t len, const char *version,
		       const struct st_tz *tz, st_slurm_jobs *out, st_log *log,
		       st_error *err);

#endif
