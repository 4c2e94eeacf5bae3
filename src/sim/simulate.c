/* simulate.c - the synthetic dataset of `streamtime simulate` (issue 9).
 *
 * The model, per part of the dataset (each with its own random stream):
 *
 * - Count jobs: 24 per size and scale unit, submitted in sessions of about
 *   a dozen jobs on working days of February to September 2023 (Pacific
 *   time, days next to a DST change left out), 20 s to 15 min apart.
 *   Queue and run times from st_sim_draw_queue/_elapsed.  Per size, a few
 *   jobs have no Distiller row, a NULL elapsed, a run into the 29:00 limit,
 *   or count a scan a second time.  Noise rows that `slurm jobs` drops:
 *   failed, timed out, cancelled, debug-QOS count jobs, transfer and
 *   notebook jobs, and the batch/extern steps of some jobs.  None of them
 *   has a Distiller row with an elapsed, so `merge transfer` gives the same
 *   rows with or without the filters.
 * - Distiller rows: one per counted scan/job pair (elapsed one second
 *   short of sacct's when Distiller polled it), plus scans never submitted
 *   (NULL slurm_id) and jobs sacct does not list, in no particular order.
 * - Streaming: four experiments (256, 512 and 1024 in October 2023, PDT;
 *   128 in January 2024, PST) acquired every 5/15/55/140 s in working
 *   hours; receiver times in whole seconds, sometimes in the Z form, with a
 *   fraction, one cell empty or one receiver late; a NERSC mtime latency
 *   later, listed in whole seconds of Pacific time.  A few scans lack
 *   their status files or their HDF5 file; a few are late (outliers).
 * - Offload: February 2024 (PST), 1024 first, every 200/60/20/10 s, one
 *   scan in sixteen lost, a scan just outside the ranges on either side.
 * - Save-time statistics: 20 timed runs per size and type, mean and std.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "streamtime/atomic.h"
#include "streamtime/simulate.h"
#include "streamtime/tz.h"

#define NS ST_NS_PER_SEC
#define US INT64_C(1000)
#define DAY INT64_C(86400)
#define EMPTY INT64_MIN            /* an empty receiver cell */
#define PACIFIC "America/Los_Angeles"

/* ---------------------------------------------------------------- PRNG */

