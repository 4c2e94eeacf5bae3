/* pipeline.c - the analysis steps at file level (see pipeline.h). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "streamtime/atomic.h"
#include "streamtime/pipeline.h"
#include "streamtime/clockfix.h"
#include "streamtime/num.h"

struct db_file {
	char *path;
	int64_t size;      /* 0: the table has a size column */
	size_t order;
};

static int cmp_db_file(const void *a, const void *b)
{
	const struct db_file *x = a, *y = b;
	int64_t sx = x->size ? x->size : INT64_MAX;
	int64_t sy = y->size ? y->size : INT64_MAX;

	if (sx != sy)
		return sx < sy ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int add_db_file(struct db_file **v, size_t *n, size_t *cap,
		       const char *path, st_error *err)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct db_file *nv = realloc(*v, nc * sizeof(*nv));

		if (!nv)
			return st_error_set(err, ST_EXIT_IOERR, "out of memory");
		*v = nv;
		*cap = nc;
	}
	(*v)[*n].path = strdup(path);
	(*v)[*n].size = st_db_size_from_name(path);
	(*v)[*n].order = *n;
	if (!(*v)[*n].path)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	(*n)++;
	return 0;
}

/* Expand DB (files and directories) into a sorted list of files. */
static int collect_db_files(const char *const db[], size_t ndb,
			    struct db_file **out, size_t *nout, st_error *err)
{
	struct db_file *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < ndb; i++) {
		struct stat st;
		DIR *d;
		struct dirent *de;
		size_t before = n;

		if (stat(db[i], &st) != 0) {
			st_error_set(err, ST_EXIT_NOINPUT, "cannot open %s: %s",
				     db[i], strerror(errno));
			goto fail;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (add_db_file(&v, &n, &cap, db[i], err) < 0)
				goto fail;
			continue;
		}
		d = opendir(db[i]);
		if (!d) {
			st_error_set(err, ST_EXIT_NOINPUT, "cannot open %s: %s",
				     db[i], strerror(errno));
			goto fail;
		}
		while ((de = readdir(d)) != NULL) {
			char *p;
			int rc;

			if (st_db_size_from_name(de->d_name) == 0)
				continue;
			p = st_path_join(db[i], de->d_name);
			rc = p ? add_db_file(&v, &n, &cap, p, err) : -1;
			free(p);
			if (rc < 0) {
				closedir(d);
				goto fail;
			}
		}
		closedir(d);
		if (n == before) {
			st_error_set(err, ST_EXIT_NOINPUT, "%s: no {N}_{N}.csv "
				     "Distiller export in this directory", db[i]);
			goto fail;
		}
	}
	qsort(v, n, sizeof(*v), cmp_db_file);
	*out = v;
	*nout = n;
	return 0;
fail:
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	return -1;
}

/* After a merge failed writing to AF (the file PATH): name the file and
 * the errno ("No space left on device") rather than "write error".  Other
 * errors are left as they are. */
static void name_write_error(const st_atomic_file *af, const char *path,
			     st_error *err)
{
	if (af->fp && ferror(af->fp))
		st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s", path,
			     strerror(st_atomic_errno(af)));
}

int st_merge_transfer_run(const char *jobs, const char *const db[], size_t ndb,
			  st_duration max_elapsed, const char *out,
			  size_t *rows, st_error *err)
{
	struct db_file *files = NULL;
	size_t nfiles = 0;
	st_table jt, *dt = NULL;
	st_db_table *dbt = NULL;
	st_atomic_file af = { 0 };
	int rc = -1;

	st_table_init(&jt);
	if (collect_db_files(db, ndb, &files, &nfiles, err) < 0)
		return -1;
	dt = calloc(nfiles + 1, sizeof(*dt));
	dbt = calloc(nfiles + 1, sizeof(*dbt));
	if (!dt || !dbt) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	if (st_table_read(&jt, jobs, err) < 0)
		goto out;
	for (size_t i = 0; i < nfiles; i++) {
		if (st_table_read(&dt[i], files[i].path, err) < 0)
			goto out;
		dbt[i].size = files[i].size;
		dbt[i].t = &dt[i];
	}
	if (st_atomic_open(&af, out, err) < 0)
		goto out;
	if (st_merge_transfer(&jt, dbt, nfiles, max_elapsed, af.fp, rows, err) < 0) {
		name_write_error(&af, out, err);
		st_atomic_abort(&af);
		goto out;
	}
	rc = st_atomic_commit(&af, err);
out:
	for (size_t i = 0; i < nfiles; i++) {
		free(files[i].path);
		if (dt)
			st_table_release(&dt[i]);
	}
	free(files);
	free(dt);
	free(dbt);
	st_table_release(&jt);
	return rc;
}

