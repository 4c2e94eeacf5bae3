/* sacct.h - Slurm accounting through the sacct command or a saved dump
 * (SPEC 4.3, 5.4).
 *
 * sacct -P prints values unescaped, so a delimiter or a newline inside a
 * job name breaks the row.  Live queries therefore ask for a rare
 * delimiter with JobName last: the fields before it can be split safely
 * and whatever remains is the name.  A saved dump is read by its header,
 * in any column order; there a row with too many fields is repaired only
 * when JobName is the last column, and refused otherwise.
 */
#ifndef STREAMTIME_SACCT_H
#define STREAMTIME_SACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/slurm.h"

/* The delimiter of live queries: no job name or value contains it. */
#define ST_SACCT_DELIM "|~#|"

/* Parse a saved sacct dump (NAME for messages) into OUT.  The first line is
 * the header (sacct's field names, or the output's own "Job Name", ...;
 * any order, extra columns ignored);
 * DELIM NULL detects '|' or ','.  A -p trailing delimiter is tolerated; a
 * value cut by sacct without -P (ending in '+') is error 65, as is a row
 * that cannot be split, both naming file:line. */
int st_sacct_parse_dump(const char *buf, size_t len, const char *name,
			const char *delim, st_slurm_jobs *out, st_error *err);

/* Parse live output: no header, the fields of st_slurm_sacct_names in
 * ST_SACCT_FORMAT order, separated by DELIM, JobName last. */
int st_sacct_parse_live(const char *buf, size_t len, const char *delim,
			st_slurm_jobs *out, st_error *err);

/* The --format value of live queries (JobName last). */
extern const char st_sacct_format[];

typedef struct st_sacct_opts {
	const char *sacct;      /* the command (default $STREAMTIME_SACCT, sacct) */
	const char *tz;         /* TZ for sacct's naive times ("UTC" default) */
	const char *user;       /* -u USER, or NULL */
	bool all_users;         /* -a */
	int64_t since, until;   /* epoch seconds, [since, until) */
	int64_t window;         /* seconds per query */
	st_log *notes;          /* progress (may be NULL) */
	st_log *log;            /* what sacct printed on stderr although it
				 * succeeded (may be NULL) */
} st_sacct_opts;

/* Run sacct over contiguous windows [since + k*window, ...) (the last one
 * ending at UNTIL), halving a window Slurm refuses as too large
 * (MaxQueryTimeRange).  Errors: 69 when sacct cannot run or fails, with
 * its exit status and the last line of its stderr. */
int st_sacct_fetch(const st_sacct_opts *o, st_slurm_jobs *out, st_error *err);

#endif
