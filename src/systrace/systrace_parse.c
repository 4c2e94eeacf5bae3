/* systrace_parse.c - the line parsers of the system traces (systrace.h):
 * one line in, its fields out, nothing read outside the line. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "streamtime/systrace.h"
#include "streamtime/time.h"

#define MAX_PID 4194304      /* the kernel's PID_MAX_LIMIT */

/* The blanks between fields: ' ', '\t', '\r', '\v', '\f' (a table: the
 * word splitter is the parser's hot loop). */
static const bool blank[256] = {
	[' '] = true, ['\t'] = true, ['\r'] = true, ['\v'] = true,
	['\f'] = true,
};

static bool sp(char c)
{
	return blank[(unsigned char)c];
}

/* The next word of [*P, E): its start and length; 0 when none is left. */
static size_t word(const char **p, const char *e, const char **w)
{
	const char *s = *p;

	while (s < e && sp(*s))
		s++;
	*w = s;
	while (s < e && !sp(*s))
		s++;
	*p = s;
	return (size_t)(s - *w);
}

static bool is_word(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

/* A decimal integer (optional '-') filling W[0..N): 0, or -1. */
/* The end of [P, E) without its trailing blanks. */
static const char *rtrim(const char *p, const char *e)
{
	while (e > p && sp(e[-1]))
		e--;
	return e;
}

/* [*P, *E) without its blanks at either end; false when nothing is
 * left. */
static bool trim(const char **p, const char **e)
{
	*e = rtrim(*p, *e);
	while (*p < *e && sp(**p))
		(*p)++;
	return *p < *e;
}

static int num(const char *w, size_t n, int64_t *v)
{
	bool neg = false;
	uint64_t x = 0;

	if (n && *w == '-') {
		neg = true;
		w++;
		n--;
	}
	if (n == 0 || n > 19)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (w[i] < '0' || w[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(w[i] - '0');
	}
	if (x > (uint64_t)INT64_MAX)
		return -1;
	*v = neg ? -(int64_t)x : (int64_t)x;
	return 0;
}

static int hexnum(const char *w, size_t n)
{
	if (n >= 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) {
		w += 2;
		n -= 2;
	}
	if (n == 0 || n > 16)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)w[i]))
			return -1;
	return 0;
}

/* ---- file kinds ------------------------------------------------------ */

enum st_sys_file st_sys_classify(const char *base)
{
	static const struct { const char *n; enum st_sys_file k; } names[] = {
		{ "trace_read.out", ST_SYS_READ },
		{ "trace_write.out", ST_SYS_WRITE },
		{ "trace_openat.out", ST_SYS_OPENAT },
		{ "trace_close.out", ST_SYS_CLOSE },
		{ "trace_bio.out", ST_SYS_BIO },
		{ "trace_mmap.out", ST_SYS_MMAP },
		{ "trace_create_del.out", ST_SYS_CREATE_DEL },
		{ "trace_time_align.out", ST_SYS_TIME_ALIGN },
		{ "trace_proc.out", ST_SYS_PROC },
		{ "cpu.out", ST_SYS_CPU },
		{ "gpu.out", ST_SYS_GPU },
		{ "strace.out", ST_SYS_STRACE },
		{ "manifest.json", ST_SYS_MANIFEST },
		{ "ps.out", ST_SYS_PS },
	};
	size_t n = strlen(base);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(base, names[i].n) == 0)
			return names[i].k;
	if (n > 4 && strcmp(base + n - 4, ".log") == 0)
		return ST_SYS_LOG;   /* MLPerf's logger may write to stderr */
	if (n > 7 && strcmp(base + n - 7, ".strace") == 0)
		return ST_SYS_STRACE;
	return ST_SYS_NONE;
}

/* ---- bpftrace call files --------------------------------------------- */

static enum st_sys_col col_of(const char *w, size_t n)
{
	static const struct { const char *n; enum st_sys_col c; } cols[] = {
		{ "TIMESTAMP", ST_SC_TS }, { "PID", ST_SC_PID },
		{ "TID", ST_SC_TID }, { "COMM", ST_SC_COMM },
		{ "FD", ST_SC_FD }, { "RET", ST_SC_RET },
		{ "RET (B)", ST_SC_RET }, { "REQ (B)", ST_SC_REQ },
		{ "OFFSET", ST_SC_OFFSET }, { "BUFFER ADDR", ST_SC_BUF },
		{ "LAT(ns)", ST_SC_LAT }, { "FULLPATH", ST_SC_FULLPATH },
		{ "FILENAME", ST_SC_FILENAME }, { "DONEPID", ST_SC_DONEPID },
		{ "DONECOMM", ST_SC_DONECOMM }, { "DISK", ST_SC_DISK },
		{ "T(R/W)", ST_SC_RW }, { "T", ST_SC_RW },
		{ "BYTES", ST_SC_BYTES },
		{ "LEN", ST_SC_BYTES }, { "SIZE", ST_SC_BYTES },
		{ "SECTOR", ST_SC_SECTOR }, { "FUNCTION", ST_SC_FUNC },
	};

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (is_word(w, n, cols[i].n))
			return cols[i].c;
	return ST_SC_OTHER;
}

