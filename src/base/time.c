/* time.c - parsing and formatting of instants and durations. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "streamtime/time.h"
#include "streamtime/tz.h"

/* Read exactly N digits at *P into *OUT and advance. */
static bool digits(const char **p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return false;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return true;
}

/* Read a fraction ".ddd" (at least one digit) as nanoseconds; digits past the
 * ninth are dropped (truncation toward zero). */
static bool fraction(const char **p, int64_t *ns)
{
	const char *s = *p;
	int64_t v = 0;
	int n = 0;

	if (*s != '.' && *s != ',')
		return false;
	s++;
	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++, n++)
		if (n < 9)
			v = v * 10 + (*s - '0');
	for (; n < 9; n++)
		v *= 10;
	*ns = v;
	*p = s;
	return true;
}

/* Parse a UTC offset "Z", "+HH:MM", "+HHMM" or "+HH" at *P into seconds. */
static bool utc_offset(const char **p, int *secs)
{
	const char *s = *p;
	int sign, hh, mm = 0;

	if (*s == 'Z' || *s == 'z') {
		*secs = 0;
		*p = s + 1;
		return true;
	}
	if (*s != '+' && *s != '-')
		return false;
	sign = *s == '-' ? -1 : 1;
	s++;
	if (!digits(&s, 2, &hh) || hh > 23)
		return false;
	if (*s == ':')
		s++;
	if (isdigit((unsigned char)*s) && (!digits(&s, 2, &mm) || mm > 59))
		return false;
	*secs = sign * (hh * 3600 + mm * 60);
	*p = s;
	return true;
}

int st_instant_from_timespec(int64_t sec, long nsec, st_instant *out)
{
	if (nsec < 0 || nsec >= ST_NS_PER_SEC ||
	    __builtin_mul_overflow(sec, ST_NS_PER_SEC, out) ||
	    __builtin_add_overflow(*out, (int64_t)nsec, out))
		return -1;
	return 0;
}

int st_time_parse(const char *s, const st_tz *tz, st_instant *out, int *flags,
		  st_error *err)
{
	const char *p = s;
	int y, mo, d, h = 0, mi = 0, sec = 0, off = 0, off2;
	int64_t ns = 0, days, secs;
	bool has_off = false;

	if (flags)
		*flags = 0;
	while (*p == ' ')
		p++;
	if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) ||
	    *p++ != '-' || !digits(&p, 2, &d))
		goto bad;
	if (mo < 1 || mo > 12 || d < 1 || (unsigned)d > st_days_in_month(y, (unsigned)mo))
		return st_error_set(err, ST_EXIT_DATAERR,
				    "invalid date in '%s'", s);
	if (*p == 'T' || *p == 't' || *p == ' ') {
		p++;
		if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi))
			goto bad;
		if (*p == ':') {
			p++;
			if (!digits(&p, 2, &sec))
				goto bad;
			if ((*p == '.' || *p == ',') && !fraction(&p, &ns))
				goto bad;
		}
		if (h > 23 || mi > 59 || sec > 59)
			return st_error_set(err, ST_EXIT_DATAERR,
					    "invalid time of day in '%s'", s);
	}
	if (*p && *p != ' ') {
		if (!utc_offset(&p, &off))
			goto bad;
		has_off = true;
		/* "+00:00+00:00" seen in real status files: the first wins */
		if (*p)
			(void)utc_offset(&p, &off2);
	}
	while (*p == ' ')
		p++;
	if (*p)
		goto bad;

	days = st_days_from_civil(y, (unsigned)mo, (unsigned)d);
	secs = days * 86400 + h * 3600 + mi * 60 + sec;
	if (has_off)
		secs -= off;
	else
		secs = st_tz_local_to_utc(tz, secs, flags);
	/* nanoseconds in int64: the years 1677..2262 */
	if (__builtin_mul_overflow(secs, ST_NS_PER_SEC, out) ||
	    __builtin_add_overflow(*out, ns, out))
		return st_error_set(err, ST_EXIT_DATAERR, "time '%s' is outside "
				    "the supported years 1678..2261", s);
	return 0;
bad:
	return st_error_set(err, ST_EXIT_DATAERR,
			    "cannot parse time '%s' (expected ISO 8601 like "
			    "2023-10-13T16:45:09+00:00)", s);
}

/* Append ".ffffff" (or nine digits) for a non-zero sub-second part NS. */
static size_t put_fraction(char *buf, size_t size, int64_t ns)
{
	if (ns == 0)
		return 0;
	if (ns % 1000 == 0)
		return (size_t)snprintf(buf, size, ".%06lld", (long long)(ns / 1000));
	return (size_t)snprintf(buf, size, ".%09lld", (long long)ns);
}

