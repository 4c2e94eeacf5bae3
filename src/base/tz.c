/* tz.c - IANA time zones read from TZif files (RFC 8536, versions 1 to 4).
 *
 * A zone is kept as a sorted list of UTC transition instants, each with the
 * UTC offset in effect from that instant on, the offset in effect before the
 * first transition, and optionally the POSIX TZ rule from the file's footer,
 * which governs every instant after the last transition (all instants when
 * the file lists none, as "slim" files may).
 *
 * Nothing here reads $TZ, /etc/localtime or calls tzset()/localtime(); the
 * zone object is immutable after st_tz_load() and can be shared by threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streamtime/civil.h"
#include "streamtime/error.h"
#include "streamtime/file.h"
#include "streamtime/num.h"
#include "streamtime/search.h"
#include "streamtime/tz.h"

#define TZ_DEFAULT_DIR "/usr/share/zoneinfo"
#define TZ_FILE_MAX (4L * 1024 * 1024)  /* real files are a few KiB */
#define TZ_OFFSET_MAX 93600             /* 26 h, RFC 8536 section 3.2 */
#define TZ_WINDOW (2 * 86400)           /* > any |offset|, see local_to_utc */
#define TZ_T_LIMIT INT64_C(100000000000000)  /* ~3 million years */

enum rule_kind {
	RULE_JULIAN1,   /* Jn: 1..365, February 29 never counted */
	RULE_JULIAN0,   /* n: 0..365, February 29 counted */
	RULE_MONTH,     /* Mm.w.d */
};

struct tz_rule_date {
	enum rule_kind kind;
	int day;        /* Jn / n day, or M weekday 0..6 (Sunday 0) */
	int week;       /* M: 1..5, 5 meaning the last */
	int month;      /* M: 1..12 */
	int32_t secs;   /* local time of day, -167h..167h */
};

struct tz_rule {
	int32_t std_off;        /* UTC offset of standard time (east positive) */
	int32_t dst_off;
	int has_dst;
	struct tz_rule_date start, end;
};

struct st_tz {
	char *name;
	size_t n_trans;
	int64_t *trans;         /* UTC instants, ascending */
	int32_t *trans_off;     /* offset in effect from trans[i] on */
	int32_t before_off;     /* before trans[0], or always when n_trans 0 */
	int has_rule;           /* footer rule present and used */
	struct tz_rule rule;
};

/* ---- calendar arithmetic (the rest is in time.h) ---------------------- */

/* Day of the week of day DAYS since 1970-01-01, 0 = Sunday. */
static int weekday(int64_t days)
{
	int64_t w = (days + 4) % 7;     /* 1970-01-01 was a Thursday */

	return (int)(w < 0 ? w + 7 : w);
}

/* ---- the POSIX TZ rule of the footer ---------------------------------- */

/* Days since 1970-01-01 of the date rule D names in YEAR. */
static int64_t rule_day(const struct tz_rule_date *d, int64_t year)
{
	int64_t jan1 = st_days_from_civil(year, 1, 1);
	int64_t first;
	int mday;

	switch (d->kind) {
	case RULE_JULIAN1:
		return jan1 + d->day - 1 + (st_is_leap_year(year) && d->day >= 60);
	case RULE_JULIAN0:
		return jan1 + d->day;
	case RULE_MONTH:
	default:
		first = st_days_from_civil(year, (unsigned)d->month, 1);
		mday = 1 + (d->day - weekday(first) + 7) % 7 + 7 * (d->week - 1);
		while (mday > (int)st_days_in_month(year, (unsigned)d->month))
			mday -= 7;
		return first + mday - 1;
	}
}

struct rule_event {
	int64_t t;      /* UTC instant */
	int32_t off;    /* offset from then on */
};

/* Fill EV (6 entries) with the DST starts and ends of the years Y-1..Y+1,
 * sorted by instant; equal instants keep calendar order (the end of one
 * year before the start of the next), so "all year DST" rules work. */
