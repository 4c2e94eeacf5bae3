/* receivers.h - what the NCEM receivers leave in an acquisition directory
 * (SPEC 4.1) and which scans of it are complete (SPEC 5.1).
 *
 * One pass over the directory groups the names by scan.  Scans the caller
 * already has (a sorted list) are dropped on the name alone: no stat, no
 * JSON.  A remaining scan is complete when all R status files are present
 * and parse, it has at least one data file (unless data is not required),
 * and no data file changed in the last `settle` nanoseconds.  Anything else
 * is pending (not there yet) or bad (a file that is there but unusable,
 * reported through the warning sink); both are looked at again next run.
 */
#ifndef STREAMTIME_RECEIVERS_H
#define STREAMTIME_RECEIVERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/time.h"

struct st_tz;

#define ST_RECEIVERS_MAX 64
#define ST_RECEIVERS_STATUS_MAX (1 << 20)  /* bytes; larger is not a status */

/* "4dstem_rec_status_{r}_scan_{n}.json" with r and n in plain decimal (no
 * sign, no leading zero).  Returns true and fills *RECEIVER, *SCAN. */
bool st_receivers_parse_status_name(const char *name, int *receiver,
				    int64_t *scan);

/* "data_scan{n:010d}_module{a}to{b}_dst{k}_file{f}.data".  Returns true and
 * fills *SCAN. */
bool st_receivers_parse_data_name(const char *name, int64_t *scan);

/* Read the status JSON in BUF (LEN bytes): an object whose "time" is an ISO
 * 8601 string (SPEC 3 forms; a naive time is read in TZ, NULL = UTC).
 * Returns 0, or -1 with ERR (code 65) saying what is wrong, without the
 * file name. */
int st_receivers_parse_status(const char *buf, size_t len,
			      const struct st_tz *tz, st_instant *out,
			      st_error *err);

typedef struct st_receivers_opts {
	int receivers;          /* R, 1..ST_RECEIVERS_MAX */
	bool data;              /* require data files; report their newest mtime */
	st_duration settle;     /* data must be older than this */
	int64_t since;          /* scans below are ignored */
	const struct st_tz *tz; /* for naive status times (NULL: UTC) */
	st_instant now;         /* the settle reference */
	const int64_t *skip;    /* sorted scans to ignore (already written) */
	size_t nskip;
	st_log *notes;          /* why a scan is pending (may be NULL) */
} st_receivers_opts;

typedef struct st_receivers_result {
	size_t nrows;
	int64_t *scans;         /* nrows, ascending */
	st_instant *times;      /* nrows x (R + 1): time0..time{R-1}, last written */
	size_t pending;         /* scans not complete yet */
	size_t bad;             /* scans with an unusable file (warned) */
} st_receivers_result;

/* Find the complete scans of directory DIR.  Warnings (bad files, named by
 * path) go to LOG.  Errors: 66 when DIR cannot be opened, 74 when reading
 * it fails.  RES is filled (release it) also when some scans are bad. */
int st_receivers_collect(const char *dir, const st_receivers_opts *o,
			 st_receivers_result *res, st_log *log, st_error *err);

void st_receivers_result_release(st_receivers_result *res);

#endif
