/* report.c - the one-page HTML report over a results directory (SPEC 5.9).
 *
 * Everything is read first (small statistics CSVs, the directory listings),
 * then the page is written top to bottom.  Every value that comes from a
 * file goes through st_report_escape() or st_report_write_url(); numbers
 * are formatted here, never copied from the CSV text.  Figures become
 * <img src="data:..."> rather than inline <svg>: cairo names its glyphs and
 * clip paths the same way in every file ("glyph-0-1"), so two inline SVGs
 * in one document would borrow each other's glyphs; an <img> keeps each
 * figure a document of its own and never runs anything an SVG carries.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "st_config.h"
#include "streamtime/atomic.h"
#include "streamtime/csv.h"
#include "streamtime/features.h"
#include "streamtime/file.h"
#include "streamtime/num.h"
#include "streamtime/provenance.h"
#include "streamtime/report.h"

/* Figures larger than this are linked, not embedded. */
#define MAX_EMBED (32u << 20)
/* How deep the CSV walk goes below the results directory. */
#define MAX_DEPTH 8
/* Rows of ranked_days.csv shown. */
#define WORST_DAYS 10

/* ---- small formatting helpers ---------------------------------------- */

int st_report_escape(FILE *f, const char *s)
{
	if (!s)
		return 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		const char *rep = NULL;

		switch (*p) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		case '\t': case '\n': case '\r': break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				rep = "\xef\xbf\xbd";
		}
		if (rep ? fputs(rep, f) < 0 : putc(*p, f) == EOF)
			return -1;
	}
	return 0;
}

int st_report_write_url(FILE *f, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			 (*p >= '0' && *p <= '9') || strchr("-._~/", *p);

		if (ok ? putc(*p, f) == EOF
		       : fprintf(f, "%%%c%c", hex[*p >> 4], hex[*p & 15]) < 0)
			return -1;
	}
	return 0;
}

char *st_report_format_number(double v, int decimals, char *buf, size_t size)
{
	char raw[400], *dot, *out = buf;
	size_t intlen, i, start;

	if (!size)
		return buf;
	if (!isfinite(v) || fabs(v) >= 1e300) {
		snprintf(buf, size, "n/a");
		return buf;
	}
	if (decimals < 0)
		decimals = 0;
	if (decimals > 20)
		decimals = 20;
	snprintf(raw, sizeof(raw), "%.*f", decimals, v);
	/* "-0.0": a negative that rounds to zero is zero */
	if (raw[0] == '-' && !raw[strspn(raw + 1, "0.") + 1])
		memmove(raw, raw + 1, strlen(raw));
	start = raw[0] == '-';
	dot = strchr(raw, '.');
	intlen = (dot ? (size_t)(dot - raw) : strlen(raw)) - start;
	if (size < strlen(raw) + intlen / 3 + 1) {
		snprintf(buf, size, "%s", raw);
		return buf;
	}
	if (start)
		*out++ = '-';
	for (i = 0; i < intlen; i++) {
		if (i && (intlen - i) % 3 == 0)
			*out++ = ',';
		*out++ = raw[start + i];
	}
	strcpy(out, raw + start + intlen);
	return buf;
}

/* T small units as "Q BIG R SMALL", or "Q BIG" when R is 0; PER small
 * units make a big one. */
static char *two_units(char *buf, size_t size, long long t, int per,
		       const char *big, const char *small)
{
	if (t % per)
		snprintf(buf, size, "%lld %s %lld %s", t / per, big, t % per, small);
	else
		snprintf(buf, size, "%lld %s", t / per, big);
	return buf;
}

char *st_report_format_duration(double s, char *buf, size_t size)
{
	if (!isfinite(s) || s < 0 || s > 1e15) {
		snprintf(buf, size, "n/a");
		return buf;
	}
	if (s < 59.5) {
		snprintf(buf, size, "%.0f s", s);
		return buf;
	}
	if (s < 3600 - 0.5)
		return two_units(buf, size, llround(s), 60, "min", "s");
	if (s < 86400 - 30)
		return two_units(buf, size, llround(s / 60), 60, "h", "min");
	return two_units(buf, size, llround(s / 3600), 24, "d", "h");
}

/* Skip "<START ... END" at P (P starts with START); NULL when unclosed. */
static const char *skip_past(const char *p, const char *end, const char *close)
{
	size_t n = strlen(close);

	for (; p + n <= end; p++)
		if (memcmp(p, close, n) == 0)
			return p + n;
	return NULL;
}

const char *st_report_svg_root(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (p < end) {
		if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
			p++;
		} else if (end - p >= 2 && memcmp(p, "<?", 2) == 0) {
			p = skip_past(p + 2, end, "?>");
		} else if (end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
			p = skip_past(p + 4, end, "-->");
		} else if (end - p >= 9 && strncasecmp(p, "<!DOCTYPE", 9) == 0) {
			/* an internal subset [...] may hold '>' */
			const char *q = p + 9;
			int in_subset = 0;

			for (; q < end; q++) {
				if (*q == '[')
					in_subset = 1;
				else if (*q == ']')
					in_subset = 0;
				else if (*q == '>' && !in_subset)
					break;
			}
			p = q < end ? q + 1 : NULL;
		} else if (end - p >= 5 && memcmp(p, "<svg", 4) == 0 &&
			   p[4] && strchr(" \t\r\n>/", p[4])) {
			return p;
		} else {
			return NULL;
		}
		if (!p)
			return NULL;
	}
	return NULL;
}

char *st_report_relpath(const char *from, const char *to)
{
	size_t i = 0, common, ups = 0;
	const char *rest;
	char *out, *o;

	/* the longest common prefix that ends at a component boundary */
	while (from[i] && from[i] == to[i])
		i++;
	if ((!from[i] || from[i] == '/') && (!to[i] || to[i] == '/')) {
		common = i;
	} else {
		while (i && from[i - 1] != '/')
			i--;
		common = i ? i - 1 : 0;
	}
	/* one ".." for every component of FROM past the common part */
	for (const char *p = from + common; *p; p++)
		if (*p != '/' && (p == from || p[-1] == '/'))
			ups++;
	rest = to + common;
	while (*rest == '/')
		rest++;
	out = malloc(ups * 3 + strlen(rest) + 2);
	if (!out)
		return NULL;
	o = out;
	for (i = 0; i < ups; i++, o += 3)
		memcpy(o, "../", 3);
	strcpy(o, rest);
	i = strlen(out);
	while (i && out[i - 1] == '/')
		out[--i] = '\0';
	if (!out[0])
		strcpy(out, ".");
	return out;
}

/* ---- reading ---------------------------------------------------------- */

/* A number cell: empty and "nan" (what the stats write for n < 2) are NaN;
 * anything else must be a finite number. */
static int cell_num(const st_table *t, size_t r, int c, double *out,
		    st_error *err)
{
	const char *s = st_table_get(t, r, c);

	if (!*s || strcasecmp(s, "nan") == 0) {
		*out = NAN;
		return 0;
	}
	return st_table_get_double(t, r, c, out, err);
}

/* Read DIR/NAME into T when it is there.  1 read, 0 no data (missing or
 * zero bytes: T stays empty), -1 error. */
static int read_optional(st_table *t, const char *dir, const char *name,
			 st_error *err)
{
	char *path = st_path_join(dir, name);
	struct stat st;
	int rc;

	if (!path)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		free(path);
		return 0;
	}
	rc = st_table_read(t, path, err) < 0 ? -1 : 1;
	free(path);
	return rc;
}

/* Read NCOLS numeric columns NAMES of DIR/NAME: *ROWS gets nrows * NCOLS
 * values (new, free), *LABELS (when LABEL is a column name) the borrowed
 * label cells of T.  Returns the row count, or -1. */
static long read_numbers(st_table *t, const char *dir, const char *name,
			 const char *label, const char *const names[],
			 size_t ncols, double **rows, st_error *err)
{
	int idx[16];
	int rc;

	*rows = NULL;
	rc = read_optional(t, dir, name, err);
	if (rc <= 0)
		return rc;
	if (st_table_require(t, names, idx, ncols, err) < 0)
		return -1;
	if (label && st_table_require(t, &label, &idx[ncols], 1, err) < 0)
		return -1;
	if (!t->nrows)
		return 0;
	*rows = calloc(t->nrows * ncols, sizeof(double));
	if (!*rows)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < ncols; c++)
			if (cell_num(t, r, idx[c], &(*rows)[r * ncols + c], err) < 0)
				return -1;
	return (long)t->nrows;
}

enum { CMP_SIZE, CMP_GB, CMP_FTM, CMP_FTS, CMP_STM, CMP_STS, CMP_ENH, CMP_N };
static const char *const cmp_cols[CMP_N] = {
	"size", "data_gb", "file_transfer_mean_s", "file_transfer_std_s",
	"streaming_mean_s", "streaming_std_s", "enhancement",
};

enum { SZ_N, SZ_MEAN, SZ_MEDIAN, SZ_STD, SZ_MIN, SZ_MAX, SZ_Q25, SZ_Q75,
       SZ_NCOLS };
static const char *const size_cols[SZ_NCOLS] = {
	"Number of Points", "Mean time", "Median time", "Standard Deviation",
	"Minimum time", "Maximum time", "25th percentile", "75th percentile",
};
static const char *const queue_cols[SZ_NCOLS] = {
	"n", "mean", "median", "std", "min", "max", "q25", "q75",
};

enum { MD_SIZE, MD_N, MD_MEDIAN, MD_LO, MD_HI, MD_LEVEL, MD_RES, MD_CLOCK,
       MD_IQR, MD_DROPPED, MD_SHARE, MD_NCOLS };