int st_sys_header_parse(const char *line, size_t len, st_sys_header *h)
{
	const char *p = line, *e = line + len, *w, *prev = NULL;
	size_t n, plen = 0;

	memset(h, 0, sizeof(*h));
	memset(h->pos, -1, sizeof(h->pos));
	if ((n = word(&p, e, &w)) == 0 || !is_word(w, n, "TIMESTAMP"))
		return 0;
	p = line;
	/* words; "(B)", "ADDR" after "BUFFER" and "PID" after "CALLING" (the
	 * seed's bio layout of d3a55ad) belong to the word before */
	for (;;) {
		n = word(&p, e, &w);
		if (prev && (n == 0 || !(*w == '(' ||
				(is_word(w, n, "ADDR") &&
				 plen == 6 && memcmp(prev, "BUFFER", 6) == 0) ||
				(is_word(w, n, "PID") &&
				 plen == 7 && memcmp(prev, "CALLING", 7) == 0)))) {
			enum st_sys_col c = col_of(prev, plen);

			if (h->ncol == ST_SYS_MAXCOL)
				return -1;
			if (c != ST_SC_OTHER && h->pos[c] < 0)
				h->pos[c] = (int8_t)h->ncol;
			else
				c = ST_SC_OTHER;   /* a name again: the first */
			h->col[h->ncol++] = (uint8_t)c;
			prev = NULL;
		}
		if (n == 0)
			break;
		if (prev) {
			plen = (size_t)(w + n - prev);
			continue;
		}
		prev = w;
		plen = n;
	}
	/* the seed's scripts before 44fc0ff print TID where PID is now */
	if (h->pos[ST_SC_PID] < 0 && h->pos[ST_SC_TID] < 0)
		return 0;
	/* the seed's trace_write.bt names 8 columns, ending with LAT(ns),
	 * and prints the file's name after them: a FILENAME not named */
	if (h->pos[ST_SC_BUF] >= 0 && h->col[h->ncol - 1] == ST_SC_LAT &&
	    h->pos[ST_SC_FILENAME] < 0 && h->pos[ST_SC_FULLPATH] < 0) {
		if (h->ncol == ST_SYS_MAXCOL)
			return -1;
		h->pos[ST_SC_FILENAME] = (int8_t)h->ncol;
		h->col[h->ncol++] = ST_SC_FILENAME;
	}
	h->free_last = h->col[h->ncol - 1] == ST_SC_FILENAME ||
		       h->col[h->ncol - 1] == ST_SC_FULLPATH;
	return 1;
}

/* A return value printed unsigned (the seed's trace_read.bt: "%lu" of
 * args->ret): 2^64 - errno for an error, as -errno in *V; 0, or -1 for
 * anything else. */
static int unsigned_errno(const char *w, size_t n, int64_t *v)
{
	uint64_t x = 0;

	if (n != 20)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(w[i] - '0');

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	if (x < UINT64_MAX - 4094)
		return -1;
	*v = -(int64_t)(UINT64_MAX - x) - 1;
	return 0;
}

/* The length of FULLPATH in "FULLPATH FILENAME" [S, E) (trace_openat.bt:
 * "%s %s", the path as passed, then its dentry's name; either may hold
 * spaces, the name is empty when the open failed): the first split whose
 * right side is the left side's last component; with none, all of it
 * when it holds no blank, else its first word. */
static size_t path_of_pair(const char *s, const char *e)
{
	const char *w, *q = s, *base = s;   /* base: after the last '/' */

	for (const char *b = s; b < e; b++) {
		const char *pe = b, *ns;

		if (*b == '/')
			base = b + 1;
		if (!sp(*b) || b == s)
			continue;
		for (ns = b; ns < e && sp(*ns); ns++)
			;
		/* the blanks from b to ns: one split, the left side is
		 * [s, pe) (no '/' among the blanks) */
		if (ns < e && (size_t)(pe - base) == (size_t)(e - ns) &&
		    memcmp(base, ns, (size_t)(e - ns)) == 0)
			return (size_t)(pe - s);
		b = ns - 1;
	}
	return word(&q, e, &w);
}

