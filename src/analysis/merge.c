/* merge.c - merge transfer, merge offload, merge streaming (SPEC 5.6). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/merge.h"
#include "streamtime/clockfix.h"
#include "streamtime/num.h"
#include "streamtime/receivers.h"
#include "streamtime/search.h"
#include "streamtime/slurm.h"

#define NJOBCOLS 11
_Static_assert(NJOBCOLS == ST_SLURM_NFIELDS, "job_cols follows st_slurm_field");
static const char *const job_cols[NJOBCOLS] = {
	"Job Name", "Job ID", "Timelimit", "Elapsed", "Submit", "Start", "End",
	"ReqNodes", "QOS", "User", "ExitCode",
};

int64_t st_db_size_from_name(const char *path)
{
	const char *base = strrchr(path, '/');
	char *end;
	long long a, b;

	base = base ? base + 1 : path;
	if (!isdigit((unsigned char)*base))
		return 0;
	errno = 0;
	a = strtoll(base, &end, 10);
	if (errno || *end != '_' || !isdigit((unsigned char)end[1]))
		return 0;
	b = strtoll(end + 1, &end, 10);
	/* strtoll saturates: "99999999999999999999" is no size, not INT64_MAX */
	if (errno || a != b || a <= 0 || strcmp(end, ".csv") != 0)
		return 0;
	return a;
}

/* One Distiller row, indexed by slurm_id; ORDER keeps the files' order. */
struct db_entry {
	int64_t slurm_id;
	size_t order;
	const st_table *t;
	size_t row;
	int64_t size;
	int id_col, elapsed_col;   /* resolved once per file */
};