static const char *const median_cols[MD_NCOLS] = {
	"size", "n", "median", "ci_low", "ci_high", "ci_level", "resolution_s",
	"clock_bound_s", "iqr", "outliers_dropped", "outliers_share",
};

enum { MR_SIZE, MR_FT, MR_ST, MR_RATIO, MR_LO, MR_HI, MR_LEVEL, MR_MEAN,
       MR_NCOLS };
static const char *const ratio_cols[MR_NCOLS] = {
	"size", "file_transfer_median", "streaming_median", "median_ratio",
	"ratio_low", "ratio_high", "ratio_level", "mean_ratio",
};

/* medians.csv or queue_time_median.csv */
struct medians {
	st_table t;
	double *v;          /* nrows * MD_NCOLS */
	long nrows;
	int label;          /* the group column */
};

/* One per-size statistics file. */
struct size_stats {
	int64_t size;
	st_table t;
	double *v;          /* nrows * SZ_NCOLS */
	long nrows;
	int label;          /* column of the row labels */
};

struct figure {
	char *stem;
	bool svg, png;
	int rank;
	int64_t sub;
};

struct rep {
	FILE *f;
	const char *shown;  /* the results directory as the user named it */
	char *root;         /* its real path */
	char *rel;          /* from the page's directory to ROOT */
	st_error *err;

	st_table cmp_t;
	double *cmp;
	long ncmp;

	struct size_stats *sizes;
	size_t nsizes;

	st_table queue_t;
	double *queue;
	long nqueue;
	int queue_label;

	st_table days_t;
	double *days;
	long ndays;
	int days_label;

	struct medians med[2];  /* medians.csv, queue_time_median.csv */

	json_t *prov;           /* provenance.json, or NULL */
	const char *instrument, *acq, *compute;  /* names, borrowed */
	bool synthetic;

	st_table sets_t;        /* traces/trace_sets.csv */
	bool has_sets;
	st_table left_t;        /* sizes_left_out.csv */
	bool has_left;

	st_table ratio_t;       /* median_ratio.csv */
	double *ratio;
	long nratio;

	struct figure *figs;
	size_t nfigs;

	char **csvs;
	size_t ncsvs;
	bool timeline;

	char **man;         /* the manifest's paths, sorted */
	size_t nman;
	bool has_man;       /* ROOT/manifest.txt was there */
};

static int push_ptr(void *vec, size_t *n, size_t elem, const void *item)
{
	char **v = vec;
	char *nv = realloc(*v, (*n + 1) * elem);

	if (!nv)
		return -1;
	memcpy(nv + *n * elem, item, elem);
	*v = nv;
	(*n)++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Did the run write REL (a path below the results)?  Without a manifest
 * every file counts as the run's. */
static bool listed(const struct rep *r, const char *rel)
{
	return !r->has_man ||
	       bsearch(&rel, r->man, r->nman, sizeof(*r->man), cmp_str);
}

/* Read ROOT/manifest.txt when it is there: its paths, sorted, in R->man.
 * Paths that leave the directory ("..", absolute) are ignored. */
static int load_manifest(struct rep *r)
{
	char *path = st_path_join(r->root, ST_MANIFEST), *buf, *line, *save;
	size_t len;

	if (!path)
		return st_error_set(r->err, ST_EXIT_IOERR, "out of memory");
	if (!st_path_is_file(path)) {
		free(path);
		return 0;
	}
	buf = st_file_read(path, &len, r->err);
	free(path);
	if (!buf)
		return -1;
	r->has_man = true;
	for (line = strtok_r(buf, "\r\n", &save); line;
	     line = strtok_r(NULL, "\r\n", &save)) {
		char *dup;

		if (line[0] == '#' || line[0] == '/' || !line[0] ||
		    !strncmp(line, "../", 3) || strstr(line, "/../"))
			continue;
		dup = strdup(line);
		if (!dup || push_ptr(&r->man, &r->nman, sizeof(dup), &dup) < 0) {
			free(dup);
			free(buf);
			return st_error_set(r->err, ST_EXIT_IOERR,
					    "out of memory");
		}
	}
	free(buf);
	if (r->nman)
		qsort(r->man, r->nman, sizeof(*r->man), cmp_str);
	return 0;
}

/* Every regular, not hidden file below ROOT/REL (REL "" for ROOT) but the
 * manifest, as paths relative to ROOT, appended to *V.  A directory that
 * cannot be read is an error when STRICT, else it counts as empty. */
static int walk_files(const char *root, const char *rel, int depth,
		      bool strict, char ***v, size_t *n, st_error *err)
{
	char *dir = rel[0] ? st_path_join(root, rel) : strdup(root);
	struct dirent *de;
	DIR *dp;
	int rc = 0;

	if (!dir)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	dp = opendir(dir);
	if (!dp) {
		if (strict)
			rc = st_error_set(err, ST_EXIT_IOERR, "cannot read %s: %s",
					  dir, strerror(errno));
		free(dir);
		return rc;
	}
	while (rc == 0 && (de = readdir(dp)) != NULL) {
		char *path, *sub;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		path = st_path_join(dir, de->d_name);
		sub = rel[0] ? st_path_join(rel, de->d_name) : strdup(de->d_name);
		if (!path || !sub) {
			rc = st_error_set(err, ST_EXIT_IOERR, "out of memory");
		} else if (stat(path, &st) == 0) {
			if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH) {
				rc = walk_files(root, sub, depth + 1, strict, v, n,
						err);
			} else if (S_ISREG(st.st_mode) &&
				   strcmp(sub, ST_MANIFEST)) {
				if (push_ptr(v, n, sizeof(sub), &sub) < 0)
					rc = st_error_set(err, ST_EXIT_IOERR,
							  "out of memory");
				else
					sub = NULL;
			}
		}
		free(path);
		free(sub);
	}
	closedir(dp);
	free(dir);
	return rc;
}