/* Does word W[0..N) look like a second TIMESTAMP (as many digits as TS's
 * TSN and within a minute of it)? */
static bool second_stamp(const char *w, size_t n, size_t tsn, int64_t ts)
{
	int64_t v;

	if (n != tsn || tsn < 10 || num(w, n, &v) < 0)
		return false;
	return llabs(v - ts) < INT64_C(60000000000);
}

/* Column COL's word W[0..N) into C when it is a text column (a name, the
 * rwbs letters, a buffer address).  1 done, 0 a number column (not read),
 * -1 with *WHY. */
static int call_text(st_sys_call *c, enum st_sys_col col, const char *w,
		     size_t n, const char **why)
{
	int64_t v = 0;

	switch (col) {
	case ST_SC_COMM:
		c->comm = w;
		c->clen = n;
		return 1;
	case ST_SC_FUNC:
		c->func = w;
		c->fnlen = n;
		return 1;
	case ST_SC_DONECOMM: case ST_SC_DISK: case ST_SC_OTHER:
		if (col == ST_SC_DISK) {
			c->file = w;
			c->flen = n;
		}
		return 1;
	case ST_SC_FULLPATH: case ST_SC_FILENAME:
		/* a name column that is not last: one word */
		if (col == ST_SC_FULLPATH || !c->flen) {
			c->file = w;
			c->flen = n;
		}
		return 1;
	case ST_SC_RW:
		/* rwbs letters, or the request's op as a number (the seed's
		 * bio of d3a55ad: REQ_OP_READ 0, _WRITE 1) */
		if (num(w, n, &v) == 0)
			c->rw = v == 0 ? 'R' : v == 1 ? 'W' : 0;
		else
			c->rw = memchr(w, 'W', n) ? 'W'
				: memchr(w, 'R', n) ? 'R' : 0;
		return 1;
	case ST_SC_BUF:
		if (hexnum(w, n) < 0) {
			*why = "a buffer address that is not hex";
			return -1;
		}
		return 1;
	default:
		return 0;
	}
}

/* Number V of column COL into C (the timestamp's N digits into *TSN).  0,
 * or -1 with *WHY when it is out of the column's range. */
static int call_number(st_sys_call *c, enum st_sys_col col, int64_t v,
		       size_t n, size_t *tsn, const char **why)
{
	switch (col) {
	case ST_SC_TS:
		if (v <= 0) {
			*why = "a timestamp that is not positive";
			return -1;
		}
		c->ts = v;
		*tsn = n;
		break;
	case ST_SC_PID: case ST_SC_TID: case ST_SC_DONEPID:
		if (v < 0 || v > MAX_PID) {
			*why = "a pid out of range (an interleaved line)";
			return -1;
		}
		if (col == ST_SC_PID)
			c->pid = v;
		else if (col == ST_SC_TID)
			c->tid = v;
		break;
	case ST_SC_FD:
		if (v < -4095 || v > INT32_MAX) {
			*why = "a file descriptor out of range";
			return -1;
		}
		c->fd = v;
		break;
	case ST_SC_RET: c->ret = v; break;
	case ST_SC_REQ: c->req = v; break;
	case ST_SC_OFFSET: c->off = v; break;
	case ST_SC_BYTES: c->bytes = v; break;
	case ST_SC_LAT:
		if (v < 0) {
			if (v < INT32_MIN) {
				*why = "a negative latency";
				return -1;
			}
			v += INT64_C(1) << 32;
			c->lat_wrapped = true;
		}
		c->lat = v;
		break;
	default:
		break;
	}
	return 0;
}

/* The free last column of H, [P, E) (a file name that may hold blanks;
 * PAIR: "FULLPATH FILENAME"), into C, whose timestamp has TSN digits.  0,
 * or -1 with *WHY when a second timestamp shows lines interleaved. */
static int call_name(const st_sys_header *h, st_sys_call *c, const char *p,
		     const char *e, size_t tsn, bool pair, const char **why)
{
	const char *w;
	size_t n;

	while (p < e && sp(*p))
		p++;
	/* a second stamp in the name: lines interleaved */
	for (const char *q = p; (n = word(&q, e, &w)) > 0;)
		if (second_stamp(w, n, tsn, c->ts)) {
			*why = "two timestamps on a line (lines of two CPUs "
			       "interleaved)";
			return -1;
		}
	if (pair) {
		c->file = p;
		c->flen = path_of_pair(p, e);
	} else if (h->col[h->ncol - 1] == ST_SC_FILENAME &&
		   h->pos[ST_SC_FULLPATH] >= 0 && c->flen && *c->file == '/') {
		/* FULLPATH FILENAME: the path is the name */
	} else {
		c->file = p;
		c->flen = (size_t)(e - p);
	}
	return 0;
}