/* The warning when C corrected times with measurements far from them
 * (ST_CLOCK_FAR_NS): offsets measured today say little about last year. */
static void clock_far_warn(const st_clock_setup *c, const char *file,
			   st_log *log)
{
	if (!c->on || !c->far.count)
		return;
	st_warn(log, "%s: %zu of %zu times were corrected with a clock "
		"measurement more than a day away from them (up to %.1f days): "
		"clocks drift and are stepped, so such an offset need not hold "
		"then; measure the clocks (clock probe from cron) while the data "
		"are taken", file, c->far.count, c->far.total,
		(double)c->far.worst / 86400e9);
}

void st_clock_setup_release(st_clock_setup *c)
{
	st_clock_offsets_release(&c->o);
	st_table_release(&c->t);
	free(c->hosts);
}

int st_clock_setup_load(st_clock_setup *c, const st_clock_options *opt,
			st_error *err)
{
	memset(c, 0, sizeof(*c));
	st_table_init(&c->t);
	if (!opt || !opt->offsets)
		return 0;
	if (!opt->receiver_hosts)
		return st_error_set(err, ST_EXIT_USAGE, "--clock-offsets needs "
				    "--receiver-hosts h0,h1,... (whose clock "
				    "stamped time0, time1, ...)");
	c->hosts = strdup(opt->receiver_hosts);
	if (!c->hosts)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	if (st_clock_fix_parse_hosts(&c->fix, c->hosts, err) < 0 ||
	    st_table_read(&c->t, opt->offsets, err) < 0 ||
	    st_clock_offsets_load(&c->o, &c->t, err) < 0)
		return -1;
	c->fix.offsets = &c->o;
	c->fix.far = &c->far;
	c->fix.data_host = opt->data_host;
	c->fix.nersc_host = opt->nersc_host;
	c->on = true;
	return 0;
}

int st_merge_offload_run(const char *write_times, const st_size_range *ranges,
			 size_t nranges, const st_clock_options *clock,
			 const char *out, const char *per_scan, st_log *log,
			 st_error *err)
{
	st_table wt;
	st_atomic_file af = { 0 }, ps = { 0 };
	st_atomic_set set = { 0 };
	st_clock_setup cs;
	int rc = -1;

	st_table_init(&wt);
	if (st_clock_setup_load(&cs, clock, err) < 0 ||
	    st_table_read(&wt, write_times, err) < 0)
		goto out;
	if (st_atomic_open(&af, out, err) < 0)
		goto out;
	if (per_scan && st_atomic_open(&ps, per_scan, err) < 0)
		goto out;
	if (st_merge_offload(&wt, ranges, nranges, cs.on ? &cs.fix : NULL, af.fp,
			     per_scan ? ps.fp : NULL, log, err) < 0) {
		name_write_error(&af, out, err);
		if (per_scan)
			name_write_error(&ps, per_scan, err);
		goto out;
	}
	/* both complete on disk before either is renamed */
	if (st_atomic_set_add(&set, &af, err) < 0 ||
	    (per_scan && st_atomic_set_add(&set, &ps, err) < 0))
		goto out;
	rc = st_atomic_set_commit(&set, err);
	if (rc == 0)
		clock_far_warn(&cs, write_times, log);
out:
	st_atomic_abort(&af);
	st_atomic_abort(&ps);
	st_atomic_set_abort(&set);
	st_table_release(&wt);
	st_clock_setup_release(&cs);
	return rc;
}