int st_report_manifest_write(const char *dir, const char *writer,
			     const char *const extra[], size_t nextra,
			     st_error *err)
{
	char **v = NULL, *path = NULL;
	size_t n = 0;
	st_atomic_file af;
	int rc = -1;

	if (walk_files(dir, "", 0, true, &v, &n, err) < 0)
		goto out;
	for (size_t i = 0; i < nextra; i++) {
		char *dup = strdup(extra[i]);

		if (!dup || push_ptr(&v, &n, sizeof(dup), &dup) < 0) {
			free(dup);
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
			goto out;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	path = st_path_join(dir, ST_MANIFEST);
	if (!path) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	if (st_atomic_open(&af, path, err) < 0)
		goto out;
	fprintf(af.fp, "# the files %s wrote into this directory, one run; "
		"`streamtime report` links only these\n", writer);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(v[i], v[i - 1]))
			fprintf(af.fp, "%s\n", v[i]);
	/* a failed fprintf is said by the commit: "cannot write PATH: ..." */
	rc = st_atomic_commit(&af, err);
out:
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	free(path);
	return rc;
}

/* "statistics_transfers_{N}.csv" -> N, or -1. */
static int64_t size_of_name(const char *name, const char *prefix,
			    const char *suffix)
{
	size_t pl = strlen(prefix), sl = strlen(suffix), nl = strlen(name);
	char digits[24];
	int64_t v;

	if (nl <= pl + sl || nl - pl - sl >= sizeof(digits) ||
	    strncmp(name, prefix, pl) || strcmp(name + nl - sl, suffix))
		return -1;
	memcpy(digits, name + pl, nl - pl - sl);
	digits[nl - pl - sl] = '\0';
	if (strspn(digits, "0123456789") != strlen(digits) ||
	    st_num_parse_int(digits, &v) < 0 || v <= 0)
		return -1;
	return v;
}

static int add_size(struct rep *r, int64_t size)
{
	struct size_stats s;

	for (size_t i = 0; i < r->nsizes; i++)
		if (r->sizes[i].size == size)
			return 0;
	memset(&s, 0, sizeof(s));
	s.size = size;
	st_table_init(&s.t);
	if (push_ptr(&r->sizes, &r->nsizes, sizeof(s), &s) < 0)
		return st_error_set(r->err, ST_EXIT_IOERR, "out of memory");
	return 0;
}

static int cmp_size(const void *a, const void *b)
{
	const struct size_stats *x = a, *y = b;

	return (x->size > y->size) - (x->size < y->size);
}

static int load_statistics(struct rep *r)
{
	char *dir = st_path_join(r->root, "statistics");
	static const char *const days_cols[1] = { "queue_time" };
	DIR *dp;
	int rc = -1;

	if (!dir)
		return st_error_set(r->err, ST_EXIT_IOERR, "out of memory");
	r->ncmp = read_numbers(&r->cmp_t, dir, "statistics_table.csv", NULL,
			       cmp_cols, CMP_N, &r->cmp, r->err);
	if (r->ncmp < 0)
		goto out;
	for (long i = 0; i < r->ncmp; i++)
		if (isfinite(r->cmp[i * CMP_N]) && r->cmp[i * CMP_N] > 0 &&
		    r->cmp[i * CMP_N] < 1e9 &&
		    add_size(r, (int64_t)r->cmp[i * CMP_N]) < 0)
			goto out;
	dp = opendir(dir);
	if (dp) {
		struct dirent *de;

		while ((de = readdir(dp)) != NULL) {
			int64_t s = size_of_name(de->d_name,
						 "statistics_transfers_", ".csv");
			char rel[300];

			snprintf(rel, sizeof(rel), "statistics/%s", de->d_name);
			if (s > 0 && listed(r, rel) && add_size(r, s) < 0) {
				closedir(dp);
				goto out;
			}
		}
		closedir(dp);
	}
	if (r->nsizes)
		qsort(r->sizes, r->nsizes, sizeof(*r->sizes), cmp_size);
	for (size_t i = 0; i < r->nsizes; i++) {
		struct size_stats *s = &r->sizes[i];
		char name[64];

		snprintf(name, sizeof(name), "statistics_transfers_%" PRId64 ".csv",
			 s->size);
		s->nrows = read_numbers(&s->t, dir, name, "Statistics", size_cols,
					SZ_NCOLS, &s->v, r->err);
		if (s->nrows < 0)
			goto out;
		s->label = st_table_col(&s->t, "Statistics");
	}
	r->nqueue = read_numbers(&r->queue_t, dir, "queue_time_statistics.csv",
				 "statistics", queue_cols, SZ_NCOLS, &r->queue,
				 r->err);
	if (r->nqueue < 0)
		goto out;
	r->queue_label = st_table_col(&r->queue_t, "statistics");
	r->ndays = read_numbers(&r->days_t, dir, "ranked_days.csv",
				"Submit_date", days_cols, 1, &r->days, r->err);
	if (r->ndays < 0)
		goto out;
	r->days_label = st_table_col(&r->days_t, "Submit_date");
	if (listed(r, "statistics/sizes_left_out.csv")) {
		int lc = read_optional(&r->left_t, dir, "sizes_left_out.csv",
				       r->err);
		static const char *const lneed[] = { "size", "part", "first",
						     "last", "file" };
		int li[5];

		if (lc < 0 || (lc > 0 && st_table_require(&r->left_t, lneed, li,
							   5, r->err) < 0))
			goto out;
		r->has_left = lc > 0 && r->left_t.nrows > 0;
	}
	r->nratio = read_numbers(&r->ratio_t, dir, "median_ratio.csv", NULL,
				 ratio_cols, MR_NCOLS, &r->ratio, r->err);
	if (r->nratio < 0)
		goto out;
	if (listed(r, "traces/trace_sets.csv")) {
		char *td = st_path_join(r->root, "traces");
		static const char *const tneed[] = {
			"set", "label", "role", "scope", "key", "events", "io_s",
			"bytes", "align_bound_s", "cpu_busy_pct", "gpu_sm_pct" };
		int ti[11], tc = td ? read_optional(&r->sets_t, td,
						    "trace_sets.csv", r->err) : -1;

		free(td);
		if (tc < 0 || (tc > 0 && st_table_require(&r->sets_t, tneed, ti,
							  11, r->err) < 0))
			goto out;
		r->has_sets = tc > 0 && r->sets_t.nrows > 0;
	}
	for (int i = 0; i < 2; i++) {
		struct medians *m = &r->med[i];

		m->nrows = read_numbers(&m->t, dir, i ? "queue_time_median.csv"
					: "medians.csv", "group", median_cols,
					MD_NCOLS, &m->v, r->err);
		if (m->nrows < 0)
			goto out;
		m->label = st_table_col(&m->t, "group");
	}
	rc = 0;
out:
	free(dir);
	return rc;
}

/* The figures, in the order a reader wants them: the overview first, the
 * per-size histograms by size, the extras, the queue, then the unknown ones
 * alphabetically. */
static const struct {
	const char *stem;
	const char *caption;
} known_figs[] = {
	{ "transfer_hist_combined", "File-transfer (red) and streaming (blue) "
	  "times for every scan size, one panel each." },
	{ "transfer_hist_", NULL },   /* per size; caption made below */
	{ "streaming_box", "Streaming time per scan size, as box plots "
	  "(box: quartiles, line: median)." },
	{ "experiment_timeline", "Experiment timeline: every scan's stages "
	  "against time, one bar per stage." },
	{ "queue_hist", "Slurm queue time (Start \xe2\x88\x92 Submit) of the "
	  "count jobs; the inset enlarges the short waits." },
	{ "queue_by_index", "Slurm queue time of each count job, in "
	  "submission order." },
	{ "queue_by_date", "Slurm queue time of each count job against its "
	  "submit date." },
};
#define NKNOWN (sizeof(known_figs) / sizeof(known_figs[0]))

static void figure_rank(struct figure *fig)
{
	int64_t s = size_of_name(fig->stem, "transfer_hist_", "");

	fig->sub = 0;
	for (size_t i = 0; i < NKNOWN; i++) {
		if (!known_figs[i].caption) {
			if (s > 0) {
				fig->rank = (int)i;
				fig->sub = s;
				return;
			}
		} else if (strcmp(fig->stem, known_figs[i].stem) == 0) {
			fig->rank = (int)i;
			return;
		}
	}
	fig->rank = (int)NKNOWN;
}

static int cmp_figure(const void *a, const void *b)
{
	const struct figure *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->sub != y->sub)
		return (x->sub > y->sub) - (x->sub < y->sub);
	return strverscmp(x->stem, y->stem);
}

/* Open DIR (owned, from a join that may have failed) into *DP: 1 when
 * open, 0 (DIR freed) when it is absent or unreadable, which a report
 * treats as empty, -1 (DIR NULL) when memory ran out. */
static int open_dir(struct rep *r, char *dir, DIR **dp)
{
	if (!dir)
		return st_error_set(r->err, ST_EXIT_IOERR, "out of memory");
	*dp = opendir(dir);
	if (!*dp) {
		free(dir);
		return 0;
	}
	return 1;
}

static int load_figures(struct rep *r)
{
	char *dir = st_path_join(r->root, "figures");
	struct dirent *de;
	DIR *dp = NULL;
	int o = open_dir(r, dir, &dp);

	if (o <= 0)
		return o;
	while ((de = readdir(dp)) != NULL) {
		size_t len = strlen(de->d_name), i;
		bool svg = len > 4 && !strcmp(de->d_name + len - 4, ".svg");
		bool png = len > 4 && !strcmp(de->d_name + len - 4, ".png");
		char *path;
		bool isfile;

		char rel[300];

		if ((!svg && !png) || de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "figures/%s", de->d_name);
		if (!listed(r, rel))
			continue;
		path = st_path_join(dir, de->d_name);
		if (!path)
			goto oom;
		isfile = st_path_is_file(path);
		free(path);
		if (!isfile)
			continue;
		for (i = 0; i < r->nfigs; i++)
			if (strlen(r->figs[i].stem) == len - 4 &&
			    !strncmp(r->figs[i].stem, de->d_name, len - 4))
				break;
		if (i == r->nfigs) {
			struct figure fig = { 0 };

			fig.stem = strndup(de->d_name, len - 4);
			if (!fig.stem)
				goto oom;
			figure_rank(&fig);
			if (push_ptr(&r->figs, &r->nfigs, sizeof(fig), &fig) < 0) {
				free(fig.stem);
				goto oom;
			}
		}
		if (svg)
			r->figs[i].svg = true;
		else
			r->figs[i].png = true;
	}
	closedir(dp);
	free(dir);
	if (r->nfigs)
		qsort(r->figs, r->nfigs, sizeof(*r->figs), cmp_figure);
	return 0;
oom:
	closedir(dp);
	free(dir);
	return st_error_set(r->err, ST_EXIT_IOERR, "out of memory");
}

/* The CSV files below the results that the run wrote (listed). */
static int collect_csvs(struct rep *r)
{
	char **v = NULL;
	size_t n = 0;
	int rc = walk_files(r->root, "", 0, false, &v, &n, r->err);

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(v[i]);

		if (rc == 0 && len > 4 && !strcmp(v[i] + len - 4, ".csv") &&
		    listed(r, v[i])) {
			if (push_ptr(&r->csvs, &r->ncsvs, sizeof(v[i]), &v[i]) < 0)
				rc = st_error_set(r->err, ST_EXIT_IOERR,
						  "out of memory");
			else
				continue;
		}
		free(v[i]);
	}
	free(v);
	return rc;
}

/* The pipeline's directories first, in the order the data flow, then the
 * rest; within a directory by name. */
static int dir_rank(const char *path)
{
	static const char *const order[] = { "file_transfer/", "streaming/",
					     "statistics/" };

	for (size_t i = 0; i < 3; i++)
		if (!strncmp(path, order[i], strlen(order[i])))
			return (int)i;
	return strchr(path, '/') ? 4 : 3;
}

static int cmp_csv(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int rx = dir_rank(x), ry = dir_rank(y);

	/* strverscmp: streaming_times_128 before streaming_times_1024 */
	return rx != ry ? rx - ry : strverscmp(x, y);
}

/* ---- writing ---------------------------------------------------------- */

static void put(struct rep *r, const char *s)
{
	fputs(s, r->f);
}

static void esc(struct rep *r, const char *s)
{
	st_report_escape(r->f, s);
}

static void num(struct rep *r, double v, int decimals)
{
	char b[64];

	fputs(st_report_format_number(v, decimals, b, sizeof(b)), r->f);
}

/* A relative link to SUB, a path below the results directory. */
static void href(struct rep *r, const char *sub)
{
	put(r, "href=\"");
	if (strcmp(r->rel, ".")) {
		st_report_write_url(r->f, r->rel);
		put(r, "/");
	}
	st_report_write_url(r->f, sub);
	put(r, "\"");
}

/* "MEAN ± STD", one decimal each. */
static void mean_std(struct rep *r, double mean, double std)
{
	num(r, mean, 1);
	put(r, " \xc2\xb1 ");
	num(r, std, 1);
}

static void no_data(struct rep *r, const char *what)
{
	put(r, "<p class=\"nodata\">No data: ");
	put(r, what);
	put(r, "</p>\n");
}