uint64_t st_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void st_rng_seed(st_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t m = stream, s = seed ^ st_splitmix64(&m);

	for (int i = 0; i < 4; i++)
		r->s[i] = st_splitmix64(&s);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t st_rng_next(st_rng *r)
{
	uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double st_rng_uniform(st_rng *r)
{
	return (double)(st_rng_next(r) >> 11) * 0x1.0p-53;
}

int64_t st_rng_int(st_rng *r, int64_t lo, int64_t hi)
{
	uint64_t range = (uint64_t)hi - (uint64_t)lo + 1, x, floor;

	if (range == 0)                         /* the whole 64-bit range */
		return (int64_t)st_rng_next(r);
	floor = (0 - range) % range;            /* 2^64 mod range */
	do
		x = st_rng_next(r);
	while (x < floor);
	return (int64_t)((uint64_t)lo + x % range);
}

double st_rng_normal(st_rng *r)
{
	double u1 = 1.0 - st_rng_uniform(r), u2 = st_rng_uniform(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double st_rng_exponential(st_rng *r, double mean)
{
	return -mean * log(1.0 - st_rng_uniform(r));
}

void st_rng_shuffle(st_rng *r, void *base, size_t n, size_t size)
{
	unsigned char *b = base;

	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)st_rng_int(r, 0, (int64_t)i - 1);
		unsigned char *x = b + (i - 1) * size, *y = b + j * size;

		for (size_t k = 0; k < size && j != i - 1; k++) {
			unsigned char c = x[k];

			x[k] = y[k];
			y[k] = c;
		}
	}
}

static double uniform(st_rng *r, double lo, double hi)
{
	return lo + (hi - lo) * st_rng_uniform(r);
}

/* ---------------------------------------------------------------- model */

/* The paper's values: offload from its ncem_offload_times.csv, streaming
 * and file transfer from its Table 1 (without outliers), save and count
 * times from save_time_stats.csv, intervals from its scan times. */
static const st_sim_target targets[ST_SIM_NSIZES] = {
	{ .size = 128, .offload_mean = 2.73, .offload_sd = 0.58,
	  .latency_mean = 4.0, .latency_sd = 0.0, .interval = 5,
	  .offload_interval = 10, .transfer_mean = 52.0, .transfer_sd = 30.6,
	  .save_real = 0.2549, .save_blank = 0.0270, .count_real = 3.914,
	  .count_blank = 3.907, .files = 72 },
	{ .size = 256, .offload_mean = 7.93, .offload_sd = 0.64,
	  .latency_mean = 6.8, .latency_sd = 0.55, .interval = 15,
	  .offload_interval = 20, .transfer_mean = 92.3, .transfer_sd = 38.6,
	  .save_real = 0.9914, .save_blank = 0.0849, .count_real = 5.060,
	  .count_blank = 4.766, .files = 72 },
	{ .size = 512, .offload_mean = 33.17, .offload_sd = 1.12,
	  .latency_mean = 25.1, .latency_sd = 1.28, .interval = 55,
	  .offload_interval = 60, .transfer_mean = 138.5, .transfer_sd = 28.2,
	  .save_real = 4.034, .save_blank = 0.3336, .count_real = 11.358,
	  .count_blank = 9.936, .files = 72 },
	{ .size = 1024, .offload_mean = 149.37, .offload_sd = 7.77,
	  .latency_mean = 97.2, .latency_sd = 4.12, .interval = 140,
	  .offload_interval = 200, .transfer_mean = 442.6, .transfer_sd = 53.5,
	  .save_real = 16.80, .save_blank = 1.203, .count_real = 38.75,
	  .count_blank = 34.87, .files = 288 },
};

/* How the targets are reached.  Elapsed = floor + median * exp(sigma * N)
 * for 96 % of the jobs, floor + median * U(4, 12) for the slow rest; the
 * parameters were fitted so that the mean and std after IQR outlier
 * removal, plus the offload and minus the save overhead, are the paper's
 * file-transfer values.  Latency ~ N(mean + 0.5, sd) before the listing
 * floors it to whole seconds. */
static const struct model {
	double el_floor, el_median, el_sigma;
	double lat_sd;
} models[ST_SIM_NSIZES] = {
	{ 5, 38.0, 0.80, 0.2 },
	{ 20, 59.8, 0.66, 0.5 },
	{ 60, 48.3, 0.62, 1.25 },
	{ 230, 84.0, 0.66, 4.4 },
};

const st_sim_target *st_sim_calibration(int i)
{
	return i >= 0 && i < ST_SIM_NSIZES ? &targets[i] : NULL;
}

double st_sim_draw_elapsed(st_rng *r, int i)
{
	const struct model *m = &models[i];
	double v;

	if (st_rng_uniform(r) < 0.04)
		v = m->el_floor + m->el_median * uniform(r, 4, 12);
	else
		v = m->el_floor + m->el_median * exp(m->el_sigma * st_rng_normal(r));
	v = floor(v + 0.5);
	return v < 5 ? 5 : v > 1740 ? 1740 : v;
}

double st_sim_draw_queue(st_rng *r)
{
	double u = st_rng_uniform(r), v;

	if (u < 0.74) {
		v = floor(st_rng_exponential(r, 1.5));
		return v > 30 ? 30 : v;
	}
	if (u < 0.84)
		return (double)st_rng_int(r, 3, 30);
	if (u < 0.96)
		v = exp(uniform(r, log(30.0), log(600.0)));
	else if (u < 0.99)
		v = exp(uniform(r, log(600.0), log(2400.0)));
	else
		v = exp(uniform(r, log(2400.0), log(8 * 3600.0)));
	return floor(v + 0.5);
}

/* Round seconds to whole microseconds. */
static double round_us(double s)
{
	return floor(s * 1e6 + 0.5) / 1e6;
}

double st_sim_draw_offload(st_rng *r, int i)
{
	double v = targets[i].offload_mean + targets[i].offload_sd * st_rng_normal(r);

	return round_us(v < 0.5 ? 0.5 : v);
}

double st_sim_draw_latency(st_rng *r, int i, bool outlier)
{
	double mean = targets[i].latency_mean + 0.5;
	double v = mean + models[i].lat_sd * st_rng_normal(r);

	if (outlier)
		v += 2.0 + mean * uniform(r, 0.5, 1.5);
	return round_us(v < 1.0 ? 1.0 : v);
}

/* max(1, round(RATE * N)): every edge case shows up at scale 1. */
static size_t some(double rate, size_t n)
{
	size_t k = (size_t)(rate * (double)n + 0.5);

	return k ? k : 1;
}

/* ---------------------------------------------------------------- layout */

static int64_t next_hundred(int64_t n)
{
	return (n + 99) / 100 * 100;
}

int st_sim_experiments(unsigned scale, st_experiments *ex, st_error *err)
{
	int64_t k = scale ? scale : 1, next = 2101, first128, off;
	/* streamed in this order: 256, 512, 1024; then 128 */
	static const int order[3] = { 1, 2, 3 };
	static const int off_order[4] = { 3, 2, 1, 0 };

	if (st_experiments_alloc(ex, ST_SIM_NSIZES, PACIFIC, PACIFIC) < 0)
		goto oom;
	ex->n = ST_SIM_NSIZES;
	ex->max_elapsed = 29 * 60 * NS;
	for (int i = 0; i < ST_SIM_NSIZES; i++)
		ex->v[i].size = targets[i].size;
	for (int j = 0; j < 3; j++) {
		st_range *s = &ex->v[order[j]].streaming;

		s->first = next;
		s->last = next + 12 * k - 1;
		next = s->last + 1;
	}
	first128 = next_hundred(next) + 201;
	ex->v[0].streaming = (st_range){ first128, first128 + 14 * k - 1 };
	off = next_hundred(ex->v[0].streaming.last + 1) + 1;
	for (int j = 0; j < 4; j++) {
		st_range *o = &ex->v[off_order[j]].offload;

		o->first = off;
		o->last = off + 8 * k - 1;
		off = o->last + 1;
	}
	for (int i = 0; i < ST_SIM_NSIZES; i++) {
		char name[64];

		snprintf(name, sizeof(name), "scan_times_%" PRId64 "_%" PRId64 ".csv",
			 ex->v[i].streaming.first, ex->v[i].streaming.last);
		ex->v[i].h5 = strdup(name);
		if (!ex->v[i].h5)
			goto oom;
	}
	return 0;
oom:
	st_experiments_release(ex);
	return st_error_set(err, ST_EXIT_IOERR, "out of memory");
}

/* ---------------------------------------------------------------- names */

size_t st_sim_status_name(char *buf, size_t size, int receiver, int64_t scan)
{
	int n = snprintf(buf, size, "4dstem_rec_status_%d_scan_%" PRId64 ".json",
			 receiver, scan);

	return n < 0 ? 0 : (size_t)n;
}

size_t st_sim_data_name(char *buf, size_t size, int64_t scan, int index)
{
	int r = index % 4, j = index / 4;
	int n = snprintf(buf, size, "data_scan%010" PRId64 "_module%dto%d_dst%d"
			 "_file%d.data", scan, 4 * r, 4 * r + 3, j % 6, j / 6);

	return n < 0 ? 0 : (size_t)n;
}

size_t st_sim_h5_name(char *buf, size_t size, st_instant created,
		      const st_tz *pacific, int64_t distiller_id, int64_t scan,
		      const char *suffix)
{
	int64_t secs = created / NS - (created % NS < 0);
	int64_t local = secs + st_tz_offset_at(pacific, secs);
	int64_t days = local / DAY - (local % DAY < 0), tod = local - days * DAY;
	int64_t y;
	unsigned m, d;
	int n;

	st_civil_from_days(days, &y, &m, &d);
	n = snprintf(buf, size, "FOURD_%02d%02u%02u_%02d%02d_%05" PRId64 "_%05"
		     PRId64 "%s.h5", (int)(y % 100), m, d, (int)(tod / 3600),
		     (int)(tod / 60 % 60), distiller_id, scan, suffix ? suffix : "");
	return n < 0 ? 0 : (size_t)n;
}

/* ---------------------------------------------------------------- clocks */

static int64_t local_of(const st_tz *tz, int64_t t)
{
	return t + st_tz_offset_at(tz, t);
}

static int64_t utc_of(const st_tz *tz, int64_t local)
{
	return st_tz_local_to_utc(tz, local, NULL);
}

/* UTC second of local Y-M-D H:M in TZ. */
static int64_t at_local(const st_tz *tz, int y, unsigned m, unsigned d, int h,
			int mi)
{
	return utc_of(tz, st_days_from_civil(y, m, d) * DAY + h * 3600 + mi * 60);
}

/* The next working morning (09:00 local plus up to 30 min) after T. */
static int64_t next_morning(const st_tz *tz, st_rng *r, int64_t t)
{
	int64_t day = local_of(tz, t) / DAY + 1;

	return utc_of(tz, day * DAY + 9 * 3600 + st_rng_int(r, 0, 1800));
}

/* T moved on by DT seconds within working hours: past 18:00 local, the
 * acquisition goes on the next morning. */
static int64_t work_advance(const st_tz *tz, st_rng *r, int64_t t, int64_t dt)
{
	int64_t u = t + dt;

	if (local_of(tz, u) % DAY >= 18 * 3600)
		u = next_morning(tz, r, u);
	return u;
}

/* ---------------------------------------------------------------- data */

enum kind {
	/* count jobs that pass sacct's filters */
	K_OK, K_NODB, K_NULL, K_STUCK, K_RECOUNT,
	/* noise rows the filters drop */
	K_FAILED, K_TIMEOUT, K_CANCELLED, K_DEBUG, K_TRANSFER, K_JUPYTER,
};

struct job {
	int64_t submit, queue, elapsed;     /* UTC s, s, s */
	int64_t slurm_id, djob, scan;
	size_t order;
	int size_i;                         /* -1: no scan */
	unsigned char kind, steps, polled;
};

struct dbrow {
	int64_t id, slurm_id, elapsed;      /* slurm_id 0, elapsed -1: NULL */
};

enum { F_NO_CREATED = 1, F_NO_H5 = 2, F_OUTLIER = 4, F_ZFORM = 8,
       F_FRACTION = 16, F_EMPTY_CELL = 32, F_LAG = 64, F_ELECTRONS = 128,
       F_UNKNOWN = 256 };

struct scan {
	int64_t n, id;
	st_instant rec[4];                  /* EMPTY for an empty cell */
	st_instant first, last;             /* earliest receiver; last write */
	int size_i;
	unsigned flags;
};

struct sim {
	const st_sim_opts *o;
	st_tz *la;
	st_experiments ex;
	struct job *jobs;
	size_t njobs;
	struct dbrow *db[ST_SIM_NSIZES];
	size_t ndb[ST_SIM_NSIZES];
	struct scan *str;                   /* streamed, experiment by experiment */
	size_t nstr;
	size_t str_begin[ST_SIM_NSIZES + 1];/* per size index: [begin, end) */
	size_t str_end[ST_SIM_NSIZES];
	struct scan *off;                   /* write_times.csv rows */
	size_t noff;
	struct scan pending;                /* the scan being acquired */
	struct scan stray;                  /* an old test scan, no experiment */
	int64_t next_scan_id;
};

static int oom(st_error *err)
{
	return st_error_set(err, ST_EXIT_IOERR, "out of memory");
}

static int cmp_job(const void *a, const void *b)
{
	const struct job *x = a, *y = b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Is local day DAY far from a DST change (same offset two days later)? */
static bool dst_safe(const st_tz *tz, int64_t day)
{
	return st_tz_offset_at(tz, day * DAY) == st_tz_offset_at(tz, (day + 2) * DAY);
}

/* The jobs of the run, in random order: PER count jobs of each size (a few
 * of them without a Distiller row, with null fields, stuck, or recounts)
 * and the noise around them (failed, timed out, cancelled, debug,
 * transfer and Jupyter jobs), in S->jobs[S->njobs].  Returns 0 or -1. */
static int job_kinds(struct sim *s, st_rng *r, size_t per, st_error *err)
{
	static const unsigned char noise_kind[6] = {
		K_FAILED, K_TIMEOUT, K_CANCELLED, K_DEBUG, K_TRANSFER, K_JUPYTER };
	static const double noise_rate[6] = { 0.02, 0.01, 0.01, 0.01, 0.03, 0.02 };
	static const unsigned char skind[4] = { K_NODB, K_NULL, K_STUCK,
						K_RECOUNT };
	size_t total = 4 * per, n = 0, cap = total, nnoise[6];

	for (int i = 0; i < 6; i++) {
		nnoise[i] = some(noise_rate[i], total);
		cap += nnoise[i];
	}
	s->jobs = calloc(cap, sizeof(*s->jobs));
	if (!s->jobs)
		return oom(err);
	for (int i = 0; i < ST_SIM_NSIZES; i++) {
		size_t special[4] = { some(0.04, per), some(0.03, per),
				      some(0.02, per), some(0.04, per) };
		size_t j = 0;

		for (int t = 0; t < 4; t++)
			for (size_t m = 0; m < special[t]; m++, j++)
				s->jobs[n + j] = (struct job){ .kind = skind[t], .size_i = i };
		for (; j < per; j++)
			s->jobs[n + j] = (struct job){ .kind = K_OK, .size_i = i };
		n += per;
	}
	for (int t = 0; t < 6; t++)
		for (size_t m = 0; m < nnoise[t]; m++)
			s->jobs[n++] = (struct job){
				.kind = noise_kind[t],
				.size_i = noise_kind[t] == K_JUPYTER ? -1 :
					  (int)st_rng_int(r, 0, ST_SIM_NSIZES - 1) };
	s->njobs = n;
	st_rng_shuffle(r, s->jobs, n, sizeof(*s->jobs));
	return 0;
}

/* Submit times: the shuffled jobs in consecutive chunks, one working-day
 * session each (on days clear of DST changes), 20 s to 15 min apart. */
static void job_sessions(struct sim *s, st_rng *r)
{
	int64_t day0 = st_days_from_civil(2023, 2, 1);
	size_t n = s->njobs, nsessions = n / 12 > 8 ? n / 12 : 8;

	for (size_t q = 0; q < nsessions; q++) {
		size_t a = q * n / nsessions, b = (q + 1) * n / nsessions;
		int64_t day = day0 + st_rng_int(r, 0, 239), t;

		while (!dst_safe(s->la, day))
			day += 3;
		t = utc_of(s->la, day * DAY + 8 * 3600 + st_rng_int(r, 0, 8 * 3600));
		for (size_t j = a; j < b; j++) {
			s->jobs[j].submit = t;
			s->jobs[j].order = j;
			t += st_rng_int(r, 20, 900);
		}
	}
}

/* What each job did: its queue time and elapsed time by kind, whether the
 * collector polled it while running, and the batch and extern steps of
 * NSTEPS count jobs, wherever they fall. */
static void job_runs(struct sim *s, st_rng *r, size_t nsteps)
{
	size_t n = s->njobs, marked = 0;

	for (size_t j = 0; j < n; j++) {
		struct job *jb = &s->jobs[j];

		jb->queue = (int64_t)st_sim_draw_queue(r);
		switch (jb->kind) {
		case K_OK:
		case K_NODB:
		case K_NULL:
		case K_RECOUNT:
		case K_DEBUG:
			jb->elapsed = (int64_t)st_sim_draw_elapsed(r, jb->size_i);
			break;
		case K_STUCK:
			jb->elapsed = st_rng_int(r, 1700, 1799);
			break;
		case K_FAILED:
			jb->elapsed = st_rng_int(r, 3, 90);
			break;
		case K_TIMEOUT:
			jb->elapsed = 1800 + st_rng_int(r, 0, 30);
			break;
		case K_CANCELLED:
			jb->queue = st_rng_int(r, 30, 3600);   /* until cancelled */
			jb->elapsed = 0;
			break;
		case K_TRANSFER:
			jb->elapsed = st_rng_int(r, 5, 180);
			break;
		default:
			jb->elapsed = st_rng_int(r, 300, 14000);
			break;
		}
		jb->polled = (jb->kind == K_OK || jb->kind == K_RECOUNT) &&
			     st_rng_uniform(r) < 0.15;
	}
	while (marked < nsteps) {
		struct job *jb = &s->jobs[st_rng_int(r, 0, (int64_t)n - 1)];

		if (jb->kind == K_OK && !jb->steps) {
			jb->steps = 1;
			marked++;
		}
	}
}

/* The jobs in submit order with their ids: Slurm ids with other users'
 * jobs between ours, Distiller job ids, and scan numbers (a recount
 * counts its size's previous scan again). */
static void job_ids(struct sim *s, st_rng *r)
{
	int64_t last_scan[ST_SIM_NSIZES] = { 0 }, scan = 1000, djob = 2000;
	int64_t slurm_id;

	qsort(s->jobs, s->njobs, sizeof(*s->jobs), cmp_job);
	slurm_id = 5000000 + st_rng_int(r, 0, 999999);
	for (size_t j = 0; j < s->njobs; j++) {
		struct job *jb = &s->jobs[j];

		slurm_id += st_rng_int(r, 2, 4000);     /* id + 1 is never a job */
		jb->slurm_id = slurm_id;
		if (jb->kind != K_JUPYTER)
			jb->djob = djob += st_rng_int(r, 1, 3);
		if (jb->kind == K_JUPYTER || jb->kind == K_TRANSFER)
			continue;
		if (jb->kind == K_RECOUNT && last_scan[jb->size_i]) {
			jb->scan = last_scan[jb->size_i];
			continue;
		}
		jb->scan = scan += st_rng_int(r, 1, 4);
		last_scan[jb->size_i] = scan;
	}
	s->next_scan_id = scan;
}

/* The Slurm jobs of the run, 24 count jobs per size and scale unit. */
static int gen_jobs(struct sim *s, st_rng *r, st_error *err)
{
	size_t per = 24 * s->o->scale;

	if (job_kinds(s, r, per, err) < 0)
		return -1;
	job_sessions(s, r);
	job_runs(s, r, some(0.05, per * 4));
	job_ids(s, r);
	return 0;
}

static int push_db(struct sim *s, int i, size_t *cap, struct dbrow row,
		   st_error *err)
{
	if (s->ndb[i] == cap[i]) {
		size_t c = cap[i] ? 2 * cap[i] : 64;
		struct dbrow *v = realloc(s->db[i], c * sizeof(*v));

		if (!v)
			return oom(err);
		s->db[i] = v;
		cap[i] = c;
	}
	s->db[i][s->ndb[i]++] = row;
	return 0;
}

static int gen_db(struct sim *s, st_rng *r, st_error *err)
{
	size_t cap[ST_SIM_NSIZES] = { 0 }, per = 24 * (size_t)s->o->scale;

	for (size_t j = 0; j < s->njobs; j++) {
		const struct job *jb = &s->jobs[j];
		struct dbrow row = { jb->scan, jb->slurm_id, -1 };

		switch (jb->kind) {
		case K_OK:
		case K_RECOUNT:
			row.elapsed = jb->elapsed - (jb->polled && jb->elapsed > 1);
			break;
		case K_STUCK:
			row.elapsed = jb->elapsed;
			break;
		case K_NULL:
		case K_FAILED:
		case K_TIMEOUT:
		case K_CANCELLED:
			break;
		default:
			continue;
		}
		if (push_db(s, jb->size_i, cap, row, err) < 0)
			return -1;
	}
	for (int i = 0; i < ST_SIM_NSIZES; i++) {
		size_t never = some(0.05, per), orphans = some(0.02, per);

		for (size_t m = 0; m < never; m++) {
			struct dbrow row = { s->next_scan_id += st_rng_int(r, 1, 4), 0, -1 };

			if (push_db(s, i, cap, row, err) < 0)
				return -1;
		}
		for (size_t m = 0; m < orphans; m++) {
			const struct job *jb = &s->jobs[st_rng_int(r, 0, (int64_t)s->njobs - 1)];
			struct dbrow row = { s->next_scan_id += st_rng_int(r, 1, 4),
					     jb->slurm_id + 1, st_rng_int(r, 2, 9) };

			if (push_db(s, i, cap, row, err) < 0)
				return -1;
		}
		st_rng_shuffle(r, s->db[i], s->ndb[i], sizeof(*s->db[i]));
	}
	return 0;
}

/* Mark COUNT[t] distinct random scans of V (N of them) with FLAG[t].  The
 * first scan of an experiment stays plain: the first row of every H5 file
 * joins and has a whole-second latency. */
static int mark(st_rng *r, struct scan *v, size_t n, const size_t *count,
		const unsigned *flag, int nflags, st_error *err)
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx)), p = 0;

	if (!idx)
		return oom(err);
	for (size_t i = 0; i + 1 < n; i++)
		idx[i] = i + 1;
	if (n > 0)
		n--;
	st_rng_shuffle(r, idx, n, sizeof(*idx));
	for (int t = 0; t < nflags; t++)
		for (size_t m = 0; m < count[t] && p < n; m++)
			v[idx[p++]].flags |= flag[t];
	free(idx);
	return 0;
}