int st_merge_streaming_run(const st_merge_streaming_opts *o,
			   st_streaming_result *res, st_log *log, st_error *err)
{
	const st_sized_path *h5 = o->h5;
	const st_size_range *ranges = o->ranges;
	size_t nh5 = o->nh5, nranges = o->nranges;
	const char *outdir = o->outdir;
	st_clock_setup cs;
	st_table ct, ht;
	st_atomic_file *af = calloc(nh5 + 1, sizeof(*af));
	st_atomic_set set = { 0 };
	st_streaming_result sum = { 0 };
	st_tz *tz = NULL;
	int rc = -1;

	st_table_init(&ct);
	st_table_init(&ht);
	if (!af)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	if (st_clock_setup_load(&cs, o->clock, err) < 0)
		goto out;
	for (size_t i = 0; i < nh5 && nranges; i++) {
		size_t k;

		for (k = 0; k < nranges; k++)
			if (ranges[k].size == h5[i].size)
				break;
		if (k == nranges) {
			st_error_set(err, ST_EXIT_USAGE, "no --range for size %"
				     PRId64 " (give one for every size, or none)",
				     h5[i].size);
			goto out;
		}
	}
	tz = st_tz_load(o->tz ? o->tz : "UTC", err);
	if (!tz || st_table_read(&ct, o->created, err) < 0 ||
	    st_mkdir_p(outdir, err) < 0)
		goto out;
	for (size_t i = 0; i < nh5; i++) {
		const st_range *range = NULL;
		st_streaming_result r;
		char name[64], *path;

		for (size_t k = 0; k < nranges; k++)
			if (ranges[k].size == h5[i].size)
				range = &ranges[k].range;
		if (st_table_read(&ht, h5[i].path, err) < 0)
			goto out;
		snprintf(name, sizeof(name), "streaming_times_%" PRId64 ".csv",
			 h5[i].size);
		path = st_path_join(outdir, name);
		if (!path) {
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
			goto out;
		}
		if (st_atomic_open(&af[i], path, err) < 0) {
			free(path);
			goto out;
		}
		free(path);
		if (st_merge_streaming(&ct, &ht, tz, range, cs.on ? &cs.fix : NULL,
				       af[i].fp, &r, log, err) < 0) {
			name_write_error(&af[i], af[i].path, err);
			goto out;
		}
		sum.rows += r.rows;
		sum.negative += r.negative;
		sum.unmatched += r.unmatched;
		sum.gaps += r.gaps;
		if (!sum.hourish)
			sum.hours = r.hours;
		sum.hourish += r.hourish;
	}
	/* every size computed: publish them together, all complete on disk
	 * before the first rename */
	for (size_t i = 0; i < nh5; i++)
		if (st_atomic_set_add(&set, &af[i], err) < 0)
			goto out;
	if (st_atomic_set_commit(&set, err) < 0)
		goto out;
	clock_far_warn(&cs, o->created, log);
	if (res)
		*res = sum;
	rc = 0;
out:
	for (size_t i = 0; i < nh5; i++)
		st_atomic_abort(&af[i]);
	st_atomic_set_abort(&set);
	free(af);
	st_tz_free(tz);
	st_table_release(&ct);
	st_table_release(&ht);
	st_clock_setup_release(&cs);
	return rc;
}

int st_stats_queue_run(const char *merged, const char *tzname,
		       const char *outdir, st_queue_result *res, st_error *err)
{
	st_table mt;
	st_tz *tz;
	int rc = -1;

	st_table_init(&mt);
	tz = st_tz_load(tzname ? tzname : "UTC", err);
	if (tz && st_table_read(&mt, merged, err) == 0)
		rc = st_queue_stats(&mt, tz, outdir, res, err);
	st_tz_free(tz);
	st_table_release(&mt);
	return rc;
}