static const char style[] =
	"<style>\n"
	":root{--ft:#BB0700;--st:#0762CF;--fg:#1d1d1f;--muted:#5f6368;"
	"--line:#d9dce1;--band:#f4f6f8}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0 auto;max-width:1100px;padding:24px 28px 48px;"
	"font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,\"Helvetica Neue\","
	"\"DejaVu Sans\",Arial,sans-serif;font-size:16px;line-height:1.5;"
	"color:var(--fg);background:#fff}\n"
	"h1{font-size:1.7em;line-height:1.25;margin:0 0 4px}\n"
	"h2{font-size:1.3em;margin:36px 0 10px;padding-bottom:4px;"
	"border-bottom:1px solid var(--line)}\n"
	"h3{font-size:1.05em;margin:22px 0 6px}\n"
	".meta{color:var(--muted);font-size:.9em;margin:0 0 18px}\n"
	".summary{font-size:1.08em;background:var(--band);border-left:4px solid "
	"var(--st);padding:12px 16px;margin:16px 0}\n"
	"nav ul{margin:0;padding:0;list-style:none;display:flex;flex-wrap:wrap;"
	"gap:4px 18px;font-size:.92em}\n"
	"a{color:var(--st)}\n"
	"code{font-family:ui-monospace,\"DejaVu Sans Mono\",Menlo,Consolas,"
	"monospace;font-size:.92em}\n"
	"table{border-collapse:collapse;margin:8px 0 6px;font-size:.94em}\n"
	"th,td{padding:5px 12px;border-bottom:1px solid var(--line);"
	"text-align:right;white-space:nowrap}\n"
	"th{background:var(--band);font-weight:600;white-space:normal}\n"
	/* the widest tables fit 1100 px: headers wrap, cells tighter, the
	 * provenance's paths and hashes break anywhere */
	"#medians-table th,#medians-table td,#headline-table th,"
	"#headline-table td{padding:5px 8px}\n"
	"#provenance-table td{white-space:normal;word-break:break-all}\n"
	"th:first-child,td:first-child,.l{text-align:left}\n"
	"td{font-variant-numeric:tabular-nums}\n"
	"caption{caption-side:bottom;text-align:left;color:var(--muted);"
	"font-size:.88em;padding-top:6px;white-space:normal}\n"
	".ft{color:var(--ft)}.st{color:var(--st)}\n"
	".big{font-weight:700}\n"
	".nodata{color:var(--muted);font-style:italic}\n"
	".wrap{overflow-x:auto}\n"
	"figure{margin:18px 0 26px}\n"
	"figure img{display:block;max-width:100%;height:auto;"
	"border:1px solid var(--line)}\n"
	"figcaption{color:var(--muted);font-size:.9em;margin-top:6px}\n"
	"dl.formulas dt{font-weight:600;margin-top:10px}\n"
	"dl.formulas dd{margin:2px 0 0 18px}\n"
	"ul.files{padding-left:20px}ul.files li{margin:2px 0}\n"
	".note{background:var(--band);padding:10px 14px;font-size:.94em}\n"
	"ul.warn{background:#fff4e5;border-left:4px solid #b35c00;"
	"padding:10px 14px 10px 32px}\n"
	"tr.misleads td{background:#fff4e5}\n"
	"@media print{body{max-width:none}figure{break-inside:avoid}}\n"
	"</style>\n";

/* "Streaming vs file transfer: NCEM 4D Camera to NERSC", with the
 * session's names. */
static void title(struct rep *r)
{
	put(r, "Streaming vs file transfer: ");
	esc(r, r->acq);
	put(r, " ");
	esc(r, r->instrument);
	put(r, " to ");
	esc(r, r->compute);
	if (r->synthetic)
		put(r, " (synthetic data)");
}

static void write_head(struct rep *r)
{
	put(r, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	       "<meta charset=\"utf-8\">\n"
	       "<meta name=\"viewport\" content=\"width=device-width, "
	       "initial-scale=1\">\n"
	       /* belt and braces: the page may load nothing from anywhere */
	       "<meta http-equiv=\"Content-Security-Policy\" content=\""
	       "default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
	       "<title>");
	title(r);
	put(r, "</title>\n");
	put(r, style);
	put(r, "</head>\n<body>\n");
}

/* "128×128" */
static void size_label(struct rep *r, int64_t s)
{
	fprintf(r->f, "%" PRId64 "\xc3\x97%" PRId64, s, s);
}

static const struct size_stats *find_size(const struct rep *r, int64_t size)
{
	for (size_t i = 0; i < r->nsizes; i++)
		if (r->sizes[i].size == size)
			return &r->sizes[i];
	return NULL;
}

/* Which row of a per-size table: 0 streaming with outliers, 1 streaming
 * without, 2 file transfer with, 3 file transfer without; -1 unknown. */
static int row_kind(const char *label)
{
	int st = strstr(label, "Streaming") != NULL;
	int ft = strstr(label, "Original") != NULL ||
		 strstr(label, "File transfer") != NULL;

	if (st == ft)
		return -1;
	return (st ? 0 : 2) + (strstr(label, "without") != NULL);
}

/* Number of points of row kind KIND of size S, or -1. */
static double points(const struct size_stats *s, int kind)
{
	for (long i = 0; s && i < s->nrows; i++)
		if (row_kind(st_table_get(&s->t, (size_t)i, s->label)) == kind)
			return s->v[i * SZ_NCOLS + SZ_N];
	return -1;
}

static void write_summary(struct rep *r)
{
	double nst = 0, nft = 0;
	bool counted = false, all_faster = true;
	long i;

	put(r, "<h2 id=\"summary\">Summary</h2>\n<p class=\"summary\">");
	put(r, "This report compares two ways of moving ");
	esc(r, r->instrument);
	put(r, " scans from the receiver servers at ");
	esc(r, r->acq);
	put(r, " to the compute nodes at ");
	esc(r, r->compute);
	put(r, ": <b class=\"ft\">file transfer</b> "
	       "(the scan is written to disk, then a Slurm job copies and "
	       "counts it) and <b class=\"st\">streaming</b> (the data go "
	       "straight into the compute nodes). ");
	if (r->ncmp <= 0) {
		put(r, "There is no comparison table in these results "
		       "(<code>statistics/statistics_table.csv</code> is missing "
		       "or empty): no data to summarise.</p>\n");
		return;
	}
	for (i = 0; i < r->ncmp; i++) {
		double size = r->cmp[i * CMP_N + CMP_SIZE];
		/* a cast of NaN or a huge value to an integer is undefined */
		const struct size_stats *s = isfinite(size) && size > 0 &&
			size < 1e9 ? find_size(r, (int64_t)size) : NULL;
		double a = points(s, 0), b = points(s, 2);

		if (a >= 0 && b >= 0) {
			nst += a;
			nft += b;
			counted = true;
		}
		if (!(r->cmp[i * CMP_N + CMP_ENH] > 1))
			all_faster = false;
	}
	if (counted) {
		put(r, "It covers ");
		num(r, nst, 0);
		put(r, " streamed scans and ");
		num(r, nft, 0);
		fprintf(r->f, " file-transfer jobs at %ld scan size%s. ", r->ncmp,
			r->ncmp == 1 ? "" : "s");
	} else {
		fprintf(r->f, "It covers %ld scan size%s. ", r->ncmp,
			r->ncmp == 1 ? "" : "s");
	}
	put(r, all_faster ? "<span class=\"big\">Streaming was faster at every "
			    "size:</span> "
			  : "Streaming against file transfer, per size: ");
	for (i = 0; i < r->ncmp; i++) {
		const double *c = &r->cmp[i * CMP_N];

		if (i)
			put(r, i == r->ncmp - 1 ? " and " : ", ");
		put(r, "<b>");
		num(r, c[CMP_ENH], 1);
		put(r, "\xc3\x97</b> at ");
		size_label(r, (int64_t)c[CMP_SIZE]);
		put(r, " (");
		num(r, c[CMP_STM], 1);
		put(r, " s instead of ");
		num(r, c[CMP_FTM], 1);
		put(r, " s)");
	}
	put(r, ", comparing mean times with outliers removed.");
	if (r->nqueue > 0) {
		for (i = 0; i < r->nqueue; i++)
			if (!strcmp(st_table_get(&r->queue_t, (size_t)i,
						 r->queue_label), "with_outliers"))
				break;
		if (i < r->nqueue) {
			const double *q = &r->queue[i * SZ_NCOLS];
			char d[64];

			put(r, " Before a file transfer can start, its Slurm job "
			       "waits in the queue: ");
			num(r, q[SZ_MEDIAN], 1);
			put(r, " s for the median job, but ");
			num(r, q[SZ_MEAN], 1);
			fprintf(r->f, " s on average: a few very long waits "
				"pull the mean up (the longest: %s).",
				st_report_format_duration(q[SZ_MAX], d,
							  sizeof(d)));
		}
	}
	put(r, "</p>\n");
}

/* The sizes the run left out (sizes_left_out.csv), as a list. */
static void write_left_out(struct rep *r)
{
	const st_table *t = &r->left_t;
	int c[5] = { st_table_col(t, "size"), st_table_col(t, "part"),
		     st_table_col(t, "first"), st_table_col(t, "last"),
		     st_table_col(t, "file") };

	if (!r->has_left)
		return;
	put(r, "<ul class=\"warn\" id=\"sizes-left-out\">\n");
	for (size_t i = 0; i < t->nrows; i++) {
		put(r, "<li><b>Left out:</b> size ");
		esc(r, st_table_get(t, i, c[0]));
		put(r, ": its ");
		esc(r, st_table_get(t, i, c[1]));
		put(r, " range ");
		esc(r, st_table_get(t, i, c[2]));
		put(r, "\xe2\x80\x93");
		esc(r, st_table_get(t, i, c[3]));
		put(r, " selects no scan of <code>");
		esc(r, st_table_get(t, i, c[4]));
		put(r, "</code>, so nothing below is about it.</li>\n");
	}
	put(r, "</ul>\n");
}

/* The headline: per size, how many times faster streaming was by the
 * ratio of the medians, with its 95 % interval, next to the paper's ratio
 * of means; the method under the table. */
