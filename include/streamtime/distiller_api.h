/* distiller_api.h - the JSON of the Distiller REST API (SPEC 4.4), parsed
 * apart from the HTTP of st_distiller_api_fetch (distiller.h) so that the
 * unit tests and a fuzzer can reach it.
 *
 * GET /api/v1/jobs answers a JSON array of jobs:
 *   {"id": 7, "job_type": "count", "slurm_id": 123 | null,
 *    "elapsed": 259.5 | null, "scan_ids": [4, 5], ...}
 * elapsed in (float) seconds, as pydantic writes a timedelta; a job from
 * before mid-2023 may carry one "scan_id" instead of "scan_ids".
 * GET /api/v1/scans/{id} answers one scan:
 *   {"id": 4, "scan_id": 88, "created": "...", "metadata": {...}}
 * whose size is in metadata "Dimensions 1"/"Dimensions 2" (4D Camera) or
 * "Dimensions.1"/"Dimensions.2" (other microscopes).
 */
#ifndef STREAMTIME_DISTILLER_API_H
#define STREAMTIME_DISTILLER_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/time.h"

typedef struct st_distiller_api_job {
	int64_t id;
	bool has_slurm_id;
	int64_t slurm_id;
	bool has_elapsed;
	st_duration elapsed;    /* rounded to whole microseconds */
	int64_t *scan_ids;      /* ascending, no duplicates */
	size_t n_scan_ids;
} st_distiller_api_job;

typedef struct st_distiller_api_jobs {
	st_distiller_api_job *v;
	size_t n, cap;
} st_distiller_api_jobs;

/* What a page held besides the jobs kept: for the paging. */
typedef struct st_distiller_api_page {
	size_t n_jobs;          /* jobs on the page, kept or not */
	int64_t last_id;        /* id of its last job (0 when empty) */
} st_distiller_api_page;

/* Free the jobs of JS and reset it.  JS may be NULL. */
void st_distiller_api_jobs_release(st_distiller_api_jobs *js);

/* Parse an X-Total-Count header value, S of LEN bytes (blanks trimmed
 * already), into *OUT: 1 to 18 ASCII digits, nothing else (no sign, no
 * blank).  0, or -1 when S is not such a count. */
int st_distiller_api_parse_total(const char *s, size_t len, int64_t *out);

/* Parse one /api/v1/jobs page, BODY of LEN bytes (SHOWN, its URL, names
 * it in messages), appending to OUT the jobs whose job_type is JOB_TYPE
 * (NULL: every job).  PAGE (may be NULL) gets what the page held.
 * "id" and "job_type" are required; "slurm_id" (an integer) and "elapsed"
 * (a number of seconds, 0 to 9e9: a negative one is refused) must be
 * present and may be null; "scan_ids" an array of integers (null: none).
 * Returns 0, or -1 with ERR set and OUT as it was: 65 not JSON, not an
 * array, a field missing or of the wrong type (the job and field named);
 * 74 allocation failure. */
int st_distiller_api_parse_jobs(const char *body, size_t len,
				const char *shown, const char *job_type,
				st_distiller_api_jobs *out,
				st_distiller_api_page *page, st_error *err);

typedef struct st_distiller_api_scan {
	int64_t id;             /* scans.id */
	int64_t size;           /* N > 0 when both dimensions are the number
				 * N, else 0 */
} st_distiller_api_scan;

/* Parse one /api/v1/scans/{id} body (as above) into OUT.  Per dimension
 * the spaced key when present, else the dotted one; a dimension counts
 * when it is a JSON number with an integer value (1024.0 is 1024).
 * "metadata" must be present and may be null (no size).  Returns 0, or -1
 * with ERR set: 65 not JSON, not an object, "id" or "metadata" missing or
 * of the wrong type. */
int st_distiller_api_parse_scan(const char *body, size_t len,
				const char *shown, st_distiller_api_scan *out,
				st_error *err);

#endif