static void rule_events(const struct tz_rule *r, int64_t y,
			struct rule_event ev[6])
{
	int n = 0;

	for (int64_t yy = y - 1; yy <= y + 1; yy++) {
		/* The start is given in standard time, the end in DST. */
		ev[n].t = rule_day(&r->start, yy) * 86400 + r->start.secs -
			r->std_off;
		ev[n++].off = r->dst_off;
		ev[n].t = rule_day(&r->end, yy) * 86400 + r->end.secs -
			r->dst_off;
		ev[n++].off = r->std_off;
	}
	/* Stable insertion sort. */
	for (int i = 1; i < 6; i++) {
		struct rule_event e = ev[i];
		int j = i;

		while (j > 0 && ev[j - 1].t > e.t) {
			ev[j] = ev[j - 1];
			j--;
		}
		ev[j] = e;
	}
}

static int64_t clamp_t(int64_t t)
{
	if (t > TZ_T_LIMIT)
		return TZ_T_LIMIT;
	if (t < -TZ_T_LIMIT)
		return -TZ_T_LIMIT;
	return t;
}

static int64_t rule_year(const struct tz_rule *r, int64_t t)
{
	int64_t y;
	unsigned m, d;

	st_civil_from_days(st_floor_div(clamp_t(t) + r->std_off, 86400), &y, &m, &d);
	return y;
}

/* Offset the footer rule R gives at UTC second T. */
static int32_t rule_offset_at(const struct tz_rule *r, int64_t t)
{
	struct rule_event ev[6];
	int i;

	if (!r->has_dst)
		return r->std_off;
	t = clamp_t(t);
	rule_events(r, rule_year(r, t), ev);
	for (i = 5; i >= 0; i--)
		if (ev[i].t <= t)
			return ev[i].off;
	/* Before every listed event: the state the first one leaves. */
	return ev[0].off == r->dst_off ? r->std_off : r->dst_off;
}

/* The first footer rule event strictly after UTC second T, into *NEXT.
 * Returns 1, or 0 when the rule has no events. */
static int rule_next_event(const struct tz_rule *r, int64_t t, int64_t *next)
{
	struct rule_event ev[6];

	if (!r->has_dst || t >= TZ_T_LIMIT)
		return 0;
	t = clamp_t(t);
	rule_events(r, rule_year(r, t), ev);
	for (int i = 0; i < 6; i++) {
		if (ev[i].t > t) {
			*next = ev[i].t;
			return 1;
		}
	}
	rule_events(r, rule_year(r, t) + 2, ev);
	for (int i = 0; i < 6; i++) {
		if (ev[i].t > t) {
			*next = ev[i].t;
			return 1;
		}
	}
	return 0;
}

/* ---- parsing the footer ----------------------------------------------- */

/* Parse an unsigned decimal of at most MAXDIG digits at *P into *V.
 * Returns 0, or -1 when there is no digit. */
static int parse_uint(const char **p, int maxdig, int *v)
{
	const char *s = *p;
	int n = 0, x = 0;

	while (*s >= '0' && *s <= '9' && n < maxdig) {
		x = x * 10 + (*s - '0');
		s++;
		n++;
	}
	if (n == 0)
		return -1;
	*p = s;
	*v = x;
	return 0;
}

/* Parse [+-]hh[:mm[:ss]] at *P with hh at most MAXH into seconds *SECS.
 * Returns 0 or -1. */
static int parse_hms(const char **p, int maxh, int32_t *secs)
{
	const char *s = *p;
	int sign = 1, h, m = 0, sec = 0;

	if (*s == '+' || *s == '-') {
		sign = *s == '-' ? -1 : 1;
		s++;
	}
	if (parse_uint(&s, 3, &h) < 0 || h > maxh)
		return -1;
	if (*s == ':') {
		s++;
		if (parse_uint(&s, 2, &m) < 0 || m > 59)
			return -1;
		if (*s == ':') {
			s++;
			if (parse_uint(&s, 2, &sec) < 0 || sec > 59)
				return -1;
		}
	}
	*secs = sign * (h * 3600 + m * 60 + sec);
	*p = s;
	return 0;
}

