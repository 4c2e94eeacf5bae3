/* time.h - instants and durations.
 *
 * An instant is a count of nanoseconds since 1970-01-01T00:00:00Z (int64: the
 * years 1678..2262).  A duration is a signed count of nanoseconds.  Nothing in
 * this module reads the machine's time zone: naive wall-clock times are always
 * interpreted in an explicit st_tz (NULL meaning UTC).
 */
#ifndef STREAMTIME_TIME_H
#define STREAMTIME_TIME_H

#include <stddef.h>
#include <stdint.h>

#include "streamtime/civil.h"
#include "streamtime/error.h"

#define ST_NS_PER_SEC INT64_C(1000000000)

typedef int64_t st_instant;
typedef int64_t st_duration;

struct st_tz;

/* SEC seconds and NSEC (0..999999999) nanoseconds since 1970 -- a struct
 * timespec such as st_mtim -- as an instant in *OUT.  Returns -1 when it
 * lies outside the years an instant holds (1677..2262): `sec * 1e9` would
 * overflow there. */
int st_instant_from_timespec(int64_t sec, long nsec, st_instant *out);

/* Parse a timestamp.  Accepted forms:
 *   YYYY-MM-DD[T| ]HH:MM[:SS[.f{1,9}]][Z|+HH:MM|-HH:MM|+HHMM|+HH]
 *   ...+00:00+00:00   (the doubled offset seen in real data: first one wins)
 *   YYYY-MM-DD         (midnight)
 * A time without offset is naive and is read as wall-clock time in TZ (NULL:
 * UTC); in a DST gap or overlap the earlier offset is used (Python's fold=0),
 * and *FLAGS (may be NULL) gets ST_TZ_GAP or ST_TZ_AMBIGUOUS.
 * Returns 0, or -1 with ERR set (code 65) naming what is wrong. */
int st_time_parse(const char *s, const struct st_tz *tz, st_instant *out,
		  int *flags, st_error *err);

/* Format T as UTC "YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00": the fraction only when
 * non-zero, six digits, nine when the instant is not a whole microsecond.
 * BUF needs 36 bytes.  Returns the length written. */
size_t st_time_format_utc(st_instant t, char *buf, size_t size);

/* Format T as naive wall-clock time in TZ (NULL: UTC), "YYYY-MM-DD HH:MM:SS"
 * with the same fraction rule, the form the paper's files use. */
size_t st_time_format_naive(st_instant t, const struct st_tz *tz, char *buf,
			    size_t size);

/* Parse a duration.  Accepted forms:
 *   [-][D-][HH:]MM:SS[.f]        sacct Elapsed/Timelimit ("1-02:03:04", "05:06")
 *   [-]HH:MM:SS[.f]              hours may exceed 24 ("100:00:00")
 *   [-]N days[ +]HH:MM:SS[.f]    pandas ("0 days 00:19:38", "-1 days +23:59:59")
 *   [-]S[.f]                     seconds
 * Returns 0, or -1 with ERR set (code 65). */
int st_duration_parse(const char *s, st_duration *out, st_error *err);

/* Format D as [-]HH:MM:SS; hours keep counting past 24 ("100:00:00"), a
 * fraction is written only when non-zero.  BUF needs 40 bytes. */
size_t st_duration_format_hms(st_duration d, char *buf, size_t size);

/* D in seconds as a double. */
/* D in seconds: the double nearest to the decimal D / 10^9 while D is
 * exact in a double (|D| < 2^53 ns, 104 days), so that "3.527639" reads
 * back as written, not 3.5276389999999997; beyond, whole seconds plus the
 * fraction. */
static inline double st_duration_seconds(st_duration d)
{
	if (d > -(INT64_C(1) << 53) && d < (INT64_C(1) << 53))
		return (double)d / 1e9;
	return (double)(d / ST_NS_PER_SEC) + (double)(d % ST_NS_PER_SEC) / 1e9;
}

#endif