static void write_headline(struct rep *r)
{
	put(r, "<h2 id=\"headline\">Headline: how much faster streaming is"
	       "</h2>\n");
	write_left_out(r);
	if (r->nratio <= 0) {
		no_data(r, "<code>statistics/median_ratio.csv</code> is missing "
			   "or has no rows.");
		return;
	}
	put(r, "<div class=\"wrap\"><table id=\"headline-table\">\n"
	       "<thead><tr><th>Scan size</th>"
	       "<th class=\"ft\">File transfer, median (s)</th>"
	       "<th class=\"st\">Streaming, median (s)</th>"
	       "<th>Ratio of medians</th><th>95 % interval</th>"
	       "<th>Paper's ratio of means</th></tr></thead>\n<tbody>\n");
	for (long i = 0; i < r->nratio; i++) {
		const double *v = &r->ratio[i * MR_NCOLS];

		put(r, "<tr><td>");
		if (isfinite(v[MR_SIZE]) && v[MR_SIZE] > 0 && v[MR_SIZE] < 1e9)
			size_label(r, (int64_t)v[MR_SIZE]);
		put(r, "</td><td>");
		num(r, v[MR_FT], 1);
		put(r, "</td><td>");
		num(r, v[MR_ST], 1);
		put(r, "</td><td class=\"big\">");
		num(r, v[MR_RATIO], 1);
		put(r, "\xc3\x97</td><td>");
		if (isnan(v[MR_LO]) || isnan(v[MR_HI])) {
			put(r, "too few values");
		} else {
			num(r, v[MR_LO], 1);
			put(r, "\xc3\x97 \xe2\x80\x93 ");
			num(r, v[MR_HI], 1);
			put(r, "\xc3\x97");
		}
		put(r, "</td><td>");
		num(r, v[MR_MEAN], 1);
		put(r, "\xc3\x97</td></tr>\n");
	}
	put(r, "</tbody></table></div>\n"
	       "<p class=\"method\" id=\"headline-method\">Method: the "
	       "ratio is the median file-transfer time over the median "
	       "streaming time, each median of all values (no outlier rule). "
	       "Each median gets a distribution-free interval from order "
	       "statistics at 97.5 % ([X<sub>(k)</sub>, "
	       "X<sub>(n+1\xe2\x88\x92k)</sub>] of the sorted values, as in "
	       "the medians table below); both hold at once with probability "
	       "at least 95 % (Bonferroni), and when they do, the true ratio "
	       "lies in [file-transfer low / streaming high, file-transfer "
	       "high / streaming low]. A group of fewer than 7 values has no "
	       "97.5 % interval. The paper's ratio of means (the enhancement "
	       "of the comparison table) is given beside it; the medians table "
	       "says where the outlier rule behind those means misleads.</p>\n");
}

static void write_comparison(struct rep *r)
{
	put(r, "<h2 id=\"comparison\">File transfer vs streaming</h2>\n");
	if (r->ncmp <= 0) {
		no_data(r, "<code>statistics/statistics_table.csv</code> is "
			   "missing or has no rows.");
		return;
	}
	put(r, "<div class=\"wrap\"><table id=\"comparison-table\">\n"
	       "<caption>Mean \xc2\xb1 standard deviation in seconds, outliers "
	       "removed (1.5 IQR rule). Enhancement = file-transfer mean / "
	       "streaming mean.</caption>\n"
	       "<thead><tr><th>Scan size</th><th>Data (GB)</th>"
	       "<th class=\"ft\">File transfer (s)</th>"
	       "<th class=\"st\">Streaming (s)</th><th>Enhancement</th></tr>"
	       "</thead>\n<tbody>\n");
	for (long i = 0; i < r->ncmp; i++) {
		const double *c = &r->cmp[i * CMP_N];

		put(r, "<tr><td>");
		size_label(r, (int64_t)c[CMP_SIZE]);
		put(r, "</td><td>");
		num(r, c[CMP_GB], 1);
		put(r, "</td><td>");
		mean_std(r, c[CMP_FTM], c[CMP_FTS]);
		put(r, "</td><td>");
		mean_std(r, c[CMP_STM], c[CMP_STS]);
		put(r, "</td><td class=\"big\">");
		num(r, c[CMP_ENH], 1);
		put(r, "\xc3\x97</td></tr>\n");
	}
	put(r, "</tbody></table></div>\n");
}

/* "128×128 streaming", "queue time": the group of row I of M. */
static void median_group(struct rep *r, const struct medians *m, long i)
{
	const char *g = st_table_get(&m->t, (size_t)i, m->label);
	double size = m->v[i * MD_NCOLS + MD_SIZE];

	if (isfinite(size) && size > 0 && size < 1e9) {
		size_label(r, (int64_t)size);
		put(r, " ");
	}
	if (!strcmp(g, "streaming"))
		put(r, "<span class=\"st\">streaming</span>");
	else if (!strcmp(g, "file_transfer"))
		put(r, "<span class=\"ft\">file transfer</span>");
	else if (!strcmp(g, "queue"))
		put(r, "Slurm queue time");
	else
		esc(r, g);
}

/* Does the IQR rule mislead on row V (st_robust_misleads)? */
static bool rule_misleads(const double *v)
{
	return v[MD_N] > 0 && (v[MD_IQR] == 0 || v[MD_DROPPED] * 10 > v[MD_N]);
}

/* Each group's median with its 95 % interval and the resolution of its
 * inputs, after a warning for every group the IQR rule misleads on. */
static void write_medians(struct rep *r)
{
	bool any = false;

	put(r, "<h2 id=\"medians\">Medians with 95 % intervals</h2>\n");
	if (r->med[0].nrows <= 0 && r->med[1].nrows <= 0) {
		no_data(r, "<code>statistics/medians.csv</code> and "
			   "<code>statistics/queue_time_median.csv</code> are "
			   "missing or have no rows.");
		return;
	}
	for (int k = 0; k < 2; k++)
		for (long i = 0; i < r->med[k].nrows; i++) {
			const double *v = &r->med[k].v[i * MD_NCOLS];

			if (!rule_misleads(v))
				continue;
			if (!any)
				put(r, "<ul class=\"warn\" id=\"outlier-warnings\">\n");
			any = true;
			put(r, "<li><b>Warning:</b> ");
			median_group(r, &r->med[k], i);
			put(r, ": the outlier rule drops ");
			num(r, v[MD_DROPPED], 0);
			put(r, " of ");
			num(r, v[MD_N], 0);
			put(r, " values (");
			num(r, 100.0 * v[MD_SHARE], 1);
			put(r, v[MD_IQR] == 0 ? " %; the IQR is 0" : " %");
			put(r, "), so the mean \xc2\xb1 standard deviation without "
			       "outliers understates the spread. The median and its "
			       "interval below do not depend on that rule.</li>\n");
		}
	if (any)
		put(r, "</ul>\n");
	put(r, "<div class=\"wrap\"><table id=\"medians-table\">\n"
	       "<caption>Median of all values (no outlier removal) with a "
	       "distribution-free 95 % interval from order statistics: "
	       "[X<sub>(k)</sub>, X<sub>(n+1\xe2\x88\x92k)</sub>] of the sorted "
	       "values, whose exact coverage (binomial, p = \xc2\xbd) is given; "
	       "fewer than 6 values give no 95 % interval. Step: the "
	       "resolution of the input times (sacct and file times are whole "
	       "seconds), so an interval narrower than it says only that the "
	       "values tie. Clock bound: the largest clock-offset bound of "
	       "the corrected times (\xe2\x80\x94: the clocks were not "
	       "measured). IQR rule drops: the outliers the paper's rule "
	       "leaves out of the mean above.</caption>\n"
	       "<thead><tr><th>Group</th><th>n</th><th>Median (s)</th>"
	       "<th>95 % interval (s)</th><th>Coverage</th>"
	       "<th>Step (s)</th><th>Clock bound (s)</th>"
	       "<th>IQR rule drops</th></tr></thead>\n<tbody>\n");
	for (int k = 0; k < 2; k++)
		for (long i = 0; i < r->med[k].nrows; i++) {
			const double *v = &r->med[k].v[i * MD_NCOLS];

			put(r, rule_misleads(v) ? "<tr class=\"misleads\"><td>"
						: "<tr><td>");
			median_group(r, &r->med[k], i);
			put(r, "</td><td>");
			num(r, v[MD_N], 0);
			put(r, "</td><td>");
			num(r, v[MD_MEDIAN], 1);
			put(r, "</td><td>");
			if (isnan(v[MD_LO])) {
				put(r, "too few values");
			} else {
				num(r, v[MD_LO], 1);
				put(r, " \xe2\x80\x93 ");
				num(r, v[MD_HI], 1);
			}
			put(r, "</td><td>");
			if (isnan(v[MD_LEVEL])) {
				put(r, "n/a");
			} else {
				num(r, 100.0 * v[MD_LEVEL], 1);
				put(r, " %");
			}
			put(r, "</td><td>");
			if (isnan(v[MD_RES]))
				put(r, "unknown");
			else
				num(r, v[MD_RES], v[MD_RES] >= 1 ? 0 : 6);
			put(r, "</td><td>");
			if (isnan(v[MD_CLOCK]))
				put(r, "\xe2\x80\x94");
			else
				num(r, v[MD_CLOCK], 3);
			put(r, "</td><td>");
			num(r, v[MD_DROPPED], 0);
			put(r, " (");
			num(r, 100.0 * v[MD_SHARE], 1);
			put(r, " %)</td></tr>\n");
		}
	put(r, "</tbody></table></div>\n");
}