/* Skip a zone abbreviation at *P: alphabetic, or <...> of letters, digits,
 * '+' and '-'; at least three characters.  Returns 0 or -1. */
static int parse_abbr(const char **p)
{
	const char *s = *p;
	int n = 0;

	if (*s == '<') {
		s++;
		while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		       (*s >= '0' && *s <= '9') || *s == '+' || *s == '-') {
			s++;
			n++;
		}
		if (*s != '>')
			return -1;
		s++;
	} else {
		while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')) {
			s++;
			n++;
		}
	}
	if (n < 3)
		return -1;
	*p = s;
	return 0;
}

/* Parse ",date[/time]" at *P into D.  Returns 0 or -1. */
static int parse_rule_date(const char **p, struct tz_rule_date *d)
{
	const char *s = *p;

	if (*s++ != ',')
		return -1;
	if (*s == 'J') {
		s++;
		d->kind = RULE_JULIAN1;
		if (parse_uint(&s, 3, &d->day) < 0 || d->day < 1 ||
		    d->day > 365)
			return -1;
	} else if (*s == 'M') {
		s++;
		d->kind = RULE_MONTH;
		if (parse_uint(&s, 2, &d->month) < 0 || d->month < 1 ||
		    d->month > 12 || *s++ != '.')
			return -1;
		if (parse_uint(&s, 1, &d->week) < 0 || d->week < 1 ||
		    d->week > 5 || *s++ != '.')
			return -1;
		if (parse_uint(&s, 1, &d->day) < 0 || d->day > 6)
			return -1;
	} else {
		d->kind = RULE_JULIAN0;
		if (parse_uint(&s, 3, &d->day) < 0 || d->day > 365)
			return -1;
	}
	d->secs = 2 * 3600;
	if (*s == '/') {
		s++;
		/* TZif v3+ allows -167..167 hours. */
		if (parse_hms(&s, 167, &d->secs) < 0)
			return -1;
	}
	*p = s;
	return 0;
}

/* Parse the POSIX TZ string S (std offset [dst [offset] ,start,end]) into
 * R.  As in Python's zoneinfo a missing std offset means 0 and a DST part
 * without rules is refused.  Returns 0 or -1. */
static int parse_posix_tz(const char *s, struct tz_rule *r)
{
	int32_t off = 0;

	memset(r, 0, sizeof(*r));
	if (parse_abbr(&s) < 0)
		return -1;
	if (*s == '\0')
		return 0;
	/* POSIX offsets count west positive. */
	if (parse_hms(&s, 24, &off) < 0)
		return -1;
	r->std_off = -off;
	if (*s == '\0')
		return 0;
	if (parse_abbr(&s) < 0)
		return -1;
	r->has_dst = 1;
	r->dst_off = r->std_off + 3600;
	if (*s != ',' && *s != '\0') {
		if (parse_hms(&s, 24, &off) < 0)
			return -1;
		r->dst_off = -off;
	}
	if (parse_rule_date(&s, &r->start) < 0 ||
	    parse_rule_date(&s, &r->end) < 0 || *s != '\0')
		return -1;
	return 0;
}

/* ---- reading TZif ----------------------------------------------------- */

struct tzif_hdr {
	int version;    /* 0 for version 1, else '2', '3', '4' ... */
	uint32_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
};

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static int64_t get_be64(const unsigned char *p)
{
	return (int64_t)((uint64_t)get_be32(p) << 32 | get_be32(p + 4));
}

/* Parse the 44-byte header at BUF+*POS (LEN bytes in all), advancing *POS;
 * CHECK asks to validate the counts too (only for the block to be used).
 * Returns 0, or -1 with *WHY set. */
static int tzif_header(const unsigned char *buf, size_t len, size_t *pos,
		       struct tzif_hdr *h, int check, const char **why)
{
	const unsigned char *p = buf + *pos;