/* Receiver times of a scan whose acquisition started at second T: one
 * receiver (the earliest) at T, the others at T or a second later. */
static void receivers_at(st_rng *r, struct scan *sc, int64_t t, double late)
{
	int m = (int)st_rng_int(r, 0, 3);

	for (int i = 0; i < 4; i++)
		sc->rec[i] = (t + (i != m && st_rng_uniform(r) < late)) * NS;
	if (sc->flags & F_LAG)
		sc->rec[(m + 1 + st_rng_int(r, 0, 2)) % 4] +=
			(int64_t)targets[sc->size_i].interval * NS;
	if (sc->flags & F_FRACTION)
		sc->rec[m] -= st_rng_int(r, 100000, 900000) * US;
	if (sc->flags & F_EMPTY_CELL)
		sc->rec[(m + 1 + st_rng_int(r, 0, 2)) % 4] = EMPTY;
	sc->first = INT64_MAX;
	for (int i = 0; i < 4; i++)
		if (sc->rec[i] != EMPTY && sc->rec[i] < sc->first)
			sc->first = sc->rec[i];
}

static int gen_streaming(struct sim *s, st_rng *r, st_error *err)
{
	static const int order[ST_SIM_NSIZES] = { 1, 2, 3, 0 };
	size_t total = 0, p = 0;
	int64_t t = 0, id = s->next_scan_id + st_rng_int(r, 50, 150);

	for (int i = 0; i < ST_SIM_NSIZES; i++)
		total += (size_t)(s->ex.v[i].streaming.last - s->ex.v[i].streaming.first + 1);
	s->str = calloc(total, sizeof(*s->str));
	if (!s->str)
		return oom(err);
	for (int j = 0; j < ST_SIM_NSIZES; j++) {
		int i = order[j];
		const st_range *rg = &s->ex.v[i].streaming;
		size_t n = (size_t)(rg->last - rg->first + 1);
		size_t count[9] = { some(0.02, n), some(0.01, n), some(0.03, n),
				    some(0.03, n), some(0.03, n), some(0.02, n),
				    some(0.03, n), some(0.05, n), 1 };
		static const unsigned flag[9] = { F_NO_CREATED, F_NO_H5, F_OUTLIER,
			F_ZFORM, F_FRACTION, F_EMPTY_CELL, F_LAG, F_ELECTRONS,
			F_UNKNOWN };
		struct scan *v = s->str + p;

		if (j == 0)
			t = at_local(s->la, 2023, 10, 5, 9, 0) + st_rng_int(r, 0, 1800);
		else if (j == 1)
			t = work_advance(s->la, r, t, st_rng_int(r, 1800, 3600));
		else if (j == 2)
			t = next_morning(s->la, r, t);
		else
			t = at_local(s->la, 2024, 1, 18, 9, 0) + st_rng_int(r, 0, 1800);
		for (size_t m = 0; m < n; m++)
			v[m] = (struct scan){ .n = rg->first + (int64_t)m, .size_i = i };
		/* the flags are exclusive while there are scans enough */
		if (mark(r, v, n, count, flag, 9, err) < 0)
			return -1;
		s->str_begin[i] = p;
		for (size_t m = 0; m < n; m++) {
			struct scan *sc = &v[m];
			int64_t dt = (int64_t)targets[i].interval;

			receivers_at(r, sc, t, 0.2);
			sc->last = sc->first + (st_instant)(st_sim_draw_latency(
				r, i, sc->flags & F_OUTLIER) * 1e6 + 0.5) * US;
			sc->id = id++;
			if (st_rng_uniform(r) < 0.05)
				dt += st_rng_int(r, -1, 1);
			if (st_rng_uniform(r) < 0.02)
				dt += st_rng_int(r, 120, 1800);   /* a break */
			t = work_advance(s->la, r, t, dt);
		}
		p += n;
		s->str_end[i] = p;
	}
	s->nstr = p;
	/* a test scan of an earlier session, in no experiment */
	s->stray = (struct scan){ .n = 7, .size_i = 0 };
	receivers_at(r, &s->stray, at_local(s->la, 2023, 9, 28, 15, 14), 0.5);
	return 0;
}