int st_sys_call_parse(const st_sys_header *h, const char *line, size_t len,
		      st_sys_call *c, const char **why)
{
	const char *p = line, *e = line + len, *w;
	bool pair = h->free_last && h->ncol >= 2 &&
		    h->col[h->ncol - 1] == ST_SC_FILENAME &&
		    h->col[h->ncol - 2] == ST_SC_FULLPATH;
	size_t nfix = h->free_last ? (size_t)h->ncol - 1 - pair : h->ncol, n,
	       tsn = 0;

	memset(c, 0, sizeof(*c));
	c->ts = c->pid = c->tid = c->fd = c->ret = c->req = c->off = -1;
	c->bytes = -1;
	c->file = c->comm = c->func = "";
	e = rtrim(p, e);
	for (size_t i = 0; i < nfix; i++) {
		int64_t v = 0;
		enum st_sys_col col = (enum st_sys_col)h->col[i];
		int k;

		if ((n = word(&p, e, &w)) == 0) {
			*why = "too few fields (a truncated or interleaved "
			       "line)";
			return -1;
		}
		if ((k = call_text(c, col, w, n, why)) != 0) {
			if (k < 0)
				return -1;
			continue;
		}
		if (num(w, n, &v) < 0 &&
		    (col != ST_SC_RET || unsigned_errno(w, n, &v) < 0)) {
			*why = "a field that is not a number";
			return -1;
		}
		if (col != ST_SC_TS && tsn && second_stamp(w, n, tsn, c->ts)) {
			*why = "two timestamps on a line (lines of two CPUs "
			       "interleaved)";
			return -1;
		}
		if (call_number(c, col, v, n, &tsn, why) < 0)
			return -1;
	}
	if (h->pos[ST_SC_PID] < 0)
		c->pid = c->tid;   /* the seed's older TID column */
	if (c->ts < 0 || c->pid < 0) {
		*why = "no timestamp or pid";
		return -1;
	}
	if (c->lat > c->ts) {
		*why = "a latency longer than the time since boot";
		return -1;
	}
	if (h->free_last) {
		if (call_name(h, c, p, e, tsn, pair, why) < 0)
			return -1;
	} else if (word(&p, e, &w) > 0) {
		*why = "more fields than the header names (an interleaved "
		       "line)";
		return -1;
	}
	c->path_cut = c->flen == 63;
	return 0;
}

/* ---- trace_time_align.out -------------------------------------------- */

/* "HH:MM:SS" in W[0..N): seconds of the day, or -1. */
static int hms(const char *w, size_t n)
{
	int h, m, s;

	if (n != 8 || w[2] != ':' || w[5] != ':')
		return -1;
	for (size_t i = 0; i < 8; i++)
		if (i != 2 && i != 5 && (w[i] < '0' || w[i] > '9'))
			return -1;
	h = (w[0] - '0') * 10 + (w[1] - '0');
	m = (w[3] - '0') * 10 + (w[4] - '0');
	s = (w[6] - '0') * 10 + (w[7] - '0');
	if (h > 23 || m > 59 || s > 60)
		return -1;
	return h * 3600 + m * 60 + s;
}

int st_sys_align_parse(const char *line, size_t len, int64_t *ns, int *secs)
{
	const char *p = line, *e = line + len, *w;
	size_t n = word(&p, e, &w);

	if (n == 0 || *w < '0' || *w > '9')
		return 0;
	if (num(w, n, ns) < 0 || *ns <= 0)
		return -1;
	n = word(&p, e, &w);
	if ((*secs = hms(w, n)) < 0)
		return -1;
	if (word(&p, e, &w) > 0)
		return -1;   /* a third field: lines interleaved */
	return 1;
}

/* ---- mpstat ---------------------------------------------------------- */

/* A date in W[0..N): MM/DD/YY, MM/DD/YYYY or YYYY-MM-DD; 0, -1 not a
 * date, -2 a date that does not exist (02/31/2026; *Y, *M, *D as
 * written). */