	if (len - *pos < 44) {
		*why = "truncated header";
		return -1;
	}
	if (memcmp(p, "TZif", 4) != 0) {
		*why = "not a TZif file";
		return -1;
	}
	h->version = p[4];
	h->isutcnt = get_be32(p + 20);
	h->isstdcnt = get_be32(p + 24);
	h->leapcnt = get_be32(p + 28);
	h->timecnt = get_be32(p + 32);
	h->typecnt = get_be32(p + 36);
	h->charcnt = get_be32(p + 40);
	*pos += 44;
	if (check && (h->typecnt == 0 || h->typecnt > 256 ||
	    (h->isutcnt != 0 && h->isutcnt != h->typecnt) ||
	    (h->isstdcnt != 0 && h->isstdcnt != h->typecnt) ||
	    h->charcnt == 0)) {
		*why = "bad header counts";
		return -1;
	}
	return 0;
}

/* Size in bytes of the data block described by H with TSIZE-byte times. */
static uint64_t tzif_block_size(const struct tzif_hdr *h, unsigned tsize)
{
	return (uint64_t)h->timecnt * tsize + h->timecnt +
	       (uint64_t)h->typecnt * 6 + h->charcnt +
	       (uint64_t)h->leapcnt * (tsize + 4) + h->isstdcnt + h->isutcnt;
}

/* Fill TZ from the data block at P (header H, TSIZE-byte times).  The block
 * is known to be complete.  Returns 0, or -1 with *WHY set (allocation
 * failure gives *WHY "out of memory"). */
static int tzif_block(st_tz *tz, const unsigned char *p,
		      const struct tzif_hdr *h, unsigned tsize,
		      const char **why)
{
	const unsigned char *times = p;
	const unsigned char *idx = times + (size_t)h->timecnt * tsize;
	const unsigned char *types = idx + h->timecnt;
	int32_t utoff[256];
	int first_std = -1;

	for (uint32_t i = 0; i < h->typecnt; i++) {
		const unsigned char *tt = types + 6 * (size_t)i;
		int32_t off = (int32_t)get_be32(tt);

		if (off < -TZ_OFFSET_MAX || off > TZ_OFFSET_MAX ||
		    tt[4] > 1 || tt[5] >= h->charcnt) {
			*why = "bad time type";
			return -1;
		}
		utoff[i] = off;
		if (first_std < 0 && tt[4] == 0)
			first_std = (int)i;
	}
	if (h->timecnt) {
		tz->trans = malloc(h->timecnt * sizeof(*tz->trans));
		tz->trans_off = malloc(h->timecnt * sizeof(*tz->trans_off));
		if (!tz->trans || !tz->trans_off) {
			*why = "out of memory";
			return -1;
		}
	}
	for (uint32_t i = 0; i < h->timecnt; i++) {
		int64_t t = tsize == 8 ? get_be64(times + 8 * (size_t)i) :
			(int64_t)(int32_t)get_be32(times + 4 * (size_t)i);

		if (i > 0 && t <= tz->trans[i - 1]) {
			*why = "transitions out of order";
			return -1;
		}
		if (idx[i] >= h->typecnt) {
			*why = "bad transition type";
			return -1;
		}
		tz->trans[i] = t;
		tz->trans_off[i] = utoff[idx[i]];
	}
	tz->n_trans = h->timecnt;
	/* Before the first transition: the first standard-time type, else
	 * type 0 (RFC 8536; as Python's zoneinfo).  With no transitions at all
	 * type 0 rules, unless a footer rule takes over. */
	tz->before_off = utoff[h->timecnt && first_std >= 0 ? first_std : 0];
	return 0;
}

/* Parse the TZif image BUF of LEN bytes into TZ.  Returns 0, or -1 with
 * *WHY naming the problem. */