static int gen_offload(struct sim *s, st_rng *r, st_error *err)
{
	static const int order[ST_SIM_NSIZES] = { 3, 2, 1, 0 };
	int64_t first = s->ex.v[3].offload.first, last = s->ex.v[0].offload.last;
	size_t cap = (size_t)(last - first + 3), p = 0;
	int64_t t = at_local(s->la, 2024, 2, 20, 9, 0) + st_rng_int(r, 0, 1800);

	s->off = calloc(cap, sizeof(*s->off));
	if (!s->off)
		return oom(err);
	/* a scan just before the ranges, aborted and written much later */
	s->off[p] = (struct scan){ .n = first - 1, .size_i = 3 };
	receivers_at(r, &s->off[p], t, 0.5);
	s->off[p].last = s->off[p].first + st_rng_int(r, 400000000, 900000000) * US;
	p++;
	t = work_advance(s->la, r, t, st_rng_int(r, 900, 1800));
	for (int j = 0; j < ST_SIM_NSIZES; j++) {
		int i = order[j];
		const st_range *rg = &s->ex.v[i].offload;
		size_t n = (size_t)(rg->last - rg->first + 1), nmiss = (n + 8) / 16;
		unsigned char *miss = calloc(n, 1);

		if (!miss)
			return oom(err);
		for (size_t m = 0; m < nmiss; m++) {
			size_t q;

			do
				q = (size_t)st_rng_int(r, 0, (int64_t)n - 1);
			while (miss[q]);
			miss[q] = 1;
		}
		for (size_t m = 0; m < n; m++) {
			struct scan *sc = &s->off[p];

			if (!miss[m]) {
				*sc = (struct scan){ .n = rg->first + (int64_t)m, .size_i = i };
				receivers_at(r, sc, t, 0.5);
				sc->last = sc->first + (st_instant)(st_sim_draw_offload(r, i) *
								    1e6 + 0.5) * US;
				p++;
			}
			t = work_advance(s->la, r, t, (int64_t)targets[i].offload_interval);
		}
		free(miss);
		t = work_advance(s->la, r, t, st_rng_int(r, 300, 900));
	}
	/* and one just after, that also turns up in the created times */
	s->off[p] = (struct scan){ .n = last + 1, .size_i = 0 };
	receivers_at(r, &s->off[p], t, 0.5);
	s->off[p].last = s->off[p].first + st_rng_int(r, 400000000, 900000000) * US;
	p++;
	s->noff = p;
	t = work_advance(s->la, r, t, st_rng_int(r, 60, 120));
	/* the scan the receivers are writing now: receiver 3 not done */
	s->pending = (struct scan){ .n = last + 2, .size_i = 0 };
	receivers_at(r, &s->pending, t, 0.5);
	s->pending.rec[3] = EMPTY;
	s->pending.last = (t + 1) * NS;
	return 0;
}