/* A statistics table: rows of SZ_NCOLS values with a label each. */
static void stats_table(struct rep *r, const char *id, const char *first,
			const st_table *t, int label_col, const double *v,
			long nrows, bool nice_labels)
{
	static const char *const heads[SZ_NCOLS] = {
		"n", "Mean", "Median", "Std", "Min", "Max", "Q1", "Q3",
	};
	static const char *const kinds[4] = {
		"<span class=\"st\">Streaming</span>, with outliers",
		"<span class=\"st\">Streaming</span>, without outliers",
		"<span class=\"ft\">File transfer</span>, with outliers",
		"<span class=\"ft\">File transfer</span>, without outliers",
	};

	fprintf(r->f, "<div class=\"wrap\"><table id=\"%s\">\n<thead><tr><th>",
		id);
	put(r, first);
	put(r, "</th>");
	for (size_t c = 0; c < SZ_NCOLS; c++) {
		put(r, "<th>");
		put(r, heads[c]);
		put(r, c ? " (s)</th>" : "</th>");
	}
	put(r, "</tr></thead>\n<tbody>\n");
	for (long i = 0; i < nrows; i++) {
		const char *label = label_col >= 0
			? st_table_get(t, (size_t)i, label_col) : "";
		int kind = nice_labels ? row_kind(label) : -1;

		put(r, "<tr><td>");
		if (kind >= 0)
			put(r, kinds[kind]);
		else if (!strcmp(label, "with_outliers"))
			put(r, "With outliers");
		else if (!strcmp(label, "without_outliers"))
			put(r, "Without outliers");
		else
			esc(r, label);
		put(r, "</td>");
		for (size_t c = 0; c < SZ_NCOLS; c++) {
			put(r, "<td>");
			num(r, v[i * SZ_NCOLS + c], c == SZ_N ? 0 : 2);
			put(r, "</td>");
		}
		put(r, "</tr>\n");
	}
	put(r, "</tbody></table></div>\n");
}

static void write_sizes(struct rep *r)
{
	put(r, "<h2 id=\"per-size\">Statistics per scan size</h2>\n");
	if (!r->nsizes) {
		no_data(r, "no <code>statistics/statistics_transfers_"
			   "{size}.csv</code> files.");
		return;
	}
	put(r, "<p>Times in seconds. Outliers are values beyond 1.5 IQR from "
	       "the quartiles; the comparison above uses the rows without "
	       "them.</p>\n");
	for (size_t i = 0; i < r->nsizes; i++) {
		const struct size_stats *s = &r->sizes[i];
		char id[64];

		fprintf(r->f, "<h3 id=\"size-%" PRId64 "\">", s->size);
		size_label(r, s->size);
		put(r, " scans</h3>\n");
		if (s->nrows <= 0) {
			fprintf(r->f, "<p class=\"nodata\">No data: <code>"
				"statistics/statistics_transfers_%" PRId64
				".csv</code> is missing or has no rows.</p>\n",
				s->size);
			continue;
		}
		snprintf(id, sizeof(id), "stats-%" PRId64, s->size);
		stats_table(r, id, "Path", &s->t, s->label, s->v, s->nrows,
			    true);
	}
}

static void write_queue(struct rep *r)
{
	put(r, "<h2 id=\"queue\">Slurm queue time</h2>\n"
	       "<p>Queue time = Start \xe2\x88\x92 Submit of each Slurm count "
	       "job of the file-transfer path.</p>\n");
	if (r->nqueue <= 0)
		no_data(r, "<code>statistics/queue_time_statistics.csv</code> "
			   "is missing or has no rows.");
	else
		stats_table(r, "queue-stats", "Jobs", &r->queue_t,
			    r->queue_label, r->queue, r->nqueue, false);

	put(r, "<h3 id=\"worst-days\">The worst days</h3>\n");
	if (r->ndays <= 0) {
		no_data(r, "<code>statistics/ranked_days.csv</code> is missing "
			   "or has no rows.");
		return;
	}
	fprintf(r->f, "<div class=\"wrap\"><table id=\"worst-days-table\">\n"
		"<caption>Mean queue time per submit date, the %d worst of "
		"%ld days.</caption>\n"
		"<thead><tr><th>Rank</th><th class=\"l\">Submit date</th>"
		"<th>Mean queue time (s)</th><th>That is</th></tr></thead>\n"
		"<tbody>\n",
		r->ndays < WORST_DAYS ? (int)r->ndays : WORST_DAYS, r->ndays);
	for (long i = 0; i < r->ndays && i < WORST_DAYS; i++) {
		char d[64];

		fprintf(r->f, "<tr><td>%ld</td><td class=\"l\">", i + 1);
		esc(r, st_table_get(&r->days_t, (size_t)i, r->days_label));
		put(r, "</td><td>");
		num(r, r->days[i], 1);
		put(r, "</td><td>");
		put(r, st_report_format_duration(r->days[i], d, sizeof(d)));
		put(r, "</td></tr>\n");
	}
	put(r, "</tbody></table></div>\n");
}

/* Base64 of LEN bytes of BUF to F, in lines of 76 (HTML ignores the
 * newlines inside a data: URI attribute). */
static void write_base64(FILE *f, const unsigned char *buf, size_t len)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char out[4096];
	size_t o = 0;

	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)buf[i] << 16;

		if (i + 1 < len)
			v |= (unsigned)buf[i + 1] << 8;
		if (i + 2 < len)
			v |= buf[i + 2];
		out[o++] = tab[(v >> 18) & 63];
		out[o++] = tab[(v >> 12) & 63];
		out[o++] = i + 1 < len ? tab[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < len ? tab[v & 63] : '=';
		if (o > sizeof(out) - 8) {
			fwrite(out, 1, o, f);
			o = 0;
		}
	}
	fwrite(out, 1, o, f);
}

/* Embed figure FIG from DIR (its SVG, else its PNG).  Returns 1 embedded,
 * 0 when neither file is usable (it is linked only), -1 on error. */
static int embed_figure(struct rep *r, const struct figure *fig,
			const char *caption)
{
	static const char png_sig[8] = "\x89PNG\r\n\x1a\n";

	for (int pass = 0; pass < 2; pass++) {
		bool svg = pass == 0;
		char name[300], *path;
		size_t len;
		char *buf;
		struct stat st;
		st_error ignore;

		if (svg ? !fig->svg : !fig->png)
			continue;
		snprintf(name, sizeof(name), "figures/%s.%s", fig->stem,
			 svg ? "svg" : "png");
		path = st_path_join(r->root, name);
		if (!path)
			return st_error_set(r->err, ST_EXIT_IOERR, "out of memory");
		if (stat(path, &st) < 0 || st.st_size > (off_t)MAX_EMBED) {
			free(path);
			continue;
		}
		buf = st_file_read(path, &len, &ignore);
		free(path);
		if (!buf)
			continue;
		if (svg ? !st_report_svg_root(buf, len)
			: len < 8 || memcmp(buf, png_sig, 8)) {
			free(buf);
			continue;
		}
		fprintf(r->f, "<img src=\"data:image/%s;base64,",
			svg ? "svg+xml" : "png");
		write_base64(r->f, (const unsigned char *)buf, len);
		put(r, "\" alt=\"");
		esc(r, caption);
		put(r, "\">\n");
		free(buf);
		return 1;
	}
	return 0;
}

static int write_figures(struct rep *r, st_report_info *info)
{
	size_t shown = 0;

	put(r, "<h2 id=\"figures\">Figures</h2>\n");
	if (!r->nfigs && !st_feature_built(ST_FEATURE_FIGURES)) {
		no_data(r, "the figures were not made: this streamtime was "
			   "built without figures (<code>meson "
			   "-Dfigures=enabled</code>).");
		return 0;
	}
	if (!r->nfigs) {
		no_data(r, "the figures were not made (no SVG or PNG files in "
			   "<code>figures/</code>). <code>streamtime plot</code> "
			   "or <code>streamtime reproduce</code> makes them.");
		return 0;
	}
	for (size_t i = 0; i < r->nfigs; i++) {
		const struct figure *fig = &r->figs[i];
		char caption[512];
		int rc;

		if (fig->rank < (int)NKNOWN && known_figs[fig->rank].caption)
			snprintf(caption, sizeof(caption), "%s",
				 known_figs[fig->rank].caption);
		else if (fig->rank < (int)NKNOWN)
			snprintf(caption, sizeof(caption), "File-transfer (red) "
				 "and streaming (blue) times of %" PRId64
				 "\xc3\x97%" PRId64 " scans; the inset enlarges "
				 "the streaming times.", fig->sub, fig->sub);
		else
			snprintf(caption, sizeof(caption), "%s", fig->stem);
		put(r, "<figure id=\"fig-");
		st_report_write_url(r->f, fig->stem);
		put(r, "\">\n");
		rc = embed_figure(r, fig, caption);
		if (rc < 0)
			return -1;
		shown += rc;
		fprintf(r->f, "<figcaption>Figure %zu. ", i + 1);
		esc(r, caption);
		if (!rc)
			put(r, " <em>(could not be embedded: not a valid SVG "
			       "or PNG)</em>");
		put(r, " <span class=\"files\">(");
		if (fig->svg) {
			char sub[300];

			snprintf(sub, sizeof(sub), "figures/%s.svg", fig->stem);
			put(r, "<a ");
			href(r, sub);
			put(r, ">SVG</a>");
		}
		if (fig->png) {
			char sub[300];

			snprintf(sub, sizeof(sub), "figures/%s.png", fig->stem);
			put(r, fig->svg ? " \xc2\xb7 <a " : "<a ");
			href(r, sub);
			put(r, ">PNG</a>");
		}
		put(r, ")</span></figcaption>\n</figure>\n");
	}
	if (info)
		info->figures = shown;
	return 0;
}

