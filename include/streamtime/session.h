/* session.h - one acquisition campaign described in one JSON file (SPEC
 * 5.13), so that `reproduce --session FILE` runs the whole chain on what a
 * facility's collectors and sources gathered.
 *
 * The format is documented once, in docs/sessions.md.  In short:
 *
 *   { "version": 1, "synthetic": false,
 *     "names": { "instrument": "4D Camera", "acquisition_site": "NCEM",
 *                "compute_site": "NERSC" },
 *     "tz": "America/Los_Angeles", "slurm_tz": "UTC", "max_elapsed": "29:00",
 *     "experiments": [ { "size": 128, "offload": [..], "streaming": [..] } ],
 *     "save_time_map": [ { "scans": [14, 29], "type": "Real",
 *                          "sizes": [128, 256, 512, 1024] } ],
 *     "inputs": { "write_times": "...", "created_times": "...",
 *                 "scan_times": "...", "slurm_jobs": "...",
 *                 "distiller": "...", "save_times": "...",
 *                 "clock": { "offsets": "...", "receiver_hosts": [..] },
 *                 "traces": [ { "label": "...", "role": "receiver",
 *                               "paths": [..] } ] } }
 *
 * Paths are relative to the session file.  A file without "inputs" is in
 * the paper's layout: its inputs are DIR/file_transfer/... and
 * DIR/streaming/... of the directory it lies in (the experiments.json of
 * `reproduce --data DIR` is such a file).  Unknown keys are errors. */
#ifndef STREAMTIME_SESSION_H
#define STREAMTIME_SESSION_H

#include <stdbool.h>

#include "streamtime/error.h"
#include "streamtime/experiments.h"
#include "streamtime/savetimes.h"

/* The newest format this streamtime reads. */
#define ST_SESSION_VERSION 1

/* What a trace set is of, for the report. */
typedef enum st_trace_role {
	ST_ROLE_COUNTING,       /* the counting jobs (DFTracer files) */
	ST_ROLE_RECEIVER,       /* a receiver (a system-trace directory) */
	ST_ROLE_STREAMING,      /* the streaming side */
	ST_ROLE_OTHER,
} st_trace_role;

const char *st_trace_role_name(st_trace_role r);

typedef struct st_trace_input {
	char *label;            /* shown in the report */
	st_trace_role role;
	char **paths;           /* resolved */
	size_t npaths;
} st_trace_input;

/* Where the Slurm count jobs come from. */
typedef enum st_slurm_source {
	ST_SLURM_FILE,          /* slurm_jobs: a file (slurm jobs' output) */
	ST_SLURM_SACCT,         /* sacct, run now */
	ST_SLURM_REST,          /* slurmrestd, asked now */
} st_slurm_source;

/* Where Distiller's job table comes from. */
typedef enum st_distiller_source {
	ST_DISTILLER_FILES,     /* distiller: {N}_{N}.csv files */
	ST_DISTILLER_PG,        /* its PostgreSQL database, asked now */
	ST_DISTILLER_API,       /* its REST API, asked now */
} st_distiller_source;

/* A live query of a session: what `slurm jobs` or `distiller jobs` would
 * be told.  Secrets are files, read when the query runs, never here. */
typedef struct st_session_live {
	char *since, *until;    /* sacct, slurmrestd: naive in slurm_tz */
	char *user;             /* sacct --user, slurmrestd's user */
	bool all_users;         /* sacct -a */
	char *url;              /* slurmrestd, the REST API */
	char *token_file;       /* their token (a secret) */
	char *dsn_file;         /* PostgreSQL: a file holding the DSN */
	char *service;          /* or a pg_service.conf service name */
	char *job_type;         /* Distiller jobs of this type; NULL all */
} st_session_live;

typedef struct st_session {
	char *file;             /* the session file; NULL: built in */
	bool paper_layout;      /* the inputs are the paper's layout */
	bool synthetic;
	char *instrument, *acquisition_site, *compute_site;
	st_experiments ex;
	char **h5;              /* per experiment: its H5 times file */
	size_t nh5;             /* as loaded (the analysis may leave sizes
				 * out of EX) */
	st_save_rule *save_rules;
	size_t nsave_rules;

	/* the inputs, resolved (relative to the working directory or
	 * absolute); NULL when not given */
	char *slurm_jobs;       /* a sacct dump (slurm jobs --input form) */
	st_slurm_source slurm_source;
	st_session_live slurm_live;
	char *distiller;        /* {N}_{N}.csv files, or their directory */
	st_distiller_source distiller_source;
	st_session_live distiller_live;
	char *write_times;      /* collect receivers */
	char *created_times;    /* collect receivers --no-data */
	char *save_times;       /* save_times.json */
	char *save_stats;       /* save_time_stats.csv (instead) */
	char *scan_times;       /* collect h5, for the sizes without h5 */
	char *clock_offsets;    /* clock probe */
	char *receiver_hosts;   /* "rec0,rec1,...": time0, time1, ... */
	char *data_host, *nersc_host;
	st_trace_input *traces;
	size_t ntraces;
} st_session;

/* The session of a dataset in the paper's layout under DATA: CONFIG (an
 * experiments.json or session file; NULL: DATA/experiments.json when it
 * exists, else the paper's experiments, built in).  A CONFIG without
 * "inputs" takes DATA's files.  Errors: 66 CONFIG missing, 78 wrong
 * inside (naming the file and the key). */
int st_session_for_data(st_session *s, const char *data, const char *config,
			st_error *err);

/* Load the session file PATH.  Errors: 66 missing; 78 anything wrong in
 * it, naming the file and the key ("s.json: inputs.clock.offsets: ...").
 * Inputs are resolved, not opened: see st_session_check. */
int st_session_load(st_session *s, const char *path, st_error *err);

/* Every input S names exists: 66 naming the key and the path otherwise.
 * And what the chain cannot do without is there (78 naming the key). */
int st_session_check(const st_session *s, st_error *err);

/* One input of a session: the key that names it and its path. */
typedef struct st_session_input {
	char key[48];           /* "inputs.write_times", "session" */
	const char *path;       /* borrowed from the session */
} st_session_input;

/* Every file or directory S reads (the session file first), each once,
 * in a new array (free it), *N set; NULL when memory runs out.
 * Directories are listed as they are named: the caller walks them. */
st_session_input *st_session_inputs(const st_session *s, size_t *n);

void st_session_release(st_session *s);

/* Load PATH, an experiments.json or a session file: its experiments only
 * (for the commands that need no inputs: timeline, plot).  Errors: 66
 * missing/unreadable, 78 anything wrong inside (the message names the
 * file and the JSON path, e.g. "experiments[2].offload").  An experiment
 * of a session may have no h5 (NULL: the session's scan_times holds its
 * times). */
int st_experiments_load(st_experiments *ex, const char *path, st_error *err);

/* The experiments a command is given: CONFIG (st_experiments_load), else
 * DATA/experiments.json when DATA (may be NULL) has one, else the
 * paper's, built in (st_experiments_default), into EX; *USED the file
 * read (new string), NULL for the paper's.  0, or -1 with ERR set. */
int st_experiments_given(st_experiments *ex, const char *config,
			 const char *data, char **used, st_error *err);

#endif