/* ---------------------------------------------------------------- writing */

/* "YYYY-MM-DDTHH:MM:SS[.f]+00:00", or with Z. */
static const char *utc(st_instant t, bool z, char *buf, size_t size)
{
	size_t n = st_time_format_utc(t, buf, size);

	if (z && n >= 6 && n - 6 + 2 <= size)
		strcpy(buf + n - 6, "Z");
	return buf;
}

/* Naive Pacific time, with T (sacct) or a blank (the H5 listing). */
static const char *naive(const st_tz *tz, int64_t secs, char sep, char *buf,
			 size_t size)
{
	st_time_format_naive(secs * NS, tz, buf, size);
	buf[10] = sep;
	return buf;
}

static const char *hms(int64_t secs, char *buf, size_t size)
{
	st_duration_format_hms(secs * NS, buf, size);
	return buf;
}

enum { O_EXPERIMENTS, O_JOBS, O_DB0, O_WT = O_DB0 + ST_SIM_NSIZES, O_SAVE,
       O_SAVE_TIMES, O_CREATED, O_H50, O_N = O_H50 + ST_SIM_NSIZES };

static int write_experiments(const struct sim *s, FILE *f)
{
	fprintf(f, "{\n  \"synthetic\": true,\n"
		"  \"tz\": \"%s\",\n  \"slurm_tz\": \"%s\",\n"
		"  \"max_elapsed\": \"29:00\",\n  \"experiments\": [\n",
		s->ex.tz, s->ex.slurm_tz);
	for (size_t i = 0; i < s->ex.n; i++) {
		const st_experiment *e = &s->ex.v[i];

		fprintf(f, "    {\"size\": %" PRId64 ", \"offload\": [%" PRId64 ", %"
			PRId64 "], \"streaming\": [%" PRId64 ", %" PRId64 "], "
			"\"h5\": \"%s\"}%s\n", e->size, e->offload.first,
			e->offload.last, e->streaming.first, e->streaming.last,
			e->h5, i + 1 < s->ex.n ? "," : "");
	}
	return fputs("  ]\n}\n", f) < 0 ? -1 : 0;
}

/* One row of slurm_job_info.csv, its fields as written but for the
 * times. */
struct job_fields {
	const char *name, *id, *limit;
	int64_t elapsed, submit;        /* seconds; Submit naive in the zone */
	const char *start, *end, *nodes, *qos, *user, *exit_code;
};

static void job_row(FILE *f, const st_tz *tz, const struct job_fields *r)
{
	char a[40], b[40];

	fprintf(f, "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", r->name, r->id,
		r->limit, hms(r->elapsed, a, sizeof(a)),
		naive(tz, r->submit, 'T', b, sizeof(b)), r->start, r->end,
		r->nodes, r->qos, r->user, r->exit_code);
}

static size_t write_jobs(const struct sim *s, FILE *f)
{
	size_t noise = 0;

	fputs("Job Name,Job ID,Timelimit,Elapsed,Submit,Start,End,ReqNodes,QOS,"
	      "User,ExitCode\n", f);
	for (size_t j = 0; j < s->njobs; j++) {
		const struct job *jb = &s->jobs[j];
		char name[64], id[32], step[48], start[40], end[40];
		int64_t st = jb->submit + jb->queue, en = st + jb->elapsed;
		const char *nodes = "4", *qos = "realtime_m4242", *user = "dstlr";
		const char *code = "0:0", *limit = "00:30:00";

		snprintf(name, sizeof(name), "distiller-count-%" PRId64, jb->djob);
		snprintf(id, sizeof(id), "%" PRId64, jb->slurm_id);
		naive(s->la, st, 'T', start, sizeof(start));
		naive(s->la, en, 'T', end, sizeof(end));
		switch (jb->kind) {
		case K_FAILED:
			code = "1:0";
			break;
		case K_TIMEOUT:
			code = "0:15";
			break;
		case K_CANCELLED:
			strcpy(start, "Unknown");
			break;
		case K_DEBUG:
			nodes = "1";
			qos = "debug";
			break;
		case K_TRANSFER:
			snprintf(name, sizeof(name), "distiller-transfer-%" PRId64,
				 jb->djob);
			nodes = "1";
			qos = "xfer";
			break;
		case K_JUPYTER:
			strcpy(name, "jupyter");
			nodes = "1";
			qos = "interactive";
			user = "alice";
			limit = "04:00:00";
			break;
		default:
			break;
		}
		noise += jb->kind >= K_FAILED;
		job_row(f, s->la, &(struct job_fields){
				name, id, limit, jb->elapsed, jb->submit, start,
				end, nodes, qos, user, code });
		if (!jb->steps)
			continue;
		snprintf(step, sizeof(step), "%s.batch", id);
		job_row(f, s->la, &(struct job_fields){
				"batch", step, "", jb->elapsed, jb->submit, start,
				end, "1", "", "", "0:0" });
		snprintf(step, sizeof(step), "%s.extern", id);
		job_row(f, s->la, &(struct job_fields){
				"extern", step, "", jb->elapsed, jb->submit, start,
				end, "4", "", "", "0:0" });
		noise += 2;
	}
	return noise;
}