static int tzif_parse(st_tz *tz, const unsigned char *buf, size_t len,
		      const char **why)
{
	struct tzif_hdr h;
	size_t pos = 0;
	uint64_t bsize;
	const unsigned char *foot, *end;
	char tzstr[256];
	size_t flen;

	if (tzif_header(buf, len, &pos, &h, len > 4 && buf[4] == 0, why) < 0)
		return -1;
	bsize = tzif_block_size(&h, 4);
	if (bsize > len - pos) {
		*why = "truncated data";
		return -1;
	}
	if (h.version == 0) {
		/* Version 1: 32-bit data and no footer. */
		return tzif_block(tz, buf + pos, &h, 4, why);
	}
	pos += (size_t)bsize;
	if (tzif_header(buf, len, &pos, &h, 1, why) < 0)
		return -1;
	bsize = tzif_block_size(&h, 8);
	if (bsize > len - pos) {
		*why = "truncated data";
		return -1;
	}
	if (tzif_block(tz, buf + pos, &h, 8, why) < 0)
		return -1;
	pos += (size_t)bsize;

	/* Footer: "\n" TZ-string "\n". */
	if (len - pos < 2 || buf[pos] != '\n') {
		*why = "missing footer";
		return -1;
	}
	foot = buf + pos + 1;
	end = memchr(foot, '\n', len - pos - 1);
	if (!end) {
		*why = "unterminated footer";
		return -1;
	}
	flen = (size_t)(end - foot);
	if (flen == 0)
		return 0;       /* no rule: the last type goes on for ever */
	if (flen >= sizeof(tzstr) || memchr(foot, '\0', flen)) {
		*why = "bad footer";
		return -1;
	}
	memcpy(tzstr, foot, flen);
	tzstr[flen] = '\0';
	if (parse_posix_tz(tzstr, &tz->rule) < 0) {
		*why = "bad footer";
		return -1;
	}
	if (tz->rule.std_off < -TZ_OFFSET_MAX ||
	    tz->rule.std_off > TZ_OFFSET_MAX ||
	    tz->rule.dst_off < -TZ_OFFSET_MAX ||
	    tz->rule.dst_off > TZ_OFFSET_MAX) {
		*why = "bad footer";
		return -1;
	}
	tz->has_rule = 1;
	if (tz->n_trans == 0)
		tz->before_off = tz->rule.std_off;
	return 0;
}

/* Read the whole regular file PATH into a new buffer *BUF of *LEN bytes.
 * Returns 0, or -1 with errno set (EISDIR for a directory, EFBIG when the
 * file is implausibly large). */
static int read_file(const char *path, char **buf, size_t *len)
{
	struct stat st;
	int fd, rc = -1, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto out;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > TZ_FILE_MAX) {
		errno = EFBIG;
		goto out;
	}
	rc = st_file_read_fd(fd, (size_t)st.st_size, TZ_FILE_MAX, buf, len);
out:
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

/* ---- public interface ------------------------------------------------- */

void st_tz_free(st_tz *tz)
{
	if (!tz)
		return;
	free(tz->name);
	free(tz->trans);
	free(tz->trans_off);
	free(tz);
}

/* Load zone NAME: the built-in UTC names, else $TZDIR/NAME.  Returns a new
 * zone, or NULL with ERR set (code 78, or 78 too when memory runs out). */