static int cmp_db_entry(const void *a, const void *b)
{
	const struct db_entry *x = a, *y = b;

	if (x->slurm_id != y->slurm_id)
		return x->slurm_id < y->slurm_id ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int cell_time(const st_table *t, size_t row, int col, const st_tz *tz,
		     st_instant *out, int *flags, st_error *err)
{
	st_error e;

	if (st_time_parse(st_table_get(t, row, col), tz, out, flags, &e) == 0)
		return 0;
	return st_table_cell_error(t, row, col, e.text, err);
}

static int build_db_index(const st_db_table *db, size_t ndb,
			  struct db_entry **out, size_t *nout, st_error *err)
{
	size_t total = 0, n = 0;
	struct db_entry *v;

	for (size_t i = 0; i < ndb; i++)
		total += db[i].t->nrows;
	v = malloc((total ? total : 1) * sizeof(*v));
	if (!v)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	for (size_t i = 0; i < ndb; i++) {
		const st_table *t = db[i].t;
		static const char *const need[] = { "id", "slurm_id", "elapsed" };
		int idx[3], size_col = -1;

		if (st_table_require(t, need, idx, 3, err) < 0)
			goto fail;
		if (db[i].size == 0) {
			size_col = st_table_col(t, "size");
			if (size_col < 0) {
				st_error_set(err, ST_EXIT_DATAERR,
					     "%s: no size: name the file {N}_{N}.csv "
					     "or add a 'size' column", t->name);
				goto fail;
			}
		}
		for (size_t r = 0; r < t->nrows; r++) {
			struct db_entry *e = &v[n];
			const char *sid = st_table_get(t, r, idx[1]);

			if (!*sid)
				continue;   /* a job never submitted to Slurm */
			if (st_table_get_int(t, r, idx[1], &e->slurm_id, err) < 0)
				goto fail;
			e->size = db[i].size;
			if (size_col >= 0 && st_table_get_int(t, r, size_col, &e->size, err) < 0)
				goto fail;
			e->order = n;
			e->t = t;
			e->row = r;
			e->id_col = idx[0];
			e->elapsed_col = idx[2];
			n++;
		}
	}
	qsort(v, n, sizeof(*v), cmp_db_entry);
	*out = v;
	*nout = n;
	return 0;
fail:
	free(v);
	return -1;
}

/* The sacct values of job row R (columns JC in st_slurm_field order) that
 * later steps compute with must be good (st_slurm_job_check): a bad one is
 * error 65 naming the jobs file, line and column, not a later step's own
 * intermediate file. */
static int check_job(const st_table *jobs, size_t r, const int *jc,
		     st_error *err)
{
	const char *f[ST_SLURM_NFIELDS];
	char why[200];
	int k;

	for (int c = 0; c < ST_SLURM_NFIELDS; c++)
		f[c] = st_table_get(jobs, r, jc[c]);
	k = st_slurm_job_check(f, why, sizeof(why));
	return k < 0 ? 0 : st_table_cell_error(jobs, r, jc[k], why, err);
}

int st_merge_transfer(const st_table *jobs, const st_db_table *db, size_t ndb,
		      st_duration max_elapsed, FILE *out, size_t *rows,
		      st_error *err)
{
	const char *hdr[NJOBCOLS + 3], *fields[NJOBCOLS + 3];
	int jc[NJOBCOLS];
	struct db_entry *index = NULL;
	size_t nindex = 0, written = 0;
	int rc = -1;

	if (st_table_require(jobs, job_cols, jc, NJOBCOLS, err) < 0)
		return -1;
	if (build_db_index(db, ndb, &index, &nindex, err) < 0)
		return -1;
	memcpy(hdr, job_cols, sizeof(job_cols));
	hdr[NJOBCOLS] = "id";
	hdr[NJOBCOLS + 1] = "elapsed";
	hdr[NJOBCOLS + 2] = "size";
	if (st_csv_write_row(out, NJOBCOLS + 3, hdr) < 0)
		goto io;
	for (size_t r = 0; r < jobs->nrows; r++) {
		int64_t jobid;
		size_t lo;

		/* array ("7_1") and het ("7+0") ids never match a slurm_id */
		if (st_num_parse_int(st_table_get(jobs, r, jc[1]), &jobid) < 0)
			continue;
		/* slurm_id is the first member: st_cmp_i64 reads it */
		lo = st_lower_bound(index, nindex, sizeof(*index), &jobid, st_cmp_i64);
		if (lo < nindex && index[lo].slurm_id == jobid &&
		    check_job(jobs, r, jc, err) < 0)
			goto out;
		for (; lo < nindex && index[lo].slurm_id == jobid; lo++) {
			const struct db_entry *e = &index[lo];
			int ec = e->elapsed_col, ic = e->id_col;
			const char *el = st_table_get(e->t, e->row, ec);
			char idbuf[24], elbuf[40], sizebuf[24];
			st_duration d;
			int64_t id;
			st_error perr;

			if (!*el)
				continue;
			if (st_duration_parse(el, &d, &perr) < 0) {
				st_table_cell_error(e->t, e->row, ec, perr.text, err);
				goto out;
			}
			if (d < 0) {
				char what[120];

				snprintf(what, sizeof(what), "'%.60s' is negative (a "
					 "job's run time)", el);
				st_table_cell_error(e->t, e->row, ec, what, err);
				goto out;
			}
			if (d > max_elapsed)
				continue;
			if (st_table_get_int(e->t, e->row, ic, &id, err) < 0)
				goto out;
			for (int c = 0; c < NJOBCOLS; c++)
				fields[c] = st_table_get(jobs, r, jc[c]);
			snprintf(idbuf, sizeof(idbuf), "%" PRId64, id);
			st_duration_format_hms(d, elbuf, sizeof(elbuf));
			snprintf(sizebuf, sizeof(sizebuf), "%" PRId64, e->size);
			fields[NJOBCOLS] = idbuf;
			fields[NJOBCOLS + 1] = elbuf;
			fields[NJOBCOLS + 2] = sizebuf;
			if (st_csv_write_row(out, NJOBCOLS + 3, fields) < 0)
				goto io;
			written++;
		}
	}
	if (rows)
		*rows = written;
	rc = 0;
	goto out;
io:
	st_error_set(err, ST_EXIT_IOERR, "write error");
out:
	free(index);
	return rc;
}

int st_receiver_columns(const st_table *t, int idx[], size_t max,
			st_error *err)
{
	size_t n = 0;

	for (size_t r = 0; r < max; r++) {
		char name[32];
		int c;

		snprintf(name, sizeof(name), "time%zu", r);
		c = st_table_col(t, name);
		if (c < 0)
			break;
		idx[n++] = c;
	}
	if (n == 0)
		return st_error_set(err, ST_EXIT_DATAERR,
				    "%s: missing column 'time0' (receiver times "
				    "time0, time1, ...)", t->name);
	return (int)n;
}

/* The earliest receiver time of ROW: empty cells are missing receivers and
 * are skipped; a row with none is an error.  With FIX, each receiver's time
 * is first corrected for its host's clock, and *BOUND gets the bound of the
 * measurement behind the earliest. */
static int min_receiver_time(const st_table *t, size_t row, const int *rc,
			     int nrc, const st_clock_fix *fix, st_instant *out,
			     st_duration *bound, st_error *err)
{
	bool any = false;

	for (int i = 0; i < nrc; i++) {
		st_instant v;
		st_duration b = 0;

		if (!*st_table_get(t, row, rc[i]))
			continue;
		if (cell_time(t, row, rc[i], NULL, &v, NULL, err) < 0)
			return -1;
		if (fix && st_clock_fix_time(fix, fix->receiver[i], &v, &b, err) < 0) {
			st_error_prefix(err, "%s:%zu: time%d", t->name, t->lines[row], i);
			return -1;
		}
		if (!any || v < *out) {
			*out = v;
			if (bound)
				*bound = b;
		}
		any = true;
	}
	if (!any)
		return st_error_set(err, ST_EXIT_DATAERR,
				    "%s:%zu: no receiver time in any of time0..time%d",
				    t->name, t->lines[row], nrc - 1);
	return 0;
}

/* FIX must name one host per receiver column of T. */
static int check_fix(const st_table *t, int nrc, const st_clock_fix *fix,
		     st_error *err)
{
	if (fix && fix->nreceivers != (size_t)nrc)
		return st_error_set(err, ST_EXIT_USAGE, "--receiver-hosts names %zu "
				    "host(s), but %s has %d receiver column(s) "
				    "(time0..time%d)", fix->nreceivers, t->name, nrc,
				    nrc - 1);
	return 0;
}

/* *OUT = A - B - C in ns, or error 65 naming line ROW of T: instants more
 * than 292 years apart do not fit in an int64 count of nanoseconds. */
static int span(const st_table *t, size_t row, st_instant a, st_instant b,
		st_duration c, st_duration *out, st_error *err)
{
	if (!__builtin_sub_overflow(a, b, out) &&
	    !__builtin_sub_overflow(*out, c, out))
		return 0;
	return st_error_set(err, ST_EXIT_DATAERR, "%s:%zu: the times are more "
			    "than 292 years apart", t->name, t->lines[row]);
}

/* The offload time of one scan of the write-times table. */
struct offload_row {
	double off;     /* time_last_written - the earliest receiver time, s */
	double corr;    /* what the clock correction added to it, s */
	double bnd;     /* the bound of the clock measurements behind it, s */
};

/* The offload time of row R of WT (receiver columns RC[NRC], the
 * time_last_written column LASTCOL), corrected by FIX when given.
 * Returns 0, or -1 with ERR naming the row. */
static int offload_of_row(const st_table *wt, size_t r, const int *rc, int nrc,
			  int lastcol, const st_clock_fix *fix,
			  struct offload_row *o, st_error *err)
{
	st_instant first, last;
	st_duration d, b = 0, b2 = 0, raw;

	*o = (struct offload_row){ 0 };
	if (min_receiver_time(wt, r, rc, nrc, NULL, &first, NULL, err) < 0 ||
	    cell_time(wt, r, lastcol, NULL, &last, NULL, err) < 0 ||
	    span(wt, r, last, first, 0, &d, err) < 0)
		return -1;
	o->off = st_duration_seconds(d);
	if (!fix)
		return 0;
	raw = d;
	if (min_receiver_time(wt, r, rc, nrc, fix, &first, &b, err) < 0)
		return -1;
	if (st_clock_fix_time(fix, fix->data_host, &last, &b2, err) < 0) {
		st_error_prefix(err, "%s:%zu: time_last_written", wt->name,
				wt->lines[r]);
		return -1;
	}
	/* in ns, so the correction is exact */
	if (span(wt, r, last, first, raw, &d, err) < 0)
		return -1;
	o->corr = st_duration_seconds(d);
	if (span(wt, r, last, first, 0, &d, err) < 0)
		return -1;
	o->off = st_duration_seconds(d);
	o->bnd = st_duration_seconds(b + b2);
	return 0;
}

/* One line of the per-scan file: size, scan, offload time, and with FIX
 * the correction and its bound.  Returns what fprintf does. */
static int write_offload_row(FILE *per_scan, const st_clock_fix *fix,
			     int64_t size, int64_t scan,
			     const struct offload_row *o)
{
	char buf[32], cb[32], bb[32];

	st_num_format_seconds(o->off, buf, sizeof(buf));
	if (!fix)
		return fprintf(per_scan, "%" PRId64 ",%" PRId64 ",%s\n", size, scan,
			       buf);
	st_num_format_seconds(o->corr, cb, sizeof(cb));
	st_num_format_seconds(o->bnd, bb, sizeof(bb));
	return fprintf(per_scan, "%" PRId64 ",%" PRId64 ",%s,%s,%s\n", size, scan,
		       buf, cb, bb);
}

/* The mean offload time (and with FIX the mean correction) of each range:
 * SUM[k] and CORR[k] over COUNT[k] scans.  A range without scans is an
 * error (65).  Returns 0, or -1 with ERR set. */
static int write_offload_means(FILE *out, const st_table *wt,
			       const st_size_range *ranges, size_t nranges,
			       const double *sum, const double *corr,
			       const double *bnd, const size_t *count,
			       const st_clock_fix *fix, st_error *err)
{
	if (fputs(fix ? "size,offload_time,clock_correction_seconds,"
		  "clock_bound_seconds\n" :
		  "size,offload_time\n", out) < 0)
		return st_error_set(err, ST_EXIT_IOERR, "write error");
	for (size_t k = 0; k < nranges; k++) {
		char buf[32], cb[32], bb[32];
		int w;

		if (count[k] == 0)
			return st_error_set(err, ST_EXIT_DATAERR,
					    "%s: no scan of range %" PRId64 "-%" PRId64
					    " (size %" PRId64 ")", wt->name,
					    ranges[k].range.first, ranges[k].range.last,
					    ranges[k].size);
		st_num_format_seconds(sum[k] / (double)count[k], buf,
				      sizeof(buf));
		if (fix) {
			st_num_format_seconds(corr[k] / (double)count[k], cb,
					      sizeof(cb));
			st_num_format_seconds(bnd[k], bb, sizeof(bb));
			w = fprintf(out, "%" PRId64 ",%s,%s,%s\n", ranges[k].size,
				    buf, cb, bb);
		} else {
			w = fprintf(out, "%" PRId64 ",%s\n", ranges[k].size, buf);
		}
		if (w < 0)
			return st_error_set(err, ST_EXIT_IOERR, "write error");
	}
	return 0;
}

/* Scans whose offload time cannot be one (negative, or over a day), for
 * one warning. */
struct implausible {
	size_t n;
	int64_t scan[ST_IMPLAUSIBLE_NAMED];
	double worst;           /* the value farthest from [0, 1 day] */
	int64_t worst_scan;
};

static void note_implausible(struct implausible *im, int64_t scan, double off)
{
	double away = off < 0 ? -off : off - ST_OFFLOAD_MAX_S;

	if (off >= 0 && off <= ST_OFFLOAD_MAX_S)
		return;
	if (im->n < ST_IMPLAUSIBLE_NAMED)
		im->scan[im->n] = scan;
	if (im->n == 0 ||
	    away > (im->worst < 0 ? -im->worst : im->worst - ST_OFFLOAD_MAX_S)) {
		im->worst = off;
		im->worst_scan = scan;
	}
	im->n++;
}

/* The warning for IM over SCANS scans of WT. */
static void warn_implausible(st_log *log, const st_table *wt,
			     const struct implausible *im, size_t scans)
{
	char names[ST_IMPLAUSIBLE_NAMED * 24 + 8] = "", w[32];
	size_t len = 0;

	if (!im->n)
		return;
	for (size_t i = 0; i < im->n && i < ST_IMPLAUSIBLE_NAMED; i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len,
					"%s%" PRId64, i ? ", " : "", im->scan[i]);
	if (im->n > ST_IMPLAUSIBLE_NAMED)
		snprintf(names + len, sizeof(names) - len, ", ...");
	st_num_format(im->worst, w, sizeof(w));
	st_warn(log, "%s: %zu of %zu scans have an offload time that is "
		"negative or longer than a day (scan %" PRId64 ": %s s; scans "
		"%s): time_last_written is not when the receivers wrote the "
		"data (were the data files copied or checked out, which sets "
		"their mtimes to then?) or a clock is wrong", wt->name, im->n,
		scans, im->worst_scan, w, names);
}

int st_merge_offload(const st_table *wt, const st_size_range *ranges,
		     size_t nranges, const st_clock_fix *fix, FILE *out,
		     FILE *per_scan, st_log *log, st_error *err)
{
	struct implausible im = { 0 };
	size_t scans = 0;
	static const char *const need[] = { "scan_number", "time_last_written" };
	int idx[2], rc[ST_RECEIVERS_MAX], nrc;
	double *sum, *corr, *bnd;
	size_t *count;
	int ret = -1;

	if (st_table_require(wt, need, idx, 2, err) < 0)
		return -1;
	nrc = st_receiver_columns(wt, rc, ST_RECEIVERS_MAX, err);
	if (nrc < 0 || check_fix(wt, nrc, fix, err) < 0)
		return -1;
	sum = calloc(3 * (nranges + 1), sizeof(*sum));
	count = calloc(nranges + 1, sizeof(*count));
	if (!sum || !count) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	corr = sum + nranges + 1;
	bnd = corr + nranges + 1;       /* the largest bound of a range */
	if (per_scan && fputs(fix ? "size,scan_number,offload_time,"
			      "clock_correction_seconds,clock_bound_seconds\n" :
			      "size,scan_number,offload_time\n", per_scan) < 0)
		goto io;
	for (size_t r = 0; r < wt->nrows; r++) {
		struct offload_row o;
		int64_t scan;
		bool parsed = false;

		if (st_table_get_int(wt, r, idx[0], &scan, err) < 0)
			goto out;
		for (size_t k = 0; k < nranges; k++) {
			if (scan < ranges[k].range.first || scan > ranges[k].range.last)
				continue;
			/* once, and only for a scan of some range */
			if (!parsed && offload_of_row(wt, r, rc, nrc, idx[1], fix, &o,
						      err) < 0)
				goto out;
			if (!parsed) {
				note_implausible(&im, scan, o.off);
				scans++;
			}
			parsed = true;
			sum[k] += o.off;
			corr[k] += o.corr;
			if (fix && o.bnd > bnd[k])
				bnd[k] = o.bnd;
			count[k]++;
			if (per_scan && write_offload_row(per_scan, fix, ranges[k].size,
							  scan, &o) < 0)
				goto io;
		}
	}
	ret = write_offload_means(out, wt, ranges, nranges, sum, corr, bnd, count,
				  fix, err);
	if (ret == 0)
		warn_implausible(log, wt, &im, scans);
	goto out;
io:
	st_error_set(err, ST_EXIT_IOERR, "write error");
out:
	free(sum);
	free(count);
	return ret;
}

struct scan_row {
	int64_t scan;
	size_t row;
};

static int cmp_scan_row(const void *a, const void *b)
{
	const struct scan_row *x = a, *y = b;
	int c = ST_CMP(x->scan, y->scan);

	return c ? c : ST_CMP(x->row, y->row);
}

/* The rows of CREATED by scan number (its column CSCAN), sorted, in a new
 * array *INDEX.  Returns 0, or -1 with ERR set. */
static int index_scans(const st_table *created, int cscan,
		       struct scan_row **index, st_error *err)
{
	struct scan_row *v = malloc((created->nrows ? created->nrows : 1) *
				    sizeof(*v));

	*index = NULL;
	if (!v)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	for (size_t i = 0; i < created->nrows; i++) {
		v[i].row = i;
		if (st_table_get_int(created, i, cscan, &v[i].scan, err) < 0) {
			free(v);
			return -1;
		}
	}
	qsort(v, created->nrows, sizeof(*v), cmp_scan_row);
	*index = v;
	return 0;
}

/* What st_merge_streaming's rows share. */
struct streaming_join {
	const st_table *created, *h5;
	const int *rc;                  /* CREATED's receiver columns */
	int nrc;
	const st_clock_fix *fix;        /* NULL: no clock correction */
	FILE *out;
	st_streaming_result r;          /* counted as rows are written */
};

/* The line of the streaming file for row I of H5 (distiller id DID, scan
 * SCAN, written at NERSC at NERSC) and row ROW of CREATED: both instants,
 * the absolute and the signed latency, and with a clock fix the
 * correction and its bound.  Returns 0, or -1 with ERR set. */
static int write_streaming_row(struct streaming_join *j, size_t i, size_t row,
			       int64_t did, int64_t scan, st_instant nersc,
			       st_error *err)
{
	const st_table *h5 = j->h5;
	const st_clock_fix *fix = j->fix;
	char nbuf[40], cbuf[40], dbuf[32], lbuf[32], cb[32], bb[32];
	st_instant first;
	st_duration b = 0, b2 = 0, raw = 0, d;
	double lat;

	if (min_receiver_time(j->created, row, j->rc, j->nrc, NULL, &first, NULL,
			      err) < 0)
		return -1;
	if (fix) {
		if (span(h5, i, nersc, first, 0, &raw, err) < 0 ||
		    min_receiver_time(j->created, row, j->rc, j->nrc, fix, &first,
				      &b, err) < 0)
			return -1;
		if (st_clock_fix_time(fix, fix->nersc_host, &nersc, &b2, err) < 0) {
			st_error_prefix(err, "%s:%zu: datetime", h5->name, h5->lines[i]);
			return -1;
		}
	}
	if (span(h5, i, nersc, first, 0, &d, err) < 0)
		return -1;
	lat = st_duration_seconds(d);
	if (lat < 0) {
		double h = round(lat / 3600.0);

		j->r.negative++;
		/* a wrong zone shifts every latency by whole hours */
		if (h != 0 && fabs(lat - h * 3600.0) <= ST_HOURISH_S) {
			if (!j->r.hourish)
				j->r.hours = (int)h;
			j->r.hourish++;
		}
	}
	st_time_format_utc(nersc, nbuf, sizeof(nbuf));
	st_time_format_utc(first, cbuf, sizeof(cbuf));
	st_num_format_seconds(lat < 0 ? -lat : lat, dbuf, sizeof(dbuf));
	st_num_format_seconds(lat, lbuf, sizeof(lbuf));
	if (fprintf(j->out, "%" PRId64 ",%" PRId64 ",%s,%s,%s,%s", did, scan,
		    nbuf, cbuf, dbuf, lbuf) < 0)
		return st_error_set(err, ST_EXIT_IOERR, "write error");
	if (fix) {
		if (span(h5, i, nersc, first, raw, &d, err) < 0)
			return -1;
		st_num_format_seconds(st_duration_seconds(d), cb, sizeof(cb));
		st_num_format_seconds(st_duration_seconds(b + b2), bb,
				      sizeof(bb));
		if (fprintf(j->out, ",%s,%s", cb, bb) < 0)
			return st_error_set(err, ST_EXIT_IOERR, "write error");
	}
	if (fputc('\n', j->out) == EOF)
		return st_error_set(err, ST_EXIT_IOERR, "write error");
	j->r.rows++;
	return 0;
}

int st_merge_streaming(const st_table *created, const st_table *h5,
		       const st_tz *tz, const st_range *range,
		       const st_clock_fix *fix, FILE *out,
		       st_streaming_result *res, st_log *log, st_error *err)
{
	static const char *const hneed[] = { "distiller_id", "scan_number",
					     "datetime" };
	int hc[3], cscan, rc[ST_RECEIVERS_MAX], nrc;
	struct scan_row *index;
	struct streaming_join j = { created, h5, rc, 0, fix, out, { 0 } };
	int ret = -1;

	if (st_table_require(h5, hneed, hc, 3, err) < 0)
		return -1;
	if (st_table_require(created, hneed + 1, &cscan, 1, err) < 0)
		return -1;
	nrc = st_receiver_columns(created, rc, ST_RECEIVERS_MAX, err);
	if (nrc < 0 || check_fix(created, nrc, fix, err) < 0)
		return -1;
	j.nrc = nrc;
	if (index_scans(created, cscan, &index, err) < 0)
		return -1;
	if (fputs("distiller_id,scan_number,nersc_write_time,ncem_created_time,"
		  "time_difference_seconds,latency_seconds", out) < 0 ||
	    fputs(fix ? ",clock_correction_seconds,clock_bound_seconds\n" : "\n",
		  out) < 0) {
		st_error_set(err, ST_EXIT_IOERR, "write error");
		goto out;
	}
	for (size_t i = 0; i < h5->nrows; i++) {
		int64_t did, scan;
		size_t lo;
		st_instant nersc;
		int flags;

		if (st_table_get_int(h5, i, hc[1], &scan, err) < 0)
			goto out;
		if (range && (scan < range->first || scan > range->last))
			continue;
		/* scan is the first member: st_cmp_i64 reads it */
		lo = st_lower_bound(index, created->nrows, sizeof(*index), &scan,
				    st_cmp_i64);
		if (lo == created->nrows || index[lo].scan != scan) {
			j.r.unmatched++;
			continue;
		}
		if (st_table_get_int(h5, i, hc[0], &did, err) < 0 ||
		    cell_time(h5, i, hc[2], tz, &nersc, &flags, err) < 0)
			goto out;
		if (flags) {
			j.r.gaps++;
			st_warn(log, "%s:%zu: '%s' is %s in %s; read with the "
				"earlier offset", h5->name, h5->lines[i],
				st_table_get(h5, i, hc[2]),
				flags & ST_TZ_GAP ? "in a DST gap" : "ambiguous",
				tz ? st_tz_name(tz) : "UTC");
		}
		for (; lo < created->nrows && index[lo].scan == scan; lo++)
			if (write_streaming_row(&j, i, index[lo].row, did, scan, nersc,
						err) < 0)
				goto out;
	}
	if (res)
		*res = j.r;
	ret = 0;
out:
	free(index);
	return ret;
}

void st_streaming_warn_negative(st_log *log, const st_streaming_result *r,
				const char *zone_fix)
{
	if (!r->negative)
		return;
	char hours[64] = "";

	if (r->hourish)
		snprintf(hours, sizeof(hours), ", %zu of them by about a whole "
			 "number of hours (%+d h)", r->hourish, r->hours);
	if (r->hourish * 2 > r->negative || r->negative == r->rows)
		st_warn(log, "%zu of %zu latencies are negative%s: the likelier "
			"cause is the time zone of the naive NERSC (H5) times, "
			"not the clocks; %s", r->negative, r->rows, hours,
			zone_fix);
	else
		st_warn(log, "%zu negative latencies: the NERSC and NCEM clocks "
			"disagree (measure them with 'streamtime clock probe')",
			r->negative);
}