static void write_db(const struct sim *s, int i, FILE *f)
{
	fputs("id,slurm_id,elapsed\n", f);
	for (size_t j = 0; j < s->ndb[i]; j++) {
		const struct dbrow *d = &s->db[i][j];
		char sid[24] = "", el[40] = "";

		if (d->slurm_id)
			snprintf(sid, sizeof(sid), "%" PRId64, d->slurm_id);
		if (d->elapsed >= 0)
			hms(d->elapsed, el, sizeof(el));
		fprintf(f, "%" PRId64 ",%s,%s\n", d->id, sid, el);
	}
}

/* Receiver cells: "+00:00" form, Z with ZFORM, empty for EMPTY. */
static void receiver_cells(FILE *f, const struct scan *sc, bool zform)
{
	char buf[48];

	for (int i = 0; i < 4; i++)
		fprintf(f, ",%s", sc->rec[i] == EMPTY ? "" :
			utc(sc->rec[i], zform, buf, sizeof(buf)));
}

static void write_write_times(const struct sim *s, FILE *f)
{
	char buf[48];

	fputs("scan_number,time0,time1,time2,time3,time_last_written\n", f);
	for (size_t j = 0; j < s->noff; j++) {
		fprintf(f, "%" PRId64, s->off[j].n);
		receiver_cells(f, &s->off[j], false);
		fprintf(f, ",%s\n", utc(s->off[j].last, false, buf, sizeof(buf)));
	}
}

/* Mean and std (n - 1) of V[0..N). */
static void mean_std(const double *v, int n, double *mean, double *sd)
{
	double m = 0, q = 0;

	for (int i = 0; i < n; i++)
		m += v[i];
	m /= n;
	for (int i = 0; i < n; i++)
		q += (v[i] - m) * (v[i] - m);
	*mean = m;
	*sd = sqrt(q / (n - 1));
}

/* The scan a save-time record RUN (0..19) of size I and type REAL is
 * filed under in save_times.json, by the paper's map (savetimes.h): Real
 * scans 14..29 take the sizes in turn, five runs each; Blank scans 93..96
 * one a size, all twenty runs. */
static int save_scan(int i, int real, int run)
{
	return real ? 14 + i + 4 * (run / 5) : 93 + i;
}

/* The paper timed 20 counts per size and type (Real data, Blank frames):
 * total = count + save + the rest; the table holds their mean and std, and
 * TIMES (save_times.json) the records themselves, as the counting jobs
 * write them, so that the statistics can be made again from them. */
static void write_save_stats(st_rng *r, FILE *f, FILE *times)
{
	enum { RUNS = 20 };
	/* [size][real][run]: the records, written per scan after the draws */
	static double rec[ST_SIM_NSIZES][2][RUNS][3];

	fputs("Size,Type,Stat,total_time,count_time,save_time\n", f);
	for (int i = 0; i < ST_SIM_NSIZES; i++) {
		const st_sim_target *t = &targets[i];

		for (int real = 1; real >= 0; real--) {
			double tot[RUNS], cnt[RUNS], sav[RUNS], m[3], sd[3];
			double c = real ? t->count_real : t->count_blank;
			double sv = real ? t->save_real : t->save_blank;
			double rest = 0.07 * sqrt((double)t->size / 128);

			for (int k = 0; k < RUNS; k++) {
				cnt[k] = c * (1 + 0.02 * st_rng_normal(r));
				sav[k] = sv * (1 + 0.03 * st_rng_normal(r));
				tot[k] = cnt[k] + sav[k] + rest * (1 + 0.1 * st_rng_normal(r));
			}
			for (int k = 0; k < RUNS; k++) {
				rec[i][real][k][0] = tot[k];
				rec[i][real][k][1] = cnt[k];
				rec[i][real][k][2] = sav[k];
			}
			mean_std(tot, RUNS, &m[0], &sd[0]);
			mean_std(cnt, RUNS, &m[1], &sd[1]);
			mean_std(sav, RUNS, &m[2], &sd[2]);
			fprintf(f, "%" PRId64 ",%s,mean,%.15g,%.15g,%.15g\n", t->size,
				real ? "Real" : "Blank", m[0], m[1], m[2]);
			fprintf(f, "%" PRId64 ",%s,std,%.15g,%.15g,%.15g\n", t->size,
				real ? "Real" : "Blank", sd[0], sd[1], sd[2]);
		}
	}
	/* scans in ascending order, each with its runs in the order drawn */
	fputs("{", times);
	for (int scan = 14, nscans = 0; scan <= 96; scan++) {
		int n = 0;

		for (int i = 0; i < ST_SIM_NSIZES; i++)
			for (int real = 0; real < 2; real++)
				for (int k = 0; k < RUNS; k++) {
					const double *v = rec[i][real][k];

					if (save_scan(i, real, k) != scan)
						continue;
					if (n == 0)
						fprintf(times, "%s\n  \"%05d\": [",
							nscans++ ? "," : "", scan);
					fprintf(times, "%s\n    {\"count_time\": %.17g, "
						"\"total_time\": %.17g, "
						"\"save_time\": %.17g, \"image\": "
						"\"simulated\"}", n++ ? "," : "", v[1],
						v[0], v[2]);
				}
		if (n)
			fputs("\n  ]", times);
	}
	fputs("\n}\n", times);
}

static int cmp_scan_n(const void *a, const void *b)
{
	const struct scan *const *x = a, *const *y = b;

	return (*x)->n < (*y)->n ? -1 : (*x)->n > (*y)->n;
}