/* What a known CSV holds, or NULL. */
static const char *csv_about(const char *path, char *buf, size_t size)
{
	static const struct { const char *name, *about; } known[] = {
		{ "merged_job_info.csv", "Slurm count jobs joined with "
		  "Distiller's jobs, one row per job" },
		{ "ncem_offload_times.csv", "mean offload time per size" },
		{ "ncem_offload_per_scan.csv", "offload time of each scan" },
		{ "statistics_table.csv", "the comparison table" },
		{ "queue_time_statistics.csv", "queue-time statistics" },
		{ "ranked_days.csv", "mean queue time per submit date, worst "
		  "first" },
		{ "ranked_days_by_month.csv", "mean queue time per day, by "
		  "month" },
		{ "medians.csv", "median and 95 % interval of each size's "
		  "streaming and file-transfer times" },
		{ "queue_time_median.csv", "median and 95 % interval of the "
		  "queue time" },
	};
	const char *base = strrchr(path, '/');
	int64_t s;

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(base, known[i].name))
			return known[i].about;
	if ((s = size_of_name(base, "streaming_times_", ".csv")) > 0) {
		snprintf(buf, size, "streaming time of each %" PRId64 "\xc3\x97%"
			 PRId64 " scan", s, s);
		return buf;
	}
	if ((s = size_of_name(base, "statistics_transfers_", ".csv")) > 0) {
		snprintf(buf, size, "statistics of the %" PRId64 "\xc3\x97%"
			 PRId64 " scans", s, s);
		return buf;
	}
	return NULL;
}

static void write_files(struct rep *r)
{
	put(r, "<h2 id=\"files\">Data files and timeline</h2>\n");
	put(r, "<h3>Timeline</h3>\n");
	if (r->timeline) {
		put(r, "<p><a ");
		href(r, "timeline.json");
		put(r, "><code>timeline.json</code></a>: every scan's journey "
		       "as a Chrome trace (one row of slices per scan and "
		       "stage).</p>\n");
	} else {
		no_data(r, "there is no <code>timeline.json</code> in these "
			   "results. <code>streamtime timeline</code> or "
			   "<code>streamtime reproduce</code> makes it.");
	}
	/* text only: the page links to nothing outside the results */
	put(r, "<p class=\"note\">To look at the timeline, open "
	       "<code>ui.perfetto.dev</code> in a browser, choose "
	       "<i>Open trace file</i> and pick <code>timeline.json</code> "
	       "(the trace stays on your machine: Perfetto UI reads it in the "
	       "browser). In Chrome or Chromium, <code>chrome://tracing</code> "
	       "and <i>Load</i> works too, offline.</p>\n");
	put(r, "<h3>CSV files</h3>\n");
	if (r->has_man)
		put(r, "<p id=\"files-from\">The files this run wrote (<code>"
		       ST_MANIFEST "</code>).</p>\n");
	else
		put(r, "<p class=\"note\" id=\"files-from\">There is no <code>"
		       ST_MANIFEST "</code> in these results (it is written by "
		       "<code>streamtime reproduce</code>), so this lists every "
		       "CSV file found below the directory: some may be left "
		       "from other runs.</p>\n");
	if (!r->ncsvs) {
		no_data(r, "no CSV files in these results.");
		return;
	}
	put(r, "<ul class=\"files\">\n");
	for (size_t i = 0; i < r->ncsvs; i++) {
		char buf[128];
		const char *about = csv_about(r->csvs[i], buf, sizeof(buf));

		put(r, "<li><a class=\"csv\" ");
		href(r, r->csvs[i]);
		put(r, "><code>");
		esc(r, r->csvs[i]);
		put(r, "</code></a>");
		if (about) {
			put(r, " \xe2\x80\x94 ");
			esc(r, about);
		}
		put(r, "</li>\n");
	}
	put(r, "</ul>\n");
}

static const char formulas[] =
	"<h2 id=\"method\">How these numbers were computed</h2>\n"
	"<dl class=\"formulas\">\n"
	"<dt>Queue time</dt><dd>Start \xe2\x88\x92 Submit of each Slurm count "
	"job (from <code>sacct</code>), in seconds. The worst days rank the "
	"mean queue time per submit date.</dd>\n"
	"<dt>File transfer time</dt><dd>Elapsed time of the Slurm count job + "
	"the mean offload time of its scan size \xe2\x88\x92 2 \xc3\x97 "
	"(mean save time of the Real scans \xe2\x88\x92 mean save time of the "
	"Blank scans, for that size). The offload time of a scan is its last "
	"data-file write \xe2\x88\x92 the earliest receiver status time.</dd>\n"
	"<dt>Streaming time</dt><dd>|write time of the counted HDF5 "
	"file \xe2\x88\x92 the earliest receiver status time of the scan| "
	"(<code>time_difference_seconds</code>), with the compute site's local "
	"times read in their real time zone.</dd>\n"
	"<dt>Outliers</dt><dd>Values below Q1 \xe2\x88\x92 1.5\xc2\xb7IQR or "
	"above Q3 + 1.5\xc2\xb7IQR, where IQR = Q3 \xe2\x88\x92 Q1 is computed "
	"before removal.</dd>\n"
	"<dt>Median interval</dt><dd>[X<sub>(k)</sub>, "
	"X<sub>(n+1\xe2\x88\x92k)</sub>] of the n sorted values, k the "
	"largest rank with 1 \xe2\x88\x92 2\xc2\xb7P(B \xe2\x89\xa4 "
	"k \xe2\x88\x92 1) \xe2\x89\xa5 95 %, B binomial (n, \xc2\xbd): "
	"it holds the true median with that probability whatever the "
	"distribution of the values (order statistics, no bootstrap).</dd>\n"
	"<dt>Standard deviation</dt><dd>The sample standard deviation, "
	"dividing by n \xe2\x88\x92 1.</dd>\n"
	"<dt>Quantiles</dt><dd>Linear interpolation at position "
	"(n \xe2\x88\x92 1)\xc2\xb7p of the sorted values (Q1: p = 0.25, "
	"median: p = 0.5, Q3: p = 0.75).</dd>\n"
	"<dt>Data size</dt><dd>data_gb = size\xc2\xb2 \xc2\xb7 576\xc2\xb2 "
	"\xc2\xb7 2 \xc2\xb7 10<sup>\xe2\x88\x92" "9</sup>: size\xc2\xb2 probe "
	"positions, a 576\xc3\x97" "576 frame each, 2 bytes a pixel.</dd>\n"
	"<dt>Enhancement</dt><dd>Mean file transfer time / mean streaming "
	"time, both without outliers.</dd>\n"
	"</dl>\n";

/* A cell of the trace sets' table, or an em dash when empty; NUM: a
 * number with DECIMALS digits. */
static void set_cell(struct rep *r, const char *v, bool num_, int decimals)
{
	double d;

	put(r, "<td>");
	if (!*v)
		put(r, "\xe2\x80\x94");
	else if (num_ && st_num_parse_double(v, &d) == 0)
		num(r, d, decimals);
	else
		esc(r, v);
	put(r, "</td>");
}

/* A section per trace set of the session (traces/trace_sets.csv): the
 * set, its processes, its system traces and their phases. */
static void write_trace_sets(struct rep *r)
{
	const st_table *t = &r->sets_t;
	int c[11];
	static const char *const cols[11] = {
		"set", "label", "role", "scope", "key", "events", "io_s",
		"bytes", "align_bound_s", "cpu_busy_pct", "gpu_sm_pct" };
	const char *cur = NULL;

	if (!r->has_sets)
		return;
	for (int i = 0; i < 11; i++)
		c[i] = st_table_col(t, cols[i]);
	put(r, "<h2 id=\"traces\">Traces beside the scans</h2>\n"
	       "<p>The session's trace sets, on the same clock as the scans "
	       "(their events are in the timeline too). I/O time is the union "
	       "of the I/O calls' intervals per process, added up; a system "
	       "trace's alignment bound is how far its times may be from UTC; "
	       "CPU busy is 100 % \xe2\x88\x92 mpstat's idle, GPU SM the "
	       "streaming multiprocessors' use, each a mean over the samples."
	       "</p>\n");
	for (size_t i = 0; i < t->nrows; i++) {
		const char *set = st_table_get(t, i, c[0]);

		if (!cur || strcmp(cur, set)) {
			if (cur)
				put(r, "</tbody></table></div>\n");
			cur = set;
			put(r, "<h3 class=\"trace-set\">");
			esc(r, st_table_get(t, i, c[1]));
			put(r, " <small>(");
			esc(r, st_table_get(t, i, c[2]));
			put(r, ")</small></h3>\n<div class=\"wrap\"><table "
			       "class=\"trace-set\">\n<thead><tr><th>Part</th>"
			       "<th>Events</th><th>I/O time (s)</th><th>Bytes"
			       "</th><th>Alignment bound (s)</th><th>CPU busy "
			       "(%)</th><th>GPU SM (%)</th></tr></thead>\n"
			       "<tbody>\n");
		}
		put(r, "<tr><td>");
		esc(r, st_table_get(t, i, c[3]));
		if (*st_table_get(t, i, c[4])) {
			put(r, " <code>");
			esc(r, st_table_get(t, i, c[4]));
			put(r, "</code>");
		}
		put(r, "</td>");
		set_cell(r, st_table_get(t, i, c[5]), true, 0);
		set_cell(r, st_table_get(t, i, c[6]), true, 3);
		set_cell(r, st_table_get(t, i, c[7]), true, 0);
		set_cell(r, st_table_get(t, i, c[8]), false, 0);
		set_cell(r, st_table_get(t, i, c[9]), true, 1);
		set_cell(r, st_table_get(t, i, c[10]), true, 1);
		put(r, "</tr>\n");
	}
	put(r, "</tbody></table></div>\n");
}

