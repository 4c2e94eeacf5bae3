/* civil.h - the proleptic Gregorian calendar: dates as days since 1970.
 *
 * No time zone and no instant here: time.c (instants) and tz.c (zones) both
 * build on it.
 */
#ifndef STREAMTIME_CIVIL_H
#define STREAMTIME_CIVIL_H

#include <stdint.h>

/* Days since 1970-01-01 of the proleptic Gregorian date Y-M-D (M 1..12). */
int64_t st_days_from_civil(int64_t y, unsigned m, unsigned d);

/* The inverse of st_days_from_civil. */
void st_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

/* Whether Y is a leap year of the proleptic Gregorian calendar. */
static inline int st_is_leap_year(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* The number of days of month M (1..12) of year Y. */
static inline unsigned st_days_in_month(int64_t y, unsigned m)
{
	static const unsigned char dim[12] = { 31, 28, 31, 30, 31, 30, 31, 31,
					       30, 31, 30, 31 };

	return dim[m - 1] + (m == 2 && st_is_leap_year(y));
}

#endif