st_tz *st_tz_load(const char *name, st_error *err)
{
	const char *dir, *why = NULL;
	char *buf = NULL, *path = NULL;
	size_t len, plen;
	st_tz *tz;

	if (!name || !*name || name[0] == '/' || strstr(name, "..")) {
		st_error_set(err, ST_EXIT_CONFIG, "invalid time zone name '%s'",
			     name ? name : "");
		return NULL;
	}
	tz = calloc(1, sizeof(*tz));
	if (!tz || !(tz->name = strdup(name))) {
		free(tz);
		st_error_set(err, ST_EXIT_CONFIG,
			     "out of memory loading time zone '%s'", name);
		return NULL;
	}
	if (!strcmp(name, "UTC") || !strcmp(name, "Etc/UTC") ||
	    !strcmp(name, "Z"))
		return tz;      /* no transitions, offset 0 */

	dir = getenv("TZDIR");
	if (!dir || !*dir)
		dir = TZ_DEFAULT_DIR;
	plen = strlen(dir) + strlen(name) + 2;
	if (plen > PATH_MAX)
		goto unknown;
	path = malloc(plen);
	if (!path) {
		st_error_set(err, ST_EXIT_CONFIG,
			     "out of memory loading time zone '%s'", name);
		goto fail;
	}
	memcpy(path, dir, strlen(dir));
	path[strlen(dir)] = '/';
	memcpy(path + strlen(dir) + 1, name, strlen(name) + 1);
	if (read_file(path, &buf, &len) < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == EISDIR ||
		    errno == ENAMETOOLONG)
			goto unknown;
		st_error_set(err, ST_EXIT_CONFIG,
			     "cannot read time zone file '%s': %s", path,
			     strerror(errno));
		goto fail;
	}
	if (tzif_parse(tz, (const unsigned char *)buf, len, &why) < 0) {
		st_error_set(err, ST_EXIT_CONFIG,
			     "malformed time zone file '%s': %s", path, why);
		goto fail;
	}
	free(buf);
	free(path);
	return tz;
unknown:
	st_error_set(err, ST_EXIT_CONFIG, "unknown time zone '%s'", name);
fail:
	free(buf);
	free(path);
	st_tz_free(tz);
	return NULL;
}

/* A new zone named NAME with no transitions (UTC until filled), or NULL
 * with ERR set. */
static st_tz *tz_new(const char *name, st_error *err)
{
	st_tz *tz = calloc(1, sizeof(*tz));

	if (!tz || !(tz->name = strdup(name))) {
		free(tz);
		st_error_set(err, ST_EXIT_CONFIG,
			     "out of memory loading time zone '%s'", name);
		return NULL;
	}
	return tz;
}

st_tz *st_tz_from_tzif(const char *name, const unsigned char *buf, size_t len,
		       st_error *err)
{
	const char *why = NULL;
	st_tz *tz = tz_new(name, err);

	if (!tz)
		return NULL;
	if (tzif_parse(tz, buf, len, &why) < 0) {
		st_error_set(err, ST_EXIT_CONFIG, "malformed time zone '%s': %s",
			     name, why);
		st_tz_free(tz);
		return NULL;
	}
	return tz;
}

st_tz *st_tz_from_posix(const char *s, st_error *err)
{
	st_tz *tz = tz_new(s, err);

	if (!tz)
		return NULL;
	if (parse_posix_tz(s, &tz->rule) < 0 ||
	    tz->rule.std_off < -TZ_OFFSET_MAX || tz->rule.std_off > TZ_OFFSET_MAX ||
	    tz->rule.dst_off < -TZ_OFFSET_MAX || tz->rule.dst_off > TZ_OFFSET_MAX) {
		st_error_set(err, ST_EXIT_CONFIG, "bad POSIX TZ string '%s'", s);
		st_tz_free(tz);
		return NULL;
	}
	tz->has_rule = 1;
	tz->before_off = tz->rule.std_off;
	return tz;
}

const char *st_tz_name(const st_tz *tz)
{
	return tz ? tz->name : "UTC";
}

/* Offset at UTC second T: the table's entry up to and at its last
 * transition, then the footer rule (or the last entry when there is none). */
int32_t st_tz_offset_at(const st_tz *tz, int64_t t)
{
	if (!tz)
		return 0;
	if (tz->n_trans == 0)
		return tz->has_rule ? rule_offset_at(&tz->rule, t) :
			tz->before_off;
	if (t < tz->trans[0])
		return tz->before_off;
	if (t >= tz->trans[tz->n_trans - 1]) {
		/* At the last transition itself the table rules, as in
		 * Python's zoneinfo (it matters for inconsistent files). */
		if (tz->has_rule && t > tz->trans[tz->n_trans - 1])
			return rule_offset_at(&tz->rule, t);
		return tz->trans_off[tz->n_trans - 1];
	}
	/* Last transition <= t: trans[0] <= t < trans[n_trans - 1] here. */
	return tz->trans_off[st_i64_upper_bound(tz->trans, tz->n_trans, t) - 1];
}