/* The string member KEY of object O, or "" (never NULL). */
static const char *jstr(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

/* What the run read and how it ran (provenance.json): the command, the
 * version, the host and time, then every input with its SHA-256. */
static void write_provenance(struct rep *r)
{
	json_t *p = r->prov, *in, *cmd, *v;
	size_t i;

	put(r, "<h2 id=\"provenance\">Provenance</h2>\n");
	if (!p) {
		no_data(r, "<code>provenance.json</code> is missing: these "
			   "results do not say what they were made from.");
		return;
	}
	put(r, "<dl class=\"provenance\">\n<dt>Command</dt><dd><code>");
	cmd = json_object_get(p, "command");
	json_array_foreach(cmd, i, v) {
		if (i)
			put(r, " ");
		esc(r, json_string_value(v));
	}
	put(r, "</code> in <code>");
	esc(r, jstr(p, "working_directory"));
	put(r, "</code></dd>\n<dt>Session</dt><dd>");
	v = json_object_get(p, "session");
	if (json_string_value(json_object_get(v, "file"))) {
		put(r, "<code>");
		esc(r, jstr(v, "file"));
		put(r, "</code>");
	} else {
		put(r, "the paper's experiments (built in)");
	}
	if (json_is_true(json_object_get(v, "synthetic")))
		put(r, ", synthetic data");
	put(r, "</dd>\n<dt>streamtime</dt><dd>");
	v = json_object_get(p, "streamtime");
	esc(r, jstr(v, "version"));
	json_array_foreach(json_object_get(v, "features"), i, cmd) {
		put(r, " ");
		esc(r, json_string_value(cmd));
	}
	put(r, "</dd>\n<dt>Host and time</dt><dd>");
	esc(r, jstr(p, "host"));
	put(r, ", ");
	esc(r, jstr(p, "time"));
	put(r, "</dd>\n</dl>\n");
	in = json_object_get(p, "inputs");
	put(r, "<div class=\"wrap\"><table id=\"provenance-table\">\n"
	       "<caption>Every file the run read, with its size and SHA-256 "
	       "(<code>provenance.json</code>).</caption>\n<thead><tr>"
	       "<th>Input</th><th>Path</th><th>Bytes</th><th>SHA-256</th>"
	       "</tr></thead>\n<tbody>\n");
	json_array_foreach(in, i, v) {
		put(r, "<tr><td>");
		esc(r, jstr(v, "key"));
		put(r, "</td><td><code>");
		esc(r, jstr(v, "path"));
		put(r, "</code></td><td>");
		num(r, (double)json_integer_value(json_object_get(v, "size")), 0);
		put(r, "</td><td><code>");
		esc(r, jstr(v, "sha256"));
		put(r, "</code></td></tr>\n");
	}
	put(r, "</tbody></table></div>\n");
}

static int write_body(struct rep *r, st_report_info *info)
{
	put(r, "<header>\n<h1>");
	title(r);
	put(r, "</h1>\n");
	if (r->synthetic)
		put(r, "<p class=\"synthetic\" id=\"synthetic\"><b>Synthetic "
		       "data.</b> These inputs were made by a simulator "
		       "(<code>streamtime simulate</code>), not measured: the "
		       "numbers below show what the analysis does, not what any "
		       "instrument did.</p>\n");
	put(r, "<p class=\"meta\">Results in <code>");
	esc(r, r->shown);
	put(r, "</code> \xc2\xb7 made by streamtime " ST_VERSION "</p>\n"
	       "<nav><ul><li><a href=\"#headline\">Headline</a></li>"
	       "<li><a href=\"#summary\">Summary</a></li>"
	       "<li><a href=\"#comparison\">Comparison</a></li>"
	       "<li><a href=\"#medians\">Medians</a></li>"
	       "<li><a href=\"#per-size\">Per size</a></li>"
	       "<li><a href=\"#queue\">Queue time</a></li>"
	       "<li><a href=\"#figures\">Figures</a></li>"
	       "<li><a href=\"#files\">Data files and timeline</a></li>"
	       "<li><a href=\"#method\">How computed</a></li>"
	       "<li><a href=\"#provenance\">Provenance</a></li></ul></nav>\n"
	       "</header>\n<main>\n");
	write_headline(r);
	write_summary(r);
	write_comparison(r);
	write_medians(r);
	write_sizes(r);
	write_queue(r);
	write_trace_sets(r);
	if (write_figures(r, info) < 0)
		return -1;
	write_files(r);
	put(r, formulas);
	write_provenance(r);
	put(r, "</main>\n</body>\n</html>\n");
	return 0;
}

/* ROOT/provenance.json when the run wrote it: the names, whether the
 * data are synthetic, and what it read.  A file that does not parse is an
 * error (65), never a silent default. */
static int load_provenance(struct rep *r)
{
	char *path = st_path_join(r->root, ST_PROVENANCE);
	json_error_t jerr;
	json_t *s, *n;

	r->instrument = "4D Camera";
	r->acq = "NCEM";
	r->compute = "NERSC";
	if (!path)
		return st_error_set(r->err, ST_EXIT_IOERR, "out of memory");
	if (!st_path_is_file(path) || !listed(r, ST_PROVENANCE)) {
		free(path);
		return 0;
	}
	r->prov = json_load_file(path, 0, &jerr);
	if (!r->prov || !json_is_object(r->prov)) {
		st_error_set(r->err, ST_EXIT_DATAERR, "%s:%d: %s", path,
			     jerr.line, r->prov ? "not a JSON object" :
			     jerr.text);
		free(path);
		return -1;
	}
	free(path);
	s = json_object_get(r->prov, "session");
	n = json_object_get(s, "names");
	if (*jstr(n, "instrument"))
		r->instrument = jstr(n, "instrument");
	if (*jstr(n, "acquisition_site"))
		r->acq = jstr(n, "acquisition_site");
	if (*jstr(n, "compute_site"))
		r->compute = jstr(n, "compute_site");
	r->synthetic = json_is_true(json_object_get(s, "synthetic"));
	return 0;
}

static void rep_release(struct rep *r)
{
	json_decref(r->prov);
	free(r->root);
	free(r->rel);
	st_table_release(&r->cmp_t);
	free(r->cmp);
	for (size_t i = 0; i < r->nsizes; i++) {
		st_table_release(&r->sizes[i].t);
		free(r->sizes[i].v);
	}
	free(r->sizes);
	st_table_release(&r->queue_t);
	free(r->queue);
	st_table_release(&r->days_t);
	free(r->days);
	for (int i = 0; i < 2; i++) {
		st_table_release(&r->med[i].t);
		free(r->med[i].v);
	}
	st_table_release(&r->ratio_t);
	st_table_release(&r->left_t);
	st_table_release(&r->sets_t);
	free(r->ratio);
	for (size_t i = 0; i < r->nfigs; i++)
		free(r->figs[i].stem);
	free(r->figs);
	for (size_t i = 0; i < r->ncsvs; i++)
		free(r->csvs[i]);
	free(r->csvs);
	for (size_t i = 0; i < r->nman; i++)
		free(r->man[i]);
	free(r->man);
}

/* The real path of directory PATH (new), or NULL with ERR (66). */
static char *real_dir(const char *path, const char *what, st_error *err)
{
	struct stat st;
	char *real;

	if (stat(path, &st) < 0) {
		st_error_set(err, ST_EXIT_NOINPUT, "%s '%s': %s", what, path,
			     strerror(errno));
		return NULL;
	}
	if (!S_ISDIR(st.st_mode)) {
		st_error_set(err, ST_EXIT_NOINPUT, "%s '%s': not a directory",
			     what, path);
		return NULL;
	}
	real = realpath(path, NULL);
	if (!real)
		st_error_set(err, errno == ENOMEM ? ST_EXIT_IOERR : ST_EXIT_NOINPUT,
			     "%s '%s': %s", what, path, strerror(errno));
	return real;
}

int st_report_write(FILE *f, const char *results, const char *base,
		    st_report_info *info, st_error *err)
{
	struct rep r;
	char *real_base = NULL, *tl = NULL;
	int rc = -1;

	st_error_clear(err);
	memset(&r, 0, sizeof(r));
	st_table_init(&r.cmp_t);
	st_table_init(&r.queue_t);
	st_table_init(&r.days_t);
	st_table_init(&r.med[0].t);
	st_table_init(&r.med[1].t);
	st_table_init(&r.ratio_t);
	st_table_init(&r.left_t);
	st_table_init(&r.sets_t);
	r.f = f;
	r.shown = results;
	r.err = err;
	if (info)
		memset(info, 0, sizeof(*info));

	r.root = real_dir(results, "results directory", err);
	if (!r.root)
		goto out;
	real_base = real_dir(base, "report directory", err);
	if (!real_base)
		goto out;
	r.rel = st_report_relpath(real_base, r.root);
	tl = st_path_join(r.root, "timeline.json");
	if (!r.rel || !tl) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	if (load_manifest(&r) < 0 || load_provenance(&r) < 0)
		goto out;
	r.timeline = st_path_is_file(tl) && listed(&r, "timeline.json");
	if (load_statistics(&r) < 0 || load_figures(&r) < 0 ||
	    collect_csvs(&r) < 0)
		goto out;
	if (r.ncsvs)
		qsort(r.csvs, r.ncsvs, sizeof(*r.csvs), cmp_csv);

	write_head(&r);
	if (write_body(&r, info) < 0)
		goto out;
	if (ferror(f)) {
		st_error_set(err, ST_EXIT_IOERR, "cannot write the report: %s",
			     strerror(errno));
		goto out;
	}
	if (info) {
		info->sizes = r.ncmp > 0 ? (size_t)r.ncmp : 0;
		info->csvs = r.ncsvs;
		info->timeline = r.timeline;
		info->manifest = r.has_man;
	}
	rc = 0;
out:
	free(real_base);
	free(tl);
	rep_release(&r);
	return rc;
}
