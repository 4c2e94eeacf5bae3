/* distiller.h - the Distiller job table (SPEC 4.4, 5.5): which count job ran
 * on which scan, under which Slurm job id, for how long.
 *
 * Two sources deliver the same rows: the database through libpq
 * (distiller_pg.c, both schema generations) and the REST API through
 * libcurl (distiller_api.c).  A row is one scan/job pair whose scan has both
 * dimensions equal to one of the requested sizes ("Dimensions 1"/"Dimensions
 * 2" or "Dimensions.1"/"Dimensions.2", JSON numbers, per dimension the
 * spaced key first).  Rows come in ascending (job id, scan id) order, so
 * the two sources, and the two schemas, give byte-identical files.
 *
 * The sink writes OUTDIR/{N}_{N}.csv with `id,slurm_id,elapsed`: scans.id,
 * jobs.slurm_id (empty when NULL), jobs.elapsed as [-]HH:MM:SS[.ffffff]
 * (hours keep counting past 24: "26:00:00", "100:00:00"; the fraction only
 * when non-zero, as psql prints an interval under a day; empty when NULL).
 */
#ifndef STREAMTIME_DISTILLER_H
#define STREAMTIME_DISTILLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/time.h"

/* What to select. */
typedef struct st_distiller_query {
	const int64_t *sizes;   /* N of {N}_{N}.csv, each > 0, no duplicates */
	size_t n_sizes;
	const char *job_type;   /* "count", "transfer", ...; NULL: every job */
} st_distiller_query;

/* One output row. */
typedef struct st_distiller_row {
	int64_t job_id;         /* jobs.id: the order, not written */
	int64_t scan_id;        /* scans.id (the distiller_id), column `id` */
	size_t size_index;      /* index into st_distiller_query.sizes */
	bool has_slurm_id;
	int64_t slurm_id;
	bool has_elapsed;
	st_duration elapsed;    /* at most microseconds, as PostgreSQL keeps */
} st_distiller_row;

/* Called once per row, in ascending (job_id, scan_id) order.  Returns 0, or
 * -1 with ERR set to stop the fetch (the fetch then returns -1 with it). */
typedef int (*st_distiller_sink)(void *ctx, const st_distiller_row *row,
				 st_error *err);

/* ---- the database (distiller_pg.c) ---- */

enum st_distiller_schema {
	ST_DISTILLER_SCHEMA_AUTO = 0,   /* ask the catalog */
	ST_DISTILLER_SCHEMA_LEGACY,     /* jobs.scan_id (before mid-2023) */
	ST_DISTILLER_SCHEMA_CURRENT,    /* scan_job_table(scan_id, job_id) */
};

typedef struct st_distiller_pg_opts {
	const char *dsn;        /* conninfo or URI; NULL or "": PG* environment
				 * and ~/.pgpass only.  Never put in a message:
				 * it may hold a password */
	long timeout_s;         /* connect_timeout when the DSN has none; <= 0:
				 * libpq's default */
	enum st_distiller_schema schema;
} st_distiller_pg_opts;

/* Select Q's rows from the database and pass them to SINK.  One
 * parameterised query for every size, read in single-row mode (memory does
 * not grow with the table).  Returns 0, or -1 with ERR set: 69 cannot
 * connect or authenticate (host, port, database and user named, never the
 * password), or the server failed mid-query; 78 the database has neither
 * jobs.scan_id nor scan_job_table, or lacks a table or column the query
 * needs; 65 a value of the wrong type; 74 allocation failure; the sink's
 * own error.  SCHEMA_FOUND (may be NULL) gets the schema used. */
int st_distiller_pg_fetch(const st_distiller_pg_opts *o,
			  const st_distiller_query *q, st_distiller_sink sink,
			  void *ctx, enum st_distiller_schema *schema_found,
			  st_log *log, st_error *err);

/* Does DSN (conninfo or URI) carry a password?  False when libpq can
 * parse it and finds none, or cannot parse it; without libpq (not built,
 * or not loadable) st_distiller_dsn_password_guess. */
bool st_distiller_dsn_has_password(const char *dsn);

/* A guess on the safe side, for when libpq cannot parse DSN: one that
 * names the password keyword, or a URI with user:password@, is taken to
 * hold a password (so that distiller jobs still wipes it from the
 * process list). */
bool st_distiller_dsn_password_guess(const char *dsn);

/* ---- the REST API (distiller_api.c) ---- */

typedef struct st_distiller_api_opts {
	const char *url;          /* base, e.g. https://distiller.example.org;
				   * requests go to {url}/api/v1/... */
	const char *api_key;      /* sent as API_KEY_HEADER: KEY; or NULL */
	const char *api_key_header; /* NULL: "X-API-KEY" */
	const char *token;        /* Authorization: Bearer TOKEN; or NULL */
	const char *cacert;       /* CA bundle for https, may be NULL */
	long timeout_s;           /* per request, its retries included, <= 0:
				   * none */
	int retries;              /* extra attempts on connection errors, 5xx */
	size_t max_body;          /* bytes per response, 0: http.h's default */
	long page_size;           /* limit= of /jobs, <= 0: 100 */
} st_distiller_api_opts;

/* Select Q's rows through the REST API and pass them to SINK: pages of
 * GET /api/v1/jobs?job_type=T&skip=S&limit=L until X-Total-Count jobs (or an
 * empty page; an empty page while its X-Total-Count promises more is error
 * 65), GET /api/v1/scans/{id} once per scan id met, rows sorted by
 * (job id, scan id) before the first is passed on.  Returns 0, or -1 with
 * ERR set: 69 unreachable, timeout, HTTP error (401/403 say the credentials
 * were refused, never showing them); 65 a malformed response; 74 allocation
 * failure; the sink's own error. */
int st_distiller_api_fetch(const st_distiller_api_opts *o,
			   const st_distiller_query *q, st_distiller_sink sink,
			   void *ctx, st_log *log, st_error *err);

/* ---- shared ---- */

/* "legacy", "current" or "auto". */
const char *st_distiller_schema_name(enum st_distiller_schema s);

/* ROW's CSV line "id,slurm_id,elapsed\n" into BUF (80 bytes suffice);
 * returns its length. */
size_t st_distiller_row_format(const st_distiller_row *row, char *buf,
			       size_t size);

/* ---- `distiller jobs` at file level (distiller_run.c) ---- */

typedef struct st_distiller_jobs_opts {
	const char *out_dir;            /* created if missing */
	st_distiller_query query;
	bool use_api;                   /* the REST API (API), else PG */
	st_distiller_pg_opts pg;
	st_distiller_api_opts api;
} st_distiller_jobs_opts;

typedef struct st_distiller_jobs_result {
	size_t *rows;           /* rows per size (n_sizes; free it) */
	size_t committed;       /* files renamed into place, in size order */
	bool fetched;           /* the fetch succeeded */
	enum st_distiller_schema schema; /* the schema used (PostgreSQL) */
} st_distiller_jobs_result;

/* Write OUT_DIR/{N}_{N}.csv ("id,slurm_id,elapsed") for every size of the
 * query from the database or the API: all files or none (a directory this
 * call made is removed again on failure).  Returns 0, or -1 with ERR set
 * (the fetch's codes; 73/74 for the files).  RES is filled in either case;
 * free RES->rows. */
int st_distiller_jobs_run(const st_distiller_jobs_opts *o,
			  st_distiller_jobs_result *res, st_log *log,
			  st_error *err);

#endif
