/* provenance.h - what a `reproduce` run read and how it ran, written as
 * OUT/provenance.json beside its results and shown in the report:
 *
 *   { "streamtime": { "version": "0.1.0", "features": ["+postgresql", ...] },
 *     "command": ["streamtime", "reproduce", "--session", "s.json"],
 *     "working_directory": "/home/x", "host": "rec0",
 *     "time": "2026-11-26T06:40:00.123456+00:00",
 *     "session": { "file": "s.json", "synthetic": false,
 *                  "names": { "instrument": ..., "acquisition_site": ...,
 *                             "compute_site": ... } },
 *     "inputs": [ { "key": "inputs.write_times", "path": "w.csv",
 *                   "size": 2291, "sha256": "9f86d0..." }, ... ] }
 *
 * A directory input lists every regular file below it, sorted by path.
 * Not "manifest.json": trace record writes a file of that name, and the
 * trace readers take it for one. */
#ifndef STREAMTIME_PROVENANCE_H
#define STREAMTIME_PROVENANCE_H

#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/session.h"

#define ST_PROVENANCE "provenance.json"

/* The lowercase hex SHA-256 of the file PATH into HEX (65 bytes) and its
 * size into *SIZE.  0, or -1 with ERR set (66 missing, 74 read error). */
int st_sha256_file(const char *path, char hex[65], uint64_t *size,
		   st_error *err);

/* A live source a run asked (sacct, slurmrestd, PostgreSQL, the REST
 * API): what it asked, of which server, and where the snapshot of its
 * answer lies (SNAPSHOT, a file or directory; SHOWN: its name in OUT). */
typedef struct st_provenance_live {
	const char *key;        /* "inputs.slurm_jobs" */
	const char *source;     /* "sacct", "slurmrestd", "postgresql", "api" */
	const char *query;      /* what was asked, no secret in it */
	const char *server;     /* where, no secret in it */
	const char *snapshot;   /* the answer as written */
	const char *shown;      /* SNAPSHOT's path under OUT */
} st_provenance_live;

/* Write the provenance of a run over S, started by the command line ARGV
 * (ARGC words), to PATH, atomically.  LIVE[0..NLIVE) are the live sources
 * asked: each is listed in "inputs" with its query and server, and its
 * snapshot's files with their sizes and SHA-256 (as SHOWN paths).  S's
 * secret files (tokens, DSN files) are never read or listed.  Errors:
 * those of st_sha256_file for an input, 73/74 writing. */
int st_provenance_write(const char *path, const st_session *s, int argc,
			char *const argv[], const st_provenance_live *live,
			size_t nlive, st_error *err);

#endif