static int date_word(const char *w, size_t n, int *y, int *m, int *d)
{
	int64_t a, b, c;

	if (n == 10 && w[4] == '-' && w[7] == '-' && num(w, 4, &a) == 0 &&
	    num(w + 5, 2, &b) == 0 && num(w + 8, 2, &c) == 0) {
		*y = (int)a;
		*m = (int)b;
		*d = (int)c;
	} else if ((n == 8 || n == 10) && w[2] == '/' && w[5] == '/' &&
		   num(w, 2, &a) == 0 && num(w + 3, 2, &b) == 0 &&
		   num(w + 6, n - 6, &c) == 0) {
		*m = (int)a;
		*d = (int)b;
		*y = (int)(n == 8 ? 2000 + c : c);
	} else {
		return -1;
	}
	return *m >= 1 && *m <= 12 && *d >= 1 &&
	       *d <= (int)st_days_in_month(*y, (unsigned)*m) ? 0 : -2;
}

/* The time at the start of an mpstat line: seconds of the day, the words
 * used in *P; -1 when it has none. */
static int cpu_time(const char **p, const char *e)
{
	const char *w, *q;
	size_t n = word(p, e, &w);
	int s = hms(w, n);

	if (s < 0)
		return -1;
	q = *p;
	n = word(&q, e, &w);
	if (is_word(w, n, "AM") || is_word(w, n, "PM")) {
		if (s >= 13 * 3600 || s < 3600)
			return -1;
		if (s >= 12 * 3600)
			s -= 12 * 3600;    /* 12:xx AM is 00:xx */
		if (*w == 'P')
			s += 12 * 3600;
		*p = q;
	}
	return s;
}

int st_sys_cpu_parse(const char *line, size_t len, st_sys_cpu_header *h,
		     st_sys_cpu_row *r, int *y, int *m, int *d)
{
	const char *p = line, *e = line + len, *w;
	size_t n;
	int secs;

	e = rtrim(p, e);
	if ((n = word(&p, e, &w)) == 0)
		return 0;
	if (is_word(w, n, "Linux")) {
		while ((n = word(&p, e, &w)) > 0) {
			int rc = date_word(w, n, y, m, d);

			if (rc == 0)
				return 3;
			if (rc == -2)
				return -2;
		}
		return 0;
	}
	if (is_word(w, n, "Average:"))
		return 0;
	p = line;
	if ((secs = cpu_time(&p, e)) < 0)
		return (*w >= '0' && *w <= '9') ? -1 : 0;
	n = word(&p, e, &w);
	if (is_word(w, n, "CPU")) {
		st_sys_cpu_header nh;
		uint8_t k = 0;

		memset(&nh, -1, sizeof(nh));
		while ((n = word(&p, e, &w)) > 0) {
			if (is_word(w, n, "%usr")) nh.usr = (int8_t)k;
			else if (is_word(w, n, "%nice")) nh.nice = (int8_t)k;
			else if (is_word(w, n, "%sys")) nh.sys = (int8_t)k;
			else if (is_word(w, n, "%iowait")) nh.iowait = (int8_t)k;
			else if (is_word(w, n, "%idle")) nh.idle = (int8_t)k;
			if (++k > 60)
				return -1;
		}
		nh.nval = k;
		nh.cpu = 0;
		nh.valid = nh.idle >= 0;
		*h = nh;
		return 2;
	}
	if (!h->valid || n == 0)
		return -1;
	memset(r, 0, sizeof(*r));
	r->secs = secs;
	r->usr = r->nice = r->sys = r->iowait = r->idle = NAN;
	if (is_word(w, n, "all")) {
		r->all = true;
	} else {
		int64_t c;

		if (num(w, n, &c) < 0 || c < 0 || c > 1 << 20)
			return -1;
		r->cpu = (int)c;
	}
	for (uint8_t k = 0; k < h->nval; k++) {
		char buf[32];
		double v;
		char *end;

		if ((n = word(&p, e, &w)) == 0 || n >= sizeof(buf))
			return -1;
		memcpy(buf, w, n);
		buf[n] = 0;
		for (size_t i = 0; i < n; i++)
			if (buf[i] == ',')
				buf[i] = '.';   /* a decimal comma */
		v = strtod(buf, &end);
		if (*end || !(v >= 0 && v <= 100.0001))
			return -1;
		if (k == h->usr) r->usr = v;
		else if (k == h->nice) r->nice = v;
		else if (k == h->sys) r->sys = v;
		else if (k == h->iowait) r->iowait = v;
		else if (k == h->idle) r->idle = v;
	}
	return word(&p, e, &w) ? -1 : 1;
}