static int write_created(const struct sim *s, FILE *f, size_t *rows,
			 st_error *err)
{
	const struct scan **v = malloc((s->nstr + 2) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return oom(err);
	v[n++] = &s->stray;
	for (size_t j = 0; j < s->nstr; j++)
		if (!(s->str[j].flags & F_NO_CREATED))
			v[n++] = &s->str[j];
	v[n++] = &s->off[s->noff - 1];
	qsort(v, n, sizeof(*v), cmp_scan_n);
	fputs("scan_number,time0,time1,time2,time3\n", f);
	for (size_t j = 0; j < n; j++) {
		fprintf(f, "%" PRId64, v[j]->n);
		receiver_cells(f, v[j], v[j]->flags & F_ZFORM);
		fputc('\n', f);
	}
	free(v);
	*rows = n;
	return 0;
}

static size_t write_h5_times(const struct sim *s, int i, FILE *f)
{
	size_t rows = 0;

	fputs("distiller_id,scan_number,datetime\n", f);
	for (size_t j = s->str_begin[i]; j < s->str_end[i]; j++) {
		const struct scan *sc = &s->str[j];
		char buf[48];

		if (sc->flags & F_NO_H5)
			continue;
		/* the listing shows whole seconds */
		fprintf(f, "%05" PRId64 ",%" PRId64 ",%s\n", sc->id, sc->n,
			naive(s->la, sc->last / NS, ' ', buf, sizeof(buf)));
		rows++;
	}
	return rows;
}

/* ---------------------------------------------------------------- raw dirs */

/* Create NAME in directory DFD holding LEN bytes of DATA, with mtime
 * MTIME.  Content goes through "NAME.tmp" and a rename, so no reader
 * sees a partial status file. */
static int put_file(int dfd, const char *dir, const char *name,
		    const char *data, size_t len, st_instant mtime,
		    st_error *err)
{
	char tmp[300];
	const char *target = name;
	struct timespec ts[2];
	int fd;

	if (len) {
		snprintf(tmp, sizeof(tmp), "%s.tmp", name);
		target = tmp;
	}
	fd = openat(dfd, target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return st_error_set(err, ST_EXIT_CANTCREAT, "cannot create %s/%s: %s",
				    dir, target, strerror(errno));
	ts[0].tv_sec = ts[1].tv_sec = mtime / NS;
	ts[0].tv_nsec = ts[1].tv_nsec = mtime % NS;
	if ((len && write(fd, data, len) != (ssize_t)len) || futimens(fd, ts) != 0) {
		st_error_set(err, ST_EXIT_IOERR, "cannot write %s/%s: %s", dir,
			     target, strerror(errno));
		close(fd);
		unlinkat(dfd, target, 0);
		return -1;
	}
	if (close(fd) != 0 || (len && renameat(dfd, tmp, dfd, name) != 0)) {
		st_error_set(err, ST_EXIT_IOERR, "cannot write %s/%s: %s", dir,
			     name, strerror(errno));
		unlinkat(dfd, target, 0);
		return -1;
	}
	return 0;
}

static int open_dir(const char *dir, st_error *err)
{
	int fd;

	if (st_mkdir_p(dir, err) < 0)
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return st_error_set(err, ST_EXIT_CANTCREAT, "cannot open %s: %s",
				    dir, strerror(errno));
	return fd;
}

/* The status files and data files of one scan, as the receivers leave
 * them.  The data files' mtimes are spread over the offload, the newest
 * at time_last_written; status files are last rewritten at the end. */
static int put_scan(int dfd, const char *dir, st_rng *r, const struct scan *sc,
		    int files, const char *progress, size_t *count, st_error *err)
{
	char name[128], json[256], t[48], uuid[40];
	uint64_t a = st_rng_next(r), b = st_rng_next(r);

	snprintf(uuid, sizeof(uuid), "%08" PRIx64 "-%04" PRIx64 "-4%03" PRIx64
		 "-%04" PRIx64 "-%012" PRIx64, a >> 32, (a >> 16) & 0xffff,
		 a & 0xfff, (b >> 48 & 0x3fff) | 0x8000, b & 0xffffffffffff);
	for (int i = 0; i < 4; i++) {
		double u = st_rng_uniform(r);
		int len;

		if (sc->rec[i] == EMPTY)
			continue;
		utc(sc->rec[i], u < 0.1, t, sizeof(t));
		if (u >= 0.1 && u < 0.15)
			strcat(t, "+00:00");     /* the doubled offset of real files */
		len = snprintf(json, sizeof(json), "{\"time\": \"%s\", "
			       "\"last_scan_number\": %" PRId64 ", \"progress\": "
			       "%s, \"UUID\": \"%s\"}\n", t, sc->n,
			       progress, uuid);
		st_sim_status_name(name, sizeof(name), i, sc->n);
		if (put_file(dfd, dir, name, json, (size_t)len, sc->last, err) < 0)
			return -1;
		(*count)++;
	}
	for (int k = 0; k < files; k++) {
		st_instant m = sc->first + (sc->last - sc->first) * (k + 1) / files;

		st_sim_data_name(name, sizeof(name), sc->n, k);
		if (put_file(dfd, dir, name, NULL, 0, m, err) < 0)
			return -1;
		(*count)++;
	}
	return 0;
}

static int write_acquisition(const struct sim *s, st_rng *r, size_t *count,
			     st_error *err)
{
	const char *dir = s->o->acquisition;
	int dfd = open_dir(dir, err), rc = -1;

	if (dfd < 0)
		return -1;
	for (size_t j = 0; j < s->noff; j++) {
		const struct scan *sc = &s->off[j];
		int files = s->o->files_per_scan ? s->o->files_per_scan :
			    targets[sc->size_i].files;

		if (put_scan(dfd, dir, r, sc, files, "100", count, err) < 0)
			goto out;
	}
	if (put_scan(dfd, dir, r, &s->pending, 1, "62.5", count, err) < 0)
		goto out;
	/* the streamed scans: status files only (their data went straight
	 * to NERSC), each stamped when its last receiver reported; for
	 * collect receivers --no-data, the chain's created times */
	for (size_t j = 0; j < s->nstr; j++) {
		struct scan sc = s->str[j];

		if (sc.flags & F_NO_CREATED)
			continue;
		sc.last = sc.first;
		for (int i = 0; i < 4; i++)
			if (sc.rec[i] != EMPTY && sc.rec[i] > sc.last)
				sc.last = sc.rec[i];
		if (put_scan(dfd, dir, r, &sc, 0, "100", count, err) < 0)
			goto out;
	}
	rc = 0;
out:
	close(dfd);
	return rc;
}

static int write_counted(const struct sim *s, st_rng *r, size_t *count,
			 st_error *err)
{
	const char *dir = s->o->counted;
	int dfd = open_dir(dir, err), rc = -1;

	if (dfd < 0)
		return -1;
	for (size_t j = 0; j < s->nstr; j++) {
		const struct scan *sc = &s->str[j];
		char name[128];

		if (sc->flags & F_NO_H5)
			continue;
		st_sim_h5_name(name, sizeof(name), sc->first, s->la, sc->id, sc->n,
			       NULL);
		if (put_file(dfd, dir, name, NULL, 0, sc->last, err) < 0)
			goto out;
		(*count)++;
		if (sc->flags & F_ELECTRONS) {
			st_sim_h5_name(name, sizeof(name), sc->first, s->la, sc->id,
				       sc->n, "_electrons");
			if (put_file(dfd, dir, name, NULL, 0,
				     sc->last + st_rng_int(r, 1, 5) * NS, err) < 0)
				goto out;
			(*count)++;
		}
		if (sc->flags & F_UNKNOWN) {
			/* counted by hand, outside Distiller: no id */
			st_sim_h5_name(name, sizeof(name), sc->first, s->la, 0, sc->n,
				       NULL);
			if (put_file(dfd, dir, name, NULL, 0,
				     sc->last + st_rng_int(r, 60, 600) * NS, err) < 0)
				goto out;
			(*count)++;
		}
	}
	rc = 0;
out:
	close(dfd);
	return rc;
}

/* ---------------------------------------------------------------- driver */

int st_sim_check_empty(const char *path, st_error *err)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	bool empty = true;

	if (stat(path, &st) != 0)
		return errno == ENOENT ? 0 :
		       st_error_set(err, ST_EXIT_CANTCREAT, "cannot use %s: %s",
				    path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return st_error_set(err, ST_EXIT_CANTCREAT, "%s is not a directory",
				    path);
	d = opendir(path);
	if (!d)
		return st_error_set(err, ST_EXIT_CANTCREAT, "cannot open %s: %s",
				    path, strerror(errno));
	while (empty && (de = readdir(d)) != NULL)
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	if (!empty)
		return st_error_set(err, ST_EXIT_CANTCREAT, "%s is not empty (--force "
				    "writes into it anyway)", path);
	return 0;
}

static void sim_release(struct sim *s)
{
	free(s->jobs);
	for (int i = 0; i < ST_SIM_NSIZES; i++)
		free(s->db[i]);
	free(s->str);
	free(s->off);
	st_experiments_release(&s->ex);
	st_tz_free(s->la);
}

/* Streams of the dataset's parts. */
enum { R_JOBS = 1, R_DB, R_STREAMING, R_OFFLOAD, R_SAVE, R_ACQ, R_COUNTED };

static int generate(struct sim *s, st_error *err)
{
	st_rng r;

	s->la = st_tz_load(PACIFIC, err);
	if (!s->la || st_sim_experiments(s->o->scale, &s->ex, err) < 0)
		return -1;
	st_rng_seed(&r, s->o->seed, R_JOBS);
	if (gen_jobs(s, &r, err) < 0)
		return -1;
	st_rng_seed(&r, s->o->seed, R_DB);
	if (gen_db(s, &r, err) < 0)
		return -1;
	st_rng_seed(&r, s->o->seed, R_STREAMING);
	if (gen_streaming(s, &r, err) < 0)
		return -1;
	st_rng_seed(&r, s->o->seed, R_OFFLOAD);
	return gen_offload(s, &r, err);
}

/* The dataset's files: all complete on disk, then renamed into place. */
static int write_dataset(const struct sim *s, const char *dir,
			 st_sim_summary *sum, st_error *err)
{
	st_atomic_file af[O_N];
	char *path[O_N] = { 0 };
	char *ft = st_path_join(dir, "file_transfer");
	char *db = ft ? st_path_join(ft, "distiller_db") : NULL;
	char *stdir = st_path_join(dir, "streaming");
	int rc = -1, i;
	st_rng r;

	memset(af, 0, sizeof(af));
	if (!ft || !db || !stdir) {
		oom(err);
		goto out;
	}
	if (st_mkdir_p(db, err) < 0 || st_mkdir_p(stdir, err) < 0)
		goto out;
	path[O_EXPERIMENTS] = st_path_join(dir, "experiments.json");
	path[O_JOBS] = st_path_join(ft, "slurm_job_info.csv");
	path[O_WT] = st_path_join(ft, "write_times.csv");
	path[O_SAVE] = st_path_join(ft, "save_time_stats.csv");
	path[O_SAVE_TIMES] = st_path_join(ft, "save_times.json");
	path[O_CREATED] = st_path_join(stdir, "ncem_file_created_times.csv");
	for (i = 0; i < ST_SIM_NSIZES; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%" PRId64 "_%" PRId64 ".csv",
			 targets[i].size, targets[i].size);
		path[O_DB0 + i] = st_path_join(db, name);
		path[O_H50 + i] = st_path_join(stdir, s->ex.v[i].h5);
	}
	for (i = 0; i < O_N; i++) {
		if (!path[i]) {
			oom(err);
			goto out;
		}
		if (st_atomic_open(&af[i], path[i], err) < 0)
			goto out;
	}
	if (write_experiments(s, af[O_EXPERIMENTS].fp) < 0)
		goto io;
	sum->noise = write_jobs(s, af[O_JOBS].fp);
	sum->jobs = s->njobs;
	for (size_t j = 0; j < s->njobs; j++)
		sum->jobs -= s->jobs[j].kind >= K_FAILED;
	for (i = 0; i < ST_SIM_NSIZES; i++) {
		write_db(s, i, af[O_DB0 + i].fp);
		sum->db_rows += s->ndb[i];
		sum->streaming_scans += write_h5_times(s, i, af[O_H50 + i].fp);
	}
	write_write_times(s, af[O_WT].fp);
	sum->offload_scans = s->noff;
	st_rng_seed(&r, s->o->seed, R_SAVE);
	write_save_stats(&r, af[O_SAVE].fp, af[O_SAVE_TIMES].fp);
	if (write_created(s, af[O_CREATED].fp, &sum->created_rows, err) < 0)
		goto out;
	for (i = 0; i < O_N; i++)
		if (st_atomic_prepare(&af[i], err) < 0)
			goto out;
	for (i = 0; i < O_N; i++)
		if (st_atomic_commit(&af[i], err) < 0)
			goto out;
	rc = 0;
	goto out;
io:
	st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s",
		     path[O_EXPERIMENTS], strerror(errno));
out:
	for (i = 0; i < O_N; i++) {
		st_atomic_abort(&af[i]);
		free(path[i]);
	}
	free(ft);
	free(db);
	free(stdir);
	return rc;
}