int st_stats_transfers_run(const st_stats_transfers_opts *o,
			   st_compare_row **rows, size_t *nrows,
			   st_error *err)
{
	st_table mt, ot, st;
	st_transfers_input in = { &mt, &ot, &st, o->streaming_dir, o->sizes,
				  o->nsizes };
	int rc = -1;

	st_table_init(&mt);
	st_table_init(&ot);
	st_table_init(&st);
	*rows = NULL;
	if (st_table_read(&mt, o->merged, err) < 0 ||
	    st_table_read(&ot, o->offload, err) < 0 ||
	    st_table_read(&st, o->save_stats, err) < 0)
		goto out;
	*rows = calloc((o->sizes ? o->nsizes : ot.nrows) + 1, sizeof(**rows));
	if (!*rows) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	rc = st_transfers_stats(&in, o->outdir, *rows, nrows, err);
	if (rc < 0) {
		free(*rows);
		*rows = NULL;
	}
out:
	st_table_release(&mt);
	st_table_release(&ot);
	st_table_release(&st);
	return rc;
}

void st_robust_warns_queue(st_log *log, const st_queue_result *q,
			   const char *outdir)
{
	char *file = st_path_join(outdir, "queue_time_median.csv");

	st_robust_warn(log, "queue time", &q->robust,
		       file ? file : "queue_time_median.csv");
	free(file);
}

void st_robust_warns_transfers(st_log *log, const st_compare_row *rows,
			       size_t n, const char *outdir)
{
	char *file = st_path_join(outdir, "medians.csv");

	for (size_t i = 0; i < n; i++) {
		char what[64];

		snprintf(what, sizeof(what), "%" PRId64 "x%" PRId64 " streaming",
			 rows[i].size, rows[i].size);
		st_robust_warn(log, what, &rows[i].st_robust,
			       file ? file : "medians.csv");
		snprintf(what, sizeof(what), "%" PRId64 "x%" PRId64
			 " file transfer", rows[i].size, rows[i].size);
		st_robust_warn(log, what, &rows[i].ft_robust,
			       file ? file : "medians.csv");
	}
	free(file);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The experiments' scan ranges and H5 files (paths under STREAMING, in
 * *H5PATHS: free each) for the merges. */
struct exp_inputs {
	st_size_range *off, *str;
	st_sized_path *h5;
	char **h5paths;
	size_t n;
};

static void exp_inputs_release(struct exp_inputs *in)
{
	for (size_t i = 0; in->h5paths && i < in->n; i++)
		free(in->h5paths[i]);
	free(in->h5paths);
	free(in->off);
	free(in->str);
	free(in->h5);
}

static int exp_inputs_init(struct exp_inputs *in, const st_experiments *ex,
			   const st_analysis_paths *p, st_error *err)
{
	in->n = ex->n;
	in->off = calloc(ex->n, sizeof(*in->off));
	in->str = calloc(ex->n, sizeof(*in->str));
	in->h5 = calloc(ex->n, sizeof(*in->h5));
	in->h5paths = calloc(ex->n, sizeof(*in->h5paths));
	if (!in->off || !in->str || !in->h5 || !in->h5paths)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	for (size_t i = 0; i < ex->n; i++) {
		in->off[i] = (st_size_range){ ex->v[i].size, ex->v[i].offload };
		in->str[i] = (st_size_range){ ex->v[i].size, ex->v[i].streaming };
		in->h5paths[i] = p->h5 ? strdup(p->h5[i]) :
				 st_path_join(p->streaming, ex->v[i].h5);
		if (!in->h5paths[i])
			return st_error_set(err, ST_EXIT_IOERR,
					    "out of memory");
		in->h5[i] = (st_sized_path){ ex->v[i].size, in->h5paths[i] };
	}
	return 0;
}

/* save_time_stats.csv from the records of P->save_times, into
 * P->out_save_stats. */
static int save_stats_step(const st_analysis_paths *p, st_analysis_result *res,
			   st_log *log, st_error *err)
{
	st_atomic_file af;

	if (st_atomic_open(&af, p->out_save_stats, err) < 0)
		return -1;
	if (st_save_stats_write(p->save_times, p->save_rules, p->nsave_rules,
				af.fp, &res->save, err) < 0) {
		st_atomic_abort(&af);
		return -1;
	}
	if (st_atomic_commit(&af, err) < 0)
		return -1;
	if (res->save.unmapped)
		st_warn(log, "%s: %zu scans are in no rule of the save-time map "
			"(the first: %" PRId64 "); their records are left out",
			p->save_times, res->save.unmapped,
			res->save.first_unmapped);
	res->save_stats = p->out_save_stats;
	return 0;
}