/* Write V as exactly N decimal digits at P (V >= 0). */
static void put_digits(char *p, unsigned v, int n)
{
	while (n-- > 0) {
		p[n] = (char)('0' + v % 10);
		v /= 10;
	}
}

/* "YYYY-MM-DD?HH:MM:SS[.f]" by hand: this runs once per timestamp written,
 * and snprintf was a tenth of reproduce's instructions. */
static size_t format_civil(int64_t secs, int64_t ns, char sep, char *buf,
			   size_t size)
{
	int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
	int64_t rem = secs - days * 86400, y;
	unsigned m, d;
	size_t n = 19;
	char tmp[48];

	st_civil_from_days(days, &y, &m, &d);
	if (y < 0 || y > 9999)
		return (size_t)snprintf(buf, size, "%lld-out-of-range", (long long)y);
	put_digits(tmp, (unsigned)y, 4);
	tmp[4] = '-';
	put_digits(tmp + 5, m, 2);
	tmp[7] = '-';
	put_digits(tmp + 8, d, 2);
	tmp[10] = sep;
	put_digits(tmp + 11, (unsigned)(rem / 3600), 2);
	tmp[13] = ':';
	put_digits(tmp + 14, (unsigned)(rem / 60 % 60), 2);
	tmp[16] = ':';
	put_digits(tmp + 17, (unsigned)(rem % 60), 2);
	tmp[19] = '\0';
	n += put_fraction(tmp + n, sizeof(tmp) - n, ns);
	return (size_t)snprintf(buf, size, "%s", tmp);
}

/* Split T into whole seconds (floor) and a non-negative nanosecond part. */
static void split_instant(st_instant t, int64_t *secs, int64_t *ns)
{
	*secs = t / ST_NS_PER_SEC;
	*ns = t % ST_NS_PER_SEC;
	if (*ns < 0) {
		*ns += ST_NS_PER_SEC;
		(*secs)--;
	}
}

size_t st_time_format_utc(st_instant t, char *buf, size_t size)
{
	int64_t secs, ns;
	size_t n;

	split_instant(t, &secs, &ns);
	n = format_civil(secs, ns, 'T', buf, size);
	if (n < size)
		n += (size_t)snprintf(buf + n, size - n, "+00:00");
	return n;
}

size_t st_time_format_naive(st_instant t, const st_tz *tz, char *buf,
			    size_t size)
{
	int64_t secs, ns;

	split_instant(t, &secs, &ns);
	return format_civil(secs + st_tz_offset_at(tz, secs), ns, ' ', buf,
			    size);
}

/* Parse an unsigned decimal number of seconds "S[.f]" at *P. */
static bool seconds_field(const char **p, int64_t *ns)
{
	const char *s = *p;
	int64_t v = 0, frac = 0;

	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		v = v * 10 + (*s - '0');
		if (v > INT64_MAX / ST_NS_PER_SEC)
			return false;
	}
	if (*s == '.' && !fraction(&s, &frac))
		return false;
	if (__builtin_mul_overflow(v, ST_NS_PER_SEC, ns) ||
	    __builtin_add_overflow(*ns, frac, ns))
		return false;
	*p = s;
	return true;
}

/* Parse an unsigned integer at *P (at least one digit). */
static bool uint_field(const char **p, int64_t *out)
{
	const char *s = *p;
	int64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		v = v * 10 + (*s - '0');
		if (v > INT64_MAX / ST_NS_PER_SEC / 60)
			return false;   /* no count of days, hours or minutes fits */
	}
	*p = s;
	*out = v;
	return true;
}

/* *ACC = A * MUL + B, false on overflow. */
static bool mul_add(int64_t a, int64_t mul, int64_t b, int64_t *acc)
{
	int64_t t;

	return !__builtin_mul_overflow(a, mul, &t) &&
	       !__builtin_add_overflow(t, b, acc);
}

/* Parse "[HH:]MM:SS[.f]" or, with DAYS_FORM, "HH[:MM[:SS[.f]]]" after "D-".
 * LIMIT_HOURS makes hours < 24 mandatory (after a day count). */