/* Remove the directories a failed run made (they are empty then). */
static void undo_dirs(const char *dir)
{
	static const char *const sub[] = { "file_transfer/distiller_db",
					   "file_transfer", "streaming" };

	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		char *p = st_path_join(dir, sub[i]);

		if (p)
			rmdir(p);
		free(p);
	}
	rmdir(dir);
}

int st_sim_write(const char *dir, const st_sim_opts *o, st_sim_summary *sum,
		 st_error *err)
{
	struct sim s;
	st_sim_summary local;
	struct stat st;
	bool existed = stat(dir, &st) == 0;
	st_rng r;
	int rc = -1;

	if (!sum)
		sum = &local;
	memset(sum, 0, sizeof(*sum));
	memset(&s, 0, sizeof(s));
	s.o = o;
	if (o->scale < 1 || o->scale > ST_SIM_SCALE_MAX)
		return st_error_set(err, ST_EXIT_USAGE, "scale %u is out of range "
				    "(1-%d)", o->scale, ST_SIM_SCALE_MAX);
	if (!o->force && (st_sim_check_empty(dir, err) < 0 ||
			  (o->acquisition && st_sim_check_empty(o->acquisition, err) < 0) ||
			  (o->counted && st_sim_check_empty(o->counted, err) < 0)))
		return -1;
	if (generate(&s, err) < 0)
		goto out;
	if (write_dataset(&s, dir, sum, err) < 0) {
		if (!existed)
			undo_dirs(dir);
		goto out;
	}
	st_rng_seed(&r, o->seed, R_ACQ);
	if (o->acquisition && write_acquisition(&s, &r, &sum->acquisition_files,
						err) < 0)
		goto out;
	st_rng_seed(&r, o->seed, R_COUNTED);
	if (o->counted && write_counted(&s, &r, &sum->counted_files, err) < 0)
		goto out;
	rc = 0;
out:
	sim_release(&s);
	return rc;
}