/* The steps proper, each timed into NOTES. */
static int analysis_steps(const st_analysis_paths *p, const st_experiments *ex,
			  const struct exp_inputs *in, st_analysis_result *res,
			  st_log *log, st_log *notes, st_error *err)
{
	const char *db[1] = { p->db };
	st_queue_result qres;
	double t = now_ms();

	if (st_merge_transfer_run(p->jobs, db, 1, ex->max_elapsed, p->merged,
				  &res->merged, err) < 0)
		return -1;
	st_warn(notes, "merge transfer: %zu rows (%.1f ms)", res->merged,
		now_ms() - t);
	t = now_ms();
	if (st_merge_offload_run(p->write_times, in->off, ex->n, p->clock,
				 p->offload, p->per_scan, log, err) < 0)
		return -1;
	st_warn(notes, "merge offload: %zu sizes (%.1f ms)", ex->n,
		now_ms() - t);
	t = now_ms();
	if (st_merge_streaming_run(&(st_merge_streaming_opts){
			.created = p->created, .h5 = in->h5, .nh5 = ex->n,
			.ranges = in->str, .nranges = ex->n, .tz = ex->tz,
			.clock = p->clock, .outdir = p->out_st,
		}, &res->streaming, log, err) < 0)
		return -1;
	st_streaming_warn_negative(log, &res->streaming, "set \"tz\" in "
				   "experiments.json (or --config) to the zone of "
				   "the H5 times, e.g. America/Los_Angeles for "
				   "NERSC");
	st_warn(notes, "merge streaming: %zu rows (%.1f ms)",
		res->streaming.rows, now_ms() - t);
	t = now_ms();
	if (st_stats_queue_run(p->merged, ex->slurm_tz, p->out_stats, &qres,
			       err) < 0)
		return -1;
	st_warn(notes, "stats queue: %zu jobs, %zu days (%.1f ms)",
		qres.with_outliers.n, qres.days, now_ms() - t);
	st_robust_warns_queue(log, &qres, p->out_stats);
	t = now_ms();
	res->save_stats = p->save_stats;
	if (!p->save_stats) {
		if (save_stats_step(p, res, log, err) < 0)
			return -1;
		st_warn(notes, "save times: %zu records, %zu groups (%.1f ms)",
			res->save.records, res->save.groups, now_ms() - t);
		t = now_ms();
	}
	if (st_stats_transfers_run(&(st_stats_transfers_opts){
			.merged = p->merged, .offload = p->offload,
			.save_stats = res->save_stats,
			.streaming_dir = p->out_st, .outdir = p->out_stats,
		}, &res->rows, &res->nrows, err) < 0)
		return -1;
	st_warn(notes, "stats transfers: %zu sizes (%.1f ms)", res->nrows,
		now_ms() - t);
	st_robust_warns_transfers(log, res->rows, res->nrows, p->out_stats);
	return 0;
}

/* How many rows of the CSV file PATH have a scan_number in R: *N.
 * Errors as st_table_read's, 65 without the column. */
static int scans_in_range(const char *path, const st_range *r, size_t *n,
			  st_error *err)
{
	static const char *const need[] = { "scan_number" };
	st_table t;
	int c, rc = -1;

	*n = 0;
	st_table_init(&t);
	if (st_table_read(&t, path, err) < 0 ||
	    st_table_require(&t, need, &c, 1, err) < 0)
		goto out;
	for (size_t i = 0; i < t.nrows; i++) {
		int64_t scan;

		if (st_num_parse_int(st_table_get(&t, i, c), &scan) == 0 &&
		    scan >= r->first && scan <= r->last)
			(*n)++;
	}
	rc = 0;
out:
	st_table_release(&t);
	return rc;
}