/* ---- nvidia-smi pmon ------------------------------------------------- */

int st_sys_gpu_parse(const char *line, size_t len, st_sys_gpu_header *h,
		     st_sys_gpu_row *r)
{
	const char *p = line, *e = line + len, *w;
	size_t n;
	uint8_t k = 0;

	if (!trim(&p, &e))
		return 0;
	if (*p == '#') {
		st_sys_gpu_header nh;

		p++;
		memset(&nh, -1, sizeof(nh));
		while ((n = word(&p, e, &w)) > 0) {
			if (is_word(w, n, "Date")) nh.date = (int8_t)k;
			else if (is_word(w, n, "Time")) nh.time = (int8_t)k;
			else if (is_word(w, n, "gpu")) nh.gpu = (int8_t)k;
			else if (is_word(w, n, "pid")) nh.pid = (int8_t)k;
			else if (is_word(w, n, "sm")) nh.sm = (int8_t)k;
			else if (is_word(w, n, "mem")) nh.mem = (int8_t)k;
			else if (is_word(w, n, "fb")) nh.fb = (int8_t)k;
			else if (is_word(w, n, "command")) nh.command = (int8_t)k;
			if (++k > 60)
				return 0;
		}
		if (nh.gpu < 0)
			return 0;   /* the units line */
		nh.ncol = k;
		nh.valid = true;
		*h = nh;
		return 2;
	}
	if (!h->valid)
		return -1;
	memset(r, 0, sizeof(*r));
	r->secs = -1;
	r->pid = -1;
	r->sm = r->mem = r->fb = -1;
	r->cmd = "";
	for (k = 0; k < h->ncol; k++) {
		int64_t v = -1;
		bool dash;

		if ((n = word(&p, e, &w)) == 0) {
			/* the command may be missing: nothing after it */
			if (k == h->command && k + 1 == h->ncol)
				break;
			return -1;
		}
		dash = is_word(w, n, "-");
		if (k == h->date) {
			if (n != 8 || num(w, 8, &v) < 0)
				return -1;
			r->y = (int)(v / 10000);
			r->m = (int)(v / 100 % 100);
			r->d = (int)(v % 100);
			if (r->m < 1 || r->m > 12 || r->d < 1 ||
			    r->d > (int)st_days_in_month(r->y, (unsigned)r->m))
				return -1;
		} else if (k == h->time) {
			if ((r->secs = hms(w, n)) < 0)
				return -1;
		} else if (k == h->command) {
			r->cmd = w;
			r->cmdlen = n;
		} else if (k == h->gpu || k == h->pid || k == h->sm ||
			   k == h->mem || k == h->fb) {
			if (!dash && (num(w, n, &v) < 0 || v < 0))
				return -1;
			if (k == h->gpu) {
				if (dash || v > 1023)
					return -1;
				r->gpu = (int)v;
			} else if (k == h->pid) {
				if (v > MAX_PID)
					return -1;
				r->pid = v;
			} else if ((k == h->sm || k == h->mem) && v > 100) {
				return -1;   /* a share of the GPU, in % */
			} else if (k == h->sm) {
				r->sm = (double)v;
			} else if (k == h->mem) {
				r->mem = (double)v;
			} else {
				r->fb = (double)v;
			}
		}
	}
	if (r->secs < 0)
		return -1;
	return 1;
}

/* ---- MLPerf logs ----------------------------------------------------- */

static void copy_str(char *dst, size_t size, const char *s)
{
	snprintf(dst, size, "%s", s ? s : "");
}

