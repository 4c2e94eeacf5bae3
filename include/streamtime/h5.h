/* h5.h - the counted HDF5 files at NERSC (SPEC 4.2, 5.2).
 *
 * FOURD_{yymmdd}_{HHMM}_{distiller_id}_{scan}[_{suffix}].h5: the date is the
 * scan's creation in US/Pacific, distiller_id is written zero-padded to five
 * digits (kept as written), 00000 means unknown.  The time of interest is
 * the file's mtime: when counting finished writing it.
 */
#ifndef STREAMTIME_H5_H
#define STREAMTIME_H5_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/time.h"

#define ST_H5_ID_MAX 16   /* distiller_id digits kept, with the NUL */

typedef struct st_h5_name {
	char id[ST_H5_ID_MAX];  /* as written, e.g. "02209" */
	int64_t id_num;         /* its value; 0 = unknown */
	int64_t scan;
	const char *suffix;     /* after the scan number, e.g. "_electrons"; "" */
} st_h5_name;

/* Parse NAME.  SUFFIX points into NAME.  Returns false for anything else. */
bool st_h5_parse_name(const char *name, st_h5_name *out);

typedef struct st_h5_key {
	int64_t id_num, scan;
} st_h5_key;

/* Order by distiller_id, then scan. */
int st_h5_key_cmp(const void *a, const void *b);

typedef struct st_h5_opts {
	bool has_range;
	int64_t first, last;    /* scan numbers, inclusive, when has_range */
	st_duration settle;     /* files must be older than this */
	st_instant now;
	const st_h5_key *skip;  /* sorted keys already written */
	size_t nskip;
	st_log *notes;          /* why a file is pending or left out (may be NULL) */
} st_h5_opts;

typedef struct st_h5_file {
	st_h5_key key;
	char id[ST_H5_ID_MAX];
	st_instant mtime;
} st_h5_file;

typedef struct st_h5_result {
	st_h5_file *files;      /* one per key, sorted by key */
	size_t n;
	size_t pending;         /* files still changing */
	size_t bad;             /* files that could not be stat'ed (warned) */
	size_t unknown;         /* distiller_id 00000, skipped */
} st_h5_result;

/* Find the counted files (regular files) of the NDIRS directories DIRS
 * that are not in SKIP.  Several files of one key (suffix variants, or the
 * same scan in two directories) give one entry with the earliest mtime:
 * the first output of the count.  Errors: 66 when a directory cannot be
 * opened, 74 on a read error. */
int st_h5_collect(const char *const *dirs, size_t ndirs, const st_h5_opts *o,
		  st_h5_result *res, st_log *log, st_error *err);

void st_h5_result_release(st_h5_result *res);

#endif