/* Leave out of EX (and IN) every size whose offload range selects no
 * scan of P->write_times or whose streaming range selects none of its H5
 * file's, with a warning naming the size and the range; RES->left_out
 * gets them, and P->out_stats/sizes_left_out.csv says so for the report.
 * 65 when no size is left. */
static int select_sizes(const st_analysis_paths *p, st_experiments *ex,
			struct exp_inputs *in, st_analysis_result *res,
			st_log *log, st_error *err)
{
	/* what each size lacks, found before anything is freed or moved:
	 * a read that fails leaves EX and IN as they were */
	const char **part = calloc(ex->n + 1, sizeof(*part));
	char *path = st_path_join(p->out_stats, "sizes_left_out.csv");
	size_t kept = 0;
	st_atomic_file af;
	int rc = -1;

	if (!part || !path) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < ex->n; i++) {
		size_t noff, nstr;

		if (scans_in_range(p->write_times, &ex->v[i].offload, &noff,
				   err) < 0 ||
		    scans_in_range(in->h5paths[i], &ex->v[i].streaming, &nstr,
				   err) < 0)
			goto out;
		part[i] = !noff ? "offload" : !nstr ? "streaming" : NULL;
		kept += part[i] == NULL;
	}
	for (size_t i = 0; i < ex->n; i++) {
		const st_experiment *e = &ex->v[i];
		bool off = part[i] && !strcmp(part[i], "offload");
		const st_range *r = off ? &e->offload : &e->streaming;

		if (part[i])
			st_warn(log, "size %" PRId64 ": the %s range %" PRId64 "-%"
				PRId64 " selects no scan of %s: the size is left "
				"out of the statistics and the report", e->size,
				part[i], r->first, r->last, off ? p->write_times :
				in->h5paths[i]);
	}
	if (!kept) {
		st_error_set(err, ST_EXIT_DATAERR, "no scan size has scans in "
			     "its ranges (said above): nothing to compare");
		goto out;
	}
	if (st_atomic_open(&af, path, err) < 0)
		goto out;
	fputs("size,part,first,last,file\n", af.fp);
	kept = 0;
	for (size_t i = 0; i < ex->n; i++) {
		st_experiment *e = &ex->v[i];

		if (part[i]) {
			bool off = !strcmp(part[i], "offload");
			const st_range *r = off ? &e->offload : &e->streaming;
			const char *file = off ? p->write_times : in->h5paths[i];
			char a[24], b[24], c[24];
			const char *row[5] = { a, part[i], b, c, file };

			snprintf(a, sizeof(a), "%" PRId64, e->size);
			snprintf(b, sizeof(b), "%" PRId64, r->first);
			snprintf(c, sizeof(c), "%" PRId64, r->last);
			st_csv_write_row(af.fp, 5, row);
			res->left_out++;
			free(e->h5);
			free(in->h5paths[i]);
			continue;
		}
		ex->v[kept] = *e;
		in->off[kept] = in->off[i];
		in->str[kept] = in->str[i];
		in->h5paths[kept] = in->h5paths[i];
		in->h5[kept] = (st_sized_path){ e->size, in->h5paths[kept] };
		kept++;
	}
	ex->n = in->n = kept;
	rc = st_atomic_commit(&af, err);
out:
	free(part);
	free(path);
	return rc;
}

int st_analysis_run(const st_analysis_paths *p, st_experiments *ex,
		    st_analysis_result *res, st_log *log, st_log *notes,
		    st_error *err)
{
	struct exp_inputs in = { 0 };
	int rc = -1;

	*res = (st_analysis_result){ 0 };
	if (exp_inputs_init(&in, ex, p, err) < 0 ||
	    st_mkdir_p(p->out_ft, err) < 0 || st_mkdir_p(p->out_st, err) < 0 ||
	    st_mkdir_p(p->out_stats, err) < 0 ||
	    select_sizes(p, ex, &in, res, log, err) < 0)
		goto out;
	rc = analysis_steps(p, ex, &in, res, log, notes, err);
	res->step_failed = rc < 0;
out:
	if (rc < 0) {
		free(res->rows);
		res->rows = NULL;
	}
	exp_inputs_release(&in);
	return rc;
}