/* The first transition strictly after UTC second T, table or footer, into
 * *NEXT.  Returns 1, or 0 when there is none. */
static int next_transition(const st_tz *tz, int64_t t, int64_t *next)
{
	size_t lo = st_i64_upper_bound(tz->trans, tz->n_trans, t);

	if (lo < tz->n_trans) {
		*next = tz->trans[lo];
		return 1;
	}
	if (!tz->has_rule)
		return 0;
	/* Here t >= the last transition.  The footer takes over one second
	 * after it; should it disagree with the table there (zic's slim
	 * output can), that hand-over is a transition too. */
	if (tz->n_trans && t == tz->trans[tz->n_trans - 1] &&
	    rule_offset_at(&tz->rule, t + 1) != tz->trans_off[tz->n_trans - 1]) {
		*next = t + 1;
		return 1;
	}
	return rule_next_event(&tz->rule, t, next);
}

/* Local wall-clock second LOCAL to UTC, Python zoneinfo fold=0 style.
 *
 * The offset is constant between consecutive transitions (next_transition),
 * so on each such interval [START, END) with offset O the wall time LOCAL
 * has the preimage LOCAL - O when that lies in the interval.  Offsets never
 * exceed TZ_OFFSET_MAX < TZ_WINDOW, so every preimage lies within
 * TZ_WINDOW of LOCAL and only the intervals there are looked at.  One
 * preimage: that instant.  Several (an overlap): the earliest, fold=0.
 * None (a gap): the offset in effect before the gap, found by walking the
 * transitions in order -- a transition at T from offset A to B is passed
 * once LOCAL >= T + max(A,B), and the first one not passed, when LOCAL >=
 * T + min(A,B), is the gap, where fold=0 keeps A.  Counting, not the walk
 * alone, decides the flags: in a file whose transitions are closer than
 * their offsets differ, an overlap can reach back past a transition the
 * walk stops at (found by fuzz_tz_tzif). */
int64_t st_tz_local_to_utc(const st_tz *tz, int64_t local, int *flags)
{
	int64_t t, next, start, first = 0;
	int32_t cur, walk;
	int fl, walking = 1;
	size_t count = 0;

	if (flags)
		*flags = 0;
	if (!tz)
		return local;
	if (local > TZ_T_LIMIT || local < -TZ_T_LIMIT) {
		/* Millions of years away: no walk, just do not overflow. */
		cur = st_tz_offset_at(tz, local);
		if (cur < 0 && local > INT64_MAX + cur)
			return INT64_MAX;
		if (cur > 0 && local < INT64_MIN + cur)
			return INT64_MIN;
		return local - cur;
	}
	start = t = local - TZ_WINDOW;
	walk = cur = st_tz_offset_at(tz, t);
	for (;;) {
		int has = next_transition(tz, t, &next) && next <= local + TZ_WINDOW;
		int64_t u = local - cur;

		if (u >= start && (!has || u < next) && count++ == 0)
			first = u;
		if (!has)
			break;
		if (walking) {
			int32_t a = st_tz_offset_at(tz, next - 1);
			int32_t b = st_tz_offset_at(tz, next);

			if (a != b && local >= next + (a > b ? a : b))
				walk = b;
			else if (a != b)
				walking = 0;
		}
		start = t = next;
		cur = st_tz_offset_at(tz, next);
	}
	if (count == 1) {
		fl = 0;
	} else if (count > 1) {
		fl = ST_TZ_AMBIGUOUS;
	} else {
		fl = ST_TZ_GAP;
		first = local - walk;
	}
	if (flags)
		*flags = fl;
	return first;
}