static bool clock_part(const char **p, bool days_form, bool limit_hours,
		       int64_t *ns)
{
	int64_t a, b, c;
	const char *s = *p;

	if (days_form) {
		if (!uint_field(&s, &a) || (limit_hours && a > 23))
			return false;
		if (!mul_add(a, 3600 * ST_NS_PER_SEC, 0, ns))
			return false;
		if (*s == ':') {
			s++;
			if (!uint_field(&s, &b) || b > 59)
				return false;
			*ns += b * 60 * ST_NS_PER_SEC;
			if (*s == ':') {
				s++;
				if (!seconds_field(&s, &c) ||
				    c >= 60 * ST_NS_PER_SEC)
					return false;
				*ns += c;
			}
		}
		*p = s;
		return true;
	}
	/* MM:SS or HH:MM:SS */
	if (!uint_field(&s, &a) || *s++ != ':')
		return false;
	if (!isdigit((unsigned char)*s))
		return false;
	{
		const char *t = s;
		int64_t tmp;
		/* Look ahead: a second ':' means HH:MM:SS. */
		if (uint_field(&t, &tmp) && *t == ':') {
			if (tmp > 59 || (limit_hours && a > 23))
				return false;
			b = tmp;
			s = t + 1;
			if (!seconds_field(&s, &c) || c >= 60 * ST_NS_PER_SEC)
				return false;
			if (!mul_add(a * 3600 + b * 60, ST_NS_PER_SEC, c, ns))
				return false;
		} else {
			if (!seconds_field(&s, &c) || c >= 60 * ST_NS_PER_SEC)
				return false;
			if (!mul_add(a, 60 * ST_NS_PER_SEC, c, ns))
				return false;
		}
	}
	*p = s;
	return true;
}

int st_duration_parse(const char *s, st_duration *out, st_error *err)
{
	const char *p = s, *dash;
	int64_t days = 0, rest = 0;
	int sign = 1, sign2 = 1;

	while (*p == ' ')
		p++;
	if (*p == '-' || *p == '+') {
		sign = *p == '-' ? -1 : 1;
		p++;
	}
	if (!isdigit((unsigned char)*p))
		goto bad;
	if (strstr(p, "day")) {
		/* pandas "N days HH:MM:SS", Python "N day, H:MM:SS" */
		if (!uint_field(&p, &days) || *p++ != ' ')
			goto bad;
		if (strncmp(p, "days", 4) == 0)
			p += 4;
		else if (strncmp(p, "day", 3) == 0)
			p += 3;
		else
			goto bad;
		if (*p == ',')
			p++;
		while (*p == ' ')
			p++;
		if (*p == '+' || *p == '-') {
			sign2 = *p == '-' ? -1 : 1;
			p++;
		}
		if (*p && !clock_part(&p, false, false, &rest))
			goto bad;
		/* "-1 days +23:59:59" is -1 s: the day count carries its own
		 * sign, the clock part is added with its own */
		while (*p == ' ')
			p++;
		if (*p)
			goto bad;
		if (!mul_add(sign * days, 86400 * ST_NS_PER_SEC, sign2 * rest, out))
			goto range;
		return 0;
	} else if ((dash = strchr(p, '-')) != NULL) {
		/* sacct "D-HH[:MM[:SS]]" */
		if (!uint_field(&p, &days) || p != dash)
			goto bad;
		p++;
		if (!clock_part(&p, true, true, &rest))
			goto bad;
	} else if (strchr(p, ':')) {
		if (!clock_part(&p, false, false, &rest))
			goto bad;
	} else {
		if (!seconds_field(&p, &rest))
			goto bad;
	}
	while (*p == ' ')
		p++;
	if (*p)
		goto bad;
	if (!mul_add(days, 86400 * ST_NS_PER_SEC, rest, out))
		goto range;
	*out *= sign;
	return 0;
range:
	return st_error_set(err, ST_EXIT_DATAERR, "duration '%s' is too long "
			    "(at most about 106751 days)", s);
bad:
	return st_error_set(err, ST_EXIT_DATAERR,
			    "cannot parse duration '%s' (expected [D-]HH:MM:SS, "
			    "MM:SS, 'N days HH:MM:SS' or seconds)", s);
}

size_t st_duration_format_hms(st_duration d, char *buf, size_t size)
{
	uint64_t a = d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
	uint64_t secs = a / ST_NS_PER_SEC;
	int64_t ns = (int64_t)(a % ST_NS_PER_SEC);
	size_t n;

	n = (size_t)snprintf(buf, size, "%s%02llu:%02llu:%02llu",
			     d < 0 ? "-" : "",
			     (unsigned long long)(secs / 3600),
			     (unsigned long long)(secs / 60 % 60),
			     (unsigned long long)(secs % 60));
	if (n < size)
		n += put_fraction(buf + n, size - n, ns);
	return n;
}
