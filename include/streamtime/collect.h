/* collect.h - the cron collectors' output files (SPEC 5.1, 5.2).
 *
 * Both collectors hold an exclusive lock for the whole run (receivers: on
 * OUT itself; h5: on OUT.lock, OUT being replaced by rename), read
 * what OUT already holds, look only at what is new, and write it:
 *  - receivers: new rows are appended in scan order (st_atomic_append), so a
 *    run killed at any instant leaves at most a torn last line, which the
 *    next run cuts off before it appends that scan again;
 *  - h5: the file is sorted by distiller_id, so new rows are merged in and
 *    the whole file is replaced atomically (st_atomic_open/commit), and only
 *    when something is new.
 * OUT "-" writes every complete scan to stdout, with no lock and no state.
 *
 * Made for cron, every minute:
 *  - OUT's directory is made when it is missing (one level: its parent must
 *    exist), else error 73 says which directory to create;
 *  - a run that finds the lock held appends a line "TIME pid PID" to
 *    OUT.skipped and fails with 75; the summary says how many runs did so
 *    since when, for the caller to keep quiet about a short overlap and to
 *    speak up about a long one.  The next run that gets the lock counts
 *    those lines and removes the file (a skip noted while it does so may go
 *    uncounted).
 */
#ifndef STREAMTIME_COLLECT_H
#define STREAMTIME_COLLECT_H

#include <stdbool.h>
#include <stddef.h>

#include "streamtime/error.h"
#include "streamtime/h5.h"
#include "streamtime/receivers.h"

struct st_tz;

/* How long runs may keep finding the lock held before it is news: a run
 * every minute that overlaps the previous one is normal, a quarter of an
 * hour of them is a stuck run. */
#define ST_COLLECT_OVERLAP_QUIET (15 * 60 * ST_NS_PER_SEC)

typedef struct st_collect_summary {
	size_t written;         /* rows added this run */
	size_t known;           /* rows OUT held before */
	size_t pending;         /* not complete yet, looked at again next run */
	size_t bad;             /* unusable files (warned), looked at again */
	size_t unknown;         /* h5: distiller_id 00000, skipped */
	size_t dropped;         /* receivers: bytes of a torn last line cut off */
	bool completed;         /* receivers: a whole last row lacked its newline */
	bool made_dir;          /* OUT's directory was missing and was made */
	size_t skipped;         /* runs that found the lock held: before this
				 * one (it got the lock), or with this one
				 * (error 75) */
	st_instant skipped_since; /* the first of them (0: none known) */
} st_collect_summary;

/* The header of a receivers file for R receivers, with or without
 * time_last_written, in a new string (no newline). */
char *st_collect_receivers_header(int receivers, bool data);

/* Run `collect receivers`: O->skip is filled from OUT (O is not changed
 * otherwise).  Errors: 75 lock held (unless WAIT; SUM->skipped counts it),
 * 73 OUT, its directory or its lock cannot be created, 65 OUT is not a
 * receivers file of this shape, 66/74 reading DIR, 74 writing. */
int st_collect_receivers(const char *dir, const char *out, bool wait,
			 const st_receivers_opts *o, st_collect_summary *sum,
			 st_log *log, st_error *err);

typedef struct st_collect_h5_opts {
	st_h5_opts h5;          /* skip is filled from OUT */
	const struct st_tz *tz; /* zone of the naive form */
	bool naive;             /* "YYYY-MM-DD HH:MM:SS" in TZ, not UTC ISO */
	bool wait;
} st_collect_h5_opts;

/* Run `collect h5` over the NDIRS directories DIRS.  Errors as
 * st_collect_receivers; 65 also when OUT was written in the other time form
 * (naive vs UTC) or holds a row we could not have written (other columns,
 * an id or scan that is not digits, a bad datetime, a key twice), naming
 * file and line; OUT is then left as it is. */
int st_collect_h5(const char *const *dirs, size_t ndirs, const char *out,
		  const st_collect_h5_opts *o, st_collect_summary *sum,
		  st_log *log, st_error *err);

#endif