int st_sys_mllog_parse(const char *line, size_t len, st_sys_mllog *m,
		       const char **why)
{
	static const char mark[] = ":::MLLOG";
	const char *p = NULL;
	json_t *j, *v, *md;
	json_error_t je;
	const char *et;

	for (size_t i = 0; i + sizeof(mark) - 1 <= len; i++)
		if (line[i] == ':' &&
		    memcmp(line + i, mark, sizeof(mark) - 1) == 0) {
			p = line + i + sizeof(mark) - 1;
			break;
		}
	if (!p)
		return 0;
	j = json_loadb(p, len - (size_t)(p - line), JSON_DISABLE_EOF_CHECK,
		       &je);
	if (!j || !json_is_object(j)) {
		json_decref(j);
		*why = "an MLLOG line whose JSON is damaged";
		return -1;
	}
	memset(m, 0, sizeof(*m));
	m->num = -1;
	m->prefixed = p - (sizeof(mark) - 1) > line;
	v = json_object_get(j, "time_ms");
	et = json_string_value(json_object_get(j, "event_type"));
	if (!json_is_number(v) || !et ||
	    !json_is_string(json_object_get(j, "key"))) {
		json_decref(j);
		*why = "an MLLOG line without time_ms, key or event_type";
		return -1;
	}
	/* in ns (and with the 1 ms the alignment adds) it fits in int64 */
	if (!(json_number_value(v) > 0 &&
	      json_number_value(v) < (double)(INT64_MAX / 1000000 - 1))) {
		json_decref(j);
		*why = "an MLLOG time_ms out of range (UNIX ms, 1970 to 2262)";
		return -1;
	}
	m->time_ms = (int64_t)json_number_value(v);
	if (strcmp(et, "INTERVAL_START") == 0) {
		m->type = ST_ML_START;
	} else if (strcmp(et, "INTERVAL_END") == 0) {
		m->type = ST_ML_END;
	} else if (strcmp(et, "POINT_IN_TIME") == 0) {
		m->type = ST_ML_POINT;
	} else {
		json_decref(j);
		*why = "an MLLOG event_type other than INTERVAL_START, "
		       "INTERVAL_END, POINT_IN_TIME";
		return -1;
	}
	copy_str(m->key, sizeof(m->key),
		 json_string_value(json_object_get(j, "key")));
	md = json_object_get(j, "metadata");
	if (json_is_object(md)) {
		json_t *x = json_object_get(md, "epoch_num");

		if (!json_is_integer(x))
			x = json_object_get(md, "first_epoch_num");
		if (json_is_integer(x))
			m->num = json_integer_value(x);
	}
	v = json_object_get(j, "value");
	if (json_is_string(v)) {
		copy_str(m->value, sizeof(m->value), json_string_value(v));
	} else if (json_is_integer(v)) {
		snprintf(m->value, sizeof(m->value), "%lld",
			 (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		snprintf(m->value, sizeof(m->value), "%.17g",
			 json_real_value(v));
	}
	json_decref(j);
	return 1;
}

/* ---- strace -ttt -f -------------------------------------------------- */

int st_sys_strace_parse(const char *line, size_t len, st_sys_strace *s)
{
	const char *p = line, *e = line + len, *w, *q;
	size_t n;
	int64_t a, b;

	memset(s, 0, sizeof(*s));
	s->pid = -1;
	s->dur_us = -1;
	e = rtrim(p, e);
	if ((n = word(&p, e, &w)) == 0)
		return 0;
	if (!memchr(w, '.', n)) {
		if (num(w, n, &s->pid) < 0 || s->pid < 0 || s->pid > MAX_PID)
			return -1;
		if ((n = word(&p, e, &w)) == 0)
			return -1;
	}
	/* SECS.USEC */
	q = memchr(w, '.', n);
	if (!q || num(w, (size_t)(q - w), &a) < 0 ||
	    num(q + 1, n - (size_t)(q - w) - 1, &b) < 0 || a < 0 ||
	    a > INT64_C(10000000000) || b < 0 || n - (size_t)(q - w) - 1 != 6)
		return -1;
	s->t_us = a * 1000000 + b;
	while (p < e && sp(*p))
		p++;
	if (p == e)
		return -1;
	if (e - p >= 3 && memcmp(p, "+++", 3) == 0) {
		s->exited = true;
		return 1;
	}
	if (e - p >= 3 && memcmp(p, "---", 3) == 0)
		return 0;   /* a signal */
	if (e - p >= 5 && memcmp(p, "<... ", 5) == 0) {
		p += 5;
		s->name = p;
		while (p < e && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		s->nlen = (size_t)(p - s->name);
		s->resumed = true;
		if (!s->nlen)
			return -1;
	} else {
		s->name = p;
		while (p < e && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		s->nlen = (size_t)(p - s->name);
		if (!s->nlen || p == e || *p != '(')
			return -1;
		s->args = p + 1;
	}
	/* the end: " = RET[ ...][ <DUR>]" or "<unfinished ...>" */
	if (e - p >= 16 && memcmp(e - 16, "<unfinished ...>", 16) == 0) {
		s->unfinished = true;
		if (s->args)
			s->alen = (size_t)(e - 16 - s->args);
		return 1;
	}
	if (e > p && e[-1] == '>') {
		const char *lt = e - 1;

		while (lt > p && *lt != '<')
			lt--;
		if (*lt == '<' && lt + 1 < e - 1) {
			const char *dot = memchr(lt, '.', (size_t)(e - lt));

			if (dot && num(lt + 1, (size_t)(dot - lt - 1), &a) == 0 &&
			    num(dot + 1, (size_t)(e - 1 - dot - 1), &b) == 0 &&
			    e - 1 - dot - 1 == 6) {
				/* no longer than the times themselves */
				if (a < 0 || a > INT64_C(10000000000) || b < 0)
					return -1;
				s->dur_us = a * 1000000 + b;
			}
		}
	}
	/* the last " = " of the line */
	for (q = e - 3; q >= p; q--)
		if (q[0] == ' ' && q[1] == '=' && q[2] == ' ')
			break;
	if (q < p)
		return -1;
	if (s->args)
		s->alen = (size_t)(q - s->args);
	if (s->alen && s->args[s->alen - 1] == ')')
		s->alen--;
	p = q + 3;
	n = word(&p, e, &w);
	if (is_word(w, n, "?")) {
		s->has_ret = false;
		return 1;
	}
	if (n > 2 && w[0] == '0' && w[1] == 'x') {
		s->ret = 0;
		s->has_ret = true;
		return 1;
	}
	if (num(w, n, &s->ret) < 0)
		return -1;
	s->has_ret = true;
	s->err = s->ret < 0;
	return 1;
}

/* ---- trace_proc.out -------------------------------------------------- */

int st_sys_proc_parse(const char *line, size_t len, st_sys_proc *pr)
{
	const char *p = line, *e = line + len, *w;
	size_t n;

	memset(pr, 0, sizeof(*pr));
	e = rtrim(p, e);
	if ((n = word(&p, e, &w)) == 0 || is_word(w, n, "TIMESTAMP") ||
	    is_word(w, n, "Attaching"))
		return 0;
	if (num(w, n, &pr->ts) < 0 || pr->ts <= 0)
		return -1;
	n = word(&p, e, &w);
	if (is_word(w, n, "fork"))
		pr->event = 'f';
	else if (is_word(w, n, "exec"))
		pr->event = 'e';
	else if (is_word(w, n, "exit"))
		pr->event = 'x';
	else
		return -1;
	n = word(&p, e, &w);
	if (num(w, n, &pr->pid) < 0 || pr->pid < 0 || pr->pid > MAX_PID)
		return -1;
	n = word(&p, e, &w);
	if (num(w, n, &pr->ppid) < 0 || pr->ppid < -1 || pr->ppid > MAX_PID)
		return -1;
	while (p < e && sp(*p))
		p++;
	pr->comm = p;
	pr->clen = (size_t)(e - p);
	return 1;
}

/* ---- ps snapshots ----------------------------------------------------- */

int st_sys_ps_parse(const char *line, size_t len, st_sys_ps_header *h,
		    st_sys_ps_row *r)
{
	const char *p = line, *e = line + len, *w;
	size_t n;
	int col = 0;

	if (!trim(&p, &e))
		return 0;
	{
		/* a header: the columns by name, PID among them, the command
		 * last (a row of `ps -ef` starts with a user name, not a
		 * number: only the names tell them apart) */
		st_sys_ps_header nh = { -1, -1, -1, 0, false };
		const char *q = p;

		while ((n = word(&q, e, &w)) > 0 && col < 64) {
			if (is_word(w, n, "PID"))
				nh.pid = (int8_t)col;
			else if (is_word(w, n, "PPID"))
				nh.ppid = (int8_t)col;
			else if (is_word(w, n, "CMD") || is_word(w, n, "COMMAND") ||
				 is_word(w, n, "ARGS") || is_word(w, n, "COMM"))
				nh.cmd = (int8_t)col;
			col++;
		}
		if (nh.pid >= 0 && nh.cmd >= 0 && nh.cmd == col - 1 && !n) {
			nh.ncol = (uint8_t)col;
			nh.valid = true;
			*h = nh;
			return 2;
		}
	}
	if (!h->valid)
		return -1;
	memset(r, 0, sizeof(*r));
	r->ppid = -1;
	for (col = 0; col < h->cmd; col++) {
		if ((n = word(&p, e, &w)) == 0)
			return -1;
		if (col == h->pid && (num(w, n, &r->pid) < 0 || r->pid < 0 ||
				      r->pid > MAX_PID))
			return -1;
		if (col == h->ppid && (num(w, n, &r->ppid) < 0 ||
				       r->ppid < 0 || r->ppid > MAX_PID))
			return -1;
	}
	while (p < e && sp(*p))
		p++;
	if (p == e)
		return -1;
	r->cmd = p;
	r->cmdlen = (size_t)(e - p);
	return 1;
}
