/* clockfix.h - correcting timestamps with measured clock offsets (SPEC 5.3).
 *
 * A `clock probe` file holds rows measured_at,reference,target,offset_ms,
 * bound_ms,...: target's clock minus the reference clock.  A timestamp T
 * read from HOST's clock is, on the reference clock, T - offset(HOST), with
 * the measurement of HOST nearest in time to T; its uncertainty grows by
 * that measurement's bound.  The reference is the clock the corrected
 * outputs are expressed in.
 */
#ifndef STREAMTIME_CLOCKFIX_H
#define STREAMTIME_CLOCKFIX_H

#include <stddef.h>

#include "streamtime/csv.h"
#include "streamtime/error.h"
#include "streamtime/time.h"

#define ST_CLOCKFIX_MAX_HOSTS 64

typedef struct st_clock_offset {
	const char *target;     /* borrowed from the table */
	st_instant at;
	st_duration offset, bound;
} st_clock_offset;

typedef struct st_clock_offsets {
	st_clock_offset *v;     /* sorted by target, then time */
	size_t n;
	char reference[128];
} st_clock_offsets;

/* Load the rows of T (a clock probe file; T must outlive O).  All rows must
 * share one reference.  Error 65 naming file:line:column. */
int st_clock_offsets_load(st_clock_offsets *o, const st_table *t,
			  st_error *err);
void st_clock_offsets_release(st_clock_offsets *o);

/* HOST's measurement nearest in time to T.  NULL (and error 65 naming HOST
 * and the file) when HOST was never measured. */
const st_clock_offset *st_clock_offsets_at(const st_clock_offsets *o,
					   const char *host, st_instant t,
					   st_error *err);

/* A measurement more than this from the time it corrects is "far": clocks
 * drift by up to ~1 ms a day without NTP and are stepped when it comes
 * back, so an offset measured a day away says little about that time. */
#define ST_CLOCK_FAR_NS (86400LL * 1000000000LL)

/* Corrections made with a far measurement (ST_CLOCK_FAR_NS), counted by
 * st_clock_fix_time when the fix points at one. */
typedef struct st_clock_far {
	size_t count;           /* times corrected with a far measurement */
	size_t total;           /* times corrected */
	st_duration worst;      /* the largest distance, ns */
} st_clock_far;

/* Which host's clock stamped which timestamp. */
typedef struct st_clock_fix {
	const st_clock_offsets *offsets;
	const char *receiver[ST_CLOCKFIX_MAX_HOSTS];  /* time0, time1, ... */
	size_t nreceivers;
	const char *data_host;  /* time_last_written (offload); NULL: reference */
	const char *nersc_host; /* H5 datetime (streaming); NULL: reference */
	st_clock_far *far;      /* may be NULL; counts far measurements */
} st_clock_fix;

/* T from HOST (NULL: the reference clock, no change) corrected in place;
 * *BOUND grows by the measurement's bound; F->far (when set) counts it. */
int st_clock_fix_time(const st_clock_fix *f, const char *host, st_instant *t,
		      st_duration *bound, st_error *err);

/* "h0,h1,h2" into F->receiver (pointers into S, which must outlive F).
 * Error 64. */
int st_clock_fix_parse_hosts(st_clock_fix *f, char *s, st_error *err);

#endif
