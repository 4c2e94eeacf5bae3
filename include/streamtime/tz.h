/* tz.h - IANA time zones read from TZif files, independent of $TZ and of the
 * machine's /etc/localtime.
 *
 * st_tz_load() reads $TZDIR/NAME (default /usr/share/zoneinfo/NAME), version 1
 * to 4 files, using the 64-bit section and the POSIX TZ footer for instants
 * after the last transition.  "UTC", "Etc/UTC" and "Z" need no file.
 */
#ifndef STREAMTIME_TZ_H
#define STREAMTIME_TZ_H

#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"

typedef struct st_tz st_tz;

enum {
	ST_TZ_GAP = 1,        /* the wall-clock time does not exist (spring forward) */
	ST_TZ_AMBIGUOUS = 2,  /* the wall-clock time exists twice (fall back) */
};

/* Load zone NAME.  Returns a new zone to free with st_tz_free(), or NULL with
 * ERR set: code 78 for an unknown or malformed zone (names containing ".." or
 * starting with "/" are refused).  */
st_tz *st_tz_load(const char *name, st_error *err);

/* A zone named NAME from the TZif image BUF of LEN bytes (what st_tz_load
 * reads from a file).  Returns a new zone, or NULL with ERR set (code 78)
 * naming NAME and what is malformed. */
st_tz *st_tz_from_tzif(const char *name, const unsigned char *buf, size_t len,
		       st_error *err);

/* A zone that is only the POSIX TZ string S ("PST8PDT,M3.2.0,M11.1.0", the
 * footer of a TZif file), named S.  Returns a new zone, or NULL with ERR set
 * (code 78). */
st_tz *st_tz_from_posix(const char *s, st_error *err);

/* Free TZ.  NULL is accepted. */
void st_tz_free(st_tz *tz);

/* The zone's name as given to st_tz_load (borrowed). */
const char *st_tz_name(const st_tz *tz);

/* UTC offset in seconds (local minus UTC) in effect at UTC second T.
 * TZ NULL means UTC. */
int32_t st_tz_offset_at(const st_tz *tz, int64_t t);

/* Convert a local wall-clock second LOCAL (seconds since 1970-01-01 00:00 of
 * the local calendar) to UTC seconds.  In an overlap the earlier instant is
 * returned; in a gap the offset in effect before the gap is used (so 02:30 on
 * a spring-forward day in Los Angeles maps to 10:30Z, i.e. 03:30 PDT), both as
 * Python's zoneinfo does with fold=0.  *FLAGS (may be NULL) gets 0,
 * ST_TZ_GAP or ST_TZ_AMBIGUOUS. */
int64_t st_tz_local_to_utc(const st_tz *tz, int64_t local, int *flags);

#endif
